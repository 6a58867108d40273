/*
** fuzz_ckey.c: the tuple-layer decoder of ext/ckey.c, through every function
** that reads a key, and composite_scan reading a stored key. Input: the key.
*/
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData) {
  static sqlite3 *db = NULL;
  if (db == NULL) {
    if ((db = fuzzOpen()) == NULL) return 0;
    fuzzExec(db,
             "CREATE TABLE k(k BLOB PRIMARY KEY, v) WITHOUT ROWID;"
             "INSERT INTO k VALUES (ckey('a', 1), 1), (ckey('b', 2.5), 2);"
             "CREATE VIRTUAL TABLE ks USING composite_scan(k, k, s TEXT, n INTEGER);"
             "CREATE VIRTUAL TABLE ka USING composite_scan(k, k, s, n, x);");
  }
  fuzzRun1(db,
           "SELECT ckey_decode(?1), ckey_length(?1), ckey_part(?1, 0), ckey_part(?1, 1), ckey_part(?1, -1),"
           " ckey_prefix(?1, 1), ckey_prefix(?1, 2), ckey_prefix_end(?1), ckey_range_end(?1)",
           0, aData, (int)nData);
  fuzzRun1(db, "SELECT ckey_decode(?1), ckey_length(?1), ckey_range_end(?1)", 1, aData, (int)nData);
  fuzzRun1(db, "INSERT OR REPLACE INTO k VALUES (?1, 3)", 0, aData, (int)nData);
  fuzzExec(db, "SELECT * FROM ks; SELECT * FROM ka; SELECT s, n FROM ks WHERE s >= 'a' AND n = 1;");
  fuzzRun1(db, "SELECT * FROM ks WHERE s = ?1", 1, aData, (int)nData);
  fuzzRun1(db, "DELETE FROM k WHERE k = ?1", 0, aData, (int)nData);
  return 0;
}
