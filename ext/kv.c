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
** schema) and not deterministic. A nosql_counters created beforehand must
** keep name unique under its own collation ("One key, one row" below):
** both check it when their statements are prepared or re-prepared.
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
  int nGetStamp;       /* Re-prepares of pGet when kvCountersCheck() last passed it, or -1 */
  int nIncrStamp;      /* The same for pIncr */
};

/*
** Per-connection state, the user data of kv_incr, kv_get and the
** kv_counters module. Each registration holds a reference, released by its
** destructor, so the state outlives whichever is dropped first.
*/
struct KvConn {
  KvOwner base;    /* Reference count and the keyed statement cache (kv_cas, kv_mget, ...) */
  kvc_vtab *pVtab; /* The connected kv_counters, owner of the caches, or NULL */
};

/* The kv_counters virtual table: the statement cache of its connection. */
struct kvc_vtab {
  sqlite3_vtab base; /* Base class - must be first */
  sqlite3 *db;       /* The connection */
  KvConn *pConn;     /* Connection state that points back here */
  KvStmts stmts;     /* kv_incr's and kv_get's cached statements */
  KvCache cache;     /* Statements on user tables, keyed by SQL text */
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

static void kvConnUnref(void *p) { kvOwnerUnref(p); }

static int kvCountersCheck(sqlite3 *db, const char *zFunc, sqlite3_stmt *pStmt, int *pnStamp, char **pzErr);
static char *kvCountersNoKeyText(const char *zFunc);

/*
** kvCountersCheck() on ctx's connection: SQLITE_OK, or the error reported
** on ctx (then SQLITE_MISMATCH, as kvRead's) or returned (OOM, ...).
*/
static int kvCountersCheckCtx(sqlite3_context *ctx, const char *zFunc, sqlite3_stmt *pStmt, int *pnStamp) {
  char *zErr = NULL;
  int rc = kvCountersCheck(sqlite3_context_db_handle(ctx), zFunc, pStmt, pnStamp, &zErr);
  if (rc != SQLITE_OK && zErr) {
    sqlite3_result_error(ctx, zErr, -1);
    rc = SQLITE_MISMATCH;
  }
  sqlite3_free(zErr);
  return rc;
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
  pS->nGetStamp = -1;
  return sqlite3_prepare_v3(db, "SELECT value FROM main.nosql_counters WHERE name = ?1", -1,
                            SQLITE_PREPARE_PERSISTENT, &pS->pGet, 0);
}

/*
** Prepare the upsert of kv_incr. The WHERE of DO UPDATE refuses a stored
** non-integer and a sum outside the int64 range (value + ?2 would turn
** REAL): then the statement returns no row and changes nothing.
*/
static int kvIncrPrepare(sqlite3 *db, KvStmts *pS) {
  pS->nIncrStamp = -1;
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
** SQLite code; a stored value that is not an integer, or a counters table
** whose name is not unique under its collation (kvCountersCheck(), before
** the read and again when stepping re-prepared it), is an error reported
** on ctx (returns SQLITE_MISMATCH).
*/
static int kvRead(sqlite3_context *ctx, const char *zFunc, KvStmts *pS, sqlite3_value *pName,
                  sqlite3_int64 *piValue, int *pbFound) {
  int rc;
  *pbFound = 0;
  rc = kvCountersCheckCtx(ctx, zFunc, pS->pGet, &pS->nGetStamp);
  if (rc != SQLITE_OK) return rc;
  kvBindName(pS->pGet, pName);
  rc = sqlite3_step(pS->pGet);
  if (rc == SQLITE_ROW) {
    int rcCheck = kvCountersCheckCtx(ctx, zFunc, pS->pGet, &pS->nGetStamp);
    if (rcCheck != SQLITE_OK) {
      sqlite3_reset(pS->pGet);
      return rcCheck;
    }
    *pbFound = 1;
    if (sqlite3_column_type(pS->pGet, 0) != SQLITE_INTEGER) {
      /* Quoted: a blob's raw bytes are no text for a message. */
      char *zName = nosqlValueQuote(pName);
      char *zValue = nosqlValueQuote(sqlite3_column_value(pS->pGet, 0));
      nosqlResultError(ctx, "%s: counter %s holds %s, which is not an integer", zFunc, zName ? zName : "?",
                       zValue ? zValue : "?");
      sqlite3_free(zName);
      sqlite3_free(zValue);
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
static int kvIncrRun(sqlite3_context *ctx, KvStmts *pS, sqlite3_value *pName, sqlite3_int64 by,
                     sqlite3_int64 *piValue, int *pbRow) {
  sqlite3 *db = sqlite3_context_db_handle(ctx);
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
    if (rc == SQLITE_OK) rc = kvCountersCheckCtx(ctx, "kv_incr", pS->pIncr, &pS->nIncrStamp);
    if (rc == SQLITE_OK) {
      kvBindName(pS->pIncr, pName);
      sqlite3_bind_int64(pS->pIncr, 2, by);
      rc = sqlite3_step(pS->pIncr);
      if (rc == SQLITE_ROW) {
        *pbRow = 1;
        *piValue = sqlite3_column_int64(pS->pIncr, 0);
      }
      rc = sqlite3_reset(pS->pIncr);
      /* Re-prepared after a schema change: the write is done, but the call fails and later ones are refused.
       */
      if (rc == SQLITE_OK) rc = kvCountersCheckCtx(ctx, "kv_incr", pS->pIncr, &pS->nIncrStamp);
    }
    if (rc == SQLITE_OK || rc == SQLITE_MISMATCH || bFresh) break;
    kvStmtsClear(pS);
  }
  if (rc != SQLITE_OK && rc != SQLITE_MISMATCH) kvStmtsClear(pS);
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
  rc = kvIncrRun(ctx, pS, argv[0], by, &v, &bRow);
  if (rc == SQLITE_MISMATCH) {
    /* Reported on ctx. */
  } else if (rc == SQLITE_ERROR && sqlite3_strglob("ON CONFLICT clause does not match*",
                                                   sqlite3_errmsg(sqlite3_context_db_handle(ctx))) == 0) {
    /* A nosql_counters created beforehand without a unique name: told as kv_get tells it. */
    char *zErr = kvCountersNoKeyText("kv_incr");
    if (zErr) {
      sqlite3_result_error(ctx, zErr, -1);
    } else {
      sqlite3_result_error_nomem(ctx);
    }
    sqlite3_free(zErr);
  } else if (rc != SQLITE_OK) {
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
** The keyed statement cache and the atomic step (interface in nosqlInt.h),
** shared with ext/doc.c.
**
** Table arguments. kv_cas, kv_delete_if, kv_mget and doc_update take a
** table name, or the column form 'products(id, body, rev)' naming the
** columns of their layout (KvLayout) on an existing table. The statement
** formats name the columns by role words (key, value, doc, version); for
** the column form kvTablePrepare replaces each by the named column as
** declared, backquoted (a backquoted name that no column has is an error,
** never a string literal as a double-quoted one can be). The argument is
** resolved and its columns checked (they exist, none twice, the version
** one keeps integers) once, when its statement enters the cache; the
** cache finds it again by (format, argument text). After a schema change
** SQLite re-prepares the statement from its text, re-resolving the names
** (a name no column has is an error); kvTableKeyUnique, which doc_update
** and kv_cas/kv_delete_if step before they write, also sees the re-prepare
** (SQLITE_STMTSTATUS_REPREPARE) and checks the columns again, so a version
** column that another column's rename replaced is refused.
**
** One key, one row. Every function that reads or writes by key (kv_cas,
** kv_delete_if, kv_mget, doc_update, doc_upsert; kv_incr and kv_get on
** nosql_counters) refuses a table whose key column is not unique under
** its own collation, the one "WHERE key = ?" compares with
** (kvTableKeyRule). The rule is read from the schema when a statement
** enters the cache and again after SQLite re-prepares it (kvTableCheck),
** so a call reads one counter, no pragma.
*/

/* Most statements one cache keeps; the least recently used goes first. */
#define KV_CACHE_MAX 64

/* One cached statement, in a list ordered by last use. */
struct KvCacheEntry {
  KvCacheEntry *pNext; /* Next entry (used less recently) */
  char *zSql;          /* SQL text, the key (sqlite3_malloc64) */
  sqlite3_stmt *pStmt; /* Prepared with SQLITE_PREPARE_PERSISTENT */
  const char *zFmt;    /* kvTablePrepare's format (a static string), or NULL */
  char *zTable;        /* kvTablePrepare's table argument (a copy): the fast key, no SQL to build */
  int nReprepare;      /* SQLite's re-prepares of pStmt when kvTableCheck() last passed it, or -1 */
};

/* Free one entry and its statement. */
static void kvCacheEntryFree(KvCacheEntry *pEntry) {
  sqlite3_finalize(pEntry->pStmt);
  sqlite3_free(pEntry->zSql);
  sqlite3_free(pEntry->zTable);
  sqlite3_free(pEntry);
}

void kvCacheClear(KvCache *p) {
  while (p->pFirst) {
    KvCacheEntry *pEntry = p->pFirst;
    p->pFirst = pEntry->pNext;
    kvCacheEntryFree(pEntry);
  }
  p->nEntry = 0;
}

void kvOwnerUnref(void *p) {
  KvOwner *pOwner = (KvOwner *)p;
  if (--pOwner->nRef == 0) sqlite3_free(pOwner);
}

int kvCachePrepare(sqlite3 *db, KvOwner *pOwner, const char *zSql, sqlite3_stmt **ppStmt, int *pbTemp) {
  KvCache *pCache;
  KvCacheEntry *pEntry, **pp;
  int rc;
  *ppStmt = NULL;
  *pbTemp = 0;
  if (pOwner->pCache == NULL) {
    /* Preparing a statement that names the owner connects it (its xConnect sets pOwner->pCache). */
    sqlite3_stmt *pStmt = NULL;
    sqlite3_prepare_v2(db, pOwner->zConnect, -1, &pStmt, 0);
    sqlite3_finalize(pStmt);
  }
  pCache = pOwner->pCache;
  if (pCache) {
    for (pp = &pCache->pFirst; *pp; pp = &(*pp)->pNext) {
      if (strcmp((*pp)->zSql, zSql) != 0) continue;
      pEntry = *pp;
      /* In use further up the stack (a nested call): use a private statement instead. */
      if (sqlite3_stmt_busy(pEntry->pStmt)) break;
      *pp = pEntry->pNext;
      pEntry->pNext = pCache->pFirst;
      pCache->pFirst = pEntry;
      *ppStmt = pEntry->pStmt;
      return SQLITE_OK;
    }
  }
  rc = sqlite3_prepare_v3(db, zSql, -1, SQLITE_PREPARE_PERSISTENT, ppStmt, 0);
  if (rc != SQLITE_OK) return rc;
  if (pCache == NULL || (pEntry = (KvCacheEntry *)sqlite3_malloc64(sizeof(*pEntry))) == NULL) {
    *pbTemp = 1;
    return SQLITE_OK;
  }
  memset(pEntry, 0, sizeof(*pEntry));
  pEntry->zSql = sqlite3_mprintf("%s", zSql);
  if (pEntry->zSql == NULL) {
    sqlite3_free(pEntry);
    *pbTemp = 1;
    return SQLITE_OK;
  }
  pEntry->pStmt = *ppStmt;
  pEntry->pNext = pCache->pFirst;
  pCache->pFirst = pEntry;
  if (++pCache->nEntry > KV_CACHE_MAX) {
    /* Drop the least recently used (never the one just added, nor one in use). */
    for (pp = &pCache->pFirst; (*pp)->pNext; pp = &(*pp)->pNext) {
    }
    if (!sqlite3_stmt_busy((*pp)->pStmt)) {
      KvCacheEntry *pLast = *pp;
      *pp = NULL;
      kvCacheEntryFree(pLast);
      pCache->nEntry--;
    }
  }
  return SQLITE_OK;
}

void kvCacheRelease(sqlite3_stmt *pStmt, int bTemp) {
  if (bTemp) {
    sqlite3_finalize(pStmt);
  } else if (pStmt) {
    sqlite3_reset(pStmt);
    sqlite3_clear_bindings(pStmt);
  }
}

/*
** A table argument resolved: the table, and the names of the column form
** (cols.nCol 0: the plain form) with their declared spelling.
*/
typedef struct KvTableArg KvTableArg;
struct KvTableArg {
  NosqlTableName t;     /* The table */
  NosqlColumnList cols; /* The column form's names as written; nCol 0 for the plain form */
  char *azDecl[3];      /* Each role's column as declared (NULL: the plain form's column is missing) */
};

static void kvTableArgClear(KvTableArg *p) {
  int i;
  nosqlTableNameClear(&p->t);
  nosqlColumnListClear(&p->cols);
  for (i = 0; i < 3; i++) sqlite3_free(p->azDecl[i]);
  memset(p, 0, sizeof(*p));
}

/* "key, doc, version": pLayout's roles, for messages (sqlite3_mprintf). */
static char *kvLayoutRoles(const KvLayout *pLayout) {
  return sqlite3_mprintf("%s%s%s%s%s", pLayout->azRole[0], pLayout->nCol > 1 ? ", " : "",
                         pLayout->nCol > 1 ? pLayout->azRole[1] : "", pLayout->nCol > 2 ? ", " : "",
                         pLayout->nCol > 2 ? pLayout->azRole[2] : "");
}

/*
** Find each of pLayout's columns in p->t: the declared name and type of
** the column the column form names (it must exist, and no two names may
** be one column), or of the role's own name in the plain form (a missing
** one is left to SQLite's message when the statement is prepared). The
** version role must keep integers: a TEXT or REAL column is refused.
*/
static int kvTableArgColumns(sqlite3 *db, const char *zFunc, const KvLayout *pLayout, KvTableArg *p,
                             char **pzErr) {
  const char *zShow = p->cols.nCol ? p->cols.zTable : p->t.zName;
  sqlite3_stmt *pStmt = NULL;
  int rc, k, j, bRow;
  rc = sqlite3_prepare_v2(
      db, "SELECT name, type FROM pragma_table_xinfo(?1, ?2) WHERE name = ?3 COLLATE NOCASE", -1, &pStmt, 0);
  for (k = 0; rc == SQLITE_OK && k < pLayout->nCol; k++) {
    const char *zCol = p->cols.nCol ? p->cols.azCol[k] : pLayout->azRole[k];
    sqlite3_bind_text(pStmt, 1, p->t.zName, -1, SQLITE_STATIC);
    sqlite3_bind_text(pStmt, 2, p->t.zSchema, -1, SQLITE_STATIC);
    sqlite3_bind_text(pStmt, 3, zCol, -1, SQLITE_STATIC);
    rc = sqlite3_step(pStmt);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) break; /* OOM, interrupt: not "no such column" */
    bRow = rc == SQLITE_ROW;
    rc = SQLITE_OK;
    if (bRow) {
      const char *zType = (const char *)sqlite3_column_text(pStmt, 1);
      char cAff = nosqlTypeAffinity(zType);
      p->azDecl[k] = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(pStmt, 0));
      if (p->azDecl[k] == NULL) rc = SQLITE_NOMEM;
      for (j = 0; rc == SQLITE_OK && j < k; j++) {
        if (p->azDecl[j] && sqlite3_stricmp(p->azDecl[j], p->azDecl[k]) == 0) {
          *pzErr = sqlite3_mprintf("%s: table '%q' names column '%q' twice", zFunc, zShow, p->azDecl[k]);
          rc = SQLITE_ERROR;
        }
      }
      if (rc == SQLITE_OK && k == pLayout->iVersion && (cAff == 't' || cAff == 'r')) {
        *pzErr =
            sqlite3_mprintf("%s: column '%q' of table '%q' is declared %s, not INTEGER (it holds the %s)",
                            zFunc, p->azDecl[k], zShow, zType, pLayout->azRole[k]);
        rc = SQLITE_ERROR;
      }
    } else if (p->cols.nCol) {
      *pzErr = sqlite3_mprintf("%s: table '%q' has no column '%q'", zFunc, zShow, zCol);
      rc = SQLITE_ERROR;
    }
    if (rc == SQLITE_OK) {
      rc = sqlite3_reset(pStmt);
    } else {
      sqlite3_reset(pStmt);
    }
  }
  if (rc != SQLITE_OK && *pzErr == NULL) {
    /* A failed step's own code (SQLITE_NOMEM, SQLITE_INTERRUPT, ...); an error without a message is OOM. */
    int rcStep = sqlite3_reset(pStmt);
    if (rcStep != SQLITE_OK) rc = rcStep;
    if (rc == SQLITE_ERROR) rc = SQLITE_NOMEM;
  }
  sqlite3_finalize(pStmt);
  return rc;
}

/*
** Resolve table argument zTable for pLayout into *p (kvTableArgClear()):
** the whole text as a table name first, else as the column form. SQLITE_OK;
** SQLITE_ERROR with *pzErr; SQLITE_NOMEM.
*/
static int kvTableArgResolve(sqlite3 *db, const char *zFunc, const char *zTable, const KvLayout *pLayout,
                             KvTableArg *p, char **pzErr) {
  char *zWhy = NULL;
  int rc;
  memset(p, 0, sizeof(*p));
  rc = nosqlTableResolve(db, zTable, NULL, &p->t);
  if (rc == SQLITE_NOTFOUND) {
    nosqlTableNameClear(&p->t);
    rc = nosqlColumnListParse(zTable, &p->cols, &zWhy);
    if (rc == SQLITE_NOTFOUND) {
      *pzErr = sqlite3_mprintf("%s: no such table: '%q'", zFunc, zTable);
    } else if (rc == SQLITE_ERROR) {
      *pzErr = sqlite3_mprintf("%s: table '%q': %s", zFunc, zTable, zWhy);
    } else if (rc == SQLITE_OK && pLayout->nCol == 0) {
      *pzErr =
          sqlite3_mprintf("%s: table '%q': no column list here (expected %s)", zFunc, zTable, pLayout->zText);
    } else if (rc == SQLITE_OK && p->cols.nCol != pLayout->nCol) {
      char *zRoles = kvLayoutRoles(pLayout);
      *pzErr = zRoles ? sqlite3_mprintf("%s: table '%q' names %d column%s, expected %d (%s)", zFunc, zTable,
                                        p->cols.nCol, p->cols.nCol == 1 ? "" : "s", pLayout->nCol, zRoles)
                      : NULL;
      sqlite3_free(zRoles);
    } else if (rc == SQLITE_OK) {
      rc = nosqlTableResolve(db, p->cols.zTable, NULL, &p->t);
      if (rc == SQLITE_NOTFOUND) *pzErr = sqlite3_mprintf("%s: no such table: '%q'", zFunc, p->cols.zTable);
    }
    sqlite3_free(zWhy);
    if (rc != SQLITE_NOMEM && *pzErr) rc = SQLITE_ERROR;
    if (rc == SQLITE_NOTFOUND || (rc == SQLITE_OK && *pzErr == NULL && p->t.zName == NULL)) rc = SQLITE_NOMEM;
  }
  if (rc == SQLITE_OK) rc = kvTableArgColumns(db, zFunc, pLayout, p, pzErr);
  if (rc != SQLITE_OK) kvTableArgClear(p);
  return rc;
}

/*
** zSql with each of pLayout's role words (bare, outside quotes) replaced
** by its column azDecl[k], quoted with backquotes: unlike a double-quoted
** name, a backquoted one never becomes a string literal when no column
** has its name (after a rename, say). NULL on OOM.
*/
static char *kvSqlColumns(const char *zSql, const KvLayout *pLayout, char *const *azDecl) {
  NosqlBuffer out = {0, 0, 0};
  int rc = SQLITE_OK, i = 0, k;
  char *zOut = NULL;
  while (zSql[i]) {
    int i0 = i;
    char c = zSql[i];
    if (c == '\'' || c == '"' || c == '`' || c == '[') {
      char cEnd = c == '[' ? ']' : c;
      for (i++; zSql[i] && !(zSql[i] == cEnd && zSql[i + 1] != cEnd); i++) {
        if (zSql[i] == cEnd) i++; /* A doubled quote */
      }
      if (zSql[i]) i++;
    } else if (c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
      while (zSql[i] == '_' || zSql[i] == '$' || (zSql[i] >= 'a' && zSql[i] <= 'z') ||
             (zSql[i] >= 'A' && zSql[i] <= 'Z') || (zSql[i] >= '0' && zSql[i] <= '9')) {
        i++;
      }
      for (k = 0; k < pLayout->nCol; k++) {
        if ((int)strlen(pLayout->azRole[k]) == i - i0 && memcmp(pLayout->azRole[k], &zSql[i0], i - i0) == 0)
          break;
      }
      if (k < pLayout->nCol) {
        const char *z = azDecl[k];
        nosqlBufferAppend(&rc, &out, "`", 1);
        for (; *z; z++) nosqlBufferAppend(&rc, &out, *z == '`' ? "``" : z, *z == '`' ? 2 : 1);
        nosqlBufferAppend(&rc, &out, "`", 1);
        continue;
      }
    } else {
      i++;
    }
    nosqlBufferAppend(&rc, &out, &zSql[i0], i - i0);
  }
  if (rc == SQLITE_OK) zOut = sqlite3_mprintf("%s", out.a ? (const char *)out.a : "");
  nosqlBufferFree(&out);
  return zOut;
}

/*
** The SQL of zFmt on table argument zTable: the table, resolved by
** nosqlTableResolve(), in place of its one %s as "schema"."name" when the
** text names the schema, else "name" (SQLite then finds it again as it
** would, should a temp table of that name appear later); with the column
** form, the named columns in place of the role words. NULL with *pRc set
** (and *pzErr for SQLITE_ERROR).
*/
static char *kvTableSql(sqlite3 *db, const char *zFunc, const char *zTable, const KvLayout *pLayout,
                        const char *zFmt, int *pRc, char **pzErr) {
  KvTableArg arg;
  char *zIdent = NULL, *zSql = NULL;
  *pRc = kvTableArgResolve(db, zFunc, zTable, pLayout, &arg, pzErr);
  if (*pRc != SQLITE_OK) return NULL;
  zIdent = arg.t.bQualified ? sqlite3_mprintf("\"%w\".\"%w\"", arg.t.zSchema, arg.t.zName)
                            : sqlite3_mprintf("\"%w\"", arg.t.zName);
  zSql = zIdent ? sqlite3_mprintf(zFmt, zIdent) : NULL;
  if (zSql && arg.cols.nCol) {
    char *zCols = kvSqlColumns(zSql, pLayout, arg.azDecl);
    sqlite3_free(zSql);
    zSql = zCols;
  }
  if (zSql == NULL) *pRc = SQLITE_NOMEM;
  kvTableArgClear(&arg);
  sqlite3_free(zIdent);
  return zSql;
}

/*
** "<zFunc>: table 'x' has no PRIMARY KEY or UNIQUE constraint on ...": on
** the column zKeyCol (as the column form names it) or, with zKeyCol NULL,
** on the plain form's key, pLayout's first role (sqlite3_mprintf).
*/
static char *kvNoKeyText(const char *zFunc, const char *zShow, const char *zKeyCol, const KvLayout *pLayout) {
  if (zKeyCol) {
    return sqlite3_mprintf("%s: table '%q' has no PRIMARY KEY or UNIQUE constraint on column '%q' (the key)",
                           zFunc, zShow, zKeyCol);
  }
  return sqlite3_mprintf("%s: table '%q' has no PRIMARY KEY or UNIQUE constraint on %s (expected %s)", zFunc,
                         zShow, pLayout->azRole[0], pLayout->zText);
}

char *kvTableErrorText(sqlite3 *db, const char *zFunc, const char *zTable, const KvLayout *pLayout) {
  const char *zMsg = sqlite3_errmsg(db);
  NosqlColumnList cols;
  char *zWhy = NULL, *zErr;
  /* The column form (told apart from a table whose name has parentheses only by the count). */
  int bCols = pLayout->nCol > 0 && nosqlColumnListParse(zTable, &cols, &zWhy) == SQLITE_OK;
  const char *zShow = zTable;
  sqlite3_free(zWhy);
  if (bCols && cols.nCol != pLayout->nCol) {
    nosqlColumnListClear(&cols);
    bCols = 0;
  }
  if (bCols) zShow = cols.zTable;
  if (sqlite3_strglob("no such table: *", zMsg) == 0) {
    zErr = sqlite3_mprintf("%s: no such table: '%q'", zFunc, zShow);
  } else if (sqlite3_strglob("no such column: *", zMsg) == 0 ||
             sqlite3_strglob("table * has no column named *", zMsg) == 0) {
    const char *zCol = zMsg[0] == 't' ? strstr(zMsg, " named ") + 7 : zMsg + 16;
    if (zMsg[0] == 'n' && strrchr(zCol, '.')) zCol = strrchr(zCol, '.') + 1;
    zErr = bCols ? sqlite3_mprintf("%s: table '%q' has no column '%q'", zFunc, zShow, zCol)
                 : sqlite3_mprintf("%s: table '%q' has no column '%q' (expected %s)", zFunc, zShow, zCol,
                                   pLayout->zText);
  } else if (sqlite3_strglob("ON CONFLICT clause does not match*", zMsg) == 0) {
    zErr = kvNoKeyText(zFunc, zShow, bCols ? cols.azCol[0] : NULL, pLayout);
  } else {
    zErr = sqlite3_mprintf("%s: %s", zFunc, zMsg);
  }
  if (bCols) nosqlColumnListClear(&cols);
  return zErr;
}

int kvTablePrepare(sqlite3 *db, KvOwner *pOwner, const char *zFunc, const char *zTable,
                   const KvLayout *pLayout, const char *zFmt, sqlite3_stmt **ppStmt, int *pbTemp,
                   char **pzErr) {
  int rc = SQLITE_OK;
  char *zSql;
  KvCache *pCache = pOwner->pCache;
  *pzErr = NULL;
  /* The fast path: this format and table argument were prepared before (no SQL text to build). */
  if (pCache) {
    KvCacheEntry **pp;
    for (pp = &pCache->pFirst; *pp; pp = &(*pp)->pNext) {
      KvCacheEntry *pEntry = *pp;
      if (pEntry->zFmt != zFmt || strcmp(pEntry->zTable, zTable) != 0) continue;
      if (sqlite3_stmt_busy(pEntry->pStmt)) break;
      *pp = pEntry->pNext;
      pEntry->pNext = pCache->pFirst;
      pCache->pFirst = pEntry;
      *ppStmt = pEntry->pStmt;
      *pbTemp = 0;
      return SQLITE_OK;
    }
  }
  zSql = kvTableSql(db, zFunc, zTable, pLayout, zFmt, &rc, pzErr);
  if (zSql == NULL) return rc;
  rc = kvCachePrepare(db, pOwner, zSql, ppStmt, pbTemp);
  sqlite3_free(zSql);
  if (rc == SQLITE_OK && !*pbTemp) {
    /* kvCachePrepare left the statement's entry first: key it by (format, table argument) too. */
    KvCacheEntry *pFirst = pOwner->pCache->pFirst;
    if (pFirst->pStmt == *ppStmt && pFirst->zTable == NULL) {
      pFirst->zTable = sqlite3_mprintf("%s", zTable);
      if (pFirst->zTable) pFirst->zFmt = zFmt;
      pFirst->nReprepare = -1; /* kvTableCheck() has not checked it */
    }
  }
  if (rc == SQLITE_OK || rc == SQLITE_NOMEM) return rc;
  *pzErr = kvTableErrorText(db, zFunc, zTable, pLayout);
  return *pzErr ? rc : SQLITE_NOMEM;
}

/*
** Whether the key of the resolved table argument pArg is unique under the
** collation "WHERE key = ?" compares it with, decided from the schema: the
** probe of kvTableKeyUnique cannot tell, since SQLite matches an ON
** CONFLICT target to a unique index whatever the index's collation. The
** key column compares with its declared collation (BINARY when it declares
** none: the bound key carries no collation). It is unique when it is the
** table's INTEGER PRIMARY KEY (the rowid), or when a unique index that is
** not partial has the key column as its only key column (PRIMARY KEY and
** UNIQUE constraints included, WITHOUT ROWID's too) and uses the key's
** collation. Only that collation: under a coarser one (a BINARY key, a
** NOCASE index) the keys are unique too, but an insert or upsert then
** conflicts with a row that "WHERE key = ?" does not find (kv_incr would
** add to counter 'A' when asked for 'a'), so what a key finds would depend
** on the function. A unique index on several columns, on an expression or
** with a WHERE clause does not count. Views and virtual tables pass: their
** triggers or module decide what a key finds. SQLITE_OK, or an error with
** *pzErr: kvNoKeyText()'s message when no index counts whatever its
** collation, else "<zFunc>: key column 'k' of table 't' (COLLATE NOCASE)
** has no unique index under NOCASE: its unique index 'i' uses BINARY",
** naming every unique index on the key column alone.
*/
static int kvTableKeyRule(sqlite3 *db, const char *zFunc, const char *zTable, const KvLayout *pLayout,
                          const KvTableArg *pArg, char **pzErr) {
  const char *zKey = pArg->azDecl[0];
  const char *zShow = pArg->cols.nCol ? pArg->cols.zTable : zTable;
  char *zIpk = NULL, *zType = NULL, *zColl = NULL;
  sqlite3_stmt *pStmt = NULL;
  NosqlBuffer why = {0, 0, 0};
  int rc, bUnique = 0, nOther = 0;
  if (pArg->t.eType != NOSQL_TABLE || zKey == NULL) return SQLITE_OK;
  rc = nosqlRowidAlias(db, pArg->t.zSchema, pArg->t.zName, &zIpk);
  bUnique = rc == SQLITE_OK && zIpk && sqlite3_stricmp(zIpk, zKey) == 0;
  if (rc == SQLITE_OK && !bUnique) {
    rc = nosqlColumnInfo(db, pArg->t.zSchema, pArg->t.zName, zKey, &zType, &zColl);
  }
  if (rc == SQLITE_OK && !bUnique) {
    rc = sqlite3_prepare_v2(db,
                            "SELECT l.name, l.origin, x.coll FROM pragma_index_list(?1, ?2) AS l,"
                            " pragma_index_xinfo(l.name, ?2) AS x WHERE l.\"unique\" AND NOT l.partial"
                            " AND x.key AND x.name = ?3 COLLATE NOCASE"
                            " AND (SELECT count(*) FROM pragma_index_xinfo(l.name, ?2) WHERE key) = 1"
                            " ORDER BY l.seq",
                            -1, &pStmt, 0);
  }
  if (rc == SQLITE_OK && !bUnique) {
    sqlite3_bind_text(pStmt, 1, pArg->t.zName, -1, SQLITE_STATIC);
    sqlite3_bind_text(pStmt, 2, pArg->t.zSchema, -1, SQLITE_STATIC);
    sqlite3_bind_text(pStmt, 3, zKey, -1, SQLITE_STATIC);
    while (rc == SQLITE_OK && !bUnique && sqlite3_step(pStmt) == SQLITE_ROW) {
      const char *zIdx = (const char *)sqlite3_column_text(pStmt, 0);
      const char *zOrigin = (const char *)sqlite3_column_text(pStmt, 1);
      const char *zIdxColl = (const char *)sqlite3_column_text(pStmt, 2);
      if (zIdx == NULL || zOrigin == NULL || zIdxColl == NULL) {
        rc = SQLITE_NOMEM;
      } else if (sqlite3_stricmp(zColl ? zColl : "BINARY", zIdxColl) == 0) {
        bUnique = 1;
      } else if (strcmp(zOrigin, "pk") == 0) {
        nosqlBufferAppendf(&rc, &why, "%sits PRIMARY KEY uses %s", nOther++ ? ", " : "", zIdxColl);
      } else if (strcmp(zOrigin, "u") == 0) {
        nosqlBufferAppendf(&rc, &why, "%sits UNIQUE constraint uses %s", nOther++ ? ", " : "", zIdxColl);
      } else {
        nosqlBufferAppendf(&rc, &why, "%sits unique index '%q' uses %s", nOther++ ? ", " : "", zIdx,
                           zIdxColl);
      }
    }
    if (rc == SQLITE_OK) {
      rc = sqlite3_finalize(pStmt);
    } else {
      sqlite3_finalize(pStmt);
    }
  }
  if (rc == SQLITE_OK && !bUnique) {
    if (nOther == 0) {
      *pzErr = kvNoKeyText(zFunc, zShow, pArg->cols.nCol ? pArg->cols.azCol[0] : NULL, pLayout);
    } else {
      *pzErr = sqlite3_mprintf("%s: key column '%q' of table '%q' (%s%s) has no unique index under %s: %.*s",
                               zFunc, zKey, zShow, zColl ? "COLLATE " : "no COLLATE", zColl ? zColl : "",
                               zColl ? zColl : "BINARY", (int)why.n, (const char *)why.a);
    }
    rc = *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  sqlite3_free(zIpk);
  sqlite3_free(zType);
  sqlite3_free(zColl);
  nosqlBufferFree(&why);
  return rc;
}

/*
** The cache entry of pStmt, a statement kvTablePrepare() returned (with
** *pbTemp 0), or NULL. It is the first entry until another is prepared.
*/
static KvCacheEntry *kvCacheEntryOf(KvOwner *pOwner, sqlite3_stmt *pStmt) {
  KvCacheEntry *pEntry;
  for (pEntry = pOwner->pCache ? pOwner->pCache->pFirst : NULL; pEntry; pEntry = pEntry->pNext) {
    if (pEntry->pStmt == pStmt) return pEntry;
  }
  return NULL;
}

/*
** Check the table argument zTable again (its columns, kvTableArgResolve(),
** and its key, kvTableKeyRule()) unless it was checked for the schema
** pStmt, its cached statement, was last prepared for: the entry keeps
** SQLite's count of re-prepares of pStmt at the last check that passed,
** and SQLite re-prepares a statement when it steps it after a schema
** change. So a call pays one counter read, and the pragma queries run once
** per connection and schema. A private statement (bTemp) is checked every
** time. SQLITE_OK or an error with *pzErr.
*/
static int kvTableCheck(sqlite3 *db, KvOwner *pOwner, const char *zFunc, const char *zTable,
                        const KvLayout *pLayout, sqlite3_stmt *pStmt, int bTemp, char **pzErr) {
  KvCacheEntry *pEntry = bTemp ? NULL : kvCacheEntryOf(pOwner, pStmt);
  int nNow = sqlite3_stmt_status(pStmt, SQLITE_STMTSTATUS_REPREPARE, 0);
  KvTableArg arg;
  int rc;
  if (pEntry && pEntry->nReprepare == nNow) return SQLITE_OK;
  rc = kvTableArgResolve(db, zFunc, zTable, pLayout, &arg, pzErr);
  if (rc == SQLITE_OK) rc = kvTableKeyRule(db, zFunc, zTable, pLayout, &arg, pzErr);
  kvTableArgClear(&arg);
  if (rc == SQLITE_OK && pEntry) pEntry->nReprepare = nNow;
  return rc;
}

/* nosql_counters as a table argument of kvTableKeyRule(): name is its key. */
static const KvLayout kvCounterLayout = {
    "a (name TEXT PRIMARY KEY, value INTEGER) table", 2, {"name", "value", NULL}, -1};

static char *kvCountersNoKeyText(const char *zFunc) {
  return kvNoKeyText(zFunc, "nosql_counters", NULL, &kvCounterLayout);
}

/*
** kv_incr's and kv_get's kvTableCheck(): name must be unique under its
** collation in nosql_counters, which a user may have created before the
** first kv_incr. Checked once per prepare of pStmt, one of KvStmts'
** statements: *pnStamp keeps SQLite's re-prepare count of pStmt at the
** last check that passed (-1: none). A missing table passes (the
** statement's own step tells). SQLITE_OK or SQLITE_ERROR with *pzErr.
*/
static int kvCountersCheck(sqlite3 *db, const char *zFunc, sqlite3_stmt *pStmt, int *pnStamp, char **pzErr) {
  int nNow = sqlite3_stmt_status(pStmt, SQLITE_STMTSTATUS_REPREPARE, 0);
  KvTableArg arg;
  int rc;
  if (*pnStamp == nNow) return SQLITE_OK;
  rc = kvTableArgResolve(db, zFunc, "main.nosql_counters", &kvCounterLayout, &arg, pzErr);
  if (rc == SQLITE_ERROR) {
    sqlite3_free(*pzErr);
    *pzErr = NULL;
    return SQLITE_OK;
  }
  if (rc == SQLITE_OK) rc = kvTableKeyRule(db, zFunc, "nosql_counters", &kvCounterLayout, &arg, pzErr);
  kvTableArgClear(&arg);
  if (rc == SQLITE_OK) *pnStamp = nNow;
  return rc;
}

/* Inserts nothing: prepares (and re-prepares after a schema change) only when key is unique. */
static const char zKvUnique[] = "INSERT INTO %s(key) SELECT NULL WHERE 0 ON CONFLICT(key) DO NOTHING";

int kvTableKeyUnique(sqlite3 *db, KvOwner *pOwner, const char *zFunc, const char *zTable,
                     const KvLayout *pLayout, int bViewOk, char **pzErr) {
  sqlite3_stmt *pStmt = NULL;
  int bTemp = 0, rc;
  const char *zMsg;
  rc = kvTablePrepare(db, pOwner, zFunc, zTable, pLayout, zKvUnique, &pStmt, &bTemp, pzErr);
  if (rc == SQLITE_OK) {
    rc = sqlite3_step(pStmt);
    rc = rc == SQLITE_DONE ? SQLITE_OK : sqlite3_reset(pStmt);
    /* The probe passed: the columns and the key's collation, once per schema. */
    if (rc == SQLITE_OK) rc = kvTableCheck(db, pOwner, zFunc, zTable, pLayout, pStmt, bTemp, pzErr);
    kvCacheRelease(pStmt, bTemp);
    if (rc == SQLITE_OK || rc == SQLITE_NOMEM || *pzErr) return rc;
  }
  if (rc == SQLITE_NOMEM) return rc;
  zMsg = sqlite3_errmsg(db);
  if (bViewOk && (sqlite3_strglob("cannot modify * because it is a view", zMsg) == 0 ||
                  sqlite3_strglob("cannot UPSERT a view", zMsg) == 0)) {
    sqlite3_free(*pzErr);
    *pzErr = NULL;
    return SQLITE_OK;
  }
  /* Prepared again after a schema change, and key is no longer unique, or a column is gone. */
  if (*pzErr == NULL) *pzErr = kvTableErrorText(db, zFunc, zTable, pLayout);
  if (*pzErr == NULL) return SQLITE_NOMEM;
  return rc == SQLITE_OK ? SQLITE_ERROR : rc;
}

/* Run a transaction-control statement, cached (it is short but parsed per call otherwise). */
static int kvAtomicExec(sqlite3 *db, KvOwner *pOwner, const char *zSql) {
  sqlite3_stmt *pStmt = NULL;
  int bTemp = 0;
  int rc = kvCachePrepare(db, pOwner, zSql, &pStmt, &bTemp);
  if (rc != SQLITE_OK) return rc;
  rc = sqlite3_step(pStmt);
  rc = sqlite3_reset(pStmt);
  kvCacheRelease(pStmt, bTemp);
  return rc;
}

int kvAtomicBegin(sqlite3 *db, KvOwner *pOwner, int *pbOwn) {
  sqlite3_stmt *p;
  int rc;
  *pbOwn = 0;
  if (!sqlite3_get_autocommit(db)) return SQLITE_OK;
  /* A running writer holds its transaction open until it ends: the step is inside it. */
  for (p = sqlite3_next_stmt(db, 0); p; p = sqlite3_next_stmt(db, p)) {
    if (sqlite3_stmt_busy(p) && !sqlite3_stmt_readonly(p)) return SQLITE_OK;
  }
  rc = kvAtomicExec(db, pOwner, "BEGIN IMMEDIATE");
  if (rc == SQLITE_OK) *pbOwn = 1;
  return rc;
}

int kvAtomicEnd(sqlite3 *db, KvOwner *pOwner, int bOwn, int rc) {
  if (!bOwn) return rc;
  if (rc == SQLITE_OK) {
    rc = kvAtomicExec(db, pOwner, "COMMIT");
    if (rc == SQLITE_OK) return rc;
  }
  if (!sqlite3_get_autocommit(db)) sqlite3_exec(db, "ROLLBACK", 0, 0, 0);
  return rc;
}

/**************************************************************************
** kv_cas and kv_delete_if: conditional writes on a (key PRIMARY KEY, value)
** table, answering in memcached's words.
*/

/* The columns of the kv_* table functions: (key, value). */
static const KvLayout kvLayout = {"a (key PRIMARY KEY, value) table", 2, {"key", "value", NULL}, -1};

/* "Equal": the same type and value (BINARY text, whatever the column's affinity and collation). */
#define KV_SAME "value IS ?2 COLLATE BINARY AND typeof(value) = typeof(?2)"

/* Statement formats; %s is the quoted table. ?1 key, ?2 expected, ?3 new. */
static const char zKvCasSet[] = "UPDATE %s SET value = ?3 WHERE key = ?1 AND " KV_SAME;
static const char zKvCasAdd[] = "INSERT INTO %s(key, value) VALUES (?1, ?3) ON CONFLICT(key) DO NOTHING";
static const char zKvDelete[] = "DELETE FROM %s WHERE key = ?1 AND " KV_SAME;
static const char zKvGet[] = "SELECT key, value FROM %s WHERE key = ?1";

/*
** Run statement zFmt on the table named by argv[0] with key argv[1],
** expected argv[2] and new value pNew (may be NULL): *pnChange gets the
** rows changed, or, with zFmt NULL, whether the key exists. SQLITE_OK or an
** error left in *pzErr (or SQLITE_NOMEM).
*/
static int kvCondRun(sqlite3 *db, KvOwner *pOwner, const char *zFunc, const char *zFmt, sqlite3_value **argv,
                     sqlite3_value *pNew, int *pnChange, char **pzErr) {
  sqlite3_stmt *pStmt = NULL;
  int bTemp = 0;
  sqlite3_int64 nBefore;
  int rc = kvTablePrepare(db, pOwner, zFunc, (const char *)sqlite3_value_text(argv[0]), &kvLayout,
                          zFmt ? zFmt : zKvGet, &pStmt, &bTemp, pzErr);
  if (rc != SQLITE_OK) return rc;
  /* Whether the write wrote: sqlite3_changes() does not count what a
  ** view's INSTEAD OF trigger writes, the total does (and a trigger fires
  ** only for a row the statement matched). */
  nBefore = sqlite3_total_changes64(db);
  sqlite3_bind_value(pStmt, 1, argv[1]);
  if (zFmt) {
    sqlite3_bind_value(pStmt, 2, argv[2]);
    if (pNew) sqlite3_bind_value(pStmt, 3, pNew);
  }
  rc = sqlite3_step(pStmt);
  if (rc == SQLITE_ROW || rc == SQLITE_DONE) {
    *pnChange = zFmt ? sqlite3_total_changes64(db) > nBefore : rc == SQLITE_ROW;
    rc = SQLITE_OK;
  } else {
    rc = sqlite3_reset(pStmt);
    /* Re-prepared after a schema change: a renamed column is told as when it was first prepared. */
    if (rc != SQLITE_NOMEM)
      *pzErr = kvTableErrorText(db, zFunc, (const char *)sqlite3_value_text(argv[0]), &kvLayout);
  }
  kvCacheRelease(pStmt, bTemp);
  return rc;
}

/*
** A conditional write: zFmt changes the row iff the stored value is the
** expected one. The check that key is unique (a write by key must write
** one row), the write and, when it did not write, the read that tells why
** run inside one write transaction (kvAtomicBegin), so the answer is never
** stale and the check holds for the write. Returns zYes, "exists" or
** "not_found". With bOne, the write alone is the answer (an insert that
** conflicts: "exists"), after the same check in the same transaction:
** ON CONFLICT(key) finds a unique index whatever its collation, so it
** does not check the key.
*/
static void kvCondWrite(sqlite3_context *ctx, const char *zFunc, const char *zFmt, sqlite3_value **argv,
                        sqlite3_value *pNew, const char *zYes, int bOne) {
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  KvOwner *pOwner = (KvOwner *)sqlite3_user_data(ctx);
  char *zErr = NULL;
  int nChange = 0, bFound = bOne, bOwn = 0, rc = SQLITE_OK;
  rc = kvAtomicBegin(db, pOwner, &bOwn);
  if (rc == SQLITE_OK) {
    rc = kvTableKeyUnique(db, pOwner, zFunc, (const char *)sqlite3_value_text(argv[0]), &kvLayout, 1, &zErr);
  }
  if (rc == SQLITE_OK) rc = kvCondRun(db, pOwner, zFunc, zFmt, argv, pNew, &nChange, &zErr);
  if (rc == SQLITE_OK && nChange == 0 && !bOne) {
    rc = kvCondRun(db, pOwner, zFunc, NULL, argv, NULL, &bFound, &zErr);
  }
  rc = kvAtomicEnd(db, pOwner, bOwn, rc);
  if (rc != SQLITE_OK && zErr == NULL && rc != SQLITE_NOMEM) {
    zErr = sqlite3_mprintf("%s: %s", zFunc, sqlite3_errmsg(db));
  }
  if (rc == SQLITE_OK) {
    sqlite3_result_text(ctx, nChange ? zYes : (bFound ? "exists" : "not_found"), -1, SQLITE_STATIC);
  } else if (zErr) {
    sqlite3_result_error(ctx, zErr, -1);
    sqlite3_result_error_code(ctx, rc);
  } else {
    sqlite3_result_error_nomem(ctx);
  }
  sqlite3_free(zErr);
}

/* kv_cas(table, key, expected, new): memcached's cas; NULL expected adds a key that must be absent. */
static void kvCasFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL) return;
  if (sqlite3_value_type(argv[2]) == SQLITE_NULL) {
    /* One statement: a conflict on the key is the whole answer. */
    kvCondWrite(ctx, "kv_cas", zKvCasAdd, argv, argv[3], "stored", 1);
  } else {
    kvCondWrite(ctx, "kv_cas", zKvCasSet, argv, argv[3], "stored", 0);
  }
}

/* kv_delete_if(table, key, expected): delete the key iff it holds expected (NULL: a stored NULL). */
static void kvDeleteIfFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL) return;
  kvCondWrite(ctx, "kv_delete_if", zKvDelete, argv, NULL, "deleted", 0);
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
  /* A reference of its own: loading the extension again replaces the
  ** registrations, whose references go at once, while SQLite disconnects
  ** this table later, at the next prepare. */
  p->pConn = pConn;
  pConn->base.nRef++;
  if (pConn->pVtab == NULL) {
    pConn->pVtab = p;
    pConn->base.pCache = &p->cache;
  }
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
  *ppVtab = &p->base;
  return SQLITE_OK;
}

/* Finalizes the cached statements: sqlite3_close() calls this before it checks for open statements. */
static int kvcDisconnect(sqlite3_vtab *pVtab) {
  kvc_vtab *p = (kvc_vtab *)pVtab;
  if (p->pConn->pVtab == p) {
    p->pConn->pVtab = NULL;
    p->pConn->base.pCache = NULL;
  }
  kvStmtsClear(&p->stmts);
  kvCacheClear(&p->cache);
  kvConnUnref(p->pConn);
  sqlite3_free(p);
  return SQLITE_OK;
}

/*
** Plan: idxNum 1 when an equality on name (BINARY collation) is passed
** as argv[0], else 0 (every counter). Rows come in name order, so ORDER BY
** name (ascending) is consumed.
*/
static int kvcBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo) {
  /* name = ?: the inner WHERE compares the same way (TEXT affinity, BINARY). */
  static const NosqlPlanCol aCol[1] = {{0, NOSQL_OP_EQ, NULL, 1, 0}};
  NosqlPlan plan;
  int rc;
  (void)pVtab;
  rc = nosqlPlanBest(pInfo, aCol, 1, &plan);
  if (rc != SQLITE_OK) return rc;
  pInfo->idxNum = plan.nArg > 0;
  pInfo->estimatedCost = plan.nArg ? 10.0 : 1000.0;
  pInfo->estimatedRows = plan.nArg ? 1 : 1000;
  if (plan.nArg) pInfo->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
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
    rc = sqlite3_prepare_v2(p->db,
                            "SELECT name, value FROM main.nosql_counters WHERE name > ?1 COLLATE BINARY "
                            "ORDER BY name COLLATE BINARY"
                            " LIMIT 1",
                            -1, &pCur->pStmt, 0);
    if (rc != SQLITE_OK) {
      nosqlVtabError(pCursor->pVtab, "kv_counters: %s", sqlite3_errmsg(p->db));
      return rc;
    }
  }
  rc = sqlite3_bind_value(pCur->pStmt, 1, pCur->pName);
  if (rc != SQLITE_OK) return rc;
  return kvcStep(pCur);
}

