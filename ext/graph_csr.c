/*
** graph_csr.c: the in-memory graph every graph function reads, and the
** reading of an edge source's rows.
**
** What it holds:
**
**   - node values (GraphValue): any SQLite value but NULL, compared as
**     SQLite compares values with BINARY collation, hashed for sets;
**   - sets of them (GraphSet): open addressing, elements in the order they
**     were added, each a GraphValue followed by the caller's per-node data
**     (graph_walk's, tree_json's, graph_index's numbering);
**   - the SQL that reads a source's edges (all of them, graphSourceEdgesSql();
**     one node's neighbours, graphSourceNeighbourSql()) and the messages
**     about a JSON-layout to_col that is not an array or not JSON;
**   - the whole edge set in memory as compressed sparse rows (GraphCsr),
**     turned for a direction (graphCsrDirect()), and its load from the
**     source's rows: graphCsrNew(), graphCsrFill() (the scan, in named
**     steps below), graphCsrLoad() (both).
**
** What it uses: ext/util.c (column affinity and collation, value quoting)
** and the GraphSource a caller resolved (ext/graph_source.c fills it; the
** struct is in nosqlInt.h), nothing else of the extension. The other
** direction: ext/graph_source.c (whose graphSourceLoad() picks a
** graph_index or this scan), ext/graph_index.c (its numbering of node
** values, its loads into a GraphCsr, and 'integrity-check', which compares
** a load of the index with graphCsrLoad() of the table), graph_walk.c,
** graph_batch.c, graph_centrality.c and tree_json.c use it.
*/
#include "nosqlInt.h"

#include <assert.h>
#include <math.h>
#include <string.h>

/**************************************************************************
** Node values and sets of them, shared by the graph and tree functions.
**
** A node id is any SQLite value but NULL, compared as SQLite compares
** values with BINARY collation: integers and reals by numeric value (a
** whole real in the int64 range is stored as the integer, so 1 and 1.0 are
** one node), text and blobs by bytes (text never equals a blob).
*/

static unsigned graphHashBytes(unsigned h, const void *pData, int n) {
  const unsigned char *z = (const unsigned char *)pData;
  int i;
  for (i = 0; i < n; i++) h = (h ^ z[i]) * 16777619u;
  return h;
}

/* A 64-bit mix (splitmix64's finaliser) folded to 32 bits: numbers hash in a few instructions. */
static unsigned graphHash64(sqlite3_uint64 x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return (unsigned)(x ^ (x >> 32));
}

/*
** Fill *p from pVal (p->z points into pVal: not owned). Returns 0 for NULL
** (no node), else 1.
*/
int graphValueFrom(sqlite3_value *pVal, GraphValue *p) {
  memset(p, 0, sizeof(*p));
  p->eType = sqlite3_value_type(pVal);
  switch (p->eType) {
    case SQLITE_NULL:
      return 0;
    case SQLITE_INTEGER:
      p->iVal = sqlite3_value_int64(pVal);
      break;
    case SQLITE_FLOAT: {
      double r = sqlite3_value_double(pVal);
      if (r == floor(r) && r >= -9223372036854775808.0 && r < 9223372036854775808.0) {
        p->eType = SQLITE_INTEGER;
        p->iVal = (sqlite3_int64)r;
      } else {
        p->rVal = r;
      }
      break;
    }
    default:
      p->z = (char *)(p->eType == SQLITE_TEXT ? (const void *)sqlite3_value_text(pVal)
                                              : sqlite3_value_blob(pVal));
      p->n = sqlite3_value_bytes(pVal);
      break;
  }
  switch (p->eType) {
    case SQLITE_INTEGER:
      p->h = graphHash64((sqlite3_uint64)p->iVal);
      break;
    case SQLITE_FLOAT: {
      sqlite3_uint64 u;
      memcpy(&u, &p->rVal, sizeof(u));
      p->h = graphHash64(u ^ 0x9e3779b97f4a7c15ULL) ^ 7u;
      break;
    }
    default:
      p->h = graphHashBytes(2166136261u ^ (unsigned)p->eType, p->z, p->n);
      break;
  }
  return 1;
}

