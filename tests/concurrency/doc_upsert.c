/*
** doc_upsert.c: the multi-process test of doc_upsert (ext/doc.c, issue 27
** item 5): several processes upsert keys that are absent when they start.
**
**   build/concurrency/doc_upsert EXTENSION [PROCESSES [CALLS]]
**
** For each journal mode (WAL, then the rollback journal) a fresh file
** database is made in a private temporary directory, with an empty
** document table; PROCESSES children (default 4) each open their own
** connection, load EXTENSION and, with a 60 s busy timeout, run
**
**   one key    CALLS x doc_upsert('d', 'c', {$setOnInsert, $inc, $push})
**   many keys  doc_upsert('d', 'k<i>', ...) for i = 0 .. CALLS-1, so that
**              every key is created by a race of all the processes
**
** Each child sends the versions it got back to the parent through a pipe.
** The parent checks that each key has one document whose counter and
** version are the number of upserts made on it (none lost), that
** $setOnInsert wrote the creator's mark once, and that the versions
** returned for a key are distinct, one of them 1 (one insert).
**
** Each check prints "PASS name" or "FAIL name: why"; the last line is
** "N passed, N failed" for tests/run.sh. Exit code 1 on any failure.
*/
#include "fanout.h"

#include <string.h>

static const char zUpsert[] =
    "SELECT doc_upsert('d', ?1, json_object('$setOnInsert', json_object('creator', ?2), '$inc', "
    "json_object('n', 1), '$push', json_object('who', json_object('$each', json_array(?2), '$slice', -3))))";

/* What each child of a run needs. */
typedef struct UpsertRun UpsertRun;
struct UpsertRun {
  const char *zDb, *zExt;
  int bMany; /* Keys k0.. (else 'c') */
};

/* One child: nCall upserts (bMany: of keys k0.., else of 'c'); versions written to fd. Exits. */
static void child(void *pArg, int nCall, int fd) {
  const UpsertRun *p = (const UpsertRun *)pArg;
  sqlite3 *db = NULL;
  sqlite3_stmt *pStmt = NULL;
  sqlite3_int64 *aOut = (sqlite3_int64 *)malloc(sizeof(sqlite3_int64) * (size_t)nCall);
  char *zErr = NULL, zKey[32];
  int i, rc = fanoutOpen(p->zDb, p->zExt, &db, &zErr);
  if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(db, zUpsert, -1, &pStmt, 0);
  for (i = 0; rc == SQLITE_OK && aOut && i < nCall; i++) {
    snprintf(zKey, sizeof(zKey), p->bMany ? "k%d" : "c", i);
    sqlite3_bind_text(pStmt, 1, zKey, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(pStmt, 2, (sqlite3_int64)getpid());
    rc = sqlite3_step(pStmt);
    if (rc == SQLITE_ROW) {
      aOut[i] = sqlite3_column_type(pStmt, 0) == SQLITE_NULL ? -1 : sqlite3_column_int64(pStmt, 0);
      rc = SQLITE_OK;
    }
    if (sqlite3_reset(pStmt) != SQLITE_OK && rc == SQLITE_OK) rc = SQLITE_ERROR;
  }
  sqlite3_finalize(pStmt);
  fanoutDone(db, rc, "doc_upsert", zErr, aOut, nCall, fd);
}

/* One integer from zSql (-1 when it gives no row) on connection db. */
static sqlite3_int64 queryInt(sqlite3 *db, const char *zSql) {
  sqlite3_stmt *pStmt = NULL;
  sqlite3_int64 v = -1;
  if (sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0) == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    v = sqlite3_column_int64(pStmt, 0);
  }
  sqlite3_finalize(pStmt);
  return v;
}

