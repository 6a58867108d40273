/*
** inverted_index_check.c: the maintenance commands of an inverted_index
** table (ext/inverted_index.c documents them): 'optimize' (renumbering
** the documents in rowid order), the packing of the shadow tables that
** ends it (iiPack), and 'integrity-check' with its helpers, which
** recompute every posting list and element row and compare.
**
** Uses ext/inverted_index_store.c (caches and loaders),
** ext/inverted_index_write.c (the values of a row as terms) and
** ext/inverted_index_content.c (the content table and the triggers of
** mode = 'sync').
*/
#include "nosqlInt.h"

#include <roaring/roaring.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "inverted_index.h"

/* iiPostingsFromDirect's second half: the element numbers <name>_elems gives each element term. */
static int iiPostingsFromElems(inverted_index_vtab *p, int bPending) {
  sqlite3_stmt *pStmt = NULL;
  int rc;
  char *zSql = sqlite3_mprintf("SELECT field, first, n, terms FROM \"%w\".\"%w_elems\"", p->zDb, p->zName);
  if (zSql == NULL) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    sqlite3_int64 iField = sqlite3_column_int64(pStmt, 0);
    if (iField < 0 || iField >= p->nField || p->aeLayout[iField] != II_LAYOUT_ELEMENTS) {
      rc = iiCorrupt(p, "element row", "elems");
      break;
    }
    rc = iiElemRowApply(p, (int)iField, sqlite3_column_int64(pStmt, 1), sqlite3_column_int64(pStmt, 2),
                        (const unsigned char *)sqlite3_column_blob(pStmt, 3),
                        (size_t)sqlite3_column_bytes(pStmt, 3), bPending ? II_ELEM_ADD : II_ELEM_SCRATCH);
  }
  if (pStmt) {
    int rc2 = sqlite3_finalize(pStmt);
    if (rc == SQLITE_OK) rc = rc2;
  }
  return rc;
}

/*
** Accumulate, into each cached term's pAdd (used as scratch, never on the
** dirty list), the documents whose direct index names it (and the
** element numbers <name>_elems gives element terms). Reloads the
** caches from disk first; the caller clears them afterwards unless it
** flushes pAdd as pending additions (bPending).
*/
static int iiPostingsFromDirect(inverted_index_vtab *p, int bPending) {
  int rc;
  uint32_t iDoc;
  IiDocMap *pMap;
  iiCacheClear(p);
  rc = iiDocMapLoad(p);
  if (rc == SQLITE_OK) rc = iiDirectLoad(p, p->pMap);
  if (rc != SQLITE_OK) return rc;
  pMap = p->pMap;
  pMap->nRef++;
  for (iDoc = 0; rc == SQLITE_OK && iDoc < pMap->nDoc; iDoc++) {
    uint64_t k;
    for (k = pMap->aOff[iDoc]; rc == SQLITE_OK && k < pMap->aOff[iDoc + 1]; k++) {
      IiTerm *t = NULL;
      rc = iiTermById(p, pMap->aTermId[k], &t);
      if (rc != SQLITE_OK) break;
      if (rc == SQLITE_OK && II_CODE_ELEM(t->iCode) == 0 &&
          p->aeLayout[II_CODE_FIELD(t->iCode)] == II_LAYOUT_ELEMENTS) {
        /* An element term in a document's direct index. */
        rc = iiCorrupt(p, "direct index", "docs");
      }
      if (rc == SQLITE_OK) rc = iiScratchAdd(p, t, iDoc, bPending);
    }
  }
  iiDocMapUnref(pMap);
  if (rc == SQLITE_OK && p->bElems) rc = iiPostingsFromElems(p, bPending);
  return rc;
}

