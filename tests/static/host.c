/*
** host.c: a tiny C host that links dist/libnosql.a instead of loading a
** file, the way hosts without dlopen (or with extension loading disabled)
** use the extension: sqlite3_auto_extension(sqlite3_nosql_init).
**
** It checks that a new connection has nosql_version() equal to the VERSION
** file given as argv[1], that loading twice on one connection is harmless,
** and that a failed registration names the feature that failed. Prints
** "N passed, N failed".
*/
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "nosql.h"

static int nPass; /* Checks that held */
static int nFail; /* Checks that failed */

static void check(int bOk, const char *zWhat, const char *zDetail) {
  if (bOk) {
    nPass++;
  } else {
    nFail++;
    printf("FAIL static host: %s: %s\n", zWhat, zDetail ? zDetail : "");
  }
}

/* The text of the first column of the first row of zSql, or "" (static). */
static const char *firstText(sqlite3 *db, const char *zSql) {
  static char zBuf[256];
  sqlite3_stmt *pStmt = NULL;
  zBuf[0] = 0;
  if (sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0) == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    const char *z = (const char *)sqlite3_column_text(pStmt, 0);
    snprintf(zBuf, sizeof(zBuf), "%s", z ? z : "NULL");
  } else {
    snprintf(zBuf, sizeof(zBuf), "error: %s", sqlite3_errmsg(db));
  }
  sqlite3_finalize(pStmt);
  return zBuf;
}

int main(int argc, char **argv) {
  char zVersion[64] = "";
  sqlite3 *db = NULL;
  sqlite3_stmt *pBusy = NULL;
  char *zErr = NULL;
  int rc;
  FILE *in = argc > 1 ? fopen(argv[1], "r") : NULL;

  if (in == NULL || fgets(zVersion, sizeof(zVersion), in) == NULL) {
    printf("usage: host VERSION-FILE\n0 passed, 1 failed\n");
    return 1;
  }
  fclose(in);
  zVersion[strcspn(zVersion, "\r\n")] = 0;

  rc = sqlite3_auto_extension((void (*)(void))sqlite3_nosql_init);
  check(rc == SQLITE_OK, "sqlite3_auto_extension", sqlite3_errstr(rc));
  rc = sqlite3_open(":memory:", &db);
  check(rc == SQLITE_OK, "open", sqlite3_errstr(rc));
  check(strcmp(firstText(db, "SELECT nosql_version()"), zVersion) == 0, "nosql_version() equals VERSION",
        firstText(db, "SELECT nosql_version()"));

  /* Registering again on the same connection replaces the functions. */
  rc = sqlite3_nosql_init(db, &zErr, NULL);
  check(rc == SQLITE_OK, "second registration", zErr);
  sqlite3_free(zErr);
  zErr = NULL;

  /* A registration that fails names the feature: SQLite refuses to
  ** replace a function while a statement that uses it is running. */
  rc = sqlite3_prepare_v2(db, "SELECT nosql_version() FROM (SELECT 1 UNION ALL SELECT 2)", -1, &pBusy, 0);
  check(rc == SQLITE_OK && sqlite3_step(pBusy) == SQLITE_ROW, "start a statement", sqlite3_errmsg(db));
  rc = sqlite3_nosql_init(db, &zErr, NULL);
  check(rc != SQLITE_OK, "registration during an active statement fails", sqlite3_errstr(rc));
  check(zErr != NULL && strstr(zErr, "nosql: cannot register feature 'core'") != NULL,
        "the error names the feature", zErr);
  sqlite3_free(zErr);
  sqlite3_finalize(pBusy);
  sqlite3_close(db);
  sqlite3_reset_auto_extension();

  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail ? 1 : 0;
}
