/*
** index_table.c: index tables and denormalized query tables (techniques 7
** and 1 of the article; Cassandra query tables, DynamoDB global secondary
** indexes with their projections, MongoDB multikey indexes).
**
**   CREATE VIRTUAL TABLE users_by_city USING index_table(
**       users, key = 'city', include = 'name, email');
**   CREATE VIRTUAL TABLE posts_by_tag USING index_table(
**       posts, key = 'each(tags) AS tag', include = 'title', mode = 'deferred');
**
** Arguments: the base table (a rowid table of the index table's schema,
** with an INTEGER PRIMARY KEY: the entries hold base rowids, which VACUUM
** may renumber in a table without one), then options:
**
**   key = '...'      required: comma-separated key parts, each a column of
**                    the base table, an expression over its row (SQLite's
**                    index-expression rules: deterministic, no subquery),
**                    or each(json_expr): one entry per distinct element of
**                    a JSON array (a JSON scalar is one element; NULL, JSON
**                    null and [] give none; an object or text that is not
**                    JSON is refused). Optionally "AS name".
**   include = '...'  base columns copied into the index table (the
**                    DynamoDB INCLUDE projection), or '*' for all of them
**                    (ALL); none by default (KEYS_ONLY).
**   mode = '...'     'sync' (default): triggers on the base table keep the
**                    index exact inside each write's own statement;
**                    'deferred': the triggers only log the changed rowids
**                    and INSERT INTO t(t) VALUES('refresh') applies them.
**
** The virtual table behaves as
**
**   CREATE TABLE users_by_city(
**     city TEXT COLLATE NOCASE,   -- key parts: type and collation of the
**                                 -- base column, none for expressions
**     name TEXT, email TEXT,      -- included columns, as in the base
**     rowid INTEGER HIDDEN,       -- the base row's rowid
**     users_by_city HIDDEN,       -- commands: 'refresh', 'rebuild',
**                                 -- 'check', 'integrity-check'
**     PRIMARY KEY(city, rowid)
**   ) WITHOUT ROWID;
**
** A row whose key part is NULL has no entry (the sparse-index rule of
** DynamoDB GSIs). The table is read-only; writes go to the base table.
**
** How it works. The entries live in the shadow table "<name>_data", a
** WITHOUT ROWID table with the columns above (its "rowid" column holds the
** base rowid) clustered on (key parts..., rowid), plus an index on rowid.
** Three triggers on the base table, "<name>_insert", "<name>_update" (OF
** the columns the key and the copies read, and the rowid through each of
** its names; on every UPDATE when a generated column is among them) and
** "<name>_delete", delete a row's entries and insert them again from one
** SELECT over the base row; they use only built-in SQL, so a connection
** that never loaded nosql keeps the index exact too. In deferred mode they
** add the rowid to "<name>_log" instead. The update trigger removes the
** entries of NEW's rowid too: an UPDATE OR REPLACE that moves a row onto
** a taken rowid deletes the row there without a delete trigger unless
** recursive_triggers is on. A REPLACE through a UNIQUE index deletes rows
** at other rowids the same way: with such an index two BEFORE triggers,
** "<name>_before_insert" and "<name>_before_update", log the rows equal to
** NEW on each UNIQUE key, and the insert and update triggers drop the
** entries of those gone (IdxUnique). Reads refuse an index table whose
** three triggers are not all on the base table itself (a base dropped, or
** renamed, and a new table made under its name). The same SELECT, over all rows,
** is 'rebuild', over the logged rows 'refresh', and compared with the
** stored entries it is 'check' and the index_table_drift() function.
**
** A read pushes every usable constraint (=, <, <=, >, >=, one IN value at
** a time) on a key part, the rowid or an included column down into one
** SELECT on "<name>_data", whose primary key and rowid index SQLite's own
** planner then uses; the shadow columns carry the base columns' types and
** collations, so those comparisons are exact and SQLite does not repeat
** them. An ORDER BY that follows the key order is consumed.
**
** The virtual table is declared WITHOUT ROWID with that primary key, so
** SQLite's OR optimisation tells entries apart by (key, rowid), never by
** the rowid alone (an each() key gives one base row several entries).
**
** Plan encoding: idxStr is ext/plan.c's (slot = column of "<name>_data"),
** then, after a space, "by " and two characters per ORDER BY term when the
** order is consumed (the slot and '+' for ASC or '-' for DESC). idxNum: 1
** when the constraints pin one entry. (Every read selects all the shadow
** columns: which ones a query uses, colUsed, differs between SQLite
** versions for the same query, and a plan must read the same on all.)
**
**   index_table_drift(name [, schema]) -> kind, base_rowid, key, stored,
**       expected, pending: one row per drifted entry ('missing' from the
**       index, 'extra' in it, 'stale' copies); docs/index_table.md.
*/
#include "nosqlInt.h"

#include <string.h>

typedef struct IdxBase IdxBase;
typedef struct IdxCol IdxCol;
typedef struct IdxPart IdxPart;
typedef struct IdxRegistry IdxRegistry;
typedef struct idxtab_cursor idxtab_cursor;
typedef struct idxtab_vtab idxtab_vtab;

/* Kinds of key part. */
#define IDX_PART_COLUMN 0 /* A base column */
#define IDX_PART_EXPR 1   /* An expression over the base row */
#define IDX_PART_EACH 2   /* each(json_expr): one entry per element */

/* Most key parts: each part and the rowid are a planning slot. */
#define IDX_MAX_PART (NOSQL_PLAN_MAX_COL - 1)

/* Read statements kept per index table. */
#define IDX_STMT_CACHE 8

/* The first few drifted entries of each kind named by 'check'. */
#define IDX_CHECK_FIRST 3

/* One key part as declared. */
struct IdxPart {
  char *zName; /* Name given with AS, or NULL: the name comes from the part */
  char *zExpr; /* COLUMN: the column name (dequoted); else the SQL expression */
  int eKind;   /* IDX_PART_* */
};

/* One column of "<name>_data" (and of the virtual table). */
struct IdxCol {
  char *zName; /* Name, as declared */
  char *zType; /* Declared type: "INTEGER", "TEXT", "REAL", "NUMERIC" or "" */
  char *zColl; /* Collation, or NULL for BINARY */
};

/* The base table's columns, read when the index is built or maintained. */
struct IdxBase {
  int nCol;           /* Columns */
  IdxCol *aCol;       /* Name, affinity type and collation of each */
  int *aGen;          /* Per column: a generated column */
  const char *zRowid; /* The name that reaches the rowid: rowid, _rowid_ or oid */
  char *zIpk;         /* The INTEGER PRIMARY KEY column, or NULL */
};

/*
** Index tables connected on one connection (index_table_drift finds them
** here): one object for every load of the extension into the connection
** (nosqlConnShared), referenced by both modules and each connected table.
*/
struct IdxRegistry {
  idxtab_vtab *pFirst; /* Connected index tables */
};

struct idxtab_vtab {
  sqlite3_vtab base;    /* Base class - must be first */
  sqlite3 *db;          /* The connection */
  IdxRegistry *pReg;    /* This connection's registry */
  idxtab_vtab *pNext;   /* Next in pReg */
  char *zDb;            /* Schema of the index table and its base */
  char *zName;          /* Name of the index table */
  char *zBase;          /* Base table, as given */
  int bDeferred;        /* mode = 'deferred' */
  int nPart;            /* Key parts */
  IdxPart *aPart;       /* Key parts as declared */
  char *zInclude;       /* include = value as given, or NULL */
  int nCol;             /* Columns of "<name>_data": nPart, rowid, included */
  IdxCol *aCol;         /* Those columns */
  char *zDamage;        /* Why the stored table cannot be used, or NULL */
  NosqlStmtCache reads; /* Reads on "<name>_data", keyed by their plan's idxStr */
};

struct idxtab_cursor {
  sqlite3_vtab_cursor base; /* Base class - must be first */
  sqlite3_stmt *pStmt;      /* Current read, or NULL */
  NosqlStmtSlot *pCached;   /* Cache slot pStmt was lent from, or NULL */
  int bEof;                 /* No current row */
};

/*--------------------------------------------------------------------------
** Small helpers.
*/

static void idxColClear(IdxCol *a, int n) {
  int i;
  for (i = 0; i < n; i++) {
    sqlite3_free(a[i].zName);
    sqlite3_free(a[i].zType);
    sqlite3_free(a[i].zColl);
  }
  sqlite3_free(a);
}

static void idxBaseClear(IdxBase *p) {
  idxColClear(p->aCol, p->nCol);
  sqlite3_free(p->aGen);
  sqlite3_free(p->zIpk);
  memset(p, 0, sizeof(*p));
}

/* The affinity keyword of a declared type (SQLite's rules, section 3.1 of datatype3.html). */
static const char *idxAffinity(const char *zType) {
  char a[4] = {0, 0, 0, 0};
  const char *z;
  if (zType == NULL || zType[0] == 0) return "";
  for (z = zType; *z; z++) {
    char c = (char)(*z >= 'a' && *z <= 'z' ? *z - 32 : *z);
    a[0] = a[1];
    a[1] = a[2];
    a[2] = a[3];
    a[3] = c;
    if (a[1] == 'I' && a[2] == 'N' && a[3] == 'T') return "INTEGER";
  }
  for (z = zType; *z; z++) {
    if (sqlite3_strnicmp(z, "CHAR", 4) == 0 || sqlite3_strnicmp(z, "CLOB", 4) == 0 ||
        sqlite3_strnicmp(z, "TEXT", 4) == 0) {
      return "TEXT";
    }
  }
  for (z = zType; *z; z++) {
    if (sqlite3_strnicmp(z, "BLOB", 4) == 0) return "";
  }
  for (z = zType; *z; z++) {
    if (sqlite3_strnicmp(z, "REAL", 4) == 0 || sqlite3_strnicmp(z, "FLOA", 4) == 0 ||
        sqlite3_strnicmp(z, "DOUB", 4) == 0) {
      return "REAL";
    }
  }
  return "NUMERIC";
}

/* Append a column definition: "name" TYPE COLLATE "coll". */
static void idxAppendColDef(int *pRc, NosqlBuffer *pB, const IdxCol *pCol) {
  nosqlBufferAppendf(pRc, pB, "\"%w\"", pCol->zName);
  if (pCol->zType && pCol->zType[0]) nosqlBufferAppendf(pRc, pB, " %s", pCol->zType);
  if (pCol->zColl) nosqlBufferAppendf(pRc, pB, " COLLATE \"%w\"", pCol->zColl);
}

/* True when token z[0..n) is the bare word zWord (case-insensitive). */
static int idxIsWord(const char *z, int n, const char *zWord) {
  return n == (int)strlen(zWord) && sqlite3_strnicmp(z, zWord, n) == 0;
}

/* Run zSql (sqlite3_mprintf result, freed here); NULL means SQLITE_NOMEM. */
static int idxExec(sqlite3 *db, char *zSql) {
  int rc;
  if (zSql == NULL) return SQLITE_NOMEM;
  rc = sqlite3_exec(db, zSql, 0, 0, 0);
  sqlite3_free(zSql);
  return rc;
}

/*
** Split z at top-level commas (outside parentheses, quotes and comments):
** calls xPart(pCtx, zPart, nPart) for each piece with the tokens' span.
** An empty piece is passed with nPart 0.
*/
static int idxSplit(const char *z, int (*xPart)(void *, const char *, int), void *pCtx) {
  int i = 0, n = 0, nDepth = 0, iStart = -1, iEnd = 0, rc;
  const char *zTok;
  while ((zTok = nosqlSqlToken(z, &i, &n)) != NULL) {
    if (n == 1 && zTok[0] == ',' && nDepth == 0) {
      rc = xPart(pCtx, iStart < 0 ? z : &z[iStart], iStart < 0 ? 0 : iEnd - iStart);
      if (rc != SQLITE_OK) return rc;
      iStart = -1;
      continue;
    }
    if (n == 1 && zTok[0] == '(') nDepth++;
    if (n == 1 && zTok[0] == ')') nDepth--;
    if (iStart < 0) iStart = (int)(zTok - z);
    iEnd = (int)(zTok - z) + n;
  }
  return xPart(pCtx, iStart < 0 ? z : &z[iStart], iStart < 0 ? 0 : iEnd - iStart);
}

/*--------------------------------------------------------------------------
** Arguments.
*/

/* State of the key and include parsers. */
typedef struct IdxParse IdxParse;
struct IdxParse {
  idxtab_vtab *p; /* Table being declared */
  char **pzErr;   /* Error message out */
  char **azName;  /* include: names parsed so far */
  int nName;      /* include: entries of azName */
};

/* One key part: "expr [AS name]", "column [AS name]" or "each(expr) [AS name]". */
static int idxParsePart(void *pCtx, const char *z, int n) {
  IdxParse *pP = (IdxParse *)pCtx;
  idxtab_vtab *p = pP->p;
  char *zText = sqlite3_mprintf("%.*s", n, z);
  int aOff[4] = {0, 0, 0, 0}, aLen[4] = {0, 0, 0, 0}; /* first two and last two tokens */
  int nTok = 0, i = 0, nT = 0, iLastEnd = 0, iExprEnd, nDepth = 0;
  const char *zTok;
  IdxPart *pPart;
  if (zText == NULL) return SQLITE_NOMEM;
  if (n == 0) {
    sqlite3_free(zText);
    *pP->pzErr = sqlite3_mprintf("index_table: empty key part in key = '...'");
    return SQLITE_ERROR;
  }
  if (p->nPart >= IDX_MAX_PART) {
    sqlite3_free(zText);
    *pP->pzErr = sqlite3_mprintf("index_table: at most %d key parts", IDX_MAX_PART);
    return SQLITE_ERROR;
  }
  while ((zTok = nosqlSqlToken(zText, &i, &nT)) != NULL) {
    int iOff = (int)(zTok - zText);
    /* Parentheses balance inside the part, so that it cannot close the
    ** parenthesis the generated SQL puts around it. */
    if (nT == 1 && zTok[0] == '(') nDepth++;
    if (nT == 1 && zTok[0] == ')' && --nDepth < 0) break;
    if (nTok < 2) {
      aOff[nTok] = iOff;
      aLen[nTok] = nT;
    }
    aOff[2] = aOff[3];
    aLen[2] = aLen[3];
    aOff[3] = iOff;
    aLen[3] = nT;
    nTok++;
    iLastEnd = iOff + nT;
  }
  if (nDepth != 0) {
    *pP->pzErr = sqlite3_mprintf("index_table: key part '%s' has unbalanced parentheses", zText);
    sqlite3_free(zText);
    return SQLITE_ERROR;
  }
  pPart = &p->aPart[p->nPart++];
  memset(pPart, 0, sizeof(*pPart));
  iExprEnd = iLastEnd;
  if (nTok >= 3 && idxIsWord(&zText[aOff[2]], aLen[2], "AS") && nosqlIsIdent(&zText[aOff[3]], aLen[3])) {
    pPart->zName = nosqlDequote(&zText[aOff[3]], aLen[3]);
    if (pPart->zName == NULL) goto part_nomem;
    iExprEnd = aOff[2];
    nTok -= 2;
  } else if (nTok >= 2 && idxIsWord(&zText[aOff[3]], aLen[3], "AS")) {
    *pP->pzErr = sqlite3_mprintf("index_table: key part '%s' needs a name after AS", zText);
    sqlite3_free(zText);
    return SQLITE_ERROR;
  }
  while (iExprEnd > 0 && (zText[iExprEnd - 1] == ' ' || zText[iExprEnd - 1] == '\t' ||
                          zText[iExprEnd - 1] == '\n' || zText[iExprEnd - 1] == '\r')) {
    iExprEnd--;
  }
  if (nTok == 1 && nosqlIsIdent(zText, aLen[0])) {
    pPart->eKind = IDX_PART_COLUMN;
    pPart->zExpr = nosqlDequote(zText, aLen[0]);
  } else if (nTok >= 3 && idxIsWord(zText, aLen[0], "each") && aLen[1] == 1 && zText[aOff[1]] == '(' &&
             zText[iExprEnd - 1] == ')') {
    /* each( ... ): the parenthesis that closes at the end must match the first. */
    int j = aOff[1] + 1, nDepth = 1, nTk = 0;
    while ((zTok = nosqlSqlToken(zText, &j, &nTk)) != NULL && (int)(zTok - zText) < iExprEnd) {
      if (nTk == 1 && zTok[0] == '(') nDepth++;
      if (nTk == 1 && zTok[0] == ')' && --nDepth == 0) break;
    }
    if (zTok == NULL || (int)(zTok - zText) != iExprEnd - 1 || (int)(zTok - zText) <= aOff[1] + 1) {
      *pP->pzErr = sqlite3_mprintf("index_table: key part '%s' is not each(json_expr) [AS name]", zText);
      sqlite3_free(zText);
      return SQLITE_ERROR;
    }
    pPart->eKind = IDX_PART_EACH;
    pPart->zExpr = sqlite3_mprintf("%.*s", iExprEnd - 1 - (aOff[1] + 1), &zText[aOff[1] + 1]);
  } else {
    pPart->eKind = IDX_PART_EXPR;
    pPart->zExpr = sqlite3_mprintf("%.*s", iExprEnd, zText);
  }
  sqlite3_free(zText);
  return pPart->zExpr ? SQLITE_OK : SQLITE_NOMEM;
part_nomem:
  sqlite3_free(zText);
  return SQLITE_NOMEM;
}