int graphValueEq(const GraphValue *a, const GraphValue *b) {
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

void graphValueResult(sqlite3_context *ctx, const GraphValue *p) {
  switch (p->eType) {
    case SQLITE_INTEGER:
      sqlite3_result_int64(ctx, p->iVal);
      break;
    case SQLITE_FLOAT:
      sqlite3_result_double(ctx, p->rVal);
      break;
    case SQLITE_TEXT:
      sqlite3_result_text(ctx, p->z ? p->z : "", p->n, SQLITE_TRANSIENT);
      break;
    default:
      sqlite3_result_blob(ctx, p->z ? p->z : "", p->n, SQLITE_TRANSIENT);
      break;
  }
}

void graphValueBind(sqlite3_stmt *pStmt, int iParam, const GraphValue *p) {
  switch (p->eType) {
    case SQLITE_INTEGER:
      sqlite3_bind_int64(pStmt, iParam, p->iVal);
      break;
    case SQLITE_FLOAT:
      sqlite3_bind_double(pStmt, iParam, p->rVal);
      break;
    case SQLITE_TEXT:
      sqlite3_bind_text(pStmt, iParam, p->z ? p->z : "", p->n, SQLITE_STATIC);
      break;
    default:
      sqlite3_bind_blob(pStmt, iParam, p->z ? p->z : "", p->n, SQLITE_STATIC);
      break;
  }
}

char *graphValueText(const GraphValue *p) {
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

/* Free the elements and their bytes; the set stays usable (szElem kept). */
void graphSetClear(GraphSet *p) {
  int i, szElem = p->szElem;
  for (i = 0; i < p->n; i++) sqlite3_free(((GraphValue *)graphSetAt(p, i))->z);
  sqlite3_free(p->a);
  sqlite3_free(p->aSlot);
  memset(p, 0, sizeof(*p));
  p->szElem = szElem;
}

/* Slot of *pKey in p->aSlot: its slot, or the empty slot where it goes. */
static int graphSetSlot(const GraphSet *p, const GraphValue *pKey) {
  int i = (int)(pKey->h & (unsigned)(p->nSlot - 1));
  while (p->aSlot[i] && !graphValueEq((const GraphValue *)graphSetAt(p, p->aSlot[i] - 1), pKey)) {
    i = (i + 1) & (p->nSlot - 1);
  }
  return i;
}

int graphSetFind(const GraphSet *p, const GraphValue *pKey) {
  int iSlot;
  if (p->nSlot == 0) return -1;
  iSlot = graphSetSlot(p, pKey);
  return p->aSlot[iSlot] - 1;
}

int graphSetAdd(GraphSet *p, const GraphValue *pKey, int *piElem, int *pbNew) {
  int iSlot;
  GraphValue *pNew;
  *pbNew = 0;
  assert(p->szElem >= (int)sizeof(GraphValue));
  if (p->n >= 0x3fffffff) return SQLITE_TOOBIG;
  if ((p->n + 1) * 2 > p->nSlot) {
    int nNew = p->nSlot ? p->nSlot * 2 : 64, i;
    int *aNew = (int *)sqlite3_malloc64(sizeof(int) * (sqlite3_uint64)nNew);
    if (aNew == NULL) return SQLITE_NOMEM;
    memset(aNew, 0, sizeof(int) * (size_t)nNew);
    sqlite3_free(p->aSlot);
    p->aSlot = aNew;
    p->nSlot = nNew;
    for (i = 0; i < p->n; i++) p->aSlot[graphSetSlot(p, (const GraphValue *)graphSetAt(p, i))] = i + 1;
  }
  iSlot = graphSetSlot(p, pKey);
  if (p->aSlot[iSlot]) {
    *piElem = p->aSlot[iSlot] - 1;
    return SQLITE_OK;
  }
  if (p->n == p->nAlloc) {
    int nNew = p->nAlloc ? p->nAlloc * 2 : 64;
    char *aNew = (char *)sqlite3_realloc64(p->a, (sqlite3_uint64)p->szElem * (sqlite3_uint64)nNew);
    if (aNew == NULL) return SQLITE_NOMEM;
    p->a = aNew;
    p->nAlloc = nNew;
  }
  pNew = (GraphValue *)graphSetAt(p, p->n);
  memset(pNew, 0, (size_t)p->szElem);
  *pNew = *pKey;
  pNew->z = NULL;
  if (pKey->eType == SQLITE_TEXT || pKey->eType == SQLITE_BLOB) {
    pNew->z = (char *)sqlite3_malloc64((sqlite3_uint64)pKey->n + 1);
    if (pNew->z == NULL) return SQLITE_NOMEM;
    if (pKey->n) memcpy(pNew->z, pKey->z, (size_t)pKey->n);
    pNew->z[pKey->n] = 0;
  }
  p->aSlot[iSlot] = p->n + 1;
  *piElem = p->n++;
  *pbNew = 1;
  return SQLITE_OK;
}

/*
** Compare two node values in SQLite's order (BINARY): numbers (integers
** and reals by value) before text before blobs; text and blobs by bytes.
*/
int graphValueCmp(const GraphValue *a, const GraphValue *b) {
  int ca = a->eType == SQLITE_TEXT ? 1 : (a->eType == SQLITE_BLOB ? 2 : 0);
  int cb = b->eType == SQLITE_TEXT ? 1 : (b->eType == SQLITE_BLOB ? 2 : 0);
  if (ca != cb) return ca < cb ? -1 : 1;
  if (ca == 0) {
    if (a->eType == SQLITE_INTEGER && b->eType == SQLITE_INTEGER) {
      return a->iVal < b->iVal ? -1 : (a->iVal > b->iVal ? 1 : 0);
    } else {
      /* A real is never a whole number in the int64 range here (graphValueFrom). */
      double ra = a->eType == SQLITE_INTEGER ? (double)a->iVal : a->rVal;
      double rb = b->eType == SQLITE_INTEGER ? (double)b->iVal : b->rVal;
      if (ra < rb) return -1;
      if (ra > rb) return 1;
      /* An integer and a real that round to the same double: the real is
      ** past the int64 range (a whole real inside it is an integer here). */
      if (a->eType == SQLITE_INTEGER) return b->rVal > 0 ? -1 : 1;
      return a->rVal < 0 ? -1 : 1;
    }
  } else {
    int n = a->n < b->n ? a->n : b->n;
    int c = n ? memcmp(a->z, b->z, (size_t)n) : 0;
    if (c) return c;
    return a->n < b->n ? -1 : (a->n > b->n ? 1 : 0);
  }
}

/*
** The JSON layout's type of to_col over alias s (sqlite3_mprintf):
** json_type(), NULL for NULL. Text that is not JSON stops the statement
** with SQLite's "malformed JSON", which the caller turns into a message
** naming the node (graphSourceMalformed()). Not json_valid(): before SQLite
** 3.45 it answers 0 when it runs out of memory, and a statement that
** evaluates it twice for one row could then drop the row's edges without
** an error.
*/
static char *graphSourceJsonType(const GraphSource *p) {
  return sqlite3_mprintf("json_type(s.\"%w\")", p->zTo);
}

int graphSourceIsMalformed(sqlite3 *db, const GraphSource *p, int rc) {
  return p->eLayout == GRAPH_LAYOUT_JSON && (rc & 0xff) == SQLITE_ERROR &&
         strcmp(sqlite3_errmsg(db), "malformed JSON") == 0;
}

char *graphSourceMalformed(sqlite3 *db, const GraphSource *p, const char *zFunc, const GraphValue *pNode) {
  /* The node sought first: a seek statement fails on that node's own row. */
  char *zSql = sqlite3_mprintf(
      "SELECT s.\"%w\" FROM \"%w\".\"%w\" AS s WHERE s.\"%w\" IS NOT NULL AND "
      "typeof(s.\"%w\") = 'text' AND NOT json_valid(s.\"%w\") ORDER BY s.\"%w\" IS ?1 DESC "
      "LIMIT 1",
      p->zFrom, p->zSchema, p->zTable, p->zFrom, p->zTo, p->zTo, p->zFrom);
  sqlite3_stmt *pStmt = NULL;
  char *zMsg = NULL;
  int rc = zSql ? sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  if (rc == SQLITE_OK) {
    GraphValue v;
    if (pNode) graphValueBind(pStmt, 1, pNode);
    if (sqlite3_step(pStmt) == SQLITE_ROW && graphValueFrom(sqlite3_column_value(pStmt, 0), &v)) {
      zMsg = graphSourceJsonError(zFunc, &v, "malformed");
    } else {
      zMsg = sqlite3_mprintf("%s: to_col of a node is malformed JSON (layout 'json')", zFunc);
    }
  }
  sqlite3_finalize(pStmt);
  return zMsg;
}

char *graphSourceJsonError(const char *zFunc, const GraphValue *pNode, const char *zType) {
  char *zNode = graphValueText(pNode), *zMsg;
  if (strcmp(zType, "malformed") == 0) {
    zMsg = sqlite3_mprintf("%s: to_col of node %s is malformed JSON (layout 'json')", zFunc,
                           zNode ? zNode : "?");
  } else {
    zMsg = sqlite3_mprintf("%s: to_col of node %s is not a JSON array but %s (layout 'json')", zFunc,
                           zNode ? zNode : "?", zType);
  }
  sqlite3_free(zNode);
  return zMsg;
}

/* The weight expression of alias s: the column, or NULL. */
static char *graphSourceWeight(const GraphSource *p) {
  return p->zWeight ? sqlite3_mprintf("s.\"%w\"", p->zWeight) : sqlite3_mprintf("NULL");
}

char *graphSourceNeighbourSql(const GraphSource *p, int eDir) {
  char *zW = graphSourceWeight(p);
  char *zOut = NULL, *zIn = NULL, *zRet = NULL;
  /* In the edge order (p->zOrder, then the array's), as graphSourceEdgesSql(). */
  const char *zBy = p->zOrder ? " ORDER BY " : "", *zOrder = p->zOrder ? p->zOrder : "";
  const char *zKey = p->zOrder ? ", j.key" : " ORDER BY j.key";
  if (zW == NULL) return NULL;
  if (p->eLayout == GRAPH_LAYOUT_JSON) {
    char *zType = graphSourceJsonType(p);
    if (zType == NULL) {
      sqlite3_free(zW);
      return NULL;
    }
    /* LEFT JOIN: a node row whose value is not an array still shows its type. */
    if (eDir & GRAPH_DIR_OUT) {
      zOut = sqlite3_mprintf(
          "SELECT j.value, %s, %s FROM \"%w\".\"%w\" AS s LEFT JOIN json_each(CASE WHEN %s = 'array' THEN "
          "s.\"%w\" END) AS j WHERE s.\"%w\" = ?1 AND (j.value IS NOT NULL OR coalesce(%s, 'array') <> "
          "'array')%s%s%s",
          zW, zType, p->zSchema, p->zTable, zType, p->zTo, p->zFrom, zType, zBy, zOrder, zKey);
    }
    if (eDir & GRAPH_DIR_IN) {
      /* Reads every node's list: text that is not JSON anywhere stops it (graphSourceMalformed()). */
      zIn = sqlite3_mprintf(
          "SELECT s.\"%w\", %s, 'array' FROM \"%w\".\"%w\" AS s, json_each(CASE WHEN %s = 'array' THEN "
          "s.\"%w\" END) AS j WHERE j.value = ?1 AND s.\"%w\" IS NOT NULL%s%s%s",
          p->zFrom, zW, p->zSchema, p->zTable, zType, p->zTo, p->zFrom, zBy, zOrder, zKey);
    }
    sqlite3_free(zType);
  } else {
    if (eDir & GRAPH_DIR_OUT) {
      zOut = sqlite3_mprintf(
          "SELECT s.\"%w\", %s, NULL FROM \"%w\".\"%w\" AS s WHERE s.\"%w\" = ?1 AND s.\"%w\" "
          "IS NOT NULL%s%s",
          p->zTo, zW, p->zSchema, p->zTable, p->zFrom, p->zTo, zBy, zOrder);
    }
    if (eDir & GRAPH_DIR_IN) {
      zIn = sqlite3_mprintf(
          "SELECT s.\"%w\", %s, NULL FROM \"%w\".\"%w\" AS s WHERE s.\"%w\" = ?1 AND s.\"%w\" "
          "IS NOT NULL%s%s",
          p->zFrom, zW, p->zSchema, p->zTable, p->zTo, p->zFrom, zBy, zOrder);
    }
  }
  if (zOut && zIn) {
    /* Each half keeps its own order. */
    zRet = sqlite3_mprintf("SELECT * FROM (%s) UNION ALL SELECT * FROM (%s)", zOut, zIn);
  } else if (eDir != GRAPH_DIR_BOTH && (eDir == GRAPH_DIR_OUT ? zOut != NULL : zIn != NULL)) {
    /* (Both directions with one half lost to OOM must fail, not walk one way.) */
    zRet = sqlite3_mprintf("%s", zOut ? zOut : zIn);
  }
  sqlite3_free(zOut);
  sqlite3_free(zIn);
  sqlite3_free(zW);
  return zRet;
}

char *graphSourceEdgesSql(const GraphSource *p) {
  char *zW = graphSourceWeight(p);
  char *zRet;
  if (zW == NULL) return NULL;
  if (p->eLayout == GRAPH_LAYOUT_JSON) {
    /* Every row is a node, its list NULL or [] included (networkx's
    ** from_dict_of_lists keeps them): such a row comes once, with a NULL to. */
    char *zType = graphSourceJsonType(p);
    zRet =
        zType ? sqlite3_mprintf(
                    "SELECT s.\"%w\", j.value, %s, %s FROM \"%w\".\"%w\" AS s LEFT JOIN json_each(CASE "
                    "WHEN %s = 'array' THEN s.\"%w\" END) AS j WHERE s.\"%w\" IS NOT NULL ORDER BY %s%sj.key",
                    p->zFrom, zW, zType, p->zSchema, p->zTable, zType, p->zTo, p->zFrom,
                    p->zOrder ? p->zOrder : "", p->zOrder ? ", " : "")
              : NULL;
    sqlite3_free(zType);
  } else {
    zRet = sqlite3_mprintf(
        "SELECT s.\"%w\", s.\"%w\", %s, NULL FROM \"%w\".\"%w\" AS s WHERE s.\"%w\" IS NOT "
        "NULL AND s.\"%w\" IS NOT NULL%s%s",
        p->zFrom, p->zTo, zW, p->zSchema, p->zTable, p->zFrom, p->zTo, p->zOrder ? " ORDER BY " : "",
        p->zOrder ? p->zOrder : "");
  }
  sqlite3_free(zW);
  return zRet;
}

/**************************************************************************
** The whole edge set in memory (compressed sparse rows), for walks that
** visit much of a graph: one sequential scan of the source instead of one
** index seek per node. See graphCsrLoad() in nosqlInt.h for when it is
** exact.
**
** How a load reads (graphCsrFill()): a table in the edges layout through
** graph_load_edge() in the WHERE of a statement that returns no row, so
** that SQLite hands each row's values to graphLoaderRow() from inside its
** scan (about 60 ns per edge at 1M edges, against 120 for stepping the
** rows and reading their columns); views and the JSON layout by stepping
** the rows of graphSourceEdgesSql(). Integer ids are numbered through a
** GraphIntMap, a batch of rows after their slots are prefetched; then a
** counting sort makes the rows, unless the job takes the list as read
** (GRAPH_LOAD_LIST).
*/

void graphCsrUnref(GraphCsr *p) {
  if (p == NULL || --p->nRef > 0) return;
  graphSetClear(&p->vals);
  sqlite3_free(p->aOutOff);
  sqlite3_free(p->aOut);
  sqlite3_free(p->aInOff);
  sqlite3_free(p->aIn);
  sqlite3_free(p->aOutW);
  sqlite3_free(p->aInW);
  sqlite3_free(p->aBad);
  sqlite3_free(p->aIsBad);
  sqlite3_free(p);
}

int graphCsrLookup(const GraphCsr *p, const GraphValue *pKey, int bIn) {
  char cAff = bIn ? p->cAffTo : p->cAffFrom;
  /* Where SQLite would convert the key before comparing, the caller seeks. */
  if (pKey->eType == SQLITE_TEXT && (cAff == 'i' || cAff == 'r' || cAff == 'n')) return -2;
  if ((pKey->eType == SQLITE_INTEGER || pKey->eType == SQLITE_FLOAT) && cAff == 't') return -2;
  return graphSetFind(&p->vals, pKey);
}

int graphCsrIsBad(const GraphCsr *p, int iVal) { return p->aIsBad != NULL && p->aIsBad[iVal]; }

int graphCsrDirect(GraphCsr *p, int eDir) {
  sqlite3_int64 *aOff, k, n = 0;
  int *aAdj, *aAdj2, i;
  double *aW = NULL, *aW2 = NULL;
  assert(p->nRef == 1);
  if (eDir == GRAPH_DIR_IN) {
    /* Swap the two halves. */
    aOff = p->aOutOff, p->aOutOff = p->aInOff, p->aInOff = aOff;
    aAdj = p->aOut, p->aOut = p->aIn, p->aIn = aAdj;
    aW = p->aOutW, p->aOutW = p->aInW, p->aInW = aW;
    return SQLITE_OK;
  }
  if (eDir != GRAPH_DIR_BOTH) return SQLITE_OK;
  /* Each node's list: its out-edges, then its in-edges but self-loops (a
  ** self-loop is one edge read both ways, as networkx's to_directed() has it). */
  aOff = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * ((sqlite3_uint64)p->vals.n + 1));
  aAdj = (int *)sqlite3_malloc64(sizeof(int) * (2 * (sqlite3_uint64)p->nEdge + 1));
  aAdj2 = (int *)sqlite3_malloc64(sizeof(int) * (2 * (sqlite3_uint64)p->nEdge + 1));
  if (p->aOutW) {
    aW = (double *)sqlite3_malloc64(sizeof(double) * (2 * (sqlite3_uint64)p->nEdge + 1));
    aW2 = (double *)sqlite3_malloc64(sizeof(double) * (2 * (sqlite3_uint64)p->nEdge + 1));
  }
  if (aOff == NULL || aAdj == NULL || aAdj2 == NULL || (p->aOutW && (aW == NULL || aW2 == NULL))) {
    sqlite3_free(aOff);
    sqlite3_free(aAdj);
    sqlite3_free(aAdj2);
    sqlite3_free(aW);
    sqlite3_free(aW2);
    return SQLITE_NOMEM;
  }
  for (i = 0; i < p->vals.n; i++) {
    aOff[i] = n;
    for (k = p->aOutOff[i]; k < p->aOutOff[i + 1]; k++) {
      if (aW) aW[n] = p->aOutW[k];
      aAdj[n++] = p->aOut[k];
    }
    for (k = p->aInOff[i]; k < p->aInOff[i + 1]; k++) {
      if (p->aIn[k] == i) continue;
      if (aW) aW[n] = p->aInW[k];
      aAdj[n++] = p->aIn[k];
    }
  }
  aOff[p->vals.n] = n;
  memcpy(aAdj2, aAdj, sizeof(int) * (size_t)n);
  if (aW) memcpy(aW2, aW, sizeof(double) * (size_t)n);
  sqlite3_free(p->aOut);
  sqlite3_free(p->aIn);
  sqlite3_free(p->aOutW);
  sqlite3_free(p->aInW);
  sqlite3_free(p->aInOff);
  memcpy(p->aOutOff, aOff, sizeof(sqlite3_int64) * ((size_t)p->vals.n + 1));
  p->aInOff = aOff;
  p->aOut = aAdj;
  p->aIn = aAdj2;
  p->aOutW = aW;
  p->aInW = aW2;
  p->nEdge = n;
  return SQLITE_OK;
}

/* Column affinity and collation: SQLITE_OK with *pbOk, or an error. */
int graphCsrColumn(sqlite3 *db, const GraphSource *pSrc, const char *zCol, char *pcAff, int *pbOk) {
  char *zType = NULL, *zColl = NULL;
  int rc = nosqlColumnInfo(db, pSrc->zSchema, pSrc->zTable, zCol, &zType, &zColl);
  if (rc == SQLITE_NOTFOUND) {
    *pbOk = 0;
    return SQLITE_OK;
  }
  if (rc != SQLITE_OK) return rc;
  *pcAff = nosqlTypeAffinity(zType);
  if (zColl && sqlite3_stricmp(zColl, "BINARY") != 0) *pbOk = 0;
  sqlite3_free(zType);
  sqlite3_free(zColl);
  return SQLITE_OK;
}

/* The message for edge (f, t): zFmt has %s for the function, from, to, then the weight. */
static char *graphEdgeError(const char *zFmt, const char *zFunc, const GraphValue *pF, sqlite3_value *pTo,
                            sqlite3_value *pW) {
  GraphValue t;
  char *zF = graphValueText(pF), *zT = NULL, *zW = nosqlValueQuote(pW), *zMsg;
  if (graphValueFrom(pTo, &t)) zT = graphValueText(&t);
  zMsg = sqlite3_mprintf(zFmt, zFunc, zF ? zF : "?", zT ? zT : "?", zW ? zW : "?");
  sqlite3_free(zF);
  sqlite3_free(zT);
  sqlite3_free(zW);
  return zMsg;
}

/*
** The integer endpoints of a load, while every endpoint read so far is an
** integer: each distinct value once, numbered in order of first appearance
** (the order graphSetAdd() would give them). A value in [0, nDir) finds its
** number in aDir (node ids that are small integers, the common case: one
** array read, no hashing, an array of 4 bytes per id that stays in cache);
** any other value in an open-address table of (value, number + 1) pairs.
** aDir grows (to twice, up to GRAPH_DIR_SLACK past twice the values held)
** when a new value just beyond it arrives, taking over the table's values
** in its range. No GraphValue and no bytes copied per endpoint;
** graphIntMapToSet() makes the GraphSet of the load at the end, or when a
** value of another type arrives.
*/
#ifndef GRAPH_DIR_SLACK
#define GRAPH_DIR_SLACK (1 << 20)
#endif
typedef struct GraphIntSlot GraphIntSlot;
struct GraphIntSlot {
  sqlite3_int64 iKey; /* The value */
  int iIdx;           /* Its number + 1, 0 for an empty slot */
};
typedef struct GraphIntMap GraphIntMap;
struct GraphIntMap {
  sqlite3_int64 *aKey; /* Values by number */
  int nKey, nKeyAlloc; /* Values used, allocated */
  int *aDir;           /* Number + 1 of value v in [0, nDir), 0 not met */
  sqlite3_int64 nDir;  /* Entries of aDir */
  GraphIntSlot *aSlot; /* Hash table of the other values */
  unsigned nSlot;      /* Slots (a power of two, 0 or at least twice nHashed) */
  int nHashed;         /* Values in aSlot */
};

static void graphIntMapClear(GraphIntMap *p) {
  sqlite3_free(p->aKey);
  sqlite3_free(p->aDir);
  sqlite3_free(p->aSlot);
  memset(p, 0, sizeof(*p));
}

/* Put every value outside [0, nDir) into a new table of nSlot slots, the others into aDir. */
static int graphIntMapRehash(GraphIntMap *p, unsigned nSlot) {
  GraphIntSlot *aNew = (GraphIntSlot *)sqlite3_malloc64(sizeof(GraphIntSlot) * (sqlite3_uint64)nSlot);
  int k;
  if (aNew == NULL) return SQLITE_NOMEM;
  memset(aNew, 0, sizeof(GraphIntSlot) * (size_t)nSlot);
  p->nHashed = 0;
  for (k = 0; k < p->nKey; k++) {
    sqlite3_int64 v = p->aKey[k];
    unsigned i;
    if (v >= 0 && v < p->nDir) {
      p->aDir[v] = k + 1;
      continue;
    }
    for (i = graphHash64((sqlite3_uint64)v) & (nSlot - 1); aNew[i].iIdx; i = (i + 1) & (nSlot - 1)) {
    }
    aNew[i].iKey = v;
    aNew[i].iIdx = k + 1;
    p->nHashed++;
  }
  sqlite3_free(p->aSlot);
  p->aSlot = aNew;
  p->nSlot = nSlot;
  return SQLITE_OK;
}

/* *piIdx: the number of value iKey, a new one if it is new. SQLITE_OK, SQLITE_NOMEM or SQLITE_TOOBIG. */
static int graphIntMapAdd(GraphIntMap *p, sqlite3_int64 iKey, int *piIdx) {
  unsigned i = 0, mask;
  int rc;
  if (iKey >= 0 && iKey < p->nDir) {
    if (p->aDir[iKey]) {
      *piIdx = p->aDir[iKey] - 1;
      return SQLITE_OK;
    }
  } else {
    if (iKey >= p->nDir && iKey < 2 * (sqlite3_int64)p->nKey + GRAPH_DIR_SLACK) {
      /* Grow aDir over iKey: at least double, never past the slack. */
      sqlite3_int64 nNew = p->nDir * 2 > iKey + 1 ? p->nDir * 2 : iKey + 1024;
      int *aNew;
      if (nNew > 2 * (sqlite3_int64)p->nKey + GRAPH_DIR_SLACK)
        nNew = 2 * (sqlite3_int64)p->nKey + GRAPH_DIR_SLACK;
      aNew = (int *)sqlite3_realloc64(p->aDir, sizeof(int) * (sqlite3_uint64)nNew);
      if (aNew == NULL) return SQLITE_NOMEM;
      memset(aNew + p->nDir, 0, sizeof(int) * (size_t)(nNew - p->nDir));
      p->aDir = aNew;
      p->nDir = nNew;
      if (p->nHashed > 0) {
        rc = graphIntMapRehash(p, p->nSlot); /* Values now in range move to aDir */
        if (rc != SQLITE_OK) return rc;
      }
      return graphIntMapAdd(p, iKey, piIdx);
    }
    if ((unsigned)(p->nHashed + 1) * 2 > p->nSlot) {
      if (p->nHashed >= 0x3fffffff) return SQLITE_TOOBIG;
      rc = graphIntMapRehash(p, p->nSlot ? p->nSlot * 2 : 1024);
      if (rc != SQLITE_OK) return rc;
    }
    mask = p->nSlot - 1;
    for (i = graphHash64((sqlite3_uint64)iKey) & mask; p->aSlot[i].iIdx; i = (i + 1) & mask) {
      if (p->aSlot[i].iKey == iKey) {
        *piIdx = p->aSlot[i].iIdx - 1;
        return SQLITE_OK;
      }
    }
  }
  if (p->nKey == p->nKeyAlloc) {
    int nNew = p->nKeyAlloc ? p->nKeyAlloc * 2 : 1024;
    sqlite3_int64 *aNew;
    if (p->nKey >= 0x3fffffff) return SQLITE_TOOBIG;
    aNew = (sqlite3_int64 *)sqlite3_realloc64(p->aKey, sizeof(sqlite3_int64) * (sqlite3_uint64)nNew);
    if (aNew == NULL) return SQLITE_NOMEM;
    p->aKey = aNew;
    p->nKeyAlloc = nNew;
  }
  p->aKey[p->nKey] = iKey;
  if (iKey >= 0 && iKey < p->nDir) {
    p->aDir[iKey] = ++p->nKey;
  } else {
    p->aSlot[i].iKey = iKey;
    p->aSlot[i].iIdx = ++p->nKey;
    p->nHashed++;
  }
  *piIdx = p->nKey - 1;
  return SQLITE_OK;
}

/*
** Prefetch the slot where graphIntMapAdd() will look for iKey. A macro:
** as a static function its read prefetches did not survive GCC 12 -O2
** (objdump: no prefetch in the scan of the builds before 2026-11-26, so
** every aDir read of a 10M-edge load missed the cache); written in place
** they stay.
*/
#define graphIntMapPrefetch(p, iKey)                                                      \
  do {                                                                                    \
    sqlite3_int64 iK_ = (iKey);                                                           \
    if (iK_ >= 0 && iK_ < (p)->nDir) {                                                    \
      graphPrefetch(&(p)->aDir[iK_], 0);                                                  \
    } else if ((p)->nSlot) {                                                              \
      graphPrefetch(&(p)->aSlot[graphHash64((sqlite3_uint64)iK_) & ((p)->nSlot - 1)], 0); \
    }                                                                                     \
  } while (0)

/*
** Make the empty set *pSet of the values of *pMap, value i as element i
** (its number), and free the map. The values are distinct: each element is
** written once, in order, and its hash slot found without comparing
** values, with the slots prefetched 16 values ahead (the set of a 1M-node
** load is 40 MB of elements and 8 MB of slots; adding the values one at a
** time, each a probe that compares and a table that doubles, was 6% of a
** 10M-edge load). SQLITE_OK, SQLITE_NOMEM or SQLITE_TOOBIG.
*/
static int graphIntMapToSet(GraphIntMap *pMap, GraphSet *pSet) {
  int n = pMap->nKey, i, nSlot = 64;
  assert(pSet->n == 0 && pSet->nSlot == 0 && pSet->szElem >= (int)sizeof(GraphValue));
  if (n > 0x3fffffff) {
    graphIntMapClear(pMap);
    return SQLITE_TOOBIG;
  }
  if (n == 0) {
    graphIntMapClear(pMap);
    return SQLITE_OK;
  }
  while (nSlot < 2 * n) nSlot *= 2; /* (graphSetAdd()'s rule: at least twice the elements) */
  pSet->a = (char *)sqlite3_malloc64((sqlite3_uint64)pSet->szElem * (sqlite3_uint64)n);
  pSet->aSlot = (int *)sqlite3_malloc64(sizeof(int) * (sqlite3_uint64)nSlot);
  if (pSet->a == NULL || pSet->aSlot == NULL) {
    sqlite3_free(pSet->a);
    sqlite3_free(pSet->aSlot);
    pSet->a = NULL;
    pSet->aSlot = NULL;
    graphIntMapClear(pMap);
    return SQLITE_NOMEM;
  }
  memset(pSet->a, 0, (size_t)pSet->szElem * (size_t)n);
  memset(pSet->aSlot, 0, sizeof(int) * (size_t)nSlot);
  pSet->nAlloc = n;
  pSet->nSlot = nSlot;
  for (i = 0; i < n; i++) {
    GraphValue *pV = (GraphValue *)graphSetAt(pSet, i);
    pV->eType = SQLITE_INTEGER;
    pV->iVal = pMap->aKey[i];
    pV->h = graphHash64((sqlite3_uint64)pV->iVal);
  }
  for (i = 0; i < n; i++) {
    int j = (int)(((const GraphValue *)graphSetAt(pSet, i))->h & (unsigned)(nSlot - 1));
    if (i + 16 < n) {
      graphPrefetch(&pSet->aSlot[((const GraphValue *)graphSetAt(pSet, i + 16))->h & (unsigned)(nSlot - 1)],
                    1);
    }
    while (pSet->aSlot[j]) j = (j + 1) & (nSlot - 1);
    pSet->aSlot[j] = i + 1;
  }
  pSet->n = n;
  graphIntMapClear(pMap);
  return SQLITE_OK;
}

/* The edges of a load, in scan order, as node numbers (graphCsrFill()). */
typedef struct GraphEdgeList GraphEdgeList;
struct GraphEdgeList {
  int *aFrom, *aTo;            /* Endpoints */
  double *aW;                  /* Weights, or NULL without a weight column */
  sqlite3_int64 nEdge, nAlloc; /* Edges held, allocated */
  sqlite3_int64 nMaxEdge;      /* The most edges held */
  int bWeight;                 /* Keep weights */
  int bTooMany;                /* An edge past nMaxEdge was refused (SQLITE_TOOBIG) */
};

/* Append edge iF -> iT (weight w). SQLITE_OK, SQLITE_NOMEM, or SQLITE_TOOBIG with bTooMany set. */
static int graphEdgeAppend(GraphEdgeList *p, int iF, int iT, double w) {
  if (p->nEdge == p->nAlloc) {
    sqlite3_int64 nNew = p->nAlloc ? p->nAlloc * 2 : 1024;
    int *aF, *aT;
    if (p->nEdge >= p->nMaxEdge) {
      p->bTooMany = 1;
      return SQLITE_TOOBIG;
    }
    aF = (int *)sqlite3_realloc64(p->aFrom, sizeof(int) * (sqlite3_uint64)nNew);
    if (aF == NULL) return SQLITE_NOMEM;
    p->aFrom = aF;
    aT = (int *)sqlite3_realloc64(p->aTo, sizeof(int) * (sqlite3_uint64)nNew);
    if (aT == NULL) return SQLITE_NOMEM;
    p->aTo = aT;
    if (p->bWeight) {
      double *aNewW = (double *)sqlite3_realloc64(p->aW, sizeof(double) * (sqlite3_uint64)nNew);
      if (aNewW == NULL) return SQLITE_NOMEM;
      p->aW = aNewW;
    }
    p->nAlloc = nNew;
  }
  p->aFrom[p->nEdge] = iF;
  p->aTo[p->nEdge] = iT;
  if (p->bWeight) p->aW[p->nEdge] = w;
  p->nEdge++;
  return SQLITE_OK;
}

/*
** Integer edges read ahead of their numbering: each endpoint's slot in
** the GraphIntMap is prefetched as the row is read and numbered
** GRAPH_LOAD_AHEAD rows later, so that SQLite's work on those rows hides
** the cache miss (ids spread over a few MB of aDir: at 1M nodes, one miss
** per endpoint was a quarter of the load). The order of numbering, and so
** of the nodes, is the scan's, as without it.
*/
#define GRAPH_LOAD_AHEAD 32
typedef struct GraphIntEdge GraphIntEdge;
struct GraphIntEdge {
  sqlite3_int64 iF, iT; /* Endpoint values */
  double w;             /* Weight */
};

/* Number and append the n edges read ahead. SQLITE_OK or an error of graphIntMapAdd(), graphEdgeAppend(). */
static int graphIntEdgeFlush(GraphIntMap *pInts, GraphEdgeList *pList, const GraphIntEdge *a, int n) {
  int i, rc = SQLITE_OK;
  for (i = 0; rc == SQLITE_OK && i < n; i++) {
    int iF, iT;
    rc = graphIntMapAdd(pInts, a[i].iF, &iF);
    if (rc == SQLITE_OK) rc = graphIntMapAdd(pInts, a[i].iT, &iT);
    if (rc == SQLITE_OK) rc = graphEdgeAppend(pList, iF, iT, a[i].w);
  }
  return rc;
}

/*
** The weight pW of edge pF -> pT in *pw: SQLITE_OK, or SQLITE_ERROR with
** *pzErr naming the edge when it is not a number or is negative. Clears
** p->bIntWeight for a weight that is not an integer, p->bRealWeight for one
** that is.
*/
static int graphLoadWeight(const char *zFunc, const GraphValue *pF, sqlite3_value *pT, sqlite3_value *pW,
                           double *pw, GraphCsr *p, char **pzErr) {
  int eType = sqlite3_value_type(pW);
  *pw = sqlite3_value_double(pW);
  if (eType != SQLITE_INTEGER && eType != SQLITE_FLOAT) {
    *pzErr = graphEdgeError("%s: the weight of edge %s -> %s is %s, not a number", zFunc, pF, pT, pW);
    return SQLITE_ERROR;
  }
  if (*pw < 0 || isnan(*pw)) {
    *pzErr = graphEdgeError("%s: edge %s -> %s has the negative weight %s", zFunc, pF, pT, pW);
    return SQLITE_ERROR;
  }
  if (eType != SQLITE_INTEGER) p->bIntWeight = 0;
  if (eType == SQLITE_INTEGER) p->bRealWeight = 0;
  return SQLITE_OK;
}

/*
** One load (graphCsrFill()): the copy being built and the state of its
** scan, fed a row at a time by graphLoaderRow(), from a loop over the rows
** of graphSourceEdgesSql() or from graph_load_edge() inside the scan.
*/
typedef struct GraphLoader GraphLoader;
struct GraphLoader {
  GraphCsr *p;        /* The copy: vals, aBad and bIntWeight fill as rows arrive */
  const char *zFunc;  /* Names the job in messages */
  int bAll;           /* A whole-graph job: a non-array JSON value is an error */
  int bWeight;        /* The source has a weight column */
  int bInts;          /* Every endpoint so far an integer: numbered in ints, not in p->vals */
  GraphIntMap ints;   /* Those numbers */
  GraphEdgeList list; /* The edges read, as node numbers */
  GraphIntEdge aAhead[GRAPH_LOAD_AHEAD]; /* Integer edges read, not yet numbered */
  int nAhead;                            /* Entries of aAhead used */
  int rc;         /* graph_load_edge(): the error that stopped the scan, or SQLITE_OK */
  char *zErr;     /* The message of a row's error (sqlite3_mprintf), or NULL */
  int bCalled;    /* graph_load_edge() was called (see graphLoaderSink()) */
  int bBadWeight; /* The error in zErr is a weight that is not a number or is negative */
};

/*
** Take one row of the source: from pF, to pT, weight pW (unread without a
** weight column) and, in the JSON layout, pType the json_type() of to_col
** (see graphSourceEdgesSql()). A NULL from is no node, a NULL to in the
** edges layout no edge. SQLITE_OK, or an error (with pL->zErr for a bad
** weight or JSON value).
*/
static int graphLoaderRow(GraphLoader *pL, sqlite3_value *pF, sqlite3_value *pT, sqlite3_value *pW,
                          sqlite3_value *pType) {
  GraphCsr *p = pL->p;
  GraphValue f, t;
  int iF, iT, bNew, rc, eF = sqlite3_value_type(pF), eT = sqlite3_value_type(pT);
  double w = 1.0;
  if (eF == SQLITE_NULL || (eT == SQLITE_NULL && p->eLayout == GRAPH_LAYOUT_EDGES)) return SQLITE_OK;
  if (pL->bInts) {
    if (eF == SQLITE_INTEGER && eT == SQLITE_INTEGER) {
      GraphIntEdge *pE = &pL->aAhead[pL->nAhead];
      pE->iF = sqlite3_value_int64(pF);
      pE->iT = sqlite3_value_int64(pT);
      pE->w = 1.0;
      if (pL->bWeight) {
        memset(&f, 0, sizeof(f));
        f.eType = SQLITE_INTEGER;
        f.iVal = pE->iF;
        rc = graphLoadWeight(pL->zFunc, &f, pT, pW, &pE->w, p, &pL->zErr);
        if (rc != SQLITE_OK) {
          pL->bBadWeight = 1;
          return rc;
        }
      }
      graphIntMapPrefetch(&pL->ints, pE->iF);
      graphIntMapPrefetch(&pL->ints, pE->iT);
      if (++pL->nAhead < GRAPH_LOAD_AHEAD) return SQLITE_OK;
      pL->nAhead = 0;
      return graphIntEdgeFlush(&pL->ints, &pL->list, pL->aAhead, GRAPH_LOAD_AHEAD);
    }
    /* Another type: the values met so far become the set, numbers kept. */
    rc = graphIntEdgeFlush(&pL->ints, &pL->list, pL->aAhead, pL->nAhead);
    pL->nAhead = 0;
    pL->bInts = 0;
    if (rc == SQLITE_OK) rc = graphIntMapToSet(&pL->ints, &p->vals);
    if (rc != SQLITE_OK) return rc;
  }
  graphValueFrom(pF, &f);
  rc = graphSetAdd(&p->vals, &f, &iF, &bNew);
  if (rc != SQLITE_OK) return rc;
  if (!graphValueFrom(pT, &t)) {
    /* The JSON layout's node without this edge, or its non-array value:
    ** sought by a walk (which reports it when it gets there), an error for
    ** a whole-graph job. */
    const char *zType = pType ? (const char *)sqlite3_value_text(pType) : NULL;
    if (zType && strcmp(zType, "array") != 0) {
      if (pL->bAll) {
        pL->zErr = graphSourceJsonError(pL->zFunc, &f, zType);
        return pL->zErr ? SQLITE_ERROR : SQLITE_NOMEM;
      }
      if (p->nBad == p->nBadAlloc) {
        int nNew = p->nBadAlloc ? p->nBadAlloc * 2 : 16;
        int *aNew = (int *)sqlite3_realloc64(p->aBad, sizeof(int) * (sqlite3_uint64)nNew);
        if (aNew == NULL) return SQLITE_NOMEM;
        p->aBad = aNew;
        p->nBadAlloc = nNew;
      }
      p->aBad[p->nBad++] = iF;
    }
    return SQLITE_OK;
  }
  if (pL->bWeight) {
    rc = graphLoadWeight(pL->zFunc, &f, pT, pW, &w, p, &pL->zErr);
    if (rc != SQLITE_OK) {
      pL->bBadWeight = 1;
      return rc;
    }
  }
  rc = graphSetAdd(&p->vals, &t, &iT, &bNew);
  if (rc == SQLITE_OK) rc = graphEdgeAppend(&pL->list, iF, iT, w);
  return rc;
}

/*
** graph_load_edge(loader, from, to, weight): graphLoaderRow() on a row of
** a table in the edges layout, called by SQLite inside the scan
** (graphSourceLoadSql()); always 0, so the scan returns no row. loader is a
** GraphLoader passed with sqlite3_bind_pointer(): from SQL, which cannot
** make one, the function is an error. Each edge then costs no return from
** sqlite3_step() and no sqlite3_column_*() call (each takes the
** connection's mutex): the scan costs what SQLite's own aggregate over the
** table does (about 60 ns per edge, against 120 for a loop over the rows).
** The first error stops the scan: pL->rc, pL->zErr.
*/
#define GRAPH_LOADER_TYPE "nosql_graph_loader"
static void graphLoadEdgeFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  /* The pointer is checked on the first row, then kept as the bound ?1's
  ** auxiliary data: sqlite3_value_pointer() compares type strings each call. */
  GraphLoader *pL = (GraphLoader *)sqlite3_get_auxdata(ctx, 0);
  int rc;
  (void)argc;
  if (pL == NULL) {
    pL = (GraphLoader *)sqlite3_value_pointer(argv[0], GRAPH_LOADER_TYPE);
    if (pL == NULL) {
      sqlite3_result_error(ctx, "graph_load_edge: internal to the graph functions, not for SQL", -1);
      return;
    }
    sqlite3_set_auxdata(ctx, 0, pL, NULL); /* (Lost on OOM: the next row checks again) */
  }
  pL->bCalled = 1;
  rc = graphLoaderRow(pL, argv[1], argv[2], argv[3], NULL);
  if (rc == SQLITE_OK) {
    sqlite3_result_int(ctx, 0);
    return;
  }
  pL->rc = rc;
  if (rc == SQLITE_NOMEM) {
    sqlite3_result_error_nomem(ctx);
  } else {
    sqlite3_result_error(ctx, pL->zErr ? pL->zErr : sqlite3_errstr(rc), -1);
    sqlite3_result_error_code(ctx, rc);
  }
}