/*
** The end of 'optimize': no unused space left in a shadow table beyond a
** fresh sorted build's. The posting lists rewritten in place grew their
** rows and split <name>_terms' pages: its rows move below every id and
** back up in ascending order (appends, full pages; the ids, which the
** direct index names, are unchanged). Then every shadow table's indexes
** (the UNIQUE ones of id, of (field, term), of (field, first)) are rebuilt
** by REINDEX, from a sort, page after full page.
*/
static int iiPack(inverted_index_vtab *p) {
  const char *zDb = p->zDb, *zN = p->zName;
  sqlite3_int64 mId = 0;
  int rc = iiExecInt(p, sqlite3_mprintf("SELECT coalesce(max(id), 0) + 1 FROM \"%w\".\"%w_terms\"", zDb, zN),
                     &mId);
  /* Term ids are at most 4294967295 (checked as they are made): far above is damage. */
  if (rc == SQLITE_OK && (mId < 1 || mId > ((sqlite3_int64)1 << 40))) rc = iiCorrupt(p, "term id", "terms");
  if (rc == SQLITE_OK) {
    rc = iiExec(p, sqlite3_mprintf("UPDATE \"%w\".\"%w_terms\" SET id = id - %lld", zDb, zN, mId));
  }
  if (rc == SQLITE_OK) {
    rc = iiExec(p,
                sqlite3_mprintf("UPDATE \"%w\".\"%w_terms\" SET id = id + %lld WHERE id < 0", zDb, zN, mId));
  }
  if (rc == SQLITE_OK && !p->bNoDirect)
    rc = iiExec(p, sqlite3_mprintf("REINDEX \"%w\".\"%w_docs\"", zDb, zN));
  if (rc == SQLITE_OK) rc = iiExec(p, sqlite3_mprintf("REINDEX \"%w\".\"%w_terms\"", zDb, zN));
  if (rc == SQLITE_OK && p->bElems) rc = iiExec(p, sqlite3_mprintf("REINDEX \"%w\".\"%w_elems\"", zDb, zN));
  return rc;
}

