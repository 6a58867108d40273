/*
** nearest.c: randomized agreement of geo_nearest() with the full scan.
**
** Each round builds a table of random points in one of seven layouts (a
** generated geohash column and its index; WITHOUT ROWID keyed on a CHECKed
** geohash; WITHOUT ROWID keyed on a CHECKed 60-bit code; a VIRTUAL
** generated code and its index; no recipe; an index on the expression
** geohash(lat, lon); one on geohash_bits(lat, lon, 60)), the points a mix of: uniform
** on the sphere, clusters around a random place (the poles and +-180
** among them), exact duplicates, the grid's corners, and NULL
** coordinates. Then it asks random centres (data points, uniform, at and
** near the poles, on both sides of +-180) for random k (1 to beyond the
** table) with and without max_distance_m, between random inserts and
** deletes, and compares every answer with
**
**   SELECT id, geo_distance(lat, lon, :lat, :lon) AS d FROM t
**    WHERE lat IS NOT NULL AND lon IS NOT NULL [AND d <= :max]
**    ORDER BY d, id LIMIT :k
**
** row for row: the same ids and bit-identical distances. nosql_explain
** must say rings for the recipe layouts and a scan for the one without.
**
**   build/property/nearest EXTENSION [ROUNDS]
**
** Prints one FAIL line per disagreement; the last line is "N passed,
** N failed" for tests/run.sh.
*/
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nPass, nFail;
static uint64_t rngState = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void) {
  rngState ^= rngState << 13;
  rngState ^= rngState >> 7;
  rngState ^= rngState << 17;
  return rngState;
}
static double unif(void) { return (double)(rnd() >> 11) / 9007199254740992.0; }
static int below(int n) { return n <= 0 ? 0 : (int)(rnd() % (uint64_t)n); }

static const char *const azLayout[7][2] = {
    {"CREATE TABLE t(id INTEGER PRIMARY KEY, lat REAL, lon REAL, gh TEXT AS (geohash(lat, lon)) STORED);"
     "CREATE INDEX t_gh ON t(gh, lat, lon);",
     "INSERT INTO t(id, lat, lon) VALUES (?1, ?2, ?3)"},
    {"CREATE TABLE t(gh TEXT NOT NULL CHECK (gh = geohash(lat, lon)), id INTEGER NOT NULL, lat REAL, lon "
     "REAL,"
     " PRIMARY KEY (gh, id)) WITHOUT ROWID;",
     "INSERT INTO t(id, lat, lon, gh) VALUES (?1, ?2, ?3, coalesce(geohash(?2, ?3), ''))"},
    {"CREATE TABLE t(code INTEGER NOT NULL CHECK (code = geohash_bits(lat, lon, 60)), id INTEGER NOT NULL,"
     " lat REAL, lon REAL, PRIMARY KEY (code, id)) WITHOUT ROWID;",
     "INSERT INTO t(id, lat, lon, code) VALUES (?1, ?2, ?3, coalesce(geohash_bits(?2, ?3, 60), 0))"},
    {"CREATE TABLE t(id INTEGER PRIMARY KEY, lat REAL, lon REAL, code INTEGER AS (geohash_bits(lat, lon, "
     "60)));"
     "CREATE INDEX t_code ON t(code);",
     "INSERT INTO t(id, lat, lon) VALUES (?1, ?2, ?3)"},
    {"CREATE TABLE t(id INTEGER PRIMARY KEY, lat REAL, lon REAL);",
     "INSERT INTO t(id, lat, lon) VALUES (?1, ?2, ?3)"},
    {"CREATE TABLE t(id INTEGER PRIMARY KEY, lat REAL, lon REAL); CREATE INDEX t_x ON t(geohash(lat, lon));",
     "INSERT INTO t(id, lat, lon) VALUES (?1, ?2, ?3)"},
    {"CREATE TABLE t(id INTEGER PRIMARY KEY, lat REAL, lon REAL);"
     "CREATE INDEX t_x ON t(geohash_bits(lat, lon, 60), lat, lon);",
     "INSERT INTO t(id, lat, lon) VALUES (?1, ?2, ?3)"},
};

/* A place to gather points around: anywhere, or at the awkward spots. */
static void randomPlace(double *pLat, double *pLon) {
  switch (below(6)) {
    case 0:
      *pLat = 90 - unif() * 0.5;
      break;
    case 1:
      *pLat = -90 + unif() * 0.5;
      break;
    default:
      *pLat = asin(2 * unif() - 1) * 180 / M_PI;
      break;
  }
  *pLon = below(3) == 0 ? (below(2) ? 180 - unif() * 0.3 : -180 + unif() * 0.3) : unif() * 360 - 180;
}

static double clampLat(double x) { return x > 90 ? 90 : x < -90 ? -90 : x; }
static double wrapLon(double x) {
  while (x > 180) x -= 360;
  while (x < -180) x += 360;
  return x;
}

