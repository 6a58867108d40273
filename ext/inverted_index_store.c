/*
** inverted_index_store.c: the stored side of an inverted_index table (ext/
** inverted_index.c documents the module; docs/inverted_index.md and
** docs/ARCHITECTURE.md the shadow tables and blob formats). It holds the
** statement cache (iiStmt, iiStmtSql), the term cache and its pending
** changes, the flush that merges them into <name>_terms, the document map
** and the element maps with their loaders, the direct index
** (iiDirectLoad), and the read side of a query: iiReadBegin, iiEvalQuery,
** the nested evaluation iiNestEval and iiNestFacets. And the registry of
** index tables: the call guards iiEnter and iiLeave, and iiFindIndex and
** iiPassError, by which the companions reach an index.
**
** Uses the pure codec and query parser of ext/inverted_index_core.c and
** the shared structures of ext/inverted_index.h; every other
** inverted_index file uses this one.
*/
#include "nosqlInt.h"

#include <roaring/roaring.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "inverted_index.h"

/* The cache keeps decoded posting lists up to this many stored bytes. */
#define II_CACHE_MAX (64 * 1024 * 1024)

/* Forget the element maps of pMap (reloaded on demand). */
void iiElemMapsFree(IiDocMap *pMap) {
  int i;
  for (i = 0; i < pMap->nElemField; i++) sqlite3_free(pMap->aaElemDoc[i]);
  sqlite3_free(pMap->aaElemDoc);
  sqlite3_free(pMap->anElem);
  sqlite3_free(pMap->anElemAlloc);
  pMap->aaElemDoc = NULL;
  pMap->anElem = NULL;
  pMap->anElemAlloc = NULL;
  pMap->nElemField = 0;
}

void iiDocMapUnref(IiDocMap *p) {
  if (p == NULL || --p->nRef > 0) return;
  iiElemMapsFree(p);
  sqlite3_free(p->aRowid);
  if (p->pLive) roaring_bitmap_free(p->pLive);
  sqlite3_free(p->aOff);
  sqlite3_free(p->aTermId);
  sqlite3_free(p);
}

/* The text of statement eStmt of table p (sqlite3_mprintf), or NULL on OOM. */
static char *iiStmtSql(inverted_index_vtab *p, int eStmt) {
  const char *zDb = p->zDb, *zN = p->zName;
  switch (eStmt) {
    case II_STMT_DOC_BY_ROWID:
      return sqlite3_mprintf("SELECT doc, terms FROM \"%w\".\"%w_docs\" WHERE id = ?1", zDb, zN);
    case II_STMT_MAX_DOC:
      return sqlite3_mprintf("SELECT max(doc) FROM \"%w\".\"%w_docs\"", zDb, zN);
    case II_STMT_MAX_ROWID:
      return sqlite3_mprintf("SELECT max(id) FROM \"%w\".\"%w_docs\"", zDb, zN);
    case II_STMT_DOC_INSERT: {
      int rc = SQLITE_OK, i;
      NosqlBuffer b = {0, 0, 0};
      nosqlBufferAppendf(&rc, &b, "INSERT INTO \"%w\".\"%w_docs\"(doc, id, terms", zDb, zN);
      for (i = 0; !p->zContent && i < p->nField; i++) nosqlBufferAppendf(&rc, &b, ", c%d", i);
      nosqlBufferAppendf(&rc, &b, ") VALUES (?1, ?2, ?3");
      for (i = 0; !p->zContent && i < p->nField; i++) nosqlBufferAppendf(&rc, &b, ", ?%d", i + 4);
      nosqlBufferAppendf(&rc, &b, ")");
      if (rc != SQLITE_OK) nosqlBufferFree(&b);
      return (char *)b.a;
    }
    case II_STMT_DOC_DELETE:
      return sqlite3_mprintf("DELETE FROM \"%w\".\"%w_docs\" WHERE doc = ?1", zDb, zN);
    case II_STMT_DOC_SET_TERMS: {
      int rc = SQLITE_OK, i;
      NosqlBuffer b = {0, 0, 0};
      nosqlBufferAppendf(&rc, &b, "UPDATE \"%w\".\"%w_docs\" SET terms = ?2, id = ?3", zDb, zN);
      for (i = 0; !p->zContent && i < p->nField; i++) nosqlBufferAppendf(&rc, &b, ", c%d = ?%d", i, i + 4);
      nosqlBufferAppendf(&rc, &b, " WHERE doc = ?1");
      if (rc != SQLITE_OK) nosqlBufferFree(&b);
      return (char *)b.a;
    }
    case II_STMT_TERM_BY_NAME:
      return sqlite3_mprintf("SELECT id FROM \"%w\".\"%w_terms\" WHERE field = ?1 AND term = ?2", zDb, zN);
    case II_STMT_TERM_MAX_ID:
      return sqlite3_mprintf("SELECT max(id) FROM \"%w\".\"%w_terms\"", zDb, zN);
    case II_STMT_TERM_BY_ID:
      return sqlite3_mprintf("SELECT field, term FROM \"%w\".\"%w_terms\" WHERE id = ?1", zDb, zN);
    case II_STMT_TERM_INSERT:
      return sqlite3_mprintf("INSERT INTO \"%w\".\"%w_terms\"(field, term, docs) VALUES (?1, ?2, 0)", zDb,
                             zN);
    case II_STMT_TERM_POSTINGS:
      return sqlite3_mprintf("SELECT docs, postings FROM \"%w\".\"%w_terms\" WHERE id = ?1", zDb, zN);
    case II_STMT_TERM_WRITE:
      return sqlite3_mprintf("UPDATE \"%w\".\"%w_terms\" SET docs = ?2, postings = ?3 WHERE id = ?1", zDb,
                             zN);
    case II_STMT_DATA_VERSION:
      return sqlite3_mprintf("PRAGMA \"%w\".data_version", zDb);
    case II_STMT_REAL_TEXT:
      return sqlite3_mprintf("SELECT CAST(?1 AS REAL)");
    case II_STMT_ELEM_BY_DOC:
      if (p->bNoDirect) {
        return sqlite3_mprintf("SELECT first, n, NULL FROM \"%w\".\"%w_elems\" WHERE field = ?1 AND doc = ?2",
                               zDb, zN);
      }
      return sqlite3_mprintf("SELECT first, n, terms FROM \"%w\".\"%w_elems\" WHERE field = ?1 AND doc = ?2",
                             zDb, zN);
    case II_STMT_ELEM_NEXT:
      /* direct = off: no index on first; scanned once, then counted (aElemNext). */
      if (p->bNoDirect) {
        return sqlite3_mprintf("SELECT max(first + n) FROM \"%w\".\"%w_elems\" WHERE field = ?1", zDb, zN);
      }
      return sqlite3_mprintf(
          "SELECT first + n FROM \"%w\".\"%w_elems\" WHERE field = ?1 ORDER BY first DESC LIMIT 1", zDb, zN);
    case II_STMT_ELEM_INSERT:
      if (p->bNoDirect) {
        return sqlite3_mprintf(
            "INSERT INTO \"%w\".\"%w_elems\"(field, first, doc, n) VALUES (?1, ?2, ?3, ?4)", zDb, zN);
      }
      return sqlite3_mprintf(
          "INSERT INTO \"%w\".\"%w_elems\"(field, first, doc, n, terms) VALUES (?1, ?2, ?3, "
          "?4, ?5)",
          zDb, zN);
    case II_STMT_TERM_INSERT_FULL:
      return sqlite3_mprintf(
          "INSERT INTO \"%w\".\"%w_terms\"(id, docs, postings, field, term) VALUES (?1, ?2, ?3, ?4, ?5)", zDb,
          zN);
    case II_STMT_ELEM_DELETE:
      /* direct = off: keyed by document (?2 is the document). */
      if (p->bNoDirect) {
        return sqlite3_mprintf("DELETE FROM \"%w\".\"%w_elems\" WHERE field = ?1 AND doc = ?2", zDb, zN);
      }
      return sqlite3_mprintf("DELETE FROM \"%w\".\"%w_elems\" WHERE field = ?1 AND first = ?2", zDb, zN);
    case II_STMT_STORED_GET:
    case II_STMT_STORED_INSERT: {
      /* direct = off without content=: the values by rowid in <name>_content. */
      int rc = SQLITE_OK, i;
      NosqlBuffer b = {0, 0, 0};
      if (eStmt == II_STMT_STORED_GET) {
        nosqlBufferAppendf(&rc, &b, "SELECT ");
        for (i = 0; i < p->nField; i++) nosqlBufferAppendf(&rc, &b, "%sc%d", i ? ", " : "", i);
        nosqlBufferAppendf(&rc, &b, " FROM \"%w\".\"%w_content\" WHERE id = ?1", zDb, zN);
      } else {
        nosqlBufferAppendf(&rc, &b, "INSERT INTO \"%w\".\"%w_content\"(id", zDb, zN);
        for (i = 0; i < p->nField; i++) nosqlBufferAppendf(&rc, &b, ", c%d", i);
        nosqlBufferAppendf(&rc, &b, ") VALUES (?1");
        for (i = 0; i < p->nField; i++) nosqlBufferAppendf(&rc, &b, ", ?%d", i + 2);
        nosqlBufferAppendf(&rc, &b, ")");
      }
      if (rc != SQLITE_OK) nosqlBufferFree(&b);
      return (char *)b.a;
    }
    case II_STMT_STORED_DELETE:
      return sqlite3_mprintf("DELETE FROM \"%w\".\"%w_content\" WHERE id = ?1", zDb, zN);
    default:
      return sqlite3_mprintf("SELECT type, value FROM json_each(?1)");
  }
}

