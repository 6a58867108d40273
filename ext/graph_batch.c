/*
** graph_batch.c: batch graph processing (technique 17 of the article), a
** Pregel-style engine over any edge table or view.
**
**   graph_pagerank(source, from_col, to_col[, damping[, tolerance[, max_iter[, weight_col[, layout[,
**                  direction[, personalization[, dangling]]]]]]]]) -> (node, rank)
**   graph_components(source, from_col, to_col[, layout[, direction]])        -> (node, component)
**   graph_scc(source, from_col, to_col[, layout[, direction]])               -> (node, component)
**   graph_sssp(source, from_col, to_col, root[, weight_col[, layout[, direction]]]) -> (node, distance)
**   graph_triangles(source, from_col, to_col[, layout[, direction]])         -> (node, triangles)
**   graph_label_propagation(source, from_col, to_col[, max_iter[, layout[, direction]]]) -> (node, label)
**
** direction ('out', 'in', 'both') turns the loaded copy (graphCsrDirect())
** for PageRank, SCC and SSSP; the other three read both ways already.
** personalization and dangling (a JSON object node -> weight, or a table
** of (node, weight)) are networkx's: the teleport vector and the share of
** the dangling nodes' rank each node gets, the latter defaulting to the
** former (GbWeights).
**
** The arguments are hidden columns of those names, as for graph_walk, and
** the edge source follows ext/graph_source.c's rules. The optional ones may
** also be named in a JSON object given last (nosqlOptionsRead(),
** ext/util.c: each input's key type is in its job's aInput entry, aGbJob).
** The virtual-table glue (one module per job: connect, planning, the
** reading of the inputs and the source, the rows) is at the end of this
** file, shared with graph_centrality.c's jobs (GraphJob, graphJobRegister()):
** a job is an entry of a table and an xRun that loads and runs it.
**
** The source is read once, with one scan, into compressed sparse rows
** (GraphCsr: node ids of any SQLite type mapped to dense integers and back;
** graph_components, which reads each edge once in any order, takes the
** edges as a list instead, GRAPH_LOAD_LIST); then the job runs in memory
** and the rows are handed out. The nodes are the endpoints of the
** edges (a NULL endpoint is no edge) and, in the JSON layout, every row
** (a NULL or [] list: a node without edges), in the order the scan first
** meets them, which is the order of the rows.
**
** The engine (GbEngine) is Pregel's model: in each superstep every active
** vertex, or one with messages, runs the algorithm's vertex program, which
** reads its combined incoming message, updates its value, sends messages
** along its edges and may vote to halt; messages to one vertex are combined
** as they are sent (sum or minimum), and global aggregates (PageRank's
** dangling mass and change) are summed by the program and read between
** supersteps. The job ends when no vertex is active and no message is in
** flight, or at the step limit. PageRank, single-source shortest paths
** and label propagation are vertex programs on it (shortest paths in
** sparse mode: after the first superstep only the vertices with a message
** run); weakly connected components (union-find, the labels smallest-
** label propagation would give), strongly connected components (Tarjan's
** algorithm, iterative) and triangle counting (sorted adjacency
** intersection) are whole-graph passes: propagation takes a superstep per
** hop, and none of the three is a natural vertex program on one machine.
**
** Semantics follow networkx: see docs/graph_batch.md.
*/
#include "nosqlInt.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Graphs with more edges than this are refused with an error, not thrashed. */
#ifndef GB_MAX_EDGE
#define GB_MAX_EDGE 200000000
#endif

/**************************************************************************
** The engine.
*/

#define GB_COMBINE_SUM 0
#define GB_COMBINE_MIN 1

/*
** Interrupts and progress handlers in long loops. SQLite checks both only
** while it runs a statement, and counts a progress handler's VM steps per
** statement until it is reset: so the ping is an endless row generator,
** stepped now and then and never reset while the job runs. A step reports
** sqlite3_interrupt() or a progress handler's stop as SQLITE_INTERRUPT.
*/
#define GB_PING_EVERY 4096 /* Vertices (or triangle rows) between two pings */
static const char zGbPing[] = "WITH RECURSIVE c(x) AS (SELECT 0 UNION ALL SELECT x FROM c) SELECT x FROM c";

/* One step of the ping: SQLITE_OK, or why to stop (SQLITE_INTERRUPT). */
static int gbPing(sqlite3_stmt *pPing) {
  int rc = sqlite3_step(pPing);
  return rc == SQLITE_ROW ? SQLITE_OK : rc == SQLITE_DONE ? SQLITE_ERROR : rc;
}

/* The ping for the jobs of ext/graph_centrality.c (nosqlInt.h). */
const char *graphBatchPingSql(void) { return zGbPing; }
int graphBatchPing(sqlite3_stmt *pPing) { return gbPing(pPing); }

typedef struct GbEngine GbEngine;
typedef void (*GbCompute)(GbEngine *, int iVertex, int bMsg, double rMsg, void *pCtx);
struct GbEngine {
  sqlite3 *db;             /* The connection */
  sqlite3_stmt *pPing;     /* The ping (zGbPing): stepped between supersteps and within long ones */
  const GraphCsr *pCsr;    /* The graph */
  int n;                   /* Vertices */
  int eCombine;            /* GB_COMBINE_* */
  double *aMsg, *aNext;    /* Combined messages: read this step, sent for the next */
  unsigned char *aHas;     /* aMsg[v] holds a message */
  unsigned char *aHasNext; /* aNext[v] holds a message */
  unsigned char *aActive;  /* Vertex has not voted to halt */
  int nStep;               /* Supersteps run */
  int bSent;               /* A message was sent this step */
  int bAllActive;          /* Every vertex runs every step (PageRank) */
  int bDense;              /* Sum combiner into a zeroed aNext, every vertex receiving: the program adds
                           ** to aNext[] itself, without gbSend()'s checks (PageRank's inner loop) */
  int *aList;              /* Sparse mode (gbEngineSparse): the vertices with a message this step */
  int *aListNext;          /* ... and those that received one for the next step */
  int nList, nListNext;    /* Entries in aList, aListNext */
};

static void gbSend(GbEngine *p, int v, double r) {
  if (!p->aHasNext[v]) {
    p->aHasNext[v] = 1;
    p->aNext[v] = r;
    if (p->aListNext) p->aListNext[p->nListNext++] = v;
  } else if (p->eCombine == GB_COMBINE_SUM) {
    p->aNext[v] += r;
  } else if (r < p->aNext[v]) {
    p->aNext[v] = r;
  }
  p->bSent = 1;
}

static void gbEngineFree(GbEngine *p) {
  sqlite3_finalize(p->pPing);
  sqlite3_free(p->aMsg);
  sqlite3_free(p->aNext);
  sqlite3_free(p->aHas);
  sqlite3_free(p->aHasNext);
  sqlite3_free(p->aActive);
  sqlite3_free(p->aList);
  sqlite3_free(p->aListNext);
  memset(p, 0, sizeof(*p));
}

/*
** Sparse mode, for a program whose every vertex votes to halt each step
** (smallest-value propagation): after the first superstep only the
** vertices that received a message run, found through a list, so a step
** costs what it sends, not a pass over every vertex. A path of n nodes
** takes n steps: a pass each made that n^2 (200,000 nodes: 36 s).
*/
static int gbEngineSparse(GbEngine *p) {
  sqlite3_uint64 n = (sqlite3_uint64)p->n + 1;
  p->aList = (int *)sqlite3_malloc64(sizeof(int) * n);
  p->aListNext = (int *)sqlite3_malloc64(sizeof(int) * n);
  return p->aList && p->aListNext ? SQLITE_OK : SQLITE_NOMEM;
}

static int gbEngineInit(GbEngine *p, sqlite3 *db, const GraphCsr *pCsr, int eCombine) {
  sqlite3_uint64 n = (sqlite3_uint64)pCsr->vals.n + 1;
  memset(p, 0, sizeof(*p));
  p->db = db;
  p->pCsr = pCsr;
  p->n = pCsr->vals.n;
  p->eCombine = eCombine;
  p->aMsg = (double *)sqlite3_malloc64(sizeof(double) * n);
  p->aNext = (double *)sqlite3_malloc64(sizeof(double) * n);
  p->aHas = (unsigned char *)sqlite3_malloc64(n);
  p->aHasNext = (unsigned char *)sqlite3_malloc64(n);
  p->aActive = (unsigned char *)sqlite3_malloc64(n);
  if (p->aMsg == NULL || p->aNext == NULL || p->aHas == NULL || p->aHasNext == NULL || p->aActive == NULL) {
    gbEngineFree(p);
    return SQLITE_NOMEM;
  }
  memset(p->aHas, 0, (size_t)n);
  memset(p->aHasNext, 0, (size_t)n);
  memset(p->aActive, 1, (size_t)n);
  return sqlite3_prepare_v2(db, zGbPing, -1, &p->pPing, 0);
}

