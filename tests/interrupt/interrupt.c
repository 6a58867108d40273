/*
** interrupt.c: sqlite3_interrupt() and the progress handler stop the scans
** of every virtual table of the extension, cleanly.
**
** For each module, a query that scans it (many rows, or many calls of a
** table-valued function) is run to completion once for its reference rows.
** Then it is run again many times, each time stopped at a different point:
**
**   progress  a progress handler called at every VM instruction (of the
**             query and of the statements the module runs itself) returns
**             1 at its kth call, for k spread over the whole run;
**   interrupt tick(), called once per result row, calls sqlite3_interrupt()
**             at the kth row.
**
** Each stopped run must end with SQLITE_INTERRUPT ("interrupted"), never
** another error (a module taking the interrupt of its own statement for
** corrupt data, say) and never a shorter result presented as complete;
** the rows it returned first must be the reference's first rows. The query
** then runs again, unstopped, and must return the reference rows; at the
** end the writable modules' 'integrity-check' and PRAGMA integrity_check
** pass.
**
**   build/interrupt [--points N] [--only NAME] [-v]
**
** --points: stopping points per query and mechanism (default 60; make test
** uses fewer).
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "nosql.h"

static int intVerbose;    /* -v: one line per query */
static int64_t intCalls;  /* Progress-handler calls (or tick() rows) so far */
static int64_t intStopAt; /* Stop at this call; 0: never */
static int intStopped;    /* True once the stop happened */

static int intProgress(void *pArg) {
  (void)pArg;
  intCalls++;
  if (intStopAt > 0 && intCalls == intStopAt) {
    intStopped = 1;
    return 1;
  }
  return 0;
}

/* tick(): NULL; calls sqlite3_interrupt() at the intStopAt-th call. */
static void intTick(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  (void)argv;
  intCalls++;
  if (intStopAt > 0 && intCalls == intStopAt) {
    intStopped = 1;
    sqlite3_interrupt(sqlite3_context_db_handle(ctx));
  }
  sqlite3_result_null(ctx);
}

/*
** One module's scan: the query's first column is tick(). Or a command
** that rewrites the module's storage (zCheck not NULL): it returns no rows,
** is stopped by the progress handler only, and after each stop zCheck
** (the module's 'integrity-check') must pass.
*/
typedef struct IntCase IntCase;
struct IntCase {
  const char *zName;  /* Module */
  const char *zQuery; /* Scans the module; column 0 must be tick() */
  const char *zCheck; /* For a command: the check after each stop */
};

