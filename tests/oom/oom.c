/*
** oom.c: out-of-memory test. Installs an allocator (SQLITE_CONFIG_MALLOC)
** that fails the Nth allocation, then, for each feature's small script
** and N = 1, 2, ... until the script runs without meeting the failure:
**
**   open a connection (the extension registers itself then), run the
**   script statement by statement, stop at the first error, close.
**
** Every run must show one of two outcomes: each statement returns what it
** returned in the reference run (no failure, or a failure SQLite or the
** extension absorbed), or the statements before the first error do and
** that error is SQLITE_NOMEM (an extended code of it, or an error whose
** message says "out of memory"). Any other error, a different result, a
** crash, sqlite3_close() failing (a statement left open) or memory still
** allocated after the close (a leak of sqlite3_malloc memory) fails the
** run. Under ASan (build/asan/oom) leaks of other memory (CRoaring's) are
** LeakSanitizer's to find at exit.
**
**   build/oom [--step K] [--from N] [--persist] [--only NAME] [-v]
**
** --step K tries every Kth N only (make test's quick run uses a step that
** keeps it to seconds; step 1 is the full run). --from N starts at N (to
** replay one failure: --only NAME --from N --step 1000000). --persist makes every
** allocation after the Nth fail too, instead of only the Nth.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "nosql.h"

/* The allocator: the default one, with a countdown to the failing call. */
static sqlite3_mem_methods oomDefault; /* SQLite's own allocator */
static int oomArmed;                   /* True while counting */
static int oomCountdown;               /* Allocations left before the failing one */
static int oomPersist;                 /* Keep failing once failed */
static int oomFired;                   /* True once an allocation failed */
static int64_t oomOutstanding;         /* Allocations not yet freed */

static int oomShouldFail(void) {
  if (!oomArmed) return 0;
  if (oomFired && oomPersist) return 1;
  if (oomCountdown > 0 && --oomCountdown == 0) {
    oomFired = 1;
    return 1;
  }
  return 0;
}

static void *oomMalloc(int n) {
  void *p;
  if (oomShouldFail()) return NULL;
  p = oomDefault.xMalloc(n);
  if (p) oomOutstanding++;
  return p;
}

static void oomFree(void *p) {
  if (p) oomOutstanding--;
  oomDefault.xFree(p);
}

static void *oomRealloc(void *p, int n) {
  if (oomShouldFail()) return NULL;
  return oomDefault.xRealloc(p, n);
}

static int oomSize(void *p) { return oomDefault.xSize(p); }
static int oomRoundup(int n) { return oomDefault.xRoundup(n); }
static int oomInit(void *p) { return oomDefault.xInit(p); }
static void oomShutdown(void *p) { oomDefault.xShutdown(p); }

/* One feature's script: statements run in order on a fresh in-memory database. */
typedef struct OomScript OomScript;
struct OomScript {
  const char *zName;         /* For --only and messages */
  const char *const *azStmt; /* Statements, NULL-terminated */
};

static const char *const azGeohash[] = {
    "SELECT geohash(42.6, -5.6, 11), geohash_bits(42.6, -5.6, 52), geohash_lat('ezs42'), "
    "geohash_lon('ezs42')",
    "SELECT * FROM geohash_decode('u4pruydqqvj')",
    "SELECT direction, hash FROM geohash_neighbors('ezs42')",
    "SELECT geohash_neighbor('ezs42', 'ne'), geo_distance(1, 2, 3, 4), zorder(3, 5), hilbert(3, 5, 4)",
    "SELECT count(*), min(lo), max(hi) FROM geohash_cover(38.1, 13.4, 200000)",
    "SELECT count(*) FROM geohash_cover_box(10, 10, 11, 12)",
    "SELECT count(*), min(lo), max(hi) FROM geohash_cover_bits(38.1, 13.4, 200000)",
    "SELECT count(*) FROM geohash_cover_box_bits(10, 10, 11, 12)",
    "SELECT * FROM geo_bbox(0, 179.9, 100000)",
    NULL};

static const char *const azGeoNearest[] = {
    "CREATE TABLE pts(id INTEGER PRIMARY KEY, lat REAL, lon REAL, gh TEXT AS (geohash(lat, lon)))",
    "CREATE INDEX pts_gh ON pts(gh, lat, lon)",
    "CREATE TABLE txt(name TEXT PRIMARY KEY, lat REAL, lon REAL) WITHOUT ROWID",
    "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 300) INSERT INTO pts(lat, lon) "
    "SELECT (i * 7919 % 17999) / 100.0 - 89.99, (i * 104729 % 35999) / 100.0 - 179.99 FROM c",
    "INSERT INTO txt SELECT 'n' || id, lat, lon FROM pts WHERE id % 3 = 0",
    "SELECT group_concat(id || ':' || distance_m) FROM geo_nearest('pts', 'lat', 'lon', 10, 20, 5)",
    "SELECT group_concat(id || ':' || distance_m) FROM geo_nearest('pts', 'lat', 'lon', 89.9, 179.9, 40, "
    "3e6)",
    "SELECT group_concat(id) FROM geo_nearest('txt', 'lat', 'lon', -10, -20, 7)",
    "SELECT plan_words FROM nosql_explain('SELECT * FROM geo_nearest(''pts'', ''lat'', ''lon'', 1, 2, 3)')",
    NULL};

static const char *const azMpath[] = {
    "SELECT mpath_match('Top.Science.Astronomy', '*.Astr*@.*'), mpath_match('a.b.c', 'a.*{0,2}.b|c')",
    "SELECT mpath_txtmatch('Europe.Russia_Moscow', 'Russia* & !Transport'), mpath_nlevel('a.b.c')",
    "SELECT mpath_subpath('a.b.c.d', 1, 2), mpath_lca('a.b.c', 'a.b.d', 'a.b'), mpath_rebase('a.b.c', 'a', "
    "'z.y')",
    "SELECT mpath_lower('a.b'), mpath_upper('a.b'), mpath_prefix('a.b.*'), mpath_index('a.b.c.d', 'c.d')",
    "SELECT lo, hi FROM mpath_ranges('a.b')",
    "CREATE TABLE node(id INTEGER PRIMARY KEY, path TEXT UNIQUE)",
    "INSERT INTO node(path) VALUES ('a'), ('a.b'), ('a.b.c'), ('a.d'), ('e')",
    "SELECT n.path FROM mpath_ranges('a') g JOIN node n ON n.path >= g.lo AND n.path < g.hi ORDER BY n.path",
    NULL};

