/*
** history.c: the property test of index_table's maintenance (issue 13):
** random histories of writes to a base table (inserts, updates of key
** parts, copied columns and the rowid, deletes, INSERT OR REPLACE, UPSERT,
** transactions that commit or roll back, savepoints released or rolled
** back to) must leave every index table equal to the rows a direct query
** over the base table computes, after every step, in both modes (deferred
** index tables after a 'refresh'), and a content= inverted_index kept in
** step by the triggers docs/inverted_index.md shows must answer each term
** as the base table does. Every few steps the database is closed and
** reopened, and 'integrity-check' must pass; now and then it is VACUUMed.
** UPDATE OR REPLACE moves rows onto taken rowids (issue 25), with
** recursive_triggers switched on and off: while it is off, INSERT OR
** REPLACE gives no name, as a REPLACE that displaces a row through
** UNIQUE(name) needs recursive triggers (SQLite's rule,
** docs/index_table.md). Every index is also created over a base without
** an INTEGER PRIMARY KEY, which VACUUM renumbers: CREATE must refuse it.
**
**   build/property/history [--direct-off | --sync] EXTENSION [STEPS [SEED]]
**
** --direct-off runs the histories against inverted_index with direct=off
** instead (issue 29): one over content= kept by FTS5's trigger recipe
** ('delete' with the old values, then the new row), one that stores the
** values itself kept by SQL INSERT, UPDATE (of the rowid too), DELETE and
** 'delete' by rowid alone; every (term, rowid) pair of each must equal the
** base table's, and the stored index's rows the base rows. Recursive
** triggers stay on: a REPLACE must give the content= index the displaced
** row's values (FTS5's rule, docs/inverted_index.md).
**
** --sync runs them against inverted_index(..., content=people,
** mode='sync') (issue 37), with no trigger of the application's: the
** index's own triggers must follow every write, and the histories add
** UPDATE OR REPLACE through UNIQUE(name), REPLACE with a new rowid and
** moves through rowid, oid and _rowid_, with recursive_triggers switched
** on and off (INSERT OR REPLACE then gives names either way).
**
** Each index table is checked as "PASS name" or "FAIL name: step"; the last
** line is "N passed, N failed" for tests/run.sh.
*/
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prop.h"
#include "rows.h"

static int nPass, nFail;
static int bRecursive = 1; /* PRAGMA recursive_triggers of the connection */

/* One index table and the query that computes its rows from the base table. */
typedef struct HistIndex HistIndex;
struct HistIndex {
  const char *zName;   /* The index table */
  const char *zCreate; /* Its CREATE VIRTUAL TABLE */
  const char *zCols;   /* Columns compared, as the index table names them */
  const char *zDirect; /* The same rows computed from the base table */
  const char *zRead;   /* How the index is read, when not "SELECT zCols FROM zName" */
  int bDeferred;       /* Needs 'refresh' before comparing */
  int nBad;            /* Steps at which it differed */
  int nRows;           /* Steps at which it had rows */
};

