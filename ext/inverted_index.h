/*
** inverted_index.h: what the parts of the inverted_index module share
** (ext/inverted_index.c, the virtual table; _store.c, _write.c,
** _content.c, _check.c, and _range.c, the RANGE fields) and what its
** companions in ext/inverted_index_vocab.c use: the table's structures
** and one banner of functions per file. Private to those files, as
** fts5Int.h is to fts5's; nosqlInt.h has the extension-wide interfaces.
*/
#ifndef NOSQL_INVERTED_INDEX_H
#define NOSQL_INVERTED_INDEX_H

#include <roaring/roaring.h>

typedef struct IiGlobal IiGlobal;
typedef struct IiTerm IiTerm;
typedef struct IiDocMap IiDocMap;
typedef struct IiRow IiRow;
typedef struct IiValues IiValues;
typedef struct IiRowTerm IiRowTerm;
typedef struct inverted_index_vtab inverted_index_vtab;
typedef struct inverted_index_cursor inverted_index_cursor;

/*
** One per connection, the pAux of the three modules and of
** inverted_index_count(): the index tables connected so far, so that the
** companions can reach a table's caches and pending writes. The same
** object for every load of the extension into the connection
** (nosqlConnShared), referenced by each registration and each connected
** index table.
*/
struct IiGlobal {
  inverted_index_vtab *pFirst; /* Connected inverted_index tables */
  int nBusy;                   /* Calls into the module under way (iiEnter/iiLeave) */
};

/*
** Term namespaces: the "field" column of <name>_terms is a code. A plain
** field's terms have code iField. A NESTED field's element keys take slot
** iKey + 2, and slot 1 holds the presence term '' ("the element exists").
** In the elements layout the posting lists hold element numbers (iElem
** 0 in the code); in the numbered layout they hold documents, one code
** per element position iElem = 1, 2, ... (the article's skill_1, skill_2).
*/
#define II_SLOT_PRESENT 1
#define II_CODE(iField, iSlot, iElem) \
  ((sqlite3_int64)(iField) | ((sqlite3_int64)(iSlot) << 16) | ((sqlite3_int64)(iElem) << 32))
#define II_CODE_FIELD(c) ((int)((c)&0xffff))
#define II_CODE_SLOT(c) ((int)(((c) >> 16) & 0xffff))
#define II_CODE_ELEM(c) ((c) >> 32)

/*
** With direct = off (no direct index, document number = rowid) two terms
** '' of the reserved field number 0xFFFF (never a field's: at most 65535
** fields, numbered from 0) post the documents: every live one (the map's
** pLive) and those indexed with no term (which a 'delete' without values
** may remove). The vocabulary does not list them (term '').
*/
#define II_CODE_LIVE II_CODE(0xFFFF, 0, 0)
#define II_CODE_EMPTY II_CODE(0xFFFF, 1, 0)
#define II_ROWID_MAX 0xFFFFFFFEll /* Largest rowid under direct = off */

/* Layouts of a NESTED field (inverted_index_vtab.aeLayout). */
#define II_LAYOUT_PLAIN 0    /* Not nested */
#define II_LAYOUT_ELEMENTS 1 /* Element sub-documents with their own numbers (default) */
#define II_LAYOUT_NUMBERED 2 /* Numbered fields, the article's layout */

/* A cached dictionary entry, with its posting list and pending changes. */
struct IiTerm {
  sqlite3_int64 id;        /* <name>_terms.id */
  sqlite3_int64 iCode;     /* Namespace: field, key and element position (II_CODE) */
  int nTerm;               /* Bytes in zTerm */
  char *zTerm;             /* The term (owned, NUL terminated) */
  roaring_bitmap_t *pPost; /* Stored posting list once loaded, or NULL */
  size_t nPostBytes;       /* Size of the stored blob, for the cache budget */
  roaring_bitmap_t *pAdd;  /* Pending additions, or NULL */
  roaring_bitmap_t *pDel;  /* Pending removals (disjoint from pAdd), or NULL */
  uint32_t *aAddBuf;       /* Pending additions not yet in pAdd, ascending (sqlite3_malloc64), or NULL */
  int nAddBuf;             /* Entries of aAddBuf in use */
  int nAddBufAlloc;        /* Entries allocated for aAddBuf */
  IiTerm *pDirtyNext;      /* Next term with pending changes */
  int bDirty;              /* True while on the dirty list */
  int bUnwritten;          /* Made by a 'rebuild': its <name>_terms row is written at the flush */
};