static const char *const azNestedSet[] = {
    "CREATE VIRTUAL TABLE t USING nested_set(name TEXT)",
    "INSERT INTO t(id, parent, name) VALUES (1, NULL, 'a'), (2, 1, 'b'), (3, 2, 'c'), (4, 1, 'd'), (5, 4, "
    "'e')",
    "SELECT id, depth FROM t WHERE descendant_of = 1",
    "SELECT id FROM t WHERE ancestor_of = 5",
    "SELECT id FROM t WHERE leaves_of = 1",
    "UPDATE t SET parent = 2 WHERE id = 4",
    "DELETE FROM t WHERE id = 3",
    "INSERT INTO t(parent, name) VALUES (1, 'f')",
    "INSERT INTO t(t) VALUES ('integrity-check')",
    "INSERT INTO t(t) VALUES ('rebuild')",
    "SELECT id, parent, depth, name FROM t ORDER BY id",
    "CREATE TABLE c(id INTEGER PRIMARY KEY, parent, name)",
    "INSERT INTO c VALUES (1, NULL, 'r'), (2, 1, 'k')",
    "CREATE VIRTUAL TABLE ct USING nested_set(content=c, id=id, parent=parent, name)",
    "SELECT id, name FROM ct WHERE descendant_of = 1",
    "DROP TABLE t",
    NULL};

static const char *const azInvertedIndex[] = {
    "CREATE VIRTUAL TABLE a USING inverted_index(category, city, site)",
    "INSERT INTO a(rowid, category, city, site) VALUES (7, '[\"Men\",\"Bloggers\"]', 'Boston', 'cnn.com'),"
    " (-3, '[\"Women\"]', 'New York', 'cnn.com'), (9, 'Kids', 'Boston', 'bbc.com')",
    "SELECT rowid FROM a WHERE a MATCH 'site:cnn.com AND (city:Boston OR city:\"New York\") AND NOT "
    "category:Kids'",
    "SELECT inverted_index_count('a', 'city:Boston OR site:bbc.com')",
    "CREATE VIRTUAL TABLE a_facets USING inverted_index_facets(a)",
    "SELECT field, term, docs FROM a_facets WHERE query = 'site:cnn.com' ORDER BY 1, 2",
    "CREATE VIRTUAL TABLE a_vocab USING inverted_index_vocab(a)",
    "SELECT field, term, docs FROM a_vocab ORDER BY 1, 2",
    "BEGIN",
    "UPDATE a SET city = 'Paris' WHERE rowid = 7",
    "DELETE FROM a WHERE rowid = 9",
    "COMMIT",
    "INSERT INTO a(a) VALUES ('integrity-check')",
    "INSERT INTO a(a) VALUES ('optimize')",
    "SELECT rowid, category, city FROM a WHERE a MATCH 'NOT city:Boston'",
    "CREATE VIRTUAL TABLE n USING inverted_index(name, skills NESTED(skill, level), langs NESTED(lang) "
    "NUMBERED)",
    "INSERT INTO n(rowid, name, skills, langs) VALUES (1, 'Ann', '[{\"skill\":\"poetry\",\"level\":\"poor\"},"
    "{\"skill\":\"math\",\"level\":[\"excellent\",\"good\"]}]', '[{\"lang\":\"fr\"},{\"lang\":\"en\"}]'),"
    " (2, 'Bob', '[{\"skill\":\"poetry\",\"level\":\"excellent\"}]', '[{}]'), (3, 'Cy', NULL, '[]')",
    "SELECT rowid FROM n WHERE n MATCH 'skills:{skill:poetry AND NOT level:poor} OR langs:{lang:en}'",
    "SELECT inverted_index_count('n', 'NOT skills:{level:excellent}')",
    "CREATE VIRTUAL TABLE n_facets USING inverted_index_facets(n)",
    "SELECT field, term, docs FROM n_facets WHERE query = 'skills:{skill:poetry}' ORDER BY 1, 2",
    "CREATE VIRTUAL TABLE n_vocab USING inverted_index_vocab(n)",
    "SELECT field, term, docs FROM n_vocab ORDER BY 1, 2",
    "SELECT term, docs FROM n_facets WHERE field = 'skills.level' AND query = 'skills:{skill:poetry} AND "
    "skills:{level:excellent}'",
    "UPDATE n SET skills = '[{\"skill\":\"chess\"}]', langs = NULL WHERE rowid = 1",
    "UPDATE n SET skills = '[{\"skill\":\"chess\"},{\"skill\":\"go\"},{\"skill\":\"math\"}]' WHERE rowid = 1",
    "DELETE FROM n WHERE rowid = 2",
    "INSERT INTO n(n) VALUES ('optimize')",
    "INSERT INTO n(n) VALUES ('integrity-check')",
    "SELECT rowid FROM n WHERE n MATCH 'skills:{skill:chess}'",
    "CREATE TABLE src(id INTEGER PRIMARY KEY, tag, s)",
    "WITH RECURSIVE i(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM i WHERE k < 40) INSERT INTO src SELECT k, "
    "json_array('t' || (k % 5), 'all'), json_array(json_object('k', 'k' || (k % 3)), json_object('k', 'x')) "
    "FROM i",
    "CREATE VIRTUAL TABLE b USING inverted_index(tag, s NESTED(k), content=src)",
    "INSERT INTO b(b) VALUES ('rebuild')",
    "SELECT count(*) FROM b WHERE b MATCH 'tag:t1 AND s:{k:k1}'",
    "INSERT INTO b(b) VALUES ('integrity-check')",
    "CREATE VIRTUAL TABLE bd USING inverted_index(tag, s NESTED(k), content=src, direct=off)",
    "INSERT INTO bd(bd) VALUES ('rebuild')",
    "SELECT count(*) FROM bd WHERE bd MATCH 'tag:t1 AND s:{k:k1}'",
    "INSERT INTO bd(bd, rowid, tag, s) SELECT 'delete', id, tag, s FROM src WHERE id = 3",
    "INSERT INTO bd(rowid, tag, s) SELECT id, tag, s FROM src WHERE id = 3",
    "INSERT INTO bd(bd) VALUES ('optimize')",
    "INSERT INTO bd(bd) VALUES ('integrity-check')",
    "CREATE VIRTUAL TABLE bs USING inverted_index(tag, s NESTED(k), direct=off)",
    "INSERT INTO bs(rowid, tag, s) SELECT id, tag, s FROM src",
    "SELECT count(*) FROM bs WHERE bs MATCH 'tag:t1 AND s:{k:k1}'",
    "UPDATE bs SET rowid = 100, tag = 'moved' WHERE rowid = 4",
    "INSERT OR REPLACE INTO bs(rowid, tag, s) VALUES (5, '[\"t9\"]', '[{\"k\":\"k9\"}]')",
    "DELETE FROM bs WHERE rowid = 6",
    "INSERT INTO bs(bs, rowid) VALUES ('delete', 7)",
    "INSERT INTO bs(bs) VALUES ('rebuild')",
    "INSERT INTO bs(bs) VALUES ('optimize')",
    "INSERT INTO bs(bs) VALUES ('integrity-check')",
    "SELECT rowid, tag FROM bs WHERE bs MATCH 'tag:moved OR s:{k:k9}'",
    "SELECT rb_to_json(rb_or(rb_build('[1,2,70000]'), rb_build('[3]'))), rb_cardinality(rb_build('[5,6]'))",
    "SELECT value FROM rb_iterate(rb_build('[4,1,3]'))",
    "SELECT rb_cardinality(rb_or_agg(b)) FROM (SELECT rb_build('[1]') AS b UNION ALL SELECT rb_build('[2]'))",
    NULL};

