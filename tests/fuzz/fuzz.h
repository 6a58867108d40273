/*
** fuzz.h: helpers shared by the fuzz targets in tests/fuzz/fuzz_*.c.
**
** Each target is one file defining LLVMFuzzerTestOneInput(), the libFuzzer
** entry point, and reaches the code it attacks through SQL on an in-memory
** database, the path untrusted text and blobs take in real use (so the
** targets survive refactoring of ext/). Three builds link each target:
**
**   build/fuzz/T             clang -fsanitize=fuzzer,address,undefined: the
**                            fuzzer itself (make fuzz runs it)
**   build/fuzz-replay/T      gcc, plain: replay.c's main() feeds it files
**   build/asan/fuzz-replay/T gcc, ASan+UBSan: the same under sanitizers
**
** make test runs the two replay builds over tests/fuzz/corpus/<target>/,
** which holds the seeds and every input that once crashed (regressions).
**
** A target never fails by itself: an error from SQL is an acceptable answer
** to malformed input. Only a crash, a sanitizer report or a leak is a bug.
*/
#ifndef NOSQL_FUZZ_H
#define NOSQL_FUZZ_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nosql.h"

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData);

/* VM steps one statement may take before the progress handler stops it. */
#define FUZZ_MAX_STEPS 2000000

static int fuzzSteps; /* Progress-handler calls of the current statement */

/* FUZZ_DEBUG=1 in the environment: print every SQL error (to check that a target reaches its code). */
static inline int fuzzDebug(void) {
  static int bDebug = -1;
  if (bDebug < 0) bDebug = getenv("FUZZ_DEBUG") != NULL;
  return bDebug;
}

static inline int fuzzProgress(void *pArg) {
  int *pn = (int *)pArg;
  return ++*pn > FUZZ_MAX_STEPS / 1000;
}

/*
** A new in-memory database with the extension, results capped at 1 MB and
** statements capped in VM steps, so that no input makes a target slow.
*/
static inline sqlite3 *fuzzOpen(void) {
  static int bInit = 0;
  sqlite3 *db = NULL;
  if (!bInit) {
    sqlite3_auto_extension((void (*)(void))sqlite3_nosql_init);
    bInit = 1;
  }
  if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
    sqlite3_close(db);
    return NULL;
  }
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1000000);
  sqlite3_progress_handler(db, 1000, fuzzProgress, &fuzzSteps);
  return db;
}

/*
** Prepare zSql (the first statement only), bind aBind[0..nBind) as blobs
** (bText: as text) to ?1, ?2..., and step it to the end, reading every
** column of every row as text (which exercises the result values). Errors
** are ignored; returns the result code.
*/
static inline int fuzzRun(sqlite3 *db, const char *zSql, int bText, int nBind, const void *const *aBind,
                          const int *anBind) {
  sqlite3_stmt *pStmt = NULL;
  int rc, i;
  fuzzSteps = 0;
  rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  for (i = 0; rc == SQLITE_OK && i < nBind; i++) {
    if (aBind[i] == NULL) continue;
    if (bText) {
      rc = sqlite3_bind_text(pStmt, i + 1, (const char *)aBind[i], anBind[i], SQLITE_TRANSIENT);
    } else {
      rc = sqlite3_bind_blob(pStmt, i + 1, aBind[i], anBind[i], SQLITE_TRANSIENT);
    }
  }
  while (rc == SQLITE_OK && (rc = sqlite3_step(pStmt)) == SQLITE_ROW) {
    int nCol = sqlite3_column_count(pStmt);
    for (i = 0; i < nCol; i++) (void)sqlite3_column_text(pStmt, i);
    rc = SQLITE_OK;
  }
  if (rc != SQLITE_DONE && fuzzDebug()) fprintf(stderr, "fuzz: %s\n  in: %s\n", sqlite3_errmsg(db), zSql);
  sqlite3_finalize(pStmt);
  return rc;
}

/* fuzzRun with one blob (bText 0) or text (bText 1) bound to ?1. */
static inline int fuzzRun1(sqlite3 *db, const char *zSql, int bText, const void *a, int n) {
  return fuzzRun(db, zSql, bText, 1, &a, &n);
}

/* Run SQL without parameters (set-up); errors ignored. */
static inline int fuzzExec(sqlite3 *db, const char *zSql) {
  char *zErr = NULL;
  int rc;
  fuzzSteps = 0;
  rc = sqlite3_exec(db, zSql, 0, 0, &zErr);
  if (rc != SQLITE_OK && fuzzDebug()) fprintf(stderr, "fuzz: %s\n  in: %.300s\n", zErr, zSql);
  sqlite3_free(zErr);
  return rc;
}

/* Split a[0..n) at the first byte equal to c: returns the length of the first part (n if none). */
static inline int fuzzSplit(const uint8_t *a, size_t n, uint8_t c) {
  const uint8_t *p = (const uint8_t *)memchr(a, c, n);
  return p ? (int)(p - a) : (int)n;
}

#endif /* NOSQL_FUZZ_H */
