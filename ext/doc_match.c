/*
** doc_match.c: MongoDB query filters on JSON documents, the one evaluator
** behind doc_match(), doc_update's $pull conditions and (through
** docFilterMatch) array filters, so that all of them agree by construction.
**
**   doc_match(doc, filter) -> 1 or 0
**       1 when the JSON object doc matches filter, a MongoDB find filter
**       written as a strict JSON object: {"qty": {"$gte": 5}, "tags": "x"}.
**       NULL when doc or filter is NULL (as json_extract(NULL, ...) is
**       NULL, so that a WHERE clause skips the row and NOT doc_match(...)
**       does not select it either). An error when doc is not a strict JSON
**       object or the filter is not a valid filter (checked first: a bad
**       filter is an error on a NULL doc too). Deterministic and
**       innocuous: usable in WHERE, CHECK constraints, generated columns,
**       index_table keys, partial and expression indexes.
**
** The language is MongoDB's find filter on one document
** (docs/documents.md lists what differs, each on purpose):
**
**   - implicit AND of the members; $and, $or, $nor over arrays of filters;
**   - a member "a.b.c": a dotted path that goes down objects and through
**     arrays: when the path meets an array, every element that is an
**     object is looked into, and a numeric part also picks the element at
**     that index when it is the element's name as BSON writes it ("1", not
**     "01": docJsonArrayIndex); a path that ends on an array offers each
**     element and the array itself. The condition holds when any value the path reaches
**     satisfies it (a missing value counts as one: {a: null} matches a
**     document without a). $size and $elemMatch look at arrays whole;
**   - a member whose value is an object whose first key starts with '$'
**     holds operators ($eq $ne $gt $gte $lt $lte $in $nin $exists $type
**     $size $all $elemMatch $not $mod $regex $options); any other value is
**     an equality: {a: {b: 1}} is exact equality of documents, fields in
**     order, as in MongoDB;
**   - comparisons follow BSON's order and its type brackets: null < numbers
**     < strings < objects < arrays < booleans; $gt and the like compare
**     only values of one bracket (5 is not $gt "a"); integers and reals
**     compare exactly by value; strings by their UTF-8 bytes;
**   - $type takes MongoDB's names or codes ("double" 1, "string" 2,
**     "object" 3, "array" 4, "bool" 8, "null" 10, "int" 16, "long" 18,
**     "number"; the other BSON names and codes are accepted and never
**     match; code 0 and "missing" are errors that name $exists). A JSON
**     number written as an integer is "int" when it fits 32 bits, "long"
**     when it fits 64 bits, else "double", as is every number written with
**     a fraction or an exponent;
**   - $mod reads a real divisor, remainder or value truncated toward
**     zero: a divisor or remainder that is not finite or outside int64 is
**     an error, as is a divisor of 0; a value that is not finite or
**     outside int64 never matches (MongoDB 5.1);
**   - $regex runs PCRE2 (MongoDB's engine) in UTF-8 mode with $options
**     i, m, s, x and u (Unicode classes), under a match limit, a depth limit and a heap limit
**     (DOCF_MATCH_LIMIT...): a pattern that would run away is an error
**     naming it, never a hang; a pattern or options holding a NUL byte is
**     an error, as in MongoDB.
**
** How it works. A filter is compiled once, and checked whole, before any
** document is read (an error is an error on every document, wherever the
** bad condition stands), into a tree of DocExpr: AND, OR,
** NOR, NOT over PATH nodes, each a predicate (DOCP_*) on the values a path
** reaches. The values of the filter are decoded while compiling, so that
** matching never writes to the filter: a compiled filter serves any number
** of documents (doc_match keeps it with sqlite3_set_auxdata while the
** filter argument is a constant). A document is parsed once per call into
** a tree (ext/doc_json.c) in an arena the filter keeps and resets, so a
** warm call allocates nothing, and the expression walks it; nothing is
** copied. $in and $nin sort their values once and search them.
**
** Ownership: a DocFilter is sqlite3_malloc64'd with its own arena for the
** expression tree; compiled from text it also owns the parsed filter;
** compiled from a node (docFilterCompile) it points into the caller's
** tree, whose arena must outlive it. docFilterFree() frees everything it
** owns, the PCRE2 codes included.
*/
#include "nosqlInt.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <math.h>
#include <stdarg.h>
#include <string.h>

/*
** PCRE2's limits for one match: calls of its internal match function,
** depth of backtracking, and heap (KiB). A pattern that needs more is an
** error. The defaults (10,000,000 calls, a 20 GB heap) let one catastrophic
** pattern stall a query for seconds.
*/
#define DOCF_MATCH_LIMIT 1000000
#define DOCF_DEPTH_LIMIT 100000
#define DOCF_HEAP_LIMIT (64 * 1024)

/* Longest JSON value quoted in an error message, in bytes. */
#define DOCF_QUOTE_MAX 100

/* DocExpr.eOp */
#define DOCF_AND 1   /* Every child matches */
#define DOCF_OR 2    /* Some child matches */
#define DOCF_NOR 3   /* No child matches */
#define DOCF_NOT 4   /* apChild[0] does not match */
#define DOCF_FALSE 5 /* Nothing matches ($all: []) */
#define DOCF_PATH 6  /* Some value at the path satisfies ePred */

/* DocExpr.ePred: a predicate on one value (NULL: missing). */
#define DOCP_EQ 1
#define DOCP_LT 2
#define DOCP_LTE 3
#define DOCP_GT 4
#define DOCP_GTE 5
#define DOCP_IN 6
#define DOCP_EXISTS 7
#define DOCP_TYPE 8
#define DOCP_SIZE 9
#define DOCP_MOD 10
#define DOCP_REGEX 11
#define DOCP_ELEM_QUERY 12 /* $elemMatch {field: ...}: an element, as a document, matches apChild[0] */
#define DOCP_ELEM_VALUE 13 /* $elemMatch {$op: ...}: an element, as a value, matches apChild[0] */

/* $type's bits: 1 << code for codes 1..19; minKey and maxKey apart. */
#define DOCF_TYPE_MINKEY (1u << 20)
#define DOCF_TYPE_MAXKEY (1u << 21)
#define DOCF_TYPE_NUMBER ((1u << 1) | (1u << 16) | (1u << 18) | (1u << 19))

typedef struct DocExpr DocExpr;
typedef struct DocPart DocPart;
typedef struct DocRegex DocRegex;

/* One part of a dotted path. */
struct DocPart {
  const char *z; /* The part (decoded key text); not NUL terminated */
  int n;         /* Its bytes */
  int iIdx;      /* The array index it names (docJsonArrayIndex: "1", not "01"), else -1 */
};

/* A compiled $regex. */
struct DocRegex {
  pcre2_code *pCode;       /* The pattern */
  pcre2_match_data *pData; /* Match data, reused by every match */
  const char *zPat;        /* The pattern as written, for messages */
  int nPat;                /* Its bytes */
  DocRegex *pNext;         /* Next regex of the filter (the free list) */
};

/* One node of a compiled filter. */
struct DocExpr {
  int eOp;           /* DOCF_* */
  int ePred;         /* DOCF_PATH: DOCP_* */
  int bLeaf;         /* DOCF_PATH: a path ending on an array offers its elements too */
  int nPart;         /* Parts of the path; 0: the value itself */
  DocPart *aPart;    /* The parts */
  const char *zPath; /* The whole path, for messages (NUL terminated) */
  DocNode *pVal;     /* EQ..GTE: the operand; IN: the array of values */
  DocNode **apIn;    /* IN: the values other than null, sorted in BSON order, no two equal */
  int nIn;           /* IN: entries of apIn */
  int bInNull;       /* IN: null is one of the values (it matches a missing value too) */
  int nChild;        /* Children of AND, OR, NOR, NOT, ELEM_* */
  DocExpr **apChild; /* The children */
  sqlite3_int64 iA;  /* SIZE: the size; MOD: the divisor */
  sqlite3_int64 iB;  /* MOD: the remainder */
  unsigned mType;    /* TYPE: DOCF_TYPE bits */
  DocRegex *pRe;     /* REGEX: the pattern */
};

