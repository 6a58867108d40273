/*
** kv_object.c: between composite-key entries and one document (techniques
** 2 and 5 of the article: an aggregate kept as key-value pairs under one
** prefix, or as one JSON document).
**
**   kv_object(key, value [, sep])  aggregate -> JSON object: folds entries
**       'UserID_name', 'UserID_email' into {"name":..,"email":..}: the field
**       is the part of key after the first sep (default '_').
**   kv_pairs(prefix, doc [, sep])  table-valued (key, field, value): the
**       reverse, one row prefix || sep || field per top-level member.
**
** docs/documents.md is their reference.
*/
#include "nosqlInt.h"

#include <string.h>

/* Subtype flags newer than the build headers (3.45): unknown bits are ignored by older hosts. */
#ifndef SQLITE_RESULT_SUBTYPE
#define SQLITE_RESULT_SUBTYPE 0x001000000
#endif
#define KV_JSON_SUBTYPE 74 /* 'J', the subtype SQLite's JSON functions give JSON text */

/* True if z is strict JSON text holding an object. */
static int kvIsObjectText(const char *z, int n) {
  int i = 0;
  if (z == NULL || !nosqlJsonStrict(z, n)) return 0;
  while (i < n && (z[i] == ' ' || z[i] == '\t' || z[i] == '\n' || z[i] == '\r')) i++;
  return i < n && z[i] == '{';
}

/**************************************************************************
** kv_object(key, value [, sep]): composite-key entries folded into one
** JSON object. The field is the part of key after the first sep (the whole
** key when it has none); a later entry for a field replaces an earlier one
** in place. Values: NULL null, numbers, text as a string (JSON text made
** by a JSON function, which carries the JSON subtype, as JSON); a blob is
** an error.
*/
typedef struct DocObjAgg DocObjAgg;
struct DocObjAgg {
  char **azField; /* Field names (sqlite3_malloc64) */
  char **azJson;  /* Their values as JSON text */
  int n;          /* Fields */
  int nAlloc;     /* Slots allocated */
  int *aSlot;     /* Hash index of azField: field + 1, 0 free (at most half full) */
  int nSlot;      /* Slots of aSlot (a power of two) */
  int rc;         /* Sticky error code */
  char *zErr;     /* Error message, or NULL */
};

/* The slot of p->aSlot that holds field zField, or the free slot where it would go. */
static int kvObjectSlot(const DocObjAgg *p, const char *zField) {
  unsigned h = (unsigned)nosqlFnv1a(NOSQL_FNV_SEED, zField, (int)strlen(zField)) & (unsigned)(p->nSlot - 1);
  while (p->aSlot[h] && strcmp(p->azField[p->aSlot[h] - 1], zField) != 0)
    h = (h + 1) & (unsigned)(p->nSlot - 1);
  return (int)h;
}

/* Make room in the hash index for one more field (rebuilt twice as large when half full); rc. */
static int kvObjectIndex(DocObjAgg *p) {
  int nNew = p->nSlot ? p->nSlot * 2 : 64, i;
  int *aNew;
  if ((p->n + 1) * 2 <= p->nSlot) return SQLITE_OK;
  aNew = (int *)sqlite3_malloc64(sizeof(int) * (sqlite3_uint64)nNew);
  if (aNew == NULL) return SQLITE_NOMEM;
  memset(aNew, 0, sizeof(int) * (size_t)nNew);
  sqlite3_free(p->aSlot);
  p->aSlot = aNew;
  p->nSlot = nNew;
  for (i = 0; i < p->n; i++) p->aSlot[kvObjectSlot(p, p->azField[i])] = i + 1;
  return SQLITE_OK;
}