/*
** 'optimize': renumber documents in rowid order, and elements densely in
** document order, and rewrite every posting list compactly.
**
** Renumbering rewrites each <name>_docs and <name>_elems row under a new
** key. Two passes, so that the b-trees end as full as a fresh build: the
** new numbers are first written shifted below every current one (-K,
** pages left half empty, in any order), then shifted back up in ascending
** order, each row past every other, where SQLite's append fills a page
** before it starts the next. (Negating the numbers, as before, inserted in
** descending order at the left end: the tables doubled, half of each page
** unused.) Element rows of no document (damage) are left as they are.
*/
static int iiOptimizeNoDirect(inverted_index_vtab *p);
int iiOptimize(inverted_index_vtab *p) {
  int rc = iiFlush(p);
  const char *zDb = p->zDb, *zN = p->zName;
  if (rc == SQLITE_OK && p->bNoDirect) return iiOptimizeNoDirect(p);
  sqlite3_int64 nDoc = 0, mDoc = 0, mDocE = 0, nElem = 0, mFirst = 0, kDoc, kFirst;
  if (rc == SQLITE_OK)
    rc = iiExecInt(p, sqlite3_mprintf("SELECT count(*) FROM \"%w\".\"%w_docs\"", zDb, zN), &nDoc);
  if (rc == SQLITE_OK) {
    rc = iiExecInt(
        p, sqlite3_mprintf("SELECT min(0, coalesce(min(doc), 0)) FROM \"%w\".\"%w_docs\"", zDb, zN), &mDoc);
  }
  if (rc == SQLITE_OK && p->bElems) {
    rc = iiExecInt(
        p, sqlite3_mprintf("SELECT min(0, coalesce(min(doc), 0)) FROM \"%w\".\"%w_elems\"", zDb, zN), &mDocE);
    if (rc == SQLITE_OK) {
      rc = iiExecInt(p, sqlite3_mprintf("SELECT coalesce(sum(n), 0) FROM \"%w\".\"%w_elems\"", zDb, zN),
                     &nElem);
    }
    if (rc == SQLITE_OK) {
      rc = iiExecInt(
          p, sqlite3_mprintf("SELECT min(0, coalesce(min(first), 0)) FROM \"%w\".\"%w_elems\"", zDb, zN),
          &mFirst);
    }
  }
  if (mDocE < mDoc) mDoc = mDocE;
  /* Stored numbers are never negative: far below zero is damage (and the shift would overflow). */
  if (rc == SQLITE_OK && (mDoc < -((sqlite3_int64)1 << 60) || nDoc > ((sqlite3_int64)1 << 60))) {
    rc = iiCorrupt(p, "document number", p->bElems && mDoc == mDocE ? "elems" : "docs");
  }
  if (rc == SQLITE_OK &&
      (mFirst < -((sqlite3_int64)1 << 60) || nElem < 0 || nElem > ((sqlite3_int64)1 << 60))) {
    rc = iiCorrupt(p, "element number", "elems");
  }
  if (rc != SQLITE_OK) return rc;
  kDoc = nDoc - mDoc;      /* New numbers n - kDoc are below every current one */
  kFirst = nElem - mFirst; /* Likewise element numbers */
  if (rc == SQLITE_OK && p->bElems) {
    /* Elements first, while the documents have their old numbers: the new
    ** document number and, per field, element numbers dense from 0 in
    ** document order, so that numbers freed by deletes and growing updates
    ** are reused and the element map is as long as the live elements. */
    rc =
        iiExec(p, sqlite3_mprintf(
                      "UPDATE \"%w\".\"%w_elems\" SET doc = m.n - %lld, first = m.f - %lld FROM (SELECT "
                      "e.field AS fl, e.doc AS d, o.n AS n, sum(e.n) OVER (PARTITION BY e.field ORDER BY o.n "
                      "ROWS UNBOUNDED PRECEDING) - e.n AS f FROM \"%w\".\"%w_elems\" AS e JOIN (SELECT doc, "
                      "row_number() OVER (ORDER BY id) - 1 AS n FROM \"%w\".\"%w_docs\") AS o ON o.doc = "
                      "e.doc) AS m WHERE field = m.fl AND doc = m.d",
                      zDb, zN, kDoc, kFirst, zDb, zN, zDb, zN));
  }
  if (rc == SQLITE_OK) {
    rc = iiExec(p, sqlite3_mprintf("UPDATE \"%w\".\"%w_docs\" SET doc = r.n - %lld FROM (SELECT id AS rid, "
                                   "row_number() OVER (ORDER BY id) - 1 AS n FROM \"%w\".\"%w_docs\") AS r "
                                   "WHERE id = r.rid",
                                   zDb, zN, kDoc, zDb, zN));
  }
  if (rc == SQLITE_OK) {
    rc = iiExec(p, sqlite3_mprintf("UPDATE \"%w\".\"%w_docs\" SET doc = doc + %lld WHERE doc < %lld", zDb, zN,
                                   kDoc, mDoc));
  }
  if (rc == SQLITE_OK && p->bElems) {
    rc = iiExec(p, sqlite3_mprintf("UPDATE \"%w\".\"%w_elems\" SET doc = doc + %lld, first = first + %lld "
                                   "WHERE first < %lld",
                                   zDb, zN, kDoc, kFirst, mFirst));
  }
  if (rc == SQLITE_OK) {
    rc = iiExec(p, sqlite3_mprintf("UPDATE \"%w\".\"%w_terms\" SET docs = 0, postings = NULL", zDb, zN));
  }
  if (rc == SQLITE_OK) rc = iiPostingsFromDirect(p, 1);
  if (rc == SQLITE_OK) rc = iiFlush(p);
  if (rc == SQLITE_OK)
    rc = iiExec(p, sqlite3_mprintf("DELETE FROM \"%w\".\"%w_terms\" WHERE docs = 0", zDb, zN));
  if (rc == SQLITE_OK) rc = iiPack(p);
  iiCacheClear(p);
  return rc;
}

