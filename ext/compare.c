/*
** compare.c: two queries side by side on the user's own data.
**
**   SELECT * FROM nosql_compare(query_a, query_b [, runs [, label_a, label_b]]);
**
** prepares both queries on the calling connection, runs each once to warm
** the cache and read its answer, then runs them alternately (a, b, a, b,
** ...) runs times more (default 5, at most 1000), timing each run with the
** monotonic clock. It returns two rows, query a's then query b's:
**
**   CREATE TABLE nosql_compare(
**     query,           -- the query's text, as given
**     rows,            -- rows it returned (in the warm-up run)
**     agree,           -- 1 when both returned the same rows, else 0 (same on both rows)
**     median_us,       -- median time of the timed runs, microseconds (REAL)
**     min_us, max_us,  -- fastest and slowest timed run, microseconds
**     vm_steps,        -- sqlite3_stmt_status() counters of the last timed run:
**     fullscan_steps,  --   VM_STEP, FULLSCAN_STEP, SORT (the statement's own,
**     sort_steps,      --   not those of statements a virtual table runs)
**     ratio,           -- median_us / query a's median_us, 3 significant digits
**                      --   (NULL when query a's median_us is 0)
**     label,           -- label_a or label_b: a short name for the row ('a', 'b' when not given)
**     query_a HIDDEN, query_b HIDDEN, runs HIDDEN,  -- the arguments
**     label_a HIDDEN, label_b HIDDEN
**   );
**
** How it works. Each query must be one read-only statement that returns
** rows and starts with SELECT, WITH or VALUES (sqlite3_stmt_readonly,
** nothing after it but spaces and comments) and has no parameters (there
** is nothing to bind them to). The warm-up run reads every row and keeps
** only a summary of the answer, never the rows, so a result larger than
** memory compares as well as a small one:
**
**   - each row hashes to 64 bits: the column count, then per value its
**     type and its contents (integers as 64-bit values, reals by their
**     IEEE bits, text and blobs byte by byte), so 1, 1.0 and '1' differ;
**   - the answer is (count, sum of mixed row hashes, xor of row hashes):
**     the same whatever order the rows come in, so two answers agree when
**     they are the same multiset of rows;
**   - when both queries end with a top-level ORDER BY (one at parenthesis
**     depth 0 of the statement text, not one inside a subquery, a window
**     or an aggregate), order counts too: a chained hash of the rows in
**     their order is compared as well.
**
** Two different answers agree by accident only if their 64-bit summaries
** collide, a chance of about 2^-64 per comparison. Reals compare by their
** bits: 0.0 and -0.0 disagree. The timed runs only step the statement (the
** values are not read), so the hashing is not part of the times.
**
** The function is SQLITE_DIRECTONLY (no use in views or triggers): it runs
** SQL the caller wrote. sqlite3_interrupt() and the progress handler stop
** it between or inside runs with SQLITE_INTERRUPT. Functions with side
** effects that a SELECT calls (kv_incr, say) still run: the read-only check
** is SQLite's, which looks at the statement, not at what its functions do.
*/
#include "nosqlInt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct cmp_cursor cmp_cursor;
typedef struct cmp_vtab cmp_vtab;
typedef struct CmpQuery CmpQuery;

#define CMP_RUNS_DEFAULT 5
#define CMP_RUNS_MAX 1000

/* Columns, in declaration order. */
#define CMP_COL_QUERY 0
#define CMP_COL_ROWS 1
#define CMP_COL_AGREE 2
#define CMP_COL_MEDIAN 3
#define CMP_COL_MIN 4
#define CMP_COL_MAX 5
#define CMP_COL_VM 6
#define CMP_COL_FULLSCAN 7
#define CMP_COL_SORT 8
#define CMP_COL_RATIO 9
#define CMP_COL_LABEL 10
#define CMP_COL_QUERY_A 11 /* First hidden column; then query_b, runs, label_a, label_b */
#define CMP_N_ARG 5        /* Hidden columns: the arguments */

/* One of the two queries: its statement and what its runs measured. */
struct CmpQuery {
  sqlite3_stmt *pStmt; /* The prepared query; finalized when the filter ends */
  int bOrdered;        /* The text ends with a top-level ORDER BY */
  sqlite3_int64 nRow;  /* Rows of the warm-up run */
  sqlite3_uint64 hSum; /* Sum of the mixed row hashes */
  sqlite3_uint64 hXor; /* Xor of the row hashes */
  sqlite3_uint64 hSeq; /* Chained hash of the rows in order */
  sqlite3_int64 *aNs;  /* Nanoseconds of each timed run (sqlite3_malloc64) */
  sqlite3_int64 nVm;   /* SQLITE_STMTSTATUS_VM_STEP of the last timed run */
  sqlite3_int64 nFull; /* SQLITE_STMTSTATUS_FULLSCAN_STEP of the last timed run */
  sqlite3_int64 nSort; /* SQLITE_STMTSTATUS_SORT of the last timed run */
  double rMedian;      /* Median of aNs[], microseconds */
  double rMin;         /* Fastest run, microseconds */
  double rMax;         /* Slowest run, microseconds */
};

/* The table: the connection the queries run on. */
struct cmp_vtab {
  sqlite3_vtab base; /* Base class - must be first */
  sqlite3 *db;       /* The calling connection */
};

/* The cursor: the two measured queries and the row it is on. */
struct cmp_cursor {
  sqlite3_vtab_cursor base;        /* Base class - must be first */
  CmpQuery aQ[2];                  /* Query a, query b */
  int bAgree;                      /* The answers agree */
  int nRuns;                       /* Timed runs of each query */
  int iRow;                        /* 0 or 1; 2 at EOF */
  sqlite3_value *apArg[CMP_N_ARG]; /* Copies of query_a, query_b, runs, label_a, label_b (or NULL) */
};

/**************************************************************************
** The pure core: the statement text's tokens, the row hash, the clock.
*/

/* True for a byte that continues an identifier or keyword. */
static int cmpIsIdChar(unsigned char c) {
  return c >= 0x80 || c == '_' || c == '$' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
         (c >= 'A' && c <= 'Z');
}

/*
** The length of the token at z (never 0 before the end), SQLite's rules:
** spaces and comments are one token each, so are quoted strings and
** identifiers ('..', "..", `..`, [..]) and words; anything else is one
** byte. *pbWord is set for a word (a keyword or a bare identifier),
** *pbSpace for spaces and comments.
*/
static int cmpToken(const char *z, int *pbWord, int *pbSpace) {
  int n = 1;
  unsigned char c = (unsigned char)z[0];
  *pbWord = *pbSpace = 0;
  if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
    while (z[n] == ' ' || z[n] == '\t' || z[n] == '\n' || z[n] == '\r' || z[n] == '\f') n++;
    *pbSpace = 1;
  } else if (c == '-' && z[1] == '-') {
    while (z[n] && z[n] != '\n') n++;
    *pbSpace = 1;
  } else if (c == '/' && z[1] == '*') {
    n = 2;
    while (z[n] && !(z[n] == '*' && z[n + 1] == '/')) n++;
    n = z[n] ? n + 2 : n;
    *pbSpace = 1;
  } else if (c == '\'' || c == '"' || c == '`' || c == '[') {
    char cEnd = c == '[' ? ']' : (char)c;
    for (;;) {
      if (z[n] == 0) break;
      if (z[n] == cEnd) {
        if (cEnd != ']' && z[n + 1] == cEnd) {
          n += 2;
          continue;
        }
        n++;
        break;
      }
      n++;
    }
  } else if (cmpIsIdChar(c)) {
    while (cmpIsIdChar((unsigned char)z[n])) n++;
    *pbWord = 1;
  }
  return n;
}

/* True when word z[0..n) is the keyword zKw (upper case), in any case. */
static int cmpIsKeyword(const char *z, int n, const char *zKw) {
  return (int)strlen(zKw) == n && sqlite3_strnicmp(z, zKw, n) == 0;
}

/*
** True when the statement text z ends with an ORDER BY of its own: the
** words ORDER BY at parenthesis depth 0. Every other ORDER BY (in a
** subquery, a CTE, a window, an aggregate's arguments) is inside
** parentheses, and a compound SELECT has its one ORDER BY at the end.
*/
static int cmpHasOrderBy(const char *z) {
  int nDepth = 0, bOrder = 0, bFound = 0;
  while (*z) {
    int bWord, bSpace, n = cmpToken(z, &bWord, &bSpace);
    if (!bSpace) {
      if (z[0] == '(') {
        nDepth++;
      } else if (z[0] == ')') {
        nDepth--;
      } else if (bWord && nDepth == 0 && bOrder && cmpIsKeyword(z, n, "BY")) {
        bFound = 1;
      }
      bOrder = bWord && nDepth == 0 && cmpIsKeyword(z, n, "ORDER");
    }
    z += n;
  }
  return bFound;
}

/* True when the first word of z (after spaces and comments) is SELECT, WITH or VALUES. */
static int cmpIsSelect(const char *z) {
  while (*z) {
    int bWord, bSpace, n = cmpToken(z, &bWord, &bSpace);
    if (!bSpace) {
      return bWord &&
             (cmpIsKeyword(z, n, "SELECT") || cmpIsKeyword(z, n, "WITH") || cmpIsKeyword(z, n, "VALUES"));
    }
    z += n;
  }
  return 0;
}

