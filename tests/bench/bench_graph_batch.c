/*
** bench_graph_batch.c: batch graph processing (technique 17) against the
** SQL superstep loops that compute the same answers. A directed graph with
** power-law in-degrees (sources uniform, targets n * u^3): 100k nodes and
** 1M edges at size 1 (1M and 10M at --size 10).
**
**   PageRank, 10 iterations   the application's loop: per iteration one
**                             INSERT ... SELECT ... GROUP BY over the edges
**                             and the dangling sum, vs graph_pagerank
**                             (tolerance 0, max_iter 10); ranks compared
**                             scaled by N to 6 decimals
**   components                UPDATE label = min(neighbours' labels) until
**                             nothing changes, vs graph_components
**   hop distances             the depth-bounded recursive CTE (the graph's
**                             depth from the root is small) vs graph_sssp
**   SCC, triangles, labels    the functions alone (no practical SQL form
**                             at this size)
**
** The workload graph_centrality (benchGraphCentrality) times the jobs of
** ext/graph_centrality.c alone on the same graph (no practical SQL form;
** igraph's and networkx's figures come from tests/bench/graph_peers.py on
** the saved graph): core numbers, local clustering and Louvain on it,
** exact betweenness on a graph of 2k nodes and 10k edges from the same
** generator (table small, saved beside batch).
*/
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

#define GB_BENCH_ITER 10

/* The application-side superstep loop of PageRank. */
static int gbPageRankSql(sqlite3 *db, void *pArg, BenchSum *pSum) {
  int64_t nNode = *(int64_t *)pArg;
  int i, rc = SQLITE_OK;
  char zSql[1024];
  sqlite3_stmt *pStmt = NULL;
  rc = sqlite3_exec(db,
                    "DROP TABLE IF EXISTS temp.pr; DROP TABLE IF EXISTS temp.pr_next;"
                    "CREATE TEMP TABLE pr(node INTEGER PRIMARY KEY, r REAL);"
                    "INSERT INTO pr SELECT node, 1.0 / (SELECT count(*) FROM g_nodes) FROM g_nodes;",
                    0, 0, 0);
  for (i = 0; rc == SQLITE_OK && i < GB_BENCH_ITER; i++) {
    snprintf(
        zSql, sizeof(zSql),
        "CREATE TEMP TABLE pr_next(node INTEGER PRIMARY KEY, r REAL);"
        "INSERT INTO pr_next SELECT n.node, 0.85 * (coalesce(s.inflow, 0) + "
        "(SELECT coalesce(sum(pr.r), 0) FROM pr JOIN g_outdeg d USING (node) WHERE d.d = 0) / %lld.0) "
        "+ 0.15 / %lld.0 FROM g_nodes n LEFT JOIN (SELECT g.dst, sum(pr.r / d.d) AS inflow FROM g "
        "JOIN pr ON pr.node = g.src JOIN g_outdeg d ON d.node = g.src GROUP BY g.dst) s ON s.dst = n.node;"
        "DROP TABLE pr; ALTER TABLE pr_next RENAME TO pr;",
        (long long)nNode, (long long)nNode);
    rc = sqlite3_exec(db, zSql, 0, 0, 0);
  }
  if (rc == SQLITE_OK) {
    snprintf(zSql, sizeof(zSql), "SELECT node, round(r * %lld, 6) FROM temp.pr", (long long)nNode);
    rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  }
  if (rc == SQLITE_OK) rc = benchSumStmt(pSum, pStmt);
  sqlite3_finalize(pStmt);
  return rc;
}

/* Components in SQL: every node's label becomes the smallest around it, until nothing changes. */
static int gbComponentsSql(sqlite3 *db, void *pArg, BenchSum *pSum) {
  sqlite3_stmt *pStmt = NULL;
  int rc;
  (void)pArg;
  rc = sqlite3_exec(
      db,
      "DROP TABLE IF EXISTS temp.lab; CREATE TEMP TABLE lab(node INTEGER PRIMARY KEY, c INTEGER);"
      "INSERT INTO lab SELECT node, node FROM g_nodes;",
      0, 0, 0);
  while (rc == SQLITE_OK) {
    rc = sqlite3_exec(
        db,
        "UPDATE lab SET c = m FROM (SELECT x AS n, min(l.c) AS m FROM (SELECT src AS x, dst AS y "
        "FROM g UNION ALL SELECT dst, src FROM g) JOIN lab l ON l.node = y GROUP BY x) s "
        "WHERE s.n = lab.node AND s.m < lab.c",
        0, 0, 0);
    if (rc == SQLITE_OK && sqlite3_changes(db) == 0) break;
  }
  if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(db, "SELECT node, c FROM temp.lab", -1, &pStmt, 0);
  if (rc == SQLITE_OK) rc = benchSumStmt(pSum, pStmt);
  sqlite3_finalize(pStmt);
  return rc;
}