/*
** 'optimize' of a direct = off table: document numbers are rowids and
** elements keep their numbers (no stored terms to move them by); every
** posting list is rewritten run-length optimized, terms without documents
** dropped, the tables packed (iiPack).
*/
static int iiOptimizeNoDirect(inverted_index_vtab *p) {
  sqlite3_stmt *pStmt = NULL;
  int rc;
  char *zSql = sqlite3_mprintf("SELECT id FROM \"%w\".\"%w_terms\" ORDER BY id", p->zDb, p->zName);
  iiCacheClear(p);
  if (zSql == NULL) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    IiTerm *t = NULL;
    rc = iiTermById(p, sqlite3_column_int64(pStmt, 0), &t);
    if (rc == SQLITE_OK) rc = iiTermLoad(p, t);
    if (rc == SQLITE_OK && !t->bDirty) {
      /* Dirty without a change: iiFlush() writes it again, framed anew. */
      t->bDirty = 1;
      t->pDirtyNext = p->pDirty;
      p->pDirty = t;
    }
  }
  if (pStmt) {
    int rc2 = sqlite3_finalize(pStmt);
    if (rc == SQLITE_OK) rc = rc2;
  }
  if (rc == SQLITE_OK) rc = iiFlush(p);
  if (rc == SQLITE_OK) {
    rc = iiExec(p, sqlite3_mprintf("DELETE FROM \"%w\".\"%w_terms\" WHERE docs = 0", p->zDb, p->zName));
  }
  if (rc == SQLITE_OK && p->bElems) {
    /* The ranges rewritten in key order, as iiOptimize() does: below every
    ** key (by field), then back up in ascending order, appended. */
    rc = iiExec(p, sqlite3_mprintf("UPDATE \"%w\".\"%w_elems\" SET field = field - 65536", p->zDb, p->zName));
    if (rc == SQLITE_OK) {
      rc = iiExec(p, sqlite3_mprintf("UPDATE \"%w\".\"%w_elems\" SET field = field + 65536 WHERE field < 0",
                                     p->zDb, p->zName));
    }
  }
  if (rc == SQLITE_OK) rc = iiPack(p);
  iiCacheClear(p);
  iiDocMapStale(p);
  return rc;
}

/*
** 'integrity-check': every posting list of <name>_terms against the one
** recomputed into each term's pAdd; zWhat names what they were recomputed
** from in the message. SQLITE_OK, SQLITE_CORRUPT_VTAB (message set) or an
** error.
*/
static int iiPostingsCheck(inverted_index_vtab *p, const char *zWhat) {
  sqlite3_stmt *pStmt = NULL;
  char *zSql = sqlite3_mprintf("SELECT id FROM \"%w\".\"%w_terms\"", p->zDb, p->zName);
  int rc = zSql ? sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    IiTerm *t = NULL;
    rc = iiTermById(p, sqlite3_column_int64(pStmt, 0), &t);
    if (rc == SQLITE_OK) rc = iiTermLoad(p, t);
    if (rc == SQLITE_OK &&
        !(t->pAdd ? roaring_bitmap_equals(t->pPost, t->pAdd) : roaring_bitmap_is_empty(t->pPost))) {
      char *zName = iiCodeName(p, t->iCode);
      nosqlVtabError(
          &p->base,
          "inverted_index: integrity-check failed: the posting list of %s:'%q' does not match the %s",
          zName ? zName : "?", t->zTerm, zWhat);
      sqlite3_free(zName);
      rc = SQLITE_CORRUPT_VTAB;
    }
  }
  if (pStmt) {
    int rc2 = sqlite3_finalize(pStmt);
    if (rc == SQLITE_OK) rc = rc2;
  }
  return rc;
}

/* Prepare integrity-check's scan of the source rows into *ppStmt (when rc is fine), with SQLite's message. */
static int iiCheckSourceOpen(inverted_index_vtab *p, sqlite3_stmt **ppStmt, int rc) {
  char *zSql = rc == SQLITE_OK ? iiSourceSql(p) : NULL;
  if (rc == SQLITE_OK && zSql == NULL) rc = SQLITE_NOMEM;
  if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(p->db, zSql, -1, ppStmt, 0);
  if (rc != SQLITE_OK && rc != SQLITE_NOMEM && rc != SQLITE_CORRUPT_VTAB && p->base.zErrMsg == NULL) {
    nosqlVtabError(&p->base, "inverted_index: integrity-check: %s", sqlite3_errmsg(p->db));
  }
  sqlite3_free(zSql);
  return rc;
}

/* Finalize integrity-check's scan *ppStmt (if any): its error, with SQLite's message, when rc was fine. */
static int iiCheckFinalize(inverted_index_vtab *p, sqlite3_stmt **ppStmt, int rc) {
  int rc2 = *ppStmt ? sqlite3_finalize(*ppStmt) : SQLITE_OK;
  *ppStmt = NULL;
  if (rc == SQLITE_OK && rc2 != SQLITE_OK) {
    nosqlVtabError(&p->base, "inverted_index: integrity-check: %s", sqlite3_errmsg(p->db));
    rc = rc2;
  }
  return rc;
}