/* splitmix64's finalizer: every input bit moves every output bit. */
static sqlite3_uint64 cmpMix(sqlite3_uint64 x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

/* Hash n bytes at a into h, eight at a time. */
static sqlite3_uint64 cmpHashBytes(sqlite3_uint64 h, const unsigned char *a, int n) {
  int i = 0;
  h = cmpMix(h ^ (sqlite3_uint64)n);
  for (; i + 8 <= n; i += 8) {
    sqlite3_uint64 w;
    memcpy(&w, &a[i], 8);
    h = cmpMix(h ^ w);
  }
  if (i < n) {
    sqlite3_uint64 w = 0;
    memcpy(&w, &a[i], (size_t)(n - i));
    h = cmpMix(h ^ w ^ 0x80ULL);
  }
  return h;
}

/* The hash of the statement's current row: column count, then each value's type and contents. */
static sqlite3_uint64 cmpRowHash(sqlite3_stmt *pStmt) {
  int i, nCol = sqlite3_column_count(pStmt);
  sqlite3_uint64 h = cmpMix(0x6e6f73716cULL ^ (sqlite3_uint64)nCol);
  for (i = 0; i < nCol; i++) {
    int eType = sqlite3_column_type(pStmt, i);
    h = cmpMix(h ^ ((sqlite3_uint64)eType * 0x9e3779b97f4a7c15ULL));
    switch (eType) {
      case SQLITE_INTEGER:
        h = cmpMix(h ^ (sqlite3_uint64)sqlite3_column_int64(pStmt, i));
        break;
      case SQLITE_FLOAT: {
        double r = sqlite3_column_double(pStmt, i);
        sqlite3_uint64 w;
        memcpy(&w, &r, 8);
        h = cmpMix(h ^ w);
        break;
      }
      case SQLITE_TEXT:
        /* sqlite3_column_text then _bytes: the text's UTF-8 length */
        h = cmpHashBytes(h, sqlite3_column_text(pStmt, i), sqlite3_column_bytes(pStmt, i));
        break;
      case SQLITE_BLOB:
        h = cmpHashBytes(h, (const unsigned char *)sqlite3_column_blob(pStmt, i),
                         sqlite3_column_bytes(pStmt, i));
        break;
      default:
        break;
    }
  }
  return h;
}

/* The monotonic clock, in nanoseconds. */
static sqlite3_int64 cmpNow(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (sqlite3_int64)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmpNsCompare(const void *a, const void *b) {
  sqlite3_int64 x = *(const sqlite3_int64 *)a, y = *(const sqlite3_int64 *)b;
  return x < y ? -1 : (x > y);
}

/* Sort the n > 0 run times of pQ and set its median, min and max (microseconds). */
static void cmpStats(CmpQuery *pQ, int n) {
  qsort(pQ->aNs, (size_t)n, sizeof(pQ->aNs[0]), cmpNsCompare);
  pQ->rMin = (double)pQ->aNs[0] / 1000.0;
  pQ->rMax = (double)pQ->aNs[n - 1] / 1000.0;
  pQ->rMedian =
      n % 2 ? (double)pQ->aNs[n / 2] / 1000.0 : ((double)pQ->aNs[n / 2 - 1] + pQ->aNs[n / 2]) / 2000.0;
}

/*
** r rounded to 3 significant digits (2.47, 0.0312, 1230): the ratio of two
** medians that move 10-30% between runs has no more to say. Scaled by an
** exact power of ten, so that 1230 is 1230.0, not 1229.9999999999998.
*/
static double cmpRound3(double r) {
  int e;
  if (!(r > 0) || r > 1e300) return r;
  e = (int)floor(log10(r)) - 2; /* r / 10^e is in [100, 1000) */
  return e >= 0 ? round(r / pow(10.0, e)) * pow(10.0, e) : round(r * pow(10.0, -e)) / pow(10.0, -e);
}

/**************************************************************************
** The SQL glue.
*/

static int cmpConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                      char **pzErr) {
  int rc;
  (void)pAux;
  (void)argc;
  (void)argv;
  (void)pzErr;
  rc = nosqlVtabNew(db,
                    "CREATE TABLE x(query, rows, agree, median_us, min_us, max_us, vm_steps, fullscan_steps, "
                    "sort_steps, ratio, label, query_a HIDDEN, query_b HIDDEN, runs HIDDEN, label_a HIDDEN, "
                    "label_b HIDDEN)",
                    sizeof(cmp_vtab), ppVtab);
  if (rc == SQLITE_OK) ((cmp_vtab *)*ppVtab)->db = db;
  /* It runs the caller's SQL: never from a view, a trigger or the schema
  ** (this overrides the innocuous mark nosqlVtabNew sets). */
  if (rc == SQLITE_OK) sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
  return rc;
}

/* The plan (ext/plan.c): slots a to e are query_a, query_b (required), runs, label_a and label_b, equalities
 * in any collation. */
static const NosqlPlanCol aCmpPlan[CMP_N_ARG] = {
    {CMP_COL_QUERY_A, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 1},
    {CMP_COL_QUERY_A + 1, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 1},
    {CMP_COL_QUERY_A + 2, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0},
    {CMP_COL_QUERY_A + 3, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0},
    {CMP_COL_QUERY_A + 4, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0},
};

static int cmpBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo) {
  (void)pVtab;
  /* Costly: it runs both queries 1 + runs times. */
  return nosqlPlanInputs(pInfo, aCmpPlan, CMP_N_ARG, 1e6, 2);
}

static int cmpOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor) {
  cmp_cursor *pCur = (cmp_cursor *)nosqlCursorNew(sizeof(cmp_cursor), ppCursor);
  (void)pVtab;
  if (pCur == NULL) return SQLITE_NOMEM;
  pCur->iRow = 2;
  return SQLITE_OK;
}

/* Finalize both statements and free the run times. */
static void cmpQueriesFree(cmp_cursor *pCur) {
  int i;
  for (i = 0; i < 2; i++) {
    sqlite3_finalize(pCur->aQ[i].pStmt);
    sqlite3_free(pCur->aQ[i].aNs);
    memset(&pCur->aQ[i], 0, sizeof(pCur->aQ[i]));
  }
}

static int cmpClose(sqlite3_vtab_cursor *pCursor) {
  cmp_cursor *pCur = (cmp_cursor *)pCursor;
  cmpQueriesFree(pCur);
  nosqlPlanKeepFree(pCur->apArg, CMP_N_ARG);
  sqlite3_free(pCur);
  return SQLITE_OK;
}

/*
** Prepare the one statement of pArg into *ppStmt for the function that
** zWho names ("nosql_compare: query a"): not NULL, not empty, nothing after
** it but spaces and comments. *pnSql is the length of the statement's text
** (its tail cut). SQLITE_OK, or an error code with the message in pVtab.
*/
static int cmpPrepareOne(sqlite3_vtab *pVtab, sqlite3 *db, const char *zWho, sqlite3_value *pArg,
                         sqlite3_stmt **ppStmt, int *pnSql) {
  const char *zSql = (const char *)sqlite3_value_text(pArg);
  const char *zTail = NULL;
  char *zQuoted;
  int rc;
  *ppStmt = NULL;
  if (sqlite3_value_type(pArg) == SQLITE_NULL) {
    nosqlVtabError(pVtab, "%s is NULL", zWho);
    return SQLITE_ERROR;
  }
  if (zSql == NULL) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(db, zSql, sqlite3_value_bytes(pArg), ppStmt, &zTail);
  if (rc != SQLITE_OK) {
    if (rc == SQLITE_NOMEM || sqlite3_errcode(db) == SQLITE_NOMEM) return SQLITE_NOMEM;
    nosqlVtabError(pVtab, "%s: %s", zWho, sqlite3_errmsg(db));
    return rc;
  }
  *pnSql = zTail ? (int)(zTail - zSql) : sqlite3_value_bytes(pArg);
  zQuoted = nosqlValueQuote(pArg);
  if (zQuoted == NULL) return SQLITE_NOMEM;
  rc = SQLITE_ERROR;
  if (*ppStmt == NULL) {
    nosqlVtabError(pVtab, "%s is empty: %s", zWho, zQuoted);
    goto done;
  }
  /* Whatever follows must prepare to nothing: spaces and comments only. */
  if (zTail && zTail[0]) {
    sqlite3_stmt *pNext = NULL;
    int rc2 = sqlite3_prepare_v2(db, zTail, -1, &pNext, 0);
    sqlite3_finalize(pNext);
    if (rc2 == SQLITE_NOMEM) {
      rc = SQLITE_NOMEM;
      goto done;
    }
    if (rc2 != SQLITE_OK || pNext != NULL) {
      nosqlVtabError(pVtab, "%s holds more than one statement: %s", zWho, zQuoted);
      goto done;
    }
  }
  rc = SQLITE_OK;
done:
  sqlite3_free(zQuoted);
  return rc;
}

/*
** Prepare query c ('a' or 'b') from pArg into pQ->pStmt, checking every
** rule of the header comment. SQLITE_OK, or an error code with the
** message in pVtab.
*/
static int cmpPrepare(sqlite3_vtab *pVtab, sqlite3 *db, char c, sqlite3_value *pArg, CmpQuery *pQ) {
  char zWho[32];
  char *zQuoted;
  int rc, nSql;
  sqlite3_snprintf(sizeof(zWho), zWho, "nosql_compare: query %c", c);
  rc = cmpPrepareOne(pVtab, db, zWho, pArg, &pQ->pStmt, &nSql);
  if (rc != SQLITE_OK) return rc;
  zQuoted = nosqlValueQuote(pArg);
  if (zQuoted == NULL) return SQLITE_NOMEM;
  rc = SQLITE_ERROR;
  if (!sqlite3_stmt_readonly(pQ->pStmt) || sqlite3_column_count(pQ->pStmt) == 0 ||
      !cmpIsSelect((const char *)sqlite3_value_text(pArg))) {
    nosqlVtabError(pVtab, "%s is not a read-only SELECT: %s", zWho, zQuoted);
  } else if (sqlite3_bind_parameter_count(pQ->pStmt) > 0) {
    nosqlVtabError(pVtab, "%s has parameters, which nothing binds (write the values into it): %s", zWho,
                   zQuoted);
  } else {
    pQ->bOrdered = cmpHasOrderBy((const char *)sqlite3_value_text(pArg));
    rc = SQLITE_OK;
  }
  sqlite3_free(zQuoted);
  return rc;
}

