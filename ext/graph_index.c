/*
** graph_index.c: a persistent, compact adjacency copy of an edge table
** (technique 12 of the article: the adjacency list stored ready for
** traversal, as a graph database keeps it).
**
**   CREATE VIRTUAL TABLE g USING graph_index(edges, from_col, to_col
**       [, weight = col] [, layout = 'edges' | 'json'] [, mode = 'deferred']);
**   INSERT INTO g(g) VALUES('rebuild' | 'refresh' | 'integrity-check');
**   SELECT node, out_degree, in_degree FROM g;
**
** The edge table must be a rowid table with an INTEGER PRIMARY KEY (the
** index keeps each list in rowid order, and VACUUM may renumber the rowids
** of a table without one) in the schema of the index. Every graph function
** (ext/graph_source.c's graphSourceLoad()) loads a graph from an up-to-date
** graph_index over the same table and columns instead of scanning the
** table, and accepts the index's name as its source.
**
** The virtual table behaves as
**
**   CREATE TABLE g(node, out_degree INTEGER, in_degree INTEGER,
**                  g HIDDEN,            -- commands
**                  op_rowid HIDDEN, op_from HIDDEN, op_to HIDDEN,
**                  op_weight HIDDEN);   -- the triggers' operands
**
** one row per node (an endpoint of an edge), in the order the graph
** functions give their rows: the order a rowid scan of the edge table first
** meets them. Reading is a full scan.
**
** How it works. Shadow tables (format 3, docs/graphs.md):
**
**   g_config(k PRIMARY KEY, v)   'format' (3), 'table', 'from', 'to',
**                                'weight' (NULL), 'layout', 'mode',
**                                'next' (the next node number)
**   g_num(value PRIMARY KEY, id) WITHOUT ROWID: the dense number of each
**                                node value. value has no affinity, so 1
**                                and 1.0 are one node and text compares by
**                                bytes, as the graph functions' in-memory
**                                copy compares nodes (GraphValue).
**                                'rebuild' numbers by in-degree, highest
**                                first: the neighbours met most often take
**                                one-byte varints. A number whose node lost
**                                its edges stays (knowing that no list
**                                names it would cost a seek of to_col, in
**                                the JSON layout a scan of every array):
**                                the loads skip it, 'rebuild' drops it.
**   g_blk(k INTEGER PRIMARY KEY, data)
**                                a group of consecutive node numbers k,
**                                k + 1, ... up to the next row's key
**                                ('rebuild' writes two a page,
**                                giGroupFill(); a write splits one past
**                                2 * GI_GROUP_BYTES). data: per node a
**                                slot, its out-list: a varint count and,
**                                when not 0,
**                                the zigzag rowid of the first edge and the
**                                edges in rowid order, each the gap from
**                                the previous edge's rowid (a varint; none
**                                before the first; 0 only within a JSON
**                                row), the neighbour's number (7 bits a
**                                byte, low first) and, with weight=, the
**                                weight (giPutWeight()).
**   g_tail(k INTEGER PRIMARY KEY, first, n, list)
**                                edges appended to node k's out-list by a
**                                change that went through the index (each
**                                the neighbour, the weight, the zigzag
**                                rowid), merged into the group at
**                                GI_TAIL_BYTES.
**   g_pend(p INTEGER PRIMARY KEY, r, f, t, w, fi, ti)
**                                inserts the trigger wrote without the
**                                index (giPendFold()).
**   g_flag(x)                    a row while a stash awaits its insert.
**   g_log(f, t)                  deferred mode: endpoints of changed rows.
**   g_row(id INTEGER PRIMARY KEY, r)
**                                layout 'json' only: each row node's first
**                                rowid.
**
** No in-list is stored: the only reader of the lists is the whole-graph
** load, which derives the in-lists, the in-degrees and the node order
** from the out-lists and their rowids. Every write touches the out-list of
** its row's source only.
**
** The JSON layout (layout = 'json'): one row per node, to_col a JSON array
** of its neighbours; each element not JSON null is an edge (weight: the
** row's), every row a node (NULL or [] included). An edge's "rowid" is its
** row's (gap 0 between the elements of one row), and lists are in rowid,
** then array order. A row node's first rowid is in g_row: the load meets
** it there, before the row's elements. g_pend is not used: every write
** sends the row through 'sync'; an insert past every rowid with nothing
** stashed appends its edges to the tail (giJsonAppend()), any other
** rebuilds the row node's out-list (giListRebuild(): one seek of
** from_col). A to_col that is not an array is refused naming the node
** (giJsonNotArray(), giJsonMalformed()).
**
** Sync mode: the common insert (endpoints not NULL, a good weight, a
** rowid past every rowid of the table, no stash) is one row the AFTER
** INSERT trigger writes to g_pend (fi and ti, the endpoints' numbers, left
** NULL: the fold looks them up through the cache, a load by value; a
** lookup in the trigger cost 12% of an insert's instructions): the loads
** take those rows in, and every operation of the index, and every
** GI_PEND_MAX-th row, first folds them into the groups (giPendFold():
** each touched group rewritten once). Any other insert
** goes through the virtual table (INSERT INTO g(g, op_...)
** VALUES('insert', ...)), which rebuilds the source's out-list from the
** edge table with one index seek (SELECT ... WHERE from_col = ? ORDER BY
** rowid) unless its rowid is past every rowid of the table (then it
** appends to the tail); deletes and updates rebuild the out-lists of the
** old (and new) source. Rows that a REPLACE displaces at the new rowid, or
** through a UNIQUE index of the table, are stashed by BEFORE triggers
** (whose WHEN clause keeps the common insert cheap, and which set g_flag
** so that the insert goes through the index) and their sources' lists
** rebuilt too. The update triggers fire on the rowid through each of its
** names (rowid, _rowid_, oid, the INTEGER PRIMARY KEY), and on every
** UPDATE that changes what the index reads when an endpoint, the weight or
** a UNIQUE key is a generated column (giCreateTriggers()). The commands
** the triggers send ('insert', 'sync', 'stash', 'fold') are open to any
** SQL, so none can make the index disagree with its table: 'insert' reads
** its row from the table by rowid and rebuilds the source's list, the
** others rebuild lists from the table or append a JSON row only for a node
** that has none in the index yet; the rows of g_pend are taken in only
** when the table holds them (giPendSql()). Every write is plain SQL in the user's transaction:
** ROLLBACK and savepoints need nothing more. The only state kept in memory
** across calls is a cache of node numbers (GiCached), emptied by every
** transaction and savepoint hook, and the stash. Deferred mode: the
** triggers (built-in SQL only) log the endpoints; 'refresh' rebuilds the
** logged sources' out-lists. Until then graph functions read the edge
** table. In both modes an index is up to date only while its five
** triggers sit on its edge table (sqlite_schema's tbl_name) with the text
** this version makes (giTriggersCurrent()): after the table was dropped or
** renamed and a new one made under its name, or a UNIQUE index added, the
** graph functions read the table and the index's reads and 'refresh'
** refuse it until 'rebuild'.
**
** Loading (graphIndexLoad(), called by graphSourceLoad(); giLoad()): one scan
** of "<name>_blk" in key order and one of "<name>_tail" decode every edge
** (source number, neighbour number, rowid); giLoadOrder() orders them by
** rowid (a counting sort over rowid - least rowid when the rowids span at
** most a few times the edge count, a direct placement when they are every
** rowid of the range once, an LSD radix sort otherwise; stable, so that a
** JSON row's edges keep their order); one pass in that order numbers the
** nodes as a rowid scan of the table meets them (source, then neighbour;
** a JSON row's node first); one scan of "<name>_num" gives their values;
** the pending rows come last (new nodes last); the out-lists are filled
** in the decode order, the in-lists in rowid order. Every count, key,
** number and rowid gap read is checked: damage is SQLITE_CORRUPT_VTAB
** naming the index, never a wrong graph. 'integrity-check' compares a
** load of the index with a load of the table (nodes, their order, every
** out- and in-list) and the edges' rowids, in rowid order, with the
** table's (giCheckRowids()).
*/
#include "nosqlInt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GI_FORMAT GRAPH_INDEX_FORMAT /* Format of the shadow tables written here */
#define GI_GROUP_BYTES 1800          /* A write splits a group past twice this into groups of about this */
#define GI_TAIL_BYTES 256            /* A tail is merged into its group when it reaches this */
#define GI_MAX_ID 0x3fffffff         /* Node numbers fit an int */
#define GI_PEND_MAX 16384            /* Rows of <name>_pend folded into the lists at once */

/* Columns of the virtual table. */
#define GI_COL_NODE 0
#define GI_COL_OUT 1
#define GI_COL_IN 2
#define GI_COL_CMD 3
#define GI_COL_ROWID 4
#define GI_COL_FROM 5
#define GI_COL_TO 6
#define GI_COL_WEIGHT 7
#define GI_NCOL 8

/* Cached statements. */
#define GI_S_NODE_FIND 0
#define GI_S_NODE_ADD 1
#define GI_S_GROUP_FIND 2
#define GI_S_GROUP_PUT 3
#define GI_S_TAIL_APPEND 4
#define GI_S_LIST_OUT 5
#define GI_S_TAIL_GET 6
#define GI_S_TAIL_DEL 7
#define GI_S_PAST 8
#define GI_S_PEND_READ 9
#define GI_S_PEND_DEL 10
#define GI_S_TAIL_ANY 11
#define GI_S_GROUP_NEXT 12
#define GI_S_NEXT_GET 13
#define GI_S_NEXT_SET 14
#define GI_S_ROW_SET 15
#define GI_S_ROW_DEL 16
#define GI_S_ROW_HAS 17
#define GI_NSTMT 18

typedef struct GiStash GiStash;
typedef struct gi_vtab gi_vtab;
typedef struct gi_cursor gi_cursor;

/* An out-list to rebuild: its node. */
struct GiStash {
  GraphValue v; /* The node (z owned) */
};

struct gi_vtab {
  sqlite3_vtab base;             /* Base class - must be first */
  sqlite3 *db;                   /* The connection */
  char *zDb;                     /* Schema of the index and its table */
  char *zName;                   /* Name of the index */
  char *zTable, *zFrom, *zTo;    /* The edge table and its columns, as declared */
  char *zWeight;                 /* Weight column, or NULL */
  int bDeferred;                 /* mode = 'deferred' */
  int bJson;                     /* layout = 'json': one row per node, to_col a JSON array */
  char *zDamage;                 /* Why the shadow tables cannot be used, or NULL */
  sqlite3_stmt *aStmt[GI_NSTMT]; /* Prepared on first use */
  GiStash *aStash;               /* Lists to rebuild at the next 'insert' or 'sync' */
  int nStash, nStashAlloc;       /* Entries used, allocated */
  GraphSet cache;                /* Node numbers read or made in this transaction (GiCached) */
};

/*
** A node number known in the current transaction. The cache is emptied
** when the transaction begins and ends, at every rollback to a savepoint
** or of a statement (xRollbackTo), when a number is dropped and by
** 'rebuild': the numbers it holds are then always those g_node holds.
*/
typedef struct GiCached GiCached;
struct GiCached {
  GraphValue v;     /* The node (must be first: a GraphSet element) */
  sqlite3_int64 id; /* Its number */
};
#define GI_CACHE_MAX 1000000 /* Entries before the cache starts over */

struct gi_cursor {
  sqlite3_vtab_cursor base; /* Base class - must be first */
  GraphCsr *pCsr;           /* The graph, loaded from the index by xFilter */
  sqlite3_int64 iRow;       /* Rowid of the row: its node's position + 1 */
};

/*
** One row of "<name>_blk" read for a change: the group of node numbers
** k, k + 1, ... up to the next row's key, and its bytes (a copy).
*/
typedef struct GiGroup GiGroup;
struct GiGroup {
  sqlite3_int64 k; /* Its key: the number of its first slot */
  NosqlBuffer b;   /* Its bytes */
};

/* A node's slot in a group, as giSlotFind() decodes it. */
typedef struct GiSlot GiSlot;
struct GiSlot {
  sqlite3_int64 iStart, iEnd; /* Its bytes in the group: [iStart, iEnd) */
  int nPad;                   /* Empty slots to write before it (it is past the group's last) */
  sqlite3_int64 nEdge;        /* Edges of its out-list */
  sqlite3_int64 iFirst;       /* Rowid of the first (when nEdge > 0) */
  sqlite3_int64 iOff;         /* Offset of the edges in the group */
  sqlite3_int64 nByte;        /* Their bytes */
};

/**************************************************************************
** Encoding.
*/

static void giPutVarint(int *pRc, NosqlBuffer *p, sqlite3_uint64 v) {
  unsigned char a[10];
  int n = 0;
  do {
    a[n] = (unsigned char)(v & 0x7f);
    v >>= 7;
    if (v) a[n] |= 0x80;
    n++;
  } while (v);
  nosqlBufferAppend(pRc, p, a, n);
}

/* Decode a varint at a[*pi] (n bytes in all): 1 and *pv, or 0 when malformed. */
static int giGetVarint(const unsigned char *a, int n, int *pi, sqlite3_uint64 *pv) {
  sqlite3_uint64 v = 0;
  int s = 0;
  while (*pi < n && s < 64) {
    unsigned char c = a[(*pi)++];
    v |= (sqlite3_uint64)(c & 0x7f) << s;
    if ((c & 0x80) == 0) {
      *pv = v;
      return 1;
    }
    s += 7;
  }
  return 0;
}

/*
** A weight: a varint t, then for t = 1 an IEEE double and for t = 3 an
** int64 (8 bytes, low first); any other t is the integer (t >> 1) zigzag
** decoded. Reals keep their type: a job's distances are integers only
** while every weight is one.
*/
static void giPutWeightRaw(int *pRc, NosqlBuffer *p, int bInt, sqlite3_int64 v, double r) {
  unsigned char a[8];
  sqlite3_uint64 u;
  int i;
  if (bInt) {
    if (v >= -((sqlite3_int64)1 << 61) && v < ((sqlite3_int64)1 << 61)) {
      u = v < 0 ? ((sqlite3_uint64)(-(v + 1)) << 1) | 1 : (sqlite3_uint64)v << 1;
      giPutVarint(pRc, p, u << 1);
      return;
    }
    giPutVarint(pRc, p, 3);
    u = (sqlite3_uint64)v;
  } else {
    giPutVarint(pRc, p, 1);
    memcpy(&u, &r, 8);
  }
  for (i = 0; i < 8; i++) a[i] = (unsigned char)(u >> (8 * i));
  nosqlBufferAppend(pRc, p, a, 8);
}

static void giPutWeight(int *pRc, NosqlBuffer *p, sqlite3_value *pW) {
  int bInt = sqlite3_value_type(pW) == SQLITE_INTEGER;
  giPutWeightRaw(pRc, p, bInt, bInt ? sqlite3_value_int64(pW) : 0, bInt ? 0.0 : sqlite3_value_double(pW));
}

/* A rowid as a varint: zigzag, so that negative rowids stay short. */
static void giPutRowid(int *pRc, NosqlBuffer *p, sqlite3_int64 v) {
  giPutVarint(pRc, p, v < 0 ? ((sqlite3_uint64)(-(v + 1)) << 1) | 1 : (sqlite3_uint64)v << 1);
}

static int giGetRowid(const unsigned char *a, int n, int *pi, sqlite3_int64 *pv) {
  sqlite3_uint64 u;
  if (!giGetVarint(a, n, pi, &u)) return 0;
  *pv = (u & 1) ? -(sqlite3_int64)(u >> 1) - 1 : (sqlite3_int64)(u >> 1);
  return 1;
}

/* Decode a weight: 1 with *pr and *pbInt, or 0 when malformed. */
static int giGetWeight(const unsigned char *a, int n, int *pi, double *pr, int *pbInt) {
  sqlite3_uint64 t, u = 0;
  int k;
  if (!giGetVarint(a, n, pi, &t)) return 0;
  if (t == 1 || t == 3) {
    if (*pi + 8 > n) return 0;
    for (k = 0; k < 8; k++) u |= (sqlite3_uint64)a[*pi + k] << (8 * k);
    *pi += 8;
    if (t == 1) {
      memcpy(pr, &u, 8);
      *pbInt = 0;
    } else {
      *pr = (double)(sqlite3_int64)u;
      *pbInt = 1;
    }
    return 1;
  }
  if (t & 1) return 0;
  t >>= 1;
  *pr = (t & 1) ? -(double)(t >> 1) - 1.0 : (double)(t >> 1);
  *pbInt = 1;
  return 1;
}

/**************************************************************************
** Statements and errors.
*/

static int giExec(sqlite3 *db, char *zSql) {
  int rc;
  if (zSql == NULL) return SQLITE_NOMEM;
  rc = sqlite3_exec(db, zSql, 0, 0, 0);
  sqlite3_free(zSql);
  return rc;
}

/* The cached statement iStmt, prepared on first use (NULL with *pRc set on error). */
/*
** The SELECT of the rows of <name>_pend for the loads and the fold: f, t,
** w, 0, 0, r, ok in insert order (the node numbers fi and ti, which the
** triggers never write, are not read). ok: the edge table holds that row
** with those endpoints and weight (by type and bytes); the readers pass
** the others by. <name>_pend is a plain table, written by the triggers in
** plain SQL (defensive mode refuses that for a shadow table): a row
** written there by hand that names no edge of the table adds nothing (a
** copy of an edge the lists hold gives two edges one rowid: damage). The
** JSON layout has none. sqlite3_mprintf'd, or NULL.
*/
static char *giPendSql(const char *zSchema, const char *zIndex, int bJson, const char *zTable,
                       const char *zFrom, const char *zTo, const char *zWeight) {
  char *zW =
      zWeight ? sqlite3_mprintf(" AND s.\"%w\" IS p.w AND typeof(s.\"%w\") = typeof(p.w)", zWeight, zWeight)
              : sqlite3_mprintf("%s", "");
  char *zSql =
      zW ? sqlite3_mprintf(
               "SELECT p.f, p.t, p.w, 0, 0, p.r, s.rowid IS NOT NULL AND s.\"%w\" IS p.f COLLATE BINARY AND "
               "typeof(s.\"%w\") = typeof(p.f) AND s.\"%w\" IS p.t COLLATE BINARY AND typeof(s.\"%w\") = "
               "typeof(p.t)%s%s FROM \"%w\".\"%w_pend\" AS p LEFT JOIN \"%w\".\"%w\" AS s ON s.rowid = "
               "p.r ORDER BY p.p",
               zFrom, zFrom, zTo, zTo, zW, bJson ? " AND 0" : "", zSchema, zIndex, zSchema, zTable)
         : NULL;
  sqlite3_free(zW);
  return zSql;
}

static sqlite3_stmt *giStmt(gi_vtab *p, int iStmt, int *pRc) {
  char *zSql = NULL;
  const char *zOrd = "\"%w\"";
  (void)zOrd;
  if (*pRc != SQLITE_OK) return NULL;
  if (p->aStmt[iStmt]) {
    sqlite3_reset(p->aStmt[iStmt]);
    sqlite3_clear_bindings(p->aStmt[iStmt]);
    return p->aStmt[iStmt];
  }
  switch (iStmt) {
    case GI_S_NODE_FIND:
      zSql = sqlite3_mprintf("SELECT id FROM \"%w\".\"%w_num\" WHERE value = ?1", p->zDb, p->zName);
      break;
    case GI_S_NODE_ADD:
      zSql = sqlite3_mprintf("INSERT INTO \"%w\".\"%w_num\"(value, id) VALUES(?1, ?2)", p->zDb, p->zName);
      break;
    case GI_S_NEXT_GET:
      zSql = sqlite3_mprintf("SELECT v FROM \"%w\".\"%w_config\" WHERE k = 'next'", p->zDb, p->zName);
      break;
    case GI_S_NEXT_SET:
      zSql = sqlite3_mprintf("INSERT OR REPLACE INTO \"%w\".\"%w_config\"(k, v) VALUES('next', ?1)", p->zDb,
                             p->zName);
      break;
    case GI_S_GROUP_FIND:
      zSql = sqlite3_mprintf("SELECT k, data FROM \"%w\".\"%w_blk\" WHERE k <= ?1 ORDER BY k DESC LIMIT 1",
                             p->zDb, p->zName);
      break;
    case GI_S_GROUP_PUT:
      zSql = sqlite3_mprintf("INSERT OR REPLACE INTO \"%w\".\"%w_blk\"(k, data) VALUES(?1, ?2)", p->zDb,
                             p->zName);
      break;
    case GI_S_TAIL_APPEND:
      /* The common insert in one statement: a new tail, or the tail one edge longer while it has room. */
      zSql = sqlite3_mprintf(
          "INSERT INTO \"%w\".\"%w_tail\"(k, first, n, list) VALUES(?1, ?2, 1, ?3) ON CONFLICT(k) DO UPDATE "
          "SET list = CAST(list || excluded.list AS BLOB), n = n + 1 WHERE length(list) < %d",
          p->zDb, p->zName, GI_TAIL_BYTES);
      break;
    case GI_S_TAIL_GET:
      zSql = sqlite3_mprintf("SELECT first, n, list FROM \"%w\".\"%w_tail\" WHERE k = ?1", p->zDb, p->zName);
      break;
    case GI_S_TAIL_DEL:
      zSql = sqlite3_mprintf("DELETE FROM \"%w\".\"%w_tail\" WHERE k = ?1", p->zDb, p->zName);
      break;
    case GI_S_PEND_READ:
      zSql = giPendSql(p->zDb, p->zName, p->bJson, p->zTable, p->zFrom, p->zTo, p->zWeight);
      break;
    case GI_S_TAIL_ANY:
      zSql = sqlite3_mprintf("SELECT 1 FROM \"%w\".\"%w_tail\" LIMIT 1", p->zDb, p->zName);
      break;
    case GI_S_GROUP_NEXT:
      zSql = sqlite3_mprintf("SELECT min(k) FROM \"%w\".\"%w_blk\" WHERE k > ?1", p->zDb, p->zName);
      break;
    case GI_S_PEND_DEL:
      zSql = sqlite3_mprintf("DELETE FROM \"%w\".\"%w_pend\"", p->zDb, p->zName);
      break;
    case GI_S_PAST:
      zSql = sqlite3_mprintf("SELECT 1 FROM \"%w\".\"%w\" WHERE rowid > ?1 LIMIT 1", p->zDb, p->zTable);
      break;
    case GI_S_ROW_SET:
      zSql =
          sqlite3_mprintf("INSERT OR REPLACE INTO \"%w\".\"%w_row\"(id, r) VALUES(?1, ?2)", p->zDb, p->zName);
      break;
    case GI_S_ROW_DEL:
      zSql = sqlite3_mprintf("DELETE FROM \"%w\".\"%w_row\" WHERE id = ?1", p->zDb, p->zName);
      break;
    case GI_S_ROW_HAS:
      zSql = sqlite3_mprintf("SELECT 1 FROM \"%w\".\"%w_row\" WHERE id = ?1", p->zDb, p->zName);
      break;
    case GI_S_LIST_OUT: {
      /*
      ** A node's out-list in rowid order. The JSON layout: the node's rows
      ** (each, NULL or [] included, with its first row's rowid: <name>_row)
      ** and their elements, in rowid, then array order.
      */
      char *zW = p->zWeight ? sqlite3_mprintf("s.\"%w\"", p->zWeight) : sqlite3_mprintf("NULL");
      if (zW == NULL) break;
      if (p->bJson) {
        zSql = sqlite3_mprintf(
            "SELECT s.rowid, j.value, %s, json_type(s.\"%w\") FROM \"%w\".\"%w\" AS s LEFT JOIN "
            "json_each(CASE WHEN json_type(s.\"%w\") = 'array' THEN s.\"%w\" END) AS j WHERE s.\"%w\" = ?1 "
            "COLLATE BINARY ORDER BY s.rowid, j.key",
            zW, p->zTo, p->zDb, p->zTable, p->zTo, p->zTo, p->zFrom);
      } else {
        zSql = sqlite3_mprintf(
            "SELECT s.rowid, s.\"%w\", %s FROM \"%w\".\"%w\" AS s WHERE s.\"%w\" = ?1 "
            "COLLATE BINARY AND s.\"%w\" IS NOT NULL ORDER BY s.rowid",
            p->zTo, zW, p->zDb, p->zTable, p->zFrom, p->zTo);
      }
      sqlite3_free(zW);
      break;
    }
  }
  if (zSql == NULL) {
    *pRc = SQLITE_NOMEM;
    return NULL;
  }
  *pRc = sqlite3_prepare_v3(p->db, zSql, -1, SQLITE_PREPARE_PERSISTENT, &p->aStmt[iStmt], 0);
  sqlite3_free(zSql);
  return *pRc == SQLITE_OK ? p->aStmt[iStmt] : NULL;
}

static void giStmtClear(gi_vtab *p) {
  int i;
  for (i = 0; i < GI_NSTMT; i++) {
    sqlite3_finalize(p->aStmt[i]);
    p->aStmt[i] = NULL;
  }
}

/* Step a statement that returns no row: SQLITE_OK or its error. */
static int giStepDone(sqlite3_stmt *pStmt) {
  int rc = sqlite3_step(pStmt);
  int rc2 = sqlite3_reset(pStmt);
  return rc == SQLITE_DONE ? SQLITE_OK : (rc2 != SQLITE_OK ? rc2 : rc);
}