void benchGraphBatch(Bench *p) {
  int64_t nNode = benchSize(p, 100000, 2000), nEdge = 10 * nNode;
  uint64_t seed = 17;
  sqlite3 *db = benchOpen();
  char zSize[96], zSql[512];

  benchExec(db, "CREATE TABLE g(src INTEGER, dst INTEGER)");
  benchPowerLawEdges(db, "INSERT INTO g VALUES (?1, ?2)", nNode, nEdge, &seed);
  if (benchSaveGraph(p, db,
                     "DROP TABLE IF EXISTS save.batch; CREATE TABLE save.batch(src INTEGER, dst INTEGER);"
                     "INSERT INTO save.batch SELECT src, dst FROM main.g ORDER BY rowid")) {
    sqlite3_close(db);
    return;
  }
  benchExec(
      db,
      "CREATE INDEX g_src ON g(src); CREATE INDEX g_dst ON g(dst);"
      "CREATE TABLE g_nodes(node INTEGER PRIMARY KEY);"
      "INSERT INTO g_nodes SELECT src FROM g UNION SELECT dst FROM g;"
      "CREATE TABLE g_outdeg(node INTEGER PRIMARY KEY, d INTEGER);"
      "INSERT INTO g_outdeg SELECT node, (SELECT count(*) FROM g WHERE src = node) FROM g_nodes; ANALYZE");
  {
    sqlite3_stmt *pStmt = NULL;
    sqlite3_prepare_v2(db, "SELECT count(*) FROM g_nodes", -1, &pStmt, 0);
    if (sqlite3_step(pStmt) == SQLITE_ROW) nNode = sqlite3_column_int64(pStmt, 0);
    sqlite3_finalize(pStmt);
  }
  snprintf(zSize, sizeof(zSize), "%lld nodes, %lld edges", (long long)nNode, (long long)nEdge);

  snprintf(zSql, sizeof(zSql),
           "SELECT node, round(rank * %lld, 6) FROM graph_pagerank('g', 'src', 'dst', 0.85, 0, %d)",
           (long long)nNode, GB_BENCH_ITER);
  {
    BenchVariant aVar[2] = {
        {BENCH_RELATIONAL, "SQL superstep loop (INSERT ... SELECT ... GROUP BY per iteration)", 0,
         gbPageRankSql, &nNode},
        {BENCH_EXTENSION, "graph_pagerank", zSql, 0, 0}};
    benchCompare(p, "graph batch: PageRank, 10 iterations", db, zSize, (double)nNode, "nodes",
                 (double)nEdge * GB_BENCH_ITER, "edge-iteration", aVar, 2);
  }
  {
    BenchVariant aVar[2] = {
        {BENCH_RELATIONAL, "SQL loop: UPDATE to the smallest neighbour label until no change", 0,
         gbComponentsSql, 0},
        {BENCH_EXTENSION, "graph_components",
         "SELECT node, component FROM graph_components('g', 'src', 'dst')", 0, 0}};
    benchCompare(p, "graph batch: connected components", db, zSize, (double)nNode, "nodes", (double)nEdge,
                 "edge", aVar, 2);
  }
  {
    BenchVariant aVar[2] = {
        {BENCH_RELATIONAL, "recursive CTE, UNION over (node, depth), min(depth), 6 hops",
         "SELECT n, min(d) FROM (WITH RECURSIVE r(n, d) AS (SELECT 1, 0 UNION SELECT g.dst, r.d + 1 FROM r "
         "JOIN g "
         "ON g.src = r.n WHERE r.d < 6) SELECT * FROM r) GROUP BY n HAVING min(d) <= 6",
         0, 0},
        {BENCH_EXTENSION, "graph_sssp",
         "SELECT node, distance FROM graph_sssp('g', 'src', 'dst', 1) WHERE distance <= 6", 0, 0}};
    benchCompare(p, "graph batch: hop distances from one node", db, zSize, (double)nNode, "nodes",
                 (double)nEdge, "edge", aVar, 2);
  }
  {
    BenchVariant aVar[1] = {
        {BENCH_EXTENSION, "graph_scc", "SELECT node, component FROM graph_scc('g', 'src', 'dst')", 0, 0}};
    benchCompare(p, "graph batch: strongly connected components", db, zSize, (double)nNode, "nodes",
                 (double)nEdge, "edge", aVar, 1);
  }
  {
    BenchVariant aVar[1] = {{BENCH_EXTENSION, "graph_triangles",
                             "SELECT node, triangles FROM graph_triangles('g', 'src', 'dst')", 0, 0}};
    benchCompare(p, "graph batch: triangles", db, zSize, (double)nNode, "nodes", (double)nEdge, "edge", aVar,
                 1);
  }
  {
    BenchVariant aVar[1] = {{BENCH_EXTENSION, "graph_label_propagation",
                             "SELECT node, label FROM graph_label_propagation('g', 'src', 'dst', 10)", 0, 0}};
    benchCompare(p, "graph batch: label propagation, 10 passes", db, zSize, (double)nNode, "nodes",
                 (double)nEdge * 10, "edge-pass", aVar, 1);
  }
  sqlite3_close(db);
}