/*
** One run of query c: step to the end, hashing the rows when bHash (the
** warm-up run), else timing it into *pnNs with the counters. SQLITE_OK or
** the error (SQLITE_INTERRUPT included) with the message in pVtab.
*/
static int cmpRun(sqlite3_vtab *pVtab, sqlite3 *db, char c, CmpQuery *pQ, int bHash, sqlite3_int64 *pnNs) {
  sqlite3_stmt *pStmt = pQ->pStmt;
  sqlite3_int64 t0, nRow = 0;
  int rc;
  sqlite3_stmt_status(pStmt, SQLITE_STMTSTATUS_VM_STEP, 1);
  sqlite3_stmt_status(pStmt, SQLITE_STMTSTATUS_FULLSCAN_STEP, 1);
  sqlite3_stmt_status(pStmt, SQLITE_STMTSTATUS_SORT, 1);
  t0 = cmpNow();
  while ((rc = sqlite3_step(pStmt)) == SQLITE_ROW) {
    nRow++;
    if (bHash) {
      sqlite3_uint64 h = cmpRowHash(pStmt);
      if (sqlite3_errcode(db) == SQLITE_NOMEM) {
        rc = SQLITE_NOMEM; /* A value's conversion to text ran out of memory */
        break;
      }
      pQ->hSum += cmpMix(h ^ 0x5bd1e995ULL);
      pQ->hXor ^= h;
      pQ->hSeq = cmpMix(pQ->hSeq ^ h) + 0x9e3779b97f4a7c15ULL;
    }
  }
  if (pnNs) *pnNs = cmpNow() - t0;
  sqlite3_reset(pStmt);
  if (rc != SQLITE_DONE) {
    if (rc == SQLITE_NOMEM) return SQLITE_NOMEM;
    nosqlVtabError(pVtab, "nosql_compare: query %c: %s", c, sqlite3_errmsg(db));
    return rc;
  }
  if (bHash) pQ->nRow = nRow;
  pQ->nVm = sqlite3_stmt_status(pStmt, SQLITE_STMTSTATUS_VM_STEP, 0);
  pQ->nFull = sqlite3_stmt_status(pStmt, SQLITE_STMTSTATUS_FULLSCAN_STEP, 0);
  pQ->nSort = sqlite3_stmt_status(pStmt, SQLITE_STMTSTATUS_SORT, 0);
  return SQLITE_OK;
}

static int cmpFilter(sqlite3_vtab_cursor *pCursor, int idxNum, const char *idxStr, int argc,
                     sqlite3_value **argv) {
  cmp_cursor *pCur = (cmp_cursor *)pCursor;
  sqlite3_vtab *pVtab = pCursor->pVtab;
  sqlite3 *db;
  NosqlPlanArg aArg[CMP_N_ARG];
  int rc, i, k;
  (void)idxNum;
  cmpQueriesFree(pCur);
  pCur->iRow = 2;
  if (nosqlPlanInputArgs(pVtab, "nosql_compare(query_a, query_b[, runs[, label_a, label_b]])", aCmpPlan,
                         CMP_N_ARG, idxStr, argc, argv, aArg) != SQLITE_OK) {
    return SQLITE_ERROR;
  }
  if (nosqlPlanKeep(aArg, CMP_N_ARG, pCur->apArg) != SQLITE_OK) return SQLITE_NOMEM;
  /* A label is text, or NULL for the default ('a', 'b'). */
  for (i = 3; i < CMP_N_ARG; i++) {
    int eType = aArg[i].pEq ? sqlite3_value_type(aArg[i].pEq) : SQLITE_NULL;
    if (eType != SQLITE_NULL && eType != SQLITE_TEXT) {
      char *zQuoted = nosqlValueQuote(aArg[i].pEq);
      if (zQuoted == NULL) return SQLITE_NOMEM;
      nosqlVtabError(pVtab, "nosql_compare: label_%c must be text, not %s", 'a' + i - 3, zQuoted);
      sqlite3_free(zQuoted);
      return SQLITE_ERROR;
    }
  }
  pCur->nRuns = CMP_RUNS_DEFAULT;
  if (aArg[2].pEq) {
    sqlite3_int64 n = sqlite3_value_int64(aArg[2].pEq);
    if (sqlite3_value_type(aArg[2].pEq) != SQLITE_INTEGER || n < 1 || n > CMP_RUNS_MAX) {
      char *zQuoted = nosqlValueQuote(aArg[2].pEq);
      if (zQuoted == NULL) return SQLITE_NOMEM;
      nosqlVtabError(pVtab, "nosql_compare: runs must be an integer in [1, %d], not %s", CMP_RUNS_MAX,
                     zQuoted);
      sqlite3_free(zQuoted);
      return SQLITE_ERROR;
    }
    pCur->nRuns = (int)n;
  }
  db = ((cmp_vtab *)pVtab)->db;
  rc = SQLITE_OK;
  for (i = 0; rc == SQLITE_OK && i < 2; i++) {
    rc = cmpPrepare(pVtab, db, (char)('a' + i), aArg[i].pEq, &pCur->aQ[i]);
    if (rc == SQLITE_OK) {
      pCur->aQ[i].aNs =
          (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * (sqlite3_uint64)pCur->nRuns);
      if (pCur->aQ[i].aNs == NULL) rc = SQLITE_NOMEM;
    }
  }
  /* The warm-up runs read the answers; then a, b, a, b, ... timed. */
  for (i = 0; rc == SQLITE_OK && i < 2; i++) {
    rc = cmpRun(pVtab, db, (char)('a' + i), &pCur->aQ[i], 1, NULL);
  }
  for (k = 0; rc == SQLITE_OK && k < 2 * pCur->nRuns; k++) {
    rc = cmpRun(pVtab, db, (char)('a' + k % 2), &pCur->aQ[k % 2], 0, &pCur->aQ[k % 2].aNs[k / 2]);
  }
  if (rc == SQLITE_OK) {
    const CmpQuery *pA = &pCur->aQ[0], *pB = &pCur->aQ[1];
    for (i = 0; i < 2; i++) cmpStats(&pCur->aQ[i], pCur->nRuns);
    pCur->bAgree = pA->nRow == pB->nRow && pA->hSum == pB->hSum && pA->hXor == pB->hXor &&
                   (!(pA->bOrdered && pB->bOrdered) || pA->hSeq == pB->hSeq);
    pCur->iRow = 0;
  }
  /* The statements are done with: finalized now, not at xClose, so that
  ** nothing of the caller's queries stays open between rows. */
  for (i = 0; i < 2; i++) {
    sqlite3_finalize(pCur->aQ[i].pStmt);
    pCur->aQ[i].pStmt = NULL;
  }
  return rc;
}

static int cmpNext(sqlite3_vtab_cursor *pCursor) {
  ((cmp_cursor *)pCursor)->iRow++;
  return SQLITE_OK;
}

static int cmpEof(sqlite3_vtab_cursor *pCursor) { return ((cmp_cursor *)pCursor)->iRow > 1; }

static int cmpColumn(sqlite3_vtab_cursor *pCursor, sqlite3_context *ctx, int iCol) {
  cmp_cursor *pCur = (cmp_cursor *)pCursor;
  const CmpQuery *pQ = &pCur->aQ[pCur->iRow];
  switch (iCol) {
    case CMP_COL_QUERY:
      nosqlPlanKeptResult(ctx, pCur->apArg[pCur->iRow]);
      break;
    case CMP_COL_ROWS:
      sqlite3_result_int64(ctx, pQ->nRow);
      break;
    case CMP_COL_AGREE:
      sqlite3_result_int(ctx, pCur->bAgree);
      break;
    case CMP_COL_MEDIAN:
      sqlite3_result_double(ctx, pQ->rMedian);
      break;
    case CMP_COL_MIN:
      sqlite3_result_double(ctx, pQ->rMin);
      break;
    case CMP_COL_MAX:
      sqlite3_result_double(ctx, pQ->rMax);
      break;
    case CMP_COL_VM:
      sqlite3_result_int64(ctx, pQ->nVm);
      break;
    case CMP_COL_FULLSCAN:
      sqlite3_result_int64(ctx, pQ->nFull);
      break;
    case CMP_COL_SORT:
      sqlite3_result_int64(ctx, pQ->nSort);
      break;
    case CMP_COL_RATIO:
      if (pCur->aQ[0].rMedian > 0) sqlite3_result_double(ctx, cmpRound3(pQ->rMedian / pCur->aQ[0].rMedian));
      break;
    case CMP_COL_LABEL: {
      sqlite3_value *pLabel = pCur->apArg[3 + pCur->iRow];
      if (pLabel && sqlite3_value_type(pLabel) == SQLITE_TEXT) {
        nosqlPlanKeptResult(ctx, pLabel);
      } else {
        sqlite3_result_text(ctx, pCur->iRow ? "b" : "a", 1, SQLITE_STATIC);
      }
      break;
    }
    case CMP_COL_QUERY_A + 2: /* runs: the argument, or the default used */
      if (pCur->apArg[2]) {
        nosqlPlanKeptResult(ctx, pCur->apArg[2]);
      } else {
        sqlite3_result_int(ctx, pCur->nRuns);
      }
      break;
    default: /* query_a, query_b, label_a, label_b: the arguments (NULL when not given) */
      nosqlPlanKeptResult(ctx, pCur->apArg[iCol - CMP_COL_QUERY_A]);
      break;
  }
  return SQLITE_OK;
}

static int cmpRowid(sqlite3_vtab_cursor *pCursor, sqlite_int64 *pRowid) {
  *pRowid = ((cmp_cursor *)pCursor)->iRow + 1;
  return SQLITE_OK;
}

