/*
** util.c: small helpers shared by every feature file: the growable buffer
** with the sticky error code, and error-message formatting.
**
** Contracts are stated in ext/nosqlInt.h.
*/
#include "nosqlInt.h"

#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void nosqlBufferGrow(int *pRc, NosqlBuffer *p, sqlite3_int64 nMore) {
  sqlite3_int64 nNeed;
  sqlite3_int64 nNew;
  unsigned char *aNew;
  if (*pRc != SQLITE_OK) return;
  nNeed = p->n + nMore + 1; /* +1 for the terminating NUL */
  if (nNeed <= p->nAlloc) return;
  nNew = p->nAlloc ? p->nAlloc : 64;
  while (nNew < nNeed) nNew *= 2;
  aNew = (unsigned char *)sqlite3_realloc64(p->a, (sqlite3_uint64)nNew);
  if (aNew == NULL) {
    *pRc = SQLITE_NOMEM;
    return;
  }
  p->a = aNew;
  p->nAlloc = nNew;
}

void nosqlBufferAppend(int *pRc, NosqlBuffer *p, const void *a, sqlite3_int64 n) {
  if (n < 0) n = (sqlite3_int64)strlen((const char *)a);
  nosqlBufferGrow(pRc, p, n);
  if (*pRc != SQLITE_OK) return;
  if (n > 0) memcpy(&p->a[p->n], a, (size_t)n);
  p->n += n;
  p->a[p->n] = 0;
}

void nosqlBufferAppendf(int *pRc, NosqlBuffer *p, const char *zFmt, ...) {
  va_list ap;
  char *z;
  if (*pRc != SQLITE_OK) return;
  va_start(ap, zFmt);
  z = sqlite3_vmprintf(zFmt, ap);
  va_end(ap);
  if (z == NULL) {
    *pRc = SQLITE_NOMEM;
    return;
  }
  nosqlBufferAppend(pRc, p, z, (sqlite3_int64)strlen(z));
  sqlite3_free(z);
}

void nosqlBufferReset(NosqlBuffer *p) {
  p->n = 0;
  if (p->a) p->a[0] = 0;
}

void nosqlBufferFree(NosqlBuffer *p) {
  sqlite3_free(p->a);
  memset(p, 0, sizeof(*p));
}

int nosqlIsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

/* Longest prefix of a text or blob argument quoted in an error message. */
#define NOSQL_QUOTE_MAX 60

char *nosqlValueQuote(sqlite3_value *pVal) {
  switch (sqlite3_value_type(pVal)) {
    case SQLITE_NULL:
      return sqlite3_mprintf("NULL");
    case SQLITE_INTEGER:
      return sqlite3_mprintf("%lld", sqlite3_value_int64(pVal));
    case SQLITE_FLOAT:
      return sqlite3_mprintf("%!.15g", sqlite3_value_double(pVal));
    case SQLITE_TEXT: {
      const char *z = (const char *)sqlite3_value_text(pVal);
      int n = sqlite3_value_bytes(pVal);
      if (z == NULL) return NULL;
      if (n > NOSQL_QUOTE_MAX) return sqlite3_mprintf("'%.*q...'", NOSQL_QUOTE_MAX, z);
      return sqlite3_mprintf("'%q'", z);
    }
    default: {
      const unsigned char *a = (const unsigned char *)sqlite3_value_blob(pVal);
      int n = sqlite3_value_bytes(pVal);
      int nShow = n > NOSQL_QUOTE_MAX / 2 ? NOSQL_QUOTE_MAX / 2 : n;
      int rc = SQLITE_OK;
      int i;
      NosqlBuffer b = {0, 0, 0};
      nosqlBufferAppend(&rc, &b, "x'", 2);
      for (i = 0; i < nShow; i++) nosqlBufferAppendf(&rc, &b, "%02X", a[i]);
      nosqlBufferAppend(&rc, &b, nShow < n ? "...'" : "'", nShow < n ? 4 : 1);
      if (rc != SQLITE_OK) {
        nosqlBufferFree(&b);
        return NULL;
      }
      return (char *)b.a;
    }
  }
}

