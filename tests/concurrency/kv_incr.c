/*
** kv_incr.c: the multi-process lost-update test of the extension's atomic
** read-modify-write functions (ext/kv.c, issue 16 item 0, issue 14).
**
**   build/concurrency/kv_incr EXTENSION [PROCESSES [CALLS]]
**
** For each workload and journal mode (WAL, then the rollback journal) a
** fresh file database is made in a private temporary directory; PROCESSES
** children (default 4) each open their own connection, load EXTENSION and
** make CALLS (default 2,000) calls with a 60 s busy timeout. Each child
** sends the values it got back to the parent through a pipe. The parent
** checks that the final state is PROCESSES x CALLS and that every returned
** value is distinct (no two callers got the same id or version):
**
**   kv_incr('c', 1)                   the counter
**   kv_cas retry loop                 read v, kv_cas('kv', 'c', v, v + 1) until 'stored'
**   doc_update expected_version loop  read version, doc_update(..., version) until not NULL
**   doc_update $inc                   doc_update('d', 'c', '{"$inc":{"n":1}}')
**
** and shows, without checking it, how many updates the naive form (SELECT
** the value, then UPDATE it to value + 1) loses in the same test.
**
** Each check prints "PASS name" or "FAIL name: why"; the last line is
** "N passed, N failed" for tests/run.sh. Exit code 1 on any failure.
*/
#include "fanout.h"

#include <string.h>
#include <time.h>

/* One workload: what each child runs per call, and how the parent checks the outcome. */
typedef struct Workload Workload;
struct Workload {
  const char *zName;  /* Shown in PASS/FAIL lines */
  const char *zSetup; /* Run once by the parent before the children start */
  /* One call in a child: the value to report in *piOut. SQLITE_OK or an error. */
  int (*xCall)(sqlite3 *db, sqlite3_stmt **apStmt, sqlite3_int64 *piOut);
  const char *zFinal; /* One integer: the final state, expected PROCESSES x CALLS */
  int bDistinct;      /* Every reported value must be distinct */
  int bInfo;          /* Shown, not checked: the naive form that loses updates */
};

/* Prepare zSql into *pp once; step it with its bindings done by the caller. */
static int prep(sqlite3 *db, sqlite3_stmt **pp, const char *zSql) {
  if (*pp) return SQLITE_OK;
  return sqlite3_prepare_v2(db, zSql, -1, pp, 0);
}

/* Step pStmt for one row; its first column in *piOut (NULL: -1). Reset after. */
static int stepOne(sqlite3_stmt *pStmt, sqlite3_int64 *piOut) {
  int rc = sqlite3_step(pStmt);
  if (rc == SQLITE_ROW) {
    *piOut = sqlite3_column_type(pStmt, 0) == SQLITE_NULL ? -1 : sqlite3_column_int64(pStmt, 0);
    rc = SQLITE_OK;
  } else if (rc == SQLITE_DONE) {
    *piOut = -1;
    rc = SQLITE_OK;
  }
  if (sqlite3_reset(pStmt) != SQLITE_OK && rc == SQLITE_OK) rc = SQLITE_ERROR;
  return rc;
}

static int callIncr(sqlite3 *db, sqlite3_stmt **apStmt, sqlite3_int64 *piOut) {
  int rc = prep(db, &apStmt[0], "SELECT kv_incr('c', 1)");
  return rc == SQLITE_OK ? stepOne(apStmt[0], piOut) : rc;
}

/* Read one integer with pStmt (prepared from zSql on first use). */
static int readInt(sqlite3 *db, sqlite3_stmt **pp, const char *zSql, sqlite3_int64 *piOut) {
  int rc = prep(db, pp, zSql);
  return rc == SQLITE_OK ? stepOne(*pp, piOut) : rc;
}

/* The optimistic loop of memcached's gets/cas: read, kv_cas(old, old + 1), retry on 'exists'. */
static int callCas(sqlite3 *db, sqlite3_stmt **apStmt, sqlite3_int64 *piOut) {
  for (;;) {
    sqlite3_int64 v;
    int rc = readInt(db, &apStmt[0], "SELECT value FROM kv WHERE key = 'c'", &v);
    if (rc == SQLITE_OK) rc = prep(db, &apStmt[1], "SELECT kv_cas('kv', 'c', ?1, ?1 + 1) = 'stored'");
    if (rc != SQLITE_OK) return rc;
    sqlite3_bind_int64(apStmt[1], 1, v);
    if ((rc = stepOne(apStmt[1], piOut)) != SQLITE_OK) return rc;
    if (*piOut == 1) {
      *piOut = v + 1;
      return SQLITE_OK;
    }
  }
}