struct DocFilter {
  DocJson j;                    /* Arena of the expressions (and of the filter compiled from text) */
  DocJson jDoc;                 /* doc_match's arena for documents, reset (not freed) between calls */
  DocExpr *pRoot;               /* The filter, or NULL when pEq is set */
  DocNode *pEq;                 /* DOC_FILTER_PULL: a value that elements equal */
  int bObjOnly;                 /* DOC_FILTER_PULL: a query; only object elements can match */
  DocRegex *pRegex;             /* Every compiled $regex */
  pcre2_general_context *pGen;  /* PCRE2 memory through sqlite3_malloc64 */
  pcre2_compile_context *pComp; /* Compile options */
  pcre2_match_context *pMatch;  /* The limits */
};

/**************************************************************************
** Values: BSON's order.
*/

/* The canonical type of a value: the bracket that comparisons stay in. */
static int docfRank(const DocNode *p) {
  switch (p->eType) {
    case DOCJ_NULL:
      return 1;
    case DOCJ_INT:
    case DOCJ_REAL:
      return 2;
    case DOCJ_TEXT:
      return 3;
    case DOCJ_OBJECT:
      return 4;
    case DOCJ_ARRAY:
      return 5;
    default:
      return 6; /* true, false */
  }
}

/* int64 i against double r, exactly: <0, 0, >0. */
static int docfIntRealCmp(sqlite3_int64 i, double r) {
  sqlite3_int64 t;
  double rFrac;
  if (r >= 9223372036854775808.0) return -1;
  if (r < -9223372036854775808.0) return 1;
  t = (sqlite3_int64)r; /* Truncated: exact, as |r| < 2^63 */
  if (i != t) return i < t ? -1 : 1;
  rFrac = r - (double)t;
  return rFrac > 0 ? -1 : rFrac < 0 ? 1 : 0;
}

/*
** Double r truncated toward zero into *piVal: 1, or 0 when r is not finite
** or its integer part is outside the int64 range [-2^63, 2^63), as
** MongoDB's representAs<long long>(trunc(r)) reads it.
*/
static int docfRealToInt(double r, sqlite3_int64 *piVal) {
  if (!(r >= -9223372036854775808.0 && r < 9223372036854775808.0)) return 0;
  *piVal = (sqlite3_int64)r;
  return 1;
}

static int docfCmp(DocJson *pJ, DocNode *a, DocNode *b);

/* Next live member of object p at or after slot i. */
static int docfNextMember(const DocNode *p, int i) {
  while (i < p->u.c.nItem && p->u.c.aMember[i].pVal == NULL) i++;
  return i;
}

/* Bytes a[0..na) against b[0..nb): as BSON compares strings and field names. */
static int docfBytesCmp(const char *a, int na, const char *b, int nb) {
  int c = memcmp(a, b, (size_t)(na < nb ? na : nb));
  if (c) return c < 0 ? -1 : 1;
  return na < nb ? -1 : na > nb;
}

/*
** BSON's order of two values (<0, 0, >0): first the canonical type, then
** the value; objects member by member (the value's type, the name, the
** value), arrays element by element, a prefix first. 0 exactly when
** docJsonEqual() holds. On OOM (decoding an escaped string), pJ->rc.
*/
static int docfCmp(DocJson *pJ, DocNode *a, DocNode *b) {
  int ra = docfRank(a), rb = docfRank(b), i, j, c;
  if (ra != rb) return ra < rb ? -1 : 1;
  switch (a->eType) {
    case DOCJ_INT:
    case DOCJ_REAL: {
      sqlite3_int64 ia, ib;
      double xa, xb;
      int bA = docJsonNumber(pJ, a, &ia, &xa), bB = docJsonNumber(pJ, b, &ib, &xb);
      if (bA && bB) return ia < ib ? -1 : ia > ib;
      if (!bA && !bB) return xa < xb ? -1 : xa > xb;
      return bA ? docfIntRealCmp(ia, xb) : -docfIntRealCmp(ib, xa);
    }
    case DOCJ_TEXT: {
      int na, nb;
      const char *za = docJsonText(pJ, a, &na), *zb = docJsonText(pJ, b, &nb);
      if (za == NULL || zb == NULL) return 0;
      return docfBytesCmp(za, na, zb, nb);
    }
    case DOCJ_TRUE:
    case DOCJ_FALSE:
      return a->eType == b->eType ? 0 : a->eType == DOCJ_FALSE ? -1 : 1;
    case DOCJ_ARRAY:
      for (i = 0; i < a->u.c.nItem && i < b->u.c.nItem; i++) {
        c = docfCmp(pJ, a->u.c.apElem[i], b->u.c.apElem[i]);
        if (c) return c;
      }
      return a->u.c.nItem < b->u.c.nItem ? -1 : a->u.c.nItem > b->u.c.nItem;
    case DOCJ_OBJECT:
      i = docfNextMember(a, 0);
      j = docfNextMember(b, 0);
      while (i < a->u.c.nItem && j < b->u.c.nItem) {
        const DocMember *pA = &a->u.c.aMember[i], *pB = &b->u.c.aMember[j];
        int rA = docfRank(pA->pVal), rB = docfRank(pB->pVal);
        if (rA != rB) return rA < rB ? -1 : 1;
        c = docfBytesCmp(pA->zName, pA->nName, pB->zName, pB->nName);
        if (c) return c;
        c = docfCmp(pJ, pA->pVal, pB->pVal);
        if (c) return c;
        i = docfNextMember(a, i + 1);
        j = docfNextMember(b, j + 1);
      }
      return i < a->u.c.nItem ? 1 : j < b->u.c.nItem ? -1 : 0;
    default:
      return 0; /* null */
  }
}

/* The $type code bit of a value: integers by the range their value fits. */
static unsigned docfTypeBit(DocJson *pJ, DocNode *p) {
  sqlite3_int64 i;
  double r;
  switch (p->eType) {
    case DOCJ_NULL:
      return 1u << 10;
    case DOCJ_TRUE:
    case DOCJ_FALSE:
      return 1u << 8;
    case DOCJ_TEXT:
      return 1u << 2;
    case DOCJ_OBJECT:
      return 1u << 3;
    case DOCJ_ARRAY:
      return 1u << 4;
    case DOCJ_INT:
      if (docJsonNumber(pJ, p, &i, &r)) return i >= -2147483648LL && i <= 2147483647LL ? 1u << 16 : 1u << 18;
      return 1u << 1;
    default:
      return 1u << 1;
  }
}

/**************************************************************************
** Matching.
*/

/* The state of one match: the document's arena and the first error. */
typedef struct DocRun DocRun;
struct DocRun {
  DocFilter *pF; /* The filter */
  DocJson *pJ;   /* Arena of the document (decoded strings, key indexes) */
  int rc;        /* First error */
  char *zErr;    /* Its message (sqlite3_mprintf), or NULL */
};

static int docfExpr(DocRun *r, const DocExpr *pE, DocNode *pDoc);

/* Equality to filter value pV of a value (NULL: missing): null also matches a missing value. */
static int docfEq(DocRun *r, DocNode *pV, DocNode *pVal) {
  if (pV->eType == DOCJ_NULL) return pVal == NULL || pVal->eType == DOCJ_NULL;
  return pVal && docfCmp(r->pJ, pVal, pV) == 0;
}

/* $regex against string pVal. */
static int docfRegex(DocRun *r, const DocExpr *pE, DocNode *pVal) {
  DocRegex *pRe = pE->pRe;
  int n, rc;
  const char *z = docJsonText(r->pJ, pVal, &n);
  if (z == NULL) return 0;
  rc = pcre2_match(pRe->pCode, (PCRE2_SPTR)z, (PCRE2_SIZE)n, 0, 0, pRe->pData, r->pF->pMatch);
  if (rc >= 0) return 1;
  if (rc == PCRE2_ERROR_NOMATCH) return 0;
  if (rc == PCRE2_ERROR_NOMEMORY) {
    r->rc = SQLITE_NOMEM;
  } else {
    const char *zWhat = rc == PCRE2_ERROR_MATCHLIMIT   ? "match limit"
                        : rc == PCRE2_ERROR_DEPTHLIMIT ? "depth limit"
                        : rc == PCRE2_ERROR_HEAPLIMIT  ? "heap limit"
                                                       : NULL;
    r->rc = SQLITE_ERROR;
    if (zWhat) {
      r->zErr = sqlite3_mprintf("$regex at '%s': pattern '%.*s' hit PCRE2's %s", pE->zPath, pRe->nPat,
                                pRe->zPat, zWhat);
    } else {
      PCRE2_UCHAR aMsg[120];
      pcre2_get_error_message(rc, aMsg, sizeof(aMsg));
      r->zErr = sqlite3_mprintf("$regex at '%s': pattern '%.*s': %s", pE->zPath, pRe->nPat, pRe->zPat,
                                (const char *)aMsg);
    }
    if (r->zErr == NULL) r->rc = SQLITE_NOMEM;
  }
  return 0;
}

