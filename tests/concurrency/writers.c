/*
** writers.c: several processes write one nested_set, one inverted_index
** and a base table with two index tables (sync and deferred) in the same
** file database; nothing is lost and all stay consistent.
**
**   build/concurrency/writers EXTENSION [PROCESSES [WRITES]]
**
** The read-then-write paths of the virtual tables (nested_set reads the
** parent's labels, then relabels a window and inserts; inverted_index reads
** posting lists into its cache, then merges and writes them back) must see
** one consistent state per statement even when another process committed
** in between. For each journal mode (WAL, then the rollback journal) a
** fresh database gets PROCESSES children (default 4), each making WRITES
** (default 300) single-statement transactions: a node inserted under a
** parent chosen among the nodes that exist (any process's), and a document
** with terms drawn from a small vocabulary (and a NESTED field of two
** elements, so that element numbers are allocated concurrently), a row of
** a base table indexed
** by two index tables (every tenth write also runs the deferred one's
** 'refresh', which reads the log and the base table, then writes), with a
** busy timeout; a
** statement that fails with SQLITE_BUSY (a WAL snapshot gone stale) is
** retried. The parent then checks: PROCESSES x WRITES nodes and documents;
** the 'integrity-check' commands pass (the index tables' after a last
** 'refresh'); every term's MATCH count equals the
** count over the stored values; every node's subtree by descendant_of
** equals the one found by walking the parent links.
**
** Last line: "N passed, N failed". Exit code 1 on any failure.
*/
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static int nPass;
static int nFail;

static void check(int bOk, const char *zMode, const char *zWhat, const char *zDetail) {
  if (bOk) {
    printf("PASS %s: %s\n", zMode, zWhat);
    nPass++;
  } else {
    printf("FAIL %s: %s%s%s\n", zMode, zWhat, zDetail ? ": " : "", zDetail ? zDetail : "");
    nFail++;
  }
}

static sqlite3 *openDb(const char *zFile, const char *zExt) {
  sqlite3 *db = 0;
  char *zErr = 0;
  if (sqlite3_open(zFile, &db) != SQLITE_OK) return 0;
  sqlite3_busy_timeout(db, 60000);
  sqlite3_enable_load_extension(db, 1);
  if (sqlite3_load_extension(db, zExt, 0, &zErr) != SQLITE_OK) {
    fprintf(stderr, "writers: cannot load %s: %s\n", zExt, zErr);
    sqlite3_free(zErr);
    sqlite3_close(db);
    return 0;
  }
  return db;
}

/* Runs zSql, retrying while the database is busy. SQLITE_OK or the error. */
static int execRetry(sqlite3 *db, const char *zSql) {
  int rc, nTry = 0;
  do {
    rc = sqlite3_exec(db, zSql, 0, 0, 0);
    if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED) usleep(1000 + (rand() % 1000));
  } while (((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED) && ++nTry < 10000);
  if (rc != SQLITE_OK) fprintf(stderr, "writers: %s\n  %s\n", sqlite3_errmsg(db), zSql);
  return rc;
}

/* One integer from zSql, or -1. */
static sqlite3_int64 oneInt(sqlite3 *db, const char *zSql) {
  sqlite3_stmt *p = 0;
  sqlite3_int64 v = -1;
  if (sqlite3_prepare_v2(db, zSql, -1, &p, 0) == SQLITE_OK && sqlite3_step(p) == SQLITE_ROW) {
    v = sqlite3_column_int64(p, 0);
  }
  sqlite3_finalize(p);
  return v;
}

