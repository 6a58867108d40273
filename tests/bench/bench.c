/*
** bench.c: the benchmark program of `make bench`.
**
**   build/bench/bench [--size X] [--reps N] [--only a,b] [--json FILE] [--save DIR] [--save-graph FILE]
**   build/bench --selftest
**
** --size multiplies each workload's default data size (1 = the sizes the
** issues name; 0.01 for a quick run). Output is one markdown table per
** workload, ready for docs/benchmarks.md, and a last line
** "N passed, N failed" counting the result-agreement checks. --selftest
** shows that those checks fail when they should (make test runs it).
**
** --save-graph FILE writes the edge tables that graph_routes and
** graph_batch generate (at this --size) to the SQLite database FILE, as
** tables routes(src, dst, w), route_pairs(i, start, goal) and batch(src,
** dst), and skips those two workloads' timings: tests/bench/graph_peers.py
** times graph_path, the batch jobs, networkx and igraph on that file in
** one process.
**
** --json writes the same results to FILE (default
** build/bench/results.json; "-" for none) for scripts/plot.py:
**
**   {"sqlite": "3.40.1", "nosql": "0.1.0", "scale": 0.01, "reps": 5,
**    "results": [{"feature": "mpath", "workload": "...", "variant": "...",
**                 "kind": "relational", "size": "10000 nodes, 10-ary",
**                 "n": 10000, "n_unit": "nodes", "scale": 0.01, "rows": 12,
**                 "median": 0.123 (ms), "unit": "row", "ns_per_unit": 45.6,
**                 "ratio": 1.0, "spread": 0.05, "baseline": true, "agree": true}, ...]}
**
** "kind" says what the variant's code is (enum BenchKind in bench.h):
** "relational" (SQLite alone), "extension" (calls the extension), "model"
** (the NoSQL model in plain SQL), "c" (C code outside SQL), "floor" (a cost
** floor for scale). "n" is the data size the comparison ran on, in
** "n_unit"s.
**
** --save DIR writes the generated data of some workloads (geohash: points
** and query circles; nested: the people; inverted_index: the documents)
** as tab-separated files in DIR, for the peer scripts tests/bench/redis_geo.py
** and tests/bench/pg_gin.sh.
**
** "agree" is true for the baseline (the row the others are checked
** against) unless it returned no rows.
*/
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The workloads, in the order they run. */
static const struct BenchWorkload {
  const char *zName;      /* For --only */
  void (*xRun)(Bench *p); /* Builds data and calls benchCompare() */
} aWorkload[] = {
    {"core", benchCore},
    {"mpath", benchMpath},
    {"geohash", benchGeohash},
    {"geo_nearest", benchNearest},
    {"nested_set", benchNestedSet},
    {"inverted_index", benchInvertedIndex},
    {"inverted_range", benchInvertedRange},
    {"ckey", benchCkey},
    {"documents", benchDocuments},
    {"graphs", benchGraphs},
    {"graph_routes", benchGraphRoutes},
    {"trees", benchTrees},
    {"graph_batch", benchGraphBatch},
    {"graph_centrality", benchGraphCentrality},
    {"graph_index", benchGraphIndex},
    {"index_table", benchIndexTable},
    {"nested", benchNested},
};

#define BENCH_MAX_VARIANT 8
#define BENCH_MAX_REP 64

