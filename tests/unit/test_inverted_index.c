/*
** test_inverted_index.c: unit tests of the pure cores of ext/inverted_index.c
** and ext/roaring_sql.c: blob frames, the portable-format validator (with
** every truncation and every single-byte change of valid blobs), the query
** parser and evaluator against brute force, and the two facet kernels.
*/
#include <roaring/roaring.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "nosql.h"

#include "nosqlTest.h"
#include "unit.h"

void unitApiInit(void);

/* Every truncation and every single-byte change of the n-byte frame a is caught. */
static void checkFrameDamage(unsigned char *a, size_t n) {
  size_t i;
  int rc;
  roaring_bitmap_t *q;
  for (i = 0; i < n; i++) {
    rc = SQLITE_OK;
    q = iiBitmapUnframe(a, i, &rc);
    if (q != NULL || rc != SQLITE_CORRUPT) {
      CHECK(0);
      break;
    }
  }
  for (i = 0; i < n; i++) {
    unsigned char c = a[i];
    a[i] ^= 0x5a;
    rc = SQLITE_OK;
    q = iiBitmapUnframe(a, n, &rc);
    a[i] = c;
    if (q != NULL || rc != SQLITE_CORRUPT) {
      CHECK(0);
      break;
    }
  }
  CHECK_INT(i, n);
}

/* A bitmap with runs, arrays and a bitset container. */
static roaring_bitmap_t *unitSampleBitmap(void) {
  roaring_bitmap_t *p = roaring_bitmap_create();
  uint32_t i;
  for (i = 0; i < 100; i++) roaring_bitmap_add(p, i * 7);           /* array */
  for (i = 70000; i < 75000; i++) roaring_bitmap_add(p, i);         /* run */
  for (i = 0; i < 6000; i++) roaring_bitmap_add(p, 200000 + i * 3); /* bitset */
  return p;
}

static void testFrames(void) {
  roaring_bitmap_t *p = unitSampleBitmap();
  size_t n = 0;
  unsigned char *a = iiBitmapFrame(p, &n);
  int rc = SQLITE_OK;
  roaring_bitmap_t *q;
  CHECK(a != NULL);
  q = iiBitmapUnframe(a, n, &rc);
  CHECK_INT(rc, SQLITE_OK);
  CHECK(q && roaring_bitmap_equals(p, q));
  if (q) roaring_bitmap_free(q);
  checkFrameDamage(a, n);
  sqlite3_free(a);
  roaring_bitmap_free(p);
}

/* "IIV1" posting lists (direct = off): written when smaller, read back, damage caught. */
static void testPostingLists(void) {
  roaring_bitmap_t *p = roaring_bitmap_create(), *q;
  size_t n = 0, i;
  unsigned char *a;
  int rc = SQLITE_OK;
  for (i = 0; i < 300; i++) roaring_bitmap_add(p, (uint32_t)(i * 997));
  roaring_bitmap_add(p, 0);
  roaring_bitmap_add(p, 0xFFFFFFFEu);
  a = iiPostingFrame(p, 1, &n);
  CHECK(a != NULL && n >= 4 && iiGet32(a) == II_LIST_MAGIC);
  q = iiBitmapUnframe(a, n, &rc);
  CHECK_INT(rc, SQLITE_OK);
  CHECK(q && roaring_bitmap_equals(p, q));
  if (q) roaring_bitmap_free(q);
  checkFrameDamage(a, n);
  sqlite3_free(a);
  /* Without bList, or where the bitmap is smaller (a run), the bitmap frame. */
  a = iiPostingFrame(p, 0, &n);
  CHECK(a != NULL && iiGet32(a) == II_FRAME_MAGIC);
  sqlite3_free(a);
  roaring_bitmap_add_range(p, 1000000, 1100000);
  a = iiPostingFrame(p, 1, &n);
  CHECK(a != NULL && iiGet32(a) == II_FRAME_MAGIC);
  sqlite3_free(a);
  /* The empty list. */
  roaring_bitmap_clear(p);
  a = iiPostingFrame(p, 1, &n);
  rc = SQLITE_OK;
  q = a ? iiBitmapUnframe(a, n, &rc) : NULL;
  CHECK(q && roaring_bitmap_is_empty(q));
  if (q) roaring_bitmap_free(q);
  sqlite3_free(a);
  roaring_bitmap_free(p);
}

