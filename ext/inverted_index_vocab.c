/*
** inverted_index_vocab.c: the companions of inverted_index (ext/
** inverted_index.c documents them with the module): the fts5vocab-style
** tables inverted_index_facets and inverted_index_vocab, and the function
** inverted_index_count(). They read an index's posting lists, term cache
** and document map through ext/inverted_index.h (the functions of ext/
** inverted_index_store.c); the module's registration calls
** iiVocabRegister, last in this file, and nothing else here.
*/
#include "nosqlInt.h"

#include <roaring/roaring.h>
#include <stdlib.h>
#include <string.h>

#include "inverted_index.h"

/* A companion table: the name of the index it reports on. */
typedef struct ii_companion_vtab ii_companion_vtab;
struct ii_companion_vtab {
  sqlite3_vtab base; /* Base class - must be first */
  sqlite3 *db;       /* The connection */
  IiGlobal *pGlobal; /* Registry of index tables */
  char *zDb;         /* Schema of the index */
  char *zIndex;      /* Name of the index */
  int bFacets;       /* True: facets table; false: vocabulary table */
};

/* One row of the facets table. */
typedef struct IiFacetRow IiFacetRow;
struct IiFacetRow {
  sqlite3_int64 iName; /* The field's name ("city", "skills.level"): offset in the arena */
  int nName;           /* Bytes of the name */
  sqlite3_int64 iOff;  /* The term: offset in the cursor's arena */
  int nTerm;           /* Bytes of the term */
  int iQuery;          /* Which audience (index into azQuery) */
  sqlite3_int64 nDoc;  /* Documents of the audience with this term (in this bucket) */
  int iBucket;         /* Range facets: the bucket (aBound[iBucket - 1] .. aBound[iBucket]); else -1 */
};

/* A bucket bound of range facets, as given: an INTEGER or a REAL. */
typedef struct IiFacetBound IiFacetBound;
struct IiFacetBound {
  int bInt;        /* True: iVal; false: rVal */
  sqlite3_int64 i; /* The INTEGER */
  double r;        /* The REAL */
};

typedef struct ii_companion_cursor ii_companion_cursor;
struct ii_companion_cursor {
  sqlite3_vtab_cursor base; /* Base class - must be first */
  IiFacetRow *aRow;         /* Facets: the rows */
  sqlite3_int64 nRow;       /* Facets: rows in aRow */
  sqlite3_int64 iRow;       /* Current row (both tables); also the rowid */
  NosqlBuffer arena;        /* Facets: term bytes */
  char **azQuery;           /* Facets: the audiences' queries (NULL: all documents) */
  int nQuery;               /* Facets: entries of azQuery */
  const char *zMethod;      /* Facets: "bitmap" or "direct" (static) */
  char **azField;           /* Vocabulary: copy of the index's namespace names, see iiCompanionFields */
  int nField;               /* Entries of azField */
  int *aiBase;              /* Vocabulary: per field, its first entry in azField */
  int *anSlot;              /* Vocabulary: per field, its slots (1 plain; keys + 2 nested) */
  unsigned char *aeLayout;  /* Vocabulary: per field, its layout */
  int nIndexField;          /* Entries of aiBase, anSlot, aeLayout */
  sqlite3_stmt *pVocab;     /* Vocabulary: the dictionary scan */
  IiFacetBound *aBound;     /* Range facets: the bounds, ascending */
  char *zRanges;            /* Range facets: the ranges argument as given (read back by its column) */
  int nBound;               /* Entries of aBound */
  int bEof;                 /* True past the last row */
};

#define II_FACETS_COL_FIELD 0
#define II_FACETS_COL_TERM 1
#define II_FACETS_COL_DOCS 2
#define II_FACETS_COL_QUERY 3
#define II_FACETS_COL_METHOD 4
#define II_FACETS_COL_RANGES 5
#define II_FACETS_COL_LO 6
#define II_FACETS_COL_HI 7

static int iiCompanionInit(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                           char **pzErr) {
  ii_companion_vtab *p;
  int bFacets = sqlite3_stricmp(argv[0], "inverted_index_facets") == 0;
  int rc;
  *ppVtab = NULL;
  if (argc != 4) {
    int bNoMem;
    *pzErr = nosqlNotTableFunction(argc, argv, "table", &bNoMem);
    if (*pzErr == NULL && !bNoMem) {
      *pzErr = sqlite3_mprintf("%s: expected one argument, the name of an inverted_index table", argv[0]);
    }
    return *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  rc = sqlite3_declare_vtab(db, bFacets ? "CREATE TABLE x(field TEXT, term TEXT, docs INTEGER, query HIDDEN, "
                                          "method HIDDEN, ranges HIDDEN, lo HIDDEN, hi HIDDEN)"
                                        : "CREATE TABLE x(field TEXT, term TEXT, docs INTEGER)");
  if (rc != SQLITE_OK) return rc;
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS); /* Reads its index only */
  p = (ii_companion_vtab *)sqlite3_malloc64(sizeof(*p));
  if (p == NULL) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->db = db;
  p->pGlobal = (IiGlobal *)pAux;
  p->bFacets = bFacets;
  p->zDb = sqlite3_mprintf("%s", argv[1]);
  p->zIndex = nosqlDequote(argv[3], (int)strlen(argv[3]));
  if (p->zDb == NULL || p->zIndex == NULL) {
    sqlite3_free(p->zDb);
    sqlite3_free(p->zIndex);
    sqlite3_free(p);
    return SQLITE_NOMEM;
  }
  nosqlConnSharedRef(p->pGlobal); /* Its own reference, as an index table's */
  *ppVtab = &p->base;
  return SQLITE_OK;
}

static int iiCompanionDisconnect(sqlite3_vtab *pVtab) {
  ii_companion_vtab *p = (ii_companion_vtab *)pVtab;
  nosqlConnSharedUnref(p->pGlobal);
  sqlite3_free(p->zDb);
  sqlite3_free(p->zIndex);
  sqlite3_free(p);
  return SQLITE_OK;
}

