#!/usr/bin/python3
"""Side-by-side figures of the graph functions, networkx and igraph on the
graph the benchmark generates (issue 28), in one process.

    build/bench/bench --only graph_routes,graph_batch --size 1 --save-graph /tmp/g1.db
    /usr/bin/python3 tests/bench/graph_peers.py /tmp/g1.db [--ext dist/nosql.so] [--reps 3]

The file holds what the benchmark's graph_routes and graph_batch workloads
generate at that --size (tables routes(src, dst, w) with the 20 route pairs
route_pairs(i, start, goal), and batch(src, dst)); it is copied into an
in-memory database with indexes on both columns, as the benchmark builds
it. Then, each timed as the median of --reps runs:

- build: reading the edges into Python, igraph's Graph (ids renumbered
  densely with numpy, as igraph needs), networkx's DiGraph;
- routes (the routes table): graph_path from both ends (per route, warm:
  the connection's in-memory copy built; and the 20 on a new connection,
  which pays the load), networkx's
  bidirectional_shortest_path, igraph's get_shortest_paths;
- the batch table: our load alone (graph_sssp from a node in no edge),
  graph_pagerank / igraph PRPACK / networkx (scipy; pure Python below
  --max-nx-edges), graph_components / igraph weak components / networkx,
  graph_triangles / igraph list_triangles on the undirected graph /
  networkx triangles of G.to_undirected() (below --max-nx-edges).

With --centrality (the file written by `bench --only graph_centrality
--save-graph FILE`, which adds the table small), issue 38's jobs: core
numbers, local clustering and Louvain on the batch table against igraph's
coreness, transitivity_local_undirected and community_multilevel on the
undirected simple graph (built beforehand; networkx's core_number and
clustering below --max-nx-edges, its Louvain below --max-nx-louvain), and
exact betweenness on the small table against igraph's betweenness (on
the simplified graph: duplicate edges once, as networkx and ours count
them) and networkx's betweenness_centrality (directed, not normalized). Checked:
core numbers equal, clustering and betweenness max difference, and the
modularity of each Louvain partition (igraph's modularity()).

Our times are end to end from the edge table (the load included); the
peers' are on a graph already built. Answers are cross-checked (route
lengths, component counts, triangle totals, PageRank max difference).

Runs with Debian's Python (/usr/bin/python3), which can load extensions
and import Debian's packages; without networkx or igraph it prints SKIP.
"""

import argparse
import gc
import os
import platform
import statistics
import sqlite3
import sys
import time

try:
    import igraph as ig
    import networkx as nx
    import numpy as np
    import scipy  # noqa: F401 (networkx's pagerank needs it)
except ImportError as e:
    print("SKIP: graph_peers.py needs networkx, igraph, numpy and scipy (%s): "
          "apt-get install python3-networkx python3-igraph python3-numpy python3-scipy, "
          "and run it with /usr/bin/python3" % e)
    sys.exit(0)


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def machine():
    model = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem = int(f.readline().split()[1]) / 1024 / 1024
    return "%s, %d cores, %.0f GB, %s" % (model, os.cpu_count(), mem, platform.platform())


def timed(fn, reps):
    """(median seconds, last result) over reps runs of fn()."""
    times, res = [], None
    for _ in range(reps):
        gc.collect()
        t0 = time.perf_counter()
        res = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), res


def ms(t):
    return "%.1f ms" % (t * 1e3) if t < 10 else "%.2f s" % t


def row(*cells):
    print("| " + " | ".join(str(c) for c in cells) + " |")


def open_db(path, ext):
    mem = sqlite3.connect(":memory:")
    mem.enable_load_extension(True)
    mem.load_extension(ext)
    src = sqlite3.connect(path)
    src.backup(mem)
    src.close()
    mem.executescript("CREATE INDEX routes_src ON routes(src); CREATE INDEX routes_dst ON routes(dst);"
                      "CREATE INDEX batch_src ON batch(src); CREATE INDEX batch_dst ON batch(dst); ANALYZE")
    return mem


