/*
** bench_index_table.c: index tables and denormalized query tables (issue 13;
** docs/index_table.md).
**
**   lookup by key        users by city with name and email included: the
**                        index table vs a covering CREATE INDEX vs an index
**                        on city and a table lookup per row
**   multikey lookup      posts by tag: index_table(each(tags)) vs json_each
**                        over every post
**   write amplification  INSERT then UPDATE then DELETE of base rows with 0,
**                        1 and 3 sync index tables, and with one deferred
**                        index table plus its 'refresh'
**   drift check          'check' over the whole index
**
** Writers delete what they insert within each run, so every run sees the
** same data and returns the same rows.
*/
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Keys to look up, and the SQL to run per key. */
typedef struct ItKeys ItKeys;
struct ItKeys {
  int64_t *aId;     /* Key numbers: city ids or tag ids */
  int nId;          /* Keys */
  const char *zSql; /* Run once per key with ?1 bound to the key's text */
  const char *zFmt; /* The key's text: printf format of its number */
};

static int itLookup(sqlite3 *db, void *pArg, BenchSum *pSum) {
  ItKeys *p = (ItKeys *)pArg;
  sqlite3_stmt *pStmt = NULL;
  int rc = sqlite3_prepare_v2(db, p->zSql, -1, &pStmt, 0);
  int i;
  for (i = 0; rc == SQLITE_OK && i < p->nId; i++) {
    char zKey[32];
    snprintf(zKey, sizeof(zKey), p->zFmt, (long long)p->aId[i]);
    sqlite3_bind_text(pStmt, 1, zKey, -1, SQLITE_TRANSIENT);
    rc = benchSumStmt(pSum, pStmt);
    sqlite3_reset(pStmt);
  }
  sqlite3_finalize(pStmt);
  return rc;
}

/* A write workload: nRow inserts into zTable, an update of each, a delete of each. */
typedef struct ItWrite ItWrite;
struct ItWrite {
  const char *zTable;   /* Base table written */
  const char *zRefresh; /* SQL run after the writes ('refresh'), or NULL */
  int nRow;             /* Rows written */
};

static int itWrites(sqlite3 *db, void *pArg, BenchSum *pSum) {
  ItWrite *p = (ItWrite *)pArg;
  sqlite3_stmt *apStmt[3] = {0, 0, 0};
  char *azSql[3];
  int rc = SQLITE_OK, i, k;
  int64_t nChange = 0;
  azSql[0] = sqlite3_mprintf(
      "INSERT INTO \"%w\"(id, name, email, city) VALUES(?1 + 10000000, 'new ' || ?1, "
      "'n' || ?1 || '@x.org', 'city ' || (?1 %% 997))",
      p->zTable);
  azSql[1] =
      sqlite3_mprintf("UPDATE \"%w\" SET city = 'moved ' || (?1 %% 13) WHERE id = ?1 + 10000000", p->zTable);
  azSql[2] = sqlite3_mprintf("DELETE FROM \"%w\" WHERE id = ?1 + 10000000", p->zTable);
  for (k = 0; k < 3 && rc == SQLITE_OK; k++) {
    rc = azSql[k] ? sqlite3_prepare_v2(db, azSql[k], -1, &apStmt[k], 0) : SQLITE_NOMEM;
  }
  for (k = 0; k < 3 && rc == SQLITE_OK; k++) {
    rc = sqlite3_exec(db, "BEGIN", 0, 0, 0);
    for (i = 0; i < p->nRow && rc == SQLITE_OK; i++) {
      sqlite3_bind_int64(apStmt[k], 1, i);
      rc = sqlite3_step(apStmt[k]);
      rc = rc == SQLITE_DONE ? sqlite3_reset(apStmt[k]) : rc;
      nChange += sqlite3_changes(db);
    }
    if (rc == SQLITE_OK && p->zRefresh) rc = sqlite3_exec(db, p->zRefresh, 0, 0, 0);
    if (rc == SQLITE_OK) rc = sqlite3_exec(db, "COMMIT", 0, 0, 0);
  }
  if (rc != SQLITE_OK) fprintf(stderr, "index_table bench: %s\n", sqlite3_errmsg(db));
  benchSumInts(pSum, &nChange, 1);
  for (k = 0; k < 3; k++) {
    sqlite3_finalize(apStmt[k]);
    sqlite3_free(azSql[k]);
  }
  return rc;
}