/*
** The 'integrity-check' error of a source row that the index lacks: a row
** written to the content table without the triggers (or 'rebuild') that
** index it. SQLITE_CORRUPT_VTAB.
*/
static int iiNotIndexed(inverted_index_vtab *p, sqlite3_int64 iRowid) {
  nosqlVtabError(&p->base, "inverted_index: integrity-check failed: row %lld of %s is not in the index",
                 iRowid, p->zContent ? p->zContent : p->zName);
  return SQLITE_CORRUPT_VTAB;
}

/*
** 'integrity-check' of a direct = off table: the posting lists computed
** again from the content table (every row a document, its rowid the
** document number, its elements at the range its <name>_elems row gives)
** must equal the stored ones, term by term, the two document lists
** included; every <name>_elems row must belong to a row.
*/
static int iiIntegrityCheckNoDirect(inverted_index_vtab *p) {
  int rc = SQLITE_OK, i;
  sqlite3_stmt *pStmt = NULL;
  sqlite3_int64 nElemRow = 0, nElemStored = 0;
  sqlite3_value **apVal = (sqlite3_value **)sqlite3_malloc64(sizeof(sqlite3_value *) * (size_t)p->nField);
  if (apVal == NULL) return SQLITE_NOMEM;
  iiCacheClear(p);
  iiDocMapStale(p);
  rc = iiCheckSourceOpen(p, &pStmt, rc);
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    sqlite3_int64 iRowid = sqlite3_column_int64(pStmt, 0);
    IiValues v = {0, 0, 0, 0};
    char *zErr = NULL;
    int bMatch = 1;
    IiTerm *t = NULL;
    for (i = 0; i < p->nField; i++) apVal[i] = sqlite3_column_value(pStmt, i + 1);
    if (iRowid < 0 || iRowid > II_ROWID_MAX) {
      nosqlVtabError(
          &p->base,
          "inverted_index: integrity-check failed: row %lld is out of the rowid range of direct=off", iRowid);
      rc = SQLITE_CORRUPT_VTAB;
      break;
    }
    rc = iiLiveHas(p, iRowid, &bMatch);
    if (rc == SQLITE_OK && !bMatch) rc = iiNotIndexed(p, iRowid);
    if (rc != SQLITE_OK) break;
    rc = iiParseValues(p, apVal, &v, &zErr);
    if (rc == SQLITE_ERROR) {
      iiRowError(p, "integrity-check failed: ", iRowid, zErr);
      rc = SQLITE_CORRUPT_VTAB;
    }
    sqlite3_free(zErr);
    /* Element ranges first: a term's element numbers need them. */
    for (i = 0; rc == SQLITE_OK && bMatch && p->bElems && i < p->nField; i++) {
      sqlite3_int64 iFirst = -1, n = 0;
      int k;
      if (p->aeLayout[i] != II_LAYOUT_ELEMENTS) continue;
      rc = iiElemRange(p, i, (uint32_t)iRowid, &iFirst, &n);
      if (rc == SQLITE_OK && n != v.anElem[i]) bMatch = 0;
      if (iFirst >= 0) nElemRow++;
      for (k = 0; rc == SQLITE_OK && bMatch && k < v.nTerm; k++) {
        IiRowTerm *r = &v.aTerm[k];
        if (r->iElem < 0 || II_CODE_FIELD(r->iCode) != i) continue;
        rc = iiTermByName(p, r->iCode, (const char *)p->terms.a + r->iOff, r->nTerm, 0, &t);
        if (rc == SQLITE_OK && t == NULL) bMatch = 0;
        if (rc == SQLITE_OK && t) rc = iiScratchAdd(p, t, (uint32_t)(iFirst + r->iElem), 0);
      }
    }
    for (i = 0; rc == SQLITE_OK && bMatch && i < v.nTerm; i++) {
      IiRowTerm *r = &v.aTerm[i];
      if (r->iElem >= 0) continue;
      rc = iiTermByName(p, r->iCode, (const char *)p->terms.a + r->iOff, r->nTerm, 0, &t);
      if (rc == SQLITE_OK && t == NULL) bMatch = 0;
      if (rc == SQLITE_OK && t) rc = iiScratchAdd(p, t, (uint32_t)iRowid, 0);
    }
    if (rc == SQLITE_OK && bMatch) rc = iiTermByName(p, II_CODE_LIVE, "", 0, 0, &t);
    if (rc == SQLITE_OK && bMatch && t == NULL) bMatch = 0;
    if (rc == SQLITE_OK && bMatch) rc = iiScratchAdd(p, t, (uint32_t)iRowid, 0);
    if (rc == SQLITE_OK && bMatch && v.nTerm == 0) {
      rc = iiTermByName(p, II_CODE_EMPTY, "", 0, 0, &t);
      if (rc == SQLITE_OK && t == NULL) bMatch = 0;
      if (rc == SQLITE_OK && t) rc = iiScratchAdd(p, t, (uint32_t)iRowid, 0);
    }
    if (rc == SQLITE_OK && !bMatch) {
      nosqlVtabError(
          &p->base, "inverted_index: integrity-check failed: the index of row %lld does not match its values",
          iRowid);
      rc = SQLITE_CORRUPT_VTAB;
    }
    iiValuesFree(&v);
  }
  rc = iiCheckFinalize(p, &pStmt, rc);
  /* Every stored posting list against the recomputed one. */
  if (rc == SQLITE_OK) {
    char *zWhat = p->bStored ? sqlite3_mprintf("values in %s_content", p->zName)
                             : sqlite3_mprintf("content table %s", p->zContent);
    rc = zWhat ? iiPostingsCheck(p, zWhat) : SQLITE_NOMEM;
    sqlite3_free(zWhat);
  }
  if (rc == SQLITE_OK && p->bElems) {
    rc = iiExecInt(p, sqlite3_mprintf("SELECT count(*) FROM \"%w\".\"%w_elems\"", p->zDb, p->zName),
                   &nElemStored);
    if (rc == SQLITE_OK && nElemStored != nElemRow) {
      nosqlVtabError(&p->base,
                     "inverted_index: integrity-check failed: %lld element rows in %s_elems have no document",
                     nElemStored - nElemRow, p->zName);
      rc = SQLITE_CORRUPT_VTAB;
    }
  }
  sqlite3_free(apVal);
  iiCacheClear(p);
  return rc;
}

