/*
** bench.c: the benchmark program of `make bench`.
**
**   build/bench [--size X] [--reps N] [--only a,b]
**
** --size multiplies each workload's default data size (1 = the sizes the
** issues name; 0.01 for a quick run). Output is one markdown table per
** workload, ready for docs/benchmarks.md, and a last line
** "N passed, N failed" counting the result-agreement checks.
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
    {"nested_set", benchNestedSet},
    {"inverted_index", benchInvertedIndex},
    {"ckey", benchCkey},
    {"documents", benchDocuments},
};

#define BENCH_MAX_VARIANT 8
#define BENCH_MAX_REP 64

uint64_t benchRand(uint64_t *pState) {
  uint64_t z = (*pState += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
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

void benchSumRow(BenchSum *pSum, const void *a, int n) {
  const unsigned char *z = (const unsigned char *)a;
  uint64_t h = 0xcbf29ce484222325ull;
  int i;
  for (i = 0; i < n; i++) h = (h ^ z[i]) * 0x100000001b3ull;
  pSum->h += h;
  pSum->nRow++;
}

int benchSumStmt(BenchSum *pSum, sqlite3_stmt *pStmt) {
  int rc;
  int nCol = sqlite3_column_count(pStmt);
  char aBuf[512];
  while ((rc = sqlite3_step(pStmt)) == SQLITE_ROW) {
    int n = 0;
    int i;
    for (i = 0; i < nCol && n < (int)sizeof(aBuf) - 2; i++) {
      const char *z = (const char *)sqlite3_column_text(pStmt, i);
      int nz = z ? sqlite3_column_bytes(pStmt, i) : 4;
      if (nz > (int)sizeof(aBuf) - 2 - n) nz = (int)sizeof(aBuf) - 2 - n;
      memcpy(&aBuf[n], z ? z : "NULL", (size_t)nz);
      n += nz;
      aBuf[n++] = '|';
    }
    benchSumRow(pSum, aBuf, n);
  }
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
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

void benchCompare(Bench *p, const char *zWorkload, sqlite3 *db, const char *zSize, double nUnit,
                  const char *zUnit, const BenchVariant *aVar, int nVar) {
  double aTime[BENCH_MAX_VARIANT][BENCH_MAX_REP];
  BenchSum aSum[BENCH_MAX_VARIANT] = {{0, 0}};
  int aAgree[BENCH_MAX_VARIANT];
  double aMedian[BENCH_MAX_VARIANT];
  int nRep = p->nRep < BENCH_MAX_REP ? p->nRep : BENCH_MAX_REP;
  int iRep, i;

  if (nVar > BENCH_MAX_VARIANT) nVar = BENCH_MAX_VARIANT;
  for (iRep = 0; iRep < nRep; iRep++) {
    /* Rotate the starting variant so that no variant always runs first. */
    for (i = 0; i < nVar; i++) {
      int iVar = (i + iRep) % nVar;
      BenchSum sum;
      aTime[iVar][iRep] = benchRunOnce(db, &aVar[iVar], &sum);
      if (iRep == 0) aSum[iVar] = sum;
      if (aTime[iVar][iRep] < 0) aSum[iVar].nRow = -1;
    }
  }
  printf("\n### %s (%s)\n\n", zWorkload, zSize);
  printf("| variant | rows | median ms | ns/%s | ratio | spread | agrees |\n", zUnit);
  printf("|---|---:|---:|---:|---:|---:|---|\n");
  for (i = 0; i < nVar; i++) {
    double rMin, rMax;
    qsort(aTime[i], (size_t)nRep, sizeof(double), benchCmpDouble);
    rMin = aTime[i][0];
    rMax = aTime[i][nRep - 1];
    aMedian[i] = nRep % 2 ? aTime[i][nRep / 2] : (aTime[i][nRep / 2 - 1] + aTime[i][nRep / 2]) / 2;
    aAgree[i] = aSum[i].nRow >= 0 && aSum[i].nRow == aSum[0].nRow && aSum[i].h == aSum[0].h;
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

int main(int argc, char **argv) {
  Bench b;
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
    } else {
      fprintf(stderr, "usage: bench [--size X] [--reps N] [--only a,b]\n");
      return 2;
    }
  }
  if (b.rScale <= 0) b.rScale = 1.0;
  if (b.nRep < 1) b.nRep = 1;
  printf("# nosql bench: SQLite %s, nosql %s, size x%g, %d reps\n", sqlite3_libversion(), nosqlVersionText,
         b.rScale, b.nRep);
  for (i = 0; i < sizeof(aWorkload) / sizeof(aWorkload[0]); i++) {
    if (benchSelected(&b, aWorkload[i].zName)) aWorkload[i].xRun(&b);
  }
  printf("\n%d passed, %d failed\n", b.nAgree, b.nDisagree);
  return b.nDisagree ? 1 : 0;
}