/*
** Run supersteps until nothing is active and no message is in flight, or
** nMaxStep have run (nMaxStep < 0: no limit), calling xAfter (if any)
** between supersteps: it returns non-zero to stop. An interrupt between
** supersteps ends the job with SQLITE_INTERRUPT.
*/
static int gbEngineRun(GbEngine *p, GbCompute xCompute, int (*xAfter)(GbEngine *, void *), void *pCtx,
                       int nMaxStep) {
  int v;
  while (nMaxStep < 0 || p->nStep < nMaxStep) {
    int bAny = 0, rc;
    double *aSwap;
    unsigned char *aSwapHas;
    rc = gbPing(p->pPing);
    if (rc != SQLITE_OK) return rc;
    p->bSent = 0;
    if (p->bDense) {
      memset(p->aNext, 0, sizeof(double) * (size_t)p->n);
      memset(p->aHasNext, 1, (size_t)p->n);
    }
    if (p->aList && p->nStep > 0) {
      /* Sparse: the vertices with a message, each once (every vertex halts each step). */
      int i;
      for (i = 0; i < p->nList; i++) {
        v = p->aList[i];
        p->aActive[v] = 1;
        xCompute(p, v, 1, p->aMsg[v], pCtx);
        if (p->aActive[v]) bAny = 1;
        if ((i & (GB_PING_EVERY - 1)) == GB_PING_EVERY - 1 && (rc = gbPing(p->pPing)) != SQLITE_OK) return rc;
      }
    } else {
      for (v = 0; v < p->n; v++) {
        if (p->bAllActive || p->aActive[v] || p->aHas[v]) {
          p->aActive[v] = 1;
          xCompute(p, v, p->aHas[v], p->aMsg[v], pCtx);
          if (p->aActive[v]) bAny = 1;
        }
        if ((v & (GB_PING_EVERY - 1)) == GB_PING_EVERY - 1 && (rc = gbPing(p->pPing)) != SQLITE_OK) return rc;
      }
    }
    /* The messages sent become the next step's input. */
    aSwap = p->aMsg;
    p->aMsg = p->aNext;
    p->aNext = aSwap;
    aSwapHas = p->aHas;
    p->aHas = p->aHasNext;
    p->aHasNext = aSwapHas;
    if (p->aList) {
      /* Only the flags this step's list set are cleared: no pass over every vertex. */
      int *aSwapList = p->aList, i;
      for (i = 0; i < p->nList; i++) p->aHasNext[p->aList[i]] = 0;
      p->aList = p->aListNext;
      p->nList = p->nListNext;
      p->aListNext = aSwapList;
      p->nListNext = 0;
    } else {
      memset(p->aHasNext, 0, (size_t)p->n);
    }
    p->nStep++;
    if (xAfter && xAfter(p, pCtx)) break;
    if (!bAny && !p->bSent) break;
  }
  return SQLITE_OK;
}

/**************************************************************************
** The vertex programs.
*/

/* PageRank, networkx's definition. */
typedef struct GbRank GbRank;
struct GbRank {
  double rDamping;   /* alpha */
  double rTol;       /* Stop when the L1 change < n * rTol */
  double *aRank;     /* Current ranks */
  double *aOutW;     /* Out-weight of each vertex (0: dangling) */
  double rDangle;    /* Sum of the dangling vertices' ranks, of the step before */
  double rDangleNew; /* The same, being summed this step */
  double rErr;       /* L1 change of this step */
  double *aPers;     /* Personalization: teleport share of each vertex (sums to 1), NULL: 1/n each */
  double *aDangle;   /* Share of the dangling rank each vertex gets (sums to 1), NULL: 1/n each */
};

static void gbRankCompute(GbEngine *pE, int v, int bMsg, double rMsg, void *pCtx) {
  GbRank *p = (GbRank *)pCtx;
  const GraphCsr *pCsr = pE->pCsr;
  double rNew, rShare;
  sqlite3_int64 k;
  if (pE->nStep == 0) {
    rNew = 1.0 / pE->n;
  } else {
    double rTele = p->aPers ? p->aPers[v] : 1.0 / pE->n;
    double rDangle = p->aDangle ? p->aDangle[v] : 1.0 / pE->n;
    rNew = p->rDamping * ((bMsg ? rMsg : 0.0) + p->rDangle * rDangle) + (1.0 - p->rDamping) * rTele;
    p->rErr += fabs(rNew - p->aRank[v]);
  }
  p->aRank[v] = rNew;
  if (p->aOutW[v] == 0.0) {
    p->rDangleNew += rNew;
    return;
  }
  rShare = rNew / p->aOutW[v];
  /* Dense sum (GbEngine.bDense): the combined message is a plain sum. */
  if (pCsr->aOutW) {
    for (k = pCsr->aOutOff[v]; k < pCsr->aOutOff[v + 1]; k++)
      pE->aNext[pCsr->aOut[k]] += rShare * pCsr->aOutW[k];
  } else {
    const int *aOut = pCsr->aOut;
    double *aNext = pE->aNext;
    for (k = pCsr->aOutOff[v]; k < pCsr->aOutOff[v + 1]; k++) aNext[aOut[k]] += rShare;
  }
  pE->bSent = 1;
}

/* Between steps: step 0 only spreads the start; a later step checks the change. */
static int gbRankAfter(GbEngine *pE, void *pCtx) {
  GbRank *p = (GbRank *)pCtx;
  int bStop = pE->nStep > 1 && p->rErr < pE->n * p->rTol;
  p->rDangle = p->rDangleNew;
  p->rDangleNew = 0;
  p->rErr = 0;
  return bStop;
}

/*
** Smallest-value propagation (HashMin) for graph_sssp: each reached node
** sends its distance plus the edge's weight (1 without a weight column)
** along its out-edges; a smaller distance is news. (Components use
** union-find: gbUnionFind().)
*/
typedef struct GbMin GbMin;
struct GbMin {
  double *aVal;            /* Current distance */
  unsigned char *aReached; /* aVal[v] holds a distance (an overflow to INFINITY is one) */
};

static void gbMinCompute(GbEngine *pE, int v, int bMsg, double rMsg, void *pCtx) {
  GbMin *p = (GbMin *)pCtx;
  const GraphCsr *pCsr = pE->pCsr;
  sqlite3_int64 k;
  /* Step 0: the root sends 0; later only an improvement is news. */
  if (pE->nStep > 0) {
    if (!bMsg || (p->aReached[v] && rMsg >= p->aVal[v])) {
      pE->aActive[v] = 0;
      return;
    }
    p->aVal[v] = rMsg;
    p->aReached[v] = 1;
  } else if (!p->aReached[v]) {
    pE->aActive[v] = 0;
    return;
  }
  for (k = pCsr->aOutOff[v]; k < pCsr->aOutOff[v + 1]; k++) {
    gbSend(pE, pCsr->aOut[k], p->aVal[v] + (pCsr->aOutW ? pCsr->aOutW[k] : 1.0));
  }
  pE->aActive[v] = 0;
}

/**************************************************************************
** The module.
*/

#define GB_PAGERANK 0
#define GB_COMPONENTS 1
#define GB_SCC 2
#define GB_SSSP 3
#define GB_TRIANGLES 4
#define GB_LPA 5

/* The inputs every job starts with, and those most end with. */
#define GB_SRC \
  {"source", NOSQL_OPT_TEXT}, {"from_col", NOSQL_OPT_TEXT}, { "to_col", NOSQL_OPT_TEXT }
#define GB_TAIL \
  {"layout", NOSQL_OPT_TEXT}, {"direction", NOSQL_OPT_TEXT}, { NULL, 0 }

static int gbRunJob(GraphJobCursor *pCur, GraphSource *pSrc, int eDir, char **pzErr);

/*
** The jobs, tables of the glue every whole-graph job shares (graphJob*()
** below, which graph_centrality.c's jobs use too). Each input's type as a
** key of the options object (nosqlOptionsRead()) is in its aInput entry.
*/
static const GraphJob aGbJob[] = {
    {GB_PAGERANK,
     "graph_pagerank",
     "rank REAL",
     1,
     3,
     {GB_SRC,
      {"damping", NOSQL_OPT_NUM},
      {"tolerance", NOSQL_OPT_NUM},
      {"max_iter", NOSQL_OPT_INT},
      {"weight_col", NOSQL_OPT_TEXT},
      {"layout", NOSQL_OPT_TEXT},
      {"direction", NOSQL_OPT_TEXT},
      {"personalization", NOSQL_OPT_OBJECT},
      {"dangling", NOSQL_OPT_OBJECT},
      {NULL, 0}},
     "graph_pagerank(source, from_col, to_col[, damping[, tolerance[, max_iter[, weight_col[, layout[, "
     "direction[, personalization[, dangling]]]]]]]])",
     gbRunJob},
    {GB_COMPONENTS,
     "graph_components",
     "component",
     1,
     3,
     {GB_SRC, GB_TAIL},
     "graph_components(source, from_col, to_col[, layout[, direction]])",
     gbRunJob},
    {GB_SCC,
     "graph_scc",
     "component",
     1,
     3,
     {GB_SRC, GB_TAIL},
     "graph_scc(source, from_col, to_col[, layout[, direction]])",
     gbRunJob},
    {GB_SSSP,
     "graph_sssp",
     "distance",
     1,
     4,
     {GB_SRC, {"root", NOSQL_OPT_TEXT}, {"weight_col", NOSQL_OPT_TEXT}, GB_TAIL},
     "graph_sssp(source, from_col, to_col, root[, weight_col[, layout[, direction]]])",
     gbRunJob},
    {GB_TRIANGLES,
     "graph_triangles",
     "triangles INTEGER",
     1,
     3,
     {GB_SRC, GB_TAIL},
     "graph_triangles(source, from_col, to_col[, layout[, direction]])",
     gbRunJob},
    {GB_LPA,
     "graph_label_propagation",
     "label",
     1,
     3,
     {GB_SRC, {"max_iter", NOSQL_OPT_INT}, GB_TAIL},
     "graph_label_propagation(source, from_col, to_col[, max_iter[, layout[, direction]]])",
     gbRunJob},
};

