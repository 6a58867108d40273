/*
** test_graph_source.c: unit tests of the edge source (ext/graph_source.c):
** name resolution, error messages, index detection and the SQL it builds,
** run against an in-memory database.
*/
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "nosqlInt.h"
#include "unit.h"

void unitApiInit(void);

static sqlite3 *db;

/* A text value for the arguments (owned by a static statement row). */
static sqlite3_value *textValue(const char *z) {
  sqlite3_stmt *pStmt = NULL;
  sqlite3_value *pVal;
  sqlite3_prepare_v2(db, "SELECT ?1", -1, &pStmt, 0);
  if (z) sqlite3_bind_text(pStmt, 1, z, -1, SQLITE_TRANSIENT);
  sqlite3_step(pStmt);
  pVal = sqlite3_value_dup(sqlite3_column_value(pStmt, 0));
  sqlite3_finalize(pStmt);
  return pVal;
}

/* graphSourceInit with text arguments (NULL zW: no weight); returns rc, *pzErr set. */
static int init(const char *zT, const char *zF, const char *zTo, const char *zW, int eLayout, GraphSource *p,
                char **pzErr) {
  sqlite3_value *a = textValue(zT), *b = textValue(zF), *c = textValue(zTo), *d = zW ? textValue(zW) : NULL;
  int rc = graphSourceInit(db, "graph_test", a, b, c, d, eLayout, p, pzErr);
  sqlite3_value_free(a);
  sqlite3_value_free(b);
  sqlite3_value_free(c);
  sqlite3_value_free(d);
  return rc;
}

/* The rows of zSql with ?1 bound to integer i, as "v,w,t;" text. */
static char *rows(const char *zSql, int i) {
  sqlite3_stmt *pStmt = NULL;
  char *z = sqlite3_mprintf("");
  if (sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0) != SQLITE_OK) {
    sqlite3_free(z);
    return sqlite3_mprintf("error: %s", sqlite3_errmsg(db));
  }
  if (sqlite3_bind_parameter_count(pStmt) > 0) sqlite3_bind_int(pStmt, 1, i);
  while (sqlite3_step(pStmt) == SQLITE_ROW) {
    int k;
    for (k = 0; k < sqlite3_column_count(pStmt); k++) {
      const char *zCol = (const char *)sqlite3_column_text(pStmt, k);
      z = sqlite3_mprintf("%z%s%s", z, zCol ? zCol : "NULL", k + 1 < sqlite3_column_count(pStmt) ? "," : ";");
    }
  }
  sqlite3_finalize(pStmt);
  return z;
}

static void testResolve(void) {
  GraphSource s;
  char *zErr = NULL;
  CHECK_INT(init("e", "SRC", "dst", NULL, GRAPH_LAYOUT_EDGES, &s, &zErr), SQLITE_OK);
  CHECK_STR(s.zSchema, "main");
  CHECK_STR(s.zTable, "e");
  CHECK_STR(s.zFrom, "src");
  CHECK_INT(s.bIdxFrom, 1);
  CHECK_INT(s.bIdxTo, 0);
  CHECK_INT(s.bView, 0);
  graphSourceClear(&s);
  /* temp shadows main, as SQLite resolves an unqualified name. */
  CHECK_INT(init("t", "a", "b", NULL, GRAPH_LAYOUT_EDGES, &s, &zErr), SQLITE_OK);
  CHECK_STR(s.zSchema, "temp");
  graphSourceClear(&s);
  CHECK_INT(init("main.t", "a", "b", NULL, GRAPH_LAYOUT_EDGES, &s, &zErr), SQLITE_OK);
  CHECK_STR(s.zSchema, "main");
  graphSourceClear(&s);
  /* A table whose name has a dot and a quote. */
  CHECK_INT(init("we\"ird.name", "x y", "z", "w", GRAPH_LAYOUT_EDGES, &s, &zErr), SQLITE_OK);
  CHECK_STR(s.zTable, "we\"ird.name");
  CHECK_STR(s.zWeight, "w");
  CHECK_INT(s.bIdxTo, 1);
  graphSourceClear(&s);
  CHECK_INT(init("v", "src", "dst", NULL, GRAPH_LAYOUT_EDGES, &s, &zErr), SQLITE_OK);
  CHECK_INT(s.bView, 1);
  CHECK_INT(s.bIdxFrom, 0);
  graphSourceClear(&s);
}

