/*
** nested_set.c: a persistent nested-set tree store (technique 14 of
** Katsov's "NoSQL Data Modeling Techniques"), as the virtual table module
** nested_set.
**
**   CREATE VIRTUAL TABLE catalog USING nested_set(name TEXT, price REAL);
**   INSERT INTO catalog(id, parent, name) VALUES (1, NULL, 'all'), (2, 1, 'books');
**   SELECT id, name FROM catalog WHERE descendant_of = 1;   -- preorder
**   SELECT id, name FROM catalog WHERE ancestor_of = 2;     -- root first
**
** Every node carries two labels, lft < rgt, and a node's descendants are
** exactly the nodes whose labels lie strictly inside its own: a subtree is
** one range scan of an index on lft, in preorder. The labels are sparse
** ("gapped"): a rebuild spaces consecutive labels NSET_GAP apart, so that
** an insert takes two free values from the gap it lands in instead of
** renumbering every label to its right the way classic nested sets do. When
** a gap runs out, a small aligned window of the label space around the
** insertion point is relabelled evenly (online list labelling: the window
** doubles until its density is below a threshold that tightens with its
** size, so a relabel touches few rows and leaves room for many inserts).
**
** Invariants (checked by 'integrity-check'): 0 < lft < rgt < 2^62; the
** labels of all nodes are distinct; a node's descendants are exactly the
** nodes with lft (and rgt) strictly inside (lft, rgt) of the node; siblings
** are ordered by lft; depth is 0 for a root and parent's depth + 1
** otherwise; is_leaf is 1 exactly for nodes without children. Labels are
** not dense, so (rgt - lft - 1) / 2 is NOT the number of descendants.
**
** Katsov's leaf ranges: the leaves in lft order form one array (a partial
** index of the leaves by lft). leaf_lo and leaf_hi of a node are the
** positions in that array of its first and last leaf, given as the leaves'
** lft labels (gapped, like the labels themselves, so an insert never
** renumbers them); a leaf's range is its own lft. They are derived on read
** with one index probe each rather than stored, so inserts pay nothing for
** them. leaves_of = X scans exactly that range of the leaf array.
**
** The equivalent declaration, with the hidden input columns:
**
**   CREATE TABLE catalog(
**     id INTEGER,             -- the node's id, also the rowid
**     parent INTEGER,         -- NULL for a root (a forest is allowed)
**     lft INTEGER, rgt INTEGER,          -- the labels
**     depth INTEGER,          -- 0 for a root
**     leaf_lo INTEGER, leaf_hi INTEGER,  -- range of leaf labels under it
**     is_leaf INTEGER,        -- 1 when it has no children
**     name TEXT, price REAL,  -- the payload columns of the arguments
**     before HIDDEN,          -- next sibling's id; written: position
**     descendant_of HIDDEN,   -- = X: proper descendants of X, preorder
**     subtree_of HIDDEN,      -- = X: X and its descendants, preorder
**     ancestor_of HIDDEN,     -- = X: proper ancestors of X, root first
**     children_of HIDDEN,     -- = X: children of X in sibling order
**     siblings_of HIDDEN,     -- = X: the other children of X's parent
**     leaves_of HIDDEN,       -- = X: leaves of X's subtree
**     catalog HIDDEN          -- commands: 'rebuild', 'integrity-check'
**   );
**
** Writes: INSERT (id, parent, payload...) appends the node as the last
** child of parent, or, with before = S, immediately before its sibling S;
** without an id (or with a NULL one) the node gets a rowid table's: one
** more than the largest id, 1 in an empty tree (content= trees excepted).
** UPDATE of parent (and/or before) moves the node with its whole subtree;
** UPDATE of payload columns changes them; DELETE removes the node AND its
** whole subtree. Labels, depth and the leaf columns are computed.
**
** content= mode, nested_set(content=categories, id=cat_id, parent=parent_id,
** name), mirrors an adjacency table: the tree keeps only the structure, the
** payload columns are read from the content table by id, and 'rebuild'
** (also run by CREATE) reloads the structure from it. docs/nested_set.md
** gives the triggers that keep the two in sync.
**
** Shadow table: <name>_node(id INTEGER PRIMARY KEY, parent, lft, rgt,
** depth, is_leaf, payload...) with the indexes <name>_node_lft (lft, rgt,
** depth, parent, is_leaf) for range scans, <name>_node_parent (parent, lft)
** for children and siblings, and <name>_node_leaf, the leaf array (lft,
** rgt, depth, parent, is_leaf) WHERE is_leaf = 1.
**
** The label arithmetic and the forest rebuild, pure C, are in
** ext/nested_set_core.c; this file is the module.
*/
#include "nosqlInt.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Smallest relabel window tried, as a power of two. */
#define NSET_WINDOW_MIN_BITS 4
/* Largest window: the whole label space. */
#define NSET_WINDOW_MAX_BITS 62

/**************************************************************************
** The SQL glue.
*/

typedef struct nset_vtab nset_vtab;
typedef struct nset_cursor nset_cursor;
typedef struct NsetRow NsetRow;
typedef struct NsetLabel NsetLabel;

/* Columns of the declared table, in order. Payload columns follow IS_LEAF. */
#define NSET_COL_ID 0
#define NSET_COL_PARENT 1
#define NSET_COL_LFT 2
#define NSET_COL_RGT 3
#define NSET_COL_DEPTH 4
#define NSET_COL_LEAF_LO 5
#define NSET_COL_LEAF_HI 6
#define NSET_COL_IS_LEAF 7
#define NSET_COL_PAYLOAD 8

/* Hidden columns after the payload, as offsets from the first of them. */
#define NSET_HID_BEFORE 0
#define NSET_HID_INPUT 1 /* First of the six query inputs */
#define NSET_HID_COMMAND 7
#define NSET_N_HIDDEN 8

/* The query inputs, in column order, and their plan codes. */
static const char *const azNsetInput[] = {"descendant_of", "subtree_of",  "ancestor_of",
                                          "children_of",   "siblings_of", "leaves_of"};
static const char nsetInputCode[] = "DSACBL";
#define NSET_N_INPUT 6

/* Names a payload column may not take (besides the table's own name). */
static const char *const azNsetReserved[] = {
    "id",          "parent",      "lft",         "rgt",      "depth",   "leaf_lo",       "leaf_hi",
    "is_leaf",     "before",      "rowid",       "oid",      "_rowid_", "descendant_of", "subtree_of",
    "ancestor_of", "children_of", "siblings_of", "leaves_of"};

/* The cached statements: one pooled handle of each kind per table. */
enum {
  NSET_STMT_RANGE,       /* Rows with lft in [?1, ?2], by lft */
  NSET_STMT_RANGE_ID,    /* Only the ids of NSET_STMT_RANGE */
  NSET_STMT_LEAVES_ID,   /* Only the ids of NSET_STMT_LEAVES */
  NSET_STMT_CHILDREN_ID, /* Only the ids of NSET_STMT_CHILDREN */
  NSET_STMT_CHAIN,       /* Node ?1 and up to NSET_CHAIN - 1 ancestors, one row */
  NSET_STMT_CHAIN_ID,    /* Only (id, parent) of each level of NSET_STMT_CHAIN */
  NSET_STMT_LEAVES,      /* Leaves with lft in [?1, ?2], by lft */
  NSET_STMT_CHILDREN,    /* Children of ?1, by lft */
  NSET_STMT_ROOTS,       /* Roots, by lft */
  NSET_STMT_BYID,        /* The row of id ?1 */
  NSET_STMT_PAYLOAD,     /* Payload columns of id ?1 */
  NSET_STMT_LAST_CHILD,  /* rgt of the last child of ?1 (IS), other than ?2 */
  NSET_STMT_PREV_SIB,    /* rgt of the last child of ?1 before lft ?2, other than ?3 */
  NSET_STMT_NEXT_SIB,    /* id of the first child of ?1 after lft ?2 */
  NSET_STMT_HAS_CHILD,   /* 1 if ?1 has a child */
  NSET_STMT_MAX_ID,      /* The largest id, no row when empty */
  NSET_STMT_LEAF_FIRST,  /* lft of the first leaf with lft > ?1 */
  NSET_STMT_LEAF_LAST,   /* lft of the last leaf with lft < ?1 */
  NSET_STMT_PRED,        /* The row with the largest lft < ?1 */
  NSET_STMT_INSERT,      /* New row (id, parent, lft, rgt, depth, is_leaf, payload...) */
  NSET_STMT_SET_LEAF,    /* is_leaf of ?1 = ?2 */
  NSET_STMT_SET_LFT,     /* lft of ?1 = ?2 */
  NSET_STMT_SET_RGT,     /* rgt of ?1 = ?2 */
  NSET_STMT_SET_LABELS,  /* lft, rgt, depth, is_leaf of ?1 = ?2, ?3, ?4, ?5 */
  NSET_STMT_SET_PARENT,  /* parent of ?1 = ?2 */
  NSET_STMT_SET_PAYLOAD, /* payload of ?1 = ?2... */
  NSET_STMT_DELETE,      /* Delete rows with lft in [?1, ?2] */
  NSET_STMT_COUNT
};

/* One node as stored. */
struct NsetRow {
  int64_t id;     /* The node's id */
  int64_t parent; /* Parent's id; meaningless when bRoot */
  int bRoot;      /* True when parent is NULL */
  int64_t lft;    /* Left label */
  int64_t rgt;    /* Right label */
  int64_t depth;  /* 0 for a root */
  int bLeaf;      /* is_leaf */
};

/* One label of a relabel window. */
struct NsetLabel {
  int64_t iLabel; /* Its value */
  int64_t id;     /* The node it belongs to */
  int bRgt;       /* True for the node's rgt, false for its lft */
};

/* A nested_set table. */
struct nset_vtab {
  sqlite3_vtab base;                    /* Base class - must be first */
  sqlite3 *db;                          /* The connection */
  char *zDb;                            /* Schema name ("main", ...) */
  char *zName;                          /* Table name */
  int nPayload;                         /* Number of payload columns */
  char **azPayload;                     /* Payload column names */
  char *zContent;                       /* content= table, or NULL */
  char *zContentId;                     /* Its id column (content mode) */
  char *zContentParent;                 /* Its parent column (content mode) */
  sqlite3_stmt *aStmt[NSET_STMT_COUNT]; /* Idle cached statements, or NULL */
  char *zLeafIdx;                       /* Name of the leaf index, or NULL until looked up */
};

/* Where a cursor's rows come from. */
enum { NSET_SRC_STMT, NSET_SRC_ARRAY };

/* Most constraints a plan passes to xFilter. */
#define NSET_MAX_ARG 32

/* A scan of a nested_set table. */
struct nset_cursor {
  sqlite3_vtab_cursor base;             /* Base class - must be first */
  int eSrc;                             /* NSET_SRC_* */
  int eStmt;                            /* Kind of pStmt, for giving it back */
  sqlite3_stmt *pStmt;                  /* Statement producing rows, or NULL */
  int bRange;                           /* pStmt is a RANGE scan (depth pruning) */
  int64_t iRangeHi;                     /* Upper bound of that range */
  NsetRow *aArray;                      /* NSET_SRC_ARRAY rows (ancestors) */
  int64_t nArray;                       /* Entries of aArray */
  int64_t iArray;                       /* Current entry */
  NsetRow row;                          /* The current row */
  int bEof;                             /* True at the end */
  int64_t iRowid;                       /* Rows returned, for nothing but xRowid order */
  int nFilter;                          /* Entries of aCode/aTarget */
  char aCode[NSET_MAX_ARG];             /* Constraint codes applied to each row */
  NsetRow aTarget[NSET_MAX_ARG];        /* The node each constraint names */
  int bRootsOnly;                       /* parent IS NULL */
  int64_t iMinDepth;                    /* Rows shallower than this are skipped */
  int64_t iMaxDepth;                    /* Rows deeper than this are skipped */
  sqlite3_value *apInput[NSET_N_INPUT]; /* Values of the query inputs, echoed */
  sqlite3_stmt *pPayload;               /* Payload of the current row, or NULL */
  int bPayload;                         /* pPayload holds the current row */
  int bCheck;                           /* Rows need nsetRowMatches() (the source does not imply it) */
  int bIdOnly;                          /* The source reads ids only (NSET_PLAN_ID_ONLY) */
  int bFull;                            /* row holds every field (always, unless bIdOnly) */
};

/* Labels lie in (0, NSET_LABEL_END); these bound a scan of everything. */
#define NSET_ALL_LO INT64_MIN
#define NSET_ALL_HI INT64_MAX

/* The columns every read statement returns, in NsetRow order. */
#define NSET_ROW_COLS "id, parent, lft, rgt, depth, is_leaf"

/* Levels of the parent chain one NSET_STMT_CHAIN run reads. */
#define NSET_CHAIN 8

/*
** Read the NSET_ROW_COLS starting at column iCol of pStmt into *pRow.
** Returns 0, reading nothing else, when the id there is NULL (a LEFT JOIN
** of NSET_STMT_CHAIN that found no row). Each column costs one API call
** (each takes the connection's mutex): the value is read once and then
** asked for its type and integer.
*/
static int nsetRowRead(sqlite3_stmt *pStmt, int iCol, NsetRow *pRow) {
  sqlite3_value *pVal = sqlite3_column_value(pStmt, iCol);
  if (sqlite3_value_type(pVal) == SQLITE_NULL) return 0;
  pRow->id = sqlite3_value_int64(pVal);
  pVal = sqlite3_column_value(pStmt, iCol + 1);
  pRow->bRoot = sqlite3_value_type(pVal) == SQLITE_NULL;
  pRow->parent = pRow->bRoot ? 0 : sqlite3_value_int64(pVal);
  pRow->lft = sqlite3_column_int64(pStmt, iCol + 2);
  pRow->rgt = sqlite3_column_int64(pStmt, iCol + 3);
  pRow->depth = sqlite3_column_int64(pStmt, iCol + 4);
  pRow->bLeaf = sqlite3_column_int(pStmt, iCol + 5) != 0;
  return 1;
}

/*
** The name of the leaf index (the partial index of the node table): the
** planner prefers the label index, which also covers the query, so the
** leaf queries name it with INDEXED BY. It is looked up rather than
** derived from the table name because ALTER TABLE RENAME keeps index names.
*/
static const char *nsetLeafIndex(nset_vtab *p, int *pRc) {
  sqlite3_stmt *pStmt = NULL;
  char *zSql;
  int rc;
  if (p->zLeafIdx) return p->zLeafIdx;
  zSql = sqlite3_mprintf("SELECT name FROM \"%w\".pragma_index_list('%q_node') WHERE partial = 1", p->zDb,
                         p->zName);
  rc = zSql ? sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0) : SQLITE_NOMEM;
  if (rc == SQLITE_OK) {
    rc = sqlite3_step(pStmt);
    if (rc == SQLITE_ROW) {
      p->zLeafIdx = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(pStmt, 0));
      rc = p->zLeafIdx ? SQLITE_OK : SQLITE_NOMEM;
    } else if (rc == SQLITE_DONE) {
      rc = SQLITE_OK; /* No leaf index: NULL, for the caller to report */
    }
  }
  sqlite3_finalize(pStmt);
  sqlite3_free(zSql);
  if (rc != SQLITE_OK) *pRc = rc; /* Out of memory is not a missing index */
  return p->zLeafIdx;
}