static void testValidator(void) {
  roaring_bitmap_t *p = unitSampleBitmap();
  int iRun;
  uint64_t seed = 7;
  for (iRun = 0; iRun < 2; iRun++) {
    size_t n, i, nReject = 0, nAccept = 0;
    unsigned char *a;
    if (iRun) roaring_bitmap_run_optimize(p);
    n = roaring_bitmap_portable_size_in_bytes(p);
    a = (unsigned char *)malloc(n);
    roaring_bitmap_portable_serialize(p, (char *)a);
    CHECK_INT(roaringValidate(a, n), 0);
    for (i = 0; i < n && roaringValidate(a, i) == 1; i++) {
    }
    CHECK_INT(i, n); /* every truncation is rejected */
    /* Single-byte changes: rejected, or accepted only if CRoaring decodes the same count of bytes. */
    for (i = 0; i < n; i++) {
      unsigned char c = a[i];
      a[i] = (unsigned char)(unitRand(&seed) | 1) ^ c;
      if (roaringValidate(a, n)) {
        nReject++;
      } else {
        roaring_bitmap_t *q = roaring_bitmap_portable_deserialize_safe((const char *)a, n);
        if (q && roaring_bitmap_portable_size_in_bytes(q) == n) nAccept++;
        if (q) roaring_bitmap_free(q);
      }
      a[i] = c;
    }
    CHECK(nReject > 0);
    CHECK(nAccept + nReject == n);
    free(a);
  }
  /* Random garbage is rejected without reading past the end. */
  {
    unsigned char aBuf[64];
    int k, nBadAccept = 0;
    for (k = 0; k < 2000; k++) {
      size_t j, nLen = (size_t)(unitRand(&seed) % sizeof(aBuf));
      for (j = 0; j < nLen; j++) aBuf[j] = (unsigned char)unitRand(&seed);
      if (nLen >= 4 && k % 2) {
        aBuf[0] = 0x3A;
        aBuf[1] = 0x30;
        aBuf[2] = 0;
        aBuf[3] = 0;
      }
      if (roaringValidate(aBuf, nLen) == 0) {
        roaring_bitmap_t *q = roaring_bitmap_portable_deserialize_safe((const char *)aBuf, nLen);
        if (q == NULL) nBadAccept++;
        if (q) roaring_bitmap_free(q);
      }
    }
    CHECK_INT(nBadAccept, 0);
  }
  roaring_bitmap_free(p);
}

/* The fake index of the query tests: field f, term "tK" holds the docs d with (d * (K + 1) + f) % 5 == 0. */
#define UNIT_NDOC 200
static roaring_bitmap_t *aUnitPost[3][8];

static int unitLoader(void *pCtx, int iField, const char *zTerm, int nTerm,
                      const struct roaring_bitmap_s **pp) {
  (void)pCtx;
  if (nTerm != 2 || zTerm[0] != 't' || zTerm[1] < '0' || zTerm[1] > '7') return SQLITE_ERROR;
  *pp = aUnitPost[iField][zTerm[1] - '0'];
  return SQLITE_OK;
}

static int unitHas(int f, int k, uint32_t d) { return (d * (uint32_t)(k + 1) + (uint32_t)f) % 5 == 0; }