/* One included column name. */
static int idxParseInclude(void *pCtx, const char *z, int n) {
  IdxParse *pP = (IdxParse *)pCtx;
  int i = 0, nT = 0;
  const char *zTok = nosqlSqlToken(z, &i, &nT);
  char **azNew;
  if (n == 0 || zTok == NULL || !nosqlIsIdent(zTok, nT) || i < n) {
    *pP->pzErr = sqlite3_mprintf("index_table: include = '...' takes column names, not '%.*s'", n, z);
    return SQLITE_ERROR;
  }
  azNew = (char **)sqlite3_realloc64(pP->azName, sizeof(char *) * (sqlite3_uint64)(pP->nName + 1));
  if (azNew == NULL) return SQLITE_NOMEM;
  pP->azName = azNew;
  azNew[pP->nName] = nosqlDequote(zTok, nT);
  if (azNew[pP->nName] == NULL) return SQLITE_NOMEM;
  pP->nName++;
  return SQLITE_OK;
}

/* "schema.table" or "table" (quoted or not) in argument z: the table name, checked against zDb. */
static int idxParseBase(idxtab_vtab *p, const char *z, char **pzErr) {
  NosqlTableName t;
  int rc = nosqlTableArg(p->db, z, p->zDb, &t);
  if (rc == SQLITE_ERROR) {
    *pzErr = sqlite3_mprintf("index_table: the first argument must name the base table, not '%s'", z);
  } else if (rc == SQLITE_OK && sqlite3_stricmp(t.zSchema, p->zDb) != 0) {
    *pzErr =
        sqlite3_mprintf("index_table: base table '%s' must be in the index table's schema '%s'", z, p->zDb);
    rc = SQLITE_ERROR;
  }
  if (rc == SQLITE_OK) {
    p->zBase = t.zName;
    t.zName = NULL;
  }
  nosqlTableNameClear(&t);
  return rc;
}

/*
** Parse argv[3..]: the base table, key = '...', include = '...', mode =
** '...'. Fills p->zBase, aPart/nPart, zInclude and bDeferred.
*/
/* The options of CREATE VIRTUAL TABLE ... USING index_table(base, option = value, ...). */
static const char *const azIdxOption[] = {"key", "include", "mode", NULL};

static int idxParseArgs(idxtab_vtab *p, int argc, const char *const *argv, char **pzErr) {
  int i, rc = SQLITE_OK;
  char *zKey = NULL, *zMode = NULL;
  IdxParse parse;
  if (argc < 4) {
    *pzErr = sqlite3_mprintf(
        "index_table: usage: index_table(base_table, key = '...' [, include = '...'] [, "
        "mode = 'sync'|'deferred'])");
    return SQLITE_ERROR;
  }
  if (strchr(argv[3], '=') == NULL) {
    rc = idxParseBase(p, argv[3], pzErr);
  } else {
    *pzErr = sqlite3_mprintf("index_table: the first argument must name the base table, not '%s'", argv[3]);
    rc = SQLITE_ERROR;
  }
  for (i = 4; i < argc && rc == SQLITE_OK; i++) {
    const char *zEq = strchr(argv[i], '=');
    char *zOpt, *zVal, **pz;
    if (zEq == NULL) {
      char *zList = nosqlValidOptions(azIdxOption);
      *pzErr = zList ? sqlite3_mprintf("index_table: unexpected argument '%s' %s", argv[i], zList) : NULL;
      sqlite3_free(zList);
      rc = *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
      break;
    }
    zOpt = nosqlDequote(argv[i], (int)(zEq - argv[i]));
    zVal = nosqlDequote(zEq + 1, (int)strlen(zEq + 1));
    if (zOpt == NULL || zVal == NULL) {
      sqlite3_free(zOpt);
      sqlite3_free(zVal);
      rc = SQLITE_NOMEM;
      break;
    }
    pz = sqlite3_stricmp(zOpt, "key") == 0       ? &zKey
         : sqlite3_stricmp(zOpt, "include") == 0 ? &p->zInclude
         : sqlite3_stricmp(zOpt, "mode") == 0    ? &zMode
                                                 : NULL;
    if (pz == NULL) {
      *pzErr = nosqlUnknownOption("index_table", zOpt, -1, azIdxOption);
      rc = *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
    } else if (*pz) {
      *pzErr = sqlite3_mprintf("index_table: option '%s' given twice", zOpt);
      rc = SQLITE_ERROR;
    } else {
      *pz = zVal;
      zVal = NULL;
    }
    sqlite3_free(zOpt);
    sqlite3_free(zVal);
  }
  if (rc == SQLITE_OK && zMode) {
    if (sqlite3_stricmp(zMode, "deferred") == 0) {
      p->bDeferred = 1;
    } else if (sqlite3_stricmp(zMode, "sync") != 0) {
      *pzErr = sqlite3_mprintf("index_table: mode must be 'sync' or 'deferred', not '%s'", zMode);
      rc = SQLITE_ERROR;
    }
  }
  if (rc == SQLITE_OK && zKey == NULL) {
    *pzErr =
        sqlite3_mprintf("index_table: key = '...' is required (the columns or expressions to look up by)");
    rc = SQLITE_ERROR;
  }
  if (rc == SQLITE_OK) {
    p->aPart = (IdxPart *)sqlite3_malloc64(sizeof(IdxPart) * IDX_MAX_PART);
    if (p->aPart == NULL) rc = SQLITE_NOMEM;
  }
  if (rc == SQLITE_OK && zKey) {
    memset(&parse, 0, sizeof(parse));
    parse.p = p;
    parse.pzErr = pzErr;
    rc = idxSplit(zKey, idxParsePart, &parse);
  }
  sqlite3_free(zKey);
  sqlite3_free(zMode);
  return rc;
}

/*--------------------------------------------------------------------------
** The base table.
*/

/* The base table's message name: "'users'". */
static int idxBaseMissing(idxtab_vtab *p, char **pzErr) {
  *pzErr = sqlite3_mprintf(
      "index_table: '%s': base table '%s' does not exist (dropped or renamed?); DROP TABLE "
      "\"%w\" and create it again",
      p->zName, p->zBase, p->zName);
  return SQLITE_ERROR;
}

/*
** The columns of zDb.zTable in order, as pragma table_xinfo and the CREATE
** TABLE text give them (nosqlColumnInfo()'s sources, every column at
** once): *paCol gets name, declared type and declared collation (NULL for
** none or BINARY); *paHidden and *paPk (one int per column) table_xinfo's
** hidden and pk. All three sqlite3_malloc64'd, *pnCol columns (0: no such
** table). Frees what it made on error.
*/
static int idxReadColumns(sqlite3 *db, const char *zDb, const char *zTable, IdxCol **paCol, int **paHidden,
                          int **paPk, int *pnCol) {
  sqlite3_stmt *pStmt = NULL;
  IdxCol *aCol = NULL;
  int *aHidden = NULL, *aPk = NULL, nCol = 0, nAlloc = 0, rc, i;
  char *zSql;
  rc = sqlite3_prepare_v2(db, "SELECT name, type, hidden, pk FROM pragma_table_xinfo(?1, ?2)", -1, &pStmt, 0);
  if (rc == SQLITE_OK) {
    sqlite3_bind_text(pStmt, 1, zTable, -1, SQLITE_STATIC);
    sqlite3_bind_text(pStmt, 2, zDb, -1, SQLITE_STATIC);
  }
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    const char *zName = (const char *)sqlite3_column_text(pStmt, 0);
    const char *zType = (const char *)sqlite3_column_text(pStmt, 1);
    if (nCol == nAlloc) {
      int nNew = nAlloc ? nAlloc * 2 : 16;
      IdxCol *aNew = (IdxCol *)sqlite3_realloc64(aCol, sizeof(IdxCol) * (sqlite3_uint64)nNew);
      int *aH = aNew ? (int *)sqlite3_realloc64(aHidden, sizeof(int) * (sqlite3_uint64)nNew) : NULL;
      int *aP = aH ? (int *)sqlite3_realloc64(aPk, sizeof(int) * (sqlite3_uint64)nNew) : NULL;
      if (aNew) aCol = aNew;
      if (aH) aHidden = aH;
      if (aP) aPk = aP;
      if (aNew == NULL || aH == NULL || aP == NULL) {
        rc = SQLITE_NOMEM;
        break;
      }
      nAlloc = nNew;
    }
    memset(&aCol[nCol], 0, sizeof(IdxCol));
    aHidden[nCol] = sqlite3_column_int(pStmt, 2);
    aPk[nCol] = sqlite3_column_int(pStmt, 3);
    aCol[nCol].zName = sqlite3_mprintf("%s", zName ? zName : "");
    aCol[nCol].zType = sqlite3_mprintf("%s", zType ? zType : "");
    nCol++;
    if (aCol[nCol - 1].zName == NULL || aCol[nCol - 1].zType == NULL) rc = SQLITE_NOMEM;
  }
  if (rc == SQLITE_OK)
    rc = sqlite3_finalize(pStmt);
  else
    sqlite3_finalize(pStmt);
  pStmt = NULL;
  /* Collations: from the CREATE TABLE text (no pragma reports them). */
  if (rc == SQLITE_OK && nCol > 0) {
    zSql = sqlite3_mprintf(
        "SELECT sql FROM \"%w\".sqlite_schema WHERE type = 'table' AND name = ?1 COLLATE NOCASE", zDb);
    rc = zSql ? sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0) : SQLITE_NOMEM;
    sqlite3_free(zSql);
  }
  if (rc == SQLITE_OK && nCol > 0) {
    sqlite3_bind_text(pStmt, 1, zTable, -1, SQLITE_STATIC);
    if (sqlite3_step(pStmt) == SQLITE_ROW) {
      const char *zCreate = (const char *)sqlite3_column_text(pStmt, 0);
      for (i = 0; zCreate && i < nCol && rc == SQLITE_OK; i++) {
        aCol[i].zColl = nosqlDeclaredCollation(zCreate, aCol[i].zName, &rc);
        if (aCol[i].zColl && sqlite3_stricmp(aCol[i].zColl, "BINARY") == 0) {
          sqlite3_free(aCol[i].zColl);
          aCol[i].zColl = NULL;
        }
      }
    }
    if (rc == SQLITE_OK)
      rc = sqlite3_finalize(pStmt);
    else
      sqlite3_finalize(pStmt);
  }
  if (rc != SQLITE_OK) {
    idxColClear(aCol, nCol);
    sqlite3_free(aHidden);
    sqlite3_free(aPk);
    aCol = NULL;
    aHidden = aPk = NULL;
    nCol = 0;
  }
  *paCol = aCol;
  *paHidden = aHidden;
  *paPk = aPk;
  *pnCol = nCol;
  return rc;
}

/* The base column named zName (case-insensitive), or -1. */
static int idxBaseColumn(const IdxBase *pB, const char *zName) {
  int i;
  for (i = 0; i < pB->nCol; i++) {
    if (sqlite3_stricmp(pB->aCol[i].zName, zName) == 0) return i;
  }
  return -1;
}

/*
** Read the base table's columns into *pB. Errors (in *pzErr): no such
** table, a view, a virtual table, a WITHOUT ROWID table, no name left for
** the rowid.
*/
static int idxBaseLoad(idxtab_vtab *p, IdxBase *pB, char **pzErr) {
  sqlite3_stmt *pStmt = NULL;
  int rc, i, *aPk = NULL, bStrict = 0;
  const char *zKind = NULL;
  memset(pB, 0, sizeof(*pB));
  rc = sqlite3_prepare_v2(
      p->db, "SELECT type, wr, strict FROM pragma_table_list(?1) WHERE schema = ?2 COLLATE NOCASE", -1,
      &pStmt, 0);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_text(pStmt, 1, p->zBase, -1, SQLITE_STATIC);
  sqlite3_bind_text(pStmt, 2, p->zDb, -1, SQLITE_STATIC);
  if (sqlite3_step(pStmt) == SQLITE_ROW) {
    const char *zType = (const char *)sqlite3_column_text(pStmt, 0);
    if (zType == NULL) {
      rc = SQLITE_NOMEM;
    } else if (strcmp(zType, "table") != 0) {
      zKind = strcmp(zType, "view") == 0 ? "a view" : "a virtual table";
    } else if (sqlite3_column_int(pStmt, 1)) {
      zKind = "a WITHOUT ROWID table";
    }
    bStrict = sqlite3_column_int(pStmt, 2);
  } else {
    rc = sqlite3_finalize(pStmt);
    pStmt = NULL;
    if (rc == SQLITE_OK && p->aCol == NULL) {
      *pzErr = sqlite3_mprintf("index_table: no such base table: '%s'", p->zBase);
      return SQLITE_ERROR;
    }
    if (rc == SQLITE_OK) return idxBaseMissing(p, pzErr);
  }
  sqlite3_finalize(pStmt);
  pStmt = NULL;
  if (rc != SQLITE_OK) return rc;
  if (zKind) {
    *pzErr = sqlite3_mprintf("index_table: base table '%s' is %s; an index table needs a rowid table",
                             p->zBase, zKind);
    return SQLITE_ERROR;
  }
  rc = idxReadColumns(p->db, p->zDb, p->zBase, &pB->aCol, &pB->aGen, &aPk, &pB->nCol);
  for (i = 0; i < pB->nCol && rc == SQLITE_OK; i++) {
    /* Declared types become the affinity keywords the index table declares
    ** (ANY in a STRICT table has none; elsewhere it is NUMERIC). */
    int bAny = bStrict && sqlite3_stricmp(pB->aCol[i].zType, "ANY") == 0;
    char *zAff = sqlite3_mprintf("%s", bAny ? "" : idxAffinity(pB->aCol[i].zType));
    if (zAff == NULL) rc = SQLITE_NOMEM;
    sqlite3_free(pB->aCol[i].zType);
    pB->aCol[i].zType = zAff;
    pB->aGen[i] = pB->aGen[i] >= 2; /* hidden 2 and 3: generated */
  }
  sqlite3_free(aPk);
  if (rc == SQLITE_OK) rc = nosqlRowidAlias(p->db, p->zDb, p->zBase, &pB->zIpk);
  /* The rowid: the first of its three names that no column takes. */
  if (rc == SQLITE_OK) {
    static const char *const azRowid[] = {"rowid", "_rowid_", "oid"};
    int k;
    for (k = 0; k < 3 && pB->zRowid == NULL; k++) {
      for (i = 0; i < pB->nCol && sqlite3_stricmp(pB->aCol[i].zName, azRowid[k]) != 0; i++) {
      }
      if (i == pB->nCol) pB->zRowid = azRowid[k];
    }
    if (pB->zRowid == NULL) {
      *pzErr = sqlite3_mprintf(
          "index_table: base table '%s' has columns named rowid, _rowid_ and oid: its rowid "
          "cannot be read",
          p->zBase);
      rc = SQLITE_ERROR;
    }
  }
  /* A connected index table: the columns it copies must still be there. */
  for (i = 0; rc == SQLITE_OK && p->aCol && !p->zDamage && i < p->nCol; i++) {
    const char *zCol = i < p->nPart   ? (p->aPart[i].eKind == IDX_PART_COLUMN ? p->aPart[i].zExpr : NULL)
                       : i > p->nPart ? p->aCol[i].zName
                                      : NULL;
    if (zCol && idxBaseColumn(pB, zCol) < 0) {
      *pzErr = sqlite3_mprintf(
          "index_table '%s': base table '%s' has no column '%s' any more (renamed or dropped?); DROP TABLE "
          "\"%w\" and create it again",
          p->zName, p->zBase, zCol, p->zName);
      rc = SQLITE_ERROR;
    }
  }
  if (rc != SQLITE_OK) idxBaseClear(pB);
  return rc;
}

