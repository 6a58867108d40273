/*
** doc.c: soft-schema documents, techniques 2 ("Aggregates") and 4 ("Atomic
** Aggregates") of the article: a whole aggregate kept as one JSON document
** per key and updated in one atomic step, MongoDB's findOneAndUpdate on a
** table laid out as
**
**   CREATE TABLE products(key TEXT PRIMARY KEY, doc TEXT, version INTEGER);
**
**   doc_update(table, key, update [, expected_version | options]) -> INTEGER
**       applies update to the document of key and returns the new version
**       (the old one plus one); NULL, changing nothing, when the key is
**       absent or (with expected_version) the stored version differs.
**       update is either a JSON merge patch (RFC 7396, an object without
**       '$' keys) or MongoDB update operators (all of them: $set, $unset,
**       $inc, $mul, $min, $max, $rename, $currentDate, $setOnInsert,
**       $push with $each/$position/$sort/$slice, $addToSet, $pop, $pull,
**       $pullAll, $bit) with dotted paths, $[] and $[id]. A fourth
**       argument that is text starting with '{' is an options object:
**       {"arrayFilters": [..], "upsert": true, "expectedVersion": 7}.
**       docs/documents.md lists what differs from MongoDB. key must be
**       unique in table under its own collation (kvTableKeyUnique in
**       ext/kv.c). table may name the columns of an existing table,
**       in this order: 'products(id, body, rev)' (kvTablePrepare in
**       ext/kv.c).
**   doc_upsert(table, key, update) -> INTEGER
**       doc_update, or, when key is absent, the update applied to {}
**       ($setOnInsert included) inserted with version 1.
**   doc_schema(table, column)    table-valued (path, type, docs, example):
**       one row per JSON path (SQLite syntax, [*] for array elements) and
**       json_type() seen in the column, with the number of documents that
**       have it: the Variety/Compass report of a soft schema.
**
** kv_object and kv_pairs, between composite-key entries and one document,
** are in ext/kv_object.c.
**
** How doc_update works. The update (and options) are parsed and every
** operator, argument and path checked (conflicting paths refused) before
** the transaction. The update and the stored document are parsed
** into trees (ext/doc_json.c: strict RFC 8259 JSON, whatever the host's
** JSON5 leniency, at most NOSQL_JSON_MAX_DEPTH deep); the operators or the
** merge patch edit the document's tree, which is written back as compact
** text, every token the update did not touch as it was read. The check
** that key is unique, the read of the document and version, the edit and
** the write run as one atomic step: inside BEGIN IMMEDIATE when the
** connection is in autocommit mode (kvAtomicBegin in ext/kv.c), else
** inside the caller's transaction, which then holds its read until the
** write. An error anywhere writes nothing; a write that changes no row (a
** trigger's RAISE(IGNORE)) makes the result NULL.
**
** Statements are cached per connection, keyed by SQL text (so per table),
** in the cache owned by the doc_schema eponymous table (ext/kv.c's
** KvOwner): sqlite3_close() disconnects it, which finalizes them.
*/
#include "nosqlInt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Subtype flags newer than the build headers (3.45): unknown bits are ignored by older hosts. */
#ifndef SQLITE_RESULT_SUBTYPE
#define SQLITE_RESULT_SUBTYPE 0x001000000
#endif
#define DOC_JSON_SUBTYPE 74 /* 'J', the subtype SQLite's JSON functions give JSON text */

/* The columns of doc_update: (key, doc, version). */
static const KvLayout docLayout = {
    "a (key PRIMARY KEY, doc, version INTEGER) table", 3, {"key", "doc", "version"}, 2};

/* Statements on the document table; %s is the quoted table. */
static const char zDocRead[] = "SELECT doc, version FROM %s WHERE key = ?1";
static const char zDocWrite[] = "UPDATE %s SET doc = ?2, version = ?3 WHERE key = ?1";
static const char zDocInsert[] = "INSERT INTO %s(key, doc, version) VALUES (?1, ?2, ?3)";

/* One update being applied: the trees, and what reports errors. */
typedef struct DocEdit DocEdit;
struct DocEdit {
  sqlite3 *db;       /* The connection */
  KvOwner *pOwner;   /* Statement cache */
  DocJson j;         /* Arena of the update and the document */
  DocNode *pDoc;     /* The document (an object) */
  char *zErr;        /* First error message (sqlite3_mprintf), or NULL */
  int rc;            /* First error code */
  DocNode *pFilters; /* The arrayFilters option: an array of objects, or NULL */
  int *aFilterUsed;  /* Per array filter: a path names its identifier (arena) */
  DocFilter *
      *apFilter; /* Per array filter: compiled (ext/doc_match.c; arena array, filters freed at the end) */
  int bInsert;   /* An upsert is inserting: $setOnInsert applies */
  sqlite3_int64 iNow; /* $currentDate: milliseconds since 1970 (0: not read yet) */
};

/* Record an error (the first one wins); returns the code. */
static int docError(DocEdit *p, int rc, const char *zFmt, ...) {
  if (p->rc == SQLITE_OK) {
    va_list ap;
    va_start(ap, zFmt);
    p->zErr = zFmt ? sqlite3_vmprintf(zFmt, ap) : NULL;
    va_end(ap);
    p->rc = rc;
  }
  return p->rc;
}

/*
** Record the outcome rc of an ext/doc_match.c call made for zWhat
** ("$pull", "arrayFilters"): its message zErr (freed here), or rc alone
** when there is none (OOM). Returns p->rc.
*/
static int docFilterError(DocEdit *p, int rc, const char *zWhat, char *zErr) {
  if (rc == SQLITE_NOMEM || (rc != SQLITE_OK && zErr == NULL)) {
    docError(p, rc, NULL);
  } else if (rc != SQLITE_OK) {
    docError(p, rc, "doc_update: %s: %s", zWhat, zErr);
  }
  sqlite3_free(zErr);
  return p->rc;
}

/* Take over a fatal error of the trees (OOM, interrupt); returns p->rc. */
static int docCheck(DocEdit *p) {
  if (p->rc == SQLITE_OK && p->j.rc != SQLITE_OK) {
    if (p->j.rc == SQLITE_NOMEM) return docError(p, SQLITE_NOMEM, NULL);
    docError(p, p->j.rc, "doc_update: %s", sqlite3_errstr(p->j.rc));
  }
  return p->rc;
}

/*
** The interrupt check of long loops (DocJson.xTick): stepping a statement
** reports sqlite3_interrupt() and a progress handler's stop on every SQLite
** version (sqlite3_is_interrupted() is 3.41+).
*/
static int docTick(void *pArg) {
  DocEdit *p = (DocEdit *)pArg;
  sqlite3_stmt *pStmt = NULL;
  int bTemp = 0;
  int rc = kvCachePrepare(p->db, p->pOwner, "SELECT 1", &pStmt, &bTemp);
  if (rc != SQLITE_OK) return rc;
  rc = sqlite3_step(pStmt);
  kvCacheRelease(pStmt, bTemp);
  return rc == SQLITE_ROW ? SQLITE_OK : rc;
}

/*
** The compact JSON text of a node of the update, for an error message
** (sqlite3_mprintf), or NULL with p->rc set.
*/
static char *docJsonOf(DocEdit *p, const DocNode *pNode) {
  NosqlBuffer buf = {0, 0, 0};
  char *z = NULL;
  int rc = docJsonWrite(&p->j, pNode, &buf, sqlite3_limit(p->db, SQLITE_LIMIT_LENGTH, -1));
  if (rc == SQLITE_OK) z = sqlite3_mprintf("%s", buf.a);
  nosqlBufferFree(&buf);
  if (rc == SQLITE_OK || rc == SQLITE_NOMEM) {
    if (z == NULL) docError(p, SQLITE_NOMEM, NULL);
  } else if (rc == SQLITE_ERROR) {
    docError(p, rc, "doc_update: a value " NOSQL_JSON_DEEP, NOSQL_JSON_MAX_DEPTH);
  } else {
    docError(p, rc, "doc_update: %s", sqlite3_errstr(rc));
  }
  return z;
}

/* The update operators, in aDocOp order. */
#define DOCOP_SET 0
#define DOCOP_UNSET 1
#define DOCOP_INC 2
#define DOCOP_MUL 3
#define DOCOP_MIN 4
#define DOCOP_MAX 5
#define DOCOP_RENAME 6
#define DOCOP_CURRENTDATE 7
#define DOCOP_PUSH 8
#define DOCOP_ADDTOSET 9
#define DOCOP_POP 10
#define DOCOP_PULL 11
#define DOCOP_PULLALL 12
#define DOCOP_BIT 13
#define DOCOP_SETONINSERT 14

/* Each operator's name, and whether it creates a missing field (others leave the document alone). */
static const struct {
  const char *zName; /* As written in an update */
  int bCreate;       /* A missing field is created */
} aDocOp[] = {
    {"$set", 1}, {"$unset", 0},  {"$inc", 1},         {"$mul", 1},  {"$min", 1},
    {"$max", 1}, {"$rename", 0}, {"$currentDate", 1}, {"$push", 1}, {"$addToSet", 1},
    {"$pop", 0}, {"$pull", 0},   {"$pullAll", 0},     {"$bit", 1},  {"$setOnInsert", 1},
};

/* MongoDB pads an array with at most this many nulls to reach an index past its end. */
#define DOC_MAX_PAD 1500000

/* Kinds of path parts. */
#define DOCPART_NAME 0 /* A field name, or an index under an array */
#define DOCPART_ALL 1  /* $[]: every element of the array */
#define DOCPART_ID 2   /* $[id]: the elements that array filter id matches */

static int docPartKind(const char *z, int n) {
  if (n >= 3 && z[0] == '$' && z[1] == '[' && z[n - 1] == ']') return n == 3 ? DOCPART_ALL : DOCPART_ID;
  return DOCPART_NAME;
}

/* The identifier of array filter pFilter (a checked non-empty object): its fields' first part. */
static const char *docFilterId(const DocNode *pFilter, int *pnId) {
  int i;
  for (i = 0; i < pFilter->u.c.nItem; i++) {
    const DocMember *pM = &pFilter->u.c.aMember[i];
    const char *zDot;
    if (pM->pVal == NULL) continue;
    zDot = memchr(pM->zName, '.', (size_t)pM->nName);
    *pnId = zDot ? (int)(zDot - pM->zName) : pM->nName;
    return pM->zName;
  }
  *pnId = 0;
  return "";
}

/* The index of the array filter of identifier zId[0..nId), or -1. */
static int docFilterFind(DocEdit *p, const char *zId, int nId) {
  int i, n;
  for (i = 0; p->pFilters && i < p->pFilters->u.c.nItem; i++) {
    const char *z = docFilterId(p->pFilters->u.c.apElem[i], &n);
    if (n == nId && memcmp(z, zId, (size_t)n) == 0) return i;
  }
  return -1;
}

/*
** Whether element pElem passes array filter iFilter (for $[id]): the
** filter, compiled by docFilterCheck with doc_match's evaluator, tested on
** the document {id: element}, as MongoDB reads it.
*/
static int docArrayFilterMatch(DocEdit *p, int iFilter, DocNode *pElem) {
  int nId, bMatch = 0, rc;
  char *zErr = NULL;
  const char *zId = docFilterId(p->pFilters->u.c.apElem[iFilter], &nId);
  rc = docFilterMatchAs(p->apFilter[iFilter], &p->j, zId, nId, pElem, &bMatch, &zErr);
  docFilterError(p, rc, "arrayFilters", zErr);
  return rc == SQLITE_OK && bMatch;
}

/*
** Check a path of operator zOp: no empty part, no part starting with '$'
** but $[] and $[id] (whose identifier must have an array filter, then
** marked used); with bNoArray (for $rename) neither of those.
*/
static int docCheckPath(DocEdit *p, const char *zOp, const char *zPath, int nPath, int bNoArray) {
  int i = 0;
  if (nPath == 0) return docError(p, SQLITE_ERROR, "doc_update: %s: empty field name", zOp);
  for (;;) {
    const char *zPart = &zPath[i], *zDot = memchr(zPart, '.', (size_t)(nPath - i));
    int nPart = zDot ? (int)(zDot - zPart) : nPath - i, eKind = docPartKind(zPart, nPart), k;
    if (nPart == 0) {
      return docError(p, SQLITE_ERROR, "doc_update: %s: empty field name in '%.*s'", zOp, nPath, zPath);
    }
    if (zPart[0] == '$' && nPart == 1) {
      return docError(p, SQLITE_ERROR,
                      "doc_update: %s: the positional operator '$' in '%.*s' needs the query that found the "
                      "element, and doc_update has none: name the index, or use $[] or $[id]",
                      zOp, nPath, zPath);
    }
    if (zPart[0] == '$' && (eKind == DOCPART_NAME || bNoArray)) {
      return docError(p, SQLITE_ERROR, "doc_update: %s: field name '%.*s' in '%.*s' starts with '$'%s", zOp,
                      nPart, zPart, nPath, zPath, eKind == DOCPART_NAME ? "" : " ($rename moves one field)");
    }
    if (eKind == DOCPART_ID) {
      k = docFilterFind(p, zPart + 2, nPart - 3);
      if (k < 0) {
        return docError(p, SQLITE_ERROR, "doc_update: %s: no array filter for identifier '%.*s' in '%.*s'",
                        zOp, nPart - 3, zPart + 2, nPath, zPath);
      }
      p->aFilterUsed[k] = 1;
    }
    if (zDot == NULL) return SQLITE_OK;
    i += nPart + 1;
  }
}

/*
** Where a MongoDB dotted path (zField[0..nField), decoded) leads in the
** document: the value (pTarget, slot iItem of container pParent), or, when
** it is missing and the operator creates fields, the container pCreateIn
** (an object, or an array the path indexes at or past its end) where the
** parts from offset iRest on are to be created.
*/
typedef struct DocLoc DocLoc;
struct DocLoc {
  DocNode *pTarget;   /* The value at the path, or NULL */
  DocNode *pParent;   /* Its array or object */
  int iItem;          /* Its element or member index in pParent */
  DocNode *pCreateIn; /* Missing with bCreate: the deepest container on the path */
  int iRest;          /* Offset in zField of the first part to create */
  int nArray;         /* Bytes of the path up to the first array it indexes, or 0 */
};

static int docApplyAt(DocEdit *p, int eOp, const DocMember *pF, const char *zField, int nField,
                      const DocLoc *pLoc);

/*
** An error when the parts of zField after zRest (the '.' after a part the
** document misses; NULL: none) hold $[] or $[id]: MongoDB applies array
** updates to arrays that exist only, whatever the operator.
*/
static int docNoArrayUpdate(DocEdit *p, const char *zOp, const char *zField, int nField, const char *zRest) {
  const char *zEnd = zField + nField;
  while (zRest && zRest + 3 < zEnd && !(zRest[1] == '$' && zRest[2] == '[')) {
    zRest = memchr(zRest + 1, '.', (size_t)(zEnd - zRest - 1));
  }
  if (zRest && zRest + 3 < zEnd) {
    return docError(p, SQLITE_ERROR,
                    "doc_update: %s: the path '%.*s' must exist to apply the array update '%.*s'", zOp,
                    (int)(zRest - zField), zField, nField, zField);
  }
  return SQLITE_OK;
}

