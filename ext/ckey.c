/*
** ckey.c: order-preserving composite keys (techniques 8 and 9 of the
** article), byte-compatible with the FoundationDB tuple layer.
**
**   ckey(v1, v2, ...)          -> BLOB  the tuple (v1, v2, ...) encoded so
**                                       that memcmp order = tuple order
**   ckey_decode(key)           -> TEXT  the tuple as a JSON array
**   ckey_part(key, i)          -> ANY   part i (0-based; -1 is the last)
**   ckey_length(key)           -> INT   number of parts
**   ckey_prefix(key, n)        -> BLOB  the first n parts (n < 0: all but -n)
**   ckey_prefix_end(prefix)    -> BLOB  the smallest key greater than every
**                                       key that starts with prefix's bytes
**   ckey_range_end(prefix)     -> BLOB  prefix || 0xFF: [prefix, this) holds
**                                       the keys whose leading parts are
**                                       exactly prefix's parts
**   ckey_join(sep, v1, ...)    -> TEXT  a delimited text key, sep and '\'
**                                       inside a part escaped with '\'
**
** (count_distinct_sorted, the one-pass aggregate over keys scanned in
** order, is in ext/hll.c with the other distinct counts; composite_scan
** and the kv functions have their own files and registrars.)
**
** How it works. Each part is a type code followed by its bytes, as in the
** FoundationDB tuple layer (design/tuple.md in apple/foundationdb):
**
**   NULL     0x00
**   BLOB     0x01, bytes with 0x00 written as 0x00 0xFF, then 0x00
**   TEXT     0x02, UTF-8 bytes escaped the same way, then 0x00
**   INTEGER  0x14 for zero; 0x14+n then n big-endian bytes for a positive
**            value of n significant bytes; 0x14-n then the one's complement
**            of |v| in n bytes for a negative one (so -1 is 0x13 0xFE)
**   REAL     0x21, then the big-endian IEEE double with the sign bit
**            flipped (positive) or every bit flipped (negative)
**
** Type codes order mixed types (NULL < BLOB < TEXT < INTEGER < REAL), as in
** FoundationDB; that is not SQLite's order (numbers < text < blob), so
** compare same-typed parts. The encoding is prefix-free: no part's bytes
** are a prefix of another part's, which makes a key range [prefix,
** ckey_prefix_end(prefix)) hold exactly the keys that start with a prefix
** of whole parts. Decoders take (pointer, length), never read past it, and
** reject anything ckey() cannot produce (unknown type codes, truncated
** parts, integers with leading zero bytes or out of the 64-bit range).
*/
#include "nosqlTest.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/**************************************************************************
** Pure C core: no sqlite3_* calls beyond the buffer helpers.
*/

int ckeyEncodeInt(unsigned char *a, sqlite3_int64 v) {
  sqlite3_uint64 u;
  int n = 0;
  int i;
  if (v == 0) {
    a[0] = CKEY_INT_ZERO;
    return 1;
  }
  /* |v| as unsigned; correct for the smallest int64 too. */
  u = v > 0 ? (sqlite3_uint64)v : (sqlite3_uint64)0 - (sqlite3_uint64)v;
  while (n < 8 && (u >> (8 * n)) != 0) n++;
  if (v < 0) u = ~u; /* One's complement: only the low n bytes are written */
  a[0] = (unsigned char)(v > 0 ? CKEY_INT_ZERO + n : CKEY_INT_ZERO - n);
  for (i = 0; i < n; i++) a[1 + i] = (unsigned char)(u >> (8 * (n - 1 - i)));
  return 1 + n;
}

int ckeyEncodeReal(unsigned char *a, double r) {
  sqlite3_uint64 u;
  int i;
  memcpy(&u, &r, 8);
  u = (u >> 63) ? ~u : (u | ((sqlite3_uint64)1 << 63));
  a[0] = CKEY_REAL;
  for (i = 0; i < 8; i++) a[1 + i] = (unsigned char)(u >> (56 - 8 * i));
  return 9;
}

