/*
** test_ii_range.c: unit tests of the RANGE fields' pure core
** (ext/inverted_index_range.c) and of the range syntax of the query
** parser (ext/inverted_index_core.c): the key's order against the
** numbers' (negatives, reals, subnormals, +-Inf, -0.0, integers past
** 2^53), the bit-sliced selection and the buckets against brute force
** over random values, missing values and candidate sets, and every
** parse error.
*/
#include <roaring/roaring.h>
#include <math.h>
#include <stdlib.h>

#include "nosql.h"

#include "nosqlTest.h"
#include "unit.h"

void unitApiInit(void);

/* A random double of every kind: small integers, prices, huge, tiny, subnormal, signed zeros, infinities. */
static double unitValue(uint64_t *pSeed) {
  uint64_t r = unitRand(pSeed);
  double d;
  switch (r % 10) {
    case 0:
      return (double)(int)(unitRand(pSeed) % 41) - 20.0;
    case 1:
      return (double)(unitRand(pSeed) % 100000) / 100.0;
    case 2:
      return -(double)(unitRand(pSeed) % 100000) / 100.0;
    case 3:
      return (r & 16) ? 0.0 : -0.0;
    case 4: {
      static const double aEdge[] = {1.0 / 0.0,
                                     -1.0 / 0.0,
                                     1.7976931348623157e308,
                                     -1.7976931348623157e308,
                                     4.9e-324,
                                     -4.9e-324,
                                     2.2250738585072014e-308,
                                     9007199254740992.0,
                                     -9007199254740992.0,
                                     9007199254740994.0,
                                     1e300,
                                     -1e-300};
      return aEdge[unitRand(pSeed) % (sizeof(aEdge) / sizeof(aEdge[0]))];
    }
    default: {
      uint64_t u = unitRand(pSeed);
      memcpy(&d, &u, 8);
      if (d != d) d = 1.5; /* NaN never reaches a RANGE field */
      return d;
    }
  }
}

/* The key orders doubles as the numbers, -0.0 equal to 0.0, and maps back. */
static void testKeyOrder(void) {
  uint64_t seed = 7;
  int i, nBad = 0;
  for (i = 0; i < 200000; i++) {
    double a = unitValue(&seed), b = unitValue(&seed);
    uint64_t ka = iiRangeKey(a), kb = iiRangeKey(b);
    if ((a < b) != (ka < kb) || (a == b) != (ka == kb)) nBad++;
    if (iiRangeKeyValue(ka) != a) nBad++;
  }
  CHECK_INT(nBad, 0);
  CHECK(iiRangeKey(-0.0) == iiRangeKey(0.0));
  CHECK(iiRangeKey(-1.0 / 0.0) > 0 && iiRangeKey(1.0 / 0.0) < UINT64_MAX);
  CHECK(iiRangeIntOk(9007199254740992ll) && iiRangeIntOk(-9007199254740992ll));
  CHECK(!iiRangeIntOk(9007199254740993ll) && !iiRangeIntOk(-9007199254740993ll));
}

/* Exact comparison of a double and an integer (long double holds both on the test machines). */
static int unitCmp(double d, long long i) {
  long double x = (long double)d, y = (long double)i;
  return x < y ? -1 : x > y;
}