void nosqlResultError(sqlite3_context *ctx, const char *zFmt, ...) {
  va_list ap;
  char *z;
  va_start(ap, zFmt);
  z = sqlite3_vmprintf(zFmt, ap);
  va_end(ap);
  if (z == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3_result_error(ctx, z, -1);
  sqlite3_free(z);
}

void nosqlVtabError(sqlite3_vtab *pVtab, const char *zFmt, ...) {
  va_list ap;
  sqlite3_free(pVtab->zErrMsg);
  va_start(ap, zFmt);
  pVtab->zErrMsg = sqlite3_vmprintf(zFmt, ap);
  va_end(ap);
}

int nosqlVtabNew(sqlite3 *db, const char *zDecl, sqlite3_int64 nByte, sqlite3_vtab **ppVtab) {
  sqlite3_vtab *p;
  int rc = sqlite3_declare_vtab(db, zDecl);
  *ppVtab = NULL;
  if (rc != SQLITE_OK) return rc;
  p = (sqlite3_vtab *)sqlite3_malloc64((sqlite3_uint64)nByte);
  if (p == NULL) return SQLITE_NOMEM;
  memset(p, 0, (size_t)nByte);
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
  *ppVtab = p;
  return SQLITE_OK;
}

int nosqlVtabFree(sqlite3_vtab *pVtab) {
  sqlite3_free(pVtab);
  return SQLITE_OK;
}

/* The header in front of each shared object. */
typedef union NosqlShared NosqlShared;
union NosqlShared {
  struct {
    NosqlShared *pNext; /* Next object of the process */
    sqlite3 *db;        /* Its connection */
    int iKind;          /* NOSQL_SHARED_* */
    int nRef;           /* References held */
  } h;
  sqlite3_int64 align; /* Keeps the object that follows 8-aligned */
  double alignReal;
};
static NosqlShared *pSharedFirst = NULL;
static pthread_mutex_t sharedMutex = PTHREAD_MUTEX_INITIALIZER;

void *nosqlConnShared(sqlite3 *db, int iKind, sqlite3_int64 nByte) {
  NosqlShared *p;
  pthread_mutex_lock(&sharedMutex);
  for (p = pSharedFirst; p && (p->h.db != db || p->h.iKind != iKind); p = p->h.pNext) {
  }
  if (p) {
    p->h.nRef++;
  } else if ((p = (NosqlShared *)sqlite3_malloc64(sizeof(NosqlShared) + (sqlite3_uint64)nByte)) != NULL) {
    memset(p, 0, sizeof(NosqlShared) + (size_t)nByte);
    p->h.db = db;
    p->h.iKind = iKind;
    p->h.nRef = 1;
    p->h.pNext = pSharedFirst;
    pSharedFirst = p;
  }
  pthread_mutex_unlock(&sharedMutex);
  return p ? (void *)(p + 1) : NULL;
}

void nosqlConnSharedRef(void *pObj) {
  pthread_mutex_lock(&sharedMutex);
  ((NosqlShared *)pObj - 1)->h.nRef++;
  pthread_mutex_unlock(&sharedMutex);
}

void nosqlConnSharedUnref(void *pObj) {
  NosqlShared *p, **pp;
  if (pObj == NULL) return;
  p = (NosqlShared *)pObj - 1;
  pthread_mutex_lock(&sharedMutex);
  if (--p->h.nRef == 0) {
    for (pp = &pSharedFirst; *pp != p; pp = &(*pp)->h.pNext) {
    }
    *pp = p->h.pNext;
  } else {
    p = NULL;
  }
  pthread_mutex_unlock(&sharedMutex);
  sqlite3_free(p);
}

void *nosqlCursorNew(sqlite3_int64 nByte, sqlite3_vtab_cursor **ppCursor) {
  sqlite3_vtab_cursor *pCur = (sqlite3_vtab_cursor *)sqlite3_malloc64((sqlite3_uint64)nByte);
  if (pCur == NULL) return NULL;
  memset(pCur, 0, (size_t)nByte);
  *ppCursor = pCur;
  return pCur;
}

/*
** Strict JSON (RFC 8259), for the places where the docs promise it: from
** 3.42 the host's json_each() also accepts JSON5 (trailing commas, single
** quotes, comments, hex numbers...), so leaving the check to the host would
** make answers depend on its version. A recursive descent over at most
** NOSQL_JSON_MAX_DEPTH nested arrays and objects (SQLite's own limit).
*/
typedef struct NosqlJsonScan NosqlJsonScan;
struct NosqlJsonScan {
  const unsigned char *z; /* The text */
  int n;                  /* Its length in bytes */
  int i;                  /* Next byte to read */
  int bDeep;              /* The scan stopped at NOSQL_JSON_MAX_DEPTH */
};

int nosqlJsonScanSpace(const unsigned char *z, int n, int i) {
  while (i < n && (z[i] == ' ' || z[i] == '\t' || z[i] == '\n' || z[i] == '\r')) i++;
  return i;
}

static int nosqlJsonHex(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int nosqlJsonScanString(const unsigned char *z, int n, int *pi, int *pbEsc) {
  int i = *pi + 1;
  *pbEsc = 0;
  /* On a fault *pi is where it is (nosqlJsonErrorAt()): the control
  ** character, the backslash of a bad escape, the first bad hex digit of a
  ** \u escape, or n for a string that does not end. */
  while (i < n) {
    unsigned char c = z[i++];
    if (c == '"') {
      *pi = i;
      return 1;
    }
    if (c < 0x20) {
      i--;
      break;
    }
    if (c == '\\') {
      *pbEsc = 1;
      if (i >= n) break;
      c = z[i++];
      if (c == 'u') {
        int k;
        for (k = 0; k < 4 && i < n && nosqlJsonHex(z[i]); k++) i++;
        if (k < 4) break;
      } else if (c == 0 || strchr("\"\\/bfnrt", c) == NULL) {
        i -= 2;
        break;
      }
    }
  }
  *pi = i;
  return 0;
}

/* Digits from z[*pi]: 1 if there was at least one. */
static int nosqlJsonDigits(const unsigned char *z, int n, int *pi) {
  int i0 = *pi;
  while (*pi < n && z[*pi] >= '0' && z[*pi] <= '9') (*pi)++;
  return *pi > i0;
}

int nosqlJsonScanNumber(const unsigned char *z, int n, int *pi, int *pbInt) {
  *pbInt = 1;
  if (z[*pi] == '-') (*pi)++;
  if (*pi < n && z[*pi] == '0') {
    (*pi)++;
  } else if (!nosqlJsonDigits(z, n, pi)) {
    return 0;
  }
  if (*pi < n && z[*pi] == '.') {
    *pbInt = 0;
    (*pi)++;
    if (!nosqlJsonDigits(z, n, pi)) return 0;
  }
  if (*pi < n && (z[*pi] == 'e' || z[*pi] == 'E')) {
    *pbInt = 0;
    (*pi)++;
    if (*pi < n && (z[*pi] == '+' || z[*pi] == '-')) (*pi)++;
    if (!nosqlJsonDigits(z, n, pi)) return 0;
  }
  return 1;
}

static void nosqlJsonSpace(NosqlJsonScan *p) { p->i = nosqlJsonScanSpace(p->z, p->n, p->i); }

static int nosqlJsonString(NosqlJsonScan *p) {
  int bEsc;
  return nosqlJsonScanString(p->z, p->n, &p->i, &bEsc);
}

static int nosqlJsonNumber(NosqlJsonScan *p) {
  int bInt;
  return nosqlJsonScanNumber(p->z, p->n, &p->i, &bInt);
}

static int nosqlJsonValue(NosqlJsonScan *p, int iDepth) {
  unsigned char c;
  nosqlJsonSpace(p);
  if (p->i >= p->n) return 0;
  c = p->z[p->i];
  if (c == '"') return nosqlJsonString(p);
  if (c == '[' || c == '{') {
    unsigned char cEnd = c == '[' ? ']' : '}';
    if (iDepth >= NOSQL_JSON_MAX_DEPTH) {
      p->bDeep = 1;
      return 0;
    }
    p->i++;
    nosqlJsonSpace(p);
    if (p->i < p->n && p->z[p->i] == cEnd) {
      p->i++;
      return 1;
    }
    for (;;) {
      if (c == '{') {
        nosqlJsonSpace(p);
        if (p->i >= p->n || p->z[p->i] != '"' || !nosqlJsonString(p)) return 0;
        nosqlJsonSpace(p);
        if (p->i >= p->n || p->z[p->i] != ':') return 0;
        p->i++;
      }
      if (!nosqlJsonValue(p, iDepth + 1)) return 0;
      nosqlJsonSpace(p);
      if (p->i >= p->n) return 0;
      if (p->z[p->i] == cEnd) {
        p->i++;
        return 1;
      }
      if (p->z[p->i] != ',') return 0;
      p->i++;
    }
  }
  if (c == '-' || (c >= '0' && c <= '9')) return nosqlJsonNumber(p);
  if (p->n - p->i >= 4 && memcmp(&p->z[p->i], "true", 4) == 0) {
    p->i += 4;
    return 1;
  }
  if (p->n - p->i >= 5 && memcmp(&p->z[p->i], "false", 5) == 0) {
    p->i += 5;
    return 1;
  }
  if (p->n - p->i >= 4 && memcmp(&p->z[p->i], "null", 4) == 0) {
    p->i += 4;
    return 1;
  }
  return 0;
}

/*
** nosqlJsonStrict(), with *pbDeep set when the scan stopped at the depth
** limit and *piAt where it stopped (nosqlJsonErrorAt()).
*/
static int nosqlJsonScanAll(const char *z, int n, int *pbDeep, int *piAt) {
  NosqlJsonScan s;
  *pbDeep = 0;
  *piAt = 0;
  if (z == NULL || n < 0) return 0;
  s.z = (const unsigned char *)z;
  s.n = n;
  s.i = 0;
  s.bDeep = 0;
  if (!nosqlJsonValue(&s, 0)) {
    *pbDeep = s.bDeep;
    *piAt = s.i < n ? s.i : n;
    return 0;
  }
  nosqlJsonSpace(&s);
  *piAt = s.i;
  return s.i == s.n;
}

int nosqlJsonStrict(const char *z, int n) {
  int bDeep, iAt;
  return nosqlJsonScanAll(z, n, &bDeep, &iAt);
}

int nosqlJsonTooDeep(const char *z, int n) {
  int bDeep, iAt;
  return !nosqlJsonScanAll(z, n, &bDeep, &iAt) && bDeep;
}

int nosqlJsonErrorAt(const char *z, int n) {
  int bDeep, iAt;
  return nosqlJsonScanAll(z, n, &bDeep, &iAt) ? -1 : iAt;
}

/* Append text z[0..n) as a JSON string to pBuf. */
void nosqlBufferJsonString(int *pRc, NosqlBuffer *pBuf, const char *z, int n) {
  int i;
  nosqlBufferAppend(pRc, pBuf, "\"", 1);
  for (i = 0; i < n; i++) {
    unsigned char c = (unsigned char)z[i];
    if (c == '"' || c == '\\') {
      char a[2] = {'\\', (char)c};
      nosqlBufferAppend(pRc, pBuf, a, 2);
    } else if (c < 0x20) {
      if (c >= 0x08 && c <= 0x0d && c != 0x0b) {
        char a[2] = {'\\', "btn?fr"[c - 0x08]};
        nosqlBufferAppend(pRc, pBuf, a, 2);
      } else {
        nosqlBufferAppendf(pRc, pBuf, "\\u%04x", c);
      }
    } else {
      nosqlBufferAppend(pRc, pBuf, &z[i], 1);
    }
  }
  nosqlBufferAppend(pRc, pBuf, "\"", 1);
}

#if defined(_WIN32)
/*
** Windows has no uselocale(). The conversions are mingw-w64's own (exact,
** __USE_MINGW_ANSI_STDIO), which follow the process locale's decimal
** point: '.' is put in its place before strtod() and back after snprintf().
*/
static char nosqlDecimalPoint(void) {
  const struct lconv *p = localeconv();
  return (p && p->decimal_point && p->decimal_point[0]) ? p->decimal_point[0] : '.';
}

double nosqlStrtod(const char *z) {
  char cPoint = nosqlDecimalPoint();
  const char *zDot = strchr(z, '.');
  char *zCopy;
  double r;
  if (cPoint == '.' || zDot == NULL || (zCopy = sqlite3_mprintf("%s", z)) == NULL) return strtod(z, NULL);
  zCopy[zDot - z] = cPoint;
  r = strtod(zCopy, NULL);
  sqlite3_free(zCopy);
  return r;
}

/* snprintf(z, n, "%.*g", p, r) with '.' as the decimal point. */
static void nosqlFormatReal(char *z, int n, int p, double r) {
  char *zPoint;
  snprintf(z, (size_t)n, "%.*g", p, r);
  zPoint = strchr(z, nosqlDecimalPoint());
  if (zPoint) *zPoint = '.';
}
#else
/*
** The "C" locale, made once (the first caller publishes it; a thread that
** loses the race frees its own), or (locale_t)0 when it cannot be made.
*/
static locale_t nosqlCLocale(void) {
  static locale_t cLocale = (locale_t)0;
  locale_t l = __atomic_load_n(&cLocale, __ATOMIC_ACQUIRE);
  if (l == (locale_t)0) {
    locale_t lNew = newlocale(LC_ALL_MASK, "C", (locale_t)0), lSeen = (locale_t)0;
    if (lNew == (locale_t)0) return (locale_t)0;
    if (__atomic_compare_exchange_n(&cLocale, &lSeen, lNew, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      l = lNew;
    } else {
      freelocale(lNew);
      l = lSeen;
    }
  }
  return l;
}

double nosqlStrtod(const char *z) {
  locale_t cLocale = nosqlCLocale(), old = (locale_t)0;
  double r;
  if (cLocale != (locale_t)0) old = uselocale(cLocale);
  r = strtod(z, NULL);
  if (cLocale != (locale_t)0) uselocale(old);
  return r;
}

/* snprintf(z, n, "%.*g", p, r) with '.' as the decimal point. */
static void nosqlFormatReal(char *z, int n, int p, double r) {
  locale_t cLocale = nosqlCLocale(), old = (locale_t)0;
  if (cLocale != (locale_t)0) old = uselocale(cLocale);
  snprintf(z, (size_t)n, "%.*g", p, r);
  if (cLocale != (locale_t)0) uselocale(old);
}
#endif

/*
** Append real r as a JSON number: the shortest of %.15g and %.17g that
** reads back as r; infinities as 9e999 and -9e999 (SQLite's JSON spelling).
*/
void nosqlBufferJsonReal(int *pRc, NosqlBuffer *pBuf, double r) {
  char z[48];
  int p, n;
  if (*pRc != SQLITE_OK) return;
  if (isnan(r)) {
    nosqlBufferAppend(pRc, pBuf, "null", 4);
    return;
  }
  if (isinf(r)) {
    nosqlBufferAppend(pRc, pBuf, r > 0 ? "9e999" : "-9e999", r > 0 ? 5 : 6);
    return;
  }
  /*
  ** The fewest of 15, 16 or 17 significant digits that read back to r.
  ** The C library's conversions are exact (SQLite 3.40's printf is not at
  ** 17 digits near 1e308), in the "C" locale whatever the host's, so the
  ** decimal point is '.' both ways.
  */
  for (p = 15; p <= 17; p++) {
    nosqlFormatReal(z, (int)sizeof(z), p, r);
    if (nosqlStrtod(z) == r) break;
  }
  /* SQLite's form of a real: always a point ("1.0", "1.0e+23"). */
  n = (int)strlen(z);
  if (strchr(z, '.') == NULL) {
    char *zE = strchr(z, 'e');
    int iE = zE ? (int)(zE - z) : n;
    memmove(&z[iE + 2], &z[iE], (size_t)(n - iE + 1));
    z[iE] = '.';
    z[iE + 1] = '0';
    n += 2;
  }
  nosqlBufferAppend(pRc, pBuf, z, n);
}

/* Skips a quoted token or comment at z[i]; returns the index after it (i if none). */
static int nosqlSkipQuoted(const char *z, int i) {
  char c = z[i], cEnd;
  if (c == '-' && z[i + 1] == '-') {
    while (z[i] && z[i] != '\n') i++;
    return i;
  }
  if (c == '/' && z[i + 1] == '*') {
    i += 2;
    while (z[i] && !(z[i] == '*' && z[i + 1] == '/')) i++;
    return z[i] ? i + 2 : i;
  }
  if (c != '\'' && c != '"' && c != '`' && c != '[') return i;
  cEnd = c == '[' ? ']' : c;
  for (i++; z[i]; i++) {
    if (z[i] == cEnd) {
      if (cEnd != ']' && z[i + 1] == cEnd) {
        i++; /* A doubled quote inside the token */
        continue;
      }
      return i + 1;
    }
  }
  return i;
}

int nosqlArgsHaveEmpty(const char *zSql) {
  int i = 0, iDepth = 0, bContent = 0, bComma = 0, j;
  if (zSql == NULL) return 0;
  /* Find the '(' that opens the argument list (outside quotes). */
  while (zSql[i] && zSql[i] != '(') {
    j = nosqlSkipQuoted(zSql, i);
    i = j > i ? j : i + 1;
  }
  if (zSql[i] != '(') return 0;
  for (i++; zSql[i]; i++) {
    char c = zSql[i];
    j = nosqlSkipQuoted(zSql, i);
    if (j > i) {
      /* A comment is white space; a quoted token is content. */
      if (!(c == '-' || c == '/')) bContent = 1;
      i = j - 1;
      continue;
    }
    if (c == '(') {
      iDepth++;
      bContent = 1;
    } else if (c == ')') {
      /* The end: "()" has no argument; "(a, )" ends with an empty one. */
      if (iDepth == 0) return bComma && !bContent;
      iDepth--;
    } else if (c == ',' && iDepth == 0) {
      if (!bContent) return 1;
      bContent = 0;
      bComma = 1;
    } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f') {
      bContent = 1;
    }
  }
  return 0;
}

int nosqlVtabEmptyArg(sqlite3 *db, const char *zModule, const char *zDb, const char *zName, char **pzErr) {
  sqlite3_stmt *pStmt = NULL;
  int rc, bEmpty = 0;
  char *zSql =
      sqlite3_mprintf("SELECT sql FROM \"%w\".sqlite_schema WHERE type = 'table' AND name = ?1", zDb);
  if (zSql == NULL) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, NULL);
  sqlite3_free(zSql);
  /* No schema text to check: nothing to refuse. But an OOM (which may have
  ** reset the schema the caller's argv points into) is the caller's to return. */
  if (rc != SQLITE_OK) return rc == SQLITE_NOMEM ? rc : SQLITE_OK;
  sqlite3_bind_text(pStmt, 1, zName, -1, SQLITE_STATIC);
  if (sqlite3_step(pStmt) == SQLITE_ROW)
    bEmpty = nosqlArgsHaveEmpty((const char *)sqlite3_column_text(pStmt, 0));
  rc = sqlite3_finalize(pStmt);
  if (rc != SQLITE_OK) return rc;
  if (!bEmpty) return SQLITE_OK;
  *pzErr = sqlite3_mprintf("%s: empty argument in the column list", zModule);
  return *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
}

/**************************************************************************
** A column's declared type and collation without
** sqlite3_table_column_metadata(), whose API slot is NULL in SQLite builds
** without SQLITE_ENABLE_COLUMN_METADATA (the stock amalgamation). The type
** comes from pragma table_xinfo; the collation, which no pragma reports,
** from the table's CREATE statement as stored in sqlite_schema (SQLite
** keeps that text current through ALTER TABLE).
*/

const char *nosqlSqlToken(const char *z, int *pi, int *pn) {
  int i = *pi, i0;
  for (;;) {
    while (z[i] == ' ' || z[i] == '\t' || z[i] == '\n' || z[i] == '\r' || z[i] == '\f') i++;
    if (z[i] == '-' && z[i + 1] == '-') {
      while (z[i] && z[i] != '\n') i++;
    } else if (z[i] == '/' && z[i + 1] == '*') {
      i += 2;
      while (z[i] && !(z[i] == '*' && z[i + 1] == '/')) i++;
      if (z[i]) i += 2;
    } else {
      break;
    }
  }
  if (z[i] == 0) {
    *pi = i;
    return NULL;
  }
  i0 = i;
  if (z[i] == '"' || z[i] == '\'' || z[i] == '`' || z[i] == '[') {
    char cEnd = z[i] == '[' ? ']' : z[i];
    for (i++; z[i]; i++) {
      if (z[i] == cEnd) {
        if (cEnd != ']' && z[i + 1] == cEnd) {
          i++;
          continue;
        }
        i++;
        break;
      }
    }
  } else if (z[i] == '(' || z[i] == ')' || z[i] == ',') {
    i++;
  } else {
    while (z[i] && !strchr(" \t\n\r\f\"'`[(),", z[i]) && !(z[i] == '-' && z[i + 1] == '-') &&
           !(z[i] == '/' && z[i + 1] == '*')) {
      i++;
    }
  }
  *pi = i;
  *pn = i - i0;
  return &z[i0];
}

/*
** True when token z[0..n) names zName (dequoted, case-insensitive). It
** allocates nothing, so it cannot fail: a false "no" on OOM would make a
** declared collation silently BINARY.
*/
static int nosqlTokenIs(const char *z, int n, const char *zName) {
  int i = 0, iEnd = n, j = 0;
  char cEnd = 0;
  if (n >= 2 && strchr("\"'`[", z[0])) {
    cEnd = z[0] == '[' ? ']' : z[0];
    i = 1;
    iEnd = n - 1;
  }
  for (; i < iEnd; i++, j++) {
    unsigned char a = (unsigned char)z[i], b = (unsigned char)zName[j];
    if (b == 0) return 0;
    if (a >= 'A' && a <= 'Z') a = (unsigned char)(a + 32);
    if (b >= 'A' && b <= 'Z') b = (unsigned char)(b + 32);
    if (a != b) return 0;
    if (cEnd && cEnd != ']' && z[i] == cEnd) i++;
  }
  return zName[j] == 0;
}

/*
** The collation declared for column zCol in CREATE TABLE text zSql: a new
** string (sqlite3_mprintf, dequoted) or NULL with *pRc unchanged when the
** column declares none (BINARY) or is not found; *pRc = SQLITE_NOMEM on
** OOM. Of several COLLATE clauses the last one counts, as in SQLite
** ("TEXT COLLATE BINARY COLLATE NOCASE" is NOCASE). Only the column
** definition's own level is read: a COLLATE inside parentheses (CHECK,
** DEFAULT (...), GENERATED AS) belongs to an expression, and strings,
** quoted names and comments are single tokens.
*/
char *nosqlDeclaredCollation(const char *zSql, const char *zCol, int *pRc) {
  int i = 0, n = 0, nDepth = 0, bColStart = 0, bThisCol = 0, n2 = 0;
  const char *zTok, *zName = NULL;
  char *zOut;
  /* Up to the column list's '('. */
  while ((zTok = nosqlSqlToken(zSql, &i, &n)) != NULL && !(n == 1 && zTok[0] == '(')) {
  }
  if (zTok == NULL) return NULL;
  nDepth = 1;
  bColStart = 1;
  while ((zTok = nosqlSqlToken(zSql, &i, &n)) != NULL && nDepth > 0) {
    if (n == 1 && zTok[0] == '(') {
      nDepth++;
    } else if (n == 1 && zTok[0] == ')') {
      nDepth--;
    } else if (nDepth == 1 && n == 1 && zTok[0] == ',') {
      if (bThisCol) break;
      bColStart = 1;
      continue;
    } else if (nDepth == 1 && bColStart) {
      bThisCol = nosqlTokenIs(zTok, n, zCol);
    } else if (nDepth == 1 && bThisCol && n == 7 && sqlite3_strnicmp(zTok, "COLLATE", 7) == 0) {
      int iSave = i, nNext = 0;
      const char *zNext = nosqlSqlToken(zSql, &i, &nNext);
      if (zNext == NULL || (nNext == 1 && strchr("(),", zNext[0]))) {
        i = iSave;
      } else {
        zName = zNext;
        n2 = nNext;
        bColStart = 0;
        continue;
      }
    }
    bColStart = 0;
  }
  if (zName == NULL) return NULL;
  if (n2 >= 2 && strchr("\"'`[", zName[0])) {
    char cEnd = zName[0] == '[' ? ']' : zName[0];
    int k, j = 0;
    zOut = (char *)sqlite3_malloc64((sqlite3_uint64)n2);
    if (zOut == NULL) {
      *pRc = SQLITE_NOMEM;
      return NULL;
    }
    for (k = 1; k < n2 - 1; k++) {
      zOut[j++] = zName[k];
      if (zName[k] == cEnd && cEnd != ']') k++;
    }
    zOut[j] = 0;
  } else {
    zOut = sqlite3_mprintf("%.*s", n2, zName);
    if (zOut == NULL) *pRc = SQLITE_NOMEM;
  }
  return zOut;
}

int nosqlUniqueConds(sqlite3 *db, const char *zSchema, const char *zTable, NosqlBuffer *pCond, int *pnIndex,
                     int (*xCheck)(void *, const char *, int, int), int (*xCol)(void *, const char *),
                     void *pCtx) {
  sqlite3_stmt *pStmt = NULL;
  char *zPrev = NULL;
  int bSkip = 0;
  int rc = sqlite3_prepare_v2(
      db,
      "SELECT l.name, x.name, x.coll, x.cid, l.partial FROM pragma_index_list(?1, ?2) AS l, "
      "pragma_index_xinfo(l.name, ?2) AS x WHERE l.\"unique\" AND x.key ORDER BY l.seq, x.seqno",
      -1, &pStmt, 0);
  *pnIndex = 0;
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_text(pStmt, 1, zTable, -1, SQLITE_STATIC);
  sqlite3_bind_text(pStmt, 2, zSchema, -1, SQLITE_STATIC);
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    const char *zIdx = (const char *)sqlite3_column_text(pStmt, 0);
    const char *zCol = (const char *)sqlite3_column_text(pStmt, 1);
    const char *zColl = (const char *)sqlite3_column_text(pStmt, 2);
    int bNew = zPrev == NULL || zIdx == NULL || strcmp(zPrev, zIdx) != 0;
    int bExpr = sqlite3_column_int(pStmt, 3) < 0 || zCol == NULL;
    if (xCheck) {
      rc = xCheck(pCtx, zIdx, sqlite3_column_int(pStmt, 4), bExpr);
      if (rc != SQLITE_OK) break;
    }
    if (bNew) {
      if (zPrev && !bSkip) nosqlBufferAppend(&rc, pCond, ")", 1);
      sqlite3_free(zPrev);
      zPrev = sqlite3_mprintf("%s", zIdx ? zIdx : "");
      if (zPrev == NULL) rc = SQLITE_NOMEM;
      bSkip = bExpr;
      if (!bSkip) {
        nosqlBufferAppend(&rc, pCond, " OR (", -1);
        (*pnIndex)++;
      }
    }
    if (bSkip || bExpr) continue;
    nosqlBufferAppendf(&rc, pCond, "%ss.\"%w\" = NEW.\"%w\" COLLATE \"%w\"", bNew ? "" : " AND ", zCol, zCol,
                       zColl ? zColl : "BINARY");
    if (rc == SQLITE_OK && xCol) rc = xCol(pCtx, zCol);
  }
  if (zPrev && !bSkip) nosqlBufferAppend(&rc, pCond, ")", 1);
  sqlite3_free(zPrev);
  if (rc == SQLITE_OK) {
    rc = sqlite3_finalize(pStmt);
  } else {
    sqlite3_finalize(pStmt);
  }
  return rc;
}