/* The message for a weight the index refuses (sqlite3_mprintf). */
static char *giWeightError(const char *zName, const GraphValue *pF, const GraphValue *pT, sqlite3_value *pW) {
  char *zF = graphValueText(pF), *zT = graphValueText(pT), *zW = nosqlValueQuote(pW), *zMsg;
  int eType = sqlite3_value_type(pW);
  if (eType != SQLITE_INTEGER && eType != SQLITE_FLOAT) {
    zMsg = sqlite3_mprintf("graph_index '%s': the weight of edge %s -> %s is %s, not a number", zName,
                           zF ? zF : "?", zT ? zT : "?", zW ? zW : "?");
  } else {
    zMsg = sqlite3_mprintf("graph_index '%s': edge %s -> %s has the negative weight %s", zName, zF ? zF : "?",
                           zT ? zT : "?", zW ? zW : "?");
  }
  sqlite3_free(zF);
  sqlite3_free(zT);
  sqlite3_free(zW);
  return zMsg;
}

/* A weight the graph functions accept: a number, not negative, not NaN. */
static int giWeightOk(sqlite3_value *pW) {
  int eType = sqlite3_value_type(pW);
  double r;
  if (eType != SQLITE_INTEGER && eType != SQLITE_FLOAT) return 0;
  r = sqlite3_value_double(pW);
  return !(r < 0 || isnan(r));
}

/**************************************************************************
** Node numbers and list blocks.
*/

/* *piId: the number of node *pV, a new one with bAdd (else 0 when it has none). */
static void giCacheClear(gi_vtab *p) {
  graphSetClear(&p->cache);
  p->cache.szElem = (int)sizeof(GiCached);
}

/* Remember *pV's number (no error: a number not cached is read again). */
static void giCacheAdd(gi_vtab *p, const GraphValue *pV, sqlite3_int64 iId) {
  int iElem, bNew;
  if (p->cache.n >= GI_CACHE_MAX) giCacheClear(p);
  if (graphSetAdd(&p->cache, pV, &iElem, &bNew) == SQLITE_OK) {
    ((GiCached *)graphSetAt(&p->cache, iElem))->id = iId;
  } else {
    giCacheClear(p);
  }
}

static int giNodeId(gi_vtab *p, const GraphValue *pV, int bAdd, sqlite3_int64 *piId) {
  int rc = SQLITE_OK, iElem = graphSetFind(&p->cache, pV);
  sqlite3_stmt *pStmt;
  if (iElem >= 0) {
    *piId = ((const GiCached *)graphSetAt(&p->cache, iElem))->id;
    return SQLITE_OK;
  }
  pStmt = giStmt(p, GI_S_NODE_FIND, &rc);
  *piId = 0;
  if (pStmt == NULL) return rc;
  graphValueBind(pStmt, 1, pV);
  if (sqlite3_step(pStmt) == SQLITE_ROW) *piId = sqlite3_column_int64(pStmt, 0);
  rc = sqlite3_reset(pStmt);
  if (rc == SQLITE_OK && (*piId < 0 || *piId > GI_MAX_ID)) {
    nosqlVtabError(&p->base, "graph_index '%s' is damaged: node number %lld is out of range", p->zName,
                   *piId);
    return SQLITE_CORRUPT_VTAB;
  }
  if (rc == SQLITE_OK && *piId) giCacheAdd(p, pV, *piId);
  if (rc != SQLITE_OK || *piId || !bAdd) return rc;
  /* A new number: the next one (g_config's 'next'), kept past every number given. */
  pStmt = giStmt(p, GI_S_NEXT_GET, &rc);
  if (pStmt == NULL) return rc;
  if (sqlite3_step(pStmt) == SQLITE_ROW) *piId = sqlite3_column_int64(pStmt, 0);
  rc = sqlite3_reset(pStmt);
  if (rc != SQLITE_OK) return rc;
  if (*piId < 1 || *piId > GI_MAX_ID) {
    nosqlVtabError(&p->base, "graph_index '%s': node number %lld is out of range", p->zName, *piId);
    return SQLITE_CORRUPT_VTAB;
  }
  pStmt = giStmt(p, GI_S_NEXT_SET, &rc);
  if (pStmt == NULL) return rc;
  sqlite3_bind_int64(pStmt, 1, *piId + 1);
  rc = giStepDone(pStmt);
  if (rc == SQLITE_OK) pStmt = giStmt(p, GI_S_NODE_ADD, &rc);
  if (rc != SQLITE_OK) return rc;
  graphValueBind(pStmt, 1, pV);
  sqlite3_bind_int64(pStmt, 2, *piId);
  rc = giStepDone(pStmt);
  if (rc == SQLITE_OK) giCacheAdd(p, pV, *piId);
  return rc;
}

/*
** Skip the nEdge edges of a slot's list at a[*pi] (each a rowid gap but
** the first, a neighbour number, a weight with bWeight): 0 when malformed.
*/
static int giSkipEdges(const unsigned char *a, int n, int *pi, sqlite3_int64 nEdge, int bWeight) {
  sqlite3_int64 e;
  if (nEdge == 0) return 1;
  if (!bWeight) {
    /* Varints only, 2 * nEdge - 1 of them: count their last bytes (the decode checks them). */
    sqlite3_int64 nVar = 2 * nEdge - 1;
    int i = *pi;
    while (nVar > 0 && i < n) nVar -= (a[i++] & 0x80) == 0;
    *pi = i;
    return nVar == 0;
  }
  for (e = 0; e < nEdge; e++) {
    sqlite3_uint64 u;
    double r;
    int bInt;
    if (e && !giGetVarint(a, n, pi, &u)) return 0;
    if (!giGetVarint(a, n, pi, &u) || !giGetWeight(a, n, pi, &r, &bInt)) return 0;
  }
  return 1;
}

/*
** Decode the slot at a[*pi] (n bytes in all) into *s (nEdge, iFirst, iOff,
** nByte): 1, or 0 when malformed. A slot is a varint count and, when it is
** not 0, the zigzag rowid of the out-list's first edge and the edges.
*/
static int giSlotDecode(const unsigned char *a, int n, int *pi, int bWeight, GiSlot *s) {
  sqlite3_uint64 u;
  if (!giGetVarint(a, n, pi, &u) || u > (sqlite3_uint64)n) return 0;
  s->nEdge = (sqlite3_int64)u;
  s->iFirst = 0;
  if (u && !giGetRowid(a, n, pi, &s->iFirst)) return 0;
  s->iOff = *pi;
  if (!giSkipEdges(a, n, pi, s->nEdge, bWeight)) return 0;
  s->nByte = *pi - s->iOff;
  return 1;
}

static int giDamaged(gi_vtab *p, const char *zWhat) {
  nosqlVtabError(&p->base,
                 "graph_index '%s' is damaged: %s; INSERT INTO \"%w\"(\"%w\") VALUES('rebuild') rewrites it",
                 p->zName, zWhat, p->zName, p->zName);
  return SQLITE_CORRUPT_VTAB;
}

/* Read the group that holds node number id into *g (an empty one at key id when none does). */
static int giGroupLoad(gi_vtab *p, sqlite3_int64 id, GiGroup *g) {
  int rc = SQLITE_OK;
  sqlite3_stmt *pStmt = giStmt(p, GI_S_GROUP_FIND, &rc);
  g->k = id;
  nosqlBufferReset(&g->b);
  if (pStmt == NULL) return rc;
  sqlite3_bind_int64(pStmt, 1, id);
  if (sqlite3_step(pStmt) == SQLITE_ROW) {
    g->k = sqlite3_column_int64(pStmt, 0);
    nosqlBufferAppend(&rc, &g->b, sqlite3_column_blob(pStmt, 1), sqlite3_column_bytes(pStmt, 1));
  }
  if (rc == SQLITE_OK) {
    rc = sqlite3_reset(pStmt);
  } else {
    sqlite3_reset(pStmt);
  }
  if (rc == SQLITE_OK && (g->k < 1 || g->k > id)) rc = giDamaged(p, "a group has a bad key");
  return rc;
}

/*
** Find node id's slot in group *g. A slot past the group's last is empty
** (nPad empty slots come before it).
*/
static int giSlotFind(gi_vtab *p, GiGroup *g, sqlite3_int64 id, GiSlot *s) {
  int i = 0, n = (int)g->b.n;
  sqlite3_int64 iSlot;
  memset(s, 0, sizeof(*s));
  for (iSlot = g->k; i < n; iSlot++) {
    s->iStart = i;
    if (!giSlotDecode(g->b.a, n, &i, p->zWeight != NULL, s)) return giDamaged(p, "a group holds a bad list");
    s->iEnd = i;
    if (iSlot == id) return SQLITE_OK;
  }
  memset(s, 0, sizeof(*s));
  if (id - iSlot > (1 << 20)) return giDamaged(p, "a group has a bad key");
  s->iStart = s->iEnd = n;
  s->nPad = (int)(id - iSlot);
  return SQLITE_OK;
}

/* Write group *g; one past twice the group size is written as groups of about GI_GROUP_BYTES. */
static int giGroupSave(gi_vtab *p, GiGroup *g) {
  int rc = SQLITE_OK, n = (int)g->b.n, i = 0, iStart = 0;
  sqlite3_int64 k = g->k, iSlot = g->k;
  sqlite3_stmt *pStmt;
  while (rc == SQLITE_OK && (i < n || iStart == 0)) {
    if (n > 2 * GI_GROUP_BYTES) {
      GiSlot s;
      do {
        if (!giSlotDecode(g->b.a, n, &i, p->zWeight != NULL, &s))
          return giDamaged(p, "a group holds a bad list");
        iSlot++;
      } while (i < n && i - iStart < GI_GROUP_BYTES);
      if (n - i < GI_GROUP_BYTES / 2) {
        i = n; /* (No small group at the end) */
      }
    } else {
      i = n;
    }
    pStmt = giStmt(p, GI_S_GROUP_PUT, &rc);
    if (pStmt == NULL) return rc;
    sqlite3_bind_int64(pStmt, 1, k);
    sqlite3_bind_blob(pStmt, 2, g->b.a + iStart, i - iStart, SQLITE_STATIC);
    rc = giStepDone(pStmt);
    if (i >= n) break;
    iStart = i;
    k = iSlot;
  }
  return rc;
}

/*
** An out-list being built, in rowid order: its edges as a slot holds them
** after its header (each a rowid gap but the first, the neighbour's
** number, the weight).
*/
typedef struct GiList GiList;
struct GiList {
  NosqlBuffer b;        /* The edges */
  sqlite3_int64 n;      /* Their number */
  sqlite3_int64 iFirst; /* Rowid of the first (when n > 0) */
  sqlite3_int64 iLast;  /* Rowid of the last (when n > 0) */
};

/* Append edge (iRowid, neighbour iNbr, weight bytes aW[0..nW)): 0 when iRowid is before the last edge's. */
static int giListAdd(int *pRc, GiList *l, sqlite3_uint64 iNbr, const unsigned char *aW, int nW,
                     sqlite3_int64 iRowid) {
  if (l->n == 0) {
    l->iFirst = iRowid;
  } else {
    if (iRowid < l->iLast) return 0;
    giPutVarint(pRc, &l->b, (sqlite3_uint64)iRowid - (sqlite3_uint64)l->iLast);
  }
  giPutVarint(pRc, &l->b, iNbr);
  if (nW > 0) nosqlBufferAppend(pRc, &l->b, aW, nW);
  l->iLast = iRowid;
  l->n++;
  return 1;
}

/* *piRowid plus the gap u when the sum is a rowid: 1, else 0. */
static int giRowidStep(sqlite3_int64 *piRowid, sqlite3_uint64 u) {
  if (u > (sqlite3_uint64)0x7fffffffffffffffLL - (sqlite3_uint64)*piRowid) return 0;
  *piRowid = (sqlite3_int64)((sqlite3_uint64)*piRowid + u);
  return 1;
}

/*
** Append to *l the nEdge edges at a[0..n): a slot's list (first rowid
** iFirst, gaps after) or, with bTail, a tail's (each edge's zigzag rowid
** after it). 0 when they are malformed or out of rowid order.
*/
static int giListAddAll(int *pRc, GiList *l, const unsigned char *a, int n, sqlite3_int64 nEdge,
                        sqlite3_int64 iFirst, int bWeight, int bTail) {
  sqlite3_int64 e, iRowid = iFirst;
  int i = 0;
  for (e = 0; e < nEdge; e++) {
    sqlite3_uint64 u, g;
    double r;
    int bInt, iW, nW;
    if (!bTail && e && (!giGetVarint(a, n, &i, &g) || !giRowidStep(&iRowid, g))) return 0;
    if (!giGetVarint(a, n, &i, &u) || u < 1 || u > GI_MAX_ID) return 0;
    iW = i;
    if (bWeight && !giGetWeight(a, n, &i, &r, &bInt)) return 0;
    nW = i - iW;
    if (bTail && !giGetRowid(a, n, &i, &iRowid)) return 0;
    if (!giListAdd(pRc, l, u, a + iW, nW, iRowid)) return 0;
  }
  return i == n;
}

/* The tail of node iList: *pn edges (0 when it has none), the first *piFirst, bytes appended to *pOut. */
static int giTailGet(gi_vtab *p, sqlite3_int64 iList, sqlite3_int64 *pn, sqlite3_int64 *piFirst,
                     NosqlBuffer *pOut) {
  int rc = SQLITE_OK;
  sqlite3_stmt *pStmt = giStmt(p, GI_S_TAIL_GET, &rc);
  *pn = 0;
  *piFirst = 0;
  if (pStmt == NULL) return rc;
  sqlite3_bind_int64(pStmt, 1, iList);
  if (sqlite3_step(pStmt) == SQLITE_ROW) {
    *piFirst = sqlite3_column_int64(pStmt, 0);
    *pn = sqlite3_column_int64(pStmt, 1);
    nosqlBufferAppend(&rc, pOut, sqlite3_column_blob(pStmt, 2), sqlite3_column_bytes(pStmt, 2));
  }
  if (rc == SQLITE_OK) {
    rc = sqlite3_reset(pStmt);
  } else {
    sqlite3_reset(pStmt);
  }
  if (rc == SQLITE_OK && (*pn < 0 || *pn > GI_MAX_ID)) rc = giDamaged(p, "a tail has a bad count");
  return rc;
}

static int giTailDel(gi_vtab *p, sqlite3_int64 iList) {
  int rc = SQLITE_OK;
  sqlite3_stmt *pStmt = giStmt(p, GI_S_TAIL_DEL, &rc);
  if (pStmt == NULL) return rc;
  sqlite3_bind_int64(pStmt, 1, iList);
  return giStepDone(pStmt);
}

/* Give node id the out-list *l in group *g at slot *s (giSlotFind()), write the group, empty the tail. */
static int giListPut(gi_vtab *p, GiGroup *g, const GiSlot *s, sqlite3_int64 id, const GiList *l) {
  NosqlBuffer b = {0, 0, 0};
  int rc = SQLITE_OK, i;
  if (l->n > GI_MAX_ID) {
    nosqlVtabError(&p->base, "graph_index '%s': a node has too many edges", p->zName);
    return SQLITE_TOOBIG;
  }
  nosqlBufferAppend(&rc, &b, g->b.a, s->iStart);
  for (i = 0; i < s->nPad; i++) nosqlBufferAppend(&rc, &b, "\0", 1);
  giPutVarint(&rc, &b, (sqlite3_uint64)l->n);
  if (l->n) {
    giPutRowid(&rc, &b, l->iFirst);
    nosqlBufferAppend(&rc, &b, l->b.a, l->b.n);
  }
  nosqlBufferAppend(&rc, &b, g->b.a + s->iEnd, g->b.n - s->iEnd);
  if (rc == SQLITE_OK) {
    nosqlBufferFree(&g->b);
    g->b = b;
    rc = giGroupSave(p, g);
  } else {
    nosqlBufferFree(&b);
  }
  if (rc == SQLITE_OK) rc = giTailDel(p, id);
  return rc;
}

/*
** Append to *l the out-list of node id as stored: the part in its slot *s
** of group *g, then its tail (emptied by the caller's giListPut()).
*/
static int giListStored(gi_vtab *p, const GiGroup *g, const GiSlot *s, sqlite3_int64 id, GiList *l) {
  NosqlBuffer t = {0, 0, 0};
  sqlite3_int64 nTail = 0, iTailFirst = 0;
  int rc = SQLITE_OK, bW = p->zWeight != NULL;
  if (!giListAddAll(&rc, l, g->b.a + s->iOff, (int)s->nByte, s->nEdge, s->iFirst, bW, 0)) {
    return rc == SQLITE_OK ? giDamaged(p, "a group holds a bad list") : rc;
  }
  if (rc == SQLITE_OK) rc = giTailGet(p, id, &nTail, &iTailFirst, &t);
  if (rc == SQLITE_OK && nTail && !giListAddAll(&rc, l, t.a, (int)t.n, nTail, 0, bW, 1) && rc == SQLITE_OK) {
    rc = giDamaged(p, "a tail holds a bad list");
  }
  nosqlBufferFree(&t);
  return rc;
}

/* Node id's out-list, then the edges aNew[0..nNew) of a tail (nEdge of them), written into its group. */
static int giListMerge(gi_vtab *p, sqlite3_int64 id, const unsigned char *aNew, int nNew,
                       sqlite3_int64 nEdge) {
  GiGroup g;
  GiSlot s;
  GiList l;
  int rc;
  memset(&g, 0, sizeof(g));
  memset(&l, 0, sizeof(l));
  rc = giGroupLoad(p, id, &g);
  if (rc == SQLITE_OK) rc = giSlotFind(p, &g, id, &s);
  if (rc == SQLITE_OK) rc = giListStored(p, &g, &s, id, &l);
  if (rc == SQLITE_OK && !giListAddAll(&rc, &l, aNew, nNew, nEdge, 0, p->zWeight != NULL, 1) &&
      rc == SQLITE_OK) {
    rc = giDamaged(p, "a new edge is before the edges of its list");
  }
  if (rc == SQLITE_OK) rc = giListPut(p, &g, &s, id, &l);
  nosqlBufferFree(&l.b);
  nosqlBufferFree(&g.b);
  return rc;
}
/*
** The JSON layout: text in to_col that is not JSON stopped a statement
** (rc): name such a node, the one sought first (sqlite3_mprintf()).
*/
static int giJsonMalformed(gi_vtab *p, int rc, const GraphValue *pNode) {
  sqlite3_stmt *pStmt = NULL;
  char *zSql, *zMsg = NULL;
  if (!p->bJson || (rc & 0xff) != SQLITE_ERROR || strcmp(sqlite3_errmsg(p->db), "malformed JSON") != 0)
    return rc;
  zSql = sqlite3_mprintf(
      "SELECT \"%w\" FROM \"%w\".\"%w\" WHERE \"%w\" IS NOT NULL AND typeof(\"%w\") = 'text' "
      "AND NOT json_valid(\"%w\") ORDER BY \"%w\" IS ?1 DESC LIMIT 1",
      p->zFrom, p->zDb, p->zTable, p->zFrom, p->zTo, p->zTo, p->zFrom);
  rc = zSql ? sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  if (rc == SQLITE_OK) {
    GraphValue v;
    if (pNode) graphValueBind(pStmt, 1, pNode);
    if (sqlite3_step(pStmt) == SQLITE_ROW && graphValueFrom(sqlite3_column_value(pStmt, 0), &v)) {
      char *zNode = graphValueText(&v);
      zMsg = zNode ? sqlite3_mprintf("graph_index '%s': to_col of node %s is malformed JSON (layout 'json')",
                                     p->zName, zNode)
                   : NULL;
      sqlite3_free(zNode);
    } else {
      zMsg =
          sqlite3_mprintf("graph_index '%s': to_col of a node is malformed JSON (layout 'json')", p->zName);
    }
    rc = zMsg ? SQLITE_CONSTRAINT : SQLITE_NOMEM;
  }
  sqlite3_finalize(pStmt);
  if (zMsg) {
    sqlite3_free(p->base.zErrMsg);
    p->base.zErrMsg = zMsg;
  }
  return rc;
}

/* The JSON layout: to_col of node *pV holds zType, not an array (SQLITE_CONSTRAINT, the message set). */
static int giJsonNotArray(gi_vtab *p, const GraphValue *pV, const char *zType) {
  char *zNode = graphValueText(pV);
  char *zMsg = zNode ? sqlite3_mprintf(
                           "graph_index '%s': to_col of node %s is not a JSON array but %s "
                           "(layout 'json')",
                           p->zName, zNode, zType)
                     : NULL;
  sqlite3_free(zNode);
  if (zMsg == NULL) return SQLITE_NOMEM;
  sqlite3_free(p->base.zErrMsg);
  p->base.zErrMsg = zMsg;
  return SQLITE_CONSTRAINT;
}

/*
** Rebuild the out-list of node *pV from the edge table: one seek, the
** edges in rowid order (the JSON layout: then array order). Node numbers
** of new neighbours are added.
*/
static int giListRebuild(gi_vtab *p, const GraphValue *pV) {
  sqlite3_int64 iId, iNbr, iRow = 0;
  int rc = giNodeId(p, pV, 1, &iId), bRow = 0;
  sqlite3_stmt *pStmt;
  NosqlBuffer w = {0, 0, 0};
  GiList l;
  memset(&l, 0, sizeof(l));
  if (rc != SQLITE_OK) return rc;
  /* A statement of its own: the node lookups below use the cached ones. */
  pStmt = giStmt(p, GI_S_LIST_OUT, &rc);
  if (pStmt == NULL) return rc;
  p->aStmt[GI_S_LIST_OUT] = NULL; /* Lent: a nested rebuild prepares another */
  graphValueBind(pStmt, 1, pV);
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    GraphValue v;
    sqlite3_value *pW = sqlite3_column_value(pStmt, 2);
    if (p->bJson) {
      /* A row of the node: its first is the node's place; a value not an array is refused. */
      const char *zType = (const char *)sqlite3_column_text(pStmt, 3);
      if (!bRow) iRow = sqlite3_column_int64(pStmt, 0);
      bRow = 1;
      if (zType && strcmp(zType, "array") != 0) {
        rc = giJsonNotArray(p, pV, zType);
        break;
      }
    }
    if (!graphValueFrom(sqlite3_column_value(pStmt, 1), &v)) continue;
    if (p->zWeight && !giWeightOk(pW)) {
      char *zMsg = giWeightError(p->zName, pV, &v, pW);
      if (zMsg) {
        sqlite3_free(p->base.zErrMsg);
        p->base.zErrMsg = zMsg;
      }
      rc = zMsg ? SQLITE_CONSTRAINT : SQLITE_NOMEM;
      break;
    }
    rc = giNodeId(p, &v, 1, &iNbr);
    nosqlBufferReset(&w);
    if (p->zWeight) giPutWeight(&rc, &w, pW);
    if (rc == SQLITE_OK)
      giListAdd(&rc, &l, (sqlite3_uint64)iNbr, w.a, (int)w.n, sqlite3_column_int64(pStmt, 0));
  }
  if (rc == SQLITE_OK) rc = giJsonMalformed(p, sqlite3_reset(pStmt), pV);
  if (rc == SQLITE_OK) {
    GiGroup g;
    GiSlot s;
    memset(&g, 0, sizeof(g));
    rc = giGroupLoad(p, iId, &g);
    if (rc == SQLITE_OK) rc = giSlotFind(p, &g, iId, &s);
    if (rc == SQLITE_OK) rc = giListPut(p, &g, &s, iId, &l);
    nosqlBufferFree(&g.b);
  }
  if (rc == SQLITE_OK && p->bJson) {
    /* The node's first row (<name>_row), or none. */
    sqlite3_stmt *pRow = giStmt(p, bRow ? GI_S_ROW_SET : GI_S_ROW_DEL, &rc);
    if (pRow) {
      sqlite3_bind_int64(pRow, 1, iId);
      if (bRow) sqlite3_bind_int64(pRow, 2, iRow);
      rc = giStepDone(pRow);
    }
  }
  nosqlBufferFree(&l.b);
  nosqlBufferFree(&w);
  /* Give the statement back (or drop it when a nested call prepared another). */
  sqlite3_reset(pStmt);
  sqlite3_clear_bindings(pStmt);
  if (p->aStmt[GI_S_LIST_OUT] == NULL) {
    p->aStmt[GI_S_LIST_OUT] = pStmt;
  } else {
    sqlite3_finalize(pStmt);
  }
  return rc;
}

/* *pbPast: the edge table has a row past rowid iRowid (an edge there cannot be appended). */
static int giPast(gi_vtab *p, sqlite3_int64 iRowid, int *pbPast) {
  int rc = SQLITE_OK;
  sqlite3_stmt *pStmt = giStmt(p, GI_S_PAST, &rc);
  *pbPast = 1;
  if (pStmt == NULL) return rc;
  sqlite3_bind_int64(pStmt, 1, iRowid);
  *pbPast = sqlite3_step(pStmt) == SQLITE_ROW;
  return sqlite3_reset(pStmt);
}

