/*
** doc_json.c: JSON documents as trees, the core that doc_update (ext/doc.c)
** edits: a strict parser, nodes that an update changes in place, MongoDB's
** equality of values, a hash consistent with it and its comparison order
** across types ($min, $max, $sort), and a writer that
** gives back every value the update did not change as it was read.
**
** How it works. docJsonParse() reads strict JSON (RFC 8259: exactly what
** nosqlJsonStrict() in ext/util.c accepts, at most NOSQL_JSON_MAX_DEPTH
** nested arrays and objects) into DocNodes allocated from the arena of a
** DocJson, which frees them all at once. The nodes point into the text:
**
**   - a scalar keeps its token: a string with its quotes and escapes as
**     written, a number as written. A number's value is read when first
**     needed: an int64 when the token is an integer that fits, else a
**     double (so 99999999999999999999 is the double 1e20, as in MongoDB);
**   - an object keeps its members in order, each key both as written (JSON
**     text) and decoded (escapes undone: "caf\u00e9" and "café" are one
**     key). Removing a member empties its slot (O(1)); an object of more
**     than DOCJ_LINEAR slots gets a hash index of its keys when first
**     searched, kept up to date by appends. A key written twice in the text
**     stays twice until docJsonObjUnique() keeps the first;
**   - an array keeps its elements in order;
**   - a container parsed from text without white space keeps that text
**     (bRaw) until something changes it, and is written back by one copy.
**
** docJsonWrite() writes a tree in the compact form SQLite's JSON functions
** produce (no white space between tokens), every token as it was read.
**
** Ownership: nodes, member and element arrays, hash indexes and decoded
** strings all belong to the DocJson's arena; docJsonClear() frees them.
** Nothing here calls SQLite but sqlite3_malloc64/sqlite3_free, the
** NosqlBuffer helpers, and the caller's xTick (its interrupt check).
*/
#include "nosqlInt.h"

#include <stdlib.h>
#include <string.h>

/* Objects with at most this many member slots are searched linearly. */
#define DOCJ_LINEAR 8

/*
** Levels of a value that docJsonHash() looks into (deeper parts hash alike).
** As deep as an update can nest: with fewer, $addToSet's $each of values
** that differ only below that level all hashed alike, and its hash set
** compared each with all the others (4,000 arrays 40 deep took 3 s). The
** bound keeps the recursion finite on a tree that a long dotted path made
** deeper than any text.
*/
#define DOCJ_HASH_DEPTH NOSQL_JSON_MAX_DEPTH

/* One block of the arena; the bytes handed out follow the header. */
typedef struct DocChunk DocChunk;
struct DocChunk {
  DocChunk *pNext;     /* Older chunk */
  sqlite3_int64 nUsed; /* Bytes handed out */
  sqlite3_int64 nSize; /* Bytes after the header */
};

/* Size of the first chunk; each next one doubles, up to DOCJ_CHUNK_MAX. */
#define DOCJ_CHUNK_MIN 4096
#define DOCJ_CHUNK_MAX (1 << 20)

void docJsonInit(DocJson *pJ, int (*xTick)(void *), void *pTickArg) {
  memset(pJ, 0, sizeof(*pJ));
  pJ->xTick = xTick;
  pJ->pTickArg = pTickArg;
}

void docJsonClear(DocJson *pJ) {
  DocChunk *p = (DocChunk *)pJ->pChunk;
  while (p) {
    DocChunk *pNext = p->pNext;
    sqlite3_free(p);
    p = pNext;
  }
  nosqlBufferFree(&pJ->stack);
  nosqlBufferFree(&pJ->tmp);
  pJ->pChunk = NULL;
}

void docJsonReset(DocJson *pJ) {
  DocChunk *p = (DocChunk *)pJ->pChunk;
  if (p) {
    DocChunk *pOld = p->pNext;
    while (pOld) {
      DocChunk *pNext = pOld->pNext;
      sqlite3_free(pOld);
      pOld = pNext;
    }
    p->pNext = NULL;
    p->nUsed = 0;
  }
  pJ->stack.n = 0;
  pJ->tmp.n = 0;
  pJ->rc = SQLITE_OK;
  pJ->bDeep = 0;
}

