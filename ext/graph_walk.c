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
** Nodes: a GraphSet (ext/graph_source.c) of GwNode elements.
*/

/* One node of a walk: its value, then what the search knows of it. */
typedef struct GwNode GwNode;
struct GwNode {
  GraphValue v;         /* The node id (must be first: a GraphSet element) */
  sqlite3_int64 iDepth; /* Hops from the nearest root */
  int iParent;          /* Index of the node it was reached from, -1 for a root */
  int iRoot;            /* graph_walk: the root it was reached from (index into gw_cursor.apRoot) */
  double rCost;         /* graph_path: best cost found so far */
  sqlite3_int64 iCost;  /* graph_path: the same, exact, while every weight is an integer */
  int bIntCost;         /* graph_path: iCost is exact */
  int bDone;            /* graph_path: cost settled */
};
#define GW_AT(pSet, i) ((GwNode *)graphSetAt(pSet, i))

/**************************************************************************
** Arguments shared by both functions.
*/

/* A quoted rendering of a value for messages (caller frees). */
static char *gwQuote(sqlite3_value *pVal) { return nosqlValueQuote(pVal); }

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
typedef int (*GwEdgeFunc)(void *pCtx, int iFrom, GraphValue *pTo, sqlite3_value *pWeight);
static int gwNeighbours(sqlite3_vtab *pVtab, const char *zFunc, const GraphSource *pSrc, GraphSet *pSet,
                        int iNode, sqlite3_stmt *pStmt, GwEdgeFunc xEdge, void *pCtx) {
  int rc = SQLITE_OK;
  graphValueBind(pStmt, 1, &GW_AT(pSet, iNode)->v);
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    GraphValue key;
    if (!graphValueFrom(sqlite3_column_value(pStmt, 0), &key)) {
      const char *zType = (const char *)sqlite3_column_text(pStmt, 2);
      if (zType && strcmp(zType, "array") != 0) {
        char *zMsg = graphSourceJsonError(zFunc, &GW_AT(pSet, iNode)->v, zType);
        nosqlVtabError(pVtab, "%s", zMsg ? zMsg : "out of memory");
        sqlite3_free(zMsg);
        rc = zMsg ? SQLITE_ERROR : SQLITE_NOMEM;
      }
      continue;
    }
    rc = xEdge(pCtx, iNode, &key, sqlite3_column_value(pStmt, 1));
  }
  if (rc == SQLITE_OK) {
    sqlite3 *db = sqlite3_db_handle(pStmt);
    rc = sqlite3_reset(pStmt);
    if (graphSourceIsMalformed(db, pSrc, rc)) {
      char *zMsg = graphSourceMalformed(db, pSrc, zFunc, &GW_AT(pSet, iNode)->v);
      nosqlVtabError(pVtab, "%s", zMsg ? zMsg : "out of memory");
      if (zMsg == NULL) rc = SQLITE_NOMEM;
      sqlite3_free(zMsg);
    } else if (rc != SQLITE_OK) {
      nosqlVtabError(pVtab, "%s: %s", zFunc, sqlite3_errmsg(db));
    }
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
  if (rc == SQLITE_OK) rc = nosqlPlanInputsReady(pInfo, aCol, &plan);
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

/*
** The in-memory edge sets (GraphCsr) of the last sources walked, kept for
** the next walks of this connection while nothing could have changed them:
** the connection's total_changes() and the source schema's schema_version
** and data_version (another connection's commit) are as they were at the
** load. Up to GW_CACHE_N sources, the least recently used going first, and
** at most 2 x GW_CSR_MAX_EDGE edges in all.
*/
typedef struct GwCache GwCache;
struct GwCache {
  char *zKey;              /* schema, table, from_col, to_col, layout, file; NULL: free slot */
  GraphCsr *pCsr;          /* The edges, or NULL: the source cannot be held */
  sqlite3_int64 aStamp[3]; /* total_changes, schema_version, data_version at the load */
  sqlite3_int64 iUsed;     /* When last used (gw_vtab.iTick) */
};

#ifndef GW_CACHE_N
#define GW_CACHE_N 4
#endif

/* The table of both functions: the connection it reads, and graph_walk's cache. */
typedef struct gw_vtab gw_vtab;
struct gw_vtab {
  sqlite3_vtab base;          /* Base class - must be first */
  sqlite3 *db;                /* The connection */
  GwCache aCache[GW_CACHE_N]; /* graph_walk: sources held in memory */
  sqlite3_int64 iTick;        /* Use counter for aCache[].iUsed */
};

/* Walks expand this many nodes by index seeks before reading the whole source. */
#ifndef GW_CSR_AFTER
#define GW_CSR_AFTER 1024
#endif
/* Sources with more edges than this are never held in memory. */
#ifndef GW_CSR_MAX_EDGE
#define GW_CSR_MAX_EDGE 20000000
#endif

static void gwCacheClear(GwCache *p) {
  sqlite3_free(p->zKey);
  graphCsrUnref(p->pCsr);
  memset(p, 0, sizeof(*p));
}

/* What could change a source: see GwCache. */
static int gwStamp(sqlite3 *db, const char *zSchema, sqlite3_int64 *aStamp) {
  static const char *azPragma[2] = {"schema_version", "data_version"};
  int i, rc = SQLITE_OK;
  aStamp[0] = sqlite3_total_changes64(db);
  for (i = 0; i < 2 && rc == SQLITE_OK; i++) {
    sqlite3_stmt *pStmt = NULL;
    char *zSql = sqlite3_mprintf("PRAGMA \"%w\".%s", zSchema, azPragma[i]);
    rc = zSql ? sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0) : SQLITE_NOMEM;
    sqlite3_free(zSql);
    if (rc == SQLITE_OK) {
      aStamp[i + 1] = sqlite3_step(pStmt) == SQLITE_ROW ? sqlite3_column_int64(pStmt, 0) : -1;
      rc = sqlite3_finalize(pStmt);
    }
  }
  return rc;
}

