/*
** fuzz_nested_set.c: stored rows of nested_set (<name>_node): labels,
** parents, depths and leaf flags as a damaged or hostile database holds
** them, read by every scan, 'integrity-check', writes and 'rebuild'.
**
** Input: a list of 10-byte edits: node (byte 0 % 8 + 1), column (byte 1:
** parent, lft, rgt, depth, is_leaf, or the id), value type (byte 1 >> 4:
** integer, real, text, NULL, blob) and 8 bytes of value.
*/
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData) {
  static const char *const azCol[] = {"parent", "lft", "rgt", "depth", "is_leaf", "id"};
  static const char *const azRead[] = {
      "SELECT id, depth FROM t WHERE descendant_of = 1",
      "SELECT id FROM t WHERE descendant_of = 2 AND depth <= 3",
      "SELECT id FROM t WHERE ancestor_of = 6",
      "SELECT id FROM t WHERE ancestor_of = 8",
      "SELECT id FROM t WHERE leaves_of = 1",
      "SELECT id FROM t WHERE leaves_of = 4",
      "SELECT * FROM t",
      "SELECT * FROM t WHERE id = 3",
      "SELECT count(*) FROM t WHERE parent = 1",
      "INSERT INTO t(t) VALUES ('integrity-check')",
      "INSERT INTO t(id, parent, name) VALUES (20, 3, 'n')",
      "INSERT INTO t(id, parent, name) VALUES (21, 6, 'm')",
      "UPDATE t SET parent = 2 WHERE id = 4",
      "DELETE FROM t WHERE id = 5",
      "SELECT id FROM t WHERE descendant_of = 1",
      "INSERT INTO t(t) VALUES ('rebuild')",
      "INSERT INTO t(t) VALUES ('integrity-check')",
      "SELECT id FROM t WHERE descendant_of = 1",
  };
  sqlite3 *db;
  size_t i;
  if ((db = fuzzOpen()) == NULL) return 0;
  fuzzExec(db,
           "CREATE VIRTUAL TABLE t USING nested_set(name TEXT);"
           "INSERT INTO t(id, parent, name) VALUES (1, NULL, 'a'), (2, 1, 'b'), (3, 2, 'c'), (4, 1, 'd'),"
           " (5, 4, 'e'), (6, 5, 'f'), (7, 1, 'g'), (8, 3, 'h');");
  for (i = 0; i + 10 <= nData && i < 200; i += 10) {
    sqlite3_stmt *pStmt = NULL;
    const uint8_t *a = aData + i;
    char *zSql =
        sqlite3_mprintf("UPDATE t_node SET %s = ?1 WHERE id = %d", azCol[(a[1] & 15) % 6], a[0] % 8 + 1);
    sqlite3_int64 v;
    double r;
    memcpy(&v, a + 2, 8);
    if (zSql) sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
    sqlite3_free(zSql);
    if (pStmt == NULL) continue;
    switch ((a[1] >> 4) % 6) {
      case 0:
        sqlite3_bind_int64(pStmt, 1, v);
        break;
      case 1:
        sqlite3_bind_int64(pStmt, 1, (sqlite3_int64)(int8_t)a[2]); /* Small values collide more */
        break;
      case 2:
        memcpy(&r, a + 2, 8);
        sqlite3_bind_double(pStmt, 1, r);
        break;
      case 3:
        sqlite3_bind_text(pStmt, 1, (const char *)a + 2, 8, SQLITE_TRANSIENT);
        break;
      case 4:
        sqlite3_bind_null(pStmt, 1);
        break;
      default:
        sqlite3_bind_blob(pStmt, 1, a + 2, 8, SQLITE_TRANSIENT);
        break;
    }
    sqlite3_step(pStmt);
    sqlite3_finalize(pStmt);
  }
  for (i = 0; i < sizeof(azRead) / sizeof(azRead[0]); i++) fuzzRun(db, azRead[i], 0, 0, NULL, NULL);
  sqlite3_close(db);
  return 0;
}