/* The JSON text of an SQL value (sqlite3_mprintf), or NULL: a blob (*pbBlob) or OOM. */
static char *docValueJson(sqlite3_value *pVal, int *pbBlob) {
  NosqlBuffer buf = {0, 0, 0};
  int rc = SQLITE_OK;
  *pbBlob = 0;
  switch (sqlite3_value_type(pVal)) {
    case SQLITE_NULL:
      return sqlite3_mprintf("null");
    case SQLITE_INTEGER:
      return sqlite3_mprintf("%lld", sqlite3_value_int64(pVal));
    case SQLITE_FLOAT:
      nosqlBufferJsonReal(&rc, &buf, sqlite3_value_double(pVal));
      if (rc != SQLITE_OK) {
        nosqlBufferFree(&buf);
        return NULL;
      }
      return (char *)buf.a;
    case SQLITE_BLOB:
      *pbBlob = 1;
      return NULL;
    default:
      if (sqlite3_value_subtype(pVal) == KV_JSON_SUBTYPE) {
        return sqlite3_mprintf("%s", sqlite3_value_text(pVal));
      }
      nosqlBufferJsonString(&rc, &buf, (const char *)sqlite3_value_text(pVal), sqlite3_value_bytes(pVal));
      if (rc != SQLITE_OK) {
        nosqlBufferFree(&buf);
        return NULL;
      }
      return (char *)buf.a;
  }
}