/* inverted_index mode='sync': the triggers it creates, REPLACE, rename, drop. */
static const char *const azInvertedSync[] = {
    "CREATE TABLE sy_src(id INTEGER PRIMARY KEY, tag, s, u UNIQUE)",
    "WITH RECURSIVE i(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM i WHERE k < 20) INSERT INTO sy_src SELECT "
    "k, "
    "json_array('t' || (k % 5), 'all'), json_array(json_object('k', 'k' || (k % 3)), json_object('k', 'x')), "
    "k "
    "FROM i",
    "CREATE VIRTUAL TABLE sy USING inverted_index(tag, s NESTED(k), content=sy_src, mode='sync')",
    "INSERT INTO sy_src VALUES (30, '[\"t1\",\"new\"]', '[{\"k\":\"k1\"}]', 30)",
    "UPDATE sy_src SET tag = 'moved', id = 31 WHERE id = 4",
    "INSERT OR REPLACE INTO sy_src VALUES (32, 't2', NULL, 5)",
    "UPDATE OR REPLACE sy_src SET u = 6 WHERE id = 7", "DELETE FROM sy_src WHERE id = 8",
    /* Without NESTED: an UPDATE that keeps the rowid moves the changed fields only. */
    "CREATE VIRTUAL TABLE sp USING inverted_index(tag, u, content=sy_src, mode='sync')",
    "UPDATE sy_src SET tag = 'upd' WHERE id = 9", "UPDATE sy_src SET tag = '[]', u = 90 WHERE id = 10",
    "INSERT INTO sp(sp) VALUES ('integrity-check')", "DROP TABLE sp",
    "SELECT rowid FROM sy WHERE sy MATCH 'tag:moved OR tag:t2 OR s:{k:k1}'",
    "INSERT INTO sy(sy) VALUES ('integrity-check')", "ALTER TABLE sy RENAME TO sy2",
    "INSERT INTO sy2(sy2) VALUES ('rebuild')", "DROP TABLE sy2", NULL};

static const char *const azCkey[] = {
    "SELECT hex(ckey('a', 1, 2.5, NULL, x'00ff')), ckey_decode(ckey('a', 1)), ckey_length(ckey(1, 2, 3))",
    "SELECT hex(ckey_prefix(ckey('a', 'b', 'c'), 2)), hex(ckey_range_end(ckey('a'))), ckey_join(':', 'a', 1)",
    "CREATE TABLE s(k TEXT PRIMARY KEY, v)",
    "INSERT INTO s VALUES ('CA:LA:1', 1), ('CA:SF:2', 2), ('NY:NYC:4', 4)",
    "CREATE VIRTUAL TABLE vs USING composite_scan(s, k, state, city, id, sep=':')",
    "SELECT v, city FROM vs WHERE state = 'CA' ORDER BY k",
    "CREATE TABLE b(k BLOB PRIMARY KEY, v) WITHOUT ROWID",
    "INSERT INTO b VALUES (ckey('x', 1), 1), (ckey('x', 2), 2), (ckey('y', 1), 3)",
    "CREATE VIRTUAL TABLE vb USING composite_scan(b, k, s TEXT, n INTEGER)",
    "SELECT s, n, v FROM vb WHERE s = 'x' AND n >= 2",
    "SELECT count_distinct_sorted(n) FROM (SELECT n FROM vb ORDER BY n)",
    "SELECT hll_count(value), hll_estimate(hll_sketch(value, 10)) FROM json_each('[1,2,3,2,1]')",
    "SELECT hll_estimate(hll_merge(s)) FROM (SELECT hll_sketch(1) AS s UNION ALL SELECT hll_sketch(2))",
    "SELECT kv_incr('a'), kv_incr('a', 5), kv_get('a')",
    "SELECT name, value FROM kv_counters",
    NULL};