void *docJsonAlloc(DocJson *pJ, sqlite3_int64 nByte) {
  DocChunk *p = (DocChunk *)pJ->pChunk, *pNew;
  sqlite3_int64 n = (nByte + 7) & ~(sqlite3_int64)7, nNew;
  if (pJ->rc != SQLITE_OK) return NULL;
  if (p && p->nSize - p->nUsed >= n) {
    void *pRet = (char *)(p + 1) + p->nUsed;
    p->nUsed += n;
    return pRet;
  }
  nNew = p ? p->nSize * 2 : DOCJ_CHUNK_MIN;
  if (nNew > DOCJ_CHUNK_MAX) nNew = DOCJ_CHUNK_MAX;
  /* A large request gets a chunk of its own, behind the current one, which
  ** keeps serving the small requests. */
  if (n > nNew / 4) nNew = n;
  pNew = (DocChunk *)sqlite3_malloc64(sizeof(DocChunk) + (sqlite3_uint64)nNew);
  if (pNew == NULL) {
    pJ->rc = SQLITE_NOMEM;
    return NULL;
  }
  pNew->nSize = nNew;
  pNew->nUsed = n;
  if (p && nNew == n && n > DOCJ_CHUNK_MIN) {
    pNew->pNext = p->pNext;
    p->pNext = pNew;
  } else {
    pNew->pNext = p;
    pJ->pChunk = pNew;
  }
  return pNew + 1;
}

int docJsonTick(DocJson *pJ) {
  if (pJ->rc == SQLITE_OK && (++pJ->nTick & 0xfff) == 0 && pJ->xTick) pJ->rc = pJ->xTick(pJ->pTickArg);
  return pJ->rc;
}

DocNode *docJsonNew(DocJson *pJ, int eType) {
  static const char *azLit[] = {"null", "true", "false"};
  DocNode *p = (DocNode *)docJsonAlloc(pJ, sizeof(DocNode));
  if (p == NULL) return NULL;
  memset(p, 0, sizeof(*p));
  p->eType = (unsigned char)eType;
  p->bUnique = 1;
  if (eType <= DOCJ_FALSE) {
    p->z = azLit[eType];
    p->n = (int)strlen(p->z);
  }
  return p;
}

DocNode *docJsonNewNumber(DocJson *pJ, const char *z, int n, int eType) {
  DocNode *p = docJsonNew(pJ, eType);
  char *zCopy = p ? (char *)docJsonAlloc(pJ, n + 1) : NULL;
  if (zCopy == NULL) return NULL;
  memcpy(zCopy, z, (size_t)n);
  zCopy[n] = 0;
  p->z = zCopy;
  p->n = n;
  return p;
}

const char *docJsonTypeName(const DocNode *p) {
  static const char *azType[] = {"null", "true", "false", "integer", "real", "text", "array", "object"};
  return azType[p->eType];
}

int docJsonIsNumber(const DocNode *p) { return p->eType == DOCJ_INT || p->eType == DOCJ_REAL; }

/**************************************************************************
** The parser. It accepts what nosqlJsonStrict() accepts, rule for rule.
*/
typedef struct DocParse DocParse;
struct DocParse {
  DocJson *pJ;            /* Arena and scratch stack */
  const unsigned char *z; /* The text */
  int n;                  /* Its bytes */
  int i;                  /* Next byte to read */
  sqlite3_int64 nSpace;   /* White-space bytes skipped so far */
  int bDeep;              /* Failed on the nesting limit */
};

/* The token scanners are nosqlJsonStrict()'s (ext/util.c): the same grammar, rule for rule. */
static void docParseSpace(DocParse *p) {
  int i0 = p->i;
  p->i = nosqlJsonScanSpace(p->z, p->n, p->i);
  p->nSpace += p->i - i0;
}

/* A string starting at its opening quote: 1 if well formed (*pbEsc: it has escapes). */
static int docParseString(DocParse *p, int *pbEsc) { return nosqlJsonScanString(p->z, p->n, &p->i, pbEsc); }

/* A number: 1 if well formed (*pbInt: no fraction, no exponent). */
static int docParseNumber(DocParse *p, int *pbInt) { return nosqlJsonScanNumber(p->z, p->n, &p->i, pbInt); }

static DocNode *docParseValue(DocParse *p, int iDepth);

/* Decode the key of *pM (its zKey, nKey set); 0 on OOM. */
static int docParseKey(DocJson *pJ, DocMember *pM, int bEsc) {
  char *z;
  if (!bEsc) {
    pM->zName = pM->zKey + 1;
    pM->nName = pM->nKey - 2;
    return 1;
  }
  z = (char *)docJsonAlloc(pJ, pM->nKey);
  if (z == NULL) return 0;
  pM->nName = nosqlJsonUnescape(pM->zKey + 1, pM->nKey - 2, z, NULL, 0);
  pM->zName = z;
  return 1;
}