/* The optimistic loop on a document: read the version, doc_update(..., version), retry on NULL. */
static int callDocVersion(sqlite3 *db, sqlite3_stmt **apStmt, sqlite3_int64 *piOut) {
  for (;;) {
    sqlite3_int64 v;
    int rc = readInt(db, &apStmt[0], "SELECT version FROM d WHERE key = 'c'", &v);
    if (rc == SQLITE_OK) rc = prep(db, &apStmt[1], "SELECT doc_update('d', 'c', '{\"$inc\":{\"n\":1}}', ?1)");
    if (rc != SQLITE_OK) return rc;
    sqlite3_bind_int64(apStmt[1], 1, v);
    if ((rc = stepOne(apStmt[1], piOut)) != SQLITE_OK) return rc;
    if (*piOut != -1) return SQLITE_OK;
  }
}

/* doc_update without a version: the read-modify-write is one atomic step by itself. */
static int callDocInc(sqlite3 *db, sqlite3_stmt **apStmt, sqlite3_int64 *piOut) {
  return readInt(db, &apStmt[0], "SELECT doc_update('d', 'c', '{\"$inc\":{\"n\":1}}')", piOut);
}

/* The naive form the atomic functions replace: read, then write old + 1 (loses updates). */
static int callNaive(sqlite3 *db, sqlite3_stmt **apStmt, sqlite3_int64 *piOut) {
  int rc = readInt(db, &apStmt[0], "SELECT value FROM kv WHERE key = 'c'", piOut);
  if (rc == SQLITE_OK) rc = prep(db, &apStmt[1], "UPDATE kv SET value = ?1 WHERE key = 'c'");
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(apStmt[1], 1, ++*piOut);
  return stepOne(apStmt[1], piOut);
}

static const char zKvSetup[] =
    "CREATE TABLE kv(key TEXT PRIMARY KEY, value); INSERT INTO kv VALUES ('c', 0);";
static const char zDocSetup[] =
    "CREATE TABLE d(key TEXT PRIMARY KEY, doc TEXT, version INTEGER); INSERT INTO d VALUES ('c', "
    "'{\"n\":0}', 0);";

static const Workload aWorkload[] = {
    {"kv_incr", "", callIncr, "SELECT kv_get('c')", 1, 0},
    {"kv_cas retry loop", zKvSetup, callCas, "SELECT value FROM kv WHERE key = 'c'", 1, 0},
    {"doc_update expected_version loop", zDocSetup, callDocVersion, "SELECT json_extract(doc, '$.n') FROM d",
     1, 0},
    {"doc_update $inc", zDocSetup, callDocInc,
     "SELECT CASE WHEN json_extract(doc, '$.n') = version THEN version ELSE -1 END FROM d", 1, 0},
    {"naive read-then-write", zKvSetup, callNaive, "SELECT value FROM kv WHERE key = 'c'", 0, 1},
};

/* What each child of a run needs. */
typedef struct IncrRun IncrRun;
struct IncrRun {
  const char *zDb, *zExt;
  const Workload *pW;
};

/* Run one child: nCall calls, values written to fd. Exits the process. */
static void child(void *pArg, int nCall, int fd) {
  const IncrRun *p = (const IncrRun *)pArg;
  sqlite3 *db = NULL;
  sqlite3_stmt *apStmt[4] = {0, 0, 0, 0};
  sqlite3_int64 *aOut = (sqlite3_int64 *)malloc(sizeof(sqlite3_int64) * (size_t)nCall);
  char *zErr = NULL;
  int i, rc = fanoutOpen(p->zDb, p->zExt, &db, &zErr);
  for (i = 0; rc == SQLITE_OK && i < nCall && aOut; i++) {
    rc = p->pW->xCall(db, apStmt, &aOut[i]);
  }
  for (i = 0; i < 4; i++) sqlite3_finalize(apStmt[i]);
  fanoutDone(db, rc, p->pW->zName, zErr, aOut, nCall, fd);
}

/* One integer from zSql on a fresh connection with the extension. */
static sqlite3_int64 queryInt(const char *zDb, const char *zExt, const char *zSql, int *pOk) {
  sqlite3 *db = NULL;
  sqlite3_stmt *pStmt = NULL;
  sqlite3_int64 v = -1;
  int rc = sqlite3_open(zDb, &db);
  if (rc == SQLITE_OK) rc = sqlite3_enable_load_extension(db, 1);
  if (rc == SQLITE_OK) rc = sqlite3_load_extension(db, zExt, 0, 0);
  if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  if (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) v = sqlite3_column_int64(pStmt, 0);
  if (rc != SQLITE_OK) {
    printf("FAIL %s: %s\n", zSql, sqlite3_errmsg(db));
    *pOk = 0;
  }
  sqlite3_finalize(pStmt);
  sqlite3_close(db);
  return v;
}