void ckeyAppendBytes(int *pRc, NosqlBuffer *pBuf, int eCode, const unsigned char *z, sqlite3_int64 n) {
  sqlite3_int64 i, iStart = 0;
  unsigned char c = (unsigned char)eCode;
  static const unsigned char aEsc[2] = {0x00, 0xFF};
  nosqlBufferAppend(pRc, pBuf, &c, 1);
  for (i = 0; i < n; i++) {
    if (z[i] == 0) {
      nosqlBufferAppend(pRc, pBuf, &z[iStart], i - iStart);
      nosqlBufferAppend(pRc, pBuf, aEsc, 2);
      iStart = i + 1;
    }
  }
  nosqlBufferAppend(pRc, pBuf, &z[iStart], n - iStart);
  nosqlBufferAppend(pRc, pBuf, aEsc, 1);
}

const char *ckeyParse(const unsigned char *a, int n, int *piOff, CkeyPart *pPart) {
  int i = *piOff;
  int c;
  memset(pPart, 0, sizeof(*pPart));
  if (i >= n) return "no part left";
  c = a[i];
  pPart->iStart = i;
  if (c == CKEY_NULL) {
    pPart->eType = SQLITE_NULL;
    i++;
  } else if (c == CKEY_BLOB || c == CKEY_TEXT) {
    int j = i + 1;
    int nEsc = 0;
    for (;;) {
      if (j >= n) return c == CKEY_TEXT ? "unterminated text" : "unterminated blob";
      if (a[j] == 0) {
        if (j + 1 < n && a[j + 1] == 0xFF) {
          nEsc++;
          j += 2;
          continue;
        }
        break;
      }
      j++;
    }
    pPart->eType = c == CKEY_TEXT ? SQLITE_TEXT : SQLITE_BLOB;
    pPart->z = &a[i + 1];
    pPart->nRaw = j - (i + 1);
    pPart->nData = pPart->nRaw - nEsc;
    i = j + 1;
  } else if (c >= CKEY_INT_ZERO - 8 && c <= CKEY_INT_ZERO + 8) {
    int nByte = c > CKEY_INT_ZERO ? c - CKEY_INT_ZERO : CKEY_INT_ZERO - c;
    sqlite3_uint64 u = 0;
    int k;
    if (i + 1 + nByte > n) return "truncated integer";
    for (k = 0; k < nByte; k++) u = (u << 8) | a[i + 1 + k];
    if (c < CKEY_INT_ZERO) {
      if (nByte < 8) u |= ~(sqlite3_uint64)0 << (8 * nByte);
      u = ~u; /* |v| */
      if (nByte > 0 && (u >> (8 * (nByte - 1))) == 0) return "non-canonical integer";
      if (u > (sqlite3_uint64)1 << 63) return "integer below the 64-bit range";
      pPart->iVal = (sqlite3_int64)((sqlite3_uint64)0 - u);
    } else {
      if (nByte > 0 && (u >> (8 * (nByte - 1))) == 0) return "non-canonical integer";
      if (u > (sqlite3_uint64)INT64_MAX) return "integer above the 64-bit range";
      pPart->iVal = (sqlite3_int64)u;
    }
    pPart->eType = SQLITE_INTEGER;
    i += 1 + nByte;
  } else if (c == CKEY_REAL) {
    sqlite3_uint64 u = 0;
    int k;
    if (i + 9 > n) return "truncated real";
    for (k = 0; k < 8; k++) u = (u << 8) | a[i + 1 + k];
    u = (u >> 63) ? (u & ~((sqlite3_uint64)1 << 63)) : ~u;
    memcpy(&pPart->rVal, &u, 8);
    /* SQLite has no NaN (it becomes NULL), so ckey() never writes one. */
    if (isnan(pPart->rVal)) return "NaN real";
    pPart->eType = SQLITE_FLOAT;
    i += 9;
  } else {
    return "unsupported type code";
  }
  pPart->nByte = i - pPart->iStart;
  *piOff = i;
  return NULL;
}

void ckeyUnescape(const unsigned char *z, int nRaw, unsigned char *aOut) {
  int i, j = 0;
  for (i = 0; i < nRaw; i++) {
    aOut[j++] = z[i];
    if (z[i] == 0) i++; /* Skip the 0xFF that follows an escaped 0x00 */
  }
}