/*
** Follow zField from pNode (offset i of the path; pLoc says where pNode
** is) and apply operator eOp at every place it leads ($[] and $[id] lead
** to several), or, with pOut (paths without those), store the one place
** in *pOut. A numeric part under an array is an index, anything else an
** object key. With bCreate, the path may go on past missing fields
** (created as objects, as MongoDB does) and past an array's end (padded
** with nulls), but not through a scalar; without it, a path that leads
** nowhere applies nothing (*pOut empty). Every container on the way has
** its duplicate keys removed and is marked changed (the caller edits
** below).
*/
static int docWalkFrom(DocEdit *p, int eOp, const DocMember *pF, const char *zField, int nField,
                       DocNode *pNode, int i, DocLoc *pLoc, int bCreate, DocLoc *pOut) {
  const char *zOp = aDocOp[eOp].zName, *zRest = NULL;
  for (;;) {
    const char *zPart = &zField[i], *zDot = memchr(zPart, '.', (size_t)(nField - i));
    int nPart = zDot ? (int)(zDot - zPart) : nField - i, k, bDigits = nPart > 0,
        eKind = docPartKind(zPart, nPart);
    sqlite3_int64 iIdx = 0;
    for (k = 0; k < nPart; k++) {
      if (zPart[k] < '0' || zPart[k] > '9') bDigits = 0;
      if (bDigits && iIdx <= 4294967295) iIdx = iIdx * 10 + (zPart[k] - '0');
    }
    /*
    ** An index, as MongoDB's updates read one (parseUnsignedBase10Integer):
    ** digits whose value fits 32 bits, leading zeros allowed ("01" is 1,
    ** unlike in a query filter, docJsonArrayIndex()).
    */
    if (iIdx > 4294967295) bDigits = 0;
    if (docJsonTick(&p->j) != SQLITE_OK) return docCheck(p);
    zRest = zDot; /* What follows a part found missing */
    pNode->bRaw = 0;
    if (eKind != DOCPART_NAME) {
      int iFilter = eKind == DOCPART_ID ? docFilterFind(p, zPart + 2, nPart - 3) : -1, j;
      if (pNode->eType != DOCJ_ARRAY) {
        return docError(p, SQLITE_ERROR, "doc_update: %s: cannot apply %.*s in '%.*s' to a value of type %s",
                        zOp, nPart, zPart, nField, zField, docJsonTypeName(pNode));
      }
      for (j = 0; j < pNode->u.c.nItem && p->rc == SQLITE_OK; j++) {
        DocNode *pElem = pNode->u.c.apElem[j];
        DocLoc loc;
        if (iFilter >= 0 && !docArrayFilterMatch(p, iFilter, pElem)) {
          docCheck(p);
          continue;
        }
        memset(&loc, 0, sizeof(loc));
        loc.pParent = pNode;
        loc.iItem = j;
        loc.nArray = pLoc->nArray ? pLoc->nArray : i - 1;
        if (zDot == NULL) {
          loc.pTarget = pElem;
          docApplyAt(p, eOp, pF, zField, nField, &loc);
        } else {
          docWalkFrom(p, eOp, pF, zField, nField, pElem, i + nPart + 1, &loc, bCreate, NULL);
        }
      }
      return p->rc;
    }
    if (pNode->eType == DOCJ_ARRAY && bDigits) {
      if (pLoc->nArray == 0) pLoc->nArray = i - 1;
      if (iIdx < pNode->u.c.nItem) {
        pLoc->pParent = pNode;
        pLoc->iItem = (int)iIdx;
        pNode = pNode->u.c.apElem[iIdx];
      } else if (!bCreate) {
        goto missing;
      } else if (iIdx - pNode->u.c.nItem > DOC_MAX_PAD) {
        return docError(p, SQLITE_ERROR,
                        "doc_update: %s: index %.*s of '%.*s' is more than %d past the end of the array "
                        "(length %d)",
                        zOp, nPart, zPart, nField, zField, DOC_MAX_PAD, pNode->u.c.nItem);
      } else {
        pLoc->pCreateIn = pNode;
        pLoc->iRest = i;
        pNode = NULL;
      }
    } else if (pNode->eType == DOCJ_OBJECT) {
      docJsonObjUnique(&p->j, pNode);
      k = docJsonObjFind(&p->j, pNode, zPart, nPart);
      if (docCheck(p) != SQLITE_OK) return p->rc;
      if (k >= 0) {
        pLoc->pParent = pNode;
        pLoc->iItem = k;
        pNode = pNode->u.c.aMember[k].pVal;
      } else if (bCreate) {
        pLoc->pCreateIn = pNode;
        pLoc->iRest = i;
        pNode = NULL;
      } else {
        goto missing;
      }
    } else if (bCreate) {
      return docError(p, SQLITE_ERROR,
                      "doc_update: %s: cannot create field '%.*s' in '%.*s': its parent is of type %s", zOp,
                      nPart, zPart, nField, zField, docJsonTypeName(pNode));
    } else if (eOp != DOCOP_UNSET) {
      /*
      ** A path that could not be created even by an operator that creates
      ** ("non-viable": through a scalar, or a name under an array): MongoDB
      ** makes $pop, $pull, $pullAll and $rename's source fail on it, where
      ** a viable missing path is no change (UpdateLeafNode::checkViability,
      ** RenameNode::apply). $unset alone ignores it.
      */
      return docError(p, SQLITE_ERROR,
                      "doc_update: %s: cannot use the part '%.*s' of '%.*s' to traverse %s %s", zOp, nPart,
                      zPart, nField, zField, pNode->eType == DOCJ_ARRAY ? "an" : "a value of type",
                      docJsonTypeName(pNode));
    } else {
      goto missing;
    }
    if (pNode == NULL) {
      /* The rest is created: it may not hold array updates. */
      if (docNoArrayUpdate(p, zOp, zField, nField, zDot) != SQLITE_OK) return p->rc;
      break;
    }
    if (zDot == NULL) break;
    i += nPart + 1;
  }
  pLoc->pTarget = pNode;
  if (pNode == NULL) pLoc->pParent = NULL;
  if (pOut) {
    *pOut = *pLoc;
    return SQLITE_OK;
  }
  return docApplyAt(p, eOp, pF, zField, nField, pLoc);
missing:
  if (pOut) memset(pOut, 0, sizeof(*pOut));
  return docNoArrayUpdate(p, zOp, zField, nField, zRest);
}

/*
** Put pVal where pLoc leads: in place of the target, or created with its
** missing parents (objects; an array indexed past its end is padded with
** nulls first).
*/
static void docPut(DocEdit *p, const DocLoc *pLoc, const char *zField, int nField, DocNode *pVal) {
  DocNode *pIn = pLoc->pCreateIn, *pNull = NULL;
  int i = pLoc->iRest;
  if (pLoc->pTarget) {
    if (pLoc->pParent->eType == DOCJ_ARRAY) {
      pLoc->pParent->u.c.apElem[pLoc->iItem] = pVal;
    } else {
      pLoc->pParent->u.c.aMember[pLoc->iItem].pVal = pVal;
    }
    return;
  }
  while (p->j.rc == SQLITE_OK) {
    const char *zPart = &zField[i], *zDot = memchr(zPart, '.', (size_t)(nField - i));
    int nPart = zDot ? (int)(zDot - zPart) : nField - i, nKey = 0, k;
    DocNode *pNew = zDot ? docJsonNew(&p->j, DOCJ_OBJECT) : pVal;
    if (pNew == NULL) break;
    if (pIn->eType == DOCJ_ARRAY) {
      /* An index at or past the end (docWalkFrom checked it): nulls up to it, then the value. */
      sqlite3_int64 iIdx = 0;
      for (k = 0; k < nPart; k++) iIdx = iIdx * 10 + (zPart[k] - '0');
      if (pNull == NULL && pIn->u.c.nItem < iIdx) pNull = docJsonNew(&p->j, DOCJ_NULL);
      while (pIn->u.c.nItem < iIdx && docJsonTick(&p->j) == SQLITE_OK) docJsonArrAppend(&p->j, pIn, pNull);
      docJsonArrAppend(&p->j, pIn, pNew);
    } else {
      const char *zKey = docJsonQuote(&p->j, zPart, nPart, &nKey);
      if (zKey == NULL) break;
      docJsonObjAppend(&p->j, pIn, zKey, nKey, zPart, nPart, pNew);
    }
    if (zDot == NULL) break;
    pIn = pNew;
    i += nPart + 1;
  }
  docCheck(p);
}

/* True when pNode is a number of integral value in the int64 range (*piVal gets it). */
static int docIntegral(DocEdit *p, DocNode *pNode, sqlite3_int64 *piVal) {
  double r;
  if (!docJsonIsNumber(pNode)) return 0;
  if (docJsonNumber(&p->j, pNode, piVal, &r)) return 1;
  if (!(r >= -9223372036854775808.0 && r < 9223372036854775808.0)) return 0;
  *piVal = (sqlite3_int64)r;
  return (double)*piVal == r;
}

/* Report that the argument pVal of field pF is not what zWant says. Returns p->rc. */
static int docBadArg(DocEdit *p, const char *zOp, const DocMember *pF, DocNode *pVal, const char *zWant) {
  char *zJson = docJsonOf(p, pVal);
  if (zJson) {
    docError(p, SQLITE_ERROR, "doc_update: %s: '%.*s' needs %s, not %s", zOp, pF->nName, pF->zName, zWant,
             zJson);
  }
  sqlite3_free(zJson);
  return p->rc;
}

/* True if member pM is named zName (a literal). */
static int docIsNamed(const DocMember *pM, const char *zName) {
  int n = (int)strlen(zName);
  return pM->pVal && pM->nName == n && memcmp(pM->zName, zName, (size_t)n) == 0;
}

/* *pA * b, or 0 when it would overflow int64. */
static int docMulChecked(sqlite3_int64 *pA, sqlite3_int64 b) {
  sqlite3_int64 a = *pA;
  if (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a)
            : (b > 0 ? a < INT64_MIN / b : (a != 0 && b < INT64_MAX / a))) {
    return 0;
  }
  *pA = a * b;
  return 1;
}

/* A new number node of the shortest text of r (a NaN: null, as JSON has none), or NULL with p->rc set. */
static DocNode *docNewReal(DocEdit *p, double r) {
  NosqlBuffer buf = {0, 0, 0};
  int rc = SQLITE_OK;
  DocNode *pNew;
  /*
  ** Infinities of opposite signs: the writer would spell NaN null; a null
  ** node (not a real whose text is null, which a later operator of the
  ** same update read as 0) keeps the tree as written.
  */
  if (isnan(r)) {
    pNew = docJsonNew(&p->j, DOCJ_NULL);
  } else {
    nosqlBufferJsonReal(&rc, &buf, r);
    pNew = rc == SQLITE_OK ? docJsonNewNumber(&p->j, (const char *)buf.a, (int)buf.n, DOCJ_REAL) : NULL;
  }
  nosqlBufferFree(&buf);
  if (pNew == NULL) docError(p, SQLITE_NOMEM, NULL);
  return pNew;
}

/* A new integer node, or NULL with p->rc set. */
static DocNode *docNewInt(DocEdit *p, sqlite3_int64 v) {
  char aBuf[32];
  DocNode *pNew;
  sqlite3_snprintf((int)sizeof(aBuf), aBuf, "%lld", v);
  pNew = docJsonNewNumber(&p->j, aBuf, (int)strlen(aBuf), DOCJ_INT);
  if (pNew == NULL) docError(p, SQLITE_NOMEM, NULL);
  return pNew;
}

/* $inc and $mul of field pF (its value the operand, checked numeric) where pLoc leads. */
static int docArith(DocEdit *p, int eOp, const DocMember *pF, const DocLoc *pLoc, const char *zField,
                    int nField) {
  const char *zOp = aDocOp[eOp].zName;
  DocNode *pOld = pLoc->pTarget, *pNew;
  sqlite3_int64 iOld, iArg;
  double rOld, rArg;
  int bIntOld, bIntArg, bMul = eOp == DOCOP_MUL;
  bIntArg = docJsonNumber(&p->j, pF->pVal, &iArg, &rArg);
  if (pOld == NULL) {
    /* $inc: the operand; $mul: a zero of the operand's type (MongoDB). */
    pNew = !bMul ? pF->pVal : bIntArg ? docNewInt(p, 0) : docNewReal(p, rArg * 0.0);
    if (pNew) docPut(p, pLoc, zField, nField, pNew);
    return p->rc;
  }
  if (!docJsonIsNumber(pOld)) {
    return docError(p, SQLITE_ERROR,
                    "doc_update: %s: cannot apply %s to '%.*s', a value of non-numeric type %s", zOp, zOp,
                    nField, zField, docJsonTypeName(pOld));
  }
  bIntOld = docJsonNumber(&p->j, pOld, &iOld, &rOld);
  if (docCheck(p) != SQLITE_OK) return p->rc;
  if (bIntOld && bIntArg) {
    sqlite3_int64 v = iOld;
    if (bMul ? !docMulChecked(&v, iArg) : !kvAddChecked(&v, iArg)) {
      return docError(p, SQLITE_ERROR, "doc_update: %s: '%.*s' would overflow: %lld %c %lld", zOp, nField,
                      zField, iOld, bMul ? '*' : '+', iArg);
    }
    pNew = docNewInt(p, v);
  } else {
    /* Integers beyond int64 are doubles here already; the result is written as the shortest exact text. */
    pNew = docNewReal(p, bMul ? rOld * rArg : rOld + rArg);
  }
  if (pNew) docPut(p, pLoc, zField, nField, pNew);
  return p->rc;
}

/* $min and $max: the value replaces the field when it is smaller (larger) in MongoDB's order. */
static int docMinMax(DocEdit *p, int eOp, const DocMember *pF, const DocLoc *pLoc, const char *zField,
                     int nField) {
  int c;
  if (pLoc->pTarget) {
    c = docJsonCompare(&p->j, pLoc->pTarget, pF->pVal);
    if (docCheck(p) != SQLITE_OK || (eOp == DOCOP_MIN ? c <= 0 : c >= 0)) return p->rc;
  }
  docPut(p, pLoc, zField, nField, pF->pVal);
  return p->rc;
}

/*
** What $currentDate sets for field pF: 0 a date, 1 a timestamp (true, false
** and {} are dates, as in MongoDB), -1 after an error.
*/
static int docDateKind(DocEdit *p, const DocMember *pF) {
  DocNode *pVal = pF->pVal;
  int i, eKind = 0;
  if (pVal->eType == DOCJ_TRUE || pVal->eType == DOCJ_FALSE) return 0;
  if (pVal->eType != DOCJ_OBJECT) {
    docBadArg(p, "$currentDate", pF, pVal, "true or {\"$type\": \"date\"} or {\"$type\": \"timestamp\"}");
    return -1;
  }
  for (i = 0; i < pVal->u.c.nItem; i++) {
    const DocMember *pM = &pVal->u.c.aMember[i];
    const char *z;
    int n = 0;
    if (pM->pVal == NULL) continue;
    if (!docIsNamed(pM, "$type")) {
      docError(p, SQLITE_ERROR,
               "doc_update: $currentDate: unknown option '%.*s' for '%.*s' (valid options: $type)", pM->nName,
               pM->zName, pF->nName, pF->zName);
      return -1;
    }
    z = pM->pVal->eType == DOCJ_TEXT ? docJsonText(&p->j, pM->pVal, &n) : NULL;
    if (z && n == 4 && memcmp(z, "date", 4) == 0) {
      eKind = 0;
    } else if (z && n == 9 && memcmp(z, "timestamp", 9) == 0) {
      eKind = 1;
    } else {
      if (docCheck(p) == SQLITE_OK)
        docBadArg(p, "$currentDate", pF, pM->pVal, "$type \"date\" or \"timestamp\"");
      return -1;
    }
  }
  return eKind;
}

