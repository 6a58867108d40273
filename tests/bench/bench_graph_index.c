/*
** bench_graph_index.c: graph_index (issue 28), the persistent adjacency
** copy of an edge table, on the graph of bench_graph_batch.c (power-law
** in-degrees: sources uniform, targets n * u^3; 100k nodes and 1M edges at
** size 1, INTEGER PRIMARY KEY and an index on each column).
**
**   whole-graph load       graph_components over a copy of the table
**                          without a graph_index (the scan and hashing of
**                          graphCsrFill()) vs over the graph_index (its
**                          blocks read in one sequential scan)
**   edge inserts           50k inserts in one transaction (rolled back
**                          after each run) into the copy without an index
**                          vs into the table the graph_index keeps in sync
**
** The storage figure (bytes per edge of the index's shadow tables, out- and
** in-lists together) is printed as a line of its own.
*/
#include "bench.h"

#include <stdio.h>

#define GI_BENCH_INSERTS 50000 /* Past GI_PEND_MAX (16384) three times: the folds are in the figure */

/* Insert GI_BENCH_INSERTS edges into the table named by pArg inside a transaction, then roll back. */
static int giBenchInsert(sqlite3 *db, void *pArg, BenchSum *pSum) {
  const char *zTable = (const char *)pArg;
  char zSql[128];
  sqlite3_stmt *pStmt = NULL;
  uint64_t seed = 99;
  int64_t i, nNode = benchInt(db, "SELECT count(*) FROM g_num"), n = 0;
  int rc = sqlite3_exec(db, "BEGIN", 0, 0, 0);
  snprintf(zSql, sizeof(zSql), "INSERT INTO %s(src, dst) VALUES (?1, ?2)", zTable);
  if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  for (i = 0; rc == SQLITE_OK && i < GI_BENCH_INSERTS; i++) {
    double u = (double)(benchRand(&seed) >> 11) / 9007199254740992.0;
    sqlite3_bind_int64(pStmt, 1, (int64_t)(benchRand(&seed) % (uint64_t)nNode));
    sqlite3_bind_int64(pStmt, 2, (int64_t)(u * u * u * (double)nNode));
    rc = sqlite3_step(pStmt) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    sqlite3_reset(pStmt);
    n++;
  }
  sqlite3_finalize(pStmt);
  sqlite3_exec(db, "ROLLBACK", 0, 0, 0);
  benchSumInts(pSum, &n, 1);
  return rc;
}

void benchGraphIndex(Bench *p) {
  int64_t nNode = benchSize(p, 100000, 2000), nEdge = 10 * nNode, nPage0, nPage1, nPageSize;
  uint64_t seed = 17;
  sqlite3 *db = benchOpen();
  char zSize[96];

  benchExec(db, "CREATE TABLE e(id INTEGER PRIMARY KEY, src INTEGER, dst INTEGER)");
  benchPowerLawEdges(db, "INSERT INTO e(src, dst) VALUES (?1, ?2)", nNode, nEdge, &seed);
  benchExec(db,
            "CREATE INDEX e_src ON e(src); CREATE INDEX e_dst ON e(dst);"
            "CREATE TABLE plain(id INTEGER PRIMARY KEY, src INTEGER, dst INTEGER);"
            "INSERT INTO plain SELECT * FROM e; CREATE INDEX plain_src ON plain(src); "
            "CREATE INDEX plain_dst ON plain(dst)");
  nPage0 = benchInt(db, "PRAGMA page_count");
  nPageSize = benchInt(db, "PRAGMA page_size");
  {
    double t0 = benchNow();
    benchExec(db, "CREATE VIRTUAL TABLE g USING graph_index(e, src, dst)");
    nPage1 = benchInt(db, "PRAGMA page_count");
    printf(
        "graph_index: %lld nodes, %lld edges: %.2f bytes per edge (shadow tables, out- and in-lists, node "
        "numbers), of which %.2f group and tail bytes; built in %.2f s\n",
        (long long)benchInt(db, "SELECT count(*) FROM g_num"), (long long)nEdge,
        (double)(nPage1 - nPage0) * (double)nPageSize / (double)nEdge,
        (double)benchInt(db,
                         "SELECT (SELECT coalesce(sum(length(data)), 0) FROM g_blk) + (SELECT "
                         "coalesce(sum(length(list)), 0) FROM g_tail)") /
            (double)nEdge,
        benchNow() - t0);
  }
  nNode = benchInt(db, "SELECT count(*) FROM g_num");
  snprintf(zSize, sizeof(zSize), "%lld nodes, %lld edges", (long long)nNode, (long long)nEdge);
  {
    BenchVariant aVar[2] = {
        {BENCH_EXTENSION, "graph_components over the table (scan and hash every endpoint)",
         "SELECT node, component FROM graph_components('plain', 'src', 'dst')", 0, 0},
        {BENCH_EXTENSION, "graph_components over its graph_index (sequential block reads)",
         "SELECT node, component FROM graph_components('g', NULL, NULL)", 0, 0}};
    benchCompare(p, "graph_index: whole-graph load (connected components)", db, zSize, (double)nNode, "nodes",
                 (double)nEdge, "edge", aVar, 2);
  }
  {
    BenchVariant aVar[2] = {
        {BENCH_RELATIONAL, "insert into an indexed edge table", 0, giBenchInsert, (void *)"plain"},
        {BENCH_EXTENSION, "insert into the table a sync graph_index keeps", 0, giBenchInsert, (void *)"e"}};
    benchCompare(p, "graph_index: edge inserts (50k in one transaction)", db, zSize, (double)nNode, "nodes",
                 GI_BENCH_INSERTS, "insert", aVar, 2);
  }
  sqlite3_close(db);
}