/*
** The document map: rowid per document number, the set of live documents
** and, loaded on demand, the direct index. Shared by reference: a cursor
** keeps the map it started with even if a write replaces the table's.
*/
struct IiDocMap {
  int nRef;                   /* References: the table's and its cursors' */
  sqlite3_int64 *aRowid;      /* aRowid[doc]; holes repeat the previous live rowid; NULL: doc = rowid */
  uint32_t nDoc;              /* Entries of aRowid: largest document number + 1 */
  sqlite3_int64 nAlloc;       /* Entries allocated for aRowid */
  roaring_bitmap_t *pLive;    /* Document numbers in use (the universe of NOT) */
  int bOrdered;               /* True if rowids ascend with document numbers */
  uint64_t *aOff;             /* Direct index: aOff[doc]..aOff[doc+1] in aTermId; NULL until loaded */
  uint32_t *aTermId;          /* Direct index: term ids of every document */
  uint64_t nPosting;          /* Entries of aTermId (once loaded) */
  uint32_t **aaElemDoc;       /* Per field (elements layout): parent document of each element, or NULL */
  uint32_t *anElem;           /* Entries of each aaElemDoc[i]: its largest element number + 1 */
  sqlite3_int64 *anElemAlloc; /* Entries allocated for each aaElemDoc[i] */
  int nElemField;             /* Entries of aaElemDoc and anElem (0 until one is loaded) */
};

/* A matching row, when results must be sorted by rowid. */
struct IiRow {
  sqlite3_int64 iRowid; /* The rowid */
  uint32_t iDoc;        /* Its document number */
};

/* Statements of a table, prepared on first use (text in iiStmtSql). */
enum {
  II_STMT_DOC_BY_ROWID,
  II_STMT_MAX_DOC,
  II_STMT_MAX_ROWID,
  II_STMT_DOC_INSERT,
  II_STMT_DOC_DELETE,
  II_STMT_DOC_SET_TERMS,
  II_STMT_TERM_BY_NAME,
  II_STMT_TERM_BY_ID,
  II_STMT_TERM_INSERT,
  II_STMT_TERM_POSTINGS,
  II_STMT_TERM_WRITE,
  II_STMT_DATA_VERSION,
  II_STMT_JSON,
  II_STMT_REAL_TEXT,
  II_STMT_ELEM_BY_DOC,
  II_STMT_ELEM_NEXT,
  II_STMT_ELEM_INSERT,
  II_STMT_ELEM_DELETE,
  II_STMT_TERM_INSERT_FULL,
  II_STMT_STORED_GET,
  II_STMT_STORED_INSERT,
  II_STMT_STORED_DELETE,
  II_STMT_TERM_MAX_ID,
  II_N_STMT
};

/* One term of a row being written: bytes at p->terms.a[iOff], nTerm long. */
struct IiRowTerm {
  sqlite3_int64 iCode; /* Namespace (II_CODE) */
  int iElem;           /* Elements layout: the element's index in its field's array; else -1 */
  int nTerm;           /* Bytes */
  sqlite3_int64 iOff;  /* Offset in the scratch buffer */
  IiTerm *pTerm;       /* Dictionary entry, once looked up */
};

/* The terms of one row: entries in aTerm, bytes in the table's scratch buffer. */
struct IiValues {
  IiRowTerm *aTerm; /* Terms, in field order, duplicates included */
  int nTerm;        /* Entries used */
  int nAlloc;       /* Entries allocated */
  int *anElem;      /* Elements per field (nested fields), or NULL */
};