/*
** Append edge (iRowid, neighbour iNbr, weight pW), past every rowid of the
** table, to the out-list of node id: to its tail (each edge there the
** neighbour, the weight, the zigzag rowid), or, when the tail is full,
** into its group with the tail.
*/
static int giListAppend(gi_vtab *p, sqlite3_int64 id, sqlite3_int64 iRowid, sqlite3_int64 iNbr,
                        sqlite3_value *pW) {
  int rc = SQLITE_OK;
  sqlite3_stmt *pStmt = giStmt(p, GI_S_TAIL_APPEND, &rc);
  NosqlBuffer b = {0, 0, 0};
  if (pStmt == NULL) return rc;
  giPutVarint(&rc, &b, (sqlite3_uint64)iNbr);
  if (p->zWeight) giPutWeight(&rc, &b, pW);
  giPutRowid(&rc, &b, iRowid);
  if (rc == SQLITE_OK) {
    sqlite3_bind_int64(pStmt, 1, id);
    sqlite3_bind_int64(pStmt, 2, iRowid);
    sqlite3_bind_blob(pStmt, 3, b.a, (int)b.n, SQLITE_STATIC);
    rc = giStepDone(pStmt);
    if (rc == SQLITE_OK && sqlite3_changes(p->db) == 0) rc = giListMerge(p, id, b.a, (int)b.n, 1);
  }
  nosqlBufferFree(&b);
  return rc;
}

/* An edge in a fold. */
typedef struct GiFold GiFold;
struct GiFold {
  sqlite3_int64 id;     /* Its source's number: the out-list it joins */
  sqlite3_int64 iNbr;   /* Its neighbour's number */
  sqlite3_int64 iRowid; /* Its rowid */
  sqlite3_int64 iOff;   /* Its weight's bytes in the fold's buffer */
  int nByte;            /* Their number */
  int iSeq;             /* Its place in <name>_pend: the order of a list's edges */
};

static int giFoldCmp(const void *a, const void *b) {
  const GiFold *x = (const GiFold *)a, *y = (const GiFold *)b;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  return x->iSeq - y->iSeq;
}

/*
** Rewrite group *g with the fold's edges aFold[*pi..] of its nodes (those
** before number kNext), each list as its part in the group, its tail (when
** bTail) and its new edges; advance *pi past them.
*/
static int giFoldGroup(gi_vtab *p, GiGroup *g, sqlite3_int64 kNext, const GiFold *aFold, int nFold, int *pi,
                       const unsigned char *aByte, int bTail) {
  NosqlBuffer out = {0, 0, 0};
  GiList l;
  int rc = SQLITE_OK, iPos = 0, n = (int)g->b.n, i = *pi;
  sqlite3_int64 id;
  memset(&l, 0, sizeof(l));
  for (id = g->k; rc == SQLITE_OK; id++) {
    GiSlot s;
    int iStart = iPos;
    if (iPos >= n) {
      if (i >= nFold || aFold[i].id >= kNext) break;
      if (aFold[i].id - id > (1 << 20)) {
        rc = giDamaged(p, "a group has a bad key");
        break;
      }
      memset(&s, 0, sizeof(s));
    } else if (!giSlotDecode(g->b.a, n, &iPos, p->zWeight != NULL, &s)) {
      rc = giDamaged(p, "a group holds a bad list");
      break;
    }
    if (i >= nFold || aFold[i].id != id) {
      /* Unchanged (past the group's last slot: an empty one) */
      if (iPos > iStart) {
        nosqlBufferAppend(&rc, &out, g->b.a + iStart, iPos - iStart);
      } else {
        nosqlBufferAppend(&rc, &out, "\0", 1);
      }
      continue;
    }
    nosqlBufferReset(&l.b);
    l.n = 0;
    if (bTail) {
      rc = giListStored(p, g, &s, id, &l);
      if (rc == SQLITE_OK) rc = giTailDel(p, id);
    } else if (!giListAddAll(&rc, &l, g->b.a + s.iOff, (int)s.nByte, s.nEdge, s.iFirst, p->zWeight != NULL,
                             0) &&
               rc == SQLITE_OK) {
      rc = giDamaged(p, "a group holds a bad list");
    }
    for (; rc == SQLITE_OK && i < nFold && aFold[i].id == id; i++) {
      if (!giListAdd(&rc, &l, (sqlite3_uint64)aFold[i].iNbr, aByte ? aByte + aFold[i].iOff : NULL,
                     aFold[i].nByte, aFold[i].iRowid) &&
          rc == SQLITE_OK) {
        rc = giDamaged(p, "a pending edge is before the edges of its list");
      }
    }
    if (rc == SQLITE_OK && l.n > GI_MAX_ID) {
      nosqlVtabError(&p->base, "graph_index '%s': a node has too many edges", p->zName);
      rc = SQLITE_TOOBIG;
    }
    giPutVarint(&rc, &out, (sqlite3_uint64)l.n);
    if (l.n) {
      giPutRowid(&rc, &out, l.iFirst);
      nosqlBufferAppend(&rc, &out, l.b.a, l.b.n);
    }
  }
  nosqlBufferFree(&l.b);
  if (rc == SQLITE_OK) {
    nosqlBufferFree(&g->b);
    g->b = out;
    rc = giGroupSave(p, g);
  } else {
    nosqlBufferFree(&out);
  }
  *pi = i;
  return rc;
}

/*
** Fold the rows of <name>_pend (inserts the triggers wrote there: each
** past every rowid before it, in rowid order) into the out-lists, each
** group rewritten once, then empty it. Every operation of the index starts
** with this.
*/
static int giPendFold(gi_vtab *p) {
  int rc = SQLITE_OK, nFold = 0, nFoldAlloc = 0, i, bTail = 0, nRow = 0;
  sqlite3_stmt *pStmt;
  GiFold *aFold = NULL;
  NosqlBuffer bytes = {0, 0, 0};
  GiGroup g;
  if (p->bDeferred) return SQLITE_OK;
  memset(&g, 0, sizeof(g));
  pStmt = giStmt(p, GI_S_PEND_READ, &rc);
  if (pStmt == NULL) return rc;
  p->aStmt[GI_S_PEND_READ] = NULL; /* Lent */
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    GraphValue f, t;
    sqlite3_int64 aId[2], iRowid = sqlite3_column_int64(pStmt, 5);
    nRow++;
    if (!sqlite3_column_int(pStmt, 6)) continue; /* Not in the table (giPendSql()) */
    sqlite3_value *pW = sqlite3_column_value(pStmt, 2);
    GiFold *pF;
    if (!graphValueFrom(sqlite3_column_value(pStmt, 0), &f) ||
        !graphValueFrom(sqlite3_column_value(pStmt, 1), &t) || (p->zWeight && !giWeightOk(pW))) {
      rc = giDamaged(p, "a pending edge has a NULL endpoint or a bad weight");
      break;
    }
    /* The numbers, looked up by value (giPendSql() reads none). */
    aId[0] = sqlite3_column_int64(pStmt, 3);
    aId[1] = sqlite3_column_int64(pStmt, 4);
    if (aId[0] < 0 || aId[0] > GI_MAX_ID || aId[1] < 0 || aId[1] > GI_MAX_ID) {
      rc = giDamaged(p, "a pending edge has a bad node number");
      break;
    }
    if (aId[0] == 0) rc = giNodeId(p, &f, 1, &aId[0]);
    if (rc == SQLITE_OK && aId[1] == 0) rc = giNodeId(p, &t, 1, &aId[1]);
    if (rc == SQLITE_OK && nFold + 1 > nFoldAlloc) {
      int nNew = nFoldAlloc ? nFoldAlloc * 2 : 256;
      GiFold *aNew = (GiFold *)sqlite3_realloc64(aFold, sizeof(GiFold) * (sqlite3_uint64)nNew);
      if (aNew == NULL) rc = SQLITE_NOMEM;
      if (aNew) {
        aFold = aNew;
        nFoldAlloc = nNew;
      }
    }
    if (rc != SQLITE_OK) break;
    pF = &aFold[nFold];
    pF->id = aId[0];
    pF->iNbr = aId[1];
    pF->iRowid = iRowid;
    pF->iOff = bytes.n;
    pF->iSeq = nFold;
    if (p->zWeight) giPutWeight(&rc, &bytes, pW);
    pF->nByte = (int)(bytes.n - pF->iOff);
    nFold++;
  }
  if (rc == SQLITE_OK) {
    rc = sqlite3_reset(pStmt);
  } else {
    sqlite3_reset(pStmt);
  }
  if (p->aStmt[GI_S_PEND_READ] == NULL) {
    p->aStmt[GI_S_PEND_READ] = pStmt;
  } else {
    sqlite3_finalize(pStmt);
  }
  if (rc == SQLITE_OK && nFold) {
    pStmt = giStmt(p, GI_S_TAIL_ANY, &rc);
    if (pStmt) {
      bTail = sqlite3_step(pStmt) == SQLITE_ROW;
      rc = sqlite3_reset(pStmt);
    }
    qsort(aFold, (size_t)nFold, sizeof(GiFold), giFoldCmp);
  }
  for (i = 0; rc == SQLITE_OK && i < nFold;) {
    sqlite3_int64 kNext = ((sqlite3_int64)1) << 62;
    rc = giGroupLoad(p, aFold[i].id, &g);
    pStmt = rc == SQLITE_OK ? giStmt(p, GI_S_GROUP_NEXT, &rc) : NULL;
    if (pStmt) {
      sqlite3_bind_int64(pStmt, 1, g.k);
      if (sqlite3_step(pStmt) == SQLITE_ROW && sqlite3_column_type(pStmt, 0) != SQLITE_NULL) {
        kNext = sqlite3_column_int64(pStmt, 0);
      }
      rc = sqlite3_reset(pStmt);
    }
    if (rc == SQLITE_OK) rc = giFoldGroup(p, &g, kNext, aFold, nFold, &i, bytes.a, bTail);
  }
  if (rc == SQLITE_OK && nRow) {
    /* Every row, also those not folded (a row deleted or changed since, or one written by hand). */
    pStmt = giStmt(p, GI_S_PEND_DEL, &rc);
    if (pStmt) rc = giStepDone(pStmt);
  }
  nosqlBufferFree(&g.b);
  nosqlBufferFree(&bytes);
  sqlite3_free(aFold);
  return rc;
}
/**************************************************************************
** The triggers' operations.
*/

/* Remember the out-list of node pVal for the next flush (NULL: no node). */
static int giStashAdd(gi_vtab *p, sqlite3_value *pVal) {
  GraphValue v;
  GiStash *pNew;
  int i;
  if (!graphValueFrom(pVal, &v)) return SQLITE_OK;
  for (i = 0; i < p->nStash; i++) {
    if (graphValueEq(&p->aStash[i].v, &v)) return SQLITE_OK;
  }
  if (p->nStash == p->nStashAlloc) {
    int nNew = p->nStashAlloc ? p->nStashAlloc * 2 : 8;
    GiStash *aNew = (GiStash *)sqlite3_realloc64(p->aStash, sizeof(GiStash) * (sqlite3_uint64)nNew);
    if (aNew == NULL) return SQLITE_NOMEM;
    p->aStash = aNew;
    p->nStashAlloc = nNew;
  }
  pNew = &p->aStash[p->nStash];
  pNew->v = v;
  if (v.eType == SQLITE_TEXT || v.eType == SQLITE_BLOB) {
    pNew->v.z = (char *)sqlite3_malloc64((sqlite3_uint64)v.n + 1);
    if (pNew->v.z == NULL) return SQLITE_NOMEM;
    if (v.n) memcpy(pNew->v.z, v.z, (size_t)v.n);
    pNew->v.z[v.n] = 0;
  }
  p->nStash++;
  return SQLITE_OK;
}

static void giStashClear(gi_vtab *p) {
  int i;
  for (i = 0; i < p->nStash; i++) sqlite3_free(p->aStash[i].v.z);
  p->nStash = 0;
}

/* Is the out-list of *pV stashed? */
static int giStashHas(gi_vtab *p, sqlite3_value *pVal) {
  GraphValue v;
  int i;
  if (!graphValueFrom(pVal, &v)) return 0;
  for (i = 0; i < p->nStash; i++) {
    if (graphValueEq(&p->aStash[i].v, &v)) return 1;
  }
  return 0;
}

/*
** Rebuild every stashed out-list. A node number left without edges stays
** in <name>_num (whether other lists still name the node would cost a
** seek of to_col, or in the JSON layout a scan of every array): loads skip
** it, 'rebuild' drops it.
*/
static int giStashFlush(gi_vtab *p) {
  int rc = SQLITE_OK, i;
  for (i = 0; rc == SQLITE_OK && i < p->nStash; i++) rc = giListRebuild(p, &p->aStash[i].v);
  giStashClear(p);
  return rc;
}

/*
** The JSON layout's inserted row pRowid when nothing is stashed, no row of
** the table is past it and its node has no row in the index yet (*pbDone:
** it applied): its edges appended to the lists' tails in array order
** (rowid then array order is kept), its node's first row set, without
** reading any other row. The row
** is read from the table by its rowid (the table decides, never an operand
** SQLite may have lost to a failed allocation).
*/
static int giJsonAppend(gi_vtab *p, sqlite3_value *pRowid, int *pbDone) {
  sqlite3_stmt *pStmt = NULL;
  char *zSql;
  sqlite3_int64 iRowid = sqlite3_value_int64(pRowid), iF = 0, iT;
  int rc = SQLITE_OK, bPast = 1, bFirst = 1, bHas = 0;
  GraphValue f;
  *pbDone = 0;
  if (p->nStash || sqlite3_value_type(pRowid) != SQLITE_INTEGER) return SQLITE_OK;
  rc = giPast(p, iRowid, &bPast);
  if (rc != SQLITE_OK || bPast) return rc;
  zSql = sqlite3_mprintf(
      "SELECT s.\"%w\", j.value, %s%w%s, json_type(s.\"%w\") FROM \"%w\".\"%w\" AS s LEFT JOIN "
      "json_each(CASE WHEN json_type(s.\"%w\") = 'array' THEN s.\"%w\" END) AS j WHERE s.rowid = ?1 ORDER BY "
      "j.key",
      p->zFrom, p->zWeight ? "s.\"" : "", p->zWeight ? p->zWeight : "NULL", p->zWeight ? "\"" : "", p->zTo,
      p->zDb, p->zTable, p->zTo, p->zTo);
  rc = zSql ? sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  if (rc == SQLITE_OK) sqlite3_bind_int64(pStmt, 1, iRowid);
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    GraphValue t;
    sqlite3_value *pW = sqlite3_column_value(pStmt, 2);
    const char *zType = (const char *)sqlite3_column_text(pStmt, 3);
    if (!graphValueFrom(sqlite3_column_value(pStmt, 0), &f)) break; /* No node: no edges */
    if (zType && strcmp(zType, "array") != 0) {
      rc = giJsonNotArray(p, &f, zType);
      break;
    }
    if (bFirst) {
      /*
      ** The node's first row. A node that has one already has rows in the
      ** index, which may include this one (a 'sync' written by hand for a
      ** row already there would add its edges twice): its list is rebuilt
      ** by the caller instead.
      */
      sqlite3_stmt *pRow;
      bFirst = 0;
      rc = giNodeId(p, &f, 1, &iF);
      pRow = giStmt(p, GI_S_ROW_HAS, &rc);
      if (pRow) {
        sqlite3_bind_int64(pRow, 1, iF);
        bHas = sqlite3_step(pRow) == SQLITE_ROW;
        rc = sqlite3_reset(pRow);
      }
      if (rc == SQLITE_OK && !bHas) {
        pRow = giStmt(p, GI_S_ROW_SET, &rc);
        if (pRow) {
          sqlite3_bind_int64(pRow, 1, iF);
          sqlite3_bind_int64(pRow, 2, iRowid);
          rc = giStepDone(pRow);
        }
      }
      if (rc != SQLITE_OK || bHas) break;
    }
    if (!graphValueFrom(sqlite3_column_value(pStmt, 1), &t)) continue; /* No element, or null */
    if (p->zWeight && !giWeightOk(pW)) {
      char *zMsg = giWeightError(p->zName, &f, &t, pW);
      if (zMsg) {
        sqlite3_free(p->base.zErrMsg);
        p->base.zErrMsg = zMsg;
      }
      rc = zMsg ? SQLITE_CONSTRAINT : SQLITE_NOMEM;
      break;
    }
    rc = giNodeId(p, &t, 1, &iT);
    if (rc == SQLITE_OK) rc = giListAppend(p, iF, iRowid, iT, pW);
  }
  if (rc == SQLITE_OK) {
    rc = giJsonMalformed(p, sqlite3_finalize(pStmt), NULL);
  } else {
    sqlite3_finalize(pStmt);
  }
  *pbDone = rc == SQLITE_OK && !bHas;
  return rc;
}

/*
** An inserted edge (rowid pRowid, pFrom -> pTo, weight pW), as read from the
** table: the source's out-list rebuilt from the table (unless it is
** stashed: the flush rebuilds it). Never appended: a command replayed by
** hand for a row already in the list would add its edge twice, while a
** rebuild gives the same list however often it runs. The common insert
** does not come here (<name>_pend); an insert that does displaced a row
** (REPLACE), is not past every rowid, or is refused.
*/
static int giOpInsert(gi_vtab *p, sqlite3_value *pFrom, sqlite3_value *pTo, sqlite3_value *pW) {
  GraphValue f, t;
  int rc, bOut;
  if (!graphValueFrom(pFrom, &f) || !graphValueFrom(pTo, &t)) return giStashFlush(p);
  if (p->zWeight && !giWeightOk(pW)) {
    char *zMsg = giWeightError(p->zName, &f, &t, pW);
    giStashClear(p);
    if (zMsg == NULL) return SQLITE_NOMEM;
    sqlite3_free(p->base.zErrMsg);
    p->base.zErrMsg = zMsg;
    return SQLITE_CONSTRAINT;
  }
  bOut = !giStashHas(p, pFrom);
  rc = giStashFlush(p);
  if (rc == SQLITE_OK && bOut) rc = giListRebuild(p, &f);
  return rc;
}

/*
** The 'insert' of the trigger: the row is read again from the table by its
** rowid, and its operands are not used. The table decides: a command
** written by hand (INSERT INTO g(g, op_rowid, op_from, op_to)
** VALUES('insert', ...)) cannot put an edge the table does not hold into
** the index, nor can an operand SQLite lost to a failed allocation. No
** such row (a trigger of the user's deleted it first, or a command by
** hand): only the stash is flushed.
*/
static int giOpInsertChecked(gi_vtab *p, sqlite3_value *pRowid) {
  sqlite3_stmt *pStmt = NULL;
  char *zSql;
  int rc;
  zSql = sqlite3_mprintf("SELECT \"%w\", \"%w\", %s%w%s FROM \"%w\".\"%w\" WHERE rowid = ?1", p->zFrom,
                         p->zTo, p->zWeight ? "\"" : "", p->zWeight ? p->zWeight : "NULL",
                         p->zWeight ? "\"" : "", p->zDb, p->zTable);
  rc = zSql ? sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  if (rc == SQLITE_OK) {
    sqlite3_bind_value(pStmt, 1, pRowid);
    rc = sqlite3_step(pStmt);
    if (rc == SQLITE_ROW) {
      rc = giOpInsert(p, sqlite3_column_value(pStmt, 0), sqlite3_column_value(pStmt, 1),
                      sqlite3_column_value(pStmt, 2));
    } else if (rc == SQLITE_DONE) {
      rc = giStashFlush(p);
    }
    if (rc == SQLITE_OK || rc == SQLITE_CONSTRAINT || rc == SQLITE_NOMEM) {
      sqlite3_finalize(pStmt);
    } else {
      int rc2 = sqlite3_finalize(pStmt);
      if (rc2 != SQLITE_OK) rc = rc2;
    }
  }
  return rc;
}

/* An edge of a rebuild. */
typedef struct GiEdge GiEdge;
struct GiEdge {
  sqlite3_int64 iRowid; /* Its rowid */
  int f, t;             /* Its endpoints: elements of the rebuild's set, then node numbers */
};

/* A rebuild's weight: an integer or a real. */
typedef struct GiWeight GiWeight;
struct GiWeight {
  sqlite3_int64 i; /* With bInt */
  double r;        /* Without */
  int bInt;        /* An integer */
};

/* A node of a rebuild, for the numbering. */
typedef struct GiRank GiRank;
struct GiRank {
  sqlite3_int64 nDeg; /* Its degree */
  int i;              /* Its element of the rebuild's set */
};

/* A node of a rebuild, for the rows of g_num in value order. */
typedef struct GiByValue GiByValue;
struct GiByValue {
  const GraphValue *p; /* Its value */
  int id;              /* Its number */
};

static int giByValueCmp(const void *a, const void *b) {
  return graphValueCmp(((const GiByValue *)a)->p, ((const GiByValue *)b)->p);
}

/*
** *pnFill: the bytes of a group 'rebuild' writes: two rows fill a page of
** the index's schema (a row past half a page less the cell and page
** headers would take a page of its own), at least GI_GROUP_BYTES / 4.
*/
static int giGroupFill(gi_vtab *p, sqlite3_int64 *pnFill) {
  sqlite3_stmt *pStmt = NULL;
  char *zSql = sqlite3_mprintf("PRAGMA \"%w\".page_size", p->zDb);
  int rc = zSql ? sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  if (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    sqlite3_int64 nPage = sqlite3_column_int64(pStmt, 0);
    *pnFill = (nPage - 8) / 2 - 24;
    if (*pnFill < GI_GROUP_BYTES / 4) *pnFill = GI_GROUP_BYTES / 4;
  }
  return rc == SQLITE_OK ? sqlite3_finalize(pStmt) : (sqlite3_finalize(pStmt), rc);
}

/* Hubs first: by degree, highest first, then by first appearance. */
static int giRankCmp(const void *a, const void *b) {
  const GiRank *x = (const GiRank *)a, *y = (const GiRank *)b;
  if (x->nDeg != y->nDeg) return x->nDeg > y->nDeg ? -1 : 1;
  return x->i - y->i;
}

/* A rebuild (giRebuildAll()): the nodes and edges of its scan, then their numbers. */
typedef struct GiRebuild GiRebuild;
struct GiRebuild {
  GraphSet set;                    /* The nodes, in order of first appearance */
  GiEdge *aEdge;                   /* The edges in rowid order: endpoints elements of set, then numbers */
  GiWeight *aW;                    /* Their weights (with a weight column) */
  sqlite3_int64 nEdge, nEdgeAlloc; /* Entries of aEdge (and aW) used, allocated */
  GiEdge *aRowF;                   /* The JSON layout: each row's node (f) and rowid, in rowid order */
  sqlite3_int64 nRowF, nRowFAlloc; /* Entries of aRowF used, allocated */
  sqlite3_int64 iLastRow;          /* The JSON layout: the rowid of the last row met */
  int *aNum;                       /* Element of set -> its number */
};

static void giRebuildClear(GiRebuild *r) {
  sqlite3_free(r->aEdge);
  sqlite3_free(r->aRowF);
  sqlite3_free(r->aW);
  sqlite3_free(r->aNum);
  graphSetClear(&r->set);
}

/* The shadow tables a rebuild writes, made when missing and emptied (format 1's too, when there). */
static int giRebuildTables(gi_vtab *p) {
  sqlite3_stmt *pStmt = NULL;
  int rc = giExec(
      p->db,
      sqlite3_mprintf("CREATE TABLE IF NOT EXISTS \"%w\".\"%w_blk\"(k INTEGER PRIMARY KEY, data BLOB);"
                      "CREATE TABLE IF NOT EXISTS \"%w\".\"%w_tail\"(k INTEGER PRIMARY KEY, first "
                      "INTEGER, n INTEGER, list BLOB);"
                      "CREATE TABLE IF NOT EXISTS \"%w\".\"%w_pend\"(p INTEGER PRIMARY KEY, r INTEGER, "
                      "f, t, w, fi INTEGER, ti INTEGER);"
                      "CREATE TABLE IF NOT EXISTS \"%w\".\"%w_flag\"(x);"
                      "CREATE TABLE IF NOT EXISTS \"%w\".\"%w_num\"(value PRIMARY KEY, id INTEGER NOT NULL) "
                      "WITHOUT ROWID;"
                      "DELETE FROM \"%w\".\"%w_num\"; DELETE FROM \"%w\".\"%w_blk\"; "
                      "DELETE FROM \"%w\".\"%w_tail\"; DELETE FROM \"%w\".\"%w_log\";"
                      "DELETE FROM \"%w\".\"%w_pend\"; DELETE FROM \"%w\".\"%w_flag\";",
                      p->zDb, p->zName, p->zDb, p->zName, p->zDb, p->zName, p->zDb, p->zName, p->zDb,
                      p->zName, p->zDb, p->zName, p->zDb, p->zName, p->zDb, p->zName, p->zDb, p->zName,
                      p->zDb, p->zName, p->zDb, p->zName));
  if (rc == SQLITE_OK) {
    /* Format 1's tables (this version no longer writes them), when there: emptied (a write cannot drop them).
     */
    int iTab;
    for (iTab = 0; rc == SQLITE_OK && iTab < 2; iTab++) {
      const char *zSuffix = iTab ? "node" : "adj";
      int bOld = 0;
      char *zSql =
          sqlite3_mprintf("SELECT 1 FROM \"%w\".sqlite_schema WHERE type = 'table' AND name = '%q_%s'",
                          p->zDb, p->zName, zSuffix);
      rc = zSql ? sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0) : SQLITE_NOMEM;
      sqlite3_free(zSql);
      if (rc == SQLITE_OK) bOld = sqlite3_step(pStmt) == SQLITE_ROW;
      if (rc == SQLITE_OK) rc = sqlite3_finalize(pStmt);
      pStmt = NULL;
      if (rc == SQLITE_OK && bOld) {
        rc = giExec(p->db, sqlite3_mprintf("DELETE FROM \"%w\".\"%w_%s\"", p->zDb, p->zName, zSuffix));
      }
    }
  }
  if (rc == SQLITE_OK && p->bJson) {
    rc = giExec(p->db,
                sqlite3_mprintf("CREATE TABLE IF NOT EXISTS \"%w\".\"%w_row\"(id INTEGER PRIMARY KEY, r "
                                "INTEGER); DELETE FROM \"%w\".\"%w_row\";",
                                p->zDb, p->zName, p->zDb, p->zName));
  }
  return rc;
}

