/*
** graph_index.c: the property test of graph_index's maintenance (issue
** 28): random histories of writes to an edge table (inserts with new and
** taken rowids, INSERT OR REPLACE through the rowid and through a UNIQUE
** column, deletes, updates of either endpoint, the weight and the rowid,
** UPDATE OR REPLACE, NULL endpoints, refused negative weights,
** transactions that commit or roll back, savepoints released or rolled
** back to, reopening the database) must leave a sync graph_index equal to
** a load of the table after every step ('integrity-check' compares the
** two loads: nodes, their order, every list and weight), its rows equal to
** degrees counted in SQL, and graph_pagerank and graph_sssp over the
** table (which then read the index) equal to the same jobs over a view of
** it (never indexed). A deferred graph_index over the same table must
** pass after each 'refresh'. The same for layout = 'json' over table j
** (one row per node, to_col a JSON array: NULL, [], null elements,
** duplicates, a node in several rows, refused non-arrays), written in the
** same steps and transactions, against a plain copy of the table.
**
**   cc -O1 -g -o build/property/graph_index tests/property/graph_index.c -lsqlite3
**   build/property/graph_index EXTENSION [STEPS [SEED]]
**
** The last line is "N passed, N failed" for tests/run.sh.
*/
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prop.h"

static int nPass, nFail;

/* A node value as SQL: small integers (hubs), a few texts, a real, 1.0 (the node 1), now and then NULL. */
static void giNode(char *z, size_t n) {
  unsigned k = propRand(40);
  if (k < 24) {
    snprintf(z, n, "%u", propRand(12));
  } else if (k < 32) {
    snprintf(z, n, "'%c'", 'a' + propRand(5));
  } else if (k < 35) {
    snprintf(z, n, "2.5");
  } else if (k < 38) {
    snprintf(z, n, "1.0");
  } else {
    snprintf(z, n, "NULL");
  }
}

/* The text of a one-value query, or NULL (sqlite3_mprintf). */
static char *giText(sqlite3 *db, const char *zSql) {
  sqlite3_stmt *pStmt = NULL;
  char *z = NULL;
  if (sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0) == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    const char *zV = (const char *)sqlite3_column_text(pStmt, 0);
    z = sqlite3_mprintf("%s", zV ? zV : "NULL");
  } else {
    z = sqlite3_mprintf("error: %s", sqlite3_errmsg(db));
  }
  sqlite3_finalize(pStmt);
  return z;
}

static int giSame(sqlite3 *db, const char *zA, const char *zB) {
  char *a = giText(db, zA), *b = giText(db, zB);
  int bSame = a && b && strcmp(a, b) == 0;
  if (!bSame) fprintf(stderr, "differ:\n  %s\n  -> %s\n  %s\n  -> %s\n", zA, a, zB, b);
  sqlite3_free(a);
  sqlite3_free(b);
  return bSame;
}

/* One random write (a statement that may fail: a refused weight, a UNIQUE conflict). */
static void giWrite(sqlite3 *db, int iStep) {
  char zA[32], zB[32], zSql[512];
  unsigned k = propRand(17);
  giNode(zA, sizeof(zA));
  giNode(zB, sizeof(zB));
  switch (k) {
    case 0:
    case 1:
    case 2:
    case 3:
      snprintf(zSql, sizeof(zSql), "INSERT INTO e(src, dst, w) VALUES (%s, %s, %u)", zA, zB, propRand(9));
      break;
    case 4:
      snprintf(zSql, sizeof(zSql), "INSERT OR REPLACE INTO e(id, src, dst, w) VALUES (%u, %s, %s, %u)",
               propRand(60) + 1, zA, zB, propRand(9));
      break;
    case 5:
      snprintf(zSql, sizeof(zSql), "INSERT OR REPLACE INTO e(src, dst, w, tag) VALUES (%s, %s, 1, 't%u')", zA,
               zB, propRand(6));
      break;
    case 6:
      snprintf(zSql, sizeof(zSql), "DELETE FROM e WHERE id = (SELECT id FROM e ORDER BY random() LIMIT 1)");
      break;
    case 7:
      snprintf(zSql, sizeof(zSql), "DELETE FROM e WHERE src = %s", zA);
      break;
    case 8:
      snprintf(zSql, sizeof(zSql), "UPDATE e SET dst = %s WHERE id %% 7 = %u", zB, propRand(7));
      break;
    case 9:
      snprintf(zSql, sizeof(zSql),
               "UPDATE e SET src = %s WHERE id IN (SELECT id FROM e ORDER BY random() LIMIT 3)", zA);
      break;
    case 10:
      snprintf(zSql, sizeof(zSql), "UPDATE e SET w = w + 1 WHERE src = %s", zA);
      break;
    case 11:
      snprintf(zSql, sizeof(zSql),
               "UPDATE OR REPLACE e SET id = %u WHERE id = (SELECT id FROM e ORDER BY random() LIMIT 1)",
               propRand(80) + 1);
      break;
    case 12:
      snprintf(zSql, sizeof(zSql),
               "UPDATE OR REPLACE e SET tag = 't%u' WHERE id = (SELECT id FROM e ORDER BY random() LIMIT 1)",
               propRand(6));
      break;
    case 13:
      /* Refused by the sync index: the statement fails, nothing changes. */
      snprintf(zSql, sizeof(zSql), "INSERT INTO e(src, dst, w) VALUES (1, 2, -%u)", propRand(5) + 1);
      break;
    case 15:
      /* A statement that fails after a row made new node numbers: they go with its rollback. */
      snprintf(zSql, sizeof(zSql),
               "INSERT INTO e(src, dst, w) VALUES ('z%u', 'y%u', 1), (%s, 'x%u', 1), (1, 2, -1)", propRand(4),
               propRand(4), zA, propRand(4));
      break;
    case 14:
      snprintf(zSql, sizeof(zSql), "UPDATE e SET src = dst, dst = src WHERE id %% 5 = %u", propRand(5));
      break;
    case 16:
      snprintf(zSql, sizeof(zSql), "INSERT INTO e(src, dst, w) VALUES ('z%u', 'x%u', %u)", propRand(4),
               propRand(4), propRand(3));
      break;
    default:
      snprintf(zSql, sizeof(zSql),
               "INSERT INTO e(src, dst, w) SELECT dst, src, w FROM e WHERE id IN (SELECT id FROM e ORDER BY "
               "random() LIMIT 4)");
      break;
  }
  (void)iStep;
  propExec(db, zSql, 1);
}

