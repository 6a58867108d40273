/*
** test_doc_match.c: unit tests of ext/doc_match.c's C interface, the one
** doc_update's $pull and array filters call: compiling from a node and from
** text, the three $pull forms, matching trees of other arenas (a compiled
** filter never writes to itself), docFilterMatchAs() for array filters, and
** the messages of compile and match errors.
*/
#include <stdlib.h>

#include "nosqlInt.h"
#include "unit.h"

void unitApiInit(void);

/* Parse z into arena pJ (z must outlive it); NULL on error. */
static DocNode *parse(DocJson *pJ, const char *z) {
  DocNode *p = NULL;
  return docJsonParse(pJ, z, (int)strlen(z), 0, &p) == SQLITE_OK ? p : NULL;
}

/* Whether document zDoc matches filter text zFilter: 1, 0, or -1 on an error (message in *pzErr). */
static int matchText(const char *zDoc, const char *zFilter, char **pzErr) {
  DocFilter *pF = NULL;
  DocJson j;
  DocNode *pDoc;
  int rc, bMatch = 0;
  *pzErr = NULL;
  rc = docFilterCompileText(zFilter, (int)strlen(zFilter), &pF, pzErr);
  if (rc != SQLITE_OK) return -1;
  docJsonInit(&j, NULL, NULL);
  pDoc = parse(&j, zDoc);
  rc = pDoc ? docFilterMatch(pF, &j, pDoc, &bMatch, pzErr) : SQLITE_ERROR;
  docJsonClear(&j);
  docFilterFree(pF);
  return rc == SQLITE_OK ? bMatch : -1;
}

static void testText(void) {
  char *zErr = NULL;
  CHECK_INT(matchText("{\"a\":[1,5]}", "{\"a\":{\"$gt\":4}}", &zErr), 1);
  CHECK_INT(matchText("{\"a\":\"x\"}", "{\"a\":{\"$gt\":4}}", &zErr), 0);
  CHECK_INT(matchText("{}", "{\"a\":{\"$size\":\"x\"}}", &zErr), -1);
  CHECK_STR(zErr, "$size at 'a' needs a non-negative integer, not \"x\"");
  sqlite3_free(zErr);
  CHECK_INT(matchText("{}", "[1]", &zErr), -1);
  CHECK_STR(zErr, "the filter is not a JSON object: [1]");
  sqlite3_free(zErr);
  CHECK_INT(matchText("{\"s\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!\"}",
                      "{\"s\":{\"$regex\":\"(a+)+$\"}}", &zErr),
            -1);
  CHECK_STR(zErr, "$regex at 's': pattern '(a+)+$' hit PCRE2's match limit");
  sqlite3_free(zErr);
}

/* One filter, trees of two arenas freed in between: the filter stays valid (strings decoded at compile). */
static void testArenas(void) {
  static const char *azDoc[] = {"{\"k\":\"caf\\u00e9\"}", "{\"k\":\"cafe\"}",
                                "{\"k\":[\"x\",\"caf\\u00e9\"]}"};
  DocFilter *pF = NULL;
  char *zErr = NULL;
  int i, bMatch;
  const char *zFilter = "{\"k\":{\"$in\":[\"caf\\u00e9\",\"z\\u0000\"]}}";
  CHECK_INT(docFilterCompileText(zFilter, (int)strlen(zFilter), &pF, &zErr), SQLITE_OK);
  for (i = 0; i < 3 && pF; i++) {
    DocJson j;
    DocNode *pDoc;
    docJsonInit(&j, NULL, NULL);
    pDoc = parse(&j, azDoc[i]);
    bMatch = -1;
    CHECK_INT(docFilterMatch(pF, &j, pDoc, &bMatch, &zErr), SQLITE_OK);
    CHECK_INT(bMatch, i != 1);
    docJsonClear(&j);
  }
  docFilterFree(pF);
  docFilterFree(NULL);
}

