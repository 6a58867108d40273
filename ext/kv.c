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
**   kv_counters           eponymous read-only virtual table: one row
**                         (name, value) per counter, in name order
**
** How it works. Counters live in an ordinary table of the main database,
** created on first use:
**
**   CREATE TABLE nosql_counters(name TEXT PRIMARY KEY, value INTEGER NOT NULL)
**     WITHOUT ROWID;
**
** kv_incr is one statement, an upsert that adds in SQL and returns the new
** value:
**
**   INSERT INTO nosql_counters(name, value) VALUES (?1, ?2)
**     ON CONFLICT(name) DO UPDATE SET value = value + ?2
**     WHERE typeof(value) = 'integer' AND <no overflow> RETURNING value
**
** so the read and the write are one step of one write transaction: two
** processes incrementing one counter never both read the same value
** (reading with one statement and writing with another lost updates
** whenever the outer statement held no transaction, e.g. a bare
** "SELECT kv_incr('c')": the two inner statements then ran as two
** transactions). It runs on the caller's connection: inside an explicit
** transaction a ROLLBACK undoes the increment; in autocommit mode it commits
** with the statement that called it. A result outside the signed 64-bit
** range is an error, as in Redis ("increment or decrement would
** overflow"), and leaves the counter unchanged; so is an increment that is
** not an integer. When the upsert returns no row (overflow, or a stored
** value that is not an integer) the row is read again to say which.
** Both functions are DIRECTONLY (never callable from triggers, views or
** schema) and not deterministic.
**
** Statement cache. Preparing the inner statements costs several times
** what running them costs, so they are prepared once per connection and
** kept. Prepared statements left open make sqlite3_close() fail with
** SQLITE_BUSY, except those owned by a virtual table: sqlite3_close()
** disconnects every virtual table (xDisconnect) before it looks for
** unfinalized statements, which is how FTS5 and R*Tree keep theirs. So the
** cache belongs to the kv_counters object, the eponymous virtual table of
** the connection: xConnect links it to the connection state the functions
** receive as user data (KvConn), xDisconnect finalizes the statements and
** unlinks it. kv_incr and kv_get bring kv_counters into being on first use
** by preparing (and finalizing) a statement that names it. Should that not
** connect it (a table of the same name in main shadows it, say), the
** statements are kept as auxiliary data of the calling statement instead,
** prepared once per execution, as before the cache. A schema change
** re-prepares cached statements (sqlite3_prepare_v2 semantics); a cached
** read that fails anyway (the counters table was dropped) is prepared
** afresh, which recreates the table for kv_incr.
**
**   CREATE TABLE kv_counters(name TEXT, value INTEGER);  -- read-only
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

typedef struct KvStmts KvStmts;
typedef struct KvConn KvConn;
typedef struct kvc_vtab kvc_vtab;
typedef struct kvc_cursor kvc_cursor;

/* The prepared statements of kv_incr and kv_get; any may be NULL (not yet prepared). */
struct KvStmts {
  sqlite3_stmt *pGet;  /* SELECT value FROM nosql_counters WHERE name = ?1 */
  sqlite3_stmt *pIncr; /* The upsert adding ?2 to counter ?1, RETURNING the new value */
};

/*
** Per-connection state, the user data of kv_incr, kv_get and the
** kv_counters module. Each registration holds a reference, released by its
** destructor, so the state outlives whichever is dropped first.
*/
struct KvConn {
  int nRef;        /* Registrations (and kvRegister while it runs) that hold this state */
  kvc_vtab *pVtab; /* The connected kv_counters, owner of the cache, or NULL */
};

/* The kv_counters virtual table: the statement cache of its connection. */
struct kvc_vtab {
  sqlite3_vtab base; /* Base class - must be first */
  sqlite3 *db;       /* The connection */
  KvConn *pConn;     /* Connection state that points back here */
  KvStmts stmts;     /* kv_incr's and kv_get's cached statements */
};

/*
** A scan of kv_counters. Each row is found by its own seek past the
** previous name, so a counter that kv_incr updates (or creates) during the
** scan moves no cursor: every counter is visited once, in name order, and
** one created during the scan is visited if its name comes later.
*/
struct kvc_cursor {
  sqlite3_vtab_cursor base; /* Base class - must be first */
  sqlite3_stmt *pStmt;      /* The first row, or the row after ?1, or the row named ?1 */
  int bOne;                 /* True: a lookup by name, one row at most */
  sqlite3_value *pName;     /* Name of the current row (a copy), NULL at the end */
  sqlite3_value *pValue;    /* Value of the current row (a copy) */
  sqlite3_int64 iRow;       /* Row counter, the rowid */
};

static void kvStmtsClear(KvStmts *pS) {
  sqlite3_finalize(pS->pGet);
  sqlite3_finalize(pS->pIncr);
  memset(pS, 0, sizeof(*pS));
}

/* Destructor of statements kept as auxiliary data. */
static void kvStmtsFree(void *p) {
  kvStmtsClear((KvStmts *)p);
  sqlite3_free(p);
}

static void kvConnUnref(void *p) {
  KvConn *pConn = (KvConn *)p;
  if (--pConn->nRef == 0) sqlite3_free(pConn);
}

/* Create the counters table (kv_incr's first call in a database). */
static int kvCreate(sqlite3 *db) {
  return sqlite3_exec(db,
                      "CREATE TABLE IF NOT EXISTS main.nosql_counters("
                      "name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID",
                      0, 0, 0);
}

/* Prepare the read statement (kv_get, and kv_incr's diagnosis of a refused increment). */
static int kvPrepare(sqlite3 *db, KvStmts *pS) {
  return sqlite3_prepare_v3(db, "SELECT value FROM main.nosql_counters WHERE name = ?1", -1,
                            SQLITE_PREPARE_PERSISTENT, &pS->pGet, 0);
}

/*
** Prepare the upsert of kv_incr. The WHERE of DO UPDATE refuses a stored
** non-integer and a sum outside the int64 range (value + ?2 would turn
** REAL): then the statement returns no row and changes nothing.
*/
static int kvIncrPrepare(sqlite3 *db, KvStmts *pS) {
  return sqlite3_prepare_v3(db,
                            "INSERT INTO main.nosql_counters(name, value) VALUES (?1, ?2)"
                            " ON CONFLICT(name) DO UPDATE SET value = value + ?2"
                            " WHERE typeof(value) = 'integer' AND CASE WHEN ?2 >= 0"
                            " THEN value <= 9223372036854775807 - ?2"
                            " ELSE value >= (-9223372036854775807 - 1) - ?2 END"
                            " RETURNING value",
                            -1, SQLITE_PREPARE_PERSISTENT, &pS->pIncr, 0);
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

/*
** Read counter pName through pS, preparing the read statement if pS has
** none. A kept statement that fails (the table was dropped, say) is
** discarded and the read is tried once more on a fresh one. After any other failure pS holds no
** statements, so the next call starts afresh.
*/
static int kvLookup(sqlite3_context *ctx, const char *zFunc, KvStmts *pS, sqlite3_value *pName,
                    sqlite3_int64 *piValue, int *pbFound) {
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  int bFresh = pS->pGet == NULL;
  int rc = bFresh ? kvPrepare(db, pS) : SQLITE_OK;
  if (rc == SQLITE_OK) rc = kvRead(ctx, zFunc, pS, pName, piValue, pbFound);
  if (rc != SQLITE_OK && rc != SQLITE_MISMATCH && !bFresh) {
    kvStmtsClear(pS);
    rc = kvPrepare(db, pS);
    if (rc == SQLITE_OK) rc = kvRead(ctx, zFunc, pS, pName, piValue, pbFound);
  }
  if (rc != SQLITE_OK && rc != SQLITE_MISMATCH) kvStmtsClear(pS);
  return rc;
}

/*
** The statements for this call: the connection's cache (kv_counters'),
** connecting kv_counters first if need be, or else the calling statement's
** auxiliary data, allocated now if absent (then *pbAux is set and the
** caller hands them to sqlite3_set_auxdata). NULL on OOM.
*/
static KvStmts *kvStmts(sqlite3_context *ctx, int *pbAux) {
  KvConn *pConn = (KvConn *)sqlite3_user_data(ctx);
  KvStmts *pS;
  *pbAux = 0;
  if (pConn->pVtab == NULL) {
    /* Preparing a statement that names kv_counters connects it (xConnect sets pConn->pVtab). */
    sqlite3_stmt *pStmt = NULL;
    sqlite3_prepare_v2(sqlite3_context_db_handle(ctx), "SELECT 1 FROM main.kv_counters", -1, &pStmt, 0);
    sqlite3_finalize(pStmt);
  }
  if (pConn->pVtab) return &pConn->pVtab->stmts;
  pS = (KvStmts *)sqlite3_get_auxdata(ctx, 0);
  if (pS) return pS;
  pS = (KvStmts *)sqlite3_malloc64(sizeof(*pS));
  if (pS) {
    memset(pS, 0, sizeof(*pS));
    *pbAux = 1;
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

/*
** Add by to counter pName with the upsert, preparing it if need be (and
** creating the table if it is missing). *pbRow is set when the upsert
** returned the new value (*piValue); it returns none when the stored value
** is not an integer or the sum would overflow. A kept statement that fails
** (the table was dropped, say) is discarded and the call tried once more.
*/
static int kvIncrRun(sqlite3 *db, KvStmts *pS, sqlite3_value *pName, sqlite3_int64 by, sqlite3_int64 *piValue,
                     int *pbRow) {
  int iTry, rc = SQLITE_OK;
  *pbRow = 0;
  for (iTry = 0; iTry < 2; iTry++) {
    int bFresh = pS->pIncr == NULL;
    if (bFresh) {
      rc = kvIncrPrepare(db, pS);
      if (rc != SQLITE_OK && rc != SQLITE_NOMEM) {
        rc = kvCreate(db);
        if (rc == SQLITE_OK) rc = kvIncrPrepare(db, pS);
      }
    }
    if (rc == SQLITE_OK) {
      kvBindName(pS->pIncr, pName);
      sqlite3_bind_int64(pS->pIncr, 2, by);
      rc = sqlite3_step(pS->pIncr);
      if (rc == SQLITE_ROW) {
        *pbRow = 1;
        *piValue = sqlite3_column_int64(pS->pIncr, 0);
      }
      rc = sqlite3_reset(pS->pIncr);
    }
    if (rc == SQLITE_OK || bFresh) break;
    kvStmtsClear(pS);
  }
  if (rc != SQLITE_OK) kvStmtsClear(pS);
  return rc;
}

static void kvIncrFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  sqlite3_int64 by = 1, v = 0;
  int rc = SQLITE_OK, bRow = 0, bFound = 0, bAux = 0;
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
  pS = kvStmts(ctx, &bAux);
  if (pS == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  rc = kvIncrRun(sqlite3_context_db_handle(ctx), pS, argv[0], by, &v, &bRow);
  if (rc != SQLITE_OK) {
    kvError(ctx, "kv_incr", rc);
  } else if (bRow) {
    sqlite3_result_int64(ctx, v);
  } else {
    /* Nothing changed: read the row to say why (in the same transaction when there is one). */
    rc = kvLookup(ctx, "kv_incr", pS, argv[0], &v, &bFound);
    if (rc == SQLITE_OK) {
      char *zName = nosqlValueQuote(argv[0]);
      nosqlResultError(ctx,
                       "kv_incr: increment or decrement would overflow: counter %s is %lld, increment %lld",
                       zName ? zName : "?", v, by);
      sqlite3_free(zName);
    } else if (rc != SQLITE_MISMATCH) {
      kvError(ctx, "kv_incr", rc);
    }
  }
  if (bAux) sqlite3_set_auxdata(ctx, 0, pS, kvStmtsFree);
}

static void kvGetFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  sqlite3_int64 v = 0;
  int rc = SQLITE_OK, bFound = 0, bAux = 0;
  KvStmts *pS;
  (void)argc;
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  pS = kvStmts(ctx, &bAux);
  if (pS == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  rc = kvLookup(ctx, "kv_get", pS, argv[0], &v, &bFound);
  if (rc == SQLITE_OK && bFound) sqlite3_result_int64(ctx, v);
  if (rc != SQLITE_OK && rc != SQLITE_MISMATCH) {
    /* No table yet: no counter has been incremented. */
    if (rc == SQLITE_NOMEM ||
        sqlite3_strglob("no such table*", sqlite3_errmsg(sqlite3_context_db_handle(ctx))) != 0)
      kvError(ctx, "kv_get", rc);
  }
  if (bAux) sqlite3_set_auxdata(ctx, 0, pS, kvStmtsFree);
}

/**************************************************************************
** kv_counters: the counters as rows, and the owner of the statement cache.
*/

static int kvcConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                      char **pzErr) {
  KvConn *pConn = (KvConn *)pAux;
  kvc_vtab *p;
  int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(name TEXT, value INTEGER)");
  (void)argc;
  (void)argv;
  (void)pzErr;
  if (rc != SQLITE_OK) return rc;
  p = (kvc_vtab *)sqlite3_malloc64(sizeof(*p));
  if (p == NULL) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->db = db;
  p->pConn = pConn;
  if (pConn->pVtab == NULL) pConn->pVtab = p;
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
  *ppVtab = &p->base;
  return SQLITE_OK;
}

/* Finalizes the cached statements: sqlite3_close() calls this before it checks for open statements. */
static int kvcDisconnect(sqlite3_vtab *pVtab) {
  kvc_vtab *p = (kvc_vtab *)pVtab;
  if (p->pConn->pVtab == p) p->pConn->pVtab = NULL;
  kvStmtsClear(&p->stmts);
  sqlite3_free(p);
  return SQLITE_OK;
}

/*
** Plan: idxNum 1 when an equality on name (BINARY collation) is passed
** as argv[0], else 0 (every counter). Rows come in name order, so ORDER BY
** name (ascending) is consumed.
*/
static int kvcBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo) {
  int i;
  (void)pVtab;
  pInfo->idxNum = 0;
  pInfo->estimatedCost = 1000.0;
  pInfo->estimatedRows = 1000;
  for (i = 0; i < pInfo->nConstraint; i++) {
    const struct sqlite3_index_constraint *pC = &pInfo->aConstraint[i];
    const char *zColl;
    if (!pC->usable || pC->iColumn != 0 || pC->op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    zColl = sqlite3_vtab_collation(pInfo, i);
    if (zColl && sqlite3_stricmp(zColl, "BINARY") != 0) continue;
    pInfo->aConstraintUsage[i].argvIndex = 1;
    pInfo->aConstraintUsage[i].omit = 1; /* The inner WHERE compares the same way (TEXT affinity) */
    pInfo->idxNum = 1;
    pInfo->estimatedCost = 10.0;
    pInfo->estimatedRows = 1;
    pInfo->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
    break;
  }
  if (pInfo->nOrderBy == 1 && pInfo->aOrderBy[0].iColumn == 0 && !pInfo->aOrderBy[0].desc) {
    pInfo->orderByConsumed = 1;
  }
  return SQLITE_OK;
}

static int kvcOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor) {
  (void)pVtab;
  return nosqlCursorNew(sizeof(kvc_cursor), ppCursor) ? SQLITE_OK : SQLITE_NOMEM;
}

/* Forget the current row and the inner statement. */
static void kvcReset(kvc_cursor *pCur) {
  sqlite3_finalize(pCur->pStmt);
  sqlite3_value_free(pCur->pName);
  sqlite3_value_free(pCur->pValue);
  pCur->pStmt = NULL;
  pCur->pName = NULL;
  pCur->pValue = NULL;
}

static int kvcClose(sqlite3_vtab_cursor *pCursor) {
  kvcReset((kvc_cursor *)pCursor);
  sqlite3_free(pCursor);
  return SQLITE_OK;
}

/* Step pCur->pStmt and keep copies of its row (none: the end). */
static int kvcStep(kvc_cursor *pCur) {
  kvc_vtab *p = (kvc_vtab *)pCur->base.pVtab;
  int rc = sqlite3_step(pCur->pStmt);
  sqlite3_value_free(pCur->pName);
  sqlite3_value_free(pCur->pValue);
  pCur->pName = NULL;
  pCur->pValue = NULL;
  if (rc == SQLITE_ROW) {
    pCur->pName = sqlite3_value_dup(sqlite3_column_value(pCur->pStmt, 0));
    pCur->pValue = sqlite3_value_dup(sqlite3_column_value(pCur->pStmt, 1));
    rc = pCur->pName && pCur->pValue ? SQLITE_OK : SQLITE_NOMEM;
    pCur->iRow++;
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  sqlite3_reset(pCur->pStmt);
  if (rc != SQLITE_OK) nosqlVtabError(&p->base, "kv_counters: %s", sqlite3_errmsg(p->db));
  return rc;
}

static int kvcNext(sqlite3_vtab_cursor *pCursor) {
  kvc_cursor *pCur = (kvc_cursor *)pCursor;
  kvc_vtab *p = (kvc_vtab *)pCursor->pVtab;
  int rc;
  if (pCur->pName == NULL) return SQLITE_OK;
  if (pCur->bOne) {
    sqlite3_value_free(pCur->pName);
    pCur->pName = NULL;
    return SQLITE_OK;
  }
  if (pCur->iRow == 1) {
    /* From the second row on: the row after the previous name. */
    sqlite3_finalize(pCur->pStmt);
    pCur->pStmt = NULL;
    rc = sqlite3_prepare_v2(
        p->db, "SELECT name, value FROM main.nosql_counters WHERE name > ?1 ORDER BY name LIMIT 1", -1,
        &pCur->pStmt, 0);
    if (rc != SQLITE_OK) {
      nosqlVtabError(pCursor->pVtab, "kv_counters: %s", sqlite3_errmsg(p->db));
      return rc;
    }
  }
  rc = sqlite3_bind_value(pCur->pStmt, 1, pCur->pName);
  if (rc != SQLITE_OK) return rc;
  return kvcStep(pCur);
}

/* The scan statements are prepared per query, not cached: kv_counters is for looking, kv_get for lookups in a
 * loop. */
static int kvcFilter(sqlite3_vtab_cursor *pCursor, int idxNum, const char *idxStr, int argc,
                     sqlite3_value **argv) {
  kvc_cursor *pCur = (kvc_cursor *)pCursor;
  kvc_vtab *p = (kvc_vtab *)pCursor->pVtab;
  int rc;
  (void)idxStr;
  (void)argc;
  kvcReset(pCur);
  pCur->iRow = 0;
  pCur->bOne = idxNum == 1;
  rc = sqlite3_prepare_v2(p->db,
                          idxNum ? "SELECT name, value FROM main.nosql_counters WHERE name = ?1"
                                 : "SELECT name, value FROM main.nosql_counters ORDER BY name LIMIT 1",
                          -1, &pCur->pStmt, 0);
  if (rc != SQLITE_OK) {
    /* No table yet: no counters. */
    if (rc != SQLITE_NOMEM && sqlite3_strglob("no such table*", sqlite3_errmsg(p->db)) == 0) return SQLITE_OK;
    nosqlVtabError(pCursor->pVtab, "kv_counters: %s", sqlite3_errmsg(p->db));
    return rc;
  }
  if (idxNum) {
    rc = sqlite3_bind_value(pCur->pStmt, 1, argv[0]);
    if (rc != SQLITE_OK) return rc;
  }
  return kvcStep(pCur);
}

static int kvcEof(sqlite3_vtab_cursor *pCursor) { return ((kvc_cursor *)pCursor)->pName == NULL; }

static int kvcColumn(sqlite3_vtab_cursor *pCursor, sqlite3_context *ctx, int iCol) {
  kvc_cursor *pCur = (kvc_cursor *)pCursor;
  sqlite3_result_value(ctx, iCol == 0 ? pCur->pName : pCur->pValue);
  return SQLITE_OK;
}

static int kvcRowid(sqlite3_vtab_cursor *pCursor, sqlite_int64 *pRowid) {
  *pRowid = ((kvc_cursor *)pCursor)->iRow;
  return SQLITE_OK;
}

static sqlite3_module kvcModule = {
    0,             /* iVersion */
    0,             /* xCreate: eponymous only */
    kvcConnect,    /* xConnect */
    kvcBestIndex,  /* xBestIndex */
    kvcDisconnect, /* xDisconnect */
    0,             /* xDestroy */
    kvcOpen,       /* xOpen */
    kvcClose,      /* xClose */
    kvcFilter,     /* xFilter */
    kvcNext,       /* xNext */
    kvcEof,        /* xEof */
    kvcColumn,     /* xColumn */
    kvcRowid,      /* xRowid */
    0,             /* xUpdate: read-only; kv_incr writes */
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

int kvRegister(sqlite3 *db) {
  static const struct {
    const char *zName;                                       /* SQL name */
    int nArg;                                                /* Number of arguments */
    void (*xFunc)(sqlite3_context *, int, sqlite3_value **); /* Implementation */
  } aFunc[] = {{"kv_incr", 1, kvIncrFunc}, {"kv_incr", 2, kvIncrFunc}, {"kv_get", 1, kvGetFunc}};
  KvConn *pConn = (KvConn *)sqlite3_malloc64(sizeof(*pConn));
  int rc = SQLITE_OK;
  size_t i;
  if (pConn == NULL) return SQLITE_NOMEM;
  memset(pConn, 0, sizeof(*pConn));
  /*
  ** One reference for this function, one per registration: its destructor
  ** drops it when the registration goes, or at once if registering fails.
  */
  pConn->nRef = 1;
  for (i = 0; i < sizeof(aFunc) / sizeof(aFunc[0]) && rc == SQLITE_OK; i++) {
    pConn->nRef++;
    rc = sqlite3_create_function_v2(db, aFunc[i].zName, aFunc[i].nArg, NOSQL_EFFECT, pConn, aFunc[i].xFunc, 0,
                                    0, kvConnUnref);
  }
  if (rc == SQLITE_OK) {
    pConn->nRef++;
    rc = sqlite3_create_module_v2(db, "kv_counters", &kvcModule, pConn, kvConnUnref);
  }
  kvConnUnref(pConn);
  return rc;
}
