/*
** fuzz_ltxtquery.c: the ltxtquery parser and matcher of ext/mpath.c.
** Input: "PATH\nLTXTQUERY", or the whole input as the query, matched
** against fixed paths.
*/
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData) {
  static sqlite3 *db = NULL;
  int nPath = fuzzSplit(aData, nData, '\n');
  const void *aBind[2];
  int anBind[2];
  if (db == NULL && (db = fuzzOpen()) == NULL) return 0;
  if ((size_t)nPath < nData) {
    aBind[0] = aData;
    anBind[0] = nPath;
    aBind[1] = aData + nPath + 1;
    anBind[1] = (int)(nData - (size_t)nPath - 1);
  } else {
    aBind[0] = "Top.Science.Astronomy.Stars";
    anBind[0] = -1;
    aBind[1] = aData;
    anBind[1] = (int)nData;
  }
  fuzzRun(db, "SELECT mpath_txtmatch(?1, ?2), mpath_txtmatch(?1, ?2, '/')", 1, 2, aBind, anBind);
  fuzzRun(db,
          "SELECT mpath_txtmatch(column1, ?2) FROM (VALUES ('a'), ('Europe.Russia_Moscow'), (''), "
          "('Top.Science'),"
          " ('a.b.c.d.e.f.g.h'), ('x.y'))",
          1, 2, aBind, anBind);
  return 0;
}