/*
** The fixed statements, fts5_storage.c's way: one template per kind,
** formatted with (schema, table, leaf index name); NULL for the kinds
** built from the payload columns or the chain length (nsetStmtBuild()).
** "%w_node" is the node table; the leaf ones name the leaf index.
*/
#define NSET_NODE "\"%w\".\"%w_node\""
#define NSET_LEAF_IDX " INDEXED BY \"%w\""
static const char *const azNsetSql[NSET_STMT_COUNT] = {
    [NSET_STMT_RANGE] =
        "SELECT " NSET_ROW_COLS " FROM " NSET_NODE " WHERE lft BETWEEN ?1 AND ?2 ORDER BY lft",
    [NSET_STMT_RANGE_ID] = "SELECT id FROM " NSET_NODE " WHERE lft BETWEEN ?1 AND ?2 ORDER BY lft",
    [NSET_STMT_LEAVES_ID] =
        "SELECT id FROM " NSET_NODE NSET_LEAF_IDX " WHERE is_leaf = 1 AND lft BETWEEN ?1 AND ?2 ORDER BY lft",
    [NSET_STMT_CHILDREN_ID] = "SELECT id FROM " NSET_NODE " WHERE parent = ?1 ORDER BY lft",
    [NSET_STMT_CHAIN] = NULL,
    [NSET_STMT_CHAIN_ID] = NULL,
    [NSET_STMT_LEAVES] = "SELECT " NSET_ROW_COLS " FROM " NSET_NODE NSET_LEAF_IDX
                         " WHERE is_leaf = 1 AND lft BETWEEN ?1 AND ?2 ORDER BY lft",
    [NSET_STMT_CHILDREN] = "SELECT " NSET_ROW_COLS " FROM " NSET_NODE " WHERE parent = ?1 ORDER BY lft",
    [NSET_STMT_ROOTS] = "SELECT " NSET_ROW_COLS " FROM " NSET_NODE " WHERE parent IS NULL ORDER BY lft",
    [NSET_STMT_BYID] = "SELECT " NSET_ROW_COLS " FROM " NSET_NODE " WHERE id = ?1",
    [NSET_STMT_PAYLOAD] = NULL,
    [NSET_STMT_LAST_CHILD] =
        "SELECT rgt FROM " NSET_NODE " WHERE parent IS ?1 AND id IS NOT ?2 ORDER BY lft DESC LIMIT 1",
    [NSET_STMT_PREV_SIB] = "SELECT rgt FROM " NSET_NODE
                           " WHERE parent IS ?1 AND lft < ?2 AND id IS NOT ?3 ORDER BY lft DESC LIMIT 1",
    [NSET_STMT_NEXT_SIB] =
        "SELECT id FROM " NSET_NODE " WHERE parent IS ?1 AND lft > ?2 ORDER BY lft LIMIT 1",
    [NSET_STMT_HAS_CHILD] = "SELECT 1 FROM " NSET_NODE " WHERE parent = ?1 LIMIT 1",
    [NSET_STMT_MAX_ID] = "SELECT id FROM " NSET_NODE " ORDER BY id DESC LIMIT 1",
    [NSET_STMT_LEAF_FIRST] =
        "SELECT lft FROM " NSET_NODE NSET_LEAF_IDX " WHERE is_leaf = 1 AND lft > ?1 ORDER BY lft LIMIT 1",
    [NSET_STMT_LEAF_LAST] = "SELECT lft FROM " NSET_NODE NSET_LEAF_IDX
                            " WHERE is_leaf = 1 AND lft < ?1 ORDER BY lft DESC LIMIT 1",
    [NSET_STMT_PRED] = "SELECT " NSET_ROW_COLS " FROM " NSET_NODE " WHERE lft < ?1 ORDER BY lft DESC LIMIT 1",
    [NSET_STMT_INSERT] = NULL,
    [NSET_STMT_SET_LEAF] = "UPDATE " NSET_NODE " SET is_leaf = ?2 WHERE id = ?1",
    [NSET_STMT_SET_LFT] = "UPDATE " NSET_NODE " SET lft = ?2 WHERE id = ?1",
    [NSET_STMT_SET_RGT] = "UPDATE " NSET_NODE " SET rgt = ?2 WHERE id = ?1",
    [NSET_STMT_SET_LABELS] =
        "UPDATE " NSET_NODE " SET lft = ?2, rgt = ?3, depth = ?4, is_leaf = ?5 WHERE id = ?1",
    [NSET_STMT_SET_PARENT] = "UPDATE " NSET_NODE " SET parent = ?2 WHERE id = ?1",
    [NSET_STMT_SET_PAYLOAD] = NULL,
    [NSET_STMT_DELETE] = "DELETE FROM " NSET_NODE " WHERE lft BETWEEN ?1 AND ?2",
};

/*
** The statements that depend on the table's payload columns or on
** NSET_CHAIN, built into *pB.
*/
static void nsetStmtBuild(int *pRc, nset_vtab *p, int eKind, NosqlBuffer *pB) {
  const char *zDb = p->zDb, *zTab = p->zName;
  int i;
  switch (eKind) {
    case NSET_STMT_CHAIN:
    case NSET_STMT_CHAIN_ID:
      /* n0 is node ?1, n<k+1> the parent of n<k> if it encloses n<k>: one
      ** statement run reads NSET_CHAIN levels of the parent chain (NULLs
      ** past a root, a missing parent or one that does not enclose). */
      nosqlBufferAppend(pRc, pB, "SELECT ", 7);
      for (i = 0; i < NSET_CHAIN; i++) {
        if (eKind == NSET_STMT_CHAIN_ID) {
          nosqlBufferAppendf(pRc, pB, "%sn%d.id, n%d.parent", i ? ", " : "", i, i);
        } else {
          nosqlBufferAppendf(pRc, pB, "%sn%d.id, n%d.parent, n%d.lft, n%d.rgt, n%d.depth, n%d.is_leaf",
                             i ? ", " : "", i, i, i, i, i, i);
        }
      }
      nosqlBufferAppendf(pRc, pB, " FROM " NSET_NODE " AS n0", zDb, zTab);
      for (i = 1; i < NSET_CHAIN; i++) {
        nosqlBufferAppendf(pRc, pB,
                           " LEFT JOIN " NSET_NODE
                           " AS n%d ON n%d.id = n%d.parent AND n%d.lft < n%d.lft"
                           " AND n%d.rgt > n%d.rgt",
                           zDb, zTab, i, i, i - 1, i, i - 1, i, i - 1);
      }
      nosqlBufferAppendf(pRc, pB, " WHERE n0.id = ?1");
      break;
    case NSET_STMT_PAYLOAD:
      /* Columns are qualified: an unknown "name" is then an error, never
      ** a string literal. */
      nosqlBufferAppend(pRc, pB, "SELECT ", 7);
      for (i = 0; i < p->nPayload; i++)
        nosqlBufferAppendf(pRc, pB, "%ss.\"%w\"", i ? ", " : "", p->azPayload[i]);
      if (p->zContent) {
        nosqlBufferAppendf(pRc, pB, " FROM \"%w\".\"%w\" AS s WHERE s.\"%w\" = ?1", zDb, p->zContent,
                           p->zContentId);
      } else {
        nosqlBufferAppendf(pRc, pB, " FROM " NSET_NODE " AS s WHERE id = ?1", zDb, zTab);
      }
      break;
    case NSET_STMT_INSERT:
      nosqlBufferAppendf(pRc, pB, "INSERT INTO " NSET_NODE "(id, parent, lft, rgt, depth, is_leaf", zDb,
                         zTab);
      for (i = 0; p->zContent == NULL && i < p->nPayload; i++) {
        nosqlBufferAppendf(pRc, pB, ", \"%w\"", p->azPayload[i]);
      }
      nosqlBufferAppendf(pRc, pB, ") VALUES (?1, ?2, ?3, ?4, ?5, ?6");
      for (i = 0; p->zContent == NULL && i < p->nPayload; i++) nosqlBufferAppendf(pRc, pB, ", ?%d", i + 7);
      nosqlBufferAppend(pRc, pB, ")", 1);
      break;
    default: /* NSET_STMT_SET_PAYLOAD */
      nosqlBufferAppendf(pRc, pB, "UPDATE " NSET_NODE " SET ", zDb, zTab);
      for (i = 0; i < p->nPayload; i++) {
        nosqlBufferAppendf(pRc, pB, "%s\"%w\" = ?%d", i ? ", " : "", p->azPayload[i], i + 2);
      }
      nosqlBufferAppend(pRc, pB, " WHERE id = ?1", 14);
      break;
  }
}

/*
** The SQL of statement kind eKind (sqlite3_mprintf), or NULL on OOM or
** when the leaf index is missing (nsetStmtGet looks it up first and
** reports that).
*/
static char *nsetStmtSql(nset_vtab *p, int eKind) {
  const char *zLeaf = "";
  int rc = SQLITE_OK;
  NosqlBuffer b = {0, 0, 0};
  if (azNsetSql[eKind]) {
    if (strstr(azNsetSql[eKind], "INDEXED BY")) {
      int rcLeaf = SQLITE_OK;
      zLeaf = nsetLeafIndex(p, &rcLeaf);
      if (zLeaf == NULL) return NULL;
    }
    return sqlite3_mprintf(azNsetSql[eKind], p->zDb, p->zName, zLeaf);
  }
  nsetStmtBuild(&rc, p, eKind, &b);
  if (rc != SQLITE_OK) {
    nosqlBufferFree(&b);
    return NULL;
  }
  return (char *)b.a;
}

static int nsetCorrupt(nset_vtab *p, const char *zFmt, ...);

/*
** Take the cached statement of kind eKind, preparing one if none is idle
** (a nested scan of the same table may hold the cached one). Give it back
** with nsetStmtPut().
*/
static int nsetStmtGet(nset_vtab *p, int eKind, sqlite3_stmt **ppStmt) {
  char *zSql;
  int rc;
  if (p->aStmt[eKind]) {
    *ppStmt = p->aStmt[eKind];
    p->aStmt[eKind] = NULL;
    return SQLITE_OK;
  }
  if (eKind == NSET_STMT_LEAVES || eKind == NSET_STMT_LEAVES_ID || eKind == NSET_STMT_LEAF_FIRST ||
      eKind == NSET_STMT_LEAF_LAST) {
    rc = SQLITE_OK;
    if (nsetLeafIndex(p, &rc) == NULL) {
      return rc != SQLITE_OK ? rc : nsetCorrupt(p, "the leaf index of %s_node is missing", p->zName);
    }
  }
  zSql = nsetStmtSql(p, eKind);
  if (zSql == NULL) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v3(p->db, zSql, -1, SQLITE_PREPARE_PERSISTENT, ppStmt, 0);
  sqlite3_free(zSql);
  if (rc != SQLITE_OK) nosqlVtabError(&p->base, "%s", sqlite3_errmsg(p->db));
  return rc;
}

static void nsetStmtPut(nset_vtab *p, int eKind, sqlite3_stmt *pStmt) {
  if (pStmt == NULL) return;
  sqlite3_reset(pStmt);
  sqlite3_clear_bindings(pStmt);
  if (p->aStmt[eKind] == NULL) {
    p->aStmt[eKind] = pStmt;
  } else {
    sqlite3_finalize(pStmt);
  }
}

static void nsetStmtFinalizeAll(nset_vtab *p) {
  int i;
  for (i = 0; i < NSET_STMT_COUNT; i++) {
    sqlite3_finalize(p->aStmt[i]);
    p->aStmt[i] = NULL;
  }
}

/* Report the connection's error message as the table's, and return rc. */
static int nsetDbError(nset_vtab *p, int rc) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
    nosqlVtabError(&p->base, "%s", sqlite3_errmsg(p->db));
    return rc;
  }
  return SQLITE_OK;
}

/* Look up node id: *pbFound says whether it exists. */
static int nsetFind(nset_vtab *p, int64_t id, NsetRow *pRow, int *pbFound) {
  sqlite3_stmt *pStmt = NULL;
  int rc = nsetStmtGet(p, NSET_STMT_BYID, &pStmt);
  *pbFound = 0;
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(pStmt, 1, id);
  rc = sqlite3_step(pStmt);
  if (rc == SQLITE_ROW) {
    nsetRowRead(pStmt, 0, pRow);
    *pbFound = 1;
  }
  rc = nsetDbError(p, rc);
  nsetStmtPut(p, NSET_STMT_BYID, pStmt);
  /* Labels are read back as bounds of range scans (lft + 1, rgt - 1):
  ** a stored pair out of order cannot be one. */
  if (rc == SQLITE_OK && *pbFound && pRow->lft >= pRow->rgt) {
    *pbFound = 0;
    return nsetCorrupt(p, "node %lld has lft %lld >= rgt %lld", (long long)id, (long long)pRow->lft,
                       (long long)pRow->rgt);
  }
  /* A child's depth is its parent's + 1: a stored depth must leave room. */
  if (rc == SQLITE_OK && *pbFound && (pRow->depth < 0 || pRow->depth > INT32_MAX)) {
    *pbFound = 0;
    return nsetCorrupt(p, "node %lld has depth %lld", (long long)id, (long long)pRow->depth);
  }
  return rc;
}

/* Run a statement kind that returns at most one integer: *pbFound, *piVal. */
static int nsetProbe(nset_vtab *p, int eKind, sqlite3_stmt *pStmt, int *pbFound, int64_t *piVal) {
  int rc = sqlite3_step(pStmt);
  *pbFound = rc == SQLITE_ROW;
  if (rc == SQLITE_ROW) *piVal = sqlite3_column_int64(pStmt, 0);
  rc = nsetDbError(p, rc);
  nsetStmtPut(p, eKind, pStmt);
  return rc;
}

/* Bind a parent id, or NULL for the roots. */
static void nsetBindParent(sqlite3_stmt *pStmt, int i, const NsetRow *pParent) {
  if (pParent)
    sqlite3_bind_int64(pStmt, i, pParent->id);
  else
    sqlite3_bind_null(pStmt, i);
}

/* Execute a statement kind with up to 5 integer arguments. */
static int nsetExec(nset_vtab *p, int eKind, int nArg, const int64_t *aArg) {
  sqlite3_stmt *pStmt = NULL;
  int rc = nsetStmtGet(p, eKind, &pStmt);
  int i;
  if (rc != SQLITE_OK) return rc;
  for (i = 0; i < nArg; i++) sqlite3_bind_int64(pStmt, i + 1, aArg[i]);
  rc = nsetDbError(p, sqlite3_step(pStmt));
  nsetStmtPut(p, eKind, pStmt);
  return rc;
}

/* Set is_leaf of node id to bLeaf. */
static int nsetSetLeaf(nset_vtab *p, int64_t id, int bLeaf) {
  int64_t a[2];
  a[0] = id;
  a[1] = bLeaf;
  return nsetExec(p, NSET_STMT_SET_LEAF, 2, a);
}

/* Whether node id has children. */
static int nsetHasChild(nset_vtab *p, int64_t id, int *pbHas) {
  sqlite3_stmt *pStmt = NULL;
  int64_t iVal;
  int rc = nsetStmtGet(p, NSET_STMT_HAS_CHILD, &pStmt);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(pStmt, 1, id);
  return nsetProbe(p, NSET_STMT_HAS_CHILD, pStmt, pbHas, &iVal);
}

/*
** The id of an INSERT that gives none, by a rowid table's rule: one more
** than the largest id, 1 when the tree is empty. A content= tree takes its
** ids from the content table's rows, so it has none to make up.
*/
static int nsetNewId(nset_vtab *p, int64_t *piId) {
  sqlite3_stmt *pStmt = NULL;
  int64_t iMax = 0;
  int bFound = 0;
  int rc;
  if (p->zContent) {
    nosqlVtabError(&p->base,
                   "nested_set: id is NULL; %s mirrors %s: insert each node with the %s of its row there",
                   p->zName, p->zContent, p->zContentId);
    return SQLITE_CONSTRAINT;
  }
  rc = nsetStmtGet(p, NSET_STMT_MAX_ID, &pStmt);
  if (rc != SQLITE_OK) return rc;
  rc = nsetProbe(p, NSET_STMT_MAX_ID, pStmt, &bFound, &iMax);
  if (rc != SQLITE_OK) return rc;
  if (bFound && iMax == INT64_MAX) {
    nosqlVtabError(&p->base, "nested_set: id is NULL and the largest id %lld is taken; give the id",
                   (long long)iMax);
    return SQLITE_FULL;
  }
  *piId = bFound ? iMax + 1 : 1;
  return SQLITE_OK;
}

/* Report stored data that breaks an invariant. */
static int nsetCorrupt(nset_vtab *p, const char *zFmt, ...) {
  va_list ap;
  char *z;
  va_start(ap, zFmt);
  z = sqlite3_vmprintf(zFmt, ap);
  va_end(ap);
  sqlite3_free(p->base.zErrMsg);
  p->base.zErrMsg = sqlite3_mprintf("nested_set: corrupt tree %s: %s", p->zName, z ? z : "out of memory");
  sqlite3_free(z);
  return SQLITE_CORRUPT_VTAB;
}

/**************************************************************************
** Making room: relabelling a window of the label space.
*/

/* Append one label to a growable array. */
static int nsetLabelAdd(NsetLabel **pa, int64_t *pn, int64_t *pnAlloc, int64_t iLabel, int64_t id, int bRgt) {
  if (*pn >= *pnAlloc) {
    int64_t nNew = *pnAlloc ? *pnAlloc * 2 : 64;
    NsetLabel *aNew = (NsetLabel *)sqlite3_realloc64(*pa, (sqlite3_uint64)nNew * sizeof(NsetLabel));
    if (aNew == NULL) return SQLITE_NOMEM;
    *pa = aNew;
    *pnAlloc = nNew;
  }
  (*pa)[*pn].iLabel = iLabel;
  (*pa)[*pn].id = id;
  (*pa)[*pn].bRgt = bRgt;
  (*pn)++;
  return SQLITE_OK;
}

static int nsetLabelCmp(const void *a, const void *b) {
  int64_t x = ((const NsetLabel *)a)->iLabel, y = ((const NsetLabel *)b)->iLabel;
  return x < y ? -1 : x > y;
}