static const char zSetup[] =
    "CREATE VIRTUAL TABLE ns USING nested_set(name TEXT);"
    "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1500)"
    " INSERT INTO ns(id, parent, name) SELECT i, CASE WHEN i = 1 THEN NULL ELSE i / 2 END, 'n' || i FROM c;"
    "CREATE VIRTUAL TABLE ii USING inverted_index(tag, grp);"
    "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1500)"
    " INSERT INTO ii(rowid, tag, grp) SELECT i, json_array('all', 't' || (i % 10)), 'g' || (i % 7) FROM c;"
    "CREATE VIRTUAL TABLE ii_facets USING inverted_index_facets(ii);"
    "CREATE VIRTUAL TABLE ii_vocab USING inverted_index_vocab(ii);"
    "CREATE VIRTUAL TABLE inn USING inverted_index(s NESTED(k, l), m NESTED(x) NUMBERED);"
    "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1500)"
    " INSERT INTO inn(rowid, s, m) SELECT i, json_array(json_object('k', 'k' || (i % 9), 'l', 'l' || (i % "
    "4)),"
    " json_object('k', 'all')), json_array(json_object('x', 'all'), json_object('x', 'x' || (i % 5))) FROM c;"
    "CREATE VIRTUAL TABLE inn_facets USING inverted_index_facets(inn);"
    "CREATE TABLE isrc(id INTEGER PRIMARY KEY, tag, s);"
    "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1500)"
    " INSERT INTO isrc SELECT i, json_array('all', 't' || (i % 10)), json_array(json_object('k', 'k' || (i % "
    "9))) FROM c;"
    "CREATE VIRTUAL TABLE ic USING inverted_index(tag, s NESTED(k), content=isrc);"
    "INSERT INTO ic(ic) VALUES ('rebuild');"
    "CREATE VIRTUAL TABLE icd USING inverted_index(tag, s NESTED(k), content=isrc, direct=off);"
    "INSERT INTO icd(icd) VALUES ('rebuild');"
    "CREATE TABLE isy(id INTEGER PRIMARY KEY, tag, s, u UNIQUE);"
    "INSERT INTO isy SELECT id, tag, s, id FROM isrc;"
    "CREATE VIRTUAL TABLE isx USING inverted_index(tag, s NESTED(k), content=isy, mode='sync');"
    "CREATE VIRTUAL TABLE ids USING inverted_index(tag, s NESTED(k), direct=off);"
    "INSERT INTO ids(rowid, tag, s) SELECT id, tag, s FROM isrc;"
    "CREATE VIRTUAL TABLE irg USING inverted_index(tag, p RANGE);"
    "INSERT INTO irg(rowid, tag, p) SELECT id, tag, (id * 7919 % 1000) / 10.0 - 20 FROM isrc;"
    "CREATE VIRTUAL TABLE irg_facets USING inverted_index_facets(irg);"
    "CREATE TABLE s(k TEXT PRIMARY KEY, v);"
    "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1500)"
    " INSERT INTO s SELECT ckey_join(':', 'S' || (i % 5), 'C' || (i % 11), i), i FROM c;"
    "CREATE VIRTUAL TABLE cs USING composite_scan(s, k, state, city, id, sep=':');"
    "CREATE TABLE b(k BLOB PRIMARY KEY) WITHOUT ROWID;"
    "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1500)"
    " INSERT INTO b SELECT ckey('x' || (i % 3), i) FROM c;"
    "CREATE VIRTUAL TABLE cb USING composite_scan(b, k, s TEXT, n INTEGER);"
    "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1500)"
    " SELECT count(kv_incr('c' || i)) FROM c;"
    "CREATE TABLE e(a INTEGER, b INTEGER, w REAL);"
    "CREATE INDEX e_a ON e(a);"
    "CREATE INDEX e_b ON e(b);"
    "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1500)"
    " INSERT INTO e SELECT i / 2, i, 1 + i % 7 FROM c WHERE i > 1 UNION ALL SELECT i, (i * 7) % 1500 + 1, 3"
    " FROM c;"
    "CREATE TABLE d(key TEXT PRIMARY KEY, doc, version INTEGER);"
    "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1500)"
    " INSERT INTO d SELECT 'k' || i, json_object('n', i, 'tags', json_array('t' || (i % 5)), 'o',"
    " json_object('x', i % 3)), 1 FROM c;"
    "CREATE TABLE kv(key TEXT PRIMARY KEY, value);"
    "INSERT INTO kv SELECT key, version FROM d;"
    "CREATE TABLE people(id INTEGER PRIMARY KEY, city TEXT, tags);"
    "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1500)"
    " INSERT INTO people SELECT i, 'c' || (i % 13), json_array('t' || (i % 5), 't' || (i % 7)) FROM c;"
    "CREATE VIRTUAL TABLE people_city USING index_table(people, key = 'city');"
    "CREATE VIRTUAL TABLE people_tag USING index_table(people, key = 'each(tags) AS tag', mode = 'deferred');"
    "UPDATE people SET tags = json_array('u' || (id % 3)) WHERE id % 2 = 0;"
    "CREATE TABLE ge(id INTEGER PRIMARY KEY, a INTEGER, b INTEGER, w REAL);"
    "CREATE INDEX ge_a ON ge(a); CREATE INDEX ge_b ON ge(b);"
    "INSERT INTO ge(a, b, w) SELECT a, b, w FROM e;"
    "CREATE VIRTUAL TABLE gi USING graph_index(ge, a, b, weight = w);"
    "CREATE VIRTUAL TABLE gid USING graph_index(ge, a, b, mode = 'deferred');"
    "UPDATE ge SET b = b + 1 WHERE id % 5 = 0;"
    "CREATE TABLE gpts(id INTEGER PRIMARY KEY, lat REAL, lon REAL, gh TEXT AS (geohash(lat, lon)));"
    "CREATE INDEX gpts_gh ON gpts(gh, lat, lon);"
    "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 3000) INSERT INTO gpts(lat, "
    "lon)"
    " SELECT (i * 7919 % 17999) / 100.0 - 89.99, (i * 104729 % 35999) / 100.0 - 179.99 FROM c;"
    "CREATE TABLE gplain(lat REAL, lon REAL); INSERT INTO gplain SELECT lat, lon FROM gpts;"
    "CREATE TABLE many(i INTEGER PRIMARY KEY);"
    "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 300) INSERT INTO many SELECT i "
    "FROM c;";

