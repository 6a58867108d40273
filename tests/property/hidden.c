/*
** hidden.c: the generic test of table-valued functions' hidden input
** columns (issue 25). For every module the extension registers (the
** modules of pragma_module_list on a connection that loaded it, less those
** of a connection that did not), the table below must hold either example
** argument lists or a note that the module is not a table-valued function.
** A module without an entry is a failure, so a new module cannot escape
** the test; so is an entry for a module that no longer exists.
**
**   build/property/hidden EXTENSION
**
** For each example "m(a1, ..., an)" (which must return rows, or the checks
** below could not fail):
**
**   (a) each hidden column h_i given an argument reads back a_i on every
**       row, the same value of the same type (h_i IS a_i, typeof equal);
**   (b) adding "WHERE h_i = a_i", for each i alone and for all of them
**       together, keeps every row;
**   (c) giving a_i as an IN list ("h_i IN (a_i, a_i)", the other
**       arguments as equalities) returns the same number of rows, each
**       reading a_i back;
**   (d) taking a_i from a joined table ("FROM j, m(a1, .., j.v, .., an)",
**       j holding the one row a_i) returns the same number of rows: the
**       planner finds the order where j comes first;
**   (e) calling m(a1, ..., a_i-1) without a_i and what follows works
**       (a_i is optional), fails with "m: h_i is required: m(...)" (issue
**       41), or fails otherwise without saying "is required" (the default
**       of an optional a_i does not suit the other arguments): never with
**       SQLite's bare "no query solution". Each example
**       must meet that error at least once (the call without arguments).
**
** A module noted as not table-valued must have no hidden columns that
** pragma_table_xinfo can show without arguments (it is created with CREATE
** VIRTUAL TABLE or needs constructor arguments). Each check prints "PASS
** ..." or "FAIL ..."; the last line is "N passed, N failed" for
** tests/run.sh.
*/
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prop.h"

static int nPass, nFail;

/* One module: its examples, each the SQL text of an argument list; none for a non-table-valued module. */
typedef struct HiddenModule HiddenModule;
struct HiddenModule {
  const char *zName;     /* The module */
  const char *azArgs[6]; /* Argument lists ("1, 'a'"), NULL-terminated; empty: not table-valued */
  const char *zNotTvf;   /* Why the module has no example (non-NULL exactly when azArgs is empty) */
};

static const char *const azSetup[] = {
    "CREATE TABLE kvt(key TEXT PRIMARY KEY, value)",
    "INSERT INTO kvt VALUES ('a', 1), ('b', 'two'), ('3', 3.5)",
    "CREATE TABLE d(key TEXT PRIMARY KEY, doc)",
    "INSERT INTO d VALUES ('k1', '{\"a\":1,\"b\":{\"c\":\"x\"}}'), ('k2', '{\"a\":\"s\",\"t\":[1,2]}')",
    "CREATE TABLE posts(id INTEGER PRIMARY KEY, title TEXT, tags)",
    "INSERT INTO posts VALUES (1, 'one', '[\"x\", \"y\"]'), (2, 'two', '[\"y\"]')",
    "CREATE VIRTUAL TABLE pbt USING index_table(posts, key = 'each(tags) AS tag', include = 'title', "
    "mode = 'deferred')",
    "UPDATE posts SET tags = '[\"z\"]', title = 'ONE' WHERE id = 1",
    "CREATE TABLE e(a INTEGER, b INTEGER, w REAL)",
    "INSERT INTO e VALUES (1, 2, 1.0), (2, 3, 2.0), (3, 1, 1.5), (3, 4, 0.5), (5, 6, 1.0)",
    "CREATE TABLE adj(node TEXT PRIMARY KEY, links)",
    "INSERT INTO adj VALUES ('p', '[\"q\", \"r\"]'), ('q', '[\"r\"]'), ('r', '[]'), ('s', NULL)",
    "SELECT kv_incr('c'), kv_incr('d', 5)",
    "CREATE TABLE pts(id INTEGER PRIMARY KEY, lat REAL, lon REAL, gh TEXT AS (geohash(lat, lon)))",
    "CREATE INDEX pts_gh ON pts(gh)",
    "INSERT INTO pts(lat, lon) VALUES (42.6, -5.6), (42.7, -5.5), (40, -3), (-10, 170)",
    NULL};

