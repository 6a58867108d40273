/*
** inverted_index_core.c: the pure core of inverted_index (ext/inverted_index.c
** has the module and its documentation): the checked blob frames of the
** shadow tables, the MATCH query language (parser and bitmap evaluator)
** and the two facet kernels. No sqlite3_* calls but memory and message
** formatting: the unit tests (tests/unit/test_inverted_index.c) and the
** fuzz targets drive these directly.
*/
#include "nosqlTest.h"

#include <roaring/roaring.h>
#include <stdlib.h>
#include <string.h>

/**************************************************************************
** Pure core: blob frames, the query parser and evaluator, facet kernels.
*/

#define II_MAX_DEPTH 200 /* Deepest nesting of a query */

void iiPut32(unsigned char *a, uint32_t v) {
  a[0] = (unsigned char)v;
  a[1] = (unsigned char)(v >> 8);
  a[2] = (unsigned char)(v >> 16);
  a[3] = (unsigned char)(v >> 24);
}
uint32_t iiGet32(const unsigned char *a) {
  return (uint32_t)a[0] | ((uint32_t)a[1] << 8) | ((uint32_t)a[2] << 16) | ((uint32_t)a[3] << 24);
}

uint32_t iiChecksum(const unsigned char *a, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)n;
  size_t i;
  for (i = 0; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, a + i, 8);
    h = (h ^ w) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  for (; i < n; i++) h = (h ^ a[i]) * 0x100000001b3ull;
  return (uint32_t)(h ^ (h >> 32));
}

void iiFrameHeader(unsigned char *aHdr, const unsigned char *aPayload, size_t nPayload) {
  iiPut32(aHdr, II_FRAME_MAGIC);
  iiPut32(aHdr + 4, (uint32_t)nPayload);
  iiPut32(aHdr + 8, iiChecksum(aPayload, nPayload));
}

/* iiFrameCheck for a frame of magic iMagic. */
static int iiFrameCheckAs(const unsigned char *a, size_t n, uint32_t iMagic, const unsigned char **paPayload,
                          size_t *pnPayload) {
  if (a == NULL || n < II_FRAME_HDR || iiGet32(a) != iMagic) return 1;
  if ((size_t)iiGet32(a + 4) != n - II_FRAME_HDR) return 1;
  if (iiGet32(a + 8) != iiChecksum(a + II_FRAME_HDR, n - II_FRAME_HDR)) return 1;
  *paPayload = a + II_FRAME_HDR;
  *pnPayload = n - II_FRAME_HDR;
  return 0;
}

/* The 8-byte frame of "IID2" and "IIE2" blobs: magic, checksum of the payload a[8..n). */
static void iiFrame2Header(unsigned char *a, size_t n, uint32_t iMagic) {
  iiPut32(a, iMagic);
  iiPut32(a + 4, iiChecksum(a + II_FRAME2_HDR, n - II_FRAME2_HDR));
}
static int iiFrame2Check(const unsigned char *a, size_t n, uint32_t iMagic, const unsigned char **paPayload,
                         size_t *pnPayload) {
  if (a == NULL || n < II_FRAME2_HDR || iiGet32(a) != iMagic) return 1;
  if (iiGet32(a + 4) != iiChecksum(a + II_FRAME2_HDR, n - II_FRAME2_HDR)) return 1;
  *paPayload = a + II_FRAME2_HDR;
  *pnPayload = n - II_FRAME2_HDR;
  return 0;
}

/* Append v to z as a LEB128 varint; returns the end. */
static unsigned char *iiVarintPut(unsigned char *z, uint32_t v) {
  while (v >= 0x80) {
    *z++ = (unsigned char)(v | 0x80);
    v >>= 7;
  }
  *z++ = (unsigned char)v;
  return z;
}

/* Read a canonical LEB128 u32 at a[*pOff..n) into *pv; 1 if truncated, overlong or past 2^32 - 1. */
static int iiVarintGet(const unsigned char *a, size_t n, size_t *pOff, uint64_t *pv) {
  uint64_t v = 0;
  int s;
  for (s = 0;; s += 7) {
    unsigned char c;
    if (*pOff >= n || s > 28) return 1;
    c = a[(*pOff)++];
    if (s > 0 && c == 0) return 1;
    v |= (uint64_t)(c & 0x7f) << s;
    if ((c & 0x80) == 0) break;
  }
  *pv = v;
  return v > 0xFFFFFFFFull;
}

size_t iiDirectEncode(const uint32_t *aId, size_t n, unsigned char *aOut) {
  unsigned char *z = aOut + II_FRAME2_HDR;
  uint32_t iPrev = 0;
  size_t i;
  for (i = 0; i < n; i++) {
    z = iiVarintPut(z, aId[i] - iPrev);
    iPrev = aId[i];
  }
  iiFrame2Header(aOut, (size_t)(z - aOut), II_DIRECT_MAGIC);
  return (size_t)(z - aOut);
}

size_t iiElemEncode(const unsigned char *aWord, size_t nWord, unsigned char *aOut) {
  unsigned char *z = aOut + II_FRAME2_HDR;
  size_t i = 0;
  while (i < nWord) {
    uint32_t c = iiGet32(aWord + 4 * i++), k, iPrev = 0;
    z = iiVarintPut(z, c);
    for (k = 0; k < c && i < nWord; k++, i++) {
      uint32_t id = iiGet32(aWord + 4 * i);
      z = iiVarintPut(z, id - iPrev);
      iPrev = id;
    }
  }
  iiFrame2Header(aOut, (size_t)(z - aOut), II_ELEM_MAGIC);
  return (size_t)(z - aOut);
}

int iiElemUnpack(const unsigned char *a, size_t n, unsigned char *aOut, size_t *pnOut) {
  const unsigned char *aPay;
  size_t nPay, off = 0, nOut = 0;
  *pnOut = 0;
  if (a && n >= 4 && iiGet32(a) == II_FRAME_MAGIC) {
    /* An older release's blob: the u32 words themselves (their structure is checked by the caller). */
    if (iiFrameCheckAs(a, n, II_FRAME_MAGIC, &aPay, &nPay) || nPay % 4) return 1;
    if (nPay) memcpy(aOut, aPay, nPay);
    *pnOut = nPay;
    return 0;
  }
  if (iiFrame2Check(a, n, II_ELEM_MAGIC, &aPay, &nPay)) return 1;
  while (off < nPay) {
    uint64_t c, k, v, iId = 0;
    if (iiVarintGet(aPay, nPay, &off, &c) || c == 0 || c > nPay - off) return 1;
    iiPut32(aOut + nOut, (uint32_t)c);
    nOut += 4;
    for (k = 0; k < c; k++) {
      if (iiVarintGet(aPay, nPay, &off, &v) || v == 0) return 1;
      iId += v;
      if (iId > 0xFFFFFFFFull) return 1;
      iiPut32(aOut + nOut, (uint32_t)iId);
      nOut += 4;
    }
  }
  *pnOut = nOut;
  return 0;
}