int ckeyStrinc(const unsigned char *a, int n, unsigned char *aOut) {
  while (n > 0 && a[n - 1] == 0xFF) n--;
  if (n == 0) return -1;
  memcpy(aOut, a, (size_t)n);
  aOut[n - 1]++;
  return n;
}

/**************************************************************************
** SQL glue.
*/

/* Append the encoding of one SQL value to pBuf. */
static void ckeyAppendValue(int *pRc, NosqlBuffer *pBuf, sqlite3_value *pVal) {
  unsigned char aNum[9];
  switch (sqlite3_value_type(pVal)) {
    case SQLITE_NULL:
      aNum[0] = CKEY_NULL;
      nosqlBufferAppend(pRc, pBuf, aNum, 1);
      break;
    case SQLITE_INTEGER:
      nosqlBufferAppend(pRc, pBuf, aNum, ckeyEncodeInt(aNum, sqlite3_value_int64(pVal)));
      break;
    case SQLITE_FLOAT:
      nosqlBufferAppend(pRc, pBuf, aNum, ckeyEncodeReal(aNum, sqlite3_value_double(pVal)));
      break;
    case SQLITE_TEXT: {
      const unsigned char *z = sqlite3_value_text(pVal);
      if (z == NULL) {
        *pRc = SQLITE_NOMEM;
        return;
      }
      ckeyAppendBytes(pRc, pBuf, CKEY_TEXT, z, sqlite3_value_bytes(pVal));
      break;
    }
    default: {
      const unsigned char *z = (const unsigned char *)sqlite3_value_blob(pVal);
      ckeyAppendBytes(pRc, pBuf, CKEY_BLOB, z, sqlite3_value_bytes(pVal));
      break;
    }
  }
}

/* Hand a finished buffer to SQLite as the result, or report its error. */
static void ckeyResultBuffer(sqlite3_context *ctx, int rc, NosqlBuffer *pBuf, int bText) {
  if (rc != SQLITE_OK && rc != SQLITE_TOOBIG) {
    nosqlBufferFree(pBuf);
    sqlite3_result_error_code(ctx, rc);
    return;
  }
  if (rc == SQLITE_TOOBIG ||
      pBuf->n > sqlite3_limit(sqlite3_context_db_handle(ctx), SQLITE_LIMIT_LENGTH, -1)) {
    nosqlBufferFree(pBuf);
    sqlite3_result_error_toobig(ctx);
    return;
  }
  if (pBuf->a == NULL) {
    if (bText)
      sqlite3_result_text(ctx, "", 0, SQLITE_STATIC);
    else
      sqlite3_result_zeroblob(ctx, 0);
    return;
  }
  if (bText)
    sqlite3_result_text64(ctx, (const char *)pBuf->a, (sqlite3_uint64)pBuf->n, sqlite3_free, SQLITE_UTF8);
  else
    sqlite3_result_blob64(ctx, pBuf->a, (sqlite3_uint64)pBuf->n, sqlite3_free);
}

/* ckey(v1, ...): the order-preserving encoding of the tuple. */
static void ckeyFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  NosqlBuffer b = {0, 0, 0};
  int rc = SQLITE_OK;
  int i;
  for (i = 0; i < argc; i++) ckeyAppendValue(&rc, &b, argv[i]);
  ckeyResultBuffer(ctx, rc, &b, 0);
}

/*
** The key argument of a decoding function: a blob (or NULL, which the
** caller turns into a NULL result). Anything else is an error naming zFunc.
** Returns 1 when *pa and *pn are set, 0 when the result has been set.
*/
static int ckeyArg(sqlite3_context *ctx, const char *zFunc, sqlite3_value *pVal, const unsigned char **pa,
                   int *pn) {
  int eType = sqlite3_value_type(pVal);
  if (eType == SQLITE_NULL) {
    sqlite3_result_null(ctx);
    return 0;
  }
  if (eType != SQLITE_BLOB) {
    char *zVal = nosqlValueQuote(pVal);
    nosqlResultError(ctx, "%s: key %s is not a blob made by ckey()", zFunc, zVal ? zVal : "?");
    sqlite3_free(zVal);
    return 0;
  }
  *pa = (const unsigned char *)sqlite3_value_blob(pVal);
  *pn = sqlite3_value_bytes(pVal);
  if (*pa == NULL) *pa = (const unsigned char *)"";
  return 1;
}

