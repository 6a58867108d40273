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
** from the nearest root, as with $graphLookup's startWith array). The
** optional arguments may also be named in a JSON object given last,
** graph_path('e', 'a', 'b', 1, 2, '{"direction": "both"}') (gwOptions(),
** nosqlOptionsRead() in ext/util.c; the rules in docs/graphs.md).
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
** Nodes: a GraphSet (ext/graph_csr.c) of GwNode elements.
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
  char *zKey;              /* schema, table, from_col, to_col, weight_col, layout, file; NULL: free slot */
  GraphCsr *pCsr;          /* The edges, or NULL: the source cannot be held */
  sqlite3_int64 aStamp[3]; /* total_changes, schema_version, data_version at the load */
  sqlite3_int64 iUsed;     /* When last used (gw_vtab.iTick) */
};

#ifndef GW_CACHE_N
#define GW_CACHE_N 4
#endif

/*
** Sources resolved lately (graphSourceInit(): the table found, its columns,
** indexes and order, and whether it is plain), by their arguments' text,
** kept while no schema of the connection changes: a route or walk on a
** small graph otherwise spends most of its time resolving its source
** again (1.4M instructions a call). pValid reads every schema's
** sqlite_schema with WHERE 0: SQLite prepares it again after any schema
** change (this connection's or another's, CREATE INDEX included) and after
** a DETACH, which the REPREPARE counter shows, and fails once a schema it
** names is gone; an ATTACH comes after the schemas that resolved a name
** already. Either empties the cache.
*/
#ifndef GW_SRC_N
#define GW_SRC_N 8
#endif
typedef struct GwSrc GwSrc;
struct GwSrc {
  char *zKey;          /* Layout, then source, from_col, to_col and weight_col as given; NULL: free */
  GraphSource src;     /* The source resolved */
  sqlite3_int64 iUsed; /* When last used (gw_vtab.iTick) */
};

/*
** What graph_walk and graph_path share on a connection (the pAux of both
** modules, freed when the last of them goes): the sources held in memory
** and the sources resolved lately, so that a copy one of them read serves
** the other.
*/
typedef struct GwShared GwShared;
struct GwShared {
  int nRef;    /* References: the modules, their tables, and graphWalkRegister() while it runs */
  sqlite3 *db; /* The connection */
  GwCache aCache[GW_CACHE_N]; /* Sources held in memory */
  sqlite3_int64 iTick;        /* Use counter for aCache[].iUsed and aSrc[].iUsed */
  GwSrc aSrc[GW_SRC_N];       /* Sources resolved lately */
  sqlite3_stmt *pValid;       /* Tells a schema change (see GwSrc), or NULL */
  int nValidPrep;             /* Its REPREPARE count when aSrc was last checked */
  char **azValid;             /* The schemas pValid reads */
  int nValid;                 /* Entries of azValid */
  sqlite3_stmt *apStamp[2];   /* gwStamp()'s two PRAGMAs for schema zStamp, or NULL */
  char *zStamp;               /* The schema they read */
  char *zSeekKey;             /* graph_path: the source the last routes sought (gpSeekKey()), or NULL */
  int nSeekExpand;            /* Nodes they expanded by seeks (see gpExpand()) */
};

