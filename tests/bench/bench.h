/*
** bench.h: the side-by-side benchmark harness of `make bench`.
**
** A workload builds its data in memory with fixed seeds, then calls
** benchCompare() with its variants: the first is the baseline (usually the
** relational way), the others the NoSQL patterns (or C kernels). Each
** variant says what its code is (BenchKind) and each comparison how much
** data it ran on, so that the charts tell the extension from plain SQL and
** place points by data size. The harness runs them
** interleaved several times, checks that every variant returns the same
** rows in every run (an order-free checksum of typed rows; a baseline with
** no rows fails the workload), and prints one markdown
** table row per variant: size, median time, time per unit, ratio to the
** baseline, spread ((max - min) / median) and agreement. The same rows go
** to a JSON file (--json; build/bench-results.json by default) that
** scripts/plot.py draws as the SVG charts of docs/img/.
**
** Benchmark sources are compiled with -DSQLITE_CORE and linked with the
** extension's objects, so they can call both SQLite and the pure C cores
** of ext/ directly. New workloads go into the table in bench.c.
*/
#ifndef NOSQL_BENCH_H
#define NOSQL_BENCH_H

#include <stdint.h>
#include <stdio.h>

#include "nosql.h"
#include "nosqlTest.h"

typedef struct Bench Bench;
typedef struct BenchSum BenchSum;
typedef struct BenchVariant BenchVariant;

/* Options and totals of one run of the benchmark program. */
struct Bench {
  double rScale;          /* --size: multiplies every workload's default size */
  int nRep;               /* --reps: runs of each variant (median taken) */
  const char *zOnly;      /* --only: comma-separated workload names, or NULL */
  FILE *pJson;            /* --json: the results file being written, or NULL */
  const char *zSave;      /* --save: directory the workloads write their data to, or NULL */
  const char *zSaveGraph; /* --save-graph: database file the graph workloads write their edges to, or NULL */
  const char *zFeature;   /* The workload function running (its --only name), for the JSON */
  int nJson;              /* Results written to pJson so far */
  int nAgree;             /* Comparisons whose results agreed */
  int nDisagree;          /* Comparisons whose results differed */
};

/* An order-independent digest of a result: row count and sum of row hashes. */
struct BenchSum {
  int64_t nRow; /* Rows seen */
  uint64_t h;   /* Sum of per-row FNV-1a hashes */
};

/*
** What a variant's code is. The JSON names them "relational", "extension",
** "model", "c" and "floor"; scripts/plot.py draws each kind in its own line
** style and credits only BENCH_EXTENSION and BENCH_MODEL bars in the
** headline.
*/
enum BenchKind {
  BENCH_RELATIONAL = 1, /* SQLite alone on the relational schema: SQL, R*Tree, FTS5, JSON1 */
  BENCH_EXTENSION,      /* Calls the extension's SQL functions or virtual tables */
  BENCH_MODEL,          /* The NoSQL data model in plain SQL: no extension call at query time */
  BENCH_C,              /* C code outside SQL: the extension's core called directly, an application loop */
  BENCH_FLOOR           /* A cost floor for scale (a bare scan), not a way to answer */
};

/* One way to answer a workload's question. */
struct BenchVariant {
  int eKind;         /* BENCH_RELATIONAL ... BENCH_FLOOR (0 is refused) */
  const char *zName; /* Shown in the table, e.g. "relational: recursive CTE" */
  const char *zSql;  /* SQL whose rows are the answer, or NULL */
  /* Or a C kernel: answers on db and adds its rows to pSum. SQLITE_OK or an error. */
  int (*xRun)(sqlite3 *db, void *pArg, BenchSum *pSum);
  void *pArg; /* Passed to xRun */
};

/* Scaled size: rScale * nDefault, at least nMin. */
int64_t benchSize(const Bench *p, int64_t nDefault, int64_t nMin);

/* A new in-memory database with the extension registered (exits on error). */
sqlite3 *benchOpen(void);

/* Run zSql on db, failing the program on error (data set-up). */
void benchExec(sqlite3 *db, const char *zSql);

