/*
** compare.c: two queries side by side on the user's own data.
**
**   SELECT * FROM nosql_compare(query_a, query_b [, runs]);
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
**     ratio,           -- median_us / query a's median_us (NULL when that is 0)
**     query_a HIDDEN, query_b HIDDEN, runs HIDDEN  -- the arguments
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
#define CMP_COL_QUERY_A 10 /* First hidden column; then query_b, runs */

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
  sqlite3_vtab_cursor base; /* Base class - must be first */
  CmpQuery aQ[2];           /* Query a, query b */
  int bAgree;               /* The answers agree */
  int nRuns;                /* Timed runs of each query */
  int iRow;                 /* 0 or 1; 2 at EOF */
  sqlite3_value *apArg[3];  /* Copies of query_a, query_b, runs for the hidden columns */
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
                    "sort_steps, ratio, query_a HIDDEN, query_b HIDDEN, runs HIDDEN)",
                    sizeof(cmp_vtab), ppVtab);
  if (rc == SQLITE_OK) ((cmp_vtab *)*ppVtab)->db = db;
  /* It runs the caller's SQL: never from a view, a trigger or the schema
  ** (this overrides the innocuous mark nosqlVtabNew sets). */
  if (rc == SQLITE_OK) sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
  return rc;
}

/* The plan (ext/plan.c): slots a, b, c are query_a, query_b (required) and runs, equalities in any collation.
 */
static const NosqlPlanCol aCmpPlan[] = {
    {CMP_COL_QUERY_A, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 1},
    {CMP_COL_QUERY_A + 1, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 1},
    {CMP_COL_QUERY_A + 2, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0},
};

static int cmpBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo) {
  (void)pVtab;
  /* Costly: it runs both queries 1 + runs times. */
  return nosqlPlanInputs(pInfo, aCmpPlan, 3, 1e6, 2);
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
  nosqlPlanKeepFree(pCur->apArg, 3);
  sqlite3_free(pCur);
  return SQLITE_OK;
}

/*
** Prepare query c ('a' or 'b') from pArg into pQ->pStmt, checking every
** rule of the header comment. SQLITE_OK, or an error code with the
** message in pVtab.
*/
static int cmpPrepare(sqlite3_vtab *pVtab, sqlite3 *db, char c, sqlite3_value *pArg, CmpQuery *pQ) {
  const char *zSql = (const char *)sqlite3_value_text(pArg);
  const char *zTail = NULL;
  char *zQuoted;
  int rc;
  if (sqlite3_value_type(pArg) == SQLITE_NULL) {
    nosqlVtabError(pVtab, "nosql_compare: query %c is NULL", c);
    return SQLITE_ERROR;
  }
  if (zSql == NULL) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(db, zSql, sqlite3_value_bytes(pArg), &pQ->pStmt, &zTail);
  if (rc != SQLITE_OK) {
    if (rc == SQLITE_NOMEM || sqlite3_errcode(db) == SQLITE_NOMEM) return SQLITE_NOMEM;
    nosqlVtabError(pVtab, "nosql_compare: query %c: %s", c, sqlite3_errmsg(db));
    return rc;
  }
  zQuoted = nosqlValueQuote(pArg);
  if (zQuoted == NULL) return SQLITE_NOMEM;
  rc = SQLITE_ERROR;
  if (pQ->pStmt == NULL) {
    nosqlVtabError(pVtab, "nosql_compare: query %c is empty: %s", c, zQuoted);
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
      nosqlVtabError(pVtab, "nosql_compare: query %c holds more than one statement: %s", c, zQuoted);
      goto done;
    }
  }
  if (!sqlite3_stmt_readonly(pQ->pStmt) || sqlite3_column_count(pQ->pStmt) == 0 || !cmpIsSelect(zSql)) {
    nosqlVtabError(pVtab, "nosql_compare: query %c is not a read-only SELECT: %s", c, zQuoted);
    goto done;
  }
  if (sqlite3_bind_parameter_count(pQ->pStmt) > 0) {
    nosqlVtabError(
        pVtab, "nosql_compare: query %c has parameters, which nothing binds (write the values into it): %s",
        c, zQuoted);
    goto done;
  }
  pQ->bOrdered = cmpHasOrderBy(zSql);
  rc = SQLITE_OK;
done:
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
  NosqlPlanArg aArg[3];
  int rc, i, k;
  (void)idxNum;
  cmpQueriesFree(pCur);
  pCur->iRow = 2;
  if (nosqlPlanArgs(idxStr, argc, argv, aArg, 3) != SQLITE_OK || aArg[0].pEq == NULL || aArg[1].pEq == NULL) {
    nosqlVtabError(pVtab, "nosql_compare: bad plan %s", idxStr ? idxStr : "(none)");
    return SQLITE_ERROR;
  }
  if (nosqlPlanKeep(aArg, 3, pCur->apArg) != SQLITE_OK) return SQLITE_NOMEM;
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
      if (pCur->aQ[0].rMedian > 0) sqlite3_result_double(ctx, pQ->rMedian / pCur->aQ[0].rMedian);
      break;
    case CMP_COL_QUERY_A:
    case CMP_COL_QUERY_A + 1:
      nosqlPlanKeptResult(ctx, pCur->apArg[iCol - CMP_COL_QUERY_A]);
      break;
    default: /* runs: the argument, or the default used */
      if (pCur->apArg[2]) {
        nosqlPlanKeptResult(ctx, pCur->apArg[2]);
      } else {
        sqlite3_result_int(ctx, pCur->nRuns);
      }
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

int compareRegister(sqlite3 *db) { return sqlite3_create_module(db, "nosql_compare", &cmpModule, 0); }