/*
** Check expression zExpr over the base row by SQLite's rules for index
** expressions: it must prepare as "WHERE (expr) IS NULL" over the base
** table (one value, only this table's columns, no aggregate or window
** function), without parameters, subqueries or trailing text, and call
** only functions registered as deterministic (pragma function_list). When
** pabRead is not NULL, pabRead[i] is set for each base column i the
** expression reads (found by hiding one column at a time).
*/
static int idxProbe(idxtab_vtab *p, const IdxBase *pB, const char *zExpr, const char *zWhat, int *pabRead,
                    char **pzErr) {
  sqlite3_stmt *pStmt = NULL;
  const char *zTail = NULL, *zTok, *zPrev = NULL;
  char *zSql = sqlite3_mprintf("SELECT 1 FROM \"%w\".\"%w\" WHERE (\n%s\n) IS NULL", p->zDb, p->zBase, zExpr);
  int rc, i = 0, n = 0, nPrev = 0, bTail, bDqs = 0;
  if (zSql == NULL) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, &zTail);
  bTail = zTail && zTail[0];
  sqlite3_free(zSql);
  if (rc == SQLITE_NOMEM) return rc;
  if (rc != SQLITE_OK || pStmt == NULL || bTail || sqlite3_bind_parameter_count(pStmt) > 0) {
    *pzErr = sqlite3_mprintf("index_table: %s '%s' is not an expression over table '%s'%s%s", zWhat, zExpr,
                             p->zBase, rc != SQLITE_OK ? ": " : " (one value, no parameters)",
                             rc != SQLITE_OK ? sqlite3_errmsg(p->db) : "");
    sqlite3_finalize(pStmt);
    return SQLITE_ERROR;
  }
  sqlite3_finalize(pStmt);
  pStmt = NULL;
  rc = sqlite3_prepare_v2(
      p->db, "SELECT min(flags & 0x800) FROM pragma_function_list WHERE name = ?1 COLLATE NOCASE", -1, &pStmt,
      0);
  while (rc == SQLITE_OK && (zTok = nosqlSqlToken(zExpr, &i, &n)) != NULL) {
    if (idxIsWord(zTok, n, "SELECT") ||
        (zPrev && idxIsWord(zPrev, nPrev, "IN") && !(n == 1 && zTok[0] == '(') && nosqlIsIdent(zTok, n))) {
      /* A SELECT, or "x IN table" (SQLite's shorthand for a subquery). */
      *pzErr = sqlite3_mprintf("index_table: %s '%s' has a subquery; key expressions read only the base row",
                               zWhat, zExpr);
      rc = SQLITE_ERROR;
    } else if (idxIsWord(zTok, n, "CURRENT_TIMESTAMP") || idxIsWord(zTok, n, "CURRENT_DATE") ||
               idxIsWord(zTok, n, "CURRENT_TIME") || idxIsWord(zTok, n, "'now'")) {
      /* What CREATE INDEX refuses too: the time of day, read at every write. */
      *pzErr =
          sqlite3_mprintf("index_table: %s '%s' reads the current time (%.*s), which is not deterministic",
                          zWhat, zExpr, n, zTok);
      rc = SQLITE_ERROR;
    } else if (n == 1 && zTok[0] == '(' && zPrev && nosqlIsIdent(zPrev, nPrev)) {
      char *zFunc = nosqlDequote(zPrev, nPrev);
      if (zFunc == NULL) {
        rc = SQLITE_NOMEM;
        break;
      }
      sqlite3_bind_text(pStmt, 1, zFunc, -1, SQLITE_STATIC);
      if (sqlite3_step(pStmt) == SQLITE_ROW && sqlite3_column_type(pStmt, 0) != SQLITE_NULL &&
          sqlite3_column_int(pStmt, 0) == 0) {
        *pzErr = sqlite3_mprintf("index_table: %s '%s' calls %s(), which is not deterministic", zWhat, zExpr,
                                 zFunc);
        rc = SQLITE_ERROR;
      }
      if (rc == SQLITE_OK) rc = sqlite3_reset(pStmt);
      sqlite3_free(zFunc);
    }
    zPrev = zTok;
    nPrev = n;
  }
  sqlite3_finalize(pStmt);
  pStmt = NULL;
  /* Which columns zExpr reads: those without which it does not prepare.
  ** With double-quoted strings allowed, a hidden "name" would turn into
  ** the string 'name' and prepare: they are off while probing (an
  ** expression with a real double-quoted string then reads every column,
  ** which only widens the update trigger). */
  if (pabRead) sqlite3_db_config(p->db, SQLITE_DBCONFIG_DQS_DML, -1, &bDqs);
  if (pabRead && bDqs) sqlite3_db_config(p->db, SQLITE_DBCONFIG_DQS_DML, 0, (int *)0);
  for (i = 0; pabRead && i < pB->nCol && rc == SQLITE_OK; i++) {
    NosqlBuffer b = {0, 0, 0};
    int j;
    nosqlBufferAppend(&rc, &b, "SELECT 1 FROM (SELECT 0", -1);
    for (j = 0; j < pB->nCol; j++) {
      if (j != i) nosqlBufferAppendf(&rc, &b, ", \"%w\"", pB->aCol[j].zName);
    }
    nosqlBufferAppendf(&rc, &b, " FROM \"%w\".\"%w\") WHERE (\n%s\n) IS NULL", p->zDb, p->zBase, zExpr);
    if (rc == SQLITE_OK) {
      int rc2 = sqlite3_prepare_v2(p->db, (const char *)b.a, -1, &pStmt, 0);
      sqlite3_finalize(pStmt);
      pStmt = NULL;
      if (rc2 == SQLITE_NOMEM) rc = rc2;
      if (rc2 != SQLITE_OK) pabRead[i] = 1;
    }
    nosqlBufferFree(&b);
  }
  if (pabRead && bDqs) sqlite3_db_config(p->db, SQLITE_DBCONFIG_DQS_DML, 1, (int *)0);
  return rc;
}

/*--------------------------------------------------------------------------
** The SQL that computes entries from base rows: one SELECT used by the
** triggers, 'rebuild', 'refresh' and the drift check.
**
**   SELECT e.k0 AS c0, j1.value AS c1, e.r AS r, e.i0 AS x0, ...
**   FROM (SELECT b."city" AS k0, (<json expr>) AS k1, b.rowid AS r,
**                b."name" AS i0 FROM "users" AS b WHERE <where>) AS e,
**        json_each(<k1 if a JSON array, scalar or NULL, else an error>) AS j1
**   WHERE e.k0 IS NOT NULL AND j1.value IS NOT NULL
**
** The base row is read in a subquery of its own so that the user's
** expressions see only its columns (json_each has columns named key and
** value too).
**
** An array may hold equal elements ([1, 1.0], ["a", "a"]): the entry keeps
** the first, as the writes insert in array order with ON CONFLICT DO
** NOTHING (the batches ORDER BY the array index) and the drift check picks
** it with row_number() over the array index.
*/

/* Contexts of the entry SELECT. */
#define IDX_CTX_TRIGGER 0 /* Inside a trigger: names unqualified, bad JSON raises */
#define IDX_CTX_BATCH 1   /* A statement of ours: names qualified, bad JSON "malformed JSON" */

/* Whether any key part is each(...). */
static int idxHasEach(const idxtab_vtab *p) {
  int i;
  for (i = 0; i < p->nPart; i++) {
    if (p->aPart[i].eKind == IDX_PART_EACH) return 1;
  }
  return 0;
}

/* "t" or "schema"."t" by context. */
static void idxAppendTable(int *pRc, NosqlBuffer *pB, const idxtab_vtab *p, int eCtx, const char *zTable,
                           const char *zSuffix) {
  if (eCtx == IDX_CTX_BATCH) nosqlBufferAppendf(pRc, pB, "\"%w\".", p->zDb);
  nosqlBufferAppendf(pRc, pB, "\"%w%w\"", zTable, zSuffix);
}

/*
** The condition that k (a SQL value) is a JSON array, a JSON scalar or NULL,
** for the diagnosis of a failed batch. (The entry SELECT itself uses
** json_type(), which fails on text that is not JSON: json_valid() of SQLite
** 3.40 says 0 when it runs out of memory, which would make an OOM look like
** a bad row.)
*/
static void idxAppendJsonOk(int *pRc, NosqlBuffer *pB, const char *zVal) {
  nosqlBufferAppendf(pRc, pB, "(%s IS NULL OR (json_valid(%s) AND json_type(%s) <> 'object'))", zVal, zVal,
                     zVal);
}

/*
** Append the entry SELECT for the base rows that zWhere selects (a
** condition over "b", the base row), in context eCtx. A trigger reads
** the row from the base table too, never from NEW: another trigger may
** have changed or deleted the row since (an AFTER INSERT trigger of the
** user's that normalises a column). bFirst keeps the first of
** equal array elements (row_number()), for the drift check. (Long: one
** SELECT for three contexts, written in the order its clauses appear.)
*/
static void idxAppendEntries(int *pRc, NosqlBuffer *pB, const idxtab_vtab *p, const IdxBase *pBase, int eCtx,
                             const char *zWhere, int bFirst) {
  int i, nInc = p->nCol - p->nPart - 1, bFrom = 0;
  bFirst = bFirst && idxHasEach(p);
  char **azK = (char **)sqlite3_malloc64(sizeof(char *) * (sqlite3_uint64)(p->nCol + 1));
  if (azK == NULL) {
    *pRc = SQLITE_NOMEM;
    return;
  }
  /* The row's values: the subquery's e.kN, e.r, e.iN. */
  for (i = 0; i < p->nCol; i++) {
    if (i == p->nPart) {
      azK[i] = sqlite3_mprintf("e.r");
    } else {
      azK[i] = sqlite3_mprintf("e.%c%d", i < p->nPart ? 'k' : 'i', i < p->nPart ? i : i - p->nPart - 1);
    }
    if (azK[i] == NULL) *pRc = SQLITE_NOMEM;
  }
  if (bFirst) {
    nosqlBufferAppend(pRc, pB, "SELECT ", 7);
    for (i = 0; i < p->nCol; i++) {
      if (i < p->nPart) nosqlBufferAppendf(pRc, pB, "%sc%d", i ? ", " : "", i);
      if (i == p->nPart) nosqlBufferAppend(pRc, pB, ", r", 3);
      if (i > p->nPart) nosqlBufferAppendf(pRc, pB, ", x%d", i - p->nPart - 1);
    }
    nosqlBufferAppend(pRc, pB, " FROM (", 7);
  }
  nosqlBufferAppend(pRc, pB, "SELECT ", 7);
  for (i = 0; i < p->nCol && *pRc == SQLITE_OK; i++) {
    const char *zSep = i ? ", " : "";
    if (i < p->nPart && p->aPart[i].eKind == IDX_PART_EACH) {
      nosqlBufferAppendf(pRc, pB, "%sj%d.value AS c%d", zSep, i, i);
    } else if (i < p->nPart) {
      nosqlBufferAppendf(pRc, pB, "%s%s AS c%d", zSep, azK[i], i);
    } else if (i == p->nPart) {
      nosqlBufferAppendf(pRc, pB, "%s%s AS r", zSep, azK[i]);
    } else {
      nosqlBufferAppendf(pRc, pB, "%s%s AS x%d", zSep, azK[i], i - p->nPart - 1);
    }
  }
  if (bFirst) {
    nosqlBufferAppend(pRc, pB, ", row_number() OVER (PARTITION BY ", -1);
    for (i = 0; i <= p->nPart; i++) {
      if (i < p->nPart && p->aPart[i].eKind == IDX_PART_EACH) {
        nosqlBufferAppendf(pRc, pB, "j%d.value, ", i);
      } else {
        nosqlBufferAppendf(pRc, pB, "%s%s", azK[i] ? azK[i] : "", i < p->nPart ? ", " : "");
      }
    }
    for (i = 0; i < p->nPart; i++) {
      if (p->aPart[i].eKind == IDX_PART_EACH)
        nosqlBufferAppendf(pRc, pB, "%sj%d.key", bFrom++ ? ", " : " ORDER BY ", i);
    }
    nosqlBufferAppend(pRc, pB, ") AS rn", -1);
  }
  nosqlBufferAppend(pRc, pB, " FROM (SELECT ", 14);
  for (i = 0; i < p->nPart; i++) {
    if (p->aPart[i].eKind == IDX_PART_COLUMN) {
      nosqlBufferAppendf(pRc, pB, "b.\"%w\" AS k%d, ", p->aPart[i].zExpr, i);
    } else {
      nosqlBufferAppendf(pRc, pB, "(\n%s\n) AS k%d, ", p->aPart[i].zExpr, i);
    }
  }
  nosqlBufferAppendf(pRc, pB, "b.%s AS r", pBase->zRowid);
  for (i = 0; i < nInc; i++)
    nosqlBufferAppendf(pRc, pB, ", b.\"%w\" AS i%d", p->aCol[p->nPart + 1 + i].zName, i);
  nosqlBufferAppend(pRc, pB, " FROM ", 6);
  idxAppendTable(pRc, pB, p, eCtx, p->zBase, "");
  nosqlBufferAppendf(pRc, pB, " AS b%s%s) AS e", zWhere ? " WHERE " : "", zWhere ? zWhere : "");
  for (i = 0; i < p->nPart && *pRc == SQLITE_OK; i++) {
    if (p->aPart[i].eKind != IDX_PART_EACH) continue;
    /* An object is refused here; text that is not JSON makes json_type() fail ("malformed JSON"). */
    nosqlBufferAppendf(pRc, pB, ", json_each(CASE WHEN %s IS NULL OR json_type(%s) <> 'object' THEN %s",
                       azK[i], azK[i], azK[i]);
    if (eCtx == IDX_CTX_TRIGGER) {
      /* RAISE's message is a string literal: the name is quoted twice over. */
      char *zMsg = sqlite3_mprintf(
          "index_table '%s': key part '%s' needs a JSON array, a JSON scalar or NULL, "
          "not an object; the row is refused",
          p->zName, p->aCol[i].zName);
      nosqlBufferAppendf(pRc, pB, " ELSE RAISE(ABORT, %Q) END) AS j%d", zMsg, i);
      if (zMsg == NULL) *pRc = SQLITE_NOMEM;
      sqlite3_free(zMsg);
    } else {
      nosqlBufferAppendf(pRc, pB, " ELSE '{' END) AS j%d", i);
    }
  }
  for (i = 0; i < p->nPart; i++) {
    if (p->aPart[i].eKind == IDX_PART_EACH) {
      nosqlBufferAppendf(pRc, pB, " %s j%d.value IS NOT NULL", i ? "AND" : "WHERE", i);
    } else {
      nosqlBufferAppendf(pRc, pB, " %s %s IS NOT NULL", i ? "AND" : "WHERE", azK[i] ? azK[i] : "");
    }
  }
  if (bFirst) nosqlBufferAppend(pRc, pB, ") WHERE rn = 1", -1);
  for (i = 0; i < p->nCol; i++) sqlite3_free(azK[i]);
  sqlite3_free(azK);
}

/* The column list of "<name>_data": "c0", "c1", "rowid", "x0" in declared names. */
static void idxAppendDataCols(int *pRc, NosqlBuffer *pB, const idxtab_vtab *p, const char *zPrefix) {
  int i;
  for (i = 0; i < p->nCol; i++)
    nosqlBufferAppendf(pRc, pB, "%s%s\"%w\"", i ? ", " : "", zPrefix, p->aCol[i].zName);
}

/*
** The first base row whose each() part is not a JSON array, scalar or NULL,
** for the message of a batch that failed with "malformed JSON": SQLITE_ERROR
** with the message when one is found, else rc unchanged.
*/
static int idxExplainJson(idxtab_vtab *p, const IdxBase *pBase, const char *zWhere, int rc) {
  int i;
  for (i = 0; i < p->nPart && rc != SQLITE_NOMEM; i++) {
    NosqlBuffer b = {0, 0, 0};
    sqlite3_stmt *pStmt = NULL;
    int rc2 = SQLITE_OK;
    char *zVal;
    if (p->aPart[i].eKind != IDX_PART_EACH) continue;
    zVal = sqlite3_mprintf("(\n%s\n)", p->aPart[i].zExpr);
    if (zVal == NULL) return SQLITE_NOMEM;
    nosqlBufferAppendf(&rc2, &b, "SELECT b.%s FROM \"%w\".\"%w\" AS b WHERE %s%sNOT ", pBase->zRowid, p->zDb,
                       p->zBase, zWhere ? zWhere : "", zWhere ? " AND " : "");
    idxAppendJsonOk(&rc2, &b, zVal);
    nosqlBufferAppend(&rc2, &b, " LIMIT 1", 8);
    sqlite3_free(zVal);
    if (rc2 == SQLITE_OK) rc2 = sqlite3_prepare_v2(p->db, (const char *)b.a, -1, &pStmt, 0);
    nosqlBufferFree(&b);
    if (rc2 == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
      nosqlVtabError(
          &p->base,
          "index_table '%s': key part '%s' of base row %lld is not a JSON array, a JSON scalar or NULL",
          p->zName, p->aCol[i].zName, sqlite3_column_int64(pStmt, 0));
      rc = SQLITE_ERROR;
    }
    sqlite3_finalize(pStmt);
    if (rc == SQLITE_ERROR && p->base.zErrMsg) break;
  }
  return rc;
}