static void testQueries(void) {
  static const char *azField[] = {"a", "b", "c"};
  roaring_bitmap_t *pAll = roaring_bitmap_create();
  char *zErr = NULL;
  int rc, f, k;
  uint32_t d;
  IiExpr *pExpr;
  for (d = 0; d < UNIT_NDOC; d++) roaring_bitmap_add(pAll, d);
  for (f = 0; f < 3; f++) {
    for (k = 0; k < 8; k++) {
      aUnitPost[f][k] = roaring_bitmap_create();
      for (d = 0; d < UNIT_NDOC; d++) {
        if (unitHas(f, k, d)) roaring_bitmap_add(aUnitPost[f][k], d);
      }
    }
  }
  /* Random queries of three terms in every shape, against brute force. */
  {
    static const char *azShape[] = {"%s AND %s AND %s",     "%s OR %s OR %s",        "%s AND NOT %s OR %s",
                                    "NOT (%s OR %s) %s",    "(%s OR NOT %s) AND %s", "NOT %s NOT %s NOT %s",
                                    "((%s)) OR (%s AND %s)"};
    uint64_t seed = 99;
    int iCase, nBad = 0;
    for (iCase = 0; iCase < 700; iCase++) {
      int aF[3], aK[3], j, iShape = iCase % 7;
      char azT[3][8];
      char *zQ;
      roaring_bitmap_t *pGot;
      for (j = 0; j < 3; j++) {
        aF[j] = (int)(unitRand(&seed) % 3);
        aK[j] = (int)(unitRand(&seed) % 8);
        snprintf(azT[j], sizeof(azT[j]), "%s:t%d", azField[aF[j]], aK[j]);
      }
      zQ = sqlite3_mprintf(azShape[iShape], azT[0], azT[1], azT[2]);
      pExpr = iiQueryParse(zQ, 3, azField, &zErr, &rc);
      CHECK(pExpr != NULL);
      rc = SQLITE_OK;
      pGot = pExpr ? iiQueryEval(pExpr, pAll, unitLoader, 0, &rc) : NULL;
      if (pGot == NULL) {
        /* No result to compare is a failure, not a case to skip. */
        printf("FAIL query '%s': no result (rc %d)\n", zQ, rc);
        nBad++;
      }
      for (d = 0; pGot && d < UNIT_NDOC; d++) {
        int x = unitHas(aF[0], aK[0], d), y = unitHas(aF[1], aK[1], d), z = unitHas(aF[2], aK[2], d), bWant;
        switch (iShape) {
          case 0:
            bWant = x && y && z;
            break;
          case 1:
            bWant = x || y || z;
            break;
          case 2:
            bWant = (x && !y) || z;
            break;
          case 3:
            bWant = !(x || y) && z;
            break;
          case 4:
            bWant = (x || !y) && z;
            break;
          case 5:
            bWant = !x && !y && !z;
            break;
          default:
            bWant = x || (y && z);
            break;
        }
        if (bWant != (int)roaring_bitmap_contains(pGot, d)) nBad++;
      }
      if (pGot) roaring_bitmap_free(pGot);
      iiQueryFree(pExpr);
      sqlite3_free(zQ);
      sqlite3_free(zErr);
      zErr = NULL;
    }
    CHECK_INT(nBad, 0);
  }
  /* Errors name the position. */
  pExpr = iiQueryParse("a:t1 AND (b:t2", 3, azField, &zErr, &rc);
  CHECK(pExpr == NULL);
  CHECK_INT(rc, SQLITE_ERROR);
  CHECK_STR(zErr, "inverted_index: expected ')' at position 15 in query 'a:t1 AND (b:t2'");
  sqlite3_free(zErr);
  pExpr = iiQueryParse("A:t1", 3, azField, &zErr, &rc);
  CHECK(pExpr != NULL);
  iiQueryFree(pExpr);
  for (f = 0; f < 3; f++) {
    for (k = 0; k < 8; k++) roaring_bitmap_free(aUnitPost[f][k]);
  }
  roaring_bitmap_free(pAll);
}

/* The two facet kernels agree with each other and with brute force. */
static void testFacets(void) {
  enum { nDoc = 3000, nTermAll = 40, nTermField = 10 };
  roaring_bitmap_t *aPost[nTermAll];
  roaring_bitmap_t *aAud[3];
  uint64_t aOff[nDoc + 1];
  uint32_t *aTermId = (uint32_t *)malloc(sizeof(uint32_t) * nDoc * 8);
  int32_t aSlot[nTermAll];
  int64_t aA[3 * nTermField], aB[3 * nTermField], aC[3 * nTermField];
  uint64_t seed = 5, nPost = 0;
  uint32_t d;
  int t, q;
  for (t = 0; t < nTermAll; t++) aPost[t] = roaring_bitmap_create();
  for (q = 0; q < 3; q++) aAud[q] = roaring_bitmap_create();
  for (d = 0; d < nDoc; d++) {
    int j;
    aOff[d] = nPost;
    for (j = 0; j < 8; j++) {
      uint32_t id = (uint32_t)(unitRand(&seed) % nTermAll);
      if (roaring_bitmap_contains(aPost[id], d)) continue;
      roaring_bitmap_add(aPost[id], d);
      aTermId[nPost++] = id;
    }
    for (q = 0; q < 3; q++) {
      if (unitRand(&seed) % (uint64_t)(q + 2) == 0) roaring_bitmap_add(aAud[q], d);
    }
  }
  aOff[nDoc] = nPost;
  /* The field's terms are ids 5..14. */
  for (t = 0; t < nTermAll; t++) aSlot[t] = (t >= 5 && t < 5 + nTermField) ? t - 5 : -1;
  memset(aA, 0, sizeof(aA));
  memset(aB, 0, sizeof(aB));
  memset(aC, 0, sizeof(aC));
  iiFacetBitmap((const struct roaring_bitmap_s *const *)aAud, 3,
                (const struct roaring_bitmap_s *const *)&aPost[5], nTermField, aA);
  CHECK_INT(iiFacetDirect((const struct roaring_bitmap_s *const *)aAud, 3, aOff, nDoc, aTermId, aSlot,
                          nTermAll, nTermField, aB),
            SQLITE_OK);
  for (q = 0; q < 3; q++) {
    for (t = 0; t < nTermField; t++) {
      for (d = 0; d < nDoc; d++) {
        if (roaring_bitmap_contains(aAud[q], d) && roaring_bitmap_contains(aPost[5 + t], d))
          aC[q * nTermField + t]++;
      }
    }
  }
  CHECK(memcmp(aA, aC, sizeof(aA)) == 0);
  CHECK(memcmp(aB, aC, sizeof(aB)) == 0);
  /* One audience takes the single-audience path. */
  memset(aB, 0, sizeof(aB));
  iiFacetDirect((const struct roaring_bitmap_s *const *)&aAud[1], 1, aOff, nDoc, aTermId, aSlot, nTermAll,
                nTermField, aB);
  CHECK(memcmp(aB, aC + nTermField, sizeof(int64_t) * nTermField) == 0);
  for (t = 0; t < nTermAll; t++) roaring_bitmap_free(aPost[t]);
  for (q = 0; q < 3; q++) roaring_bitmap_free(aAud[q]);
  free(aTermId);
}

