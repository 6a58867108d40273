/*
** test_util.c: unit tests of ext/util.c, the growable buffer with the
** sticky error code.
*/
#include <stdlib.h>

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

/* Strict JSON: RFC 8259 accepted, JSON5 and malformed text refused. */
static void testJsonStrict(void) {
  static const char *azOk[] = {"[]",
                               " [ ] ",
                               "[\"a\",1,-0.5e+3,true,false,null]",
                               "{}",
                               "{\"a\":[{\"b\":{}}]}",
                               "\"\\u00e9\\n\"",
                               "0",
                               "-0",
                               "1E9",
                               "\t\r\n[1]\n"};
  static const char *azBad[] = {"",        "[",         "[\"a\",]", "['a']",   "[1,]",      "{a:1}",
                                "[01]",    "[.5]",      "[1.]",     "[0x10]",  "[+1]",      "[NaN]",
                                "[1e]",    "\"\\x41\"", "[\"\t\"]", "[1] [2]", "// c\n[1]", "[\"\\u12\"]",
                                "{\"a\"}", "[tru]",     "nul"};
  size_t i;
  char *zDeep;
  for (i = 0; i < sizeof(azOk) / sizeof(azOk[0]); i++)
    CHECK_INT(nosqlJsonStrict(azOk[i], (int)strlen(azOk[i])), 1);
  for (i = 0; i < sizeof(azBad) / sizeof(azBad[0]); i++) {
    CHECK_INT(nosqlJsonStrict(azBad[i], (int)strlen(azBad[i])), 0);
  }
  /* Length, not NUL, ends the text. */
  CHECK_INT(nosqlJsonStrict("[1]x", 3), 1);
  CHECK_INT(nosqlJsonStrict(NULL, 0), 0);
  /* 1000 levels are fine, 1001 are not (and no stack overflow at 100000). */
  zDeep = (char *)malloc(200001);
  for (i = 0; i < 100000; i++) {
    zDeep[i] = '[';
    zDeep[200000 - 1 - i] = ']';
  }
  CHECK_INT(nosqlJsonStrict(zDeep + 100000 - 1000, 2000), 1);
  CHECK_INT(nosqlJsonStrict(zDeep + 100000 - 1001, 2002), 0);
  CHECK_INT(nosqlJsonStrict(zDeep, 200000), 0);
  free(zDeep);
}

/* Empty module arguments, which SQLite drops before xCreate. */
static void testArgsHaveEmpty(void) {
  CHECK_INT(nosqlArgsHaveEmpty("CREATE VIRTUAL TABLE t USING m(a, b)"), 0);
  CHECK_INT(nosqlArgsHaveEmpty("CREATE VIRTUAL TABLE t USING m(a, )"), 1);
  CHECK_INT(nosqlArgsHaveEmpty("CREATE VIRTUAL TABLE t USING m(a,,b)"), 1);
  CHECK_INT(nosqlArgsHaveEmpty("CREATE VIRTUAL TABLE t USING m( , a)"), 1);
  CHECK_INT(nosqlArgsHaveEmpty("CREATE VIRTUAL TABLE t USING m(a, /* none */ )"), 1);
  CHECK_INT(nosqlArgsHaveEmpty("CREATE VIRTUAL TABLE t USING m(a, -- none\n)"), 1);
  CHECK_INT(nosqlArgsHaveEmpty("CREATE VIRTUAL TABLE t USING m()"), 0);
  CHECK_INT(nosqlArgsHaveEmpty("CREATE VIRTUAL TABLE t USING m"), 0);
  CHECK_INT(nosqlArgsHaveEmpty(NULL), 0);
  /* Commas and parentheses inside quotes, brackets and nested lists. */
  CHECK_INT(nosqlArgsHaveEmpty("CREATE VIRTUAL TABLE t USING m(\"a,\", 'x,,y', [b,], `c,`)"), 0);
  CHECK_INT(nosqlArgsHaveEmpty("CREATE VIRTUAL TABLE t USING m(a NUMERIC(10, 2), b)"), 0);
  CHECK_INT(nosqlArgsHaveEmpty("CREATE VIRTUAL TABLE t USING m(s NESTED(x, ), b)"), 0);
  CHECK_INT(nosqlArgsHaveEmpty("CREATE VIRTUAL TABLE t USING m('it''s', )"), 1);
  CHECK_INT(nosqlArgsHaveEmpty("CREATE VIRTUAL TABLE \"t(,)\" USING m(a)"), 0);
  /* Unterminated text (never stored by SQLite) ends the scan. */
  CHECK_INT(nosqlArgsHaveEmpty("CREATE VIRTUAL TABLE t USING m('a, "), 0);
}

int main(void) {
  unitApiInit();
  RUN(testArgsHaveEmpty);
  RUN(testBufferAppend);
  RUN(testStickyError);
  RUN(testEmptyAppend);
  RUN(testCursorNew);
  RUN(testJsonStrict);
  return unitReport();
}