/*
** Run a batch: DELETE the entries of the rows zWhere selects (all when
** NULL; zLog: the entries of the logged rowids), INSERT them again from the
** base table, and empty the log.
*/
static int idxBatch(idxtab_vtab *p, const IdxBase *pBase, int bAll) {
  NosqlBuffer b = {0, 0, 0};
  int rc = SQLITE_OK, i;
  char *zWhere =
      bAll ? NULL
           : sqlite3_mprintf("b.%s IN (SELECT r FROM \"%w\".\"%w_log\")", pBase->zRowid, p->zDb, p->zName);
  if (!bAll && zWhere == NULL) return SQLITE_NOMEM;
  if (bAll) {
    rc = idxExec(p->db, sqlite3_mprintf("DELETE FROM \"%w\".\"%w_data\"", p->zDb, p->zName));
  } else {
    rc = idxExec(p->db, sqlite3_mprintf("DELETE FROM \"%w\".\"%w_data\" WHERE \"rowid\" IN (SELECT r FROM "
                                        "\"%w\".\"%w_log\")",
                                        p->zDb, p->zName, p->zDb, p->zName));
  }
  nosqlBufferAppendf(&rc, &b, "INSERT INTO \"%w\".\"%w_data\"(", p->zDb, p->zName);
  idxAppendDataCols(&rc, &b, p, "");
  nosqlBufferAppend(&rc, &b, ") ", 2);
  idxAppendEntries(&rc, &b, p, pBase, IDX_CTX_BATCH, zWhere, 0);
  /* In key order, the B-tree is written by appends; equal elements of an array in array order. */
  nosqlBufferAppend(&rc, &b, " ORDER BY ", 10);
  for (i = 0; i <= p->nPart; i++) nosqlBufferAppendf(&rc, &b, "%s%d", i ? ", " : "", i + 1);
  for (i = 0; i < p->nPart; i++) {
    if (p->aPart[i].eKind == IDX_PART_EACH) nosqlBufferAppendf(&rc, &b, ", j%d.key", i);
  }
  nosqlBufferAppend(&rc, &b, " ON CONFLICT DO NOTHING", -1);
  if (rc == SQLITE_OK) {
    rc = sqlite3_exec(p->db, (const char *)b.a, 0, 0, 0);
    if (rc != SQLITE_OK && rc != SQLITE_NOMEM) {
      rc = idxExplainJson(p, pBase, zWhere, rc);
      if (p->base.zErrMsg == NULL) {
        nosqlVtabError(&p->base, "index_table '%s': %s", p->zName, sqlite3_errmsg(p->db));
      }
    }
  }
  nosqlBufferFree(&b);
  sqlite3_free(zWhere);
  if (rc == SQLITE_OK)
    rc = idxExec(p->db, sqlite3_mprintf("DELETE FROM \"%w\".\"%w_log\"", p->zDb, p->zName));
  return rc;
}

/*--------------------------------------------------------------------------
** Triggers.
*/

/*
** Names of the triggers, by suffix: the three every index table has, then
** the two BEFORE triggers of a base table with a UNIQUE index (IdxUnique).
*/
static const char *const azIdxTrigger[] = {"_insert", "_update", "_delete", "_before_insert",
                                           "_before_update"};
static const char *const azIdxEvent[] = {"AFTER INSERT", "AFTER UPDATE", "AFTER DELETE", "BEFORE INSERT",
                                         "BEFORE UPDATE"};
#define IDX_NTRIGGER 5

/*
** What a REPLACE through a UNIQUE index of the base table needs: it deletes
** the rows equal to NEW on the index's key without a delete trigger
** (unless recursive_triggers is on), at other rowids than NEW's. The
** BEFORE triggers put the rowids of the rows equal on each UNIQUE index in
** "<name>_log" (in sync mode emptied first: it then holds this write's
** rows only); in sync mode the AFTER triggers then delete the entries of
** those that are gone, one scalar subquery per UNIQUE index (an IN list
** would build an ephemeral table on every write, doubling its cost), and
** empty the log; in deferred mode 'refresh' does. A row logged that the
** statement did not delete (OR IGNORE, OR FAIL) is only read again. Key parts that are expressions are left
*out of the
** condition (a superset of the rows); an index whose first part is one is
** not covered (docs/index_table.md).
*/
typedef struct IdxUnique IdxUnique;
struct IdxUnique {
  NosqlBuffer cond; /* " OR (s."a" = NEW."a" COLLATE "c" AND ...)" per index; empty: no UNIQUE index */
  int *abKey;       /* Per base column: a key column of a UNIQUE index (sqlite3_malloc64'd) */
  int bGen;         /* One of them is a generated column */
  int nIndex;       /* UNIQUE indexes in cond: a write displaces at most one row through each */
};

static void idxUniqueClear(IdxUnique *pU) {
  nosqlBufferFree(&pU->cond);
  sqlite3_free(pU->abKey);
  memset(pU, 0, sizeof(*pU));
}

/* idxUniqueRead()'s column callback. */
typedef struct IdxUniqueCtx IdxUniqueCtx;
struct IdxUniqueCtx {
  const IdxBase *pB; /* The base table's columns */
  IdxUnique *pU;     /* What is being read */
};

static int idxUniqueCol(void *pCtx, const char *zCol) {
  IdxUniqueCtx *p = (IdxUniqueCtx *)pCtx;
  int iCol = idxBaseColumn(p->pB, zCol);
  if (iCol >= 0) {
    p->pU->abKey[iCol] = 1;
    if (p->pB->aGen[iCol]) p->pU->bGen = 1;
  }
  return SQLITE_OK;
}

/* Read the UNIQUE indexes of the base table into *pU (cleared first; nosqlUniqueConds()). */
static int idxUniqueRead(idxtab_vtab *p, const IdxBase *pB, IdxUnique *pU) {
  IdxUniqueCtx ctx;
  int rc;
  memset(pU, 0, sizeof(*pU));
  pU->abKey = (int *)sqlite3_malloc64(sizeof(int) * (sqlite3_uint64)(pB->nCol + 1));
  if (pU->abKey == NULL) return SQLITE_NOMEM;
  memset(pU->abKey, 0, sizeof(int) * (size_t)(pB->nCol + 1));
  ctx.pB = pB;
  ctx.pU = pU;
  rc = nosqlUniqueConds(p->db, p->zDb, p->zBase, &pU->cond, &pU->nIndex, 0, idxUniqueCol, &ctx);
  nosqlBufferAppend(&rc, &pU->cond, "", 0);
  if (rc == SQLITE_OK && pU->nIndex == 0) nosqlBufferReset(&pU->cond);
  return rc;
}

/*
** Drop index table zName's triggers: those of its trigger names that write
** to its shadow tables. A trigger of the user's that happens to have one of
** the names is left alone (creating ours then fails, saying so).
*/
static int idxDropTriggers(idxtab_vtab *p, const char *zName) {
  int i, rc = SQLITE_OK;
  sqlite3_stmt *pStmt = NULL;
  char *zSql =
      sqlite3_mprintf("SELECT sql FROM \"%w\".sqlite_schema WHERE type = 'trigger' AND name = ?1", p->zDb);
  char *zData = sqlite3_mprintf("\"%w_data\"", zName), *zLog = sqlite3_mprintf("\"%w_log\"", zName);
  if (zSql == NULL || zData == NULL || zLog == NULL) rc = SQLITE_NOMEM;
  if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0);
  for (i = 0; i < IDX_NTRIGGER && rc == SQLITE_OK; i++) {
    char *zTrigger = sqlite3_mprintf("%s%s", zName, azIdxTrigger[i]);
    int bOurs = 0;
    if (zTrigger == NULL) {
      rc = SQLITE_NOMEM;
      break;
    }
    sqlite3_bind_text(pStmt, 1, zTrigger, -1, SQLITE_STATIC);
    if (sqlite3_step(pStmt) == SQLITE_ROW) {
      const char *zBody = (const char *)sqlite3_column_text(pStmt, 0);
      bOurs = zBody && (strstr(zBody, zData) || strstr(zBody, zLog));
    }
    rc = sqlite3_reset(pStmt);
    if (rc == SQLITE_OK && bOurs) {
      rc = idxExec(p->db, sqlite3_mprintf("DROP TRIGGER \"%w\".\"%w\"", p->zDb, zTrigger));
    }
    sqlite3_free(zTrigger);
  }
  sqlite3_finalize(pStmt);
  sqlite3_free(zSql);
  sqlite3_free(zData);
  sqlite3_free(zLog);
  return rc;
}

/*
** The "OF col, ..." list of the update triggers: the columns the key parts
** and the copies read, the key columns of the UNIQUE indexes (when pU has
** any), and the rowid's names. An empty buffer when a generated column is
** involved (it changes when the columns it is computed from do, which OF
** cannot name): the triggers then fire on every UPDATE.
*/
static int idxUpdateOf(idxtab_vtab *p, const IdxBase *pB, const IdxUnique *pU, NosqlBuffer *pOf,
                       char **pzErr) {
  int *abRead = (int *)sqlite3_malloc64(sizeof(int) * (sqlite3_uint64)(pB->nCol + 1));
  int i, rc = SQLITE_OK, bGen = 0;
  if (abRead == NULL) return SQLITE_NOMEM;
  memset(abRead, 0, sizeof(int) * (size_t)(pB->nCol + 1));
  for (i = 0; i < p->nPart && rc == SQLITE_OK; i++) {
    if (p->aPart[i].eKind == IDX_PART_COLUMN) {
      int iCol = idxBaseColumn(pB, p->aPart[i].zExpr);
      if (iCol >= 0) abRead[iCol] = 1;
    } else {
      rc = idxProbe(p, pB, p->aPart[i].zExpr, "key part", abRead, pzErr);
    }
  }
  for (i = p->nPart + 1; i < p->nCol; i++) {
    int iCol = idxBaseColumn(pB, p->aCol[i].zName);
    if (iCol >= 0) abRead[iCol] = 1;
  }
  for (i = 0; pU->cond.n && i < pB->nCol; i++) {
    if (pU->abKey[i]) abRead[i] = 1;
  }
  for (i = 0; i < pB->nCol; i++) {
    if (abRead[i] && pB->aGen[i]) bGen = 1;
  }
  if (rc == SQLITE_OK && !bGen) {
    nosqlBufferAppend(&rc, pOf, " OF rowid, _rowid_, oid", -1);
    for (i = 0; i < pB->nCol; i++) {
      if (abRead[i] || (pB->zIpk && sqlite3_stricmp(pB->zIpk, pB->aCol[i].zName) == 0)) {
        nosqlBufferAppendf(&rc, pOf, ", \"%w\"", pB->aCol[i].zName);
      }
    }
  }
  sqlite3_free(abRead);
  return rc;
}

/*
** The CREATE TRIGGER text of trigger i (azIdxTrigger[]) into *pB, given the
** base's UNIQUE indexes *pU and the update triggers' OF list *pOf. Sync:
** delete the row's entries and insert them again. Deferred: log the rowid
** (and refuse a row whose each() part is not JSON, as sync does). The
** BEFORE triggers (only with a UNIQUE index) log the rows REPLACE may
** delete (IdxUnique).
*/
static void idxTriggerSql(int *pRc, NosqlBuffer *b, idxtab_vtab *p, const IdxBase *pB, const IdxUnique *pU,
                          const NosqlBuffer *pOf, int i) {
  const char *zRow = i == 2 ? "OLD" : "NEW";
  int rc = *pRc;
  nosqlBufferAppendf(&rc, b, "CREATE TRIGGER \"%w\".\"%w%s\" %s%s ON \"%w\"", p->zDb, p->zName,
                     azIdxTrigger[i], azIdxEvent[i], (i == 1 || i == 4) && pOf->a ? (const char *)pOf->a : "",
                     p->zBase);
  if (i >= 3) {
    /* The condition without its leading " OR " ("0 OR ..." would scan the table). */
    const char *zCond = (const char *)pU->cond.a + 4;
    char *zWhere = i == 4 ? sqlite3_mprintf("s.%s IS NOT OLD.%s AND (%s)", pB->zRowid, pB->zRowid, zCond)
                          : sqlite3_mprintf("(%s)", zCond);
    if (zWhere == NULL) rc = SQLITE_NOMEM;
    /* The WHEN clause: the common write, which displaces nothing, costs one probe per UNIQUE index. */
    nosqlBufferAppendf(&rc, b, " WHEN EXISTS (SELECT 1 FROM \"%w\" AS s WHERE %s) BEGIN\n", p->zBase,
                       zWhere ? zWhere : "");
    if (!p->bDeferred) nosqlBufferAppendf(&rc, b, "DELETE FROM \"%w_log\";\n", p->zName);
    nosqlBufferAppendf(
        &rc, b, "INSERT INTO \"%w_log\"(r) SELECT s.%s FROM \"%w\" AS s WHERE %s ON CONFLICT DO NOTHING;\n",
        p->zName, pB->zRowid, p->zBase, zWhere ? zWhere : "");
    sqlite3_free(zWhere);
  } else {
    nosqlBufferAppend(&rc, b, " BEGIN\n", -1);
  }
  if (i < 3 && p->bDeferred) {
    /* ON CONFLICT DO NOTHING holds whatever conflict clause the write that fired the trigger has. */
    nosqlBufferAppendf(&rc, b, "INSERT INTO \"%w_log\"(r) VALUES(%s.%s) ON CONFLICT DO NOTHING;\n", p->zName,
                       i == 1 ? "OLD" : zRow, pB->zRowid);
    if (i == 1) {
      nosqlBufferAppendf(&rc, b,
                         "INSERT INTO \"%w_log\"(r) SELECT NEW.%s WHERE NEW.%s IS NOT OLD.%s ON CONFLICT DO "
                         "NOTHING;\n",
                         p->zName, pB->zRowid, pB->zRowid, pB->zRowid);
    }
    if (i != 2 && idxHasEach(p)) {
      /* The entries are not computed now, but a bad row is refused now as in sync mode. */
      char *zWhere = sqlite3_mprintf("b.%s = NEW.%s", pB->zRowid, pB->zRowid);
      nosqlBufferAppend(&rc, b, "SELECT count(*) FROM (", -1);
      idxAppendEntries(&rc, b, p, pB, IDX_CTX_TRIGGER, zWhere, 0);
      nosqlBufferAppend(&rc, b, ");\n", 3);
      if (zWhere == NULL) rc = SQLITE_NOMEM;
      sqlite3_free(zWhere);
    }
  } else if (i < 3) {
    if (i != 2 && pU->cond.n) {
      /* Rows a REPLACE deleted through a UNIQUE index: logged by the BEFORE trigger, gone now. */
      int k;
      for (k = 0; k < pU->nIndex; k++) {
        nosqlBufferAppendf(
            &rc, b,
            "DELETE FROM \"%w_data\" WHERE \"rowid\" = (SELECT l.r FROM \"%w_log\" AS l WHERE NOT "
            "EXISTS (SELECT 1 FROM \"%w\" AS s WHERE s.%s = l.r) ORDER BY l.r LIMIT 1 OFFSET %d);\n",
            p->zName, p->zName, p->zBase, pB->zRowid, k);
      }
      nosqlBufferAppendf(&rc, b, "DELETE FROM \"%w_log\" WHERE EXISTS (SELECT 1 FROM \"%w_log\");\n",
                         p->zName, p->zName);
    }
    /* An update that moves the row onto another rowid (UPDATE OR REPLACE)
    ** displaced the row there without a delete trigger unless
    ** recursive_triggers is on: NEW's old entries go too. */
    if (i == 1) {
      nosqlBufferAppendf(&rc, b, "DELETE FROM \"%w_data\" WHERE \"rowid\" IN (OLD.%s, NEW.%s);\n", p->zName,
                         pB->zRowid, pB->zRowid);
    } else {
      nosqlBufferAppendf(&rc, b, "DELETE FROM \"%w_data\" WHERE \"rowid\" = %s.%s;\n", p->zName,
                         i == 0 ? "NEW" : "OLD", pB->zRowid);
    }
    if (i != 2) {
      char *zWhere = sqlite3_mprintf("b.%s = NEW.%s", pB->zRowid, pB->zRowid);
      nosqlBufferAppendf(&rc, b, "INSERT INTO \"%w_data\"(", p->zName);
      idxAppendDataCols(&rc, b, p, "");
      nosqlBufferAppend(&rc, b, ") ", 2);
      idxAppendEntries(&rc, b, p, pB, IDX_CTX_TRIGGER, zWhere, 0);
      nosqlBufferAppend(&rc, b, " ON CONFLICT DO NOTHING;\n", -1);
      if (zWhere == NULL) rc = SQLITE_NOMEM;
      sqlite3_free(zWhere);
    }
  }
  nosqlBufferAppend(&rc, b, "END", 3);
  *pRc = rc;
}