/* An eponymous-only table-valued function: no xCreate, no writes. */
static sqlite3_module cmpModule = {
    0,             /* iVersion */
    0,             /* xCreate */
    cmpConnect,    /* xConnect */
    cmpBestIndex,  /* xBestIndex */
    nosqlVtabFree, /* xDisconnect */
    0,             /* xDestroy */
    cmpOpen,       /* xOpen */
    cmpClose,      /* xClose */
    cmpFilter,     /* xFilter */
    cmpNext,       /* xNext */
    cmpEof,        /* xEof */
    cmpColumn,     /* xColumn */
    cmpRowid,      /* xRowid */
    0,             /* xUpdate */
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
** nosql_explain(query): the plan of a query, with the plan each of this
** extension's virtual tables chose in words.
**
**   CREATE TABLE nosql_explain(
**     id, parent,      -- EXPLAIN QUERY PLAN's step ids (they move between SQLite versions)
**     detail,          -- its text, e.g. "SCAN u VIRTUAL TABLE INDEX 0:a= by a+"
**     module,          -- for a virtual table step: the module, else NULL
**     plan_words,      -- for a step of this extension's modules: its plan in words, else NULL
**     query HIDDEN     -- the argument
**   );
**
** How it works. The query is prepared once (one statement, its errors
** named "nosql_explain: query: ..."), then "EXPLAIN QUERY PLAN <query>"
** is stepped; nothing runs. A virtual table step's detail reads
** "SCAN <name> VIRTUAL TABLE INDEX <idxNum>:<idxStr>", where <name> may be
** an alias, and an alias may be the name of another table. So the table
** is found from the bytecode: "EXPLAIN <query>" lists each VFilter with
** its cursor, idxStr and the register holding idxNum, and each cursor's
** VOpen with "vtab:<address>" (the sqlite3_vtab, one per table and
** connection). The EXPLAIN QUERY PLAN program is the same program with an
** Explain op before each step's code (its id is that op's address), so an
** EXPLAIN address maps to the plan's by counting the ids below it; walking
** both in address order, each VFilter closes the latest open virtual table
** step (a subquery in the step's constraints nests inside it), and must
** carry that step's idxNum and idxStr. The address then names the table:
** "EXPLAIN SELECT 1 FROM schema.table" of each virtual table of each
** schema shows its own. An address that is no table's is an eponymous
** table (a table-valued function), looked up by its name or, for an
** alias, in the query text as "<function>(...) [AS] <name>". When the
** bytecode does not pair up (nothing known does that, but SQLite may
** change), every step falls back to the name: a table or "schema.table",
** else an alias in the text, "<table> [AS] <name>" or "<function>(...)
** [AS] <name>". The table's module comes from its CREATE VIRTUAL TABLE
** statement in the schema; a name that is a module is the eponymous table
** of that module. Then the module's entry in aExplainModule[] words idxStr
** and idxNum; the slot
** codes are ext/plan.c's (nosqlPlanWords), the rest each module's plan
** encoding (the comments above their xBestIndex). A new module of the
** extension needs an entry there (tests/core/explain.test pins the words).
*/

typedef struct ExplainRow ExplainRow;
typedef struct ExplainStep ExplainStep;
typedef struct explain_cursor explain_cursor;

/* One row of the result. */
struct ExplainRow {
  sqlite3_int64 iId;     /* EXPLAIN QUERY PLAN's id */
  sqlite3_int64 iParent; /* Its parent id */
  char *zDetail;         /* Its detail text (sqlite3_malloc64) */
  char *zModule;         /* The virtual table's module, or NULL */
  char *zWords;          /* The plan in words, or NULL */
  char *zVtab;           /* "vtab:<address>" of the table a virtual table step reads, or NULL */
};

/* The cursor: every row, computed by xFilter. */
struct explain_cursor {
  sqlite3_vtab_cursor base; /* Base class - must be first */
  ExplainRow *aRow;         /* The rows */
  int nRow;                 /* Rows in aRow */
  int nAlloc;               /* Slots in aRow */
  int iRow;                 /* Current row */
  sqlite3_value *apArg[1];  /* Copy of query, for the hidden column */
};

/* The virtual tables of every schema, each with the address its VOpen shows. */
typedef struct ExplainProbe ExplainProbe;
struct ExplainProbe {
  int bLoaded; /* The tables were read */
  char **az;   /* Three strings per table: schema, name, "vtab:<address>" */
  int n;       /* Tables in az */
};

/* One virtual table step being worded. */
struct ExplainStep {
  sqlite3 *db;         /* The connection */
  const char *zModule; /* Its module */
  const char *zSchema; /* Schema of the table ("main", ...), or NULL for an eponymous table */
  const char *zTable;  /* The table (the module for an eponymous table) */
  const char *zArgs;   /* The module arguments of its CREATE VIRTUAL TABLE, or "" */
  int idxNum;          /* The plan's idxNum */
  const char *zIdx;    /* The plan's idxStr ("" for none) */
  const char *zTail;   /* Text of idxStr after the codes and a space, or "" */
  int bCodes;          /* idxStr has slot codes */
  NosqlBuffer *pOut;   /* The words */
  int rc;              /* Sticky error code */
};

/* The first column of every row of zSql (which it frees), as an array of copies (sqlite3_malloc64); errors in
 * p->rc. */
static char **explainNames(ExplainStep *p, char *zSql, int *pnName) {
  sqlite3_stmt *pStmt = NULL;
  char **az = NULL;
  int n = 0;
  *pnName = 0;
  if (zSql == NULL) {
    p->rc = SQLITE_NOMEM;
    return NULL;
  }
  if (p->rc == SQLITE_OK) p->rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  while (p->rc == SQLITE_OK && n < NOSQL_PLAN_MAX_COL && (p->rc = sqlite3_step(pStmt)) == SQLITE_ROW) {
    p->rc = SQLITE_OK;
    char **azNew = (char **)sqlite3_realloc64(az, sizeof(char *) * (sqlite3_uint64)(n + 1));
    if (azNew == NULL) {
      p->rc = SQLITE_NOMEM;
      break;
    }
    az = azNew;
    az[n] = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(pStmt, 0));
    if (az[n] == NULL) {
      p->rc = SQLITE_NOMEM;
      break;
    }
    n++;
  }
  if (p->rc == SQLITE_DONE) p->rc = SQLITE_OK;
  sqlite3_finalize(pStmt);
  *pnName = n;
  return az;
}

static void explainNamesFree(char **az, int n) {
  int i;
  for (i = 0; i < n; i++) sqlite3_free(az[i]);
  sqlite3_free(az);
}

/* Append text, printf-style. */
#define explainAppend(p, ...) nosqlBufferAppendf(&(p)->rc, (p)->pOut, __VA_ARGS__)

/* The constraints in words with slot names az[0..n), joined by zSep. */
static void explainSlots(ExplainStep *p, char **az, int n, const char *zSep) {
  nosqlPlanWords(&p->rc, p->pOut, p->zIdx, (const char *const *)az, n, zSep);
}

/*
** The module arguments of the table's CREATE VIRTUAL TABLE, one by one:
** the iArg-th (0-based) argument's first n bytes at *pz, or 0 past the end.
*/
static int explainArg(const char *zArgs, int iArg, const char **pz) {
  int i = 0, nDepth = 0;
  const char *z = zArgs, *zStart = zArgs;
  while (1) {
    if (*z == 0 || (*z == ',' && nDepth == 0)) {
      if (i == iArg) {
        while (*zStart == ' ') zStart++;
        *pz = zStart;
        return (int)(z - zStart);
      }
      if (*z == 0) return 0;
      i++;
      zStart = z + 1;
      z++;
    } else {
      int bWord, bSpace, n = cmpToken(z, &bWord, &bSpace);
      if (*z == '(') nDepth++;
      if (*z == ')') nDepth--;
      z += n;
    }
  }
}

/* index_table: slots are the columns of "<name>_data"; tail "by a+b-": the order consumed. */
static void explainIndexTable(ExplainStep *p) {
  int n = 0, i;
  char **az = explainNames(p,
                           sqlite3_mprintf("SELECT name FROM pragma_table_info('%q_data', %Q) ORDER BY cid",
                                           p->zTable, p->zSchema),
                           &n);
  if (p->bCodes) {
    explainAppend(p, "seek ");
    explainSlots(p, az, n, " AND ");
  } else {
    explainAppend(p, "every entry in key order");
  }
  if (p->idxNum == 1) explainAppend(p, " (one entry)");
  if (strncmp(p->zTail, "by ", 3) == 0) {
    const char *z = p->zTail + 3;
    explainAppend(p, ", ordered by ");
    for (i = 0; z[0] && z[1]; z += 2, i++) {
      int iSlot = z[0] - 'a';
      explainAppend(p, "%s%s%s", i ? ", " : "", iSlot >= 0 && iSlot < n ? az[iSlot] : "?",
                    z[1] == '-' ? " DESC" : "");
    }
  }
  explainNamesFree(az, n);
}

/* inverted_index: slot a the MATCH query, slot b the rowid; idxNum bits II_PLAN_*. */
static void explainInvertedIndex(ExplainStep *p) {
  static const char *const azSlot[] = {"MATCH", "rowid"};
  const char *z = p->zIdx;
  int bFirst = 1;
  if (!p->bCodes) {
    explainAppend(p, "every document, in rowid order");
    return;
  }
  for (; z[0] && z[0] != ' ' && z[1]; z += 2) {
    if (z[0] == 'a') {
      explainAppend(p, "%sMATCH terms", bFirst ? "" : ", ");
    } else {
      char zOne[3] = {z[0], z[1], 0};
      explainAppend(p, "%s", bFirst ? "" : ", ");
      nosqlPlanWords(&p->rc, p->pOut, zOne, azSlot, 2, "");
    }
    bFirst = 0;
  }
  explainAppend(p, ", in rowid order");
}

/* nested_set: the codes after idxStr's space, the driver in idxNum (see its plan encoding). */
static void explainNestedSet(ExplainStep *p) {
  static const char *const azCode[] = {"ithe node with id = ?", "Ddescendants of ?", "Ssubtree of ?",
                                       "Aancestors of ?",       "Cchildren of ?",    "Bsiblings of ?",
                                       "Lleaves of ?",          "=depth = ?",        "<depth < ?",
                                       "{depth <= ?",           ">depth > ?",        "}depth >= ?"};
  const char *zCodes = p->zTail;
  int iDriver = (p->idxNum & 0xff) - 1, i, k, nOther = 0;
  if (iDriver >= 0 && iDriver < (int)strlen(zCodes)) {
    for (k = 0; k < (int)(sizeof(azCode) / sizeof(azCode[0])) && azCode[k][0] != zCodes[iDriver]; k++) {
    }
    explainAppend(p, "%s", k < (int)(sizeof(azCode) / sizeof(azCode[0])) ? azCode[k] + 1 : "?");
  } else if (p->idxNum & 0x100) {
    explainAppend(p, "roots (parent IS NULL)");
  } else {
    explainAppend(p, "every node");
  }
  explainAppend(p, ", in lft order");
  for (i = 0; zCodes[i]; i++) {
    if (i == iDriver) continue;
    for (k = 0; k < (int)(sizeof(azCode) / sizeof(azCode[0])) && azCode[k][0] != zCodes[i]; k++) {
    }
    explainAppend(p, "%s%s", nOther++ ? ", " : ", each row checked: ",
                  k < (int)(sizeof(azCode) / sizeof(azCode[0])) ? azCode[k] + 1 : "?");
  }
  if (p->idxNum & 0x200) explainAppend(p, ", ids from a covering index");
}

