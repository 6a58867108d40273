/*
** roaring_sql.c: set algebra on serialized roaring bitmaps, in the manner of
** PostgreSQL's pg_roaringbitmap, for users who keep id sets in their own
** columns.
**
** A bitmap is a BLOB in CRoaring's portable serialization (the format of
** https://github.com/RoaringBitmap/RoaringFormatSpec, shared with the Java,
** Go and pg_roaringbitmap implementations), holding unsigned 32-bit values.
**
**   rb_build(json)              -> BLOB  '[1,2,3]' -> a bitmap
**   rb_build_agg(int)           -> BLOB  aggregate: the set of the values
**   rb_or_agg(rb), rb_and_agg(rb), rb_xor_agg(rb)
**                               -> BLOB  aggregates over bitmaps
**   rb_and(a, b), rb_or, rb_andnot, rb_xor
**                               -> BLOB  two bitmaps -> one
**   rb_cardinality(a)           -> INTEGER
**   rb_and_cardinality(a, b), rb_or_cardinality, rb_andnot_cardinality,
**   rb_xor_cardinality          -> INTEGER, without building the result
**   rb_contains(a, n)           -> 0 or 1
**   rb_add(a, n), rb_remove(a, n) -> BLOB
**   rb_min(a), rb_max(a)        -> INTEGER, NULL for the empty set
**   rb_to_json(a)               -> TEXT  '[1,2,3]'
**   rb_iterate(a)               table-valued: one row (value) per element,
**                               ascending; equivalent to
**                               CREATE TABLE x(value INTEGER, bitmap HIDDEN)
**
** A NULL argument gives NULL (aggregates skip NULLs and give NULL over no
** rows). A blob argument is untrusted: it is validated against the format
** (container keys ascending, array values ascending, runs disjoint and in
** range, bitset cardinalities equal to their popcount, offsets exact, no
** trailing bytes) before CRoaring's *_safe deserializer reads it, so a
** malformed blob is an error, never a crash or a wrong answer.
**
** CRoaring (0.2.66 on Debian 12) allocates with malloc(), outside SQLite's
** memory accounting; this file converts each result to an SQLite blob and
** frees the bitmap before returning.
*/
#include "nosqlTest.h"

#include <roaring/roaring.h>
#include <stdlib.h>
#include <string.h>

/**************************************************************************
** Pure core: the portable format validator.
*/

#define RB_COOKIE_NO_RUN 12346 /* Cookie of a bitmap without run containers */
#define RB_COOKIE_RUN 12347    /* Low 16 bits of the cookie with run containers */
#define RB_NO_OFFSET_LIMIT 4   /* With runs, offsets present only from 4 containers */
#define RB_ARRAY_MAX 4096      /* Largest cardinality of an array container */

static uint32_t rbGet16(const unsigned char *a) { return (uint32_t)a[0] | ((uint32_t)a[1] << 8); }
static uint32_t rbGet32(const unsigned char *a) { return rbGet16(a) | (rbGet16(a + 2) << 16); }