/*
** The scan of a rebuild, in rowid order: (0) from, (1) to, (2) the weight
** or NULL, (3) the rowid and, in the JSON layout, (4) json_type(to_col),
** every row a node (a NULL to for a row without elements).
*/
static int giRebuildScanSql(gi_vtab *p, sqlite3_stmt **ppStmt) {
  char *zSql, *zW = p->zWeight ? sqlite3_mprintf("s.\"%w\"", p->zWeight) : sqlite3_mprintf("NULL");
  int rc;
  if (zW == NULL) return SQLITE_NOMEM;
  if (p->bJson) {
    /* Every row is a node, its list NULL or [] included; each element an edge. */
    zSql = sqlite3_mprintf(
        "SELECT s.\"%w\", j.value, %s, s.rowid, json_type(s.\"%w\") FROM \"%w\".\"%w\" AS s LEFT JOIN "
        "json_each(CASE WHEN json_type(s.\"%w\") = 'array' THEN s.\"%w\" END) AS j WHERE s.\"%w\" IS NOT "
        "NULL "
        "ORDER BY s.rowid, j.key",
        p->zFrom, zW, p->zTo, p->zDb, p->zTable, p->zTo, p->zTo, p->zFrom);
  } else {
    zSql = sqlite3_mprintf(
        "SELECT s.\"%w\", s.\"%w\", %s, s.rowid FROM \"%w\".\"%w\" AS s WHERE s.\"%w\" IS NOT NULL "
        "AND s.\"%w\" IS NOT NULL ORDER BY s.rowid",
        p->zFrom, p->zTo, zW, p->zDb, p->zTable, p->zFrom, p->zTo);
  }
  rc = zSql ? sqlite3_prepare_v2(p->db, zSql, -1, ppStmt, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  sqlite3_free(zW);
  return rc;
}

/* The JSON layout: the node of row iRow (its first element's or its only row), edges or not. */
static int giRebuildRowNode(GiRebuild *r, const GraphValue *pF, sqlite3_int64 iRow) {
  int iF, bNew, rc = graphSetAdd(&r->set, pF, &iF, &bNew);
  if (rc == SQLITE_OK && r->nRowF == r->nRowFAlloc) {
    sqlite3_int64 nNew = r->nRowFAlloc ? r->nRowFAlloc * 2 : 256;
    GiEdge *aNew = (GiEdge *)sqlite3_realloc64(r->aRowF, sizeof(GiEdge) * (sqlite3_uint64)nNew);
    if (aNew == NULL) rc = SQLITE_NOMEM;
    if (aNew) {
      r->aRowF = aNew;
      r->nRowFAlloc = nNew;
    }
  }
  if (rc != SQLITE_OK) return rc;
  r->aRowF[r->nRowF].iRowid = r->iLastRow = iRow;
  r->aRowF[r->nRowF].f = iF;
  r->aRowF[r->nRowF++].t = 0;
  return SQLITE_OK;
}

/* Edge pF -> pT of row iRowid, weight pW: its endpoints in the set, the edge appended. */
static int giRebuildEdge(gi_vtab *p, GiRebuild *r, const GraphValue *pF, const GraphValue *pT,
                         sqlite3_value *pW, sqlite3_int64 iRowid) {
  int iF, iT, bNew, rc;
  if (p->zWeight && !giWeightOk(pW)) {
    char *zMsg = giWeightError(p->zName, pF, pT, pW);
    if (zMsg) {
      sqlite3_free(p->base.zErrMsg);
      p->base.zErrMsg = zMsg;
    }
    return zMsg ? SQLITE_CONSTRAINT : SQLITE_NOMEM;
  }
  rc = graphSetAdd(&r->set, pF, &iF, &bNew);
  if (rc == SQLITE_OK) rc = graphSetAdd(&r->set, pT, &iT, &bNew);
  if (rc == SQLITE_OK && r->set.n > GI_MAX_ID) rc = SQLITE_TOOBIG;
  if (rc == SQLITE_OK && r->nEdge == r->nEdgeAlloc) {
    sqlite3_int64 nNew = r->nEdgeAlloc ? r->nEdgeAlloc * 2 : 1024;
    GiEdge *aNew = (GiEdge *)sqlite3_realloc64(r->aEdge, sizeof(GiEdge) * (sqlite3_uint64)nNew);
    if (aNew) r->aEdge = aNew;
    if (aNew && p->zWeight) {
      GiWeight *aNewW = (GiWeight *)sqlite3_realloc64(r->aW, sizeof(GiWeight) * (sqlite3_uint64)nNew);
      if (aNewW) r->aW = aNewW;
      if (aNewW == NULL) aNew = NULL;
    }
    if (aNew == NULL) rc = SQLITE_NOMEM;
    r->nEdgeAlloc = nNew;
  }
  if (rc != SQLITE_OK) return rc;
  r->aEdge[r->nEdge].iRowid = iRowid;
  r->aEdge[r->nEdge].f = iF;
  r->aEdge[r->nEdge].t = iT;
  if (p->zWeight) {
    r->aW[r->nEdge].bInt = sqlite3_value_type(pW) == SQLITE_INTEGER;
    r->aW[r->nEdge].i = sqlite3_value_int64(pW);
    r->aW[r->nEdge].r = sqlite3_value_double(pW);
  }
  r->nEdge++;
  return SQLITE_OK;
}

/* One scan of the edge table in rowid order: the nodes, the edges, the JSON layout's row nodes. */
static int giRebuildScan(gi_vtab *p, GiRebuild *r) {
  sqlite3_stmt *pStmt = NULL;
  int rc = giRebuildScanSql(p, &pStmt);
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    GraphValue f, t;
    graphValueFrom(sqlite3_column_value(pStmt, 0), &f);
    if (p->bJson) {
      sqlite3_int64 iRow = sqlite3_column_int64(pStmt, 3);
      const char *zType = (const char *)sqlite3_column_text(pStmt, 4);
      if (zType && strcmp(zType, "array") != 0) {
        rc = giJsonNotArray(p, &f, zType);
        break;
      }
      if (r->nRowF == 0 || iRow != r->iLastRow) {
        rc = giRebuildRowNode(r, &f, iRow);
        if (rc != SQLITE_OK) break;
      }
      if (!graphValueFrom(sqlite3_column_value(pStmt, 1), &t)) continue; /* No element, or null */
    } else {
      graphValueFrom(sqlite3_column_value(pStmt, 1), &t);
    }
    rc = giRebuildEdge(p, r, &f, &t, sqlite3_column_value(pStmt, 2), sqlite3_column_int64(pStmt, 3));
  }
  if (rc == SQLITE_OK) return giJsonMalformed(p, sqlite3_finalize(pStmt), NULL);
  sqlite3_finalize(pStmt);
  return rc;
}

/*
** Number the nodes, hubs first (r->aNum; the edges' endpoints become
** numbers), and write them: g_num in value order (its pages fill up) and
** g_config's 'next'.
*/
static int giRebuildNumber(gi_vtab *p, GiRebuild *r) {
  GraphSet *pSet = &r->set;
  sqlite3_stmt *pStmt = NULL;
  sqlite3_int64 e, *aDeg;
  GiRank *aRank;
  GiByValue *aByValue;
  char *zSql;
  int rc = SQLITE_OK, i;
  aDeg = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * ((sqlite3_uint64)pSet->n + 1));
  aRank = (GiRank *)sqlite3_malloc64(sizeof(GiRank) * ((sqlite3_uint64)pSet->n + 1));
  r->aNum = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)pSet->n + 1));
  aByValue = (GiByValue *)sqlite3_malloc64(sizeof(GiByValue) * ((sqlite3_uint64)pSet->n + 1));
  if (aDeg == NULL || aRank == NULL || r->aNum == NULL || aByValue == NULL) rc = SQLITE_NOMEM;
  if (rc == SQLITE_OK) {
    memset(aDeg, 0, sizeof(sqlite3_int64) * ((size_t)pSet->n + 1));
    for (e = 0; e < r->nEdge; e++) aDeg[r->aEdge[e].t]++;
    for (i = 0; i < pSet->n; i++) {
      aRank[i].nDeg = aDeg[i];
      aRank[i].i = i;
    }
    qsort(aRank, (size_t)pSet->n, sizeof(GiRank), giRankCmp);
    for (i = 0; i < pSet->n; i++) r->aNum[aRank[i].i] = i + 1;
    for (e = 0; e < r->nEdge; e++) {
      r->aEdge[e].f = r->aNum[r->aEdge[e].f];
      r->aEdge[e].t = r->aNum[r->aEdge[e].t];
    }
    /* In value order: the pages of g_num fill up. */
    for (i = 0; i < pSet->n; i++) {
      aByValue[i].p = (const GraphValue *)graphSetAt(pSet, aRank[i].i);
      aByValue[i].id = i + 1;
    }
    qsort(aByValue, (size_t)pSet->n, sizeof(GiByValue), giByValueCmp);
    zSql = sqlite3_mprintf("INSERT INTO \"%w\".\"%w_num\"(value, id) VALUES(?1, ?2)", p->zDb, p->zName);
    rc = zSql ? sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0) : SQLITE_NOMEM;
    sqlite3_free(zSql);
    for (i = 0; rc == SQLITE_OK && i < pSet->n; i++) {
      graphValueBind(pStmt, 1, aByValue[i].p);
      sqlite3_bind_int64(pStmt, 2, aByValue[i].id);
      rc = giStepDone(pStmt);
    }
    if (rc == SQLITE_OK) {
      rc = giExec(p->db,
                  sqlite3_mprintf("INSERT OR REPLACE INTO \"%w\".\"%w_config\"(k, v) VALUES('next', %d)",
                                  p->zDb, p->zName, pSet->n + 1));
    }
    sqlite3_finalize(pStmt);
  }
  sqlite3_free(aDeg);
  sqlite3_free(aRank);
  sqlite3_free(aByValue);
  return rc;
}

/* The JSON layout: each row node's first row (the least rowid: the first written), in g_row. */
static int giRebuildRows(gi_vtab *p, const GiRebuild *r) {
  sqlite3_stmt *pStmt = NULL;
  sqlite3_int64 e;
  char *zSql =
      sqlite3_mprintf("INSERT OR IGNORE INTO \"%w\".\"%w_row\"(id, r) VALUES(?1, ?2)", p->zDb, p->zName);
  int rc = zSql ? sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  for (e = 0; rc == SQLITE_OK && e < r->nRowF; e++) {
    sqlite3_bind_int64(pStmt, 1, r->aNum[r->aRowF[e].f]);
    sqlite3_bind_int64(pStmt, 2, r->aRowF[e].iRowid);
    rc = giStepDone(pStmt);
  }
  sqlite3_finalize(pStmt);
  return rc;
}

/*
** The out-lists by number, each in rowid order, into g_blk: the groups in
** number order, a group closed before the slot that would take it past
** giGroupFill()'s size.
*/
static int giRebuildGroups(gi_vtab *p, const GiRebuild *r) {
  const GiEdge *aEdge = r->aEdge;
  sqlite3_stmt *pStmt = NULL;
  sqlite3_int64 e, nFill = GI_GROUP_BYTES, *aOff;
  NosqlBuffer grp = {0, 0, 0};
  GiList l;
  char *zSql;
  int rc = SQLITE_OK, i, iGroup = 1, nNode = r->set.n, *aList;
  /* Node id's list is aList[aOff[id - 1] .. aOff[id]). */
  aOff = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * ((sqlite3_uint64)nNode + 2));
  aList = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)r->nEdge + 1));
  if (aOff == NULL || aList == NULL) {
    sqlite3_free(aOff);
    sqlite3_free(aList);
    return SQLITE_NOMEM;
  }
  memset(&l, 0, sizeof(l));
  memset(aOff, 0, sizeof(sqlite3_int64) * ((size_t)nNode + 2));
  for (e = 0; e < r->nEdge; e++) aOff[aEdge[e].f]++;
  for (i = 1; i <= nNode; i++) aOff[i] += aOff[i - 1];
  for (e = 0; e < r->nEdge; e++) aList[aOff[aEdge[e].f - 1]++] = (int)e;
  /* aOff[id - 1] is now the end of node id's list, the start of id + 1's. */
  (void)giGroupFill(p, &nFill); /* (A failure leaves GI_GROUP_BYTES; the statement below fails alike) */
  zSql = sqlite3_mprintf("INSERT INTO \"%w\".\"%w_blk\"(k, data) VALUES(?1, ?2)", p->zDb, p->zName);
  rc = zSql ? sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  for (i = 1; rc == SQLITE_OK && i <= nNode; i++) {
    sqlite3_int64 iStart = i > 1 ? aOff[i - 2] : 0, iEnd = aOff[i - 1], nSlot;
    NosqlBuffer w = {0, 0, 0};
    nosqlBufferReset(&l.b);
    l.n = 0;
    for (e = iStart; e < iEnd; e++) {
      const GiEdge *pE = &aEdge[aList[e]];
      nosqlBufferReset(&w);
      if (p->zWeight) giPutWeightRaw(&rc, &w, r->aW[aList[e]].bInt, r->aW[aList[e]].i, r->aW[aList[e]].r);
      giListAdd(&rc, &l, (sqlite3_uint64)pE->t, w.a, (int)w.n, pE->iRowid);
    }
    nosqlBufferFree(&w);
    /* The slot: its count, first rowid and edges; a group closes before the slot that would pass nFill. */
    nSlot = l.n ? 20 + l.b.n : 1;
    if (rc == SQLITE_OK && grp.n > 0 && grp.n + nSlot > nFill) {
      sqlite3_bind_int64(pStmt, 1, iGroup);
      sqlite3_bind_blob(pStmt, 2, grp.a, (int)grp.n, SQLITE_STATIC);
      rc = giStepDone(pStmt);
      nosqlBufferReset(&grp);
    }
    if (grp.n == 0) iGroup = i;
    giPutVarint(&rc, &grp, (sqlite3_uint64)l.n);
    if (l.n) {
      giPutRowid(&rc, &grp, l.iFirst);
      nosqlBufferAppend(&rc, &grp, l.b.a, l.b.n);
    }
    if (rc == SQLITE_OK && i == nNode) {
      sqlite3_bind_int64(pStmt, 1, iGroup);
      sqlite3_bind_blob(pStmt, 2, grp.a, (int)grp.n, SQLITE_STATIC);
      rc = giStepDone(pStmt);
      nosqlBufferReset(&grp);
    }
  }
  nosqlBufferFree(&l.b);
  nosqlBufferFree(&grp);
  sqlite3_finalize(pStmt);
  sqlite3_free(aOff);
  sqlite3_free(aList);
  return rc;
}

/*
** 'rebuild': every node and list again from one rowid-order scan. Nodes
** are numbered by degree, highest first (the neighbours met most often
** take the shortest varints); the groups are written in number order,
** each closed past GI_GROUP_BYTES. The steps above, in order.
*/
static int giRebuildAll(gi_vtab *p) {
  GiRebuild r;
  int rc;
  memset(&r, 0, sizeof(r));
  r.set.szElem = (int)sizeof(GraphValue);
  giStashClear(p);
  giCacheClear(p);
  rc = giRebuildTables(p);
  if (rc == SQLITE_OK) rc = giRebuildScan(p, &r);
  if (rc == SQLITE_OK) rc = giRebuildNumber(p, &r);
  if (rc == SQLITE_OK && r.nRowF) rc = giRebuildRows(p, &r);
  if (rc == SQLITE_OK) rc = giRebuildGroups(p, &r);
  giRebuildClear(&r);
  return rc;
}

/* 'refresh': rebuild the out-lists of the logged sources, then empty the log. */
static int giRefresh(gi_vtab *p) {
  sqlite3_stmt *pStmt = NULL;
  char *zSql =
      sqlite3_mprintf("SELECT DISTINCT f FROM \"%w\".\"%w_log\" WHERE f IS NOT NULL", p->zDb, p->zName);
  int rc = zSql ? sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  giStashClear(p);
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    GraphValue v;
    graphValueFrom(sqlite3_column_value(pStmt, 0), &v);
    rc = giListRebuild(p, &v);
  }
  if (rc == SQLITE_OK)
    rc = sqlite3_finalize(pStmt);
  else
    sqlite3_finalize(pStmt);
  if (rc == SQLITE_OK) rc = giExec(p->db, sqlite3_mprintf("DELETE FROM \"%w\".\"%w_log\"", p->zDb, p->zName));
  return rc;
}

/**************************************************************************
** Loading a GraphCsr from the shadow tables (graphIndexLoad()).
*/

void graphIndexInfoClear(GraphIndexInfo *p) {
  sqlite3_free(p->zTable);
  sqlite3_free(p->zFrom);
  sqlite3_free(p->zTo);
  sqlite3_free(p->zWeight);
  sqlite3_free(p->zLayout);
  memset(p, 0, sizeof(*p));
}

int graphIndexConfig(sqlite3 *db, const char *zSchema, const char *zIndex, GraphIndexInfo *p) {
  sqlite3_stmt *pStmt = NULL;
  char *zSql;
  int rc;
  memset(p, 0, sizeof(*p));
  /* Only a graph_index has this shadow table (a missing one: not an index). */
  zSql = sqlite3_mprintf(
      "SELECT k, v FROM \"%w\".\"%w_config\" WHERE EXISTS (SELECT 1 FROM \"%w\".sqlite_schema "
      "WHERE type = 'table' AND name = ?1 AND sql LIKE 'CREATE VIRTUAL TABLE%%graph_index%%')",
      zSchema, zIndex, zSchema);
  if (zSql == NULL) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  if (rc != SQLITE_OK) return (rc & 0xff) == SQLITE_NOMEM ? SQLITE_NOMEM : SQLITE_NOTFOUND;
  sqlite3_bind_text(pStmt, 1, zIndex, -1, SQLITE_STATIC);
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    const char *zK = (const char *)sqlite3_column_text(pStmt, 0);
    const char *zV = (const char *)sqlite3_column_text(pStmt, 1);
    char **pz = NULL;
    if (zK == NULL) continue;
    if (strcmp(zK, "format") == 0) p->iFormat = sqlite3_column_int(pStmt, 1);
    if (strcmp(zK, "mode") == 0) p->bDeferred = zV && strcmp(zV, "deferred") == 0;
    if (strcmp(zK, "table") == 0) pz = &p->zTable;
    if (strcmp(zK, "from") == 0) pz = &p->zFrom;
    if (strcmp(zK, "to") == 0) pz = &p->zTo;
    if (strcmp(zK, "weight") == 0) pz = &p->zWeight;
    if (strcmp(zK, "layout") == 0) pz = &p->zLayout;
    if (pz && zV) {
      *pz = sqlite3_mprintf("%s", zV);
      if (*pz == NULL) rc = SQLITE_NOMEM;
    }
  }
  if (rc == SQLITE_OK)
    rc = sqlite3_finalize(pStmt);
  else
    sqlite3_finalize(pStmt);
  if (rc == SQLITE_OK && p->zTable == NULL) rc = SQLITE_NOTFOUND;
  if (rc == SQLITE_OK && (p->zFrom == NULL || p->zTo == NULL)) p->iFormat = -1; /* Damaged */
  if (rc != SQLITE_OK) graphIndexInfoClear(p);
  return rc;
}

static int giCreateTriggers(gi_vtab *p, char **pzErr, int *pnStale);

/*
** *pbOk: the five triggers of index p are on its edge table as this
** version makes them (giCreateTriggers()): none missing, none left behind
** on a table that was renamed (a new table of the old name has none),
** none made by an older version that misses a write form.
*/
static int giTriggersCurrent(gi_vtab *p, int *pbOk) {
  char *zErr = NULL;
  int nStale = 0, rc = giCreateTriggers(p, &zErr, &nStale);
  sqlite3_free(zErr);
  *pbOk = rc == SQLITE_OK && nStale == 0;
  /* No such table, or one without an INTEGER PRIMARY KEY any more: not current. */
  return rc == SQLITE_ERROR ? SQLITE_OK : rc;
}

/*
** The indexes whose triggers were found current lately on this connection
** (one object per connection, nosqlConnShared(), held by the module): the
** check makes the five trigger texts, which reads the table's UNIQUE
** indexes and columns (about 570,000 instructions, as much as loading a
** graph of a few hundred edges), while its answer depends only on the
** rows of sqlite_schema whose tbl_name is the edge table (the table, its
** indexes, the triggers on it) and on the index's configuration. An entry
** holds for a hash of those rows (schema_version would not do: a ROLLBACK
** takes it back, and another change can then reach the same number with
** another schema); its key names the index and its configuration (a key
** too long for an entry is not kept).
*/
#define GI_CURRENT_N 8     /* Entries kept */
#define GI_CURRENT_KEY 240 /* Bytes of a key */
typedef struct GiCurrent GiCurrent;
struct GiCurrent {
  struct {
    char zKey[GI_CURRENT_KEY]; /* schema, index, table, columns, mode, layout; "" for a free entry */
    sqlite3_uint64 iHash;      /* Hash of the table's rows of sqlite_schema when the triggers were current */
  } a[GI_CURRENT_N];
  int iNext; /* Entry to reuse next */
};

/* The key of index zIndex described by *pInfo in z[GI_CURRENT_KEY], or 0 when it does not fit. */
static int giCurrentKey(char *z, const char *zSchema, const char *zIndex, const GraphIndexInfo *pInfo) {
  const char *zW = pInfo->zWeight ? pInfo->zWeight : "", *zL = pInfo->zLayout ? pInfo->zLayout : "";
  size_t n = strlen(zSchema) + strlen(zIndex) + strlen(pInfo->zTable) + strlen(pInfo->zFrom) +
             strlen(pInfo->zTo) + strlen(zW) + strlen(zL) + 16;
  if (n >= GI_CURRENT_KEY) return 0;
  sqlite3_snprintf(GI_CURRENT_KEY, z, "%s\x01%s\x01%s\x01%s\x01%s\x01%s\x01%d\x01%s", zSchema, zIndex,
                   pInfo->zTable, pInfo->zFrom, pInfo->zTo, zW, pInfo->bDeferred, zL);
  return 1;
}

/*
** Is index zIndex (described by *pInfo) up to date: its triggers current
** on its edge table (GiCurrent, else giTriggersCurrent()) and, in deferred
** mode, nothing logged?
*/
static int giUpToDate(sqlite3 *db, const char *zSchema, const char *zIndex, const GraphIndexInfo *pInfo,
                      int *pbOk) {
  sqlite3_stmt *pStmt = NULL;
  GiCurrent *pCur = (GiCurrent *)nosqlConnShared(db, NOSQL_SHARED_GRAPH_INDEX, sizeof(GiCurrent));
  sqlite3_uint64 iHash = 14695981039346656037ULL; /* FNV-1a */
  char zKey[GI_CURRENT_KEY];
  char *zSql;
  gi_vtab v;
  int rc, i, bKey = giCurrentKey(zKey, zSchema, zIndex, pInfo);
  *pbOk = 0;
  if (pCur == NULL) return SQLITE_NOMEM;
  zSql = sqlite3_mprintf(
      "SELECT type, name, sql FROM \"%w\".sqlite_schema WHERE tbl_name = ?1 COLLATE NOCASE", zSchema);
  rc = zSql ? sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  if (rc == SQLITE_OK) sqlite3_bind_text(pStmt, 1, pInfo->zTable, -1, SQLITE_STATIC);
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    int k;
    for (k = 0; k < 3; k++) {
      const unsigned char *a = sqlite3_column_text(pStmt, k);
      int n = sqlite3_column_bytes(pStmt, k), j;
      for (j = 0; a && j < n; j++) iHash = (iHash ^ a[j]) * 1099511628211ULL;
      iHash = (iHash ^ 0xff) * 1099511628211ULL;
    }
  }
  if (rc == SQLITE_OK) {
    rc = sqlite3_finalize(pStmt);
  } else {
    sqlite3_finalize(pStmt);
  }
  pStmt = NULL;
  for (i = 0; rc == SQLITE_OK && bKey && i < GI_CURRENT_N; i++) {
    if (pCur->a[i].iHash == iHash && strcmp(pCur->a[i].zKey, zKey) == 0) *pbOk = 1;
  }
  if (rc != SQLITE_OK) {
    nosqlConnSharedUnref(pCur);
    return rc;
  }
  memset(&v, 0, sizeof(v));
  v.db = db;
  v.zDb = (char *)zSchema;
  v.zName = (char *)zIndex;
  v.zTable = pInfo->zTable;
  v.zFrom = pInfo->zFrom;
  v.zTo = pInfo->zTo;
  v.zWeight = pInfo->zWeight;
  v.bDeferred = pInfo->bDeferred;
  v.bJson = pInfo->zLayout && strcmp(pInfo->zLayout, "json") == 0;
  if (!*pbOk) {
    rc = giTriggersCurrent(&v, pbOk);
    if (rc == SQLITE_OK && *pbOk && bKey) {
      memcpy(pCur->a[pCur->iNext].zKey, zKey, sizeof(zKey));
      pCur->a[pCur->iNext].iHash = iHash;
      pCur->iNext = (pCur->iNext + 1) % GI_CURRENT_N;
    }
  }
  nosqlConnSharedUnref(pCur);
  if (rc != SQLITE_OK || !*pbOk || !pInfo->bDeferred) return rc;
  *pbOk = 0;
  zSql = sqlite3_mprintf("SELECT NOT EXISTS (SELECT 1 FROM \"%w\".\"%w_log\")", zSchema, zIndex);
  if (zSql == NULL) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  if (rc != SQLITE_OK) return rc;
  if (sqlite3_step(pStmt) == SQLITE_ROW) *pbOk = sqlite3_column_int(pStmt, 0);
  return sqlite3_finalize(pStmt);
}

