/*
** test_doc_json.c: unit tests of ext/doc_json.c, the JSON trees that
** doc_update edits: the parser accepts exactly what nosqlJsonStrict()
** accepts, the writer gives every token back, equality and hashing agree,
** object indexes survive removals, appends and duplicates.
*/
#include <locale.h>
#include <stdlib.h>

#include "nosqlInt.h"
#include "unit.h"

void unitApiInit(void);

/* Parse z and write it back compactly into a static buffer; "ERROR", "DEEP" on failure. */
static const char *jsonRoundTrip(const char *z) {
  static char aOut[4096];
  DocJson j;
  DocNode *pRoot = NULL;
  NosqlBuffer buf = {0, 0, 0};
  int rc;
  docJsonInit(&j, NULL, NULL);
  rc = docJsonParse(&j, z, (int)strlen(z), 0, &pRoot);
  if (rc == SQLITE_OK) rc = docJsonWrite(&j, pRoot, &buf, 1000000);
  if (rc == SQLITE_OK) {
    snprintf(aOut, sizeof(aOut), "%s", (const char *)buf.a);
  } else {
    snprintf(aOut, sizeof(aOut), "%s", j.bDeep ? "DEEP" : "ERROR");
  }
  nosqlBufferFree(&buf);
  docJsonClear(&j);
  return aOut;
}

/* Strictness: the same verdict as nosqlJsonStrict() on valid and broken texts. */
static void testParseStrict(void) {
  static const char *azText[] = {"{}",
                                 "[]",
                                 " { \"a\" : [ 1 , -0 , 0.5e-3 , 1E+2 , true , false , null ] } ",
                                 "\"s\\u00e9\\n\"",
                                 "0",
                                 "-1",
                                 "{\"a\":1,}",
                                 "[1,]",
                                 "{a:1}",
                                 "'x'",
                                 "01",
                                 "1.",
                                 ".5",
                                 "-",
                                 "1e",
                                 "+1",
                                 "\"\\x\"",
                                 "\"\\u12\"",
                                 "\"a",
                                 "[1 2]",
                                 "{\"a\" 1}",
                                 "tru",
                                 "nul",
                                 "[",
                                 "",
                                 " ",
                                 "\"\x01\"",
                                 "[1]x",
                                 "{\"a\":1}{}",
                                 "NaN",
                                 "0x10",
                                 "[1,\n2]",
                                 "\"\\/\"",
                                 "1e400",
                                 "-9223372036854775809",
                                 "{\"\":0}"};
  size_t i;
  for (i = 0; i < sizeof(azText) / sizeof(azText[0]); i++) {
    const char *zOut = jsonRoundTrip(azText[i]);
    int bStrict = nosqlJsonStrict(azText[i], (int)strlen(azText[i]));
    CHECK_INT(strcmp(zOut, "ERROR") != 0, bStrict);
    if ((strcmp(zOut, "ERROR") != 0) != bStrict) printf("  text: %s\n", azText[i]);
  }
}

/* The writer: compact, every token as written; white space inside strings kept. */
static void testWrite(void) {
  CHECK_STR(jsonRoundTrip(" { \"a\" : [ 1.50 , 1E+2 , \"x y\" ] ,\n \"caf\\u00e9\" : { } } "),
            "{\"a\":[1.50,1E+2,\"x y\"],\"caf\\u00e9\":{}}");
  CHECK_STR(jsonRoundTrip("{\"a\":1,\"a\":2}"), "{\"a\":1,\"a\":2}");
  CHECK_STR(jsonRoundTrip("12345678901234567890"), "12345678901234567890");
}

/* Nesting: 1000 arrays read and written, 1001 refused with bDeep. */
static void testDepth(void) {
  static char aText[2100];
  memset(aText, '[', 1000);
  memset(aText + 1000, ']', 1000);
  aText[2000] = 0;
  CHECK_INT(strlen(jsonRoundTrip(aText)), 2000);
  memset(aText, '[', 1001);
  memset(aText + 1001, ']', 1001);
  aText[2002] = 0;
  CHECK_STR(jsonRoundTrip(aText), "DEEP");
  aText[2001] = 0; /* Unbalanced as well as too deep: the depth is met first */
  CHECK_STR(jsonRoundTrip(aText), "DEEP");
}

