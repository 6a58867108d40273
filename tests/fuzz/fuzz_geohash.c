/*
** fuzz_geohash.c: geohash text (ext/geohash.c): decoding, neighbours,
** and the numeric entry points fed with the input's bytes as doubles and
** integers (NaN, infinities, huge values). Input: the geohash text; its
** first 24 bytes are also read as three doubles.
*/
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData) {
  static sqlite3 *db = NULL;
  if (db == NULL && (db = fuzzOpen()) == NULL) return 0;
  fuzzRun1(db,
           "SELECT geohash_lat(?1), geohash_lon(?1), geohash_neighbor(?1, 'n'), geohash_neighbor(?1, 'sw'),"
           " geohash_neighbor('u4pruyd', ?1), geohash_neighbor(?1, ?1)",
           1, aData, (int)nData);
  fuzzRun1(db, "SELECT * FROM geohash_decode(?1)", 1, aData, (int)nData);
  fuzzRun1(db, "SELECT * FROM geohash_neighbors(?1)", 1, aData, (int)nData);
  fuzzRun1(db, "SELECT geohash_lat(?1), (SELECT count(*) FROM geohash_decode(?1))", 0, aData, (int)nData);
  if (nData >= 24) {
    /* One statement per function, so that one error does not hide the rest. */
    static const char *const azNum[] = {
        "SELECT geohash(?1, ?2), geohash(?1, ?2, (?4 & 15) + 1), geohash_bits(?1, ?2, (?4 & 63) + 1)",
        "SELECT geohash_from_bits(?4, ?6 & 127), geohash_from_bits(?4 & 1073741823, 30)",
        "SELECT geo_distance(?1, ?2, ?3, ?1)",
        "SELECT * FROM geo_bbox(?1, ?2, ?3)",
        "SELECT zorder(?4, ?5), zorder_x(?4), zorder_y(?5), zorder(?4 & 4294967295, ?5 & 4294967295)",
        "SELECT hilbert(?4, ?5, ?6 & 63), hilbert_x(?4, ?6 & 63), hilbert_y(?5, ?6 & 63)",
        "SELECT hilbert(?4 & 65535, ?5 & 65535, 16), hilbert_x(?4 & 4294967295, 16)",
        "SELECT count(*) FROM geohash_cover(?1, ?2, ?3)",
        "SELECT count(*) FROM geohash_cover(?1, ?2, abs(?3) % 1000000)",
        "SELECT count(*) FROM geohash_cover(?4 % 90, ?5 % 180, ?6 & 1048575)",
        "SELECT count(*) FROM geohash_cover_box(?1, ?2, ?3, ?1)",
        "SELECT count(*) FROM geohash_cover_box(?4 % 90, ?5 % 180, ?4 % 90 + (?6 & 7), ?5 % 180 + (?6 & 15))",
    };
    double ar[3];
    sqlite3_int64 ai[3];
    size_t k;
    memcpy(ar, aData, 24);
    memcpy(ai, aData, 24);
    for (k = 0; k < sizeof(azNum) / sizeof(azNum[0]); k++) {
      sqlite3_stmt *pStmt = NULL;
      int i;
      if (sqlite3_prepare_v2(db, azNum[k], -1, &pStmt, 0) != SQLITE_OK) continue;
      for (i = 0; i < 3; i++) {
        sqlite3_bind_double(pStmt, i + 1, ar[i]);
        sqlite3_bind_int64(pStmt, i + 4, ai[i]);
      }
      fuzzSteps = 0;
      while (sqlite3_step(pStmt) == SQLITE_ROW) {
        for (i = 0; i < sqlite3_column_count(pStmt); i++) (void)sqlite3_column_text(pStmt, i);
      }
      if (fuzzDebug()) fprintf(stderr, "fuzz: %s\n  in: %s\n", sqlite3_errmsg(db), azNum[k]);
      sqlite3_finalize(pStmt);
    }
  }
  return 0;
}