/*
** composite_scan: slots are the parts (the table's first columns) then the
** key column; the text after the codes is the module's readable plan.
*/
static void explainCompositeScan(ExplainStep *p) {
  int nCol = 0, nPart = 0, i, nKey;
  const char *zKey = "";
  char **az = explainNames(
      p, sqlite3_mprintf("SELECT name FROM pragma_table_xinfo(%Q, %Q) ORDER BY cid", p->zTable, p->zSchema),
      &nCol);
  for (i = 2;; i++) {
    const char *z;
    int n = explainArg(p->zArgs, i, &z);
    if (n == 0) break;
    if (memchr(z, '=', (size_t)n) == NULL) nPart++;
  }
  nKey = explainArg(p->zArgs, 1, &zKey);
  if (p->rc == SQLITE_OK && nPart < nCol && nPart < NOSQL_PLAN_MAX_COL) {
    sqlite3_free(az[nPart]);
    az[nPart] = sqlite3_mprintf("%.*s", nKey, zKey);
    if (az[nPart] == NULL) p->rc = SQLITE_NOMEM;
  }
  if (p->bCodes) {
    explainAppend(p, "one range of the key: ");
    explainSlots(p, az, nPart < nCol ? nPart + 1 : nCol, " AND ");
  } else {
    explainAppend(p, "every row in key order");
  }
  if (strstr(p->zTail, " desc") || strncmp(p->zTail, "desc", 4) == 0) explainAppend(p, ", descending");
  if (strstr(p->zTail, "no index on key"))
    explainAppend(p, " (no index on %.*s: full scan and sort)", nKey, zKey);
  explainNamesFree(az, nCol);
}

/* kv_counters: slot a is name. */
static void explainKvCounters(ExplainStep *p) {
  explainAppend(p, "%s", p->bCodes ? "one counter by name = ?" : "every counter");
}

/* inverted_index_facets: slots field, query, method, ranges. inverted_index_vocab: no inputs. */
static void explainFacets(ExplainStep *p) {
  static const char *const azSlot[] = {"field", "query", "method", "ranges"};
  if (strcmp(p->zModule, "inverted_index_vocab") == 0 || !p->bCodes) {
    explainAppend(p, "%s",
                  strcmp(p->zModule, "inverted_index_vocab") == 0 ? "every term" : "no query: no rows");
    return;
  }
  explainAppend(p, "counts for ");
  nosqlPlanWords(&p->rc, p->pOut, p->zIdx, azSlot, 4, ", ");
}

/* A table-valued function: slots are its hidden columns, in order. */
static void explainFunction(ExplainStep *p) {
  int n = 0;
  char **az = explainNames(
      p, sqlite3_mprintf("SELECT name FROM pragma_table_xinfo(%Q) WHERE hidden ORDER BY cid", p->zModule),
      &n);
  explainAppend(p, "computed from ");
  if (p->bCodes) {
    explainSlots(p, az, n, ", ");
  } else {
    explainAppend(p, "no arguments");
  }
  explainNamesFree(az, n);
}

/*
** geo_nearest: its tail says how the search reads the table when the plan
** knew it ("rings <index>" or "scan <table>"; ext/geo_nearest.c).
*/
static void explainGeoNearest(ExplainStep *p) {
  if (strncmp(p->zTail, "rings ", 6) == 0) {
    explainAppend(p, "geohash rings over INDEX %s", p->zTail + 6);
  } else if (strncmp(p->zTail, "scan ", 5) == 0) {
    explainAppend(p, "full scan of %s", p->zTail + 5);
  } else {
    explainAppend(p, "geohash rings over the table's geohash index if it has one, else a full scan");
  }
}

/* The extension's modules and how each plan is worded. */
static const struct {
  const char *zModule;           /* Module name */
  void (*xWords)(ExplainStep *); /* Appends the words after "<module> <table>: " */
} aExplainModule[] = {
    {"index_table", explainIndexTable},
    {"inverted_index", explainInvertedIndex},
    {"inverted_index_facets", explainFacets},
    {"inverted_index_vocab", explainFacets},
    {"nested_set", explainNestedSet},
    {"composite_scan", explainCompositeScan},
    {"kv_counters", explainKvCounters},
    {"doc_schema", explainFunction},
    {"geo_bbox", explainFunction},
    {"geo_nearest", explainGeoNearest},
    {"geohash_cover", explainFunction},
    {"geohash_cover_box", explainFunction},
    {"geohash_decode", explainFunction},
    {"geohash_neighbors", explainFunction},
    {"graph_components", explainFunction},
    {"graph_label_propagation", explainFunction},
    {"graph_pagerank", explainFunction},
    {"graph_path", explainFunction},
    {"graph_scc", explainFunction},
    {"graph_sssp", explainFunction},
    {"graph_triangles", explainFunction},
    {"graph_walk", explainFunction},
    {"index_table_drift", explainFunction},
    {"kv_mget", explainFunction},
    {"kv_pairs", explainFunction},
    {"mpath_ranges", explainFunction},
    {"rb_iterate", explainFunction},
    {"tree_rows", explainFunction},
    {"nosql_compare", explainFunction},
    {"nosql_explain", explainFunction},
};

/*
** Find table zName (n bytes) in the schema: its module into *pzModule,
** schema into *pzSchema and module arguments into *pzArgs (each
** sqlite3_mprintf). zDb names its schema, or is NULL for SQLite's search
** order, where zName may read "schema.name". With bModuleOnly, only an
** eponymous table (the name of a module) is looked for; an eponymous
** table's schema is NULL. SQLITE_OK with *pzModule NULL when zName is no
** virtual table.
*/
static int explainLookup(sqlite3 *db, const char *zDb, const char *zName, int n, int bModuleOnly,
                         char **pzModule, char **pzSchema, char **pzTable, char **pzArgs) {
  sqlite3_stmt *pStmt = NULL;
  const char *zDot = zDb ? NULL : memchr(zName, '.', (size_t)n);
  char *zSql;
  int rc = SQLITE_OK;
  *pzModule = *pzSchema = *pzTable = *pzArgs = NULL;
  if (!bModuleOnly) {
    /* SQLite's search order: temp, main, then attached databases; one
    ** query per database (sqlite_schema is per schema). */
    sqlite3_stmt *pDb = NULL;
    rc = sqlite3_prepare_v2(db, "SELECT name FROM pragma_database_list ORDER BY name <> 'temp', seq", -1,
                            &pDb, 0);
    while (rc == SQLITE_OK && *pzModule == NULL && (rc = sqlite3_step(pDb)) == SQLITE_ROW) {
      const char *zOne = (const char *)sqlite3_column_text(pDb, 0);
      rc = SQLITE_OK;
      if (zOne == NULL) {
        rc = SQLITE_NOMEM;
        break;
      }
      if (zDot && (sqlite3_strnicmp(zOne, zName, (int)(zDot - zName)) != 0 || zOne[zDot - zName] != 0))
        continue;
      if (zDb && sqlite3_stricmp(zOne, zDb) != 0) continue;
      zSql = sqlite3_mprintf(
          "SELECT name, sql FROM \"%w\".sqlite_schema WHERE type = 'table' AND name = '%.*q' "
          "COLLATE NOCASE AND sql LIKE 'CREATE VIRTUAL TABLE%%'",
          zOne, zDot ? n - (int)(zDot - zName) - 1 : n, zDot ? zDot + 1 : zName);
      if (zSql == NULL) {
        rc = SQLITE_NOMEM;
        break;
      }
      rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
      sqlite3_free(zSql);
      if (rc == SQLITE_OK && (rc = sqlite3_step(pStmt)) != SQLITE_ROW) {
        rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
      } else if (rc == SQLITE_ROW) {
        /* "CREATE VIRTUAL TABLE x USING module(args)": the word after USING, the text in the parentheses. */
        const char *z = (const char *)sqlite3_column_text(pStmt, 1);
        const char *zMod = NULL, *zArgs = "";
        int nMod = 0, nArgs = 0, bUsing = 0;
        rc = SQLITE_OK;
        while (z && *z) {
          int bWord, bSpace, nTok = cmpToken(z, &bWord, &bSpace);
          if (bUsing && zMod == NULL && !bSpace) {
            zMod = z;
            nMod = nTok;
          } else if (zMod && *z == '(') {
            zArgs = z + 1;
            nArgs = (int)strlen(zArgs);
            while (nArgs > 0 && zArgs[nArgs - 1] != ')') nArgs--;
            if (nArgs > 0) nArgs--;
            break;
          }
          if (bWord && cmpIsKeyword(z, nTok, "USING")) bUsing = 1;
          z += nTok;
        }
        if (zMod) {
          *pzModule = sqlite3_mprintf("%.*s", nMod, zMod);
          *pzSchema = sqlite3_mprintf("%s", zOne);
          *pzTable = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(pStmt, 0));
          *pzArgs = sqlite3_mprintf("%.*s", nArgs, zArgs);
          if (!*pzModule || !*pzSchema || !*pzTable || !*pzArgs) rc = SQLITE_NOMEM;
        }
      }
      sqlite3_finalize(pStmt);
      pStmt = NULL;
    }
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
    sqlite3_finalize(pDb);
  }
  if (rc == SQLITE_OK && *pzModule == NULL && zDot == NULL && zDb == NULL) {
    /* A table-valued function: the name of a module. */
    rc = sqlite3_prepare_v2(db, "SELECT name FROM pragma_module_list WHERE name = ?1 COLLATE NOCASE", -1,
                            &pStmt, 0);
    if (rc == SQLITE_OK) sqlite3_bind_text(pStmt, 1, zName, n, SQLITE_STATIC);
    if (rc == SQLITE_OK) rc = sqlite3_step(pStmt);
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
    if (rc == SQLITE_ROW) {
      rc = SQLITE_OK;
      *pzModule = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(pStmt, 0));
      *pzTable = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(pStmt, 0));
      *pzArgs = sqlite3_mprintf("");
      if (!*pzModule || !*pzTable || !*pzArgs) rc = SQLITE_NOMEM;
    }
    sqlite3_finalize(pStmt);
  }
  if (rc != SQLITE_OK) {
    sqlite3_free(*pzModule);
    sqlite3_free(*pzSchema);
    sqlite3_free(*pzTable);
    sqlite3_free(*pzArgs);
    *pzModule = *pzSchema = *pzTable = *pzArgs = NULL;
  }
  return rc;
}