/* Insert n points with ids from *piNext. */
static int addPoints(sqlite3 *db, sqlite3_stmt *pIns, int n, sqlite3_int64 *piNext) {
  double cLat, cLon, spread = pow(10, -3 + 4 * unif()); /* Degrees: a street to a continent */
  double lastLat = 0, lastLon = 0;
  int i, rc = SQLITE_OK;
  randomPlace(&cLat, &cLon);
  sqlite3_exec(db, "BEGIN", 0, 0, 0);
  for (i = 0; i < n && rc == SQLITE_OK; i++) {
    double lat, lon;
    int kind = below(100), bNullLat = 0, bNullLon = 0;
    if (kind < 45) {
      lat = asin(2 * unif() - 1) * 180 / M_PI;
      lon = unif() * 360 - 180;
    } else if (kind < 85) {
      lat = clampLat(cLat + (unif() - 0.5) * spread);
      lon = wrapLon(cLon + (unif() - 0.5) * spread);
    } else if (kind < 95 && i > 0) {
      lat = lastLat; /* A duplicate: a tie */
      lon = lastLon;
    } else if (kind < 97) {
      lat = below(2) ? 90 : -90;
      lon = below(3) == 0 ? 180 : below(2) ? -180 : 0;
    } else {
      lat = unif() * 10;
      lon = unif() * 10;
      bNullLat = below(2);
      bNullLon = !bNullLat || below(2);
    }
    sqlite3_bind_int64(pIns, 1, (*piNext)++);
    if (bNullLat)
      sqlite3_bind_null(pIns, 2);
    else
      sqlite3_bind_double(pIns, 2, lat);
    if (bNullLon)
      sqlite3_bind_null(pIns, 3);
    else
      sqlite3_bind_double(pIns, 3, lon);
    rc = sqlite3_step(pIns);
    rc = rc == SQLITE_DONE ? sqlite3_reset(pIns) : (sqlite3_reset(pIns), rc);
    if (!bNullLat && !bNullLon) {
      lastLat = lat;
      lastLon = lon;
    }
  }
  sqlite3_exec(db, "COMMIT", 0, 0, 0);
  if (rc != SQLITE_OK) printf("FAIL insert: %s\n", sqlite3_errmsg(db));
  return rc;
}

/* Compare one query with the scan. */
static void check(sqlite3 *db, sqlite3_stmt *pNear, sqlite3_stmt *pScan, int iRound, double lat, double lon,
                  sqlite3_int64 k, double rMax) {
  int n = 0, bBad = 0, rc1, rc2;
  sqlite3_stmt *a[2] = {pNear, pScan};
  int i;
  for (i = 0; i < 2; i++) {
    sqlite3_bind_double(a[i], 1, lat);
    sqlite3_bind_double(a[i], 2, lon);
    sqlite3_bind_int64(a[i], 3, k);
    if (rMax >= 0)
      sqlite3_bind_double(a[i], 4, rMax);
    else
      sqlite3_bind_null(a[i], 4);
  }
  for (;;) {
    rc1 = sqlite3_step(pNear);
    rc2 = sqlite3_step(pScan);
    if (rc1 != SQLITE_ROW || rc2 != SQLITE_ROW) break;
    n++;
    {
      sqlite3_int64 id1 = sqlite3_column_int64(pNear, 0), id2 = sqlite3_column_int64(pScan, 0);
      double d1 = sqlite3_column_double(pNear, 1), d2 = sqlite3_column_double(pScan, 1);
      if (id1 != id2 || memcmp(&d1, &d2, sizeof(double)) != 0) {
        printf(
            "FAIL round %d (%.17g, %.17g) k %lld max %.17g: row %d is %lld at %.17g, the scan has %lld at "
            "%.17g\n",
            iRound, lat, lon, (long long)k, rMax, n, (long long)id1, d1, (long long)id2, d2);
        bBad = 1;
        break;
      }
    }
  }
  if (!bBad && (rc1 != SQLITE_DONE || rc2 != SQLITE_DONE)) {
    printf("FAIL round %d (%.17g, %.17g) k %lld max %.17g: after %d rows geo_nearest %s, the scan %s (%s)\n",
           iRound, lat, lon, (long long)k, rMax, n,
           rc1 == SQLITE_ROW    ? "has more"
           : rc1 == SQLITE_DONE ? "ends"
                                : "fails",
           rc2 == SQLITE_ROW    ? "has more"
           : rc2 == SQLITE_DONE ? "ends"
                                : "fails",
           sqlite3_errmsg(db));
    bBad = 1;
  }
  sqlite3_reset(pNear);
  sqlite3_reset(pScan);
  if (bBad)
    nFail++;
  else
    nPass++;
}

