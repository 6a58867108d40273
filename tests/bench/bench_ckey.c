/*
** bench_ckey.c: composite keys (techniques 8, 9 and 5).
**
**   prefix scan      rows of 10 states out of 50 ('State:City:UserID' keys):
**                    composite index range vs composite_scan vs GLOB
**   selective prefix 20 (state, city) prefixes of ~200 rows each: the same,
**                    plus LIKE, which cannot use the index
**   unique users     per site: COUNT(DISTINCT) GROUP BY (no index) vs one
**                    pass over site-prefixed keys (count_distinct_sorted)
**                    vs user-prefixed keys (the article's layout)
**   hll_count        distinct users, exact vs HyperLogLog in SQL vs the C core,
**                    each checked against a count made in C (sort, unique)
**   kv_incr          a counter bumped n times: upsert RETURNING vs kv_incr;
**                    the rows are the values returned (1..n)
*/
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows of the selective-prefix workload's answer: prefixes to look up. */
#define CKEY_N_PREFIX 20

/* The in-memory values of the hll C-kernel variant. */
typedef struct CkeyHllArg CkeyHllArg;
struct CkeyHllArg {
  int64_t *aVal;  /* Values, with repeats */
  int64_t nVal;   /* Number of values */
  int64_t nExact; /* Distinct values among them */
};

/* hll C core: hash and add every value, then check the estimate like the SQL variants. */
static int ckeyHllKernel(sqlite3 *db, void *pArg, BenchSum *pSum) {
  CkeyHllArg *p = (CkeyHllArg *)pArg;
  unsigned char *aReg = (unsigned char *)calloc(1 << 14, 1);
  int64_t i, bNear;
  double rEst;
  (void)db;
  if (aReg == NULL) return SQLITE_NOMEM;
  for (i = 0; i < p->nVal; i++) hllAdd(aReg, 14, hllHashInt(p->aVal[i]));
  rEst = hllEstimate(aReg, 14);
  free(aReg);
  bNear = fabs(rEst - (double)p->nExact) <= 0.024 * (double)p->nExact;
  benchSumInts(pSum, &bNear, 1);
  return SQLITE_OK;
}

/*
** The counter workloads: nCall increments of a counter that starts at 0,
** each returning the new value, so the rows are 1..nCall whatever the
** variant; a counter that loses, repeats or skips a value disagrees. Each
** run increments a counter of its own (zPrefix and the run number, bound
** to ?1), so every run starts from 0.
*/
typedef struct CkeyIncrArg CkeyIncrArg;
struct CkeyIncrArg {
  const char *zSql;    /* Statement run once per call (or once, when bOnce) */
  const char *zPrefix; /* Counter names are zPrefix followed by the run number */
  int64_t nCall;       /* Calls */
  int bTxn;            /* True: all calls inside one BEGIN ... COMMIT */
  int bOnce;           /* True: run zSql once; it makes the nCall calls itself */
  int iRun;            /* Runs so far */
};

static int ckeyIncrLoop(sqlite3 *db, void *pArg, BenchSum *pSum) {
  CkeyIncrArg *p = (CkeyIncrArg *)pArg;
  sqlite3_stmt *pStmt = NULL;
  char zName[48];
  int64_t i;
  int rc = p->bTxn ? sqlite3_exec(db, "BEGIN", 0, 0, 0) : SQLITE_OK;
  snprintf(zName, sizeof(zName), "%s%d", p->zPrefix, ++p->iRun);
  if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(db, p->zSql, -1, &pStmt, 0);
  if (rc == SQLITE_OK) rc = sqlite3_bind_text(pStmt, 1, zName, -1, SQLITE_TRANSIENT);
  for (i = 0; rc == SQLITE_OK && i < (p->bOnce ? 1 : p->nCall); i++) {
    rc = benchSumStmt(pSum, pStmt);
    sqlite3_reset(pStmt);
  }
  sqlite3_finalize(pStmt);
  if (p->bTxn) {
    int rc2 = sqlite3_exec(db, rc == SQLITE_OK ? "COMMIT" : "ROLLBACK", 0, 0, 0);
    if (rc == SQLITE_OK) rc = rc2;
  }
  return rc;
}