/* Bounds from text, integers past 2^53 included, compare as SQLite compares. */
static void testBounds(void) {
  static const long long aInt[] = {9007199254740993ll,
                                   9007199254740995ll,
                                   -9007199254740993ll,
                                   9223372036854775807ll,
                                   -9223372036854775807ll - 1,
                                   18014398509481985ll,
                                   0,
                                   5,
                                   -5,
                                   9007199254740992ll};
  uint64_t seed = 11, k;
  int iB, i, nBad = 0, nSeen = 0;
  for (iB = 0; iB < (int)(sizeof(aInt) / sizeof(aInt[0])); iB++) {
    char zB[32];
    long long b = aInt[iB];
    snprintf(zB, sizeof(zB), "%lld", b);
    for (i = 0; i < 20000; i++) {
      /* Values near the bound as well as anywhere. */
      double v = (i & 1) ? unitValue(&seed) : (double)b + (double)((int)(unitRand(&seed) % 9) - 4) * 2.0;
      uint64_t kv = iiRangeKey(v);
      int c = unitCmp(v, b), op;
      for (op = II_RANGE_GE; op <= II_RANGE_LT; op++) {
        int bWant = op == II_RANGE_GE   ? c >= 0
                    : op == II_RANGE_GT ? c > 0
                    : op == II_RANGE_LE ? c <= 0
                                        : c < 0;
        int bGot;
        if (iiRangeBound(zB, (int)strlen(zB), op, &k)) {
          nBad++;
          continue;
        }
        bGot = op <= II_RANGE_GT ? kv >= k : kv <= k;
        if (bGot != bWant) nBad++;
        nSeen++;
      }
    }
  }
  CHECK_INT(nBad, 0);
  CHECK(nSeen > 0);
  /* Reals, exponents, signs; 1e999 is +Inf as in SQLite. */
  CHECK(iiRangeBound("12.5", 4, II_RANGE_GE, &k) == 0 && iiRangeKeyValue(k) == 12.5);
  CHECK(iiRangeBound("-1e3", 4, II_RANGE_LE, &k) == 0 && iiRangeKeyValue(k) == -1000.0);
  CHECK(iiRangeBound(".5", 2, II_RANGE_GE, &k) == 0 && iiRangeKeyValue(k) == 0.5);
  CHECK(iiRangeBound("+7", 2, II_RANGE_GE, &k) == 0 && iiRangeKeyValue(k) == 7.0);
  CHECK(iiRangeBound("1e999", 5, II_RANGE_GE, &k) == 0 && k == iiRangeKey(1.0 / 0.0));
  CHECK(iiRangeBound("-0", 2, II_RANGE_GE, &k) == 0 && k == iiRangeKey(0.0));
  CHECK(iiRangeBound("99999999999999999999", 20, II_RANGE_GE, &k) == 0 && iiRangeKeyValue(k) == 1e20);
  CHECK(iiRangeBound("0.1", 3, II_RANGE_GT, &k) == 0 && iiRangeKeyValue(k) > 0.1);
  CHECK(iiRangeBound("0.1", 3, II_RANGE_LT, &k) == 0 && iiRangeKeyValue(k) < 0.1);
  /* Not numbers. */
  CHECK(iiRangeBound("abc", 3, II_RANGE_GE, &k) == 1);
  CHECK(iiRangeBound("inf", 3, II_RANGE_GE, &k) == 1);
  CHECK(iiRangeBound("nan", 3, II_RANGE_GE, &k) == 1);
  CHECK(iiRangeBound("0x10", 4, II_RANGE_GE, &k) == 1);
  CHECK(iiRangeBound("1-2", 3, II_RANGE_GE, &k) == 1);
  CHECK(iiRangeBound("-", 1, II_RANGE_GE, &k) == 1);
  CHECK(iiRangeBound("1e", 2, II_RANGE_GE, &k) == 1);
  CHECK(iiRangeBound("1,5", 3, II_RANGE_GE, &k) == 1);
  CHECK(iiRangeBound("", 0, II_RANGE_GE, &k) == 1);
}

#define UNIT_NDOC 3000
static double aUnitVal[UNIT_NDOC];   /* Each document's value */
static int abUnitHas[UNIT_NDOC];     /* True if it has one */
static roaring_bitmap_t *pUnitExist; /* Documents with a value */
static roaring_bitmap_t *apUnitSlice[II_RANGE_NSLICE];
static roaring_bitmap_t *pUnitTag;   /* The term tag:x (every third document) */
static roaring_bitmap_t *pUnitEmpty; /* Any other term */

/* Random values (a fifth missing) from a small pool, so that equal values and bounds meet. */
static void unitBuild(uint64_t *pSeed) {
  double aPool[64];
  int i, b;
  uint32_t d;
  for (i = 0; i < 64; i++) aPool[i] = unitValue(pSeed);
  pUnitExist = roaring_bitmap_create();
  pUnitTag = roaring_bitmap_create();
  pUnitEmpty = roaring_bitmap_create();
  for (b = 0; b < II_RANGE_NSLICE; b++) apUnitSlice[b] = roaring_bitmap_create();
  for (d = 0; d < UNIT_NDOC; d++) {
    abUnitHas[d] = unitRand(pSeed) % 5 != 0;
    aUnitVal[d] = (unitRand(pSeed) & 1) ? aPool[unitRand(pSeed) % 64] : unitValue(pSeed);
    if (d % 3 == 0) roaring_bitmap_add(pUnitTag, d);
    if (!abUnitHas[d]) continue;
    roaring_bitmap_add(pUnitExist, d);
    for (b = 0; b < II_RANGE_NSLICE; b++) {
      if ((iiRangeKey(aUnitVal[d]) >> b) & 1) roaring_bitmap_add(apUnitSlice[b], d);
    }
  }
  /* An empty slice is given as NULL, as the module does for a slice no value sets. */
  for (b = 0; b < II_RANGE_NSLICE; b++) {
    if (roaring_bitmap_is_empty(apUnitSlice[b])) {
      roaring_bitmap_free(apUnitSlice[b]);
      apUnitSlice[b] = NULL;
    }
  }
}

