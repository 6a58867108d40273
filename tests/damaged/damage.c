/*
** damage.c: damaged shadow tables never crash, hang or leak.
**
**   build/damage --ext dist/nosql [--rounds N] [--seed S]
**
** For each module that keeps shadow tables, a scenario builds a small
** table, then every round damages a fresh copy of it: a few random edits
** to random rows of random shadow tables (a value replaced by NULL, an
** integer extreme, text, a random blob, the blob cut short or one byte
** flipped, another row's value; a row deleted or duplicated), and runs
** every read, write and command of the module against it. Any result code
** is accepted (SQLITE_CORRUPT_VTAB is what damage should give, a correct
** answer is fine too); what fails a round is a crash, a sanitizer report
** (the program runs under ASan+UBSan in make test), or a statement that
** runs longer than the progress-handler budget or the alarm. The round's
** seed is printed on failure, so `--seed S --rounds 1` replays it, and
** DAMAGE_VERBOSE=1 prints each edit and each statement's result.
**
** Last line: "N passed, N failed" (one count per scenario and round).
*/
#include <dlfcn.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One module's set-up and the statements run against its damaged copy. */
typedef struct Scenario {
  const char *zName;       /* Shown in messages */
  const char *zPrefix;     /* Shadow tables are the tables named zPrefix% */
  const char *zSetup;      /* Builds the table (before damage) */
  const char *azProbe[24]; /* Run after damage; NULL-terminated */
} Scenario;

