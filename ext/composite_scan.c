/*
** composite_scan.c: prefix and range scans over composite keys, the
** ordered key-value store's way of querying (technique 8 of the article;
** HBase/Bigtable row-prefix scans, DynamoDB begins_with with continuation,
** Cassandra clustering keys).
**
**   CREATE VIRTUAL TABLE by_region USING composite_scan(
**       user_stats, key, state, city, user_id, sep=':');
**   CREATE VIRTUAL TABLE by_user USING composite_scan(
**       clicks, k, user_id INTEGER, site TEXT, ts INTEGER);
**
** Arguments: an existing table (of the same schema, or "schema.table"),
** its key column, then one
** name per key part, optionally followed by a type, then options:
**
**   sep=X     the key column holds delimited text such as
**             'CA:San Francisco:1042' with separator X (one ASCII character
**             other than '\'). A separator or '\' inside a part is written
**             with a '\' before it (ckey_join() does it); a key with a bare
**             '\', a dangling escape or the wrong number of parts is an
**             error when it is read. Parts are TEXT.
**   (no sep)  the key column holds ckey() blobs. Each part may be declared
**             INTEGER, REAL, TEXT, BLOB or ANY (the default). A typed part
**             holds that type or NULL (anything else is an error when read)
**             and serves equality, ranges and ORDER BY; an ANY part is
**             returned as stored and only filtered by SQLite, because the
**             tuple order of mixed types (NULL < BLOB < TEXT < INTEGER <
**             REAL) is not SQLite's.
**
** The virtual table is read-only and behaves as
**
**   CREATE TABLE by_region(
**     state TEXT COLLATE composite_scan_3a,  -- key parts first; see below
**     city TEXT COLLATE composite_scan_3a,
**     user_id TEXT COLLATE composite_scan_3a_last,
**     key, visits, ...                        -- then every base column
**   );
**
** How it works. Equality on a leading run of parts, then a range (>, >=,
** <, <=) on the next part, become one range [lo, hi) of key values, and the
** scan runs "SELECT key, ... FROM base WHERE key >= ?lo AND key < ?hi ORDER
** BY key [DESC]" on the base table, which its index on the key answers as a
** B-tree range: no LIKE or GLOB, so '%', '_', '*', '[' and 0xFF bytes in
** keys are plain data. Rows come in key order; ORDER BY the parts (after
** the equality ones), ascending or descending, or by the key column, is
** consumed. Constraints on the key column itself (>, >=, <, <=, =) narrow
** the same range: that is the continuation of a paginated scan ("WHERE
** state = 'CA' AND key > :last_key ORDER BY key LIMIT 20", and "key <
** :first_key ORDER BY key DESC" for the previous page). Any other
** constraint is left to SQLite as a filter on the scanned rows, and the
** cost estimate counts those rows.
**
** Delimited text keys sort as whole strings, so a part followed by its
** separator compares against the next key's part followed by its
** separator: with sep=':' the key 'San Francisco2:...' sorts before
** 'San Francisco:...' because '2' < ':'. The part columns carry the
** collation composite_scan_XX (XX the separator in hex; the last part:
** composite_scan_XX_last), registered on first use, which compares exactly
** that way: comparisons, ranges and ORDER BY on a part then agree with the
** key order, and the scan stays one range.
**
** Without an index whose first column is the key (BINARY collation) the
** scan still answers correctly, with a full scan and a sort of the base
** table; the plan string then says "no index on key" and the cost is that
** of a full scan.
**
** Plan encoding. The constraints are chosen and handed to xFilter by
** ext/plan.c: idxStr starts with its codes, one slot per part then one for
** the key column ("a=b}b<" is "part 1 equal, part 2 at least and below"),
** and xFilter reads each slot's values with nosqlPlanArgs(). idxNum bits:
**
**   bits 0-7   nEq: equality on parts 0..nEq-1
**   CSCAN_LO   a lower bound (>, >=) on part nEq
**   CSCAN_HI   an upper bound (<, <=) on part nEq
**   CSCAN_KLO  a lower bound on the key column
**   CSCAN_KHI  an upper bound on the key column
**   CSCAN_KEQ  equality on the key column
**   CSCAN_*_INCL  the bound before it is inclusive (>=, <=)
**   CSCAN_DESC    rows in descending key order
**
** After plan.c's codes and a space, idxStr repeats the plan readably for
** EXPLAIN QUERY PLAN, e.g. "a=b}b<d> eq=1 range=(>=,<) key=(>) desc", or
** "full scan", with "; no index on key" appended when the base table has no
** usable index.
*/
#include "nosqlInt.h"

#include <math.h>
#include <string.h>

typedef struct cscan_vtab cscan_vtab;
typedef struct cscan_cursor cscan_cursor;
typedef struct CscanBound CscanBound;

#define CSCAN_MAX_PART 32 /* Most key parts a table may declare */

/* Declared type of a part (ckey keys); delimited keys are all CSCAN_TEXT. */
#define CSCAN_ANY 0
#define CSCAN_INTEGER SQLITE_INTEGER
#define CSCAN_REAL SQLITE_FLOAT
#define CSCAN_TEXT SQLITE_TEXT
#define CSCAN_BLOB SQLITE_BLOB

/* idxNum bits; see the plan encoding above. */
#define CSCAN_NEQ_MASK 0xFF
#define CSCAN_LO 0x100
#define CSCAN_LO_INCL 0x200
#define CSCAN_HI 0x400
#define CSCAN_HI_INCL 0x800
#define CSCAN_KLO 0x1000
#define CSCAN_KLO_INCL 0x2000
#define CSCAN_KHI 0x4000
#define CSCAN_KHI_INCL 0x8000
#define CSCAN_KEQ 0x10000
#define CSCAN_DESC 0x20000

/* Inner statements cached per shape: lower bound none/>=/> x upper none/<=/< x asc/desc. */
#define CSCAN_N_SHAPE 18

/* Base table rows assumed by the cost model (no statistics are read). */
#define CSCAN_EST_ROWS 1000000.0

struct cscan_vtab {
  sqlite3_vtab base;         /* Base class - must be first */
  sqlite3 *db;               /* The connection */
  char *zSchema;             /* Schema of the base table */
  char *zBase;               /* Base table name */
  char *zKey;                /* Key column name */
  int cSep;                  /* Separator of text keys, or -1 for ckey blobs */
  int bKeyText;              /* The key column has TEXT affinity */
  int nPart;                 /* Key parts declared */
  int aType[CSCAN_MAX_PART]; /* CSCAN_* type of each part */
  int nBaseCol;              /* Columns of the base table */
  int iKeyCol;               /* Index of the key among the base columns */
  int iRowidCol;             /* Inner statement column of the base rowid, or -1 */
  int bHashRowid;            /* A view: the rowid is a hash of the row's values */
  int bIndexed;              /* True if an index orders the key column */
  char *zSelect;             /* "SELECT key, c1, ... FROM base", NULL in the key's place */
  char zColl[2][32];         /* Collation names of mid and last parts (sep mode) */
  NosqlStmtCache stmts;      /* Inner statements, keyed by shape ("s0" to "s17") */
};

struct cscan_cursor {
  sqlite3_vtab_cursor base;       /* Base class - must be first */
  sqlite3_stmt *pStmt;            /* Inner statement over the base table, or NULL */
  NosqlStmtSlot *pSlot;           /* Cache slot pStmt goes back to, or NULL */
  int bEof;                       /* True at the end of the rows */
  sqlite3_int64 iRow;             /* Row counter, the rowid */
  const unsigned char *aKey;      /* Key of the current row (owned by pStmt) */
  int nKey;                       /* Bytes in aKey */
  int aOff[CSCAN_MAX_PART];       /* Offset of each part in aKey */
  int aLen[CSCAN_MAX_PART];       /* Length of each part (escaped, no separator) */
  CkeyPart aPart[CSCAN_MAX_PART]; /* Decoded parts (ckey keys) */
  int bEsc;                       /* True if the current text key holds a backslash */
  NosqlBuffer scratch;            /* NUL-terminated copy of a text result */
};

/* One end of the key range being built in xFilter. */
struct CscanBound {
  NosqlBuffer b; /* The bound's bytes */
  int bSet;      /* False: unbounded */
  int bIncl;     /* True: the bound itself is in the range */
};

/**************************************************************************
** The collation of delimited-key parts: compares escape(a) || sep with
** escape(b) || sep (mid parts) or escape(a) with escape(b) (the last part),
** which is how the parts compare inside whole keys.
*/

/* A reader of the escaped form of a part, followed by an optional terminator. */
typedef struct CscanEsc CscanEsc;
struct CscanEsc {
  const unsigned char *z; /* Unescaped part */
  int n;                  /* Bytes at z */
  int i;                  /* Next byte of z to read */
  int bPend;              /* True when z[i] is due after its '\' */
  int cTerm;              /* Terminator byte still to come, or -1 */
  int cSep;               /* The separator */
};

static int cscanEscNext(CscanEsc *p) {
  if (p->i < p->n) {
    int c = p->z[p->i];
    if ((c == p->cSep || c == '\\') && !p->bPend) {
      p->bPend = 1;
      return '\\';
    }
    p->bPend = 0;
    p->i++;
    return c;
  }
  if (p->cTerm >= 0) {
    int c = p->cTerm;
    p->cTerm = -1;
    return c;
  }
  return -1;
}

/* pArg: the separator, plus 0x100 for the last part's collation. */
static int cscanCollate(void *pArg, int nA, const void *zA, int nB, const void *zB) {
  int iArg = (int)(intptr_t)pArg;
  int cSep = iArg & 0xFF;
  CscanEsc a = {(const unsigned char *)zA, nA, 0, 0, (iArg & 0x100) ? -1 : cSep, cSep};
  CscanEsc b = {(const unsigned char *)zB, nB, 0, 0, (iArg & 0x100) ? -1 : cSep, cSep};
  for (;;) {
    int ca = cscanEscNext(&a);
    int cb = cscanEscNext(&b);
    if (ca != cb) return ca - cb;
    if (ca < 0) return 0;
  }
}