/* The table of both functions: the connection it reads, and what they share. */
typedef struct gw_vtab gw_vtab;
struct gw_vtab {
  sqlite3_vtab base; /* Base class - must be first */
  sqlite3 *db;       /* The connection */
  GwShared *pShared; /* The caches (the module's pAux) */
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

/* Finalize gwStamp()'s statements. */
static void gwStampReset(GwShared *p) {
  sqlite3_finalize(p->apStamp[0]);
  sqlite3_finalize(p->apStamp[1]);
  p->apStamp[0] = p->apStamp[1] = NULL;
  sqlite3_free(p->zStamp);
  p->zStamp = NULL;
}

/*
** What could change a source: see GwCache. The two PRAGMA statements are
** kept for the last schema read (a warm route would otherwise prepare them
** each call); any error drops them, and the next call prepares them again.
*/
static int gwStamp(GwShared *p, const char *zSchema, sqlite3_int64 *aStamp) {
  static const char *azPragma[2] = {"schema_version", "data_version"};
  int i, rc = SQLITE_OK;
  aStamp[0] = sqlite3_total_changes64(p->db);
  if (p->zStamp == NULL || strcmp(p->zStamp, zSchema) != 0) {
    gwStampReset(p);
    p->zStamp = sqlite3_mprintf("%s", zSchema);
    if (p->zStamp == NULL) return SQLITE_NOMEM;
  }
  for (i = 0; i < 2 && rc == SQLITE_OK; i++) {
    if (p->apStamp[i] == NULL) {
      char *zSql = sqlite3_mprintf("PRAGMA \"%w\".%s", zSchema, azPragma[i]);
      rc = zSql ? sqlite3_prepare_v2(p->db, zSql, -1, &p->apStamp[i], 0) : SQLITE_NOMEM;
      sqlite3_free(zSql);
    }
    if (rc == SQLITE_OK) {
      aStamp[i + 1] = sqlite3_step(p->apStamp[i]) == SQLITE_ROW ? sqlite3_column_int64(p->apStamp[i], 0) : -1;
      rc = sqlite3_reset(p->apStamp[i]);
    }
  }
  if (rc != SQLITE_OK) gwStampReset(p);
  return rc;
}

/* Connect an eponymous function with declaration zDecl. */
static int gwConnect(sqlite3 *db, void *pAux, const char *zDecl, sqlite3_vtab **ppVtab) {
  int rc = nosqlVtabNew(db, zDecl, sizeof(gw_vtab), ppVtab);
  if (rc == SQLITE_OK) {
    /* The table holds a reference too: SQLite may free a replaced module
    ** (a second load of the extension) before it disconnects its table. */
    ((gw_vtab *)*ppVtab)->db = db;
    ((gw_vtab *)*ppVtab)->pShared = (GwShared *)pAux;
    ((GwShared *)pAux)->nRef++;
  }
  return rc;
}

/* Forget every source resolved (GwSrc). */
static void gwSrcFlush(GwShared *p) {
  int i;
  for (i = 0; i < GW_SRC_N; i++) {
    sqlite3_free(p->aSrc[i].zKey);
    graphSourceClear(&p->aSrc[i].src);
    memset(&p->aSrc[i], 0, sizeof(p->aSrc[i]));
  }
}

/* Drop pValid and the stamp statements, and forget every source. */
static void gwSrcReset(GwShared *p) {
  int i;
  gwSrcFlush(p);
  gwStampReset(p);
  sqlite3_finalize(p->pValid);
  p->pValid = NULL;
  for (i = 0; i < p->nValid; i++) sqlite3_free(p->azValid[i]);
  sqlite3_free(p->azValid);
  p->azValid = NULL;
  p->nValid = 0;
}

/* An error that a cache step must pass on (the call fails with it), not only stop caching. */
#define GW_SRC_FATAL(rc) ((rc) == SQLITE_INTERRUPT || (rc) == SQLITE_NOMEM)

/*
** Make pValid for the schemas attached now (see GwSrc). On an error pValid
** stays NULL: no caching; an interrupt or OOM is returned, other errors
** (an attached file that cannot be read now, say) are not.
*/
static int gwSrcValidMake(GwShared *p) {
  sqlite3_stmt *pList = NULL;
  NosqlBuffer b = {0, 0, 0};
  int rc = sqlite3_prepare_v2(p->db, "SELECT name FROM pragma_database_list", -1, &pList, 0);
  while (rc == SQLITE_OK && sqlite3_step(pList) == SQLITE_ROW) {
    const char *zName = (const char *)sqlite3_column_text(pList, 0);
    char **az = (char **)sqlite3_realloc64(p->azValid, sizeof(char *) * ((sqlite3_uint64)p->nValid + 1));
    if (az == NULL || zName == NULL) {
      if (az) p->azValid = az;
      rc = SQLITE_NOMEM;
      break;
    }
    p->azValid = az;
    az[p->nValid] = sqlite3_mprintf("%s", zName);
    if (az[p->nValid] == NULL) rc = SQLITE_NOMEM;
    if (rc == SQLITE_OK) p->nValid++;
    nosqlBufferAppendf(&rc, &b, "%sSELECT 1 FROM \"%w\".sqlite_schema WHERE 0", b.n ? " UNION ALL " : "",
                       zName);
  }
  if (rc == SQLITE_OK) {
    rc = sqlite3_finalize(pList);
  } else {
    sqlite3_finalize(pList);
  }
  if (rc == SQLITE_OK && b.n) rc = sqlite3_prepare_v2(p->db, (const char *)b.a, -1, &p->pValid, 0);
  if (rc == SQLITE_OK && p->pValid) {
    sqlite3_step(p->pValid);
    rc = sqlite3_reset(p->pValid);
  }
  nosqlBufferFree(&b);
  if (rc == SQLITE_OK && p->pValid) {
    p->nValidPrep = sqlite3_stmt_status(p->pValid, SQLITE_STMTSTATUS_REPREPARE, 0);
    return SQLITE_OK;
  }
  gwSrcReset(p);
  return GW_SRC_FATAL(rc) ? rc : SQLITE_OK;
}

/*
** Keep p->aSrc only while no schema changed since it was filled (see
** GwSrc). SQLITE_OK, or an interrupt or OOM met on the way.
*/
static int gwSrcCheck(GwShared *p) {
  if (p->pValid) {
    int rc, n;
    sqlite3_step(p->pValid);
    rc = sqlite3_reset(p->pValid);
    n = sqlite3_stmt_status(p->pValid, SQLITE_STMTSTATUS_REPREPARE, 0);
    if (rc == SQLITE_OK && n == p->nValidPrep) return SQLITE_OK;
    if (rc == SQLITE_OK) {
      gwSrcFlush(p);
      p->nValidPrep = n;
      return SQLITE_OK;
    }
    if (GW_SRC_FATAL(rc)) {
      gwSrcReset(p);
      return rc;
    }
  }
  gwSrcReset(p);
  return gwSrcValidMake(p);
}

/* Does pValid read schema zSchema? */
static int gwSrcCovers(const GwShared *p, const char *zSchema) {
  int i;
  for (i = 0; i < p->nValid; i++) {
    if (sqlite3_stricmp(p->azValid[i], zSchema) == 0) return 1;
  }
  return 0;
}

/*
** graphSourceInit() through the cache of sources resolved lately: the same
** result and errors (errors are not kept). Arguments that are not text
** (from_col, to_col, weight_col: text or NULL) go straight to
** graphSourceInit().
*/
static int gwSourceInit(GwShared *p, const char *zFunc, sqlite3_value **apSrc, sqlite3_value *pWeight,
                        int eLayout, GraphSource *pSrc, char **pzErr) {
  char *zKey = NULL;
  int i, iFree = 0, rc;
  /* Text, or NULL for the columns (a graph_index's own): length -1. */
  for (i = 0; i < 3; i++) {
    int eType = sqlite3_value_type(apSrc[i]);
    if (eType != SQLITE_TEXT && (i == 0 || eType != SQLITE_NULL)) break;
  }
  if (i == 3 && (pWeight == NULL || sqlite3_value_type(pWeight) == SQLITE_TEXT)) {
    const char *az[4];
    int an[4];
    for (i = 0; i < 4; i++) {
      sqlite3_value *pV = i < 3 ? apSrc[i] : pWeight;
      az[i] = pV ? (const char *)sqlite3_value_text(pV) : NULL;
      an[i] = az[i] ? sqlite3_value_bytes(pV) : -1;
    }
    zKey = sqlite3_mprintf("%d %d:%s %d:%s %d:%s %d:%s", eLayout, an[0], az[0] ? az[0] : "", an[1],
                           az[1] ? az[1] : "", an[2], az[2] ? az[2] : "", an[3], az[3] ? az[3] : "");
  }
  if (zKey) {
    rc = gwSrcCheck(p);
    if (rc != SQLITE_OK) {
      sqlite3_free(zKey);
      *pzErr = NULL;
      return rc;
    }
    for (i = 0; p->pValid && i < GW_SRC_N; i++) {
      GwSrc *pE = &p->aSrc[i];
      if (pE->zKey && strcmp(pE->zKey, zKey) == 0) {
        sqlite3_free(zKey);
        pE->iUsed = ++p->iTick;
        *pzErr = NULL;
        return graphSourceCopy(&pE->src, pSrc);
      }
      if (pE->iUsed < p->aSrc[iFree].iUsed) iFree = i;
    }
  }
  rc = graphSourceInit(p->db, zFunc, apSrc[0], apSrc[1], apSrc[2], pWeight, eLayout, pSrc, pzErr);
  if (rc == SQLITE_OK && zKey && p->pValid && !gwSrcCovers(p, pSrc->zSchema)) {
    /* A schema attached since pValid was made: read it too from now on. */
    gwSrcReset(p);
    rc = gwSrcValidMake(p);
    iFree = 0;
  }
  if (rc == SQLITE_OK && zKey && p->pValid && gwSrcCovers(p, pSrc->zSchema)) {
    /* Kept with the answer of graphSourcePlain() too (asked once here). */
    GwSrc *pE = &p->aSrc[iFree];
    int bPlain;
    sqlite3_free(pE->zKey);
    graphSourceClear(&pE->src);
    pE->zKey = NULL;
    rc = graphSourcePlain(p->db, pSrc, &bPlain); /* Its errors are an interrupt or OOM: the call's */
    if (rc == SQLITE_OK && graphSourceCopy(pSrc, &pE->src) == SQLITE_OK) {
      pE->zKey = zKey;
      pE->iUsed = ++p->iTick;
      zKey = NULL;
    }
  }
  sqlite3_free(zKey);
  return rc;
}

/*
** The shared pValid is a statement: it goes with either table (sqlite3_close()
** disconnects them before it looks for statements left; a later call makes
** it again).
*/
static void gwSharedUnref(void *pArg);
static int gwDisconnect(sqlite3_vtab *pVtab) {
  GwShared *pShared = ((gw_vtab *)pVtab)->pShared;
  gwSrcReset(pShared);
  gwSharedUnref(pShared);
  sqlite3_free(pVtab);
  return SQLITE_OK;
}

/* Drop a reference to p; the last frees the caches. */
static void gwSharedUnref(void *pArg) {
  GwShared *p = (GwShared *)pArg;
  int i;
  if (p == NULL || --p->nRef > 0) return;
  for (i = 0; i < GW_CACHE_N; i++) gwCacheClear(&p->aCache[i]);
  gwSrcReset(p);
  sqlite3_free(p->zSeekKey);
  sqlite3_free(p);
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
  rc = gwSourceInit(((gw_vtab *)pVtab)->pShared, zFunc, apSrc, pWeight, eLayout, pSrc, &zErr);
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
** The options object (nosqlOptionsRead(), ext/util.c) of a function whose
** inputs aOpt[0..nArg) are planned as aArg[], the first nReq required:
** after it, aArg[i].pEq of each optional input is the value to use (the
** object's, where it gives one), and apOwn[0..nArg) holds the values the
** object made (the cursor frees them). The hidden columns keep reading the
** inputs as given.
*/
static int gwOptions(sqlite3_vtab *pVtab, const char *zFunc, const NosqlOption *aOpt, int nReq, int nArg,
                     NosqlPlanArg *aArg, sqlite3_value **apOwn) {
  sqlite3_value *apArg[8], *apEff[8];
  char *zErr = NULL;
  int i, iObj, rc;
  for (i = 0; i < nArg; i++) apArg[i] = aArg[i].pEq;
  rc = nosqlOptionsRead(((gw_vtab *)pVtab)->db, zFunc, aOpt, nReq, nArg, apArg, apEff, apOwn, &iObj, &zErr);
  if (rc != SQLITE_OK) {
    if (zErr) nosqlVtabError(pVtab, "%s", zErr);
    if (zErr && pVtab->zErrMsg == NULL) rc = SQLITE_NOMEM;
    sqlite3_free(zErr);
    return rc;
  }
  for (i = nReq; i < nArg; i++) aArg[i].pEq = apEff[i];
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

/* The plan (ext/plan.c, nosqlPlanInputs()): every input an equality, the first four required. */
static const NosqlPlanCol aGwPlan[] = {
    {GW_SOURCE, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 1},
    {GW_FROM, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 1},
    {GW_TO, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 1},
    {GW_ROOT, NOSQL_OP_EQ | NOSQL_OP_INLIST, NOSQL_COLL_ANY, 1, 1},
    {GW_MAXDEPTH, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0},
    {GW_DIRECTION, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0},
    {GW_LAYOUT, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0},
};
/* The inputs as options-object keys: max_depth, direction and layout can be. */
static const NosqlOption aGwOpt[] = {
    {"source", NOSQL_OPT_TEXT}, {"from_col", NOSQL_OPT_TEXT}, {"to_col", NOSQL_OPT_TEXT},
    {"root", NOSQL_OPT_TEXT},   {"max_depth", NOSQL_OPT_INT}, {"direction", NOSQL_OPT_TEXT},
    {"layout", NOSQL_OPT_TEXT},
};

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
  sqlite3_value *apOwn[7];  /* The values of an options object (gwOptions()) */
  sqlite3_value **apRoot;   /* The roots as given (one, or each of an IN list), for the root column */
  int nRoot;                /* Entries of apRoot */
  int eDir;                 /* GRAPH_DIR_* */
  GraphCsr *pCsr;           /* The edges in memory (a reference), or NULL: seek */
  int bCsrTried;            /* Loading was tried (or is not to be) */
  int *aMet;                /* With pCsr: per value of pCsr, its node index + 1, 0 not met yet */
};

static int gwWalkConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                         char **pzErr) {
  (void)argc;
  (void)argv;
  (void)pzErr;
  return gwConnect(
      db, pAux,
      /* root BLOB: no affinity ("root HIDDEN" alone is NUMERIC, and IN
      ** applies it: root IN ('02134') became 2134). */
      "CREATE TABLE x(node, depth INTEGER, parent, source HIDDEN, from_col HIDDEN, to_col HIDDEN, "
      "root BLOB HIDDEN, max_depth HIDDEN, direction HIDDEN, layout HIDDEN)",
      ppVtab);
}

static int gwWalkBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo) {
  (void)pVtab;
  return nosqlPlanInputs(pInfo, aGwPlan, 7, 1000, 1000);
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
    sqlite3_value_free(pCur->apOwn[i]);
    pCur->apIn[i] = pCur->apOwn[i] = NULL;
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
** Take source pSrc from the connection's cache when it is still valid;
** with bLoad, else read the whole source into a new cache entry. On return
** *ppCsr is a reference the caller owns (graphCsrUnref()) or NULL, and
** *pbTried is set when loading was done or is not to be tried again. A
** source that cannot be held (graphSourceLoad()) or no memory for it leaves
** *ppCsr NULL: the caller seeks. With bLoad == GW_LOAD_NEEDED no memory is
** SQLITE_NOMEM instead: a route that would search another way without the
** copy (from one end, where ties may go another way). zFunc names the
** caller in messages. SQLITE_OK or an error of reading the source.
*/
#define GW_LOAD_NEEDED 2
static int gwCsrAttach(sqlite3_vtab *pVtab, const char *zFunc, GraphSource *pSrc, int bLoad, GraphCsr **ppCsr,
                       int *pbTried) {
  GwShared *p = ((gw_vtab *)pVtab)->pShared;
  GwCache *pHit = NULL;
  sqlite3_int64 aStamp[3];
  char *zKey, *zErr = NULL;
  int rc, i;
  /* The file is part of the key: DETACH then ATTACH of another file under
  ** the same name can leave the stamps as they were. An attached database
  ** without a file (:memory:) cannot be told from the next one: not held. */
  const char *zFile = sqlite3_db_filename(p->db, pSrc->zSchema);
  int bNoFile = (zFile == NULL || zFile[0] == 0) && sqlite3_stricmp(pSrc->zSchema, "main") != 0 &&
                sqlite3_stricmp(pSrc->zSchema, "temp") != 0;
  if (pSrc->bView || bNoFile) {
    *pbTried = 1;
    return SQLITE_OK;
  }
  /* Quoted parts: names with any characters cannot run into one another. */
  zKey = sqlite3_mprintf("%Q.%Q.%Q.%Q.%Q.%d.%Q", pSrc->zSchema, pSrc->zTable, pSrc->zFrom, pSrc->zTo,
                         pSrc->zWeight, pSrc->eLayout, zFile ? zFile : "");
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
  rc = gwStamp(p, pSrc->zSchema, aStamp);
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
      *ppCsr = pHit->pCsr;
      (*ppCsr)->nRef++;
    }
    *pbTried = 1;
  } else if (rc == SQLITE_OK && bLoad) {
    GraphCsr *pCsr = NULL;
    *pbTried = 1;
    rc = graphSourceLoad(p->db, pSrc, GW_CSR_MAX_EDGE, 0, zFunc, &pCsr, &zErr);
    if (rc == SQLITE_NOMEM && bLoad != GW_LOAD_NEEDED) rc = SQLITE_OK; /* Seeking still works */
    if (zErr) nosqlVtabError(pVtab, "%s", zErr);
    sqlite3_free(zErr);
    if (rc == SQLITE_OK && sqlite3_txn_state(p->db, pSrc->zSchema) == SQLITE_TXN_WRITE) {
      /* Read inside a write transaction: a ROLLBACK would leave no trace in
      ** the stamps, so this copy serves this walk only. */
      *ppCsr = pCsr;
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
        *ppCsr = pCsr;
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
    if (pCur->pCsr == NULL && !pCur->bCsrTried && pCur->iExpand > GW_CSR_AFTER)
      rc = gwCsrAttach(pCur->base.pVtab, "graph_walk", &pCur->src, 1, &pCur->pCsr, &pCur->bCsrTried);
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
  rc = nosqlPlanInputArgs(pVtab,
                          "graph_walk(source, from_col, to_col, root[, max_depth[, direction[, layout]]])",
                          aGwPlan, 7, idxStr, argc, argv, aArg);
  if (rc != SQLITE_OK) return rc;
  for (i = 0; i < 7; i++) {
    if (aArg[i].pEq && !aArg[i].bInList) {
      pCur->apIn[i] = sqlite3_value_dup(aArg[i].pEq);
      if (pCur->apIn[i] == NULL) return SQLITE_NOMEM;
    }
  }
  rc = gwOptions(pVtab, "graph_walk", aGwOpt, 4, 7, aArg, pCur->apOwn);
  if (rc != SQLITE_OK) return rc;
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
  rc = graphDirectionArg(pVtab, "graph_walk", aArg[5].pEq, &eDir);
  if (rc == SQLITE_OK) rc = graphLayoutArg(pVtab, "graph_walk", aArg[6].pEq, &eLayout);
  if (rc != SQLITE_OK) return rc;
  for (i = 0; i < 3; i++) apSrc[i] = aArg[i].pEq;
  rc = gwPrepare(pVtab, db, "graph_walk", apSrc, NULL, eLayout, eDir, &pCur->src, &pCur->pStmt);
  if (rc != SQLITE_OK) return rc;
  pCur->eDir = eDir;
  /* A source already held and unchanged is used from the first node. */
  rc = gwCsrAttach(pVtab, "graph_walk", &pCur->src, 0, &pCur->pCsr, &pCur->bCsrTried);
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

/* The plan (ext/plan.c, nosqlPlanInputs()): every input an equality, the first five required. */
static const NosqlPlanCol aGpPlan[] = {
    {GP_SOURCE, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 1},    {GP_FROM, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 1},
    {GP_TO, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 1},        {GP_START, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 1},
    {GP_GOAL, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 1},      {GP_WEIGHT, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0},
    {GP_DIRECTION, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0}, {GP_LAYOUT, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0},
};
/* The inputs as options-object keys: weight_col, direction and layout can be. */
static const NosqlOption aGpOpt[] = {
    {"source", NOSQL_OPT_TEXT},    {"from_col", NOSQL_OPT_TEXT}, {"to_col", NOSQL_OPT_TEXT},
    {"start", NOSQL_OPT_TEXT},     {"goal", NOSQL_OPT_TEXT},     {"weight_col", NOSQL_OPT_TEXT},
    {"direction", NOSQL_OPT_TEXT}, {"layout", NOSQL_OPT_TEXT},
};

/*
** How graph_path searches. Where it can, from both ends: side 0 from the
** start along the direction given, side 1 from the goal along the reverse
** direction ('in' for 'out', 'both' for 'both'), each with its own
** breadth-first levels or Dijkstra heap, until they meet. It can when the
** source is plain (graphSourcePlain(): a node found backwards is the node a
** forward search finds) and both directions are cheap to read: each by an
** index seek, or from graph_walk's in-memory copy (GraphCsr, with the
** weight column's values for weighted routes), which is loaded at once when
** a direction has no index and after GW_CSR_AFTER expanded nodes
** otherwise. The copy and the seeks give each node's edges in the same
** order with the same weights (a node whose weights the copy cannot hold
** exactly is sought: gpCsrWeight()), so where the search starts and what
** it reads from does not change the route: indexes or none, a graph_index
** or the table. Elsewhere (not plain, or a direction without an index on a
** source that cannot be held in memory) side 1 stays at the goal and side
** 0 alone searches: the one-ended search of earlier versions.
**
** Hops: levels are expanded whole, the side with the smaller level first
** (side 0 on a tie), nodes in the order they were met and each node's edges
** in the table's order (rowid or primary key; 'both': out-edges, then
** in-edges). The first node that both sides have reached ends the search:
** every node met during the level that first meets is on a shortest route,
** so this one is. Weights: the side whose heap is smaller (side 0 on a tie)
** settles its cheapest node; each improved cost of a node that the other
** side has reached offers a route (strictly cheaper ones replace it); the
** search stops when the two heaps' least costs add up to at least the
** route's, or a side has nothing left. The route is side 0's links from the
** start to the meeting node, then side 1's to the goal; its costs are summed
** along it from the start, as a one-ended search sums them. So the route is
** the same whenever it is the only shortest one; among several, this one,
** fixed by the data and the edge order.
*/

/* A cost: hops or a sum of weights. */
typedef struct GpCost GpCost;
struct GpCost {
  double r;        /* The cost */
  sqlite3_int64 i; /* The same, exact, when bInt */
  int bInt;        /* i holds the cost (every weight in it an integer, no overflow) */
};

/*
** Is a less than b? Integers compare exactly (two costs past 2^53 may be
** one double apart or none), anything else as doubles.
*/
static int gpLess(const GpCost *a, const GpCost *b) {
  return (a->bInt && b->bInt) ? a->i < b->i : a->r < b->r;
}

/* a + b, exact while both are integers and the sum fits (costs are never negative). */
static GpCost gpAdd(const GpCost *a, const GpCost *b) {
  GpCost c;
  c.r = a->r + b->r;
  c.bInt = a->bInt && b->bInt;
  c.i = 0;
  if (c.bInt) {
    if (a->i > INT64_MAX - b->i) {
      c.bInt = 0;
    } else {
      c.i = a->i + b->i;
    }
  }
  return c;
}

/* A node of graph_path: its value, then what each side knows of it. */
typedef struct GpNode GpNode;
struct GpNode {
  GraphValue v;            /* The node id (must be first: a GraphSet element) */
  int aParent[2];          /* Per side: the node it was reached from, -1 for the side's root */
  GpCost aCost[2];         /* Per side: the least cost found from the side's root */
  GpCost w1;               /* Side 1: the weight of the edge from this node to aParent[1] */
  unsigned char abSeen[2]; /* Per side: reached (aParent and aCost are set) */
  unsigned char abDone[2]; /* Per side: cost settled (Dijkstra) */
  int iCsr;                /* Index into the in-memory copy + 1, -1 not in it, 0 not looked up */
};
#define GP_AT(pSet, i) ((GpNode *)graphSetAt(pSet, i))

/* A heap entry of Dijkstra's algorithm: a node and the cost it was pushed with. */
typedef struct GpHeapItem GpHeapItem;
struct GpHeapItem {
  GpCost cost; /* Cost when pushed (stale when the node's cost fell since) */
  int iNode;   /* Index into the node set */
};

/* A binary min-heap of GpHeapItem. */
typedef struct GpHeap GpHeap;
struct GpHeap {
  GpHeapItem *a; /* Entries */
  int n, nAlloc; /* Entries used, allocated */
};

/* Nodes a breadth-first side has reached, in order; aQueue[iLevel..n) is its last level. */
typedef struct GpQueue GpQueue;
struct GpQueue {
  int *a;        /* Node indexes */
  int n, nAlloc; /* Entries used, allocated */
  int iLevel;    /* First node of the level to expand next */
};

typedef struct gp_cursor gp_cursor;
struct gp_cursor {
  sqlite3_vtab_cursor base; /* Base class - must be first */
  GraphSource src;          /* The edge source */
  sqlite3_stmt *apStmt[2];  /* Neighbour statements of side 0 and side 1 (NULL: side 1 stays) */
  GraphSet set;             /* Nodes met (GpNode): 0 the start, 1 the goal */
  int *aRoute;              /* The route, start first: indexes into set.a */
  GpCost *aRouteCost;       /* Cost of each node of the route */
  int nRoute;               /* Nodes on the route (0: no route) */
  int iRow;                 /* Row the cursor is on */
  int bWeighted;            /* Costs are weights (else hops) */
  int bBoth;                /* Side 1 searches too */
  int eDir;                 /* Side 0's direction, GRAPH_DIR_* */
  GpHeap aHeap[2];          /* Dijkstra: each side's queue */
  GpQueue aQueue[2];        /* Breadth first: each side's nodes */
  int iMeet;                /* The node where the route passes from side 0 to side 1, -1 none yet */
  GpCost best;              /* The cost of that route */
  int iSide;                /* The side expanding (gpSeekEdge()) */
  int nExpand;              /* Nodes expanded so far */
  GraphCsr *pCsr;           /* The edges in memory (a reference), or NULL: seek */
  int bCsrTried;            /* Loading was tried (or is not to be) */
  int *aMet;                /* With pCsr: per value of pCsr, its node index + 1, 0 not met yet */
  sqlite3_value *apIn[8];   /* The inputs, for the hidden columns */
  sqlite3_value *apOwn[8];  /* The values of an options object (gwOptions()) */
};

static int gpConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                     char **pzErr) {
  (void)argc;
  (void)argv;
  (void)pzErr;
  return gwConnect(db, pAux,
                   "CREATE TABLE x(step INTEGER, node, cost, source HIDDEN, from_col HIDDEN, to_col HIDDEN, "
                   "start BLOB HIDDEN, goal BLOB HIDDEN, weight_col HIDDEN, direction HIDDEN, layout HIDDEN)",
                   ppVtab);
}

static int gpBestIndexFunc(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo) {
  (void)pVtab;
  return nosqlPlanInputs(pInfo, aGpPlan, 8, 1000, 1000);
}

static int gpOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor) {
  gp_cursor *pCur = (gp_cursor *)nosqlCursorNew(sizeof(gp_cursor), ppCursor);
  (void)pVtab;
  if (pCur == NULL) return SQLITE_NOMEM;
  pCur->set.szElem = (int)sizeof(GpNode);
  pCur->iMeet = -1;
  return SQLITE_OK;
}

static void gpReset(gp_cursor *pCur) {
  int i;
  for (i = 0; i < 2; i++) {
    sqlite3_finalize(pCur->apStmt[i]);
    sqlite3_free(pCur->aHeap[i].a);
    sqlite3_free(pCur->aQueue[i].a);
  }
  memset(pCur->apStmt, 0, sizeof(pCur->apStmt));
  memset(pCur->aHeap, 0, sizeof(pCur->aHeap));
  memset(pCur->aQueue, 0, sizeof(pCur->aQueue));
  graphSourceClear(&pCur->src);
  graphSetClear(&pCur->set);
  sqlite3_free(pCur->aRoute);
  sqlite3_free(pCur->aRouteCost);
  pCur->aRoute = NULL;
  pCur->aRouteCost = NULL;
  graphCsrUnref(pCur->pCsr);
  pCur->pCsr = NULL;
  sqlite3_free(pCur->aMet);
  pCur->aMet = NULL;
  pCur->bCsrTried = pCur->bBoth = pCur->nExpand = 0;
  pCur->nRoute = pCur->iRow = 0;
  pCur->iMeet = -1;
  for (i = 0; i < 8; i++) {
    sqlite3_value_free(pCur->apIn[i]);
    sqlite3_value_free(pCur->apOwn[i]);
    pCur->apIn[i] = pCur->apOwn[i] = NULL;
  }
}

static int gpClose(sqlite3_vtab_cursor *pCursor) {
  gpReset((gp_cursor *)pCursor);
  sqlite3_free(pCursor);
  return SQLITE_OK;
}

static int gpHeapPush(GpHeap *pHeap, const GpCost *pCost, int iNode) {
  int i;
  if (pHeap->n == pHeap->nAlloc) {
    int nNew = pHeap->nAlloc ? pHeap->nAlloc * 2 : 64;
    GpHeapItem *aNew = (GpHeapItem *)sqlite3_realloc64(pHeap->a, sizeof(GpHeapItem) * (sqlite3_uint64)nNew);
    if (aNew == NULL) return SQLITE_NOMEM;
    pHeap->a = aNew;
    pHeap->nAlloc = nNew;
  }
  /* Sift up. */
  for (i = pHeap->n++; i > 0; i = (i - 1) / 2) {
    const GpHeapItem *pUp = &pHeap->a[(i - 1) / 2];
    if (!gpLess(pCost, &pUp->cost)) break;
    pHeap->a[i] = *pUp;
  }
  pHeap->a[i].cost = *pCost;
  pHeap->a[i].iNode = iNode;
  return SQLITE_OK;
}

static GpHeapItem gpHeapPop(GpHeap *pHeap) {
  GpHeapItem top = pHeap->a[0], last = pHeap->a[--pHeap->n];
  int i = 0;
  /* Sift the last entry down from the root. */
  for (;;) {
    int c = 2 * i + 1;
    if (c >= pHeap->n) break;
    if (c + 1 < pHeap->n && gpLess(&pHeap->a[c + 1].cost, &pHeap->a[c].cost)) c++;
    if (!gpLess(&pHeap->a[c].cost, &last.cost)) break;
    pHeap->a[i] = pHeap->a[c];
    i = c;
  }
  if (pHeap->n > 0) pHeap->a[i] = last;
  return top;
}

static int gpQueuePush(GpQueue *pQ, int iNode) {
  if (pQ->n == pQ->nAlloc) {
    int nNew = pQ->nAlloc ? pQ->nAlloc * 2 : 64;
    int *aNew = (int *)sqlite3_realloc64(pQ->a, sizeof(int) * (sqlite3_uint64)nNew);
    if (aNew == NULL) return SQLITE_NOMEM;
    pQ->a = aNew;
    pQ->nAlloc = nNew;
  }
  pQ->a[pQ->n++] = iNode;
  return SQLITE_OK;
}

/*
** Side s reaches node iTo from node iFrom over an edge of weight *pW (1 for
** hops): keep the cost if it is the first or (Dijkstra) a lower one, queue
** the node, and offer the route through it when the other side has reached
** it too.
*/
static int gpVisit(gp_cursor *pCur, int s, int iFrom, int iTo, const GpCost *pW) {
  GpNode *pF = GP_AT(&pCur->set, iFrom), *pT = GP_AT(&pCur->set, iTo);
  GpCost c;
  if (!pCur->bWeighted && pCur->iMeet >= 0) return SQLITE_OK; /* The level that met ends here */
  if (pT->abSeen[s] && (!pCur->bWeighted || pT->abDone[s])) return SQLITE_OK;
  c = gpAdd(&pF->aCost[s], pW);
  if (pT->abSeen[s] && !gpLess(&c, &pT->aCost[s])) return SQLITE_OK;
  pT->abSeen[s] = 1;
  pT->aCost[s] = c;
  pT->aParent[s] = iFrom;
  if (s == 1) pT->w1 = *pW;
  if (pT->abSeen[1 - s]) {
    GpCost route = gpAdd(&pT->aCost[0], &pT->aCost[1]);
    if (pCur->iMeet < 0 || gpLess(&route, &pCur->best)) {
      pCur->iMeet = iTo;
      pCur->best = route;
    }
  }
  return pCur->bWeighted ? gpHeapPush(&pCur->aHeap[s], &c, iTo) : gpQueuePush(&pCur->aQueue[s], iTo);
}

/* The message for a bad weight: the edge named as side 0 follows it. */
static int gpWeightError(gp_cursor *pCur, const char *zFmt, int iNode, const GraphValue *pOther,
                         sqlite3_value *pWeight) {
  const GraphValue *pNode = &GP_AT(&pCur->set, iNode)->v;
  char *zA = graphValueText(pCur->iSide ? pOther : pNode), *zB = graphValueText(pCur->iSide ? pNode : pOther);
  char *zW = gwQuote(pWeight);
  nosqlVtabError(pCur->base.pVtab, zFmt, zA ? zA : "?", zB ? zB : "?", zW ? zW : "?");
  sqlite3_free(zA);
  sqlite3_free(zB);
  sqlite3_free(zW);
  return SQLITE_ERROR;
}

/* xEdge of the seeks: the edge's weight checked, the neighbour visited. */
static int gpSeekEdge(void *pCtx, int iFrom, GraphValue *pTo, sqlite3_value *pWeight) {
  gp_cursor *pCur = (gp_cursor *)pCtx;
  GpCost w = {1.0, 1, 1};
  int iTo, bNew, rc;
  if (pCur->bWeighted) {
    int eType = sqlite3_value_type(pWeight);
    if (eType != SQLITE_INTEGER && eType != SQLITE_FLOAT) {
      return gpWeightError(pCur, "graph_path: the weight of edge %s -> %s is %s, not a number", iFrom, pTo,
                           pWeight);
    }
    w.r = sqlite3_value_double(pWeight);
    if (w.r < 0 || isnan(w.r)) {
      return gpWeightError(pCur, "graph_path: edge %s -> %s has the negative weight %s", iFrom, pTo, pWeight);
    }
    w.bInt = eType == SQLITE_INTEGER;
    w.i = w.bInt ? sqlite3_value_int64(pWeight) : 0;
  }
  rc = graphSetAdd(&pCur->set, pTo, &iTo, &bNew);
  if (rc != SQLITE_OK) return rc;
  return gpVisit(pCur, pCur->iSide, iFrom, iTo, &w);
}

/* Side 0's direction, or side 1's: the reverse. */
static int gpSideDir(const gp_cursor *pCur, int s) {
  if (s == 0 || pCur->eDir == GRAPH_DIR_BOTH) return pCur->eDir;
  return pCur->eDir == GRAPH_DIR_OUT ? GRAPH_DIR_IN : GRAPH_DIR_OUT;
}

/*
** The cost of in-memory edge k of direction d (0 out, 1 in) in *pW, as
** gpSeekEdge() reads it from the row: false when the copy cannot tell it
** exactly (an integer from 2^53 on held as a double, or weights of both
** types, whose doubles do not say which each was).
*/
static int gpCsrWeight(const gp_cursor *pCur, int d, sqlite3_int64 k, GpCost *pW) {
  const GraphCsr *pCsr = pCur->pCsr;
  double r;
  pW->r = 1.0, pW->i = 1, pW->bInt = 1;
  if (!pCur->bWeighted) return 1;
  if (pCsr->aOutW == NULL) return 0;
  r = d == 0 ? pCsr->aOutW[k] : pCsr->aInW[k];
  pW->r = r;
  if (pCsr->bIntWeight) {
    pW->i = (sqlite3_int64)r;
    return r < 9007199254740992.0; /* 2^53 itself may be 2^53 + 1 rounded */
  }
  pW->i = 0;
  pW->bInt = 0;
  return pCsr->bRealWeight;
}

/*
** Expand node iNode on side s from the in-memory copy (plain sources only:
** no key is converted). *pbSeek is set, and nothing done, when a weight of
** the node's edges is not held exactly: the caller seeks the node instead
** (the same edges in the same order).
*/
static int gpCsrExpand(gp_cursor *pCur, int s, int iNode, int *pbSeek) {
  GraphCsr *pCsr = pCur->pCsr;
  GpNode *pN = GP_AT(&pCur->set, iNode);
  int eDir = gpSideDir(pCur, s), j, d, rc = SQLITE_OK;
  sqlite3_int64 k;
  GpCost w;
  *pbSeek = 0;
  if (pCur->aMet == NULL) {
    pCur->aMet = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)pCsr->vals.n + 1));
    if (pCur->aMet == NULL) return SQLITE_NOMEM;
    memset(pCur->aMet, 0, sizeof(int) * ((size_t)pCsr->vals.n + 1));
  }
  if (pN->iCsr == 0) {
    j = graphSetFind(&pCsr->vals, &pN->v);
    pN->iCsr = j >= 0 ? j + 1 : -1;
    if (j >= 0) pCur->aMet[j] = iNode + 1;
  }
  j = pN->iCsr - 1;
  for (d = 0; j >= 0 && pCur->bWeighted && d < 2; d++) {
    const sqlite3_int64 *aOff = d == 0 ? pCsr->aOutOff : pCsr->aInOff;
    if (!(eDir & (d == 0 ? GRAPH_DIR_OUT : GRAPH_DIR_IN))) continue;
    for (k = aOff[j]; k < aOff[j + 1]; k++) {
      if (!gpCsrWeight(pCur, d, k, &w)) {
        *pbSeek = 1;
        return SQLITE_OK;
      }
    }
  }
  for (d = 0; j >= 0 && d < 2 && rc == SQLITE_OK; d++) {
    const sqlite3_int64 *aOff = d == 0 ? pCsr->aOutOff : pCsr->aInOff;
    const int *aAdj = d == 0 ? pCsr->aOut : pCsr->aIn;
    if (!(eDir & (d == 0 ? GRAPH_DIR_OUT : GRAPH_DIR_IN))) continue;
    /* Hops: the level that meets ends the search. Weights: every edge counts. */
    for (k = aOff[j]; rc == SQLITE_OK && k < aOff[j + 1] && (pCur->bWeighted || pCur->iMeet < 0); k++) {
      int iVal = aAdj[k], iTo = pCur->aMet[iVal] - 1, bNew;
      if (iTo < 0) {
        rc = graphSetAdd(&pCur->set, (GraphValue *)graphSetAt(&pCsr->vals, iVal), &iTo, &bNew);
        if (rc != SQLITE_OK) break;
        pCur->aMet[iVal] = iTo + 1;
        GP_AT(&pCur->set, iTo)->iCsr = iVal + 1;
      }
      gpCsrWeight(pCur, d, k, &w);
      rc = gpVisit(pCur, s, iNode, iTo, &w);
    }
  }
  return rc;
}