int iiDirectDecode(const unsigned char *a, size_t n, uint32_t *aOut, size_t *pnOut) {
  const unsigned char *aPay;
  size_t nPay, off = 0, nOut = 0;
  uint64_t iId = 0;
  *pnOut = 0;
  if (a && n >= 4 && iiGet32(a) == II_FRAME_MAGIC) {
    /* An older release's blob: u32 ids. */
    size_t k;
    if (iiFrameCheckAs(a, n, II_FRAME_MAGIC, &aPay, &nPay) || nPay % 4) return 1;
    for (k = 0; k < nPay / 4; k++) aOut[k] = iiGet32(aPay + 4 * k);
    *pnOut = nPay / 4;
    return 0;
  }
  if (iiFrame2Check(a, n, II_DIRECT_MAGIC, &aPay, &nPay)) return 1;
  while (off < nPay) {
    uint64_t v;
    if (iiVarintGet(aPay, nPay, &off, &v) || v == 0) return 1;
    iId += v;
    if (iId > 0xFFFFFFFFull) return 1;
    aOut[nOut++] = (uint32_t)iId;
  }
  *pnOut = nOut;
  return 0;
}

int iiFrameCheck(const unsigned char *a, size_t n, const unsigned char **paPayload, size_t *pnPayload) {
  return iiFrameCheckAs(a, n, II_FRAME_MAGIC, paPayload, pnPayload);
}

/*
** Serialize p (run-optimized first) into a new framed blob from
** sqlite3_malloc64. Returns the blob and sets *pn, or NULL on OOM.
*/
unsigned char *iiBitmapFrame(roaring_bitmap_t *p, size_t *pn) {
  size_t nPayload;
  unsigned char *a;
  roaring_bitmap_run_optimize(p);
  nPayload = roaring_bitmap_portable_size_in_bytes(p);
  a = (unsigned char *)sqlite3_malloc64(II_FRAME_HDR + nPayload);
  if (a == NULL) return NULL;
  roaring_bitmap_portable_serialize(p, (char *)a + II_FRAME_HDR);
  iiFrameHeader(a, a + II_FRAME_HDR, nPayload);
  *pn = II_FRAME_HDR + nPayload;
  return a;
}

unsigned char *iiPostingFrame(roaring_bitmap_t *p, int bList, size_t *pn) {
  uint64_t nCard;
  size_t nRoaring;
  unsigned char *a, *z;
  uint32_t *aVal;
  roaring_bitmap_run_optimize(p);
  nRoaring = II_FRAME_HDR + roaring_bitmap_portable_size_in_bytes(p);
  nCard = roaring_bitmap_get_cardinality(p);
  /* At least a byte a value: no smaller than the bitmap, skip the encoding. */
  if (!bList || II_FRAME2_HDR + nCard >= nRoaring) return iiBitmapFrame(p, pn);
  aVal = (uint32_t *)sqlite3_malloc64(sizeof(uint32_t) * (size_t)nCard + 1);
  a = (unsigned char *)sqlite3_malloc64(II_FRAME2_HDR + 5 * (size_t)nCard + 1);
  if (aVal == NULL || a == NULL) {
    sqlite3_free(aVal);
    sqlite3_free(a);
    return NULL;
  }
  roaring_bitmap_to_uint32_array(p, aVal);
  z = a + II_FRAME2_HDR;
  if (nCard > 0) {
    uint64_t k;
    z = iiVarintPut(z, aVal[0] + 1 == 0 ? 0xFFFFFFFFu : aVal[0] + 1);
    for (k = 1; k < nCard; k++) z = iiVarintPut(z, aVal[k] - aVal[k - 1]);
  }
  sqlite3_free(aVal);
  if ((size_t)(z - a) >= nRoaring || (nCard > 0 && roaring_bitmap_minimum(p) == 0xFFFFFFFFu)) {
    sqlite3_free(a);
    return iiBitmapFrame(p, pn);
  }
  iiFrame2Header(a, (size_t)(z - a), II_LIST_MAGIC);
  *pn = (size_t)(z - a);
  return a;
}

/* Decode an "IIV1" posting list (frame checked by the caller): NULL with *pRc set on failure. */
static roaring_bitmap_t *iiListDecode(const unsigned char *aPay, size_t nPay, int *pRc) {
  uint32_t *aVal = (uint32_t *)sqlite3_malloc64(sizeof(uint32_t) * nPay + 1);
  size_t off = 0, nVal = 0;
  uint64_t iVal = 0;
  roaring_bitmap_t *p;
  if (aVal == NULL) {
    *pRc = SQLITE_NOMEM;
    return NULL;
  }
  while (off < nPay) {
    uint64_t v;
    if (iiVarintGet(aPay, nPay, &off, &v) || v == 0) break;
    /* The first value is stored plus one, so that every varint is >= 1. */
    iVal = nVal == 0 ? v - 1 : iVal + v;
    if (iVal > 0xFFFFFFFEull) break;
    aVal[nVal++] = (uint32_t)iVal;
  }
  if (off < nPay) {
    sqlite3_free(aVal);
    *pRc = SQLITE_CORRUPT;
    return NULL;
  }
  p = roaring_bitmap_create();
  if (p == NULL) {
    sqlite3_free(aVal);
    *pRc = SQLITE_NOMEM;
    return NULL;
  }
  roaring_bitmap_add_many(p, nVal, aVal);
  sqlite3_free(aVal);
  return p;
}

/* Decode a framed bitmap: NULL with *pRc SQLITE_CORRUPT or SQLITE_NOMEM on failure. */
roaring_bitmap_t *iiBitmapUnframe(const unsigned char *a, size_t n, int *pRc) {
  const unsigned char *aPay;
  size_t nPay;
  if (*pRc != SQLITE_OK) return NULL;
  if (a && n >= 4 && iiGet32(a) == II_LIST_MAGIC) {
    if (iiFrame2Check(a, n, II_LIST_MAGIC, &aPay, &nPay)) {
      *pRc = SQLITE_CORRUPT;
      return NULL;
    }
    return iiListDecode(aPay, nPay, pRc);
  }
  if (iiFrameCheck(a, n, &aPay, &nPay)) {
    *pRc = SQLITE_CORRUPT;
    return NULL;
  }
  return roaringDecode(aPay, nPay, pRc);
}