/* The prepared statement eStmt of p (reset, bindings cleared), or NULL with *pRc set. */
sqlite3_stmt *iiStmt(inverted_index_vtab *p, int eStmt, int *pRc) {
  if (*pRc != SQLITE_OK) return NULL;
  if (p->aStmt[eStmt] == NULL) {
    char *zSql = iiStmtSql(p, eStmt);
    if (zSql == NULL) {
      *pRc = SQLITE_NOMEM;
      return NULL;
    }
    *pRc = sqlite3_prepare_v3(p->db, zSql, -1, SQLITE_PREPARE_PERSISTENT, &p->aStmt[eStmt], 0);
    sqlite3_free(zSql);
    if (*pRc != SQLITE_OK) {
      nosqlVtabError(&p->base, "%s", sqlite3_errmsg(p->db));
      return NULL;
    }
  }
  return p->aStmt[eStmt];
}

/* Reset pStmt and fold its error, if any, into *pRc (with the message). */
void iiReset(inverted_index_vtab *p, sqlite3_stmt *pStmt, int *pRc) {
  int rc;
  if (pStmt == NULL) return;
  rc = sqlite3_reset(pStmt);
  sqlite3_clear_bindings(pStmt);
  if (rc != SQLITE_OK && *pRc == SQLITE_OK) {
    *pRc = rc;
    if ((rc & 0xff) == SQLITE_CONSTRAINT) {
      /* Every write here keeps the shadow tables' keys unique: one that
      ** meets a constraint met a damaged row. */
      nosqlVtabError(&p->base, "inverted_index: corrupt shadow table of %s: %s ('rebuild' re-indexes)",
                     p->zName, sqlite3_errmsg(p->db));
      *pRc = SQLITE_CORRUPT_VTAB;
    } else {
      nosqlVtabError(&p->base, "%s", sqlite3_errmsg(p->db));
    }
  }
}

/* Report corruption of a shadow table with a message. Returns SQLITE_CORRUPT_VTAB. */
int iiCorrupt(inverted_index_vtab *p, const char *zWhat, const char *zSuffix) {
  nosqlVtabError(&p->base, "inverted_index: corrupt %s in %s_%s", zWhat, p->zName, zSuffix);
  return SQLITE_CORRUPT_VTAB;
}

/* True if iCode names a term namespace of p (a plain field, or a key or presence of a nested one). */
int iiCodeOk(inverted_index_vtab *p, sqlite3_int64 iCode) {
  int iField = II_CODE_FIELD(iCode), iSlot = II_CODE_SLOT(iCode);
  sqlite3_int64 iElem = II_CODE_ELEM(iCode);
  if (p->bNoDirect && (iCode == II_CODE_LIVE || iCode == II_CODE_EMPTY)) return 1;
  if (iCode < 0 || iField >= p->nField) return 0;
  if (p->aeLayout[iField] == II_LAYOUT_PLAIN) return iSlot == 0 && iElem == 0;
  if (iSlot < II_SLOT_PRESENT || iSlot > p->anKey[iField] + 1) return 0;
  return p->aeLayout[iField] == II_LAYOUT_ELEMENTS ? iElem == 0 : iElem >= 1;
}

/*
** The readable name of namespace iCode (sqlite3_mprintf; NULL on OOM):
** "city", "skills.skill" (elements layout), "skills.skill_3" (numbered),
** and for presence terms "skills" or "skills_3".
*/
char *iiCodeName(inverted_index_vtab *p, sqlite3_int64 iCode) {
  int iField = II_CODE_FIELD(iCode), iSlot = II_CODE_SLOT(iCode);
  sqlite3_int64 iElem = II_CODE_ELEM(iCode);
  const char *zKey;
  if (!iiCodeOk(p, iCode)) return sqlite3_mprintf("?");
  if (iCode == II_CODE_LIVE) return sqlite3_mprintf("(documents)");
  if (iCode == II_CODE_EMPTY) return sqlite3_mprintf("(documents without terms)");
  zKey = iSlot > II_SLOT_PRESENT ? p->aazKey[iField][iSlot - 2] : NULL;
  if (iElem == 0) return sqlite3_mprintf("%s%s%s", p->azField[iField], zKey ? "." : "", zKey ? zKey : "");
  return sqlite3_mprintf("%s%s%s_%lld", p->azField[iField], zKey ? "." : "", zKey ? zKey : "", iElem);
}

/*--------------------------------------------------------------------------
** The term cache.
*/

static size_t iiHashName(sqlite3_int64 iCode, const char *z, int n) {
  uint64_t h = nosqlFnv1a(NOSQL_FNV_SEED ^ (uint64_t)iCode, z, n);
  return (size_t)(h ^ (h >> 31));
}
static size_t iiHashId(sqlite3_int64 id) {
  uint64_t h = (uint64_t)id * 0x9e3779b97f4a7c15ull;
  return (size_t)(h ^ (h >> 29));
}

static void iiTermFree(IiTerm *t) {
  sqlite3_free(t->aAddBuf);
  if (t->pPost) roaring_bitmap_free(t->pPost);
  if (t->pAdd) roaring_bitmap_free(t->pAdd);
  if (t->pDel) roaring_bitmap_free(t->pDel);
  sqlite3_free(t->zTerm);
  sqlite3_free(t);
}

/* Forget every cached term, posting list and pending change. */
/* mode = 'sync': forget the rows 'displace' kept (iiStashAdd). */
void iiStashClear(inverted_index_vtab *p) {
  int i;
  for (i = 0; i < p->nStash * (p->nField + 1); i++) sqlite3_value_free(p->apStash[i]);
  p->nStash = 0;
}

void iiCacheClear(inverted_index_vtab *p) {
  size_t i;
  for (i = 0; i < p->nSlot; i++) {
    if (p->aByName[i]) iiTermFree(p->aByName[i]);
  }
  sqlite3_free(p->aByName);
  sqlite3_free(p->aById);
  p->aByName = p->aById = NULL;
  p->nSlot = p->nTermCached = p->nCacheBytes = 0;
  p->iTermMaxCached = 0;
  p->iTermMaxStored = -1;
  p->iDocNext = -1;
  p->bRowidMax = 0;
  p->pDirty = NULL;
  iiDocMapUnref(p->pMap);
  p->pMap = NULL;
  for (i = 0; p->aElemNext && i < (size_t)p->nField; i++) p->aElemNext[i] = -1;
  iiStashClear(p);
}

/* Slot of (iCode, z, n) in aByName: the entry or the empty slot. */
static size_t iiSlotByName(inverted_index_vtab *p, sqlite3_int64 iCode, const char *z, int n) {
  size_t i = iiHashName(iCode, z, n) & (p->nSlot - 1);
  while (p->aByName[i]) {
    IiTerm *t = p->aByName[i];
    if (t->iCode == iCode && t->nTerm == n && memcmp(t->zTerm, z, (size_t)n) == 0) break;
    i = (i + 1) & (p->nSlot - 1);
  }
  return i;
}
size_t iiSlotById(inverted_index_vtab *p, sqlite3_int64 id) {
  size_t i = iiHashId(id) & (p->nSlot - 1);
  while (p->aById[i] && p->aById[i]->id != id) i = (i + 1) & (p->nSlot - 1);
  return i;
}

