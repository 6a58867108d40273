/*
** util.c: small helpers shared by every feature file: the growable buffer
** with the sticky error code, and error-message formatting.
**
** Contracts are stated in ext/nosqlInt.h.
*/
#include "nosqlInt.h"

#include <stdarg.h>
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

void *nosqlCursorNew(sqlite3_int64 nByte, sqlite3_vtab_cursor **ppCursor) {
  sqlite3_vtab_cursor *pCur = (sqlite3_vtab_cursor *)sqlite3_malloc64((sqlite3_uint64)nByte);
  if (pCur == NULL) return NULL;
  memset(pCur, 0, (size_t)nByte);
  *ppCursor = pCur;
  return pCur;
}