def read_edges(db, table):
    rows = db.execute("SELECT src, dst FROM %s ORDER BY rowid" % table).fetchall()
    return rows


def igraph_build(rows):
    a = np.array(rows, dtype=np.int64)
    ids, dense = np.unique(a, return_inverse=True)
    g = ig.Graph(n=len(ids), edges=dense.reshape(-1, 2).tolist(), directed=True)
    return g, ids


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("db", help="database written by bench --save-graph")
    ap.add_argument("--ext", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                                  "dist", "nosql"))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--max-nx-edges", type=int, default=2000000,
                    help="skip networkx's pure-Python PageRank and triangles above this many edges")
    ap.add_argument("--centrality", action="store_true",
                    help="issue 38's jobs only (needs the table small: bench --only graph_centrality --save-graph)")
    ap.add_argument("--max-nx-louvain", type=int, default=200000,
                    help="skip networkx's louvain_communities above this many edges")
    args = ap.parse_args()
    reps = max(1, args.reps)
    load0 = loadavg()
    t_start = time.time()
    print("# graph peers: %s" % args.db)
    print()
    print("- date: %s UTC" % time.strftime("%Y-%m-%d %H:%M", time.gmtime()))
    print("- machine: %s" % machine())
    print("- SQLite %s (Python's sqlite3), networkx %s, python-igraph %s, numpy %s" % (
        sqlite3.sqlite_version, nx.__version__, ig.__version__, np.__version__))
    print("- load average before: %s" % load0)

    if args.centrality:
        centrality(args, reps)
        print()
        print("- load average after: %s (%.0f s)" % (loadavg(), time.time() - t_start))
        return
    db = open_db(args.db, args.ext)
    n_batch = db.execute("SELECT count(*) FROM batch").fetchone()[0]
    n_routes = db.execute("SELECT count(*) FROM routes").fetchone()[0]
    nodes_batch = db.execute("SELECT count(*) FROM (SELECT src FROM batch UNION SELECT dst FROM batch)").fetchone()[0]
    nodes_routes = db.execute("SELECT count(*) FROM (SELECT src FROM routes UNION SELECT dst FROM routes)").fetchone()[0]
    pairs = db.execute("SELECT start, goal FROM route_pairs ORDER BY i").fetchall()
    print("- data: batch %d nodes, %d edges; routes %d nodes, %d edges, %d pairs; file %.0f MB; reps %d"
          % (nodes_batch, n_batch, nodes_routes, n_routes, len(pairs), os.path.getsize(args.db) / 1e6, reps))
    print()

    # --- Routes.
    print("## Routes: 20 shortest routes (hops, out) on the routes table")
    print()
    row("step", "time", "note")
    row("---", "---", "---")
    t, rows = timed(lambda: read_edges(db, "routes"), 1)
    row("read the edges into Python (SELECT)", ms(t), "%d rows" % len(rows))
    t, (gr, ids_r) = timed(lambda: igraph_build(rows), 1)
    row("igraph: Graph from the rows (numpy renumbering)", ms(t), "")

    def nx_build():
        G = nx.DiGraph()
        G.add_edges_from(rows)
        return G
    t, Gr = timed(nx_build, 1)
    row("networkx: DiGraph from the rows", ms(t), "duplicate edges merged")
    del rows
    gc.collect()
    print()

    def ours_routes():
        # A new connection's first route pays the load; the others reuse the copy.
        out = []
        for s, g in pairs:
            out.append(db.execute("SELECT max(step) FROM graph_path('routes', 'src', 'dst', ?, ?)",
                                  (s, g)).fetchone()[0])
        return out

    def first_route():
        # The cached copy belongs to the connection: a fresh connection pays the load.
        c = sqlite3.connect(":memory:")
        c.enable_load_extension(True)
        c.load_extension(args.ext)
        db.backup(c)
        t0 = time.perf_counter()
        for s, g in pairs:
            c.execute("SELECT max(step) FROM graph_path('routes', 'src', 'dst', ?, ?)", (s, g)).fetchone()
        t1 = time.perf_counter() - t0
        c.close()
        return t1

    first = statistics.median(first_route() for _ in range(reps))
    ours_routes()  # (warms the connection's copy)
    t_ours, hops_ours = timed(ours_routes, reps)

    def nx_routes():
        out = []
        for s, g in pairs:
            try:
                out.append(len(nx.bidirectional_shortest_path(Gr, s, g)) - 1)
            except (nx.NetworkXNoPath, nx.NodeNotFound):
                out.append(None)
        return out
    t_nx, hops_nx = timed(nx_routes, reps)
    index_r = {int(v): i for i, v in enumerate(ids_r)}

    def ig_routes():
        out = []
        for s, g in pairs:
            if s not in index_r or g not in index_r:
                out.append(None)
                continue
            p = gr.get_shortest_paths(index_r[s], to=index_r[g], mode="out", output="vpath")[0]
            out.append(len(p) - 1 if p else None)
        return out
    t_ig, hops_ig = timed(ig_routes, reps)
    agree = hops_ours == hops_nx == hops_ig
    row("route query", "per route", "ours / peer", "note")
    row("---", "---", "---", "---")
    row("graph_path (warm: the connection's copy)", ms(t_ours / len(pairs)), "1", "hops %s" % hops_ours)
    row("graph_path, the 20 on a new connection", ms(first / len(pairs)), "%.2fx" % (first / t_ours),
        "the first routes seek; the copy is loaded once")
    row("networkx bidirectional_shortest_path", ms(t_nx / len(pairs)), "%.2fx (new connection %.2fx)"
        % (t_ours / t_nx, first / t_nx), "same lengths: %s" % agree)
    row("igraph get_shortest_paths", ms(t_ig / len(pairs)), "%.2fx (new connection %.2fx)"
        % (t_ours / t_ig, first / t_ig), "")
    del Gr, gr, index_r
    gc.collect()
    print()

    # --- Batch jobs.
    print("## Batch jobs on the batch table (%d nodes, %d edges)" % (nodes_batch, n_batch))
    print()
    row("step", "time", "note")
    row("---", "---", "---")
    t, rows = timed(lambda: read_edges(db, "batch"), 1)
    row("read the edges into Python (SELECT)", ms(t), "%.0f ns/edge" % (t / n_batch * 1e9))
    t_igb, (g, ids) = timed(lambda: igraph_build(rows), 1)
    row("igraph: Graph from the rows (numpy renumbering)", ms(t_igb), "%.0f ns/edge" % (t_igb / n_batch * 1e9))
    t_nxb, G = timed(nx_build, 1)
    row("networkx: DiGraph from the rows", ms(t_nxb), "%.0f ns/edge" % (t_nxb / n_batch * 1e9))
    del rows
    gc.collect()
    t_load, _ = timed(lambda: db.execute("SELECT count(*) FROM graph_sssp('batch', 'src', 'dst', -1)").fetchone(),
                      reps)
    row("ours: load alone (graph_sssp from a node in no edge)", ms(t_load), "%.0f ns/edge" % (t_load / n_batch * 1e9))
    print()
    row("job", "ours (from the table)", "networkx", "igraph", "ours / networkx", "ours / igraph", "check")
    row("---", "---", "---", "---", "---", "---", "---")

    def ours_pr():
        return db.execute("SELECT node, rank FROM graph_pagerank('batch', 'src', 'dst')").fetchall()
    t_o, pr_o = timed(lambda: db.execute(
        "SELECT count(*), sum(rank) FROM graph_pagerank('batch', 'src', 'dst')").fetchone(), reps)
    t_i, pr_i = timed(lambda: g.pagerank(implementation="prpack"), reps)
    t_n, pr_n = timed(lambda: nx.pagerank(G), reps)
    ranks = dict(ours_pr())
    diff_i = max(abs(ranks[int(v)] - pr_i[i]) for i, v in enumerate(ids))
    diff_n = max(abs(ranks[v] - r) for v, r in pr_n.items())
    row("PageRank (ours, networkx scipy: tol 1e-6; igraph PRPACK: exact)", ms(t_o), ms(t_n), ms(t_i),
        "%.2fx" % (t_o / t_n), "%.2fx" % (t_o / t_i),
        "max diff: igraph %.1e, networkx %.1e (DiGraph merges duplicate edges)" % (diff_i, diff_n))
    t_a, _ = timed(lambda: g.pagerank(implementation="arpack"), reps)
    row("PageRank, igraph ARPACK", ms(t_o), "", ms(t_a), "", "%.2fx" % (t_o / t_a), "")
    del ranks, pr_n
    if n_batch <= args.max_nx_edges:
        pure = nx.algorithms.link_analysis.pagerank_alg._pagerank_python
        t_p, _ = timed(lambda: pure(G), 1)
        row("PageRank, networkx pure Python (_pagerank_python)", ms(t_o), ms(t_p), "", "%.2fx" % (t_o / t_p), "", "")

    t_o, c_o = timed(lambda: db.execute(
        "SELECT sum(node = component) FROM graph_components('batch', 'src', 'dst')").fetchone()[0], reps)
    t_i, c_i = timed(lambda: len(g.connected_components(mode="weak")), reps)
    t_n, c_n = timed(lambda: nx.number_weakly_connected_components(G), reps)
    row("weak components", ms(t_o), ms(t_n), ms(t_i), "%.2fx" % (t_o / t_n), "%.2fx" % (t_o / t_i),
        "count %d / %d / %d" % (c_o, c_n, c_i))

    t_o, tr_o = timed(lambda: db.execute(
        "SELECT sum(triangles) FROM graph_triangles('batch', 'src', 'dst')").fetchone()[0], reps)
    t_i, tr_i = timed(lambda: 3 * len(g.as_undirected().simplify().list_triangles()), reps)
    if n_batch <= args.max_nx_edges:
        t_n, tr_n = timed(lambda: sum(nx.triangles(G.to_undirected()).values()), 1)
        nx_cells = (ms(t_n), "%.2fx" % (t_o / t_n))
    else:
        tr_n = "skipped"
        nx_cells = ("skipped", "")
    row("triangles (undirected; peers: conversion included)", ms(t_o), nx_cells[0], ms(t_i), nx_cells[1],
        "%.2fx" % (t_o / t_i), "sum of per-node counts %s / %s / %s" % (tr_o, tr_n, tr_i))
    print()
    print("- load average after: %s (%.0f s)" % (loadavg(), time.time() - t_start))