/*
** Facets plan, decoded in the same order by iiFacetsFilter: idxNum bits
** say which arguments follow in argv[]:
**
**   0x01  field = X
**   0x02  query = X, or query IN (...) processed all at once (the batch)
**   0x04  method = X ('bitmap' or 'direct'; default: the cheaper estimate)
**   0x08  ranges = X (a JSON array of bucket bounds of a RANGE field)
**
** The vocabulary table uses no constraint (idxNum 0).
*/
static int iiCompanionBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo) {
  ii_companion_vtab *p = (ii_companion_vtab *)pVtab;
  /* Slots in argv order: field, query (an IN list arrives whole: several
  ** audiences in one scan), method. Inputs: any collation. */
  static const NosqlPlanCol aCol[4] = {
      {II_FACETS_COL_FIELD, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0},
      {II_FACETS_COL_QUERY, NOSQL_OP_EQ | NOSQL_OP_INLIST, NOSQL_COLL_ANY, 1, 0},
      {II_FACETS_COL_METHOD, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0},
      {II_FACETS_COL_RANGES, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0}};
  NosqlPlan plan;
  int i, rc;
  pInfo->idxNum = 0;
  pInfo->estimatedCost = 1e5;
  pInfo->estimatedRows = 1000;
  if (!p->bFacets) return SQLITE_OK;
  for (i = 0; i < pInfo->nConstraint; i++) {
    const struct sqlite3_index_constraint *pC = &pInfo->aConstraint[i];
    /* The audience must be known when the scan starts. */
    if (pC->iColumn == II_FACETS_COL_QUERY && pC->op == SQLITE_INDEX_CONSTRAINT_EQ && !pC->usable) {
      return SQLITE_CONSTRAINT;
    }
  }
  rc = nosqlPlanBest(pInfo, aCol, 4, &plan);
  if (rc != SQLITE_OK) return rc;
  for (i = 0; i < 4; i++) {
    if (plan.aiEq[i] >= 0) pInfo->idxNum |= 1 << i;
  }
  if (pInfo->idxNum & 1) pInfo->estimatedCost /= 10;
  if (pInfo->idxNum & 2) pInfo->estimatedCost /= 2;
  return SQLITE_OK;
}

static int iiCompanionOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur) {
  ii_companion_cursor *pCur = (ii_companion_cursor *)nosqlCursorNew(sizeof(ii_companion_cursor), ppCur);
  (void)pVtab;
  if (pCur == NULL) return SQLITE_NOMEM;
  pCur->bEof = 1;
  return SQLITE_OK;
}

static void iiCompanionReset(ii_companion_cursor *pCur) {
  int i;
  sqlite3_free(pCur->aRow);
  pCur->aRow = NULL;
  pCur->nRow = pCur->iRow = 0;
  nosqlBufferFree(&pCur->arena);
  for (i = 0; i < pCur->nQuery; i++) sqlite3_free(pCur->azQuery[i]);
  sqlite3_free(pCur->azQuery);
  pCur->azQuery = NULL;
  pCur->nQuery = 0;
  for (i = 0; i < pCur->nField; i++) sqlite3_free(pCur->azField[i]);
  sqlite3_free(pCur->azField);
  pCur->azField = NULL;
  pCur->nField = 0;
  sqlite3_free(pCur->aiBase);
  sqlite3_free(pCur->anSlot);
  sqlite3_free(pCur->aeLayout);
  pCur->aiBase = pCur->anSlot = NULL;
  pCur->aeLayout = NULL;
  pCur->nIndexField = 0;
  sqlite3_finalize(pCur->pVocab);
  pCur->pVocab = NULL;
  sqlite3_free(pCur->aBound);
  pCur->aBound = NULL;
  sqlite3_free(pCur->zRanges);
  pCur->zRanges = NULL;
  pCur->nBound = 0;
  pCur->bEof = 1;
}

static int iiCompanionClose(sqlite3_vtab_cursor *cur) {
  iiCompanionReset((ii_companion_cursor *)cur);
  sqlite3_free(cur);
  return SQLITE_OK;
}

/*
** Copy the names of the index's namespaces into the cursor (the index may
** go away): per field, slot 0 (a plain field's name) or, for a nested
** field, slot 1 ("skills") and slot k + 2 ("skills.level").
*/
static int iiCompanionFields(ii_companion_cursor *pCur, inverted_index_vtab *p) {
  int i, nName = 0, k;
  pCur->aiBase = (int *)sqlite3_malloc64(sizeof(int) * (size_t)p->nField);
  pCur->anSlot = (int *)sqlite3_malloc64(sizeof(int) * (size_t)p->nField);
  pCur->aeLayout = (unsigned char *)sqlite3_malloc64((size_t)p->nField);
  if (pCur->aiBase == NULL || pCur->anSlot == NULL || pCur->aeLayout == NULL) return SQLITE_NOMEM;
  pCur->nIndexField = p->nField;
  for (i = 0; i < p->nField; i++) {
    pCur->aiBase[i] = nName;
    pCur->anSlot[i] = p->aeLayout[i] == II_LAYOUT_PLAIN ? 1 : p->anKey[i] + 2;
    pCur->aeLayout[i] = p->aeLayout[i];
    nName += pCur->anSlot[i];
  }
  pCur->azField = (char **)sqlite3_malloc64(sizeof(char *) * (size_t)nName);
  if (pCur->azField == NULL) return SQLITE_NOMEM;
  for (i = 0; i < p->nField; i++) {
    for (k = 0; k < pCur->anSlot[i]; k++) {
      pCur->azField[pCur->nField] = k < 2 ? sqlite3_mprintf("%s", p->azField[i])
                                          : sqlite3_mprintf("%s.%s", p->azField[i], p->aazKey[i][k - 2]);
      if (pCur->azField[pCur->nField] == NULL) return SQLITE_NOMEM;
      pCur->nField++;
    }
  }
  return SQLITE_OK;
}

/* The cursor's name entry of namespace iCode (see iiCompanionFields), or -1 if the code is not the index's.
 */
static int iiCompanionName(ii_companion_cursor *pCur, sqlite3_int64 iCode) {
  int iField = II_CODE_FIELD(iCode), iSlot = II_CODE_SLOT(iCode);
  sqlite3_int64 iElem = II_CODE_ELEM(iCode);
  if (iCode < 0 || iField >= pCur->nIndexField || iSlot >= pCur->anSlot[iField]) return -1;
  if (pCur->aeLayout[iField] == II_LAYOUT_PLAIN
          ? iElem != 0
          : (iSlot < 1 || (pCur->aeLayout[iField] == II_LAYOUT_NUMBERED) != (iElem > 0))) {
    return -1;
  }
  return pCur->aiBase[iField] + iSlot;
}

/* Add the query z (NULL: all documents) to the cursor's audiences. */
static int iiFacetsAddQuery(ii_companion_cursor *pCur, const char *z) {
  char **aNew = (char **)sqlite3_realloc64(pCur->azQuery, sizeof(char *) * ((size_t)pCur->nQuery + 1));
  if (aNew == NULL) return SQLITE_NOMEM;
  pCur->azQuery = aNew;
  aNew[pCur->nQuery] = NULL;
  if (z) {
    aNew[pCur->nQuery] = sqlite3_mprintf("%s", z);
    if (aNew[pCur->nQuery] == NULL) return SQLITE_NOMEM;
  }
  pCur->nQuery++;
  return SQLITE_OK;
}

