/*
** fuzz_doc_update.c: doc_update (ext/doc.c, ext/doc_json.c) on a stored
** document and an update, both untrusted. Input: the document, a NUL byte,
** the update (none: an empty merge patch). Besides crashes and sanitizer
** reports it checks two properties, and aborts when one fails: what
** doc_update wrote is valid JSON, and once an empty merge patch has
** rewritten it (dropping the document's later duplicate keys) another one
** changes nothing.
*/
#include "fuzz.h"

/* The stored document as a new string (sqlite3_mprintf), after checking that a written one is JSON. */
static char *fuzzDoc(sqlite3 *db) {
  sqlite3_stmt *pStmt = NULL;
  char *z = NULL;
  if (sqlite3_prepare_v2(db, "SELECT doc, json_valid(doc), version FROM d", -1, &pStmt, 0) == SQLITE_OK &&
      sqlite3_step(pStmt) == SQLITE_ROW) {
    if (sqlite3_column_int(pStmt, 2) > 1 && !sqlite3_column_int(pStmt, 1)) abort();
    z = sqlite3_mprintf("%s", sqlite3_column_text(pStmt, 0));
  }
  sqlite3_finalize(pStmt);
  return z;
}

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData) {
  static sqlite3 *db = NULL;
  const void *aBind[2];
  int anBind[2], nDoc = fuzzSplit(aData, nData, 0);
  char *zOnce, *zTwice;
  if (db == NULL) {
    if ((db = fuzzOpen()) == NULL) return 0;
    fuzzExec(db, "CREATE TABLE d(key TEXT PRIMARY KEY, doc TEXT, version INTEGER)");
  }
  aBind[0] = aData;
  anBind[0] = nDoc;
  aBind[1] = nDoc < (int)nData ? (const void *)(aData + nDoc + 1) : (const void *)"{}";
  anBind[1] = nDoc < (int)nData ? (int)nData - nDoc - 1 : 2;
  fuzzExec(db, "DELETE FROM d");
  fuzzRun(db, "INSERT INTO d VALUES ('k', ?1, 1)", 1, 1, aBind, anBind);
  fuzzRun(db, "SELECT doc_update('d', 'k', ?2), ?1", 1, 2, aBind, anBind);
  sqlite3_free(fuzzDoc(db));
  fuzzExec(db, "SELECT doc_update('d', 'k', '{}')");
  zOnce = fuzzDoc(db);
  fuzzExec(db, "SELECT doc_update('d', 'k', '{}')");
  zTwice = fuzzDoc(db);
  if (zOnce && zTwice && strcmp(zOnce, zTwice) != 0) abort();
  sqlite3_free(zOnce);
  sqlite3_free(zTwice);
  return 0;
}