/* Add t to the cache (it must not be there). On OOM frees t. */
static int iiCacheAdd(inverted_index_vtab *p, IiTerm *t) {
  if ((p->nTermCached + 1) * 2 > p->nSlot) {
    size_t nOld = p->nSlot, i;
    IiTerm **aOldName = p->aByName, **aOldId = p->aById;
    size_t nNew = nOld ? nOld * 2 : 256;
    p->aByName = (IiTerm **)sqlite3_malloc64(sizeof(IiTerm *) * nNew);
    p->aById = (IiTerm **)sqlite3_malloc64(sizeof(IiTerm *) * nNew);
    if (p->aByName == NULL || p->aById == NULL) {
      sqlite3_free(p->aByName);
      sqlite3_free(p->aById);
      p->aByName = aOldName;
      p->aById = aOldId;
      iiTermFree(t);
      return SQLITE_NOMEM;
    }
    memset(p->aByName, 0, sizeof(IiTerm *) * nNew);
    memset(p->aById, 0, sizeof(IiTerm *) * nNew);
    p->nSlot = nNew;
    for (i = 0; i < nOld; i++) {
      IiTerm *u = aOldName[i];
      if (u == NULL) continue;
      p->aByName[iiSlotByName(p, u->iCode, u->zTerm, u->nTerm)] = u;
      p->aById[iiSlotById(p, u->id)] = u;
    }
    sqlite3_free(aOldName);
    sqlite3_free(aOldId);
  }
  {
    size_t iName = iiSlotByName(p, t->iCode, t->zTerm, t->nTerm), iId = iiSlotById(p, t->id);
    /* Cached under its name with another id, or its id under another
    ** name: the dictionary gives two answers for one term. */
    if (p->aByName[iName] || p->aById[iId]) {
      iiTermFree(t);
      return iiCorrupt(p, "dictionary entry", "terms");
    }
    p->aByName[iName] = t;
    p->aById[iId] = t;
  }
  if (t->id > p->iTermMaxCached) p->iTermMaxCached = t->id;
  p->nTermCached++;
  return SQLITE_OK;
}

static IiTerm *iiTermNew(sqlite3_int64 id, sqlite3_int64 iCode, const char *z, int n) {
  IiTerm *t = (IiTerm *)sqlite3_malloc64(sizeof(IiTerm));
  if (t == NULL) return NULL;
  memset(t, 0, sizeof(*t));
  t->zTerm = (char *)sqlite3_malloc64((size_t)n + 1);
  if (t->zTerm == NULL) {
    sqlite3_free(t);
    return NULL;
  }
  memcpy(t->zTerm, z, (size_t)n);
  t->zTerm[n] = 0;
  t->nTerm = n;
  t->iCode = iCode;
  t->id = id;
  return t;
}

/*
** Find the term (iCode, z, n): from the cache, else the dictionary, else
** (bCreate) a new term, whose dictionary row iFlush() writes. *ppTerm is
** NULL for an unknown term when !bCreate.
*/
int iiTermByName(inverted_index_vtab *p, sqlite3_int64 iCode, const char *z, int n, int bCreate,
                 IiTerm **ppTerm) {
  int rc = SQLITE_OK, bNew = 0;
  sqlite3_stmt *pStmt;
  sqlite3_int64 id = 0;
  IiTerm *t;
  *ppTerm = NULL;
  if (p->nSlot) {
    t = p->aByName[iiSlotByName(p, iCode, z, n)];
    if (t) {
      *ppTerm = t;
      return SQLITE_OK;
    }
  }
  /* In a 'rebuild', or since the dictionary was read empty, every term
  ** made is in the cache (nothing evicts a term, only posting lists, until
  ** the cache is cleared, which forgets the dictionary was empty): a term
  ** not there is new, no lookup needed. */
  pStmt =
      (p->iBulkDoc >= 0 || p->iTermMaxStored == 0) && bCreate ? NULL : iiStmt(p, II_STMT_TERM_BY_NAME, &rc);
  if (pStmt) {
    sqlite3_bind_int64(pStmt, 1, iCode);
    sqlite3_bind_text(pStmt, 2, z, n, SQLITE_STATIC);
    if (sqlite3_step(pStmt) == SQLITE_ROW) id = sqlite3_column_int64(pStmt, 0);
    iiReset(p, pStmt, &rc);
  }
  if (rc == SQLITE_OK && id == 0) {
    if (!bCreate) return SQLITE_OK;
    bNew = 1;
    /* Ids from a counter; the rows are written at the flush, in id order,
    ** posting lists included: one INSERT per new term (not an INSERT, then
    ** an UPDATE that grows the row), and in a 'rebuild' appended, full
    ** pages. The id is the one an INSERT would have given then: one past
    ** the largest of the dictionary and of the cache, which holds every
    ** term not written yet (nothing evicts a term, only posting lists). */
    if (p->iBulkDoc >= 0) {
      id = ++p->iBulkTerm;
    } else {
      if (p->iTermMaxStored < 0) {
        sqlite3_int64 iMax = 0;
        int bNull = 1;
        rc = iiScalar(p, II_STMT_TERM_MAX_ID, &iMax, &bNull);
        /* 0: read empty (see above); a damaged id below 1 counts as 1. */
        if (rc == SQLITE_OK) p->iTermMaxStored = bNull ? 0 : iMax < 1 ? 1 : iMax;
      }
      id = p->iTermMaxStored > p->iTermMaxCached ? p->iTermMaxStored : p->iTermMaxCached;
      if (id < 0x7fffffffffffffffll) id++;
    }
    if (rc == SQLITE_OK && (id <= 0 || id > 0xFFFFFFFFll)) {
      /* A damaged id near the end makes the next one overflow: corruption, not a full table. */
      /* Counted with the new term, whose row is not written yet. */
      char *zSel = sqlite3_mprintf("SELECT count(*) + 1, max(coalesce(max(id), 0), %lld) + 1", id);
      rc = zSel ? iiMapRoom(p, "term", "terms", zSel, "", -1) : SQLITE_NOMEM;
      sqlite3_free(zSel);
      if (rc == SQLITE_OK) {
        nosqlVtabError(&p->base, "inverted_index: term id %lld is outside [1, 4294967295]", id);
        rc = SQLITE_FULL;
      }
    }
  }
  if (rc != SQLITE_OK) return rc;
  t = iiTermNew(id, iCode, z, n);
  if (t == NULL) return SQLITE_NOMEM;
  if (bNew) t->bUnwritten = 1;
  if (bNew) {
    /* Its row is written at the flush: nothing to load there. */
    t->pPost = roaring_bitmap_create();
    if (t->pPost == NULL) {
      iiTermFree(t);
      return SQLITE_NOMEM;
    }
  }
  rc = iiCacheAdd(p, t);
  if (rc == SQLITE_OK) *ppTerm = t;
  return rc;
}

/* Find the term with dictionary id "id" (cache, else dictionary). Unknown: corrupt. */
int iiTermById(inverted_index_vtab *p, sqlite3_int64 id, IiTerm **ppTerm) {
  int rc = SQLITE_OK;
  sqlite3_stmt *pStmt;
  IiTerm *t = NULL;
  *ppTerm = NULL;
  if (p->nSlot) {
    t = p->aById[iiSlotById(p, id)];
    if (t) {
      *ppTerm = t;
      return SQLITE_OK;
    }
  }
  pStmt = iiStmt(p, II_STMT_TERM_BY_ID, &rc);
  if (pStmt) {
    sqlite3_bind_int64(pStmt, 1, id);
    if (sqlite3_step(pStmt) == SQLITE_ROW) {
      sqlite3_int64 iCode = sqlite3_column_int64(pStmt, 0);
      const char *z = (const char *)sqlite3_column_text(pStmt, 1);
      int n = sqlite3_column_bytes(pStmt, 1);
      if (sqlite3_column_type(pStmt, 0) != SQLITE_INTEGER || !iiCodeOk(p, iCode) || z == NULL) {
        rc = iiCorrupt(p, "dictionary entry", "terms");
      } else {
        t = iiTermNew(id, iCode, z, n);
        if (t == NULL) rc = SQLITE_NOMEM;
      }
    } else {
      rc = SQLITE_CORRUPT_VTAB;
    }
    iiReset(p, pStmt, &rc);
    if (rc == SQLITE_CORRUPT_VTAB && p->base.zErrMsg == NULL) {
      nosqlVtabError(&p->base, "inverted_index: corrupt direct index in %s_docs: unknown term id %lld",
                     p->zName, id);
    }
  }
  if (rc == SQLITE_OK) {
    rc = iiCacheAdd(p, t);
    if (rc == SQLITE_OK) *ppTerm = t;
  } else if (t) {
    iiTermFree(t);
  }
  return rc;
}

/* Make t->pPost the stored posting list of t (checked). */
int iiTermLoad(inverted_index_vtab *p, IiTerm *t) {
  int rc = SQLITE_OK;
  sqlite3_stmt *pStmt;
  if (t->pPost) return SQLITE_OK;
  pStmt = iiStmt(p, II_STMT_TERM_POSTINGS, &rc);
  if (pStmt == NULL) return rc;
  sqlite3_bind_int64(pStmt, 1, t->id);
  if (sqlite3_step(pStmt) == SQLITE_ROW) {
    sqlite3_int64 nDocs = sqlite3_column_int64(pStmt, 0);
    const unsigned char *a = (const unsigned char *)sqlite3_column_blob(pStmt, 1);
    size_t n = (size_t)sqlite3_column_bytes(pStmt, 1);
    if (sqlite3_column_type(pStmt, 1) == SQLITE_NULL) {
      t->pPost = roaring_bitmap_create();
      if (t->pPost == NULL) rc = SQLITE_NOMEM;
    } else {
      t->pPost = iiBitmapUnframe(a, n, &rc);
      t->nPostBytes = n;
    }
    if (rc == SQLITE_OK && (sqlite3_int64)roaring_bitmap_get_cardinality(t->pPost) != nDocs)
      rc = SQLITE_CORRUPT;
  } else {
    rc = SQLITE_CORRUPT;
  }
  iiReset(p, pStmt, &rc);
  if (rc == SQLITE_CORRUPT) {
    char *zName = iiCodeName(p, t->iCode);
    nosqlVtabError(&p->base, "inverted_index: corrupt posting list of %s:'%q' in %s_terms",
                   zName ? zName : "?", t->zTerm, p->zName);
    sqlite3_free(zName);
    rc = SQLITE_CORRUPT_VTAB;
  }
  if (rc != SQLITE_OK && t->pPost) {
    roaring_bitmap_free(t->pPost);
    t->pPost = NULL;
  }
  if (rc == SQLITE_OK) p->nCacheBytes += t->nPostBytes;
  return rc;
}