static const IntCase aCase[] = {
    {"nosql_explain",
     "SELECT tick(), m.i, x.module, x.plan_words FROM many m, nosql_explain('SELECT * FROM people_city WHERE "
     "city = "
     "''c' || m.i || ''' AND rowid > ' || m.i) x",
     0},
    {"nosql_compare",
     "SELECT tick(), m.i, c.rows, c.agree FROM many m, nosql_compare('SELECT count(*) FROM e WHERE a < ' || "
     "m.i, "
     "'SELECT count(*) FROM e NOT INDEXED WHERE a < ' || m.i, 2) c",
     0},
    {"nosql_compare",
     "SELECT tick(), query, rows, agree FROM nosql_compare('SELECT a, b FROM e', 'SELECT a, b FROM e ORDER "
     "BY b')",
     0},
    {"index_table", "SELECT tick(), city, rowid FROM people_city", 0},
    {"index_table", "SELECT tick(), m.i, p.rowid FROM many m, people_city p WHERE p.city = 'c' || (m.i % 13)",
     0},
    {"index_table_drift", "SELECT tick(), kind, base_rowid FROM index_table_drift('people_tag')", 0},
    {"index_table", "INSERT INTO people_city(people_city) VALUES ('rebuild')",
     "INSERT INTO people_city(people_city) VALUES ('integrity-check')"},
    {"index_table", "INSERT INTO people_tag(people_tag) VALUES ('refresh')",
     "INSERT INTO people_tag(people_tag) VALUES ('check')"},
    {"graph_index", "SELECT tick(), node, out_degree, in_degree FROM gi", 0},
    {"graph_index", "SELECT tick(), node, rank FROM graph_pagerank('gi', NULL, NULL)", 0},
    {"graph_index", "SELECT tick(), node, distance FROM graph_sssp('ge', 'a', 'b', 1, 'w')", 0},
    {"graph_index", "INSERT INTO gi(gi) VALUES ('rebuild')", "INSERT INTO gi(gi) VALUES ('integrity-check')"},
    {"graph_index", "INSERT INTO gid(gid) VALUES ('refresh')",
     "INSERT INTO gid(gid) VALUES ('integrity-check')"},
    {"nested_set", "SELECT tick(), id, depth FROM ns WHERE descendant_of = 1", 0},
    {"nested_set", "SELECT tick(), id FROM ns WHERE leaves_of = 2", 0},
    {"nested_set", "SELECT tick(), m.i, n.id FROM many m, ns n WHERE n.ancestor_of = m.i * 5", 0},
    {"nested_set", "SELECT tick(), id, name FROM ns", 0},
    {"inverted_index", "SELECT tick(), rowid, grp FROM ii WHERE ii MATCH 'tag:all'", 0},
    {"inverted_index", "SELECT tick(), rowid FROM ii WHERE ii MATCH 'NOT tag:t3 AND grp:g2 OR tag:t1'", 0},
    {"inverted_index",
     "SELECT tick(), m.i, (SELECT count(*) FROM ii WHERE ii MATCH 'tag:t' || (m.i % 10)) FROM many m", 0},
    {"inverted_index_facets",
     "SELECT tick(), query, field, term, docs FROM ii_facets WHERE query = 'tag:all'", 0},
    {"inverted_index_vocab", "SELECT tick(), field, term, docs FROM ii_vocab", 0},
    {"inverted_index RANGE", "SELECT tick(), rowid FROM irg WHERE irg MATCH 'p:[0 TO 50] AND NOT tag:t3'", 0},
    {"inverted_index RANGE",
     "SELECT tick(), m.i, (SELECT count(*) FROM irg WHERE irg MATCH 'p:>=' || (m.i % 80)) FROM many m", 0},
    {"inverted_index RANGE",
     "SELECT tick(), term, docs FROM irg_facets WHERE field = 'p' AND ranges = '[0, 20, 40]' AND query = "
     "'tag:all'",
     0},
    {"inverted_index RANGE", "UPDATE irg SET p = p + 1 WHERE rowid % 3 = 0",
     "INSERT INTO irg(irg) VALUES ('integrity-check')"},
    {"inverted_index NESTED",
     "SELECT tick(), rowid FROM inn WHERE inn MATCH 's:{k:all AND NOT l:l1} AND m:{x:all}'", 0},
    {"inverted_index NESTED",
     "SELECT tick(), m.i, (SELECT count(*) FROM inn WHERE inn MATCH 's:{k:k' || (m.i % 9) || '}') FROM many "
     "m",
     0},
    {"inverted_index NESTED", "SELECT tick(), field, term, docs FROM inn_facets WHERE query = 's:{k:all}'",
     0},
    {"inverted_index NESTED", "UPDATE inn SET s = '[{\"k\":\"new\"},{\"l\":\"l1\"}]' WHERE rowid % 3 = 0",
     "INSERT INTO inn(inn) VALUES ('integrity-check')"},
    {"inverted_index NESTED", "INSERT INTO inn(inn) VALUES ('optimize')",
     "INSERT INTO inn(inn) VALUES ('integrity-check')"},
    {"composite_scan", "SELECT tick(), k, v FROM cs WHERE state = 'S1'", 0},
    {"composite_scan", "SELECT tick(), k, v FROM cs", 0},
    {"composite_scan", "SELECT tick(), s, n FROM cb WHERE s = 'x1' AND n > 10", 0},
    {"kv_counters", "SELECT tick(), name, value FROM kv_counters", 0},
    {"mpath_ranges", "SELECT tick(), m.i, g.lo, g.hi FROM many m, mpath_ranges('a.b' || m.i) g", 0},
    {"geo_nearest",
     "SELECT tick(), m.i, n.id FROM many m, geo_nearest('gpts', 'lat', 'lon', m.i % 90, m.i % 180, 5) n", 0},
    {"geo_nearest",
     "SELECT tick(), m.i, n.id FROM many m, geo_nearest('gplain', 'lat', 'lon', m.i % 90, -m.i % 180, 2) n",
     0},
    {"geohash_cover", "SELECT tick(), lo, hi FROM geohash_cover(10, 20, 3000000)", 0},
    {"geohash_cover",
     "SELECT tick(), m.i, count(*) FROM many m, geohash_cover(m.i % 80, m.i % 180, 50000) GROUP BY m.i", 0},
    {"geohash_cover_box", "SELECT tick(), m.i, c.lo FROM many m, geohash_cover_box(0, 0, 1 + m.i % 3, 2) c",
     0},
    {"geohash_cover_bits",
     "SELECT tick(), m.i, count(*) FROM many m, geohash_cover_bits(m.i % 80, m.i % 180, 50000) GROUP BY m.i",
     0},
    {"geohash_cover_box_bits",
     "SELECT tick(), m.i, c.lo FROM many m, geohash_cover_box_bits(0, 0, 1 + m.i % 3, 2) c", 0},
    {"geohash_decode",
     "SELECT tick(), m.i, d.lat FROM many m, geohash_decode(geohash(m.i % 80, m.i % 180, 7)) d", 0},
    {"geohash_neighbors",
     "SELECT tick(), m.i, n.hash FROM many m, geohash_neighbors(geohash(m.i % 80, 1, 5)) n", 0},
    {"geo_bbox", "SELECT tick(), m.i, b.min_lat FROM many m, geo_bbox(m.i % 80, 179.9, 100000) b", 0},
    {"graph_walk", "SELECT tick(), node, depth, parent FROM graph_walk('e', 'a', 'b', 1)", 0},
    {"graph_walk", "SELECT tick(), node, depth FROM graph_walk('e', 'a', 'b', 700, NULL, 'both')", 0},
    {"graph_walk", "SELECT tick(), m.i, count(*) FROM many m, graph_walk('e', 'a', 'b', m.i, 2) GROUP BY m.i",
     0},
    {"graph_path", "SELECT tick(), step, node, cost FROM graph_path('e', 'a', 'b', 1, 1499, 'w')", 0},
    {"graph_path", "SELECT tick(), m.i, p.node FROM many m, graph_path('e', 'a', 'b', 1, m.i * 5) p", 0},
    {"tree_rows",
     "SELECT tick(), id, parent, depth FROM tree_rows((SELECT tree_json(i, i / 2, json_object('v', i)) FROM "
     "many))",
     0},
    {"tree_rows", "SELECT tick(), m.i, t.id FROM many m, tree_rows(json_array(json_object('id', m.i))) t", 0},
    {"graph_pagerank", "SELECT tick(), node, rank FROM graph_pagerank('e', 'a', 'b', 0.85, 0, 50)", 0},
    {"graph_components", "SELECT tick(), node, component FROM graph_components('e', 'a', 'b')", 0},
    {"graph_scc", "SELECT tick(), node, component FROM graph_scc('e', 'a', 'b')", 0},
    {"graph_sssp", "SELECT tick(), node, distance FROM graph_sssp('e', 'a', 'b', 1, 'w')", 0},
    {"graph_triangles", "SELECT tick(), node, triangles FROM graph_triangles('e', 'a', 'b')", 0},
    {"graph_label_propagation", "SELECT tick(), node, label FROM graph_label_propagation('e', 'a', 'b')", 0},
    {"graph_betweenness",
     "SELECT tick(), node, betweenness FROM graph_betweenness('e', 'a', 'b', 'w', NULL, NULL, 150)", 0},
    {"graph_betweenness",
     "SELECT tick(), node, betweenness FROM graph_betweenness('e', 'a', 'b', '{\"samples\": 50}')", 0},
    {"graph_closeness",
     "SELECT tick(), node, closeness FROM graph_closeness('e', 'a', 'b', NULL, 1, NULL, 'both')", 0},
    {"graph_hits", "SELECT tick(), node, hub, authority FROM graph_hits('e', 'a', 'b', 'w', 1000)", 0},
    {"graph_core_number", "SELECT tick(), node, core FROM graph_core_number('e', 'a', 'b')", 0},
    {"graph_clustering", "SELECT tick(), node, clustering FROM graph_clustering('e', 'a', 'b', 'w')", 0},
    {"graph_louvain", "SELECT tick(), node, community FROM graph_louvain('e', 'a', 'b', 'w')", 0},
    {"graph_index",
     "SELECT tick(), node, betweenness FROM graph_betweenness('gi', NULL, NULL, NULL, NULL, NULL, 100)", 0},
    {"kv_mget", "SELECT tick(), key, value FROM kv_mget('kv', (SELECT json_group_array(key) FROM kv))", 0},
    {"doc_schema", "SELECT tick(), path, type, docs FROM doc_schema('d', 'doc')", 0},
    {"doc_match",
     "SELECT tick(), m.i FROM many m WHERE doc_match(json_object('a', m.i % 7, 's', 'x' || m.i, 't', "
     "json_array(m.i "
     "% 3, json_object('k', m.i % 5))), "
     "'{\"$or\":[{\"a\":{\"$gte\":3}},{\"t.k\":2}],\"s\":{\"$regex\":\"1\"}}')",
     0},
    {"doc_match",
     "SELECT tick(), m.i, doc_match('{\"n\":' || m.i || '}', '{\"n\":{\"$mod\":[' || (m.i % 4 + 1) || "
     "',0]}}') FROM many m",
     0},
    /* Issue 27's operators, idempotent after the first run (the reruns must return the same rows). */
    {"doc_update",
     "SELECT tick(), m.i, doc_update('d', 'k' || m.i, '{\"$push\":{\"tags\":{\"$each\":[\"t9\",\"a\"],"
     "\"$sort\":1,\"$slice\":-3,\"$position\":0}},\"$max\":{\"o.x\":1},\"$bit\":{\"n\":{\"and\":-1}},"
     "\"$pullAll\":{\"z\":[1]},\"$min\":{\"lo\":0},\"$currentDate\":{\"seen\":true}}') IS NOT NULL FROM "
     "many m",
     0},
    {"doc_update",
     "SELECT tick(), m.i, doc_update('d', 'k' || m.i, "
     "'{\"$set\":{\"tags.$[t]\":\"t9\",\"p.2\":1},"
     "\"$max\":{\"tags.$[]\":\"a\"},\"$rename\":{\"nope\":\"r\"}}', "
     "'{\"arrayFilters\":[{\"t\":\"t1\"}]}') "
     "IS NOT NULL FROM many m "
     "WHERE m.i < 100",
     0},
    {"doc_upsert",
     "SELECT tick(), m.i, doc_upsert('d', 'u' || (m.i % 50), "
     "'{\"$setOnInsert\":{\"c\":1},\"$max\":{\"m\":2}}') "
     "IS NOT NULL FROM many m",
     0},
    {"kv_pairs", "SELECT tick(), m.i, p.key FROM many m, kv_pairs('p', json_object('a', m.i, 'b', '[1]')) p",
     0},
    {"rb_iterate", "SELECT tick(), value FROM rb_iterate((SELECT rb_build_agg(i * 7) FROM many))", 0},
    {"nested_set", "INSERT INTO ns(ns) VALUES ('rebuild')", "INSERT INTO ns(ns) VALUES ('integrity-check')"},
    {"nested_set", "UPDATE ns SET parent = 3 WHERE id = 4", "INSERT INTO ns(ns) VALUES ('integrity-check')"},
    {"inverted_index", "INSERT INTO ii(ii) VALUES ('rebuild')",
     "INSERT INTO ii(ii) VALUES ('integrity-check')"},
    {"inverted_index content=", "INSERT INTO ic(ic) VALUES ('rebuild')",
     "INSERT INTO ic(ic) VALUES ('integrity-check')"},
    {"inverted_index mode=sync", "UPDATE isy SET tag = json_array('up', id % 4) WHERE id % 3 = 0",
     "INSERT INTO isx(isx) VALUES ('integrity-check')"},
    {"inverted_index mode=sync",
     "INSERT OR REPLACE INTO isy SELECT id + 1, 'r', NULL, u FROM isy WHERE id % 5 = 0",
     "INSERT INTO isx(isx) VALUES ('integrity-check')"},
    {"inverted_index mode=sync", "INSERT INTO isx(isx) VALUES ('rebuild')",
     "INSERT INTO isx(isx) VALUES ('integrity-check')"},
    {"inverted_index direct=off", "INSERT INTO icd(icd) VALUES ('rebuild')",
     "INSERT INTO icd(icd) VALUES ('integrity-check')"},
    {"inverted_index direct=off", "INSERT INTO icd(icd) VALUES ('optimize')",
     "INSERT INTO icd(icd) VALUES ('integrity-check')"},
    {"inverted_index direct=off", "SELECT tick(), rowid FROM icd WHERE icd MATCH 'tag:all AND NOT s:{k:k1}'",
     0},
    {"inverted_index direct=off, values stored", "INSERT INTO ids(ids) VALUES ('rebuild')",
     "INSERT INTO ids(ids) VALUES ('integrity-check')"},
    {"inverted_index direct=off, values stored",
     "UPDATE ids SET tag = 'moved', rowid = rowid + 5000 WHERE rowid % 3 = 0",
     "INSERT INTO ids(ids) VALUES ('integrity-check')"},
    {"inverted_index direct=off, values stored", "DELETE FROM ids WHERE ids MATCH 'tag:t4'",
     "INSERT INTO ids(ids) VALUES ('integrity-check')"},
    {"inverted_index", "INSERT INTO ii(ii) VALUES ('optimize')",
     "INSERT INTO ii(ii) VALUES ('integrity-check')"},
    {"inverted_index", "UPDATE ii SET grp = 'g9' WHERE rowid % 3 = 0",
     "INSERT INTO ii(ii) VALUES ('integrity-check')"},
};

