/*
** fts5_gap.c: a position-gap tokenizer for FTS5 (technique 16 of the
** article, "Nested Documents Flattening: Proximity Queries").
**
**   CREATE VIRTUAL TABLE r USING fts5(skills, tokenize = 'nosql_gap 100 unicode61');
**
** A multi-valued column holds a JSON array of strings, one per value
** ('["excellent math", "poor poetry"]'). Indexed as plain text, the last
** word of one value and the first of the next are neighbours, so a phrase
** or NEAR() matches across values ("poetry excellent" above). This
** tokenizer wraps another one (unicode61 by default; the words after the
** gap are its name and arguments) and puts `gap` positions between values,
** as Lucene's position_increment_gap does, so that a phrase or NEAR(a b, N)
** never spans two values while N < gap.
**
** How the gap is made: FTS5 numbers tokens by counting them, with no way to
** skip positions, so between two values the tokenizer emits `gap` filler
** tokens, each the byte 0x01 ("\x01", which no tokenizer produces from a
** query). They cost index space (measured in docs/benchmarks.md: about one
** byte per filler in the position list of the row), are zero-length spans
** at the boundary (iStart = iEnd), so highlight() and snippet() never show
** them, and are emitted only when documents are tokenized (FTS5_TOKENIZE_
** DOCUMENT and _AUX), never for queries.
**
** Values: the text is parsed as a JSON array (RFC 8259); each string
** element is decoded and handed to the wrapped tokenizer, with token
** offsets mapped back into the column's text; other elements (numbers,
** true...) are tokenized as their JSON text; null is skipped. Text that is
** not a JSON array is one value, tokenized whole.
**
** Arguments: the gap, an integer from 1 to 10000, then optionally the
** wrapped tokenizer's name and arguments (default unicode61). A missing or
** bad gap, an unknown tokenizer, or an error of the wrapped tokenizer's
** xCreate is an error of the CREATE VIRTUAL TABLE.
**
** Registration: through the fts5_api pointer (SELECT fts5(?1) with
** sqlite3_bind_pointer, the documented way, SQLite 3.20+). When the host's
** SQLite has no FTS5 the tokenizer is simply not registered; the rest of
** the extension loads.
*/
#include "nosqlInt.h"

#include <stdlib.h>
#include <string.h>

#define GAP_FILLER "\x01"
#define GAP_MAX 10000

typedef struct GapTokenizer GapTokenizer;
struct GapTokenizer {
  fts5_tokenizer inner;  /* The wrapped tokenizer's methods */
  Fts5Tokenizer *pInner; /* Its instance */
  int nGap;              /* Positions between values */
};

/* Per xTokenize call: the caller's callback, and the offset map of the value being tokenized. */
typedef struct GapCtx GapCtx;
struct GapCtx {
  void *pCtx;                                              /* Caller's context */
  int (*xToken)(void *, int, const char *, int, int, int); /* Caller's callback */
  const int *aMap;    /* Decoded offset -> offset in the column, or NULL */
  int nMap;           /* Entries of aMap (decoded bytes + 1) */
  int iBase;          /* Offset of the value in the column (aMap NULL) */
  sqlite3_int64 nPos; /* Positions given so far (tokens and fillers) */
};

/*
** Positions one document may take: FTS5 numbers them in an int, and a
** huge gap times many values would pass 2^31 (a megabyte of short values
** at gap 10000). Past this the document is refused with SQLITE_TOOBIG.
*/
#define GAP_MAX_POS 0x3FFFFFFF

static int gapToken(void *pCtx, int tflags, const char *pToken, int nToken, int iStart, int iEnd) {
  GapCtx *p = (GapCtx *)pCtx;
  if (!(tflags & FTS5_TOKEN_COLOCATED) && ++p->nPos > GAP_MAX_POS) return SQLITE_TOOBIG;
  if (p->aMap) {
    if (iStart < 0) iStart = 0;
    if (iEnd > p->nMap - 1) iEnd = p->nMap - 1;
    if (iStart > iEnd) iStart = iEnd;
    iStart = p->aMap[iStart];
    iEnd = p->aMap[iEnd];
  } else {
    iStart += p->iBase;
    iEnd += p->iBase;
  }
  return p->xToken(p->pCtx, tflags, pToken, nToken, iStart, iEnd);
}

