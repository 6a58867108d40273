/*
** inverted_index.c: an inverted index of keyword fields with roaring-bitmap
** posting lists, boolean search and direct-aggregation reports (technique
** 10 of the article, "Inverted Search - Direct Aggregation").
**
**   CREATE VIRTUAL TABLE audience USING inverted_index(category, city, site);
**   INSERT INTO audience(rowid, category, city, site)
**     VALUES (7, '["Men","Bloggers"]', 'Boston', 'cnn.com');
**   SELECT rowid FROM audience
**    WHERE audience MATCH 'site:cnn.com AND (city:Boston OR city:"New York")
**                          AND NOT category:Kids';
**
** The virtual table is equivalent to
**
**   CREATE TABLE audience(category, city, site, audience HIDDEN)
**
** where each field value is one term (TEXT or INTEGER), a JSON array of
** terms for a multi-valued field ('["Men","Bloggers"]'), or NULL (no term);
** the hidden column named after the table takes MATCH queries and special
** commands. Rowids are any 64-bit integers, negative ones included.
**
** Query language: field:term, field:"quoted term" ("" inside quotes is one
** quote), AND, OR, NOT (upper case, as in FTS5), parentheses; two operands
** side by side are ANDed. NOT binds tightest, then AND, then OR. A NOT
** without a left operand is the complement within the indexed documents.
** Terms match exactly (bytes, case-sensitive). A malformed query is an
** error that names the position (1-based byte offset).
**
** Companions, in the fts5vocab manner, each naming the index:
**
**   CREATE VIRTUAL TABLE audience_facets USING inverted_index_facets(audience);
**   SELECT term, docs FROM audience_facets
**    WHERE field = 'category' AND query = 'site:cnn.com AND city:Boston';
**
** reports, for the audience a query selects, the number of documents per
** term of a field (the article's direct aggregation; several audiences at
** once with query IN (...), computed in one scan), equivalent to
** CREATE TABLE x(field, term, docs, query HIDDEN, method HIDDEN);
**
**   CREATE VIRTUAL TABLE audience_vocab USING inverted_index_vocab(audience);
**
** lists every term with its document count: CREATE TABLE x(field, term, docs).
** And inverted_index_count('audience', query) returns the size of an
** audience from bitmap cardinalities, without producing a row per document.
**
** Nested fields (techniques 15 and 16 of the article, "Nested Documents
** Flattening"): a field declared with its element keys,
**
**   CREATE VIRTUAL TABLE r USING inverted_index(name, skills NESTED(skill, level));
**   INSERT INTO r(rowid, name, skills) VALUES (1, 'Ann',
**     '[{"skill":"poetry","level":"poor"},{"skill":"math","level":"excellent"}]');
**   SELECT rowid FROM r WHERE r MATCH 'skills:{skill:poetry AND level:excellent}';
**
** takes a JSON array of objects, and field:{inner} matches a document iff
** one element satisfies the whole inner query (MongoDB's $elemMatch).
** Two layouts: ELEMENTS (the default) numbers each element in the field's
** element space, posts element numbers and projects the matching elements
** to their documents through the element map; NUMBERED (the article's)
** posts documents under numbered namespaces skill_1, level_1, skill_2...
** and ORs the inner query over every position. Namespaces are codes in
** <name>_terms.field (II_CODE in ext/inverted_index.h); the elements
** layout keeps <name>_elems(field, first, doc, n, terms BLOB), each
** document's element numbers and per-element term ids (schemas and
** formats in docs/inverted_index.md, "Storage").
**
** Numeric fields: a field declared "price RANGE" holds one INTEGER (at
** most +-2^53) or REAL per document, and price:[10 TO 20], price:{10 TO
** 20}, price:>=10, price:<20, price:15 and price:* select by it, with
** terms under AND, OR and NOT; the facets table counts documents per
** bucket (ranges = '[10, 20]'). The values are a bit-sliced index: slice
** i is the term "b<i>" of the field (the documents whose order-preserving
** 64-bit key has bit i set), the term "" the documents with a value, so
** they are stored, buffered, checked and rebuilt as terms; a range is two
** walks down the 64 slices, over the candidates the rest of an AND
** leaves (ext/inverted_index_range.c).
**
** Special commands: INSERT INTO audience(audience) VALUES('rebuild'),
** ('integrity-check'), ('optimize'), and
** INSERT INTO audience(audience, rowid) VALUES('delete', 7) (old values
** may follow the rowid: read under direct=off, ignored otherwise), and,
** for mode='sync''s own triggers, ('displace', rowid, values...).
** Option content=TABLE indexes an existing table: field values are read
** from TABLE's columns of the same names by rowid, the application keeps
** the index in step (triggers), and 'rebuild' re-reads TABLE. TABLE needs
** an INTEGER PRIMARY KEY (VACUUM may renumber the rowids of a table
** without one). An INSERT or UPDATE onto a taken rowid under OR REPLACE
** (inherited by a trigger from the write that fired it) replaces.
**
** Option mode='sync' with content= (which implies direct=off, below): the
** index creates and owns triggers on TABLE that keep it in step through
** every INSERT, UPDATE (of the rowid too), DELETE and REPLACE, and drops
** them with the index ("mode = 'sync'" below, docs/inverted_index.md).
**
** Option direct=off with content= takes FTS5's external-content rule:
** no direct index, no per-element term ids, no <name>_docs; a document's
** number is its rowid (0 .. 4294967294), and 'delete' needs the old
** values, INSERT INTO t(t, rowid, f1...) VALUES('delete', old.rowid,
** old.f1...), from which it computes the terms to take out (SQL DELETE
** and UPDATE on the index are refused; a trigger does 'delete' + INSERT).
** Two reserved terms '' of field code 0xFFFF post the live documents and
** those without terms (II_CODE_LIVE, II_CODE_EMPTY); <name>_elems keeps
** the element ranges alone, keyed by (field, doc). 'integrity-check'
** recomputes every posting list from the content table. Wrong old values
** corrupt the index as in FTS5 (integrity-check finds it; 'rebuild'
** repairs it). Without content=, direct=off keeps the values by rowid in
** <name>_content(id INTEGER PRIMARY KEY, c0, c1...) and every write works
** as on a table: DELETE, UPDATE (of the rowid too), OR REPLACE and
** 'delete' by rowid read the old values back from there (iiDeleteStored),
** 'rebuild' and 'integrity-check' read them as the content table. A
** release that allowed direct=off with content= only refuses such a table
** at connect, never misreads it. direct=on, the default, is the format
** described below.
**
** How it works. Each document gets a dense 32-bit document number. Shadow
** tables (schemas in docs/inverted_index.md):
**
**   <name>_docs(doc INTEGER PRIMARY KEY, id UNIQUE, terms BLOB, c0, c1...)
**       the rowid of each document number and the direct index {doc ->
**       term ids}; c0... hold the field values unless content= is used.
**   <name>_terms(id INTEGER PRIMARY KEY, field, term, docs, postings BLOB)
**       the dictionary and, per term, its posting list: a CRoaring bitmap
**       of document numbers in portable serialization.
**
** Every stored blob is framed as a magic ("IIB1"; "IID2" for the direct
** index and "IIE2" for element rows, whose term ids are varint gaps, while
** an older release's "IIB1" u32 words are still read), payload length
** (not in "IID2"/"IIE2": the blob's), checksum (u32 little-endian each),
** payload, and checked on load: a bad frame, a malformed bitmap or varint
** is SQLITE_CORRUPT_VTAB with a message. Writes are buffered per term in
** memory (bitmaps of added and removed documents) and merged into the
** stored posting lists at xSync, xSavepoint and before any read, as FTS5
** does (a new term's dictionary row is written then, once); xRollback and
** xRollbackTo discard the buffer. Document numbers follow the rowid order
** while rows are appended in rowid order (then results stream in rowid
** order straight from the bitmap, and LIMIT and rowid ranges stop early);
** otherwise results are sorted by rowid before they are returned, and
** 'optimize' renumbers the documents in rowid order.
**
** The pure core (the frames above, the MATCH language, the facet kernels)
** is in ext/inverted_index_core.c; the companions (facets, vocab,
** inverted_index_count) in ext/inverted_index_vocab.c, sharing this
** file's structures through ext/inverted_index.h; this file has the
** module and its storage.
*/
#include "nosqlInt.h"

#include <roaring/roaring.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "inverted_index.h"

/**************************************************************************
** SQL glue: the per-connection registry, caches, the inverted_index module.
*/

/* The cache keeps decoded posting lists up to this many stored bytes. */
#define II_CACHE_MAX (64 * 1024 * 1024)

struct inverted_index_cursor {
  sqlite3_vtab_cursor base;     /* Base class - must be first */
  IiDocMap *pMap;               /* Document map (a reference), or NULL */
  roaring_bitmap_t *pResult;    /* Matching documents (owned), or NULL */
  roaring_uint32_iterator_t it; /* Position in pResult (rowid-ordered map) */
  IiRow *aRow;                  /* Matching rows sorted by rowid (unordered map) */
  size_t nRow;                  /* Entries of aRow */
  size_t iRow;                  /* Current entry of aRow */
  int bSorted;                  /* True: iterate aRow; false: iterate it */
  sqlite3_int64 iHi;            /* Largest rowid wanted */
  int bEof;                     /* True past the last row */
  uint32_t iDoc;                /* Current document number */
  sqlite3_int64 iRowid;         /* Current rowid */
  sqlite3_stmt *pCol;           /* Reads the field values of a row, or NULL */
  int bColRow;                  /* True if pCol holds the current row */
};