static void unitFree(void) {
  int b;
  roaring_bitmap_free(pUnitExist);
  roaring_bitmap_free(pUnitTag);
  roaring_bitmap_free(pUnitEmpty);
  for (b = 0; b < II_RANGE_NSLICE; b++) roaring_bitmap_free(apUnitSlice[b]);
}

/* iiRangeSelect over random ranges and candidate sets equals the brute force. */
static void testSelect(void) {
  uint64_t seed = 23;
  int iRound, nBad = 0, nNonEmpty = 0;
  for (iRound = 0; iRound < 4; iRound++) {
    int iCase;
    unitBuild(&seed);
    for (iCase = 0; iCase < 400; iCase++) {
      double lo = aUnitVal[unitRand(&seed) % UNIT_NDOC], hi = aUnitVal[unitRand(&seed) % UNIT_NDOC];
      int opLo = (unitRand(&seed) & 1) ? II_RANGE_GE : II_RANGE_GT;
      int opHi = (unitRand(&seed) & 1) ? II_RANGE_LE : II_RANGE_LT;
      int bOpenLo = unitRand(&seed) % 6 == 0, bOpenHi = unitRand(&seed) % 6 == 0, bCand = iCase & 1;
      uint64_t kLo = bOpenLo ? 0 : iiRangeDoubleBound(lo, opLo);
      uint64_t kHi = bOpenHi ? UINT64_MAX : iiRangeDoubleBound(hi, opHi);
      roaring_bitmap_t *pCand = NULL, *pGot;
      uint32_t d;
      if (bCand) {
        pCand = roaring_bitmap_create();
        for (d = 0; d < UNIT_NDOC; d++) {
          if (unitRand(&seed) % 4 == 0) roaring_bitmap_add(pCand, d);
        }
      }
      pGot = iiRangeSelect(pUnitExist, (const roaring_bitmap_t *const *)apUnitSlice, pCand, kLo, kHi);
      CHECK(pGot != NULL);
      for (d = 0; pGot && d < UNIT_NDOC; d++) {
        double v = aUnitVal[d];
        int bWant = abUnitHas[d] && (!pCand || roaring_bitmap_contains(pCand, d)) &&
                    (bOpenLo || (opLo == II_RANGE_GE ? v >= lo : v > lo)) &&
                    (bOpenHi || (opHi == II_RANGE_LE ? v <= hi : v < hi));
        if (bWant != (int)roaring_bitmap_contains(pGot, d)) nBad++;
      }
      if (pGot && !roaring_bitmap_is_empty(pGot)) nNonEmpty++;
      if (pGot) roaring_bitmap_free(pGot);
      if (pCand) roaring_bitmap_free(pCand);
    }
    /* Buckets: random ascending bounds against brute force. */
    for (iCase = 0; iCase < 50; iCase++) {
      double aB[5];
      uint64_t aK[5];
      int64_t aCount[6], aWant[6];
      int n = 1 + (int)(unitRand(&seed) % 5), j, rc;
      uint32_t d;
      for (j = 0; j < n; j++) aB[j] = aUnitVal[unitRand(&seed) % UNIT_NDOC];
      for (j = 1; j < n; j++) {
        int m;
        for (m = j; m > 0 && aB[m - 1] > aB[m]; m--) {
          double t = aB[m];
          aB[m] = aB[m - 1];
          aB[m - 1] = t;
        }
      }
      for (j = 0; j < n; j++) aK[j] = iiRangeDoubleBound(aB[j], II_RANGE_LT);
      memset(aWant, 0, sizeof(aWant));
      for (d = 0; d < UNIT_NDOC; d++) {
        if (!abUnitHas[d] || !roaring_bitmap_contains(pUnitTag, d)) continue;
        for (j = 0; j < n && aUnitVal[d] >= aB[j]; j++) {
        }
        aWant[j]++;
      }
      rc = iiRangeBuckets(pUnitExist, (const roaring_bitmap_t *const *)apUnitSlice, pUnitTag, aK, n, aCount);
      CHECK_INT(rc, SQLITE_OK);
      for (j = 0; j <= n; j++) {
        if (aCount[j] != aWant[j]) nBad++;
      }
    }
    unitFree();
  }
  CHECK_INT(nBad, 0);
  CHECK(nNonEmpty > 100);
}

