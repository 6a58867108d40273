/*
** plan.c: the property test of the virtual tables' planning (issue 16):
** random WHERE clauses (operators, IN lists, values of every type, -0.0,
** collations BINARY, NOCASE and RTRIM, unary plus that keeps a constraint
** from the table) must return the same rows from the virtual table as from
** a plain table holding a copy of its rows under the same declared types
** and collations, where SQLite evaluates everything itself.
**
**   build/property/plan EXTENSION [QUERIES [SEED]]
**
** Tables: composite_scan over delimited text keys (parts carry the
** separator collation), composite_scan over ckey blobs (REAL, INTEGER and
** TEXT parts), nested_set with a TEXT payload, and inverted_index's field
** columns. Each check prints "PASS name" or "FAIL name: query"; the last
** line is "N passed, N failed" for tests/run.sh.
*/
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prop.h"
#include "rows.h"

static int nPass, nFail;

/* One table under test: the virtual table, its plain copy, the columns a WHERE may use. */
typedef struct PropTable PropTable;
struct PropTable {
  const char *zName;      /* For messages */
  const char *zVtab;      /* The virtual table */
  const char *zCopy;      /* The plain table with the same rows */
  const char *zCols;      /* Columns selected (both sides) */
  const char *azWhere[8]; /* Columns a WHERE uses, NULL-terminated */
};

static const char *const azSetup[] = {
    /* composite_scan over delimited text keys. */
    "CREATE TABLE s(k TEXT PRIMARY KEY, v INTEGER)",
    "INSERT INTO s VALUES ('CA:LA:1', 1), ('CA:SF:2', 2), ('ca:sf:3', 3), ('NY:NYC:4', 4), ('ny:nyc:5', 5),"
    " ('CA:San Francisco:6', 6), ('CA:San Francisco2:7', 7), ('TX:  :8', 8), ('tx:a b:9', 9), ('CA:LA :10', "
    "10),"
    " ('Ca:la:11', 11), ('NY::12', 12)",
    "CREATE VIRTUAL TABLE vs USING composite_scan(s, k, state, city, id, sep=':')",
    "CREATE TABLE cs(state TEXT COLLATE composite_scan_3a, city TEXT COLLATE composite_scan_3a,"
    " id TEXT COLLATE composite_scan_3a_last, k TEXT, v INTEGER)",
    "INSERT INTO cs SELECT state, city, id, k, v FROM vs",
    /* composite_scan over ckey blobs, with -0.0 and 0.0. */
    "CREATE TABLE b(k BLOB PRIMARY KEY, v) WITHOUT ROWID",
    "INSERT INTO b SELECT ckey(x.value, n.value, t.value), x.key * 100 + n.key * 10 + t.key FROM"
    " json_each('[-1.5, -0.0, 0.0, 0.5, 2.25, 1e300]') x, json_each('[-3, 0, 7]') n, json_each('[\"a\", "
    "\"A\", \"b \", \"B\"]') t",
    "CREATE VIRTUAL TABLE vb USING composite_scan(b, k, x REAL, n INTEGER, t TEXT)",
    "CREATE TABLE cb(x REAL, n INTEGER, t TEXT, k BLOB, v)", "INSERT INTO cb SELECT x, n, t, k, v FROM vb",
    /* nested_set with a payload. */
    "CREATE VIRTUAL TABLE ns USING nested_set(name TEXT)",
    "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 60)"
    " INSERT INTO ns(id, parent, name) SELECT i, CASE WHEN i = 1 THEN NULL ELSE (i * 7) % (i - 1) + 1 END,"
    " substr('aAbB', 1 + i % 4, 1) || CASE WHEN i % 5 = 0 THEN ' ' ELSE '' END FROM c",
    "CREATE TABLE cn(id INTEGER, parent INTEGER, depth INTEGER, name TEXT)",
    "INSERT INTO cn SELECT id, parent, depth, name FROM ns",
    /* inverted_index field columns. */
    "CREATE VIRTUAL TABLE ii USING inverted_index(tag, grp)",
    "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 40)"
    " INSERT INTO ii(rowid, tag, grp) SELECT i, CASE i % 3 WHEN 0 THEN 'a' WHEN 1 THEN 'A' ELSE 'b' END,"
    " i % 4 FROM c",
    "CREATE TABLE ci(rid INTEGER, tag, grp)", "INSERT INTO ci SELECT rowid, tag, grp FROM ii",
    /* index_table: typed and collated key parts, an each() part, an expression part, a copy. */
    "CREATE TABLE ub(id INTEGER PRIMARY KEY, state TEXT COLLATE NOCASE, n INTEGER, t TEXT COLLATE RTRIM, "
    "tags,"
    " v REAL)",
    "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 48)"
    " INSERT INTO ub SELECT i, substr('CAcaNYnyLA', 1 + 2 * (i % 5), 2), CASE WHEN i % 7 = 0 THEN NULL ELSE"
    " i % 9 - 3 END, substr('aAb B', 1 + i % 5, 1) || CASE WHEN i % 3 = 0 THEN ' ' ELSE '' END,"
    " json_array(i % 4, substr('aAbB', 1 + i % 4, 1), CASE WHEN i % 2 THEN 0.5 ELSE '1' END, -0.0),"
    " CASE i % 4 WHEN 0 THEN 0.0 WHEN 1 THEN -0.0 WHEN 2 THEN 0.5 ELSE 1e300 END FROM c",
    "CREATE VIRTUAL TABLE it1 USING index_table(ub, key = 'state, n', include = 't, v')",
    "CREATE TABLE ct1(state TEXT COLLATE NOCASE, n INTEGER, t TEXT COLLATE RTRIM, v REAL, rowid INTEGER)",
    "INSERT INTO ct1 SELECT state, n, t, v, id FROM ub WHERE state IS NOT NULL AND n IS NOT NULL",
    "CREATE VIRTUAL TABLE it2 USING index_table(ub, key = 'each(tags) AS tag, t', include = 'state')",
    "CREATE TABLE ct2(tag, t TEXT COLLATE RTRIM, state TEXT COLLATE NOCASE, rowid INTEGER)",
    "INSERT INTO ct2 SELECT DISTINCT j.value, ub.t, ub.state, ub.id FROM ub, json_each(ub.tags) j",
    "CREATE VIRTUAL TABLE it3 USING index_table(ub, key = 'n * 2 AS n2, v')",
    "CREATE TABLE ct3(n2, v REAL, rowid INTEGER)",
    "INSERT INTO ct3 SELECT n * 2, v, id FROM ub WHERE n IS NOT NULL AND v IS NOT NULL", NULL};