/* Forget the element maps of pMap (reloaded on demand). */
static void iiElemMapsFree(IiDocMap *pMap) {
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

static void iiDocMapUnref(IiDocMap *p) {
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
static sqlite3_stmt *iiStmt(inverted_index_vtab *p, int eStmt, int *pRc) {
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

static int iiMapRoom(inverted_index_vtab *p, const char *zWhat, const char *zSuffix, const char *zSelect,
                     const char *zOf, int iField);

/* Reset pStmt and fold its error, if any, into *pRc (with the message). */
static void iiReset(inverted_index_vtab *p, sqlite3_stmt *pStmt, int *pRc) {
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
static void iiStashClear(inverted_index_vtab *p) {
  int i;
  for (i = 0; i < p->nStash * (p->nField + 1); i++) sqlite3_value_free(p->apStash[i]);
  p->nStash = 0;
}

static void iiCacheClear(inverted_index_vtab *p) {
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

static int iiScalar(inverted_index_vtab *p, int eStmt, sqlite3_int64 *piVal, int *pbNull);

/*
** Find the term (iCode, z, n): from the cache, else the dictionary, else
** (bCreate) a new term, whose dictionary row iFlush() writes. *ppTerm is
** NULL for an unknown term when !bCreate.
*/
static int iiTermByName(inverted_index_vtab *p, sqlite3_int64 iCode, const char *z, int n, int bCreate,
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

static int iiFlush(inverted_index_vtab *p) {
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
static int iiTermPending(inverted_index_vtab *p, IiTerm *t, uint32_t iDoc, int bAdd) {
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
static int iiCacheCheck(inverted_index_vtab *p) {
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
static int iiMapRoom(inverted_index_vtab *p, const char *zWhat, const char *zSuffix, const char *zSelect,
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
static int iiElemRoom(inverted_index_vtab *p, int iField) {
  /* Counted as iiElemMapLoad() bounds n: by the bytes of each row's blob. */
  char *zSel = sqlite3_mprintf("SELECT sum(min(n, (length(terms) - %d) / 2)), max(first + n)", II_FRAME2_HDR);
  char *zOf = sqlite3_mprintf(" (field '%s')", p->azField[iField]);
  int rc = zSel && zOf ? iiMapRoom(p, "element", "elems", zSel, zOf, iField) : SQLITE_NOMEM;
  sqlite3_free(zSel);
  sqlite3_free(zOf);
  return rc;
}

/* Make sure p->pMap is loaded (it reflects every write so far). */
static int iiDocMapLoad(inverted_index_vtab *p) {
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
static void iiDocMapStale(inverted_index_vtab *p) {
  iiDocMapUnref(p->pMap);
  p->pMap = NULL;
}

/* Writes that iiDocMapNote() can apply to a loaded map. */
#define II_NOTE_INSERT 1 /* Document iDoc now exists with rowid iRowid */
#define II_NOTE_DELETE 2 /* Document iDoc is gone */
#define II_NOTE_MOVE 3   /* Document iDoc now has rowid iRowid */

/*
** Keep the loaded document map in step with one successful write (rc is
** the write's result), so that a query after a write does not reload it.
** A map that a cursor shares, or a failed write, is dropped instead; the
** direct index is dropped either way (facets reload it). aRowid[] stays
** non-decreasing while bOrdered holds: entries of deleted documents keep
** their rowid, entries past an insert take its rowid; bOrdered is cleared
** whenever a write might break the order.
*/
static void iiDocMapNote(inverted_index_vtab *p, int rc, int eOp, uint32_t iDoc, sqlite3_int64 iRowid) {
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

/*
** The stored bitmaps of RANGE field iField, borrowed from the term cache
** (valid until the evaluation or count that loads them returns): *ppExist
** the documents with a value, apSlice[0..64) the slices (NULL for one no
** document has).
*/
int iiRangeSlices(inverted_index_vtab *p, int iField, const roaring_bitmap_t **ppExist,
                  const roaring_bitmap_t **apSlice) {
  int rc = iiLoadCode(p, iField, "", 0, ppExist), b;
  for (b = 0; rc == SQLITE_OK && b < II_RANGE_NSLICE; b++) {
    char zSlice[4];
    iiRangeSliceName(b, zSlice);
    rc = iiLoadCode(p, iField, zSlice, (int)strlen(zSlice), &apSlice[b]);
    if (rc == SQLITE_OK && roaring_bitmap_is_empty(apSlice[b])) apSlice[b] = NULL;
  }
  return rc;
}

/* The IiRangeEval of a table (pCtx): documents of pCand (NULL: all) with a value of iField in [kLo, kHi]. */
int iiRangeEvalDocs(void *pCtx, int iField, uint64_t kLo, uint64_t kHi, const roaring_bitmap_t *pCand,
                    roaring_bitmap_t **ppOut) {
  const roaring_bitmap_t *pExist = NULL, *apSlice[II_RANGE_NSLICE];
  int rc = iiRangeSlices((inverted_index_vtab *)pCtx, iField, &pExist, apSlice);
  *ppOut = NULL;
  if (rc != SQLITE_OK) return rc;
  *ppOut = iiRangeSelect(pExist, apSlice, pCand, kLo, kHi);
  return *ppOut ? SQLITE_OK : SQLITE_NOMEM;
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
static int iiElemRangeOk(sqlite3_int64 iFirst, sqlite3_int64 n) {
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
    pQuery = iiQueryParseFull(zQuery, p->nField, (const char *const *)p->azField, p->anKey,
                              (const char *const *const *)p->aazKey, p->abRange, pzErr, &rc);
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
** document map loaded.
*/
static int iiSyncReadCheck(inverted_index_vtab *p);
int iiReadBegin(inverted_index_vtab *p) {
  int rc = p->bSync ? iiSyncReadCheck(p) : SQLITE_OK;
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
  pExpr = iiQueryParseFull(zQuery, p->nField, (const char *const *)p->azField, p->anKey,
                           (const char *const *const *)p->aazKey, p->abRange, pzErr, &rc);
  if (pExpr == NULL) return rc;
  *ppOut = iiQueryEvalFull(pExpr, p->pMap->pLive, iiLoader, iiNestEval, iiRangeEvalDocs, p, &rc);
  iiQueryFree(pExpr);
  return rc;
}

/*--------------------------------------------------------------------------
** Writes.
*/

/* One term of a row being written: bytes at p->terms.a[iOff], nTerm long. */
typedef struct IiRowTerm IiRowTerm;
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

static void iiValuesFree(IiValues *v) {
  sqlite3_free(v->aTerm);
  sqlite3_free(v->anElem);
  memset(v, 0, sizeof(*v));
}

/*
** iiWriteDoc's IiValues: the arrays kept from the last row (taken, so a
** nested write finds none and allocates its own), or empty ones.
*/
static IiValues iiValuesTake(inverted_index_vtab *p) {
  IiValues v = {0, 0, 0, 0};
  if (p->pWriteVals) {
    v = *p->pWriteVals;
    memset(p->pWriteVals, 0, sizeof(v));
  }
  return v;
}

/* Give v back for the next row (its arrays are reused), or free it. */
static void iiValuesKeep(inverted_index_vtab *p, IiValues *v) {
  if (p->pWriteVals == NULL) {
    p->pWriteVals = (IiValues *)sqlite3_malloc64(sizeof(IiValues));
    if (p->pWriteVals) memset(p->pWriteVals, 0, sizeof(IiValues));
  }
  if (p->pWriteVals && p->pWriteVals->aTerm == NULL && p->pWriteVals->anElem == NULL && v->nAlloc <= 4096) {
    *p->pWriteVals = *v;
    memset(v, 0, sizeof(*v));
  } else {
    iiValuesFree(v);
  }
}

/* Free what iiValuesKeep kept. */
static void iiValuesKeptFree(inverted_index_vtab *p) {
  if (p->pWriteVals) iiValuesFree(p->pWriteVals);
  sqlite3_free(p->pWriteVals);
  p->pWriteVals = NULL;
}

/* Add term z[0..n) of namespace iCode (element iElem of its field, elements layout; else -1). */
static int iiValuesAdd(inverted_index_vtab *p, IiValues *v, sqlite3_int64 iCode, int iElem, const char *z,
                       int n) {
  int rc = SQLITE_OK;
  if (v->nTerm == v->nAlloc) {
    int nNew = v->nAlloc ? v->nAlloc * 2 : 32;
    IiRowTerm *aNew = (IiRowTerm *)sqlite3_realloc64(v->aTerm, sizeof(IiRowTerm) * (size_t)nNew);
    if (aNew == NULL) return SQLITE_NOMEM;
    v->aTerm = aNew;
    v->nAlloc = nNew;
  }
  v->aTerm[v->nTerm].iCode = iCode;
  v->aTerm[v->nTerm].iElem = iElem;
  v->aTerm[v->nTerm].nTerm = n;
  v->aTerm[v->nTerm].iOff = p->terms.n;
  v->aTerm[v->nTerm].pTerm = NULL;
  /* The bytes and a NUL, in one append (the grow keeps room for the buffer's own NUL). */
  nosqlBufferGrow(&rc, &p->terms, (sqlite3_int64)n + 1);
  if (rc != SQLITE_OK) return rc;
  memcpy(&p->terms.a[p->terms.n], z, (size_t)n);
  p->terms.a[p->terms.n + n] = 0;
  p->terms.n += (sqlite3_int64)n + 1;
  p->terms.a[p->terms.n] = 0;
  v->nTerm++;
  return rc;
}

/* JSON's white space (RFC 8259): not form feed or vertical tab, which nosqlIsSpace() takes. */
static int iiJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/*
** The common case of a JSON array, parsed without SQLite's JSON functions:
** strings without escapes or control characters. Adds the terms and
** returns 0; returns 1 (nothing added) when the text needs the full JSON
** parser, -1 for an empty string element.
*/
static int iiValuesJsonFast(inverted_index_vtab *p, IiValues *v, int iField, const char *z, int n, int *pRc) {
  int i = 0, nStart = v->nTerm;
  sqlite3_int64 nArena = p->terms.n;
  while (i < n && iiJsonSpace(z[i])) i++;
  if (i == n || z[i++] != '[') return 1;
  while (i < n && iiJsonSpace(z[i])) i++;
  if (i < n && z[i] == ']') {
    i++;
  } else {
    for (;;) {
      int iStart;
      if (i == n || z[i++] != '"') goto slow;
      iStart = i;
      while (i < n && z[i] != '"' && z[i] != '\\' && (unsigned char)z[i] >= 0x20) i++;
      if (i == n || z[i] != '"') goto slow;
      if (i == iStart) {
        v->nTerm = nStart;
        p->terms.n = nArena;
        return -1;
      }
      *pRc = iiValuesAdd(p, v, iField, -1, z + iStart, i - iStart);
      if (*pRc != SQLITE_OK) return 0;
      i++;
      while (i < n && iiJsonSpace(z[i])) i++;
      if (i < n && z[i] == ']') {
        i++;
        break;
      }
      if (i == n || z[i++] != ',') goto slow;
      while (i < n && iiJsonSpace(z[i])) i++;
    }
  }
  while (i < n && iiJsonSpace(z[i])) i++;
  if (i == n) return 0;
slow:
  v->nTerm = nStart;
  p->terms.n = nArena;
  return 1;
}

/* Set *pzErr to "inverted_index: field 'F': <message>" and return SQLITE_ERROR (or SQLITE_NOMEM). */
static int iiNestedError(inverted_index_vtab *p, int iField, char **pzErr, const char *zFmt, ...) {
  char *zWhat;
  va_list ap;
  va_start(ap, zFmt);
  zWhat = sqlite3_vmprintf(zFmt, ap);
  va_end(ap);
  *pzErr = zWhat ? sqlite3_mprintf("inverted_index: field '%s': %s", p->azField[iField], zWhat) : NULL;
  sqlite3_free(zWhat);
  return *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
}

/*
** Add JSON token z[0..n) (a string with its quotes, or an integer) as key
** iKey of element nElem (1-based) of field iField, as SQLite's json_tree
** gives its atom: a string with its escapes undone (nosqlJsonUnescape), an
** integer as written ("-0" is 0), one outside the 64-bit range as the REAL
** it reads as, in the host's text for a REAL (as json_tree gives it). pTmp
** is scratch space for the decoded string.
*/
static int iiNestedTerm(inverted_index_vtab *p, IiValues *v, int iField, int iKey, int nElem, const char *z,
                        int n, NosqlBuffer *pTmp, char **pzErr) {
  int rc = SQLITE_OK, bNumbered = p->aeLayout[iField] == II_LAYOUT_NUMBERED;
  sqlite3_int64 iCode = II_CODE(iField, iKey + 2, bNumbered ? nElem : 0);
  int iElem = bNumbered ? -1 : nElem - 1;
  if (z[0] == '"') {
    int bEsc = memchr(z + 1, '\\', (size_t)(n - 2)) != NULL;
    if (n == 2) {
      return iiNestedError(p, iField, pzErr, "element %d: key '%s' has an empty term", nElem,
                           p->aazKey[iField][iKey]);
    }
    if (!bEsc) return iiValuesAdd(p, v, iCode, iElem, z + 1, n - 2);
    nosqlBufferReset(pTmp);
    nosqlBufferGrow(&rc, pTmp, n);
    if (rc != SQLITE_OK) return rc;
    return iiValuesAdd(p, v, iCode, iElem, (const char *)pTmp->a,
                       nosqlJsonUnescape(z + 1, n - 2, (char *)pTmp->a, NULL, 0));
  } else {
    int bNeg = z[0] == '-', nDigit = n - bNeg;
    const char *zMax = bNeg ? "9223372036854775808" : "9223372036854775807";
    if (nDigit == 1 && z[bNeg] == '0') return iiValuesAdd(p, v, iCode, iElem, "0", 1);
    if (nDigit < 19 || (nDigit == 19 && memcmp(z + bNeg, zMax, 19) <= 0)) {
      return iiValuesAdd(p, v, iCode, iElem, z, n);
    } else {
      /* Beyond int64: json_tree's atom is the REAL; its text is the host's. */
      sqlite3_stmt *pReal = iiStmt(p, II_STMT_REAL_TEXT, &rc);
      if (pReal == NULL) return rc;
      sqlite3_bind_text(pReal, 1, z, n, SQLITE_STATIC);
      if (sqlite3_step(pReal) == SQLITE_ROW) {
        const char *zReal = (const char *)sqlite3_column_text(pReal, 0);
        rc = zReal ? iiValuesAdd(p, v, iCode, iElem, zReal, sqlite3_column_bytes(pReal, 0)) : SQLITE_NOMEM;
      }
      {
        int rc2 = sqlite3_reset(pReal);
        if (rc == SQLITE_OK) rc = rc2;
      }
      sqlite3_clear_bindings(pReal);
      return rc;
    }
  }
}

/*
** The json_tree type name of the JSON value at z[*pi] (after white
** space): "object" or "array" for a container (*pi left on its bracket),
** else the scalar's type with *pi past its token (*pz, *pn: the token) and
** *pbTerm set for a string or an integer. NULL for malformed JSON.
*/
static const char *iiJsonToken(const char *zText, int n, int *pi, const char **pz, int *pn, int *pbTerm) {
  const unsigned char *z = (const unsigned char *)zText;
  int i = nosqlJsonScanSpace(z, n, *pi), iStart, bFlag;
  const char *zType = NULL;
  *pbTerm = 0;
  *pi = i;
  if (i >= n) return NULL;
  iStart = i;
  switch (z[i]) {
    case '{':
      return "object";
    case '[':
      return "array";
    case '"':
      if (!nosqlJsonScanString(z, n, &i, &bFlag)) return NULL;
      zType = "text";
      *pbTerm = 1;
      break;
    case 't':
      if (n - i < 4 || memcmp(z + i, "true", 4) != 0) return NULL;
      i += 4;
      zType = "true";
      break;
    case 'f':
      if (n - i < 5 || memcmp(z + i, "false", 5) != 0) return NULL;
      i += 5;
      zType = "false";
      break;
    case 'n':
      if (n - i < 4 || memcmp(z + i, "null", 4) != 0) return NULL;
      i += 4;
      zType = "null";
      break;
    default:
      if (!nosqlJsonScanNumber(z, n, &i, &bFlag)) return NULL;
      zType = bFlag ? "integer" : "real";
      *pbTerm = bFlag;
      break;
  }
  *pz = zText + iStart;
  *pn = i - iStart;
  *pi = i;
  return zType;
}

/* The error for a value that is not strict JSON, or nests deeper than NOSQL_JSON_MAX_DEPTH. */
static int iiNestedJsonError(inverted_index_vtab *p, int iField, sqlite3_value *pVal, const char *z, int n,
                             char **pzErr) {
  char *zQ;
  int rc;
  if (z && nosqlJsonTooDeep(z, n)) {
    return iiNestedError(p, iField, pzErr, "the value " NOSQL_JSON_DEEP, NOSQL_JSON_MAX_DEPTH);
  }
  zQ = nosqlValueQuote(pVal);
  if (z && !nosqlJsonStrict(z, n)) {
    rc = iiNestedError(p, iField, pzErr, "the value " NOSQL_JSON_AT ": %s", nosqlJsonErrorAt(z, n),
                       zQ ? zQ : "");
  } else {
    rc = iiNestedError(p, iField, pzErr, "%s is not a JSON array of objects", zQ ? zQ : "");
  }
  sqlite3_free(zQ);
  return rc;
}

/*
** The terms of nested field iField from pVal (NULL: no element): a JSON
** array of objects whose keys are declared element keys, each a term, an
** array of terms or null. Each element gets a presence term ''. In the
** numbered layout element i's terms go to namespaces numbered i (1-based);
** in the elements layout they carry the element's index.
**
** One pass over the text with the token scanners of nosqlJsonStrict()
** (ext/util.c), three levels deep: the array of elements, an element's
** members, a key's array of terms; a container any deeper is refused on
** sight. Every token the pass reads is checked as it goes; where it stops
** early on a value it refuses, the whole text is checked: malformed JSON
** (or JSON too deep) is reported as such before any other fault, as the
** text is read in document order. (Long: one branch per level, each with
** its own error message.)
*/
static int iiParseNested(inverted_index_vtab *p, IiValues *v, int iField, sqlite3_value *pVal, char **pzErr) {
  int rc = SQLITE_OK, i, nElem = 0, iKey = -1, nTok, bTerm;
  int bNumbered = p->aeLayout[iField] == II_LAYOUT_NUMBERED;
  const unsigned char *u;
  const char *z, *zTok, *zType;
  int n, bBad = 0; /* bBad: the text is not JSON (as far as the pass read) */
  NosqlBuffer key = {0, 0, 0};
  int eType = sqlite3_value_type(pVal);
  size_t nSeen = (size_t)p->anKey[iField] / 8 + 1;
  unsigned char *aSeen; /* Bit iKey: the current element has key iKey */
  if (eType == SQLITE_NULL) return SQLITE_OK;
  if (eType != SQLITE_TEXT) return iiNestedJsonError(p, iField, pVal, NULL, 0, pzErr);
  z = (const char *)sqlite3_value_text(pVal);
  n = sqlite3_value_bytes(pVal);
  if (z == NULL) return SQLITE_NOMEM;
  u = (const unsigned char *)z;
  i = nosqlJsonScanSpace(u, n, 0);
  if (i == n || z[i] != '[') return iiNestedJsonError(p, iField, pVal, NULL, 0, pzErr);
  aSeen = (unsigned char *)sqlite3_malloc64(nSeen);
  if (aSeen == NULL) return SQLITE_NOMEM;
  i = nosqlJsonScanSpace(u, n, i + 1);
  if (i < n && z[i] == ']') {
    i++;
  } else {
    for (;;) { /* One element */
      zType = iiJsonToken(z, n, &i, &zTok, &nTok, &bTerm);
      if (zType == NULL) {
        bBad = 1;
        break;
      }
      nElem++;
      if (z[i] != '{') {
        rc = iiNestedError(p, iField, pzErr, "element %d is not an object (a %s)", nElem, zType);
        break;
      }
      memset(aSeen, 0, nSeen);
      rc = iiValuesAdd(p, v, II_CODE(iField, II_SLOT_PRESENT, bNumbered ? nElem : 0),
                       bNumbered ? -1 : nElem - 1, "", 0);
      if (rc != SQLITE_OK) break;
      i = nosqlJsonScanSpace(u, n, i + 1);
      if (i < n && z[i] == '}') {
        i++;
      } else {
        for (;;) { /* One member */
          int iKeyStart = i, bEsc;
          const char *zKey;
          int nKey;
          if (i >= n || z[i] != '"' || !nosqlJsonScanString(u, n, &i, &bEsc)) {
            bBad = 1;
            break;
          }
          zKey = z + iKeyStart + 1;
          nKey = i - iKeyStart - 2;
          if (bEsc) {
            nosqlBufferReset(&key);
            nosqlBufferGrow(&rc, &key, nKey);
            if (rc != SQLITE_OK) break;
            nKey = nosqlJsonUnescape(zKey, nKey, (char *)key.a, NULL, 0);
            key.a[nKey] = 0;
            zKey = (const char *)key.a;
          }
          i = nosqlJsonScanSpace(u, n, i);
          if (i >= n || z[i] != ':') {
            bBad = 1;
            break;
          }
          i++;
          for (iKey = 0; iKey < p->anKey[iField]; iKey++) {
            const char *zDecl = p->aazKey[iField][iKey];
            if ((int)strlen(zDecl) == nKey && memcmp(zDecl, zKey, (size_t)nKey) == 0) break;
          }
          if (iKey == p->anKey[iField]) {
            rc = iiNestedError(p, iField, pzErr,
                               "element %d has key '%.*s', which NESTED(...) does not declare", nElem, nKey,
                               zKey);
            break;
          }
          if (aSeen[iKey / 8] & (1 << (iKey % 8))) {
            /* JSON leaves duplicate names undefined; SQLite's -> takes the
            ** first, json_each lists both: refuse rather than pick. */
            rc = iiNestedError(p, iField, pzErr, "element %d has key '%s' twice", nElem,
                               p->aazKey[iField][iKey]);
            break;
          }
          aSeen[iKey / 8] |= (unsigned char)(1 << (iKey % 8));
          zType = iiJsonToken(z, n, &i, &zTok, &nTok, &bTerm);
          if (zType == NULL) {
            bBad = 1;
            break;
          }
          if (z[i] == '{') {
            rc = iiNestedError(p, iField, pzErr,
                               "element %d: key '%s' holds an object, nested deeper than declared (elements "
                               "nest one level)",
                               nElem, p->aazKey[iField][iKey]);
            break;
          }
          if (z[i] == '[') {
            i = nosqlJsonScanSpace(u, n, i + 1);
            if (i < n && z[i] == ']') {
              i++;
            } else {
              for (;;) { /* One term of the key's array */
                zType = iiJsonToken(z, n, &i, &zTok, &nTok, &bTerm);
                if (zType == NULL) {
                  bBad = 1;
                  break;
                }
                if (z[i] == '{' || z[i] == '[') {
                  rc = iiNestedError(p, iField, pzErr,
                                     "element %d: key '%s' holds a nested container, deeper than declared "
                                     "(elements nest one level)",
                                     nElem, p->aazKey[iField][iKey]);
                  break;
                }
                if (!bTerm) {
                  rc = iiNestedError(p, iField, pzErr,
                                     "element %d: key '%s' has a value that is not a string or an integer",
                                     nElem, p->aazKey[iField][iKey]);
                  break;
                }
                rc = iiNestedTerm(p, v, iField, iKey, nElem, zTok, nTok, &key, pzErr);
                if (rc != SQLITE_OK) break;
                i = nosqlJsonScanSpace(u, n, i);
                if (i < n && z[i] == ']') {
                  i++;
                  break;
                }
                if (i >= n || z[i] != ',') {
                  bBad = 1;
                  break;
                }
                i++;
              }
              if (rc != SQLITE_OK || bBad) break;
            }
          } else if (bTerm) {
            rc = iiNestedTerm(p, v, iField, iKey, nElem, zTok, nTok, &key, pzErr);
            if (rc != SQLITE_OK) break;
          } else if (strcmp(zType, "null") != 0) {
            rc = iiNestedError(p, iField, pzErr,
                               "element %d: key '%s' is not a string, an integer or an array of them", nElem,
                               p->aazKey[iField][iKey]);
            break;
          }
          i = nosqlJsonScanSpace(u, n, i);
          if (i < n && z[i] == '}') {
            i++;
            break;
          }
          if (i >= n || z[i] != ',') {
            bBad = 1;
            break;
          }
          i = nosqlJsonScanSpace(u, n, i + 1);
        }
        if (rc != SQLITE_OK || bBad) break;
      }
      i = nosqlJsonScanSpace(u, n, i);
      if (i < n && z[i] == ']') {
        i++;
        break;
      }
      if (i >= n || z[i] != ',') {
        bBad = 1;
        break;
      }
      i++;
    }
  }
  if (rc == SQLITE_OK && !bBad && nosqlJsonScanSpace(u, n, i) != n) bBad = 1;
  /* A refused value in text that is not JSON: the JSON error comes first. */
  if (rc == SQLITE_ERROR && !nosqlJsonStrict(z, n)) {
    sqlite3_free(*pzErr);
    *pzErr = NULL;
    bBad = 1;
  }
  if (bBad) rc = iiNestedJsonError(p, iField, pVal, z, n, pzErr);
  nosqlBufferFree(&key);
  sqlite3_free(aSeen);
  if (rc == SQLITE_OK && nElem > 0x7FFFFFFF - 1) rc = SQLITE_TOOBIG;
  if (rc == SQLITE_OK) v->anElem[iField] = nElem;
  return rc;
}

/*
** Split the field values apVal[0..nField) into terms. On a bad value sets
** *pzErr (sqlite3_mprintf) and returns SQLITE_ERROR.
*/
static int iiParseValues(inverted_index_vtab *p, sqlite3_value **apVal, IiValues *v, char **pzErr) {
  int rc = SQLITE_OK, i;
  nosqlBufferReset(&p->terms);
  v->nTerm = 0;
  *pzErr = NULL;
  if (v->anElem == NULL) {
    v->anElem = (int *)sqlite3_malloc64(sizeof(int) * (size_t)p->nField);
    if (v->anElem == NULL) return SQLITE_NOMEM;
  }
  memset(v->anElem, 0, sizeof(int) * (size_t)p->nField);
  for (i = 0; rc == SQLITE_OK && i < p->nField; i++) {
    sqlite3_value *pVal = apVal[i];
    int eType = sqlite3_value_type(pVal);
    const char *z;
    int n, bJson;
    if (p->aeLayout[i] != II_LAYOUT_PLAIN) {
      rc = iiParseNested(p, v, i, pVal, pzErr);
      continue;
    }
    if (p->abRange[i]) {
      /* A number: the term "" (has a value) and one term per bit set in its key (the slices). */
      uint64_t k;
      int bHas, b;
      rc = iiRangeValueKey(p, i, pVal, &bHas, &k, pzErr);
      if (rc == SQLITE_OK && bHas) rc = iiValuesAdd(p, v, i, -1, "", 0);
      for (b = 0; rc == SQLITE_OK && bHas && b < II_RANGE_NSLICE; b++) {
        char zSlice[4];
        if (((k >> b) & 1) == 0) continue;
        iiRangeSliceName(b, zSlice);
        rc = iiValuesAdd(p, v, i, -1, zSlice, (int)strlen(zSlice));
      }
      continue;
    }
    if (eType == SQLITE_NULL) continue;
    if (eType != SQLITE_TEXT && eType != SQLITE_INTEGER) {
      char *zQ = nosqlValueQuote(pVal);
      *pzErr =
          sqlite3_mprintf("inverted_index: field '%s': value %s is neither a term nor a JSON array of terms",
                          p->azField[i], zQ);
      sqlite3_free(zQ);
      return SQLITE_ERROR;
    }
    z = (const char *)sqlite3_value_text(pVal);
    n = sqlite3_value_bytes(pVal);
    if (z == NULL) return SQLITE_NOMEM;
    {
      int k = 0;
      while (k < n && nosqlIsSpace(z[k])) k++;
      bJson = eType == SQLITE_TEXT && k < n && z[k] == '[';
    }
    if (bJson) {
      int nFast = iiValuesJsonFast(p, v, i, z, n, &rc);
      if (nFast == 0) continue;
      if (nFast < 0) {
        *pzErr = sqlite3_mprintf("inverted_index: field '%s': empty term", p->azField[i]);
        return *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
      }
    }
    if (bJson && nosqlJsonTooDeep(z, n)) {
      *pzErr = sqlite3_mprintf("inverted_index: field '%s': the value " NOSQL_JSON_DEEP, p->azField[i],
                               NOSQL_JSON_MAX_DEPTH);
      return *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
    }
    if (bJson && !nosqlJsonStrict(z, n)) {
      /* Strict JSON whatever the host's json_each accepts (JSON5 from 3.42). */
      char *zQ = nosqlValueQuote(pVal);
      *pzErr = sqlite3_mprintf("inverted_index: field '%s': the value " NOSQL_JSON_AT ": %s", p->azField[i],
                               nosqlJsonErrorAt(z, n), zQ);
      sqlite3_free(zQ);
      return *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
    }
    if (bJson) {
      sqlite3_stmt *pJson = iiStmt(p, II_STMT_JSON, &rc);
      int iElem = 0, rc2;
      if (pJson == NULL) return rc;
      sqlite3_bind_value(pJson, 1, pVal);
      while (rc == SQLITE_OK && sqlite3_step(pJson) == SQLITE_ROW) {
        const char *zType = (const char *)sqlite3_column_text(pJson, 0);
        iElem++;
        if (zType == NULL || (strcmp(zType, "text") != 0 && strcmp(zType, "integer") != 0)) {
          char *zQ = nosqlValueQuote(pVal);
          *pzErr =
              sqlite3_mprintf("inverted_index: field '%s': element %d of %s is not a string or an integer",
                              p->azField[i], iElem, zQ);
          sqlite3_free(zQ);
          rc = SQLITE_ERROR;
        } else if (sqlite3_column_bytes(pJson, 1) == 0) {
          *pzErr = sqlite3_mprintf("inverted_index: field '%s': empty term", p->azField[i]);
          rc = SQLITE_ERROR;
        } else {
          rc = iiValuesAdd(p, v, i, -1, (const char *)sqlite3_column_text(pJson, 1),
                           sqlite3_column_bytes(pJson, 1));
        }
      }
      rc2 = sqlite3_reset(pJson);
      if (rc2 != SQLITE_OK && rc2 != SQLITE_ERROR && rc == SQLITE_OK) {
        rc = rc2; /* An interrupt or a resource error, not the value's fault */
      } else if (rc2 != SQLITE_OK && rc == SQLITE_OK) {
        char *zQ = nosqlValueQuote(pVal);
        *pzErr =
            sqlite3_mprintf("inverted_index: field '%s': %s is not a JSON array of terms", p->azField[i], zQ);
        sqlite3_free(zQ);
        rc = SQLITE_ERROR;
      }
      sqlite3_clear_bindings(pJson);
      if (rc == SQLITE_ERROR && *pzErr == NULL) rc = SQLITE_NOMEM;
    } else {
      if (n == 0) {
        *pzErr = sqlite3_mprintf("inverted_index: field '%s': empty term", p->azField[i]);
        return *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
      }
      rc = iiValuesAdd(p, v, i, -1, z, n);
    }
  }
  return rc;
}

static int iiCmpU32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

/*
** Look up (creating) the dictionary entries of v's terms and build the
** direct-index blob: the sorted distinct term ids, framed. On success
** *paBlob is from sqlite3_malloc64 (the caller frees it).
*/
static int iiResolveTerms(inverted_index_vtab *p, IiValues *v, unsigned char **paBlob, size_t *pnBlob) {
  int rc = SQLITE_OK, i, nId = 0, nDoc = 0;
  unsigned char *aBlob;
  uint32_t *aId;
  *paBlob = NULL;
  *pnBlob = 0;
  if (p->bNoDirect) {
    /* No direct index: the terms alone. */
    for (i = 0; rc == SQLITE_OK && i < v->nTerm; i++) {
      IiRowTerm *r = &v->aTerm[i];
      rc = iiTermByName(p, r->iCode, (const char *)p->terms.a + r->iOff, r->nTerm, 1, &r->pTerm);
    }
    return rc;
  }
  aBlob = (unsigned char *)sqlite3_malloc64(II_DIRECT_MAX(v->nTerm) + 1);
  aId = (uint32_t *)sqlite3_malloc64(sizeof(uint32_t) * (size_t)v->nTerm + 1);
  if (aBlob == NULL || aId == NULL) rc = SQLITE_NOMEM;
  for (i = 0; rc == SQLITE_OK && i < v->nTerm; i++) {
    IiRowTerm *r = &v->aTerm[i];
    rc = iiTermByName(p, r->iCode, (const char *)p->terms.a + r->iOff, r->nTerm, 1, &r->pTerm);
    if (rc == SQLITE_OK && r->iElem < 0) aId[nDoc++] = (uint32_t)r->pTerm->id;
  }
  if (rc == SQLITE_OK) {
    if (nDoc > 32) {
      qsort(aId, (size_t)nDoc, sizeof(uint32_t), iiCmpU32);
    } else {
      /* A document's few terms: insertion sort, without qsort's calls per comparison. */
      int j;
      for (i = 1; i < nDoc; i++) {
        uint32_t x = aId[i];
        for (j = i; j > 0 && aId[j - 1] > x; j--) aId[j] = aId[j - 1];
        aId[j] = x;
      }
    }
    for (i = 0; i < nDoc; i++) {
      if (i > 0 && aId[i] == aId[i - 1]) continue;
      aId[nId++] = aId[i];
    }
    *pnBlob = iiDirectEncode(aId, (size_t)nId, aBlob);
    *paBlob = aBlob;
  } else {
    sqlite3_free(aBlob);
  }
  sqlite3_free(aId);
  return rc;
}

/*--------------------------------------------------------------------------
** Elements (the elements layout of NESTED fields): each element of a
** document's array is a sub-document with its own number in its field's
** element space; the posting lists of the field's keys hold element
** numbers. <name>_elems has one row per (field, document): the first
** element number, the element count n and, framed, each element's term ids
** (a count, then the ids, sorted and distinct; the presence term makes
** every count at least 1). A document's elements take consecutive numbers
** after the field's last; an update keeps them where the new elements fit
** (or the range is the field's last), and 'optimize' renumbers densely.
*/

static int iiCmpU64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* 0 if aPay[0..nPay) holds n elements, each a count >= 1 then that many term ids; else 1. */
static int iiElemPayloadCheck(const unsigned char *aPay, size_t nPay, sqlite3_int64 n) {
  size_t off = 0;
  sqlite3_int64 e;
  for (e = 0; e < n; e++) {
    uint32_t c;
    if (nPay - off < 4) return 1;
    c = iiGet32(aPay + off);
    off += 4;
    if (c == 0 || c > (nPay - off) / 4) return 1;
    off += 4 * (size_t)c;
  }
  return off != nPay;
}

/*
** The framed <name>_elems blob of field iField's elements in v (their
** terms resolved): per element its count and sorted distinct term ids, as
** varints ("IIE2", ext/nosqlInt.h). NULL with *pRc set on OOM.
*/
static unsigned char *iiElemBlob(IiValues *v, int iField, size_t *pnBlob, int *pRc) {
  int i, nPair = 0, iPrevElem = -1;
  uint64_t *aPair = (uint64_t *)sqlite3_malloc64(sizeof(uint64_t) * ((size_t)v->nTerm + 1));
  unsigned char *aBlob, *aOut;
  size_t iCount = 0;
  if (aPair == NULL) {
    *pRc = SQLITE_NOMEM;
    return NULL;
  }
  for (i = 0; i < v->nTerm; i++) {
    IiRowTerm *r = &v->aTerm[i];
    if (r->iElem < 0 || II_CODE_FIELD(r->iCode) != iField) continue;
    aPair[nPair++] = ((uint64_t)r->iElem << 32) | (uint64_t)(uint32_t)r->pTerm->id;
  }
  qsort(aPair, (size_t)nPair, sizeof(uint64_t), iiCmpU64);
  aBlob = (unsigned char *)sqlite3_malloc64(II_FRAME_HDR + 8 * (size_t)nPair + 1);
  if (aBlob == NULL) {
    sqlite3_free(aPair);
    *pRc = SQLITE_NOMEM;
    return NULL;
  }
  aOut = aBlob + II_FRAME_HDR;
  for (i = 0; i < nPair; i++) {
    int iElem = (int)(aPair[i] >> 32);
    if (i > 0 && aPair[i] == aPair[i - 1]) continue;
    if (iElem != iPrevElem) {
      iCount = (size_t)(aOut - aBlob);
      iiPut32(aOut, 0);
      aOut += 4;
      iPrevElem = iElem;
    }
    iiPut32(aBlob + iCount, iiGet32(aBlob + iCount) + 1);
    iiPut32(aOut, (uint32_t)aPair[i]);
    aOut += 4;
  }
  /* The u32 words are built in place (after the header), then written as varints. */
  {
    size_t nWord = (size_t)(aOut - aBlob - II_FRAME_HDR) / 4;
    unsigned char *aEnc = (unsigned char *)sqlite3_malloc64(II_DIRECT_MAX(nWord) + 1);
    if (aEnc == NULL) {
      sqlite3_free(aPair);
      sqlite3_free(aBlob);
      *pRc = SQLITE_NOMEM;
      return NULL;
    }
    *pnBlob = iiElemEncode(aBlob + II_FRAME_HDR, nWord, aEnc);
    sqlite3_free(aBlob);
    aBlob = aEnc;
  }
  sqlite3_free(aPair);
  return aBlob;
}

/* The first free element number of field iField. */
static int iiElemNext(inverted_index_vtab *p, int iField, sqlite3_int64 *piNext) {
  int rc = SQLITE_OK;
  sqlite3_stmt *pStmt;
  *piNext = 0;
  if (p->aElemNext && p->aElemNext[iField] >= 0) {
    *piNext = p->aElemNext[iField];
    return SQLITE_OK;
  }
  pStmt = iiStmt(p, II_STMT_ELEM_NEXT, &rc);
  if (pStmt == NULL) return rc;
  sqlite3_bind_int(pStmt, 1, iField);
  if (sqlite3_step(pStmt) == SQLITE_ROW) *piNext = sqlite3_column_int64(pStmt, 0);
  iiReset(p, pStmt, &rc);
  if (rc == SQLITE_OK && (*piNext < 0 || *piNext > 0xFFFFFFFFll)) rc = iiCorrupt(p, "element range", "elems");
  if (rc == SQLITE_OK && p->aElemNext) p->aElemNext[iField] = *piNext;
  return rc;
}

/*
** The element range of document iDoc in field iField: *piFirst and *pn,
** or -1 and 0 when it has no elements there. A damaged range is
** SQLITE_CORRUPT_VTAB.
*/
static int iiElemRange(inverted_index_vtab *p, int iField, uint32_t iDoc, sqlite3_int64 *piFirst,
                       sqlite3_int64 *pn) {
  int rc = SQLITE_OK;
  sqlite3_stmt *pStmt = iiStmt(p, II_STMT_ELEM_BY_DOC, &rc);
  *piFirst = -1;
  *pn = 0;
  if (pStmt == NULL) return rc;
  sqlite3_bind_int(pStmt, 1, iField);
  sqlite3_bind_int64(pStmt, 2, iDoc);
  if (sqlite3_step(pStmt) == SQLITE_ROW) {
    *piFirst = sqlite3_column_int64(pStmt, 0);
    *pn = sqlite3_column_int64(pStmt, 1);
  }
  iiReset(p, pStmt, &rc);
  if (rc == SQLITE_OK && *piFirst >= 0 && !iiElemRangeOk(*piFirst, *pn)) {
    rc = iiCorrupt(p, "element range", "elems");
  }
  return rc;
}

/* What iiElemRowApply does with each (element, term) of an element row. */
#define II_ELEM_REMOVE 0  /* A pending removal */
#define II_ELEM_ADD 1     /* A pending addition */
#define II_ELEM_SCRATCH 2 /* Into the term's pAdd used as scratch (iiPostingsFromDirect) */

static int iiScratchAdd(inverted_index_vtab *p, IiTerm *t, uint32_t e, int bPending);

/*
** Check the element row (iFirst, n, aBlob[0..nBlob)) of field iField and
** apply eAct to every element number and term it names. Damage (a bad
** range or frame, a term of another namespace) is SQLITE_CORRUPT_VTAB.
*/
static int iiElemRowApply(inverted_index_vtab *p, int iField, sqlite3_int64 iFirst, sqlite3_int64 n,
                          const unsigned char *aBlob, size_t nBlob, int eAct) {
  unsigned char *aPay;
  size_t nPay = 0, off = 0;
  sqlite3_int64 e;
  int rc = SQLITE_OK;
  if (!iiElemRangeOk(iFirst, n)) return iiCorrupt(p, "element row", "elems");
  aPay = (unsigned char *)sqlite3_malloc64(4 * nBlob + 4);
  if (aPay == NULL) return SQLITE_NOMEM;
  if (iiElemUnpack(aBlob, nBlob, aPay, &nPay) || iiElemPayloadCheck(aPay, nPay, n)) {
    sqlite3_free(aPay);
    return iiCorrupt(p, "element row", "elems");
  }
  for (e = 0; rc == SQLITE_OK && e < n; e++) {
    uint32_t c = iiGet32(aPay + off), k;
    off += 4;
    for (k = 0; rc == SQLITE_OK && k < c; k++, off += 4) {
      IiTerm *t = NULL;
      rc = iiTermById(p, iiGet32(aPay + off), &t);
      if (rc == SQLITE_OK && (II_CODE_FIELD(t->iCode) != iField || II_CODE_ELEM(t->iCode) != 0)) {
        rc = iiCorrupt(p, "element row", "elems");
      }
      if (rc != SQLITE_OK) break;
      if (eAct == II_ELEM_SCRATCH) {
        rc = iiScratchAdd(p, t, (uint32_t)(iFirst + e), 0);
      } else {
        rc = iiTermPending(p, t, (uint32_t)(iFirst + e), eAct == II_ELEM_ADD);
      }
    }
  }
  sqlite3_free(aPay);
  return rc;
}

/*
** Keep a loaded, unshared element map of field iField in step with a
** write: elements iFirst .. iFirst + n - 1 now belong to iDoc (0xFFFFFFFF:
** to none). A map that cannot follow is dropped (reloaded on demand).
*/
static void iiElemMapSet(inverted_index_vtab *p, int iField, sqlite3_int64 iFirst, sqlite3_int64 n,
                         uint32_t iDoc) {
  IiDocMap *pMap = p->pMap;
  sqlite3_int64 k;
  if (pMap == NULL || pMap->nElemField == 0 || pMap->aaElemDoc[iField] == NULL) return;
  if (pMap->nRef > 1) {
    iiElemMapsFree(pMap);
    return;
  }
  if (iFirst + n > pMap->anElem[iField]) {
    uint32_t *aOld = pMap->aaElemDoc[iField];
    if (iDoc == 0xFFFFFFFFu) return; /* Removing what the map does not have */
    if (iFirst + n > pMap->anElemAlloc[iField]) {
      /* Doubling, so that a run of inserts copies the map O(1) times per element. */
      sqlite3_int64 nNew = pMap->anElemAlloc[iField] * 2;
      if (nNew < iFirst + n) nNew = iFirst + n;
      aOld = (uint32_t *)sqlite3_realloc64(aOld, sizeof(uint32_t) * (size_t)nNew);
      if (aOld == NULL) {
        iiElemMapsFree(pMap);
        return;
      }
      pMap->aaElemDoc[iField] = aOld;
      pMap->anElemAlloc[iField] = nNew;
    }
    for (k = pMap->anElem[iField]; k < iFirst; k++) aOld[k] = 0xFFFFFFFFu;
    pMap->anElem[iField] = (uint32_t)(iFirst + n);
  }
  for (k = iFirst; k < iFirst + n; k++) pMap->aaElemDoc[iField][k] = iDoc;
}

/*
** Remove the elements of document iDoc in field iField, if any: pending
** removals of their numbers from their terms, then the <name>_elems row.
*/
static int iiElemsRemove(inverted_index_vtab *p, int iField, uint32_t iDoc) {
  int rc = SQLITE_OK;
  sqlite3_int64 iFirst = -1, nElem = 0;
  sqlite3_stmt *pStmt = iiStmt(p, II_STMT_ELEM_BY_DOC, &rc);
  if (pStmt == NULL) return rc;
  sqlite3_bind_int(pStmt, 1, iField);
  sqlite3_bind_int64(pStmt, 2, iDoc);
  if (sqlite3_step(pStmt) == SQLITE_ROW) {
    nElem = sqlite3_column_int64(pStmt, 1);
    iFirst = sqlite3_column_int64(pStmt, 0);
    rc = iiElemRowApply(p, iField, iFirst, nElem, (const unsigned char *)sqlite3_column_blob(pStmt, 2),
                        (size_t)sqlite3_column_bytes(pStmt, 2), II_ELEM_REMOVE);
  }
  iiReset(p, pStmt, &rc);
  if (rc == SQLITE_OK && iFirst >= 0) {
    pStmt = iiStmt(p, II_STMT_ELEM_DELETE, &rc);
    if (pStmt) {
      sqlite3_bind_int(pStmt, 1, iField);
      sqlite3_bind_int64(pStmt, 2, iFirst);
      sqlite3_step(pStmt);
      iiReset(p, pStmt, &rc);
    }
    if (rc == SQLITE_OK) iiElemMapSet(p, iField, iFirst, nElem, 0xFFFFFFFFu);
  }
  return rc;
}

/* Store the elements of field iField in v as document iDoc's, numbered from iFirst. */
static int iiElemsAdd(inverted_index_vtab *p, IiValues *v, int iField, uint32_t iDoc, sqlite3_int64 iFirst) {
  int rc = SQLITE_OK, i;
  size_t nBlob = 0;
  /* direct = off: the range alone ('delete' gives the values back). */
  unsigned char *aBlob = p->bNoDirect ? NULL : iiElemBlob(v, iField, &nBlob, &rc);
  sqlite3_stmt *pStmt = iiStmt(p, II_STMT_ELEM_INSERT, &rc);
  if (pStmt && (aBlob || p->bNoDirect)) {
    sqlite3_bind_int(pStmt, 1, iField);
    sqlite3_bind_int64(pStmt, 2, iFirst);
    sqlite3_bind_int64(pStmt, 3, iDoc);
    sqlite3_bind_int(pStmt, 4, v->anElem[iField]);
    if (aBlob) sqlite3_bind_blob64(pStmt, 5, aBlob, nBlob, SQLITE_STATIC);
    sqlite3_step(pStmt);
    iiReset(p, pStmt, &rc);
  }
  sqlite3_free(aBlob);
  for (i = 0; rc == SQLITE_OK && i < v->nTerm; i++) {
    IiRowTerm *r = &v->aTerm[i];
    if (r->iElem < 0 || II_CODE_FIELD(r->iCode) != iField) continue;
    rc = iiTermPending(p, r->pTerm, (uint32_t)(iFirst + r->iElem), 1);
  }
  if (rc == SQLITE_OK) iiElemMapSet(p, iField, iFirst, v->anElem[iField], iDoc);
  if (rc == SQLITE_OK && p->aElemNext && p->aElemNext[iField] >= 0 &&
      iFirst + v->anElem[iField] > p->aElemNext[iField]) {
    p->aElemNext[iField] = iFirst + v->anElem[iField];
  }
  return rc;
}

/*
** The stored document of rowid iRowid: *pbFound, its number and its term
** ids (a new array from sqlite3_malloc64; the caller frees it).
*/
static int iiDocByRowid(inverted_index_vtab *p, sqlite3_int64 iRowid, int *pbFound, uint32_t *piDoc,
                        uint32_t **paId, int *pnId) {
  int rc = SQLITE_OK;
  sqlite3_stmt *pStmt = iiStmt(p, II_STMT_DOC_BY_ROWID, &rc);
  *pbFound = 0;
  *paId = NULL;
  *pnId = 0;
  if (pStmt == NULL) return rc;
  sqlite3_bind_int64(pStmt, 1, iRowid);
  if (sqlite3_step(pStmt) == SQLITE_ROW) {
    sqlite3_int64 iDoc = sqlite3_column_int64(pStmt, 0);
    const unsigned char *aBlob = (const unsigned char *)sqlite3_column_blob(pStmt, 1);
    size_t nBlob = (size_t)sqlite3_column_bytes(pStmt, 1), nId = 0;
    *pbFound = 1;
    *paId = (uint32_t *)sqlite3_malloc64(sizeof(uint32_t) * nBlob + 1);
    if (*paId == NULL) {
      rc = SQLITE_NOMEM;
    } else if (iDoc < 0 || iDoc > 0xFFFFFFFEll || iiDirectDecode(aBlob, nBlob, *paId, &nId) ||
               nId > 0x7FFFFFFF) {
      nosqlVtabError(&p->base, "inverted_index: corrupt direct index of rowid %lld in %s_docs", iRowid,
                     p->zName);
      rc = SQLITE_CORRUPT_VTAB;
    } else {
      *piDoc = (uint32_t)iDoc;
      *pnId = (int)nId;
    }
  }
  iiReset(p, pStmt, &rc);
  if (rc != SQLITE_OK) {
    sqlite3_free(*paId);
    *paId = NULL;
  }
  return rc;
}

/* A single-value query of table p (max doc, max rowid): *pbNull if NULL. */
static int iiScalar(inverted_index_vtab *p, int eStmt, sqlite3_int64 *piVal, int *pbNull) {
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

static int iiDeleteDoc(inverted_index_vtab *p, sqlite3_int64 iRowid);

/* direct = off: rowid iRowid can be a document number, else an error. */
static int iiRowidCheck(inverted_index_vtab *p, sqlite3_int64 iRowid) {
  if (iRowid >= 0 && iRowid <= II_ROWID_MAX) return SQLITE_OK;
  nosqlVtabError(&p->base,
                 "inverted_index: rowid %lld is out of range: %s has direct=off, whose rowids are 0 to "
                 "4294967294",
                 iRowid, p->zName);
  return SQLITE_MISMATCH;
}

/* direct = off: *pbFound, whether rowid iRowid (in range) is a live document. */
static int iiLiveHas(inverted_index_vtab *p, sqlite3_int64 iRowid, int *pbFound) {
  int rc = iiDocMapLoad(p);
  *pbFound = rc == SQLITE_OK && roaring_bitmap_contains(p->pMap->pLive, (uint32_t)iRowid);
  return rc;
}

/* The error of a direct = off table asked to delete without the old values. */
static int iiNeedValues(inverted_index_vtab *p, const char *zWhat) {
  nosqlVtabError(&p->base,
                 "inverted_index: %s needs the old values: %s has direct=off (INSERT INTO %s(%s, rowid, "
                 "...) VALUES('delete', old.rowid, old values...), then INSERT the new row)",
                 zWhat, p->zName, p->zName, p->zName);
  return SQLITE_ERROR;
}

/*
** direct = off: 'delete' the document of rowid iRowid, whose indexed
** values are apVal (FTS5's external-content rule): pending removals of its
** terms, computed from the values, and of its element ranges. Values that
** name a term the index does not have, or another number of elements than
** stored, are an error; other wrong values go undetected until
** 'integrity-check' (as in FTS5).
*/
static int iiDeleteValues(inverted_index_vtab *p, sqlite3_int64 iRowid, sqlite3_value **apVal) {
  int rc = SQLITE_OK, i, bFound = 0, bNull = 1;
  char *zErr = NULL;
  IiValues v = {0, 0, 0, 0};
  IiTerm *pLiveTerm = NULL, *pEmptyTerm = NULL;
  sqlite3_int64 *aFirst = NULL;
  if (iRowid >= 0 && iRowid <= II_ROWID_MAX) rc = iiLiveHas(p, iRowid, &bFound);
  if (rc == SQLITE_OK && !bFound) {
    nosqlVtabError(&p->base, "inverted_index: rowid %lld is not in the index", iRowid);
    return SQLITE_ERROR;
  }
  for (i = 0; i < p->nField; i++) {
    if (sqlite3_value_type(apVal[i]) != SQLITE_NULL) bNull = 0;
  }
  if (rc == SQLITE_OK) rc = iiTermByName(p, II_CODE_LIVE, "", 0, 0, &pLiveTerm);
  if (rc == SQLITE_OK) rc = iiTermByName(p, II_CODE_EMPTY, "", 0, 0, &pEmptyTerm);
  if (rc == SQLITE_OK && pLiveTerm == NULL) rc = iiCorrupt(p, "document list", "terms");
  if (rc == SQLITE_OK && bNull) {
    /* No values at all: right only for a document indexed with no term. */
    int bEmpty = 0;
    if (pEmptyTerm) {
      rc = iiTermLoad(p, pEmptyTerm);
      if (rc == SQLITE_OK) {
        bEmpty = (roaring_bitmap_contains(pEmptyTerm->pPost, (uint32_t)iRowid) ||
                  (pEmptyTerm->pAdd && roaring_bitmap_contains(pEmptyTerm->pAdd, (uint32_t)iRowid)));
        for (i = 0; !bEmpty && i < pEmptyTerm->nAddBuf; i++) bEmpty = pEmptyTerm->aAddBuf[i] == iRowid;
        if (pEmptyTerm->pDel && roaring_bitmap_contains(pEmptyTerm->pDel, (uint32_t)iRowid)) bEmpty = 0;
      }
    }
    if (rc == SQLITE_OK && !bEmpty) rc = iiNeedValues(p, "'delete'");
  }
  if (rc == SQLITE_OK) {
    rc = iiParseValues(p, apVal, &v, &zErr);
    if (rc == SQLITE_ERROR && zErr) {
      /* The value's message, without its own "inverted_index: " prefix. */
      const char *zMsg = strncmp(zErr, "inverted_index: ", 16) == 0 ? zErr + 16 : zErr;
      nosqlVtabError(&p->base, "inverted_index: 'delete' of rowid %lld: %s", iRowid, zMsg);
    }
    sqlite3_free(zErr);
  }
  for (i = 0; rc == SQLITE_OK && i < v.nTerm; i++) {
    IiRowTerm *r = &v.aTerm[i];
    rc = iiTermByName(p, r->iCode, (const char *)p->terms.a + r->iOff, r->nTerm, 0, &r->pTerm);
    if (rc == SQLITE_OK && r->pTerm == NULL) {
      char *zName = iiCodeName(p, r->iCode);
      nosqlVtabError(&p->base,
                     "inverted_index: 'delete' of rowid %lld: the values given are not the indexed ones "
                     "(%s:'%.*s' is not in %s)",
                     iRowid, zName ? zName : "?", r->nTerm, (const char *)p->terms.a + r->iOff, p->zName);
      sqlite3_free(zName);
      rc = SQLITE_ERROR;
    }
  }
  if (rc == SQLITE_OK && p->bElems) {
    aFirst = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * (size_t)p->nField);
    if (aFirst == NULL) rc = SQLITE_NOMEM;
    for (i = 0; rc == SQLITE_OK && i < p->nField; i++) {
      sqlite3_int64 n = 0;
      aFirst[i] = -1;
      if (p->aeLayout[i] != II_LAYOUT_ELEMENTS) continue;
      rc = iiElemRange(p, i, (uint32_t)iRowid, &aFirst[i], &n);
      if (rc == SQLITE_OK && n != v.anElem[i]) {
        nosqlVtabError(&p->base,
                       "inverted_index: 'delete' of rowid %lld: the values given are not the indexed ones "
                       "(field '%s' has %lld elements in %s, the values %d)",
                       iRowid, p->azField[i], n, p->zName, v.anElem[i]);
        rc = SQLITE_ERROR;
      }
    }
  }
  /* Checked: now the removals. */
  for (i = 0; rc == SQLITE_OK && i < v.nTerm; i++) {
    IiRowTerm *r = &v.aTerm[i];
    uint32_t e = r->iElem < 0 ? (uint32_t)iRowid : (uint32_t)(aFirst[II_CODE_FIELD(r->iCode)] + r->iElem);
    rc = iiTermPending(p, r->pTerm, e, 0);
  }
  for (i = 0; rc == SQLITE_OK && aFirst && i < p->nField; i++) {
    sqlite3_stmt *pStmt;
    if (aFirst[i] < 0) continue;
    pStmt = iiStmt(p, II_STMT_ELEM_DELETE, &rc);
    if (pStmt) {
      sqlite3_bind_int(pStmt, 1, i);
      sqlite3_bind_int64(pStmt, 2, iRowid); /* direct = off: keyed by document */
      sqlite3_step(pStmt);
      iiReset(p, pStmt, &rc);
    }
    if (rc == SQLITE_OK) iiElemMapSet(p, i, aFirst[i], v.anElem[i], 0xFFFFFFFFu);
  }
  if (rc == SQLITE_OK) rc = iiTermPending(p, pLiveTerm, (uint32_t)iRowid, 0);
  if (rc == SQLITE_OK && v.nTerm == 0 && pEmptyTerm) rc = iiTermPending(p, pEmptyTerm, (uint32_t)iRowid, 0);
  iiDocMapNote(p, rc, II_NOTE_DELETE, (uint32_t)iRowid, iRowid);
  sqlite3_free(aFirst);
  iiValuesFree(&v);
  return rc;
}

/*
** Write a document: iOldRowid's document (bUpdate) or a new one, now with
** rowid iRowid and field values apVal. Checks everything that can be
** wrong before it writes anything.
*/
/*
** Bind apVal[0..n) to parameters iFirst... of pStmt, text and blobs lent,
** not copied: the caller steps pStmt while apVal is alive.
*/
static void iiBindLent(sqlite3_stmt *pStmt, int iFirst, int n, sqlite3_value **apVal) {
  int i;
  for (i = 0; i < n; i++) {
    int eType = sqlite3_value_type(apVal[i]);
    if (eType == SQLITE_TEXT) {
      const char *z = (const char *)sqlite3_value_text(apVal[i]);
      sqlite3_bind_text64(pStmt, iFirst + i, z ? z : "", (sqlite3_uint64)sqlite3_value_bytes(apVal[i]),
                          SQLITE_STATIC, SQLITE_UTF8);
    } else if (eType == SQLITE_BLOB) {
      sqlite3_bind_blob64(pStmt, iFirst + i, sqlite3_value_blob(apVal[i]),
                          (sqlite3_uint64)sqlite3_value_bytes(apVal[i]), SQLITE_STATIC);
    } else {
      sqlite3_bind_value(pStmt, iFirst + i, apVal[i]);
    }
  }
}

static int iiWriteDoc(inverted_index_vtab *p, int bUpdate, sqlite3_int64 iOldRowid, sqlite3_int64 iRowid,
                      sqlite3_value **apVal) {
  int rc;
  char *zErr = NULL;
  IiValues v = iiValuesTake(p);
  uint32_t iDoc = 0, *aOldId = NULL;
  int nOldId = 0, bFound = 0, i;
  IiTerm **aOld = NULL;
  unsigned char *aBlob = NULL;
  size_t nBlob = 0;
  sqlite3_stmt *pStmt;
  sqlite3_int64 *aFirst = NULL; /* Elements layout: first element number per field */

  /* A 'rebuild' writes distinct rowids in ascending order into emptied
  ** tables: numbers come from counters, no lookups (the bulk path). */
  int bBulk = !bUpdate && p->iBulkDoc >= 0 && p->iBulkDoc < 0xFFFFFFFFll;

  rc = iiParseValues(p, apVal, &v, &zErr);
  if (rc == SQLITE_ERROR && zErr) {
    sqlite3_free(p->base.zErrMsg);
    p->base.zErrMsg = zErr;
    zErr = NULL;
  }
  if (rc == SQLITE_OK && p->bNoDirect) {
    /* Document = rowid; a 'rebuild' writes distinct rowids into emptied tables. */
    rc = iiRowidCheck(p, iRowid);
    if (rc == SQLITE_OK && !bBulk) rc = iiLiveHas(p, iRowid, &bFound);
    if (rc == SQLITE_OK && bFound) {
      if (sqlite3_vtab_on_conflict(p->db) == SQLITE_REPLACE) {
        nosqlVtabError(&p->base,
                       "inverted_index: rowid %lld already exists and %s has direct=off: replacing it needs "
                       "its old values ('delete' them first)",
                       iRowid, p->zName);
      } else {
        nosqlVtabError(&p->base, "inverted_index: rowid %lld already exists", iRowid);
      }
      rc = SQLITE_CONSTRAINT;
    }
    iDoc = (uint32_t)iRowid;
  } else if (rc == SQLITE_OK && bBulk) {
    iDoc = (uint32_t)p->iBulkDoc;
  } else if (rc == SQLITE_OK && (!bUpdate || iRowid != iOldRowid)) {
    uint32_t iIgnore;
    uint32_t *aIgnore = NULL;
    int nIgnore;
    if (p->bRowidMax == 0) {
      /* An upper bound of the stored rowids, kept by every write of one. */
      sqlite3_int64 iMax = 0;
      int bNull = 1;
      rc = iiScalar(p, II_STMT_MAX_ROWID, &iMax, &bNull);
      if (rc == SQLITE_OK) {
        p->iRowidMax = bNull ? (sqlite3_int64)(-0x7fffffffffffffffll - 1) : iMax;
        p->bRowidMax = 1;
      }
    }
    if (rc == SQLITE_OK && !(p->bRowidMax && iRowid > p->iRowidMax)) {
      rc = iiDocByRowid(p, iRowid, &bFound, &iIgnore, &aIgnore, &nIgnore);
    }
    sqlite3_free(aIgnore);
    if (rc == SQLITE_OK && bFound && sqlite3_vtab_on_conflict(p->db) == SQLITE_REPLACE) {
      /* OR REPLACE, of this write or of the write that fired the trigger
      ** doing it (UPDATE OR REPLACE moving a content row onto another's
      ** rowid): the document there goes, as the row it stood for did. */
      rc = iiDeleteDoc(p, iRowid);
    } else if (rc == SQLITE_OK && bFound) {
      nosqlVtabError(&p->base, "inverted_index: rowid %lld already exists", iRowid);
      rc = SQLITE_CONSTRAINT;
    }
  }
  if (rc == SQLITE_OK && bUpdate) {
    rc = iiDocByRowid(p, iOldRowid, &bFound, &iDoc, &aOldId, &nOldId);
    if (rc == SQLITE_OK && !bFound) {
      nosqlVtabError(&p->base, "inverted_index: rowid %lld is not in the index", iOldRowid);
      rc = SQLITE_ERROR;
    }
    if (rc == SQLITE_OK) {
      aOld = (IiTerm **)sqlite3_malloc64(sizeof(IiTerm *) * ((size_t)nOldId + 1));
      if (aOld == NULL) rc = SQLITE_NOMEM;
    }
    for (i = 0; rc == SQLITE_OK && i < nOldId; i++) rc = iiTermById(p, aOldId[i], &aOld[i]);
  } else if (rc == SQLITE_OK && !bBulk && !p->bNoDirect) {
    sqlite3_int64 iMax = 0;
    int bNull;
    if (p->iDocNext >= 0) {
      /* Known from the last insert (no delete nor cache clear since). */
      bNull = p->iDocNext == 0;
      iMax = p->iDocNext - 1;
    } else {
      rc = iiScalar(p, II_STMT_MAX_DOC, &iMax, &bNull);
    }
    if (rc == SQLITE_OK && !bNull && iMax >= 0xFFFFFFFEll) {
      rc = iiMapRoom(p, "document", "docs", "SELECT count(*), max(doc) + 1", "", -1);
      if (rc == SQLITE_OK) {
        nosqlVtabError(&p->base, "inverted_index: document numbers exhausted in %s; run 'optimize'",
                       p->zName);
        rc = SQLITE_FULL;
      }
    }
    iDoc = bNull ? 0 : (uint32_t)(iMax + 1);
  }
  if (rc == SQLITE_OK && p->bElems) {
    aFirst = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * (size_t)p->nField);
    if (aFirst == NULL) rc = SQLITE_NOMEM;
    for (i = 0; rc == SQLITE_OK && i < p->nField; i++) {
      sqlite3_int64 iOldFirst = -1, nOld = 0;
      aFirst[i] = 0;
      if (p->aeLayout[i] != II_LAYOUT_ELEMENTS || v.anElem[i] == 0) continue;
      if (bUpdate) rc = iiElemRange(p, i, iDoc, &iOldFirst, &nOld);
      if (rc == SQLITE_OK && bBulk && p->aBulkElem) {
        aFirst[i] = p->aBulkElem[i];
      } else if (rc == SQLITE_OK) {
        rc = iiElemNext(p, i, &aFirst[i]);
      }
      /* An update keeps the document's element numbers where the new
      ** elements fit (or the range is the field's last, free to grow), so
      ** updates do not use up element numbers nor grow the element map. */
      if (rc == SQLITE_OK && iOldFirst >= 0 && (v.anElem[i] <= nOld || iOldFirst + nOld == aFirst[i])) {
        aFirst[i] = iOldFirst;
      }
      if (rc == SQLITE_OK && aFirst[i] + v.anElem[i] > 0xFFFFFFFFll) {
        rc = iiElemRoom(p, i);
        if (rc == SQLITE_OK) {
          nosqlVtabError(&p->base,
                         "inverted_index: element numbers of field '%s' exhausted in %s; run 'optimize'",
                         p->azField[i], p->zName);
          rc = SQLITE_FULL;
        }
      }
    }
  }
  if (rc == SQLITE_OK) rc = iiResolveTerms(p, &v, &aBlob, &nBlob);
  if (rc == SQLITE_OK && p->bStored && p->iBulkDoc < 0) {
    /* The values, kept by rowid (a 'rebuild' reads them from there). */
    pStmt = iiStmt(p, II_STMT_STORED_INSERT, &rc);
    if (pStmt) {
      sqlite3_bind_int64(pStmt, 1, iRowid);
      iiBindLent(pStmt, 2, p->nField, apVal);
      sqlite3_step(pStmt);
      iiReset(p, pStmt, &rc);
    }
  }
  if (rc == SQLITE_OK && p->bNoDirect) {
    /* The document's own terms: live, and empty when it has no term. */
    IiTerm *t = NULL;
    rc = iiTermByName(p, II_CODE_LIVE, "", 0, 1, &t);
    if (rc == SQLITE_OK) rc = iiTermPending(p, t, iDoc, 1);
    if (rc == SQLITE_OK && v.nTerm == 0) rc = iiTermByName(p, II_CODE_EMPTY, "", 0, 1, &t);
    if (rc == SQLITE_OK && v.nTerm == 0) rc = iiTermPending(p, t, iDoc, 1);
  } else if (rc == SQLITE_OK) {
    pStmt = iiStmt(p, bUpdate ? II_STMT_DOC_SET_TERMS : II_STMT_DOC_INSERT, &rc);
    if (pStmt) {
      sqlite3_bind_int64(pStmt, 1, iDoc);
      sqlite3_bind_blob64(pStmt, bUpdate ? 2 : 3, aBlob, nBlob, SQLITE_STATIC);
      sqlite3_bind_int64(pStmt, bUpdate ? 3 : 2, iRowid);
      if (!p->zContent) iiBindLent(pStmt, 4, p->nField, apVal);
      sqlite3_step(pStmt);
      iiReset(p, pStmt, &rc);
      /* The next document's number, while only inserts follow. */
      p->iDocNext = rc == SQLITE_OK && !bUpdate && !bBulk ? (sqlite3_int64)iDoc + 1 : -1;
      if (rc != SQLITE_OK || bBulk) {
        p->bRowidMax = 0;
      } else if (iRowid > p->iRowidMax) {
        p->iRowidMax = iRowid;
      }
    }
  }
  /* The stored row is written: now the pending posting changes. */
  for (i = 0; rc == SQLITE_OK && i < nOldId; i++) rc = iiTermPending(p, aOld[i], iDoc, 0);
  for (i = 0; rc == SQLITE_OK && i < v.nTerm; i++) {
    if (v.aTerm[i].iElem < 0) rc = iiTermPending(p, v.aTerm[i].pTerm, iDoc, 1);
  }
  for (i = 0; rc == SQLITE_OK && aFirst && i < p->nField; i++) {
    if (p->aeLayout[i] != II_LAYOUT_ELEMENTS) continue;
    if (bUpdate) rc = iiElemsRemove(p, i, iDoc);
    if (rc == SQLITE_OK && v.anElem[i] > 0) rc = iiElemsAdd(p, &v, i, iDoc, aFirst[i]);
  }
  if (rc == SQLITE_OK && bBulk) {
    p->iBulkDoc++;
    for (i = 0; aFirst && p->aBulkElem && i < p->nField; i++) {
      if (p->aeLayout[i] == II_LAYOUT_ELEMENTS && v.anElem[i] > 0) p->aBulkElem[i] = aFirst[i] + v.anElem[i];
    }
  }
  iiDocMapNote(p, rc, bUpdate ? II_NOTE_MOVE : II_NOTE_INSERT, iDoc, iRowid);
  sqlite3_free(aFirst);
  sqlite3_free(aBlob);
  sqlite3_free(aOldId);
  sqlite3_free(aOld);
  iiValuesKeep(p, &v);
  return rc;
}

/*
** direct = off without content=: delete the document of rowid iRowid (an
** error if there is none), its terms computed from the values stored in
** <name>_content, and its stored row. Stored values that are not the
** indexed ones are damage.
*/
static int iiDeleteStored(inverted_index_vtab *p, sqlite3_int64 iRowid) {
  int rc = SQLITE_OK, bFound = 0, i;
  sqlite3_stmt *pStmt;
  sqlite3_value **apVal;
  if (iRowid >= 0 && iRowid <= II_ROWID_MAX) rc = iiLiveHas(p, iRowid, &bFound);
  if (rc == SQLITE_OK && !bFound) {
    nosqlVtabError(&p->base, "inverted_index: rowid %lld is not in the index", iRowid);
    return SQLITE_ERROR;
  }
  apVal = (sqlite3_value **)sqlite3_malloc64(sizeof(sqlite3_value *) * (size_t)p->nField);
  if (apVal == NULL) return SQLITE_NOMEM;
  pStmt = iiStmt(p, II_STMT_STORED_GET, &rc);
  if (pStmt) {
    sqlite3_bind_int64(pStmt, 1, iRowid);
    int rcStep = sqlite3_step(pStmt);
    if (rcStep == SQLITE_ROW) {
      for (i = 0; i < p->nField; i++) apVal[i] = sqlite3_column_value(pStmt, i);
      rc = iiDeleteValues(p, iRowid, apVal);
      if (rc == SQLITE_ERROR) {
        nosqlVtabError(&p->base,
                       "inverted_index: corrupt %s_content: the stored values of rowid %lld are not the "
                       "indexed ones ('rebuild' re-indexes)",
                       p->zName, iRowid);
        rc = SQLITE_CORRUPT_VTAB;
      }
    } else if (rcStep == SQLITE_DONE) {
      nosqlVtabError(&p->base, "inverted_index: corrupt %s_content: no stored values of rowid %lld", p->zName,
                     iRowid);
      rc = SQLITE_CORRUPT_VTAB;
    }
    iiReset(p, pStmt, &rc);
  }
  sqlite3_free(apVal);
  pStmt = iiStmt(p, II_STMT_STORED_DELETE, &rc);
  if (pStmt) {
    sqlite3_bind_int64(pStmt, 1, iRowid);
    sqlite3_step(pStmt);
    iiReset(p, pStmt, &rc);
  }
  return rc;
}

/*
** direct = off without content=: before a write of rowid iRowid with
** values apVal, which replaces the document there under OR REPLACE (else
** it is a constraint error, found by iiWriteDoc()), the values are checked
** and the document there deleted. Also used by UPDATE, iOldRowid >= 0
** naming the document updated (deleted here too).
*/
static int iiStoredMakeRoom(inverted_index_vtab *p, sqlite3_int64 iOldRowid, sqlite3_int64 iRowid,
                            sqlite3_value **apVal) {
  int rc = iiRowidCheck(p, iRowid), bFound = 0;
  if (rc == SQLITE_OK && iRowid != iOldRowid) rc = iiLiveHas(p, iRowid, &bFound);
  if (rc == SQLITE_OK && bFound && sqlite3_vtab_on_conflict(p->db) != SQLITE_REPLACE) {
    nosqlVtabError(&p->base, "inverted_index: rowid %lld already exists", iRowid);
    return SQLITE_CONSTRAINT;
  }
  if (rc == SQLITE_OK && (bFound || iOldRowid >= 0)) {
    /* Writes follow: the new values are checked first. */
    char *zErr = NULL;
    IiValues v = {0, 0, 0, 0};
    rc = iiParseValues(p, apVal, &v, &zErr);
    if (rc == SQLITE_ERROR && zErr) {
      sqlite3_free(p->base.zErrMsg);
      p->base.zErrMsg = zErr;
      zErr = NULL;
    }
    sqlite3_free(zErr);
    iiValuesFree(&v);
  }
  if (rc == SQLITE_OK && bFound) rc = iiDeleteStored(p, iRowid);
  if (rc == SQLITE_OK && iOldRowid >= 0) rc = iiDeleteStored(p, iOldRowid);
  return rc;
}

/* Delete the document of rowid iRowid; an error if there is none. */
static int iiDeleteDoc(inverted_index_vtab *p, sqlite3_int64 iRowid) {
  uint32_t iDoc = 0, *aId = NULL;
  int nId = 0, bFound = 0, i;
  IiTerm **aTerm = NULL;
  sqlite3_stmt *pStmt;
  int rc = iiDocByRowid(p, iRowid, &bFound, &iDoc, &aId, &nId);
  if (rc == SQLITE_OK && !bFound) {
    nosqlVtabError(&p->base, "inverted_index: rowid %lld is not in the index", iRowid);
    rc = SQLITE_ERROR;
  }
  if (rc == SQLITE_OK) {
    aTerm = (IiTerm **)sqlite3_malloc64(sizeof(IiTerm *) * ((size_t)nId + 1));
    if (aTerm == NULL) rc = SQLITE_NOMEM;
  }
  for (i = 0; rc == SQLITE_OK && i < nId; i++) rc = iiTermById(p, aId[i], &aTerm[i]);
  pStmt = iiStmt(p, II_STMT_DOC_DELETE, &rc);
  p->iDocNext = -1; /* max(doc) may go down */
  if (pStmt) {
    sqlite3_bind_int64(pStmt, 1, iDoc);
    sqlite3_step(pStmt);
    iiReset(p, pStmt, &rc);
  }
  for (i = 0; rc == SQLITE_OK && i < nId; i++) rc = iiTermPending(p, aTerm[i], iDoc, 0);
  for (i = 0; rc == SQLITE_OK && i < p->nField; i++) {
    if (p->aeLayout[i] == II_LAYOUT_ELEMENTS) rc = iiElemsRemove(p, i, iDoc);
  }
  iiDocMapNote(p, rc, II_NOTE_DELETE, iDoc, iRowid);
  sqlite3_free(aTerm);
  sqlite3_free(aId);
  return rc;
}

/* Run zSql (sqlite3_mprintf result, freed here) on p's connection. */
static int iiExec(inverted_index_vtab *p, char *zSql) {
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

/*
** Whether the content table keeps its rowids through VACUUM: it must have
** an INTEGER PRIMARY KEY (the documents are its rowids). A content table
** that does not exist yet is checked later, by 'integrity-check'. At
** CREATE (bCheck 0) the error is *pzErr; for 'integrity-check' (bCheck 1),
** an index made before the rule, it is SQLITE_CORRUPT_VTAB in zErrMsg.
*/
static int iiContentStable(inverted_index_vtab *p, int bCheck, char **pzErr) {
  char *zIpk = NULL;
  int bExists = 0, rc;
  sqlite3_stmt *pStmt = NULL;
  rc = sqlite3_prepare_v2(p->db, "SELECT 1 FROM pragma_table_list(?1) WHERE schema = ?2 COLLATE NOCASE", -1,
                          &pStmt, 0);
  if (rc == SQLITE_OK) {
    sqlite3_bind_text(pStmt, 1, p->zContent, -1, SQLITE_STATIC);
    sqlite3_bind_text(pStmt, 2, p->zDb, -1, SQLITE_STATIC);
    bExists = sqlite3_step(pStmt) == SQLITE_ROW;
    rc = sqlite3_finalize(pStmt);
  }
  if (rc == SQLITE_OK && bExists) rc = nosqlRowidAlias(p->db, p->zDb, p->zContent, &zIpk);
  if (rc == SQLITE_OK && bExists && zIpk == NULL) {
    if (bCheck) {
      nosqlVtabError(&p->base,
                     "inverted_index: integrity-check failed: content table '%s' has no INTEGER PRIMARY KEY, "
                     "so VACUUM may have renumbered the rowids the index holds; give '%s' an INTEGER PRIMARY "
                     "KEY column, then 'rebuild'",
                     p->zContent, p->zContent);
      rc = SQLITE_CORRUPT_VTAB;
    } else {
      *pzErr = sqlite3_mprintf(
          "inverted_index: content table '%s' has no INTEGER PRIMARY KEY: VACUUM may renumber its rowids "
          "and the index would name the wrong rows; declare a column INTEGER PRIMARY KEY",
          p->zContent);
      rc = SQLITE_ERROR;
    }
  }
  sqlite3_free(zIpk);
  return rc;
}

/* The rowid and field values of every source row: the content table or the stored values. */
static char *iiSourceSql(inverted_index_vtab *p) {
  int rc = SQLITE_OK, i;
  NosqlBuffer b = {0, 0, 0};
  /* Content columns are qualified so that a missing one is an error, not a string literal. */
  nosqlBufferAppendf(&rc, &b, "SELECT %s", p->zContent ? "c.rowid" : "id");
  for (i = 0; i < p->nField; i++) {
    if (p->zContent)
      nosqlBufferAppendf(&rc, &b, ", c.\"%w\"", p->azField[i]);
    else
      nosqlBufferAppendf(&rc, &b, ", c%d", i);
  }
  if (p->zContent)
    nosqlBufferAppendf(&rc, &b, " FROM \"%w\".\"%w\" AS c ORDER BY c.rowid", p->zDb, p->zContent);
  else
    nosqlBufferAppendf(&rc, &b, " FROM \"%w\".\"%w_%s\" ORDER BY id", p->zDb, p->zName,
                       p->bStored ? "content" : "docs");
  if (rc != SQLITE_OK) nosqlBufferFree(&b);
  return (char *)b.a;
}

/*--------------------------------------------------------------------------
** mode = 'sync': the triggers on the content table that keep the index in
** step, named <name>_bi, _ai, _bu, _au, _ad (docs/inverted_index.md,
** "Keeping in step"). The AFTER triggers write the new row and 'delete'
** the old one with its values. A REPLACE deletes the rows it displaces
** without a DELETE trigger unless recursive_triggers is on, so the BEFORE
** triggers give 'displace' the rows it may displace (at NEW's rowid, or
** equal to NEW on a UNIQUE index) with their values, which the index
** keeps (iiStashAdd); the AFTER trigger's INSERT of the new row then takes
** out those that are gone from the content table, or sit at the new
** row's rowid, and are still indexed (iiStashSettle). Whether the write
** replaced (OR REPLACE, a constraint's ON CONFLICT REPLACE) or not
** (ABORT, FAIL, IGNORE, an UPSERT's DO UPDATE) is thus what the content
** table shows, not what the index guesses.
*/
static const char *const azIiTrigger[] = {"_bi", "_ai", "_bu", "_au", "_ad"};
static const char *const azIiWhen[] = {"BEFORE INSERT", "AFTER INSERT", "BEFORE UPDATE", "AFTER UPDATE",
                                       "AFTER DELETE"};

/* DROP index zName's triggers (those that exist). */
static int iiDropTriggers(inverted_index_vtab *p, const char *zName) {
  int rc = SQLITE_OK, i;
  for (i = 0; rc == SQLITE_OK && i < 5; i++) {
    rc = iiExec(p, sqlite3_mprintf("DROP TRIGGER IF EXISTS \"%w\".\"%w%s\"", p->zDb, zName, azIiTrigger[i]));
  }
  return rc;
}

/*
** The rows a REPLACE may displace besides the one at NEW's rowid: *pCond
** gets " OR (s.a = NEW.a COLLATE c AND ...)" per UNIQUE index of the
** content table, *pChanged " OR OLD.a IS NOT NEW.a" per key column. A
** partial index or one on an expression is refused (*pzErr): a row it
** displaced would go unseen, or a row it does not displace be taken out.
*/
static int iiUniqueConds(inverted_index_vtab *p, NosqlBuffer *pCond, NosqlBuffer *pChanged, char **pzErr) {
  sqlite3_stmt *pStmt = NULL;
  char *zPrev = NULL;
  int rc = sqlite3_prepare_v2(
      p->db,
      "SELECT l.name, l.partial, x.name, x.coll FROM pragma_index_list(?1, ?2) AS l, "
      "pragma_index_xinfo(l.name, ?2) AS x WHERE l.\"unique\" AND x.key ORDER BY l.seq, x.seqno",
      -1, &pStmt, 0);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_text(pStmt, 1, p->zContent, -1, SQLITE_STATIC);
  sqlite3_bind_text(pStmt, 2, p->zDb, -1, SQLITE_STATIC);
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    const char *zIdx = (const char *)sqlite3_column_text(pStmt, 0);
    const char *zCol = (const char *)sqlite3_column_text(pStmt, 2);
    const char *zColl = (const char *)sqlite3_column_text(pStmt, 3);
    int bNew = zPrev == NULL || zIdx == NULL || strcmp(zPrev, zIdx) != 0;
    if (zIdx == NULL) {
      rc = SQLITE_NOMEM;
      break;
    }
    if (sqlite3_column_int(pStmt, 1) || zCol == NULL) {
      *pzErr = sqlite3_mprintf(
          "inverted_index: mode='sync' cannot follow content table '%s': its UNIQUE index '%s' is %s, so "
          "the rows a REPLACE displaces through it cannot be found",
          p->zContent, zIdx, sqlite3_column_int(pStmt, 1) ? "partial" : "on an expression");
      rc = SQLITE_ERROR;
      break;
    }
    if (bNew) {
      if (zPrev) nosqlBufferAppend(&rc, pCond, ")", 1);
      sqlite3_free(zPrev);
      zPrev = sqlite3_mprintf("%s", zIdx);
      if (zPrev == NULL) rc = SQLITE_NOMEM;
      nosqlBufferAppend(&rc, pCond, " OR (", -1);
    }
    nosqlBufferAppendf(&rc, pCond, "%ss.\"%w\" = NEW.\"%w\" COLLATE \"%w\"", bNew ? "" : " AND ", zCol, zCol,
                       zColl ? zColl : "BINARY");
    nosqlBufferAppendf(&rc, pChanged, " OR OLD.\"%w\" IS NOT NEW.\"%w\"", zCol, zCol);
  }
  if (zPrev && rc == SQLITE_OK) nosqlBufferAppend(&rc, pCond, ")", 1);
  sqlite3_free(zPrev);
  if (rc == SQLITE_OK)
    rc = sqlite3_finalize(pStmt);
  else
    sqlite3_finalize(pStmt);
  return rc;
}

/* Append ", <zPre>"f1", <zPre>"f2"...": the fields, as columns or as NEW./OLD./s. values. */
static void iiAppendFields(int *pRc, NosqlBuffer *pB, inverted_index_vtab *p, const char *zPre) {
  int i;
  for (i = 0; i < p->nField; i++) nosqlBufferAppendf(pRc, pB, ", %s\"%w\"", zPre, p->azField[i]);
}

/*
** Create the triggers (after dropping those of that name), or with
** pnStale count those missing, on another table than the content table,
** or not as this version would create them now (a UNIQUE index added
** since, the content table renamed). An error about the content table
** (missing, no INTEGER PRIMARY KEY, a column missing) is *pzErr.
*/
static int iiSyncTriggers(inverted_index_vtab *p, char **pzErr, int *pnStale) {
  NosqlBuffer b = {0, 0, 0}, cond = {0, 0, 0}, changed = {0, 0, 0}, where = {0, 0, 0};
  char *zIpk = NULL;
  sqlite3_stmt *pStmt = NULL;
  int rc, i, k;
  rc = nosqlRowidAlias(p->db, p->zDb, p->zContent, &zIpk);
  if (rc == SQLITE_OK && zIpk == NULL) {
    *pzErr = sqlite3_mprintf(
        "inverted_index: mode='sync' needs content table '%s' with an INTEGER PRIMARY KEY (does it exist?)",
        p->zContent);
    rc = SQLITE_ERROR;
  }
  for (i = 0; rc == SQLITE_OK && i < p->nField; i++) {
    int bHas = 0;
    if (pStmt == NULL) {
      rc = sqlite3_prepare_v2(
          p->db, "SELECT 1 FROM pragma_table_xinfo(?1, ?2) WHERE name = ?3 COLLATE NOCASE", -1, &pStmt, 0);
      if (rc != SQLITE_OK) break;
      sqlite3_bind_text(pStmt, 1, p->zContent, -1, SQLITE_STATIC);
      sqlite3_bind_text(pStmt, 2, p->zDb, -1, SQLITE_STATIC);
    }
    sqlite3_bind_text(pStmt, 3, p->azField[i], -1, SQLITE_STATIC);
    bHas = sqlite3_step(pStmt) == SQLITE_ROW;
    rc = sqlite3_reset(pStmt);
    if (rc == SQLITE_OK && !bHas) {
      *pzErr = sqlite3_mprintf("inverted_index: content table '%s' has no column '%s'", p->zContent,
                               p->azField[i]);
      rc = SQLITE_ERROR;
    }
  }
  sqlite3_finalize(pStmt);
  pStmt = NULL;
  if (rc == SQLITE_OK) rc = iiUniqueConds(p, &cond, &changed, pzErr);
  nosqlBufferAppend(&rc, &cond, "", 0);
  nosqlBufferAppend(&rc, &changed, "", 0);
  if (rc == SQLITE_OK && !pnStale) rc = iiDropTriggers(p, p->zName);
  for (i = 0; rc == SQLITE_OK && i < 5; i++) {
    const char *zRow = i == 4 ? "OLD." : "NEW.";
    nosqlBufferReset(&b);
    nosqlBufferReset(&where);
    nosqlBufferAppendf(&rc, &b, "CREATE TRIGGER \"%w\".\"%w%s\" %s ON \"%w\"", p->zDb, p->zName,
                       azIiTrigger[i], azIiWhen[i], p->zContent);
    if (i == 0) {
      nosqlBufferAppendf(&rc, &where, "s.\"%w\" = NEW.\"%w\"%s", zIpk, zIpk, (const char *)cond.a);
    } else if (i == 2) {
      nosqlBufferAppendf(&rc, &where, "s.\"%w\" IS NOT OLD.\"%w\" AND (s.\"%w\" = NEW.\"%w\"%s)", zIpk, zIpk,
                         zIpk, zIpk, (const char *)cond.a);
      /* Only a write of the rowid or of a UNIQUE key can displace a row. */
      nosqlBufferAppendf(&rc, &b, " WHEN (OLD.\"%w\" IS NOT NEW.\"%w\"%s) AND", zIpk, zIpk,
                         (const char *)changed.a);
    } else if (i == 3) {
      /* A plain UPDATE trigger (UPDATE OF does not fire for SET rowid = ...);
      ** a write of a UNIQUE key may have displaced a row its INSERT settles. */
      nosqlBufferAppendf(&rc, &b, " WHEN OLD.\"%w\" IS NOT NEW.\"%w\"%s", zIpk, zIpk,
                         (const char *)changed.a);
      for (k = 0; k < p->nField; k++) {
        const char *z = p->azField[k];
        /* Binary and typed: 'a' and 'A' under NOCASE, 1 and 1.0 are other terms. */
        nosqlBufferAppendf(
            &rc, &b,
            " OR OLD.\"%w\" IS NOT NEW.\"%w\" COLLATE BINARY OR typeof(OLD.\"%w\") IS NOT typeof(NEW.\"%w\")",
            z, z, z, z);
      }
    }
    if (i == 0) nosqlBufferAppend(&rc, &b, " WHEN", -1);
    if (i == 0 || i == 2) {
      /* A WHEN is cheaper than an INSERT that finds no row. */
      nosqlBufferAppendf(&rc, &b, " EXISTS (SELECT 1 FROM \"%w\" AS s WHERE %s)", p->zContent,
                         (const char *)where.a);
    }
    nosqlBufferAppend(&rc, &b, " BEGIN\n", -1);
    if (i == 0 || i == 2) {
      nosqlBufferAppendf(&rc, &b, "INSERT INTO \"%w\"(\"%w\", rowid", p->zName, p->zName);
      iiAppendFields(&rc, &b, p, "");
      nosqlBufferAppendf(&rc, &b, ") SELECT 'displace', s.\"%w\"", zIpk);
      iiAppendFields(&rc, &b, p, "s.");
      nosqlBufferAppendf(&rc, &b, " FROM \"%w\" AS s WHERE %s;\n", p->zContent, (const char *)where.a);
    }
    if (i == 3 || i == 4) {
      nosqlBufferAppendf(&rc, &b, "INSERT INTO \"%w\"(\"%w\", rowid", p->zName, p->zName);
      iiAppendFields(&rc, &b, p, "");
      nosqlBufferAppendf(&rc, &b, ") VALUES('delete', OLD.\"%w\"", zIpk);
      iiAppendFields(&rc, &b, p, "OLD.");
      nosqlBufferAppend(&rc, &b, ");\n", -1);
    }
    if (i == 1 || i == 3) {
      nosqlBufferAppendf(&rc, &b, "INSERT INTO \"%w\"(rowid", p->zName);
      iiAppendFields(&rc, &b, p, "");
      nosqlBufferAppendf(&rc, &b, ") VALUES(%s\"%w\"", zRow, zIpk);
      iiAppendFields(&rc, &b, p, zRow);
      nosqlBufferAppend(&rc, &b, ");\n", -1);
    }
    nosqlBufferAppend(&rc, &b, "END", 3);
    if (rc == SQLITE_OK && pnStale) {
      /* SQLite stores the text without the schema: compared from the event on. */
      char *zSql = sqlite3_mprintf(
          "SELECT tbl_name, sql FROM \"%w\".sqlite_schema WHERE type = 'trigger' AND name = '%q%s'", p->zDb,
          p->zName, azIiTrigger[i]);
      rc = zSql ? sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0) : SQLITE_NOMEM;
      sqlite3_free(zSql);
      if (rc == SQLITE_OK) {
        int bRow = sqlite3_step(pStmt) == SQLITE_ROW;
        const char *zTbl = bRow ? (const char *)sqlite3_column_text(pStmt, 0) : NULL;
        const char *zHas = bRow ? (const char *)sqlite3_column_text(pStmt, 1) : NULL;
        const char *zA = zHas ? strstr(zHas, azIiWhen[i]) : NULL;
        const char *zB = strstr((const char *)b.a, azIiWhen[i]);
        if (zTbl == NULL || sqlite3_stricmp(zTbl, p->zContent) != 0 || zA == NULL || zB == NULL ||
            strcmp(zA, zB) != 0) {
          (*pnStale)++;
        }
        rc = sqlite3_finalize(pStmt);
        pStmt = NULL;
      }
    } else if (rc == SQLITE_OK) {
      rc = sqlite3_exec(p->db, (const char *)b.a, 0, 0, 0);
      if (rc != SQLITE_OK && rc != SQLITE_NOMEM) {
        *pzErr = sqlite3_mprintf("inverted_index: cannot create trigger '%s%s': %s", p->zName, azIiTrigger[i],
                                 sqlite3_errmsg(p->db));
      }
    }
  }
  nosqlBufferFree(&b);
  nosqlBufferFree(&cond);
  nosqlBufferFree(&changed);
  nosqlBufferFree(&where);
  sqlite3_free(zIpk);
  return rc;
}

/*
** 'integrity-check' of a sync index: its triggers are there, on the
** content table, as this version makes them. SQLITE_CORRUPT_VTAB if not.
*/
static int iiSyncCheck(inverted_index_vtab *p) {
  char *zErr = NULL;
  int nStale = 0, rc = iiSyncTriggers(p, &zErr, &nStale);
  if (rc == SQLITE_ERROR && zErr) {
    nosqlVtabError(&p->base, "inverted_index: integrity-check failed: %s", zErr + 16);
    rc = SQLITE_CORRUPT_VTAB;
  } else if (rc == SQLITE_OK && nStale) {
    nosqlVtabError(
        &p->base,
        "inverted_index: integrity-check failed: %d of the 5 triggers that keep %s in step with %s "
        "are missing or out of date ('rebuild' makes them again)",
        nStale, p->zName, p->zContent);
    rc = SQLITE_CORRUPT_VTAB;
  }
  sqlite3_free(zErr);
  return rc;
}

/*
** mode = 'sync': a read refuses to answer for an index whose triggers are
** missing or not on the content table (dropped, renamed, or dropped and
** created again): checked once per change of the schema.
*/
static int iiSyncReadCheck(inverted_index_vtab *p) {
  int rc = SQLITE_OK, iVersion = -1;
  if (p->pSchemaVersion == NULL) {
    char *zSql = sqlite3_mprintf("PRAGMA \"%w\".schema_version", p->zDb);
    rc = zSql ? sqlite3_prepare_v2(p->db, zSql, -1, &p->pSchemaVersion, 0) : SQLITE_NOMEM;
    sqlite3_free(zSql);
  }
  if (rc == SQLITE_OK) {
    if (sqlite3_step(p->pSchemaVersion) == SQLITE_ROW) iVersion = sqlite3_column_int(p->pSchemaVersion, 0);
    rc = sqlite3_reset(p->pSchemaVersion);
  }
  if (rc == SQLITE_OK && (iVersion < 0 || iVersion != p->iSyncVersion)) {
    char *zErr = NULL;
    int nStale = 0;
    rc = iiSyncTriggers(p, &zErr, &nStale);
    if (rc == SQLITE_ERROR && zErr) {
      nosqlVtabError(&p->base, "inverted_index: %s is not in step: %s", p->zName, zErr + 16);
    } else if (rc == SQLITE_OK && nStale) {
      nosqlVtabError(&p->base,
                     "inverted_index: %s is not in step with %s: %d of its 5 triggers are missing or out of "
                     "date ('rebuild' makes them again)",
                     p->zName, p->zContent, nStale);
      rc = SQLITE_ERROR;
    }
    sqlite3_free(zErr);
    if (rc == SQLITE_OK) p->iSyncVersion = iVersion;
  }
  return rc;
}

/* 'rebuild': reindex every row of the source from scratch. */
static int iiRebuild(inverted_index_vtab *p) {
  int rc = SQLITE_OK, i;
  sqlite3_stmt *pStmt = NULL;
  sqlite3_value **aCopy = NULL; /* Stored values, when they are the source */
  sqlite3_int64 nCopy = 0, nAlloc = 0, k;
  char *zSql = iiSourceSql(p);
  int nCol = p->nField + 1;
  if (zSql == NULL) return SQLITE_NOMEM;
  if (p->bSync) {
    /* The triggers made again: 'rebuild' repairs a sync index whole. */
    char *zErr = NULL;
    rc = iiSyncTriggers(p, &zErr, NULL);
    if (zErr) {
      nosqlVtabError(&p->base, "%s", zErr);
      sqlite3_free(zErr);
    }
    if (rc != SQLITE_OK) {
      sqlite3_free(zSql);
      return rc;
    }
  }
  rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  if (rc != SQLITE_OK) {
    nosqlVtabError(&p->base, "inverted_index: rebuild: %s", sqlite3_errmsg(p->db));
    return rc;
  }
  if (!p->zContent && !p->bStored) {
    /* The stored values are deleted below: copy them first. */
    while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
      if (nCopy + nCol > nAlloc) {
        sqlite3_int64 nNew = nAlloc ? nAlloc * 2 : 64 * nCol;
        sqlite3_value **aNew =
            (sqlite3_value **)sqlite3_realloc64(aCopy, sizeof(sqlite3_value *) * (size_t)nNew);
        if (aNew == NULL) {
          rc = SQLITE_NOMEM;
          break;
        }
        aCopy = aNew;
        nAlloc = nNew;
      }
      for (i = 0; i < nCol; i++) {
        aCopy[nCopy++] = sqlite3_value_dup(sqlite3_column_value(pStmt, i));
        if (aCopy[nCopy - 1] == NULL) rc = SQLITE_NOMEM;
      }
    }
    if (rc == SQLITE_OK) rc = sqlite3_reset(pStmt);
  }
  iiCacheClear(p);
  if (rc == SQLITE_OK && !p->bNoDirect) {
    rc = iiExec(p, sqlite3_mprintf("DELETE FROM \"%w\".\"%w_docs\"", p->zDb, p->zName));
  }
  if (rc == SQLITE_OK) rc = iiExec(p, sqlite3_mprintf("DELETE FROM \"%w\".\"%w_terms\"", p->zDb, p->zName));
  if (rc == SQLITE_OK && p->bElems) {
    rc = iiExec(p, sqlite3_mprintf("DELETE FROM \"%w\".\"%w_elems\"", p->zDb, p->zName));
  }
  if (rc == SQLITE_OK) {
    p->aBulkElem = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * (size_t)p->nField);
    if (p->aBulkElem == NULL) rc = SQLITE_NOMEM;
    for (i = 0; rc == SQLITE_OK && i < p->nField; i++) p->aBulkElem[i] = 0;
    p->iBulkDoc = 0;
    p->iBulkTerm = 0;
  }
  if (p->zContent || p->bStored) {
    /* Read as they are written: <name>_content stays, the bulk path does not write it. */
    sqlite3_value **ap = (sqlite3_value **)sqlite3_malloc64(sizeof(sqlite3_value *) * (size_t)nCol);
    if (ap == NULL) rc = SQLITE_NOMEM;
    while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
      for (i = 0; i < nCol; i++) ap[i] = sqlite3_column_value(pStmt, i);
      if (sqlite3_value_type(ap[0]) != SQLITE_INTEGER) {
        nosqlVtabError(&p->base, "inverted_index: rebuild: content table %s has a non-integer rowid",
                       p->zContent);
        rc = SQLITE_ERROR;
      } else {
        rc = iiWriteDoc(p, 0, 0, sqlite3_value_int64(ap[0]), ap + 1);
      }
    }
    sqlite3_free(ap);
  } else {
    for (k = 0; rc == SQLITE_OK && k < nCopy; k += nCol) {
      rc = iiWriteDoc(p, 0, 0, sqlite3_value_int64(aCopy[k]), aCopy + k + 1);
    }
  }
  if (pStmt) {
    int rc2 = sqlite3_finalize(pStmt);
    if (rc == SQLITE_OK && rc2 != SQLITE_OK) {
      nosqlVtabError(&p->base, "inverted_index: rebuild: %s", sqlite3_errmsg(p->db));
      rc = rc2;
    }
  }
  p->iBulkDoc = -1;
  p->iTermMaxStored = -1;
  p->iDocNext = -1;
  p->bRowidMax = 0;
  sqlite3_free(p->aBulkElem);
  p->aBulkElem = NULL;
  for (k = 0; k < nCopy; k++) sqlite3_value_free(aCopy[k]);
  sqlite3_free(aCopy);
  if (rc == SQLITE_OK) {
    rc = iiFlush(p);
  } else {
    /* Failed: what it wrote stays unless SQLite rolls back (an interrupt,
    ** a resource error), so the terms it made get their rows, as the
    ** documents written name them; the first error is the one reported. */
    char *zErr = p->base.zErrMsg;
    p->base.zErrMsg = NULL;
    if (iiFlush(p) != SQLITE_OK) iiCacheClear(p);
    sqlite3_free(p->base.zErrMsg);
    p->base.zErrMsg = zErr;
  }
  return rc;
}

/* Add element e to t: a pending addition (bPending), else into t->pAdd used as scratch. */
static int iiScratchAdd(inverted_index_vtab *p, IiTerm *t, uint32_t e, int bPending) {
  if (bPending) return iiTermPending(p, t, e, 1);
  if (t->pAdd == NULL) t->pAdd = roaring_bitmap_create();
  if (t->pAdd == NULL) return SQLITE_NOMEM;
  roaring_bitmap_add(t->pAdd, e);
  return SQLITE_OK;
}

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

/* The integer zSql (sqlite3_mprintf result, freed here) returns into *piVal (0 for NULL). */
static int iiExecInt(inverted_index_vtab *p, char *zSql, sqlite3_int64 *piVal) {
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
static int iiOptimize(inverted_index_vtab *p) {
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
  char *zSql;
  sqlite3_int64 nElemRow = 0, nElemStored = 0;
  sqlite3_value **apVal = (sqlite3_value **)sqlite3_malloc64(sizeof(sqlite3_value *) * (size_t)p->nField);
  if (apVal == NULL) return SQLITE_NOMEM;
  iiCacheClear(p);
  iiDocMapStale(p);
  zSql = iiSourceSql(p);
  if (zSql == NULL) rc = SQLITE_NOMEM;
  if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0);
  if (rc != SQLITE_OK && rc != SQLITE_NOMEM) {
    nosqlVtabError(&p->base, "inverted_index: integrity-check: %s", sqlite3_errmsg(p->db));
  }
  sqlite3_free(zSql);
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
      nosqlVtabError(&p->base, "inverted_index: integrity-check failed: row %lld: %s", iRowid,
                     zErr ? zErr : "");
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
  if (pStmt) {
    int rc2 = sqlite3_finalize(pStmt);
    pStmt = NULL;
    if (rc == SQLITE_OK && rc2 != SQLITE_OK) {
      nosqlVtabError(&p->base, "inverted_index: integrity-check: %s", sqlite3_errmsg(p->db));
      rc = rc2;
    }
  }
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
static int iiIntegrityCheck(inverted_index_vtab *p) {
  int rc = iiFlush(p);
  sqlite3_stmt *pStmt = NULL;
  char *zSql;
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
  zSql = iiSourceSql(p);
  if (rc == SQLITE_OK && zSql == NULL) rc = SQLITE_NOMEM;
  if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0);
  if (rc != SQLITE_OK && rc != SQLITE_CORRUPT_VTAB && p->base.zErrMsg == NULL) {
    nosqlVtabError(&p->base, "inverted_index: integrity-check: %s", sqlite3_errmsg(p->db));
  }
  sqlite3_free(zSql);
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
      nosqlVtabError(&p->base, "inverted_index: integrity-check failed: row %lld: %s", iRowid,
                     zErr ? zErr : "");
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
  if (pStmt) {
    int rc2 = sqlite3_finalize(pStmt);
    pStmt = NULL;
    if (rc == SQLITE_OK && rc2 != SQLITE_OK) {
      nosqlVtabError(&p->base, "inverted_index: integrity-check: %s", sqlite3_errmsg(p->db));
      rc = rc2;
    }
  }
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

/*--------------------------------------------------------------------------
** The inverted_index module.
*/

/*
** True when argument z declares a field by a name alone: a bare word (no
** space, parenthesis, comma, quote or ':') or one quoted identifier.
*/
static int iiFieldDeclOk(const char *z) {
  int n = (int)strlen(z), i;
  char q, qEnd;
  while (n > 0 && nosqlIsSpace(*z)) z++, n--;
  while (n > 0 && nosqlIsSpace(z[n - 1])) n--;
  if (n == 0) return 1; /* Reported as an empty field name */
  q = z[0];
  qEnd = q == '[' ? ']' : q;
  if (q == '\'' || q == '"' || q == '`' || q == '[') {
    /* The quote must close at the end, with only doubled quotes inside. */
    for (i = 1; i < n - 1; i++) {
      if (z[i] == qEnd) {
        if (q == '[' || z[i + 1] != qEnd) return 0;
        i++;
      }
    }
    return n >= 2 && z[n - 1] == qEnd;
  }
  for (i = 0; i < n; i++) {
    if (nosqlIsSpace(z[i]) || strchr("()[],'\"`:", z[i]) != NULL) return 0;
  }
  return 1;
}

/* iiFieldDeclOk() of the token z[0..n): a name a query can address. */
static int iiTokenDeclOk(const char *z, int n) {
  char *zCopy = sqlite3_mprintf("%.*s", n, z);
  int bOk = zCopy ? iiFieldDeclOk(zCopy) : 1; /* OOM: reported by the caller's next allocation */
  sqlite3_free(zCopy);
  return bOk;
}

/*
** A NESTED field declaration, "name NESTED(key, ...) [NUMBERED | ELEMENTS]"
** (names bare or quoted). Returns 0 when zArg's second token is not
** NESTED (a plain field); else 1 with *pzName, *pnKey, *paazKey (all
** sqlite3_malloc64, the caller frees them) and *peLayout set, or with
** *pRc and *pzErr set for a malformed declaration.
*/
static int iiNestedDecl(const char *zArg, char **pzName, int *pnKey, char ***paazKey, unsigned char *peLayout,
                        char **pzErr, int *pRc) {
  int i = 0, n = 0, nName, k, nAlloc = 0;
  const char *zName = nosqlSqlToken(zArg, &i, &nName), *zTok;
  if (zName == NULL || strchr("(),", zName[0])) return 0;
  zTok = nosqlSqlToken(zArg, &i, &n);
  if (zTok == NULL || n != 6 || sqlite3_strnicmp(zTok, "NESTED", 6) != 0) return 0;
  *pzName = nosqlDequote(zName, nName);
  *pnKey = 0;
  *paazKey = NULL;
  *peLayout = II_LAYOUT_ELEMENTS;
  if (*pzName == NULL) {
    *pRc = SQLITE_NOMEM;
    return 1;
  }
  if (!iiTokenDeclOk(zName, nName)) goto malformed;
  zTok = nosqlSqlToken(zArg, &i, &n);
  if (zTok == NULL || zTok[0] != '(') goto malformed;
  for (;;) {
    char *zKey;
    zTok = nosqlSqlToken(zArg, &i, &n);
    if (zTok == NULL || strchr("(),", zTok[0])) goto malformed;
    if (!iiTokenDeclOk(zTok, n)) goto malformed;
    /* The limit first: the keys are counted before anything is built. */
    if (*pnKey >= 0xFFFF - 2) {
      *pzErr = sqlite3_mprintf("inverted_index: field '%s': more than 65533 element keys", *pzName);
      *pRc = SQLITE_ERROR;
      return 1;
    }
    if (*pnKey == nAlloc) {
      int nNew = nAlloc ? nAlloc * 2 : 8;
      char **aNew = (char **)sqlite3_realloc64(*paazKey, sizeof(char *) * (size_t)nNew);
      if (aNew == NULL) {
        *pRc = SQLITE_NOMEM;
        return 1;
      }
      *paazKey = aNew;
      nAlloc = nNew;
    }
    zKey = nosqlDequote(zTok, n);
    if (zKey == NULL) {
      *pRc = SQLITE_NOMEM;
      return 1;
    }
    (*paazKey)[(*pnKey)++] = zKey;
    if (zKey[0] == 0) {
      *pzErr = sqlite3_mprintf("inverted_index: field '%s': empty element key in NESTED(...)", *pzName);
      *pRc = SQLITE_ERROR;
      return 1;
    }
    zTok = nosqlSqlToken(zArg, &i, &n);
    if (zTok == NULL) goto malformed;
    if (n == 5 && sqlite3_strnicmp(zTok, "RANGE", 5) == 0) {
      *pzErr = sqlite3_mprintf(
          "inverted_index: field '%s': element key '%s' is declared RANGE, which NESTED(...) does not "
          "support (declare a top-level RANGE field)",
          *pzName, zKey);
      *pRc = SQLITE_ERROR;
      return 1;
    }
    if (zTok[0] == ')') break;
    if (zTok[0] != ',') goto malformed;
  }
  /* Duplicates (names compare as SQLite's, ASCII case folded), by a hash. */
  {
    int nSlot = 16, *aSlot;
    while (nSlot < 2 * *pnKey) nSlot *= 2;
    aSlot = (int *)sqlite3_malloc64(sizeof(int) * (size_t)nSlot);
    if (aSlot == NULL) {
      *pRc = SQLITE_NOMEM;
      return 1;
    }
    memset(aSlot, 0xff, sizeof(int) * (size_t)nSlot);
    for (k = 0; k < *pnKey; k++) {
      const char *zKey = (*paazKey)[k];
      uint64_t h = NOSQL_FNV_SEED;
      const unsigned char *z;
      for (z = (const unsigned char *)zKey; *z; z++) {
        unsigned char c = (unsigned char)(*z >= 'A' && *z <= 'Z' ? *z + 32 : *z);
        h = nosqlFnv1a(h, &c, 1);
      }
      for (h &= (uint64_t)(nSlot - 1); aSlot[h] >= 0; h = (h + 1) & (uint64_t)(nSlot - 1)) {
        if (sqlite3_stricmp((*paazKey)[aSlot[h]], zKey) == 0) {
          *pzErr = sqlite3_mprintf("inverted_index: field '%s': duplicate element key '%s'", *pzName, zKey);
          *pRc = SQLITE_ERROR;
          sqlite3_free(aSlot);
          return 1;
        }
      }
      aSlot[h] = k;
    }
    sqlite3_free(aSlot);
  }
  zTok = nosqlSqlToken(zArg, &i, &n);
  if (zTok && n == 8 && sqlite3_strnicmp(zTok, "NUMBERED", 8) == 0) {
    *peLayout = II_LAYOUT_NUMBERED;
  } else if (zTok && n == 8 && sqlite3_strnicmp(zTok, "ELEMENTS", 8) == 0) {
    *peLayout = II_LAYOUT_ELEMENTS;
  } else if (zTok) {
    *pzErr = sqlite3_mprintf(
        "inverted_index: field '%s': unexpected '%.*s' after NESTED(...) (expected NUMBERED, ELEMENTS or "
        "nothing)",
        *pzName, n, zTok);
    *pRc = SQLITE_ERROR;
    return 1;
  }
  if (nosqlSqlToken(zArg, &i, &n) == NULL) return 1;
  *pzErr =
      sqlite3_mprintf("inverted_index: field '%s': unexpected text after the layout in '%s'", *pzName, zArg);
  *pRc = SQLITE_ERROR;
  return 1;
malformed:
  *pzErr = sqlite3_mprintf(
      "inverted_index: field '%s': bad declaration '%s': NESTED takes a list of element keys, as in "
      "skills NESTED(skill, level)",
      *pzName, zArg);
  *pRc = SQLITE_ERROR;
  return 1;
}

static void iiVtabFree(inverted_index_vtab *p) {
  int i;
  if (p == NULL) return;
  if (p->pGlobal) {
    inverted_index_vtab **pp = &p->pGlobal->pFirst;
    while (*pp && *pp != p) pp = &(*pp)->pNext;
    if (*pp) *pp = p->pNext;
    nosqlConnSharedUnref(p->pGlobal);
  }
  for (i = 0; i < II_N_STMT; i++) sqlite3_finalize(p->aStmt[i]);
  iiCacheClear(p);
  for (i = 0; i < p->nField; i++) {
    int k;
    sqlite3_free(p->azField[i]);
    for (k = 0; p->aazKey && p->aazKey[i] && k < p->anKey[i]; k++) sqlite3_free(p->aazKey[i][k]);
    if (p->aazKey) sqlite3_free(p->aazKey[i]);
  }
  sqlite3_free(p->azField);
  sqlite3_free(p->anKey);
  sqlite3_free(p->aazKey);
  sqlite3_free(p->aeLayout);
  sqlite3_free(p->abRange);
  sqlite3_free(p->aElemNext);
  iiStashClear(p);
  sqlite3_free(p->apStash);
  sqlite3_finalize(p->pSchemaVersion);
  sqlite3_free(p->zContent);
  sqlite3_free(p->zDb);
  sqlite3_free(p->zName);
  if (p->pEmpty) roaring_bitmap_free(p->pEmpty);
  nosqlBufferFree(&p->terms);
  iiValuesKeptFree(p);
  sqlite3_free(p->base.zErrMsg);
  sqlite3_free(p);
}

/* xCreate (bCreate) and xConnect: parse the arguments, declare the table. */
static int iiInit(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                  char **pzErr, int bCreate) {
  inverted_index_vtab *p;
  int rc = SQLITE_OK, i, j, bDirectSeen = 0, bModeSeen = 0;
  NosqlBuffer decl = {0, 0, 0};
  *ppVtab = NULL;
  p = (inverted_index_vtab *)sqlite3_malloc64(sizeof(*p));
  if (p == NULL) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->db = db;
  p->iDataVersion = -1;
  p->iSyncVersion = -1;
  p->iBulkDoc = -1;
  p->iTermMaxStored = -1;
  p->iDocNext = -1;
  p->bRowidMax = 0;
  p->zDb = sqlite3_mprintf("%s", argv[1]);
  p->zName = sqlite3_mprintf("%s", argv[2]);
  p->azField = (char **)sqlite3_malloc64(sizeof(char *) * (size_t)(argc > 3 ? argc : 1));
  p->anKey = (int *)sqlite3_malloc64(sizeof(int) * (size_t)(argc > 3 ? argc : 1));
  p->aazKey = (char ***)sqlite3_malloc64(sizeof(char **) * (size_t)(argc > 3 ? argc : 1));
  p->aeLayout = (unsigned char *)sqlite3_malloc64((size_t)(argc > 3 ? argc : 1));
  p->abRange = (unsigned char *)sqlite3_malloc64((size_t)(argc > 3 ? argc : 1));
  p->pEmpty = roaring_bitmap_create();
  if (p->zDb == NULL || p->zName == NULL || p->azField == NULL || p->pEmpty == NULL || p->anKey == NULL ||
      p->aazKey == NULL || p->aeLayout == NULL || p->abRange == NULL) {
    rc = SQLITE_NOMEM;
  }
  for (i = 3; rc == SQLITE_OK && i < argc; i++) {
    const char *zArg = argv[i];
    const char *zEq = strchr(zArg, '=');
    if (zEq && zArg[0] != '"' && zArg[0] != '\'' && zArg[0] != '`' && zArg[0] != '[') {
      char *zKey = nosqlDequote(zArg, (int)(zEq - zArg));
      char *zVal = nosqlDequote(zEq + 1, (int)strlen(zEq + 1));
      if (zKey == NULL || zVal == NULL) {
        rc = SQLITE_NOMEM;
      } else if (sqlite3_stricmp(zKey, "direct") == 0) {
        /* direct = on (the default) or off: kept in the CREATE text, read at every connect. */
        if (bDirectSeen) {
          *pzErr = sqlite3_mprintf("inverted_index: direct= is given twice");
          rc = SQLITE_ERROR;
        } else if (sqlite3_stricmp(zVal, "on") == 0 || sqlite3_stricmp(zVal, "off") == 0) {
          p->bNoDirect = sqlite3_stricmp(zVal, "off") == 0;
          bDirectSeen = 1;
        } else {
          *pzErr = sqlite3_mprintf("inverted_index: direct=%s: expected 'on' or 'off'", zVal);
          rc = SQLITE_ERROR;
        }
      } else if (sqlite3_stricmp(zKey, "mode") == 0) {
        /* mode = 'sync': kept in the CREATE text, read at every connect. */
        if (bModeSeen) {
          *pzErr = sqlite3_mprintf("inverted_index: mode= is given twice");
          rc = SQLITE_ERROR;
        } else if (sqlite3_stricmp(zVal, "sync") == 0) {
          p->bSync = bModeSeen = 1;
        } else {
          *pzErr = sqlite3_mprintf("inverted_index: mode='%s': expected 'sync'", zVal);
          rc = SQLITE_ERROR;
        }
      } else if (sqlite3_stricmp(zKey, "content") != 0) {
        static const char *const azValid[] = {"content", "direct", "mode", NULL};
        *pzErr = nosqlUnknownOption("inverted_index", zKey, -1, azValid);
        rc = *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
      } else if (zVal[0] == 0) {
        *pzErr = sqlite3_mprintf("inverted_index: content= needs a table name");
        rc = SQLITE_ERROR;
      } else if (p->zContent) {
        *pzErr = sqlite3_mprintf("inverted_index: content= is given twice");
        rc = SQLITE_ERROR;
      } else if (strchr(zVal, '.') && !strchr("\"'`[", zEq[1])) {
        /* The content table lives in the index's own schema. */
        *pzErr = sqlite3_mprintf(
            "inverted_index: content=%s: the content table must be in the index's schema; "
            "name it without a schema (a table named with a dot must be quoted)",
            zVal);
        rc = SQLITE_ERROR;
      } else {
        sqlite3_free(p->zContent);
        p->zContent = zVal;
        zVal = NULL;
      }
      sqlite3_free(zKey);
      sqlite3_free(zVal);
    } else {
      char *zField = NULL, **azKey = NULL;
      int nKey = 0;
      unsigned char eLayout = II_LAYOUT_PLAIN, bRange = 0;
      if (iiNestedDecl(zArg, &zField, &nKey, &azKey, &eLayout, pzErr, &rc)) {
        if (eLayout == II_LAYOUT_ELEMENTS) p->bElems = 1;
      } else if (iiRangeDecl(zArg, &zField, &rc)) {
        bRange = 1;
      } else {
        zField = nosqlDequote(zArg, (int)strlen(zArg));
        if (zField == NULL) rc = SQLITE_NOMEM;
      }
      p->azField[p->nField] = zField;
      p->anKey[p->nField] = nKey;
      p->aazKey[p->nField] = azKey;
      p->aeLayout[p->nField] = eLayout;
      p->abRange[p->nField] = bRange;
      if (zField) p->nField++;
      if (rc != SQLITE_OK) break;
      if (p->nField > 0xFFFF) {
        *pzErr = sqlite3_mprintf("inverted_index: more than 65535 fields");
        rc = SQLITE_ERROR;
      } else if (bCreate && eLayout == II_LAYOUT_PLAIN && !bRange && !iiFieldDeclOk(zArg)) {
        /* Checked when the index is created only: an index created before
        ** this rule keeps opening with the names it was given. */
        *pzErr = sqlite3_mprintf(
            "inverted_index: bad field declaration '%s': a field is a name (quote it to use spaces or "
            "other characters), optionally followed by RANGE or NESTED(...); other types and constraints "
            "are not allowed",
            zArg);
        rc = SQLITE_ERROR;
      } else if (zField[0] == 0) {
        *pzErr = sqlite3_mprintf("inverted_index: empty field name");
        rc = SQLITE_ERROR;
      } else if (sqlite3_stricmp(zField, "rowid") == 0 || sqlite3_stricmp(zField, "oid") == 0 ||
                 sqlite3_stricmp(zField, "_rowid_") == 0) {
        *pzErr = sqlite3_mprintf("inverted_index: field name '%s' is reserved", zField);
        rc = SQLITE_ERROR;
      } else if (sqlite3_stricmp(zField, p->zName) == 0) {
        *pzErr = sqlite3_mprintf("inverted_index: field '%s' has the table's name", zField);
        rc = SQLITE_ERROR;
      }
      for (j = 0; rc == SQLITE_OK && j < p->nField - 1; j++) {
        if (sqlite3_stricmp(p->azField[j], zField) == 0) {
          *pzErr = sqlite3_mprintf("inverted_index: duplicate field '%s'", zField);
          rc = SQLITE_ERROR;
        }
      }
    }
  }
  if (rc == SQLITE_OK && p->nField == 0) {
    *pzErr = sqlite3_mprintf("inverted_index: at least one field is required");
    rc = SQLITE_ERROR;
  }
  if (rc == SQLITE_OK && p->bSync && !p->zContent) {
    *pzErr = sqlite3_mprintf(
        "inverted_index: mode='sync' needs content=TABLE, the table whose triggers keep "
        "the index in step");
    rc = SQLITE_ERROR;
  } else if (rc == SQLITE_OK && p->bSync && bDirectSeen && !p->bNoDirect) {
    *pzErr = sqlite3_mprintf(
        "inverted_index: mode='sync' keeps direct=off storage (its triggers pass the old values): drop "
        "direct=on");
    rc = SQLITE_ERROR;
  }
  if (p->bSync) p->bNoDirect = 1;
  if (rc == SQLITE_OK && p->bNoDirect && p->bElems) {
    p->aElemNext = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * (size_t)p->nField);
    if (p->aElemNext == NULL) rc = SQLITE_NOMEM;
    for (i = 0; rc == SQLITE_OK && i < p->nField; i++) p->aElemNext[i] = -1;
  }
  /* direct = off without content=: the values are kept by rowid in
  ** <name>_content, and a delete reads them back (a release before this one
  ** refuses the CREATE text: it never misreads such a table). */
  p->bStored = p->bNoDirect && !p->zContent;
  if (rc == SQLITE_OK && bCreate) rc = nosqlVtabEmptyArg(db, "inverted_index", argv[1], argv[2], pzErr);
  if (rc == SQLITE_OK && bCreate && p->zContent) rc = iiContentStable(p, 0, pzErr);
  if (rc == SQLITE_OK && bCreate) {
    NosqlBuffer b = {0, 0, 0};
    nosqlBufferAppendf(
        &rc, &b,
        "CREATE TABLE \"%w\".\"%w_terms\"(id INTEGER PRIMARY KEY, field INTEGER NOT NULL, term TEXT "
        "NOT NULL, docs INTEGER NOT NULL, postings BLOB, UNIQUE(field, term));",
        p->zDb, p->zName);
    if (!p->bNoDirect) {
      /* direct = off has no document map: documents are rowids. */
      nosqlBufferAppendf(&rc, &b,
                         "CREATE TABLE \"%w\".\"%w_docs\"(doc INTEGER PRIMARY KEY, id INTEGER NOT NULL "
                         "UNIQUE, terms BLOB",
                         p->zDb, p->zName);
      for (i = 0; !p->zContent && i < p->nField; i++) nosqlBufferAppendf(&rc, &b, ", c%d", i);
      nosqlBufferAppendf(&rc, &b, ");");
    }
    if (p->bStored) {
      nosqlBufferAppendf(&rc, &b, "CREATE TABLE \"%w\".\"%w_content\"(id INTEGER PRIMARY KEY", p->zDb,
                         p->zName);
      for (i = 0; i < p->nField; i++) nosqlBufferAppendf(&rc, &b, ", c%d", i);
      nosqlBufferAppendf(&rc, &b, ");");
    }
    if (p->bElems && p->bNoDirect) {
      /* The ranges alone, keyed by document ('delete' finds them by it). */
      nosqlBufferAppendf(
          &rc, &b,
          "CREATE TABLE \"%w\".\"%w_elems\"(field INTEGER NOT NULL, doc INTEGER NOT NULL, first "
          "INTEGER NOT NULL, n INTEGER NOT NULL, PRIMARY KEY(field, doc)) WITHOUT ROWID;",
          p->zDb, p->zName);
    } else if (p->bElems) {
      nosqlBufferAppendf(
          &rc, &b,
          "CREATE TABLE \"%w\".\"%w_elems\"(field INTEGER NOT NULL, first INTEGER NOT NULL, doc "
          "INTEGER NOT NULL, n INTEGER NOT NULL, terms BLOB, PRIMARY KEY(field, first), "
          "UNIQUE(field, doc)) WITHOUT ROWID;",
          p->zDb, p->zName);
    }
    if (rc == SQLITE_OK) rc = sqlite3_exec(db, (const char *)b.a, 0, 0, pzErr);
    nosqlBufferFree(&b);
  }
  if (rc == SQLITE_OK) {
    nosqlBufferAppendf(&rc, &decl, "CREATE TABLE x(");
    for (i = 0; i < p->nField; i++) nosqlBufferAppendf(&rc, &decl, "\"%w\", ", p->azField[i]);
    nosqlBufferAppendf(&rc, &decl, "\"%w\" HIDDEN)", p->zName);
    if (rc == SQLITE_OK) rc = sqlite3_declare_vtab(db, (const char *)decl.a);
    if (rc != SQLITE_OK && *pzErr == NULL) *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
    /* Its writes go to its own shadow tables only (as FTS5's): usable in
    ** triggers (content= mirroring) and views with trusted_schema=OFF. */
    if (rc == SQLITE_OK) sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
  }
  nosqlBufferFree(&decl);
  if (rc != SQLITE_OK) {
    iiVtabFree(p);
    return rc;
  }
  /* A reference of its own: the module's may go first (a second load of the
  ** extension replaces it). */
  p->pGlobal = (IiGlobal *)pAux;
  nosqlConnSharedRef(p->pGlobal);
  p->pNext = p->pGlobal->pFirst;
  p->pGlobal->pFirst = p;
  if (bCreate && p->bSync) {
    /* The triggers, then the rows the content table has already. */
    rc = iiSyncTriggers(p, pzErr, NULL);
    if (rc == SQLITE_OK) {
      iiEnter(p->pGlobal);
      rc = iiLeave(p->pGlobal, iiRebuild(p));
      if (rc != SQLITE_OK && *pzErr == NULL)
        *pzErr = sqlite3_mprintf("%s", p->base.zErrMsg ? p->base.zErrMsg : sqlite3_errstr(rc));
    }
    if (rc != SQLITE_OK) {
      iiVtabFree(p);
      return rc;
    }
  }
  *ppVtab = &p->base;
  return SQLITE_OK;
}

static int iiCreate(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                    char **pzErr) {
  return iiInit(db, pAux, argc, argv, ppVtab, pzErr, 1);
}
static int iiConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                     char **pzErr) {
  return iiInit(db, pAux, argc, argv, ppVtab, pzErr, 0);
}

static int iiDisconnect(sqlite3_vtab *pVtab) {
  iiVtabFree((inverted_index_vtab *)pVtab);
  return SQLITE_OK;
}

static int iiDestroy(sqlite3_vtab *pVtab) {
  inverted_index_vtab *p = (inverted_index_vtab *)pVtab;
  int rc = p->bSync ? iiDropTriggers(p, p->zName) : SQLITE_OK;
  if (rc == SQLITE_OK)
    rc = iiExec(
        p, sqlite3_mprintf("DROP TABLE IF EXISTS \"%w\".\"%w_docs\";DROP TABLE IF EXISTS \"%w\".\"%w_terms\";"
                           "DROP TABLE IF EXISTS \"%w\".\"%w_elems\";",
                           p->zDb, p->zName, p->zDb, p->zName, p->zDb, p->zName));
  /* Only its own: under content= a table of that name is the application's. */
  if (rc == SQLITE_OK && p->bStored) {
    rc = iiExec(p, sqlite3_mprintf("DROP TABLE IF EXISTS \"%w\".\"%w_content\";", p->zDb, p->zName));
  }
  if (rc == SQLITE_OK) iiVtabFree(p);
  return rc;
}

/*
** Plan encoding: ext/plan.c's, with two slots, 'a' the MATCH on the hidden
** column ("aM") and 'b' the rowid ("b=", "b>", "b{", ...); iiFilter reads
** the values with nosqlPlanArgs(). idxNum repeats which are there, for the
** estimates:
**
**   II_PLAN_MATCH  0x01  the query (a MATCH on the hidden column)
**   II_PLAN_EQ     0x02  rowid = X
**   II_PLAN_LO     0x04  rowid > X or rowid >= X
**   II_PLAN_HI     0x08  rowid < X or rowid <= X
**
** Rowid bounds narrow the scan but are not omitted: SQLite checks each
** row again, so a bound is applied inclusively and non-integer values
** only widen it. Rows always come in rowid order (ORDER BY rowid consumed).
*/
#define II_PLAN_MATCH 0x01
#define II_PLAN_EQ 0x02
#define II_PLAN_LO 0x04
#define II_PLAN_HI 0x08

static int iiBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo) {
  inverted_index_vtab *p = (inverted_index_vtab *)pVtab;
  /* Slot 0: MATCH on the hidden column (answered exactly); slot 1: the
  ** rowid, whose bounds narrow the scan and SQLite checks again. */
  NosqlPlanCol aCol[2] = {{0, NOSQL_OP_MATCH, NOSQL_COLL_ANY, 1, 0},
                          {-1, NOSQL_OP_EQ | NOSQL_OP_RANGE, NOSQL_COLL_ANY, 0, 0}};
  NosqlPlan plan;
  int i, rc, bMatchUnusable = 0;
  double rCost = 1e6, rRows = 1e6;
  aCol[0].iColumn = p->nField;
  for (i = 0; i < pInfo->nConstraint; i++) {
    const struct sqlite3_index_constraint *pC = &pInfo->aConstraint[i];
    if (pC->iColumn == p->nField && pC->op == SQLITE_INDEX_CONSTRAINT_MATCH && !pC->usable)
      bMatchUnusable = 1;
  }
  rc = nosqlPlanFind(pInfo, aCol, 2, &plan);
  if (rc != SQLITE_OK) return rc;
  /* A MATCH whose value is not known yet: another join order must give it. */
  if (bMatchUnusable && plan.aiEq[0] < 0) return SQLITE_CONSTRAINT;
  rc = nosqlPlanCommit(pInfo, aCol, &plan);
  if (rc != SQLITE_OK) return rc;
  pInfo->idxNum = (plan.aiEq[0] >= 0 ? II_PLAN_MATCH : 0) | (plan.aiEq[1] >= 0 ? II_PLAN_EQ : 0) |
                  (plan.aiLo[1] >= 0 ? II_PLAN_LO : 0) | (plan.aiHi[1] >= 0 ? II_PLAN_HI : 0);
  if (pInfo->idxNum & II_PLAN_MATCH) {
    rCost /= 100;
    rRows /= 100;
  }
  if (pInfo->idxNum & II_PLAN_EQ) {
    rCost = 10;
    rRows = 1;
  } else {
    if (pInfo->idxNum & II_PLAN_LO) rCost /= 4, rRows /= 4;
    if (pInfo->idxNum & II_PLAN_HI) rCost /= 4, rRows /= 4;
  }
  if (pInfo->nOrderBy == 1 && pInfo->aOrderBy[0].iColumn < 0 && !pInfo->aOrderBy[0].desc) {
    pInfo->orderByConsumed = 1;
  }
  pInfo->estimatedCost = rCost;
  pInfo->estimatedRows = (sqlite3_int64)rRows;
  return SQLITE_OK;
}

static int iiOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur) {
  inverted_index_cursor *pCur = (inverted_index_cursor *)nosqlCursorNew(sizeof(inverted_index_cursor), ppCur);
  (void)pVtab;
  if (pCur == NULL) return SQLITE_NOMEM;
  pCur->bEof = 1;
  return SQLITE_OK;
}

static void iiCursorReset(inverted_index_cursor *pCur) {
  iiDocMapUnref(pCur->pMap);
  pCur->pMap = NULL;
  if (pCur->pResult) roaring_bitmap_free(pCur->pResult);
  pCur->pResult = NULL;
  sqlite3_free(pCur->aRow);
  pCur->aRow = NULL;
  pCur->nRow = pCur->iRow = 0;
  pCur->bEof = 1;
  pCur->bColRow = 0;
}

static int iiClose(sqlite3_vtab_cursor *cur) {
  inverted_index_cursor *pCur = (inverted_index_cursor *)cur;
  iiCursorReset(pCur);
  sqlite3_finalize(pCur->pCol);
  sqlite3_free(pCur);
  return SQLITE_OK;
}

/* Position the cursor on its current entry, or at EOF. */
static void iiCursorSettle(inverted_index_cursor *pCur) {
  pCur->bColRow = 0;
  if (pCur->pCol) sqlite3_reset(pCur->pCol);
  if (pCur->bSorted) {
    if (pCur->iRow >= pCur->nRow) {
      pCur->bEof = 1;
      return;
    }
    pCur->iDoc = pCur->aRow[pCur->iRow].iDoc;
    pCur->iRowid = pCur->aRow[pCur->iRow].iRowid;
    return;
  }
  if (!pCur->it.has_value || pCur->it.current_value >= pCur->pMap->nDoc) {
    pCur->bEof = 1;
    return;
  }
  pCur->iDoc = pCur->it.current_value;
  pCur->iRowid = pCur->pMap->aRowid ? pCur->pMap->aRowid[pCur->iDoc] : (sqlite3_int64)pCur->iDoc;
  if (pCur->iRowid > pCur->iHi) pCur->bEof = 1;
}

static int iiNext(sqlite3_vtab_cursor *cur) {
  inverted_index_cursor *pCur = (inverted_index_cursor *)cur;
  if (pCur->bSorted)
    pCur->iRow++;
  else
    roaring_advance_uint32_iterator(&pCur->it);
  iiCursorSettle(pCur);
  return SQLITE_OK;
}

static int iiEof(sqlite3_vtab_cursor *cur) { return ((inverted_index_cursor *)cur)->bEof; }

/* A rowid bound from a constraint value: integers exactly, reals widened, others: none. */
static int iiBound(sqlite3_value *pVal, int bLower, sqlite3_int64 *piOut) {
  int eType = sqlite3_value_numeric_type(pVal);
  if (eType == SQLITE_INTEGER) {
    *piOut = sqlite3_value_int64(pVal);
    return 1;
  }
  if (eType == SQLITE_FLOAT) {
    double r = sqlite3_value_double(pVal);
    sqlite3_int64 t;
    if (r != r) return 0; /* NaN: no bound */
    /* Past the int64 range: the nearest end (SQLite checks the rows again,
    ** so a bound may let more through, never fewer). */
    if (r >= 9223372036854775808.0) {
      t = (sqlite3_int64)0x7fffffffffffffffll;
    } else if (r < -9223372036854775808.0) {
      t = (sqlite3_int64)(-0x7fffffffffffffffll - 1);
    } else {
      t = (sqlite3_int64)r;
      if (bLower && (double)t > r) t--;
      if (!bLower && (double)t < r) t++;
    }
    *piOut = t;
    return 1;
  }
  return 0;
}

static int iiCmpRow(const void *a, const void *b) {
  sqlite3_int64 x = ((const IiRow *)a)->iRowid, y = ((const IiRow *)b)->iRowid;
  return x < y ? -1 : x > y;
}

static int iiFilterUnguarded(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr, int argc,
                             sqlite3_value **argv) {
  inverted_index_cursor *pCur = (inverted_index_cursor *)cur;
  inverted_index_vtab *p = (inverted_index_vtab *)cur->pVtab;
  const char *zQuery = NULL;
  sqlite3_int64 iLo = (sqlite3_int64)(-0x7fffffffffffffffll - 1), iHi = 0x7fffffffffffffffll, v;
  int rc;
  char *zErr = NULL;
  IiDocMap *pMap;
  NosqlPlanArg aArg[2];
  (void)idxNum;
  iiCursorReset(pCur);
  if (nosqlPlanArgs(idxStr, argc, argv, aArg, 2) != SQLITE_OK) {
    nosqlVtabError(cur->pVtab, "inverted_index: bad plan '%s'", idxStr ? idxStr : "");
    return SQLITE_ERROR;
  }
  if (aArg[0].pEq) {
    if (sqlite3_value_type(aArg[0].pEq) == SQLITE_NULL) return SQLITE_OK; /* MATCH NULL: no rows */
    zQuery = (const char *)sqlite3_value_text(aArg[0].pEq);
    if (zQuery == NULL) return SQLITE_NOMEM;
  }
  if (aArg[1].pEq) {
    if (iiBound(aArg[1].pEq, 1, &v)) iLo = v;
    if (iiBound(aArg[1].pEq, 0, &v)) iHi = v;
  }
  if (aArg[1].pLo && iiBound(aArg[1].pLo, 1, &v) && v > iLo) iLo = v;
  if (aArg[1].pHi && iiBound(aArg[1].pHi, 0, &v) && v < iHi) iHi = v;

  rc = iiReadBegin(p);
  if (rc == SQLITE_OK) rc = iiEvalQuery(p, zQuery, &pCur->pResult, &zErr);
  if (zErr) {
    sqlite3_free(p->base.zErrMsg);
    p->base.zErrMsg = zErr;
  }
  if (rc != SQLITE_OK) return rc;
  pMap = pCur->pMap = p->pMap;
  pMap->nRef++;
  pCur->iHi = iHi;
  pCur->bEof = 0;
  if (iLo > iHi) {
    pCur->bEof = 1;
  } else if (pMap->bOrdered) {
    /* Document numbers follow rowids: start at the first rowid >= iLo. */
    uint32_t lo = 0, hi = pMap->nDoc;
    if (pMap->aRowid == NULL) {
      /* Document = rowid (direct = off). */
      lo = iLo <= 0 ? 0 : iLo >= (sqlite3_int64)hi ? hi : (uint32_t)iLo;
      hi = lo;
    }
    while (lo < hi) {
      uint32_t mid = lo + (hi - lo) / 2;
      if (pMap->aRowid[mid] < iLo)
        lo = mid + 1;
      else
        hi = mid;
    }
    pCur->bSorted = 0;
    roaring_init_iterator(pCur->pResult, &pCur->it);
    if (lo > 0) roaring_move_uint32_iterator_equalorlarger(&pCur->it, lo);
    iiCursorSettle(pCur);
  } else {
    roaring_uint32_iterator_t it;
    uint64_t nMax = roaring_bitmap_get_cardinality(pCur->pResult);
    pCur->bSorted = 1;
    pCur->aRow = (IiRow *)sqlite3_malloc64(sizeof(IiRow) * (nMax + 1));
    if (pCur->aRow == NULL) return SQLITE_NOMEM;
    for (roaring_init_iterator(pCur->pResult, &it); it.has_value; roaring_advance_uint32_iterator(&it)) {
      sqlite3_int64 iRowid;
      if (it.current_value >= pMap->nDoc) break;
      iRowid = pMap->aRowid ? pMap->aRowid[it.current_value] : (sqlite3_int64)it.current_value;
      if (iRowid < iLo || iRowid > iHi) continue;
      pCur->aRow[pCur->nRow].iRowid = iRowid;
      pCur->aRow[pCur->nRow].iDoc = it.current_value;
      pCur->nRow++;
    }
    qsort(pCur->aRow, pCur->nRow, sizeof(IiRow), iiCmpRow);
    iiCursorSettle(pCur);
  }
  return SQLITE_OK;
}

static int iiColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int iCol) {
  inverted_index_cursor *pCur = (inverted_index_cursor *)cur;
  inverted_index_vtab *p = (inverted_index_vtab *)cur->pVtab;
  int rc = SQLITE_OK;
  if (iCol < 0 || iCol >= p->nField) return SQLITE_OK; /* The hidden column reads as NULL */
  if (pCur->pCol == NULL) {
    int i;
    NosqlBuffer b = {0, 0, 0};
    nosqlBufferAppendf(&rc, &b, "SELECT ");
    for (i = 0; i < p->nField; i++) {
      if (p->zContent)
        nosqlBufferAppendf(&rc, &b, "%sc.\"%w\"", i ? ", " : "", p->azField[i]);
      else
        nosqlBufferAppendf(&rc, &b, "%sc%d", i ? ", " : "", i);
    }
    if (p->zContent)
      nosqlBufferAppendf(&rc, &b, " FROM \"%w\".\"%w\" AS c WHERE c.rowid = ?1", p->zDb, p->zContent);
    else if (p->bStored)
      nosqlBufferAppendf(&rc, &b, " FROM \"%w\".\"%w_content\" WHERE id = ?1", p->zDb, p->zName);
    else
      nosqlBufferAppendf(&rc, &b, " FROM \"%w\".\"%w_docs\" WHERE doc = ?1", p->zDb, p->zName);
    if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(p->db, (const char *)b.a, -1, &pCur->pCol, 0);
    nosqlBufferFree(&b);
    if (rc != SQLITE_OK) {
      nosqlVtabError(cur->pVtab, "%s", sqlite3_errmsg(p->db));
      return rc;
    }
  }
  if (!pCur->bColRow) {
    sqlite3_reset(pCur->pCol);
    sqlite3_bind_int64(pCur->pCol, 1, p->zContent || p->bStored ? pCur->iRowid : (sqlite3_int64)pCur->iDoc);
    rc = sqlite3_step(pCur->pCol);
    if (rc == SQLITE_ROW) {
      pCur->bColRow = 1;
      rc = SQLITE_OK;
    } else if (rc == SQLITE_DONE) {
      /* A content= row that the application deleted without telling the index. */
      return SQLITE_OK;
    } else {
      nosqlVtabError(cur->pVtab, "%s", sqlite3_errmsg(p->db));
      return rc;
    }
  }
  sqlite3_result_value(ctx, sqlite3_column_value(pCur->pCol, iCol));
  return rc;
}

static int iiRowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *pRowid) {
  *pRowid = ((inverted_index_cursor *)cur)->iRowid;
  return SQLITE_OK;
}

/* A special command, INSERT INTO t(t [, rowid]) VALUES(cmd [, rowid]). */
/*
** mode = 'sync': the rows the BEFORE triggers gave 'displace' (a row a
** REPLACE may delete without a DELETE trigger), one per rowid, the latest
** values kept. Settled by the next INSERT of a row, and at xSync.
*/
#define II_STASH_MAX 64 /* Settled first when this many are kept (UPSERTs leave theirs) */

/*
** Take out of the index each kept row that the content table no longer
** has, or that sits at iNew (the rowid being written, -1: none), and that
** the index still holds (a DELETE trigger, with recursive_triggers on,
** took it out already); then forget them all.
*/
static int iiStashSettle(inverted_index_vtab *p, sqlite3_int64 iNew) {
  int rc = SQLITE_OK, i, n = p->nField + 1;
  sqlite3_stmt *pStmt = NULL;
  char *zSql;
  if (p->nStash == 0) return SQLITE_OK;
  zSql = sqlite3_mprintf("SELECT 1 FROM \"%w\".\"%w\" WHERE rowid = ?1", p->zDb, p->zContent);
  rc = zSql ? sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  for (i = 0; rc == SQLITE_OK && i < p->nStash; i++) {
    sqlite3_int64 iRowid = sqlite3_value_int64(p->apStash[i * n]);
    int bGone = iRowid == iNew, bLive = 0;
    if (!bGone) {
      sqlite3_bind_int64(pStmt, 1, iRowid);
      bGone = sqlite3_step(pStmt) != SQLITE_ROW;
      rc = sqlite3_reset(pStmt);
    }
    if (rc == SQLITE_OK && bGone && iRowid >= 0 && iRowid <= II_ROWID_MAX) rc = iiLiveHas(p, iRowid, &bLive);
    if (rc == SQLITE_OK && bLive) rc = iiDeleteValues(p, iRowid, p->apStash + i * n + 1);
  }
  sqlite3_finalize(pStmt);
  iiStashClear(p);
  return rc;
}

/* Keep row pRowid's values apVal (copies) for iiStashSettle. */
static int iiStashAdd(inverted_index_vtab *p, sqlite3_value *pRowid, sqlite3_value **apVal) {
  int rc = SQLITE_OK, i, k, n = p->nField + 1;
  sqlite3_int64 iRowid = sqlite3_value_int64(pRowid);
  if (p->nStash >= II_STASH_MAX) rc = iiStashSettle(p, -1);
  for (k = 0; k < p->nStash && sqlite3_value_int64(p->apStash[k * n]) != iRowid; k++) {
  }
  if (rc == SQLITE_OK && k == p->nStash && k == p->nStashAlloc) {
    int nNew = p->nStashAlloc ? p->nStashAlloc * 2 : 4;
    sqlite3_value **aNew =
        (sqlite3_value **)sqlite3_realloc64(p->apStash, sizeof(sqlite3_value *) * (size_t)(nNew * n));
    if (aNew == NULL) return SQLITE_NOMEM;
    p->apStash = aNew;
    p->nStashAlloc = nNew;
  }
  if (rc != SQLITE_OK) return rc;
  if (k < p->nStash) {
    for (i = 0; i < n; i++) sqlite3_value_free(p->apStash[k * n + i]);
  } else {
    p->nStash++;
  }
  for (i = 0; i < n; i++) {
    p->apStash[k * n + i] = sqlite3_value_dup(i == 0 ? pRowid : apVal[i - 1]);
    if (p->apStash[k * n + i] == NULL) rc = SQLITE_NOMEM;
  }
  if (rc != SQLITE_OK) iiStashClear(p); /* a half-made row (NULLs) is forgotten with the rest */
  return rc;
}

static int iiCommand(inverted_index_vtab *p, sqlite3_value *pCmd, sqlite3_value *pRowid,
                     sqlite3_value **apVal) {
  const char *zCmd = (const char *)sqlite3_value_text(pCmd);
  if (zCmd == NULL) return SQLITE_NOMEM;
  if (sqlite3_stricmp(zCmd, "rebuild") == 0) return iiRebuild(p);
  if (sqlite3_stricmp(zCmd, "integrity-check") == 0) return iiIntegrityCheck(p);
  if (sqlite3_stricmp(zCmd, "optimize") == 0) return iiOptimize(p);
  if (sqlite3_stricmp(zCmd, "delete") == 0) {
    if (sqlite3_value_type(pRowid) != SQLITE_INTEGER) {
      nosqlVtabError(&p->base, "inverted_index: 'delete' needs the rowid of the document");
      return SQLITE_ERROR;
    }
    /* direct = on: the values, if any, are not needed (nor read). */
    if (p->bStored) return iiDeleteStored(p, sqlite3_value_int64(pRowid)); /* values ignored */
    if (p->bNoDirect) return iiDeleteValues(p, sqlite3_value_int64(pRowid), apVal);
    return iiDeleteDoc(p, sqlite3_value_int64(pRowid));
  }
  if (p->bSync && sqlite3_stricmp(zCmd, "displace") == 0) {
    /* The BEFORE triggers': a row the write may displace, kept until its AFTER trigger. */
    if (sqlite3_value_type(pRowid) != SQLITE_INTEGER) return SQLITE_OK;
    return iiStashAdd(p, pRowid, apVal);
  }
  {
    char *zQ = nosqlValueQuote(pCmd);
    nosqlVtabError(
        &p->base,
        "inverted_index: unknown command %s (expected 'rebuild', 'integrity-check', 'optimize' or 'delete')",
        zQ);
    sqlite3_free(zQ);
  }
  return SQLITE_ERROR;
}

static int iiUpdateUnguarded(sqlite3_vtab *pVtab, int argc, sqlite3_value **argv, sqlite3_int64 *pRowid) {
  inverted_index_vtab *p = (inverted_index_vtab *)pVtab;
  int rc = SQLITE_OK;
  if (argc == 1 && p->bStored) return iiDeleteStored(p, sqlite3_value_int64(argv[0]));
  if (argc == 1 && p->bNoDirect) return iiNeedValues(p, "DELETE");
  if (argc == 1) return iiDeleteDoc(p, sqlite3_value_int64(argv[0]));
  if (sqlite3_value_type(argv[2 + p->nField]) != SQLITE_NULL) {
    if (sqlite3_value_type(argv[0]) != SQLITE_NULL) {
      nosqlVtabError(pVtab, "inverted_index: the column %s takes commands in INSERT only", p->zName);
      return SQLITE_ERROR;
    }
    return iiCommand(p, argv[2 + p->nField], argv[1], argv + 2);
  }
  if (p->bNoDirect && !p->bStored && sqlite3_value_type(argv[0]) != SQLITE_NULL)
    return iiNeedValues(p, "UPDATE");
  if (p->nStash) {
    /* The AFTER trigger's INSERT: the rows its write displaced go first. */
    rc = iiStashSettle(p, sqlite3_value_type(argv[1]) == SQLITE_INTEGER ? sqlite3_value_int64(argv[1]) : -1);
    if (rc != SQLITE_OK) return rc;
  }
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
    sqlite3_int64 iRowid;
    if (sqlite3_value_type(argv[1]) == SQLITE_NULL) {
      int bNull;
      if (p->bNoDirect) {
        /* The largest document number is the largest rowid. */
        rc = iiDocMapLoad(p);
        bNull = rc == SQLITE_OK && roaring_bitmap_is_empty(p->pMap->pLive);
        iRowid = bNull ? 0 : (sqlite3_int64)roaring_bitmap_maximum(p->pMap->pLive);
      } else {
        rc = iiScalar(p, II_STMT_MAX_ROWID, &iRowid, &bNull);
      }
      if (rc != SQLITE_OK) return rc;
      if (bNull) iRowid = 0;
      if (iRowid == 0x7fffffffffffffffll) {
        nosqlVtabError(pVtab, "inverted_index: no rowid left after 9223372036854775807; give one");
        return SQLITE_FULL;
      }
      iRowid++;
    } else if (sqlite3_value_type(argv[1]) != SQLITE_INTEGER) {
      char *zQ = nosqlValueQuote(argv[1]);
      nosqlVtabError(pVtab, "inverted_index: rowid %s is not an integer", zQ);
      sqlite3_free(zQ);
      return SQLITE_MISMATCH;
    } else {
      iRowid = sqlite3_value_int64(argv[1]);
      /* OR REPLACE onto a taken rowid: the stored values say what goes
      ** (otherwise iiWriteDoc() refuses a taken rowid). */
      if (p->bStored && sqlite3_vtab_on_conflict(p->db) == SQLITE_REPLACE) {
        rc = iiStoredMakeRoom(p, -1, iRowid, argv + 2);
      }
    }
    if (rc == SQLITE_OK) rc = iiWriteDoc(p, 0, 0, iRowid, argv + 2);
    *pRowid = iRowid;
    return rc;
  }
  if (sqlite3_value_type(argv[1]) != SQLITE_INTEGER) {
    char *zQ = nosqlValueQuote(argv[1]);
    nosqlVtabError(pVtab, "inverted_index: rowid %s is not an integer", zQ);
    sqlite3_free(zQ);
    return SQLITE_MISMATCH;
  }
  if (p->bStored) {
    /* UPDATE: the old document deleted (its stored values say how), the new one written. */
    sqlite3_int64 iOld = sqlite3_value_int64(argv[0]), iNew = sqlite3_value_int64(argv[1]);
    rc = iiStoredMakeRoom(p, iOld, iNew, argv + 2);
    return rc == SQLITE_OK ? iiWriteDoc(p, 0, 0, iNew, argv + 2) : rc;
  }
  return iiWriteDoc(p, 1, sqlite3_value_int64(argv[0]), sqlite3_value_int64(argv[1]), argv + 2);
}

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
static void iiRollbackCache(inverted_index_vtab *p) {
  if (p->pGlobal && p->pGlobal->nBusy > 0) {
    p->bClearPending = 1;
  } else {
    iiCacheClear(p);
  }
}
static int iiFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr, int argc,
                    sqlite3_value **argv) {
  IiGlobal *pG = ((inverted_index_vtab *)cur->pVtab)->pGlobal;
  iiEnter(pG);
  return iiLeave(pG, iiFilterUnguarded(cur, idxNum, idxStr, argc, argv));
}
static int iiUpdate(sqlite3_vtab *pVtab, int argc, sqlite3_value **argv, sqlite3_int64 *pRowid) {
  IiGlobal *pG = ((inverted_index_vtab *)pVtab)->pGlobal;
  iiEnter(pG);
  return iiLeave(pG, iiUpdateUnguarded(pVtab, argc, argv, pRowid));
}

static int iiBegin(sqlite3_vtab *pVtab) { return iiCacheCheck((inverted_index_vtab *)pVtab); }
static int iiSync(sqlite3_vtab *pVtab) {
  IiGlobal *pG = ((inverted_index_vtab *)pVtab)->pGlobal;
  int rc;
  iiEnter(pG);
  rc = iiStashSettle((inverted_index_vtab *)pVtab, -1);
  if (rc == SQLITE_OK) rc = iiFlush((inverted_index_vtab *)pVtab);
  return iiLeave(pG, rc);
}
static int iiCommit(sqlite3_vtab *pVtab) {
  (void)pVtab;
  return SQLITE_OK;
}
static int iiRollback(sqlite3_vtab *pVtab) {
  iiRollbackCache((inverted_index_vtab *)pVtab);
  return SQLITE_OK;
}
static int iiSavepoint(sqlite3_vtab *pVtab, int iSavepoint) {
  IiGlobal *pG = ((inverted_index_vtab *)pVtab)->pGlobal;
  (void)iSavepoint;
  iiEnter(pG);
  return iiLeave(pG, iiFlush((inverted_index_vtab *)pVtab));
}
static int iiRelease(sqlite3_vtab *pVtab, int iSavepoint) {
  (void)pVtab;
  (void)iSavepoint;
  return SQLITE_OK;
}
static int iiRollbackTo(sqlite3_vtab *pVtab, int iSavepoint) {
  (void)iSavepoint;
  iiRollbackCache((inverted_index_vtab *)pVtab);
  return SQLITE_OK;
}

static int iiRename(sqlite3_vtab *pVtab, const char *zNew) {
  inverted_index_vtab *p = (inverted_index_vtab *)pVtab;
  int rc, i;
  char *zName;
  iiEnter(p->pGlobal);
  rc = iiLeave(p->pGlobal, iiFlush(p));
  if (rc == SQLITE_OK) {
    rc = iiExec(p, sqlite3_mprintf("ALTER TABLE \"%w\".\"%w_terms\" RENAME TO \"%w_terms\";", p->zDb,
                                   p->zName, zNew));
  }
  /* SQLite cannot rename a trigger: made again below under the new name. */
  if (rc == SQLITE_OK && p->bSync) rc = iiDropTriggers(p, p->zName);
  if (rc == SQLITE_OK && !p->bNoDirect) {
    rc = iiExec(
        p, sqlite3_mprintf("ALTER TABLE \"%w\".\"%w_docs\" RENAME TO \"%w_docs\";", p->zDb, p->zName, zNew));
  }
  if (rc == SQLITE_OK && p->bElems) {
    rc = iiExec(p, sqlite3_mprintf("ALTER TABLE \"%w\".\"%w_elems\" RENAME TO \"%w_elems\";", p->zDb,
                                   p->zName, zNew));
  }
  if (rc == SQLITE_OK && p->bStored) {
    rc = iiExec(p, sqlite3_mprintf("ALTER TABLE \"%w\".\"%w_content\" RENAME TO \"%w_content\";", p->zDb,
                                   p->zName, zNew));
  }
  if (rc != SQLITE_OK) return rc;
  zName = sqlite3_mprintf("%s", zNew);
  if (zName == NULL) return SQLITE_NOMEM;
  for (i = 0; i < II_N_STMT; i++) {
    sqlite3_finalize(p->aStmt[i]);
    p->aStmt[i] = NULL;
  }
  sqlite3_free(p->zName);
  p->zName = zName;
  if (p->bSync) {
    /* Without its content table (dropped since) there is nothing to follow: 'integrity-check' says so. */
    char *zErr = NULL;
    rc = iiSyncTriggers(p, &zErr, NULL);
    if (rc == SQLITE_ERROR && zErr && strstr(zErr, "does it exist?"))
      rc = SQLITE_OK;
    else if (zErr)
      nosqlVtabError(&p->base, "%s", zErr);
    sqlite3_free(zErr);
  }
  return rc;
}

static int iiShadowName(const char *zSuffix) {
  return sqlite3_stricmp(zSuffix, "docs") == 0 || sqlite3_stricmp(zSuffix, "terms") == 0 ||
         sqlite3_stricmp(zSuffix, "elems") == 0;
}

static sqlite3_module iiModule = {
    3,            /* iVersion: xShadowName */
    iiCreate,     /* xCreate */
    iiConnect,    /* xConnect */
    iiBestIndex,  /* xBestIndex */
    iiDisconnect, /* xDisconnect */
    iiDestroy,    /* xDestroy */
    iiOpen,       /* xOpen */
    iiClose,      /* xClose */
    iiFilter,     /* xFilter */
    iiNext,       /* xNext */
    iiEof,        /* xEof */
    iiColumn,     /* xColumn */
    iiRowid,      /* xRowid */
    iiUpdate,     /* xUpdate */
    iiBegin,      /* xBegin */
    iiSync,       /* xSync */
    iiCommit,     /* xCommit */
    iiRollback,   /* xRollback */
    0,            /* xFindFunction */
    iiRename,     /* xRename */
    iiSavepoint,  /* xSavepoint */
    iiRelease,    /* xRelease */
    iiRollbackTo, /* xRollbackTo */
    iiShadowName, /* xShadowName */
};

/*--------------------------------------------------------------------------
** For the companions (ext/inverted_index_vocab.c): finding an index table
** by name and passing its errors on.
*/

/*
** The inverted_index table zName of schema zDb (NULL: any) on db,
** connecting it first if this connection has not used it yet. Returns
** NULL with *pzErr set if there is no such inverted_index table.
*/
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

int invertedIndexRegister(sqlite3 *db) {
  int rc;
  /* One reference per registration; each releases its own, even on failure. */
  IiGlobal *pG = (IiGlobal *)nosqlConnShared(db, NOSQL_SHARED_INVERTED_INDEX, sizeof(IiGlobal));
  if (pG == NULL) return SQLITE_NOMEM;
  rc = sqlite3_create_module_v2(db, "inverted_index", &iiModule, pG, nosqlConnSharedUnref);
  if (rc == SQLITE_OK) {
    nosqlConnSharedRef(pG);
    rc = sqlite3_create_module_v2(db, "inverted_index_facets", &iiCompanionModule, pG, nosqlConnSharedUnref);
  }
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
