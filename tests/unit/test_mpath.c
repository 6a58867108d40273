/*
** test_mpath.c: unit tests of the pure core of ext/mpath.c: splitting
** paths, compiling and matching lqueries and ltxtqueries, and the
** position arithmetic of subpath, subltree, index and lca.
*/
#include <stdlib.h>

#include "nosqlTest.h"
#include "unit.h"

void unitApiInit(void);

/* Split z with separator '.' into a static array; returns the label count or -1. */
static int split(const char *z, MpathLabel *a, int nA, char *zErr) {
  return mpathSplit(z, (int)strlen(z), '.', a, nA, zErr, 160);
}

/* mpath_match(zPath, zPat) with separator sep, or -1 when either is malformed. */
static int match(const char *zPath, const char *zPat, char sep) {
  MpathLabel a[64];
  int aWork[3 * 66];
  char zErr[160];
  void *pBuf = malloc((size_t)mpathLquerySize((int)strlen(zPat)));
  MpathQuery *q;
  int nLabel, rc = -1;
  if (pBuf == NULL) return -1;
  q = mpathLqueryCompile(zPat, (int)strlen(zPat), sep, pBuf, zErr, sizeof(zErr));
  nLabel = mpathSplit(zPath, (int)strlen(zPath), sep, a, 64, zErr, sizeof(zErr));
  if (q && nLabel >= 0 && nLabel <= 64) rc = mpathLqueryMatch(q, zPath, a, nLabel, aWork);
  free(pBuf);
  return rc;
}

/* The error message of compiling lquery zPat (static buffer), or "" when it compiles. */
static const char *lqueryError(const char *zPat) {
  static char zErr[160];
  void *pBuf = malloc((size_t)mpathLquerySize((int)strlen(zPat)));
  zErr[0] = 0;
  if (pBuf && mpathLqueryCompile(zPat, (int)strlen(zPat), '.', pBuf, zErr, sizeof(zErr)) != NULL) zErr[0] = 0;
  free(pBuf);
  return zErr;
}

/* mpath_txtmatch(zPath, zQuery), or -1 when malformed. */
static int txtmatch(const char *zPath, const char *zQuery) {
  MpathLabel a[64];
  char zErr[160];
  void *pBuf = malloc((size_t)mpathTxtSize((int)strlen(zQuery)));
  MpathTxtQuery *q;
  int nLabel, rc = -1;
  if (pBuf == NULL) return -1;
  q = mpathTxtCompile(zQuery, (int)strlen(zQuery), '.', pBuf, zErr, sizeof(zErr));
  nLabel = split(zPath, a, 64, zErr);
  if (q && nLabel >= 0) rc = mpathTxtMatch(q, zPath, a, nLabel);
  free(pBuf);
  return rc;
}

static void testSplit(void) {
  MpathLabel a[4];
  char zErr[160];
  CHECK_INT(split("", a, 4, zErr), 0);
  CHECK_INT(split("Top.Science.Astronomy", a, 4, zErr), 3);
  CHECK_INT(a[1].iOff, 4);
  CHECK_INT(a[1].n, 7);
  /* More labels than the array holds: the count, so the caller can grow it. */
  CHECK_INT(split("a.b.c.d.e.f", a, 4, zErr), 6);
  CHECK_INT(split("a..b", a, 4, zErr), -1);
  CHECK_STR(zErr, "path syntax error at character 3");
  CHECK_INT(split("a.", a, 4, zErr), -1);
  CHECK_STR(zErr, "path syntax error at end of input");
  CHECK_INT(split("é.!", a, 4, zErr), -1);
  CHECK_STR(zErr, "path syntax error at character 3");
  CHECK_INT(split("fr-FR.Москва", a, 4, zErr), 2);
  CHECK_INT(mpathSplit("a.b/c", 5, '/', a, 4, zErr, 160), 2);
  CHECK(mpathSepValid('/'));
  CHECK(mpathSepValid('.'));
  CHECK(!mpathSepValid('*'));
  CHECK(!mpathSepValid('-'));
  CHECK(!mpathSepValid('a'));
  CHECK(!mpathSepValid(' '));
}

static void testMatch(void) {
  CHECK_INT(match("a.b.c", "*.b.*", '.'), 1);
  CHECK_INT(match("a.b.c", "*{2}", '.'), 0);
  CHECK_INT(match("a.b.c", "*{2}.c", '.'), 1);
  CHECK_INT(match("", "*", '.'), 1);
  CHECK_INT(match("", "a{0}", '.'), 1);
  CHECK_INT(match("a.a.a", "a|x{1,3}", '.'), 1);
  CHECK_INT(match("a.b.c", "a|x{1,3}", '.'), 0);
  CHECK_INT(match("a.b.c.d", "!c{2}.*", '.'), 1);
  CHECK_INT(match("FOObar", "foo@*", '.'), 1);
  CHECK_INT(match("foo__bar", "foo_bar%", '.'), 1);
  CHECK_INT(match("foo_bar_baz", "_%", '.'), 1);
  CHECK_INT(match("x/a.b/y", "*/a.b/*", '/'), 1);
  CHECK_INT(match("x/a.b/y", "*/a/*", '/'), 0);
}

