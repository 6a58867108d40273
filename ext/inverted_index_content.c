/*
** inverted_index_content.c: an inverted_index table over a content= table
** (ext/inverted_index.c documents the options). It checks that the content
** table keeps its rowids (iiContentStable), builds the SQL that reads it
** (iiSourceSql), makes, checks and drops the triggers of mode = 'sync'
** (iiSyncTriggers, iiSyncCheck, iiSyncReadCheck, iiDropTriggers), and
** re-indexes every row for 'rebuild' (iiRebuild).
**
** Uses ext/inverted_index_write.c to write the documents it reads and
** ext/inverted_index_store.c for the caches.
*/
#include "nosqlInt.h"

#include <roaring/roaring.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "inverted_index.h"

/*
** Whether the content table keeps its rowids through VACUUM: it must have
** an INTEGER PRIMARY KEY (the documents are its rowids). A content table
** that does not exist yet is checked later, by 'integrity-check'. At
** CREATE (bCheck 0) the error is *pzErr; for 'integrity-check' (bCheck 1),
** an index made before the rule, it is SQLITE_CORRUPT_VTAB in zErrMsg.
*/
int iiContentStable(inverted_index_vtab *p, int bCheck, char **pzErr) {
  char *zIpk = NULL;
  int bExists = 0, rc;
  sqlite3_stmt *pStmt = NULL;
  rc = sqlite3_prepare_v2(p->db, "SELECT 1 FROM pragma_table_list(?1) WHERE schema = ?2 COLLATE NOCASE", -1,
                          &pStmt, 0);
  if (rc == SQLITE_OK) {
    sqlite3_bind_text(pStmt, 1, p->zContent, -1, SQLITE_STATIC);
    sqlite3_bind_text(pStmt, 2, p->zDb, -1, SQLITE_STATIC);
    bExists = sqlite3_step(pStmt) == SQLITE_ROW;
    rc = sqlite3_finalize(pStmt);
  }
  if (rc == SQLITE_OK && bExists) rc = nosqlRowidAlias(p->db, p->zDb, p->zContent, &zIpk);
  if (rc == SQLITE_OK && bExists && zIpk == NULL) {
    if (bCheck) {
      nosqlVtabError(&p->base,
                     "inverted_index: integrity-check failed: content table '%s' has no INTEGER PRIMARY KEY, "
                     "so VACUUM may have renumbered the rowids the index holds; give '%s' an INTEGER PRIMARY "
                     "KEY column, then 'rebuild'",
                     p->zContent, p->zContent);
      rc = SQLITE_CORRUPT_VTAB;
    } else {
      *pzErr = sqlite3_mprintf(
          "inverted_index: content table '%s' has no INTEGER PRIMARY KEY: VACUUM may renumber its rowids "
          "and the index would name the wrong rows; declare a column INTEGER PRIMARY KEY",
          p->zContent);
      rc = SQLITE_ERROR;
    }
  }
  sqlite3_free(zIpk);
  return rc;
}

/* The rowid and field values of every source row: the content table or the stored values. */
char *iiSourceSql(inverted_index_vtab *p) {
  int rc = SQLITE_OK, i;
  NosqlBuffer b = {0, 0, 0};
  /* Content columns are qualified so that a missing one is an error, not a string literal. */
  nosqlBufferAppendf(&rc, &b, "SELECT %s", p->zContent ? "c.rowid" : "id");
  for (i = 0; i < p->nField; i++) {
    if (p->zContent)
      nosqlBufferAppendf(&rc, &b, ", c.\"%w\"", p->azField[i]);
    else
      nosqlBufferAppendf(&rc, &b, ", c%d", i);
  }
  if (p->zContent)
    nosqlBufferAppendf(&rc, &b, " FROM \"%w\".\"%w\" AS c ORDER BY c.rowid", p->zDb, p->zContent);
  else
    nosqlBufferAppendf(&rc, &b, " FROM \"%w\".\"%w_%s\" ORDER BY id", p->zDb, p->zName,
                       p->bStored ? "content" : "docs");
  if (rc != SQLITE_OK) nosqlBufferFree(&b);
  return (char *)b.a;
}