static void kvObjectStep(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  DocObjAgg *p = (DocObjAgg *)sqlite3_aggregate_context(ctx, sizeof(DocObjAgg));
  const char *zKey, *zSep = "_", *zField;
  char *zJson;
  int i, iSlot, bBlob = 0;
  if (p == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (p->rc != SQLITE_OK || sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  if (argc > 2) {
    zSep = (const char *)sqlite3_value_text(argv[2]);
    if (zSep == NULL || zSep[0] == 0) {
      p->rc = SQLITE_ERROR;
      p->zErr = sqlite3_mprintf("kv_object: the separator must be a non-empty text");
      return;
    }
  }
  zKey = (const char *)sqlite3_value_text(argv[0]);
  if (zKey == NULL) {
    p->rc = SQLITE_NOMEM;
    return;
  }
  zField = strstr(zKey, zSep);
  zField = zField ? zField + strlen(zSep) : zKey;
  zJson = docValueJson(argv[1], &bBlob);
  if (zJson == NULL) {
    p->rc = bBlob ? SQLITE_ERROR : SQLITE_NOMEM;
    if (bBlob)
      p->zErr = sqlite3_mprintf("kv_object: the value of key '%q' is a blob (JSON has no blobs)", zKey);
    return;
  }
  if (kvObjectIndex(p) != SQLITE_OK) {
    sqlite3_free(zJson);
    p->rc = SQLITE_NOMEM;
    return;
  }
  iSlot = kvObjectSlot(p, zField);
  if (p->aSlot[iSlot]) {
    i = p->aSlot[iSlot] - 1;
    sqlite3_free(p->azJson[i]);
    p->azJson[i] = zJson;
    return;
  }
  if (p->n == p->nAlloc) {
    int nNew = p->nAlloc ? p->nAlloc * 2 : 8;
    char **azF = (char **)sqlite3_realloc64(p->azField, sizeof(char *) * (sqlite3_uint64)nNew);
    char **azJ = azF ? (char **)sqlite3_realloc64(p->azJson, sizeof(char *) * (sqlite3_uint64)nNew) : NULL;
    if (azF) p->azField = azF;
    if (azJ) p->azJson = azJ;
    if (azF == NULL || azJ == NULL) {
      sqlite3_free(zJson);
      p->rc = SQLITE_NOMEM;
      return;
    }
    p->nAlloc = nNew;
  }
  p->azField[p->n] = sqlite3_mprintf("%s", zField);
  p->azJson[p->n] = zJson;
  if (p->azField[p->n] == NULL) {
    sqlite3_free(zJson);
    p->rc = SQLITE_NOMEM;
    return;
  }
  p->aSlot[iSlot] = ++p->n;
}

static void kvObjectFinal(sqlite3_context *ctx) {
  DocObjAgg *p = (DocObjAgg *)sqlite3_aggregate_context(ctx, 0);
  NosqlBuffer buf = {0, 0, 0};
  int rc = SQLITE_OK, i;
  if (p && p->rc != SQLITE_OK) {
    if (p->zErr) {
      sqlite3_result_error(ctx, p->zErr, -1);
    } else {
      sqlite3_result_error_nomem(ctx);
    }
  } else {
    nosqlBufferAppend(&rc, &buf, "{", 1);
    for (i = 0; p && i < p->n; i++) {
      if (i) nosqlBufferAppend(&rc, &buf, ",", 1);
      nosqlBufferJsonString(&rc, &buf, p->azField[i], (int)strlen(p->azField[i]));
      nosqlBufferAppend(&rc, &buf, ":", 1);
      nosqlBufferAppend(&rc, &buf, p->azJson[i], (sqlite3_int64)strlen(p->azJson[i]));
    }
    nosqlBufferAppend(&rc, &buf, "}", 1);
    if (rc != SQLITE_OK) {
      sqlite3_result_error_nomem(ctx);
    } else {
      sqlite3_result_text64(ctx, (const char *)buf.a, (sqlite3_uint64)buf.n, SQLITE_TRANSIENT, SQLITE_UTF8);
      sqlite3_result_subtype(ctx, KV_JSON_SUBTYPE);
    }
    nosqlBufferFree(&buf);
  }
  if (p) {
    for (i = 0; i < p->n; i++) {
      sqlite3_free(p->azField[i]);
      sqlite3_free(p->azJson[i]);
    }
    sqlite3_free(p->azField);
    sqlite3_free(p->azJson);
    sqlite3_free(p->aSlot);
    sqlite3_free(p->zErr);
  }
}

/**************************************************************************
** kv_pairs(prefix, doc [, sep]): the reverse of kv_object.
**
**   CREATE TABLE kv_pairs(
**     key,             -- prefix || sep || field
**     field,           -- the member's name
**     value,           -- its value as json_each gives it (arrays and objects as JSON text)
**     prefix HIDDEN,   -- required
**     doc HIDDEN,      -- a JSON object (required)
**     sep HIDDEN       -- default '_'
**   );
*/
typedef struct kv_pairs_vtab kv_pairs_vtab;
typedef struct kv_pairs_cursor kv_pairs_cursor;
struct kv_pairs_vtab {
  sqlite3_vtab base; /* Base class - must be first */
  sqlite3 *db;       /* The connection */
};
struct kv_pairs_cursor {
  sqlite3_vtab_cursor base; /* Base class - must be first */
  sqlite3_stmt *pStmt;      /* json_each over the document, on its current row */
  char *zPrefix;            /* prefix || sep (copy) */
  int bEof;                 /* No more rows */
  sqlite3_int64 iRow;       /* Row number */
  sqlite3_value *apArg[3];  /* Copies of prefix, doc and sep, for the HIDDEN columns */
};

#define KV_PAIRS_KEY 0
#define KV_PAIRS_FIELD 1
#define KV_PAIRS_VALUE 2
#define KV_PAIRS_PREFIX 3
#define KV_PAIRS_DOC 4
#define KV_PAIRS_SEP 5

static int kvPairsConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                          char **pzErr) {
  kv_pairs_vtab *pVtab;
  int rc = nosqlVtabNew(db, "CREATE TABLE x(key, field, value, prefix HIDDEN, doc HIDDEN, sep HIDDEN)",
                        sizeof(kv_pairs_vtab), ppVtab);
  (void)pAux;
  (void)argc;
  (void)argv;
  (void)pzErr;
  if (rc != SQLITE_OK) return rc;
  pVtab = (kv_pairs_vtab *)*ppVtab;
  pVtab->db = db;
  return SQLITE_OK;
}

/* The plan (ext/plan.c): slots a prefix and b doc required, c sep optional. */
static const NosqlPlanCol aKvPairsPlan[] = {
    {KV_PAIRS_PREFIX, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 1},
    {KV_PAIRS_DOC, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 1},
    {KV_PAIRS_SEP, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0},
};

static int kvPairsBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo) {
  (void)pVtab;
  return nosqlPlanInputs(pInfo, aKvPairsPlan, 3, 10, 10);
}