static const char *const azDocuments[] = {
    "CREATE TABLE kv(key TEXT PRIMARY KEY, value)",
    "SELECT kv_cas('kv', 'a', NULL, 1), kv_cas('kv', 'a', 1, 2), kv_cas('kv', 'a', 1, 3), kv_cas('kv', 'b', "
    "1, 1)",
    "SELECT kv_delete_if('kv', 'a', 9), kv_delete_if('kv', 'a', 2), kv_delete_if('kv', 'a', 2)",
    "INSERT INTO kv VALUES ('x', 1), ('y', 'two'), ('z', NULL)",
    "SELECT key, value FROM kv_mget('kv', '[\"z\", \"q\", \"x\", \"y\"]')",
    "CREATE TABLE d(key TEXT PRIMARY KEY, doc, version INTEGER)",
    "SELECT doc_update('d', 'u1', '{\"name\": \"ann\", \"tags\": [\"a\"]}')",
    "SELECT doc_update('d', 'u1', '{\"$inc\": {\"n\": 2}, \"$push\": {\"tags\": {\"$each\": [\"b\", "
    "\"c\"]}}, \"$set\": {\"p.q\": 1}}', 1)",
    "SELECT doc_update('d', 'u1', '{\"$pull\": {\"tags\": \"a\"}, \"$unset\": {\"name\": 1}, "
    "\"$addToSet\": {\"tags2\": \"b\"}}')",
    "SELECT key, doc, version FROM d",
    /* The column form of the table argument (issue 31): parsed, resolved, checked, rewritten. */
    "CREATE TABLE p(id INTEGER PRIMARY KEY, body TEXT, rev INTEGER)",
    "SELECT kv_cas('p(id, body)', 1, NULL, '{}'), doc_update('\"p\"(ID, [body], `rev`)', 1, '{\"a\": 1}')",
    "SELECT key, value FROM kv_mget('main.p(id, rev)', '[1]')",
    /* The tree editor (ext/doc_json.c): escaped keys, a hashed object with a duplicate key, query $pull,
    ** $addToSet's hash set, $unset of an element, numbers, a merge patch, nested arrays (60 deep, not
    ** near the limit: doc_schema below allocates a path per level, so 998 levels added 1,300 allocations
    ** to every run and made the script 20 times slower; update_json.test checks the limit). */
    "INSERT INTO d WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 12) SELECT 'w', "
    "'{' "
    "|| group_concat('\"k' || i || '\":' || i, ',') || "
    "',\"k3\":9,\"caf\\u00e9\":[{\"a\":1,\"b\":2},{\"a\":2}],"
    "\"arr\":[1,2,3],\"big\":99999999999999999999}', 1 FROM c",
    "SELECT doc_update('d', 'w', '{\"$unset\":{\"arr.1\":1},\"$pull\":{\"café\":{\"a\":2}}}')",
    "SELECT doc_update('d', 'w', "
    "'{\"$set\":{\"x.y\\\"z\":1,\"caf\u00e9.0.c\":3},\"$unset\":{\"k5\":1},"
    "\"$inc\":{\"k3\":1.5,\"big\":1},\"$addToSet\":{\"arr\":{\"$each\":[1,4,4,"
    "[5],"
    "{\"q\":\"\\u00e9\"}]}},\"$push\":{\"k14\":1}}')",
    "SELECT doc_update('d', 'w', '{\"$push\":{\"arr\":{\"$each\":[6,7]}},\"$set\":{\"k14.0\":[0]}}')",
    "SELECT doc_update('d', 'w', '{\"k1\":null,\"n\":{\"m\":null,\"o\":[1]},\"k13\":13,\"k3\":{\"p\":1}}')",
    "SELECT doc_update('d', 'w', '{\"$set\":{\"deep\":' || printf('%.*c', 60, '[') || printf('%.*c', 60, "
    "']') || "
    "'}}')",
    /* Issue 27: every operator, array paths, options, conflicts, upserts. */
    "SELECT doc_update('d', 'w', "
    "'{\"$mul\":{\"k2\":3,\"m0\":1.5},\"$min\":{\"k4\":{\"a\":1}},\"$max\":{\"k6\":[1]},"
    "\"$rename\":{\"k7\":\"r.k7\"},\"$pop\":{\"arr\":-1},\"$pullAll\":{\"k14\":[1]},"
    "\"$bit\":{\"k8\":{\"and\":12,\"xor\":1}},\"$setOnInsert\":{\"no\":1}}')",
    "SELECT doc_update('d', 'w', "
    "'{\"$push\":{\"arr\":{\"$each\":[{\"s\":2},{\"s\":1},3],\"$sort\":{\"s\":-1},"
    "\"$slice\":-4,\"$position\":1}},\"$set\":{\"caf\\u00e9.$[].z\":1,\"caf\\u00e9.$[e].y\":2,\"k10.k\":1,"
    "\"pad.0\":0}}', '{\"arrayFilters\":[{\"e.a\":1}],\"expectedVersion\":6}')",
    "SELECT doc_upsert('d', 'up', "
    "'{\"$setOnInsert\":{\"a\":[1]},\"$inc\":{\"n\":1},\"$push\":{\"l\":{\"$each\":[3,"
    "1,2],\"$sort\":1}}}'), doc_upsert('d', 'up', '{\"$setOnInsert\":{\"a\":2},\"$inc\":{\"n\":1}}'), "
    "doc_update('d', 'up2', '{\"$set\":{\"a.b\":1}}', '{\"upsert\":true}')",
    "SELECT doc_update('d', 'up', '{\"$currentDate\":{\"t\":true,\"ts\":{\"$type\":\"timestamp\"}}}'), "
    "json_type(doc, '$.t'), json_type(doc, '$.ts') FROM d WHERE key = 'up'",
    "SELECT doc_update('d', 'up', '{\"$unset\":{\"t\":1,\"ts\":1}}') /* the time differs from run to run */",
    "SELECT key, doc, version FROM d WHERE key LIKE 'up%'", "SELECT key, doc, version FROM d WHERE key = 'w'",
    "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 100) SELECT kv_object('u_' || "
    "(i % "
    "70), i) FROM c",
    "SELECT path, type, docs, example FROM doc_schema('d', 'doc')",
    "SELECT kv_object(k, v, '.') FROM (SELECT 'a.b' AS k, 1 AS v UNION ALL SELECT 'a.c', 'x')",
    "SELECT key, value FROM kv_pairs('u1', (SELECT doc FROM d), '.')",
    /* doc_match (ext/doc_match.c): every operator family, a regex (PCRE2's memory is SQLite's), a key index
    ** of a wide object, and $pull with conditions. */
    "SELECT doc_match(doc, "
    "'{\"$or\":[{\"name\":{\"$regex\":\"^a\",\"$options\":\"i\"}},{\"k3\":{\"$gt\":1}}],"
    "\"tags\":{\"$all\":[\"b\"],\"$size\":2},\"caf\\u00e9\":{\"$elemMatch\":{\"a\":{\"$in\":[1,2]}}},"
    "\"n\":{\"$not\":{\"$type\":\"string\"}},\"x.y\":{\"$exists\":false},\"k1\":{\"$mod\":[2,1]},"
    "\"$nor\":[{\"k2\":null}]}') FROM d ORDER BY key",
    "SELECT "
    "doc_match('{\"name\":\"Ann\",\"tags\":[\"a\",\"b\"],\"caf\\u00e9\":[{\"a\":0},{\"a\":2}],\"n\":[1,2],"
    "\"k1\":3,\"k2\":0}', '{\"$or\":[{\"name\":{\"$regex\":\"^a\",\"$options\":\"i\"}},{\"k3\":{\"$gt\":1}}],"
    "\"tags\":{\"$all\":[\"b\"],\"$size\":2},\"caf\\u00e9\":{\"$elemMatch\":{\"a\":{\"$in\":[1,2]}}},"
    "\"n\":{\"$not\":{\"$type\":\"string\"}},\"x.y\":{\"$exists\":false},\"k1\":{\"$mod\":[2,1]},"
    "\"$nor\":[{\"k2\":null}]}')",
    "SELECT doc_match('{\"a\":[{\"b\":\"caf\\u00e9\"}]}', "
    "'{\"a.0.b\":\"café\",\"a\":{\"$elemMatch\":{\"$eq\":{\"b\":\"café\"}}}}')",
    "SELECT doc_update('d', 'w', '{\"$pull\":{\"arr\":{\"$gte\":4},\"caf\u00e9\":{\"a\":{\"$lt\":2}}}}')",
    /* One key, one row (issue 35): the index of another collation is listed first, then the right one. */
    "CREATE TABLE ci(key TEXT COLLATE NOCASE, value, UNIQUE(key))",
    "CREATE UNIQUE INDEX ci_b ON ci(key COLLATE BINARY)",
    "SELECT kv_cas('ci', 'a', NULL, 1), kv_cas('ci', 'A', 1, 2), (SELECT value FROM kv_mget('ci', "
    "'[\"a\"]'))",
    NULL};