/*--------------------------------------------------------------------------
** mode = 'sync': the triggers on the content table that keep the index in
** step, named <name>_bi, _ai, _bu, _au, _ad (docs/inverted_index.md,
** "Keeping in step"). The AFTER triggers write the new row and 'delete'
** the old one with its values. A REPLACE deletes the rows it displaces
** without a DELETE trigger unless recursive_triggers is on, so the BEFORE
** triggers give 'displace' the rows it may displace (at NEW's rowid, or
** equal to NEW on a UNIQUE index) with their values, which the index
** keeps (iiStashAdd); the AFTER trigger's INSERT of the new row then takes
** out those that are gone from the content table, or sit at the new
** row's rowid, and are still indexed (iiStashSettle). Whether the write
** replaced (OR REPLACE, a constraint's ON CONFLICT REPLACE) or not
** (ABORT, FAIL, IGNORE, an UPSERT's DO UPDATE) is thus what the content
** table shows, not what the index guesses.
*/
static const char *const azIiTrigger[] = {"_bi", "_ai", "_bu", "_au", "_ad"};
static const char *const azIiWhen[] = {"BEFORE INSERT", "AFTER INSERT", "BEFORE UPDATE", "AFTER UPDATE",
                                       "AFTER DELETE"};

/* DROP index zName's triggers (those that exist). */
int iiDropTriggers(inverted_index_vtab *p, const char *zName) {
  int rc = SQLITE_OK, i;
  for (i = 0; rc == SQLITE_OK && i < 5; i++) {
    rc = iiExec(p, sqlite3_mprintf("DROP TRIGGER IF EXISTS \"%w\".\"%w%s\"", p->zDb, zName, azIiTrigger[i]));
  }
  return rc;
}

/* iiUniqueConds()'s context for the callbacks of nosqlUniqueConds(). */
typedef struct IiUniqueCtx IiUniqueCtx;
struct IiUniqueCtx {
  inverted_index_vtab *p; /* The index */
  NosqlBuffer *pChanged;  /* " OR OLD."a" IS NOT NEW."a"" per key column */
  char **pzErr;           /* The message for an index it cannot follow */
};