/*
** Collect every label in [iFirst, iEnd), sorted: the lft (and rgt) of the
** nodes whose lft is in the window, plus the rgt of the nodes that open
** before the window and close inside it. Those contain the point iFirst,
** so they are the node with the largest lft < iFirst and its ancestors,
** up to the first one that closes at or after iEnd.
** The caller frees *paLabel.
*/
static int nsetCollect(nset_vtab *p, int64_t iFirst, int64_t iEnd, NsetLabel **paLabel, int64_t *pnLabel) {
  sqlite3_stmt *pStmt = NULL;
  NsetLabel *a = NULL;
  int64_t n = 0, nAlloc = 0, i;
  NsetRow row;
  int rc = nsetStmtGet(p, NSET_STMT_RANGE, &pStmt);
  if (rc == SQLITE_OK) {
    sqlite3_bind_int64(pStmt, 1, iFirst);
    sqlite3_bind_int64(pStmt, 2, iEnd - 1);
    while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
      nsetRowRead(pStmt, 0, &row);
      rc = nsetLabelAdd(&a, &n, &nAlloc, row.lft, row.id, 0);
      if (rc == SQLITE_OK && row.rgt < iEnd) rc = nsetLabelAdd(&a, &n, &nAlloc, row.rgt, row.id, 1);
    }
    if (rc == SQLITE_OK) rc = nsetDbError(p, sqlite3_reset(pStmt));
    nsetStmtPut(p, NSET_STMT_RANGE, pStmt);
  }
  if (rc == SQLITE_OK) {
    int bFound = 0;
    rc = nsetStmtGet(p, NSET_STMT_PRED, &pStmt);
    if (rc == SQLITE_OK) {
      sqlite3_bind_int64(pStmt, 1, iFirst);
      if (sqlite3_step(pStmt) == SQLITE_ROW) {
        nsetRowRead(pStmt, 0, &row);
        bFound = 1;
      }
      rc = nsetDbError(p, sqlite3_reset(pStmt));
      nsetStmtPut(p, NSET_STMT_PRED, pStmt);
    }
    while (rc == SQLITE_OK && bFound) {
      NsetRow up;
      /* rgt grows going up: past the window, no ancestor closes inside it. */
      if (row.rgt >= iEnd) break;
      if (row.rgt >= iFirst) rc = nsetLabelAdd(&a, &n, &nAlloc, row.rgt, row.id, 1);
      if (rc != SQLITE_OK || row.bRoot) break;
      rc = nsetFind(p, row.parent, &up, &bFound);
      if (rc == SQLITE_OK && (!bFound || up.lft >= row.lft)) {
        rc = nsetCorrupt(p, "node %lld has parent %lld, which %s", row.id, row.parent,
                         bFound ? "does not enclose it" : "does not exist");
      }
      row = up;
    }
  }
  if (rc == SQLITE_OK && n > 1) {
    qsort(a, (size_t)n, sizeof(NsetLabel), nsetLabelCmp);
    for (i = 1; i < n && rc == SQLITE_OK; i++) {
      if (a[i].iLabel == a[i - 1].iLabel) {
        rc = nsetCorrupt(p, "nodes %lld and %lld share the label %lld", a[i - 1].id, a[i].id, a[i].iLabel);
      }
    }
  }
  if (rc != SQLITE_OK) {
    sqlite3_free(a);
    a = NULL;
    n = 0;
  }
  *paLabel = a;
  *pnLabel = n;
  return rc;
}

/*
** Make room for nNeed new labels right after label lo (0: at the start of
** the label space): find the smallest aligned window around lo whose
** density passes nsetWindowOk() and spread its labels evenly, leaving at
** least nNeed empty slots after lo. Labels keep their order, so every
** invariant holds.
*/
static int nsetMakeRoom(nset_vtab *p, int64_t lo, int64_t nNeed) {
  int nBits;
  /* Labels live in [0, 2^62): one read from a damaged row may not. */
  if (lo < 0 || lo >= ((int64_t)1 << NSET_WINDOW_MAX_BITS)) {
    return nsetCorrupt(p, "label %lld is outside the label space", (long long)lo);
  }
  for (nBits = NSET_WINDOW_MIN_BITS; nBits <= NSET_WINDOW_MAX_BITS; nBits++) {
    int64_t iFirst = lo & ~(((int64_t)1 << nBits) - 1);
    int64_t iEnd = iFirst + ((int64_t)1 << nBits);
    NsetLabel *a = NULL;
    int64_t n = 0, i, iHole = 0;
    int64_t *aNew;
    int64_t nHole;
    int rc = nsetCollect(p, iFirst, iEnd, &a, &n);
    if (rc != SQLITE_OK) return rc;
    /* The hole gets as many slots as the window keeps labels, about half
    ** its width, so the inserts that follow (appends, deep chains) find
    ** room for a long time instead of relabelling again soon. */
    nHole = n > nNeed ? n : nNeed;
    if (!nsetWindowOk(nBits, n + nHole)) {
      sqlite3_free(a);
      continue;
    }
    while (iHole < n && a[iHole].iLabel <= lo) iHole++;
    aNew = (int64_t *)sqlite3_malloc64(sizeof(int64_t) * (sqlite3_uint64)(n ? n : 1));
    if (aNew == NULL) {
      sqlite3_free(a);
      return SQLITE_NOMEM;
    }
    nsetSpread(iFirst, iEnd, n, iHole, nHole, aNew);
    for (i = 0; i < n && rc == SQLITE_OK; i++) {
      if (aNew[i] != a[i].iLabel) {
        int64_t aArg[2];
        aArg[0] = a[i].id;
        aArg[1] = aNew[i];
        rc = nsetExec(p, a[i].bRgt ? NSET_STMT_SET_RGT : NSET_STMT_SET_LFT, 2, aArg);
      }
    }
    sqlite3_free(aNew);
    sqlite3_free(a);
    return rc;
  }
  nosqlVtabError(&p->base, "nested_set: no room left in the label space of %s", p->zName);
  return SQLITE_FULL;
}

/*
** The labels around the place a node goes: under pParent (NULL: a root),
** before its sibling pBefore (NULL: as the last child). Node idSkip (the
** one being moved, or 0 with bSkip false) is not counted as a sibling.
*/
static int nsetGap(nset_vtab *p, const NsetRow *pParent, const NsetRow *pBefore, int bSkip, int64_t idSkip,
                   int64_t *pLo, int64_t *pHi) {
  sqlite3_stmt *pStmt = NULL;
  int bFound = 0;
  int64_t iVal = 0;
  int rc;
  if (pBefore) {
    *pHi = pBefore->lft;
    rc = nsetStmtGet(p, NSET_STMT_PREV_SIB, &pStmt);
    if (rc != SQLITE_OK) return rc;
    nsetBindParent(pStmt, 1, pParent);
    sqlite3_bind_int64(pStmt, 2, pBefore->lft);
    if (bSkip) sqlite3_bind_int64(pStmt, 3, idSkip);
    rc = nsetProbe(p, NSET_STMT_PREV_SIB, pStmt, &bFound, &iVal);
  } else {
    *pHi = pParent ? pParent->rgt : NSET_LABEL_END;
    rc = nsetStmtGet(p, NSET_STMT_LAST_CHILD, &pStmt);
    if (rc != SQLITE_OK) return rc;
    nsetBindParent(pStmt, 1, pParent);
    if (bSkip) sqlite3_bind_int64(pStmt, 2, idSkip);
    rc = nsetProbe(p, NSET_STMT_LAST_CHILD, pStmt, &bFound, &iVal);
  }
  *pLo = bFound ? iVal : (pParent ? pParent->lft : 0);
  return rc;
}

/**************************************************************************
** Writes.
*/

/* Read an id argument: an integer (or a value that converts exactly). */
static int nsetValueId(sqlite3_value *pVal, int64_t *piId) {
  switch (sqlite3_value_numeric_type(pVal)) {
    case SQLITE_INTEGER:
      *piId = sqlite3_value_int64(pVal);
      return 1;
    case SQLITE_FLOAT: {
      /* 12.0 names node 12, as it would in "id = 12.0". */
      double r = sqlite3_value_double(pVal);
      if (r >= -9.2e18 && r <= 9.2e18 && r == (double)(int64_t)r) {
        *piId = (int64_t)r;
        return 1;
      }
      return 0;
    }
    default:
      return 0;
  }
}

/* Error for a bad id-valued argument zWhat. */
static int nsetBadId(nset_vtab *p, const char *zWhat, sqlite3_value *pVal) {
  char *zQ = nosqlValueQuote(pVal);
  nosqlVtabError(&p->base, "nested_set: %s %s is not an integer", zWhat, zQ ? zQ : "?");
  sqlite3_free(zQ);
  return SQLITE_MISMATCH;
}

/*
** Resolve a node-valued argument zWhat ("parent", "before"): NULL leaves
** *pbFound false; otherwise the value must be an integer naming a node.
*/
static int nsetResolveNode(nset_vtab *p, sqlite3_value *pVal, const char *zWhat, NsetRow *pRow,
                           int *pbFound) {
  int64_t id;
  int rc;
  *pbFound = 0;
  if (sqlite3_value_type(pVal) == SQLITE_NULL) return SQLITE_OK;
  if (!nsetValueId(pVal, &id)) return nsetBadId(p, zWhat, pVal);
  rc = nsetFind(p, id, pRow, pbFound);
  if (rc == SQLITE_OK && !*pbFound) {
    nosqlVtabError(&p->base, "nested_set: %s %lld does not exist", zWhat, id);
    rc = SQLITE_CONSTRAINT;
  }
  return rc;
}

/*
** Resolve the "before" sibling: NULL means "last"; else it must be a child
** of pParent (a root when pParent is NULL).
*/
static int nsetResolveBefore(nset_vtab *p, sqlite3_value *pVal, const NsetRow *pParent, NsetRow *pBefore,
                             int *pbBefore) {
  int rc = nsetResolveNode(p, pVal, "before", pBefore, pbBefore);
  if (rc != SQLITE_OK || !*pbBefore) return rc;
  if (pParent == NULL ? !pBefore->bRoot : (pBefore->bRoot || pBefore->parent != pParent->id)) {
    if (pParent)
      nosqlVtabError(&p->base, "nested_set: before %lld is not a child of %lld", pBefore->id, pParent->id);
    else
      nosqlVtabError(&p->base, "nested_set: before %lld is not a root", pBefore->id);
    *pbBefore = 0;
    return SQLITE_CONSTRAINT;
  }
  return SQLITE_OK;
}

/* True when argument pVal of an UPDATE was left unchanged. */
static int nsetUnchanged(sqlite3_value *pVal) { return sqlite3_value_nochange(pVal); }

/* Insert a new node: argv as xUpdate's, iId already validated. */
static int nsetInsert(nset_vtab *p, int64_t iId, sqlite3_value **argv) {
  int iHid = 2 + NSET_COL_PAYLOAD + p->nPayload;
  NsetRow par, bef;
  int bPar = 0, bBef = 0, bFound = 0, rc, i;
  int64_t lo = 0, hi = 0, d, iLft;
  sqlite3_stmt *pStmt = NULL;

  /* A duplicate id is caught by the node table's primary key below; the
  ** statement's rollback then undoes any relabelling done before it. */
  rc = nsetResolveNode(p, argv[2 + NSET_COL_PARENT], "parent", &par, &bPar);
  if (rc == SQLITE_OK)
    rc = nsetResolveBefore(p, argv[iHid + NSET_HID_BEFORE], bPar ? &par : NULL, &bef, &bBef);
  if (rc != SQLITE_OK) return rc;
  rc = nsetGap(p, bPar ? &par : NULL, bBef ? &bef : NULL, 0, 0, &lo, &hi);
  if (rc == SQLITE_OK && nsetStep(lo, hi, 2) == 0) {
    rc = nsetMakeRoom(p, lo, 2);
    if (rc == SQLITE_OK && bPar) rc = nsetFind(p, par.id, &par, &bFound);
    if (rc == SQLITE_OK && bBef) rc = nsetFind(p, bef.id, &bef, &bFound);
    if (rc == SQLITE_OK) rc = nsetGap(p, bPar ? &par : NULL, bBef ? &bef : NULL, 0, 0, &lo, &hi);
  }
  if (rc != SQLITE_OK) return rc;
  iLft = nsetPlace(lo, hi, 2, bBef, &d);
  if (d == 0) return nsetCorrupt(p, "no gap between labels %lld and %lld after a relabel", lo, hi);

  rc = nsetStmtGet(p, NSET_STMT_INSERT, &pStmt);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(pStmt, 1, iId);
  nsetBindParent(pStmt, 2, bPar ? &par : NULL);
  sqlite3_bind_int64(pStmt, 3, iLft);
  sqlite3_bind_int64(pStmt, 4, iLft + d);
  /* Stored depths are untrusted: wrap instead of overflowing (integrity-check reports them). */
  sqlite3_bind_int64(pStmt, 5, bPar ? (int64_t)((uint64_t)par.depth + 1) : 0);
  sqlite3_bind_int(pStmt, 6, 1);
  if (p->zContent == NULL) {
    for (i = 0; i < p->nPayload; i++) sqlite3_bind_value(pStmt, 7 + i, argv[2 + NSET_COL_PAYLOAD + i]);
  }
  rc = sqlite3_step(pStmt);
  if (rc == SQLITE_CONSTRAINT) {
    sqlite3_reset(pStmt);
    nosqlVtabError(&p->base, "nested_set: id %lld already exists", iId);
  } else {
    rc = nsetDbError(p, rc);
  }
  nsetStmtPut(p, NSET_STMT_INSERT, pStmt);
  if (rc == SQLITE_OK && bPar && par.bLeaf) rc = nsetSetLeaf(p, par.id, 0);
  return rc;
}

/* Delete node pRow and its subtree. */
static int nsetDelete(nset_vtab *p, const NsetRow *pRow) {
  int64_t a[2];
  int rc;
  a[0] = pRow->lft;
  a[1] = pRow->rgt;
  rc = nsetExec(p, NSET_STMT_DELETE, 2, a);
  if (rc == SQLITE_OK && !pRow->bRoot) {
    int bHas = 0;
    rc = nsetHasChild(p, pRow->parent, &bHas);
    if (rc == SQLITE_OK && !bHas) rc = nsetSetLeaf(p, pRow->parent, 1);
  }
  return rc;
}