/* The key of pSrc for GwShared.zSeekKey (sqlite3_mprintf(), NULL on OOM). */
static char *gpSeekKey(const GraphSource *pSrc) {
  return sqlite3_mprintf("%Q.%Q.%Q.%Q.%d", pSrc->zSchema, pSrc->zTable, pSrc->zFrom, pSrc->zTo,
                         pSrc->eLayout);
}

/*
** Routes count the nodes they expand by seeks across calls: a run of
** routes on one source (the last one routed) reads it into memory once
** they have expanded GW_CSR_AFTER nodes in all, as one route does past
** that many (20 routes of 5-7 hops on 1M edges: 3.4 ms a route by seeks,
** 0.3 ms from the copy). bEnd 0: the count so far (0 for another source),
** where the route starts counting; bEnd 1: keep pCur->nExpand for the
** next route (OOM: the count is lost, no harm).
*/
static void gpSeekCount(gp_cursor *pCur, int bEnd) {
  GwShared *p = ((gw_vtab *)pCur->base.pVtab)->pShared;
  char *zKey = gpSeekKey(&pCur->src);
  int bSame = zKey && p->zSeekKey && strcmp(zKey, p->zSeekKey) == 0;
  if (!bEnd) {
    pCur->nExpand = bSame ? p->nSeekExpand : 0;
    sqlite3_free(zKey);
    return;
  }
  if (!bSame) {
    sqlite3_free(p->zSeekKey);
    p->zSeekKey = zKey;
    zKey = NULL;
  }
  p->nSeekExpand = pCur->pCsr ? 0 : pCur->nExpand;
  sqlite3_free(zKey);
}

