/*
** fuzz_vtab_args.c: argument lists of every module's CREATE VIRTUAL TABLE
** (nested_set, inverted_index, its facets and vocab companions,
** composite_scan, index_table over table c): parsing, then a few
** statements on whatever was created.
** Input: byte 0 picks the module, the rest (up to a NUL) is the text
** between the parentheses.
*/
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData) {
  static const char *const azMod[] = {"nested_set",           "inverted_index",
                                      "composite_scan",       "inverted_index_facets",
                                      "inverted_index_vocab", "index_table"};
  static const char *const azUse[] = {
      "SELECT * FROM x",
      "INSERT INTO x VALUES (1, NULL, 'a', 'b', 'c', 'd')",
      "INSERT INTO x(rowid) VALUES (2)",
      "SELECT * FROM x WHERE rowid = 1",
      "SELECT * FROM x WHERE x MATCH 'a:b'",
      "SELECT * FROM x WHERE descendant_of = 1",
      "INSERT INTO x(x) VALUES ('integrity-check')",
      "INSERT INTO x(x) VALUES ('rebuild')",
      "DELETE FROM x",
      "INSERT INTO c VALUES (3, 2, 'n', '[1, 2]', 'v')",
      "UPDATE c SET a = '[\"q\"]', id = 7 WHERE id = 1",
      "SELECT * FROM index_table_drift('x')",
      "INSERT INTO x(x) VALUES ('refresh')",
      "ALTER TABLE x RENAME TO y",
      "DROP TABLE y",
      "DROP TABLE x",
  };
  sqlite3 *db;
  char *zSql;
  size_t i;
  if (nData == 0) return 0;
  if ((db = fuzzOpen()) == NULL) return 0;
  fuzzExec(db,
           "CREATE TABLE s(k TEXT PRIMARY KEY, v);"
           "INSERT INTO s VALUES ('CA:LA:1', 1), ('NY:NYC:2', 2);"
           "CREATE TABLE b(k BLOB PRIMARY KEY, v) WITHOUT ROWID;"
           "INSERT INTO b VALUES (ckey('a', 1), 1);"
           "CREATE TABLE c(id INTEGER PRIMARY KEY, parent, name, a, b);"
           "INSERT INTO c VALUES (1, NULL, 'r', 'x', 'y'), (2, 1, 'k', 'z', 'w');"
           "CREATE VIRTUAL TABLE ii USING inverted_index(a, b);");
  zSql = sqlite3_mprintf("CREATE VIRTUAL TABLE x USING %s(%.*s)", azMod[aData[0] % 6],
                         (int)strnlen((const char *)aData + 1, nData - 1), aData + 1);
  if (zSql) fuzzRun(db, zSql, 0, 0, NULL, NULL);
  sqlite3_free(zSql);
  for (i = 0; i < sizeof(azUse) / sizeof(azUse[0]); i++) fuzzRun(db, azUse[i], 0, 0, NULL, NULL);
  sqlite3_close(db);
  return 0;
}