/*
** SQLITE_OK when the triggers of index p are current (giTriggersCurrent());
** else an error naming what to do: the index's own reads and 'refresh'
** refuse a stale index, as the graph functions pass it by.
*/
static int giRefuseStale(gi_vtab *p) {
  int bOk = 0, rc = giTriggersCurrent(p, &bOk);
  if (rc == SQLITE_OK && !bOk) {
    nosqlVtabError(&p->base,
                   "graph_index '%s': its triggers on '%s' are missing or out of date (was '%s' dropped or "
                   "renamed and created again, or the index made by an older version?); INSERT INTO "
                   "\"%w\"(\"%w\") VALUES('rebuild') rebuilds it",
                   p->zName, p->zTable, p->zTable, p->zName, p->zName);
    rc = SQLITE_ERROR;
  }
  return rc;
}

/*
** The stored edges of a load, in the order they are decoded (the groups
** in key order, then the tails): each out-list's edges together, in rowid
** order.
*/
typedef struct GiLoadEdges GiLoadEdges;
struct GiLoadEdges {
  int *aSrc;                /* Source number */
  int *aDst;                /* Neighbour number */
  sqlite3_int64 *aRow;      /* Rowid */
  double *aW;               /* Weight (with bWeight) */
  sqlite3_int64 n, nAlloc;  /* Edges held, allocated */
  int bWeight;              /* Keep weights */
  int bIntWeight;           /* Every weight kept is an integer */
  int bRealWeight;          /* Every weight kept is a REAL */
  sqlite3_int64 iMin, iMax; /* Least and greatest rowid */
  sqlite3_int64 nHint;      /* Edges to allocate at first */
  int *aF, *aT;             /* Then in rowid order (giLoadOrder()): source and neighbour numbers */
  double *aWr;              /* Their weights */
  sqlite3_int64 *aRs;       /* Their rowids (when asked for) */
  int *aOutN, *aInN;        /* Out- and in-degree by number (nId + 1 each) */
};

/* Room for nMore more edges. */
static int giLoadGrow(GiLoadEdges *p, sqlite3_int64 nMore) {
  sqlite3_int64 nNew = p->nAlloc ? p->nAlloc : p->nHint;
  int *aS, *aD;
  sqlite3_int64 *aR;
  if (p->n + nMore <= p->nAlloc) return SQLITE_OK;
  while (nNew < p->n + nMore) nNew *= 2;
  if (nNew > 0x7fffffff) return SQLITE_TOOBIG;
  aS = (int *)sqlite3_realloc64(p->aSrc, sizeof(int) * (sqlite3_uint64)nNew);
  if (aS == NULL) return SQLITE_NOMEM;
  p->aSrc = aS;
  aD = (int *)sqlite3_realloc64(p->aDst, sizeof(int) * (sqlite3_uint64)nNew);
  if (aD == NULL) return SQLITE_NOMEM;
  p->aDst = aD;
  aR = (sqlite3_int64 *)sqlite3_realloc64(p->aRow, sizeof(sqlite3_int64) * (sqlite3_uint64)nNew);
  if (aR == NULL) return SQLITE_NOMEM;
  p->aRow = aR;
  if (p->bWeight) {
    double *aW = (double *)sqlite3_realloc64(p->aW, sizeof(double) * (sqlite3_uint64)nNew);
    if (aW == NULL) return SQLITE_NOMEM;
    p->aW = aW;
  }
  p->nAlloc = nNew;
  return SQLITE_OK;
}

static void giLoadEdgesFree(GiLoadEdges *p) {
  sqlite3_free(p->aF);
  sqlite3_free(p->aT);
  sqlite3_free(p->aWr);
  sqlite3_free(p->aRs);
  sqlite3_free(p->aOutN);
  sqlite3_free(p->aInN);
  sqlite3_free(p->aSrc);
  sqlite3_free(p->aDst);
  sqlite3_free(p->aRow);
  sqlite3_free(p->aW);
  memset(p, 0, sizeof(*p));
}

/* giGetVarint() with the one- to three-byte varints of the lists inline. */
static int giGetVarintFast(const unsigned char *a, int n, int *pi, sqlite3_uint64 *pv) {
  int i = *pi;
  if (i + 3 <= n) {
    unsigned c0 = a[i], c1, c2;
    if (c0 < 0x80) {
      *pv = c0;
      *pi = i + 1;
      return 1;
    }
    c1 = a[i + 1];
    if (c1 < 0x80) {
      *pv = (c0 & 0x7f) | (c1 << 7);
      *pi = i + 2;
      return 1;
    }
    c2 = a[i + 2];
    if (c2 < 0x80) {
      *pv = (c0 & 0x7f) | ((c1 & 0x7f) << 7) | (c2 << 14);
      *pi = i + 3;
      return 1;
    }
  }
  return giGetVarint(a, n, pi, pv);
}

/*
** Decode the nEdge edges of node id's out-list at a[*pi..n) into *pE,
** advancing *pi past them: a slot's (first rowid iFirst, a gap before
** every other edge) or, with bTail, a tail's (each edge's zigzag rowid
** after it). Neighbours must be numbers 1..nId, rowids ascending (equal
** only in the JSON layout). Counts the degrees by number. 0 when malformed
** (*pzWhat says how), else 1.
*/
static int giLoadList(GiLoadEdges *pE, int id, const unsigned char *a, int n, int *pi, sqlite3_int64 nEdge,
                      sqlite3_int64 iFirst, int bHasWeight, int bTail, int bJson, int nId,
                      const char **pzWhat) {
  sqlite3_int64 e, iRowid = iFirst, k = pE->n;
  int i = *pi, *aInN = pE->aInN;
  *pzWhat = "a list holds a bad neighbour number";
  if (!bHasWeight && !bTail) {
    /* Neighbour numbers and gaps only: the tight loop of the load. */
    int *aSrc = pE->aSrc + k, *aDst = pE->aDst + k;
    sqlite3_int64 *aRow = pE->aRow + k;
    for (e = 0; e < nEdge; e++) {
      sqlite3_uint64 u;
      if (e) {
        if (!giGetVarintFast(a, n, &i, &u)) {
          *pzWhat = "a group holds a bad list";
          return 0;
        }
        if ((u == 0 && !bJson) || !giRowidStep(&iRowid, u)) {
          *pzWhat = "a list holds a bad rowid gap";
          return 0;
        }
      }
      if (!giGetVarintFast(a, n, &i, &u)) {
        *pzWhat = "a group holds a bad list";
        return 0;
      }
      if (u - 1 >= (sqlite3_uint64)nId) return 0;
      aSrc[e] = id;
      aDst[e] = (int)u;
      aRow[e] = iRowid;
      aInN[u]++;
    }
  } else {
    for (e = 0; e < nEdge; e++) {
      sqlite3_uint64 u;
      double r = 1.0;
      int bInt = 1;
      if (e && !bTail) {
        if (!giGetVarint(a, n, &i, &u)) {
          *pzWhat = "a group holds a bad list";
          return 0;
        }
        if ((u == 0 && !bJson) || !giRowidStep(&iRowid, u)) {
          *pzWhat = "a list holds a bad rowid gap";
          return 0;
        }
      }
      if (!giGetVarint(a, n, &i, &u)) {
        *pzWhat = bTail ? "a tail holds a bad list" : "a group holds a bad list";
        return 0;
      }
      if (u - 1 >= (sqlite3_uint64)nId) return 0;
      if (bHasWeight && (!giGetWeight(a, n, &i, &r, &bInt) || r < 0 || isnan(r))) {
        *pzWhat = "a list holds a bad weight";
        return 0;
      }
      if (bTail) {
        sqlite3_int64 iPrev = iRowid;
        if (!giGetRowid(a, n, &i, &iRowid) || (e && (iRowid < iPrev || (iRowid == iPrev && !bJson)))) {
          *pzWhat = "a list holds a bad rowid";
          return 0;
        }
      }
      pE->aSrc[k + e] = id;
      pE->aDst[k + e] = (int)u;
      pE->aRow[k + e] = iRowid;
      aInN[u]++;
      if (pE->bWeight) {
        pE->aW[k + e] = r;
        if (!bInt) pE->bIntWeight = 0;
        if (bInt) pE->bRealWeight = 0;
      }
    }
  }
  *pi = i;
  if (nEdge) {
    if (pE->n == 0 || pE->aRow[k] < pE->iMin) pE->iMin = pE->aRow[k];
    if (pE->n == 0 || iRowid > pE->iMax) pE->iMax = iRowid;
    pE->n += nEdge;
    pE->aOutN[id] += (int)nEdge;
  }
  return 1;
}

/* A radix sort record: an edge and its key. */
typedef struct GiSortRec GiSortRec;
struct GiSortRec {
  sqlite3_uint64 k; /* Rowid less the least rowid */
  int e;            /* The edge */
};

/*
** The edges of *pE in rowid order (stable: the edges of one rowid, a JSON
** row's, keep their order): their source and neighbour numbers in
** pE->aF and pE->aT, their weights in pE->aWr (with weights), their rowids
** in pE->aRs (with bRowids). A direct placement when the rowids are every
** rowid of their range once (the common case), a counting sort over
** rowid - iMin when they span at most a few times the edge count, else an
** LSD radix sort, 11 bits a pass. *pbDup: two edges share a rowid.
*/
static int giLoadOrder(GiLoadEdges *pE, int bRowids, int *pbDup) {
  sqlite3_uint64 nRange = (sqlite3_uint64)pE->iMax - (sqlite3_uint64)pE->iMin;
  const sqlite3_int64 *aRow = pE->aRow, iMin = pE->iMin;
  int n = (int)pE->n, e, *aOrd = NULL;
  *pbDup = 0;
  pE->aF = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)n + 1));
  pE->aT = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)n + 1));
  if (pE->bWeight) pE->aWr = (double *)sqlite3_malloc64(sizeof(double) * ((sqlite3_uint64)n + 1));
  if (bRowids) pE->aRs = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * ((sqlite3_uint64)n + 1));
  if (pE->aF == NULL || pE->aT == NULL || (pE->bWeight && pE->aWr == NULL) || (bRowids && pE->aRs == NULL)) {
    return SQLITE_NOMEM;
  }
  if (n == 0) return SQLITE_OK;
  if (nRange + 1 == (sqlite3_uint64)n) {
    /*
    ** Every rowid of the range once, unless two edges share one and leave
    ** a place unfilled (0: numbers start at 1): each edge's place is its
    ** rowid's offset.
    */
    memset(pE->aF, 0, sizeof(int) * (size_t)n);
    for (e = 0; e < n; e++) {
      int k = (int)(aRow[e] - iMin);
      if (e + 16 < n) {
        graphPrefetch(&pE->aF[aRow[e + 16] - iMin], 1);
        graphPrefetch(&pE->aT[aRow[e + 16] - iMin], 1);
      }
      pE->aF[k] = pE->aSrc[e];
      pE->aT[k] = pE->aDst[e];
      if (pE->aWr) pE->aWr[k] = pE->aW[e];
      if (bRowids) pE->aRs[k] = aRow[e];
    }
    for (e = 0; e < n && pE->aF[e]; e++) {
    }
    if (e == n) return SQLITE_OK;
  }
  aOrd = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)n + 1));
  if (aOrd == NULL) return SQLITE_NOMEM;
  if (nRange < 4 * (sqlite3_uint64)n + 1024) {
    int *aCnt = (int *)sqlite3_malloc64(sizeof(int) * (nRange + 2)), k;
    if (aCnt == NULL) {
      sqlite3_free(aOrd);
      return SQLITE_NOMEM;
    }
    memset(aCnt, 0, sizeof(int) * (size_t)(nRange + 2));
    for (e = 0; e < n; e++) aCnt[aRow[e] - iMin + 1]++;
    for (k = 1; k <= (int)nRange + 1; k++) {
      if (aCnt[k] > 1) *pbDup = 1;
      aCnt[k] += aCnt[k - 1];
    }
    for (e = 0; e < n; e++) aOrd[aCnt[aRow[e] - iMin]++] = e;
    sqlite3_free(aCnt);
  } else {
    GiSortRec *a = (GiSortRec *)sqlite3_malloc64(sizeof(GiSortRec) * (sqlite3_uint64)n * 2), *b;
    int iShift, nBit = 1;
    if (a == NULL) {
      sqlite3_free(aOrd);
      return SQLITE_NOMEM;
    }
    b = a + n;
    for (e = 0; e < n; e++) {
      a[e].k = (sqlite3_uint64)aRow[e] - (sqlite3_uint64)iMin;
      a[e].e = e;
    }
    while (nBit < 64 && (nRange >> nBit)) nBit++;
    for (iShift = 0; iShift < nBit; iShift += 11) {
      int aCount[2049], i;
      GiSortRec *t;
      memset(aCount, 0, sizeof(aCount));
      for (e = 0; e < n; e++) aCount[((a[e].k >> iShift) & 2047) + 1]++;
      for (i = 1; i <= 2048; i++) aCount[i] += aCount[i - 1];
      for (e = 0; e < n; e++) b[aCount[(a[e].k >> iShift) & 2047]++] = a[e];
      t = a;
      a = b;
      b = t;
    }
    for (e = 0; e < n; e++) {
      aOrd[e] = a[e].e;
      if (e && a[e].k == a[e - 1].k) *pbDup = 1;
    }
    sqlite3_free(a < b ? a : b);
  }
  for (e = 0; e < n; e++) {
    int iE = aOrd[e];
    if (e + 16 < n) {
      graphPrefetch(&pE->aSrc[aOrd[e + 16]], 0);
      graphPrefetch(&pE->aDst[aOrd[e + 16]], 0);
    }
    pE->aF[e] = pE->aSrc[iE];
    pE->aT[e] = pE->aDst[iE];
    if (pE->aWr) pE->aWr[e] = pE->aW[iE];
    if (bRowids) pE->aRs[e] = aRow[iE];
  }
  sqlite3_free(aOrd);
  return SQLITE_OK;
}

/* A row of "<name>_row" (the JSON layout): a row node and its first rowid. */
typedef struct GiRowFirst GiRowFirst;
struct GiRowFirst {
  sqlite3_int64 r; /* Its first row's rowid */
  int id;          /* Its number */
};

/* A row of "<name>_num" read by a load (z owned). */
typedef struct GiNumRow GiNumRow;
struct GiNumRow {
  GraphValue v; /* The value */
  int id;       /* Its number */
};
#define GI_NUM_BATCH 64 /* Rows of <name>_num placed at once */

/* An edge of "<name>_pend" read by a load. */
typedef struct GiPend GiPend;
struct GiPend {
  int f, t;             /* Its endpoints: positions in the GraphCsr */
  double r;             /* Its weight */
  int bInt;             /* The weight is an integer */
  sqlite3_int64 iRowid; /* Its rowid */
};

/* Finish a scan: the first error. */
static int giScanDone(int rc, sqlite3_stmt *pStmt) {
  int rc2 = sqlite3_finalize(pStmt);
  return rc == SQLITE_OK ? rc2 : rc;
}

/*
** One load of an index into a GraphCsr (giLoad()): what the steps below
** pass on, each step reading one shadow table or making one part of the
** copy. The arrays are freed by giLoaderClear().
*/
typedef struct GiLoader GiLoader;
struct GiLoader {
  sqlite3 *db;                     /* The connection */
  const char *zSchema, *zIndex;    /* The index */
  const char *zFunc;               /* Names the job in messages, or NULL ('integrity-check') */
  char **pzErr;                    /* Where a message goes */
  int bJson;                       /* layout = 'json' */
  int bHasWeight;                  /* The lists hold weights */
  sqlite3_int64 nMaxEdge;          /* The most edges held */
  int bAll;                        /* A whole-graph job: more edges than that is an error */
  sqlite3_stmt *pStmt;             /* The scan under way, finalized by giLoaderClear() after an error */
  int nId;                         /* Node numbers are 1 .. nId */
  int nNode;                       /* Nodes met through the stored edges and rows: positions 0 .. nNode - 1 */
  GiLoadEdges E;                   /* The stored edges */
  int *aPerm;                      /* Number -> position, -1 when not met */
  int *aNode;                      /* Position -> number */
  GiRowFirst *aRowFirst;           /* The JSON layout's row nodes, by first rowid */
  int nRowFirst;                   /* Entries of aRowFirst */
  GraphValue *aVal;                /* Position -> value (z owned) */
  GiPend *aPend;                   /* The pending inserts */
  sqlite3_int64 nPend, nPendAlloc; /* Entries of aPend used, allocated */
  sqlite3_int64 *aCur;             /* While filling: where each position's next out- and in-edge go */
  GraphCsr *p;                     /* The copy being filled */
};

/* The message for damage zWhat, naming the index: SQLITE_CORRUPT_VTAB (or SQLITE_NOMEM). */
static int giLoadCorrupt(GiLoader *pL, const char *zWhat) {
  const char *zFunc = pL->zFunc, *zIndex = pL->zIndex;
  *pL->pzErr = sqlite3_mprintf(
      "%s%sgraph_index '%s' is damaged: %s; INSERT INTO \"%w\"(\"%w\") VALUES('rebuild') rewrites it",
      zFunc ? zFunc : "", zFunc ? ": " : "", zIndex, zWhat, zIndex, zIndex);
  return *pL->pzErr ? SQLITE_CORRUPT_VTAB : SQLITE_NOMEM;
}

/* Prepare the scan zSql (sqlite3_mprintf, freed here) as pL->pStmt. */
static int giLoadPrepare(GiLoader *pL, char *zSql) {
  int rc = zSql ? sqlite3_prepare_v2(pL->db, zSql, -1, &pL->pStmt, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  return rc;
}

/* Finish the scan of pL->pStmt: the first error. */
static int giLoadScanDone(GiLoader *pL, int rc) {
  rc = giScanDone(rc, pL->pStmt);
  pL->pStmt = NULL;
  return rc;
}

/*
** More than nMaxEdge edges: an error for a whole-graph job (SQLITE_TOOBIG
** with the message), else SQLITE_DONE, which ends the load without a copy
** (the caller reads the table).
*/
static int giLoadTooBig(GiLoader *pL) {
  if (!pL->bAll) return SQLITE_DONE;
  *pL->pzErr = sqlite3_mprintf("%s: the graph has more than %lld edges, the most held in memory", pL->zFunc,
                               pL->nMaxEdge);
  return SQLITE_TOOBIG;
}

static void giLoaderClear(GiLoader *pL) {
  int i;
  sqlite3_finalize(pL->pStmt);
  if (pL->aVal) {
    for (i = 0; i < pL->nNode; i++) sqlite3_free(pL->aVal[i].z);
  }
  sqlite3_free(pL->aVal);
  giLoadEdgesFree(&pL->E);
  sqlite3_free(pL->aPerm);
  sqlite3_free(pL->aNode);
  sqlite3_free(pL->aRowFirst);
  sqlite3_free(pL->aPend);
  sqlite3_free(pL->aCur);
}

/* The node numbers (every one below g_config's 'next'): nId, and the arrays indexed by number. */
static int giLoadNumbers(GiLoader *pL) {
  int rc, nId = 0;
  rc = giLoadPrepare(
      pL, sqlite3_mprintf("SELECT coalesce((SELECT v FROM \"%w\".\"%w_config\" WHERE k = 'next'), 0) - 1",
                          pL->zSchema, pL->zIndex));
  if (rc == SQLITE_OK && sqlite3_step(pL->pStmt) == SQLITE_ROW) {
    sqlite3_int64 iMax = sqlite3_column_int64(pL->pStmt, 0);
    if (iMax < 0 || iMax > GI_MAX_ID) return giLoadCorrupt(pL, "a node number is out of range");
    nId = (int)iMax;
  }
  rc = giLoadScanDone(pL, rc);
  if (rc != SQLITE_OK) return rc;
  pL->nId = nId;
  pL->aPerm = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)nId + 1));
  pL->aNode = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)nId + 1));
  pL->E.aOutN = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)nId + 1));
  pL->E.aInN = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)nId + 1));
  if (pL->aPerm == NULL || pL->aNode == NULL || pL->E.aOutN == NULL || pL->E.aInN == NULL)
    return SQLITE_NOMEM;
  memset(pL->aPerm, 0xff, sizeof(int) * ((size_t)nId + 1));
  memset(pL->E.aOutN, 0, sizeof(int) * ((size_t)nId + 1));
  memset(pL->E.aInN, 0, sizeof(int) * ((size_t)nId + 1));
  /* Room for 16 edges a node number, up to 1M edges, at first (pages never written cost nothing). */
  pL->E.nHint = 4096 + 16 * (sqlite3_int64)nId;
  if (pL->E.nHint > (1 << 20)) pL->E.nHint = 1 << 20;
  return SQLITE_OK;
}

/* The groups in key order ("<name>_blk"): each out-list's edges, decoded as they are read. */
static int giLoadGroups(GiLoader *pL) {
  GiLoadEdges *pE = &pL->E;
  sqlite3_int64 iNext = 1;
  const char *zWhat = NULL;
  int rc = giLoadPrepare(
      pL, sqlite3_mprintf("SELECT k, data FROM \"%w\".\"%w_blk\" ORDER BY k", pL->zSchema, pL->zIndex));
  while (rc == SQLITE_OK && sqlite3_step(pL->pStmt) == SQLITE_ROW) {
    sqlite3_int64 k = sqlite3_column_int64(pL->pStmt, 0), id;
    const unsigned char *a = (const unsigned char *)sqlite3_column_blob(pL->pStmt, 1);
    int n = sqlite3_column_bytes(pL->pStmt, 1), iPos = 0;
    if (k < iNext || k > GI_MAX_ID) return giLoadCorrupt(pL, "a group has a bad key");
    for (id = k; iPos < n; id++) {
      /* A slot: its count, its first rowid, its edges (giSlotDecode(), decoded as they are read). */
      sqlite3_uint64 u;
      sqlite3_int64 iFirst = 0;
      if (!giGetVarint(a, n, &iPos, &u) || u > (sqlite3_uint64)n ||
          (u && !giGetRowid(a, n, &iPos, &iFirst))) {
        return giLoadCorrupt(pL, "a group holds a bad list");
      }
      if (u == 0) continue;
      if (id > pL->nId) return giLoadCorrupt(pL, "a list has no node");
      rc = giLoadGrow(pE, (sqlite3_int64)u);
      if (rc != SQLITE_OK) return rc;
      if (!giLoadList(pE, (int)id, a, n, &iPos, (sqlite3_int64)u, iFirst, pL->bHasWeight, 0, pL->bJson,
                      pL->nId, &zWhat)) {
        return giLoadCorrupt(pL, zWhat);
      }
      if (pE->n > pL->nMaxEdge) break;
    }
    iNext = id;
    if (pE->n > pL->nMaxEdge) break;
  }
  return giLoadScanDone(pL, rc);
}

/* The tails ("<name>_tail"): edges appended to out-lists, after their groups' edges. */
static int giLoadTails(GiLoader *pL) {
  GiLoadEdges *pE = &pL->E;
  const char *zWhat = NULL;
  int rc = giLoadPrepare(pL, sqlite3_mprintf("SELECT k, first, n, list FROM \"%w\".\"%w_tail\" ORDER BY k",
                                             pL->zSchema, pL->zIndex));
  while (rc == SQLITE_OK && pE->n <= pL->nMaxEdge && sqlite3_step(pL->pStmt) == SQLITE_ROW) {
    sqlite3_int64 k = sqlite3_column_int64(pL->pStmt, 0), n = sqlite3_column_int64(pL->pStmt, 2);
    const unsigned char *a = (const unsigned char *)sqlite3_column_blob(pL->pStmt, 3);
    int nByte = sqlite3_column_bytes(pL->pStmt, 3), iPos;
    if (k < 1 || k > pL->nId || n < 1 || n > nByte) return giLoadCorrupt(pL, "a tail has a bad key or count");
    rc = giLoadGrow(pE, n);
    if (rc != SQLITE_OK) return rc;
    iPos = 0;
    if (!giLoadList(pE, (int)k, a, nByte, &iPos, n, 0, pL->bHasWeight, 1, pL->bJson, pL->nId, &zWhat)) {
      return giLoadCorrupt(pL, zWhat);
    }
    if (iPos != nByte) return giLoadCorrupt(pL, "a list is longer than its edges");
  }
  return giLoadScanDone(pL, rc);
}