static HistIndex aIndex[] = {
    {"by_city",
     "CREATE VIRTUAL TABLE by_city USING index_table(people, key = 'city', include = 'name, score')",
     "city, rowid, name, score", "SELECT city, id, name, score FROM people WHERE city IS NOT NULL", 0, 0, 0,
     0},
    {"by_tag",
     "CREATE VIRTUAL TABLE by_tag USING index_table(people, key = 'each(tags) AS tag, city', include = "
     "'name')",
     "tag, city, rowid, name",
     "SELECT j.value, p.city, p.id, p.name FROM people p, json_each(p.tags) j WHERE j.value IS NOT NULL AND"
     " p.city IS NOT NULL AND j.id = (SELECT min(k.id) FROM json_each(p.tags) k WHERE k.value = j.value)",
     0, 0, 0, 0},
    {"by_expr",
     "CREATE VIRTUAL TABLE by_expr USING index_table(people, key = 'lower(name) AS lname, score * 2 AS s2', "
     "include = '*')",
     "lname, s2, rowid, id, name, city, score, tags",
     "SELECT lower(name), score * 2, id, id, name, city, score, tags FROM people WHERE lower(name) IS NOT "
     "NULL AND"
     " score * 2 IS NOT NULL",
     0, 0, 0, 0},
    {"by_city_later",
     "CREATE VIRTUAL TABLE by_city_later USING index_table(people, key = 'city', include = 'score', mode = "
     "'deferred')",
     "city, rowid, score", "SELECT city, id, score FROM people WHERE city IS NOT NULL", 0, 1, 0, 0},
    {"by_tag_later",
     "CREATE VIRTUAL TABLE by_tag_later USING index_table(people, key = 'each(tags) AS tag', mode = "
     "'deferred')",
     "tag, rowid",
     "SELECT j.value, p.id FROM people p, json_each(p.tags) j WHERE j.value IS NOT NULL AND"
     " j.id = (SELECT min(k.id) FROM json_each(p.tags) k WHERE k.value = j.value)",
     0, 1, 0, 0},
    {"people_ii", "CREATE VIRTUAL TABLE people_ii USING inverted_index(city, content=people)", 0,
     "SELECT city, id FROM people WHERE city IS NOT NULL",
     "SELECT 'Boston', rowid FROM people_ii WHERE people_ii MATCH 'city:Boston' UNION ALL "
     "SELECT 'boston', rowid FROM people_ii WHERE people_ii MATCH 'city:boston' UNION ALL "
     "SELECT 'NYC', rowid FROM people_ii WHERE people_ii MATCH 'city:NYC' UNION ALL "
     "SELECT 'Paris', rowid FROM people_ii WHERE people_ii MATCH 'city:Paris' UNION ALL "
     "SELECT 'paris ', rowid FROM people_ii WHERE people_ii MATCH 'city:\"paris \"' UNION ALL "
     "SELECT 'Oslo', rowid FROM people_ii WHERE people_ii MATCH 'city:Oslo'",
     0, 0, 0},
};

/* The (term, rowid) pairs of index X's fields city and name, read through its vocabulary. */
#define HIST_TERMS(X)                                                                                       \
  "SELECT 'c', v.term, x.rowid FROM " X "_vocab v, " X " x WHERE v.field = 'city' AND x." X                 \
  " MATCH 'city:\"' || replace(v.term, '\"', '\"\"') || '\"' UNION ALL SELECT 'n', v.term, x.rowid FROM " X \
  "_vocab v, " X " x WHERE v.field = 'name' AND x." X                                                       \
  " MATCH 'name:\"' || replace(v.term, '\"', '\"\"') || '\"'"
#define HIST_TERMS_DIRECT                                                                   \
  "SELECT 'c', city, id FROM people WHERE city IS NOT NULL UNION ALL SELECT 'n', name, id " \
  "FROM people WHERE name IS NOT NULL"

/* --direct-off: the indexes with direct=off (issue 29). */
static HistIndex aOffIndex[] = {
    {"people_off",
     "CREATE VIRTUAL TABLE people_off USING inverted_index(city, name, content=people, direct=off);"
     "CREATE VIRTUAL TABLE people_off_vocab USING inverted_index_vocab(people_off)",
     0, HIST_TERMS_DIRECT, HIST_TERMS("people_off"), 0, 0, 0},
    {"people_st",
     "CREATE VIRTUAL TABLE people_st USING inverted_index(city, name, direct=off);"
     "CREATE VIRTUAL TABLE people_st_vocab USING inverted_index_vocab(people_st)",
     0, HIST_TERMS_DIRECT " UNION ALL SELECT 'r', quote(city) || quote(name), id FROM people",
     HIST_TERMS("people_st") " UNION ALL SELECT 'r', quote(city) || quote(name), rowid FROM people_st", 0, 0,
     0},
};

/* --sync: the index that keeps itself in step (issue 37). */
static HistIndex aSyncIndex[] = {
    {"people_sync",
     "CREATE VIRTUAL TABLE people_sync USING inverted_index(city, name, content=people, mode='sync');"
     "CREATE VIRTUAL TABLE people_sync_vocab USING inverted_index_vocab(people_sync)",
     0, HIST_TERMS_DIRECT, HIST_TERMS("people_sync"), 0, 0, 0},
};

static HistIndex *aIdx = aIndex;                                   /* The indexes of this run */
static int nHistIndex = (int)(sizeof(aIndex) / sizeof(aIndex[0])); /* How many */
static int bDirectOff = 0;                                         /* --direct-off */
static int bSync = 0;                                              /* --sync */

