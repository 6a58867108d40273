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
** Interface to code in ext/nested_set.c: the label arithmetic and the
** rebuild of a forest, pure C (no sqlite3_* calls), for tests and bench.
*/

/* Labels lie strictly between 0 and NSET_LABEL_END. */
#define NSET_LABEL_END ((int64_t)1 << 62)
/* Spacing of consecutive labels after a rebuild (smaller for huge trees). */
#define NSET_GAP ((int64_t)1 << 32)
/* Widest spacing handed to new labels, so one gap serves many inserts. */
#define NSET_STEP ((int64_t)1 << 24)

/* New labels take at most 1/(n + NSET_SLACK) of a gap each, leaving room. */
#define NSET_SLACK 4

/*
** The spacing for nLabel new labels placed strictly between lo and hi:
** min((hi - lo) / (nLabel + NSET_SLACK), NSET_STEP), or the tightest fit
** (hi - lo) / (nLabel + 1) when that is 0; 0 when nothing fits.
*/
int64_t nsetStep(int64_t lo, int64_t hi, int64_t nLabel);

/*
** Where nLabel new labels go in the gap (lo, hi): returns the first, the
** others follow at spacing *pd (0: no room, relabel first). They sit at the
** low end of the gap (appends: the next append lands after them) or, with
** bHigh, at the high end (inserts before a sibling: the next such insert
** lands before them).
*/
int64_t nsetPlace(int64_t lo, int64_t hi, int64_t nLabel, int bHigh, int64_t *pd);

/*
** Whether an aligned window of 2^nBits label values may hold nLabel
** labels after relabelling: the average spacing must be at least
** 2^(nBits/2). The threshold tightens as windows grow, which bounds the
** amortised relabelling cost (online list labelling).
*/
int nsetWindowOk(int nBits, int64_t nLabel);

/*
** New values for the nLabel labels of the window [iFirst, iEnd), spread
** evenly in their order, with nHole empty slots before label number iHole
** (0..nLabel). Writes aLabel[0..nLabel-1]; all lie strictly inside.
*/
void nsetSpread(int64_t iFirst, int64_t iEnd, int64_t nLabel, int64_t iHole, int64_t nHole, int64_t *aLabel);

/* An id and the node it belongs to (nsetBuild() scratch). */
typedef struct NsetKey NsetKey;
struct NsetKey {
  int64_t id;    /* Node id */
  int64_t iNode; /* Index of the node in the input arrays */
};

/* Results of nsetBuild(). */
#define NSET_BUILD_OK 0        /* Labels computed */
#define NSET_BUILD_DUPLICATE 1 /* iErrId appears twice */
#define NSET_BUILD_ORPHAN 2    /* iErrId's parent iErrParent does not exist */
#define NSET_BUILD_CYCLE 3     /* iErrId (the smallest id on a cycle) has parent iErrParent */

/*
** A forest to label. The caller allocates every array with n entries and
** fills the inputs; siblings are labelled in input order. Outputs: nested
** labels spaced NSET_GAP apart (closer for huge forests), depths, leaf
** flags and the preorder of the nodes.
*/
typedef struct NsetBuild NsetBuild;
struct NsetBuild {
  int64_t n;            /* Number of nodes */
  int64_t *aId;         /* In: node ids */
  int64_t *aParent;     /* In: parent ids (ignored for roots) */
  unsigned char *aRoot; /* In: 1 when the node is a root */
  int64_t *aLft;        /* Out: left labels */
  int64_t *aRgt;        /* Out: right labels */
  int64_t *aDepth;      /* Out: depths */
  unsigned char *aLeaf; /* Out: 1 for a leaf */
  int64_t *aPre;        /* Out: node indexes in preorder */
  int64_t *aPar;        /* Scratch: parent's index, -1 for a root */
  int64_t *aFirst;      /* Scratch: first child's index, or -1 */
  int64_t *aNext;       /* Scratch: next sibling's index, or -1 */
  NsetKey *aKey;        /* Scratch: ids sorted */
  int64_t iErrId;       /* Out on error: the node at fault */
  int64_t iErrParent;   /* Out on error: its parent */
};

/* Label the forest: NSET_BUILD_OK or an NSET_BUILD_* error. */
int nsetBuild(NsetBuild *p);

/**************************************************************************
** Registration functions: one per feature file, called in the order of the
** static table in ext/nosql.c. Each returns an SQLite result code.
*/
int nosqlCoreRegister(sqlite3 *db);
int nestedSetRegister(sqlite3 *db);

#endif /* NOSQL_INT_H */