static int iiCmpI64(const void *a, const void *b) {
  sqlite3_int64 x = *(const sqlite3_int64 *)a, y = *(const sqlite3_int64 *)b;
  return x < y ? -1 : x > y;
}

/*
** For 'integrity-check': does document iDoc's <name>_elems row of field
** iField hold exactly the elements of v (terms looked up)? Clears *pbMatch
** if not.
*/
static int iiElemsCheck(inverted_index_vtab *p, IiValues *v, int iField, uint32_t iDoc, int *pbMatch) {
  int rc = SQLITE_OK;
  size_t nWant = 0;
  unsigned char *aWant = iiElemBlob(v, iField, &nWant, &rc);
  sqlite3_stmt *pStmt = iiStmt(p, II_STMT_ELEM_BY_DOC, &rc);
  if (pStmt && aWant) {
    sqlite3_bind_int(pStmt, 1, iField);
    sqlite3_bind_int64(pStmt, 2, iDoc);
    if (sqlite3_step(pStmt) == SQLITE_ROW) {
      /* Compared as u32 words, so that an older release's "IIB1" row is judged by its content. */
      const unsigned char *aHave = (const unsigned char *)sqlite3_column_blob(pStmt, 2);
      size_t nHave = (size_t)sqlite3_column_bytes(pStmt, 2), nW = 0, nH = 0;
      unsigned char *aW = (unsigned char *)sqlite3_malloc64(4 * nWant + 4);
      unsigned char *aH = (unsigned char *)sqlite3_malloc64(4 * nHave + 4);
      if (aW == NULL || aH == NULL) {
        rc = SQLITE_NOMEM;
      } else if (v->anElem[iField] == 0 || sqlite3_column_int64(pStmt, 1) != v->anElem[iField] ||
                 iiElemUnpack(aWant, nWant, aW, &nW) || iiElemUnpack(aHave, nHave, aH, &nH) || nW != nH ||
                 memcmp(aW, aH, nW) != 0) {
        *pbMatch = 0;
      }
      sqlite3_free(aW);
      sqlite3_free(aH);
    } else if (v->anElem[iField] > 0) {
      *pbMatch = 0;
    }
    iiReset(p, pStmt, &rc);
  }
  sqlite3_free(aWant);
  return rc;
}