/*
** $currentDate: the time of the update (read once per update from the
** database's VFS, as SQLite's 'now'): a date is the ISO-8601 UTC text
** "YYYY-MM-DDTHH:MM:SS.mmmZ", a timestamp the integer milliseconds since
** 1970-01-01 (JSON has neither type: docs/documents.md).
*/
static int docCurrentDate(DocEdit *p, const DocMember *pF, const DocLoc *pLoc, const char *zField,
                          int nField) {
  int eKind = docDateKind(p, pF);
  DocNode *pNew;
  if (eKind < 0) return p->rc;
  if (p->iNow == 0) {
    sqlite3_vfs *pVfs = NULL;
    sqlite3_int64 t = 0;
    sqlite3_file_control(p->db, "main", SQLITE_FCNTL_VFS_POINTER, &pVfs);
    if (pVfs == NULL) pVfs = sqlite3_vfs_find(NULL);
    if (pVfs && pVfs->iVersion >= 2 && pVfs->xCurrentTimeInt64) {
      pVfs->xCurrentTimeInt64(pVfs, &t);
    } else if (pVfs) {
      double r = 0.0;
      pVfs->xCurrentTime(pVfs, &r);
      t = (sqlite3_int64)(r * 86400000.0);
    }
    /* Julian-day milliseconds to Unix-epoch milliseconds. */
    p->iNow = t - 210866760000000LL;
  }
  if (eKind == 1) {
    pNew = docNewInt(p, p->iNow);
  } else {
    /* The civil date of day z (days since 1970-01-01; a 400-year era has 146,097 days). */
    sqlite3_int64 ms = p->iNow, z = ms >= 0 ? ms / 86400000 : -((-ms + 86399999) / 86400000), era, doe, yoe,
                  y, doy, mp, d, m, t = ms - z * 86400000;
    char aBuf[40];
    z += 719468; /* Days from 0000-03-01 */
    era = (z >= 0 ? z : z - 146096) / 146097;
    doe = z - era * 146097;
    yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    mp = (5 * doy + 2) / 153;
    d = doy - (153 * mp + 2) / 5 + 1;
    m = mp < 10 ? mp + 3 : mp - 9;
    y = yoe + era * 400 + (m <= 2);
    sqlite3_snprintf((int)sizeof(aBuf), aBuf, "\"%04lld-%02lld-%02lldT%02lld:%02lld:%02lld.%03lldZ\"", y, m,
                     d, t / 3600000, t / 60000 % 60, t / 1000 % 60, t % 1000);
    /* A string token, made as a number token is (docJsonNewNumber copies any scalar token). */
    pNew = docJsonNewNumber(&p->j, aBuf, (int)strlen(aBuf), DOCJ_TEXT);
    if (pNew == NULL) docError(p, SQLITE_NOMEM, NULL);
  }
  if (pNew) docPut(p, pLoc, zField, nField, pNew);
  return p->rc;
}

/* The array at pLoc for operator zOp, or NULL: missing (p->rc OK) or not an array (an error). */
static DocNode *docArrayAt(DocEdit *p, const char *zOp, const DocLoc *pLoc, const char *zField, int nField) {
  DocNode *pArr = pLoc->pTarget;
  if (pArr && pArr->eType != DOCJ_ARRAY) {
    docError(p, SQLITE_ERROR, "doc_update: %s: the field '%.*s' must be an array but is of type %s", zOp,
             nField, zField, docJsonTypeName(pArr));
    return NULL;
  }
  if (pArr) pArr->bRaw = 0;
  return pArr;
}

/* $pop: 1 removes the last element, -1 the first. */
static int docPop(DocEdit *p, const DocMember *pF, const DocLoc *pLoc, const char *zField, int nField) {
  DocNode *pArr = docArrayAt(p, "$pop", pLoc, zField, nField);
  sqlite3_int64 iDir = 0;
  if (pArr == NULL || pArr->u.c.nItem == 0) return p->rc;
  docIntegral(p, pF->pVal, &iDir);
  if (iDir < 0) {
    memmove(pArr->u.c.apElem, pArr->u.c.apElem + 1, sizeof(DocNode *) * (size_t)(pArr->u.c.nItem - 1));
  }
  pArr->u.c.nItem--;
  return p->rc;
}

/* One value of a hash set of values: its hash and node (NULL: a free slot). */
typedef struct DocSetSlot DocSetSlot;
struct DocSetSlot {
  sqlite3_uint64 h; /* docJsonHash() of pNode */
  DocNode *pNode;   /* The value, or NULL */
};

/* A hash set of values, equal as docJsonEqual() says (open addressing, at most half full). */
typedef struct DocSet DocSet;
struct DocSet {
  DocSetSlot *aSlot;   /* The slots (sqlite3_malloc64) */
  sqlite3_int64 nSlot; /* A power of two */
};

/* Room for nValue values; SQLITE_OK or SQLITE_NOMEM (recorded). */
static int docSetInit(DocEdit *p, DocSet *pSet, sqlite3_int64 nValue) {
  pSet->nSlot = 16;
  while (pSet->nSlot < 2 * nValue) pSet->nSlot *= 2;
  pSet->aSlot = (DocSetSlot *)sqlite3_malloc64(sizeof(DocSetSlot) * (sqlite3_uint64)pSet->nSlot);
  if (pSet->aSlot == NULL) return docError(p, SQLITE_NOMEM, NULL);
  memset(pSet->aSlot, 0, sizeof(DocSetSlot) * (size_t)pSet->nSlot);
  return SQLITE_OK;
}

/* The slot of the set holding a value equal to pVal (hash h), or the free slot where it would go. */
static DocSetSlot *docSetSlot(DocEdit *p, DocSet *pSet, DocNode *pVal, sqlite3_uint64 h) {
  sqlite3_int64 k = (sqlite3_int64)(h & (sqlite3_uint64)(pSet->nSlot - 1));
  while (pSet->aSlot[k].pNode &&
         !(pSet->aSlot[k].h == h && docJsonEqual(&p->j, pSet->aSlot[k].pNode, pVal))) {
    k = (k + 1) & (pSet->nSlot - 1);
  }
  return &pSet->aSlot[k];
}

/* $pullAll: removes every element equal to one of the values (a hash set of them: linear). */
static int docPullAll(DocEdit *p, const DocMember *pF, const DocLoc *pLoc, const char *zField, int nField) {
  DocNode *pArr = docArrayAt(p, "$pullAll", pLoc, zField, nField), *pVals = pF->pVal;
  DocSet set;
  int i, j;
  if (pArr == NULL || docSetInit(p, &set, pVals->u.c.nItem) != SQLITE_OK) return p->rc;
  for (i = 0; i < pVals->u.c.nItem && docJsonTick(&p->j) == SQLITE_OK; i++) {
    sqlite3_uint64 h = docJsonHash(&p->j, pVals->u.c.apElem[i]);
    DocSetSlot *pSlot = docSetSlot(p, &set, pVals->u.c.apElem[i], h);
    pSlot->h = h;
    pSlot->pNode = pVals->u.c.apElem[i];
  }
  for (i = j = 0; i < pArr->u.c.nItem && docJsonTick(&p->j) == SQLITE_OK; i++) {
    DocNode *pElem = pArr->u.c.apElem[i];
    if (docSetSlot(p, &set, pElem, docJsonHash(&p->j, pElem))->pNode == NULL) pArr->u.c.apElem[j++] = pElem;
  }
  sqlite3_free(set.aSlot);
  if (docCheck(p) == SQLITE_OK) pArr->u.c.nItem = j;
  return p->rc;
}

/* Check the argument of $bit: a non-empty document of and, or, xor with integer operands. */
static int docBitCheck(DocEdit *p, const DocMember *pF) {
  DocNode *pVal = pF->pVal;
  int i, n = 0;
  sqlite3_int64 v;
  double r;
  if (pVal->eType != DOCJ_OBJECT) return docBadArg(p, "$bit", pF, pVal, "a document such as {\"and\": 5}");
  for (i = 0; i < pVal->u.c.nItem; i++) {
    const DocMember *pM = &pVal->u.c.aMember[i];
    if (pM->pVal == NULL) continue;
    n++;
    if (!docIsNamed(pM, "and") && !docIsNamed(pM, "or") && !docIsNamed(pM, "xor")) {
      return docError(p, SQLITE_ERROR,
                      "doc_update: $bit: unknown bitwise operation '%.*s' for '%.*s' (expected and, or, xor)",
                      pM->nName, pM->zName, pF->nName, pF->zName);
    }
    if (pM->pVal->eType != DOCJ_INT || !docJsonNumber(&p->j, pM->pVal, &v, &r)) {
      char *zJson = docJsonOf(p, pM->pVal);
      if (zJson) {
        docError(p, SQLITE_ERROR,
                 "doc_update: $bit: the %.*s operand of '%.*s' must be a 64-bit integer, not %s", pM->nName,
                 pM->zName, pF->nName, pF->zName, zJson);
      }
      sqlite3_free(zJson);
      return p->rc;
    }
  }
  if (n == 0) {
    return docError(p, SQLITE_ERROR, "doc_update: $bit: '%.*s' needs at least one of and, or, xor", pF->nName,
                    pF->zName);
  }
  return SQLITE_OK;
}

/* $bit: and, or, xor applied in order to the integer (a missing field starts at 0). */
static int docBit(DocEdit *p, const DocMember *pF, const DocLoc *pLoc, const char *zField, int nField) {
  DocNode *pOld = pLoc->pTarget, *pVal = pF->pVal, *pNew;
  sqlite3_int64 v = 0, w;
  double r;
  int i;
  if (pOld && (pOld->eType != DOCJ_INT || !docJsonNumber(&p->j, pOld, &v, &r))) {
    return docError(
        p, SQLITE_ERROR,
        "doc_update: $bit: cannot apply $bit to '%.*s', a value that is not a 64-bit integer (%s)", nField,
        zField, pOld->eType == DOCJ_INT ? "beyond int64" : docJsonTypeName(pOld));
  }
  for (i = 0; i < pVal->u.c.nItem; i++) {
    const DocMember *pM = &pVal->u.c.aMember[i];
    if (pM->pVal == NULL) continue;
    docJsonNumber(&p->j, pM->pVal, &w, &r);
    if (pM->zName[0] == 'a') {
      v &= w;
    } else if (pM->zName[0] == 'o') {
      v |= w;
    } else {
      v ^= w;
    }
  }
  pNew = docNewInt(p, v);
  if (pNew) docPut(p, pLoc, zField, nField, pNew);
  return p->rc;
}

/* The modifiers of a $push: the values, where they go, the order and the length kept. */
typedef struct DocPushMods DocPushMods;
struct DocPushMods {
  DocNode **aVal;          /* The values to push */
  int nVal;                /* How many */
  DocNode *pOne;           /* aVal of a single value */
  int bSlice;              /* $slice given */
  sqlite3_int64 iSlice;    /* Its value */
  sqlite3_int64 iPosition; /* $position (default: the end) */
  int bPosition;           /* $position given */
  DocNode *pSort;          /* $sort: NULL, 1 or -1 (whole values), or a document of fields */
};

/*
** Read the argument of $push of field pF: a document with a $each field
** (anywhere) is a modifier document, whose other fields must be $slice,
** $sort and $position, each once; any other value, a document with other
** $-fields included, is the one value to push (MongoDB decides so).
*/
static int docPushMods(DocEdit *p, const DocMember *pF, DocPushMods *pM) {
  DocNode *pVal = pF->pVal;
  int i, bEach = 0;
  memset(pM, 0, sizeof(*pM));
  for (i = 0; pVal->eType == DOCJ_OBJECT && i < pVal->u.c.nItem; i++) {
    if (docIsNamed(&pVal->u.c.aMember[i], "$each")) bEach = 1;
  }
  if (!bEach) {
    pM->pOne = pVal;
    pM->aVal = &pM->pOne;
    pM->nVal = 1;
    return SQLITE_OK;
  }
  for (i = 0; i < pVal->u.c.nItem; i++) {
    const DocMember *pMod = &pVal->u.c.aMember[i];
    static const char *azMod[] = {"$each", "$slice", "$sort", "$position"};
    int k, j;
    if (pMod->pVal == NULL) continue;
    for (k = 0; k < 4 && !docIsNamed(pMod, azMod[k]); k++) {
    }
    if (k == 4) {
      return docError(
          p, SQLITE_ERROR,
          "doc_update: $push: unknown modifier '%.*s' for '%.*s' (expected $each, $slice, $sort, $position)",
          pMod->nName, pMod->zName, pF->nName, pF->zName);
    }
    for (j = 0; j < i; j++) {
      if (docIsNamed(&pVal->u.c.aMember[j], azMod[k])) {
        return docError(p, SQLITE_ERROR, "doc_update: $push: '%.*s' has two %s modifiers", pF->nName,
                        pF->zName, azMod[k]);
      }
    }
    switch (k) {
      case 0:
        if (pMod->pVal->eType != DOCJ_ARRAY)
          return docBadArg(p, "$push", pF, pMod->pVal, "an array in $each");
        pM->aVal = pMod->pVal->u.c.apElem;
        pM->nVal = pMod->pVal->u.c.nItem;
        break;
      case 1:
        if (!docIntegral(p, pMod->pVal, &pM->iSlice)) {
          return docBadArg(p, "$push", pF, pMod->pVal, "an integer in $slice");
        }
        pM->bSlice = 1;
        break;
      case 2: {
        sqlite3_int64 iDir = 0;
        DocNode *pSort = pMod->pVal;
        if (pSort->eType == DOCJ_OBJECT) {
          int nField = 0;
          for (j = 0; j < pSort->u.c.nItem; j++) {
            const DocMember *pS = &pSort->u.c.aMember[j];
            const char *z;
            if (pS->pVal == NULL) continue;
            nField++;
            if (!docIntegral(p, pS->pVal, &iDir) || (iDir != 1 && iDir != -1)) {
              return docBadArg(p, "$push", pF, pS->pVal, "1 or -1 for each $sort field");
            }
            for (z = pS->zName; z < pS->zName + pS->nName; z++) {
              if (*z == '.' && (z == pS->zName || z + 1 == pS->zName + pS->nName || z[1] == '.')) break;
            }
            if (pS->nName == 0 || z < pS->zName + pS->nName) {
              return docError(p, SQLITE_ERROR,
                              "doc_update: $push: $sort field '%.*s' of '%.*s' has an empty part", pS->nName,
                              pS->zName, pF->nName, pF->zName);
            }
          }
          if (nField == 0) return docBadArg(p, "$push", pF, pSort, "fields in its $sort document");
        } else if (!docIntegral(p, pSort, &iDir) || (iDir != 1 && iDir != -1)) {
          return docBadArg(p, "$push", pF, pSort, "$sort 1, -1 or a document of fields with 1 or -1");
        }
        pM->pSort = pSort;
        break;
      }
      default:
        if (!docIntegral(p, pMod->pVal, &pM->iPosition)) {
          return docBadArg(p, "$push", pF, pMod->pVal, "an integer in $position");
        }
        pM->bPosition = 1;
        break;
    }
  }
  return SQLITE_OK;
}