/* Report a malformed key: "ckey_decode: malformed key x'15': truncated integer at byte 0". */
static void ckeyMalformed(sqlite3_context *ctx, const char *zFunc, sqlite3_value *pKey, const char *zWhy,
                          int iByte) {
  char *zVal = nosqlValueQuote(pKey);
  nosqlResultError(ctx, "%s: malformed key %s: %s at byte %d", zFunc, zVal ? zVal : "?", zWhy, iByte);
  sqlite3_free(zVal);
}

/*
** Split a key into its parts. On success returns the number of parts and
** fills aPart[] with up to nPart of them; on a malformed key sets the
** result to an error and returns -1.
*/
static int ckeySplit(sqlite3_context *ctx, const char *zFunc, sqlite3_value *pKey, const unsigned char *a,
                     int n, CkeyPart *aPart, int nPart) {
  int iOff = 0;
  int nFound = 0;
  while (iOff < n) {
    CkeyPart part;
    int iStart = iOff;
    const char *zErr = ckeyParse(a, n, &iOff, &part);
    if (zErr) {
      ckeyMalformed(ctx, zFunc, pKey, zErr, iStart);
      return -1;
    }
    if (nFound < nPart) aPart[nFound] = part;
    nFound++;
  }
  return nFound;
}

void ckeyResultPart(sqlite3_context *ctx, const CkeyPart *p) {
  switch (p->eType) {
    case SQLITE_NULL:
      sqlite3_result_null(ctx);
      break;
    case SQLITE_INTEGER:
      sqlite3_result_int64(ctx, p->iVal);
      break;
    case SQLITE_FLOAT:
      sqlite3_result_double(ctx, p->rVal);
      break;
    default: {
      unsigned char *aOut;
      if (p->nData == p->nRaw) {
        if (p->eType == SQLITE_TEXT)
          sqlite3_result_text(ctx, (const char *)p->z, p->nData, SQLITE_TRANSIENT);
        else
          sqlite3_result_blob(ctx, p->z, p->nData, SQLITE_TRANSIENT);
        break;
      }
      aOut = (unsigned char *)sqlite3_malloc64((sqlite3_uint64)p->nData + 1);
      if (aOut == NULL) {
        sqlite3_result_error_nomem(ctx);
        break;
      }
      ckeyUnescape(p->z, p->nRaw, aOut);
      if (p->eType == SQLITE_TEXT)
        sqlite3_result_text(ctx, (const char *)aOut, p->nData, sqlite3_free);
      else
        sqlite3_result_blob(ctx, aOut, p->nData, sqlite3_free);
      break;
    }
  }
}

/*
** ckey_decode's output grows up to six times its input (a control
** character becomes \u0001): stop at nLimit bytes (SQLITE_LIMIT_LENGTH),
** checked every 4096 input bytes, rather than build a result SQLite would
** refuse anyway.
*/
static void ckeyCheckLength(int *pRc, const NosqlBuffer *pBuf, sqlite3_int64 nLimit) {
  if (*pRc == SQLITE_OK && pBuf->n > nLimit) *pRc = SQLITE_TOOBIG;
}

/* Append bytes as a JSON string (RFC 8259 escapes), at most about nLimit bytes. */
static void ckeyAppendJsonString(int *pRc, NosqlBuffer *pBuf, const unsigned char *z, int n,
                                 sqlite3_int64 nLimit) {
  int i;
  nosqlBufferAppend(pRc, pBuf, "\"", 1);
  for (i = 0; i < n && *pRc == SQLITE_OK; i++) {
    unsigned char c = z[i];
    if ((i & 0xfff) == 0xfff) ckeyCheckLength(pRc, pBuf, nLimit);
    if (c == '"' || c == '\\') {
      char a[2] = {'\\', (char)c};
      nosqlBufferAppend(pRc, pBuf, a, 2);
    } else if (c < 0x20) {
      nosqlBufferAppendf(pRc, pBuf, "\\u%04x", c);
    } else {
      nosqlBufferAppend(pRc, pBuf, &c, 1);
    }
  }
  nosqlBufferAppend(pRc, pBuf, "\"", 1);
}

