/*
** prop.h: what the property tests' programs share besides rows.h: the
** seeded random numbers (one 64-bit LCG, the same sequence for a seed in
** every program), a statement run with its error reported under the seed
** and step that reproduce it, a connection with the extension loaded, and
** a test's start (that connection and its setup statements).
** Included by plan.c, history.c, hidden.c, graph_index.c and triggers.c
** (one .c file each); uses only sqlite3.h and the C library.
*/
#ifndef NOSQL_PROPERTY_PROP_H
#define NOSQL_PROPERTY_PROP_H

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long long propState; /* The generator's state: the seed, then each step's */
static unsigned long long propSeed;  /* The seed of the run, for messages */
static int propStep;                 /* The step under way, for messages */

/* A random number in [0, n): Knuth's MMIX LCG, its high bits. */
static inline unsigned propRand(unsigned n) {
  propState = propState * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)((propState >> 33) % n);
}

/*
** Run zSql; an error is reported on stderr with the seed and step unless
** bMayFail. Returns the result code. NOSQL_PROPERTY_TRACE=1 in the
** environment prints every statement with its step and code.
*/
static inline int propExec(sqlite3 *db, const char *zSql, int bMayFail) {
  char *zErr = NULL;
  int rc = sqlite3_exec(db, zSql, 0, 0, &zErr);
  if (getenv("NOSQL_PROPERTY_TRACE")) fprintf(stderr, "step %d: %s -> %d\n", propStep, zSql, rc);
  if (rc != SQLITE_OK && !bMayFail) {
    fprintf(stderr, "seed %llu step %d: error: %s\n  in: %s\n", propSeed, propStep, zErr ? zErr : "?", zSql);
  }
  sqlite3_free(zErr);
  return rc;
}

/*
** Open zFile with extension zExt loaded, or NULL (the reason on stderr).
** bScratch: a scratch file, no fsync per statement and the journal in
** memory (a run is I/O bound otherwise).
*/
static inline sqlite3 *propOpen(const char *zFile, const char *zExt, int bScratch) {
  sqlite3 *db = NULL;
  char *zErr = NULL;
  if (sqlite3_open(zFile, &db) != SQLITE_OK) {
    sqlite3_close(db);
    return NULL;
  }
  sqlite3_enable_load_extension(db, 1);
  if (bScratch) sqlite3_exec(db, "PRAGMA synchronous = OFF; PRAGMA journal_mode = MEMORY", 0, 0, 0);
  if (sqlite3_load_extension(db, zExt, 0, &zErr) != SQLITE_OK) {
    fprintf(stderr, "cannot load %s: %s\n", zExt, zErr ? zErr : "?");
    sqlite3_free(zErr);
    sqlite3_close(db);
    return NULL;
  }
  return db;
}

/*
** A test's start: zFile opened with extension zExt loaded (propOpen), then
** each statement of azSetup (NULL-terminated) run. NULL after printing
** the failure and "0 passed, 1 failed" (the last line tests/run.sh reads).
*/
static inline sqlite3 *propStart(const char *zFile, const char *zExt, int bScratch,
                                 const char *const *azSetup) {
  sqlite3 *db = propOpen(zFile, zExt, bScratch);
  int i;
  if (db == NULL) {
    printf("FAIL load: %s (the reason is above)\n0 passed, 1 failed\n", zExt);
    return NULL;
  }
  for (i = 0; azSetup && azSetup[i]; i++) {
    char *zErr = NULL;
    if (sqlite3_exec(db, azSetup[i], 0, 0, &zErr) != SQLITE_OK) {
      printf("FAIL setup: %s\n  in: %s\n0 passed, 1 failed\n", zErr, azSetup[i]);
      sqlite3_free(zErr);
      sqlite3_close(db);
      return NULL;
    }
  }
  return db;
}

#endif /* NOSQL_PROPERTY_PROP_H */