/* Rows rendered as text, one per line (system malloc). */
typedef struct IntOut IntOut;
struct IntOut {
  char *z;       /* Rendered rows */
  size_t n;      /* Bytes */
  size_t nAlloc; /* Bytes allocated at z */
  int nRow;      /* Rows */
};

/* Grows geometrically: a realloc per value was quadratic under ASan, whose realloc always copies. */
static void intAppend(IntOut *p, const char *z, size_t n) {
  if (p->n + n + 1 > p->nAlloc) {
    size_t nNew = p->nAlloc ? p->nAlloc * 2 : 256;
    char *zNew;
    while (nNew < p->n + n + 1) nNew *= 2;
    zNew = (char *)realloc(p->z, nNew);
    if (zNew == NULL) abort();
    p->z = zNew;
    p->nAlloc = nNew;
  }
  memcpy(p->z + p->n, z, n);
  p->n += n;
  p->z[p->n] = 0;
}

/* Run zSql, rendering every row (from column 1 on) into pOut; returns the final result code. */
static int intRun(sqlite3 *db, const char *zSql, IntOut *pOut, char *zErr, size_t nErr) {
  sqlite3_stmt *pStmt = NULL;
  int rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  memset(pOut, 0, sizeof(*pOut));
  intAppend(pOut, "", 0);
  while (rc == SQLITE_OK && (rc = sqlite3_step(pStmt)) == SQLITE_ROW) {
    int i;
    for (i = 1; i < sqlite3_column_count(pStmt); i++) {
      const char *z = (const char *)sqlite3_column_text(pStmt, i);
      intAppend(pOut, z ? z : "NULL", z ? (size_t)sqlite3_column_bytes(pStmt, i) : 4);
      intAppend(pOut, "|", 1);
    }
    intAppend(pOut, "\n", 1);
    pOut->nRow++;
    rc = SQLITE_OK;
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  snprintf(zErr, nErr, "%s", rc == SQLITE_OK ? "" : sqlite3_errmsg(db));
  sqlite3_finalize(pStmt);
  return rc;
}

/*
** Stop the query at call k of the progress handler (bTick 0) or of tick()
** (bTick 1); returns 1 if the run was wrong, and sets *pbStopped.
*/
static int intTrial(sqlite3 *db, const IntCase *p, const IntOut *pRef, int bTick, int64_t k, int *pbStopped) {
  IntOut out;
  char zErr[200];
  int rc, nBad = 0;
  intCalls = 0;
  intStopAt = k;
  intStopped = 0;
  if (!bTick) sqlite3_progress_handler(db, 1, intProgress, 0);
  rc = intRun(db, p->zQuery, &out, zErr, sizeof(zErr));
  sqlite3_progress_handler(db, 0, 0, 0);
  intStopAt = 0;
  *pbStopped = intStopped;
  if (!intStopped) {
    if (rc != SQLITE_OK || strcmp(out.z, pRef->z) != 0) {
      printf("FAIL %s: %s at %lld never fired, yet the result differs (rc %d, %s)\n  in: %s\n", p->zName,
             bTick ? "interrupt" : "progress", (long long)k, rc, zErr, p->zQuery);
      nBad++;
    }
  } else if (rc == SQLITE_OK) {
    /* Stopped after the last row: the query may finish, but only with every row. */
    if (strcmp(out.z, pRef->z) != 0) {
      printf("FAIL %s: stopped by %s at %lld, returned %d rows as complete (reference %d)\n  in: %s\n",
             p->zName, bTick ? "interrupt" : "progress", (long long)k, out.nRow, pRef->nRow, p->zQuery);
      nBad++;
    }
  } else if (rc != SQLITE_INTERRUPT) {
    printf("FAIL %s: stopped by %s at %lld: error %d (%s), expected SQLITE_INTERRUPT\n  in: %s\n", p->zName,
           bTick ? "interrupt" : "progress", (long long)k, rc, zErr, p->zQuery);
    nBad++;
  } else if (strncmp(out.z, pRef->z, out.n) != 0) {
    printf(
        "FAIL %s: stopped by %s at %lld: the %d rows before the stop are not the reference's first rows\n"
        "  in: %s\n",
        p->zName, bTick ? "interrupt" : "progress", (long long)k, out.nRow, p->zQuery);
    nBad++;
  }
  free(out.z);
  if (intStopped && p->zCheck) {
    char *zMsg = NULL;
    if (sqlite3_exec(db, p->zCheck, 0, 0, &zMsg) != SQLITE_OK) {
      printf("FAIL %s: after a stop by progress at %lld: %s\n  in: %s\n", p->zName, (long long)k, zMsg,
             p->zQuery);
      nBad++;
    }
    sqlite3_free(zMsg);
  }
  if (intStopped) {
    /* The connection works as before. */
    rc = intRun(db, p->zQuery, &out, zErr, sizeof(zErr));
    if (rc != SQLITE_OK || strcmp(out.z, pRef->z) != 0) {
      printf("FAIL %s: after a stop by %s at %lld the query returns %s\n  in: %s\n", p->zName,
             bTick ? "interrupt" : "progress", (long long)k, rc != SQLITE_OK ? zErr : "other rows",
             p->zQuery);
      nBad++;
    }
    free(out.z);
  }
  return nBad ? 1 : 0;
}

/*
** A progress handler of realistic granularity (every 1000 VM steps) must
** stop a long batch job on a small graph while it computes: it asks to
** stop at the first call past those that the same job with one iteration
** makes (reading the graph, its rows), so the stop falls in the supersteps,
** before the first row: the engine steps a statement between supersteps
** and within long ones, which SQLite counts toward the handler. 1 if the
** job returned rows or did not stop.
*/
static int intCoarseProgress(sqlite3 *db, const char *zName, const char *zShort, const char *zLong) {
  sqlite3_stmt *pStmt = NULL;
  int rc, nRow = 0;
  int64_t nShort;
  intCalls = 0;
  intStopAt = 0;
  sqlite3_progress_handler(db, 1000, intProgress, 0);
  rc = sqlite3_prepare_v2(db, zShort, -1, &pStmt, 0);
  if (rc == SQLITE_OK) {
    while ((rc = sqlite3_step(pStmt)) == SQLITE_ROW) {
    }
  }
  sqlite3_finalize(pStmt);
  nShort = intCalls;
  intCalls = 0;
  intStopAt = nShort + 1;
  pStmt = NULL;
  rc = rc == SQLITE_DONE ? sqlite3_prepare_v2(db, zLong, -1, &pStmt, 0) : rc;
  if (rc == SQLITE_OK) {
    while ((rc = sqlite3_step(pStmt)) == SQLITE_ROW) nRow++;
  }
  sqlite3_finalize(pStmt);
  sqlite3_progress_handler(db, 0, 0, 0);
  intStopAt = 0;
  if (rc == SQLITE_INTERRUPT && nRow == 0) return 0;
  printf(
      "FAIL %s: a progress handler every 1000 steps asking to stop at its call %lld gave %d, %d rows\n"
      "  in: %s\n",
      zName, (long long)(nShort + 1), rc, nRow, zLong);
  return 1;
}

int main(int argc, char **argv) {
  sqlite3 *db = NULL;
  char *zErr = NULL;
  int nPoint = 60, nPass = 0, nFail = 0, k;
  const char *zOnly = NULL;
  size_t iCase;
  for (k = 1; k < argc; k++) {
    if (strcmp(argv[k], "--points") == 0 && k + 1 < argc) {
      nPoint = atoi(argv[++k]);
    } else if (strcmp(argv[k], "--only") == 0 && k + 1 < argc) {
      zOnly = argv[++k];
    } else if (strcmp(argv[k], "-v") == 0) {
      intVerbose = 1;
    } else {
      fprintf(stderr, "usage: interrupt [--points N] [--only NAME] [-v]\n");
      return 2;
    }
  }
  if (nPoint < 2) nPoint = 2;
  sqlite3_auto_extension((void (*)(void))sqlite3_nosql_init);
  if (sqlite3_open(":memory:", &db) != SQLITE_OK ||
      sqlite3_create_function(db, "tick", 0, SQLITE_UTF8, 0, intTick, 0, 0) != SQLITE_OK ||
      sqlite3_exec(db, zSetup, 0, 0, &zErr) != SQLITE_OK) {
    printf("FAIL set-up: %s\n0 passed, 1 failed\n", zErr ? zErr : sqlite3_errmsg(db));
    sqlite3_free(zErr);
    sqlite3_close(db);
    return 1;
  }
  for (iCase = 0; iCase < sizeof(aCase) / sizeof(aCase[0]); iCase++) {
    const IntCase *p = &aCase[iCase];
    IntOut ref;
    char zMsg[200];
    int64_t nCall, nRow;
    int bTick, nBad = 0, nTrial = 0;
    if (zOnly && strcmp(zOnly, p->zName) != 0) continue;
    /* The reference, counting progress calls and rows. */
    intCalls = 0;
    intStopAt = 0;
    sqlite3_progress_handler(db, 1, intProgress, 0);
    if (intRun(db, p->zQuery, &ref, zMsg, sizeof(zMsg)) != SQLITE_OK) {
      sqlite3_progress_handler(db, 0, 0, 0);
      printf("FAIL %s: reference run: %s\n  in: %s\n", p->zName, zMsg, p->zQuery);
      free(ref.z);
      nFail++;
      continue;
    }
    sqlite3_progress_handler(db, 0, 0, 0);
    nCall = intCalls;
    nRow = ref.nRow;
    if (nRow < 2 && p->zCheck == NULL) {
      printf("FAIL %s: the query returns %lld rows; it must scan\n  in: %s\n", p->zName, (long long)nRow,
             p->zQuery);
      free(ref.z);
      nFail++;
      continue;
    }
    for (bTick = 0; bTick < (p->zCheck ? 1 : 2); bTick++) {
      int64_t nMax = bTick ? nRow : nCall, i;
      int64_t iPrev = 0;
      for (i = 0; i <= nPoint && nBad < 5; i++) {
        /* The first few points one by one, then spread evenly up to past the end. */
        int64_t kStop = i < nPoint / 4 ? i + 1 : 1 + (nMax * (i - nPoint / 4)) / (nPoint - nPoint / 4);
        int bStopped;
        if (kStop <= iPrev) continue;
        iPrev = kStop;
        nBad += intTrial(db, p, &ref, bTick, kStop, &bStopped);
        nTrial++;
      }
    }
    if (intVerbose || nBad) {
      printf("%s %s: %d stops (%lld progress calls, %lld rows)\n  in: %s\n", nBad ? "FAIL" : "ok", p->zName,
             nTrial, (long long)nCall, (long long)nRow, p->zQuery);
    }
    if (nBad)
      nFail++;
    else
      nPass++;
    free(ref.z);
  }
  /* A long batch job on a small graph, and a coarse progress handler. */
  if (zOnly == NULL) {
    if (sqlite3_exec(db,
                     "CREATE TABLE small(a, b);"
                     "INSERT INTO small VALUES (1, 2), (2, 3), (3, 1), (3, 4), (4, 1)",
                     0, 0, 0) != SQLITE_OK ||
        intCoarseProgress(db, "graph_pagerank (coarse progress)",
                          "SELECT node, rank FROM graph_pagerank('small', 'a', 'b', 0.85, 0, 1)",
                          "SELECT node, rank FROM graph_pagerank('small', 'a', 'b', 0.85, 0, 1000000)")) {
      nFail++;
    } else {
      nPass++;
    }
  }
  /* The stopped writers' tables are intact. */
  {
    static const char *const azCheck[] = {"INSERT INTO ns(ns) VALUES ('integrity-check')",
                                          "INSERT INTO ii(ii) VALUES ('integrity-check')"};
    sqlite3_stmt *pStmt = NULL;
    size_t i;
    for (i = 0; i < 2; i++) {
      if (sqlite3_exec(db, azCheck[i], 0, 0, &zErr) != SQLITE_OK) {
        printf("FAIL %s: %s\n", azCheck[i], zErr);
        sqlite3_free(zErr);
        zErr = NULL;
        nFail++;
      } else {
        nPass++;
      }
    }
    if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &pStmt, 0) == SQLITE_OK &&
        sqlite3_step(pStmt) == SQLITE_ROW && strcmp((const char *)sqlite3_column_text(pStmt, 0), "ok") == 0) {
      nPass++;
    } else {
      printf("FAIL PRAGMA integrity_check\n");
      nFail++;
    }
    sqlite3_finalize(pStmt);
  }
  if (sqlite3_close(db) != SQLITE_OK) {
    printf("FAIL sqlite3_close: %s\n", sqlite3_errmsg(db));
    nFail++;
  }
  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail ? 1 : 0;
}