/* Register the two collations of separator cSep unless they exist. */
static int cscanCollationInit(sqlite3 *db, cscan_vtab *p) {
  int k;
  for (k = 0; k < 2; k++) {
    sqlite3_stmt *pStmt = NULL;
    char *zSql;
    int rc;
    sqlite3_snprintf((int)sizeof(p->zColl[k]), p->zColl[k], "composite_scan_%02x%s", p->cSep,
                     k ? "_last" : "");
    zSql = sqlite3_mprintf("SELECT 1 FROM pragma_collation_list WHERE name = %Q", p->zColl[k]);
    if (zSql == NULL) return SQLITE_NOMEM;
    rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
    sqlite3_free(zSql);
    if (rc == SQLITE_OK) {
      /* An error here (out of memory) has rolled the transaction back: report it, never swallow it. */
      rc = sqlite3_step(pStmt);
      rc = rc == SQLITE_ROW ? SQLITE_OK : rc == SQLITE_DONE ? SQLITE_NOTFOUND : rc;
    }
    sqlite3_finalize(pStmt);
    if (rc == SQLITE_OK) continue; /* Registered by an earlier table */
    if (rc != SQLITE_NOTFOUND) return rc;
    rc = sqlite3_create_collation_v2(db, p->zColl[k], SQLITE_UTF8,
                                     (void *)(intptr_t)(p->cSep | (k ? 0x100 : 0)), cscanCollate, 0);
    if (rc != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}

/**************************************************************************
** Construction.
*/

static void cscanFree(cscan_vtab *p) {
  if (p == NULL) return;
  nosqlStmtCacheClear(&p->stmts);
  sqlite3_free(p->zSchema);
  sqlite3_free(p->zBase);
  sqlite3_free(p->zKey);
  sqlite3_free(p->zSelect);
  sqlite3_free(p);
}

/* The affinity SQLite gives a declared type: 'i', 't', 'b' (none), 'r', 'n'. */
static int cscanAffinity(const char *zType) {
  char z[64];
  int i;
  if (zType == NULL || zType[0] == 0) return 'b';
  for (i = 0; i < 63 && zType[i]; i++)
    z[i] = (char)(zType[i] >= 'a' && zType[i] <= 'z' ? zType[i] - 32 : zType[i]);
  z[i] = 0;
  if (strstr(z, "INT")) return 'i';
  if (strstr(z, "CHAR") || strstr(z, "CLOB") || strstr(z, "TEXT")) return 't';
  if (strstr(z, "BLOB")) return 'b';
  if (strstr(z, "REAL") || strstr(z, "FLOA") || strstr(z, "DOUB")) return 'r';
  return 'n';
}

/* Parse "name [TYPE]" of a part into zName (caller frees) and *peType. */
/* The length of the unquoted name argument z starts with when '=' follows it ("name = value", an option),
 * else 0. */
static int cscanOptionName(const char *z) {
  int n = (int)strcspn(z, " \t=");
  int i = n + (int)strspn(&z[n], " \t");
  return n > 0 && strchr("\"`[", z[0]) == NULL && z[i] == '=' ? n : 0;
}

static int cscanParsePart(cscan_vtab *p, const char *zArg, char **pzName, int *peType, char **pzErr) {
  const char *zSp = zArg;
  int nName;
  char *zType = NULL;
  while (*zSp == ' ') zSp++;
  if (*zSp == '"' || *zSp == '`' || *zSp == '[') {
    char q = *zSp == '[' ? ']' : *zSp;
    const char *zEnd = strchr(zSp + 1, q);
    zSp = zEnd ? zEnd + 1 : zSp + strlen(zSp);
  } else {
    while (*zSp && *zSp != ' ' && *zSp != '\t') zSp++;
  }
  nName = (int)(zSp - zArg);
  *pzName = nosqlDequote(zArg, nName);
  if (*pzName == NULL) return SQLITE_NOMEM;
  zType = nosqlDequote(zSp, (int)strlen(zSp));
  if (zType == NULL) return SQLITE_NOMEM;
  if (zType[0] == 0 || sqlite3_stricmp(zType, "ANY") == 0) {
    *peType = p->cSep >= 0 ? CSCAN_TEXT : CSCAN_ANY;
  } else if (sqlite3_stricmp(zType, "INTEGER") == 0 || sqlite3_stricmp(zType, "INT") == 0) {
    *peType = CSCAN_INTEGER;
  } else if (sqlite3_stricmp(zType, "REAL") == 0) {
    *peType = CSCAN_REAL;
  } else if (sqlite3_stricmp(zType, "TEXT") == 0) {
    *peType = CSCAN_TEXT;
  } else if (sqlite3_stricmp(zType, "BLOB") == 0) {
    *peType = CSCAN_BLOB;
  } else {
    *pzErr = sqlite3_mprintf(
        "composite_scan: part %s has type '%s'; expected INTEGER, REAL, TEXT, BLOB or ANY", *pzName, zType);
    sqlite3_free(zType);
    return SQLITE_ERROR;
  }
  if (p->cSep >= 0 && *peType != CSCAN_TEXT) {
    *pzErr = sqlite3_mprintf(
        "composite_scan: part %s is declared %s, but the parts of delimited text keys "
        "(sep=) are TEXT",
        *pzName, zType);
    sqlite3_free(zType);
    return SQLITE_ERROR;
  }
  sqlite3_free(zType);
  return SQLITE_OK;
}

/* True if an index (or the primary key) orders zKey first with BINARY collation. */
static int cscanHasIndex(sqlite3 *db, cscan_vtab *p, int *pRc) {
  sqlite3_stmt *pStmt = NULL;
  int bFound = 0;
  char *zSql = sqlite3_mprintf(
      "SELECT 1 FROM pragma_index_list(%Q, %Q) il, pragma_index_xinfo(il.name, %Q) ix"
      " WHERE ix.seqno = 0 AND ix.name = %Q COLLATE NOCASE AND ix.coll = 'BINARY' AND il.partial = 0",
      p->zBase, p->zSchema, p->zSchema, p->zKey);
  if (zSql == NULL) {
    *pRc = SQLITE_NOMEM;
    return 0;
  }
  *pRc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  if (*pRc == SQLITE_OK) {
    bFound = sqlite3_step(pStmt) == SQLITE_ROW;
    *pRc = sqlite3_finalize(pStmt);
  }
  return bFound;
}

/*
** Finish the declaration in *pDecl (closing it) and the inner select in
** *pSel for the rowid: see cscanConnect(). A view has neither a rowid nor a
** primary key: its rowid is a 64-bit hash of the row's values (rows equal
** in every column are one row to an OR query).
*/
static int cscanRowidPlan(sqlite3 *db, cscan_vtab *p, int bRowidTaken, NosqlBuffer *pDecl,
                          NosqlBuffer *pSel) {
  sqlite3_stmt *pStmt = NULL;
  int rc = SQLITE_OK, bWithoutRowid = 0, bView = 0, nPk = 0;
  char *zSql = sqlite3_mprintf("SELECT type, wr FROM pragma_table_list WHERE schema = %Q AND name = %Q",
                               p->zSchema, p->zBase);
  if (zSql == NULL) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  if (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    const char *zType = (const char *)sqlite3_column_text(pStmt, 0);
    bView = zType && strcmp(zType, "table") != 0;
    bWithoutRowid = sqlite3_column_int(pStmt, 1);
  }
  if (rc == SQLITE_OK) {
    rc = sqlite3_finalize(pStmt);
  } else {
    sqlite3_finalize(pStmt);
  }
  pStmt = NULL;
  if (rc != SQLITE_OK) return rc;
  if (!bView && !bWithoutRowid && !bRowidTaken) {
    nosqlBufferAppendf(&rc, pDecl, ")");
    nosqlBufferAppendf(&rc, pSel, ", _rowid_");
    p->iRowidCol = 1 + p->nBaseCol;
    return rc;
  }
  if (bWithoutRowid) {
    zSql = sqlite3_mprintf("SELECT name FROM pragma_table_info(%Q, %Q) WHERE pk > 0 ORDER BY pk", p->zBase,
                           p->zSchema);
    rc = zSql ? sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0) : SQLITE_NOMEM;
    sqlite3_free(zSql);
    while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
      nosqlBufferAppendf(&rc, pDecl, "%s\"%w\"", nPk++ ? ", " : ", PRIMARY KEY(",
                         sqlite3_column_text(pStmt, 0));
    }
    if (rc == SQLITE_OK) {
      rc = sqlite3_finalize(pStmt);
    } else {
      sqlite3_finalize(pStmt);
    }
    if (nPk) {
      nosqlBufferAppendf(&rc, pDecl, ")) WITHOUT ROWID");
      return rc;
    }
  }
  nosqlBufferAppendf(&rc, pDecl, ")");
  p->bHashRowid = 1;
  return rc;
}

