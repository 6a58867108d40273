/*
** tree_json.c: a tree as one document and back (technique 11 of the
** article, "Tree Aggregation").
**
**   tree_json(id, parent, payload[, children_key])      aggregate -> JSON
**   tree_rows(json[, children_key])
**       -> (id, parent, depth, ordinal, payload)        table-valued
**
** tree_json turns the rows of an adjacency list (any order) into one JSON
** array of root objects. Each node object is
**
**   {"id": <id>, <the payload's members>, "children": [<child objects>]}
**
** with its children in the order their rows arrived (so ORDER BY in the
** feeding query orders siblings). Every node has the children key, a leaf
** an empty array, so a reader never tests for its presence. A row whose
** parent is NULL or not among the rows is a root; roots keep their arrival
** order too. Errors name the id: a NULL id, a blob id, a non-finite real
** id, a duplicate id, a payload that is not a JSON object or that has the
** key "id" or the children key, a cycle. The payload NULL is an empty
** object. The output is minified (payload text is copied without the
** whitespace between tokens).
**
** Nesting: each level of the tree is two levels of JSON (the node object
** and its children array), and SQLite's JSON functions refuse text nested
** deeper than 1000 levels; a tree deeper than TREE_MAX_DEPTH is an error
** rather than a document nothing else can read.
**
** tree_rows is the inverse: one row per node object in document order
** (preorder), its id, its parent's id (NULL for a root), its depth (roots
** 0), its ordinal among its siblings (from 0) and its payload (the object
** without "id" and the children key, minified). tree_json over tree_rows'
** rows gives back tree_json's document. The input is a JSON array of node
** objects (or one node object); every node needs an "id" that is a number
** or a string, and a children value that is an array of objects, null or
** absent.
**
** Ids are compared as SQLite compares values (ext/graph_csr.c's
** GraphValue: 1 and 1.0 are one id, 1 and '1' two).
*/
#include "nosqlInt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef SQLITE_RESULT_SUBTYPE
#define SQLITE_RESULT_SUBTYPE 0x001000000
#endif
#define TREE_JSON_SUBTYPE 74 /* 'J': SQLite's JSON functions take the text as JSON */

/* Deepest node (root 0) whose document stays within 1000 JSON levels. */
#define TREE_MAX_DEPTH 498

/**************************************************************************
** Scanning JSON text that nosqlJsonStrict() has accepted: no checks here.
*/

static int tjSpace(const char *z, int i, int n) {
  while (i < n && (z[i] == ' ' || z[i] == '\t' || z[i] == '\n' || z[i] == '\r')) i++;
  return i;
}

/* Index just past the string whose opening quote is z[i]. */
static int tjStringEnd(const char *z, int i, int n) {
  for (;;) {
    const char *zQ = (const char *)memchr(&z[i + 1], '"', (size_t)(n - i - 1));
    int k;
    if (zQ == NULL) return n;
    i = (int)(zQ - z);
    /* Escaped when preceded by an odd number of backslashes. */
    for (k = i - 1; z[k] == '\\'; k--) {
    }
    if (((i - 1 - k) & 1) == 0) return i + 1;
  }
}

/* Index just past the value starting at z[i] (no leading space). */
static int tjSkip(const char *z, int i, int n) {
  int nDepth = 0;
  do {
    char c = z[i];
    if (c == '"') {
      i = tjStringEnd(z, i, n);
    } else if (c == '[' || c == '{') {
      nDepth++;
      i++;
    } else if (c == ']' || c == '}') {
      nDepth--;
      i++;
    } else if (c == ',' || c == ':' || c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      i++;
    } else {
      while (i < n && z[i] != ',' && z[i] != ']' && z[i] != '}' && z[i] != ' ' && z[i] != '\t' &&
             z[i] != '\n' && z[i] != '\r') {
        i++;
      }
    }
  } while (nDepth > 0 && i < n);
  return i;
}

/* Append z[0..n) without the whitespace between tokens. */
static void tjMinify(int *pRc, NosqlBuffer *pBuf, const char *z, int n) {
  int i = 0, iRun = 0;
  while (i < n) {
    char c = z[i];
    if (c == '"') {
      i = tjStringEnd(z, i, n);
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      nosqlBufferAppend(pRc, pBuf, &z[iRun], i - iRun);
      i = iRun = tjSpace(z, i, n);
    } else {
      i++;
    }
  }
  nosqlBufferAppend(pRc, pBuf, &z[iRun], n - iRun);
}

/* Decode the JSON string z[i..iEnd) (quotes included) into pBuf as UTF-8. */
static void tjDecode(int *pRc, NosqlBuffer *pBuf, const char *z, int i, int iEnd) {
  pBuf->n = 0;
  nosqlBufferGrow(pRc, pBuf, iEnd - i);
  if (*pRc != SQLITE_OK) return;
  pBuf->n = nosqlJsonUnescape(&z[i + 1], iEnd - i - 2, (char *)pBuf->a, NULL, 0);
  pBuf->a[pBuf->n] = 0;
}

/*
** True when the JSON string z[i..iEnd) (quotes included) decodes to zKey.
** The common case, no escapes, is one comparison.
*/
static int tjKeyIs(int *pRc, NosqlBuffer *pScratch, const char *z, int i, int iEnd, const char *zKey) {
  int n = iEnd - i - 2;
  if (memchr(&z[i + 1], '\\', (size_t)n) == NULL) {
    return (size_t)n == strlen(zKey) && memcmp(&z[i + 1], zKey, (size_t)n) == 0;
  }
  tjDecode(pRc, pScratch, z, i, iEnd);
  return *pRc == SQLITE_OK && (size_t)pScratch->n == strlen(zKey) &&
         memcmp(pScratch->a, zKey, (size_t)pScratch->n) == 0;
}

