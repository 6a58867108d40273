/*
** graph_walk.c: traversal and shortest routes over an adjacency list
** (technique 12 of the article, "Adjacency Lists").
**
**   graph_walk(source, from_col, to_col, root[, max_depth[, direction[, layout]]])
**       -> (node, depth, parent)
**   graph_path(source, from_col, to_col, start, goal[, weight_col[, direction[, layout]]])
**       -> (step, node, cost)
**
** Both are eponymous table-valued functions whose arguments are hidden
** columns of those names, so the named form works too:
**   SELECT node FROM graph_walk WHERE source = 'e' AND from_col = 'a'
**     AND to_col = 'b' AND root IN (1, 2, 3)
** walks from the three roots together (each node's depth is its distance
** from the nearest root, as with $graphLookup's startWith array).
**
** The edge source (table or view, columns, the 'edges' or 'json' layout,
** identifier rules) is ext/graph_source.c's. Each hop runs one prepared
** neighbour statement: one seek on an index of from_col (of to_col for
** 'in') when the table has one, a scan of the table otherwise.
**
** graph_walk is a breadth-first search that emits rows as it goes: the
** queue is the result, and a node's neighbours are read when the cursor
** needs rows past the end of the queue, so LIMIT stops the walk early.
** graph_path is a breadth-first search (cost = hops) or, with weight_col,
** Dijkstra's algorithm over a binary heap; the route is read back from the
** parent links.
**
** Node ids are SQLite values compared as SQLite compares them with BINARY
** collation: integers and reals by numeric value (1 and 1.0 are one node),
** text by bytes, blobs by bytes; NULL ends an edge (skipped).
*/
#include "nosqlInt.h"

#include <math.h>
#include <string.h>

/**************************************************************************
** Nodes: values with a hash, kept in one growing array, found by an
** open-addressing table of indexes.
*/

/* One node of a walk. */
typedef struct GwNode GwNode;
struct GwNode {
  int eType;            /* SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT or SQLITE_BLOB */
  sqlite3_int64 iVal;   /* SQLITE_INTEGER (and integral reals) */
  double rVal;          /* SQLITE_FLOAT */
  char *z;              /* Text or blob bytes (sqlite3_malloc64), else NULL */
  int n;                /* Bytes of z */
  unsigned h;           /* Hash of the value */
  sqlite3_int64 iDepth; /* Hops from the nearest root (graph_walk) */
  int iParent;          /* Index of the node it was reached from, -1 for a root */
  double rCost;         /* graph_path: best cost found so far */
  sqlite3_int64 iCost;  /* graph_path: the same, exact, while every weight is an integer */
  int bIntCost;         /* graph_path: iCost is exact */
  int bDone;            /* graph_path: cost settled */
};

/* The nodes met so far. */
typedef struct GwSet GwSet;
struct GwSet {
  GwNode *a;  /* Nodes, in the order they were met */
  int n;      /* Nodes used */
  int nAlloc; /* Nodes allocated */
  int *aSlot; /* Hash table: index + 1 into a[], 0 empty */
  int nSlot;  /* Slots (a power of two, at least twice n) */
};

static void gwSetClear(GwSet *p) {
  int i;
  for (i = 0; i < p->n; i++) sqlite3_free(p->a[i].z);
  sqlite3_free(p->a);
  sqlite3_free(p->aSlot);
  memset(p, 0, sizeof(*p));
}

static unsigned gwHashBytes(unsigned h, const void *pData, int n) {
  const unsigned char *z = (const unsigned char *)pData;
  int i;
  for (i = 0; i < n; i++) h = (h ^ z[i]) * 16777619u;
  return h;
}

/*
** Fill *pNode (z not yet owned) from a value: reals that are whole numbers
** in the int64 range become integers, as SQLite compares 1 = 1.0. Returns
** 0 for NULL (no node).
*/
static int gwNodeFromValue(sqlite3_value *pVal, GwNode *pNode) {
  memset(pNode, 0, sizeof(*pNode));
  pNode->iParent = -1;
  pNode->eType = sqlite3_value_type(pVal);
  switch (pNode->eType) {
    case SQLITE_NULL:
      return 0;
    case SQLITE_INTEGER:
      pNode->iVal = sqlite3_value_int64(pVal);
      break;
    case SQLITE_FLOAT: {
      double r = sqlite3_value_double(pVal);
      if (r == floor(r) && r >= -9223372036854775808.0 && r < 9223372036854775808.0) {
        pNode->eType = SQLITE_INTEGER;
        pNode->iVal = (sqlite3_int64)r;
      } else {
        pNode->rVal = r;
      }
      break;
    }
    default:
      pNode->z = (char *)(pNode->eType == SQLITE_TEXT ? (const void *)sqlite3_value_text(pVal)
                                                      : sqlite3_value_blob(pVal));
      pNode->n = sqlite3_value_bytes(pVal);
      break;
  }
  switch (pNode->eType) {
    case SQLITE_INTEGER:
      pNode->h = gwHashBytes(2166136261u, &pNode->iVal, sizeof(pNode->iVal));
      break;
    case SQLITE_FLOAT:
      pNode->h = gwHashBytes(2166136261u ^ 7, &pNode->rVal, sizeof(pNode->rVal));
      break;
    default:
      pNode->h = gwHashBytes(2166136261u ^ (unsigned)pNode->eType, pNode->z, pNode->n);
      break;
  }
  return 1;
}

static int gwNodeEq(const GwNode *a, const GwNode *b) {
  if (a->eType != b->eType || a->h != b->h) return 0;
  switch (a->eType) {
    case SQLITE_INTEGER:
      return a->iVal == b->iVal;
    case SQLITE_FLOAT:
      return a->rVal == b->rVal;
    default:
      return a->n == b->n && (a->n == 0 || memcmp(a->z, b->z, (size_t)a->n) == 0);
  }
}

