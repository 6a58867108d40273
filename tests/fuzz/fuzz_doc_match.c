/*
** fuzz_doc_match.c: doc_match (ext/doc_match.c) on a document and a filter,
** both untrusted, and the same filter as a $pull condition of doc_update.
** Input: the document, a NUL byte, the filter (none: {}). Besides crashes
** and sanitizer reports it checks two properties, and aborts when one
** fails: a doc_match that answers answers 1 or 0, and the filter under
** $nor answers the opposite (the evaluator negates what it matches, on
** every path it takes).
*/
#include "fuzz.h"

/* doc_match(?1, zFilter) with zFilter built from ?2: 1, 0, or -1 on an error. */
static int fuzzMatch(sqlite3 *db, const char *zSql, const void *const *aBind, const int *anBind) {
  sqlite3_stmt *pStmt = NULL;
  int i, r = -1;
  fuzzSteps = 0;
  if (sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0) != SQLITE_OK) return -1;
  for (i = 0; i < 2; i++)
    sqlite3_bind_text(pStmt, i + 1, (const char *)aBind[i], anBind[i], SQLITE_TRANSIENT);
  if (sqlite3_step(pStmt) == SQLITE_ROW) {
    if (sqlite3_column_type(pStmt, 0) != SQLITE_INTEGER) abort();
    r = sqlite3_column_int(pStmt, 0);
    if (r != 0 && r != 1) abort();
  }
  sqlite3_finalize(pStmt);
  return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData) {
  static sqlite3 *db = NULL;
  const void *aBind[2];
  int anBind[2], nDoc = fuzzSplit(aData, nData, 0), r, rNot;
  if (db == NULL) {
    if ((db = fuzzOpen()) == NULL) return 0;
    fuzzExec(db, "CREATE TABLE d(key TEXT PRIMARY KEY, doc TEXT, version INTEGER)");
  }
  aBind[0] = aData;
  anBind[0] = nDoc;
  aBind[1] = nDoc < (int)nData ? (const void *)(aData + nDoc + 1) : (const void *)"{}";
  anBind[1] = nDoc < (int)nData ? (int)nData - nDoc - 1 : 2;
  r = fuzzMatch(db, "SELECT doc_match(?1, ?2)", aBind, anBind);
  rNot = fuzzMatch(db, "SELECT doc_match(?1, '{\"$nor\":[' || ?2 || ']}')", aBind, anBind);
  if (r >= 0 && rNot >= 0 && r == rNot) abort();
  /* The filter as $pull's condition on an array holding the document and its members. */
  fuzzExec(db, "DELETE FROM d");
  fuzzRun(db,
          "INSERT INTO d SELECT 'k', json_object('a', json_array(json(?1), 1, 'x', NULL)) || '', 1 WHERE "
          "json_valid(?1)",
          1, 2, aBind, anBind);
  fuzzRun(db, "SELECT doc_update('d', 'k', '{\"$pull\":{\"a\":' || ?2 || '}}'), ?1", 1, 2, aBind, anBind);
  return 0;
}
