/*
** hll.c: approximate distinct counts with HyperLogLog, in the manner of
** Redis PFADD/PFCOUNT/PFMERGE (beyond the article; technique 9's "unique
** users per site" when an estimate will do).
**
**   hll_count(x [, p])    aggregate -> INTEGER  estimated distinct non-NULL x
**   hll_sketch(x [, p])   aggregate -> BLOB     the sketch, to store and merge
**   hll_merge(sketch)     aggregate -> BLOB     union of sketches
**   hll_estimate(sketch)  -> INTEGER            the sketch's estimate
**   count_distinct_sorted(x) aggregate -> INTEGER  the exact count, in one
**                         pass over input sorted by x (technique 9: a
**                         scan of a composite key in key order)
**
** p, the precision, is 4..18 (default 14): 2^p registers, a standard error
** of 1.04 / sqrt(2^p) (0.81% at 14, as Redis), and a sketch of
** 4 + 3 * 2^p / 4 bytes (12 KB at 14). It must be the same constant for
** every row of a group.
**
** How it works. Each value is hashed to 64 bits (integers and reals with
** an integral value hash alike, so 5 and 5.0 count once, as in
** COUNT(DISTINCT)); the top p bits pick a register, which keeps the
** largest "position of the first 1 bit" among the other 64 - p bits. The
** estimate is Ertl's improved estimator ("New cardinality estimation
** algorithms for HyperLogLog sketches", 2017), which Redis also uses: no
** bias correction tables, no switch to linear counting.
**
** Sketch format (a BLOB; validated when read, anything else is an error):
** bytes 'H', 'L', version 1, p; then 2^p registers of 6 bits each, packed
** little-endian 4 registers per 3 bytes. A register holds 0..65-p.
*/
#include "nosqlTest.h"

#include <math.h>
#include <string.h>

#define HLL_P_MIN 4
#define HLL_P_MAX 18
#define HLL_P_DEFAULT 14
#define HLL_HEADER 4

/**************************************************************************
** Pure C core.
*/

/* One 64-bit multiply-xorshift round: a strong mixer of a word. */
#define hllMix nosqlMix64

uint64_t hllHashBytes(const void *pData, size_t n, uint64_t seed) {
  const unsigned char *a = (const unsigned char *)pData;
  uint64_t h = seed ^ (n * 0x9e3779b97f4a7c15ull);
  while (n >= 8) {
    uint64_t w;
    memcpy(&w, a, 8);
    h = hllMix(h ^ w) * 0x9e3779b97f4a7c15ull;
    a += 8;
    n -= 8;
  }
  if (n > 0) {
    uint64_t w = 0;
    memcpy(&w, a, n);
    h = hllMix(h ^ w ^ ((uint64_t)n << 56)) * 0x9e3779b97f4a7c15ull;
  }
  return hllMix(h);
}

uint64_t hllHashInt(int64_t v) { return hllMix((uint64_t)v * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull); }

void hllAdd(unsigned char *aReg, int p, uint64_t h) {
  uint32_t i = (uint32_t)(h >> (64 - p));
  uint64_t w = h << p;
  int r = w ? __builtin_clzll(w) + 1 : 64 - p + 1;
  if (r > aReg[i]) aReg[i] = (unsigned char)r;
}

/* Ertl's sigma and tau series. */
static double hllSigma(double x) {
  double y = 1.0, z = x, zPrev;
  if (x == 1.0) return INFINITY;
  do {
    x *= x;
    zPrev = z;
    z += x * y;
    y += y;
  } while (z != zPrev);
  return z;
}

static double hllTau(double x) {
  double y = 1.0, z = 1.0 - x, zPrev;
  if (x == 0.0 || x == 1.0) return 0.0;
  do {
    x = sqrt(x);
    zPrev = z;
    y *= 0.5;
    z -= (1.0 - x) * (1.0 - x) * y;
  } while (z != zPrev);
  return z / 3.0;
}

