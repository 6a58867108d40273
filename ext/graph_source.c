/*
** graph_source.c: the edge source shared by every graph function.
**
** A graph is read from any table or view of the database: `source` names
** it ("name" or "schema.name"), `from_col` and `to_col` name two of its
** columns, and an optional `weight_col` a third. Two layouts:
**
**   GRAPH_LAYOUT_EDGES   one row per edge (from_col, to_col): the adjacency
**                        list as a relational table.
**   GRAPH_LAYOUT_JSON    one row per node: to_col holds a JSON array of the
**                        node's neighbours (Katsov's "adjacency list" as a
**                        document). Each element is an edge. A NULL to_col
**                        is a node without edges; any other non-array value
**                        is refused by the caller (column 2/3 of the SQL
**                        below gives its JSON type).
**
** The caller chooses the layout; nothing here guesses it from values.
**
** Identifier rules (the same for every graph function): each argument must
** be text; the table or view must exist, found by nosqlTableResolve() as
** SQLite finds a name (case-insensitively, quoted identifiers, temp, then
** main, then attached schemas for an unqualified name; "schema.name" names
** one schema); columns are matched case-insensitively and used as declared;
** every identifier is quoted in the SQL built here, so any name works.
**
** Index detection: bIdxFrom (bIdxTo) says that some index of the table has
** from_col (to_col) as its first column, so each neighbour lookup is one
** seek. Without one, each lookup scans the table (views: whatever the view's
** own tables offer).
**
** Loading (graphSourceLoad()): a source resolves to one of two loaders of
** the in-memory graph, an up-to-date graph_index over the same table and
** columns (graphIndexLoad(), ext/graph_index.c) or the scan of the source's
** rows (graphCsrFill(), ext/graph_csr.c).
**
** What it uses: ext/util.c (names, columns, affinities), ext/graph_index.c
** (a graph_index named as the source, graphIndexConfig(); its load) and
** ext/graph_csr.c (the in-memory graph and the scan). graph_walk.c,
** graph_batch.c and graph_centrality.c use it; graph_index.c and
** graph_csr.c do not.
*/
#include "nosqlInt.h"

#include <string.h>

/* Free the strings of p and zero it. */
void graphSourceClear(GraphSource *p) {
  sqlite3_free(p->zSchema);
  sqlite3_free(p->zTable);
  sqlite3_free(p->zFrom);
  sqlite3_free(p->zTo);
  sqlite3_free(p->zWeight);
  sqlite3_free(p->zOrder);
  sqlite3_free(p->zIndex);
  memset(p, 0, sizeof(*p));
}

/* *pz: a copy of z (NULL for NULL). Returns 1 when that took memory it could not get. */
static int graphStrCopy(char **pz, const char *z) {
  *pz = z ? sqlite3_mprintf("%s", z) : NULL;
  return z && *pz == NULL;
}

int graphSourceCopy(const GraphSource *pFrom, GraphSource *pTo) {
  int bOom;
  *pTo = *pFrom;
  bOom = graphStrCopy(&pTo->zSchema, pFrom->zSchema);
  bOom |= graphStrCopy(&pTo->zTable, pFrom->zTable);
  bOom |= graphStrCopy(&pTo->zFrom, pFrom->zFrom);
  bOom |= graphStrCopy(&pTo->zTo, pFrom->zTo);
  bOom |= graphStrCopy(&pTo->zWeight, pFrom->zWeight);
  bOom |= graphStrCopy(&pTo->zOrder, pFrom->zOrder);
  bOom |= graphStrCopy(&pTo->zIndex, pFrom->zIndex);
  if (!bOom) return SQLITE_OK;
  graphSourceClear(pTo);
  return SQLITE_NOMEM;
}