/*
** Move node pX with its subtree under pParent (NULL: make it a root),
** before pBefore (NULL: last). The caller has checked that the target is
** not inside the subtree.
*/
static int nsetMove(nset_vtab *p, NsetRow *pX, NsetRow *pParent, NsetRow *pBefore) {
  sqlite3_stmt *pStmt = NULL;
  NsetRow *aRow = NULL;
  NsetLabel *aLab = NULL;
  int64_t nRow = 0, nAlloc = 0, nLab = 0, lo = 0, hi = 0, d, i, iDelta, iFirst;
  int64_t nNeed;
  int rc, bFound = 0;
  int bOldRoot = pX->bRoot;
  int64_t iOldParent = pX->parent;

  /* Count the subtree's labels first: that is the room needed. */
  rc = nsetStmtGet(p, NSET_STMT_RANGE, &pStmt);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(pStmt, 1, pX->lft);
  sqlite3_bind_int64(pStmt, 2, pX->rgt);
  while (sqlite3_step(pStmt) == SQLITE_ROW) nRow++;
  rc = nsetDbError(p, sqlite3_reset(pStmt));
  nsetStmtPut(p, NSET_STMT_RANGE, pStmt);
  if (rc != SQLITE_OK) return rc;
  nNeed = 2 * nRow;

  rc = nsetGap(p, pParent, pBefore, 1, pX->id, &lo, &hi);
  if (rc == SQLITE_OK && nsetStep(lo, hi, nNeed) == 0) {
    rc = nsetMakeRoom(p, lo, nNeed);
    if (rc == SQLITE_OK) rc = nsetFind(p, pX->id, pX, &bFound);
    if (rc == SQLITE_OK && pParent) rc = nsetFind(p, pParent->id, pParent, &bFound);
    if (rc == SQLITE_OK && pBefore) rc = nsetFind(p, pBefore->id, pBefore, &bFound);
    if (rc == SQLITE_OK) rc = nsetGap(p, pParent, pBefore, 1, pX->id, &lo, &hi);
  }
  if (rc != SQLITE_OK) return rc;
  iFirst = nsetPlace(lo, hi, nNeed, pBefore != NULL, &d);
  if (d == 0) return nsetCorrupt(p, "no gap between labels %lld and %lld after a relabel", lo, hi);

  /* Read the subtree, then give its labels, in order, iFirst + k*d. */
  aRow = (NsetRow *)sqlite3_malloc64(sizeof(NsetRow) * (sqlite3_uint64)nRow);
  if (aRow == NULL) return SQLITE_NOMEM;
  rc = nsetStmtGet(p, NSET_STMT_RANGE, &pStmt);
  if (rc == SQLITE_OK) {
    int64_t n = 0;
    sqlite3_bind_int64(pStmt, 1, pX->lft);
    sqlite3_bind_int64(pStmt, 2, pX->rgt);
    while (n < nRow && sqlite3_step(pStmt) == SQLITE_ROW) nsetRowRead(pStmt, 0, &aRow[n++]);
    rc = nsetDbError(p, sqlite3_reset(pStmt));
    nsetStmtPut(p, NSET_STMT_RANGE, pStmt);
    if (rc == SQLITE_OK && n != nRow) rc = nsetCorrupt(p, "the subtree of node %lld changed size", pX->id);
  }
  for (i = 0; rc == SQLITE_OK && i < nRow; i++) {
    rc = nsetLabelAdd(&aLab, &nLab, &nAlloc, aRow[i].lft, i, 0);
    if (rc == SQLITE_OK) rc = nsetLabelAdd(&aLab, &nLab, &nAlloc, aRow[i].rgt, i, 1);
  }
  if (rc == SQLITE_OK) {
    qsort(aLab, (size_t)nLab, sizeof(NsetLabel), nsetLabelCmp);
    for (i = 0; i < nLab; i++) {
      NsetRow *pR = &aRow[aLab[i].id];
      if (aLab[i].bRgt)
        pR->rgt = iFirst + i * d;
      else
        pR->lft = iFirst + i * d;
    }
    /* In unsigned arithmetic: depths read from a damaged table may be anywhere in int64. */
    iDelta = (int64_t)((pParent ? (uint64_t)pParent->depth + 1 : 0) - (uint64_t)pX->depth);
    for (i = 0; rc == SQLITE_OK && i < nRow; i++) {
      int64_t a[5];
      a[0] = aRow[i].id;
      a[1] = aRow[i].lft;
      a[2] = aRow[i].rgt;
      a[3] = (int64_t)((uint64_t)aRow[i].depth + (uint64_t)iDelta);
      a[4] = aRow[i].bLeaf;
      rc = nsetExec(p, NSET_STMT_SET_LABELS, 5, a);
    }
  }
  sqlite3_free(aLab);
  sqlite3_free(aRow);
  if (rc == SQLITE_OK) {
    rc = nsetStmtGet(p, NSET_STMT_SET_PARENT, &pStmt);
    if (rc == SQLITE_OK) {
      sqlite3_bind_int64(pStmt, 1, pX->id);
      nsetBindParent(pStmt, 2, pParent);
      rc = nsetDbError(p, sqlite3_step(pStmt));
      nsetStmtPut(p, NSET_STMT_SET_PARENT, pStmt);
    }
  }
  if (rc == SQLITE_OK && !bOldRoot && (pParent == NULL || pParent->id != iOldParent)) {
    int bHas = 0;
    rc = nsetHasChild(p, iOldParent, &bHas);
    if (rc == SQLITE_OK && !bHas) rc = nsetSetLeaf(p, iOldParent, 1);
  }
  if (rc == SQLITE_OK && pParent && pParent->bLeaf) rc = nsetSetLeaf(p, pParent->id, 0);
  return rc;
}

/* The UPDATE of node pOld from argv (as xUpdate's). */
static int nsetUpdate(nset_vtab *p, NsetRow *pOld, sqlite3_value **argv) {
  int iHid = 2 + NSET_COL_PAYLOAD + p->nPayload;
  sqlite3_value *pParentVal = argv[2 + NSET_COL_PARENT];
  sqlite3_value *pBeforeVal = argv[iHid + NSET_HID_BEFORE];
  int bParentChanged, bBeforeSet, rc = SQLITE_OK, i;

  /* The parent changes when its new value differs from the stored one. */
  if (nsetUnchanged(pParentVal)) {
    bParentChanged = 0;
  } else if (sqlite3_value_type(pParentVal) == SQLITE_NULL) {
    bParentChanged = !pOld->bRoot;
  } else {
    int64_t iPar;
    if (!nsetValueId(pParentVal, &iPar)) return nsetBadId(p, "parent", pParentVal);
    bParentChanged = pOld->bRoot || iPar != pOld->parent;
  }
  bBeforeSet = !nsetUnchanged(pBeforeVal);

  if (bParentChanged || bBeforeSet) {
    NsetRow par, bef;
    int bPar = 0, bBef = 0;
    rc = nsetResolveNode(p, pParentVal, "parent", &par, &bPar);
    if (rc == SQLITE_OK && bPar && par.lft >= pOld->lft && par.lft <= pOld->rgt) {
      if (par.id == pOld->id)
        nosqlVtabError(&p->base, "nested_set: cannot move node %lld under itself", pOld->id);
      else
        nosqlVtabError(&p->base, "nested_set: cannot move node %lld under its own descendant %lld", pOld->id,
                       par.id);
      rc = SQLITE_CONSTRAINT;
    }
    if (rc == SQLITE_OK && bBeforeSet) {
      rc = nsetResolveBefore(p, pBeforeVal, bPar ? &par : NULL, &bef, &bBef);
    }
    if (rc == SQLITE_OK) {
      /* Already in place: same parent and either "last" while last, or
      ** "before S" while S is already the next sibling (or S is itself). */
      int bNoop = 0;
      if (!bParentChanged) {
        sqlite3_stmt *pStmt = NULL;
        int bFound = 0;
        int64_t iNext = 0;
        rc = nsetStmtGet(p, NSET_STMT_NEXT_SIB, &pStmt);
        if (rc == SQLITE_OK) {
          nsetBindParent(pStmt, 1, bPar ? &par : NULL);
          sqlite3_bind_int64(pStmt, 2, pOld->lft);
          rc = nsetProbe(p, NSET_STMT_NEXT_SIB, pStmt, &bFound, &iNext);
        }
        if (bBef)
          bNoop = bef.id == pOld->id || (bFound && iNext == bef.id);
        else
          bNoop = !bFound;
      }
      if (rc == SQLITE_OK && !bNoop) rc = nsetMove(p, pOld, bPar ? &par : NULL, bBef ? &bef : NULL);
    }
    if (rc != SQLITE_OK) return rc;
  }

  if (p->zContent == NULL && p->nPayload > 0) {
    sqlite3_stmt *pStmt = NULL;
    rc = nsetStmtGet(p, NSET_STMT_SET_PAYLOAD, &pStmt);
    if (rc != SQLITE_OK) return rc;
    sqlite3_bind_int64(pStmt, 1, pOld->id);
    for (i = 0; i < p->nPayload; i++) sqlite3_bind_value(pStmt, 2 + i, argv[2 + NSET_COL_PAYLOAD + i]);
    rc = nsetDbError(p, sqlite3_step(pStmt));
    nsetStmtPut(p, NSET_STMT_SET_PAYLOAD, pStmt);
  }
  return rc;
}

/**************************************************************************
** Commands: 'rebuild' and 'integrity-check'.
*/

/* The labels a node had before a rebuild (plain mode: only changes are written). */
typedef struct NsetOld NsetOld;
struct NsetOld {
  int64_t lft;   /* Old lft */
  int64_t rgt;   /* Old rgt */
  int64_t depth; /* Old depth */
  int bLeaf;     /* Old is_leaf */
};

/* Free the arrays of an NsetBuild. */
static void nsetBuildFree(NsetBuild *b) {
  sqlite3_free(b->aId);
  sqlite3_free(b->aParent);
  sqlite3_free(b->aRoot);
  sqlite3_free(b->aLft);
  sqlite3_free(b->aRgt);
  sqlite3_free(b->aDepth);
  sqlite3_free(b->aLeaf);
  sqlite3_free(b->aPar);
  sqlite3_free(b->aFirst);
  sqlite3_free(b->aNext);
  sqlite3_free(b->aPre);
  sqlite3_free(b->aKey);
  memset(b, 0, sizeof(*b));
}

/* Grow the arrays of an NsetBuild to hold nAlloc nodes. */
static int nsetBuildGrow(NsetBuild *b, int64_t nAlloc) {
  sqlite3_uint64 n = (sqlite3_uint64)nAlloc;
#define NSET_GROW(a, T)                                   \
  do {                                                    \
    T *aNew = (T *)sqlite3_realloc64((a), n * sizeof(T)); \
    if (aNew == NULL) return SQLITE_NOMEM;                \
    (a) = aNew;                                           \
  } while (0)
  NSET_GROW(b->aId, int64_t);
  NSET_GROW(b->aParent, int64_t);
  NSET_GROW(b->aRoot, unsigned char);
  NSET_GROW(b->aLft, int64_t);
  NSET_GROW(b->aRgt, int64_t);
  NSET_GROW(b->aDepth, int64_t);
  NSET_GROW(b->aLeaf, unsigned char);
  NSET_GROW(b->aPar, int64_t);
  NSET_GROW(b->aFirst, int64_t);
  NSET_GROW(b->aNext, int64_t);
  NSET_GROW(b->aPre, int64_t);
  NSET_GROW(b->aKey, NsetKey);
#undef NSET_GROW
  return SQLITE_OK;
}

/* Report a failed nsetBuild() as the table's error. */
static int nsetBuildError(nset_vtab *p, const NsetBuild *b, int eErr) {
  const char *zSrc = p->zContent ? p->zContent : p->zName;
  switch (eErr) {
    case NSET_BUILD_DUPLICATE:
      nosqlVtabError(&p->base, "nested_set: rebuild of %s: id %lld appears twice in %s", p->zName, b->iErrId,
                     zSrc);
      return SQLITE_CONSTRAINT;
    case NSET_BUILD_ORPHAN:
      nosqlVtabError(&p->base, "nested_set: rebuild of %s: node %lld has parent %lld, which does not exist",
                     p->zName, b->iErrId, b->iErrParent);
      return SQLITE_CONSTRAINT;
    default:
      nosqlVtabError(&p->base, "nested_set: rebuild of %s: node %lld is on a cycle (its parent is %lld)",
                     p->zName, b->iErrId, b->iErrParent);
      return SQLITE_CONSTRAINT;
  }
}

/*
** A suffix for the node table's index names that no index has yet ("" as a
** rule; "_2", "_3"... when an index of that name remains from a table
** that was renamed: SQLite's RENAME keeps index names, and cannot rename
** an index from inside the ALTER TABLE that calls xRename).
*/
static int nsetFreeIndexSuffix(nset_vtab *p, char *zSuffix, int nSuffix) {
  sqlite3_stmt *pStmt = NULL;
  int rc, i, bTaken = 1;
  char *zSql = sqlite3_mprintf(
      "SELECT count(*) FROM \"%w\".sqlite_schema WHERE type = 'index' AND name IN "
      "(?1 || '_node_lft' || ?2, ?1 || '_node_parent' || ?2, ?1 || '_node_leaf' || ?2) "
      "COLLATE NOCASE",
      p->zDb);
  if (zSql == NULL) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  zSuffix[0] = 0;
  for (i = 1; rc == SQLITE_OK && bTaken && i < 1000; i++) {
    if (i > 1) sqlite3_snprintf(nSuffix, zSuffix, "_%d", i);
    sqlite3_bind_text(pStmt, 1, p->zName, -1, SQLITE_STATIC);
    sqlite3_bind_text(pStmt, 2, zSuffix, -1, SQLITE_STATIC);
    bTaken = sqlite3_step(pStmt) == SQLITE_ROW && sqlite3_column_int(pStmt, 0) > 0;
    rc = sqlite3_reset(pStmt);
  }
  sqlite3_finalize(pStmt);
  return rc;
}

/*
** The node table's indexes: the two plain ones (labels, parent) and the
** partial leaf index. A missing one is damage: the scans that name it
** would fail, and the others would silently become full scans. With
** bRepair the missing kind is created again, under names no index has
** (nsetFreeIndexSuffix); the cached leaf index name is looked up afresh.
*/
static int nsetIndexCheck(nset_vtab *p, int bRepair) {
  sqlite3_stmt *pStmt = NULL;
  int nPlain = 0, nPartial = 0, rc;
  char *zSql = sqlite3_mprintf("SELECT partial FROM \"%w\".pragma_index_list('%q_node')", p->zDb, p->zName);
  if (zSql == NULL) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    if (sqlite3_column_int(pStmt, 0)) {
      nPartial++;
    } else {
      nPlain++;
    }
  }
  if (rc == SQLITE_OK) rc = sqlite3_finalize(pStmt);
  pStmt = NULL;
  if (rc != SQLITE_OK) return nsetDbError(p, rc);
  sqlite3_free(p->zLeafIdx);
  p->zLeafIdx = NULL;
  if (nPlain >= 2 && nPartial >= 1) return SQLITE_OK;
  if (!bRepair) {
    return nPartial == 0 ? nsetCorrupt(p, "the leaf index of %s_node is missing", p->zName)
                         : nsetCorrupt(p, "an index of %s_node is missing", p->zName);
  }
  {
    /* Under names no index has (another table may hold the plain ones). */
    char zSuffix[16];
    rc = nsetFreeIndexSuffix(p, zSuffix, sizeof(zSuffix));
    if (rc != SQLITE_OK) return nsetDbError(p, rc);
    zSql = sqlite3_mprintf("%s", "");
    if (zSql && nPlain < 2) {
      zSql = sqlite3_mprintf(
          "%z CREATE INDEX \"%w\".\"%w_node_lft%s\" ON \"%w_node\"(lft, rgt, depth, parent, is_leaf);"
          "CREATE INDEX \"%w\".\"%w_node_parent%s\" ON \"%w_node\"(parent, lft);",
          zSql, p->zDb, p->zName, zSuffix, p->zName, p->zDb, p->zName, zSuffix, p->zName);
    }
    if (zSql && nPartial == 0) {
      zSql = sqlite3_mprintf(
          "%z CREATE INDEX \"%w\".\"%w_node_leaf%s\" ON \"%w_node\""
          "(lft, rgt, depth, parent, is_leaf) WHERE is_leaf = 1;",
          zSql, p->zDb, p->zName, zSuffix, p->zName);
    }
  }
  if (zSql == NULL) return SQLITE_NOMEM;
  rc = sqlite3_exec(p->db, zSql, 0, 0, 0);
  sqlite3_free(zSql);
  nsetStmtFinalizeAll(p);
  return nsetDbError(p, rc);
}