/* Connect an eponymous function with declaration zDecl. */
static int gwConnect(sqlite3 *db, const char *zDecl, sqlite3_vtab **ppVtab) {
  int rc = nosqlVtabNew(db, zDecl, sizeof(gw_vtab), ppVtab);
  if (rc == SQLITE_OK) ((gw_vtab *)*ppVtab)->db = db;
  return rc;
}

static int gwDisconnect(sqlite3_vtab *pVtab) {
  int i;
  for (i = 0; i < GW_CACHE_N; i++) gwCacheClear(&((gw_vtab *)pVtab)->aCache[i]);
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
  GraphSet set;             /* Nodes met: the queue, in breadth-first order */
  int iRow;                 /* Row the cursor is on (index into set.a) */
  int iExpand;              /* Next node whose neighbours are to be read */
  sqlite3_int64 iMaxDepth;  /* Hops allowed (-1: no limit) */
  sqlite3_value *apIn[7];   /* The inputs as given, for the hidden columns (not root: apRoot) */
  sqlite3_value **apRoot;   /* The roots as given (one, or each of an IN list), for the root column */
  int nRoot;                /* Entries of apRoot */
  int eDir;                 /* GRAPH_DIR_* */
  GraphCsr *pCsr;           /* The edges in memory (a reference), or NULL: seek */
  int bCsrTried;            /* Loading was tried (or is not to be) */
  int *aMet;                /* With pCsr: per value of pCsr, its node index + 1, 0 not met yet */
};

static int gwWalkConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                         char **pzErr) {
  (void)pAux;
  (void)argc;
  (void)argv;
  (void)pzErr;
  return gwConnect(
      db,
      /* root BLOB: no affinity ("root HIDDEN" alone is NUMERIC, and IN
      ** applies it: root IN ('02134') became 2134). */
      "CREATE TABLE x(node, depth INTEGER, parent, source HIDDEN, from_col HIDDEN, to_col HIDDEN, "
      "root BLOB HIDDEN, max_depth HIDDEN, direction HIDDEN, layout HIDDEN)",
      ppVtab);
}

static int gwWalkBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo) {
  (void)pVtab;
  return gwBestIndex(pInfo, aGwPlan, 7, 4);
}

static int gwWalkOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor) {
  gw_cursor *pCur = (gw_cursor *)nosqlCursorNew(sizeof(gw_cursor), ppCursor);
  (void)pVtab;
  if (pCur == NULL) return SQLITE_NOMEM;
  pCur->set.szElem = (int)sizeof(GwNode);
  return SQLITE_OK;
}

static void gwWalkReset(gw_cursor *pCur) {
  int i;
  sqlite3_finalize(pCur->pStmt);
  pCur->pStmt = NULL;
  graphSourceClear(&pCur->src);
  graphSetClear(&pCur->set);
  graphCsrUnref(pCur->pCsr);
  pCur->pCsr = NULL;
  pCur->bCsrTried = 0;
  sqlite3_free(pCur->aMet);
  pCur->aMet = NULL;
  for (i = 0; i < 7; i++) {
    sqlite3_value_free(pCur->apIn[i]);
    pCur->apIn[i] = NULL;
  }
  for (i = 0; i < pCur->nRoot; i++) sqlite3_value_free(pCur->apRoot[i]);
  sqlite3_free(pCur->apRoot);
  pCur->apRoot = NULL;
  pCur->nRoot = 0;
  pCur->iRow = pCur->iExpand = 0;
}

