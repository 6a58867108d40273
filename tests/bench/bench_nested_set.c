/*
** bench_nested_set.c: nested sets (technique 14) against the adjacency list
** with recursive CTEs and against classic dense-style nested sets on a
** plain table, on a random tree of about 1.1M nodes (each node hangs under
** a uniformly chosen earlier node: depth about ln n, heavy-tailed fan-out).
**
**   subtree            descendant_of vs recursive CTE vs plain lft range
**   ancestors          ancestor_of vs recursive CTE walking up
**   leaves             leaves_of vs recursive CTE + NOT EXISTS
**   insert a leaf      INSERT into nested_set (random parents, appends under
**                      one parent, a deep chain) vs the adjacency INSERT
**   classic insert     renumbering lft/rgt of a plain table, per insert
** Also printed: bulk load and rebuild times, stored bytes (dbstat).
*/
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

/* Nodes a query workload runs over. */
typedef struct NsetIds NsetIds;
struct NsetIds {
  int64_t *aId; /* Node ids */
  int nId;      /* Number of ids */
};

/* State of an insert workload: fresh ids, where they go. */
typedef struct NsetIns NsetIns;
struct NsetIns {
  int64_t iNext;    /* Next fresh id */
  int nIns;         /* Inserts per run */
  int64_t nNode;    /* Nodes of the original tree (random parents among them) */
  int eShape;       /* 0 random parents, 1 appends under one parent, 2 a chain */
  uint64_t iSeed;   /* Random state */
  const char *zSql; /* The INSERT, ?1 id ?2 parent */
};

/* Run zSql once per id (bound to ?1), summing the rows. */
static int nsetPerId(sqlite3 *db, const NsetIds *p, const char *zSql, BenchSum *pSum) {
  return benchSumEachId(db, zSql, p->aId, p->nId, pSum);
}

static int nsetSubtreeCte(sqlite3 *db, void *pArg, BenchSum *pSum) {
  return nsetPerId(db, (NsetIds *)pArg,
                   "WITH RECURSIVE s(id) AS (SELECT id FROM adj WHERE parent = ?1 "
                   "UNION ALL SELECT a.id FROM adj a JOIN s ON a.parent = s.id) SELECT id FROM s",
                   pSum);
}

static int nsetSubtreePlain(sqlite3 *db, void *pArg, BenchSum *pSum) {
  return nsetPerId(db, (NsetIds *)pArg,
                   "SELECT p.id FROM plain n, plain p WHERE n.id = ?1 AND p.lft > n.lft AND p.lft < n.rgt",
                   pSum);
}

static int nsetSubtreeVtab(sqlite3 *db, void *pArg, BenchSum *pSum) {
  return nsetPerId(db, (NsetIds *)pArg, "SELECT id FROM t WHERE descendant_of = ?1", pSum);
}

static int nsetAncCte(sqlite3 *db, void *pArg, BenchSum *pSum) {
  return nsetPerId(db, (NsetIds *)pArg,
                   "WITH RECURSIVE up(id, lvl) AS (SELECT parent, 1 FROM adj WHERE id = ?1 "
                   "UNION ALL SELECT a.parent, up.lvl + 1 FROM adj a JOIN up ON a.id = up.id "
                   "WHERE a.parent IS NOT NULL) SELECT id FROM up WHERE id IS NOT NULL",
                   pSum);
}

static int nsetAncVtab(sqlite3 *db, void *pArg, BenchSum *pSum) {
  return nsetPerId(db, (NsetIds *)pArg, "SELECT id FROM t WHERE ancestor_of = ?1", pSum);
}

static int nsetLeavesCte(sqlite3 *db, void *pArg, BenchSum *pSum) {
  return nsetPerId(
      db, (NsetIds *)pArg,
      "WITH RECURSIVE s(id) AS (SELECT ?1 UNION ALL SELECT a.id FROM adj a JOIN s ON a.parent = s.id) "
      "SELECT id FROM s WHERE NOT EXISTS (SELECT 1 FROM adj c WHERE c.parent = s.id)",
      pSum);
}