/*
** Every module of the extension. Arguments exercise the types a hidden
** column must keep: integers where a real would do, texts that look like
** numbers, blobs.
*/
static const HiddenModule aModule[] = {
    {"composite_scan", {NULL}, "created with CREATE VIRTUAL TABLE over a table"},
    {"doc_schema", {"'d', 'doc'", "'D', 'doc'", NULL}, NULL},
    {"geo_bbox", {"42.6, -5.6, 1000", "42, -5, 1000.5", NULL}, NULL},
    {"geo_nearest",
     {"'pts', 'lat', 'lon', 42.6, -5.6, 2", "'PTS', 'LAT', 'lon', '42', -5, 3.0, 1e7",
      "'pts', 'lat', 'lon', 1, 2, '2'", NULL},
     NULL},
    {"geohash_cover", {"42.6, -5.6, 1000", "42, -5, 250.5", NULL}, NULL},
    {"geohash_cover_box", {"42.6, -5.6, 42.7, -5.5", "42, -6, 43, -5", NULL}, NULL},
    {"geohash_cover_bits", {"42.6, -5.6, 1000", "42, -5, 250.5", NULL}, NULL},
    {"geohash_cover_box_bits", {"42.6, -5.6, 42.7, -5.5", "42, -6, 43, -5", NULL}, NULL},
    {"geohash_decode", {"'ezs42'", NULL}, NULL},
    {"geohash_neighbors", {"'ezs42'", NULL}, NULL},
    {"graph_betweenness", {"'e', 'a', 'b'", "'e', 'a', 'b', 'w', 0, 1, 2, 7, 'edges', 'both'", NULL}, NULL},
    {"graph_closeness",
     {"'e', 'a', 'b', 'w'", "'adj', 'node', 'links', '{\"wf_improved\": false, \"layout\": \"json\"}'", NULL},
     NULL},
    {"graph_clustering", {"'e', 'a', 'b'", "'e', 'a', 'b', 'w', 'edges', 'in'", NULL}, NULL},
    {"graph_components", {"'e', 'a', 'b'", "'adj', 'node', 'links', 'json'", NULL}, NULL},
    {"graph_core_number",
     {"'e', 'a', 'b'", "'e', 'a', 'b', 'edges', '{\"direction\": \"both\"}'", NULL},
     NULL},
    {"graph_hits", {"'e', 'a', 'b'", "'e', 'a', 'b', 'w', 200, 0.000001", NULL}, NULL},
    {"graph_label_propagation", {"'e', 'a', 'b'", "'e', 'a', 'b', 10", NULL}, NULL},
    {"graph_louvain",
     {"'e', 'a', 'b'", "'e', 'a', 'b', 'w', 0.5, 3, 0.0001", "'e', 'a', 'b', '{\"seed\": 1}'", NULL},
     NULL},
    {"graph_pagerank",
     {"'e', 'a', 'b'", "'e', 'a', 'b', 0.85, 0.000001, 50, 'w'",
      "'e', 'a', 'b', 0.5, '{\"weight_col\": \"w\"}'", NULL},
     NULL},
    {"graph_path",
     {"'e', 'a', 'b', 1, 4", "'e', 'a', 'b', 1, 4, 'w'", "'e', 'a', 'b', '1', '4'", NULL},
     NULL},
    {"graph_scc", {"'e', 'a', 'b'", NULL}, NULL},
    {"graph_sssp", {"'e', 'a', 'b', 1", "'e', 'a', 'b', 1, 'w'", NULL}, NULL},
    {"graph_triangles", {"'e', 'a', 'b'", NULL}, NULL},
    /* The last example of each: an options object (ext/util.c), which its hidden column reads back. */
    {"graph_walk",
     {"'e', 'a', 'b', 1", "'e', 'a', 'b', 1, 2, 'both'", "'e', 'a', 'b', '1'",
      "'e', 'a', 'b', 1, '{\"max_depth\": 1, \"direction\": \"both\"}'", NULL},
     NULL},
    {"index_table", {NULL}, "created with CREATE VIRTUAL TABLE over a table"},
    {"graph_index", {NULL}, "created with CREATE VIRTUAL TABLE over an edge table"},
    {"index_table_drift", {"'pbt'", "'pbt', 'main'", "'PBT'", NULL}, NULL},
    {"inverted_index", {NULL}, "created with CREATE VIRTUAL TABLE"},
    {"inverted_index_facets", {NULL}, "created with CREATE VIRTUAL TABLE over an inverted_index"},
    {"inverted_index_vocab", {NULL}, "created with CREATE VIRTUAL TABLE over an inverted_index"},
    {"kv_counters", {"", NULL}, NULL},
    {"kv_mget", {"'kvt', '[\"a\", \"b\", 3]'", "'KVT', '[\"a\"]'", NULL}, NULL},
    {"kv_pairs", {"'u3', '{\"a\":1,\"b\":2}'", "3, '{\"a\":[1],\"b\":null}', ':'", NULL}, NULL},
    {"mpath_ranges", {"'a.b'", "'a/b', '/'", "12", NULL}, NULL},
    {"nested_set", {NULL}, "created with CREATE VIRTUAL TABLE"},
    /* The timing columns vary from run to run; the hidden columns do not. */
    {"nosql_compare",
     {"'SELECT 1', 'SELECT 1'", "'SELECT key FROM kvt', 'VALUES (3)', 2",
      "'SELECT 1', 'SELECT 2', 1, 'x', ''", NULL},
     NULL},
    {"nosql_explain", {"'SELECT * FROM kvt'", "'SELECT * FROM pbt WHERE tag = 1'", NULL}, NULL},
    {"rb_iterate", {"rb_build('[70000, 5, 1]')", NULL}, NULL},
    {"tree_rows",
     {"'{\"id\":1,\"children\":[{\"id\":2},{\"id\":3}]}'", "'{\"id\":1,\"kids\":[{\"id\":2}]}', 'kids'",
      NULL},
     NULL},
};