uint64_t benchRand(uint64_t *pState) {
  uint64_t z = (*pState += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void benchSpherePoints(sqlite3 *db, const char *zInsert, int64_t nPoint) {
  char *zSql = sqlite3_mprintf(
      "CREATE TEMP TABLE u(id INTEGER PRIMARY KEY, a REAL, b REAL);"
      "WITH RECURSIVE c(i, x, y) AS (SELECT 1, 12345, 678 UNION ALL"
      "  SELECT i + 1, (x * 1103515245 + 12345) %% 2147483648, (y * 69069 + 1) %% 4294967296 FROM c"
      "  WHERE i < %lld)"
      "INSERT INTO u SELECT i, x / 2147483648.0, y / 4294967296.0 FROM c;",
      (long long)nPoint);
  sqlite3_stmt *pSel = NULL, *pIns = NULL;
  if (zSql == NULL) exit(2);
  benchExec(db, zSql);
  sqlite3_free(zSql);
  /* asin is not an SQL function in SQLite 3.40 builds without math: do it here. */
  benchExec(db, "BEGIN");
  if (sqlite3_prepare_v2(db, "SELECT id, a, b FROM u", -1, &pSel, 0) != SQLITE_OK ||
      sqlite3_prepare_v2(db, zInsert, -1, &pIns, 0) != SQLITE_OK) {
    fprintf(stderr, "bench: %s\n", sqlite3_errmsg(db));
    exit(2);
  }
  while (sqlite3_step(pSel) == SQLITE_ROW) {
    sqlite3_bind_int64(pIns, 1, sqlite3_column_int64(pSel, 0));
    sqlite3_bind_double(pIns, 2, asin(2.0 * sqlite3_column_double(pSel, 1) - 1.0) * (180.0 / M_PI));
    sqlite3_bind_double(pIns, 3, sqlite3_column_double(pSel, 2) * 360.0 - 180.0);
    sqlite3_step(pIns);
    sqlite3_reset(pIns);
  }
  sqlite3_finalize(pSel);
  sqlite3_finalize(pIns);
  benchExec(db, "COMMIT; DROP TABLE u");
}

void benchPowerLawEdges(sqlite3 *db, const char *zInsert, int64_t nNode, int64_t nEdge, uint64_t *pSeed) {
  sqlite3_stmt *pIns = NULL;
  int64_t i;
  benchExec(db, "BEGIN");
  sqlite3_prepare_v2(db, zInsert, -1, &pIns, 0);
  for (i = 0; i < nEdge; i++) {
    double u = (double)(benchRand(pSeed) >> 11) / 9007199254740992.0;
    sqlite3_bind_int64(pIns, 1, (int64_t)(benchRand(pSeed) % (uint64_t)nNode));
    sqlite3_bind_int64(pIns, 2, (int64_t)(u * u * u * (double)nNode));
    sqlite3_step(pIns);
    sqlite3_reset(pIns);
  }
  sqlite3_finalize(pIns);
  benchExec(db, "COMMIT");
}

int64_t benchInt(sqlite3 *db, const char *zSql) {
  sqlite3_stmt *pStmt = NULL;
  int64_t n = 0;
  if (sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0) != SQLITE_OK) {
    fprintf(stderr, "bench: %s\n  in: %s\n", sqlite3_errmsg(db), zSql);
    exit(2);
  }
  if (sqlite3_step(pStmt) == SQLITE_ROW) n = sqlite3_column_int64(pStmt, 0);
  if (sqlite3_finalize(pStmt) != SQLITE_OK) {
    fprintf(stderr, "bench: %s\n  in: %s\n", sqlite3_errmsg(db), zSql);
    exit(2);
  }
  return n;
}

int benchSaveGraph(Bench *p, sqlite3 *db, const char *zSql) {
  sqlite3_stmt *pStmt = NULL;
  if (p->zSaveGraph == NULL) return 0;
  if (sqlite3_prepare_v2(db, "ATTACH ?1 AS save", -1, &pStmt, 0) != SQLITE_OK) {
    fprintf(stderr, "bench: %s\n", sqlite3_errmsg(db));
    exit(2);
  }
  sqlite3_bind_text(pStmt, 1, p->zSaveGraph, -1, SQLITE_STATIC);
  sqlite3_step(pStmt);
  if (sqlite3_finalize(pStmt) != SQLITE_OK) {
    fprintf(stderr, "bench: cannot attach %s: %s\n", p->zSaveGraph, sqlite3_errmsg(db));
    exit(2);
  }
  benchExec(db, "BEGIN");
  benchExec(db, zSql);
  benchExec(db, "COMMIT");
  benchExec(db, "DETACH save");
  printf("\n%s: the graph written to %s (timings skipped)\n", p->zFeature, p->zSaveGraph);
  return 1;
}

int64_t benchSize(const Bench *p, int64_t nDefault, int64_t nMin) {
  int64_t n = (int64_t)llround((double)nDefault * p->rScale);
  return n < nMin ? nMin : n;
}

sqlite3 *benchOpen(void) {
  sqlite3 *db = NULL;
  char *zErr = NULL;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK || sqlite3_nosql_init(db, &zErr, NULL) != SQLITE_OK) {
    fprintf(stderr, "bench: cannot open a database: %s\n", zErr ? zErr : sqlite3_errmsg(db));
    exit(2);
  }
  return db;
}