static const Scenario aScenario[] = {
    {"nested_set",
     "t\\_%",
     "CREATE VIRTUAL TABLE t USING nested_set(name TEXT, w REAL);"
     "INSERT INTO t(id, parent, name, w) VALUES (1, NULL, 'root', 1);"
     "WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < 60)"
     " INSERT INTO t(id, parent, name, w) SELECT i, i / 2, 'n' || i, i * 0.5 FROM n;",
     {"SELECT * FROM t",
      "SELECT id FROM t WHERE descendant_of = 1",
      "SELECT id FROM t WHERE subtree_of = 2",
      "SELECT id FROM t WHERE ancestor_of = 50",
      "SELECT id FROM t WHERE children_of = 3",
      "SELECT id FROM t WHERE siblings_of = 7",
      "SELECT id FROM t WHERE parent = 4",
      "SELECT id, before FROM t WHERE lft BETWEEN 3 AND 40",
      "SELECT id FROM t WHERE depth = 2 AND subtree_of = 1",
      "SELECT count(*) FROM t WHERE is_leaf",
      "INSERT INTO t(id, parent, name) VALUES (100, 5, 'new')",
      "INSERT INTO t(id, parent, name, before) VALUES (101, 1, 'first', 2)",
      "UPDATE t SET parent = 9 WHERE id = 4",
      "UPDATE t SET name = 'renamed' WHERE id = 30",
      "DELETE FROM t WHERE id = 6",
      "DELETE FROM t WHERE subtree_of = 10",
      "INSERT INTO t(t) VALUES ('integrity-check')",
      "INSERT INTO t(t) VALUES ('rebuild')",
      "INSERT INTO t(t) VALUES ('integrity-check')",
      "SELECT id FROM t WHERE descendant_of = 1",
      NULL}},
    {"inverted_index",
     "t\\_%",
     "CREATE VIRTUAL TABLE t USING inverted_index(a, b);"
     "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)"
     " INSERT INTO t(rowid, a, b) SELECT i, 'x' || (i % 7), json_array('y' || (i % 5), 'z' || (i % 3)) FROM "
     "n;"
     "DELETE FROM t WHERE rowid % 11 = 0;"
     "CREATE VIRTUAL TABLE f USING inverted_index_facets(t);"
     "CREATE VIRTUAL TABLE v USING inverted_index_vocab(t);",
     {"SELECT rowid, a, b FROM t",
      "SELECT rowid FROM t WHERE t MATCH 'a:x1'",
      "SELECT rowid FROM t WHERE t MATCH 'a:x1 AND b:y2'",
      "SELECT rowid FROM t WHERE t MATCH 'a:x1 OR a:x2 OR NOT b:z0'",
      "SELECT rowid FROM t WHERE t MATCH '(a:x3 OR b:y4) AND NOT a:x5'",
      "SELECT inverted_index_count('t', 'a:x1 OR b:y1')",
      "SELECT field, term, docs FROM f WHERE query = 'b:y1'",
      "SELECT field, term, docs FROM f WHERE query = 'a:x2' AND method = 'direct'",
      "SELECT field, term, docs FROM f WHERE query = 'a:x2' AND method = 'bitmap'",
      "SELECT field, term, docs FROM v",
      "SELECT a FROM t WHERE rowid = 17",
      "INSERT INTO t(rowid, a, b) VALUES (1000, 'x1', 'y1')",
      "UPDATE t SET a = 'x9' WHERE rowid = 5",
      "DELETE FROM t WHERE rowid = 8",
      "DELETE FROM t WHERE t MATCH 'a:x4'",
      "INSERT INTO t(t) VALUES ('integrity-check')",
      "INSERT INTO t(t) VALUES ('optimize')",
      "INSERT INTO t(t) VALUES ('rebuild')",
      "INSERT INTO t(t) VALUES ('integrity-check')",
      "SELECT rowid FROM t WHERE t MATCH 'a:x1'",
      NULL}},
    {"inverted_index RANGE",
     "t\\_%",
     "CREATE VIRTUAL TABLE t USING inverted_index(a, p RANGE);"
     "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)"
     " INSERT INTO t(rowid, a, p) SELECT i, 'x' || (i % 7), CASE WHEN i % 13 = 0 THEN NULL WHEN i % 3 = 0"
     " THEN i - 150 ELSE (i * 7919 % 1000) / 10.0 END FROM n;"
     "DELETE FROM t WHERE rowid % 11 = 0;"
     "CREATE VIRTUAL TABLE f USING inverted_index_facets(t);",
     {"SELECT rowid, a, p FROM t", "SELECT rowid FROM t WHERE t MATCH 'p:[10 TO 50]'",
      "SELECT rowid FROM t WHERE t MATCH 'a:x1 AND p:{-20 TO 60.5}'",
      "SELECT rowid FROM t WHERE t MATCH 'p:>=99.9 OR NOT p:<0 OR p:*'",
      "SELECT inverted_index_count('t', 'a:x2 AND NOT p:<=30')",
      "SELECT term, docs, lo, hi FROM f WHERE field = 'p' AND ranges = '[0, 25, 50.5]'",
      "SELECT term, docs FROM f WHERE field = 'p' AND ranges = '[10]' AND query = 'a:x3'",
      "INSERT INTO t(rowid, a, p) VALUES (1000, 'x1', 42.5)", "UPDATE t SET p = -7 WHERE rowid = 5",
      "DELETE FROM t WHERE rowid = 8", "DELETE FROM t WHERE t MATCH 'p:[0 TO 20]'",
      "INSERT INTO t(t) VALUES ('integrity-check')", "INSERT INTO t(t) VALUES ('optimize')",
      "INSERT INTO t(t) VALUES ('rebuild')", "INSERT INTO t(t) VALUES ('integrity-check')",
      "SELECT rowid FROM t WHERE t MATCH 'p:>50'", NULL}},
    {"inverted_index NESTED",
     "t\\_%",
     "CREATE VIRTUAL TABLE t USING inverted_index(c, s NESTED(k, l), m NESTED(x) NUMBERED);"
     "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)"
     " INSERT INTO t(rowid, c, s, m) SELECT i, 'c' || (i % 5),"
     " json_array(json_object('k', 'k' || (i % 7), 'l', 'l' || (i % 3)), json_object('k', json_array('k' || "
     "(i % 4), i),"
     " 'l', 'l' || (i % 2))), json_array(json_object('x', 'x' || (i % 6)), json_object()) FROM n;"
     "DELETE FROM t WHERE rowid % 9 = 0;"
     "CREATE VIRTUAL TABLE f USING inverted_index_facets(t);"
     "CREATE VIRTUAL TABLE v USING inverted_index_vocab(t);",
     {"SELECT rowid, c, s, m FROM t", "SELECT rowid FROM t WHERE t MATCH 's:{k:k1 AND l:l1}'",
      "SELECT rowid FROM t WHERE t MATCH 's:{k:k2 AND NOT l:l0} OR m:{x:x3}'",
      "SELECT rowid FROM t WHERE t MATCH 'NOT s:{k:k3} AND c:c1'",
      "SELECT inverted_index_count('t', 'm:{NOT x:x1}')",
      "SELECT field, term, docs FROM f WHERE query = 's:{k:k1}'",
      "SELECT field, term, docs FROM f WHERE field = 's.l' AND query = 'c:c2'",
      "SELECT field, term, docs FROM v",
      "INSERT INTO t(rowid, c, s, m) VALUES (1000, 'c1', '[{\"k\":\"k1\"}]', '[{\"x\":\"x1\"}]')",
      "UPDATE t SET s = '[{\"k\":\"k9\",\"l\":\"l9\"}]' WHERE rowid = 5", "DELETE FROM t WHERE rowid = 8",
      "DELETE FROM t WHERE t MATCH 's:{k:k4}'", "INSERT INTO t(t) VALUES ('integrity-check')",
      "INSERT INTO t(t) VALUES ('optimize')", "INSERT INTO t(t) VALUES ('rebuild')",
      "INSERT INTO t(t) VALUES ('integrity-check')", "SELECT rowid FROM t WHERE t MATCH 's:{k:k1}'", NULL}},
    {"inverted_index direct=off",
     "t\\_%",
     "CREATE TABLE src(id INTEGER PRIMARY KEY, a, s, m);"
     "CREATE VIRTUAL TABLE t USING inverted_index(a, s NESTED(k, l), m NESTED(x) NUMBERED, content=src, "
     "direct=off);"
     "CREATE TRIGGER src_ai AFTER INSERT ON src BEGIN INSERT INTO t(rowid, a, s, m) VALUES (new.id, new.a, "
     "new.s, new.m); END;"
     "CREATE TRIGGER src_ad AFTER DELETE ON src BEGIN INSERT INTO t(t, rowid, a, s, m) VALUES ('delete', "
     "old.id, old.a, old.s, old.m); END;"
     "CREATE TRIGGER src_au AFTER UPDATE ON src BEGIN INSERT INTO t(t, rowid, a, s, m) VALUES ('delete', "
     "old.id, old.a, old.s, old.m); INSERT INTO t(rowid, a, s, m) VALUES (new.id, new.a, new.s, new.m); END;"
     "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)"
     " INSERT INTO src SELECT i, json_array('x' || (i % 7), 'y' || (i % 3)),"
     " json_array(json_object('k', 'k' || (i % 7), 'l', 'l' || (i % 3)), json_object('k', 'k' || (i % 4))),"
     " json_array(json_object('x', 'x' || (i % 6)), json_object()) FROM n;"
     "DELETE FROM src WHERE id % 9 = 0;"
     "CREATE VIRTUAL TABLE f USING inverted_index_facets(t);"
     "CREATE VIRTUAL TABLE v USING inverted_index_vocab(t);",
     {"SELECT rowid FROM t WHERE t MATCH 'a:x1'", "SELECT rowid FROM t WHERE t MATCH 's:{k:k1 AND l:l1}'",
      "SELECT rowid FROM t WHERE t MATCH 'NOT s:{k:k3} AND a:y1'",
      "SELECT rowid FROM t WHERE t MATCH 'm:{x:x3} OR NOT a:x2'", "SELECT inverted_index_count('t', 'a:y2')",
      "SELECT field, term, docs FROM f WHERE query = 'a:x1'", "SELECT field, term, docs FROM v",
      "INSERT INTO src VALUES (1000, 'x1', '[{\"k\":\"k1\"}]', '[{\"x\":\"x1\"}]')",
      "UPDATE src SET s = '[{\"k\":\"k9\",\"l\":\"l9\"}]' WHERE id = 5", "DELETE FROM src WHERE id = 8",
      "INSERT INTO t(t) VALUES ('integrity-check')", "INSERT INTO t(t) VALUES ('optimize')",
      "INSERT INTO t(t) VALUES ('rebuild')", "INSERT INTO t(t) VALUES ('integrity-check')",
      "SELECT rowid FROM t WHERE t MATCH 's:{k:k1}'", NULL}},
    {"inverted_index mode=sync",
     "t\\_%",
     "CREATE TABLE src(id INTEGER PRIMARY KEY, a, s, u UNIQUE);"
     "CREATE VIRTUAL TABLE t USING inverted_index(a, s NESTED(k, l), content=src, mode='sync');"
     "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)"
     " INSERT INTO src SELECT i, json_array('x' || (i % 7), 'y' || (i % 3)),"
     " json_array(json_object('k', 'k' || (i % 7), 'l', 'l' || (i % 3)), json_object('k', 'k' || (i % 4))), i"
     " FROM n;"
     "DELETE FROM src WHERE id % 9 = 0;"
     "CREATE VIRTUAL TABLE f USING inverted_index_facets(t);"
     "CREATE VIRTUAL TABLE v USING inverted_index_vocab(t);",
     {"SELECT rowid FROM t WHERE t MATCH 'a:x1'", "SELECT rowid FROM t WHERE t MATCH 's:{k:k1 AND l:l1}'",
      "SELECT inverted_index_count('t', 'a:y2')", "SELECT field, term, docs FROM f WHERE query = 'a:x1'",
      "SELECT field, term, docs FROM v", "INSERT INTO src VALUES (1000, 'x1', '[{\"k\":\"k1\"}]', 1000)",
      "UPDATE src SET s = '[{\"k\":\"k9\",\"l\":\"l9\"}]', id = 2000 WHERE id = 5",
      "INSERT OR REPLACE INTO src VALUES (3000, 'x2', NULL, 10)", "DELETE FROM src WHERE id = 8",
      "INSERT INTO t(t) VALUES ('integrity-check')", "INSERT INTO t(t) VALUES ('optimize')",
      "INSERT INTO t(t) VALUES ('rebuild')", "INSERT INTO t(t) VALUES ('integrity-check')",
      "SELECT rowid FROM t WHERE t MATCH 's:{k:k1}'", NULL}},
    {"inverted_index direct=off, values stored",
     "t\\_%",
     "CREATE VIRTUAL TABLE t USING inverted_index(a, s NESTED(k, l), m NESTED(x) NUMBERED, direct=off);"
     "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)"
     " INSERT INTO t(rowid, a, s, m) SELECT i, json_array('x' || (i % 7), 'y' || (i % 3)),"
     " json_array(json_object('k', 'k' || (i % 7), 'l', 'l' || (i % 3)), json_object('k', 'k' || (i % 4))),"
     " json_array(json_object('x', 'x' || (i % 6)), json_object()) FROM n;"
     "DELETE FROM t WHERE rowid % 9 = 0;"
     "CREATE VIRTUAL TABLE f USING inverted_index_facets(t);"
     "CREATE VIRTUAL TABLE v USING inverted_index_vocab(t);",
     {"SELECT rowid, a, s, m FROM t",
      "SELECT rowid FROM t WHERE t MATCH 'a:x1'",
      "SELECT rowid FROM t WHERE t MATCH 's:{k:k1 AND l:l1}'",
      "SELECT rowid FROM t WHERE t MATCH 'm:{x:x3} OR NOT a:x2'",
      "SELECT inverted_index_count('t', 'a:y2')",
      "SELECT field, term, docs FROM f WHERE query = 'a:x1'",
      "SELECT field, term, docs FROM v",
      "INSERT INTO t(rowid, a, s, m) VALUES (1000, 'x1', '[{\"k\":\"k1\"}]', '[{\"x\":\"x1\"}]')",
      "UPDATE t SET s = '[{\"k\":\"k9\",\"l\":\"l9\"}]' WHERE rowid = 5",
      "UPDATE t SET rowid = 2000 WHERE rowid = 6",
      "DELETE FROM t WHERE rowid = 8",
      "INSERT OR REPLACE INTO t(rowid, a) VALUES (10, 'x2')",
      "INSERT INTO t(t, rowid) VALUES ('delete', 11)",
      "DELETE FROM t WHERE t MATCH 's:{k:k4}'",
      "INSERT INTO t(t) VALUES ('integrity-check')",
      "INSERT INTO t(t) VALUES ('optimize')",
      "INSERT INTO t(t) VALUES ('rebuild')",
      "INSERT INTO t(t) VALUES ('integrity-check')",
      "SELECT rowid FROM t WHERE t MATCH 's:{k:k1}'",
      NULL}},
    {"index_table",
     "t\\_%",
     "CREATE TABLE base(id INTEGER PRIMARY KEY, city TEXT COLLATE NOCASE, name TEXT, tags);"
     "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)"
     " INSERT INTO base SELECT i, 'c' || (i % 9), 'n' || i, json_array('t' || (i % 4), i % 3) FROM n;"
     "CREATE VIRTUAL TABLE t USING index_table(base, key = 'each(tags) AS tag, city', include = 'name', mode "
     "= "
     "'deferred');"
     "UPDATE base SET tags = '[\"u\"]' WHERE id % 7 = 0;",
     {"SELECT tag, city, rowid, name FROM t", "SELECT rowid, name FROM t WHERE tag = 't1' AND city = 'C3'",
      "SELECT rowid FROM t WHERE tag = 't2' OR rowid = 5",
      "SELECT tag FROM t WHERE rowid BETWEEN 10 AND 20 ORDER BY tag, city, rowid",
      "SELECT t FROM t WHERE tag > 't0' LIMIT 3", "SELECT * FROM index_table_drift('t')",
      "INSERT INTO base VALUES (1000, 'c1', 'new', '[\"t1\"]')", "UPDATE base SET city = 'c2' WHERE id = 3",
      "DELETE FROM base WHERE id = 4", "INSERT INTO t(t) VALUES ('check')",
      "INSERT INTO t(t) VALUES ('refresh')", "INSERT INTO t(t) VALUES ('integrity-check')",
      "INSERT INTO t(t) VALUES ('rebuild')", "INSERT INTO t(t) VALUES ('integrity-check')",
      "ALTER TABLE t RENAME TO t2", "SELECT count(*) FROM t2", NULL}},
    {"graph_index",
     "g\\_%",
     "CREATE TABLE edges(id INTEGER PRIMARY KEY, src, dst, w);"
     "CREATE INDEX edges_src ON edges(src); CREATE INDEX edges_dst ON edges(dst);"
     "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)"
     " INSERT INTO edges(src, dst, w) SELECT i % 37, CASE WHEN i % 5 THEN (i * 7) % 41 ELSE 'n' || (i % 3) "
     "END, i % 4 "
     "FROM n;"
     "CREATE VIRTUAL TABLE g USING graph_index(edges, src, dst, weight = w);",
     {"SELECT * FROM g",
      "SELECT count(*) FROM graph_pagerank('g', NULL, NULL)",
      "SELECT count(*) FROM graph_components('edges', 'src', 'dst')",
      "SELECT count(*) FROM graph_sssp('g', NULL, NULL, 1, 'w')",
      "SELECT count(*) FROM graph_scc('g', NULL, NULL)",
      "SELECT count(*) FROM graph_triangles('edges', 'src', 'dst')",
      "SELECT count(*) FROM graph_label_propagation('g', NULL, NULL)",
      "SELECT count(*) FROM graph_walk('g', NULL, NULL, 1)",
      "SELECT count(*) FROM graph_path('g', NULL, NULL, 1, 7)",
      "INSERT INTO edges(src, dst, w) VALUES (1, 2, 3)",
      "INSERT INTO edges(id, src, dst, w) VALUES (5, 9, 9, 1)",
      "UPDATE edges SET dst = 'x' WHERE id = 10",
      "DELETE FROM edges WHERE src = 3",
      "INSERT OR REPLACE INTO edges(id, src, dst, w) VALUES (20, 'a', 'b', 1)",
      "INSERT INTO g(g) VALUES ('integrity-check')",
      "INSERT INTO g(g) VALUES ('refresh')",
      "INSERT INTO g(g) VALUES ('rebuild')",
      "INSERT INTO g(g) VALUES ('integrity-check')",
      "SELECT count(*) FROM graph_pagerank('edges', 'src', 'dst')",
      "DROP TABLE g",
      NULL}},
};