/* (Re)create the triggers on the base table (idxTriggerSql()). */
static int idxCreateTriggers(idxtab_vtab *p, const IdxBase *pB, char **pzErr) {
  NosqlBuffer of = {0, 0, 0};
  IdxUnique u;
  int rc = idxDropTriggers(p, p->zName), i;
  memset(&u, 0, sizeof(u));
  if (rc == SQLITE_OK) rc = idxUniqueRead(p, pB, &u);
  if (rc == SQLITE_OK) rc = idxUpdateOf(p, pB, &u, &of, pzErr);
  for (i = 0; i < IDX_NTRIGGER && rc == SQLITE_OK; i++) {
    NosqlBuffer b = {0, 0, 0};
    if (i >= 3 && u.cond.n == 0) break;
    idxTriggerSql(&rc, &b, p, pB, &u, &of, i);
    if (rc == SQLITE_OK) {
      rc = sqlite3_exec(p->db, (const char *)b.a, 0, 0, 0);
      if (rc != SQLITE_OK && rc != SQLITE_NOMEM) {
        const char *zMsg = sqlite3_errmsg(p->db);
        *pzErr = sqlite3_mprintf("index_table: cannot create trigger '%s%s': %s%s", p->zName, azIdxTrigger[i],
                                 zMsg,
                                 strstr(zMsg, "already exists")
                                     ? " (not this index table's: rename that trigger or the index table)"
                                     : "");
      }
    }
    nosqlBufferFree(&b);
  }
  nosqlBufferFree(&of);
  idxUniqueClear(&u);
  return rc;
}

/*--------------------------------------------------------------------------
** The drift check: the stored entries against those the base table gives.
**
**   SELECT kind, base_rowid, key, stored, expected, pending FROM (
**     SELECT CASE WHEN d.rowid IS NULL THEN 'missing' ELSE 'stale' END, ...
**       FROM (<entries>) AS e LEFT JOIN "<name>_data" AS d
**         ON d.k = e.c AND ... AND d.rowid = e.r
**      WHERE d.rowid IS NULL OR <a value differs in type or bytes>
**     UNION ALL
**     SELECT 'extra', ... FROM "<name>_data" AS d
**      WHERE NOT EXISTS (<entries of base row d.rowid> with d's key))
**
** The join compares keys in the key column's collation, as the primary key
** does; 'stale' then catches copies (and keys) that differ in any byte.
** Values are shown as quote() renders them, comma-separated.
*/
static void idxAppendRender(int *pRc, NosqlBuffer *pB, const idxtab_vtab *p, const char *zAlias, int bData,
                            int iFirst, int iEnd) {
  int i, bFirst = 1;
  for (i = iFirst; i < iEnd; i++) {
    if (i == p->nPart) continue;
    nosqlBufferAppend(pRc, pB, bFirst ? "" : " || ', ' || ", -1);
    bFirst = 0;
    if (bData) {
      nosqlBufferAppendf(pRc, pB, "quote(%s.\"%w\")", zAlias, p->aCol[i].zName);
    } else if (i < p->nPart) {
      nosqlBufferAppendf(pRc, pB, "quote(%s.c%d)", zAlias, i);
    } else {
      nosqlBufferAppendf(pRc, pB, "quote(%s.x%d)", zAlias, i - p->nPart - 1);
    }
  }
  if (bFirst) nosqlBufferAppend(pRc, pB, "''", 2);
}

static char *idxDriftSql(idxtab_vtab *p, const IdxBase *pBase, int bSkipPending) {
  NosqlBuffer b = {0, 0, 0};
  int rc = SQLITE_OK, i;
  char *zWhere = sqlite3_mprintf("b.%s = d.\"rowid\"", pBase->zRowid);
  if (zWhere == NULL) return NULL;
  nosqlBufferAppend(&rc, &b,
                    "SELECT * FROM (SELECT CASE WHEN d.\"rowid\" IS NULL THEN 'missing' ELSE 'stale' END "
                    "AS kind, e.r AS base_rowid, ",
                    -1);
  idxAppendRender(&rc, &b, p, "e", 0, 0, p->nPart);
  nosqlBufferAppend(&rc, &b, " AS key, CASE WHEN d.\"rowid\" IS NOT NULL THEN ", -1);
  idxAppendRender(&rc, &b, p, "d", 1, 0, p->nCol);
  nosqlBufferAppend(&rc, &b, " END AS stored, ", -1);
  idxAppendRender(&rc, &b, p, "e", 0, 0, p->nCol);
  nosqlBufferAppendf(&rc, &b, " AS expected, e.r IN (SELECT r FROM \"%w\".\"%w_log\") AS pending FROM (",
                     p->zDb, p->zName);
  idxAppendEntries(&rc, &b, p, pBase, IDX_CTX_BATCH, NULL, 1);
  nosqlBufferAppendf(&rc, &b, ") AS e LEFT JOIN \"%w\".\"%w_data\" AS d ON ", p->zDb, p->zName);
  for (i = 0; i < p->nPart; i++) nosqlBufferAppendf(&rc, &b, "d.\"%w\" = e.c%d AND ", p->aCol[i].zName, i);
  nosqlBufferAppend(&rc, &b, "d.\"rowid\" = e.r WHERE d.\"rowid\" IS NULL", -1);
  for (i = 0; i < p->nCol; i++) {
    char zE[24];
    if (i == p->nPart) continue;
    if (i < p->nPart) {
      sqlite3_snprintf(sizeof(zE), zE, "e.c%d", i);
    } else {
      sqlite3_snprintf(sizeof(zE), zE, "e.x%d", i - p->nPart - 1);
    }
    nosqlBufferAppendf(&rc, &b, " OR d.\"%w\" IS NOT %s COLLATE BINARY OR typeof(d.\"%w\") <> typeof(%s)",
                       p->aCol[i].zName, zE, p->aCol[i].zName, zE);
  }
  nosqlBufferAppend(&rc, &b, " UNION ALL SELECT 'extra', d.\"rowid\", ", -1);
  idxAppendRender(&rc, &b, p, "d", 1, 0, p->nPart);
  nosqlBufferAppend(&rc, &b, ", ", 2);
  idxAppendRender(&rc, &b, p, "d", 1, 0, p->nCol);
  nosqlBufferAppendf(&rc, &b,
                     ", NULL, d.\"rowid\" IN (SELECT r FROM \"%w\".\"%w_log\") FROM \"%w\".\"%w_data\" AS d "
                     "WHERE NOT EXISTS (SELECT 1 FROM (",
                     p->zDb, p->zName, p->zDb, p->zName);
  idxAppendEntries(&rc, &b, p, pBase, IDX_CTX_BATCH, zWhere, 0);
  nosqlBufferAppend(&rc, &b, ") AS e WHERE 1", -1);
  for (i = 0; i < p->nPart; i++) nosqlBufferAppendf(&rc, &b, " AND d.\"%w\" = e.c%d", p->aCol[i].zName, i);
  nosqlBufferAppendf(&rc, &b, "))%s", bSkipPending ? " WHERE NOT pending" : "");
  sqlite3_free(zWhere);
  if (rc != SQLITE_OK) {
    nosqlBufferFree(&b);
    return NULL;
  }
  return (char *)b.a;
}

/*
** Triggers of the index table that are missing: a bit per azIdxTrigger[]
** entry (the BEFORE ones only when the base has a UNIQUE index; also set
** when one is not as this version makes it, e.g. a UNIQUE index added
** since); bit 5: the update trigger of a sync table is one made by version
** 0.1.0, which leaves the entries of a row that UPDATE OR REPLACE
** displaced by moving another row onto its rowid ('rebuild' makes it
** anew). Only triggers on the base table itself count.
*/
static int idxMissingTriggers(idxtab_vtab *p, const IdxBase *pB, int *pmMissing) {
  sqlite3_stmt *pStmt = NULL;
  NosqlBuffer of = {0, 0, 0}, want = {0, 0, 0};
  IdxUnique u;
  char *zErr = NULL;
  char *zSql = sqlite3_mprintf(
      "SELECT name, sql FROM \"%w\".sqlite_schema WHERE type = 'trigger' AND tbl_name = ?1 "
      "COLLATE NOCASE",
      p->zDb);
  int rc, i;
  *pmMissing = 7;
  if (zSql == NULL) return SQLITE_NOMEM;
  rc = idxUniqueRead(p, pB, &u);
  if (rc == SQLITE_OK && u.cond.n) {
    *pmMissing |= 24;
    rc = idxUpdateOf(p, pB, &u, &of, &zErr);
  }
  if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  sqlite3_free(zErr);
  if (rc == SQLITE_OK) sqlite3_bind_text(pStmt, 1, p->zBase, -1, SQLITE_STATIC);
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    const char *zName = (const char *)sqlite3_column_text(pStmt, 0);
    const char *zBody = (const char *)sqlite3_column_text(pStmt, 1);
    for (i = 0; zName && i < IDX_NTRIGGER && rc == SQLITE_OK; i++) {
      char *zWant = sqlite3_mprintf("%s%s", p->zName, azIdxTrigger[i]);
      if (zWant == NULL) {
        rc = SQLITE_NOMEM;
      } else if (sqlite3_stricmp(zWant, zName) == 0) {
        if (i < 3 || u.cond.n) *pmMissing &= ~(1 << i);
        if (i == 1 && !p->bDeferred && zBody && strstr(zBody, "\"rowid\" IN (OLD.") == NULL) *pmMissing |= 32;
        if (i >= 3 && u.cond.n) {
          /* SQLite keeps the text without the schema: compare from the event on. */
          const char *zA, *zB;
          nosqlBufferReset(&want);
          idxTriggerSql(&rc, &want, p, pB, &u, &of, i);
          zA = zBody ? strstr(zBody, azIdxEvent[i]) : NULL;
          zB = rc == SQLITE_OK ? strstr((const char *)want.a, azIdxEvent[i]) : NULL;
          if (rc == SQLITE_OK && (zA == NULL || zB == NULL || strcmp(zA, zB) != 0)) *pmMissing |= 1 << i;
        }
      }
      sqlite3_free(zWant);
    }
  }
  if (rc == SQLITE_OK)
    rc = sqlite3_finalize(pStmt);
  else
    sqlite3_finalize(pStmt);
  nosqlBufferFree(&of);
  nosqlBufferFree(&want);
  idxUniqueClear(&u);
  return rc;
}

/*
** 'check' (bIntegrity 0: changes logged for the next 'refresh' are not
** drift) and 'integrity-check' (they are): SQLITE_OK when the index table
** matches its base table and has its triggers; otherwise the report in
** zErrMsg with SQLITE_ERROR ('check') or SQLITE_CORRUPT_VTAB.
*/
static int idxCheck(idxtab_vtab *p, const IdxBase *pBase, int bIntegrity) {
  static const char *const azKind[] = {"missing", "extra", "stale"};
  NosqlBuffer aFirst[3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  NosqlBuffer msg = {0, 0, 0};
  sqlite3_int64 anKind[3] = {0, 0, 0}, nPending = 0;
  sqlite3_stmt *pStmt = NULL;
  char *zSql = idxDriftSql(p, pBase, !bIntegrity);
  int rc, mMissing = 0, k;
  if (zSql == NULL) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    const char *zKind = (const char *)sqlite3_column_text(pStmt, 0);
    k = zKind == NULL ? 0 : zKind[0] == 'm' ? 0 : zKind[0] == 'e' ? 1 : 2;
    if (sqlite3_column_int(pStmt, 5)) nPending++;
    if (anKind[k]++ < IDX_CHECK_FIRST) {
      nosqlBufferAppendf(&rc, &aFirst[k], "%srowid %lld: %s", anKind[k] > 1 ? "; " : " (",
                         sqlite3_column_int64(pStmt, 1), (const char *)sqlite3_column_text(pStmt, 2));
    } else if (anKind[k] == IDX_CHECK_FIRST + 1) {
      nosqlBufferAppend(&rc, &aFirst[k], "; ...", -1);
    }
  }
  if (rc == SQLITE_OK)
    rc = sqlite3_finalize(pStmt);
  else
    sqlite3_finalize(pStmt);
  if (rc == SQLITE_OK) rc = idxMissingTriggers(p, pBase, &mMissing);
  if (rc == SQLITE_OK && pBase->zIpk == NULL) {
    /* An index table made before bases without one were refused. */
    nosqlBufferAppendf(
        &rc, &msg,
        "index_table '%s': base table '%s' has no INTEGER PRIMARY KEY, so VACUUM may have "
        "renumbered the rowids the entries hold (%lld missing, %lld extra, %lld stale); give '%s' "
        "an INTEGER PRIMARY KEY column, then DROP TABLE \"%w\" and create it again",
        p->zName, p->zBase, anKind[0], anKind[1], anKind[2], p->zBase, p->zName);
    if (rc == SQLITE_OK) {
      sqlite3_free(p->base.zErrMsg);
      p->base.zErrMsg = sqlite3_mprintf("%s", (const char *)msg.a);
      rc = p->base.zErrMsg == NULL ? SQLITE_NOMEM : bIntegrity ? SQLITE_CORRUPT_VTAB : SQLITE_ERROR;
    }
  } else if (rc == SQLITE_OK && (anKind[0] || anKind[1] || anKind[2] || mMissing)) {
    nosqlBufferAppendf(&rc, &msg, "index_table '%s' has drifted from '%s':", p->zName, p->zBase);
    for (k = 0; k < 3; k++) {
      nosqlBufferAppendf(&rc, &msg, "%s %lld %s%s%s", k ? "," : "", anKind[k], azKind[k],
                         aFirst[k].a ? (const char *)aFirst[k].a : "", aFirst[k].a ? ")" : "");
    }
    if (nPending) nosqlBufferAppendf(&rc, &msg, "; %lld of them await 'refresh'", nPending);
    for (k = 0; k < 3; k++) {
      if (mMissing & (1 << k))
        nosqlBufferAppendf(&rc, &msg, "; trigger '%s%s' is missing", p->zName, azIdxTrigger[k]);
    }
    for (k = 3; k < IDX_NTRIGGER; k++) {
      if (mMissing & (1 << k)) {
        nosqlBufferAppendf(&rc, &msg,
                           "; trigger '%s%s' is missing or out of date (it misses rows displaced by REPLACE "
                           "through a UNIQUE index)",
                           p->zName, azIdxTrigger[k]);
      }
    }
    if (mMissing & 32) {
      nosqlBufferAppendf(
          &rc, &msg, "; trigger '%s_update' is out of date (it misses rows displaced by UPDATE OR REPLACE)",
          p->zName);
    }
    nosqlBufferAppendf(&rc, &msg, "; INSERT INTO \"%w\"(\"%w\") VALUES('rebuild') repairs it", p->zName,
                       p->zName);
    if (rc == SQLITE_OK) {
      sqlite3_free(p->base.zErrMsg);
      p->base.zErrMsg = sqlite3_mprintf("%s", (const char *)msg.a);
      rc = p->base.zErrMsg == NULL ? SQLITE_NOMEM : bIntegrity ? SQLITE_CORRUPT_VTAB : SQLITE_ERROR;
    }
  } else if (rc != SQLITE_OK && rc != SQLITE_NOMEM && p->base.zErrMsg == NULL) {
    nosqlVtabError(&p->base, "index_table '%s': %s", p->zName, sqlite3_errmsg(p->db));
  }
  for (k = 0; k < 3; k++) nosqlBufferFree(&aFirst[k]);
  nosqlBufferFree(&msg);
  return rc;
}

/*--------------------------------------------------------------------------
** Creating, connecting, dropping, renaming.
*/

/*
** Forget the cached reads. One lent to an open cursor (a RENAME while a
** read is under way) stays with the cursor until it gives it back.
*/
static void idxStmtClear(idxtab_vtab *p) { nosqlStmtCacheClear(&p->reads); }

static void idxFree(idxtab_vtab *p) {
  int i;
  if (p == NULL) return;
  if (p->pReg) {
    idxtab_vtab **pp = &p->pReg->pFirst;
    while (*pp && *pp != p) pp = &(*pp)->pNext;
    if (*pp) *pp = p->pNext;
    nosqlConnSharedUnref(p->pReg);
  }
  idxStmtClear(p);
  for (i = 0; p->aPart && i < p->nPart; i++) {
    sqlite3_free(p->aPart[i].zName);
    sqlite3_free(p->aPart[i].zExpr);
  }
  sqlite3_free(p->aPart);
  idxColClear(p->aCol, p->nCol);
  sqlite3_free(p->zDb);
  sqlite3_free(p->zName);
  sqlite3_free(p->zBase);
  sqlite3_free(p->zInclude);
  sqlite3_free(p->zDamage);
  sqlite3_free(p->base.zErrMsg);
  sqlite3_free(p);
}

/* Append column pSrc of the base as the next column of p->aCol under zName. */
static int idxAddCol(idxtab_vtab *p, const char *zName, const char *zType, const char *zColl) {
  IdxCol *pCol = &p->aCol[p->nCol++];
  memset(pCol, 0, sizeof(*pCol));
  pCol->zName = sqlite3_mprintf("%s", zName);
  pCol->zType = sqlite3_mprintf("%s", zType ? zType : "");
  if (zColl) pCol->zColl = sqlite3_mprintf("%s", zColl);
  return (pCol->zName == NULL || pCol->zType == NULL || (zColl && pCol->zColl == NULL)) ? SQLITE_NOMEM
                                                                                        : SQLITE_OK;
}