/* The integer in the first column of zSql's first row; the program fails on an error. */
int64_t benchInt(sqlite3 *db, const char *zSql);

/* Step pStmt to the end, adding each row (types and whole values) to pSum. SQLITE_OK or an error. */
int benchSumStmt(BenchSum *pSum, sqlite3_stmt *pStmt);

/* Run zSql once per id in aId[0..nId) (bound to ?1), adding every row to pSum. */
int benchSumEachId(sqlite3 *db, const char *zSql, const int64_t *aId, int nId, BenchSum *pSum);

/* Monotonic wall-clock time in seconds. */
double benchNow(void);

/* Add one row given as (values) to pSum: agrees only with other benchSumRow() rows. */
void benchSumRow(BenchSum *pSum, const void *a, int n);

/* Add one row of nVal integers to pSum, hashed as benchSumStmt() hashes the same SQL row. */
void benchSumInts(BenchSum *pSum, const int64_t *aVal, int nVal);

/*
** Time the variants side by side. zWorkload names the question (one name
** per comparison: the charts match a name across --size runs), zSize
** describes the data ("1000000 points, 20 queries"), nData is the data
** size the charts place the comparison by and zData its noun ("points"),
** nUnit is the count that the per-unit column divides by (rows returned,
** rows scanned...) and zUnit its name.
*/
void benchCompare(Bench *p, const char *zWorkload, sqlite3 *db, const char *zSize, double nData,
                  const char *zData, double nUnit, const char *zUnit, const BenchVariant *aVar, int nVar);

/*
** --save DIR: write the rows of zSql, tab-separated (reals with 17 digits,
** so that they read back exactly), to DIR/zFile, for the peer scripts of
** tests/bench/ (PostgreSQL, Redis) to load the same data. A no-op without
** --save; the program fails when the file cannot be written.
*/
void benchSave(const Bench *p, sqlite3 *db, const char *zFile, const char *zSql);

/*
** With --save-graph FILE: run each zSql (CREATE TABLE save.x ... / INSERT
** INTO save.x SELECT ... from db's tables) with FILE attached to db as
** "save", and return 1: the workload then skips its timings (the peers
** script tests/bench/graph_peers.py times everything on FILE). Without
** the option: 0, nothing done. The program fails on an error.
*/
int benchSaveGraph(Bench *p, sqlite3 *db, const char *zSql);

/* Deterministic pseudo-random numbers (splitmix64). */
uint64_t benchRand(uint64_t *pState);

/*
** nEdge power-law edges among nNode nodes in one transaction: sources
** uniform, targets nNode * u^3 (u uniform in [0, 1)), drawn from generator
** state *pSeed (advanced), each bound as ?1, ?2 of INSERT statement zInsert.
*/
void benchPowerLawEdges(sqlite3 *db, const char *zInsert, int64_t nNode, int64_t nEdge, uint64_t *pSeed);

/*
** nPoint points uniform on the sphere (lat = asin(2u - 1), from a fixed
** LCG: the geohash and geo_nearest workloads share them), each bound as
** ?1 id, ?2 lat, ?3 lon of INSERT statement zInsert, in one transaction.
*/
void benchSpherePoints(sqlite3 *db, const char *zInsert, int64_t nPoint);

/* The workloads: one function per feature, listed in bench.c. */
void benchCore(Bench *p);
void benchMpath(Bench *p);
void benchGeohash(Bench *p);
void benchNearest(Bench *p);
void benchNestedSet(Bench *p);
void benchInvertedIndex(Bench *p);
void benchInvertedRange(Bench *p);
void benchCkey(Bench *p);
void benchDocuments(Bench *p);
void benchGraphs(Bench *p);
void benchGraphRoutes(Bench *p);
void benchTrees(Bench *p);
void benchGraphBatch(Bench *p);
void benchGraphCentrality(Bench *p);
void benchGraphIndex(Bench *p);
void benchIndexTable(Bench *p);
void benchNested(Bench *p);

#endif /* NOSQL_BENCH_H */