/*
** The scan statements are prepared per query, not cached: kv_counters is
** for looking, kv_get for lookups in a loop. They compare and order in
** BINARY, as the declared column and the plan do, whatever the collation
** of a nosql_counters created beforehand.
*/
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
  rc = sqlite3_prepare_v2(
      p->db,
      idxNum ? "SELECT name, value FROM main.nosql_counters WHERE name = ?1 COLLATE BINARY"
             : "SELECT name, value FROM main.nosql_counters ORDER BY name COLLATE BINARY LIMIT 1",
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

/**************************************************************************
** kv_mget(table, keys_json): the values of a JSON array of keys, one index
** probe per key, in the array's order, missing keys omitted.
**
**   CREATE TABLE kv_mget(
**     key,                 -- the key as stored
**     value,               -- its value
**     table_name HIDDEN,   -- the (key PRIMARY KEY, value) table (required)
**     keys_json HIDDEN     -- a JSON array of strings and numbers (required)
**   );
**
** The keys are read from the array in xFilter; each xNext probes the next
** one through the cached "SELECT key, value FROM t WHERE key = ?1" and
** keeps copies of the row, so the statement is free between rows (a join
** of two kv_mget on one table shares it).
*/
typedef struct kv_mget_vtab kv_mget_vtab;
typedef struct kv_mget_cursor kv_mget_cursor;

struct kv_mget_vtab {
  sqlite3_vtab base; /* Base class - must be first */
  sqlite3 *db;       /* The connection */
  KvConn *pConn;     /* Connection state (the statement cache) */
};

struct kv_mget_cursor {
  sqlite3_vtab_cursor base; /* Base class - must be first */
  char *zTable;             /* The table argument (copy) */
  sqlite3_value *apArg[2];  /* The table and keys arguments (copies), the hidden columns */
  sqlite3_value **aKey;     /* The keys, in array order (copies) */
  int nKey;                 /* Entries in aKey[] */
  int iKey;                 /* Next key to probe */
  sqlite3_int64 iRow;       /* 1-based position in the array of the current row's key */
  sqlite3_value *pRowKey;   /* Current row: the stored key (copy); NULL at EOF */
  sqlite3_value *pRowValue; /* Current row: its value (copy) */
};

#define KV_MGET_KEY 0
#define KV_MGET_VALUE 1
#define KV_MGET_TABLE 2
#define KV_MGET_KEYS 3

static int kvMgetConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                         char **pzErr) {
  kv_mget_vtab *p;
  int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(key, value, table_name HIDDEN, keys_json HIDDEN)");
  (void)argc;
  (void)argv;
  (void)pzErr;
  if (rc != SQLITE_OK) return rc;
  p = (kv_mget_vtab *)sqlite3_malloc64(sizeof(*p));
  if (p == NULL) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->db = db;
  p->pConn = (KvConn *)pAux;
  *ppVtab = &p->base;
  return SQLITE_OK;
}