/* $pull's three forms, compiled from nodes of the update's arena. */
static void testPull(void) {
  static const struct {
    const char *zCond; /* The $pull value */
    const char *zElem; /* An element */
    int bMatch;        /* Whether it is pulled */
  } aCase[] = {{"5", "5.0", 1},
               {"5", "[5]", 0},
               {"{\"a\":1}", "{\"a\":1,\"b\":2}", 1},
               {"{\"a\":1}", "[{\"a\":1}]", 0},
               {"{\"$gte\":6}", "7", 1},
               {"{\"$gte\":6}", "[7]", 0},
               {"{\"$elemMatch\":{\"a\":1}}", "[{\"a\":1}]", 1},
               {"{\"$or\":[{\"a\":1},{\"b\":1}]}", "{\"b\":1}", 1},
               {"{}", "{\"x\":0}", 1},
               {"{}", "3", 0}};
  int i;
  for (i = 0; i < (int)(sizeof(aCase) / sizeof(aCase[0])); i++) {
    DocJson j;
    DocFilter *pF = NULL;
    char *zErr = NULL;
    int bMatch = -1;
    docJsonInit(&j, NULL, NULL);
    CHECK_INT(docFilterCompile(&j, parse(&j, aCase[i].zCond), DOC_FILTER_PULL, "arr", &pF, &zErr), SQLITE_OK);
    CHECK_INT(docFilterMatch(pF, &j, parse(&j, aCase[i].zElem), &bMatch, &zErr), SQLITE_OK);
    if (bMatch != aCase[i].bMatch) printf("  case %d: %s on %s\n", i, aCase[i].zCond, aCase[i].zElem);
    CHECK_INT(bMatch, aCase[i].bMatch);
    docFilterFree(pF);
    docJsonClear(&j);
  }
  {
    DocJson j;
    DocFilter *pF = NULL;
    char *zErr = NULL;
    docJsonInit(&j, NULL, NULL);
    CHECK_INT(
        docFilterCompile(&j, parse(&j, "{\"q\":{\"$mod\":[0,1]}}"), DOC_FILTER_PULL, "items", &pF, &zErr),
        SQLITE_ERROR);
    CHECK(pF == NULL);
    CHECK_STR(zErr, "$mod at 'items.q': the divisor cannot be 0: 0");
    sqlite3_free(zErr);
    docJsonClear(&j);
  }
}

/* Array filters: {"x.grade": {"$gte": 85}} and {"x": {"$gt": 2}} on elements named x. */
static void testMatchAs(void) {
  DocJson j;
  DocFilter *pF = NULL, *pG = NULL;
  DocNode *pArr;
  char *zErr = NULL;
  int i, aMatch[4] = {-1, -1, -1, -1}, aScalar[4] = {-1, -1, -1, -1};
  docJsonInit(&j, NULL, NULL);
  pArr = parse(&j, "[{\"grade\":80},{\"grade\":90},3,{\"grade\":[70,95]}]");
  CHECK_INT(docFilterCompile(&j, parse(&j, "{\"x.grade\":{\"$gte\":85}}"), DOC_FILTER_QUERY, "", &pF, &zErr),
            SQLITE_OK);
  CHECK_INT(docFilterCompile(&j, parse(&j, "{\"x\":{\"$gt\":2}}"), DOC_FILTER_QUERY, "", &pG, &zErr),
            SQLITE_OK);
  for (i = 0; i < 4 && pArr && pF && pG; i++) {
    CHECK_INT(docFilterMatchAs(pF, &j, "x", 1, pArr->u.c.apElem[i], &aMatch[i], &zErr), SQLITE_OK);
    CHECK_INT(docFilterMatchAs(pG, &j, "x", 1, pArr->u.c.apElem[i], &aScalar[i], &zErr), SQLITE_OK);
  }
  CHECK(aMatch[0] == 0 && aMatch[1] == 1 && aMatch[2] == 0 && aMatch[3] == 1);
  CHECK(aScalar[0] == 0 && aScalar[1] == 0 && aScalar[2] == 1 && aScalar[3] == 0);
  docFilterFree(pF);
  docFilterFree(pG);
  docJsonClear(&j);
}

/* docJsonReset(): trees parsed one after another in one arena, a failed parse included. */
static void testReset(void) {
  DocJson j;
  DocNode *pRoot = NULL;
  NosqlBuffer big = {0, 0, 0};
  int rc = SQLITE_OK, i, n;
  nosqlBufferAppend(&rc, &big, "[\"x\"", -1);
  for (i = 0; i < 50000; i++) nosqlBufferAppend(&rc, &big, ",{\"a\":[1,2.5,\"s\"]}", -1);
  nosqlBufferAppend(&rc, &big, "]", 1);
  docJsonInit(&j, NULL, NULL);
  for (i = 0; i < 3; i++) {
    CHECK_INT(docJsonParse(&j, (const char *)big.a, (int)big.n, 0, &pRoot), SQLITE_OK);
    CHECK_INT(pRoot ? pRoot->u.c.nItem : -1, 50001);
    docJsonReset(&j);
    CHECK_INT(docJsonParse(&j, "{\"k\":\"v\\u00e9\"}", 15, 0, &pRoot), SQLITE_OK);
    {
      char aText[16];
      const char *z = pRoot ? docJsonText(&j, pRoot->u.c.aMember[0].pVal, &n) : NULL;
      snprintf(aText, sizeof(aText), "%.*s", z ? n : 0, z ? z : "");
      CHECK_STR(aText, "v\xc3\xa9");
    }
    docJsonReset(&j);
    CHECK_INT(docJsonParse(&j, "{\"k\":", 5, 0, &pRoot), SQLITE_ERROR);
    docJsonReset(&j);
    CHECK_INT(j.rc, SQLITE_OK);
  }
  docJsonClear(&j);
  nosqlBufferFree(&big);
}

int main(void) {
  unitApiInit();
  RUN(testText);
  RUN(testArenas);
  RUN(testPull);
  RUN(testMatchAs);
  RUN(testReset);
  return unitReport();
}