/*
** The first two arguments: the base table (argv[3], "schema.table" or in
** the virtual table's schema argv[1]) and its key column (argv[4]).
*/
static int cscanArgBase(sqlite3 *db, cscan_vtab *p, int argc, const char *const *argv, char **pzErr) {
  NosqlTableName t;
  int rc;
  if (argc < 6) {
    int bNoMem;
    *pzErr = nosqlNotTableFunction(argc, argv, "table, key, part [TYPE], ..., [sep=X]", &bNoMem);
    if (*pzErr == NULL && !bNoMem) {
      *pzErr = sqlite3_mprintf("composite_scan: expected (table, key column, part, ...), got %d arguments",
                               argc - 3);
    }
    return *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  rc = nosqlTableArg(db, argv[3], argv[1], &t);
  p->zSchema = t.zSchema;
  p->zBase = t.zName;
  if (rc == SQLITE_ERROR) {
    *pzErr =
        sqlite3_mprintf("composite_scan: the first argument must name the base table, not '%s'", argv[3]);
    return rc;
  }
  p->zKey = nosqlDequote(argv[4], (int)strlen(argv[4]));
  if (p->zSchema == NULL || p->zBase == NULL || p->zKey == NULL) return SQLITE_NOMEM;
  return rc;
}

/* True if argument z (leading spaces skipped) is the sep option. */
static int cscanIsSep(const char *z) {
  return sqlite3_strnicmp(z, "sep", 3) == 0 && (z[3] == '=' || z[3] == ' ');
}

/*
** The options among argv[5..argc) (sep=X, the only one) into p->cSep, and
** the number of key parts, 1 to CSCAN_MAX_PART, in *pnPart. Options
** first, so that parts know the key format.
*/
static int cscanArgOptions(cscan_vtab *p, int argc, const char *const *argv, int *pnPart, char **pzErr) {
  int i, nArgPart = 0;
  for (i = 5; i < argc; i++) {
    const char *z = argv[i];
    while (*z == ' ') z++;
    if (cscanIsSep(z)) {
      const char *zEq = strchr(z, '=');
      char *zVal = zEq ? nosqlDequote(zEq + 1, (int)strlen(zEq + 1)) : NULL;
      if (zEq && zVal == NULL) return SQLITE_NOMEM;
      if (zVal == NULL || strlen(zVal) != 1 || zVal[0] == '\\' || (unsigned char)zVal[0] >= 0x80) {
        *pzErr = sqlite3_mprintf("composite_scan: separator %s is not one ASCII character other than '\\'",
                                 zEq ? zEq + 1 : "(missing)");
        sqlite3_free(zVal);
        return SQLITE_ERROR;
      }
      p->cSep = (unsigned char)zVal[0];
      sqlite3_free(zVal);
    } else if (cscanOptionName(z) > 0) {
      /* "name = value" (an unquoted name then '='): an option, and sep is the only one. */
      static const char *const azValid[] = {"sep", NULL};
      *pzErr = nosqlUnknownOption("composite_scan", z, cscanOptionName(z), azValid);
      return *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
    } else {
      nArgPart++;
    }
  }
  if (nArgPart > CSCAN_MAX_PART) {
    *pzErr =
        sqlite3_mprintf("composite_scan: %d key parts; at most %d are supported", nArgPart, CSCAN_MAX_PART);
    return SQLITE_ERROR;
  }
  if (nArgPart == 0) {
    *pzErr = sqlite3_mprintf("composite_scan: no key parts declared after the key column");
    return SQLITE_ERROR;
  }
  *pnPart = nArgPart;
  return SQLITE_OK;
}

/* The key parts among argv[5..argc): names in azName[], types in p->aType[], count in p->nPart. */
static int cscanArgParts(cscan_vtab *p, int argc, const char *const *argv, char **azName, char **pzErr) {
  int i, rc = SQLITE_OK;
  for (i = 5; i < argc; i++) {
    const char *z = argv[i];
    while (*z == ' ') z++;
    if (cscanIsSep(z)) continue;
    rc = cscanParsePart(p, z, &azName[p->nPart], &p->aType[p->nPart], pzErr);
    p->nPart++;
    if (rc != SQLITE_OK) break;
  }
  return rc;
}

/*
** The base table's key column: it exists, compares BINARY, has TEXT or BLOB
** affinity; whether an index orders it; the collations of delimited parts.
*/
static int cscanCheckKey(sqlite3 *db, cscan_vtab *p, char **pzErr) {
  char *zDeclType = NULL, *zColl = NULL;
  /* Not sqlite3_table_column_metadata(): NULL in builds without SQLITE_ENABLE_COLUMN_METADATA. */
  int rc = nosqlColumnInfo(db, p->zSchema, p->zBase, p->zKey, &zDeclType, &zColl);
  if (rc == SQLITE_NOTFOUND) {
    *pzErr = sqlite3_mprintf("composite_scan: no column %s in table %s.%s", p->zKey, p->zSchema, p->zBase);
    rc = SQLITE_ERROR;
  } else if (rc == SQLITE_OK && zColl && sqlite3_stricmp(zColl, "BINARY") != 0) {
    *pzErr = sqlite3_mprintf("composite_scan: key column %s has collation %s; key order needs BINARY",
                             p->zKey, zColl);
    rc = SQLITE_ERROR;
  } else if (rc == SQLITE_OK && cscanAffinity(zDeclType) != 't' && cscanAffinity(zDeclType) != 'b') {
    *pzErr = sqlite3_mprintf(
        "composite_scan: key column %s is declared %s, whose numeric affinity would turn keys into numbers; "
        "declare it TEXT or BLOB",
        p->zKey, zDeclType);
    rc = SQLITE_ERROR;
  }
  if (rc == SQLITE_OK) {
    p->bKeyText = cscanAffinity(zDeclType) == 't';
    p->bIndexed = cscanHasIndex(db, p, &rc);
  }
  if (rc == SQLITE_OK && p->cSep >= 0) rc = cscanCollationInit(db, p);
  sqlite3_free(zDeclType);
  sqlite3_free(zColl);
  return rc;
}

/*
** The declaration (parts, then the base table's columns, then the rowid
** plan) into *pDecl and the inner select, "SELECT key, c1, ... FROM base",
** into *pSel.
*/
static int cscanDeclare(sqlite3 *db, cscan_vtab *p, char **azName, NosqlBuffer *pDecl, NosqlBuffer *pSel,
                        char **pzErr) {
  sqlite3_stmt *pCols = NULL;
  int rc = SQLITE_OK, i, bRowidTaken = 0;
  nosqlBufferAppendf(&rc, pDecl, "CREATE TABLE x(");
  for (i = 0; i < p->nPart; i++) {
    static const char *azType[] = {"", "INTEGER", "REAL", "TEXT", "BLOB"};
    nosqlBufferAppendf(&rc, pDecl, "%s\"%w\" %s", i ? ", " : "", azName[i], azType[p->aType[i]]);
    if (p->cSep >= 0) nosqlBufferAppendf(&rc, pDecl, " COLLATE \"%w\"", p->zColl[i == p->nPart - 1]);
  }
  nosqlBufferAppendf(&rc, pSel, "SELECT \"%w\"", p->zKey);
  if (rc == SQLITE_OK) {
    char *zSql = sqlite3_mprintf("SELECT name, type FROM pragma_table_info(%Q, %Q)", p->zBase, p->zSchema);
    rc = zSql ? sqlite3_prepare_v2(db, zSql, -1, &pCols, 0) : SQLITE_NOMEM;
    sqlite3_free(zSql);
  }
  while (rc == SQLITE_OK && sqlite3_step(pCols) == SQLITE_ROW) {
    const char *zName = (const char *)sqlite3_column_text(pCols, 0);
    if (zName && sqlite3_stricmp(zName, "_rowid_") == 0) bRowidTaken = 1;
    const char *zType = (const char *)sqlite3_column_text(pCols, 1);
    int k;
    if (zName == NULL) {
      rc = SQLITE_NOMEM;
      break;
    }
    for (k = 0; k < p->nPart; k++) {
      if (sqlite3_stricmp(zName, azName[k]) == 0) {
        *pzErr = sqlite3_mprintf("composite_scan: part name %s is also a column of %s; rename the part",
                                 azName[k], p->zBase);
        rc = SQLITE_ERROR;
        break; /* One message: two parts of the same name would leak the first */
      }
    }
    nosqlBufferAppendf(&rc, pDecl, ", \"%w\" %s", zName, zType ? zType : "");
    if (sqlite3_stricmp(zName, p->zKey) == 0) {
      /* The key is the inner statement's column 0 already: do not read it twice per row. */
      p->iKeyCol = p->nBaseCol;
      nosqlBufferAppendf(&rc, pSel, ", NULL");
    } else {
      nosqlBufferAppendf(&rc, pSel, ", \"%w\"", zName);
    }
    p->nBaseCol++;
  }
  if (pCols) {
    int rc2 = sqlite3_finalize(pCols);
    if (rc == SQLITE_OK) rc = rc2;
  }
  /*
  ** The rowid: SQLite's OR optimisation combines the rows of several scans
  ** by rowid, so it must name a row whatever scan found it. A rowid base
  ** table gives its own; a WITHOUT ROWID one makes this table WITHOUT
  ** ROWID over the same primary key (xRowid is then never called).
  */
  p->iRowidCol = -1;
  if (rc == SQLITE_OK) rc = cscanRowidPlan(db, p, bRowidTaken, pDecl, pSel);
  nosqlBufferAppendf(&rc, pSel, " FROM \"%w\".\"%w\"", p->zSchema, p->zBase);
  return rc;
}

/*
** xCreate and xConnect: argv[3] base table, argv[4] key column, then parts
** and options, read and checked in that order, then the declaration.
*/
static int cscanConnectImpl(sqlite3 *db, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                            char **pzErr) {
  cscan_vtab *p;
  NosqlBuffer decl = {0, 0, 0};
  NosqlBuffer sel = {0, 0, 0};
  char *azName[CSCAN_MAX_PART];
  int rc, i, nArgPart = 0;

  memset(azName, 0, sizeof(azName));
  p = (cscan_vtab *)sqlite3_malloc64(sizeof(*p));
  if (p == NULL) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->db = db;
  p->cSep = -1;
  p->stmts.nSlot = CSCAN_N_SHAPE;
  rc = cscanArgBase(db, p, argc, argv, pzErr);
  if (rc == SQLITE_OK) rc = cscanArgOptions(p, argc, argv, &nArgPart, pzErr);
  if (rc == SQLITE_OK) rc = cscanArgParts(p, argc, argv, azName, pzErr);
  if (rc == SQLITE_OK) rc = cscanCheckKey(db, p, pzErr);
  if (rc == SQLITE_OK) {
    rc = cscanDeclare(db, p, azName, &decl, &sel, pzErr);
    if (rc == SQLITE_OK) rc = sqlite3_declare_vtab(db, (const char *)decl.a);
    if (rc == SQLITE_OK) {
      p->zSelect = (char *)sel.a;
      sel.a = NULL;
    } else if (*pzErr == NULL) {
      *pzErr = sqlite3_mprintf("composite_scan: %s", sqlite3_errmsg(db));
    }
  }
  for (i = 0; i < CSCAN_MAX_PART; i++) sqlite3_free(azName[i]);
  nosqlBufferFree(&decl);
  nosqlBufferFree(&sel);
  if (rc != SQLITE_OK) {
    cscanFree(p);
    return rc;
  }
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
  *ppVtab = &p->base;
  return SQLITE_OK;
}

/* On a copy of argv: resolving the base runs a statement while the parts are still to be read. */
static int cscanConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                        char **pzErr) {
  char **azArg = nosqlArgvDup(argc, argv);
  int rc;
  (void)pAux;
  if (azArg == NULL) return SQLITE_NOMEM;
  rc = cscanConnectImpl(db, argc, (const char *const *)azArg, ppVtab, pzErr);
  sqlite3_free(azArg);
  return rc;
}

