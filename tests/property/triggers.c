/*
** triggers.c: the property test of trigger coverage (issue 35): every
** write form SQLite has, run at random on a base table, against every
** structure a trigger keeps, each compared after every step with a fresh
** computation from the table:
**
**   writes   INSERT; INSERT OR REPLACE through the INTEGER PRIMARY KEY,
**            through the UNIQUE column tag and through the UNIQUE
**            generated column gk; UPSERT DO UPDATE (of endpoints, of the
**            rowid); UPDATE of each column; UPDATE of the rowid through
**            rowid, oid, _rowid_ and the IPK's name, plain and OR
**            REPLACE; UPDATE OR REPLACE of tag and k; DELETE; statements
**            that fail half-way; transactions and savepoints rolled back;
**            recursive_triggers on and off; reopening the database; the
**            base table renamed or dropped and a new one made under its
**            name (the structures must then refuse to answer until
**            'rebuild', and the graph functions must read the table).
**   kept     graph_index sync and deferred over (src, dst) and over the
**            generated column gs (lower(src) for text); graph_index sync
**            and deferred in layout 'json' over table j; index_table sync
**            and deferred, keyed on a column and on a generated column.
**   checked  'integrity-check' of each (deferred ones after 'refresh':
**            a fresh computation from the table compared with what is
**            stored), and graph_components and graph_sssp through each
**            graph_index's name and through the table equal to the same
**            jobs over a plain copy of the table (no index).
**
**   build/property/triggers EXTENSION [STEPS [SEED]]
**
** The seed is printed with every failure. The last line is "N passed, N
** failed" for tests/run.sh.
*/
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prop.h"
#include "rows.h"

/* A node value as SQL: small integers, a few texts in both cases, 1.0, now and then NULL. */
static void trNode(char *z, size_t n) {
  unsigned k = propRand(40);
  if (k < 22) {
    snprintf(z, n, "%u", propRand(10));
  } else if (k < 34) {
    snprintf(z, n, "'%c'", (propRand(2) ? 'a' : 'A') + propRand(4));
  } else if (k < 37) {
    snprintf(z, n, "1.0");
  } else {
    snprintf(z, n, "NULL");
  }
}

/* The base tables and every structure kept over them. */
static const char *zSchemaE =
    "CREATE TABLE e(id INTEGER PRIMARY KEY, src, dst, w, tag UNIQUE, k,"
    " gs AS (CASE WHEN typeof(src) = 'text' THEN lower(src) ELSE src END) VIRTUAL,"
    " gk AS (k % 7) STORED UNIQUE);"
    "CREATE INDEX e_src ON e(src); CREATE INDEX e_dst ON e(dst);";
static const char *zSchemaJ = "CREATE TABLE j(id INTEGER PRIMARY KEY, node, nbrs, w, tag UNIQUE);";
static const char *zStructE =
    "CREATE VIRTUAL TABLE gs USING graph_index(e, src, dst, weight = w);"
    "CREATE VIRTUAL TABLE gd USING graph_index(e, src, dst, mode = 'deferred');"
    "CREATE VIRTUAL TABLE ggs USING graph_index(e, gs, dst);"
    "CREATE VIRTUAL TABLE ggd USING graph_index(e, gs, dst, weight = w, mode = 'deferred');"
    "CREATE VIRTUAL TABLE its USING index_table(e, key = 'dst', include = 'w, gs');"
    "CREATE VIRTUAL TABLE itd USING index_table(e, key = 'gs', include = 'tag', mode = 'deferred');";
static const char *zStructJ =
    "CREATE VIRTUAL TABLE js USING graph_index(j, node, nbrs, weight = w, layout = 'json');"
    "CREATE VIRTUAL TABLE jd USING graph_index(j, node, nbrs, layout = 'json', mode = 'deferred');";

/* Every structure: name, kind (0 graph_index, 1 index_table), deferred, base table. */
static const struct {
  const char *zName;
  int bIndexTable, bDeferred;
  const char *zBase;
} aStruct[] = {{"gs", 0, 0, "e"},  {"gd", 0, 1, "e"},  {"ggs", 0, 0, "e"}, {"ggd", 0, 1, "e"},
               {"its", 1, 0, "e"}, {"itd", 1, 1, "e"}, {"js", 0, 0, "j"},  {"jd", 0, 1, "j"}};