static int kvPairsOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor) {
  kv_pairs_cursor *pCur = (kv_pairs_cursor *)nosqlCursorNew(sizeof(kv_pairs_cursor), ppCursor);
  (void)pVtab;
  if (pCur == NULL) return SQLITE_NOMEM;
  pCur->bEof = 1;
  return SQLITE_OK;
}

static int kvPairsClose(sqlite3_vtab_cursor *pCursor) {
  kv_pairs_cursor *pCur = (kv_pairs_cursor *)pCursor;
  sqlite3_finalize(pCur->pStmt);
  sqlite3_free(pCur->zPrefix);
  nosqlPlanKeepFree(pCur->apArg, 3);
  sqlite3_free(pCur);
  return SQLITE_OK;
}

static int kvPairsNext(sqlite3_vtab_cursor *pCursor) {
  kv_pairs_cursor *pCur = (kv_pairs_cursor *)pCursor;
  pCur->iRow++;
  return nosqlCursorStep(pCursor->pVtab, pCur->pStmt, "kv_pairs", &pCur->bEof);
}

static int kvPairsFilter(sqlite3_vtab_cursor *pCursor, int idxNum, const char *idxStr, int argc,
                         sqlite3_value **argv) {
  kv_pairs_cursor *pCur = (kv_pairs_cursor *)pCursor;
  NosqlPlanArg aArg[3];
  const char *zSep = "_", *zDoc;
  int rc, bBlob;
  (void)idxNum;
  pCur->bEof = 1;
  pCur->iRow = 0;
  sqlite3_free(pCur->zPrefix);
  pCur->zPrefix = NULL;
  if (nosqlPlanInputArgs(pCursor->pVtab, "kv_pairs(prefix, doc[, sep])", aKvPairsPlan, 3, idxStr, argc, argv,
                         aArg) != SQLITE_OK) {
    return SQLITE_ERROR;
  }
  if (nosqlPlanKeep(aArg, 3, pCur->apArg) != SQLITE_OK) return SQLITE_NOMEM;
  if (sqlite3_value_type(aArg[0].pEq) == SQLITE_NULL || sqlite3_value_type(aArg[1].pEq) == SQLITE_NULL) {
    return SQLITE_OK;
  }
  if (aArg[2].pEq) {
    zSep = (const char *)sqlite3_value_text(aArg[2].pEq);
    if (sqlite3_value_type(aArg[2].pEq) == SQLITE_NULL) return SQLITE_OK;
    if (zSep == NULL || zSep[0] == 0) {
      nosqlVtabError(pCursor->pVtab, "kv_pairs: the separator must be a non-empty text");
      return SQLITE_ERROR;
    }
  }
  bBlob = sqlite3_value_type(aArg[1].pEq) == SQLITE_BLOB;
  zDoc = (const char *)sqlite3_value_text(aArg[1].pEq);
  if (zDoc == NULL) return SQLITE_NOMEM;
  if (!bBlob && nosqlJsonTooDeep(zDoc, sqlite3_value_bytes(aArg[1].pEq))) {
    nosqlVtabError(pCursor->pVtab, "kv_pairs: doc " NOSQL_JSON_DEEP, NOSQL_JSON_MAX_DEPTH);
    return SQLITE_ERROR;
  }
  if (bBlob || !kvIsObjectText(zDoc, sqlite3_value_bytes(aArg[1].pEq))) {
    int iAt = bBlob ? -1 : nosqlJsonErrorAt(zDoc, sqlite3_value_bytes(aArg[1].pEq));
    char *z = nosqlValueQuote(aArg[1].pEq);
    if (iAt >= 0) {
      nosqlVtabError(pCursor->pVtab, "kv_pairs: doc " NOSQL_JSON_AT ": %s", iAt, z ? z : "?");
    } else {
      nosqlVtabError(pCursor->pVtab, "kv_pairs: doc %s is not a JSON object", z ? z : "?");
    }
    sqlite3_free(z);
    return SQLITE_ERROR;
  }
  pCur->zPrefix = sqlite3_mprintf("%s%s", sqlite3_value_text(aArg[0].pEq), zSep);
  if (pCur->zPrefix == NULL) return SQLITE_NOMEM;
  sqlite3_finalize(pCur->pStmt);
  pCur->pStmt = NULL;
  rc = sqlite3_prepare_v2(((kv_pairs_vtab *)pCursor->pVtab)->db, "SELECT key, value FROM json_each(?1)", -1,
                          &pCur->pStmt, 0);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_value(pCur->pStmt, 1, aArg[1].pEq);
  pCur->bEof = 0;
  pCur->iRow = 0;
  return kvPairsNext(pCursor);
}