int nosqlRowidAlias(sqlite3 *db, const char *zSchema, const char *zTable, char **pzCol) {
  sqlite3_stmt *pStmt = NULL;
  int rc;
  *pzCol = NULL;
  /* One primary key column and no index behind it: SQLite made it the
  ** rowid (any other primary key, "INTEGER PRIMARY KEY DESC" and WITHOUT
  ** ROWID included, gets an index of origin 'pk'). No HAVING without GROUP
  ** BY: SQLite 3.38 refuses it. */
  rc = sqlite3_prepare_v2(
      db,
      "SELECT CASE WHEN count(*) = 1 AND NOT EXISTS (SELECT 1 FROM pragma_index_list(?1, ?2) "
      "WHERE origin = 'pk') THEN max(name) END FROM pragma_table_info(?1, ?2) WHERE pk > 0",
      -1, &pStmt, 0);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_text(pStmt, 1, zTable, -1, SQLITE_STATIC);
  sqlite3_bind_text(pStmt, 2, zSchema, -1, SQLITE_STATIC);
  if (sqlite3_step(pStmt) == SQLITE_ROW && sqlite3_column_type(pStmt, 0) != SQLITE_NULL) {
    *pzCol = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(pStmt, 0));
    if (*pzCol == NULL) rc = SQLITE_NOMEM;
  }
  if (rc == SQLITE_OK) {
    rc = sqlite3_finalize(pStmt);
  } else {
    sqlite3_finalize(pStmt);
  }
  if (rc != SQLITE_OK) {
    sqlite3_free(*pzCol);
    *pzCol = NULL;
  }
  return rc;
}