/* Node types of a parsed query. */
#define II_TERM 1
#define II_AND 2
#define II_OR 3
#define II_NOT 4
#define II_NEST 5  /* field:{inner}: one element of a NESTED field satisfies inner */
#define II_RANGE 6 /* A RANGE field's value is in [kLo, kHi] (keys, inclusive) */

struct IiExpr {
  int eType;      /* II_TERM, II_AND, II_OR, II_NOT, II_NEST or II_RANGE */
  int iField;     /* II_TERM: index of the field (of the key inside braces); II_NEST, II_RANGE: the field */
  uint64_t kLo;   /* II_RANGE: smallest key in range (iiRangeKey order) */
  uint64_t kHi;   /* II_RANGE: largest key in range */
  char *zTerm;    /* II_TERM: the term, NUL terminated (owned) */
  int nTerm;      /* II_TERM: bytes in zTerm */
  IiExpr *pLeft;  /* AND, OR: left operand; NOT: the operand; NEST: the element query */
  IiExpr *pRight; /* AND, OR: right operand */
};

void iiQueryFree(IiExpr *p) {
  if (p == NULL) return;
  iiQueryFree(p->pLeft);
  iiQueryFree(p->pRight);
  sqlite3_free(p->zTerm);
  sqlite3_free(p);
}

/* The state of the recursive-descent parser. */
typedef struct IiParse IiParse;
struct IiParse {
  const char *z;                    /* The query, NUL terminated */
  int i;                            /* Current byte offset */
  int nField;                       /* Number of fields */
  const char *const *azField;       /* Field names */
  int rc;                           /* SQLITE_OK, SQLITE_ERROR or SQLITE_NOMEM */
  char *zErr;                       /* Error message (sqlite3_mprintf) */
  int nDepth;                       /* Current nesting */
  const int *anKey;                 /* Keys per field (0: not nested), or NULL */
  const char *const *const *aazKey; /* Key names per nested field */
  int bInBrace;                     /* Inside field:{...}: names are element keys */
  const unsigned char *abRange;     /* Per field: true for a RANGE field; or NULL */
};

static void iiParseError(IiParse *p, int iPos, const char *zFmt, const char *zArg) {
  char *zWhat;
  if (p->rc != SQLITE_OK) return;
  p->rc = SQLITE_ERROR;
  zWhat = sqlite3_mprintf(zFmt, zArg);
  p->zErr =
      zWhat ? sqlite3_mprintf("inverted_index: %s at position %d in query '%q'", zWhat, iPos + 1, p->z) : 0;
  sqlite3_free(zWhat);
  if (p->zErr == NULL) p->rc = SQLITE_NOMEM;
}

/* Bytes that end a bare word: space, parentheses, quote (and ':' in a field name). */
static int iiIsBreak(char c) { return c == 0 || nosqlIsSpace(c) || c == '(' || c == ')' || c == '"'; }

/* A break, or inside braces the closing brace. */
static int iiBreak(IiParse *p, char c) { return iiIsBreak(c) || (p->bInBrace && c == '}'); }

static void iiSkipSpace(IiParse *p) {
  while (nosqlIsSpace(p->z[p->i])) p->i++;
}

/* True if the bare word at the cursor is exactly zKw (AND, OR, NOT). */
static int iiAtKeyword(IiParse *p, const char *zKw) {
  int n = (int)strlen(zKw);
  return strncmp(&p->z[p->i], zKw, (size_t)n) == 0 && iiBreak(p, p->z[p->i + n]);
}

static IiExpr *iiNewNode(IiParse *p, int eType, IiExpr *pLeft, IiExpr *pRight) {
  IiExpr *pNew;
  if (p->rc != SQLITE_OK) {
    iiQueryFree(pLeft);
    iiQueryFree(pRight);
    return NULL;
  }
  pNew = (IiExpr *)sqlite3_malloc64(sizeof(IiExpr));
  if (pNew == NULL) {
    p->rc = SQLITE_NOMEM;
    iiQueryFree(pLeft);
    iiQueryFree(pRight);
    return NULL;
  }
  memset(pNew, 0, sizeof(*pNew));
  pNew->eType = eType;
  pNew->pLeft = pLeft;
  pNew->pRight = pRight;
  return pNew;
}

static IiExpr *iiParseOr(IiParse *p);
static IiExpr *iiParseNest(IiParse *p, int iStart, int iField);
static IiExpr *iiParseRange(IiParse *p, int iField);

/*
** A quoted string at the cursor ("" inside is one quote): a new string
** (sqlite3_mprintf), or NULL after an error (unterminated or empty).
*/
static char *iiParseQuoted(IiParse *p) {
  NosqlBuffer b = {0, 0, 0};
  int rc = SQLITE_OK;
  int iQuote = p->i++;
  for (;;) {
    if (p->z[p->i] == 0) {
      iiParseError(p, iQuote, "unterminated quoted term%s", "");
      break;
    }
    if (p->z[p->i] == '"') {
      if (p->z[p->i + 1] != '"') {
        p->i++;
        break;
      }
      p->i++;
    }
    nosqlBufferAppend(&rc, &b, &p->z[p->i], 1);
    p->i++;
  }
  if (rc != SQLITE_OK && p->rc == SQLITE_OK) p->rc = rc;
  if (p->rc == SQLITE_OK && b.n == 0) iiParseError(p, iQuote, "empty term%s", "");
  if (p->rc != SQLITE_OK) {
    nosqlBufferFree(&b);
    return NULL;
  }
  return (char *)b.a;
}

/*
** An element query after "field:" at the brace: field:{inner}, where inner
** is any query over the field's element keys. Elements nest one level.
*/
static IiExpr *iiParseNest(IiParse *p, int iStart, int iField) {
  int nOuter = p->nField;
  const char *const *azOuter = p->azField;
  IiExpr *pInner, *pNew;
  if (p->bInBrace) {
    iiParseError(p, iStart, "key '%s' is not nested: elements nest one level deep", p->azField[iField]);
    return NULL;
  }
  if (p->anKey == NULL || p->anKey[iField] == 0) {
    iiParseError(p, iStart, "field '%s' is not nested: field:{...} queries the elements of a NESTED field",
                 p->azField[iField]);
    return NULL;
  }
  if (++p->nDepth > II_MAX_DEPTH) {
    iiParseError(p, iStart, "query nested too deeply%s", "");
    return NULL;
  }
  p->i++;
  p->nField = p->anKey[iField];
  p->azField = p->aazKey[iField];
  p->bInBrace = 1;
  pInner = iiParseOr(p);
  p->nField = nOuter;
  p->azField = azOuter;
  p->bInBrace = 0;
  if (p->rc != SQLITE_OK) return pInner;
  iiSkipSpace(p);
  if (p->z[p->i] != '}') {
    iiParseError(p, p->i, "expected '}'%s", "");
    iiQueryFree(pInner);
    return NULL;
  }
  p->i++;
  p->nDepth--;
  pNew = iiNewNode(p, II_NEST, pInner, 0);
  if (pNew) pNew->iField = iField;
  return pNew;
}