static int nsetLeavesVtab(sqlite3 *db, void *pArg, BenchSum *pSum) {
  return nsetPerId(db, (NsetIds *)pArg, "SELECT id FROM t WHERE leaves_of = ?1", pSum);
}

/* Run nIns inserts of one shape; the answer is one row: the count. */
static int nsetInsertRun(sqlite3 *db, void *pArg, BenchSum *pSum) {
  NsetIns *p = (NsetIns *)pArg;
  sqlite3_stmt *pStmt = NULL;
  int rc = sqlite3_prepare_v2(db, p->zSql, -1, &pStmt, 0);
  int i;
  int64_t iParent = p->eShape == 1 ? 1 + (int64_t)(benchRand(&p->iSeed) % (uint64_t)p->nNode) : 0;
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, "BEGIN", 0, 0, 0);
  for (i = 0; rc == SQLITE_OK && i < p->nIns; i++) {
    int64_t id = p->iNext++;
    if (p->eShape == 0) iParent = 1 + (int64_t)(benchRand(&p->iSeed) % (uint64_t)p->nNode);
    if (p->eShape == 2) iParent = i == 0 ? 1 + (int64_t)(benchRand(&p->iSeed) % (uint64_t)p->nNode) : id - 1;
    sqlite3_bind_int64(pStmt, 1, id);
    sqlite3_bind_int64(pStmt, 2, iParent);
    rc = sqlite3_step(pStmt);
    rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
    sqlite3_reset(pStmt);
  }
  sqlite3_finalize(pStmt);
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, "COMMIT", 0, 0, 0);
  if (rc == SQLITE_OK) {
    char aBuf[32];
    int n = snprintf(aBuf, sizeof(aBuf), "%d", p->nIns);
    benchSumRow(pSum, aBuf, n);
  } else {
    sqlite3_exec(db, "ROLLBACK", 0, 0, 0);
  }
  return rc;
}

/* The classic insert: shift every label to the right of the slot by 2. */
static int nsetClassicRun(sqlite3 *db, void *pArg, BenchSum *pSum) {
  NsetIns *p = (NsetIns *)pArg;
  sqlite3_stmt *aStmt[4] = {0, 0, 0, 0};
  static const char *const azSql[4] = {
      "SELECT rgt, depth FROM plain WHERE id = ?1", "UPDATE plain SET rgt = rgt + 2 WHERE rgt >= ?1",
      "UPDATE plain SET lft = lft + 2 WHERE lft > ?1",
      "INSERT INTO plain(id, parent, lft, rgt, depth) VALUES (?1, ?2, ?3, ?3 + 1, ?4)"};
  int rc = SQLITE_OK, i, k;
  for (k = 0; k < 4 && rc == SQLITE_OK; k++) rc = sqlite3_prepare_v2(db, azSql[k], -1, &aStmt[k], 0);
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, "BEGIN", 0, 0, 0);
  for (i = 0; rc == SQLITE_OK && i < p->nIns; i++) {
    int64_t id = p->iNext++;
    int64_t iParent = 1 + (int64_t)(benchRand(&p->iSeed) % (uint64_t)p->nNode);
    int64_t iRgt, iDepth;
    sqlite3_bind_int64(aStmt[0], 1, iParent);
    if (sqlite3_step(aStmt[0]) != SQLITE_ROW) {
      rc = SQLITE_ERROR;
      break;
    }
    iRgt = sqlite3_column_int64(aStmt[0], 0);
    iDepth = sqlite3_column_int64(aStmt[0], 1);
    sqlite3_reset(aStmt[0]);
    for (k = 1; k <= 2; k++) {
      sqlite3_bind_int64(aStmt[k], 1, iRgt);
      rc = sqlite3_step(aStmt[k]) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
      sqlite3_reset(aStmt[k]);
    }
    sqlite3_bind_int64(aStmt[3], 1, id);
    sqlite3_bind_int64(aStmt[3], 2, iParent);
    sqlite3_bind_int64(aStmt[3], 3, iRgt);
    sqlite3_bind_int64(aStmt[3], 4, iDepth + 1);
    if (rc == SQLITE_OK) rc = sqlite3_step(aStmt[3]) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    sqlite3_reset(aStmt[3]);
  }
  for (k = 0; k < 4; k++) sqlite3_finalize(aStmt[k]);
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, "COMMIT", 0, 0, 0);
  if (rc == SQLITE_OK) {
    char aBuf[32];
    int n = snprintf(aBuf, sizeof(aBuf), "%d", p->nIns);
    benchSumRow(pSum, aBuf, n);
  } else {
    sqlite3_exec(db, "ROLLBACK", 0, 0, 0);
  }
  return rc;
}