/* A JSON array of 0 to 4 node values (NULL now and then, a non-array rarely: refused). */
static void giArray(char *z, size_t n) {
  unsigned k = propRand(30), i, m = propRand(5);
  size_t at;
  if (k == 0) {
    snprintf(z, n, "NULL");
    return;
  }
  if (k == 1) {
    snprintf(z, n, "'{\"a\": 1}'");
    return;
  }
  at = (size_t)snprintf(z, n, "'[");
  for (i = 0; i < m && at + 40 < n; i++) {
    char zV[32];
    unsigned j = propRand(10);
    if (j == 0) {
      snprintf(zV, sizeof(zV), "null");
    } else if (j < 3) {
      snprintf(zV, sizeof(zV), "\"%c\"", 'a' + propRand(5));
    } else {
      snprintf(zV, sizeof(zV), "%u", propRand(12));
    }
    at += (size_t)snprintf(z + at, n - at, "%s%s", i ? ", " : "", zV);
  }
  snprintf(z + at, n - at, "]'");
}

/* One random write to the JSON-layout table j. */
static void giWriteJson(sqlite3 *db) {
  char zA[32], zL[256], zSql[512];
  unsigned k = propRand(10);
  giNode(zA, sizeof(zA));
  giArray(zL, sizeof(zL));
  switch (k) {
    case 0:
    case 1:
    case 2:
      snprintf(zSql, sizeof(zSql), "INSERT INTO j(node, nbrs, w) VALUES (%s, %s, %u)", zA, zL, propRand(9));
      break;
    case 3:
      snprintf(zSql, sizeof(zSql), "INSERT OR REPLACE INTO j(id, node, nbrs, w) VALUES (%u, %s, %s, %u)",
               propRand(40) + 1, zA, zL, propRand(9));
      break;
    case 4:
      snprintf(zSql, sizeof(zSql), "INSERT OR REPLACE INTO j(node, nbrs, w, tag) VALUES (%s, %s, 1, 't%u')",
               zA, zL, propRand(6));
      break;
    case 5:
      snprintf(zSql, sizeof(zSql), "DELETE FROM j WHERE id = (SELECT id FROM j ORDER BY random() LIMIT 1)");
      break;
    case 6:
      snprintf(zSql, sizeof(zSql),
               "UPDATE j SET nbrs = %s WHERE id = (SELECT id FROM j ORDER BY random() LIMIT 1)", zL);
      break;
    case 7:
      snprintf(zSql, sizeof(zSql), "UPDATE j SET node = %s WHERE id %% 5 = %u", zA, propRand(5));
      break;
    case 8:
      snprintf(zSql, sizeof(zSql),
               "UPDATE OR REPLACE j SET id = %u WHERE id = (SELECT id FROM j ORDER BY random() LIMIT 1)",
               propRand(50) + 1);
      break;
    default:
      snprintf(zSql, sizeof(zSql), "UPDATE j SET w = w + 1 WHERE node = %s", zA);
      break;
  }
  propExec(db, zSql, 1);
}