/* Predicate pE->ePred on one value, NULL when the path reaches nothing. */
static int docfPred(DocRun *r, const DocExpr *pE, DocNode *pVal) {
  int i, c;
  switch (pE->ePred) {
    case DOCP_EQ:
      return docfEq(r, pE->pVal, pVal);
    case DOCP_LT:
    case DOCP_LTE:
    case DOCP_GT:
    case DOCP_GTE:
      if (pE->pVal->eType == DOCJ_NULL) {
        /* Only $lte and $gte, which include equality, match null (and a missing value). */
        return (pE->ePred == DOCP_LTE || pE->ePred == DOCP_GTE) && (pVal == NULL || pVal->eType == DOCJ_NULL);
      }
      if (pVal == NULL || docfRank(pVal) != docfRank(pE->pVal)) return 0;
      c = docfCmp(r->pJ, pVal, pE->pVal);
      switch (pE->ePred) {
        case DOCP_LT:
          return c < 0;
        case DOCP_LTE:
          return c <= 0;
        case DOCP_GT:
          return c > 0;
        default:
          return c >= 0;
      }
    case DOCP_IN: {
      /* A binary search: an $in of thousands of ids costs a dozen comparisons per value. */
      int iLo = 0, iHi = pE->nIn;
      if (pVal == NULL || pVal->eType == DOCJ_NULL) return pE->bInNull;
      while (iLo < iHi) {
        int iMid = (iLo + iHi) / 2;
        c = docfCmp(r->pJ, pVal, pE->apIn[iMid]);
        if (c == 0) return 1;
        if (c < 0) {
          iHi = iMid;
        } else {
          iLo = iMid + 1;
        }
      }
      return 0;
    }
    case DOCP_EXISTS:
      return pVal != NULL;
    case DOCP_TYPE:
      return pVal && (pE->mType & docfTypeBit(r->pJ, pVal)) != 0;
    case DOCP_SIZE:
      return pVal && pVal->eType == DOCJ_ARRAY && pVal->u.c.nItem == pE->iA;
    case DOCP_MOD: {
      sqlite3_int64 iVal;
      double rVal;
      if (pVal == NULL || !docJsonIsNumber(pVal)) return 0;
      if (!docJsonNumber(r->pJ, pVal, &iVal, &rVal)) {
        /*
        ** A real is truncated toward zero; one that is not finite (1e400)
        ** or whose integer part is no int64 (1e19, or an integer written
        ** beyond int64, which is a double) matches nothing, as in MongoDB.
        */
        if (!docfRealToInt(rVal, &iVal)) return 0;
      }
      return (pE->iA == -1 ? 0 : iVal % pE->iA) == pE->iB;
    }
    case DOCP_REGEX:
      return pVal && pVal->eType == DOCJ_TEXT && docfRegex(r, pE, pVal);
    case DOCP_ELEM_QUERY:
    case DOCP_ELEM_VALUE:
      if (pVal == NULL || pVal->eType != DOCJ_ARRAY) return 0;
      for (i = 0; i < pVal->u.c.nItem && r->rc == SQLITE_OK; i++) {
        DocNode *pElem = pVal->u.c.apElem[i];
        if (pE->ePred == DOCP_ELEM_QUERY && pElem->eType < DOCJ_ARRAY) continue;
        if (docfExpr(r, pE->apChild[0], pElem)) return 1;
      }
      return 0;
    default:
      return 0;
  }
}

/*
** Whether some value that the parts of pE's path from iPart on reach from
** pVal (NULL: missing) satisfies pE's predicate. MongoDB's path rules: a
** missing field or a scalar where the path goes on reaches "missing"; an
** array where the path goes on offers, for each element, what the rest of
** the path reaches in it when it is an object and, when the next part is
** its index, what the path after that part reaches in it; an array where
** the path ends offers its elements and itself (bLeaf).
*/
static int docfWalk(DocRun *r, const DocExpr *pE, DocNode *pVal, int iPart) {
  const DocPart *pPart;
  int i;
  if (r->rc != SQLITE_OK) return 0;
  if (iPart == pE->nPart) {
    if (pE->bLeaf && pVal && pVal->eType == DOCJ_ARRAY) {
      for (i = 0; i < pVal->u.c.nItem; i++) {
        if (docfPred(r, pE, pVal->u.c.apElem[i])) return 1;
      }
    }
    return docfPred(r, pE, pVal);
  }
  if (pVal == NULL || pVal->eType < DOCJ_ARRAY) return docfPred(r, pE, NULL);
  pPart = &pE->aPart[iPart];
  if (iPart == 0 && pVal->eType == DOCJ_ARRAY) {
    /*
    ** An array matched as a document ($elemMatch's query form on an
    ** element that is an array): BSON's array is an object whose keys are
    ** the indexes, so {"b": null} matches [] and {"0": 1} matches [1, 2].
    */
    return docfWalk(
        r, pE, pPart->iIdx >= 0 && pPart->iIdx < pVal->u.c.nItem ? pVal->u.c.apElem[pPart->iIdx] : NULL, 1);
  }
  if (pVal->eType == DOCJ_OBJECT) {
    int k = docJsonObjFind(r->pJ, pVal, pPart->z, pPart->n);
    if (k < 0 && r->pJ->rc != SQLITE_OK) {
      r->rc = r->pJ->rc;
      return 0;
    }
    return docfWalk(r, pE, k >= 0 ? pVal->u.c.aMember[k].pVal : NULL, iPart + 1);
  }
  for (i = 0; i < pVal->u.c.nItem && r->rc == SQLITE_OK; i++) {
    DocNode *pElem = pVal->u.c.apElem[i];
    if (pElem->eType == DOCJ_OBJECT && docfWalk(r, pE, pElem, iPart)) return 1;
    if (pPart->iIdx == i) {
      if (iPart + 1 == pE->nPart) {
        if (docfPred(r, pE, pElem)) return 1; /* The element itself, not its elements */
      } else if (pElem->eType >= DOCJ_ARRAY && docfWalk(r, pE, pElem, iPart + 1)) {
        return 1;
      }
    }
  }
  return 0;
}

static int docfExpr(DocRun *r, const DocExpr *pE, DocNode *pDoc) {
  int i;
  if (r->rc != SQLITE_OK) return 0;
  switch (pE->eOp) {
    case DOCF_PATH:
      return docfWalk(r, pE, pDoc, 0);
    case DOCF_AND:
      for (i = 0; i < pE->nChild; i++) {
        if (!docfExpr(r, pE->apChild[i], pDoc)) return 0;
      }
      return 1;
    case DOCF_OR:
      for (i = 0; i < pE->nChild; i++) {
        if (docfExpr(r, pE->apChild[i], pDoc)) return 1;
      }
      return 0;
    case DOCF_NOR:
      for (i = 0; i < pE->nChild; i++) {
        if (docfExpr(r, pE->apChild[i], pDoc)) return 0;
      }
      return r->rc == SQLITE_OK;
    case DOCF_NOT:
      return !docfExpr(r, pE->apChild[0], pDoc) && r->rc == SQLITE_OK;
    default:
      return 0; /* DOCF_FALSE */
  }
}

int docFilterMatch(DocFilter *p, DocJson *pJ, DocNode *pVal, int *pbMatch, char **pzErr) {
  DocRun r;
  int bMatch = 0;
  memset(&r, 0, sizeof(r));
  r.pF = p;
  r.pJ = pJ;
  r.rc = pJ->rc;
  *pzErr = NULL;
  if (r.rc == SQLITE_OK) {
    if (p->pEq) {
      bMatch = docfCmp(pJ, pVal, p->pEq) == 0;
    } else if (!p->bObjOnly || pVal->eType == DOCJ_OBJECT) {
      bMatch = docfExpr(&r, p->pRoot, pVal);
    }
  }
  if (r.rc == SQLITE_OK) r.rc = pJ->rc;
  *pbMatch = r.rc == SQLITE_OK && bMatch;
  *pzErr = r.zErr;
  return r.rc;
}

