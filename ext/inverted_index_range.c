/*
** inverted_index_range.c: the pure core of the numeric RANGE fields of
** inverted_index (ext/inverted_index.c has the module, docs/
** inverted_index.md the reference): a field declared `price RANGE` holds
** one number per document, and price:[10 TO 20], price:>=10 ... select
** documents by it.
**
** How it works: a bit-sliced index (O'Neil and Quass, "Improved Query
** Performance with Variant Indexes", 1997), CRoaring underneath. Every
** value maps to a 64-bit key whose unsigned order is SQLite's numeric
** order (iiRangeKey). Slice i is the bitmap of the documents whose key
** has bit i set, and one more bitmap holds the documents that have a
** value. A comparison with a constant walks the slices from the top bit
** down, keeping the documents still equal to the constant's prefix and
** those already known to be greater (or less): at most two bitmap
** operations a slice, 64 slices, whatever the range's width; and the set
** still equal shrinks as the walk goes down, so the later steps are
** cheap; the top bits both bounds of a range share are walked once, for
** both. A candidate set (the documents the rest of an AND leaves) starts
** the walk, so brand AND colour AND price:[..] touches only those.
**
** The slices are stored as terms of the field (the module's posting
** lists, with their framing, checksums, pending-change buffers and
** flushes): a slice no value sets is no row at all, and one every value
** sets is a run (a few bytes); so the stored bytes follow the bits the
** values differ in, not 64 full slices.
**
** Exactness: every double's key is distinct and ordered as the doubles
** (-0.0 is keyed as 0.0, NaN never reaches here: SQLite stores it as
** NULL; -Inf and +Inf are the ends). INTEGER values are keyed as the
** double they equal, so the module refuses integers beyond +-2^53, which
** a double does not hold exactly; query bounds that are such integers
** are rounded to the neighbouring key that gives SQLite's exact
** comparison (iiRangeBound).
**
** The pure core comes first (no sqlite3_* calls but memory and messages:
** the unit tests, tests/unit/test_ii_range.c, drive it directly); then the
** glue the module calls: the declaration and a row's value. (Loading a
** field's slices and evaluating a range over them is the store's job:
** iiRangeSlices and iiRangeEvalDocs, next to the term cache.)
*/
#include "nosqlTest.h"

#include <errno.h>
#include <roaring/roaring.h>
#include <stdlib.h>
#include <string.h>

#include "inverted_index.h"

uint64_t iiRangeKey(double r) {
  uint64_t u;
  if (r == 0.0) r = 0.0; /* -0.0 equals 0.0 */
  memcpy(&u, &r, 8);
  return (u >> 63) ? ~u : (u | 0x8000000000000000ull);
}

double iiRangeKeyValue(uint64_t k) {
  uint64_t u = (k >> 63) ? (k & 0x7FFFFFFFFFFFFFFFull) : ~k;
  double r;
  memcpy(&r, &u, 8);
  return r;
}

int iiRangeIntOk(sqlite3_int64 i) { return i >= -II_RANGE_INT_MAX && i <= II_RANGE_INT_MAX; }

/*
** The sign of d - i, exactly (d a double holding an integer value, or
** beyond the int64 range).
*/
static int iiRangeCmpDoubleInt(double d, sqlite3_int64 i) {
  sqlite3_int64 j;
  if (d >= 9223372036854775808.0) return 1;
  if (d < -9223372036854775808.0) return -1;
  j = (sqlite3_int64)d;
  return j < i ? -1 : j > i;
}

/*
** No double lies strictly between an integer i and its nearest double d,
** so values compare with i as with d but for d itself: the bound is d's
** key, or the key next to it when d is i rounded to the wrong side.
*/
uint64_t iiRangeIntBound(sqlite3_int64 i, int op) {
  double d = (double)i;
  uint64_t k = iiRangeKey(d);
  int c = iiRangeCmpDoubleInt(d, i);
  switch (op) {
    case II_RANGE_GE:
      return c < 0 ? k + 1 : k;
    case II_RANGE_GT:
      return c > 0 ? k : k + 1;
    case II_RANGE_LE:
      return c > 0 ? k - 1 : k;
    default: /* II_RANGE_LT */
      return c < 0 ? k : k - 1;
  }
}

uint64_t iiRangeDoubleBound(double r, int op) {
  uint64_t k = iiRangeKey(r);
  switch (op) {
    case II_RANGE_GE:
    case II_RANGE_LE:
      return k;
    case II_RANGE_GT:
      return k + 1;
    default: /* II_RANGE_LT */
      return k - 1;
  }
}