static const char *const azGraphs[] = {
    "CREATE TABLE e(a, b, w)", "CREATE INDEX e_a ON e(a)",
    "INSERT INTO e VALUES (1, 2, 1.0), (2, 3, 2.5), (3, 1, 1.0), (3, 4, 0.5), (1, 4, 9), (4, 'x', 1), "
    "(5, 5, 1)",
    "SELECT node, depth, parent FROM graph_walk('e', 'a', 'b', 1)",
    "SELECT node, depth FROM graph_walk('e', 'a', 'b', 4, 2, 'in')",
    "SELECT node, depth, parent FROM graph_walk WHERE source = 'e' AND from_col = 'a' AND to_col = 'b' AND "
    "root IN (1, 5) AND direction = 'both'",
    "SELECT step, node, cost FROM graph_path('e', 'a', 'b', 1, 'x')",
    "SELECT step, node, cost FROM graph_path('e', 'a', 'b', 1, 'x', 'w')",
    /* Weights of one type, no index on b: routes from both ends over the copy with its weights. */
    "CREATE TABLE ew(a, b, w)", "INSERT INTO ew VALUES (1, 2, 1), (2, 3, 2), (1, 3, 3), (3, 4, 1), (2, 4, 3)",
    "SELECT step, node, cost FROM graph_path('ew', 'a', 'b', 1, 4, 'w', 'both')",
    /* Both columns indexed: graph_path seeks from both ends. */
    "CREATE INDEX e_b ON e(b)", "SELECT step, node, cost FROM graph_path('e', 'a', 'b', 1, 'x', 'w', 'both')",
    "SELECT step, node, cost FROM graph_path('e', 'a', 'b', 'x', 2, NULL, 'in')",
    "CREATE TABLE j(id INTEGER PRIMARY KEY, kids)",
    "INSERT INTO j VALUES (1, '[2, 3]'), (2, '[4]'), (3, '[]'), (4, NULL)",
    "SELECT node, depth FROM graph_walk('j', 'id', 'kids', 1, NULL, 'out', 'json')",
    /* The options object (ext/util.c, nosqlOptionsRead()). */
    "SELECT node, depth FROM graph_walk('e', 'a', 'b', 4, '{\"max_depth\": 2, \"direction\": \"in\"}')",
    "SELECT step, node FROM graph_path('e', 'a', 'b', 1, 'x', '{\"weight_col\": \"w\", \"layout\": null}')",
    NULL};

static const char *const azTrees[] = {
    "CREATE TABLE c(id INTEGER PRIMARY KEY, parent INTEGER, who TEXT)",
    "INSERT INTO c VALUES (1, NULL, 'a'), (2, 1, 'b'), (3, 1, 'c'), (4, 2, 'd'), (5, NULL, 'e')",
    "SELECT tree_json(id, parent, json_object('who', who)) FROM c",
    "SELECT tree_json(id, parent, '{ \"x\" : [1, 2] }', 'kids') FROM c",
    "SELECT tree_json('n' || id, 'n' || parent, NULL) FROM c GROUP BY id % 2",
    "SELECT id, parent, depth, ordinal, payload FROM tree_rows((SELECT tree_json(id, parent, "
    "json_object('who', who)) FROM c))",
    "SELECT id, payload FROM tree_rows('{\"id\":\"r\\u00e9\",\"k\":[{\"id\":2.5}]}', 'k')",
    NULL};

static const char *const azGraphBatch[] = {
    "CREATE TABLE e(a, b, w)",
    "INSERT INTO e VALUES (1, 2, 1), (2, 3, 2), (3, 1, 1), (3, 4, 0.5), (4, 5, 1), (5, 4, 1), ('x', 'y', 3), "
    "(1, 1, "
    "1), (2, 3, 1)",
    "SELECT node, rank FROM graph_pagerank('e', 'a', 'b')",
    "SELECT node, rank FROM graph_pagerank('e', 'a', 'b', 0.5, 0, 3, 'w')",
    "SELECT node, component FROM graph_components('e', 'a', 'b')",
    "SELECT node, component FROM graph_scc('e', 'a', 'b')",
    "SELECT node, distance FROM graph_sssp('e', 'a', 'b', 1, 'w')",
    "SELECT node, triangles FROM graph_triangles('e', 'a', 'b')",
    "SELECT node, label FROM graph_label_propagation('e', 'a', 'b')",
    "SELECT node, rank FROM graph_pagerank('e', 'a', 'b', 0.5, 0, 3, 'w', NULL, 'both')",
    "SELECT node, distance FROM graph_sssp('e', 'a', 'b', 4, 'w', NULL, 'in')",
    "SELECT node, component FROM graph_scc('e', 'a', 'b', NULL, 'both')",
    /* personalization and dangling: a JSON object, a table (issue 28). */
    "CREATE TABLE pw(node, weight)", "INSERT INTO pw VALUES (1, 1), ('x', 2.5), (9, 1)",
    "SELECT node, rank FROM graph_pagerank('e', 'a', 'b', NULL, NULL, NULL, NULL, NULL, NULL, '{\"1\": 1, "
    "\"x\": 2, \"3\": 0}', 'pw')",
    /* The options object (ext/util.c, nosqlOptionsRead()). */
    "SELECT node, rank FROM graph_pagerank('e', 'a', 'b', '{\"damping\": 0.5, \"max_iter\": 3, "
    "\"weight_col\": "
    "\"w\", \"personalization\": {\"1\": 1}, \"dangling\": \"pw\"}')",
    NULL};