/* Numbers: int64 when the integer fits, else a double. */
static void testNumbers(void) {
  static const struct {
    const char *z;
    int bInt;
    sqlite3_int64 iVal;
    double rVal;
  } aCase[] = {
      {"0", 1, 0, 0.0},
      {"-0", 1, 0, 0.0},
      {"9223372036854775807", 1, 9223372036854775807LL, 0.0},
      {"-9223372036854775808", 1, (-9223372036854775807LL - 1), 0.0},
      {"9223372036854775808", 0, 0, 9223372036854775808.0},
      {"-9223372036854775809", 0, 0, -9223372036854775808.0},
      {"99999999999999999999", 0, 0, 1e20},
      {"1.5", 0, 0, 1.5},
      {"1e400", 0, 0, 1e308 * 10},
  };
  size_t i;
  for (i = 0; i < sizeof(aCase) / sizeof(aCase[0]); i++) {
    DocJson j;
    DocNode *p = NULL;
    sqlite3_int64 iVal = -1;
    double rVal = -1;
    docJsonInit(&j, NULL, NULL);
    CHECK_INT(docJsonParse(&j, aCase[i].z, (int)strlen(aCase[i].z), 1, &p), SQLITE_OK);
    if (p) {
      CHECK_INT(docJsonNumber(&j, p, &iVal, &rVal), aCase[i].bInt);
      if (aCase[i].bInt) CHECK_INT(iVal, aCase[i].iVal);
      if (!aCase[i].bInt) CHECK(rVal == aCase[i].rVal);
    }
    docJsonClear(&j);
  }
}

