/*
** test_util.c: unit tests of ext/util.c, the growable buffer with the
** sticky error code.
*/
#include "nosqlInt.h"
#include "unit.h"

void unitApiInit(void);

static void testBufferAppend(void) {
  NosqlBuffer b = {0, 0, 0};
  int rc = SQLITE_OK;
  int i;
  nosqlBufferAppend(&rc, &b, "abc", 3);
  CHECK_INT(rc, SQLITE_OK);
  CHECK_INT(b.n, 3);
  CHECK_STR((const char *)b.a, "abc");
  for (i = 0; i < 1000; i++) nosqlBufferAppend(&rc, &b, "0123456789", 10);
  CHECK_INT(b.n, 10003);
  CHECK(b.nAlloc > b.n);
  CHECK_INT(b.a[b.n], 0);
  nosqlBufferReset(&b);
  CHECK_INT(b.n, 0);
  CHECK_STR((const char *)b.a, "");
  nosqlBufferAppendf(&rc, &b, "%d-%s", 42, "x");
  CHECK_STR((const char *)b.a, "42-x");
  nosqlBufferFree(&b);
  CHECK(b.a == NULL);
  CHECK_INT(b.n, 0);
}

static void testStickyError(void) {
  NosqlBuffer b = {0, 0, 0};
  int rc = SQLITE_NOMEM;
  nosqlBufferAppend(&rc, &b, "abc", 3);
  nosqlBufferAppendf(&rc, &b, "%d", 1);
  CHECK_INT(rc, SQLITE_NOMEM);
  CHECK(b.a == NULL);
  CHECK_INT(b.n, 0);
}

static void testEmptyAppend(void) {
  NosqlBuffer b = {0, 0, 0};
  int rc = SQLITE_OK;
  nosqlBufferAppend(&rc, &b, "", 0);
  CHECK_INT(rc, SQLITE_OK);
  CHECK_INT(b.n, 0);
  CHECK(b.a != NULL && b.a[0] == 0);
  nosqlBufferFree(&b);
}

static void testCursorNew(void) {
  struct {
    sqlite3_vtab_cursor base; /* Must be first */
    int aVal[32];             /* Zeroed by nosqlCursorNew */
  } * pCur;
  sqlite3_vtab_cursor *pOut = NULL;
  int i, bZero = 1;
  pCur = nosqlCursorNew(sizeof(*pCur), &pOut);
  CHECK(pCur != NULL);
  CHECK(pOut == &pCur->base);
  for (i = 0; i < 32; i++) bZero = bZero && pCur->aVal[i] == 0;
  CHECK(bZero);
  sqlite3_free(pCur);
}

int main(void) {
  unitApiInit();
  RUN(testBufferAppend);
  RUN(testStickyError);
  RUN(testEmptyAppend);
  RUN(testCursorNew);
  return unitReport();
}