int main(int argc, char **argv) {
  const char *zExt = argc > 1 ? argv[1] : "dist/nosql";
  int nStep = argc > 2 ? atoi(argv[2]) : 300, i, nBad = 0, nBadDeferred = 0, nRefresh = 0, nBadJson = 0;
  char zFile[64];
  sqlite3 *db;
  propSeed = propState = argc > 3 ? strtoull(argv[3], 0, 10) : 28;
  snprintf(zFile, sizeof(zFile), "/tmp/graph_index_prop_%d.db", (int)getpid());
  unlink(zFile);
  db = propOpen(zFile, zExt, 0);
  if (db == NULL) {
    printf("0 passed, 1 failed\n");
    return 1;
  }
  if (propExec(
          db,
          "CREATE TABLE e(id INTEGER PRIMARY KEY, src, dst, w, tag UNIQUE);"
          "CREATE INDEX e_src ON e(src); CREATE INDEX e_dst ON e(dst);"
          "CREATE VIEW ev AS SELECT * FROM e;"
          "INSERT INTO e(src, dst, w) VALUES (1, 2, 1), (2, 3, 2), ('a', 1, 1);"
          "CREATE VIRTUAL TABLE gs USING graph_index(e, src, dst, weight = w);"
          "CREATE VIRTUAL TABLE gd USING graph_index(e, src, dst, mode = 'deferred');"
          "CREATE TABLE j(id INTEGER PRIMARY KEY, node, nbrs, w, tag UNIQUE); CREATE INDEX j_node ON j(node);"
          "CREATE TABLE jv(id INTEGER PRIMARY KEY, node, nbrs, w, tag);"
          "INSERT INTO j(node, nbrs, w) VALUES (1, '[2, 3]', 1), (2, '[]', 2), ('a', NULL, 1);"
          "CREATE VIRTUAL TABLE js USING graph_index(j, node, nbrs, weight = w, layout = 'json');"
          "CREATE VIRTUAL TABLE jd USING graph_index(j, node, nbrs, layout = 'json', mode = 'deferred');",
          0) != SQLITE_OK) {
    printf("0 passed, 1 failed\n");
    return 1;
  }
  for (i = 0; i < nStep; i++) {
    propStep = i;
    unsigned k = propRand(20);
    if (k == 0) {
      /* A transaction rolled back. */
      propExec(db, "BEGIN", 0);
      giWrite(db, i);
      giWriteJson(db);
      giWrite(db, i);
      giWriteJson(db);
      propExec(db, "ROLLBACK", 0);
    } else if (k == 1) {
      /* A savepoint rolled back to inside a committed transaction. */
      char zFail[160];
      propExec(db, "BEGIN", 0);
      giWrite(db, i);
      giWriteJson(db);
      /* A statement that fails after it made node numbers: they must go with it. */
      snprintf(zFail, sizeof(zFail), "INSERT INTO e(src, dst, w) VALUES ('z%u', 'y%u', 1), (1, 2, -1)",
               propRand(4), propRand(4));
      propExec(db, zFail, 1);
      giWrite(db, i);
      giWriteJson(db);
      propExec(db, "SAVEPOINT s", 0);
      giWrite(db, i);
      giWriteJson(db);
      giWrite(db, i);
      giWriteJson(db);
      propExec(db, "ROLLBACK TO s", 0);
      giWrite(db, i);
      giWriteJson(db);
      propExec(db, "RELEASE s", 0);
      propExec(db, "COMMIT", 0);
    } else if (k == 2) {
      sqlite3_close(db);
      db = propOpen(zFile, zExt, 0);
      if (db == NULL) break;
      propExec(db, k & 1 ? "PRAGMA recursive_triggers = 1" : "PRAGMA recursive_triggers = 0", 0);
    } else {
      giWrite(db, i);
      giWriteJson(db);
    }
    if (propExec(db, "INSERT INTO gs(gs) VALUES('integrity-check')", 1) != SQLITE_OK ||
        !giSame(db,
                "SELECT group_concat(quote(node) || ':' || out_degree || ':' || in_degree) FROM (SELECT * "
                "FROM gs "
                "ORDER BY 1, 2, 3)",
                "SELECT group_concat(quote(CASE WHEN typeof(v) = 'real' AND v = CAST(v AS INTEGER) THEN "
                "CAST(v AS INTEGER) "
                "ELSE v END) || ':' || (SELECT count(*) FROM e WHERE src = v AND dst IS NOT NULL) || "
                "':' || (SELECT count(*) FROM e WHERE dst = v AND src IS NOT NULL)) FROM (SELECT src AS v "
                "FROM e WHERE "
                "src IS NOT NULL AND dst IS NOT NULL UNION SELECT dst FROM e WHERE src IS NOT NULL AND dst "
                "IS NOT NULL "
                "ORDER BY 1)") ||
        !giSame(db, "SELECT group_concat(quote(node) || '=' || rank) FROM graph_pagerank('e', 'src', 'dst')",
                "SELECT group_concat(quote(node) || '=' || rank) FROM graph_pagerank('ev', 'src', 'dst')") ||
        !giSame(
            db,
            "SELECT group_concat(quote(node) || '=' || distance) FROM graph_sssp('gs', NULL, NULL, 1, 'w')",
            "SELECT group_concat(quote(node) || '=' || distance) FROM graph_sssp('ev', 'src', 'dst', 1, "
            "'w')")) {
      if (nBad++ < 3) fprintf(stderr, "gs differs at step %d: %s\n", i, sqlite3_errmsg(db));
    }
    /* jv: a plain copy of j (a view would order the JSON layout's edges by array position only). */
    propExec(db, "DELETE FROM jv; INSERT INTO jv SELECT * FROM j", 0);
    if (propExec(db, "INSERT INTO js(js) VALUES('integrity-check')", 1) != SQLITE_OK ||
        !giSame(
            db,
            "SELECT group_concat(quote(node) || '=' || rank) FROM graph_pagerank('j', 'node', 'nbrs', 0.85, "
            "1e-9, 100, NULL, 'json')",
            "SELECT group_concat(quote(node) || '=' || rank) FROM graph_pagerank('jv', 'node', 'nbrs', 0.85, "
            "1e-9, 100, NULL, 'json')") ||
        !giSame(
            db,
            "SELECT group_concat(quote(node) || '=' || distance) FROM graph_sssp('js', NULL, NULL, 1, 'w', "
            "'json')",
            "SELECT group_concat(quote(node) || '=' || distance) FROM graph_sssp('jv', 'node', 'nbrs', 1, "
            "'w', 'json')") ||
        !giSame(
            db,
            "SELECT group_concat(quote(node) || ':' || out_degree || ':' || in_degree) FROM (SELECT * "
            "FROM js ORDER BY 1, 2, 3)",
            "WITH el(f, v) AS (SELECT s.node, x.value FROM j AS s, json_each(s.nbrs) AS x WHERE s.node IS "
            "NOT NULL AND s.nbrs IS NOT NULL AND x.value IS NOT NULL), n(v) AS (SELECT node FROM j WHERE "
            "node IS NOT NULL UNION SELECT v FROM el) SELECT group_concat(quote(CASE WHEN typeof(v) = "
            "'real' AND v = CAST(v AS INTEGER) THEN CAST(v AS INTEGER) ELSE v END) || ':' || (SELECT "
            "count(*) FROM el WHERE el.f = n.v) || ':' || (SELECT count(*) FROM el WHERE el.v = n.v)) "
            "FROM (SELECT v FROM n ORDER BY 1) AS n")) {
      if (nBadJson++ < 3) fprintf(stderr, "js differs at step %d: %s\n", i, sqlite3_errmsg(db));
    }
    if (propRand(4) == 0) {
      nRefresh++;
      if (propExec(db, "INSERT INTO jd(jd) VALUES('refresh')", 0) != SQLITE_OK ||
          propExec(db, "INSERT INTO jd(jd) VALUES('integrity-check')", 1) != SQLITE_OK) {
        if (nBadDeferred++ < 3) fprintf(stderr, "jd differs at step %d: %s\n", i, sqlite3_errmsg(db));
      }
      if (propExec(db, "INSERT INTO gd(gd) VALUES('refresh')", 0) != SQLITE_OK ||
          propExec(db, "INSERT INTO gd(gd) VALUES('integrity-check')", 1) != SQLITE_OK) {
        if (nBadDeferred++ < 3) fprintf(stderr, "gd differs at step %d: %s\n", i, sqlite3_errmsg(db));
      }
    }
  }
  if (db) sqlite3_close(db);
  unlink(zFile);
  if (nBad == 0 && i == nStep) {
    printf("PASS graph_index sync (%d steps)\n", nStep);
    nPass++;
  } else {
    printf("FAIL graph_index sync: %d steps differ\n", nBad);
    nFail++;
  }
  if (nBadJson == 0 && i == nStep) {
    printf("PASS graph_index layout json (%d steps)\n", nStep);
    nPass++;
  } else {
    printf("FAIL graph_index layout json: %d steps differ\n", nBadJson);
    nFail++;
  }
  if (nBadDeferred == 0 && i == nStep) {
    printf("PASS graph_index deferred (%d refreshes)\n", nRefresh);
    nPass++;
  } else {
    printf("FAIL graph_index deferred: %d refreshes differ\n", nBadDeferred);
    nFail++;
  }
  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail != 0;
}