/*
** 'integrity-check' of the element rows' ranges (before the posting
** lists, whose mismatch such damage would otherwise be reported as): no
** row without a document, no two rows sharing element numbers.
*/
static int iiElemsCheckRanges(inverted_index_vtab *p) {
  int rc = SQLITE_OK;
  sqlite3_stmt *pStmt = NULL;
  char *zSql;
  sqlite3_int64 nOrphan = 0, nOverlap = 0;
  /* direct = off has no <name>_docs: rows without a document are found by 'integrity-check'. */
  char *zOrphan = p->bNoDirect
                      ? sqlite3_mprintf("0")
                      : sqlite3_mprintf(
                            "SELECT count(*) FROM \"%w\".\"%w_elems\" WHERE doc NOT IN (SELECT doc FROM "
                            "\"%w\".\"%w_docs\")",
                            p->zDb, p->zName, p->zDb, p->zName);
  zSql = zOrphan ? sqlite3_mprintf(
                       "SELECT (%s), (SELECT count(*) FROM (SELECT first, lag(first + n) OVER "
                       "(PARTITION BY field ORDER BY first) AS prev FROM \"%w\".\"%w_elems\") "
                       "WHERE first < prev)",
                       zOrphan, p->zDb, p->zName)
                 : NULL;
  sqlite3_free(zOrphan);
  if (zSql == NULL) rc = SQLITE_NOMEM;
  if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  if (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    nOrphan = sqlite3_column_int64(pStmt, 0);
    nOverlap = sqlite3_column_int64(pStmt, 1);
  }
  if (pStmt) {
    int rc2 = sqlite3_finalize(pStmt);
    if (rc == SQLITE_OK) rc = rc2;
  }
  if (rc != SQLITE_OK && rc != SQLITE_NOMEM) {
    nosqlVtabError(&p->base, "inverted_index: integrity-check: %s", sqlite3_errmsg(p->db));
  } else if (rc == SQLITE_OK && nOrphan > 0) {
    nosqlVtabError(&p->base,
                   "inverted_index: integrity-check failed: %lld element rows in %s_elems have no document",
                   nOrphan, p->zName);
    rc = SQLITE_CORRUPT_VTAB;
  } else if (rc == SQLITE_OK && nOverlap > 0) {
    nosqlVtabError(&p->base,
                   "inverted_index: integrity-check failed: %lld element rows in %s_elems overlap the "
                   "element numbers of another",
                   nOverlap, p->zName);
    rc = SQLITE_CORRUPT_VTAB;
  }
  return rc;
}