static void testChecksum(void) {
  unsigned char a[100];
  uint32_t h;
  int i;
  for (i = 0; i < 100; i++) a[i] = (unsigned char)i;
  h = iiChecksum(a, 100);
  CHECK(h == iiChecksum(a, 100));
  a[57] ^= 1;
  CHECK(h != iiChecksum(a, 100));
  CHECK(iiChecksum(a, 0) != iiChecksum(a, 1));
}

/*
** Element queries: a fake nested field of 2 keys over UNIT_NELEM elements,
** element e belonging to document e / 4; key k's term "tK" holds the
** elements with (e * (K + 1) + 3 * k) % 7 < 3. The fake xNest evaluates the
** inner query over elements and projects them to documents.
*/
#define UNIT_NELEM 400
static roaring_bitmap_t *aUnitElem[2][8];
static int unitElemHas(int k, int K, uint32_t e) { return (e * (uint32_t)(K + 1) + (uint32_t)k * 3) % 7 < 3; }
static int unitElemLoader(void *pCtx, int iKey, const char *zTerm, int nTerm,
                          const struct roaring_bitmap_s **pp) {
  (void)pCtx;
  if (iKey < 0 || iKey > 1 || nTerm != 2 || zTerm[0] != 't' || zTerm[1] < '0' || zTerm[1] > '7')
    return SQLITE_ERROR;
  *pp = aUnitElem[iKey][zTerm[1] - '0'];
  return SQLITE_OK;
}
static int unitNest(void *pCtx, int iField, IiExpr *pInner, struct roaring_bitmap_s **ppDocs) {
  roaring_bitmap_t *pAll = (roaring_bitmap_t *)pCtx, *pElem, *pDocs;
  roaring_uint32_iterator_t it;
  int rc = SQLITE_OK;
  if (iField != 1) return SQLITE_ERROR;
  pElem = iiQueryEval(pInner, pAll, unitElemLoader, 0, &rc);
  if (pElem == NULL) return rc;
  pDocs = roaring_bitmap_create();
  for (roaring_init_iterator(pElem, &it); it.has_value; roaring_advance_uint32_iterator(&it)) {
    roaring_bitmap_add(pDocs, it.current_value / 4);
  }
  roaring_bitmap_free(pElem);
  *ppDocs = pDocs;
  return SQLITE_OK;
}