/* Run workload pW with nProc children of nCall calls in journal mode zMode. */
static void runWorkload(const char *zDir, const char *zExt, const Workload *pW, const char *zMode, int nProc,
                        int nCall) {
  char zDb[600], zWhy[200];
  sqlite3 *db = NULL;
  int i, ok = 1, nDistinct = 0;
  sqlite3_int64 iFinal, nTotal = (sqlite3_int64)nProc * nCall;
  sqlite3_int64 *aAll = (sqlite3_int64 *)malloc(sizeof(sqlite3_int64) * (size_t)nTotal);
  IncrRun run = {zDb, zExt, pW};
  struct timespec t0, t1;
  char *zSql;
  snprintf(zDb, sizeof(zDb), "%s/%s-%s.db", zDir, pW->zName, zMode);
  zSql = sqlite3_mprintf("PRAGMA journal_mode = %s; %s", zMode, pW->zSetup);
  if (sqlite3_open(zDb, &db) != SQLITE_OK || sqlite3_enable_load_extension(db, 1) != SQLITE_OK ||
      sqlite3_load_extension(db, zExt, 0, 0) != SQLITE_OK || sqlite3_exec(db, zSql, 0, 0, 0) != SQLITE_OK) {
    snprintf(zWhy, sizeof(zWhy), "setup: %s", sqlite3_errmsg(db));
    fanoutCheck(0, pW->zName, zMode, zWhy);
    sqlite3_free(zSql);
    sqlite3_close(db);
    free(aAll);
    return;
  }
  sqlite3_free(zSql);
  sqlite3_close(db);
  clock_gettime(CLOCK_MONOTONIC, &t0);
  ok = fanoutRun(nProc, nCall, aAll, child, &run);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  printf("INFO %s (%s): %d processes x %d calls in %.2f s, %.0f calls/s\n", pW->zName, zMode, nProc, nCall,
         (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9,
         (double)nTotal / ((double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9));
  if (!ok) {
    fanoutCheck(0, pW->zName, zMode, "a child failed (see its message above)");
    free(aAll);
    return;
  }
  iFinal = queryInt(zDb, zExt, pW->zFinal, &ok);
  if (pW->bInfo) {
    printf("INFO %s (%s): %lld of %lld updates kept, %lld lost (not checked)\n", pW->zName, zMode,
           (long long)iFinal, (long long)nTotal, (long long)(nTotal - iFinal));
    free(aAll);
    return;
  }
  snprintf(zWhy, sizeof(zWhy), "final state %lld, expected %lld", (long long)iFinal, (long long)nTotal);
  fanoutCheck(ok && iFinal == nTotal, pW->zName, zMode, zWhy);
  if (pW->bDistinct) {
    qsort(aAll, (size_t)nTotal, sizeof(sqlite3_int64), fanoutCmpInt64);
    for (i = 0; i < nTotal; i++) {
      if (i == 0 || aAll[i] != aAll[i - 1]) nDistinct++;
    }
    snprintf(zWhy, sizeof(zWhy), "%d distinct values returned, expected %lld", nDistinct, (long long)nTotal);
    fanoutCheck(nDistinct == nTotal, pW->zName, zMode, zWhy);
  }
  free(aAll);
}

int main(int argc, char **argv) {
  static const char *azMode[] = {"wal", "delete"};
  char zDir[] = "/tmp/nosql-conc-XXXXXX";
  const char *zExt;
  int nProc = 4, nCall = 2000;
  size_t w, m;
  if (argc < 2) {
    fprintf(stderr, "usage: %s EXTENSION [PROCESSES [CALLS]]\n", argv[0]);
    return 1;
  }
  zExt = argv[1];
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
  for (w = 0; w < sizeof(aWorkload) / sizeof(aWorkload[0]); w++) {
    for (m = 0; m < sizeof(azMode) / sizeof(azMode[0]); m++) {
      runWorkload(zDir, zExt, &aWorkload[w], azMode[m], nProc, nCall);
    }
  }
  {
    char *zCmd = sqlite3_mprintf("rm -rf '%s'", zDir);
    if (system(zCmd) != 0) fprintf(stderr, "could not remove %s\n", zDir);
    sqlite3_free(zCmd);
  }
  return fanoutSummary();
}