/* Read the edges of node iNode on side s: from memory once held, else by seeks. */
static int gpExpand(gp_cursor *pCur, int s, int iNode) {
  int rc = SQLITE_OK;
  if (pCur->pCsr == NULL && !pCur->bCsrTried && ++pCur->nExpand > GW_CSR_AFTER) {
    rc = gwCsrAttach(pCur->base.pVtab, "graph_path", &pCur->src, 1, &pCur->pCsr, &pCur->bCsrTried);
    if (rc != SQLITE_OK) return rc;
  }
  if (pCur->pCsr) {
    int bSeek = 0;
    rc = gpCsrExpand(pCur, s, iNode, &bSeek);
    if (rc != SQLITE_OK || !bSeek) return rc;
  }
  pCur->iSide = s;
  return gwNeighbours(pCur->base.pVtab, "graph_path", &pCur->src, &pCur->set, iNode, pCur->apStmt[s],
                      gpSeekEdge, pCur);
}

/* Breadth first: whole levels, the smaller side's first, until a node is reached by both. */
static int gpBfs(gp_cursor *pCur) {
  int rc = SQLITE_OK;
  while (rc == SQLITE_OK && pCur->iMeet < 0) {
    GpQueue *p0 = &pCur->aQueue[0], *p1 = &pCur->aQueue[1];
    int s = (pCur->bBoth && p1->n - p1->iLevel < p0->n - p0->iLevel) ? 1 : 0, i, iEnd;
    GpQueue *pQ = &pCur->aQueue[s];
    if (pQ->iLevel == pQ->n) break; /* Side s has nothing left: no route */
    for (i = pQ->iLevel, iEnd = pQ->n; rc == SQLITE_OK && pCur->iMeet < 0 && i < iEnd; i++) {
      rc = gpExpand(pCur, s, pQ->a[i]);
    }
    pQ->iLevel = iEnd;
  }
  return rc;
}

