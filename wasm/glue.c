/*
** wasm/glue.c: the C side of the WebAssembly build (make wasm), linked
** with the SQLite amalgamation and the extension compiled with
** -DSQLITE_CORE. wasm/api.js (the JavaScript API) calls nosqlWasmInit()
** once, before it opens the first connection.
**
** nosqlWasmInit registers two auto-extensions, so that every connection
** the module opens has them: the extension itself (sqlite3_nosql_init, as
** tests/static/host.c does for hosts without dlopen) and a progress
** handler that asks JavaScript, every NOSQL_WASM_POLL virtual-machine
** instructions, whether the running statement should stop. The JavaScript
** side (Module.nosqlPoll, set by wasm/api.js) reads a flag that another
** thread may set (a SharedArrayBuffer in the playground's Web Worker); a
** nonzero answer makes the statement fail with SQLITE_INTERRUPT
** ("interrupted"), the way sqlite3_interrupt does in a native host.
*/
#include <emscripten.h>
#include <stdlib.h>

#include "sqlite3.h"

#include "nosql.h"

/* VM instructions between two polls: about 0.1 ms of work, so that an
** interrupt lands at once while the poll's cost stays below 1%. */
#define NOSQL_WASM_POLL 10000

/* Nonzero when the JavaScript side asks the running statement to stop. */
EM_JS(int, nosqlWasmPoll, (void), { return Module['nosqlPoll'] ? (Module['nosqlPoll']() ? 1 : 0) : 0; });

static int nosqlWasmProgress(void *pArg) {
  (void)pArg;
  return nosqlWasmPoll();
}

static int nosqlWasmConnect(sqlite3 *db, char **pzErrMsg, const struct sqlite3_api_routines *pApi) {
  (void)pzErrMsg;
  (void)pApi;
  sqlite3_progress_handler(db, NOSQL_WASM_POLL, nosqlWasmProgress, 0);
  return SQLITE_OK;
}

/* Registers the extension and the progress handler for every connection
** opened from now on. Returns an SQLite result code. */
EMSCRIPTEN_KEEPALIVE int nosqlWasmInit(void) {
  int rc = sqlite3_initialize();
  if (rc == SQLITE_OK) rc = sqlite3_auto_extension((void (*)(void))sqlite3_nosql_init);
  if (rc == SQLITE_OK) rc = sqlite3_auto_extension((void (*)(void))nosqlWasmConnect);
  return rc;
}

/* sqlite3_bind_int64 for JavaScript, whose numbers cannot carry a 64-bit
** integer through a call without BigInt support in the WebAssembly
** interface: an integral double (|v| <= 2^53) or the decimal text of a
** BigInt (zDec, NUL-terminated; out-of-range digits saturate as strtoll
** does). */
EMSCRIPTEN_KEEPALIVE int nosqlWasmBindInt64(sqlite3_stmt *pStmt, int i, double v) {
  return sqlite3_bind_int64(pStmt, i, (sqlite3_int64)v);
}

EMSCRIPTEN_KEEPALIVE int nosqlWasmBindInt64Dec(sqlite3_stmt *pStmt, int i, const char *zDec) {
  return sqlite3_bind_int64(pStmt, i, (sqlite3_int64)strtoll(zDec, 0, 10));
}
