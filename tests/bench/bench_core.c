/*
** bench_core.c: the foundation's workload, proving the harness on the
** article's simplest technique, application-side joins (technique 3):
** fetch the users whose ids the application holds.
**
**   relational     one JOIN against a table of the wanted ids
**   one per id     the naive client: one point query per id
**   batched        the DataLoader way: one IN (json_each(?)) per 1000 ids
*/
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

/* The ids the "application" holds. */
typedef struct CoreIds CoreIds;
struct CoreIds {
  int64_t *aId; /* Wanted ids */
  int nId;      /* Number of ids */
};

static int coreOnePerId(sqlite3 *db, void *pArg, BenchSum *pSum) {
  CoreIds *p = (CoreIds *)pArg;
  return benchSumEachId(db, "SELECT id, score FROM users WHERE id = ?1", p->aId, p->nId, pSum);
}

static int coreBatched(sqlite3 *db, void *pArg, BenchSum *pSum) {
  CoreIds *p = (CoreIds *)pArg;
  sqlite3_stmt *pStmt = NULL;
  int rc = sqlite3_prepare_v2(db, "SELECT id, score FROM users WHERE id IN (SELECT value FROM json_each(?1))",
                              -1, &pStmt, 0);
  int i = 0;
  while (rc == SQLITE_OK && i < p->nId) {
    int nBatch = p->nId - i < 1000 ? p->nId - i : 1000;
    int j;
    char *zJson = sqlite3_mprintf("[");
    for (j = 0; j < nBatch && zJson; j++)
      zJson = sqlite3_mprintf("%z%s%lld", zJson, j ? "," : "", p->aId[i + j]);
    zJson = zJson ? sqlite3_mprintf("%z]", zJson) : NULL;
    if (zJson == NULL) return SQLITE_NOMEM;
    sqlite3_bind_text(pStmt, 1, zJson, -1, sqlite3_free);
    rc = benchSumStmt(pSum, pStmt);
    sqlite3_reset(pStmt);
    i += nBatch;
  }
  sqlite3_finalize(pStmt);
  return rc;
}

void benchCore(Bench *p) {
  sqlite3 *db = benchOpen();
  int64_t nUser = benchSize(p, 1000000, 1000);
  CoreIds ids;
  char *zSql;
  char zSize[64];
  int i;

  zSql = sqlite3_mprintf(
      "CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT, score INTEGER);"
      "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < %lld)"
      "INSERT INTO users SELECT i, 'user' || i, (i * 7919) %% 1000 FROM c;"
      "CREATE TABLE wanted(id INTEGER);",
      (long long)nUser);
  benchExec(db, zSql);
  sqlite3_free(zSql);

  ids.nId = (int)(nUser / 100 < 10000 ? nUser / 100 : 10000);
  ids.aId = (int64_t *)malloc(sizeof(int64_t) * (size_t)ids.nId);
  if (ids.aId == NULL) exit(2);
  benchExec(db, "BEGIN");
  for (i = 0; i < ids.nId; i++) {
    /* 2654435761 is prime, so the ids are distinct: IN and JOIN then agree. */
    ids.aId[i] = (int64_t)(((uint64_t)i * 2654435761u + 12345) % (uint64_t)nUser) + 1;
    zSql = sqlite3_mprintf("INSERT INTO wanted VALUES(%lld)", (long long)ids.aId[i]);
    benchExec(db, zSql);
    sqlite3_free(zSql);
  }
  benchExec(db, "COMMIT");

  {
    const BenchVariant aVar[] = {
        {BENCH_RELATIONAL, "relational: JOIN wanted ids",
         "SELECT u.id, u.score FROM wanted w JOIN users u ON u.id = w.id", 0, 0},
        {BENCH_MODEL, "app-side join: one query per id", 0, coreOnePerId, &ids},
        {BENCH_MODEL, "app-side join: batched IN (json_each(?))", 0, coreBatched, &ids},
    };
    snprintf(zSize, sizeof(zSize), "%lld users, %d ids", (long long)nUser, ids.nId);
    benchCompare(p, "core: application-side join", db, zSize, (double)nUser, "users", ids.nId, "row", aVar,
                 3);
  }
  free(ids.aId);
  sqlite3_close(db);
}