/* True when token z[0..n) names zName[0..nName) (a bare word, or quoted). */
static int explainTokenIs(const char *z, int n, const char *zName, int nName) {
  if (n >= 2 && (z[0] == '"' || z[0] == '`' || z[0] == '[')) z++, n -= 2;
  return n == nName && sqlite3_strnicmp(z, zName, n) == 0;
}

/*
** Resolve the step name zName (n bytes): a table, or an alias the query
** text zQuery gives to "<table> [AS] name" or "<function>(...) [AS] name".
** With bModuleOnly, only eponymous tables (table-valued functions).
*/
static int explainResolve(sqlite3 *db, const char *zName, int n, const char *zQuery, int bModuleOnly,
                          char **pzModule, char **pzSchema, char **pzTable, char **pzArgs) {
  const char **azTok;
  int *anTok, nTok = 0, i, rc;
  const char *z = zQuery;
  rc = explainLookup(db, NULL, zName, n, bModuleOnly, pzModule, pzSchema, pzTable, pzArgs);
  if (rc != SQLITE_OK || *pzModule) return rc;
  /* The query's tokens, spaces and comments left out. */
  azTok =
      (const char **)sqlite3_malloc64((sizeof(char *) + sizeof(int)) * ((sqlite3_uint64)strlen(zQuery) + 1));
  if (azTok == NULL) return SQLITE_NOMEM;
  anTok = (int *)&azTok[strlen(zQuery) + 1];
  while (*z) {
    int bWord, bSpace, nT = cmpToken(z, &bWord, &bSpace);
    if (!bSpace) {
      azTok[nTok] = z;
      anTok[nTok++] = nT;
    }
    z += nT;
  }
  for (i = 1; i < nTok && rc == SQLITE_OK && *pzModule == NULL; i++) {
    int j = i - 1, nDepth = 0;
    if (!explainTokenIs(azTok[i], anTok[i], zName, n)) continue;
    if (cmpIsKeyword(azTok[j], anTok[j], "AS")) j--;
    if (j >= 0 && azTok[j][0] == ')') {
      for (; j >= 0; j--) {
        if (azTok[j][0] == ')') nDepth++;
        if (azTok[j][0] == '(' && --nDepth == 0) break;
      }
      j--;
    }
    if (j < 0) continue;
    if (j >= 2 && azTok[j - 1][0] == '.') {
      /* schema.table: the whole text */
      int nAll = (int)(azTok[j] + anTok[j] - azTok[j - 2]);
      char *zAll = sqlite3_mprintf("%.*s", nAll, azTok[j - 2]);
      if (zAll == NULL) {
        rc = SQLITE_NOMEM;
        break;
      }
      rc = explainLookup(db, NULL, zAll, nAll, bModuleOnly, pzModule, pzSchema, pzTable, pzArgs);
      sqlite3_free(zAll);
    } else {
      const char *zT = azTok[j];
      int nT = anTok[j];
      if (nT >= 2 && (zT[0] == '"' || zT[0] == '`' || zT[0] == '[')) zT++, nT -= 2;
      rc = explainLookup(db, NULL, zT, nT, bModuleOnly, pzModule, pzSchema, pzTable, pzArgs);
    }
  }
  sqlite3_free(azTok);
  return rc;
}

/*
** Parse a plan step's detail: true for a virtual table step "SCAN <name>
** VIRTUAL TABLE INDEX <idxNum>:<idxStr>", with the name at *pzName
** (*pnName bytes), idxNum and idxStr (*pnIdx bytes, without the
** " LEFT-JOIN" SQLite may append) pointing into zDetail.
*/
static int explainDetail(const char *zDetail, const char **pzName, int *pnName, int *pIdxNum,
                         const char **pzIdx, int *pnIdx) {
  const char *zVt = strstr(zDetail, " VIRTUAL TABLE INDEX ");
  const char *zName = strchr(zDetail, ' '), *zIdx;
  int nIdx;
  if (zVt == NULL || zName == NULL || zName >= zVt) return 0;
  *pzName = zName + 1;
  *pnName = (int)(zVt - zName - 1);
  *pIdxNum = atoi(zVt + 21);
  zIdx = strchr(zVt + 21, ':');
  zIdx = zIdx ? zIdx + 1 : "";
  nIdx = (int)strlen(zIdx);
  if (nIdx >= 10 && strcmp(&zIdx[nIdx - 10], " LEFT-JOIN") == 0) nIdx -= 10;
  *pzIdx = zIdx;
  *pnIdx = nIdx;
  return 1;
}

/* One VFilter of the query's bytecode. */
typedef struct ExplainFilter ExplainFilter;
struct ExplainFilter {
  sqlite3_int64 iAddr;  /* Its address in the EXPLAIN program, then in the EXPLAIN QUERY PLAN one */
  sqlite3_int64 idxNum; /* The value an Integer op last put in its register P3 */
  int bNum;             /* idxNum was seen */
  char *zIdx;           /* Its idxStr (P4), "" for none (sqlite3_malloc64) */
  char *zVtab;          /* "vtab:<address>" of its cursor's VOpen, or NULL (sqlite3_malloc64) */
};

/* Copy of text column i of pStmt ("" for NULL) into *pz; SQLITE_NOMEM on failure. */
static int explainColumnCopy(sqlite3_stmt *pStmt, int i, char **pz) {
  const char *z = (const char *)sqlite3_column_text(pStmt, i);
  *pz = sqlite3_mprintf("%s", z ? z : "");
  return *pz ? SQLITE_OK : SQLITE_NOMEM;
}

/*
** The "vtab:<address>" of the first VOpen of "EXPLAIN <zSql>" (zSql is
** freed) into *pzVtab, or NULL when it has none or does not prepare (a
** table whose module is missing, say): only SQLITE_NOMEM is an error.
*/
static int explainFirstVtab(sqlite3 *db, char *zSql, char **pzVtab) {
  sqlite3_stmt *pStmt = NULL;
  int rc;
  *pzVtab = NULL;
  if (zSql == NULL) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    const char *zOp = (const char *)sqlite3_column_text(pStmt, 1);
    if (zOp && strcmp(zOp, "VOpen") == 0) {
      rc = explainColumnCopy(pStmt, 5, pzVtab);
      break;
    }
  }
  if (rc != SQLITE_NOMEM && sqlite3_errcode(db) == SQLITE_NOMEM) rc = SQLITE_NOMEM;
  sqlite3_finalize(pStmt);
  return rc == SQLITE_NOMEM ? rc : SQLITE_OK;
}

static void explainProbeFree(ExplainProbe *p) {
  explainNamesFree(p->az, 3 * p->n);
  memset(p, 0, sizeof(*p));
}

/*
** Read the virtual tables of every schema and the address each one's VOpen
** shows, once per explained query (only when a step needs it).
*/
static int explainProbeLoad(sqlite3 *db, ExplainProbe *p) {
  sqlite3_stmt *pDb = NULL;
  int rc;
  if (p->bLoaded) return SQLITE_OK;
  p->bLoaded = 1;
  rc = sqlite3_prepare_v2(db, "SELECT name FROM pragma_database_list", -1, &pDb, 0);
  while (rc == SQLITE_OK && sqlite3_step(pDb) == SQLITE_ROW) {
    const char *zDb = (const char *)sqlite3_column_text(pDb, 0);
    sqlite3_stmt *pTab = NULL;
    char *zSql = zDb ? sqlite3_mprintf(
                           "SELECT name FROM \"%w\".sqlite_schema WHERE type = 'table' AND sql LIKE "
                           "'CREATE VIRTUAL TABLE%%'",
                           zDb)
                     : NULL;
    rc = zSql ? sqlite3_prepare_v2(db, zSql, -1, &pTab, 0) : SQLITE_NOMEM;
    sqlite3_free(zSql);
    while (rc == SQLITE_OK && sqlite3_step(pTab) == SQLITE_ROW) {
      const char *zName = (const char *)sqlite3_column_text(pTab, 0);
      char *zVtab = NULL;
      char **azNew;
      if (zName == NULL) {
        rc = SQLITE_NOMEM;
        break;
      }
      rc = explainFirstVtab(db, sqlite3_mprintf("EXPLAIN SELECT 1 FROM \"%w\".\"%w\"", zDb, zName), &zVtab);
      if (rc != SQLITE_OK || zVtab == NULL) continue;
      azNew = (char **)sqlite3_realloc64(p->az, sizeof(char *) * (sqlite3_uint64)(3 * p->n + 3));
      if (azNew == NULL) {
        sqlite3_free(zVtab);
        rc = SQLITE_NOMEM;
        break;
      }
      p->az = azNew;
      p->az[3 * p->n] = sqlite3_mprintf("%s", zDb);
      p->az[3 * p->n + 1] = sqlite3_mprintf("%s", zName);
      p->az[3 * p->n + 2] = zVtab;
      p->n++;
      if (p->az[3 * p->n - 3] == NULL || p->az[3 * p->n - 2] == NULL) rc = SQLITE_NOMEM;
    }
    if (rc == SQLITE_OK && sqlite3_errcode(db) == SQLITE_NOMEM) rc = SQLITE_NOMEM;
    sqlite3_finalize(pTab);
  }
  if (rc == SQLITE_OK && sqlite3_errcode(db) == SQLITE_NOMEM) rc = SQLITE_NOMEM;
  sqlite3_finalize(pDb);
  /* A schema that cannot be read (a table of a missing module) leaves its tables out; only OOM is an error.
   */
  return rc == SQLITE_NOMEM ? rc : SQLITE_OK;
}