/* Slot of node *pKey in p->aSlot: its slot, or the empty slot where it goes. */
static int gwSetSlot(const GwSet *p, const GwNode *pKey) {
  int i = (int)(pKey->h & (unsigned)(p->nSlot - 1));
  while (p->aSlot[i] && !gwNodeEq(&p->a[p->aSlot[i] - 1], pKey)) i = (i + 1) & (p->nSlot - 1);
  return i;
}

/*
** Find node *pKey; add it (copying its bytes) when absent. *piNode gets its
** index, *pbNew whether it was added. SQLITE_OK or SQLITE_NOMEM.
*/
static int gwSetAdd(GwSet *p, const GwNode *pKey, int *piNode, int *pbNew) {
  int iSlot;
  *pbNew = 0;
  if ((p->n + 1) * 2 > p->nSlot) {
    int nNew = p->nSlot ? p->nSlot * 2 : 64, i;
    int *aNew = (int *)sqlite3_malloc64(sizeof(int) * (sqlite3_uint64)nNew);
    if (aNew == NULL) return SQLITE_NOMEM;
    memset(aNew, 0, sizeof(int) * (size_t)nNew);
    sqlite3_free(p->aSlot);
    p->aSlot = aNew;
    p->nSlot = nNew;
    for (i = 0; i < p->n; i++) p->aSlot[gwSetSlot(p, &p->a[i])] = i + 1;
  }
  iSlot = gwSetSlot(p, pKey);
  if (p->aSlot[iSlot]) {
    *piNode = p->aSlot[iSlot] - 1;
    return SQLITE_OK;
  }
  if (p->n == p->nAlloc) {
    int nNew = p->nAlloc ? p->nAlloc * 2 : 64;
    GwNode *aNew = (GwNode *)sqlite3_realloc64(p->a, sizeof(GwNode) * (sqlite3_uint64)nNew);
    if (aNew == NULL) return SQLITE_NOMEM;
    p->a = aNew;
    p->nAlloc = nNew;
  }
  p->a[p->n] = *pKey;
  p->a[p->n].z = NULL;
  if (pKey->eType == SQLITE_TEXT || pKey->eType == SQLITE_BLOB) {
    p->a[p->n].z = (char *)sqlite3_malloc64((sqlite3_uint64)pKey->n + 1);
    if (p->a[p->n].z == NULL) return SQLITE_NOMEM;
    if (pKey->n) memcpy(p->a[p->n].z, pKey->z, (size_t)pKey->n);
    p->a[p->n].z[pKey->n] = 0;
  }
  p->aSlot[iSlot] = p->n + 1;
  *piNode = p->n++;
  *pbNew = 1;
  return SQLITE_OK;
}

/* Set the result (or bind parameter 1) to node pNode's value. */
static void gwResultNode(sqlite3_context *ctx, const GwNode *pNode) {
  switch (pNode->eType) {
    case SQLITE_INTEGER:
      sqlite3_result_int64(ctx, pNode->iVal);
      break;
    case SQLITE_FLOAT:
      sqlite3_result_double(ctx, pNode->rVal);
      break;
    case SQLITE_TEXT:
      sqlite3_result_text(ctx, pNode->z, pNode->n, SQLITE_TRANSIENT);
      break;
    default:
      sqlite3_result_blob(ctx, pNode->z ? pNode->z : "", pNode->n, SQLITE_TRANSIENT);
      break;
  }
}

static void gwBindNode(sqlite3_stmt *pStmt, const GwNode *pNode) {
  switch (pNode->eType) {
    case SQLITE_INTEGER:
      sqlite3_bind_int64(pStmt, 1, pNode->iVal);
      break;
    case SQLITE_FLOAT:
      sqlite3_bind_double(pStmt, 1, pNode->rVal);
      break;
    case SQLITE_TEXT:
      sqlite3_bind_text(pStmt, 1, pNode->z, pNode->n, SQLITE_STATIC);
      break;
    default:
      sqlite3_bind_blob(pStmt, 1, pNode->z ? pNode->z : "", pNode->n, SQLITE_STATIC);
      break;
  }
}

/**************************************************************************
** Arguments shared by both functions.
*/

/* A quoted rendering of a value for messages (caller frees). */
static char *gwQuote(sqlite3_value *pVal) { return nosqlValueQuote(pVal); }

/* A node as SQL text for messages (caller frees). */
static char *gwNodeText(const GwNode *p) {
  switch (p->eType) {
    case SQLITE_INTEGER:
      return sqlite3_mprintf("%lld", p->iVal);
    case SQLITE_FLOAT:
      return sqlite3_mprintf("%!.15g", p->rVal);
    case SQLITE_TEXT:
      return sqlite3_mprintf("'%.*q'", p->n, p->z ? p->z : "");
    default:
      return sqlite3_mprintf("a blob of %d bytes", p->n);
  }
}

/* The direction argument: 'out', 'in' or 'both' (NULL: 'out'). */
static int gwDirection(sqlite3_vtab *pVtab, const char *zFunc, sqlite3_value *pVal, int *peDir) {
  const char *z;
  *peDir = GRAPH_DIR_OUT;
  if (pVal == NULL || sqlite3_value_type(pVal) == SQLITE_NULL) return SQLITE_OK;
  z = (const char *)sqlite3_value_text(pVal);
  if (z && sqlite3_stricmp(z, "out") == 0) return SQLITE_OK;
  if (z && sqlite3_stricmp(z, "in") == 0) {
    *peDir = GRAPH_DIR_IN;
    return SQLITE_OK;
  }
  if (z && sqlite3_stricmp(z, "both") == 0) {
    *peDir = GRAPH_DIR_BOTH;
    return SQLITE_OK;
  }
  {
    char *zQ = gwQuote(pVal);
    nosqlVtabError(pVtab, "%s: direction must be 'out', 'in' or 'both', not %s", zFunc, zQ ? zQ : "?");
    sqlite3_free(zQ);
  }
  return SQLITE_ERROR;
}

