/*
** nosqlInt.h: the internal header shared by every file in ext/.
**
** One banner per source file declares what that file offers the others,
** in the fts5Int.h manner. Nothing here is part of the public interface:
** the only exported symbol of the extension is sqlite3_nosql_init().
*/
#ifndef NOSQL_INT_H
#define NOSQL_INT_H

#include "sqlite3ext.h"

#include <stddef.h>
#include <stdint.h>

/*
** Every source file in ext/ is part of one extension and shares its one
** sqlite3_api pointer. The pointer gets a private name so that a host that
** links libnosql.a next to another statically linked extension does not see
** two definitions of "sqlite3_api".
*/
#define sqlite3_api nosql_sqlite3_api
SQLITE_EXTENSION_INIT3

/* Flags of a pure SQL function: usable in indexes and generated columns. */
#define NOSQL_PURE (SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS)
/* Flags of a function with side effects: never callable from schema code. */
#define NOSQL_EFFECT (SQLITE_UTF8 | SQLITE_DIRECTONLY)

/**************************************************************************
** Interface to code in ext/util.c
*/

/*
** A growable byte buffer with the sticky error code API of fts5: every
** call takes "int *pRc" and does nothing when *pRc is not SQLITE_OK, so a
** builder can make many calls and check the code once at the end. The
** buffer owns a[], allocated with sqlite3_malloc64; free it with
** nosqlBufferFree(). a[] is always NUL terminated one past n when n > 0,
** so text built here can be handed to SQLite as a C string.
*/
typedef struct NosqlBuffer NosqlBuffer;
struct NosqlBuffer {
  unsigned char *a;     /* Bytes; NULL until the first append */
  sqlite3_int64 n;      /* Bytes used, not counting the terminating NUL */
  sqlite3_int64 nAlloc; /* Bytes allocated for a[] */
};

void nosqlBufferGrow(int *pRc, NosqlBuffer *p, sqlite3_int64 nMore);
void nosqlBufferAppend(int *pRc, NosqlBuffer *p, const void *a, sqlite3_int64 n);
void nosqlBufferAppendf(int *pRc, NosqlBuffer *p, const char *zFmt, ...);
void nosqlBufferReset(NosqlBuffer *p);
void nosqlBufferFree(NosqlBuffer *p);

/*
** Render an argument for an error message: numbers as SQLite prints them,
** text in single quotes (truncated to 60 bytes), blobs as x'..' (truncated),
** NULL as NULL. Returns a string from sqlite3_mprintf (caller frees), or
** NULL on OOM.
*/
char *nosqlValueQuote(sqlite3_value *pVal);

/*
** Report a printf-style error message as the result of an SQL function. By
** convention the message starts with the function's name and quotes the
** bad value: "geohash: latitude 91.5 is outside [-90, 90]". On OOM it
** reports SQLITE_NOMEM instead.
*/
void nosqlResultError(sqlite3_context *ctx, const char *zFmt, ...);

/*
** Set pVtab->zErrMsg to a new message, freeing the old one.
*/
void nosqlVtabError(sqlite3_vtab *pVtab, const char *zFmt, ...);

/**************************************************************************
** Interface to code in ext/nosql.c
*/

/* The text of the VERSION file, baked in at build time. */
extern const char nosqlVersionText[];

/**************************************************************************
** Interface to code in ext/ckey.c (FoundationDB tuple-layer keys)
*/

/* Type codes of the tuple layer used by ckey(); docs/composite_keys.md. */
#define CKEY_NULL 0x00     /* NULL, no payload */
#define CKEY_BLOB 0x01     /* Bytes, 0x00 escaped as 0x00 0xFF, 0x00-terminated */
#define CKEY_TEXT 0x02     /* UTF-8, escaped and terminated as blobs */
#define CKEY_INT_ZERO 0x14 /* Integer zero; 0x14 +- n: n-byte positive/negative */
#define CKEY_REAL 0x21     /* IEEE double, sign-flipped, big-endian */
#define CKEY_MAX_INT 9     /* Longest integer or real encoding in bytes */

