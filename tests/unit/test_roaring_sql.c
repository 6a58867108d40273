/*
** test_roaring_sql.c: the rb_* SQL functions (ext/roaring_sql.c) against
** SQLITE_LIMIT_LENGTH, which a sqllogictest file cannot set: a result over
** the limit is an error found before any of it is built, and a result of
** exactly the limit is returned.
*/
#include <roaring/roaring.h>
#include <sqlite3.h>
#include <stdlib.h>

#include "nosql.h"
#include "unit.h"

void unitApiInit(void);

/*
** The portable serialization of p (malloc'd, size in *pn; p is freed) and
** a new connection in *pDb. NULL (a failed check, nothing left open) when
** either cannot be made.
*/
static unsigned char *unitSerialize(roaring_bitmap_t *p, size_t *pn, sqlite3 **pDb) {
  unsigned char *a;
  roaring_bitmap_run_optimize(p);
  *pn = roaring_bitmap_portable_size_in_bytes(p);
  a = (unsigned char *)malloc(*pn);
  if (a) roaring_bitmap_portable_serialize(p, (char *)a);
  roaring_bitmap_free(p);
  *pDb = NULL;
  if (a == NULL || sqlite3_open(":memory:", pDb) != SQLITE_OK) {
    CHECK(0);
    free(a);
    sqlite3_close(*pDb);
    *pDb = NULL;
    return NULL;
  }
  return a;
}

/* Run rb_to_json(a) on db; returns the step's code, the text's length in *pnOut. */
static int unitToJson(sqlite3 *db, const unsigned char *a, size_t n, sqlite3_int64 *pnOut) {
  sqlite3_stmt *pStmt = NULL;
  int rc = sqlite3_prepare_v2(db, "SELECT rb_to_json(?1)", -1, &pStmt, 0);
  *pnOut = -1;
  if (rc == SQLITE_OK) {
    sqlite3_bind_blob64(pStmt, 1, a, n, SQLITE_STATIC);
    rc = sqlite3_step(pStmt);
    if (rc == SQLITE_ROW) *pnOut = sqlite3_column_bytes(pStmt, 0);
  }
  sqlite3_finalize(pStmt);
  return rc;
}

/*
** rb_to_json of the full set [0, 2^32), a 900 KB blob whose JSON text is
** about 43 GB: refused as too big without first building text up to the
** limit (which took 12 s and 1 GB at the default limit).
*/
static void testJsonTooBig(void) {
  sqlite3 *db = NULL;
  roaring_bitmap_t *p = roaring_bitmap_create();
  unsigned char *a;
  size_t n;
  sqlite3_int64 nOut, nUsed, nHigh;
  roaring_bitmap_add_range(p, 0, (uint64_t)1 << 32);
  a = unitSerialize(p, &n, &db);
  if (a == NULL) return;
  sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &nUsed, &nHigh, 1);
  CHECK_INT(unitToJson(db, a, n, &nOut), SQLITE_TOOBIG);
  sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &nUsed, &nHigh, 0);
  CHECK(nHigh < nUsed + 16 * 1024 * 1024);
  free(a);
  sqlite3_close(db);
}

/* A JSON text of exactly the limit is returned; one byte over, an error. */
static void testJsonAtLimit(void) {
  sqlite3 *db = NULL;
  roaring_bitmap_t *p = roaring_bitmap_create();
  unsigned char *a;
  size_t n;
  sqlite3_int64 nOut;
  /* [0,...,1049,4294967295]: 2 brackets, 1050 commas, 10 + 90 * 2 + 900 * 3 + 50 * 4 + 10 digits */
  roaring_bitmap_add_range(p, 0, 1050);
  roaring_bitmap_add(p, 4294967295u);
  a = unitSerialize(p, &n, &db);
  if (a == NULL) return;
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 4152);
  CHECK_INT(unitToJson(db, a, n, &nOut), SQLITE_ROW);
  CHECK_INT(nOut, 4152);
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 4151);
  CHECK_INT(unitToJson(db, a, n, &nOut), SQLITE_TOOBIG);
  free(a);
  sqlite3_close(db);
}

int main(void) {
  unitApiInit();
  sqlite3_auto_extension((void (*)(void))sqlite3_nosql_init);
  RUN(testJsonTooBig);
  RUN(testJsonAtLimit);
  sqlite3_reset_auto_extension();
  return unitReport();
}
