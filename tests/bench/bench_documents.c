/*
** bench_documents.c: aggregates, atomic updates and application-side joins
** (issue 14; docs/documents.md, docs/composite_keys.md).
**
**   read one product        the document (one row) vs assembling it from
**                           its normalized rows (product, album, track)
**   app-side join           N keys: JOIN vs one query per key vs kv_mget
**   conditional write       kv_cas vs UPDATE ... WHERE value IS ? + changes()
**   document update         doc_update ($inc) vs UPDATE ... json_set ...
**                           RETURNING from the application
**   column form             kv_cas and doc_update on 't(id, body, rev)'
**                           vs the same call on the plain table name
**   soft-schema report      doc_schema vs the json_tree GROUP BY query
**   query filter            doc_match(doc, filter) vs the same conditions
**                           written with json_extract / json_each (issue 27)
**   $push $each/$sort/$slice doc_update on arrays of 1,000 and 10,000
**                           elements vs json_set of a json_each ORDER BY
**                           LIMIT (issue 27)
**   upsert                  doc_upsert ($setOnInsert, $inc) vs INSERT ...
**                           ON CONFLICT DO UPDATE SET doc = json_set(...)
**
** Writers restore what they change within each run (a pair of toggling
** writes per key), so every run sees the same data and returns the same
** rows.
*/
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

/* Keys an application holds: product ids, user ids, counters. */
typedef struct DocKeys DocKeys;
struct DocKeys {
  int64_t *aId; /* Keys */
  int nId;      /* Number of keys */
};

/* A JSON array of the keys (sqlite3_malloc'ed), or NULL on OOM. */
static char *docKeysJson(const DocKeys *p) {
  NosqlBuffer buf = {0, 0, 0};
  int rc = SQLITE_OK, i;
  nosqlBufferAppend(&rc, &buf, "[", 1);
  for (i = 0; i < p->nId; i++) nosqlBufferAppendf(&rc, &buf, "%s%lld", i ? "," : "", (long long)p->aId[i]);
  nosqlBufferAppend(&rc, &buf, "]", 1);
  if (rc != SQLITE_OK) {
    nosqlBufferFree(&buf);
    return NULL;
  }
  return (char *)buf.a;
}

/* The relational read of one album: its rows assembled into the same JSON as the document. */
#define DOC_ASSEMBLE                                                                     \
  "SELECT json_object('title', p.title, 'price', p.price, 'artist', a.artist, 'tracks'," \
  " (SELECT json_group_array(json_object('title', t.title, 'seconds', t.seconds))"       \
  "    FROM (SELECT title, seconds FROM track WHERE album_id = p.id ORDER BY pos) t))"   \
  " FROM product p JOIN album a ON a.id = p.id WHERE p.id = ?1"

static int docReadAssembled(sqlite3 *db, void *pArg, BenchSum *pSum) {
  DocKeys *p = (DocKeys *)pArg;
  return benchSumEachId(db, DOC_ASSEMBLE, p->aId, p->nId, pSum);
}

static int docReadDocument(sqlite3 *db, void *pArg, BenchSum *pSum) {
  DocKeys *p = (DocKeys *)pArg;
  return benchSumEachId(db, "SELECT doc FROM products WHERE key = ?1", p->aId, p->nId, pSum);
}

static int docOnePerKey(sqlite3 *db, void *pArg, BenchSum *pSum) {
  DocKeys *p = (DocKeys *)pArg;
  return benchSumEachId(db, "SELECT key, value FROM users_kv WHERE key = ?1", p->aId, p->nId, pSum);
}

static int docMget(sqlite3 *db, void *pArg, BenchSum *pSum) {
  DocKeys *p = (DocKeys *)pArg;
  sqlite3_stmt *pStmt = NULL;
  char *zJson = docKeysJson(p);
  int rc;
  if (zJson == NULL) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(db, "SELECT key, value FROM kv_mget('users_kv', ?1)", -1, &pStmt, 0);
  if (rc == SQLITE_OK) {
    sqlite3_bind_text(pStmt, 1, zJson, -1, sqlite3_free);
    zJson = NULL;
    rc = benchSumStmt(pSum, pStmt);
  }
  sqlite3_free(zJson);
  sqlite3_finalize(pStmt);
  return rc;
}