static void runUpsert(const char *zDir, const char *zExt, const char *zMode, int bMany, int nProc,
                      int nCall) {
  const char *zName = bMany ? "doc_upsert many keys" : "doc_upsert one key";
  char zDb[600], zWhy[200];
  sqlite3 *db = NULL;
  sqlite3_int64 *aAll = (sqlite3_int64 *)malloc(sizeof(sqlite3_int64) * (size_t)nProc * (size_t)nCall);
  sqlite3_int64 nKey = bMany ? nCall : 1, nPer = bMany ? nProc : (sqlite3_int64)nProc * nCall, nOne = 0, nBad;
  UpsertRun run = {zDb, zExt, bMany};
  int i, ok, nDup = 0;
  char *zSql;
  snprintf(zDb, sizeof(zDb), "%s/%s-%d.db", zDir, zMode, bMany);
  zSql = sqlite3_mprintf(
      "PRAGMA journal_mode = %s; CREATE TABLE d(key TEXT PRIMARY KEY, doc TEXT, version INTEGER)", zMode);
  if (aAll == NULL || sqlite3_open(zDb, &db) != SQLITE_OK || sqlite3_exec(db, zSql, 0, 0, 0) != SQLITE_OK) {
    fanoutCheck(0, zName, zMode, "setup failed");
    sqlite3_free(zSql);
    sqlite3_close(db);
    free(aAll);
    return;
  }
  sqlite3_free(zSql);
  sqlite3_close(db);
  ok = fanoutRun(nProc, nCall, aAll, child, &run);
  if (!ok) {
    fanoutCheck(0, zName, zMode, "a child failed (see its message above)");
    free(aAll);
    return;
  }
  sqlite3_open(zDb, &db);
  sqlite3_enable_load_extension(db, 1);
  sqlite3_load_extension(db, zExt, 0, 0);
  zSql = sqlite3_mprintf(
      "SELECT count(*) FROM d WHERE json_extract(doc, '$.n') IS NOT %lld OR version IS NOT %lld OR "
      "json_type(doc, '$.creator') IS NOT 'integer' OR json_array_length(doc, '$.who') IS NOT %d",
      nPer, nPer, nPer < 3 ? (int)nPer : 3);
  nBad = queryInt(db, zSql);
  sqlite3_free(zSql);
  snprintf(zWhy, sizeof(zWhy), "%lld documents, %lld of them with a lost update (expected %lld, none)",
           queryInt(db, "SELECT count(*) FROM d"), nBad, nKey);
  fanoutCheck(queryInt(db, "SELECT count(*) FROM d") == nKey && nBad == 0, zName, zMode, zWhy);
  sqlite3_close(db);
  /* Versions per key: for one key all distinct; for many keys, one 1 per key. */
  for (i = 0; i < nProc * nCall; i++) nOne += aAll[i] == 1;
  if (!bMany) {
    qsort(aAll, (size_t)nProc * nCall, sizeof(sqlite3_int64), fanoutCmpInt64);
    for (i = 1; i < nProc * nCall; i++) nDup += aAll[i] == aAll[i - 1];
  }
  snprintf(zWhy, sizeof(zWhy), "%lld inserts (version 1) for %lld keys, %d versions returned twice", nOne,
           nKey, nDup);
  fanoutCheck(nOne == nKey && nDup == 0, zName, zMode, zWhy);
  free(aAll);
}

int main(int argc, char **argv) {
  static const char *azMode[] = {"wal", "delete"};
  char zDir[] = "/tmp/nosql-upsert-XXXXXX";
  int nProc = 4, nCall = 500, m;
  if (argc < 2) {
    fprintf(stderr, "usage: %s EXTENSION [PROCESSES [CALLS]]\n", argv[0]);
    return 1;
  }
  if (argc > 2) nProc = atoi(argv[2]);
  if (argc > 3) nCall = atoi(argv[3]);
  if (nProc < 1 || nProc > 64 || nCall < 1) {
    fprintf(stderr, "PROCESSES must be 1..64 and CALLS positive\n");
    return 1;
  }
  if (mkdtemp(zDir) == NULL) {
    perror("mkdtemp");
    return 1;
  }
  for (m = 0; m < 2; m++) {
    runUpsert(zDir, argv[1], azMode[m], 0, nProc, nCall);
    runUpsert(zDir, argv[1], azMode[m], 1, nProc, nCall);
  }
  {
    char *zCmd = sqlite3_mprintf("rm -rf '%s'", zDir);
    if (system(zCmd) != 0) fprintf(stderr, "could not remove %s\n", zDir);
    sqlite3_free(zCmd);
  }
  return fanoutSummary();
}