/* Append a facets row: field name and term at arena offsets, audience iQuery, nDoc documents. */
static int iiFacetAppend(ii_companion_cursor *pCur, sqlite3_int64 iName, int nName, sqlite3_int64 iOff,
                         int nTerm, int iQuery, int64_t nDoc) {
  IiFacetRow *r;
  if ((pCur->nRow & (pCur->nRow - 1)) == 0) {
    IiFacetRow *aNew = (IiFacetRow *)sqlite3_realloc64(
        pCur->aRow, sizeof(IiFacetRow) * (size_t)(pCur->nRow ? pCur->nRow * 2 : 1));
    if (aNew == NULL) return SQLITE_NOMEM;
    pCur->aRow = aNew;
  }
  r = &pCur->aRow[pCur->nRow++];
  r->iName = iName;
  r->nName = nName;
  r->iOff = iOff;
  r->nTerm = nTerm;
  r->iQuery = iQuery;
  r->nDoc = nDoc;
  r->iBucket = -1;
  return SQLITE_OK;
}

/* The terms a facet reports, their bytes in the cursor's arena. */
typedef struct IiFacetTerms IiFacetTerms;
struct IiFacetTerms {
  sqlite3_int64 *aId;   /* Term ids (0 where the caller has none) */
  sqlite3_int64 *aOff;  /* Offset of each term in the arena (a NUL follows it) */
  int *aLen;            /* Bytes of each term */
  sqlite3_int64 n;      /* Terms */
  sqlite3_int64 nAlloc; /* Entries allocated in each array */
};

static void iiFacetTermsFree(IiFacetTerms *pList) {
  sqlite3_free(pList->aId);
  sqlite3_free(pList->aOff);
  sqlite3_free(pList->aLen);
}

/* Append term id with the text of column iCol of pStmt to pList, its bytes and a NUL to the arena. */
static int iiFacetTermAdd(ii_companion_cursor *pCur, IiFacetTerms *pList, sqlite3_int64 id,
                          sqlite3_stmt *pStmt, int iCol) {
  int rc = SQLITE_OK;
  const unsigned char *zTerm = sqlite3_column_text(pStmt, iCol);
  if (zTerm == NULL) return SQLITE_NOMEM;
  if (pList->n == pList->nAlloc) {
    sqlite3_int64 nNew = pList->nAlloc ? pList->nAlloc * 2 : 64;
    sqlite3_int64 *a1 = (sqlite3_int64 *)sqlite3_realloc64(pList->aId, sizeof(sqlite3_int64) * (size_t)nNew);
    sqlite3_int64 *a2;
    int *a3;
    if (a1) pList->aId = a1;
    a2 = (sqlite3_int64 *)sqlite3_realloc64(pList->aOff, sizeof(sqlite3_int64) * (size_t)nNew);
    if (a2) pList->aOff = a2;
    a3 = (int *)sqlite3_realloc64(pList->aLen, sizeof(int) * (size_t)nNew);
    if (a3) pList->aLen = a3;
    if (!a1 || !a2 || !a3) return SQLITE_NOMEM;
    pList->nAlloc = nNew;
  }
  pList->aId[pList->n] = id;
  pList->aOff[pList->n] = pCur->arena.n;
  pList->aLen[pList->n] = sqlite3_column_bytes(pStmt, iCol);
  nosqlBufferAppend(&rc, &pCur->arena, zTerm, pList->aLen[pList->n]);
  nosqlBufferAppend(&rc, &pCur->arena, "", 1);
  if (rc == SQLITE_OK) pList->n++;
  return rc;
}

