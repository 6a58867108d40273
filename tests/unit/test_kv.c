/*
** test_kv.c: kv_incr's per-connection statement cache (ext/kv.c) against
** the host's sqlite3_close(). The cached statements belong to the
** kv_counters virtual table, which sqlite3_close() disconnects before it
** looks for unfinalized statements; so sqlite3_close() (not _v2) must
** return SQLITE_OK with the cache populated, whatever happened to the
** counters table. Under ASan with leak detection this also checks that
** the cache, the cursor statements and the connection state are freed.
*/
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include "nosql.h"
#include "unit.h"

void unitApiInit(void);
extern const sqlite3_api_routines *nosql_sqlite3_api;

/*
** Set-up steps (open, prepare, step) are not what these tests assert: a
** failing one counts as a failed check, a working one counts nothing, so
** the pass count is the number of asserted results.
*/
static void kvSetupFailed(const char *zWhat, const char *zSql, sqlite3 *db) {
  unitFail++;
  printf("FAIL %s %s: %s\n", zWhat, zSql, db ? sqlite3_errmsg(db) : "no connection");
}

/* Open a connection with the extension; NULL on failure (a failed check). */
static sqlite3 *kvOpen(const char *zPath) {
  sqlite3 *db = NULL;
  if (sqlite3_open(zPath, &db) != SQLITE_OK) {
    kvSetupFailed("open", zPath, db);
    sqlite3_close(db);
    return NULL;
  }
  return db;
}

/* Run zSql (one statement per call, stepped to the end); returns the first column of its last row. */
static sqlite3_int64 kvRun(sqlite3 *db, const char *zSql) {
  sqlite3_stmt *pStmt = NULL;
  sqlite3_int64 v = -999;
  int rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  if (rc != SQLITE_OK) {
    kvSetupFailed("prepare", zSql, db);
    return v;
  }
  while ((rc = sqlite3_step(pStmt)) == SQLITE_ROW) {
    v = sqlite3_column_type(pStmt, 0) == SQLITE_NULL ? -1 : sqlite3_column_int64(pStmt, 0);
  }
  if (rc != SQLITE_DONE) kvSetupFailed("step", zSql, db);
  sqlite3_finalize(pStmt);
  return v;
}

/* Close with sqlite3_close(), which fails on any statement left open; report why. */
static void kvClose(sqlite3 *db) {
  int rc = sqlite3_close(db);
  if (rc != SQLITE_OK) {
    printf("sqlite3_close: %s\n", sqlite3_errmsg(db));
    sqlite3_close_v2(db);
  }
  CHECK_INT(rc, SQLITE_OK);
}