static int gwWalkClose(sqlite3_vtab_cursor *pCursor) {
  gwWalkReset((gw_cursor *)pCursor);
  sqlite3_free(pCursor);
  return SQLITE_OK;
}

/* xEdge of graph_walk: queue a node not met yet, one hop deeper. */
static int gwWalkEdge(void *pCtx, int iFrom, GraphValue *pTo, sqlite3_value *pWeight) {
  GraphSet *pSet = (GraphSet *)pCtx;
  int iNode, bNew, rc;
  sqlite3_int64 iDepth = GW_AT(pSet, iFrom)->iDepth + 1;
  (void)pWeight;
  rc = graphSetAdd(pSet, pTo, &iNode, &bNew);
  if (rc == SQLITE_OK && bNew) {
    GW_AT(pSet, iNode)->iDepth = iDepth;
    GW_AT(pSet, iNode)->iParent = iFrom;
    GW_AT(pSet, iNode)->iRoot = GW_AT(pSet, iFrom)->iRoot;
  }
  return rc;
}

/*
** Take the cursor's source from the connection's cache when it is still
** valid; with bLoad, else read the whole source into a new cache entry.
** A source that cannot be held (graphCsrLoad()) or no memory for it leaves
** the cursor seeking. SQLITE_OK or an error of reading the source.
*/
static int gwCsrAttach(gw_cursor *pCur, int bLoad) {
  gw_vtab *p = (gw_vtab *)pCur->base.pVtab;
  GwCache *pHit = NULL;
  sqlite3_int64 aStamp[3];
  char *zKey, *zErr = NULL;
  int rc, i;
  /* The file is part of the key: DETACH then ATTACH of another file under
  ** the same name can leave the stamps as they were. An attached database
  ** without a file (:memory:) cannot be told from the next one: not held. */
  const char *zFile = sqlite3_db_filename(p->db, pCur->src.zSchema);
  int bNoFile = (zFile == NULL || zFile[0] == 0) && sqlite3_stricmp(pCur->src.zSchema, "main") != 0 &&
                sqlite3_stricmp(pCur->src.zSchema, "temp") != 0;
  if (pCur->src.bView || bNoFile) {
    pCur->bCsrTried = 1;
    return SQLITE_OK;
  }
  /* Quoted parts: names with any characters cannot run into one another. */
  zKey = sqlite3_mprintf("%Q.%Q.%Q.%Q.%d.%Q", pCur->src.zSchema, pCur->src.zTable, pCur->src.zFrom,
                         pCur->src.zTo, pCur->src.eLayout, zFile ? zFile : "");
  if (zKey == NULL) return SQLITE_NOMEM;
  /* The stamps cost two statements: read them only when a copy of this
  ** source is held, or one is about to be made. */
  for (i = 0, rc = SQLITE_DONE; i < GW_CACHE_N && rc == SQLITE_DONE; i++) {
    if (p->aCache[i].zKey && strcmp(p->aCache[i].zKey, zKey) == 0) rc = SQLITE_OK;
  }
  if (rc == SQLITE_DONE && !bLoad) {
    sqlite3_free(zKey);
    return SQLITE_OK;
  }
  rc = gwStamp(p->db, pCur->src.zSchema, aStamp);
  for (i = 0; rc == SQLITE_OK && i < GW_CACHE_N; i++) {
    GwCache *pC = &p->aCache[i];
    if (pC->zKey == NULL || strcmp(pC->zKey, zKey) != 0) continue;
    if (memcmp(pC->aStamp, aStamp, sizeof(aStamp)) == 0) {
      pHit = pC;
    } else {
      gwCacheClear(pC); /* Changed since: free it now */
    }
  }
  if (pHit) {
    /* Still valid: held, or known not to be holdable. */
    pHit->iUsed = ++p->iTick;
    if (pHit->pCsr) {
      pCur->pCsr = pHit->pCsr;
      pCur->pCsr->nRef++;
    }
    pCur->bCsrTried = 1;
  } else if (rc == SQLITE_OK && bLoad) {
    GraphCsr *pCsr = NULL;
    pCur->bCsrTried = 1;
    rc = graphCsrLoad(p->db, &pCur->src, GW_CSR_MAX_EDGE, 0, "graph_walk", &pCsr, &zErr);
    if (rc == SQLITE_NOMEM) rc = SQLITE_OK; /* Seeking still works */
    if (zErr) nosqlVtabError(pCur->base.pVtab, "%s", zErr);
    sqlite3_free(zErr);
    if (rc == SQLITE_OK && sqlite3_txn_state(p->db, pCur->src.zSchema) == SQLITE_TXN_WRITE) {
      /* Read inside a write transaction: a ROLLBACK would leave no trace in
      ** the stamps, so this copy serves this walk only. */
      pCur->pCsr = pCsr;
    } else if (rc == SQLITE_OK) {
      /* A free slot, else the least recently used; then room for the edges. */
      GwCache *pSlot = &p->aCache[0];
      sqlite3_int64 nHeld = 0, nNew = pCsr ? pCsr->nEdge : 0;
      for (i = 0; i < GW_CACHE_N; i++) {
        if (p->aCache[i].zKey == NULL) {
          pSlot = &p->aCache[i];
          break;
        }
        if (p->aCache[i].iUsed < pSlot->iUsed) pSlot = &p->aCache[i];
      }
      gwCacheClear(pSlot);
      for (i = 0; i < GW_CACHE_N; i++) nHeld += p->aCache[i].pCsr ? p->aCache[i].pCsr->nEdge : 0;
      while (nHeld + nNew > 2 * (sqlite3_int64)GW_CSR_MAX_EDGE) {
        GwCache *pOld = NULL;
        for (i = 0; i < GW_CACHE_N; i++) {
          if (p->aCache[i].pCsr && (pOld == NULL || p->aCache[i].iUsed < pOld->iUsed)) pOld = &p->aCache[i];
        }
        if (pOld == NULL) break;
        nHeld -= pOld->pCsr->nEdge;
        gwCacheClear(pOld);
      }
      pSlot->zKey = zKey;
      zKey = NULL;
      pSlot->pCsr = pCsr;
      pSlot->iUsed = ++p->iTick;
      memcpy(pSlot->aStamp, aStamp, sizeof(aStamp));
      if (pCsr) {
        pCur->pCsr = pCsr;
        pCsr->nRef++;
      }
    }
  }
  sqlite3_free(zKey);
  return rc;
}