#define HIDDEN_NMODULE ((int)(sizeof(aModule) / sizeof(aModule[0])))

static void hiddenResult(int bOk, const char *zFmt, const char *zA, const char *zB, const char *zC) {
  printf("%s ", bOk ? "PASS" : "FAIL");
  printf(zFmt, zA, zB, zC);
  printf("\n");
  if (bOk) {
    nPass++;
  } else {
    nFail++;
  }
}

/* The names of pragma_module_list, sorted, one per line (sqlite3_mprintf). */
static char *hiddenModules(sqlite3 *db) {
  sqlite3_stmt *pStmt = NULL;
  char *z = sqlite3_mprintf("\n");
  sqlite3_prepare_v2(db, "SELECT name FROM pragma_module_list ORDER BY name", -1, &pStmt, 0);
  while (pStmt && sqlite3_step(pStmt) == SQLITE_ROW) {
    z = sqlite3_mprintf("%z%s\n", z, (const char *)sqlite3_column_text(pStmt, 0));
  }
  sqlite3_finalize(pStmt);
  return z;
}

/* The one integer zSql returns, or -1 (and *pzErr set) on an error. */
static sqlite3_int64 hiddenInt(sqlite3 *db, const char *zSql, char **pzErr) {
  sqlite3_stmt *pStmt = NULL;
  sqlite3_int64 v = -1;
  int rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  if (rc == SQLITE_OK && (rc = sqlite3_step(pStmt)) == SQLITE_ROW) {
    v = sqlite3_column_int64(pStmt, 0);
    rc = sqlite3_step(pStmt);
  }
  if (rc != SQLITE_DONE && *pzErr == NULL) *pzErr = sqlite3_mprintf("%s (in %s)", sqlite3_errmsg(db), zSql);
  sqlite3_finalize(pStmt);
  return v;
}

/* The hidden columns of module zMod, in declaration order, NULL-terminated (caller frees each and the array).
 */
static char **hiddenColumns(sqlite3 *db, const char *zMod, int *pnCol) {
  sqlite3_stmt *pStmt = NULL;
  char **az = (char **)calloc(64, sizeof(char *));
  int n = 0;
  if (az == NULL) abort();
  sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_xinfo(?1) WHERE hidden ORDER BY cid", -1, &pStmt, 0);
  sqlite3_bind_text(pStmt, 1, zMod, -1, SQLITE_STATIC);
  while (pStmt && sqlite3_step(pStmt) == SQLITE_ROW && n < 63) {
    az[n++] = strdup((const char *)sqlite3_column_text(pStmt, 0));
  }
  sqlite3_finalize(pStmt);
  *pnCol = n;
  return az;
}