/*
** graph_pagerank's personalization or dangling vector as read from its
** argument (gbWeightsRead()): node keys as from_col = ? sees them
** (graphSourceKey()) and their weights, before they meet the graph.
*/
typedef struct GbWeights GbWeights;
struct GbWeights {
  int bGiven;            /* The argument was given (not NULL) */
  int bJson;             /* ... as a JSON object: keys are text */
  int n, nAlloc;         /* Entries used, allocated */
  sqlite3_value **apKey; /* Node keys (owned) */
  double *aW;            /* Their weights: finite, 0 or more */
};

static void gbWeightsClear(GbWeights *p) {
  int i;
  for (i = 0; i < p->n; i++) sqlite3_value_free(p->apKey[i]);
  sqlite3_free(p->apKey);
  sqlite3_free(p->aW);
  memset(p, 0, sizeof(*p));
}

static int gbError(GraphJobCursor *pCur, int rc, const char *zFmt, const char *zArg, sqlite3_value *pVal) {
  char *zQ = pVal ? nosqlValueQuote(pVal) : NULL;
  nosqlVtabError(pCur->base.pVtab, zFmt, pCur->pJob->zName, zArg, zQ ? zQ : "?");
  sqlite3_free(zQ);
  return rc;
}

/*
** The input zName as a number in *ppNum (text that reads as one is that
** number, as numeric affinity converts it; caller frees), or NULL when it
** is missing or NULL. The input itself is not changed: its hidden column
** reads back what was given.
*/
static int gbNumber(GraphJobCursor *pCur, const char *zName, sqlite3_value **ppNum) {
  sqlite3_value *pVal = graphJobInput(pCur, zName);
  *ppNum = NULL;
  if (pVal == NULL || sqlite3_value_type(pVal) == SQLITE_NULL) return SQLITE_OK;
  return nosqlValueAffinity(pCur->db, pVal, 'n', ppNum);
}

/* A real argument in (lo, hi) (bLoIncl: [lo, hi)), or its default when NULL. */
static int gbReal(GraphJobCursor *pCur, const char *zName, double rDefault, double rLo, int bLoIncl,
                  double rHi, double *pr) {
  sqlite3_value *pNum = NULL;
  int eType, rc = gbNumber(pCur, zName, &pNum);
  *pr = rDefault;
  if (rc != SQLITE_OK || pNum == NULL) return rc;
  eType = sqlite3_value_type(pNum);
  *pr = sqlite3_value_double(pNum);
  sqlite3_value_free(pNum);
  if ((eType != SQLITE_INTEGER && eType != SQLITE_FLOAT) || isnan(*pr) || *pr < rLo ||
      (!bLoIncl && *pr == rLo) || *pr >= rHi) {
    return gbError(pCur, SQLITE_ERROR,
                   bLoIncl ? "%s: %s must be a number of 0 or more, not %s"
                           : "%s: %s must be a number between 0 and 1 (both excluded), not %s",
                   zName, graphJobInput(pCur, zName));
  }
  return SQLITE_OK;
}

/* A positive integer argument, or its default when NULL. */
static int gbPositiveInt(GraphJobCursor *pCur, const char *zName, int iDefault, int *pi) {
  sqlite3_value *pNum = NULL;
  int eType, rc = gbNumber(pCur, zName, &pNum);
  double r;
  *pi = iDefault;
  if (rc != SQLITE_OK || pNum == NULL) return rc;
  eType = sqlite3_value_type(pNum);
  r = sqlite3_value_double(pNum);
  sqlite3_value_free(pNum);
  if ((eType != SQLITE_INTEGER && !(eType == SQLITE_FLOAT && r == floor(r))) || r < 1 || r > 1e9) {
    return gbError(pCur, SQLITE_ERROR, "%s: %s must be an integer of 1 or more, not %s", zName,
                   graphJobInput(pCur, zName));
  }
  *pi = (int)r;
  return SQLITE_OK;
}

/*
** Append node pKey (as from_col = ? sees it) with weight pW to p; a NULL
** node is none and is skipped. A weight that is not a finite number of 0
** or more is an error naming the node. zName: the argument.
*/
static int gbWeightsAdd(GraphJobCursor *pCur, GraphSource *pSrc, GbWeights *p, const char *zName,
                        sqlite3_value *pKey, sqlite3_value *pW) {
  sqlite3 *db = pCur->db;
  int eType = sqlite3_value_type(pW), rc;
  double w = sqlite3_value_double(pW);
  if (sqlite3_value_type(pKey) == SQLITE_NULL) return SQLITE_OK;
  if ((eType != SQLITE_INTEGER && eType != SQLITE_FLOAT) || !(w >= 0.0) || isinf(w)) {
    char *zKey = nosqlValueQuote(pKey), *zW = nosqlValueQuote(pW);
    nosqlVtabError(pCur->base.pVtab,
                   "graph_pagerank: %s: the weight of node %s must be a number of 0 or more, not %s", zName,
                   zKey ? zKey : "?", zW ? zW : "?");
    sqlite3_free(zKey);
    sqlite3_free(zW);
    return SQLITE_ERROR;
  }
  if (p->n == p->nAlloc) {
    int nNew = p->nAlloc ? 2 * p->nAlloc : 16;
    sqlite3_value **apKey = (sqlite3_value **)sqlite3_realloc64(p->apKey, sizeof(sqlite3_value *) * nNew);
    double *aW;
    if (apKey == NULL) return SQLITE_NOMEM;
    p->apKey = apKey;
    aW = (double *)sqlite3_realloc64(p->aW, sizeof(double) * nNew);
    if (aW == NULL) return SQLITE_NOMEM;
    p->aW = aW;
    p->nAlloc = nNew;
  }
  rc = graphSourceKey(db, pSrc, pKey, &p->apKey[p->n]);
  if (rc == SQLITE_OK) p->aW[p->n++] = w;
  return rc;
}