/* The layout argument: 'edges' or 'json' (NULL: 'edges'). */
static int gwLayout(sqlite3_vtab *pVtab, const char *zFunc, sqlite3_value *pVal, int *peLayout) {
  const char *z;
  *peLayout = GRAPH_LAYOUT_EDGES;
  if (pVal == NULL || sqlite3_value_type(pVal) == SQLITE_NULL) return SQLITE_OK;
  z = (const char *)sqlite3_value_text(pVal);
  if (z && sqlite3_stricmp(z, "edges") == 0) return SQLITE_OK;
  if (z && sqlite3_stricmp(z, "json") == 0) {
    *peLayout = GRAPH_LAYOUT_JSON;
    return SQLITE_OK;
  }
  {
    char *zQ = gwQuote(pVal);
    nosqlVtabError(pVtab, "%s: layout must be 'edges' or 'json', not %s", zFunc, zQ ? zQ : "?");
    sqlite3_free(zQ);
  }
  return SQLITE_ERROR;
}

/*
** Resolve the source and prepare its neighbour statement for eDir.
** pWeight NULL: no weight column.
*/
static int gwPrepare(sqlite3_vtab *pVtab, sqlite3 *db, const char *zFunc, sqlite3_value **apSrc,
                     sqlite3_value *pWeight, int eLayout, int eDir, GraphSource *pSrc,
                     sqlite3_stmt **ppStmt) {
  char *zErr = NULL, *zSql;
  int rc;
  *ppStmt = NULL;
  rc = graphSourceInit(db, zFunc, apSrc[0], apSrc[1], apSrc[2], pWeight, eLayout, pSrc, &zErr);
  if (rc != SQLITE_OK) {
    if (zErr) nosqlVtabError(pVtab, "%s", zErr);
    sqlite3_free(zErr);
    return rc;
  }
  zSql = graphSourceNeighbourSql(pSrc, eDir);
  if (zSql == NULL) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(db, zSql, -1, ppStmt, NULL);
  sqlite3_free(zSql);
  if (rc != SQLITE_OK) nosqlVtabError(pVtab, "%s: %s", zFunc, sqlite3_errmsg(db));
  return rc;
}

/*
** Read the neighbours of node iNode with pStmt and call xEdge for each
** (weight NULL without a weight column). Refuses a JSON-layout value that
** is not an array. SQLITE_OK or an error (message set).
*/
typedef int (*GwEdgeFunc)(void *pCtx, int iFrom, GwNode *pTo, sqlite3_value *pWeight);
static int gwNeighbours(sqlite3_vtab *pVtab, const char *zFunc, GwSet *pSet, int iNode, sqlite3_stmt *pStmt,
                        GwEdgeFunc xEdge, void *pCtx) {
  int rc = SQLITE_OK;
  gwBindNode(pStmt, &pSet->a[iNode]);
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    GwNode key;
    if (!gwNodeFromValue(sqlite3_column_value(pStmt, 0), &key)) {
      const char *zType = (const char *)sqlite3_column_text(pStmt, 2);
      if (zType && strcmp(zType, "array") != 0) {
        char *zNode = gwNodeText(&pSet->a[iNode]);
        nosqlVtabError(pVtab, "%s: to_col of node %s is not a JSON array but %s (layout 'json')", zFunc,
                       zNode ? zNode : "?", zType);
        sqlite3_free(zNode);
        rc = SQLITE_ERROR;
      }
      continue;
    }
    rc = xEdge(pCtx, iNode, &key, sqlite3_column_value(pStmt, 1));
  }
  if (rc == SQLITE_OK) {
    rc = sqlite3_reset(pStmt);
    if (rc != SQLITE_OK) nosqlVtabError(pVtab, "%s: %s", zFunc, sqlite3_errmsg(sqlite3_db_handle(pStmt)));
  } else {
    sqlite3_reset(pStmt);
  }
  sqlite3_clear_bindings(pStmt);
  return rc;
}

/* The planning columns of a function: every hidden input, by equality, any collation. */
static int gwBestIndex(sqlite3_index_info *pInfo, const NosqlPlanCol *aCol, int nCol, int nRequired) {
  NosqlPlan plan;
  int rc = nosqlPlanFind(pInfo, aCol, nCol, &plan), i, bAll = 1;
  if (rc != SQLITE_OK) return rc;
  for (i = 0; i < nRequired; i++) {
    if (plan.aiEq[i] < 0) bAll = 0;
  }
  rc = nosqlPlanCommit(pInfo, aCol, &plan);
  if (rc != SQLITE_OK) return rc;
  /* Without every required input xFilter reports which is missing; the
  ** planner picks such a plan only when there is no other. */
  pInfo->estimatedCost = bAll ? 1000.0 : 1e300;
  pInfo->estimatedRows = bAll ? 1000 : 2147483647;
  return SQLITE_OK;
}

/* The table of both functions: the connection it reads. */
typedef struct gw_vtab gw_vtab;
struct gw_vtab {
  sqlite3_vtab base; /* Base class - must be first */
  sqlite3 *db;       /* The connection */
};

