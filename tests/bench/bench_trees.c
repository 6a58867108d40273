/*
** bench_trees.c: tree_json and tree_rows (technique 11) on one big comment
** thread: n comments (100k at size 1), each replying to a random earlier
** comment (a random recursive tree: depth about ln n), 1% of them new
** top-level posts.
**
**   thread as one document   tree_json vs the application-side build
**                            (fetch the rows once, link children in C,
**                            write the same JSON); both give the same text
**   flat array, for scale    json_group_array over the same rows: not a
**                            tree, the cost floor of any one-document answer
**   rows -> document -> rows tree_rows(tree_json(...)) vs json_each over the
**                            flat json_group_array: the same (id, parent,
**                            author, body) rows back
**
** SQL has no third way: aggregates are refused in the recursive part of a
** CTE, so a nested document of unbounded depth cannot be written in SQL
** (sql/graphs.sql shows the hand-nested fixed-depth query).
*/
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The application-side build: one query, then children linked by array index. */
typedef struct TreeRow TreeRow;
struct TreeRow {
  int64_t iParent; /* Parent id, 0 for a root */
  char *zAuthor;
  char *zBody;
  int iFirst, iLast, iNext; /* Children lists by id, 0 none */
};

static void treeAppendJsonString(int *pRc, NosqlBuffer *pBuf, const char *z) {
  nosqlBufferJsonString(pRc, pBuf, z, (int)strlen(z));
}

static int treeAppBuild(sqlite3 *db, void *pArg, BenchSum *pSum) {
  int64_t n = *(int64_t *)pArg, i;
  TreeRow *a = (TreeRow *)calloc((size_t)n + 1, sizeof(TreeRow));
  int *aStack = (int *)malloc(sizeof(int) * ((size_t)n + 1));
  sqlite3_stmt *pStmt = NULL;
  NosqlBuffer out = {0, 0, 0};
  int rc = a && aStack ? SQLITE_OK : SQLITE_NOMEM, iRoot = 0, iRootLast = 0, nStack = 0, iCur;
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2(db, "SELECT id, parent, author, body FROM c ORDER BY id", -1, &pStmt, 0);
  while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    int64_t id = sqlite3_column_int64(pStmt, 0);
    TreeRow *r = &a[id];
    r->iParent = sqlite3_column_int64(pStmt, 1);
    r->zAuthor = strdup((const char *)sqlite3_column_text(pStmt, 2));
    r->zBody = strdup((const char *)sqlite3_column_text(pStmt, 3));
    if (r->iParent == 0) {
      if (iRootLast) {
        a[iRootLast].iNext = (int)id;
      } else {
        iRoot = (int)id;
      }
      iRootLast = (int)id;
    } else {
      TreeRow *pPar = &a[r->iParent];
      if (pPar->iLast) {
        a[pPar->iLast].iNext = (int)id;
      } else {
        pPar->iFirst = (int)id;
      }
      pPar->iLast = (int)id;
    }
  }
  sqlite3_finalize(pStmt);
  nosqlBufferAppend(&rc, &out, "[", 1);
  iCur = iRoot;
  while (rc == SQLITE_OK && (iCur || nStack)) {
    if (iCur) {
      nosqlBufferAppendf(&rc, &out, "{\"id\":%d,\"author\":", iCur);
      treeAppendJsonString(&rc, &out, a[iCur].zAuthor);
      nosqlBufferAppend(&rc, &out, ",\"body\":", 8);
      treeAppendJsonString(&rc, &out, a[iCur].zBody);
      nosqlBufferAppend(&rc, &out, ",\"children\":[", 13);
      aStack[nStack++] = iCur;
      iCur = a[iCur].iFirst;
    } else {
      int iTop = aStack[--nStack];
      nosqlBufferAppend(&rc, &out, "]}", 2);
      iCur = a[iTop].iNext;
      if (iCur) nosqlBufferAppend(&rc, &out, ",", 1);
    }
  }
  nosqlBufferAppend(&rc, &out, "]", 1);
  if (rc == SQLITE_OK) {
    /* Summed as the one-text-column row the SQL variant returns. */
    sqlite3_stmt *pEcho = NULL;
    rc = sqlite3_prepare_v2(db, "SELECT ?1", -1, &pEcho, 0);
    if (rc == SQLITE_OK) {
      sqlite3_bind_text(pEcho, 1, (const char *)out.a, (int)out.n, SQLITE_STATIC);
      rc = benchSumStmt(pSum, pEcho);
    }
    sqlite3_finalize(pEcho);
  }
  for (i = 1; a && i <= n; i++) {
    free(a[i].zAuthor);
    free(a[i].zBody);
  }
  free(a);
  free(aStack);
  nosqlBufferFree(&out);
  return rc;
}