/*
** Move t's buffered additions into t->pAdd. Additions in ascending order
** (a rebuild, appended documents, 'optimize') are buffered and added in
** batches: roaring_bitmap_add_many() appends a run where one add per
** document searched and grew the containers each time.
*/
static int iiTermAddBufFlush(IiTerm *t) {
  if (t->nAddBuf == 0) return SQLITE_OK;
  if (t->pAdd == NULL) t->pAdd = roaring_bitmap_create();
  if (t->pAdd == NULL) return SQLITE_NOMEM;
  roaring_bitmap_add_many(t->pAdd, (size_t)t->nAddBuf, t->aAddBuf);
  t->nAddBuf = 0;
  return SQLITE_OK;
}

/* Merge every pending change into the stored posting lists. */
static int iiCmpTermId(const void *a, const void *b) {
  sqlite3_int64 x = (*(IiTerm *const *)a)->id, y = (*(IiTerm *const *)b)->id;
  return x < y ? -1 : x > y;
}

int iiFlush(inverted_index_vtab *p) {
  int rc = SQLITE_OK;
  /* New terms' rows are INSERTed here, possibly within a read: the
  ** connection's last_insert_rowid stays the application's. */
  sqlite3_int64 iLastRowid = sqlite3_last_insert_rowid(p->db);
  if (p->pDirty && p->pDirty->pDirtyNext) {
    /* Written in id order: the rows' b-tree sees ascending keys. */
    size_t n = 0, i;
    IiTerm *t, **a;
    for (t = p->pDirty; t; t = t->pDirtyNext) n++;
    a = (IiTerm **)sqlite3_malloc64(sizeof(IiTerm *) * n);
    if (a) {
      for (n = 0, t = p->pDirty; t; t = t->pDirtyNext) a[n++] = t;
      qsort(a, n, sizeof(IiTerm *), iiCmpTermId);
      for (i = 0; i < n; i++) a[i]->pDirtyNext = i + 1 < n ? a[i + 1] : NULL;
      p->pDirty = a[0];
      sqlite3_free(a);
    }
  }
  while (p->pDirty && rc == SQLITE_OK) {
    IiTerm *t = p->pDirty;
    sqlite3_stmt *pStmt;
    rc = iiTermAddBufFlush(t);
    if (rc == SQLITE_OK) rc = iiTermLoad(p, t);
    if (rc != SQLITE_OK) break;
    if (t->pDel) roaring_bitmap_andnot_inplace(t->pPost, t->pDel);
    if (t->pAdd) roaring_bitmap_or_inplace(t->pPost, t->pAdd);
    pStmt = iiStmt(p, t->bUnwritten ? II_STMT_TERM_INSERT_FULL : II_STMT_TERM_WRITE, &rc);
    if (pStmt) {
      uint64_t nCard = roaring_bitmap_get_cardinality(t->pPost);
      size_t nBlob = 0;
      unsigned char *aBlob = NULL;
      if (nCard > 0) {
        aBlob = iiPostingFrame(t->pPost, p->bNoDirect, &nBlob);
        if (aBlob == NULL) rc = SQLITE_NOMEM;
      }
      if (rc == SQLITE_OK) {
        sqlite3_bind_int64(pStmt, 1, t->id);
        sqlite3_bind_int64(pStmt, 2, (sqlite3_int64)nCard);
        if (aBlob) sqlite3_bind_blob64(pStmt, 3, aBlob, nBlob, sqlite3_free);
        if (t->bUnwritten) {
          sqlite3_bind_int64(pStmt, 4, t->iCode);
          sqlite3_bind_text(pStmt, 5, t->zTerm, t->nTerm, SQLITE_STATIC);
        }
        sqlite3_step(pStmt);
        iiReset(p, pStmt, &rc);
        if (rc == SQLITE_OK) t->bUnwritten = 0;
        p->nCacheBytes = p->nCacheBytes - t->nPostBytes + nBlob;
        t->nPostBytes = nBlob;
      } else {
        sqlite3_free(aBlob);
      }
    }
    if (rc != SQLITE_OK) break;
    if (t->pAdd) roaring_bitmap_free(t->pAdd);
    if (t->pDel) roaring_bitmap_free(t->pDel);
    t->pAdd = t->pDel = NULL;
    sqlite3_free(t->aAddBuf);
    t->aAddBuf = NULL;
    t->nAddBufAlloc = 0;
    t->bDirty = 0;
    p->pDirty = t->pDirtyNext;
    t->pDirtyNext = NULL;
  }
  if (sqlite3_last_insert_rowid(p->db) != iLastRowid) sqlite3_set_last_insert_rowid(p->db, iLastRowid);
  return rc;
}

/* Record a pending addition (bAdd) or removal of document iDoc for t. */
int iiTermPending(inverted_index_vtab *p, IiTerm *t, uint32_t iDoc, int bAdd) {
  roaring_bitmap_t **ppTo = bAdd ? &t->pAdd : &t->pDel;
  roaring_bitmap_t *pFrom;
  if (bAdd && (t->nAddBuf == 0 || iDoc > t->aAddBuf[t->nAddBuf - 1])) {
    /* Ascending: into the buffer, which grows by doubling up to 1024 entries. */
    if (t->nAddBuf == t->nAddBufAlloc && t->nAddBufAlloc < 1024) {
      int nNew = t->nAddBufAlloc ? t->nAddBufAlloc * 2 : 16;
      uint32_t *aNew = (uint32_t *)sqlite3_realloc64(t->aAddBuf, sizeof(uint32_t) * (size_t)nNew);
      if (aNew == NULL) return SQLITE_NOMEM;
      t->aAddBuf = aNew;
      t->nAddBufAlloc = nNew;
    }
    if (t->nAddBuf == t->nAddBufAlloc && iiTermAddBufFlush(t) != SQLITE_OK) return SQLITE_NOMEM;
    t->aAddBuf[t->nAddBuf++] = iDoc;
    if (t->pDel) roaring_bitmap_remove(t->pDel, iDoc);
  } else {
    /* Out of order, or a removal (which must see every addition): through pAdd. */
    if (iiTermAddBufFlush(t) != SQLITE_OK) return SQLITE_NOMEM;
    pFrom = bAdd ? t->pDel : t->pAdd;
    if (*ppTo == NULL) {
      *ppTo = roaring_bitmap_create();
      if (*ppTo == NULL) return SQLITE_NOMEM;
    }
    roaring_bitmap_add(*ppTo, iDoc);
    if (pFrom) roaring_bitmap_remove(pFrom, iDoc);
  }
  if (!t->bDirty) {
    t->bDirty = 1;
    t->pDirtyNext = p->pDirty;
    p->pDirty = t;
  }
  return SQLITE_OK;
}

/*
** Bring the caches up to date: drop them if another connection committed
** since they were filled; trim the posting cache to its budget.
*/
int iiCacheCheck(inverted_index_vtab *p) {
  int rc = SQLITE_OK;
  sqlite3_stmt *pStmt = iiStmt(p, II_STMT_DATA_VERSION, &rc);
  if (pStmt) {
    sqlite3_int64 v = sqlite3_step(pStmt) == SQLITE_ROW ? sqlite3_column_int64(pStmt, 0) : -1;
    iiReset(p, pStmt, &rc);
    if (rc == SQLITE_OK && v != p->iDataVersion) {
      if (p->pDirty == NULL) iiCacheClear(p);
      p->iDataVersion = v;
    }
  }
  if (rc == SQLITE_OK && p->nCacheBytes > II_CACHE_MAX) {
    size_t i;
    for (i = 0; i < p->nSlot; i++) {
      IiTerm *t = p->aByName[i];
      /* A term not written yet has its posting list nowhere else. */
      if (t && t->pPost && !t->bUnwritten) {
        roaring_bitmap_free(t->pPost);
        t->pPost = NULL;
        t->nPostBytes = 0;
      }
    }
    p->nCacheBytes = 0;
  }
  return rc;
}