/* Connect an eponymous function with declaration zDecl. */
static int gwConnect(sqlite3 *db, const char *zDecl, sqlite3_vtab **ppVtab) {
  gw_vtab *pVtab;
  int rc = sqlite3_declare_vtab(db, zDecl);
  if (rc != SQLITE_OK) return rc;
  pVtab = (gw_vtab *)sqlite3_malloc64(sizeof(*pVtab));
  if (pVtab == NULL) return SQLITE_NOMEM;
  memset(pVtab, 0, sizeof(*pVtab));
  pVtab->db = db;
  *ppVtab = &pVtab->base;
  return SQLITE_OK;
}

static int gwDisconnect(sqlite3_vtab *pVtab) {
  sqlite3_free(pVtab);
  return SQLITE_OK;
}

/* Checks the required inputs are present and text-ish: names a missing one. */
static int gwRequire(sqlite3_vtab *pVtab, const char *zFunc, NosqlPlanArg *aArg, const char *const *azName,
                     int nReq, const char *zUsage) {
  int i;
  for (i = 0; i < nReq; i++) {
    if (aArg[i].pEq == NULL) {
      nosqlVtabError(pVtab, "%s: %s is required: %s", zFunc, azName[i], zUsage);
      return SQLITE_ERROR;
    }
  }
  return SQLITE_OK;
}

/**************************************************************************
** graph_walk
*/

#define GW_NODE 0
#define GW_DEPTH 1
#define GW_PARENT 2
#define GW_SOURCE 3
#define GW_FROM 4
#define GW_TO 5
#define GW_ROOT 6
#define GW_MAXDEPTH 7
#define GW_DIRECTION 8
#define GW_LAYOUT 9

static const NosqlPlanCol aGwPlan[] = {
    {GW_SOURCE, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0},
    {GW_FROM, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0},
    {GW_TO, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0},
    {GW_ROOT, NOSQL_OP_EQ | NOSQL_OP_INLIST, NOSQL_COLL_ANY, 1, 0},
    {GW_MAXDEPTH, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0},
    {GW_DIRECTION, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0},
    {GW_LAYOUT, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0},
};
static const char *const azGwInput[] = {"source", "from_col", "to_col", "root"};

typedef struct gw_cursor gw_cursor;
struct gw_cursor {
  sqlite3_vtab_cursor base; /* Base class - must be first */
  GraphSource src;          /* The edge source */
  sqlite3_stmt *pStmt;      /* Neighbour statement */
  GwSet set;                /* Nodes met: the queue, in breadth-first order */
  int iRow;                 /* Row the cursor is on (index into set.a) */
  int iExpand;              /* Next node whose neighbours are to be read */
  sqlite3_int64 iMaxDepth;  /* Hops allowed (-1: no limit) */
  sqlite3_value *apIn[7];   /* The inputs, for the hidden columns */
};

static int gwWalkConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                         char **pzErr) {
  (void)pAux;
  (void)argc;
  (void)argv;
  (void)pzErr;
  return gwConnect(
      db,
      "CREATE TABLE x(node, depth INTEGER, parent, source HIDDEN, from_col HIDDEN, to_col HIDDEN, "
      "root HIDDEN, max_depth HIDDEN, direction HIDDEN, layout HIDDEN)",
      ppVtab);
}

static int gwWalkBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo) {
  (void)pVtab;
  return gwBestIndex(pInfo, aGwPlan, 7, 4);
}

static int gwWalkOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor) {
  gw_cursor *pCur = (gw_cursor *)nosqlCursorNew(sizeof(gw_cursor), ppCursor);
  (void)pVtab;
  return pCur ? SQLITE_OK : SQLITE_NOMEM;
}

static void gwWalkReset(gw_cursor *pCur) {
  int i;
  sqlite3_finalize(pCur->pStmt);
  pCur->pStmt = NULL;
  graphSourceClear(&pCur->src);
  gwSetClear(&pCur->set);
  for (i = 0; i < 7; i++) {
    sqlite3_value_free(pCur->apIn[i]);
    pCur->apIn[i] = NULL;
  }
  pCur->iRow = pCur->iExpand = 0;
}

static int gwWalkClose(sqlite3_vtab_cursor *pCursor) {
  gwWalkReset((gw_cursor *)pCursor);
  sqlite3_free(pCursor);
  return SQLITE_OK;
}

/* xEdge of graph_walk: queue a node not met yet, one hop deeper. */
static int gwWalkEdge(void *pCtx, int iFrom, GwNode *pTo, sqlite3_value *pWeight) {
  GwSet *pSet = (GwSet *)pCtx;
  int iNode, bNew, rc;
  sqlite3_int64 iDepth = pSet->a[iFrom].iDepth + 1;
  (void)pWeight;
  rc = gwSetAdd(pSet, pTo, &iNode, &bNew);
  if (rc == SQLITE_OK && bNew) {
    pSet->a[iNode].iDepth = iDepth;
    pSet->a[iNode].iParent = iFrom;
  }
  return rc;
}

/* Read neighbours until the queue has a row past iRow, or nothing is left. */
static int gwWalkFill(gw_cursor *pCur) {
  int rc = SQLITE_OK;
  while (rc == SQLITE_OK && pCur->iRow >= pCur->set.n && pCur->iExpand < pCur->set.n) {
    int i = pCur->iExpand++;
    if (pCur->iMaxDepth >= 0 && pCur->set.a[i].iDepth >= pCur->iMaxDepth) continue;
    rc = gwNeighbours(pCur->base.pVtab, "graph_walk", &pCur->set, i, pCur->pStmt, gwWalkEdge, &pCur->set);
  }
  return rc;
}