/*
** Pair each virtual table step of aRow[] with the VFilter that reads it in
** the query's bytecode and set the step's zVtab (see "How it works"). When
** the two programs do not pair up exactly, no step gets one.
*/
static int explainBytecode(sqlite3 *db, const char *zQuery, int nSql, ExplainRow *aRow, int nRow) {
  sqlite3_stmt *pStmt = NULL;
  ExplainFilter *aF = NULL;
  sqlite3_int64 *aId = NULL;  /* The plan's ids, sorted */
  sqlite3_int64 *aReg = NULL; /* Register, value pairs: the last Integer op into each */
  sqlite3_int64 *aCsr = NULL; /* Cursor of each VOpen */
  char **azCsr = NULL;        /* "vtab:<address>" of each VOpen */
  int *aStack = NULL, *aStep = NULL;
  int nF = 0, nReg = 0, nCsr = 0, nStep = 0, nStack = 0, i, j, k, bOk = 1, rc;
  sqlite3_int64 iPrev = -1;
  char *zSql = sqlite3_mprintf("EXPLAIN %.*s", nSql, zQuery);

  if (zSql == NULL) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    sqlite3_int64 iAddr = sqlite3_column_int64(pStmt, 0);
    const char *zOp = (const char *)sqlite3_column_text(pStmt, 1);
    sqlite3_int64 p1 = sqlite3_column_int64(pStmt, 2), p2 = sqlite3_column_int64(pStmt, 3);
    sqlite3_int64 p3 = sqlite3_column_int64(pStmt, 4);
    if (iAddr <= iPrev || zOp == NULL) break; /* Trigger programs follow, numbered from 0 */
    iPrev = iAddr;
    if (strcmp(zOp, "Integer") == 0) {
      for (j = 0; j < nReg && aReg[2 * j] != p2; j++) {
      }
      if (j == nReg) {
        sqlite3_int64 *aNew =
            (sqlite3_int64 *)sqlite3_realloc64(aReg, sizeof(sqlite3_int64) * 2 * (nReg + 1));
        if (aNew == NULL) {
          rc = SQLITE_NOMEM;
          break;
        }
        aReg = aNew;
        aReg[2 * nReg++] = p2;
      }
      aReg[2 * j + 1] = p1;
    } else if (strcmp(zOp, "VOpen") == 0) {
      char **azNew = (char **)sqlite3_realloc64(azCsr, sizeof(char *) * (nCsr + 1));
      sqlite3_int64 *aNew =
          azNew ? (sqlite3_int64 *)sqlite3_realloc64(aCsr, sizeof(sqlite3_int64) * (nCsr + 1)) : NULL;
      if (azNew) azCsr = azNew;
      if (aNew == NULL) {
        rc = SQLITE_NOMEM;
        break;
      }
      aCsr = aNew;
      aCsr[nCsr] = p1;
      rc = explainColumnCopy(pStmt, 5, &azCsr[nCsr]);
      if (rc != SQLITE_OK) break;
      nCsr++;
    } else if (strcmp(zOp, "VFilter") == 0) {
      ExplainFilter *aNew = (ExplainFilter *)sqlite3_realloc64(aF, sizeof(ExplainFilter) * (nF + 1));
      ExplainFilter *pF;
      if (aNew == NULL) {
        rc = SQLITE_NOMEM;
        break;
      }
      aF = aNew;
      pF = &aF[nF++];
      memset(pF, 0, sizeof(*pF));
      pF->iAddr = iAddr;
      for (j = 0; j < nReg && aReg[2 * j] != p3; j++) {
      }
      if (j < nReg) pF->bNum = 1, pF->idxNum = aReg[2 * j + 1];
      /* The latest VOpen of the cursor (a cursor number is opened once per program). */
      for (j = nCsr - 1; j >= 0 && aCsr[j] != p1; j--) {
      }
      if (j >= 0) pF->zVtab = sqlite3_mprintf("%s", azCsr[j]);
      rc = explainColumnCopy(pStmt, 5, &pF->zIdx);
      if (j >= 0 && pF->zVtab == NULL) rc = SQLITE_NOMEM;
    }
  }
  if (rc == SQLITE_OK && sqlite3_errcode(db) == SQLITE_NOMEM) rc = SQLITE_NOMEM;
  sqlite3_finalize(pStmt);
  if (rc == SQLITE_NOMEM) goto bytecode_out;
  if (rc != SQLITE_OK) {
    bOk = 0; /* The query explained but its EXPLAIN did not: word steps by name */
    rc = SQLITE_OK;
  }

  /* The plan's ids in order, and the virtual table steps in id order. */
  aId = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * (sqlite3_uint64)(nRow + 1));
  aStep = (int *)sqlite3_malloc64(sizeof(int) * 2 * (sqlite3_uint64)(nRow + 1));
  if (aId == NULL || aStep == NULL) {
    rc = SQLITE_NOMEM;
    goto bytecode_out;
  }
  aStack = &aStep[nRow + 1];
  for (i = 0; i < nRow; i++) {
    const char *zName, *zIdx;
    int nName, idxNum, nIdx;
    for (j = i; j > 0 && aId[j - 1] > aRow[i].iId; j--) aId[j] = aId[j - 1];
    aId[j] = aRow[i].iId;
    if (!explainDetail(aRow[i].zDetail, &zName, &nName, &idxNum, &zIdx, &nIdx)) continue;
    for (j = nStep; j > 0 && aRow[aStep[j - 1]].iId > aRow[i].iId; j--) aStep[j] = aStep[j - 1];
    aStep[j] = i;
    nStep++;
  }
  /* A VFilter at EXPLAIN address a sits at a + k in the plan's program, k the Explain ops before it. */
  for (i = 0, k = 0; i < nF; i++) {
    while (k < nRow && aId[k] <= aF[i].iAddr + k) k++;
    aF[i].iAddr += k;
  }
  /* Both in address order: a step opens, the next VFilter closes the latest open step. */
  for (i = 0, j = 0; bOk && (i < nStep || j < nF);) {
    if (i < nStep && (j == nF || aRow[aStep[i]].iId < aF[j].iAddr)) {
      aStack[nStack++] = aStep[i++];
    } else {
      const char *zName, *zIdx;
      int nName, idxNum, nIdx;
      ExplainRow *pRow;
      if (nStack == 0) break;
      pRow = &aRow[aStack[--nStack]];
      explainDetail(pRow->zDetail, &zName, &nName, &idxNum, &zIdx, &nIdx);
      bOk = aF[j].zVtab && (!aF[j].bNum || aF[j].idxNum == idxNum) && (int)strlen(aF[j].zIdx) == nIdx &&
            strncmp(aF[j].zIdx, zIdx, (size_t)nIdx) == 0;
      pRow->zVtab = aF[j].zVtab;
      aF[j++].zVtab = NULL;
    }
  }
  if (!bOk || nStack > 0 || i < nStep || j < nF) {
    for (i = 0; i < nRow; i++) {
      sqlite3_free(aRow[i].zVtab);
      aRow[i].zVtab = NULL;
    }
  }

bytecode_out:
  for (i = 0; i < nF; i++) {
    sqlite3_free(aF[i].zIdx);
    sqlite3_free(aF[i].zVtab);
  }
  sqlite3_free(aF);
  explainNamesFree(azCsr, nCsr);
  sqlite3_free(aCsr);
  sqlite3_free(aReg);
  sqlite3_free(aId);
  sqlite3_free(aStep);
  return rc;
}

/*
** Word the virtual table step pRow into pRow (module and words), if it is
** one: its table from the address the bytecode gave it (pProbe: every
** table's), else from its name (see "How it works").
*/
static int explainStep(sqlite3 *db, const char *zQuery, ExplainProbe *pProbe, ExplainRow *pRow) {
  const char *zName, *zIdx;
  char *zModule = NULL, *zSchema = NULL, *zTable = NULL, *zArgs = NULL, *zIdxCopy = NULL;
  int nName, idxNum, nIdx, rc = SQLITE_OK, k;
  NosqlBuffer out = {0, 0, 0};
  ExplainStep step;
  if (!explainDetail(pRow->zDetail, &zName, &nName, &idxNum, &zIdx, &nIdx)) return SQLITE_OK;
  if (pRow->zVtab) {
    rc = explainProbeLoad(db, pProbe);
    for (k = 0; rc == SQLITE_OK && k < pProbe->n && strcmp(pProbe->az[3 * k + 2], pRow->zVtab) != 0; k++) {
    }
    if (rc == SQLITE_OK && k < pProbe->n) {
      rc = explainLookup(db, pProbe->az[3 * k], pProbe->az[3 * k + 1], (int)strlen(pProbe->az[3 * k + 1]), 0,
                         &zModule, &zSchema, &zTable, &zArgs);
    } else if (rc == SQLITE_OK) {
      /* No table of any schema: an eponymous table, by its name or alias. */
      rc = explainResolve(db, zName, nName, zQuery, 1, &zModule, &zSchema, &zTable, &zArgs);
    }
  } else {
    rc = explainResolve(db, zName, nName, zQuery, 0, &zModule, &zSchema, &zTable, &zArgs);
  }
  if (rc != SQLITE_OK || zModule == NULL) return rc;
  pRow->zModule = zModule;
  for (k = 0; k < (int)(sizeof(aExplainModule) / sizeof(aExplainModule[0])); k++) {
    if (sqlite3_stricmp(aExplainModule[k].zModule, zModule) == 0) break;
  }
  if (k < (int)(sizeof(aExplainModule) / sizeof(aExplainModule[0]))) {
    zIdxCopy = sqlite3_mprintf("%.*s", nIdx, zIdx);
    if (zIdxCopy == NULL) rc = SQLITE_NOMEM;
    memset(&step, 0, sizeof(step));
    step.db = db;
    step.zModule = aExplainModule[k].zModule;
    step.zSchema = zSchema;
    step.zTable = zTable;
    step.zArgs = zArgs;
    step.idxNum = idxNum;
    step.zIdx = zIdxCopy ? zIdxCopy : "";
    step.zTail = nosqlPlanTail(step.zIdx);
    step.bCodes = step.zIdx[0] != 0 && step.zIdx[0] != ' ' && step.zIdx[1] != ' ';
    step.pOut = &out;
    step.rc = rc;
    if (zSchema && sqlite3_stricmp(zSchema, "main") != 0) {
      explainAppend(&step, "%s %s.%s: ", step.zModule, zSchema, zTable);
    } else if (zSchema) {
      explainAppend(&step, "%s %s: ", step.zModule, zTable);
    } else {
      explainAppend(&step, "%s: ", step.zModule); /* A table-valued function: the table is the module */
    }
    aExplainModule[k].xWords(&step);
    rc = step.rc;
    if (rc == SQLITE_OK) {
      pRow->zWords = (char *)out.a;
      out.a = NULL;
    }
  }
  nosqlBufferFree(&out);
  sqlite3_free(zIdxCopy);
  sqlite3_free(zSchema);
  sqlite3_free(zTable);
  sqlite3_free(zArgs);
  return rc;
}