static void testErrors(void) {
  GraphSource s;
  char *zErr = NULL;
  sqlite3_value *pNull = textValue(NULL), *pE = textValue("e");
  CHECK_INT(init("nope", "a", "b", NULL, GRAPH_LAYOUT_EDGES, &s, &zErr), SQLITE_ERROR);
  CHECK_STR(zErr, "graph_test: no such table or view: 'nope'");
  sqlite3_free(zErr);
  CHECK_INT(init("e", "src", "nope", NULL, GRAPH_LAYOUT_EDGES, &s, &zErr), SQLITE_ERROR);
  CHECK_STR(zErr, "graph_test: table 'e' has no column 'nope' (to_col)");
  sqlite3_free(zErr);
  CHECK_INT(init("v", "src", "dst", "nope", GRAPH_LAYOUT_EDGES, &s, &zErr), SQLITE_ERROR);
  CHECK_STR(zErr, "graph_test: view 'v' has no column 'nope' (weight_col)");
  sqlite3_free(zErr);
  CHECK_INT(init("", "src", "dst", NULL, GRAPH_LAYOUT_EDGES, &s, &zErr), SQLITE_ERROR);
  CHECK_STR(zErr, "graph_test: source must be a name, not ''");
  sqlite3_free(zErr);
  CHECK_INT(graphSourceInit(db, "graph_test", pNull, pE, pE, NULL, 0, &s, &zErr), SQLITE_ERROR);
  CHECK_STR(zErr, "graph_test: source must be a name, not NULL");
  sqlite3_free(zErr);
  CHECK_INT(graphSourceInit(db, "graph_test", pE, pNull, pE, NULL, 0, &s, &zErr), SQLITE_ERROR);
  CHECK_STR(zErr, "graph_test: from_col must be a name, not NULL");
  sqlite3_free(zErr);
  /* An index is not a table. */
  CHECK_INT(init("e_src", "src", "dst", NULL, GRAPH_LAYOUT_EDGES, &s, &zErr), SQLITE_ERROR);
  sqlite3_free(zErr);
  sqlite3_value_free(pNull);
  sqlite3_value_free(pE);
}