/*
** The value of field zName[0..nName) (dotted) of pElem for $sort, or pNull
** when it has none. A part picks an array element only as its name ("1",
** not "01"), as MongoDB extracts sort keys.
*/
static DocNode *docSortKey(DocEdit *p, DocNode *pElem, const char *zName, int nName, DocNode *pNull) {
  int i = 0;
  for (;;) {
    const char *zPart = &zName[i], *zDot = memchr(zPart, '.', (size_t)(nName - i));
    int nPart = zDot ? (int)(zDot - zPart) : nName - i, k, iIdx = docJsonArrayIndex(zPart, nPart);
    if (pElem->eType == DOCJ_OBJECT) {
      k = docJsonObjFind(&p->j, pElem, zPart, nPart);
      if (k < 0) return pNull;
      pElem = pElem->u.c.aMember[k].pVal;
    } else if (pElem->eType == DOCJ_ARRAY && iIdx >= 0 && iIdx < pElem->u.c.nItem) {
      pElem = pElem->u.c.apElem[iIdx];
    } else {
      return pNull;
    }
    if (zDot == NULL) return pElem;
    i += nPart + 1;
  }
}

/* Compare two elements as $sort pSort orders them (a non-document has every field null). */
static int docSortCompare(DocEdit *p, DocNode *pSort, DocNode *pNull, DocNode *a, DocNode *b) {
  sqlite3_int64 iDir = 1;
  int i, c;
  if (pSort->eType != DOCJ_OBJECT) {
    docIntegral(p, pSort, &iDir);
    c = docJsonCompare(&p->j, a, b);
    return iDir < 0 ? -c : c;
  }
  for (i = 0; i < pSort->u.c.nItem; i++) {
    const DocMember *pS = &pSort->u.c.aMember[i];
    if (pS->pVal == NULL) continue;
    c = docJsonCompare(&p->j, docSortKey(p, a, pS->zName, pS->nName, pNull),
                       docSortKey(p, b, pS->zName, pS->nName, pNull));
    if (c) {
      docIntegral(p, pS->pVal, &iDir);
      return iDir < 0 ? -c : c;
    }
  }
  return 0;
}

/*
** Sort a[0..n) by pSort, stably, using aTmp[0..n): a bottom-up merge sort
** (n log n comparisons) that copies two neighbouring runs already in order
** without merging them, so that an array kept sorted, the usual case of
** $push with $sort, costs about 2n comparisons.
*/
static void docSortNodes(DocEdit *p, DocNode *pSort, DocNode *pNull, DocNode **a, DocNode **aTmp, int n) {
  int nRun, i;
  for (nRun = 1; nRun < n && p->j.rc == SQLITE_OK; nRun *= 2) {
    for (i = 0; i < n; i += 2 * nRun) {
      int iA = i, iB = i + nRun < n ? i + nRun : n, iEndA = iB, iEndB = i + 2 * nRun < n ? i + 2 * nRun : n,
          k = i;
      if (iB < iEndB && docSortCompare(p, pSort, pNull, a[iB], a[iB - 1]) >= 0) {
        memcpy(&aTmp[i], &a[i], sizeof(DocNode *) * (size_t)(iEndB - i)); /* Already in order */
        continue;
      }
      while (iA < iEndA && iB < iEndB) {
        docJsonTick(&p->j);
        aTmp[k++] = docSortCompare(p, pSort, pNull, a[iB], a[iA]) < 0 ? a[iB++] : a[iA++];
      }
      while (iA < iEndA) aTmp[k++] = a[iA++];
      while (iB < iEndB) aTmp[k++] = a[iB++];
    }
    memcpy(a, aTmp, sizeof(DocNode *) * (size_t)n);
  }
}

/*
** $push with its modifiers, in MongoDB's order: the values go in at
** $position (from the end when negative; the end by default), then the
** array is sorted by $sort, then cut to $slice elements (the first ones,
** or with a negative $slice the last ones).
*/
static int docPush(DocEdit *p, const DocMember *pF, const DocLoc *pLoc, const char *zField, int nField) {
  DocNode *pArr = docArrayAt(p, "$push", pLoc, zField, nField), **aNew;
  DocPushMods m;
  sqlite3_int64 iAt, nTotal;
  int n;
  if (p->rc != SQLITE_OK || docPushMods(p, pF, &m) != SQLITE_OK) return p->rc;
  if (pArr == NULL) {
    /* A missing field becomes an array (its parents objects). */
    pArr = docJsonNew(&p->j, DOCJ_ARRAY);
    if (pArr == NULL) return docError(p, SQLITE_NOMEM, NULL);
    docPut(p, pLoc, zField, nField, pArr);
    if (p->rc != SQLITE_OK) return p->rc;
  }
  n = pArr->u.c.nItem;
  nTotal = (sqlite3_int64)n + m.nVal;
  if (!m.bPosition || m.iPosition > n) {
    iAt = n;
  } else if (m.iPosition >= 0) {
    iAt = m.iPosition;
  } else {
    iAt = m.iPosition > -(sqlite3_int64)n ? n + m.iPosition : 0; /* From the end; the front when past it */
  }
  if (nTotal > 0x7fffffff) return docError(p, SQLITE_TOOBIG, "doc_update: string or blob too big");
  if (m.nVal > 0) {
    aNew = (DocNode **)docJsonAlloc(&p->j, (sqlite3_int64)sizeof(DocNode *) * nTotal);
    if (aNew == NULL) return docCheck(p);
    if (n > 0) memcpy(aNew, pArr->u.c.apElem, sizeof(DocNode *) * (size_t)iAt);
    memcpy(aNew + iAt, m.aVal, sizeof(DocNode *) * (size_t)m.nVal);
    if (n > 0) memcpy(aNew + iAt + m.nVal, pArr->u.c.apElem + iAt, sizeof(DocNode *) * (size_t)(n - iAt));
    pArr->u.c.apElem = aNew;
    pArr->u.c.nItem = pArr->u.c.nAlloc = (int)nTotal;
  }
  if (m.pSort && pArr->u.c.nItem > 1) {
    DocNode *pNull = docJsonNew(&p->j, DOCJ_NULL);
    DocNode **aTmp = (DocNode **)sqlite3_malloc64(sizeof(DocNode *) * (sqlite3_uint64)pArr->u.c.nItem);
    if (aTmp == NULL || pNull == NULL) {
      sqlite3_free(aTmp);
      return docError(p, SQLITE_NOMEM, NULL);
    }
    docSortNodes(p, m.pSort, pNull, pArr->u.c.apElem, aTmp, pArr->u.c.nItem);
    sqlite3_free(aTmp);
  }
  if (m.bSlice) {
    sqlite3_int64 nKeep = m.iSlice >= 0 ? m.iSlice : m.iSlice == INT64_MIN ? INT64_MAX : -m.iSlice;
    if (nKeep < pArr->u.c.nItem) {
      if (m.iSlice < 0) {
        memmove(pArr->u.c.apElem, pArr->u.c.apElem + (pArr->u.c.nItem - nKeep),
                sizeof(DocNode *) * (size_t)nKeep);
      }
      pArr->u.c.nItem = (int)nKeep;
    }
  }
  pArr->bRaw = 0;
  return docCheck(p);
}

/* Compile the condition of $pull field pF (ext/doc_match.c, DOC_FILTER_PULL): as docFilterCompile(). */
static int docPullCompile(DocEdit *p, const DocMember *pF, DocFilter **ppFilter, char **pzErr) {
  char *zPath = sqlite3_mprintf("%.*s", pF->nName, pF->zName);
  int rc = zPath ? docFilterCompile(&p->j, pF->pVal, DOC_FILTER_PULL, zPath, ppFilter, pzErr) : SQLITE_NOMEM;
  sqlite3_free(zPath);
  return rc;
}

/*
** Check the condition of $pull field pF before anything is applied, as
** MongoDB parses it: whatever the document holds (no array at the path, no
** document at all for an upsert that inserts), a condition it refuses
** ({"$foo": 1}, $where, $text, a bad $regex) is an error.
*/
static int docPullCheck(DocEdit *p, const DocMember *pF) {
  DocFilter *pFilter = NULL;
  char *zErr = NULL;
  int rc = docPullCompile(p, pF, &pFilter, &zErr);
  docFilterFree(pFilter);
  return docFilterError(p, rc, "$pull", zErr);
}

/*
** $pull of field pF from array pArr: removes the elements that match its
** value as MongoDB reads it (ext/doc_match.c, DOC_FILTER_PULL): a value
** other than an object removes the elements equal to it; an object of
** operators ({"$gte": 6}) is conditions on each element; any other object
** ({"qty": {"$lt": 5}}) is a query that elements which are documents must
** match. The filter is compiled once for the whole array.
*/
static int docPull(DocEdit *p, const DocMember *pF, DocNode *pArr) {
  DocFilter *pFilter = NULL;
  char *zErr = NULL;
  int rc = docPullCompile(p, pF, &pFilter, &zErr), i, j;
  pArr->bRaw = 0;
  for (i = j = 0; rc == SQLITE_OK && i < pArr->u.c.nItem && docJsonTick(&p->j) == SQLITE_OK; i++) {
    DocNode *pElem = pArr->u.c.apElem[i];
    int bMatch = 0;
    rc = docFilterMatch(pFilter, &p->j, pElem, &bMatch, &zErr);
    if (!bMatch) pArr->u.c.apElem[j++] = pElem;
  }
  docFilterFree(pFilter);
  docFilterError(p, rc, "$pull", zErr);
  if (docCheck(p) == SQLITE_OK) pArr->u.c.nItem = j;
  return p->rc;
}

/*
** $addToSet of aItem[0..nItem) to array pArr: each value not equal to an
** element already there (or added before it) is appended. One hash set of
** the elements makes it linear.
*/
static void docAddToSet(DocEdit *p, DocNode *pArr, DocNode **aItem, int nItem) {
  DocSet set;
  int i;
  if (docSetInit(p, &set, (sqlite3_int64)pArr->u.c.nItem + nItem) != SQLITE_OK) return;
  for (i = -pArr->u.c.nItem; i < nItem && docJsonTick(&p->j) == SQLITE_OK; i++) {
    /* i < 0: the elements already there, all kept; i >= 0: the new values. */
    DocNode *pVal = i < 0 ? pArr->u.c.apElem[pArr->u.c.nItem + i] : aItem[i];
    sqlite3_uint64 h = docJsonHash(&p->j, pVal);
    DocSetSlot *pSlot = docSetSlot(p, &set, pVal, h);
    if (pSlot->pNode && i >= 0) continue;
    if (pSlot->pNode == NULL) {
      pSlot->h = h;
      pSlot->pNode = pVal;
    }
    if (i >= 0) docJsonArrAppend(&p->j, pArr, pVal);
  }
  sqlite3_free(set.aSlot);
  docCheck(p);
}

/*
** The $each list of the value pVal of $addToSet, in *ppEach, or NULL when
** pVal is one value to add whole (a document with other $-fields
** included), as MongoDB decides: an object whose first field is $each
** (any other field is then an error). ($push reads its own: docPushMods.)
*/
static int docEachOf(DocEdit *p, const char *zOp, const DocNode *pVal, DocNode **ppEach) {
  const DocMember *pEach = NULL;
  int i;
  *ppEach = NULL;
  if (pVal->eType != DOCJ_OBJECT) return SQLITE_OK;
  for (i = 0; i < pVal->u.c.nItem && pVal->u.c.aMember[i].pVal == NULL; i++) {
  }
  if (i < pVal->u.c.nItem && docIsNamed(&pVal->u.c.aMember[i], "$each")) pEach = &pVal->u.c.aMember[i];
  if (pEach == NULL) return SQLITE_OK;
  for (i = 0; i < pVal->u.c.nItem; i++) {
    const DocMember *pM = &pVal->u.c.aMember[i];
    if (pM->pVal == NULL || pM == pEach) continue;
    return docError(p, SQLITE_ERROR, "doc_update: %s: unexpected field '%.*s' next to $each", zOp, pM->nName,
                    pM->zName);
  }
  if (pEach->pVal->eType != DOCJ_ARRAY) {
    char *zJson = docJsonOf(p, pEach->pVal);
    if (zJson) docError(p, SQLITE_ERROR, "doc_update: %s: $each needs an array, not %s", zOp, zJson);
    sqlite3_free(zJson);
    return p->rc;
  }
  *ppEach = pEach->pVal;
  return SQLITE_OK;
}

/* $addToSet ($each or one value) and $pull (one value) of field pF where pLoc leads. */
static int docArrayOp(DocEdit *p, const char *zOp, const DocMember *pF, const DocLoc *pLoc) {
  DocNode *pVal = pF->pVal, *pEach = NULL, *pArr = pLoc->pTarget;
  int bPull = strcmp(zOp, "$pull") == 0;
  if (!bPull && docEachOf(p, zOp, pVal, &pEach) != SQLITE_OK) return p->rc;
  if (pArr && pArr->eType != DOCJ_ARRAY) {
    return docError(p, SQLITE_ERROR, "doc_update: %s: the field '%.*s' must be an array but is of type %s",
                    zOp, pF->nName, pF->zName, docJsonTypeName(pArr));
  }
  if (bPull) {
    if (pArr == NULL) return SQLITE_OK; /* Nothing to pull from */
    return docPull(p, pF, pArr);
  }
  if (pArr == NULL) {
    /* A missing field becomes an array (its parents objects). */
    pArr = docJsonNew(&p->j, DOCJ_ARRAY);
    if (pArr == NULL) return docError(p, SQLITE_NOMEM, NULL);
    docPut(p, pLoc, pF->zName, pF->nName, pArr);
    if (p->rc != SQLITE_OK) return p->rc;
  }
  docAddToSet(p, pArr, pEach ? pEach->u.c.apElem : &pVal, pEach ? pEach->u.c.nItem : 1);
  return p->rc;
}

/*
** Check the argument of $rename of field pF: a string naming another
** field, neither inside the other, neither with $[] or $[id].
*/
static int docRenameCheck(DocEdit *p, const DocMember *pF) {
  const char *zTo;
  int nTo = 0, nMin;
  if (pF->pVal->eType != DOCJ_TEXT)
    return docBadArg(p, "$rename", pF, pF->pVal, "a string naming the new field");
  zTo = docJsonText(&p->j, pF->pVal, &nTo);
  if (zTo == NULL) return docCheck(p);
  if (docCheckPath(p, "$rename", pF->zName, pF->nName, 1) != SQLITE_OK) return p->rc;
  if (docCheckPath(p, "$rename", zTo, nTo, 1) != SQLITE_OK) return p->rc;
  nMin = nTo < pF->nName ? nTo : pF->nName;
  if (memcmp(zTo, pF->zName, (size_t)nMin) == 0 &&
      (nTo == pF->nName || (nTo > nMin ? zTo[nMin] : pF->zName[nMin]) == '.')) {
    return docError(
        p, SQLITE_ERROR, "doc_update: $rename: '%.*s' and '%.*s' %s", pF->nName, pF->zName, nTo, zTo,
        nTo == pF->nName ? "are the same field" : "are on the same path (one is inside the other)");
  }
  return SQLITE_OK;
}