/*
** An array or object at its opening bracket. The items go on the scratch
** stack while they are read (one stack for every level: each container
** pops its own), then into one arena array of the exact size.
*/
static DocNode *docParseContainer(DocParse *p, int iDepth) {
  DocJson *pJ = p->pJ;
  unsigned char c = p->z[p->i], cEnd = c == '[' ? ']' : '}';
  sqlite3_int64 nSpace0 = p->nSpace, iStack = pJ->stack.n;
  int i0 = p->i, nDepth = 1, nItem = 0;
  size_t szItem = c == '[' ? sizeof(DocNode *) : sizeof(DocMember);
  DocNode *pNode;
  void *aItem = NULL;
  if (iDepth >= NOSQL_JSON_MAX_DEPTH) {
    p->bDeep = 1;
    return NULL;
  }
  p->i++;
  docParseSpace(p);
  if (p->i < p->n && p->z[p->i] == cEnd) {
    p->i++;
  } else {
    for (;;) {
      DocMember m;
      DocNode *pVal;
      if (c == '{') {
        int bEsc;
        docParseSpace(p);
        if (p->i >= p->n || p->z[p->i] != '"') goto fail;
        m.zKey = (const char *)&p->z[p->i];
        if (!docParseString(p, &bEsc)) goto fail;
        m.nKey = (int)((const char *)&p->z[p->i] - m.zKey);
        if (!docParseKey(pJ, &m, bEsc)) goto fail;
        docParseSpace(p);
        if (p->i >= p->n || p->z[p->i] != ':') goto fail;
        p->i++;
      }
      pVal = docParseValue(p, iDepth + 1);
      if (pVal == NULL) goto fail;
      if (pVal->eType >= DOCJ_ARRAY && pVal->nDepth >= nDepth) nDepth = pVal->nDepth + 1;
      if (c == '{') {
        m.pVal = pVal;
        nosqlBufferAppend(&pJ->rc, &pJ->stack, &m, sizeof(m));
      } else {
        nosqlBufferAppend(&pJ->rc, &pJ->stack, &pVal, sizeof(pVal));
      }
      if (pJ->rc != SQLITE_OK) goto fail;
      nItem++;
      docParseSpace(p);
      if (p->i >= p->n) goto fail;
      if (p->z[p->i] == cEnd) {
        p->i++;
        break;
      }
      if (p->z[p->i] != ',') goto fail;
      p->i++;
    }
  }
  pNode = docJsonNew(pJ, c == '[' ? DOCJ_ARRAY : DOCJ_OBJECT);
  if (pNode && nItem > 0) {
    aItem = docJsonAlloc(pJ, (sqlite3_int64)szItem * nItem);
    if (aItem) memcpy(aItem, pJ->stack.a + iStack, szItem * (size_t)nItem);
  }
  if (pNode == NULL || (nItem > 0 && aItem == NULL)) goto fail;
  if (c == '[') {
    pNode->u.c.apElem = (DocNode **)aItem;
  } else {
    pNode->u.c.aMember = (DocMember *)aItem;
    pNode->bUnique = nItem <= 1;
  }
  pNode->u.c.nItem = pNode->u.c.nAlloc = nItem;
  pNode->z = (const char *)&p->z[i0];
  pNode->n = p->i - i0;
  pNode->bRaw = p->nSpace == nSpace0;
  pNode->nDepth = nDepth;
  pJ->stack.n = iStack;
  return pNode;
fail:
  pJ->stack.n = iStack;
  return NULL;
}

static DocNode *docParseValue(DocParse *p, int iDepth) {
  DocJson *pJ = p->pJ;
  DocNode *pNode = NULL;
  unsigned char c;
  int i0, eType = -1, bFlag = 0;
  docParseSpace(p);
  if (p->i >= p->n || docJsonTick(pJ) != SQLITE_OK) return NULL;
  i0 = p->i;
  c = p->z[p->i];
  if (c == '[' || c == '{') return docParseContainer(p, iDepth);
  if (c == '"') {
    if (docParseString(p, &bFlag)) eType = DOCJ_TEXT;
  } else if (c == '-' || (c >= '0' && c <= '9')) {
    if (docParseNumber(p, &bFlag)) eType = bFlag ? DOCJ_INT : DOCJ_REAL;
  } else if (p->n - p->i >= 4 && memcmp(&p->z[p->i], "true", 4) == 0) {
    eType = DOCJ_TRUE;
  } else if (p->n - p->i >= 5 && memcmp(&p->z[p->i], "false", 5) == 0) {
    eType = DOCJ_FALSE;
  } else if (p->n - p->i >= 4 && memcmp(&p->z[p->i], "null", 4) == 0) {
    eType = DOCJ_NULL;
  }
  if (eType < 0) return NULL;
  pNode = docJsonNew(pJ, eType);
  if (pNode == NULL) return NULL;
  if (eType <= DOCJ_FALSE) p->i += pNode->n;
  pNode->z = (const char *)&p->z[i0];
  pNode->n = p->i - i0;
  if (eType == DOCJ_TEXT) pNode->bEsc = (unsigned char)bFlag;
  return pNode;
}