int nosqlColumnName(sqlite3 *db, const char *zSchema, const char *zTable, const char *zCol, char **pzOut) {
  sqlite3_stmt *pStmt = NULL;
  int rc = sqlite3_prepare_v2(
      db, "SELECT name FROM pragma_table_xinfo(?1, ?2) WHERE name = ?3 COLLATE NOCASE", -1, &pStmt, 0);
  *pzOut = NULL;
  if (rc == SQLITE_OK) {
    sqlite3_bind_text(pStmt, 1, zTable, -1, SQLITE_STATIC);
    sqlite3_bind_text(pStmt, 2, zSchema, -1, SQLITE_STATIC);
    sqlite3_bind_text(pStmt, 3, zCol, -1, SQLITE_STATIC);
    rc = sqlite3_step(pStmt);
    if (rc == SQLITE_ROW) {
      const char *zName = (const char *)sqlite3_column_text(pStmt, 0);
      *pzOut = zName ? sqlite3_mprintf("%s", zName) : NULL;
      rc = *pzOut ? SQLITE_OK : SQLITE_NOMEM;
    } else if (rc == SQLITE_DONE) {
      rc = SQLITE_NOTFOUND;
    }
  }
  sqlite3_finalize(pStmt);
  return rc;
}

int nosqlColumnInfo(sqlite3 *db, const char *zSchema, const char *zTable, const char *zCol, char **pzType,
                    char **pzColl) {
  sqlite3_stmt *pStmt = NULL;
  char *zSql;
  int rc, bFound = 0;
  *pzType = *pzColl = NULL;
  zSql = sqlite3_mprintf("SELECT type FROM pragma_table_xinfo(%Q, %Q) WHERE name = %Q COLLATE NOCASE", zTable,
                         zSchema, zCol);
  if (zSql == NULL) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  if (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    const char *zType = (const char *)sqlite3_column_text(pStmt, 0);
    bFound = 1;
    *pzType = sqlite3_mprintf("%s", zType ? zType : "");
    if (*pzType == NULL) rc = SQLITE_NOMEM;
  }
  if (rc == SQLITE_OK) {
    rc = sqlite3_finalize(pStmt);
  } else {
    sqlite3_finalize(pStmt);
  }
  pStmt = NULL;
  /* An unknown schema fails the pragma (SQLITE_ERROR): no such table either
  ** way. Any other failure (an interrupt, a lock, damage) is the answer. */
  if (rc != SQLITE_OK || !bFound) {
    sqlite3_free(*pzType);
    *pzType = NULL;
    return rc == SQLITE_OK || rc == SQLITE_ERROR ? SQLITE_NOTFOUND : rc;
  }
  if (rc == SQLITE_OK) {
    zSql = sqlite3_mprintf(
        "SELECT sql FROM \"%w\".sqlite_schema WHERE type = 'table' AND name = %Q COLLATE NOCASE", zSchema,
        zTable);
    rc = zSql ? sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0) : SQLITE_NOMEM;
    sqlite3_free(zSql);
    if (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
      const char *zCreate = (const char *)sqlite3_column_text(pStmt, 0);
      if (zCreate) *pzColl = nosqlDeclaredCollation(zCreate, zCol, &rc);
    }
    if (rc == SQLITE_OK) {
      rc = sqlite3_finalize(pStmt);
    } else {
      sqlite3_finalize(pStmt);
    }
  }
  if (rc != SQLITE_OK) {
    sqlite3_free(*pzType);
    sqlite3_free(*pzColl);
    *pzType = *pzColl = NULL;
  }
  return rc;
}