/* What iiElemRowApply and iiScratchAdd do with an element. */
#define II_ELEM_REMOVE 0  /* A pending removal */
#define II_ELEM_ADD 1     /* A pending addition */
#define II_ELEM_SCRATCH 2 /* Into the term's pAdd used as scratch (iiPostingsFromDirect) */

/* Writes that iiDocMapNote() can apply to a loaded map. */
#define II_NOTE_INSERT 1 /* Document iDoc now exists with rowid iRowid */
#define II_NOTE_DELETE 2 /* Document iDoc is gone */
#define II_NOTE_MOVE 3   /* Document iDoc now has rowid iRowid */

struct inverted_index_vtab {
  sqlite3_vtab base;            /* Base class - must be first */
  sqlite3 *db;                  /* The connection */
  IiGlobal *pGlobal;            /* Registry this table is on */
  inverted_index_vtab *pNext;   /* Next table in the registry */
  int bClearPending;            /* Rolled back during a call: clear the cache when it returns */
  char *zDb;                    /* Schema name ("main", ...) */
  char *zName;                  /* Table name */
  int nField;                   /* Number of fields */
  char **azField;               /* Field names */
  int *anKey;                   /* Element keys per field (0: a plain field) */
  char ***aazKey;               /* Element key names per field, or NULL */
  unsigned char *aeLayout;      /* II_LAYOUT_... per field */
  unsigned char *abRange;       /* Per field: true for a RANGE field (a number; slices as terms) */
  int bElems;                   /* True if a field has the elements layout (<name>_elems exists) */
  char *zContent;               /* content= table, or NULL */
  int bNoDirect;                /* direct = off: no <name>_docs, document = rowid, 'delete' takes values */
  int bStored;                  /* direct = off without content=: values in <name>_content (by rowid) */
  int bSync;                    /* mode = 'sync': triggers on zContent the index owns keep it in step */
  sqlite3_value **apStash;      /* mode = 'sync': nStash rows (rowid, values...) 'displace' was given */
  int nStash;                   /* Rows in apStash */
  int nStashAlloc;              /* Rows apStash has room for */
  const char *zKeep;            /* mode = 'sync' partial write: '1' per field it leaves as is, or NULL */
  int bKeepTerms;               /* The fields zKeep leaves have a term between them */
  sqlite3_stmt *pSchemaVersion; /* mode = 'sync': PRAGMA schema_version of zDb, or NULL */
  int (*xReadCheck)(
      inverted_index_vtab *);     /* mode = 'sync': iiSyncReadCheck, which iiReadBegin runs; or NULL */
  int iSyncVersion;               /* mode = 'sync': schema_version the triggers were found right at, or -1 */
  sqlite3_stmt *aStmt[II_N_STMT]; /* Prepared statements, or NULL */
  sqlite3_int64 iDataVersion;     /* PRAGMA data_version the caches belong to */
  IiDocMap *pMap;                 /* Current document map, or NULL */
  IiTerm **aByName;               /* Term cache, open addressing by (field, term) */
  IiTerm **aById;                 /* The same terms by id (same size) */
  size_t nSlot;                   /* Slots of aByName and aById (power of 2) */
  size_t nTermCached;             /* Terms in the cache */
  size_t nCacheBytes;             /* Stored bytes of the cached posting lists */
  sqlite3_int64 iTermMaxCached;   /* Largest term id in the cache (0 if none) */
  sqlite3_int64 iTermMaxStored;   /* Largest id of <name>_terms as read (0: empty), -1 unread */
  sqlite3_int64 iDocNext;         /* direct = on: max(doc) + 1 after the last insert, -1 unknown */
  sqlite3_int64 iRowidMax;        /* direct = on: at least the largest rowid in <name>_docs, if known */
  int bRowidMax;                  /* True if iRowidMax is known */
  IiTerm *pDirty;                 /* Terms with pending changes */
  roaring_bitmap_t *pEmpty;       /* The empty set, lent for unknown terms */
  NosqlBuffer terms;              /* Scratch: terms of the row being written */
  IiValues *pWriteVals;           /* Scratch: iiWriteDoc's term arrays, kept between rows, or NULL */
  sqlite3_int64 iBulkDoc;         /* 'rebuild' under way: the next document number; else -1 */
  sqlite3_int64 iBulkTerm;        /* 'rebuild' under way: the last term id given */
  sqlite3_int64 *aElemNext;       /* direct = off: next free element number per field, -1 unknown; or NULL */
  sqlite3_int64 *aBulkElem;       /* 'rebuild' under way: next element number per field; else NULL */
};

