/*
** kv.c: persistent 64-bit counters, the atomic counters of technique 5
** ("Enumerable Keys") that hand out sequential ids such as the message ids
** of userID_messageID keys. Redis INCR/INCRBY is the anchor.
**
**   kv_incr(name [, by])  -> INTEGER  add by (default 1) to counter name,
**                                     creating it at 0, and return the new
**                                     value
**   kv_get(name)          -> INTEGER  the counter's value, NULL if it has
**                                     never been incremented
**
** How it works. Counters live in an ordinary table of the main database,
** created on first use:
**
**   CREATE TABLE nosql_counters(name TEXT PRIMARY KEY, value INTEGER NOT NULL)
**     WITHOUT ROWID;
**
** kv_incr reads the row, adds in C with an overflow check, and updates it
** (or inserts it, the first time), on the caller's connection: inside an explicit transaction a
** ROLLBACK undoes the increment; in autocommit mode it commits with the
** statement that called it. A result outside the signed 64-bit range is an
** error, as in Redis ("increment or decrement would overflow"), and leaves
** the counter unchanged; so is an increment that is not an integer.
** Both functions are DIRECTONLY (never callable from triggers, views or
** schema) and not deterministic. The prepared statements are kept as the
** name argument's auxiliary data, so many calls in one statement prepare
** them once.
*/
#include "nosqlInt.h"

#include <string.h>

/**************************************************************************
** Pure C core.
*/

int kvAddChecked(sqlite3_int64 *pValue, sqlite3_int64 by) {
  sqlite3_int64 v = *pValue;
  if (by > 0 && v > INT64_MAX - by) return 0;
  if (by < 0 && v < INT64_MIN - by) return 0;
  *pValue = v + by;
  return 1;
}

/**************************************************************************
** SQL glue.
*/

/* The prepared statements of one calling statement (auxiliary data). */
typedef struct KvStmts KvStmts;
struct KvStmts {
  sqlite3_stmt *pGet; /* SELECT value FROM nosql_counters WHERE name = ?1 */
  sqlite3_stmt *pPut; /* UPDATE counter ?1 to the new value ?2 */
  sqlite3_stmt *pNew; /* INSERT counter ?1 with its first value ?2 */
};

static void kvStmtsFree(void *p) {
  KvStmts *pS = (KvStmts *)p;
  sqlite3_finalize(pS->pGet);
  sqlite3_finalize(pS->pPut);
  sqlite3_finalize(pS->pNew);
  sqlite3_free(pS);
}

/*
** Prepare the read statement; with bCreate, create the table if it cannot
** be prepared. The write statements are prepared when first needed
** (kvWriter), so that a statement that only updates prepares two, not three.
*/
static int kvPrepare(sqlite3 *db, KvStmts *pS, int bCreate) {
  int bRetry;
  int rc = SQLITE_OK;
  for (bRetry = 0; bRetry < 2; bRetry++) {
    if (bRetry) {
      rc = sqlite3_exec(db,
                        "CREATE TABLE IF NOT EXISTS main.nosql_counters("
                        "name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID",
                        0, 0, 0);
      if (rc != SQLITE_OK) return rc;
    }
    rc = sqlite3_prepare_v3(db, "SELECT value FROM main.nosql_counters WHERE name = ?1", -1,
                            SQLITE_PREPARE_PERSISTENT, &pS->pGet, 0);
    if (rc == SQLITE_OK || !bCreate) return rc;
  }
  return rc;
}

/* The UPDATE (bFound) or INSERT statement, prepared on first use; NULL on error (*pRc set). */
static sqlite3_stmt *kvWriter(sqlite3 *db, KvStmts *pS, int bFound, int *pRc) {
  sqlite3_stmt **pp = bFound ? &pS->pPut : &pS->pNew;
  if (*pp == NULL) {
    *pRc = sqlite3_prepare_v3(db,
                              bFound ? "UPDATE main.nosql_counters SET value = ?2 WHERE name = ?1"
                                     : "INSERT INTO main.nosql_counters(name, value) VALUES (?1, ?2)",
                              -1, SQLITE_PREPARE_PERSISTENT, pp, 0);
  }
  return *pp;
}

/*
** Bind the counter name as text without copying it: the argument outlives
** the step, and every call binds again before stepping.
*/
static void kvBindName(sqlite3_stmt *pStmt, sqlite3_value *pName) {
  const char *z = (const char *)sqlite3_value_text(pName);
  if (z == NULL) {
    sqlite3_bind_null(pStmt, 1);
    return;
  }
  sqlite3_bind_text(pStmt, 1, z, sqlite3_value_bytes(pName), SQLITE_STATIC);
}

/*
** Read counter zName into *piValue (*pbFound = 0 when absent). Returns an
** SQLite code; a stored value that is not an integer is an error reported
** on ctx (returns SQLITE_MISMATCH).
*/
static int kvRead(sqlite3_context *ctx, const char *zFunc, KvStmts *pS, sqlite3_value *pName,
                  sqlite3_int64 *piValue, int *pbFound) {
  int rc;
  *pbFound = 0;
  kvBindName(pS->pGet, pName);
  rc = sqlite3_step(pS->pGet);
  if (rc == SQLITE_ROW) {
    *pbFound = 1;
    if (sqlite3_column_type(pS->pGet, 0) != SQLITE_INTEGER) {
      char *zName = nosqlValueQuote(pName);
      nosqlResultError(ctx, "%s: counter %s holds %s, which is not an integer", zFunc, zName ? zName : "?",
                       sqlite3_column_text(pS->pGet, 0));
      sqlite3_free(zName);
      sqlite3_reset(pS->pGet);
      return SQLITE_MISMATCH;
    }
    *piValue = sqlite3_column_int64(pS->pGet, 0);
    rc = SQLITE_DONE;
  }
  if (rc == SQLITE_DONE) rc = sqlite3_reset(pS->pGet);
  return rc;
}

