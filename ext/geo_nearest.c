/*
** geo_nearest.c: exact k-nearest-neighbour search over a table of points,
** the search that users of Redis (GEOSEARCH ... ASC COUNT k) and PostGIS
** (ORDER BY geom <-> point LIMIT k) reach for after the radius recipe of
** ext/geohash.c.
**
**   CREATE TABLE geo_nearest(id, distance_m REAL, table_name HIDDEN,
**                            lat_col HIDDEN, lon_col HIDDEN, lat HIDDEN,
**                            lon HIDDEN, k HIDDEN, max_distance_m HIDDEN);
**
**   SELECT id, distance_m FROM geo_nearest('places', 'lat', 'lon', :lat, :lon, 10);
**
** The rows are the k rows of the table nearest to (lat, lon), nearest
** first, ties by id (as ORDER BY id sorts them), with max_distance_m (when
** given) dropping the rows farther than that. The distances are
** geohashDistance(), the function behind geo_distance(), called with the
** row's point first as geo_distance(lat_col, lon_col, :lat, :lon) is, so
** the answer equals that of the full scan
**
**   SELECT rowid, geo_distance(lat, lon, :lat, :lon) AS d FROM t
**    WHERE lat IS NOT NULL AND lon IS NOT NULL ORDER BY d, rowid LIMIT :k;
**
** id is the rowid of a rowid table; of a WITHOUT ROWID table, the one
** primary key column that is not the geohash key (a table keyed (gh, id)
** answers with id); a WITHOUT ROWID table with more is refused. Rows with
** a NULL latitude or longitude are skipped; any other value that is not a
** latitude or longitude is an error naming the row.
**
** How it works. The table's geohash recipe (docs/geohash.md) is found from
** its schema: a column that holds the 12-character geohash of
** (lat_col, lon_col), because it is GENERATED ALWAYS AS (geohash(lat, lon))
** or has CHECK (gh = geohash(lat, lon)), or the 60-bit code
** geohash_bits(lat, lon, 60) under the same two forms; and an index (a
** WITHOUT ROWID table's primary key counts) whose first column it is, not
** partial; or a non-partial index whose first expression is one of those
** three calls (CREATE INDEX x ON t(geohash(lat, lon))), the range scans
** then writing the same expression so that SQLite uses that index.
** With one, the search grows covers ring by ring: the circle of
** radius r0 (the radius that holds about k + 1.5 sqrt(k) rows if they were
** spread evenly over the sphere, from sqlite_stat1, the largest rowid, and
** the density the previous searches saw within their first circle: fewer
** instructions over k = 1, 10 and 100 by callgrind than 1.5k, 2k or
** k + sqrt(k); one ring mostly settles it) is covered by
** geohashCoverCircle(); every range of the cover not searched by an
** earlier ring is read with one index range scan, and every row read goes
** to a bounded max-heap of the best k. The search
** stops when the heap holds k rows and the k-th distance is at most the
** radius covered (no row outside the cover is within the radius, so none
** can be nearer), when the radius reaches max_distance_m, or when the
** cover is the whole key range. Otherwise the next radius is the k-th
** distance (the heap is full: one more ring settles it) or twice the
** radius (more when the rows seen so far are sparse). The covers handle
** the poles and the antimeridian, so the rings do too.
**
** Without a recipe the table is read once, every row through the heap.
** nosql_explain() says which: "geo_nearest: geohash rings over INDEX x" or
** "geo_nearest: full scan of t" (the plan knows when the table, lat_col and
** lon_col are literals). The resolved table, its recipe and its prepared
** statement are kept in the virtual table (one per connection; the last
** four tables searched, so that a join over two tables does not resolve
** them again and again) and checked against the schema's version on every
** call.
*/
#include "nosqlInt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* How a source is read. */
#define NEAREST_SCAN 0 /* No recipe: every row */
#define NEAREST_TEXT 1 /* A 12-character geohash column and its index */
#define NEAREST_BITS 2 /* A geohash_bits(lat, lon, 60) column and its index */

/* Columns of the table. */
#define NEAREST_COL_ID 0
#define NEAREST_COL_DIST 1
#define NEAREST_COL_TABLE 2 /* First HIDDEN argument; seven in all */
#define NEAREST_NARG 7

/* Tables whose resolution and statements a connection keeps. */
#define NEAREST_CACHE 4

typedef struct NearestSource NearestSource;
typedef struct NearestHit NearestHit;
typedef struct NearestHeap NearestHeap;
typedef struct nearest_vtab nearest_vtab;
typedef struct nearest_cursor nearest_cursor;

/* A table resolved for the search, with its statements. */
struct NearestSource {
  char *zArgTable;     /* The table argument as given (the cache key) */
  char *zArgLat;       /* lat_col as given */
  char *zArgLon;       /* lon_col as given */
  char *zSchema;       /* Schema holding the table */
  char *zTable;        /* The table, as declared */
  char *zKey;          /* The geohash key column, or NULL (NEAREST_SCAN) */
  char *zIndex;        /* The index whose first column zKey is, or NULL */
  char *zKeySql;       /* The key as the range scan writes it: zKey quoted, or the index's expression */
  int eRecipe;         /* NEAREST_* */
  int iVersion;        /* schema_version of zSchema when resolved */
  int iTempVersion;    /* schema_version of temp when resolved (a temp table may shadow) */
  double rRowEst;      /* Rows the table holds, a guess for the first radius */
  sqlite3_stmt *pRead; /* SELECT id, lat, lon: WHERE key >= ?1 AND key < ?2 with a recipe */
  sqlite3_stmt *pVer;  /* PRAGMA "zSchema".schema_version */
  sqlite3_stmt *pTemp; /* PRAGMA temp.schema_version */
  int bBusy;           /* A search is using the statements (re-entrance takes a private copy) */
  sqlite3_int64 iUsed; /* nearest_vtab.iClock when last used */
};

/* One row found: its distance and its id. */
struct NearestHit {
  double rDist;      /* Metres */
  int eType;         /* Type of the id: SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT or SQLITE_BLOB */
  sqlite3_int64 iId; /* SQLITE_INTEGER id */
  double rId;        /* SQLITE_FLOAT id */
  char *zId;         /* Text or blob id (sqlite3_malloc64, owned), else NULL */
  int nId;           /* Bytes of zId */
};

/* The best rows so far: a max-heap on (distance, id) of at most nMax. */
struct NearestHeap {
  NearestHit *a;      /* Heap order; sorted ascending after nearestHeapSort() */
  int n;              /* Entries used */
  int nAlloc;         /* Entries allocated */
  sqlite3_int64 nMax; /* k */
  double rMax;        /* Rows farther than this are not kept (max_distance_m or infinity) */
};

struct nearest_vtab {
  sqlite3_vtab base;                   /* Base class - must be first */
  sqlite3 *db;                         /* The connection */
  NearestSource *apSrc[NEAREST_CACHE]; /* The tables searched last, or NULL */
  sqlite3_int64 iClock;                /* Searches so far (NearestSource.iUsed) */
  GeohashCover *pCover;                /* Room for one cover, allocated by the first ring search */
};

struct nearest_cursor {
  sqlite3_vtab_cursor base;            /* Base class - must be first */
  NearestHeap heap;                    /* The rows, sorted, after xFilter */
  int iRow;                            /* Current row */
  sqlite3_value *apKeep[NEAREST_NARG]; /* Copies of the arguments, for the HIDDEN columns */
};

/**************************************************************************
** Ids and the heap.
*/