/* ckey_decode(key): the parts as a JSON array. */
static void ckeyDecodeFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const unsigned char *a;
  int n, iOff = 0;
  int rc = SQLITE_OK;
  NosqlBuffer b = {0, 0, 0};
  sqlite3_int64 nLimit = sqlite3_limit(sqlite3_context_db_handle(ctx), SQLITE_LIMIT_LENGTH, -1);
  (void)argc;
  if (!ckeyArg(ctx, "ckey_decode", argv[0], &a, &n)) return;
  nosqlBufferAppend(&rc, &b, "[", 1);
  while (iOff < n && rc == SQLITE_OK) {
    CkeyPart part;
    int iStart = iOff;
    const char *zErr = ckeyParse(a, n, &iOff, &part);
    if (zErr) {
      nosqlBufferFree(&b);
      ckeyMalformed(ctx, "ckey_decode", argv[0], zErr, iStart);
      return;
    }
    if (iStart > 0) nosqlBufferAppend(&rc, &b, ",", 1);
    switch (part.eType) {
      case SQLITE_NULL:
        nosqlBufferAppend(&rc, &b, "null", 4);
        break;
      case SQLITE_INTEGER:
        nosqlBufferAppendf(&rc, &b, "%lld", part.iVal);
        break;
      case SQLITE_FLOAT:
        nosqlBufferJsonReal(&rc, &b, part.rVal); /* -0.0, 9e999, NaN as null */
        break;
      default: {
        unsigned char *aOut = (unsigned char *)sqlite3_malloc64((sqlite3_uint64)part.nData + 1);
        if (aOut == NULL) {
          rc = SQLITE_NOMEM;
          break;
        }
        ckeyUnescape(part.z, part.nRaw, aOut);
        if (part.eType == SQLITE_TEXT) {
          ckeyAppendJsonString(&rc, &b, aOut, part.nData, nLimit);
        } else {
          static const char aHex[] = "0123456789ABCDEF";
          int k;
          nosqlBufferAppend(&rc, &b, "{\"blob\":\"", 9);
          for (k = 0; k < part.nData && rc == SQLITE_OK; k++) {
            char aDigit[2] = {aHex[aOut[k] >> 4], aHex[aOut[k] & 15]};
            nosqlBufferAppend(&rc, &b, aDigit, 2);
            if ((k & 0xfff) == 0xfff) ckeyCheckLength(&rc, &b, nLimit);
          }
          nosqlBufferAppend(&rc, &b, "\"}", 2);
        }
        sqlite3_free(aOut);
        break;
      }
    }
    ckeyCheckLength(&rc, &b, nLimit);
  }
  nosqlBufferAppend(&rc, &b, "]", 1);
  ckeyResultBuffer(ctx, rc, &b, 1);
}

/*
** An integer index argument: *piOut on success (returns 1); NULL -> NULL
** result; a non-integer -> error. Returns 0 when the result has been set.
*/
static int ckeyIntArg(sqlite3_context *ctx, const char *zFunc, const char *zWhat, sqlite3_value *pVal,
                      sqlite3_int64 *piOut) {
  int eType = sqlite3_value_numeric_type(pVal);
  if (eType == SQLITE_NULL) {
    sqlite3_result_null(ctx);
    return 0;
  }
  if (eType != SQLITE_INTEGER) {
    char *zVal = nosqlValueQuote(pVal);
    nosqlResultError(ctx, "%s: %s %s is not an integer", zFunc, zWhat, zVal ? zVal : "?");
    sqlite3_free(zVal);
    return 0;
  }
  *piOut = sqlite3_value_int64(pVal);
  return 1;
}

