/*
** fuzz_hll.c: HyperLogLog sketch blobs (ext/hll.c): hll_estimate() and
** hll_merge() of a stored sketch, alone and with a valid one. Input: the
** blob; its first half and second half are also merged with each other.
*/
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData) {
  static sqlite3 *db = NULL;
  const void *aBind[2];
  int anBind[2];
  if (db == NULL && (db = fuzzOpen()) == NULL) return 0;
  fuzzRun1(db, "SELECT hll_estimate(?1), length(hll_merge(?1))", 0, aData, (int)nData);
  fuzzRun1(db,
           "SELECT hll_estimate(hll_merge(s)) FROM (SELECT ?1 AS s UNION ALL SELECT hll_sketch(1)"
           " UNION ALL SELECT hll_sketch(2, 4) UNION ALL SELECT hll_sketch(3, 18))",
           0, aData, (int)nData);
  aBind[0] = aData;
  anBind[0] = (int)(nData / 2);
  aBind[1] = aData + nData / 2;
  anBind[1] = (int)(nData - nData / 2);
  fuzzRun(db, "SELECT hll_estimate(hll_merge(s)) FROM (SELECT ?1 AS s UNION ALL SELECT ?2)", 0, 2, aBind,
          anBind);
  return 0;
}