int roaringValidate(const unsigned char *a, size_t n) {
  size_t iPos;
  size_t nCont;
  size_t i;
  const unsigned char *aRunFlag = NULL;
  const unsigned char *aHdr;
  const unsigned char *aOffset = NULL;
  uint32_t cookie;
  int64_t iPrevKey = -1;

  if (n < 8) return 1;
  cookie = rbGet32(a);
  if ((cookie & 0xFFFF) == RB_COOKIE_RUN) {
    nCont = (size_t)(cookie >> 16) + 1;
    aRunFlag = a + 4;
    iPos = 4 + (nCont + 7) / 8;
  } else if (cookie == RB_COOKIE_NO_RUN) {
    nCont = rbGet32(a + 4);
    iPos = 8;
    if (nCont > 65536) return 1;
  } else {
    return 1;
  }
  if (n < iPos || (n - iPos) / 4 < nCont) return 1;
  aHdr = a + iPos;
  iPos += 4 * nCont;
  if (aRunFlag == NULL || nCont >= RB_NO_OFFSET_LIMIT) {
    if ((n - iPos) / 4 < nCont) return 1;
    aOffset = a + iPos;
    iPos += 4 * nCont;
  }
  for (i = 0; i < nCont; i++) {
    uint32_t key = rbGet16(aHdr + 4 * i);
    uint32_t nCard = rbGet16(aHdr + 4 * i + 2) + 1;
    int bRun = aRunFlag && (aRunFlag[i / 8] >> (i % 8)) & 1;
    if ((int64_t)key <= iPrevKey) return 1;
    iPrevKey = key;
    if (aOffset && rbGet32(aOffset + 4 * i) != iPos) return 1;
    if (bRun) {
      uint32_t nRun, j, nSum = 0;
      int64_t iPrevEnd = -1;
      if (n - iPos < 2) return 1;
      nRun = rbGet16(a + iPos);
      iPos += 2;
      if ((n - iPos) / 4 < nRun) return 1;
      for (j = 0; j < nRun; j++) {
        uint32_t iStart = rbGet16(a + iPos + 4 * j);
        uint32_t nLen = rbGet16(a + iPos + 4 * j + 2);
        if ((int64_t)iStart <= iPrevEnd || iStart + nLen > 65535) return 1;
        iPrevEnd = iStart + nLen;
        nSum += nLen + 1;
      }
      if (nSum != nCard) return 1;
      iPos += 4 * (size_t)nRun;
    } else if (nCard <= RB_ARRAY_MAX) {
      uint32_t j;
      int64_t iPrev = -1;
      if ((n - iPos) / 2 < nCard) return 1;
      for (j = 0; j < nCard; j++) {
        uint32_t v = rbGet16(a + iPos + 2 * j);
        if ((int64_t)v <= iPrev) return 1;
        iPrev = v;
      }
      iPos += 2 * (size_t)nCard;
    } else {
      uint32_t nPop = 0;
      size_t j;
      if (n - iPos < 8192) return 1;
      for (j = 0; j < 8192; j += 8) {
        uint64_t w;
        memcpy(&w, a + iPos + j, 8);
        nPop += (uint32_t)__builtin_popcountll(w);
      }
      if (nPop != nCard) return 1;
      iPos += 8192;
    }
  }
  return iPos == n ? 0 : 1;
}

roaring_bitmap_t *roaringDecode(const unsigned char *a, size_t n, int *pRc) {
  roaring_bitmap_t *p;
  if (*pRc != SQLITE_OK) return NULL;
  if (roaringValidate(a, n)) {
    *pRc = SQLITE_CORRUPT;
    return NULL;
  }
  p = roaring_bitmap_portable_deserialize_safe((const char *)a, n);
  if (p == NULL) *pRc = SQLITE_NOMEM;
  return p;
}

/**************************************************************************
** SQL glue.
*/