static int gwWalkFilter(sqlite3_vtab_cursor *pCursor, int idxNum, const char *idxStr, int argc,
                        sqlite3_value **argv) {
  gw_cursor *pCur = (gw_cursor *)pCursor;
  sqlite3_vtab *pVtab = pCursor->pVtab;
  sqlite3 *db;
  NosqlPlanArg aArg[7];
  sqlite3_value *apSrc[3];
  int rc, i, eDir, eLayout;
  (void)idxNum;
  gwWalkReset(pCur);
  if (nosqlPlanArgs(idxStr, argc, argv, aArg, 7) != SQLITE_OK) {
    nosqlVtabError(pVtab, "graph_walk: bad plan %s", idxStr ? idxStr : "(none)");
    return SQLITE_ERROR;
  }
  rc = gwRequire(pVtab, "graph_walk", aArg, azGwInput, 4,
                 "graph_walk(source, from_col, to_col, root[, max_depth[, direction[, layout]]])");
  if (rc != SQLITE_OK) return rc;
  for (i = 0; i < 7; i++) {
    if (aArg[i].pEq && !aArg[i].bInList) {
      pCur->apIn[i] = sqlite3_value_dup(aArg[i].pEq);
      if (pCur->apIn[i] == NULL) return SQLITE_NOMEM;
    }
  }
  pCur->iMaxDepth = -1;
  if (aArg[4].pEq && sqlite3_value_type(aArg[4].pEq) != SQLITE_NULL) {
    int eType = sqlite3_value_numeric_type(aArg[4].pEq);
    double r = sqlite3_value_double(aArg[4].pEq);
    if ((eType != SQLITE_INTEGER && !(eType == SQLITE_FLOAT && r == floor(r))) || r < 0) {
      char *zQ = gwQuote(aArg[4].pEq);
      nosqlVtabError(pVtab, "graph_walk: max_depth must be an integer of 0 or more, not %s", zQ ? zQ : "?");
      sqlite3_free(zQ);
      return SQLITE_ERROR;
    }
    pCur->iMaxDepth = r > 9e18 ? INT64_MAX : sqlite3_value_int64(aArg[4].pEq);
  }
  rc = gwDirection(pVtab, "graph_walk", aArg[5].pEq, &eDir);
  if (rc == SQLITE_OK) rc = gwLayout(pVtab, "graph_walk", aArg[6].pEq, &eLayout);
  if (rc != SQLITE_OK) return rc;
  db = ((gw_vtab *)pVtab)->db;
  for (i = 0; i < 3; i++) apSrc[i] = aArg[i].pEq;
  rc = gwPrepare(pVtab, db, "graph_walk", apSrc, NULL, eLayout, eDir, &pCur->src, &pCur->pStmt);
  if (rc != SQLITE_OK) return rc;
  /* The roots: one value, or a whole IN list. */
  if (aArg[3].bInList) {
    sqlite3_value *pVal = NULL;
    for (rc = sqlite3_vtab_in_first(aArg[3].pEq, &pVal); rc == SQLITE_OK && pVal;
         rc = sqlite3_vtab_in_next(aArg[3].pEq, &pVal)) {
      GwNode key;
      int iNode, bNew;
      if (!gwNodeFromValue(pVal, &key)) continue; /* NULL in a list matches nothing */
      rc = gwSetAdd(&pCur->set, &key, &iNode, &bNew);
      if (rc != SQLITE_OK) return rc;
    }
    if (rc != SQLITE_DONE && rc != SQLITE_OK) return rc;
  } else {
    GwNode key;
    int iNode, bNew;
    if (!gwNodeFromValue(aArg[3].pEq, &key)) {
      nosqlVtabError(pVtab, "graph_walk: root is NULL");
      return SQLITE_ERROR;
    }
    rc = gwSetAdd(&pCur->set, &key, &iNode, &bNew);
    if (rc != SQLITE_OK) return rc;
  }
  return gwWalkFill(pCur);
}

static int gwWalkNext(sqlite3_vtab_cursor *pCursor) {
  gw_cursor *pCur = (gw_cursor *)pCursor;
  pCur->iRow++;
  return gwWalkFill(pCur);
}

static int gwWalkEof(sqlite3_vtab_cursor *pCursor) {
  gw_cursor *pCur = (gw_cursor *)pCursor;
  return pCur->iRow >= pCur->set.n;
}

static int gwWalkColumn(sqlite3_vtab_cursor *pCursor, sqlite3_context *ctx, int iCol) {
  gw_cursor *pCur = (gw_cursor *)pCursor;
  const GwNode *pNode = &pCur->set.a[pCur->iRow];
  switch (iCol) {
    case GW_NODE:
      gwResultNode(ctx, pNode);
      break;
    case GW_DEPTH:
      sqlite3_result_int64(ctx, pNode->iDepth);
      break;
    case GW_PARENT:
      if (pNode->iParent >= 0) gwResultNode(ctx, &pCur->set.a[pNode->iParent]);
      break;
    default:
      if (iCol - GW_SOURCE < 7 && pCur->apIn[iCol - GW_SOURCE])
        sqlite3_result_value(ctx, pCur->apIn[iCol - GW_SOURCE]);
      break;
  }
  return SQLITE_OK;
}

static int gwRowid(sqlite3_vtab_cursor *pCursor, sqlite_int64 *pRowid) {
  *pRowid = ((gw_cursor *)pCursor)->iRow + 1;
  return SQLITE_OK;
}

