/*
** fuzz_ii_match.c: the MATCH query language of inverted_index (parser and
** evaluator) over a small index, through MATCH, inverted_index_count() and
** the facets table. Input: the query text.
*/
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData) {
  static sqlite3 *db = NULL;
  if (db == NULL) {
    if ((db = fuzzOpen()) == NULL) return 0;
    fuzzExec(
        db,
        "CREATE VIRTUAL TABLE a USING inverted_index(category, city, site);"
        "INSERT INTO a(rowid, category, city, site) VALUES"
        " (7, '[\"Men\",\"Bloggers\"]', 'Boston', 'cnn.com'), (-3, '[\"Women\"]', 'New York', 'cnn.com'),"
        " (9, 'Kids', 'Boston', 'bbc.com'), (10, NULL, NULL, 'cnn.com'), (11, '[]', 'x', '[\"y\",3]');"
        "CREATE VIRTUAL TABLE a_facets USING inverted_index_facets(a);");
  }
  fuzzRun1(db, "SELECT rowid, category FROM a WHERE a MATCH ?1", 1, aData, (int)nData);
  fuzzRun1(db, "SELECT inverted_index_count('a', ?1)", 1, aData, (int)nData);
  fuzzRun1(db, "SELECT field, term, docs FROM a_facets WHERE query = ?1", 1, aData, (int)nData);
  return 0;
}