/*
** Find table or view zName (nosqlTableResolve()): sets p->zSchema, p->zTable
** and p->bView. Returns SQLITE_OK, SQLITE_NOTFOUND, or an error code.
*/
static int graphSourceFindTable(sqlite3 *db, const char *zName, GraphSource *p) {
  NosqlTableName t;
  int rc = nosqlTableResolve(db, zName, NULL, &t);
  if (rc == SQLITE_OK && t.eType == NOSQL_VTAB) rc = SQLITE_NOTFOUND; /* Tables and views only */
  if (rc == SQLITE_OK) {
    p->zSchema = t.zSchema;
    p->zTable = t.zName;
    p->bView = t.eType == NOSQL_VIEW;
    return SQLITE_OK;
  }
  nosqlTableNameClear(&t);
  return rc;
}

/*
** The declared name of column zCol of the source in *pzOut, and whether an
** index has it first in *pbIdx (may be NULL). SQLITE_NOTFOUND when there is
** no such column.
*/
static int graphSourceFindColumn(sqlite3 *db, const GraphSource *p, const char *zCol, char **pzOut,
                                 int *pbIdx) {
  sqlite3_stmt *pStmt = NULL;
  int rc = nosqlColumnName(db, p->zSchema, p->zTable, zCol, pzOut);
  if (rc != SQLITE_OK || pbIdx == NULL) return rc;
  *pbIdx = 0;
  if (p->bView) return SQLITE_OK;
  rc = sqlite3_prepare_v2(db,
                          "SELECT 1 FROM pragma_index_list(?1, ?2) AS l, pragma_index_xinfo(l.name, ?2) AS x"
                          " WHERE x.seqno = 0 AND x.name = ?3 COLLATE NOCASE LIMIT 1",
                          -1, &pStmt, 0);
  if (rc == SQLITE_OK) {
    sqlite3_bind_text(pStmt, 1, p->zTable, -1, SQLITE_STATIC);
    sqlite3_bind_text(pStmt, 2, p->zSchema, -1, SQLITE_STATIC);
    sqlite3_bind_text(pStmt, 3, *pzOut, -1, SQLITE_STATIC);
    rc = sqlite3_step(pStmt);
    if (rc == SQLITE_ROW) *pbIdx = 1;
    rc = (rc == SQLITE_ROW || rc == SQLITE_DONE) ? SQLITE_OK : rc;
  }
  sqlite3_finalize(pStmt);
  return rc;
}

/* The text of argument pVal named zArg, or NULL with *pzErr set. */
static const char *graphSourceName(const char *zFunc, const char *zArg, sqlite3_value *pVal, char **pzErr) {
  const char *z;
  if (sqlite3_value_type(pVal) != SQLITE_TEXT) {
    char *zQ = nosqlValueQuote(pVal);
    *pzErr = sqlite3_mprintf("%s: %s must be a name, not %s", zFunc, zArg, zQ ? zQ : "?");
    sqlite3_free(zQ);
    return NULL;
  }
  z = (const char *)sqlite3_value_text(pVal);
  if (z && z[0] == 0) {
    *pzErr = sqlite3_mprintf("%s: %s must be a name, not ''", zFunc, zArg);
    return NULL;
  }
  if (z == NULL) *pzErr = sqlite3_mprintf("%s: out of memory", zFunc);
  return z;
}