static int cscanDisconnect(sqlite3_vtab *pVtab) {
  cscanFree((cscan_vtab *)pVtab);
  return SQLITE_OK;
}

/**************************************************************************
** Planning. See the plan encoding in the header comment.
*/

/*
** The plan's slots (ext/plan.c): one per part, then the key column (iKey;
** -1 when the parts fill every slot). Returns the number of slots.
*/
static int cscanPlanCols(cscan_vtab *p, NosqlPlanCol *aCol, int *piKey) {
  int nSlot = p->nPart + 1, i;
  *piKey = p->nPart;
  if (nSlot > NOSQL_PLAN_MAX_COL) nSlot = NOSQL_PLAN_MAX_COL, *piKey = -1;
  for (i = 0; i < nSlot; i++) {
    NosqlPlanCol *pCol = &aCol[i];
    pCol->bExact = 1;
    pCol->bRequired = 0;
    pCol->mOp = NOSQL_OP_EQ | NOSQL_OP_RANGE;
    if (i == *piKey) {
      /* The key is compared in BINARY (its column must be BINARY). */
      pCol->iColumn = p->nPart + p->iKeyCol;
      pCol->zColl = NULL;
    } else {
      pCol->iColumn = i;
      if (p->aType[i] == CSCAN_ANY) pCol->mOp = 0;
      pCol->zColl = p->aType[i] != CSCAN_TEXT ? NOSQL_COLL_ANY
                    : p->cSep < 0             ? NULL
                                              : p->zColl[i == p->nPart - 1];
    }
  }
  return nSlot;
}

/*
** The constraints kept from what plan.c found: equality on a leading run
** of parts (*pnEq), a range on the next part, the key column's bounds or
** equality. Returns idxNum without the order bits; sets *pbIn (an IN list
** among them), *piRealEq (the first REAL part of the run, or -1) and
** *prRows (the rows expected).
*/
static int cscanPlanBounds(cscan_vtab *p, sqlite3_index_info *pInfo, NosqlPlan *pPlan, int nSlot, int iKey,
                           int *pnEq, int *pbIn, int *piRealEq, double *prRows) {
  int nEq = 0, idxNum, i;
  double rRows = CSCAN_EST_ROWS;
  /* Equality serves as a prefix only, a range only on the part after it. */
  while (nEq < p->nPart && nEq < nSlot && nEq != iKey && pPlan->aiEq[nEq] >= 0) nEq++;
  for (i = 0; i < nSlot; i++) {
    if (i == iKey) continue;
    if (i >= nEq) pPlan->aiEq[i] = -1;
    if (i != nEq) pPlan->aiLo[i] = pPlan->aiHi[i] = -1;
  }
  /*
  ** A REAL part in the equality run: x = 0 must find the keys of -0.0 too
  ** (SQL says -0.0 = 0.0; the key encoding keeps them apart), so xFilter
  ** then scans both blocks and cannot seek on the parts after x: SQLite
  ** checks the constraints on those parts itself (omit cleared later).
  */
  *piRealEq = -1;
  for (i = 0; i < nEq && *piRealEq < 0; i++) {
    if (p->aType[i] == CSCAN_REAL) *piRealEq = i;
  }
  for (i = 0; i < nEq; i++) {
    if (sqlite3_vtab_in(pInfo, pPlan->aiEq[i], -1)) *pbIn = 1;
    rRows /= 10.0;
  }
  idxNum = nEq;
  if (nEq < p->nPart && pPlan->aiLo[nEq] >= 0) {
    idxNum |= CSCAN_LO |
              (pInfo->aConstraint[pPlan->aiLo[nEq]].op == SQLITE_INDEX_CONSTRAINT_GE ? CSCAN_LO_INCL : 0);
    rRows /= 3.0;
  }
  if (nEq < p->nPart && pPlan->aiHi[nEq] >= 0) {
    idxNum |= CSCAN_HI |
              (pInfo->aConstraint[pPlan->aiHi[nEq]].op == SQLITE_INDEX_CONSTRAINT_LE ? CSCAN_HI_INCL : 0);
    rRows /= 3.0;
  }
  if (iKey >= 0 && pPlan->aiLo[iKey] >= 0) {
    idxNum |= CSCAN_KLO |
              (pInfo->aConstraint[pPlan->aiLo[iKey]].op == SQLITE_INDEX_CONSTRAINT_GE ? CSCAN_KLO_INCL : 0);
    rRows /= 2.0;
  }
  if (iKey >= 0 && pPlan->aiHi[iKey] >= 0) {
    idxNum |= CSCAN_KHI |
              (pInfo->aConstraint[pPlan->aiHi[iKey]].op == SQLITE_INDEX_CONSTRAINT_LE ? CSCAN_KHI_INCL : 0);
    rRows /= 2.0;
  }
  if (iKey >= 0 && pPlan->aiEq[iKey] >= 0) {
    if (sqlite3_vtab_in(pInfo, pPlan->aiEq[iKey], -1)) *pbIn = 1;
    idxNum |= CSCAN_KEQ;
    rRows = 1.0;
  }
  if (rRows < 1.0) rRows = 1.0;
  *pnEq = nEq;
  *prRows = rRows;
  return idxNum;
}

/*
** ORDER BY: parts after the equality run, in order, one direction, or the
** key column (as the last term). Parts fixed by equality may appear
** anywhere. ANY parts are never ordered by the scan. Sets orderByConsumed
** and returns CSCAN_DESC or 0 when the scan gives that order.
*/
static int cscanPlanOrder(cscan_vtab *p, sqlite3_index_info *pInfo, int nEq, int iRealEq) {
  int iNext = nEq, bOk = 1, bDesc, bDone = 0, bAfterReal = 0, i;
  int iKeyCol = p->nPart + p->iKeyCol;
  if (pInfo->nOrderBy <= 0) return 0;
  bDesc = pInfo->aOrderBy[0].desc;
  for (i = 0; i < pInfo->nOrderBy && bOk; i++) {
    int iCol = pInfo->aOrderBy[i].iColumn;
    if (bDone) {
      bOk = 0;
    } else if (iCol >= 0 && iCol < nEq) {
      continue;
    } else if (pInfo->aOrderBy[i].desc != bDesc) {
      bOk = 0;
    } else if (iCol == iKeyCol) {
      bDone = 1;
    } else if (iCol == iNext && p->aType[iCol] != CSCAN_ANY && iRealEq < 0 && !bAfterReal) {
      /* (After x = 0 on a REAL part the -0.0 and 0.0 blocks are each in
      ** order, not together: only the key column's order holds. For the
      ** same reason no part after an ordered REAL part is in order: the
      ** keys of -0.0 come before those of 0.0, which SQL says are equal.) */
      if (p->aType[iCol] == CSCAN_REAL) bAfterReal = 1;
      iNext++;
    } else {
      bOk = 0;
    }
  }
  if (!bOk) return 0;
  pInfo->orderByConsumed = 1;
  return bDesc ? CSCAN_DESC : 0;
}

/* The readable plan after plan.c's codes (sqlite3_mprintf), or NULL on OOM. */
static char *cscanPlanString(cscan_vtab *p, int idxNum, int nEq, int bOrdered) {
  char *zPlan;
  if (nEq == 0 && !(idxNum & (CSCAN_LO | CSCAN_HI | CSCAN_KLO | CSCAN_KHI | CSCAN_KEQ))) {
    zPlan = sqlite3_mprintf("full scan");
  } else {
    zPlan = sqlite3_mprintf("eq=%d", nEq);
    if (zPlan && (idxNum & (CSCAN_LO | CSCAN_HI))) {
      zPlan = sqlite3_mprintf("%z range=(%s%s%s)", zPlan,
                              (idxNum & CSCAN_LO) ? ((idxNum & CSCAN_LO_INCL) ? ">=" : ">") : "",
                              (idxNum & CSCAN_LO) && (idxNum & CSCAN_HI) ? "," : "",
                              (idxNum & CSCAN_HI) ? ((idxNum & CSCAN_HI_INCL) ? "<=" : "<") : "");
    }
    if (zPlan && (idxNum & (CSCAN_KLO | CSCAN_KHI | CSCAN_KEQ))) {
      zPlan = sqlite3_mprintf("%z key=(%s%s%s%s)", zPlan, (idxNum & CSCAN_KEQ) ? "=" : "",
                              (idxNum & CSCAN_KLO) ? ((idxNum & CSCAN_KLO_INCL) ? ">=" : ">") : "",
                              (idxNum & CSCAN_KLO) && (idxNum & CSCAN_KHI) ? "," : "",
                              (idxNum & CSCAN_KHI) ? ((idxNum & CSCAN_KHI_INCL) ? "<=" : "<") : "");
    }
  }
  if (zPlan && bOrdered) zPlan = sqlite3_mprintf("%z %s", zPlan, (idxNum & CSCAN_DESC) ? "desc" : "asc");
  if (zPlan && !p->bIndexed) zPlan = sqlite3_mprintf("%z; no index on key", zPlan);
  return zPlan;
}