/*
** 'integrity-check': every blob decodes; every posting list equals the
** documents whose direct index names the term, with the right count; the
** direct index of every source row (content table or stored values)
** holds exactly the terms of its values. (Long: one pass per check, in
** the order their messages name the first violation.)
*/
int iiIntegrityCheck(inverted_index_vtab *p) {
  int rc = iiFlush(p);
  sqlite3_stmt *pStmt = NULL;
  sqlite3_int64 nSource = 0;
  sqlite3_value **apVal = (sqlite3_value **)sqlite3_malloc64(sizeof(sqlite3_value *) * (size_t)p->nField);
  if (apVal == NULL) return SQLITE_NOMEM;
  if (rc == SQLITE_OK && p->zContent) rc = iiContentStable(p, 1, NULL);
  if (rc == SQLITE_OK && p->bSync) rc = iiSyncCheck(p);
  if (rc == SQLITE_OK && p->bNoDirect) {
    sqlite3_free(apVal);
    if (p->bElems) rc = iiElemsCheckRanges(p);
    return rc == SQLITE_OK ? iiIntegrityCheckNoDirect(p) : rc;
  }
  if (rc == SQLITE_OK && p->bElems) rc = iiElemsCheckRanges(p);
  if (rc == SQLITE_OK) rc = iiPostingsFromDirect(p, 0);
  if (rc == SQLITE_OK) {
    char *zWhat = sqlite3_mprintf("direct index in %s_docs", p->zName);
    rc = zWhat ? iiPostingsCheck(p, zWhat) : SQLITE_NOMEM;
    sqlite3_free(zWhat);
  }
  /* The direct index against the source values. */
  rc = iiCheckSourceOpen(p, &pStmt, rc);
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    sqlite3_int64 iRowid = sqlite3_column_int64(pStmt, 0);
    IiValues v = {0, 0, 0, 0};
    char *zErr = NULL;
    uint32_t iDoc = 0, *aId = NULL;
    int nId = 0, bFound = 0, i, nWant = 0, bMatch = 1;
    sqlite3_int64 *aWant = NULL;
    nSource++;
    for (i = 0; i < p->nField; i++) apVal[i] = sqlite3_column_value(pStmt, i + 1);
    rc = iiParseValues(p, apVal, &v, &zErr);
    if (rc == SQLITE_ERROR) {
      iiRowError(p, "integrity-check failed: ", iRowid, zErr);
      rc = SQLITE_CORRUPT_VTAB;
    }
    sqlite3_free(zErr);
    if (rc == SQLITE_OK) rc = iiDocByRowid(p, iRowid, &bFound, &iDoc, &aId, &nId);
    if (rc == SQLITE_OK) {
      aWant = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * ((size_t)v.nTerm + 1));
      if (aWant == NULL) rc = SQLITE_NOMEM;
    }
    for (i = 0; rc == SQLITE_OK && bFound && i < v.nTerm; i++) {
      IiTerm *t = NULL;
      rc = iiTermByName(p, v.aTerm[i].iCode, (const char *)p->terms.a + v.aTerm[i].iOff, v.aTerm[i].nTerm, 0,
                        &t);
      v.aTerm[i].pTerm = t;
      if (t == NULL)
        bMatch = 0;
      else if (v.aTerm[i].iElem < 0)
        aWant[nWant++] = t->id;
    }
    if (rc == SQLITE_OK) {
      qsort(aWant, (size_t)nWant, sizeof(sqlite3_int64), iiCmpI64);
      for (i = 1; i < nWant; i++) {
        if (aWant[i] == aWant[i - 1]) {
          memmove(&aWant[i], &aWant[i + 1], sizeof(sqlite3_int64) * (size_t)(nWant - i - 1));
          nWant--;
          i--;
        }
      }
      if (!bFound) rc = iiNotIndexed(p, iRowid);
      if (nWant != nId) bMatch = 0;
      for (i = 0; bMatch && i < nId; i++) bMatch = aWant[i] == aId[i];
      for (i = 0; rc == SQLITE_OK && bMatch && i < p->nField; i++) {
        if (p->aeLayout[i] == II_LAYOUT_ELEMENTS) rc = iiElemsCheck(p, &v, i, iDoc, &bMatch);
      }
      if (rc == SQLITE_OK && !bMatch) {
        nosqlVtabError(
            &p->base,
            "inverted_index: integrity-check failed: the index of row %lld does not match its values",
            iRowid);
        rc = SQLITE_CORRUPT_VTAB;
      }
    }
    sqlite3_free(aWant);
    sqlite3_free(aId);
    iiValuesFree(&v);
  }
  rc = iiCheckFinalize(p, &pStmt, rc);
  if (rc == SQLITE_OK && p->pMap && (uint64_t)nSource != roaring_bitmap_get_cardinality(p->pMap->pLive)) {
    nosqlVtabError(&p->base,
                   "inverted_index: integrity-check failed: %lld source rows, %llu indexed documents",
                   nSource, (unsigned long long)roaring_bitmap_get_cardinality(p->pMap->pLive));
    rc = SQLITE_CORRUPT_VTAB;
  }
  sqlite3_free(apVal);
  iiCacheClear(p);
  return rc;
}