static sqlite3_module gwWalkModule = {
    0,               /* iVersion */
    0,               /* xCreate */
    gwWalkConnect,   /* xConnect */
    gwWalkBestIndex, /* xBestIndex */
    gwDisconnect,    /* xDisconnect */
    0,               /* xDestroy */
    gwWalkOpen,      /* xOpen */
    gwWalkClose,     /* xClose */
    gwWalkFilter,    /* xFilter */
    gwWalkNext,      /* xNext */
    gwWalkEof,       /* xEof */
    gwWalkColumn,    /* xColumn */
    gwRowid,         /* xRowid */
    0,               /* xUpdate */
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

/**************************************************************************
** graph_path
*/

#define GP_STEP 0
#define GP_NODE 1
#define GP_COST 2
#define GP_SOURCE 3
#define GP_FROM 4
#define GP_TO 5
#define GP_START 6
#define GP_GOAL 7
#define GP_WEIGHT 8
#define GP_DIRECTION 9
#define GP_LAYOUT 10

static const NosqlPlanCol aGpPlan[] = {
    {GP_SOURCE, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0},    {GP_FROM, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0},
    {GP_TO, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0},        {GP_START, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0},
    {GP_GOAL, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0},      {GP_WEIGHT, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0},
    {GP_DIRECTION, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0}, {GP_LAYOUT, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0},
};
static const char *const azGpInput[] = {"source", "from_col", "to_col", "start", "goal"};

/* A heap entry of Dijkstra's algorithm: a node and the cost it was pushed with. */
typedef struct GpHeapItem GpHeapItem;
struct GpHeapItem {
  double rCost; /* Cost when pushed (stale when the node's cost fell since) */
  int iNode;    /* Index into the node set */
};

typedef struct gp_cursor gp_cursor;
struct gp_cursor {
  sqlite3_vtab_cursor base; /* Base class - must be first */
  GraphSource src;          /* The edge source */
  sqlite3_stmt *pStmt;      /* Neighbour statement */
  GwSet set;                /* Nodes met */
  int *aRoute;              /* The route, start first: indexes into set.a */
  int nRoute;               /* Nodes on the route (0: no route) */
  int iRow;                 /* Row the cursor is on */
  int bWeighted;            /* Costs are weights (else hops) */
  GpHeapItem *aHeap;        /* Dijkstra's queue, a binary min-heap */
  int nHeap, nHeapAlloc;    /* Entries used, allocated */
  int iGoal;                /* Index of the goal once met, else -1 */
  sqlite3_value *apIn[8];   /* The inputs, for the hidden columns */
};

static int gpConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                     char **pzErr) {
  (void)pAux;
  (void)argc;
  (void)argv;
  (void)pzErr;
  return gwConnect(db,
                   "CREATE TABLE x(step INTEGER, node, cost, source HIDDEN, from_col HIDDEN, to_col HIDDEN, "
                   "start HIDDEN, goal HIDDEN, weight_col HIDDEN, direction HIDDEN, layout HIDDEN)",
                   ppVtab);
}

static int gpBestIndexFunc(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo) {
  (void)pVtab;
  return gwBestIndex(pInfo, aGpPlan, 8, 5);
}

static int gpOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor) {
  gp_cursor *pCur = (gp_cursor *)nosqlCursorNew(sizeof(gp_cursor), ppCursor);
  (void)pVtab;
  return pCur ? SQLITE_OK : SQLITE_NOMEM;
}

static void gpReset(gp_cursor *pCur) {
  int i;
  sqlite3_finalize(pCur->pStmt);
  pCur->pStmt = NULL;
  graphSourceClear(&pCur->src);
  gwSetClear(&pCur->set);
  sqlite3_free(pCur->aRoute);
  pCur->aRoute = NULL;
  sqlite3_free(pCur->aHeap);
  pCur->aHeap = NULL;
  pCur->nHeap = pCur->nHeapAlloc = 0;
  pCur->nRoute = pCur->iRow = 0;
  pCur->iGoal = -1;
  for (i = 0; i < 8; i++) {
    sqlite3_value_free(pCur->apIn[i]);
    pCur->apIn[i] = NULL;
  }
}

static int gpClose(sqlite3_vtab_cursor *pCursor) {
  gpReset((gp_cursor *)pCursor);
  sqlite3_free(pCursor);
  return SQLITE_OK;
}

static int gpHeapPush(gp_cursor *pCur, double rCost, int iNode) {
  int i;
  if (pCur->nHeap == pCur->nHeapAlloc) {
    int nNew = pCur->nHeapAlloc ? pCur->nHeapAlloc * 2 : 64;
    GpHeapItem *aNew =
        (GpHeapItem *)sqlite3_realloc64(pCur->aHeap, sizeof(GpHeapItem) * (sqlite3_uint64)nNew);
    if (aNew == NULL) return SQLITE_NOMEM;
    pCur->aHeap = aNew;
    pCur->nHeapAlloc = nNew;
  }
  /* Sift up. */
  for (i = pCur->nHeap++; i > 0 && pCur->aHeap[(i - 1) / 2].rCost > rCost; i = (i - 1) / 2) {
    pCur->aHeap[i] = pCur->aHeap[(i - 1) / 2];
  }
  pCur->aHeap[i].rCost = rCost;
  pCur->aHeap[i].iNode = iNode;
  return SQLITE_OK;
}

static GpHeapItem gpHeapPop(gp_cursor *pCur) {
  GpHeapItem top = pCur->aHeap[0], last = pCur->aHeap[--pCur->nHeap];
  int i = 0;
  /* Sift the last entry down from the root. */
  for (;;) {
    int c = 2 * i + 1;
    if (c >= pCur->nHeap) break;
    if (c + 1 < pCur->nHeap && pCur->aHeap[c + 1].rCost < pCur->aHeap[c].rCost) c++;
    if (pCur->aHeap[c].rCost >= last.rCost) break;
    pCur->aHeap[i] = pCur->aHeap[c];
    i = c;
  }
  if (pCur->nHeap > 0) pCur->aHeap[i] = last;
  return top;
}