/* The JSON layout: each row node's first rowid ("<name>_row"), where a scan of the table meets it. */
static int giLoadRowFirst(GiLoader *pL) {
  sqlite3_int64 nAlloc = 0;
  int rc = giLoadPrepare(
      pL, sqlite3_mprintf("SELECT id, r FROM \"%w\".\"%w_row\" ORDER BY r", pL->zSchema, pL->zIndex));
  while (rc == SQLITE_OK && sqlite3_step(pL->pStmt) == SQLITE_ROW) {
    sqlite3_int64 id = sqlite3_column_int64(pL->pStmt, 0);
    if (id < 1 || id > pL->nId) return giLoadCorrupt(pL, "a row's node number is out of range");
    if (pL->nRowFirst == nAlloc) {
      sqlite3_int64 nNew = nAlloc ? nAlloc * 2 : 256;
      GiRowFirst *aNew =
          (GiRowFirst *)sqlite3_realloc64(pL->aRowFirst, sizeof(GiRowFirst) * (sqlite3_uint64)nNew);
      if (aNew == NULL) {
        rc = SQLITE_NOMEM;
        break;
      }
      pL->aRowFirst = aNew;
      nAlloc = nNew;
    }
    pL->aRowFirst[pL->nRowFirst].r = sqlite3_column_int64(pL->pStmt, 1);
    pL->aRowFirst[pL->nRowFirst++].id = (int)id;
  }
  return giLoadScanDone(pL, rc);
}

/* Give node number id the next position, unless it has one. */
static void giLoadMeet(GiLoader *pL, int id) {
  if (pL->aPerm[id] < 0) {
    pL->aPerm[id] = pL->nNode;
    pL->aNode[pL->nNode++] = id;
  }
}

/*
** Node order: as a rowid scan of the table meets them (an edge's source,
** then its neighbour; the JSON layout: a row's node first). E.aF and
** E.aT become the edges' endpoints as positions, in rowid order.
*/
static int giLoadNodeOrder(GiLoader *pL) {
  GiLoadEdges *pE = &pL->E;
  int iRowFirst = 0, *aF = pE->aF, *aT = pE->aT;
  sqlite3_int64 e;
  for (e = 0; e < pE->n; e++) {
    int s = aF[e], t = aT[e];
    if (pL->bJson) {
      sqlite3_int64 iRowid = pE->aRs[e];
      if (e && iRowid == pE->aRs[e - 1] && s != pL->aNode[aF[e - 1]]) {
        return giLoadCorrupt(pL, "two rows have one rowid");
      }
      for (; iRowFirst < pL->nRowFirst && pL->aRowFirst[iRowFirst].r <= iRowid; iRowFirst++) {
        giLoadMeet(pL, pL->aRowFirst[iRowFirst].id);
      }
    }
    giLoadMeet(pL, s);
    giLoadMeet(pL, t);
    aF[e] = pL->aPerm[s];
    aT[e] = pL->aPerm[t];
  }
  for (; iRowFirst < pL->nRowFirst; iRowFirst++) giLoadMeet(pL, pL->aRowFirst[iRowFirst].id);
  return SQLITE_OK;
}

/*
** Node values by position ("<name>_num"), then the copy's set of them. The
** rows come in value order, their numbers at random: each lands in aVal
** through a batch whose places are prefetched (one cache miss per node was
** a third of the load).
*/
static int giLoadValues(GiLoader *pL) {
  GiNumRow aBatch[GI_NUM_BATCH];
  const char *zWhat = NULL;
  int *aPerm = pL->aPerm, nBatch = 0, bEnd = 0, i, rc;
  GraphValue *aVal;
  aVal = pL->aVal = (GraphValue *)sqlite3_malloc64(sizeof(GraphValue) * ((sqlite3_uint64)pL->nNode + 1));
  if (aVal == NULL) return SQLITE_NOMEM;
  memset(aVal, 0, sizeof(GraphValue) * ((size_t)pL->nNode + 1)); /* (Freed value by value at the end) */
  rc = giLoadPrepare(pL, sqlite3_mprintf("SELECT id, value FROM \"%w\".\"%w_num\"", pL->zSchema, pL->zIndex));
  while (rc == SQLITE_OK && !bEnd) {
    int k;
    bEnd = sqlite3_step(pL->pStmt) != SQLITE_ROW;
    if (!bEnd) {
      sqlite3_int64 id = sqlite3_column_int64(pL->pStmt, 0);
      GiNumRow *pR = &aBatch[nBatch];
      if (id < 1 || id > pL->nId) continue; /* A number without edges: not a node */
      graphPrefetch(&aPerm[id], 0);
      if (!graphValueFrom(sqlite3_column_value(pL->pStmt, 1), &pR->v)) {
        zWhat = "a node value is NULL";
        break;
      }
      pR->id = (int)id;
      if (pR->v.eType == SQLITE_TEXT || pR->v.eType == SQLITE_BLOB) {
        const char *z = pR->v.z;
        pR->v.z = (char *)sqlite3_malloc64((sqlite3_uint64)pR->v.n + 1);
        if (pR->v.z == NULL) {
          rc = SQLITE_NOMEM;
          break;
        }
        if (pR->v.n) memcpy(pR->v.z, z, (size_t)pR->v.n);
      } else {
        pR->v.z = NULL;
      }
      if (++nBatch < GI_NUM_BATCH) continue;
    }
    for (k = 0; k < nBatch; k++) {
      if (aPerm[aBatch[k].id] >= 0) graphPrefetch(&aVal[aPerm[aBatch[k].id]], 1);
    }
    for (k = 0; k < nBatch; k++) {
      int iPos = aPerm[aBatch[k].id];
      if (iPos < 0 || aVal[iPos].eType) {
        sqlite3_free(aBatch[k].v.z); /* Not a node, or a second value for it */
        if (iPos >= 0) zWhat = "two node values have one number";
        continue;
      }
      aVal[iPos] = aBatch[k].v;
    }
    nBatch = 0;
    if (zWhat) break;
  }
  while (nBatch > 0) sqlite3_free(aBatch[--nBatch].v.z);
  if (zWhat) return giLoadCorrupt(pL, zWhat);
  rc = giLoadScanDone(pL, rc);
  for (i = 0; rc == SQLITE_OK && i < pL->nNode; i++) {
    int iElem, bNew;
    if (aVal[i].eType == 0) return giLoadCorrupt(pL, "a node of a list has no value");
    rc = graphSetAdd(&pL->p->vals, &aVal[i], &iElem, &bNew);
    if (rc == SQLITE_OK && !bNew) return giLoadCorrupt(pL, "two node numbers have one value");
  }
  return rc;
}

/*
** The pending inserts ("<name>_pend", the rows the table holds): past every
** edge before them, new nodes last (added to the copy's set).
*/
static int giLoadPending(GiLoader *pL, const GraphIndexInfo *pInfo) {
  GraphSet *pVals = &pL->p->vals;
  int *aPerm = pL->aPerm, nId = pL->nId, rc;
  rc = giLoadPrepare(pL, giPendSql(pL->zSchema, pL->zIndex, pL->bJson, pInfo->zTable, pInfo->zFrom,
                                   pInfo->zTo, pInfo->zWeight));
  while (rc == SQLITE_OK && sqlite3_step(pL->pStmt) == SQLITE_ROW) {
    sqlite3_stmt *pStmt = pL->pStmt;
    GraphValue f, t;
    GiPend *pP;
    int iF, iT, bNew;
    sqlite3_value *pW = sqlite3_column_value(pStmt, 2);
    int eW = sqlite3_value_type(pW);
    sqlite3_int64 iFi = sqlite3_column_int64(pStmt, 3), iTi = sqlite3_column_int64(pStmt, 4);
    if (!sqlite3_column_int(pStmt, 6)) continue; /* Not in the table (giPendSql()) */
    if (!graphValueFrom(sqlite3_column_value(pStmt, 0), &f) ||
        !graphValueFrom(sqlite3_column_value(pStmt, 1), &t) ||
        (pL->bHasWeight &&
         ((eW != SQLITE_INTEGER && eW != SQLITE_FLOAT) || !(sqlite3_value_double(pW) >= 0)))) {
      return giLoadCorrupt(pL, "a pending edge has a NULL endpoint or a bad weight");
    }
    /* A node number the trigger found: its position, checked against the value; else by the value. */
    if (iFi < 0 || iFi > nId || iTi < 0 || iTi > nId ||
        (iFi && aPerm[iFi] >= 0 && !graphValueEq(&f, (const GraphValue *)graphSetAt(pVals, aPerm[iFi]))) ||
        (iTi && aPerm[iTi] >= 0 && !graphValueEq(&t, (const GraphValue *)graphSetAt(pVals, aPerm[iTi])))) {
      return giLoadCorrupt(pL, "a pending edge has a bad node number");
    }
    if (iFi && aPerm[iFi] >= 0) {
      iF = aPerm[iFi];
    } else {
      rc = graphSetAdd(pVals, &f, &iF, &bNew);
    }
    if (rc == SQLITE_OK && iTi && aPerm[iTi] >= 0) {
      iT = aPerm[iTi];
    } else if (rc == SQLITE_OK) {
      rc = graphSetAdd(pVals, &t, &iT, &bNew);
    }
    if (rc == SQLITE_OK && pL->nPend == pL->nPendAlloc) {
      sqlite3_int64 nNew = pL->nPendAlloc ? pL->nPendAlloc * 2 : 64;
      GiPend *aNew = (GiPend *)sqlite3_realloc64(pL->aPend, sizeof(GiPend) * (sqlite3_uint64)nNew);
      if (aNew == NULL) rc = SQLITE_NOMEM;
      if (aNew) {
        pL->aPend = aNew;
        pL->nPendAlloc = nNew;
      }
    }
    if (rc != SQLITE_OK) break;
    pP = &pL->aPend[pL->nPend];
    pP->f = iF;
    pP->t = iT;
    pP->r = sqlite3_value_double(pW);
    pP->bInt = eW == SQLITE_INTEGER;
    pP->iRowid = sqlite3_column_int64(pStmt, 5);
    /* Each past every edge before it: a copy of an edge held (written by hand) is not a second edge. */
    if ((pL->nPend > 0 && pP->iRowid <= pP[-1].iRowid) ||
        (pL->nPend == 0 && pL->E.n > 0 && pP->iRowid <= pL->E.iMax)) {
      return giLoadCorrupt(pL, "two edges have one rowid");
    }
    pL->nPend++;
  }
  return giLoadScanDone(pL, rc);
}

/*
** The copy's offsets: each position's degree (the stored edges' by number,
** then the pending ones') summed into aOutOff and aInOff; pL->aCur[2 * pos]
** and [2 * pos + 1] where the node's next out- and in-edge go.
*/
static int giLoadOffsets(GiLoader *pL, int bWeight) {
  GraphCsr *p = pL->p;
  int nAll = p->vals.n, i;
  sqlite3_int64 e, *aCur;
  p->nEdge = pL->E.n + pL->nPend;
  p->aOutOff = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * ((sqlite3_uint64)nAll + 1));
  p->aInOff = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * ((sqlite3_uint64)nAll + 1));
  p->aOut = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)p->nEdge + 1));
  p->aIn = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)p->nEdge + 1));
  aCur = pL->aCur = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * 2 * ((sqlite3_uint64)nAll + 1));
  if (bWeight) {
    p->aOutW = (double *)sqlite3_malloc64(sizeof(double) * ((sqlite3_uint64)p->nEdge + 1));
    p->aInW = (double *)sqlite3_malloc64(sizeof(double) * ((sqlite3_uint64)p->nEdge + 1));
  }
  if (p->aOutOff == NULL || p->aInOff == NULL || p->aOut == NULL || p->aIn == NULL || aCur == NULL ||
      (bWeight && (p->aOutW == NULL || p->aInW == NULL))) {
    return SQLITE_NOMEM;
  }
  memset(aCur, 0, sizeof(sqlite3_int64) * 2 * ((size_t)nAll + 1));
  for (i = 0; i < pL->nNode; i++) {
    aCur[2 * i] = pL->E.aOutN[pL->aNode[i]];
    aCur[2 * i + 1] = pL->E.aInN[pL->aNode[i]];
  }
  for (e = 0; e < pL->nPend; e++) {
    aCur[2 * pL->aPend[e].f]++;
    aCur[2 * pL->aPend[e].t + 1]++;
  }
  p->aOutOff[0] = p->aInOff[0] = 0;
  for (i = 0; i < nAll; i++) {
    p->aOutOff[i + 1] = p->aOutOff[i] + aCur[2 * i];
    p->aInOff[i + 1] = p->aInOff[i] + aCur[2 * i + 1];
    aCur[2 * i] = p->aOutOff[i];
    aCur[2 * i + 1] = p->aInOff[i];
  }
  return SQLITE_OK;
}

/* The copy's lists and weights, after giLoadOffsets(): the stored edges', then the pending ones'. */
static void giLoadLists(GiLoader *pL, int bWeight) {
  GraphCsr *p = pL->p;
  const GiLoadEdges *pE = &pL->E;
  const int *aPerm = pL->aPerm;
  sqlite3_int64 e, nEdge = pE->n, *aCur = pL->aCur;
  /* Out-lists in the decode order (each list's edges together, in rowid order). */
  for (e = 0; e < nEdge;) {
    int iSrc = pE->aSrc[e];
    sqlite3_int64 iO = aCur[2 * aPerm[iSrc]];
    for (; e < nEdge && pE->aSrc[e] == iSrc; e++, iO++) {
      p->aOut[iO] = aPerm[pE->aDst[e]];
      if (bWeight) p->aOutW[iO] = pE->aW[e];
    }
    aCur[2 * aPerm[iSrc]] = iO;
  }
  /* In-lists in rowid order: the fill scatters; prefetch the cursors 32 edges ahead, the places 16. */
  for (e = 0; e < nEdge; e++) {
    sqlite3_int64 iI;
    if (e + 32 < nEdge) graphPrefetch(&aCur[2 * pE->aT[e + 32] + 1], 1);
    if (e + 16 < nEdge) graphPrefetch(&p->aIn[aCur[2 * pE->aT[e + 16] + 1]], 1);
    iI = aCur[2 * pE->aT[e] + 1]++;
    p->aIn[iI] = pE->aF[e];
    if (bWeight) p->aInW[iI] = pE->aWr[e];
  }
  if (bWeight && !pE->bIntWeight) p->bIntWeight = 0;
  if (bWeight && !pE->bRealWeight) p->bRealWeight = 0;
  for (e = 0; e < pL->nPend; e++) {
    const GiPend *pP = &pL->aPend[e];
    sqlite3_int64 iO = aCur[2 * pP->f]++, iI = aCur[2 * pP->t + 1]++;
    p->aOut[iO] = pP->t;
    p->aIn[iI] = pP->f;
    if (bWeight) {
      p->aOutW[iO] = p->aInW[iI] = pP->r;
      if (!pP->bInt) p->bIntWeight = 0;
      if (pP->bInt) p->bRealWeight = 0;
    }
  }
}

/* The rowid of every edge, in rowid order (the pending ones last), for 'integrity-check'. */
static int giLoadRowids(GiLoader *pL, sqlite3_int64 **paRowid) {
  sqlite3_int64 e, nEdge = pL->E.n;
  sqlite3_int64 *aR = (sqlite3_int64 *)sqlite3_realloc64(
      pL->E.aRs, sizeof(sqlite3_int64) * ((sqlite3_uint64)pL->p->nEdge + 1));
  if (aR == NULL) return SQLITE_NOMEM;
  pL->E.aRs = NULL;
  for (e = 0; e < pL->nPend; e++) aR[nEdge + e] = pL->aPend[e].iRowid;
  *paRowid = aR;
  return SQLITE_OK;
}

/*
** Fill the empty GraphCsr *p (vals.szElem set) from index zIndex: node
** rows in the order a rowid scan of the edge table meets them, each list
** in rowid order, weights when bWeight (the index has them). One scan of
** "<name>_blk" (a row per ~2 KB group), one of "<name>_tail" and one of
** "<name>_num"; the edges are ordered by rowid (giLoadOrder()), which gives
** the node order and the in-lists; no node value is hashed per edge. The
** steps above, in order; SQLITE_DONE from one (too many edges for a walk)
** ends the load without a copy.
*/
static int giLoad(sqlite3 *db, const char *zSchema, const char *zIndex, const GraphIndexInfo *pInfo,
                  int bJson, int bWeight, int bHasWeight, sqlite3_int64 nMaxEdge, int bAll, const char *zFunc,
                  GraphCsr *p, int *pbOk, char **pzErr, sqlite3_int64 **paRowid) {
  GiLoader L;
  int rc, bDup = 0;
  *pbOk = 0;
  memset(&L, 0, sizeof(L));
  L.db = db;
  L.zSchema = zSchema;
  L.zIndex = zIndex;
  L.zFunc = zFunc;
  L.pzErr = pzErr;
  L.bJson = bJson;
  L.bHasWeight = bHasWeight;
  L.nMaxEdge = nMaxEdge;
  L.bAll = bAll;
  L.p = p;
  L.E.bWeight = bWeight;
  L.E.bIntWeight = L.E.bRealWeight = 1;
  rc = giLoadNumbers(&L);
  if (rc == SQLITE_OK) rc = giLoadGroups(&L);
  if (rc == SQLITE_OK) rc = giLoadTails(&L);
  if (rc == SQLITE_OK && L.E.n > nMaxEdge) rc = giLoadTooBig(&L);
  /* The edges in rowid order (a JSON row's in array order). */
  if (rc == SQLITE_OK) rc = giLoadOrder(&L.E, bJson || paRowid != NULL, &bDup);
  if (rc == SQLITE_OK && bDup && !bJson) rc = giLoadCorrupt(&L, "two edges have one rowid");
  if (rc == SQLITE_OK && bJson) rc = giLoadRowFirst(&L);
  if (rc == SQLITE_OK) rc = giLoadNodeOrder(&L);
  if (rc == SQLITE_OK) rc = giLoadValues(&L);
  if (rc == SQLITE_OK) rc = giLoadPending(&L, pInfo);
  if (rc == SQLITE_OK && L.E.n + L.nPend > nMaxEdge) rc = giLoadTooBig(&L);
  if (rc == SQLITE_OK) rc = giLoadOffsets(&L, bWeight);
  if (rc == SQLITE_OK) giLoadLists(&L, bWeight);
  if (rc == SQLITE_OK && paRowid) rc = giLoadRowids(&L, paRowid);
  if (rc == SQLITE_OK) *pbOk = 1;
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  giLoaderClear(&L);
  return rc;
}

int graphIndexLoad(sqlite3 *db, const GraphSource *pSrc, sqlite3_int64 nMaxEdge, int bAll, const char *zFunc,
                   GraphCsr *p, int *pbLoaded, char **pzErr) {
  sqlite3_stmt *pStmt = NULL;
  char *zSql;
  int rc = SQLITE_OK;
  *pbLoaded = 0;
  if (pSrc->bView || pSrc->bNoIndex) return SQLITE_OK;
  zSql = sqlite3_mprintf(
      "SELECT name FROM \"%w\".sqlite_schema WHERE type = 'table' AND sql LIKE "
      "'CREATE VIRTUAL TABLE%%graph_index%%' ORDER BY name = ?1 DESC",
      pSrc->zSchema);
  rc = zSql ? sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  if (rc != SQLITE_OK) return rc;
  if (pSrc->zIndex) sqlite3_bind_text(pStmt, 1, pSrc->zIndex, -1, SQLITE_STATIC);
  while (rc == SQLITE_OK && !*pbLoaded && sqlite3_step(pStmt) == SQLITE_ROW) {
    const char *zIndex = (const char *)sqlite3_column_text(pStmt, 0);
    GraphIndexInfo info;
    int bOk = 0, bWeight;
    int rc2 = zIndex ? graphIndexConfig(db, pSrc->zSchema, zIndex, &info) : SQLITE_NOMEM;
    if (rc2 == SQLITE_NOMEM) rc = SQLITE_NOMEM;
    if (rc2 != SQLITE_OK) continue;
    bWeight = pSrc->zWeight != NULL;
    int bJson = info.zLayout && strcmp(info.zLayout, "json") == 0;
    if (info.iFormat == GI_FORMAT && bJson == (pSrc->eLayout == GRAPH_LAYOUT_JSON) &&
        sqlite3_stricmp(info.zTable, pSrc->zTable) == 0 && sqlite3_stricmp(info.zFrom, pSrc->zFrom) == 0 &&
        sqlite3_stricmp(info.zTo, pSrc->zTo) == 0 &&
        (!bWeight || (info.zWeight && sqlite3_stricmp(info.zWeight, pSrc->zWeight) == 0))) {
      rc = giUpToDate(db, pSrc->zSchema, zIndex, &info, &bOk);
      if (rc == SQLITE_OK && bOk) {
        rc = giLoad(db, pSrc->zSchema, zIndex, &info, pSrc->eLayout == GRAPH_LAYOUT_JSON, bWeight,
                    info.zWeight != NULL, nMaxEdge, bAll, zFunc, p, &bOk, pzErr, NULL);
        *pbLoaded = rc == SQLITE_OK && bOk;
        if (rc == SQLITE_OK && !bOk) *pbLoaded = -1; /* Too big: as from the table */
      }
    }
    graphIndexInfoClear(&info);
  }
  sqlite3_finalize(pStmt);
  return rc;
}

/**************************************************************************
** Checking: the index against a load of the edge table.
*/

/* *pInfo describing index p, its strings borrowed from p (not to be cleared). */
static void giNames(const gi_vtab *p, GraphIndexInfo *pInfo) {
  memset(pInfo, 0, sizeof(*pInfo));
  pInfo->zTable = p->zTable;
  pInfo->zFrom = p->zFrom;
  pInfo->zTo = p->zTo;
  pInfo->zWeight = p->zWeight;
  pInfo->bDeferred = p->bDeferred;
}

/* Compare two loads: NULL when equal, else what differs (sqlite3_mprintf). */
static char *giCompare(const GraphCsr *a, const GraphCsr *b, int bWeight, int *pbNoMem) {
  int i;
  sqlite3_int64 k;
  *pbNoMem = 0;
  if (a->vals.n != b->vals.n || a->nEdge != b->nEdge) {
    return sqlite3_mprintf("it holds %d nodes and %lld edges, the table %d and %lld", a->vals.n, a->nEdge,
                           b->vals.n, b->nEdge);
  }
  for (i = 0; i < a->vals.n; i++) {
    const GraphValue *pA = (const GraphValue *)graphSetAt(&a->vals, i);
    const GraphValue *pB = (const GraphValue *)graphSetAt(&b->vals, i);
    const char *zWhat = NULL;
    if (!graphValueEq(pA, pB)) {
      zWhat = "node %s is not where the table has it";
    } else if (a->aOutOff[i + 1] != b->aOutOff[i + 1] || a->aInOff[i + 1] != b->aInOff[i + 1]) {
      zWhat = "the degree of node %s differs";
    } else {
      for (k = a->aOutOff[i]; zWhat == NULL && k < a->aOutOff[i + 1]; k++) {
        if (a->aOut[k] != b->aOut[k] || (bWeight && a->aOutW[k] != b->aOutW[k]))
          zWhat = "the out-list of node %s differs";
      }
      for (k = a->aInOff[i]; zWhat == NULL && k < a->aInOff[i + 1]; k++) {
        if (a->aIn[k] != b->aIn[k] || (bWeight && a->aInW[k] != b->aInW[k]))
          zWhat = "the in-list of node %s differs";
      }
    }
    if (zWhat) {
      char *zNode = graphValueText(pB), *zMsg = zNode ? sqlite3_mprintf(zWhat, zNode) : NULL;
      sqlite3_free(zNode);
      *pbNoMem = zMsg == NULL;
      return zMsg;
    }
  }
  return NULL;
}

/*
** The edges' rowids aRowid[0..n), in rowid order, against the table's:
** *pzDiff says where they differ (sqlite3_mprintf), or stays NULL. The
** lists may agree with the table while a stored rowid is wrong (every
** rowid of a list moved alike): the next write would misplace an edge.
*/
static int giCheckRowids(gi_vtab *p, const sqlite3_int64 *aRowid, sqlite3_int64 n, char **pzDiff) {
  sqlite3_stmt *pStmt = NULL;
  sqlite3_int64 k = 0;
  char *zSql;
  int rc;
  if (p->bJson) {
    zSql = sqlite3_mprintf(
        "SELECT s.rowid FROM \"%w\".\"%w\" AS s, json_each(CASE WHEN json_type(s.\"%w\") = 'array' THEN "
        "s.\"%w\" END) AS j WHERE s.\"%w\" IS NOT NULL AND j.value IS NOT NULL ORDER BY s.rowid, j.key",
        p->zDb, p->zTable, p->zTo, p->zTo, p->zFrom);
  } else {
    zSql = sqlite3_mprintf(
        "SELECT rowid FROM \"%w\".\"%w\" WHERE \"%w\" IS NOT NULL AND \"%w\" IS NOT NULL ORDER BY rowid",
        p->zDb, p->zTable, p->zFrom, p->zTo);
  }
  rc = zSql ? sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  while (rc == SQLITE_OK && *pzDiff == NULL && sqlite3_step(pStmt) == SQLITE_ROW) {
    sqlite3_int64 iRowid = sqlite3_column_int64(pStmt, 0);
    if (k >= n || aRowid[k] != iRowid) {
      *pzDiff = k < n ? sqlite3_mprintf("edge %lld in rowid order has rowid %lld, the table's %lld", k + 1,
                                        aRowid[k], iRowid)
                      : sqlite3_mprintf("it holds fewer edges than the table");
      if (*pzDiff == NULL) rc = SQLITE_NOMEM;
    }
    k++;
  }
  return giScanDone(rc, pStmt);
}