/* Set an SQL result to the serialization of p, which the call frees. */
static void rbResultBitmap(sqlite3_context *ctx, roaring_bitmap_t *p) {
  size_t n;
  char *a;
  if (p == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  roaring_bitmap_run_optimize(p);
  n = roaring_bitmap_portable_size_in_bytes(p);
  if (n > (size_t)sqlite3_limit(sqlite3_context_db_handle(ctx), SQLITE_LIMIT_LENGTH, -1)) {
    roaring_bitmap_free(p);
    sqlite3_result_error_toobig(ctx);
    return;
  }
  a = (char *)sqlite3_malloc64(n ? n : 1);
  if (a == NULL) {
    roaring_bitmap_free(p);
    sqlite3_result_error_nomem(ctx);
    return;
  }
  roaring_bitmap_portable_serialize(p, a);
  roaring_bitmap_free(p);
  sqlite3_result_blob64(ctx, a, n, sqlite3_free);
}

/*
** Decode argument iArg (0-based) of function zFunc. Returns a new bitmap
** the caller frees, or NULL after setting the error result.
*/
static roaring_bitmap_t *rbArg(sqlite3_context *ctx, const char *zFunc, sqlite3_value *pVal, int iArg) {
  int rc = SQLITE_OK;
  roaring_bitmap_t *p;
  if (sqlite3_value_type(pVal) != SQLITE_BLOB) {
    char *zQ = nosqlValueQuote(pVal);
    nosqlResultError(ctx, "%s: argument %d is not a roaring bitmap blob: %s", zFunc, iArg + 1, zQ);
    sqlite3_free(zQ);
    return NULL;
  }
  p = roaringDecode((const unsigned char *)sqlite3_value_blob(pVal), (size_t)sqlite3_value_bytes(pVal), &rc);
  if (rc == SQLITE_CORRUPT) {
    char *zQ = nosqlValueQuote(pVal);
    nosqlResultError(ctx, "%s: argument %d is not a valid serialized roaring bitmap: %s", zFunc, iArg + 1,
                     zQ);
    sqlite3_free(zQ);
  } else if (rc != SQLITE_OK) {
    sqlite3_result_error_nomem(ctx);
  }
  return p;
}

/* True (after setting NULL as the result) when any argument is NULL. */
static int rbAnyNull(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  int i;
  for (i = 0; i < argc; i++) {
    if (sqlite3_value_type(argv[i]) == SQLITE_NULL) {
      sqlite3_result_null(ctx);
      return 1;
    }
  }
  return 0;
}

/*
** Read an element argument: an integer in [0, 4294967295]. Returns 0 and
** sets *pV, or 1 when the value is outside (bError: after setting an error).
*/
static int rbElement(sqlite3_context *ctx, const char *zFunc, sqlite3_value *pVal, int bError, uint32_t *pV) {
  int eType = sqlite3_value_numeric_type(pVal);
  sqlite3_int64 v = -1;
  if (eType == SQLITE_INTEGER) {
    v = sqlite3_value_int64(pVal);
  } else if (eType == SQLITE_FLOAT) {
    /* A whole real is the integer it equals in SQL (1.0 = 1). */
    double r = sqlite3_value_double(pVal);
    if (r >= 0.0 && r <= 4294967295.0 && r == (double)(sqlite3_int64)r) v = (sqlite3_int64)r;
  }
  if (v < 0 || v > 0xFFFFFFFFll) {
    if (bError) {
      char *zQ = nosqlValueQuote(pVal);
      nosqlResultError(ctx, "%s: value %s is not an integer in [0, 4294967295]", zFunc, zQ);
      sqlite3_free(zQ);
    }
    return 1;
  }
  *pV = (uint32_t)v;
  return 0;
}

/*
** Parse a JSON array of integers, the n bytes at z (NUL-terminated), into
** p. Returns NULL on success, or a pointer to the offending byte: a NUL
** before z + n ends no array.
*/
static const char *rbParseJsonArray(const char *z, int n, roaring_bitmap_t *p, int *pbRange) {
  const char *zEnd = z + n;
  while (*z == ' ' || *z == '\t' || *z == '\n' || *z == '\r') z++;
  if (*z++ != '[') return z - 1;
  while (*z == ' ' || *z == '\t' || *z == '\n' || *z == '\r') z++;
  if (*z == ']')
    z++;
  else {
    for (;;) {
      int64_t v = 0;
      int bNeg = 0, nDigit = 0;
      while (*z == ' ' || *z == '\t' || *z == '\n' || *z == '\r') z++;
      if (*z == '-') {
        bNeg = 1;
        z++;
      }
      while (*z >= '0' && *z <= '9') {
        if (v < 10000000000ll) v = v * 10 + (*z - '0');
        nDigit++;
        z++;
      }
      if (nDigit == 0) return z;
      if ((bNeg && v != 0) || v > 0xFFFFFFFFll) {
        *pbRange = 1;
        return z;
      }
      roaring_bitmap_add(p, (uint32_t)v);
      while (*z == ' ' || *z == '\t' || *z == '\n' || *z == '\r') z++;
      if (*z == ']') {
        z++;
        break;
      }
      if (*z++ != ',') return z - 1;
    }
  }
  while (*z == ' ' || *z == '\t' || *z == '\n' || *z == '\r') z++;
  return z < zEnd ? z : NULL;
}

/* rb_build(json): a bitmap of the integers of a JSON array. */
static void rbBuildFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const char *z;
  const char *zBad;
  int bRange = 0;
  roaring_bitmap_t *p;
  if (rbAnyNull(ctx, argc, argv)) return;
  z = (const char *)sqlite3_value_text(argv[0]);
  if (z == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  p = roaring_bitmap_create();
  if (p == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  zBad = rbParseJsonArray(z, sqlite3_value_bytes(argv[0]), p, &bRange);
  if (zBad) {
    char *zQ = nosqlValueQuote(argv[0]);
    if (bRange) {
      nosqlResultError(ctx, "rb_build: an element of %s is outside [0, 4294967295]", zQ);
    } else {
      nosqlResultError(ctx, "rb_build: %s is not a JSON array of integers at byte %d", zQ, (int)(zBad - z));
    }
    sqlite3_free(zQ);
    roaring_bitmap_free(p);
    return;
  }
  rbResultBitmap(ctx, p);
}

/* The operation of a two-bitmap function, in its user data. */
enum { RB_AND, RB_OR, RB_ANDNOT, RB_XOR };

/* Names of the two-bitmap functions, indexed by operation. */
static const char *const azRbSetName[] = {"rb_and", "rb_or", "rb_andnot", "rb_xor"};
static const char *const azRbCardName[] = {"rb_and_cardinality", "rb_or_cardinality", "rb_andnot_cardinality",
                                           "rb_xor_cardinality"};

/*
** rb_and(a, b) and its siblings. The user data is the operation, plus
** RB_CARD_FLAG for the *_cardinality forms, which return the size of the
** result without building it.
*/
#define RB_CARD_FLAG 4
static void rbTwoFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  int eOp = (int)(intptr_t)sqlite3_user_data(ctx);
  int bCard = (eOp & RB_CARD_FLAG) != 0;
  const char *zFunc = bCard ? azRbCardName[eOp & 3] : azRbSetName[eOp & 3];
  roaring_bitmap_t *pA, *pB, *pR = NULL;
  uint64_t n = 0;
  if (rbAnyNull(ctx, argc, argv)) return;
  pA = rbArg(ctx, zFunc, argv[0], 0);
  if (pA == NULL) return;
  pB = rbArg(ctx, zFunc, argv[1], 1);
  if (pB == NULL) {
    roaring_bitmap_free(pA);
    return;
  }
  switch (eOp) {
    case RB_AND:
      pR = roaring_bitmap_and(pA, pB);
      break;
    case RB_OR:
      pR = roaring_bitmap_or(pA, pB);
      break;
    case RB_ANDNOT:
      pR = roaring_bitmap_andnot(pA, pB);
      break;
    case RB_XOR:
      pR = roaring_bitmap_xor(pA, pB);
      break;
    case RB_CARD_FLAG | RB_AND:
      n = roaring_bitmap_and_cardinality(pA, pB);
      break;
    case RB_CARD_FLAG | RB_OR:
      n = roaring_bitmap_or_cardinality(pA, pB);
      break;
    case RB_CARD_FLAG | RB_ANDNOT:
      n = roaring_bitmap_andnot_cardinality(pA, pB);
      break;
    default:
      n = roaring_bitmap_xor_cardinality(pA, pB);
      break;
  }
  roaring_bitmap_free(pA);
  roaring_bitmap_free(pB);
  if (bCard)
    sqlite3_result_int64(ctx, (sqlite3_int64)n);
  else
    rbResultBitmap(ctx, pR);
}

/*
** The length of rb_to_json(p): brackets, commas and digits. Each element
** has at least d digits when it is at least 10^(d-1), so the digits are
** the sum over d of the elements from 10^(d-1) up, counted with ranks.
*/
static sqlite3_uint64 rbJsonLength(const roaring_bitmap_t *p) {
  uint64_t nCard = roaring_bitmap_get_cardinality(p);
  sqlite3_uint64 n = 2 + (nCard ? nCard - 1 : 0) + nCard;
  uint64_t iLo;
  for (iLo = 10; iLo <= 1000000000; iLo *= 10) n += nCard - roaring_bitmap_rank(p, (uint32_t)(iLo - 1));
  return n;
}

/*
** Set the result to the JSON array of p's elements. The length is known
** before any text is built, so a result over SQLITE_LIMIT_LENGTH is an
** error at once (the full set's 43 GB text, from a 900 KB blob), not after
** building text up to the limit.
*/
static void rbResultJson(sqlite3_context *ctx, const roaring_bitmap_t *p) {
  sqlite3_uint64 nJson = rbJsonLength(p);
  roaring_uint32_iterator_t it;
  char *z, *zOut;
  if (nJson > (sqlite3_uint64)sqlite3_limit(sqlite3_context_db_handle(ctx), SQLITE_LIMIT_LENGTH, -1)) {
    sqlite3_result_error_toobig(ctx);
    return;
  }
  z = zOut = (char *)sqlite3_malloc64(nJson);
  if (z == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  *z++ = '[';
  for (roaring_init_iterator(p, &it); it.has_value; roaring_advance_uint32_iterator(&it)) {
    char aDigit[10];
    uint32_t v = it.current_value;
    int i = 0;
    if (z > zOut + 1) *z++ = ',';
    do {
      aDigit[i++] = (char)('0' + v % 10);
      v /= 10;
    } while (v);
    while (i > 0) *z++ = aDigit[--i];
  }
  *z++ = ']';
  sqlite3_result_text64(ctx, zOut, (sqlite3_uint64)(z - zOut), sqlite3_free, SQLITE_UTF8);
}

/* The operation of a one-bitmap function, in its user data. */
enum { RB_CARD, RB_MIN, RB_MAX, RB_JSON };
static const char *const azRbOneName[] = {"rb_cardinality", "rb_min", "rb_max", "rb_to_json"};

/* rb_cardinality(a), rb_min(a), rb_max(a), rb_to_json(a). */
static void rbOneFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  int eOp = (int)(intptr_t)sqlite3_user_data(ctx);
  roaring_bitmap_t *p;
  if (rbAnyNull(ctx, argc, argv)) return;
  p = rbArg(ctx, azRbOneName[eOp], argv[0], 0);
  if (p == NULL) return;
  if (eOp == RB_CARD) {
    sqlite3_result_int64(ctx, (sqlite3_int64)roaring_bitmap_get_cardinality(p));
  } else if (eOp == RB_JSON) {
    rbResultJson(ctx, p);
  } else if (!roaring_bitmap_is_empty(p)) {
    sqlite3_result_int64(ctx, eOp == RB_MIN ? roaring_bitmap_minimum(p) : roaring_bitmap_maximum(p));
  }
  roaring_bitmap_free(p);
}

/* rb_contains(a, n): 1 if n is in a (0 for a value no bitmap can hold). */
static void rbContainsFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  roaring_bitmap_t *p;
  uint32_t v;
  if (rbAnyNull(ctx, argc, argv)) return;
  p = rbArg(ctx, "rb_contains", argv[0], 0);
  if (p == NULL) return;
  sqlite3_result_int(ctx,
                     rbElement(ctx, "rb_contains", argv[1], 0, &v) == 0 && roaring_bitmap_contains(p, v));
  roaring_bitmap_free(p);
}

