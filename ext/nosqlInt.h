/*
** nosqlInt.h: the internal header shared by every file in ext/.
**
** One banner per source file declares what that file offers the others,
** in the fts5Int.h manner. Nothing here is part of the public interface:
** the only exported symbol of the extension is sqlite3_nosql_init().
*/
#ifndef NOSQL_INT_H
#define NOSQL_INT_H

#include "sqlite3ext.h"

#include <stddef.h>
#include <stdint.h>

/*
** The release builds promise glibc 2.17 (the manylinux2014 wheels, whose
** files scripts/glibc-check.sh reads). glibc 2.29 gave exp, exp2, log,
** log2 and pow new symbol versions (the same results, minus the old SVID
** error handling); every call binds to the version glibc has had since
** 2.17 instead. A name a file does not call makes no reference.
*/
#if defined(__GLIBC__) && defined(__x86_64__)
__asm__(".symver exp,exp@GLIBC_2.2.5");
__asm__(".symver exp2,exp2@GLIBC_2.2.5");
__asm__(".symver log,log@GLIBC_2.2.5");
__asm__(".symver log2,log2@GLIBC_2.2.5");
__asm__(".symver pow,pow@GLIBC_2.2.5");
#elif defined(__GLIBC__) && defined(__aarch64__)
__asm__(".symver exp,exp@GLIBC_2.17");
__asm__(".symver exp2,exp2@GLIBC_2.17");
__asm__(".symver log,log@GLIBC_2.17");
__asm__(".symver log2,log2@GLIBC_2.17");
__asm__(".symver pow,pow@GLIBC_2.17");
#endif

/*
** Every source file in ext/ is part of one extension and shares its one
** sqlite3_api pointer. The pointer gets a private name so that a host that
** links libnosql.a next to another statically linked extension does not see
** two definitions of "sqlite3_api".
*/
#define sqlite3_api nosql_sqlite3_api
SQLITE_EXTENSION_INIT3

/* Flags of a pure SQL function: usable in indexes and generated columns. */
#define NOSQL_PURE (SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS)
/* Flags of a function with side effects: never callable from schema code. */
#define NOSQL_EFFECT (SQLITE_UTF8 | SQLITE_DIRECTONLY)

/**************************************************************************
** Interface to code in ext/util.c
*/

/*
** A growable byte buffer with the sticky error code API of fts5: every
** call takes "int *pRc" and does nothing when *pRc is not SQLITE_OK, so a
** builder can make many calls and check the code once at the end. The
** buffer owns a[], allocated with sqlite3_malloc64; free it with
** nosqlBufferFree(). a[] is always NUL terminated one past n when n > 0,
** so text built here can be handed to SQLite as a C string.
*/
typedef struct NosqlBuffer NosqlBuffer;
struct NosqlBuffer {
  unsigned char *a;     /* Bytes; NULL until the first append */
  sqlite3_int64 n;      /* Bytes used, not counting the terminating NUL */
  sqlite3_int64 nAlloc; /* Bytes allocated for a[] */
};

void nosqlBufferGrow(int *pRc, NosqlBuffer *p, sqlite3_int64 nMore);
/* nosqlBufferAppend: n < 0 appends the NUL-terminated string a. */
void nosqlBufferAppend(int *pRc, NosqlBuffer *p, const void *a, sqlite3_int64 n);
void nosqlBufferAppendf(int *pRc, NosqlBuffer *p, const char *zFmt, ...);
void nosqlBufferReset(NosqlBuffer *p);
void nosqlBufferFree(NosqlBuffer *p);

/*
** Render an argument for an error message: numbers as SQLite prints them,
** text in single quotes (truncated to 60 bytes), blobs as x'..' (truncated),
** NULL as NULL. Returns a string from sqlite3_mprintf (caller frees), or
** NULL on OOM.
*/
char *nosqlValueQuote(sqlite3_value *pVal);

/*
** Report a printf-style error message as the result of an SQL function. By
** convention the message starts with the function's name and quotes the
** bad value: "geohash: latitude 91.5 is outside [-90, 90]". On OOM it
** reports SQLITE_NOMEM instead.
*/
void nosqlResultError(sqlite3_context *ctx, const char *zFmt, ...);

/*
** Set pVtab->zErrMsg to a new message, freeing the old one.
*/
void nosqlVtabError(sqlite3_vtab *pVtab, const char *zFmt, ...);

/*
** The message of xConnect when a module made for CREATE VIRTUAL TABLE
** (xCreate == xConnect, so SQLite also connects it as an eponymous table)
** is called as a table-valued function, "composite_scan('t', 'k', 'a')":
** argc == 3 and the table is named after the module. Returns the message
** "MOD: not a table-valued function: create a table with CREATE VIRTUAL
** TABLE name USING MOD(zArgs)" (sqlite3_mprintf), or NULL when the
** call is not that one (or on OOM, *pbNoMem set).
*/
char *nosqlNotTableFunction(int argc, const char *const *argv, const char *zArgs, int *pbNoMem);

/*
** "(valid options: a, b, c)": the list that every unknown-option message
** ends with, built from the NULL-terminated azValid (sqlite3_mprintf;
** NULL on OOM). nosqlUnknownOption() is the whole message,
** "zWho: unknown option 'zKey' (valid options: ...)", zKey[0..nKey)
** (nKey < 0: NUL-terminated).
*/
char *nosqlValidOptions(const char *const *azValid);
char *nosqlUnknownOption(const char *zWho, const char *zKey, int nKey, const char *const *azValid);

/*
** Options objects: a function with several optional arguments also takes
** them by name in a JSON object given as its last argument,
** graph_path('e', 'a', 'b', 1, 2, '{"direction": "both"}'), as doc_update
** takes its options. The keys are the optional arguments' names.
**
** Which argument is the object: the last one given (the highest position
** i with apArg[i] neither NULL nor SQL NULL), when i >= nReq (never a required argument:
** a node id may be JSON text), its value is text whose first byte is '{',
** and argument i is not itself one that takes a JSON object
** (NOSQL_OPT_OBJECT, graph_pagerank's personalization). An argument
** given as SQL NULL counts as not given: the object may set it.
**
** nosqlOptionsRead(): aOpt[0..nArg) names and types the arguments in
** positional order; apArg[i] is argument i as given or NULL. It fills
** apEff[i] with the value to use for argument i (apArg[i], or the
** object's value, or NULL: the default) and apOwn[i] with the values it
** made (freed by the caller with sqlite3_value_free(); NULL elsewhere;
** both arrays of nArg entries, NULL on entry). *piObj is the object's
** position or -1. Errors, in *pzErr (sqlite3_mprintf), each naming the
** function zFunc: the object is not strict JSON (NOSQL_JSON_AT); an
** unknown key (the valid ones listed: nosqlUnknownOption()); a key given
** twice, in the object and as an argument, or twice in the object; a value
** of the wrong type (JSON null is always accepted: the default). Returns
** SQLITE_OK, SQLITE_ERROR with *pzErr, or SQLITE_NOMEM. It reads the
** object with json_each() (after the strict check) on db.
*/
#define NOSQL_OPT_TEXT 1   /* A JSON string */
#define NOSQL_OPT_INT 2    /* A JSON integer */
#define NOSQL_OPT_NUM 3    /* A JSON number, integer or real */
#define NOSQL_OPT_BOOL 4   /* true or false (as the integers 1 and 0) */
#define NOSQL_OPT_OBJECT 5 /* A JSON object (as its JSON text) or a string */
typedef struct NosqlOption NosqlOption;
struct NosqlOption {
  const char *zName; /* The argument's name, which is its key in the object */
  int eType;         /* NOSQL_OPT_*: what the object's value must be */
};
int nosqlOptionsRead(sqlite3 *db, const char *zFunc, const NosqlOption *aOpt, int nReq, int nArg,
                     sqlite3_value *const *apArg, sqlite3_value **apEff, sqlite3_value **apOwn, int *piObj,
                     char **pzErr);

/*
** The xConnect of a table-valued function that computes its rows (no
** shadow tables, no side effects): declare zDecl, allocate nByte zeroed
** bytes (the caller's vtab struct, sqlite3_vtab first) into *ppVtab and
** mark the table innocuous. SQLITE_OK, or the error of
** sqlite3_declare_vtab(), or SQLITE_NOMEM (*ppVtab NULL).
*/
int nosqlVtabNew(sqlite3 *db, const char *zDecl, sqlite3_int64 nByte, sqlite3_vtab **ppVtab);
/* The xDisconnect (and xDestroy) of such a table: sqlite3_free() it. */
int nosqlVtabFree(sqlite3_vtab *pVtab);

/*
** State shared by one connection's registrations of a feature (a module's
** pAux, a function's user data) and by its connected tables, across loads
** of the extension: loading it again replaces the registrations, but SQLite
** keeps the tables connected before on the old ones until the schema is
** reset, so registries that companions search (inverted_index_count,
** index_table_drift) must be the same object for both. One object per
** (db, iKind), nByte zeroed bytes, made by the first call; every call and
** nosqlConnSharedRef() takes a reference, nosqlConnSharedUnref() (usable as
** a destructor) drops one and frees the object with the last. NULL on OOM.
** The list of objects is guarded by a process-wide mutex.
*/
#define NOSQL_SHARED_INVERTED_INDEX 1
#define NOSQL_SHARED_INDEX_TABLE 2
#define NOSQL_SHARED_GRAPH_INDEX 3
void *nosqlConnShared(sqlite3 *db, int iKind, sqlite3_int64 nByte);
void nosqlConnSharedRef(void *pObj);
void nosqlConnSharedUnref(void *pObj);

/*
** The common xOpen: a zeroed cursor object of nByte bytes whose first
** member is its sqlite3_vtab_cursor, stored in *ppCursor. Returns it, or
** NULL on OOM (*ppCursor untouched). Freed by the module's xClose.
*/
void *nosqlCursorNew(sqlite3_int64 nByte, sqlite3_vtab_cursor **ppCursor);

/*
** The xNext of a cursor that walks a statement of its own: step pStmt;
** SQLITE_OK with a row, or at the end with *pbEof set; on an error (SQLite's
** code, SQLITE_INTERRUPT included, passed on) *pbEof is set, the statement
** reset and pVtab's message is "<zWho>: <the connection's message>".
*/
int nosqlCursorStep(sqlite3_vtab *pVtab, sqlite3_stmt *pStmt, const char *zWho, int *pbEof);

/* FNV-1a over n bytes from h (start from NOSQL_FNV_SEED): the byte hash of the in-memory hash tables. */
#define NOSQL_FNV_SEED 0xcbf29ce484222325ull
static inline uint64_t nosqlFnv1a(uint64_t h, const void *pData, sqlite3_int64 n) {
  const unsigned char *z = (const unsigned char *)pData;
  sqlite3_int64 i;
  for (i = 0; i < n; i++) h = (h ^ z[i]) * 0x100000001b3ull;
  return h;
}