static const PropTable aTable[] = {
    {"composite_scan (text)", "vs", "cs", "state, city, id, k, v", {"state", "city", "id", "k", "v", NULL}},
    {"composite_scan (ckey)", "vb", "cb", "x, n, t, k, v", {"x", "n", "t", "k", NULL}},
    {"nested_set", "ns", "cn", "id, parent, depth, name", {"id", "parent", "depth", "name", NULL}},
    {"inverted_index", "ii", "ci", "tag, grp", {"tag", "grp", NULL}},
    {"index_table (columns)", "it1", "ct1", "state, n, t, v, rowid", {"state", "n", "t", "v", "rowid", NULL}},
    {"index_table (each)", "it2", "ct2", "tag, t, state, rowid", {"tag", "t", "state", "rowid", NULL}},
    {"index_table (expression)", "it3", "ct3", "n2, v, rowid", {"n2", "v", "rowid", NULL}},
};

static const char *const azValue[] = {"NULL",
                                      "0",
                                      "-0.0",
                                      "0.0",
                                      "1",
                                      "2",
                                      "7",
                                      "-3",
                                      "0.5",
                                      "-1.5",
                                      "1e300",
                                      "'1'",
                                      "'2'",
                                      "'a'",
                                      "'A'",
                                      "'b '",
                                      "'B'",
                                      "'CA'",
                                      "'ca'",
                                      "'Ca'",
                                      "'NY'",
                                      "'ny'",
                                      "'LA'",
                                      "'la'",
                                      "'LA '",
                                      "'SF'",
                                      "'sf'",
                                      "'San Francisco'",
                                      "'San Francisco2'",
                                      "'  '",
                                      "''",
                                      "'CA:LA'",
                                      "'ca:sf:3'",
                                      "'CA:SF:2'",
                                      "'NY:'",
                                      "x'00'",
                                      "x'41'",
                                      "ckey(0.0)",
                                      "ckey(-0.0, 0)",
                                      "3",
                                      "4",
                                      "10",
                                      "12"};
static const char *const azOp[] = {"=", "<", "<=", ">", ">=", "<>", "IS", "IS NOT", "==", "!="};
static const char *const azColl[] = {"", "", "", " COLLATE NOCASE", " COLLATE RTRIM", " COLLATE BINARY"};

