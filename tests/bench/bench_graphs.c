/*
** bench_graphs.c: graph_walk and graph_path (technique 12) against the
** recursive CTEs that answer the same questions, on a random directed
** graph with power-law in-degrees: n nodes (200k at size 1), 5n edges whose
** sources are uniform and whose targets are skewed to low ids (a target is
** n * u^3 for uniform u), so a few hubs have thousands of followers.
** Indexes on both columns.
**
**   3 hops from a hub (out)    graph_walk(..., hub, 3) vs the UNION CTE
**                              over (node, depth) with min(depth)
**   reachability (in, 4 hops)  graph_walk(..., 'in') vs the UNION CTE
**   reachability, no depth     graph_walk vs the CTE whose UNION is over
**                              the node alone (SQL's only visited-set guard)
**   shortest route             graph_path hop counts between random pairs
**                              vs the depth-bounded CTE's min(depth)
**
** graph_routes: the issue 28 graph, 100k nodes and 1M edges at size 1 (10
** per node, sources uniform, targets n * u^3), indexes on both columns;
** shortest routes between random pairs (any length) by graph_path from
** both ends, against the same search from one end (graph_path over a view
** of the table: never read backwards, never held in memory). Hops 'out'
** and 'both', and weights 1..9 'out'.
*/
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

/* Random pairs (start, goal) for the route workload. */
typedef struct GraphPairs GraphPairs;
struct GraphPairs {
  int64_t *aFrom; /* Starts */
  int64_t *aTo;   /* Goals */
  int n;          /* Pairs */
};

/* Run zSql once per pair (?1 start, ?2 goal), summing the rows. */
static int graphPerPair(sqlite3 *db, const GraphPairs *p, const char *zSql, BenchSum *pSum) {
  sqlite3_stmt *pStmt = NULL;
  int rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0), i;
  for (i = 0; rc == SQLITE_OK && i < p->n; i++) {
    sqlite3_bind_int64(pStmt, 1, p->aFrom[i]);
    sqlite3_bind_int64(pStmt, 2, p->aTo[i]);
    rc = benchSumStmt(pSum, pStmt);
    sqlite3_reset(pStmt);
  }
  sqlite3_finalize(pStmt);
  return rc;
}

static int graphPathFunc(sqlite3 *db, void *pArg, BenchSum *pSum) {
  return graphPerPair(db, (GraphPairs *)pArg, "SELECT max(step) FROM graph_path('g', 'src', 'dst', ?1, ?2)",
                      pSum);
}

/* graph_routes: zSql per pair (?1 start, ?2 goal). */
static int graphRouteOut(sqlite3 *db, void *pArg, BenchSum *pSum) {
  return graphPerPair(db, (GraphPairs *)pArg, "SELECT max(step) FROM graph_path('g', 'src', 'dst', ?1, ?2)",
                      pSum);
}
static int graphRouteOutView(sqlite3 *db, void *pArg, BenchSum *pSum) {
  return graphPerPair(db, (GraphPairs *)pArg, "SELECT max(step) FROM graph_path('gv', 'src', 'dst', ?1, ?2)",
                      pSum);
}
static int graphRouteBoth(sqlite3 *db, void *pArg, BenchSum *pSum) {
  return graphPerPair(db, (GraphPairs *)pArg,
                      "SELECT max(step) FROM graph_path('g', 'src', 'dst', ?1, ?2, NULL, 'both')", pSum);
}
static int graphRouteBothView(sqlite3 *db, void *pArg, BenchSum *pSum) {
  return graphPerPair(db, (GraphPairs *)pArg,
                      "SELECT max(step) FROM graph_path('gv', 'src', 'dst', ?1, ?2, NULL, 'both')", pSum);
}
static int graphRouteW(sqlite3 *db, void *pArg, BenchSum *pSum) {
  return graphPerPair(db, (GraphPairs *)pArg,
                      "SELECT max(cost) FROM graph_path('g', 'src', 'dst', ?1, ?2, 'w')", pSum);
}
static int graphRouteWView(sqlite3 *db, void *pArg, BenchSum *pSum) {
  return graphPerPair(db, (GraphPairs *)pArg,
                      "SELECT max(cost) FROM graph_path('gv', 'src', 'dst', ?1, ?2, 'w')", pSum);
}

static int graphPathCte(sqlite3 *db, void *pArg, BenchSum *pSum) {
  return graphPerPair(db, (GraphPairs *)pArg,
                      "WITH RECURSIVE r(n, d) AS (SELECT ?1, 0 UNION SELECT g.dst, r.d + 1 FROM r "
                      "JOIN g ON g.src = r.n WHERE r.d < 4) SELECT min(d) FROM r WHERE n = ?2",
                      pSum);
}