static void testNested(void) {
  static const char *azField[] = {"a", "s"};
  static const char *azKey[] = {"k0", "k1"};
  static const char *const *aazKey[] = {NULL, azKey};
  static const int anKey[] = {0, 2};
  roaring_bitmap_t *pAllElem = roaring_bitmap_create(), *pAllDoc = roaring_bitmap_create(), *pGot;
  IiExpr *pExpr, *pQuery;
  char *zErr = NULL;
  int rc = SQLITE_OK, k, K, nBad = 0, iCase;
  uint32_t e, d;
  uint64_t seed = 7;
  for (k = 0; k < 2; k++) {
    for (K = 0; K < 8; K++) {
      aUnitElem[k][K] = roaring_bitmap_create();
      for (e = 0; e < UNIT_NELEM; e++) {
        if (unitElemHas(k, K, e)) roaring_bitmap_add(aUnitElem[k][K], e);
      }
    }
  }
  for (e = 0; e < UNIT_NELEM; e++) roaring_bitmap_add(pAllElem, e);
  for (d = 0; d < UNIT_NELEM / 4; d++) roaring_bitmap_add(pAllDoc, d);
  /* s:{k0:tX AND NOT k1:tY} against brute force: one element satisfies both. */
  for (iCase = 0; iCase < 64; iCase++) {
    int X = (int)(unitRand(&seed) % 8), Y = (int)(unitRand(&seed) % 8);
    char *zQ = sqlite3_mprintf(iCase % 2 ? "s:{k0:t%d AND NOT k1:t%d}" : "NOT s:{k0:t%d OR K1:t%d}", X, Y);
    pExpr = iiQueryParseNested(zQ, 2, azField, anKey, aazKey, &zErr, &rc);
    CHECK(pExpr != NULL);
    pGot = pExpr ? iiQueryEvalNested(pExpr, pAllDoc, unitLoader, unitNest, pAllElem, &rc) : NULL;
    if (pGot == NULL) {
      printf("FAIL query '%s': no result (rc %d)\n", zQ, rc);
      nBad++;
    }
    for (d = 0; pGot && d < UNIT_NELEM / 4; d++) {
      int bWant = 0;
      for (e = d * 4; e < d * 4 + 4; e++) {
        if (iCase % 2 ? unitElemHas(0, X, e) && !unitElemHas(1, Y, e)
                      : unitElemHas(0, X, e) || unitElemHas(1, Y, e))
          bWant = 1;
      }
      if (iCase % 2 == 0) bWant = !bWant;
      if (bWant != (int)roaring_bitmap_contains(pGot, d)) nBad++;
    }
    if (pGot) roaring_bitmap_free(pGot);
    iiQueryFree(pExpr);
    sqlite3_free(zQ);
    rc = SQLITE_OK;
  }
  CHECK_INT(nBad, 0);
  /* A facet's element query: (one of the query's top-level element conditions) AND key:term. */
  pQuery = iiQueryParseNested("s:{k0:t2} AND (s:{k0:t5} OR a:t0) AND s:{NOT k1:t4}", 2, azField, anKey,
                              aazKey, &zErr, &rc);
  CHECK(pQuery != NULL);
  pExpr = iiQueryNestFacet(pQuery, 1, 1, "t3", 2, &rc);
  CHECK(pExpr != NULL);
  pGot = pExpr ? iiQueryEval(pExpr, pAllElem, unitElemLoader, 0, &rc) : NULL;
  CHECK(pGot != NULL);
  nBad = 0;
  for (e = 0; pGot && e < UNIT_NELEM; e++) {
    int bWant = (unitElemHas(0, 2, e) || !unitElemHas(1, 4, e)) && unitElemHas(1, 3, e);
    if (bWant != (int)roaring_bitmap_contains(pGot, e)) nBad++;
  }
  CHECK_INT(nBad, 0);
  CHECK(pGot && roaring_bitmap_get_cardinality(pGot) > 0);
  if (pGot) roaring_bitmap_free(pGot);
  iiQueryFree(pExpr);
  /* No conditions: just key:term. */
  pExpr = iiQueryNestFacet(NULL, 1, 0, "t4", 2, &rc);
  pGot = pExpr ? iiQueryEval(pExpr, pAllElem, unitElemLoader, 0, &rc) : NULL;
  CHECK(pGot && roaring_bitmap_equals(pGot, aUnitElem[0][4]));
  if (pGot) roaring_bitmap_free(pGot);
  iiQueryFree(pExpr);
  iiQueryFree(pQuery);
  /* Without xNest an element query is an error, not a wrong answer. */
  pExpr = iiQueryParseNested("s:{k0:t1}", 2, azField, anKey, aazKey, &zErr, &rc);
  pGot = pExpr ? iiQueryEval(pExpr, pAllDoc, unitLoader, 0, &rc) : NULL;
  CHECK(pGot == NULL);
  CHECK_INT(rc, SQLITE_ERROR);
  iiQueryFree(pExpr);
  /* Errors: each names the position. */
  {
    static const char *azBad[][2] = {
        {"s:k0", "inverted_index: field 's' is nested: query its elements as field:{key:term} at position 1"},
        {"a:{k0:t1}",
         "inverted_index: field 'a' is not nested: field:{...} queries the elements of a NESTED field at "
         "position 1"},
        {"s:{k0:{x:y}}",
         "inverted_index: key 'k0' is not nested: elements nest one level deep at position 4"},
        {"s:{a:t1}", "inverted_index: unknown element key 'a' at position 4"},
        {"s:{k0:t1", "inverted_index: expected '}' at position 9"},
        {"s:{}", "inverted_index: unexpected '}', expected field:term, '(' or NOT at position 4"},
        {"s:{(k0:t1}", "inverted_index: expected ')' at position 10"},
    };
    for (iCase = 0; iCase < (int)(sizeof(azBad) / sizeof(azBad[0])); iCase++) {
      pExpr = iiQueryParseNested(azBad[iCase][0], 2, azField, anKey, aazKey, &zErr, &rc);
      CHECK(pExpr == NULL);
      CHECK_INT(rc, SQLITE_ERROR);
      CHECK(zErr && strncmp(zErr, azBad[iCase][1], strlen(azBad[iCase][1])) == 0);
      if (zErr && strncmp(zErr, azBad[iCase][1], strlen(azBad[iCase][1])) != 0) printf("  got: %s\n", zErr);
      sqlite3_free(zErr);
      zErr = NULL;
    }
  }
  for (k = 0; k < 2; k++) {
    for (K = 0; K < 8; K++) roaring_bitmap_free(aUnitElem[k][K]);
  }
  roaring_bitmap_free(pAllElem);
  roaring_bitmap_free(pAllDoc);
}

