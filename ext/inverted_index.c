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
** inverted_index_count) in ext/inverted_index_vocab.c. The table's
** structures are shared through ext/inverted_index.h by its parts, in the
** fts5 manner: ext/inverted_index_store.c (statements, term cache,
** postings, document and element maps, query evaluation),
** ext/inverted_index_write.c (values to terms, writing and deleting a
** document), ext/inverted_index_content.c (content= and mode = 'sync'),
** ext/inverted_index_check.c ('optimize', 'integrity-check'). This file
** has the virtual table itself: options, planning, cursor, the dispatch
** of writes and commands, transactions, registration.
*/
#include "nosqlInt.h"

#include <roaring/roaring.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "inverted_index.h"

/**************************************************************************
** SQL glue: the inverted_index module.
*/

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

/*
** iiInit's step for an argument key=value (zEq: its '='): the options
** content=, direct= and mode=. *pbDirectSeen and *pbModeSeen tell a
** repeated option.
*/
static int iiOptionArg(inverted_index_vtab *p, const char *zArg, const char *zEq, int *pbDirectSeen,
                       int *pbModeSeen, char **pzErr) {
  int rc = SQLITE_OK;
  char *zKey = nosqlDequote(zArg, (int)(zEq - zArg));
  char *zVal = nosqlDequote(zEq + 1, (int)strlen(zEq + 1));
  if (zKey == NULL || zVal == NULL) {
    rc = SQLITE_NOMEM;
  } else if (sqlite3_stricmp(zKey, "direct") == 0) {
    /* direct = on (the default) or off: kept in the CREATE text, read at every connect. */
    if (*pbDirectSeen) {
      *pzErr = sqlite3_mprintf("inverted_index: direct= is given twice");
      rc = SQLITE_ERROR;
    } else if (sqlite3_stricmp(zVal, "on") == 0 || sqlite3_stricmp(zVal, "off") == 0) {
      p->bNoDirect = sqlite3_stricmp(zVal, "off") == 0;
      *pbDirectSeen = 1;
    } else {
      *pzErr = sqlite3_mprintf("inverted_index: direct=%s: expected 'on' or 'off'", zVal);
      rc = SQLITE_ERROR;
    }
  } else if (sqlite3_stricmp(zKey, "mode") == 0) {
    /* mode = 'sync': kept in the CREATE text, read at every connect. */
    if (*pbModeSeen) {
      *pzErr = sqlite3_mprintf("inverted_index: mode= is given twice");
      rc = SQLITE_ERROR;
    } else if (sqlite3_stricmp(zVal, "sync") == 0) {
      p->bSync = *pbModeSeen = 1;
      p->xReadCheck = iiSyncReadCheck;
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
  return rc;
}

/* iiInit's step for a field declaration zArg (a name, or one with NESTED(...)): p's next field. */
static int iiFieldArg(inverted_index_vtab *p, const char *zArg, int bCreate, char **pzErr) {
  int rc = SQLITE_OK, j;
  char *zField = NULL, **azKey = NULL;
  int nKey = 0;
  unsigned char eLayout = II_LAYOUT_PLAIN;
  if (iiNestedDecl(zArg, &zField, &nKey, &azKey, &eLayout, pzErr, &rc)) {
    if (eLayout == II_LAYOUT_ELEMENTS) p->bElems = 1;
  } else {
    zField = nosqlDequote(zArg, (int)strlen(zArg));
    if (zField == NULL) rc = SQLITE_NOMEM;
  }
  p->azField[p->nField] = zField;
  p->anKey[p->nField] = nKey;
  p->aazKey[p->nField] = azKey;
  p->aeLayout[p->nField] = eLayout;
  if (zField) p->nField++;
  if (rc != SQLITE_OK) return rc;
  if (p->nField > 0xFFFF) {
    *pzErr = sqlite3_mprintf("inverted_index: more than 65535 fields");
    rc = SQLITE_ERROR;
  } else if (bCreate && eLayout == II_LAYOUT_PLAIN && !iiFieldDeclOk(zArg)) {
    /* Checked when the index is created only: an index created before
    ** this rule keeps opening with the names it was given. */
    *pzErr = sqlite3_mprintf(
        "inverted_index: bad field declaration '%s': a field is a name (quote it to use spaces or "
        "other characters); types and constraints are not allowed",
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
  return rc;
}

/*
** iiInit's step after the arguments: the rules between them, and what
** they imply (mode = 'sync' keeps direct = off storage; direct = off
** keeps the next element numbers, and without content= the values).
*/
static int iiOptionsCheck(inverted_index_vtab *p, int bDirectSeen, char **pzErr) {
  int rc = SQLITE_OK, i;
  if (p->nField == 0) {
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
  return rc;
}

/* xCreate's step: the shadow tables (schemas in docs/inverted_index.md). */
static int iiShadowCreate(inverted_index_vtab *p, char **pzErr) {
  int rc = SQLITE_OK, i;
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
    nosqlBufferAppendf(&rc, &b,
                       "CREATE TABLE \"%w\".\"%w_elems\"(field INTEGER NOT NULL, doc INTEGER NOT NULL, first "
                       "INTEGER NOT NULL, n INTEGER NOT NULL, PRIMARY KEY(field, doc)) WITHOUT ROWID;",
                       p->zDb, p->zName);
  } else if (p->bElems) {
    nosqlBufferAppendf(&rc, &b,
                       "CREATE TABLE \"%w\".\"%w_elems\"(field INTEGER NOT NULL, first INTEGER NOT NULL, doc "
                       "INTEGER NOT NULL, n INTEGER NOT NULL, terms BLOB, PRIMARY KEY(field, first), "
                       "UNIQUE(field, doc)) WITHOUT ROWID;",
                       p->zDb, p->zName);
  }
  if (rc == SQLITE_OK) rc = sqlite3_exec(p->db, (const char *)b.a, 0, 0, pzErr);
  nosqlBufferFree(&b);
  return rc;
}

/* iiInit's step: declare the table's columns, the fields and the hidden one named after it. */
static int iiDeclare(inverted_index_vtab *p, char **pzErr) {
  int rc = SQLITE_OK, i;
  NosqlBuffer decl = {0, 0, 0};
  nosqlBufferAppendf(&rc, &decl, "CREATE TABLE x(");
  for (i = 0; i < p->nField; i++) nosqlBufferAppendf(&rc, &decl, "\"%w\", ", p->azField[i]);
  nosqlBufferAppendf(&rc, &decl, "\"%w\" HIDDEN)", p->zName);
  if (rc == SQLITE_OK) rc = sqlite3_declare_vtab(p->db, (const char *)decl.a);
  if (rc != SQLITE_OK && *pzErr == NULL) *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(p->db));
  /* Its writes go to its own shadow tables only (as FTS5's): usable in
  ** triggers (content= mirroring) and views with trusted_schema=OFF. */
  if (rc == SQLITE_OK) sqlite3_vtab_config(p->db, SQLITE_VTAB_INNOCUOUS);
  nosqlBufferFree(&decl);
  return rc;
}

/* xCreate (bCreate) and xConnect: parse the arguments, declare the table. */
static int iiInit(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                  char **pzErr, int bCreate) {
  inverted_index_vtab *p;
  int rc = SQLITE_OK, i, bDirectSeen = 0, bModeSeen = 0;
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
  p->pEmpty = roaring_bitmap_create();
  if (p->zDb == NULL || p->zName == NULL || p->azField == NULL || p->pEmpty == NULL || p->anKey == NULL ||
      p->aazKey == NULL || p->aeLayout == NULL) {
    rc = SQLITE_NOMEM;
  }
  for (i = 3; rc == SQLITE_OK && i < argc; i++) {
    const char *zArg = argv[i];
    const char *zEq = strchr(zArg, '=');
    if (zEq && zArg[0] != '"' && zArg[0] != '\'' && zArg[0] != '`' && zArg[0] != '[') {
      rc = iiOptionArg(p, zArg, zEq, &bDirectSeen, &bModeSeen, pzErr);
    } else {
      rc = iiFieldArg(p, zArg, bCreate, pzErr);
    }
  }
  if (rc == SQLITE_OK) rc = iiOptionsCheck(p, bDirectSeen, pzErr);
  if (rc == SQLITE_OK && bCreate) rc = nosqlVtabEmptyArg(db, "inverted_index", argv[1], argv[2], pzErr);
  if (rc == SQLITE_OK && bCreate && p->zContent) rc = iiContentStable(p, 0, pzErr);
  if (rc == SQLITE_OK && bCreate) rc = iiShadowCreate(p, pzErr);
  if (rc == SQLITE_OK) rc = iiDeclare(p, pzErr);
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

/* True if kept (unchanged, once indexed) value pVal has a term: not NULL, not an empty array. */
static int iiKeptHasTerm(sqlite3_value *pVal) {
  const unsigned char *z;
  int n, k = 0;
  if (sqlite3_value_type(pVal) == SQLITE_NULL) return 0;
  if (sqlite3_value_type(pVal) != SQLITE_TEXT) return 1;
  z = sqlite3_value_text(pVal);
  n = sqlite3_value_bytes(pVal);
  while (k < n && nosqlIsSpace((char)z[k])) k++;
  if (k == n || z[k] != '[') return 1;
  for (k++; k < n && nosqlIsSpace((char)z[k]); k++) {
  }
  return k < n && z[k] != ']';
}

/*
** mode = 'sync', direct = off: the AFTER UPDATE trigger's two halves of an
** UPDATE that keeps the rowid, 'sync-delete:MASK' with the old values and
** 'sync-insert:MASK' with the new, MASK a '1' per field the UPDATE left as
** it was (same type and bytes: same terms). Only the other fields' terms
** move; the document stays live.
*/
static int iiSyncPartial(inverted_index_vtab *p, const char *zCmd, sqlite3_value *pRowid,
                         sqlite3_value **apVal) {
  const char *zMask = zCmd + 12;
  int rc = SQLITE_OK, i, bDelete = zCmd[5] == 'd';
  sqlite3_int64 iRowid;
  for (i = 0; i < p->nField && (zMask[i] == '0' || zMask[i] == '1'); i++) {
  }
  if (i < p->nField || zMask[i] != 0 || sqlite3_value_type(pRowid) != SQLITE_INTEGER) {
    nosqlVtabError(&p->base, "inverted_index: malformed command '%s'", zCmd);
    return SQLITE_ERROR;
  }
  iRowid = sqlite3_value_int64(pRowid);
  if (!bDelete && p->nStash) rc = iiStashSettle(p, -1);
  if (rc != SQLITE_OK) return rc;
  p->zKeep = zMask;
  p->bKeepTerms = 0;
  for (i = 0; i < p->nField; i++) {
    if (zMask[i] == '1' && iiKeptHasTerm(apVal[i])) p->bKeepTerms = 1;
  }
  rc = bDelete ? iiDeleteValues(p, iRowid, apVal) : iiWriteDoc(p, 0, 0, iRowid, apVal);
  p->zKeep = NULL;
  p->bKeepTerms = 0;
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
  if (p->bSync && p->bNoDirect && !p->bElems &&
      (strncmp(zCmd, "sync-delete:", 12) == 0 || strncmp(zCmd, "sync-insert:", 12) == 0)) {
    return iiSyncPartial(p, zCmd, pRowid, apVal);
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

int invertedIndexRegister(sqlite3 *db) {
  int rc;
  /* One reference per registration; each releases its own, even on failure. */
  IiGlobal *pG = (IiGlobal *)nosqlConnShared(db, NOSQL_SHARED_INVERTED_INDEX, sizeof(IiGlobal));
  if (pG == NULL) return SQLITE_NOMEM;
  rc = sqlite3_create_module_v2(db, "inverted_index", &iiModule, pG, nosqlConnSharedUnref);
  if (rc == SQLITE_OK) rc = iiVocabRegister(db, pG);
  return rc;
}
