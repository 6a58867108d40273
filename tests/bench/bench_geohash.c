/*
** bench_geohash.c: dimensionality reduction (technique 6), issue 3.
**
**   encode kernel   lat/lon -> 64 interleaved bits in C: classic bisection
**                   (the reference algorithm) vs magic-number spread vs
**                   BMI2 pdep (when the CPU has it)
**   SQL geohash()   per-row cost of geohash(lat, lon) above a bare scan
**   radius search   1M points uniform on the sphere, radii for about 100,
**                   1.6k and 10k hits: R*Tree + filter (baseline), full scan,
**                   (lat, lon) B-tree box + filter, geohash cover + B-tree
**                   ranges + filter in three layouts (plain index on gh
**                   with a rowid lookup per candidate, covering index
**                   (gh, lat, lon), WITHOUT ROWID table keyed (gh, id),
**                   the same keyed on the 60-bit integer code with
**                   geohash_cover_bits);
**                   candidates examined per hit; also ~10 hits, where the
**                   (lat, lon) B-tree's latitude band is widest relative
**                   to the circle; the bytes of each layout (dbstat)
**   index build     geohash B-tree vs R*Tree vs (lat, lon) B-tree
**
** --save DIR writes geohash_points.tsv (id, lat, lon) and
** geohash_queries.tsv (target hits, lat, lon, radius, hits) for
** tests/bench/redis_geo.py, which asks Redis GEOSEARCH the same questions.
*/
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Coordinates for the C kernels: n points, small enough to stay in cache,
** encoded nRound times so that the timing is the kernel's, not memory's. */
typedef struct GeoPoints GeoPoints;
struct GeoPoints {
  double *aLat;   /* Latitudes, degrees */
  double *aLon;   /* Longitudes, degrees */
  uint64_t *aOut; /* Codes written by a kernel */
  int n;          /* Number of points */
  int nRound;     /* Times each kernel encodes them */
};

/* The reference: 32 bisections per axis, longitude bit first. */
static uint64_t geoBisect(double lat, double lon) {
  double latLo = -90.0, latHi = 90.0, lonLo = -180.0, lonHi = 180.0;
  uint64_t v = 0;
  int i;
  for (i = 0; i < 32; i++) {
    double mid = (lonLo + lonHi) / 2;
    v <<= 1;
    if (lon >= mid) {
      v |= 1;
      lonLo = mid;
    } else {
      lonHi = mid;
    }
    mid = (latLo + latHi) / 2;
    v <<= 1;
    if (lat >= mid) {
      v |= 1;
      latLo = mid;
    } else {
      latHi = mid;
    }
  }
  return v;
}

/* Digest of the codes of the last round: one row per point would time the digest. */
static void geoDigest(const GeoPoints *p, BenchSum *pSum) {
  uint64_t h = 0, x = 0;
  int i;
  for (i = 0; i < p->n; i++) {
    h += p->aOut[i];
    x ^= p->aOut[i];
  }
  benchSumRow(pSum, &h, sizeof(h));
  benchSumRow(pSum, &x, sizeof(x));
}

/* Run xBatch nRound times over the points, then digest. */
static int geoKernelRounds(GeoPoints *p, void (*xBatch)(const double *, const double *, uint64_t *, int),
                           BenchSum *pSum) {
  int r;
  for (r = 0; r < p->nRound; r++) xBatch(p->aLat, p->aLon, p->aOut, p->n);
  geoDigest(p, pSum);
  return SQLITE_OK;
}

static void geoBatchBisect(const double *aLat, const double *aLon, uint64_t *aOut, int n) {
  int i;
  for (i = 0; i < n; i++) aOut[i] = geoBisect(aLat[i], aLon[i]);
}

static int geoKernelBisect(sqlite3 *db, void *pArg, BenchSum *pSum) {
  (void)db;
  return geoKernelRounds((GeoPoints *)pArg, geoBatchBisect, pSum);
}