/*
** xBestIndex. ext/plan.c finds the servable constraints (the collation
** rules are cscanServable's, as NosqlPlanCol.zColl) and assigns argv in
** slot order: the parts, then the key column. The module keeps its own
** choice, in the order the plan string shows it: the slots
** (cscanPlanCols), the constraints kept (cscanPlanBounds), the ORDER BY
** consumed (cscanPlanOrder), the cost, the readable plan string after
** plan.c's codes in idxStr (cscanPlanString), and the -0.0 rule.
*/
static int cscanBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo) {
  cscan_vtab *p = (cscan_vtab *)pVtab;
  NosqlPlanCol aCol[CSCAN_MAX_PART + 1];
  NosqlPlan plan;
  int nSlot, iKey, nEq = 0, bIn = 0, iRealEq = -1, idxNum, rc, i;
  double rRows = CSCAN_EST_ROWS;
  char *zPlan;

  nSlot = cscanPlanCols(p, aCol, &iKey);
  rc = nosqlPlanFind(pInfo, aCol, nSlot, &plan);
  if (rc != SQLITE_OK) return rc;
  idxNum = cscanPlanBounds(p, pInfo, &plan, nSlot, iKey, &nEq, &bIn, &iRealEq, &rRows);
  if (!bIn) idxNum |= cscanPlanOrder(p, pInfo, nEq, iRealEq);
  pInfo->idxNum = idxNum;
  pInfo->estimatedRows = (sqlite3_int64)rRows;
  if (p->bIndexed) {
    pInfo->estimatedCost = (idxNum & ~CSCAN_DESC) ? 20.0 + rRows : CSCAN_EST_ROWS;
  } else {
    /* A full scan of the base table, then a sort by key. */
    pInfo->estimatedCost = CSCAN_EST_ROWS * 2.0 + rRows * 20.0;
  }
  zPlan = cscanPlanString(p, idxNum, nEq, pInfo->orderByConsumed);
  if (zPlan == NULL) return SQLITE_NOMEM;
  plan.zTail = zPlan;
  rc = nosqlPlanCommit(pInfo, aCol, &plan);
  sqlite3_free(zPlan);
  if (rc != SQLITE_OK) return rc;
  /* The -0.0 rule: SQLite checks the parts after a REAL zero itself. */
  if (iRealEq >= 0) {
    for (i = iRealEq + 1; i < nEq; i++) pInfo->aConstraintUsage[plan.aiEq[i]].omit = 0;
    if (nEq < p->nPart && plan.aiLo[nEq] >= 0) pInfo->aConstraintUsage[plan.aiLo[nEq]].omit = 0;
    if (nEq < p->nPart && plan.aiHi[nEq] >= 0) pInfo->aConstraintUsage[plan.aiHi[nEq]].omit = 0;
  }
  return SQLITE_OK;
}

/**************************************************************************
** Scanning.
*/

static int cscanOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor) {
  cscan_cursor *pCur = (cscan_cursor *)nosqlCursorNew(sizeof(cscan_cursor), ppCursor);
  (void)pVtab;
  if (pCur == NULL) return SQLITE_NOMEM;
  pCur->bEof = 1;
  return SQLITE_OK;
}

/* Hand the cursor's inner statement back to the vtab's cache (nosqlStmtCacheGive()). */
static void cscanRelease(cscan_cursor *pCur) {
  if (pCur->pStmt == NULL) return;
  nosqlStmtCacheGive(pCur->pSlot, pCur->pStmt);
  pCur->pStmt = NULL;
  pCur->pSlot = NULL;
}

static int cscanClose(sqlite3_vtab_cursor *pCursor) {
  cscanRelease((cscan_cursor *)pCursor);
  nosqlBufferFree(&((cscan_cursor *)pCursor)->scratch);
  sqlite3_free(pCursor);
  return SQLITE_OK;
}

/* Normalized constraint value: what a bound means for a part of a declared type. */
#define CSCAN_BOUND 0      /* Use the converted value */
#define CSCAN_EMPTY 1      /* No row can satisfy the constraint */
#define CSCAN_NONE 2       /* Every non-NULL value satisfies it: no bound */
#define CSCAN_BOUND_INCL 3 /* Use the converted (rounded) value, inclusive whatever the operator */

/*
** Convert constraint value pVal for a part (or key) of type eType, under
** SQLite's comparison rules (the column's affinity applies to the value;
** numbers < text < blob). Returns CSCAN_EMPTY, CSCAN_NONE, or
** CSCAN_BOUND(_INCL) with the value to encode: *piOut for an INTEGER part,
** *prOut for a REAL one, pVal itself (as text or blob) otherwise. eOp is
** the constraint's operator: SQLITE_INDEX_CONSTRAINT_EQ/GT/GE/LT/LE.
*/
static int cscanNormalize(int eType, int eOp, sqlite3_value *pVal, sqlite3_int64 *piOut, double *prOut) {
  int bLower = eOp == SQLITE_INDEX_CONSTRAINT_GT || eOp == SQLITE_INDEX_CONSTRAINT_GE;
  int bUpper = eOp == SQLITE_INDEX_CONSTRAINT_LT || eOp == SQLITE_INDEX_CONSTRAINT_LE;
  int eVal;
  if (sqlite3_value_type(pVal) == SQLITE_NULL) return CSCAN_EMPTY;
  if (eType == CSCAN_INTEGER || eType == CSCAN_REAL) {
    eVal = sqlite3_value_numeric_type(pVal); /* Numeric affinity of the column */
    if (eVal == SQLITE_TEXT || eVal == SQLITE_BLOB) return bUpper ? CSCAN_NONE : CSCAN_EMPTY;
    if (eType == CSCAN_REAL) {
      *prOut = sqlite3_value_double(pVal);
      if (eVal == SQLITE_INTEGER) {
        /* SQLite compares an integer with a real exactly: past 2^53 the
        ** integer may have no double; then none equals it, and a bound is
        ** the nearest double on the right side, inclusive. */
        sqlite3_int64 v = sqlite3_value_int64(pVal);
        double d = *prOut;
        int c = d >= 9223372036854775808.0 ? 1 : ((sqlite3_int64)d > v) - ((sqlite3_int64)d < v);
        if (c == 0) return CSCAN_BOUND;
        if (eOp == SQLITE_INDEX_CONSTRAINT_EQ) return CSCAN_EMPTY;
        if (bLower && c < 0) *prOut = nextafter(d, INFINITY);
        if (bUpper && c > 0) *prOut = nextafter(d, -INFINITY);
        return CSCAN_BOUND_INCL;
      }
      return CSCAN_BOUND;
    }
    if (eVal == SQLITE_INTEGER) {
      *piOut = sqlite3_value_int64(pVal);
      return CSCAN_BOUND;
    } else {
      double r = sqlite3_value_double(pVal);
      double rInt;
      if (r >= 9223372036854775808.0) return bUpper ? CSCAN_NONE : CSCAN_EMPTY;
      if (r < -9223372036854775808.0) return bLower ? CSCAN_NONE : CSCAN_EMPTY;
      rInt = (double)(sqlite3_int64)r; /* Truncated toward zero */
      if (rInt == r) {
        *piOut = (sqlite3_int64)r;
        return CSCAN_BOUND;
      }
      if (eOp == SQLITE_INDEX_CONSTRAINT_EQ) return CSCAN_EMPTY;
      /* x > 5.5 is x >= 6; x < 5.5 is x <= 5. */
      *piOut = (sqlite3_int64)(bLower ? (r > 0 ? rInt + 1 : rInt) : (r > 0 ? rInt : rInt - 1));
      return CSCAN_BOUND_INCL;
    }
  }
  eVal = sqlite3_value_type(pVal);
  if (eType == CSCAN_TEXT) {
    if (eVal == SQLITE_BLOB) return bUpper ? CSCAN_NONE : CSCAN_EMPTY;
    return CSCAN_BOUND; /* Numbers take the column's TEXT affinity: encoded as their text */
  }
  /* BLOB: numbers and text sort below every blob. */
  if (eVal != SQLITE_BLOB) return bLower ? CSCAN_NONE : CSCAN_EMPTY;
  return CSCAN_BOUND;
}