int graphCsrRegister(sqlite3 *db) {
  return sqlite3_create_function(db, "graph_load_edge", 4, NOSQL_EFFECT, 0, graphLoadEdgeFunc, 0, 0);
}

/*
** The scan of a load: for a table in the edges layout, a statement whose
** WHERE calls graph_load_edge() on each row (?1 the GraphLoader) and that
** returns no row; NOT INDEXED, so that the rows come in the table's own
** order (rowid or primary key), which ORDER BY names without a sort (a
** sort would follow the WHERE). Else graphSourceEdgesSql(): the caller
** steps its rows. *pbSink says which. sqlite3_mprintf(), NULL on OOM.
*/
static char *graphSourceLoadSql(const GraphSource *p, int *pbSink) {
  char *zW, *zRet;
  *pbSink = !p->bView && p->eLayout == GRAPH_LAYOUT_EDGES;
  if (!*pbSink) return graphSourceEdgesSql(p);
  zW = graphSourceWeight(p);
  if (zW == NULL) return NULL;
  zRet = sqlite3_mprintf(
      "SELECT 1 FROM \"%w\".\"%w\" AS s NOT INDEXED WHERE graph_load_edge(?1, s.\"%w\", s.\"%w\", %s)%s%s",
      p->zSchema, p->zTable, p->zFrom, p->zTo, zW, p->zOrder ? " ORDER BY " : "", p->zOrder ? p->zOrder : "");
  sqlite3_free(zW);
  return zRet;
}