/*
** Facets of field iField for the audiences aAud[0..nAud): append rows with
** a non-zero count. eMethod: 0 choose, 1 bitmap, 2 direct.
*/
static int iiFacetsField(ii_companion_cursor *pCur, inverted_index_vtab *p, int iField,
                         roaring_bitmap_t **aAud, int nAud, int eMethod) {
  int rc = SQLITE_OK;
  sqlite3_int64 iName = pCur->arena.n;
  int nName = (int)strlen(p->azField[iField]);
  sqlite3_stmt *pStmt = NULL;
  IiFacetTerms terms = {0, 0, 0, 0, 0};
  sqlite3_int64 nTerm, t, nDocsField = 0;
  int64_t *aCount = NULL;
  sqlite3_int64 iMaxId = 0;
  double rAud = 0, rLive = (double)roaring_bitmap_get_cardinality(p->pMap->pLive), rUncached = 0;
  int q;
  char *zSql = sqlite3_mprintf(
      "SELECT id, term, docs FROM \"%w\".\"%w_terms\" WHERE field = ?1 AND docs > 0 "
      "ORDER BY term",
      p->zDb, p->zName);
  if (zSql == NULL) return SQLITE_NOMEM;
  nosqlBufferAppend(&rc, &pCur->arena, p->azField[iField], nName);
  if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  if (rc == SQLITE_OK) sqlite3_bind_int(pStmt, 1, iField);
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    sqlite3_int64 id = sqlite3_column_int64(pStmt, 0);
    if (id < 1 || id > INT32_MAX) {
      rc = iiCorrupt(p, "dictionary entry", "terms");
      break;
    }
    rc = iiFacetTermAdd(pCur, &terms, id, pStmt, 1);
    if (rc != SQLITE_OK) break;
    /* A term's document count is at most 2^32 (32-bit document numbers). */
    if (sqlite3_column_int64(pStmt, 2) > ((sqlite3_int64)1 << 32)) {
      rc = iiCorrupt(p, "dictionary entry", "terms");
      break;
    }
    nDocsField += sqlite3_column_int64(pStmt, 2);
    if (id > iMaxId) iMaxId = id;
    if (p->nSlot) {
      IiTerm *u = p->aById[iiSlotById(p, id)];
      if (u == NULL || u->pPost == NULL) rUncached += (double)sqlite3_column_int64(pStmt, 2);
    } else {
      rUncached += (double)sqlite3_column_int64(pStmt, 2);
    }
  }
  if (pStmt) {
    int rc2 = sqlite3_finalize(pStmt);
    if (rc == SQLITE_OK) rc = rc2;
  }
  nTerm = terms.n;
  if (rc == SQLITE_OK && nTerm > 0) {
    aCount = (int64_t *)sqlite3_malloc64(sizeof(int64_t) * (size_t)nTerm * (size_t)nAud);
    if (aCount == NULL)
      rc = SQLITE_NOMEM;
    else
      memset(aCount, 0, sizeof(int64_t) * (size_t)nTerm * (size_t)nAud);
  }
  if (p->bNoDirect) eMethod = 1; /* No direct index to walk */
  if (rc == SQLITE_OK && nTerm > 0 && eMethod == 0) {
    /*
    ** Estimated nanoseconds of each method, constants from tests/bench
    ** (500k documents, 20 terms each): an intersection count costs about
    ** 8 us per term and audience plus 0.6 us per audience container; the
    ** direct walk about 8.5 ns per term of each audience document, plus
    ** 15 ns per posting to load the direct index once.
    */
    double rPerDoc = rLive > 0 ? (double)nDocsField * p->nField / rLive : 0;
    double rBitmap = rUncached * 0.2, rDirect;
    for (q = 0; q < nAud; q++) {
      rAud += (double)roaring_bitmap_get_cardinality(aAud[q]);
      rBitmap += (double)nTerm * (8000.0 + 600.0 * aAud[q]->high_low_container.size);
    }
    rDirect = (p->pMap->aOff ? 0.0 : rLive * rPerDoc * 15.0) +
              rAud * (rPerDoc * 8.5 + (nAud > 1 ? nAud * 10.0 : 0));
    eMethod = rDirect < rBitmap ? 2 : 1;
  }
  /* The direct walk maps term ids through a dense array: not for ids far
  ** sparser than the field's terms (damaged or not, no huge allocation). */
  if (eMethod == 2 && iMaxId > 64 * nTerm + 65536) eMethod = 1;
  if (rc == SQLITE_OK && nTerm > 0 && eMethod == 1) {
    const roaring_bitmap_t **aPost =
        (const roaring_bitmap_t **)sqlite3_malloc64(sizeof(void *) * (size_t)nTerm);
    if (aPost == NULL) rc = SQLITE_NOMEM;
    for (t = 0; rc == SQLITE_OK && t < nTerm; t++) {
      IiTerm *u = NULL;
      rc = iiTermById(p, terms.aId[t], &u);
      if (rc == SQLITE_OK) rc = iiTermLoad(p, u);
      if (rc == SQLITE_OK) aPost[t] = u->pPost;
    }
    if (rc == SQLITE_OK)
      iiFacetBitmap((const roaring_bitmap_t *const *)aAud, nAud, aPost, (int)nTerm, aCount);
    sqlite3_free(aPost);
    pCur->zMethod = "bitmap";
  } else if (rc == SQLITE_OK && nTerm > 0) {
    int32_t *aSlot = NULL;
    rc = iiDirectLoad(p, p->pMap);
    if (rc == SQLITE_OK) {
      aSlot = (int32_t *)sqlite3_malloc64(sizeof(int32_t) * ((size_t)iMaxId + 1));
      if (aSlot == NULL) rc = SQLITE_NOMEM;
    }
    if (rc == SQLITE_OK) {
      memset(aSlot, 0xff, sizeof(int32_t) * ((size_t)iMaxId + 1));
      for (t = 0; t < nTerm; t++) aSlot[terms.aId[t]] = (int32_t)t;
      rc = iiFacetDirect((const roaring_bitmap_t *const *)aAud, nAud, p->pMap->aOff, p->pMap->nDoc,
                         p->pMap->aTermId, aSlot, (uint32_t)iMaxId + 1, (int)nTerm, aCount);
    }
    sqlite3_free(aSlot);
    pCur->zMethod = "direct";
  }
  for (t = 0; rc == SQLITE_OK && t < nTerm; t++) {
    for (q = 0; q < nAud; q++) {
      int64_t n = aCount[(size_t)q * (size_t)nTerm + (size_t)t];
      if (n > 0) rc = iiFacetAppend(pCur, iName, nName, terms.aOff[t], terms.aLen[t], q, n);
      if (rc != SQLITE_OK) break;
    }
  }
  sqlite3_free(aCount);
  iiFacetTermsFree(&terms);
  return rc;
}

/*
** Facets of key iKey of nested field iField ("skills.level") for the
** audiences: per term of the key, the documents of each audience with one
** element that has the term and meets one of the query's element
** conditions on the field (iiNestFacets). Appends rows with a non-zero count.
*/
static int iiFacetsNested(ii_companion_cursor *pCur, inverted_index_vtab *p, int iField, int iKey,
                          roaring_bitmap_t **aAud, int nAud, char **pzErr) {
  int rc = SQLITE_OK, nTerm, q, t;
  sqlite3_stmt *pStmt = NULL;
  sqlite3_int64 iName = pCur->arena.n;
  IiFacetTerms terms = {0, 0, 0, 0, 0};
  char **azTerm = NULL;
  int nName;
  int64_t *aCount = NULL;
  char *zSql = sqlite3_mprintf(
      "SELECT DISTINCT term FROM \"%w\".\"%w_terms\" WHERE (field & 4294967295) = ?1 "
      "AND docs > 0 ORDER BY term",
      p->zDb, p->zName);
  *pzErr = NULL;
  if (zSql == NULL) return SQLITE_NOMEM;
  nosqlBufferAppendf(&rc, &pCur->arena, "%s.%s", p->azField[iField], p->aazKey[iField][iKey]);
  nName = (int)(pCur->arena.n - iName);
  if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  if (rc == SQLITE_OK) sqlite3_bind_int64(pStmt, 1, II_CODE(iField, iKey + 2, 0));
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) rc = iiFacetTermAdd(pCur, &terms, 0, pStmt, 0);
  if (pStmt) {
    int rc2 = sqlite3_finalize(pStmt);
    if (rc == SQLITE_OK) rc = rc2;
  }
  nTerm = (int)terms.n;
  if (rc == SQLITE_OK && nTerm > 0) {
    aCount = (int64_t *)sqlite3_malloc64(sizeof(int64_t) * (size_t)nTerm);
    azTerm = (char **)sqlite3_malloc64(sizeof(char *) * (size_t)nTerm);
    if (aCount == NULL || azTerm == NULL) rc = SQLITE_NOMEM;
  }
  /* The arena no longer moves: point the terms into it. */
  for (t = 0; rc == SQLITE_OK && t < nTerm; t++) azTerm[t] = (char *)pCur->arena.a + terms.aOff[t];
  for (q = 0; rc == SQLITE_OK && q < nAud && nTerm > 0; q++) {
    memset(aCount, 0, sizeof(int64_t) * (size_t)nTerm);
    rc = iiNestFacets(p, pCur->azQuery[q], aAud[q], iField, iKey, nTerm, (const char *const *)azTerm,
                      terms.aLen, aCount, pzErr);
    for (t = 0; rc == SQLITE_OK && t < nTerm; t++) {
      if (aCount[t] > 0) rc = iiFacetAppend(pCur, iName, nName, terms.aOff[t], terms.aLen[t], q, aCount[t]);
    }
  }
  sqlite3_free(aCount);
  sqlite3_free(azTerm);
  iiFacetTermsFree(&terms);
  return rc;
}

