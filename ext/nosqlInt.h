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
** Interface to code in ext/mpath.c (materialized paths, ltree's lquery)
**
** The pure core, for the unit tests and the bench. Each function's
** contract (ownership, sizes, return values) is stated above its
** definition in ext/mpath.c; none of them calls sqlite3_*.
*/
typedef struct MpathLabel MpathLabel;
typedef struct MpathQuery MpathQuery;
typedef struct MpathTxtQuery MpathTxtQuery;

/* One label of a parsed path: a slice of the path's text. */
struct MpathLabel {
  int iOff; /* Byte offset of the label in the path */
  int n;    /* Bytes in the label, > 0 */
};

int mpathSepValid(char c);
int mpathSplit(const char *z, int n, char sep, MpathLabel *a, int nA, char *zErr, int nErr);
int64_t mpathLquerySize(int n);
MpathQuery *mpathLqueryCompile(const char *z, int n, char sep, void *pBuf, char *zErr, int nErr);
int64_t mpathMatchWorkSize(int nLabel);
/*
** Does path z, split into labels a[0..nLabel), match q? aWork holds
** mpathMatchWorkSize(nLabel) ints (unused up to MPATH_BITS_MAX labels).
** The Bits and Dp variants are the two programs it chooses between.
*/
#define MPATH_BITS_MAX 62
int mpathLqueryMatch(const MpathQuery *q, const char *z, const MpathLabel *a, int nLabel, int *aWork);
int mpathLqueryMatchBits(const MpathQuery *q, const char *z, const MpathLabel *a, int nLabel);
int mpathLqueryMatchDp(const MpathQuery *q, const char *z, const MpathLabel *a, int nLabel, int *aWork);
int mpathLqueryPrefix(const MpathQuery *q);
int64_t mpathTxtSize(int n);
MpathTxtQuery *mpathTxtCompile(const char *z, int n, char sep, void *pBuf, char *zErr, int nErr);
int mpathTxtMatch(MpathTxtQuery *q, const char *z, const MpathLabel *a, int nLabel);
int mpathIndex(const char *zA, const MpathLabel *a, int nA, const char *zB, const MpathLabel *b, int nB,
               int64_t iStart);
int mpathSubpathRange(int nLabel, int64_t iOff, int64_t nLen, int bLen, int64_t *piStart, int64_t *piEnd);
int mpathSubltreeRange(int nLabel, int64_t iStart, int64_t iEnd, int64_t *piStart, int64_t *piEnd);
int mpathLcaStep(const char *zA, const MpathLabel *a, const char *zB, const MpathLabel *b, int nB, int nKeep);
int mpathIsAncestor(const char *zA, const MpathLabel *a, int nA, const char *zB, const MpathLabel *b, int nB);

/* Registers the mpath_* functions and the mpath_ranges module. */
int mpathRegister(sqlite3 *db);

#endif /* NOSQL_INT_H */