/*
** A number of RANGE field iField at the cursor, up to a break (or, in a
** range, a closing bracket), as the inclusive key bound of comparison op;
** or, when bStar, '*' (sets *pbStar). Returns 0, or 1 after an error.
*/
static int iiParseBound(IiParse *p, int iField, int op, int bInRange, int bStar, uint64_t *pKey,
                        int *pbStar) {
  int iTok = p->i, n;
  char *zMsg;
  while (!iiBreak(p, p->z[p->i]) && !(bInRange && (p->z[p->i] == ']' || p->z[p->i] == '}'))) p->i++;
  n = p->i - iTok;
  if (pbStar) *pbStar = 0;
  if (bStar && n == 1 && p->z[iTok] == '*') {
    *pbStar = 1;
    return 0;
  }
  if (n > 0 && iiRangeBound(&p->z[iTok], n, op, pKey) == 0) return 0;
  zMsg = n == 0 ? sqlite3_mprintf("expected a number for RANGE field '%s'", p->azField[iField])
                : sqlite3_mprintf("'%.*s' is not a number (RANGE field '%s')", n, &p->z[iTok],
                                  p->azField[iField]);
  if (zMsg == NULL) {
    p->rc = SQLITE_NOMEM;
    return 1;
  }
  iiParseError(p, iTok, "%s", zMsg);
  sqlite3_free(zMsg);
  return 1;
}

/* iiParseError with the name of RANGE field iField for its %s. */
static void iiRangeError(IiParse *p, int iPos, const char *zFmt, int iField) {
  iiParseError(p, iPos, zFmt, p->azField[iField]);
}

/*
** The operand of RANGE field iField after "field:": a number (equality),
** '*' (any value), [lo TO hi] or {lo TO hi} (inclusive or exclusive
** ends, mixed as in Lucene, '*' an open end), or >=x, >x, <=x, <x.
*/
static IiExpr *iiParseRange(IiParse *p, int iField) {
  uint64_t kLo = 0, kHi = UINT64_MAX;
  int bStar = 0;
  IiExpr *pNew;
  char c = p->z[p->i];
  if (c == '[' || c == '{') {
    int bLoIn = c == '[';
    p->i++;
    iiSkipSpace(p);
    if (iiParseBound(p, iField, bLoIn ? II_RANGE_GE : II_RANGE_GT, 1, 1, &kLo, &bStar)) return NULL;
    if (bStar) kLo = 0;
    iiSkipSpace(p);
    if (strncmp(&p->z[p->i], "TO", 2) != 0 || !(iiIsBreak(p->z[p->i + 2]) || strchr("]}", p->z[p->i + 2]))) {
      iiRangeError(p, p->i, "expected TO in the range of field '%s'", iField);
      return NULL;
    }
    p->i += 2;
    iiSkipSpace(p);
    /* The upper end's kind is known at its bracket: read the number first. */
    {
      int iHi = p->i, bHiStar;
      uint64_t kIn = 0, kEx = 0;
      if (iiParseBound(p, iField, II_RANGE_LE, 1, 1, &kIn, &bHiStar)) return NULL;
      if (!bHiStar) {
        int iEnd = p->i;
        p->i = iHi;
        iiParseBound(p, iField, II_RANGE_LT, 1, 0, &kEx, NULL);
        p->i = iEnd;
      }
      iiSkipSpace(p);
      if (p->z[p->i] != ']' && p->z[p->i] != '}') {
        iiRangeError(p, p->i, "expected ']' or '}' to close the range of field '%s'", iField);
        return NULL;
      }
      if (!bHiStar) kHi = p->z[p->i] == ']' ? kIn : kEx;
      p->i++;
    }
  } else if (c == '>' || c == '<') {
    int op;
    p->i++;
    if (p->z[p->i] == '=') {
      p->i++;
      op = c == '>' ? II_RANGE_GE : II_RANGE_LE;
    } else {
      op = c == '>' ? II_RANGE_GT : II_RANGE_LT;
    }
    if (iiParseBound(p, iField, op, 0, 0, op <= II_RANGE_GT ? &kLo : &kHi, NULL)) return NULL;
  } else if (c == '"') {
    int iQuote = p->i;
    char *zNum = iiParseQuoted(p);
    if (zNum == NULL) return NULL;
    if (iiRangeBound(zNum, (int)strlen(zNum), II_RANGE_GE, &kLo) ||
        iiRangeBound(zNum, (int)strlen(zNum), II_RANGE_LE, &kHi)) {
      char *zMsg = sqlite3_mprintf("'%s' is not a number (RANGE field '%s')", zNum, p->azField[iField]);
      if (zMsg == NULL) {
        p->rc = SQLITE_NOMEM;
      } else {
        iiParseError(p, iQuote, "%s", zMsg);
      }
      sqlite3_free(zMsg);
      sqlite3_free(zNum);
      return NULL;
    }
    sqlite3_free(zNum);
  } else {
    int iTok = p->i;
    if (iiParseBound(p, iField, II_RANGE_GE, 0, 1, &kLo, &bStar)) return NULL;
    if (bStar) {
      kLo = 0;
    } else {
      p->i = iTok;
      iiParseBound(p, iField, II_RANGE_LE, 0, 0, &kHi, NULL);
    }
  }
  pNew = iiNewNode(p, II_RANGE, 0, 0);
  if (pNew == NULL) return NULL;
  pNew->iField = iField;
  pNew->kLo = kLo;
  pNew->kHi = kHi;
  return pNew;
}