/* Whether zName is taken by one of azName[0..n) (case-insensitive). */
static int idxNameTaken(const char *zName, char *const *azName, int n) {
  int i;
  for (i = 0; i < n; i++) {
    if (azName[i] && sqlite3_stricmp(zName, azName[i]) == 0) return 1;
  }
  return 0;
}

/*
** xCreate's work: resolve the key parts and included columns against the
** base table into p->aCol (names, types, collations), check expressions,
** and refuse clashing or reserved names. A part without AS is named after
** its column; an expression or each() after the one column it reads,
** unless an included column or an earlier part has that name; else keyN.
** (Long: the included columns, the parts, the rowid, then the name rules,
** in the order the shadow table's columns take.)
*/
static int idxResolve(idxtab_vtab *p, const IdxBase *pB, char **pzErr) {
  IdxParse parse;
  int rc = SQLITE_OK, i, j, nInc = 0;
  int *aiInc = (int *)sqlite3_malloc64(sizeof(int) * (sqlite3_uint64)(pB->nCol + 1));
  char **azTaken = (char **)sqlite3_malloc64(sizeof(char *) * (sqlite3_uint64)(pB->nCol + p->nPart + 1));
  memset(&parse, 0, sizeof(parse));
  parse.p = p;
  parse.pzErr = pzErr;
  if (aiInc == NULL || azTaken == NULL) rc = SQLITE_NOMEM;
  /* Included columns first: their names decide how expression parts are named. */
  if (rc == SQLITE_OK && p->zInclude && strcmp(p->zInclude, "*") == 0) {
    for (i = 0; i < pB->nCol; i++) {
      for (j = 0; j < p->nPart; j++) {
        if (p->aPart[j].eKind == IDX_PART_COLUMN &&
            sqlite3_stricmp(p->aPart[j].zExpr, pB->aCol[i].zName) == 0)
          break;
      }
      if (j == p->nPart) aiInc[nInc++] = i;
    }
  } else if (rc == SQLITE_OK && p->zInclude && p->zInclude[0]) {
    rc = idxSplit(p->zInclude, idxParseInclude, &parse);
    for (i = 0; i < parse.nName && rc == SQLITE_OK; i++) {
      int iCol = idxBaseColumn(pB, parse.azName[i]);
      if (iCol < 0) {
        *pzErr = sqlite3_mprintf("index_table: table '%s' has no column '%s' (include)", p->zBase,
                                 parse.azName[i]);
        rc = SQLITE_ERROR;
      } else if (nInc < pB->nCol) {
        aiInc[nInc++] = iCol;
      }
    }
  }
  for (i = 0; i < nInc && rc == SQLITE_OK; i++) azTaken[i] = pB->aCol[aiInc[i]].zName;
  if (rc == SQLITE_OK) {
    p->aCol = (IdxCol *)sqlite3_malloc64(sizeof(IdxCol) * (sqlite3_uint64)(p->nPart + 1 + nInc));
    if (p->aCol == NULL) rc = SQLITE_NOMEM;
  }
  for (i = 0; i < p->nPart && rc == SQLITE_OK; i++) {
    IdxPart *pPart = &p->aPart[i];
    if (pPart->eKind == IDX_PART_COLUMN) {
      int iCol = idxBaseColumn(pB, pPart->zExpr);
      if (iCol < 0) {
        *pzErr = sqlite3_mprintf("index_table: table '%s' has no column '%s' (key part %d)", p->zBase,
                                 pPart->zExpr, i + 1);
        rc = SQLITE_ERROR;
        break;
      }
      rc = idxAddCol(p, pPart->zName ? pPart->zName : pB->aCol[iCol].zName, pB->aCol[iCol].zType,
                     pB->aCol[iCol].zColl);
    } else {
      int *abRead = (int *)sqlite3_malloc64(sizeof(int) * (sqlite3_uint64)(pB->nCol + 1));
      int nRead = 0, iRead = -1;
      char zDefault[24];
      const char *zName = pPart->zName;
      if (abRead == NULL) {
        rc = SQLITE_NOMEM;
        break;
      }
      memset(abRead, 0, sizeof(int) * (size_t)(pB->nCol + 1));
      rc = idxProbe(p, pB, pPart->zExpr, pPart->eKind == IDX_PART_EACH ? "each() argument" : "key part",
                    abRead, pzErr);
      for (j = 0; j < pB->nCol; j++) {
        if (abRead[j]) nRead++, iRead = j;
      }
      sqlite3_free(abRead);
      sqlite3_snprintf(sizeof(zDefault), zDefault, "key%d", i + 1);
      if (zName == NULL) {
        zName = zDefault;
        if (nRead == 1 && !idxNameTaken(pB->aCol[iRead].zName, azTaken, nInc + i))
          zName = pB->aCol[iRead].zName;
      }
      if (rc == SQLITE_OK) rc = idxAddCol(p, zName, "", NULL);
    }
    if (rc == SQLITE_OK) azTaken[nInc + i] = p->aCol[i].zName;
  }
  if (rc == SQLITE_OK) rc = idxAddCol(p, "rowid", "INTEGER", NULL);
  for (i = 0; i < nInc && rc == SQLITE_OK; i++) {
    const IdxCol *pCol = &pB->aCol[aiInc[i]];
    rc = idxAddCol(p, pCol->zName, pCol->zType, pCol->zColl);
  }
  /* Names: unique, and neither "rowid" nor the table's own name (the command column). */
  for (i = 0; i < p->nCol && rc == SQLITE_OK; i++) {
    if (i != p->nPart && (sqlite3_stricmp(p->aCol[i].zName, "rowid") == 0)) {
      *pzErr = sqlite3_mprintf("index_table: a column cannot be named 'rowid' (it is the base rowid)");
      rc = SQLITE_ERROR;
    } else if (sqlite3_stricmp(p->aCol[i].zName, p->zName) == 0) {
      *pzErr = sqlite3_mprintf(
          "index_table: a column cannot be named '%s' like the table (its command column)", p->zName);
      rc = SQLITE_ERROR;
    }
    for (j = 0; j < i && rc == SQLITE_OK; j++) {
      if (sqlite3_stricmp(p->aCol[i].zName, p->aCol[j].zName) == 0) {
        *pzErr = sqlite3_mprintf("index_table: column name '%s' is used twice; name key parts with AS",
                                 p->aCol[i].zName);
        rc = SQLITE_ERROR;
      }
    }
  }
  for (i = 0; i < parse.nName; i++) sqlite3_free(parse.azName[i]);
  sqlite3_free(parse.azName);
  sqlite3_free(aiInc);
  sqlite3_free(azTaken);
  return rc;
}

/* Create "<name>_data" (with its index by rowid) and "<name>_log". */
static int idxCreateShadow(idxtab_vtab *p) {
  NosqlBuffer b = {0, 0, 0};
  int rc = SQLITE_OK, i;
  nosqlBufferAppendf(&rc, &b, "CREATE TABLE \"%w\".\"%w_data\"(", p->zDb, p->zName);
  for (i = 0; i < p->nCol; i++) {
    if (i) nosqlBufferAppend(&rc, &b, ", ", 2);
    idxAppendColDef(&rc, &b, &p->aCol[i]);
  }
  nosqlBufferAppend(&rc, &b, ", PRIMARY KEY(", -1);
  for (i = 0; i <= p->nPart; i++) nosqlBufferAppendf(&rc, &b, "%s\"%w\"", i ? ", " : "", p->aCol[i].zName);
  /* The same columns rowid first: an index by base row that follows the table through renames. */
  nosqlBufferAppend(&rc, &b, "), UNIQUE(\"rowid\"", -1);
  for (i = 0; i < p->nPart; i++) nosqlBufferAppendf(&rc, &b, ", \"%w\"", p->aCol[i].zName);
  nosqlBufferAppend(&rc, &b, ")) WITHOUT ROWID", -1);
  if (rc == SQLITE_OK) rc = sqlite3_exec(p->db, (const char *)b.a, 0, 0, 0);
  nosqlBufferFree(&b);
  if (rc == SQLITE_OK) {
    rc = idxExec(p->db,
                 sqlite3_mprintf("CREATE TABLE \"%w\".\"%w_log\"(r INTEGER PRIMARY KEY)", p->zDb, p->zName));
  }
  return rc;
}

/*
** xConnect's work: the columns come from "<name>_data" as stored (its
** declared types and collations), checked against the arguments. A
** missing or different shadow table leaves p->zDamage set: the table
** still connects (so that DROP TABLE works) and every use then fails with
** SQLITE_CORRUPT_VTAB.
*/
static int idxLoadShadow(idxtab_vtab *p) {
  char *zShadow = sqlite3_mprintf("%s_data", p->zName);
  int rc, i, nPk = 0, *aHidden = NULL, *aPk = NULL;
  const char *zWhy = NULL;
  if (zShadow == NULL) return SQLITE_NOMEM;
  rc = idxReadColumns(p->db, p->zDb, zShadow, &p->aCol, &aHidden, &aPk, &p->nCol);
  sqlite3_free(zShadow);
  for (i = 0; i < p->nCol; i++) {
    if (aPk[i] == i + 1) nPk++;
  }
  sqlite3_free(aHidden);
  sqlite3_free(aPk);
  if (rc == SQLITE_OK && p->nCol == 0) {
    zWhy = "its shadow table is missing";
  } else if (rc == SQLITE_OK && (p->nCol <= p->nPart || nPk != p->nPart + 1 ||
                                 sqlite3_stricmp(p->aCol[p->nPart].zName, "rowid") != 0)) {
    zWhy = "its shadow table's columns do not match its key";
  }
  for (i = 0; rc == SQLITE_OK && zWhy == NULL && i < p->nCol; i++) {
    /* Renamed to a column's name by an older version (idxRename refuses it now). */
    if (sqlite3_stricmp(p->aCol[i].zName, p->zName) == 0) zWhy = "its name is also a column's";
  }
  if (rc == SQLITE_OK && zWhy) {
    p->zDamage = sqlite3_mprintf("index_table '%s' is damaged: %s; DROP TABLE \"%w\" and create it again",
                                 p->zName, zWhy, p->zName);
    if (p->zDamage == NULL) rc = SQLITE_NOMEM;
    /* Declare what the arguments say, so that the table can be dropped. */
    idxColClear(p->aCol, p->nCol);
    p->nCol = 0;
    p->aCol = (IdxCol *)sqlite3_malloc64(sizeof(IdxCol) * (sqlite3_uint64)(p->nPart + 1));
    if (p->aCol == NULL) return SQLITE_NOMEM;
    for (nPk = 0; nPk < p->nPart && rc == SQLITE_OK; nPk++) {
      char zName[24];
      const char *zCol = p->aPart[nPk].zName;
      sqlite3_snprintf(sizeof(zName), zName, "key%d", nPk + 1);
      /* Never the table's name: that is the command column's. */
      if (zCol == NULL || sqlite3_stricmp(zCol, p->zName) == 0) zCol = zName;
      rc = idxAddCol(p, sqlite3_stricmp(zCol, p->zName) == 0 ? "key" : zCol, "", NULL);
    }
    if (rc == SQLITE_OK) rc = idxAddCol(p, "rowid", "INTEGER", NULL);
  }
  return rc;
}

/* Declare the virtual table from p->aCol. */
static int idxDeclare(idxtab_vtab *p, char **pzErr) {
  NosqlBuffer b = {0, 0, 0};
  int rc = SQLITE_OK, i;
  nosqlBufferAppend(&rc, &b, "CREATE TABLE x(", -1);
  for (i = 0; i < p->nCol; i++) {
    if (i == p->nPart) continue;
    idxAppendColDef(&rc, &b, &p->aCol[i]);
    nosqlBufferAppend(&rc, &b, ", ", 2);
  }
  /* SQLite wants one primary key column in a writable WITHOUT ROWID virtual
  ** table: the command column, whose value is the entry's identity. */
  nosqlBufferAppendf(&rc, &b, "\"rowid\" INTEGER HIDDEN, \"%w\" HIDDEN PRIMARY KEY) WITHOUT ROWID", p->zName);
  if (rc == SQLITE_OK) {
    rc = sqlite3_declare_vtab(p->db, (const char *)b.a);
    if (rc != SQLITE_OK && rc != SQLITE_NOMEM) {
      *pzErr = sqlite3_mprintf("index_table: cannot declare '%s': %s", p->zName, sqlite3_errmsg(p->db));
    }
    /* Reads and commands touch only the index and its base: usable in
    ** views and triggers with trusted_schema=OFF, as FTS5 tables are. */
    if (rc == SQLITE_OK) sqlite3_vtab_config(p->db, SQLITE_VTAB_INNOCUOUS);
  }
  nosqlBufferFree(&b);
  return rc;
}

static int idxConnectImpl(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                          char **pzErr, int bCreate) {
  idxtab_vtab *p = (idxtab_vtab *)sqlite3_malloc64(sizeof(*p));
  IdxBase base;
  int rc;
  memset(&base, 0, sizeof(base));
  *ppVtab = NULL;
  if (p == NULL) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->db = db;
  p->reads.nSlot = IDX_STMT_CACHE;
  p->zDb = sqlite3_mprintf("%s", argv[1]);
  p->zName = sqlite3_mprintf("%s", argv[2]);
  rc = (p->zDb && p->zName) ? SQLITE_OK : SQLITE_NOMEM;
  /* argv is a copy (idxConnectCopy): a statement run below may reset the schema the original lives in. */
  if (rc == SQLITE_OK) rc = idxParseArgs(p, argc, argv, pzErr);
  if (rc == SQLITE_OK && bCreate) rc = nosqlVtabEmptyArg(db, "index_table", p->zDb, p->zName, pzErr);
  if (rc == SQLITE_OK && bCreate) {
    rc = idxBaseLoad(p, &base, pzErr);
    if (rc == SQLITE_OK && base.zIpk == NULL) {
      /* The entries hold base rowids: they must be ones VACUUM keeps. */
      *pzErr = sqlite3_mprintf(
          "index_table: base table '%s' has no INTEGER PRIMARY KEY: VACUUM may renumber its rowids and the "
          "index table would point at the wrong rows; declare a column INTEGER PRIMARY KEY",
          p->zBase);
      rc = SQLITE_ERROR;
    }
    if (rc == SQLITE_OK) rc = idxResolve(p, &base, pzErr);
    /* Declared before any other statement runs in this xCreate. */
    if (rc == SQLITE_OK) rc = idxDeclare(p, pzErr);
    if (rc == SQLITE_OK) rc = idxCreateShadow(p);
    if (rc == SQLITE_OK) rc = idxCreateTriggers(p, &base, pzErr);
    if (rc == SQLITE_OK) {
      rc = idxBatch(p, &base, 1);
      if (rc != SQLITE_OK && p->base.zErrMsg) {
        *pzErr = sqlite3_mprintf("%s", p->base.zErrMsg);
      }
    }
    if (rc != SQLITE_OK && *pzErr == NULL && rc != SQLITE_NOMEM) {
      *pzErr = sqlite3_mprintf("index_table: cannot create '%s': %s", p->zName, sqlite3_errmsg(db));
    }
  } else if (rc == SQLITE_OK) {
    rc = idxLoadShadow(p);
    if (rc == SQLITE_OK) rc = idxDeclare(p, pzErr);
  }
  idxBaseClear(&base);
  if (rc != SQLITE_OK) {
    idxFree(p);
    return rc;
  }
  /* A reference of its own: the module's may go first (a second load of
  ** the extension replaces it). */
  p->pReg = (IdxRegistry *)pAux;
  nosqlConnSharedRef(p->pReg);
  p->pNext = p->pReg->pFirst;
  p->pReg->pFirst = p;
  *ppVtab = &p->base;
  return SQLITE_OK;
}

/* On a copy of argv: resolving the base runs a statement while the options are still to be read. */
static int idxConnectCopy(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                          char **pzErr, int bCreate) {
  char **azArg = nosqlArgvDup(argc, argv);
  int rc;
  if (azArg == NULL) return SQLITE_NOMEM;
  rc = idxConnectImpl(db, pAux, argc, (const char *const *)azArg, ppVtab, pzErr, bCreate);
  sqlite3_free(azArg);
  return rc;
}

static int idxCreate(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                     char **pzErr) {
  return idxConnectCopy(db, pAux, argc, argv, ppVtab, pzErr, 1);
}

static int idxConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                      char **pzErr) {
  return idxConnectCopy(db, pAux, argc, argv, ppVtab, pzErr, 0);
}

static int idxDisconnect(sqlite3_vtab *pVtab) {
  idxFree((idxtab_vtab *)pVtab);
  return SQLITE_OK;
}