static int ckeyCmpInt64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

void benchCkey(Bench *p) {
  sqlite3 *db = benchOpen();
  int64_t nRow = benchSize(p, 1000000, 5000);
  int64_t nClick = benchSize(p, 1000000, 5000);
  int64_t nUser = nClick / 10 > 100 ? nClick / 10 : 100;
  char zSize[96];
  char *zSql;

  /* user_stats: 50 states x 100 cities, rows spread evenly; keys and a normalized copy. */
  zSql = sqlite3_mprintf(
      "CREATE TABLE norm(state TEXT, city TEXT, user_id TEXT, visits INTEGER);"
      "WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < %lld)"
      " INSERT INTO norm SELECT 'S' || printf('%%02d', i %% 50), 'City ' || printf('%%03d', (i / 50) %% 100),"
      " printf('%%07d', i), (i * 7919) %% 1000 FROM c;"
      "CREATE INDEX norm_i ON norm(state, city, user_id, visits);"
      "CREATE TABLE user_stats(key TEXT PRIMARY KEY, visits INTEGER) WITHOUT ROWID;"
      "INSERT INTO user_stats SELECT ckey_join(':', state, city, user_id), visits FROM norm;"
      "CREATE VIRTUAL TABLE by_region USING composite_scan(user_stats, key, state, city, user_id, sep=':');"
      "CREATE TABLE states(s TEXT);"
      "INSERT INTO states SELECT 'S' || printf('%%02d', value * 5) FROM json_each('[0,1,2,3,4,5,6,7,8,9]');"
      "CREATE TABLE prefixes(s TEXT, c TEXT);"
      "WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < %d)"
      " INSERT INTO prefixes SELECT 'S' || printf('%%02d', (i * 17) %% 50), 'City ' || printf('%%03d', (i * "
      "31) %% 100)"
      " FROM c;"
      "ANALYZE;",
      (long long)nRow - 1, CKEY_N_PREFIX - 1);
  benchExec(db, zSql);
  sqlite3_free(zSql);

  {
    const BenchVariant aVar[] = {
        {BENCH_RELATIONAL, "relational: composite index (state, city, user_id) range",
         "SELECT n.user_id, n.visits FROM states JOIN norm n ON n.state = states.s", 0, 0},
        {BENCH_EXTENSION, "composite_scan: key range",
         "SELECT r.user_id, r.visits FROM states JOIN by_region r ON r.state = states.s", 0, 0},
        {BENCH_MODEL, "GLOB with the prefix built per row: no index",
         "SELECT substr(u.key, 14), u.visits FROM states JOIN user_stats u ON u.key GLOB states.s || ':*'", 0,
         0},
    };
    int64_t nOut = nRow / 5;
    snprintf(zSize, sizeof(zSize), "%lld rows, 10 of 50 states", (long long)nRow);
    benchCompare(p, "composite keys: prefix scan, per row", db, zSize, (double)nRow, "rows", (double)nOut,
                 "row", aVar, 3);
  }
  {
    const BenchVariant aVar[] = {
        {BENCH_RELATIONAL, "relational: composite index (state, city, user_id) range",
         "SELECT n.user_id, n.visits FROM prefixes p JOIN norm n ON n.state = p.s AND n.city = p.c", 0, 0},
        {BENCH_EXTENSION, "composite_scan: key range",
         "SELECT r.user_id, r.visits FROM prefixes p JOIN by_region r ON r.state = p.s AND r.city = p.c", 0,
         0},
        {BENCH_MODEL, "GLOB with the prefix built per row: no index",
         "SELECT substr(u.key, 14), u.visits FROM prefixes p JOIN user_stats u ON u.key GLOB p.s || ':' || "
         "p.c || ':*'",
         0, 0},
        {BENCH_MODEL, "LIKE prefix (cannot use the index)",
         "SELECT substr(u.key, 14), u.visits FROM prefixes p JOIN user_stats u ON u.key LIKE p.s || ':' || "
         "p.c || ':%'",
         0, 0},
    };
    snprintf(zSize, sizeof(zSize), "%lld rows, %d prefixes of ~%lld rows", (long long)nRow, CKEY_N_PREFIX,
             (long long)(nRow / 5000));
    benchCompare(p, "composite keys: selective prefix (state, city)", db, zSize, (double)nRow, "rows",
                 CKEY_N_PREFIX, "prefix", aVar, 4);
  }

  /* Clicks: nClick events of nUser users on 100 sites. */
  zSql = sqlite3_mprintf(
      "CREATE TABLE clicks(user_id INTEGER, site TEXT, ts INTEGER);"
      "WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < %lld)"
      " INSERT INTO clicks SELECT (i * 2654435761) %% %lld, 'site' || printf('%%03d', (i * 40503) %% 100 %% "
      "(1 + i %% 100)), i"
      " FROM c;"
      "CREATE TABLE clicks_by_site(k BLOB PRIMARY KEY) WITHOUT ROWID;"
      "INSERT INTO clicks_by_site SELECT ckey(site, user_id, ts) FROM clicks;"
      "CREATE TABLE clicks_by_user(k BLOB PRIMARY KEY) WITHOUT ROWID;"
      "INSERT INTO clicks_by_user SELECT ckey(user_id, site, ts) FROM clicks;"
      "CREATE VIRTUAL TABLE site_frames USING composite_scan(clicks_by_site, k, site TEXT, user_id INTEGER, "
      "ts INTEGER);"
      "CREATE VIRTUAL TABLE user_frames USING composite_scan(clicks_by_user, k, user_id INTEGER, site TEXT, "
      "ts INTEGER);",
      (long long)nClick - 1, (long long)nUser);
  benchExec(db, zSql);
  sqlite3_free(zSql);
  {
    const BenchVariant aVar[] = {
        {BENCH_RELATIONAL, "relational: COUNT(DISTINCT) GROUP BY site, no index",
         "SELECT site, count(DISTINCT user_id) FROM clicks GROUP BY site", 0, 0},
        {BENCH_EXTENSION, "site-prefixed keys: one pass, count_distinct_sorted",
         "SELECT site, count_distinct_sorted(user_id) FROM site_frames GROUP BY site", 0, 0},
        {BENCH_MODEL, "user-prefixed keys: one pass, then distinct pairs by site",
         "SELECT site, count(*) FROM (SELECT user_id, site FROM user_frames GROUP BY user_id, site) GROUP BY "
         "site",
         0, 0},
    };
    snprintf(zSize, sizeof(zSize), "%lld clicks, %lld users, 100 sites", (long long)nClick, (long long)nUser);
    benchCompare(p, "composite keys: unique users per site", db, zSize, (double)nClick, "clicks",
                 (double)nClick, "row", aVar, 3);
  }

  /* HyperLogLog: the distinct users of all clicks, exact vs estimated within 2.4%. */
  {
    CkeyHllArg arg;
    sqlite3_stmt *pStmt = NULL;
    int64_t i = 0, k;
    char *zExact, *zHll;
    arg.nVal = nClick;
    arg.aVal = (int64_t *)malloc(sizeof(int64_t) * (size_t)nClick);
    if (arg.aVal == NULL) exit(2);
    sqlite3_prepare_v2(db, "SELECT user_id FROM clicks", -1, &pStmt, 0);
    while (sqlite3_step(pStmt) == SQLITE_ROW && i < nClick) arg.aVal[i++] = sqlite3_column_int64(pStmt, 0);
    sqlite3_finalize(pStmt);
    /* The exact count the variants are checked against, computed apart from SQL. */
    {
      int64_t *aSorted = (int64_t *)malloc(sizeof(int64_t) * (size_t)nClick);
      if (aSorted == NULL) exit(2);
      memcpy(aSorted, arg.aVal, sizeof(int64_t) * (size_t)i);
      qsort(aSorted, (size_t)i, sizeof(int64_t), ckeyCmpInt64);
      arg.nExact = 0;
      for (k = 0; k < i; k++) arg.nExact += k == 0 || aSorted[k] != aSorted[k - 1];
      free(aSorted);
    }
    sqlite3_prepare_v2(db, "SELECT hll_count(user_id) FROM clicks", -1, &pStmt, 0);
    if (sqlite3_step(pStmt) == SQLITE_ROW) {
      printf("\nhll_count: %lld distinct, estimate %lld, error %.3f%% (p = 14, standard error 0.81%%)\n",
             (long long)arg.nExact, (long long)sqlite3_column_int64(pStmt, 0),
             100.0 * ((double)sqlite3_column_int64(pStmt, 0) - (double)arg.nExact) / (double)arg.nExact);
    }
    sqlite3_finalize(pStmt);
    zExact = sqlite3_mprintf("SELECT count(DISTINCT user_id) = %lld FROM clicks", (long long)arg.nExact);
    zHll = sqlite3_mprintf("SELECT abs(hll_count(user_id) - %lld) <= 0.024 * %lld FROM clicks",
                           (long long)arg.nExact, (long long)arg.nExact);
    {
      const BenchVariant aVar[] = {
          {BENCH_RELATIONAL, "relational: COUNT(DISTINCT)", zExact, 0, 0},
          {BENCH_EXTENSION, "hll_count (SQL aggregate over the table)", zHll, 0, 0},
          {BENCH_C, "hll C core (hllAdd on in-memory values)", 0, ckeyHllKernel, &arg},
      };
      snprintf(zSize, sizeof(zSize), "%lld values, %lld distinct", (long long)nClick, (long long)arg.nExact);
      benchCompare(p, "composite keys: distinct count, exact vs HyperLogLog", db, zSize, (double)nClick,
                   "values", (double)nClick, "row", aVar, 3);
    }
    sqlite3_free(zExact);
    sqlite3_free(zHll);
    free(arg.aVal);
  }

  /* Counters: autocommit (each call commits) and inside one transaction. */
  {
    int64_t nCall = benchSize(p, 200000, 1000);
    static const char zUpsert[] =
        "INSERT INTO seq VALUES (?1, 1) ON CONFLICT(name) DO UPDATE SET value = value + 1 RETURNING value";
    char *zMany = sqlite3_mprintf(
        "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < %lld) "
        "SELECT kv_incr(?1) FROM c",
        (long long)nCall);
    CkeyIncrArg aArg[5] = {
        {zUpsert, "a", nCall, 0, 0, 0}, {"SELECT kv_incr(?1)", "b", nCall, 0, 0, 0},
        {zUpsert, "c", nCall, 1, 0, 0}, {"SELECT kv_incr(?1)", "d", nCall, 1, 0, 0},
        {zMany, "e", nCall, 1, 1, 0},
    };
    benchExec(db, "CREATE TABLE seq(name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID");
    {
      const BenchVariant aVar[] = {
          {BENCH_RELATIONAL, "relational: upsert ... RETURNING, a statement per call, autocommit", 0,
           ckeyIncrLoop, &aArg[0]},
          {BENCH_EXTENSION, "kv_incr: a statement per call, autocommit", 0, ckeyIncrLoop, &aArg[1]},
          {BENCH_RELATIONAL, "relational: upsert ... RETURNING, a statement per call, one transaction", 0,
           ckeyIncrLoop, &aArg[2]},
          {BENCH_EXTENSION, "kv_incr: a statement per call, one transaction", 0, ckeyIncrLoop, &aArg[3]},
          {BENCH_EXTENSION, "kv_incr: all calls in one statement, one transaction", 0, ckeyIncrLoop,
           &aArg[4]},
      };
      snprintf(zSize, sizeof(zSize), "%lld increments, in memory", (long long)nCall);
      benchCompare(p, "composite keys: counters", db, zSize, (double)nCall, "calls", (double)nCall, "call",
                   aVar, 5);
    }
    sqlite3_free(zMany);
  }
  sqlite3_close(db);
}