/* Compare ids as ORDER BY compares values with BINARY collation (no NULL ids). */
static int nearestIdCmp(const NearestHit *a, const NearestHit *b) {
  int ra = a->eType == SQLITE_INTEGER || a->eType == SQLITE_FLOAT ? 1 : a->eType == SQLITE_TEXT ? 2 : 3;
  int rb = b->eType == SQLITE_INTEGER || b->eType == SQLITE_FLOAT ? 1 : b->eType == SQLITE_TEXT ? 2 : 3;
  if (ra != rb) return ra < rb ? -1 : 1;
  if (ra == 1) {
    if (a->eType == SQLITE_INTEGER && b->eType == SQLITE_INTEGER) {
      return a->iId < b->iId ? -1 : a->iId > b->iId;
    } else {
      double x = a->eType == SQLITE_INTEGER ? (double)a->iId : a->rId;
      double y = b->eType == SQLITE_INTEGER ? (double)b->iId : b->rId;
      return x < y ? -1 : x > y;
    }
  } else {
    int n = a->nId < b->nId ? a->nId : b->nId;
    int c = n > 0 ? memcmp(a->zId, b->zId, (size_t)n) : 0;
    if (c != 0) return c;
    return a->nId < b->nId ? -1 : a->nId > b->nId;
  }
}

/* Order of the result: distance, then id. */
static int nearestHitCmp(const NearestHit *a, const NearestHit *b) {
  if (a->rDist != b->rDist) return a->rDist < b->rDist ? -1 : 1;
  return nearestIdCmp(a, b);
}

static void nearestHeapClear(NearestHeap *p) {
  int i;
  for (i = 0; i < p->n; i++) sqlite3_free(p->a[i].zId);
  sqlite3_free(p->a);
  memset(p, 0, sizeof(*p));
}

static void nearestSiftDown(NearestHeap *p, int i) {
  NearestHit t = p->a[i];
  for (;;) {
    int c = 2 * i + 1;
    if (c >= p->n) break;
    if (c + 1 < p->n && nearestHitCmp(&p->a[c + 1], &p->a[c]) > 0) c++;
    if (nearestHitCmp(&p->a[c], &t) <= 0) break;
    p->a[i] = p->a[c];
    i = c;
  }
  p->a[i] = t;
}

/* True when a row at rDist could enter the heap (saves reading its id). */
static int nearestHeapWants(const NearestHeap *p, double rDist) {
  if (!(rDist <= p->rMax)) return 0;
  return p->n < p->nMax || rDist <= p->a[0].rDist;
}

/*
** Offer the row (rDist, id pId) to the heap. pId is the statement's
** column value; a text or blob id is copied. SQLITE_OK or SQLITE_NOMEM.
*/
static int nearestHeapOffer(NearestHeap *p, double rDist, sqlite3_value *pId) {
  NearestHit h;
  int i;
  memset(&h, 0, sizeof(h));
  h.rDist = rDist;
  h.eType = sqlite3_value_type(pId);
  if (h.eType == SQLITE_INTEGER) {
    h.iId = sqlite3_value_int64(pId);
  } else if (h.eType == SQLITE_FLOAT) {
    h.rId = sqlite3_value_double(pId);
  } else if (h.eType == SQLITE_NULL) {
    return SQLITE_OK; /* Rowids and WITHOUT ROWID keys are never NULL: nothing to return */
  }
  if (p->n == p->nMax && nearestHitCmp(&h, &p->a[0]) >= 0) return SQLITE_OK;
  if (h.eType == SQLITE_TEXT || h.eType == SQLITE_BLOB) {
    const void *z = h.eType == SQLITE_TEXT ? (const void *)sqlite3_value_text(pId) : sqlite3_value_blob(pId);
    h.nId = sqlite3_value_bytes(pId);
    if (z == NULL && h.nId > 0) return SQLITE_NOMEM;
    h.zId = (char *)sqlite3_malloc64((sqlite3_uint64)h.nId + 1);
    if (h.zId == NULL) return SQLITE_NOMEM;
    if (h.nId > 0) memcpy(h.zId, z, (size_t)h.nId);
  }
  if (p->n == p->nMax) {
    sqlite3_free(p->a[0].zId);
    p->a[0] = h;
    nearestSiftDown(p, 0);
    return SQLITE_OK;
  }
  if (p->n == p->nAlloc) {
    int nNew = p->nAlloc ? 2 * p->nAlloc : 16;
    NearestHit *aNew;
    if ((sqlite3_int64)nNew > p->nMax) nNew = (int)p->nMax;
    aNew = (NearestHit *)sqlite3_realloc64(p->a, sizeof(NearestHit) * (sqlite3_uint64)nNew);
    if (aNew == NULL) {
      sqlite3_free(h.zId);
      return SQLITE_NOMEM;
    }
    p->a = aNew;
    p->nAlloc = nNew;
  }
  for (i = p->n++; i > 0 && nearestHitCmp(&p->a[(i - 1) / 2], &h) < 0; i = (i - 1) / 2) {
    p->a[i] = p->a[(i - 1) / 2];
  }
  p->a[i] = h;
  return SQLITE_OK;
}

/* Sort the heap's entries ascending (heap sort in place). */
static void nearestHeapSort(NearestHeap *p) {
  int n = p->n;
  while (p->n > 1) {
    NearestHit t = p->a[0];
    p->a[0] = p->a[--p->n];
    p->a[p->n] = t;
    nearestSiftDown(p, 0);
  }
  p->n = n;
}

/**************************************************************************
** The source: the table, its recipe, its statements.
*/

static void nearestSourceFree(NearestSource *p) {
  if (p == NULL) return;
  sqlite3_free(p->zArgTable);
  sqlite3_free(p->zArgLat);
  sqlite3_free(p->zArgLon);
  sqlite3_free(p->zSchema);
  sqlite3_free(p->zTable);
  sqlite3_free(p->zKey);
  sqlite3_free(p->zKeySql);
  sqlite3_free(p->zIndex);
  sqlite3_finalize(p->pRead);
  sqlite3_finalize(p->pVer);
  sqlite3_finalize(p->pTemp);
  sqlite3_free(p);
}

/* Run a one-value statement (reset after): its integer, or -1 on error with *pRc set. */
static sqlite3_int64 nearestStepInt(sqlite3_stmt *pStmt, int *pRc) {
  sqlite3_int64 v = -1;
  int rc;
  if (*pRc != SQLITE_OK) return -1;
  rc = sqlite3_step(pStmt);
  if (rc == SQLITE_ROW) {
    v = sqlite3_column_int64(pStmt, 0);
  } else if (rc != SQLITE_DONE) {
    *pRc = rc;
  }
  rc = sqlite3_reset(pStmt);
  if (*pRc == SQLITE_OK && rc != SQLITE_OK) *pRc = rc;
  return v;
}

/* Prepare zSql (sqlite3_mprintf'd, freed here) into *ppStmt, with *pRc sticky. */
static void nearestPrepare(sqlite3 *db, int *pRc, char *zSql, sqlite3_stmt **ppStmt) {
  if (*pRc == SQLITE_OK) {
    *pRc = zSql ? sqlite3_prepare_v2(db, zSql, -1, ppStmt, 0) : SQLITE_NOMEM;
  }
  sqlite3_free(zSql);
}

/*
** The CREATE TABLE text as column definitions: each definition's first
** token (dequoted) and all its tokens normalised (identifiers dequoted,
** lowercased, joined without spaces), so that "GENERATED ALWAYS AS
** (geohash("lat", lon))" reads "generatedalwaysas(geohash(lat,lon))".
*/
typedef struct NearestDefs NearestDefs;
struct NearestDefs {
  int n;         /* Definitions */
  char **azName; /* First token of each, dequoted */
  char **azNorm; /* Normalised text of each */
};

static void nearestDefsClear(NearestDefs *p) {
  int i;
  for (i = 0; i < p->n; i++) {
    sqlite3_free(p->azName[i]);
    sqlite3_free(p->azNorm[i]);
  }
  sqlite3_free(p->azName);
  sqlite3_free(p->azNorm);
  memset(p, 0, sizeof(*p));
}

static char nearestLower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c; }