/*
** The i-th (0-based) argument of the list zArgs, as SQL text
** (sqlite3_mprintf), or NULL past the end. Splits at commas outside
** quotes and parentheses.
*/
static char *hiddenArg(const char *zArgs, int iArg) {
  int iCur = 0, nParen = 0;
  char cQuote = 0;
  const char *zStart = zArgs, *z;
  for (z = zArgs;; z++) {
    if (*z == 0 || (*z == ',' && nParen == 0 && cQuote == 0)) {
      if (iCur == iArg) {
        while (*zStart == ' ') zStart++;
        if (z == zStart) return NULL;
        return sqlite3_mprintf("%.*s", (int)(z - zStart), zStart);
      }
      if (*z == 0) return NULL;
      iCur++;
      zStart = z + 1;
    } else if (cQuote) {
      if (*z == cQuote) cQuote = 0;
    } else if (*z == '\'' || *z == '"') {
      cQuote = *z;
    } else if (*z == '(') {
      nParen++;
    } else if (*z == ')') {
      nParen--;
    }
  }
}

/* The SQL text of arguments [0, n) of zArgs, with argument iJoin (if in range) replaced by j.v. */
static char *hiddenArgsSome(const char *zArgs, int n, int iJoin) {
  char *z = sqlite3_mprintf("");
  int i;
  for (i = 0; i < n; i++) {
    char *zArg = hiddenArg(zArgs, i);
    z = sqlite3_mprintf("%z%s%s", z, i ? ", " : "", i == iJoin ? "j.v" : zArg);
    sqlite3_free(zArg);
  }
  return z;
}

/*
** Checks (d) and (e) for one example of one module. Returns 1 when some
** call without an argument met the "is required" error.
*/
static int hiddenMissingRun(sqlite3 *db, const char *zMod, const char *zArgs, sqlite3_int64 nRow,
                            char **azCol, int nGiven) {
  int i, bRequired = 0;
  char zLabel[512];
  snprintf(zLabel, sizeof(zLabel), "%s(%s)", zMod, zArgs);
  for (i = 0; i < nGiven; i++) {
    char *zErr = NULL, *zArg = hiddenArg(zArgs, i), *zSome = hiddenArgsSome(zArgs, nGiven, i), *zSql;
    sqlite3_int64 n;
    /* (d) the argument from a joined table. */
    zSql = sqlite3_mprintf("DROP TABLE IF EXISTS temp.j; CREATE TEMP TABLE j AS SELECT (%s) AS v", zArg);
    if (sqlite3_exec(db, zSql, 0, 0, &zErr) == SQLITE_OK) {
      sqlite3_free(zSql);
      zSql = sqlite3_mprintf("SELECT count(*) FROM j, %s(%s)", zMod, zSome);
      n = hiddenInt(db, zSql, &zErr);
    } else {
      n = -1;
    }
    if (zErr || n != nRow) {
      printf("FAIL %s: argument %s from a joined table: %lld of %lld rows%s%s\n", zLabel, zArg, n, nRow,
             zErr ? ": " : "", zErr ? zErr : "");
      nFail++;
    } else {
      printf("PASS %s: argument %s from a joined table keeps its %lld rows\n", zLabel, zArg, nRow);
      nPass++;
    }
    sqlite3_free(zErr);
    zErr = NULL;
    sqlite3_free(zSql);
    sqlite3_free(zSome);
    /* (e) the call without argument i and those after it. */
    zSome = hiddenArgsSome(zArgs, i, -1);
    zSql = sqlite3_mprintf("SELECT count(*) FROM %s(%s)", zMod, zSome);
    hiddenInt(db, zSql, &zErr);
    if (zErr) {
      char *zWant = sqlite3_mprintf("%s: %s is required: %s(", zMod, azCol[i], zMod);
      int bReq = strncmp(zErr, zWant, strlen(zWant)) == 0;
      /* Another error is the optional argument's default at work (a separator the text needs). */
      int bOk = bReq || (strstr(zErr, "is required") == NULL && strstr(zErr, "no query solution") == NULL);
      printf("%s %s(%s) without %s: %s\n", bOk ? "PASS" : "FAIL", zMod, zSome, azCol[i], zErr);
      if (bOk) {
        nPass++;
        bRequired |= bReq;
      } else {
        nFail++;
      }
      sqlite3_free(zWant);
    } else {
      printf("PASS %s(%s) without %s: works (optional)\n", zMod, zSome, azCol[i]);
      nPass++;
    }
    sqlite3_free(zErr);
    sqlite3_free(zSql);
    sqlite3_free(zSome);
    sqlite3_free(zArg);
  }
  sqlite3_exec(db, "DROP TABLE IF EXISTS temp.j", 0, 0, 0);
  return bRequired;
}