/* Append one part value (already normalized) to a key prefix. */
static void cscanAppendPart(int *pRc, cscan_vtab *p, NosqlBuffer *pBuf, int eType, sqlite3_value *pVal,
                            sqlite3_int64 iVal, double rVal, int bLast) {
  if (p->cSep >= 0) {
    const unsigned char *z = sqlite3_value_text(pVal);
    if (z == NULL) {
      *pRc = SQLITE_NOMEM;
      return;
    }
    ckeyAppendEscaped(pRc, pBuf, z, sqlite3_value_bytes(pVal), p->cSep);
    if (!bLast) {
      char c = (char)p->cSep;
      nosqlBufferAppend(pRc, pBuf, &c, 1);
    }
  } else if (eType == CSCAN_INTEGER) {
    unsigned char a[CKEY_MAX_INT];
    nosqlBufferAppend(pRc, pBuf, a, ckeyEncodeInt(a, iVal));
  } else if (eType == CSCAN_REAL) {
    unsigned char a[CKEY_MAX_INT];
    nosqlBufferAppend(pRc, pBuf, a, ckeyEncodeReal(a, rVal));
  } else if (eType == CSCAN_TEXT) {
    const unsigned char *z = sqlite3_value_text(pVal);
    if (z == NULL) {
      *pRc = SQLITE_NOMEM;
      return;
    }
    ckeyAppendBytes(pRc, pBuf, CKEY_TEXT, z, sqlite3_value_bytes(pVal));
  } else {
    const unsigned char *z = (const unsigned char *)sqlite3_value_blob(pVal);
    ckeyAppendBytes(pRc, pBuf, CKEY_BLOB, z ? z : (const unsigned char *)"", sqlite3_value_bytes(pVal));
  }
}

/*
** Set pB to a[0..n), or with bSucc to the end of the keys whose leading
** parts are exactly the whole parts a[0..n): a || 0xFF for ckey keys (a
** following part starts with a type code below 0xFF, while 0xFF after a
** text or blob terminator would continue that part: 0x00 0xFF is an
** escaped 0x00), the strinc successor for delimited keys (a ends with an
** unescaped separator).
*/
static void cscanSetBound(int *pRc, cscan_vtab *p, CscanBound *pB, const unsigned char *a, sqlite3_int64 n,
                          int bIncl, int bSucc) {
  nosqlBufferReset(&pB->b);
  pB->bSet = 1;
  pB->bIncl = bIncl;
  if (bSucc && p->cSep >= 0) {
    int nOut;
    nosqlBufferGrow(pRc, &pB->b, n);
    if (*pRc != SQLITE_OK) return;
    nOut = ckeyStrinc(a, (int)n, pB->b.a);
    if (nOut < 0) {
      pB->bSet = 0; /* No successor: unbounded */
      return;
    }
    pB->b.n = nOut;
  } else {
    static const unsigned char aFF[1] = {0xFF};
    nosqlBufferAppend(pRc, &pB->b, a, n);
    if (bSucc) nosqlBufferAppend(pRc, &pB->b, aFF, 1);
  }
}

/* Compare bytes a[0..na) and b[0..nb) as memcmp with shorter-first. */
static int cscanCmp(const unsigned char *a, sqlite3_int64 na, const unsigned char *b, sqlite3_int64 nb) {
  sqlite3_int64 n = na < nb ? na : nb;
  int c = n > 0 ? memcmp(a, b, (size_t)n) : 0;
  if (c) return c;
  return na < nb ? -1 : na > nb;
}

/* Narrow pB (a lower bound if bLower) by a key constraint value. */
static void cscanNarrow(int *pRc, cscan_vtab *p, CscanBound *pB, const unsigned char *a, sqlite3_int64 n,
                        int bIncl, int bLower) {
  if (pB->bSet) {
    int c = cscanCmp(a, n, pB->b.a, pB->b.n);
    if (bLower ? c < 0 : c > 0) return;
    if (c == 0) {
      if (!bIncl) pB->bIncl = 0;
      return;
    }
  }
  cscanSetBound(pRc, p, pB, a, n, bIncl, 0);
}

/* Bind a bound's bytes as text (delimited keys) or a blob (ckey keys). */
static int cscanBind(cscan_vtab *p, sqlite3_stmt *pStmt, int iVar, const CscanBound *pB) {
  const char *a = pB->b.a ? (const char *)pB->b.a : "";
  if (p->cSep >= 0)
    return sqlite3_bind_text64(pStmt, iVar, a, (sqlite3_uint64)pB->b.n, SQLITE_TRANSIENT, SQLITE_UTF8);
  return sqlite3_bind_blob64(pStmt, iVar, a, (sqlite3_uint64)pB->b.n, SQLITE_TRANSIENT);
}