/* Report a step's failure on pVtab: its message *pzErr (taken), else rc's. */
/*
** Read the bucket bounds of range facets, ranges = zJson (a JSON array of
** numbers, ascending), into pCur->aBound. SQLITE_ERROR with a message in
** pVtab for anything else.
*/
static int iiFacetsBounds(ii_companion_cursor *pCur, sqlite3_vtab *pVtab, inverted_index_vtab *p,
                          sqlite3_value *pRanges) {
  const char *zJson = (const char *)sqlite3_value_text(pRanges);
  sqlite3_stmt *pStmt = NULL;
  int rc, nAlloc = 0, bBad = 0;
  if (zJson == NULL) return SQLITE_NOMEM;
  pCur->zRanges = sqlite3_mprintf("%s", zJson);
  if (pCur->zRanges == NULL) return SQLITE_NOMEM;
  if (!nosqlJsonStrict(zJson, (int)strlen(zJson)) || zJson[strspn(zJson, " \t\n\r")] != '[') {
    nosqlVtabError(pVtab, "inverted_index_facets: ranges '%s' is not a JSON array of numbers", zJson);
    return SQLITE_ERROR;
  }
  rc = sqlite3_prepare_v2(p->db, "SELECT type, atom FROM json_each(?1)", -1, &pStmt, 0);
  if (rc == SQLITE_OK) sqlite3_bind_value(pStmt, 1, pRanges);
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    const char *zType = (const char *)sqlite3_column_text(pStmt, 0);
    IiFacetBound b;
    if (zType == NULL || (strcmp(zType, "integer") != 0 && strcmp(zType, "real") != 0)) {
      bBad = 1;
      break;
    }
    b.bInt = zType[0] == 'i';
    b.i = sqlite3_column_int64(pStmt, 1);
    b.r = sqlite3_column_double(pStmt, 1);
    if (pCur->nBound > 0) {
      /* Ascending: compared as SQLite compares numbers. */
      sqlite3_stmt *pCmp = NULL;
      int bUp = 0;
      rc = sqlite3_prepare_v2(p->db, "SELECT ?1 < ?2", -1, &pCmp, 0);
      if (rc == SQLITE_OK) {
        IiFacetBound *a = &pCur->aBound[pCur->nBound - 1];
        if (a->bInt)
          sqlite3_bind_int64(pCmp, 1, a->i);
        else
          sqlite3_bind_double(pCmp, 1, a->r);
        if (b.bInt)
          sqlite3_bind_int64(pCmp, 2, b.i);
        else
          sqlite3_bind_double(pCmp, 2, b.r);
        if (sqlite3_step(pCmp) == SQLITE_ROW) bUp = sqlite3_column_int(pCmp, 0);
        rc = sqlite3_finalize(pCmp);
      }
      if (rc == SQLITE_OK && !bUp) {
        bBad = 2;
        break;
      }
    }
    if (rc == SQLITE_OK && pCur->nBound == nAlloc) {
      int nNew = nAlloc ? nAlloc * 2 : 8;
      IiFacetBound *aNew =
          (IiFacetBound *)sqlite3_realloc64(pCur->aBound, sizeof(IiFacetBound) * (size_t)nNew);
      if (aNew == NULL) {
        rc = SQLITE_NOMEM;
        break;
      }
      pCur->aBound = aNew;
      nAlloc = nNew;
    }
    if (rc == SQLITE_OK) pCur->aBound[pCur->nBound++] = b;
  }
  if (pStmt) {
    int rc2 = sqlite3_finalize(pStmt);
    if (rc == SQLITE_OK) rc = rc2;
  }
  if (rc == SQLITE_OK && bBad) {
    nosqlVtabError(pVtab,
                   bBad == 1 ? "inverted_index_facets: ranges '%s' is not a JSON array of numbers"
                             : "inverted_index_facets: ranges '%s': the bounds must ascend",
                   zJson);
    rc = SQLITE_ERROR;
  } else if (rc != SQLITE_OK && rc != SQLITE_NOMEM) {
    nosqlVtabError(pVtab, "%s", sqlite3_errmsg(p->db));
  }
  return rc;
}

/*
** Range facets of RANGE field iField: per audience, one row per bucket of
** pCur->aBound, (-inf, b0), [b0, b1), ..., [bn-1, +inf), with its count.
** The term is the bucket's name ("*-10", "10-20", "20-*").
*/
static int iiFacetsRanges(ii_companion_cursor *pCur, inverted_index_vtab *p, int iField,
                          roaring_bitmap_t **aAud, int nAud) {
  const roaring_bitmap_t *pExist = NULL, *apSlice[II_RANGE_NSLICE];
  uint64_t *aBelow = (uint64_t *)sqlite3_malloc64(sizeof(uint64_t) * ((size_t)pCur->nBound + 1));
  int64_t *aCount = (int64_t *)sqlite3_malloc64(sizeof(int64_t) * ((size_t)pCur->nBound + 1));
  sqlite3_int64 iName = pCur->arena.n;
  int nName = (int)strlen(p->azField[iField]), rc = SQLITE_OK, j, q;
  if (aBelow == NULL || aCount == NULL) rc = SQLITE_NOMEM;
  for (j = 0; rc == SQLITE_OK && j < pCur->nBound; j++) {
    const IiFacetBound *b = &pCur->aBound[j];
    aBelow[j] = b->bInt ? iiRangeIntBound(b->i, II_RANGE_LT) : iiRangeDoubleBound(b->r, II_RANGE_LT);
  }
  nosqlBufferAppend(&rc, &pCur->arena, p->azField[iField], nName);
  if (rc == SQLITE_OK) rc = iiRangeSlices(p, iField, &pExist, apSlice);
  for (q = 0; rc == SQLITE_OK && q < nAud; q++) {
    rc = iiRangeBuckets(pExist, apSlice, aAud[q], aBelow, pCur->nBound, aCount);
    for (j = 0; rc == SQLITE_OK && j <= pCur->nBound; j++) {
      sqlite3_int64 iOff = pCur->arena.n;
      char *zLo = NULL, *zHi = NULL, *zName;
      if (rc == SQLITE_OK && j > 0) {
        const IiFacetBound *b = &pCur->aBound[j - 1];
        zLo = b->bInt ? sqlite3_mprintf("%lld", b->i) : sqlite3_mprintf("%!.15g", b->r);
        if (zLo == NULL) rc = SQLITE_NOMEM;
      }
      if (rc == SQLITE_OK && j < pCur->nBound) {
        const IiFacetBound *b = &pCur->aBound[j];
        zHi = b->bInt ? sqlite3_mprintf("%lld", b->i) : sqlite3_mprintf("%!.15g", b->r);
        if (zHi == NULL) rc = SQLITE_NOMEM;
      }
      zName = rc == SQLITE_OK ? sqlite3_mprintf("%s-%s", zLo ? zLo : "*", zHi ? zHi : "*") : NULL;
      if (rc == SQLITE_OK && zName == NULL) rc = SQLITE_NOMEM;
      if (rc == SQLITE_OK) {
        int nTerm = (int)strlen(zName);
        nosqlBufferAppend(&rc, &pCur->arena, zName, nTerm + 1);
        if (rc == SQLITE_OK) rc = iiFacetAppend(pCur, iName, nName, iOff, nTerm, q, aCount[j]);
        if (rc == SQLITE_OK) pCur->aRow[pCur->nRow - 1].iBucket = j;
      }
      sqlite3_free(zLo);
      sqlite3_free(zHi);
      sqlite3_free(zName);
    }
  }
  sqlite3_free(aBelow);
  sqlite3_free(aCount);
  return rc;
}