/* Child iChild: nWrite nodes and nWrite documents. Exit code 0 on success. */
static int child(const char *zFile, const char *zExt, int iChild, int nWrite) {
  sqlite3 *db = openDb(zFile, zExt);
  int k, rc = SQLITE_OK;
  if (db == 0) return 1;
  srand(1000 + iChild);
  for (k = 0; k < nWrite && rc == SQLITE_OK; k++) {
    sqlite3_int64 id = 1000000 * (sqlite3_int64)(iChild + 1) + k;
    char *zSql;
    /* A parent among the nodes that exist now: the root, or a node of any
    ** process picked by a random rank. */
    zSql = sqlite3_mprintf(
        "INSERT INTO tree(id, parent, name) SELECT %lld, id, 'p%d' FROM tree"
        " ORDER BY (id * %d) %% 1009 LIMIT 1",
        id, iChild, 1 + rand() % 997);
    rc = execRetry(db, zSql);
    sqlite3_free(zSql);
    if (rc != SQLITE_OK) break;
    zSql = sqlite3_mprintf(
        "INSERT INTO idx(rowid, a, b, c) VALUES (%lld, 'x%d', json_array('y%d', 'z%d'),"
        " json_array(json_object('k', 'k%d', 'l', 'l%d'), json_object('k', 'k%d')))",
        id, rand() % 13, rand() % 7, rand() % 5, rand() % 6, rand() % 3, rand() % 6);
    rc = execRetry(db, zSql);
    sqlite3_free(zSql);
    if (rc != SQLITE_OK) break;
    zSql = sqlite3_mprintf("INSERT INTO base(id, city, tags) VALUES (%lld, 'c%d', json_array('t%d', 't%d'))",
                           id, rand() % 11, rand() % 7, rand() % 5);
    rc = execRetry(db, zSql);
    sqlite3_free(zSql);
    if (rc == SQLITE_OK && k % 10 == 9) rc = execRetry(db, "INSERT INTO by_tag(by_tag) VALUES ('refresh')");
  }
  sqlite3_close(db);
  return rc == SQLITE_OK ? 0 : 1;
}