void benchTrees(Bench *p) {
  int64_t n = benchSize(p, 100000, 1000);
  sqlite3 *db = benchOpen();
  sqlite3_stmt *pIns = NULL;
  uint64_t seed = 0x7ee5eedULL;
  char zSize[64];
  int64_t i;
  benchExec(db, "CREATE TABLE c(id INTEGER PRIMARY KEY, parent INTEGER, author TEXT, body TEXT)");
  benchExec(db, "BEGIN");
  sqlite3_prepare_v2(db, "INSERT INTO c VALUES (?1, ?2, ?3, ?4)", -1, &pIns, 0);
  for (i = 1; i <= n; i++) {
    char zAuthor[32], zBody[96];
    uint64_t r = benchRand(&seed);
    sqlite3_bind_int64(pIns, 1, i);
    if (i == 1 || r % 100 == 0) {
      sqlite3_bind_null(pIns, 2);
    } else {
      sqlite3_bind_int64(pIns, 2, 1 + (int64_t)((r >> 8) % (uint64_t)(i - 1)));
    }
    snprintf(zAuthor, sizeof(zAuthor), "user%d", (int)(r >> 40) % 5000);
    snprintf(zBody, sizeof(zBody), "Comment %lld: \"%s\" says something about post %d", (long long)i, zAuthor,
             (int)((r >> 20) % 997));
    sqlite3_bind_text(pIns, 3, zAuthor, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(pIns, 4, zBody, -1, SQLITE_TRANSIENT);
    sqlite3_step(pIns);
    sqlite3_reset(pIns);
  }
  sqlite3_finalize(pIns);
  benchExec(db, "COMMIT");
  snprintf(zSize, sizeof(zSize), "%lld comments", (long long)n);
  {
    BenchVariant aVar[2] = {
        {BENCH_C, "application: one query, tree built in C", 0, treeAppBuild, &n},
        {BENCH_EXTENSION, "tree_json",
         "SELECT tree_json(id, parent, json_object('author', author, 'body', body)) FROM c", 0, 0},
    };
    benchCompare(p, "trees: a comment thread as one document", db, zSize, (double)n, "comments", (double)n,
                 "comment", aVar, 2);
  }
  {
    BenchVariant aVar[2] = {
        {BENCH_FLOOR, "json_group_array (flat, not a tree)",
         "SELECT length(json_group_array(json_object('id', id, 'parent', parent, 'author', author, 'body', "
         "body))) > 0 FROM c",
         0, 0},
        {BENCH_EXTENSION, "tree_json (nested)",
         "SELECT length(tree_json(id, parent, json_object('author', author, 'body', body))) > 0 FROM c", 0,
         0},
    };
    benchCompare(p, "trees: one document of every comment, flat vs nested (cost floor)", db, zSize, (double)n,
                 "comments", (double)n, "comment", aVar, 2);
  }
  {
    BenchVariant aVar[2] = {
        {BENCH_FLOOR, "json_each over the flat json_group_array",
         "SELECT j.value ->> 'id', j.value ->> 'parent', j.value ->> 'author', j.value ->> 'body' FROM "
         "json_each((SELECT json_group_array(json_object('id', id, 'parent', parent, 'author', author, "
         "'body', "
         "body)) FROM c)) j",
         0, 0},
        {BENCH_EXTENSION, "tree_rows(tree_json(...))",
         "SELECT id, parent, payload ->> 'author', payload ->> 'body' FROM tree_rows((SELECT tree_json(id, "
         "parent, json_object('author', author, 'body', body)) FROM c))",
         0, 0},
    };
    benchCompare(p, "trees: rows -> one document -> rows", db, zSize, (double)n, "comments", (double)n,
                 "comment", aVar, 2);
  }
  sqlite3_close(db);
}