int graphCsrNew(sqlite3 *db, const GraphSource *pSrc, int bAll, GraphCsr **ppCsr) {
  GraphCsr *p;
  int rc = SQLITE_OK, bOk = 1;
  *ppCsr = NULL;
  if (!bAll && pSrc->bView) return SQLITE_OK;
  p = (GraphCsr *)sqlite3_malloc64(sizeof(*p));
  if (p == NULL) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->nRef = 1;
  p->vals.szElem = (int)sizeof(GraphValue);
  p->eLayout = pSrc->eLayout;
  p->bIntWeight = p->bRealWeight = 1;
  p->cAffFrom = p->cAffTo = 'b';
  if (!bAll) {
    rc = graphCsrColumn(db, pSrc, pSrc->zFrom, &p->cAffFrom, &bOk);
    if (rc == SQLITE_OK) rc = graphCsrColumn(db, pSrc, pSrc->zTo, &p->cAffTo, &bOk);
    /* json_each values meet ?1 without affinity. */
    if (pSrc->eLayout == GRAPH_LAYOUT_JSON) p->cAffTo = 'b';
  }
  if (rc == SQLITE_OK && bOk) {
    *ppCsr = p;
  } else {
    graphCsrUnref(p);
  }
  return rc;
}

/* Start load *pL of copy p from source pSrc (graphCsrFill()'s arguments). */
static void graphLoaderInit(GraphLoader *pL, GraphCsr *p, const GraphSource *pSrc, sqlite3_int64 nMaxEdge,
                            int bAll, const char *zFunc) {
  memset(pL, 0, sizeof(*pL));
  pL->p = p;
  pL->list.nMaxEdge = nMaxEdge;
  pL->list.bWeight = pL->bWeight = pSrc->zWeight != NULL;
  pL->bAll = bAll;
  pL->bInts = 1;
  pL->zFunc = zFunc;
}