static int kvPairsEof(sqlite3_vtab_cursor *pCursor) { return ((kv_pairs_cursor *)pCursor)->bEof; }

static int kvPairsColumn(sqlite3_vtab_cursor *pCursor, sqlite3_context *ctx, int iCol) {
  kv_pairs_cursor *pCur = (kv_pairs_cursor *)pCursor;
  switch (iCol) {
    case KV_PAIRS_KEY: {
      char *z = sqlite3_mprintf("%s%s", pCur->zPrefix, sqlite3_column_text(pCur->pStmt, 0));
      if (z == NULL) return SQLITE_NOMEM;
      sqlite3_result_text(ctx, z, -1, sqlite3_free);
      break;
    }
    case KV_PAIRS_FIELD:
      sqlite3_result_value(ctx, sqlite3_column_value(pCur->pStmt, 0));
      break;
    case KV_PAIRS_VALUE:
      sqlite3_result_value(ctx, sqlite3_column_value(pCur->pStmt, 1));
      break;
    default:
      nosqlPlanKeptResult(ctx, pCur->apArg[iCol - KV_PAIRS_PREFIX]);
      break;
  }
  return SQLITE_OK;
}

static int kvPairsRowid(sqlite3_vtab_cursor *pCursor, sqlite_int64 *pRowid) {
  *pRowid = ((kv_pairs_cursor *)pCursor)->iRow;
  return SQLITE_OK;
}

static sqlite3_module kvPairsModule = {
    0,                /* iVersion */
    0,                /* xCreate: eponymous only */
    kvPairsConnect,   /* xConnect */
    kvPairsBestIndex, /* xBestIndex */
    nosqlVtabFree,    /* xDisconnect */
    0,                /* xDestroy */
    kvPairsOpen,      /* xOpen */
    kvPairsClose,     /* xClose */
    kvPairsFilter,    /* xFilter */
    kvPairsNext,      /* xNext */
    kvPairsEof,       /* xEof */
    kvPairsColumn,    /* xColumn */
    kvPairsRowid,     /* xRowid */
    0,                /* xUpdate */
    0,                /* xBegin */
    0,                /* xSync */
    0,                /* xCommit */
    0,                /* xRollback */
    0,                /* xFindFunction */
    0,                /* xRename */
    0,                /* xSavepoint */
    0,                /* xRelease */
    0,                /* xRollbackTo */
    0,                /* xShadowName */
};

/*
** The feature "documents": doc_update, doc_schema (the owner of the
** statement cache), kv_object and kv_pairs.
*/
int kvObjectRegister(sqlite3 *db) {
  int rc = SQLITE_OK, nArg;
  for (nArg = 2; nArg <= 3 && rc == SQLITE_OK; nArg++) {
    rc = sqlite3_create_function(db, "kv_object", nArg, NOSQL_PURE | SQLITE_SUBTYPE | SQLITE_RESULT_SUBTYPE,
                                 0, 0, kvObjectStep, kvObjectFinal);
  }
  if (rc == SQLITE_OK) rc = sqlite3_create_module(db, "kv_pairs", &kvPairsModule, 0);
  return rc;
}