/* Random strings over the query alphabet: a tree or an error, never a crash or a leak. */
static void testParserFuzz(void) {
  static const char *azField[] = {"a", "b"};
  static const char *azKey[] = {"a", "k"};
  static const char *const *aazKey[] = {NULL, azKey};
  static const int anKey[] = {0, 2};
  static const char aAlpha[] = "ab:\"() ANDORT x{}k";
  uint64_t seed = 11;
  int k, nTree = 0, nError = 0, nOther = 0;
  for (k = 0; k < 20000; k++) {
    static const char *azTok[] = {"a:x", "b:{k:\"y z\"}", "AND", "OR", "NOT", "(",  ")", "b:{",
                                  "}",   "k:x",           "a:{", "\"", "c:x", "B:y"};
    char z[128];
    int i, n = (int)(unitRand(&seed) % 39), rc;
    char *zErr = NULL;
    IiExpr *pExpr;
    if (k % 2) {
      /* Characters of the query alphabet. */
      for (i = 0; i < n; i++) z[i] = aAlpha[unitRand(&seed) % (sizeof(aAlpha) - 1)];
      z[n] = 0;
    } else {
      /* Tokens separated by spaces, so that many strings are valid. */
      int nTok = 1 + (int)(unitRand(&seed) % 7);
      z[0] = 0;
      for (i = 0; i < nTok; i++) {
        int iTok = (int)(unitRand(&seed) % (sizeof(azTok) / sizeof(azTok[0])));
        if (unitRand(&seed) % 3) iTok = (int)(unitRand(&seed) % 5) == 0 ? 0 : iTok % 7;
        strcat(z, i ? " " : "");
        strcat(z, azTok[iTok]);
      }
    }
    pExpr = k % 4 < 2 ? iiQueryParse(z, 2, azField, &zErr, &rc)
                      : iiQueryParseNested(z, 2, azField, anKey, aazKey, &zErr, &rc);
    if (pExpr && rc == SQLITE_OK && zErr == NULL) {
      nTree++;
    } else if (pExpr == NULL && rc == SQLITE_ERROR && zErr && strncmp(zErr, "inverted_index: ", 16) == 0) {
      nError++;
    } else {
      nOther++;
    }
    iiQueryFree(pExpr);
    sqlite3_free(zErr);
  }
  CHECK_INT(nOther, 0);
  CHECK(nTree > 100);
  CHECK(nError > 100);
}

/*
** A NESTED declaration of 65,533 element keys (the most) is read in linear
** time at CREATE and at each connection's first use: duplicates were found
** by comparing every pair (issue 25: 80 s). 65,534 keys are refused before
** anything is built, and a duplicate is found however far apart.
*/
static char *iiBigNested(const char *zName, int nKey, const char *zLast) {
  NosqlBuffer b = {0, 0, 0};
  int rc = SQLITE_OK, i;
  nosqlBufferAppendf(&rc, &b, "CREATE VIRTUAL TABLE %s USING inverted_index(s NESTED(", zName);
  for (i = 0; i < nKey; i++) nosqlBufferAppendf(&rc, &b, "%sk%d", i ? ", " : "", i);
  if (zLast) nosqlBufferAppendf(&rc, &b, ", %s", zLast);
  nosqlBufferAppend(&rc, &b, "))", 3);
  return (char *)b.a;
}

