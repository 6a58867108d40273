/*
** rows.h: what the property tests (plan.c, history.c) compare: the rows of
** a query, each rendered with its values' types, sorted, joined by
** newlines. Included by each test program (one .c file each).
*/
#ifndef NOSQL_PROPERTY_ROWS_H
#define NOSQL_PROPERTY_ROWS_H

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

static int propCmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/*
** The rows of zSql as "|type:text|type:text\n" lines, sorted (malloc'd;
** the caller frees it). *pnRow gets the row count; *pzErr the error message
** (sqlite3_mprintf) when the query failed, else NULL.
*/
static char *propRows(sqlite3 *db, const char *zSql, int *pnRow, char **pzErr) {
  sqlite3_stmt *pStmt = NULL;
  char **az = NULL;
  int n = 0, nAlloc = 0, i, rc;
  size_t nTotal = 1;
  char *zOut;
  *pzErr = NULL;
  rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  while (rc == SQLITE_OK && (rc = sqlite3_step(pStmt)) == SQLITE_ROW) {
    char *zRow = sqlite3_mprintf("");
    rc = SQLITE_OK;
    for (i = 0; i < sqlite3_column_count(pStmt); i++) {
      sqlite3_value *pVal = sqlite3_column_value(pStmt, i);
      const char *zText = (const char *)sqlite3_column_text(pStmt, i);
      zRow = sqlite3_mprintf("%z|%d:%s", zRow, sqlite3_value_type(pVal), zText ? zText : "NULL");
    }
    if (n == nAlloc) {
      nAlloc = nAlloc ? nAlloc * 2 : 64;
      az = (char **)realloc(az, sizeof(char *) * (size_t)nAlloc);
      if (az == NULL) abort();
    }
    az[n++] = zRow;
    nTotal += strlen(zRow) + 1;
  }
  if (rc != SQLITE_DONE) *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
  sqlite3_finalize(pStmt);
  qsort(az, (size_t)n, sizeof(char *), propCmp);
  zOut = (char *)malloc(nTotal);
  if (zOut == NULL) abort();
  zOut[0] = 0;
  for (i = 0; i < n; i++) {
    strcat(zOut, az[i]);
    strcat(zOut, "\n");
    sqlite3_free(az[i]);
  }
  free(az);
  if (pnRow) *pnRow = n;
  return zOut;
}

#endif /* NOSQL_PROPERTY_ROWS_H */