/* iiUniqueConds()'s check of each key part: a partial index or one on an expression is refused. */
static int iiUniqueCheck(void *pCtx, const char *zIdx, int bPartial, int bExpr) {
  IiUniqueCtx *pU = (IiUniqueCtx *)pCtx;
  if (zIdx == NULL) return SQLITE_NOMEM;
  if (bPartial || bExpr) {
    *pU->pzErr = sqlite3_mprintf(
        "inverted_index: mode='sync' cannot follow content table '%s': its UNIQUE index '%s' is %s, so "
        "the rows a REPLACE displaces through it cannot be found",
        pU->p->zContent, zIdx, bPartial ? "partial" : "on an expression");
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

/* iiUniqueConds()'s column callback: the change test of the update trigger's WHEN clause. */
static int iiUniqueCol(void *pCtx, const char *zCol) {
  int rc = SQLITE_OK;
  nosqlBufferAppendf(&rc, ((IiUniqueCtx *)pCtx)->pChanged, " OR OLD.\"%w\" IS NOT NEW.\"%w\"", zCol, zCol);
  return rc;
}

/*
** The rows a REPLACE may displace besides the one at NEW's rowid: *pCond
** gets " OR (s.a = NEW.a COLLATE c AND ...)" per UNIQUE index of the
** content table (nosqlUniqueConds()), *pChanged " OR OLD.a IS NOT NEW.a"
** per key column. A partial index or one on an expression is refused
** (*pzErr): a row it displaced would go unseen, or a row it does not
** displace be taken out.
*/
static int iiUniqueConds(inverted_index_vtab *p, NosqlBuffer *pCond, NosqlBuffer *pChanged, char **pzErr) {
  IiUniqueCtx ctx;
  int nIndex;
  ctx.p = p;
  ctx.pChanged = pChanged;
  ctx.pzErr = pzErr;
  return nosqlUniqueConds(p->db, p->zDb, p->zContent, pCond, &nIndex, iiUniqueCheck, iiUniqueCol, &ctx);
}

/* Append ", <zPre>"f1", <zPre>"f2"...": the fields, as columns or as NEW./OLD./s. values. */
static void iiAppendFields(int *pRc, NosqlBuffer *pB, inverted_index_vtab *p, const char *zPre) {
  int i;
  for (i = 0; i < p->nField; i++) nosqlBufferAppendf(pRc, pB, ", %s\"%w\"", zPre, p->azField[i]);
}

/*
** The AFTER UPDATE trigger's body when the rowid stays (iiSyncPartial):
** 'sync-delete:MASK' with the old values, then 'sync-insert:MASK' with the
** new, MASK a '1' per field left as it was (binary and by type, as the
** trigger's WHEN compares); a rowid move gives 'delete' and a plain INSERT.
*/
static void iiAppendPartialUpdate(int *pRc, NosqlBuffer *pB, inverted_index_vtab *p, const char *zIpk) {
  NosqlBuffer mask = {0, 0, 0};
  int k;
  for (k = 0; k < p->nField; k++) {
    const char *z = p->azField[k];
    nosqlBufferAppendf(pRc, &mask,
                       "%s(CASE WHEN OLD.\"%w\" IS NEW.\"%w\" COLLATE BINARY AND typeof(OLD.\"%w\") IS "
                       "typeof(NEW.\"%w\") THEN '1' ELSE '0' END)",
                       k ? " || " : "", z, z, z, z);
  }
  nosqlBufferAppend(pRc, &mask, "", 0);
  for (k = 0; k < 2 && *pRc == SQLITE_OK; k++) {
    const char *zRow = k ? "NEW." : "OLD.";
    nosqlBufferAppendf(pRc, pB, "INSERT INTO \"%w\"(\"%w\", rowid", p->zName, p->zName);
    iiAppendFields(pRc, pB, p, "");
    nosqlBufferAppendf(
        pRc, pB, ") VALUES(CASE WHEN OLD.\"%w\" IS NOT NEW.\"%w\" THEN %s ELSE '%s:' || %s END, %s\"%w\"",
        zIpk, zIpk, k ? "NULL" : "'delete'", k ? "sync-insert" : "sync-delete", (const char *)mask.a, zRow,
        zIpk);
    iiAppendFields(pRc, pB, p, zRow);
    nosqlBufferAppend(pRc, pB, ");\n", -1);
  }
  nosqlBufferFree(&mask);
}

/*
** Create the triggers (after dropping those of that name), or with
** pnStale count those missing, on another table than the content table,
** or not as this version would create them now (a UNIQUE index added
** since, the content table renamed). An error about the content table
** (missing, no INTEGER PRIMARY KEY, a column missing) is *pzErr.
*/
int iiSyncTriggers(inverted_index_vtab *p, char **pzErr, int *pnStale) {
  NosqlBuffer b = {0, 0, 0}, cond = {0, 0, 0}, changed = {0, 0, 0}, where = {0, 0, 0};
  char *zIpk = NULL;
  sqlite3_stmt *pStmt = NULL;
  int rc, i, k;
  /* direct = off, no elements layout: an UPDATE moves the changed fields' terms only. */
  int bPartial = p->bNoDirect && !p->bElems;
  rc = nosqlRowidAlias(p->db, p->zDb, p->zContent, &zIpk);
  if (rc == SQLITE_OK && zIpk == NULL) {
    *pzErr = sqlite3_mprintf(
        "inverted_index: mode='sync' needs content table '%s' with an INTEGER PRIMARY KEY (does it exist?)",
        p->zContent);
    rc = SQLITE_ERROR;
  }
  for (i = 0; rc == SQLITE_OK && i < p->nField; i++) {
    int bHas = 0;
    if (pStmt == NULL) {
      rc = sqlite3_prepare_v2(
          p->db, "SELECT 1 FROM pragma_table_xinfo(?1, ?2) WHERE name = ?3 COLLATE NOCASE", -1, &pStmt, 0);
      if (rc != SQLITE_OK) break;
      sqlite3_bind_text(pStmt, 1, p->zContent, -1, SQLITE_STATIC);
      sqlite3_bind_text(pStmt, 2, p->zDb, -1, SQLITE_STATIC);
    }
    sqlite3_bind_text(pStmt, 3, p->azField[i], -1, SQLITE_STATIC);
    bHas = sqlite3_step(pStmt) == SQLITE_ROW;
    rc = sqlite3_reset(pStmt);
    if (rc == SQLITE_OK && !bHas) {
      *pzErr = sqlite3_mprintf("inverted_index: content table '%s' has no column '%s'", p->zContent,
                               p->azField[i]);
      rc = SQLITE_ERROR;
    }
  }
  sqlite3_finalize(pStmt);
  pStmt = NULL;
  if (rc == SQLITE_OK) rc = iiUniqueConds(p, &cond, &changed, pzErr);
  nosqlBufferAppend(&rc, &cond, "", 0);
  nosqlBufferAppend(&rc, &changed, "", 0);
  if (rc == SQLITE_OK && !pnStale) rc = iiDropTriggers(p, p->zName);
  for (i = 0; rc == SQLITE_OK && i < 5; i++) {
    const char *zRow = i == 4 ? "OLD." : "NEW.";
    nosqlBufferReset(&b);
    nosqlBufferReset(&where);
    nosqlBufferAppendf(&rc, &b, "CREATE TRIGGER \"%w\".\"%w%s\" %s ON \"%w\"", p->zDb, p->zName,
                       azIiTrigger[i], azIiWhen[i], p->zContent);
    if (i == 0) {
      nosqlBufferAppendf(&rc, &where, "s.\"%w\" = NEW.\"%w\"%s", zIpk, zIpk, (const char *)cond.a);
    } else if (i == 2) {
      nosqlBufferAppendf(&rc, &where, "s.\"%w\" IS NOT OLD.\"%w\" AND (s.\"%w\" = NEW.\"%w\"%s)", zIpk, zIpk,
                         zIpk, zIpk, (const char *)cond.a);
      /* Only a write of the rowid or of a UNIQUE key can displace a row. */
      nosqlBufferAppendf(&rc, &b, " WHEN (OLD.\"%w\" IS NOT NEW.\"%w\"%s) AND", zIpk, zIpk,
                         (const char *)changed.a);
    } else if (i == 3) {
      /* A plain UPDATE trigger (UPDATE OF does not fire for SET rowid = ...);
      ** a write of a UNIQUE key may have displaced a row its INSERT settles. */
      nosqlBufferAppendf(&rc, &b, " WHEN OLD.\"%w\" IS NOT NEW.\"%w\"%s", zIpk, zIpk,
                         (const char *)changed.a);
      for (k = 0; k < p->nField; k++) {
        const char *z = p->azField[k];
        /* Binary and typed: 'a' and 'A' under NOCASE, 1 and 1.0 are other terms. */
        nosqlBufferAppendf(
            &rc, &b,
            " OR OLD.\"%w\" IS NOT NEW.\"%w\" COLLATE BINARY OR typeof(OLD.\"%w\") IS NOT typeof(NEW.\"%w\")",
            z, z, z, z);
      }
    }
    if (i == 0) nosqlBufferAppend(&rc, &b, " WHEN", -1);
    if (i == 0 || i == 2) {
      /* A WHEN is cheaper than an INSERT that finds no row. */
      nosqlBufferAppendf(&rc, &b, " EXISTS (SELECT 1 FROM \"%w\" AS s WHERE %s)", p->zContent,
                         (const char *)where.a);
    }
    nosqlBufferAppend(&rc, &b, " BEGIN\n", -1);
    if (i == 0 || i == 2) {
      nosqlBufferAppendf(&rc, &b, "INSERT INTO \"%w\"(\"%w\", rowid", p->zName, p->zName);
      iiAppendFields(&rc, &b, p, "");
      nosqlBufferAppendf(&rc, &b, ") SELECT 'displace', s.\"%w\"", zIpk);
      iiAppendFields(&rc, &b, p, "s.");
      nosqlBufferAppendf(&rc, &b, " FROM \"%w\" AS s WHERE %s;\n", p->zContent, (const char *)where.a);
    }
    if (i == 3 && bPartial) iiAppendPartialUpdate(&rc, &b, p, zIpk);
    if ((i == 3 && !bPartial) || i == 4) {
      nosqlBufferAppendf(&rc, &b, "INSERT INTO \"%w\"(\"%w\", rowid", p->zName, p->zName);
      iiAppendFields(&rc, &b, p, "");
      nosqlBufferAppendf(&rc, &b, ") VALUES('delete', OLD.\"%w\"", zIpk);
      iiAppendFields(&rc, &b, p, "OLD.");
      nosqlBufferAppend(&rc, &b, ");\n", -1);
    }
    if (i == 1 || (i == 3 && !bPartial)) {
      nosqlBufferAppendf(&rc, &b, "INSERT INTO \"%w\"(rowid", p->zName);
      iiAppendFields(&rc, &b, p, "");
      nosqlBufferAppendf(&rc, &b, ") VALUES(%s\"%w\"", zRow, zIpk);
      iiAppendFields(&rc, &b, p, zRow);
      nosqlBufferAppend(&rc, &b, ");\n", -1);
    }
    nosqlBufferAppend(&rc, &b, "END", 3);
    if (rc == SQLITE_OK && pnStale) {
      /* SQLite stores the text without the schema: compared from the event on. */
      char *zSql = sqlite3_mprintf(
          "SELECT tbl_name, sql FROM \"%w\".sqlite_schema WHERE type = 'trigger' AND name = '%q%s'", p->zDb,
          p->zName, azIiTrigger[i]);
      rc = zSql ? sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0) : SQLITE_NOMEM;
      sqlite3_free(zSql);
      if (rc == SQLITE_OK) {
        int bRow = sqlite3_step(pStmt) == SQLITE_ROW;
        const char *zTbl = bRow ? (const char *)sqlite3_column_text(pStmt, 0) : NULL;
        const char *zHas = bRow ? (const char *)sqlite3_column_text(pStmt, 1) : NULL;
        const char *zA = zHas ? strstr(zHas, azIiWhen[i]) : NULL;
        const char *zB = strstr((const char *)b.a, azIiWhen[i]);
        if (zTbl == NULL || sqlite3_stricmp(zTbl, p->zContent) != 0 || zA == NULL || zB == NULL ||
            strcmp(zA, zB) != 0) {
          (*pnStale)++;
        }
        rc = sqlite3_finalize(pStmt);
        pStmt = NULL;
      }
    } else if (rc == SQLITE_OK) {
      rc = sqlite3_exec(p->db, (const char *)b.a, 0, 0, 0);
      if (rc != SQLITE_OK && rc != SQLITE_NOMEM) {
        *pzErr = sqlite3_mprintf("inverted_index: cannot create trigger '%s%s': %s", p->zName, azIiTrigger[i],
                                 sqlite3_errmsg(p->db));
      }
    }
  }
  nosqlBufferFree(&b);
  nosqlBufferFree(&cond);
  nosqlBufferFree(&changed);
  nosqlBufferFree(&where);
  sqlite3_free(zIpk);
  return rc;
}

/*
** 'integrity-check' of a sync index: its triggers are there, on the
** content table, as this version makes them. SQLITE_CORRUPT_VTAB if not.
*/
int iiSyncCheck(inverted_index_vtab *p) {
  char *zErr = NULL;
  int nStale = 0, rc = iiSyncTriggers(p, &zErr, &nStale);
  if (rc == SQLITE_ERROR && zErr) {
    nosqlVtabError(&p->base, "inverted_index: integrity-check failed: %s", zErr + 16);
    rc = SQLITE_CORRUPT_VTAB;
  } else if (rc == SQLITE_OK && nStale) {
    nosqlVtabError(
        &p->base,
        "inverted_index: integrity-check failed: %d of the 5 triggers that keep %s in step with %s "
        "are missing or out of date ('rebuild' makes them again)",
        nStale, p->zName, p->zContent);
    rc = SQLITE_CORRUPT_VTAB;
  }
  sqlite3_free(zErr);
  return rc;
}

/*
** mode = 'sync': a read refuses to answer for an index whose triggers are
** missing or not on the content table (dropped, renamed, or dropped and
** created again): checked once per change of the schema.
*/
int iiSyncReadCheck(inverted_index_vtab *p) {
  int rc = SQLITE_OK, iVersion = -1;
  if (p->pSchemaVersion == NULL) {
    char *zSql = sqlite3_mprintf("PRAGMA \"%w\".schema_version", p->zDb);
    rc = zSql ? sqlite3_prepare_v2(p->db, zSql, -1, &p->pSchemaVersion, 0) : SQLITE_NOMEM;
    sqlite3_free(zSql);
  }
  if (rc == SQLITE_OK) {
    if (sqlite3_step(p->pSchemaVersion) == SQLITE_ROW) iVersion = sqlite3_column_int(p->pSchemaVersion, 0);
    rc = sqlite3_reset(p->pSchemaVersion);
  }
  if (rc == SQLITE_OK && (iVersion < 0 || iVersion != p->iSyncVersion)) {
    char *zErr = NULL;
    int nStale = 0;
    rc = iiSyncTriggers(p, &zErr, &nStale);
    if (rc == SQLITE_ERROR && zErr) {
      nosqlVtabError(&p->base, "inverted_index: %s is not in step: %s", p->zName, zErr + 16);
    } else if (rc == SQLITE_OK && nStale) {
      nosqlVtabError(&p->base,
                     "inverted_index: %s is not in step with %s: %d of its 5 triggers are missing or out of "
                     "date ('rebuild' makes them again)",
                     p->zName, p->zContent, nStale);
      rc = SQLITE_ERROR;
    }
    sqlite3_free(zErr);
    if (rc == SQLITE_OK) p->iSyncVersion = iVersion;
  }
  return rc;
}

/*
** The error of a source row the index refuses (zMsg: the value's message,
** its "inverted_index: " prefix dropped), named as "row N of TABLE", which
** the writer of one row knew but the reader of a whole table does not:
** 'rebuild' (and so the CREATE of a mode = 'sync' index) and, with zWhat
** "integrity-check failed: ", 'integrity-check'. The stored values of an
** index without content= are rows of <name>_content.
*/
void iiRowError(inverted_index_vtab *p, const char *zWhat, sqlite3_int64 iRowid, const char *zMsg) {
  char *zNew;
  if (zMsg == NULL) zMsg = "";
  if (strncmp(zMsg, "inverted_index: ", 16) == 0) zMsg += 16;
  zNew = sqlite3_mprintf("inverted_index: %srow %lld of %s%s: %s", zWhat, iRowid,
                         p->zContent ? p->zContent : p->zName, p->zContent ? "" : "_content", zMsg);
  if (zNew) {
    sqlite3_free(p->base.zErrMsg); /* zMsg may be in it: freed only now */
    p->base.zErrMsg = zNew;
  }
}

/* 'rebuild': reindex every row of the source from scratch. */
int iiRebuild(inverted_index_vtab *p) {
  int rc = SQLITE_OK, i;
  sqlite3_stmt *pStmt = NULL;
  sqlite3_value **aCopy = NULL; /* Stored values, when they are the source */
  sqlite3_int64 nCopy = 0, nAlloc = 0, k;
  char *zSql = iiSourceSql(p);
  int nCol = p->nField + 1;
  if (zSql == NULL) return SQLITE_NOMEM;
  if (p->bSync) {
    /* The triggers made again: 'rebuild' repairs a sync index whole. */
    char *zErr = NULL;
    rc = iiSyncTriggers(p, &zErr, NULL);
    if (zErr) {
      nosqlVtabError(&p->base, "%s", zErr);
      sqlite3_free(zErr);
    }
    if (rc != SQLITE_OK) {
      sqlite3_free(zSql);
      return rc;
    }
  }
  rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  if (rc != SQLITE_OK) {
    nosqlVtabError(&p->base, "inverted_index: rebuild: %s", sqlite3_errmsg(p->db));
    return rc;
  }
  if (!p->zContent && !p->bStored) {
    /* The stored values are deleted below: copy them first. */
    while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
      if (nCopy + nCol > nAlloc) {
        sqlite3_int64 nNew = nAlloc ? nAlloc * 2 : 64 * nCol;
        sqlite3_value **aNew =
            (sqlite3_value **)sqlite3_realloc64(aCopy, sizeof(sqlite3_value *) * (size_t)nNew);
        if (aNew == NULL) {
          rc = SQLITE_NOMEM;
          break;
        }
        aCopy = aNew;
        nAlloc = nNew;
      }
      for (i = 0; i < nCol; i++) {
        aCopy[nCopy++] = sqlite3_value_dup(sqlite3_column_value(pStmt, i));
        if (aCopy[nCopy - 1] == NULL) rc = SQLITE_NOMEM;
      }
    }
    if (rc == SQLITE_OK) rc = sqlite3_reset(pStmt);
  }
  iiCacheClear(p);
  if (rc == SQLITE_OK && !p->bNoDirect) {
    rc = iiExec(p, sqlite3_mprintf("DELETE FROM \"%w\".\"%w_docs\"", p->zDb, p->zName));
  }
  if (rc == SQLITE_OK) rc = iiExec(p, sqlite3_mprintf("DELETE FROM \"%w\".\"%w_terms\"", p->zDb, p->zName));
  if (rc == SQLITE_OK && p->bElems) {
    rc = iiExec(p, sqlite3_mprintf("DELETE FROM \"%w\".\"%w_elems\"", p->zDb, p->zName));
  }
  if (rc == SQLITE_OK) {
    p->aBulkElem = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * (size_t)p->nField);
    if (p->aBulkElem == NULL) rc = SQLITE_NOMEM;
    for (i = 0; rc == SQLITE_OK && i < p->nField; i++) p->aBulkElem[i] = 0;
    p->iBulkDoc = 0;
    p->iBulkTerm = 0;
  }
  if (p->zContent || p->bStored) {
    /* Read as they are written: <name>_content stays, the bulk path does not write it. */
    sqlite3_value **ap = (sqlite3_value **)sqlite3_malloc64(sizeof(sqlite3_value *) * (size_t)nCol);
    if (ap == NULL) rc = SQLITE_NOMEM;
    while (rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
      for (i = 0; i < nCol; i++) ap[i] = sqlite3_column_value(pStmt, i);
      if (sqlite3_value_type(ap[0]) != SQLITE_INTEGER) {
        nosqlVtabError(&p->base, "inverted_index: rebuild: content table %s has a non-integer rowid",
                       p->zContent);
        rc = SQLITE_ERROR;
      } else {
        rc = iiWriteDoc(p, 0, 0, sqlite3_value_int64(ap[0]), ap + 1);
        if (rc == SQLITE_ERROR && p->zContent && p->base.zErrMsg) {
          iiRowError(p, "", sqlite3_value_int64(ap[0]), p->base.zErrMsg);
        }
      }
    }
    sqlite3_free(ap);
  } else {
    for (k = 0; rc == SQLITE_OK && k < nCopy; k += nCol) {
      rc = iiWriteDoc(p, 0, 0, sqlite3_value_int64(aCopy[k]), aCopy + k + 1);
    }
  }
  if (pStmt) {
    int rc2 = sqlite3_finalize(pStmt);
    if (rc == SQLITE_OK && rc2 != SQLITE_OK) {
      nosqlVtabError(&p->base, "inverted_index: rebuild: %s", sqlite3_errmsg(p->db));
      rc = rc2;
    }
  }
  p->iBulkDoc = -1;
  p->iTermMaxStored = -1;
  p->iDocNext = -1;
  p->bRowidMax = 0;
  sqlite3_free(p->aBulkElem);
  p->aBulkElem = NULL;
  for (k = 0; k < nCopy; k++) sqlite3_value_free(aCopy[k]);
  sqlite3_free(aCopy);
  if (rc == SQLITE_OK) {
    rc = iiFlush(p);
  } else {
    /* Failed: what it wrote stays unless SQLite rolls back (an interrupt,
    ** a resource error), so the terms it made get their rows, as the
    ** documents written name them; the first error is the one reported. */
    char *zErr = p->base.zErrMsg;
    p->base.zErrMsg = NULL;
    if (iiFlush(p) != SQLITE_OK) iiCacheClear(p);
    sqlite3_free(p->base.zErrMsg);
    p->base.zErrMsg = zErr;
  }
  return rc;
}