/* Append one token, normalised, to pOut. */
static void nearestNormToken(int *pRc, NosqlBuffer *pOut, const char *z, int n) {
  char *zTok;
  int i;
  if (*pRc != SQLITE_OK) return;
  zTok = (z[0] == '"' || z[0] == '`' || z[0] == '[') ? nosqlDequote(z, n) : sqlite3_mprintf("%.*s", n, z);
  if (zTok == NULL) {
    *pRc = SQLITE_NOMEM;
    return;
  }
  if (z[0] != '\'') {
    for (i = 0; zTok[i]; i++) zTok[i] = nearestLower(zTok[i]);
  }
  nosqlBufferAppend(pRc, pOut, zTok, -1);
  sqlite3_free(zTok);
}

static int nearestDefsParse(const char *zSql, NearestDefs *p) {
  NosqlBuffer b = {0, 0, 0};
  int rc = SQLITE_OK, i = 0, n, depth = 0, bNew = 1;
  const char *z;
  memset(p, 0, sizeof(*p));
  while (rc == SQLITE_OK && (z = nosqlSqlToken(zSql, &i, &n)) != NULL) {
    if (depth == 0) {
      if (z[0] == '(' && n == 1) depth = 1;
      continue;
    }
    if (n == 1 && z[0] == ')' && --depth == 0) break;
    if (n == 1 && z[0] == '(') depth++;
    if (depth == 1 && n == 1 && z[0] == ',') {
      bNew = 1;
      continue;
    }
    if (bNew) {
      char **azN = (char **)sqlite3_realloc64(p->azName, sizeof(char *) * (sqlite3_uint64)(p->n + 1));
      char **azM =
          azN ? (char **)sqlite3_realloc64(p->azNorm, sizeof(char *) * (sqlite3_uint64)(p->n + 1)) : 0;
      if (azN) p->azName = azN;
      if (azM) p->azNorm = azM;
      if (azN == NULL || azM == NULL) {
        rc = SQLITE_NOMEM;
        break;
      }
      p->azName[p->n] = nosqlDequote(z, n);
      p->azNorm[p->n] = NULL;
      p->n++;
      if (p->azName[p->n - 1] == NULL) rc = SQLITE_NOMEM;
      nosqlBufferReset(&b);
      bNew = 0;
    }
    nearestNormToken(&rc, &b, z, n);
    if (rc == SQLITE_OK) {
      sqlite3_free(p->azNorm[p->n - 1]);
      p->azNorm[p->n - 1] = sqlite3_mprintf("%.*s", (int)b.n, b.a ? (const char *)b.a : "");
      if (p->azNorm[p->n - 1] == NULL) rc = SQLITE_NOMEM;
    }
  }
  nosqlBufferFree(&b);
  if (rc != SQLITE_OK) nearestDefsClear(p);
  return rc;
}

/*
** Does column zCol (declared name) hold the geohash of (zLat, zLon)?
** NEAREST_TEXT, NEAREST_BITS, or NEAREST_SCAN (no). *pRc sticky.
*/
static int nearestKeyRecipe(int *pRc, const NearestDefs *pDefs, const char *zCol, const char *zLat,
                            const char *zLon) {
  static const char *const azExpr[] = {"geohash(%s,%s)", "geohash(%s,%s,12)", "geohash_bits(%s,%s,60)"};
  int e, i, eFound = NEAREST_SCAN;
  for (e = 0; e < 3 && eFound == NEAREST_SCAN && *pRc == SQLITE_OK; e++) {
    char *zExpr = sqlite3_mprintf(azExpr[e], zLat, zLon);
    char *zGen = zExpr ? sqlite3_mprintf("as(%s)", zExpr) : NULL;
    char *zChk1 = zExpr ? sqlite3_mprintf("check(%s=%s)", zCol, zExpr) : NULL;
    char *zChk2 = zExpr ? sqlite3_mprintf("check(%s=%s)", zExpr, zCol) : NULL;
    if (zGen == NULL || zChk1 == NULL || zChk2 == NULL) {
      *pRc = SQLITE_NOMEM;
    } else {
      for (i = 0; zChk1[i]; i++) zChk1[i] = nearestLower(zChk1[i]);
      for (i = 0; zChk2[i]; i++) zChk2[i] = nearestLower(zChk2[i]);
      for (i = 0; zGen[i]; i++) zGen[i] = nearestLower(zGen[i]);
      for (i = 0; i < pDefs->n && eFound == NEAREST_SCAN; i++) {
        int bMine = sqlite3_stricmp(pDefs->azName[i], zCol) == 0;
        if ((bMine && strstr(pDefs->azNorm[i], zGen)) || strstr(pDefs->azNorm[i], zChk1) ||
            strstr(pDefs->azNorm[i], zChk2)) {
          eFound = e == 2 ? NEAREST_BITS : NEAREST_TEXT;
        }
      }
    }
    sqlite3_free(zExpr);
    sqlite3_free(zGen);
    sqlite3_free(zChk1);
    sqlite3_free(zChk2);
  }
  return eFound;
}

/*
** Is the first expression of index zIdxSql (its CREATE INDEX text) the
** geohash of (zLat, zLon): geohash(lat, lon), geohash(lat, lon, 12) or
** geohash_bits(lat, lon, 60)? NEAREST_TEXT or NEAREST_BITS with *pzKeySql
** the expression as the range scan must write it for SQLite to use the
** index (the same function, the same arguments), or NEAREST_SCAN.
*/
static int nearestExprRecipe(int *pRc, const char *zIdxSql, const char *zLat, const char *zLon,
                             char **pzKeySql) {
  static const struct {
    const char *zNorm; /* Normalised, %s the lowercased names */
    const char *zSql;  /* As written, %w the names */
    int eRecipe;       /* What it holds */
  } aExpr[] = {
      {"geohash(%s,%s)", "geohash(\"%w\", \"%w\")", NEAREST_TEXT},
      {"geohash(%s,%s,12)", "geohash(\"%w\", \"%w\", 12)", NEAREST_TEXT},
      {"geohash_bits(%s,%s,60)", "geohash_bits(\"%w\", \"%w\", 60)", NEAREST_BITS},
  };
  NearestDefs defs = {0, 0, 0};
  int e, i, eFound = NEAREST_SCAN;
  if (*pRc != SQLITE_OK) return NEAREST_SCAN;
  *pRc = nearestDefsParse(zIdxSql, &defs);
  for (e = 0; *pRc == SQLITE_OK && defs.n > 0 && e < 3 && eFound == NEAREST_SCAN; e++) {
    char *zNorm = sqlite3_mprintf(aExpr[e].zNorm, zLat, zLon);
    if (zNorm == NULL) {
      *pRc = SQLITE_NOMEM;
      break;
    }
    for (i = 0; zNorm[i]; i++) zNorm[i] = nearestLower(zNorm[i]);
    i = (int)strlen(zNorm);
    if (strncmp(defs.azNorm[0], zNorm, (size_t)i) == 0 &&
        (defs.azNorm[0][i] == 0 || strcmp(&defs.azNorm[0][i], "asc") == 0 ||
         strcmp(&defs.azNorm[0][i], "desc") == 0)) {
      *pzKeySql = sqlite3_mprintf(aExpr[e].zSql, zLat, zLon);
      if (*pzKeySql == NULL) *pRc = SQLITE_NOMEM;
      eFound = aExpr[e].eRecipe;
    }
    sqlite3_free(zNorm);
  }
  nearestDefsClear(&defs);
  return *pRc == SQLITE_OK ? eFound : NEAREST_SCAN;
}