static void testLqueryErrors(void) {
  CHECK_STR(lqueryError("a.b"), "");
  CHECK_STR(lqueryError(""), "lquery syntax error at end of input");
  CHECK_STR(lqueryError("a..b"), "lquery syntax error at character 3");
  CHECK_STR(lqueryError("!"), "lquery syntax error at character 2: empty label");
  CHECK_STR(lqueryError("!%2*"), "lquery syntax error at character 3");
  CHECK_STR(lqueryError("a{2,1}"), "lquery low limit (2) is greater than high limit (1) at character 5");
  CHECK_STR(lqueryError("*{,70000}"),
            "lquery high limit (70000) exceeds the maximum allowed (65535) at character 4");
  CHECK_STR(lqueryError("a{99999999999}"),
            "lquery low limit (1000000000) exceeds the maximum allowed (65535) at character 3");
}

static void testPrefix(void) {
  char zErr[160];
  void *pBuf = malloc((size_t)mpathLquerySize(32));
  MpathQuery *q;
  q = mpathLqueryCompile("Top.Science.*.x", 15, '.', pBuf, zErr, sizeof(zErr));
  CHECK(q != NULL);
  if (q) CHECK_INT(mpathLqueryPrefix(q), 11);
  q = mpathLqueryCompile("a{1}.b", 6, '.', pBuf, zErr, sizeof(zErr));
  if (q) CHECK_INT(mpathLqueryPrefix(q), 0);
  q = mpathLqueryCompile("a.b@", 4, '.', pBuf, zErr, sizeof(zErr));
  if (q) CHECK_INT(mpathLqueryPrefix(q), 1);
  free(pBuf);
}

static void testTxt(void) {
  CHECK_INT(txtmatch("a.b", "a & !c"), 1);
  CHECK_INT(txtmatch("a.b", "!!a"), 1);
  CHECK_INT(txtmatch("x", "x | a & b"), 1);
  CHECK_INT(txtmatch("x", "(x | a) & b"), 0);
  CHECK_INT(txtmatch("a", "!a & b | a"), 1);
  CHECK_INT(txtmatch("a", "a &"), -1);
  CHECK_INT(txtmatch("a", "((a)"), -1);
}

static void testPositions(void) {
  int64_t s = -1, e = -1;
  CHECK(mpathSubpathRange(3, -5, 0, 0, &s, &e));
  CHECK_INT(s, 1);
  CHECK_INT(e, 3);
  CHECK(!mpathSubpathRange(3, -7, 0, 0, &s, &e));
  CHECK(mpathSubpathRange(3, 0, -1, 1, &s, &e));
  CHECK_INT(e, 2);
  CHECK(!mpathSubpathRange(0, 0, 0, 0, &s, &e));
  CHECK(mpathSubltreeRange(3, 2, 9, &s, &e));
  CHECK_INT(e, 3);
  CHECK(!mpathSubltreeRange(3, 3, 3, &s, &e));
}

static void testIndexLca(void) {
  MpathLabel a[16], b[16];
  char zErr[160];
  const char *zA = "0.1.2.3.5.4.5.6.8.5.6.8", *zB = "5.6";
  int nA = split(zA, a, 16, zErr), nB = split(zB, b, 16, zErr);
  CHECK_INT(mpathIndex(zA, a, nA, zB, b, nB, 0), 6);
  CHECK_INT(mpathIndex(zA, a, nA, zB, b, nB, 7), 9);
  CHECK_INT(mpathIndex(zA, a, nA, zB, b, nB, -3), 9);
  CHECK_INT(mpathIndex(zA, a, nA, zB, b, nB, -2), -1);
  CHECK_INT(mpathIndex(zA, a, nA, zB, b, nB, -20000), 6);
  zA = "1.2.3";
  zB = "1.2.3.4.5.6";
  nA = split(zA, a, 16, zErr);
  nB = split(zB, b, 16, zErr);
  CHECK_INT(mpathLcaStep(zA, a, zB, b, nB, nA - 1), 2);
  CHECK_INT(mpathLcaStep(zA, a, zA, a, nA, nA - 1), 2);
  CHECK(mpathIsAncestor(zA, a, nA, zB, b, nB));
  CHECK(!mpathIsAncestor(zB, b, nB, zA, a, nA));
}

/* Deterministic pseudo-random numbers for the cross-check. */
static unsigned int mpathTestRand(unsigned int *pSeed) {
  *pSeed = *pSeed * 1103515245u + 12345u;
  return (*pSeed >> 8) & 0xffffff;
}