/*
** Read graph_pagerank's argument zName (personalization or dangling) into
** p: NULL or missing leaves p->bGiven 0; text that starts with '{' or '['
** must be a JSON object {node: weight, ...} (keys are text, converted as
** from_col = ? converts them); other text names a table or view whose
** columns node and weight are read. Anything else is an error.
*/
static int gbWeightsRead(GraphJobCursor *pCur, GraphSource *pSrc, const char *zName, GbWeights *p) {
  sqlite3 *db = pCur->db;
  sqlite3_value *pVal = graphJobInput(pCur, zName);
  sqlite3_stmt *pStmt = NULL;
  const char *z;
  int rc, i = 0;
  if (pVal == NULL || sqlite3_value_type(pVal) == SQLITE_NULL) return SQLITE_OK;
  p->bGiven = 1;
  z = sqlite3_value_type(pVal) == SQLITE_TEXT ? (const char *)sqlite3_value_text(pVal) : NULL;
  if (z == NULL) {
    return gbError(pCur, SQLITE_ERROR, "%s: %s must be a JSON object or the name of a table, not %s", zName,
                   pVal);
  }
  while (z[i] == ' ' || z[i] == '\t' || z[i] == '\n' || z[i] == '\r') i++;
  if ((z[i] == '{' || z[i] == '[') && !nosqlJsonStrict(z, sqlite3_value_bytes(pVal))) {
    /* Strict JSON, whatever the host's json_type() accepts (JSON5 from 3.42). */
    char *zWhat = sqlite3_mprintf("%s " NOSQL_JSON_AT, zName, nosqlJsonErrorAt(z, sqlite3_value_bytes(pVal)));
    rc = zWhat ? gbError(pCur, SQLITE_ERROR, "%s: %s: %s", zWhat, pVal) : SQLITE_NOMEM;
    sqlite3_free(zWhat);
    return rc;
  }
  if (z[i] == '{' || z[i] == '[') {
    int bObject = 0;
    /* json_type(), not json_valid(): the latter reads out of memory as "not JSON". */
    rc = sqlite3_prepare_v2(db, "SELECT json_type(?1) = 'object'", -1, &pStmt, 0);
    if (rc != SQLITE_OK) return rc;
    sqlite3_bind_value(pStmt, 1, pVal);
    if (sqlite3_step(pStmt) == SQLITE_ROW) bObject = sqlite3_column_int(pStmt, 0);
    rc = sqlite3_finalize(pStmt);
    pStmt = NULL;
    if (rc == SQLITE_ERROR) rc = SQLITE_OK; /* Malformed JSON: not an object */
    if (rc != SQLITE_OK) return rc;
    if (!bObject) {
      return gbError(pCur, SQLITE_ERROR, "%s: %s must be a JSON object or the name of a table, not %s", zName,
                     pVal);
    }
    p->bJson = 1;
    /* true and false come out of json_each as 1 and 0: named, they are no weights. */
    rc = sqlite3_prepare_v2(db,
                            "SELECT key, CASE WHEN type IN ('true', 'false') THEN type ELSE value END "
                            "FROM json_each(?1)",
                            -1, &pStmt, 0);
    if (rc == SQLITE_OK) sqlite3_bind_value(pStmt, 1, pVal);
  } else {
    NosqlTableName t;
    char *zSql;
    rc = nosqlTableResolve(db, z, NULL, &t);
    if (rc == SQLITE_NOTFOUND) {
      nosqlTableNameClear(&t);
      return gbError(pCur, SQLITE_ERROR, "%s: %s: no such table or view: %s", zName, pVal);
    }
    if (rc != SQLITE_OK) return rc;
    zSql = sqlite3_mprintf("SELECT s.\"node\", s.\"weight\" FROM \"%w\".\"%w\" AS s", t.zSchema, t.zName);
    nosqlTableNameClear(&t);
    if (zSql == NULL) return SQLITE_NOMEM;
    rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
    sqlite3_free(zSql);
    if (rc == SQLITE_ERROR) {
      return gbError(pCur, SQLITE_ERROR, "%s: %s: table %s has no columns node and weight", zName, pVal);
    }
  }
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    rc = gbWeightsAdd(pCur, pSrc, p, zName, sqlite3_column_value(pStmt, 0), sqlite3_column_value(pStmt, 1));
  }
  if (rc == SQLITE_OK) {
    rc = sqlite3_finalize(pStmt);
    if (rc != SQLITE_OK)
      nosqlVtabError(pCur->base.pVtab, "graph_pagerank: %s: %s", zName, sqlite3_errmsg(db));
  } else {
    sqlite3_finalize(pStmt);
  }
  return rc;
}

/*
** aOut[v] = the weight p gives node v (0 where it names none), divided by
** the sum over the graph's nodes: networkx's personalization.get(n, 0),
** normalized (nodes not in the graph are ignored). A JSON key that names
** no node and reads as a number names that number (JSON keys are text;
** an untyped column holds the number). A node named twice, or a sum of 0
** (networkx: ZeroDivisionError), is an error.
*/
static int gbWeightsVector(GraphJobCursor *pCur, const GraphCsr *pCsr, const GbWeights *p, const char *zName,
                           double *aOut) {
  sqlite3 *db = pCur->db;
  int n = pCsr->vals.n, i, v, rc;
  double rSum = 0.0;
  unsigned char *aSeen = (unsigned char *)sqlite3_malloc64((sqlite3_uint64)n + 1);
  if (aSeen == NULL) return SQLITE_NOMEM;
  memset(aSeen, 0, (size_t)n + 1);
  for (v = 0; v < n; v++) aOut[v] = 0.0;
  for (i = 0; i < p->n; i++) {
    GraphValue key;
    if (!graphValueFrom(p->apKey[i], &key)) continue;
    v = graphSetFind(&pCsr->vals, &key);
    if (v < 0 && p->bJson && key.eType == SQLITE_TEXT) {
      sqlite3_value *pNum = NULL;
      rc = nosqlValueAffinity(db, p->apKey[i], 'n', &pNum);
      if (rc != SQLITE_OK) {
        sqlite3_free(aSeen);
        return rc;
      }
      if (graphValueFrom(pNum, &key) && key.eType != SQLITE_TEXT) v = graphSetFind(&pCsr->vals, &key);
      sqlite3_value_free(pNum);
    }
    if (v < 0) continue;
    if (aSeen[v]) {
      char *zNode = graphValueText((const GraphValue *)graphSetAt(&pCsr->vals, v));
      nosqlVtabError(pCur->base.pVtab, "graph_pagerank: %s names node %s twice", zName, zNode ? zNode : "?");
      sqlite3_free(zNode);
      sqlite3_free(aSeen);
      return SQLITE_ERROR;
    }
    aSeen[v] = 1;
    aOut[v] = p->aW[i];
    rSum += p->aW[i];
  }
  sqlite3_free(aSeen);
  if (!(rSum > 0.0) || isinf(rSum)) {
    nosqlVtabError(
        pCur->base.pVtab,
        rSum > 0.0 ? "graph_pagerank: %s: the weights of the graph's nodes sum to more than a double holds"
                   : "graph_pagerank: %s gives every node of the graph weight 0",
        zName);
    return SQLITE_ERROR;
  }
  for (v = 0; v < n; v++) aOut[v] /= rSum;
  return SQLITE_OK;
}

/*
** aByRank[r] = the node whose value is the r-th smallest. A merge sort
** with the set as context (qsort has none, and a static would not be
** thread-safe).
*/
static int gbOrderNodes(const GraphCsr *pCsr, int **paByRank, int **paRank) {
  int n = pCsr->vals.n, i, w;
  int *a = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)n + 1));
  int *t = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)n + 1));
  int *r = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)n + 1));
  if (a == NULL || t == NULL || r == NULL) {
    sqlite3_free(a);
    sqlite3_free(t);
    sqlite3_free(r);
    return SQLITE_NOMEM;
  }
  for (i = 0; i < n; i++) a[i] = i;
  for (w = 1; w < n; w *= 2) {
    for (i = 0; i < n; i += 2 * w) {
      int lo = i, mid = i + w < n ? i + w : n, hi = i + 2 * w < n ? i + 2 * w : n, x = lo, y = mid, k = lo;
      while (x < mid && y < hi) {
        if (graphValueCmp((const GraphValue *)graphSetAt(&pCsr->vals, a[y]),
                          (const GraphValue *)graphSetAt(&pCsr->vals, a[x])) < 0) {
          t[k++] = a[y++];
        } else {
          t[k++] = a[x++];
        }
      }
      while (x < mid) t[k++] = a[x++];
      while (y < hi) t[k++] = a[y++];
    }
    memcpy(a, t, sizeof(int) * (size_t)n);
  }
  for (i = 0; i < n; i++) r[a[i]] = i;
  sqlite3_free(t);
  *paByRank = a;
  *paRank = r;
  return SQLITE_OK;
}

/* Tarjan's strongly connected components, iterative: aComp[v] = an id of v's component. */
static int gbTarjan(const GraphCsr *pCsr, int *aComp) {
  int n = pCsr->vals.n, v, nIndex = 0, nStack = 0, nCall = 0, nComp = 0;
  int *aIndex = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)n + 1));
  int *aLow = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)n + 1));
  int *aStack = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)n + 1));
  int *aCallV = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)n + 1));
  sqlite3_int64 *aCallK = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * ((sqlite3_uint64)n + 1));
  unsigned char *aOn = (unsigned char *)sqlite3_malloc64((sqlite3_uint64)n + 1);
  int rc = SQLITE_OK;
  if (!aIndex || !aLow || !aStack || !aCallV || !aCallK || !aOn) {
    rc = SQLITE_NOMEM;
    goto tarjan_done;
  }
  for (v = 0; v < n; v++) {
    aIndex[v] = -1;
    aOn[v] = 0;
  }
  for (v = 0; v < n; v++) {
    if (aIndex[v] >= 0) continue;
    /* A depth-first search from v with an explicit call stack. */
    aCallV[0] = v;
    aCallK[0] = pCsr->aOutOff[v];
    nCall = 1;
    aIndex[v] = aLow[v] = nIndex++;
    aStack[nStack++] = v;
    aOn[v] = 1;
    while (nCall > 0) {
      int u = aCallV[nCall - 1];
      if (aCallK[nCall - 1] < pCsr->aOutOff[u + 1]) {
        int w = pCsr->aOut[aCallK[nCall - 1]++];
        if (aIndex[w] < 0) {
          aIndex[w] = aLow[w] = nIndex++;
          aStack[nStack++] = w;
          aOn[w] = 1;
          aCallV[nCall] = w;
          aCallK[nCall] = pCsr->aOutOff[w];
          nCall++;
        } else if (aOn[w] && aIndex[w] < aLow[u]) {
          aLow[u] = aIndex[w];
        }
      } else {
        nCall--;
        if (aLow[u] == aIndex[u]) {
          int w;
          do {
            w = aStack[--nStack];
            aOn[w] = 0;
            aComp[w] = nComp;
          } while (w != u);
          nComp++;
        }
        if (nCall > 0) {
          int parent = aCallV[nCall - 1];
          if (aLow[u] < aLow[parent]) aLow[parent] = aLow[u];
        }
      }
    }
  }
