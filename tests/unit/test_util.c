/*
** test_util.c: unit tests of ext/util.c, the growable buffer with the
** sticky error code.
*/
#include <stdlib.h>
#include <string.h>

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

/* Where strict JSON parsing stops: the byte nosqlJsonErrorAt() reports (-1: strict JSON). */
static void testJsonErrorAt(void) {
  static const struct {
    const char *z; /* The text */
    int iAt;       /* The byte expected */
  } aCase[] = {
      {"{\"a\":{\"$gt\":}}", 12}, /* the example: the '}' where a value was due */
      {"{\"a\":1", 6},            /* ends too early: its length */
      {"", 0},
      {"   ", 3},
      {"[1,]", 3},
      {"[1] x", 4},         /* trailing text */
      {"{a:1}", 1},         /* an unquoted key */
      {"[01]", 2},          /* a leading zero: the number ends at the 0 */
      {"[\"\\x41\"]", 2},   /* a bad escape: its backslash */
      {"[\"\\u12G4\"]", 6}, /* a bad \u escape: its first bad digit */
      {"[\"a\tb\"]", 3},    /* a control character: itself */
      {"[\"abc", 5},        /* a string that does not end */
      {"[tru]", 1},
      {"[1e]", 3},
      {"{\"a\" 1}", 5}, /* the ':' was due */
      {"[]", -1},
      {" {\"a\": [1, 2.5e3, null]} ", -1},
  };
  size_t i;
  for (i = 0; i < sizeof(aCase) / sizeof(aCase[0]); i++) {
    int iAt = nosqlJsonErrorAt(aCase[i].z, (int)strlen(aCase[i].z));
    if (iAt != aCase[i].iAt) printf("  nosqlJsonErrorAt(%s) = %d, not %d\n", aCase[i].z, iAt, aCase[i].iAt);
    CHECK_INT(iAt, aCase[i].iAt);
    /* Always where nosqlJsonStrict() says: -1 exactly for strict JSON. */
    CHECK_INT(iAt < 0, nosqlJsonStrict(aCase[i].z, (int)strlen(aCase[i].z)));
  }
  /* Length, not NUL, ends the text; depth past the limit stops at the bracket that passes it. */
  CHECK_INT(nosqlJsonErrorAt("[1]x", 3), -1);
  CHECK_INT(nosqlJsonErrorAt("[1", 1), 1);
  CHECK_INT(nosqlJsonErrorAt(NULL, 0), 0);
}