/*
** p->zOrder: the order of a table's edges, its rowid (the first of its
** names no column takes) or its primary key (WITHOUT ROWID). The seek walk
** reads a node's neighbours and the in-memory copy reads all the edges in
** this order, so both give the same neighbours in the same order, whatever
** index SQLite would scan (a covering index used to reorder the copy).
*/
static int graphSourceOrder(sqlite3 *db, GraphSource *p) {
  static const char *const azRowid[] = {"rowid", "_rowid_", "oid"};
  sqlite3_stmt *pStmt = NULL;
  NosqlBuffer b = {0, 0, 0};
  int rc, k, bTaken[3] = {0, 0, 0}, nPk = 0, bWithoutRowid = 0;
  rc = sqlite3_prepare_v2(db,
                          "SELECT name, pk, (SELECT wr FROM pragma_table_list(?1) WHERE schema = ?2) FROM "
                          "pragma_table_xinfo(?1, ?2) ORDER BY pk",
                          -1, &pStmt, 0);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_text(pStmt, 1, p->zTable, -1, SQLITE_STATIC);
  sqlite3_bind_text(pStmt, 2, p->zSchema, -1, SQLITE_STATIC);
  while (sqlite3_step(pStmt) == SQLITE_ROW) {
    const char *zName = (const char *)sqlite3_column_text(pStmt, 0);
    bWithoutRowid = sqlite3_column_int(pStmt, 2);
    for (k = 0; zName && k < 3; k++) bTaken[k] |= sqlite3_stricmp(zName, azRowid[k]) == 0;
    if (zName && sqlite3_column_int(pStmt, 1) > 0) {
      nosqlBufferAppendf(&rc, &b, "%ss.\"%w\"", nPk++ ? ", " : "", zName);
    }
  }
  k = sqlite3_finalize(pStmt);
  if (rc == SQLITE_OK) rc = k;
  if (rc == SQLITE_OK && !bWithoutRowid) {
    nosqlBufferReset(&b);
    for (k = 0; k < 3 && bTaken[k]; k++) {
    }
    /* All three names taken: no order to give (the seek and the copy may differ). */
    if (k < 3) nosqlBufferAppendf(&rc, &b, "s.%s", azRowid[k]);
  }
  if (rc == SQLITE_OK && b.n > 0) {
    nosqlBufferAppend(&rc, &b, "", 1);
    if (rc == SQLITE_OK) {
      p->zOrder = (char *)b.a;
      return SQLITE_OK;
    }
  }
  nosqlBufferFree(&b);
  return rc;
}

/* The direction argument: 'out', 'in' or 'both' (NULL: 'out'). */
int graphDirectionArg(sqlite3_vtab *pVtab, const char *zFunc, sqlite3_value *pVal, int *peDir) {
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
    char *zQ = nosqlValueQuote(pVal);
    nosqlVtabError(pVtab, "%s: direction must be 'out', 'in' or 'both', not %s", zFunc, zQ ? zQ : "?");
    sqlite3_free(zQ);
  }
  return SQLITE_ERROR;
}

/* The layout argument: 'edges' or 'json' (NULL: 'edges'). */
int graphLayoutArg(sqlite3_vtab *pVtab, const char *zFunc, sqlite3_value *pVal, int *peLayout) {
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
    char *zQ = nosqlValueQuote(pVal);
    nosqlVtabError(pVtab, "%s: layout must be 'edges' or 'json', not %s", zFunc, zQ ? zQ : "?");
    sqlite3_free(zQ);
  }
  return SQLITE_ERROR;
}

/*
** When source zName is a graph_index, p->zIndex (its name), p->zSchema and
** *pInfo (its configuration); else *pInfo zeroed and p unchanged. A
** graph_index of a format this version cannot read is an error.
*/
static int graphSourceIndex(sqlite3 *db, const char *zFunc, const char *zName, sqlite3_value **apVal,
                            GraphSource *p, GraphIndexInfo *pInfo, char **pzErr) {
  NosqlTableName t;
  int rc = nosqlTableResolve(db, zName, NULL, &t);
  (void)apVal;
  memset(pInfo, 0, sizeof(*pInfo));
  if (rc == SQLITE_NOTFOUND) rc = SQLITE_OK;
  if (rc == SQLITE_OK && t.zName && t.eType == NOSQL_VTAB) {
    rc = graphIndexConfig(db, t.zSchema, t.zName, pInfo);
    if (rc == SQLITE_NOTFOUND) {
      rc = SQLITE_OK;
    } else if (rc == SQLITE_OK && pInfo->iFormat != GRAPH_INDEX_FORMAT) {
      *pzErr = sqlite3_mprintf(
          "%s: graph_index '%s' is damaged or of a format this version does not read; "
          "INSERT INTO \"%w\"(\"%w\") VALUES('rebuild') rewrites it",
          zFunc, t.zName, t.zName, t.zName);
      graphIndexInfoClear(pInfo);
      rc = *pzErr ? SQLITE_CORRUPT_VTAB : SQLITE_NOMEM;
    } else if (rc == SQLITE_OK &&
               (pInfo->zLayout && strcmp(pInfo->zLayout, "json") == 0) != (p->eLayout == GRAPH_LAYOUT_JSON)) {
      *pzErr = p->eLayout == GRAPH_LAYOUT_JSON
                   ? sqlite3_mprintf("%s: graph_index '%s' indexes a table of edges: layout must be 'edges'",
                                     zFunc, t.zName)
                   : sqlite3_mprintf(
                         "%s: graph_index '%s' indexes a table of one row per node: layout must "
                         "be 'json'",
                         zFunc, t.zName);
      graphIndexInfoClear(pInfo);
      rc = *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
    } else if (rc == SQLITE_OK) {
      p->zIndex = t.zName;
      p->zSchema = t.zSchema;
      t.zName = t.zSchema = NULL;
    }
  }
  nosqlTableNameClear(&t);
  return rc;
}