tarjan_done:
  sqlite3_free(aIndex);
  sqlite3_free(aLow);
  sqlite3_free(aStack);
  sqlite3_free(aCallV);
  sqlite3_free(aCallK);
  sqlite3_free(aOn);
  return rc;
}

static int gbCmpInt(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return x < y ? -1 : (x > y);
}

static int gbCmpInt64(const void *a, const void *b) {
  sqlite3_int64 x = *(const sqlite3_int64 *)a, y = *(const sqlite3_int64 *)b;
  return x < y ? -1 : x > y;
}

/*
** Triangle counts (undirected, self-loops and repeated edges ignored):
** aCount[v] = triangles through v. Each node's neighbours either way are
** sorted and deduplicated; nodes are ranked by degree (then number), each
** edge points from its lower-ranked end, and a triangle is found once, at
** its lowest-ranked node, by intersecting the forward lists of an edge's
** two ends. A forward list holds at most sqrt(2m) nodes, so the work is
** O(m sqrt m) whatever the degrees (numbering by node alone was quadratic
** in a hub's degree). pPing is stepped every GB_PING_EVERY nodes.
*/
static int gbTriangles(sqlite3_stmt *pPing, const GraphCsr *pCsr, sqlite3_int64 *aCount) {
  int n = pCsr->vals.n, v, i, rc = SQLITE_OK;
  sqlite3_int64 *aOff = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * ((sqlite3_uint64)n + 1));
  sqlite3_int64 *aFOff = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * ((sqlite3_uint64)n + 1));
  int *aAdj = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)pCsr->nEdge * 2 + 1));
  int *aFwd = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)pCsr->nEdge + 1));
  sqlite3_int64 *aKey = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * ((sqlite3_uint64)n + 1));
  int *aRank = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)n + 1));
  sqlite3_int64 k, nAdj = 0, nFwd = 0;
  if (aOff == NULL || aFOff == NULL || aAdj == NULL || aFwd == NULL || aKey == NULL || aRank == NULL) {
    rc = SQLITE_NOMEM;
    goto triangles_done;
  }
  /* Each node's neighbours either way, sorted, without itself or repeats. */
  for (v = 0; v < n; v++) {
    sqlite3_int64 iStart = nAdj, j;
    aOff[v] = nAdj;
    for (k = pCsr->aOutOff[v]; k < pCsr->aOutOff[v + 1]; k++) {
      if (pCsr->aOut[k] != v) aAdj[nAdj++] = pCsr->aOut[k];
    }
    for (k = pCsr->aInOff[v]; k < pCsr->aInOff[v + 1]; k++) {
      if (pCsr->aIn[k] != v) aAdj[nAdj++] = pCsr->aIn[k];
    }
    qsort(&aAdj[iStart], (size_t)(nAdj - iStart), sizeof(int), gbCmpInt);
    for (k = iStart, j = iStart; k < nAdj; k++) {
      if (k == iStart || aAdj[k] != aAdj[j - 1]) aAdj[j++] = aAdj[k];
    }
    nAdj = j;
  }
  aOff[n] = nAdj;
  /* Ranks: by degree, then node number (a key that sorts as one integer). */
  for (v = 0; v < n; v++) aKey[v] = ((aOff[v + 1] - aOff[v]) << 31) | v;
  qsort(aKey, (size_t)n, sizeof(sqlite3_int64), gbCmpInt64);
  for (i = 0; i < n; i++) aRank[aKey[i] & 0x7FFFFFFF] = i;
  /* Forward lists, by node, of the ranks of higher-ranked neighbours, sorted. */
  for (v = 0; v < n; v++) {
    aFOff[v] = nFwd;
    for (k = aOff[v]; k < aOff[v + 1]; k++) {
      if (aRank[aAdj[k]] > aRank[v]) aFwd[nFwd++] = aRank[aAdj[k]];
    }
    qsort(&aFwd[aFOff[v]], (size_t)(nFwd - aFOff[v]), sizeof(int), gbCmpInt);
  }
  aFOff[n] = nFwd;
  memset(aCount, 0, sizeof(sqlite3_int64) * (size_t)n);
  for (v = 0; v < n && rc == SQLITE_OK; v++) {
    for (k = aFOff[v]; k < aFOff[v + 1]; k++) {
      int u = (int)(aKey[aFwd[k]] & 0x7FFFFFFF);
      sqlite3_int64 a = k + 1, b = aFOff[u];
      /* Common forward neighbours w of v and u: rank(v) < rank(u) < rank(w). */
      while (a < aFOff[v + 1] && b < aFOff[u + 1]) {
        if (aFwd[a] < aFwd[b]) {
          a++;
        } else if (aFwd[a] > aFwd[b]) {
          b++;
        } else {
          aCount[v]++;
          aCount[u]++;
          aCount[aKey[aFwd[a]] & 0x7FFFFFFF]++;
          a++;
          b++;
        }
      }
    }
    if ((v & (GB_PING_EVERY - 1)) == GB_PING_EVERY - 1) rc = gbPing(pPing);
  }
triangles_done:
  sqlite3_free(aOff);
  sqlite3_free(aFOff);
  sqlite3_free(aAdj);
  sqlite3_free(aFwd);
  sqlite3_free(aKey);
  sqlite3_free(aRank);
  return rc;
}

/*
** Label propagation, asynchronous in a fixed order: in each pass every node
** in turn (row order) takes the label most frequent among its neighbours
** either way as they are at that moment (an edge counts once per copy and
** from each end; a tie goes to the node's own label when it is one of the
** most frequent, else to the smallest, i.e. the smallest node id), keeping
** its own when it has no neighbours. It stops after a pass
** that changes nothing, or after nMaxIter passes. (The synchronous form
** oscillates on bipartite parts.) aLabel holds ranks in and out.
*/
static int gbLabelPropagation(GbEngine *pE, int *aLabel, int nMaxIter) {
  const GraphCsr *pCsr = pE->pCsr;
  int n = pCsr->vals.n, v, it, rc = SQLITE_OK;
  int *aTmp = NULL;
  sqlite3_int64 nMaxDeg = 0;
  for (v = 0; v < n; v++) {
    sqlite3_int64 d = pCsr->aOutOff[v + 1] - pCsr->aOutOff[v] + pCsr->aInOff[v + 1] - pCsr->aInOff[v];
    if (d > nMaxDeg) nMaxDeg = d;
  }
  aTmp = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)nMaxDeg + 1));
  if (aTmp == NULL) return SQLITE_NOMEM;
  for (it = 0; it < nMaxIter; it++) {
    int bChanged = 0;
    rc = gbPing(pE->pPing);
    if (rc != SQLITE_OK) break;
    for (v = 0; v < n; v++) {
      int nT = 0, iBest = aLabel[v], nBest = 0, i = 0;
      sqlite3_int64 k;
      for (k = pCsr->aOutOff[v]; k < pCsr->aOutOff[v + 1]; k++) aTmp[nT++] = aLabel[pCsr->aOut[k]];
      for (k = pCsr->aInOff[v]; k < pCsr->aInOff[v + 1]; k++) aTmp[nT++] = aLabel[pCsr->aIn[k]];
      qsort(aTmp, (size_t)nT, sizeof(int), gbCmpInt);
      while (i < nT) {
        int j = i;
        while (j < nT && aTmp[j] == aTmp[i]) j++;
        /* Sorted: the first of equal counts is the smallest; the node's own
        ** label wins a tie it is part of. */
        if (j - i > nBest || (j - i == nBest && aTmp[i] == aLabel[v])) {
          nBest = j - i;
          iBest = aTmp[i];
        }
        i = j;
      }
      if (iBest != aLabel[v]) bChanged = 1;
      aLabel[v] = iBest;
      if ((v & (GB_PING_EVERY - 1)) == GB_PING_EVERY - 1 && (rc = gbPing(pE->pPing)) != SQLITE_OK) break;
    }
    if (rc != SQLITE_OK) break;
    pE->nStep++;
    if (!bChanged) break;
  }
  if (rc == SQLITE_DONE) rc = SQLITE_ERROR;
  sqlite3_free(aTmp);
  return rc;
}