/* Free what load *pL still holds (not the copy). */
static void graphLoaderClear(GraphLoader *pL) {
  graphIntMapClear(&pL->ints);
  sqlite3_free(pL->list.aFrom);
  sqlite3_free(pL->list.aTo);
  sqlite3_free(pL->list.aW);
  sqlite3_free(pL->zErr);
}

/*
** Run the sink statement pStmt (graphSourceLoadSql()), which hands every
** row to graph_load_edge(). SQLITE_DONE when it read the table, else an
** error; another function named graph_load_edge (one that answers a row, or
** that SQLite never called on a table that has rows) is SQLITE_ERROR with
** *pzErr.
*/
static int graphLoaderSink(sqlite3 *db, const GraphSource *pSrc, sqlite3_stmt *pStmt, GraphLoader *pL,
                           char **pzErr) {
  int rc = sqlite3_bind_pointer(pStmt, 1, pL, GRAPH_LOADER_TYPE, 0);
  if (rc == SQLITE_OK) rc = sqlite3_step(pStmt);
  if (pL->rc != SQLITE_OK) rc = pL->rc;
  if (rc == SQLITE_DONE && !pL->bCalled) {
    /* No row reached graph_load_edge(): an empty table, or another
    ** function of that name, defined over it, that answers 0. */
    sqlite3_stmt *pAny = NULL;
    char *zAny = sqlite3_mprintf("SELECT 1 FROM \"%w\".\"%w\" LIMIT 1", pSrc->zSchema, pSrc->zTable);
    rc = zAny ? sqlite3_prepare_v2(db, zAny, -1, &pAny, 0) : SQLITE_NOMEM;
    sqlite3_free(zAny);
    if (rc == SQLITE_OK) rc = sqlite3_step(pAny);
    sqlite3_finalize(pAny);
  }
  if (rc == SQLITE_ROW) {
    /* graph_load_edge() does not answer 0 for every row, or was not
    ** called on a table that has rows: another function of that name
    ** was defined over it. */
    *pzErr = sqlite3_mprintf("%s: graph_load_edge() is not the extension's", pL->zFunc);
    rc = *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  return rc;
}

/*
** Read every row of pSrc into *pL: through graph_load_edge() inside the
** scan, or a loop over the rows. *ppStmt is the statement, left for the
** caller to finalize (its message is read first). SQLITE_DONE when every
** row was read, else an error (with pL->zErr or *pzErr for a message).
*/
static int graphLoaderScan(sqlite3 *db, const GraphSource *pSrc, GraphLoader *pL, sqlite3_stmt **ppStmt,
                           char **pzErr) {
  int bSink = 0, rc;
  char *zSql = graphSourceLoadSql(pSrc, &bSink);
  rc = zSql ? sqlite3_prepare_v2(db, zSql, -1, ppStmt, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  if (rc == SQLITE_OK && bSink) return graphLoaderSink(db, pSrc, *ppStmt, pL, pzErr);
  while (rc == SQLITE_OK && (rc = sqlite3_step(*ppStmt)) == SQLITE_ROW) {
    rc = graphLoaderRow(pL, sqlite3_column_value(*ppStmt, 0), sqlite3_column_value(*ppStmt, 1),
                        sqlite3_column_value(*ppStmt, 2), sqlite3_column_value(*ppStmt, 3));
  }
  return rc;
}

/*
** What the scan's end rc means for the load (*pbOk 0: no copy, SQLITE_OK
** for a walk, which seeks instead): a bad weight, too many edges or a
** JSON value that is not JSON stop a whole-graph job with *pzErr and leave
** a walk to seek; the integer edges still read ahead are numbered. Any
** other error gets *pzErr from the connection. Returns SQLITE_OK or the error.
*/
static int graphLoaderEnd(sqlite3 *db, const GraphSource *pSrc, GraphLoader *pL, int rc, int *pbOk,
                          char **pzErr) {
  int bAll = pL->bAll;
  if (pL->zErr && pL->bBadWeight && !bAll) {
    /* A route reports a bad weight only if it reaches the edge: not held, it seeks. */
    sqlite3_free(pL->zErr);
    pL->zErr = NULL;
    rc = SQLITE_OK;
    *pbOk = 0;
  }
  if (pL->zErr) {
    *pzErr = pL->zErr;
    pL->zErr = NULL;
  }
  if (rc == SQLITE_DONE) rc = graphIntEdgeFlush(&pL->ints, &pL->list, pL->aAhead, pL->nAhead);
  if (pL->list.bTooMany) {
    if (bAll) {
      *pzErr = sqlite3_mprintf("%s: the graph has more than %lld edges, the most held in memory", pL->zFunc,
                               pL->list.nMaxEdge);
    } else {
      rc = SQLITE_OK; /* A walk keeps seeking */
    }
    *pbOk = 0;
  }
  if (*pzErr == NULL && graphSourceIsMalformed(db, pSrc, rc)) {
    if (bAll) {
      *pzErr = graphSourceMalformed(db, pSrc, pL->zFunc, NULL);
      if (*pzErr == NULL) rc = SQLITE_NOMEM;
    } else {
      rc = SQLITE_OK; /* Not held: a walk seeks, and reports the node if it gets there */
      *pbOk = 0;
    }
  }
  if (rc != SQLITE_OK && *pzErr == NULL && rc != SQLITE_NOMEM) {
    *pzErr = sqlite3_mprintf("%s: %s", pL->zFunc, sqlite3_errmsg(db));
  }
  return rc;
}

/* GRAPH_LOAD_LIST: the list as read becomes p's edges (the arrays change hands). */
static void graphCsrTakeList(GraphCsr *p, GraphEdgeList *pList) {
  p->nEdge = pList->nEdge;
  p->bList = 1;
  p->aIn = pList->aFrom;
  p->aOut = pList->aTo;
  pList->aFrom = pList->aTo = NULL;
}

/* Counting sort of the edge list into p's out- and in-lists, each in scan order. SQLITE_OK or SQLITE_NOMEM.
 */
static int graphCsrSort(GraphCsr *p, const GraphEdgeList *pList) {
  const int *aFrom = pList->aFrom, *aTo = pList->aTo;
  const double *aW = pList->aW;
  sqlite3_int64 nEdge = pList->nEdge, k;
  int i, bWeight = pList->bWeight;
  p->nEdge = nEdge;
  p->aOutOff = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * ((sqlite3_uint64)p->vals.n + 1));
  p->aInOff = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * ((sqlite3_uint64)p->vals.n + 1));
  p->aOut = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)nEdge + 1));
  p->aIn = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)nEdge + 1));
  if (bWeight) {
    p->aOutW = (double *)sqlite3_malloc64(sizeof(double) * ((sqlite3_uint64)nEdge + 1));
    p->aInW = (double *)sqlite3_malloc64(sizeof(double) * ((sqlite3_uint64)nEdge + 1));
  }
  if (p->aOutOff == NULL || p->aInOff == NULL || p->aOut == NULL || p->aIn == NULL ||
      (bWeight && (p->aOutW == NULL || p->aInW == NULL))) {
    return SQLITE_NOMEM;
  }
  memset(p->aOutOff, 0, sizeof(sqlite3_int64) * ((size_t)p->vals.n + 1));
  memset(p->aInOff, 0, sizeof(sqlite3_int64) * ((size_t)p->vals.n + 1));
  for (k = 0; k < nEdge; k++) {
    p->aOutOff[aFrom[k] + 1]++;
    p->aInOff[aTo[k] + 1]++;
  }
  for (i = 0; i < p->vals.n; i++) {
    p->aOutOff[i + 1] += p->aOutOff[i];
    p->aInOff[i + 1] += p->aInOff[i];
  }
  for (k = 0; k < nEdge; k++) {
    sqlite3_int64 iO, iI;
    /* The fill scatters over both lists: prefetch the offsets 16 edges
    ** ahead, then (8 ahead) the list entries they point at. */
    if (k + 16 < nEdge) {
      graphPrefetch(&p->aOutOff[aFrom[k + 16]], 1);
      graphPrefetch(&p->aInOff[aTo[k + 16]], 1);
    }
    if (k + 8 < nEdge) {
      graphPrefetch(&p->aOut[p->aOutOff[aFrom[k + 8]]], 1);
      graphPrefetch(&p->aIn[p->aInOff[aTo[k + 8]]], 1);
    }
    iO = p->aOutOff[aFrom[k]]++;
    iI = p->aInOff[aTo[k]]++;
    p->aOut[iO] = aTo[k];
    p->aIn[iI] = aFrom[k];
    if (bWeight) {
      p->aOutW[iO] = aW[k];
      p->aInW[iI] = aW[k];
    }
  }
  /* The fill moved each offset to its list's end: shift back. */
  for (i = p->vals.n; i > 0; i--) {
    p->aOutOff[i] = p->aOutOff[i - 1];
    p->aInOff[i] = p->aInOff[i - 1];
  }
  p->aOutOff[0] = p->aInOff[0] = 0;
  return SQLITE_OK;
}