/*
** $rename: the field moves to the new path (replacing what was there, in
** its place; parents created as objects). A missing field renames
** nothing; neither path may go through an array (MongoDB's rule).
*/
static int docRename(DocEdit *p, const DocMember *pF) {
  DocLoc loc, from, to;
  int nTo = 0;
  const char *zTo = docJsonText(&p->j, pF->pVal, &nTo);
  if (docCheck(p) != SQLITE_OK) return p->rc;
  memset(&loc, 0, sizeof(loc));
  if (docWalkFrom(p, DOCOP_RENAME, pF, pF->zName, pF->nName, p->pDoc, 0, &loc, 0, &from) != SQLITE_OK)
    return p->rc;
  if (from.pTarget == NULL) return SQLITE_OK;
  if (from.nArray) {
    return docError(p, SQLITE_ERROR, "doc_update: $rename: the field '%.*s' is inside the array '%.*s'",
                    pF->nName, pF->zName, from.nArray, pF->zName);
  }
  memset(&loc, 0, sizeof(loc));
  if (docWalkFrom(p, DOCOP_RENAME, pF, zTo, nTo, p->pDoc, 0, &loc, 1, &to) != SQLITE_OK) return p->rc;
  if (to.nArray) {
    return docError(p, SQLITE_ERROR, "doc_update: $rename: the new field '%.*s' is inside the array '%.*s'",
                    nTo, zTo, to.nArray, zTo);
  }
  from.pParent->u.c.aMember[from.iItem].pVal = NULL;
  docPut(p, &to, zTo, nTo, from.pTarget);
  return p->rc;
}

/* Check the argument of operator eOp for field pF (before anything is applied). */
static int docCheckArg(DocEdit *p, int eOp, const DocMember *pF) {
  DocNode *pVal = pF->pVal, *pEach;
  DocPushMods m;
  sqlite3_int64 v;
  switch (eOp) {
    case DOCOP_INC:
    case DOCOP_MUL:
      if (!docJsonIsNumber(pVal)) {
        char *zJson = docJsonOf(p, pVal);
        if (zJson) {
          docError(p, SQLITE_ERROR, "doc_update: %s: cannot %s '%.*s' with non-numeric argument %s",
                   aDocOp[eOp].zName, eOp == DOCOP_INC ? "increment" : "multiply", pF->nName, pF->zName,
                   zJson);
        }
        sqlite3_free(zJson);
      }
      break;
    case DOCOP_POP:
      if (!docIntegral(p, pVal, &v) || (v != 1 && v != -1)) docBadArg(p, "$pop", pF, pVal, "1 or -1");
      break;
    case DOCOP_PULL:
      docPullCheck(p, pF);
      break;
    case DOCOP_PULLALL:
      if (pVal->eType != DOCJ_ARRAY) docBadArg(p, "$pullAll", pF, pVal, "an array of values");
      break;
    case DOCOP_BIT:
      docBitCheck(p, pF);
      break;
    case DOCOP_CURRENTDATE:
      docDateKind(p, pF);
      break;
    case DOCOP_RENAME:
      docRenameCheck(p, pF);
      break;
    case DOCOP_PUSH:
      docPushMods(p, pF, &m);
      break;
    case DOCOP_ADDTOSET:
      docEachOf(p, "$addToSet", pVal, &pEach);
      break;
  }
  return p->rc;
}

/* Operator eOp of field pF at one place pLoc leads to (zField: the path, for creating and messages). */
static int docApplyAt(DocEdit *p, int eOp, const DocMember *pF, const char *zField, int nField,
                      const DocLoc *pLoc) {
  switch (eOp) {
    case DOCOP_SET:
    case DOCOP_SETONINSERT:
      docPut(p, pLoc, zField, nField, pF->pVal);
      break;
    case DOCOP_UNSET: /* A missing field is no error; an array element becomes null (MongoDB) */
      if (pLoc->pTarget == NULL) break;
      if (pLoc->pParent->eType == DOCJ_OBJECT) {
        pLoc->pParent->u.c.aMember[pLoc->iItem].pVal = NULL;
      } else {
        DocNode *pNull = docJsonNew(&p->j, DOCJ_NULL);
        if (pNull) docPut(p, pLoc, zField, nField, pNull);
        docCheck(p);
      }
      break;
    case DOCOP_INC:
    case DOCOP_MUL:
      docArith(p, eOp, pF, pLoc, zField, nField);
      break;
    case DOCOP_MIN:
    case DOCOP_MAX:
      docMinMax(p, eOp, pF, pLoc, zField, nField);
      break;
    case DOCOP_CURRENTDATE:
      docCurrentDate(p, pF, pLoc, zField, nField);
      break;
    case DOCOP_PUSH:
      docPush(p, pF, pLoc, zField, nField);
      break;
    case DOCOP_POP:
      docPop(p, pF, pLoc, zField, nField);
      break;
    case DOCOP_PULLALL:
      docPullAll(p, pF, pLoc, zField, nField);
      break;
    case DOCOP_BIT:
      docBit(p, pF, pLoc, zField, nField);
      break;
    default: /* $addToSet, $pull */
      docArrayOp(p, aDocOp[eOp].zName, pF, pLoc);
      break;
  }
  return p->rc;
}

/* One path an update changes, for the conflict check. */
typedef struct DocPath DocPath;
struct DocPath {
  const char *z; /* The path (decoded) */
  int n;         /* Its bytes */
  int eOp;       /* The operator (DOCOP_*) */
  int iOrder;    /* Its rank in the update */
};

/* Path order with '.' before every other byte: a path sorts just before the paths inside it. */
static int docPathCmp(const void *pA, const void *pB) {
  const DocPath *a = (const DocPath *)pA, *b = (const DocPath *)pB;
  int i;
  for (i = 0; i < a->n && i < b->n; i++) {
    int ca = a->z[i] == '.' ? 0 : (unsigned char)a->z[i] + 1,
        cb = b->z[i] == '.' ? 0 : (unsigned char)b->z[i] + 1;
    if (ca != cb) return ca - cb;
  }
  return a->n != b->n ? a->n - b->n : a->iOrder - b->iOrder;
}

/*
** Refuse an update that changes a path twice, or a path and a path inside
** it, as MongoDB does: sorted with docPathCmp, a path that holds another
** is followed by one inside it, so neighbours are enough.
*/
static int docCheckConflicts(DocEdit *p, DocPath *aPath, int nPath) {
  int i;
  qsort(aPath, (size_t)nPath, sizeof(DocPath), docPathCmp);
  for (i = 1; i < nPath; i++) {
    const DocPath *a = &aPath[i - 1], *b = &aPath[i];
    if (b->n >= a->n && memcmp(a->z, b->z, (size_t)a->n) == 0 && (b->n == a->n || b->z[a->n] == '.')) {
      const DocPath *pLate = a->iOrder > b->iOrder ? a : b, *pEarly = pLate == a ? b : a;
      return docError(
          p, SQLITE_ERROR,
          "doc_update: %s of '%.*s' conflicts with %s of '%.*s' (an update changes a path once, and "
          "not both a path and a path inside it)",
          aDocOp[pLate->eOp].zName, pLate->n, pLate->z, aDocOp[pEarly->eOp].zName, pEarly->n, pEarly->z);
    }
  }
  return SQLITE_OK;
}

/* The DOCOP_* of operator name zName[0..nName), or -1. */
static int docOpFind(const char *zName, int nName) {
  int k;
  for (k = 0; k < (int)(sizeof(aDocOp) / sizeof(aDocOp[0])); k++) {
    if (nName == (int)strlen(aDocOp[k].zName) && memcmp(zName, aDocOp[k].zName, (size_t)nName) == 0) return k;
  }
  return -1;
}

/*
** Check the MongoDB update operators of object pUpdate before the
** document is read: known operators, their arguments, their paths, no
** conflicts, every array filter used.
*/
static int docCheckOperators(DocEdit *p, DocNode *pUpdate) {
  DocPath *aPath;
  int i, f, nPath = 0, nAlloc = 0;
  for (i = 0; i < pUpdate->u.c.nItem; i++) {
    DocNode *pFields = pUpdate->u.c.aMember[i].pVal;
    if (pFields && pFields->eType == DOCJ_OBJECT) nAlloc += 2 * pFields->u.c.nItem;
  }
  aPath = (DocPath *)sqlite3_malloc64(sizeof(DocPath) * (sqlite3_uint64)(nAlloc + 1));
  if (aPath == NULL) return docError(p, SQLITE_NOMEM, NULL);
  for (i = 0; i < pUpdate->u.c.nItem && p->rc == SQLITE_OK; i++) {
    const DocMember *pOp = &pUpdate->u.c.aMember[i];
    DocNode *pFields = pOp->pVal;
    int eOp = docOpFind(pOp->zName, pOp->nName);
    if (eOp < 0) {
      docError(p, SQLITE_ERROR, "doc_update: unknown update operator '%.*s'", pOp->nName, pOp->zName);
      break;
    }
    if (pFields->eType != DOCJ_OBJECT) {
      char *zJson = docJsonOf(p, pFields);
      if (zJson)
        docError(p, SQLITE_ERROR, "doc_update: %.*s needs an object of fields, not %s", pOp->nName,
                 pOp->zName, zJson);
      sqlite3_free(zJson);
      break;
    }
    for (f = 0; f < pFields->u.c.nItem && p->rc == SQLITE_OK; f++) {
      const DocMember *pF = &pFields->u.c.aMember[f];
      if (eOp != DOCOP_RENAME && docCheckPath(p, aDocOp[eOp].zName, pF->zName, pF->nName, 0) != SQLITE_OK)
        break;
      if (docCheckArg(p, eOp, pF) != SQLITE_OK) break;
      aPath[nPath].z = pF->zName;
      aPath[nPath].n = pF->nName;
      aPath[nPath].eOp = eOp;
      aPath[nPath].iOrder = nPath;
      nPath++;
      if (eOp == DOCOP_RENAME) {
        aPath[nPath].z = docJsonText(&p->j, pF->pVal, &aPath[nPath].n);
        aPath[nPath].eOp = eOp;
        aPath[nPath].iOrder = nPath;
        nPath++;
      }
    }
  }
  if (p->rc == SQLITE_OK) docCheckConflicts(p, aPath, nPath);
  sqlite3_free(aPath);
  for (i = 0; p->rc == SQLITE_OK && p->pFilters && i < p->pFilters->u.c.nItem; i++) {
    if (!p->aFilterUsed[i]) {
      int n;
      const char *z = docFilterId(p->pFilters->u.c.apElem[i], &n);
      docError(p, SQLITE_ERROR, "doc_update: the array filter for identifier '%.*s' is not used by any path",
               n, z);
    }
  }
  return docCheck(p);
}

/* Apply the MongoDB update operators of object pUpdate (checked) to the document. */
static int docApplyOperators(DocEdit *p, DocNode *pUpdate) {
  int i, f;
  for (i = 0; i < pUpdate->u.c.nItem && p->rc == SQLITE_OK; i++) {
    const DocMember *pOp = &pUpdate->u.c.aMember[i];
    DocNode *pFields = pOp->pVal;
    int eOp = docOpFind(pOp->zName, pOp->nName);
    if (eOp == DOCOP_SETONINSERT && !p->bInsert) continue;
    for (f = 0; f < pFields->u.c.nItem && p->rc == SQLITE_OK; f++) {
      const DocMember *pF = &pFields->u.c.aMember[f];
      DocLoc loc;
      if (pF->pVal == NULL) continue;
      if (eOp == DOCOP_RENAME) {
        docRename(p, pF);
      } else {
        memset(&loc, 0, sizeof(loc));
        docWalkFrom(p, eOp, pF, pF->zName, pF->nName, p->pDoc, 0, &loc, aDocOp[eOp].bCreate, NULL);
      }
    }
  }
  return p->rc;
}

/*
** RFC 7396: the merge patch pPatch applied to pTarget (NULL: absent);
** returns the result, pTarget changed in place when it is an object, or
** NULL on OOM. Members of the patch apply one by one, in order.
*/
static DocNode *docPatch(DocEdit *p, DocNode *pTarget, DocNode *pPatch) {
  int i;
  if (pPatch->eType != DOCJ_OBJECT) return pPatch;
  if (pTarget == NULL || pTarget->eType != DOCJ_OBJECT) {
    pTarget = docJsonNew(&p->j, DOCJ_OBJECT);
    if (pTarget == NULL) return NULL;
  }
  pTarget->bRaw = 0;
  docJsonObjUnique(&p->j, pTarget);
  for (i = 0; i < pPatch->u.c.nItem && docJsonTick(&p->j) == SQLITE_OK; i++) {
    const DocMember *pM = &pPatch->u.c.aMember[i];
    int k = docJsonObjFind(&p->j, pTarget, pM->zName, pM->nName);
    DocNode *pNew;
    if (p->j.rc != SQLITE_OK) break;
    if (pM->pVal->eType == DOCJ_NULL) {
      if (k >= 0) pTarget->u.c.aMember[k].pVal = NULL;
      continue;
    }
    pNew = docPatch(p, k >= 0 ? pTarget->u.c.aMember[k].pVal : NULL, pM->pVal);
    if (pNew == NULL) break;
    if (k >= 0) {
      pTarget->u.c.aMember[k].pVal = pNew;
    } else {
      docJsonObjAppend(&p->j, pTarget, pM->zKey, pM->nKey, pM->zName, pM->nName, pNew);
    }
  }
  return p->j.rc == SQLITE_OK ? pTarget : NULL;
}

/*
** Check array filter iFilter (the options' arrayFilters): a non-empty
** object whose fields all start with one identifier (a lowercase letter,
** then letters and digits), each a condition as in doc_match; compiled
** into p->apFilter[iFilter].
*/
static int docFilterCheck(DocEdit *p, int iFilter) {
  DocNode *pFilter = p->pFilters->u.c.apElem[iFilter];
  const char *zId;
  char *zErr = NULL;
  int i, nId, rc;
  if (pFilter->eType != DOCJ_OBJECT || pFilter->u.c.nItem == 0) {
    char *zJson = docJsonOf(p, pFilter);
    if (zJson) docError(p, SQLITE_ERROR, "doc_update: arrayFilters: %s is not a non-empty object", zJson);
    sqlite3_free(zJson);
    return p->rc;
  }
  docJsonObjUnique(&p->j, pFilter);
  zId = docFilterId(pFilter, &nId);
  for (i = 0; i < pFilter->u.c.nItem; i++) {
    const DocMember *pM = &pFilter->u.c.aMember[i];
    if (pM->pVal == NULL) continue;
    if (pM->nName > 0 && pM->zName[0] == '$') {
      return docError(p, SQLITE_ERROR,
                      "doc_update: arrayFilters: top-level operator %.*s is not supported (each field of a "
                      "filter starts with its identifier)",
                      pM->nName, pM->zName);
    }
    if (pM->nName < nId || memcmp(pM->zName, zId, (size_t)nId) != 0 ||
        (pM->nName > nId && pM->zName[nId] != '.')) {
      return docError(p, SQLITE_ERROR,
                      "doc_update: arrayFilters: a filter names two identifiers, '%.*s' and '%.*s'", nId, zId,
                      pM->nName, pM->zName);
    }
  }
  for (i = 0; i < nId; i++) {
    char c = zId[i];
    if (!((c >= 'a' && c <= 'z') || (i > 0 && ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))))) {
      return docError(p, SQLITE_ERROR,
                      "doc_update: arrayFilters: identifier '%.*s' must be a lowercase letter followed by "
                      "letters and digits",
                      nId, zId);
    }
  }
  if (nId == 0) return docError(p, SQLITE_ERROR, "doc_update: arrayFilters: empty identifier");
  rc = docFilterCompile(&p->j, pFilter, DOC_FILTER_QUERY, "", &p->apFilter[iFilter], &zErr);
  return docFilterError(p, rc, "arrayFilters", zErr);
}