/* PageRank on the engine (dense-sum messages); rows: (node, rank). */
static int gbJobPageRank(GraphJobCursor *pCur, GbEngine *pEng, sqlite3 *db, const GraphCsr *pCsr,
                         GbWeights *aWeights) {
  int n = pCsr->vals.n, v, rc, nMaxIter = 100;
  GbRank r;
  memset(&r, 0, sizeof(r));
  pCur->eVal = GRAPH_VAL_REAL;
  rc = gbReal(pCur, "damping", 0.85, 0.0, 0, 1.0, &r.rDamping);
  if (rc == SQLITE_OK) rc = gbReal(pCur, "tolerance", 1e-6, 0.0, 1, INFINITY, &r.rTol);
  if (rc == SQLITE_OK) rc = gbPositiveInt(pCur, "max_iter", 100, &nMaxIter);
  if (rc != SQLITE_OK || n == 0) return rc;
  pCur->aReal[0] = r.aRank = (double *)sqlite3_malloc64(sizeof(double) * ((sqlite3_uint64)n + 1));
  r.aOutW = (double *)sqlite3_malloc64(sizeof(double) * ((sqlite3_uint64)n + 1));
  if (aWeights[0].bGiven) r.aPers = (double *)sqlite3_malloc64(sizeof(double) * ((sqlite3_uint64)n + 1));
  if (aWeights[1].bGiven) r.aDangle = (double *)sqlite3_malloc64(sizeof(double) * ((sqlite3_uint64)n + 1));
  if (r.aRank == NULL || r.aOutW == NULL || (aWeights[0].bGiven && r.aPers == NULL) ||
      (aWeights[1].bGiven && r.aDangle == NULL) ||
      gbEngineInit(pEng, db, pCsr, GB_COMBINE_SUM) != SQLITE_OK) {
    rc = SQLITE_NOMEM;
  }
  /* networkx: the dangling vector defaults to the personalization vector. */
  if (rc == SQLITE_OK && r.aPers) rc = gbWeightsVector(pCur, pCsr, &aWeights[0], "personalization", r.aPers);
  if (rc == SQLITE_OK && r.aDangle) rc = gbWeightsVector(pCur, pCsr, &aWeights[1], "dangling", r.aDangle);
  if (rc == SQLITE_OK && r.aDangle == NULL) r.aDangle = r.aPers;
  if (rc != SQLITE_OK) {
    sqlite3_free(r.aOutW);
    sqlite3_free(r.aPers);
    if (r.aDangle != r.aPers) sqlite3_free(r.aDangle);
    return rc;
  }
  for (v = 0; v < n; v++) {
    sqlite3_int64 k;
    double w = 0;
    for (k = pCsr->aOutOff[v]; k < pCsr->aOutOff[v + 1]; k++) w += pCsr->aOutW ? pCsr->aOutW[k] : 1.0;
    r.aOutW[v] = w;
  }
  pEng->bAllActive = 1;
  pEng->bDense = 1;
  /* Step 0 sets 1/N and sends it; steps 1..max_iter are networkx's iterations. */
  rc = gbEngineRun(pEng, gbRankCompute, gbRankAfter, &r, nMaxIter + 1);
  sqlite3_free(r.aOutW);
  if (r.aDangle != r.aPers) sqlite3_free(r.aDangle);
  sqlite3_free(r.aPers);
  return rc;
}

/*
** Weakly connected components by union-find (path halving, union by
** size): aComp[v] = the smallest node of v's component in SQLite's order
** of the values (graphValueCmp(), one comparison per node: no sort), the
** label that smallest-label propagation converges to, in time near linear
** in the edges (propagation takes a superstep per hop: a path of 200,000
** nodes took 89 s). The edges come from the rows or, as loaded for this
** job, from the list (bList). An interrupt is checked every GB_PING_EVERY
** edges.
*/
static int gbUnionFind(sqlite3_stmt *pPing, const GraphCsr *pCsr, int *aComp) {
  int n = pCsr->vals.n, v, rc = SQLITE_OK;
  int *aParent = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)n + 1));
  int *aSize = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)n + 1));
  sqlite3_int64 k;
  if (aParent == NULL || aSize == NULL) rc = SQLITE_NOMEM;
  for (v = 0; rc == SQLITE_OK && v < n; v++) {
    aParent[v] = v;
    aSize[v] = 1;
  }
  for (v = 0, k = 0; rc == SQLITE_OK && k < pCsr->nEdge; k++) {
    int a, b = pCsr->aOut[k];
    if (pCsr->bList) {
      a = pCsr->aIn[k];
    } else {
      while (pCsr->aOutOff[v + 1] <= k) v++;
      a = v;
    }
    if ((k & (GB_PING_EVERY - 1)) == GB_PING_EVERY - 1 && (rc = gbPing(pPing)) != SQLITE_OK) break;
    while (aParent[a] != a) a = aParent[a] = aParent[aParent[a]];
    while (aParent[b] != b) b = aParent[b] = aParent[aParent[b]];
    if (a == b) continue;
    if (aSize[a] < aSize[b]) {
      int t = a;
      a = b;
      b = t;
    }
    aParent[b] = a;
    aSize[a] += aSize[b];
  }
  if (rc == SQLITE_OK) {
    /* The smallest member of each root (aSize reused), then each member's. */
    for (v = 0; v < n; v++) aSize[v] = -1;
    for (v = 0; v < n; v++) {
      int r = v;
      while (aParent[r] != r) r = aParent[r] = aParent[aParent[r]];
      if (aSize[r] < 0 || graphValueCmp((const GraphValue *)graphSetAt(&pCsr->vals, v),
                                        (const GraphValue *)graphSetAt(&pCsr->vals, aSize[r])) < 0) {
        aSize[r] = v;
      }
    }
    for (v = 0; v < n; v++) {
      int r = v;
      while (aParent[r] != r) r = aParent[r];
      aComp[v] = aSize[r];
    }
  }
  sqlite3_free(aParent);
  sqlite3_free(aSize);
  return rc;
}

/* Weakly connected components (gbUnionFind), each labelled by its smallest node. */
static int gbJobComponents(GraphJobCursor *pCur, GbEngine *pEng, sqlite3 *db, const GraphCsr *pCsr) {
  int n = pCsr->vals.n, v, rc;
  int *aComp = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)n + 1));
  pCur->aInt = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * ((sqlite3_uint64)n + 1));
  rc = aComp && pCur->aInt ? sqlite3_prepare_v2(db, zGbPing, -1, &pEng->pPing, 0) : SQLITE_NOMEM;
  if (rc == SQLITE_OK) rc = gbUnionFind(pEng->pPing, pCsr, aComp);
  for (v = 0; rc == SQLITE_OK && v < n; v++) pCur->aInt[v] = aComp[v];
  pCur->eVal = GRAPH_VAL_NODE;
  sqlite3_free(aComp);
  return rc;
}

/*
** Single-source shortest paths by smallest-value propagation on the
** engine: hop or weight distances from the root, sent forward plus the
** edge's weight.
*/
static int gbJobSssp(GraphJobCursor *pCur, GbEngine *pEng, sqlite3 *db, const GraphCsr *pCsr,
                     sqlite3_value **ppRootKey) {
  int n = pCsr->vals.n, v, rc = SQLITE_OK, iRoot;
  GbMin m;
  GraphValue root;
  memset(&m, 0, sizeof(m));
  if (*ppRootKey == NULL || !graphValueFrom(*ppRootKey, &root)) {
    nosqlVtabError(pCur->base.pVtab, "graph_sssp: root is NULL");
    return SQLITE_ERROR;
  }
  iRoot = graphSetFind(&pCsr->vals, &root);
  if (iRoot < 0) {
    /* Like graph_walk: a root in no edge is reached alone, at 0. */
    pCur->pOnly = *ppRootKey;
    *ppRootKey = NULL;
    pCur->nRow = 1;
    return SQLITE_OK;
  }
  m.aVal = (double *)sqlite3_malloc64(sizeof(double) * ((sqlite3_uint64)n + 1));
  /* "Not reached" is a flag, not INFINITY: a distance that overflows to
  ** INFINITY is still a route (networkx reports such nodes at inf). */
  m.aReached = (unsigned char *)sqlite3_malloc64((sqlite3_uint64)n + 1);
  if (m.aVal == NULL || m.aReached == NULL || gbEngineInit(pEng, db, pCsr, GB_COMBINE_MIN) != SQLITE_OK ||
      gbEngineSparse(pEng) != SQLITE_OK) {
    rc = SQLITE_NOMEM;
  }
  for (v = 0; rc == SQLITE_OK && v < n; v++) {
    m.aVal[v] = v == iRoot ? 0 : INFINITY;
    m.aReached[v] = v == iRoot;
  }
  if (rc == SQLITE_OK) rc = gbEngineRun(pEng, gbMinCompute, 0, &m, -1);
  if (rc == SQLITE_OK) {
    pCur->aInt = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * ((sqlite3_uint64)n + 1));
    pCur->aReal[0] = (double *)sqlite3_malloc64(sizeof(double) * ((sqlite3_uint64)n + 1));
    if (pCur->aInt == NULL || pCur->aReal[0] == NULL) rc = SQLITE_NOMEM;
  }
  if (rc == SQLITE_OK) {
    /* Reachable nodes only, in node order. Integers while every weight is
    ** one and every distance is below 2^53 (the sums, in doubles, are
    ** exact up to there; 2^53 itself may be 2^53 + 1 rounded); reals
    ** otherwise (and never a cast of a double out of the int64 range). */
    int nRow = 0, bInt = !(pCsr->aOutW && !pCsr->bIntWeight);
    for (v = 0; v < n; v++) {
      if (!m.aReached[v]) continue;
      pCur->aNode[nRow] = v;
      pCur->aReal[0][nRow] = m.aVal[v];
      if (!(m.aVal[v] > -9007199254740992.0 && m.aVal[v] < 9007199254740992.0)) bInt = 0;
      pCur->aInt[nRow++] = bInt ? (sqlite3_int64)m.aVal[v] : 0;
    }
    pCur->nRow = nRow;
    pCur->eVal = bInt ? GRAPH_VAL_INT : GRAPH_VAL_REAL;
  }
  sqlite3_free(m.aVal);
  sqlite3_free(m.aReached);
  return rc;
}