/* DROP TABLE: the triggers, then the shadow tables. */
static int idxDestroy(sqlite3_vtab *pVtab) {
  idxtab_vtab *p = (idxtab_vtab *)pVtab;
  int rc;
  idxStmtClear(p);
  rc = idxDropTriggers(p, p->zName);
  if (rc == SQLITE_OK)
    rc = idxExec(p->db, sqlite3_mprintf("DROP TABLE IF EXISTS \"%w\".\"%w_data\"", p->zDb, p->zName));
  if (rc == SQLITE_OK)
    rc = idxExec(p->db, sqlite3_mprintf("DROP TABLE IF EXISTS \"%w\".\"%w_log\"", p->zDb, p->zName));
  if (rc == SQLITE_OK) idxFree(p);
  return rc;
}

/*
** ALTER TABLE ... RENAME TO zNew: the shadow tables follow, and the
** triggers are made again under the new name (SQLite cannot rename a
** trigger). Without the base table there are no triggers to move.
*/
static int idxRename(sqlite3_vtab *pVtab, const char *zNew) {
  idxtab_vtab *p = (idxtab_vtab *)pVtab;
  IdxBase base;
  char *zErr = NULL, *zOld = p->zName;
  int rc, bBase;
  static const char *const azShadow[] = {"_data", "_log"};
  int i;
  if (p->zDamage) {
    nosqlVtabError(pVtab, "%s", p->zDamage);
    return SQLITE_CORRUPT_VTAB;
  }
  for (i = 0; i < p->nCol; i++) {
    if (sqlite3_stricmp(p->aCol[i].zName, zNew) == 0) {
      nosqlVtabError(pVtab, "index_table: cannot rename '%s' to '%s', the name of one of its columns",
                     p->zName, zNew);
      return SQLITE_ERROR;
    }
  }
  idxStmtClear(p);
  /* Without its base table (SQLITE_ERROR) the index table still renames. */
  rc = idxBaseLoad(p, &base, &zErr);
  bBase = rc == SQLITE_OK;
  sqlite3_free(zErr);
  zErr = NULL;
  if (rc != SQLITE_OK && rc != SQLITE_ERROR) return rc;
  rc = idxDropTriggers(p, zOld);
  for (i = 0; i < 2 && rc == SQLITE_OK; i++) {
    rc = idxExec(p->db, sqlite3_mprintf("ALTER TABLE \"%w\".\"%w%s\" RENAME TO \"%w%s\"", p->zDb, zOld,
                                        azShadow[i], zNew, azShadow[i]));
    if (rc != SQLITE_OK && rc != SQLITE_NOMEM) {
      nosqlVtabError(pVtab, "index_table: cannot rename '%s' to '%s': %s", zOld, zNew, sqlite3_errmsg(p->db));
    }
  }
  if (rc == SQLITE_OK) {
    p->zName = sqlite3_mprintf("%s", zNew);
    if (p->zName == NULL) {
      p->zName = zOld;
      rc = SQLITE_NOMEM;
    } else {
      sqlite3_free(zOld);
    }
  }
  if (rc == SQLITE_OK && bBase) {
    rc = idxCreateTriggers(p, &base, &zErr);
    if (zErr) {
      nosqlVtabError(pVtab, "%s", zErr);
      sqlite3_free(zErr);
    }
  }
  if (bBase) idxBaseClear(&base);
  return rc;
}

/*--------------------------------------------------------------------------
** Reads.
*/

/* Planning slots: the columns of "<name>_data" (parts, rowid, included), at most NOSQL_PLAN_MAX_COL. */
static int idxSlots(const idxtab_vtab *p) {
  return p->nCol < NOSQL_PLAN_MAX_COL ? p->nCol : NOSQL_PLAN_MAX_COL;
}

/* The virtual table column of slot (shadow column) s, and back. */
static int idxSlotColumn(const idxtab_vtab *p, int s) {
  return s < p->nPart ? s : s == p->nPart ? p->nCol - 1 : s - 1;
}
static int idxColumnSlot(const idxtab_vtab *p, int iCol) {
  return iCol < p->nPart ? iCol : iCol == p->nCol - 1 ? p->nPart : iCol < p->nCol - 1 ? iCol + 1 : -1;
}

/*
** Whether the base table still exists, and how many of the index table's
** three triggers are on it (reads refuse to answer for a dropped base, for
** one dropped and created again, which took the triggers with it, and for
** a new table of the base's name after the base was renamed, which took
** them along).
*/
static int idxBaseExists(idxtab_vtab *p, int *pbExists, int *pnTrigger) {
  sqlite3_stmt *pStmt = NULL;
  char *zSql = sqlite3_mprintf(
      "SELECT (SELECT count(*) FROM \"%w\".sqlite_schema WHERE type = 'table' AND name = ?1 COLLATE NOCASE), "
      "(SELECT count(*) FROM \"%w\".sqlite_schema WHERE type = 'trigger' AND tbl_name = ?1 COLLATE NOCASE "
      "AND name IN (?2 || '%s', ?2 || '%s', ?2 || '%s') COLLATE NOCASE)",
      p->zDb, p->zDb, azIdxTrigger[0], azIdxTrigger[1], azIdxTrigger[2]);
  int rc;
  *pbExists = *pnTrigger = 0;
  if (zSql == NULL) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_text(pStmt, 1, p->zBase, -1, SQLITE_STATIC);
  sqlite3_bind_text(pStmt, 2, p->zName, -1, SQLITE_STATIC);
  if (sqlite3_step(pStmt) == SQLITE_ROW) {
    *pbExists = sqlite3_column_int(pStmt, 0) > 0;
    *pnTrigger = sqlite3_column_int(pStmt, 1);
  }
  return sqlite3_finalize(pStmt);
}

/*
** Every constraint on a column of "<name>_data" is pushed into the read
** and omitted: the shadow column has the declared type and collation of
** the virtual table's column, so it compares exactly as SQLite would. The
** estimate follows the primary key: equality on leading key parts, then
** a range on the next one, or the rowid index.
*/
static int idxBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo) {
  idxtab_vtab *p = (idxtab_vtab *)pVtab;
  NosqlPlanCol aCol[NOSQL_PLAN_MAX_COL];
  NosqlPlan plan;
  char zTail[3 + 2 * (NOSQL_PLAN_MAX_COL + 2) + 32];
  int nSlot = idxSlots(p), s, i, rc, nEq = 0, bRange = 0, bRowidEq, nOther = 0, bIn = 0, bExists = 0;
  double rRows, rFull = 1e6;
  if (p->zDamage == NULL) {
    /* Any failure of the check but a missing table (an interrupt, a busy
    ** schema) is not the planner's: SQLite would report it as SQLITE_ERROR.
    ** The read then runs and meets the same condition itself. */
    int nTrigger = 0;
    rc = idxBaseExists(p, &bExists, &nTrigger);
    if (rc == SQLITE_NOMEM) return rc;
    if (rc == SQLITE_OK && !bExists) {
      char *zErr = NULL;
      idxBaseMissing(p, &zErr);
      sqlite3_free(pVtab->zErrMsg);
      pVtab->zErrMsg = zErr;
      return zErr ? SQLITE_ERROR : SQLITE_NOMEM;
    }
    if (rc == SQLITE_OK && nTrigger < 3) {
      nosqlVtabError(
          pVtab,
          "index_table '%s': %d of its 3 triggers on '%s' are missing (was the table dropped or renamed and "
          "created again?); INSERT INTO \"%w\"(\"%w\") VALUES('rebuild') makes them again",
          p->zName, 3 - nTrigger, p->zBase, p->zName, p->zName);
      return SQLITE_ERROR;
    }
  }
  for (s = 0; s < nSlot; s++) {
    aCol[s].iColumn = idxSlotColumn(p, s);
    aCol[s].mOp = NOSQL_OP_EQ | NOSQL_OP_RANGE;
    aCol[s].zColl = p->aCol[s].zColl;
    aCol[s].bExact = 1;
    aCol[s].bRequired = 0;
  }
  rc = nosqlPlanFind(pInfo, aCol, nSlot, &plan);
  if (rc != SQLITE_OK) return rc;
  /* Only an equality can be an IN list (served one value at a time). */
  for (s = 0; s < nSlot; s++) {
    if (plan.aiEq[s] >= 0 && sqlite3_vtab_in(pInfo, plan.aiEq[s], -1)) bIn = 1;
  }
  while (nEq < p->nPart && plan.aiEq[nEq] >= 0) nEq++;
  if (nEq < p->nPart) bRange = plan.aiLo[nEq] >= 0 || plan.aiHi[nEq] >= 0;
  bRowidEq = plan.aiEq[p->nPart] >= 0;
  for (s = 0; s < nSlot; s++) {
    int bUsed = plan.aiEq[s] >= 0 || plan.aiLo[s] >= 0 || plan.aiHi[s] >= 0;
    if (bUsed && s >= nEq && !(s == nEq && bRange) && !(s == p->nPart && bRowidEq)) nOther++;
  }
  /* ORDER BY: the key order after the parts pinned by equality, then the rowid. */
  zTail[0] = 0;
  if (pInfo->nOrderBy > 0 && !bIn) {
    /* A part pinned by equality is in order either way: its terms are
    ** skipped, and the direction is that of the first other term. When
    ** every term is skipped the order is consumed with no ORDER BY at all. */
    int iNext = nEq, bDesc = -1, n = 3, bOk = 1;
    memcpy(zTail, "by ", 3);
    for (i = 0; i < pInfo->nOrderBy && bOk; i++) {
      int iSlot = idxColumnSlot(p, pInfo->aOrderBy[i].iColumn);
      if (iSlot >= 0 && iSlot < nEq) continue;
      if (bDesc < 0) bDesc = pInfo->aOrderBy[i].desc;
      if (iSlot != iNext || iSlot > p->nPart || pInfo->aOrderBy[i].desc != bDesc) bOk = 0;
      iNext++;
      zTail[n++] = (char)('a' + iSlot);
      zTail[n++] = bDesc ? '-' : '+';
    }
    zTail[n] = 0;
    if (bOk) pInfo->orderByConsumed = 1;
    if (!bOk || n == 3) zTail[0] = 0;
  }
  if (zTail[0]) plan.zTail = zTail;
  rc = nosqlPlanCommit(pInfo, aCol, &plan);
  if (rc != SQLITE_OK) return rc;
  if (nEq == p->nPart && bRowidEq) {
    rRows = 1;
    pInfo->idxNum = 1;
    pInfo->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
  } else if (nEq > 0 || bRowidEq) {
    rRows = bRowidEq ? (idxHasEach(p) ? 8 : 1) : rFull;
    for (i = 0; i < nEq && rRows > 2; i++) rRows /= 1000;
    if (bRange) rRows /= 4;
  } else {
    rRows = bRange ? rFull / 4 : rFull;
  }
  if (rRows < 1) rRows = 1;
  pInfo->estimatedCost = (nEq > 0 || bRowidEq || bRange) ? 20 + rRows : rFull;
  for (i = 0; i < nOther && rRows > 1; i++) rRows /= 2;
  pInfo->estimatedRows = (sqlite3_int64)rRows;
  return SQLITE_OK;
}

static int idxOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor) {
  (void)pVtab;
  return nosqlCursorNew(sizeof(idxtab_cursor), ppCursor) ? SQLITE_OK : SQLITE_NOMEM;
}

/* Give the cursor's statement back (to the cache) or finalize it. */
static void idxCursorReset(idxtab_cursor *pCur) {
  if (pCur->pStmt) nosqlStmtCacheGive(pCur->pCached, pCur->pStmt);
  pCur->pStmt = NULL;
  pCur->pCached = NULL;
  pCur->bEof = 1;
}

static int idxClose(sqlite3_vtab_cursor *pCursor) {
  idxCursorReset((idxtab_cursor *)pCursor);
  sqlite3_free(pCursor);
  return SQLITE_OK;
}

/*
** The read for plan idxStr: "SELECT <columns> FROM <name>_data WHERE ...
** ORDER BY ...", the ORDER BY from its tail ("by " and the terms).
*/
static char *idxReadSql(idxtab_vtab *p, const NosqlPlanArg *aArg, int nSlot, const char *zTail) {
  NosqlBuffer b = {0, 0, 0};
  int rc = SQLITE_OK, s, nParam = 0;
  nosqlBufferAppend(&rc, &b, "SELECT ", 7);
  idxAppendDataCols(&rc, &b, p, "");
  nosqlBufferAppendf(&rc, &b, " FROM \"%w\".\"%w_data\" WHERE 1", p->zDb, p->zName);
  for (s = 0; s < nSlot; s++) {
    if (aArg[s].pEq) nosqlBufferAppendf(&rc, &b, " AND \"%w\" = ?%d", p->aCol[s].zName, ++nParam);
    if (aArg[s].pLo) {
      nosqlBufferAppendf(&rc, &b, " AND \"%w\" %s ?%d", p->aCol[s].zName, aArg[s].bLoIncl ? ">=" : ">",
                         ++nParam);
    }
    if (aArg[s].pHi) {
      nosqlBufferAppendf(&rc, &b, " AND \"%w\" %s ?%d", p->aCol[s].zName, aArg[s].bHiIncl ? "<=" : "<",
                         ++nParam);
    }
  }
  if (strncmp(zTail, "by ", 3) == 0 && zTail[3]) {
    const char *z;
    nosqlBufferAppend(&rc, &b, " ORDER BY ", 10);
    for (z = zTail + 3; z[0] >= 'a' && z[0] < 'a' + nSlot && (z[1] == '+' || z[1] == '-'); z += 2) {
      nosqlBufferAppendf(&rc, &b, "%s\"%w\"%s", z == zTail + 3 ? "" : ", ", p->aCol[z[0] - 'a'].zName,
                         z[1] == '-' ? " DESC" : "");
    }
  }
  if (rc != SQLITE_OK) {
    nosqlBufferFree(&b);
    return NULL;
  }
  return (char *)b.a;
}

static int idxFilter(sqlite3_vtab_cursor *pCursor, int idxNum, const char *idxStr, int argc,
                     sqlite3_value **argv) {
  idxtab_cursor *pCur = (idxtab_cursor *)pCursor;
  idxtab_vtab *p = (idxtab_vtab *)pCursor->pVtab;
  NosqlPlanArg aArg[NOSQL_PLAN_MAX_COL];
  int nSlot = idxSlots(p), rc, s, nParam = 0;
  (void)idxNum;
  idxCursorReset(pCur);
  if (p->zDamage) {
    nosqlVtabError(&p->base, "%s", p->zDamage);
    return SQLITE_CORRUPT_VTAB;
  }
  if (nosqlPlanArgs(idxStr, argc, argv, aArg, nSlot) != SQLITE_OK) {
    nosqlVtabError(&p->base, "index_table: bad plan '%s'", idxStr ? idxStr : "");
    return SQLITE_ERROR;
  }
  /* A cached read for this plan, unless another cursor holds it; else a new one, cached if there is room. */
  pCur->pStmt = nosqlStmtCacheTake(&p->reads, idxStr ? idxStr : "", &pCur->pCached);
  if (pCur->pStmt == NULL) {
    char *zSql = idxReadSql(p, aArg, nSlot, nosqlPlanTail(idxStr));
    if (zSql == NULL) return SQLITE_NOMEM;
    rc = sqlite3_prepare_v3(p->db, zSql, -1, SQLITE_PREPARE_PERSISTENT, &pCur->pStmt, 0);
    sqlite3_free(zSql);
    if (rc != SQLITE_OK) {
      nosqlVtabError(&p->base, "index_table '%s': %s", p->zName, sqlite3_errmsg(p->db));
      return rc;
    }
    nosqlStmtCacheKeep(&p->reads, idxStr ? idxStr : "", pCur->pStmt, &pCur->pCached);
  }
  for (s = 0, rc = SQLITE_OK; s < nSlot && rc == SQLITE_OK; s++) {
    if (aArg[s].pEq) rc = sqlite3_bind_value(pCur->pStmt, ++nParam, aArg[s].pEq);
    if (aArg[s].pLo && rc == SQLITE_OK) rc = sqlite3_bind_value(pCur->pStmt, ++nParam, aArg[s].pLo);
    if (aArg[s].pHi && rc == SQLITE_OK) rc = sqlite3_bind_value(pCur->pStmt, ++nParam, aArg[s].pHi);
  }
  if (rc != SQLITE_OK) return rc;
  pCur->bEof = 0;
  return pCursor->pVtab->pModule->xNext(pCursor);
}

static int idxNext(sqlite3_vtab_cursor *pCursor) {
  idxtab_cursor *pCur = (idxtab_cursor *)pCursor;
  return nosqlCursorStep(pCursor->pVtab, pCur->pStmt, "index_table", &pCur->bEof);
}

static int idxEof(sqlite3_vtab_cursor *pCursor) { return ((idxtab_cursor *)pCursor)->bEof; }