/*
** The in-memory maps are indexed by document or element number, so they
** are as long as the largest stored number. Numbers are given densely
** (deletes leave holes until 'optimize'), so one far beyond the count of
** what is stored is damage, or churn that 'optimize' undoes: either way
** SQLITE_CORRUPT_VTAB with a message, not an allocation of gigabytes.
** zSelect yields (how many are stored, largest number + 1) from the shadow
** table zSuffix (WHERE field = iField unless iField < 0).
*/
#define II_MAP_SLACK (1 << 22)
int iiMapRoom(inverted_index_vtab *p, const char *zWhat, const char *zSuffix, const char *zSelect,
              const char *zOf, int iField) {
  sqlite3_stmt *pStmt = NULL;
  char *zSql = sqlite3_mprintf("%s FROM \"%w\".\"%w_%s\"%s", zSelect, p->zDb, p->zName, zSuffix,
                               iField >= 0 ? " WHERE field = ?1" : "");
  int rc;
  if (zSql == NULL) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  if (rc == SQLITE_OK) {
    if (iField >= 0) sqlite3_bind_int(pStmt, 1, iField);
    if (sqlite3_step(pStmt) == SQLITE_ROW) {
      sqlite3_int64 nStored = sqlite3_column_int64(pStmt, 0), nEnd = sqlite3_column_int64(pStmt, 1);
      if (nStored < 0 || nEnd > 4 * nStored + II_MAP_SLACK) {
        nosqlVtabError(
            &p->base,
            "inverted_index: corrupt %s numbers in %s_%s%s: they reach %lld for %lld stored (damaged, "
            "or holes that 'optimize' closes)",
            zWhat, p->zName, zSuffix, zOf, nEnd - 1, nStored);
        rc = SQLITE_CORRUPT_VTAB;
      }
    }
    if (rc == SQLITE_OK) {
      rc = sqlite3_finalize(pStmt);
    } else {
      sqlite3_finalize(pStmt);
    }
  }
  if (rc != SQLITE_OK && rc != SQLITE_CORRUPT_VTAB && p->base.zErrMsg == NULL) {
    nosqlVtabError(&p->base, "inverted_index: %s", sqlite3_errmsg(p->db));
  }
  return rc;
}

/* iiMapRoom() for the element numbers of field iField. */
int iiElemRoom(inverted_index_vtab *p, int iField) {
  /* Counted as iiElemMapLoad() bounds n: by the bytes of each row's blob. */
  char *zSel = sqlite3_mprintf("SELECT sum(min(n, (length(terms) - %d) / 2)), max(first + n)", II_FRAME2_HDR);
  char *zOf = sqlite3_mprintf(" (field '%s')", p->azField[iField]);
  int rc = zSel && zOf ? iiMapRoom(p, "element", "elems", zSel, zOf, iField) : SQLITE_NOMEM;
  sqlite3_free(zSel);
  sqlite3_free(zOf);
  return rc;
}

/* Make sure p->pMap is loaded (it reflects every write so far). */
int iiDocMapLoad(inverted_index_vtab *p) {
  int rc = SQLITE_OK;
  sqlite3_stmt *pStmt = NULL;
  IiDocMap *pMap;
  char *zSql;
  sqlite3_int64 nAlloc = 0;
  int bRoom = 0; /* iiMapRoom() passed */
  if (p->pMap) return SQLITE_OK;
  pMap = (IiDocMap *)sqlite3_malloc64(sizeof(IiDocMap));
  if (pMap == NULL) return SQLITE_NOMEM;
  memset(pMap, 0, sizeof(*pMap));
  pMap->nRef = 1;
  pMap->bOrdered = 1;
  pMap->pLive = roaring_bitmap_create();
  if (pMap->pLive == NULL) rc = SQLITE_NOMEM;
  if (p->bNoDirect) {
    /* Documents are rowids: the live ones are a stored posting list. */
    IiTerm *t = NULL;
    if (rc == SQLITE_OK) rc = iiFlush(p);
    if (rc == SQLITE_OK) rc = iiTermByName(p, II_CODE_LIVE, "", 0, 0, &t);
    if (rc == SQLITE_OK && t) rc = iiTermLoad(p, t);
    if (rc == SQLITE_OK && t) {
      roaring_bitmap_free(pMap->pLive);
      pMap->pLive = roaring_bitmap_copy(t->pPost);
      if (pMap->pLive == NULL) rc = SQLITE_NOMEM;
    }
    if (rc == SQLITE_OK && !roaring_bitmap_is_empty(pMap->pLive)) {
      uint32_t iMax = roaring_bitmap_maximum(pMap->pLive);
      if (iMax > II_ROWID_MAX) {
        rc = iiCorrupt(p, "document list", "terms");
      } else {
        pMap->nDoc = iMax + 1;
      }
    }
    if (rc != SQLITE_OK) {
      iiDocMapUnref(pMap);
      return rc;
    }
    p->pMap = pMap;
    return SQLITE_OK;
  }
  zSql = sqlite3_mprintf("SELECT doc, id FROM \"%w\".\"%w_docs\" ORDER BY doc", p->zDb, p->zName);
  if (rc == SQLITE_OK && zSql == NULL) rc = SQLITE_NOMEM;
  if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    sqlite3_int64 iDoc = sqlite3_column_int64(pStmt, 0);
    sqlite3_int64 iRowid = sqlite3_column_int64(pStmt, 1);
    sqlite3_int64 iPrev = pMap->nDoc ? pMap->aRowid[pMap->nDoc - 1] : 0;
    if (iDoc < 0 || iDoc > 0xFFFFFFFEll || sqlite3_column_type(pStmt, 1) != SQLITE_INTEGER) {
      rc = iiCorrupt(p, "document number", "docs");
      break;
    }
    if (iDoc >= nAlloc) {
      sqlite3_int64 nNew = nAlloc ? nAlloc * 2 : 1024;
      sqlite3_int64 *aNew;
      /* Beyond what the rows so far justify: count them all once. */
      if (!bRoom && iDoc > 4 * (sqlite3_int64)roaring_bitmap_get_cardinality(pMap->pLive) + II_MAP_SLACK) {
        rc = iiMapRoom(p, "document", "docs", "SELECT count(*), max(doc) + 1", "", -1);
        if (rc != SQLITE_OK) break;
        bRoom = 1;
      }
      while (nNew <= iDoc) nNew *= 2;
      aNew = (sqlite3_int64 *)sqlite3_realloc64(pMap->aRowid, sizeof(sqlite3_int64) * (size_t)nNew);
      if (aNew == NULL) {
        rc = SQLITE_NOMEM;
        break;
      }
      pMap->aRowid = aNew;
      nAlloc = nNew;
    }
    if (pMap->nDoc && iRowid <= iPrev) pMap->bOrdered = 0;
    /* Holes repeat the previous rowid so aRowid[] stays sorted when ordered. */
    while (pMap->nDoc < (uint32_t)iDoc) pMap->aRowid[pMap->nDoc++] = iPrev;
    pMap->aRowid[pMap->nDoc++] = iRowid;
    roaring_bitmap_add(pMap->pLive, (uint32_t)iDoc);
  }
  if (pStmt) {
    int rc2 = sqlite3_finalize(pStmt);
    if (rc == SQLITE_OK && rc2 != SQLITE_OK) {
      rc = rc2;
      nosqlVtabError(&p->base, "%s", sqlite3_errmsg(p->db));
    }
  }
  if (rc != SQLITE_OK) {
    iiDocMapUnref(pMap);
    return rc;
  }
  pMap->nAlloc = nAlloc;
  p->pMap = pMap;
  return SQLITE_OK;
}

/* The table's documents changed: the next reader reloads the map. */
void iiDocMapStale(inverted_index_vtab *p) {
  iiDocMapUnref(p->pMap);
  p->pMap = NULL;
}