/* The plan (ext/plan.c): slot a table_name, slot b keys_json, both required inputs. */
static const NosqlPlanCol aKvMgetPlan[] = {
    {KV_MGET_TABLE, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 1},
    {KV_MGET_KEYS, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 1},
};

static int kvMgetBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo) {
  (void)pVtab;
  return nosqlPlanInputs(pInfo, aKvMgetPlan, 2, 100 /* About ten probes */, 10);
}

static int kvMgetOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor) {
  (void)pVtab;
  return nosqlCursorNew(sizeof(kv_mget_cursor), ppCursor) ? SQLITE_OK : SQLITE_NOMEM;
}

/* Forget the keys and the current row. */
static void kvMgetReset(kv_mget_cursor *pCur) {
  int i;
  for (i = 0; i < pCur->nKey; i++) sqlite3_value_free(pCur->aKey[i]);
  sqlite3_free(pCur->aKey);
  sqlite3_free(pCur->zTable);
  sqlite3_value_free(pCur->apArg[0]);
  sqlite3_value_free(pCur->apArg[1]);
  sqlite3_value_free(pCur->pRowKey);
  sqlite3_value_free(pCur->pRowValue);
  pCur->aKey = NULL;
  pCur->zTable = NULL;
  pCur->apArg[0] = pCur->apArg[1] = NULL;
  pCur->pRowKey = NULL;
  pCur->pRowValue = NULL;
  pCur->nKey = pCur->iKey = 0;
}