static int geoKernelPortable(sqlite3 *db, void *pArg, BenchSum *pSum) {
  (void)db;
  return geoKernelRounds((GeoPoints *)pArg, geohashEncodeBatchPortable, pSum);
}

static int geoKernelPdep(sqlite3 *db, void *pArg, BenchSum *pSum) {
  (void)db;
  return geoKernelRounds((GeoPoints *)pArg, geohashEncodeBatchPdep, pSum);
}

static int geoKernelAvx2(sqlite3 *db, void *pArg, BenchSum *pSum) {
  (void)db;
  return geoKernelRounds((GeoPoints *)pArg, geohashEncodeBatchAvx2, pSum);
}

static void geoBenchKernel(Bench *p) {
  GeoPoints pts;
  uint64_t seed = 0x6765686173680001ull;
  int i;
  char zSize[64];
  int64_t nTotal = benchSize(p, 10000000, 1000);
  pts.n = nTotal < 65536 ? (int)nTotal : 65536; /* 1.5 MB of input: in cache */
  pts.nRound = (int)(nTotal / pts.n);
  pts.aLat = (double *)malloc(sizeof(double) * (size_t)pts.n);
  pts.aLon = (double *)malloc(sizeof(double) * (size_t)pts.n);
  pts.aOut = (uint64_t *)malloc(sizeof(uint64_t) * (size_t)pts.n);
  if (!pts.aLat || !pts.aLon || !pts.aOut) exit(2);
  for (i = 0; i < pts.n; i++) {
    pts.aLat[i] = (double)(benchRand(&seed) >> 11) * 0x1p-53 * 180.0 - 90.0;
    pts.aLon[i] = (double)(benchRand(&seed) >> 11) * 0x1p-53 * 360.0 - 180.0;
  }
  /* Exact borders and the closed ends, which the fast paths must get right. */
  pts.aLat[0] = 90.0;
  pts.aLon[0] = 180.0;
  pts.aLat[1] = -90.0;
  pts.aLon[1] = -180.0;
  pts.aLat[2] = 0.0;
  pts.aLon[2] = 0.0;
  {
    int nVar = geohashHasAvx2() ? 4 : geohashHasPdep() ? 3 : 2;
    const BenchVariant aVar[] = {
        {BENCH_C, "C: bisection, 32 steps per axis (reference)", 0, geoKernelBisect, &pts},
        {BENCH_C, "C: exact quantise + magic-number spread", 0, geoKernelPortable, &pts},
        {BENCH_C, "C: exact quantise + BMI2 pdep", 0, geoKernelPdep, &pts},
        {BENCH_C, "C: AVX2 exact quantise x4 + BMI2 pdep", 0, geoKernelAvx2, &pts},
    };
    snprintf(zSize, sizeof(zSize), "%d points x %d rounds%s", pts.n, pts.nRound,
             nVar >= 3 ? "" : ", no BMI2 on this CPU");
    benchCompare(p, "geohash: C encode kernel (64-bit code)", 0, zSize, pts.n, "points",
                 (double)pts.n * pts.nRound, "point", aVar, nVar);
  }
  free(pts.aLat);
  free(pts.aLon);
  free(pts.aOut);
}

/* One radius query, bound for the C variants. */
typedef struct GeoQuery GeoQuery;
struct GeoQuery {
  double lat;    /* Centre latitude */
  double lon;    /* Centre longitude */
  double radius; /* Metres */
};

/* A set of radius queries and the SQL that answers one of them. */
typedef struct GeoQuerySet GeoQuerySet;
struct GeoQuerySet {
  GeoQuery *aQuery; /* The queries */
  int nQuery;       /* Number of queries */
  const char *zSql; /* ?1 lat, ?2 lon, ?3 radius, ?4..?7 box (min_lat, max_lat, min_lon, max_lon) */
  int bBox;         /* True: run once per bounding box (1 or 2) */
  int nRound;       /* Times the whole set is asked (0 is once) */
};