/*
** The options object of doc_update's fourth argument (parsed, an object):
** arrayFilters (into p->pFilters), upsert (*pbUpsert), expectedVersion
** (*pbExpect set; *pbExpectNull for null, else *piExpect).
*/
static int docOptions(DocEdit *p, DocNode *pOpt, int *pbUpsert, int *pbExpect, int *pbExpectNull,
                      sqlite3_int64 *piExpect) {
  int i, j;
  double r;
  docJsonObjUnique(&p->j, pOpt);
  for (i = 0; i < pOpt->u.c.nItem && p->rc == SQLITE_OK; i++) {
    const DocMember *pM = &pOpt->u.c.aMember[i];
    DocNode *pVal = pM->pVal;
    const char *zWant = NULL;
    if (pVal == NULL) continue;
    if (docIsNamed(pM, "arrayFilters")) {
      if (pVal->eType != DOCJ_ARRAY) {
        zWant = "an array of filters";
      } else {
        p->pFilters = pVal;
        p->aFilterUsed = (int *)docJsonAlloc(&p->j, (sqlite3_int64)sizeof(int) * (pVal->u.c.nItem + 1));
        if (docCheck(p) != SQLITE_OK) return p->rc;
        memset(p->aFilterUsed, 0, sizeof(int) * (size_t)(pVal->u.c.nItem + 1));
        p->apFilter =
            (DocFilter **)docJsonAlloc(&p->j, (sqlite3_int64)sizeof(DocFilter *) * (pVal->u.c.nItem + 1));
        if (docCheck(p) != SQLITE_OK) return p->rc;
        memset(p->apFilter, 0, sizeof(DocFilter *) * (size_t)(pVal->u.c.nItem + 1));
        for (j = 0; j < pVal->u.c.nItem && p->rc == SQLITE_OK; j++) {
          int nId;
          const char *zId;
          if (docFilterCheck(p, j) != SQLITE_OK) break;
          zId = docFilterId(pVal->u.c.apElem[j], &nId);
          if (docFilterFind(p, zId, nId) < j) {
            docError(p, SQLITE_ERROR, "doc_update: arrayFilters: two filters for identifier '%.*s'", nId,
                     zId);
          }
        }
      }
    } else if (docIsNamed(pM, "upsert")) {
      if (pVal->eType != DOCJ_TRUE && pVal->eType != DOCJ_FALSE) zWant = "true or false";
      *pbUpsert = pVal->eType == DOCJ_TRUE;
    } else if (docIsNamed(pM, "expectedVersion")) {
      *pbExpect = 1;
      *pbExpectNull = pVal->eType == DOCJ_NULL;
      if (!*pbExpectNull && (pVal->eType != DOCJ_INT || !docJsonNumber(&p->j, pVal, piExpect, &r))) {
        zWant = "an integer or null";
      }
    } else {
      static const char *const azValid[] = {"arrayFilters", "upsert", "expectedVersion", NULL};
      char *zMsg = nosqlUnknownOption("doc_update", pM->zName, pM->nName, azValid);
      docError(p, zMsg ? SQLITE_ERROR : SQLITE_NOMEM, zMsg ? "%s" : NULL, zMsg);
      sqlite3_free(zMsg);
    }
    if (zWant) {
      char *zJson = docJsonOf(p, pVal);
      if (zJson)
        docError(p, SQLITE_ERROR, "doc_update: option %.*s needs %s, not %s", pM->nName, pM->zName, zWant,
                 zJson);
      sqlite3_free(zJson);
    }
  }
  return docCheck(p);
}

/*
** Step the statement zFmt on zTable with key pKey (?1), new document
** zDoc[0..nDoc) (?2) and version iVersion (?3) when zDoc is not NULL.
** Returns the rows it changed (sqlite3_changes), or -1 after an error.
*/
static int docRun(DocEdit *p, const char *zTable, const char *zFmt, sqlite3_value *pKey, const char *zDoc,
                  sqlite3_int64 nDoc, sqlite3_int64 iVersion) {
  sqlite3_stmt *pStmt = NULL;
  int bTemp = 0, rc, nChange = -1;
  if (p->rc != SQLITE_OK) return -1;
  rc = kvTablePrepare(p->db, p->pOwner, "doc_update", zTable, &docLayout, zFmt, &pStmt, &bTemp, &p->zErr);
  if (rc != SQLITE_OK) {
    p->rc = rc;
    return -1;
  }
  if (pKey) sqlite3_bind_value(pStmt, 1, pKey);
  if (zDoc) {
    sqlite3_bind_text64(pStmt, 2, zDoc, (sqlite3_uint64)nDoc, SQLITE_STATIC, SQLITE_UTF8);
    sqlite3_bind_int64(pStmt, 3, iVersion);
  }
  rc = sqlite3_step(pStmt);
  if (rc == SQLITE_DONE) {
    nChange = sqlite3_changes(p->db);
  } else {
    const char *zMsg;
    rc = sqlite3_reset(pStmt);
    zMsg = sqlite3_errmsg(p->db);
    if (rc == SQLITE_NOMEM) {
      docError(p, rc, NULL);
    } else {
      docError(p, rc == SQLITE_OK ? SQLITE_ERROR : rc, "doc_update: %s", zMsg);
    }
  }
  kvCacheRelease(pStmt, bTemp);
  return nChange;
}

/*
** One call of doc_update or doc_upsert: its arguments as read and the
** state the steps of docUpdateRun() pass on. The update (and options) are
** parsed and checked once, before the transaction; the read, apply and
** write then run inside it (kvAtomicBegin).
*/
typedef struct DocUpdateCall DocUpdateCall;
struct DocUpdateCall {
  const char *zFunc;      /* "doc_update" or "doc_upsert", for messages */
  int bUpsert;            /* A missing key is inserted (doc_upsert, or the upsert option) */
  int bExpect;            /* An expected version was given */
  int bExpectNull;        /* ... and it is NULL: the row must have no version */
  sqlite3_int64 iExpect;  /* The expected version, when bExpect and not bExpectNull */
  const char *zTable;     /* The table argument (text of argv[0]) */
  sqlite3_value *pKey;    /* The key argument */
  DocNode *pUpdate;       /* The update, parsed into the arena */
  int nDollar;            /* Members of the update that are operators: all of them, or none */
  sqlite3_int64 iVersion; /* The row's version, then the version written */
  int bDone;              /* Nothing to write: no such key, or another writer's version */
  char *zKey;             /* The key quoted for messages, or NULL (sqlite3_free) */
};

/*
** The fourth argument: an expected version (INTEGER or NULL) or an options
** object (its text in *pzOpt). 0 when the call is over (an error is set);
** else 1.
*/
static int docUpdateArgVersion(sqlite3_context *ctx, int argc, sqlite3_value **argv, DocUpdateCall *pC,
                               const char **pzOpt) {
  int eType;
  *pzOpt = NULL;
  if (argc <= 3) return 1;
  eType = sqlite3_value_type(argv[3]);
  if (eType == SQLITE_TEXT) {
    *pzOpt = (const char *)sqlite3_value_text(argv[3]);
    if (*pzOpt == NULL) {
      sqlite3_result_error_nomem(ctx);
      return 0;
    }
  }
  if (eType == SQLITE_INTEGER) {
    pC->bExpect = 1;
    pC->iExpect = sqlite3_value_int64(argv[3]);
  } else if (eType == SQLITE_NULL) {
    pC->bExpect = pC->bExpectNull = 1;
  } else if (*pzOpt == NULL || (*pzOpt)[0] != '{') {
    char *z = nosqlValueQuote(argv[3]);
    nosqlResultError(ctx, "doc_update: expected_version %s is not an integer", z ? z : "?");
    sqlite3_free(z);
    return 0;
  }
  return 1;
}

/* Parse the options object zOpt (argv[3]) into pC and e's array filters. */
static void docUpdateParseOptions(DocEdit *p, DocUpdateCall *pC, const char *zOpt, sqlite3_value *pArg) {
  DocNode *pOpt = NULL;
  int rc = docJsonParse(&p->j, zOpt, sqlite3_value_bytes(pArg), 1, &pOpt);
  if (rc == SQLITE_ERROR) {
    /* (It starts with '{': valid JSON there is an object.) */
    char *z = nosqlValueQuote(pArg);
    docError(p, z ? SQLITE_ERROR : SQLITE_NOMEM,
             z ? "doc_update: the options object " NOSQL_JSON_AT ": %s" : NULL,
             nosqlJsonErrorAt(zOpt, sqlite3_value_bytes(pArg)), z);
    sqlite3_free(z);
  }
  if (docCheck(p) == SQLITE_OK)
    docOptions(p, pOpt, &pC->bUpsert, &pC->bExpect, &pC->bExpectNull, &pC->iExpect);
}

/*
** Parse the update zUpdate (argv[2]) into pC->pUpdate and check it: a JSON
** object of operators only ($set, $inc, ...) or of fields only (a merge
** patch), whose operators are valid and use every array filter.
*/
static void docUpdateParseUpdate(DocEdit *p, DocUpdateCall *pC, const char *zUpdate, sqlite3_value *pArg) {
  DocNode *pU = NULL;
  int i, rc;
  if (p->rc == SQLITE_OK) {
    rc = docJsonParse(&p->j, zUpdate, sqlite3_value_bytes(pArg), 1, &pU);
    if (rc == SQLITE_ERROR && p->j.bDeep) {
      docError(p, SQLITE_ERROR, "doc_update: update " NOSQL_JSON_DEEP, NOSQL_JSON_MAX_DEPTH);
    } else if (rc == SQLITE_ERROR) {
      char *z = nosqlValueQuote(pArg);
      docError(p, z ? SQLITE_ERROR : SQLITE_NOMEM, z ? "%s: update " NOSQL_JSON_AT ": %s" : NULL, pC->zFunc,
               nosqlJsonErrorAt(zUpdate, sqlite3_value_bytes(pArg)), z);
      sqlite3_free(z);
    } else if (rc == SQLITE_OK && pU->eType != DOCJ_OBJECT) {
      char *z = nosqlValueQuote(pArg);
      docError(p, z ? SQLITE_ERROR : SQLITE_NOMEM, z ? "doc_update: update %s is not a JSON object" : NULL,
               z);
      sqlite3_free(z);
    }
  }
  docCheck(p);
  pC->pUpdate = pU;
  for (i = 0; p->rc == SQLITE_OK && i < pU->u.c.nItem; i++) {
    pC->nDollar += pU->u.c.aMember[i].nName > 0 && pU->u.c.aMember[i].zName[0] == '$';
  }
  if (p->rc == SQLITE_OK && pC->nDollar > 0 && pC->nDollar < pU->u.c.nItem) {
    for (i = 0; pU->u.c.aMember[i].nName > 0 && pU->u.c.aMember[i].zName[0] == '$'; i++) {
    }
    docError(p, SQLITE_ERROR, "doc_update: update mixes operators and fields ('%.*s'): use $set for fields",
             pU->u.c.aMember[i].nName, pU->u.c.aMember[i].zName);
  }
  if (p->rc == SQLITE_OK && pC->nDollar) {
    docCheckOperators(p, pU);
  } else if (p->rc == SQLITE_OK && p->pFilters && p->pFilters->u.c.nItem > 0) {
    int n;
    const char *z = docFilterId(p->pFilters->u.c.apElem[0], &n);
    docError(p, SQLITE_ERROR, "doc_update: the array filter for identifier '%.*s' is not used by any path", n,
             z);
  }
}

/*
** The stored row of the key, read by pStmt (zDocRead) and on a row: its
** version in pC->iVersion and its document parsed into p->pDoc, unless the
** version is not the expected one (pC->bDone) or the row is not usable
** (an error: a version that is not an integer or would overflow, a
** document that is not a JSON object).
*/
static void docUpdateReadRow(DocEdit *p, DocUpdateCall *pC, sqlite3_stmt *pStmt) {
  int eDoc = sqlite3_column_type(pStmt, 0), eVer = sqlite3_column_type(pStmt, 1);
  pC->iVersion = sqlite3_column_int64(pStmt, 1);
  if (eVer != SQLITE_INTEGER && eVer != SQLITE_NULL) {
    pC->zKey = nosqlValueQuote(pC->pKey);
    docError(p, SQLITE_ERROR, "doc_update: version of key %s is %s, not an integer",
             pC->zKey ? pC->zKey : "?", sqlite3_column_text(pStmt, 1));
  } else if (pC->bExpect &&
             (pC->bExpectNull ? eVer != SQLITE_NULL : (eVer == SQLITE_NULL || pC->iVersion != pC->iExpect))) {
    pC->bDone = 1; /* Another writer got there first */
  } else {
    /* Blobs and NULLs are not JSON objects; the text is copied (the nodes point into it). */
    const char *zDoc =
        eDoc == SQLITE_BLOB || eDoc == SQLITE_NULL ? NULL : (const char *)sqlite3_column_text(pStmt, 0);
    int rcParse = SQLITE_ERROR;
    if (zDoc) rcParse = docJsonParse(&p->j, zDoc, sqlite3_column_bytes(pStmt, 0), 1, &p->pDoc);
    int bMalformed = zDoc && rcParse == SQLITE_ERROR && !p->j.bDeep;
    if (rcParse == SQLITE_OK && p->pDoc->eType != DOCJ_OBJECT) rcParse = SQLITE_ERROR;
    if (zDoc == NULL && eDoc != SQLITE_BLOB && eDoc != SQLITE_NULL) {
      docError(p, SQLITE_NOMEM, NULL);
    } else if (rcParse == SQLITE_ERROR) {
      const char *zKey = (pC->zKey = nosqlValueQuote(pC->pKey)) ? pC->zKey : "?";
      if (p->j.bDeep) {
        docError(p, SQLITE_ERROR, "doc_update: the document of key %s " NOSQL_JSON_DEEP, zKey,
                 NOSQL_JSON_MAX_DEPTH);
      } else if (bMalformed) {
        char *zQuoted = nosqlValueQuote(sqlite3_column_value(pStmt, 0));
        docError(p, SQLITE_ERROR, "doc_update: the document of key %s " NOSQL_JSON_AT ": %s", zKey,
                 nosqlJsonErrorAt(zDoc, sqlite3_column_bytes(pStmt, 0)), zQuoted ? zQuoted : "?");
        sqlite3_free(zQuoted);
      } else {
        char *zQuoted = nosqlValueQuote(sqlite3_column_value(pStmt, 0));
        docError(p, SQLITE_ERROR, "doc_update: the document of key %s is not a JSON object: %s", zKey,
                 zQuoted ? zQuoted : "?");
        sqlite3_free(zQuoted);
      }
    } else if (rcParse == SQLITE_OK && pC->iVersion == INT64_MAX) {
      pC->zKey = nosqlValueQuote(pC->pKey);
      docError(p, SQLITE_ERROR, "doc_update: the version of key %s would overflow: %lld + 1",
               pC->zKey ? pC->zKey : "?", pC->iVersion);
    }
    docCheck(p);
  }
}