static int kvMgetClose(sqlite3_vtab_cursor *pCursor) {
  kvMgetReset((kv_mget_cursor *)pCursor);
  sqlite3_free(pCursor);
  return SQLITE_OK;
}

/* Probe keys from iKey on until one is found (the row) or none is left (EOF). */
static int kvMgetNext(sqlite3_vtab_cursor *pCursor) {
  kv_mget_cursor *pCur = (kv_mget_cursor *)pCursor;
  kv_mget_vtab *p = (kv_mget_vtab *)pCursor->pVtab;
  sqlite3_value_free(pCur->pRowKey);
  sqlite3_value_free(pCur->pRowValue);
  pCur->pRowKey = pCur->pRowValue = NULL;
  while (pCur->iKey < pCur->nKey) {
    sqlite3_stmt *pStmt = NULL;
    char *zErr = NULL;
    int bTemp = 0, rc;
    rc = kvTablePrepare(p->db, &p->pConn->base, "kv_mget", pCur->zTable, &kvLayout, zKvGet, &pStmt, &bTemp,
                        &zErr);
    /* A key must find one row: the table's key is unique under its collation (as for the writers). */
    if (rc == SQLITE_OK) {
      rc = kvTableCheck(p->db, &p->pConn->base, "kv_mget", pCur->zTable, &kvLayout, pStmt, bTemp, &zErr);
      if (rc != SQLITE_OK) kvCacheRelease(pStmt, bTemp);
    }
    if (rc != SQLITE_OK) {
      if (zErr) nosqlVtabError(pCursor->pVtab, "%s", zErr);
      sqlite3_free(zErr);
      return rc;
    }
    /* A null element is kept (it holds its position, the rowid) but finds nothing. */
    if (sqlite3_value_type(pCur->aKey[pCur->iKey]) == SQLITE_NULL) {
      pCur->iKey++;
      kvCacheRelease(pStmt, bTemp);
      continue;
    }
    sqlite3_bind_value(pStmt, 1, pCur->aKey[pCur->iKey++]);
    rc = sqlite3_step(pStmt);
    /* Stepping re-prepared it after a schema change: the row counts only if the key is still unique. */
    if (rc == SQLITE_ROW) {
      rc = kvTableCheck(p->db, &p->pConn->base, "kv_mget", pCur->zTable, &kvLayout, pStmt, bTemp, &zErr);
      if (rc != SQLITE_OK) {
        if (zErr) nosqlVtabError(pCursor->pVtab, "%s", zErr);
        sqlite3_free(zErr);
        kvCacheRelease(pStmt, bTemp);
        return rc;
      }
      rc = SQLITE_ROW;
    }
    if (rc == SQLITE_ROW) {
      pCur->pRowKey = sqlite3_value_dup(sqlite3_column_value(pStmt, 0));
      pCur->pRowValue = sqlite3_value_dup(sqlite3_column_value(pStmt, 1));
      pCur->iRow = pCur->iKey;
      rc = pCur->pRowKey && pCur->pRowValue ? SQLITE_OK : SQLITE_NOMEM;
    } else if (rc == SQLITE_DONE) {
      rc = SQLITE_OK;
    } else {
      char *zMsg;
      rc = sqlite3_reset(pStmt);
      zMsg = kvTableErrorText(p->db, "kv_mget", pCur->zTable, &kvLayout);
      if (zMsg == NULL) rc = SQLITE_NOMEM;
      if (zMsg) nosqlVtabError(pCursor->pVtab, "%s", zMsg);
      sqlite3_free(zMsg);
    }
    kvCacheRelease(pStmt, bTemp);
    if (rc != SQLITE_OK || pCur->pRowKey) return rc;
  }
  return SQLITE_OK;
}