/* inverted_index_vocab's scan: every listed term with its count, in field then term order. */
static int iiVocabStart(ii_companion_cursor *pCur, inverted_index_vtab *p) {
  int rc = SQLITE_OK, i;
  /* Presence terms ('', one per element) are not listed, nor the slices of RANGE fields. */
  NosqlBuffer skip = {0, 0, 0};
  char *zSql;
  nosqlBufferAppendf(&rc, &skip, "-1");
  for (i = 0; i < p->nField; i++) {
    if (p->abRange[i]) nosqlBufferAppendf(&rc, &skip, ",%d", i);
  }
  zSql = rc == SQLITE_OK
             ? sqlite3_mprintf(
                   "SELECT field, term, docs FROM \"%w\".\"%w_terms\" WHERE docs > 0 AND term <> '' "
                   "AND field NOT IN (%s) ORDER BY field, term",
                   p->zDb, p->zName, (const char *)skip.a)
             : NULL;
  nosqlBufferFree(&skip);
  if (zSql == NULL) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(p->db, zSql, -1, &pCur->pVocab, 0);
  sqlite3_free(zSql);
  if (rc != SQLITE_OK) {
    nosqlVtabError(pCur->base.pVtab, "%s", sqlite3_errmsg(p->db));
    return rc;
  }
  pCur->bEof = 0;
  pCur->iRow = 0;
  return pCur->base.pVtab->pModule->xNext(&pCur->base);
}

/*
** inverted_index_facets' field = zField: a plain or RANGE field (*piField)
** or "field.key" of a nested one (*piKey too); whether ranges = ... fits it.
*/
static int iiFacetsFieldArg(sqlite3_vtab *pVtab, inverted_index_vtab *p, const char *zWho, const char *zField,
                            int idxNum, int *piField, int *piKey) {
  int iField, iKey = -1;
  for (iField = 0; iField < p->nField && sqlite3_stricmp(p->azField[iField], zField) != 0; iField++) {
  }
  if (iField < p->nField && p->aeLayout[iField] != II_LAYOUT_PLAIN) {
    nosqlVtabError(pVtab, "%s: field '%s' is nested: name one of its element keys, as in '%s.%s'", zWho,
                   zField, zField, p->aazKey[iField][0]);
    return SQLITE_ERROR;
  }
  if (iField == p->nField) {
    /* "field.key" of a nested field. */
    for (iField = 0; iField < p->nField; iField++) {
      int n = (int)strlen(p->azField[iField]);
      if (p->aeLayout[iField] == II_LAYOUT_PLAIN || sqlite3_strnicmp(p->azField[iField], zField, n) != 0 ||
          zField[n] != '.') {
        continue;
      }
      for (iKey = 0; iKey < p->anKey[iField] && sqlite3_stricmp(p->aazKey[iField][iKey], zField + n + 1) != 0;
           iKey++) {
      }
      if (iKey < p->anKey[iField]) break;
      iKey = -1;
    }
  }
  if (iField == p->nField) {
    nosqlVtabError(pVtab, "%s: unknown field '%s' in %s", zWho, zField, p->zName);
    return SQLITE_ERROR;
  }
  if (p->abRange[iField] && !(idxNum & 0x08)) {
    nosqlVtabError(pVtab,
                   "%s: field '%s' is a RANGE field: give its buckets' bounds, as in ranges = '[10, 20]'",
                   zWho, zField);
    return SQLITE_ERROR;
  }
  if (!p->abRange[iField] && (idxNum & 0x08)) {
    nosqlVtabError(pVtab, "%s: field '%s' is not a RANGE field: ranges = ... takes the field of one", zWho,
                   zField);
    return SQLITE_ERROR;
  }
  *piField = iField;
  *piKey = iKey;
  return SQLITE_OK;
}

static void iiCompanionError(sqlite3_vtab *pVtab, inverted_index_vtab *p, int rc, char **pzErr) {
  if (*pzErr) {
    sqlite3_free(pVtab->zErrMsg);
    pVtab->zErrMsg = *pzErr;
    *pzErr = NULL;
  } else if (rc != SQLITE_OK) {
    iiPassError(pVtab, p, rc);
  }
}