static void testSql(void) {
  GraphSource s;
  char *zErr = NULL, *zSql, *z;
  CHECK_INT(init("e", "src", "dst", NULL, GRAPH_LAYOUT_EDGES, &s, &zErr), SQLITE_OK);
  zSql = graphSourceNeighbourSql(&s, GRAPH_DIR_OUT);
  z = rows(zSql, 1);
  CHECK_STR(z, "2,NULL,NULL;3,NULL,NULL;");
  sqlite3_free(z);
  sqlite3_free(zSql);
  zSql = graphSourceNeighbourSql(&s, GRAPH_DIR_IN);
  z = rows(zSql, 3);
  CHECK_STR(z, "1,NULL,NULL;2,NULL,NULL;");
  sqlite3_free(z);
  sqlite3_free(zSql);
  zSql = graphSourceNeighbourSql(&s, GRAPH_DIR_BOTH);
  z = rows(zSql, 2);
  CHECK_STR(z, "3,NULL,NULL;1,NULL,NULL;");
  sqlite3_free(z);
  sqlite3_free(zSql);
  zSql = graphSourceEdgesSql(&s);
  z = rows(zSql, 0);
  CHECK_STR(z, "1,2,NULL,NULL;1,3,NULL,NULL;2,3,NULL,NULL;");
  sqlite3_free(z);
  sqlite3_free(zSql);
  graphSourceClear(&s);

  CHECK_INT(init("n", "id", "kids", NULL, GRAPH_LAYOUT_JSON, &s, &zErr), SQLITE_OK);
  zSql = graphSourceNeighbourSql(&s, GRAPH_DIR_OUT);
  z = rows(zSql, 1);
  CHECK_STR(z, "2,NULL,array;3,NULL,array;");
  sqlite3_free(z);
  z = rows(zSql, 4); /* [] : no rows */
  CHECK_STR(z, "");
  sqlite3_free(z);
  z = rows(zSql, 5); /* NULL kids: no rows */
  CHECK_STR(z, "");
  sqlite3_free(z);
  z = rows(zSql, 6); /* a number: one row the caller refuses */
  CHECK_STR(z, "NULL,NULL,integer;");
  sqlite3_free(z);
  sqlite3_free(zSql);
  zSql = graphSourceNeighbourSql(&s, GRAPH_DIR_IN);
  z = rows(zSql, 3);
  CHECK_STR(z, "1,NULL,array;2,NULL,array;");
  sqlite3_free(z);
  sqlite3_free(zSql);
  zSql = graphSourceEdgesSql(&s);
  z = rows(zSql, 0);
  /* Every row is a node: a null element, a NULL or [] list come with a NULL to (issue 25.6). */
  CHECK_STR(
      z,
      "1,2,NULL,array;1,3,NULL,array;2,3,NULL,array;2,NULL,NULL,array;3,NULL,NULL,NULL;4,NULL,NULL,array;5,"
      "NULL,NULL,NULL;6,NULL,NULL,integer;");
  sqlite3_free(z);
  sqlite3_free(zSql);
  graphSourceClear(&s);
}

/* A value from SQL text (one column), kept alive until freed. */
static sqlite3_value *sqlValue(const char *zExpr) {
  sqlite3_stmt *pStmt = NULL;
  sqlite3_value *pVal;
  char *zSql = sqlite3_mprintf("SELECT %s", zExpr);
  sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  sqlite3_step(pStmt);
  pVal = sqlite3_value_dup(sqlite3_column_value(pStmt, 0));
  sqlite3_finalize(pStmt);
  return pVal;
}

/* Index of zExpr's value in *pSet after adding it; *pbNew whether added. */
static int addExpr(GraphSet *pSet, const char *zExpr, int *pbNew) {
  sqlite3_value *pVal = sqlValue(zExpr);
  GraphValue v;
  int i = -1;
  if (graphValueFrom(pVal, &v) && graphSetAdd(pSet, &v, &i, pbNew) != SQLITE_OK) i = -2;
  sqlite3_value_free(pVal);
  return i;
}

typedef struct TestElem TestElem;
struct TestElem {
  GraphValue v;
  int iTag;
};