/* Run zSql for every query (and every bounding box when bBox). */
static int geoRunQueries(sqlite3 *db, void *pArg, BenchSum *pSum) {
  GeoQuerySet *p = (GeoQuerySet *)pArg;
  sqlite3_stmt *pStmt = NULL;
  int rc = sqlite3_prepare_v2(db, p->zSql, -1, &pStmt, 0);
  int i, j, r;
  for (r = 0; rc == SQLITE_OK && r < (p->nRound > 1 ? p->nRound : 1); r++) {
    for (i = 0; rc == SQLITE_OK && i < p->nQuery; i++) {
      GeohashBounds aBox[2];
      int nBox =
          p->bBox ? geohashBoundingBoxes(p->aQuery[i].lat, p->aQuery[i].lon, p->aQuery[i].radius, aBox) : 1;
      for (j = 0; rc == SQLITE_OK && j < nBox; j++) {
        sqlite3_bind_double(pStmt, 1, p->aQuery[i].lat);
        sqlite3_bind_double(pStmt, 2, p->aQuery[i].lon);
        sqlite3_bind_double(pStmt, 3, p->aQuery[i].radius);
        if (p->bBox) {
          sqlite3_bind_double(pStmt, 4, aBox[j].minLat);
          sqlite3_bind_double(pStmt, 5, aBox[j].maxLat);
          sqlite3_bind_double(pStmt, 6, aBox[j].minLon);
          sqlite3_bind_double(pStmt, 7, aBox[j].maxLon);
        }
        rc = benchSumStmt(pSum, pStmt);
        sqlite3_reset(pStmt);
      }
    }
  }
  sqlite3_finalize(pStmt);
  return rc;
}

/* The rows of zSql over the queries, asked once, outside any timing. */
static BenchSum geoSum(sqlite3 *db, GeoQuery *aQuery, int nQuery, const char *zSql, int bBox) {
  GeoQuerySet set;
  BenchSum sum = {0, 0};
  set.aQuery = aQuery;
  set.nQuery = nQuery;
  set.zSql = zSql;
  set.bBox = bBox;
  set.nRound = 1;
  if (geoRunQueries(db, &set, &sum) != SQLITE_OK) {
    fprintf(stderr, "bench: %s\n", sqlite3_errmsg(db));
    exit(2);
  }
  return sum;
}

/* Rows of zSql summed over the queries: candidates or ranges. */
static int64_t geoCount(sqlite3 *db, GeoQuery *aQuery, int nQuery, const char *zSql, int bBox) {
  return geoSum(db, aQuery, nQuery, zSql, bBox).nRow;
}

static const char *const zGeoRtree =
    "SELECT p.id FROM rt JOIN pts p ON p.id = rt.id"
    " WHERE rt.minLat <= ?5 AND rt.maxLat >= ?4 AND rt.minLon <= ?7 AND rt.maxLon >= ?6"
    " AND geo_distance(p.lat, p.lon, ?1, ?2) <= ?3";
static const char *const zGeoFull = "SELECT id FROM pts WHERE geo_distance(lat, lon, ?1, ?2) <= ?3";
static const char *const zGeoLatLon =
    "SELECT id FROM pts WHERE lat BETWEEN ?4 AND ?5 AND lon BETWEEN ?6 AND ?7"
    " AND geo_distance(lat, lon, ?1, ?2) <= ?3";
/*
** The three layouts of the geohash recipe, each a B-tree keyed on the
** 12-character geohash: the plain index (gh) needs one rowid lookup in pts
** per candidate; the covering index (gh, lat, lon) and the WITHOUT ROWID
** table clustered on (gh, id) answer from the key's B-tree alone.
*/
static const char *const zGeoCover =
    "SELECT p.id FROM geohash_cover(?1, ?2, ?3) c JOIN pts p INDEXED BY pts_gh ON p.gh >= c.lo AND p.gh < "
    "c.hi"
    " WHERE geo_distance(p.lat, p.lon, ?1, ?2) <= ?3";
