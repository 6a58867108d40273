/*
** crash.c: the crash test of make test. A child process writes to a file
** database in transactions that touch nested_set, inverted_index,
** kv_incr, a base table with two index tables and an edge table with a
** graph_index together, and is killed with SIGKILL at a random moment; the
** parent then reopens the database and checks it, and starts the next
** child on the same file. N runs per journal mode (WAL and rollback).
**
**   build/crash [--runs N] [--seed S] [--mode wal|delete] [-v]
**
** N defaults to $NOSQL_CRASH_RUNS, else 10 (make test); the long run is
** NOSQL_CRASH_RUNS=50. Transaction k (k = 1, 2, ...) inserts three
** nested_set nodes (ids 3k-1 .. 3k+1) under nodes of earlier transactions,
** so labels are relocated, three inverted_index documents (rowids 3k-2 ..
** 3k, each with the terms "t<k>" and "all", and a NESTED field of two
** elements, {"s": "t<k>", "l": "all"} and {"s": "all"}), updates one
** earlier document (an odd rowid gains an element {"s": "x"}, up to 6,
** so its elements move to new numbers; an even one keeps them), inserts three rows (ids 3k-2 .. 3k, city
*"c<k>", tags
** ["t<k>", "all"]) into the base table of a sync and a deferred index
** table and updates one earlier row, runs the deferred one's 'refresh', and
** inserts the edges (k, k + 1) and (k, 1) into the graph_index's edge
** table (deleting (k - 1, 1) when 4 divides k), calls kv_incr('txn')
** once. After COMMIT returns, the child
** writes k to a pipe: every transaction the parent reads there is
** committed. After each kill the parent checks:
**
**   - PRAGMA integrity_check is "ok", and so are the modules'
**     'integrity-check' commands (the index tables' included);
**   - kv_get('txn') = n with n >= the last reported k (nothing committed is
**     lost) and n <= that k + 1 (the one commit the kill may have hidden);
**   - exactly the rows of transactions 1..n are there, in both modules,
**     and reachable through their indexes: descendant_of over the whole
**     tree, MATCH 'tag:t<k>' for every k <= n, and the index tables' keys
**     (atomicity: nothing of transaction n + 1).
**
** The schema is created by the parent before the first child starts.
** SIGKILL loses no write the OS has accepted, so synchronous=NORMAL tests
** what a process crash can do (not a power loss).
*/
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "nosql.h"

static int crashVerbose; /* -v: one line per run */