/* Checks (a) and (b) for one example of one module. */
static void hiddenExampleRun(sqlite3 *db, const char *zMod, const char *zArgs, char **azCol, int nCol) {
  char *zErr = NULL, *zSql, *zAll = sqlite3_mprintf(""), *azArg[64];
  sqlite3_int64 nRow, n;
  int i, nGiven = 0;
  char zLabel[512];
  snprintf(zLabel, sizeof(zLabel), "%s(%s)", zMod, zArgs);
  zSql = sqlite3_mprintf("SELECT count(*) FROM %s(%s)", zMod, zArgs);
  nRow = hiddenInt(db, zSql, &zErr);
  sqlite3_free(zSql);
  if (zErr || nRow <= 0) {
    hiddenResult(0, "%s: the example must return rows: %s%s", zLabel, zErr ? zErr : "no rows", "");
    sqlite3_free(zErr);
    sqlite3_free(zAll);
    return;
  }
  for (i = 0; i < nCol; i++) {
    char *zArg = hiddenArg(zArgs, i);
    if (zArg == NULL) break;
    nGiven++;
    /* (a) the column reads back the argument, value and type. */
    zSql = sqlite3_mprintf(
        "SELECT count(*) FROM %s(%s) WHERE NOT coalesce(%s IS (%s) AND typeof(%s) = typeof(%s), 0)", zMod,
        zArgs, azCol[i], zArg, azCol[i], zArg);
    n = hiddenInt(db, zSql, &zErr);
    sqlite3_free(zSql);
    if (zErr || n != 0) {
      char *zGot = NULL;
      char *zQ = sqlite3_mprintf("SELECT quote(%s) || ' (' || typeof(%s) || ')' FROM %s(%s) LIMIT 1",
                                 azCol[i], azCol[i], zMod, zArgs);
      sqlite3_stmt *pStmt = NULL;
      if (sqlite3_prepare_v2(db, zQ, -1, &pStmt, 0) == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
        zGot = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(pStmt, 0));
      }
      sqlite3_finalize(pStmt);
      sqlite3_free(zQ);
      printf("FAIL %s: hidden column %s reads back %s, not %s%s%s\n", zLabel, azCol[i], zGot ? zGot : "?",
             zArg, zErr ? ": " : "", zErr ? zErr : "");
      nFail++;
      sqlite3_free(zGot);
      sqlite3_free(zErr);
      zErr = NULL;
    } else {
      printf("PASS %s: hidden column %s reads back %s\n", zLabel, azCol[i], zArg);
      nPass++;
    }
    /* (b) an equality on it keeps every row. */
    zSql = sqlite3_mprintf("SELECT count(*) FROM %s(%s) WHERE %s = (%s)", zMod, zArgs, azCol[i], zArg);
    n = hiddenInt(db, zSql, &zErr);
    sqlite3_free(zSql);
    if (zErr || n != nRow) {
      printf("FAIL %s WHERE %s = %s: %lld of %lld rows%s%s\n", zLabel, azCol[i], zArg, n, nRow,
             zErr ? ": " : "", zErr ? zErr : "");
      nFail++;
      sqlite3_free(zErr);
      zErr = NULL;
    } else {
      printf("PASS %s WHERE %s = %s keeps its %lld rows\n", zLabel, azCol[i], zArg, nRow);
      nPass++;
    }
    zAll = sqlite3_mprintf("%z%s%s = (%s)", zAll, i ? " AND " : "", azCol[i], zArg);
    azArg[i] = zArg;
  }
  /* (c) the same rows when the argument comes as an IN list, each reading it back. */
  for (i = 0; i < nGiven; i++) {
    char *zWhere = sqlite3_mprintf("%s IN ((%s), (%s)) AND %s IS (%s)", azCol[i], azArg[i], azArg[i],
                                   azCol[i], azArg[i]);
    int j;
    for (j = 0; j < nGiven; j++) {
      if (j != i) zWhere = sqlite3_mprintf("%z AND %s = (%s)", zWhere, azCol[j], azArg[j]);
    }
    zSql = sqlite3_mprintf("SELECT count(*) FROM %s WHERE %s", zMod, zWhere);
    n = hiddenInt(db, zSql, &zErr);
    sqlite3_free(zSql);
    if (zErr || n != nRow) {
      printf("FAIL %s WHERE %s: %lld of %lld rows%s%s\n", zMod, zWhere, n, nRow, zErr ? ": " : "",
             zErr ? zErr : "");
      nFail++;
      sqlite3_free(zErr);
      zErr = NULL;
    } else {
      printf("PASS %s: %s as an IN list keeps its %lld rows\n", zLabel, azCol[i], nRow);
      nPass++;
    }
    sqlite3_free(zWhere);
  }
  if (!hiddenMissingRun(db, zMod, zArgs, nRow, azCol, nGiven) && nGiven > 0) {
    printf("FAIL %s: no call without an argument names a required one\n", zLabel);
    nFail++;
  }
  for (i = 0; i < nGiven; i++) sqlite3_free(azArg[i]);
  if (hiddenArg(zArgs, nCol) != NULL) {
    printf("FAIL %s: more arguments than the %d hidden columns\n", zLabel, nCol);
    nFail++;
  } else if (nGiven > 1) {
    zSql = sqlite3_mprintf("SELECT count(*) FROM %s(%s) WHERE %s", zMod, zArgs, zAll);
    n = hiddenInt(db, zSql, &zErr);
    sqlite3_free(zSql);
    if (zErr || n != nRow) {
      printf("FAIL %s WHERE %s: %lld of %lld rows%s%s\n", zLabel, zAll, n, nRow, zErr ? ": " : "",
             zErr ? zErr : "");
      nFail++;
      sqlite3_free(zErr);
    } else {
      printf("PASS %s WHERE (every hidden column) keeps its %lld rows\n", zLabel, nRow);
      nPass++;
    }
  }
  sqlite3_free(zAll);
}