/*
** Find the recipe of p (resolved table, columns zLat and zLon as
** declared): p->eRecipe, p->zKey, p->zIndex. A table without one is
** NEAREST_SCAN.
*/
static int nearestFindRecipe(sqlite3 *db, NearestSource *p, const char *zLat, const char *zLon) {
  sqlite3_stmt *pStmt = NULL;
  NearestDefs defs = {0, 0, 0};
  char *zSql = NULL;
  int rc = SQLITE_OK;
  nearestPrepare(
      db, &rc,
      sqlite3_mprintf("SELECT sql FROM \"%w\".sqlite_schema WHERE type = 'table' AND name = ?1", p->zSchema),
      &pStmt);
  if (rc == SQLITE_OK) {
    sqlite3_bind_text(pStmt, 1, p->zTable, -1, SQLITE_STATIC);
    if (sqlite3_step(pStmt) == SQLITE_ROW && sqlite3_column_text(pStmt, 0)) {
      zSql = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(pStmt, 0));
      if (zSql == NULL) rc = SQLITE_NOMEM;
    }
    if (rc == SQLITE_OK)
      rc = sqlite3_finalize(pStmt);
    else
      sqlite3_finalize(pStmt);
    pStmt = NULL;
  }
  if (rc == SQLITE_OK && zSql) rc = nearestDefsParse(zSql, &defs);
  sqlite3_free(zSql);
  /* Indexes that are not partial, by their first column or expression (cid -2). */
  nearestPrepare(
      db, &rc,
      sqlite3_mprintf("SELECT l.name, x.name, x.cid, (SELECT sql FROM \"%w\".sqlite_schema AS s"
                      " WHERE s.type = 'index' AND s.name = l.name) FROM pragma_index_list(?1, ?2) AS l,"
                      " pragma_index_xinfo(l.name, ?2) AS x WHERE x.seqno = 0 AND NOT l.partial"
                      " AND (x.name IS NOT NULL OR x.cid = -2) ORDER BY l.origin = 'pk' DESC, l.name",
                      p->zSchema),
      &pStmt);
  if (rc == SQLITE_OK) {
    sqlite3_bind_text(pStmt, 1, p->zTable, -1, SQLITE_STATIC);
    sqlite3_bind_text(pStmt, 2, p->zSchema, -1, SQLITE_STATIC);
    while (rc == SQLITE_OK && p->eRecipe == NEAREST_SCAN && sqlite3_step(pStmt) == SQLITE_ROW) {
      const char *zIdx = (const char *)sqlite3_column_text(pStmt, 0);
      int e;
      if (zIdx == NULL) {
        rc = SQLITE_NOMEM;
        break;
      }
      if (sqlite3_column_int(pStmt, 2) == -2) {
        const char *zIdxSql = (const char *)sqlite3_column_text(pStmt, 3);
        e = zIdxSql ? nearestExprRecipe(&rc, zIdxSql, zLat, zLon, &p->zKeySql) : NEAREST_SCAN;
      } else {
        const char *zCol = (const char *)sqlite3_column_text(pStmt, 1);
        if (zCol == NULL) {
          rc = SQLITE_NOMEM;
          break;
        }
        e = nearestKeyRecipe(&rc, &defs, zCol, zLat, zLon);
        if (e != NEAREST_SCAN) {
          p->zKey = sqlite3_mprintf("%s", zCol);
          p->zKeySql = sqlite3_mprintf("\"%w\"", zCol);
          if (p->zKey == NULL) rc = SQLITE_NOMEM;
        }
      }
      if (rc == SQLITE_OK && e != NEAREST_SCAN) {
        p->zIndex = sqlite3_mprintf("%s", zIdx);
        if (p->zIndex == NULL || p->zKeySql == NULL) rc = SQLITE_NOMEM;
        p->eRecipe = e;
      }
    }
    if (rc == SQLITE_OK)
      rc = sqlite3_finalize(pStmt);
    else
      sqlite3_finalize(pStmt);
  }
  nearestDefsClear(&defs);
  return rc;
}

/*
** The id expression of p: "rowid" (or "_rowid_", "oid": the first no column
** takes) for a rowid table; for a WITHOUT ROWID table the quoted primary
** key column other than p->zKey when there is exactly one. *pzId gets a new
** string, or NULL with *pzErr when the table has no usable id.
*/
static int nearestIdExpr(sqlite3 *db, NearestSource *p, char **pzId, char **pzErr) {
  static const char *const azRowid[] = {"rowid", "_rowid_", "oid"};
  sqlite3_stmt *pStmt = NULL;
  int rc = SQLITE_OK, k, bTaken[3] = {0, 0, 0}, nPk = 0, bWithoutRowid = 0;
  char *zPk = NULL;
  *pzId = NULL;
  nearestPrepare(
      db, &rc,
      sqlite3_mprintf("SELECT name, pk, (SELECT wr FROM pragma_table_list(?1) WHERE schema = ?2) FROM "
                      "pragma_table_xinfo(?1, ?2)"),
      &pStmt);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_text(pStmt, 1, p->zTable, -1, SQLITE_STATIC);
  sqlite3_bind_text(pStmt, 2, p->zSchema, -1, SQLITE_STATIC);
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    const char *zName = (const char *)sqlite3_column_text(pStmt, 0);
    if (zName == NULL) {
      rc = SQLITE_NOMEM;
      break;
    }
    bWithoutRowid = sqlite3_column_int(pStmt, 2);
    for (k = 0; k < 3; k++) bTaken[k] |= sqlite3_stricmp(zName, azRowid[k]) == 0;
    if (sqlite3_column_int(pStmt, 1) > 0 && (p->zKey == NULL || sqlite3_stricmp(zName, p->zKey) != 0)) {
      nPk++;
      sqlite3_free(zPk);
      zPk = sqlite3_mprintf("\"%w\"", zName);
      if (zPk == NULL) rc = SQLITE_NOMEM;
    }
  }
  k = sqlite3_finalize(pStmt);
  if (rc == SQLITE_OK) rc = k;
  if (rc == SQLITE_OK && bWithoutRowid) {
    if (nPk == 1) {
      *pzId = zPk;
      zPk = NULL;
    } else {
      int nCol = nPk + (p->zKey != NULL);
      *pzErr = sqlite3_mprintf(
          "geo_nearest: WITHOUT ROWID table '%s' has no one-column id: its primary key "
          "has %d column%s%s",
          p->zTable, nCol, nCol == 1 ? "" : "s", p->zKey ? " with the geohash key" : "");
      rc = *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
    }
  } else if (rc == SQLITE_OK) {
    for (k = 0; k < 3 && bTaken[k]; k++) {
    }
    if (k < 3) {
      *pzId = sqlite3_mprintf("%s", azRowid[k]);
      if (*pzId == NULL) rc = SQLITE_NOMEM;
    } else {
      *pzErr = sqlite3_mprintf(
          "geo_nearest: table '%s' has columns named rowid, _rowid_ and oid: no name "
          "reaches its rowid",
          p->zTable);
      rc = *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
    }
  }
  sqlite3_free(zPk);
  return rc;
}

/* The text of name argument zArg, or NULL with *pzErr (SQLITE_ERROR) or *pRc SQLITE_NOMEM. */
static const char *nearestArgName(sqlite3_value *pVal, const char *zArg, int *pRc, char **pzErr) {
  const char *z;
  if (*pRc != SQLITE_OK) return NULL;
  if (sqlite3_value_type(pVal) != SQLITE_TEXT || sqlite3_value_bytes(pVal) == 0) {
    char *zQ = nosqlValueQuote(pVal);
    *pzErr = zQ ? sqlite3_mprintf("geo_nearest: %s must be a name, not %s", zArg, zQ) : NULL;
    sqlite3_free(zQ);
    *pRc = *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
    return NULL;
  }
  z = (const char *)sqlite3_value_text(pVal);
  if (z == NULL) *pRc = SQLITE_NOMEM;
  return z;
}