/* 'check' on the named index table; one row: whether it passed. */
static int itCheck(sqlite3 *db, void *pArg, BenchSum *pSum) {
  char *zSql =
      sqlite3_mprintf("INSERT INTO \"%w\"(\"%w\") VALUES('check')", (const char *)pArg, (const char *)pArg);
  int64_t bOk;
  int rc = zSql ? sqlite3_exec(db, zSql, 0, 0, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  bOk = rc == SQLITE_OK;
  benchSumInts(pSum, &bOk, 1);
  return rc;
}

/* The same question by SQL: base rows without their entry, entries without their row. */
static int itCheckSql(sqlite3 *db, void *pArg, BenchSum *pSum) {
  sqlite3_stmt *pStmt = NULL;
  int64_t bOk = 0;
  int rc;
  (void)pArg;
  rc = sqlite3_prepare_v2(
      db,
      "SELECT (SELECT count(*) FROM users u WHERE u.city IS NOT NULL AND NOT EXISTS (SELECT 1"
      " FROM users_by_city_data d WHERE d.city = u.city AND d.rowid = u.id"
      " AND d.name IS u.name AND d.email IS u.email))"
      " + (SELECT count(*) FROM users_by_city_data d WHERE NOT EXISTS (SELECT 1 FROM users u"
      " WHERE u.id = d.rowid AND u.city = d.city))",
      -1, &pStmt, 0);
  if (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) bOk = sqlite3_column_int64(pStmt, 0) == 0;
  if (rc == SQLITE_OK) rc = sqlite3_finalize(pStmt);
  benchSumInts(pSum, &bOk, 1);
  return rc;
}

void benchIndexTable(Bench *p) {
  sqlite3 *db = benchOpen();
  int64_t nUser = benchSize(p, 1000000, 2000);
  int64_t nCity = nUser / 10, nPost = benchSize(p, 200000, 2000);
  ItKeys cities, tags;
  ItWrite aWrite[6];
  uint64_t seed = 13;
  char *zSql;
  char zSize[96];
  int i;

  memset(&cities, 0, sizeof(cities));
  memset(&tags, 0, sizeof(tags));
  /* Users: ~10 per city; the same rows in a second table for the index tables to stay off the baselines. */
  zSql = sqlite3_mprintf(
      "CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT, email TEXT, city TEXT, bio TEXT);"
      "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < %lld)"
      "INSERT INTO users SELECT i, 'user ' || i, 'u' || i || '@example.org', 'city ' || (i * 7919 %% %lld),"
      " printf('%%.80c', 'b') FROM c;"
      "CREATE TABLE users_rel(id INTEGER PRIMARY KEY, name TEXT, email TEXT, city TEXT, bio TEXT);"
      "INSERT INTO users_rel SELECT * FROM users;"
      "CREATE INDEX users_rel_city ON users_rel(city);"
      "CREATE TABLE users_cov(id INTEGER PRIMARY KEY, name TEXT, email TEXT, city TEXT, bio TEXT);"
      "INSERT INTO users_cov SELECT * FROM users;"
      "CREATE INDEX users_cov_city ON users_cov(city, name, email);"
      "CREATE VIRTUAL TABLE users_by_city USING index_table(users, key = 'city', include = 'name, email');",
      (long long)nUser, (long long)nCity);
  benchExec(db, zSql);
  sqlite3_free(zSql);
  cities.nId = (int)(nCity < 20000 ? nCity : 20000);
  cities.aId = (int64_t *)malloc(sizeof(int64_t) * (size_t)cities.nId);
  if (cities.aId == NULL) exit(2);
  for (i = 0; i < cities.nId; i++) cities.aId[i] = (int64_t)(benchRand(&seed) % (uint64_t)nCity);
  cities.zFmt = "city %lld";
  {
    ItKeys aKeys[4];
    BenchVariant aVar[4];
    static const char *const azSql[4] = {
        "SELECT id, name, email FROM users_cov WHERE city = ?1",
        "SELECT id, name, email FROM users_rel WHERE city = ?1",
        "SELECT rowid, name, email FROM users_by_city WHERE city = ?1",
        "SELECT rowid, name, email FROM users_by_city_data WHERE city = ?1",
    };
    static const char *const azName[4] = {
        "relational: covering CREATE INDEX (city, name, email)",
        "relational: CREATE INDEX (city) + a table lookup per row",
        "index_table(users, key = 'city', include = 'name, email')",
        "its shadow table users_by_city_data, read directly",
    };
    static const int aeKind[4] = {BENCH_RELATIONAL, BENCH_RELATIONAL, BENCH_EXTENSION, BENCH_MODEL};
    for (i = 0; i < 4; i++) {
      aKeys[i] = cities;
      aKeys[i].zSql = azSql[i];
      aVar[i].eKind = aeKind[i];
      aVar[i].zName = azName[i];
      aVar[i].zSql = NULL;
      aVar[i].xRun = itLookup;
      aVar[i].pArg = &aKeys[i];
    }
    snprintf(zSize, sizeof(zSize), "%lld users, %lld cities, %d lookups", (long long)nUser, (long long)nCity,
             cities.nId);
    benchCompare(p, "index_table: users by city, name and email included", db, zSize, (double)nUser, "users",
                 cities.nId, "lookup", aVar, 4);
  }

  /* Posts with 1-5 tags out of 5,000. */
  zSql = sqlite3_mprintf(
      "CREATE TABLE posts(id INTEGER PRIMARY KEY, title TEXT, tags TEXT);"
      "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < %lld)"
      "INSERT INTO posts SELECT i, 'post ' || i, (SELECT json_group_array(DISTINCT 'tag' ||"
      " ((i * 7919 + k * 104729) * k %% 5000))"
      " FROM (SELECT 1 AS k UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5)"
      " WHERE k <= 1 + i %% 5) FROM c;"
      "CREATE VIRTUAL TABLE posts_by_tag USING index_table(posts, key = 'each(tags) AS tag', include = "
      "'title');",
      (long long)nPost);
  benchExec(db, zSql);
  sqlite3_free(zSql);
  tags.nId = 20;
  tags.aId = (int64_t *)malloc(sizeof(int64_t) * (size_t)tags.nId);
  if (tags.aId == NULL) exit(2);
  for (i = 0; i < tags.nId; i++) tags.aId[i] = (int64_t)(benchRand(&seed) % 5000);
  tags.zFmt = "tag%lld";
  {
    ItKeys aKeys[2];
    BenchVariant aVar[2];
    aKeys[0] = aKeys[1] = tags;
    aKeys[0].zSql = "SELECT p.id, p.title FROM posts p, json_each(p.tags) j WHERE j.value = ?1";
    aKeys[1].zSql = "SELECT rowid, title FROM posts_by_tag WHERE tag = ?1";
    aVar[0].eKind = BENCH_RELATIONAL;
    aVar[0].zName = "relational: json_each over every post";
    aVar[1].eKind = BENCH_EXTENSION;
    aVar[1].zName = "index_table(posts, key = 'each(tags) AS tag')";
    for (i = 0; i < 2; i++) {
      aVar[i].zSql = NULL;
      aVar[i].xRun = itLookup;
      aVar[i].pArg = &aKeys[i];
    }
    snprintf(zSize, sizeof(zSize), "%lld posts, 1-5 tags of 5,000, %d lookups", (long long)nPost, tags.nId);
    benchCompare(p, "index_table: posts by tag (multikey)", db, zSize, (double)nPost, "posts", tags.nId,
                 "lookup", aVar, 2);
  }

  /* Write amplification: the same writes on copies of users with 0, 1 and 3 sync index tables, and deferred.
   */
  zSql = sqlite3_mprintf(
      "CREATE TABLE w0(id INTEGER PRIMARY KEY, name TEXT, email TEXT, city TEXT, bio TEXT);"
      "CREATE TABLE w1(id INTEGER PRIMARY KEY, name TEXT, email TEXT, city TEXT, bio TEXT);"
      "CREATE TABLE w3(id INTEGER PRIMARY KEY, name TEXT, email TEXT, city TEXT, bio TEXT);"
      "CREATE TABLE wc(id INTEGER PRIMARY KEY, name TEXT, email TEXT, city TEXT, bio TEXT);"
      "CREATE TABLE wd(id INTEGER PRIMARY KEY, name TEXT, email TEXT, city TEXT, bio TEXT);"
      "INSERT INTO w0 SELECT * FROM users WHERE id <= %lld;"
      "INSERT INTO w1 SELECT * FROM w0; INSERT INTO w3 SELECT * FROM w0;"
      "INSERT INTO wc SELECT * FROM w0; INSERT INTO wd SELECT * FROM w0;"
      "CREATE INDEX wc_city ON wc(city, name, email);"
      "CREATE VIRTUAL TABLE w1_city USING index_table(w1, key = 'city', include = 'name, email');"
      "CREATE VIRTUAL TABLE w3_city USING index_table(w3, key = 'city', include = 'name, email');"
      "CREATE VIRTUAL TABLE w3_email USING index_table(w3, key = 'email', include = 'name');"
      "CREATE VIRTUAL TABLE w3_name USING index_table(w3, key = 'lower(name) AS lname, city');"
      "CREATE VIRTUAL TABLE wd_city USING index_table(wd, key = 'city', include = 'name, email', mode = "
      "'deferred');",
      (long long)(nUser / 10));
  benchExec(db, zSql);
  sqlite3_free(zSql);
  {
    static const char *const azTable[6] = {"w0", "wc", "w1", "w3", "wd", "wd"};
    BenchVariant aVar[6];
    static const char *const azName[6] = {
        "no index (base table alone)",
        "relational: covering CREATE INDEX (city, name, email)",
        "1 index table, sync",
        "3 index tables, sync",
        "1 index table, deferred: the writes (logged)",
        "1 index table, deferred: the writes + 'refresh' per transaction",
    };
    static const int aeKind[6] = {BENCH_FLOOR,     BENCH_RELATIONAL, BENCH_EXTENSION,
                                  BENCH_EXTENSION, BENCH_EXTENSION,  BENCH_EXTENSION};
    for (i = 0; i < 6; i++) {
      aWrite[i].zTable = azTable[i];
      aWrite[i].zRefresh = i == 5 ? "INSERT INTO wd_city(wd_city) VALUES('refresh')" : NULL;
      aWrite[i].nRow = (int)(nUser / 100 < 10000 ? nUser / 100 : 10000);
      aVar[i].eKind = aeKind[i];
      aVar[i].zName = azName[i];
      aVar[i].zSql = NULL;
      aVar[i].xRun = itWrites;
      aVar[i].pArg = &aWrite[i];
    }
    snprintf(zSize, sizeof(zSize), "%lld-row tables, %d inserts + updates + deletes", (long long)(nUser / 10),
             aWrite[0].nRow);
    benchCompare(p, "index_table: write amplification", db, zSize, (double)(nUser / 10), "rows",
                 3.0 * aWrite[0].nRow, "write", aVar, 6);
  }

  {
    const BenchVariant aVar[] = {
        {BENCH_RELATIONAL, "relational: two NOT EXISTS queries (counts only)", 0, itCheckSql, 0},
        {BENCH_EXTENSION, "INSERT INTO users_by_city(users_by_city) VALUES('check')", 0, itCheck,
         (void *)"users_by_city"},
    };
    snprintf(zSize, sizeof(zSize), "%lld base rows", (long long)nUser);
    benchCompare(p, "index_table: drift check", db, zSize, (double)nUser, "base rows", (double)nUser,
                 "base row", aVar, 2);
  }
  free(cities.aId);
  free(tags.aId);
  sqlite3_close(db);
}