/*
** The neighbours of node i from the in-memory edges; a node whose lookup
** SQLite would convert first, or whose JSON value is not an array, is read
** by the seek, which reports it as it always does.
*/
static int gwCsrNeighbours(gw_cursor *pCur, int i) {
  GraphCsr *pCsr = pCur->pCsr;
  GraphValue key = GW_AT(&pCur->set, i)->v; /* A copy: adding nodes may move the set */
  int iOut = -1, iIn = -1, rc = SQLITE_OK, d;
  sqlite3_int64 k;
  if (pCur->aMet == NULL) {
    pCur->aMet = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)pCsr->vals.n + 1));
    if (pCur->aMet == NULL) return SQLITE_NOMEM;
    memset(pCur->aMet, 0, sizeof(int) * ((size_t)pCsr->vals.n + 1));
  }
  if (pCur->eDir & GRAPH_DIR_OUT) {
    iOut = graphCsrLookup(pCsr, &key, 0);
    if (iOut == -2 || (iOut >= 0 && graphCsrIsBad(pCsr, iOut))) iOut = -3;
  }
  if (pCur->eDir & GRAPH_DIR_IN) iIn = graphCsrLookup(pCsr, &key, 1);
  if (iOut == -3 || iIn == -2) {
    return gwNeighbours(pCur->base.pVtab, "graph_walk", &pCur->src, &pCur->set, i, pCur->pStmt, gwWalkEdge,
                        &pCur->set);
  }
  for (d = 0; d < 2 && rc == SQLITE_OK; d++) {
    int j = d == 0 ? iOut : iIn;
    const sqlite3_int64 *aOff = d == 0 ? pCsr->aOutOff : pCsr->aInOff;
    const int *aAdj = d == 0 ? pCsr->aOut : pCsr->aIn;
    if (j < 0) continue;
    for (k = aOff[j]; rc == SQLITE_OK && k < aOff[j + 1]; k++) {
      /* Most edges lead to nodes met already: aMet answers without hashing. */
      int iVal = aAdj[k], iNode, bNew;
      if (pCur->aMet[iVal]) continue;
      rc = graphSetAdd(&pCur->set, (GraphValue *)graphSetAt(&pCsr->vals, iVal), &iNode, &bNew);
      if (rc != SQLITE_OK) break;
      pCur->aMet[iVal] = iNode + 1;
      if (bNew) {
        GW_AT(&pCur->set, iNode)->iDepth = GW_AT(&pCur->set, i)->iDepth + 1;
        GW_AT(&pCur->set, iNode)->iParent = i;
        GW_AT(&pCur->set, iNode)->iRoot = GW_AT(&pCur->set, i)->iRoot;
      }
    }
  }
  return rc;
}