static void gapDelete(Fts5Tokenizer *pTok) {
  GapTokenizer *p = (GapTokenizer *)pTok;
  if (p) {
    if (p->pInner) p->inner.xDelete(p->pInner);
    sqlite3_free(p);
  }
}

static int gapCreate(void *pUserData, const char **azArg, int nArg, Fts5Tokenizer **ppOut) {
  fts5_api *pApi = (fts5_api *)pUserData;
  GapTokenizer *p;
  const char *zInner = "unicode61";
  void *pInnerUser = NULL;
  char *zEnd = NULL;
  long nGap;
  int rc;
  *ppOut = NULL;
  if (nArg < 1) return SQLITE_ERROR; /* FTS5 reports "error in tokenizer constructor" */
  nGap = strtol(azArg[0], &zEnd, 10);
  if (zEnd == azArg[0] || *zEnd != 0 || nGap < 1 || nGap > GAP_MAX) return SQLITE_ERROR;
  if (nArg > 1) zInner = azArg[1];
  p = (GapTokenizer *)sqlite3_malloc64(sizeof(*p));
  if (p == NULL) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->nGap = (int)nGap;
  rc = pApi->xFindTokenizer(pApi, zInner, &pInnerUser, &p->inner);
  if (rc == SQLITE_OK)
    rc = p->inner.xCreate(pInnerUser, nArg > 2 ? &azArg[2] : NULL, nArg > 2 ? nArg - 2 : 0, &p->pInner);
  if (rc != SQLITE_OK) {
    p->pInner = NULL;
    gapDelete((Fts5Tokenizer *)p);
    return rc;
  }
  *ppOut = (Fts5Tokenizer *)p;
  return SQLITE_OK;
}

/*
** Decode the JSON string z[i..iEnd) (quotes included) into aOut, with
** aMap[k] = the column offset of decoded byte k and aMap[n] = the closing
** quote's. Returns the decoded length n.
*/
static int gapDecode(const char *z, int i, int iEnd, char *aOut, int *aMap) {
  int n = nosqlJsonUnescape(&z[i + 1], iEnd - i - 2, aOut, aMap, i + 1);
  aMap[n] = iEnd - 1;
  return n;
}

static int gapSpace(const char *z, int i, int n) {
  while (i < n && (z[i] == ' ' || z[i] == '\t' || z[i] == '\n' || z[i] == '\r')) i++;
  return i;
}

/* Index just past the JSON value at z[i] (valid JSON). */
static int gapSkip(const char *z, int i, int n) {
  int nDepth = 0;
  do {
    if (z[i] == '"') {
      for (i++; i < n && z[i] != '"'; i++) {
        if (z[i] == '\\') i++;
      }
      i++;
    } else if (z[i] == '[' || z[i] == '{') {
      nDepth++;
      i++;
    } else if (z[i] == ']' || z[i] == '}') {
      nDepth--;
      i++;
    } else if (nDepth > 0) {
      i++;
    } else {
      while (i < n && z[i] != ',' && z[i] != ']' && z[i] != ' ' && z[i] != '\t' && z[i] != '\n' &&
             z[i] != '\r') {
        i++;
      }
    }
  } while (nDepth > 0 && i < n);
  return i;
}