static int giCheck(gi_vtab *p) {
  sqlite3_int64 *aRowid = NULL;
  GraphIndexInfo names;
  GraphSource src;
  GraphCsr *pTab = NULL, *pIdx = NULL;
  char *zErr = NULL, *zDiff = NULL;
  int rc = SQLITE_OK, bOk = 0, bNoMem = 0, bTrig = 1;
  sqlite3_int64 nPending = 0;
  giNames(p, &names);
  memset(&src, 0, sizeof(src));
  src.zSchema = p->zDb;
  src.zTable = p->zTable;
  src.zFrom = p->zFrom;
  src.zTo = p->zTo;
  src.zWeight = p->zWeight;
  src.bNoIndex = 1;
  src.eLayout = p->bJson ? GRAPH_LAYOUT_JSON : GRAPH_LAYOUT_EDGES;
  src.zOrder = (char *)"s.rowid";
  rc = graphCsrLoad(p->db, &src, 0x7fffffff, 1, "graph_index", &pTab, &zErr);
  if (rc == SQLITE_OK) rc = graphCsrNew(p->db, &src, 1, &pIdx);
  if (rc == SQLITE_OK) {
    rc = giLoad(p->db, p->zDb, p->zName, &names, p->bJson, p->zWeight != NULL, p->zWeight != NULL, 0x7fffffff,
                1, NULL, pIdx, &bOk, &zErr, &aRowid);
  }
  if (rc == SQLITE_OK) zDiff = giCompare(pIdx, pTab, p->zWeight != NULL, &bNoMem);
  if (rc == SQLITE_OK && zDiff == NULL && !bNoMem) rc = giCheckRowids(p, aRowid, pIdx->nEdge, &zDiff);
  if (rc == SQLITE_OK && bNoMem) rc = SQLITE_NOMEM;
  if (rc == SQLITE_OK) {
    int nStale = 0;
    rc = giCreateTriggers(p, &zErr, &nStale);
    bTrig = nStale == 0;
  }
  if (rc == SQLITE_OK && p->bDeferred && zDiff) {
    sqlite3_stmt *pStmt = NULL;
    char *zSql = sqlite3_mprintf("SELECT count(*) FROM \"%w\".\"%w_log\"", p->zDb, p->zName);
    rc = zSql ? sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0) : SQLITE_NOMEM;
    sqlite3_free(zSql);
    if (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) nPending = sqlite3_column_int64(pStmt, 0);
    if (rc == SQLITE_OK) {
      rc = sqlite3_finalize(pStmt);
    } else {
      sqlite3_finalize(pStmt);
    }
  }
  if (rc == SQLITE_OK && (zDiff || !bTrig)) {
    nosqlVtabError(&p->base,
                   "graph_index '%s' has drifted from '%s': %s%s%s%s; INSERT INTO \"%w\"(\"%w\") "
                   "VALUES('%s') repairs it",
                   p->zName, p->zTable, zDiff ? zDiff : "its lists agree with the table",
                   nPending ? " (changes logged in deferred mode await 'refresh')" : "",
                   bTrig ? "" : "; a trigger on the edge table is missing or out of date", "", p->zName,
                   p->zName, nPending && bTrig ? "refresh" : "rebuild");
    rc = SQLITE_CORRUPT_VTAB;
  } else if (zErr) {
    /* Messages of graph_index's own load start with "graph_index: "; name the index. */
    nosqlVtabError(&p->base, "%s", zErr);
  }
  sqlite3_free(zErr);
  sqlite3_free(zDiff);
  graphCsrUnref(pTab);
  graphCsrUnref(pIdx);
  sqlite3_free(aRowid);
  return rc;
}

/**************************************************************************
** The virtual table.
*/

static const char *const azGiTrigger[] = {"_bi", "_ai", "_bu", "_au", "_ad"};

static int giDropTriggers(gi_vtab *p) {
  int rc = SQLITE_OK, i;
  for (i = 0; rc == SQLITE_OK && i < 5; i++) {
    rc = giExec(p->db,
                sqlite3_mprintf("DROP TRIGGER IF EXISTS \"%w\".\"%w%s\"", p->zDb, p->zName, azGiTrigger[i]));
  }
  return rc;
}

/* giUniqueConds()'s column callback: ", "a"" to the OF list, the change test to the WHEN clause. */
typedef struct GiUniqueCtx GiUniqueCtx;
struct GiUniqueCtx {
  NosqlBuffer *pOf;      /* ", "a"" per column */
  NosqlBuffer *pChanged; /* " OR OLD."a" IS NOT NEW."a" COLLATE BINARY" per column */
};

static int giUniqueCol(void *pCtx, const char *zCol) {
  GiUniqueCtx *p = (GiUniqueCtx *)pCtx;
  int rc = SQLITE_OK;
  nosqlBufferAppendf(&rc, p->pOf, ", \"%w\"", zCol);
  nosqlBufferAppendf(&rc, p->pChanged, " OR OLD.\"%w\" IS NOT NEW.\"%w\" COLLATE BINARY", zCol, zCol);
  return rc;
}

/*
** The rows a REPLACE may displace besides the one at NEW's rowid: those
** equal to NEW on every key column of a UNIQUE index of the table
** (nosqlUniqueConds()). *pCond gets " OR (s.a = NEW.a COLLATE c AND ...)"
** per index, *pOf ", a" per column (for the UPDATE OF lists), *pChanged
** " OR OLD.a IS NOT NEW.a COLLATE BINARY" per column (for the WHEN clause
** of an update trigger without a list). An index on an expression is not
** covered (docs/graphs.md).
*/
static int giUniqueConds(gi_vtab *p, NosqlBuffer *pCond, NosqlBuffer *pOf, NosqlBuffer *pChanged) {
  GiUniqueCtx ctx;
  int nIndex;
  ctx.pOf = pOf;
  ctx.pChanged = pChanged;
  return nosqlUniqueConds(p->db, p->zDb, p->zTable, pCond, &nIndex, 0, giUniqueCol, &ctx);
}

/*
** *pbGen: from_col, to_col, the weight or a key column of a UNIQUE index
** is a generated column; *pbGenKey: a key column of a UNIQUE index is. An
** UPDATE OF list cannot name what they are computed from, so the update
** triggers then fire on more updates (giCreateTriggers()).
*/
static int giGenerated(gi_vtab *p, int *pbGen, int *pbGenKey) {
  sqlite3_stmt *pStmt = NULL;
  int rc, bAny = 0;
  *pbGen = *pbGenKey = 0;
  /* Most tables have no generated column: one cheap look first. */
  rc = sqlite3_prepare_v2(p->db, "SELECT 1 FROM pragma_table_xinfo(?1, ?2) WHERE hidden IN (2, 3)", -1,
                          &pStmt, 0);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_text(pStmt, 1, p->zTable, -1, SQLITE_STATIC);
  sqlite3_bind_text(pStmt, 2, p->zDb, -1, SQLITE_STATIC);
  bAny = sqlite3_step(pStmt) == SQLITE_ROW;
  rc = sqlite3_finalize(pStmt);
  pStmt = NULL;
  if (rc != SQLITE_OK || !bAny) return rc;
  rc = sqlite3_prepare_v2(
      p->db,
      "SELECT count(*), max(c.name IN (SELECT x.name FROM pragma_index_list(?1, ?2) AS l, "
      "pragma_index_xinfo(l.name, ?2) AS x WHERE l.\"unique\" AND x.key) COLLATE NOCASE) FROM "
      "pragma_table_xinfo(?1, ?2) AS c WHERE c.hidden IN (2, 3) AND (c.name IN (?3, ?4, ?5) COLLATE NOCASE "
      "OR c.name IN (SELECT x.name FROM pragma_index_list(?1, ?2) AS l, pragma_index_xinfo(l.name, ?2) AS x "
      "WHERE l.\"unique\" AND x.key) COLLATE NOCASE)",
      -1, &pStmt, 0);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_text(pStmt, 1, p->zTable, -1, SQLITE_STATIC);
  sqlite3_bind_text(pStmt, 2, p->zDb, -1, SQLITE_STATIC);
  sqlite3_bind_text(pStmt, 3, p->zFrom, -1, SQLITE_STATIC);
  sqlite3_bind_text(pStmt, 4, p->zTo, -1, SQLITE_STATIC);
  if (p->zWeight) sqlite3_bind_text(pStmt, 5, p->zWeight, -1, SQLITE_STATIC);
  if (sqlite3_step(pStmt) == SQLITE_ROW) {
    *pbGen = sqlite3_column_int(pStmt, 0) > 0;
    *pbGenKey = sqlite3_column_int(pStmt, 1) > 0;
  }
  return sqlite3_finalize(pStmt);
}

/* What the five triggers of an index share (giTriggerParts()); freed by giTriggerPartsClear(). */
typedef struct GiTriggerParts GiTriggerParts;
struct GiTriggerParts {
  char *zIpk;          /* The table's INTEGER PRIMARY KEY */
  char *zW;            /* The weight column quoted, or NULL */
  NosqlBuffer cond;    /* " OR (s.a = NEW.a COLLATE c AND ...)" per UNIQUE index (giUniqueConds()) */
  NosqlBuffer of;      /* ", a" per UNIQUE key column */
  NosqlBuffer ukey;    /* " OR OLD.a IS NOT NEW.a COLLATE BINARY" per UNIQUE key column */
  NosqlBuffer changed; /* With bGen: the WHEN clause of the AFTER UPDATE trigger */
  int bGen;            /* An endpoint, the weight or a UNIQUE key is generated (giGenerated()) */
  int bGenKey;         /* A UNIQUE key is generated */
};

/* The events of the five triggers, azGiTrigger[]'s order. */
static const char *const azGiWhen[] = {"BEFORE INSERT", "AFTER INSERT", "BEFORE UPDATE", "AFTER UPDATE",
                                       "AFTER DELETE"};

static void giTriggerPartsClear(GiTriggerParts *t) {
  nosqlBufferFree(&t->cond);
  nosqlBufferFree(&t->of);
  nosqlBufferFree(&t->ukey);
  nosqlBufferFree(&t->changed);
  sqlite3_free(t->zIpk);
  sqlite3_free(t->zW);
}

/* Fill *t for index p: its table's INTEGER PRIMARY KEY (SQLITE_ERROR without one), UNIQUE keys, generated
 * columns. */
static int giTriggerParts(gi_vtab *p, GiTriggerParts *t) {
  int rc = nosqlRowidAlias(p->db, p->zDb, p->zTable, &t->zIpk), i;
  if (rc == SQLITE_OK && t->zIpk == NULL) rc = SQLITE_ERROR;
  if (rc == SQLITE_OK) rc = giUniqueConds(p, &t->cond, &t->of, &t->ukey);
  if (rc == SQLITE_OK) rc = giGenerated(p, &t->bGen, &t->bGenKey);
  nosqlBufferAppend(&rc, &t->cond, "", 0);
  nosqlBufferAppend(&rc, &t->of, "", 0);
  t->zW = p->zWeight ? sqlite3_mprintf("\"%w\"", p->zWeight) : NULL;
  if (rc == SQLITE_OK && p->zWeight && t->zW == NULL) rc = SQLITE_NOMEM;
  if (t->bGen) {
    /* "OLD.rowid IS NOT NEW.rowid OR OLD."a" IS NOT NEW."a" COLLATE BINARY OR typeof(...) ..." */
    nosqlBufferAppend(&rc, &t->changed, "OLD.rowid IS NOT NEW.rowid", -1);
    for (i = 0; rc == SQLITE_OK && i < 3; i++) {
      const char *zCol = i == 0 ? p->zFrom : i == 1 ? p->zTo : p->zWeight;
      if (zCol == NULL) continue;
      nosqlBufferAppendf(&rc, &t->changed,
                         " OR OLD.\"%w\" IS NOT NEW.\"%w\" COLLATE BINARY OR typeof(OLD.\"%w\") <> "
                         "typeof(NEW.\"%w\")",
                         zCol, zCol, zCol, zCol);
    }
    nosqlBufferAppend(&rc, &t->changed, t->ukey.a ? (const char *)t->ukey.a : "", -1);
  }
  return rc;
}

/*
** Trigger i's head into *pB, "CREATE TRIGGER ... BEGIN\n", and into
** *pWhere the rows a REPLACE may displace: at NEW's rowid, or equal on a
** UNIQUE index.
*/
static void giTriggerHead(int *pRc, gi_vtab *p, const GiTriggerParts *t, int i, NosqlBuffer *pB,
                          NosqlBuffer *pWhere) {
  nosqlBufferAppendf(pRc, pB, "CREATE TRIGGER \"%w\".\"%w%s\" %s", p->zDb, p->zName, azGiTrigger[i],
                     azGiWhen[i]);
  if ((i == 2 && !t->bGenKey) || (i == 3 && !t->bGen)) {
    nosqlBufferAppendf(pRc, pB, " OF \"%w\", rowid, _rowid_, oid", t->zIpk);
    if (i == 3) nosqlBufferAppendf(pRc, pB, ", \"%w\", \"%w\"", p->zFrom, p->zTo);
    nosqlBufferAppend(pRc, pB, t->of.a ? (const char *)t->of.a : "", -1);
    if (i == 3 && t->zW) nosqlBufferAppendf(pRc, pB, ", %s", t->zW);
  }
  if (i == 0) {
    nosqlBufferAppendf(pRc, pWhere, "s.rowid = NEW.rowid%s", t->cond.a ? (const char *)t->cond.a : "");
  } else {
    nosqlBufferAppendf(pRc, pWhere, "s.rowid IS NOT OLD.rowid AND (s.rowid = NEW.rowid%s)",
                       t->cond.a ? (const char *)t->cond.a : "");
  }
  nosqlBufferAppendf(pRc, pB, " ON \"%w\"", p->zTable);
  if (i == 0 || i == 2) {
    /* A WHEN clause is cheap; an INSERT into the table costs a few microseconds even without a row. */
    nosqlBufferAppendf(pRc, pB, " WHEN EXISTS (SELECT 1 FROM \"%w\" AS s WHERE %s)", p->zTable,
                       (const char *)pWhere->a);
  } else if (i == 3 && t->bGen) {
    nosqlBufferAppendf(pRc, pB, " WHEN %s", (const char *)t->changed.a);
  }
  nosqlBufferAppend(pRc, pB, " BEGIN\n", -1);
}

/*
** The AFTER INSERT trigger's body in sync mode, edges layout: the common
** insert (endpoints not NULL, a good weight, past every rowid, nothing
** stashed) is one plain row in <name>_pend, which the loads read and the
** index folds into its lists every GI_PEND_MAX rows and before any other
** change; any other goes through it.
*/
static void giTriggerInsertBody(int *pRc, gi_vtab *p, const GiTriggerParts *t, NosqlBuffer *pB) {
  const char *zW = t->zW;
  NosqlBuffer fast = {0, 0, 0};
  nosqlBufferAppendf(pRc, &fast, "NEW.\"%w\" IS NOT NULL AND NEW.\"%w\" IS NOT NULL", p->zFrom, p->zTo);
  if (zW)
    nosqlBufferAppendf(pRc, &fast, " AND typeof(NEW.%s) IN ('integer', 'real') AND NEW.%s >= 0", zW, zW);
  nosqlBufferAppendf(
      pRc, &fast,
      " AND NOT EXISTS (SELECT 1 FROM \"%w\" WHERE rowid > NEW.rowid) AND NOT EXISTS (SELECT 1 "
      "FROM \"%w_flag\")",
      p->zTable, p->zName);
  nosqlBufferAppend(pRc, &fast, "", 0);
  nosqlBufferAppendf(
      pRc, pB,
      "INSERT INTO \"%w_pend\"(r, f, t, w) SELECT NEW.rowid, NEW.\"%w\", NEW.\"%w\", %s%s WHERE %s;\n",
      p->zName, p->zFrom, p->zTo, zW ? "NEW." : "", zW ? zW : "NULL", fast.a ? (const char *)fast.a : "");
  /*
  ** Not written there (changes(), in a trigger, counts its last
  ** statement): through the index. Written as the GI_PEND_MAX-th row
  ** (last_insert_rowid(), in a trigger, is its last insert's): a fold.
  */
  nosqlBufferAppendf(
      pRc, pB,
      "INSERT INTO \"%w\"(\"%w\", op_rowid, op_from, op_to, op_weight) SELECT CASE WHEN "
      "changes() = 0 THEN 'insert' ELSE 'fold' END, NEW.rowid, NEW.\"%w\", NEW.\"%w\", %s%s WHERE "
      "changes() = 0 OR last_insert_rowid() >= %d;\n",
      p->zName, p->zName, p->zFrom, p->zTo, zW ? "NEW." : "", zW ? zW : "NULL", GI_PEND_MAX);
  nosqlBufferFree(&fast);
}

/* Trigger i's statements into *pB (zWhere: giTriggerHead()'s displaced rows), deferred or sync mode. */
static void giTriggerBody(int *pRc, gi_vtab *p, const GiTriggerParts *t, int i, const char *zWhere,
                          NosqlBuffer *pB) {
  if (p->bDeferred) {
    if (i == 0 || i == 2) {
      /* A row that REPLACE will displace from the new rowid. */
      nosqlBufferAppendf(
          pRc, pB, "INSERT INTO \"%w_log\"(f, t) SELECT s.\"%w\", s.\"%w\" FROM \"%w\" AS s WHERE %s;\n",
          p->zName, p->zFrom, p->zTo, p->zTable, zWhere);
    } else {
      const char *zRow = i == 4 ? "OLD" : "NEW";
      nosqlBufferAppendf(pRc, pB, "INSERT INTO \"%w_log\"(f, t) VALUES(%s.\"%w\", %s.\"%w\")", p->zName, zRow,
                         p->zFrom, zRow, p->zTo);
      if (i == 3) nosqlBufferAppendf(pRc, pB, ", (OLD.\"%w\", OLD.\"%w\")", p->zFrom, p->zTo);
      nosqlBufferAppend(pRc, pB, ";\n", 2);
    }
  } else if (i == 0 || i == 2) {
    nosqlBufferAppendf(
        pRc, pB,
        "INSERT INTO \"%w\"(\"%w\", op_from, op_to) SELECT 'stash', s.\"%w\", s.\"%w\" FROM \"%w\" "
        "AS s WHERE %s;\n",
        p->zName, p->zName, p->zFrom, p->zTo, p->zTable, zWhere);
    /* The insert that follows goes through the index: it rebuilds the stashed lists. */
    if (i == 0 && !p->bJson) nosqlBufferAppendf(pRc, pB, "INSERT INTO \"%w_flag\"(x) VALUES(1);\n", p->zName);
  } else if (i == 1 && p->bJson) {
    /* The JSON layout: the row's out-list and its elements' in-lists rebuilt (and the stash). */
    nosqlBufferAppendf(pRc, pB,
                       "INSERT INTO \"%w\"(\"%w\", op_rowid, op_from, op_to) VALUES('sync', NEW.rowid, "
                       "NEW.\"%w\", NEW.\"%w\");\n",
                       p->zName, p->zName, p->zFrom, p->zTo);
  } else if (i == 1) {
    giTriggerInsertBody(pRc, p, t, pB);
  } else {
    if (i == 3) {
      nosqlBufferAppendf(
          pRc, pB, "INSERT INTO \"%w\"(\"%w\", op_from, op_to) VALUES('stash', NEW.\"%w\", NEW.\"%w\");\n",
          p->zName, p->zName, p->zFrom, p->zTo);
    }
    nosqlBufferAppendf(pRc, pB,
                       "INSERT INTO \"%w\"(\"%w\", op_from, op_to) VALUES('sync', OLD.\"%w\", OLD.\"%w\");\n",
                       p->zName, p->zName, p->zFrom, p->zTo);
  }
}

/*
** Count trigger i in *pnStale when the stored one is missing, on another
** table, or not zText from the event on (SQLite stores the text without
** the schema). *ppHas: the lookup statement, prepared on first use.
*/
static int giTriggerStale(gi_vtab *p, int i, const char *zText, sqlite3_stmt **ppHas, int *pnStale) {
  int rc = SQLITE_OK;
  char *zName = sqlite3_mprintf("%s%s", p->zName, azGiTrigger[i]);
  if (zName == NULL) rc = SQLITE_NOMEM;
  if (rc == SQLITE_OK && *ppHas == NULL) {
    char *zSql = sqlite3_mprintf(
        "SELECT sql FROM \"%w\".sqlite_schema WHERE type = 'trigger' AND name = ?1 AND tbl_name = ?2 "
        "COLLATE NOCASE",
        p->zDb);
    rc = zSql ? sqlite3_prepare_v2(p->db, zSql, -1, ppHas, 0) : SQLITE_NOMEM;
    sqlite3_free(zSql);
  }
  if (rc == SQLITE_OK) {
    sqlite3_stmt *pHas = *ppHas;
    int rcStep;
    const char *zHas, *zA, *zB = strstr(zText, azGiWhen[i]);
    sqlite3_bind_text(pHas, 1, zName, -1, SQLITE_STATIC);
    sqlite3_bind_text(pHas, 2, p->zTable, -1, SQLITE_STATIC);
    rcStep = sqlite3_step(pHas);
    zHas = rcStep == SQLITE_ROW ? (const char *)sqlite3_column_text(pHas, 0) : NULL;
    if (rcStep == SQLITE_ROW && zHas == NULL) rc = SQLITE_NOMEM;
    zA = zHas ? strstr(zHas, azGiWhen[i]) : NULL;
    if (rc == SQLITE_OK && (zA == NULL || zB == NULL || strcmp(zA, zB) != 0)) (*pnStale)++;
    if (rc == SQLITE_OK) {
      rc = sqlite3_reset(pHas);
    } else {
      sqlite3_reset(pHas);
    }
  }
  sqlite3_free(zName);
  return rc;
}

/*
** Create the triggers, or with pnStale count those missing, on another
** table, or not as this version would create them now (a UNIQUE index
** added since, the edge table renamed).
**
** The update triggers fire on the rowid through each of its names: an
** UPDATE OF list matches the names a SET clause uses, and "SET rowid = 10"
** names no column. With a generated column among those the index reads
** (giGenerated()) the AFTER trigger fires on every UPDATE, with a WHEN
** clause that lets through only updates that change the rowid, an
** endpoint, the weight or a UNIQUE key, compared by type and bytes as the
** index compares nodes; the BEFORE trigger, which looks for displaced
** rows, does only when a UNIQUE key column is generated (only a new rowid
** or UNIQUE key displaces a row). Each trigger's text: giTriggerHead(),
** giTriggerBody(), END.
*/
static int giCreateTriggers(gi_vtab *p, char **pzErr, int *pnStale) {
  NosqlBuffer b = {0, 0, 0}, where = {0, 0, 0};
  GiTriggerParts t;
  sqlite3_stmt *pHas = NULL; /* With pnStale: the stored text of a trigger */
  int rc = pnStale ? SQLITE_OK : giDropTriggers(p), i;
  memset(&t, 0, sizeof(t));
  if (rc == SQLITE_OK) rc = giTriggerParts(p, &t);
  for (i = 0; rc == SQLITE_OK && i < 5; i++) {
    nosqlBufferReset(&b);
    nosqlBufferReset(&where);
    giTriggerHead(&rc, p, &t, i, &b, &where);
    if (rc == SQLITE_OK) giTriggerBody(&rc, p, &t, i, (const char *)where.a, &b);
    nosqlBufferAppend(&rc, &b, "END", 3);
    if (rc == SQLITE_OK && pnStale) {
      rc = giTriggerStale(p, i, (const char *)b.a, &pHas, pnStale);
    } else if (rc == SQLITE_OK) {
      rc = sqlite3_exec(p->db, (const char *)b.a, 0, 0, 0);
      if (rc != SQLITE_OK && rc != SQLITE_NOMEM) {
        *pzErr = sqlite3_mprintf("graph_index: cannot create trigger '%s%s': %s", p->zName, azGiTrigger[i],
                                 sqlite3_errmsg(p->db));
      }
    }
  }
  nosqlBufferFree(&b);
  nosqlBufferFree(&where);
  sqlite3_finalize(pHas);
  giTriggerPartsClear(&t);
  return rc;
}

static void giFree(gi_vtab *p) {
  if (p == NULL) return;
  giStmtClear(p);
  giStashClear(p);
  sqlite3_free(p->aStash);
  graphSetClear(&p->cache);
  sqlite3_free(p->zDb);
  sqlite3_free(p->zName);
  sqlite3_free(p->zTable);
  sqlite3_free(p->zFrom);
  sqlite3_free(p->zTo);
  sqlite3_free(p->zWeight);
  sqlite3_free(p->zDamage);
  sqlite3_free(p->base.zErrMsg);
  sqlite3_free(p);
}

/* An argument as a name: dequoted ('x', "x", [x], `x`), sqlite3_mprintf. */
static char *giArgName(const char *z) {
  int n = (int)strlen(z);
  while (n > 0 && (z[n - 1] == ' ' || z[n - 1] == '\t' || z[n - 1] == '\n')) n--;
  while (n > 0 && (z[0] == ' ' || z[0] == '\t' || z[0] == '\n')) z++, n--;
  return nosqlDequote(z, n);
}