/* Time one statement (set-up work measured once). */
static double nsetTimeExec(sqlite3 *db, const char *zSql) {
  double t0 = benchNow();
  benchExec(db, zSql);
  return benchNow() - t0;
}

void benchNestedSet(Bench *p) {
  sqlite3 *db = benchOpen();
  int64_t n = benchSize(p, 1100000, 300);
  uint64_t iSeed = 0x5eedf00d;
  NsetIds sub, anc;
  char zSize[96];
  char *zSql;
  double tLoad, tRebuild, tContent, tCte;
  int64_t i, nRow = 0;

  /* The tree: node i > 1 under a uniformly chosen earlier node. */
  benchExec(db, "CREATE TABLE adj(id INTEGER PRIMARY KEY, parent INTEGER, name TEXT)");
  {
    sqlite3_stmt *pStmt = NULL;
    benchExec(db, "BEGIN");
    if (sqlite3_prepare_v2(db, "INSERT INTO adj VALUES (?1, ?2, 'node ' || ?1)", -1, &pStmt, 0) != SQLITE_OK)
      exit(2);
    for (i = 1; i <= n; i++) {
      sqlite3_bind_int64(pStmt, 1, i);
      if (i == 1)
        sqlite3_bind_null(pStmt, 2);
      else
        sqlite3_bind_int64(pStmt, 2, 1 + (int64_t)(benchRand(&iSeed) % (uint64_t)(i - 1)));
      sqlite3_step(pStmt);
      sqlite3_reset(pStmt);
    }
    sqlite3_finalize(pStmt);
    benchExec(db, "COMMIT");
  }
  benchExec(db, "CREATE INDEX adj_parent ON adj(parent)");

  /* nested_set filled by plain INSERTs (parents first), then rebuilt. */
  benchExec(db, "CREATE VIRTUAL TABLE t USING nested_set(name TEXT)");
  tLoad = nsetTimeExec(db, "INSERT INTO t(id, parent, name) SELECT id, parent, name FROM adj ORDER BY id");
  tRebuild = nsetTimeExec(db, "INSERT INTO t(t) VALUES ('rebuild')");
  tContent = nsetTimeExec(db, "CREATE VIRTUAL TABLE tc USING nested_set(content=adj, name)");
  tCte = nsetTimeExec(
      db,
      "CREATE TABLE cte_walk AS WITH RECURSIVE s(id, d) AS (SELECT id, 0 FROM adj WHERE parent "
      "IS NULL UNION ALL SELECT a.id, s.d + 1 FROM adj a JOIN s ON a.parent = s.id) SELECT * FROM s");
  /* The classic layout on a plain table, same labels. */
  benchExec(
      db,
      "CREATE TABLE plain(id INTEGER PRIMARY KEY, parent INTEGER, lft INTEGER, rgt INTEGER, depth INTEGER, "
      "name TEXT);"
      "INSERT INTO plain SELECT id, parent, lft, rgt, depth, name FROM t;"
      "CREATE INDEX plain_lft ON plain(lft); CREATE INDEX plain_rgt ON plain(rgt);");

  /* Subtree roots with 1000..50000 descendants (scaled), found at random. */
  sub.nId = 0;
  sub.aId = (int64_t *)malloc(sizeof(int64_t) * 64);
  anc.nId = (int)(n < 2000 ? n : 2000);
  anc.aId = (int64_t *)malloc(sizeof(int64_t) * (size_t)anc.nId);
  if (sub.aId == NULL || anc.aId == NULL) exit(2);
  {
    int64_t nMin = n / 1100 > 3 ? n / 1100 : 3, nMax = n / 22 > 10 ? n / 22 : 10;
    int nTry;
    for (nTry = 0; nTry < 20000 && sub.nId < 20; nTry++) {
      int64_t id = 1 + (int64_t)(benchRand(&iSeed) % (uint64_t)n);
      int64_t nSub;
      zSql = sqlite3_mprintf("SELECT count(*) FROM t WHERE descendant_of = %lld", (long long)id);
      nSub = benchInt(db, zSql);
      sqlite3_free(zSql);
      if (nSub >= nMin && nSub <= nMax) {
        sub.aId[sub.nId++] = id;
        nRow += nSub;
      }
    }
  }
  for (i = 0; i < anc.nId; i++) anc.aId[i] = 1 + (int64_t)(benchRand(&iSeed) % (uint64_t)n);

  printf("\n### nested_set: build (%lld nodes, max depth %lld)\n\n", (long long)n,
         (long long)benchInt(db, "SELECT max(depth) FROM t"));
  printf("| step | seconds | per node |\n|---|---:|---:|\n");
  printf("| load: INSERT ... SELECT, one append per node | %.2f | %.1f us |\n", tLoad,
         tLoad * 1e6 / (double)n);
  printf("| 'rebuild' (relabel in place) | %.2f | %.1f us |\n", tRebuild, tRebuild * 1e6 / (double)n);
  printf("| content= CREATE (rebuild from the adjacency table) | %.2f | %.1f us |\n", tContent,
         tContent * 1e6 / (double)n);
  printf("| for scale: recursive CTE walk of the whole tree into a table | %.2f | %.1f us |\n", tCte,
         tCte * 1e6 / (double)n);

  {
    const BenchVariant aVar[] = {
        {BENCH_RELATIONAL, "relational: recursive CTE on adjacency list", 0, nsetSubtreeCte, &sub},
        {BENCH_MODEL, "classic nested set: plain table lft range", 0, nsetSubtreePlain, &sub},
        {BENCH_EXTENSION, "nested_set: descendant_of = X", 0, nsetSubtreeVtab, &sub},
    };
    snprintf(zSize, sizeof(zSize), "%lld nodes, %d subtrees, %lld rows", (long long)n, sub.nId,
             (long long)nRow);
    benchCompare(p, "nested_set: subtree", db, zSize, (double)n, "nodes", (double)nRow, "row", aVar, 3);
  }
  {
    const BenchVariant aVar[] = {
        {BENCH_RELATIONAL, "relational: recursive CTE walking up", 0, nsetAncCte, &anc},
        {BENCH_EXTENSION, "nested_set: ancestor_of = X", 0, nsetAncVtab, &anc},
    };
    snprintf(zSize, sizeof(zSize), "%lld nodes, %d queries", (long long)n, anc.nId);
    benchCompare(p, "nested_set: ancestors", db, zSize, (double)n, "nodes", anc.nId, "query", aVar, 2);
  }
  {
    const BenchVariant aVar[] = {
        {BENCH_RELATIONAL, "relational: recursive CTE + NOT EXISTS child", 0, nsetLeavesCte, &sub},
        {BENCH_EXTENSION, "nested_set: leaves_of = X", 0, nsetLeavesVtab, &sub},
    };
    snprintf(zSize, sizeof(zSize), "%lld nodes, %d subtrees", (long long)n, sub.nId);
    benchCompare(p, "nested_set: leaves under a node", db, zSize, (double)n, "nodes", sub.nId, "query", aVar,
                 2);
  }
  {
    int nIns = (int)(n / 110 < 10000 ? (n / 110 > 20 ? n / 110 : 20) : 10000);
    NsetIns aIns[4] = {
        {10000000000LL, nIns, n, 0, 11, "INSERT INTO adj(id, parent) VALUES (?1, ?2)"},
        {20000000000LL, nIns, n, 0, 11, "INSERT INTO t(id, parent) VALUES (?1, ?2)"},
        {30000000000LL, nIns, n, 1, 12, "INSERT INTO t(id, parent) VALUES (?1, ?2)"},
        {40000000000LL, nIns, n, 2, 13, "INSERT INTO t(id, parent) VALUES (?1, ?2)"},
    };
    const BenchVariant aVar[] = {
        {BENCH_RELATIONAL, "relational: adjacency list INSERT (no labels)", 0, nsetInsertRun, &aIns[0]},
        {BENCH_EXTENSION, "nested_set: INSERT leaf under a random node", 0, nsetInsertRun, &aIns[1]},
        {BENCH_EXTENSION, "nested_set: INSERT appending under one node", 0, nsetInsertRun, &aIns[2]},
        {BENCH_EXTENSION, "nested_set: INSERT a chain (each under the last)", 0, nsetInsertRun, &aIns[3]},
    };
    snprintf(zSize, sizeof(zSize), "%lld nodes, %d inserts per run", (long long)n, nIns);
    benchCompare(p, "nested_set: insert a leaf (amortised)", db, zSize, (double)n, "nodes", nIns, "insert",
                 aVar, 4);
  }
  {
    NsetIns aIns[3] = {
        {50000000000LL, 3, n, 0, 21, "INSERT INTO adj(id, parent) VALUES (?1, ?2)"},
        {60000000000LL, 3, n, 0, 21, 0},
        {70000000000LL, 3, n, 0, 21, "INSERT INTO t(id, parent) VALUES (?1, ?2)"},
    };
    const BenchVariant aVar[] = {
        {BENCH_RELATIONAL, "relational: adjacency list INSERT (no labels)", 0, nsetInsertRun, &aIns[0]},
        {BENCH_MODEL, "classic nested set: shift lft/rgt, then INSERT", 0, nsetClassicRun, &aIns[1]},
        {BENCH_EXTENSION, "nested_set: INSERT (gapped labels)", 0, nsetInsertRun, &aIns[2]},
    };
    snprintf(zSize, sizeof(zSize), "%lld nodes, 3 inserts per run", (long long)n);
    benchCompare(p, "nested_set: one insert, classic renumbering", db, zSize, (double)n, "nodes", 3, "insert",
                 aVar, 3);
  }
  {
    int64_t nAdj = benchInt(db, "SELECT sum(pgsize) FROM dbstat WHERE name IN ('adj', 'adj_parent')");
    int64_t nTree = benchInt(db, "SELECT sum(pgsize) FROM dbstat WHERE name LIKE 't_node%'");
    int64_t nPlain = benchInt(db, "SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'plain%'");
    int64_t nContent = benchInt(db, "SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'tc_node%'");
    printf("\n### nested_set: stored bytes (%lld nodes plus the inserts above)\n\n", (long long)n);
    printf("| layout | bytes | ratio |\n|---|---:|---:|\n");
    printf("| plain adjacency table (id, parent, name) + index on parent | %lld | 1.00x |\n",
           (long long)nAdj);
    printf(
        "| classic nested set: plain table (id, parent, lft, rgt, depth, name) + lft and rgt indexes | %lld "
        "| "
        "%.2fx |\n",
        (long long)nPlain, nAdj > 0 ? (double)nPlain / (double)nAdj : 0.0);
    printf("| nested_set: t_node (payload inside) + 3 indexes | %lld | %.2fx |\n", (long long)nTree,
           nAdj > 0 ? (double)nTree / (double)nAdj : 0.0);
    printf("| nested_set content=: structure only (payload stays in adj) | %lld | %.2fx |\n",
           (long long)nContent, nAdj > 0 ? (double)nContent / (double)nAdj : 0.0);
  }
  benchExec(db, "INSERT INTO t(t) VALUES ('integrity-check')");
  free(sub.aId);
  free(anc.aId);
  sqlite3_close(db);
}