/*
** Keep the loaded document map in step with one successful write (rc is
** the write's result), so that a query after a write does not reload it.
** A map that a cursor shares, or a failed write, is dropped instead; the
** direct index is dropped either way (facets reload it). aRowid[] stays
** non-decreasing while bOrdered holds: entries of deleted documents keep
** their rowid, entries past an insert take its rowid; bOrdered is cleared
** whenever a write might break the order.
*/
void iiDocMapNote(inverted_index_vtab *p, int rc, int eOp, uint32_t iDoc, sqlite3_int64 iRowid) {
  IiDocMap *pMap = p->pMap;
  uint32_t k;
  if (pMap == NULL) return;
  if (rc != SQLITE_OK || pMap->nRef > 1) {
    iiDocMapStale(p);
    return;
  }
  sqlite3_free(pMap->aOff);
  sqlite3_free(pMap->aTermId);
  pMap->aOff = NULL;
  pMap->aTermId = NULL;
  pMap->nPosting = 0;
  /* The element maps were kept in step by iiElemMapSet(). */
  if (eOp == II_NOTE_DELETE) {
    roaring_bitmap_remove(pMap->pLive, iDoc);
    return;
  }
  if (pMap->aRowid == NULL && p->bNoDirect) {
    /* Document = rowid: an insert (the only other write). */
    roaring_bitmap_add(pMap->pLive, iDoc);
    if (iDoc >= pMap->nDoc) pMap->nDoc = iDoc + 1;
    return;
  }
  if (eOp == II_NOTE_MOVE) {
    if (iDoc < pMap->nDoc && pMap->aRowid[iDoc] != iRowid) {
      pMap->aRowid[iDoc] = iRowid;
      pMap->bOrdered = 0;
    }
    return;
  }
  if (iDoc >= pMap->nAlloc) {
    sqlite3_int64 nNew = pMap->nAlloc ? pMap->nAlloc * 2 : 1024;
    sqlite3_int64 *aNew;
    while (nNew <= iDoc) nNew *= 2;
    aNew = (sqlite3_int64 *)sqlite3_realloc64(pMap->aRowid, sizeof(sqlite3_int64) * (size_t)nNew);
    if (aNew == NULL) {
      iiDocMapStale(p);
      return;
    }
    pMap->aRowid = aNew;
    pMap->nAlloc = nNew;
  }
  while (pMap->nDoc <= iDoc) {
    pMap->aRowid[pMap->nDoc] = pMap->nDoc ? pMap->aRowid[pMap->nDoc - 1] : iRowid;
    pMap->nDoc++;
  }
  if (iDoc > 0 && iRowid <= pMap->aRowid[iDoc - 1]) pMap->bOrdered = 0;
  for (k = iDoc; k < pMap->nDoc; k++) pMap->aRowid[k] = iRowid;
  roaring_bitmap_add(pMap->pLive, iDoc);
}

/* Load the direct index into pMap (which must be p->pMap). */
int iiDirectLoad(inverted_index_vtab *p, IiDocMap *pMap) {
  int rc = SQLITE_OK;
  sqlite3_stmt *pStmt = NULL;
  char *zSql;
  uint64_t nAlloc = 0;
  uint32_t iNext = 0;
  if (pMap->aOff) return SQLITE_OK;
  pMap->aOff = (uint64_t *)sqlite3_malloc64(sizeof(uint64_t) * ((size_t)pMap->nDoc + 1));
  zSql = sqlite3_mprintf("SELECT doc, terms FROM \"%w\".\"%w_docs\" ORDER BY doc", p->zDb, p->zName);
  if (pMap->aOff == NULL || zSql == NULL) rc = SQLITE_NOMEM;
  if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  pMap->nPosting = 0;
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    sqlite3_int64 iDoc = sqlite3_column_int64(pStmt, 0);
    const unsigned char *aBlob = (const unsigned char *)sqlite3_column_blob(pStmt, 1);
    size_t nBlob = (size_t)sqlite3_column_bytes(pStmt, 1), nId = 0;
    if (iDoc < iNext || iDoc >= pMap->nDoc) {
      rc = iiCorrupt(p, "direct index", "docs");
      break;
    }
    while (iNext <= (uint32_t)iDoc) pMap->aOff[iNext++] = pMap->nPosting;
    /* Room for the most ids nBlob bytes can hold, then decode in place. */
    if (pMap->nPosting + nBlob > nAlloc) {
      uint64_t nNew = nAlloc ? nAlloc * 2 : 4096;
      uint32_t *aNew;
      while (nNew < pMap->nPosting + nBlob) nNew *= 2;
      aNew = (uint32_t *)sqlite3_realloc64(pMap->aTermId, sizeof(uint32_t) * nNew);
      if (aNew == NULL) {
        rc = SQLITE_NOMEM;
        break;
      }
      pMap->aTermId = aNew;
      nAlloc = nNew;
    }
    if (iiDirectDecode(aBlob, nBlob, pMap->aTermId + pMap->nPosting, &nId)) {
      rc = iiCorrupt(p, "direct index", "docs");
      break;
    }
    pMap->nPosting += nId;
  }
  if (pStmt) {
    int rc2 = sqlite3_finalize(pStmt);
    if (rc == SQLITE_OK) rc = rc2;
  }
  if (rc == SQLITE_OK) {
    while (iNext <= pMap->nDoc) pMap->aOff[iNext++] = pMap->nPosting;
  } else {
    sqlite3_free(pMap->aOff);
    pMap->aOff = NULL;
  }
  return rc;
}

/* The posting list of (iCode, zTerm), borrowed from the cache; the empty set for an unknown term. */
static int iiLoadCode(inverted_index_vtab *p, sqlite3_int64 iCode, const char *zTerm, int nTerm,
                      const roaring_bitmap_t **ppPost) {
  IiTerm *t = NULL;
  int rc = iiTermByName(p, iCode, zTerm, nTerm, 0, &t);
  if (rc == SQLITE_OK && t) rc = iiTermLoad(p, t);
  *ppPost = (rc == SQLITE_OK && t) ? t->pPost : p->pEmpty;
  return rc;
}

/* The posting loader of iiQueryEval over a table's cache: plain fields. */
static int iiLoader(void *pCtx, int iField, const char *zTerm, int nTerm, const roaring_bitmap_t **ppPost) {
  return iiLoadCode((inverted_index_vtab *)pCtx, iField, zTerm, nTerm, ppPost);
}

/* The loader inside an element query: key iKey of field iField at element position iElem (0: elements
 * layout). */
typedef struct IiKeyCtx IiKeyCtx;
struct IiKeyCtx {
  inverted_index_vtab *p; /* The table */
  int iField;             /* The nested field */
  sqlite3_int64 iElem;    /* Numbered layout: the element position; else 0 */
};
static int iiKeyLoader(void *pCtx, int iKey, const char *zTerm, int nTerm, const roaring_bitmap_t **ppPost) {
  IiKeyCtx *c = (IiKeyCtx *)pCtx;
  return iiLoadCode(c->p, II_CODE(c->iField, iKey + 2, c->iElem), zTerm, nTerm, ppPost);
}

/*
** True if stored element numbers iFirst .. iFirst + n - 1 are a valid
** range: n >= 1 and every number fits in 32 bits (checked without
** overflow: both come from a <name>_elems row, untrusted).
*/
int iiElemRangeOk(sqlite3_int64 iFirst, sqlite3_int64 n) {
  return iFirst >= 0 && n >= 1 && n <= 0xFFFFFFFFll && iFirst <= 0xFFFFFFFFll - n;
}