int docJsonParse(DocJson *pJ, const char *z, int n, int bCopy, DocNode **ppRoot) {
  DocParse s;
  DocNode *pRoot;
  *ppRoot = NULL;
  pJ->bDeep = 0;
  if (pJ->rc != SQLITE_OK) return pJ->rc;
  if (bCopy) {
    char *zCopy = (char *)docJsonAlloc(pJ, (sqlite3_int64)n + 1);
    if (zCopy == NULL) return pJ->rc;
    memcpy(zCopy, z, (size_t)n);
    zCopy[n] = 0;
    z = zCopy;
  }
  memset(&s, 0, sizeof(s));
  s.pJ = pJ;
  s.z = (const unsigned char *)z;
  s.n = n;
  pRoot = docParseValue(&s, 0);
  if (pRoot) {
    docParseSpace(&s);
    if (s.i != s.n) pRoot = NULL;
  }
  if (pJ->rc != SQLITE_OK) return pJ->rc;
  if (pRoot == NULL) {
    pJ->bDeep = s.bDeep;
    return SQLITE_ERROR;
  }
  *ppRoot = pRoot;
  return SQLITE_OK;
}

/**************************************************************************
** The writer.
*/
typedef struct DocWrite DocWrite;
struct DocWrite {
  DocJson *pJ;        /* Tick and the nesting flag */
  NosqlBuffer *pBuf;  /* Output */
  sqlite3_int64 nMax; /* Longest output allowed */
  int rc;             /* First error */
};

static void docOut(DocWrite *w, const char *z, sqlite3_int64 n) {
  nosqlBufferAppend(&w->rc, w->pBuf, z, n);
  if (w->rc == SQLITE_OK && w->pBuf->n > w->nMax) w->rc = SQLITE_TOOBIG;
}

/* Write p, nested in iDepth arrays and objects. */
static void docWriteNode(DocWrite *w, const DocNode *p, int iDepth) {
  int i, bFirst = 1;
  if (w->rc != SQLITE_OK) return;
  if (docJsonTick(w->pJ) != SQLITE_OK) {
    w->rc = w->pJ->rc;
    return;
  }
  if (p->eType < DOCJ_ARRAY) {
    docOut(w, p->z, p->n);
    return;
  }
  if (iDepth + (p->bRaw ? p->nDepth : 1) > NOSQL_JSON_MAX_DEPTH) {
    w->pJ->bDeep = 1;
    w->rc = SQLITE_ERROR;
    return;
  }
  if (p->bRaw) {
    docOut(w, p->z, p->n);
  } else if (p->eType == DOCJ_ARRAY) {
    docOut(w, "[", 1);
    for (i = 0; i < p->u.c.nItem && w->rc == SQLITE_OK; i++) {
      if (i > 0) docOut(w, ",", 1);
      docWriteNode(w, p->u.c.apElem[i], iDepth + 1);
    }
    docOut(w, "]", 1);
  } else {
    docOut(w, "{", 1);
    for (i = 0; i < p->u.c.nItem && w->rc == SQLITE_OK; i++) {
      const DocMember *pM = &p->u.c.aMember[i];
      if (pM->pVal == NULL) continue;
      if (!bFirst) docOut(w, ",", 1);
      bFirst = 0;
      docOut(w, pM->zKey, pM->nKey);
      docOut(w, ":", 1);
      docWriteNode(w, pM->pVal, iDepth + 1);
    }
    docOut(w, "}", 1);
  }
}

int docJsonWrite(DocJson *pJ, const DocNode *p, NosqlBuffer *pBuf, sqlite3_int64 nMax) {
  DocWrite w;
  w.pJ = pJ;
  w.pBuf = pBuf;
  w.nMax = nMax;
  w.rc = pJ->rc;
  pJ->bDeep = 0;
  docWriteNode(&w, p, 0);
  return w.rc;
}