int iiRangeBound(const char *z, int n, int op, uint64_t *pKey) {
  char zBuf[64];
  char *zEnd = NULL;
  int i, bInt = 1, nDigit = 0;
  double r;
  if (n <= 0 || n >= (int)sizeof(zBuf)) return 1;
  for (i = 0; i < n; i++) {
    char c = z[i];
    if (c >= '0' && c <= '9') {
      nDigit++;
    } else if ((c == '-' || c == '+') && (i == 0 || z[i - 1] == 'e' || z[i - 1] == 'E')) {
      if (i > 0) bInt = 0;
    } else if (c == '.' || c == 'e' || c == 'E') {
      bInt = 0;
    } else {
      return 1; /* hex, inf, nan, a locale's comma: not SQLite's literals */
    }
  }
  if (nDigit == 0) return 1;
  memcpy(zBuf, z, (size_t)n);
  zBuf[n] = 0;
  if (bInt) {
    long long v;
    errno = 0;
    v = strtoll(zBuf, &zEnd, 10);
    if (errno == 0 && zEnd == zBuf + n) {
      *pKey = iiRangeIntBound((sqlite3_int64)v, op);
      return 0;
    }
    /* Past the int64 range: a REAL, as SQLite reads such a literal. */
  }
  r = strtod(zBuf, &zEnd);
  if (zEnd != zBuf + n || r != r) return 1;
  *pKey = iiRangeDoubleBound(r, op);
  return 0;
}

void iiRangeSliceName(int iBit, char *zOut) {
  zOut[0] = 'b';
  if (iBit >= 10) {
    zOut[1] = (char)('0' + iBit / 10);
    zOut[2] = (char)('0' + iBit % 10);
    zOut[3] = 0;
  } else {
    zOut[1] = (char)('0' + iBit);
    zOut[2] = 0;
  }
}

/*
** Narrow pEq (owned; freed) to the documents whose key is >= k (bGe) or
** <= k (!bGe), given that their bits above iTop equal k's. aSlice[i] may
** be NULL (no document has bit i). Returns a new bitmap, or NULL on OOM.
*/
static roaring_bitmap_t *iiRangeWalk(roaring_bitmap_t *pEq, const roaring_bitmap_t *const *aSlice, uint64_t k,
                                     int bGe, int iTop) {
  roaring_bitmap_t *pDone = roaring_bitmap_create(); /* Known greater (bGe) or less (!bGe) */
  int i;
  if (pDone == NULL) {
    roaring_bitmap_free(pEq);
    return NULL;
  }
  for (i = iTop; i >= 0 && !roaring_bitmap_is_empty(pEq); i--) {
    const roaring_bitmap_t *s = aSlice[i];
    int bBit = (int)((k >> i) & 1);
    if (bGe) {
      if (bBit) {
        /* Equal so far and bit 0 here: less, dropped. */
        if (s == NULL) {
          roaring_bitmap_clear(pEq);
        } else {
          roaring_bitmap_and_inplace(pEq, s);
        }
      } else if (s) {
        /* Equal so far and bit 1 here: greater. */
        roaring_bitmap_t *pUp = roaring_bitmap_and(pEq, s);
        if (pUp == NULL) break;
        roaring_bitmap_or_inplace(pDone, pUp);
        roaring_bitmap_free(pUp);
        roaring_bitmap_andnot_inplace(pEq, s);
      }
    } else {
      if (bBit) {
        /* Equal so far and bit 0 here: less, kept. */
        if (s == NULL) {
          roaring_bitmap_or_inplace(pDone, pEq);
          roaring_bitmap_clear(pEq);
        } else {
          roaring_bitmap_t *pDown = roaring_bitmap_andnot(pEq, s);
          if (pDown == NULL) break;
          roaring_bitmap_or_inplace(pDone, pDown);
          roaring_bitmap_free(pDown);
          roaring_bitmap_and_inplace(pEq, s);
        }
      } else if (s) {
        /* Equal so far and bit 1 here: greater, dropped. */
        roaring_bitmap_andnot_inplace(pEq, s);
      }
    }
  }
  if (i >= 0 && !roaring_bitmap_is_empty(pEq)) {
    /* Broke out on OOM. */
    roaring_bitmap_free(pEq);
    roaring_bitmap_free(pDone);
    return NULL;
  }
  roaring_bitmap_or_inplace(pDone, pEq);
  roaring_bitmap_free(pEq);
  return pDone;
}

roaring_bitmap_t *iiRangeSelect(const roaring_bitmap_t *pExist, const roaring_bitmap_t *const *aSlice,
                                const roaring_bitmap_t *pCand, uint64_t kLo, uint64_t kHi) {
  roaring_bitmap_t *p;
  int i = 63;
  if (kLo > kHi) return roaring_bitmap_create();
  p = pCand ? roaring_bitmap_and(pExist, pCand) : roaring_bitmap_copy(pExist);
  if (p && kLo > 0 && kHi < UINT64_MAX) {
    /* Where the two bounds share their top bits, a key in range has them too: one pass for both walks. */
    for (; i >= 0 && ((kLo ^ kHi) >> i) == 0 && !roaring_bitmap_is_empty(p); i--) {
      const roaring_bitmap_t *s = aSlice[i];
      if ((kLo >> i) & 1) {
        if (s == NULL) {
          roaring_bitmap_clear(p);
        } else {
          roaring_bitmap_and_inplace(p, s);
        }
      } else if (s) {
        roaring_bitmap_andnot_inplace(p, s);
      }
    }
  }
  if (p && kLo > 0) p = iiRangeWalk(p, aSlice, kLo, 1, i);
  if (p && kHi < UINT64_MAX) p = iiRangeWalk(p, aSlice, kHi, 0, i);
  return p;
}