/* The 64-bit finalizer of MurmurHash3 (fmix64): every input bit reaches every output bit. */
static inline uint64_t nosqlMix64(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

/* C's white space (' ', tab, newline, carriage return, form feed, vertical tab), locale-free: the
** query languages' and option parsers' separator. */
int nosqlIsSpace(char c);

/* The deepest nesting of arrays and objects the project reads or writes (SQLite's own limit). */
#define NOSQL_JSON_MAX_DEPTH 1000

/*
** The JSON token scanners of nosqlJsonStrict(), for parsers that must
** accept exactly what it accepts (ext/doc_json.c). Each reads from z[*pi]
** (a string from its opening quote, a number from its first character),
** returns 1 and leaves *pi past a well-formed token, else returns 0;
** *pbEsc says the string has escapes, *pbInt that the number has no
** fraction or exponent. nosqlJsonScanSpace returns the index past RFC 8259
** white space from i.
*/
int nosqlJsonScanSpace(const unsigned char *z, int n, int i);
int nosqlJsonScanString(const unsigned char *z, int n, int *pi, int *pbEsc);
int nosqlJsonScanNumber(const unsigned char *z, int n, int *pi, int *pbInt);

/*
** True if z[0..n) is one JSON value as RFC 8259 defines it (no JSON5: the
** host's json_each() accepts JSON5 from SQLite 3.42 on), nested at most
** NOSQL_JSON_MAX_DEPTH deep, with only whitespace around it.
*/
int nosqlJsonStrict(const char *z, int n);

/*
** True when nosqlJsonStrict() refuses z[0..n) because it nests deeper than
** NOSQL_JSON_MAX_DEPTH (the scan reached the limit before any other fault):
** valid JSON that is too deep is then reported with NOSQL_JSON_DEEP, e.g.
** "kv_mget: keys_json nests deeper than 1000 levels", never as malformed.
*/
int nosqlJsonTooDeep(const char *z, int n);
#define NOSQL_JSON_DEEP "nests deeper than %d levels"

/*
** Where nosqlJsonStrict() refuses z[0..n): the byte offset (0 for the
** first byte) of the first byte the strict grammar cannot take, n when the
** text ends too early; -1 when z[0..n) is strict JSON. Every "not strict
** JSON" message gives it the same way (NOSQL_JSON_AT): "doc_match: the
** filter is not strict JSON at byte 12: '{"a":{"$gt":}}'".
*/
int nosqlJsonErrorAt(const char *z, int n);
#define NOSQL_JSON_AT "is not strict JSON at byte %d"

/*
** JSON writers over a NosqlBuffer (sticky error code): text z[0..n) as a
** JSON string (quotes, backslashes and control characters escaped), and a
** real as the shortest of its %.15g, %.16g and %.17g forms that reads back
** exactly, always with a '.' or an exponent (-0.0 kept; infinities as
** 9e999 and -9e999; NaN, which SQLite cannot hold, as null).
*/
void nosqlBufferJsonString(int *pRc, NosqlBuffer *pBuf, const char *z, int n);
void nosqlBufferJsonReal(int *pRc, NosqlBuffer *pBuf, double r);

/* strtod() of NUL-terminated z in the "C" locale: '.' is the decimal point whatever the host's locale. */
double nosqlStrtod(const char *z);

/*
** Decode the n bytes z[0..n) inside a JSON string (valid JSON: escapes
** well formed; no quotes) into aOut as UTF-8 (room for n bytes: decoding
** never grows). With aMap, aMap[k] = iBase + the offset in z of the byte,
** or of the escape, that gave decoded byte k. Lone surrogates become
** U+FFFD, as SQLite's JSON functions do. Returns the decoded length.
*/
int nosqlJsonUnescape(const char *z, int n, char *aOut, int *aMap, int iBase);

/*
** The name of column zCol of table or view zSchema.zTable (matched
** case-insensitively) as declared: SQLITE_OK with *pzOut (sqlite3_mprintf),
** SQLITE_NOTFOUND when there is no such column, or an error code (*pzOut
** NULL). The graph functions, graph_index and geo_nearest resolve their
** column arguments with it.
*/
int nosqlColumnName(sqlite3 *db, const char *zSchema, const char *zTable, const char *zCol, char **pzOut);
/*
** Column zCol of table zSchema.zTable (matched case-insensitively): its
** declared type (*pzType, "" when none) and declared collation (*pzColl,
** NULL for BINARY), both sqlite3_mprintf. Works on every SQLite build: the
** type from pragma table_xinfo, the collation from the CREATE TABLE text
** (nosqlDeclaredCollation()), not sqlite3_table_column_metadata(). Returns
** SQLITE_OK, SQLITE_NOTFOUND (no such table or column) or an error code.
*/
int nosqlColumnInfo(sqlite3 *db, const char *zSchema, const char *zTable, const char *zCol, char **pzType,
                    char **pzColl);
char *nosqlDeclaredCollation(const char *zSql, const char *zCol, int *pRc);

/*
** The INTEGER PRIMARY KEY of table zSchema.zTable, the column that is its
** rowid: *pzCol a new string (sqlite3_mprintf), or NULL when the table has
** none (its rowids are then SQLite's to renumber: VACUUM does), is WITHOUT
** ROWID, or does not exist. SQLITE_OK or an error code.
*/
int nosqlRowidAlias(sqlite3 *db, const char *zSchema, const char *zTable, char **pzCol);

/*
** The rows a REPLACE may delete through the UNIQUE indexes of table
** zSchema.zTable (a primary key that is not the rowid included), as a
** trigger's condition over the table aliased "s": *pCond gets " OR
** (s."a" = NEW."a" COLLATE "c" AND ...)" per index, in the index's
** collations. Key parts that are expressions are left out (a superset of
** the rows); an index whose first part is one is not covered. Unless NULL,
** xCheck(pCtx, zIdx, bPartial, bExpr) is called first for each key part
** (zIdx NULL on OOM), and an error it returns stops the read (a caller
** that cannot follow a partial index or an expression refuses it there).
** xCol(pCtx, zCol), unless NULL, is called for each key column put in.
** *pnIndex gets the indexes put in (0: *pCond untouched). SQLITE_OK or an
** error code.
*/
int nosqlUniqueConds(sqlite3 *db, const char *zSchema, const char *zTable, NosqlBuffer *pCond, int *pnIndex,
                     int (*xCheck)(void *, const char *, int, int), int (*xCol)(void *, const char *),
                     void *pCtx);

/*
** One token of SQL text at z[*pi]: comments and spaces are skipped;
** returns the token's first byte (NULL at the end) and its length in *pn;
** *pi moves past it. Quoted identifiers and strings are one token, quotes
** included; '(', ')' and ',' are tokens of their own; any other run of
** bytes up to a space, quote, parenthesis, comma or comment is one token.
*/
const char *nosqlSqlToken(const char *z, int *pi, int *pn);

/*
** A copy of z[0..n) without surrounding white space and without one level
** of quoting ('x', "x", `x` or [x], doubled quotes undone): a new string
** (sqlite3_malloc64), or NULL on OOM.
*/
char *nosqlDequote(const char *z, int n);
/*
** A copy of a virtual table constructor's argv in one allocation (free it
** with sqlite3_free), for a constructor that runs statements while it
** still reads its arguments: a statement may reset the schema that the
** original argv lives in (it did under out-of-memory). NULL on OOM.
*/
char **nosqlArgvDup(int argc, const char *const *argv);

/* True when token z[0..n) is an identifier: a bare word or a "", ``, [] quoted name. */
int nosqlIsIdent(const char *z, int n);

/*
** A module argument naming a table: "table" or "schema.table", each part
** a bare word or a quoted identifier ("my table", [t], `t`). Sets
** *pzSchema (NULL when the name has none) and *pzName to new strings
** (sqlite3_malloc64). SQLITE_ERROR, nothing allocated, when z is not such
** a name; SQLITE_NOMEM on OOM.
*/
int nosqlQualifiedName(const char *z, char **pzSchema, char **pzName);

/*
** The table argument of the kv_* and doc_* functions in its column form,
** "table(col, col, ...)" (kvTablePrepare()).
*/
typedef struct NosqlColumnList NosqlColumnList;
struct NosqlColumnList {
  char *zTable; /* The table part as written, trimmed (to resolve with nosqlTableResolve()) */
  int nCol;     /* Names in the list */
  char **azCol; /* The names, dequoted, in the order written */
};

/*
** Split z, written "table(col, col, ...)", into *p: each name a bare word
** or a quoted identifier ("the key", [k], `k`). SQLITE_NOTFOUND, nothing
** allocated, when z has no '(' (a plain table name); SQLITE_ERROR with
** *pzErr (sqlite3_mprintf) saying what is malformed ("unbalanced quote",
** "unbalanced parenthesis", "empty column name (name 2)", ...); SQLITE_OK
** fills *p: free it with nosqlColumnListClear(); SQLITE_NOMEM.
*/
int nosqlColumnListParse(const char *z, NosqlColumnList *p, char **pzErr);
void nosqlColumnListClear(NosqlColumnList *p);

/*
** The affinity SQLite gives declared type zType (datatype3.html, 3.1):
** 'i'nteger, 't'ext, 'b'lob (none), 'r'eal or 'n'umeric.
*/
char nosqlTypeAffinity(const char *zType);

/*
** A table name resolved as SQLite resolves one in SQL (nosqlTableResolve()).
*/
#define NOSQL_TABLE 0 /* An ordinary table (or shadow table) */
#define NOSQL_VIEW 1  /* A view */
#define NOSQL_VTAB 2  /* A virtual table */
typedef struct NosqlTableName NosqlTableName;
struct NosqlTableName {
  char *zSchema;  /* Schema that holds it ("main", "temp", an attached name) */
  char *zName;    /* The name as declared */
  int eType;      /* NOSQL_TABLE, NOSQL_VIEW or NOSQL_VTAB */
  int bQualified; /* The text named the schema ("main.t"), else SQLite would search for it */
};

/*
** Resolve zText, a table or view name given as a value (a function's
** argument, a module argument), as SQLite resolves a name in SQL: "name"
** or "schema.name", each part a bare word or a quoted identifier ("my
** table", [t], `t`), matched case-insensitively; an unqualified name is
** sought in zDefault when not NULL, else in temp, main, then the attached
** schemas in the order attached. The whole text is tried first as one
** name (a table may have a dot in its name). The one resolver of every
** function that takes a table name: the graph functions, the kv_* and
** doc_* functions (kvTablePrepare()), index_table and composite_scan
** (through nosqlTableArg()).
** SQLITE_OK fills *p (free with nosqlTableNameClear()); SQLITE_NOTFOUND
** when there is no such table, *p then holding the parts as written (the
** schema zDefault when none is written; zName NULL when zText is not a
** name); else an error code, *p zeroed.
*/
int nosqlTableResolve(sqlite3 *db, const char *zText, const char *zDefault, NosqlTableName *p);
void nosqlTableNameClear(NosqlTableName *p);
/*
** A virtual table's cache of prepared statements keyed by text (the plan
** of an index_table read, the range shape of a composite_scan scan), each
** lent to one cursor at a time. nosqlStmtCacheTake() lends the cached
** statement of zKey that no cursor holds, or returns NULL; the cursor
** then prepares its own and offers it with nosqlStmtCacheKeep(), which
** keeps it (lent) in a free slot or in place of an idle one, round robin,
** or leaves *ppSlot NULL. nosqlStmtCacheGive() takes a statement back from
** its cursor: reset with its bindings cleared into its slot, or finalized
** (no slot, or the cache was cleared while it was lent).
** nosqlStmtCacheClear() finalizes the idle statements and marks the lent
** ones to be finalized when given back. A zeroed cache with nSlot set
** (at most NOSQL_STMT_CACHE_MAX) is empty.
*/
#define NOSQL_STMT_CACHE_MAX 18
typedef struct NosqlStmtSlot NosqlStmtSlot;
typedef struct NosqlStmtCache NosqlStmtCache;
struct NosqlStmtSlot {
  char *zKey;          /* The key (sqlite3_malloc64), or NULL when the slot is free */
  sqlite3_stmt *pStmt; /* The statement, or NULL */
  int bBusy;           /* Lent to a cursor */
  int bStale;          /* Cleared while lent: finalized when given back */
};
struct NosqlStmtCache {
  int nSlot;                                 /* Slots used, <= NOSQL_STMT_CACHE_MAX */
  int iNext;                                 /* Slot to reuse next when none is free */
  NosqlStmtSlot aSlot[NOSQL_STMT_CACHE_MAX]; /* The statements */
};
sqlite3_stmt *nosqlStmtCacheTake(NosqlStmtCache *p, const char *zKey, NosqlStmtSlot **ppSlot);
void nosqlStmtCacheKeep(NosqlStmtCache *p, const char *zKey, sqlite3_stmt *pStmt, NosqlStmtSlot **ppSlot);
void nosqlStmtCacheGive(NosqlStmtSlot *pSlot, sqlite3_stmt *pStmt);
void nosqlStmtCacheClear(NosqlStmtCache *p);

/*
** A module argument naming the virtual table's base table (index_table,
** composite_scan): nosqlTableResolve() with unqualified names sought in
** zDefault, where a table that does not exist fills *p with the name as
** written and returns SQLITE_OK (the module reports it later, by name).
** SQLITE_ERROR when zText is not a name; free *p with
** nosqlTableNameClear() whatever the result.
*/
int nosqlTableArg(sqlite3 *db, const char *zText, const char *zDefault, NosqlTableName *p);

/*
** *ppOut: a new value (sqlite3_value_free()) holding pVal as the comparison
** "col = ?" sees it when col has affinity cAff (nosqlTypeAffinity()): with
** 'i', 'r' or 'n' a text that is a number becomes that number, with 't' a
** number becomes its text; anything else is a plain copy. pVal is never
** changed: a caller may keep reading an argument as it was given (a hidden
** column). Works on any value, a sqlite3_value_dup() copy included: no
** sqlite3_value_numeric_type(), which needs the value's connection (on a
** copy it crashes SQLite 3.52 and 3.53). SQLITE_OK or an error code.
*/
int nosqlValueAffinity(sqlite3 *db, sqlite3_value *pVal, char cAff, sqlite3_value **ppOut);

/*
** SQLite drops an empty module argument (`USING m(a, )`, `m(a,,b)`) before
** xCreate sees the list, so a module cannot tell it from the list. These
** read the CREATE VIRTUAL TABLE text instead. nosqlArgsHaveEmpty() is the
** pure scan: 1 if the argument list of zSql (the text after the first
** '(' up to its matching ')', split at top-level commas outside quotes,
** brackets and comments) has an argument that is only white space or
** comments. nosqlVtabEmptyArg() looks up the table's text in
** "zDb".sqlite_schema (xCreate runs after SQLite stored it) and sets *pzErr
** to "MODULE: empty argument in the column list" when it has one;
** SQLITE_OK or SQLITE_ERROR.
*/
int nosqlArgsHaveEmpty(const char *zSql);
int nosqlVtabEmptyArg(sqlite3 *db, const char *zModule, const char *zDb, const char *zName, char **pzErr);

/**************************************************************************
** Interface to code in ext/plan.c: the planning helper of every xBestIndex
** (rules and the idxStr encoding in the header comment of ext/plan.c).
*/

/* Operators a column can serve (NosqlPlanCol.mOp). */
#define NOSQL_OP_EQ 0x01     /* = (and IN, one value per xFilter) */
#define NOSQL_OP_GT 0x02     /* > */
#define NOSQL_OP_GE 0x04     /* >= */
#define NOSQL_OP_LT 0x08     /* < */
#define NOSQL_OP_LE 0x10     /* <= */
#define NOSQL_OP_INLIST 0x20 /* an IN list arrives whole (sqlite3_vtab_in_first/next) */
#define NOSQL_OP_MATCH 0x40  /* MATCH (served as the slot's equality value) */
#define NOSQL_OP_RANGE (NOSQL_OP_GT | NOSQL_OP_GE | NOSQL_OP_LT | NOSQL_OP_LE)

/* Most columns one plan describes (slots 'a' .. 'a' + 25 in idxStr). */
#define NOSQL_PLAN_MAX_COL 26

/* NosqlPlanCol.zColl of a column whose values the module never compares
** as text itself (hidden inputs): any collation is served. */
#define NOSQL_COLL_ANY ((const char *)1)

/* What a module serves on one column. */
typedef struct NosqlPlanCol NosqlPlanCol;
struct NosqlPlanCol {
  int iColumn;       /* Column number as in aConstraint[].iColumn (-1 rowid) */
  unsigned mOp;      /* NOSQL_OP_* bits served */
  const char *zColl; /* Collation enforced exactly (NULL: BINARY), or NOSQL_COLL_ANY */
  int bExact;        /* The module's answer is exact: omit SQLite's check */
  int bRequired;     /* An input: no equality, no plan (SQLITE_CONSTRAINT) */
};

/*
** The constraints found for each slot (aCol[] index) by nosqlPlanFind():
** aConstraint[] indexes or -1. A module may set entries to -1 (a range it
** cannot use after all) before nosqlPlanCommit(), which fills the rest.
*/
typedef struct NosqlPlan NosqlPlan;
struct NosqlPlan {
  int nCol;                           /* Slots described */
  int aiEq[NOSQL_PLAN_MAX_COL];       /* Equality (or IN) constraint per slot */
  int aiLo[NOSQL_PLAN_MAX_COL];       /* Lower bound (> or >=), when no equality */
  int aiHi[NOSQL_PLAN_MAX_COL];       /* Upper bound (< or <=), when no equality */
  int nArg;                           /* After commit: argv[] values xFilter receives */
  int bInList;                        /* After commit: some equality takes a whole IN list */
  unsigned mUsed[NOSQL_PLAN_MAX_COL]; /* After commit: per slot, NOSQL_OP_* bits used */
  const char *zTail;                  /* Set before commit: text idxStr ends with, after a space, or NULL */
};

/* One slot's values in xFilter, decoded by nosqlPlanArgs(). */
typedef struct NosqlPlanArg NosqlPlanArg;
struct NosqlPlanArg {
  sqlite3_value *pEq; /* Equality value (an IN list when bInList), or NULL */
  sqlite3_value *pLo; /* Lower bound, or NULL */
  sqlite3_value *pHi; /* Upper bound, or NULL */
  int bInList;        /* pEq is an IN list: sqlite3_vtab_in_first/next */
  int bLoIncl;        /* pLo is >= (else >) */
  int bHiIncl;        /* pHi is <= (else <) */
};

/*
** Find the constraints of pInfo that aCol[0..nCol) can serve (usable, an
** operator listed in mOp, a collation the column accepts): per slot one
** equality, or else one lower and one upper bound. SQLITE_CONSTRAINT when
** a required slot has no equality; SQLITE_ERROR when nCol is too large.
*/
int nosqlPlanFind(sqlite3_index_info *pInfo, const NosqlPlanCol *aCol, int nCol, NosqlPlan *pPlan);

/*
** For table-valued functions, after nosqlPlanFind(): SQLITE_CONSTRAINT when
** a slot got no equality although the query has one that is not usable in
** this join order (its value comes from a table not scanned yet). Taken
** without it the input would be missing, and SQLite's own check of the
** equality on each row would drop every row; refused, SQLite scans that
** table first. SQLITE_OK otherwise.
*/
int nosqlPlanInputsReady(const sqlite3_index_info *pInfo, const NosqlPlanCol *aCol, const NosqlPlan *pPlan);

/*
** Use the constraints left in *pPlan: argvIndex in slot order (equality,
** lower, upper), omit where the slot is bExact, IN lists taken whole where
** it has NOSQL_OP_INLIST, and idxStr (allocated, needToFreeIdxStr). The
** caller sets idxNum, costs and orderByConsumed. SQLITE_OK or SQLITE_NOMEM.
*/
int nosqlPlanCommit(sqlite3_index_info *pInfo, const NosqlPlanCol *aCol, NosqlPlan *pPlan);

/* nosqlPlanFind() then nosqlPlanCommit(). */
int nosqlPlanBest(sqlite3_index_info *pInfo, const NosqlPlanCol *aCol, int nCol, NosqlPlan *pPlan);

/*
** The whole xBestIndex of a function whose hidden columns are only inputs
** (aCol: equalities, some required): the plan of nosqlPlanBest(), idxNum 0,
** and the cost and row estimates; but a required slot without a usable
** equality is SQLITE_CONSTRAINT only when the query has an equality on it
** that this join order cannot use (nosqlPlanInputsReady()). Without any,
** the plan is made without the input at cost 1e300, so that it is chosen
** only when nothing has the input, and xFilter, which decodes it with
** nosqlPlanInputArgs(), names what is missing.
*/
int nosqlPlanInputs(sqlite3_index_info *pInfo, const NosqlPlanCol *aCol, int nCol, double rCost,
                    sqlite3_int64 nRows);

/*
** xFilter of such a function: nosqlPlanArgs(), then every required slot
** must have its value. zUsage is the function's signature,
** "kv_pairs(prefix, doc[, sep])", whose i-th argument names slot i of
** aCol. Errors in pVtab: "kv_pairs: doc is required: kv_pairs(prefix,
** doc[, sep])", or "kv_pairs: bad plan <idxStr>" for a plan that does not
** decode. SQLITE_OK, SQLITE_ERROR, or SQLITE_NOMEM when the message could
** not be made.
*/
int nosqlPlanInputArgs(sqlite3_vtab *pVtab, const char *zUsage, const NosqlPlanCol *aCol, int nCol,
                       const char *idxStr, int argc, sqlite3_value **argv, NosqlPlanArg *aArg);

/*
** The constraints of plan idxStr in words, appended to pOut: "city = ?",
** "rowid > ?", "root IN (list, taken whole)", "body MATCH ?", one per
** argv[] entry in argv order, joined by zSep, each slot named by
** azSlot[slot] ("?" for a slot beyond nSlot or NULL). Text after the
** codes (NosqlPlan.zTail) is not read: the caller words it. For
** nosql_explain (ext/explain.c).
*/
void nosqlPlanWords(int *pRc, NosqlBuffer *pOut, const char *idxStr, const char *const *azSlot, int nSlot,
                    const char *zSep);

/*
** Decode idxStr in xFilter: aArg[slot] gets the slot's values (all NULL
** for an unused slot). SQLITE_ERROR when idxStr does not match argc (a
** plan from another build: the caller reports it).
*/
int nosqlPlanArgs(const char *idxStr, int argc, sqlite3_value **argv, NosqlPlanArg *aArg, int nCol);

/* The module's text at the end of idxStr (NosqlPlan.zTail), or "". */
const char *nosqlPlanTail(const char *idxStr);

/*
** Hidden input columns read back the arguments they were given (same value,
** same type), so that "WHERE <hidden> = <argument>" keeps every row. In
** xFilter, nosqlPlanKeep() frees the copies in apKeep[0..nArg) and keeps a
** copy of each slot's equality value (NULL for a slot without one or with
** a whole IN list: the module knows which element a row came from);
** SQLITE_OK or SQLITE_NOMEM. xColumn answers with nosqlPlanKeptResult()
** (SQL NULL for a NULL copy); xClose calls nosqlPlanKeepFree().
*/
int nosqlPlanKeep(const NosqlPlanArg *aArg, int nArg, sqlite3_value **apKeep);
void nosqlPlanKeptResult(sqlite3_context *ctx, sqlite3_value *pKept);
void nosqlPlanKeepFree(sqlite3_value **apKeep, int nArg);

/**************************************************************************
** Interface to code in ext/graph_source.c: the edge source (a table or
** view and its columns) shared by every graph function. Layouts, identifier
** rules and index detection are described in the file's header comment.
*/

/* Layouts of an edge source. */
#define GRAPH_LAYOUT_EDGES 0 /* One row per edge: from_col, to_col */
#define GRAPH_LAYOUT_JSON 1  /* One row per node: to_col a JSON array of neighbours */

/* Directions of a walk (bits). */
#define GRAPH_DIR_OUT 1
#define GRAPH_DIR_IN 2
#define GRAPH_DIR_BOTH 3

typedef struct GraphSource GraphSource;
typedef struct GraphCsr GraphCsr; /* ext/graph_csr.c */
struct GraphSource {
  char *zSchema; /* Schema holding the source ("main", "temp", an attached name) */
  char *zTable;  /* Table or view name, as declared */
  char *zFrom;   /* from_col, as declared */
  char *zTo;     /* to_col, as declared */
  char *zWeight; /* weight_col, as declared, or NULL */
  int eLayout;   /* GRAPH_LAYOUT_* */
  int bView;     /* The source is a view (no index of its own) */
  int bIdxFrom;  /* Some index of the table has from_col first */
  int bIdxTo;    /* Some index has to_col first (edges layout only) */
  char *zOrder;  /* ORDER BY of the edges over alias s (rowid or primary key), or NULL (a view) */
  char cAffFrom; /* Affinity of from_col (nosqlTypeAffinity()), 0 until graphSourceKey() needs it */
  char *zIndex;  /* The graph_index named as the source (its table and columns are the source), or NULL */
  int bNoIndex;  /* graphSourceLoad() reads the table, not a graph_index over it */
  int ePlain;    /* graphSourcePlain()'s answer once known: 1 plain, 2 not, 0 not asked yet */
};

/*
** The layout and direction arguments of graph function zFunc: 'edges' or
** 'json', 'out', 'in' or 'both' (any case; NULL pointer or SQL NULL: the
** default, 'edges' and 'out'). Anything else is SQLITE_ERROR with the
** message on pVtab naming zFunc and quoting the value.
*/
int graphLayoutArg(sqlite3_vtab *pVtab, const char *zFunc, sqlite3_value *pVal, int *peLayout);
int graphDirectionArg(sqlite3_vtab *pVtab, const char *zFunc, sqlite3_value *pVal, int *peDir);

/*
** Check and resolve the source arguments of function zFunc (named in
** messages): pTable, pFrom, pTo and pWeight (NULL pointer: no weight) must
** be non-empty text naming an existing table or view ("name" or
** "schema.name") and its columns (matched case-insensitively, kept as
** declared). On error returns SQLITE_ERROR with *pzErr from sqlite3_mprintf
** ("graph_walk: no such table or view: 'x'", "graph_walk: table 'e' has no
** column 'dst' (to_col)", "graph_walk: source must be a name, not NULL"),
** or SQLITE_NOMEM. On success fills *p; free with graphSourceClear().
*/
int graphSourceInit(sqlite3 *db, const char *zFunc, sqlite3_value *pTable, sqlite3_value *pFrom,
                    sqlite3_value *pTo, sqlite3_value *pWeight, int eLayout, GraphSource *p, char **pzErr);
void graphSourceClear(GraphSource *p);
/* *pTo: a deep copy of resolved source pFrom. SQLITE_OK or SQLITE_NOMEM (*pTo cleared). */
int graphSourceCopy(const GraphSource *pFrom, GraphSource *pTo);

/*
** *ppOut: a new value (sqlite3_value_free()) holding node key pKey as
** SQLite sees the right side of "from_col = ?": converted by the affinity
** of p's from_col (a number as text in a numeric column becomes the
** number, a number in a TEXT column its text), so that the root, start or
** goal of a walk is the node a seek or a GraphCsr lookup finds. pKey is
** not changed (hidden columns read the argument back as given), and may be
** any value, a sqlite3_value_dup() copy included (nosqlValueAffinity()).
** The affinity is looked up once per source (p->cAffFrom).
*/
int graphSourceKey(sqlite3 *db, GraphSource *p, sqlite3_value *pKey, sqlite3_value **ppOut);
/*
** *pbPlain: source p is a table in the edges layout whose from_col and
** to_col have BINARY collation and one affinity, so that a value read from
** either column seeks the other unchanged ("col = ?" converts nothing a
** column holds) and nodes are equal exactly when their GraphValues are:
** a search may then follow edges backwards (from the goal) and meet one
** that goes forwards. SQLITE_OK or an error.
*/
int graphSourcePlain(sqlite3 *db, GraphSource *p, int *pbPlain);
/*
** The graph of source pSrc in memory (the GraphCsr of ext/graph_csr.c, as
** graphCsrLoad() describes it): from an up-to-date graph_index over the
** same table and columns when there is one (graphIndexLoad()), else from
** the source's rows (graphCsrFill()). Same arguments and results as
** graphCsrLoad().
*/
int graphSourceLoad(sqlite3 *db, const GraphSource *pSrc, sqlite3_int64 nMaxEdge, int bAll, const char *zFunc,
                    GraphCsr **ppCsr, char **pzErr);
/**************************************************************************
** Interface to code in ext/graph_csr.c: the in-memory graph every graph
** function reads (node values, sets of them, compressed sparse rows) and the
** reading of a source's edges: the SQL of a scan and of a node's
** neighbours, its messages about JSON-layout values, and the load.
*/

/*
** SQL (sqlite3_mprintf; caller frees; NULL on OOM) whose rows are the
** neighbours of node ?1 in direction eDir (OUT: to of the edges from ?1;
** IN: from of the edges to ?1; BOTH: both, UNION ALL). Columns: (0) the
** neighbour, (1) the weight (NULL without a weight column), (2) in the JSON
** layout the json_type() of the stored to_col value: 'array' is fine; a row
** of another type has a NULL neighbour and the caller refuses it
** (graphSourceJsonError()); text that is not JSON stops the statement
** (graphSourceIsMalformed()). NULL in the edges layout. Edges to NULL are
** not returned.
*/
char *graphSourceNeighbourSql(const GraphSource *p, int eDir);

/*
** SQL returning every edge once: (0) from, (1) to, (2) weight or NULL,
** (3) as column 2 above. Rows with a NULL endpoint are not returned,
** except in the JSON layout, where every row with a from value is a node:
** a NULL or empty list (and each null element) comes with a NULL to and
** type 'array' or NULL (a node without that edge), a non-array value with
** a NULL to and its type, for the caller to refuse.
*/
char *graphSourceEdgesSql(const GraphSource *p);

/*
** Node ids: any SQLite value but NULL, compared as SQLite compares values
** with BINARY collation (1 and 1.0 are one node). graphValueFrom() fills a
** GraphValue from a value (z points into it: not owned) and returns 0 for
** NULL. graphValueText() renders one for messages (sqlite3_mprintf).
*/
typedef struct GraphValue GraphValue;
struct GraphValue {
  int eType;          /* SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT or SQLITE_BLOB */
  sqlite3_int64 iVal; /* SQLITE_INTEGER (and whole reals) */
  double rVal;        /* SQLITE_FLOAT */
  char *z;            /* Text or blob bytes (owned when in a GraphSet) */
  int n;              /* Bytes of z */
  unsigned h;         /* Hash of the value */
};
int graphValueFrom(sqlite3_value *pVal, GraphValue *p);
int graphValueEq(const GraphValue *a, const GraphValue *b);
void graphValueResult(sqlite3_context *ctx, const GraphValue *p);
void graphValueBind(sqlite3_stmt *pStmt, int iParam, const GraphValue *p);
char *graphValueText(const GraphValue *p);

/*
** The message for a JSON-layout node whose to_col is not an array:
** zType is column 2/3 of graphSourceNeighbourSql()/graphSourceEdgesSql() ('malformed' for text that is not
** JSON: graphSourceMalformed()). Names the node; sqlite3_mprintf(), NULL on OOM.
*/
char *graphSourceJsonError(const char *zFunc, const GraphValue *pNode, const char *zType);

/*
** True when rc, from a statement over source p, is SQLite's "malformed
** JSON" for a JSON-layout to_col that is not JSON (json_type() stops the
** statement). graphSourceMalformed() then gives the message naming a node
** whose to_col is not JSON, pNode's first when it is one of them
** (sqlite3_mprintf(); NULL on OOM).
*/
int graphSourceIsMalformed(sqlite3 *db, const GraphSource *p, int rc);
char *graphSourceMalformed(sqlite3 *db, const GraphSource *p, const char *zFunc, const GraphValue *pNode);

/*
** A set of nodes in the order they were added, each an element of szElem
** bytes whose first member is its GraphValue (the caller's per-node data
** follows). Set szElem before the first add; a zeroed set is empty.
** graphSetAdd() finds *pKey or appends a copy (bytes copied, the rest of
** the element zeroed): *piElem its index, *pbNew whether it was added;
** SQLITE_OK, SQLITE_NOMEM or SQLITE_TOOBIG. Element pointers move when the
** set grows. graphSetFind() returns the index or -1.
*/
typedef struct GraphSet GraphSet;
struct GraphSet {
  char *a;    /* Elements */
  int szElem; /* Bytes per element */
  int n;      /* Elements used */
  int nAlloc; /* Elements allocated */
  int *aSlot; /* Hash table: index + 1, 0 empty */
  int nSlot;  /* Slots (a power of two, at least twice n) */
};
#define graphSetAt(p, i) ((void *)((p)->a + (size_t)(i) * (size_t)(p)->szElem))
int graphSetAdd(GraphSet *p, const GraphValue *pKey, int *piElem, int *pbNew);
int graphSetFind(const GraphSet *p, const GraphValue *pKey);
void graphSetClear(GraphSet *p);

/*
** An edge source held in memory as compressed sparse rows: every distinct
** endpoint value once (vals), each value's out-neighbours
** aOut[aOutOff[i] .. aOutOff[i + 1]) and in-neighbours likewise, in the
** source's scan order. graphSourceLoad() (ext/graph_source.c) loads one
** from an up-to-date graph_index over the source (graphIndexLoad()) or
** else with one scan of the source (graphCsrLoad()), and both return
** *ppCsr NULL (and SQLITE_OK) when it cannot stand in for the index seeks
** exactly: a view, a weight that is not a number or is
** negative (a route reports it only where it reaches the edge), a column
** with a collation other than BINARY, or more than nMaxEdge edges. Weights
** are doubles: bIntWeight says each was an integer (exact up to 2^53). graphCsrLookup() finds a
** node's index (-1: no edges) as "col = ?" would, or returns -2 when the
** column's affinity would convert the key first (text in a numeric column,
** a number in a TEXT column): the caller then seeks. In the JSON layout a
** row whose to_col is not an array is listed in aBad (graphCsrIsBad()) and
** sought too, so that the caller reports it as a seek would. Shared by
** reference count (graphCsrUnref() frees at zero).
**
** With bAll (whole-graph jobs: graph_pagerank and the others) any source is
** loaded, views and weight columns included: a non-array JSON value, a
** weight that is not a number or is negative, or more than nMaxEdge edges
** is an error with *pzErr set (messages start with zFunc). A NULL endpoint
** is skipped: no edge. bAll == GRAPH_LOAD_LIST (a job that reads each edge
** once, in any order: graph_components) may leave the edges unsorted, as a
** list: bList set, aIn[k] -> aOut[k] the k-th edge of the scan, no offsets
** (the counting sort into rows is a quarter of a load); from a graph_index
** the rows come as usual, bList clear.
*/
#define GRAPH_LOAD_LIST 2
/*
** A hint that *p will be read (bWrite 0) or written (1) soon: hides the
** cache miss of a random access behind other work. No effect where the
** compiler has no such builtin.
*/
#if defined(__GNUC__) || defined(__clang__)
#define graphPrefetch(p, bWrite) __builtin_prefetch((p), (bWrite))
#else
#define graphPrefetch(p, bWrite) ((void)(p))
#endif

struct GraphCsr {
  int nRef;               /* References */
  GraphSet vals;          /* Endpoint values (elements are GraphValue) */
  sqlite3_int64 *aOutOff; /* vals.n + 1 offsets into aOut */
  int *aOut;              /* Out-neighbours (indexes into vals) */
  sqlite3_int64 *aInOff;  /* vals.n + 1 offsets into aIn */
  int *aIn;               /* In-neighbours */
  double *aOutW, *aInW;   /* With a weight column: the weight of each aOut[] and aIn[] edge */
  int bIntWeight;         /* Every weight is an integer */
  int bRealWeight;        /* Every weight is a REAL (neither flag: some of each) */
  sqlite3_int64 nEdge;    /* Edges */
  int *aBad;              /* While loading: values whose to_col is not an array (JSON layout) */
  int nBad, nBadAlloc;    /* Entries used, allocated */
  unsigned char *aIsBad;  /* Then one flag per value, or NULL when there are none */
  int eLayout;            /* GRAPH_LAYOUT_* */
  char cAffFrom, cAffTo;  /* Affinity met by a lookup: 'i', 'r', 'n', 't' or 'b' (none) */
  int bList;              /* GRAPH_LOAD_LIST: edge k is aIn[k] -> aOut[k]; aOutOff, aInOff NULL */
};
/*
** A load in two steps, for a caller that may fill the copy another way
** (graphSourceLoad(): from a graph_index). graphCsrNew(): *ppCsr a new,
** empty copy for source pSrc with its lookup affinities, or NULL (and
** SQLITE_OK) when none can stand in for the seeks (without bAll: a view,
** a column whose collation is not BINARY). graphCsrFill(): the scan of the
** source into that copy; *pbOk 0 when it cannot stand in after all (the
** caller frees it). *pzErr must be NULL on entry. graphCsrLoad(): both,
** the source's own rows, never a graph_index over them.
*/
int graphCsrNew(sqlite3 *db, const GraphSource *pSrc, int bAll, GraphCsr **ppCsr);
int graphCsrFill(sqlite3 *db, const GraphSource *pSrc, sqlite3_int64 nMaxEdge, int bAll, const char *zFunc,
                 GraphCsr *p, int *pbOk, char **pzErr);
int graphCsrLoad(sqlite3 *db, const GraphSource *pSrc, sqlite3_int64 nMaxEdge, int bAll, const char *zFunc,
                 GraphCsr **ppCsr, char **pzErr);
/*
** Registers graph_load_edge(), through which SQLite hands graphCsrFill()
** the rows of a table inside its scan (not for SQL: it needs a pointer
** that only graphCsrFill() binds).
*/
int graphCsrRegister(sqlite3 *db);
int graphValueCmp(const GraphValue *a, const GraphValue *b);
int graphCsrLookup(const GraphCsr *p, const GraphValue *pKey, int bIn);
/*
** Make a whole-graph job's copy (not shared: nRef 1) read its edges in
** direction eDir: GRAPH_DIR_IN swaps the out- and in-lists; GRAPH_DIR_BOTH
** gives every node one list, its out-edges then its in-edges (a self-loop
** once), as both its out- and its in-list: each edge read both ways, an
** undirected multigraph. SQLITE_OK or SQLITE_NOMEM (p unchanged).
*/
int graphCsrDirect(GraphCsr *p, int eDir);
int graphCsrIsBad(const GraphCsr *p, int iVal);
void graphCsrUnref(GraphCsr *p);

/*
** The affinity of column zCol of pSrc's table in *pcAff (nosqlTypeAffinity();
** unchanged when the column is not found); *pbOk cleared when it is not
** found or its collation is not BINARY. SQLITE_OK or an error.
*/
int graphCsrColumn(sqlite3 *db, const GraphSource *pSrc, const char *zCol, char *pcAff, int *pbOk);

/**************************************************************************
** Interface to code in ext/graph_index.c: the graph_index virtual table, a
** persistent adjacency copy of an edge table (format in its header comment
** and docs/graphs.md).
*/
int graphIndexRegister(sqlite3 *db);
/*
** The configuration of graph_index zIndex in schema zSchema: SQLITE_OK and
** *p (free with graphIndexInfoClear()), SQLITE_NOTFOUND when zIndex is not
** a graph_index, or SQLITE_NOMEM. iFormat is the stored format (-1: the
** configuration is damaged).
*/
#define GRAPH_INDEX_FORMAT 3 /* The shadow-table format ext/graph_index.c reads and writes */
typedef struct GraphIndexInfo GraphIndexInfo;
struct GraphIndexInfo {
  char *zTable, *zFrom, *zTo; /* The edge table and its columns */
  char *zWeight;              /* The weight column, or NULL */
  char *zLayout;              /* 'edges' or 'json' */
  int bDeferred;              /* mode = 'deferred' */
  int iFormat;                /* Format of the shadow tables */
};
int graphIndexConfig(sqlite3 *db, const char *zSchema, const char *zIndex, GraphIndexInfo *p);
void graphIndexInfoClear(GraphIndexInfo *p);
/*
** Fill the new, empty GraphCsr *p (as graphCsrNew() makes it) from an
** up-to-date graph_index over source pSrc (the same table, from_col and
** to_col, and weight column when pSrc has one; a sync index with its
** triggers, or a deferred one with nothing logged): *pbLoaded 1. *pbLoaded
** 0: no such index, load from the table. -1: more than nMaxEdge edges
** (without bAll; with bAll an error). A damaged index is
** SQLITE_CORRUPT_VTAB with *pzErr naming zFunc and the index.
*/
int graphIndexLoad(sqlite3 *db, const GraphSource *pSrc, sqlite3_int64 nMaxEdge, int bAll, const char *zFunc,
                   GraphCsr *p, int *pbLoaded, char **pzErr);

/**************************************************************************
** Interface to code in ext/graph_walk.c: graph_walk and graph_path, the
** traversal table-valued functions over an edge source.
*/
int graphWalkRegister(sqlite3 *db);

/**************************************************************************
** Interface to code in ext/tree_json.c: tree_json (aggregate) and
** tree_rows (table-valued), a tree as one document and back.
*/
int treeJsonRegister(sqlite3 *db);

/**************************************************************************
** Interface to code in ext/graph_batch.c: graph_pagerank, graph_components,
** graph_scc, graph_sssp, graph_triangles, graph_label_propagation (the
** Pregel-style engine over a GraphCsr).
*/
int graphBatchRegister(sqlite3 *db);
/*
** Interrupts and progress handlers inside a job's loops: prepare
** graphBatchPingSql() once per job and call graphBatchPing() on it now and
** then (SQLITE_OK, or SQLITE_INTERRUPT to stop; the statement is stepped,
** never reset, so that a progress handler's count goes on).
*/
const char *graphBatchPingSql(void);
int graphBatchPing(sqlite3_stmt *pPing);

/*
** The table-valued-function glue every whole-graph job shares (the jobs of
** ext/graph_batch.c and ext/graph_centrality.c): one eponymous module per
** GraphJob, whose columns are node, the job's value columns (zCols) and
** the inputs as hidden columns. Its xFilter reads the inputs (the leading
** nRequired required; the others also from an options object given last,
** nosqlOptionsRead()), the layout and direction, resolves the source
** (graphSourceInit(), weight_col when the job has it), then calls xRun,
** which loads the graph and fills the cursor's rows; an error with *pzErr
** set has it as the message (the run may set its own on the vtab).
*/
#define GRAPH_JOB_MAX_INPUT 11
#define GRAPH_VAL_REAL 0 /* Value column c of row r is aReal[c - 1][r] */
#define GRAPH_VAL_INT 1  /* ... aInt[r] (one value column) */
#define GRAPH_VAL_NODE 2 /* ... the node aInt[r] */
typedef struct GraphJob GraphJob;
typedef struct GraphJobCursor GraphJobCursor;
struct GraphJob {
  int eJob;                                    /* The family's job code */
  const char *zName;                           /* SQL name */
  const char *zCols;                           /* The value columns after node, as declared */
  int nValue;                                  /* Value columns: 1 or 2 */
  int nRequired;                               /* Leading inputs that must be given */
  NosqlOption aInput[GRAPH_JOB_MAX_INPUT + 1]; /* Hidden inputs, NULL-terminated; types as options keys */
  const char *zUsage;                          /* For messages */
  int (*xRun)(GraphJobCursor *pCur, GraphSource *pSrc, int eDir, char **pzErr); /* Load, run, fill rows */
};
struct GraphJobCursor {
  sqlite3_vtab_cursor base;                  /* Base class - must be first */
  sqlite3 *db;                               /* The connection */
  const GraphJob *pJob;                      /* The job */
  GraphCsr *pCsr;                            /* The graph */
  int *aNode;                                /* Row -> node, or NULL: row r is node r */
  double *aReal[2];                          /* GRAPH_VAL_REAL values, per value column */
  sqlite3_int64 *aInt;                       /* GRAPH_VAL_INT values, or nodes for GRAPH_VAL_NODE */
  int eVal;                                  /* GRAPH_VAL_* */
  sqlite3_value *pOnly;                      /* Not NULL: one row, this node at value 0 (owned) */
  int nRow;                                  /* Rows */
  int iRow;                                  /* Current row */
  sqlite3_value *apIn[GRAPH_JOB_MAX_INPUT];  /* The inputs as given, for the hidden columns */
  sqlite3_value *apEff[GRAPH_JOB_MAX_INPUT]; /* The inputs to use: apIn, or the options object's */
  sqlite3_value *apOwn[GRAPH_JOB_MAX_INPUT]; /* The values of the options object (owned) */
};
/* The input named zName: an argument or from the options object; NULL when not given, SQL NULL or no input of
 * the job. */
sqlite3_value *graphJobInput(GraphJobCursor *pCur, const char *zName);
/* Register the modules of the nJob jobs of aJob (static data: it must outlive the connection). */
int graphJobRegister(sqlite3 *db, const GraphJob *aJob, int nJob);

/**************************************************************************
** Interface to code in ext/graph_centrality.c: graph_betweenness,
** graph_closeness, graph_hits, graph_core_number, graph_clustering,
** graph_louvain (whole-graph jobs over a GraphCsr).
*/
int graphCentralityRegister(sqlite3 *db);

/**************************************************************************
** Interface to code in ext/fts5_gap.c: the nosql_gap FTS5 tokenizer
** (registered only when the host's SQLite has FTS5).
*/
int fts5GapRegister(sqlite3 *db);

/**************************************************************************
** Interface to code in ext/nosql.c
*/

/* The text of the VERSION file, baked in at build time. */
extern const char nosqlVersionText[];

/**************************************************************************
** Interface to code in ext/nested_set_core.c: the label arithmetic and the
** rebuild of a forest, pure C (no sqlite3_* calls), for the module
** (ext/nested_set.c, nestedSetRegister() below), tests and bench.
*/

/* Labels lie strictly between 0 and NSET_LABEL_END. */
#define NSET_LABEL_END ((int64_t)1 << 62)
/* Spacing of consecutive labels after a rebuild (smaller for huge trees). */
#define NSET_GAP ((int64_t)1 << 32)
/* Widest spacing handed to new labels, so one gap serves many inserts. */
#define NSET_STEP ((int64_t)1 << 24)

/* New labels take at most 1/(n + NSET_SLACK) of a gap each, leaving room. */
#define NSET_SLACK 4

/*
** The spacing for nLabel new labels placed strictly between lo and hi:
** min((hi - lo) / (nLabel + NSET_SLACK), NSET_STEP), or the tightest fit
** (hi - lo) / (nLabel + 1) when that is 0; 0 when nothing fits.
*/
int64_t nsetStep(int64_t lo, int64_t hi, int64_t nLabel);

/*
** Where nLabel new labels go in the gap (lo, hi): returns the first, the
** others follow at spacing *pd (0: no room, relabel first). They sit at the
** low end of the gap (appends: the next append lands after them) or, with
** bHigh, at the high end (inserts before a sibling: the next such insert
** lands before them).
*/
int64_t nsetPlace(int64_t lo, int64_t hi, int64_t nLabel, int bHigh, int64_t *pd);

/*
** Whether an aligned window of 2^nBits label values may hold nLabel
** labels after relabelling: the average spacing must be at least
** 2^(nBits/2). The threshold tightens as windows grow, which bounds the
** amortised relabelling cost (online list labelling).
*/
int nsetWindowOk(int nBits, int64_t nLabel);

/*
** New values for the nLabel labels of the window [iFirst, iEnd), spread
** evenly in their order, with nHole empty slots before label number iHole
** (0..nLabel). Writes aLabel[0..nLabel-1]; all lie strictly inside.
*/
void nsetSpread(int64_t iFirst, int64_t iEnd, int64_t nLabel, int64_t iHole, int64_t nHole, int64_t *aLabel);

/* An id and the node it belongs to (nsetBuild() scratch). */
typedef struct NsetKey NsetKey;
struct NsetKey {
  int64_t id;    /* Node id */
  int64_t iNode; /* Index of the node in the input arrays */
};

/* Results of nsetBuild(). */
#define NSET_BUILD_OK 0        /* Labels computed */
#define NSET_BUILD_DUPLICATE 1 /* iErrId appears twice */
#define NSET_BUILD_ORPHAN 2    /* iErrId's parent iErrParent does not exist */
#define NSET_BUILD_CYCLE 3     /* iErrId (the smallest id on a cycle) has parent iErrParent */

/*
** A forest to label. The caller allocates every array with n entries and
** fills the inputs; siblings are labelled in input order. Outputs: nested
** labels spaced NSET_GAP apart (closer for huge forests), depths, leaf
** flags and the preorder of the nodes.
*/
typedef struct NsetBuild NsetBuild;
struct NsetBuild {
  int64_t n;            /* Number of nodes */
  int64_t *aId;         /* In: node ids */
  int64_t *aParent;     /* In: parent ids (ignored for roots) */
  unsigned char *aRoot; /* In: 1 when the node is a root */
  int64_t *aLft;        /* Out: left labels */
  int64_t *aRgt;        /* Out: right labels */
  int64_t *aDepth;      /* Out: depths */
  unsigned char *aLeaf; /* Out: 1 for a leaf */
  int64_t *aPre;        /* Out: node indexes in preorder */
  int64_t *aPar;        /* Scratch: parent's index, -1 for a root */
  int64_t *aFirst;      /* Scratch: first child's index, or -1 */
  int64_t *aNext;       /* Scratch: next sibling's index, or -1 */
  NsetKey *aKey;        /* Scratch: ids sorted */
  int64_t iErrId;       /* Out on error: the node at fault */
  int64_t iErrParent;   /* Out on error: its parent */
};

/* Label the forest: NSET_BUILD_OK or an NSET_BUILD_* error. */
int nsetBuild(NsetBuild *p);

/**************************************************************************
** Registration functions: one per feature file, called in the order of the
** static table in ext/nosql.c. Each returns an SQLite result code.
*/
int nosqlCoreRegister(sqlite3 *db);
int nestedSetRegister(sqlite3 *db);

/**************************************************************************
** Interface to code in ext/mpath.c (materialized paths, ltree's lquery)
**
** The pure core (paths, lquery, ltxtquery) is in ext/nosqlTest.h: only
** ext/mpath.c and the tests call it.
*/

/* Registers the mpath_* functions and the mpath_ranges module. */
int mpathRegister(sqlite3 *db);

/**************************************************************************
** Interface to code in ext/geohash.c
*/

/* Earth radius of geo_distance(), metres: Redis's constant. */
#define GEOHASH_EARTH_RADIUS 6372797.560856

/* A cell of the geohash grid: its index on each axis and the bits per axis. */
typedef struct GeohashCell GeohashCell;
struct GeohashCell {
  uint32_t iLon; /* Longitude index, from 0 at -180, < 2^nLonBit */
  uint32_t iLat; /* Latitude index, from 0 at -90, < 2^nLatBit */
  int nLonBit;   /* Longitude bits: ceil(depth / 2) */
  int nLatBit;   /* Latitude bits: floor(depth / 2) */
};

/* A latitude-longitude rectangle, degrees. */
typedef struct GeohashBounds GeohashBounds;
struct GeohashBounds {
  double minLat; /* South edge */
  double minLon; /* West edge */
  double maxLat; /* North edge */
  double maxLon; /* East edge */
};

/* A half-open range [lo, hi) of 60-bit codes (12-character geohashes). */
typedef struct GeohashRange GeohashRange;
struct GeohashRange {
  uint64_t lo; /* First code in the range */
  uint64_t hi; /* One past the last; 2^60 for "to the end" */
};

/* Most ranges a cover returns; beyond it the closest ranges are merged. */
#define GEOHASH_COVER_MAX 256
/* A border cell is kept whole once its larger side is at most this
** fraction of the radius (or of the box's side). */
#define GEOHASH_COVER_CELL 0.25
/* Above this many ranges, the smallest gaps are merged while that adds at
** most this fraction to the area covered. */
#define GEOHASH_COVER_TARGET 16
#define GEOHASH_COVER_EXTRA 0.10
/* Cells the walk may split at one level, and ranges it may hold at once. */
#define GEOHASH_COVER_WORK 1024
#define GEOHASH_COVER_ROOM 2048

/* A cell of the walk: the first depth bits of a code, right-aligned. */
typedef struct GeohashCellRef GeohashCellRef;
struct GeohashCellRef {
  uint64_t prefix; /* The bits, < 2^depth */
  int depth;       /* Number of bits, 0..60 */
};

/* A cover and its working room (about 112 KB: allocate it, do not put it on
** a small stack). On return aRange[0..nRange) are sorted, disjoint and do
** not touch; nRange <= GEOHASH_COVER_MAX. */
typedef struct GeohashCover GeohashCover;
struct GeohashCover {
  GeohashRange aRange[GEOHASH_COVER_ROOM];         /* The ranges */
  int nRange;                                      /* Used entries of aRange[] */
  uint64_t aGap[GEOHASH_COVER_ROOM];               /* Scratch: gaps between ranges */
  GeohashCellRef aCell[2][2 * GEOHASH_COVER_WORK]; /* Scratch: this level's and the next level's cells */
};

/* The grid itself (quantisation, interleave, cells and their bounds) is
** static inline in ext/geohash.h, which the codec and the covers include. */
/* Covers: fill *p with ranges whose union holds the code of every point of
** the circle (radius in metres) or box (min_lon > max_lon crosses +-180). */
void geohashCoverCircle(GeohashCover *p, double lat, double lon, double radius);
void geohashCoverBox(GeohashCover *p, double minLat, double minLon, double maxLat, double maxLon);
/* A range end as a string (trailing '0's dropped; "{" for 2^60); returns its length. */
int geohashRangeString(uint64_t v, char *zOut);
/* The boxes (1 or 2, split at +-180) bounding a circle; aBox has room for 2. */
int geohashBoundingBoxes(double lat, double lon, double radius, GeohashBounds *aBox);

/* The haversine distance in metres, the one geo_distance(lat1, lon1, lat2, lon2) returns. */
double geohashDistance(double lat1, double lon1, double lat2, double lon2);
/* The same, given cos2 = cos(lat2 * (M_PI / 180.0)): bit for bit geohashDistance()'s answer. */
double geohashDistanceCos(double lat1, double lon1, double lat2, double lon2, double cos2);

/*
** Argument checks of the family (ext/geohash.c), for geo_nearest too: a
** number (INTEGER, REAL or numeric text, finite), a latitude in [-90, 90],
** a longitude in [-180, 180]. SQLITE_OK with *pOut; SQLITE_ERROR with
** *pzErr "<zFunc>: <zWhat> <value> is outside [-90, 90]" (sqlite3_mprintf);
** SQLITE_NOMEM. The caller handles NULL.
*/
int geohashArgNumber(sqlite3_value *pVal, const char *zFunc, const char *zWhat, double *pOut, char **pzErr);
int geohashArgLat(sqlite3_value *pVal, const char *zFunc, const char *zWhat, double *pOut, char **pzErr);
int geohashArgLon(sqlite3_value *pVal, const char *zFunc, const char *zWhat, double *pOut, char **pzErr);

int geohashRegister(sqlite3 *db);

/**************************************************************************
** Interface to code in ext/geo_nearest.c: the geo_nearest table-valued
** function (k nearest rows of a table, over its geohash recipe or a scan).
*/
int geoNearestRegister(sqlite3 *db);

/**************************************************************************
** Interface to code in ext/roaring_sql.c and ext/inverted_index.c
*/

/* CRoaring's bitmap type (roaring/roaring.h), opaque to other files. */
struct roaring_bitmap_s;

/*
** Validate and deserialize a[0..n). Returns a new bitmap (free it with
** roaring_bitmap_free), or NULL with *pRc set to SQLITE_CORRUPT (bad
** bytes) or SQLITE_NOMEM. Does nothing when *pRc is not SQLITE_OK.
*/
struct roaring_bitmap_s *roaringDecode(const unsigned char *a, size_t n, int *pRc);

/*
** (The functions from here to invertedIndexRegister are in
** ext/inverted_index_core.c.)
** Blob frames of the inverted index's shadow tables: "IIB1", payload
** length, checksum (u32 little-endian each), then the payload.
** iiFrameHeader fills the 12-byte header for a payload; iiFrameCheck
** returns 0 and the payload when a[0..n) is one intact frame, else 1.
** iiBitmapFrame serializes a bitmap into a new framed blob
** (sqlite3_malloc64; NULL on OOM); iiBitmapUnframe checks and decodes one
** (NULL with *pRc SQLITE_CORRUPT or SQLITE_NOMEM).
*/
#define II_FRAME_MAGIC 0x31424949u /* "IIB1" read as a little-endian u32 */
#define II_FRAME_HDR 12            /* magic, payload length, checksum */
/* Little-endian u32 in and out of a[0..4). */
void iiPut32(unsigned char *a, uint32_t v);
uint32_t iiGet32(const unsigned char *a);
void iiFrameHeader(unsigned char *aHdr, const unsigned char *aPayload, size_t nPayload);
int iiFrameCheck(const unsigned char *a, size_t n, const unsigned char **paPayload, size_t *pnPayload);
/*
** Direct-index blobs (<name>_docs.terms), versioned by their magic: "IID2"
** (this release; an 8-byte frame, magic and checksum of the payload, whose
** length is the blob's), then the sorted distinct term ids as LEB128
** varints, the first id and then the gaps (each >= 1); "IIB1" (older
** releases, the 12-byte frame), then the ids as u32. iiDirectEncode writes aId[0..n) (sorted, distinct, in
** [1, 2^32)) as an "IID2" blob into aOut (room for II_DIRECT_MAX(n)
** bytes) and returns its size; iiDirectDecode reads either kind into aOut
** (room for n entries, n the blob's size), sets *pnOut and returns 0, or
** returns 1 for a damaged blob (frame, truncated or overlong varint, a gap
** of 0, an id past 2^32 - 1).
*/
#define II_DIRECT_MAGIC 0x32444949u /* "IID2" read as a little-endian u32 */
#define II_FRAME2_HDR 8             /* "IID2"/"IIE2" frame: magic, checksum */
#define II_DIRECT_MAX(n) (II_FRAME_HDR + 5 * (size_t)(n))
size_t iiDirectEncode(const uint32_t *aId, size_t n, unsigned char *aOut);
int iiDirectDecode(const unsigned char *a, size_t n, uint32_t *aOut, size_t *pnOut);
/*
** Element blobs (<name>_elems.terms), versioned the same way: "IIE2" (this
** release), then per element a LEB128 count (>= 1) and that many term ids
** as varint gaps from 0 (ascending, each gap >= 1); "IIB1" (older
** releases), the same as u32 words. iiElemEncode writes the u32 words
** aWord[0..nWord) (count, ids, count, ids...: well formed) as an "IIE2"
** blob into aOut (room for II_DIRECT_MAX(nWord) bytes) and returns its
** size. iiElemUnpack reads either kind into aOut as the u32 words,
** little-endian (room for 4 * n bytes, n the blob's size), sets *pnOut to
** their bytes and returns 0, or 1 for a damaged blob (frame, varint, a
** count of 0 or past the end, a gap of 0, an id past 2^32 - 1).
*/
#define II_ELEM_MAGIC 0x32454949u /* "IIE2" read as a little-endian u32 */
size_t iiElemEncode(const unsigned char *aWord, size_t nWord, unsigned char *aOut);
int iiElemUnpack(const unsigned char *a, size_t n, unsigned char *aOut, size_t *pnOut);
unsigned char *iiBitmapFrame(struct roaring_bitmap_s *p, size_t *pn);
struct roaring_bitmap_s *iiBitmapUnframe(const unsigned char *a, size_t n, int *pRc);
/*
** Posting lists of a direct = off index may also be "IIV1" (the 8-byte
** frame, then the values ascending as LEB128 varints: the first plus one,
** then each gap, >= 1; values at most 2^32 - 2), written when smaller than
** the bitmap's "IIB1" (sparse lists: a byte or two a value against the
** bitmap's two and its per-container headers). iiPostingFrame writes p as
** "IIV1" when bList and that is smaller, else as iiBitmapFrame does;
** iiBitmapUnframe reads both (a damaged list is SQLITE_CORRUPT).
*/
#define II_LIST_MAGIC 0x31564949u /* "IIV1" read as a little-endian u32 */
unsigned char *iiPostingFrame(struct roaring_bitmap_s *p, int bList, size_t *pn);

/*
** Queries: iiQueryParseNested returns the parsed tree (free with
** iiQueryFree), or NULL with *pRc set and, for SQLITE_ERROR, *pzErr a
** message naming the position (sqlite3_mprintf; the caller frees). Field
** names match case-insensitively. iiQueryEvalNested evaluates a tree to a
** new bitmap (NULL and *pRc on failure); xLoad lends the posting list of a
** term, an empty bitmap for an unknown one, valid until the evaluation
** returns. (iiQueryParse and iiQueryEval, the same without nested fields,
** are in ext/nosqlTest.h.)
*/
typedef struct IiExpr IiExpr;
typedef int (*IiPostingLoader)(void *pCtx, int iField, const char *zTerm, int nTerm,
                               const struct roaring_bitmap_s **ppPost);
void iiQueryFree(IiExpr *p);
/*
** Nested fields (element queries field:{inner}): anKey[i] is the number of
** element keys of field i (0: a plain field) and aazKey[i] their names.
** iiQueryEvalNested hands each element query to xNest(pCtx, iField,
** pInner, &pDocs), which returns a new bitmap of the documents with one
** element satisfying pInner, whose TERM nodes name keys of the field.
** iiQueryNestFacet builds the element query a facet of a key counts.
*/
typedef int (*IiNestEval)(void *pCtx, int iField, IiExpr *pInner, struct roaring_bitmap_s **ppDocs);
IiExpr *iiQueryParseNested(const char *zQuery, int nField, const char *const *azField, const int *anKey,
                           const char *const *const *aazKey, char **pzErr, int *pRc);
struct roaring_bitmap_s *iiQueryEvalNested(IiExpr *pExpr, const struct roaring_bitmap_s *pUniverse,
                                           IiPostingLoader xLoad, IiNestEval xNest, void *pCtx, int *pRc);
IiExpr *iiQueryNestFacet(const IiExpr *pQuery, int iField, int iKey, const char *zTerm, int nTerm, int *pRc);

/*
** RANGE fields (ext/inverted_index_range.c; docs/inverted_index.md).
** iiQueryParseFull is iiQueryParseNested where abRange[i] (NULL: none)
** marks field i as a RANGE field, whose operand is a number (equality), a
** range [lo TO hi] / {lo TO hi} (inclusive / exclusive ends, mixed
** allowed, * an open end) or a comparison >=x, >x, <=x, <x. The range is
** held as inclusive keys [kLo, kHi] (iiRangeKey order; empty if kLo >
** kHi). iiQueryEvalFull is iiQueryEvalNested where xRange(pCtx, iField,
** kLo, kHi, pCand, &pOut) answers a range: a new bitmap of the documents
** of pCand (NULL: all) whose value's key is in [kLo, kHi]. Inside an AND,
** ranges are evaluated last, over what the other operands leave.
*/
typedef int (*IiRangeEval)(void *pCtx, int iField, uint64_t kLo, uint64_t kHi,
                           const struct roaring_bitmap_s *pCand, struct roaring_bitmap_s **ppOut);
IiExpr *iiQueryParseFull(const char *zQuery, int nField, const char *const *azField, const int *anKey,
                         const char *const *const *aazKey, const unsigned char *abRange, char **pzErr,
                         int *pRc);
struct roaring_bitmap_s *iiQueryEvalFull(IiExpr *pExpr, const struct roaring_bitmap_s *pUniverse,
                                         IiPostingLoader xLoad, IiNestEval xNest, IiRangeEval xRange,
                                         void *pCtx, int *pRc);
/*
** The bit-sliced index. iiRangeKey maps a double to a u64 whose order is
** the numeric order (-0.0 as 0.0); iiRangeKeyValue inverts it. A RANGE
** value is a REAL or an INTEGER with iiRangeIntOk (|i| <= 2^53, exact as
** a double). iiRangeBound reads a bound z[0..n) (an SQL numeric literal:
** digits, sign, '.', exponent; 1e999 is Inf) for comparison op and sets
** *pKey to the inclusive key bound: 0 if read, 1 if not a number.
** iiRangeIntBound and iiRangeDoubleBound do the same for a number.
** Slice i is the term iiRangeSliceName(i) (zOut: room for 4 bytes) of the
** field, and the term "" holds the documents with a value.
** iiRangeSelect returns a new bitmap of the documents of pExist (and of
** pCand, if not NULL) whose key is in [kLo, kHi] (aSlice[0..64), NULL for
** an empty slice), or NULL on OOM. iiRangeBuckets counts, for the
** documents of pExist and pAud (NULL: all), those with key <= aBelow[0]
** into aCount[0], those in (aBelow[j-1], aBelow[j]] into aCount[j], and
** the rest into aCount[nBound] (nBound + 1 entries; aBelow ascending).
*/
#define II_RANGE_GE 1
#define II_RANGE_GT 2
#define II_RANGE_LE 3
#define II_RANGE_LT 4
#define II_RANGE_NSLICE 64
#define II_RANGE_INT_MAX 9007199254740992ll /* 2^53 */
uint64_t iiRangeKey(double r);
double iiRangeKeyValue(uint64_t k);
int iiRangeIntOk(sqlite3_int64 i);
int iiRangeBound(const char *z, int n, int op, uint64_t *pKey);
uint64_t iiRangeIntBound(sqlite3_int64 i, int op);
uint64_t iiRangeDoubleBound(double r, int op);
void iiRangeSliceName(int iBit, char *zOut);
struct roaring_bitmap_s *iiRangeSelect(const struct roaring_bitmap_s *pExist,
                                       const struct roaring_bitmap_s *const *aSlice,
                                       const struct roaring_bitmap_s *pCand, uint64_t kLo, uint64_t kHi);
int iiRangeBuckets(const struct roaring_bitmap_s *pExist, const struct roaring_bitmap_s *const *aSlice,
                   const struct roaring_bitmap_s *pAud, const uint64_t *aBelow, int nBound, int64_t *aCount);

/*
** The two facet kernels (contracts above their definitions): per-term
** document counts of several audiences, by bitmap intersections or by one
** walk of the direct index {doc -> term ids}.
*/
void iiFacetBitmap(const struct roaring_bitmap_s *const *aAud, int nAud,
                   const struct roaring_bitmap_s *const *aPost, int nTerm, int64_t *aCount);
int iiFacetDirect(const struct roaring_bitmap_s *const *aAud, int nAud, const uint64_t *aOff, uint32_t nDoc,
                  const uint32_t *aTermId, const int32_t *aSlot, uint32_t nSlot, int nTerm, int64_t *aCount);

int roaringRegister(sqlite3 *db);
int invertedIndexRegister(sqlite3 *db);

/**************************************************************************
** Interface to code in ext/ckey.c (FoundationDB tuple-layer keys)
*/

/* Type codes of the tuple layer used by ckey(); docs/composite_keys.md. */
#define CKEY_NULL 0x00     /* NULL, no payload */
#define CKEY_BLOB 0x01     /* Bytes, 0x00 escaped as 0x00 0xFF, 0x00-terminated */
#define CKEY_TEXT 0x02     /* UTF-8, escaped and terminated as blobs */
#define CKEY_INT_ZERO 0x14 /* Integer zero; 0x14 +- n: n-byte positive/negative */
#define CKEY_REAL 0x21     /* IEEE double, sign-flipped, big-endian */
#define CKEY_MAX_INT 9     /* Longest integer or real encoding in bytes */

/* One decoded part of a key; points into the key, which must outlive it. */
typedef struct CkeyPart CkeyPart;
struct CkeyPart {
  int eType;              /* SQLITE_NULL, _INTEGER, _FLOAT, _TEXT or _BLOB */
  sqlite3_int64 iVal;     /* The integer, when eType is SQLITE_INTEGER */
  double rVal;            /* The real, when eType is SQLITE_FLOAT */
  const unsigned char *z; /* Escaped bytes of text/blob (no type code, no terminator) */
  int nRaw;               /* Bytes at z, escapes included */
  int nData;              /* Bytes once unescaped (nRaw minus the 0xFF escapes) */
  int iStart;             /* Offset of the type code in the key */
  int nByte;              /* Bytes of the whole part, type code and terminator included */
};

/* Write the encoding of an integer / a real into a[] (CKEY_MAX_INT bytes); returns its length. */
int ckeyEncodeInt(unsigned char *a, sqlite3_int64 v);
int ckeyEncodeReal(unsigned char *a, double r);
/* Append a text (eCode CKEY_TEXT) or blob (CKEY_BLOB) part: code, escaped bytes, terminator. */
void ckeyAppendBytes(int *pRc, NosqlBuffer *pBuf, int eCode, const unsigned char *z, sqlite3_int64 n);
/*
** Decode the part that starts at a[*piOff] (of n bytes), advance *piOff
** past it. Returns NULL, or a static description of why the bytes are not
** a part ckey() can make ("truncated integer", ...), *piOff unchanged.
*/
const char *ckeyParse(const unsigned char *a, int n, int *piOff, CkeyPart *pPart);
/* Set the result of ctx to a decoded part, with its SQLite type (text and blobs copied). */
void ckeyResultPart(sqlite3_context *ctx, const CkeyPart *pPart);
/*
** The strinc successor of a[0..n): drop trailing 0xFF bytes, add one to the
** last byte. Writes it to aOut (room for n bytes) and returns its length,
** or -1 when a[] is empty or all 0xFF (no successor exists).
*/
int ckeyStrinc(const unsigned char *a, int n, unsigned char *aOut);
/* Append z[0..n) to a delimited key: cSep and '\' get a '\' before them. */
void ckeyAppendEscaped(int *pRc, NosqlBuffer *pBuf, const unsigned char *z, sqlite3_int64 n, int cSep);

/**************************************************************************
** Interface to code in ext/hll.c (HyperLogLog)
*/

/**************************************************************************
** Interface to code in ext/kv.c (counters)
*/

/* Adds by to *pValue unless the sum leaves the int64 range; returns 0 then (Redis INCRBY). */
int kvAddChecked(sqlite3_int64 *pValue, sqlite3_int64 by);

/*
** A per-connection cache of prepared statements keyed by their SQL text
** (statements on user tables: kv_cas, kv_mget, doc_update, ...). A cache
** belongs to an eponymous virtual table of the connection, whose
** xDisconnect calls kvCacheClear(): sqlite3_close() disconnects virtual
** tables before it looks for unfinalized statements (the FTS5 way). The
** owner's xConnect sets KvOwner.pCache, its xDisconnect clears it.
*/
typedef struct KvCache KvCache;
typedef struct KvCacheEntry KvCacheEntry;
typedef struct KvOwner KvOwner;
struct KvCache {
  KvCacheEntry *pFirst; /* Most recently used first */
  int nEntry;           /* Entries in the list */
};
/* Per-connection state of a family of functions: the user data of each registration. */
struct KvOwner {
  int nRef;             /* Registrations holding this (freed by kvOwnerUnref at 0) */
  KvCache *pCache;      /* The connected owner's cache, or NULL */
  const char *zConnect; /* SQL whose preparation connects the owner table */
};
void kvCacheClear(KvCache *p);
void kvOwnerUnref(void *pOwner);
/*
** The statement for zSql: from pOwner's cache (connecting the owner first
** if need be), else prepared now with *pbTemp set (no owner, or the cached
** one is running further up the stack). Give it back with kvCacheRelease.
*/
int kvCachePrepare(sqlite3 *db, KvOwner *pOwner, const char *zSql, sqlite3_stmt **ppStmt, int *pbTemp);
void kvCacheRelease(sqlite3_stmt *pStmt, int bTemp);
/*
** The columns a kv_* or doc_* function reads and writes, in its documented
** order. Its statement formats name them by role words (key, value, doc,
** version): bare lowercase words, each a column of the layout wherever it
** stands (excluded.doc included; a quoted "key" is left alone). The plain
** table form uses the columns so named; the column form "t(a, b, c)" names
** them, and kvTablePrepare puts those names in place of the role words.
*/
typedef struct KvLayout KvLayout;
struct KvLayout {
  const char *zText;     /* The plain form's layout, for messages: "a (key PRIMARY KEY, value) table" */
  int nCol;              /* Names the column form takes; 0: the function has no column form */
  const char *azRole[3]; /* The role words, in the documented order (the key first) */
  int iVersion;          /* The role that holds integers (declared INTEGER, NUMERIC or untyped), or -1 */
};
/*
** kvCachePrepare for zFmt on the table argument zTable: a table name (or
** "schema.name" when no table has the whole text as its name) or, when no
** table has the whole text as its name, the column form "name(col, ...)"
** naming pLayout's columns in order. The quoted table takes the place of
** zFmt's %s, the named columns that of the role words. The text is
** resolved and the columns checked when the statement is not cached yet:
** a cached statement is found by (zFmt, zTable) without SQL to build, and
** SQLite re-resolves its names when the schema changes. On failure *pzErr
** is "<zFunc>: no such table: 'x'", "<zFunc>: table 'x' has no column 'c'
** (expected <layout>)", "<zFunc>: table 'x(a, b)' names 2 columns,
** expected 3 (key, doc, version)", ... (sqlite3_mprintf).
*/
int kvTablePrepare(sqlite3 *db, KvOwner *pOwner, const char *zFunc, const char *zTable,
                   const KvLayout *pLayout, const char *zFmt, sqlite3_stmt **ppStmt, int *pbTemp,
                   char **pzErr);
/*
** SQLITE_OK when the key column of table argument zTable (kvTablePrepare)
** is unique on its own under its own collation, the one "WHERE key = ?"
** uses (what makes it one row): the rowid, or a unique index on the key
** alone, not partial, of the key column's collation. Else an error in
** *pzErr: "<zFunc>: table 'x' has no PRIMARY KEY or UNIQUE constraint on
** key (expected <layout>)", or, with the column form, "... on column 'c'
** (the key)"; "<zFunc>: key column 'k' of table 'x' (COLLATE NOCASE) has
** no unique index under NOCASE: its unique index 'i' uses BINARY". The
** probe is an INSERT that inserts nothing: SQLite checks the ON CONFLICT
** target when it prepares it, and again after a schema change when it is
** stepped, but whatever the index's collation; so the collation rule is
** read from the schema (kvTableKeyRule in ext/kv.c), when the probe is
** first prepared and whenever SQLite re-prepares it, together with the
** columns. With bViewOk a view passes (its INSTEAD OF triggers decide what
** a write by key does).
*/
int kvTableKeyUnique(sqlite3 *db, KvOwner *pOwner, const char *zFunc, const char *zTable,
                     const KvLayout *pLayout, int bViewOk, char **pzErr);
/*
** The message for the error sqlite3_errmsg(db) holds after a statement of
** kvTablePrepare() on zTable failed to prepare or to step: "no such
** column", an ON CONFLICT target that is no unique key, ... told in the
** table argument's terms (sqlite3_mprintf; NULL on OOM).
*/
char *kvTableErrorText(sqlite3 *db, const char *zFunc, const char *zTable, const KvLayout *pLayout);
/*
** An atomic read-modify-write: kvAtomicBegin opens a write transaction
** (BEGIN IMMEDIATE, *pbOwn set) when the connection is in autocommit mode
** and no writing statement is running; otherwise the caller is already
** inside a transaction that holds what it reads until its write. kvAtomicEnd
** commits (rc SQLITE_OK) or rolls back what kvAtomicBegin opened; returns rc
** or the COMMIT's error. pOwner caches the BEGIN and COMMIT statements.
*/
int kvAtomicBegin(sqlite3 *db, KvOwner *pOwner, int *pbOwn);
int kvAtomicEnd(sqlite3 *db, KvOwner *pOwner, int bOwn, int rc);

/**************************************************************************
** Interface to code in ext/doc.c (documents: doc_update, doc_upsert,
** doc_schema; docs/documents.md). docRegister() also registers
** ext/kv_object.c's kv_object and kv_pairs (kvObjectRegister()).
*/
int docRegister(sqlite3 *db);
int kvObjectRegister(sqlite3 *db);

/**************************************************************************
** Interface to code in ext/doc_json.c: JSON documents as trees, the core
** that doc_update (ext/doc.c) edits. Its header comment tells how.
*/

/* DocNode.eType: the json_type() of a node, in docJsonTypeName() order. */
#define DOCJ_NULL 0
#define DOCJ_TRUE 1
#define DOCJ_FALSE 2
#define DOCJ_INT 3 /* A number written as an integer (its value may be beyond int64: a double then) */
#define DOCJ_REAL 4
#define DOCJ_TEXT 5
#define DOCJ_ARRAY 6
#define DOCJ_OBJECT 7

typedef struct DocJson DocJson;
typedef struct DocNode DocNode;
typedef struct DocMember DocMember;

/*
** The arena and sticky state of a set of trees. Zero it (or docJsonInit)
** before use, docJsonClear() after: that frees every node at once. rc is
** the first fatal error (SQLITE_NOMEM, or what xTick returned), after which
** every call does nothing.
*/
struct DocJson {
  void *pChunk;         /* Arena chunks, newest first (DocChunk, private) */
  NosqlBuffer stack;    /* The parser's scratch stack of children */
  NosqlBuffer tmp;      /* Scratch text */
  int rc;               /* First fatal error, or SQLITE_OK */
  int bDeep;            /* The last parse or write failed on NOSQL_JSON_MAX_DEPTH */
  unsigned nTick;       /* Work units done (xTick is called every 4096) */
  int (*xTick)(void *); /* Returns non-zero (an SQLite code) to stop: interrupts */
  void *pTickArg;       /* Argument of xTick */
};

/* One member of an object: a removed member keeps its slot with pVal NULL. */
struct DocMember {
  const char *zKey;  /* The key as JSON text, quotes included, as read (or written by docJsonQuote) */
  const char *zName; /* The key decoded (escapes undone); not NUL terminated */
  int nKey;          /* Bytes of zKey */
  int nName;         /* Bytes of zName */
  DocNode *pVal;     /* The value, or NULL once removed */
};

/*
** A value. Scalars keep their JSON token. A container keeps its items and,
** while bRaw, the text it was parsed from (compact: no white space), which
** docJsonWrite() copies as it is: whoever changes a container, or a node
** below it, clears bRaw on it and on every container above it.
*/
struct DocNode {
  unsigned char eType;   /* DOCJ_* */
  unsigned char bRaw;    /* Container: z[0..n) is its current text, compact */
  unsigned char eNum;    /* Number: 0 value not read yet, 1 int64 in iVal, 2 double in rVal */
  unsigned char bEsc;    /* String: the token has escapes */
  unsigned char bUnique; /* Object: no key is on two live members (docJsonObjUnique) */
  int nDepth;            /* Container parsed: nesting of its text (1: no container inside) */
  const char *z;         /* Scalar: its token (a string with its quotes); container: its text */
  int n;                 /* Bytes of z */
  union {
    struct {
      sqlite3_int64 iVal; /* eNum 1 */
      double rVal;        /* eNum 2 */
    } num;                /* DOCJ_INT, DOCJ_REAL */
    struct {
      const char *z; /* Decoded value once computed (bEsc), else NULL */
      int n;         /* Its bytes */
    } text;          /* DOCJ_TEXT */
    struct {
      DocNode **apElem;   /* DOCJ_ARRAY: the elements */
      DocMember *aMember; /* DOCJ_OBJECT: the members, removed ones included */
      int nItem;          /* Elements, or member slots */
      int nAlloc;         /* Slots allocated */
      int *aSlot;         /* DOCJ_OBJECT: hash index of the keys (member + 1; 0 free), or NULL */
      int nSlot;          /* Slots of aSlot (a power of two) */
    } c;                  /* DOCJ_ARRAY, DOCJ_OBJECT */
  } u;
};

void docJsonInit(DocJson *pJ, int (*xTick)(void *), void *pTickArg);
void docJsonClear(DocJson *pJ);
/*
** Forget every node, keeping the newest arena chunk and the scratch
** buffers for the next tree (and clearing rc): a function that parses one
** document per call (doc_match) allocates nothing once warm.
*/
void docJsonReset(DocJson *pJ);
/* nByte bytes from the arena (8-byte aligned), or NULL (pJ->rc set). */
void *docJsonAlloc(DocJson *pJ, sqlite3_int64 nByte);
/* Count one unit of work; every 4096 units ask xTick. Returns pJ->rc. */
int docJsonTick(DocJson *pJ);

/*
** Parse z[0..n) (a copy in the arena when bCopy; else z must outlive the
** nodes) into *ppRoot. SQLITE_OK; SQLITE_ERROR when it is not strict JSON
** (pJ->bDeep when the cause is nesting deeper than NOSQL_JSON_MAX_DEPTH);
** or pJ->rc.
*/
int docJsonParse(DocJson *pJ, const char *z, int n, int bCopy, DocNode **ppRoot);

/*
** Append p as compact JSON text to pBuf (every token as read). SQLITE_OK;
** SQLITE_TOOBIG when pBuf would pass nMax bytes; SQLITE_ERROR with
** pJ->bDeep when it nests deeper than NOSQL_JSON_MAX_DEPTH; or pJ->rc.
*/
int docJsonWrite(DocJson *pJ, const DocNode *p, NosqlBuffer *pBuf, sqlite3_int64 nMax);

/* The json_type() name of a node. */
const char *docJsonTypeName(const DocNode *p);

/* True for DOCJ_INT and DOCJ_REAL. */
int docJsonIsNumber(const DocNode *p);

/*
** A number's value: 1 with *piVal when it is an integer that fits int64,
** else 0 with *prVal (integers beyond int64 are doubles, as in MongoDB).
*/
int docJsonNumber(DocJson *pJ, DocNode *p, sqlite3_int64 *piVal, double *prVal);

/* A string's decoded value (*pn bytes; not NUL terminated), or NULL (pJ->rc). */
const char *docJsonText(DocJson *pJ, DocNode *p, int *pn);

/*
** MongoDB's equality: numbers by value whatever their spelling (1 equals
** 1.0; int64 compared exactly, not through a double), strings by decoded
** value, arrays element by element, objects member by member in order
** (same keys, same order, equal values). On OOM, 0 with pJ->rc set.
*/
int docJsonEqual(DocJson *pJ, DocNode *a, DocNode *b);

/*
** MongoDB's comparison and sort order of two values (<0, 0, >0): by type
** first (null < numbers < strings < objects < arrays < booleans), then
** numbers by value (int64 against double exactly), strings by their
** decoded bytes, arrays element by element, objects member by member (the
** value's type, the name, the value), a shorter one first; false < true.
*/
int docJsonCompare(DocJson *pJ, DocNode *a, DocNode *b);

/* A hash of p consistent with docJsonEqual() (equal values hash alike). */
sqlite3_uint64 docJsonHash(DocJson *pJ, DocNode *p);

/* A new node: an empty array or object, or null, true or false. NULL on OOM. */
DocNode *docJsonNew(DocJson *pJ, int eType);
/* A new number node from its JSON text z[0..n) (copied), of type DOCJ_INT or DOCJ_REAL. */
DocNode *docJsonNewNumber(DocJson *pJ, const char *z, int n, int eType);

/*
** Objects. docJsonObjFind: the index of the first live member named
** zName[0..nName), or -1 (also on OOM: check pJ->rc). docJsonObjUnique:
** remove the later members of keys that appear twice (the first stays, as
** json_extract reads it). docJsonObjAppend: a new last member (the caller
** has checked that the key is absent); zKey is its JSON text.
*/
int docJsonObjFind(DocJson *pJ, DocNode *pObj, const char *zName, int nName);
void docJsonObjUnique(DocJson *pJ, DocNode *pObj);
void docJsonObjAppend(DocJson *pJ, DocNode *pObj, const char *zKey, int nKey, const char *zName, int nName,
                      DocNode *pVal);
/* The JSON text of name z[0..n), quotes included, as json_quote() writes it, in the arena (*pnKey bytes). */
const char *docJsonQuote(DocJson *pJ, const char *z, int n, int *pnKey);

/* Arrays: a new last element. */
void docJsonArrAppend(DocJson *pJ, DocNode *pArr, DocNode *pVal);

/*
** The index of the array element that the path part z[0..n) names, as
** MongoDB's matcher reads it (a BSON array is an object whose field names
** are "0", "1", ...): the part must be that name's text, so "0" and "12"
** are indexes and "01", "00", "+1", "" are not. -1 when it names none (or
** has more than 9 digits: no array is that long).
*/
int docJsonArrayIndex(const char *z, int n);

/**************************************************************************
** Interface to code in ext/doc_match.c: MongoDB query filters on DocNode
** trees, the one evaluator of doc_match(), $pull conditions and array
** filters. Its header comment tells the language and how it works.
*/
typedef struct DocFilter DocFilter;

/* docFilterCompile() modes. */
#define DOC_FILTER_QUERY 0 /* A find filter: an object of conditions on a document */
#define DOC_FILTER_PULL 1  /* $pull's value: an equality, conditions on a value, or a query on objects */

/*
** Compile filter pFilter, a node of the tree in arena pJ (the filter keeps
** pointers into it: pJ must outlive *pp; strings of pFilter are decoded
** into pJ now). zPath names the array for messages (DOC_FILTER_PULL; ""
** otherwise). SQLITE_OK with *pp (free with docFilterFree), SQLITE_ERROR
** with *pzErr (sqlite3_mprintf, the caller frees; it names the operator
** and the path, without a function name: "$size at 'a' needs ..."), or
** SQLITE_NOMEM.
**
** Array filters ($[<identifier>]): compile each arrayFilters entry with
** DOC_FILTER_QUERY and test each element with docFilterMatchAs(..., the
** identifier, element, ...): paths "x" and "x.grade" then read the element
** as MongoDB does (it wraps the element the same way).
*/
int docFilterCompile(DocJson *pJ, DocNode *pFilter, int eMode, const char *zPath, DocFilter **pp,
                     char **pzErr);

/* Compile the filter text z[0..n) (strict JSON, copied): as docFilterCompile(), DOC_FILTER_QUERY. */
int docFilterCompileText(const char *z, int n, DocFilter **pp, char **pzErr);

/*
** Whether value pVal (of a tree in arena pJ: a document, or an array
** element for DOC_FILTER_PULL) matches p: *pbMatch 1 or 0. Never writes to
** the filter, so one filter serves trees of any arena. SQLITE_OK;
** SQLITE_ERROR with *pzErr (a $regex that hit PCRE2's limits); or pJ->rc
** (SQLITE_NOMEM).
*/
int docFilterMatch(DocFilter *p, DocJson *pJ, DocNode *pVal, int *pbMatch, char **pzErr);

/*
** As docFilterMatch() on the one-member document {zName[0..nName): pVal}
** (zName decoded, not NUL terminated), built on the stack: an array
** filter's test of one element under its identifier.
*/
int docFilterMatchAs(DocFilter *p, DocJson *pJ, const char *zName, int nName, DocNode *pVal, int *pbMatch,
                     char **pzErr);

/* Free a filter (NULL is a no-op). */
void docFilterFree(DocFilter *p);

/* The SQL function doc_match(doc, filter) (docs/documents.md). */
int docMatchRegister(sqlite3 *db);

/* Index tables (docs/index_table.md): ext/index_table.c. */
int indexTableRegister(sqlite3 *db);

/* Composite keys (docs/composite_keys.md): each file's registrar, listed in ext/nosql.c's feature table. */
int ckeyRegister(sqlite3 *db);
int compositeScanRegister(sqlite3 *db);
int hllRegister(sqlite3 *db);
int kvRegister(sqlite3 *db);

/**************************************************************************
** Interface to code in ext/compare.c (nosql_compare, nosql_explain; docs/compare.md)
*/
int compareRegister(sqlite3 *db);

#endif /* NOSQL_INT_H */