/*
** Read neighbours until the queue has a row past iRow, or nothing is left.
** The first GW_CSR_AFTER nodes are expanded by index seeks (a small walk
** never reads more than it needs); a walk that goes on reads the whole
** source once into memory and continues there (GraphCsr), unless it cannot
** be held.
*/
static int gwWalkFill(gw_cursor *pCur) {
  int rc = SQLITE_OK;
  while (rc == SQLITE_OK && pCur->iRow >= pCur->set.n && pCur->iExpand < pCur->set.n) {
    int i = pCur->iExpand++;
    if (pCur->iMaxDepth >= 0 && GW_AT(&pCur->set, i)->iDepth >= pCur->iMaxDepth) continue;
    if (pCur->pCsr == NULL && !pCur->bCsrTried && pCur->iExpand > GW_CSR_AFTER) rc = gwCsrAttach(pCur, 1);
    if (rc != SQLITE_OK) break;
    if (pCur->pCsr) {
      rc = gwCsrNeighbours(pCur, i);
    } else {
      rc = gwNeighbours(pCur->base.pVtab, "graph_walk", &pCur->src, &pCur->set, i, pCur->pStmt, gwWalkEdge,
                        &pCur->set);
    }
  }
  return rc;
}

/*
** Add root pVal (not NULL): the node is pVal as "from_col = ?" sees it
** (graphSourceKey()), and the root column of every node reached from it
** reads back pVal as given. A root listed twice keeps its first entry.
*/
static int gwWalkRoot(gw_cursor *pCur, sqlite3_value *pVal) {
  sqlite3_value *pKey = NULL, **apNew;
  GraphValue key;
  int rc, iNode, bNew;
  apNew = (sqlite3_value **)sqlite3_realloc64(pCur->apRoot,
                                              sizeof(sqlite3_value *) * ((sqlite3_uint64)pCur->nRoot + 1));
  if (apNew == NULL) return SQLITE_NOMEM;
  pCur->apRoot = apNew;
  apNew[pCur->nRoot] = sqlite3_value_dup(pVal);
  if (apNew[pCur->nRoot] == NULL) return SQLITE_NOMEM;
  pCur->nRoot++;
  rc = graphSourceKey(((gw_vtab *)pCur->base.pVtab)->db, &pCur->src, pVal, &pKey);
  if (rc == SQLITE_OK) {
    graphValueFrom(pKey, &key);
    rc = graphSetAdd(&pCur->set, &key, &iNode, &bNew);
  }
  if (rc == SQLITE_OK && bNew) {
    GW_AT(&pCur->set, iNode)->iParent = -1;
    GW_AT(&pCur->set, iNode)->iRoot = pCur->nRoot - 1;
  }
  sqlite3_value_free(pKey);
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
  db = ((gw_vtab *)pVtab)->db;
  if (aArg[4].pEq && sqlite3_value_type(aArg[4].pEq) != SQLITE_NULL) {
    /* A number, or text that reads as one; the argument itself is not changed. */
    sqlite3_value *pNum = NULL;
    int eType;
    double r;
    rc = nosqlValueAffinity(db, aArg[4].pEq, 'n', &pNum);
    if (rc != SQLITE_OK) return rc;
    eType = sqlite3_value_type(pNum);
    r = sqlite3_value_double(pNum);
    if ((eType != SQLITE_INTEGER && !(eType == SQLITE_FLOAT && r == floor(r))) || r < 0) {
      char *zQ = gwQuote(aArg[4].pEq);
      nosqlVtabError(pVtab, "graph_walk: max_depth must be an integer of 0 or more, not %s", zQ ? zQ : "?");
      sqlite3_free(zQ);
      sqlite3_value_free(pNum);
      return SQLITE_ERROR;
    }
    pCur->iMaxDepth = r > 9e18 ? INT64_MAX : sqlite3_value_int64(pNum);
    sqlite3_value_free(pNum);
  }
  rc = gwDirection(pVtab, "graph_walk", aArg[5].pEq, &eDir);
  if (rc == SQLITE_OK) rc = gwLayout(pVtab, "graph_walk", aArg[6].pEq, &eLayout);
  if (rc != SQLITE_OK) return rc;
  for (i = 0; i < 3; i++) apSrc[i] = aArg[i].pEq;
  rc = gwPrepare(pVtab, db, "graph_walk", apSrc, NULL, eLayout, eDir, &pCur->src, &pCur->pStmt);
  if (rc != SQLITE_OK) return rc;
  pCur->eDir = eDir;
  /* A source already held and unchanged is used from the first node. */
  rc = gwCsrAttach(pCur, 0);
  if (rc != SQLITE_OK) return rc;
  pCur->bCsrTried = pCur->pCsr != NULL;
  /* The roots: one value, or a whole IN list. */
  if (aArg[3].bInList) {
    sqlite3_value *pVal = NULL;
    for (rc = sqlite3_vtab_in_first(aArg[3].pEq, &pVal); rc == SQLITE_OK && pVal;
         rc = sqlite3_vtab_in_next(aArg[3].pEq, &pVal)) {
      if (sqlite3_value_type(pVal) == SQLITE_NULL) continue; /* NULL in a list matches nothing */
      rc = gwWalkRoot(pCur, pVal);
      if (rc != SQLITE_OK) return rc;
    }
    if (rc != SQLITE_DONE && rc != SQLITE_OK) return rc;
  } else {
    if (sqlite3_value_type(aArg[3].pEq) == SQLITE_NULL) {
      nosqlVtabError(pVtab, "graph_walk: root is NULL");
      return SQLITE_ERROR;
    }
    rc = gwWalkRoot(pCur, aArg[3].pEq);
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
  const GwNode *pNode = GW_AT(&pCur->set, pCur->iRow);
  switch (iCol) {
    case GW_NODE:
      graphValueResult(ctx, &pNode->v);
      break;
    case GW_DEPTH:
      sqlite3_result_int64(ctx, pNode->iDepth);
      break;
    case GW_PARENT:
      if (pNode->iParent >= 0) graphValueResult(ctx, &GW_AT(&pCur->set, pNode->iParent)->v);
      break;
    case GW_ROOT:
      /* The root this node was reached from, as given (a whole IN list has one per node). */
      if (pNode->iRoot < pCur->nRoot) sqlite3_result_value(ctx, pCur->apRoot[pNode->iRoot]);
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
  double rCost;        /* Cost when pushed (stale when the node's cost fell since) */
  sqlite3_int64 iCost; /* The same, exact, when bInt */
  int bInt;            /* iCost holds the cost (every weight on the way an integer) */
  int iNode;           /* Index into the node set */
};

/*
** Is cost (rA, iA, bIntA) less than (rB, iB, bIntB)? Integers compare
** exactly (two costs past 2^53 may be one double apart or none), anything
** else as doubles.
*/
static int gpLess(double rA, sqlite3_int64 iA, int bIntA, double rB, sqlite3_int64 iB, int bIntB) {
  return (bIntA && bIntB) ? iA < iB : rA < rB;
}

typedef struct gp_cursor gp_cursor;
struct gp_cursor {
  sqlite3_vtab_cursor base; /* Base class - must be first */
  GraphSource src;          /* The edge source */
  sqlite3_stmt *pStmt;      /* Neighbour statement */
  GraphSet set;             /* Nodes met */
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
                   "start BLOB HIDDEN, goal BLOB HIDDEN, weight_col HIDDEN, direction HIDDEN, layout HIDDEN)",
                   ppVtab);
}

static int gpBestIndexFunc(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo) {
  (void)pVtab;
  return gwBestIndex(pInfo, aGpPlan, 8, 5);
}

static int gpOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor) {
  gp_cursor *pCur = (gp_cursor *)nosqlCursorNew(sizeof(gp_cursor), ppCursor);
  (void)pVtab;
  if (pCur == NULL) return SQLITE_NOMEM;
  pCur->set.szElem = (int)sizeof(GwNode);
  return SQLITE_OK;
}