void benchExec(sqlite3 *db, const char *zSql) {
  char *zErr = NULL;
  if (sqlite3_exec(db, zSql, 0, 0, &zErr) != SQLITE_OK) {
    fprintf(stderr, "bench: %s\n  in: %.200s\n", zErr, zSql);
    exit(2);
  }
}

/* FNV-1a over a[0..n), continuing from h. */
static uint64_t benchFnv(uint64_t h, const void *a, size_t n) {
  const unsigned char *z = (const unsigned char *)a;
  size_t i;
  for (i = 0; i < n; i++) h = (h ^ z[i]) * 0x100000001b3ull;
  return h;
}

void benchSumRow(BenchSum *pSum, const void *a, int n) {
  pSum->h += benchFnv(0xcbf29ce484222325ull, a, n > 0 ? (size_t)n : 0);
  pSum->nRow++;
}

/*
** Row hashes: per column its storage class, then its whole value
** (integers and reals as their 8 bytes, text and blobs with their length),
** so that NULL, 'NULL', 1, 1.0 and '1' all differ and nothing is truncated.
** benchSumInts() hashes a row of integers exactly as benchSumStmt() hashes
** the same row read from SQL, so C kernels can agree with SQL variants.
*/
static uint64_t benchHashInt(uint64_t h, sqlite3_int64 v) {
  unsigned char cType = SQLITE_INTEGER;
  h = benchFnv(h, &cType, 1);
  return benchFnv(h, &v, sizeof(v));
}

void benchSumInts(BenchSum *pSum, const int64_t *aVal, int nVal) {
  uint64_t h = 0xcbf29ce484222325ull;
  int i;
  for (i = 0; i < nVal; i++) h = benchHashInt(h, (sqlite3_int64)aVal[i]);
  pSum->h += h;
  pSum->nRow++;
}