/**************************************************************************
** Values: numbers, strings, equality, hashing.
*/

/*
** The double of number token z[0..n), which is not NUL terminated: read in
** the "C" locale, as a host that set a locale with a decimal comma would
** have strtod() read "1.5" as 1.
*/
static double docStrtod(DocJson *pJ, const char *z, int n) {
  char aBuf[64], *zCopy = aBuf;
  if (n >= (int)sizeof(aBuf)) {
    zCopy = (char *)docJsonAlloc(pJ, (sqlite3_int64)n + 1);
    if (zCopy == NULL) return 0.0;
  }
  memcpy(zCopy, z, (size_t)n);
  zCopy[n] = 0;
  return nosqlStrtod(zCopy);
}

int docJsonNumber(DocJson *pJ, DocNode *p, sqlite3_int64 *piVal, double *prVal) {
  if (p->eNum == 0 && p->eType == DOCJ_INT) {
    /* An integer token: int64 when it fits. */
    sqlite3_uint64 u = 0;
    int i, bNeg = p->z[0] == '-', bFit = 1;
    for (i = bNeg; i < p->n && bFit; i++) {
      unsigned d = (unsigned)(p->z[i] - '0');
      if (u > (~(sqlite3_uint64)0 - d) / 10) {
        bFit = 0;
      } else {
        u = u * 10 + d;
      }
    }
    if (bFit && u <= (sqlite3_uint64)1 << 63 && (bNeg || u < (sqlite3_uint64)1 << 63)) {
      p->u.num.iVal = bNeg ? (sqlite3_int64)(0 - u) : (sqlite3_int64)u;
      p->eNum = 1;
    }
  }
  if (p->eNum == 0) {
    p->u.num.rVal = docStrtod(pJ, p->z, p->n);
    p->eNum = 2;
  }
  *piVal = p->eNum == 1 ? p->u.num.iVal : 0;
  *prVal = p->eNum == 2 ? p->u.num.rVal : (double)p->u.num.iVal;
  return p->eNum == 1;
}

/* True when double r is an integer in the int64 range: *piVal gets it. */
static int docRealIsInt(double r, sqlite3_int64 *piVal) {
  if (!(r >= -9223372036854775808.0 && r < 9223372036854775808.0)) return 0;
  *piVal = (sqlite3_int64)r;
  return (double)*piVal == r;
}

/* Numeric equality; int64 against double exactly, never through a rounding. */
static int docNumEqual(DocJson *pJ, DocNode *a, DocNode *b) {
  sqlite3_int64 ia, ib;
  double ra, rb;
  int bIntA = docJsonNumber(pJ, a, &ia, &ra), bIntB = docJsonNumber(pJ, b, &ib, &rb);
  if (bIntA && bIntB) return ia == ib;
  if (!bIntA && !bIntB) return ra == rb;
  if (bIntA) return docRealIsInt(rb, &ib) && ia == ib;
  return docRealIsInt(ra, &ia) && ia == ib;
}

const char *docJsonText(DocJson *pJ, DocNode *p, int *pn) {
  if (!p->bEsc) {
    *pn = p->n - 2;
    return p->z + 1;
  }
  if (p->u.text.z == NULL) {
    char *z = (char *)docJsonAlloc(pJ, p->n);
    if (z == NULL) {
      *pn = 0;
      return NULL;
    }
    p->u.text.n = nosqlJsonUnescape(p->z + 1, p->n - 2, z, NULL, 0);
    p->u.text.z = z;
  }
  *pn = p->u.text.n;
  return p->u.text.z;
}

/* The next live member of object p at or after slot i, or p's slot count. */
static int docNextMember(const DocNode *p, int i) {
  while (i < p->u.c.nItem && p->u.c.aMember[i].pVal == NULL) i++;
  return i;
}