static void testNodeSet(void) {
  GraphSet set;
  GraphValue v;
  sqlite3_value *pVal;
  int bNew, i;
  char *z;
  memset(&set, 0, sizeof(set));
  set.szElem = (int)sizeof(TestElem);
  CHECK_INT(addExpr(&set, "1", &bNew), 0);
  CHECK_INT(bNew, 1);
  CHECK_INT(addExpr(&set, "1.0", &bNew), 0); /* 1 = 1.0, as SQLite compares */
  CHECK_INT(bNew, 0);
  CHECK_INT(addExpr(&set, "'1'", &bNew), 1);   /* text is not the integer */
  CHECK_INT(addExpr(&set, "x'31'", &bNew), 2); /* nor is the blob the text */
  CHECK_INT(addExpr(&set, "1.5", &bNew), 3);
  CHECK_INT(addExpr(&set, "''", &bNew), 4);
  CHECK_INT(addExpr(&set, "x''", &bNew), 5);
  CHECK_INT(addExpr(&set, "NULL", &bNew), -1); /* NULL is no node */
  CHECK_INT(addExpr(&set, "9223372036854775807", &bNew), 6);
  CHECK_INT(addExpr(&set, "9.3e18", &bNew), 7); /* a whole real past the int64 range stays a real */
  ((TestElem *)graphSetAt(&set, 3))->iTag = 42;
  /* Growth keeps indexes and the caller's data. */
  for (i = 0; i < 5000; i++) {
    char zExpr[40];
    sqlite3_snprintf(sizeof(zExpr), zExpr, "'k%d'", i);
    CHECK_INT(addExpr(&set, zExpr, &bNew), 8 + i);
  }
  CHECK_INT(set.n, 5008);
  CHECK_INT(((TestElem *)graphSetAt(&set, 3))->iTag, 42);
  pVal = sqlValue("'k4999'");
  graphValueFrom(pVal, &v);
  CHECK_INT(graphSetFind(&set, &v), 5007);
  sqlite3_value_free(pVal);
  pVal = sqlValue("'k5000'");
  graphValueFrom(pVal, &v);
  CHECK_INT(graphSetFind(&set, &v), -1);
  sqlite3_value_free(pVal);
  z = graphValueText((GraphValue *)graphSetAt(&set, 1));
  CHECK_STR(z, "'1'");
  sqlite3_free(z);
  z = graphValueText((GraphValue *)graphSetAt(&set, 3));
  CHECK_STR(z, "1.5");
  sqlite3_free(z);
  z = graphValueText((GraphValue *)graphSetAt(&set, 2));
  CHECK_STR(z, "a blob of 1 bytes");
  sqlite3_free(z);
  graphSetClear(&set);
  CHECK_INT(set.n, 0);
  CHECK_INT(set.szElem, (int)sizeof(TestElem));
  CHECK_INT(graphSetFind(&set, &v), -1);
}

/* A stand-in for graph_load_edge() defined over the extension's: answers argv[0]'s constant. */
static void fakeLoadEdge(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  (void)argv;
  sqlite3_result_int(ctx, *(int *)sqlite3_user_data(ctx));
}

/* graphCsrLoad() of table zT (src, dst) as a whole-graph job: rc, edges or the message. */
static char *load(const char *zT) {
  GraphSource src;
  GraphCsr *pCsr = NULL;
  char *zErr = NULL, *z;
  int rc = init(zT, "src", "dst", NULL, GRAPH_LAYOUT_EDGES, &src, &zErr);
  if (rc != SQLITE_OK) return sqlite3_mprintf("init %d: %z", rc, zErr);
  rc = graphCsrLoad(db, &src, 1000, 1, "graph_test", &pCsr, &zErr);
  z = rc == SQLITE_OK ? sqlite3_mprintf("%lld edges", pCsr ? pCsr->nEdge : -1LL)
                      : sqlite3_mprintf("%d: %s", rc, zErr ? zErr : "");
  sqlite3_free(zErr);
  if (pCsr) graphCsrUnref(pCsr);
  graphSourceClear(&src);
  return z;
}

/* The scan hands rows to graph_load_edge(): another function of that name is an error, never an empty graph.
 */
static void testLoadEdge(void) {
  static int iZero = 0, iOne = 1;
  char *z;
  CHECK_INT(graphCsrRegister(db), SQLITE_OK);
  z = load("e");
  CHECK_STR(z, "3 edges");
  sqlite3_free(z);
  z = load("none");
  CHECK_STR(z, "0 edges"); /* an empty table */
  sqlite3_free(z);
  sqlite3_create_function(db, "graph_load_edge", 4, SQLITE_UTF8, &iZero, fakeLoadEdge, 0, 0);
  z = load("e");
  CHECK_STR(z, "1: graph_test: graph_load_edge() is not the extension's");
  sqlite3_free(z);
  z = load("none");
  CHECK_STR(z, "0 edges");
  sqlite3_free(z);
  sqlite3_create_function(db, "graph_load_edge", 4, SQLITE_UTF8, &iOne, fakeLoadEdge, 0, 0);
  z = load("e");
  CHECK_STR(z, "1: graph_test: graph_load_edge() is not the extension's");
  sqlite3_free(z);
  CHECK_INT(graphCsrRegister(db), SQLITE_OK);
  z = load("e");
  CHECK_STR(z, "3 edges");
  sqlite3_free(z);
}

