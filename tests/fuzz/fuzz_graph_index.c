/*
** fuzz_graph_index.c: the stored lists of graph_index (ext/graph_index.c,
** storage format 3): the groups of out-lists (<name>_blk.data: per node a
** count, a first rowid, rowid gaps, neighbour numbers, weights) and the
** tails (<name>_tail.list), read by every load (the jobs, reading the
** index, 'integrity-check') and by the writes that merge into them.
**
** Input: byte 0 chooses the victim (bits 0-1: 0 a group of the plain
** index, 1 a group of the weighted one, 2 a group of the JSON layout's, 3
** a tail of the plain index; bits 2-7: which row, or for a tail which node
** number, and the count it claims), the rest is the bytes stored there.
*/
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData) {
  sqlite3 *db;
  sqlite3_stmt *pStmt = NULL;
  int eVictim, iRow;
  static const char *const azRead[] = {
      "SELECT * FROM g",
      "SELECT * FROM gw",
      "SELECT * FROM gj",
      "SELECT node, component FROM graph_components('g', NULL, NULL)",
      "SELECT node, rank FROM graph_pagerank('e', 'src', 'dst')",
      "SELECT node, distance FROM graph_sssp('gw', NULL, NULL, 1, 'w')",
      "SELECT node, depth FROM graph_walk('e', 'src', 'dst', 1, 9, 'both')",
      "SELECT node, component FROM graph_components('gj', NULL, NULL, 'json')",
      "INSERT INTO g(g) VALUES ('integrity-check')",
      "INSERT INTO gw(gw) VALUES ('integrity-check')",
      "INSERT INTO gj(gj) VALUES ('integrity-check')",
      "INSERT INTO e(id, src, dst, w) VALUES (5, 9, 1, 2)",
      "DELETE FROM e WHERE src = 3",
      "INSERT INTO e(src, dst, w) VALUES (1, 'new', 1)",
      "UPDATE j SET nbrs = '[1, 2, 3]' WHERE node = 2",
      "INSERT INTO j(node, nbrs, w) VALUES ('z', '[1, \"z\"]', 1)",
      "SELECT * FROM g",
      "INSERT INTO g(g) VALUES ('rebuild')",
      "INSERT INTO g(g) VALUES ('integrity-check')",
  };
  size_t i;
  if (nData == 0) return 0;
  eVictim = aData[0] & 3;
  iRow = aData[0] >> 2;
  if ((db = fuzzOpen()) == NULL) return 0;
  fuzzExec(
      db,
      "CREATE TABLE e(id INTEGER PRIMARY KEY, src, dst, w);"
      "CREATE INDEX e_src ON e(src); CREATE INDEX e_dst ON e(dst);"
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60)"
      " INSERT INTO e(id, src, dst, w) SELECT i * 3 - 20, i % 7, CASE WHEN i % 5 THEN (i * 11) % 13"
      " ELSE 'n' || (i % 3) END, CASE WHEN i % 4 THEN i % 3 ELSE 0.5 END FROM n;"
      "CREATE VIRTUAL TABLE g USING graph_index(e, src, dst);"
      "CREATE VIRTUAL TABLE gw USING graph_index(e, src, dst, weight = w);"
      "CREATE TABLE j(id INTEGER PRIMARY KEY, node, nbrs, w);"
      "CREATE INDEX j_node ON j(node);"
      "INSERT INTO j(node, nbrs, w) VALUES (1, '[2, 3, 3]', 1), (2, '[]', 1), (3, '[1, null, \"x\"]', 2),"
      " (2, '[1]', 1), ('x', NULL, 1);"
      "CREATE VIRTUAL TABLE gj USING graph_index(j, node, nbrs, weight = w, layout = 'json');");
  if (eVictim == 3) {
    sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO g_tail(k, first, n, list) VALUES(?2, ?3, ?4, ?1)", -1,
                       &pStmt, 0);
  } else {
    static const char *const azGroup[] = {"g_blk", "gw_blk", "gj_blk"};
    char zSql[160];
    snprintf(zSql, sizeof(zSql),
             "UPDATE %s SET data = ?1 WHERE k = (SELECT k FROM %s ORDER BY k LIMIT 1 OFFSET ?2 %% "
             "(SELECT count(*) FROM %s))",
             azGroup[eVictim], azGroup[eVictim], azGroup[eVictim]);
    sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  }
  if (pStmt) {
    sqlite3_bind_blob(pStmt, 1, aData + 1, (int)(nData - 1), SQLITE_STATIC);
    sqlite3_bind_int(pStmt, 2, eVictim == 3 ? 1 + (iRow & 15) : iRow);
    sqlite3_bind_int(pStmt, 3, iRow * 7 - 100);
    sqlite3_bind_int(pStmt, 4, 1 + (iRow >> 4));
    sqlite3_step(pStmt);
    sqlite3_finalize(pStmt);
  }
  for (i = 0; i < sizeof(azRead) / sizeof(azRead[0]); i++) fuzzRun(db, azRead[i], 0, 0, NULL, NULL);
  sqlite3_close(db);
  return 0;
}
