/*
** nosql.h: the public interface of the nosql SQLite extension, for hosts
** that link dist/libnosql.a instead of loading dist/nosql.so:
**
**   #include <sqlite3.h>
**   #include "nosql.h"
**   sqlite3_auto_extension((void (*)(void))sqlite3_nosql_init);
**
** after which every new connection has the extension's functions and
** modules. Link with -lsqlite3 -lroaring -lpcre2-8 -lm (libroaring-dev on Debian:
** CRoaring holds the inverted index's posting bitmaps).
*/
#ifndef NOSQL_H
#define NOSQL_H

#include <sqlite3.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The entry point; the name SQLite derives from "nosql.so". */
int sqlite3_nosql_init(sqlite3 *db, char **pzErrMsg, const struct sqlite3_api_routines *pApi);

#ifdef __cplusplus
}
#endif

#endif /* NOSQL_H */