/* The statements kept on the calling statement, or new ones (bCreate: for kv_incr). */
static KvStmts *kvStmts(sqlite3_context *ctx, int bCreate, int *pRc) {
  KvStmts *pS = (KvStmts *)sqlite3_get_auxdata(ctx, 0);
  if (pS) return pS;
  pS = (KvStmts *)sqlite3_malloc64(sizeof(*pS));
  if (pS == NULL) {
    *pRc = SQLITE_NOMEM;
    return NULL;
  }
  memset(pS, 0, sizeof(*pS));
  *pRc = kvPrepare(sqlite3_context_db_handle(ctx), pS, bCreate);
  if (*pRc != SQLITE_OK) {
    kvStmtsFree(pS);
    return NULL;
  }
  return pS;
}

/* Report an SQLite error of the inner statements, naming the function. */
static void kvError(sqlite3_context *ctx, const char *zFunc, int rc) {
  if (rc == SQLITE_NOMEM) {
    sqlite3_result_error_nomem(ctx);
  } else {
    nosqlResultError(ctx, "%s: %s", zFunc, sqlite3_errmsg(sqlite3_context_db_handle(ctx)));
    sqlite3_result_error_code(ctx, rc);
  }
}

static void kvIncrFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  sqlite3_int64 by = 1, v = 0;
  int rc = SQLITE_OK, bFound = 0;
  KvStmts *pS;
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  if (argc > 1) {
    if (sqlite3_value_type(argv[1]) == SQLITE_NULL) return;
    if (sqlite3_value_type(argv[1]) != SQLITE_INTEGER) {
      char *zVal = nosqlValueQuote(argv[1]);
      nosqlResultError(ctx, "kv_incr: increment %s is not an integer", zVal ? zVal : "?");
      sqlite3_free(zVal);
      return;
    }
    by = sqlite3_value_int64(argv[1]);
  }
  pS = kvStmts(ctx, 1, &rc);
  if (pS == NULL) {
    kvError(ctx, "kv_incr", rc);
    return;
  }
  rc = kvRead(ctx, "kv_incr", pS, argv[0], &v, &bFound);
  if (rc == SQLITE_OK && !kvAddChecked(&v, by)) {
    char *zName = nosqlValueQuote(argv[0]);
    nosqlResultError(ctx,
                     "kv_incr: increment or decrement would overflow: counter %s is %lld, increment %lld",
                     zName ? zName : "?", v, by);
    sqlite3_free(zName);
    rc = SQLITE_MISMATCH;
  } else if (rc == SQLITE_OK) {
    sqlite3_stmt *pW = kvWriter(sqlite3_context_db_handle(ctx), pS, bFound, &rc);
    if (pW) {
      kvBindName(pW, argv[0]);
      sqlite3_bind_int64(pW, 2, v);
      rc = sqlite3_step(pW);
      if (rc == SQLITE_DONE) rc = sqlite3_reset(pW);
      if (rc != SQLITE_OK) sqlite3_reset(pW);
    }
    if (rc != SQLITE_OK) {
      kvError(ctx, "kv_incr", rc);
    } else {
      sqlite3_result_int64(ctx, v);
    }
  } else if (rc != SQLITE_MISMATCH) {
    kvError(ctx, "kv_incr", rc);
  }
  if (sqlite3_get_auxdata(ctx, 0) != (void *)pS) sqlite3_set_auxdata(ctx, 0, pS, kvStmtsFree);
}

static void kvGetFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  sqlite3_int64 v = 0;
  int rc = SQLITE_OK, bFound = 0;
  KvStmts *pS;
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  pS = kvStmts(ctx, 0, &rc);
  if (pS == NULL) {
    /* No table yet: no counter has been incremented. */
    if (rc != SQLITE_NOMEM &&
        sqlite3_strglob("no such table*", sqlite3_errmsg(sqlite3_context_db_handle(ctx))) == 0)
      return;
    kvError(ctx, "kv_get", rc);
    return;
  }
  rc = kvRead(ctx, "kv_get", pS, argv[0], &v, &bFound);
  if (rc == SQLITE_OK && bFound) sqlite3_result_int64(ctx, v);
  if (rc != SQLITE_OK && rc != SQLITE_MISMATCH) kvError(ctx, "kv_get", rc);
  if (sqlite3_get_auxdata(ctx, 0) != (void *)pS) sqlite3_set_auxdata(ctx, 0, pS, kvStmtsFree);
}

int kvRegister(sqlite3 *db) {
  int rc = sqlite3_create_function(db, "kv_incr", 1, NOSQL_EFFECT, 0, kvIncrFunc, 0, 0);
  if (rc == SQLITE_OK) rc = sqlite3_create_function(db, "kv_incr", 2, NOSQL_EFFECT, 0, kvIncrFunc, 0, 0);
  if (rc == SQLITE_OK) rc = sqlite3_create_function(db, "kv_get", 1, NOSQL_EFFECT, 0, kvGetFunc, 0, 0);
  return rc;
}
