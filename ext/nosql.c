/*
** nosql.c: the entry point of the nosql extension.
**
** Load it with ".load ./dist/nosql" in the sqlite3 shell, with
** sqlite3_load_extension(db, "dist/nosql", 0, &zErr) from C, or link
** dist/libnosql.a and call sqlite3_auto_extension(sqlite3_nosql_init).
**
** Every feature file (ext/<feature>.c) ends with <feature>Register(), and
** the one static table below lists them. Loading walks the table in order
** and stops at the first failure, naming the feature in the error message.
** docs/ARCHITECTURE.md says how a new feature plugs in.
**
**   nosql_version()  -> TEXT   the text of the VERSION file, e.g. '0.1.0'
*/
#include "nosqlInt.h"

SQLITE_EXTENSION_INIT1

#ifndef NOSQL_VERSION
#error "NOSQL_VERSION must be defined by the build (the VERSION file's text)"
#endif

const char nosqlVersionText[] = NOSQL_VERSION;

/*
** The oldest SQLite the extension loads into: 3.38.0 added
** sqlite3_vtab_in() (IN lists taken whole by virtual tables) and made the
** JSON functions part of every default build. Anything newer that the code
** calls is guarded by a run-time version check at its call site.
*/
#define NOSQL_SQLITE_FLOOR 3038000
#define NOSQL_SQLITE_FLOOR_TEXT "3.38.0"

/* nosql_version(): the version of the loaded extension. */
static void nosqlVersionFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  (void)argv;
  sqlite3_result_text(ctx, nosqlVersionText, -1, SQLITE_STATIC);
}

int nosqlCoreRegister(sqlite3 *db) {
  return sqlite3_create_function(db, "nosql_version", 0, NOSQL_PURE, 0, nosqlVersionFunc, 0, 0);
}

/* One row per feature: its name, for error messages, and its registrar. */
static const struct NosqlFeature {
  const char *zName;           /* Feature name, as in docs/<name>.md */
  int (*xRegister)(sqlite3 *); /* Registers its functions and modules */
} aNosqlFeature[] = {
    /* clang-format off: one feature per line */
    {"core", nosqlCoreRegister},
    {"geohash", geohashRegister},
    {"geo_nearest", geoNearestRegister},
    {"inverted_index", invertedIndexRegister},
    {"roaring", roaringRegister},
    {"ckey", ckeyRegister},
    {"composite_scan", compositeScanRegister},
    {"hll", hllRegister},
    {"kv", kvRegister},
    {"mpath", mpathRegister},
    {"nested_set", nestedSetRegister},
    {"graph source", graphCsrRegister},
    {"graphs", graphWalkRegister},
    {"trees", treeJsonRegister},
    {"graph batch", graphBatchRegister},
    {"graph centrality", graphCentralityRegister},
    {"graph_index", graphIndexRegister},
    {"fts5 gap", fts5GapRegister},
    {"documents", docRegister},
    {"doc_match", docMatchRegister},
    {"index_table", indexTableRegister},
    {"compare", compareRegister},
    /* clang-format on */
};

#ifdef _WIN32
__declspec(dllexport)
#else
__attribute__((visibility("default")))
#endif
    int sqlite3_nosql_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi) {
  size_t i;
  SQLITE_EXTENSION_INIT2(pApi);
  /* The API table of an older host ends before the newer entry points the
  ** extension calls: refuse to load rather than jump past its end. */
  if (sqlite3_libversion_number() < NOSQL_SQLITE_FLOOR) {
    if (pzErrMsg) {
      *pzErrMsg = sqlite3_mprintf("nosql: SQLite %s or newer is required; this host runs SQLite %s",
                                  NOSQL_SQLITE_FLOOR_TEXT, sqlite3_libversion());
    }
    return SQLITE_ERROR;
  }
  if (sqlite3_compileoption_used("OMIT_JSON")) {
    if (pzErrMsg) {
      *pzErrMsg = sqlite3_mprintf("nosql: this host's SQLite %s was built without JSON (SQLITE_OMIT_JSON)",
                                  sqlite3_libversion());
    }
    return SQLITE_ERROR;
  }
  for (i = 0; i < sizeof(aNosqlFeature) / sizeof(aNosqlFeature[0]); i++) {
    int rc = aNosqlFeature[i].xRegister(db);
    if (rc != SQLITE_OK) {
      if (pzErrMsg) {
        *pzErrMsg = sqlite3_mprintf("nosql: cannot register feature '%s': %s (%s)", aNosqlFeature[i].zName,
                                    sqlite3_errmsg(db), sqlite3_errstr(rc));
      }
      return rc;
    }
  }
  return SQLITE_OK;
}