/* Append a node id as JSON. */
static void tjIdJson(int *pRc, NosqlBuffer *pBuf, const GraphValue *p) {
  switch (p->eType) {
    case SQLITE_INTEGER: {
      char a[24];
      int i = (int)sizeof(a);
      sqlite3_uint64 u = p->iVal < 0 ? (sqlite3_uint64)0 - (sqlite3_uint64)p->iVal : (sqlite3_uint64)p->iVal;
      do {
        a[--i] = (char)('0' + u % 10);
        u /= 10;
      } while (u);
      if (p->iVal < 0) a[--i] = '-';
      nosqlBufferAppend(pRc, pBuf, &a[i], (sqlite3_int64)sizeof(a) - i);
      break;
    }
    case SQLITE_FLOAT:
      nosqlBufferJsonReal(pRc, pBuf, p->rVal);
      break;
    default:
      nosqlBufferJsonString(pRc, pBuf, p->z, p->n);
      break;
  }
}

/* The children key argument: NULL is "children"; else non-empty text, not "id". */
static const char *tjChildrenKey(sqlite3_value *pVal, char **pzErr) {
  const char *z;
  if (pVal == NULL || sqlite3_value_type(pVal) == SQLITE_NULL) return "children";
  z = (const char *)sqlite3_value_text(pVal);
  if (sqlite3_value_type(pVal) != SQLITE_TEXT || z == NULL || z[0] == 0 || strcmp(z, "id") == 0) {
    char *zQ = nosqlValueQuote(pVal);
    *pzErr = sqlite3_mprintf("children_key must be a non-empty text other than 'id', not %s", zQ ? zQ : "?");
    sqlite3_free(zQ);
    return NULL;
  }
  return z;
}

/**************************************************************************
** tree_json
*/

/* One row: a GraphSet element (the id first). */
typedef struct TjNode TjNode;
struct TjNode {
  GraphValue v;        /* The id */
  GraphValue par;      /* The parent id (z owned), eType SQLITE_NULL for none */
  sqlite3_int64 iBody; /* The payload's members, without the braces: in TjAgg.body */
  int nBody;           /* Bytes of them (0: none) */
  int iFirst;          /* First child (index), -1 none */
  int iLast;           /* Last child, -1 none */
  int iNext;           /* Next sibling, -1 none */
  int iParent;         /* Parent index, -1 for a root */
  int bDone;           /* Written into the document */
};
#define TJ_AT(pSet, i) ((TjNode *)graphSetAt(pSet, i))

typedef struct TjAgg TjAgg;
struct TjAgg {
  GraphSet set;        /* The rows, by id */
  char *zKey;          /* The children key (sqlite3_malloc64) */
  NosqlBuffer body;    /* Every payload's members, one after another */
  NosqlBuffer scratch; /* Decoded keys */
  int bError;          /* An error was reported: ignore the rest */
};

static void tjAggFree(TjAgg *p) {
  int i;
  for (i = 0; i < p->set.n; i++) {
    sqlite3_free(TJ_AT(&p->set, i)->par.z);
  }
  graphSetClear(&p->set);
  sqlite3_free(p->zKey);
  nosqlBufferFree(&p->scratch);
  nosqlBufferFree(&p->body);
  memset(p, 0, sizeof(*p));
}

/* Report an error naming node id pId: zFmt has a %s for the id, then one for zArg. */
static void tjNodeError(sqlite3_context *ctx, TjAgg *p, const char *zFmt, const GraphValue *pId,
                        const char *zArg) {
  char *zId = graphValueText(pId);
  char *zMsg = sqlite3_mprintf(zFmt, zId ? zId : "?", zArg);
  if (zMsg) {
    sqlite3_result_error(ctx, zMsg, -1);
  } else {
    sqlite3_result_error_nomem(ctx);
  }
  sqlite3_free(zId);
  sqlite3_free(zMsg);
  p->bError = 1;
}

static void tjFail(sqlite3_context *ctx, TjAgg *p, int rc) {
  if (rc == SQLITE_NOMEM) {
    sqlite3_result_error_nomem(ctx);
  } else {
    sqlite3_result_error_code(ctx, rc);
  }
  p->bError = 1;
}