/*
** 'rebuild': recompute every label from the parent links. A plain table
** keeps its sibling order (the current lft order); content= mode reloads
** the structure from the content table, siblings in id order. (Long: the
** load, the cycle check and the relabelling walk share the arrays.)
*/
static int nsetRebuild(nset_vtab *p) {
  NsetBuild b;
  NsetOld *aOld = NULL;
  sqlite3_stmt *pStmt = NULL;
  int64_t nAlloc = 0, i;
  int rc, eErr;
  char *zSql;

  memset(&b, 0, sizeof(b));
  rc = nsetIndexCheck(p, 1);
  if (rc != SQLITE_OK) return rc;
  if (p->zContent) {
    zSql = sqlite3_mprintf("SELECT s.\"%w\", s.\"%w\" FROM \"%w\".\"%w\" AS s ORDER BY 1", p->zContentId,
                           p->zContentParent, p->zDb, p->zContent);
  } else {
    zSql = sqlite3_mprintf("SELECT id, parent, lft, rgt, depth, is_leaf FROM \"%w\".\"%w_node\" ORDER BY lft",
                           p->zDb, p->zName);
  }
  if (zSql == NULL) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  if (rc != SQLITE_OK) return nsetDbError(p, rc);
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    sqlite3_value *pId = sqlite3_column_value(pStmt, 0);
    sqlite3_value *pPar = sqlite3_column_value(pStmt, 1);
    if (b.n >= nAlloc) {
      nAlloc = nAlloc ? nAlloc * 2 : 1024;
      rc = nsetBuildGrow(&b, nAlloc);
      if (rc == SQLITE_OK) {
        NsetOld *aNew = (NsetOld *)sqlite3_realloc64(aOld, (sqlite3_uint64)nAlloc * sizeof(NsetOld));
        if (aNew == NULL) rc = SQLITE_NOMEM;
        if (aNew) aOld = aNew;
      }
      if (rc != SQLITE_OK) break;
    }
    if (!nsetValueId(pId, &b.aId[b.n])) {
      char *zQ = nosqlValueQuote(pId);
      nosqlVtabError(&p->base, "nested_set: rebuild of %s: id %s in %s is not an integer", p->zName,
                     zQ ? zQ : "?", p->zContent ? p->zContent : p->zName);
      sqlite3_free(zQ);
      rc = SQLITE_MISMATCH;
      break;
    }
    b.aRoot[b.n] = sqlite3_value_type(pPar) == SQLITE_NULL;
    b.aParent[b.n] = 0;
    if (!b.aRoot[b.n] && !nsetValueId(pPar, &b.aParent[b.n])) {
      char *zQ = nosqlValueQuote(pPar);
      nosqlVtabError(&p->base, "nested_set: rebuild of %s: parent %s of node %lld is not an integer",
                     p->zName, zQ ? zQ : "?", b.aId[b.n]);
      sqlite3_free(zQ);
      rc = SQLITE_MISMATCH;
      break;
    }
    if (p->zContent == NULL) {
      aOld[b.n].lft = sqlite3_column_int64(pStmt, 2);
      aOld[b.n].rgt = sqlite3_column_int64(pStmt, 3);
      aOld[b.n].depth = sqlite3_column_int64(pStmt, 4);
      aOld[b.n].bLeaf = sqlite3_column_int(pStmt, 5);
    }
    b.n++;
  }
  if (rc == SQLITE_OK) {
    rc = nsetDbError(p, sqlite3_finalize(pStmt));
  } else {
    sqlite3_finalize(pStmt);
  }
  pStmt = NULL; /* Finalized: a failing nsetStmtGet below must not hand it to the cache */
  if (rc == SQLITE_OK && b.n > 0) {
    eErr = nsetBuild(&b);
    if (eErr != NSET_BUILD_OK) rc = nsetBuildError(p, &b, eErr);
  }
  if (rc == SQLITE_OK && p->zContent) {
    zSql = sqlite3_mprintf("DELETE FROM \"%w\".\"%w_node\"", p->zDb, p->zName);
    rc = zSql ? sqlite3_exec(p->db, zSql, 0, 0, 0) : SQLITE_NOMEM;
    sqlite3_free(zSql);
    rc = nsetDbError(p, rc);
    if (rc == SQLITE_OK) rc = nsetStmtGet(p, NSET_STMT_INSERT, &pStmt);
    for (i = 0; rc == SQLITE_OK && i < b.n; i++) {
      int64_t x = b.aPre[i];
      sqlite3_bind_int64(pStmt, 1, b.aId[x]);
      if (b.aRoot[x])
        sqlite3_bind_null(pStmt, 2);
      else
        sqlite3_bind_int64(pStmt, 2, b.aParent[x]);
      sqlite3_bind_int64(pStmt, 3, b.aLft[x]);
      sqlite3_bind_int64(pStmt, 4, b.aRgt[x]);
      sqlite3_bind_int64(pStmt, 5, b.aDepth[x]);
      sqlite3_bind_int(pStmt, 6, b.aLeaf[x]);
      rc = nsetDbError(p, sqlite3_step(pStmt));
      sqlite3_reset(pStmt);
    }
    if (pStmt) nsetStmtPut(p, NSET_STMT_INSERT, pStmt);
  } else if (rc == SQLITE_OK) {
    for (i = 0; rc == SQLITE_OK && i < b.n; i++) {
      if (aOld[i].lft != b.aLft[i] || aOld[i].rgt != b.aRgt[i] || aOld[i].depth != b.aDepth[i] ||
          aOld[i].bLeaf != b.aLeaf[i]) {
        int64_t a[5];
        a[0] = b.aId[i];
        a[1] = b.aLft[i];
        a[2] = b.aRgt[i];
        a[3] = b.aDepth[i];
        a[4] = b.aLeaf[i];
        rc = nsetExec(p, NSET_STMT_SET_LABELS, 5, a);
      }
    }
  }
  nsetBuildFree(&b);
  sqlite3_free(aOld);
  return rc;
}

/* One open node of the integrity check's walk. */
typedef struct NsetOpen NsetOpen;
struct NsetOpen {
  NsetRow row;   /* The node */
  int bHasChild; /* A child has been seen */
};

/* Check the is_leaf of a node leaving the integrity check's stack. */
static int nsetCheckLeaf(nset_vtab *p, const NsetOpen *pOpen) {
  if (pOpen->row.bLeaf == pOpen->bHasChild) {
    return nsetCorrupt(p, "node %lld has is_leaf %d but %s children", pOpen->row.id, pOpen->row.bLeaf,
                       pOpen->bHasChild ? "has" : "no");
  }
  return SQLITE_OK;
}

/* Compare the structure with the content table (content= mode). */
static int nsetCheckContent(nset_vtab *p) {
  static const char *const azFmt[2] = {
      "SELECT id FROM (SELECT s.\"%w\" AS id, s.\"%w\" AS parent FROM \"%w\".\"%w\" AS s EXCEPT "
      "SELECT id, parent FROM \"%w\".\"%w_node\") ORDER BY 1 LIMIT 1",
      "SELECT id FROM (SELECT id, parent FROM \"%w\".\"%w_node\" EXCEPT "
      "SELECT s.\"%w\", s.\"%w\" FROM \"%w\".\"%w\" AS s) ORDER BY 1 LIMIT 1"};
  int k, rc = SQLITE_OK;
  for (k = 0; k < 2 && rc == SQLITE_OK; k++) {
    sqlite3_stmt *pStmt = NULL;
    char *zSql = k == 0 ? sqlite3_mprintf(azFmt[0], p->zContentId, p->zContentParent, p->zDb, p->zContent,
                                          p->zDb, p->zName)
                        : sqlite3_mprintf(azFmt[1], p->zDb, p->zName, p->zContentId, p->zContentParent,
                                          p->zDb, p->zContent);
    if (zSql == NULL) return SQLITE_NOMEM;
    rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0);
    sqlite3_free(zSql);
    if (rc != SQLITE_OK) return nsetDbError(p, rc);
    if (sqlite3_step(pStmt) == SQLITE_ROW) {
      char *zQ = nosqlValueQuote(sqlite3_column_value(pStmt, 0));
      rc = nsetCorrupt(p, "%s %s %s; run 'rebuild'", k == 0 ? "row" : "node", zQ ? zQ : "?",
                       k == 0 ? "of the content table is missing from the tree or has another parent there"
                              : "is not in the content table or has another parent there");
      sqlite3_free(zQ);
      sqlite3_finalize(pStmt);
    } else {
      rc = nsetDbError(p, sqlite3_finalize(pStmt));
    }
  }
  return rc;
}

/* 'integrity-check': walk every node in lft order and check each invariant. */
static int nsetIntegrityCheck(nset_vtab *p) {
  sqlite3_stmt *pStmt = NULL;
  NsetOpen *aOpen = NULL;
  int64_t nOpen = 0, nAlloc = 0, nRow = 0, nTable = 0;
  int rc = nsetStmtGet(p, NSET_STMT_RANGE, &pStmt);
  NsetRow r;
  if (rc != SQLITE_OK) return rc;
  rc = nsetIndexCheck(p, 0);
  if (rc != SQLITE_OK) {
    nsetStmtPut(p, NSET_STMT_RANGE, pStmt);
    return rc;
  }
  sqlite3_bind_int64(pStmt, 1, NSET_ALL_LO);
  sqlite3_bind_int64(pStmt, 2, NSET_ALL_HI);
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    int iLeaf = sqlite3_column_int(pStmt, 5);
    nsetRowRead(pStmt, 0, &r);
    nRow++;
    if (r.lft <= 0 || r.rgt >= NSET_LABEL_END || sqlite3_column_type(pStmt, 2) != SQLITE_INTEGER ||
        sqlite3_column_type(pStmt, 3) != SQLITE_INTEGER) {
      rc = nsetCorrupt(p, "node %lld has labels outside (0, 2^62)", r.id);
    } else if (r.lft >= r.rgt) {
      rc = nsetCorrupt(p, "node %lld has lft %lld >= rgt %lld", r.id, r.lft, r.rgt);
    } else if (iLeaf != 0 && iLeaf != 1) {
      rc = nsetCorrupt(p, "node %lld has is_leaf %d", r.id, iLeaf);
    }
    while (rc == SQLITE_OK && nOpen > 0 && aOpen[nOpen - 1].row.rgt < r.lft) {
      rc = nsetCheckLeaf(p, &aOpen[--nOpen]);
    }
    if (rc != SQLITE_OK) break;
    if (nOpen > 0) {
      NsetOpen *pTop = &aOpen[nOpen - 1];
      if (r.lft == pTop->row.lft) {
        rc = nsetCorrupt(p, "nodes %lld and %lld share the label %lld", pTop->row.id, r.id, r.lft);
      } else if (r.rgt >= pTop->row.rgt) {
        rc = nsetCorrupt(p, "node %lld (lft %lld, rgt %lld) overlaps node %lld (lft %lld, rgt %lld)", r.id,
                         r.lft, r.rgt, pTop->row.id, pTop->row.lft, pTop->row.rgt);
      } else if (r.bRoot || r.parent != pTop->row.id) {
        rc = nsetCorrupt(p, "node %lld lies directly inside node %lld but its parent is %s%lld", r.id,
                         pTop->row.id, r.bRoot ? "NULL" : "", r.bRoot ? 0 : r.parent);
      } else if ((uint64_t)r.depth != (uint64_t)pTop->row.depth + 1) {
        rc = nsetCorrupt(p, "node %lld has depth %lld, expected %lld", r.id, r.depth,
                         (int64_t)((uint64_t)pTop->row.depth + 1));
      }
      pTop->bHasChild = 1;
    } else if (!r.bRoot) {
      rc = nsetCorrupt(p, "node %lld has parent %lld but lies inside no node", r.id, r.parent);
    } else if (r.depth != 0) {
      rc = nsetCorrupt(p, "node %lld has depth %lld, expected 0", r.id, r.depth);
    }
    if (rc != SQLITE_OK) break;
    if (nOpen >= nAlloc) {
      NsetOpen *aNew;
      nAlloc = nAlloc ? nAlloc * 2 : 64;
      aNew = (NsetOpen *)sqlite3_realloc64(aOpen, (sqlite3_uint64)nAlloc * sizeof(NsetOpen));
      if (aNew == NULL) {
        rc = SQLITE_NOMEM;
        break;
      }
      aOpen = aNew;
    }
    aOpen[nOpen].row = r;
    aOpen[nOpen].bHasChild = 0;
    nOpen++;
  }
  if (rc == SQLITE_OK) rc = nsetDbError(p, sqlite3_reset(pStmt));
  nsetStmtPut(p, NSET_STMT_RANGE, pStmt);
  while (rc == SQLITE_OK && nOpen > 0) rc = nsetCheckLeaf(p, &aOpen[--nOpen]);
  sqlite3_free(aOpen);
  if (rc == SQLITE_OK) {
    /* Every row must be reachable through the label index. */
    char *zSql = sqlite3_mprintf("SELECT count(*) FROM \"%w\".\"%w_node\" NOT INDEXED", p->zDb, p->zName);
    if (zSql == NULL) return SQLITE_NOMEM;
    rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0);
    sqlite3_free(zSql);
    if (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) nTable = sqlite3_column_int64(pStmt, 0);
    rc = nsetDbError(p, sqlite3_finalize(pStmt));
    if (rc == SQLITE_OK && nTable != nRow) {
      rc = nsetCorrupt(p, "the label index has %lld rows, the table %lld", nRow, nTable);
    }
  }
  if (rc == SQLITE_OK && p->zContent) rc = nsetCheckContent(p);
  return rc;
}

/**************************************************************************
** The virtual table methods.
*/

static void nsetFree(nset_vtab *p) {
  int i;
  if (p == NULL) return;
  nsetStmtFinalizeAll(p);
  for (i = 0; i < p->nPayload; i++) sqlite3_free(p->azPayload[i]);
  sqlite3_free(p->azPayload);
  sqlite3_free(p->zDb);
  sqlite3_free(p->zName);
  sqlite3_free(p->zContent);
  sqlite3_free(p->zContentId);
  sqlite3_free(p->zContentParent);
  sqlite3_free(p->zLeafIdx);
  sqlite3_free(p->base.zErrMsg);
  sqlite3_free(p);
}

/* Length of the identifier at z (bare or quoted), or 0. Sets *pzOut to a copy, unquoted. */
static int nsetIdent(const char *z, char **pzOut) {
  int n = 0;
  *pzOut = NULL;
  if (z[0] == '"' || z[0] == '`' || z[0] == '[') {
    char cEnd = z[0] == '[' ? ']' : z[0];
    NosqlBuffer b = {0, 0, 0};
    int rc = SQLITE_OK;
    n = 1;
    for (;;) {
      if (z[n] == 0) {
        nosqlBufferFree(&b);
        return 0;
      }
      if (z[n] == cEnd) {
        if (cEnd != ']' && z[n + 1] == cEnd) {
          nosqlBufferAppend(&rc, &b, &z[n], 1);
          n += 2;
          continue;
        }
        n++;
        break;
      }
      nosqlBufferAppend(&rc, &b, &z[n], 1);
      n++;
    }
    if (rc != SQLITE_OK || b.n == 0) {
      nosqlBufferFree(&b);
      return 0;
    }
    *pzOut = (char *)b.a;
    return n;
  }
  while (z[n] == '_' || (z[n] >= 'a' && z[n] <= 'z') || (z[n] >= 'A' && z[n] <= 'Z') ||
         (n > 0 && z[n] >= '0' && z[n] <= '9') || (unsigned char)z[n] >= 0x80) {
    n++;
  }
  if (n > 0) *pzOut = sqlite3_mprintf("%.*s", n, z);
  return n;
}

/*
** Whether a declared type is a plain type name, safe to repeat in generated
** SQL: words, optionally followed by "(n)" or "(n, m)". Constraints such
** as CHECK or DEFAULT are refused because the shadow table would run them.
*/
static int nsetTypeOk(const char *z) {
  static const char *const azBanned[] = {"check",     "default", "not",        "null",
                                         "primary",   "unique",  "references", "collate",
                                         "generated", "as",      "constraint", "hidden"};
  while (*z == ' ') z++;
  while ((*z >= 'a' && *z <= 'z') || (*z >= 'A' && *z <= 'Z') || *z == '_') {
    const char *zWord = z;
    size_t i;
    while ((*z >= 'a' && *z <= 'z') || (*z >= 'A' && *z <= 'Z') || *z == '_' || (*z >= '0' && *z <= '9')) z++;
    for (i = 0; i < sizeof(azBanned) / sizeof(azBanned[0]); i++) {
      if ((size_t)(z - zWord) == strlen(azBanned[i]) &&
          sqlite3_strnicmp(zWord, azBanned[i], (int)(z - zWord)) == 0) {
        return 0;
      }
    }
    while (*z == ' ') z++;
  }
  if (*z == '(') {
    int nNum = 0;
    z++;
    for (;;) {
      while (*z == ' ') z++;
      if (*z == '+' || *z == '-') z++;
      if (!(*z >= '0' && *z <= '9')) return 0;
      while ((*z >= '0' && *z <= '9') || *z == '.') z++;
      while (*z == ' ') z++;
      nNum++;
      if (*z == ',' && nNum < 2) {
        z++;
        continue;
      }
      break;
    }
    if (*z != ')') return 0;
    z++;
    while (*z == ' ') z++;
  }
  return *z == 0;
}

/* Whether zName is a name a payload column cannot take. */
static int nsetReservedName(const nset_vtab *p, const char *zName) {
  size_t i;
  for (i = 0; i < sizeof(azNsetReserved) / sizeof(azNsetReserved[0]); i++) {
    if (sqlite3_stricmp(zName, azNsetReserved[i]) == 0) return 1;
  }
  return sqlite3_stricmp(zName, p->zName) == 0;
}