/* A random value for a column: NULL, duplicates, case variants, numbers of both kinds. */
static char *histValue(int eCol) {
  static const char *const azCity[] = {"NULL",    "'Boston'", "'boston'", "'NYC'",
                                       "'Paris'", "'paris '", "'Oslo'"};
  static const char *const azTags[] = {"NULL",
                                       "'[]'",
                                       "'[\"a\"]'",
                                       "'[\"a\", \"b\"]'",
                                       "'[\"b\", \"a\", \"b\"]'",
                                       "'[1, 1.0, \"1\"]'",
                                       "'\"solo\"'",
                                       "'[null, \"c\"]'",
                                       "'[[1, 2], \"a\"]'"};
  switch (eCol) {
    case 0:
      return sqlite3_mprintf("%s", azCity[propRand(7)]);
    case 1:
      return propRand(8) ? sqlite3_mprintf("'%s%d'", propRand(2) ? "Ann" : "ann", propRand(5))
                         : sqlite3_mprintf("NULL");
    case 2:
      return propRand(6) ? sqlite3_mprintf("%d%s", (int)propRand(7) - 3, propRand(3) ? "" : ".5")
                         : sqlite3_mprintf("NULL");
    default:
      return sqlite3_mprintf("%s", azTags[propRand(9)]);
  }
}

/* One random write to people. */
static char *histWrite(void) {
  int id = 1 + (int)propRand(40);
  char *zA = histValue(0), *zB = histValue(1), *zC = histValue(2), *zD = histValue(3), *z;
  static const char *const azCol[] = {"city", "name", "score", "tags"};
  int iCol = (int)propRand(4);
  switch (propRand(bSync ? 14 : 11)) {
    case 0:
    case 1:
      z = sqlite3_mprintf(
          "INSERT OR IGNORE INTO people(id, city, name, score, tags) VALUES (%d, %s, %s, %s, %s)", id, zA, zB,
          zC, zD);
      break;
    case 2:
      z = sqlite3_mprintf(
          "INSERT OR REPLACE INTO people(id, city, name, score, tags) VALUES (%d, %s, %s, %s, %s)", id, zA,
          bRecursive || bSync ? zB : "NULL", zC, zD);
      break;
    case 3:
      z = sqlite3_mprintf(
          "INSERT INTO people(id, city, name, score, tags) VALUES (%d, %s, %s, %s, %s) ON CONFLICT(id)"
          " DO UPDATE SET %s = excluded.%s",
          id, zA, zB, zC, zD, azCol[iCol], azCol[iCol]);
      break;
    case 4:
    case 5: {
      char *zV = histValue(iCol);
      z = sqlite3_mprintf("UPDATE people SET %s = %s WHERE id %% 7 = %d", azCol[iCol], zV, id % 7);
      sqlite3_free(zV);
      break;
    }
    case 6:
      z = sqlite3_mprintf("UPDATE OR IGNORE people SET id = id + %d WHERE id = %d", 1 + (int)propRand(5), id);
      break;
    case 7:
      z = sqlite3_mprintf("DELETE FROM people WHERE id = %d", id);
      break;
    case 9:
      /* A move onto a rowid that may be taken: REPLACE displaces its row. */
      z = sqlite3_mprintf("UPDATE OR REPLACE people SET id = %d WHERE id = %d", 1 + (int)propRand(40), id);
      break;
    case 10:
      /* Moves in a chain, each row onto the next one's rowid. */
      z = sqlite3_mprintf("UPDATE OR REPLACE people SET id = id + 1 WHERE id BETWEEN %d AND %d", id, id + 2);
      break;
    case 11:
      /* --sync: a REPLACE through UNIQUE(name). */
      z = sqlite3_mprintf("UPDATE OR REPLACE people SET name = %s WHERE id = %d", zB, id);
      break;
    case 12: {
      static const char *const azRowid[] = {"rowid", "oid", "_rowid_"};
      z = sqlite3_mprintf("UPDATE OR IGNORE people SET %s = %d WHERE id = %d", azRowid[propRand(3)],
                          1 + (int)propRand(40), id);
      break;
    }
    case 13:
      z = sqlite3_mprintf("REPLACE INTO people(city, name) VALUES (%s, %s)", zA, zB);
      break;
    default:
      z = sqlite3_mprintf("UPDATE people SET name = name || 'x' WHERE id BETWEEN %d AND %d", id, id + 3);
      break;
  }
  sqlite3_free(zA);
  sqlite3_free(zB);
  sqlite3_free(zC);
  sqlite3_free(zD);
  return z;
}

