/*
** doc.c: soft-schema documents, techniques 2 ("Aggregates") and 4 ("Atomic
** Aggregates") of the article: a whole aggregate kept as one JSON document
** per key and updated in one atomic step, MongoDB's findOneAndUpdate on a
** table laid out as
**
**   CREATE TABLE products(key TEXT PRIMARY KEY, doc TEXT, version INTEGER);
**
**   doc_update(table, key, update [, expected_version]) -> INTEGER
**       applies update to the document of key and returns the new version
**       (the old one plus one); NULL, changing nothing, when the key is
**       absent or (with expected_version) the stored version differs.
**       update is either a JSON merge patch (RFC 7396, an object without
**       '$' keys) or MongoDB update operators ($set, $unset, $inc, $push
**       with $each, $pull by value or document query, $addToSet with
**       $each) with dotted paths. docs/documents.md lists what is copied
**       from MongoDB and what differs. key must be unique in table.
**   doc_schema(table, column)    table-valued (path, type, docs, example):
**       one row per JSON path (SQLite syntax, [*] for array elements) and
**       json_type() seen in the column, with the number of documents that
**       have it: the Variety/Compass report of a soft schema.
**   kv_object(key, value [, sep])  aggregate -> JSON object: folds entries
**       'UserID_name', 'UserID_email' into {"name":..,"email":..}: the field
**       is the part of key after the first sep (default '_').
**   kv_pairs(prefix, doc [, sep])  table-valued (key, field, value): the
**       reverse, one row prefix || sep || field per top-level member.
**
** How doc_update works. The update and the stored document are parsed
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

/* The layout doc_update expects, for error messages. */
static const char zDocLayout[] = "a (key PRIMARY KEY, doc, version INTEGER) table";

/* Statements on the document table; %s is the quoted table. */
static const char zDocRead[] = "SELECT doc, version FROM %s WHERE key = ?1";
static const char zDocWrite[] = "UPDATE %s SET doc = ?2, version = ?3 WHERE key = ?1";

/* One update being applied: the trees, and what reports errors. */
typedef struct DocEdit DocEdit;
struct DocEdit {
  sqlite3 *db;     /* The connection */
  KvOwner *pOwner; /* Statement cache */
  DocJson j;       /* Arena of the update and the document */
  DocNode *pDoc;   /* The document (an object) */
  char *zErr;      /* First error message (sqlite3_mprintf), or NULL */
  int rc;          /* First error code */
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

/*
** Where a MongoDB dotted path (zField[0..nField), decoded) leads in the
** document: the value (pTarget, slot iItem of container pParent), or, when
** it is missing and the operator creates fields, the object pCreateIn
** where the parts from offset iRest on are to be created.
*/
typedef struct DocLoc DocLoc;
struct DocLoc {
  DocNode *pTarget;   /* The value at the path, or NULL */
  DocNode *pParent;   /* Its array or object */
  int iItem;          /* Its element or member index in pParent */
  DocNode *pCreateIn; /* Missing with bCreate: the deepest object on the path */
  int iRest;          /* Offset in zField of the first part to create */
};

/*
** Follow zField from the document: a numeric part under an array is an
** index, anything else an object key. With bCreate, the path may go on
** past missing fields (created as objects, as MongoDB does) but not
** through a scalar or past an array's end; without it, a path that leads
** nowhere leaves *pLoc empty. Every container on the way has its
** duplicate keys removed and is marked changed (the caller edits below).
*/
static int docWalk(DocEdit *p, const char *zOp, const char *zField, int nField, int bCreate, DocLoc *pLoc) {
  DocNode *pNode = p->pDoc;
  int i = 0;
  memset(pLoc, 0, sizeof(*pLoc));
  if (nField == 0) return docError(p, SQLITE_ERROR, "doc_update: %s: empty field name", zOp);
  for (;;) {
    const char *zPart = &zField[i], *zDot = memchr(zPart, '.', (size_t)(nField - i));
    int nPart = zDot ? (int)(zDot - zPart) : nField - i, k, bDigits = nPart > 0;
    sqlite3_int64 iIdx = 0;
    for (k = 0; k < nPart; k++) {
      if (zPart[k] < '0' || zPart[k] > '9') bDigits = 0;
      if (bDigits && iIdx <= 2147483647) iIdx = iIdx * 10 + (zPart[k] - '0');
    }
    if (nPart == 0) {
      return docError(p, SQLITE_ERROR, "doc_update: %s: empty field name in '%.*s'", zOp, nField, zField);
    }
    if (zPart[0] == '$') {
      return docError(p, SQLITE_ERROR,
                      "doc_update: %s: field name '%.*s' in '%.*s' starts with '$' (positional operators are "
                      "not supported)",
                      zOp, nPart, zPart, nField, zField);
    }
    if (pNode) {
      pNode->bRaw = 0;
      if (pNode->eType == DOCJ_ARRAY && bDigits) {
        if (iIdx < pNode->u.c.nItem) {
          pLoc->pParent = pNode;
          pLoc->iItem = (int)iIdx;
          pNode = pNode->u.c.apElem[iIdx];
        } else if (bCreate) {
          return docError(p, SQLITE_ERROR,
                          "doc_update: %s: index %.*s of '%.*s' is past the end of the array (length %d)",
                          zOp, nPart, zPart, nField, zField, pNode->u.c.nItem);
        } else {
          pLoc->pParent = NULL;
          return SQLITE_OK;
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
          pLoc->pParent = NULL;
          return SQLITE_OK;
        }
      } else if (bCreate) {
        return docError(p, SQLITE_ERROR,
                        "doc_update: %s: cannot create field '%.*s' in '%.*s': its parent is of type %s", zOp,
                        nPart, zPart, nField, zField, docJsonTypeName(pNode));
      } else {
        pLoc->pParent = NULL;
        return SQLITE_OK;
      }
    }
    if (zDot == NULL) break;
    i += nPart + 1;
  }
  pLoc->pTarget = pNode;
  if (pNode == NULL) pLoc->pParent = NULL;
  return SQLITE_OK;
}

/* Put pVal where pLoc leads: in place of the target, or created with its missing parents. */
static void docPut(DocEdit *p, const DocLoc *pLoc, const char *zField, int nField, DocNode *pVal) {
  DocNode *pObj = pLoc->pCreateIn;
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
    int nPart = zDot ? (int)(zDot - zPart) : nField - i, nKey = 0;
    DocNode *pNew = zDot ? docJsonNew(&p->j, DOCJ_OBJECT) : pVal;
    const char *zKey = docJsonQuote(&p->j, zPart, nPart, &nKey);
    if (pNew == NULL || zKey == NULL) break;
    docJsonObjAppend(&p->j, pObj, zKey, nKey, zPart, nPart, pNew);
    if (zDot == NULL) break;
    pObj = pNew;
    i += nPart + 1;
  }
  docCheck(p);
}