static int gapTokenize(Fts5Tokenizer *pTok, void *pCtx, int flags, const char *pText, int nText,
                       int (*xToken)(void *, int, const char *, int, int, int)) {
  GapTokenizer *p = (GapTokenizer *)pTok;
  GapCtx ctx;
  int i, rc = SQLITE_OK, nValue = 0;
  char *aBuf = NULL;
  int *aMap = NULL;
  memset(&ctx, 0, sizeof(ctx));
  ctx.pCtx = pCtx;
  ctx.xToken = xToken;
  i = gapSpace(pText, 0, nText);
  /* A query, or text that is not a JSON array: one value, as the wrapped tokenizer sees it. */
  if ((flags & FTS5_TOKENIZE_QUERY) || i >= nText || pText[i] != '[' || !nosqlJsonStrict(pText, nText)) {
    return p->inner.xTokenize(p->pInner, &ctx, flags, pText, nText, gapToken);
  }
  aBuf = (char *)sqlite3_malloc64((sqlite3_uint64)nText + 1);
  aMap = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)nText + 1));
  if (aBuf == NULL || aMap == NULL) {
    sqlite3_free(aBuf);
    sqlite3_free(aMap);
    return SQLITE_NOMEM;
  }
  i = gapSpace(pText, i + 1, nText);
  {
    /* The fillers alone may pass the limit: count the values first (the
    ** text is strict JSON), rather than give FTS5 a billion fillers. */
    sqlite3_int64 nAll = 0;
    int j = i;
    while (j < nText && pText[j] != ']') {
      int jEnd = gapSkip(pText, j, nText);
      if (!(jEnd - j == 4 && memcmp(&pText[j], "null", 4) == 0)) nAll++;
      j = gapSpace(pText, jEnd, nText);
      if (j < nText && pText[j] == ',') j = gapSpace(pText, j + 1, nText);
    }
    if (nAll > 1 && (nAll - 1) * p->nGap > GAP_MAX_POS) rc = SQLITE_TOOBIG;
  }
  while (rc == SQLITE_OK && i < nText && pText[i] != ']') {
    int iEnd = gapSkip(pText, i, nText), k;
    if (!(iEnd - i == 4 && memcmp(&pText[i], "null", 4) == 0)) {
      if (nValue++ > 0) {
        /* The gap: fillers at the boundary, zero-length, never shown or matched. */
        ctx.nPos += p->nGap;
        if (ctx.nPos > GAP_MAX_POS) rc = SQLITE_TOOBIG;
        for (k = 0; rc == SQLITE_OK && k < p->nGap; k++) rc = xToken(pCtx, 0, GAP_FILLER, 1, i, i);
      }
      if (rc == SQLITE_OK && pText[i] == '"') {
        int n = gapDecode(pText, i, iEnd, aBuf, aMap);
        ctx.aMap = aMap;
        ctx.nMap = n + 1;
        rc = p->inner.xTokenize(p->pInner, &ctx, flags, aBuf, n, gapToken);
      } else if (rc == SQLITE_OK) {
        ctx.aMap = NULL;
        ctx.iBase = i;
        rc = p->inner.xTokenize(p->pInner, &ctx, flags, &pText[i], iEnd - i, gapToken);
      }
    }
    i = gapSpace(pText, iEnd, nText);
    if (i < nText && pText[i] == ',') i = gapSpace(pText, i + 1, nText);
  }
  sqlite3_free(aBuf);
  sqlite3_free(aMap);
  return rc;
}

/* The connection's fts5_api, or NULL when its SQLite has no FTS5. */
static fts5_api *gapFts5Api(sqlite3 *db) {
  fts5_api *pApi = NULL;
  sqlite3_stmt *pStmt = NULL;
  if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &pStmt, 0) == SQLITE_OK) {
    sqlite3_bind_pointer(pStmt, 1, (void *)&pApi, "fts5_api_ptr", 0);
    sqlite3_step(pStmt);
  }
  sqlite3_finalize(pStmt);
  return pApi;
}

/* The feature "fts5 gap": the nosql_gap tokenizer, when FTS5 is there. */
int fts5GapRegister(sqlite3 *db) {
  static fts5_tokenizer gapTokenizer = {gapCreate, gapDelete, gapTokenize};
  fts5_api *pApi = gapFts5Api(db);
  if (pApi == NULL) return SQLITE_OK; /* No FTS5 in this SQLite: nothing to wrap */
  return pApi->xCreateTokenizer(pApi, "nosql_gap", (void *)pApi, &gapTokenizer, 0);
}