static const char *const azGraphCentrality[] = {
    "CREATE TABLE e(id INTEGER PRIMARY KEY, a, b, w)",
    "INSERT INTO e(a, b, w) VALUES (1, 2, 1), (2, 3, 2), (3, 1, 1), (3, 4, 0.5), (4, 5, 1), (5, 4, 1), "
    "('x', 'y', 3), (1, 1, 1), (2, 3, 1), (5, 6, 2), (6, 4, 1)",
    "SELECT node, betweenness FROM graph_betweenness('e', 'a', 'b')",
    "SELECT node, betweenness FROM graph_betweenness('e', 'a', 'b', 'w', 0, 1, NULL, NULL, NULL, 'both')",
    "SELECT node, betweenness FROM graph_betweenness('e', 'a', 'b', '{\"samples\": 3, \"seed\": 2}')",
    "SELECT node, closeness FROM graph_closeness('e', 'a', 'b', 'w')",
    "SELECT node, hub, authority FROM graph_hits('e', 'a', 'b', 'w', '{\"max_iter\": 500}')",
    "SELECT node, core FROM graph_core_number('e', 'a', 'b')",
    "SELECT node, clustering FROM graph_clustering('e', 'a', 'b', 'w')",
    "SELECT node, community FROM graph_louvain('e', 'a', 'b', 'w', 1.0, 3)",
    "SELECT node, community FROM graph_louvain('e', 'a', 'b', '{\"resolution\": 2, \"seed\": 5}')",
    "CREATE VIRTUAL TABLE g USING graph_index(e, a, b, weight = w)",
    "SELECT node, community FROM graph_louvain('g', NULL, NULL)",
    "SELECT node, clustering FROM graph_clustering('g', NULL, NULL, 'w')",
    NULL};

static const char *const azFts5Gap[] = {
    "CREATE VIRTUAL TABLE r USING fts5(a, tokenize = 'nosql_gap 5 unicode61')",
    "INSERT INTO r VALUES ('[\"excellent math\", \"poor \\u00e9 poetry\"]'), ('plain text'), ('[1, null, "
    "true]')",
    "SELECT rowid FROM r WHERE r MATCH 'NEAR(excellent poetry, 3)'",
    "SELECT highlight(r, 0, '[', ']') FROM r WHERE r MATCH 'poetry'",
    "DELETE FROM r WHERE rowid = 1",
    NULL};

static const char *const azIndexTable[] = {
    "CREATE TABLE u(id INTEGER PRIMARY KEY, city TEXT COLLATE NOCASE, name TEXT, tags)",
    "INSERT INTO u VALUES (1, 'Oslo', 'Ann', '[\"a\", \"b\", \"a\"]'), (2, 'Rome', 'Bob', NULL), (3, 'oslo', "
    "'Cid', '\"c\"')",
    "CREATE VIRTUAL TABLE u_city USING index_table(u, key = 'city', include = 'name')",
    "CREATE VIRTUAL TABLE u_tag USING index_table(u, key = 'each(tags) AS tag, lower(name) AS n', mode = "
    "'deferred')",
    "INSERT INTO u VALUES (4, 'Lima', 'Dee', '[1, 1.0]')",
    "UPDATE u SET city = 'Kyiv', tags = '[\"z\"]' WHERE id = 2",
    "DELETE FROM u WHERE id = 1",
    "SELECT rowid, city, name FROM u_city WHERE city = 'OSLO' ORDER BY city, rowid",
    "SELECT tag, rowid FROM u_tag WHERE tag = 'a' OR rowid = 3",
    "SELECT kind, base_rowid, key, stored, expected, pending FROM index_table_drift('u_tag')",
    "INSERT INTO u_tag(u_tag) VALUES ('refresh')",
    "INSERT INTO u_city(u_city) VALUES ('rebuild')",
    "INSERT INTO u_city(u_city) VALUES ('integrity-check')",
    "ALTER TABLE u_city RENAME TO u_town",
    "SELECT name FROM u_town WHERE rowid = 2",
    "DROP TABLE u_tag",
    NULL};

static const char *const azGraphIndex[] = {
    "CREATE TABLE e(id INTEGER PRIMARY KEY, src, dst, w, tag UNIQUE)",
    "INSERT INTO e(src, dst, w) VALUES (1, 2, 1), (2, 3, 2), ('a', 1, 1), (3, 3, 4), (1, 2, 1)",
    "CREATE VIRTUAL TABLE g USING graph_index(e, src, dst, weight = w)",
    "CREATE VIRTUAL TABLE gd USING graph_index(e, src, dst, mode = 'deferred')",
    "INSERT INTO e(src, dst, w) VALUES (2, 'b', 1), ('b', 1, 2)",
    "INSERT OR REPLACE INTO e(id, src, dst, w) VALUES (2, 5, 6, 1)",
    "UPDATE e SET dst = 'c' WHERE id = 1",
    "DELETE FROM e WHERE src = 3",
    "SELECT node, out_degree, in_degree FROM g",
    "SELECT node, rank FROM graph_pagerank('g', NULL, NULL)",
    "SELECT node, distance FROM graph_sssp('e', 'src', 'dst', 1, 'w')",
    "SELECT node, depth FROM graph_walk('g', NULL, NULL, 1)",
    "INSERT INTO gd(gd) VALUES ('refresh')",
    "INSERT INTO g(g) VALUES ('integrity-check')",
    "INSERT INTO g(g) VALUES ('rebuild')",
    "ALTER TABLE g RENAME TO g2",
    "INSERT INTO e(src, dst, w) VALUES (7, 8, 1)",
    "INSERT INTO g2(g2) VALUES ('integrity-check')",
    "DROP TABLE gd",
    "CREATE TABLE j(id INTEGER PRIMARY KEY, node UNIQUE, nbrs, w)",
    "INSERT INTO j(node, nbrs, w) VALUES (1, '[2, 3, null, 2]', 1), ('z', '[]', 2), (3, '[1, \"x\"]', 1), "
    "(4, NULL, 1)",
    "CREATE VIRTUAL TABLE gj USING graph_index(j, node, nbrs, weight = w, layout = 'json')",
    "CREATE VIRTUAL TABLE gjd USING graph_index(j, node, nbrs, layout = 'json', mode = 'deferred')",
    "INSERT INTO j(node, nbrs, w) VALUES (5, '[1, 5]', 1)",
    "INSERT OR REPLACE INTO j(id, node, nbrs, w) VALUES (2, 'y', '[\"z\", 4]', 1)",
    "UPDATE j SET nbrs = '[4]' WHERE node = 1",
    "DELETE FROM j WHERE node = 3",
    "SELECT node, out_degree, in_degree FROM gj",
    "SELECT node, component FROM graph_components('gj', NULL, NULL, 'json')",
    "SELECT node, distance FROM graph_sssp('j', 'node', 'nbrs', 1, 'w', 'json')",
    "INSERT INTO gjd(gjd) VALUES ('refresh')",
    "INSERT INTO gj(gj) VALUES ('integrity-check')",
    "INSERT INTO gj(gj) VALUES ('rebuild')",
    NULL};