/*
** Parse the arguments: "key=value" options (content, id, parent) and
** payload column definitions "name [type]". The declared table's schema
** goes into *pzDecl, the shadow table's payload columns into *pzShadow.
*/
static int nsetParseArgs(nset_vtab *p, int argc, const char *const *argv, NosqlBuffer *pDecl,
                         NosqlBuffer *pShadow, char **pzErr) {
  int i, rc = SQLITE_OK;
  for (i = 3; i < argc; i++) {
    const char *z = argv[i];
    char *zName = NULL;
    int n;
    while (*z == ' ' || *z == '\t' || *z == '\n' || *z == '\r') z++;
    n = nsetIdent(z, &zName);
    if (n > 0 && zName == NULL) return SQLITE_NOMEM;
    if (n == 0) {
      *pzErr = sqlite3_mprintf("nested_set: bad argument '%s'", argv[i]);
      return SQLITE_ERROR;
    }
    z += n;
    while (*z == ' ' || *z == '\t' || *z == '\n' || *z == '\r') z++;
    if (*z == '=') {
      char **pzOpt = NULL;
      char *zVal = NULL;
      z++;
      while (*z == ' ' || *z == '\t') z++;
      if (sqlite3_stricmp(zName, "content") == 0) pzOpt = &p->zContent;
      if (sqlite3_stricmp(zName, "id") == 0) pzOpt = &p->zContentId;
      if (sqlite3_stricmp(zName, "parent") == 0) pzOpt = &p->zContentParent;
      if (pzOpt == NULL) {
        static const char *const azValid[] = {"content", "id", "parent", NULL};
        *pzErr = nosqlUnknownOption("nested_set", zName, -1, azValid);
        sqlite3_free(zName);
        return *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
      }
      if (*z == '\'') {
        /* A string literal: take its text. */
        const char *zEnd = strrchr(z + 1, '\'');
        if (zEnd && zEnd > z + 1 && zEnd[1] == 0) {
          zVal = sqlite3_mprintf("%.*s", (int)(zEnd - z - 1), z + 1);
          if (zVal == NULL) n = -1;
        }
        if (n >= 0) n = zVal ? (int)strlen(z) : 0;
      } else {
        n = nsetIdent(z, &zVal);
        if (n > 0 && zVal == NULL) n = -1;
      }
      if (n < 0) {
        sqlite3_free(zName);
        return SQLITE_NOMEM;
      }
      if (n == 0 || z[n] != 0 || *pzOpt != NULL) {
        *pzErr = *pzOpt ? sqlite3_mprintf("nested_set: option %s= is given twice", zName)
                        : sqlite3_mprintf("nested_set: bad value for option %s=: '%s'", zName, z);
        sqlite3_free(zVal);
        sqlite3_free(zName);
        return SQLITE_ERROR;
      }
      *pzOpt = zVal;
      sqlite3_free(zName);
      continue;
    }
    if (!nsetTypeOk(z)) {
      *pzErr = sqlite3_mprintf("nested_set: bad column definition '%s' (only a name and a type are allowed)",
                               argv[i]);
      sqlite3_free(zName);
      return SQLITE_ERROR;
    }
    if (nsetReservedName(p, zName)) {
      *pzErr = sqlite3_mprintf("nested_set: column name '%s' is reserved", zName);
      sqlite3_free(zName);
      return SQLITE_ERROR;
    }
    {
      int j;
      char **azNew;
      for (j = 0; j < p->nPayload; j++) {
        if (sqlite3_stricmp(p->azPayload[j], zName) == 0) {
          *pzErr = sqlite3_mprintf("nested_set: duplicate column name '%s'", zName);
          sqlite3_free(zName);
          return SQLITE_ERROR;
        }
      }
      azNew = (char **)sqlite3_realloc64(p->azPayload, sizeof(char *) * (sqlite3_uint64)(p->nPayload + 1));
      if (azNew == NULL) {
        sqlite3_free(zName);
        return SQLITE_NOMEM;
      }
      p->azPayload = azNew;
      p->azPayload[p->nPayload++] = zName;
    }
    nosqlBufferAppendf(&rc, pDecl, ", \"%w\" %s", zName, z);
    nosqlBufferAppendf(&rc, pShadow, ", \"%w\" %s", zName, z);
  }
  if (p->zContent == NULL && (p->zContentId || p->zContentParent)) {
    *pzErr = sqlite3_mprintf("nested_set: option %s= needs content=", p->zContentId ? "id" : "parent");
    return SQLITE_ERROR;
  }
  if (p->zContent) {
    if (p->zContentId == NULL) p->zContentId = sqlite3_mprintf("id");
    if (p->zContentParent == NULL) p->zContentParent = sqlite3_mprintf("parent");
    if (p->zContentId == NULL || p->zContentParent == NULL) return SQLITE_NOMEM;
  }
  return rc;
}

static int nsetConnectImpl(sqlite3 *db, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                           char **pzErr, int bCreate) {
  nset_vtab *p;
  NosqlBuffer decl = {0, 0, 0}, shadow = {0, 0, 0};
  int rc = SQLITE_OK;
  size_t i;
  char zSuffix[16]; /* Of the index names (nsetFreeIndexSuffix) */

  p = (nset_vtab *)sqlite3_malloc64(sizeof(*p));
  if (p == NULL) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->db = db;
  p->zDb = sqlite3_mprintf("%s", argv[1]);
  p->zName = sqlite3_mprintf("%s", argv[2]);
  if (p->zDb == NULL || p->zName == NULL) {
    rc = SQLITE_NOMEM;
    goto connect_out;
  }
  nosqlBufferAppend(&rc, &decl,
                    "CREATE TABLE x(id INTEGER, parent INTEGER, lft INTEGER, rgt INTEGER, depth INTEGER, "
                    "leaf_lo INTEGER, leaf_hi INTEGER, is_leaf INTEGER",
                    -1 + (int)sizeof("CREATE TABLE x(id INTEGER, parent INTEGER, lft INTEGER, rgt INTEGER, "
                                     "depth INTEGER, leaf_lo INTEGER, leaf_hi INTEGER, is_leaf INTEGER"));
  if (rc != SQLITE_OK) goto connect_out;
  rc = nsetParseArgs(p, argc, argv, &decl, &shadow, pzErr);
  if (rc != SQLITE_OK) goto connect_out;
  nosqlBufferAppend(&rc, &decl, ", before HIDDEN", 15);
  for (i = 0; i < NSET_N_INPUT; i++) nosqlBufferAppendf(&rc, &decl, ", %s HIDDEN", azNsetInput[i]);
  nosqlBufferAppendf(&rc, &decl, ", \"%w\" HIDDEN)", p->zName);
  if (rc != SQLITE_OK) goto connect_out;
  rc = sqlite3_declare_vtab(db, (const char *)decl.a);
  if (rc != SQLITE_OK) {
    *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
    goto connect_out;
  }
  /* Its writes go to its own shadow table only (as FTS5's): usable in
  ** triggers (content= mirroring) and views with trusted_schema=OFF. */
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);

  if (bCreate) {
    char *zSql;
    if (p->zContent) {
      /* The content table must exist and have the named columns. */
      int j;
      for (j = -1; j < p->nPayload + 2 && rc == SQLITE_OK; j++) {
        sqlite3_stmt *pStmt = NULL;
        const char *zCol = j < 0    ? NULL
                           : j == 0 ? p->zContentId
                           : j == 1 ? p->zContentParent
                                    : p->azPayload[j - 2];
        char *zQ = zCol ? sqlite3_mprintf("SELECT s.\"%w\" FROM \"%w\".\"%w\" AS s LIMIT 0", zCol, p->zDb,
                                          p->zContent)
                        : sqlite3_mprintf("SELECT 1 FROM \"%w\".\"%w\" LIMIT 0", p->zDb, p->zContent);
        if (zQ == NULL) {
          rc = SQLITE_NOMEM;
          break;
        }
        rc = sqlite3_prepare_v2(db, zQ, -1, &pStmt, 0);
        sqlite3_free(zQ);
        sqlite3_finalize(pStmt);
        if (rc != SQLITE_OK) {
          *pzErr = zCol ? sqlite3_mprintf("nested_set: content table %s has no column %s", p->zContent, zCol)
                        : sqlite3_mprintf("nested_set: content table %s does not exist", p->zContent);
        }
      }
      if (rc != SQLITE_OK) goto connect_out;
    }
    rc = nsetFreeIndexSuffix(p, zSuffix, sizeof(zSuffix));
    if (rc != SQLITE_OK) goto connect_out;
    zSql = sqlite3_mprintf(
        "CREATE TABLE \"%w\".\"%w_node\"(id INTEGER PRIMARY KEY, parent INTEGER, lft INTEGER NOT NULL, "
        "rgt INTEGER NOT NULL, depth INTEGER NOT NULL, is_leaf INTEGER NOT NULL%s);"
        "CREATE INDEX \"%w\".\"%w_node_lft%s\" ON \"%w_node\"(lft, rgt, depth, parent, is_leaf);"
        "CREATE INDEX \"%w\".\"%w_node_parent%s\" ON \"%w_node\"(parent, lft);"
        "CREATE INDEX \"%w\".\"%w_node_leaf%s\" ON \"%w_node\"(lft, rgt, depth, parent, is_leaf) WHERE "
        "is_leaf = 1;",
        p->zDb, p->zName, p->zContent ? "" : (shadow.a ? (const char *)shadow.a : ""), p->zDb, p->zName,
        zSuffix, p->zName, p->zDb, p->zName, zSuffix, p->zName, p->zDb, p->zName, zSuffix, p->zName);
    if (zSql == NULL) {
      rc = SQLITE_NOMEM;
      goto connect_out;
    }
    rc = sqlite3_exec(db, zSql, 0, 0, 0);
    sqlite3_free(zSql);
    if (rc != SQLITE_OK) {
      *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
      goto connect_out;
    }
    if (p->zContent) {
      rc = nsetRebuild(p);
      if (rc != SQLITE_OK) {
        *pzErr = sqlite3_mprintf("%s", p->base.zErrMsg ? p->base.zErrMsg : sqlite3_errstr(rc));
        nsetStmtFinalizeAll(p);
        goto connect_out;
      }
    }
  }

connect_out:
  nosqlBufferFree(&decl);
  nosqlBufferFree(&shadow);
  if (rc != SQLITE_OK) {
    nsetFree(p);
    return rc;
  }
  *ppVtab = &p->base;
  return SQLITE_OK;
}

static int nsetCreate(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                      char **pzErr) {
  (void)pAux;
  return nsetConnectImpl(db, argc, argv, ppVtab, pzErr, 1);
}

static int nsetConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                       char **pzErr) {
  (void)pAux;
  return nsetConnectImpl(db, argc, argv, ppVtab, pzErr, 0);
}

static int nsetDisconnect(sqlite3_vtab *pVtab) {
  nsetFree((nset_vtab *)pVtab);
  return SQLITE_OK;
}

static int nsetDestroy(sqlite3_vtab *pVtab) {
  nset_vtab *p = (nset_vtab *)pVtab;
  char *zSql;
  int rc;
  nsetStmtFinalizeAll(p);
  zSql = sqlite3_mprintf("DROP TABLE IF EXISTS \"%w\".\"%w_node\"", p->zDb, p->zName);
  if (zSql == NULL) return SQLITE_NOMEM;
  rc = sqlite3_exec(p->db, zSql, 0, 0, 0);
  sqlite3_free(zSql);
  if (rc != SQLITE_OK) return nsetDbError(p, rc);
  nsetFree(p);
  return SQLITE_OK;
}

/*
** ALTER TABLE RENAME: the shadow table follows. Its indexes keep their
** names, as the indexes of ordinary tables do (nothing refers to them by
** name), so a new table may not reuse the old name.
*/
static int nsetRename(sqlite3_vtab *pVtab, const char *zNew) {
  nset_vtab *p = (nset_vtab *)pVtab;
  char *zSql, *zNewName;
  int rc;
  nsetStmtFinalizeAll(p);
  zSql = sqlite3_mprintf("ALTER TABLE \"%w\".\"%w_node\" RENAME TO \"%w_node\"", p->zDb, p->zName, zNew);
  zNewName = sqlite3_mprintf("%s", zNew);
  if (zSql == NULL || zNewName == NULL) {
    sqlite3_free(zSql);
    sqlite3_free(zNewName);
    return SQLITE_NOMEM;
  }
  rc = sqlite3_exec(p->db, zSql, 0, 0, 0);
  sqlite3_free(zSql);
  if (rc != SQLITE_OK) {
    sqlite3_free(zNewName);
    return nsetDbError(p, rc);
  }
  sqlite3_free(p->zName);
  p->zName = zNewName;
  return SQLITE_OK;
}

/*
** The plan. ext/plan.c finds the constraints and hands xFilter their
** values, one slot per column (id, rowid, parent, depth, the six inputs:
** idxStr starts with its codes, e.g. "e=d}"). Each argv[] entry then has
** one of these codes, which idxStr repeats after a space (e.g. "D}"):
**
**   'i'  id = X (or rowid = X)         'D'  descendant_of = X
**   'S'  subtree_of = X                'A'  ancestor_of = X
**   'C'  children_of = X, parent = X   'B'  siblings_of = X
**   'L'  leaves_of = X
**   '='  depth = V   '<' depth < V   '{' depth <= V   '>' depth > V   '}' depth >= V
**
** idxNum: bits 0-7 hold 1 + the position in argv[] of the constraint that
** drives the scan (0: no driver, scan everything in lft order); bit 8
** (NSET_PLAN_ROOTS) means "parent IS NULL"; bit 9 (NSET_PLAN_ID_ONLY)
** means that the statement reads no structural column but id (payload
** columns and the inputs are found from the id), so a scan whose driver is
** its only constraint reads ids alone from a covering index. Every
** constraint, the driver included, is also applied to each row, so several
** inputs combine with AND, except where the source already guarantees it.
** Every plan returns rows in lft order (preorder; for ancestors, root
** first), so ORDER BY lft is consumed.
*/
#define NSET_PLAN_ROOTS 0x100
#define NSET_PLAN_ID_ONLY 0x200

/* The driver preference: earlier codes make cheaper scans. */
static const char nsetDriverOrder[] = "iACBLSD";

/* Planning slots: the columns plan.c serves, and each slot's code (depth: its operator's). */
#define NSET_SLOT_DEPTH 3
#define NSET_N_SLOT (4 + NSET_N_INPUT)
static const char nsetSlotCode[] = "iiC?DSACBL";

/* The code of argv[] entry i of plan idxStr (plan.c's two characters per entry). */
static char nsetArgCode(const char *idxStr, int i) {
  int iSlot = idxStr[2 * i] - 'a';
  if (iSlot < 0 || iSlot >= NSET_N_SLOT) return 0;
  return iSlot == NSET_SLOT_DEPTH ? idxStr[2 * i + 1] : nsetSlotCode[iSlot];
}

/*
** xBestIndex (long: the input rules, plan.c's slots, the driver choice and
** its estimates, in the order of the plan encoding above).
*/
static int nsetBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo) {
  nset_vtab *p = (nset_vtab *)pVtab;
  int iFirstInput = NSET_COL_PAYLOAD + p->nPayload + NSET_HID_INPUT;
  NosqlPlanCol aCol[NSET_N_SLOT];
  NosqlPlan plan;
  char aCode[NSET_N_SLOT * 3 + 1];
  int bRoots = 0, i, rc, iDriver = -1, iRank = (int)sizeof(nsetDriverOrder);
  double rCost, rRows;

  for (i = 0; i < pInfo->nConstraint; i++) {
    const struct sqlite3_index_constraint *pC = &pInfo->aConstraint[i];
    int iCol = pC->iColumn;
    if (iCol >= iFirstInput && iCol < iFirstInput + NSET_N_INPUT) {
      /* Inputs are read from = only. Any other condition (<>, >, IS NULL,
      ** LIKE, and NOT (x = v), which SQLite never passes here) is left to
      ** SQLite, and reading the column without a value from = is an error
      ** (nsetColumn; docs/nested_set.md). An input whose value is not known
      ** yet refuses the plan. */
      if (pC->op == SQLITE_INDEX_CONSTRAINT_EQ && !pC->usable) return SQLITE_CONSTRAINT;
    } else if (pC->usable && iCol == NSET_COL_PARENT && pC->op == SQLITE_INDEX_CONSTRAINT_ISNULL) {
      bRoots = 1;
      pInfo->aConstraintUsage[i].omit = 1;
    }
  }
  /* Node ids are compared as integers: any collation serves. depth
  ** constraints only prune: SQLite checks them again. */
  for (i = 0; i < NSET_N_SLOT; i++) {
    aCol[i].iColumn = i == 0   ? NSET_COL_ID
                      : i == 1 ? -1
                      : i == 2 ? NSET_COL_PARENT
                      : i == 3 ? NSET_COL_DEPTH
                               : iFirstInput + i - 4;
    aCol[i].mOp = i == NSET_SLOT_DEPTH ? NOSQL_OP_EQ | NOSQL_OP_RANGE : NOSQL_OP_EQ;
    aCol[i].zColl = NOSQL_COLL_ANY;
    aCol[i].bExact = i != NSET_SLOT_DEPTH;
    aCol[i].bRequired = 0;
  }
  rc = nosqlPlanFind(pInfo, aCol, NSET_N_SLOT, &plan);
  if (rc == SQLITE_OK) rc = nosqlPlanCommit(pInfo, aCol, &plan);
  if (rc != SQLITE_OK) return rc;
  /* The codes in argv[] order, and the driver: the cheapest source. */
  for (i = 0; i < plan.nArg; i++) {
    const char *zRank;
    aCode[i] = nsetArgCode(pInfo->idxStr, i);
    zRank = strchr(nsetDriverOrder, aCode[i]);
    if (zRank && (int)(zRank - nsetDriverOrder) < iRank) {
      iRank = (int)(zRank - nsetDriverOrder);
      iDriver = i;
    }
  }
  aCode[plan.nArg] = 0;
  if (plan.nArg > 0) {
    /* The codes again after a space, readable in EXPLAIN QUERY PLAN. */
    char *zStr = sqlite3_mprintf("%s %s", pInfo->idxStr, aCode);
    if (zStr == NULL) return SQLITE_NOMEM;
    sqlite3_free(pInfo->idxStr);
    pInfo->idxStr = zStr;
  }

  switch (iDriver >= 0 ? aCode[iDriver] : (bRoots ? 'R' : 0)) {
    case 'i':
      rCost = 1;
      rRows = 1;
      pInfo->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
      break;
    case 'A':
      rCost = 20;
      rRows = 10;
      break;
    case 'C':
    case 'B':
    case 'R':
      rCost = 30;
      rRows = 20;
      break;
    case 'L':
    case 'S':
    case 'D':
      rCost = 2000;
      rRows = 1000;
      break;
    default:
      rCost = 4e6;
      rRows = 1e6;
      break;
  }
  pInfo->estimatedCost = rCost;
  pInfo->estimatedRows = (sqlite3_int64)rRows;
  pInfo->idxNum = (iDriver + 1) | (bRoots ? NSET_PLAN_ROOTS : 0);
  /* Columns parent..is_leaf and before need the whole row. colUsed bit 63
  ** stands for every column from 63 on. */
  {
    sqlite3_uint64 mStruct = (((sqlite3_uint64)1 << (NSET_COL_IS_LEAF + 1)) - 2);
    int iBefore = NSET_COL_PAYLOAD + p->nPayload + NSET_HID_BEFORE;
    mStruct |= iBefore >= 63 ? ((sqlite3_uint64)1 << 63) : ((sqlite3_uint64)1 << iBefore);
    if ((pInfo->colUsed & mStruct) == 0) pInfo->idxNum |= NSET_PLAN_ID_ONLY;
  }
  if (pInfo->nOrderBy == 1 && pInfo->aOrderBy[0].iColumn == NSET_COL_LFT && !pInfo->aOrderBy[0].desc) {
    pInfo->orderByConsumed = 1;
  }
  return SQLITE_OK;
}