/* One random term over the columns of t; bPlus puts + before the column. */
static char *propTerm(const PropTable *t, int bPlus) {
  int nCol = 0;
  const char *zCol, *zColl = azColl[propRand(6)];
  const char *zA = azValue[propRand(sizeof(azValue) / sizeof(azValue[0]))];
  const char *zB = azValue[propRand(sizeof(azValue) / sizeof(azValue[0]))];
  while (t->azWhere[nCol]) nCol++;
  zCol = t->azWhere[propRand((unsigned)nCol)];
  switch (propRand(8)) {
    case 0:
      return sqlite3_mprintf("%s%s%s IN (%s, %s)", bPlus ? "+" : "", zCol, zColl, zA, zB);
    case 1:
      return sqlite3_mprintf("%s%s%s BETWEEN %s AND %s", bPlus ? "+" : "", zCol, zColl, zA, zB);
    case 2:
      return sqlite3_mprintf("%s %s %s%s%s", zA, azOp[propRand(10)], bPlus ? "+" : "", zCol, zColl);
    default:
      return sqlite3_mprintf("%s%s%s %s %s", bPlus ? "+" : "", zCol, zColl, azOp[propRand(10)], zA);
  }
}

int main(int argc, char **argv) {
  sqlite3 *db = NULL;

  int nQuery = argc > 2 ? atoi(argv[2]) : 500, i, k;
  propSeed = propState = argc > 3 ? strtoull(argv[3], 0, 10) : 20261124;
  if (argc < 2) {
    fprintf(stderr, "usage: %s EXTENSION [QUERIES [SEED]]\n", argv[0]);
    return 2;
  }
  db = propStart(":memory:", argv[1], 0, azSetup);
  if (db == NULL) return 1;
  for (k = 0; k < (int)(sizeof(aTable) / sizeof(aTable[0])); k++) {
    const PropTable *t = &aTable[k];
    int nBad = 0, nRows = 0;
    for (i = 0; i < nQuery; i++) {
      unsigned long long save = propState;
      int nTerm = 1 + (int)propRand(3), j, bPlus = (int)propRand(3) == 0;
      char *zWhere = sqlite3_mprintf(""), *zWhereRef;
      char *zA, *zB, *zEa, *zEb, *zSqlA, *zSqlB;
      for (j = 0; j < nTerm; j++) {
        char *zT = propTerm(t, bPlus && propRand(2));
        zWhere = sqlite3_mprintf("%z%s%s", zWhere, j ? (propRand(4) ? " AND " : " OR ") : "", zT);
        sqlite3_free(zT);
      }
      (void)save;
      zWhereRef = zWhere;
      zSqlA = sqlite3_mprintf("SELECT %s FROM %s WHERE %s", t->zCols, t->zVtab, zWhere);
      zSqlB = sqlite3_mprintf("SELECT %s FROM %s WHERE %s", t->zCols, t->zCopy, zWhereRef);
      zA = propRows(db, zSqlA, NULL, &zEa);
      zB = propRows(db, zSqlB, NULL, &zEb);
      if ((zEa == NULL) != (zEb == NULL) || strcmp(zA, zB) != 0) {
        if (nBad++ < 5) {
          printf("FAIL %s: %s\n  virtual table: %s%s\n  copy:          %s%s\n", t->zName, zSqlA,
                 zEa ? zEa : "", zA, zEb ? zEb : "", zB);
        }
      } else if (zA[0]) {
        nRows++;
      }
      free(zA);
      free(zB);
      sqlite3_free(zEa);
      sqlite3_free(zEb);
      sqlite3_free(zSqlA);
      sqlite3_free(zSqlB);
      sqlite3_free(zWhere);
    }
    if (nBad) {
      printf("FAIL %s: %d of %d random WHERE clauses differ\n", t->zName, nBad, nQuery);
      nFail++;
    } else if (nRows < nQuery / 10) {
      printf("FAIL %s: only %d of %d queries returned rows (a test that cannot fail)\n", t->zName, nRows,
             nQuery);
      nFail++;
    } else {
      printf("PASS %s: %d random WHERE clauses (%d with rows) agree with the plain copy\n", t->zName, nQuery,
             nRows);
      nPass++;
    }
  }
  sqlite3_close(db);
  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail ? 1 : 0;
}