static unsigned long long rngState;

static unsigned rngNext(void) {
  rngState = rngState * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)(rngState >> 33);
}

static const char *zCurrent = "";
static int bVerbose; /* DAMAGE_VERBOSE set: print each edit and result */

static void onAlarm(int sig) {
  (void)sig;
  /* Only async-signal-safe calls here. */
  static const char zMsg[] = "FAIL damage: a statement ran past the alarm (endless loop?): ";
  if (write(2, zMsg, sizeof(zMsg) - 1) < 0) _exit(3);
  if (write(2, zCurrent, strlen(zCurrent)) < 0) _exit(3);
  if (write(2, "\n", 1) < 0) _exit(3);
  _exit(3);
}

/* Progress budget: a statement that runs this many VM steps is a loop. */
static int nProgress;
static int onProgress(void *p) {
  (void)p;
  return ++nProgress > 20000;
}

static int execOk(sqlite3 *db, const char *zSql) {
  char *zErr = 0;
  int rc = sqlite3_exec(db, zSql, 0, 0, &zErr);
  if (rc != SQLITE_OK) fprintf(stderr, "damage: set-up failed: %s\n  %s\n", zErr, zSql);
  sqlite3_free(zErr);
  return rc;
}

/* Runs zSql to the end; returns 1 when the progress budget stopped it. */
static int runProbe(sqlite3 *db, const char *zSql) {
  sqlite3_stmt *pStmt = 0;
  int rc;
  zCurrent = zSql;
  nProgress = 0;
  if (sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0) != SQLITE_OK) return 0;
  while ((rc = sqlite3_step(pStmt)) == SQLITE_ROW) {
    int i;
    /* Touch every value, as a host would. */
    for (i = 0; i < sqlite3_column_count(pStmt); i++) {
      (void)sqlite3_column_bytes(pStmt, i);
      (void)sqlite3_column_text(pStmt, i);
    }
  }
  sqlite3_finalize(pStmt);
  if (bVerbose)
    printf("  %s -> %s%s%s\n", zSql, sqlite3_errstr(rc), rc == SQLITE_DONE ? "" : ": ",
           rc == SQLITE_DONE ? "" : sqlite3_errmsg(db));
  return rc == SQLITE_INTERRUPT || (rc != SQLITE_DONE && nProgress > 20000);
}