/* rb_add(a, n) and rb_remove(a, n): a copy of a with n added or removed. */
static void rbAddRemoveFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  int bAdd = sqlite3_user_data(ctx) != NULL;
  const char *zFunc = bAdd ? "rb_add" : "rb_remove";
  roaring_bitmap_t *p;
  uint32_t v;
  if (rbAnyNull(ctx, argc, argv)) return;
  p = rbArg(ctx, zFunc, argv[0], 0);
  if (p == NULL) return;
  if (rbElement(ctx, zFunc, argv[1], 1, &v)) {
    roaring_bitmap_free(p);
    return;
  }
  if (bAdd)
    roaring_bitmap_add(p, v);
  else
    roaring_bitmap_remove(p, v);
  rbResultBitmap(ctx, p);
}

/* The state of an aggregate: the bitmap so far. */
typedef struct RbAgg RbAgg;
struct RbAgg {
  roaring_bitmap_t *p; /* Accumulated set; NULL before the first non-NULL value */
  int bError;          /* True after an error: later rows are ignored */
};

/* The operation of an aggregate, in its user data. */
enum { RB_AGG_BUILD, RB_AGG_OR, RB_AGG_AND, RB_AGG_XOR };
static const char *const azRbAggName[] = {"rb_build_agg", "rb_or_agg", "rb_and_agg", "rb_xor_agg"};