int benchSumStmt(BenchSum *pSum, sqlite3_stmt *pStmt) {
  int rc;
  int nCol = sqlite3_column_count(pStmt);
  while ((rc = sqlite3_step(pStmt)) == SQLITE_ROW) {
    uint64_t h = 0xcbf29ce484222325ull;
    int i;
    for (i = 0; i < nCol; i++) {
      int eType = sqlite3_column_type(pStmt, i);
      unsigned char cType = (unsigned char)eType;
      if (eType == SQLITE_INTEGER) {
        h = benchHashInt(h, sqlite3_column_int64(pStmt, i));
        continue;
      }
      h = benchFnv(h, &cType, 1);
      if (eType == SQLITE_FLOAT) {
        double r = sqlite3_column_double(pStmt, i);
        h = benchFnv(h, &r, sizeof(r));
      } else if (eType != SQLITE_NULL) {
        const void *a = eType == SQLITE_BLOB ? sqlite3_column_blob(pStmt, i) : sqlite3_column_text(pStmt, i);
        sqlite3_int64 n = sqlite3_column_bytes(pStmt, i);
        h = benchFnv(h, &n, sizeof(n));
        if (n > 0) h = benchFnv(h, a, (size_t)n);
      }
    }
    pSum->h += h;
    pSum->nRow++;
  }
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

void benchSave(const Bench *p, sqlite3 *db, const char *zFile, const char *zSql) {
  sqlite3_stmt *pStmt = NULL;
  char *zPath;
  FILE *pOut;
  int rc, i, nCol;
  if (p->zSave == NULL) return;
  zPath = sqlite3_mprintf("%s/%s", p->zSave, zFile);
  pOut = zPath ? fopen(zPath, "w") : NULL;
  if (pOut == NULL || sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0) != SQLITE_OK) {
    fprintf(stderr, "bench: cannot save %s: %s\n", zPath ? zPath : zFile,
            pOut ? sqlite3_errmsg(db) : "cannot write the file");
    exit(2);
  }
  nCol = sqlite3_column_count(pStmt);
  while ((rc = sqlite3_step(pStmt)) == SQLITE_ROW) {
    for (i = 0; i < nCol; i++) {
      if (i) fputc('\t', pOut);
      if (sqlite3_column_type(pStmt, i) == SQLITE_FLOAT) {
        fprintf(pOut, "%.17g", sqlite3_column_double(pStmt, i));
      } else if (sqlite3_column_type(pStmt, i) != SQLITE_NULL) {
        fputs((const char *)sqlite3_column_text(pStmt, i), pOut);
      }
    }
    fputc('\n', pOut);
  }
  sqlite3_finalize(pStmt);
  if (rc != SQLITE_DONE || fclose(pOut) != 0) {
    fprintf(stderr, "bench: cannot save %s\n", zPath);
    exit(2);
  }
  sqlite3_free(zPath);
}