/*
** The entry's identity, the value of the command column (the declared
** primary key): the key parts and the rowid, each as a type byte and its
** bytes (lengths before text and blobs), so that two entries never share
** one. SQLite reads it to tell rows apart in an OR of several plans.
*/
static int idxEntryId(idxtab_vtab *p, sqlite3_stmt *pStmt, sqlite3_context *ctx) {
  NosqlBuffer b = {0, 0, 0};
  int rc = SQLITE_OK, i;
  for (i = 0; i <= p->nPart; i++) {
    unsigned char a[9];
    int eType = sqlite3_column_type(pStmt, i), k;
    sqlite3_uint64 u = 0;
    a[0] = (unsigned char)eType;
    if (eType == SQLITE_INTEGER) {
      u = (sqlite3_uint64)sqlite3_column_int64(pStmt, i);
    } else if (eType == SQLITE_FLOAT) {
      double r = sqlite3_column_double(pStmt, i);
      memcpy(&u, &r, 8);
    } else {
      u = (sqlite3_uint64)sqlite3_column_bytes(pStmt, i);
    }
    for (k = 0; k < 8; k++) a[1 + k] = (unsigned char)(u >> (56 - 8 * k));
    nosqlBufferAppend(&rc, &b, a, 9);
    if (eType == SQLITE_TEXT || eType == SQLITE_BLOB) {
      const void *z =
          eType == SQLITE_TEXT ? (const void *)sqlite3_column_text(pStmt, i) : sqlite3_column_blob(pStmt, i);
      if (z) nosqlBufferAppend(&rc, &b, z, sqlite3_column_bytes(pStmt, i));
    }
  }
  if (rc == SQLITE_OK) {
    sqlite3_result_blob64(ctx, b.a ? b.a : (unsigned char *)"", (sqlite3_uint64)b.n, SQLITE_TRANSIENT);
  } else {
    sqlite3_result_error_nomem(ctx);
  }
  nosqlBufferFree(&b);
  return rc;
}

static int idxColumn(sqlite3_vtab_cursor *pCursor, sqlite3_context *ctx, int iCol) {
  idxtab_cursor *pCur = (idxtab_cursor *)pCursor;
  idxtab_vtab *p = (idxtab_vtab *)pCursor->pVtab;
  int iSlot = idxColumnSlot(p, iCol);
  if (iSlot >= 0) {
    /* By type: sqlite3_result_text() reuses the register's buffer, where
    ** sqlite3_result_value() allocates a new one for every text value. The
    ** value is read through sqlite3_value_*(), which skip the mutex that
    ** each sqlite3_column_*() call takes: this thread holds it already,
    ** inside the outer statement's step. */
    sqlite3_value *pVal = sqlite3_column_value(pCur->pStmt, iSlot);
    switch (sqlite3_value_type(pVal)) {
      case SQLITE_INTEGER:
        sqlite3_result_int64(ctx, sqlite3_value_int64(pVal));
        break;
      case SQLITE_FLOAT:
        sqlite3_result_double(ctx, sqlite3_value_double(pVal));
        break;
      case SQLITE_TEXT:
        sqlite3_result_text(ctx, (const char *)sqlite3_value_text(pVal), sqlite3_value_bytes(pVal),
                            SQLITE_TRANSIENT);
        break;
      case SQLITE_BLOB:
        sqlite3_result_blob(ctx, sqlite3_value_blob(pVal), sqlite3_value_bytes(pVal), SQLITE_TRANSIENT);
        break;
      default:
        break;
    }
    return SQLITE_OK;
  }
  return idxEntryId(p, pCur->pStmt, ctx);
}

static int idxRowid(sqlite3_vtab_cursor *pCursor, sqlite_int64 *pRowid) {
  idxtab_cursor *pCur = (idxtab_cursor *)pCursor;
  *pRowid = sqlite3_column_int64(pCur->pStmt, ((idxtab_vtab *)pCursor->pVtab)->nPart);
  return SQLITE_OK;
}

/*--------------------------------------------------------------------------
** Commands: INSERT INTO t(t) VALUES('rebuild' | 'refresh' | 'check' |
** 'integrity-check'). Any other write is refused.
*/
static int idxCommand(idxtab_vtab *p, const char *zCmd) {
  IdxBase base;
  char *zErr = NULL;
  int rc, eCmd;
  if (zCmd == NULL) return SQLITE_NOMEM;
  eCmd = sqlite3_stricmp(zCmd, "rebuild") == 0           ? 0
         : sqlite3_stricmp(zCmd, "refresh") == 0         ? 1
         : sqlite3_stricmp(zCmd, "check") == 0           ? 2
         : sqlite3_stricmp(zCmd, "integrity-check") == 0 ? 3
                                                         : -1;
  if (eCmd < 0) {
    nosqlVtabError(
        &p->base,
        "index_table: unknown command '%s' (expected 'refresh', 'rebuild', 'check' or 'integrity-check')",
        zCmd);
    return SQLITE_ERROR;
  }
  if (p->zDamage) {
    nosqlVtabError(&p->base, "%s", p->zDamage);
    return SQLITE_CORRUPT_VTAB;
  }
  rc = idxBaseLoad(p, &base, &zErr);
  if (rc == SQLITE_OK) {
    if (eCmd == 0) {
      rc = idxBatch(p, &base, 1);
      if (rc == SQLITE_OK) rc = idxCreateTriggers(p, &base, &zErr);
    } else if (eCmd == 1) {
      rc = idxBatch(p, &base, 0);
    } else {
      rc = idxCheck(p, &base, eCmd == 3);
    }
    idxBaseClear(&base);
  }
  if (zErr) {
    nosqlVtabError(&p->base, "%s", zErr);
    sqlite3_free(zErr);
  } else if (rc != SQLITE_OK && rc != SQLITE_NOMEM && p->base.zErrMsg == NULL) {
    nosqlVtabError(&p->base, "index_table '%s': %s", p->zName, sqlite3_errmsg(p->db));
  }
  return rc;
}

static int idxUpdate(sqlite3_vtab *pVtab, int argc, sqlite3_value **argv, sqlite_int64 *pRowid) {
  idxtab_vtab *p = (idxtab_vtab *)pVtab;
  (void)pRowid;
  if (argc == 2 + p->nCol + 1 && sqlite3_value_type(argv[0]) == SQLITE_NULL &&
      sqlite3_value_type(argv[2 + p->nCol]) != SQLITE_NULL) {
    return idxCommand(p, (const char *)sqlite3_value_text(argv[2 + p->nCol]));
  }
  nosqlVtabError(pVtab, "index_table: '%s' is read-only: write to its base table '%s'", p->zName, p->zBase);
  return SQLITE_READONLY;
}

static sqlite3_module idxModule = {
    /* iVersion    */ 3,
    /* xCreate     */ idxCreate,
    /* xConnect    */ idxConnect,
    /* xBestIndex  */ idxBestIndex,
    /* xDisconnect */ idxDisconnect,
    /* xDestroy    */ idxDestroy,
    /* xOpen       */ idxOpen,
    /* xClose      */ idxClose,
    /* xFilter     */ idxFilter,
    /* xNext       */ idxNext,
    /* xEof        */ idxEof,
    /* xColumn     */ idxColumn,
    /* xRowid      */ idxRowid,
    /* xUpdate     */ idxUpdate,
    /* xBegin      */ 0,
    /* xSync       */ 0,
    /* xCommit     */ 0,
    /* xRollback   */ 0,
    /* xFindMethod */ 0,
    /* xRename     */ idxRename,
    /* xSavepoint  */ 0,
    /* xRelease    */ 0,
    /* xRollbackTo */ 0,
    /* xShadowName: none. The triggers, ordinary SQL that also runs in
    ** connections without this extension, write <name>_data and
    ** <name>_log; as shadow tables, defensive mode would refuse them every
    ** write to the base table. */
    /* xShadowName */ 0,
};

/*--------------------------------------------------------------------------
** index_table_drift(name [, schema]): the drifted entries, as rows.
**
**   CREATE TABLE index_table_drift(kind TEXT, base_rowid INTEGER, key TEXT,
**     stored TEXT, expected TEXT, pending INTEGER, name HIDDEN, schema HIDDEN);
*/
typedef struct idxdrift_cursor idxdrift_cursor;
typedef struct idxdrift_vtab idxdrift_vtab;
struct idxdrift_vtab {
  sqlite3_vtab base; /* Base class - must be first */
  sqlite3 *db;       /* The connection */
  IdxRegistry *pReg; /* Where the connected index tables are */
};
struct idxdrift_cursor {
  sqlite3_vtab_cursor base; /* Base class - must be first */
  sqlite3_stmt *pStmt;      /* The drift query, or NULL */
  sqlite3_int64 iRow;       /* Rows returned: the rowid */
  int bEof;                 /* No current row */
  sqlite3_value *apArg[2];  /* Copies of name and schema, for the HIDDEN columns */
};

static int idxDriftConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                           char **pzErr) {
  int rc;
  (void)argc;
  (void)argv;
  (void)pzErr;
  rc = nosqlVtabNew(db,
                    "CREATE TABLE x(kind TEXT, base_rowid INTEGER, key TEXT, stored TEXT, expected TEXT, "
                    "pending INTEGER, name HIDDEN, schema HIDDEN)",
                    sizeof(idxdrift_vtab), ppVtab);
  if (rc == SQLITE_OK) {
    ((idxdrift_vtab *)*ppVtab)->db = db;
    ((idxdrift_vtab *)*ppVtab)->pReg = (IdxRegistry *)pAux;
    nosqlConnSharedRef(pAux); /* Its own reference, as an index table's */
  }
  return rc;
}

static int idxDriftDisconnect(sqlite3_vtab *pVtab) {
  nosqlConnSharedUnref(((idxdrift_vtab *)pVtab)->pReg);
  sqlite3_free(pVtab);
  return SQLITE_OK;
}

/* The plan (ext/plan.c): slot a name (required), slot b schema. */
static const NosqlPlanCol aIdxDriftPlan[2] = {{6, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 1},
                                              {7, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0}};

static int idxDriftBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo) {
  (void)pVtab;
  return nosqlPlanInputs(pInfo, aIdxDriftPlan, 2, 1e6, 10);
}

static int idxDriftOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor) {
  (void)pVtab;
  return nosqlCursorNew(sizeof(idxdrift_cursor), ppCursor) ? SQLITE_OK : SQLITE_NOMEM;
}

static int idxDriftClose(sqlite3_vtab_cursor *pCursor) {
  sqlite3_finalize(((idxdrift_cursor *)pCursor)->pStmt);
  nosqlPlanKeepFree(((idxdrift_cursor *)pCursor)->apArg, 2);
  sqlite3_free(pCursor);
  return SQLITE_OK;
}

/* The connected index table zName of schema zDb, or NULL. */
static idxtab_vtab *idxFind(IdxRegistry *pReg, const char *zDb, const char *zName) {
  idxtab_vtab *p;
  for (p = pReg->pFirst; p; p = p->pNext) {
    if (sqlite3_stricmp(p->zDb, zDb) == 0 && sqlite3_stricmp(p->zName, zName) == 0) return p;
  }
  return NULL;
}

static int idxDriftNext(sqlite3_vtab_cursor *pCursor) {
  idxdrift_cursor *pCur = (idxdrift_cursor *)pCursor;
  pCur->iRow++;
  return nosqlCursorStep(pCursor->pVtab, pCur->pStmt, "index_table_drift", &pCur->bEof);
}

static int idxDriftFilter(sqlite3_vtab_cursor *pCursor, int idxNum, const char *idxStr, int argc,
                          sqlite3_value **argv) {
  idxdrift_cursor *pCur = (idxdrift_cursor *)pCursor;
  idxdrift_vtab *pTab = (idxdrift_vtab *)pCursor->pVtab;
  NosqlPlanArg aArg[2];
  const char *zName, *zDb = "main";
  idxtab_vtab *p;
  IdxBase base;
  char *zErr = NULL, *zSql;
  int rc;
  (void)idxNum;
  sqlite3_finalize(pCur->pStmt);
  pCur->pStmt = NULL;
  pCur->bEof = 1;
  pCur->iRow = 0;
  if (nosqlPlanInputArgs(pCursor->pVtab, "index_table_drift(name[, schema])", aIdxDriftPlan, 2, idxStr, argc,
                         argv, aArg) != SQLITE_OK) {
    return SQLITE_ERROR;
  }
  if (nosqlPlanKeep(aArg, 2, pCur->apArg) != SQLITE_OK) return SQLITE_NOMEM;
  zName = (const char *)sqlite3_value_text(aArg[0].pEq);
  if (aArg[1].pEq) zDb = (const char *)sqlite3_value_text(aArg[1].pEq);
  if (zName == NULL || zDb == NULL) {
    nosqlVtabError(pCursor->pVtab, "index_table_drift: the index table's name must be text, not NULL");
    return SQLITE_ERROR;
  }
  p = idxFind(pTab->pReg, zDb, zName);
  if (p == NULL) {
    /* Not connected yet: preparing a read connects it. */
    sqlite3_stmt *pStmt = NULL;
    char *zProbe = sqlite3_mprintf("SELECT 1 FROM \"%w\".\"%w\" WHERE 0", zDb, zName);
    if (zProbe == NULL) return SQLITE_NOMEM;
    rc = sqlite3_prepare_v2(pTab->db, zProbe, -1, &pStmt, 0);
    sqlite3_free(zProbe);
    sqlite3_finalize(pStmt);
    if (rc == SQLITE_NOMEM) return rc;
    p = idxFind(pTab->pReg, zDb, zName);
  }
  if (p == NULL) {
    nosqlVtabError(pCursor->pVtab, "index_table_drift: '%s' is not an index_table of schema '%s'", zName,
                   zDb);
    return SQLITE_ERROR;
  }
  if (p->zDamage) {
    nosqlVtabError(pCursor->pVtab, "%s", p->zDamage);
    return SQLITE_CORRUPT_VTAB;
  }
  rc = idxBaseLoad(p, &base, &zErr);
  if (rc != SQLITE_OK) {
    nosqlVtabError(pCursor->pVtab, "%s", zErr ? zErr : sqlite3_errmsg(pTab->db));
    sqlite3_free(zErr);
    return rc;
  }
  zSql = idxDriftSql(p, &base, 0);
  idxBaseClear(&base);
  if (zSql == NULL) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(pTab->db, zSql, -1, &pCur->pStmt, 0);
  sqlite3_free(zSql);
  if (rc != SQLITE_OK) {
    nosqlVtabError(pCursor->pVtab, "index_table_drift: %s", sqlite3_errmsg(pTab->db));
    return rc;
  }
  pCur->bEof = 0;
  return idxDriftNext(pCursor);
}

static int idxDriftEof(sqlite3_vtab_cursor *pCursor) { return ((idxdrift_cursor *)pCursor)->bEof; }

static int idxDriftColumn(sqlite3_vtab_cursor *pCursor, sqlite3_context *ctx, int iCol) {
  idxdrift_cursor *pCur = (idxdrift_cursor *)pCursor;
  if (iCol < 6) {
    sqlite3_result_value(ctx, sqlite3_column_value(pCur->pStmt, iCol));
  } else {
    nosqlPlanKeptResult(ctx, pCur->apArg[iCol - 6]);
  }
  return SQLITE_OK;
}

static int idxDriftRowid(sqlite3_vtab_cursor *pCursor, sqlite_int64 *pRowid) {
  *pRowid = ((idxdrift_cursor *)pCursor)->iRow;
  return SQLITE_OK;
}

static sqlite3_module idxDriftModule = {
    /* iVersion    */ 0,
    /* xCreate     */ 0,
    /* xConnect    */ idxDriftConnect,
    /* xBestIndex  */ idxDriftBestIndex,
    /* xDisconnect */ idxDriftDisconnect,
    /* xDestroy    */ idxDriftDisconnect,
    /* xOpen       */ idxDriftOpen,
    /* xClose      */ idxDriftClose,
    /* xFilter     */ idxDriftFilter,
    /* xNext       */ idxDriftNext,
    /* xEof        */ idxDriftEof,
    /* xColumn     */ idxDriftColumn,
    /* xRowid      */ idxDriftRowid,
    /* xUpdate     */ 0,
    /* xBegin      */ 0,
    /* xSync       */ 0,
    /* xCommit     */ 0,
    /* xRollback   */ 0,
    /* xFindMethod */ 0,
    /* xRename     */ 0,
    /* xSavepoint  */ 0,
    /* xRelease    */ 0,
    /* xRollbackTo */ 0,
    /* xShadowName */ 0,
};

int indexTableRegister(sqlite3 *db) {
  IdxRegistry *pReg = (IdxRegistry *)nosqlConnShared(db, NOSQL_SHARED_INDEX_TABLE, sizeof(IdxRegistry));
  int rc;
  if (pReg == NULL) return SQLITE_NOMEM;
  rc = sqlite3_create_module_v2(db, "index_table", &idxModule, pReg, nosqlConnSharedUnref);
  if (rc != SQLITE_OK) return rc; /* the destructor has run */
  nosqlConnSharedRef(pReg);
  return sqlite3_create_module_v2(db, "index_table_drift", &idxDriftModule, pReg, nosqlConnSharedUnref);
}