/*
** The steps of a load, each alone (ext/graph_csr.c): graphCsrNew() refuses
** what cannot stand in for seeks, graphCsrFill() scans (as a list, as
** rows, too big for a walk or for a job), and graphSourceLoad() picks a
** graph_index over the table where graphCsrLoad() reads the table.
*/
static void testLoadSteps(void) {
  GraphSource src;
  GraphCsr *pCsr = NULL;
  char *zErr = NULL;
  int bOk = -1;
  CHECK_INT(graphCsrRegister(db), SQLITE_OK);
  CHECK_INT(graphIndexRegister(db), SQLITE_OK);
  CHECK_INT(sqlite3_exec(db, "CREATE VIRTUAL TABLE gi USING graph_index(ie, src, dst)", 0, 0, 0), SQLITE_OK);
  /* A view: no copy for a walk, one for a whole-graph job. */
  CHECK_INT(init("v", "src", "dst", NULL, GRAPH_LAYOUT_EDGES, &src, &zErr), SQLITE_OK);
  CHECK_INT(graphCsrNew(db, &src, 0, &pCsr), SQLITE_OK);
  CHECK(pCsr == NULL);
  CHECK_INT(graphCsrNew(db, &src, 1, &pCsr), SQLITE_OK);
  CHECK(pCsr != NULL && pCsr->nRef == 1 && pCsr->vals.n == 0 && pCsr->cAffFrom == 'b');
  graphCsrUnref(pCsr);
  graphSourceClear(&src);
  /* A column whose collation is not BINARY: no copy for a walk; affinities kept for lookups. */
  CHECK_INT(init("ci", "a", "b", NULL, GRAPH_LAYOUT_EDGES, &src, &zErr), SQLITE_OK);
  CHECK_INT(graphCsrNew(db, &src, 0, &pCsr), SQLITE_OK);
  CHECK(pCsr == NULL);
  graphSourceClear(&src);
  CHECK_INT(init("ie", "src", "dst", NULL, GRAPH_LAYOUT_EDGES, &src, &zErr), SQLITE_OK);
  CHECK_INT(graphCsrNew(db, &src, 0, &pCsr), SQLITE_OK);
  CHECK(pCsr != NULL && pCsr->cAffFrom == 'i' && pCsr->cAffTo == 'i');
  /* The scan as rows: 1 -> 2, 1 -> 3, 2 -> 3 in rowid order. */
  CHECK_INT(graphCsrFill(db, &src, 1000, 1, "graph_test", pCsr, &bOk, &zErr), SQLITE_OK);
  CHECK(bOk == 1 && zErr == NULL && pCsr->nEdge == 3 && pCsr->vals.n == 3 && !pCsr->bList);
  CHECK(pCsr->aOutOff[1] == 2 && pCsr->aInOff[3] == 3 && pCsr->aOut[1] == 2 && pCsr->aIn[2] == 1);
  graphCsrUnref(pCsr);
  /* As a list (GRAPH_LOAD_LIST): edge k is aIn[k] -> aOut[k], no offsets. */
  CHECK_INT(graphCsrNew(db, &src, GRAPH_LOAD_LIST, &pCsr), SQLITE_OK);
  CHECK_INT(graphCsrFill(db, &src, 1000, GRAPH_LOAD_LIST, "graph_test", pCsr, &bOk, &zErr), SQLITE_OK);
  CHECK(bOk == 1 && pCsr->bList && pCsr->nEdge == 3 && pCsr->aOutOff == NULL);
  CHECK(pCsr->aIn[2] == 1 && pCsr->aOut[2] == 2);
  graphCsrUnref(pCsr);
  /* More edges than held (checked as the list grows, 1024 at first): a walk seeks (no copy, no
  ** error), a whole-graph job fails naming itself. */
  graphSourceClear(&src);
  CHECK_INT(init("big", "src", "dst", NULL, GRAPH_LAYOUT_EDGES, &src, &zErr), SQLITE_OK);
  CHECK_INT(graphCsrNew(db, &src, 0, &pCsr), SQLITE_OK);
  CHECK_INT(graphCsrFill(db, &src, 1000, 0, "graph_test", pCsr, &bOk, &zErr), SQLITE_OK);
  CHECK(bOk == 0 && zErr == NULL);
  graphCsrUnref(pCsr);
  CHECK_INT(graphCsrNew(db, &src, 1, &pCsr), SQLITE_OK);
  CHECK_INT(graphCsrFill(db, &src, 1000, 1, "graph_test", pCsr, &bOk, &zErr), SQLITE_TOOBIG);
  CHECK_STR(zErr ? zErr : "", "graph_test: the graph has more than 1000 edges, the most held in memory");
  sqlite3_free(zErr);
  zErr = NULL;
  graphCsrUnref(pCsr);
  graphSourceClear(&src);
  CHECK_INT(init("ie", "src", "dst", NULL, GRAPH_LAYOUT_EDGES, &src, &zErr), SQLITE_OK);
  /* graphSourceLoad() reads the graph_index over the table (here damaged), graphCsrLoad() the table. */
  CHECK_INT(sqlite3_exec(db, "UPDATE gi_blk SET data = x'ff'", 0, 0, 0), SQLITE_OK);
  CHECK_INT(graphSourceLoad(db, &src, 1000, 1, "graph_test", &pCsr, &zErr), SQLITE_CORRUPT_VTAB);
  CHECK(pCsr == NULL && zErr && strstr(zErr, "graph_test: graph_index 'gi' is damaged") == zErr);
  sqlite3_free(zErr);
  zErr = NULL;
  CHECK_INT(graphCsrLoad(db, &src, 1000, 1, "graph_test", &pCsr, &zErr), SQLITE_OK);
  CHECK(pCsr != NULL && pCsr->nEdge == 3 && zErr == NULL);
  graphCsrUnref(pCsr);
  graphSourceClear(&src);
}