/* The loader of the parser tests: tag:x, anything else empty. */
static int unitLoader(void *pCtx, int iField, const char *zTerm, int nTerm, const roaring_bitmap_t **ppPost) {
  (void)pCtx;
  *ppPost = (iField == 0 && nTerm == 1 && zTerm[0] == 'x') ? pUnitTag : pUnitEmpty;
  return SQLITE_OK;
}

/* Ranges of field 1 through iiRangeSelect; counts the calls that had candidates. */
static int nUnitCand;
static int unitRange(void *pCtx, int iField, uint64_t kLo, uint64_t kHi, const roaring_bitmap_t *pCand,
                     roaring_bitmap_t **ppOut) {
  (void)pCtx;
  if (iField != 1) return SQLITE_ERROR;
  if (pCand) nUnitCand++;
  *ppOut = iiRangeSelect(pUnitExist, (const roaring_bitmap_t *const *)apUnitSlice, pCand, kLo, kHi);
  return *ppOut ? SQLITE_OK : SQLITE_NOMEM;
}

/* Parse and evaluate zQuery; the number of documents it matches, or -1 if it failed. */
static int unitCount(const char *zQuery, roaring_bitmap_t *pAll) {
  static const char *azField[] = {"tag", "price"};
  static const unsigned char abRange[] = {0, 1};
  char *zErr = NULL;
  int rc, n = -1;
  IiExpr *pExpr = iiQueryParseFull(zQuery, 2, azField, NULL, NULL, abRange, &zErr, &rc);
  if (pExpr) {
    roaring_bitmap_t *pGot = iiQueryEvalFull(pExpr, pAll, unitLoader, NULL, unitRange, NULL, &rc);
    if (pGot) n = (int)roaring_bitmap_get_cardinality(pGot);
    roaring_bitmap_free(pGot);
  } else {
    printf("FAIL query '%s': %s\n", zQuery, zErr ? zErr : "no message");
  }
  iiQueryFree(pExpr);
  sqlite3_free(zErr);
  return n;
}

/* The brute-force count of documents with tag (bTag: 1 yes, 0 no, -1 either) and value in a range. */
static int unitBrute(int bTag, int bNot, double lo, int bLoIn, double hi, int bHiIn) {
  int d, n = 0;
  for (d = 0; d < UNIT_NDOC; d++) {
    int bIn = abUnitHas[d] && (bLoIn ? aUnitVal[d] >= lo : aUnitVal[d] > lo) &&
              (bHiIn ? aUnitVal[d] <= hi : aUnitVal[d] < hi);
    if (bNot) bIn = !bIn;
    if (bTag >= 0 && (d % 3 == 0) != bTag) continue;
    n += bIn;
  }
  return n;
}