static const char *const azCompare[] = {
    "CREATE TABLE t(id INTEGER PRIMARY KEY, city TEXT, n)",
    "INSERT INTO t VALUES (1, 'Oslo', 1), (2, 'Rome', 2.5), (3, 'Oslo', 'three'), (4, NULL, x'00ff')",
    "CREATE INDEX t_city ON t(city)",
    "SELECT query, rows, agree, runs FROM nosql_compare('SELECT * FROM t WHERE city = ''Oslo''', "
    "'SELECT * FROM t NOT INDEXED WHERE city = ''Oslo'' ORDER BY id', 3)",
    "SELECT rows, agree FROM nosql_compare('SELECT id FROM t ORDER BY id', 'SELECT id FROM t ORDER BY id "
    "DESC')",
    "SELECT rows, agree FROM nosql_compare('SELECT 1; -- one', 'SELECT 1.0, group_concat(city) FROM t')",
    "SELECT label, label_b FROM nosql_compare('SELECT 1', 'SELECT 2', 1, 'relational', 'nosql')",
    "CREATE VIRTUAL TABLE t_by_city USING index_table(t, key = 'city')",
    "CREATE VIRTUAL TABLE ns USING nested_set(name TEXT)",
    "CREATE TABLE s(k TEXT PRIMARY KEY, v)",
    "CREATE VIRTUAL TABLE cs USING composite_scan(s, k, a, b, sep=':')",
    "SELECT module, plan_words FROM nosql_explain('SELECT * FROM t_by_city c, ns n WHERE c.city > ''O'' AND "
    "n.descendant_of = c.rowid ORDER BY c.city')",
    "SELECT plan_words FROM nosql_explain('SELECT * FROM main.cs x WHERE a = 1')",
    "SELECT plan_words FROM nosql_explain('SELECT * FROM mpath_ranges(''a'') AS r')",
    "SELECT plan_words FROM nosql_explain('SELECT * FROM t_by_city AS ns, mpath_ranges(''a'') AS t_by_city "
    "WHERE ns.city = t_by_city.lo')",
    NULL};

static const OomScript aScript[] = {
    {"geohash", azGeohash},
    {"geo_nearest", azGeoNearest},
    {"mpath", azMpath},
    {"nested_set", azNestedSet},
    {"inverted_index", azInvertedIndex},
    {"inverted_index sync", azInvertedSync},
    {"ckey", azCkey},
    {"documents", azDocuments},
    {"graphs", azGraphs},
    {"trees", azTrees},
    {"graph_batch", azGraphBatch},
    {"graph_centrality", azGraphCentrality},
    {"fts5_gap", azFts5Gap},
    {"index_table", azIndexTable},
    {"graph_index", azGraphIndex},
    {"compare", azCompare},
};

/* The result of one statement: its rows rendered with types, or its error. */
typedef struct OomOut OomOut;
struct OomOut {
  int rc;        /* SQLITE_OK, or the first error */
  char *zText;   /* Rows (system malloc; rendered before the failure point) */
  size_t nText;  /* Bytes in zText */
  size_t nAlloc; /* Bytes allocated at zText */
  char *zError;  /* The error message (system malloc) when rc != SQLITE_OK */
};

/*
** Append to pOut->zText (system malloc: not counted). Grows geometrically:
** a realloc per value is quadratic under ASan, whose realloc always copies.
*/
static void oomAppend(OomOut *pOut, const char *zAdd, int nAdd) {
  size_t nNeed = pOut->nText + (size_t)nAdd + 1;
  if (nNeed > pOut->nAlloc) {
    size_t nNew = pOut->nAlloc ? pOut->nAlloc * 2 : 256;
    char *zNew;
    while (nNew < nNeed) nNew *= 2;
    zNew = (char *)realloc(pOut->zText, nNew);
    if (zNew == NULL) abort();
    pOut->zText = zNew;
    pOut->nAlloc = nNew;
  }
  memcpy(pOut->zText + pOut->nText, zAdd, (size_t)nAdd);
  pOut->nText += (size_t)nAdd;
  pOut->zText[pOut->nText] = 0;
}