static const char *const zGeoCoverCovering =
    "SELECT p.id FROM geohash_cover(?1, ?2, ?3) c JOIN pts p INDEXED BY pts_ghc ON p.gh >= c.lo AND p.gh < "
    "c.hi"
    " WHERE geo_distance(p.lat, p.lon, ?1, ?2) <= ?3";
static const char *const zGeoCoverClustered =
    "SELECT w.id FROM geohash_cover(?1, ?2, ?3) c JOIN pts_wr w ON w.gh >= c.lo AND w.gh < c.hi"
    " WHERE geo_distance(w.lat, w.lon, ?1, ?2) <= ?3";
static const char *const zGeoCoverInt =
    "SELECT w.id FROM geohash_cover_bits(?1, ?2, ?3) c JOIN pts_int w ON w.code >= c.lo AND w.code < c.hi"
    " WHERE geo_distance(w.lat, w.lon, ?1, ?2) <= ?3";

/*
** Radius queries of about nHit hits, centred on data points: every layout
** side by side, each run asking the nQuery circles nRound times. With --save, the circles and their hit
*counts go to the
** temp table geo_queries (saved by benchGeohash()).
*/
static void geoBenchRadius(Bench *p, sqlite3 *db, int64_t nPoint, double nHit, int nQuery, int nRound) {
  GeoQuery *aQuery = (GeoQuery *)malloc(sizeof(GeoQuery) * (size_t)nQuery);
  GeoQuerySet aSet[6];
  uint64_t seed = 0x7261646975730000ull + (uint64_t)nHit;
  /* Uniform on the sphere: a cap of angle a holds N (1 - cos a) / 2 points. */
  double angle;
  double radius;
  double nTarget; /* nHit as asked, before a tiny --size caps it */
  int64_t nHits, nCand, nCandRt, nRange;
  char zSize[160], zTitle[96];
  int i;
  /* The title names the target, so that one comparison keeps one name at every --size. */
  snprintf(zTitle, sizeof(zTitle), "geohash: radius search, ~%.0f hits", nHit);
  nTarget = nHit;
  if (aQuery == NULL) exit(2);
  if (nHit > (double)nPoint / 8) nHit = (double)nPoint / 8; /* tiny --size runs */
  angle = acos(1.0 - 2.0 * nHit / (double)nPoint);
  radius = angle * GEOHASH_EARTH_RADIUS;
  for (i = 0; i < nQuery; i++) {
    /* Centres on data points, as "near this place" queries are. */
    int64_t id = (int64_t)(benchRand(&seed) % (uint64_t)nPoint) + 1;
    sqlite3_stmt *pStmt = NULL;
    sqlite3_prepare_v2(db, "SELECT lat, lon FROM pts WHERE id = ?1", -1, &pStmt, 0);
    sqlite3_bind_int64(pStmt, 1, id);
    if (sqlite3_step(pStmt) != SQLITE_ROW) exit(2);
    aQuery[i].lat = sqlite3_column_double(pStmt, 0);
    aQuery[i].lon = sqlite3_column_double(pStmt, 1);
    aQuery[i].radius = radius;
    sqlite3_finalize(pStmt);
  }
  if (p->zSave) {
    sqlite3_stmt *pIns = NULL;
    benchExec(db, "CREATE TEMP TABLE IF NOT EXISTS geo_queries(target, lat, lon, radius, hits)");
    sqlite3_prepare_v2(db, "INSERT INTO geo_queries VALUES (?1, ?2, ?3, ?4, ?5)", -1, &pIns, 0);
    for (i = 0; i < nQuery; i++) {
      sqlite3_bind_int64(pIns, 1, (sqlite3_int64)nHit);
      sqlite3_bind_double(pIns, 2, aQuery[i].lat);
      sqlite3_bind_double(pIns, 3, aQuery[i].lon);
      sqlite3_bind_double(pIns, 4, aQuery[i].radius);
      sqlite3_bind_int64(pIns, 5, geoCount(db, &aQuery[i], 1, zGeoCoverClustered, 0));
      sqlite3_step(pIns);
      sqlite3_reset(pIns);
    }
    sqlite3_finalize(pIns);
  }
  aSet[0] = (GeoQuerySet){aQuery, nQuery, zGeoRtree, 1, nRound};
  aSet[1] = (GeoQuerySet){aQuery, nQuery, zGeoLatLon, 1, nRound};
  aSet[2] = (GeoQuerySet){aQuery, nQuery, zGeoCover, 0, nRound};
  aSet[3] = (GeoQuerySet){aQuery, nQuery, zGeoCoverCovering, 0, nRound};
  aSet[4] = (GeoQuerySet){aQuery, nQuery, zGeoCoverClustered, 0, nRound};
  aSet[5] = (GeoQuerySet){aQuery, nQuery, zGeoCoverInt, 0, nRound};
  {
    /* The full scan is the truth, asked once (it takes seconds): the
    ** R*Tree baseline must return its rows, and there must be some. */
    BenchSum full = geoSum(db, aQuery, nQuery, zGeoFull, 0);
    BenchSum rt = geoSum(db, aQuery, nQuery, zGeoRtree, 1);
    int bAgree = full.nRow > 0 && full.nRow == rt.nRow && full.h == rt.h;
    nHits = full.nRow;
    if (bAgree)
      p->nAgree++;
    else
      p->nDisagree++;
    printf("\nfull scan + geo_distance (asked once): %lld rows, the R*Tree's %s\n", (long long)full.nRow,
           bAgree ? "agree" : "DISAGREE");
  }
  nCand =
      geoCount(db, aQuery, nQuery,
               "SELECT p.id FROM geohash_cover(?1, ?2, ?3) c JOIN pts p ON p.gh >= c.lo AND p.gh < c.hi", 0);
  nCandRt =
      geoCount(db, aQuery, nQuery,
               "SELECT id FROM rt WHERE minLat <= ?5 AND maxLat >= ?4 AND minLon <= ?7 AND maxLon >= ?6", 1);
  nRange = geoCount(db, aQuery, nQuery, "SELECT lo FROM geohash_cover(?1, ?2, ?3)", 0);
  {
    const BenchVariant aVar[] = {
        {BENCH_RELATIONAL, "R*Tree box + geo_distance filter", 0, geoRunQueries, &aSet[0]},
        {BENCH_RELATIONAL, "(lat, lon) B-tree box + geo_distance filter", 0, geoRunQueries, &aSet[1]},
        {BENCH_EXTENSION, "geohash cover, plain index (gh) + rowid lookup (cheap to add)", 0, geoRunQueries,
         &aSet[2]},
        {BENCH_EXTENSION, "geohash cover, covering index (gh, lat, lon) (default)", 0, geoRunQueries,
         &aSet[3]},
        {BENCH_EXTENSION, "geohash cover, WITHOUT ROWID table keyed (gh, id)", 0, geoRunQueries, &aSet[4]},
        {BENCH_EXTENSION, "geohash_cover_bits, WITHOUT ROWID table keyed (60-bit code, id)", 0, geoRunQueries,
         &aSet[5]},
    };
    snprintf(zSize, sizeof(zSize), "%lld points, %d queries x %d rounds, r = %.0f m%s", (long long)nPoint,
             nQuery, nRound, radius, nHit < nTarget ? ", fewer hits: capped at 1/8 of the points" : "");
    benchCompare(p, zTitle, db, zSize, (double)nPoint, "points", (double)nQuery * nRound, "query", aVar, 6);
  }
  printf(
      "\nhits per query %.1f; candidates per hit: geohash cover %.3f, R*Tree box %.3f; ranges per query "
      "%.1f\n",
      (double)nHits / nQuery, nHits ? (double)nCand / (double)nHits : 0.0,
      nHits ? (double)nCandRt / (double)nHits : 0.0, (double)nRange / nQuery);
  free(aQuery);
}