static int explainConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                          char **pzErr) {
  int rc;
  (void)pAux;
  (void)argc;
  (void)argv;
  (void)pzErr;
  rc = nosqlVtabNew(db, "CREATE TABLE x(id, parent, detail, module, plan_words, query HIDDEN)",
                    sizeof(cmp_vtab), ppVtab);
  if (rc == SQLITE_OK) ((cmp_vtab *)*ppVtab)->db = db;
  /* It prepares the caller's SQL (and the planning of some modules runs
  ** statements): not from a view, a trigger or the schema. */
  if (rc == SQLITE_OK) sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
  return rc;
}

/* The plan (ext/plan.c): slot a is query, a required equality in any collation. */
static const NosqlPlanCol aExplainPlan[] = {
    {5, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 1},
};

static int explainBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo) {
  (void)pVtab;
  return nosqlPlanInputs(pInfo, aExplainPlan, 1, 1000, 10);
}

static int explainOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor) {
  (void)pVtab;
  return nosqlCursorNew(sizeof(explain_cursor), ppCursor) ? SQLITE_OK : SQLITE_NOMEM;
}

static void explainRowsFree(explain_cursor *pCur) {
  int i;
  for (i = 0; i < pCur->nRow; i++) {
    sqlite3_free(pCur->aRow[i].zDetail);
    sqlite3_free(pCur->aRow[i].zModule);
    sqlite3_free(pCur->aRow[i].zWords);
    sqlite3_free(pCur->aRow[i].zVtab);
  }
  sqlite3_free(pCur->aRow);
  pCur->aRow = NULL;
  pCur->nRow = pCur->nAlloc = pCur->iRow = 0;
}

static int explainClose(sqlite3_vtab_cursor *pCursor) {
  explain_cursor *pCur = (explain_cursor *)pCursor;
  explainRowsFree(pCur);
  nosqlPlanKeepFree(pCur->apArg, 1);
  sqlite3_free(pCur);
  return SQLITE_OK;
}

static int explainFilter(sqlite3_vtab_cursor *pCursor, int idxNum, const char *idxStr, int argc,
                         sqlite3_value **argv) {
  explain_cursor *pCur = (explain_cursor *)pCursor;
  sqlite3_vtab *pVtab = pCursor->pVtab;
  sqlite3 *db = ((cmp_vtab *)pVtab)->db;
  sqlite3_stmt *pStmt = NULL;
  NosqlPlanArg aArg[1];
  ExplainProbe probe = {0, NULL, 0};
  const char *zQuery;
  char *zSql;
  int rc, nSql = 0, i;
  (void)idxNum;
  explainRowsFree(pCur);
  if (nosqlPlanInputArgs(pVtab, "nosql_explain(query)", aExplainPlan, 1, idxStr, argc, argv, aArg) !=
      SQLITE_OK) {
    return SQLITE_ERROR;
  }
  if (nosqlPlanKeep(aArg, 1, pCur->apArg) != SQLITE_OK) return SQLITE_NOMEM;
  rc = cmpPrepareOne(pVtab, db, "nosql_explain: query", aArg[0].pEq, &pStmt, &nSql);
  if (rc == SQLITE_OK && sqlite3_stmt_isexplain(pStmt)) {
    char *zQuoted = nosqlValueQuote(aArg[0].pEq);
    rc = zQuoted ? SQLITE_ERROR : SQLITE_NOMEM;
    if (zQuoted) nosqlVtabError(pVtab, "nosql_explain: query is an EXPLAIN already: %s", zQuoted);
    sqlite3_free(zQuoted);
  }
  sqlite3_finalize(pStmt);
  pStmt = NULL;
  if (rc != SQLITE_OK) return rc;
  zQuery = (const char *)sqlite3_value_text(pCur->apArg[0]);
  if (zQuery == NULL) return SQLITE_NOMEM;
  zSql = sqlite3_mprintf("EXPLAIN QUERY PLAN %.*s", nSql, zQuery);
  if (zSql == NULL) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  while (rc == SQLITE_OK) {
    ExplainRow *pRow;
    rc = sqlite3_step(pStmt);
    if (rc != SQLITE_ROW) break;
    rc = SQLITE_OK;
    if (pCur->nRow == pCur->nAlloc) {
      int nNew = pCur->nAlloc ? 2 * pCur->nAlloc : 8;
      ExplainRow *aNew =
          (ExplainRow *)sqlite3_realloc64(pCur->aRow, sizeof(ExplainRow) * (sqlite3_uint64)nNew);
      if (aNew == NULL) {
        rc = SQLITE_NOMEM;
        break;
      }
      pCur->aRow = aNew;
      pCur->nAlloc = nNew;
    }
    pRow = &pCur->aRow[pCur->nRow++];
    memset(pRow, 0, sizeof(*pRow));
    pRow->iId = sqlite3_column_int64(pStmt, 0);
    pRow->iParent = sqlite3_column_int64(pStmt, 1);
    pRow->zDetail = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(pStmt, 3));
    if (pRow->zDetail == NULL) rc = SQLITE_NOMEM;
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  sqlite3_finalize(pStmt);
  pStmt = NULL;
  if (rc == SQLITE_OK) rc = explainBytecode(db, zQuery, nSql, pCur->aRow, pCur->nRow);
  for (i = 0; rc == SQLITE_OK && i < pCur->nRow; i++) rc = explainStep(db, zQuery, &probe, &pCur->aRow[i]);
  explainProbeFree(&probe);
  if (rc != SQLITE_OK && rc != SQLITE_NOMEM && sqlite3_errcode(db) != SQLITE_NOMEM) {
    nosqlVtabError(pVtab, "nosql_explain: query: %s", sqlite3_errmsg(db));
  }
  if (rc != SQLITE_OK && sqlite3_errcode(db) == SQLITE_NOMEM) rc = SQLITE_NOMEM;
  sqlite3_finalize(pStmt);
  if (rc != SQLITE_OK) explainRowsFree(pCur);
  return rc;
}

static int explainNext(sqlite3_vtab_cursor *pCursor) {
  ((explain_cursor *)pCursor)->iRow++;
  return SQLITE_OK;
}

static int explainEof(sqlite3_vtab_cursor *pCursor) {
  explain_cursor *pCur = (explain_cursor *)pCursor;
  return pCur->iRow >= pCur->nRow;
}

static int explainColumn(sqlite3_vtab_cursor *pCursor, sqlite3_context *ctx, int iCol) {
  explain_cursor *pCur = (explain_cursor *)pCursor;
  const ExplainRow *pRow = &pCur->aRow[pCur->iRow];
  switch (iCol) {
    case 0:
      sqlite3_result_int64(ctx, pRow->iId);
      break;
    case 1:
      sqlite3_result_int64(ctx, pRow->iParent);
      break;
    case 2:
      sqlite3_result_text(ctx, pRow->zDetail, -1, SQLITE_TRANSIENT);
      break;
    case 3:
      if (pRow->zModule) sqlite3_result_text(ctx, pRow->zModule, -1, SQLITE_TRANSIENT);
      break;
    case 4:
      if (pRow->zWords) sqlite3_result_text(ctx, pRow->zWords, -1, SQLITE_TRANSIENT);
      break;
    default:
      nosqlPlanKeptResult(ctx, pCur->apArg[0]);
      break;
  }
  return SQLITE_OK;
}

static int explainRowid(sqlite3_vtab_cursor *pCursor, sqlite_int64 *pRowid) {
  *pRowid = ((explain_cursor *)pCursor)->iRow + 1;
  return SQLITE_OK;
}

/* An eponymous-only table-valued function: no xCreate, no writes. */
static sqlite3_module explainModule = {
    0,                /* iVersion */
    0,                /* xCreate */
    explainConnect,   /* xConnect */
    explainBestIndex, /* xBestIndex */
    nosqlVtabFree,    /* xDisconnect */
    0,                /* xDestroy */
    explainOpen,      /* xOpen */
    explainClose,     /* xClose */
    explainFilter,    /* xFilter */
    explainNext,      /* xNext */
    explainEof,       /* xEof */
    explainColumn,    /* xColumn */
    explainRowid,     /* xRowid */
    0,                /* xUpdate */
    0,                /* xBegin */
    0,                /* xSync */
    0,                /* xCommit */
    0,                /* xRollback */
    0,                /* xFindFunction */
    0,                /* xRename */
    0,                /* xSavepoint */
    0,                /* xRelease */
    0,                /* xRollbackTo */
    0,                /* xShadowName */
};

int compareRegister(sqlite3 *db) {
  int rc = sqlite3_create_module(db, "nosql_compare", &cmpModule, 0);
  if (rc == SQLITE_OK) rc = sqlite3_create_module(db, "nosql_explain", &explainModule, 0);
  return rc;
}
