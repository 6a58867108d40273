/*
** test_reload.c: the extension loaded a second time into a connection that
** has every module's tables connected and used. The second load replaces
** the registrations, whose destructors release the state they shared;
** SQLite disconnects the old virtual tables only at the next prepare. A
** table that kept a pointer to that state without a reference of its own
** read freed memory then (kv_counters, doc_schema, index_table and
** index_table_drift did). Under ASan this is the check that counts; the
** plain build checks the answers before, between and after.
*/
#include <sqlite3.h>
#include <string.h>

#include "nosql.h"
#include "unit.h"

void unitApiInit(void);
extern const sqlite3_api_routines *nosql_sqlite3_api;

/* Every module once; each query's first column of all rows, joined by ','. */
static const char zSchema[] =
    "CREATE TABLE people(id INTEGER PRIMARY KEY, city TEXT, name TEXT, tags TEXT);"
    "INSERT INTO people VALUES (1, 'Paris', 'ann', '[\"a\",\"b\"]'), (2, 'Rome', 'bob', '[\"b\"]');"
    "CREATE VIRTUAL TABLE people_city USING index_table(people, key = 'city', include = 'name');"
    "CREATE VIRTUAL TABLE ii USING inverted_index(city, tags);"
    "INSERT INTO ii(rowid, city, tags) SELECT id, city, tags FROM people;"
    "CREATE VIRTUAL TABLE ns USING nested_set(name);"
    "INSERT INTO ns(id, parent, name) VALUES (1, NULL, 'root'), (2, 1, 'kid');"
    "CREATE TABLE ck(k BLOB PRIMARY KEY, v);"
    "INSERT INTO ck VALUES (ckey('CA', 1), 'x'), (ckey('NY', 2), 'y');"
    "CREATE VIRTUAL TABLE cs USING composite_scan(ck, k, state, n);"
    "CREATE TABLE kv(key TEXT PRIMARY KEY, value);"
    "INSERT INTO kv VALUES ('a', 1);"
    "CREATE TABLE d(key TEXT PRIMARY KEY, doc TEXT, version INTEGER);"
    "INSERT INTO d VALUES ('k', '{\"n\":1}', 1);"
    "CREATE TABLE e(src INTEGER, dst INTEGER);"
    "INSERT INTO e VALUES (1, 2), (2, 3), (3, 1);"
    "CREATE VIRTUAL TABLE gap USING fts5(v, tokenize = 'nosql_gap 10');"
    "INSERT INTO gap VALUES ('[\"a b\",\"c d\"]');"
    "CREATE VIRTUAL TABLE ii_vocab USING inverted_index_vocab(ii);"
    "CREATE VIRTUAL TABLE ii_facets USING inverted_index_facets(ii);";

static const char *const azQuery[] = {
    "SELECT name FROM people_city WHERE city = 'Paris'",
    "SELECT count(*) FROM index_table_drift('people_city')",
    "SELECT rowid FROM ii WHERE ii MATCH 'tags:b'",
    "SELECT inverted_index_count('ii', 'tags:b')",
    "SELECT term FROM ii_vocab WHERE field = 'city'",
    "SELECT term FROM ii_facets WHERE query = 'tags:b' AND field = 'city'",
    "SELECT id FROM ns WHERE descendant_of = 1",
    "SELECT v FROM cs WHERE state = 'NY'",
    "SELECT kv_incr('c')",
    "SELECT value FROM kv_counters",
    "SELECT value FROM kv_mget('kv', '[\"a\"]')",
    "SELECT doc_update('d', 'k', '{\"$inc\":{\"n\":1}}') > 0",
    "SELECT path FROM doc_schema('d', 'doc')",
    "SELECT node FROM graph_walk('e', 'src', 'dst', 1)",
    "SELECT node FROM graph_path('e', 'src', 'dst', 1, 3)",
    "SELECT count(*) FROM graph_pagerank('e', 'src', 'dst')",
    "SELECT count(*) FROM graph_components('e', 'src', 'dst')",
    "SELECT count(*) FROM graph_scc('e', 'src', 'dst')",
    "SELECT count(*) FROM graph_sssp('e', 'src', 'dst', 1)",
    "SELECT count(*) FROM graph_triangles('e', 'src', 'dst')",
    "SELECT count(*) FROM graph_label_propagation('e', 'src', 'dst')",
    "SELECT id FROM tree_rows('{\"id\":1,\"children\":[{\"id\":2}]}')",
    "SELECT lo FROM mpath_ranges('a.b')",
    "SELECT count(*) FROM geohash_cover(10, 20, 1000)",
    "SELECT count(*) FROM geohash_cover_box(0, 0, 1, 1)",
    "SELECT lat FROM geohash_decode('s')",
    "SELECT count(*) FROM geohash_neighbors('ezs42')",
    "SELECT count(*) FROM geo_bbox(0, 0, 1000)",
    "SELECT value FROM rb_iterate(rb_build('[1,2]'))",
    "SELECT rowid FROM gap WHERE gap MATCH 'NEAR(a b, 1)'",
    "SELECT count(*) FROM gap WHERE gap MATCH 'a b'",
};
#define N_QUERY ((int)(sizeof(azQuery) / sizeof(azQuery[0])))