/* $inc of field pF (its value the increment) where pLoc leads. */
static int docInc(DocEdit *p, const DocMember *pF, const DocLoc *pLoc) {
  DocNode *pOld = pLoc->pTarget, *pNew;
  sqlite3_int64 iOld, iInc;
  double rOld, rInc;
  int bIntOld, bIntInc, bNull = 0, rc = SQLITE_OK;
  NosqlBuffer buf = {0, 0, 0};
  if (!docJsonIsNumber(pF->pVal)) {
    char *zJson = docJsonOf(p, pF->pVal);
    if (zJson) {
      docError(p, SQLITE_ERROR, "doc_update: $inc: cannot increment '%.*s' with non-numeric argument %s",
               pF->nName, pF->zName, zJson);
    }
    sqlite3_free(zJson);
    return p->rc;
  }
  if (pOld == NULL) {
    docPut(p, pLoc, pF->zName, pF->nName, pF->pVal);
    return p->rc;
  }
  if (!docJsonIsNumber(pOld)) {
    return docError(p, SQLITE_ERROR,
                    "doc_update: $inc: cannot apply $inc to '%.*s', a value of non-numeric type %s",
                    pF->nName, pF->zName, docJsonTypeName(pOld));
  }
  bIntOld = docJsonNumber(&p->j, pOld, &iOld, &rOld);
  bIntInc = docJsonNumber(&p->j, pF->pVal, &iInc, &rInc);
  if (docCheck(p) != SQLITE_OK) return p->rc;
  if (bIntOld && bIntInc) {
    sqlite3_int64 v = iOld;
    if (!kvAddChecked(&v, iInc)) {
      return docError(p, SQLITE_ERROR, "doc_update: $inc: '%.*s' would overflow: %lld + %lld", pF->nName,
                      pF->zName, iOld, iInc);
    }
    nosqlBufferAppendf(&rc, &buf, "%lld", v);
  } else if (isnan(rOld + rInc)) {
    /*
    ** Infinities of opposite signs: JSON has no NaN, and the writer would
    ** spell it null; a null node (not a real whose text is null, which a
    ** later $inc of the same update read as 0) keeps the tree as written.
    */
    bNull = 1;
  } else {
    /* Integers beyond int64 are doubles here already; the sum is written as the shortest exact text. */
    nosqlBufferJsonReal(&rc, &buf, rOld + rInc);
  }
  if (bNull) {
    pNew = docJsonNew(&p->j, DOCJ_NULL);
  } else {
    pNew = rc == SQLITE_OK ? docJsonNewNumber(&p->j, (const char *)buf.a, (int)buf.n,
                                              bIntOld && bIntInc ? DOCJ_INT : DOCJ_REAL)
                           : NULL;
  }
  nosqlBufferFree(&buf);
  if (pNew == NULL) return docError(p, SQLITE_NOMEM, NULL);
  docPut(p, pLoc, pF->zName, pF->nName, pNew);
  return p->rc;
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
  char *zErr = NULL, *zPath = sqlite3_mprintf("%.*s", pF->nName, pF->zName);
  int rc = zPath ? docFilterCompile(&p->j, pF->pVal, DOC_FILTER_PULL, zPath, &pFilter, &zErr) : SQLITE_NOMEM;
  int i, j;
  sqlite3_free(zPath);
  pArr->bRaw = 0;
  for (i = j = 0; rc == SQLITE_OK && i < pArr->u.c.nItem && docJsonTick(&p->j) == SQLITE_OK; i++) {
    DocNode *pElem = pArr->u.c.apElem[i];
    int bMatch = 0;
    rc = docFilterMatch(pFilter, &p->j, pElem, &bMatch, &zErr);
    if (!bMatch) pArr->u.c.apElem[j++] = pElem;
  }
  docFilterFree(pFilter);
  if (rc == SQLITE_NOMEM || (rc != SQLITE_OK && zErr == NULL)) {
    docError(p, rc, NULL);
  } else if (rc != SQLITE_OK) {
    docError(p, rc, "doc_update: $pull: %s", zErr);
  }
  sqlite3_free(zErr);
  if (docCheck(p) == SQLITE_OK) pArr->u.c.nItem = j;
  return p->rc;
}

/* One value of an $addToSet hash set: its hash and node (NULL: a free slot). */
typedef struct DocSetSlot DocSetSlot;
struct DocSetSlot {
  sqlite3_uint64 h; /* docJsonHash() of pNode */
  DocNode *pNode;   /* The value, or NULL */
};