/*
** Interface to code in ext/inverted_index_store.c: statements, the term
** cache, the document and element maps, query evaluation (contracts at
** the definitions), and the registry of index tables: the call guards and,
** for the companions, finding an index by name and passing its errors on.
*/
void iiEnter(IiGlobal *pG);
inverted_index_vtab *iiFindIndex(IiGlobal *pG, sqlite3 *db, const char *zDb, const char *zName,
                                 const char *zWho, char **pzErr);
int iiLeave(IiGlobal *pG, int rc);
void iiPassError(sqlite3_vtab *pTo, inverted_index_vtab *p, int rc);
char *iiCodeName(inverted_index_vtab *p, sqlite3_int64 iCode);
int iiCodeOk(inverted_index_vtab *p, sqlite3_int64 iCode);
int iiCorrupt(inverted_index_vtab *p, const char *zWhat, const char *zSuffix);
int iiDirectLoad(inverted_index_vtab *p, IiDocMap *pMap);
int iiEvalQuery(inverted_index_vtab *p, const char *zQuery, roaring_bitmap_t **ppOut, char **pzErr);
int iiNestFacets(inverted_index_vtab *p, const char *zQuery, const roaring_bitmap_t *pAud, int iField,
                 int iKey, int nTerm, const char *const *azTerm, const int *anTerm, int64_t *aCount,
                 char **pzErr);
int iiReadBegin(inverted_index_vtab *p);
size_t iiSlotById(inverted_index_vtab *p, sqlite3_int64 id);
int iiTermById(inverted_index_vtab *p, sqlite3_int64 id, IiTerm **ppTerm);
int iiTermLoad(inverted_index_vtab *p, IiTerm *t);
int iiRangeSlices(inverted_index_vtab *p, int iField, const roaring_bitmap_t **ppExist,
                  const roaring_bitmap_t **apSlice);
int iiRangeEvalDocs(void *pCtx, int iField, uint64_t kLo, uint64_t kHi, const roaring_bitmap_t *pCand,
                    roaring_bitmap_t **ppOut);
void iiElemMapsFree(IiDocMap *pMap);
void iiDocMapUnref(IiDocMap *p);
sqlite3_stmt *iiStmt(inverted_index_vtab *p, int eStmt, int *pRc);
void iiReset(inverted_index_vtab *p, sqlite3_stmt *pStmt, int *pRc);
void iiStashClear(inverted_index_vtab *p);
void iiCacheClear(inverted_index_vtab *p);
int iiTermByName(inverted_index_vtab *p, sqlite3_int64 iCode, const char *z, int n, int bCreate,
                 IiTerm **ppTerm);
int iiFlush(inverted_index_vtab *p);
int iiTermPending(inverted_index_vtab *p, IiTerm *t, uint32_t iDoc, int bAdd);
int iiCacheCheck(inverted_index_vtab *p);
int iiMapRoom(inverted_index_vtab *p, const char *zWhat, const char *zSuffix, const char *zSelect,
              const char *zOf, int iField);