/*
** Check the payload of *pNode (NULL: no members) and append its members to
** p->body. Text with SQLite's JSON subtype (json_object(), json()) is valid
** and minified already; other text is checked and minified here.
*/
static int tjPayload(sqlite3_context *ctx, TjAgg *p, TjNode *pNode, sqlite3_value *pVal) {
  const char *z;
  int n, i, rc = SQLITE_OK, bJson;
  sqlite3_int64 iStart = p->body.n;
  int eType = sqlite3_value_type(pVal); /* Before sqlite3_value_text(), which makes a blob text */
  if (eType == SQLITE_NULL) return SQLITE_OK;
  bJson = eType == SQLITE_TEXT && sqlite3_value_subtype(pVal) == TREE_JSON_SUBTYPE;
  z = eType == SQLITE_BLOB ? "" : (const char *)sqlite3_value_text(pVal);
  n = eType == SQLITE_BLOB ? 0 : sqlite3_value_bytes(pVal);
  if (z == NULL) return SQLITE_NOMEM;
  i = tjSpace(z, 0, n);
  if (eType != SQLITE_BLOB && i < n && z[i] == '{' && !bJson && nosqlJsonTooDeep(z, n)) {
    char *zDeep = sqlite3_mprintf(NOSQL_JSON_DEEP, NOSQL_JSON_MAX_DEPTH);
    if (zDeep == NULL) return SQLITE_NOMEM;
    tjNodeError(ctx, p, "tree_json: the payload of id %s %s", &pNode->v, zDeep);
    sqlite3_free(zDeep);
    return SQLITE_ERROR;
  }
  if (eType == SQLITE_BLOB || i >= n || z[i] != '{' || (!bJson && !nosqlJsonStrict(z, n))) {
    char *zQ = nosqlValueQuote(pVal);
    if (eType != SQLITE_BLOB && i < n && z[i] == '{') {
      char *zAt = sqlite3_mprintf(NOSQL_JSON_AT ": %s", nosqlJsonErrorAt(z, n), zQ ? zQ : "?");
      tjNodeError(ctx, p, "tree_json: the payload of id %s %s", &pNode->v, zAt ? zAt : "?");
      sqlite3_free(zAt);
    } else {
      tjNodeError(ctx, p, "tree_json: the payload of id %s is not a JSON object: %s", &pNode->v,
                  zQ ? zQ : "?");
    }
    sqlite3_free(zQ);
    return SQLITE_ERROR;
  }
  /* Each member: reject the reserved keys, copy it. */
  i = tjSpace(z, i + 1, n);
  while (i < n && z[i] == '"') {
    int iKeyEnd = tjStringEnd(z, i, n), iVal, iEnd, bId;
    if ((bId = tjKeyIs(&rc, &p->scratch, z, i, iKeyEnd, "id")) != 0 ||
        tjKeyIs(&rc, &p->scratch, z, i, iKeyEnd, p->zKey)) {
      if (rc != SQLITE_OK) return rc;
      tjNodeError(ctx, p, "tree_json: the payload of id %s has the key '%s' (tree_json adds it)", &pNode->v,
                  bId ? "id" : p->zKey);
      return SQLITE_ERROR;
    }
    iVal = tjSpace(z, tjSpace(z, iKeyEnd, n) + 1, n);
    iEnd = tjSkip(z, iVal, n);
    if (p->body.n > iStart) nosqlBufferAppend(&rc, &p->body, ",", 1);
    if (bJson) {
      nosqlBufferAppend(&rc, &p->body, &z[i], iEnd - i);
    } else {
      nosqlBufferAppend(&rc, &p->body, &z[i], iKeyEnd - i);
      nosqlBufferAppend(&rc, &p->body, ":", 1);
      tjMinify(&rc, &p->body, &z[iVal], iEnd - iVal);
    }
    i = tjSpace(z, iEnd, n);
    if (i < n && z[i] == ',') i = tjSpace(z, i + 1, n);
  }
  if (rc != SQLITE_OK) return rc;
  pNode->iBody = iStart;
  pNode->nBody = (int)(p->body.n - iStart);
  return SQLITE_OK;
}