#define TR_NSTRUCT ((int)(sizeof(aStruct) / sizeof(aStruct[0])))

/* One random write to e, in one of the forms SQLite has (it may fail: a conflict, a refused weight). */
static void trWriteE(sqlite3 *db) {
  static const char *const azRowid[] = {"rowid", "oid", "_rowid_", "id"};
  char zA[32], zB[32], zSql[600];
  const char *zRowid = azRowid[propRand(4)];
  const char *zPick = "(SELECT id FROM e ORDER BY random() LIMIT 1)";
  trNode(zA, sizeof(zA));
  trNode(zB, sizeof(zB));
  switch (propRand(22)) {
    case 0:
    case 1:
    case 2:
      snprintf(zSql, sizeof(zSql), "INSERT INTO e(src, dst, w, k) VALUES (%s, %s, %u, %u)", zA, zB,
               propRand(9), propRand(40));
      break;
    case 3:
      snprintf(zSql, sizeof(zSql), "INSERT OR REPLACE INTO e(id, src, dst, w) VALUES (%u, %s, %s, %u)",
               propRand(50) + 1, zA, zB, propRand(9));
      break;
    case 4:
      snprintf(zSql, sizeof(zSql), "INSERT OR REPLACE INTO e(src, dst, w, tag) VALUES (%s, %s, 1, 't%u')", zA,
               zB, propRand(6));
      break;
    case 5:
      /* Through the generated UNIQUE column gk = k % 7. */
      snprintf(zSql, sizeof(zSql), "INSERT OR REPLACE INTO e(src, dst, w, k) VALUES (%s, %s, 2, %u)", zA, zB,
               propRand(40));
      break;
    case 6:
      snprintf(zSql, sizeof(zSql),
               "INSERT INTO e(id, src, dst, w) VALUES (%u, %s, %s, 1) ON CONFLICT(id) DO UPDATE SET src = "
               "excluded.src, dst = excluded.dst",
               propRand(50) + 1, zA, zB);
      break;
    case 7:
      snprintf(
          zSql, sizeof(zSql),
          "INSERT INTO e(src, dst, w, tag) VALUES (%s, %s, 1, 't%u') ON CONFLICT(tag) DO UPDATE SET %s = "
          "%u",
          zA, zB, propRand(6), zRowid, propRand(60) + 1);
      break;
    case 8:
      snprintf(zSql, sizeof(zSql),
               "UPDATE e SET src = %s WHERE id IN (SELECT id FROM e ORDER BY random() LIMIT 2)", zA);
      break;
    case 9:
      snprintf(zSql, sizeof(zSql), "UPDATE e SET dst = %s WHERE id %% 5 = %u", zB, propRand(5));
      break;
    case 10:
      snprintf(zSql, sizeof(zSql), "UPDATE e SET w = %u WHERE id = %s", propRand(9), zPick);
      break;
    case 11:
      snprintf(zSql, sizeof(zSql), "UPDATE e SET tag = 't%u' WHERE id = %s", propRand(6), zPick);
      break;
    case 12:
      snprintf(zSql, sizeof(zSql), "UPDATE e SET k = %u WHERE id = %s", propRand(40), zPick);
      break;
    case 13:
    case 14:
      snprintf(zSql, sizeof(zSql), "UPDATE e SET %s = %u WHERE id = %s", zRowid, propRand(60) + 1, zPick);
      break;
    case 15:
    case 16:
      snprintf(zSql, sizeof(zSql), "UPDATE OR REPLACE e SET %s = %u WHERE id = %s", zRowid, propRand(60) + 1,
               zPick);
      break;
    case 17:
      snprintf(zSql, sizeof(zSql), "UPDATE OR REPLACE e SET %s = 't%u' WHERE id = %s",
               propRand(2) ? "tag" : "k", propRand(6), zPick);
      break;
    case 18:
      snprintf(zSql, sizeof(zSql), "DELETE FROM e WHERE id = %s", zPick);
      break;
    case 19:
      snprintf(zSql, sizeof(zSql), "UPDATE e SET src = dst, dst = src, %s = %s + 100 WHERE id = %s", zRowid,
               zRowid, zPick);
      break;
    case 20:
      /* Fails at its last row (a refused weight): the first rows go with it. */
      snprintf(zSql, sizeof(zSql),
               "INSERT INTO e(src, dst, w) VALUES ('z%u', %s, 1), (%s, 'y', 1), (1, 2, -1)", propRand(4), zA,
               zB);
      break;
    default:
      snprintf(zSql, sizeof(zSql), "DELETE FROM e WHERE src = %s", zA);
      break;
  }
  propExec(db, zSql, 1);
}