/* Run one statement, rendering rows into pOut (system malloc). */
static void oomStmt(sqlite3 *db, const char *zSql, OomOut *pOut) {
  sqlite3_stmt *pStmt = NULL;
  int rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  memset(pOut, 0, sizeof(*pOut));
  oomAppend(pOut, "", 0);
  while (rc == SQLITE_OK && (rc = sqlite3_step(pStmt)) == SQLITE_ROW) {
    int i;
    for (i = 0; i < sqlite3_column_count(pStmt); i++) {
      char aType[4];
      const unsigned char *z = sqlite3_column_text(pStmt, i);
      int eType = sqlite3_column_type(pStmt, i);
      if (z == NULL && eType != SQLITE_NULL) {
        /* The text conversion itself ran out of memory. */
        rc = SQLITE_NOMEM;
        break;
      }
      snprintf(aType, sizeof(aType), "%d:", eType);
      oomAppend(pOut, aType, (int)strlen(aType));
      if (z) oomAppend(pOut, (const char *)z, sqlite3_column_bytes(pStmt, i));
      oomAppend(pOut, "|", 1);
    }
    if (rc == SQLITE_NOMEM) break;
    oomAppend(pOut, "\n", 1);
    rc = SQLITE_OK;
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  pOut->rc = rc;
  if (rc != SQLITE_OK) {
    const char *zErr = sqlite3_errmsg(db);
    pOut->zError = strdup(zErr ? zErr : "");
    if (pOut->zError == NULL) abort();
  }
  sqlite3_finalize(pStmt);
}

static void oomOutFree(OomOut *p) {
  free(p->zText);
  free(p->zError);
  memset(p, 0, sizeof(*p));
}

static int oomVerbose;

/*
** Run the script with the Nth allocation failing (0: none). Compares with
** aRef (NULL: fills it). Returns 0 if the run was clean, 1 if not; sets
** *pbFired when the failure happened.
*/
/* Statements a script may have (the reference outputs are kept on the stack). */
#define OOM_MAX_STMT 64

static int oomRun(const OomScript *pScript, int iFail, OomOut *aRef, int *pbFired) {
  sqlite3 *db = NULL;
  int64_t nBefore = oomOutstanding;
  int nBad = 0, i, rc;
  oomFired = 0;
  oomCountdown = iFail;
  oomArmed = iFail > 0;
  rc = sqlite3_open(":memory:", &db);
  if (rc != SQLITE_OK) {
    if (!oomFired || (rc & 0xff) != SQLITE_NOMEM) {
      printf("FAIL %s N=%d: open returned %d (%s)\n", pScript->zName, iFail, rc,
             db ? sqlite3_errmsg(db) : "");
      nBad++;
    }
  } else {
    for (i = 0; pScript->azStmt[i]; i++) {
      OomOut out;
      oomStmt(db, pScript->azStmt[i], &out);
      if (aRef == NULL) {
        printf("FAIL %s: no reference\n", pScript->zName);
        nBad++;
      } else if (iFail == 0) {
        aRef[i] = out;
        if (out.rc != SQLITE_OK) {
          printf("FAIL %s: reference run: %s\n  in: %s\n", pScript->zName, out.zError, pScript->azStmt[i]);
          nBad++;
        }
        continue;
      } else if (out.rc != SQLITE_OK) {
        int bNomem = (out.rc & 0xff) == SQLITE_NOMEM || strstr(out.zError, "out of memory") != NULL;
        if (!bNomem || !oomFired) {
          printf("FAIL %s N=%d: %s error %d (%s) where the reference succeeded\n  in: %s\n", pScript->zName,
                 iFail, oomFired ? "after the failed allocation," : "without a failed allocation,", out.rc,
                 out.zError, pScript->azStmt[i]);
          nBad++;
        }
        oomOutFree(&out);
        break;
      } else if (strcmp(out.zText, aRef[i].zText) != 0) {
        printf(
            "FAIL %s N=%d: a different result after a failed allocation\n  in: %s\n  got: %.200s\n  "
            "expected: "
            "%.200s\n",
            pScript->zName, iFail, pScript->azStmt[i], out.zText, aRef[i].zText);
        nBad++;
        oomOutFree(&out);
        break;
      }
      oomOutFree(&out);
    }
  }
  oomArmed = 0;
  rc = sqlite3_close(db);
  if (rc != SQLITE_OK) {
    printf("FAIL %s N=%d: sqlite3_close returned %d (%s): a statement was left open\n", pScript->zName, iFail,
           rc, sqlite3_errmsg(db));
    sqlite3_close_v2(db);
    nBad++;
  }
  if (oomOutstanding != nBefore) {
    printf("FAIL %s N=%d: %lld allocations leaked\n", pScript->zName, iFail,
           (long long)(oomOutstanding - nBefore));
    nBad++;
  }
  *pbFired = oomFired;
  return nBad ? 1 : 0;
}

int main(int argc, char **argv) {
  static sqlite3_mem_methods mem;
  int nStep = 1, nPass = 0, nFail = 0, k, iFrom = 1;
  const char *zOnly = NULL;
  size_t iScript;
  for (k = 1; k < argc; k++) {
    if (strcmp(argv[k], "--step") == 0 && k + 1 < argc) {
      nStep = atoi(argv[++k]);
    } else if (strcmp(argv[k], "--from") == 0 && k + 1 < argc) {
      iFrom = atoi(argv[++k]);
    } else if (strcmp(argv[k], "--persist") == 0) {
      oomPersist = 1;
    } else if (strcmp(argv[k], "--only") == 0 && k + 1 < argc) {
      zOnly = argv[++k];
    } else if (strcmp(argv[k], "-v") == 0) {
      oomVerbose = 1;
    } else {
      fprintf(stderr, "usage: oom [--step K] [--from N] [--persist] [--only NAME] [-v]\n");
      return 2;
    }
  }
  if (nStep < 1) nStep = 1;
  setvbuf(stdout, NULL, _IOLBF, 0);
  sqlite3_config(SQLITE_CONFIG_GETMALLOC, &oomDefault);
  mem = oomDefault;
  mem.xMalloc = oomMalloc;
  mem.xFree = oomFree;
  mem.xRealloc = oomRealloc;
  mem.xSize = oomSize;
  mem.xRoundup = oomRoundup;
  mem.xInit = oomInit;
  mem.xShutdown = oomShutdown;
  /* No lookaside: small allocations then go through the failing allocator too. */
  if (sqlite3_config(SQLITE_CONFIG_MALLOC, &mem) != SQLITE_OK ||
      sqlite3_config(SQLITE_CONFIG_LOOKASIDE, 0, 0) != SQLITE_OK) {
    printf("FAIL sqlite3_config: the library was initialised already\n0 passed, 1 failed\n");
    return 1;
  }
  sqlite3_auto_extension((void (*)(void))sqlite3_nosql_init);
  for (iScript = 0; iScript < sizeof(aScript) / sizeof(aScript[0]); iScript++) {
    const OomScript *p = &aScript[iScript];
    OomOut aRef[OOM_MAX_STMT];
    int nStmt = 0, iFail, bFired = 1, nRun = 0, nBad = 0;
    if (zOnly && strcmp(zOnly, p->zName) != 0) continue;
    while (p->azStmt[nStmt]) nStmt++;
    if (nStmt > OOM_MAX_STMT) {
      printf("FAIL %s: %d statements, more than OOM_MAX_STMT (%d)\n", p->zName, nStmt, OOM_MAX_STMT);
      nFail++;
      continue;
    }
    memset(aRef, 0, sizeof(aRef));
    /* Twice unarmed: the first run may leave global state (memory SQLite keeps for the process). */
    oomRun(p, 0, aRef, &bFired);
    for (k = 0; k < nStmt; k++) oomOutFree(&aRef[k]);
    if (oomRun(p, 0, aRef, &bFired)) {
      for (k = 0; k < nStmt; k++) oomOutFree(&aRef[k]);
      nFail++;
      continue;
    }
    for (iFail = iFrom, bFired = 1; bFired; iFail += nStep) {
      int bBad;
      if (oomVerbose) printf("run %s N=%d\n", p->zName, iFail);
      bBad = oomRun(p, iFail, aRef, &bFired);
      nRun++;
      nBad += bBad;
      if (bBad && nBad >= 10) {
        printf("FAIL %s: stopping after 10 failed runs\n", p->zName);
        break;
      }
    }
    for (k = 0; k < nStmt; k++) oomOutFree(&aRef[k]);
    printf("%s %s: %d runs (allocations 1 to %d, step %d), %d failed\n", nBad ? "FAIL" : "ok", p->zName, nRun,
           iFail - nStep, nStep, nBad);
    if (nBad)
      nFail++;
    else
      nPass++;
  }
  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail ? 1 : 0;
}