static void tjStep(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  TjAgg *p = (TjAgg *)sqlite3_aggregate_context(ctx, sizeof(TjAgg));
  GraphValue id, par;
  TjNode *pNode;
  int iNode, bNew, rc;
  if (p == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (p->bError) return;
  if (p->zKey == NULL) {
    char *zErr = NULL;
    const char *zKey = tjChildrenKey(argc > 3 ? argv[3] : NULL, &zErr);
    if (zKey == NULL) {
      nosqlResultError(ctx, "tree_json: %s", zErr ? zErr : "out of memory");
      sqlite3_free(zErr);
      p->bError = 1;
      return;
    }
    p->zKey = sqlite3_mprintf("%s", zKey);
    p->set.szElem = (int)sizeof(TjNode);
    if (p->zKey == NULL) {
      tjFail(ctx, p, SQLITE_NOMEM);
      return;
    }
  }
  if (!graphValueFrom(argv[0], &id)) {
    char *zPar = nosqlValueQuote(argv[1]);
    nosqlResultError(ctx, "tree_json: an id is NULL (parent %s)", zPar ? zPar : "?");
    sqlite3_free(zPar);
    p->bError = 1;
    return;
  }
  if (id.eType == SQLITE_BLOB || (id.eType == SQLITE_FLOAT && !isfinite(id.rVal))) {
    tjNodeError(ctx, p, "tree_json: id %s is not a JSON id (ids are integers, finite reals or text)%s", &id,
                "");
    return;
  }
  rc = graphSetAdd(&p->set, &id, &iNode, &bNew);
  if (rc != SQLITE_OK) {
    tjFail(ctx, p, rc);
    return;
  }
  if (!bNew) {
    tjNodeError(ctx, p, "tree_json: duplicate id %s%s", &id, "");
    return;
  }
  pNode = TJ_AT(&p->set, iNode);
  pNode->iFirst = pNode->iLast = pNode->iNext = pNode->iParent = -1;
  if (graphValueFrom(argv[1], &par)) {
    pNode->par = par;
    pNode->par.z = NULL;
    if (par.eType == SQLITE_TEXT || par.eType == SQLITE_BLOB) {
      pNode->par.z = (char *)sqlite3_malloc64((sqlite3_uint64)par.n + 1);
      if (pNode->par.z == NULL) {
        tjFail(ctx, p, SQLITE_NOMEM);
        return;
      }
      if (par.n) memcpy(pNode->par.z, par.z, (size_t)par.n);
    }
  } else {
    pNode->par.eType = SQLITE_NULL;
  }
  rc = tjPayload(ctx, p, pNode, argv[2]);
  if (rc != SQLITE_OK && !p->bError) tjFail(ctx, p, rc);
}

/* The error for a cycle: follow parent links from node i until one repeats. */
static void tjCycleError(sqlite3_context *ctx, TjAgg *p, int i) {
  int *aSeen = (int *)sqlite3_malloc64(sizeof(int) * (sqlite3_uint64)p->set.n);
  if (aSeen == NULL) {
    tjFail(ctx, p, SQLITE_NOMEM);
    return;
  }
  memset(aSeen, 0, sizeof(int) * (size_t)p->set.n);
  while (!aSeen[i]) {
    aSeen[i] = 1;
    i = TJ_AT(&p->set, i)->iParent;
  }
  sqlite3_free(aSeen);
  tjNodeError(ctx, p, "tree_json: a cycle of parents through id %s%s", &TJ_AT(&p->set, i)->v, "");
}

/*
** Link every row under its parent, in arrival order (roots in one more
** list, its head in *piRoot). A node that is its own parent is an error
** (reported; returns non-zero).
*/
static int tjLink(sqlite3_context *ctx, TjAgg *p, int *piRoot) {
  int i, iRootLast = -1;
  *piRoot = -1;
  for (i = 0; i < p->set.n; i++) {
    TjNode *pNode = TJ_AT(&p->set, i);
    int iPar = pNode->par.eType == SQLITE_NULL ? -1 : graphSetFind(&p->set, &pNode->par);
    if (iPar == i) {
      tjNodeError(ctx, p, "tree_json: id %s is its own parent%s", &pNode->v, "");
      return 1;
    }
    pNode->iParent = iPar;
    if (iPar < 0) {
      if (iRootLast < 0) {
        *piRoot = i;
      } else {
        TJ_AT(&p->set, iRootLast)->iNext = i;
      }
      iRootLast = i;
    } else {
      TjNode *pPar = TJ_AT(&p->set, iPar);
      if (pPar->iLast < 0) {
        pPar->iFirst = i;
      } else {
        TJ_AT(&p->set, pPar->iLast)->iNext = i;
      }
      pPar->iLast = i;
    }
  }
  return 0;
}

/*
** Write the document into *pOut, depth first from iRoot with an explicit
** stack of open nodes, marking each node written (bDone). A node deeper
** than TREE_MAX_DEPTH is an error (reported). Returns SQLITE_OK (check
** p->bError) or SQLITE_NOMEM.
*/
static int tjWrite(sqlite3_context *ctx, TjAgg *p, int iRoot, NosqlBuffer *pOut) {
  NosqlBuffer key = {0, 0, 0};
  int *aStack, nStack = 0, i = iRoot, rc = SQLITE_OK;
  nosqlBufferAppend(&rc, &key, ",", 1);
  nosqlBufferJsonString(&rc, &key, p->zKey, (int)strlen(p->zKey));
  nosqlBufferAppend(&rc, &key, ":[", 2);
  nosqlBufferGrow(&rc, pOut, p->body.n + (sqlite3_int64)p->set.n * (16 + key.n));
  aStack = (int *)sqlite3_malloc64(sizeof(int) * (TREE_MAX_DEPTH + 1));
  if (aStack == NULL) rc = SQLITE_NOMEM;
  nosqlBufferAppend(&rc, pOut, "[", 1);
  while (rc == SQLITE_OK && (i >= 0 || nStack > 0)) {
    if (i >= 0) {
      TjNode *pNode = TJ_AT(&p->set, i);
      if (nStack > TREE_MAX_DEPTH) {
        char zDepth[40];
        sqlite3_snprintf(sizeof(zDepth), zDepth, "%d", TREE_MAX_DEPTH);
        tjNodeError(ctx, p,
                    "tree_json: id %s is deeper than %s levels (its document would nest JSON past the 1000 "
                    "levels SQLite's JSON functions read)",
                    &pNode->v, zDepth);
        break;
      }
      nosqlBufferAppend(&rc, pOut, "{\"id\":", 6);
      tjIdJson(&rc, pOut, &pNode->v);
      if (pNode->nBody) {
        nosqlBufferAppend(&rc, pOut, ",", 1);
        nosqlBufferAppend(&rc, pOut, p->body.a + pNode->iBody, pNode->nBody);
      }
      nosqlBufferAppend(&rc, pOut, (const char *)key.a, key.n);
      pNode->bDone = 1;
      aStack[nStack++] = i;
      i = pNode->iFirst;
    } else {
      /* The node on top has no more children: close it, go to its next sibling. */
      int iTop = aStack[--nStack];
      nosqlBufferAppend(&rc, pOut, "]}", 2);
      i = TJ_AT(&p->set, iTop)->iNext;
      if (i >= 0) nosqlBufferAppend(&rc, pOut, ",", 1);
    }
  }
  nosqlBufferAppend(&rc, pOut, "]", 1);
  sqlite3_free(aStack);
  nosqlBufferFree(&key);
  return rc;
}

static void tjFinal(sqlite3_context *ctx) {
  TjAgg *p = (TjAgg *)sqlite3_aggregate_context(ctx, 0);
  NosqlBuffer out = {0, 0, 0};
  int i, rc = SQLITE_OK, iRoot;
  if (p == NULL || p->set.n == 0) {
    if (p == NULL || !p->bError) {
      sqlite3_result_text(ctx, "[]", 2, SQLITE_STATIC);
      sqlite3_result_subtype(ctx, TREE_JSON_SUBTYPE);
    }
    if (p) tjAggFree(p);
    return;
  }
  if (!p->bError && tjLink(ctx, p, &iRoot) == 0) rc = tjWrite(ctx, p, iRoot, &out);
  for (i = 0; rc == SQLITE_OK && !p->bError && i < p->set.n; i++) {
    /* A row never written hangs from a cycle (its parent chain never
    ** reaches a root): name a node of that cycle. */
    if (!TJ_AT(&p->set, i)->bDone) tjCycleError(ctx, p, i);
  }
  if (rc != SQLITE_OK) {
    tjFail(ctx, p, rc);
  } else if (!p->bError) {
    sqlite3_result_text64(ctx, (const char *)out.a, (sqlite3_uint64)out.n, sqlite3_free, SQLITE_UTF8);
    sqlite3_result_subtype(ctx, TREE_JSON_SUBTYPE);
    out.a = NULL;
  }
  nosqlBufferFree(&out);
  tjAggFree(p);
}

/**************************************************************************
** tree_rows
*/

#define TR_ID 0
#define TR_PARENT 1
#define TR_DEPTH 2
#define TR_ORDINAL 3
#define TR_PAYLOAD 4
#define TR_JSON 5
#define TR_KEY 6

/* One output row. */
typedef struct TrRow TrRow;
struct TrRow {
  int iId, nId;     /* The id's JSON text: zDoc[iId .. iId + nId) */
  int iParent;      /* Row index of the parent, -1 for a root */
  int iDepth;       /* Root 0 */
  int iOrdinal;     /* Among its siblings, from 0 */
  int iBody, nBody; /* The payload, minified, in the cursor's body buffer */
};

typedef struct tr_cursor tr_cursor;
struct tr_cursor {
  sqlite3_vtab_cursor base; /* Base class - must be first */
  char *zDoc;               /* The input (copy) */
  int nDoc;                 /* Bytes of zDoc */
  TrRow *aRow;              /* The rows, in document order */
  int nRow, nRowAlloc;      /* Rows used, allocated */
  NosqlBuffer body;         /* Every payload, one after another */
  NosqlBuffer scratch;      /* Decoded keys and ids */
  int *aOpen, *aClose;      /* Every '[' and '{' of zDoc, in order, and its match */
  int nBracket;             /* Entries of aOpen and aClose */
  int iRow;                 /* The row the cursor is on */
  sqlite3_value *apIn[2];   /* json, children_key */
  sqlite3_stmt *pNum;       /* "SELECT CAST(?1 AS NUMERIC)": ids that are not plain integers */
};

/* A frame of the walk: an array of node objects being read. */
typedef struct TrFrame TrFrame;
struct TrFrame {
  int i;       /* Index in zDoc of the next element (or of the closing ']') */
  int iParent; /* Row index of the nodes' parent, -1 for roots */
  int nSeen;   /* Elements read so far: the next one's ordinal */
};

static void trCursorReset(tr_cursor *pCur) {
  sqlite3_free(pCur->zDoc);
  sqlite3_free(pCur->aRow);
  sqlite3_free(pCur->aOpen);
  sqlite3_free(pCur->aClose);
  pCur->aOpen = pCur->aClose = NULL;
  pCur->nBracket = 0;
  nosqlBufferFree(&pCur->body);
  nosqlBufferFree(&pCur->scratch);
  sqlite3_value_free(pCur->apIn[0]);
  sqlite3_value_free(pCur->apIn[1]);
  pCur->zDoc = NULL;
  pCur->aRow = NULL;
  pCur->apIn[0] = pCur->apIn[1] = NULL;
  pCur->nRow = pCur->nRowAlloc = pCur->iRow = pCur->nDoc = 0;
}

/*
** Index the brackets of the document (valid JSON) in one pass, so that
** skipping a node's subtree costs a binary search, not a scan of it.
*/
static int trBrackets(tr_cursor *pCur) {
  const char *z = pCur->zDoc;
  int n = pCur->nDoc, i, nOpen = 0, *aStack, nStack = 0;
  for (i = 0; i < n; i++) {
    if (z[i] == '"') {
      i = tjStringEnd(z, i, n) - 1;
    } else if (z[i] == '[' || z[i] == '{') {
      nOpen++;
    }
  }
  pCur->aOpen = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)nOpen + 1));
  pCur->aClose = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)nOpen + 1));
  aStack = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)nOpen + 1));
  if (pCur->aOpen == NULL || pCur->aClose == NULL || aStack == NULL) {
    sqlite3_free(aStack);
    return SQLITE_NOMEM;
  }
  for (i = 0; i < n; i++) {
    if (z[i] == '"') {
      i = tjStringEnd(z, i, n) - 1;
    } else if (z[i] == '[' || z[i] == '{') {
      aStack[nStack++] = pCur->nBracket;
      pCur->aOpen[pCur->nBracket++] = i;
    } else if (z[i] == ']' || z[i] == '}') {
      pCur->aClose[aStack[--nStack]] = i;
    }
  }
  sqlite3_free(aStack);
  return SQLITE_OK;
}