/* Count the rows of zSql (one integer bound to ?1). */
static int64_t graphCount(sqlite3 *db, const char *zSql, int64_t iArg) {
  sqlite3_stmt *pStmt = NULL;
  int64_t n = 0;
  if (sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0) == SQLITE_OK) {
    sqlite3_bind_int64(pStmt, 1, iArg);
    while (sqlite3_step(pStmt) == SQLITE_ROW) n++;
  }
  sqlite3_finalize(pStmt);
  return n;
}

/*
** The 10-ary tree of 1,111,111 nodes (size 1) as an edge table (parent,
** child) indexed on parent: the whole tree from the root, and a subtree of
** 11,111 nodes, by graph_walk and by the recursive CTE (UNION ALL: a tree
** needs no visited set, the CTE's best case).
*/
static void benchGraphTree(Bench *p) {
  int64_t nNode = benchSize(p, 1111111, 1111), i;
  sqlite3 *db = benchOpen();
  sqlite3_stmt *pIns = NULL;
  char zSize[64];
  benchExec(db, "CREATE TABLE t(parent INTEGER, child INTEGER)");
  benchExec(db, "BEGIN");
  sqlite3_prepare_v2(db, "INSERT INTO t VALUES (?1, ?2)", -1, &pIns, 0);
  for (i = 1; i < nNode; i++) {
    sqlite3_bind_int64(pIns, 1, (i - 1) / 10);
    sqlite3_bind_int64(pIns, 2, i);
    sqlite3_step(pIns);
    sqlite3_reset(pIns);
  }
  sqlite3_finalize(pIns);
  benchExec(db, "COMMIT");
  benchExec(db, "CREATE INDEX t_parent ON t(parent)");
  snprintf(zSize, sizeof(zSize), "%lld-node 10-ary tree", (long long)nNode);
  {
    BenchVariant aVar[2] = {
        {BENCH_RELATIONAL, "recursive CTE (UNION ALL)",
         "WITH RECURSIVE r(n, d) AS (SELECT 0, 0 UNION ALL SELECT t.child, r.d + 1 FROM r JOIN t ON t.parent "
         "= "
         "r.n) SELECT n, d FROM r",
         0, 0},
        {BENCH_EXTENSION, "graph_walk", "SELECT node, depth FROM graph_walk('t', 'parent', 'child', 0)", 0,
         0}};
    benchCompare(p, "graphs: the whole tree from its root", db, zSize, (double)nNode, "nodes", (double)nNode,
                 "visited node", aVar, 2);
  }
  {
    BenchVariant aVar[2] = {
        {BENCH_RELATIONAL, "recursive CTE (UNION ALL)",
         "WITH RECURSIVE r(n, d) AS (SELECT 1, 0 UNION ALL SELECT t.child, r.d + 1 FROM r JOIN t ON t.parent "
         "= "
         "r.n) SELECT n, d FROM r",
         0, 0},
        {BENCH_EXTENSION, "graph_walk", "SELECT node, depth FROM graph_walk('t', 'parent', 'child', 1)", 0,
         0}};
    benchCompare(p, "graphs: the subtree of a child of the root", db, zSize, (double)nNode, "nodes",
                 (double)(nNode / 10), "visited node", aVar, 2);
  }
  sqlite3_close(db);
}