/*
** $addToSet of aItem[0..nItem) to array pArr: each value not equal to an
** element already there (or added before it) is appended. One hash set of
** the elements makes it linear.
*/
static void docAddToSet(DocEdit *p, DocNode *pArr, DocNode **aItem, int nItem) {
  sqlite3_int64 nSlot = 16;
  DocSetSlot *aSlot;
  int i;
  while (nSlot < 2 * ((sqlite3_int64)pArr->u.c.nItem + nItem)) nSlot *= 2;
  aSlot = (DocSetSlot *)sqlite3_malloc64(sizeof(DocSetSlot) * (sqlite3_uint64)nSlot);
  if (aSlot == NULL) {
    docError(p, SQLITE_NOMEM, NULL);
    return;
  }
  memset(aSlot, 0, sizeof(DocSetSlot) * (size_t)nSlot);
  for (i = -pArr->u.c.nItem; i < nItem && docJsonTick(&p->j) == SQLITE_OK; i++) {
    /* i < 0: the elements already there, all kept; i >= 0: the new values. */
    DocNode *pVal = i < 0 ? pArr->u.c.apElem[pArr->u.c.nItem + i] : aItem[i];
    sqlite3_uint64 h = docJsonHash(&p->j, pVal);
    sqlite3_int64 k = (sqlite3_int64)(h & (sqlite3_uint64)(nSlot - 1));
    int bHave = 0;
    while (aSlot[k].pNode && !bHave) {
      bHave = i >= 0 && aSlot[k].h == h && docJsonEqual(&p->j, aSlot[k].pNode, pVal);
      if (!bHave) k = (k + 1) & (nSlot - 1);
    }
    if (bHave) continue;
    aSlot[k].h = h;
    aSlot[k].pNode = pVal;
    if (i >= 0) docJsonArrAppend(&p->j, pArr, pVal);
  }
  sqlite3_free(aSlot);
  docCheck(p);
}

/* The member of object pObj named zName (a literal), or NULL. */
static const DocMember *docMemberNamed(const DocNode *pObj, const char *zName) {
  int i, n = (int)strlen(zName);
  for (i = 0; i < pObj->u.c.nItem; i++) {
    const DocMember *pM = &pObj->u.c.aMember[i];
    if (pM->pVal && pM->nName == n && memcmp(pM->zName, zName, (size_t)n) == 0) return pM;
  }
  return NULL;
}