static void gpReset(gp_cursor *pCur) {
  int i;
  sqlite3_finalize(pCur->pStmt);
  pCur->pStmt = NULL;
  graphSourceClear(&pCur->src);
  graphSetClear(&pCur->set);
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

static int gpHeapPush(gp_cursor *pCur, double rCost, sqlite3_int64 iCost, int bInt, int iNode) {
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
  for (i = pCur->nHeap++; i > 0; i = (i - 1) / 2) {
    const GpHeapItem *pUp = &pCur->aHeap[(i - 1) / 2];
    if (!gpLess(rCost, iCost, bInt, pUp->rCost, pUp->iCost, pUp->bInt)) break;
    pCur->aHeap[i] = *pUp;
  }
  pCur->aHeap[i].rCost = rCost;
  pCur->aHeap[i].iCost = iCost;
  pCur->aHeap[i].bInt = bInt;
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
    if (c + 1 < pCur->nHeap &&
        gpLess(pCur->aHeap[c + 1].rCost, pCur->aHeap[c + 1].iCost, pCur->aHeap[c + 1].bInt,
               pCur->aHeap[c].rCost, pCur->aHeap[c].iCost, pCur->aHeap[c].bInt)) {
      c++;
    }
    if (!gpLess(pCur->aHeap[c].rCost, pCur->aHeap[c].iCost, pCur->aHeap[c].bInt, last.rCost, last.iCost,
                last.bInt)) {
      break;
    }
    pCur->aHeap[i] = pCur->aHeap[c];
    i = c;
  }
  if (pCur->nHeap > 0) pCur->aHeap[i] = last;
  return top;
}