void benchGraphs(Bench *p) {
  int64_t nNode = benchSize(p, 200000, 2000), nEdge = 5 * nNode, i, hub, nRow;
  uint64_t seed = 12;
  sqlite3 *db = benchOpen();
  char zSize[96], zSql[512];
  GraphPairs pairs = {0, 0, 0};
  double t0;

  benchExec(db, "CREATE TABLE g(src INTEGER, dst INTEGER)");
  benchPowerLawEdges(db, "INSERT INTO g VALUES (?1, ?2)", nNode, nEdge, &seed);
  benchExec(db, "CREATE INDEX g_src ON g(src); CREATE INDEX g_dst ON g(dst); ANALYZE");
  snprintf(zSize, sizeof(zSize), "%lld nodes, %lld edges", (long long)nNode, (long long)nEdge);
  /* The hub: the node with the most followers; its 3-hop out-neighbourhood. */
  {
    sqlite3_stmt *pStmt = NULL;
    sqlite3_prepare_v2(db, "SELECT src FROM g GROUP BY src ORDER BY count(*) DESC, src LIMIT 1", -1, &pStmt,
                       0);
    hub = sqlite3_step(pStmt) == SQLITE_ROW ? sqlite3_column_int64(pStmt, 0) : 0;
    sqlite3_finalize(pStmt);
  }

  /* 1. Three hops out of the node with the most out-edges. */
  snprintf(zSql, sizeof(zSql), "SELECT node, depth FROM graph_walk('g', 'src', 'dst', %lld, 3)",
           (long long)hub);
  nRow = graphCount(db, zSql, 0);
  {
    char zCte[400];
    BenchVariant aVar[2];
    snprintf(
        zCte, sizeof(zCte),
        "WITH RECURSIVE r(n, d) AS (SELECT %lld, 0 UNION SELECT g.dst, r.d + 1 FROM r JOIN g ON g.src = r.n "
        "WHERE r.d < 3) SELECT n, min(d) FROM r GROUP BY n",
        (long long)hub);
    aVar[0] = (BenchVariant){BENCH_RELATIONAL, "recursive CTE, UNION over (node, depth)", zCte, 0, 0};
    aVar[1] = (BenchVariant){BENCH_EXTENSION, "graph_walk(..., 3)", zSql, 0, 0};
    benchCompare(p, "graphs: 3 hops out of the busiest node", db, zSize, (double)nNode, "nodes", (double)nRow,
                 "visited node", aVar, 2);
  }

  /* 2. Who reaches node 0 (the biggest hub) within 4 hops: edges backwards. */
  snprintf(zSql, sizeof(zSql), "SELECT node, depth FROM graph_walk('g', 'src', 'dst', 0, 4, 'in')");
  nRow = graphCount(db, zSql, 0);
  {
    BenchVariant aVar[2] = {
        {BENCH_RELATIONAL, "recursive CTE, UNION over (node, depth)",
         "WITH RECURSIVE r(n, d) AS (SELECT 0, 0 UNION SELECT g.src, r.d + 1 FROM r JOIN g ON g.dst = r.n "
         "WHERE r.d < 4) SELECT n, min(d) FROM r GROUP BY n",
         0, 0},
        {BENCH_EXTENSION, "graph_walk(..., 4, 'in')", zSql, 0, 0},
    };
    benchCompare(p, "graphs: who reaches the top hub in 4 hops", db, zSize, (double)nNode, "nodes",
                 (double)nRow, "visited node", aVar, 2);
  }

  /* 3. Everything reachable from a random node, no depth limit. */
  {
    int64_t root = (int64_t)(benchRand(&seed) % (uint64_t)nNode);
    char zWalk[200], zCte[300];
    snprintf(zWalk, sizeof(zWalk), "SELECT node FROM graph_walk('g', 'src', 'dst', %lld)", (long long)root);
    snprintf(zCte, sizeof(zCte),
             "WITH RECURSIVE r(n) AS (SELECT %lld UNION SELECT g.dst FROM r JOIN g ON g.src = r.n) SELECT n "
             "FROM r",
             (long long)root);
    nRow = graphCount(db, zWalk, 0);
    {
      BenchVariant aVar[2] = {
          {BENCH_RELATIONAL, "recursive CTE, UNION over the node (visited set)", zCte, 0, 0},
          {BENCH_EXTENSION, "graph_walk", zWalk, 0, 0}};
      benchCompare(p, "graphs: reachable set, no depth limit", db, zSize, (double)nNode, "nodes",
                   (double)nRow, "visited node", aVar, 2);
    }
  }

  /* 4. Shortest routes between random pairs at most 4 hops apart. */
  pairs.n = 50;
  pairs.aFrom = (int64_t *)malloc(sizeof(int64_t) * (size_t)pairs.n);
  pairs.aTo = (int64_t *)malloc(sizeof(int64_t) * (size_t)pairs.n);
  t0 = benchNow();
  for (i = 0; i < pairs.n; i++) {
    /* A goal 1-4 hops away: walk from the start and pick a node of the walk. */
    sqlite3_stmt *pStmt = NULL;
    int64_t from = (int64_t)(benchRand(&seed) % (uint64_t)nNode), to = from;
    int k = 1 + (int)(benchRand(&seed) % 4);
    sqlite3_prepare_v2(db, "SELECT node FROM graph_walk('g', 'src', 'dst', ?1, ?2) WHERE depth = ?2 LIMIT 1",
                       -1, &pStmt, 0);
    sqlite3_bind_int64(pStmt, 1, from);
    sqlite3_bind_int(pStmt, 2, k);
    if (sqlite3_step(pStmt) == SQLITE_ROW) to = sqlite3_column_int64(pStmt, 0);
    sqlite3_finalize(pStmt);
    pairs.aFrom[i] = from;
    pairs.aTo[i] = to;
  }
  (void)t0;
  {
    BenchVariant aVar[2] = {
        {BENCH_RELATIONAL, "recursive CTE, min(depth) within 4 hops", 0, graphPathCte, &pairs},
        {BENCH_EXTENSION, "graph_path", 0, graphPathFunc, &pairs}};
    benchCompare(p, "graphs: shortest route between random pairs", db, zSize, (double)nNode, "nodes", pairs.n,
                 "route", aVar, 2);
  }
  free(pairs.aFrom);
  free(pairs.aTo);
  sqlite3_close(db);
  benchGraphTree(p);
}

