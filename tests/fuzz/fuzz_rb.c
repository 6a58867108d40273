/*
** fuzz_rb.c: roaring bitmap blobs of the rb_* functions (ext/roaring_sql.c),
** validated before use. Input: two blobs, split after the byte that the
** first byte names (modulo the length); the whole input also goes to
** rb_build() as JSON text.
*/
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData) {
  static sqlite3 *db = NULL;
  const void *aBind[2];
  int anBind[2];
  size_t iSplit;
  if (db == NULL && (db = fuzzOpen()) == NULL) return 0;
  if (nData == 0) return 0;
  iSplit = 1 + aData[0] % nData;
  aBind[0] = aData + 1;
  anBind[0] = (int)(iSplit - 1);
  aBind[1] = aData + iSplit;
  anBind[1] = (int)(nData - iSplit);
  fuzzRun(db,
          "SELECT rb_cardinality(?1), rb_min(?1), rb_max(?1), length(rb_to_json(?1)), rb_contains(?1, 5),"
          " length(rb_add(?1, 7)), length(rb_remove(?1, 7)), rb_cardinality(rb_and(?1, ?2)),"
          " rb_cardinality(rb_or(?1, ?2)), rb_cardinality(rb_andnot(?1, ?2)), rb_cardinality(rb_xor(?1, ?2)),"
          " rb_and_cardinality(?1, ?2), rb_or_cardinality(?1, ?2), rb_andnot_cardinality(?1, ?2),"
          " rb_xor_cardinality(?1, ?2)",
          0, 2, aBind, anBind);
  fuzzRun(db, "SELECT count(*), sum(value) FROM rb_iterate(?1)", 0, 1, aBind, anBind);
  fuzzRun(db,
          "SELECT rb_cardinality(rb_or_agg(b)), rb_cardinality(rb_and_agg(b)), rb_cardinality(rb_xor_agg(b))"
          " FROM (SELECT ?1 AS b UNION ALL SELECT ?2)",
          0, 2, aBind, anBind);
  fuzzRun1(db, "SELECT rb_cardinality(rb_build(?1))", 1, aData, (int)nData);
  return 0;
}