/* ckey_part(key, i): part i, 0-based, negative from the end; NULL when out of range. */
static void ckeyPartFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const unsigned char *a;
  int n, nPart;
  sqlite3_int64 i;
  int iOff = 0, k;
  CkeyPart part;
  (void)argc;
  if (!ckeyArg(ctx, "ckey_part", argv[0], &a, &n)) return;
  if (!ckeyIntArg(ctx, "ckey_part", "index", argv[1], &i)) return;
  nPart = ckeySplit(ctx, "ckey_part", argv[0], a, n, NULL, 0);
  if (nPart < 0) return;
  if (i < 0) i += nPart;
  if (i < 0 || i >= nPart) {
    sqlite3_result_null(ctx);
    return;
  }
  for (k = 0; k <= i; k++) ckeyParse(a, n, &iOff, &part);
  ckeyResultPart(ctx, &part);
}

/* ckey_length(key): the number of parts. */
static void ckeyLengthFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const unsigned char *a;
  int n, nPart;
  (void)argc;
  if (!ckeyArg(ctx, "ckey_length", argv[0], &a, &n)) return;
  nPart = ckeySplit(ctx, "ckey_length", argv[0], a, n, NULL, 0);
  if (nPart >= 0) sqlite3_result_int(ctx, nPart);
}

/* ckey_prefix(key, n): the first n parts (n < 0: all but the last -n). */
static void ckeyPrefixFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const unsigned char *a;
  int n, nPart, iOff = 0, k;
  sqlite3_int64 nWant;
  CkeyPart part;
  (void)argc;
  if (!ckeyArg(ctx, "ckey_prefix", argv[0], &a, &n)) return;
  if (!ckeyIntArg(ctx, "ckey_prefix", "count", argv[1], &nWant)) return;
  nPart = ckeySplit(ctx, "ckey_prefix", argv[0], a, n, NULL, 0);
  if (nPart < 0) return;
  if (nWant < 0) nWant += nPart;
  if (nWant < 0 || nWant > nPart) {
    char *zVal = nosqlValueQuote(argv[0]);
    nosqlResultError(ctx, "ckey_prefix: count %lld is outside [-%d, %d] for key %s",
                     sqlite3_value_int64(argv[1]), nPart, nPart, zVal ? zVal : "?");
    sqlite3_free(zVal);
    return;
  }
  for (k = 0; k < nWant; k++) ckeyParse(a, n, &iOff, &part);
  sqlite3_result_blob(ctx, a, iOff, SQLITE_TRANSIENT);
}

/* ckey_prefix_end(prefix): the strinc successor; text in, text out. */
static void ckeyPrefixEndFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  int eType = sqlite3_value_type(argv[0]);
  const unsigned char *a;
  unsigned char *aOut;
  int n, nOut;
  (void)argc;
  if (eType == SQLITE_NULL) return;
  if (eType != SQLITE_BLOB && eType != SQLITE_TEXT) {
    char *zVal = nosqlValueQuote(argv[0]);
    nosqlResultError(ctx, "ckey_prefix_end: prefix %s is not a blob or text", zVal ? zVal : "?");
    sqlite3_free(zVal);
    return;
  }
  a = eType == SQLITE_BLOB ? (const unsigned char *)sqlite3_value_blob(argv[0]) : sqlite3_value_text(argv[0]);
  n = sqlite3_value_bytes(argv[0]);
  aOut = (unsigned char *)sqlite3_malloc64((sqlite3_uint64)n + 1);
  if (aOut == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  nOut = a ? ckeyStrinc(a, n, aOut) : -1;
  if (nOut < 0) {
    char *zVal = nosqlValueQuote(argv[0]);
    sqlite3_free(aOut);
    nosqlResultError(ctx, "ckey_prefix_end: prefix %s has no successor (empty or all 0xFF bytes)",
                     zVal ? zVal : "?");
    sqlite3_free(zVal);
    return;
  }
  if (eType == SQLITE_TEXT)
    sqlite3_result_text(ctx, (const char *)aOut, nOut, sqlite3_free);
  else
    sqlite3_result_blob(ctx, aOut, nOut, sqlite3_free);
}