/* The declared name of column zCol (named zArg in messages) of p's table, into *pzOut. */
static int nearestFindColumn(sqlite3 *db, NearestSource *p, const char *zCol, const char *zArg, char **pzOut,
                             char **pzErr) {
  int rc = nosqlColumnName(db, p->zSchema, p->zTable, zCol, pzOut);
  if (rc == SQLITE_NOTFOUND) {
    *pzErr = sqlite3_mprintf("geo_nearest: table '%s' has no column '%s' (%s)", p->zTable, zCol, zArg);
    rc = *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  return rc;
}

/*
** A guess at the rows of p's table for the first radius: sqlite_stat1's
** count for the table when ANALYZE ran, else its largest rowid, else 1000.
*/
static double nearestRowGuess(sqlite3 *db, NearestSource *p, const char *zId) {
  sqlite3_stmt *pStmt = NULL;
  double r = 0;
  char *zSql = sqlite3_mprintf("SELECT CAST(stat AS INTEGER) FROM \"%w\".sqlite_stat1 WHERE tbl = ?1 LIMIT 1",
                               p->zSchema);
  if (zSql && sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0) == SQLITE_OK) {
    sqlite3_bind_text(pStmt, 1, p->zTable, -1, SQLITE_STATIC);
    if (sqlite3_step(pStmt) == SQLITE_ROW) r = sqlite3_column_double(pStmt, 0);
  }
  sqlite3_finalize(pStmt);
  sqlite3_free(zSql);
  pStmt = NULL;
  if (r <= 0 && sqlite3_stricmp(zId, "rowid") == 0) {
    zSql = sqlite3_mprintf("SELECT max(rowid) FROM \"%w\".\"%w\"", p->zSchema, p->zTable);
    if (zSql && sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0) == SQLITE_OK) {
      if (sqlite3_step(pStmt) == SQLITE_ROW) r = sqlite3_column_double(pStmt, 0);
    }
    sqlite3_finalize(pStmt);
    sqlite3_free(zSql);
  }
  return r >= 1 ? r : 1000;
}

/*
** Resolve the source named by pTable, pLat and pLon (text arguments):
** *ppSrc a new source with its statements. bPlan: for xBestIndex, which
** needs only the recipe (no statements, no row guess). On error
** SQLITE_ERROR with *pzErr, or another code.
*/
static int nearestSourceNew(sqlite3 *db, sqlite3_value *pTable, sqlite3_value *pLat, sqlite3_value *pLon,
                            int bPlan, NearestSource **ppSrc, char **pzErr) {
  NearestSource *p;
  NosqlTableName t;
  const char *zT, *zLa, *zLo;
  char *zLat = NULL, *zLon = NULL, *zId = NULL;
  int rc = SQLITE_OK;
  *ppSrc = NULL;
  zT = nearestArgName(pTable, "table", &rc, pzErr);
  zLa = nearestArgName(pLat, "lat_col", &rc, pzErr);
  zLo = nearestArgName(pLon, "lon_col", &rc, pzErr);
  if (rc != SQLITE_OK) return rc;
  p = (NearestSource *)sqlite3_malloc64(sizeof(NearestSource));
  if (p == NULL) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->zArgTable = sqlite3_mprintf("%s", zT);
  p->zArgLat = sqlite3_mprintf("%s", zLa);
  p->zArgLon = sqlite3_mprintf("%s", zLo);
  if (p->zArgTable == NULL || p->zArgLat == NULL || p->zArgLon == NULL) rc = SQLITE_NOMEM;
  if (rc == SQLITE_OK) {
    rc = nosqlTableResolve(db, p->zArgTable, NULL, &t);
    if (rc == SQLITE_OK && t.eType != NOSQL_TABLE) {
      *pzErr = sqlite3_mprintf("geo_nearest: '%s' is a %s, not a table", p->zArgTable,
                               t.eType == NOSQL_VIEW ? "view" : "virtual table");
      rc = *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
    } else if (rc == SQLITE_NOTFOUND) {
      *pzErr = sqlite3_mprintf("geo_nearest: no such table: '%s'", p->zArgTable);
      rc = *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
    }
    if (rc == SQLITE_OK) {
      p->zSchema = t.zSchema;
      p->zTable = t.zName;
    } else {
      nosqlTableNameClear(&t);
    }
  }
  if (rc == SQLITE_OK) rc = nearestFindColumn(db, p, p->zArgLat, "lat_col", &zLat, pzErr);
  if (rc == SQLITE_OK) rc = nearestFindColumn(db, p, p->zArgLon, "lon_col", &zLon, pzErr);
  if (rc == SQLITE_OK) rc = nearestFindRecipe(db, p, zLat, zLon);
  if (rc == SQLITE_OK && !bPlan) rc = nearestIdExpr(db, p, &zId, pzErr);
  if (rc == SQLITE_OK && !bPlan) {
    if (p->eRecipe == NEAREST_SCAN) {
      nearestPrepare(db, &rc,
                     sqlite3_mprintf("SELECT %s, \"%w\", \"%w\" FROM \"%w\".\"%w\"", zId, zLat, zLon,
                                     p->zSchema, p->zTable),
                     &p->pRead);
    } else {
      nearestPrepare(
          db, &rc,
          sqlite3_mprintf("SELECT %s, \"%w\", \"%w\" FROM \"%w\".\"%w\" WHERE %s >= ?1 AND %s < ?2", zId,
                          zLat, zLon, p->zSchema, p->zTable, p->zKeySql, p->zKeySql),
          &p->pRead);
    }
    nearestPrepare(db, &rc, sqlite3_mprintf("PRAGMA \"%w\".schema_version", p->zSchema), &p->pVer);
    nearestPrepare(db, &rc, sqlite3_mprintf("PRAGMA temp.schema_version"), &p->pTemp);
    p->iVersion = (int)nearestStepInt(p->pVer, &rc);
    p->iTempVersion = (int)nearestStepInt(p->pTemp, &rc);
    if (rc == SQLITE_OK && p->eRecipe != NEAREST_SCAN) p->rRowEst = nearestRowGuess(db, p, zId);
  }
  sqlite3_free(zLat);
  sqlite3_free(zLon);
  sqlite3_free(zId);
  if (rc != SQLITE_OK) {
    nearestSourceFree(p);
    return rc;
  }
  *ppSrc = p;
  return SQLITE_OK;
}

/* True when cached source p still stands for these arguments and the schema has not changed. */
static int nearestSourceValid(NearestSource *p, sqlite3_value *pTable, sqlite3_value *pLat,
                              sqlite3_value *pLon, int *pRc) {
  const char *zT = (const char *)sqlite3_value_text(pTable);
  const char *zLa = (const char *)sqlite3_value_text(pLat);
  const char *zLo = (const char *)sqlite3_value_text(pLon);
  if (p == NULL || p->bBusy || sqlite3_value_type(pTable) != SQLITE_TEXT ||
      sqlite3_value_type(pLat) != SQLITE_TEXT || sqlite3_value_type(pLon) != SQLITE_TEXT) {
    return 0;
  }
  if (zT == NULL || zLa == NULL || zLo == NULL) {
    *pRc = SQLITE_NOMEM;
    return 0;
  }
  if (strcmp(zT, p->zArgTable) != 0 || strcmp(zLa, p->zArgLat) != 0 || strcmp(zLo, p->zArgLon) != 0) return 0;
  if (nearestStepInt(p->pVer, pRc) != p->iVersion) return 0;
  if (nearestStepInt(p->pTemp, pRc) != p->iTempVersion) return 0;
  return *pRc == SQLITE_OK;
}

/**************************************************************************
** The search.
*/