/* Compare every index table with its direct query; refresh the deferred ones first. */
static void histCompare(sqlite3 *db, int iStep, const char *zLast) {
  int k;
  for (k = 0; k < nHistIndex; k++) {
    HistIndex *p = &aIdx[k];
    char *zSql, *zA, *zB, *zErrA = NULL, *zErrB = NULL;
    int nA = 0, nB = 0;
    if (p->bDeferred) {
      zSql = sqlite3_mprintf("INSERT INTO %s(%s) VALUES('refresh')", p->zName, p->zName);
      if (sqlite3_exec(db, zSql, 0, 0, 0) != SQLITE_OK && p->nBad++ < 3) {
        printf("FAIL %s: step %d refresh: %s\n", p->zName, iStep, sqlite3_errmsg(db));
      }
      sqlite3_free(zSql);
    }
    zSql =
        p->zRead ? sqlite3_mprintf("%s", p->zRead) : sqlite3_mprintf("SELECT %s FROM %s", p->zCols, p->zName);
    zA = propRows(db, zSql, &nA, &zErrA);
    zB = propRows(db, p->zDirect, &nB, &zErrB);
    if (zErrA || zErrB || strcmp(zA, zB) != 0) {
      if (p->nBad++ < 3) {
        printf("FAIL %s: step %d after %s\n  index table: %s\n%s  direct: %s\n%s", p->zName, iStep, zLast,
               zErrA ? zErrA : "", zA, zErrB ? zErrB : "", zB);
      }
    } else if (nA > 0) {
      p->nRows++;
    }
    sqlite3_free(zSql);
    sqlite3_free(zErrA);
    sqlite3_free(zErrB);
    free(zA);
    free(zB);
  }
}

/*
** Every index over a base without an INTEGER PRIMARY KEY, whose rowids
** VACUUM may renumber: CREATE must refuse it, naming the rule.
*/
static void histRefuseLoose(sqlite3 *db) {
  int k, nBad = 0;
  sqlite3_exec(
      db, "CREATE TABLE loose(id INT PRIMARY KEY, city TEXT COLLATE NOCASE, name TEXT, score REAL, tags)", 0,
      0, 0);
  for (k = 0; k < nHistIndex; k++) {
    sqlite3_stmt *pStmt = NULL;
    const char *zSql = NULL;
    int rc;
    /* An index that stores its values has no base to renumber. */
    if (!strstr(aIdx[k].zCreate, "content=") && !strstr(aIdx[k].zCreate, "index_table")) continue;
    sqlite3_prepare_v2(db,
                       "SELECT replace(replace(?1, 'people', 'loose'), 'VIRTUAL TABLE ', 'VIRTUAL TABLE x_')",
                       -1, &pStmt, 0);
    sqlite3_bind_text(pStmt, 1, aIdx[k].zCreate, -1, SQLITE_STATIC);
    if (sqlite3_step(pStmt) == SQLITE_ROW) zSql = (const char *)sqlite3_column_text(pStmt, 0);
    rc = zSql ? sqlite3_exec(db, zSql, 0, 0, 0) : SQLITE_NOMEM;
    if (rc == SQLITE_OK ||
        strstr(sqlite3_errmsg(db), "has no INTEGER PRIMARY KEY: VACUUM may renumber") == NULL) {
      printf("FAIL %s over a base without INTEGER PRIMARY KEY: %s\n", aIdx[k].zName,
             rc == SQLITE_OK ? "created" : sqlite3_errmsg(db));
      nBad++;
    }
    sqlite3_finalize(pStmt);
  }
  if (nBad) {
    nFail++;
  } else {
    printf("PASS every index refuses a base without INTEGER PRIMARY KEY\n");
    nPass++;
  }
}