/* A JSON array of up to 3 node values, NULL now and then. */
static void trArray(char *z, size_t n) {
  unsigned i, m = propRand(4);
  size_t at;
  if (propRand(12) == 0) {
    snprintf(z, n, "NULL");
    return;
  }
  at = (size_t)snprintf(z, n, "'[");
  for (i = 0; i < m; i++) at += (size_t)snprintf(z + at, n - at, "%s%u", i ? ", " : "", propRand(8));
  snprintf(z + at, n - at, "]'");
}

/* One random write to the JSON-layout table j. */
static void trWriteJ(sqlite3 *db) {
  static const char *const azRowid[] = {"rowid", "oid", "_rowid_", "id"};
  char zL[64], zSql[400];
  unsigned a = propRand(8);
  trArray(zL, sizeof(zL));
  switch (propRand(8)) {
    case 0:
    case 1:
      snprintf(zSql, sizeof(zSql), "INSERT INTO j(node, nbrs, w) VALUES (%u, %s, %u)", a, zL, propRand(5));
      break;
    case 2:
      snprintf(zSql, sizeof(zSql), "INSERT OR REPLACE INTO j(node, nbrs, w, tag) VALUES (%u, %s, 1, 't%u')",
               a, zL, propRand(4));
      break;
    case 3:
      snprintf(zSql, sizeof(zSql),
               "UPDATE j SET nbrs = %s WHERE id = (SELECT id FROM j ORDER BY random() LIMIT 1)", zL);
      break;
    case 4:
      snprintf(zSql, sizeof(zSql),
               "UPDATE OR REPLACE j SET %s = %u WHERE id = (SELECT id FROM j ORDER BY random() LIMIT 1)",
               azRowid[propRand(4)], propRand(30) + 1);
      break;
    case 5:
      snprintf(zSql, sizeof(zSql), "UPDATE j SET node = %u WHERE id %% 3 = %u", a, propRand(3));
      break;
    case 6:
      snprintf(zSql, sizeof(zSql), "DELETE FROM j WHERE id = (SELECT id FROM j ORDER BY random() LIMIT 1)");
      break;
    default:
      snprintf(zSql, sizeof(zSql),
               "UPDATE j SET %s = %u WHERE id = (SELECT id FROM j ORDER BY random() LIMIT 1)",
               azRowid[propRand(4)], propRand(30) + 1);
      break;
  }
  propExec(db, zSql, 1);
}

/* Whether the rows of zA and zB are equal; says how they differ when not. */
static int trSame(sqlite3 *db, const char *zWhat, const char *zA, const char *zB) {
  char *zErrA = NULL, *zErrB = NULL;
  char *a = propRows(db, zA, NULL, &zErrA), *b = propRows(db, zB, NULL, &zErrB);
  int bSame = zErrA == NULL && zErrB == NULL && strcmp(a, b) == 0;
  if (!bSame) {
    fprintf(stderr, "seed %llu step %d: %s differs:\n  %s\n  -> %s%s\n  %s\n  -> %s%s\n", propSeed, propStep,
            zWhat, zA, zErrA ? zErrA : "", a, zB, zErrB ? zErrB : "", b);
  }
  sqlite3_free(zErrA);
  sqlite3_free(zErrB);
  free(a);
  free(b);
  return bSame;
}

/* The plain copies the graph functions read without any index. */
static void trCopy(sqlite3 *db) {
  propExec(db,
           "DELETE FROM ecopy; INSERT INTO ecopy SELECT id, src, dst, w, gs FROM e;"
           "DELETE FROM jcopy; INSERT INTO jcopy SELECT id, node, nbrs, w FROM j",
           0);
}

