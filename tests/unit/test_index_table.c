/*
** test_index_table.c: what index_table (ext/index_table.c) must survive
** while one of its reads is still open, which the sqllogictest format
** cannot express (a statement stepped part way, then other statements on
** the same connection, then the first stepped on): ALTER TABLE ... RENAME
** of the index table (it clears its cached reads, one of which the open
** read holds: a use after free once), writes to the base table, and a
** second read of the same plan. Under ASan this is the check that counts.
*/
#include <sqlite3.h>

#include "nosql.h"
#include "unit.h"

void unitApiInit(void);

/* Run zSql (any number of statements); 0 on success, else prints why (a failed check). */
static int itExec(sqlite3 *db, const char *zSql) {
  char *zErr = NULL;
  int rc = sqlite3_exec(db, zSql, 0, 0, &zErr);
  if (rc != SQLITE_OK) {
    unitFail++;
    printf("FAIL exec %s: %s\n", zSql, zErr ? zErr : "?");
  }
  sqlite3_free(zErr);
  return rc;
}

/* The rows left in pStmt, their first columns joined by ','; "error: ..." when a step fails. */
static void itRest(sqlite3_stmt *pStmt, char *zOut, size_t nOut) {
  int rc;
  size_t n = 0;
  zOut[0] = 0;
  while ((rc = sqlite3_step(pStmt)) == SQLITE_ROW) {
    n += (size_t)snprintf(zOut + n, nOut - n, "%s%s", n ? "," : "",
                          (const char *)sqlite3_column_text(pStmt, 0));
    if (n >= nOut) n = nOut - 1;
  }
  if (rc != SQLITE_DONE) snprintf(zOut, nOut, "error: %s", sqlite3_errmsg(sqlite3_db_handle(pStmt)));
}

static sqlite3 *itOpen(void) {
  sqlite3 *db = NULL;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK ||
      itExec(db,
             "CREATE TABLE p(id INTEGER PRIMARY KEY, k TEXT);"
             "INSERT INTO p VALUES (1, 'a'), (2, 'b'), (3, 'c');"
             "CREATE VIRTUAL TABLE pk USING index_table(p, key = 'k');") != SQLITE_OK) {
    unitFail++;
    printf("FAIL open: %s\n", db ? sqlite3_errmsg(db) : "no connection");
    sqlite3_close(db);
    return NULL;
  }
  return db;
}

/* RENAME while a read of the index table is open: the read finishes, the renamed table answers. */
static void testRenameDuringRead(void) {
  sqlite3 *db = itOpen();
  sqlite3_stmt *pStmt = NULL;
  char zRest[256];
  if (db == NULL) return;
  CHECK_INT(sqlite3_prepare_v2(db, "SELECT k FROM pk", -1, &pStmt, 0), SQLITE_OK);
  CHECK_INT(sqlite3_step(pStmt), SQLITE_ROW);
  CHECK_STR((const char *)sqlite3_column_text(pStmt, 0), "a");
  CHECK_INT(sqlite3_exec(db, "ALTER TABLE pk RENAME TO pk2", 0, 0, 0), SQLITE_OK);
  itRest(pStmt, zRest, sizeof(zRest));
  CHECK_STR(zRest, "b,c");
  sqlite3_finalize(pStmt);
  CHECK_INT(sqlite3_prepare_v2(db, "SELECT k FROM pk2 WHERE k > 'a'", -1, &pStmt, 0), SQLITE_OK);
  itRest(pStmt, zRest, sizeof(zRest));
  CHECK_STR(zRest, "b,c");
  sqlite3_finalize(pStmt);
  /* And again, with the renamed table's read open (its cache entry lent out). */
  CHECK_INT(sqlite3_prepare_v2(db, "SELECT k FROM pk2", -1, &pStmt, 0), SQLITE_OK);
  CHECK_INT(sqlite3_step(pStmt), SQLITE_ROW);
  CHECK_INT(sqlite3_exec(db, "ALTER TABLE pk2 RENAME TO pk3; INSERT INTO p VALUES (4, 'd')", 0, 0, 0),
            SQLITE_OK);
  sqlite3_finalize(pStmt);
  CHECK_INT(sqlite3_prepare_v2(db, "SELECT group_concat(k) FROM pk3", -1, &pStmt, 0), SQLITE_OK);
  itRest(pStmt, zRest, sizeof(zRest));
  CHECK_STR(zRest, "a,b,c,d");
  sqlite3_finalize(pStmt);
  CHECK_INT(sqlite3_close(db), SQLITE_OK);
}

/* Two reads of one plan open at once, then a write to the base between their steps. */
static void testTwoReads(void) {
  sqlite3 *db = itOpen();
  sqlite3_stmt *p1 = NULL, *p2 = NULL;
  char zRest[256];
  if (db == NULL) return;
  CHECK_INT(sqlite3_prepare_v2(db, "SELECT k FROM pk WHERE k >= 'a'", -1, &p1, 0), SQLITE_OK);
  CHECK_INT(sqlite3_prepare_v2(db, "SELECT k FROM pk WHERE k >= 'b'", -1, &p2, 0), SQLITE_OK);
  CHECK_INT(sqlite3_step(p1), SQLITE_ROW);
  CHECK_INT(sqlite3_step(p2), SQLITE_ROW);
  CHECK_STR((const char *)sqlite3_column_text(p2, 0), "b");
  itRest(p1, zRest, sizeof(zRest));
  CHECK_STR(zRest, "b,c");
  itRest(p2, zRest, sizeof(zRest));
  CHECK_STR(zRest, "c");
  sqlite3_finalize(p1);
  sqlite3_finalize(p2);
  CHECK_INT(sqlite3_close(db), SQLITE_OK);
}

int main(void) {
  unitApiInit();
  sqlite3_auto_extension((void (*)(void))sqlite3_nosql_init);
  RUN(testRenameDuringRead);
  RUN(testTwoReads);
  sqlite3_reset_auto_extension();
  return unitReport();
}