/* Applies one random edit to a random row of one of the shadow tables. */
static void damageOnce(sqlite3 *db, char **azTab, int nTab) {
  const char *zTab = azTab[rngNext() % nTab];
  sqlite3_stmt *pStmt = 0;
  char *zSql;
  int nCol = 0, iCol, kind;
  sqlite3_int64 nRow = 0, iRow;
  zSql = sqlite3_mprintf("SELECT count(*) FROM \"%w\"", zTab);
  if (sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0) == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    nRow = sqlite3_column_int64(pStmt, 0);
  }
  sqlite3_finalize(pStmt);
  sqlite3_free(zSql);
  if (nRow == 0) return;
  zSql = sqlite3_mprintf("SELECT * FROM \"%w\" LIMIT 1", zTab);
  if (sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0) == SQLITE_OK) nCol = sqlite3_column_count(pStmt);
  sqlite3_finalize(pStmt);
  sqlite3_free(zSql);
  if (nCol == 0) return;
  iRow = (sqlite3_int64)(rngNext() % (unsigned)nRow);
  iCol = (int)(rngNext() % (unsigned)nCol);
  kind = (int)(rngNext() % 11);
  /* Rows are picked by position, so tables without a rowid work too. */
  {
    const char *zWhere = "rowid = (SELECT rowid FROM \"%w\" LIMIT 1 OFFSET %lld)";
    char *zW = sqlite3_mprintf(zWhere, zTab, iRow);
    char *zColName = 0;
    sqlite3_stmt *pCol = 0;
    char *zQ = sqlite3_mprintf("SELECT name FROM pragma_table_info(%Q) WHERE cid = %d", zTab, iCol);
    if (sqlite3_prepare_v2(db, zQ, -1, &pCol, 0) == SQLITE_OK && sqlite3_step(pCol) == SQLITE_ROW) {
      zColName = sqlite3_mprintf("%s", sqlite3_column_text(pCol, 0));
    }
    sqlite3_finalize(pCol);
    sqlite3_free(zQ);
    if (zColName) {
      char *zSet = 0;
      switch (kind) {
        case 0:
          zSet = sqlite3_mprintf("NULL");
          break;
        case 1:
          zSet = sqlite3_mprintf("%lld", (long long)INT64_MAX);
          break;
        case 2:
          zSet = sqlite3_mprintf("%lld", (long long)INT64_MIN);
          break;
        case 3:
          zSet = sqlite3_mprintf("%d", (int)(rngNext() % 200) - 100);
          break;
        case 4:
          zSet = sqlite3_mprintf("'damaged'");
          break;
        case 5: {
          /* A blob of seeded random bytes (randomblob() would not replay). */
          char zHex[81];
          int n = (int)(rngNext() % 40), k;
          for (k = 0; k < n; k++) snprintf(zHex + 2 * k, 3, "%02x", rngNext() & 0xff);
          zHex[2 * n] = 0;
          zSet = sqlite3_mprintf("x'%s'", zHex);
          break;
        }
        case 6:
          zSet = sqlite3_mprintf("substr(\"%w\", 1, length(\"%w\") - 1 - %d)", zColName, zColName,
                                 (int)(rngNext() % 4));
          break;
        case 7: {
          /* Flip one byte of a blob (or text read as a blob). */
          int iByte = (int)(rngNext() % 64);
          zSet = sqlite3_mprintf(
              "CASE WHEN length(CAST(\"%w\" AS BLOB)) > %d THEN "
              "substr(CAST(\"%w\" AS BLOB), 1, %d) || x'%02x' || "
              "substr(CAST(\"%w\" AS BLOB), %d) ELSE \"%w\" END",
              zColName, iByte, zColName, iByte, rngNext() & 0xff, zColName, iByte + 2, zColName);
          break;
        }
        case 8:
          zSet = sqlite3_mprintf("(SELECT \"%w\" FROM \"%w\" LIMIT 1 OFFSET %d)", zColName, zTab,
                                 (int)(rngNext() % (unsigned)nRow));
          break;
        default:
          break;
      }
      if (zSet) {
        zSql = sqlite3_mprintf("UPDATE OR IGNORE \"%w\" SET \"%w\" = %s WHERE %s", zTab, zColName, zSet, zW);
      } else if (kind == 9) {
        zSql = sqlite3_mprintf("DELETE FROM \"%w\" WHERE %s", zTab, zW);
      } else {
        zSql = sqlite3_mprintf("INSERT OR IGNORE INTO \"%w\" SELECT * FROM \"%w\" WHERE %s", zTab, zTab, zW);
      }
      sqlite3_exec(db, zSql, 0, 0, 0);
      if (bVerbose) printf("  damage: %s -> %d row(s)\n", zSql, sqlite3_changes(db));
      sqlite3_free(zSql);
      sqlite3_free(zSet);
      sqlite3_free(zColName);
    }
    sqlite3_free(zW);
  }
}