static int nsetOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor) {
  nset_cursor *pCur = (nset_cursor *)nosqlCursorNew(sizeof(nset_cursor), ppCursor);
  (void)pVtab;
  if (pCur == NULL) return SQLITE_NOMEM;
  pCur->bEof = 1;
  return SQLITE_OK;
}

/* Release what one scan holds, keeping the cursor. */
static void nsetCursorReset(nset_cursor *pCur) {
  nset_vtab *p = (nset_vtab *)pCur->base.pVtab;
  int i;
  nsetStmtPut(p, pCur->eStmt, pCur->pStmt);
  pCur->pStmt = NULL;
  nsetStmtPut(p, NSET_STMT_PAYLOAD, pCur->pPayload);
  pCur->pPayload = NULL;
  pCur->bPayload = 0;
  sqlite3_free(pCur->aArray);
  pCur->aArray = NULL;
  pCur->nArray = pCur->iArray = 0;
  for (i = 0; i < NSET_N_INPUT; i++) {
    sqlite3_value_free(pCur->apInput[i]);
    pCur->apInput[i] = NULL;
  }
  pCur->nFilter = 0;
  pCur->bRootsOnly = 0;
  pCur->bRange = 0;
  pCur->bEof = 1;
}

static int nsetClose(sqlite3_vtab_cursor *pCursor) {
  nset_cursor *pCur = (nset_cursor *)pCursor;
  nsetCursorReset(pCur);
  sqlite3_free(pCur);
  return SQLITE_OK;
}

/* Whether row r passes every constraint of the scan. */
static int nsetRowMatches(const nset_cursor *pCur, const NsetRow *r) {
  int i;
  if (r->depth < pCur->iMinDepth || r->depth > pCur->iMaxDepth) return 0;
  if (pCur->bRootsOnly && !r->bRoot) return 0;
  for (i = 0; i < pCur->nFilter; i++) {
    const NsetRow *t = &pCur->aTarget[i];
    switch (pCur->aCode[i]) {
      case 'i':
        if (r->id != t->id) return 0;
        break;
      case 'D':
        if (!(t->lft < r->lft && r->lft < t->rgt)) return 0;
        break;
      case 'S':
        if (!(t->lft <= r->lft && r->lft <= t->rgt)) return 0;
        break;
      case 'A':
        if (!(r->lft < t->lft && t->rgt < r->rgt)) return 0;
        break;
      case 'C':
        if (r->bRoot || r->parent != t->id) return 0;
        break;
      case 'B':
        if (r->id == t->id || r->bRoot != t->bRoot || (!r->bRoot && r->parent != t->parent)) return 0;
        break;
      case 'L':
        if (!r->bLeaf || !(t->lft <= r->lft && r->lft <= t->rgt)) return 0;
        break;
      default:
        break;
    }
  }
  return 1;
}

/* Move to the next row of the source, unfiltered. */
static int nsetSourceNext(nset_cursor *pCur) {
  nset_vtab *p = (nset_vtab *)pCur->base.pVtab;
  pCur->bFull = !pCur->bIdOnly;
  if (pCur->eSrc == NSET_SRC_ARRAY) {
    if (pCur->iArray >= pCur->nArray) {
      pCur->bEof = 1;
    } else {
      pCur->row = pCur->aArray[pCur->iArray++];
    }
    return SQLITE_OK;
  }
  if (pCur->pStmt == NULL) {
    pCur->bEof = 1;
    return SQLITE_OK;
  }
  /* Depth pruning: below a node at the depth limit, nothing qualifies, so
  ** a range scan seeks past its subtree. */
  if (pCur->bRange && !pCur->bIdOnly && !pCur->bEof && pCur->row.depth >= pCur->iMaxDepth &&
      !pCur->row.bLeaf && pCur->row.rgt < pCur->iRangeHi) {
    /* The seek must move forward, or a damaged row would loop forever. */
    if (pCur->row.rgt <= pCur->row.lft) {
      pCur->bEof = 1;
      return nsetCorrupt(p, "node %lld has lft %lld >= rgt %lld", pCur->row.id, pCur->row.lft, pCur->row.rgt);
    }
    sqlite3_reset(pCur->pStmt);
    sqlite3_bind_int64(pCur->pStmt, 1, pCur->row.rgt + 1);
    sqlite3_bind_int64(pCur->pStmt, 2, pCur->iRangeHi);
  }
  switch (sqlite3_step(pCur->pStmt)) {
    case SQLITE_ROW:
      if (pCur->bIdOnly) {
        pCur->row.id = sqlite3_column_int64(pCur->pStmt, 0);
      } else {
        nsetRowRead(pCur->pStmt, 0, &pCur->row);
      }
      pCur->bEof = 0;
      return SQLITE_OK;
    case SQLITE_DONE:
      pCur->bEof = 1;
      return SQLITE_OK;
    default:
      pCur->bEof = 1;
      return nsetDbError(p, sqlite3_reset(pCur->pStmt));
  }
}

static int nsetNext(sqlite3_vtab_cursor *pCursor) {
  nset_cursor *pCur = (nset_cursor *)pCursor;
  int rc;
  pCur->bPayload = 0;
  do {
    rc = nsetSourceNext(pCur);
  } while (rc == SQLITE_OK && !pCur->bEof && pCur->bCheck && !nsetRowMatches(pCur, &pCur->row));
  pCur->iRowid++;
  return rc;
}

/* Narrow [*piMin, *piMax] by "depth OP v"; only numeric v prunes. */
static void nsetDepthBound(char cOp, sqlite3_value *pVal, int64_t *piMin, int64_t *piMax) {
  double v, lo, hi;
  int eType = sqlite3_value_numeric_type(pVal);
  if (eType != SQLITE_INTEGER && eType != SQLITE_FLOAT) return;
  v = sqlite3_value_double(pVal);
  if (eType == SQLITE_INTEGER) {
    int64_t i = sqlite3_value_int64(pVal);
    switch (cOp) {
      case '=':
        if (i > *piMin) *piMin = i;
        if (i < *piMax) *piMax = i;
        break;
      case '<':
        if (i - 1 < *piMax && i > INT64_MIN) *piMax = i - 1;
        break;
      case '{':
        if (i < *piMax) *piMax = i;
        break;
      case '>':
        if (i + 1 > *piMin && i < INT64_MAX) *piMin = i + 1;
        break;
      case '}':
        if (i > *piMin) *piMin = i;
        break;
      default:
        break;
    }
    return;
  }
  /* Depths are small integers: clamp reals into a safe range first. */
  if (v != v) return;
  if (v > 1e15) v = 1e15;
  if (v < -1e15) v = -1e15;
  lo = -1e15;
  hi = 1e15;
  switch (cOp) {
    case '=':
      if (floor(v) != v) {
        lo = 1;
        hi = 0;
      } else {
        lo = hi = v;
      }
      break;
    case '<':
      hi = ceil(v) - 1;
      break;
    case '{':
      hi = floor(v);
      break;
    case '>':
      lo = floor(v) + 1;
      break;
    case '}':
      lo = ceil(v);
      break;
    default:
      break;
  }
  if ((int64_t)lo > *piMin) *piMin = (int64_t)lo;
  if ((int64_t)hi < *piMax) *piMax = (int64_t)hi;
}

/*
** Node *pT (only its id set on entry) and its ancestors: *pT receives the
** node's row, the cursor's array its ancestors, root first; *pbFound says
** whether the node exists. The parent chain is read NSET_CHAIN levels per
** statement run (a run costs far more than a level), and the join admits
** a parent only if it encloses the level below, so corrupt links fail
** instead of looping: lft strictly decreases going up.
*/
static int nsetLoadAncestors(nset_cursor *pCur, NsetRow *pT, int *pbFound) {
  nset_vtab *p = (nset_vtab *)pCur->base.pVtab;
  sqlite3_stmt *pStmt = NULL;
  NsetRow cur = {0}; /* The last level read; zeroed so every path starts defined */
  int64_t nAlloc = 0, i;
  int bTarget = 1; /* Level 0 of the next run is the target itself */
  int eKind = pCur->bIdOnly ? NSET_STMT_CHAIN_ID : NSET_STMT_CHAIN;
  int nCol = pCur->bIdOnly ? 2 : 6; /* Columns per level */
  int rc = nsetStmtGet(p, eKind, &pStmt);
  *pbFound = 0;
  cur.id = pT->id;
  cur.bRoot = 0;
  while (rc == SQLITE_OK) {
    int bRow, iLevel;
    /* A later run starts again at the last level read, so that the join
    ** also checks the link between the two runs. */
    sqlite3_bind_int64(pStmt, 1, cur.id);
    bRow = sqlite3_step(pStmt) == SQLITE_ROW;
    for (iLevel = bTarget ? 0 : 1; bRow && iLevel < NSET_CHAIN; iLevel++) {
      NsetRow up;
      if (nCol == 2) {
        sqlite3_value *pVal = sqlite3_column_value(pStmt, iLevel * 2);
        if (sqlite3_value_type(pVal) == SQLITE_NULL) break;
        memset(&up, 0, sizeof(up));
        up.id = sqlite3_value_int64(pVal);
        pVal = sqlite3_column_value(pStmt, iLevel * 2 + 1);
        up.bRoot = sqlite3_value_type(pVal) == SQLITE_NULL;
        up.parent = up.bRoot ? 0 : sqlite3_value_int64(pVal);
      } else if (!nsetRowRead(pStmt, iLevel * 6, &up)) {
        break;
      }
      if (bTarget) {
        *pT = up;
        *pbFound = 1;
        bTarget = 0;
      } else {
        if (pCur->nArray >= nAlloc) {
          NsetRow *aNew;
          nAlloc = nAlloc ? nAlloc * 2 : 16;
          aNew = (NsetRow *)sqlite3_realloc64(pCur->aArray, (sqlite3_uint64)nAlloc * sizeof(NsetRow));
          if (aNew == NULL) {
            rc = SQLITE_NOMEM;
            break;
          }
          pCur->aArray = aNew;
        }
        pCur->aArray[pCur->nArray++] = up;
      }
      cur = up;
      if (cur.bRoot) break;
    }
    if (rc == SQLITE_OK) rc = nsetDbError(p, sqlite3_reset(pStmt));
    if (rc != SQLITE_OK || !*pbFound || cur.bRoot) break;
    if (iLevel < NSET_CHAIN) {
      /* The chain stopped below a root: the parent is missing or does not
      ** enclose its child. Find out which, for the message. */
      NsetRow up;
      int bUp = 0;
      rc = nsetFind(p, cur.parent, &up, &bUp);
      if (rc == SQLITE_OK) {
        rc = nsetCorrupt(p, "node %lld has parent %lld, which %s", cur.id, cur.parent,
                         bUp ? "does not enclose it" : "does not exist");
      }
    }
  }
  nsetStmtPut(p, eKind, pStmt);
  for (i = 0; rc == SQLITE_OK && i < pCur->nArray / 2; i++) {
    NsetRow tmp = pCur->aArray[i];
    pCur->aArray[i] = pCur->aArray[pCur->nArray - 1 - i];
    pCur->aArray[pCur->nArray - 1 - i] = tmp;
  }
  return rc;
}

/* Start a statement source of kind eKind with up to two integer bounds. */
static int nsetStartStmt(nset_cursor *pCur, int eKind, int nArg, int64_t a1, int64_t a2) {
  nset_vtab *p = (nset_vtab *)pCur->base.pVtab;
  int rc = nsetStmtGet(p, eKind, &pCur->pStmt);
  if (rc != SQLITE_OK) return rc;
  pCur->eStmt = eKind;
  pCur->eSrc = NSET_SRC_STMT;
  if (nArg > 0) sqlite3_bind_int64(pCur->pStmt, 1, a1);
  if (nArg > 1) sqlite3_bind_int64(pCur->pStmt, 2, a2);
  pCur->bRange = eKind == NSET_STMT_RANGE;
  pCur->iRangeHi = a2;
  return SQLITE_OK;
}

static int nsetFilter(sqlite3_vtab_cursor *pCursor, int idxNum, const char *idxStr, int argc,
                      sqlite3_value **argv) {
  nset_cursor *pCur = (nset_cursor *)pCursor;
  nset_vtab *p = (nset_vtab *)pCursor->pVtab;
  int iDriver = (idxNum & 0xff) - 1;
  int i, rc = SQLITE_OK;
  char cDriver = 0;
  NsetRow *t = NULL;

  nsetCursorReset(pCur);
  pCur->iRowid = 0;
  pCur->iMinDepth = INT64_MIN;
  pCur->iMaxDepth = INT64_MAX;
  pCur->bRootsOnly = (idxNum & NSET_PLAN_ROOTS) != 0;
  if (argc > NSET_MAX_ARG || (argc > 0 && (idxStr == NULL || (int)strcspn(idxStr, " ") != 2 * argc))) {
    nosqlVtabError(pCursor->pVtab, "nested_set: bad plan '%s'", idxStr ? idxStr : "");
    return SQLITE_ERROR;
  }
  for (i = 0; i < argc; i++) {
    char c = nsetArgCode(idxStr, i);
    const char *zInput = c ? strchr(nsetInputCode, c) : NULL;
    int64_t id;
    int bFound = 0;
    if (strchr("=<{>}", c)) {
      nsetDepthBound(c, argv[i], &pCur->iMinDepth, &pCur->iMaxDepth);
      continue;
    }
    if (zInput && pCur->apInput[zInput - nsetInputCode] == NULL) {
      pCur->apInput[zInput - nsetInputCode] = sqlite3_value_dup(argv[i]);
      if (pCur->apInput[zInput - nsetInputCode] == NULL) return SQLITE_NOMEM;
    }
    /* A NULL, non-integer or unknown node matches nothing. */
    if (!nsetValueId(argv[i], &id)) return SQLITE_OK;
    if (c == 'i' || c == 'C' || (c == 'A' && i == iDriver)) {
      /* Only the id is needed; skip the lookup (a driving ancestor_of
      ** reads its node along with the ancestors). */
      memset(&pCur->aTarget[pCur->nFilter], 0, sizeof(NsetRow));
      pCur->aTarget[pCur->nFilter].id = id;
    } else {
      rc = nsetFind(p, id, &pCur->aTarget[pCur->nFilter], &bFound);
      if (rc != SQLITE_OK) return rc;
      if (!bFound) return SQLITE_OK;
    }
    if (i == iDriver) {
      cDriver = c;
      t = &pCur->aTarget[pCur->nFilter];
    }
    pCur->aCode[pCur->nFilter++] = c;
  }
  if (pCur->iMinDepth > pCur->iMaxDepth) return SQLITE_OK;
  /* Each driver's source yields exactly the rows its own constraint
  ** admits (siblings_of excepted: the children of the parent include the
  ** node itself), so a lone driver needs no per-row check. */
  pCur->bCheck = pCur->iMinDepth != INT64_MIN || pCur->iMaxDepth != INT64_MAX || pCur->bRootsOnly ||
                 pCur->nFilter > 1 ||
                 (pCur->nFilter == 1 && (cDriver == 0 || strchr("iDSLCA", cDriver) == NULL));
  /* Without a per-row check, a plan that reads only ids can scan ids. */
  pCur->bIdOnly =
      (idxNum & NSET_PLAN_ID_ONLY) && !pCur->bCheck && (cDriver == 0 || strchr("DSLCA", cDriver) != NULL);
  pCur->bFull = !pCur->bIdOnly;

  switch (cDriver) {
    case 'i':
      rc = nsetStartStmt(pCur, NSET_STMT_BYID, 1, t->id, 0);
      break;
    case 'A': {
      int bFound = 0;
      pCur->eSrc = NSET_SRC_ARRAY;
      rc = nsetLoadAncestors(pCur, t, &bFound);
      if (rc != SQLITE_OK || !bFound) return rc;
      break;
    }
    case 'C':
      rc = nsetStartStmt(pCur, pCur->bIdOnly ? NSET_STMT_CHILDREN_ID : NSET_STMT_CHILDREN, 1, t->id, 0);
      break;
    case 'B':
      if (t->bRoot)
        rc = nsetStartStmt(pCur, NSET_STMT_ROOTS, 0, 0, 0);
      else
        rc = nsetStartStmt(pCur, NSET_STMT_CHILDREN, 1, t->parent, 0);
      break;
    case 'L':
      rc = nsetStartStmt(pCur, pCur->bIdOnly ? NSET_STMT_LEAVES_ID : NSET_STMT_LEAVES, 2, t->lft, t->rgt);
      break;
    case 'S':
      rc = nsetStartStmt(pCur, pCur->bIdOnly ? NSET_STMT_RANGE_ID : NSET_STMT_RANGE, 2, t->lft, t->rgt);
      break;
    case 'D':
      /* Stored labels are untrusted: lft + 1 and rgt - 1 cannot overflow once lft < rgt. */
      if (t->lft >= t->rgt)
        return nsetCorrupt(p, "node %lld has lft %lld >= rgt %lld", t->id, t->lft, t->rgt);
      rc = nsetStartStmt(pCur, pCur->bIdOnly ? NSET_STMT_RANGE_ID : NSET_STMT_RANGE, 2, t->lft + 1,
                         t->rgt - 1);
      break;
    default:
      if (pCur->bRootsOnly)
        rc = nsetStartStmt(pCur, NSET_STMT_ROOTS, 0, 0, 0);
      else
        rc = nsetStartStmt(pCur, pCur->bIdOnly ? NSET_STMT_RANGE_ID : NSET_STMT_RANGE, 2, NSET_ALL_LO,
                           NSET_ALL_HI);
      break;
  }
  if (rc != SQLITE_OK) return rc;
  pCur->bEof = 0;
  pCur->row.depth = INT64_MIN; /* No pruning before the first row */
  pCur->row.bLeaf = 1;
  rc = nsetNext(pCursor);
  pCur->iRowid = 0;
  return rc;
}