void benchGraphRoutes(Bench *p) {
  int64_t nNode = benchSize(p, 100000, 1000), nEdge = 10 * nNode, i;
  uint64_t seed = 28;
  sqlite3 *db = benchOpen();
  sqlite3_stmt *pIns = NULL;
  GraphPairs pairs;
  char zSize[96];
  benchExec(db, "CREATE TABLE g(src INTEGER, dst INTEGER, w INTEGER)");
  benchExec(db, "BEGIN");
  sqlite3_prepare_v2(db, "INSERT INTO g VALUES (?1, ?2, ?3)", -1, &pIns, 0);
  for (i = 0; i < nEdge; i++) {
    double u = (double)(benchRand(&seed) >> 11) / 9007199254740992.0;
    sqlite3_bind_int64(pIns, 1, (int64_t)(benchRand(&seed) % (uint64_t)nNode));
    sqlite3_bind_int64(pIns, 2, (int64_t)((double)nNode * u * u * u));
    sqlite3_bind_int64(pIns, 3, 1 + (int64_t)(benchRand(&seed) % 9));
    sqlite3_step(pIns);
    sqlite3_reset(pIns);
  }
  sqlite3_finalize(pIns);
  benchExec(db, "COMMIT");
  benchExec(db,
            "CREATE INDEX g_src ON g(src); CREATE INDEX g_dst ON g(dst); CREATE VIEW gv AS SELECT * FROM g; "
            "ANALYZE");
  snprintf(zSize, sizeof(zSize), "%lld nodes, %lld edges", (long long)nNode, (long long)nEdge);
  pairs.n = 20;
  pairs.aFrom = (int64_t *)malloc(sizeof(int64_t) * (size_t)pairs.n);
  pairs.aTo = (int64_t *)malloc(sizeof(int64_t) * (size_t)pairs.n);
  for (i = 0; i < pairs.n; i++) {
    pairs.aFrom[i] = (int64_t)(benchRand(&seed) % (uint64_t)nNode);
    pairs.aTo[i] = (int64_t)(benchRand(&seed) % (uint64_t)nNode);
  }
  {
    /* The pairs go to the file with the edges (--save-graph). */
    int bSaved;
    char *zSave = sqlite3_mprintf(
        "DROP TABLE IF EXISTS save.routes; DROP TABLE IF EXISTS save.route_pairs;"
        "CREATE TABLE save.routes(src INTEGER, dst INTEGER, w INTEGER);"
        "INSERT INTO save.routes SELECT src, dst, w FROM main.g ORDER BY rowid;"
        "CREATE TABLE save.route_pairs(i INTEGER PRIMARY KEY, start INTEGER, goal INTEGER);");
    for (i = 0; zSave && i < pairs.n; i++) {
      char *z = sqlite3_mprintf("%z INSERT INTO save.route_pairs VALUES (%lld, %lld, %lld);", zSave,
                                (long long)i, (long long)pairs.aFrom[i], (long long)pairs.aTo[i]);
      zSave = z;
    }
    if (zSave == NULL) {
      fprintf(stderr, "bench: out of memory\n");
      exit(2);
    }
    bSaved = benchSaveGraph(p, db, zSave);
    sqlite3_free(zSave);
    if (bSaved) {
      free(pairs.aFrom);
      free(pairs.aTo);
      sqlite3_close(db);
      return;
    }
  }
  {
    BenchVariant aVar[2] = {
        {BENCH_EXTENSION, "graph_path over a view: one end, seeks", 0, graphRouteOutView, &pairs},
        {BENCH_EXTENSION, "graph_path: both ends, seeks then memory", 0, graphRouteOut, &pairs}};
    benchCompare(p, "graph_routes: shortest route, hops, out", db, zSize, (double)nNode, "nodes", pairs.n,
                 "route", aVar, 2);
  }
  {
    BenchVariant aVar[2] = {
        {BENCH_EXTENSION, "graph_path over a view: one end, seeks", 0, graphRouteBothView, &pairs},
        {BENCH_EXTENSION, "graph_path: both ends, seeks then memory", 0, graphRouteBoth, &pairs}};
    benchCompare(p, "graph_routes: shortest route, hops, both", db, zSize, (double)nNode, "nodes", pairs.n,
                 "route", aVar, 2);
  }
  {
    BenchVariant aVar[2] = {
        {BENCH_EXTENSION, "graph_path over a view: one-ended Dijkstra", 0, graphRouteWView, &pairs},
        {BENCH_EXTENSION, "graph_path: both ends, seeks", 0, graphRouteW, &pairs}};
    benchCompare(p, "graph_routes: shortest route, weights 1-9, out", db, zSize, (double)nNode, "nodes",
                 pairs.n, "route", aVar, 2);
  }
  free(pairs.aFrom);
  free(pairs.aTo);
  sqlite3_close(db);
}
