/*
** fuzz_lquery.c: the lquery parser and matcher of ext/mpath.c, and the
** path functions. Input: "PATH\nLQUERY" (without a newline, the whole
** input is the lquery, matched against fixed paths); the lquery also goes
** to mpath_prefix() and, as a path, to the path functions and mpath_ranges.
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
  fuzzRun(db, "SELECT mpath_match(?1, ?2), mpath_match(?1, ?2, '/'), mpath_prefix(?2), mpath_prefix(?2, '/')",
          1, 2, aBind, anBind);
  fuzzRun(db,
          "SELECT mpath_match(column1, ?2) FROM (VALUES ('a'), ('a.b.c'), (''), ('Top.Science'),"
          " ('a.b.c.d.e.f.g.h'), ('x.y'))",
          1, 2, aBind, anBind);
  fuzzRun(db,
          "SELECT mpath_nlevel(?2), mpath_lower(?2), mpath_upper(?2), mpath_subpath(?2, 1), "
          "mpath_subpath(?2, -2, 1),"
          " mpath_subltree(?2, 0, 2), mpath_index(?2, ?1), mpath_lca(?1, ?2), mpath_is_ancestor(?1, ?2),"
          " mpath_rebase(?2, ?1, 'z'), mpath_nlevel(?2, '/')",
          1, 2, aBind, anBind);
  fuzzRun(db, "SELECT lo, hi FROM mpath_ranges(?2)", 1, 2, aBind, anBind);
  fuzzRun(db, "SELECT lo, hi FROM mpath_ranges(?2, ?1)", 1, 2, aBind, anBind);
  return 0;
}