double hllEstimate(const unsigned char *aReg, int p) {
  int m = 1 << p;
  int q = 64 - p;
  int aHist[66];
  double z;
  int i, k;
  memset(aHist, 0, sizeof(aHist));
  for (i = 0; i < m; i++) aHist[aReg[i]]++;
  z = m * hllTau(1.0 - (double)aHist[q + 1] / m);
  for (k = q; k >= 1; k--) z = 0.5 * (z + aHist[k]);
  z += m * hllSigma((double)aHist[0] / m);
  return (0.5 / log(2.0)) * m * (double)m / z;
}

/*
** An estimate as the count to return: rounded, and at most INT64_MAX (a
** sketch whose registers are all near their maximum, which hashing real
** values does not produce, estimates past 2^63: llround() of that is
** undefined).
*/
static sqlite3_int64 hllRound(double r) {
  return r >= 9223372036854775807.0 ? INT64_MAX : (sqlite3_int64)llround(r);
}

int hllSketchBytes(int p) { return HLL_HEADER + 3 * (1 << p) / 4; }

void hllSerialize(const unsigned char *aReg, int p, unsigned char *aOut) {
  int m = 1 << p, i;
  aOut[0] = 'H';
  aOut[1] = 'L';
  aOut[2] = 1;
  aOut[3] = (unsigned char)p;
  for (i = 0; i < m; i += 4) {
    uint32_t w = aReg[i] | (aReg[i + 1] << 6) | (aReg[i + 2] << 12) | ((uint32_t)aReg[i + 3] << 18);
    unsigned char *o = &aOut[HLL_HEADER + 3 * (i / 4)];
    o[0] = (unsigned char)w;
    o[1] = (unsigned char)(w >> 8);
    o[2] = (unsigned char)(w >> 16);
  }
}

const char *hllDeserialize(const unsigned char *a, int n, unsigned char *aReg, int *pp) {
  int p, m, i;
  if (n < HLL_HEADER || a[0] != 'H' || a[1] != 'L') return "not an hll sketch (bad header)";
  if (a[2] != 1) return "unsupported sketch version";
  p = a[3];
  if (p < HLL_P_MIN || p > HLL_P_MAX) return "precision outside [4, 18]";
  if (n != hllSketchBytes(p)) return "wrong length for its precision";
  m = 1 << p;
  for (i = 0; i < m; i += 4) {
    const unsigned char *o = &a[HLL_HEADER + 3 * (i / 4)];
    uint32_t w = o[0] | (o[1] << 8) | ((uint32_t)o[2] << 16);
    int k;
    for (k = 0; k < 4; k++) {
      int r = (int)((w >> (6 * k)) & 63);
      if (r > 65 - p) return "register value out of range";
      if (aReg) aReg[i + k] = (unsigned char)r;
    }
  }
  *pp = p;
  return NULL;
}

/**************************************************************************
** SQL glue.
*/

/* The state of every hll aggregate: registers at one precision. */
typedef struct HllAgg HllAgg;
struct HllAgg {
  int p;               /* Precision; 0 until the first row */
  unsigned char *aReg; /* 2^p registers, one byte each */
};

/* Hash an SQL value; 5 and 5.0 hash alike, text and blob apart. */
static uint64_t hllHashValue(sqlite3_value *pVal) {
  switch (sqlite3_value_type(pVal)) {
    case SQLITE_INTEGER:
      return hllHashInt(sqlite3_value_int64(pVal));
    case SQLITE_FLOAT: {
      double r = sqlite3_value_double(pVal);
      if (r >= -9223372036854775808.0 && r < 9223372036854775808.0 && r == (double)(int64_t)r)
        return hllHashInt((int64_t)r);
      if (r == 0.0) r = 0.0; /* -0.0 is 0 */
      return hllHashBytes(&r, 8, 1);
    }
    case SQLITE_TEXT:
      return hllHashBytes(sqlite3_value_text(pVal), (size_t)sqlite3_value_bytes(pVal), 2);
    default:
      return hllHashBytes(sqlite3_value_blob(pVal), (size_t)sqlite3_value_bytes(pVal), 3);
  }
}