/* A statement per call: the cache holds the read, update and insert statements. */
static void testCacheClose(void) {
  sqlite3 *db = kvOpen(":memory:");
  if (db == NULL) return;
  CHECK_INT(kvRun(db, "SELECT kv_get('a')"), -1); /* No table yet: NULL */
  CHECK_INT(kvRun(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'nosql_counters'"), 0);
  CHECK_INT(kvRun(db, "SELECT kv_incr('a')"), 1); /* Created lazily, then inserted */
  CHECK_INT(kvRun(db, "SELECT kv_incr('a')"), 2); /* Updated */
  CHECK_INT(kvRun(db, "SELECT kv_incr('a', 40)"), 42);
  CHECK_INT(kvRun(db, "SELECT kv_get('a')"), 42);
  CHECK_INT(kvRun(db, "SELECT value FROM kv_counters WHERE name = 'a'"), 42);
  kvClose(db);
}

/* The table created lazily by the first call of the connection, which is also its first statement. */
static void testLazyClose(void) {
  sqlite3 *db = kvOpen(":memory:");
  if (db == NULL) return;
  CHECK_INT(kvRun(db, "SELECT kv_incr('x', 7)"), 7);
  kvClose(db);
}

/* DROP TABLE of the counters table with statements cached on it. */
static void testDropClose(void) {
  sqlite3 *db = kvOpen(":memory:");
  if (db == NULL) return;
  CHECK_INT(kvRun(db, "SELECT kv_incr('a')"), 1);
  CHECK_INT(kvRun(db, "SELECT kv_incr('a')"), 2);
  kvRun(db, "DROP TABLE nosql_counters");
  CHECK_INT(kvRun(db, "SELECT kv_get('a')"), -1);
  CHECK_INT(kvRun(db, "SELECT count(*) FROM kv_counters"), 0);
  CHECK_INT(kvRun(db, "SELECT kv_incr('a')"), 1); /* Recreated */
  CHECK_INT(kvRun(db, "SELECT kv_incr('a')"), 2);
  kvRun(db, "DROP TABLE nosql_counters");
  CHECK_INT(kvRun(db, "SELECT kv_incr('b', 5)"), 5); /* Recreated by the first call after the drop */
  CHECK_INT(kvRun(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'nosql_counters'"), 1);
  kvRun(db, "DROP TABLE nosql_counters");
  kvClose(db); /* Cached statements on a dropped table */
}

/* ATTACH and DETACH around cached statements (they expire and are prepared again). */
static void testAttachClose(void) {
  sqlite3 *db = kvOpen(":memory:");
  if (db == NULL) return;
  CHECK_INT(kvRun(db, "SELECT kv_incr('a')"), 1);
  kvRun(db, "ATTACH ':memory:' AS aux");
  CHECK_INT(kvRun(db, "SELECT kv_incr('a')"), 2);
  kvRun(db, "CREATE TABLE aux.nosql_counters(name TEXT PRIMARY KEY, value INTEGER NOT NULL)");
  CHECK_INT(kvRun(db, "SELECT kv_incr('a')"), 3); /* Still main's table */
  CHECK_INT(kvRun(db, "SELECT count(*) FROM aux.nosql_counters"), 0);
  kvRun(db, "DETACH aux");
  CHECK_INT(kvRun(db, "SELECT kv_incr('a')"), 4);
  kvRun(db, "ATTACH ':memory:' AS aux2");
  kvClose(db); /* With a database still attached */
}

/* An open transaction, rolled back by the close; and ROLLBACK through cached statements. */
static void testTransactionClose(void) {
  sqlite3 *db = kvOpen(":memory:");
  if (db == NULL) return;
  CHECK_INT(kvRun(db, "SELECT kv_incr('a')"), 1);
  kvRun(db, "BEGIN");
  CHECK_INT(kvRun(db, "SELECT kv_incr('a')"), 2);
  kvRun(db, "ROLLBACK");
  CHECK_INT(kvRun(db, "SELECT kv_get('a')"), 1);
  kvRun(db, "BEGIN");
  CHECK_INT(kvRun(db, "SELECT kv_incr('a')"), 2);
  kvClose(db);
}

/* A table named kv_counters in main shadows the module: the per-statement fallback still works. */
static void testShadowedClose(void) {
  sqlite3 *db = kvOpen(":memory:");
  if (db == NULL) return;
  kvRun(db, "CREATE TABLE kv_counters(x)");
  CHECK_INT(kvRun(db, "SELECT kv_incr('a')"), 1);
  CHECK_INT(kvRun(db, "WITH c(i) AS (VALUES (1), (2), (3)) SELECT kv_incr('a') FROM c"), 4);
  CHECK_INT(kvRun(db, "SELECT kv_get('a')"), 4);
  kvRun(db, "DROP TABLE kv_counters"); /* The module is reachable again */
  CHECK_INT(kvRun(db, "SELECT kv_incr('a')"), 5);
  kvClose(db);
}

/* Two connections to one file: each has its own cache, and sees the other's commits. */
static void testTwoConnections(void) {
  char zPath[64];
  sqlite3 *db1, *db2;
  snprintf(zPath, sizeof(zPath), "/tmp/test_kv_%d.db", (int)getpid());
  remove(zPath);
  db1 = kvOpen(zPath);
  db2 = kvOpen(zPath);
  if (db1 && db2) {
    CHECK_INT(kvRun(db1, "SELECT kv_incr('a')"), 1);
    CHECK_INT(kvRun(db2, "SELECT kv_incr('a')"), 2);
    CHECK_INT(kvRun(db1, "SELECT kv_incr('a')"), 3);
    CHECK_INT(kvRun(db2, "SELECT kv_get('a')"), 3);
  }
  if (db1) kvClose(db1);
  if (db2) kvClose(db2);
  remove(zPath);
}

/*
** kv_cas, kv_mget and doc_update keep statements per table in the caches
** owned by kv_counters and doc_schema: sqlite3_close() still succeeds,
** with tables dropped under them, more tables than the cache holds, and a
** kv_counters table that shadows the owner (statements prepared per call).
*/
static void testTableCacheClose(void) {
  sqlite3 *db = kvOpen(":memory:");
  int i;
  if (db == NULL) return;
  kvRun(db, "CREATE TABLE kv(key TEXT PRIMARY KEY, value)");
  kvRun(db, "CREATE TABLE d(key TEXT PRIMARY KEY, doc TEXT, version INTEGER)");
  kvRun(db, "INSERT INTO d VALUES ('k', '{}', 1)");
  CHECK_INT(kvRun(db, "SELECT kv_cas('kv', 'a', NULL, 1) = 'stored'"), 1);
  CHECK_INT(kvRun(db, "SELECT kv_cas('kv', 'a', 1, 2) = 'stored'"), 1);
  CHECK_INT(kvRun(db, "SELECT kv_cas('kv', 'a', 1, 2) = 'exists'"), 1);
  CHECK_INT(kvRun(db, "SELECT value FROM kv_mget('kv', '[\"a\"]')"), 2);
  CHECK_INT(kvRun(db, "SELECT doc_update('d', 'k', '{\"$inc\":{\"n\":1}}')"), 2);
  CHECK_INT(kvRun(db, "SELECT doc_update('d', 'k', '{\"$inc\":{\"n\":1}}', 2)"), 3);
  for (i = 0; i < 80; i++) {
    char zSql[200];
    snprintf(zSql, sizeof(zSql), "CREATE TABLE t%d(key PRIMARY KEY, value)", i);
    kvRun(db, zSql);
    snprintf(zSql, sizeof(zSql), "SELECT kv_cas('t%d', 1, NULL, %d) = 'stored'", i, i);
    CHECK_INT(kvRun(db, zSql), 1);
  }
  CHECK_INT(kvRun(db, "SELECT kv_cas('kv', 'a', 2, 3) = 'stored'"), 1); /* Evicted, prepared again */
  kvRun(db, "DROP TABLE d");
  kvClose(db);

  db = kvOpen(":memory:");
  if (db == NULL) return;
  kvRun(db, "CREATE TABLE kv_counters(x)");
  kvRun(db, "CREATE TABLE doc_schema(x)");
  kvRun(db, "CREATE TABLE kv(key TEXT PRIMARY KEY, value)");
  kvRun(db, "CREATE TABLE d(key TEXT PRIMARY KEY, doc TEXT, version INTEGER)");
  kvRun(db, "INSERT INTO d VALUES ('k', '{}', 1)");
  CHECK_INT(kvRun(db, "SELECT kv_cas('kv', 'a', NULL, 1) = 'stored'"), 1);
  CHECK_INT(kvRun(db, "SELECT kv_cas('kv', 'a', 0, 1) = 'exists'"), 1);
  CHECK_INT(kvRun(db, "SELECT doc_update('d', 'k', '{\"$push\":{\"a\":1}}')"), 2);
  kvClose(db);
}

/*
** Loading the extension again on a connection whose kv_counters and
** doc_schema (the owners of the statement caches) are connected: the new
** registrations replace the old, and SQLite disconnects the old tables
** later (at the next prepare), after the old registrations have dropped
** their references to the connection state. Under ASan this shows whether
** xDisconnect still finds that state alive.
*/
static void testReload(void) {
  sqlite3 *db = kvOpen(":memory:");
  char *zErr = NULL;
  if (db == NULL) return;
  kvRun(db, "CREATE TABLE kv(key TEXT PRIMARY KEY, value)");
  kvRun(db, "INSERT INTO kv VALUES ('a', 1)");
  kvRun(db, "CREATE TABLE d(key TEXT PRIMARY KEY, doc TEXT, version INTEGER)");
  kvRun(db, "INSERT INTO d VALUES ('k', '{}', 1)");
  CHECK_INT(kvRun(db, "SELECT doc_update('d', 'k', '{\"$inc\":{\"n\":1}}')"), 2); /* Connects doc_schema */
  CHECK_INT(kvRun(db, "SELECT kv_incr('c')"), 1);
  CHECK_INT(kvRun(db, "SELECT value FROM kv_counters WHERE name = 'c'"), 1);
  CHECK_INT(kvRun(db, "SELECT value FROM kv_mget('kv', '[\"a\"]')"), 1);
  CHECK_INT(sqlite3_nosql_init(db, &zErr, nosql_sqlite3_api), SQLITE_OK);
  sqlite3_free(zErr);
  CHECK_INT(kvRun(db, "SELECT kv_incr('c')"), 2);
  CHECK_INT(kvRun(db, "SELECT value FROM kv_counters WHERE name = 'c'"), 2);
  CHECK_INT(kvRun(db, "SELECT value FROM kv_mget('kv', '[\"a\"]')"), 1);
  CHECK_INT(kvRun(db, "SELECT doc_update('d', 'k', '{\"$inc\":{\"n\":1}}')"), 3);
  kvClose(db);
}

/*
** Results beyond SQLITE_LIMIT_LENGTH are errors that write nothing: a
** doc_update whose document would grow past the limit, a kv_cas whose new
** value is over it.
*/
static void testLengthLimit(void) {
  sqlite3 *db = kvOpen(":memory:");
  sqlite3_stmt *pStmt = NULL;
  int rc;
  if (db == NULL) return;
  kvRun(db, "CREATE TABLE d(key TEXT PRIMARY KEY, doc TEXT, version INTEGER)");
  kvRun(db, "INSERT INTO d VALUES ('k', '{\"a\":\"xxxxxxxxxx\"}', 1)");
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 2000);
  rc = sqlite3_prepare_v2(
      db, "SELECT doc_update('d', 'k', json_object('$set', json_object('b', printf('%.*c', 1990, 'y'))))", -1,
      &pStmt, 0);
  CHECK_INT(rc, SQLITE_OK);
  if (rc == SQLITE_OK) {
    rc = sqlite3_step(pStmt);
    CHECK(rc != SQLITE_ROW && rc != SQLITE_DONE);
    CHECK(strstr(sqlite3_errmsg(db), "too big") != NULL);
    if (strstr(sqlite3_errmsg(db), "too big") == NULL) printf("errmsg: %s\n", sqlite3_errmsg(db));
  }
  sqlite3_finalize(pStmt);
  CHECK_INT(kvRun(db, "SELECT version FROM d"), 1);
  CHECK_INT(kvRun(db, "SELECT length(doc) FROM d"), 18);
  CHECK_INT(kvRun(db, "SELECT doc_update('d', 'k', '{\"$inc\":{\"n\":1}}')"), 2); /* Still usable */
  kvClose(db);
}

/* A progress handler that stops the statement at its nStopAt-th call (0: never), counting calls. */
static int nProgressCalls, nProgressStopAt;
static int kvProgressStop(void *pArg) {
  (void)pArg;
  return ++nProgressCalls == nProgressStopAt;
}

/* Run doc_update with update zUpdate (bound) under the progress handler; returns the step's code. */
static int kvDocUpdateStopped(sqlite3 *db, const char *zUpdate, int nStopAt) {
  sqlite3_stmt *pStmt = NULL;
  int rc = sqlite3_prepare_v2(db, "SELECT doc_update('d', 'k', ?1)", -1, &pStmt, 0);
  if (rc == SQLITE_OK) {
    sqlite3_bind_text(pStmt, 1, zUpdate, -1, SQLITE_STATIC);
    nProgressCalls = 0;
    nProgressStopAt = nStopAt;
    sqlite3_progress_handler(db, 1, kvProgressStop, NULL);
    rc = sqlite3_step(pStmt);
    sqlite3_progress_handler(db, 0, NULL, NULL);
  }
  sqlite3_finalize(pStmt);
  return rc;
}

/*
** doc_update's long loops (parsing, $push of many items, writing) check
** for interrupts by stepping a statement every 4096 steps of work: stopped
** at any point by a progress handler, the call ends with SQLITE_INTERRUPT
** and writes nothing, or it completes.
*/
static void testDocInterrupt(void) {
  sqlite3 *db = kvOpen(":memory:");
  char *zUpdate = (char *)malloc(30000 * 7 + 64), *z;
  int nCalls, nBase, k, nStopped = 0, i, rc, nVersion, nLen;
  if (db == NULL || zUpdate == NULL) {
    free(zUpdate);
    if (db) kvClose(db);
    return;
  }
  z = zUpdate + sprintf(zUpdate, "{\"$push\":{\"a\":{\"$each\":[0");
  for (i = 1; i < 30000; i++) z += sprintf(z, ",%d", i);
  sprintf(z, "]}}}");
  kvRun(db, "CREATE TABLE d(key TEXT PRIMARY KEY, doc TEXT, version INTEGER)");
  kvRun(db, "INSERT INTO d VALUES ('k', '{\"a\":[]}', 1)");
  /* Twice: the first call also resolves the table and prepares its statements. */
  CHECK_INT(kvDocUpdateStopped(db, "{\"$push\":{\"a\":0}}", 0), SQLITE_ROW);
  CHECK_INT(kvDocUpdateStopped(db, "{\"$push\":{\"a\":0}}", 0), SQLITE_ROW);
  nBase = nProgressCalls;
  kvRun(db, "UPDATE d SET doc = '{\"a\":[]}', version = 1");
  CHECK_INT(kvDocUpdateStopped(db, zUpdate, 0), SQLITE_ROW);
  nCalls = nProgressCalls;
  /* The checks in the loops (about 20 here) step a statement: the handler sees them. */
  CHECK(nCalls > nBase + 20);
  for (k = 1; k <= nCalls; k++) {
    kvRun(db, "UPDATE d SET doc = '{\"a\":[]}', version = 1");
    rc = kvDocUpdateStopped(db, zUpdate, k);
    CHECK(rc == SQLITE_ROW || rc == SQLITE_INTERRUPT);
    /* All or nothing (a stop after doc_update committed, at the end of the statement, interrupts it too). */
    nVersion = (int)kvRun(db, "SELECT version FROM d");
    nLen = (int)kvRun(db, "SELECT json_array_length(doc, '$.a') FROM d");
    CHECK((nVersion == 1 && nLen == 0 && rc == SQLITE_INTERRUPT) || (nVersion == 2 && nLen == 30000));
    nStopped += nVersion == 1;
  }
  CHECK(nStopped > nCalls / 2);
  free(zUpdate);
  kvClose(db);
}

int main(void) {
  unitApiInit();
  sqlite3_auto_extension((void (*)(void))sqlite3_nosql_init);
  RUN(testCacheClose);
  RUN(testLazyClose);
  RUN(testDropClose);
  RUN(testAttachClose);
  RUN(testTransactionClose);
  RUN(testShadowedClose);
  RUN(testTwoConnections);
  RUN(testTableCacheClose);
  RUN(testReload);
  RUN(testLengthLimit);
  RUN(testDocInterrupt);
  sqlite3_reset_auto_extension();
  return unitReport();
}