double benchNow(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int benchSumEachId(sqlite3 *db, const char *zSql, const int64_t *aId, int nId, BenchSum *pSum) {
  sqlite3_stmt *pStmt = NULL;
  int rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  int i;
  for (i = 0; rc == SQLITE_OK && i < nId; i++) {
    sqlite3_bind_int64(pStmt, 1, aId[i]);
    rc = benchSumStmt(pSum, pStmt);
    sqlite3_reset(pStmt);
  }
  sqlite3_finalize(pStmt);
  return rc;
}

static int benchCmpDouble(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Run one variant once; returns seconds, or -1 on error (message printed). */
static double benchRunOnce(sqlite3 *db, const BenchVariant *pVar, BenchSum *pSum) {
  double t0 = benchNow();
  int rc;
  memset(pSum, 0, sizeof(*pSum));
  if (pVar->zSql) {
    sqlite3_stmt *pStmt = NULL;
    rc = sqlite3_prepare_v2(db, pVar->zSql, -1, &pStmt, 0);
    if (rc == SQLITE_OK) rc = benchSumStmt(pSum, pStmt);
    sqlite3_finalize(pStmt);
  } else {
    rc = pVar->xRun(db, pVar->pArg, pSum);
  }
  if (rc != SQLITE_OK) {
    fprintf(stderr, "bench: variant '%s' failed: %s\n", pVar->zName, sqlite3_errmsg(db));
    return -1.0;
  }
  return benchNow() - t0;
}

/* Write z as a JSON string to pOut. */
static void benchJsonString(FILE *pOut, const char *z) {
  fputc('"', pOut);
  for (; *z; z++) {
    unsigned char c = (unsigned char)*z;
    if (c == '"' || c == '\\') {
      fprintf(pOut, "\\%c", c);
    } else if (c < 0x20) {
      fprintf(pOut, "\\u%04x", c);
    } else {
      fputc(c, pOut);
    }
  }
  fputc('"', pOut);
}

/* The JSON name of a BenchKind. */
static const char *const azBenchKind[] = {"", "relational", "extension", "model", "c", "floor"};

/* One result in the --json file. */
static void benchJsonResult(Bench *p, const char *zWorkload, const BenchVariant *pVar, const char *zSize,
                            double nData, const char *zData, int64_t nRow, double rMedian, const char *zUnit,
                            double rPerUnit, double rRatio, double rSpread, int bBaseline, int bAgree) {
  FILE *pOut = p->pJson;
  if (pOut == NULL) return;
  fprintf(pOut, "%s\n  {\"feature\": ", p->nJson++ ? "," : "");
  benchJsonString(pOut, p->zFeature ? p->zFeature : "");
  fprintf(pOut, ", \"workload\": ");
  benchJsonString(pOut, zWorkload);
  fprintf(pOut, ", \"variant\": ");
  benchJsonString(pOut, pVar->zName);
  fprintf(pOut, ", \"kind\": ");
  benchJsonString(pOut, azBenchKind[pVar->eKind]);
  fprintf(pOut, ", \"size\": ");
  benchJsonString(pOut, zSize);
  fprintf(pOut, ", \"n\": %.17g, \"n_unit\": ", nData);
  benchJsonString(pOut, zData);
  fprintf(pOut, ", \"scale\": %.17g, \"rows\": %lld, \"median\": %.6f, \"unit\": ", p->rScale,
          (long long)nRow, rMedian);
  benchJsonString(pOut, zUnit);
  fprintf(pOut,
          ", \"ns_per_unit\": %.3f, \"ratio\": %.6f, \"spread\": %.4f, \"baseline\": %s, \"agree\": %s}",
          rPerUnit, rRatio, rSpread, bBaseline ? "true" : "false", bAgree ? "true" : "false");
}

void benchCompare(Bench *p, const char *zWorkload, sqlite3 *db, const char *zSize, double nData,
                  const char *zData, double nUnit, const char *zUnit, const BenchVariant *aVar, int nVar) {
  double aTime[BENCH_MAX_VARIANT][BENCH_MAX_REP];
  BenchSum aSum[BENCH_MAX_VARIANT] = {{0, 0}};
  int aAgree[BENCH_MAX_VARIANT];
  double aMedian[BENCH_MAX_VARIANT];
  int nRep = p->nRep < BENCH_MAX_REP ? p->nRep : BENCH_MAX_REP;
  int iRep, i, bEmpty;

  if (nVar > BENCH_MAX_VARIANT) nVar = BENCH_MAX_VARIANT;
  for (i = 0; i < nVar; i++) {
    if (aVar[i].eKind < BENCH_RELATIONAL || aVar[i].eKind > BENCH_FLOOR) {
      fprintf(stderr, "bench: variant '%s' of '%s' has no kind (enum BenchKind)\n", aVar[i].zName, zWorkload);
      exit(2);
    }
  }
  for (iRep = 0; iRep < nRep; iRep++) {
    /* Rotate the starting variant so that no variant always runs first. */
    for (i = 0; i < nVar; i++) {
      int iVar = (i + iRep) % nVar;
      BenchSum sum;
      aTime[iVar][iRep] = benchRunOnce(db, &aVar[iVar], &sum);
      if (iRep == 0) aSum[iVar] = sum;
      /* A variant agrees only if every run of it returns the same rows. */
      if (aTime[iVar][iRep] < 0 || sum.nRow != aSum[iVar].nRow || sum.h != aSum[iVar].h) aSum[iVar].nRow = -1;
    }
  }
  printf("\n### %s (%s)\n\n", zWorkload, zSize);
  /* Agreement on nothing proves nothing: an empty baseline fails the workload. */
  bEmpty = aSum[0].nRow == 0;
  if (bEmpty) {
    printf("REFUSED %s: the baseline returned no rows, so agreement would prove nothing\n\n", zWorkload);
    p->nDisagree++;
  }
  printf("| variant | rows | median ms | ns/%s | ratio | spread | agrees |\n", zUnit);
  printf("|---|---:|---:|---:|---:|---:|---|\n");
  for (i = 0; i < nVar; i++) {
    double rMin, rMax;
    qsort(aTime[i], (size_t)nRep, sizeof(double), benchCmpDouble);
    rMin = aTime[i][0];
    rMax = aTime[i][nRep - 1];
    aMedian[i] = nRep % 2 ? aTime[i][nRep / 2] : (aTime[i][nRep / 2 - 1] + aTime[i][nRep / 2]) / 2;
    aAgree[i] = !bEmpty && aSum[i].nRow >= 0 && aSum[i].nRow == aSum[0].nRow && aSum[i].h == aSum[0].h;
    if (i > 0) {
      if (aAgree[i])
        p->nAgree++;
      else
        p->nDisagree++;
    }
    printf("| %s | %lld | %.3f | %.1f | %.2fx | %.0f%% | %s |\n", aVar[i].zName, (long long)aSum[i].nRow,
           aMedian[i] * 1e3, nUnit > 0 ? aMedian[i] * 1e9 / nUnit : 0.0,
           aMedian[0] > 0 ? aMedian[i] / aMedian[0] : 0.0,
           aMedian[i] > 0 ? 100.0 * (rMax - rMin) / aMedian[i] : 0.0,
           i == 0 ? "baseline" : (aAgree[i] ? "yes" : "NO"));
    benchJsonResult(p, zWorkload, &aVar[i], zSize, nData, zData, aSum[i].nRow, aMedian[i] * 1e3, zUnit,
                    nUnit > 0 ? aMedian[i] * 1e9 / nUnit : 0.0,
                    aMedian[0] > 0 ? aMedian[i] / aMedian[0] : 0.0,
                    aMedian[i] > 0 ? (rMax - rMin) / aMedian[i] : 0.0, i == 0, i == 0 ? !bEmpty : aAgree[i]);
  }
  fflush(stdout);
}

static int benchSelected(const Bench *p, const char *zName) {
  const char *z = p->zOnly;
  size_t n = strlen(zName);
  if (z == NULL || *z == 0) return 1;
  while (*z) {
    size_t len = strcspn(z, ",");
    if (len == n && strncmp(z, zName, n) == 0) return 1;
    z += len;
    if (*z == ',') z++;
  }
  return 0;
}

/*
** --selftest: comparisons that must be caught. Each case's variant differs
** from its baseline in one way an agreement check can miss (a type, a
** value past the 510th byte, a repeated row, a second run that returns
** other rows, an empty baseline); the last two cases must agree. Prints
** "N passed, N failed" (cases judged right) and returns the exit code.
*/
static int benchSelfTest(void) {
  static const struct {
    const char *zName;  /* What the case shows */
    const char *zBase;  /* Baseline SQL */
    const char *zOther; /* The variant compared with it */
    int bAgree;         /* Expected verdict */
  } aCase[] = {
      {"NULL vs 'NULL'", "SELECT NULL", "SELECT 'NULL'", 0},
      {"integer vs real", "SELECT 1", "SELECT 1.0", 0},
      {"integer vs text", "SELECT 1", "SELECT '1'", 0},
      {"blob vs text", "SELECT x'61'", "SELECT 'a'", 0},
      {"text differing at byte 601", "SELECT printf('%.600c', 'x') || 'a'",
       "SELECT printf('%.600c', 'x') || 'b'", 0},
      {"a repeated row", "VALUES (1), (2)", "VALUES (1), (2), (2)", 0},
      {"columns swapped", "SELECT 1, 2", "SELECT 2, 1", 0},
      {"a counter whose second run goes on from the first", "VALUES (1), (2), (3)",
       "SELECT kv_incr('selftest') FROM (VALUES (1), (2), (3))", 0},
      {"an empty baseline", "SELECT 1 WHERE 0", "SELECT 1 WHERE 0", 0},
      {"same rows in another order", "VALUES (1, 'a'), (2, NULL), (3, x'00')",
       "VALUES (3, x'00'), (1, 'a'), (2, NULL)", 1},
      {"same long text", "SELECT printf('%.600c', 'x') || 'a'", "SELECT printf('%.599c', 'x') || 'xa'", 1},
  };
  sqlite3 *db = benchOpen();
  int nPass = 0, nFail = 0;
  size_t i;
  for (i = 0; i < sizeof(aCase) / sizeof(aCase[0]); i++) {
    Bench b;
    const BenchVariant aVar[] = {{BENCH_RELATIONAL, "baseline", aCase[i].zBase, 0, 0},
                                 {BENCH_EXTENSION, "variant", aCase[i].zOther, 0, 0}};
    int bAgree;
    memset(&b, 0, sizeof(b));
    b.rScale = 1.0;
    b.nRep = 2;
    benchCompare(&b, aCase[i].zName, db, "self-test", 1, "run", 1, "run", aVar, 2);
    bAgree = b.nDisagree == 0 && b.nAgree == 1;
    if (bAgree == aCase[i].bAgree) {
      printf("ok %s: %s\n", aCase[i].zName, bAgree ? "agreement seen" : "disagreement detected");
      nPass++;
    } else {
      printf("FAIL %s: the check said %s\n", aCase[i].zName, bAgree ? "agree" : "disagree");
      nFail++;
    }
  }
  sqlite3_close(db);
  printf("\n%d passed, %d failed\n", nPass, nFail);
  return nFail ? 1 : 0;
}

int main(int argc, char **argv) {
  Bench b;
  const char *zJson = "build/bench/results.json";
  size_t i;
  int k;
  memset(&b, 0, sizeof(b));
  b.rScale = 1.0;
  b.nRep = 5;
  for (k = 1; k < argc; k++) {
    if (strcmp(argv[k], "--size") == 0 && k + 1 < argc) {
      b.rScale = atof(argv[++k]);
    } else if (strcmp(argv[k], "--reps") == 0 && k + 1 < argc) {
      b.nRep = atoi(argv[++k]);
    } else if (strcmp(argv[k], "--only") == 0 && k + 1 < argc) {
      b.zOnly = argv[++k];
    } else if (strcmp(argv[k], "--json") == 0 && k + 1 < argc) {
      zJson = argv[++k];
    } else if (strcmp(argv[k], "--save") == 0 && k + 1 < argc) {
      b.zSave = argv[++k];
    } else if (strcmp(argv[k], "--save-graph") == 0 && k + 1 < argc) {
      b.zSaveGraph = argv[++k];
    } else if (strcmp(argv[k], "--selftest") == 0) {
      return benchSelfTest();
    } else {
      fprintf(stderr,
              "usage: bench [--size X] [--reps N] [--only a,b] [--json FILE] [--save DIR] "
              "[--save-graph FILE] | --selftest\n");
      return 2;
    }
  }
  if (b.rScale <= 0) b.rScale = 1.0;
  if (b.nRep < 1) b.nRep = 1;
  printf("# nosql bench: SQLite %s, nosql %s, size x%g, %d reps\n", sqlite3_libversion(), nosqlVersionText,
         b.rScale, b.nRep);
  if (strcmp(zJson, "-") != 0) {
    b.pJson = fopen(zJson, "w");
    if (b.pJson == NULL) {
      fprintf(stderr, "bench: cannot write %s\n", zJson);
      return 2;
    }
    fprintf(b.pJson, "{\"sqlite\": \"%s\", \"nosql\": \"%s\", \"scale\": %.17g, \"reps\": %d, \"results\": [",
            sqlite3_libversion(), nosqlVersionText, b.rScale, b.nRep);
  }
  for (i = 0; i < sizeof(aWorkload) / sizeof(aWorkload[0]); i++) {
    b.zFeature = aWorkload[i].zName;
    if (benchSelected(&b, aWorkload[i].zName)) aWorkload[i].xRun(&b);
  }
  printf("\n%d passed, %d failed\n", b.nAgree, b.nDisagree);
  if (b.pJson) {
    fprintf(b.pJson, "\n]}\n");
    if (fclose(b.pJson) != 0) {
      fprintf(stderr, "bench: cannot write %s\n", zJson);
      return 2;
    }
  }
  return b.nDisagree ? 1 : 0;
}