static void testNestedDeclScale(void) {
  sqlite3 *db = NULL;
  char *zSql = iiBigNested("r2", 65533, NULL);
  char zFile[64];
  clock_t t0 = clock();
  /* One file per process: the plain and sanitizer builds may run at once. */
  snprintf(zFile, sizeof(zFile), "/tmp/nosql-unit-nested-decl-%d.db", (int)getpid());
  remove(zFile);
  CHECK_INT(sqlite3_open(zFile, &db), SQLITE_OK);
  CHECK_INT(sqlite3_exec(db, zSql, 0, 0, 0), SQLITE_OK);
  CHECK_INT(sqlite3_close(db), SQLITE_OK);
  sqlite3_free(zSql);
  /* A new connection reads the declaration again. */
  CHECK_INT(sqlite3_open(zFile, &db), SQLITE_OK);
  CHECK_INT(sqlite3_exec(db, "SELECT count(*) FROM r2 WHERE r2 MATCH 's:{k65532:x}'", 0, 0, 0), SQLITE_OK);
  /* Seconds of CPU, generous for sanitizers: the pairwise way took 15 here. */
  CHECK((double)(clock() - t0) / CLOCKS_PER_SEC < 3.0);
  zSql = iiBigNested("r3", 65533, "k65533");
  CHECK_INT(sqlite3_exec(db, zSql, 0, 0, 0), SQLITE_ERROR);
  CHECK_STR(sqlite3_errmsg(db), "inverted_index: field 's': more than 65533 element keys");
  sqlite3_free(zSql);
  zSql = iiBigNested("r4", 40000, "K7");
  CHECK_INT(sqlite3_exec(db, zSql, 0, 0, 0), SQLITE_ERROR);
  CHECK_STR(sqlite3_errmsg(db), "inverted_index: field 's': duplicate element key 'K7'");
  sqlite3_free(zSql);
  CHECK_INT(sqlite3_close(db), SQLITE_OK);
  remove(zFile);
}

/* A blob of payload a[0..n) under magic iMagic with a valid frame (12 bytes for "IIB1", else 8), into aOut.
 */
static size_t unitDirectBlob(unsigned char *aOut, uint32_t iMagic, const unsigned char *a, size_t n) {
  size_t nHdr = iMagic == II_FRAME_MAGIC ? II_FRAME_HDR : II_FRAME2_HDR;
  memcpy(aOut + nHdr, a, n);
  if (nHdr == II_FRAME_HDR) {
    iiFrameHeader(aOut, aOut + nHdr, n);
  } else {
    iiPut32(aOut, iMagic);
    iiPut32(aOut + 4, iiChecksum(a, n));
  }
  return nHdr + n;
}

/* Direct-index blobs (issue 29): "IID2" varint gaps, "IIB1" u32 ids of older releases, damage. */
static void testDirect(void) {
  static const uint32_t aId[] = {1,       2,       127,       128,       129,         16383,      16384,
                                 2097151, 2097152, 268435455, 268435456, 4294967294u, 4294967295u};
  unsigned char aBlob[II_DIRECT_MAX(13)], aBad[64];
  uint32_t aOut[II_DIRECT_MAX(13)];
  size_t n, nOut = 99, i, k;
  n = iiDirectEncode(aId, 13, aBlob);
  CHECK(n <= II_DIRECT_MAX(13));
  CHECK_INT(iiGet32(aBlob), II_DIRECT_MAGIC);
  CHECK_INT(iiDirectDecode(aBlob, n, aOut, &nOut), 0);
  CHECK_INT(nOut, 13);
  CHECK(memcmp(aOut, aId, sizeof(aId)) == 0);
  /* Gaps: 1 and 127 take one byte, 128 two; the empty list is a bare frame. */
  CHECK_INT(iiDirectEncode(aId, 3, aBlob), II_FRAME2_HDR + 3);
  CHECK_INT(iiDirectEncode(aId, 0, aBlob), II_FRAME2_HDR);
  CHECK_INT(iiDirectDecode(aBlob, II_FRAME2_HDR, aOut, &nOut), 0);
  CHECK_INT(nOut, 0);
  /* Every truncation and single-byte change of a blob is caught (frame). */
  n = iiDirectEncode(aId, 13, aBlob);
  for (i = 0; i < n; i++) {
    if (iiDirectDecode(aBlob, i, aOut, &nOut) == 0) CHECK(0);
    aBlob[i] ^= 0x21;
    if (iiDirectDecode(aBlob, n, aOut, &nOut) == 0) CHECK(0);
    aBlob[i] ^= 0x21;
  }
  CHECK_INT(iiDirectDecode(NULL, 0, aOut, &nOut), 1);
  /* An older release's blob: u32 ids under "IIB1", read as they were; a length not a multiple of 4 is damage.
   */
  {
    unsigned char aOld[8];
    iiPut32(aOld, 5);
    iiPut32(aOld + 4, 70000);
    n = unitDirectBlob(aBad, II_FRAME_MAGIC, aOld, 8);
    CHECK_INT(iiDirectDecode(aBad, n, aOut, &nOut), 0);
    CHECK_INT(nOut, 2);
    CHECK(aOut[0] == 5 && aOut[1] == 70000);
    n = unitDirectBlob(aBad, II_FRAME_MAGIC, aOld, 7);
    CHECK_INT(iiDirectDecode(aBad, n, aOut, &nOut), 1);
  }
  /* Intact frames around malformed payloads: each is damage, never a misread. */
  {
    static const struct {
      unsigned char a[8];
      size_t n;
    } aCase[] = {
        {{0x80}, 1},                               /* truncated varint */
        {{0x05, 0x85}, 2},                         /* truncated after an id */
        {{0x00}, 1},                               /* id 0 */
        {{0x05, 0x00}, 2},                         /* gap 0: a repeated id */
        {{0x85, 0x00}, 2},                         /* overlong: a trailing zero group */
        {{0xff, 0xff, 0xff, 0xff, 0x1f}, 5},       /* 2^35 - 1, past a u32 */
        {{0xff, 0xff, 0xff, 0xff, 0x0f, 0x01}, 6}, /* 2^32 - 1 then a gap past the end */
        {{0x81, 0x81, 0x81, 0x81, 0x81, 0x01}, 6}, /* six bytes */
    };
    for (k = 0; k < sizeof(aCase) / sizeof(aCase[0]); k++) {
      n = unitDirectBlob(aBad, II_DIRECT_MAGIC, aCase[k].a, aCase[k].n);
      if (iiDirectDecode(aBad, n, aOut, &nOut) != 1) {
        fprintf(stderr, "testDirect: case %d decoded\n", (int)k);
        CHECK(0);
      }
    }
    /* The largest id in five bytes is fine. */
    n = unitDirectBlob(aBad, II_DIRECT_MAGIC, aCase[6].a, 5);
    CHECK_INT(iiDirectDecode(aBad, n, aOut, &nOut), 0);
    CHECK(nOut == 1 && aOut[0] == 4294967295u);
  }
}