/* Dijkstra from one end or both: see the comment above GpCost. */
static int gpDijkstra(gp_cursor *pCur) {
  int rc = SQLITE_OK;
  while (rc == SQLITE_OK && pCur->aHeap[0].n > 0 && (!pCur->bBoth || pCur->aHeap[1].n > 0)) {
    int s = (pCur->bBoth && pCur->aHeap[1].n < pCur->aHeap[0].n) ? 1 : 0;
    GpHeapItem top;
    GpNode *pN;
    if (pCur->iMeet >= 0) {
      /* Every route not found yet costs at least the two least costs queued
      ** (one-ended: side 1's is the goal's 0). */
      GpCost lo = pCur->aHeap[0].a[0].cost;
      if (pCur->bBoth) lo = gpAdd(&lo, &pCur->aHeap[1].a[0].cost);
      if (!gpLess(&lo, &pCur->best)) break;
    }
    top = gpHeapPop(&pCur->aHeap[s]);
    pN = GP_AT(&pCur->set, top.iNode);
    if (pN->abDone[s] || gpLess(&pN->aCost[s], &top.cost)) continue; /* A stale entry */
    pN->abDone[s] = 1;
    rc = gpExpand(pCur, s, top.iNode);
  }
  return rc;
}

/* Fill aRoute and aRouteCost: side 0's links to the meeting node, then side 1's to the goal. */
static int gpRoute(gp_cursor *pCur) {
  int i, n0 = 0, n = 0, k;
  for (i = pCur->iMeet; i >= 0; i = GP_AT(&pCur->set, i)->aParent[0]) n0++;
  for (i = GP_AT(&pCur->set, pCur->iMeet)->aParent[1]; i >= 0; i = GP_AT(&pCur->set, i)->aParent[1]) n++;
  n += n0;
  pCur->aRoute = (int *)sqlite3_malloc64(sizeof(int) * (sqlite3_uint64)n);
  pCur->aRouteCost = (GpCost *)sqlite3_malloc64(sizeof(GpCost) * (sqlite3_uint64)n);
  if (pCur->aRoute == NULL || pCur->aRouteCost == NULL) return SQLITE_NOMEM;
  for (i = pCur->iMeet, k = n0; i >= 0; i = GP_AT(&pCur->set, i)->aParent[0]) {
    pCur->aRoute[--k] = i;
    pCur->aRouteCost[k] = GP_AT(&pCur->set, i)->aCost[0];
  }
  for (k = n0; k < n; k++) {
    const GpNode *pPrev = GP_AT(&pCur->set, pCur->aRoute[k - 1]);
    pCur->aRoute[k] = pPrev->aParent[1];
    pCur->aRouteCost[k] = gpAdd(&pCur->aRouteCost[k - 1], &pPrev->w1);
  }
  pCur->nRoute = n;
  return SQLITE_OK;
}