def centrality(args, reps):
    """Issue 38: the centrality jobs against igraph and networkx."""
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.load_extension(args.ext)
    src = sqlite3.connect(args.db)
    src.backup(db)
    src.close()
    n_batch = db.execute("SELECT count(*) FROM batch").fetchone()[0]
    n_small = db.execute("SELECT count(*) FROM small").fetchone()[0]
    print("- data: batch %d edges, small %d edges; reps %d" % (n_batch, n_small, reps))
    print()
    row("job", "size", "ours (from the table)", "igraph (built graph)", "networkx (built graph)", "ours / igraph",
        "ours / networkx", "check")
    row("---", "---", "---", "---", "---", "---", "---", "---")
    rows = read_edges(db, "batch")
    t_conv, (g, ids) = timed(lambda: igraph_build(rows), 1)
    t_u, u = timed(lambda: g.as_undirected().simplify(), 1)
    index = {int(v): i for i, v in enumerate(ids)}
    G = None
    if n_batch <= args.max_nx_edges:
        G = nx.Graph()
        G.add_edges_from(rows)
        G.remove_edges_from(nx.selfloop_edges(G))
    del rows
    gc.collect()
    size = "%dk / %.1fM" % (len(ids) / 1e3, n_batch / 1e6)

    t_o, core_o = timed(lambda: dict(db.execute("SELECT node, core FROM graph_core_number('batch', 'src', 'dst')")), reps)
    t_i, core_i = timed(lambda: u.coreness(), reps)
    same = all(core_o[int(v)] == core_i[i] for i, v in enumerate(ids))
    t_n = None
    if G is not None:
        t_n, core_n = timed(lambda: nx.core_number(G), 1)
        same = same and all(core_o[v] == c for v, c in core_n.items())
    row("core numbers", size, ms(t_o), ms(t_i), ms(t_n) if t_n else "skipped", "%.2fx" % (t_o / t_i),
        "%.2fx" % (t_o / t_n) if t_n else "", "equal: %s" % same)

    t_o, cl_o = timed(lambda: dict(db.execute("SELECT node, clustering FROM graph_clustering('batch', 'src', 'dst')")),
                      reps)
    t_i, cl_i = timed(lambda: u.transitivity_local_undirected(mode="zero"), reps)
    diff = max(abs(cl_o[int(v)] - cl_i[i]) for i, v in enumerate(ids))
    t_n = None
    if G is not None:
        t_n, cl_n = timed(lambda: nx.clustering(G), 1)
        diff = max(diff, max(abs(cl_o[v] - c) for v, c in cl_n.items()))
    row("local clustering", size, ms(t_o), ms(t_i), ms(t_n) if t_n else "skipped", "%.2fx" % (t_o / t_i),
        "%.2fx" % (t_o / t_n) if t_n else "", "max diff %.1e" % diff)

    t_o, lv_o = timed(lambda: db.execute("SELECT node, community FROM graph_louvain('batch', 'src', 'dst')").fetchall(),
                      reps)
    # (igraph 0.10's multilevel takes minutes on this graph's hubs: timed once.)
    t_i, lv_i = timed(lambda: u.community_multilevel(), 1)
    label, memb = {}, [0] * len(ids)
    for v, c in lv_o:
        memb[index[v]] = label.setdefault(c, len(label))
    q_o, q_i = u.modularity(memb), lv_i.modularity
    note = "modularity ours %.4f, igraph %.4f (%d / %d communities)" % (q_o, q_i, len(label), len(lv_i))
    t_n = None
    if G is not None and n_batch <= args.max_nx_louvain:
        t_n, lv_n = timed(lambda: nx.community.louvain_communities(G, seed=0), 1)
        note += ", networkx %.4f" % nx.community.modularity(G, lv_n)
    row("Louvain", size, ms(t_o), ms(t_i), ms(t_n) if t_n else "skipped", "%.2fx" % (t_o / t_i),
        "%.2fx" % (t_o / t_n) if t_n else "", note)
    print()
    print("igraph: Graph from the rows %s, as_undirected().simplify() %s (not counted above)" % (ms(t_conv), ms(t_u)))
    del g, u, G, index
    gc.collect()

    rows = read_edges(db, "small")
    gs, ids_s = igraph_build(rows)
    gs.simplify()  # (a duplicate edge would count twice in igraph's paths; once in networkx's DiGraph and ours)
    Gs = nx.DiGraph()
    Gs.add_edges_from(rows)
    t_o, b_o = timed(lambda: dict(db.execute(
        "SELECT node, betweenness FROM graph_betweenness('small', 'src', 'dst', NULL, 0)")), reps)
    t_i, b_i = timed(lambda: gs.betweenness(directed=True), reps)
    t_n, b_n = timed(lambda: nx.betweenness_centrality(Gs, normalized=False), 1)
    diff = max(max(abs(b_o[int(v)] - b_i[i]) for i, v in enumerate(ids_s)), max(abs(b_o[v] - b) for v, b in b_n.items()))
    print()
    row("job", "size", "ours (from the table)", "igraph (built graph)", "networkx (built graph)", "ours / igraph",
        "ours / networkx", "check")
    row("---", "---", "---", "---", "---", "---", "---", "---")
    row("exact betweenness (directed)", "%d / %dk" % (len(ids_s), n_small / 1e3), ms(t_o), ms(t_i), ms(t_n),
        "%.2fx" % (t_o / t_i), "%.2fx" % (t_o / t_n), "max diff %.1e" % diff)


if __name__ == "__main__":
    main()