/*
** Run zSql once per key and per direction (?2 from, ?3 to: 0 -> 1, then
** 1 -> 0), adding one row per call: its first column as text.
*/
static int docToggle(sqlite3 *db, const char *zSql, const DocKeys *p, int bChanges, BenchSum *pSum) {
  sqlite3_stmt *pStmt = NULL;
  int rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  int i, k;
  for (k = 0; k < 2 && rc == SQLITE_OK; k++) {
    for (i = 0; i < p->nId && rc == SQLITE_OK; i++) {
      char aRow[32];
      int n;
      sqlite3_bind_int64(pStmt, 1, p->aId[i]);
      sqlite3_bind_int(pStmt, 2, k);
      sqlite3_bind_int(pStmt, 3, !k);
      rc = sqlite3_step(pStmt);
      if (bChanges) {
        /* The application's version: the outcome from changes(). */
        n = snprintf(aRow, sizeof(aRow), "%s", sqlite3_changes(db) ? "stored" : "exists");
      } else {
        n = snprintf(aRow, sizeof(aRow), "%s",
                     rc == SQLITE_ROW ? (const char *)sqlite3_column_text(pStmt, 0) : "");
      }
      benchSumRow(pSum, aRow, n);
      rc = (rc == SQLITE_ROW || rc == SQLITE_DONE) ? sqlite3_reset(pStmt) : rc;
    }
  }
  sqlite3_finalize(pStmt);
  return rc;
}

static int docCasUpdate(sqlite3 *db, void *pArg, BenchSum *pSum) {
  return docToggle(db,
                   "UPDATE kv SET value = ?3 WHERE key = ?1 AND value IS ?2 AND typeof(value) = typeof(?2)",
                   (DocKeys *)pArg, 1, pSum);
}

static int docCasFunc(sqlite3 *db, void *pArg, BenchSum *pSum) {
  return docToggle(db, "SELECT kv_cas('kv', ?1, ?2, ?3)", (DocKeys *)pArg, 0, pSum);
}

/* $inc n by +1 then -1 per key; one row per call: whether it returned a version. */
static int docIncReturning(sqlite3 *db, void *pArg, BenchSum *pSum) {
  return docToggle(db,
                   "UPDATE docs SET doc = json_set(doc, '$.n', json_extract(doc, '$.n') + (1 - 2 * ?2)),"
                   " version = version + 1 WHERE key = ?1 RETURNING version IS NOT NULL AND ?3 IS NOT NULL",
                   (DocKeys *)pArg, 0, pSum);
}

static int docIncUpdate(sqlite3 *db, void *pArg, BenchSum *pSum) {
  return docToggle(db,
                   "SELECT doc_update('docs', ?1, json_object('$inc', json_object('n', 1 - 2 * ?2)))"
                   " IS NOT NULL AND ?3 IS NOT NULL",
                   (DocKeys *)pArg, 0, pSum);
}

/* The same calls on copies of kv and docs whose columns have other names: the column form. */
static int docCasColumns(sqlite3 *db, void *pArg, BenchSum *pSum) {
  return docToggle(db, "SELECT kv_cas('kv_cols(id, v)', ?1, ?2, ?3)", (DocKeys *)pArg, 0, pSum);
}

static int docIncColumns(sqlite3 *db, void *pArg, BenchSum *pSum) {
  return docToggle(
      db,
      "SELECT doc_update('docs_cols(id, body, rev)', ?1, json_object('$inc', json_object('n', 1 - 2 * "
      "?2))) IS NOT NULL AND ?3 IS NOT NULL",
      (DocKeys *)pArg, 0, pSum);
}

