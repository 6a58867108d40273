/*
** range.c: the property test of inverted_index's RANGE fields (issue 37):
** random write histories on a base table r(id, b, p) (inserts, updates of
** the value, the term and the rowid, deletes, INSERT OR REPLACE, values
** a RANGE field refuses, transactions that commit or roll back, savepoints
** released or rolled back to) reach three indexes with a field p RANGE:
**
**   r_sync  content=r, mode='sync' (its own triggers)
**   r_on    content=r, direct = on, kept by the documented trigger recipe
**   r_off   direct = off with stored values, kept by SQL INSERT, UPDATE
**           and DELETE by rowid from triggers on r
**
** After every step, random range queries (every form: [lo TO hi], {lo TO
** hi}, mixed, * ends, >=, >, <=, <, equality, alone, ANDed with a term,
** under NOT) must give each index the rowids that a direct query over r
** gives, and range facets of random bounds the counts of direct queries,
** with the bounds bound as the same INTEGER or REAL (so that SQLite
** compares them). Values mix integers (negatives, +-2^53), reals, -0.0,
** +-Inf, NULL; bounds also fall between values and past 2^53. Every few
** steps the database is closed and reopened and 'integrity-check' must
** pass; now and then 'optimize' or 'rebuild' runs.
**
**   build/property/range EXTENSION [STEPS [SEED]]
**
** The last line is "N passed, N failed" for tests/run.sh.
*/
#include <sqlite3.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int nPass, nFail;
static unsigned long long rangeState;
static const char *zRangeExt;
static char zRangeDb[256];

static unsigned rangeRand(unsigned n) {
  rangeState = rangeState * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)((rangeState >> 33) % n);
}

/* A value or bound: an INTEGER, a REAL, or NULL. */
typedef struct RangeNum RangeNum;
struct RangeNum {
  int eType;       /* SQLITE_INTEGER, SQLITE_FLOAT or SQLITE_NULL */
  sqlite3_int64 i; /* The INTEGER */
  double r;        /* The REAL */
};

static RangeNum rangeNum(int bBound) {
  static const sqlite3_int64 aInt[] = {
      0, 1, -1, 7, 10, -10, 20, 100, 9007199254740992ll, -9007199254740992ll, 9007199254740991ll};
  static const double aReal[] = {
      0.5, -0.5, 10.0, 9.99, 10.01, 19.999, 1e-300, -1e-300, 1e300, 2.5e15, 9007199254740994.0, -0.0, 0.0};
  RangeNum v;
  unsigned k = rangeRand(bBound ? 12 : 14);
  memset(&v, 0, sizeof(v));
  if (k < 4) {
    v.eType = SQLITE_INTEGER;
    v.i = aInt[rangeRand(sizeof(aInt) / sizeof(aInt[0]))];
  } else if (k < 7) {
    v.eType = SQLITE_INTEGER;
    v.i = (sqlite3_int64)rangeRand(41) - 20;
  } else if (k < 9) {
    v.eType = SQLITE_FLOAT;
    v.r = aReal[rangeRand(sizeof(aReal) / sizeof(aReal[0]))];
  } else if (k < 11) {
    v.eType = SQLITE_FLOAT;
    v.r = ((double)rangeRand(4001) - 2000.0) / 100.0;
  } else if (k == 11) {
    v.eType = SQLITE_FLOAT;
    v.r = rangeRand(2) ? 1.0 / 0.0 : -1.0 / 0.0;
    if (bBound && rangeRand(2)) {
      /* Past 2^53: SQLite compares integers with reals exactly. */
      v.eType = SQLITE_INTEGER;
      v.i = rangeRand(2) ? 9007199254740993ll : -9007199254740995ll;
    }
  } else {
    v.eType = SQLITE_NULL;
  }
  return v;
}

static void rangeBind(sqlite3_stmt *p, int i, const RangeNum *v) {
  if (v->eType == SQLITE_INTEGER) {
    sqlite3_bind_int64(p, i, v->i);
  } else if (v->eType == SQLITE_FLOAT) {
    sqlite3_bind_double(p, i, v->r);
  } else {
    sqlite3_bind_null(p, i);
  }
}