/* Strongly connected components by Tarjan's algorithm, each labelled by its smallest node. */
static int gbJobScc(GraphJobCursor *pCur, const GraphCsr *pCsr) {
  int n = pCsr->vals.n, v, rc, *aByRank = NULL, *aRank = NULL, *aComp, *aMin;
  rc = gbOrderNodes(pCsr, &aByRank, &aRank);
  if (rc != SQLITE_OK) return rc;
  aComp = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)n + 1));
  aMin = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)n + 1));
  pCur->aInt = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * ((sqlite3_uint64)n + 1));
  if (aComp == NULL || aMin == NULL || pCur->aInt == NULL) rc = SQLITE_NOMEM;
  if (rc == SQLITE_OK) rc = gbTarjan(pCsr, aComp);
  if (rc == SQLITE_OK) {
    for (v = 0; v < n; v++) aMin[v] = n;
    for (v = 0; v < n; v++) {
      if (aRank[v] < aMin[aComp[v]]) aMin[aComp[v]] = aRank[v];
    }
    for (v = 0; v < n; v++) pCur->aInt[v] = aByRank[aMin[aComp[v]]];
    pCur->eVal = GRAPH_VAL_NODE;
  }
  sqlite3_free(aComp);
  sqlite3_free(aMin);
  sqlite3_free(aByRank);
  sqlite3_free(aRank);
  return rc;
}

/* Label propagation; labels are ranks during the passes, node ids in the rows. */
static int gbJobLabels(GraphJobCursor *pCur, GbEngine *pEng, sqlite3 *db, const GraphCsr *pCsr) {
  int n = pCsr->vals.n, v, rc, nMaxIter = 100, *aByRank = NULL, *aRank = NULL;
  rc = gbPositiveInt(pCur, "max_iter", 100, &nMaxIter);
  if (rc == SQLITE_OK) rc = gbOrderNodes(pCsr, &aByRank, &aRank);
  if (rc != SQLITE_OK) return rc;
  pCur->aInt = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * ((sqlite3_uint64)n + 1));
  rc = pCur->aInt ? gbEngineInit(pEng, db, pCsr, GB_COMBINE_MIN) : SQLITE_NOMEM;
  if (rc == SQLITE_OK) rc = gbLabelPropagation(pEng, aRank, nMaxIter);
  if (rc == SQLITE_OK) {
    for (v = 0; v < n; v++) pCur->aInt[v] = aByRank[aRank[v]];
    pCur->eVal = GRAPH_VAL_NODE;
  }
  sqlite3_free(aByRank);
  sqlite3_free(aRank);
  return rc;
}

/*
** Run job pCur->pJob on the cursor's graph; fill the rows (one per node
** unless the job says). graph_sssp's root (*ppRootKey, taken when it is the
** only row) and graph_pagerank's vectors (aWeights) were read before the load.
*/
static int gbRun(GraphJobCursor *pCur, sqlite3_value **ppRootKey, GbWeights *aWeights) {
  sqlite3 *db = pCur->db;
  const GraphCsr *pCsr = pCur->pCsr;
  int n = pCsr->vals.n, v, rc = SQLITE_OK;
  GbEngine eng;
  memset(&eng, 0, sizeof(eng));
  pCur->aNode = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)n + 1));
  if (pCur->aNode == NULL) return SQLITE_NOMEM;
  for (v = 0; v < n; v++) pCur->aNode[v] = v;
  pCur->nRow = n;
  switch (pCur->pJob->eJob) {
    case GB_PAGERANK:
      rc = gbJobPageRank(pCur, &eng, db, pCsr, aWeights);
      break;
    case GB_COMPONENTS:
      rc = gbJobComponents(pCur, &eng, db, pCsr);
      break;
    case GB_SSSP:
      rc = gbJobSssp(pCur, &eng, db, pCsr, ppRootKey);
      break;
    case GB_SCC:
      rc = gbJobScc(pCur, pCsr);
      break;
    case GB_TRIANGLES:
      pCur->aInt = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * ((sqlite3_uint64)n + 1));
      rc = pCur->aInt ? sqlite3_prepare_v2(db, zGbPing, -1, &eng.pPing, 0) : SQLITE_NOMEM;
      if (rc == SQLITE_OK) rc = gbTriangles(eng.pPing, pCsr, pCur->aInt);
      pCur->eVal = GRAPH_VAL_INT;
      break;
    default: /* GB_LPA */
      rc = gbJobLabels(pCur, &eng, db, pCsr);
      break;
  }
  gbEngineFree(&eng);
  if (rc == SQLITE_INTERRUPT) nosqlVtabError(pCur->base.pVtab, "interrupted");
  if (rc != SQLITE_OK) pCur->nRow = 0;
  return rc;
}

/* The xRun of this file's jobs (GraphJob): the root and the vectors read, the load, the direction, the job.
 */
static int gbRunJob(GraphJobCursor *pCur, GraphSource *pSrc, int eDir, char **pzErr) {
  const GraphJob *pJob = pCur->pJob;
  sqlite3_value *pRootKey = NULL;
  GbWeights aWeights[2];
  int rc = SQLITE_OK, i;
  memset(aWeights, 0, sizeof(aWeights));
  if (graphJobInput(pCur, "root")) {
    /* The root as a seek of graph_walk's would meet it (a '1' in an INTEGER column is 1). */
    rc = graphSourceKey(pCur->db, pSrc, graphJobInput(pCur, "root"), &pRootKey);
  }
  if (rc == SQLITE_OK && pJob->eJob == GB_PAGERANK) {
    /* Read before the load: a bad argument is reported without it. */
    rc = gbWeightsRead(pCur, pSrc, "personalization", &aWeights[0]);
    if (rc == SQLITE_OK) rc = gbWeightsRead(pCur, pSrc, "dangling", &aWeights[1]);
  }
  if (rc == SQLITE_OK) {
    /* Components read each edge once, in any order: no rows needed. */
    rc = graphSourceLoad(pCur->db, pSrc, GB_MAX_EDGE, pJob->eJob == GB_COMPONENTS ? GRAPH_LOAD_LIST : 1,
                         pJob->zName, &pCur->pCsr, pzErr);
  }
  /* Components, triangles and labels read every edge both ways already. */
  if (rc == SQLITE_OK && eDir != GRAPH_DIR_OUT &&
      (pJob->eJob == GB_PAGERANK || pJob->eJob == GB_SCC || pJob->eJob == GB_SSSP)) {
    rc = graphCsrDirect(pCur->pCsr, eDir);
  }
  if (rc == SQLITE_OK) rc = gbRun(pCur, &pRootKey, aWeights);
  sqlite3_value_free(pRootKey);
  for (i = 0; i < 2; i++) gbWeightsClear(&aWeights[i]);
  return rc;
}

/**************************************************************************
** The glue every whole-graph job shares (GraphJob, nosqlInt.h): this
** file's jobs and graph_centrality.c's. One eponymous module per job:
**
**   CREATE TABLE x(node, <zCols>, <input> HIDDEN, ...)
**
** every input an equality (ext/plan.c, nosqlPlanInputs()), the leading
** nRequired required; xFilter reads them, the options object and the
** source, and hands over to the job's xRun.
*/

typedef struct graph_job_vtab graph_job_vtab;
struct graph_job_vtab {
  sqlite3_vtab base;                       /* Base class - must be first */
  sqlite3 *db;                             /* The connection */
  const GraphJob *pJob;                    /* The job */
  int nInput;                              /* Hidden inputs */
  NosqlPlanCol aPlan[GRAPH_JOB_MAX_INPUT]; /* Every input an equality */
};

static int graphJobConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                           char **pzErr) {
  const GraphJob *pJob = (const GraphJob *)pAux;
  NosqlBuffer decl = {0, 0, 0};
  graph_job_vtab *p;
  int rc = SQLITE_OK, i;
  (void)argc;
  (void)argv;
  (void)pzErr;
  nosqlBufferAppendf(&rc, &decl, "CREATE TABLE x(node, %s", pJob->zCols);
  /* A node id takes no affinity ("root HIDDEN" alone would be NUMERIC,
  ** which turns root IN ('02134') into 2134). */
  for (i = 0; pJob->aInput[i].zName; i++) {
    nosqlBufferAppendf(&rc, &decl, ", %s%s HIDDEN", pJob->aInput[i].zName,
                       strcmp(pJob->aInput[i].zName, "root") == 0 ? " BLOB" : "");
  }
  nosqlBufferAppendf(&rc, &decl, ")");
  if (rc == SQLITE_OK) rc = nosqlVtabNew(db, (const char *)decl.a, sizeof(graph_job_vtab), ppVtab);
  nosqlBufferFree(&decl);
  if (rc != SQLITE_OK) return rc;
  p = (graph_job_vtab *)*ppVtab;
  p->db = db;
  p->pJob = pJob;
  for (i = 0; pJob->aInput[i].zName; i++) {
    NosqlPlanCol c = {1 + pJob->nValue + i, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, i < pJob->nRequired};
    p->aPlan[i] = c;
  }
  p->nInput = i;
  return SQLITE_OK;
}