static void runMode(const char *zDir, const char *zExt, const char *zMode, int nProc, int nWrite) {
  char *zFile = sqlite3_mprintf("%s/%s.db", zDir, zMode);
  sqlite3 *db = openDb(zFile, zExt);
  pid_t aPid[64];
  int i, bChildrenOk = 1;
  char *zSql;
  if (db == 0) {
    check(0, zMode, "open", 0);
    sqlite3_free(zFile);
    return;
  }
  zSql = sqlite3_mprintf(
      "PRAGMA journal_mode = %s;"
      "CREATE VIRTUAL TABLE tree USING nested_set(name TEXT);"
      "INSERT INTO tree(id, parent, name) VALUES (1, NULL, 'root');"
      "CREATE VIRTUAL TABLE idx USING inverted_index(a, b, c NESTED(k, l));"
      "CREATE TABLE base(id INTEGER PRIMARY KEY, city TEXT, tags);"
      "CREATE VIRTUAL TABLE by_city USING index_table(base, key = 'city');"
      "CREATE VIRTUAL TABLE by_tag USING index_table(base, key = 'each(tags) AS tag', mode = 'deferred');",
      zMode);
  if (sqlite3_exec(db, zSql, 0, 0, 0) != SQLITE_OK) check(0, zMode, "set-up", sqlite3_errmsg(db));
  sqlite3_free(zSql);
  sqlite3_close(db);
  fflush(stdout);
  for (i = 0; i < nProc; i++) {
    aPid[i] = fork();
    if (aPid[i] == 0) _exit(child(zFile, zExt, i, nWrite));
  }
  for (i = 0; i < nProc; i++) {
    int status = 0;
    waitpid(aPid[i], &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) bChildrenOk = 0;
  }
  check(bChildrenOk, zMode, "every writer finished without an error", 0);

  db = openDb(zFile, zExt);
  if (db) {
    char zDetail[200];
    sqlite3_int64 nWant = (sqlite3_int64)nProc * nWrite, n;
    n = oneInt(db, "SELECT count(*) - 1 FROM tree");
    snprintf(zDetail, sizeof(zDetail), "%lld nodes, expected %lld", n, nWant);
    check(n == nWant, zMode, "no node lost", zDetail);
    n = oneInt(db, "SELECT count(*) FROM idx");
    snprintf(zDetail, sizeof(zDetail), "%lld documents, expected %lld", n, nWant);
    check(n == nWant, zMode, "no document lost", zDetail);
    check(sqlite3_exec(db, "INSERT INTO tree(tree) VALUES ('integrity-check')", 0, 0, 0) == SQLITE_OK, zMode,
          "nested_set integrity-check", sqlite3_errmsg(db));
    check(sqlite3_exec(db, "INSERT INTO idx(idx) VALUES ('integrity-check')", 0, 0, 0) == SQLITE_OK, zMode,
          "inverted_index integrity-check", sqlite3_errmsg(db));
    n = oneInt(db, "SELECT count(*) FROM by_city");
    snprintf(zDetail, sizeof(zDetail), "%lld entries, expected %lld", n, nWant);
    check(n == nWant, zMode, "no index_table entry lost", zDetail);
    check(sqlite3_exec(db, "INSERT INTO by_city(by_city) VALUES ('integrity-check')", 0, 0, 0) == SQLITE_OK,
          zMode, "index_table (sync) integrity-check", sqlite3_errmsg(db));
    check(sqlite3_exec(db,
                       "INSERT INTO by_tag(by_tag) VALUES ('refresh');"
                       "INSERT INTO by_tag(by_tag) VALUES ('integrity-check')",
                       0, 0, 0) == SQLITE_OK,
          zMode, "index_table (deferred) refresh and integrity-check", sqlite3_errmsg(db));
    n = oneInt(db, "SELECT count(*) FROM by_tag");
    check(n >= nWant, zMode, "the deferred index_table has every row's tags", 0);
    /* Every term: the index's count against the stored values. */
    n = oneInt(db,
               "WITH terms(f, t) AS ("
               "  SELECT 'a', a FROM idx GROUP BY a"
               "  UNION SELECT 'b', j.value FROM idx, json_each(idx.b) AS j),"
               " direct(f, t, n) AS ("
               "  SELECT 'a', a, count(*) FROM idx GROUP BY a"
               "  UNION ALL SELECT 'b', j.value, count(*) FROM idx, json_each(idx.b) AS j GROUP BY j.value)"
               " SELECT count(*) FROM direct"
               " WHERE n <> inverted_index_count('idx', f || ':' || t)");
    snprintf(zDetail, sizeof(zDetail), "%lld terms disagree", n);
    check(n == 0, zMode, "every term's MATCH count equals the stored values'", zDetail);
    n = oneInt(db, "SELECT count(*) FROM (SELECT 'a' FROM idx GROUP BY a)");
    check(n > 5, zMode, "the term check saw the vocabulary", 0);
    /* Every element query (a key and a level in one element) against json_each. */
    n = oneInt(db,
               "WITH q(k, l) AS (SELECT DISTINCT e.value ->> '$.k', e.value ->> '$.l' FROM idx, "
               "json_each(idx.c) AS e"
               "  WHERE e.value ->> '$.l' IS NOT NULL)"
               " SELECT count(*) FROM q WHERE (SELECT count(*) FROM idx WHERE EXISTS (SELECT 1 FROM "
               "json_each(idx.c) AS e"
               "  WHERE e.value ->> '$.k' = q.k AND e.value ->> '$.l' = q.l))"
               " <> inverted_index_count('idx', 'c:{k:' || q.k || ' AND l:' || q.l || '}')");
    snprintf(zDetail, sizeof(zDetail), "%lld element queries disagree", n);
    check(n == 0, zMode, "every element query's count equals json_each's", zDetail);
    n = oneInt(db, "SELECT count(DISTINCT e.value ->> '$.k') FROM idx, json_each(idx.c) AS e");
    check(n == 6, zMode, "the element check saw every key", 0);
    /* Subtrees by labels against subtrees by parent links, for a sample. */
    n = oneInt(db,
               "SELECT count(*) FROM (SELECT id FROM tree WHERE id % 7 = 0) AS s"
               " WHERE (SELECT count(*) FROM tree WHERE descendant_of = s.id) <>"
               " (WITH RECURSIVE d(x) AS (SELECT id FROM tree WHERE parent = s.id"
               "   UNION ALL SELECT t.id FROM tree AS t, d WHERE t.parent = d.x) SELECT count(*) FROM d)");
    snprintf(zDetail, sizeof(zDetail), "%lld subtrees disagree", n);
    check(n == 0, zMode, "subtrees by labels equal subtrees by parent links", zDetail);
    sqlite3_close(db);
  }
  sqlite3_free(zFile);
}

int main(int argc, char **argv) {
  char zDir[] = "/tmp/nosql-writers-XXXXXX";
  const char *zExt;
  int nProc = 4, nWrite = 300;
  char *zCmd;
  if (argc < 2) {
    fprintf(stderr, "usage: %s EXTENSION [PROCESSES [WRITES]]\n", argv[0]);
    return 2;
  }
  zExt = argv[1];
  if (argc > 2) nProc = atoi(argv[2]);
  if (argc > 3) nWrite = atoi(argv[3]);
  if (nProc < 1 || nProc > 64 || nWrite < 1) {
    fprintf(stderr, "writers: 1-64 processes and at least one write\n");
    return 2;
  }
  if (mkdtemp(zDir) == NULL) {
    perror("mkdtemp");
    return 2;
  }
  runMode(zDir, zExt, "wal", nProc, nWrite);
  runMode(zDir, zExt, "delete", nProc, nWrite);
  zCmd = sqlite3_mprintf("rm -rf '%s'", zDir);
  if (system(zCmd) != 0) fprintf(stderr, "writers: could not remove %s\n", zDir);
  sqlite3_free(zCmd);
  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail ? 1 : 0;
}