/*
** Load the element map of field iField (elements layout) into p->pMap:
** the parent document of every element number, 0xFFFFFFFF for none.
** Element ranges come from <name>_elems and must not overlap, nor name
** a document that is not live.
*/
static int iiElemMapLoad(inverted_index_vtab *p, int iField) {
  IiDocMap *pMap = p->pMap;
  sqlite3_stmt *pStmt = NULL;
  char *zSql;
  int rc = SQLITE_OK;
  uint32_t *aDoc = NULL;
  sqlite3_int64 nAlloc = 0, iEnd = 0, nSeen = 0;
  int bRoom = 0;               /* iiElemRoom() passed */
  sqlite3_int64 nPresent = -1; /* direct = off: the field's live elements */
  if (pMap->nElemField == 0) {
    pMap->aaElemDoc = (uint32_t **)sqlite3_malloc64(sizeof(uint32_t *) * (size_t)p->nField);
    pMap->anElem = (uint32_t *)sqlite3_malloc64(sizeof(uint32_t) * (size_t)p->nField);
    pMap->anElemAlloc = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * (size_t)p->nField);
    if (pMap->aaElemDoc == NULL || pMap->anElem == NULL || pMap->anElemAlloc == NULL) {
      iiElemMapsFree(pMap);
      return SQLITE_NOMEM;
    }
    memset(pMap->aaElemDoc, 0, sizeof(uint32_t *) * (size_t)p->nField);
    memset(pMap->anElem, 0, sizeof(uint32_t) * (size_t)p->nField);
    memset(pMap->anElemAlloc, 0, sizeof(sqlite3_int64) * (size_t)p->nField);
    pMap->nElemField = p->nField;
  }
  if (pMap->aaElemDoc[iField]) return SQLITE_OK;
  if (p->bNoDirect) {
    /* No element term rows to bound n by: every element has the presence
    ** term, whose posting list bounds the element numbers instead. */
    IiTerm *t = NULL;
    rc = iiTermByName(p, II_CODE(iField, II_SLOT_PRESENT, 0), "", 0, 0, &t);
    if (rc == SQLITE_OK && t) rc = iiTermLoad(p, t);
    if (rc != SQLITE_OK) return rc;
    nPresent = t ? (sqlite3_int64)roaring_bitmap_get_cardinality(t->pPost) : 0;
    bRoom = 1;
  }
  zSql = sqlite3_mprintf("SELECT first, n, doc, %s FROM \"%w\".\"%w_elems\" WHERE field = ?1 ORDER BY first",
                         p->bNoDirect ? "NULL" : "length(terms)", p->zDb, p->zName);
  if (zSql == NULL) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  if (rc != SQLITE_OK) {
    nosqlVtabError(&p->base, "%s", sqlite3_errmsg(p->db));
    return rc;
  }
  sqlite3_bind_int(pStmt, 1, iField);
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    sqlite3_int64 iFirst = sqlite3_column_int64(pStmt, 0), n = sqlite3_column_int64(pStmt, 1);
    sqlite3_int64 iDoc = sqlite3_column_int64(pStmt, 2), k;
    /* Each element takes at least 2 bytes of the row's blob after its
    ** 8-byte frame (a count and the presence term, one varint each; 8 in
    ** an older release's u32 words, after 12): a damaged n cannot make
    ** the map outgrow the stored rows (the blob itself is checked where
    ** it is decoded). */
    sqlite3_int64 nMax = (sqlite3_column_int64(pStmt, 3) - II_FRAME2_HDR) / 2;
    if (nPresent >= 0) {
      sqlite3_int64 nRoom = 4 * nPresent + II_MAP_SLACK;
      nMax = iFirst > nRoom || n > nRoom - iFirst ? -1 : nPresent;
    }
    if (!iiElemRangeOk(iFirst, n) || n > nMax || iFirst < iEnd || iDoc < 0 || iDoc >= pMap->nDoc ||
        !roaring_bitmap_contains(pMap->pLive, (uint32_t)iDoc)) {
      rc = iiCorrupt(p, "element range", "elems");
      break;
    }
    nSeen += n;
    if (iFirst + n > nAlloc) {
      sqlite3_int64 nNew = nAlloc ? nAlloc * 2 : 1024;
      uint32_t *aNew;
      /* Beyond what the rows so far justify: count them all once. */
      if (!bRoom && iFirst + n > 4 * nSeen + II_MAP_SLACK) {
        rc = iiElemRoom(p, iField);
        if (rc != SQLITE_OK) break;
        bRoom = 1;
      }
      while (nNew < iFirst + n) nNew *= 2;
      aNew = (uint32_t *)sqlite3_realloc64(aDoc, sizeof(uint32_t) * (size_t)nNew);
      if (aNew == NULL) {
        rc = SQLITE_NOMEM;
        break;
      }
      aDoc = aNew;
      nAlloc = nNew;
    }
    while (iEnd < iFirst) aDoc[iEnd++] = 0xFFFFFFFFu;
    for (k = 0; k < n; k++) aDoc[iEnd++] = (uint32_t)iDoc;
  }
  {
    int rc2 = sqlite3_finalize(pStmt);
    if (rc == SQLITE_OK && rc2 != SQLITE_OK) {
      rc = rc2;
      nosqlVtabError(&p->base, "%s", sqlite3_errmsg(p->db));
    }
  }
  if (rc == SQLITE_OK && aDoc == NULL) {
    aDoc = (uint32_t *)sqlite3_malloc64(sizeof(uint32_t));
    if (aDoc == NULL) rc = SQLITE_NOMEM;
    nAlloc = 1;
  }
  if (rc != SQLITE_OK) {
    sqlite3_free(aDoc);
    return rc;
  }
  pMap->aaElemDoc[iField] = aDoc;
  pMap->anElem[iField] = (uint32_t)iEnd;
  pMap->anElemAlloc[iField] = nAlloc;
  return SQLITE_OK;
}

/*
** The element query iField:{pInner} (IiNestEval): the documents with one
** element that satisfies pInner. Elements layout: pInner over element
** posting lists (NOT within the field's live elements), then the parent
** documents. Numbered layout: pInner at each element position 1, 2, ...
** (NOT within the documents that have that position), ORed: the cost
** grows with the largest element count, the article's complaint.
*/
static int iiNestEval(void *pCtx, int iField, IiExpr *pInner, roaring_bitmap_t **ppDocs) {
  inverted_index_vtab *p = (inverted_index_vtab *)pCtx;
  IiKeyCtx c;
  int rc = SQLITE_OK;
  const roaring_bitmap_t *pUni = NULL;
  roaring_bitmap_t *pOut, *pSub;
  *ppDocs = NULL;
  c.p = p;
  c.iField = iField;
  c.iElem = 0;
  pOut = roaring_bitmap_create();
  if (pOut == NULL) return SQLITE_NOMEM;
  if (p->aeLayout[iField] == II_LAYOUT_NUMBERED) {
    for (c.iElem = 1; rc == SQLITE_OK; c.iElem++) {
      IiTerm *t = NULL;
      rc = iiTermByName(p, II_CODE(iField, II_SLOT_PRESENT, c.iElem), "", 0, 0, &t);
      if (rc != SQLITE_OK || t == NULL) break;
      rc = iiTermLoad(p, t);
      if (rc != SQLITE_OK) break;
      pSub = iiQueryEvalNested(pInner, t->pPost, iiKeyLoader, NULL, &c, &rc);
      if (pSub) {
        roaring_bitmap_or_inplace(pOut, pSub);
        roaring_bitmap_free(pSub);
      }
    }
  } else {
    rc = iiLoadCode(p, II_CODE(iField, II_SLOT_PRESENT, 0), "", 0, &pUni);
    pSub = rc == SQLITE_OK ? iiQueryEvalNested(pInner, pUni, iiKeyLoader, NULL, &c, &rc) : NULL;
    if (pSub && !roaring_bitmap_is_empty(pSub)) rc = iiElemMapLoad(p, iField);
    if (pSub && rc == SQLITE_OK && !roaring_bitmap_is_empty(pSub)) {
      /* Project element numbers to their documents, a batch at a time. */
      const uint32_t *aDoc = p->pMap->aaElemDoc[iField];
      uint32_t nElem = p->pMap->anElem[iField], aBuf[256], nBuf = 0, iLast = 0xFFFFFFFFu;
      roaring_uint32_iterator_t it;
      for (roaring_init_iterator(pSub, &it); it.has_value; roaring_advance_uint32_iterator(&it)) {
        uint32_t e = it.current_value, d;
        if (e >= nElem || aDoc[e] == 0xFFFFFFFFu) {
          rc = iiCorrupt(p, "element posting list (an element without a document)", "terms");
          break;
        }
        d = aDoc[e];
        if (d == iLast) continue;
        iLast = d;
        aBuf[nBuf++] = d;
        if (nBuf == sizeof(aBuf) / sizeof(aBuf[0])) {
          roaring_bitmap_add_many(pOut, nBuf, aBuf);
          nBuf = 0;
        }
      }
      if (nBuf) roaring_bitmap_add_many(pOut, nBuf, aBuf);
    }
    if (pSub) roaring_bitmap_free(pSub);
  }
  if (rc != SQLITE_OK) {
    roaring_bitmap_free(pOut);
    return rc;
  }
  *ppDocs = pOut;
  return SQLITE_OK;
}

/*
** Facet counts of key iKey of nested field iField for the audience pAud
** of query zQuery (NULL: every document): aCount[t] is the number of
** documents of pAud with one element that has term azTerm[t] and
** meets one of the query's top-level element conditions on the field
** (iiQueryNestFacet). *pzErr: a query error.
*/
int iiNestFacets(inverted_index_vtab *p, const char *zQuery, const roaring_bitmap_t *pAud, int iField,
                 int iKey, int nTerm, const char *const *azTerm, const int *anTerm, int64_t *aCount,
                 char **pzErr) {
  int rc = SQLITE_OK, t;
  IiExpr *pQuery = NULL;
  *pzErr = NULL;
  if (zQuery) {
    pQuery = iiQueryParseNested(zQuery, p->nField, (const char *const *)p->azField, p->anKey,
                                (const char *const *const *)p->aazKey, pzErr, &rc);
    if (pQuery == NULL) return rc;
  }
  for (t = 0; rc == SQLITE_OK && t < nTerm; t++) {
    IiExpr *pInner = iiQueryNestFacet(pQuery, iField, iKey, azTerm[t], anTerm[t], &rc);
    roaring_bitmap_t *pDocs = NULL;
    if (pInner) rc = iiNestEval(p, iField, pInner, &pDocs);
    if (pDocs) {
      aCount[t] = (int64_t)roaring_bitmap_and_cardinality(pDocs, pAud);
      roaring_bitmap_free(pDocs);
    }
    iiQueryFree(pInner);
  }
  iiQueryFree(pQuery);
  return rc;
}

/*
** Everything a read needs: fresh caches, pending writes merged, the
** document map loaded. Under mode = 'sync', first the triggers' check
** (xReadCheck, set by the table: this file does not call
** ext/inverted_index_content.c).
*/
int iiReadBegin(inverted_index_vtab *p) {
  int rc = p->xReadCheck ? p->xReadCheck(p) : SQLITE_OK;
  if (rc == SQLITE_OK) rc = iiCacheCheck(p);
  if (rc == SQLITE_OK) rc = iiFlush(p);
  if (rc == SQLITE_OK) rc = iiDocMapLoad(p);
  return rc;
}