static int nosqlHexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

int nosqlJsonUnescape(const char *z, int n, char *aOut, int *aMap, int iBase) {
  int i, nOut = 0;
  for (i = 0; i < n; i++) {
    unsigned c;
    int iAt = i, k, nUtf;
    char a[4];
    if (z[i] != '\\') {
      if (aMap) aMap[nOut] = iBase + i;
      aOut[nOut++] = z[i];
      continue;
    }
    i++;
    switch (z[i]) {
      case 'b':
        c = '\b';
        break;
      case 'f':
        c = '\f';
        break;
      case 'n':
        c = '\n';
        break;
      case 'r':
        c = '\r';
        break;
      case 't':
        c = '\t';
        break;
      case 'u':
        c = (unsigned)(nosqlHexDigit(z[i + 1]) << 12 | nosqlHexDigit(z[i + 2]) << 8 |
                       nosqlHexDigit(z[i + 3]) << 4 | nosqlHexDigit(z[i + 4]));
        i += 4;
        if (c >= 0xd800 && c < 0xdc00 && i + 6 < n && z[i + 1] == '\\' && z[i + 2] == 'u') {
          unsigned c2 = (unsigned)(nosqlHexDigit(z[i + 3]) << 12 | nosqlHexDigit(z[i + 4]) << 8 |
                                   nosqlHexDigit(z[i + 5]) << 4 | nosqlHexDigit(z[i + 6]));
          if (c2 >= 0xdc00 && c2 < 0xe000) {
            c = 0x10000 + ((c - 0xd800) << 10) + (c2 - 0xdc00);
            i += 6;
          }
        }
        if (c >= 0xd800 && c < 0xe000) c = 0xfffd;
        break;
      default: /* " \ / */
        c = (unsigned char)z[i];
        break;
    }
    if (c < 0x80) {
      a[0] = (char)c;
      nUtf = 1;
    } else if (c < 0x800) {
      a[0] = (char)(0xc0 | (c >> 6));
      a[1] = (char)(0x80 | (c & 0x3f));
      nUtf = 2;
    } else if (c < 0x10000) {
      a[0] = (char)(0xe0 | (c >> 12));
      a[1] = (char)(0x80 | ((c >> 6) & 0x3f));
      a[2] = (char)(0x80 | (c & 0x3f));
      nUtf = 3;
    } else {
      a[0] = (char)(0xf0 | (c >> 18));
      a[1] = (char)(0x80 | ((c >> 12) & 0x3f));
      a[2] = (char)(0x80 | ((c >> 6) & 0x3f));
      a[3] = (char)(0x80 | (c & 0x3f));
      nUtf = 4;
    }
    for (k = 0; k < nUtf; k++) {
      if (aMap) aMap[nOut] = iBase + iAt; /* Every byte of an escape maps to its backslash */
      aOut[nOut++] = a[k];
    }
  }
  return nOut;
}

char *nosqlDequote(const char *z, int n) {
  char q, qEnd;
  char *zOut;
  int i, j = 0;
  while (n > 0 && nosqlIsSpace(*z)) z++, n--;
  while (n > 0 && nosqlIsSpace(z[n - 1])) n--;
  q = n >= 2 ? z[0] : 0;
  qEnd = q == '[' ? ']' : q;
  zOut = (char *)sqlite3_malloc64((size_t)n + 1);
  if (zOut == NULL) return NULL;
  if ((q == '\'' || q == '"' || q == '`' || q == '[') && z[n - 1] == qEnd) {
    for (i = 1; i < n - 1; i++) {
      zOut[j++] = z[i];
      if (z[i] == qEnd && q != '[' && i + 1 < n - 1 && z[i + 1] == qEnd) i++;
    }
  } else {
    memcpy(zOut, z, (size_t)n);
    j = n;
  }
  zOut[j] = 0;
  return zOut;
}

int nosqlIsIdent(const char *z, int n) {
  int i;
  if (n <= 0) return 0;
  if (z[0] == '"' || z[0] == '`' || z[0] == '[') return n >= 3;
  if (!((z[0] >= 'a' && z[0] <= 'z') || (z[0] >= 'A' && z[0] <= 'Z') || z[0] == '_' ||
        (unsigned char)z[0] >= 0x80)) {
    return 0;
  }
  for (i = 1; i < n; i++) {
    char c = z[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' ||
          (c >= '0' && c <= '9') || (unsigned char)c >= 0x80)) {
      return 0;
    }
  }
  return 1;
}