/* Index just past the value at zDoc[i]. */
static int trSkip(tr_cursor *pCur, int i) {
  const char *z = pCur->zDoc;
  if (z[i] == '[' || z[i] == '{') {
    int lo = 0, hi = pCur->nBracket - 1;
    while (lo < hi) {
      int mid = (lo + hi) / 2;
      if (pCur->aOpen[mid] < i) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return pCur->aClose[lo] + 1;
  }
  return tjSkip(z, i, pCur->nDoc);
}

/* "$[0].children[2]"-style location of row iRow, for messages (sqlite3_mprintf). */
static char *trWhere(tr_cursor *pCur, int iRow, int iOrdinal, const char *zKey) {
  char *z = sqlite3_mprintf("[%d]", iOrdinal), *zUp;
  while (z && iRow >= 0) {
    zUp = sqlite3_mprintf("[%d].%s%z", pCur->aRow[iRow].iOrdinal, zKey, z);
    z = zUp;
    iRow = pCur->aRow[iRow].iParent;
  }
  return z ? sqlite3_mprintf("$%z", z) : NULL;
}

/* The error for a node with two members named zName ("id" or the children key). */
static int trDuplicate(tr_cursor *pCur, int iParent, int iOrdinal, const char *zKey, const char *zName,
                       char **pzErr) {
  char *zWhere = trWhere(pCur, iParent, iOrdinal, zKey);
  *pzErr = sqlite3_mprintf("the node at %s has two \"%s\" members", zWhere ? zWhere : "?", zName);
  sqlite3_free(zWhere);
  return SQLITE_ERROR;
}

/*
** Read the node object at zDoc[i] (ordinal iOrdinal under row iParent):
** append its row, and set *piKids to the index of its children array's
** first element ('[' + 1), or -1 when it has none.
*/
static int trNode(tr_cursor *pCur, const char *zKey, int i, int iParent, int iOrdinal, int *piKids,
                  char **pzErr) {
  const char *z = pCur->zDoc;
  int n = pCur->nDoc, rc = SQLITE_OK, bFirst = 1, iIdStart = -1, iIdEnd = -1, bKids = 0;
  TrRow *pRow;
  *piKids = -1;
  if (z[i] != '{') {
    char *zWhere = trWhere(pCur, iParent, iOrdinal, zKey);
    *pzErr = sqlite3_mprintf("the node at %s is not a JSON object", zWhere ? zWhere : "?");
    sqlite3_free(zWhere);
    return SQLITE_ERROR;
  }
  if (iParent >= 0 && pCur->aRow[iParent].iDepth >= 0x3fffffff) return SQLITE_TOOBIG;
  if (pCur->nRow == pCur->nRowAlloc) {
    int nNew = pCur->nRowAlloc ? pCur->nRowAlloc * 2 : 64;
    TrRow *aNew = (TrRow *)sqlite3_realloc64(pCur->aRow, sizeof(TrRow) * (sqlite3_uint64)nNew);
    if (aNew == NULL) return SQLITE_NOMEM;
    pCur->aRow = aNew;
    pCur->nRowAlloc = nNew;
  }
  pRow = &pCur->aRow[pCur->nRow];
  memset(pRow, 0, sizeof(*pRow));
  pRow->iParent = iParent;
  pRow->iDepth = iParent < 0 ? 0 : pCur->aRow[iParent].iDepth + 1;
  pRow->iOrdinal = iOrdinal;
  pRow->iBody = (int)pCur->body.n;
  nosqlBufferAppend(&rc, &pCur->body, "{", 1);
  i = tjSpace(z, i + 1, n);
  while (rc == SQLITE_OK && i < n && z[i] == '"') {
    int iKeyEnd = tjStringEnd(z, i, n), iVal, iEnd;
    iVal = tjSpace(z, tjSpace(z, iKeyEnd, n) + 1, n);
    iEnd = trSkip(pCur, iVal);
    if (tjKeyIs(&rc, &pCur->scratch, z, i, iKeyEnd, "id")) {
      /* A second "id" or children key: json_extract would read the first,
      ** PostgreSQL's jsonb the last; the tree is ambiguous, so it is refused. */
      if (iIdStart >= 0) return trDuplicate(pCur, iParent, iOrdinal, zKey, "id", pzErr);
      iIdStart = iVal;
      iIdEnd = iEnd;
    } else if (tjKeyIs(&rc, &pCur->scratch, z, i, iKeyEnd, zKey)) {
      if (bKids++) return trDuplicate(pCur, iParent, iOrdinal, zKey, zKey, pzErr);
      if (z[iVal] == '[') {
        *piKids = tjSpace(z, iVal + 1, n);
      } else if (z[iVal] != 'n') {
        char *zWhere = trWhere(pCur, iParent, iOrdinal, zKey);
        *pzErr =
            sqlite3_mprintf("the '%s' value of the node at %s is not an array", zKey, zWhere ? zWhere : "?");
        sqlite3_free(zWhere);
        return SQLITE_ERROR;
      }
    } else if (rc == SQLITE_OK) {
      if (!bFirst) nosqlBufferAppend(&rc, &pCur->body, ",", 1);
      bFirst = 0;
      nosqlBufferAppend(&rc, &pCur->body, &z[i], iKeyEnd - i);
      nosqlBufferAppend(&rc, &pCur->body, ":", 1);
      tjMinify(&rc, &pCur->body, &z[iVal], iEnd - iVal);
    }
    i = tjSpace(z, iEnd, n);
    if (i < n && z[i] == ',') i = tjSpace(z, i + 1, n);
  }
  nosqlBufferAppend(&rc, &pCur->body, "}", 1);
  if (rc != SQLITE_OK) return rc;
  pRow->nBody = (int)pCur->body.n - pRow->iBody;
  if (iIdStart < 0 ||
      (z[iIdStart] != '"' && z[iIdStart] != '-' && (z[iIdStart] < '0' || z[iIdStart] > '9'))) {
    char *zWhere = trWhere(pCur, iParent, iOrdinal, zKey);
    *pzErr = sqlite3_mprintf(iIdStart < 0 ? "the node at %s has no \"id\""
                                          : "the \"id\" of the node at %s is not a number or a string",
                             zWhere ? zWhere : "?");
    sqlite3_free(zWhere);
    return SQLITE_ERROR;
  }
  pRow->iId = iIdStart;
  pRow->nId = iIdEnd - iIdStart;
  pCur->nRow++;
  return SQLITE_OK;
}

/* Read the whole document into rows. */
static int trRead(tr_cursor *pCur, const char *zKey, char **pzErr) {
  const char *z = pCur->zDoc;
  int n = pCur->nDoc, i = tjSpace(z, 0, n), rc = SQLITE_OK, nFrame = 0, nFrameAlloc = 0;
  TrFrame *aFrame = NULL;
  if (z[i] == '{') {
    int iKids;
    rc = trNode(pCur, zKey, i, -1, 0, &iKids, pzErr);
    if (rc != SQLITE_OK || iKids < 0) return rc;
    i = iKids - 1; /* As if the children array were the document */
    nFrame = -1;
  } else if (z[i] != '[') {
    *pzErr = sqlite3_mprintf("the document is not a JSON array of node objects");
    return SQLITE_ERROR;
  }
  /* Frames are arrays of siblings: the roots, or some node's children. */
  aFrame = (TrFrame *)sqlite3_malloc64(sizeof(TrFrame) * 16);
  if (aFrame == NULL) return SQLITE_NOMEM;
  nFrameAlloc = 16;
  aFrame[0].i = tjSpace(z, i + 1, n);
  aFrame[0].iParent = nFrame < 0 ? 0 : -1;
  aFrame[0].nSeen = 0;
  nFrame = 1;
  while (rc == SQLITE_OK && nFrame > 0) {
    TrFrame *pF = &aFrame[nFrame - 1];
    int iKids, iEnd;
    if (z[pF->i] == ']') {
      nFrame--;
      continue;
    }
    rc = trNode(pCur, zKey, pF->i, pF->iParent, pF->nSeen, &iKids, pzErr);
    if (rc != SQLITE_OK) break;
    iEnd = trSkip(pCur, pF->i);
    pF->i = tjSpace(z, iEnd, n);
    if (z[pF->i] == ',') pF->i = tjSpace(z, pF->i + 1, n);
    pF->nSeen++;
    if (iKids >= 0) {
      if (nFrame == nFrameAlloc) {
        TrFrame *aNew =
            (TrFrame *)sqlite3_realloc64(aFrame, sizeof(TrFrame) * (sqlite3_uint64)nFrameAlloc * 2);
        if (aNew == NULL) {
          rc = SQLITE_NOMEM;
          break;
        }
        aFrame = aNew;
        nFrameAlloc *= 2;
      }
      aFrame[nFrame].i = iKids;
      aFrame[nFrame].iParent = pCur->nRow - 1;
      aFrame[nFrame].nSeen = 0;
      nFrame++;
    }
  }
  sqlite3_free(aFrame);
  return rc;
}

static int trConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                     char **pzErr) {
  (void)pAux;
  (void)argc;
  (void)argv;
  (void)pzErr;
  return nosqlVtabNew(db,
                      "CREATE TABLE x(id, parent, depth INTEGER, ordinal INTEGER, payload, json HIDDEN, "
                      "children_key HIDDEN)",
                      sizeof(sqlite3_vtab), ppVtab);
}