/* primary := '(' or ')' | field ':' term | field ':' '{' or '}' | range field ':' range */
static IiExpr *iiParsePrimary(IiParse *p) {
  int iStart, iField;
  IiExpr *pNew;
  iiSkipSpace(p);
  iStart = p->i;
  if (p->z[p->i] == '(') {
    if (++p->nDepth > II_MAX_DEPTH) {
      iiParseError(p, iStart, "query nested too deeply%s", "");
      return NULL;
    }
    p->i++;
    pNew = iiParseOr(p);
    if (p->rc != SQLITE_OK) return pNew;
    iiSkipSpace(p);
    if (p->z[p->i] != ')') {
      iiParseError(p, p->i, "expected ')'%s", "");
      iiQueryFree(pNew);
      return NULL;
    }
    p->i++;
    p->nDepth--;
    return pNew;
  }
  if (p->z[p->i] == 0) {
    iiParseError(p, p->i, "unexpected end of query, expected field:term, '(' or NOT%s", "");
    return NULL;
  }
  if (p->z[p->i] != '"' && (iiBreak(p, p->z[p->i]) || p->z[p->i] == ':')) {
    char zTok[2] = {p->z[p->i], 0};
    iiParseError(p, p->i, "unexpected '%s', expected field:term, '(' or NOT", zTok);
    return NULL;
  }
  {
    /* The field name: a bare word, or a quoted one ("first name":Ada). */
    char *zName;
    if (p->z[p->i] == '"') {
      zName = iiParseQuoted(p);
      if (zName == NULL) return NULL;
    } else {
      while (!iiBreak(p, p->z[p->i]) && p->z[p->i] != ':') p->i++;
      zName = sqlite3_mprintf("%.*s", p->i - iStart, &p->z[iStart]);
      if (zName == NULL) {
        p->rc = SQLITE_NOMEM;
        return NULL;
      }
    }
    for (iField = 0; iField < p->nField; iField++) {
      if (sqlite3_stricmp(p->azField[iField], zName) == 0) break;
    }
    if (iField == p->nField)
      iiParseError(p, iStart, p->bInBrace ? "unknown element key '%s'" : "unknown field '%s'", zName);
    sqlite3_free(zName);
    if (p->rc != SQLITE_OK) return NULL;
  }
  if (p->z[p->i] != ':') {
    iiParseError(p, p->i, "expected ':' after the field name%s", "");
    return NULL;
  }
  p->i++;
  if (!p->bInBrace && p->abRange && p->abRange[iField]) return iiParseRange(p, iField);
  if (p->z[p->i] == '{') return iiParseNest(p, iStart, iField);
  if (!p->bInBrace && p->anKey && p->anKey[iField] > 0) {
    iiParseError(p, iStart, "field '%s' is nested: query its elements as field:{key:term}",
                 p->azField[iField]);
    return NULL;
  }
  pNew = iiNewNode(p, II_TERM, 0, 0);
  if (pNew == NULL) return NULL;
  pNew->iField = iField;
  if (p->z[p->i] == '"') {
    pNew->zTerm = iiParseQuoted(p);
    if (pNew->zTerm == NULL) {
      iiQueryFree(pNew);
      return NULL;
    }
    pNew->nTerm = (int)strlen(pNew->zTerm);
  } else {
    int iTerm = p->i;
    while (!iiBreak(p, p->z[p->i])) p->i++;
    if (p->i == iTerm) {
      iiParseError(p, iTerm, "expected a term after ':'%s", "");
      iiQueryFree(pNew);
      return NULL;
    }
    pNew->zTerm = sqlite3_mprintf("%.*s", p->i - iTerm, &p->z[iTerm]);
    pNew->nTerm = p->i - iTerm;
    if (pNew->zTerm == NULL) {
      p->rc = SQLITE_NOMEM;
      iiQueryFree(pNew);
      return NULL;
    }
  }
  return pNew;
}

/* unary := NOT unary | primary */
static IiExpr *iiParseUnary(IiParse *p) {
  iiSkipSpace(p);
  if (iiAtKeyword(p, "NOT")) {
    IiExpr *pOperand;
    int iStart = p->i;
    if (++p->nDepth > II_MAX_DEPTH) {
      iiParseError(p, iStart, "query nested too deeply%s", "");
      return NULL;
    }
    p->i += 3;
    pOperand = iiParseUnary(p);
    p->nDepth--;
    if (pOperand == NULL) return NULL;
    return iiNewNode(p, II_NOT, pOperand, 0);
  }
  return iiParsePrimary(p);
}

/*
** The operands of one AND or OR chain as a balanced tree (they are
** associative): its depth grows with the log of the chain's length, so
** the walks over the tree (free, copy, flatten) recurse that deep only. A
** chain built left to right, a OP b OP c ..., was as deep as it was long:
** 150,000 operands overflowed the stack.
*/
static IiExpr *iiBalance(IiParse *p, int eType, IiExpr **aOp, int n) {
  IiExpr *pLeft, *pRight;
  if (n == 1) return aOp[0];
  pLeft = iiBalance(p, eType, aOp, n / 2);
  pRight = iiBalance(p, eType, &aOp[n / 2], n - n / 2);
  return iiNewNode(p, eType, pLeft, pRight);
}

/*
** A chain of operands (parsed by xOperand) joined by the keyword eType
** (II_AND, where the keyword may be left out, or II_OR).
*/
static IiExpr *iiParseChain(IiParse *p, int eType, IiExpr *(*xOperand)(IiParse *)) {
  IiExpr *aStatic[16], **aOp = aStatic, *pOp = xOperand(p);
  int nOp = 0, nAlloc = (int)(sizeof(aStatic) / sizeof(aStatic[0])), i;
  while (pOp && p->rc == SQLITE_OK) {
    if (nOp == nAlloc) {
      IiExpr **aNew = (IiExpr **)sqlite3_malloc64(sizeof(IiExpr *) * (size_t)nAlloc * 2);
      if (aNew == NULL) {
        p->rc = SQLITE_NOMEM;
        break;
      }
      memcpy(aNew, aOp, sizeof(IiExpr *) * (size_t)nOp);
      if (aOp != aStatic) sqlite3_free(aOp);
      aOp = aNew;
      nAlloc *= 2;
    }
    aOp[nOp++] = pOp;
    pOp = NULL;
    iiSkipSpace(p);
    if (eType == II_OR) {
      if (!iiAtKeyword(p, "OR")) break;
      p->i += 2;
    } else if (iiAtKeyword(p, "AND")) {
      p->i += 3;
    } else if (p->z[p->i] == 0 || p->z[p->i] == ')' || (p->bInBrace && p->z[p->i] == '}') ||
               iiAtKeyword(p, "OR")) {
      break;
    }
    pOp = xOperand(p);
  }
  iiQueryFree(pOp); /* An operand left over by an error */
  if (p->rc == SQLITE_OK && nOp > 0) {
    pOp = iiBalance(p, eType, aOp, nOp);
  } else {
    for (i = 0; i < nOp; i++) iiQueryFree(aOp[i]);
    pOp = NULL;
  }
  if (aOp != aStatic) sqlite3_free(aOp);
  return pOp;
}

/* and := unary ( [AND] unary )* */
static IiExpr *iiParseAnd(IiParse *p) { return iiParseChain(p, II_AND, iiParseUnary); }

/* or := and ( OR and )* */
static IiExpr *iiParseOr(IiParse *p) { return iiParseChain(p, II_OR, iiParseAnd); }