/* Set up the aggregate at precision p; returns 0 after reporting an error. */
static int hllInit(sqlite3_context *ctx, const char *zFunc, HllAgg *pAgg, sqlite3_value *pP, int p) {
  if (pP) {
    if (sqlite3_value_numeric_type(pP) != SQLITE_INTEGER || sqlite3_value_int64(pP) < HLL_P_MIN ||
        sqlite3_value_int64(pP) > HLL_P_MAX) {
      char *zVal = nosqlValueQuote(pP);
      nosqlResultError(ctx, "%s: precision %s is not an integer in [4, 18]", zFunc, zVal ? zVal : "?");
      sqlite3_free(zVal);
      return 0;
    }
    p = (int)sqlite3_value_int64(pP);
  }
  if (pAgg->p == 0) {
    pAgg->aReg = (unsigned char *)sqlite3_malloc64((sqlite3_uint64)1 << p);
    if (pAgg->aReg == NULL) {
      sqlite3_result_error_nomem(ctx);
      return 0;
    }
    memset(pAgg->aReg, 0, (size_t)1 << p);
    pAgg->p = p;
  } else if (pAgg->p != p) {
    nosqlResultError(ctx, "%s: precision %d differs from %d used earlier in the group", zFunc, p, pAgg->p);
    return 0;
  }
  return 1;
}