/* One search: the point, the heap, and what the rows read so far showed. */
typedef struct NearestSearch NearestSearch;
struct NearestSearch {
  NearestSource *pSrc; /* The table */
  double lat, lon;     /* The point */
  NearestHeap *pHeap;  /* The best rows */
  double cosLat;       /* cos(lat), as geo_distance() computes it for its lat2 */
  sqlite3_int64 nRead; /* Rows read */
  double rDisc;        /* Radius of the ring being read */
  sqlite3_int64 nDisc; /* Rows read within rDisc of the point (the density seen) */
  char *zErr;          /* Message of a bad row (sqlite3_mprintf) */
};

/*
** Check a stored coordinate the way geo_distance() checks its argument:
** a number within range. SQLITE_OK with *pOut, SQLITE_DONE for NULL (the
** row is skipped), else SQLITE_ERROR with the message in p->zErr.
*/
static int nearestCoord(NearestSearch *p, sqlite3_stmt *pStmt, int iCol, int bLat, double *pOut) {
  int eType = sqlite3_column_type(pStmt, iCol);
  char *zErr = NULL, *zId;
  int rc;
  if (eType == SQLITE_FLOAT || eType == SQLITE_INTEGER) {
    *pOut = sqlite3_column_double(pStmt, iCol);
    if (fabs(*pOut) <= (bLat ? 90.0 : 180.0)) return SQLITE_OK;
  } else if (eType == SQLITE_NULL) {
    return SQLITE_DONE;
  }
  rc = bLat ? geohashArgLat(sqlite3_column_value(pStmt, iCol), "geo_nearest", "latitude", pOut, &zErr)
            : geohashArgLon(sqlite3_column_value(pStmt, iCol), "geo_nearest", "longitude", pOut, &zErr);
  if (rc != SQLITE_ERROR) {
    sqlite3_free(zErr);
    return rc;
  }
  zId = nosqlValueQuote(sqlite3_column_value(pStmt, 0));
  p->zErr = zId ? sqlite3_mprintf("%s in row %s of '%s'", zErr, zId, p->pSrc->zTable) : NULL;
  sqlite3_free(zId);
  sqlite3_free(zErr);
  return p->zErr ? SQLITE_ERROR : SQLITE_NOMEM;
}

/* Read every row of the bound statement into the heap; resets it. */
static int nearestRead(NearestSearch *p, sqlite3_stmt *pStmt) {
  int rc;
  while ((rc = sqlite3_step(pStmt)) == SQLITE_ROW) {
    double la, lo, d;
    p->nRead++;
    rc = nearestCoord(p, pStmt, 1, 1, &la);
    if (rc == SQLITE_OK) rc = nearestCoord(p, pStmt, 2, 0, &lo);
    if (rc == SQLITE_DONE) continue;
    if (rc != SQLITE_OK) break;
    d = geohashDistanceCos(la, lo, p->lat, p->lon, p->cosLat);
    if (d <= p->rDisc) p->nDisc++;
    if (nearestHeapWants(p->pHeap, d)) {
      rc = nearestHeapOffer(p->pHeap, d, sqlite3_column_value(pStmt, 0));
      if (rc != SQLITE_OK) break;
    }
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  if (rc != SQLITE_OK) {
    sqlite3_reset(pStmt);
    return rc;
  }
  return sqlite3_reset(pStmt);
}

/* Read the codes [lo, hi) of the key. */
static int nearestReadRange(NearestSearch *p, uint64_t lo, uint64_t hi) {
  sqlite3_stmt *pStmt = p->pSrc->pRead;
  if (p->pSrc->eRecipe == NEAREST_BITS) {
    sqlite3_bind_int64(pStmt, 1, (sqlite3_int64)lo);
    sqlite3_bind_int64(pStmt, 2, (sqlite3_int64)hi);
  } else {
    char zLo[16], zHi[16];
    int nLo = geohashRangeString(lo, zLo), nHi = geohashRangeString(hi, zHi);
    sqlite3_bind_text(pStmt, 1, zLo, nLo, SQLITE_TRANSIENT);
    sqlite3_bind_text(pStmt, 2, zHi, nHi, SQLITE_TRANSIENT);
  }
  return nearestRead(p, pStmt);
}

/* Ranges already read: sorted, disjoint. */
typedef struct NearestSeen NearestSeen;
struct NearestSeen {
  GeohashRange *a; /* The ranges */
  int n;           /* Used */
  int nAlloc;      /* Allocated */
};

static int nearestRangeCmp(const void *a, const void *b) {
  uint64_t x = ((const GeohashRange *)a)->lo, y = ((const GeohashRange *)b)->lo;
  return x < y ? -1 : x > y;
}

/* Add the cover's ranges to pSeen (union). SQLITE_OK or SQLITE_NOMEM. */
static int nearestSeenAdd(NearestSeen *pSeen, const GeohashCover *pCover) {
  int i, k;
  if (pSeen->n + pCover->nRange > pSeen->nAlloc) {
    int nNew = 2 * (pSeen->n + pCover->nRange);
    GeohashRange *aNew =
        (GeohashRange *)sqlite3_realloc64(pSeen->a, sizeof(GeohashRange) * (sqlite3_uint64)nNew);
    if (aNew == NULL) return SQLITE_NOMEM;
    pSeen->a = aNew;
    pSeen->nAlloc = nNew;
  }
  memcpy(&pSeen->a[pSeen->n], pCover->aRange, sizeof(GeohashRange) * (size_t)pCover->nRange);
  pSeen->n += pCover->nRange;
  qsort(pSeen->a, (size_t)pSeen->n, sizeof(GeohashRange), nearestRangeCmp);
  for (k = 0, i = 1; i < pSeen->n; i++) {
    if (pSeen->a[i].lo <= pSeen->a[k].hi) {
      if (pSeen->a[i].hi > pSeen->a[k].hi) pSeen->a[k].hi = pSeen->a[i].hi;
    } else {
      pSeen->a[++k] = pSeen->a[i];
    }
  }
  if (pSeen->n > 0) pSeen->n = k + 1;
  return SQLITE_OK;
}

/* Read the parts of [lo, hi) that pSeen does not hold. */
static int nearestReadNew(NearestSearch *p, const NearestSeen *pSeen, uint64_t lo, uint64_t hi) {
  int i, rc = SQLITE_OK;
  uint64_t cur = lo;
  for (i = 0; rc == SQLITE_OK && i < pSeen->n && cur < hi; i++) {
    if (pSeen->a[i].hi <= cur) continue;
    if (pSeen->a[i].lo >= hi) break;
    if (pSeen->a[i].lo > cur) rc = nearestReadRange(p, cur, pSeen->a[i].lo);
    cur = pSeen->a[i].hi;
  }
  if (rc == SQLITE_OK && cur < hi) rc = nearestReadRange(p, cur, hi);
  return rc;
}

/* Radius (metres) of the cap holding fraction f of the sphere. */
static double nearestCapRadius(double f) {
  if (f >= 1.0) return M_PI * GEOHASH_EARTH_RADIUS;
  return acos(1.0 - 2.0 * f) * GEOHASH_EARTH_RADIUS;
}

/* The ring search (see the header comment). pCover: room for one cover. */
static int nearestRings(NearestSearch *p, GeohashCover *pCover, double rMaxDist) {
  const double rWhole = M_PI * GEOHASH_EARTH_RADIUS;
  NearestSeen seen = {0, 0, 0};
  NearestHeap *pHeap = p->pHeap;
  double nK = (double)(pHeap->nMax < 1000000000 ? pHeap->nMax : 1000000000);
  double r = nearestCapRadius((nK + 1.5 * sqrt(nK)) / p->pSrc->rRowEst);
  int rc = SQLITE_OK, i, nRing = 0;
  if (r > rMaxDist) r = rMaxDist;
  for (;;) {
    p->rDisc = r;
    p->nDisc = 0;
    geohashCoverCircle(pCover, p->lat, p->lon, r);
    for (i = 0; rc == SQLITE_OK && i < pCover->nRange; i++) {
      rc = nearestReadNew(p, &seen, pCover->aRange[i].lo, pCover->aRange[i].hi);
    }
    if (rc == SQLITE_OK) rc = nearestSeenAdd(&seen, pCover);
    if (rc != SQLITE_OK) break;
    if (nRing++ == 0 && p->nDisc > 0 && r < rWhole) {
      /* The density within the first circle, for the next search's first radius. */
      double f = (1.0 - cos(r / GEOHASH_EARTH_RADIUS)) / 2.0;
      if (f > 0) p->pSrc->rRowEst = 0.5 * (p->pSrc->rRowEst + (double)p->nDisc / f);
    }
    if (r >= rMaxDist || r >= rWhole) break;
    if (seen.n == 1 && seen.a[0].lo == 0 && seen.a[0].hi == ((uint64_t)1 << 60)) break;
    if (pHeap->n == pHeap->nMax && pHeap->a[0].rDist <= r) break;
    if (pHeap->n == pHeap->nMax) {
      r = pHeap->a[0].rDist; /* One more ring settles the k-th */
    } else {
      /* Fewer than k so far: at least double; more when the rows seen are sparse. */
      double rNext = 2.0 * r;
      if (p->nDisc > 0) {
        double f = (1.0 - cos(r / GEOHASH_EARTH_RADIUS)) / 2.0;
        double rGuess = nearestCapRadius(2.0 * (double)pHeap->nMax * f / (double)p->nDisc);
        if (rGuess > rNext) rNext = rGuess < 16.0 * r ? rGuess : 16.0 * r;
      }
      r = rNext;
    }
    if (r > rMaxDist) r = rMaxDist;
    if (r > rWhole) r = rWhole;
  }
  sqlite3_free(seen.a);
  return rc;
}

/**************************************************************************
** The virtual table.
*/

static int nearestConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                          char **pzErr) {
  int rc;
  (void)pAux;
  (void)argc;
  (void)argv;
  (void)pzErr;
  rc = nosqlVtabNew(db,
                    "CREATE TABLE x(id, distance_m REAL, table_name HIDDEN, lat_col HIDDEN, lon_col HIDDEN,"
                    " lat HIDDEN, lon HIDDEN, k HIDDEN, max_distance_m HIDDEN)",
                    sizeof(nearest_vtab), ppVtab);
  if (rc == SQLITE_OK) ((nearest_vtab *)*ppVtab)->db = db;
  return rc;
}

