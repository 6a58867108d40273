/*
** bench_nearest.c: k nearest neighbours (issue 37, item 1).
**
** 1M points uniform on the sphere (the very points of the geohash
** workload: same generator, same seeds), a generated geohash column and
** the covering index (gh, lat, lon) of docs/geohash.md. For k = 1, 10 and
** 100, twenty centres on data points, side by side:
**
**   radius guess and retry   what a user writes without a nearest-
**                            neighbour search: the radius recipe
**                            (geohash_cover + the covering index +
**                            geo_distance) with ORDER BY d, id LIMIT k, from
**                            the radius that holds about 2k points on
**                            average, doubled until k rows come back
**   geo_nearest              rings of covers over the same index
**
** and, at k = 10 on five centres (a full scan takes a while), the relational
** full scan (ORDER BY geo_distance(...), id LIMIT k) and geo_nearest over a
** copy of the table without the recipe (a scan in C). Every variant must
** return the same (id, distance) rows.
**
** --save DIR writes nearest_points.tsv (id, lat, lon) and
** nearest_queries.tsv (k, lat, lon, r100, ids, kth distance: r100 is the
** radius that holds about 100 points) for tests/bench/redis_geo.py
** --nearest, which asks Redis GEOSEARCH ... BYRADIUS r100 m ASC COUNT k.
*/
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The questions of one comparison. */
typedef struct NearQuerySet NearQuerySet;
struct NearQuerySet {
  const double *aLat; /* Centres */
  const double *aLon;
  int nQuery;       /* Number of centres */
  int k;            /* Neighbours asked */
  int nRound;       /* Times the whole set is asked */
  int64_t nPoint;   /* Rows of the table (the user's first radius guess) */
  const char *zSql; /* ?1 lat, ?2 lon, ?3 k (NULL: the radius guess and retry) */
};

/* The radius that holds n of nPoint points spread evenly over the sphere. */
static double nearRadius(double n, int64_t nPoint) {
  double f = n / (double)nPoint;
  if (f >= 1.0) return M_PI * GEOHASH_EARTH_RADIUS;
  return acos(1.0 - 2.0 * f) * GEOHASH_EARTH_RADIUS;
}

static const char *const zNearRetry =
    "SELECT p.id, geo_distance(p.lat, p.lon, ?1, ?2) AS d FROM geohash_cover(?1, ?2, ?3) c"
    " JOIN pts p INDEXED BY pts_ghc ON p.gh >= c.lo AND p.gh < c.hi"
    " WHERE geo_distance(p.lat, p.lon, ?1, ?2) <= ?3 ORDER BY d, p.id LIMIT ?4";

static int nearRun(sqlite3 *db, void *pArg, BenchSum *pSum) {
  NearQuerySet *p = (NearQuerySet *)pArg;
  sqlite3_stmt *pStmt = NULL;
  int rc = sqlite3_prepare_v2(db, p->zSql ? p->zSql : zNearRetry, -1, &pStmt, 0);
  int i, r;
  for (r = 0; rc == SQLITE_OK && r < p->nRound; r++) {
    for (i = 0; rc == SQLITE_OK && i < p->nQuery; i++) {
      sqlite3_bind_double(pStmt, 1, p->aLat[i]);
      sqlite3_bind_double(pStmt, 2, p->aLon[i]);
      if (p->zSql) {
        sqlite3_bind_int(pStmt, 3, p->k);
        rc = benchSumStmt(pSum, pStmt);
        sqlite3_reset(pStmt);
      } else {
        /* Guess, and double until the circle holds k points (or is the whole sphere). */
        double radius = nearRadius(2.0 * p->k, p->nPoint);
        for (;;) {
          BenchSum t = {0, 0};
          sqlite3_bind_double(pStmt, 3, radius);
          sqlite3_bind_int(pStmt, 4, p->k);
          rc = benchSumStmt(&t, pStmt);
          sqlite3_reset(pStmt);
          if (rc != SQLITE_OK) break;
          if (t.nRow >= p->k || radius >= M_PI * GEOHASH_EARTH_RADIUS) {
            pSum->nRow += t.nRow;
            pSum->h += t.h;
            break;
          }
          radius *= 2;
        }
      }
    }
  }
  sqlite3_finalize(pStmt);
  return rc;
}

static const char *const zNearRings =
    "SELECT id, distance_m FROM geo_nearest('pts', 'lat', 'lon', ?1, ?2, ?3)";
static const char *const zNearPlain =
    "SELECT id, distance_m FROM geo_nearest('plain', 'lat', 'lon', ?1, ?2, ?3)";
static const char *const zNearFull =
    "SELECT id, geo_distance(lat, lon, ?1, ?2) AS d FROM pts ORDER BY d, id LIMIT ?3";