static void rbAggStep(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  int eOp = (int)(intptr_t)sqlite3_user_data(ctx);
  RbAgg *pAgg = (RbAgg *)sqlite3_aggregate_context(ctx, sizeof(RbAgg));
  (void)argc;
  if (pAgg == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (pAgg->bError || sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  if (eOp == RB_AGG_BUILD) {
    uint32_t v;
    if (rbElement(ctx, azRbAggName[eOp], argv[0], 1, &v)) {
      pAgg->bError = 1;
      return;
    }
    if (pAgg->p == NULL) pAgg->p = roaring_bitmap_create();
    if (pAgg->p == NULL) {
      pAgg->bError = 1;
      sqlite3_result_error_nomem(ctx);
      return;
    }
    roaring_bitmap_add(pAgg->p, v);
  } else {
    roaring_bitmap_t *pIn = rbArg(ctx, azRbAggName[eOp], argv[0], 0);
    if (pIn == NULL) {
      pAgg->bError = 1;
      return;
    }
    if (pAgg->p == NULL) {
      pAgg->p = pIn;
      return;
    }
    switch (eOp) {
      case RB_AGG_OR:
        roaring_bitmap_or_inplace(pAgg->p, pIn);
        break;
      case RB_AGG_AND:
        roaring_bitmap_and_inplace(pAgg->p, pIn);
        break;
      default:
        roaring_bitmap_xor_inplace(pAgg->p, pIn);
        break;
    }
    roaring_bitmap_free(pIn);
  }
}

static void rbAggFinal(sqlite3_context *ctx) {
  RbAgg *pAgg = (RbAgg *)sqlite3_aggregate_context(ctx, 0);
  if (pAgg == NULL) return; /* No rows: NULL */
  if (pAgg->bError) {
    if (pAgg->p) roaring_bitmap_free(pAgg->p);
    return; /* The error is already set */
  }
  if (pAgg->p == NULL) return;
  rbResultBitmap(ctx, pAgg->p);
  pAgg->p = NULL;
}

/*
** rb_iterate(bitmap): an eponymous table-valued function.
**
** Plan: idxNum 1 when the bitmap argument is given (required; without it
** xBestIndex returns SQLITE_CONSTRAINT). A "value > X" style bound is not
** used: SQLite filters the rows itself.
*/
typedef struct rb_iterate_cursor rb_iterate_cursor;
struct rb_iterate_cursor {
  sqlite3_vtab_cursor base;    /* Base class - must be first */
  roaring_bitmap_t *p;         /* The decoded bitmap, or NULL */
  sqlite3_value *pArg;         /* The bitmap argument (a copy), the hidden column */
  roaring_uint32_iterator_t i; /* Position in p */
  sqlite3_int64 iRow;          /* 1-based row number (the rowid) */
};

#define RB_ITERATE_COL_VALUE 0
#define RB_ITERATE_COL_BITMAP 1

static int rbIterateConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                            char **pzErr) {
  (void)pAux;
  (void)argc;
  (void)argv;
  (void)pzErr;
  return nosqlVtabNew(db, "CREATE TABLE x(value INTEGER, bitmap HIDDEN)", sizeof(sqlite3_vtab), ppVtab);
}

static int rbIterateOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur) {
  (void)pVtab;
  return nosqlCursorNew(sizeof(rb_iterate_cursor), ppCur) ? SQLITE_OK : SQLITE_NOMEM;
}