static void randomCentre(sqlite3 *db, double *pLat, double *pLon) {
  sqlite3_stmt *pStmt = NULL;
  switch (below(6)) {
    case 0:
      sqlite3_prepare_v2(db,
                         "SELECT lat, lon FROM t WHERE lat IS NOT NULL AND lon IS NOT NULL"
                         " ORDER BY random() LIMIT 1",
                         -1, &pStmt, 0);
      if (pStmt && sqlite3_step(pStmt) == SQLITE_ROW) {
        *pLat = sqlite3_column_double(pStmt, 0);
        *pLon = sqlite3_column_double(pStmt, 1);
        sqlite3_finalize(pStmt);
        return;
      }
      sqlite3_finalize(pStmt);
      /* An empty table: a point anywhere. */
      /* fall through */
    case 1:
      *pLat = asin(2 * unif() - 1) * 180 / M_PI;
      *pLon = unif() * 360 - 180;
      return;
    case 2:
      *pLat = below(2) ? 90 : -90;
      *pLon = unif() * 360 - 180;
      return;
    default:
      randomPlace(pLat, pLon);
      return;
  }
}

int main(int argc, char **argv) {
  sqlite3 *db = NULL;
  char *zErr = NULL;
  int nRound = argc > 2 ? atoi(argv[2]) : 40, iRound;
  if (argc < 2) {
    fprintf(stderr, "usage: %s EXTENSION [ROUNDS]\n", argv[0]);
    return 2;
  }
  for (iRound = 0; iRound < nRound; iRound++) {
    int eLayout = iRound % 7, nQuery, q;
    sqlite3_int64 iNext = 1;
    sqlite3_stmt *pIns = NULL, *pNear = NULL, *pScan = NULL, *pPlan = NULL;
    sqlite3_open(":memory:", &db);
    sqlite3_enable_load_extension(db, 1);
    if (sqlite3_load_extension(db, argv[1], 0, &zErr) != SQLITE_OK) {
      printf("FAIL load: %s\n0 passed, 1 failed\n", zErr);
      return 1;
    }
    if (sqlite3_exec(db, azLayout[eLayout][0], 0, 0, &zErr) != SQLITE_OK ||
        sqlite3_prepare_v2(db, azLayout[eLayout][1], -1, &pIns, 0) != SQLITE_OK ||
        sqlite3_prepare_v2(
            db, "SELECT id, distance_m FROM geo_nearest('t', 'lat', 'lon', ?1, ?2, ?3, coalesce(?4, 1e300))",
            -1, &pNear, 0) != SQLITE_OK ||
        sqlite3_prepare_v2(
            db,
            "SELECT id, geo_distance(lat, lon, ?1, ?2) AS d FROM t WHERE lat IS NOT NULL AND lon IS NOT"
            " NULL AND (?4 IS NULL OR geo_distance(lat, lon, ?1, ?2) <= ?4) ORDER BY d, id LIMIT ?3",
            -1, &pScan, 0) != SQLITE_OK ||
        sqlite3_prepare_v2(db,
                           "SELECT plan_words FROM nosql_explain('SELECT * FROM geo_nearest(''t'', ''lat'', "
                           "''lon'', 0, 0, 1)')",
                           -1, &pPlan, 0) != SQLITE_OK) {
      printf("FAIL round %d setup: %s\n", iRound, zErr ? zErr : sqlite3_errmsg(db));
      nFail++;
      sqlite3_free(zErr);
      zErr = NULL;
    } else {
      int n = below(4) == 0 ? below(40) : below(3000);
      if (addPoints(db, pIns, n, &iNext) != SQLITE_OK) nFail++;
      if (below(2)) sqlite3_exec(db, "ANALYZE", 0, 0, 0);
      if (sqlite3_step(pPlan) == SQLITE_ROW) {
        const char *z = (const char *)sqlite3_column_text(pPlan, 0);
        int bRings = z && strstr(z, "geohash rings over INDEX") != NULL;
        if (bRings != (eLayout != 4)) {
          printf("FAIL round %d layout %d: plan '%s'\n", iRound, eLayout, z ? z : "NULL");
          nFail++;
        } else {
          nPass++;
        }
      }
      sqlite3_reset(pPlan);
      nQuery = 20 + below(20);
      for (q = 0; q < nQuery; q++) {
        double lat, lon, rMax = -1;
        sqlite3_int64 k;
        int nRows = (int)iNext;
        randomCentre(db, &lat, &lon);
        switch (below(8)) {
          case 0:
            k = nRows + below(10); /* Beyond the table */
            break;
          case 1:
            k = 1;
            break;
          case 2:
            k = 1 + below(nRows + 1);
            break;
          default:
            k = 1 + below(60);
            break;
        }
        if (below(4) == 0) rMax = below(3) == 0 ? 0 : pow(10, 2 + 5 * unif());
        check(db, pNear, pScan, iRound, lat, lon, k, rMax);
        if (below(6) == 0) {
          /* Writes between queries: the search must see them at once. */
          char zSql[160];
          if (below(2)) {
            snprintf(zSql, sizeof(zSql), "DELETE FROM t WHERE id %% %d = %d", 2 + below(5), below(2));
            sqlite3_exec(db, zSql, 0, 0, 0);
          } else {
            addPoints(db, pIns, 1 + below(200), &iNext);
          }
        }
      }
    }
    sqlite3_finalize(pIns);
    sqlite3_finalize(pNear);
    sqlite3_finalize(pScan);
    sqlite3_finalize(pPlan);
    sqlite3_close(db);
  }
  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail ? 1 : 0;
}