void benchNearest(Bench *p) {
  static const int aK[] = {1, 10, 100};
  static const int aRound[] = {50, 50, 20};
  sqlite3 *db;
  int64_t nPoint = benchSize(p, 1000000, 2000);
  uint64_t seed = 0x6e656172657374ull;
  double aLat[20], aLon[20];
  char zSize[160], zTitle[96];
  int i, j;

  db = benchOpen();
  /* The geohash workload's points. */
  benchExec(
      db,
      "CREATE TABLE pts(id INTEGER PRIMARY KEY, lat REAL, lon REAL, gh TEXT AS (geohash(lat, lon)) STORED)");
  benchSpherePoints(db, "INSERT INTO pts(id, lat, lon) VALUES(?1, ?2, ?3)", nPoint);
  benchExec(db,
            "CREATE INDEX pts_ghc ON pts(gh, lat, lon);"
            "CREATE TABLE plain(id INTEGER PRIMARY KEY, lat REAL, lon REAL);"
            "INSERT INTO plain SELECT id, lat, lon FROM pts");
  for (i = 0; i < 20; i++) {
    /* Centres on data points, as "near this place" queries are. */
    int64_t id = (int64_t)(benchRand(&seed) % (uint64_t)nPoint) + 1;
    sqlite3_stmt *pStmt = NULL;
    sqlite3_prepare_v2(db, "SELECT lat, lon FROM pts WHERE id = ?1", -1, &pStmt, 0);
    sqlite3_bind_int64(pStmt, 1, id);
    if (sqlite3_step(pStmt) != SQLITE_ROW) exit(2);
    aLat[i] = sqlite3_column_double(pStmt, 0);
    aLon[i] = sqlite3_column_double(pStmt, 1);
    sqlite3_finalize(pStmt);
  }

  for (j = 0; j < 3; j++) {
    NearQuerySet retry = {aLat, aLon, 20, aK[j], aRound[j], nPoint, NULL};
    NearQuerySet rings = {aLat, aLon, 20, aK[j], aRound[j], nPoint, zNearRings};
    const BenchVariant aVar[] = {
        {BENCH_EXTENSION,
         "radius guess and retry: geohash cover + covering index, ORDER BY d LIMIT k, r doubled", 0, nearRun,
         &retry},
        {BENCH_EXTENSION, "geo_nearest: rings of covers over the covering index (gh, lat, lon)", 0, nearRun,
         &rings},
    };
    snprintf(zTitle, sizeof(zTitle), "geo_nearest: k = %d", aK[j]);
    snprintf(zSize, sizeof(zSize), "%lld points, 20 queries x %d rounds, first guess r = %.0f m",
             (long long)nPoint, aRound[j], nearRadius(2.0 * aK[j], nPoint));
    benchCompare(p, zTitle, db, zSize, (double)nPoint, "points", 20.0 * aRound[j], "query", aVar, 2);
  }
  {
    NearQuerySet full = {aLat, aLon, 5, 10, 1, nPoint, zNearFull};
    NearQuerySet plain = {aLat, aLon, 5, 10, 1, nPoint, zNearPlain};
    NearQuerySet rings = {aLat, aLon, 5, 10, 1, nPoint, zNearRings};
    NearQuerySet retry = {aLat, aLon, 5, 10, 1, nPoint, NULL};
    const BenchVariant aVar[] = {
        {BENCH_RELATIONAL, "relational: full scan, ORDER BY geo_distance(...), id LIMIT k", 0, nearRun,
         &full},
        {BENCH_EXTENSION, "geo_nearest on a table without the recipe (scan in C)", 0, nearRun, &plain},
        {BENCH_EXTENSION, "radius guess and retry (as above)", 0, nearRun, &retry},
        {BENCH_EXTENSION, "geo_nearest: rings over the covering index", 0, nearRun, &rings},
    };
    snprintf(zSize, sizeof(zSize), "%lld points, 5 queries", (long long)nPoint);
    benchCompare(p, "geo_nearest: k = 10 against the full scan", db, zSize, (double)nPoint, "points", 5.0,
                 "query", aVar, 4);
  }
  if (p->zSave) {
    sqlite3_stmt *pIns = NULL;
    benchExec(db, "CREATE TEMP TABLE near_q(k, lat, lon, r100, ids, kth)");
    sqlite3_prepare_v2(db,
                       "INSERT INTO near_q SELECT ?3, ?1, ?2, ?4, group_concat(id, ','), max(distance_m)"
                       " FROM geo_nearest('pts', 'lat', 'lon', ?1, ?2, ?3)",
                       -1, &pIns, 0);
    for (j = 0; j < 3; j++) {
      for (i = 0; i < 20; i++) {
        sqlite3_bind_double(pIns, 1, aLat[i]);
        sqlite3_bind_double(pIns, 2, aLon[i]);
        sqlite3_bind_int(pIns, 3, aK[j]);
        sqlite3_bind_double(pIns, 4, nearRadius(100.0, nPoint));
        sqlite3_step(pIns);
        sqlite3_reset(pIns);
      }
    }
    sqlite3_finalize(pIns);
    benchSave(p, db, "nearest_points.tsv", "SELECT id, lat, lon FROM pts ORDER BY id");
    benchSave(p, db, "nearest_queries.tsv", "SELECT k, lat, lon, r100, ids, kth FROM near_q");
  }
  printf("\nbytes: table %lld, covering index (gh, lat, lon) %lld (%.1f per point)\n",
         (long long)benchInt(db, "SELECT sum(pgsize) FROM dbstat WHERE name = 'pts'"),
         (long long)benchInt(db, "SELECT sum(pgsize) FROM dbstat WHERE name = 'pts_ghc'"),
         (double)benchInt(db, "SELECT sum(pgsize) FROM dbstat WHERE name = 'pts_ghc'") / (double)nPoint);
  sqlite3_close(db);
}