/* The plan (ext/plan.c): slot a json required, b children_key optional. */
static const NosqlPlanCol aTrPlan[] = {
    {TR_JSON, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 1},
    {TR_KEY, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0},
};

static int trBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo) {
  (void)pVtab;
  return nosqlPlanInputs(pInfo, aTrPlan, 2, 100, 100);
}

static int trOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor) {
  tr_cursor *pCur = (tr_cursor *)nosqlCursorNew(sizeof(tr_cursor), ppCursor);
  (void)pVtab;
  return pCur ? SQLITE_OK : SQLITE_NOMEM;
}

static int trClose(sqlite3_vtab_cursor *pCursor) {
  trCursorReset((tr_cursor *)pCursor);
  sqlite3_finalize(((tr_cursor *)pCursor)->pNum);
  sqlite3_free(pCursor);
  return SQLITE_OK;
}

static int trFilter(sqlite3_vtab_cursor *pCursor, int idxNum, const char *idxStr, int argc,
                    sqlite3_value **argv) {
  tr_cursor *pCur = (tr_cursor *)pCursor;
  NosqlPlanArg aArg[2];
  const char *zKey, *zDoc;
  char *zErr = NULL;
  int rc, i, eType;
  (void)idxNum;
  trCursorReset(pCur);
  if (nosqlPlanInputArgs(pCursor->pVtab, "tree_rows(json[, children_key])", aTrPlan, 2, idxStr, argc, argv,
                         aArg) != SQLITE_OK) {
    return SQLITE_ERROR;
  }
  for (i = 0; i < 2; i++) {
    if (aArg[i].pEq) {
      pCur->apIn[i] = sqlite3_value_dup(aArg[i].pEq);
      if (pCur->apIn[i] == NULL) return SQLITE_NOMEM;
    }
  }
  zKey = tjChildrenKey(aArg[1].pEq, &zErr);
  if (zKey == NULL) {
    nosqlVtabError(pCursor->pVtab, "tree_rows: %s", zErr ? zErr : "out of memory");
    sqlite3_free(zErr);
    return zErr ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  eType = sqlite3_value_type(aArg[0].pEq);    /* Before sqlite3_value_text(), which makes a blob text */
  if (eType == SQLITE_NULL) return SQLITE_OK; /* No document, no rows */
  zDoc = eType == SQLITE_BLOB ? "" : (const char *)sqlite3_value_text(aArg[0].pEq);
  if (zDoc == NULL) return SQLITE_NOMEM;
  if (eType != SQLITE_BLOB && nosqlJsonTooDeep(zDoc, sqlite3_value_bytes(aArg[0].pEq))) {
    nosqlVtabError(pCursor->pVtab, "tree_rows: the document " NOSQL_JSON_DEEP, NOSQL_JSON_MAX_DEPTH);
    return SQLITE_ERROR;
  }
  if (eType == SQLITE_BLOB || !nosqlJsonStrict(zDoc, sqlite3_value_bytes(aArg[0].pEq))) {
    char *zQ = nosqlValueQuote(aArg[0].pEq);
    if (eType == SQLITE_BLOB) {
      nosqlVtabError(pCursor->pVtab, "tree_rows: malformed JSON: %s", zQ ? zQ : "?");
    } else {
      nosqlVtabError(pCursor->pVtab, "tree_rows: the document " NOSQL_JSON_AT ": %s",
                     nosqlJsonErrorAt(zDoc, sqlite3_value_bytes(aArg[0].pEq)), zQ ? zQ : "?");
    }
    sqlite3_free(zQ);
    return SQLITE_ERROR;
  }
  pCur->nDoc = sqlite3_value_bytes(aArg[0].pEq);
  pCur->zDoc = (char *)sqlite3_malloc64((sqlite3_uint64)pCur->nDoc + 1);
  if (pCur->zDoc == NULL) return SQLITE_NOMEM;
  memcpy(pCur->zDoc, zDoc, (size_t)pCur->nDoc + 1);
  rc = trBrackets(pCur);
  if (rc == SQLITE_OK) rc = trRead(pCur, zKey, &zErr);
  if (zErr) {
    nosqlVtabError(pCursor->pVtab, "tree_rows: %s", zErr);
    sqlite3_free(zErr);
  }
  if (rc != SQLITE_OK) pCur->nRow = 0;
  return rc;
}

static int trNext(sqlite3_vtab_cursor *pCursor) {
  ((tr_cursor *)pCursor)->iRow++;
  return SQLITE_OK;
}

static int trEof(sqlite3_vtab_cursor *pCursor) {
  tr_cursor *pCur = (tr_cursor *)pCursor;
  return pCur->iRow >= pCur->nRow;
}

/* Set the result to the id whose JSON text is z[0..n). */
static int trResultId(tr_cursor *pCur, sqlite3_context *ctx, int iStart, int n) {
  const char *z = pCur->zDoc;
  int rc = SQLITE_OK;
  if (z[iStart] == '"') {
    tjDecode(&rc, &pCur->scratch, z, iStart, iStart + n);
    if (rc != SQLITE_OK) return rc;
    sqlite3_result_text(ctx, (const char *)pCur->scratch.a, (int)pCur->scratch.n, SQLITE_TRANSIENT);
  } else {
    /* A JSON number. A plain integer is read here; anything else by
    ** SQLite's own conversion, whatever its length and the C locale
    ** (strtod() reads "1.5" as 1 under a comma locale). As tree_json
    ** compares ids, a whole number is the integer: 1.0 and 1e2 are 1 and
    ** 100. */
    int i, bInt = n > 0 && n <= 18;
    sqlite3_int64 v = 0;
    for (i = z[iStart] == '-' ? 1 : 0; bInt && i < n; i++) {
      if (z[iStart + i] < '0' || z[iStart + i] > '9') bInt = 0;
      v = v * 10 + (z[iStart + i] - '0');
    }
    if (bInt && n > (z[iStart] == '-' ? 1 : 0)) {
      sqlite3_result_int64(ctx, z[iStart] == '-' ? -v : v);
      return SQLITE_OK;
    }
    if (pCur->pNum == NULL) {
      rc = sqlite3_prepare_v2(sqlite3_context_db_handle(ctx), "SELECT CAST(?1 AS NUMERIC)", -1, &pCur->pNum,
                              0);
      if (rc != SQLITE_OK) return rc;
    }
    sqlite3_bind_text(pCur->pNum, 1, &z[iStart], n, SQLITE_STATIC);
    if (sqlite3_step(pCur->pNum) == SQLITE_ROW)
      sqlite3_result_value(ctx, sqlite3_column_value(pCur->pNum, 0));
    rc = sqlite3_reset(pCur->pNum);
  }
  return rc;
}

static int trColumn(sqlite3_vtab_cursor *pCursor, sqlite3_context *ctx, int iCol) {
  tr_cursor *pCur = (tr_cursor *)pCursor;
  const TrRow *pRow = &pCur->aRow[pCur->iRow];
  switch (iCol) {
    case TR_ID:
      return trResultId(pCur, ctx, pRow->iId, pRow->nId);
    case TR_PARENT:
      if (pRow->iParent >= 0) {
        const TrRow *pPar = &pCur->aRow[pRow->iParent];
        return trResultId(pCur, ctx, pPar->iId, pPar->nId);
      }
      break;
    case TR_DEPTH:
      sqlite3_result_int(ctx, pRow->iDepth);
      break;
    case TR_ORDINAL:
      sqlite3_result_int(ctx, pRow->iOrdinal);
      break;
    case TR_PAYLOAD:
      sqlite3_result_text(ctx, (const char *)pCur->body.a + pRow->iBody, pRow->nBody, SQLITE_TRANSIENT);
      sqlite3_result_subtype(ctx, TREE_JSON_SUBTYPE);
      break;
    default:
      if (pCur->apIn[iCol - TR_JSON]) sqlite3_result_value(ctx, pCur->apIn[iCol - TR_JSON]);
      break;
  }
  return SQLITE_OK;
}

static int trRowid(sqlite3_vtab_cursor *pCursor, sqlite_int64 *pRowid) {
  *pRowid = ((tr_cursor *)pCursor)->iRow + 1;
  return SQLITE_OK;
}

static sqlite3_module trModule = {
    0,             /* iVersion */
    0,             /* xCreate: eponymous only */
    trConnect,     /* xConnect */
    trBestIndex,   /* xBestIndex */
    nosqlVtabFree, /* xDisconnect */
    0,             /* xDestroy */
    trOpen,        /* xOpen */
    trClose,       /* xClose */
    trFilter,      /* xFilter */
    trNext,        /* xNext */
    trEof,         /* xEof */
    trColumn,      /* xColumn */
    trRowid,       /* xRowid */
    0,             /* xUpdate */
    0,             /* xBegin */
    0,             /* xSync */
    0,             /* xCommit */
    0,             /* xRollback */
    0,             /* xFindFunction */
    0,             /* xRename */
    0,             /* xSavepoint */
    0,             /* xRelease */
    0,             /* xRollbackTo */
    0,             /* xShadowName */
};

/* The feature "trees": tree_json and tree_rows. */
int treeJsonRegister(sqlite3 *db) {
  int rc =
      sqlite3_create_function(db, "tree_json", 3, NOSQL_PURE | SQLITE_RESULT_SUBTYPE, 0, 0, tjStep, tjFinal);
  if (rc == SQLITE_OK) {
    rc = sqlite3_create_function(db, "tree_json", 4, NOSQL_PURE | SQLITE_RESULT_SUBTYPE, 0, 0, tjStep,
                                 tjFinal);
  }
  if (rc == SQLITE_OK) rc = sqlite3_create_module(db, "tree_rows", &trModule, 0);
  return rc;
}