static int nearestDisconnect(sqlite3_vtab *pVtab) {
  nearest_vtab *p = (nearest_vtab *)pVtab;
  int i;
  for (i = 0; i < NEAREST_CACHE; i++) nearestSourceFree(p->apSrc[i]);
  sqlite3_free(p->pCover);
  return nosqlVtabFree(pVtab);
}

/* The plan (ext/plan.c): slots a..g are the hidden arguments; the first six are required. */
static const NosqlPlanCol aNearestPlan[NEAREST_NARG] = {
    {2, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 1}, {3, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 1},
    {4, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 1}, {5, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 1},
    {6, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 1}, {7, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 1},
    {8, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0},
};

/* The signature in messages; its argument names are the hidden columns' (nosqlPlanInputArgs()). */
static const char zNearestUsage[] =
    "geo_nearest(table_name, lat_col, lon_col, lat, lon, k[, max_distance_m])";

/*
** The plan: ext/plan.c's nosqlPlanInputs() (slot codes; a missing required
** argument is planned at a cost nothing else reaches, and xFilter names
** it), then, when the table, lat_col and lon_col are known while planning
** (literals), a tail saying how the search will read: "rings <index>" or
** "scan <table>" (nosql_explain words it). The tail is a description
** only: xFilter resolves the table again.
*/
static int nearestBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo) {
  nearest_vtab *p = (nearest_vtab *)pVtab;
  NearestSource *pSrc = NULL;
  char *zTail = NULL, *zErr = NULL;
  sqlite3_value *apName[3] = {0, 0, 0};
  int rc = nosqlPlanInputs(pInfo, aNearestPlan, NEAREST_NARG, 1000, 10), i, j, nFound = 0;
  if (rc != SQLITE_OK || pInfo->idxStr == NULL) return rc;
  /* The constraints behind argv[j] are the slots of idxStr's codes: find table, lat_col, lon_col. */
  for (j = 0; pInfo->idxStr[2 * j] && pInfo->idxStr[2 * j] != ' '; j++) {
    int iSlot = pInfo->idxStr[2 * j] - 'a';
    if (iSlot < 0 || iSlot > 2) continue;
    for (i = 0; i < pInfo->nConstraint; i++) {
      if (pInfo->aConstraintUsage[i].argvIndex == j + 1) {
        if (sqlite3_vtab_rhs_value(pInfo, i, &apName[iSlot]) == SQLITE_OK) nFound++;
        break;
      }
    }
  }
  if (nFound == 3 && apName[0] && apName[1] && apName[2]) {
    int rc2 = nearestSourceNew(p->db, apName[0], apName[1], apName[2], 1, &pSrc, &zErr);
    sqlite3_free(zErr); /* xFilter reports it */
    if (rc2 == SQLITE_NOMEM) return SQLITE_NOMEM;
    if (pSrc) {
      zTail = pSrc->eRecipe != NEAREST_SCAN ? sqlite3_mprintf("%s rings %s", pInfo->idxStr, pSrc->zIndex)
                                            : sqlite3_mprintf("%s scan %s", pInfo->idxStr, pSrc->zTable);
      nearestSourceFree(pSrc);
      if (zTail == NULL) return SQLITE_NOMEM;
      if (pInfo->needToFreeIdxStr) sqlite3_free(pInfo->idxStr);
      pInfo->idxStr = zTail;
      pInfo->needToFreeIdxStr = 1;
    }
  }
  return SQLITE_OK;
}

static int nearestOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor) {
  (void)pVtab;
  return nosqlCursorNew(sizeof(nearest_cursor), ppCursor) ? SQLITE_OK : SQLITE_NOMEM;
}

static int nearestClose(sqlite3_vtab_cursor *cur) {
  nearest_cursor *pCur = (nearest_cursor *)cur;
  nearestHeapClear(&pCur->heap);
  nosqlPlanKeepFree(pCur->apKeep, NEAREST_NARG);
  sqlite3_free(pCur);
  return SQLITE_OK;
}

/* k: a positive integer (a real with an integral value counts). */
static int nearestArgK(sqlite3_value *pVal, sqlite3_int64 *pK, char **pzErr) {
  int eType = sqlite3_value_numeric_type(pVal);
  double r;
  if (eType == SQLITE_INTEGER) {
    *pK = sqlite3_value_int64(pVal);
    if (*pK >= 1) return SQLITE_OK;
  } else if (eType == SQLITE_FLOAT) {
    r = sqlite3_value_double(pVal);
    if (r >= 1.0 && r == floor(r)) {
      *pK = r < 9.2e18 ? (sqlite3_int64)r : (sqlite3_int64)9200000000000000000LL;
      return SQLITE_OK;
    }
  }
  {
    char *zQ = nosqlValueQuote(pVal);
    *pzErr = zQ ? sqlite3_mprintf("geo_nearest: k %s is not a positive integer", zQ) : NULL;
    sqlite3_free(zQ);
  }
  return *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
}