/* ckey_range_end(prefix): prefix || 0xFF, the end of the keys that extend prefix by whole parts. */
static void ckeyRangeEndFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const unsigned char *a;
  unsigned char *aOut;
  int n;
  (void)argc;
  if (!ckeyArg(ctx, "ckey_range_end", argv[0], &a, &n)) return;
  if (ckeySplit(ctx, "ckey_range_end", argv[0], a, n, NULL, 0) < 0) return;
  aOut = (unsigned char *)sqlite3_malloc64((sqlite3_uint64)n + 1);
  if (aOut == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (n > 0) memcpy(aOut, a, (size_t)n);
  aOut[n] = 0xFF;
  sqlite3_result_blob(ctx, aOut, n + 1, sqlite3_free);
}

void ckeyAppendEscaped(int *pRc, NosqlBuffer *pBuf, const unsigned char *z, sqlite3_int64 n, int cSep) {
  sqlite3_int64 i, iStart = 0;
  for (i = 0; i < n; i++) {
    if (z[i] == cSep || z[i] == '\\') {
      nosqlBufferAppend(pRc, pBuf, &z[iStart], i - iStart);
      nosqlBufferAppend(pRc, pBuf, "\\", 1);
      iStart = i;
    }
  }
  nosqlBufferAppend(pRc, pBuf, &z[iStart], n - iStart);
}

/* The separator a text argument names (one ASCII byte other than '\\'), or -1. */
static int ckeySepArg(sqlite3_value *pVal) {
  const unsigned char *z = sqlite3_value_text(pVal);
  if (sqlite3_value_type(pVal) != SQLITE_TEXT || z == NULL || sqlite3_value_bytes(pVal) != 1) return -1;
  if (z[0] == '\\' || z[0] >= 0x80 || z[0] == 0) return -1;
  return z[0];
}

/* ckey_join(sep, v1, ...): a delimited text key with escaped parts. */
static void ckeyJoinFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  NosqlBuffer b = {0, 0, 0};
  int rc = SQLITE_OK;
  int cSep, i;
  if (argc < 2) {
    sqlite3_result_error(ctx, "ckey_join: expected a separator and at least one part", -1);
    return;
  }
  cSep = ckeySepArg(argv[0]);
  if (cSep < 0) {
    char *zVal = nosqlValueQuote(argv[0]);
    nosqlResultError(ctx, "ckey_join: separator %s is not one ASCII character other than '\\'",
                     zVal ? zVal : "?");
    sqlite3_free(zVal);
    return;
  }
  for (i = 1; i < argc; i++) {
    const unsigned char *z;
    if (sqlite3_value_type(argv[i]) == SQLITE_NULL) {
      nosqlBufferFree(&b);
      nosqlResultError(ctx, "ckey_join: part %d is NULL, which a text key cannot hold", i);
      return;
    }
    z = sqlite3_value_text(argv[i]);
    if (z == NULL) {
      rc = SQLITE_NOMEM;
      break;
    }
    if (i > 1) {
      char c = (char)cSep;
      nosqlBufferAppend(&rc, &b, &c, 1);
    }
    ckeyAppendEscaped(&rc, &b, z, sqlite3_value_bytes(argv[i]), cSep);
  }
  ckeyResultBuffer(ctx, rc, &b, 1);
}

int ckeyRegister(sqlite3 *db) {
  static const struct {
    const char *zName;                                       /* SQL name */
    int nArg;                                                /* Number of arguments, -1 for any */
    void (*xFunc)(sqlite3_context *, int, sqlite3_value **); /* Implementation */
  } aFunc[] = {
      {"ckey", -1, ckeyFunc},
      {"ckey_decode", 1, ckeyDecodeFunc},
      {"ckey_part", 2, ckeyPartFunc},
      {"ckey_length", 1, ckeyLengthFunc},
      {"ckey_prefix", 2, ckeyPrefixFunc},
      {"ckey_prefix_end", 1, ckeyPrefixEndFunc},
      {"ckey_range_end", 1, ckeyRangeEndFunc},
      {"ckey_join", -1, ckeyJoinFunc},
  };
  size_t i;
  int rc = SQLITE_OK;
  for (i = 0; i < sizeof(aFunc) / sizeof(aFunc[0]) && rc == SQLITE_OK; i++) {
    rc = sqlite3_create_function(db, aFunc[i].zName, aFunc[i].nArg, NOSQL_PURE, 0, aFunc[i].xFunc, 0, 0);
  }
  return rc;
}