/*
** $push of 0 into a sorted array of positive numbers, sorted, cut to its
** length: the 0 goes again, so every run sees the same data, and both
** variants do the whole work (read, merge, sort, cut, write back).
*/
static int docPushSortedUpdate(sqlite3 *db, void *pArg, BenchSum *pSum) {
  return docToggle(db,
                   "SELECT doc_update('arr', ?1, '{\"$push\":{\"l\":{\"$each\":[0],\"$sort\":1,"
                   "\"$slice\":-' || json_array_length(doc, '$.l') || '}}}') IS NOT NULL"
                   " AND ?2 IS NOT NULL AND ?3 IS NOT NULL FROM arr WHERE key = ?1",
                   (DocKeys *)pArg, 0, pSum);
}

static int docPushSortedJson(sqlite3 *db, void *pArg, BenchSum *pSum) {
  return docToggle(db,
                   "UPDATE arr SET doc = json_set(doc, '$.l', (SELECT json_group_array(value) FROM"
                   " (SELECT value FROM (SELECT value FROM json_each(doc, '$.l') UNION ALL SELECT 0)"
                   " ORDER BY value LIMIT -1 OFFSET 1))), version = version + 1 WHERE key = ?1"
                   " RETURNING version IS NOT NULL AND ?2 IS NOT NULL AND ?3 IS NOT NULL",
                   (DocKeys *)pArg, 0, pSum);
}

/* Upserts of n by +1 then -1 per key (the first run inserts, the others update). */
static int docUpsertSql(sqlite3 *db, void *pArg, BenchSum *pSum) {
  return docToggle(
      db,
      "INSERT INTO ups_sql(key, doc, version) VALUES (?1, json_object('since', 1, 'n', 1 - 2 * ?2), 1)"
      " ON CONFLICT(key) DO UPDATE SET doc = json_set(doc, '$.n', json_extract(doc, '$.n') + (1 - 2 * "
      "?2)), version = version + 1 RETURNING version IS NOT NULL AND ?3 IS NOT NULL",
      (DocKeys *)pArg, 0, pSum);
}

static int docUpsertFunc(sqlite3 *db, void *pArg, BenchSum *pSum) {
  return docToggle(db,
                   "SELECT doc_upsert('ups_doc', ?1, json_object('$setOnInsert', json_object('since', 1),"
                   " '$inc', json_object('n', 1 - 2 * ?2))) IS NOT NULL AND ?3 IS NOT NULL",
                   (DocKeys *)pArg, 0, pSum);
}

/* The $push/$sort/$slice workload on nDoc documents of nElem-element arrays. */
static void docPushSorted(Bench *p, sqlite3 *db, int64_t nDoc, int nElem) {
  DocKeys keys;
  char zSize[96];
  char *zSql = sqlite3_mprintf(
      "DROP TABLE IF EXISTS arr;"
      "CREATE TABLE arr(key INTEGER PRIMARY KEY, doc TEXT, version INTEGER);"
      "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < %lld),"
      " e(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM e WHERE j < %d)"
      "INSERT INTO arr SELECT i, json_object('name', 'doc ' || i, 'l', (SELECT json_group_array(v) FROM"
      " (SELECT (i * 7919 + j * 104729) %% 1000000 + 1 AS v FROM e ORDER BY v))), 1 FROM c;",
      (long long)nDoc, nElem);
  int i;
  benchExec(db, zSql);
  sqlite3_free(zSql);
  keys.nId = (int)nDoc;
  keys.aId = (int64_t *)malloc(sizeof(int64_t) * (size_t)nDoc);
  if (keys.aId == NULL) exit(2);
  for (i = 0; i < keys.nId; i++) keys.aId[i] = i + 1;
  {
    const BenchVariant aVar[] = {
        {BENCH_RELATIONAL, "relational: json_set of json_each UNION ALL ORDER BY LIMIT -1 OFFSET 1", 0,
         docPushSortedJson, &keys},
        {BENCH_EXTENSION, "doc_update $push {$each, $sort: 1, $slice: -n}", 0, docPushSortedUpdate, &keys},
    };
    char zName[96];
    snprintf(zName, sizeof(zName), "documents: $push $each+$sort+$slice, %d-element arrays", nElem);
    snprintf(zSize, sizeof(zSize), "%lld documents of %d elements, 2 updates each", (long long)nDoc, nElem);
    benchCompare(p, zName, db, zSize, (double)nDoc, "documents", 2.0 * (double)nDoc, "update", aVar, 2);
  }
  free(keys.aId);
}