static void hllStep(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  HllAgg *pAgg = (HllAgg *)sqlite3_aggregate_context(ctx, sizeof(*pAgg));
  const char *zFunc = (const char *)sqlite3_user_data(ctx);
  if (pAgg == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (pAgg->p == 0 || argc > 1) {
    if (!hllInit(ctx, zFunc, pAgg, argc > 1 ? argv[1] : NULL, HLL_P_DEFAULT)) return;
  }
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  hllAdd(pAgg->aReg, pAgg->p, hllHashValue(argv[0]));
}

static void hllCountFinal(sqlite3_context *ctx) {
  HllAgg *pAgg = (HllAgg *)sqlite3_aggregate_context(ctx, 0);
  if (pAgg == NULL || pAgg->aReg == NULL) {
    sqlite3_result_int(ctx, 0);
    return;
  }
  sqlite3_result_int64(ctx, hllRound(hllEstimate(pAgg->aReg, pAgg->p)));
  sqlite3_free(pAgg->aReg);
}

/* hll_sketch and hll_merge: the sketch; NULL when no row (or only NULL sketches) came. */
static void hllSketchFinal(sqlite3_context *ctx) {
  HllAgg *pAgg = (HllAgg *)sqlite3_aggregate_context(ctx, 0);
  unsigned char *aOut;
  if (pAgg == NULL || pAgg->aReg == NULL) return;
  aOut = (unsigned char *)sqlite3_malloc64((sqlite3_uint64)hllSketchBytes(pAgg->p));
  if (aOut == NULL) {
    sqlite3_free(pAgg->aReg);
    sqlite3_result_error_nomem(ctx);
    return;
  }
  hllSerialize(pAgg->aReg, pAgg->p, aOut);
  sqlite3_free(pAgg->aReg);
  sqlite3_result_blob(ctx, aOut, hllSketchBytes(pAgg->p), sqlite3_free);
}

/* Read a sketch argument into aReg (NULL: validate only); errors name zFunc. */
static int hllReadArg(sqlite3_context *ctx, const char *zFunc, sqlite3_value *pVal, unsigned char *aReg,
                      int *pp) {
  const char *zWhy;
  if (sqlite3_value_type(pVal) != SQLITE_BLOB) {
    zWhy = "not a blob";
  } else {
    zWhy =
        hllDeserialize((const unsigned char *)sqlite3_value_blob(pVal), sqlite3_value_bytes(pVal), aReg, pp);
  }
  if (zWhy) {
    char *zVal = nosqlValueQuote(pVal);
    nosqlResultError(ctx, "%s: malformed sketch %s: %s", zFunc, zVal ? zVal : "?", zWhy);
    sqlite3_free(zVal);
    return 0;
  }
  return 1;
}

static void hllMergeStep(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  HllAgg *pAgg;
  unsigned char *aTmp;
  int p = 0, i, m;
  (void)argc;
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  pAgg = (HllAgg *)sqlite3_aggregate_context(ctx, sizeof(*pAgg));
  if (pAgg == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (!hllReadArg(ctx, "hll_merge", argv[0], NULL, &p)) return;
  if (pAgg->p && pAgg->p != p) {
    nosqlResultError(ctx, "hll_merge: sketch precision %d differs from %d of the sketches before it", p,
                     pAgg->p);
    return;
  }
  if (!hllInit(ctx, "hll_merge", pAgg, NULL, p)) return;
  m = 1 << p;
  aTmp = (unsigned char *)sqlite3_malloc64((sqlite3_uint64)m);
  if (aTmp == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  hllReadArg(ctx, "hll_merge", argv[0], aTmp, &p);
  for (i = 0; i < m; i++) {
    if (aTmp[i] > pAgg->aReg[i]) pAgg->aReg[i] = aTmp[i];
  }
  sqlite3_free(aTmp);
}

static void hllEstimateFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  unsigned char *aReg;
  const unsigned char *a = (const unsigned char *)sqlite3_value_blob(argv[0]);
  int p = 0;
  (void)argc;
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  /* Registers for the precision the header claims; hllDeserialize checks it. */
  if (sqlite3_value_bytes(argv[0]) >= HLL_HEADER && a[3] >= HLL_P_MIN && a[3] <= HLL_P_MAX) p = a[3];
  aReg = (unsigned char *)sqlite3_malloc64((sqlite3_uint64)1 << (p ? p : HLL_P_MIN));
  if (aReg == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (hllReadArg(ctx, "hll_estimate", argv[0], aReg, &p)) {
    sqlite3_result_int64(ctx, hllRound(hllEstimate(aReg, p)));
  }
  sqlite3_free(aReg);
}

/*
** count_distinct_sorted(x): the previous value, kept as a copy, and the
** count so far. Values compare in SQLite's order (numbers < text < blob;
** text by bytes, as the BINARY collation), so the input must come sorted
** that way; a value smaller than its predecessor is an error rather than a
** wrong count.
*/
typedef struct DistinctSorted DistinctSorted;
struct DistinctSorted {
  sqlite3_int64 nDistinct; /* Distinct non-NULL values so far */
  int eType;               /* Type of the previous value; 0 before the first */
  sqlite3_int64 iPrev;     /* Previous integer */
  double rPrev;            /* Previous real */
  NosqlBuffer prev;        /* Previous text or blob bytes */
  int bErr;                /* An error was reported: ignore further rows */
};

/* Compare an integer with a real exactly, as SQLite does. */
static int ckeyCmpIntReal(sqlite3_int64 i, double r) {
  if (r < -9223372036854775808.0) return 1;
  if (r >= 9223372036854775808.0) return -1;
  {
    sqlite3_int64 y = (sqlite3_int64)r;
    if (i < y) return -1;
    if (i > y) return 1;
    return (double)i < r ? -1 : ((double)i > r ? 1 : 0);
  }
}

/* Order class of a type: numbers, then text, then blobs. */
static int ckeyTypeClass(int eType) {
  return eType == SQLITE_INTEGER || eType == SQLITE_FLOAT ? 1 : (eType == SQLITE_TEXT ? 2 : 3);
}

/* Compare pVal with the kept previous value: <0, 0, >0. */
static int ckeyDistinctCmp(const DistinctSorted *p, sqlite3_value *pVal, int eType) {
  int c1 = ckeyTypeClass(eType), c0 = ckeyTypeClass(p->eType);
  if (c1 != c0) return c1 - c0;
  if (c1 == 1) {
    if (eType == SQLITE_INTEGER && p->eType == SQLITE_INTEGER) {
      sqlite3_int64 i = sqlite3_value_int64(pVal);
      return i < p->iPrev ? -1 : i > p->iPrev;
    }
    if (eType == SQLITE_INTEGER) return ckeyCmpIntReal(sqlite3_value_int64(pVal), p->rPrev);
    if (p->eType == SQLITE_INTEGER) return -ckeyCmpIntReal(p->iPrev, sqlite3_value_double(pVal));
    {
      double r = sqlite3_value_double(pVal);
      return r < p->rPrev ? -1 : r > p->rPrev;
    }
  }
  {
    const void *z = eType == SQLITE_TEXT ? (const void *)sqlite3_value_text(pVal) : sqlite3_value_blob(pVal);
    sqlite3_int64 n = sqlite3_value_bytes(pVal);
    sqlite3_int64 nMin = n < p->prev.n ? n : p->prev.n;
    int c = nMin > 0 ? memcmp(z, p->prev.a, (size_t)nMin) : 0;
    if (c) return c;
    return n < p->prev.n ? -1 : n > p->prev.n;
  }
}

static void distinctSortedStep(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  DistinctSorted *p = (DistinctSorted *)sqlite3_aggregate_context(ctx, sizeof(*p));
  int eType = sqlite3_value_type(argv[0]);
  int rc = SQLITE_OK;
  (void)argc;
  if (p == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (eType == SQLITE_NULL || p->bErr) return;
  if (p->eType) {
    int c = ckeyDistinctCmp(p, argv[0], eType);
    if (c == 0) return;
    if (c < 0) {
      char *zVal = nosqlValueQuote(argv[0]);
      p->bErr = 1;
      nosqlResultError(ctx,
                       "count_distinct_sorted: input is not sorted: %s arrived after a greater value; "
                       "order the input by this argument",
                       zVal ? zVal : "?");
      sqlite3_free(zVal);
      return;
    }
  }
  p->nDistinct++;
  p->eType = eType;
  if (eType == SQLITE_INTEGER) {
    p->iPrev = sqlite3_value_int64(argv[0]);
  } else if (eType == SQLITE_FLOAT) {
    p->rPrev = sqlite3_value_double(argv[0]);
  } else {
    const void *z =
        eType == SQLITE_TEXT ? (const void *)sqlite3_value_text(argv[0]) : sqlite3_value_blob(argv[0]);
    nosqlBufferReset(&p->prev);
    nosqlBufferAppend(&rc, &p->prev, z, sqlite3_value_bytes(argv[0]));
    if (rc != SQLITE_OK) sqlite3_result_error_nomem(ctx);
  }
}

static void distinctSortedFinal(sqlite3_context *ctx) {
  DistinctSorted *p = (DistinctSorted *)sqlite3_aggregate_context(ctx, 0);
  if (p == NULL) {
    sqlite3_result_int(ctx, 0);
    return;
  }
  nosqlBufferFree(&p->prev);
  if (!p->bErr) sqlite3_result_int64(ctx, p->nDistinct);
}

int hllRegister(sqlite3 *db) {
  int rc = SQLITE_OK;
  int nArg;
  for (nArg = 1; nArg <= 2 && rc == SQLITE_OK; nArg++) {
    rc = sqlite3_create_function(db, "hll_count", nArg, NOSQL_PURE, (void *)"hll_count", 0, hllStep,
                                 hllCountFinal);
    if (rc == SQLITE_OK)
      rc = sqlite3_create_function(db, "hll_sketch", nArg, NOSQL_PURE, (void *)"hll_sketch", 0, hllStep,
                                   hllSketchFinal);
  }
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function(db, "hll_merge", 1, NOSQL_PURE, 0, 0, hllMergeStep, hllSketchFinal);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function(db, "hll_estimate", 1, NOSQL_PURE, 0, hllEstimateFunc, 0, 0);
  if (rc == SQLITE_OK) {
    rc = sqlite3_create_function(db, "count_distinct_sorted", 1, NOSQL_PURE, 0, 0, distinctSortedStep,
                                 distinctSortedFinal);
  }
  return rc;
}