/* A bound as query text: integers exactly, reals so that they read back exactly, Inf as 1e999. */
static void rangeText(const RangeNum *v, char *z, int n) {
  if (v->eType == SQLITE_INTEGER) {
    snprintf(z, (size_t)n, "%lld", (long long)v->i);
  } else if (isinf(v->r)) {
    snprintf(z, (size_t)n, "%s1e999", v->r < 0 ? "-" : "");
  } else {
    snprintf(z, (size_t)n, "%.17g", v->r);
  }
}

static int rangeExec(sqlite3 *db, const char *zSql) {
  char *zErr = NULL;
  int rc = sqlite3_exec(db, zSql, 0, 0, &zErr);
  sqlite3_free(zErr);
  return rc;
}

/* The ids of zSql (with ?1 .. ?3 bound to the values) as one comma-separated string (sqlite3_mprintf). */
static char *rangeIds(sqlite3 *db, const char *zSql, const RangeNum *a, int nA, int *pnRow, char **pzErr) {
  sqlite3_stmt *p = NULL;
  char *zOut = sqlite3_mprintf("");
  int i, rc;
  *pnRow = 0;
  *pzErr = NULL;
  rc = sqlite3_prepare_v2(db, zSql, -1, &p, 0);
  if (rc == SQLITE_OK) {
    for (i = 0; i < nA; i++) rangeBind(p, i + 1, &a[i]);
    while (sqlite3_step(p) == SQLITE_ROW) {
      zOut = sqlite3_mprintf("%z%lld,", zOut, sqlite3_column_int64(p, 0));
      (*pnRow)++;
    }
    rc = sqlite3_finalize(p);
  }
  if (rc != SQLITE_OK) *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
  return zOut;
}

static const char *azIndex[] = {"r_sync", "r_on", "r_off"};
static int anBad[3];  /* Failures per index */
static int nNonEmpty; /* Comparisons on a non-empty answer */
static int nCompared; /* Comparisons made */
static int nFacets;   /* Range facets that agreed */

/* One random query, compared on every index with the direct answer. */
static void rangeQuery(sqlite3 *db, int iStep) {
  RangeNum lo = rangeNum(1), hi = rangeNum(1), aBind[3];
  char zLo[40], zHi[40], zMatch[200], zWhere[200];
  int eForm = (int)rangeRand(9), bTerm = rangeRand(3) == 0, bNot = rangeRand(5) == 0, nBind = 0, k, nRow;
  char *zWant, *zErr;
  if (lo.eType == SQLITE_NULL) lo.eType = SQLITE_INTEGER, lo.i = 0;
  if (hi.eType == SQLITE_NULL) hi.eType = SQLITE_INTEGER, hi.i = 10;
  rangeText(&lo, zLo, sizeof(zLo));
  rangeText(&hi, zHi, sizeof(zHi));
  switch (eForm) {
    case 0:
    case 1:
    case 2:
    case 3: {
      int bLoIn = eForm & 1, bHiIn = eForm >> 1;
      snprintf(zMatch, sizeof(zMatch), "p:%c%s TO %s%c", bLoIn ? '[' : '{', zLo, zHi, bHiIn ? ']' : '}');
      snprintf(zWhere, sizeof(zWhere), "p %s ?1 AND p %s ?2", bLoIn ? ">=" : ">", bHiIn ? "<=" : "<");
      aBind[nBind++] = lo;
      aBind[nBind++] = hi;
      break;
    }
    case 4:
      snprintf(zMatch, sizeof(zMatch), "p:[%s TO *]", zLo);
      snprintf(zWhere, sizeof(zWhere), "p >= ?1");
      aBind[nBind++] = lo;
      break;
    case 5:
      snprintf(zMatch, sizeof(zMatch), "p:>%s", zLo);
      snprintf(zWhere, sizeof(zWhere), "p > ?1");
      aBind[nBind++] = lo;
      break;
    case 6:
      snprintf(zMatch, sizeof(zMatch), "p:<=%s", zHi);
      snprintf(zWhere, sizeof(zWhere), "p <= ?1");
      aBind[nBind++] = hi;
      break;
    case 7:
      snprintf(zMatch, sizeof(zMatch), "p:<%s", zHi);
      snprintf(zWhere, sizeof(zWhere), "p < ?1");
      aBind[nBind++] = hi;
      break;
    default:
      snprintf(zMatch, sizeof(zMatch), "p:%s", zLo);
      snprintf(zWhere, sizeof(zWhere), "p = ?1");
      aBind[nBind++] = lo;
      break;
  }
  {
    /* NOT is the complement within the documents: those without a value are in it. */
    char zM[300], zW[300], *zSqlWant;
    snprintf(zM, sizeof(zM), "%s%s%s", bTerm ? "b:x AND " : "", bNot ? "NOT " : "", zMatch);
    snprintf(zW, sizeof(zW), "%s%s coalesce(%s, 0)", bTerm ? "b = 'x' AND" : "", bNot ? " NOT" : "", zWhere);
    zSqlWant = sqlite3_mprintf("SELECT id FROM r WHERE %s ORDER BY id", zW);
    zWant = rangeIds(db, zSqlWant, aBind, nBind, &nRow, &zErr);
    sqlite3_free(zSqlWant);
    if (zErr) {
      printf("FAIL step %d: direct query '%s': %s\n", iStep, zW, zErr);
      sqlite3_free(zErr);
      anBad[0]++;
    }
    nCompared++;
    if (nRow > 0) nNonEmpty++;
    for (k = 0; k < 3; k++) {
      char *zSql = sqlite3_mprintf("SELECT rowid FROM %s WHERE %s MATCH %Q ORDER BY rowid", azIndex[k],
                                   azIndex[k], zM);
      int nGot;
      char *zGot = rangeIds(db, zSql, NULL, 0, &nGot, &zErr);
      if (zErr || strcmp(zGot, zWant) != 0) {
        if (anBad[k]++ < 3) {
          printf("FAIL %s step %d: '%s': got %s (%s), want %s\n", azIndex[k], iStep, zM, zGot,
                 zErr ? zErr : "", zWant);
        }
      }
      sqlite3_free(zErr);
      sqlite3_free(zGot);
      sqlite3_free(zSql);
    }
  }
  sqlite3_free(zWant);
}