/* Run the search of the arguments in aArg (none NULL) into pCur->heap. */
static int nearestSearch(nearest_cursor *pCur, NosqlPlanArg *aArg, char **pzErr) {
  nearest_vtab *pTab = (nearest_vtab *)pCur->base.pVtab;
  NearestSearch s;
  NearestSource *pSrc = NULL, *pOwn = NULL;
  double rMaxDist = INFINITY;
  sqlite3_int64 k = 0;
  int rc = SQLITE_OK, i;
  memset(&s, 0, sizeof(s));
  rc = geohashArgLat(aArg[3].pEq, "geo_nearest", "latitude", &s.lat, pzErr);
  if (rc == SQLITE_OK) rc = geohashArgLon(aArg[4].pEq, "geo_nearest", "longitude", &s.lon, pzErr);
  if (rc == SQLITE_OK) rc = nearestArgK(aArg[5].pEq, &k, pzErr);
  if (rc == SQLITE_OK && aArg[6].pEq) {
    rc = geohashArgNumber(aArg[6].pEq, "geo_nearest", "max_distance_m", &rMaxDist, pzErr);
    if (rc == SQLITE_OK && rMaxDist < 0) {
      char *zQ = nosqlValueQuote(aArg[6].pEq);
      *pzErr = zQ ? sqlite3_mprintf("geo_nearest: max_distance_m %s is negative", zQ) : NULL;
      sqlite3_free(zQ);
      rc = *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
    }
  }
  if (rc != SQLITE_OK) return rc;
  for (i = 0; rc == SQLITE_OK && i < NEAREST_CACHE; i++) {
    if (nearestSourceValid(pTab->apSrc[i], aArg[0].pEq, aArg[1].pEq, aArg[2].pEq, &rc)) {
      pSrc = pTab->apSrc[i];
      break;
    }
  }
  if (rc == SQLITE_OK && pSrc == NULL) {
    int iSlot = -1;
    rc = nearestSourceNew(pTab->db, aArg[0].pEq, aArg[1].pEq, aArg[2].pEq, 0, &pOwn, pzErr);
    if (rc != SQLITE_OK && rc != SQLITE_NOMEM && *pzErr == NULL) {
      *pzErr = sqlite3_mprintf("geo_nearest: %s", sqlite3_errmsg(pTab->db));
    }
    if (rc != SQLITE_OK) return rc;
    /* Keep it in the slot used longest ago that no search is using. */
    for (i = 0; i < NEAREST_CACHE; i++) {
      NearestSource *pOld = pTab->apSrc[i];
      if (pOld && pOld->bBusy) continue;
      if (iSlot < 0 || pOld == NULL || (pTab->apSrc[iSlot] && pOld->iUsed < pTab->apSrc[iSlot]->iUsed))
        iSlot = i;
      if (pOld == NULL) break;
    }
    if (iSlot >= 0) {
      nearestSourceFree(pTab->apSrc[iSlot]);
      pTab->apSrc[iSlot] = pOwn;
      pOwn = NULL;
      pSrc = pTab->apSrc[iSlot];
    } else {
      pSrc = pOwn; /* Searches inside searches hold every slot: a private copy */
    }
  }
  if (rc == SQLITE_OK) pSrc->iUsed = ++pTab->iClock;
  if (rc != SQLITE_OK) return rc;
  pCur->heap.nMax = k;
  pCur->heap.rMax = rMaxDist;
  s.pSrc = pSrc;
  s.pHeap = &pCur->heap;
  s.cosLat = cos(s.lat * (M_PI / 180.0));
  s.rDisc = -1;
  pSrc->bBusy = 1;
  if (pSrc->eRecipe == NEAREST_SCAN) {
    rc = nearestRead(&s, pSrc->pRead);
  } else {
    if (pTab->pCover == NULL) {
      pTab->pCover = (GeohashCover *)sqlite3_malloc64(sizeof(GeohashCover));
      if (pTab->pCover == NULL) rc = SQLITE_NOMEM;
    }
    if (rc == SQLITE_OK) rc = nearestRings(&s, pTab->pCover, rMaxDist);
  }
  pSrc->bBusy = 0;
  if (s.zErr) {
    *pzErr = s.zErr;
    s.zErr = NULL;
  } else if (rc != SQLITE_OK && rc != SQLITE_NOMEM) {
    *pzErr = sqlite3_mprintf("geo_nearest: %s", sqlite3_errmsg(pTab->db));
  }
  nearestSourceFree(pOwn);
  if (rc == SQLITE_OK) nearestHeapSort(&pCur->heap);
  return rc;
}

static int nearestFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr, int argc,
                         sqlite3_value **argv) {
  nearest_cursor *pCur = (nearest_cursor *)cur;
  NosqlPlanArg aArg[NEAREST_NARG];
  char *zErr = NULL;
  int rc, i;
  (void)idxNum;
  nearestHeapClear(&pCur->heap);
  pCur->iRow = 0;
  rc = nosqlPlanInputArgs(cur->pVtab, zNearestUsage, aNearestPlan, NEAREST_NARG, idxStr, argc, argv, aArg);
  if (rc == SQLITE_OK) rc = nosqlPlanKeep(aArg, NEAREST_NARG, pCur->apKeep);
  if (rc != SQLITE_OK) return rc;
  /* A NULL argument gives no rows, as for the other table-valued functions of the family. */
  for (i = 0; i < NEAREST_NARG; i++) {
    if (aArg[i].pEq && sqlite3_value_type(aArg[i].pEq) == SQLITE_NULL) return SQLITE_OK;
  }
  rc = nearestSearch(pCur, aArg, &zErr);
  if (rc != SQLITE_OK) {
    nearestHeapClear(&pCur->heap);
    if (zErr) {
      sqlite3_free(cur->pVtab->zErrMsg);
      cur->pVtab->zErrMsg = zErr;
    }
  }
  return rc;
}

static int nearestNext(sqlite3_vtab_cursor *cur) {
  ((nearest_cursor *)cur)->iRow++;
  return SQLITE_OK;
}

static int nearestEof(sqlite3_vtab_cursor *cur) {
  nearest_cursor *pCur = (nearest_cursor *)cur;
  return pCur->iRow >= pCur->heap.n;
}

static int nearestColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int iCol) {
  nearest_cursor *pCur = (nearest_cursor *)cur;
  const NearestHit *h = &pCur->heap.a[pCur->iRow];
  if (iCol == NEAREST_COL_ID) {
    switch (h->eType) {
      case SQLITE_INTEGER:
        sqlite3_result_int64(ctx, h->iId);
        break;
      case SQLITE_FLOAT:
        sqlite3_result_double(ctx, h->rId);
        break;
      case SQLITE_TEXT:
        sqlite3_result_text(ctx, h->zId, h->nId, SQLITE_TRANSIENT);
        break;
      default:
        sqlite3_result_blob(ctx, h->zId, h->nId, SQLITE_TRANSIENT);
        break;
    }
  } else if (iCol == NEAREST_COL_DIST) {
    sqlite3_result_double(ctx, h->rDist);
  } else {
    nosqlPlanKeptResult(ctx, pCur->apKeep[iCol - NEAREST_COL_TABLE]);
  }
  return SQLITE_OK;
}

static int nearestRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid) {
  *pRowid = ((nearest_cursor *)cur)->iRow + 1;
  return SQLITE_OK;
}

static sqlite3_module nearestModule = {
    0,                 /* iVersion */
    0,                 /* xCreate: eponymous only */
    nearestConnect,    /* xConnect */
    nearestBestIndex,  /* xBestIndex */
    nearestDisconnect, /* xDisconnect */
    0,                 /* xDestroy */
    nearestOpen,       /* xOpen */
    nearestClose,      /* xClose */
    nearestFilter,     /* xFilter */
    nearestNext,       /* xNext */
    nearestEof,        /* xEof */
    nearestColumn,     /* xColumn */
    nearestRowid,      /* xRowid */
    0,                 /* xUpdate */
    0,                 /* xBegin */
    0,                 /* xSync */
    0,                 /* xCommit */
    0,                 /* xRollback */
    0,                 /* xFindMethod */
    0,                 /* xRename */
    0,                 /* xSavepoint */
    0,                 /* xRelease */
    0,                 /* xRollbackTo */
    0,                 /* xShadowName */
};

int geoNearestRegister(sqlite3 *db) { return sqlite3_create_module(db, "geo_nearest", &nearestModule, 0); }