int main(int argc, char **argv) {
  sqlite3 *db = NULL, *dbPlain = NULL;
  char *zWith, *zWithout, *zLine;
  int i, k;
  if (argc < 2) {
    fprintf(stderr, "usage: %s EXTENSION\n", argv[0]);
    return 2;
  }
  sqlite3_open(":memory:", &dbPlain);
  db = propStart(":memory:", argv[1], 0, azSetup);
  if (db == NULL) return 1;
  zWith = hiddenModules(db);
  zWithout = hiddenModules(dbPlain);
  /* Every module of the extension has an entry. */
  for (zLine = zWith + 1; *zLine; zLine = strchr(zLine, '\n') + 1) {
    char zName[128], zKey[130];
    int nName = (int)(strchr(zLine, '\n') - zLine);
    snprintf(zName, sizeof(zName), "%.*s", nName, zLine);
    snprintf(zKey, sizeof(zKey), "\n%s\n", zName);
    /* SQLite's own: those of a connection without the extension, and the
    ** pragma_* tables, registered when first used. */
    if (strstr(zWithout, zKey) || strncmp(zName, "pragma_", 7) == 0) continue;
    for (k = 0; k < HIDDEN_NMODULE && strcmp(aModule[k].zName, zName) != 0; k++) {
    }
    hiddenResult(k < HIDDEN_NMODULE, "module %s has an entry in tests/property/hidden.c%s%s", zName,
                 k < HIDDEN_NMODULE ? "" : ": add its example arguments (or why it has none) to aModule[]",
                 "");
  }
  for (k = 0; k < HIDDEN_NMODULE; k++) {
    const HiddenModule *m = &aModule[k];
    char zKey[130], **azCol;
    int nCol = 0;
    snprintf(zKey, sizeof(zKey), "\n%s\n", m->zName);
    if (strstr(zWith, zKey) == NULL) {
      hiddenResult(0, "module %s of tests/property/hidden.c is not registered by the extension%s%s", m->zName,
                   "", "");
      continue;
    }
    azCol = hiddenColumns(db, m->zName, &nCol);
    if (m->azArgs[0] == NULL) {
      hiddenResult(nCol == 0 && m->zNotTvf, "module %s is not a table-valued function (%s)%s", m->zName,
                   m->zNotTvf ? m->zNotTvf : "no reason given", nCol ? ", yet it has hidden columns" : "");
    } else {
      for (i = 0; m->azArgs[i]; i++) hiddenExampleRun(db, m->zName, m->azArgs[i], azCol, nCol);
    }
    for (i = 0; i < nCol; i++) free(azCol[i]);
    free(azCol);
  }
  sqlite3_free(zWith);
  sqlite3_free(zWithout);
  sqlite3_close(db);
  sqlite3_close(dbPlain);
  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail ? 1 : 0;
}