/* Every syntax of a range, in ANDs, ORs and NOTs, against brute force; and the parse errors. */
static void testQueries(void) {
  static const struct {
    const char *zQuery;
    const char *zErr;
  } aErr[] = {
      {"price:", "inverted_index: expected a number for RANGE field 'price' at position 7 in query 'price:'"},
      {"price:abc",
       "inverted_index: 'abc' is not a number (RANGE field 'price') at position 7 in query 'price:abc'"},
      {"price:>=",
       "inverted_index: expected a number for RANGE field 'price' at position 9 in query 'price:>='"},
      {"price:>x",
       "inverted_index: 'x' is not a number (RANGE field 'price') at position 8 in query 'price:>x'"},
      {"price:[1 TO 2",
       "inverted_index: expected ']' or '}' to close the range of field 'price' at position 14 in "
       "query 'price:[1 TO 2'"},
      {"price:[1 to 2]",
       "inverted_index: expected TO in the range of field 'price' at position 10 in query "
       "'price:[1 to 2]'"},
      {"price:[1 TO]",
       "inverted_index: expected a number for RANGE field 'price' at position 12 in query "
       "'price:[1 TO]'"},
      {"price:[a TO 2]",
       "inverted_index: 'a' is not a number (RANGE field 'price') at position 8 in query "
       "'price:[a TO 2]'"},
      {"price:\"ten\"",
       "inverted_index: 'ten' is not a number (RANGE field 'price') at position 7 in query "
       "'price:\"ten\"'"},
      {"price:>*",
       "inverted_index: '*' is not a number (RANGE field 'price') at position 8 in query 'price:>*'"},
      {"price:inf",
       "inverted_index: 'inf' is not a number (RANGE field 'price') at position 7 in query "
       "'price:inf'"},
  };
  uint64_t seed = 5;
  roaring_bitmap_t *pAll = roaring_bitmap_create();
  int i, nBad = 0;
  char *zErr = NULL;
  unitBuild(&seed);
  roaring_bitmap_add_range(pAll, 0, UNIT_NDOC);
  for (i = 0; i < 300; i++) {
    double lo = aUnitVal[unitRand(&seed) % UNIT_NDOC], hi = aUnitVal[unitRand(&seed) % UNIT_NDOC];
    char zLo[40], zHi[40], zQ[200];
    int bLoIn = i & 1, bHiIn = (i >> 1) & 1, iShape = (i >> 2) % 6;
    int want, got;
    if (lo != lo || hi != hi) continue;
    /* %.17g prints every double so that it reads back exactly; inf as 1e999. */
    if (isinf(lo)) {
      snprintf(zLo, sizeof(zLo), "%s1e999", lo < 0 ? "-" : "");
    } else {
      snprintf(zLo, sizeof(zLo), "%.17g", lo);
    }
    if (isinf(hi)) {
      snprintf(zHi, sizeof(zHi), "%s1e999", hi < 0 ? "-" : "");
    } else {
      snprintf(zHi, sizeof(zHi), "%.17g", hi);
    }
    switch (iShape) {
      case 0:
        snprintf(zQ, sizeof(zQ), "price:%c%s TO %s%c", bLoIn ? '[' : '{', zLo, zHi, bHiIn ? ']' : '}');
        want = unitBrute(-1, 0, lo, bLoIn, hi, bHiIn);
        break;
      case 1:
        snprintf(zQ, sizeof(zQ), "tag:x AND price:%c%s TO %s%c", bLoIn ? '[' : '{', zLo, zHi,
                 bHiIn ? ']' : '}');
        want = unitBrute(1, 0, lo, bLoIn, hi, bHiIn);
        break;
      case 2:
        snprintf(zQ, sizeof(zQ), "price:%s%s AND NOT tag:x", bLoIn ? ">=" : ">", zLo);
        want = unitBrute(0, 0, lo, bLoIn, 1.0 / 0.0, 1);
        break;
      case 3:
        snprintf(zQ, sizeof(zQ), "tag:x NOT price:%s%s", bHiIn ? "<=" : "<", zHi);
        want = unitBrute(1, 1, -1.0 / 0.0, 1, hi, bHiIn);
        break;
      case 4:
        snprintf(zQ, sizeof(zQ), "(price:%s OR tag:x) AND price:%s", zLo, zLo);
        want = unitBrute(-1, 0, lo, 1, lo, 1);
        break;
      default:
        snprintf(zQ, sizeof(zQ), "price:[%s TO *] price:[* TO %s}", zLo, zHi);
        want = unitBrute(-1, 0, lo, 1, hi, 0);
        break;
    }
    got = unitCount(zQ, pAll);
    if (got != want) {
      printf("FAIL '%s': %d, expected %d\n", zQ, got, want);
      nBad++;
    }
  }
  CHECK_INT(nBad, 0);
  /* Candidates reach the range in an AND; lo > hi is empty; * is any value. */
  nUnitCand = 0;
  CHECK_INT(unitCount("tag:x AND price:[* TO *]", pAll), unitBrute(1, 0, -1.0 / 0.0, 1, 1.0 / 0.0, 1));
  CHECK(nUnitCand == 1);
  CHECK_INT(unitCount("price:*", pAll), (int)roaring_bitmap_get_cardinality(pUnitExist));
  CHECK_INT(unitCount("price:[5 TO 1]", pAll), 0);
  CHECK_INT(unitCount("price:{1 TO 1]", pAll), 0);
  CHECK_INT(unitCount("NOT price:*", pAll), UNIT_NDOC - (int)roaring_bitmap_get_cardinality(pUnitExist));
  CHECK_INT(unitCount("tag:[x", pAll), 0); /* Not a RANGE field: a term as before */
  for (i = 0; i < (int)(sizeof(aErr) / sizeof(aErr[0])); i++) {
    static const char *azField[] = {"tag", "price"};
    static const unsigned char abRange[] = {0, 1};
    int rc;
    IiExpr *pExpr = iiQueryParseFull(aErr[i].zQuery, 2, azField, NULL, NULL, abRange, &zErr, &rc);
    CHECK(pExpr == NULL);
    CHECK_INT(rc, SQLITE_ERROR);
    CHECK_STR(zErr, aErr[i].zErr);
    sqlite3_free(zErr);
    zErr = NULL;
  }
  unitFree();
  roaring_bitmap_free(pAll);
}

int main(void) {
  unitApiInit();
  RUN(testKeyOrder);
  RUN(testBounds);
  RUN(testSelect);
  RUN(testQueries);
  return unitReport();
}