IiExpr *iiQueryParse(const char *zQuery, int nField, const char *const *azField, char **pzErr, int *pRc) {
  return iiQueryParseNested(zQuery, nField, azField, NULL, NULL, pzErr, pRc);
}

IiExpr *iiQueryParseNested(const char *zQuery, int nField, const char *const *azField, const int *anKey,
                           const char *const *const *aazKey, char **pzErr, int *pRc) {
  return iiQueryParseFull(zQuery, nField, azField, anKey, aazKey, NULL, pzErr, pRc);
}

IiExpr *iiQueryParseFull(const char *zQuery, int nField, const char *const *azField, const int *anKey,
                         const char *const *const *aazKey, const unsigned char *abRange, char **pzErr,
                         int *pRc) {
  IiParse s;
  IiExpr *pExpr;
  memset(&s, 0, sizeof(s));
  s.z = zQuery;
  s.nField = nField;
  s.azField = azField;
  s.anKey = anKey;
  s.aazKey = aazKey;
  s.abRange = abRange;
  *pzErr = NULL;
  iiSkipSpace(&s);
  if (zQuery[s.i] == 0) {
    *pzErr = sqlite3_mprintf("inverted_index: empty query");
    *pRc = *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
    return NULL;
  }
  pExpr = iiParseOr(&s);
  if (s.rc == SQLITE_OK) {
    iiSkipSpace(&s);
    if (s.z[s.i] != 0) {
      char zTok[2] = {s.z[s.i], 0};
      iiParseError(&s, s.i, "unexpected '%s'", zTok);
    }
  }
  if (s.rc != SQLITE_OK) {
    iiQueryFree(pExpr);
    *pzErr = s.zErr;
    *pRc = s.rc;
    return NULL;
  }
  *pRc = SQLITE_OK;
  return pExpr;
}

/* Collect the operands of a chain of eType nodes into a growable array. */
static void iiFlatten(IiExpr *p, int eType, IiExpr ***paOut, int *pn, int *pnAlloc, int *pRc) {
  if (*pRc != SQLITE_OK) return;
  if (p->eType == eType) {
    iiFlatten(p->pLeft, eType, paOut, pn, pnAlloc, pRc);
    iiFlatten(p->pRight, eType, paOut, pn, pnAlloc, pRc);
    return;
  }
  if (*pn == *pnAlloc) {
    int nNew = *pnAlloc ? *pnAlloc * 2 : 8;
    IiExpr **aNew = (IiExpr **)sqlite3_realloc64(*paOut, sizeof(IiExpr *) * (size_t)nNew);
    if (aNew == NULL) {
      *pRc = SQLITE_NOMEM;
      return;
    }
    *paOut = aNew;
    *pnAlloc = nNew;
  }
  (*paOut)[(*pn)++] = p;
}

/* The cardinality of a bitmap, for sorting AND operands smallest first. */
typedef struct IiOperand IiOperand;
struct IiOperand {
  roaring_bitmap_t *p; /* Operand value (owned) */
  uint64_t n;          /* Its cardinality */
};
static int iiCmpOperand(const void *a, const void *b) {
  uint64_t x = ((const IiOperand *)a)->n, y = ((const IiOperand *)b)->n;
  return x < y ? -1 : x > y;
}

/*
** Evaluate pExpr. xLoad returns a borrowed posting list for (field, term)
** that stays valid for the whole evaluation (an empty bitmap for an
** unknown term). Returns a new bitmap the caller frees, or NULL with *pRc
** set.
*/
roaring_bitmap_t *iiQueryEval(IiExpr *pExpr, const roaring_bitmap_t *pUniverse, IiPostingLoader xLoad,
                              void *pCtx, int *pRc) {
  return iiQueryEvalNested(pExpr, pUniverse, xLoad, NULL, pCtx, pRc);
}

/* iiQueryEval, with xNest answering the element queries (NULL: there are none). */
roaring_bitmap_t *iiQueryEvalNested(IiExpr *pExpr, const roaring_bitmap_t *pUniverse, IiPostingLoader xLoad,
                                    IiNestEval xNest, void *pCtx, int *pRc) {
  return iiQueryEvalFull(pExpr, pUniverse, xLoad, xNest, NULL, pCtx, pRc);
}

/* A range operand over candidates pCand (NULL: all documents). */
static roaring_bitmap_t *iiEvalRange(IiExpr *pExpr, IiRangeEval xRange, void *pCtx,
                                     const roaring_bitmap_t *pCand, int *pRc) {
  roaring_bitmap_t *pRet = NULL;
  if (*pRc != SQLITE_OK) return NULL;
  if (xRange == NULL) {
    *pRc = SQLITE_ERROR;
    return NULL;
  }
  *pRc = xRange(pCtx, pExpr->iField, pExpr->kLo, pExpr->kHi, pCand, &pRet);
  if (*pRc == SQLITE_OK && pRet == NULL) *pRc = SQLITE_NOMEM;
  if (*pRc != SQLITE_OK && pRet) {
    roaring_bitmap_free(pRet);
    pRet = NULL;
  }
  return pRet;
}

