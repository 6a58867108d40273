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
** Registration functions: one per feature file, called in the order of the
** static table in ext/nosql.c. Each returns an SQLite result code.
*/
int nosqlCoreRegister(sqlite3 *db);

/**************************************************************************
** Interface to code in ext/roaring_sql.c and ext/inverted_index.c
*/

/* CRoaring's bitmap type (roaring/roaring.h), opaque to other files. */
struct roaring_bitmap_s;

/*
** Check that a[0..n) is exactly one bitmap in CRoaring's portable format
** with well-formed containers (keys and array values ascending, runs
** disjoint and in range, bitset cardinalities equal to their popcount,
** offsets exact, no trailing bytes). Returns 0 if so, 1 if not. Never
** reads outside a[0..n).
*/
int roaringValidate(const unsigned char *a, size_t n);

/*
** Validate and deserialize a[0..n). Returns a new bitmap (free it with
** roaring_bitmap_free), or NULL with *pRc set to SQLITE_CORRUPT (bad
** bytes) or SQLITE_NOMEM. Does nothing when *pRc is not SQLITE_OK.
*/
struct roaring_bitmap_s *roaringDecode(const unsigned char *a, size_t n, int *pRc);

/*
** Blob frames of the inverted index's shadow tables: "IIB1", payload
** length, checksum (u32 little-endian each), then the payload.
** iiFrameHeader fills the 12-byte header for a payload; iiFrameCheck
** returns 0 and the payload when a[0..n) is one intact frame, else 1.
** iiBitmapFrame serializes a bitmap into a new framed blob
** (sqlite3_malloc64; NULL on OOM); iiBitmapUnframe checks and decodes one
** (NULL with *pRc SQLITE_CORRUPT or SQLITE_NOMEM).
*/
uint32_t iiChecksum(const unsigned char *a, size_t n);
void iiFrameHeader(unsigned char *aHdr, const unsigned char *aPayload, size_t nPayload);
int iiFrameCheck(const unsigned char *a, size_t n, const unsigned char **paPayload, size_t *pnPayload);
unsigned char *iiBitmapFrame(struct roaring_bitmap_s *p, size_t *pn);
struct roaring_bitmap_s *iiBitmapUnframe(const unsigned char *a, size_t n, int *pRc);

/*
** Queries: iiQueryParse returns the parsed tree (free with iiQueryFree),
** or NULL with *pRc set and, for SQLITE_ERROR, *pzErr a message naming the
** position (sqlite3_mprintf; the caller frees). Field names match
** case-insensitively. iiQueryEval evaluates a tree to a new bitmap
** (NULL and *pRc on failure); xLoad lends the posting list of a term, an
** empty bitmap for an unknown one, valid until the evaluation returns.
*/
typedef struct IiExpr IiExpr;
typedef int (*IiPostingLoader)(void *pCtx, int iField, const char *zTerm, int nTerm,
                               const struct roaring_bitmap_s **ppPost);
IiExpr *iiQueryParse(const char *zQuery, int nField, const char *const *azField, char **pzErr, int *pRc);
void iiQueryFree(IiExpr *p);
struct roaring_bitmap_s *iiQueryEval(IiExpr *pExpr, const struct roaring_bitmap_s *pUniverse,
                                     IiPostingLoader xLoad, void *pCtx, int *pRc);

/*
** The two facet kernels (contracts above their definitions): per-term
** document counts of several audiences, by bitmap intersections or by one
** walk of the direct index {doc -> term ids}.
*/
void iiFacetBitmap(const struct roaring_bitmap_s *const *aAud, int nAud,
                   const struct roaring_bitmap_s *const *aPost, int nTerm, int64_t *aCount);
int iiFacetDirect(const struct roaring_bitmap_s *const *aAud, int nAud, const uint64_t *aOff, uint32_t nDoc,
                  const uint32_t *aTermId, const int32_t *aSlot, uint32_t nSlot, int nTerm, int64_t *aCount);

int roaringRegister(sqlite3 *db);
int inverted_indexRegister(sqlite3 *db);

#endif /* NOSQL_INT_H */