/* Bytes (dbstat pages) of the B-trees named in zIn, an SQL list of names. */
static int64_t geoBytes(sqlite3 *db, const char *zIn) {
  char *zSql = sqlite3_mprintf("SELECT sum(pgsize) FROM dbstat WHERE name IN (%s)", zIn);
  int64_t n;
  if (zSql == NULL) exit(2);
  n = benchInt(db, zSql);
  sqlite3_free(zSql);
  return n;
}

/* One index build, dropped again afterwards (the drop is timed too). */
static int geoBuild(sqlite3 *db, void *pArg, BenchSum *pSum) {
  const char *const *az = (const char *const *)pArg;
  int rc = sqlite3_exec(db, az[0], 0, 0, 0);
  if (rc == SQLITE_OK) {
    sqlite3_stmt *pStmt = NULL;
    rc = sqlite3_prepare_v2(db, az[1], -1, &pStmt, 0);
    if (rc == SQLITE_OK) rc = benchSumStmt(pSum, pStmt);
    sqlite3_finalize(pStmt);
  }
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, az[2], 0, 0, 0);
  return rc;
}

void benchGeohash(Bench *p) {
  sqlite3 *db;
  int64_t nPoint = benchSize(p, 1000000, 2000);
  char zSize[64];

  geoBenchKernel(p);

  db = benchOpen();
  benchExec(db, "CREATE TABLE pts(id INTEGER PRIMARY KEY, lat REAL, lon REAL, gh TEXT)");
  benchSpherePoints(db, "INSERT INTO pts VALUES(?1, ?2, ?3, geohash(?2, ?3))", nPoint);
  snprintf(zSize, sizeof(zSize), "%lld points", (long long)nPoint);

  {
    const BenchVariant aVar[] = {
        {BENCH_FLOOR, "bare scan: count(lat + lon)", "SELECT count(lat + lon) FROM pts", 0, 0},
        {BENCH_FLOOR, "for scale, a built-in call: count(abs(lat + lon))",
         "SELECT count(abs(lat + lon)) FROM pts", 0, 0},
        {BENCH_EXTENSION, "SQL geohash(lat, lon), 12 chars", "SELECT count(geohash(lat, lon)) FROM pts", 0,
         0},
        {BENCH_EXTENSION, "SQL geohash_bits(lat, lon)", "SELECT count(geohash_bits(lat, lon)) FROM pts", 0,
         0},
    };
    benchCompare(p, "geohash: SQL function per row", db, zSize, (double)nPoint, "points", (double)nPoint,
                 "row", aVar, 4);
  }

  {
    static const char *const azGh[] = {"CREATE INDEX pts_gh ON pts(gh)", "SELECT count(*) FROM pts",
                                       "DROP INDEX pts_gh"};
    static const char *const azExpr[] = {"CREATE INDEX pts_ghx ON pts(geohash(lat, lon))",
                                         "SELECT count(*) FROM pts", "DROP INDEX pts_ghx"};
    static const char *const azRt[] = {
        "CREATE VIRTUAL TABLE rt USING rtree(id, minLat, maxLat, minLon, maxLon);"
        "INSERT INTO rt SELECT id, lat, lat, lon, lon FROM pts",
        "SELECT count(*) FROM rt", "DROP TABLE rt"};
    static const char *const azGhc[] = {"CREATE INDEX pts_ghc ON pts(gh, lat, lon)",
                                        "SELECT count(*) FROM pts", "DROP INDEX pts_ghc"};
    static const char *const azWr[] = {
        "CREATE TABLE pts_wr(gh TEXT, id INTEGER, lat REAL, lon REAL, PRIMARY KEY (gh, id)) WITHOUT ROWID;"
        "INSERT INTO pts_wr SELECT gh, id, lat, lon FROM pts ORDER BY gh, id",
        "SELECT count(*) FROM pts_wr", "DROP TABLE pts_wr"};
    static const char *const azLl[] = {"CREATE INDEX pts_ll ON pts(lat, lon)", "SELECT count(*) FROM pts",
                                       "DROP INDEX pts_ll"};
    const BenchVariant aVar[] = {
        {BENCH_RELATIONAL, "R*Tree: CREATE VIRTUAL TABLE + INSERT", 0, geoBuild, (void *)azRt},
        {BENCH_RELATIONAL, "(lat, lon) B-tree: CREATE INDEX", 0, geoBuild, (void *)azLl},
        {BENCH_MODEL, "geohash B-tree: CREATE INDEX on stored gh", 0, geoBuild, (void *)azGh},
        {BENCH_EXTENSION, "geohash B-tree: CREATE INDEX on geohash(lat, lon)", 0, geoBuild, (void *)azExpr},
        {BENCH_MODEL, "geohash covering B-tree: CREATE INDEX (gh, lat, lon)", 0, geoBuild, (void *)azGhc},
        {BENCH_MODEL, "geohash WITHOUT ROWID table: INSERT ... ORDER BY gh", 0, geoBuild, (void *)azWr},
    };
    benchCompare(p, "geohash: index build", db, zSize, (double)nPoint, "points", (double)nPoint, "point",
                 aVar, 6);
  }

  benchExec(db,
            "CREATE INDEX pts_gh ON pts(gh); CREATE INDEX pts_ghc ON pts(gh, lat, lon);"
            "CREATE INDEX pts_ll ON pts(lat, lon);"
            "CREATE VIRTUAL TABLE rt USING rtree(id, minLat, maxLat, minLon, maxLon);"
            "INSERT INTO rt SELECT id, lat, lat, lon, lon FROM pts");
  benchExec(
      db,
      "CREATE TABLE pts_wr(gh TEXT, id INTEGER, lat REAL, lon REAL, PRIMARY KEY (gh, id)) WITHOUT ROWID;"
      "INSERT INTO pts_wr SELECT gh, id, lat, lon FROM pts ORDER BY gh, id;"
      "CREATE TABLE pts_int(code INTEGER, id INTEGER, lat REAL, lon REAL, PRIMARY KEY (code, id)) WITHOUT "
      "ROWID;"
      "INSERT INTO pts_int SELECT geohash_bits(lat, lon, 60), id, lat, lon FROM pts ORDER BY 1, 2");
  {
    static const char *const azLayout[][2] = {
        {"the table pts(id INTEGER PRIMARY KEY, lat, lon, gh), for scale", "'pts'"},
        {"plain index (gh)", "'pts_gh'"},
        {"covering index (gh, lat, lon)", "'pts_ghc'"},
        {"WITHOUT ROWID table (gh, id, lat, lon), instead of the table", "'pts_wr'"},
        {"WITHOUT ROWID table (60-bit code, id, lat, lon), instead of the table", "'pts_int'"},
        {"(lat, lon) B-tree", "'pts_ll'"},
        {"R*Tree (node, rowid and parent tables)", "'rt_node', 'rt_rowid', 'rt_parent'"},
    };
    int k;
    printf("\n### geohash: bytes of each layout (%s, dbstat pages)\n\n", zSize);
    printf("| structure | bytes | bytes per point |\n|---|---:|---:|\n");
    for (k = 0; k < (int)(sizeof(azLayout) / sizeof(azLayout[0])); k++) {
      int64_t n = geoBytes(db, azLayout[k][1]);
      printf("| %s | %lld | %.1f |\n", azLayout[k][0], (long long)n, (double)n / (double)nPoint);
    }
  }
  /* Rounds: each timed run asks a few thousand queries' worth of work, so
  ** that a run lasts milliseconds and a scheduler's hiccup does not decide. */
  geoBenchRadius(p, db, nPoint, 10, 20, 50);
  geoBenchRadius(p, db, nPoint, 100, 20, 20);
  geoBenchRadius(p, db, nPoint, 1600, 10, 5);
  geoBenchRadius(p, db, nPoint, 10000, 5, 2);
  benchSave(p, db, "geohash_points.tsv", "SELECT id, lat, lon FROM pts ORDER BY id");
  benchSave(p, db, "geohash_queries.tsv", "SELECT target, lat, lon, radius, hits FROM geo_queries");
  sqlite3_close(db);
}