int iiElemRoom(inverted_index_vtab *p, int iField);
int iiDocMapLoad(inverted_index_vtab *p);
void iiDocMapStale(inverted_index_vtab *p);
void iiDocMapNote(inverted_index_vtab *p, int rc, int eOp, uint32_t iDoc, sqlite3_int64 iRowid);
int iiElemRangeOk(sqlite3_int64 iFirst, sqlite3_int64 n);
int iiScalar(inverted_index_vtab *p, int eStmt, sqlite3_int64 *piVal, int *pbNull);
int iiExec(inverted_index_vtab *p, char *zSql);
int iiExecInt(inverted_index_vtab *p, char *zSql, sqlite3_int64 *piVal);

/*
** Interface to code in ext/inverted_index_write.c: a row's values as
** terms, element rows, writing and deleting a document.
*/
void iiValuesFree(IiValues *v);
void iiValuesKeptFree(inverted_index_vtab *p);
int iiParseValues(inverted_index_vtab *p, sqlite3_value **apVal, IiValues *v, char **pzErr);
unsigned char *iiElemBlob(IiValues *v, int iField, size_t *pnBlob, int *pRc);
int iiElemRange(inverted_index_vtab *p, int iField, uint32_t iDoc, sqlite3_int64 *piFirst, sqlite3_int64 *pn);
int iiElemRowApply(inverted_index_vtab *p, int iField, sqlite3_int64 iFirst, sqlite3_int64 n,
                   const unsigned char *aBlob, size_t nBlob, int eAct);
int iiDocByRowid(inverted_index_vtab *p, sqlite3_int64 iRowid, int *pbFound, uint32_t *piDoc, uint32_t **paId,
                 int *pnId);
int iiLiveHas(inverted_index_vtab *p, sqlite3_int64 iRowid, int *pbFound);
int iiNeedValues(inverted_index_vtab *p, const char *zWhat);
int iiDeleteValues(inverted_index_vtab *p, sqlite3_int64 iRowid, sqlite3_value **apVal);
int iiWriteDoc(inverted_index_vtab *p, int bUpdate, sqlite3_int64 iOldRowid, sqlite3_int64 iRowid,
               sqlite3_value **apVal);
int iiDeleteStored(inverted_index_vtab *p, sqlite3_int64 iRowid);
int iiStoredMakeRoom(inverted_index_vtab *p, sqlite3_int64 iOldRowid, sqlite3_int64 iRowid,
                     sqlite3_value **apVal);
int iiDeleteDoc(inverted_index_vtab *p, sqlite3_int64 iRowid);
int iiScratchAdd(inverted_index_vtab *p, IiTerm *t, uint32_t e, int bPending);

/*
** Interface to code in ext/inverted_index_content.c: content= tables and
** the triggers of mode = 'sync'.
*/
int iiContentStable(inverted_index_vtab *p, int bCheck, char **pzErr);
char *iiSourceSql(inverted_index_vtab *p);
int iiDropTriggers(inverted_index_vtab *p, const char *zName);
int iiSyncTriggers(inverted_index_vtab *p, char **pzErr, int *pnStale);
int iiSyncCheck(inverted_index_vtab *p);
int iiSyncReadCheck(inverted_index_vtab *p);
int iiRebuild(inverted_index_vtab *p);
void iiRowError(inverted_index_vtab *p, const char *zWhat, sqlite3_int64 iRowid, const char *zMsg);

/* Interface to code in ext/inverted_index_check.c: 'optimize', 'integrity-check'. */
int iiOptimize(inverted_index_vtab *p);
int iiIntegrityCheck(inverted_index_vtab *p);

/*
** Interface to code in ext/inverted_index_range.c: the glue of RANGE
** fields, the declaration and a row's value (its pure core is in
** nosqlInt.h; contracts at the definitions).
*/
int iiRangeDecl(const char *zArg, char **pzName, int *pRc);
int iiRangeValueKey(inverted_index_vtab *p, int iField, sqlite3_value *pVal, int *pbHas, uint64_t *pKey,
                    char **pzErr);

/* Interface to code in ext/inverted_index_vocab.c, for the registration. */
int iiVocabRegister(sqlite3 *db, IiGlobal *pG);

#endif /* NOSQL_INVERTED_INDEX_H */