/* iiQueryEvalNested, with xRange answering the ranges of RANGE fields (NULL: there are none). */
roaring_bitmap_t *iiQueryEvalFull(IiExpr *pExpr, const roaring_bitmap_t *pUniverse, IiPostingLoader xLoad,
                                  IiNestEval xNest, IiRangeEval xRange, void *pCtx, int *pRc) {
  roaring_bitmap_t *pRet = NULL;
  if (*pRc != SQLITE_OK) return NULL;
  switch (pExpr->eType) {
    case II_RANGE:
      return iiEvalRange(pExpr, xRange, pCtx, NULL, pRc);
    case II_NEST: {
      if (xNest == NULL) {
        *pRc = SQLITE_ERROR;
        return NULL;
      }
      *pRc = xNest(pCtx, pExpr->iField, pExpr->pLeft, &pRet);
      break;
    }
    case II_TERM: {
      const roaring_bitmap_t *pPost = NULL;
      *pRc = xLoad(pCtx, pExpr->iField, pExpr->zTerm, pExpr->nTerm, &pPost);
      if (*pRc == SQLITE_OK) pRet = roaring_bitmap_copy(pPost);
      break;
    }
    case II_NOT: {
      roaring_bitmap_t *pSub = iiQueryEvalFull(pExpr->pLeft, pUniverse, xLoad, xNest, xRange, pCtx, pRc);
      if (pSub) {
        pRet = roaring_bitmap_andnot(pUniverse, pSub);
        roaring_bitmap_free(pSub);
      }
      break;
    }
    case II_OR: {
      IiExpr **aOp = NULL;
      int nOp = 0, nAlloc = 0, i;
      const roaring_bitmap_t **aBm = NULL;
      iiFlatten(pExpr, II_OR, &aOp, &nOp, &nAlloc, pRc);
      if (*pRc == SQLITE_OK) {
        aBm = (const roaring_bitmap_t **)sqlite3_malloc64(sizeof(*aBm) * (size_t)nOp);
        if (aBm == NULL) {
          *pRc = SQLITE_NOMEM;
        } else {
          /* Zeroed: after an error the cleanup below sees the operands
          ** not yet evaluated as NULL. */
          memset((void *)aBm, 0, sizeof(*aBm) * (size_t)nOp);
        }
      }
      for (i = 0; *pRc == SQLITE_OK && i < nOp; i++) {
        if (aOp[i]->eType == II_TERM) {
          /* Borrow term postings instead of copying them. */
          *pRc = xLoad(pCtx, aOp[i]->iField, aOp[i]->zTerm, aOp[i]->nTerm, &aBm[i]);
          aOp[i] = NULL;
        } else {
          aBm[i] = iiQueryEvalFull(aOp[i], pUniverse, xLoad, xNest, xRange, pCtx, pRc);
        }
      }
      if (*pRc == SQLITE_OK) pRet = roaring_bitmap_or_many((size_t)nOp, aBm);
      for (i = 0; aBm && i < nOp; i++) {
        /* Evaluated operands are owned; borrowed term postings had aOp[i] cleared. */
        if (aOp[i] && aBm[i]) roaring_bitmap_free(aBm[i]);
      }
      sqlite3_free(aBm);
      sqlite3_free(aOp);
      break;
    }
    default: { /* II_AND */
      IiExpr **aOp = NULL;
      int nOp = 0, nAlloc = 0, nPos = 0, i, iFirstRange;
      IiOperand *aPos = NULL;
      iiFlatten(pExpr, II_AND, &aOp, &nOp, &nAlloc, pRc);
      if (*pRc == SQLITE_OK) {
        aPos = (IiOperand *)sqlite3_malloc64(sizeof(IiOperand) * (size_t)nOp);
        if (aPos == NULL) *pRc = SQLITE_NOMEM;
      }
      /*
      ** Positive operands, smallest first; then the ranges over what they
      ** leave (the first range over everything when all are ranges); then
      ** subtract the NOT operands.
      */
      iFirstRange = -1;
      for (i = 0; i < nOp; i++) {
        if (aOp[i]->eType == II_RANGE && iFirstRange < 0) iFirstRange = i;
        if (aOp[i]->eType != II_RANGE && aOp[i]->eType != II_NOT) break;
      }
      if (i < nOp) iFirstRange = -1; /* A positive operand that is not a range starts */
      for (i = 0; *pRc == SQLITE_OK && i < nOp; i++) {
        if (aOp[i]->eType == II_NOT || (aOp[i]->eType == II_RANGE && i != iFirstRange)) continue;
        aPos[nPos].p = iiQueryEvalFull(aOp[i], pUniverse, xLoad, xNest, xRange, pCtx, pRc);
        if (aPos[nPos].p) {
          aPos[nPos].n = roaring_bitmap_get_cardinality(aPos[nPos].p);
          nPos++;
        }
      }
      if (*pRc == SQLITE_OK) {
        qsort(aPos, (size_t)nPos, sizeof(IiOperand), iiCmpOperand);
        pRet = nPos ? aPos[0].p : roaring_bitmap_copy(pUniverse);
        if (nPos) aPos[0].p = NULL;
        for (i = 1; i < nPos && pRet && !roaring_bitmap_is_empty(pRet); i++) {
          roaring_bitmap_and_inplace(pRet, aPos[i].p);
        }
        for (i = 0; i < nOp && pRet && !roaring_bitmap_is_empty(pRet); i++) {
          roaring_bitmap_t *pSub;
          if (aOp[i]->eType != II_RANGE || i == iFirstRange) continue;
          pSub = iiEvalRange(aOp[i], xRange, pCtx, pRet, pRc);
          if (pSub == NULL) break;
          roaring_bitmap_free(pRet);
          pRet = pSub;
        }
        for (i = 0; i < nOp && pRet && !roaring_bitmap_is_empty(pRet); i++) {
          if (aOp[i]->eType != II_NOT) continue;
          if (aOp[i]->pLeft->eType == II_TERM) {
            const roaring_bitmap_t *pPost = NULL;
            IiExpr *pT = aOp[i]->pLeft;
            *pRc = xLoad(pCtx, pT->iField, pT->zTerm, pT->nTerm, &pPost);
            if (*pRc != SQLITE_OK) break;
            roaring_bitmap_andnot_inplace(pRet, pPost);
          } else if (aOp[i]->pLeft->eType == II_RANGE) {
            roaring_bitmap_t *pSub = iiEvalRange(aOp[i]->pLeft, xRange, pCtx, pRet, pRc);
            if (pSub == NULL) break;
            roaring_bitmap_andnot_inplace(pRet, pSub);
            roaring_bitmap_free(pSub);
          } else {
            roaring_bitmap_t *pSub =
                iiQueryEvalFull(aOp[i]->pLeft, pUniverse, xLoad, xNest, xRange, pCtx, pRc);
            if (pSub == NULL) break;
            roaring_bitmap_andnot_inplace(pRet, pSub);
            roaring_bitmap_free(pSub);
          }
        }
      }
      for (i = 0; aPos && i < nPos; i++) {
        if (aPos[i].p) roaring_bitmap_free(aPos[i].p);
      }
      sqlite3_free(aPos);
      sqlite3_free(aOp);
      break;
    }
  }
  if (*pRc == SQLITE_OK && pRet == NULL) *pRc = SQLITE_NOMEM;
  if (*pRc != SQLITE_OK && pRet) {
    roaring_bitmap_free(pRet);
    pRet = NULL;
  }
  return pRet;
}

/* A deep copy of p (NULL on OOM, with *pRc set). */
static IiExpr *iiExprCopy(const IiExpr *p, int *pRc) {
  IiExpr *pNew;
  if (p == NULL || *pRc != SQLITE_OK) return NULL;
  pNew = (IiExpr *)sqlite3_malloc64(sizeof(IiExpr));
  if (pNew == NULL) {
    *pRc = SQLITE_NOMEM;
    return NULL;
  }
  *pNew = *p;
  pNew->zTerm = NULL;
  pNew->pLeft = pNew->pRight = NULL;
  if (p->zTerm) {
    pNew->zTerm = sqlite3_mprintf("%s", p->zTerm);
    if (pNew->zTerm == NULL) *pRc = SQLITE_NOMEM;
  }
  pNew->pLeft = iiExprCopy(p->pLeft, pRc);
  pNew->pRight = iiExprCopy(p->pRight, pRc);
  if (*pRc != SQLITE_OK) {
    iiQueryFree(pNew);
    return NULL;
  }
  return pNew;
}

