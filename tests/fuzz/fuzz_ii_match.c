/*
** fuzz_ii_match.c: the MATCH query language of inverted_index (parser and
** evaluator) over a small index, through MATCH, inverted_index_count() and
** the facets table, and over an index with NESTED fields in both layouts
** (element queries field:{...}), and over one with a RANGE field (range
** queries, and range facets whose bounds are the input). Input: the query
** text.
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
        "CREATE VIRTUAL TABLE a_facets USING inverted_index_facets(a);"
        "CREATE VIRTUAL TABLE n USING inverted_index(city, skills NESTED(skill, level), langs NESTED(lang) "
        "NUMBERED);"
        "INSERT INTO n(rowid, city, skills, langs) VALUES"
        " (1, 'Boston', "
        "'[{\"skill\":\"poetry\",\"level\":\"poor\"},{\"skill\":\"math\",\"level\":\"excellent\"}]',"
        " '[{\"lang\":\"fr\"},{\"lang\":[\"en\",\"de\"]}]'),"
        " (2, 'x', '[{\"skill\":[\"poetry\",7]},{}]', NULL), (3, NULL, '[]', '[{}]');"
        "CREATE VIRTUAL TABLE n_facets USING inverted_index_facets(n);"
        "CREATE VIRTUAL TABLE r USING inverted_index(tag, price RANGE);"
        "INSERT INTO r(rowid, tag, price) VALUES (1, 'a', 10), (2, 'a', -2.5), (3, 'b', NULL), (4, 'b', "
        "1e999),"
        " (5, NULL, -0.0), (6, 'a', 9007199254740992), (7, 'c', 1e-300);"
        "CREATE VIRTUAL TABLE r_facets USING inverted_index_facets(r);");
  }
  fuzzRun1(db, "SELECT rowid, category FROM a WHERE a MATCH ?1", 1, aData, (int)nData);
  fuzzRun1(db, "SELECT inverted_index_count('a', ?1)", 1, aData, (int)nData);
  fuzzRun1(db, "SELECT field, term, docs FROM a_facets WHERE query = ?1", 1, aData, (int)nData);
  fuzzRun1(db, "SELECT rowid FROM n WHERE n MATCH ?1", 1, aData, (int)nData);
  fuzzRun1(db, "SELECT field, term, docs FROM n_facets WHERE query = ?1", 1, aData, (int)nData);
  fuzzRun1(db, "SELECT rowid FROM r WHERE r MATCH ?1", 1, aData, (int)nData);
  fuzzRun1(db, "SELECT term, docs, lo, hi FROM r_facets WHERE field = 'price' AND ranges = ?1", 1, aData,
           (int)nData);
  return 0;
}