/* The list of values whose to_col is not an array becomes a flag per value. SQLITE_OK or SQLITE_NOMEM. */
static int graphCsrFlagBad(GraphCsr *p) {
  unsigned char *aFlag;
  int i;
  if (p->nBad == 0) return SQLITE_OK;
  aFlag = (unsigned char *)sqlite3_malloc64((sqlite3_uint64)p->vals.n);
  if (aFlag == NULL) return SQLITE_NOMEM;
  memset(aFlag, 0, (size_t)p->vals.n);
  for (i = 0; i < p->nBad; i++) aFlag[p->aBad[i]] = 1;
  sqlite3_free(p->aBad);
  p->aBad = NULL;
  p->aIsBad = aFlag;
  return SQLITE_OK;
}

int graphCsrFill(sqlite3 *db, const GraphSource *pSrc, sqlite3_int64 nMaxEdge, int bAll, const char *zFunc,
                 GraphCsr *p, int *pbOk, char **pzErr) {
  sqlite3_stmt *pStmt = NULL;
  GraphLoader ld;
  int rc;
  *pbOk = 1;
  graphLoaderInit(&ld, p, pSrc, nMaxEdge, bAll, zFunc);
  rc = graphLoaderScan(db, pSrc, &ld, &pStmt, pzErr);
  rc = graphLoaderEnd(db, pSrc, &ld, rc, pbOk, pzErr);
  sqlite3_finalize(pStmt);
  if (rc == SQLITE_OK && *pbOk && ld.bInts) rc = graphIntMapToSet(&ld.ints, &p->vals);
  if (rc == SQLITE_OK && *pbOk) {
    if (bAll == GRAPH_LOAD_LIST) {
      graphCsrTakeList(p, &ld.list);
    } else {
      rc = graphCsrSort(p, &ld.list);
      if (rc == SQLITE_OK) rc = graphCsrFlagBad(p);
    }
  }
  graphLoaderClear(&ld);
  return rc;
}

int graphCsrLoad(sqlite3 *db, const GraphSource *pSrc, sqlite3_int64 nMaxEdge, int bAll, const char *zFunc,
                 GraphCsr **ppCsr, char **pzErr) {
  GraphCsr *p = NULL;
  int bOk = 0, rc = graphCsrNew(db, pSrc, bAll, &p);
  *ppCsr = NULL;
  *pzErr = NULL;
  if (rc == SQLITE_OK && p) rc = graphCsrFill(db, pSrc, nMaxEdge, bAll, zFunc, p, &bOk, pzErr);
  if (rc == SQLITE_OK && bOk) {
    *ppCsr = p;
  } else {
    graphCsrUnref(p);
  }
  return rc;
}