/* The rows of zSql, first columns joined by ',' into zOut; "error: ..." when it fails. */
static void rlRows(sqlite3 *db, const char *zSql, char *zOut, size_t nOut) {
  sqlite3_stmt *pStmt = NULL;
  size_t n = 0;
  int rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, NULL);
  zOut[0] = 0;
  while (rc == SQLITE_OK && (rc = sqlite3_step(pStmt)) == SQLITE_ROW) {
    const char *z = (const char *)sqlite3_column_text(pStmt, 0);
    n += (size_t)snprintf(zOut + n, nOut - n, "%s%s", n ? "," : "", z ? z : "NULL");
    if (n >= nOut) n = nOut - 1;
    rc = SQLITE_OK;
  }
  if (rc != SQLITE_DONE) snprintf(zOut, nOut, "error: %s", sqlite3_errmsg(db));
  sqlite3_finalize(pStmt);
}

static void testReloadEveryModule(void) {
  sqlite3 *db = NULL;
  char *zErr = NULL;
  char aBefore[N_QUERY][256], zAfter[256];
  int i, k;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK || sqlite3_exec(db, zSchema, 0, 0, &zErr) != SQLITE_OK) {
    printf("FAIL schema: %s\n", zErr ? zErr : "?");
    unitFail++;
    sqlite3_free(zErr);
    sqlite3_close(db);
    return;
  }
  for (i = 0; i < N_QUERY; i++) {
    rlRows(db, azQuery[i], aBefore[i], sizeof(aBefore[i]));
    CHECK(strncmp(aBefore[i], "error", 5) != 0 && aBefore[i][0] != 0);
    if (strncmp(aBefore[i], "error", 5) == 0 || aBefore[i][0] == 0)
      printf("  %s: %s\n", azQuery[i], aBefore[i]);
  }
  /* Twice: the second load replaces the first's registrations, the third the second's. */
  for (k = 0; k < 2; k++) {
    CHECK_INT(sqlite3_nosql_init(db, &zErr, nosql_sqlite3_api), SQLITE_OK);
    sqlite3_free(zErr);
    zErr = NULL;
    for (i = 0; i < N_QUERY; i++) {
      rlRows(db, azQuery[i], zAfter, sizeof(zAfter));
      /* kv_incr counts on, doc_update's version grows: the rest answer as before. */
      if (strstr(azQuery[i], "kv_incr") || strstr(azQuery[i], "kv_counters")) continue;
      CHECK_STR(zAfter, aBefore[i]);
    }
  }
  /* Writes through the old and new registrations, then a close with every table still connected. */
  CHECK_INT(sqlite3_exec(db,
                         "INSERT INTO people VALUES (3, 'Oslo', 'cy', '[]');"
                         "INSERT INTO ii(rowid, city) VALUES (3, 'Oslo');",
                         0, 0, NULL),
            SQLITE_OK);
  rlRows(db, "SELECT name FROM people_city WHERE city = 'Oslo'", zAfter, sizeof(zAfter));
  CHECK_STR(zAfter, "cy");
  rlRows(db, "SELECT inverted_index_count('ii', 'city:Oslo')", zAfter, sizeof(zAfter));
  CHECK_STR(zAfter, "1");
  CHECK_INT(sqlite3_close(db), SQLITE_OK);
}

int main(void) {
  unitApiInit();
  sqlite3_auto_extension((void (*)(void))sqlite3_nosql_init);
  RUN(testReloadEveryModule);
  sqlite3_reset_auto_extension();
  return unitReport();
}