static int rbIterateClose(sqlite3_vtab_cursor *cur) {
  rb_iterate_cursor *pCur = (rb_iterate_cursor *)cur;
  if (pCur->p) roaring_bitmap_free(pCur->p);
  sqlite3_value_free(pCur->pArg);
  sqlite3_free(pCur);
  return SQLITE_OK;
}

static int rbIterateNext(sqlite3_vtab_cursor *cur) {
  rb_iterate_cursor *pCur = (rb_iterate_cursor *)cur;
  roaring_advance_uint32_iterator(&pCur->i);
  pCur->iRow++;
  return SQLITE_OK;
}

static int rbIterateEof(sqlite3_vtab_cursor *cur) {
  rb_iterate_cursor *pCur = (rb_iterate_cursor *)cur;
  return pCur->p == NULL || !pCur->i.has_value;
}

static int rbIterateColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int iCol) {
  rb_iterate_cursor *pCur = (rb_iterate_cursor *)cur;
  if (iCol == RB_ITERATE_COL_VALUE) {
    sqlite3_result_int64(ctx, pCur->i.current_value);
  } else {
    /* SQLite checks a second constraint on the argument against this. */
    sqlite3_result_value(ctx, pCur->pArg);
  }
  return SQLITE_OK;
}

static int rbIterateRowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *pRowid) {
  *pRowid = ((rb_iterate_cursor *)cur)->iRow;
  return SQLITE_OK;
}