/* One part of a qualified name at z[*pi]: a quoted identifier or a bare word (no dot); NULL if none. */
static const char *nosqlNamePart(const char *z, int *pi, int *pn) {
  int i = *pi, i0;
  while (nosqlIsSpace(z[i])) i++;
  if (z[i] == '"' || z[i] == '`' || z[i] == '[') {
    *pi = i;
    return nosqlSqlToken(z, pi, pn);
  }
  i0 = i;
  while (z[i] &&
         (z[i] == '_' || z[i] == '$' || (z[i] >= 'a' && z[i] <= 'z') || (z[i] >= 'A' && z[i] <= 'Z') ||
          (z[i] >= '0' && z[i] <= '9') || (unsigned char)z[i] >= 0x80)) {
    i++;
  }
  *pi = i;
  *pn = i - i0;
  return i > i0 ? &z[i0] : NULL;
}

int nosqlQualifiedName(const char *z, char **pzSchema, char **pzName) {
  int i = 0, n1 = 0, n2 = 0, nEnd = 0;
  const char *z1 = nosqlNamePart(z, &i, &n1), *z2 = NULL;
  *pzSchema = *pzName = NULL;
  if (z1 == NULL || !nosqlIsIdent(z1, n1)) return SQLITE_ERROR;
  while (nosqlIsSpace(z[i])) i++;
  if (z[i] == '.') {
    i++;
    z2 = nosqlNamePart(z, &i, &n2);
    if (z2 == NULL || !nosqlIsIdent(z2, n2)) return SQLITE_ERROR;
  }
  if (nosqlSqlToken(z, &i, &nEnd) != NULL) return SQLITE_ERROR;
  if (z2) *pzSchema = nosqlDequote(z1, n1);
  *pzName = z2 ? nosqlDequote(z2, n2) : nosqlDequote(z1, n1);
  if (*pzName == NULL || (z2 && *pzSchema == NULL)) {
    sqlite3_free(*pzSchema);
    sqlite3_free(*pzName);
    *pzSchema = *pzName = NULL;
    return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

/* The index after the quoted identifier at z[i] (its closing quote included), or -1 if it is not closed. */
static int nosqlQuotedEnd(const char *z, int i) {
  char cEnd = z[i] == '[' ? ']' : z[i];
  for (i++; z[i]; i++) {
    if (z[i] != cEnd) continue;
    if (cEnd != ']' && z[i + 1] == cEnd) {
      i++; /* A doubled quote inside the identifier */
      continue;
    }
    return i + 1;
  }
  return -1;
}

void nosqlColumnListClear(NosqlColumnList *p) {
  int i;
  for (i = 0; i < p->nCol; i++) sqlite3_free(p->azCol[i]);
  sqlite3_free(p->azCol);
  sqlite3_free(p->zTable);
  memset(p, 0, sizeof(*p));
}

/* Append the dequoted name z[0..n) to p->azCol. */
static int nosqlColumnListAdd(NosqlColumnList *p, const char *z, int n) {
  char **aNew = (char **)sqlite3_realloc64(p->azCol, sizeof(char *) * ((sqlite3_uint64)p->nCol + 1));
  if (aNew == NULL) return SQLITE_NOMEM;
  p->azCol = aNew;
  if ((aNew[p->nCol] = nosqlDequote(z, n)) == NULL) return SQLITE_NOMEM;
  p->nCol++;
  return SQLITE_OK;
}

int nosqlColumnListParse(const char *z, NosqlColumnList *p, char **pzErr) {
  int i = 0, iOpen, iEnd, rc = SQLITE_OK;
  char *zErr = NULL;
  int bBad = 0; /* Malformed: zErr says why (NULL when it could not be allocated) */
  memset(p, 0, sizeof(*p));
  *pzErr = NULL;
  if (strchr(z, '(') == NULL) return SQLITE_NOTFOUND;
  /* The table part: up to the first parenthesis outside a quoted identifier. */
  while (z[i] && z[i] != '(' && z[i] != ')') {
    if (z[i] == '"' || z[i] == '`' || z[i] == '[' || z[i] == '\'') {
      if ((i = nosqlQuotedEnd(z, i)) < 0) break;
    } else {
      i++;
    }
  }
  if (i >= 0 && z[i] == 0) return SQLITE_NOTFOUND;
  if (i < 0 || z[i] == ')') {
    bBad = 1;
    zErr = sqlite3_mprintf(i < 0 ? "unbalanced quote" : "unbalanced parenthesis");
  }
  iOpen = i;
  /* The names: bare words or quoted identifiers, separated by commas, up to the closing parenthesis. */
  for (i++; !bBad && rc == SQLITE_OK;) {
    int i0;
    while (nosqlIsSpace(z[i])) i++;
    i0 = i;
    if (z[i] == '"' || z[i] == '`' || z[i] == '[' || z[i] == '\'') {
      i = nosqlQuotedEnd(z, i);
      if (i < 0) {
        bBad = 1;
        zErr = sqlite3_mprintf("unbalanced quote");
        break;
      }
      if (i - i0 == 2) i = i0; /* "" names nothing */
    } else {
      while (z[i] == '_' || z[i] == '$' || (z[i] >= 'a' && z[i] <= 'z') || (z[i] >= 'A' && z[i] <= 'Z') ||
             (z[i] >= '0' && z[i] <= '9') || (unsigned char)z[i] >= 0x80) {
        i++;
      }
    }
    if (i == i0) {
      bBad = 1;
      if (z[i] == ')' && p->nCol == 0) {
        zErr = sqlite3_mprintf("no column names between the parentheses");
      } else if (z[i] == ',' || z[i] == ')' || z[i] == '"' || z[i] == '`' || z[i] == '[' || z[i] == '\'') {
        zErr = sqlite3_mprintf("empty column name (name %d)", p->nCol + 1);
      } else if (z[i] == 0 || z[i] == '(') {
        zErr = sqlite3_mprintf("unbalanced parenthesis");
      } else {
        zErr = sqlite3_mprintf("unexpected '%.1s' in the column list", &z[i]);
      }
      break;
    }
    rc = nosqlColumnListAdd(p, &z[i0], i - i0);
    while (nosqlIsSpace(z[i])) i++;
    if (z[i] == ',') {
      i++;
      continue;
    }
    if (z[i] == ')') {
      for (i++; nosqlIsSpace(z[i]); i++) {
      }
      if (z[i]) {
        bBad = 1;
        zErr = sqlite3_mprintf("unexpected '%s' after the column list", &z[i]);
      }
      break;
    }
    bBad = 1;
    if (z[i] == 0 || z[i] == '(') {
      zErr = sqlite3_mprintf("unbalanced parenthesis");
    } else {
      zErr = sqlite3_mprintf("unexpected '%.1s' in the column list", &z[i]);
    }
  }
  if (rc == SQLITE_OK && !bBad) {
    for (iEnd = iOpen; iEnd > 0 && nosqlIsSpace(z[iEnd - 1]); iEnd--) {
    }
    if (iEnd == 0) {
      bBad = 1;
      zErr = sqlite3_mprintf("no table name before the column list");
    } else if ((p->zTable = sqlite3_mprintf("%.*s", iEnd, z)) == NULL) {
      rc = SQLITE_NOMEM;
    }
  }
  if (rc == SQLITE_OK && bBad) rc = zErr ? SQLITE_ERROR : SQLITE_NOMEM;
  if (rc != SQLITE_OK) {
    nosqlColumnListClear(p);
    if (rc == SQLITE_ERROR)
      *pzErr = zErr;
    else
      sqlite3_free(zErr);
  }
  return rc;
}

int nosqlCursorStep(sqlite3_vtab *pVtab, sqlite3_stmt *pStmt, const char *zWho, int *pbEof) {
  int rc = sqlite3_step(pStmt);
  if (rc == SQLITE_ROW) return SQLITE_OK;
  *pbEof = 1;
  if (rc == SQLITE_DONE) return SQLITE_OK;
  rc = sqlite3_reset(pStmt);
  nosqlVtabError(pVtab, "%s: %s", zWho, sqlite3_errmsg(sqlite3_db_handle(pStmt)));
  return rc;
}

int nosqlValueAffinity(sqlite3 *db, sqlite3_value *pVal, char cAff, sqlite3_value **ppOut) {
  /* CAST(x AS NUMERIC) has NUMERIC affinity, so "= ?1" applies numeric
  ** affinity to ?1 exactly as a numeric column does: equal only when the
  ** whole text is a number ('1abc' stays text). */
  static const char zNum[] = "SELECT CASE WHEN CAST(?1 AS NUMERIC) = ?1 THEN CAST(?1 AS NUMERIC) ELSE ?1 END";
  const char *zSql = NULL;
  int eType = sqlite3_value_type(pVal), rc = SQLITE_OK;
  sqlite3_stmt *pStmt = NULL;
  *ppOut = NULL;
  if (eType == SQLITE_TEXT && (cAff == 'i' || cAff == 'r' || cAff == 'n')) {
    zSql = zNum;
  } else if ((eType == SQLITE_INTEGER || eType == SQLITE_FLOAT) && cAff == 't') {
    zSql = "SELECT CAST(?1 AS TEXT)";
  }
  if (zSql == NULL) {
    *ppOut = sqlite3_value_dup(pVal);
    return *ppOut ? SQLITE_OK : SQLITE_NOMEM;
  }
  rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  if (rc == SQLITE_OK) {
    sqlite3_bind_value(pStmt, 1, pVal);
    if (sqlite3_step(pStmt) == SQLITE_ROW) {
      *ppOut = sqlite3_value_dup(sqlite3_column_value(pStmt, 0));
      if (*ppOut == NULL) rc = SQLITE_NOMEM;
    }
    if (rc == SQLITE_OK) {
      rc = sqlite3_finalize(pStmt);
    } else {
      sqlite3_finalize(pStmt);
    }
    if (rc == SQLITE_OK && *ppOut == NULL) rc = SQLITE_NOMEM;
  }
  if (rc != SQLITE_OK) {
    sqlite3_value_free(*ppOut);
    *ppOut = NULL;
  }
  return rc;
}

char nosqlTypeAffinity(const char *zType) {
  static const char *const azPat[] = {"INT", "CHAR", "CLOB", "TEXT", "BLOB", "REAL", "FLOA", "DOUB"};
  static const char acAff[] = {'i', 't', 't', 't', 'b', 'r', 'r', 'r'};
  int k, i;
  if (zType == NULL || zType[0] == 0) return 'b';
  /* SQLite's rules in their order: the first pattern found anywhere in the type wins. */
  for (k = 0; k < 8; k++) {
    int n = (int)strlen(azPat[k]);
    for (i = 0; zType[i]; i++) {
      if (sqlite3_strnicmp(&zType[i], azPat[k], n) == 0) return acAff[k];
    }
  }
  return 'n';
}

char **nosqlArgvDup(int argc, const char *const *argv) {
  sqlite3_uint64 nByte = sizeof(char *) * ((sqlite3_uint64)argc + 1);
  char **azCopy, *z;
  int i;
  for (i = 0; i < argc; i++) nByte += strlen(argv[i]) + 1;
  azCopy = (char **)sqlite3_malloc64(nByte);
  if (azCopy == NULL) return NULL;
  z = (char *)&azCopy[argc + 1];
  for (i = 0; i < argc; i++) {
    size_t n = strlen(argv[i]) + 1;
    memcpy(z, argv[i], n);
    azCopy[i] = z;
    z += n;
  }
  azCopy[argc] = NULL;
  return azCopy;
}

void nosqlTableNameClear(NosqlTableName *p) {
  sqlite3_free(p->zSchema);
  sqlite3_free(p->zName);
  memset(p, 0, sizeof(*p));
}

int nosqlTableResolve(sqlite3 *db, const char *zText, const char *zDefault, NosqlTableName *p) {
  /* SQLite's order for an unqualified name: temp (seq 1), main (0), then the attached ones. */
  static const char zSql[] =
      "SELECT l.schema, l.name, l.type FROM pragma_database_list AS d, pragma_table_list AS l"
      " WHERE l.schema = d.name AND l.name = ?1 COLLATE NOCASE AND (?2 IS NULL OR d.name = ?2 COLLATE NOCASE)"
      " ORDER BY d.seq <> 1, d.seq LIMIT 1";
  sqlite3_stmt *pStmt = NULL;
  char *zSchema = NULL, *zName = NULL;
  int rc, k;
  memset(p, 0, sizeof(*p));
  rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  /* First the whole text as one name (a table may have a dot in its name), then "schema.name". */
  for (k = 0; rc == SQLITE_OK && k < 2; k++) {
    if (k == 0) {
      sqlite3_bind_text(pStmt, 1, zText, -1, SQLITE_STATIC);
      sqlite3_bind_text(pStmt, 2, zDefault, -1, SQLITE_STATIC);
    } else {
      rc = nosqlQualifiedName(zText, &zSchema, &zName);
      if (rc == SQLITE_ERROR) {
        rc = SQLITE_OK; /* Not a name: no such table */
        break;
      }
      if (rc != SQLITE_OK) break;
      p->bQualified = zSchema != NULL;
      sqlite3_bind_text(pStmt, 1, zName, -1, SQLITE_STATIC);
      sqlite3_bind_text(pStmt, 2, zSchema ? zSchema : zDefault, -1, SQLITE_STATIC);
    }
    rc = sqlite3_step(pStmt);
    if (rc == SQLITE_ROW) {
      const char *zType = (const char *)sqlite3_column_text(pStmt, 2);
      p->zSchema = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(pStmt, 0));
      p->zName = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(pStmt, 1));
      p->eType = zType == NULL                   ? NOSQL_TABLE
                 : strcmp(zType, "view") == 0    ? NOSQL_VIEW
                 : strcmp(zType, "virtual") == 0 ? NOSQL_VTAB
                                                 : NOSQL_TABLE;
      rc = (p->zSchema && p->zName) ? SQLITE_OK : SQLITE_NOMEM;
      break;
    }
    if (rc == SQLITE_DONE) rc = sqlite3_reset(pStmt);
  }
  if (rc == SQLITE_OK && p->zName == NULL) rc = SQLITE_NOTFOUND;
  sqlite3_finalize(pStmt);
  if (rc == SQLITE_NOTFOUND && zName) {
    /* Not found: the parts as written, for the caller's own message. */
    p->zSchema = zSchema ? zSchema : (zDefault ? sqlite3_mprintf("%s", zDefault) : NULL);
    p->zName = zName;
    zSchema = zName = NULL;
    if (zDefault && p->zSchema == NULL) rc = SQLITE_NOMEM;
  }
  if (rc != SQLITE_OK && rc != SQLITE_NOTFOUND) nosqlTableNameClear(p);
  if (p->zSchema != zSchema) sqlite3_free(zSchema);
  if (p->zName != zName) sqlite3_free(zName);
  return rc;
}