/* One decoded part of a key; points into the key, which must outlive it. */
typedef struct CkeyPart CkeyPart;
struct CkeyPart {
  int eType;              /* SQLITE_NULL, _INTEGER, _FLOAT, _TEXT or _BLOB */
  sqlite3_int64 iVal;     /* The integer, when eType is SQLITE_INTEGER */
  double rVal;            /* The real, when eType is SQLITE_FLOAT */
  const unsigned char *z; /* Escaped bytes of text/blob (no type code, no terminator) */
  int nRaw;               /* Bytes at z, escapes included */
  int nData;              /* Bytes once unescaped (nRaw minus the 0xFF escapes) */
  int iStart;             /* Offset of the type code in the key */
  int nByte;              /* Bytes of the whole part, type code and terminator included */
};

/* Write the encoding of an integer / a real into a[] (CKEY_MAX_INT bytes); returns its length. */
int ckeyEncodeInt(unsigned char *a, sqlite3_int64 v);
int ckeyEncodeReal(unsigned char *a, double r);
/* Append a text (eCode CKEY_TEXT) or blob (CKEY_BLOB) part: code, escaped bytes, terminator. */
void ckeyAppendBytes(int *pRc, NosqlBuffer *pBuf, int eCode, const unsigned char *z, sqlite3_int64 n);
/* Append the encoding of one SQL value. */
void ckeyAppendValue(int *pRc, NosqlBuffer *pBuf, sqlite3_value *pVal);
/*
** Decode the part that starts at a[*piOff] (of n bytes), advance *piOff
** past it. Returns NULL, or a static description of why the bytes are not
** a part ckey() can make ("truncated integer", ...), *piOff unchanged.
*/
const char *ckeyParse(const unsigned char *a, int n, int *piOff, CkeyPart *pPart);
/* Set the result of ctx to a decoded part, with its SQLite type (text and blobs copied). */
void ckeyResultPart(sqlite3_context *ctx, const CkeyPart *pPart);
/* Copy the nRaw escaped bytes at z to aOut (room for nData bytes), removing escapes. */
void ckeyUnescape(const unsigned char *z, int nRaw, unsigned char *aOut);
/*
** The strinc successor of a[0..n): drop trailing 0xFF bytes, add one to the
** last byte. Writes it to aOut (room for n bytes) and returns its length,
** or -1 when a[] is empty or all 0xFF (no successor exists).
*/
int ckeyStrinc(const unsigned char *a, int n, unsigned char *aOut);
/* Append z[0..n) to a delimited key: cSep and '\' get a '\' before them. */
void ckeyAppendEscaped(int *pRc, NosqlBuffer *pBuf, const unsigned char *z, sqlite3_int64 n, int cSep);
/* The separator a text argument names (one ASCII byte other than '\\'), or -1. */
int ckeySepArg(sqlite3_value *pVal);

/**************************************************************************
** Interface to code in ext/hll.c (HyperLogLog)
*/

/* 64-bit hashes of bytes (seed separates value types) and of an integer. */
uint64_t hllHashBytes(const void *pData, size_t n, uint64_t seed);
uint64_t hllHashInt(int64_t v);
/* Add hash h to the 2^p one-byte registers aReg[]. */
void hllAdd(unsigned char *aReg, int p, uint64_t h);
/* The cardinality estimate of 2^p registers (Ertl's improved estimator). */
double hllEstimate(const unsigned char *aReg, int p);
/* Bytes of a serialized sketch of precision p. */
int hllSketchBytes(int p);
/* Write registers as a sketch into aOut (hllSketchBytes(p) bytes). */
void hllSerialize(const unsigned char *aReg, int p, unsigned char *aOut);
/*
** Validate the sketch a[0..n) and, if aReg is not NULL, unpack its
** registers there (room for 2^p). Returns NULL and sets *pp, or a static
** description of what is wrong.
*/
const char *hllDeserialize(const unsigned char *a, int n, unsigned char *aReg, int *pp);

/**************************************************************************
** Interface to code in ext/kv.c (counters)
*/

/* Adds by to *pValue unless the sum leaves the int64 range; returns 0 then (Redis INCRBY). */
int kvAddChecked(sqlite3_int64 *pValue, sqlite3_int64 by);

/**************************************************************************
** Registration functions: one per feature file, called in the order of the
** static table in ext/nosql.c. Each returns an SQLite result code.
*/
int nosqlCoreRegister(sqlite3 *db);
/* Composite keys (docs/composite_keys.md): ckey, composite_scan, hll and kv, in that order. */
int compositeKeysRegister(sqlite3 *db);
int ckeyRegister(sqlite3 *db);
int compositeScanRegister(sqlite3 *db);
int hllRegister(sqlite3 *db);
int kvRegister(sqlite3 *db);

#endif /* NOSQL_INT_H */