/* xEdge of the breadth-first search: as graph_walk's, and notice the goal. */
static int gpBfsEdge(void *pCtx, int iFrom, GwNode *pTo, sqlite3_value *pWeight) {
  gp_cursor *pCur = (gp_cursor *)pCtx;
  int iNode, bNew, rc;
  (void)pWeight;
  rc = gwSetAdd(&pCur->set, pTo, &iNode, &bNew);
  /* The goal (node 1) is in the set from the start: it is reached by the
  ** first edge that leads to it. */
  if (rc == SQLITE_OK && (bNew || (iNode == 1 && pCur->iGoal < 0))) {
    pCur->set.a[iNode].iDepth = pCur->set.a[iFrom].iDepth + 1;
    pCur->set.a[iNode].iParent = iFrom;
    if (iNode == 1) pCur->iGoal = 1;
  }
  return rc;
}

/* xEdge of Dijkstra's algorithm: relax the edge iFrom -> pTo. */
static int gpDijkstraEdge(void *pCtx, int iFrom, GwNode *pTo, sqlite3_value *pWeight) {
  gp_cursor *pCur = (gp_cursor *)pCtx;
  int eType = sqlite3_value_type(pWeight), iNode, bNew, rc, bInt;
  double w, rNew;
  sqlite3_int64 iNew = 0;
  const GwNode *pFrom;
  if (eType != SQLITE_INTEGER && eType != SQLITE_FLOAT) {
    char *zFrom = gwNodeText(&pCur->set.a[iFrom]), *zTo = gwNodeText(pTo), *zW = gwQuote(pWeight);
    nosqlVtabError(pCur->base.pVtab, "graph_path: the weight of edge %s -> %s is %s, not a number",
                   zFrom ? zFrom : "?", zTo ? zTo : "?", zW ? zW : "?");
    sqlite3_free(zFrom);
    sqlite3_free(zTo);
    sqlite3_free(zW);
    return SQLITE_ERROR;
  }
  w = sqlite3_value_double(pWeight);
  if (w < 0 || isnan(w)) {
    char *zFrom = gwNodeText(&pCur->set.a[iFrom]), *zTo = gwNodeText(pTo), *zW = gwQuote(pWeight);
    nosqlVtabError(pCur->base.pVtab, "graph_path: edge %s -> %s has the negative weight %s",
                   zFrom ? zFrom : "?", zTo ? zTo : "?", zW ? zW : "?");
    sqlite3_free(zFrom);
    sqlite3_free(zTo);
    sqlite3_free(zW);
    return SQLITE_ERROR;
  }
  pFrom = &pCur->set.a[iFrom];
  rNew = pFrom->rCost + w;
  bInt = pFrom->bIntCost && eType == SQLITE_INTEGER;
  if (bInt) {
    sqlite3_int64 iW = sqlite3_value_int64(pWeight);
    if (pFrom->iCost > INT64_MAX - iW) {
      bInt = 0;
    } else {
      iNew = pFrom->iCost + iW;
    }
  }
  rc = gwSetAdd(&pCur->set, pTo, &iNode, &bNew);
  if (rc != SQLITE_OK) return rc;
  {
    GwNode *pN = &pCur->set.a[iNode]; /* After gwSetAdd: the array may have moved */
    if (!bNew && (pN->bDone || pN->rCost <= rNew)) return SQLITE_OK;
    pN->rCost = rNew;
    pN->iCost = iNew;
    pN->bIntCost = bInt;
    pN->iParent = iFrom;
  }
  return gpHeapPush(pCur, rNew, iNode);
}

/* Fill aRoute from the goal's parent links. */
static int gpRoute(gp_cursor *pCur) {
  int i, n = 0;
  for (i = pCur->iGoal; i >= 0; i = pCur->set.a[i].iParent) n++;
  pCur->aRoute = (int *)sqlite3_malloc64(sizeof(int) * (sqlite3_uint64)n);
  if (pCur->aRoute == NULL) return SQLITE_NOMEM;
  pCur->nRoute = n;
  for (i = pCur->iGoal; i >= 0; i = pCur->set.a[i].iParent) pCur->aRoute[--n] = i;
  return SQLITE_OK;
}