/* Every input an equality, the leading ones required (ext/plan.c, nosqlPlanInputs()). */
static int graphJobBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo) {
  graph_job_vtab *p = (graph_job_vtab *)pVtab;
  return nosqlPlanInputs(pInfo, p->aPlan, p->nInput, 1e6, 100000);
}

static int graphJobOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor) {
  int rc = nosqlCursorNew(sizeof(GraphJobCursor), ppCursor) ? SQLITE_OK : SQLITE_NOMEM;
  if (rc == SQLITE_OK) {
    GraphJobCursor *pCur = (GraphJobCursor *)*ppCursor;
    pCur->db = ((graph_job_vtab *)pVtab)->db;
    pCur->pJob = ((graph_job_vtab *)pVtab)->pJob;
  }
  return rc;
}

static void graphJobReset(GraphJobCursor *pCur) {
  int i;
  graphCsrUnref(pCur->pCsr);
  sqlite3_free(pCur->aNode);
  sqlite3_free(pCur->aReal[0]);
  sqlite3_free(pCur->aReal[1]);
  sqlite3_free(pCur->aInt);
  sqlite3_value_free(pCur->pOnly);
  for (i = 0; i < GRAPH_JOB_MAX_INPUT; i++) {
    sqlite3_value_free(pCur->apIn[i]);
    sqlite3_value_free(pCur->apOwn[i]);
  }
  memset(&pCur->pCsr, 0, sizeof(*pCur) - offsetof(GraphJobCursor, pCsr));
}

static int graphJobClose(sqlite3_vtab_cursor *pCursor) {
  graphJobReset((GraphJobCursor *)pCursor);
  sqlite3_free(pCursor);
  return SQLITE_OK;
}

sqlite3_value *graphJobInput(GraphJobCursor *pCur, const char *zName) {
  const GraphJob *pJob = pCur->pJob;
  int i;
  for (i = 0; pJob->aInput[i].zName; i++) {
    if (sqlite3_stricmp(pJob->aInput[i].zName, zName) == 0) {
      sqlite3_value *p = pCur->apEff[i];
      return p && sqlite3_value_type(p) != SQLITE_NULL ? p : NULL;
    }
  }
  return NULL;
}

static int graphJobFilter(sqlite3_vtab_cursor *pCursor, int idxNum, const char *idxStr, int argc,
                          sqlite3_value **argv) {
  GraphJobCursor *pCur = (GraphJobCursor *)pCursor;
  graph_job_vtab *p = (graph_job_vtab *)pCursor->pVtab;
  const GraphJob *pJob = p->pJob;
  NosqlPlanArg aArg[GRAPH_JOB_MAX_INPUT];
  GraphSource src;
  char *zErr = NULL;
  int rc, i, eLayout = GRAPH_LAYOUT_EDGES, eDir = GRAPH_DIR_OUT;
  (void)idxNum;
  graphJobReset(pCur);
  rc = nosqlPlanInputArgs(pCursor->pVtab, pJob->zUsage, p->aPlan, p->nInput, idxStr, argc, argv, aArg);
  if (rc != SQLITE_OK) return rc;
  for (i = 0; i < p->nInput; i++) {
    if (aArg[i].pEq) {
      pCur->apIn[i] = sqlite3_value_dup(aArg[i].pEq);
      if (pCur->apIn[i] == NULL) return SQLITE_NOMEM;
    }
  }
  /* The options object (ext/util.c): the keys are the optional inputs. */
  rc = nosqlOptionsRead(p->db, pJob->zName, pJob->aInput, pJob->nRequired, p->nInput, pCur->apIn, pCur->apEff,
                        pCur->apOwn, &i, &zErr);
  if (rc != SQLITE_OK) {
    if (zErr) nosqlVtabError(pCursor->pVtab, "%s", zErr);
    if ((zErr == NULL && rc == SQLITE_ERROR) || (zErr && pCursor->pVtab->zErrMsg == NULL)) rc = SQLITE_NOMEM;
    sqlite3_free(zErr);
    return rc;
  }
  rc = graphLayoutArg(pCursor->pVtab, pJob->zName, graphJobInput(pCur, "layout"), &eLayout);
  if (rc == SQLITE_OK)
    rc = graphDirectionArg(pCursor->pVtab, pJob->zName, graphJobInput(pCur, "direction"), &eDir);
  if (rc != SQLITE_OK) return rc;
  rc = graphSourceInit(p->db, pJob->zName, pCur->apIn[0], pCur->apIn[1], pCur->apIn[2],
                       graphJobInput(pCur, "weight_col"), eLayout, &src, &zErr);
  if (rc == SQLITE_OK) {
    rc = pJob->xRun(pCur, &src, eDir, &zErr);
    graphSourceClear(&src); /* (Cleared by graphSourceInit() itself when it fails) */
  }
  if (zErr) nosqlVtabError(pCursor->pVtab, "%s", zErr);
  sqlite3_free(zErr);
  if (rc != SQLITE_OK) pCur->nRow = 0;
  return rc;
}

static int graphJobNext(sqlite3_vtab_cursor *pCursor) {
  ((GraphJobCursor *)pCursor)->iRow++;
  return SQLITE_OK;
}

static int graphJobEof(sqlite3_vtab_cursor *pCursor) {
  GraphJobCursor *pCur = (GraphJobCursor *)pCursor;
  return pCur->iRow >= pCur->nRow;
}

static int graphJobColumn(sqlite3_vtab_cursor *pCursor, sqlite3_context *ctx, int iCol) {
  GraphJobCursor *pCur = (GraphJobCursor *)pCursor;
  const GraphJob *pJob = pCur->pJob;
  int iRow = pCur->iRow;
  if (pCur->pOnly && iCol <= pJob->nValue) {
    if (iCol == 0) {
      sqlite3_result_value(ctx, pCur->pOnly);
    } else {
      sqlite3_result_int(ctx, 0);
    }
  } else if (iCol == 0) {
    graphValueResult(
        ctx, (const GraphValue *)graphSetAt(&pCur->pCsr->vals, pCur->aNode ? pCur->aNode[iRow] : iRow));
  } else if (iCol <= pJob->nValue) {
    switch (pCur->eVal) {
      case GRAPH_VAL_REAL:
        sqlite3_result_double(ctx, pCur->aReal[iCol - 1][iRow]);
        break;
      case GRAPH_VAL_INT:
        sqlite3_result_int64(ctx, pCur->aInt[iRow]);
        break;
      default:
        graphValueResult(ctx, (const GraphValue *)graphSetAt(&pCur->pCsr->vals, (int)pCur->aInt[iRow]));
        break;
    }
  } else if (iCol - 1 - pJob->nValue < GRAPH_JOB_MAX_INPUT && pCur->apIn[iCol - 1 - pJob->nValue]) {
    sqlite3_result_value(ctx, pCur->apIn[iCol - 1 - pJob->nValue]);
  }
  return SQLITE_OK;
}

static int graphJobRowid(sqlite3_vtab_cursor *pCursor, sqlite_int64 *pRowid) {
  *pRowid = ((GraphJobCursor *)pCursor)->iRow + 1;
  return SQLITE_OK;
}

static sqlite3_module graphJobModule = {
    0,                 /* iVersion */
    0,                 /* xCreate: eponymous only */
    graphJobConnect,   /* xConnect */
    graphJobBestIndex, /* xBestIndex */
    nosqlVtabFree,     /* xDisconnect */
    0,                 /* xDestroy */
    graphJobOpen,      /* xOpen */
    graphJobClose,     /* xClose */
    graphJobFilter,    /* xFilter */
    graphJobNext,      /* xNext */
    graphJobEof,       /* xEof */
    graphJobColumn,    /* xColumn */
    graphJobRowid,     /* xRowid */
    0,                 /* xUpdate */
    0,                 /* xBegin */
    0,                 /* xSync */
    0,                 /* xCommit */
    0,                 /* xRollback */
    0,                 /* xFindFunction */
    0,                 /* xRename */
    0,                 /* xSavepoint */
    0,                 /* xRelease */
    0,                 /* xRollbackTo */
    0,                 /* xShadowName */
};

int graphJobRegister(sqlite3 *db, const GraphJob *aJob, int nJob) {
  int i, rc = SQLITE_OK;
  for (i = 0; rc == SQLITE_OK && i < nJob; i++) {
    rc = sqlite3_create_module(db, aJob[i].zName, &graphJobModule, (void *)&aJob[i]);
  }
  return rc;
}

/* The feature "graph batch": one module per job, sharing the engine. */
int graphBatchRegister(sqlite3 *db) {
  return graphJobRegister(db, aGbJob, (int)(sizeof(aGbJob) / sizeof(aGbJob[0])));
}