int docJsonEqual(DocJson *pJ, DocNode *a, DocNode *b) {
  int i, j;
  if (docJsonIsNumber(a) && docJsonIsNumber(b)) return docNumEqual(pJ, a, b);
  if (a->eType != b->eType) return 0;
  switch (a->eType) {
    case DOCJ_TEXT: {
      int na, nb;
      const char *za = docJsonText(pJ, a, &na), *zb = docJsonText(pJ, b, &nb);
      return za && zb && na == nb && memcmp(za, zb, (size_t)na) == 0;
    }
    case DOCJ_ARRAY:
      if (a->u.c.nItem != b->u.c.nItem) return 0;
      for (i = 0; i < a->u.c.nItem; i++) {
        if (!docJsonEqual(pJ, a->u.c.apElem[i], b->u.c.apElem[i])) return 0;
      }
      return 1;
    case DOCJ_OBJECT:
      i = docNextMember(a, 0);
      j = docNextMember(b, 0);
      while (i < a->u.c.nItem && j < b->u.c.nItem) {
        const DocMember *pA = &a->u.c.aMember[i], *pB = &b->u.c.aMember[j];
        if (pA->nName != pB->nName || memcmp(pA->zName, pB->zName, (size_t)pA->nName) != 0) return 0;
        if (!docJsonEqual(pJ, pA->pVal, pB->pVal)) return 0;
        i = docNextMember(a, i + 1);
        j = docNextMember(b, j + 1);
      }
      return i == a->u.c.nItem && j == b->u.c.nItem;
    default:
      return 1; /* null, true, false */
  }
}

/* MongoDB's (BSON's canonical) order of the JSON types: null, numbers, strings, objects, arrays, booleans. */
static int docTypeRank(const DocNode *p) {
  static const unsigned char aRank[] = {0, 5, 5, 1, 1, 2, 4, 3};
  return aRank[p->eType];
}

/* Double r against integer i, exactly (never through a rounding): <0, 0, >0. */
static int docRealIntCompare(double r, sqlite3_int64 i) {
  sqlite3_int64 t;
  if (r >= 9223372036854775808.0) return 1;
  if (r < -9223372036854775808.0) return -1;
  t = (sqlite3_int64)r; /* r truncated: exact, and so is the fraction r - t */
  if (t != i) return t < i ? -1 : 1;
  r -= (double)t;
  return r < 0.0 ? -1 : r > 0.0;
}

int docJsonCompare(DocJson *pJ, DocNode *a, DocNode *b) {
  int ra = docTypeRank(a), rb = docTypeRank(b), i, j, c;
  if (ra != rb) return ra < rb ? -1 : 1;
  switch (a->eType) {
    case DOCJ_INT:
    case DOCJ_REAL: {
      sqlite3_int64 ia, ib;
      double fa, fb;
      int bIntA = docJsonNumber(pJ, a, &ia, &fa), bIntB = docJsonNumber(pJ, b, &ib, &fb);
      if (bIntA && bIntB) return ia < ib ? -1 : ia > ib;
      if (!bIntA && !bIntB) return fa < fb ? -1 : fa > fb;
      return bIntA ? -docRealIntCompare(fb, ia) : docRealIntCompare(fa, ib);
    }
    case DOCJ_TEXT: {
      int na, nb;
      const char *za = docJsonText(pJ, a, &na), *zb = docJsonText(pJ, b, &nb);
      if (za == NULL || zb == NULL) return 0;
      c = memcmp(za, zb, (size_t)(na < nb ? na : nb));
      return c ? (c < 0 ? -1 : 1) : (na < nb ? -1 : na > nb);
    }
    case DOCJ_ARRAY:
      for (i = 0; i < a->u.c.nItem && i < b->u.c.nItem; i++) {
        c = docJsonCompare(pJ, a->u.c.apElem[i], b->u.c.apElem[i]);
        if (c) return c;
      }
      return a->u.c.nItem < b->u.c.nItem ? -1 : a->u.c.nItem > b->u.c.nItem;
    case DOCJ_OBJECT:
      /* Member by member: the value's type, then the name, then the value (BSON's woCompare). */
      i = docNextMember(a, 0);
      j = docNextMember(b, 0);
      while (i < a->u.c.nItem && j < b->u.c.nItem) {
        const DocMember *pA = &a->u.c.aMember[i], *pB = &b->u.c.aMember[j];
        ra = docTypeRank(pA->pVal);
        rb = docTypeRank(pB->pVal);
        if (ra != rb) return ra < rb ? -1 : 1;
        c = memcmp(pA->zName, pB->zName, (size_t)(pA->nName < pB->nName ? pA->nName : pB->nName));
        if (c == 0) c = pA->nName - pB->nName;
        if (c) return c < 0 ? -1 : 1;
        c = docJsonCompare(pJ, pA->pVal, pB->pVal);
        if (c) return c;
        i = docNextMember(a, i + 1);
        j = docNextMember(b, j + 1);
      }
      return i < a->u.c.nItem ? 1 : j < b->u.c.nItem ? -1 : 0;
    case DOCJ_NULL:
      return 0;
    default: /* false < true */
      return (a->eType == DOCJ_TRUE) - (b->eType == DOCJ_TRUE);
  }
}