/*
** Reals are read in the "C" locale: under a locale with a decimal comma,
** strtod() read "1.5" as 1, so $inc computed 1.0 from 1.5 and $pull 1
** removed 1.5. Runs only where such a locale is installed (LOCPATH may
** point at one made by localedef).
*/
static void testNumbersLocale(void) {
  static const char *azLocale[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", "ru_RU.UTF-8"};
  locale_t loc = (locale_t)0, old;
  size_t i;
  DocJson j;
  DocNode *pA = NULL, *pB = NULL;
  sqlite3_int64 iVal;
  double rVal = 0;
  for (i = 0; i < sizeof(azLocale) / sizeof(azLocale[0]) && loc == (locale_t)0; i++) {
    loc = newlocale(LC_NUMERIC_MASK, azLocale[i], (locale_t)0);
  }
  if (loc == (locale_t)0) {
    printf("  (no locale with a decimal comma installed: skipped)\n");
    return;
  }
  old = uselocale(loc);
  docJsonInit(&j, NULL, NULL);
  CHECK_INT(docJsonParse(&j, "1.5", 3, 1, &pA), SQLITE_OK);
  CHECK_INT(docJsonParse(&j, "1", 1, 1, &pB), SQLITE_OK);
  if (pA && pB) {
    CHECK_INT(docJsonNumber(&j, pA, &iVal, &rVal), 0);
    CHECK(rVal == 1.5);
    CHECK_INT(docJsonEqual(&j, pA, pB), 0);
  }
  docJsonClear(&j);
  uselocale(old);
  freelocale(loc);
}

/* Equality and hashing agree: equal pairs hash alike; unequal pairs are unequal. */
static void testEqualHash(void) {
  static const struct {
    const char *zA, *zB;
    int bEqual;
  } aCase[] = {
      {"1", "1.0", 1},
      {"1", "1e0", 1},
      {"-0.0", "0", 1},
      {"9007199254740993", "9007199254740992.0", 0},
      {"9007199254740992", "9007199254740992.0", 1},
      {"9223372036854775807", "9223372036854775808.0", 0},
      {"99999999999999999999", "1e20", 1},
      {"\"caf\\u00e9\"", "\"caf\xc3\xa9\"", 1},
      {"\"a\"", "\"b\"", 0},
      {"[1,[2,\"x\"]]", "[1.0,[2,\"\\u0078\"]]", 1},
      {"[1,2]", "[2,1]", 0},
      {"{\"a\":1,\"b\":[2]}", "{\"a\":1.0,\"b\":[2]}", 1},
      {"{\"a\":1,\"b\":2}", "{\"b\":2,\"a\":1}", 0},
      {"{\"a\":1}", "{\"a\":1,\"b\":2}", 0},
      {"{\"\\u0061\":1}", "{\"a\":1}", 1},
      {"null", "false", 0},
      {"true", "true", 1},
      {"1", "\"1\"", 0},
  };
  size_t i;
  for (i = 0; i < sizeof(aCase) / sizeof(aCase[0]); i++) {
    DocJson j;
    DocNode *pA = NULL, *pB = NULL;
    docJsonInit(&j, NULL, NULL);
    docJsonParse(&j, aCase[i].zA, (int)strlen(aCase[i].zA), 0, &pA);
    docJsonParse(&j, aCase[i].zB, (int)strlen(aCase[i].zB), 0, &pB);
    CHECK(pA && pB);
    if (pA && pB) {
      CHECK_INT(docJsonEqual(&j, pA, pB), aCase[i].bEqual);
      CHECK_INT(docJsonEqual(&j, pB, pA), aCase[i].bEqual);
      if (aCase[i].bEqual) CHECK(docJsonHash(&j, pA) == docJsonHash(&j, pB));
      /* MongoDB's order agrees with its equality. */
      CHECK_INT(docJsonCompare(&j, pA, pB) == 0, aCase[i].bEqual);
      if (docJsonEqual(&j, pA, pB) != aCase[i].bEqual) printf("  %s vs %s\n", aCase[i].zA, aCase[i].zB);
    }
    docJsonClear(&j);
  }
}

/* docJsonCompare: MongoDB's comparison order across types, exact on numbers, antisymmetric. */
static void testCompare(void) {
  static const char *azAsc[] = {
      /* Each is smaller than the next. */
      "null",
      "-1e999",
      "-9223372036854775808",
      "-1",
      "-0.5",
      "0",
      "9007199254740992",
      "9007199254740993",
      "9007199254740994.0",
      "9223372036854775807",
      "9223372036854775808.0",
      "1e999",
      "\"\"",
      "\"A\"",
      "\"a\"",
      "\"ab\"",
      "\"caf\\u00e9\"",
      "\"z\"",
      "{}",
      "{\"b\":null}",
      "{\"a\":1}",
      "{\"a\":1,\"b\":0}",
      "{\"b\":1}",
      "{\"a\":\"0\"}",
      "{\"a\":[]}",
      "[]",
      "[null]",
      "[1]",
      "[1,2]",
      "[\"0\"]",
      "[[0]]",
      "false",
      "true",
  };
  int n = (int)(sizeof(azAsc) / sizeof(azAsc[0])), i, k;
  DocJson j;
  DocNode *apNode[64];
  docJsonInit(&j, NULL, NULL);
  for (i = 0; i < n; i++) {
    apNode[i] = NULL;
    CHECK_INT(docJsonParse(&j, azAsc[i], (int)strlen(azAsc[i]), 0, &apNode[i]), SQLITE_OK);
  }
  for (i = 0; i < n; i++) {
    for (k = 0; k < n && apNode[i] && apNode[k]; k++) {
      int c = docJsonCompare(&j, apNode[i], apNode[k]), cWant = i < k ? -1 : i > k;
      CHECK_INT(c, cWant);
      if (c != cWant) printf("  %s vs %s\n", azAsc[i], azAsc[k]);
    }
  }
  docJsonClear(&j);
}

/* Values that differ only deep down hash apart (they hashed alike below 32 levels: $addToSet was quadratic).
 */
static void testHashDeep(void) {
  char aA[2100], aB[2100];
  int n;
  for (n = 40; n <= 990; n += 950) {
    DocJson j;
    DocNode *pA = NULL, *pB = NULL;
    memset(aA, '[', (size_t)n);
    aA[n] = '1';
    memset(&aA[n + 1], ']', (size_t)n);
    aA[2 * n + 1] = 0;
    memcpy(aB, aA, (size_t)(2 * n + 2));
    aB[n] = '2';
    docJsonInit(&j, NULL, NULL);
    CHECK_INT(docJsonParse(&j, aA, (int)strlen(aA), 0, &pA), SQLITE_OK);
    CHECK_INT(docJsonParse(&j, aB, (int)strlen(aB), 0, &pB), SQLITE_OK);
    if (pA && pB) {
      CHECK_INT(docJsonEqual(&j, pA, pB), 0);
      CHECK(docJsonHash(&j, pA) != docJsonHash(&j, pB));
    }
    docJsonClear(&j);
  }
}

/*
** The low bits of hashes differ for numbers that differ only in high bits
** (multiples of 65536, halves): callers mask them, and $addToSet's hash set
** was quadratic on such values.
*/
static void testHashSpread(void) {
  static const char *azFmt[] = {"%d", "%d.5", "%d0000000"};
  size_t f;
  for (f = 0; f < sizeof(azFmt) / sizeof(azFmt[0]); f++) {
    static unsigned char aSeen[1024];
    DocJson j;
    int i, nDistinct = 0;
    memset(aSeen, 0, sizeof(aSeen));
    docJsonInit(&j, NULL, NULL);
    for (i = 1; i <= 512; i++) {
      char aText[32];
      DocNode *p = NULL;
      snprintf(aText, sizeof(aText), azFmt[f], f == 0 ? i * 65536 : i);
      if (docJsonParse(&j, aText, (int)strlen(aText), 1, &p) == SQLITE_OK) {
        unsigned h = (unsigned)(docJsonHash(&j, p) & 1023);
        nDistinct += !aSeen[h];
        aSeen[h] = 1;
      }
    }
    /* 512 random values in 1024 buckets: about 400 distinct. */
    CHECK(nDistinct > 300);
    if (nDistinct <= 300) printf("  %s: %d distinct low bits\n", azFmt[f], nDistinct);
    docJsonClear(&j);
  }
}

/* Objects: decoded lookups, duplicates, removals and appends, small and hashed. */
static void testObjects(void) {
  int nMember;
  for (nMember = 2; nMember <= 40; nMember += 19) {
    DocJson j;
    DocNode *pObj = NULL, *pVal;
    NosqlBuffer text = {0, 0, 0}, out = {0, 0, 0};
    int rc = SQLITE_OK, i, nKey = 0;
    const char *zKey;
    docJsonInit(&j, NULL, NULL);
    nosqlBufferAppend(&rc, &text, "{\"caf\\u00e9\":0", -1);
    for (i = 1; i < nMember; i++) nosqlBufferAppendf(&rc, &text, ",\"k%d\":%d", i, i);
    nosqlBufferAppend(&rc, &text, ",\"k1\":99,\"caf\xc3\xa9\":98}", -1);
    CHECK_INT(docJsonParse(&j, (const char *)text.a, (int)text.n, 1, &pObj), SQLITE_OK);
    if (pObj == NULL) {
      docJsonClear(&j);
      nosqlBufferFree(&text);
      continue;
    }
    CHECK_INT(docJsonObjFind(&j, pObj, "caf\xc3\xa9", 5), 0);
    CHECK_INT(docJsonObjFind(&j, pObj, "k1", 2), 1);
    CHECK_INT(docJsonObjFind(&j, pObj, "nope", 4), -1);
    CHECK_INT(pObj->bUnique, 0);
    docJsonObjUnique(&j, pObj);
    CHECK_INT(pObj->bUnique, 1);
    CHECK(pObj->u.c.aMember[nMember].pVal == NULL);     /* The second k1 */
    CHECK(pObj->u.c.aMember[nMember + 1].pVal == NULL); /* The second café */
    /* Remove k1, append it again: found at its new place. */
    pObj->u.c.aMember[1].pVal = NULL;
    CHECK_INT(docJsonObjFind(&j, pObj, "k1", 2), -1);
    pVal = docJsonNew(&j, DOCJ_TRUE);
    zKey = docJsonQuote(&j, "k1", 2, &nKey);
    CHECK(pVal && zKey);
    if (pVal && zKey) docJsonObjAppend(&j, pObj, zKey, nKey, "k1", 2, pVal);
    CHECK_INT(docJsonObjFind(&j, pObj, "k1", 2), nMember + 2);
    /* Many appends: the index grows. */
    for (i = 0; i < 50 && j.rc == SQLITE_OK; i++) {
      char zName[16];
      int nName = snprintf(zName, sizeof(zName), "n%d", i);
      const char *zName2 = (const char *)docJsonAlloc(&j, nName);
      if (zName2) memcpy((char *)zName2, zName, (size_t)nName);
      zKey = docJsonQuote(&j, zName, nName, &nKey);
      if (zKey && zName2) docJsonObjAppend(&j, pObj, zKey, nKey, zName2, nName, docJsonNew(&j, DOCJ_NULL));
    }
    CHECK_INT(j.rc, SQLITE_OK);
    CHECK_INT(docJsonObjFind(&j, pObj, "n49", 3), nMember + 52);
    CHECK_INT(docJsonObjFind(&j, pObj, "k2", 2), nMember > 2 ? 2 : -1);
    CHECK_INT(docJsonWrite(&j, pObj, &out, 1000000), SQLITE_OK);
    CHECK(out.a && strstr((const char *)out.a, "\"k1\":99") == NULL);
    CHECK(out.a && strstr((const char *)out.a, "\"k1\":true,\"n0\":null") != NULL);
    CHECK_INT(docJsonWrite(&j, pObj, &out, 10), SQLITE_TOOBIG);
    nosqlBufferFree(&out);
    nosqlBufferFree(&text);
    docJsonClear(&j);
  }
}

/* The tick: called every 4096 units; its code stops the parse. */
static int nTickCalls;
static int jsonTickStop(void *pArg) {
  (void)pArg;
  nTickCalls++;
  return SQLITE_INTERRUPT;
}

static void testTick(void) {
  DocJson j;
  DocNode *pRoot = NULL;
  NosqlBuffer text = {0, 0, 0};
  int rc = SQLITE_OK, i;
  nosqlBufferAppend(&rc, &text, "[0", -1);
  for (i = 1; i < 10000; i++) nosqlBufferAppend(&rc, &text, ",0", 2);
  nosqlBufferAppend(&rc, &text, "]", 1);
  docJsonInit(&j, jsonTickStop, NULL);
  CHECK_INT(docJsonParse(&j, (const char *)text.a, (int)text.n, 0, &pRoot), SQLITE_INTERRUPT);
  CHECK_INT(nTickCalls, 1);
  CHECK(pRoot == NULL);
  docJsonClear(&j);
  nosqlBufferFree(&text);
}

/* Path parts that name an array element: the element's name as BSON writes it, nothing else. */
static void testArrayIndex(void) {
  static const struct {
    const char *z; /* The part */
    int iIdx;      /* docJsonArrayIndex() */
  } aCase[] = {{"0", 0},           {"1", 1},   {"12", 12},       {"999999999", 999999999},
               {"1000000000", -1}, {"01", -1}, {"00", -1},       {"", -1},
               {"+1", -1},         {"-1", -1}, {"1a", -1},       {" 1", -1},
               {"1.", -1},         {"a", -1},  {"\xd9\xa1", -1}, {"0000000001", -1}};
  int i;
  for (i = 0; i < (int)(sizeof(aCase) / sizeof(aCase[0])); i++) {
    CHECK_INT(docJsonArrayIndex(aCase[i].z, (int)strlen(aCase[i].z)), aCase[i].iIdx);
  }
  /* Only the n bytes given count. */
  CHECK_INT(docJsonArrayIndex("12", 1), 1);
  CHECK_INT(docJsonArrayIndex("0x", 1), 0);
}

int main(void) {
  unitApiInit();
  RUN(testParseStrict);
  RUN(testWrite);
  RUN(testDepth);
  RUN(testNumbers);
  RUN(testNumbersLocale);
  RUN(testEqualHash);
  RUN(testHashDeep);
  RUN(testCompare);
  RUN(testHashSpread);
  RUN(testObjects);
  RUN(testTick);
  RUN(testArrayIndex);
  return unitReport();
}