/* Can direction eDir be read with one index seek per node? */
static int gpSeekable(const GraphSource *pSrc, int eDir) {
  return (!(eDir & GRAPH_DIR_OUT) || pSrc->bIdxFrom) && (!(eDir & GRAPH_DIR_IN) || pSrc->bIdxTo);
}

/*
** Choose one end or both (see the comment above GpCost) and prepare side
** 1's statement when it seeks.
*/
static int gpPlan(gp_cursor *pCur) {
  gw_vtab *p = (gw_vtab *)pCur->base.pVtab;
  int bPlain, rc, eRev = gpSideDir(pCur, 1);
  int bSeek = gpSeekable(&pCur->src, pCur->eDir) && gpSeekable(&pCur->src, eRev);
  char *zSql;
  pCur->bCsrTried = 1;
  rc = graphSourcePlain(p->db, &pCur->src, &bPlain);
  if (rc != SQLITE_OK || !bPlain) return rc;
  /* A copy held already serves from the first node; without an index in
  ** either direction the copy is read now (one scan, not one per node).
  ** With weights too: the copy is of the weight column as well. */
  pCur->bCsrTried = 0;
  rc = gwCsrAttach(&p->base, "graph_path", &pCur->src, bSeek ? 0 : GW_LOAD_NEEDED, &pCur->pCsr,
                   &pCur->bCsrTried);
  if (rc != SQLITE_OK) return rc;
  if (pCur->pCsr) pCur->bCsrTried = 1;
  if (pCur->pCsr == NULL && !bSeek) return SQLITE_OK; /* Cannot be held: one-ended */
  pCur->bBoth = 1;
  zSql = graphSourceNeighbourSql(&pCur->src, eRev);
  rc = zSql ? sqlite3_prepare_v2(p->db, zSql, -1, &pCur->apStmt[1], NULL) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  if (rc != SQLITE_OK && rc != SQLITE_NOMEM)
    nosqlVtabError(&p->base, "graph_path: %s", sqlite3_errmsg(p->db));
  return rc;
}