/* Read the keys of keys_json (pKeys) into pCur->aKey. */
static int kvMgetKeys(kv_mget_cursor *pCur, sqlite3 *db, sqlite3_value *pKeys) {
  sqlite3_vtab *pVtab = pCur->base.pVtab;
  int bBlob = sqlite3_value_type(pKeys) == SQLITE_BLOB;
  const char *zJson = (const char *)sqlite3_value_text(pKeys);
  sqlite3_stmt *pStmt = NULL;
  int rc, nAlloc = 0;
  if (zJson == NULL) return SQLITE_NOMEM;
  if (bBlob) {
    nosqlVtabError(pVtab, "kv_mget: keys_json is a blob, not a JSON array");
    return SQLITE_ERROR;
  }
  while (*zJson == ' ' || *zJson == '\t' || *zJson == '\n' || *zJson == '\r') zJson++;
  if (*zJson == '[' && nosqlJsonTooDeep(zJson, (int)strlen(zJson))) {
    nosqlVtabError(pVtab, "kv_mget: keys_json " NOSQL_JSON_DEEP, NOSQL_JSON_MAX_DEPTH);
    return SQLITE_ERROR;
  }
  if (*zJson != '[' || !nosqlJsonStrict(zJson, (int)strlen(zJson))) {
    const char *zAll = (const char *)sqlite3_value_text(pKeys);
    int iAt = nosqlJsonErrorAt(zAll, sqlite3_value_bytes(pKeys));
    char *zQuoted = nosqlValueQuote(pKeys);
    if (iAt >= 0) {
      nosqlVtabError(pVtab, "kv_mget: keys_json " NOSQL_JSON_AT ": %s", iAt, zQuoted ? zQuoted : "?");
    } else {
      nosqlVtabError(pVtab, "kv_mget: keys_json is not a JSON array: %s", zQuoted ? zQuoted : "?");
    }
    sqlite3_free(zQuoted);
    return SQLITE_ERROR;
  }
  rc = sqlite3_prepare_v2(db, "SELECT type, value, key FROM json_each(?1)", -1, &pStmt, 0);
  if (rc == SQLITE_OK) rc = sqlite3_bind_value(pStmt, 1, pKeys);
  while (rc == SQLITE_OK && (rc = sqlite3_step(pStmt)) == SQLITE_ROW) {
    const char *zType = (const char *)sqlite3_column_text(pStmt, 0);
    rc = SQLITE_OK;
    if (zType == NULL || (strcmp(zType, "text") != 0 && strcmp(zType, "integer") != 0 &&
                          strcmp(zType, "real") != 0 && strcmp(zType, "null") != 0)) {
      nosqlVtabError(pVtab, "kv_mget: element %d of keys_json is %s%s, not a key (a string or a number)",
                     sqlite3_column_int(pStmt, 2) + 1,
                     zType && (zType[0] == 'a' || zType[0] == 'o') ? "an " : "", zType ? zType : "?");
      rc = SQLITE_ERROR;
    } else {
      if (pCur->nKey == nAlloc) {
        int nNew = nAlloc ? nAlloc * 2 : 16;
        sqlite3_value **aNew =
            (sqlite3_value **)sqlite3_realloc64(pCur->aKey, sizeof(sqlite3_value *) * nNew);
        if (aNew == NULL) rc = SQLITE_NOMEM;
        pCur->aKey = aNew ? aNew : pCur->aKey;
        nAlloc = aNew ? nNew : nAlloc;
      }
      if (rc == SQLITE_OK) {
        pCur->aKey[pCur->nKey] = sqlite3_value_dup(sqlite3_column_value(pStmt, 1));
        if (pCur->aKey[pCur->nKey] == NULL)
          rc = SQLITE_NOMEM;
        else
          pCur->nKey++;
      }
    }
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  if (rc != SQLITE_OK && pVtab->zErrMsg == NULL && rc != SQLITE_NOMEM) {
    nosqlVtabError(pVtab, "kv_mget: %s", sqlite3_errmsg(db));
  }
  sqlite3_finalize(pStmt);
  return rc;
}

static int kvMgetFilter(sqlite3_vtab_cursor *pCursor, int idxNum, const char *idxStr, int argc,
                        sqlite3_value **argv) {
  kv_mget_cursor *pCur = (kv_mget_cursor *)pCursor;
  kv_mget_vtab *p = (kv_mget_vtab *)pCursor->pVtab;
  NosqlPlanArg aArg[2];
  int rc;
  (void)idxNum;
  kvMgetReset(pCur);
  if (nosqlPlanInputArgs(pCursor->pVtab, "kv_mget(table_name, keys_json)", aKvMgetPlan, 2, idxStr, argc, argv,
                         aArg) != SQLITE_OK) {
    return SQLITE_ERROR;
  }
  if (sqlite3_value_type(aArg[0].pEq) == SQLITE_NULL || sqlite3_value_type(aArg[1].pEq) == SQLITE_NULL) {
    return SQLITE_OK;
  }
  pCur->zTable = sqlite3_mprintf("%s", (const char *)sqlite3_value_text(aArg[0].pEq));
  pCur->apArg[0] = sqlite3_value_dup(aArg[0].pEq);
  pCur->apArg[1] = sqlite3_value_dup(aArg[1].pEq);
  if (pCur->zTable == NULL || pCur->apArg[0] == NULL || pCur->apArg[1] == NULL) return SQLITE_NOMEM;
  rc = kvMgetKeys(pCur, p->db, aArg[1].pEq);
  if (rc != SQLITE_OK) return rc;
  return kvMgetNext(pCursor);
}

static int kvMgetEof(sqlite3_vtab_cursor *pCursor) { return ((kv_mget_cursor *)pCursor)->pRowKey == NULL; }

static int kvMgetColumn(sqlite3_vtab_cursor *pCursor, sqlite3_context *ctx, int iCol) {
  kv_mget_cursor *pCur = (kv_mget_cursor *)pCursor;
  if (iCol == KV_MGET_KEY) sqlite3_result_value(ctx, pCur->pRowKey);
  if (iCol == KV_MGET_VALUE) sqlite3_result_value(ctx, pCur->pRowValue);
  /* The arguments as given: SQLite checks a second constraint on them against these. */
  if (iCol == KV_MGET_TABLE) sqlite3_result_value(ctx, pCur->apArg[0]);
  if (iCol == KV_MGET_KEYS) sqlite3_result_value(ctx, pCur->apArg[1]);
  return SQLITE_OK;
}

/* The rowid: the 1-based position of the row's key in keys_json. */
static int kvMgetRowid(sqlite3_vtab_cursor *pCursor, sqlite_int64 *pRowid) {
  *pRowid = ((kv_mget_cursor *)pCursor)->iRow;
  return SQLITE_OK;
}

static sqlite3_module kvMgetModule = {
    0,               /* iVersion */
    0,               /* xCreate: eponymous only */
    kvMgetConnect,   /* xConnect */
    kvMgetBestIndex, /* xBestIndex */
    nosqlVtabFree,   /* xDisconnect */
    0,               /* xDestroy */
    kvMgetOpen,      /* xOpen */
    kvMgetClose,     /* xClose */
    kvMgetFilter,    /* xFilter */
    kvMgetNext,      /* xNext */
    kvMgetEof,       /* xEof */
    kvMgetColumn,    /* xColumn */
    kvMgetRowid,     /* xRowid */
    0,               /* xUpdate */
    0,               /* xBegin */
    0,               /* xSync */
    0,               /* xCommit */
    0,               /* xRollback */
    0,               /* xFindFunction */
    0,               /* xRename */
    0,               /* xSavepoint */
    0,               /* xRelease */
    0,               /* xRollbackTo */
    0,               /* xShadowName */
};

int kvRegister(sqlite3 *db) {
  static const struct {
    const char *zName;                                       /* SQL name */
    int nArg;                                                /* Number of arguments */
    void (*xFunc)(sqlite3_context *, int, sqlite3_value **); /* Implementation */
  } aFunc[] = {{"kv_incr", 1, kvIncrFunc},
               {"kv_incr", 2, kvIncrFunc},
               {"kv_get", 1, kvGetFunc},
               {"kv_cas", 4, kvCasFunc},
               {"kv_delete_if", 3, kvDeleteIfFunc}};
  KvConn *pConn = (KvConn *)sqlite3_malloc64(sizeof(*pConn));
  int rc = SQLITE_OK;
  size_t i;
  if (pConn == NULL) return SQLITE_NOMEM;
  memset(pConn, 0, sizeof(*pConn));
  /*
  ** One reference for this function, one per registration: its destructor
  ** drops it when the registration goes, or at once if registering fails.
  */
  pConn->base.nRef = 1;
  pConn->base.zConnect = "SELECT 1 FROM main.kv_counters";
  for (i = 0; i < sizeof(aFunc) / sizeof(aFunc[0]) && rc == SQLITE_OK; i++) {
    pConn->base.nRef++;
    rc = sqlite3_create_function_v2(db, aFunc[i].zName, aFunc[i].nArg, NOSQL_EFFECT, pConn, aFunc[i].xFunc, 0,
                                    0, kvConnUnref);
  }
  if (rc == SQLITE_OK) {
    pConn->base.nRef++;
    rc = sqlite3_create_module_v2(db, "kv_counters", &kvcModule, pConn, kvConnUnref);
  }
  if (rc == SQLITE_OK) {
    pConn->base.nRef++;
    rc = sqlite3_create_module_v2(db, "kv_mget", &kvMgetModule, pConn, kvConnUnref);
  }
  kvConnUnref(pConn);
  return rc;
}