/* Parse the module arguments into p; messages in *pzErr. */
static int giParseArgs(gi_vtab *p, int argc, const char *const *argv, int *pbJson, char **pzErr) {
  int i, nPos = 0;
  *pbJson = 0;
  for (i = 3; i < argc; i++) {
    const char *zEq = strchr(argv[i], '=');
    if (zEq == NULL) {
      char **pz = nPos == 0 ? &p->zTable : nPos == 1 ? &p->zFrom : nPos == 2 ? &p->zTo : NULL;
      if (pz == NULL) {
        *pzErr = sqlite3_mprintf(
            "graph_index: unexpected argument '%s' (expected edges, from_col, to_col, then "
            "weight = , layout = , mode = )",
            argv[i]);
        return SQLITE_ERROR;
      }
      *pz = giArgName(argv[i]);
      if (*pz == NULL) return SQLITE_NOMEM;
      nPos++;
    } else {
      char *zKey = nosqlDequote(argv[i], (int)(zEq - argv[i]));
      char *zVal = giArgName(zEq + 1);
      int rc = SQLITE_OK;
      char *zK = zKey;
      if (zKey == NULL || zVal == NULL) {
        rc = SQLITE_NOMEM;
      } else {
        int n = (int)strlen(zK);
        while (n > 0 && zK[n - 1] == ' ') zK[--n] = 0;
        while (*zK == ' ') zK++;
        if (sqlite3_stricmp(zK, "weight") == 0) {
          sqlite3_free(p->zWeight);
          p->zWeight = zVal;
          zVal = NULL;
        } else if (sqlite3_stricmp(zK, "layout") == 0) {
          if (sqlite3_stricmp(zVal, "json") == 0) {
            *pbJson = 1;
          } else if (sqlite3_stricmp(zVal, "edges") != 0) {
            *pzErr = sqlite3_mprintf("graph_index: unknown layout '%s' (expected 'edges' or 'json')", zVal);
            rc = SQLITE_ERROR;
          }
        } else if (sqlite3_stricmp(zK, "mode") == 0) {
          if (sqlite3_stricmp(zVal, "deferred") == 0) {
            p->bDeferred = 1;
          } else if (sqlite3_stricmp(zVal, "sync") == 0) {
            p->bDeferred = 0;
          } else {
            *pzErr = sqlite3_mprintf("graph_index: unknown mode '%s' (expected 'sync' or 'deferred')", zVal);
            rc = SQLITE_ERROR;
          }
        } else {
          static const char *const azValid[] = {"weight", "layout", "mode", NULL};
          *pzErr = nosqlUnknownOption("graph_index", zK, -1, azValid);
          rc = *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
        }
      }
      sqlite3_free(zKey);
      sqlite3_free(zVal);
      if (rc != SQLITE_OK) return rc;
    }
  }
  if (nPos < 3) {
    *pzErr = sqlite3_mprintf("graph_index: expected the edge table, from_col and to_col");
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

/* Check the edge table and columns; take their declared names. */
static int giResolve(gi_vtab *p, char **pzErr) {
  NosqlTableName t;
  char *zIpk = NULL;
  int rc = nosqlTableResolve(p->db, p->zTable, p->zDb, &t), i;
  if (rc == SQLITE_NOTFOUND || (rc == SQLITE_OK && t.eType != NOSQL_TABLE)) {
    *pzErr = sqlite3_mprintf(
        "graph_index: no such table: '%s'%s", p->zTable,
        rc == SQLITE_OK ? " (a view or virtual table has no triggers to keep the index)" : "");
    nosqlTableNameClear(&t);
    return SQLITE_ERROR;
  }
  if (rc != SQLITE_OK) return rc;
  if (sqlite3_stricmp(t.zSchema, p->zDb) != 0) {
    *pzErr = sqlite3_mprintf("graph_index: table '%s' is not in schema '%s' of the index", p->zTable, p->zDb);
    nosqlTableNameClear(&t);
    return SQLITE_ERROR;
  }
  sqlite3_free(p->zTable);
  p->zTable = t.zName;
  t.zName = NULL;
  nosqlTableNameClear(&t);
  rc = nosqlRowidAlias(p->db, p->zDb, p->zTable, &zIpk);
  if (rc == SQLITE_OK && zIpk == NULL) {
    *pzErr = sqlite3_mprintf(
        "graph_index: table '%s' has no INTEGER PRIMARY KEY: the index keeps each list in "
        "rowid order and VACUUM may renumber its rowids; declare a column INTEGER PRIMARY KEY",
        p->zTable);
    rc = SQLITE_ERROR;
  }
  sqlite3_free(zIpk);
  for (i = 0; rc == SQLITE_OK && i < 3; i++) {
    static const char *const azArg[] = {"from_col", "to_col", "weight"};
    char **pz = i == 0 ? &p->zFrom : i == 1 ? &p->zTo : &p->zWeight;
    char *zNew = NULL;
    if (*pz == NULL) continue;
    rc = nosqlColumnName(p->db, p->zDb, p->zTable, *pz, &zNew);
    if (rc == SQLITE_OK) {
      sqlite3_free(*pz);
      *pz = zNew;
    } else if (rc == SQLITE_NOTFOUND) {
      *pzErr = sqlite3_mprintf("graph_index: table '%s' has no column '%s' (%s)", p->zTable, *pz, azArg[i]);
      rc = *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
    }
  }
  return rc;
}

static int giCreateShadow(gi_vtab *p) {
  int rc = giExec(
      p->db,
      sqlite3_mprintf(
          "CREATE TABLE \"%w\".\"%w_config\"(k TEXT PRIMARY KEY, v) WITHOUT ROWID;"
          "CREATE TABLE \"%w\".\"%w_num\"(value PRIMARY KEY, id INTEGER NOT NULL) WITHOUT ROWID;"
          "CREATE TABLE \"%w\".\"%w_blk\"(k INTEGER PRIMARY KEY, data BLOB);"
          "CREATE TABLE \"%w\".\"%w_tail\"(k INTEGER PRIMARY KEY, first INTEGER, n INTEGER, list BLOB);"
          "CREATE TABLE \"%w\".\"%w_log\"(f, t);"
          "CREATE TABLE \"%w\".\"%w_pend\"(p INTEGER PRIMARY KEY, r INTEGER, f, t, w, fi INTEGER, ti "
          "INTEGER);"
          "CREATE TABLE \"%w\".\"%w_flag\"(x);",
          p->zDb, p->zName, p->zDb, p->zName, p->zDb, p->zName, p->zDb, p->zName, p->zDb, p->zName, p->zDb,
          p->zName, p->zDb, p->zName));
  if (rc == SQLITE_OK) {
    rc = giExec(p->db,
                sqlite3_mprintf("INSERT INTO \"%w\".\"%w_config\"(k, v) VALUES('format', %d), ('table', %Q), "
                                "('from', %Q), ('to', %Q), ('weight', %Q), ('layout', '%s'), ('mode', %Q)",
                                p->zDb, p->zName, GI_FORMAT, p->zTable, p->zFrom, p->zTo, p->zWeight,
                                p->bJson ? "json" : "edges", p->bDeferred ? "deferred" : "sync"));
  }
  return rc;
}

static int giConnectImpl(sqlite3 *db, int argc, const char *const *argv, sqlite3_vtab **ppVtab, char **pzErr,
                         int bCreate) {
  gi_vtab *p = (gi_vtab *)sqlite3_malloc64(sizeof(*p));
  int rc, bJson = 0;
  *ppVtab = NULL;
  if (p == NULL) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->cache.szElem = (int)sizeof(GiCached);
  p->db = db;
  p->zDb = sqlite3_mprintf("%s", argv[1]);
  p->zName = sqlite3_mprintf("%s", argv[2]);
  rc = (p->zDb && p->zName) ? SQLITE_OK : SQLITE_NOMEM;
  if (rc == SQLITE_OK) rc = giParseArgs(p, argc, argv, &bJson, pzErr);
  p->bJson = bJson;
  if (rc == SQLITE_OK && bCreate) rc = nosqlVtabEmptyArg(db, "graph_index", p->zDb, p->zName, pzErr);
  if (rc == SQLITE_OK && bCreate) rc = giResolve(p, pzErr);
  if (rc == SQLITE_OK) {
    char *zDecl = sqlite3_mprintf(
        "CREATE TABLE x(node, out_degree INTEGER, in_degree INTEGER, \"%w\" HIDDEN, "
        "op_rowid HIDDEN, op_from HIDDEN, op_to HIDDEN, op_weight HIDDEN)",
        p->zName);
    rc = zDecl ? sqlite3_declare_vtab(db, zDecl) : SQLITE_NOMEM;
    sqlite3_free(zDecl);
  }
  if (rc == SQLITE_OK && bCreate) {
    rc = giCreateShadow(p);
    if (rc == SQLITE_OK) rc = giCreateTriggers(p, pzErr, NULL);
    if (rc == SQLITE_OK) {
      rc = giRebuildAll(p);
      if (rc != SQLITE_OK && p->base.zErrMsg) *pzErr = sqlite3_mprintf("%s", p->base.zErrMsg);
    }
    if (rc != SQLITE_OK && *pzErr == NULL && rc != SQLITE_NOMEM) {
      *pzErr = sqlite3_mprintf("graph_index: cannot create '%s': %s", p->zName, sqlite3_errmsg(db));
    }
  } else if (rc == SQLITE_OK) {
    GraphIndexInfo info;
    int rc2 = graphIndexConfig(db, p->zDb, p->zName, &info);
    if (rc2 == SQLITE_NOMEM) {
      rc = rc2;
    } else if (rc2 != SQLITE_OK || info.iFormat != GI_FORMAT) {
      p->zDamage =
          rc2 != SQLITE_OK || info.iFormat <= 0
              ? sqlite3_mprintf("graph_index '%s': its shadow table '%s_config' is missing or damaged",
                                p->zName, p->zName)
              : sqlite3_mprintf(
                    "graph_index '%s': its storage has format %d, which this version does not "
                    "read (it reads format %d); INSERT INTO \"%w\"(\"%w\") VALUES('rebuild') "
                    "rewrites it",
                    p->zName, info.iFormat, GI_FORMAT, p->zName, p->zName);
      if (p->zDamage == NULL) rc = SQLITE_NOMEM;
    }
    if (rc2 == SQLITE_OK) graphIndexInfoClear(&info);
  }
  if (rc != SQLITE_OK) {
    giFree(p);
    return rc;
  }
  *ppVtab = &p->base;
  return SQLITE_OK;
}

/* On a copy of argv: a statement run below may reset the schema the original lives in. */
static int giConnectCopy(sqlite3 *db, int argc, const char *const *argv, sqlite3_vtab **ppVtab, char **pzErr,
                         int bCreate) {
  char **azArg = nosqlArgvDup(argc, argv);
  int rc;
  if (azArg == NULL) return SQLITE_NOMEM;
  rc = giConnectImpl(db, argc, (const char *const *)azArg, ppVtab, pzErr, bCreate);
  sqlite3_free(azArg);
  return rc;
}

static int giCreate(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                    char **pzErr) {
  (void)pAux;
  return giConnectCopy(db, argc, argv, ppVtab, pzErr, 1);
}

static int giConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                     char **pzErr) {
  (void)pAux;
  return giConnectCopy(db, argc, argv, ppVtab, pzErr, 0);
}

static int giDisconnect(sqlite3_vtab *pVtab) {
  giFree((gi_vtab *)pVtab);
  return SQLITE_OK;
}

static int giDestroy(sqlite3_vtab *pVtab) {
  gi_vtab *p = (gi_vtab *)pVtab;
  int rc;
  giStmtClear(p);
  rc = giDropTriggers(p);
  if (rc == SQLITE_OK) {
    rc = giExec(
        p->db, sqlite3_mprintf(
                   "DROP TABLE IF EXISTS \"%w\".\"%w_config\"; DROP TABLE IF EXISTS "
                   "\"%w\".\"%w_node\"; DROP TABLE IF EXISTS \"%w\".\"%w_adj\"; DROP TABLE IF "
                   "EXISTS \"%w\".\"%w_blk\"; DROP TABLE IF EXISTS \"%w\".\"%w_tail\"; DROP TABLE IF "
                   "EXISTS \"%w\".\"%w_log\"; DROP TABLE IF EXISTS \"%w\".\"%w_pend\"; DROP TABLE IF "
                   "EXISTS \"%w\".\"%w_flag\"; DROP TABLE IF EXISTS \"%w\".\"%w_num\"; DROP TABLE IF EXISTS "
                   "\"%w\".\"%w_row\";",
                   p->zDb, p->zName, p->zDb, p->zName, p->zDb, p->zName, p->zDb, p->zName, p->zDb, p->zName,
                   p->zDb, p->zName, p->zDb, p->zName, p->zDb, p->zName, p->zDb, p->zName, p->zDb, p->zName));
  }
  if (rc == SQLITE_OK) giFree(p);
  return rc;
}

/*
** ALTER TABLE g RENAME TO h: the shadow tables become h_..., the triggers
** on the edge table are made again under the new name (their bodies name
** the index and its tables).
*/
static int giRename(sqlite3_vtab *pVtab, const char *zNew) {
  static const char *const azShadow[] = {"config", "num",  "blk",  "tail", "log",
                                         "pend",   "flag", "node", "adj",  "row"};
  gi_vtab *p = (gi_vtab *)pVtab;
  char *zErr = NULL, *zOld = p->zName, *zNewName = sqlite3_mprintf("%s", zNew);
  int rc = zNewName ? SQLITE_OK : SQLITE_NOMEM, i;
  giStmtClear(p);
  if (rc == SQLITE_OK) rc = giDropTriggers(p);
  for (i = 0; rc == SQLITE_OK && i < (int)(sizeof(azShadow) / sizeof(azShadow[0])); i++) {
    sqlite3_stmt *pStmt = NULL;
    char *zSql = sqlite3_mprintf("SELECT 1 FROM \"%w\".sqlite_schema WHERE type = 'table' AND name = '%q_%s'",
                                 p->zDb, zOld, azShadow[i]);
    int bHas = 0;
    rc = zSql ? sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0) : SQLITE_NOMEM;
    sqlite3_free(zSql);
    if (rc == SQLITE_OK) bHas = sqlite3_step(pStmt) == SQLITE_ROW;
    if (rc == SQLITE_OK) {
      rc = sqlite3_finalize(pStmt);
    } else {
      sqlite3_finalize(pStmt);
    }
    if (rc == SQLITE_OK && bHas) {
      rc = giExec(p->db, sqlite3_mprintf("ALTER TABLE \"%w\".\"%w_%s\" RENAME TO \"%w_%s\"", p->zDb, zOld,
                                         azShadow[i], zNewName, azShadow[i]));
    }
  }
  if (rc == SQLITE_OK) {
    p->zName = zNewName;
    zNewName = zOld;
    rc = giCreateTriggers(p, &zErr, NULL);
  }
  if (zErr) {
    nosqlVtabError(pVtab, "%s", zErr);
    sqlite3_free(zErr);
  } else if (rc != SQLITE_OK && rc != SQLITE_NOMEM) {
    nosqlVtabError(pVtab, "graph_index: cannot rename '%s': %s", zOld, sqlite3_errmsg(p->db));
  }
  sqlite3_free(zNewName);
  giCacheClear(p);
  return rc;
}

static int giBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo) {
  (void)pVtab;
  pInfo->estimatedCost = 100000.0;
  pInfo->estimatedRows = 100000;
  return SQLITE_OK;
}

static int giOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor) {
  (void)pVtab;
  return nosqlCursorNew(sizeof(gi_cursor), ppCursor) ? SQLITE_OK : SQLITE_NOMEM;
}

static int giClose(sqlite3_vtab_cursor *pCursor) {
  gi_cursor *pCur = (gi_cursor *)pCursor;
  graphCsrUnref(pCur->pCsr);
  sqlite3_free(pCur);
  return SQLITE_OK;
}

static int giNext(sqlite3_vtab_cursor *pCursor) {
  ((gi_cursor *)pCursor)->iRow++;
  return SQLITE_OK;
}

static int giFilter(sqlite3_vtab_cursor *pCursor, int idxNum, const char *idxStr, int argc,
                    sqlite3_value **argv) {
  gi_cursor *pCur = (gi_cursor *)pCursor;
  gi_vtab *p = (gi_vtab *)pCursor->pVtab;
  GraphIndexInfo names;
  char *zErr = NULL;
  int rc, bOk = 0;
  (void)idxNum, (void)idxStr, (void)argc, (void)argv;
  giNames(p, &names);
  if (p->zDamage) {
    nosqlVtabError(&p->base, "%s", p->zDamage);
    return SQLITE_CORRUPT_VTAB;
  }
  rc = giRefuseStale(p);
  if (rc != SQLITE_OK) return rc;
  graphCsrUnref(pCur->pCsr);
  pCur->pCsr = (GraphCsr *)sqlite3_malloc64(sizeof(GraphCsr));
  if (pCur->pCsr == NULL) return SQLITE_NOMEM;
  memset(pCur->pCsr, 0, sizeof(GraphCsr));
  pCur->pCsr->nRef = 1;
  pCur->pCsr->vals.szElem = (int)sizeof(GraphValue);
  pCur->pCsr->bIntWeight = pCur->pCsr->bRealWeight = 1;
  /* Nodes in the order a rowid scan of the edge table meets them: by their first edge. */
  rc = giLoad(p->db, p->zDb, p->zName, &names, p->bJson, 0, p->zWeight != NULL, 0x7fffffffffffLL, 1, NULL,
              pCur->pCsr, &bOk, &zErr, NULL);
  if (zErr) {
    nosqlVtabError(&p->base, "%s", zErr);
    sqlite3_free(zErr);
  } else if (rc != SQLITE_OK && rc != SQLITE_NOMEM) {
    nosqlVtabError(&p->base, "graph_index '%s': %s", p->zName, sqlite3_errmsg(p->db));
  }
  pCur->iRow = 1;
  return rc;
}

static int giEof(sqlite3_vtab_cursor *pCursor) {
  gi_cursor *pCur = (gi_cursor *)pCursor;
  return pCur->pCsr == NULL || pCur->iRow > pCur->pCsr->vals.n;
}

static int giColumn(sqlite3_vtab_cursor *pCursor, sqlite3_context *ctx, int iCol) {
  gi_cursor *pCur = (gi_cursor *)pCursor;
  const GraphCsr *pCsr = pCur->pCsr;
  int i = (int)pCur->iRow - 1;
  if (iCol == GI_COL_NODE) graphValueResult(ctx, (const GraphValue *)graphSetAt(&pCsr->vals, i));
  if (iCol == GI_COL_OUT) sqlite3_result_int64(ctx, pCsr->aOutOff[i + 1] - pCsr->aOutOff[i]);
  if (iCol == GI_COL_IN) sqlite3_result_int64(ctx, pCsr->aInOff[i + 1] - pCsr->aInOff[i]);
  return SQLITE_OK;
}

static int giRowid(sqlite3_vtab_cursor *pCursor, sqlite_int64 *pRowid) {
  *pRowid = ((gi_cursor *)pCursor)->iRow;
  return SQLITE_OK;
}

static int giUpdate(sqlite3_vtab *pVtab, int argc, sqlite3_value **argv, sqlite_int64 *pRowid) {
  gi_vtab *p = (gi_vtab *)pVtab;
  const char *zCmd;
  int rc, bDone = 0;
  (void)pRowid;
  if (argc != 2 + GI_NCOL || sqlite3_value_type(argv[0]) != SQLITE_NULL ||
      sqlite3_value_type(argv[2 + GI_COL_CMD]) == SQLITE_NULL) {
    nosqlVtabError(pVtab, "graph_index: '%s' is read-only: write to its edge table '%s'", p->zName,
                   p->zTable);
    return SQLITE_READONLY;
  }
  zCmd = (const char *)sqlite3_value_text(argv[2 + GI_COL_CMD]);
  if (zCmd == NULL) return SQLITE_NOMEM;
  if (p->zDamage && sqlite3_stricmp(zCmd, "rebuild") != 0) {
    nosqlVtabError(pVtab, "%s", p->zDamage);
    return SQLITE_CORRUPT_VTAB;
  }
  rc = sqlite3_stricmp(zCmd, "rebuild") == 0 ? SQLITE_OK : giPendFold(p);
  if (rc != SQLITE_OK) {
    /* (Reported below) */
  } else if (strcmp(zCmd, "fold") == 0) {
    /* Done above */
  } else if (strcmp(zCmd, "insert") == 0) {
    rc = giOpInsertChecked(p, argv[2 + GI_COL_ROWID]);
    if (rc == SQLITE_OK)
      rc = giExec(p->db, sqlite3_mprintf("DELETE FROM \"%w\".\"%w_flag\"", p->zDb, p->zName));
  } else if (p->bJson && strcmp(zCmd, "sync") == 0 &&
             sqlite3_value_type(argv[2 + GI_COL_ROWID]) != SQLITE_NULL &&
             (rc = giJsonAppend(p, argv[2 + GI_COL_ROWID], &bDone)) != SQLITE_OK) {
    /* (Reported below) */
  } else if (bDone) {
    /* The JSON layout's insert past every rowid: appended */
  } else if (strcmp(zCmd, "stash") == 0 || strcmp(zCmd, "sync") == 0) {
    rc = giStashAdd(p, argv[2 + GI_COL_FROM]);
    if (rc == SQLITE_OK && zCmd[1] == 'y') rc = giStashFlush(p);
  } else if (sqlite3_stricmp(zCmd, "rebuild") == 0) {
    char *zErr = NULL;
    rc = giResolve(p, &zErr);
    if (rc == SQLITE_OK) {
      rc = giExec(p->db,
                  sqlite3_mprintf("INSERT OR REPLACE INTO \"%w\".\"%w_config\"(k, v) VALUES('format', %d)",
                                  p->zDb, p->zName, GI_FORMAT));
    }
    if (rc == SQLITE_OK) rc = giRebuildAll(p);
    if (rc == SQLITE_OK) rc = giCreateTriggers(p, &zErr, NULL);
    if (rc == SQLITE_OK) {
      sqlite3_free(p->zDamage);
      p->zDamage = NULL;
    }
    if (zErr) {
      nosqlVtabError(pVtab, "%s", zErr);
      sqlite3_free(zErr);
    }
  } else if (sqlite3_stricmp(zCmd, "refresh") == 0) {
    rc = giRefuseStale(p);
    if (rc == SQLITE_OK) rc = giRefresh(p);
  } else if (sqlite3_stricmp(zCmd, "integrity-check") == 0) {
    rc = giCheck(p);
  } else {
    nosqlVtabError(pVtab,
                   "graph_index: unknown command '%s' (expected 'refresh', 'rebuild' or 'integrity-check')",
                   zCmd);
    return SQLITE_ERROR;
  }
  if (rc != SQLITE_OK) giCacheClear(p); /* The statement will be rolled back */
  if (rc != SQLITE_OK && rc != SQLITE_NOMEM && pVtab->zErrMsg == NULL) {
    nosqlVtabError(pVtab, "graph_index '%s': %s", p->zName, sqlite3_errmsg(p->db));
  }
  return rc;
}

/* Transaction hooks: each empties the node-number cache (see GiCached). */
static int giTxnClear(sqlite3_vtab *pVtab) {
  giCacheClear((gi_vtab *)pVtab);
  return SQLITE_OK;
}

static int giSavepoint(sqlite3_vtab *pVtab, int iSavepoint) {
  (void)pVtab, (void)iSavepoint;
  return SQLITE_OK;
}

static int giRollbackTo(sqlite3_vtab *pVtab, int iSavepoint) {
  (void)iSavepoint;
  return giTxnClear(pVtab);
}

static int giShadowName(const char *zName) {
  /* Not _log: deferred mode's triggers, plain SQL, write it. */
  return sqlite3_stricmp(zName, "config") == 0 || sqlite3_stricmp(zName, "node") == 0 ||
         sqlite3_stricmp(zName, "adj") == 0 || sqlite3_stricmp(zName, "blk") == 0 ||
         sqlite3_stricmp(zName, "tail") == 0 || sqlite3_stricmp(zName, "num") == 0 ||
         sqlite3_stricmp(zName, "row") == 0;
}

static sqlite3_module giModule = {
    /* iVersion    */ 3,
    /* xCreate     */ giCreate,
    /* xConnect    */ giConnect,
    /* xBestIndex  */ giBestIndex,
    /* xDisconnect */ giDisconnect,
    /* xDestroy    */ giDestroy,
    /* xOpen       */ giOpen,
    /* xClose      */ giClose,
    /* xFilter     */ giFilter,
    /* xNext       */ giNext,
    /* xEof        */ giEof,
    /* xColumn     */ giColumn,
    /* xRowid      */ giRowid,
    /* xUpdate     */ giUpdate,
    /* xBegin      */ giTxnClear,
    /* xSync       */ 0,
    /* xCommit     */ giTxnClear,
    /* xRollback   */ giTxnClear,
    /* xFindMethod */ 0,
    /* xRename     */ giRename,
    /* xSavepoint  */ giSavepoint,
    /* xRelease    */ giSavepoint,
    /* xRollbackTo */ giRollbackTo,
    /* xShadowName */ giShadowName,
};

int graphIndexRegister(sqlite3 *db) {
  /* The module holds a reference to this connection's GiCurrent. */
  void *pCur = nosqlConnShared(db, NOSQL_SHARED_GRAPH_INDEX, sizeof(GiCurrent));
  if (pCur == NULL) return SQLITE_NOMEM;
  return sqlite3_create_module_v2(db, "graph_index", &giModule, pCur, nosqlConnSharedUnref);
}