/* One round: set up, damage, probe. Returns 0 when it passed. */
static int runRound(const char *zExt, const Scenario *p, unsigned long long seed) {
  sqlite3 *db = 0;
  char *zErr = 0;
  char **azTab = 0;
  int nTab = 0, nEdit, i, bad = 0;
  sqlite3_stmt *pStmt = 0;
  rngState = seed * 0x9E3779B97F4A7C15ULL + 1;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK) return 1;
  sqlite3_enable_load_extension(db, 1);
  if (sqlite3_load_extension(db, zExt, 0, &zErr) != SQLITE_OK) {
    fprintf(stderr, "damage: cannot load %s: %s\n", zExt, zErr);
    sqlite3_free(zErr);
    sqlite3_close(db);
    return 1;
  }
  if (execOk(db, p->zSetup) != SQLITE_OK) {
    sqlite3_close(db);
    return 1;
  }
  if (sqlite3_prepare_v2(db,
                         "SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE ?1 ESCAPE '\\'"
                         " AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name",
                         -1, &pStmt, 0) == SQLITE_OK) {
    sqlite3_bind_text(pStmt, 1, p->zPrefix, -1, SQLITE_STATIC);
    while (sqlite3_step(pStmt) == SQLITE_ROW) {
      char **azNew = realloc(azTab, sizeof(char *) * (nTab + 1));
      if (azNew == NULL) break;
      azTab = azNew;
      azTab[nTab++] = strdup((const char *)sqlite3_column_text(pStmt, 0));
    }
  }
  sqlite3_finalize(pStmt);
  if (nTab == 0) {
    fprintf(stderr, "FAIL %s: no shadow tables named %s\n", p->zName, p->zPrefix);
    sqlite3_close(db);
    return 1;
  }
  nEdit = 1 + (int)(rngNext() % 3);
  for (i = 0; i < nEdit; i++) damageOnce(db, azTab, nTab);
  sqlite3_progress_handler(db, 1000, onProgress, 0);
  for (i = 0; p->azProbe[i]; i++) {
    alarm(20);
    if (runProbe(db, p->azProbe[i])) {
      fprintf(stderr, "FAIL %s seed %llu: no end within the step budget: %s\n", p->zName, seed,
              p->azProbe[i]);
      bad = 1;
    }
    alarm(0);
  }
  sqlite3_progress_handler(db, 0, 0, 0);
  for (i = 0; i < nTab; i++) free(azTab[i]);
  free(azTab);
  if (sqlite3_close(db) != SQLITE_OK) {
    fprintf(stderr, "FAIL %s seed %llu: statements left unfinalized\n", p->zName, seed);
    bad = 1;
  }
  return bad;
}