static int nsetEof(sqlite3_vtab_cursor *pCursor) { return ((nset_cursor *)pCursor)->bEof; }

/* Probe for the first or last leaf label under the current row. */
static int nsetLeafColumn(nset_cursor *pCur, sqlite3_context *ctx, int bHi) {
  nset_vtab *p = (nset_vtab *)pCur->base.pVtab;
  sqlite3_stmt *pStmt = NULL;
  int eKind = bHi ? NSET_STMT_LEAF_LAST : NSET_STMT_LEAF_FIRST;
  int bFound = 0, rc;
  int64_t iVal = 0;
  if (pCur->row.bLeaf) {
    sqlite3_result_int64(ctx, pCur->row.lft);
    return SQLITE_OK;
  }
  rc = nsetStmtGet(p, eKind, &pStmt);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(pStmt, 1, bHi ? pCur->row.rgt : pCur->row.lft);
  rc = nsetProbe(p, eKind, pStmt, &bFound, &iVal);
  if (rc != SQLITE_OK) return rc;
  if (!bFound || iVal <= pCur->row.lft || iVal >= pCur->row.rgt) {
    return nsetCorrupt(p, "inner node %lld has no leaf inside it", pCur->row.id);
  }
  sqlite3_result_int64(ctx, iVal);
  return SQLITE_OK;
}

static int nsetColumn(sqlite3_vtab_cursor *pCursor, sqlite3_context *ctx, int iCol) {
  nset_cursor *pCur = (nset_cursor *)pCursor;
  nset_vtab *p = (nset_vtab *)pCursor->pVtab;
  int iHid = iCol - NSET_COL_PAYLOAD - p->nPayload;
  int rc = SQLITE_OK;
  /* In an UPDATE, SQLite asks for the columns it does not change: say
  ** "unchanged" for all but id, parent and stored payload, which
  ** nsetUpdate() reads from argv. */
  if (iCol > NSET_COL_PARENT &&
      (iCol >= NSET_COL_PAYLOAD + p->nPayload || p->zContent || iCol < NSET_COL_PAYLOAD) &&
      sqlite3_vtab_nochange(ctx)) {
    return SQLITE_OK;
  }
  if (!pCur->bFull && ((iCol > NSET_COL_ID && iCol < NSET_COL_PAYLOAD) || iHid == NSET_HID_BEFORE)) {
    /* The plan promised not to need this (NSET_PLAN_ID_ONLY); read the
    ** row rather than fail if SQLite asks anyway. */
    int bFound = 0;
    rc = nsetFind(p, pCur->row.id, &pCur->row, &bFound);
    if (rc != SQLITE_OK) return rc;
    if (!bFound) return nsetCorrupt(p, "node %lld vanished from the node table", pCur->row.id);
    pCur->bFull = 1;
  }
  switch (iCol) {
    case NSET_COL_ID:
      sqlite3_result_int64(ctx, pCur->row.id);
      return SQLITE_OK;
    case NSET_COL_PARENT:
      if (!pCur->row.bRoot) sqlite3_result_int64(ctx, pCur->row.parent);
      return SQLITE_OK;
    case NSET_COL_LFT:
      sqlite3_result_int64(ctx, pCur->row.lft);
      return SQLITE_OK;
    case NSET_COL_RGT:
      sqlite3_result_int64(ctx, pCur->row.rgt);
      return SQLITE_OK;
    case NSET_COL_DEPTH:
      sqlite3_result_int64(ctx, pCur->row.depth);
      return SQLITE_OK;
    case NSET_COL_IS_LEAF:
      sqlite3_result_int(ctx, pCur->row.bLeaf);
      return SQLITE_OK;
    case NSET_COL_LEAF_LO:
    case NSET_COL_LEAF_HI:
      return nsetLeafColumn(pCur, ctx, iCol == NSET_COL_LEAF_HI);
    default:
      break;
  }
  if (iHid < 0) {
    /* A payload column: one lookup per row, on first use. */
    if (!pCur->bPayload) {
      if (pCur->pPayload == NULL) rc = nsetStmtGet(p, NSET_STMT_PAYLOAD, &pCur->pPayload);
      if (rc != SQLITE_OK) return rc;
      sqlite3_reset(pCur->pPayload);
      sqlite3_bind_int64(pCur->pPayload, 1, pCur->row.id);
      rc = sqlite3_step(pCur->pPayload);
      if (rc != SQLITE_ROW && rc != SQLITE_DONE) return nsetDbError(p, sqlite3_reset(pCur->pPayload));
      if (rc == SQLITE_DONE && p->zContent == NULL) {
        return nsetCorrupt(p, "node %lld vanished from the node table", pCur->row.id);
      }
      pCur->bPayload = rc == SQLITE_ROW ? 1 : -1;
    }
    if (pCur->bPayload > 0)
      sqlite3_result_value(ctx, sqlite3_column_value(pCur->pPayload, iCol - NSET_COL_PAYLOAD));
    return SQLITE_OK;
  }
  if (iHid == NSET_HID_BEFORE) {
    /* The next sibling's id: "this node is before that one". */
    sqlite3_stmt *pStmt = NULL;
    int bFound = 0;
    int64_t iNext = 0;
    rc = nsetStmtGet(p, NSET_STMT_NEXT_SIB, &pStmt);
    if (rc != SQLITE_OK) return rc;
    if (pCur->row.bRoot)
      sqlite3_bind_null(pStmt, 1);
    else
      sqlite3_bind_int64(pStmt, 1, pCur->row.parent);
    sqlite3_bind_int64(pStmt, 2, pCur->row.lft);
    rc = nsetProbe(p, NSET_STMT_NEXT_SIB, pStmt, &bFound, &iNext);
    if (rc == SQLITE_OK && bFound) sqlite3_result_int64(ctx, iNext);
    return rc;
  }
  if (iHid >= NSET_HID_INPUT && iHid < NSET_HID_INPUT + NSET_N_INPUT) {
    /* An input has a value only where '=' gave the scan one. Read anywhere
    ** else (under OR or NOT, another operator, a plain column) there is no
    ** right value to give: NULL made the answer depend on the plan SQLite
    ** chose (descendant_of = 1 OR id = 6 lost the descendants in a full
    ** scan and kept them in a multi-index OR), so it is an error. */
    if (pCur->apInput[iHid - NSET_HID_INPUT] == NULL) {
      nosqlVtabError(
          pCursor->pVtab,
          "nested_set: %s is a query input: it takes part as %s = N (or IN) ANDed with the rest of "
          "the WHERE clause, not under OR or NOT, with another operator or as a value",
          azNsetInput[iHid - NSET_HID_INPUT], azNsetInput[iHid - NSET_HID_INPUT]);
      return SQLITE_ERROR;
    }
    sqlite3_result_value(ctx, pCur->apInput[iHid - NSET_HID_INPUT]);
  }
  return SQLITE_OK;
}

static int nsetRowid(sqlite3_vtab_cursor *pCursor, sqlite_int64 *pRowid) {
  *pRowid = ((nset_cursor *)pCursor)->row.id;
  return SQLITE_OK;
}

/* A computed or input column set by a write: an error. */
static int nsetCheckReadOnly(nset_vtab *p, sqlite3_value **argv, int bInsert) {
  static const struct {
    int iCol;          /* Column index */
    const char *zName; /* Its name */
  } aComputed[] = {{NSET_COL_LFT, "lft"},         {NSET_COL_RGT, "rgt"},
                   {NSET_COL_DEPTH, "depth"},     {NSET_COL_LEAF_LO, "leaf_lo"},
                   {NSET_COL_LEAF_HI, "leaf_hi"}, {NSET_COL_IS_LEAF, "is_leaf"}};
  int iHid = 2 + NSET_COL_PAYLOAD + p->nPayload;
  size_t i;
  for (i = 0; i < sizeof(aComputed) / sizeof(aComputed[0]); i++) {
    sqlite3_value *pVal = argv[2 + aComputed[i].iCol];
    if (bInsert ? sqlite3_value_type(pVal) != SQLITE_NULL : !nsetUnchanged(pVal)) {
      nosqlVtabError(&p->base, "nested_set: column %s is computed and cannot be set", aComputed[i].zName);
      return SQLITE_CONSTRAINT;
    }
  }
  for (i = 0; i < NSET_N_INPUT; i++) {
    sqlite3_value *pVal = argv[iHid + NSET_HID_INPUT + (int)i];
    if (bInsert ? sqlite3_value_type(pVal) != SQLITE_NULL : !nsetUnchanged(pVal)) {
      nosqlVtabError(&p->base, "nested_set: %s is a query input and cannot be set", azNsetInput[i]);
      return SQLITE_CONSTRAINT;
    }
  }
  if (p->zContent) {
    for (i = 0; i < (size_t)p->nPayload; i++) {
      sqlite3_value *pVal = argv[2 + NSET_COL_PAYLOAD + (int)i];
      if (bInsert ? sqlite3_value_type(pVal) != SQLITE_NULL : !nsetUnchanged(pVal)) {
        nosqlVtabError(&p->base, "nested_set: %s mirrors %s: write column %s there", p->zName, p->zContent,
                       p->azPayload[i]);
        return SQLITE_CONSTRAINT;
      }
    }
  }
  return SQLITE_OK;
}

/* A special command: INSERT INTO t(t) VALUES('rebuild' | 'integrity-check'). */
static int nsetCommand(nset_vtab *p, sqlite3_value *pCmd) {
  const char *z = (const char *)sqlite3_value_text(pCmd);
  if (z && strcmp(z, "rebuild") == 0) return nsetRebuild(p);
  if (z && strcmp(z, "integrity-check") == 0) return nsetIntegrityCheck(p);
  {
    char *zQ = nosqlValueQuote(pCmd);
    nosqlVtabError(&p->base, "nested_set: unknown command %s (expected 'rebuild' or 'integrity-check')",
                   zQ ? zQ : "?");
    sqlite3_free(zQ);
  }
  return SQLITE_ERROR;
}

static int nsetUpdateMethod(sqlite3_vtab *pVtab, int argc, sqlite3_value **argv, sqlite_int64 *pRowid) {
  nset_vtab *p = (nset_vtab *)pVtab;
  int iHid = 2 + NSET_COL_PAYLOAD + p->nPayload;
  NsetRow old;
  int bFound = 0, rc;
  int64_t iOld, iNew;

  if (argc == 1) {
    if (!nsetValueId(argv[0], &iOld)) return SQLITE_OK;
    rc = nsetFind(p, iOld, &old, &bFound);
    if (rc != SQLITE_OK || !bFound) return rc;
    return nsetDelete(p, &old);
  }
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
    sqlite3_value *pId = argv[2 + NSET_COL_ID];
    if (sqlite3_value_type(argv[iHid + NSET_HID_COMMAND]) != SQLITE_NULL) {
      return nsetCommand(p, argv[iHid + NSET_HID_COMMAND]);
    }
    rc = nsetCheckReadOnly(p, argv, 1);
    if (rc != SQLITE_OK) return rc;
    if (sqlite3_value_type(pId) == SQLITE_NULL) pId = argv[1];
    if (sqlite3_value_type(pId) == SQLITE_NULL) {
      rc = nsetNewId(p, &iNew);
      if (rc != SQLITE_OK) return rc;
    } else if (!nsetValueId(pId, &iNew)) {
      return nsetBadId(p, "id", pId);
    }
    if (sqlite3_value_type(argv[1]) != SQLITE_NULL && (!nsetValueId(argv[1], &iOld) || iOld != iNew)) {
      nosqlVtabError(pVtab, "nested_set: rowid and id differ");
      return SQLITE_CONSTRAINT;
    }
    *pRowid = iNew;
    return nsetInsert(p, iNew, argv);
  }
  /* UPDATE: the id is fixed. */
  if (!nsetValueId(argv[0], &iOld)) return SQLITE_OK;
  if (sqlite3_value_type(argv[iHid + NSET_HID_COMMAND]) != SQLITE_NULL &&
      !nsetUnchanged(argv[iHid + NSET_HID_COMMAND])) {
    nosqlVtabError(pVtab, "nested_set: commands are run with INSERT INTO %s(%s) VALUES(...)", p->zName,
                   p->zName);
    return SQLITE_ERROR;
  }
  if (!nsetValueId(argv[1], &iNew) || iNew != iOld ||
      (!nsetUnchanged(argv[2 + NSET_COL_ID]) &&
       (!nsetValueId(argv[2 + NSET_COL_ID], &iNew) || iNew != iOld))) {
    int64_t iRowid;
    int bRowidSame = nsetValueId(argv[1], &iRowid) && iRowid == iOld;
    char *zQ = nosqlValueQuote(argv[bRowidSame ? 2 + NSET_COL_ID : 1]);
    nosqlVtabError(pVtab, "nested_set: the id of node %lld cannot change (to %s)", iOld, zQ ? zQ : "?");
    sqlite3_free(zQ);
    return SQLITE_CONSTRAINT;
  }
  rc = nsetCheckReadOnly(p, argv, 0);
  if (rc != SQLITE_OK) return rc;
  rc = nsetFind(p, iOld, &old, &bFound);
  if (rc != SQLITE_OK || !bFound) return rc;
  return nsetUpdate(p, &old, argv);
}

static int nsetShadowName(const char *zName) { return sqlite3_stricmp(zName, "node") == 0; }

static sqlite3_module nsetModule = {
    /* iVersion    */ 3,
    /* xCreate     */ nsetCreate,
    /* xConnect    */ nsetConnect,
    /* xBestIndex  */ nsetBestIndex,
    /* xDisconnect */ nsetDisconnect,
    /* xDestroy    */ nsetDestroy,
    /* xOpen       */ nsetOpen,
    /* xClose      */ nsetClose,
    /* xFilter     */ nsetFilter,
    /* xNext       */ nsetNext,
    /* xEof        */ nsetEof,
    /* xColumn     */ nsetColumn,
    /* xRowid      */ nsetRowid,
    /* xUpdate     */ nsetUpdateMethod,
    /* xBegin      */ 0,
    /* xSync       */ 0,
    /* xCommit     */ 0,
    /* xRollback   */ 0,
    /* xFindMethod */ 0,
    /* xRename     */ nsetRename,
    /* xSavepoint  */ 0,
    /* xRelease    */ 0,
    /* xRollbackTo */ 0,
    /* xShadowName */ nsetShadowName,
};

int nestedSetRegister(sqlite3 *db) { return sqlite3_create_module(db, "nested_set", &nsetModule, 0); }