void benchDocuments(Bench *p) {
  sqlite3 *db = benchOpen();
  int64_t nProduct = benchSize(p, 300000, 300);
  int64_t nUser = benchSize(p, 1000000, 1000);
  int64_t nSchema = benchSize(p, 200000, 200);
  int64_t nFilter = benchSize(p, 1000000, 1000);
  DocKeys albums, users, writes;
  uint64_t seed = 14;
  char *zSql;
  char zSize[96];
  int i;

  /* The catalog, normalized and as documents; a third of the products are albums with 3..7 tracks. */
  zSql = sqlite3_mprintf(
      "CREATE TABLE product(id INTEGER PRIMARY KEY, kind TEXT, title TEXT, price REAL);"
      "CREATE TABLE album(id INTEGER PRIMARY KEY, artist TEXT);"
      "CREATE TABLE track(album_id INTEGER, pos INTEGER, title TEXT, seconds INTEGER,"
      " PRIMARY KEY (album_id, pos)) WITHOUT ROWID;"
      "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < %lld)"
      "INSERT INTO product SELECT i, CASE i %% 3 WHEN 1 THEN 'album' ELSE 'other' END, 'title ' || i,"
      " (i * 37 %% 90) + 9.5 FROM c;"
      "INSERT INTO album SELECT id, 'artist ' || (id %% 101) FROM product WHERE kind = 'album';"
      "WITH RECURSIVE t(pos) AS (SELECT 1 UNION ALL SELECT pos + 1 FROM t WHERE pos < 7)"
      "INSERT INTO track SELECT a.id, t.pos, 'track ' || a.id || '.' || t.pos, 120 + (a.id * 31 + t.pos * "
      "57) %% 500"
      " FROM album a, t WHERE t.pos <= 3 + a.id %% 5;"
      "CREATE TABLE products(key INTEGER PRIMARY KEY, doc TEXT, version INTEGER);",
      (long long)nProduct);
  benchExec(db, zSql);
  /* The documents, made by the same assembly the relational read uses. */
  benchExec(
      db,
      "INSERT INTO products SELECT p.id, json_object('title', p.title, 'price', p.price, 'artist', a.artist,"
      " 'tracks', (SELECT json_group_array(json_object('title', t.title, 'seconds', t.seconds))"
      " FROM (SELECT title, seconds FROM track WHERE album_id = p.id ORDER BY pos) t)), 1"
      " FROM product p JOIN album a ON a.id = p.id");
  sqlite3_free(zSql);

  albums.nId = (int)(nProduct / 30 < 10000 ? nProduct / 30 : 10000);
  albums.aId = (int64_t *)malloc(sizeof(int64_t) * (size_t)albums.nId);
  if (albums.aId == NULL) exit(2);
  for (i = 0; i < albums.nId; i++)
    albums.aId[i] = (int64_t)(benchRand(&seed) % (uint64_t)(nProduct / 3)) * 3 + 1;
  {
    const BenchVariant aVar[] = {
        {BENCH_RELATIONAL, "relational: product JOIN album + tracks, assembled, a query per product", 0,
         docReadAssembled, &albums},
        {BENCH_MODEL, "aggregate: one document row, a query per product", 0, docReadDocument, &albums},
    };
    snprintf(zSize, sizeof(zSize), "%lld products, %d album reads", (long long)nProduct, albums.nId);
    benchCompare(p, "documents: read one product whole", db, zSize, (double)nProduct, "products", albums.nId,
                 "product", aVar, 2);
  }

  /* Users as a key-value table; the keys an application holds (distinct: JOIN and kv_mget then agree). */
  zSql = sqlite3_mprintf(
      "CREATE TABLE users_kv(key INTEGER PRIMARY KEY, value TEXT);"
      "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < %lld)"
      "INSERT INTO users_kv SELECT i, json_object('name', 'user ' || i, 'city', 'city ' || (i %% 97)) FROM c;"
      "CREATE TABLE wanted(id INTEGER);",
      (long long)nUser);
  benchExec(db, zSql);
  sqlite3_free(zSql);
  users.nId = (int)(nUser / 100 < 10000 ? nUser / 100 : 10000);
  users.aId = (int64_t *)malloc(sizeof(int64_t) * (size_t)users.nId);
  if (users.aId == NULL) exit(2);
  benchExec(db, "BEGIN");
  for (i = 0; i < users.nId; i++) {
    users.aId[i] = (int64_t)(((uint64_t)i * 2654435761u + 12345) % (uint64_t)nUser) + 1;
    zSql = sqlite3_mprintf("INSERT INTO wanted VALUES(%lld)", (long long)users.aId[i]);
    benchExec(db, zSql);
    sqlite3_free(zSql);
  }
  benchExec(db, "COMMIT");
  {
    const BenchVariant aVar[] = {
        {BENCH_RELATIONAL, "relational: JOIN wanted keys",
         "SELECT u.key, u.value FROM wanted w JOIN users_kv u ON u.key = w.id", 0, 0},
        {BENCH_MODEL, "app-side join: one query per key", 0, docOnePerKey, &users},
        {BENCH_EXTENSION, "app-side join: one kv_mget of all keys", 0, docMget, &users},
    };
    snprintf(zSize, sizeof(zSize), "%lld users, %d keys", (long long)nUser, users.nId);
    benchCompare(p, "documents: application-side join", db, zSize, (double)nUser, "users", users.nId, "key",
                 aVar, 3);
  }

  /* Conditional writes and document updates: each key toggled 0 -> 1 -> 0 per run, in memory, autocommit. */
  writes.nId = (int)(nUser / 100 < 10000 ? nUser / 100 : 10000);
  writes.aId = users.aId;
  zSql = sqlite3_mprintf(
      "CREATE TABLE kv(key INTEGER PRIMARY KEY, value);"
      "INSERT INTO kv SELECT id, 0 FROM wanted;"
      "CREATE TABLE docs(key INTEGER PRIMARY KEY, doc TEXT, version INTEGER);"
      "INSERT INTO docs SELECT id, json_object('name', 'doc ' || id, 'n', 0, 'tags', json_array('a', 'b')), 1"
      " FROM wanted;");
  benchExec(db, zSql);
  sqlite3_free(zSql);
  {
    const BenchVariant aVar[] = {
        {BENCH_RELATIONAL, "relational: UPDATE ... WHERE value IS ? + changes()", 0, docCasUpdate, &writes},
        {BENCH_EXTENSION, "kv_cas(table, key, expected, new)", 0, docCasFunc, &writes},
    };
    snprintf(zSize, sizeof(zSize), "%d keys, 2 writes each", writes.nId);
    benchCompare(p, "documents: compare-and-set", db, zSize, writes.nId, "keys", 2.0 * writes.nId, "write",
                 aVar, 2);
  }
  {
    const BenchVariant aVar[] = {
        {BENCH_RELATIONAL, "relational: UPDATE SET doc = json_set(...), version + 1 RETURNING", 0,
         docIncReturning, &writes},
        {BENCH_EXTENSION, "doc_update(table, key, '{\"$inc\": ...}')", 0, docIncUpdate, &writes},
    };
    snprintf(zSize, sizeof(zSize), "%d documents, 2 updates each", writes.nId);
    benchCompare(p, "documents: atomic document update", db, zSize, writes.nId, "documents", 2.0 * writes.nId,
                 "update", aVar, 2);
  }
  /* The table argument naming the columns ('t(id, body, rev)') against the plain name (issue 31). */
  benchExec(db,
            "CREATE TABLE kv_cols(id INTEGER PRIMARY KEY, v); INSERT INTO kv_cols SELECT key, value FROM kv;"
            "CREATE TABLE docs_cols(id INTEGER PRIMARY KEY, body TEXT, rev INTEGER);"
            "INSERT INTO docs_cols SELECT key, doc, version FROM docs;");
  {
    const BenchVariant aVar[] = {
        {BENCH_EXTENSION, "kv_cas('kv', ...): the plain table name", 0, docCasFunc, &writes},
        {BENCH_EXTENSION, "kv_cas('kv_cols(id, v)', ...): the column form", 0, docCasColumns, &writes},
    };
    snprintf(zSize, sizeof(zSize), "%d keys, 2 writes each", writes.nId);
    benchCompare(p, "documents: kv_cas, column form vs plain name", db, zSize, writes.nId, "keys",
                 2.0 * writes.nId, "write", aVar, 2);
  }
  {
    const BenchVariant aVar[] = {
        {BENCH_EXTENSION, "doc_update('docs', ...): the plain table name", 0, docIncUpdate, &writes},
        {BENCH_EXTENSION, "doc_update('docs_cols(id, body, rev)', ...): the column form", 0, docIncColumns,
         &writes},
    };
    snprintf(zSize, sizeof(zSize), "%d documents, 2 updates each", writes.nId);
    benchCompare(p, "documents: doc_update, column form vs plain name", db, zSize, writes.nId, "documents",
                 2.0 * writes.nId, "update", aVar, 2);
  }

  /* The soft-schema report over the album documents plus other kinds. */
  zSql = sqlite3_mprintf(
      "CREATE TABLE catalog(key INTEGER PRIMARY KEY, doc TEXT);"
      "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < %lld)"
      "INSERT INTO catalog SELECT i, CASE i %% 3"
      " WHEN 0 THEN json_object('type', 'book', 'title', 't' || i, 'author', 'a' || (i %% 50), 'pages', i %% "
      "900)"
      " WHEN 1 THEN json_object('type', 'album', 'title', 't' || i, 'tracks',"
      "   json_array(json_object('title', 'x', 'len', i %% 300), json_object('title', 'y', 'len', (i %% 7) + "
      "0.5)))"
      " ELSE json_object('type', 'jeans', 'title', 't' || i, 'brand', 'b' || (i %% 9),"
      "   'sizes', json_object('waist', 28 + i %% 8, 'length', 30 + i %% 5)) END FROM c;",
      (long long)nSchema);
  benchExec(db, zSql);
  sqlite3_free(zSql);
  {
    /* Array indexes are single digits in this data, so replace() normalizes them to [*]. */
    const BenchVariant aVar[] = {
        {BENCH_RELATIONAL, "relational: json_tree GROUP BY path, type",
         "SELECT path, type, count(DISTINCT key) FROM (SELECT c.key, t.type,"
         " replace(replace(replace(t.fullkey, '[0]', '[*]'), '[1]', '[*]'), '[2]', '[*]') AS path"
         " FROM catalog c, json_tree(c.doc) t) GROUP BY path, type",
         0, 0},
        {BENCH_EXTENSION, "doc_schema(table, column)",
         "SELECT path, type, docs FROM doc_schema('catalog', 'doc')", 0, 0},
    };
    snprintf(zSize, sizeof(zSize), "%lld documents", (long long)nSchema);
    benchCompare(p, "documents: soft-schema report", db, zSize, (double)nSchema, "documents", (double)nSchema,
                 "document", aVar, 2);
  }

  /* Query filters: the same rows by doc_match and by the equivalent hand-written WHERE. */
  zSql = sqlite3_mprintf(
      "CREATE TABLE filtered(id INTEGER PRIMARY KEY, doc TEXT);"
      "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < %lld)"
      "INSERT INTO filtered SELECT i, json_object('name', 'item ' || i, 'status', char(65 + i %% 3),"
      " 'qty', i %% 100, 'dims', json_object('h', i %% 17, 'w', 2.5), 'tags', json_array('t' || (i %% 7),"
      " 't' || (i %% 11)), 'note', 'a longer text field that the filter does not read') FROM c;",
      (long long)nFilter);
  benchExec(db, zSql);
  sqlite3_free(zSql);
  {
    const BenchVariant aVar[] = {
        {BENCH_RELATIONAL, "relational: json_extract(...) = 'A' AND ... >= 50 AND ... < 10",
         "SELECT count(*) FROM filtered WHERE json_extract(doc, '$.status') = 'A'"
         " AND json_extract(doc, '$.qty') >= 50 AND json_extract(doc, '$.dims.h') < 10",
         0, 0},
        {BENCH_EXTENSION, "doc_match(doc, '{\"status\": \"A\", \"qty\": {\"$gte\": 50}, ...}')",
         "SELECT count(*) FROM filtered WHERE doc_match(doc,"
         " '{\"status\": \"A\", \"qty\": {\"$gte\": 50}, \"dims.h\": {\"$lt\": 10}}')",
         0, 0},
    };
    snprintf(zSize, sizeof(zSize), "%lld documents, 3 conditions", (long long)nFilter);
    benchCompare(p, "documents: query filter on fields", db, zSize, (double)nFilter, "documents",
                 (double)nFilter, "document", aVar, 2);
  }
  {
    const BenchVariant aVar[] = {
        {BENCH_RELATIONAL, "relational: json_extract(...) < 20 AND EXISTS (json_each ... = 't3')",
         "SELECT count(*) FROM filtered WHERE json_extract(doc, '$.qty') < 20"
         " AND EXISTS (SELECT 1 FROM json_each(doc, '$.tags') WHERE value = 't3')",
         0, 0},
        {BENCH_EXTENSION, "doc_match(doc, '{\"qty\": {\"$lt\": 20}, \"tags\": \"t3\"}')",
         "SELECT count(*) FROM filtered WHERE doc_match(doc, '{\"qty\": {\"$lt\": 20}, \"tags\": \"t3\"}')",
         0, 0},
    };
    snprintf(zSize, sizeof(zSize), "%lld documents, array membership", (long long)nFilter);
    benchCompare(p, "documents: query filter on an array", db, zSize, (double)nFilter, "documents",
                 (double)nFilter, "document", aVar, 2);
  }

  docPushSorted(p, db, benchSize(p, 2000, 20), 1000);
  docPushSorted(p, db, benchSize(p, 200, 2), 10000);

  /* Upserts: keys absent at the first run, one table per variant. */
  benchExec(db,
            "CREATE TABLE ups_sql(key INTEGER PRIMARY KEY, doc TEXT, version INTEGER);"
            "CREATE TABLE ups_doc(key INTEGER PRIMARY KEY, doc TEXT, version INTEGER);");
  {
    const BenchVariant aVar[] = {
        {BENCH_RELATIONAL, "relational: INSERT ... ON CONFLICT DO UPDATE SET doc = json_set(...) RETURNING",
         0, docUpsertSql, &writes},
        {BENCH_EXTENSION, "doc_upsert(table, key, '{\"$setOnInsert\": ..., \"$inc\": ...}')", 0,
         docUpsertFunc, &writes},
    };
    snprintf(zSize, sizeof(zSize), "%d keys, 2 upserts each", writes.nId);
    benchCompare(p, "documents: upsert", db, zSize, writes.nId, "keys", 2.0 * writes.nId, "upsert", aVar, 2);
  }
  free(albums.aId);
  free(users.aId);
  sqlite3_close(db);
}