/*
** The two matching programs (bit sets up to 62 labels, the dynamic program
** for any length) agree on random patterns and paths.
*/
static void testBitsVersusDp(void) {
  static const char *azLabel[] = {"a", "b", "ab", "A", "a_b", "b_a"};
  static const char *azItem[] = {"*",  "*{2}", "*{1,}", "*{,2}", "a",       "b|a_b",   "!a",
                                 "a@", "a*",   "b_a%",  "a{2}",  "!b{1,3}", "a|b{,2}", "A@*"};
  unsigned int seed = 42;
  int iCase, nDiff = 0, nMatch = 0;
  int aWork[3 * 66];
  for (iCase = 0; iCase < 20000; iCase++) {
    char zPath[256], zPat[256];
    MpathLabel a[64];
    char zErr[160];
    void *pBuf;
    MpathQuery *q;
    int nPath = 0, nPat = 0, i, nLabel;
    int nL = (int)(mpathTestRand(&seed) % 12), nI = 1 + (int)(mpathTestRand(&seed) % 4);
    for (i = 0; i < nL; i++) {
      nPath += snprintf(&zPath[nPath], sizeof(zPath) - (size_t)nPath, "%s%s", i ? "." : "",
                        azLabel[mpathTestRand(&seed) % 6]);
    }
    zPath[nPath] = 0;
    for (i = 0; i < nI; i++) {
      nPat += snprintf(&zPat[nPat], sizeof(zPat) - (size_t)nPat, "%s%s", i ? "." : "",
                       azItem[mpathTestRand(&seed) % 14]);
    }
    pBuf = malloc((size_t)mpathLquerySize(nPat));
    if (pBuf == NULL) return;
    q = mpathLqueryCompile(zPat, nPat, '.', pBuf, zErr, sizeof(zErr));
    nLabel = mpathSplit(zPath, nPath, '.', a, 64, zErr, sizeof(zErr));
    if (q && nLabel >= 0) {
      int b1 = mpathLqueryMatchBits(q, zPath, a, nLabel);
      int b2 = mpathLqueryMatchDp(q, zPath, a, nLabel, aWork);
      if (b1 != b2 && nDiff++ < 5) printf("bits %d dp %d for '%s' ~ '%s'\n", b1, b2, zPath, zPat);
      nMatch += b1;
    }
    free(pBuf);
  }
  CHECK_INT(nDiff, 0);
  CHECK(nMatch > 1000);
}

/*
** Random byte strings from the languages' alphabet (and a few others) as
** lquery, ltxtquery and path: compiling never reads or writes out of
** bounds (the sanitizer build checks), and what compiles matches the same
** way with both programs.
*/
static void testFuzz(void) {
  static const char zAlpha[] = "ab_.*{},|!@%0129&()- /\xc3\xa9";
  unsigned int seed = 7;
  int iCase, nDiff = 0, nCompiled = 0;
  int aWork[3 * 66];
  for (iCase = 0; iCase < 30000; iCase++) {
    char z[24];
    char zErr[160];
    int n = (int)(mpathTestRand(&seed) % 16), i;
    void *pBuf;
    for (i = 0; i < n; i++) z[i] = zAlpha[mpathTestRand(&seed) % (sizeof(zAlpha) - 1)];
    z[n] = 0;
    pBuf = malloc((size_t)(mpathLquerySize(n) > mpathTxtSize(n) ? mpathLquerySize(n) : mpathTxtSize(n)));
    if (pBuf == NULL) return;
    {
      MpathQuery *q = mpathLqueryCompile(z, n, '.', pBuf, zErr, sizeof(zErr));
      if (q) {
        static const char *azPath[] = {"", "a", "a.b", "ab_a.b.a.a", "a.a.a.a.a.a.b"};
        for (i = 0; i < 5; i++) {
          MpathLabel a[16];
          int nLabel = mpathSplit(azPath[i], (int)strlen(azPath[i]), '.', a, 16, zErr, sizeof(zErr));
          int b1 = mpathLqueryMatchBits(q, azPath[i], a, nLabel);
          int b2 = mpathLqueryMatchDp(q, azPath[i], a, nLabel, aWork);
          if (b1 != b2) nDiff++;
        }
        nCompiled++;
      }
    }
    if (mpathTxtCompile(z, n, '.', pBuf, zErr, sizeof(zErr))) nCompiled++;
    {
      MpathLabel a[16];
      mpathSplit(z, n, '.', a, 16, zErr, sizeof(zErr));
      mpathSplit(z, n, '/', a, 16, zErr, sizeof(zErr));
    }
    free(pBuf);
  }
  CHECK_INT(nDiff, 0);
  CHECK(nCompiled > 100);
}

int main(void) {
  unitApiInit();
  RUN(testSplit);
  RUN(testMatch);
  RUN(testBitsVersusDp);
  RUN(testFuzz);
  RUN(testLqueryErrors);
  RUN(testPrefix);
  RUN(testTxt);
  RUN(testPositions);
  RUN(testIndexLca);
  return unitReport();
}