static uint64_t crashRand(uint64_t *pState) {
  uint64_t z = (*pState += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Run SQL; returns the result code, printing the error when zWhat is not NULL. */
static int crashExec(sqlite3 *db, const char *zSql, const char *zWhat) {
  char *zErr = NULL;
  int rc = sqlite3_exec(db, zSql, 0, 0, &zErr);
  if (rc != SQLITE_OK && zWhat) printf("FAIL %s: %s\n  in: %.200s\n", zWhat, zErr, zSql);
  sqlite3_free(zErr);
  return rc;
}

/* The first column of the first row of zSql as an integer; -1 on error or no row, *pzText its text. */
static sqlite3_int64 crashInt(sqlite3 *db, const char *zSql, char *zText, size_t nText) {
  sqlite3_stmt *pStmt = NULL;
  sqlite3_int64 v = -1;
  if (zText) zText[0] = 0;
  if (sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0) == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    v = sqlite3_column_type(pStmt, 0) == SQLITE_NULL ? 0 : sqlite3_column_int64(pStmt, 0);
    if (zText && sqlite3_column_text(pStmt, 0)) {
      snprintf(zText, nText, "%s", (const char *)sqlite3_column_text(pStmt, 0));
    }
  } else if (zText) {
    snprintf(zText, nText, "%s", sqlite3_errmsg(db));
  }
  sqlite3_finalize(pStmt);
  return v;
}

static sqlite3 *crashOpen(const char *zPath) {
  sqlite3 *db = NULL;
  if (sqlite3_open(zPath, &db) != SQLITE_OK) {
    printf("FAIL open %s: %s\n", zPath, sqlite3_errmsg(db));
    sqlite3_close(db);
    return NULL;
  }
  sqlite3_busy_timeout(db, 10000);
  return db;
}

/* The child: transactions until killed. Reports each committed k on fd. */
static void crashChild(const char *zPath, int fd, uint64_t seed) {
  sqlite3 *db = crashOpen(zPath);
  sqlite3_int64 k;
  if (db == NULL) _exit(3);
  crashExec(db, "PRAGMA synchronous = NORMAL", "synchronous");
  k = crashInt(db, "SELECT kv_get('txn')", 0, 0);
  if (k < 0) _exit(3);
  for (;;) {
    char *zSql;
    int rc;
    k++;
    zSql = sqlite3_mprintf(
        "BEGIN;"
        "INSERT INTO ns(id, parent, name) VALUES (%lld, %lld, 'n%lld'), (%lld, %lld, 'n%lld'),"
        " (%lld, %lld, 'n%lld');"
        "INSERT INTO ii(rowid, tag, grp) VALUES (%lld, '[\"t%lld\",\"all\"]', 'g%lld'),"
        " (%lld, '[\"t%lld\",\"all\"]', 'g%lld'), (%lld, '[\"t%lld\",\"all\"]', 'g%lld');"
        "UPDATE ii SET sk = json_array(json_object('s', 't' || ((rowid + 2) / 3), 'l', 'all'),"
        " json_object('s', 'all')) WHERE sk IS NULL;"
        "UPDATE ii SET grp = 'u%lld', sk = CASE WHEN rowid %% 2 = 1 AND json_array_length(sk) < 6"
        " THEN json_insert(sk, '$[#]', json_object('s', 'x')) ELSE sk END WHERE rowid = %lld;"
        "INSERT INTO base(id, city, tags) SELECT 3 * %lld - 2 + value, 'c%lld', json_array('t%lld', 'all')"
        " FROM json_each('[0, 1, 2]');"
        "UPDATE base SET city = city || 'x' WHERE id = %lld;"
        "INSERT INTO by_tag(by_tag) VALUES ('refresh');"
        "INSERT INTO ge(a, b) VALUES (%lld, %lld + 1), (%lld, 1);"
        "DELETE FROM ge WHERE %lld %% 4 = 0 AND a = %lld - 1 AND b = 1;"
        "SELECT kv_incr('txn');"
        "COMMIT;",
        3 * k - 1, 1 + (sqlite3_int64)(crashRand(&seed) % (uint64_t)(3 * k - 2)), k, 3 * k,
        1 + (sqlite3_int64)(crashRand(&seed) % (uint64_t)(3 * k - 2)), k, 3 * k + 1,
        1 + (sqlite3_int64)(crashRand(&seed) % (uint64_t)(3 * k - 2)), k, 3 * k - 2, k, k % 7, 3 * k - 1, k,
        k % 7, 3 * k, k, k % 7, k, 1 + (sqlite3_int64)(crashRand(&seed) % (uint64_t)(3 * k)), k, k, k,
        1 + (sqlite3_int64)(crashRand(&seed) % (uint64_t)(3 * k)), k, k, k, k, k);
    rc = zSql ? crashExec(db, zSql, "child transaction") : SQLITE_NOMEM;
    sqlite3_free(zSql);
    if (rc != SQLITE_OK) _exit(4);
    if (write(fd, &k, sizeof(k)) != (ssize_t)sizeof(k)) _exit(5);
  }
}

/* Check the database after a kill; returns the number of failed checks. */
static int crashCheck(const char *zPath, sqlite3_int64 iReported, sqlite3_int64 *pnTxn) {
  sqlite3 *db = crashOpen(zPath);
  char zText[256];
  char *zSql;
  sqlite3_int64 n, v, k;
  int nFail = 0;
  if (db == NULL) return 1;
  crashInt(db, "PRAGMA integrity_check", zText, sizeof(zText));
  if (strcmp(zText, "ok") != 0) {
    printf("FAIL PRAGMA integrity_check: %s\n", zText);
    nFail++;
  }
  if (crashExec(db, "INSERT INTO ns(ns) VALUES ('integrity-check')", "nested_set integrity-check")) nFail++;
  if (crashExec(db, "INSERT INTO ii(ii) VALUES ('integrity-check')", "inverted_index integrity-check"))
    nFail++;
  if (crashExec(db, "INSERT INTO by_city(by_city) VALUES ('integrity-check')", "index_table integrity-check"))
    nFail++;
  if (crashExec(db, "INSERT INTO by_tag(by_tag) VALUES ('integrity-check')", "index_table (deferred) check"))
    nFail++;
  if (crashExec(db, "INSERT INTO gx(gx) VALUES ('integrity-check')", "graph_index integrity-check")) nFail++;
  n = crashInt(db, "SELECT kv_get('txn')", zText, sizeof(zText));
  if (n < iReported || n > iReported + 1) {
    printf("FAIL kv_get('txn') is %lld (%s); the child reported commit %lld\n", (long long)n, zText,
           (long long)iReported);
    nFail++;
  }
  *pnTxn = n;
  v = crashInt(db, "SELECT count(*) FROM ns", 0, 0);
  if (v != 3 * n + 1) {
    printf("FAIL nested_set has %lld rows, expected %lld after %lld transactions\n", (long long)v,
           (long long)(3 * n + 1), (long long)n);
    nFail++;
  }
  v = crashInt(db, "SELECT count(*) FROM ns WHERE descendant_of = 1", 0, 0);
  if (v != 3 * n) {
    printf("FAIL descendant_of = 1 gives %lld rows, expected %lld\n", (long long)v, (long long)(3 * n));
    nFail++;
  }
  v = crashInt(db, "SELECT max(id) FROM ns", 0, 0);
  if (v != (n ? 3 * n + 1 : 1)) {
    printf("FAIL nested_set max(id) is %lld, expected %lld\n", (long long)v, (long long)(3 * n + 1));
    nFail++;
  }
  v = crashInt(db, "SELECT count(*) FROM ii WHERE ii MATCH 'tag:all'", zText, sizeof(zText));
  if (v != 3 * n) {
    printf("FAIL MATCH 'tag:all' gives %lld rows (%s), expected %lld\n", (long long)v, zText,
           (long long)(3 * n));
    nFail++;
  }
  v = crashInt(db, "SELECT count(*) FROM ii WHERE ii MATCH 'sk:{s:all AND NOT l:all}'", zText, sizeof(zText));
  if (v != 3 * n) {
    printf("FAIL MATCH 'sk:{s:all AND NOT l:all}' gives %lld rows (%s), expected %lld\n", (long long)v, zText,
           (long long)(3 * n));
    nFail++;
  }
  v = crashInt(db, "SELECT count(*) FROM by_city", 0, 0);
  if (v != 3 * n) {
    printf("FAIL index_table by_city has %lld rows, expected %lld\n", (long long)v, (long long)(3 * n));
    nFail++;
  }
  v = crashInt(db, "SELECT count(*) FROM by_tag WHERE tag = 'all'", 0, 0);
  if (v != 3 * n) {
    printf("FAIL index_table by_tag has %lld 'all' entries, expected %lld\n", (long long)v,
           (long long)(3 * n));
    nFail++;
  }
  /* Edges (k, k + 1) and (k, 1) of each transaction, (k - 1, 1) deleted when 4 divides k. */
  v = crashInt(db, "SELECT ifnull((SELECT sum(out_degree) FROM gx), 0) || ',' || (SELECT count(*) FROM ge)",
               zText, sizeof(zText));
  zSql = sqlite3_mprintf("%lld,%lld", 2 * n - n / 4, 2 * n - n / 4);
  if (zSql && strcmp(zText, zSql) != 0) {
    printf("FAIL graph_index out-degrees and edges %s, expected %s\n", zText, zSql);
    nFail++;
  }
  sqlite3_free(zSql);
  zSql = sqlite3_mprintf("SELECT count(*) FROM graph_path('gx', NULL, NULL, 1, %lld)", n + 1);
  v = zSql && n ? crashInt(db, zSql, zText, sizeof(zText)) : n + 1;
  sqlite3_free(zSql);
  if (v != n + 1) {
    printf("FAIL graph_path over the graph_index gives %lld steps (%s), expected %lld\n", (long long)v, zText,
           (long long)(n + 1));
    nFail++;
  }
  v = crashInt(db, "SELECT count(*) FROM ii", 0, 0);
  if (v != 3 * n) {
    printf("FAIL inverted_index has %lld rows, expected %lld\n", (long long)v, (long long)(3 * n));
    nFail++;
  }
  for (k = 1; k <= n + 1 && nFail == 0; k++) {
    zSql = sqlite3_mprintf(
        "SELECT count(*) || ',' || ifnull(min(rowid), 0) || ',' || ifnull(max(rowid), 0) FROM ii"
        " WHERE ii MATCH 'tag:t%lld'",
        k);
    crashInt(db, zSql, zText, sizeof(zText));
    sqlite3_free(zSql);
    zSql = sqlite3_mprintf("%s", k <= n ? "" : "0,0,0");
    if (k <= n) {
      sqlite3_free(zSql);
      zSql = sqlite3_mprintf("3,%lld,%lld", 3 * k - 2, 3 * k);
    }
    if (zSql && strcmp(zText, zSql) != 0) {
      printf("FAIL MATCH 'tag:t%lld' gives count,min,max %s, expected %s\n", (long long)k, zText, zSql);
      nFail++;
    }
    sqlite3_free(zSql);
    zSql = sqlite3_mprintf(
        "SELECT count(*) || ',' || ifnull(min(rowid), 0) || ',' || ifnull(max(rowid), 0) FROM ii"
        " WHERE ii MATCH 'sk:{s:t%lld AND l:all}'",
        k);
    crashInt(db, zSql, zText, sizeof(zText));
    sqlite3_free(zSql);
    zSql = k <= n ? sqlite3_mprintf("3,%lld,%lld", 3 * k - 2, 3 * k) : sqlite3_mprintf("0,0,0");
    if (zSql && strcmp(zText, zSql) != 0) {
      printf("FAIL MATCH 'sk:{s:t%lld AND l:all}' gives count,min,max %s, expected %s\n", (long long)k, zText,
             zSql);
      nFail++;
    }
    sqlite3_free(zSql);
    zSql = sqlite3_mprintf("SELECT count(*) FROM by_tag WHERE tag = 't%lld'", k);
    v = zSql ? crashInt(db, zSql, 0, 0) : -1;
    sqlite3_free(zSql);
    if (v != (k <= n ? 3 : 0)) {
      printf("FAIL index_table by_tag has %lld entries for 't%lld', expected %d\n", (long long)v,
             (long long)k, k <= n ? 3 : 0);
      nFail++;
    }
  }
  if (sqlite3_close(db) != SQLITE_OK) {
    printf("FAIL close: %s\n", sqlite3_errmsg(db));
    nFail++;
  }
  return nFail;
}

/* One journal mode: create the schema, then nRun kills and checks. Returns failed runs. */
static int crashMode(const char *zMode, int nRun, uint64_t *pSeed, int *pnPass) {
  char zDir[] = "/tmp/nosql-crash-XXXXXX";
  char zPath[128], zSql[128];
  sqlite3 *db;
  sqlite3_int64 iReported = 0, nTxn = 0, nKilled = 0;
  int nFail = 0, iRun;
  if (mkdtemp(zDir) == NULL) {
    printf("FAIL mkdtemp: %s\n", strerror(errno));
    return 1;
  }
  snprintf(zPath, sizeof(zPath), "%s/crash.db", zDir);
  db = crashOpen(zPath);
  if (db == NULL) return 1;
  snprintf(zSql, sizeof(zSql), "PRAGMA journal_mode = %s", zMode);
  if (crashExec(db, zSql, "journal_mode") ||
      crashExec(db,
                "CREATE VIRTUAL TABLE ns USING nested_set(name TEXT);"
                "INSERT INTO ns(id, parent, name) VALUES (1, NULL, 'root');"
                "CREATE VIRTUAL TABLE ii USING inverted_index(tag, grp, sk NESTED(s, l));"
                "CREATE TABLE base(id INTEGER PRIMARY KEY, city TEXT, tags);"
                "CREATE VIRTUAL TABLE by_city USING index_table(base, key = 'city', include = 'tags');"
                "CREATE VIRTUAL TABLE by_tag USING index_table(base, key = 'each(tags) AS tag', mode = "
                "'deferred');"
                "CREATE TABLE ge(id INTEGER PRIMARY KEY, a INTEGER, b INTEGER);"
                "CREATE INDEX ge_a ON ge(a);"
                "CREATE INDEX ge_b ON ge(b);"
                "CREATE VIRTUAL TABLE gx USING graph_index(ge, a, b);"
                "SELECT kv_incr('txn', 0);",
                "schema")) {
    sqlite3_close(db);
    return 1;
  }
  sqlite3_close(db);
  for (iRun = 0; iRun < nRun; iRun++) {
    int aPipe[2];
    pid_t pid;
    uint64_t childSeed = crashRand(pSeed);
    long nDelayUs = 2000 + (long)(crashRand(pSeed) % 60000); /* 2 to 62 ms */
    sqlite3_int64 k;
    int nRunFail, status = 0;
    if (pipe(aPipe) != 0) {
      printf("FAIL pipe: %s\n", strerror(errno));
      return nFail + 1;
    }
    fflush(stdout);
    pid = fork();
    if (pid < 0) {
      printf("FAIL fork: %s\n", strerror(errno));
      return nFail + 1;
    }
    if (pid == 0) {
      close(aPipe[0]);
      crashChild(zPath, aPipe[1], childSeed);
      _exit(0);
    }
    close(aPipe[1]);
    {
      struct timespec t;
      t.tv_sec = nDelayUs / 1000000;
      t.tv_nsec = (nDelayUs % 1000000) * 1000;
      nanosleep(&t, NULL);
    }
    if (kill(pid, SIGKILL) == 0) nKilled++;
    waitpid(pid, &status, 0);
    while (read(aPipe[0], &k, sizeof(k)) == (ssize_t)sizeof(k)) {
      if (k > iReported) iReported = k;
    }
    close(aPipe[0]);
    if (!(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)) {
      printf("FAIL %s run %d: the child ended by itself (status %d) before the kill\n", zMode, iRun, status);
      nFail++;
      continue;
    }
    nRunFail = crashCheck(zPath, iReported, &nTxn);
    if (nRunFail) {
      printf("FAIL %s run %d (child seed %llu, killed after %ld us): %d checks failed; database kept in %s\n",
             zMode, iRun, (unsigned long long)childSeed, nDelayUs, nRunFail, zDir);
      nFail++;
      return nFail; /* Later runs would build on a broken file */
    }
    if (iReported < nTxn) iReported = nTxn; /* The hidden commit is now known */
    (*pnPass)++;
    if (crashVerbose) {
      printf("ok %s run %d: killed after %ld us, %lld transactions committed\n", zMode, iRun, nDelayUs,
             (long long)nTxn);
    }
  }
  printf("%s: %d runs, %lld kills, %lld transactions committed and checked\n", zMode, nRun,
         (long long)nKilled, (long long)nTxn);
  snprintf(zSql, sizeof(zSql), "rm -rf '%s'", zDir);
  if (nFail == 0 && system(zSql) != 0) printf("note: could not remove %s\n", zDir);
  return nFail;
}

int main(int argc, char **argv) {
  const char *zEnv = getenv("NOSQL_CRASH_RUNS");
  int nRun = zEnv ? atoi(zEnv) : 10;
  uint64_t seed = (uint64_t)time(NULL);
  const char *zOnly = NULL;
  int nPass = 0, nFail = 0, k;
  for (k = 1; k < argc; k++) {
    if (strcmp(argv[k], "--runs") == 0 && k + 1 < argc) {
      nRun = atoi(argv[++k]);
    } else if (strcmp(argv[k], "--seed") == 0 && k + 1 < argc) {
      seed = strtoull(argv[++k], 0, 10);
    } else if (strcmp(argv[k], "--mode") == 0 && k + 1 < argc) {
      zOnly = argv[++k];
    } else if (strcmp(argv[k], "-v") == 0) {
      crashVerbose = 1;
    } else {
      fprintf(stderr, "usage: crash [--runs N] [--seed S] [--mode wal|delete] [-v]\n");
      return 2;
    }
  }
  printf("crash test: seed %llu (--seed to repeat), %d runs per journal mode\n", (unsigned long long)seed,
         nRun);
  sqlite3_auto_extension((void (*)(void))sqlite3_nosql_init);
  if (zOnly == NULL || strcmp(zOnly, "wal") == 0) nFail += crashMode("wal", nRun, &seed, &nPass);
  if (zOnly == NULL || strcmp(zOnly, "delete") == 0) nFail += crashMode("delete", nRun, &seed, &nPass);
  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail ? 1 : 0;
}
