/*
** unit_api.c: gives unit-test programs a working sqlite3_api pointer, so
** that code in ext/ which allocates with sqlite3_malloc64 (the buffer, the
** error helpers) can be tested outside a loaded extension.
**
** SQLite hands the API table only to extension entry points, so this file
** registers one with sqlite3_auto_extension() and opens a connection.
*/
#include <sqlite3.h>

extern const sqlite3_api_routines *nosql_sqlite3_api;
void unitApiInit(void);

static int unitCaptureApi(sqlite3 *db, char **pzErr, const sqlite3_api_routines *pApi) {
  (void)db;
  (void)pzErr;
  nosql_sqlite3_api = pApi;
  return SQLITE_OK;
}

static sqlite3 *unitDb; /* Keeps the library initialised for the program's life */

void unitApiInit(void) {
  if (unitDb) return;
  sqlite3_auto_extension((void (*)(void))unitCaptureApi);
  sqlite3_open(":memory:", &unitDb);
  sqlite3_cancel_auto_extension((void (*)(void))unitCaptureApi);
}
