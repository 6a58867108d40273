/*
** bench_mpath.c: materialized paths (issue 4) on trees of about 1.1M
** nodes, one 10-ary (depth 6, labels c0..c9 under the root 'r') and one
** with a random fan-out of 0 to 19 children (mean 9.5).
**
**   descendants  count and id-sum of the subtrees of 100 nodes two levels
**                below the root: the relational recursive CTE over the
**                parent index, against the exact prefix range on the path
**                index: the documented OR form (MULTI-INDEX OR, which
**                deduplicates rowids), the mpath_ranges() join (two plain
**                ranges per subtree), and a C kernel stepping one prepared
**                query over the strict-descendant range per subtree;
**                then the same subtrees only counted
**   scan         the nodes whose path ends in c3.c7: a bare scan testing
**                substr(path, -6) (the cheapest per-row test there is),
**                GLOB, LIKE and mpath_match with a leading '*'
*/
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Build node(id, parent, path) with nNode nodes, breadth first, and qroot. */
static void mpathBenchTree(sqlite3 *db, int64_t nNode, int bRandom) {
  char **azPath = (char **)calloc((size_t)nNode, sizeof(char *));
  int64_t *aParent = (int64_t *)calloc((size_t)nNode, sizeof(int64_t));
  uint64_t seed = 20261122;
  sqlite3_stmt *pIns = NULL;
  int64_t iNext = 1; /* Next node to create */
  int64_t i;
  if (azPath == NULL || aParent == NULL) exit(2);
  benchExec(db,
            "CREATE TABLE node(id INTEGER PRIMARY KEY, parent INTEGER, path TEXT NOT NULL);"
            "BEGIN");
  if (sqlite3_prepare_v2(db, "INSERT INTO node VALUES(?1, ?2, ?3)", -1, &pIns, 0) != SQLITE_OK) exit(2);
  azPath[0] = sqlite3_mprintf("r");
  for (i = 0; i < nNode && azPath[i]; i++) {
    int nChild = bRandom ? (int)(benchRand(&seed) % 20) : 10;
    int k;
    /* Never let the breadth-first queue run dry before nNode nodes. */
    if (nChild == 0 && iNext == i + 1 && iNext < nNode) nChild = 1;
    for (k = 0; k < nChild && iNext < nNode; k++) {
      aParent[iNext] = i + 1;
      azPath[iNext++] = sqlite3_mprintf("%s.c%d", azPath[i], k);
    }
    sqlite3_bind_int64(pIns, 1, i + 1);
    if (i == 0) {
      sqlite3_bind_null(pIns, 2);
    } else {
      sqlite3_bind_int64(pIns, 2, aParent[i]);
    }
    sqlite3_bind_text(pIns, 3, azPath[i], -1, SQLITE_STATIC);
    if (sqlite3_step(pIns) != SQLITE_DONE) exit(2);
    sqlite3_reset(pIns);
  }
  sqlite3_finalize(pIns);
  for (i = 0; i < nNode; i++) sqlite3_free(azPath[i]);
  free(azPath);
  free(aParent);
  benchExec(db,
            "COMMIT;"
            "CREATE INDEX node_path ON node(path);"
            "CREATE INDEX node_parent ON node(parent);"
            "CREATE TABLE qroot(id INTEGER PRIMARY KEY);"
            "INSERT INTO qroot SELECT id FROM node WHERE mpath_nlevel(path) = 3"
            " ORDER BY (id * 2654435761) % 1000003 LIMIT 100;"
            "ANALYZE;");
}

/*
** The C kernel: per subtree root, one prepared query over the strict
** descendants' range; the root itself is one more row.
*/
static int mpathBenchKernel(sqlite3 *db, void *pArg, BenchSum *pSum) {
  sqlite3_stmt *pRoot = NULL, *pSub = NULL;
  int rc;
  (void)pArg;
  rc = sqlite3_prepare_v2(db, "SELECT q.id, n.path FROM qroot q JOIN node n USING (id)", -1, &pRoot, 0);
  if (rc == SQLITE_OK) {
    rc = sqlite3_prepare_v2(
        db, "SELECT id FROM node WHERE path >= mpath_lower(?1) AND path < mpath_upper(?1)", -1, &pSub, 0);
  }
  while (rc == SQLITE_OK && sqlite3_step(pRoot) == SQLITE_ROW) {
    int64_t iRoot = sqlite3_column_int64(pRoot, 0);
    int64_t nRow = 1, iSum = iRoot;
    int64_t aRow[3];
    sqlite3_bind_value(pSub, 1, sqlite3_column_value(pRoot, 1));
    while (sqlite3_step(pSub) == SQLITE_ROW) {
      iSum += sqlite3_column_int64(pSub, 0);
      nRow++;
    }
    rc = sqlite3_reset(pSub);
    aRow[0] = iRoot;
    aRow[1] = nRow;
    aRow[2] = iSum;
    benchSumInts(pSum, aRow, 3);
  }
  sqlite3_finalize(pRoot);
  sqlite3_finalize(pSub);
  return rc;
}