static sqlite3_uint64 docMix(sqlite3_uint64 h, sqlite3_uint64 v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

static sqlite3_uint64 docHashBytes(const char *z, int n) { return nosqlFnv1a(NOSQL_FNV_SEED, z, n); }

static sqlite3_uint64 docHashNode(DocJson *pJ, DocNode *p, int iDepth) {
  sqlite3_uint64 h = (sqlite3_uint64)p->eType;
  int i;
  if (iDepth > DOCJ_HASH_DEPTH) return h;
  switch (p->eType) {
    case DOCJ_INT:
    case DOCJ_REAL: {
      sqlite3_int64 iVal;
      double rVal;
      /* Numbers that are equal hash alike whatever their type: integers by value. */
      if (docJsonNumber(pJ, p, &iVal, &rVal) || docRealIsInt(rVal, &iVal))
        return docMix(DOCJ_INT, (sqlite3_uint64)iVal);
      memcpy(&h, &rVal, sizeof(h));
      return docMix(DOCJ_REAL, h);
    }
    case DOCJ_TEXT: {
      int n;
      const char *z = docJsonText(pJ, p, &n);
      return docMix(h, z ? docHashBytes(z, n) : 0);
    }
    case DOCJ_ARRAY:
      for (i = 0; i < p->u.c.nItem; i++) h = docMix(h, docHashNode(pJ, p->u.c.apElem[i], iDepth + 1));
      return h;
    case DOCJ_OBJECT:
      for (i = docNextMember(p, 0); i < p->u.c.nItem; i = docNextMember(p, i + 1)) {
        const DocMember *pM = &p->u.c.aMember[i];
        h = docMix(docMix(h, docHashBytes(pM->zName, pM->nName)), docHashNode(pJ, pM->pVal, iDepth + 1));
      }
      return h;
    default:
      return h;
  }
}

/*
** The node hash goes through a finalizer (MurmurHash3's fmix64) because
** callers mask its low bits: integers are hashed by value and reals by
** their bits, so multiples of 65536, or reals such as 0.5 and 2.5 (mantissas
** ending in zeros), shared their low bits and $addToSet's hash set probed
** quadratically (100,000 halves took 2.9 s).
*/
sqlite3_uint64 docJsonHash(DocJson *pJ, DocNode *p) { return nosqlMix64(docHashNode(pJ, p, 0)); }

/**************************************************************************
** Objects and arrays.
*/

static int docSameName(const DocMember *pM, const char *zName, int nName) {
  return pM->nName == nName && memcmp(pM->zName, zName, (size_t)nName) == 0;
}

/* The slot of aSlot where name zName is, or the free slot where it would go. */
static int docSlotOf(const DocNode *pObj, const char *zName, int nName) {
  unsigned mask = (unsigned)pObj->u.c.nSlot - 1;
  unsigned h = (unsigned)docHashBytes(zName, nName) & mask;
  while (pObj->u.c.aSlot[h] && !docSameName(&pObj->u.c.aMember[pObj->u.c.aSlot[h] - 1], zName, nName)) {
    h = (h + 1) & mask;
  }
  return (int)h;
}

/* (Re)build the hash index of pObj: every key of a live member, at its first member. */
static int docObjIndex(DocJson *pJ, DocNode *pObj) {
  int nSlot = 16, i, *aSlot;
  while (nSlot < pObj->u.c.nItem * 2 + 2) nSlot *= 2;
  aSlot = (int *)docJsonAlloc(pJ, (sqlite3_int64)sizeof(int) * nSlot);
  if (aSlot == NULL) return pJ->rc;
  memset(aSlot, 0, sizeof(int) * (size_t)nSlot);
  pObj->u.c.aSlot = aSlot;
  pObj->u.c.nSlot = nSlot;
  for (i = 0; i < pObj->u.c.nItem; i++) {
    const DocMember *pM = &pObj->u.c.aMember[i];
    int h;
    if (pM->pVal == NULL) continue;
    h = docSlotOf(pObj, pM->zName, pM->nName);
    if (aSlot[h] == 0) aSlot[h] = i + 1;
  }
  return SQLITE_OK;
}

int docJsonObjFind(DocJson *pJ, DocNode *pObj, const char *zName, int nName) {
  int i;
  if (pObj->u.c.nItem <= DOCJ_LINEAR) {
    for (i = 0; i < pObj->u.c.nItem; i++) {
      if (pObj->u.c.aMember[i].pVal && docSameName(&pObj->u.c.aMember[i], zName, nName)) return i;
    }
    return -1;
  }
  if (pObj->u.c.aSlot == NULL && docObjIndex(pJ, pObj) != SQLITE_OK) return -1;
  i = pObj->u.c.aSlot[docSlotOf(pObj, zName, nName)] - 1;
  /* A removed first member: the key is absent (removal only happens on unique objects). */
  return i >= 0 && pObj->u.c.aMember[i].pVal ? i : -1;
}

void docJsonObjUnique(DocJson *pJ, DocNode *pObj) {
  int i;
  if (pObj->bUnique) return;
  for (i = 0; i < pObj->u.c.nItem && pJ->rc == SQLITE_OK; i++) {
    DocMember *pM = &pObj->u.c.aMember[i];
    if (pM->pVal && docJsonObjFind(pJ, pObj, pM->zName, pM->nName) != i && pJ->rc == SQLITE_OK) {
      pM->pVal = NULL;
      pObj->bRaw = 0;
    }
  }
  if (pJ->rc == SQLITE_OK) pObj->bUnique = 1;
}

/* Room for one more item in container p; 0 on OOM. */
static int docGrow(DocJson *pJ, DocNode *p) {
  size_t szItem = p->eType == DOCJ_ARRAY ? sizeof(DocNode *) : sizeof(DocMember);
  int nNew;
  void *aNew, *aOld = p->eType == DOCJ_ARRAY ? (void *)p->u.c.apElem : (void *)p->u.c.aMember;
  if (p->u.c.nItem < p->u.c.nAlloc) return 1;
  nNew = p->u.c.nAlloc ? p->u.c.nAlloc * 2 : 4;
  aNew = docJsonAlloc(pJ, (sqlite3_int64)szItem * nNew);
  if (aNew == NULL) return 0;
  if (p->u.c.nItem) memcpy(aNew, aOld, szItem * (size_t)p->u.c.nItem);
  if (p->eType == DOCJ_ARRAY) {
    p->u.c.apElem = (DocNode **)aNew;
  } else {
    p->u.c.aMember = (DocMember *)aNew;
  }
  p->u.c.nAlloc = nNew;
  return 1;
}

void docJsonObjAppend(DocJson *pJ, DocNode *pObj, const char *zKey, int nKey, const char *zName, int nName,
                      DocNode *pVal) {
  DocMember *pM;
  int i;
  if (pJ->rc != SQLITE_OK || !docGrow(pJ, pObj)) return;
  i = pObj->u.c.nItem++;
  pM = &pObj->u.c.aMember[i];
  pM->zKey = zKey;
  pM->nKey = nKey;
  pM->zName = zName;
  pM->nName = nName;
  pM->pVal = pVal;
  pObj->bRaw = 0;
  if (pObj->u.c.aSlot) {
    if (pObj->u.c.nItem * 2 > pObj->u.c.nSlot) {
      docObjIndex(pJ, pObj);
    } else {
      /* The key is absent: its slot is free, or holds a removed member of that name. */
      pObj->u.c.aSlot[docSlotOf(pObj, zName, nName)] = i + 1;
    }
  }
}

const char *docJsonQuote(DocJson *pJ, const char *z, int n, int *pnKey) {
  char *zKey;
  nosqlBufferReset(&pJ->tmp);
  nosqlBufferJsonString(&pJ->rc, &pJ->tmp, z, n);
  zKey = pJ->rc == SQLITE_OK ? (char *)docJsonAlloc(pJ, pJ->tmp.n) : NULL;
  if (zKey == NULL) return NULL;
  memcpy(zKey, pJ->tmp.a, (size_t)pJ->tmp.n);
  *pnKey = (int)pJ->tmp.n;
  return zKey;
}

void docJsonArrAppend(DocJson *pJ, DocNode *pArr, DocNode *pVal) {
  if (pJ->rc != SQLITE_OK || !docGrow(pJ, pArr)) return;
  pArr->u.c.apElem[pArr->u.c.nItem++] = pVal;
  pArr->bRaw = 0;
}

int docJsonArrayIndex(const char *z, int n) {
  int i, iIdx = 0;
  if (n < 1 || n > 9 || (z[0] == '0' && n > 1)) return -1;
  for (i = 0; i < n; i++) {
    if (z[i] < '0' || z[i] > '9') return -1;
    iIdx = iIdx * 10 + (z[i] - '0');
  }
  return iIdx;
}