static int iiCompanionFilterUnguarded(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr, int argc,
                                      sqlite3_value **argv) {
  ii_companion_cursor *pCur = (ii_companion_cursor *)cur;
  ii_companion_vtab *pTab = (ii_companion_vtab *)cur->pVtab;
  const char *zWho = pTab->bFacets ? "inverted_index_facets" : "inverted_index_vocab";
  inverted_index_vtab *p;
  char *zErr = NULL;
  int rc = SQLITE_OK, iArg = 0, iField = -1, iKey = -1, eMethod = 0, i;
  roaring_bitmap_t **aAud = NULL;
  (void)idxStr;
  (void)argc;
  iiCompanionReset(pCur);
  p = iiFindIndex(pTab->pGlobal, pTab->db, pTab->zDb, pTab->zIndex, zWho, &zErr);
  if (p == NULL) {
    sqlite3_free(cur->pVtab->zErrMsg);
    cur->pVtab->zErrMsg = zErr;
    return zErr ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  rc = iiReadBegin(p);
  if (rc == SQLITE_OK) rc = iiCompanionFields(pCur, p);
  if (rc != SQLITE_OK) {
    iiPassError(cur->pVtab, p, rc);
    return rc;
  }
  if (!pTab->bFacets) return iiVocabStart(pCur, p);
  if (idxNum & 0x01) {
    const char *zField = (const char *)sqlite3_value_text(argv[iArg++]);
    if (zField == NULL) return SQLITE_OK; /* field = NULL: no rows */
    rc = iiFacetsFieldArg(cur->pVtab, p, zWho, zField, idxNum, &iField, &iKey);
    if (rc != SQLITE_OK) return rc;
  } else if (idxNum & 0x08) {
    nosqlVtabError(cur->pVtab, "%s: ranges = ... needs field = the RANGE field", zWho);
    return SQLITE_ERROR;
  }
  if (idxNum & 0x02) {
    sqlite3_value *pList = argv[iArg++];
    sqlite3_value *pVal = NULL;
    int rcIn = sqlite3_vtab_in_first(pList, &pVal);
    if (rcIn == SQLITE_OK || rcIn == SQLITE_DONE) {
      /* query IN (...): every audience in this one scan. */
      while (rcIn == SQLITE_OK && rc == SQLITE_OK && pVal) {
        if (sqlite3_value_type(pVal) != SQLITE_NULL)
          rc = iiFacetsAddQuery(pCur, (const char *)sqlite3_value_text(pVal));
        rcIn = sqlite3_vtab_in_next(pList, &pVal);
      }
      if (rc == SQLITE_OK && rcIn != SQLITE_OK && rcIn != SQLITE_DONE) rc = rcIn;
    } else if (sqlite3_value_type(pList) != SQLITE_NULL) {
      rc = iiFacetsAddQuery(pCur, (const char *)sqlite3_value_text(pList));
    }
    if (rc != SQLITE_OK) return rc;
    if (pCur->nQuery == 0) return SQLITE_OK; /* query = NULL: no rows */
  } else {
    rc = iiFacetsAddQuery(pCur, NULL);
    if (rc != SQLITE_OK) return rc;
  }
  if (idxNum & 0x04) {
    const char *zMethod = (const char *)sqlite3_value_text(argv[iArg++]);
    if (zMethod && sqlite3_stricmp(zMethod, "bitmap") == 0) {
      eMethod = 1;
    } else if (zMethod && sqlite3_stricmp(zMethod, "direct") == 0) {
      eMethod = 2;
      if (p->bNoDirect) {
        nosqlVtabError(cur->pVtab,
                       "%s: method 'direct' needs the direct index, which %s does not keep (direct=off); use "
                       "method 'bitmap'",
                       zWho, p->zName);
        return SQLITE_ERROR;
      }
    } else if (zMethod) {
      nosqlVtabError(cur->pVtab, "%s: unknown method '%s' (expected 'bitmap' or 'direct')", zWho, zMethod);
      return SQLITE_ERROR;
    }
  }
  if (idxNum & 0x08) {
    if (sqlite3_value_type(argv[iArg]) == SQLITE_NULL) return SQLITE_OK; /* ranges = NULL: no rows */
    rc = iiFacetsBounds(pCur, cur->pVtab, p, argv[iArg++]);
    if (rc != SQLITE_OK) return rc;
  }
  aAud = (roaring_bitmap_t **)sqlite3_malloc64(sizeof(roaring_bitmap_t *) * (size_t)pCur->nQuery);
  if (aAud == NULL) return SQLITE_NOMEM;
  memset(aAud, 0, sizeof(roaring_bitmap_t *) * (size_t)pCur->nQuery);
  for (i = 0; rc == SQLITE_OK && i < pCur->nQuery; i++) {
    rc = iiEvalQuery(p, pCur->azQuery[i], &aAud[i], &zErr);
    iiCompanionError(cur->pVtab, p, rc, &zErr);
  }
  for (i = 0; rc == SQLITE_OK && i < p->nField; i++) {
    int k;
    if (iField >= 0 && i != iField) continue;
    if (p->abRange[i]) {
      /* A RANGE field has buckets, asked for by name (above), not terms. */
      if (iField == i) rc = iiFacetsRanges(pCur, p, i, aAud, pCur->nQuery);
      if (rc != SQLITE_OK) iiPassError(cur->pVtab, p, rc);
      continue;
    }
    if (p->aeLayout[i] == II_LAYOUT_PLAIN) {
      rc = iiFacetsField(pCur, p, i, aAud, pCur->nQuery, eMethod);
      if (rc != SQLITE_OK) iiPassError(cur->pVtab, p, rc);
      continue;
    }
    for (k = 0; rc == SQLITE_OK && k < p->anKey[i]; k++) {
      if (iKey >= 0 && k != iKey) continue;
      rc = iiFacetsNested(pCur, p, i, k, aAud, pCur->nQuery, &zErr);
      iiCompanionError(cur->pVtab, p, rc, &zErr);
    }
  }
  for (i = 0; i < pCur->nQuery; i++) {
    if (aAud[i]) roaring_bitmap_free(aAud[i]);
  }
  sqlite3_free(aAud);
  if (rc != SQLITE_OK) return rc;
  pCur->iRow = 0;
  pCur->bEof = pCur->nRow == 0;
  return SQLITE_OK;
}
static int iiCompanionFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr, int argc,
                             sqlite3_value **argv) {
  IiGlobal *pG = ((ii_companion_vtab *)cur->pVtab)->pGlobal;
  iiEnter(pG);
  return iiLeave(pG, iiCompanionFilterUnguarded(cur, idxNum, idxStr, argc, argv));
}

static int iiCompanionNext(sqlite3_vtab_cursor *cur) {
  ii_companion_cursor *pCur = (ii_companion_cursor *)cur;
  if (pCur->pVocab) {
    int rc = sqlite3_step(pCur->pVocab);
    pCur->iRow++;
    if (rc == SQLITE_ROW) {
      sqlite3_int64 iCode = sqlite3_column_int64(pCur->pVocab, 0);
      if (sqlite3_column_type(pCur->pVocab, 0) != SQLITE_INTEGER || iiCompanionName(pCur, iCode) < 0) {
        nosqlVtabError(cur->pVtab, "inverted_index_vocab: corrupt dictionary: field number %lld", iCode);
        return SQLITE_CORRUPT_VTAB;
      }
      return SQLITE_OK;
    }
    pCur->bEof = 1;
    if (rc != SQLITE_DONE) {
      nosqlVtabError(cur->pVtab, "%s", sqlite3_errmsg(((ii_companion_vtab *)cur->pVtab)->db));
      return rc;
    }
    return SQLITE_OK;
  }
  pCur->iRow++;
  pCur->bEof = pCur->iRow >= pCur->nRow;
  return SQLITE_OK;
}

static int iiCompanionEof(sqlite3_vtab_cursor *cur) { return ((ii_companion_cursor *)cur)->bEof; }