static int gpFilter(sqlite3_vtab_cursor *pCursor, int idxNum, const char *idxStr, int argc,
                    sqlite3_value **argv) {
  gp_cursor *pCur = (gp_cursor *)pCursor;
  sqlite3_vtab *pVtab = pCursor->pVtab;
  NosqlPlanArg aArg[8];
  sqlite3_value *apSrc[3];
  GwNode start, goal;
  int rc, i, eDir, eLayout, iNode, bNew;
  (void)idxNum;
  gpReset(pCur);
  if (nosqlPlanArgs(idxStr, argc, argv, aArg, 8) != SQLITE_OK) {
    nosqlVtabError(pVtab, "graph_path: bad plan %s", idxStr ? idxStr : "(none)");
    return SQLITE_ERROR;
  }
  rc = gwRequire(pVtab, "graph_path", aArg, azGpInput, 5,
                 "graph_path(source, from_col, to_col, start, goal[, weight_col[, direction[, layout]]])");
  if (rc != SQLITE_OK) return rc;
  for (i = 0; i < 8; i++) {
    if (aArg[i].pEq) {
      pCur->apIn[i] = sqlite3_value_dup(aArg[i].pEq);
      if (pCur->apIn[i] == NULL) return SQLITE_NOMEM;
    }
  }
  if (!gwNodeFromValue(aArg[3].pEq, &start) || !gwNodeFromValue(aArg[4].pEq, &goal)) {
    nosqlVtabError(pVtab, "graph_path: %s is NULL",
                   sqlite3_value_type(aArg[3].pEq) == SQLITE_NULL ? "start" : "goal");
    return SQLITE_ERROR;
  }
  rc = gwDirection(pVtab, "graph_path", aArg[6].pEq, &eDir);
  if (rc == SQLITE_OK) rc = gwLayout(pVtab, "graph_path", aArg[7].pEq, &eLayout);
  if (rc != SQLITE_OK) return rc;
  pCur->bWeighted = aArg[5].pEq != NULL && sqlite3_value_type(aArg[5].pEq) != SQLITE_NULL;
  for (i = 0; i < 3; i++) apSrc[i] = aArg[i].pEq;
  rc = gwPrepare(pVtab, ((gw_vtab *)pVtab)->db, "graph_path", apSrc, pCur->bWeighted ? aArg[5].pEq : NULL,
                 eLayout, eDir, &pCur->src, &pCur->pStmt);
  if (rc != SQLITE_OK) return rc;
  /* Node 0 is the start, node 1 the goal (unless they are one node). */
  rc = gwSetAdd(&pCur->set, &start, &iNode, &bNew);
  if (rc != SQLITE_OK) return rc;
  pCur->set.a[0].bIntCost = 1;
  rc = gwSetAdd(&pCur->set, &goal, &iNode, &bNew);
  if (rc != SQLITE_OK) return rc;
  if (!bNew) {
    pCur->iGoal = 0; /* start = goal: one row */
    return gpRoute(pCur);
  }
  if (!pCur->bWeighted) {
    /* Breadth first, in the order nodes were met; the goal is not expanded. */
    int iNext;
    for (iNext = 0; rc == SQLITE_OK && pCur->iGoal < 0 && iNext < pCur->set.n; iNext++) {
      if (iNext == 1) continue;
      rc = gwNeighbours(pVtab, "graph_path", &pCur->set, iNext, pCur->pStmt, gpBfsEdge, pCur);
    }
    if (rc != SQLITE_OK || pCur->iGoal < 0) return rc;
    return gpRoute(pCur);
  }
  /* Dijkstra: the goal is in the set but not in the heap until an edge reaches it. */
  pCur->set.a[1].rCost = INFINITY;
  rc = gpHeapPush(pCur, 0.0, 0);
  while (rc == SQLITE_OK && pCur->nHeap > 0) {
    GpHeapItem top = gpHeapPop(pCur);
    GwNode *pN = &pCur->set.a[top.iNode];
    if (pN->bDone || top.rCost > pN->rCost) continue; /* A stale entry */
    pN->bDone = 1;
    if (top.iNode == 1) {
      pCur->iGoal = 1;
      break;
    }
    rc = gwNeighbours(pVtab, "graph_path", &pCur->set, top.iNode, pCur->pStmt, gpDijkstraEdge, pCur);
  }
  if (rc != SQLITE_OK || pCur->iGoal < 0) return rc;
  return gpRoute(pCur);
}

static int gpNext(sqlite3_vtab_cursor *pCursor) {
  ((gp_cursor *)pCursor)->iRow++;
  return SQLITE_OK;
}

static int gpEof(sqlite3_vtab_cursor *pCursor) {
  gp_cursor *pCur = (gp_cursor *)pCursor;
  return pCur->iRow >= pCur->nRoute;
}

static int gpColumn(sqlite3_vtab_cursor *pCursor, sqlite3_context *ctx, int iCol) {
  gp_cursor *pCur = (gp_cursor *)pCursor;
  const GwNode *pNode = &pCur->set.a[pCur->aRoute[pCur->iRow]];
  switch (iCol) {
    case GP_STEP:
      sqlite3_result_int(ctx, pCur->iRow);
      break;
    case GP_NODE:
      gwResultNode(ctx, pNode);
      break;
    case GP_COST:
      if (!pCur->bWeighted || pCur->iRow == 0) {
        sqlite3_result_int(ctx, pCur->iRow);
      } else if (pNode->bIntCost) {
        sqlite3_result_int64(ctx, pNode->iCost);
      } else {
        sqlite3_result_double(ctx, pNode->rCost);
      }
      break;
    default:
      if (iCol - GP_SOURCE < 8 && pCur->apIn[iCol - GP_SOURCE])
        sqlite3_result_value(ctx, pCur->apIn[iCol - GP_SOURCE]);
      break;
  }
  return SQLITE_OK;
}

static int gpRowid(sqlite3_vtab_cursor *pCursor, sqlite_int64 *pRowid) {
  *pRowid = ((gp_cursor *)pCursor)->iRow + 1;
  return SQLITE_OK;
}

static sqlite3_module gpModule = {
    0,               /* iVersion */
    0,               /* xCreate */
    gpConnect,       /* xConnect */
    gpBestIndexFunc, /* xBestIndex */
    gwDisconnect,    /* xDisconnect */
    0,               /* xDestroy */
    gpOpen,          /* xOpen */
    gpClose,         /* xClose */
    gpFilter,        /* xFilter */
    gpNext,          /* xNext */
    gpEof,           /* xEof */
    gpColumn,        /* xColumn */
    gpRowid,         /* xRowid */
    0,               /* xUpdate */
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

int graphWalkRegister(sqlite3 *db) {
  int rc = sqlite3_create_module(db, "graph_walk", &gwWalkModule, 0);
  if (rc == SQLITE_OK) rc = sqlite3_create_module(db, "graph_path", &gpModule, 0);
  return rc;
}