/*
** Evaluate query zQuery (NULL: every document) into a new bitmap. Call
** after iiReadBegin. On a syntax error, *pzErr is the message.
*/
int iiEvalQuery(inverted_index_vtab *p, const char *zQuery, roaring_bitmap_t **ppOut, char **pzErr) {
  int rc = SQLITE_OK;
  IiExpr *pExpr;
  *ppOut = NULL;
  *pzErr = NULL;
  if (zQuery == NULL) {
    *ppOut = roaring_bitmap_copy(p->pMap->pLive);
    return *ppOut ? SQLITE_OK : SQLITE_NOMEM;
  }
  pExpr = iiQueryParseNested(zQuery, p->nField, (const char *const *)p->azField, p->anKey,
                             (const char *const *const *)p->aazKey, pzErr, &rc);
  if (pExpr == NULL) return rc;
  *ppOut = iiQueryEvalNested(pExpr, p->pMap->pLive, iiLoader, iiNestEval, p, &rc);
  iiQueryFree(pExpr);
  return rc;
}

/* A single-value query of table p (max doc, max rowid): *pbNull if NULL. */
int iiScalar(inverted_index_vtab *p, int eStmt, sqlite3_int64 *piVal, int *pbNull) {
  int rc = SQLITE_OK;
  sqlite3_stmt *pStmt = iiStmt(p, eStmt, &rc);
  *pbNull = 1;
  if (pStmt == NULL) return rc;
  if (sqlite3_step(pStmt) == SQLITE_ROW && sqlite3_column_type(pStmt, 0) != SQLITE_NULL) {
    *pbNull = 0;
    *piVal = sqlite3_column_int64(pStmt, 0);
  }
  iiReset(p, pStmt, &rc);
  return rc;
}

/* Run zSql (sqlite3_mprintf result, freed here) on p's connection. */
int iiExec(inverted_index_vtab *p, char *zSql) {
  char *zErr = NULL;
  int rc;
  if (zSql == NULL) return SQLITE_NOMEM;
  rc = sqlite3_exec(p->db, zSql, 0, 0, &zErr);
  sqlite3_free(zSql);
  if (rc != SQLITE_OK) {
    nosqlVtabError(&p->base, "%s", zErr ? zErr : sqlite3_errstr(rc));
    sqlite3_free(zErr);
  }
  return rc;
}

/* The integer zSql (sqlite3_mprintf result, freed here) returns into *piVal (0 for NULL). */
int iiExecInt(inverted_index_vtab *p, char *zSql, sqlite3_int64 *piVal) {
  sqlite3_stmt *pStmt = NULL;
  int rc;
  if (zSql == NULL) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  *piVal = 0;
  if (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) *piVal = sqlite3_column_int64(pStmt, 0);
  if (pStmt) {
    int rc2 = sqlite3_finalize(pStmt);
    if (rc == SQLITE_OK) rc = rc2;
  }
  if (rc != SQLITE_OK && rc != SQLITE_NOMEM) nosqlVtabError(&p->base, "%s", sqlite3_errmsg(p->db));
  return rc;
}

/*--------------------------------------------------------------------------
** The registry of index tables: the call guards, and for the companions
** (ext/inverted_index_vocab.c) finding an index table by name and passing
** its errors on.
*/

/*
** A statement the module runs itself that fails with SQLITE_NOMEM (or
** SQLITE_FULL, SQLITE_IOERR) rolls back the whole transaction, so SQLite
** calls xRollback of this very table while the call that ran the
** statement still holds pointers into the cache. So the entry points that
** run such statements count themselves in pGlobal->nBusy (iiEnter and
** iiLeave around the ...Unguarded functions), a rollback during one only
** marks the cache, and the outermost call clears it as it returns.
*/
void iiEnter(IiGlobal *pG) {
  if (pG) pG->nBusy++;
}
int iiLeave(IiGlobal *pG, int rc) {
  if (pG && --pG->nBusy == 0) {
    inverted_index_vtab *q;
    for (q = pG->pFirst; q; q = q->pNext) {
      if (q->bClearPending) {
        q->bClearPending = 0;
        iiCacheClear(q);
      }
    }
  }
  return rc;
}

/*
** The schema SQLite resolves unqualified table zName to (temp, then main,
** then the attached ones in order), or NULL: sqlite3_mprintf, caller frees.
** With bSplit, zName is "schema.table": the part before the first dot
** names the schema (*pzTable then gets the rest).
*/
static char *iiResolveSchema(sqlite3 *db, const char *zName, int bSplit, char **pzTable) {
  static const char zSql[] =
      "SELECT schema, name FROM pragma_table_list WHERE name = ?1 COLLATE NOCASE AND "
      "(?2 IS NULL OR schema = ?2 COLLATE NOCASE) ORDER BY schema = 'temp' DESC, "
      "schema = 'main' DESC LIMIT 1";
  sqlite3_stmt *pStmt = NULL;
  const char *zDot = strchr(zName, '.');
  char *zSchema = NULL;
  *pzTable = NULL;
  if (bSplit && zDot == NULL) return NULL;
  if (sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0) != SQLITE_OK) return NULL;
  if (bSplit) {
    sqlite3_bind_text(pStmt, 1, zDot + 1, -1, SQLITE_STATIC);
    sqlite3_bind_text(pStmt, 2, zName, (int)(zDot - zName), SQLITE_STATIC);
  } else {
    sqlite3_bind_text(pStmt, 1, zName, -1, SQLITE_STATIC);
  }
  if (sqlite3_step(pStmt) == SQLITE_ROW) {
    zSchema = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(pStmt, 0));
    *pzTable = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(pStmt, 1));
    if (zSchema == NULL || *pzTable == NULL) {
      sqlite3_free(zSchema);
      sqlite3_free(*pzTable);
      zSchema = *pzTable = NULL;
    }
  }
  sqlite3_finalize(pStmt);
  return zSchema;
}

/*
** The inverted_index table zName of schema zDb (NULL: any) on db,
** connecting it first if this connection has not used it yet. Returns
** NULL with *pzErr set if there is no such inverted_index table.
*/
inverted_index_vtab *iiFindIndex(IiGlobal *pG, sqlite3 *db, const char *zDb, const char *zName,
                                 const char *zWho, char **pzErr) {
  int iPass;
  *pzErr = NULL;
  if (zDb == NULL) {
    /* As SQLite resolves the name (an index of that name in another schema
    ** may be connected too): the whole name, else "schema.table". */
    char *zTable = NULL, *zSchema = iiResolveSchema(db, zName, 0, &zTable);
    inverted_index_vtab *p;
    if (zSchema == NULL) zSchema = iiResolveSchema(db, zName, 1, &zTable);
    if (zSchema) {
      p = iiFindIndex(pG, db, zSchema, zTable, zWho, pzErr);
      sqlite3_free(zSchema);
      sqlite3_free(zTable);
      return p;
    }
  }
  for (iPass = 0; iPass < 2; iPass++) {
    inverted_index_vtab *p;
    sqlite3_stmt *pStmt = NULL;
    char *zSql;
    for (p = pG->pFirst; p; p = p->pNext) {
      if (p->db == db && (zDb == NULL || sqlite3_stricmp(p->zDb, zDb) == 0) &&
          sqlite3_stricmp(p->zName, zName) == 0)
        return p;
    }
    if (iPass) break;
    /* Preparing a statement on the table connects it. */
    zSql = zDb ? sqlite3_mprintf("SELECT 1 FROM \"%w\".\"%w\"", zDb, zName)
               : sqlite3_mprintf("SELECT 1 FROM \"%w\"", zName);
    if (zSql == NULL) return NULL;
    if (sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0) != SQLITE_OK) {
      /* A companion names its index at CREATE; renaming the index does not
      ** reach it (as for fts5vocab): say how to repair it. */
      int bCompanion = sqlite3_strnicmp(zWho, "inverted_index_", 15) == 0 && strcmp(zWho + 15, "count") != 0;
      *pzErr = sqlite3_mprintf("%s: no such table: %s%s", zWho, zName,
                               bCompanion ? " (renamed or dropped? drop this table and create it again "
                                            "naming the index)"
                                          : "");
      sqlite3_free(zSql);
      return NULL;
    }
    sqlite3_finalize(pStmt);
    sqlite3_free(zSql);
  }
  *pzErr = sqlite3_mprintf("%s: '%s' is not an inverted_index table", zWho, zName);
  return NULL;
}

/* Move the index's error message (or errstr(rc)) into a companion's vtab. */
void iiPassError(sqlite3_vtab *pTo, inverted_index_vtab *p, int rc) {
  if (p && p->base.zErrMsg) {
    sqlite3_free(pTo->zErrMsg);
    pTo->zErrMsg = p->base.zErrMsg;
    p->base.zErrMsg = NULL;
  } else if (pTo->zErrMsg == NULL) {
    nosqlVtabError(pTo, "%s", sqlite3_errstr(rc));
  }
}