int main(int argc, char **argv) {
  const char *zExt = "dist/nosql";
  int nRound = 150, nPass = 0, nFail = 0, i;
  unsigned long long seed0 = 1;
  size_t s;
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--ext") == 0 && i + 1 < argc) {
      zExt = argv[++i];
    } else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
      nRound = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
      seed0 = strtoull(argv[++i], 0, 10);
    } else {
      fprintf(stderr, "usage: %s [--ext PATH] [--rounds N] [--seed S]\n", argv[0]);
      return 2;
    }
  }
  signal(SIGALRM, onAlarm);
  /* Keep the extension mapped after each close, so a leak report can name
  ** its functions. */
  if (!dlopen(zExt, RTLD_NOW | RTLD_NODELETE)) {
    char *zSo = sqlite3_mprintf("%s.so", zExt);
    (void)dlopen(zSo, RTLD_NOW | RTLD_NODELETE);
    sqlite3_free(zSo);
  }
  setvbuf(stdout, 0, _IOLBF, 0);
  bVerbose = getenv("DAMAGE_VERBOSE") != NULL;
  for (s = 0; s < sizeof(aScenario) / sizeof(aScenario[0]); s++) {
    int nBad = 0;
    for (i = 0; i < nRound; i++) {
      if (runRound(zExt, &aScenario[s], seed0 + (unsigned long long)i)) nBad++;
    }
    printf("%s: %d rounds of damage, %d failed\n", aScenario[s].zName, nRound, nBad);
    nFail += nBad;
    nPass += nRound - nBad;
  }
  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail ? 1 : 0;
}