/*
** Run one write. It may fail only as the schema says (UNIQUE(name), a tags
** value that is no JSON array, scalar or NULL): any other error, such as
** an index refusing a rowid a REPLACE freed, is a failure of the test.
*/
static void histExec(sqlite3 *db, const char *zWrite, int iStep) {
  static int nBad = 0;
  const char *zErr;
  if (sqlite3_exec(db, zWrite, 0, 0, 0) == SQLITE_OK) return;
  zErr = sqlite3_errmsg(db);
  if (strcmp(zErr, "UNIQUE constraint failed: people.name") == 0 || strstr(zErr, "malformed JSON") ||
      strstr(zErr, "needs a JSON array, a JSON scalar or NULL") ||
      strstr(zErr, "cannot start a transaction within a transaction") ||
      (bDirectOff && strstr(zErr, "is not a string or an integer"))) {
    return;
  }
  if (nBad++ == 0) nFail++;
  if (nBad <= 3) printf("FAIL step %d: %s: %s\n", iStep, zWrite, zErr);
}

static sqlite3 *histOpen(const char *zFile, const char *zExt) {
  sqlite3 *db = propOpen(zFile, zExt, 0);
  if (db == NULL) {
    printf("FAIL load: %s (the reason is above)\n0 passed, 1 failed\n", zExt);
    exit(1);
  }
  /* REPLACE deletes the rows it displaces without delete triggers unless
  ** recursive triggers are on (SQLite's rule; docs/index_table.md): a
  ** rowid move must work either way. */
  sqlite3_exec(db, bRecursive ? "PRAGMA recursive_triggers = ON" : "PRAGMA recursive_triggers = OFF", 0, 0,
               0);
  return db;
}