/*
** Append to *ppOr (an OR chain, or NULL) the element queries on iField
** among the top-level AND operands of p: each is a condition some element
** of every matching document meets, so an element that meets any of them
** is one the query matched.
*/
static void iiNestConds(const IiExpr *p, int iField, IiExpr **ppOr, int *pRc) {
  IiExpr *pCopy, *pOr;
  if (*pRc != SQLITE_OK) return;
  if (p->eType == II_AND) {
    iiNestConds(p->pLeft, iField, ppOr, pRc);
    iiNestConds(p->pRight, iField, ppOr, pRc);
    return;
  }
  if (p->eType != II_NEST || p->iField != iField) return;
  pCopy = iiExprCopy(p->pLeft, pRc);
  if (pCopy == NULL) return;
  if (*ppOr == NULL) {
    *ppOr = pCopy;
    return;
  }
  pOr = (IiExpr *)sqlite3_malloc64(sizeof(IiExpr));
  if (pOr == NULL) {
    iiQueryFree(pCopy);
    *pRc = SQLITE_NOMEM;
    return;
  }
  memset(pOr, 0, sizeof(*pOr));
  pOr->eType = II_OR;
  pOr->pLeft = *ppOr;
  pOr->pRight = pCopy;
  *ppOr = pOr;
}

/*
** The element query a facet of key iKey of nested field iField counts for
** term zTerm under query pQuery (NULL: none): the inner query (C1 OR ...
** OR Cn) AND key:term of iField:{...}, where C1... are the element
** queries on iField that are top-level AND operands of pQuery. So the
** facet counts the documents of the audience with one element that the
** query matched (it meets one of those conditions) and has the term:
** with skills:{skill:poetry} AND skills:{skill:math}, the levels of the
** poetry and of the math elements. A new tree (iiQueryFree), or NULL
** with *pRc set.
*/
IiExpr *iiQueryNestFacet(const IiExpr *pQuery, int iField, int iKey, const char *zTerm, int nTerm, int *pRc) {
  IiExpr *pConds = NULL, *pTerm, *pAnd;
  if (*pRc != SQLITE_OK) return NULL;
  if (pQuery) iiNestConds(pQuery, iField, &pConds, pRc);
  if (*pRc != SQLITE_OK) {
    iiQueryFree(pConds);
    return NULL;
  }
  pTerm = (IiExpr *)sqlite3_malloc64(sizeof(IiExpr));
  pAnd = pConds ? (IiExpr *)sqlite3_malloc64(sizeof(IiExpr)) : NULL;
  if (pTerm) {
    memset(pTerm, 0, sizeof(*pTerm));
    pTerm->zTerm = (char *)sqlite3_malloc64((size_t)nTerm + 1);
  }
  if (pTerm == NULL || pTerm->zTerm == NULL || (pConds && pAnd == NULL)) {
    if (pTerm) sqlite3_free(pTerm->zTerm);
    sqlite3_free(pTerm);
    sqlite3_free(pAnd);
    iiQueryFree(pConds);
    *pRc = SQLITE_NOMEM;
    return NULL;
  }
  pTerm->eType = II_TERM;
  pTerm->iField = iKey;
  memcpy(pTerm->zTerm, zTerm, (size_t)nTerm);
  pTerm->zTerm[nTerm] = 0;
  pTerm->nTerm = nTerm;
  if (pAnd == NULL) return pTerm;
  memset(pAnd, 0, sizeof(*pAnd));
  pAnd->eType = II_AND;
  pAnd->pLeft = pConds;
  pAnd->pRight = pTerm;
  return pAnd;
}

/*
** Facet kernels. Both count, for each audience q in aAud[0..nAud) and each
** term t in 0..nTerm, |aAud[q] AND posting(t)| into aCount[q * nTerm + t]
** (zeroed by the caller).
**
** iiFacetBitmap intersects each term's posting list with each audience:
** cost ~ nTerm * nAud * (containers per bitmap).
**
** iiFacetDirect walks the direct index {doc -> term ids} once over the
** union of the audiences: aOff[doc]..aOff[doc + 1] index aTermId[], and
** aSlot[id] is the term's position in 0..nTerm or -1 for terms of other
** fields (nSlot entries). Cost ~ |union| * terms per document.
*/
void iiFacetBitmap(const roaring_bitmap_t *const *aAud, int nAud, const roaring_bitmap_t *const *aPost,
                   int nTerm, int64_t *aCount) {
  int q, t;
  for (t = 0; t < nTerm; t++) {
    for (q = 0; q < nAud; q++) {
      aCount[(size_t)q * (size_t)nTerm + (size_t)t] =
          (int64_t)roaring_bitmap_and_cardinality(aAud[q], aPost[t]);
    }
  }
}

int iiFacetDirect(const roaring_bitmap_t *const *aAud, int nAud, const uint64_t *aOff, uint32_t nDoc,
                  const uint32_t *aTermId, const int32_t *aSlot, uint32_t nSlot, int nTerm, int64_t *aCount) {
  roaring_uint32_iterator_t it;
  if (nAud == 1) {
    for (roaring_init_iterator(aAud[0], &it); it.has_value; roaring_advance_uint32_iterator(&it)) {
      uint32_t d = it.current_value;
      uint64_t k;
      if (d >= nDoc) continue;
      for (k = aOff[d]; k < aOff[d + 1]; k++) {
        uint32_t id = aTermId[k];
        if (id < nSlot && aSlot[id] >= 0) aCount[aSlot[id]]++;
      }
    }
    return SQLITE_OK;
  } else {
    roaring_bitmap_t *pUnion = roaring_bitmap_or_many((size_t)nAud, (const roaring_bitmap_t **)aAud);
    if (pUnion == NULL) return SQLITE_NOMEM;
    for (roaring_init_iterator(pUnion, &it); it.has_value; roaring_advance_uint32_iterator(&it)) {
      uint32_t d = it.current_value;
      int q;
      if (d >= nDoc) continue;
      for (q = 0; q < nAud; q++) {
        uint64_t k;
        if (!roaring_bitmap_contains(aAud[q], d)) continue;
        for (k = aOff[d]; k < aOff[d + 1]; k++) {
          uint32_t id = aTermId[k];
          if (id < nSlot && aSlot[id] >= 0) aCount[(size_t)q * (size_t)nTerm + (size_t)aSlot[id]]++;
        }
      }
    }
    roaring_bitmap_free(pUnion);
    return SQLITE_OK;
  }
}