/*
** Inside the transaction: check the key is unique, then read its row
** (docUpdateReadRow); no row is an insert of {} for an upsert, else
** nothing to do (pC->bDone).
*/
static void docUpdateRead(DocEdit *p, DocUpdateCall *pC) {
  sqlite3_stmt *pStmt = NULL;
  int bTemp = 0, rc;
  /* key must be unique: "WHERE key = ?1" is then one row (a view is refused by the probe too). */
  if (p->rc == SQLITE_OK)
    p->rc = kvTableKeyUnique(p->db, p->pOwner, "doc_update", pC->zTable, &docLayout, 0, &p->zErr);
  if (p->rc == SQLITE_OK) {
    p->rc = kvTablePrepare(p->db, p->pOwner, "doc_update", pC->zTable, &docLayout, zDocRead, &pStmt, &bTemp,
                           &p->zErr);
  }
  if (p->rc != SQLITE_OK) return;
  sqlite3_bind_value(pStmt, 1, pC->pKey);
  rc = sqlite3_step(pStmt);
  if (rc == SQLITE_ROW) {
    docUpdateReadRow(p, pC, pStmt);
    rc = SQLITE_DONE;
  } else if (rc == SQLITE_DONE && pC->bUpsert) {
    /* No such key: an upsert inserts the update applied to {} ($setOnInsert included), version 1. */
    p->pDoc = docJsonNew(&p->j, DOCJ_OBJECT);
    p->bInsert = 1;
    docCheck(p);
  } else {
    pC->bDone = rc == SQLITE_DONE; /* No such key */
  }
  if (rc != SQLITE_DONE) docError(p, sqlite3_reset(pStmt), "doc_update: %s", sqlite3_errmsg(p->db));
  kvCacheRelease(pStmt, bTemp);
}

/*
** Apply the update to p->pDoc, write the new document to pOut and store
** it with the next version (pC->iVersion then that version; pC->bDone when
** a trigger kept the row as it was).
*/
static void docUpdateWrite(DocEdit *p, DocUpdateCall *pC, NosqlBuffer *pOut) {
  int rc;
  if (p->rc != SQLITE_OK || pC->bDone) return;
  if (pC->nDollar) {
    docApplyOperators(p, pC->pUpdate);
  } else if (docPatch(p, p->pDoc, pC->pUpdate) == NULL) {
    docCheck(p);
  }
  if (p->rc != SQLITE_OK) return;
  rc = docJsonWrite(&p->j, p->pDoc, pOut, sqlite3_limit(p->db, SQLITE_LIMIT_LENGTH, -1));
  if (rc == SQLITE_ERROR && p->j.bDeep) {
    if (pC->zKey == NULL) pC->zKey = nosqlValueQuote(pC->pKey);
    docError(p, SQLITE_ERROR, "doc_update: the document of key %s would nest deeper than %d levels",
             pC->zKey ? pC->zKey : "?", NOSQL_JSON_MAX_DEPTH);
  } else if (rc == SQLITE_TOOBIG) {
    docError(p, rc, "doc_update: string or blob too big");
  } else if (rc != SQLITE_OK) {
    p->j.rc = rc;
    docCheck(p);
  }
  if (p->rc != SQLITE_OK) return;
  /* A trigger may keep the row as it is (RAISE(IGNORE)): then no version was written. */
  if (docRun(p, pC->zTable, p->bInsert ? zDocInsert : zDocWrite, pC->pKey, (const char *)pOut->a, pOut->n,
             pC->iVersion + 1) == 0) {
    pC->bDone = 1;
  } else {
    pC->iVersion++;
  }
}

/* The result: the new version, NULL when nothing was written, or the error. */
static void docUpdateResult(sqlite3_context *ctx, int argc, DocEdit *p, DocUpdateCall *pC) {
  if (p->rc == SQLITE_NOMEM && p->zErr == NULL) {
    sqlite3_result_error_nomem(ctx);
  } else if (p->rc != SQLITE_OK) {
    /* The messages name doc_update: doc_upsert's name its own function. */
    const char *zErr = p->zErr ? p->zErr : "doc_update: out of memory";
    if (pC->bUpsert && argc == 3 && strncmp(zErr, "doc_update:", 11) == 0) {
      char *z = sqlite3_mprintf("%s:%s", pC->zFunc, zErr + 11);
      sqlite3_result_error(ctx, z ? z : zErr, -1);
      sqlite3_free(z);
    } else {
      sqlite3_result_error(ctx, zErr, -1);
    }
    sqlite3_result_error_code(ctx, p->rc);
  } else if (!pC->bDone) {
    sqlite3_result_int64(ctx, pC->iVersion);
  }
}

/*
** doc_update(table, key, update [, expected_version | options]) and, with
** bUpsert, doc_upsert(table, key, update): the arguments read and checked,
** then the read, apply and write inside one transaction (kvAtomicBegin),
** whose end the steps' errors decide.
*/
static void docUpdateRun(sqlite3_context *ctx, int argc, sqlite3_value **argv, int bUpsert) {
  DocEdit e;
  DocUpdateCall c;
  NosqlBuffer out = {0, 0, 0};
  int i, bOwn = 0, rc;
  const char *zUpdate, *zOpt = NULL;
  memset(&e, 0, sizeof(e));
  memset(&c, 0, sizeof(c));
  c.zFunc = bUpsert ? "doc_upsert" : "doc_update";
  c.bUpsert = bUpsert;
  c.pKey = argv[1];
  e.db = sqlite3_context_db_handle(ctx);
  e.pOwner = (KvOwner *)sqlite3_user_data(ctx);
  docJsonInit(&e.j, docTick, &e);
  for (i = 0; i < 3; i++) {
    if (sqlite3_value_type(argv[i]) == SQLITE_NULL) return;
  }
  if (!docUpdateArgVersion(ctx, argc, argv, &c, &zOpt)) return;
  if (sqlite3_value_type(argv[2]) == SQLITE_BLOB) {
    nosqlResultError(ctx, "%s: update is a blob, not a JSON object", c.zFunc);
    return;
  }
  if (zOpt && zOpt[0] == '{') docUpdateParseOptions(&e, &c, zOpt, argv[3]);
  c.zTable = (const char *)sqlite3_value_text(argv[0]);
  zUpdate = (const char *)sqlite3_value_text(argv[2]);
  if (c.zTable == NULL || zUpdate == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  docUpdateParseUpdate(&e, &c, zUpdate, argv[2]);
  if (e.rc == SQLITE_OK) {
    rc = kvAtomicBegin(e.db, e.pOwner, &bOwn);
    if (rc != SQLITE_OK) docError(&e, rc, "doc_update: %s", sqlite3_errmsg(e.db));
  }
  docUpdateRead(&e, &c);
  docUpdateWrite(&e, &c, &out);
  if (bOwn) {
    rc = kvAtomicEnd(e.db, e.pOwner, bOwn, e.rc);
    if (rc != SQLITE_OK && e.rc == SQLITE_OK) docError(&e, rc, "doc_update: %s", sqlite3_errmsg(e.db));
  }
  docUpdateResult(ctx, argc, &e, &c);
  sqlite3_free(e.zErr);
  sqlite3_free(c.zKey);
  nosqlBufferFree(&out);
  /* The filters point into the arena: freed first. */
  for (i = 0; e.apFilter && i < e.pFilters->u.c.nItem; i++) docFilterFree(e.apFilter[i]);
  docJsonClear(&e.j);
}

static void docUpdateFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  docUpdateRun(ctx, argc, argv, 0);
}

static void docUpsertFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  docUpdateRun(ctx, argc, argv, 1);
}

/**************************************************************************
** doc_schema(table, column): the Variety/Compass report of a soft schema.
**
**   CREATE TABLE doc_schema(
**     path,                -- '$', '$.title', '$.tracks[*].title', ...
**     type,                -- json_type() name
**     docs,                -- documents having path with that type
**     example,             -- the first scalar value seen (NULL for arrays and objects)
**     table_name HIDDEN,   -- the table (required)
**     column_name HIDDEN   -- its column of JSON documents (required)
**   );
**
** xFilter reads every document once (json_tree each) and counts, per
** (path, type), the documents that have it: the whole report is built
** before the first row. Rows come in path order, then type. It is also the
** owner of this file's statement cache (ext/kv.c's KvOwner).
*/
typedef struct doc_schema_vtab doc_schema_vtab;
typedef struct doc_schema_cursor doc_schema_cursor;
typedef struct DocPathStat DocPathStat;

struct doc_schema_vtab {
  sqlite3_vtab base; /* Base class - must be first */
  sqlite3 *db;       /* The connection */
  KvOwner *pOwner;   /* This file's per-connection state, pointing at cache when we own it */
  KvCache cache;     /* doc_update's statements */
};

/* One (path, type) of the report. */
struct DocPathStat {
  char *zKey;              /* path, a NUL, then type (one allocation) */
  const char *zType;       /* Points into zKey */
  sqlite3_int64 nDoc;      /* Documents seen with it */
  sqlite3_int64 iLastDoc;  /* Number of the last document counted (counts each document once) */
  sqlite3_value *pExample; /* First scalar seen, or NULL */
};

struct doc_schema_cursor {
  sqlite3_vtab_cursor base; /* Base class - must be first */
  DocPathStat *aStat;       /* The report, sorted once built */
  int nStat;                /* Entries used */
  int nAlloc;               /* Entries allocated (a power of two: the hash table) */
  int iRow;                 /* Current row */
  sqlite3_value *apArg[2];  /* Copies of table_name and column_name, for the HIDDEN columns */
};

#define DOC_SCHEMA_PATH 0
#define DOC_SCHEMA_TYPE 1
#define DOC_SCHEMA_DOCS 2
#define DOC_SCHEMA_EXAMPLE 3
#define DOC_SCHEMA_TABLE 4
#define DOC_SCHEMA_COLUMN 5

static int docSchemaConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                            char **pzErr) {
  KvOwner *pOwner = (KvOwner *)pAux;
  doc_schema_vtab *p;
  int rc = sqlite3_declare_vtab(
      db,
      "CREATE TABLE x(path TEXT, type TEXT, docs INTEGER, example, table_name HIDDEN, column_name HIDDEN)");
  (void)argc;
  (void)argv;
  (void)pzErr;
  if (rc != SQLITE_OK) return rc;
  p = (doc_schema_vtab *)sqlite3_malloc64(sizeof(*p));
  if (p == NULL) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->db = db;
  /* A reference of its own, as kv_counters takes (ext/kv.c): after a second
  ** load of the extension SQLite disconnects this table only at the next
  ** prepare, when the old registrations' references are gone. */
  p->pOwner = pOwner;
  pOwner->nRef++;
  if (pOwner->pCache == NULL) pOwner->pCache = &p->cache;
  *ppVtab = &p->base;
  return SQLITE_OK;
}

/* Finalizes the cached statements: sqlite3_close() calls this before it checks for open statements. */
static int docSchemaDisconnect(sqlite3_vtab *pVtab) {
  doc_schema_vtab *p = (doc_schema_vtab *)pVtab;
  if (p->pOwner->pCache == &p->cache) p->pOwner->pCache = NULL;
  kvCacheClear(&p->cache);
  kvOwnerUnref(p->pOwner);
  sqlite3_free(p);
  return SQLITE_OK;
}

/* The plan (ext/plan.c): slot a table_name, slot b column_name, both required inputs. */
static const NosqlPlanCol aDocSchemaPlan[] = {
    {DOC_SCHEMA_TABLE, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 1},
    {DOC_SCHEMA_COLUMN, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 1},
};

static int docSchemaBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo) {
  (void)pVtab;
  return nosqlPlanInputs(pInfo, aDocSchemaPlan, 2, 1e6 /* Reads every document */, 50);
}

static int docSchemaOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor) {
  (void)pVtab;
  return nosqlCursorNew(sizeof(doc_schema_cursor), ppCursor) ? SQLITE_OK : SQLITE_NOMEM;
}

static void docSchemaReset(doc_schema_cursor *pCur) {
  int i;
  for (i = 0; i < pCur->nAlloc; i++) {
    sqlite3_free(pCur->aStat[i].zKey);
    sqlite3_value_free(pCur->aStat[i].pExample);
  }
  sqlite3_free(pCur->aStat);
  pCur->aStat = NULL;
  pCur->nStat = pCur->nAlloc = pCur->iRow = 0;
}

static int docSchemaClose(sqlite3_vtab_cursor *pCursor) {
  docSchemaReset((doc_schema_cursor *)pCursor);
  nosqlPlanKeepFree(((doc_schema_cursor *)pCursor)->apArg, 2);
  sqlite3_free(pCursor);
  return SQLITE_OK;
}

/* The hash of n bytes, for the tables masked by a power of two below. */
static unsigned docHash(const char *z, int n) { return (unsigned)nosqlFnv1a(NOSQL_FNV_SEED, z, n); }

/*
** The path of one json_tree row, kept as a stack over the pre-order walk:
** the path of a node is its parent's plus ".key" or "[*]" under an array.
** A key that is not a letter followed by letters and digits is written as
** a JSON string ("q\"r", "a\\b"), as SQLite 3.54 writes fullkey; the key
** comes decoded from json_tree, so the path is the same whatever escapes
** a document used. What json_extract() makes of such a path depends on
** the version (docs/documents.md, doc_schema): 3.54 reads any; 3.46
** compares decoded keys but stops a quoted key at its first '"'; 3.44 and
** older compare the path key with the key as the document spells it.
*/
typedef struct DocPathStack DocPathStack;
struct DocPathStack {
  NosqlBuffer path;   /* The current path; a[0 .. n) */
  sqlite3_int64 *aId; /* json_tree id of each node on the stack */
  int *aLen;          /* Path length of each node on the stack */
  char *aArray;       /* Whether each node on the stack is an array */
  int nStack, nAlloc; /* Nodes on the stack, slots allocated */
};

static void docPathStackFree(DocPathStack *p) {
  nosqlBufferFree(&p->path);
  sqlite3_free(p->aId);
  sqlite3_free(p->aLen);
  sqlite3_free(p->aArray);
}