int main(int argc, char **argv) {
  char zFile[64];
  sqlite3 *db;
  int nStep, i, k, nTxn = 0;
  if (argc > 1 && strcmp(argv[1], "--direct-off") == 0) {
    bDirectOff = 1;
    aIdx = aOffIndex;
    nHistIndex = (int)(sizeof(aOffIndex) / sizeof(aOffIndex[0]));
    argv++;
    argc--;
  } else if (argc > 1 && strcmp(argv[1], "--sync") == 0) {
    bSync = 1;
    aIdx = aSyncIndex;
    nHistIndex = (int)(sizeof(aSyncIndex) / sizeof(aSyncIndex[0]));
    argv++;
    argc--;
  }
  nStep = argc > 2 ? atoi(argv[2]) : 400;
  propSeed = propState = argc > 3 ? strtoull(argv[3], 0, 10) : 20261125;
  if (argc < 2) {
    fprintf(stderr, "usage: %s [--direct-off | --sync] EXTENSION [STEPS [SEED]]\n", argv[0]);
    return 2;
  }
  snprintf(zFile, sizeof(zFile), "/tmp/nosql-history-%d.db", (int)getpid());
  remove(zFile);
  db = histOpen(zFile, argv[1]);
  sqlite3_exec(
      db,
      "CREATE TABLE people(id INTEGER PRIMARY KEY, city TEXT COLLATE NOCASE, name TEXT, score REAL, tags,"
      " UNIQUE(name));",
      0, 0, 0);
  for (k = 0; k < nHistIndex; k++) {
    if (sqlite3_exec(db, aIdx[k].zCreate, 0, 0, 0) != SQLITE_OK) {
      printf("FAIL create %s: %s\n0 passed, 1 failed\n", aIdx[k].zName, sqlite3_errmsg(db));
      return 1;
    }
  }
  /* The application's triggers of the content= index (docs/inverted_index.md). */
  if (bSync) {
    /* None: the index made its own. */
  } else if (bDirectOff) {
    /* FTS5's recipe for content= direct=off; SQL writes (and 'delete' by rowid) for the stored one. */
    sqlite3_exec(
        db,
        "CREATE TRIGGER people_ai AFTER INSERT ON people BEGIN"
        " INSERT INTO people_off(rowid, city, name) VALUES (new.id, new.city, new.name);"
        " INSERT INTO people_st(rowid, city, name) VALUES (new.id, new.city, new.name); END;"
        "CREATE TRIGGER people_ad AFTER DELETE ON people BEGIN"
        " INSERT INTO people_off(people_off, rowid, city, name) VALUES ('delete', old.id, old.city,"
        " old.name); END;"
        "CREATE TRIGGER people_ad0 AFTER DELETE ON people WHEN old.id % 2 = 0 BEGIN"
        " INSERT INTO people_st(people_st, rowid) VALUES ('delete', old.id); END;"
        "CREATE TRIGGER people_ad1 AFTER DELETE ON people WHEN old.id % 2 = 1 BEGIN"
        " DELETE FROM people_st WHERE rowid = old.id; END;"
        "CREATE TRIGGER people_au AFTER UPDATE ON people BEGIN"
        " INSERT INTO people_off(people_off, rowid, city, name) VALUES ('delete', old.id, old.city,"
        " old.name);"
        " INSERT INTO people_off(rowid, city, name) VALUES (new.id, new.city, new.name);"
        " UPDATE people_st SET rowid = new.id, city = new.city, name = new.name WHERE rowid = old.id;"
        " END;",
        0, 0, 0);
  } else {
    sqlite3_exec(
        db,
        "CREATE TRIGGER people_ai AFTER INSERT ON people BEGIN INSERT INTO people_ii(rowid, city) VALUES "
        "(new.id, new.city); END;"
        "CREATE TRIGGER people_ad AFTER DELETE ON people BEGIN INSERT INTO people_ii(people_ii, rowid) "
        "VALUES ('delete', old.id); END;"
        "CREATE TRIGGER people_au AFTER UPDATE ON people BEGIN UPDATE people_ii SET rowid = new.id, city "
        "= new.city WHERE rowid = old.id; END;",
        0, 0, 0);
  }
  histRefuseLoose(db);
  for (i = 0; i < nStep; i++) {
    char *zW = histWrite();
    unsigned eTxn = propRand(10);
    if (eTxn == 0) {
      /* A transaction of several writes that rolls back, or commits. */
      int bCommit = (int)propRand(2), j;
      sqlite3_exec(db, "BEGIN", 0, 0, 0);
      for (j = 0; j < 4; j++) {
        char *z = histWrite();
        histExec(db, z, i);
        sqlite3_free(z);
      }
      sqlite3_exec(db, bCommit ? "COMMIT" : "ROLLBACK", 0, 0, 0);
      nTxn++;
    } else if (eTxn == 1) {
      /* A savepoint rolled back to inside a transaction that commits. */
      sqlite3_exec(db, "BEGIN; SAVEPOINT s", 0, 0, 0);
      histExec(db, zW, i);
      sqlite3_exec(db, propRand(2) ? "ROLLBACK TO s" : "RELEASE s", 0, 0, 0);
      sqlite3_exec(db, "COMMIT", 0, 0, 0);
      nTxn++;
    } else {
      /* A write that fails (UNIQUE(name), a bad tags value) must leave nothing. */
      histExec(db, zW, i);
    }
    if (propRand(30) == 0 && sqlite3_exec(db, "VACUUM", 0, 0, 0) != SQLITE_OK) {
      printf("FAIL VACUUM at step %d: %s\n", i, sqlite3_errmsg(db));
      nFail++;
    }
    if (propRand(20) == 0 && (!bDirectOff || bSync)) {
      bRecursive = !bRecursive;
      sqlite3_exec(db, bRecursive ? "PRAGMA recursive_triggers = ON" : "PRAGMA recursive_triggers = OFF", 0,
                   0, 0);
    }
    histCompare(db, i, zW);
    if (i % 50 == 49) {
      sqlite3_close(db);
      db = histOpen(zFile, argv[1]);
      for (k = 0; k < nHistIndex; k++) {
        char *zSql =
            sqlite3_mprintf("INSERT INTO %s(%s) VALUES('integrity-check')", aIdx[k].zName, aIdx[k].zName);
        if (sqlite3_exec(db, zSql, 0, 0, 0) != SQLITE_OK && aIdx[k].nBad++ < 3) {
          printf("FAIL %s: integrity-check at step %d: %s\n", aIdx[k].zName, i, sqlite3_errmsg(db));
        }
        sqlite3_free(zSql);
      }
    }
    sqlite3_free(zW);
  }
  for (k = 0; k < nHistIndex; k++) {
    if (aIdx[k].nBad) {
      printf("FAIL %s: differed from the base table at %d of %d steps\n", aIdx[k].zName, aIdx[k].nBad, nStep);
      nFail++;
    } else if (aIdx[k].nRows < nStep / 2) {
      printf("FAIL %s: had rows at only %d of %d steps (a test that cannot fail)\n", aIdx[k].zName,
             aIdx[k].nRows, nStep);
      nFail++;
    } else {
      printf("PASS %s: equal to its direct query after each of %d steps (%d transactions)\n", aIdx[k].zName,
             nStep, nTxn);
      nPass++;
    }
  }
  sqlite3_close(db);
  remove(zFile);
  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail ? 1 : 0;
}