/* xEdge of the breadth-first search: as graph_walk's, and notice the goal. */
static int gpBfsEdge(void *pCtx, int iFrom, GraphValue *pTo, sqlite3_value *pWeight) {
  gp_cursor *pCur = (gp_cursor *)pCtx;
  int iNode, bNew, rc;
  (void)pWeight;
  rc = graphSetAdd(&pCur->set, pTo, &iNode, &bNew);
  /* The goal (node 1) is in the set from the start: it is reached by the
  ** first edge that leads to it. */
  if (rc == SQLITE_OK && (bNew || (iNode == 1 && pCur->iGoal < 0))) {
    GW_AT(&pCur->set, iNode)->iDepth = GW_AT(&pCur->set, iFrom)->iDepth + 1;
    GW_AT(&pCur->set, iNode)->iParent = iFrom;
    if (iNode == 1) pCur->iGoal = 1;
  }
  return rc;
}

/* xEdge of Dijkstra's algorithm: relax the edge iFrom -> pTo. */
static int gpDijkstraEdge(void *pCtx, int iFrom, GraphValue *pTo, sqlite3_value *pWeight) {
  gp_cursor *pCur = (gp_cursor *)pCtx;
  int eType = sqlite3_value_type(pWeight), iNode, bNew, rc, bInt;
  double w, rNew;
  sqlite3_int64 iNew = 0;
  const GwNode *pFrom;
  if (eType != SQLITE_INTEGER && eType != SQLITE_FLOAT) {
    char *zFrom = graphValueText(&GW_AT(&pCur->set, iFrom)->v), *zTo = graphValueText(pTo),
         *zW = gwQuote(pWeight);
    nosqlVtabError(pCur->base.pVtab, "graph_path: the weight of edge %s -> %s is %s, not a number",
                   zFrom ? zFrom : "?", zTo ? zTo : "?", zW ? zW : "?");
    sqlite3_free(zFrom);
    sqlite3_free(zTo);
    sqlite3_free(zW);
    return SQLITE_ERROR;
  }
  w = sqlite3_value_double(pWeight);
  if (w < 0 || isnan(w)) {
    char *zFrom = graphValueText(&GW_AT(&pCur->set, iFrom)->v), *zTo = graphValueText(pTo),
         *zW = gwQuote(pWeight);
    nosqlVtabError(pCur->base.pVtab, "graph_path: edge %s -> %s has the negative weight %s",
                   zFrom ? zFrom : "?", zTo ? zTo : "?", zW ? zW : "?");
    sqlite3_free(zFrom);
    sqlite3_free(zTo);
    sqlite3_free(zW);
    return SQLITE_ERROR;
  }
  pFrom = GW_AT(&pCur->set, iFrom);
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
  rc = graphSetAdd(&pCur->set, pTo, &iNode, &bNew);
  if (rc != SQLITE_OK) return rc;
  {
    GwNode *pN = GW_AT(&pCur->set, iNode); /* After gwSetAdd: the array may have moved */
    /* Not reached yet (the goal waits with no parent), or reached for more. */
    int bReached = !bNew && pN->iParent >= 0;
    if (!bNew && pN->bDone) return SQLITE_OK;
    if (bReached && !gpLess(rNew, iNew, bInt, pN->rCost, pN->iCost, pN->bIntCost)) return SQLITE_OK;
    pN->rCost = rNew;
    pN->iCost = iNew;
    pN->bIntCost = bInt;
    pN->iParent = iFrom;
  }
  return gpHeapPush(pCur, rNew, iNew, bInt, iNode);
}