/* Range facets of random ascending bounds against counts of direct queries, on every index. */
static void rangeFacets(sqlite3 *db, int iStep) {
  RangeNum aB[3];
  int n = 1 + (int)rangeRand(3), j, k, nRow;
  char zJson[200] = "[", zWant[400] = "", *zErr;
  for (j = 0; j < n; j++) {
    aB[j] = rangeNum(1);
    if (aB[j].eType == SQLITE_NULL || (aB[j].eType == SQLITE_FLOAT && isinf(aB[j].r))) {
      aB[j].eType = SQLITE_INTEGER;
      aB[j].i = (sqlite3_int64)j * 7 - 5;
    }
  }
  for (j = 0; j < n; j++) {
    char zB[40];
    rangeText(&aB[j], zB, sizeof(zB));
    snprintf(zJson + strlen(zJson), sizeof(zJson) - strlen(zJson), "%s%s", j ? "," : "", zB);
  }
  strcat(zJson, "]");
  for (j = 0; j <= n; j++) {
    /* Bucket j: [aB[j-1], aB[j]), the ends open. */
    RangeNum a[2];
    int nA = 0;
    sqlite3_stmt *p = NULL;
    char *zSql =
        sqlite3_mprintf("SELECT count(*) FROM r WHERE p IS NOT NULL%s%s", j > 0 ? " AND p >= ?1" : "",
                        j < n ? (j > 0 ? " AND p < ?2" : " AND p < ?1") : "");
    if (j > 0) a[nA++] = aB[j - 1];
    if (j < n) a[nA++] = aB[j];
    if (sqlite3_prepare_v2(db, zSql, -1, &p, 0) == SQLITE_OK) {
      for (k = 0; k < nA; k++) rangeBind(p, k + 1, &a[k]);
      if (sqlite3_step(p) == SQLITE_ROW)
        snprintf(zWant + strlen(zWant), sizeof(zWant) - strlen(zWant), "%lld,", sqlite3_column_int64(p, 0));
    }
    sqlite3_finalize(p);
    sqlite3_free(zSql);
  }
  for (k = 0; k < 3; k++) {
    char *zSql =
        sqlite3_mprintf("SELECT docs FROM %s_f WHERE field = 'p' AND ranges = %Q", azIndex[k], zJson);
    char *zGot = rangeIds(db, zSql, NULL, 0, &nRow, &zErr);
    if (zErr && strstr(zErr, "must ascend")) {
      /* Equal or descending bounds are refused, as documented. */
    } else if (zErr || strcmp(zGot, zWant) != 0) {
      if (anBad[k]++ < 3)
        printf("FAIL %s step %d: ranges %s: got %s (%s), want %s\n", azIndex[k], iStep, zJson, zGot,
               zErr ? zErr : "", zWant);
    } else {
      nFacets++;
    }
    sqlite3_free(zErr);
    sqlite3_free(zGot);
    sqlite3_free(zSql);
  }
}