int graphSourceInit(sqlite3 *db, const char *zFunc, sqlite3_value *pTable, sqlite3_value *pFrom,
                    sqlite3_value *pTo, sqlite3_value *pWeight, int eLayout, GraphSource *p, char **pzErr) {
  static const char *azArg[4] = {"source", "from_col", "to_col", "weight_col"};
  GraphIndexInfo info;
  char *zIndexTable = NULL;
  sqlite3_value *apVal[4];
  const char *azName[4] = {0, 0, 0, 0};
  int rc = SQLITE_OK, i;
  memset(p, 0, sizeof(*p));
  *pzErr = NULL;
  p->eLayout = eLayout;
  apVal[0] = pTable;
  apVal[1] = pFrom;
  apVal[2] = pTo;
  apVal[3] = pWeight;
  azName[0] = graphSourceName(zFunc, azArg[0], apVal[0], pzErr);
  if (azName[0] == NULL) return *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
  rc = graphSourceIndex(db, zFunc, azName[0], apVal, p, &info, pzErr);
  if (rc != SQLITE_OK) return rc;
  for (i = 1; i < 4; i++) {
    if (i == 3 && pWeight == NULL) break;
    if (p->zIndex && i < 3 && sqlite3_value_type(apVal[i]) == SQLITE_NULL) {
      azName[i] = i == 1 ? info.zFrom : info.zTo; /* The index's own columns */
      continue;
    }
    azName[i] = graphSourceName(zFunc, azArg[i], apVal[i], pzErr);
    if (azName[i] == NULL) break;
    if (p->zIndex) {
      const char *zHas = i == 1 ? info.zFrom : i == 2 ? info.zTo : info.zWeight;
      if (zHas == NULL || sqlite3_stricmp(zHas, azName[i]) != 0) {
        *pzErr = zHas ? sqlite3_mprintf("%s: graph_index '%s' is over %s '%s', not '%s'", zFunc, p->zIndex,
                                        azArg[i], zHas, azName[i])
                      : sqlite3_mprintf(
                            "%s: graph_index '%s' has no weight column: weight_col '%s' cannot be read "
                            "from it",
                            zFunc, p->zIndex, azName[i]);
        azName[i] = NULL;
        break;
      }
    }
  }
  if (i < 4 && !(i == 3 && pWeight == NULL)) {
    graphIndexInfoClear(&info);
    graphSourceClear(p);
    return *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  if (p->zIndex) {
    zIndexTable = sqlite3_mprintf("\"%w\".\"%w\"", p->zSchema, info.zTable);
    sqlite3_free(p->zSchema);
    p->zSchema = NULL;
    azName[0] = zIndexTable;
    if (zIndexTable == NULL) rc = SQLITE_NOMEM;
  }
  if (rc == SQLITE_OK) rc = graphSourceFindTable(db, azName[0], p);
  if (rc == SQLITE_NOTFOUND) {
    *pzErr = sqlite3_mprintf("%s: no such table or view: '%q'", zFunc, azName[0]);
    rc = SQLITE_ERROR;
  }
  for (i = 1; rc == SQLITE_OK && i < 4 && azName[i]; i++) {
    char **pz = i == 1 ? &p->zFrom : (i == 2 ? &p->zTo : &p->zWeight);
    int *pbIdx = i == 1 ? &p->bIdxFrom : (i == 2 && eLayout == GRAPH_LAYOUT_EDGES ? &p->bIdxTo : NULL);
    rc = graphSourceFindColumn(db, p, azName[i], pz, pbIdx);
    if (rc == SQLITE_NOTFOUND) {
      *pzErr = sqlite3_mprintf("%s: %s '%q' has no column '%q' (%s)", zFunc, p->bView ? "view" : "table",
                               p->zTable, azName[i], azArg[i]);
      rc = SQLITE_ERROR;
    }
  }
  if (rc == SQLITE_OK && !p->bView) rc = graphSourceOrder(db, p);
  graphIndexInfoClear(&info);
  sqlite3_free(zIndexTable);
  if (rc != SQLITE_OK) {
    if (*pzErr == NULL && rc != SQLITE_NOMEM) *pzErr = sqlite3_mprintf("%s: %s", zFunc, sqlite3_errmsg(db));
    graphSourceClear(p);
  }
  return rc;
}

int graphSourceKey(sqlite3 *db, GraphSource *p, sqlite3_value *pKey, sqlite3_value **ppOut) {
  if (p->cAffFrom == 0) {
    char *zType = NULL, *zColl = NULL;
    int rc = nosqlColumnInfo(db, p->zSchema, p->zTable, p->zFrom, &zType, &zColl);
    if (rc != SQLITE_OK && rc != SQLITE_NOTFOUND) return rc;
    p->cAffFrom = rc == SQLITE_OK ? nosqlTypeAffinity(zType) : 'b';
    sqlite3_free(zType);
    sqlite3_free(zColl);
  }
  return nosqlValueAffinity(db, pKey, p->cAffFrom, ppOut);
}

int graphSourcePlain(sqlite3 *db, GraphSource *p, int *pbPlain) {
  char cFrom = 'b', cTo = 'b';
  int rc, bOk = 1;
  *pbPlain = p->ePlain == 1;
  if (p->ePlain) return SQLITE_OK;
  if (p->bView || p->eLayout != GRAPH_LAYOUT_EDGES) {
    p->ePlain = 2;
    return SQLITE_OK;
  }
  rc = graphCsrColumn(db, p, p->zFrom, &cFrom, &bOk);
  if (rc == SQLITE_OK) rc = graphCsrColumn(db, p, p->zTo, &cTo, &bOk);
  *pbPlain = rc == SQLITE_OK && bOk && cFrom == cTo;
  if (rc == SQLITE_OK) p->ePlain = *pbPlain ? 1 : 2;
  return rc;
}

int graphSourceLoad(sqlite3 *db, const GraphSource *pSrc, sqlite3_int64 nMaxEdge, int bAll, const char *zFunc,
                    GraphCsr **ppCsr, char **pzErr) {
  GraphCsr *p = NULL;
  int rc, bOk = 1, bLoaded = 0;
  *ppCsr = NULL;
  *pzErr = NULL;
  rc = graphCsrNew(db, pSrc, bAll, &p);
  if (rc != SQLITE_OK || p == NULL) return rc;
  /* An up-to-date graph_index over the same columns: sequential block reads. */
  rc = graphIndexLoad(db, pSrc, nMaxEdge, bAll != 0, zFunc, p, &bLoaded, pzErr);
  if (rc != SQLITE_OK || bLoaded < 0) bOk = 0;
  if (rc == SQLITE_OK && bLoaded == 0) rc = graphCsrFill(db, pSrc, nMaxEdge, bAll, zFunc, p, &bOk, pzErr);
  if (rc == SQLITE_OK && bOk) {
    *ppCsr = p;
  } else {
    graphCsrUnref(p);
  }
  return rc;
}