/* Push node iId (child of iParent, or the root when bRoot) named by pKey; its path is then in p->path. */
static int docPathPush(DocPathStack *p, sqlite3_int64 iId, int bRoot, sqlite3_int64 iParent,
                       sqlite3_value *pKey, int bArray) {
  int rc = SQLITE_OK;
  if (bRoot) {
    p->nStack = 0;
    nosqlBufferReset(&p->path);
    nosqlBufferAppend(&rc, &p->path, "$", 1);
  } else {
    while (p->nStack > 0 && p->aId[p->nStack - 1] != iParent) p->nStack--;
    if (p->nStack == 0) return SQLITE_CORRUPT; /* json_tree's parent is always on the stack */
    p->path.n = p->aLen[p->nStack - 1];
    if (p->aArray[p->nStack - 1]) {
      nosqlBufferAppend(&rc, &p->path, "[*]", 3);
    } else {
      const unsigned char *z = sqlite3_value_text(pKey);
      int n = sqlite3_value_bytes(pKey), i,
          bPlain = z && n > 0 && ((z[0] | 0x20) >= 'a' && (z[0] | 0x20) <= 'z');
      for (i = 1; bPlain && i < n; i++) {
        bPlain = ((z[i] | 0x20) >= 'a' && (z[i] | 0x20) <= 'z') || (z[i] >= '0' && z[i] <= '9');
      }
      nosqlBufferAppend(&rc, &p->path, ".", 1);
      if (bPlain) {
        nosqlBufferAppend(&rc, &p->path, z, n);
      } else {
        nosqlBufferJsonString(&rc, &p->path, z ? (const char *)z : "", n);
      }
    }
  }
  if (rc == SQLITE_OK && p->nStack == p->nAlloc) {
    int nNew = p->nAlloc ? p->nAlloc * 2 : 16;
    sqlite3_int64 *aId =
        (sqlite3_int64 *)sqlite3_realloc64(p->aId, sizeof(sqlite3_int64) * (sqlite3_uint64)nNew);
    int *aLen = aId ? (int *)sqlite3_realloc64(p->aLen, sizeof(int) * (sqlite3_uint64)nNew) : NULL;
    char *aArr = aLen ? (char *)sqlite3_realloc64(p->aArray, (sqlite3_uint64)nNew) : NULL;
    if (aId) p->aId = aId;
    if (aLen) p->aLen = aLen;
    if (aArr) p->aArray = aArr;
    if (aArr == NULL) return SQLITE_NOMEM;
    p->nAlloc = nNew;
  }
  if (rc != SQLITE_OK) return rc;
  p->aId[p->nStack] = iId;
  p->aLen[p->nStack] = (int)p->path.n;
  p->aArray[p->nStack] = (char)bArray;
  p->nStack++;
  return SQLITE_OK;
}

/* Count (zPath, zType) for document iDoc; pAtom is its scalar value or NULL. */
static int docSchemaAdd(doc_schema_cursor *pCur, const char *zPath, const char *zType, sqlite3_int64 iDoc,
                        sqlite3_value *pAtom) {
  int nPath = (int)strlen(zPath), nType = (int)strlen(zType), i;
  unsigned h;
  DocPathStat *pS;
  if (pCur->nStat * 2 >= pCur->nAlloc) {
    /* Grow the open-addressing table (kept at most half full). */
    int nNew = pCur->nAlloc ? pCur->nAlloc * 2 : 64;
    DocPathStat *aNew = (DocPathStat *)sqlite3_malloc64(sizeof(DocPathStat) * (sqlite3_uint64)nNew);
    if (aNew == NULL) return SQLITE_NOMEM;
    memset(aNew, 0, sizeof(DocPathStat) * (size_t)nNew);
    for (i = 0; i < pCur->nAlloc; i++) {
      DocPathStat *pOld = &pCur->aStat[i];
      unsigned j;
      if (pOld->zKey == NULL) continue;
      j = docHash(pOld->zKey, (int)(pOld->zType - pOld->zKey) + (int)strlen(pOld->zType)) &
          (unsigned)(nNew - 1);
      while (aNew[j].zKey) j = (j + 1) & (unsigned)(nNew - 1);
      aNew[j] = *pOld;
    }
    sqlite3_free(pCur->aStat);
    pCur->aStat = aNew;
    pCur->nAlloc = nNew;
  }
  {
    char *zKey = (char *)sqlite3_malloc64((sqlite3_uint64)nPath + nType + 2);
    if (zKey == NULL) return SQLITE_NOMEM;
    memcpy(zKey, zPath, (size_t)nPath + 1);
    memcpy(zKey + nPath + 1, zType, (size_t)nType + 1);
    h = docHash(zKey, nPath + 1 + nType) & (unsigned)(pCur->nAlloc - 1);
    for (pS = &pCur->aStat[h]; pS->zKey; pS = &pCur->aStat[h]) {
      if (strcmp(pS->zKey, zPath) == 0 && strcmp(pS->zType, zType) == 0) break;
      h = (h + 1) & (unsigned)(pCur->nAlloc - 1);
    }
    if (pS->zKey == NULL) {
      pS->zKey = zKey;
      pS->zType = zKey + nPath + 1;
      pS->iLastDoc = -1;
      pCur->nStat++;
    } else {
      sqlite3_free(zKey);
    }
  }
  if (pS->iLastDoc != iDoc) {
    pS->iLastDoc = iDoc;
    pS->nDoc++;
  }
  if (pS->pExample == NULL && pAtom) {
    pS->pExample = sqlite3_value_dup(pAtom);
    if (pS->pExample == NULL) return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

static int docSchemaCmp(const void *a, const void *b) {
  const DocPathStat *x = (const DocPathStat *)a, *y = (const DocPathStat *)b;
  int c;
  if (x->zKey == NULL || y->zKey == NULL) return (x->zKey == NULL) - (y->zKey == NULL);
  c = strcmp(x->zKey, y->zKey);
  return c ? c : strcmp(x->zType, y->zType);
}

static int docSchemaFilter(sqlite3_vtab_cursor *pCursor, int idxNum, const char *idxStr, int argc,
                           sqlite3_value **argv) {
  doc_schema_cursor *pCur = (doc_schema_cursor *)pCursor;
  doc_schema_vtab *p = (doc_schema_vtab *)pCursor->pVtab;
  NosqlPlanArg aArg[2];
  sqlite3_stmt *pScan = NULL, *pTree = NULL;
  char *zFmt = NULL, *zErr = NULL;
  DocPathStack stack;
  const char *zTable, *zCol;
  sqlite3_int64 iDoc = 0;
  int rc, bTemp = 0;
  (void)idxNum;
  memset(&stack, 0, sizeof(stack));
  docSchemaReset(pCur);
  if (nosqlPlanInputArgs(pCursor->pVtab, "doc_schema(table_name, column_name)", aDocSchemaPlan, 2, idxStr,
                         argc, argv, aArg) != SQLITE_OK) {
    return SQLITE_ERROR;
  }
  if (nosqlPlanKeep(aArg, 2, pCur->apArg) != SQLITE_OK) return SQLITE_NOMEM;
  if (sqlite3_value_type(aArg[0].pEq) == SQLITE_NULL || sqlite3_value_type(aArg[1].pEq) == SQLITE_NULL) {
    return SQLITE_OK;
  }
  zTable = (const char *)sqlite3_value_text(aArg[0].pEq);
  zCol = (const char *)sqlite3_value_text(aArg[1].pEq);
  if (zTable == NULL || zCol == NULL) return SQLITE_NOMEM;
  /* The scan is prepared per query (not cached): it runs once per report. */
  /* Qualified, so that a missing column is an error, not a string literal (SQLite's double-quote fallback).
   */
  zFmt = sqlite3_mprintf("SELECT doc_schema_t.\"%w\" FROM %%s AS doc_schema_t", zCol);
  if (zFmt == NULL) return SQLITE_NOMEM;
  {
    /* The column is an argument of its own: no column form. */
    static const KvLayout schemaLayout = {"a table and one of its columns", 0, {NULL, NULL, NULL}, -1};
    KvOwner noCache = {1, NULL, ""};
    rc = kvTablePrepare(p->db, &noCache, "doc_schema", zTable, &schemaLayout, zFmt, &pScan, &bTemp, &zErr);
  }
  sqlite3_free(zFmt);
  if (rc == SQLITE_OK) {
    rc = sqlite3_prepare_v2(p->db, "SELECT id, parent, key, type, atom FROM json_tree(?1)", -1, &pTree, 0);
  }
  while (rc == SQLITE_OK && sqlite3_step(pScan) == SQLITE_ROW) {
    const char *zDoc;
    if (sqlite3_column_type(pScan, 0) == SQLITE_NULL) continue;
    if (sqlite3_column_type(pScan, 0) == SQLITE_BLOB) {
      zErr = sqlite3_mprintf("doc_schema: a value of column '%q' is a blob, not JSON", zCol);
      rc = SQLITE_ERROR;
      break;
    }
    zDoc = (const char *)sqlite3_column_text(pScan, 0);
    if (zDoc == NULL) {
      rc = SQLITE_NOMEM;
      break;
    }
    if (nosqlJsonTooDeep(zDoc, sqlite3_column_bytes(pScan, 0))) {
      zErr =
          sqlite3_mprintf("doc_schema: a value of column '%q' " NOSQL_JSON_DEEP, zCol, NOSQL_JSON_MAX_DEPTH);
      rc = SQLITE_ERROR;
      break;
    }
    if (!nosqlJsonStrict(zDoc, sqlite3_column_bytes(pScan, 0))) {
      char *zQuoted = nosqlValueQuote(sqlite3_column_value(pScan, 0));
      zErr = sqlite3_mprintf("doc_schema: a value of column '%q' " NOSQL_JSON_AT ": %s", zCol,
                             nosqlJsonErrorAt(zDoc, sqlite3_column_bytes(pScan, 0)), zQuoted ? zQuoted : "?");
      sqlite3_free(zQuoted);
      rc = SQLITE_ERROR;
      break;
    }
    iDoc++;
    sqlite3_bind_text(pTree, 1, zDoc, sqlite3_column_bytes(pScan, 0), SQLITE_STATIC);
    while (rc == SQLITE_OK && sqlite3_step(pTree) == SQLITE_ROW) {
      const char *zType = (const char *)sqlite3_column_text(pTree, 3);
      if (zType == NULL) {
        rc = SQLITE_NOMEM;
        break;
      }
      rc = docPathPush(&stack, sqlite3_column_int64(pTree, 0), sqlite3_column_type(pTree, 1) == SQLITE_NULL,
                       sqlite3_column_int64(pTree, 1), sqlite3_column_value(pTree, 2),
                       strcmp(zType, "array") == 0);
      if (rc == SQLITE_OK) {
        rc = docSchemaAdd(pCur, (const char *)stack.path.a, zType, iDoc,
                          sqlite3_column_type(pTree, 4) == SQLITE_NULL || zType[0] == 'n'
                              ? NULL
                              : sqlite3_column_value(pTree, 4));
      }
    }
    if (rc == SQLITE_OK && (rc = sqlite3_reset(pTree)) != SQLITE_OK) {
      /* SQLite's own code (SQLITE_INTERRUPT, SQLITE_NOMEM, ...) is passed on. */
      zErr = sqlite3_mprintf("doc_schema: %s", sqlite3_errmsg(p->db));
    }
  }
  if (rc == SQLITE_OK && pScan && (rc = sqlite3_reset(pScan)) != SQLITE_OK) {
    zErr = sqlite3_mprintf("doc_schema: %s", sqlite3_errmsg(p->db));
  }
  docPathStackFree(&stack);
  sqlite3_finalize(pTree);
  sqlite3_finalize(pScan);
  if (zErr) nosqlVtabError(pCursor->pVtab, "%s", zErr);
  sqlite3_free(zErr);
  if (rc != SQLITE_OK) return rc;
  /* Empty slots sort last, so the report is aStat[0 .. nStat). */
  if (pCur->aStat) qsort(pCur->aStat, (size_t)pCur->nAlloc, sizeof(DocPathStat), docSchemaCmp);
  return SQLITE_OK;
}

static int docSchemaNext(sqlite3_vtab_cursor *pCursor) {
  ((doc_schema_cursor *)pCursor)->iRow++;
  return SQLITE_OK;
}

static int docSchemaEof(sqlite3_vtab_cursor *pCursor) {
  doc_schema_cursor *pCur = (doc_schema_cursor *)pCursor;
  return pCur->iRow >= pCur->nStat;
}

static int docSchemaColumn(sqlite3_vtab_cursor *pCursor, sqlite3_context *ctx, int iCol) {
  doc_schema_cursor *pCur = (doc_schema_cursor *)pCursor;
  DocPathStat *pS = &pCur->aStat[pCur->iRow];
  switch (iCol) {
    case DOC_SCHEMA_PATH:
      sqlite3_result_text(ctx, pS->zKey, -1, SQLITE_TRANSIENT);
      break;
    case DOC_SCHEMA_TYPE:
      sqlite3_result_text(ctx, pS->zType, -1, SQLITE_TRANSIENT);
      break;
    case DOC_SCHEMA_DOCS:
      sqlite3_result_int64(ctx, pS->nDoc);
      break;
    case DOC_SCHEMA_EXAMPLE:
      if (pS->pExample) sqlite3_result_value(ctx, pS->pExample);
      break;
    default:
      nosqlPlanKeptResult(ctx, pCur->apArg[iCol - DOC_SCHEMA_TABLE]);
      break;
  }
  return SQLITE_OK;
}

static int docSchemaRowid(sqlite3_vtab_cursor *pCursor, sqlite_int64 *pRowid) {
  *pRowid = ((doc_schema_cursor *)pCursor)->iRow + 1;
  return SQLITE_OK;
}

static sqlite3_module docSchemaModule = {
    0,                   /* iVersion */
    0,                   /* xCreate: eponymous only */
    docSchemaConnect,    /* xConnect */
    docSchemaBestIndex,  /* xBestIndex */
    docSchemaDisconnect, /* xDisconnect */
    0,                   /* xDestroy */
    docSchemaOpen,       /* xOpen */
    docSchemaClose,      /* xClose */
    docSchemaFilter,     /* xFilter */
    docSchemaNext,       /* xNext */
    docSchemaEof,        /* xEof */
    docSchemaColumn,     /* xColumn */
    docSchemaRowid,      /* xRowid */
    0,                   /* xUpdate */
    0,                   /* xBegin */
    0,                   /* xSync */
    0,                   /* xCommit */
    0,                   /* xRollback */
    0,                   /* xFindFunction */
    0,                   /* xRename */
    0,                   /* xSavepoint */
    0,                   /* xRelease */
    0,                   /* xRollbackTo */
    0,                   /* xShadowName */
};

int docRegister(sqlite3 *db) {
  KvOwner *pOwner = (KvOwner *)sqlite3_malloc64(sizeof(*pOwner));
  int rc = SQLITE_OK, nArg;
  if (pOwner == NULL) return SQLITE_NOMEM;
  memset(pOwner, 0, sizeof(*pOwner));
  pOwner->zConnect = "SELECT 1 FROM main.doc_schema";
  /* One reference for this function, one per registration (kv.c's scheme). */
  pOwner->nRef = 1;
  for (nArg = 3; nArg <= 4 && rc == SQLITE_OK; nArg++) {
    pOwner->nRef++;
    rc = sqlite3_create_function_v2(db, "doc_update", nArg, NOSQL_EFFECT, pOwner, docUpdateFunc, 0, 0,
                                    kvOwnerUnref);
  }
  if (rc == SQLITE_OK) {
    pOwner->nRef++;
    rc = sqlite3_create_function_v2(db, "doc_upsert", 3, NOSQL_EFFECT, pOwner, docUpsertFunc, 0, 0,
                                    kvOwnerUnref);
  }
  if (rc == SQLITE_OK) {
    pOwner->nRef++;
    rc = sqlite3_create_module_v2(db, "doc_schema", &docSchemaModule, pOwner, kvOwnerUnref);
  }
  if (rc == SQLITE_OK) rc = kvObjectRegister(db);
  kvOwnerUnref(pOwner);
  return rc;
}