/* The plan (ext/plan.c): the bitmap, a required input (without it there is nothing to iterate). */
static const NosqlPlanCol aRbIteratePlan[1] = {{RB_ITERATE_COL_BITMAP, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 1}};

static int rbIterateFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr, int argc,
                           sqlite3_value **argv) {
  rb_iterate_cursor *pCur = (rb_iterate_cursor *)cur;
  NosqlPlanArg aArg[1];
  sqlite3_value *pBitmap;
  int rc = SQLITE_OK;
  if (pCur->p) roaring_bitmap_free(pCur->p);
  pCur->p = NULL;
  sqlite3_value_free(pCur->pArg);
  pCur->pArg = NULL;
  pCur->iRow = 1;
  (void)idxNum;
  if (nosqlPlanInputArgs(cur->pVtab, "rb_iterate(bitmap)", aRbIteratePlan, 1, idxStr, argc, argv, aArg) !=
      SQLITE_OK) {
    return SQLITE_ERROR;
  }
  pBitmap = aArg[0].pEq;
  if (sqlite3_value_type(pBitmap) == SQLITE_NULL) return SQLITE_OK;
  pCur->pArg = sqlite3_value_dup(pBitmap);
  if (pCur->pArg == NULL) return SQLITE_NOMEM;
  if (sqlite3_value_type(pBitmap) != SQLITE_BLOB) {
    char *zQ = nosqlValueQuote(pBitmap);
    nosqlVtabError(cur->pVtab, "rb_iterate: argument 1 is not a roaring bitmap blob: %s", zQ);
    sqlite3_free(zQ);
    return SQLITE_ERROR;
  }
  pCur->p = roaringDecode((const unsigned char *)sqlite3_value_blob(pBitmap),
                          (size_t)sqlite3_value_bytes(pBitmap), &rc);
  if (rc == SQLITE_CORRUPT) {
    char *zQ = nosqlValueQuote(pBitmap);
    nosqlVtabError(cur->pVtab, "rb_iterate: argument 1 is not a valid serialized roaring bitmap: %s", zQ);
    sqlite3_free(zQ);
    return SQLITE_ERROR;
  }
  if (rc != SQLITE_OK) return rc;
  roaring_init_iterator(pCur->p, &pCur->i);
  return SQLITE_OK;
}