int nosqlTableArg(sqlite3 *db, const char *zText, const char *zDefault, NosqlTableName *p) {
  int rc = nosqlTableResolve(db, zText, zDefault, p);
  if (rc == SQLITE_NOTFOUND) rc = p->zName ? SQLITE_OK : SQLITE_ERROR;
  return rc;
}

sqlite3_stmt *nosqlStmtCacheTake(NosqlStmtCache *p, const char *zKey, NosqlStmtSlot **ppSlot) {
  int i;
  for (i = 0; i < p->nSlot; i++) {
    NosqlStmtSlot *pS = &p->aSlot[i];
    if (pS->pStmt && !pS->bBusy && strcmp(pS->zKey, zKey) == 0) {
      pS->bBusy = 1;
      *ppSlot = pS;
      return pS->pStmt;
    }
  }
  *ppSlot = NULL;
  return NULL;
}

void nosqlStmtCacheKeep(NosqlStmtCache *p, const char *zKey, sqlite3_stmt *pStmt, NosqlStmtSlot **ppSlot) {
  int i;
  *ppSlot = NULL;
  /* The first slot no cursor holds; if it has a statement, the next in turn instead, unless held. */
  for (i = 0; i < p->nSlot; i++) {
    if (p->aSlot[i].pStmt == NULL || !p->aSlot[i].bBusy) break;
  }
  if (i == p->nSlot) return;
  if (p->aSlot[i].pStmt) {
    i = (p->iNext++) % p->nSlot;
    if (p->aSlot[i].bBusy) return;
  }
  {
    NosqlStmtSlot *pS = &p->aSlot[i];
    char *zCopy = sqlite3_mprintf("%s", zKey);
    if (zCopy == NULL) return;
    sqlite3_finalize(pS->pStmt);
    sqlite3_free(pS->zKey);
    pS->zKey = zCopy;
    pS->pStmt = pStmt;
    pS->bBusy = 1;
    pS->bStale = 0;
    *ppSlot = pS;
  }
}