void benchGraphCentrality(Bench *p) {
  int64_t nNode = benchSize(p, 100000, 2000), nEdge = 10 * nNode, nSmall = benchSize(p, 2000, 200);
  uint64_t seed = 17, seedSmall = 38; /* seed 17: the graph of benchGraphBatch */
  sqlite3 *db = benchOpen();
  char zSize[96], zSmall[96];

  benchExec(db, "CREATE TABLE g(src INTEGER, dst INTEGER)");
  benchPowerLawEdges(db, "INSERT INTO g VALUES (?1, ?2)", nNode, nEdge, &seed);
  benchExec(db, "CREATE TABLE small(src INTEGER, dst INTEGER)");
  benchPowerLawEdges(db, "INSERT INTO small VALUES (?1, ?2)", nSmall, 5 * nSmall, &seedSmall);
  if (benchSaveGraph(p, db,
                     "DROP TABLE IF EXISTS save.batch; CREATE TABLE save.batch(src INTEGER, dst INTEGER);"
                     "INSERT INTO save.batch SELECT src, dst FROM main.g ORDER BY rowid;"
                     "DROP TABLE IF EXISTS save.small; CREATE TABLE save.small(src INTEGER, dst INTEGER);"
                     "INSERT INTO save.small SELECT src, dst FROM main.small ORDER BY rowid")) {
    sqlite3_close(db);
    return;
  }
  nNode = benchInt(db, "SELECT count(*) FROM (SELECT src FROM g UNION SELECT dst FROM g)");
  snprintf(zSize, sizeof(zSize), "%.0fk nodes, %.1fM edges", nNode / 1e3, nEdge / 1e6);
  snprintf(zSmall, sizeof(zSmall), "%.1fk nodes, %.0fk edges",
           benchInt(db, "SELECT count(*) FROM (SELECT src FROM small UNION SELECT dst FROM small)") / 1e3,
           5 * nSmall / 1e3);
  {
    BenchVariant aVar[1] = {{BENCH_EXTENSION, "graph_core_number",
                             "SELECT node, core FROM graph_core_number('g', 'src', 'dst')", 0, 0}};
    benchCompare(p, "graph centrality: core numbers", db, zSize, (double)nNode, "nodes", (double)nEdge,
                 "edge", aVar, 1);
  }
  {
    BenchVariant aVar[1] = {{BENCH_EXTENSION, "graph_clustering",
                             "SELECT node, round(clustering, 9) FROM graph_clustering('g', 'src', 'dst')", 0,
                             0}};
    benchCompare(p, "graph centrality: local clustering", db, zSize, (double)nNode, "nodes", (double)nEdge,
                 "edge", aVar, 1);
  }
  {
    BenchVariant aVar[1] = {{BENCH_EXTENSION, "graph_louvain",
                             "SELECT node, community FROM graph_louvain('g', 'src', 'dst')", 0, 0}};
    benchCompare(p, "graph centrality: Louvain communities", db, zSize, (double)nNode, "nodes", (double)nEdge,
                 "edge", aVar, 1);
  }
  {
    BenchVariant aVar[1] = {
        {BENCH_EXTENSION, "graph_betweenness",
         "SELECT node, round(betweenness, 6) FROM graph_betweenness('small', 'src', 'dst', NULL, 0)", 0, 0}};
    benchCompare(p, "graph centrality: exact betweenness", db, zSmall, (double)nSmall, "nodes",
                 (double)nSmall * 5 * nSmall, "node-edge", aVar, 1);
  }
  sqlite3_close(db);
}