static int iiCompanionColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int iCol) {
  ii_companion_cursor *pCur = (ii_companion_cursor *)cur;
  if (pCur->pVocab) {
    if (iCol == II_FACETS_COL_FIELD) {
      sqlite3_int64 iCode = sqlite3_column_int64(pCur->pVocab, 0);
      const char *zName = pCur->azField[iiCompanionName(pCur, iCode)];
      if (II_CODE_ELEM(iCode) > 0) {
        /* Numbered layout: the article's numbered field names, skills.level_2. */
        char *z = sqlite3_mprintf("%s_%lld", zName, II_CODE_ELEM(iCode));
        if (z == NULL) return SQLITE_NOMEM;
        sqlite3_result_text(ctx, z, -1, sqlite3_free);
      } else {
        sqlite3_result_text(ctx, zName, -1, SQLITE_TRANSIENT);
      }
    } else {
      sqlite3_result_value(ctx, sqlite3_column_value(pCur->pVocab, iCol));
    }
    return SQLITE_OK;
  }
  {
    IiFacetRow *r = &pCur->aRow[pCur->iRow];
    switch (iCol) {
      case II_FACETS_COL_FIELD:
        sqlite3_result_text(ctx, (const char *)pCur->arena.a + r->iName, r->nName, SQLITE_TRANSIENT);
        break;
      case II_FACETS_COL_TERM:
        sqlite3_result_text(ctx, (const char *)pCur->arena.a + r->iOff, r->nTerm, SQLITE_TRANSIENT);
        break;
      case II_FACETS_COL_DOCS:
        sqlite3_result_int64(ctx, r->nDoc);
        break;
      case II_FACETS_COL_QUERY:
        if (pCur->azQuery[r->iQuery])
          sqlite3_result_text(ctx, pCur->azQuery[r->iQuery], -1, SQLITE_TRANSIENT);
        break;
      case II_FACETS_COL_RANGES:
        if (r->iBucket >= 0) sqlite3_result_text(ctx, pCur->zRanges, -1, SQLITE_TRANSIENT);
        break;
      case II_FACETS_COL_LO:
      case II_FACETS_COL_HI: {
        /* A bucket's ends as given (NULL: open, or not a bucket). */
        int j = r->iBucket < 0 ? -1 : iCol == II_FACETS_COL_LO ? r->iBucket - 1 : r->iBucket;
        if (j >= 0 && j < pCur->nBound) {
          const IiFacetBound *b = &pCur->aBound[j];
          if (b->bInt) {
            sqlite3_result_int64(ctx, b->i);
          } else {
            sqlite3_result_double(ctx, b->r);
          }
        }
        break;
      }
      default:
        sqlite3_result_text(ctx, pCur->zMethod, -1, SQLITE_STATIC);
        break;
    }
  }
  return SQLITE_OK;
}

static int iiCompanionRowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *pRowid) {
  *pRowid = ((ii_companion_cursor *)cur)->iRow + 1;
  return SQLITE_OK;
}

static sqlite3_module iiCompanionModule = {
    0,                     /* iVersion */
    iiCompanionInit,       /* xCreate */
    iiCompanionInit,       /* xConnect */
    iiCompanionBestIndex,  /* xBestIndex */
    iiCompanionDisconnect, /* xDisconnect */
    iiCompanionDisconnect, /* xDestroy */
    iiCompanionOpen,       /* xOpen */
    iiCompanionClose,      /* xClose */
    iiCompanionFilter,     /* xFilter */
    iiCompanionNext,       /* xNext */
    iiCompanionEof,        /* xEof */
    iiCompanionColumn,     /* xColumn */
    iiCompanionRowid,      /* xRowid */
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

/* inverted_index_count(table, query): the size of an audience, from cardinalities. */
static void iiCountFuncUnguarded(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  IiGlobal *pG = (IiGlobal *)sqlite3_user_data(ctx);
  const char *zTable, *zQuery;
  char *zErr = NULL;
  inverted_index_vtab *p;
  roaring_bitmap_t *pSet = NULL;
  int rc;
  (void)argc;
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL) return;
  zTable = (const char *)sqlite3_value_text(argv[0]);
  zQuery = (const char *)sqlite3_value_text(argv[1]);
  if (zTable == NULL || zQuery == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  p = iiFindIndex(pG, sqlite3_context_db_handle(ctx), NULL, zTable, "inverted_index_count", &zErr);
  if (p == NULL) {
    if (zErr)
      sqlite3_result_error(ctx, zErr, -1);
    else
      sqlite3_result_error_nomem(ctx);
    sqlite3_free(zErr);
    return;
  }
  rc = iiReadBegin(p);
  if (rc == SQLITE_OK) rc = iiEvalQuery(p, zQuery, &pSet, &zErr);
  if (rc == SQLITE_OK) {
    sqlite3_result_int64(ctx, (sqlite3_int64)roaring_bitmap_get_cardinality(pSet));
  } else if (zErr) {
    sqlite3_result_error(ctx, zErr, -1);
  } else if (p->base.zErrMsg) {
    sqlite3_result_error(ctx, p->base.zErrMsg, -1);
    sqlite3_result_error_code(ctx, rc);
    sqlite3_free(p->base.zErrMsg);
    p->base.zErrMsg = NULL;
  } else {
    sqlite3_result_error_code(ctx, rc);
  }
  sqlite3_free(zErr);
  if (pSet) roaring_bitmap_free(pSet);
}
static void iiCountFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  IiGlobal *pG = (IiGlobal *)sqlite3_user_data(ctx);
  iiEnter(pG);
  iiCountFuncUnguarded(ctx, argc, argv);
  iiLeave(pG, SQLITE_OK);
}

/*
** Register the companions on db, sharing the registry pG (one reference
** each, taken here, as for the inverted_index module's own).
*/
int iiVocabRegister(sqlite3 *db, IiGlobal *pG) {
  int rc;
  nosqlConnSharedRef(pG);
  rc = sqlite3_create_module_v2(db, "inverted_index_facets", &iiCompanionModule, pG, nosqlConnSharedUnref);
  if (rc == SQLITE_OK) {
    nosqlConnSharedRef(pG);
    rc = sqlite3_create_module_v2(db, "inverted_index_vocab", &iiCompanionModule, pG, nosqlConnSharedUnref);
  }
  if (rc == SQLITE_OK) {
    nosqlConnSharedRef(pG);
    rc = sqlite3_create_function_v2(db, "inverted_index_count", 2, SQLITE_UTF8 | SQLITE_DIRECTONLY, pG,
                                    iiCountFunc, 0, 0, nosqlConnSharedUnref);
  }
  return rc;
}