int main(void) {
  unitApiInit();
  sqlite3_open(":memory:", &db);
  sqlite3_exec(db,
               "CREATE TABLE e(src, dst); CREATE INDEX e_src ON e(src);"
               "INSERT INTO e VALUES (1,2),(1,3),(2,3),(NULL,4),(4,NULL);"
               "CREATE VIEW v AS SELECT * FROM e;"
               "CREATE TABLE t(a, b); CREATE TEMP TABLE t(a, b); CREATE TABLE none(src, dst);"
               "CREATE TABLE \"we\"\"ird.name\"(\"x y\", z, w); CREATE INDEX wz ON \"we\"\"ird.name\"(z);"
               "CREATE TABLE n(id INTEGER PRIMARY KEY, kids);"
               "INSERT INTO n VALUES (1,'[2,3]'),(2,'[3,null]'),(3,NULL),(4,'[]'),(5,NULL),(6,'7');"
               "CREATE TABLE ci(a TEXT COLLATE NOCASE, b TEXT); INSERT INTO ci VALUES ('x', 'y');"
               "CREATE TABLE ie(id INTEGER PRIMARY KEY, src INTEGER, dst INTEGER);"
               "INSERT INTO ie(src, dst) VALUES (1, 2), (1, 3), (2, 3);"
               "CREATE TABLE big(src, dst); WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c "
               "WHERE x < 1100) INSERT INTO big SELECT x, x + 1 FROM c;",
               0, 0, 0);
  RUN(testResolve);
  RUN(testErrors);
  RUN(testSql);
  RUN(testNodeSet);
  RUN(testLoadEdge);
  RUN(testLoadSteps);
  sqlite3_close(db);
  return unitReport();
}