/* Every check of one step: the number of structures that disagree. */
static int trCheck(sqlite3 *db, int bStale) {
  char zSql[400], zB[400];
  int i, nBad = 0;
  trCopy(db);
  for (i = 0; i < TR_NSTRUCT; i++) {
    const char *zN = aStruct[i].zName;
    int bJson = aStruct[i].zBase[0] == 'j';
    if (!aStruct[i].bIndexTable) {
      /* Through the index's name (a stale or pending one reads the table) against the copy. */
      const char *zCols = bJson ? "node', 'nbrs" : strncmp(zN, "gg", 2) == 0 ? "gs', 'dst" : "src', 'dst";
      const char *zLayout = bJson ? ", 'json'" : "";
      snprintf(zSql, sizeof(zSql), "SELECT node, component FROM graph_components('%s', NULL, NULL%s)", zN,
               zLayout);
      snprintf(zB, sizeof(zB), "SELECT node, component FROM graph_components('%s', '%s'%s)",
               bJson ? "jcopy" : "ecopy", zCols, zLayout);
      if (!trSame(db, zN, zSql, zB)) nBad++;
      if (strcmp(zN, "gs") == 0 || strcmp(zN, "js") == 0) {
        snprintf(zSql, sizeof(zSql), "SELECT node, distance FROM graph_sssp('%s', NULL, NULL, 1, 'w'%s)", zN,
                 zLayout);
        snprintf(zB, sizeof(zB), "SELECT node, distance FROM graph_sssp('%s', '%s', 1, 'w'%s)",
                 bJson ? "jcopy" : "ecopy", zCols, zLayout);
        if (!trSame(db, zN, zSql, zB)) nBad++;
      }
    }
    if (bStale && aStruct[i].zBase[0] == 'e') {
      /* Its base was renamed or dropped and made again: it must refuse to answer. */
      char *zErr = NULL;
      char *z;
      snprintf(zSql, sizeof(zSql), "SELECT * FROM %s", zN);
      z = propRows(db, zSql, NULL, &zErr);
      if (zErr == NULL || strstr(zErr, "rebuild") == NULL) {
        fprintf(stderr, "seed %llu step %d: stale %s answered:\n%s\n", propSeed, propStep, zN, z);
        nBad++;
      }
      free(z);
      sqlite3_free(zErr);
      snprintf(zSql, sizeof(zSql), "INSERT INTO %s(%s) VALUES('rebuild')", zN, zN);
      if (propExec(db, zSql, 0) != SQLITE_OK) nBad++;
    }
    if (aStruct[i].bDeferred) {
      snprintf(zSql, sizeof(zSql), "INSERT INTO %s(%s) VALUES('refresh')", zN, zN);
      if (propExec(db, zSql, 0) != SQLITE_OK) nBad++;
    }
    snprintf(zSql, sizeof(zSql), "INSERT INTO %s(%s) VALUES('integrity-check')", zN, zN);
    if (propExec(db, zSql, 0) != SQLITE_OK) nBad++;
  }
  /* Through the table: whichever index is up to date (or the table itself). */
  if (!trSame(db, "graph_components over e",
              "SELECT node, component FROM graph_components('e', 'src', 'dst')",
              "SELECT node, component FROM graph_components('ecopy', 'src', 'dst')") ||
      !trSame(db, "graph_components over e.gs",
              "SELECT node, component FROM graph_components('e', 'gs', 'dst')",
              "SELECT node, component FROM graph_components('ecopy', 'gs', 'dst')")) {
    nBad++;
  }
  return nBad;
}

