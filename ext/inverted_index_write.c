/*
** inverted_index_write.c: the write path of an inverted_index table (ext/
** inverted_index.c documents the module). It turns a row's field values
** into terms (iiParseValues, iiParseNested and their JSON helpers),
** resolves them to term ids (iiResolveTerms), keeps <name>_elems and the
** element maps (iiElemsAdd, iiElemsRemove), writes a document
** (iiWriteDoc) and takes one out (iiDeleteDoc, iiDeleteValues,
** iiDeleteStored).
**
** Uses ext/inverted_index_store.c (statements, term cache, pending
** changes, document and element maps) and the codec of
** ext/inverted_index_core.c.
*/
#include "nosqlInt.h"

#include <roaring/roaring.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "inverted_index.h"

/*--------------------------------------------------------------------------
** Writes.
*/

void iiValuesFree(IiValues *v) {
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
void iiValuesKeptFree(inverted_index_vtab *p) {
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
** iiParseNested's third level: the array of terms at z[*pi] (its '[') of
** key iKey of element nElem, each term added; *pi is left past its ']'.
** *pbBad is set if the text is not JSON there.
*/
static int iiNestedKeyTerms(inverted_index_vtab *p, IiValues *v, int iField, int iKey, int nElem,
                            const char *z, int n, int *pi, int *pbBad, NosqlBuffer *pTmp, char **pzErr) {
  const unsigned char *u = (const unsigned char *)z;
  int rc = SQLITE_OK, i = nosqlJsonScanSpace(u, n, *pi + 1), nTok, bTerm;
  const char *zTok, *zType;
  if (i < n && z[i] == ']') {
    i++;
  } else {
    for (;;) { /* One term of the key's array */
      zType = iiJsonToken(z, n, &i, &zTok, &nTok, &bTerm);
      if (zType == NULL) {
        *pbBad = 1;
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
                           "element %d: key '%s' has a value that is not a string or an integer", nElem,
                           p->aazKey[iField][iKey]);
        break;
      }
      rc = iiNestedTerm(p, v, iField, iKey, nElem, zTok, nTok, pTmp, pzErr);
      if (rc != SQLITE_OK) break;
      i = nosqlJsonScanSpace(u, n, i);
      if (i < n && z[i] == ']') {
        i++;
        break;
      }
      if (i >= n || z[i] != ',') {
        *pbBad = 1;
        break;
      }
      i++;
    }
  }
  *pi = i;
  return rc;
}

/*
** iiParseNested's second level, one member of element nElem at z[*pi]:
** its key (a declared one, not seen before in the element: aSeen) and its
** value, a term, an array of terms or null. *pi is left past the value;
** *pbBad is set if the text is not JSON there. pTmp is scratch space.
*/
static int iiNestedMember(inverted_index_vtab *p, IiValues *v, int iField, int nElem, const char *z, int n,
                          int *pi, int *pbBad, unsigned char *aSeen, NosqlBuffer *pTmp, char **pzErr) {
  const unsigned char *u = (const unsigned char *)z;
  int rc = SQLITE_OK, i = *pi, iKeyStart = *pi, bEsc, nKey, iKey, nTok, bTerm;
  const char *zKey, *zTok, *zType;
  if (i >= n || z[i] != '"' || !nosqlJsonScanString(u, n, &i, &bEsc)) {
    *pbBad = 1;
    return rc;
  }
  zKey = z + iKeyStart + 1;
  nKey = i - iKeyStart - 2;
  if (bEsc) {
    nosqlBufferReset(pTmp);
    nosqlBufferGrow(&rc, pTmp, nKey);
    if (rc != SQLITE_OK) return rc;
    nKey = nosqlJsonUnescape(zKey, nKey, (char *)pTmp->a, NULL, 0);
    pTmp->a[nKey] = 0;
    zKey = (const char *)pTmp->a;
  }
  i = nosqlJsonScanSpace(u, n, i);
  if (i >= n || z[i] != ':') {
    *pbBad = 1;
    return rc;
  }
  i++;
  for (iKey = 0; iKey < p->anKey[iField]; iKey++) {
    const char *zDecl = p->aazKey[iField][iKey];
    if ((int)strlen(zDecl) == nKey && memcmp(zDecl, zKey, (size_t)nKey) == 0) break;
  }
  if (iKey == p->anKey[iField]) {
    return iiNestedError(p, iField, pzErr, "element %d has key '%.*s', which NESTED(...) does not declare",
                         nElem, nKey, zKey);
  }
  if (aSeen[iKey / 8] & (1 << (iKey % 8))) {
    /* JSON leaves duplicate names undefined; SQLite's -> takes the
    ** first, json_each lists both: refuse rather than pick. */
    return iiNestedError(p, iField, pzErr, "element %d has key '%s' twice", nElem, p->aazKey[iField][iKey]);
  }
  aSeen[iKey / 8] |= (unsigned char)(1 << (iKey % 8));
  zType = iiJsonToken(z, n, &i, &zTok, &nTok, &bTerm);
  if (zType == NULL) {
    *pbBad = 1;
    return rc;
  }
  if (z[i] == '{') {
    return iiNestedError(p, iField, pzErr,
                         "element %d: key '%s' holds an object, nested deeper than declared (elements "
                         "nest one level)",
                         nElem, p->aazKey[iField][iKey]);
  }
  if (z[i] == '[') {
    rc = iiNestedKeyTerms(p, v, iField, iKey, nElem, z, n, &i, pbBad, pTmp, pzErr);
  } else if (bTerm) {
    rc = iiNestedTerm(p, v, iField, iKey, nElem, zTok, nTok, pTmp, pzErr);
  } else if (strcmp(zType, "null") != 0) {
    rc = iiNestedError(p, iField, pzErr,
                       "element %d: key '%s' is not a string, an integer or an array of them", nElem,
                       p->aazKey[iField][iKey]);
  }
  *pi = i;
  return rc;
}

/*
** iiParseNested's first level, element nElem at z[*pi] (its '{'): its
** presence term, then its members; *pi is left past its '}'. *pbBad is
** set if the text is not JSON there. aSeen has nSeen bytes of scratch.
*/
static int iiNestedElement(inverted_index_vtab *p, IiValues *v, int iField, int nElem, const char *z, int n,
                           int *pi, int *pbBad, unsigned char *aSeen, size_t nSeen, NosqlBuffer *pTmp,
                           char **pzErr) {
  const unsigned char *u = (const unsigned char *)z;
  int bNumbered = p->aeLayout[iField] == II_LAYOUT_NUMBERED, i;
  int rc;
  memset(aSeen, 0, nSeen);
  rc = iiValuesAdd(p, v, II_CODE(iField, II_SLOT_PRESENT, bNumbered ? nElem : 0), bNumbered ? -1 : nElem - 1,
                   "", 0);
  if (rc != SQLITE_OK) return rc;
  i = nosqlJsonScanSpace(u, n, *pi + 1);
  if (i < n && z[i] == '}') {
    i++;
  } else {
    for (;;) { /* One member */
      rc = iiNestedMember(p, v, iField, nElem, z, n, &i, pbBad, aSeen, pTmp, pzErr);
      if (rc != SQLITE_OK || *pbBad) break;
      i = nosqlJsonScanSpace(u, n, i);
      if (i < n && z[i] == '}') {
        i++;
        break;
      }
      if (i >= n || z[i] != ',') {
        *pbBad = 1;
        break;
      }
      i = nosqlJsonScanSpace(u, n, i + 1);
    }
  }
  *pi = i;
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
** (ext/util.c), three levels deep: the array of elements (here), an
** element's members (iiNestedElement, iiNestedMember), a key's array of
** terms (iiNestedKeyTerms); a container any deeper is refused on sight.
** Every token the pass reads is checked as it goes; where it stops early
** on a value it refuses, the whole text is checked: malformed JSON (or
** JSON too deep) is reported as such before any other fault, as the text
** is read in document order.
*/
static int iiParseNested(inverted_index_vtab *p, IiValues *v, int iField, sqlite3_value *pVal, char **pzErr) {
  int rc = SQLITE_OK, i, nElem = 0, nTok, bTerm;
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
      rc = iiNestedElement(p, v, iField, nElem, z, n, &i, &bBad, aSeen, nSeen, &key, pzErr);
      if (rc != SQLITE_OK || bBad) break;
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
int iiParseValues(inverted_index_vtab *p, sqlite3_value **apVal, IiValues *v, char **pzErr) {
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
    if (p->zKeep && p->zKeep[i] == '1') continue; /* unchanged: its terms stay */
    if (p->aeLayout[i] != II_LAYOUT_PLAIN) {
      rc = iiParseNested(p, v, i, pVal, pzErr);
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
unsigned char *iiElemBlob(IiValues *v, int iField, size_t *pnBlob, int *pRc) {
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
int iiElemRange(inverted_index_vtab *p, int iField, uint32_t iDoc, sqlite3_int64 *piFirst,
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

/*
** Check the element row (iFirst, n, aBlob[0..nBlob)) of field iField and
** apply eAct to every element number and term it names. Damage (a bad
** range or frame, a term of another namespace) is SQLITE_CORRUPT_VTAB.
*/
int iiElemRowApply(inverted_index_vtab *p, int iField, sqlite3_int64 iFirst, sqlite3_int64 n,
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
int iiDocByRowid(inverted_index_vtab *p, sqlite3_int64 iRowid, int *pbFound, uint32_t *piDoc, uint32_t **paId,
                 int *pnId) {
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
int iiLiveHas(inverted_index_vtab *p, sqlite3_int64 iRowid, int *pbFound) {
  int rc = iiDocMapLoad(p);
  *pbFound = rc == SQLITE_OK && roaring_bitmap_contains(p->pMap->pLive, (uint32_t)iRowid);
  return rc;
}

/* The error of a direct = off table asked to delete without the old values. */
int iiNeedValues(inverted_index_vtab *p, const char *zWhat) {
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
int iiDeleteValues(inverted_index_vtab *p, sqlite3_int64 iRowid, sqlite3_value **apVal) {
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
    if (sqlite3_value_type(apVal[i]) != SQLITE_NULL && !(p->zKeep && p->zKeep[i] == '1')) bNull = 0;
  }
  if (p->bKeepTerms) bNull = 0; /* a field left as is has a term */
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
  /* A partial write (zKeep) leaves the document live: its INSERT follows. */
  if (rc == SQLITE_OK && !p->zKeep) rc = iiTermPending(p, pLiveTerm, (uint32_t)iRowid, 0);
  if (rc == SQLITE_OK && v.nTerm == 0 && !p->bKeepTerms && pEmptyTerm) {
    rc = iiTermPending(p, pEmptyTerm, (uint32_t)iRowid, 0);
  }
  iiDocMapNote(p, rc, p->zKeep ? II_NOTE_INSERT : II_NOTE_DELETE, (uint32_t)iRowid, iRowid);
  sqlite3_free(aFirst);
  iiValuesFree(&v);
  return rc;
}

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

/*
** iiWriteDoc's first step: rowid iRowid is free for the document (one
** there goes under OR REPLACE; else SQLITE_CONSTRAINT). Under direct = off
** and in a 'rebuild' (bBulk), *piDoc is set to the document's number.
*/
static int iiWriteRowidFree(inverted_index_vtab *p, int bUpdate, sqlite3_int64 iOldRowid,
                            sqlite3_int64 iRowid, int bBulk, uint32_t *piDoc) {
  int rc = SQLITE_OK, bFound = 0;
  if (p->bNoDirect) {
    /* Document = rowid; a 'rebuild' writes distinct rowids into emptied tables. */
    rc = iiRowidCheck(p, iRowid);
    if (rc == SQLITE_OK && !bBulk) rc = iiLiveHas(p, iRowid, &bFound);
    if (rc == SQLITE_OK && p->zKeep && !bFound) {
      nosqlVtabError(&p->base, "inverted_index: rowid %lld is not in the index", iRowid);
      rc = SQLITE_ERROR;
    } else if (rc == SQLITE_OK && bFound && p->zKeep) {
      /* The second half of a partial write: the document stays. */
    } else if (rc == SQLITE_OK && bFound) {
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
    *piDoc = (uint32_t)iRowid;
  } else if (bBulk) {
    *piDoc = (uint32_t)p->iBulkDoc;
  } else if (!bUpdate || iRowid != iOldRowid) {
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
  return rc;
}

/*
** iiWriteDoc's step for an update: the document of iOldRowid (*piDoc) and
** its old terms (*paOld, *pnOldId of them; *paOldId their ids), both
** arrays sqlite3_malloc64, freed by the caller even on error.
*/
static int iiWriteOldTerms(inverted_index_vtab *p, sqlite3_int64 iOldRowid, uint32_t *piDoc,
                           uint32_t **paOldId, int *pnOldId, IiTerm ***paOld) {
  int bFound = 0, i;
  int rc = iiDocByRowid(p, iOldRowid, &bFound, piDoc, paOldId, pnOldId);
  if (rc == SQLITE_OK && !bFound) {
    nosqlVtabError(&p->base, "inverted_index: rowid %lld is not in the index", iOldRowid);
    rc = SQLITE_ERROR;
  }
  if (rc == SQLITE_OK) {
    *paOld = (IiTerm **)sqlite3_malloc64(sizeof(IiTerm *) * ((size_t)*pnOldId + 1));
    if (*paOld == NULL) rc = SQLITE_NOMEM;
  }
  for (i = 0; rc == SQLITE_OK && i < *pnOldId; i++) rc = iiTermById(p, (*paOldId)[i], &(*paOld)[i]);
  return rc;
}

/* iiWriteDoc's step for a new document (direct = on): its number, *piDoc, past every other. */
static int iiWriteDocNumber(inverted_index_vtab *p, uint32_t *piDoc) {
  int rc = SQLITE_OK;
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
      nosqlVtabError(&p->base, "inverted_index: document numbers exhausted in %s; run 'optimize'", p->zName);
      rc = SQLITE_FULL;
    }
  }
  *piDoc = bNull ? 0 : (uint32_t)(iMax + 1);
  return rc;
}

/*
** iiWriteDoc's step for the elements layout: *paFirst (sqlite3_malloc64,
** freed by the caller even on error) gets, per field, the first element
** number of document iDoc's elements v->anElem[i].
*/
static int iiWriteElemFirst(inverted_index_vtab *p, const IiValues *v, int bUpdate, int bBulk, uint32_t iDoc,
                            sqlite3_int64 **paFirst) {
  sqlite3_int64 *aFirst = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * (size_t)p->nField);
  int rc = aFirst ? SQLITE_OK : SQLITE_NOMEM, i;
  *paFirst = aFirst;
  for (i = 0; rc == SQLITE_OK && i < p->nField; i++) {
    sqlite3_int64 iOldFirst = -1, nOld = 0;
    aFirst[i] = 0;
    if (p->aeLayout[i] != II_LAYOUT_ELEMENTS || v->anElem[i] == 0) continue;
    if (bUpdate) rc = iiElemRange(p, i, iDoc, &iOldFirst, &nOld);
    if (rc == SQLITE_OK && bBulk && p->aBulkElem) {
      aFirst[i] = p->aBulkElem[i];
    } else if (rc == SQLITE_OK) {
      rc = iiElemNext(p, i, &aFirst[i]);
    }
    /* An update keeps the document's element numbers where the new
    ** elements fit (or the range is the field's last, free to grow), so
    ** updates do not use up element numbers nor grow the element map. */
    if (rc == SQLITE_OK && iOldFirst >= 0 && (v->anElem[i] <= nOld || iOldFirst + nOld == aFirst[i])) {
      aFirst[i] = iOldFirst;
    }
    if (rc == SQLITE_OK && aFirst[i] + v->anElem[i] > 0xFFFFFFFFll) {
      rc = iiElemRoom(p, i);
      if (rc == SQLITE_OK) {
        nosqlVtabError(&p->base,
                       "inverted_index: element numbers of field '%s' exhausted in %s; run 'optimize'",
                       p->azField[i], p->zName);
        rc = SQLITE_FULL;
      }
    }
  }
  return rc;
}

/*
** iiWriteDoc's step that writes the stored row: the values by rowid
** (direct = off without content=), and the document's row of <name>_docs
** with its term ids aBlob (direct = on) or its reserved terms (off).
*/
static int iiWriteStoredRow(inverted_index_vtab *p, int bUpdate, int bBulk, sqlite3_int64 iRowid,
                            uint32_t iDoc, sqlite3_value **apVal, const IiValues *v,
                            const unsigned char *aBlob, size_t nBlob) {
  int rc = SQLITE_OK;
  sqlite3_stmt *pStmt;
  if (p->bStored && p->iBulkDoc < 0) {
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
    int bEmpty = v->nTerm == 0 && !p->bKeepTerms;
    if (!p->zKeep) rc = iiTermByName(p, II_CODE_LIVE, "", 0, 1, &t);
    if (rc == SQLITE_OK && !p->zKeep) rc = iiTermPending(p, t, iDoc, 1);
    if (rc == SQLITE_OK && bEmpty) rc = iiTermByName(p, II_CODE_EMPTY, "", 0, 1, &t);
    if (rc == SQLITE_OK && bEmpty) rc = iiTermPending(p, t, iDoc, 1);
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
  return rc;
}

/*
** iiWriteDoc's last step, once the stored row is written: the pending
** posting changes (the old terms aOld lose iDoc, the new ones gain it,
** element rows move), and a 'rebuild''s counters.
*/
static int iiWritePostings(inverted_index_vtab *p, int bUpdate, int bBulk, uint32_t iDoc, IiValues *v,
                           IiTerm **aOld, int nOld, const sqlite3_int64 *aFirst) {
  int rc = SQLITE_OK, i;
  for (i = 0; rc == SQLITE_OK && i < nOld; i++) rc = iiTermPending(p, aOld[i], iDoc, 0);
  for (i = 0; rc == SQLITE_OK && i < v->nTerm; i++) {
    if (v->aTerm[i].iElem < 0) rc = iiTermPending(p, v->aTerm[i].pTerm, iDoc, 1);
  }
  for (i = 0; rc == SQLITE_OK && aFirst && i < p->nField; i++) {
    if (p->aeLayout[i] != II_LAYOUT_ELEMENTS) continue;
    if (bUpdate) rc = iiElemsRemove(p, i, iDoc);
    if (rc == SQLITE_OK && v->anElem[i] > 0) rc = iiElemsAdd(p, v, i, iDoc, aFirst[i]);
  }
  if (rc == SQLITE_OK && bBulk) {
    p->iBulkDoc++;
    for (i = 0; aFirst && p->aBulkElem && i < p->nField; i++) {
      if (p->aeLayout[i] == II_LAYOUT_ELEMENTS && v->anElem[i] > 0)
        p->aBulkElem[i] = aFirst[i] + v->anElem[i];
    }
  }
  return rc;
}

/*
** Write a document: iOldRowid's document (bUpdate) or a new one, now with
** rowid iRowid and field values apVal. Checks everything that can be
** wrong before it writes anything.
*/
int iiWriteDoc(inverted_index_vtab *p, int bUpdate, sqlite3_int64 iOldRowid, sqlite3_int64 iRowid,
               sqlite3_value **apVal) {
  int rc;
  char *zErr = NULL;
  IiValues v = iiValuesTake(p);
  uint32_t iDoc = 0, *aOldId = NULL;
  int nOldId = 0;
  IiTerm **aOld = NULL;
  unsigned char *aBlob = NULL;
  size_t nBlob = 0;
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
  if (rc == SQLITE_OK) rc = iiWriteRowidFree(p, bUpdate, iOldRowid, iRowid, bBulk, &iDoc);
  if (rc == SQLITE_OK && bUpdate) {
    rc = iiWriteOldTerms(p, iOldRowid, &iDoc, &aOldId, &nOldId, &aOld);
  } else if (rc == SQLITE_OK && !bBulk && !p->bNoDirect) {
    rc = iiWriteDocNumber(p, &iDoc);
  }
  if (rc == SQLITE_OK && p->bElems) rc = iiWriteElemFirst(p, &v, bUpdate, bBulk, iDoc, &aFirst);
  if (rc == SQLITE_OK) rc = iiResolveTerms(p, &v, &aBlob, &nBlob);
  if (rc == SQLITE_OK) rc = iiWriteStoredRow(p, bUpdate, bBulk, iRowid, iDoc, apVal, &v, aBlob, nBlob);
  if (rc == SQLITE_OK) rc = iiWritePostings(p, bUpdate, bBulk, iDoc, &v, aOld, nOldId, aFirst);
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
int iiDeleteStored(inverted_index_vtab *p, sqlite3_int64 iRowid) {
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
int iiStoredMakeRoom(inverted_index_vtab *p, sqlite3_int64 iOldRowid, sqlite3_int64 iRowid,
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
int iiDeleteDoc(inverted_index_vtab *p, sqlite3_int64 iRowid) {
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

/* Add element e to t: a pending addition (bPending), else into t->pAdd used as scratch. */
int iiScratchAdd(inverted_index_vtab *p, IiTerm *t, uint32_t e, int bPending) {
  if (bPending) return iiTermPending(p, t, e, 1);
  if (t->pAdd == NULL) t->pAdd = roaring_bitmap_create();
  if (t->pAdd == NULL) return SQLITE_NOMEM;
  roaring_bitmap_add(t->pAdd, e);
  return SQLITE_OK;
}