/* The list of valid options, and the whole unknown-option message. */
static void testUnknownOption(void) {
  static const char *const azValid[] = {"content", "direct", NULL};
  static const char *const azNone[] = {NULL};
  char *z = nosqlValidOptions(azValid);
  CHECK_STR(z, "(valid options: content, direct)");
  sqlite3_free(z);
  z = nosqlValidOptions(azNone);
  CHECK_STR(z, "(valid options: )");
  sqlite3_free(z);
  z = nosqlUnknownOption("inverted_index", "contnet=users", 7, azValid);
  CHECK_STR(z, "inverted_index: unknown option 'contnet' (valid options: content, direct)");
  sqlite3_free(z);
  z = nosqlUnknownOption("x", "k", -1, azValid);
  CHECK_STR(z, "x: unknown option 'k' (valid options: content, direct)");
  sqlite3_free(z);
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

/*
** nosqlColumnInfo against sqlite3_table_column_metadata (Debian's SQLite
** has it; the extension must not need it) on declarations that stress the
** CREATE TABLE scanner: quoting, comments, constraints, parentheses,
** ALTER TABLE ADD COLUMN, WITHOUT ROWID, a collation inside CHECK.
*/
static void testColumnInfo(void) {
  static const char *const azCreate[] = {
      "CREATE TABLE t1(a TEXT COLLATE NOCASE, b, \"c d\" VARCHAR(10) collate rtrim NOT NULL, [e] INT)",
      "CREATE TABLE \"t(2\"(/* a, b */ k TEXT PRIMARY KEY COLLATE \"NOCASE\" -- c COLLATE RTRIM\n, "
      "v CHECK (v COLLATE NOCASE <> 'x'), w DEFAULT ('a,b') COLLATE BINARY) WITHOUT ROWID",
      "CREATE TABLE t3(x, y NUMERIC(10, 2), `z``q` COLLATE [RTRIM], CONSTRAINT pk PRIMARY KEY (x COLLATE "
      "NOCASE))",
      "CREATE TABLE t4(a)", "ALTER TABLE t4 ADD COLUMN b TEXT COLLATE NOCASE",
      "CREATE TEMP TABLE t5(a COLLATE rtrim)",
      /* Several COLLATE clauses: the last counts (issue 25); those in
      ** expressions, strings, names and comments do not. */
      "CREATE TABLE t6(a TEXT COLLATE BINARY COLLATE NOCASE, b COLLATE NOCASE NOT NULL COLLATE RTRIM "
      "CHECK (b COLLATE BINARY <> '') DEFAULT 'COLLATE NOCASE', \"collate\" COLLATE rtrim /* COLLATE "
      "NOCASE */, d AS (a COLLATE BINARY) COLLATE NOCASE, e COLLATE NOCASE GENERATED ALWAYS AS (b "
      "COLLATE RTRIM), f DEFAULT (1) COLLATE RTRIM COLLATE BINARY)",
      NULL};
  static const struct {
    const char *zSchema, *zTable, *zCol;
  } aCol[] = {{"main", "t1", "a"},  {"main", "t1", "b"},   {"main", "t1", "c d"}, {"main", "t1", "E"},
              {"main", "t(2", "k"}, {"main", "t(2", "v"},  {"main", "t(2", "w"},  {"main", "t3", "x"},
              {"main", "t3", "y"},  {"main", "t3", "z`q"}, {"main", "T4", "a"},   {"main", "t4", "b"},
              {"temp", "t5", "a"},  {"main", "t6", "a"},   {"main", "t6", "b"},   {"main", "t6", "collate"},
              {"main", "t6", "d"},  {"main", "t6", "e"},   {"main", "t6", "f"}};
  sqlite3 *db = NULL;
  int i;
  char *zType, *zColl;
  sqlite3_open(":memory:", &db);
  for (i = 0; azCreate[i]; i++) CHECK_INT(sqlite3_exec(db, azCreate[i], 0, 0, 0), SQLITE_OK);
  for (i = 0; i < (int)(sizeof(aCol) / sizeof(aCol[0])); i++) {
    const char *zWantType = NULL, *zWantColl = NULL;
    int rc = nosqlColumnInfo(db, aCol[i].zSchema, aCol[i].zTable, aCol[i].zCol, &zType, &zColl);
    CHECK_INT(rc, SQLITE_OK);
    sqlite3_table_column_metadata(db, aCol[i].zSchema, aCol[i].zTable, aCol[i].zCol, &zWantType, &zWantColl,
                                  0, 0, 0);
    CHECK_STR(zType ? zType : "", zWantType ? zWantType : "");
    CHECK_STR(zColl ? zColl : "BINARY", zWantColl ? zWantColl : "BINARY");
    sqlite3_free(zType);
    sqlite3_free(zColl);
  }
  CHECK_INT(nosqlColumnInfo(db, "main", "t1", "nope", &zType, &zColl), SQLITE_NOTFOUND);
  CHECK_INT(nosqlColumnInfo(db, "main", "nope", "a", &zType, &zColl), SQLITE_NOTFOUND);
  CHECK_INT(nosqlColumnInfo(db, "nowhere", "t1", "a", &zType, &zColl), SQLITE_NOTFOUND);
  CHECK(zType == NULL && zColl == NULL);
  sqlite3_close(db);
}

/*
** nosqlColumnName: a column's name as declared, found case-insensitively in
** a table, a view, a generated column or a temp table; SQLITE_NOTFOUND for
** a missing column or table, SQLITE_ERROR for a missing schema.
*/
static void testColumnName(void) {
  static const struct {
    const char *zSchema, *zTable, *zCol, *zWant;
  } aCol[] = {{"main", "t1", "E", "e"}, {"main", "t1", "C D", "c d"}, {"main", "T1", "g", "G"},
              {"main", "v1", "X", "x"}, {"temp", "t2", "a", "A"},     {"main", "t1", "\"q\"", "\"Q\""},
              {"main", "t1", "e", "e"}};
  sqlite3 *db = NULL;
  char *zName = (char *)"not cleared";
  int i;
  sqlite3_open(":memory:", &db);
  CHECK_INT(sqlite3_exec(db,
                         "CREATE TABLE t1(\"c d\", e, G AS (e + 1), \"\"\"Q\"\"\");"
                         "CREATE VIEW v1(x) AS SELECT e FROM t1; CREATE TEMP TABLE t2(A)",
                         0, 0, 0),
            SQLITE_OK);
  for (i = 0; i < (int)(sizeof(aCol) / sizeof(aCol[0])); i++) {
    CHECK_INT(nosqlColumnName(db, aCol[i].zSchema, aCol[i].zTable, aCol[i].zCol, &zName), SQLITE_OK);
    CHECK_STR(zName ? zName : "(null)", aCol[i].zWant);
    sqlite3_free(zName);
  }
  CHECK_INT(nosqlColumnName(db, "main", "t1", "nope", &zName), SQLITE_NOTFOUND);
  CHECK(zName == NULL);
  CHECK_INT(nosqlColumnName(db, "main", "nope", "e", &zName), SQLITE_NOTFOUND);
  CHECK_INT(nosqlColumnName(db, "temp", "t1", "e", &zName), SQLITE_NOTFOUND);
  CHECK_INT(nosqlColumnName(db, "nowhere", "t1", "e", &zName), SQLITE_ERROR);
  CHECK(zName == NULL);
  sqlite3_close(db);
}

/* nosqlJsonUnescape: escapes, surrogate pairs, lone surrogates, the offset map. */
static void testJsonUnescape(void) {
  char aOut[64];
  int aMap[64], n;
  const char *z = "a\\\"b\\u00e9\\ud83d\\ude00\\n\\ud800x";
  n = nosqlJsonUnescape(z, (int)strlen(z), aOut, aMap, 10);
  aOut[n] = 0;
  CHECK_STR(aOut, "a\"b\xc3\xa9\xf0\x9f\x98\x80\n\xef\xbf\xbdx");
  CHECK_INT(aMap[0], 10); /* a */
  CHECK_INT(aMap[1], 11); /* the escape of the quote */
  CHECK_INT(aMap[2], 13); /* b */
  CHECK_INT(aMap[3], 14); /* both bytes of e-acute map to its escape */
  CHECK_INT(aMap[4], 14);
  CHECK_INT(aMap[5], 20); /* the four bytes of the pair map to its first escape */
  CHECK_INT(aMap[8], 20);
  CHECK_INT(aMap[n - 1], 10 + (int)strlen(z) - 1);
  n = nosqlJsonUnescape("plain", 5, aOut, NULL, 0);
  CHECK_INT(n, 5);
  CHECK_INT(nosqlJsonUnescape("", 0, aOut, NULL, 0), 0);
}

/* nosqlDequote: one level of each quoting style, doubled quotes, spaces, unquoted text. */
static void testDequote(void) {
  static const struct {
    const char *zIn, *zOut;
  } aCase[] = {{"  abc ", "abc"}, {"'a''b'", "a'b"},  {"\"x\"\"y\"", "x\"y"},
               {"`p``q`", "p`q"}, {"[a]]b]", "a]]b"}, {"'unclosed", "'unclosed"},
               {"''", ""},        {"'", "'"},         {"\t[s p]\n", "s p"},
               {"", ""}};
  int i;
  for (i = 0; i < (int)(sizeof(aCase) / sizeof(aCase[0])); i++) {
    char *z = nosqlDequote(aCase[i].zIn, (int)strlen(aCase[i].zIn));
    CHECK_STR(z ? z : "(null)", aCase[i].zOut);
    sqlite3_free(z);
  }
}

/* nosqlSqlToken: comments skipped, quoted tokens whole, punctuation alone. */
static void testSqlToken(void) {
  const char *z = " lower(\"a b\") /* c */ AS -- d\n x,'e''f'";
  static const char *const azWant[] = {"lower", "(", "\"a b\"", ")", "AS", "x", ",", "'e''f'"};
  int i = 0, n = 0, k = 0;
  const char *zTok;
  while ((zTok = nosqlSqlToken(z, &i, &n)) != NULL && k < 8) {
    char aTok[32];
    snprintf(aTok, sizeof(aTok), "%.*s", n, zTok);
    CHECK_STR(aTok, azWant[k]);
    k++;
  }
  CHECK_INT(k, 8);
  CHECK(nosqlSqlToken(z, &i, &n) == NULL);
}

/*
** nosqlBufferJsonReal: the fewest of 15-17 digits that read back exactly,
** in SQLite's form (a point always), whatever SQLite's printf would round
** (3.40's gave 1.7976931348623156e+308 for DBL_MAX), and random bit
** patterns read back bit for bit.
*/
static void testJsonReal(void) {
  static const struct {
    double r;
    const char *z;
  } aCase[] = {{1.0, "1.0"},
               {0.1, "0.1"},
               {-7.0, "-7.0"},
               {1e23, "1.0e+23"},
               {1e-5, "1.0e-05"},
               {0.30000000000000004, "0.30000000000000004"},
               {1.7976931348623157e308, "1.7976931348623157e+308"},
               {4.9406564584124654e-324, "4.94065645841247e-324"},
               {123456789012345678.0, "1.2345678901234568e+17"}};
  int i, nBad = 0;
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (i = 0; i < (int)(sizeof(aCase) / sizeof(aCase[0])); i++) {
    NosqlBuffer b = {0, 0, 0};
    int rc = SQLITE_OK;
    nosqlBufferJsonReal(&rc, &b, aCase[i].r);
    nosqlBufferAppend(&rc, &b, "", 1);
    CHECK_STR(rc == SQLITE_OK ? (const char *)b.a : "(error)", aCase[i].z);
    nosqlBufferFree(&b);
  }
  for (i = 0; i < 20000; i++) {
    NosqlBuffer b = {0, 0, 0};
    int rc = SQLITE_OK;
    double r, rBack;
    x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
    memcpy(&r, &x, sizeof(r));
    if (r != r || r - r != 0) continue; /* NaN and infinities are written otherwise */
    nosqlBufferJsonReal(&rc, &b, r);
    nosqlBufferAppend(&rc, &b, "", 1);
    rBack = rc == SQLITE_OK ? strtod((const char *)b.a, NULL) : 0;
    if (memcmp(&rBack, &r, sizeof(r)) != 0) nBad++;
    nosqlBufferFree(&b);
  }
  CHECK_INT(nBad, 0);
}

/* nosqlQualifiedName: table or schema.table, each part bare or quoted; anything else refused. */
static void testQualifiedName(void) {
  static const struct {
    const char *zIn, *zSchema, *zName; /* zName NULL: SQLITE_ERROR */
  } aCase[] = {{"t", NULL, "t"},
               {" main.t ", "main", "t"},
               {"\"my db\".\"t t\"", "my db", "t t"},
               {"[a b].`c``d`", "a b", "c`d"},
               {"\"main\".t", "main", "t"},
               {"main.\"a.b\"", "main", "a.b"},
               {"\"a.b\"", NULL, "a.b"},
               {"main . t /* c */", "main", "t"},
               {"_x$1", NULL, "_x$1"},
               {"t x", NULL, NULL},
               {"a.b.c", NULL, NULL},
               {"main.", NULL, NULL},
               {".t", NULL, NULL},
               {"1t", NULL, NULL},
               {"'t'", NULL, NULL},
               {"\"\"", NULL, NULL},
               {"", NULL, NULL},
               {"t(", NULL, NULL}};
  int i;
  for (i = 0; i < (int)(sizeof(aCase) / sizeof(aCase[0])); i++) {
    char *zSchema = (char *)1, *zName = (char *)1;
    int rc = nosqlQualifiedName(aCase[i].zIn, &zSchema, &zName);
    CHECK_INT(rc, aCase[i].zName ? SQLITE_OK : SQLITE_ERROR);
    CHECK_STR(zName ? zName : "(null)", aCase[i].zName ? aCase[i].zName : "(null)");
    CHECK_STR(zSchema ? zSchema : "(null)", aCase[i].zSchema ? aCase[i].zSchema : "(null)");
    sqlite3_free(zSchema);
    sqlite3_free(zName);
  }
}

/*
** nosqlStmtCacheTake/Keep/Give/Clear: a statement is lent to one holder
** at a time; a second holder of the same key prepares its own; with no
** free slot an idle one is replaced in turn; a statement lent while the
** cache is cleared is finalized when given back. The statements are real
** (an in-memory connection); sqlite3_close() then shows none is left.
*/
static void testStmtCache(void) {
  sqlite3 *db = NULL;
  NosqlStmtCache c;
  NosqlStmtSlot *pA, *pB, *pC;
  sqlite3_stmt *p1, *p2, *p3, *pT;
  CHECK_INT(sqlite3_open(":memory:", &db), SQLITE_OK);
  memset(&c, 0, sizeof(c));
  c.nSlot = 2;
  CHECK(nosqlStmtCacheTake(&c, "a", &pA) == NULL && pA == NULL);
  sqlite3_prepare_v2(db, "SELECT ?1", -1, &p1, 0);
  nosqlStmtCacheKeep(&c, "a", p1, &pA);
  CHECK(pA != NULL && pA->bBusy);
  /* Lent: a second holder of "a" finds nothing and keeps its own in the other slot. */
  CHECK(nosqlStmtCacheTake(&c, "a", &pB) == NULL);
  sqlite3_prepare_v2(db, "SELECT ?1", -1, &p2, 0);
  nosqlStmtCacheKeep(&c, "a", p2, &pB);
  CHECK(pB != NULL && pB != pA);
  /* Both slots lent: a third statement is not kept; given back, it is finalized. */
  sqlite3_prepare_v2(db, "SELECT 3", -1, &p3, 0);
  nosqlStmtCacheKeep(&c, "b", p3, &pC);
  CHECK(pC == NULL);
  nosqlStmtCacheGive(pC, p3);
  /* Given back: reset, bindings cleared, idle, lent again to the next holder. */
  sqlite3_bind_int(p1, 1, 7);
  CHECK_INT(sqlite3_step(p1), SQLITE_ROW);
  nosqlStmtCacheGive(pA, p1);
  CHECK(!pA->bBusy && !sqlite3_stmt_busy(p1));
  pT = nosqlStmtCacheTake(&c, "a", &pC);
  CHECK(pT == p1 && pC == pA);
  CHECK_INT(sqlite3_step(p1), SQLITE_ROW);
  CHECK_INT(sqlite3_column_type(p1, 0), SQLITE_NULL);
  nosqlStmtCacheGive(pC, p1);
  /* A new key with no free slot replaces an idle statement (p1's slot, the only idle one). */
  sqlite3_prepare_v2(db, "SELECT 4", -1, &p3, 0);
  nosqlStmtCacheKeep(&c, "c", p3, &pC);
  CHECK(pC == pA && pC->pStmt == p3);
  CHECK_STR(pA->zKey, "c");
  nosqlStmtCacheGive(pC, p3);
  CHECK(nosqlStmtCacheTake(&c, "a", &pC) == NULL); /* "a" was replaced */
  /* Cleared while p2 is lent: p2 stays usable, then is finalized when given back. */
  nosqlStmtCacheClear(&c);
  CHECK(pB->bStale && pB->pStmt == p2);
  CHECK_INT(sqlite3_step(p2), SQLITE_ROW);
  nosqlStmtCacheGive(pB, p2);
  CHECK(pB->pStmt == NULL && pB->zKey == NULL);
  CHECK(nosqlStmtCacheTake(&c, "a", &pA) == NULL);
  CHECK_INT(sqlite3_close(db), SQLITE_OK);
}

int main(void) {
  unitApiInit();
  RUN(testQualifiedName);
  RUN(testJsonReal);
  RUN(testDequote);
  RUN(testSqlToken);
  RUN(testArgsHaveEmpty);
  RUN(testBufferAppend);
  RUN(testStickyError);
  RUN(testEmptyAppend);
  RUN(testCursorNew);
  RUN(testJsonStrict);
  RUN(testJsonErrorAt);
  RUN(testUnknownOption);
  RUN(testColumnInfo);
  RUN(testColumnName);
  RUN(testJsonUnescape);
  RUN(testStmtCache);
  return unitReport();
}