/*
** The $each list of the value pVal of $push or $addToSet, in *ppEach, or
** NULL when pVal is one value to add whole (a document with other $-fields
** included), as MongoDB decides: for $addToSet, an object whose first
** field is $each (any other field is then an error); for $push, an object
** with a $each field anywhere, whose other fields must be $push's modifiers
** ($slice, $sort and $position, which are not supported here).
*/
static int docEachOf(DocEdit *p, const char *zOp, const DocNode *pVal, DocNode **ppEach) {
  const DocMember *pEach = NULL;
  int i, bPush = strcmp(zOp, "$push") == 0;
  *ppEach = NULL;
  if (pVal->eType != DOCJ_OBJECT) return SQLITE_OK;
  if (bPush) {
    pEach = docMemberNamed(pVal, "$each");
  } else {
    for (i = 0; i < pVal->u.c.nItem && pVal->u.c.aMember[i].pVal == NULL; i++) {
    }
    if (i < pVal->u.c.nItem && pVal->u.c.aMember[i].nName == 5 &&
        memcmp(pVal->u.c.aMember[i].zName, "$each", 5) == 0) {
      pEach = &pVal->u.c.aMember[i];
    }
  }
  if (pEach == NULL) return SQLITE_OK;
  for (i = 0; i < pVal->u.c.nItem; i++) {
    const DocMember *pM = &pVal->u.c.aMember[i];
    if (pM->pVal == NULL || pM == pEach) continue;
    if (bPush && (docMemberNamed(pVal, "$slice") == pM || docMemberNamed(pVal, "$sort") == pM ||
                  docMemberNamed(pVal, "$position") == pM)) {
      return docError(p, SQLITE_ERROR, "doc_update: $push: modifier '%.*s' is not supported (only $each)",
                      pM->nName, pM->zName);
    }
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

/* $push, $addToSet ($each or one value) and $pull (one value) of field pF where pLoc leads. */
static int docArrayOp(DocEdit *p, const char *zOp, const DocMember *pF, const DocLoc *pLoc) {
  DocNode *pVal = pF->pVal, *pEach = NULL, *pArr = pLoc->pTarget;
  int bPull = strcmp(zOp, "$pull") == 0, i;
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
  if (strcmp(zOp, "$addToSet") == 0) {
    docAddToSet(p, pArr, pEach ? pEach->u.c.apElem : &pVal, pEach ? pEach->u.c.nItem : 1);
  } else {
    for (i = 0; i < (pEach ? pEach->u.c.nItem : 1) && docJsonTick(&p->j) == SQLITE_OK; i++) {
      docJsonArrAppend(&p->j, pArr, pEach ? pEach->u.c.apElem[i] : pVal);
    }
    docCheck(p);
  }
  return p->rc;
}

/* Apply the MongoDB update operators of object pUpdate to the document. */
static int docApplyOperators(DocEdit *p, DocNode *pUpdate) {
  static const char *azOp[] = {"$set", "$unset", "$inc", "$push", "$pull", "$addToSet"};
  int i, k, f;
  for (i = 0; i < pUpdate->u.c.nItem && p->rc == SQLITE_OK; i++) {
    const DocMember *pOp = &pUpdate->u.c.aMember[i];
    DocNode *pFields = pOp->pVal;
    for (k = 0; k < (int)(sizeof(azOp) / sizeof(azOp[0])); k++) {
      if (pOp->nName == (int)strlen(azOp[k]) && memcmp(pOp->zName, azOp[k], (size_t)pOp->nName) == 0) break;
    }
    if (k == (int)(sizeof(azOp) / sizeof(azOp[0]))) {
      return docError(p, SQLITE_ERROR, "doc_update: unknown or unsupported update operator '%.*s'",
                      pOp->nName, pOp->zName);
    }
    if (pFields->eType != DOCJ_OBJECT) {
      char *zJson = docJsonOf(p, pFields);
      if (zJson)
        docError(p, SQLITE_ERROR, "doc_update: %s needs an object of fields, not %s", azOp[k], zJson);
      sqlite3_free(zJson);
      return p->rc;
    }
    for (f = 0; f < pFields->u.c.nItem && p->rc == SQLITE_OK; f++) {
      const DocMember *pF = &pFields->u.c.aMember[f];
      DocLoc loc;
      int bCreate = k != 1 && k != 4; /* $unset and $pull never create fields */
      if (docWalk(p, azOp[k], pF->zName, pF->nName, bCreate, &loc) != SQLITE_OK) break;
      switch (k) {
        case 0: /* $set */
          docPut(p, &loc, pF->zName, pF->nName, pF->pVal);
          break;
        case 1: /* $unset: a missing field is no error; an array element becomes null (MongoDB) */
          if (loc.pTarget == NULL) break;
          if (loc.pParent->eType == DOCJ_OBJECT) {
            loc.pParent->u.c.aMember[loc.iItem].pVal = NULL;
          } else {
            DocNode *pNull = docJsonNew(&p->j, DOCJ_NULL);
            if (pNull) docPut(p, &loc, pF->zName, pF->nName, pNull);
            docCheck(p);
          }
          break;
        case 2:
          docInc(p, pF, &loc);
          break;
        default:
          docArrayOp(p, azOp[k], pF, &loc);
          break;
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

/* True if z is strict JSON text holding an object. */
static int docIsObjectText(const char *z, int n) {
  int i = 0;
  if (z == NULL || !nosqlJsonStrict(z, n)) return 0;
  while (i < n && (z[i] == ' ' || z[i] == '\t' || z[i] == '\n' || z[i] == '\r')) i++;
  return i < n && z[i] == '{';
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
  rc = kvTablePrepare(p->db, p->pOwner, "doc_update", zTable, zDocLayout, zFmt, &pStmt, &bTemp, &p->zErr);
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
** doc_update(table, key, update [, expected_version]). The update is
** parsed once, before the transaction; the read, apply and write then run
** inside it (kvAtomicBegin). (Long: the steps share the error reporting
** and the transaction's end, which keeps the write atomic.)
*/
static void docUpdateFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  DocEdit e;
  DocNode *pUpdate = NULL;
  NosqlBuffer out = {0, 0, 0};
  int i, nDollar = 0, bOwn = 0, bTemp = 0, bDone = 0, rc;
  sqlite3_stmt *pStmt = NULL;
  sqlite3_int64 iVersion = 0;
  const char *zTable, *zUpdate;
  char *zKey = NULL;
  memset(&e, 0, sizeof(e));
  e.db = sqlite3_context_db_handle(ctx);
  e.pOwner = (KvOwner *)sqlite3_user_data(ctx);
  docJsonInit(&e.j, docTick, &e);
  for (i = 0; i < 3; i++) {
    if (sqlite3_value_type(argv[i]) == SQLITE_NULL) return;
  }
  if (argc > 3 && sqlite3_value_type(argv[3]) != SQLITE_NULL &&
      sqlite3_value_type(argv[3]) != SQLITE_INTEGER) {
    char *z = nosqlValueQuote(argv[3]);
    nosqlResultError(ctx, "doc_update: expected_version %s is not an integer", z ? z : "?");
    sqlite3_free(z);
    return;
  }
  if (sqlite3_value_type(argv[2]) == SQLITE_BLOB) {
    nosqlResultError(ctx, "doc_update: update is a blob, not a JSON object");
    return;
  }
  zTable = (const char *)sqlite3_value_text(argv[0]);
  zUpdate = (const char *)sqlite3_value_text(argv[2]);
  if (zTable == NULL || zUpdate == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  rc = docJsonParse(&e.j, zUpdate, sqlite3_value_bytes(argv[2]), 1, &pUpdate);
  if (rc == SQLITE_OK && pUpdate->eType != DOCJ_OBJECT) rc = SQLITE_ERROR;
  if (rc == SQLITE_ERROR && e.j.bDeep) {
    docError(&e, SQLITE_ERROR, "doc_update: update " NOSQL_JSON_DEEP, NOSQL_JSON_MAX_DEPTH);
  } else if (rc == SQLITE_ERROR) {
    char *z = nosqlValueQuote(argv[2]);
    docError(&e, z ? SQLITE_ERROR : SQLITE_NOMEM, z ? "doc_update: update %s is not a JSON object" : NULL, z);
    sqlite3_free(z);
  }
  docCheck(&e);
  for (i = 0; e.rc == SQLITE_OK && i < pUpdate->u.c.nItem; i++) {
    nDollar += pUpdate->u.c.aMember[i].nName > 0 && pUpdate->u.c.aMember[i].zName[0] == '$';
  }
  if (e.rc == SQLITE_OK && nDollar > 0 && nDollar < pUpdate->u.c.nItem) {
    for (i = 0; pUpdate->u.c.aMember[i].nName > 0 && pUpdate->u.c.aMember[i].zName[0] == '$'; i++) {
    }
    docError(&e, SQLITE_ERROR, "doc_update: update mixes operators and fields ('%.*s'): use $set for fields",
             pUpdate->u.c.aMember[i].nName, pUpdate->u.c.aMember[i].zName);
  }

  if (e.rc == SQLITE_OK) {
    rc = kvAtomicBegin(e.db, e.pOwner, &bOwn);
    if (rc != SQLITE_OK) docError(&e, rc, "doc_update: %s", sqlite3_errmsg(e.db));
  }
  /* key must be unique: "WHERE key = ?1" is then one row (a view is refused by the probe too). */
  if (e.rc == SQLITE_OK)
    e.rc = kvTableKeyUnique(e.db, e.pOwner, "doc_update", zTable, zDocLayout, 0, &e.zErr);
  if (e.rc == SQLITE_OK) {
    e.rc =
        kvTablePrepare(e.db, e.pOwner, "doc_update", zTable, zDocLayout, zDocRead, &pStmt, &bTemp, &e.zErr);
  }
  if (e.rc == SQLITE_OK) {
    sqlite3_bind_value(pStmt, 1, argv[1]);
    rc = sqlite3_step(pStmt);
    if (rc == SQLITE_ROW) {
      int eDoc = sqlite3_column_type(pStmt, 0), eVer = sqlite3_column_type(pStmt, 1);
      iVersion = sqlite3_column_int64(pStmt, 1);
      if (eVer != SQLITE_INTEGER && eVer != SQLITE_NULL) {
        zKey = nosqlValueQuote(argv[1]);
        docError(&e, SQLITE_ERROR, "doc_update: version of key %s is %s, not an integer", zKey ? zKey : "?",
                 sqlite3_column_text(pStmt, 1));
      } else if (argc > 3 && (sqlite3_value_type(argv[3]) == SQLITE_NULL
                                  ? eVer != SQLITE_NULL
                                  : (eVer == SQLITE_NULL || iVersion != sqlite3_value_int64(argv[3])))) {
        bDone = 1; /* Another writer got there first */
      } else {
        /* Blobs and NULLs are not JSON objects; the text is copied (the nodes point into it). */
        const char *zDoc =
            eDoc == SQLITE_BLOB || eDoc == SQLITE_NULL ? NULL : (const char *)sqlite3_column_text(pStmt, 0);
        int rcParse = SQLITE_ERROR;
        if (zDoc) rcParse = docJsonParse(&e.j, zDoc, sqlite3_column_bytes(pStmt, 0), 1, &e.pDoc);
        if (rcParse == SQLITE_OK && e.pDoc->eType != DOCJ_OBJECT) rcParse = SQLITE_ERROR;
        if (zDoc == NULL && eDoc != SQLITE_BLOB && eDoc != SQLITE_NULL) {
          docError(&e, SQLITE_NOMEM, NULL);
        } else if (rcParse == SQLITE_ERROR) {
          zKey = nosqlValueQuote(argv[1]);
          if (e.j.bDeep) {
            docError(&e, SQLITE_ERROR, "doc_update: the document of key %s " NOSQL_JSON_DEEP,
                     zKey ? zKey : "?", NOSQL_JSON_MAX_DEPTH);
          } else {
            char *zQuoted = nosqlValueQuote(sqlite3_column_value(pStmt, 0));
            docError(&e, SQLITE_ERROR, "doc_update: the document of key %s is not a JSON object: %s",
                     zKey ? zKey : "?", zQuoted ? zQuoted : "?");
            sqlite3_free(zQuoted);
          }
        } else if (rcParse == SQLITE_OK && iVersion == INT64_MAX) {
          zKey = nosqlValueQuote(argv[1]);
          docError(&e, SQLITE_ERROR, "doc_update: the version of key %s would overflow: %lld + 1",
                   zKey ? zKey : "?", iVersion);
        }
        docCheck(&e);
      }
      rc = SQLITE_DONE;
    } else {
      bDone = rc == SQLITE_DONE; /* No such key */
    }
    if (rc != SQLITE_DONE) docError(&e, sqlite3_reset(pStmt), "doc_update: %s", sqlite3_errmsg(e.db));
    kvCacheRelease(pStmt, bTemp);
    pStmt = NULL;
  }
  if (e.rc == SQLITE_OK && !bDone) {
    if (nDollar) {
      docApplyOperators(&e, pUpdate);
    } else if (docPatch(&e, e.pDoc, pUpdate) == NULL) {
      docCheck(&e);
    }
  }
  if (e.rc == SQLITE_OK && !bDone) {
    rc = docJsonWrite(&e.j, e.pDoc, &out, sqlite3_limit(e.db, SQLITE_LIMIT_LENGTH, -1));
    if (rc == SQLITE_ERROR && e.j.bDeep) {
      if (zKey == NULL) zKey = nosqlValueQuote(argv[1]);
      docError(&e, SQLITE_ERROR, "doc_update: the document of key %s would nest deeper than %d levels",
               zKey ? zKey : "?", NOSQL_JSON_MAX_DEPTH);
    } else if (rc == SQLITE_TOOBIG) {
      docError(&e, rc, "doc_update: string or blob too big");
    } else if (rc != SQLITE_OK) {
      e.j.rc = rc;
      docCheck(&e);
    }
  }
  if (e.rc == SQLITE_OK && !bDone) {
    /* A trigger may keep the row as it is (RAISE(IGNORE)): then no version was written. */
    if (docRun(&e, zTable, zDocWrite, argv[1], (const char *)out.a, out.n, iVersion + 1) == 0) {
      bDone = 1;
    } else {
      iVersion++;
    }
  }
  if (bOwn) {
    rc = kvAtomicEnd(e.db, e.pOwner, bOwn, e.rc);
    if (rc != SQLITE_OK && e.rc == SQLITE_OK) docError(&e, rc, "doc_update: %s", sqlite3_errmsg(e.db));
  }
  if (e.rc == SQLITE_NOMEM && e.zErr == NULL) {
    sqlite3_result_error_nomem(ctx);
  } else if (e.rc != SQLITE_OK) {
    sqlite3_result_error(ctx, e.zErr ? e.zErr : "doc_update: out of memory", -1);
    sqlite3_result_error_code(ctx, e.rc);
  } else if (!bDone) {
    sqlite3_result_int64(ctx, iVersion);
  }
  sqlite3_free(e.zErr);
  sqlite3_free(zKey);
  nosqlBufferFree(&out);
  docJsonClear(&e.j);
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
  if (nosqlPlanArgs(idxStr, argc, argv, aArg, 2) != SQLITE_OK || aArg[0].pEq == NULL || aArg[1].pEq == NULL) {
    nosqlVtabError(pCursor->pVtab, "doc_schema: bad plan %s", idxStr ? idxStr : "(none)");
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
    KvOwner noCache = {1, NULL, ""};
    rc = kvTablePrepare(p->db, &noCache, "doc_schema", zTable, "a table and one of its columns", zFmt, &pScan,
                        &bTemp, &zErr);
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
      zErr = sqlite3_mprintf("doc_schema: a value of column '%q' is not JSON: %s", zCol,
                             zQuoted ? zQuoted : "?");
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

/**************************************************************************
** kv_object(key, value [, sep]): composite-key entries folded into one
** JSON object. The field is the part of key after the first sep (the whole
** key when it has none); a later entry for a field replaces an earlier one
** in place. Values: NULL null, numbers, text as a string (JSON text made
** by a JSON function, which carries the JSON subtype, as JSON); a blob is
** an error.
*/
typedef struct DocObjAgg DocObjAgg;
struct DocObjAgg {
  char **azField; /* Field names (sqlite3_malloc64) */
  char **azJson;  /* Their values as JSON text */
  int n;          /* Fields */
  int nAlloc;     /* Slots allocated */
  int *aSlot;     /* Hash index of azField: field + 1, 0 free (at most half full) */
  int nSlot;      /* Slots of aSlot (a power of two) */
  int rc;         /* Sticky error code */
  char *zErr;     /* Error message, or NULL */
};

/* The slot of p->aSlot that holds field zField, or the free slot where it would go. */
static int kvObjectSlot(const DocObjAgg *p, const char *zField) {
  unsigned h = docHash(zField, (int)strlen(zField)) & (unsigned)(p->nSlot - 1);
  while (p->aSlot[h] && strcmp(p->azField[p->aSlot[h] - 1], zField) != 0)
    h = (h + 1) & (unsigned)(p->nSlot - 1);
  return (int)h;
}

/* Make room in the hash index for one more field (rebuilt twice as large when half full); rc. */
static int kvObjectIndex(DocObjAgg *p) {
  int nNew = p->nSlot ? p->nSlot * 2 : 64, i;
  int *aNew;
  if ((p->n + 1) * 2 <= p->nSlot) return SQLITE_OK;
  aNew = (int *)sqlite3_malloc64(sizeof(int) * (sqlite3_uint64)nNew);
  if (aNew == NULL) return SQLITE_NOMEM;
  memset(aNew, 0, sizeof(int) * (size_t)nNew);
  sqlite3_free(p->aSlot);
  p->aSlot = aNew;
  p->nSlot = nNew;
  for (i = 0; i < p->n; i++) p->aSlot[kvObjectSlot(p, p->azField[i])] = i + 1;
  return SQLITE_OK;
}

/* The JSON text of an SQL value (sqlite3_mprintf), or NULL: a blob (*pbBlob) or OOM. */
static char *docValueJson(sqlite3_value *pVal, int *pbBlob) {
  NosqlBuffer buf = {0, 0, 0};
  int rc = SQLITE_OK;
  *pbBlob = 0;
  switch (sqlite3_value_type(pVal)) {
    case SQLITE_NULL:
      return sqlite3_mprintf("null");
    case SQLITE_INTEGER:
      return sqlite3_mprintf("%lld", sqlite3_value_int64(pVal));
    case SQLITE_FLOAT:
      nosqlBufferJsonReal(&rc, &buf, sqlite3_value_double(pVal));
      if (rc != SQLITE_OK) {
        nosqlBufferFree(&buf);
        return NULL;
      }
      return (char *)buf.a;
    case SQLITE_BLOB:
      *pbBlob = 1;
      return NULL;
    default:
      if (sqlite3_value_subtype(pVal) == DOC_JSON_SUBTYPE) {
        return sqlite3_mprintf("%s", sqlite3_value_text(pVal));
      }
      nosqlBufferJsonString(&rc, &buf, (const char *)sqlite3_value_text(pVal), sqlite3_value_bytes(pVal));
      if (rc != SQLITE_OK) {
        nosqlBufferFree(&buf);
        return NULL;
      }
      return (char *)buf.a;
  }
}

static void kvObjectStep(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  DocObjAgg *p = (DocObjAgg *)sqlite3_aggregate_context(ctx, sizeof(DocObjAgg));
  const char *zKey, *zSep = "_", *zField;
  char *zJson;
  int i, iSlot, bBlob = 0;
  if (p == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (p->rc != SQLITE_OK || sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  if (argc > 2) {
    zSep = (const char *)sqlite3_value_text(argv[2]);
    if (zSep == NULL || zSep[0] == 0) {
      p->rc = SQLITE_ERROR;
      p->zErr = sqlite3_mprintf("kv_object: the separator must be a non-empty text");
      return;
    }
  }
  zKey = (const char *)sqlite3_value_text(argv[0]);
  if (zKey == NULL) {
    p->rc = SQLITE_NOMEM;
    return;
  }
  zField = strstr(zKey, zSep);
  zField = zField ? zField + strlen(zSep) : zKey;
  zJson = docValueJson(argv[1], &bBlob);
  if (zJson == NULL) {
    p->rc = bBlob ? SQLITE_ERROR : SQLITE_NOMEM;
    if (bBlob)
      p->zErr = sqlite3_mprintf("kv_object: the value of key '%q' is a blob (JSON has no blobs)", zKey);
    return;
  }
  if (kvObjectIndex(p) != SQLITE_OK) {
    sqlite3_free(zJson);
    p->rc = SQLITE_NOMEM;
    return;
  }
  iSlot = kvObjectSlot(p, zField);
  if (p->aSlot[iSlot]) {
    i = p->aSlot[iSlot] - 1;
    sqlite3_free(p->azJson[i]);
    p->azJson[i] = zJson;
    return;
  }
  if (p->n == p->nAlloc) {
    int nNew = p->nAlloc ? p->nAlloc * 2 : 8;
    char **azF = (char **)sqlite3_realloc64(p->azField, sizeof(char *) * (sqlite3_uint64)nNew);
    char **azJ = azF ? (char **)sqlite3_realloc64(p->azJson, sizeof(char *) * (sqlite3_uint64)nNew) : NULL;
    if (azF) p->azField = azF;
    if (azJ) p->azJson = azJ;
    if (azF == NULL || azJ == NULL) {
      sqlite3_free(zJson);
      p->rc = SQLITE_NOMEM;
      return;
    }
    p->nAlloc = nNew;
  }
  p->azField[p->n] = sqlite3_mprintf("%s", zField);
  p->azJson[p->n] = zJson;
  if (p->azField[p->n] == NULL) {
    sqlite3_free(zJson);
    p->rc = SQLITE_NOMEM;
    return;
  }
  p->aSlot[iSlot] = ++p->n;
}

static void kvObjectFinal(sqlite3_context *ctx) {
  DocObjAgg *p = (DocObjAgg *)sqlite3_aggregate_context(ctx, 0);
  NosqlBuffer buf = {0, 0, 0};
  int rc = SQLITE_OK, i;
  if (p && p->rc != SQLITE_OK) {
    if (p->zErr) {
      sqlite3_result_error(ctx, p->zErr, -1);
    } else {
      sqlite3_result_error_nomem(ctx);
    }
  } else {
    nosqlBufferAppend(&rc, &buf, "{", 1);
    for (i = 0; p && i < p->n; i++) {
      if (i) nosqlBufferAppend(&rc, &buf, ",", 1);
      nosqlBufferJsonString(&rc, &buf, p->azField[i], (int)strlen(p->azField[i]));
      nosqlBufferAppend(&rc, &buf, ":", 1);
      nosqlBufferAppend(&rc, &buf, p->azJson[i], (sqlite3_int64)strlen(p->azJson[i]));
    }
    nosqlBufferAppend(&rc, &buf, "}", 1);
    if (rc != SQLITE_OK) {
      sqlite3_result_error_nomem(ctx);
    } else {
      sqlite3_result_text64(ctx, (const char *)buf.a, (sqlite3_uint64)buf.n, SQLITE_TRANSIENT, SQLITE_UTF8);
      sqlite3_result_subtype(ctx, DOC_JSON_SUBTYPE);
    }
    nosqlBufferFree(&buf);
  }
  if (p) {
    for (i = 0; i < p->n; i++) {
      sqlite3_free(p->azField[i]);
      sqlite3_free(p->azJson[i]);
    }
    sqlite3_free(p->azField);
    sqlite3_free(p->azJson);
    sqlite3_free(p->aSlot);
    sqlite3_free(p->zErr);
  }
}

/**************************************************************************
** kv_pairs(prefix, doc [, sep]): the reverse of kv_object.
**
**   CREATE TABLE kv_pairs(
**     key,             -- prefix || sep || field
**     field,           -- the member's name
**     value,           -- its value as json_each gives it (arrays and objects as JSON text)
**     prefix HIDDEN,   -- required
**     doc HIDDEN,      -- a JSON object (required)
**     sep HIDDEN       -- default '_'
**   );
*/
typedef struct kv_pairs_vtab kv_pairs_vtab;
typedef struct kv_pairs_cursor kv_pairs_cursor;
struct kv_pairs_vtab {
  sqlite3_vtab base; /* Base class - must be first */
  sqlite3 *db;       /* The connection */
};
struct kv_pairs_cursor {
  sqlite3_vtab_cursor base; /* Base class - must be first */
  sqlite3_stmt *pStmt;      /* json_each over the document, on its current row */
  char *zPrefix;            /* prefix || sep (copy) */
  int bEof;                 /* No more rows */
  sqlite3_int64 iRow;       /* Row number */
  sqlite3_value *apArg[3];  /* Copies of prefix, doc and sep, for the HIDDEN columns */
};

#define KV_PAIRS_KEY 0
#define KV_PAIRS_FIELD 1
#define KV_PAIRS_VALUE 2
#define KV_PAIRS_PREFIX 3
#define KV_PAIRS_DOC 4
#define KV_PAIRS_SEP 5

static int kvPairsConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                          char **pzErr) {
  kv_pairs_vtab *pVtab;
  int rc = nosqlVtabNew(db, "CREATE TABLE x(key, field, value, prefix HIDDEN, doc HIDDEN, sep HIDDEN)",
                        sizeof(kv_pairs_vtab), ppVtab);
  (void)pAux;
  (void)argc;
  (void)argv;
  (void)pzErr;
  if (rc != SQLITE_OK) return rc;
  pVtab = (kv_pairs_vtab *)*ppVtab;
  pVtab->db = db;
  return SQLITE_OK;
}

/* The plan (ext/plan.c): slots a prefix and b doc required, c sep optional. */
static const NosqlPlanCol aKvPairsPlan[] = {
    {KV_PAIRS_PREFIX, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 1},
    {KV_PAIRS_DOC, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 1},
    {KV_PAIRS_SEP, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0},
};

static int kvPairsBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo) {
  (void)pVtab;
  return nosqlPlanInputs(pInfo, aKvPairsPlan, 3, 10, 10);
}

static int kvPairsOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor) {
  kv_pairs_cursor *pCur = (kv_pairs_cursor *)nosqlCursorNew(sizeof(kv_pairs_cursor), ppCursor);
  (void)pVtab;
  if (pCur == NULL) return SQLITE_NOMEM;
  pCur->bEof = 1;
  return SQLITE_OK;
}

static int kvPairsClose(sqlite3_vtab_cursor *pCursor) {
  kv_pairs_cursor *pCur = (kv_pairs_cursor *)pCursor;
  sqlite3_finalize(pCur->pStmt);
  sqlite3_free(pCur->zPrefix);
  nosqlPlanKeepFree(pCur->apArg, 3);
  sqlite3_free(pCur);
  return SQLITE_OK;
}

static int kvPairsNext(sqlite3_vtab_cursor *pCursor) {
  kv_pairs_cursor *pCur = (kv_pairs_cursor *)pCursor;
  pCur->iRow++;
  return nosqlCursorStep(pCursor->pVtab, pCur->pStmt, "kv_pairs", &pCur->bEof);
}

static int kvPairsFilter(sqlite3_vtab_cursor *pCursor, int idxNum, const char *idxStr, int argc,
                         sqlite3_value **argv) {
  kv_pairs_cursor *pCur = (kv_pairs_cursor *)pCursor;
  NosqlPlanArg aArg[3];
  const char *zSep = "_", *zDoc;
  int rc, bBlob;
  (void)idxNum;
  pCur->bEof = 1;
  pCur->iRow = 0;
  sqlite3_free(pCur->zPrefix);
  pCur->zPrefix = NULL;
  if (nosqlPlanArgs(idxStr, argc, argv, aArg, 3) != SQLITE_OK || aArg[0].pEq == NULL || aArg[1].pEq == NULL) {
    nosqlVtabError(pCursor->pVtab, "kv_pairs: bad plan %s", idxStr ? idxStr : "(none)");
    return SQLITE_ERROR;
  }
  if (nosqlPlanKeep(aArg, 3, pCur->apArg) != SQLITE_OK) return SQLITE_NOMEM;
  if (sqlite3_value_type(aArg[0].pEq) == SQLITE_NULL || sqlite3_value_type(aArg[1].pEq) == SQLITE_NULL) {
    return SQLITE_OK;
  }
  if (aArg[2].pEq) {
    zSep = (const char *)sqlite3_value_text(aArg[2].pEq);
    if (sqlite3_value_type(aArg[2].pEq) == SQLITE_NULL) return SQLITE_OK;
    if (zSep == NULL || zSep[0] == 0) {
      nosqlVtabError(pCursor->pVtab, "kv_pairs: the separator must be a non-empty text");
      return SQLITE_ERROR;
    }
  }
  bBlob = sqlite3_value_type(aArg[1].pEq) == SQLITE_BLOB;
  zDoc = (const char *)sqlite3_value_text(aArg[1].pEq);
  if (zDoc == NULL) return SQLITE_NOMEM;
  if (!bBlob && nosqlJsonTooDeep(zDoc, sqlite3_value_bytes(aArg[1].pEq))) {
    nosqlVtabError(pCursor->pVtab, "kv_pairs: doc " NOSQL_JSON_DEEP, NOSQL_JSON_MAX_DEPTH);
    return SQLITE_ERROR;
  }
  if (bBlob || !docIsObjectText(zDoc, sqlite3_value_bytes(aArg[1].pEq))) {
    char *z = nosqlValueQuote(aArg[1].pEq);
    nosqlVtabError(pCursor->pVtab, "kv_pairs: doc %s is not a JSON object", z ? z : "?");
    sqlite3_free(z);
    return SQLITE_ERROR;
  }
  pCur->zPrefix = sqlite3_mprintf("%s%s", sqlite3_value_text(aArg[0].pEq), zSep);
  if (pCur->zPrefix == NULL) return SQLITE_NOMEM;
  sqlite3_finalize(pCur->pStmt);
  pCur->pStmt = NULL;
  rc = sqlite3_prepare_v2(((kv_pairs_vtab *)pCursor->pVtab)->db, "SELECT key, value FROM json_each(?1)", -1,
                          &pCur->pStmt, 0);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_value(pCur->pStmt, 1, aArg[1].pEq);
  pCur->bEof = 0;
  pCur->iRow = 0;
  return kvPairsNext(pCursor);
}

static int kvPairsEof(sqlite3_vtab_cursor *pCursor) { return ((kv_pairs_cursor *)pCursor)->bEof; }

static int kvPairsColumn(sqlite3_vtab_cursor *pCursor, sqlite3_context *ctx, int iCol) {
  kv_pairs_cursor *pCur = (kv_pairs_cursor *)pCursor;
  switch (iCol) {
    case KV_PAIRS_KEY: {
      char *z = sqlite3_mprintf("%s%s", pCur->zPrefix, sqlite3_column_text(pCur->pStmt, 0));
      if (z == NULL) return SQLITE_NOMEM;
      sqlite3_result_text(ctx, z, -1, sqlite3_free);
      break;
    }
    case KV_PAIRS_FIELD:
      sqlite3_result_value(ctx, sqlite3_column_value(pCur->pStmt, 0));
      break;
    case KV_PAIRS_VALUE:
      sqlite3_result_value(ctx, sqlite3_column_value(pCur->pStmt, 1));
      break;
    default:
      nosqlPlanKeptResult(ctx, pCur->apArg[iCol - KV_PAIRS_PREFIX]);
      break;
  }
  return SQLITE_OK;
}

static int kvPairsRowid(sqlite3_vtab_cursor *pCursor, sqlite_int64 *pRowid) {
  *pRowid = ((kv_pairs_cursor *)pCursor)->iRow;
  return SQLITE_OK;
}

static sqlite3_module kvPairsModule = {
    0,                /* iVersion */
    0,                /* xCreate: eponymous only */
    kvPairsConnect,   /* xConnect */
    kvPairsBestIndex, /* xBestIndex */
    nosqlVtabFree,    /* xDisconnect */
    0,                /* xDestroy */
    kvPairsOpen,      /* xOpen */
    kvPairsClose,     /* xClose */
    kvPairsFilter,    /* xFilter */
    kvPairsNext,      /* xNext */
    kvPairsEof,       /* xEof */
    kvPairsColumn,    /* xColumn */
    kvPairsRowid,     /* xRowid */
    0,                /* xUpdate */
    0,                /* xBegin */
    0,                /* xSync */
    0,                /* xCommit */
    0,                /* xRollback */
    0,                /* xFindFunction */
    0,                /* xRename */
    0,                /* xSavepoint */
    0,                /* xRelease */
    0,                /* xRollbackTo */
    0,                /* xShadowName */
};

/*
** The feature "documents": doc_update, doc_schema (the owner of the
** statement cache), kv_object and kv_pairs.
*/
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
    rc = sqlite3_create_module_v2(db, "doc_schema", &docSchemaModule, pOwner, kvOwnerUnref);
  }
  for (nArg = 2; nArg <= 3 && rc == SQLITE_OK; nArg++) {
    rc = sqlite3_create_function(db, "kv_object", nArg, NOSQL_PURE | SQLITE_SUBTYPE | SQLITE_RESULT_SUBTYPE,
                                 0, 0, kvObjectStep, kvObjectFinal);
  }
  if (rc == SQLITE_OK) rc = sqlite3_create_module(db, "kv_pairs", &kvPairsModule, 0);
  kvOwnerUnref(pOwner);
  return rc;
}