/* Fill aRoute from the goal's parent links. */
static int gpRoute(gp_cursor *pCur) {
  int i, n = 0;
  for (i = pCur->iGoal; i >= 0; i = GW_AT(&pCur->set, i)->iParent) n++;
  pCur->aRoute = (int *)sqlite3_malloc64(sizeof(int) * (sqlite3_uint64)n);
  if (pCur->aRoute == NULL) return SQLITE_NOMEM;
  pCur->nRoute = n;
  for (i = pCur->iGoal; i >= 0; i = GW_AT(&pCur->set, i)->iParent) pCur->aRoute[--n] = i;
  return SQLITE_OK;
}

static int gpFilter(sqlite3_vtab_cursor *pCursor, int idxNum, const char *idxStr, int argc,
                    sqlite3_value **argv) {
  gp_cursor *pCur = (gp_cursor *)pCursor;
  sqlite3_vtab *pVtab = pCursor->pVtab;
  NosqlPlanArg aArg[8];
  sqlite3_value *apSrc[3];
  GraphValue start, goal;
  sqlite3_value *pStart = NULL, *pGoal = NULL;
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
  if (sqlite3_value_type(aArg[3].pEq) == SQLITE_NULL || sqlite3_value_type(aArg[4].pEq) == SQLITE_NULL) {
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
  /* Node 0 is the start, node 1 the goal (unless they are one node), each
  ** as "from_col = ?" sees it (graphSourceKey(): '1' is 1 in an INTEGER column). */
  rc = graphSourceKey(((gw_vtab *)pVtab)->db, &pCur->src, aArg[3].pEq, &pStart);
  if (rc == SQLITE_OK) rc = graphSourceKey(((gw_vtab *)pVtab)->db, &pCur->src, aArg[4].pEq, &pGoal);
  if (rc == SQLITE_OK) {
    graphValueFrom(pStart, &start);
    graphValueFrom(pGoal, &goal);
    rc = graphSetAdd(&pCur->set, &start, &iNode, &bNew);
  }
  if (rc == SQLITE_OK) {
    GW_AT(&pCur->set, 0)->iParent = -1;
    GW_AT(&pCur->set, 0)->bIntCost = 1;
    rc = graphSetAdd(&pCur->set, &goal, &iNode, &bNew);
  }
  sqlite3_value_free(pStart);
  sqlite3_value_free(pGoal);
  if (rc != SQLITE_OK) return rc;
  GW_AT(&pCur->set, iNode)->iParent = -1;
  if (!bNew) {
    pCur->iGoal = 0; /* start = goal: one row */
    return gpRoute(pCur);
  }
  if (!pCur->bWeighted) {
    /* Breadth first, in the order nodes were met; the goal is not expanded. */
    int iNext;
    for (iNext = 0; rc == SQLITE_OK && pCur->iGoal < 0 && iNext < pCur->set.n; iNext++) {
      if (iNext == 1) continue;
      rc = gwNeighbours(pVtab, "graph_path", &pCur->src, &pCur->set, iNext, pCur->pStmt, gpBfsEdge, pCur);
    }
    if (rc != SQLITE_OK || pCur->iGoal < 0) return rc;
    return gpRoute(pCur);
  }
  /* Dijkstra: the goal is in the set but not in the heap until an edge reaches it. */
  GW_AT(&pCur->set, 1)->rCost = INFINITY;
  rc = gpHeapPush(pCur, 0.0, 0, 1, 0);
  while (rc == SQLITE_OK && pCur->nHeap > 0) {
    GpHeapItem top = gpHeapPop(pCur);
    GwNode *pN = GW_AT(&pCur->set, top.iNode);
    if (pN->bDone || gpLess(pN->rCost, pN->iCost, pN->bIntCost, top.rCost, top.iCost, top.bInt)) {
      continue; /* A stale entry */
    }
    pN->bDone = 1;
    if (top.iNode == 1) {
      pCur->iGoal = 1;
      break;
    }
    rc = gwNeighbours(pVtab, "graph_path", &pCur->src, &pCur->set, top.iNode, pCur->pStmt, gpDijkstraEdge,
                      pCur);
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
  const GwNode *pNode = GW_AT(&pCur->set, pCur->aRoute[pCur->iRow]);
  switch (iCol) {
    case GP_STEP:
      sqlite3_result_int(ctx, pCur->iRow);
      break;
    case GP_NODE:
      graphValueResult(ctx, &pNode->v);
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