static int rbIterateBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo) {
  int rc;
  (void)pVtab;
  rc = nosqlPlanInputs(pInfo, aRbIteratePlan, 1, 1000, 1000);
  if (rc == SQLITE_OK && pInfo->nOrderBy == 1 && pInfo->aOrderBy[0].iColumn == RB_ITERATE_COL_VALUE &&
      !pInfo->aOrderBy[0].desc) {
    pInfo->orderByConsumed = 1;
  }
  return rc;
}

static sqlite3_module rbIterateModule = {
    0,                  /* iVersion */
    0,                  /* xCreate: eponymous only */
    rbIterateConnect,   /* xConnect */
    rbIterateBestIndex, /* xBestIndex */
    nosqlVtabFree,      /* xDisconnect */
    0,                  /* xDestroy */
    rbIterateOpen,      /* xOpen */
    rbIterateClose,     /* xClose */
    rbIterateFilter,    /* xFilter */
    rbIterateNext,      /* xNext */
    rbIterateEof,       /* xEof */
    rbIterateColumn,    /* xColumn */
    rbIterateRowid,     /* xRowid */
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
};

int roaringRegister(sqlite3 *db) {
  int rc = SQLITE_OK;
  int i;
  rc = sqlite3_create_function(db, "rb_build", 1, NOSQL_PURE, 0, rbBuildFunc, 0, 0);
  for (i = 0; rc == SQLITE_OK && i < 4; i++) {
    rc = sqlite3_create_function(db, azRbSetName[i], 2, NOSQL_PURE, (void *)(intptr_t)i, rbTwoFunc, 0, 0);
    if (rc == SQLITE_OK) {
      rc = sqlite3_create_function(db, azRbCardName[i], 2, NOSQL_PURE, (void *)(intptr_t)(i | RB_CARD_FLAG),
                                   rbTwoFunc, 0, 0);
    }
    if (rc == SQLITE_OK) {
      rc = sqlite3_create_function(db, azRbOneName[i], 1, NOSQL_PURE, (void *)(intptr_t)i, rbOneFunc, 0, 0);
    }
    if (rc == SQLITE_OK) {
      rc = sqlite3_create_function(db, azRbAggName[i], 1, NOSQL_PURE, (void *)(intptr_t)i, 0, rbAggStep,
                                   rbAggFinal);
    }
  }
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function(db, "rb_contains", 2, NOSQL_PURE, 0, rbContainsFunc, 0, 0);
  if (rc == SQLITE_OK) {
    rc = sqlite3_create_function(db, "rb_add", 2, NOSQL_PURE, (void *)(intptr_t)1, rbAddRemoveFunc, 0, 0);
  }
  if (rc == SQLITE_OK) rc = sqlite3_create_function(db, "rb_remove", 2, NOSQL_PURE, 0, rbAddRemoveFunc, 0, 0);
  if (rc == SQLITE_OK) rc = sqlite3_create_module(db, "rb_iterate", &rbIterateModule, 0);
  return rc;
}