/* Read the current row's key and split it into parts; an error names the key. */
static int cscanSplitRow(cscan_cursor *pCur) {
  cscan_vtab *p = (cscan_vtab *)pCur->base.pVtab;
  sqlite3_value *pKey = sqlite3_column_value(pCur->pStmt, 0);
  int eType = sqlite3_value_type(pKey);
  const char *zWhy = NULL;
  int nFound = 0;
  if (p->cSep < 0) {
    int iOff = 0;
    if (eType != SQLITE_BLOB) {
      zWhy = "is not a ckey() blob";
    } else {
      pCur->aKey = (const unsigned char *)sqlite3_value_blob(pKey);
      pCur->nKey = sqlite3_value_bytes(pKey);
      while (iOff < pCur->nKey) {
        CkeyPart part;
        zWhy = ckeyParse(pCur->aKey, pCur->nKey, &iOff, &part);
        if (zWhy) break;
        if (nFound < p->nPart) {
          if (part.eType != SQLITE_NULL && p->aType[nFound] != CSCAN_ANY && part.eType != p->aType[nFound]) {
            static const char *azType[] = {"", "an integer", "a real", "a text", "a blob"};
            char *zVal = nosqlValueQuote(pKey);
            nosqlVtabError(pCur->base.pVtab, "composite_scan: key %s in %s has %s as part %d, declared %s",
                           zVal ? zVal : "?", p->zBase, azType[part.eType], nFound + 1,
                           azType[p->aType[nFound]] + (p->aType[nFound] == CSCAN_INTEGER ? 3 : 2));
            sqlite3_free(zVal);
            return SQLITE_ERROR;
          }
          pCur->aPart[nFound] = part;
        }
        nFound++;
      }
    }
  } else {
    const unsigned char *z;
    int i, iStart = 0;
    if (eType != SQLITE_TEXT) {
      zWhy = "is not text";
    } else {
      /* value_blob, not value_text: a text read from a page has no NUL, and value_text would copy it. */
      z = (const unsigned char *)sqlite3_value_blob(pKey);
      if (z == NULL) z = (const unsigned char *)"";
      pCur->aKey = z;
      pCur->nKey = sqlite3_value_bytes(pKey);
      pCur->bEsc = memchr(z, '\\', (size_t)pCur->nKey) != NULL;
      if (!pCur->bEsc) {
        /* No escapes (the common case): split at each separator with memchr. */
        for (;;) {
          const unsigned char *zSep =
              (const unsigned char *)memchr(&z[iStart], p->cSep, (size_t)(pCur->nKey - iStart));
          i = zSep ? (int)(zSep - z) : pCur->nKey;
          if (nFound < p->nPart) {
            pCur->aOff[nFound] = iStart;
            pCur->aLen[nFound] = i - iStart;
          }
          nFound++;
          if (zSep == NULL) break;
          iStart = i + 1;
        }
      } else {
        for (i = 0; i <= pCur->nKey && zWhy == NULL; i++) {
          if (i < pCur->nKey && z[i] == '\\') {
            if (i + 1 >= pCur->nKey || (z[i + 1] != p->cSep && z[i + 1] != '\\'))
              zWhy = "has a '\\' that escapes neither the separator nor '\\'";
            i++;
          } else if (i == pCur->nKey || z[i] == p->cSep) {
            if (nFound < p->nPart) {
              pCur->aOff[nFound] = iStart;
              pCur->aLen[nFound] = i - iStart;
            }
            nFound++;
            iStart = i + 1;
          }
        }
      }
    }
  }
  if (zWhy == NULL && nFound != p->nPart) {
    char *zVal = nosqlValueQuote(pKey);
    nosqlVtabError(pCur->base.pVtab, "composite_scan: key %s in %s has %d parts, expected %d%s",
                   zVal ? zVal : "?", p->zBase, nFound, p->nPart,
                   p->cSep >= 0 && nFound > p->nPart ? " (is a separator inside a part not escaped?)" : "");
    sqlite3_free(zVal);
    return SQLITE_ERROR;
  }
  if (zWhy) {
    char *zVal = nosqlValueQuote(pKey);
    nosqlVtabError(pCur->base.pVtab, "composite_scan: key %s in %s %s", zVal ? zVal : "?", p->zBase, zWhy);
    sqlite3_free(zVal);
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

static int cscanNext(sqlite3_vtab_cursor *pCursor) {
  cscan_cursor *pCur = (cscan_cursor *)pCursor;
  int rc;
  if (pCur->pStmt == NULL) {
    pCur->bEof = 1;
    return SQLITE_OK;
  }
  rc = sqlite3_step(pCur->pStmt);
  if (rc == SQLITE_ROW) {
    pCur->iRow++;
    return cscanSplitRow(pCur);
  }
  pCur->bEof = 1;
  if (rc == SQLITE_DONE) return SQLITE_OK;
  nosqlVtabError(pCursor->pVtab, "composite_scan: %s", sqlite3_errmsg(((cscan_vtab *)pCursor->pVtab)->db));
  return rc;
}

/* The key range xFilter builds from the plan's values, step by step. */
typedef struct CscanRange CscanRange;
struct CscanRange {
  int rc;             /* First error (the NosqlBuffer sticky code) */
  NosqlBuffer prefix; /* The encoded equality run */
  CscanBound lo;      /* Lower end of the range */
  CscanBound hi;      /* Upper end of the range */
  int bEmpty;         /* No key can match */
  int bZero;          /* A REAL part equals 0: the range is the -0.0 and 0.0 blocks, set */
};

/* The equality run on parts 0..nEq-1 becomes pR->prefix (or the range of a REAL zero). */
static void cscanRangeEq(cscan_vtab *p, const NosqlPlanArg *aArg, int nEq, CscanRange *pR) {
  int i;
  for (i = 0; i < nEq && !pR->bEmpty && !pR->bZero; i++) {
    sqlite3_int64 iVal = 0;
    double rVal = 0;
    int e = cscanNormalize(p->aType[i], SQLITE_INDEX_CONSTRAINT_EQ, aArg[i].pEq, &iVal, &rVal);
    if (e != CSCAN_BOUND) {
      pR->bEmpty = 1;
    } else if (p->aType[i] == CSCAN_REAL && rVal == 0.0 && p->cSep < 0) {
      /* x = 0 (or -0.0): the -0.0 block, then the 0.0 block right after it
      ** (nothing sorts between them). The constraints on later parts were
      ** left to SQLite (xBestIndex): skip their values. */
      NosqlBuffer b = {0, 0, 0};
      nosqlBufferAppend(&pR->rc, &b, pR->prefix.a, pR->prefix.n);
      cscanAppendPart(&pR->rc, p, &b, CSCAN_REAL, aArg[i].pEq, 0, -0.0, i == p->nPart - 1);
      if (pR->rc == SQLITE_OK) cscanSetBound(&pR->rc, p, &pR->lo, b.a, b.n, 1, 0);
      nosqlBufferReset(&b);
      nosqlBufferAppend(&pR->rc, &b, pR->prefix.a, pR->prefix.n);
      cscanAppendPart(&pR->rc, p, &b, CSCAN_REAL, aArg[i].pEq, 0, 0.0, i == p->nPart - 1);
      if (pR->rc == SQLITE_OK) cscanSetBound(&pR->rc, p, &pR->hi, b.a, b.n, 0, 1);
      nosqlBufferFree(&b);
      pR->bZero = 1;
    } else {
      cscanAppendPart(&pR->rc, p, &pR->prefix, p->aType[i], aArg[i].pEq, iVal, rVal, i == p->nPart - 1);
    }
  }
}

/* The range after the prefix: all of it, or the bounds on part nEq (CSCAN_LO, CSCAN_HI). */
static void cscanRangePart(cscan_vtab *p, int idxNum, const NosqlPlanArg *aArg, int nEq, CscanRange *pR) {
  int bLast = nEq == p->nPart - 1, i;
  if (pR->bZero || pR->bEmpty) return; /* A zero's range is set; key-column constraints narrow it later */
  if (nEq == p->nPart) {
    cscanSetBound(&pR->rc, p, &pR->lo, pR->prefix.a, pR->prefix.n, 1, 0);
    cscanSetBound(&pR->rc, p, &pR->hi, pR->prefix.a, pR->prefix.n, 1, 0);
    return;
  }
  if (nEq > 0) {
    cscanSetBound(&pR->rc, p, &pR->lo, pR->prefix.a, pR->prefix.n, 1, 0);
    cscanSetBound(&pR->rc, p, &pR->hi, pR->prefix.a, pR->prefix.n, 0, 1);
  }
  if ((idxNum & (CSCAN_LO | CSCAN_HI)) && p->cSep < 0) {
    /* A range excludes NULL parts (code 0x00); a lower bound may raise this. */
    static const unsigned char aOne[1] = {0x01};
    NosqlBuffer b = {0, 0, 0};
    nosqlBufferAppend(&pR->rc, &b, pR->prefix.a, pR->prefix.n);
    nosqlBufferAppend(&pR->rc, &b, aOne, 1);
    if (pR->rc == SQLITE_OK) cscanSetBound(&pR->rc, p, &pR->lo, b.a, b.n, 1, 0);
    nosqlBufferFree(&b);
  }
  for (i = 0; i < 2 && !pR->bEmpty; i++) {
    int bLower = i == 0;
    int bIncl, e;
    sqlite3_int64 iVal = 0;
    double rVal = 0;
    NosqlBuffer b = {0, 0, 0};
    if (!(idxNum & (bLower ? CSCAN_LO : CSCAN_HI))) continue;
    bIncl = (idxNum & (bLower ? CSCAN_LO_INCL : CSCAN_HI_INCL)) != 0;
    e = cscanNormalize(p->aType[nEq],
                       bLower ? (bIncl ? SQLITE_INDEX_CONSTRAINT_GE : SQLITE_INDEX_CONSTRAINT_GT)
                              : (bIncl ? SQLITE_INDEX_CONSTRAINT_LE : SQLITE_INDEX_CONSTRAINT_LT),
                       bLower ? aArg[nEq].pLo : aArg[nEq].pHi, &iVal, &rVal);
    if (e == CSCAN_EMPTY) {
      pR->bEmpty = 1;
      continue;
    }
    if (e == CSCAN_NONE) continue;
    if (e == CSCAN_BOUND_INCL) bIncl = 1;
    if (p->aType[nEq] == CSCAN_REAL && rVal == 0.0) {
      /* -0.0 sorts just before 0.0 and equals it: x >= 0 starts at -0.0,
      ** x > 0 after 0.0, x <= 0 ends after 0.0, x < 0 before -0.0. */
      rVal = (bLower == bIncl) ? -0.0 : 0.0;
    }
    nosqlBufferAppend(&pR->rc, &b, pR->prefix.a, pR->prefix.n);
    cscanAppendPart(&pR->rc, p, &b, p->aType[nEq], bLower ? aArg[nEq].pLo : aArg[nEq].pHi, iVal, rVal, bLast);
    if (pR->rc != SQLITE_OK) {
      nosqlBufferFree(&b);
      break;
    }
    /*
    ** Keys with this part equal to the value all start with b (the
    ** encodings are prefix-free), except the last part of a text key,
    ** where the key is b itself.
    */
    if (p->cSep >= 0 && bLast) {
      cscanSetBound(&pR->rc, p, bLower ? &pR->lo : &pR->hi, b.a, b.n, bIncl, 0);
    } else if (bLower) {
      cscanSetBound(&pR->rc, p, &pR->lo, b.a, b.n, 1, !bIncl);
      if (!pR->lo.bSet) pR->bEmpty = 1; /* Nothing follows an all-0xFF prefix */
    } else {
      CscanBound t;
      memset(&t, 0, sizeof(t));
      cscanSetBound(&pR->rc, p, &t, b.a, b.n, 0, bIncl);
      if (t.bSet) {
        nosqlBufferFree(&pR->hi.b);
        pR->hi = t;
      } else {
        nosqlBufferFree(&t.b);
      }
    }
    nosqlBufferFree(&b);
  }
}

/* Key-column constraints narrow the range (continuation): CSCAN_KLO, CSCAN_KHI, CSCAN_KEQ. */
static void cscanRangeKey(cscan_vtab *p, int idxNum, const NosqlPlanArg *pKey, CscanRange *pR) {
  int i;
  for (i = 0; i < 3 && pR->rc == SQLITE_OK; i++) {
    static const int aFlag[3] = {CSCAN_KLO, CSCAN_KHI, CSCAN_KEQ};
    int eKeyType = p->cSep >= 0 ? CSCAN_TEXT : CSCAN_BLOB;
    int eOp, e, bIncl;
    sqlite3_value *pVal;
    sqlite3_int64 iVal = 0;
    double rVal = 0;
    if (!(idxNum & aFlag[i])) continue;
    pVal = pKey == NULL ? NULL : i == 0 ? pKey->pLo : i == 1 ? pKey->pHi : pKey->pEq;
    if (pVal == NULL) continue;
    if (pR->bEmpty) continue;
    if (i == 0) {
      bIncl = (idxNum & CSCAN_KLO_INCL) != 0;
      eOp = bIncl ? SQLITE_INDEX_CONSTRAINT_GE : SQLITE_INDEX_CONSTRAINT_GT;
    } else if (i == 1) {
      bIncl = (idxNum & CSCAN_KHI_INCL) != 0;
      eOp = bIncl ? SQLITE_INDEX_CONSTRAINT_LE : SQLITE_INDEX_CONSTRAINT_LT;
    } else {
      bIncl = 1;
      eOp = SQLITE_INDEX_CONSTRAINT_EQ;
    }
    if (eKeyType == CSCAN_TEXT && !p->bKeyText && sqlite3_value_type(pVal) != SQLITE_TEXT) {
      /* A text key in a column without TEXT affinity: SQLite converts no
      ** value, and numbers sort before text, blobs after it. */
      int bNum = sqlite3_value_type(pVal) != SQLITE_BLOB;
      e = eOp == SQLITE_INDEX_CONSTRAINT_EQ ? CSCAN_EMPTY : (i == 0) == bNum ? CSCAN_NONE : CSCAN_EMPTY;
    } else {
      e = cscanNormalize(eKeyType, eOp, pVal, &iVal, &rVal);
    }
    if (e == CSCAN_EMPTY) {
      pR->bEmpty = 1;
    } else if (e == CSCAN_BOUND) {
      const unsigned char *a =
          eKeyType == CSCAN_TEXT ? sqlite3_value_text(pVal) : (const unsigned char *)sqlite3_value_blob(pVal);
      sqlite3_int64 n = sqlite3_value_bytes(pVal);
      if (a == NULL) a = (const unsigned char *)"";
      if (i != 1) cscanNarrow(&pR->rc, p, &pR->lo, a, n, bIncl, 1);
      if (i != 0) cscanNarrow(&pR->rc, p, &pR->hi, a, n, bIncl, 0);
    }
  }
}

/* The inner statement of the range's shape for the cursor: cached, or prepared now; then bound. */
static int cscanRangeStmt(cscan_vtab *p, cscan_cursor *pCur, int idxNum, const CscanRange *pR) {
  static const char *azLo[3] = {"", "\"%w\" >= ?1", "\"%w\" > ?1"};
  static const char *azHi[3] = {"", "\"%w\" <= ?2", "\"%w\" < ?2"};
  int eLo = pR->lo.bSet ? (pR->lo.bIncl ? 1 : 2) : 0;
  int eHi = pR->hi.bSet ? (pR->hi.bIncl ? 1 : 2) : 0;
  int bDesc = (idxNum & CSCAN_DESC) != 0, rc = SQLITE_OK;
  char zShape[8];
  sqlite3_snprintf((int)sizeof(zShape), zShape, "s%d", eLo + 3 * eHi + 9 * bDesc);
  pCur->pStmt = nosqlStmtCacheTake(&p->stmts, zShape, &pCur->pSlot);
  if (pCur->pStmt == NULL) {
    NosqlBuffer sql = {0, 0, 0};
    nosqlBufferAppendf(&rc, &sql, "%s", p->zSelect);
    if (eLo || eHi) nosqlBufferAppendf(&rc, &sql, " WHERE ");
    if (eLo) nosqlBufferAppendf(&rc, &sql, azLo[eLo], p->zKey);
    if (eLo && eHi) nosqlBufferAppendf(&rc, &sql, " AND ");
    if (eHi) nosqlBufferAppendf(&rc, &sql, azHi[eHi], p->zKey);
    nosqlBufferAppendf(&rc, &sql, " ORDER BY \"%w\"%s", p->zKey, bDesc ? " DESC" : "");
    if (rc == SQLITE_OK) {
      rc = sqlite3_prepare_v3(p->db, (const char *)sql.a, -1, SQLITE_PREPARE_PERSISTENT, &pCur->pStmt, 0);
    }
    nosqlBufferFree(&sql);
    if (rc == SQLITE_OK) nosqlStmtCacheKeep(&p->stmts, zShape, pCur->pStmt, &pCur->pSlot);
  }
  if (rc == SQLITE_OK && pR->lo.bSet) rc = cscanBind(p, pCur->pStmt, 1, &pR->lo);
  if (rc == SQLITE_OK && pR->hi.bSet) rc = cscanBind(p, pCur->pStmt, 2, &pR->hi);
  return rc;
}

/*
** xFilter: the plan's values become one key range (cscanRangeEq, then
** cscanRangePart, then cscanRangeKey), which the inner statement of its
** shape scans (cscanRangeStmt).
*/
static int cscanFilter(sqlite3_vtab_cursor *pCursor, int idxNum, const char *idxStr, int argc,
                       sqlite3_value **argv) {
  cscan_cursor *pCur = (cscan_cursor *)pCursor;
  cscan_vtab *p = (cscan_vtab *)pCursor->pVtab;
  int nEq = idxNum & CSCAN_NEQ_MASK, rc;
  int nSlot = p->nPart + 1 > NOSQL_PLAN_MAX_COL ? NOSQL_PLAN_MAX_COL : p->nPart + 1;
  NosqlPlanArg aArg[NOSQL_PLAN_MAX_COL];
  const NosqlPlanArg *pKey = p->nPart < nSlot ? &aArg[p->nPart] : NULL;
  CscanRange r;

  memset(&r, 0, sizeof(r));
  if (nosqlPlanArgs(idxStr, argc, argv, aArg, nSlot) != SQLITE_OK || nEq > nSlot) {
    nosqlVtabError(pCursor->pVtab, "composite_scan: bad plan '%s'", idxStr ? idxStr : "");
    return SQLITE_ERROR;
  }
  cscanRelease(pCur);
  pCur->bEof = 1;
  pCur->iRow = 0;
  cscanRangeEq(p, aArg, nEq, &r);
  cscanRangePart(p, idxNum, aArg, nEq, &r);
  cscanRangeKey(p, idxNum, pKey, &r);
  rc = r.rc;
  if (rc == SQLITE_OK && !r.bEmpty) rc = cscanRangeStmt(p, pCur, idxNum, &r);
  nosqlBufferFree(&r.prefix);
  nosqlBufferFree(&r.lo.b);
  nosqlBufferFree(&r.hi.b);
  if (rc != SQLITE_OK) {
    nosqlVtabError(pCursor->pVtab, "composite_scan: %s", sqlite3_errmsg(p->db));
    return rc;
  }
  if (r.bEmpty) return SQLITE_OK;
  pCur->bEof = 0;
  return cscanNext(pCursor);
}

static int cscanEof(sqlite3_vtab_cursor *pCursor) { return ((cscan_cursor *)pCursor)->bEof; }

/*
** Result text z[0..n) that lives in the inner statement's row. It is
** copied through the cursor's buffer with a NUL after it and handed over
** with length -1: SQLite then marks the value NUL-terminated, and
** sqlite3_value_text() on it (length(), the application reading it) does
** not have to copy it once more. Text holding a NUL byte keeps its length.
*/
static void cscanResultText(cscan_cursor *pCur, sqlite3_context *ctx, const unsigned char *z, int n) {
  int rc = SQLITE_OK;
  if (n == 0 || memchr(z, 0, (size_t)n) != NULL) {
    sqlite3_result_text(ctx, n ? (const char *)z : "", n, SQLITE_TRANSIENT);
    return;
  }
  if (pCur->scratch.nAlloc <= n) {
    nosqlBufferReset(&pCur->scratch);
    nosqlBufferGrow(&rc, &pCur->scratch, n);
    if (rc != SQLITE_OK) {
      sqlite3_result_error_nomem(ctx);
      return;
    }
  }
  /* Inline rather than nosqlBufferAppend: this runs once per part and row. */
  memcpy(pCur->scratch.a, z, (size_t)n);
  pCur->scratch.a[n] = 0;
  sqlite3_result_text(ctx, (const char *)pCur->scratch.a, -1, SQLITE_TRANSIENT);
}

static int cscanColumn(sqlite3_vtab_cursor *pCursor, sqlite3_context *ctx, int iCol) {
  cscan_cursor *pCur = (cscan_cursor *)pCursor;
  cscan_vtab *p = (cscan_vtab *)pCursor->pVtab;
  if (iCol >= p->nPart) {
    /* A base column, straight from the inner row; the key is its column 0. */
    int iInner = iCol - p->nPart == p->iKeyCol ? 0 : 1 + iCol - p->nPart;
    sqlite3_result_value(ctx, sqlite3_column_value(pCur->pStmt, iInner));
    return SQLITE_OK;
  }
  if (p->cSep < 0) {
    const CkeyPart *pPart = &pCur->aPart[iCol];
    if (pPart->eType == SQLITE_TEXT && pPart->nData == pPart->nRaw) {
      cscanResultText(pCur, ctx, pPart->z, pPart->nData); /* The common case, without a copy more */
    } else {
      ckeyResultPart(ctx, pPart);
    }
  } else {
    const unsigned char *z = &pCur->aKey[pCur->aOff[iCol]];
    int n = pCur->aLen[iCol];
    if (!pCur->bEsc || memchr(z, '\\', (size_t)n) == NULL) {
      cscanResultText(pCur, ctx, z, n);
    } else {
      char *a = (char *)sqlite3_malloc64((sqlite3_uint64)n + 1);
      int i, j = 0;
      if (a == NULL) return SQLITE_NOMEM;
      for (i = 0; i < n; i++) {
        if (z[i] == '\\') i++; /* cscanSplitRow checked that an escaped byte follows */
        a[j++] = (char)z[i];
      }
      sqlite3_result_text(ctx, a, j, sqlite3_free);
    }
  }
  return SQLITE_OK;
}

/* The rowid is the row's position in this scan: base tables may have none. */
static int cscanRowid(sqlite3_vtab_cursor *pCursor, sqlite_int64 *pRowid) {
  cscan_cursor *pCur = (cscan_cursor *)pCursor;
  cscan_vtab *p = (cscan_vtab *)pCursor->pVtab;
  if (p->iRowidCol >= 0 && pCur->pStmt) {
    *pRowid = sqlite3_column_int64(pCur->pStmt, p->iRowidCol);
  } else if (p->bHashRowid && pCur->pStmt) {
    /* FNV-1a over each column's type and bytes. */
    sqlite3_uint64 h = 14695981039346656037ULL;
    int i, k;
    for (i = 0; i < sqlite3_column_count(pCur->pStmt); i++) {
      int eType = sqlite3_column_type(pCur->pStmt, i);
      const unsigned char *z =
          eType == SQLITE_NULL ? (const unsigned char *)"" : sqlite3_column_blob(pCur->pStmt, i);
      int n = sqlite3_column_bytes(pCur->pStmt, i);
      h = (h ^ (sqlite3_uint64)eType) * 1099511628211ULL;
      for (k = 0; k < n; k++) h = (h ^ z[k]) * 1099511628211ULL;
      h = (h ^ 0xff) * 1099511628211ULL;
    }
    *pRowid = (sqlite3_int64)(h >> 1);
  } else {
    *pRowid = pCur->iRow;
  }
  return SQLITE_OK;
}

static sqlite3_module cscanModule = {
    0,               /* iVersion */
    cscanConnect,    /* xCreate */
    cscanConnect,    /* xConnect */
    cscanBestIndex,  /* xBestIndex */
    cscanDisconnect, /* xDisconnect */
    cscanDisconnect, /* xDestroy */
    cscanOpen,       /* xOpen */
    cscanClose,      /* xClose */
    cscanFilter,     /* xFilter */
    cscanNext,       /* xNext */
    cscanEof,        /* xEof */
    cscanColumn,     /* xColumn */
    cscanRowid,      /* xRowid */
    0,               /* xUpdate: read-only; writes go to the base table */
    0,               /* xBegin */
    0,               /* xSync */
    0,               /* xCommit */
    0,               /* xRollback */
    0,               /* xFindFunction */
    0,               /* xRename */
    0,               /* xSavepoint */
    0,               /* xRelease */
    0,               /* xRollbackTo */
    0,               /* xShadowName */
};

int compositeScanRegister(sqlite3 *db) {
  return sqlite3_create_module(db, "composite_scan", &cscanModule, 0);
}