static sqlite3 *rangeOpen(void) {
  sqlite3 *db = NULL;
  char *zErr = NULL;
  if (sqlite3_open(zRangeDb, &db) != SQLITE_OK) abort();
  sqlite3_enable_load_extension(db, 1);
  if (sqlite3_load_extension(db, zRangeExt, 0, &zErr) != SQLITE_OK) {
    printf("FAIL load: %s\n", zErr ? zErr : "?");
    exit(1);
  }
  rangeExec(db, "PRAGMA recursive_triggers = ON; PRAGMA synchronous = OFF");
  return db;
}

/* One random write to r (through the triggers to every index). */
static void rangeWrite(sqlite3 *db) {
  RangeNum v = rangeNum(0);
  sqlite3_stmt *p = NULL;
  int id = (int)rangeRand(40), eOp = (int)rangeRand(7);
  const char *zB = rangeRand(3) ? "x" : "y";
  const char *zSql;
  /* Now and then a value a RANGE field refuses: the write fails and changes nothing. */
  int eBad = rangeRand(15) == 0 ? (int)rangeRand(3) + 1 : 0;
  switch (eOp) {
    case 0:
    case 1:
      zSql = "INSERT INTO r(id, b, p) VALUES (?1, ?2, ?3)";
      break;
    case 2:
      zSql = "INSERT OR REPLACE INTO r(id, b, p) VALUES (?1, ?2, ?3)";
      break;
    case 3:
      zSql = "UPDATE r SET p = ?3 WHERE id = ?1";
      break;
    case 4:
      zSql = "UPDATE r SET b = ?2, id = ?1 + 40 WHERE id = ?1";
      break;
    case 5:
      zSql = "UPDATE r SET id = ?1 - 40 WHERE id = ?1 + 40";
      break;
    default:
      zSql = "DELETE FROM r WHERE id = ?1";
      break;
  }
  if (sqlite3_prepare_v2(db, zSql, -1, &p, 0) != SQLITE_OK) abort();
  sqlite3_bind_int(p, 1, id);
  sqlite3_bind_text(p, 2, zB, -1, SQLITE_STATIC);
  if (eBad == 1) {
    sqlite3_bind_text(p, 3, "12.5", -1, SQLITE_STATIC);
  } else if (eBad == 2) {
    sqlite3_bind_int64(p, 3, 9007199254740993ll);
  } else if (eBad == 3) {
    sqlite3_bind_text(p, 3, "[1,2]", -1, SQLITE_STATIC);
  } else {
    rangeBind(p, 3, &v);
  }
  sqlite3_step(p);
  sqlite3_finalize(p);
}