void nosqlStmtCacheGive(NosqlStmtSlot *pSlot, sqlite3_stmt *pStmt) {
  if (pSlot && pSlot->bStale) {
    sqlite3_finalize(pSlot->pStmt);
    sqlite3_free(pSlot->zKey);
    memset(pSlot, 0, sizeof(*pSlot));
  } else if (pSlot) {
    sqlite3_reset(pStmt);
    sqlite3_clear_bindings(pStmt);
    pSlot->bBusy = 0;
  } else {
    sqlite3_finalize(pStmt);
  }
}

void nosqlStmtCacheClear(NosqlStmtCache *p) {
  int i;
  for (i = 0; i < p->nSlot; i++) {
    NosqlStmtSlot *pS = &p->aSlot[i];
    if (pS->bBusy) {
      pS->bStale = 1;
      continue;
    }
    sqlite3_finalize(pS->pStmt);
    sqlite3_free(pS->zKey);
    memset(pS, 0, sizeof(*pS));
  }
}

char *nosqlValidOptions(const char *const *azValid) {
  NosqlBuffer b = {0, 0, 0};
  int rc = SQLITE_OK, i;
  nosqlBufferAppend(&rc, &b, "(valid options: ", -1);
  for (i = 0; azValid[i]; i++) nosqlBufferAppendf(&rc, &b, "%s%s", i ? ", " : "", azValid[i]);
  nosqlBufferAppend(&rc, &b, ")", 1);
  if (rc != SQLITE_OK) {
    nosqlBufferFree(&b);
    return NULL;
  }
  return (char *)b.a;
}

char *nosqlUnknownOption(const char *zWho, const char *zKey, int nKey, const char *const *azValid) {
  char *zList = nosqlValidOptions(azValid);
  char *z = zList ? sqlite3_mprintf("%s: unknown option '%.*s' %s", zWho, nKey < 0 ? (int)strlen(zKey) : nKey,
                                    zKey, zList)
                  : NULL;
  sqlite3_free(zList);
  return z;
}

/* What an options key of type eType must be, for messages. */
static const char *nosqlOptionWant(int eType) {
  switch (eType) {
    case NOSQL_OPT_TEXT:
      return "a string";
    case NOSQL_OPT_INT:
      return "an integer";
    case NOSQL_OPT_NUM:
      return "a number";
    case NOSQL_OPT_BOOL:
      return "true or false";
    default:
      return "a JSON object or a string";
  }
}

/* Does a value of json_type() zType suit an options key of type eType (null suits every key)? */
static int nosqlOptionFits(int eType, const char *zType) {
  if (strcmp(zType, "null") == 0) return 1;
  switch (eType) {
    case NOSQL_OPT_TEXT:
      return strcmp(zType, "text") == 0;
    case NOSQL_OPT_INT:
      return strcmp(zType, "integer") == 0;
    case NOSQL_OPT_NUM:
      return strcmp(zType, "integer") == 0 || strcmp(zType, "real") == 0;
    case NOSQL_OPT_BOOL:
      return strcmp(zType, "true") == 0 || strcmp(zType, "false") == 0;
    default:
      return strcmp(zType, "object") == 0 || strcmp(zType, "text") == 0;
  }
}

/* The most arguments an options object can name (the graph jobs have up to 11). */
#define NOSQL_OPT_MAX 64

int nosqlOptionsRead(sqlite3 *db, const char *zFunc, const NosqlOption *aOpt, int nReq, int nArg,
                     sqlite3_value *const *apArg, sqlite3_value **apEff, sqlite3_value **apOwn, int *piObj,
                     char **pzErr) {
  sqlite3_stmt *pStmt = NULL;
  const char *zObj;
  char aSeen[NOSQL_OPT_MAX];
  int i, iObj = -1, nObj, iAt, rc;
  *piObj = -1;
  *pzErr = NULL;
  if (nArg > NOSQL_OPT_MAX) return SQLITE_ERROR;
  for (i = 0; i < nArg; i++) apEff[i] = apArg[i];
  /* The last argument given (SQL NULL is not given). */
  for (i = nArg - 1; i >= nReq && (apArg[i] == NULL || sqlite3_value_type(apArg[i]) == SQLITE_NULL); i--) {
  }
  if (i < nReq || aOpt[i].eType == NOSQL_OPT_OBJECT || sqlite3_value_type(apArg[i]) != SQLITE_TEXT) {
    return SQLITE_OK;
  }
  zObj = (const char *)sqlite3_value_text(apArg[i]);
  if (zObj == NULL) return SQLITE_NOMEM;
  if (zObj[0] != '{') return SQLITE_OK;
  iObj = *piObj = i;
  apEff[iObj] = NULL;
  nObj = sqlite3_value_bytes(apArg[iObj]);
  iAt = nosqlJsonErrorAt(zObj, nObj);
  if (iAt >= 0) {
    char *zQ = nosqlValueQuote(apArg[iObj]);
    *pzErr = zQ ? sqlite3_mprintf("%s: the options object " NOSQL_JSON_AT ": %s", zFunc, iAt, zQ) : NULL;
    sqlite3_free(zQ);
    return *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  memset(aSeen, 0, sizeof(aSeen));
  rc = sqlite3_prepare_v2(db, "SELECT key, value, type FROM json_each(?1)", -1, &pStmt, 0);
  if (rc == SQLITE_OK) rc = sqlite3_bind_text(pStmt, 1, zObj, nObj, SQLITE_STATIC);
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    const char *zKey = (const char *)sqlite3_column_text(pStmt, 0);
    const char *zType = (const char *)sqlite3_column_text(pStmt, 2);
    sqlite3_value *pVal = sqlite3_column_value(pStmt, 1);
    int j;
    if (zKey == NULL || zType == NULL) {
      rc = SQLITE_NOMEM;
      break;
    }
    for (j = nReq; j < nArg && strcmp(aOpt[j].zName, zKey) != 0; j++) {
    }
    if (j == nArg) {
      const char *azValid[NOSQL_OPT_MAX + 1];
      int k;
      for (k = nReq; k < nArg; k++) azValid[k - nReq] = aOpt[k].zName;
      azValid[nArg - nReq] = NULL;
      *pzErr = nosqlUnknownOption(zFunc, zKey, -1, azValid);
    } else if (aSeen[j]) {
      *pzErr = sqlite3_mprintf("%s: option '%s' is given twice in the options object", zFunc, zKey);
    } else if (j != iObj && apArg[j] && sqlite3_value_type(apArg[j]) != SQLITE_NULL) {
      *pzErr = sqlite3_mprintf("%s: option '%s' is given twice: as argument %d and in the options object",
                               zFunc, zKey, j + 1);
    } else if (!nosqlOptionFits(aOpt[j].eType, zType)) {
      int bWord = strcmp(zType, "true") == 0 || strcmp(zType, "false") == 0;
      char *zQ = bWord ? NULL : nosqlValueQuote(pVal);
      if (bWord || zQ) {
        *pzErr = sqlite3_mprintf("%s: option '%s' must be %s, not %s", zFunc, zKey,
                                 nosqlOptionWant(aOpt[j].eType), bWord ? zType : zQ);
      }
      sqlite3_free(zQ);
    } else {
      aSeen[j] = 1;
      apEff[j] = NULL;
      if (strcmp(zType, "null") != 0) {
        apOwn[j] = sqlite3_value_dup(pVal);
        if (apOwn[j] == NULL) rc = SQLITE_NOMEM;
        apEff[j] = apOwn[j];
      }
      continue;
    }
    rc = *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  if (rc == SQLITE_OK) {
    rc = sqlite3_finalize(pStmt);
  } else {
    sqlite3_finalize(pStmt);
  }
  return rc;
}

char *nosqlNotTableFunction(int argc, const char *const *argv, const char *zArgs, int *pbNoMem) {
  char *z;
  *pbNoMem = 0;
  if (argc != 3 || sqlite3_stricmp(argv[0], argv[2]) != 0) return NULL;
  z = sqlite3_mprintf(
      "%s: not a table-valued function: create a table with CREATE VIRTUAL TABLE name USING "
      "%s(%s)",
      argv[0], argv[0], zArgs);
  if (z == NULL) *pbNoMem = 1;
  return z;
}