static void mpathBenchOne(Bench *p, int bRandom) {
  sqlite3 *db = benchOpen();
  int64_t nNode = benchSize(p, 1111111, 300);
  char zSize[96];
  char zName[96];
  int64_t nDesc;
  mpathBenchTree(db, nNode, bRandom);
  nDesc =
      benchInt(db,
               "SELECT count(*) FROM qroot q JOIN node rp ON rp.id = q.id JOIN node n"
               " ON n.path = rp.path OR (n.path >= mpath_lower(rp.path) AND n.path < mpath_upper(rp.path))");
  {
    const BenchVariant aVar[] = {
        {BENCH_RELATIONAL, "relational: recursive CTE over parent index",
         "WITH RECURSIVE sub(r, id) AS (SELECT id, id FROM qroot"
         " UNION ALL SELECT sub.r, n.id FROM sub JOIN node n ON n.parent = sub.id)"
         " SELECT r, count(*), sum(id) FROM sub GROUP BY r",
         0, 0},
        {BENCH_EXTENSION, "mpath: path = p OR range (MULTI-INDEX OR, SQL join)",
         "SELECT q.id, count(*), sum(n.id) FROM qroot q JOIN node rp ON rp.id = q.id JOIN node n"
         " ON n.path = rp.path OR (n.path >= mpath_lower(rp.path) AND n.path < mpath_upper(rp.path))"
         " GROUP BY q.id",
         0, 0},
        {BENCH_EXTENSION, "mpath: mpath_ranges() join (SQL)",
         "SELECT q.id, count(*), sum(n.id) FROM qroot q JOIN node rp ON rp.id = q.id, mpath_ranges(rp.path) g"
         " JOIN node n ON n.path >= g.lo AND n.path < g.hi GROUP BY q.id",
         0, 0},
        {BENCH_C, "mpath: strict-descendant range per subtree, prepared once (C)", 0, mpathBenchKernel, 0},
    };
    snprintf(zSize, sizeof(zSize), "%lld nodes, %s, %lld descendants of %lld nodes", (long long)nNode,
             bRandom ? "random fan-out" : "10-ary", (long long)nDesc,
             (long long)benchInt(db, "SELECT count(*) FROM qroot"));
    snprintf(zName, sizeof(zName), "mpath: descendants, %s tree", bRandom ? "random fan-out" : "10-ary");
    benchCompare(p, zName, db, zSize, (double)nNode, "nodes", (double)nDesc, "descendant", aVar, 4);
  }
  {
    /* The same subtrees counted: the range needs no row, the CTE still walks. */
    const BenchVariant aVar[] = {
        {BENCH_RELATIONAL, "relational: recursive CTE over parent index",
         "WITH RECURSIVE sub(r, id) AS (SELECT id, id FROM qroot"
         " UNION ALL SELECT sub.r, n.id FROM sub JOIN node n ON n.parent = sub.id)"
         " SELECT r, count(*) FROM sub GROUP BY r",
         0, 0},
        {BENCH_EXTENSION, "mpath: 1 + count(*) over the strict-descendant range",
         "SELECT q.id, 1 + (SELECT count(*) FROM node n WHERE n.path >= mpath_lower(rp.path)"
         " AND n.path < mpath_upper(rp.path)) FROM qroot q JOIN node rp ON rp.id = q.id",
         0, 0},
    };
    snprintf(zName, sizeof(zName), "mpath: count descendants, %s tree",
             bRandom ? "random fan-out" : "10-ary");
    benchCompare(p, zName, db, zSize, (double)nNode, "nodes", (double)nDesc, "descendant", aVar, 2);
  }
  if (!bRandom) {
    const BenchVariant aVar[] = {
        {BENCH_FLOOR, "bare scan: substr(path, -6) = '.c3.c7'",
         "SELECT count(*) FROM node WHERE substr(path, -6) = '.c3.c7'", 0, 0},
        {BENCH_RELATIONAL, "GLOB '*.c3.c7'", "SELECT count(*) FROM node WHERE path GLOB '*.c3.c7'", 0, 0},
        {BENCH_RELATIONAL, "LIKE '%.c3.c7'", "SELECT count(*) FROM node WHERE path LIKE '%.c3.c7'", 0, 0},
        {BENCH_EXTENSION, "mpath_match(path, '*.c3.c7')",
         "SELECT count(*) FROM node WHERE mpath_match(path, '*.c3.c7')", 0, 0},
    };
    snprintf(zSize, sizeof(zSize), "%lld nodes, 10-ary", (long long)nNode);
    benchCompare(p, "mpath: scan for paths ending in c3.c7", db, zSize, (double)nNode, "nodes", (double)nNode,
                 "row", aVar, 4);
  }
  sqlite3_close(db);
}

void benchMpath(Bench *p) {
  mpathBenchOne(p, 0);
  mpathBenchOne(p, 1);
}