int iiRangeBuckets(const roaring_bitmap_t *pExist, const roaring_bitmap_t *const *aSlice,
                   const roaring_bitmap_t *pAud, const uint64_t *aBelow, int nBound, int64_t *aCount) {
  int64_t nPrev = 0, nAll;
  roaring_bitmap_t *pBase = pAud ? roaring_bitmap_and(pExist, pAud) : roaring_bitmap_copy(pExist);
  int j;
  if (pBase == NULL) return SQLITE_NOMEM;
  nAll = (int64_t)roaring_bitmap_get_cardinality(pBase);
  for (j = 0; j < nBound; j++) {
    /* The documents below bound j: each bucket is a difference of two of these counts. */
    roaring_bitmap_t *pBelow = iiRangeSelect(pBase, aSlice, NULL, 0, aBelow[j]);
    int64_t nBelow;
    if (pBelow == NULL) {
      roaring_bitmap_free(pBase);
      return SQLITE_NOMEM;
    }
    nBelow = (int64_t)roaring_bitmap_get_cardinality(pBelow);
    roaring_bitmap_free(pBelow);
    aCount[j] = nBelow - nPrev;
    nPrev = nBelow;
  }
  aCount[nBound] = nAll - nPrev;
  roaring_bitmap_free(pBase);
  return SQLITE_OK;
}

/**************************************************************************
** The glue: what ext/inverted_index.c and ext/inverted_index_vocab.c call.
*/

/*
** A RANGE field declaration, "name RANGE" (the name bare or quoted,
** RANGE in any case). Returns 1 with *pzName set (sqlite3_malloc64; NULL
** and *pRc SQLITE_NOMEM on OOM), or 0 for another declaration.
*/
int iiRangeDecl(const char *zArg, char **pzName, int *pRc) {
  int i = 0, n = 0, nName;
  const char *zName = nosqlSqlToken(zArg, &i, &nName), *zTok;
  if (zName == NULL || strchr("(),", zName[0])) return 0;
  zTok = nosqlSqlToken(zArg, &i, &n);
  if (zTok == NULL || n != 5 || sqlite3_strnicmp(zTok, "RANGE", 5) != 0) return 0;
  if (nosqlSqlToken(zArg, &i, &n) != NULL) return 0; /* More after RANGE: a bad declaration */
  *pzName = nosqlDequote(zName, nName);
  if (*pzName == NULL) *pRc = SQLITE_NOMEM;
  return 1;
}

/*
** The key of the value pVal of RANGE field iField: *pbHas 0 for NULL (no
** value), else 1 and *pKey. An INTEGER beyond +-2^53 and anything but
** an INTEGER or a REAL (TEXT, numeric or not, a JSON array, a BLOB) is
** an error with *pzErr (sqlite3_mprintf) naming the field and the value.
*/
int iiRangeValueKey(inverted_index_vtab *p, int iField, sqlite3_value *pVal, int *pbHas, uint64_t *pKey,
                    char **pzErr) {
  int eType = sqlite3_value_type(pVal);
  char *zQ;
  *pbHas = 0;
  if (eType == SQLITE_NULL) return SQLITE_OK;
  if (eType == SQLITE_INTEGER) {
    sqlite3_int64 i = sqlite3_value_int64(pVal);
    if (iiRangeIntOk(i)) {
      *pbHas = 1;
      *pKey = iiRangeKey((double)i);
      return SQLITE_OK;
    }
    *pzErr = sqlite3_mprintf(
        "inverted_index: field '%s': integer %lld is outside -2^53 .. 2^53, the integers a RANGE field holds "
        "exactly (store it as a REAL)",
        p->azField[iField], i);
    return *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  if (eType == SQLITE_FLOAT) {
    double r = sqlite3_value_double(pVal);
    if (r == r) {
      *pbHas = 1;
      *pKey = iiRangeKey(r);
      return SQLITE_OK;
    }
  }
  zQ = nosqlValueQuote(pVal);
  if (zQ == NULL) return SQLITE_NOMEM;
  *pzErr = sqlite3_mprintf(
      "inverted_index: field '%s': value %s is not a number (a RANGE field takes an "
      "INTEGER or a REAL)",
      p->azField[iField], zQ);
  sqlite3_free(zQ);
  return *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
}