int docFilterMatchAs(DocFilter *p, DocJson *pJ, const char *zName, int nName, DocNode *pVal, int *pbMatch,
                     char **pzErr) {
  /* {"<zName>": pVal} on the stack: searched linearly (one member), never indexed or changed. */
  DocMember m;
  DocNode obj;
  memset(&m, 0, sizeof(m));
  memset(&obj, 0, sizeof(obj));
  m.zName = zName;
  m.nName = nName;
  m.pVal = pVal;
  obj.eType = DOCJ_OBJECT;
  obj.bUnique = 1;
  obj.u.c.aMember = &m;
  obj.u.c.nItem = obj.u.c.nAlloc = 1;
  return docFilterMatch(p, pJ, &obj, pbMatch, pzErr);
}

/**************************************************************************
** Compiling.
*/

/* The state of one compilation. */
typedef struct DocComp DocComp;
struct DocComp {
  DocFilter *pF; /* The filter being built (its arena holds the expressions) */
  DocJson *pJ;   /* Arena of the filter's nodes (decoded strings go there) */
  int rc;        /* First error */
  char *zErr;    /* Its message (sqlite3_mprintf), or NULL */
};

/* Record an error (the first one wins); returns NULL for the callers' convenience. */
static DocExpr *docfError(DocComp *c, const char *zFmt, ...) {
  if (c->rc == SQLITE_OK) {
    va_list ap;
    va_start(ap, zFmt);
    c->zErr = sqlite3_vmprintf(zFmt, ap);
    va_end(ap);
    c->rc = c->zErr ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  return NULL;
}

/* Take over an arena's fatal error (OOM); returns c->rc. */
static int docfCheck(DocComp *c) {
  if (c->rc == SQLITE_OK && c->pF->j.rc != SQLITE_OK) c->rc = c->pF->j.rc;
  if (c->rc == SQLITE_OK && c->pJ->rc != SQLITE_OK) c->rc = c->pJ->rc;
  return c->rc;
}

/* The compact JSON text of a filter node for a message, in the filter's arena; "" on error. */
static const char *docfQuote(DocComp *c, const DocNode *p) {
  NosqlBuffer buf = {0, 0, 0};
  char *z = NULL;
  int rc = docJsonWrite(&c->pF->j, p, &buf, DOCF_QUOTE_MAX);
  if (rc == SQLITE_OK || rc == SQLITE_TOOBIG) {
    sqlite3_int64 n = buf.n > DOCF_QUOTE_MAX ? DOCF_QUOTE_MAX : buf.n;
    z = (char *)docJsonAlloc(&c->pF->j, n + 4);
    if (z) {
      memcpy(z, buf.a, (size_t)n);
      memcpy(z + n, rc == SQLITE_TOOBIG ? "..." : "", rc == SQLITE_TOOBIG ? 4 : 1);
    }
  } else if (rc == SQLITE_NOMEM) {
    c->pF->j.rc = SQLITE_NOMEM;
  }
  nosqlBufferFree(&buf);
  return z ? z : "";
}

static DocExpr *docfNew(DocComp *c, int eOp, int nChild) {
  DocExpr *p = (DocExpr *)docJsonAlloc(&c->pF->j, sizeof(DocExpr));
  if (p == NULL) return NULL;
  memset(p, 0, sizeof(*p));
  p->eOp = eOp;
  if (nChild > 0) {
    p->apChild = (DocExpr **)docJsonAlloc(&c->pF->j, (sqlite3_int64)sizeof(DocExpr *) * nChild);
    if (p->apChild == NULL) return NULL;
    memset(p->apChild, 0, sizeof(DocExpr *) * (size_t)nChild);
  }
  return p;
}

/*
** Decode every string and read every number of filter value p now, so
** that matching never writes to the filter (it may then serve documents
** of other arenas).
*/
static void docfPrime(DocComp *c, DocNode *p) {
  int i, n;
  sqlite3_int64 iVal;
  double rVal;
  if (docJsonTick(c->pJ) != SQLITE_OK) return;
  switch (p->eType) {
    case DOCJ_TEXT:
      docJsonText(c->pJ, p, &n);
      break;
    case DOCJ_INT:
    case DOCJ_REAL:
      docJsonNumber(c->pJ, p, &iVal, &rVal);
      break;
    case DOCJ_ARRAY:
      for (i = 0; i < p->u.c.nItem; i++) docfPrime(c, p->u.c.apElem[i]);
      break;
    case DOCJ_OBJECT:
      for (i = 0; i < p->u.c.nItem; i++) {
        if (p->u.c.aMember[i].pVal) docfPrime(c, p->u.c.aMember[i].pVal);
      }
      break;
  }
}

/* True when name z[0..n) is zLit. */
static int docfIs(const char *z, int n, const char *zLit) {
  return n == (int)strlen(zLit) && memcmp(z, zLit, (size_t)n) == 0;
}

/* The first live member of object p, or NULL. */
static const DocMember *docfFirst(const DocNode *p) {
  int i = docfNextMember(p, 0);
  return i < p->u.c.nItem ? &p->u.c.aMember[i] : NULL;
}

/* True when p is an object of operators: its first key starts with '$'. */
static int docfIsOps(const DocNode *p) {
  const DocMember *pM = p->eType == DOCJ_OBJECT ? docfFirst(p) : NULL;
  return pM && pM->nName > 0 && pM->zName[0] == '$';
}

/* True for the operators that take filters, not a path: $and, $or, $nor and MongoDB's others. */
static int docfIsPathless(const char *z, int n) {
  static const char *azOp[] = {"$and", "$or", "$nor", "$expr", "$where", "$text", "$comment", "$jsonSchema"};
  int i;
  for (i = 0; i < (int)(sizeof(azOp) / sizeof(azOp[0])); i++) {
    if (docfIs(z, n, azOp[i])) return 1;
  }
  return 0;
}

/* A PATH node at path zPath (parts aPart[0..nPart)), predicate ePred. */
static DocExpr *docfPath(DocComp *c, const char *zPath, DocPart *aPart, int nPart, int ePred) {
  DocExpr *p = docfNew(c, DOCF_PATH, 0);
  if (p == NULL) return NULL;
  p->ePred = ePred;
  /* A value itself (nPart 0: $elemMatch's value form, $pull) is never looked into. */
  p->bLeaf = nPart > 0 && ePred != DOCP_SIZE && ePred != DOCP_ELEM_QUERY && ePred != DOCP_ELEM_VALUE;
  p->zPath = zPath;
  p->aPart = aPart;
  p->nPart = nPart;
  return p;
}

/* NOT p, or NULL when p is NULL. */
static DocExpr *docfNot(DocComp *c, DocExpr *p) {
  DocExpr *pNot = p ? docfNew(c, DOCF_NOT, 1) : NULL;
  if (pNot == NULL) return NULL;
  pNot->nChild = 1;
  pNot->apChild[0] = p;
  return pNot;
}

/*
** A whole number of JSON number p in *piVal (a real only when it is
** whole): 1, else 0 (not a number, a fraction, beyond int64).
*/
static int docfWhole(DocComp *c, DocNode *p, sqlite3_int64 *piVal) {
  double r;
  if (!docJsonIsNumber(p)) return 0;
  if (docJsonNumber(c->pJ, p, piVal, &r)) return 1;
  if (!(r >= -9223372036854775808.0 && r < 9223372036854775808.0) || r != floor(r)) return 0;
  *piVal = (sqlite3_int64)r;
  return 1;
}

/* Type alias or code p of $type into *pm. */
static int docfTypeOf(DocComp *c, const char *zPath, DocNode *p, unsigned *pm) {
  static const struct {
    const char *zName; /* MongoDB's alias */
    int iCode;         /* Its code */
  } aType[] = {
      {"double", 1},    {"string", 2},     {"object", 3},      {"array", 4},    {"binData", 5},
      {"undefined", 6}, {"objectId", 7},   {"bool", 8},        {"date", 9},     {"null", 10},
      {"regex", 11},    {"dbPointer", 12}, {"javascript", 13}, {"symbol", 14},  {"javascriptWithScope", 15},
      {"int", 16},      {"timestamp", 17}, {"long", 18},       {"decimal", 19}, {"minKey", -1},
      {"maxKey", 127}};
  sqlite3_int64 iCode = 0;
  int i, bWhole = 1;
  if (p->eType == DOCJ_TEXT) {
    int n;
    const char *z = docJsonText(c->pJ, p, &n);
    if (z == NULL) return docfCheck(c);
    if (docfIs(z, n, "number")) {
      *pm |= DOCF_TYPE_NUMBER;
      return SQLITE_OK;
    }
    for (i = 0; i < (int)(sizeof(aType) / sizeof(aType[0])); i++) {
      if (docfIs(z, n, aType[i].zName)) break;
    }
    if (i == (int)(sizeof(aType) / sizeof(aType[0]))) {
      /* "missing" is what the aggregation $type gives an absent field; MongoDB names the way. */
      docfError(c, "$type at '%s': unknown type alias %s%s", zPath, docfQuote(c, p),
                docfIs(z, n, "missing") ? " (a missing field is {\"$exists\": false})" : "");
      return c->rc;
    }
    iCode = aType[i].iCode;
  } else if (!docJsonIsNumber(p)) {
    docfError(c, "$type at '%s' needs a type alias or code, or an array of them, not %s", zPath,
              docfQuote(c, p));
    return c->rc;
  } else if (!docfWhole(c, p, &iCode)) {
    bWhole = 0; /* 1.5, 1e300: no type has that code */
  }
  if (bWhole && iCode == -1) {
    *pm |= DOCF_TYPE_MINKEY;
  } else if (bWhole && iCode == 127) {
    *pm |= DOCF_TYPE_MAXKEY;
  } else if (bWhole && iCode >= 1 && iCode <= 19) {
    *pm |= 1u << iCode;
  } else {
    /* Code 0 is BSON's end of object: MongoDB names the way to ask for a missing field too. */
    docfError(c, "$type at '%s': invalid type code %s%s", zPath, docfQuote(c, p),
              bWhole && iCode == 0 ? " (a missing field is {\"$exists\": false})" : "");
  }
  return c->rc;
}

/* General memory for PCRE2: SQLite's allocator (and its OOM tests). */
static void *docfPcreMalloc(PCRE2_SIZE n, void *pArg) {
  (void)pArg;
  return sqlite3_malloc64((sqlite3_uint64)n);
}
static void docfPcreFree(void *p, void *pArg) {
  (void)pArg;
  sqlite3_free(p);
}

/* Compile $regex pRe (a string) with $options pOpt (NULL: none) at zPath. */
static DocExpr *docfRegexCompile(DocComp *c, const char *zPath, DocPart *aPart, int nPart, DocNode *pRe,
                                 DocNode *pOpt) {
  DocFilter *pF = c->pF;
  DocExpr *pE;
  DocRegex *pR;
  uint32_t flags = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
  const char *zPat, *zOpt = "";
  int nPat, nOpt = 0, i, iErr;
  PCRE2_SIZE iOff;
  if (pRe->eType != DOCJ_TEXT) {
    return docfError(c, "$regex at '%s' needs a string, not %s", zPath, docfQuote(c, pRe));
  }
  if (pOpt && pOpt->eType != DOCJ_TEXT) {
    return docfError(c, "$options at '%s' needs a string, not %s", zPath, docfQuote(c, pOpt));
  }
  zPat = docJsonText(c->pJ, pRe, &nPat);
  if (pOpt) zOpt = docJsonText(c->pJ, pOpt, &nOpt);
  if (zPat == NULL || zOpt == NULL) return NULL;
  /* MongoDB refuses both ("Regular expression cannot contain an embedded null byte"). */
  if (memchr(zPat, 0, (size_t)nPat)) {
    return docfError(c, "$regex at '%s': the pattern cannot contain a NUL byte: %s", zPath,
                     docfQuote(c, pRe));
  }
  if (memchr(zOpt, 0, (size_t)nOpt)) {
    return docfError(c, "$options at '%s': the options cannot contain a NUL byte: %s", zPath,
                     docfQuote(c, pOpt));
  }
  for (i = 0; i < nOpt; i++) {
    switch (zOpt[i]) {
      case 'i':
        flags |= PCRE2_CASELESS;
        break;
      case 'm':
        flags |= PCRE2_MULTILINE;
        break;
      case 's':
        flags |= PCRE2_DOTALL;
        break;
      case 'x':
        flags |= PCRE2_EXTENDED;
        break;
      case 'u':
        flags |= PCRE2_UCP; /* \w, \d, \b and POSIX classes by Unicode properties */
        break;
      default: {
        /* The whole character, however many UTF-8 bytes it has. */
        int nChar = 1;
        while (i + nChar < nOpt && (zOpt[i + nChar] & 0xc0) == 0x80) nChar++;
        return docfError(c, "$options at '%s': invalid flag '%.*s' (known: i, m, s, u, x)", zPath, nChar,
                         &zOpt[i]);
      }
    }
  }
  if (pF->pGen == NULL) {
    pF->pGen = pcre2_general_context_create(docfPcreMalloc, docfPcreFree, NULL);
    if (pF->pGen) pF->pComp = pcre2_compile_context_create(pF->pGen);
    if (pF->pComp) pF->pMatch = pcre2_match_context_create(pF->pGen);
    if (pF->pMatch == NULL) {
      c->rc = SQLITE_NOMEM;
      return NULL;
    }
    pcre2_set_match_limit(pF->pMatch, DOCF_MATCH_LIMIT);
    pcre2_set_depth_limit(pF->pMatch, DOCF_DEPTH_LIMIT);
    pcre2_set_heap_limit(pF->pMatch, DOCF_HEAP_LIMIT);
  }
  pR = (DocRegex *)docJsonAlloc(&pF->j, sizeof(DocRegex));
  pE = docfPath(c, zPath, aPart, nPart, DOCP_REGEX);
  if (pR == NULL || pE == NULL) return NULL;
  memset(pR, 0, sizeof(*pR));
  pR->zPat = zPat;
  pR->nPat = nPat;
  pR->pNext = pF->pRegex;
  pF->pRegex = pR;
  pR->pCode = pcre2_compile((PCRE2_SPTR)zPat, (PCRE2_SIZE)nPat, flags, &iErr, &iOff, pF->pComp);
  if (pR->pCode == NULL) {
    PCRE2_UCHAR aMsg[120];
    if (iErr == PCRE2_ERROR_NOMEMORY || iErr == 121) { /* 121: "failed to allocate memory" (ERR21) */
      c->rc = SQLITE_NOMEM;
      return NULL;
    }
    pcre2_get_error_message(iErr, aMsg, sizeof(aMsg));
    return docfError(c, "$regex at '%s': cannot compile '%.*s': %s at offset %d", zPath, nPat, zPat,
                     (const char *)aMsg, (int)iOff);
  }
  pR->pData = pcre2_match_data_create(1, pF->pGen);
  if (pR->pData == NULL) {
    c->rc = SQLITE_NOMEM;
    return NULL;
  }
  pE->pRe = pR;
  return pE;
}

static DocExpr *docfQuery(DocComp *c, DocNode *pObj, const char *zBase);
static DocExpr *docfOps(DocComp *c, DocNode *pOps, const char *zPath, DocPart *aPart, int nPart);

/*
** $elemMatch's argument pArg at zPath: the value form when its first key
** is an operator that takes a path ({"$gte": 80}), else a query on the
** elements as documents ({"qty": {"$gt": 1}}, {"$or": [...]}).
*/
static DocExpr *docfElemMatch(DocComp *c, const char *zPath, DocPart *aPart, int nPart, DocNode *pArg) {
  const DocMember *pFirst;
  DocExpr *pE, *pSub;
  int bValue;
  if (pArg->eType != DOCJ_OBJECT) {
    return docfError(c, "$elemMatch at '%s' needs an object, not %s", zPath, docfQuote(c, pArg));
  }
  pFirst = docfFirst(pArg);
  bValue = docfIsOps(pArg) && !docfIsPathless(pFirst->zName, pFirst->nName);
  pSub = bValue ? docfOps(c, pArg, zPath, NULL, 0) : docfQuery(c, pArg, zPath);
  pE = pSub ? docfPath(c, zPath, aPart, nPart, bValue ? DOCP_ELEM_VALUE : DOCP_ELEM_QUERY) : NULL;
  if (pE == NULL) return NULL;
  pE->nChild = 1;
  pE->apChild = (DocExpr **)docJsonAlloc(&c->pF->j, sizeof(DocExpr *));
  if (pE->apChild == NULL) return NULL;
  pE->apChild[0] = pSub;
  return pE;
}

/* $mod's [divisor, remainder] at zPath. */
static DocExpr *docfMod(DocComp *c, const char *zPath, DocPart *aPart, int nPart, DocNode *pArg) {
  sqlite3_int64 a[2];
  int i;
  DocExpr *pE;
  if (pArg->eType != DOCJ_ARRAY || pArg->u.c.nItem != 2) {
    return docfError(c, "$mod at '%s' needs an array [divisor, remainder], not %s", zPath,
                     docfQuote(c, pArg));
  }
  for (i = 0; i < 2; i++) {
    DocNode *p = pArg->u.c.apElem[i];
    double r;
    if (!docJsonIsNumber(p)) {
      return docfError(c, "$mod at '%s': the %s is not a number: %s", zPath, i ? "remainder" : "divisor",
                       docfQuote(c, p));
    }
    if (!docJsonNumber(c->pJ, p, &a[i], &r) && !docfRealToInt(r, &a[i])) {
      /* A real is truncated toward zero, as MongoDB does; it must be finite and fit int64. */
      return docfError(c, "$mod at '%s': the %s is %s: %s", zPath, i ? "remainder" : "divisor",
                       isinf(r) ? "not finite" : "outside the 64-bit integer range", docfQuote(c, p));
    }
  }
  if (a[0] == 0)
    return docfError(c, "$mod at '%s': the divisor cannot be 0: %s", zPath,
                     docfQuote(c, pArg->u.c.apElem[0]));
  pE = docfPath(c, zPath, aPart, nPart, DOCP_MOD);
  if (pE) {
    pE->iA = a[0];
    pE->iB = a[1];
  }
  return pE;
}

/* $all's array at zPath: AND of equalities, or of $elemMatch conditions. */
static DocExpr *docfAll(DocComp *c, const char *zPath, DocPart *aPart, int nPart, DocNode *pArg) {
  DocExpr *pAnd;
  int i, nElem = 0;
  if (pArg->eType != DOCJ_ARRAY) {
    return docfError(c, "$all at '%s' needs an array, not %s", zPath, docfQuote(c, pArg));
  }
  if (pArg->u.c.nItem == 0) return docfNew(c, DOCF_FALSE, 0);
  pAnd = docfNew(c, DOCF_AND, pArg->u.c.nItem);
  if (pAnd == NULL) return NULL;
  for (i = 0; i < pArg->u.c.nItem; i++) {
    DocNode *p = pArg->u.c.apElem[i];
    const DocMember *pFirst = docfIsOps(p) ? docfFirst(p) : NULL;
    DocExpr *pE;
    if (pFirst && docfIs(pFirst->zName, pFirst->nName, "$elemMatch") && p->u.c.nItem == 1) {
      nElem++;
      pE = docfElemMatch(c, zPath, aPart, nPart, pFirst->pVal);
    } else if (pFirst) {
      return docfError(c, "$all at '%s': an element is an operator other than $elemMatch: %s", zPath,
                       docfQuote(c, p));
    } else {
      docfPrime(c, p);
      pE = docfPath(c, zPath, aPart, nPart, DOCP_EQ);
      if (pE) pE->pVal = p;
    }
    if (pE == NULL) return NULL;
    pAnd->apChild[pAnd->nChild++] = pE;
  }
  if (nElem > 0 && nElem < pArg->u.c.nItem) {
    return docfError(c, "$all at '%s' mixes $elemMatch conditions and values", zPath);
  }
  return pAnd;
}

/* $type's argument at zPath: an alias, a code, or a non-empty array of them. */
static DocExpr *docfType(DocComp *c, const char *zPath, DocPart *aPart, int nPart, DocNode *pArg) {
  unsigned m = 0;
  DocExpr *pE;
  int i;
  if (pArg->eType == DOCJ_ARRAY) {
    if (pArg->u.c.nItem == 0) return docfError(c, "$type at '%s' needs at least one type", zPath);
    for (i = 0; i < pArg->u.c.nItem && c->rc == SQLITE_OK; i++) {
      docfTypeOf(c, zPath, pArg->u.c.apElem[i], &m);
    }
  } else {
    docfTypeOf(c, zPath, pArg, &m);
  }
  if (c->rc != SQLITE_OK) return NULL;
  pE = docfPath(c, zPath, aPart, nPart, DOCP_TYPE);
  if (pE) pE->mType = m;
  return pE;
}

/*
** $in's values (pE->pVal, primed) into pE->apIn: sorted in BSON order by a
** merge sort (the order needs the arena, which qsort() cannot pass), equal
** values kept once, null apart in bInNull.
*/
static int docfInSort(DocComp *c, DocExpr *pE) {
  int n = 0, i, w, nItem = pE->pVal->u.c.nItem;
  DocNode **a = (DocNode **)docJsonAlloc(&c->pF->j, (sqlite3_int64)sizeof(DocNode *) * (nItem + 1));
  DocNode **aTmp = (DocNode **)docJsonAlloc(&c->pF->j, (sqlite3_int64)sizeof(DocNode *) * (nItem + 1));
  if (a == NULL || aTmp == NULL) return docfCheck(c);
  for (i = 0; i < nItem; i++) {
    DocNode *p = pE->pVal->u.c.apElem[i];
    if (p->eType == DOCJ_NULL) {
      pE->bInNull = 1;
    } else {
      a[n++] = p;
    }
  }
  for (w = 1; w < n; w *= 2) {
    for (i = 0; i < n; i += 2 * w) {
      int iA = i, iB = i + w < n ? i + w : n, iEndA = iB, iEndB = i + 2 * w < n ? i + 2 * w : n, k = i;
      while (iA < iEndA || iB < iEndB) {
        if (iB >= iEndB || (iA < iEndA && docfCmp(c->pJ, a[iA], a[iB]) <= 0)) {
          aTmp[k++] = a[iA++];
        } else {
          aTmp[k++] = a[iB++];
        }
      }
    }
    memcpy(a, aTmp, sizeof(DocNode *) * (size_t)n);
  }
  for (i = w = 0; i < n; i++) {
    if (w == 0 || docfCmp(c->pJ, a[w - 1], a[i]) != 0) a[w++] = a[i];
  }
  pE->apIn = a;
  pE->nIn = w;
  return docfCheck(c);
}

/* One operator pOp of an operator object at zPath (its $options sibling pOpt, if any). */
static DocExpr *docfOp(DocComp *c, const DocMember *pOp, const char *zPath, DocPart *aPart, int nPart,
                       DocNode *pOpt) {
  static const struct {
    const char *zOp; /* Operator */
    int ePred;       /* DOCP_* */
    int bNot;        /* Its negation ($ne, $nin) */
  } aCmp[] = {{"$eq", DOCP_EQ, 0}, {"$ne", DOCP_EQ, 1},   {"$lt", DOCP_LT, 0}, {"$lte", DOCP_LTE, 0},
              {"$gt", DOCP_GT, 0}, {"$gte", DOCP_GTE, 0}, {"$in", DOCP_IN, 0}, {"$nin", DOCP_IN, 1}};
  DocNode *pArg = pOp->pVal;
  const char *z = pOp->zName;
  int n = pOp->nName, i;
  DocExpr *pE;
  for (i = 0; i < (int)(sizeof(aCmp) / sizeof(aCmp[0])); i++) {
    if (!docfIs(z, n, aCmp[i].zOp)) continue;
    if (aCmp[i].ePred == DOCP_IN) {
      int j;
      if (pArg->eType != DOCJ_ARRAY) {
        return docfError(c, "%s at '%s' needs an array, not %s", aCmp[i].zOp, zPath, docfQuote(c, pArg));
      }
      for (j = 0; j < pArg->u.c.nItem; j++) {
        if (docfIsOps(pArg->u.c.apElem[j])) {
          return docfError(c, "%s at '%s': an element is an operator: %s", aCmp[i].zOp, zPath,
                           docfQuote(c, pArg->u.c.apElem[j]));
        }
      }
    }
    docfPrime(c, pArg);
    pE = docfPath(c, zPath, aPart, nPart, aCmp[i].ePred);
    if (pE) pE->pVal = pArg;
    if (pE && aCmp[i].ePred == DOCP_IN && docfInSort(c, pE) != SQLITE_OK) return NULL;
    return aCmp[i].bNot ? docfNot(c, pE) : pE;
  }
  if (docfIs(z, n, "$exists")) {
    int bTrue = !(pArg->eType == DOCJ_NULL || pArg->eType == DOCJ_FALSE);
    if (docJsonIsNumber(pArg)) {
      sqlite3_int64 iVal;
      double rVal;
      bTrue = docJsonNumber(c->pJ, pArg, &iVal, &rVal) ? iVal != 0 : rVal != 0.0;
    }
    pE = docfPath(c, zPath, aPart, nPart, DOCP_EXISTS);
    return bTrue ? pE : docfNot(c, pE);
  }
  if (docfIs(z, n, "$type")) return docfType(c, zPath, aPart, nPart, pArg);
  if (docfIs(z, n, "$size")) {
    sqlite3_int64 iSize;
    if (!docfWhole(c, pArg, &iSize) || iSize < 0 || iSize > 2147483647) {
      return docfError(c, "$size at '%s' needs a non-negative integer, not %s", zPath, docfQuote(c, pArg));
    }
    pE = docfPath(c, zPath, aPart, nPart, DOCP_SIZE);
    if (pE) pE->iA = iSize;
    return pE;
  }
  if (docfIs(z, n, "$all")) return docfAll(c, zPath, aPart, nPart, pArg);
  if (docfIs(z, n, "$elemMatch")) return docfElemMatch(c, zPath, aPart, nPart, pArg);
  if (docfIs(z, n, "$mod")) return docfMod(c, zPath, aPart, nPart, pArg);
  if (docfIs(z, n, "$regex")) return docfRegexCompile(c, zPath, aPart, nPart, pArg, pOpt);
  if (docfIs(z, n, "$not")) {
    if (pArg->eType != DOCJ_OBJECT) {
      return docfError(c, "$not at '%s' needs an object of operators, not %s", zPath, docfQuote(c, pArg));
    }
    if (docfFirst(pArg) == NULL) return docfError(c, "$not at '%s' cannot be empty", zPath);
    return docfNot(c, docfOps(c, pArg, zPath, aPart, nPart));
  }
  return docfError(c, "unknown operator '%.*s' at '%s'", n, z, zPath);
}

/* The operators of object pOps on the values at zPath: their AND. */
static DocExpr *docfOps(DocComp *c, DocNode *pOps, const char *zPath, DocPart *aPart, int nPart) {
  DocExpr *pAnd = docfNew(c, DOCF_AND, pOps->u.c.nItem);
  const DocMember *pRegex = NULL, *pOpt = NULL;
  int i;
  if (pAnd == NULL) return NULL;
  for (i = 0; i < pOps->u.c.nItem; i++) {
    const DocMember *pM = &pOps->u.c.aMember[i];
    if (pM->pVal == NULL) continue;
    if (docfIs(pM->zName, pM->nName, "$regex")) pRegex = pM;
    if (docfIs(pM->zName, pM->nName, "$options")) pOpt = pM;
  }
  if (pOpt && pRegex == NULL) return docfError(c, "$options at '%s' needs a $regex", zPath);
  for (i = 0; i < pOps->u.c.nItem && c->rc == SQLITE_OK; i++) {
    const DocMember *pM = &pOps->u.c.aMember[i];
    DocExpr *pE;
    if (pM->pVal == NULL || pM == pOpt) continue;
    if (pM->nName == 0 || pM->zName[0] != '$') {
      return docfError(c, "unknown operator '%.*s' at '%s'", pM->nName, pM->zName, zPath);
    }
    pE = docfOp(c, pM, zPath, aPart, nPart, pOpt ? pOpt->pVal : NULL);
    if (pE == NULL) break;
    pAnd->apChild[pAnd->nChild++] = pE;
  }
  docfCheck(c);
  return c->rc == SQLITE_OK ? pAnd : NULL;
}

/* The parts of dotted path z[0..n) (decoded), in the filter's arena. */
static DocPart *docfSplit(DocComp *c, const char *z, int n, int *pnPart) {
  int i, nPart = 1, iPart = 0, iStart = 0;
  DocPart *aPart;
  for (i = 0; i < n; i++) nPart += z[i] == '.';
  aPart = (DocPart *)docJsonAlloc(&c->pF->j, (sqlite3_int64)sizeof(DocPart) * nPart);
  if (aPart == NULL) return NULL;
  for (i = 0; i <= n; i++) {
    if (i < n && z[i] != '.') continue;
    {
      DocPart *p = &aPart[iPart++];
      p->z = z + iStart;
      p->n = i - iStart;
      p->iIdx = docJsonArrayIndex(p->z, p->n);
    }
    iStart = i + 1;
  }
  *pnPart = nPart;
  return aPart;
}

/* $and, $or, $nor: a non-empty array of filters. */
static DocExpr *docfLogical(DocComp *c, const DocMember *pM, const char *zBase) {
  DocNode *pArg = pM->pVal;
  int i, eOp = docfIs(pM->zName, pM->nName, "$and")  ? DOCF_AND
               : docfIs(pM->zName, pM->nName, "$or") ? DOCF_OR
                                                     : DOCF_NOR;
  DocExpr *pE;
  int bOk = pArg->eType == DOCJ_ARRAY && pArg->u.c.nItem > 0;
  for (i = 0; bOk && i < pArg->u.c.nItem; i++) bOk = pArg->u.c.apElem[i]->eType == DOCJ_OBJECT;
  if (!bOk) {
    return docfError(c, "%.*s needs a non-empty array of filters, not %s", pM->nName, pM->zName,
                     docfQuote(c, pArg));
  }
  pE = docfNew(c, eOp, pArg->u.c.nItem);
  for (i = 0; pE && i < pArg->u.c.nItem; i++) {
    DocExpr *pSub = docfQuery(c, pArg->u.c.apElem[i], zBase);
    if (pSub == NULL) return NULL;
    pE->apChild[pE->nChild++] = pSub;
  }
  return pE;
}

/*
** A filter: object pObj, each member a condition on a path, or $and, $or,
** $nor. zBase is the path of the array whose elements it applies to
** ($elemMatch), for messages, or NULL at the top.
*/
static DocExpr *docfQuery(DocComp *c, DocNode *pObj, const char *zBase) {
  DocExpr *pAnd = docfNew(c, DOCF_AND, pObj->u.c.nItem);
  int i;
  if (pAnd == NULL || docfCheck(c) != SQLITE_OK) return NULL;
  for (i = 0; i < pObj->u.c.nItem; i++) {
    const DocMember *pM = &pObj->u.c.aMember[i];
    DocExpr *pE;
    if (pM->pVal == NULL) continue;
    if (pM->nName > 0 && pM->zName[0] == '$') {
      if (docfIs(pM->zName, pM->nName, "$comment")) continue;
      if (docfIs(pM->zName, pM->nName, "$and") || docfIs(pM->zName, pM->nName, "$or") ||
          docfIs(pM->zName, pM->nName, "$nor")) {
        pE = docfLogical(c, pM, zBase);
      } else if (docfIsPathless(pM->zName, pM->nName)) {
        return docfError(c, "operator '%.*s' is not supported", pM->nName, pM->zName);
      } else {
        return docfError(c, "unknown top-level operator '%.*s'", pM->nName, pM->zName);
      }
    } else {
      int nPart = 0;
      DocPart *aPart = docfSplit(c, pM->zName, pM->nName, &nPart);
      const char *zPath = zBase ? sqlite3_mprintf("%s.%.*s", zBase, pM->nName, pM->zName)
                                : sqlite3_mprintf("%.*s", pM->nName, pM->zName);
      char *zCopy = zPath ? (char *)docJsonAlloc(&c->pF->j, (sqlite3_int64)strlen(zPath) + 1) : NULL;
      if (zCopy) memcpy(zCopy, zPath, strlen(zPath) + 1);
      sqlite3_free((void *)zPath);
      if (aPart == NULL || zCopy == NULL) {
        c->rc = SQLITE_NOMEM;
        return NULL;
      }
      if (docfIsOps(pM->pVal)) {
        pE = docfOps(c, pM->pVal, zCopy, aPart, nPart);
      } else {
        docfPrime(c, pM->pVal);
        pE = docfPath(c, zCopy, aPart, nPart, DOCP_EQ);
        if (pE) pE->pVal = pM->pVal;
      }
    }
    if (pE == NULL) break;
    pAnd->apChild[pAnd->nChild++] = pE;
  }
  docfCheck(c);
  return c->rc == SQLITE_OK ? pAnd : NULL;
}

void docFilterFree(DocFilter *p) {
  DocRegex *pR;
  if (p == NULL) return;
  for (pR = p->pRegex; pR; pR = pR->pNext) {
    pcre2_match_data_free(pR->pData);
    pcre2_code_free(pR->pCode);
  }
  pcre2_match_context_free(p->pMatch);
  pcre2_compile_context_free(p->pComp);
  pcre2_general_context_free(p->pGen);
  docJsonClear(&p->j);
  docJsonClear(&p->jDoc);
  sqlite3_free(p);
}

/* Bytes of z[0..n) quoted in a message: at most 60, never half of a UTF-8 character. */
static int docfClip(const char *z, int n) {
  if (n <= 60) return n;
  n = 60;
  while (n > 0 && (z[n] & 0xc0) == 0x80) n--;
  return n;
}

/* Compile pFilter (its nodes in arena pJ) into pF, which is zeroed with its arena initialized. */
static int docfCompileInto(DocFilter *pF, DocJson *pJ, DocNode *pFilter, int eMode, const char *zPath,
                           char **pzErr) {
  DocComp c;
  memset(&c, 0, sizeof(c));
  c.pF = pF;
  c.pJ = pJ;
  if (eMode == DOC_FILTER_PULL && pFilter->eType != DOCJ_OBJECT) {
    /* $pull: {"tags": "a"} removes the elements equal to "a". */
    docfPrime(&c, pFilter);
    pF->pEq = pFilter;
  } else if (eMode == DOC_FILTER_PULL && docfIsOps(pFilter) &&
             !docfIsPathless(docfFirst(pFilter)->zName, docfFirst(pFilter)->nName)) {
    /* $pull: {"scores": {"$gte": 6}}: conditions on each element as a value. */
    char *zCopy = (char *)docJsonAlloc(&pF->j, (sqlite3_int64)strlen(zPath) + 1);
    if (zCopy) memcpy(zCopy, zPath, strlen(zPath) + 1);
    pF->pRoot = zCopy ? docfOps(&c, pFilter, zCopy, NULL, 0) : NULL;
  } else if (pFilter->eType != DOCJ_OBJECT) {
    docfError(&c, "the filter is not a JSON object: %s", docfQuote(&c, pFilter));
  } else {
    /* A query: {"qty": {"$lt": 5}} on documents, or on $pull's elements that are documents. */
    pF->bObjOnly = eMode == DOC_FILTER_PULL;
    pF->pRoot = docfQuery(&c, pFilter, zPath[0] ? zPath : NULL);
  }
  docfCheck(&c);
  *pzErr = c.zErr;
  return c.rc;
}

/* A new empty filter, or NULL on OOM. */
static DocFilter *docfAlloc(void) {
  DocFilter *pF = (DocFilter *)sqlite3_malloc64(sizeof(DocFilter));
  if (pF) {
    memset(pF, 0, sizeof(*pF));
    docJsonInit(&pF->j, NULL, NULL);
    docJsonInit(&pF->jDoc, NULL, NULL);
  }
  return pF;
}

int docFilterCompile(DocJson *pJ, DocNode *pFilter, int eMode, const char *zPath, DocFilter **pp,
                     char **pzErr) {
  DocFilter *pF = docfAlloc();
  int rc;
  *pp = NULL;
  *pzErr = NULL;
  if (pF == NULL) return SQLITE_NOMEM;
  rc = docfCompileInto(pF, pJ, pFilter, eMode, zPath, pzErr);
  if (rc != SQLITE_OK) {
    docFilterFree(pF);
    return rc;
  }
  *pp = pF;
  return SQLITE_OK;
}

int docFilterCompileText(const char *z, int n, DocFilter **pp, char **pzErr) {
  DocFilter *pF = docfAlloc();
  DocNode *pRoot = NULL;
  int rc;
  *pp = NULL;
  *pzErr = NULL;
  if (pF == NULL) return SQLITE_NOMEM;
  /* The filter's tree lives in the filter's own arena, next to its expressions. */
  rc = docJsonParse(&pF->j, z, n, 1, &pRoot);
  if (rc == SQLITE_ERROR) {
    *pzErr = pF->j.bDeep ? sqlite3_mprintf("the filter " NOSQL_JSON_DEEP, NOSQL_JSON_MAX_DEPTH)
                         : sqlite3_mprintf("the filter " NOSQL_JSON_AT ": '%.*s%s'", nosqlJsonErrorAt(z, n),
                                           docfClip(z, n), z, n > 60 ? "..." : "");
    if (*pzErr == NULL) rc = SQLITE_NOMEM;
  } else if (rc == SQLITE_OK) {
    rc = docfCompileInto(pF, &pF->j, pRoot, DOC_FILTER_QUERY, "", pzErr);
  }
  if (rc != SQLITE_OK) {
    docFilterFree(pF);
    return rc;
  }
  *pp = pF;
  return SQLITE_OK;
}

/**************************************************************************
** The SQL function.
*/

static void docfFreeAux(void *p) { docFilterFree((DocFilter *)p); }

/* Report error rc of doc_match with message zErr (without the function's name; freed here). */
static void docfResultError(sqlite3_context *ctx, int rc, char *zErr) {
  char *zMsg = zErr && rc != SQLITE_NOMEM ? sqlite3_mprintf("doc_match: %s", zErr) : NULL;
  if (zMsg) {
    sqlite3_result_error(ctx, zMsg, -1);
  } else if (rc == SQLITE_NOMEM || rc == SQLITE_ERROR) {
    /* An error without its message: the message itself met OOM. */
    sqlite3_result_error_nomem(ctx);
  } else {
    sqlite3_result_error_code(ctx, rc);
  }
  sqlite3_free(zMsg);
  sqlite3_free(zErr);
}

/*
** doc_match(doc, filter): 1 or 0; NULL when either is NULL. The filter is
** compiled first, so that a bad one is an error whatever the document, a
** NULL one included (as SQLite's regexp() checks its pattern first).
*/
static void docMatchFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  DocFilter *pF, *pNew = NULL;
  DocJson *pJ;
  DocNode *pDoc = NULL;
  const char *zDoc;
  char *zErr = NULL;
  int rc, bMatch = 0, nDoc;
  (void)argc;
  if (sqlite3_value_type(argv[1]) == SQLITE_NULL) return;
  pF = (DocFilter *)sqlite3_get_auxdata(ctx, 1);
  if (pF == NULL) {
    const char *z = (const char *)sqlite3_value_text(argv[1]);
    rc = z ? docFilterCompileText(z, sqlite3_value_bytes(argv[1]), &pNew, &zErr) : SQLITE_NOMEM;
    if (rc != SQLITE_OK) {
      docfResultError(ctx, rc, zErr);
      return;
    }
    pF = pNew;
  }
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
    /* Kept for the next row, as below. */
    if (pNew) sqlite3_set_auxdata(ctx, 1, pNew, docfFreeAux);
    return;
  }
  zDoc = (const char *)sqlite3_value_text(argv[0]);
  nDoc = sqlite3_value_bytes(argv[0]);
  /* The document's tree goes into the filter's arena, reset by the previous call. */
  pJ = &pF->jDoc;
  rc = zDoc ? docJsonParse(pJ, zDoc, nDoc, 0, &pDoc) : SQLITE_NOMEM;
  if (rc == SQLITE_ERROR) {
    zErr = pJ->bDeep
               ? sqlite3_mprintf("the document " NOSQL_JSON_DEEP, NOSQL_JSON_MAX_DEPTH)
               : sqlite3_mprintf("the document " NOSQL_JSON_AT ": '%.*s%s'", nosqlJsonErrorAt(zDoc, nDoc),
                                 docfClip(zDoc, nDoc), zDoc, nDoc > 60 ? "..." : "");
  } else if (rc == SQLITE_OK && pDoc->eType != DOCJ_OBJECT) {
    rc = SQLITE_ERROR;
    zErr = sqlite3_mprintf("the document is not a JSON object but %s", docJsonTypeName(pDoc));
  } else if (rc == SQLITE_OK) {
    rc = docFilterMatch(pF, pJ, pDoc, &bMatch, &zErr);
  }
  docJsonReset(pJ);
  if (rc == SQLITE_OK) {
    sqlite3_result_int(ctx, bMatch);
  } else {
    docfResultError(ctx, rc, zErr);
  }
  /* Kept while the filter argument stays constant; freed by SQLite otherwise (also at once on OOM). */
  if (pNew) sqlite3_set_auxdata(ctx, 1, pNew, docfFreeAux);
}

/* The feature "doc_match". */
int docMatchRegister(sqlite3 *db) {
  return sqlite3_create_function(db, "doc_match", 2, NOSQL_PURE, 0, docMatchFunc, 0, 0);
}