/* Element blobs (issue 29): "IIE2" per-element varint counts and gaps, "IIB1" u32 words, damage. */
static void testElemBlobs(void) {
  static const uint32_t aW[] = {2, 1, 4294967295u, 3, 1, 2, 300, 1, 7};
  unsigned char aWord[sizeof(aW)], aBlob[II_DIRECT_MAX(9)], aOut[4 * II_DIRECT_MAX(9)], aBad[64];
  size_t n, nOut = 0, i, k;
  for (i = 0; i < 9; i++) iiPut32(aWord + 4 * i, aW[i]);
  n = iiElemEncode(aWord, 9, aBlob);
  CHECK_INT(iiGet32(aBlob), II_ELEM_MAGIC);
  CHECK_INT(iiElemUnpack(aBlob, n, aOut, &nOut), 0);
  CHECK_INT(nOut, sizeof(aWord));
  CHECK(memcmp(aOut, aWord, sizeof(aWord)) == 0);
  for (i = 0; i < n; i++) {
    if (iiElemUnpack(aBlob, i, aOut, &nOut) == 0) CHECK(0);
    aBlob[i] ^= 0x44;
    if (iiElemUnpack(aBlob, n, aOut, &nOut) == 0) CHECK(0);
    aBlob[i] ^= 0x44;
  }
  /* The words of an older release come back as they were. */
  n = unitDirectBlob(aBad, II_FRAME_MAGIC, aWord, 12);
  CHECK_INT(iiElemUnpack(aBad, n, aOut, &nOut), 0);
  CHECK(nOut == 12 && memcmp(aOut, aWord, 12) == 0);
  n = unitDirectBlob(aBad, II_FRAME_MAGIC, aWord, 10);
  CHECK_INT(iiElemUnpack(aBad, n, aOut, &nOut), 1);
  {
    static const struct {
      unsigned char a[8];
      size_t n;
    } aCase[] = {
        {{0x00}, 1},             /* a count of 0 */
        {{0x02, 0x01}, 2},       /* a count past the end */
        {{0x01, 0x00}, 2},       /* an id of 0 */
        {{0x02, 0x05, 0x00}, 3}, /* a gap of 0 */
        {{0x01, 0x85, 0x00}, 3}, /* overlong */
        {{0x01, 0x80}, 2},       /* truncated */
    };
    for (k = 0; k < sizeof(aCase) / sizeof(aCase[0]); k++) {
      n = unitDirectBlob(aBad, II_ELEM_MAGIC, aCase[k].a, aCase[k].n);
      if (iiElemUnpack(aBad, n, aOut, &nOut) != 1) {
        fprintf(stderr, "testElemBlobs: case %d decoded\n", (int)k);
        CHECK(0);
      }
    }
  }
}

int main(void) {
  unitApiInit();
  sqlite3_auto_extension((void (*)(void))sqlite3_nosql_init);
  RUN(testNestedDeclScale);
  sqlite3_reset_auto_extension();
  RUN(testChecksum);
  RUN(testFrames);
  RUN(testPostingLists);
  RUN(testDirect);
  RUN(testElemBlobs);
  RUN(testValidator);
  RUN(testQueries);
  RUN(testFacets);
  RUN(testNested);
  RUN(testParserFuzz);
  return unitReport();
}