int main(int argc, char **argv) {
  int nStep = 300, iStep, k, i;
  sqlite3 *db;
  unsigned long long seed = 37;
  if (argc < 2) {
    fprintf(stderr, "usage: %s EXTENSION [STEPS [SEED]]\n", argv[0]);
    return 2;
  }
  zRangeExt = argv[1];
  if (argc > 2) nStep = atoi(argv[2]);
  if (argc > 3) seed = strtoull(argv[3], 0, 10);
  rangeState = seed;
  snprintf(zRangeDb, sizeof(zRangeDb), "/tmp/nosql_range_%d.db", (int)getpid());
  unlink(zRangeDb);
  db = rangeOpen();
  if (rangeExec(db,
                "CREATE TABLE r(id INTEGER PRIMARY KEY, b TEXT, p);"
                "CREATE VIRTUAL TABLE r_sync USING inverted_index(b, p RANGE, content=r, mode='sync');"
                "CREATE VIRTUAL TABLE r_on USING inverted_index(b, p RANGE, content=r);"
                "CREATE VIRTUAL TABLE r_off USING inverted_index(b, p RANGE, direct=off);"
                "CREATE VIRTUAL TABLE r_sync_f USING inverted_index_facets(r_sync);"
                "CREATE VIRTUAL TABLE r_on_f USING inverted_index_facets(r_on);"
                "CREATE VIRTUAL TABLE r_off_f USING inverted_index_facets(r_off);"
                "CREATE TRIGGER r_ai AFTER INSERT ON r BEGIN"
                "  INSERT INTO r_on(rowid, b, p) VALUES (new.id, new.b, new.p);"
                "  INSERT INTO r_off(rowid, b, p) VALUES (new.id, new.b, new.p); END;"
                "CREATE TRIGGER r_ad AFTER DELETE ON r BEGIN"
                "  INSERT INTO r_on(r_on, rowid) VALUES ('delete', old.id);"
                "  DELETE FROM r_off WHERE rowid = old.id; END;"
                "CREATE TRIGGER r_au AFTER UPDATE ON r BEGIN"
                "  UPDATE r_on SET rowid = new.id, b = new.b, p = new.p WHERE rowid = old.id;"
                "  UPDATE r_off SET rowid = new.id, b = new.b, p = new.p WHERE rowid = old.id; END;") !=
      SQLITE_OK) {
    printf("FAIL setup: %s\n", sqlite3_errmsg(db));
    return 1;
  }
  for (iStep = 0; iStep < nStep; iStep++) {
    int eTxn = (int)rangeRand(10);
    if (eTxn == 0) {
      /* A transaction that rolls back, or a savepoint rolled back to inside one that commits. */
      int bWhole = rangeRand(2);
      rangeExec(db, "BEGIN");
      rangeWrite(db);
      rangeExec(db, "SAVEPOINT s");
      for (i = 0; i < 3; i++) rangeWrite(db);
      if (rangeRand(2)) rangeQuery(db, iStep);
      rangeExec(db, bWhole ? "RELEASE s" : "ROLLBACK TO s");
      rangeExec(db, bWhole ? "ROLLBACK" : "COMMIT");
    } else {
      rangeWrite(db);
    }
    for (i = 0; i < 3; i++) rangeQuery(db, iStep);
    if (iStep % 4 == 0) rangeFacets(db, iStep);
    if (iStep % 37 == 36) {
      sqlite3_close(db);
      db = rangeOpen();
      for (k = 0; k < 3; k++) {
        char *zSql = sqlite3_mprintf("INSERT INTO %s(%s) VALUES ('integrity-check')", azIndex[k], azIndex[k]);
        if (rangeExec(db, zSql) != SQLITE_OK) {
          if (anBad[k]++ < 3)
            printf("FAIL %s step %d: integrity-check: %s\n", azIndex[k], iStep, sqlite3_errmsg(db));
        }
        sqlite3_free(zSql);
      }
    }
    if (iStep % 53 == 52) {
      const char *zCmd = rangeRand(2) ? "optimize" : "rebuild";
      for (k = 0; k < 3; k++) {
        char *zSql = sqlite3_mprintf("INSERT INTO %s(%s) VALUES (%Q)", azIndex[k], azIndex[k], zCmd);
        if (rangeExec(db, zSql) != SQLITE_OK) {
          if (anBad[k]++ < 3)
            printf("FAIL %s step %d: %s: %s\n", azIndex[k], iStep, zCmd, sqlite3_errmsg(db));
        }
        sqlite3_free(zSql);
      }
    }
  }
  sqlite3_close(db);
  unlink(zRangeDb);
  for (k = 0; k < 3; k++) {
    if (anBad[k]) {
      printf("FAIL %s: %d disagreements\n", azIndex[k], anBad[k]);
      nFail++;
    } else {
      printf("PASS %s\n", azIndex[k]);
      nPass++;
    }
  }
  /* Comparisons on empty answers only would prove nothing. */
  if (nNonEmpty * 4 < nCompared) {
    printf("FAIL too few non-empty answers: %d of %d\n", nNonEmpty, nCompared);
    nFail++;
  } else {
    printf("PASS %d of %d comparisons on non-empty answers\n", nNonEmpty, nCompared);
    nPass++;
  }
  if (nFacets == 0 && nStep >= 20) {
    printf("FAIL no range facets compared\n");
    nFail++;
  } else {
    printf("PASS %d range facets agreed with direct counts\n", nFacets);
    nPass++;
  }
  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail ? 1 : 0;
}