/*
** The base table e renamed (bDrop 0) or dropped (1), and a new one made
** under its name with other rows: graph functions over 'e' must read the
** new table, every structure over e must refuse to answer until rebuilt.
*/
static int trRecreate(sqlite3 *db, int bDrop) {
  int nBad;
  propExec(db, "DROP TABLE IF EXISTS e_old", 0);
  propExec(db, bDrop ? "DROP TABLE e" : "ALTER TABLE e RENAME TO e_old; DROP INDEX e_src; DROP INDEX e_dst",
           0);
  propExec(db, zSchemaE, 0);
  propExec(db, "INSERT INTO e(src, dst, w, k) VALUES (7, 8, 1, 1), (8, 'b', 2, 2), ('B', 9, 3, 3)", 0);
  /* Before the checks: the graph functions over 'e' through the table alone. */
  nBad = trCheck(db, 1);
  if (!bDrop) {
    /* The old table's writes still run the old triggers; the indexes were rebuilt over the new one. */
    propExec(db, "INSERT INTO e_old(src, dst, w) VALUES (1, 2, 1); DELETE FROM e_old WHERE id % 2 = 0", 0);
  }
  return nBad;
}

int main(int argc, char **argv) {
  const char *zExt = argc > 1 ? argv[1] : "dist/nosql";
  int nStep = argc > 2 ? atoi(argv[2]) : 200, nBad = 0, nRecreate = 0, nPass = 0, nFail = 0;
  char zFile[64];
  sqlite3 *db;
  propSeed = argc > 3 ? strtoull(argv[3], 0, 10) : 35;
  propState = propSeed;
  snprintf(zFile, sizeof(zFile), "/tmp/triggers_prop_%d.db", (int)getpid());
  unlink(zFile);
  db = propOpen(zFile, zExt, 1);
  if (db == NULL) {
    printf("0 passed, 1 failed\n");
    return 1;
  }
  if (propExec(db, zSchemaE, 0) != SQLITE_OK || propExec(db, zSchemaJ, 0) != SQLITE_OK ||
      propExec(
          db,
          "INSERT INTO e(src, dst, w, k) VALUES (1, 2, 1, 1), (2, 3, 2, 2), ('a', 1, 1, 3), ('A', 'b', 1, 4);"
          "INSERT INTO j(node, nbrs, w) VALUES (1, '[2, 3]', 1), (2, '[]', 2), (3, NULL, 1);"
          "CREATE TABLE ecopy(id INTEGER PRIMARY KEY, src, dst, w, gs);"
          "CREATE TABLE jcopy(id INTEGER PRIMARY KEY, node, nbrs, w);",
          0) != SQLITE_OK ||
      propExec(db, zStructE, 0) != SQLITE_OK || propExec(db, zStructJ, 0) != SQLITE_OK) {
    printf("0 passed, 1 failed\n");
    return 1;
  }
  for (propStep = 0; propStep < nStep && nBad < 5; propStep++) {
    unsigned k = propRand(40);
    if (k == 0) {
      propExec(db, "BEGIN", 0);
      trWriteE(db);
      trWriteJ(db);
      trWriteE(db);
      propExec(db, "ROLLBACK", 0);
    } else if (k == 1) {
      propExec(db, "BEGIN", 0);
      trWriteE(db);
      propExec(db, "SAVEPOINT s", 0);
      trWriteE(db);
      trWriteJ(db);
      trWriteE(db);
      propExec(db, "ROLLBACK TO s", 0);
      trWriteE(db);
      trWriteJ(db);
      propExec(db, "RELEASE s", 0);
      propExec(db, "COMMIT", 0);
    } else if (k == 2) {
      sqlite3_close(db);
      db = propOpen(zFile, zExt, 1);
      if (db == NULL) break;
    } else if (k == 3) {
      propExec(db, propRand(2) ? "PRAGMA recursive_triggers = 1" : "PRAGMA recursive_triggers = 0", 0);
      trWriteE(db);
    } else if (k == 4 || k == 5) {
      nRecreate++;
      nBad += trRecreate(db, k == 5) != 0;
      continue;
    } else {
      trWriteE(db);
      trWriteJ(db);
    }
    nBad += trCheck(db, 0) != 0;
  }
  if (db) sqlite3_close(db);
  unlink(zFile);
  if (nBad == 0 && propStep == nStep) {
    printf("PASS trigger coverage: %d steps (%d renamed or dropped bases), %d structures, seed %llu\n", nStep,
           nRecreate, TR_NSTRUCT, propSeed);
    nPass++;
  } else {
    printf("FAIL trigger coverage: %d steps differ (seed %llu)\n", nBad, propSeed);
    nFail++;
  }
  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail != 0;
}