static int gpFilter(sqlite3_vtab_cursor *pCursor, int idxNum, const char *idxStr, int argc,
                    sqlite3_value **argv) {
  static const GpCost zero = {0.0, 0, 1};
  gp_cursor *pCur = (gp_cursor *)pCursor;
  sqlite3_vtab *pVtab = pCursor->pVtab;
  NosqlPlanArg aArg[8];
  sqlite3_value *apSrc[3];
  GraphValue start, goal;
  sqlite3_value *pStart = NULL, *pGoal = NULL;
  int rc, i, eLayout, iNode, bNew, s;
  (void)idxNum;
  gpReset(pCur);
  rc = nosqlPlanInputArgs(
      pVtab, "graph_path(source, from_col, to_col, start, goal[, weight_col[, direction[, layout]]])",
      aGpPlan, 8, idxStr, argc, argv, aArg);
  if (rc != SQLITE_OK) return rc;
  for (i = 0; i < 8; i++) {
    if (aArg[i].pEq) {
      pCur->apIn[i] = sqlite3_value_dup(aArg[i].pEq);
      if (pCur->apIn[i] == NULL) return SQLITE_NOMEM;
    }
  }
  rc = gwOptions(pVtab, "graph_path", aGpOpt, 5, 8, aArg, pCur->apOwn);
  if (rc != SQLITE_OK) return rc;
  if (sqlite3_value_type(aArg[3].pEq) == SQLITE_NULL || sqlite3_value_type(aArg[4].pEq) == SQLITE_NULL) {
    nosqlVtabError(pVtab, "graph_path: %s is NULL",
                   sqlite3_value_type(aArg[3].pEq) == SQLITE_NULL ? "start" : "goal");
    return SQLITE_ERROR;
  }
  rc = graphDirectionArg(pVtab, "graph_path", aArg[6].pEq, &pCur->eDir);
  if (rc == SQLITE_OK) rc = graphLayoutArg(pVtab, "graph_path", aArg[7].pEq, &eLayout);
  if (rc != SQLITE_OK) return rc;
  pCur->bWeighted = aArg[5].pEq != NULL && sqlite3_value_type(aArg[5].pEq) != SQLITE_NULL;
  for (i = 0; i < 3; i++) apSrc[i] = aArg[i].pEq;
  rc = gwPrepare(pVtab, ((gw_vtab *)pVtab)->db, "graph_path", apSrc, pCur->bWeighted ? aArg[5].pEq : NULL,
                 eLayout, pCur->eDir, &pCur->src, &pCur->apStmt[0]);
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
  if (rc == SQLITE_OK) rc = graphSetAdd(&pCur->set, &goal, &iNode, &bNew);
  sqlite3_value_free(pStart);
  sqlite3_value_free(pGoal);
  if (rc != SQLITE_OK) return rc;
  /* Each side's root: the start for side 0, the goal for side 1. */
  for (s = 0; s < 2; s++) {
    GpNode *pRoot = GP_AT(&pCur->set, s == 0 ? 0 : iNode);
    pRoot->abSeen[s] = 1;
    pRoot->aParent[s] = -1;
    pRoot->aCost[s] = zero;
  }
  if (!bNew) {
    pCur->iMeet = 0; /* start = goal: one row */
    return gpRoute(pCur);
  }
  rc = gpPlan(pCur);
  if (rc == SQLITE_OK && !pCur->bCsrTried) gpSeekCount(pCur, 0);
  for (s = 0; rc == SQLITE_OK && s < 2; s++) {
    if (pCur->bWeighted) {
      if (s == 0 || pCur->bBoth) rc = gpHeapPush(&pCur->aHeap[s], &zero, s);
    } else {
      rc = gpQueuePush(&pCur->aQueue[s], s);
    }
  }
  if (rc == SQLITE_OK) rc = pCur->bWeighted ? gpDijkstra(pCur) : gpBfs(pCur);
  if (rc == SQLITE_OK && pCur->nExpand > 0) gpSeekCount(pCur, 1);
  if (rc != SQLITE_OK || pCur->iMeet < 0) return rc;
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
  const GpNode *pNode = GP_AT(&pCur->set, pCur->aRoute[pCur->iRow]);
  const GpCost *pCost = &pCur->aRouteCost[pCur->iRow];
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
      } else if (pCost->bInt) {
        sqlite3_result_int64(ctx, pCost->i);
      } else {
        sqlite3_result_double(ctx, pCost->r);
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
  GwShared *p = (GwShared *)sqlite3_malloc64(sizeof(*p));
  int rc;
  if (p == NULL) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->db = db;
  p->nRef = 2; /* This function's, and graph_walk's (its xDestroy runs even when the call fails) */
  rc = sqlite3_create_module_v2(db, "graph_walk", &gwWalkModule, p, gwSharedUnref);
  if (rc == SQLITE_OK) {
    p->nRef++;
    rc = sqlite3_create_module_v2(db, "graph_path", &gpModule, p, gwSharedUnref);
  }
  gwSharedUnref(p);
  return rc;
}
