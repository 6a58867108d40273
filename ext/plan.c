/*
** plan.c: the one planning helper every virtual table's xBestIndex uses.
**
** A module describes the constraints it can serve, column by column
** (NosqlPlanCol: which operators, which collation it enforces exactly,
** whether the column is a required input), and nosqlPlanBest() picks the
** constraints, sets argvIndex and omit, asks for IN lists whole where the
** module takes them, and writes the plan into idxStr in the one form that
** xFilter decodes with nosqlPlanArgs().
**
** The rules, the same for every module:
**
**   - A constraint whose comparison collation is not the one the module
**     enforces is left to SQLite: never used, never omitted. A column whose
**     values the module only takes as arguments (hidden inputs of a
**     table-valued function) says NOSQL_COLL_ANY.
**   - omit is set only when the column says the module's answer is exact
**     (bExact); otherwise the constraint narrows the scan and SQLite checks
**     each row again.
**   - Per column: one equality, or else one lower and one upper bound. An
**     equality with an IN list on the right is served one value per xFilter
**     (SQLite's loop) unless the column has NOSQL_OP_INLIST, when the whole
**     list arrives at once (sqlite3_vtab_in, SQLite 3.38+).
**   - A required column without a usable equality makes the plan
**     SQLITE_CONSTRAINT (nosqlPlanFind(), nosqlPlanBest()): SQLite then
**     tries another join order, and reports "no query solution" when none
**     exists. Table-valued functions (nosqlPlanInputs()) say instead what
**     is missing: SQLITE_CONSTRAINT only while the query has an equality on
**     the column that another join order can use (a join, "FROM t,
**     f(t.x)"); with none, the plan is made without the input at a cost
**     no other plan reaches (an OR of equalities, served branch by branch,
**     still wins), and xFilter reports "f: x is required: f(x[, y])"
**     (nosqlPlanInputArgs()). The message cannot come from xBestIndex:
**     SQLite fails the statement on the first xBestIndex error, before
**     the plans it would try next.
**   - Operators the module does not list ("<>", IS, LIKE, MATCH, ...) are
**     always left to SQLite, so an extra WHERE term never fails a query.
**
** The plan encoding (idxStr): two characters per argv[] value, in argv
** order: the column's slot (its position in the aCol[] array the module
** passed, as 'a' + slot) and the operator: '=' equality, 'I' equality
** with the whole IN list, '>' '}' (GT, GE), '<' '{' (LT, LE), 'M' MATCH
** (a slot's MATCH value arrives as its equality value). Nothing
** else is in idxStr up to the end or a space, so EXPLAIN QUERY PLAN shows
** the constraints used, e.g. "a=b}b<" for "slot a equal, slot b at least
** and below". A module may append its own text after one space
** (NosqlPlan.zTail: an ORDER BY it serves, a readable plan), which
** nosqlPlanArgs() skips and nosqlPlanTail() returns. idxNum is left to the
** module (order flags, method choice).
*/
#include "nosqlInt.h"

#include <string.h>

/* The operator code of a constraint, or 0 when the helper never serves it. */
static char nosqlPlanOpChar(unsigned char op) {
  switch (op) {
    case SQLITE_INDEX_CONSTRAINT_EQ:
      return '=';
    case SQLITE_INDEX_CONSTRAINT_GT:
      return '>';
    case SQLITE_INDEX_CONSTRAINT_GE:
      return '}';
    case SQLITE_INDEX_CONSTRAINT_LT:
      return '<';
    case SQLITE_INDEX_CONSTRAINT_LE:
      return '{';
    case SQLITE_INDEX_CONSTRAINT_MATCH:
      return 'M';
    default:
      return 0;
  }
}

/* The NOSQL_OP_* bit of an operator code. */
static unsigned nosqlPlanOpBit(char c) {
  switch (c) {
    case '=':
      return NOSQL_OP_EQ;
    case '>':
      return NOSQL_OP_GT;
    case '}':
      return NOSQL_OP_GE;
    case '<':
      return NOSQL_OP_LT;
    case 'M':
      return NOSQL_OP_MATCH;
    default:
      return NOSQL_OP_LE;
  }
}

/* True when constraint i compares in a collation the column accepts. */
static int nosqlPlanCollOk(sqlite3_index_info *pInfo, int i, const char *zColl) {
  const char *z;
  if (zColl == NOSQL_COLL_ANY) return 1;
  z = sqlite3_vtab_collation(pInfo, i);
  if (z == NULL) z = "BINARY";
  return sqlite3_stricmp(z, zColl ? zColl : "BINARY") == 0;
}

/* nosqlPlanFind(); with bOptional, a required slot without an equality is left empty, not refused. */
static int nosqlPlanFindSlots(sqlite3_index_info *pInfo, const NosqlPlanCol *aCol, int nCol, int bOptional,
                              NosqlPlan *pPlan) {
  int iSlot, i;
  memset(pPlan, 0, sizeof(*pPlan));
  if (nCol > NOSQL_PLAN_MAX_COL) return SQLITE_ERROR;
  for (iSlot = 0; iSlot < nCol; iSlot++) {
    const NosqlPlanCol *pCol = &aCol[iSlot];
    int iEq = -1, iLo = -1, iHi = -1;
    for (i = 0; i < pInfo->nConstraint; i++) {
      const struct sqlite3_index_constraint *pC = &pInfo->aConstraint[i];
      char c;
      if (!pC->usable || pC->iColumn != pCol->iColumn) continue;
      c = nosqlPlanOpChar(pC->op);
      if (c == 0 || (pCol->mOp & nosqlPlanOpBit(c)) == 0) continue;
      if (!nosqlPlanCollOk(pInfo, i, pCol->zColl)) continue;
      if (c == '=' || c == 'M') {
        if (iEq < 0) iEq = i;
      } else if (c == '>' || c == '}') {
        if (iLo < 0) iLo = i;
      } else if (iHi < 0) {
        iHi = i;
      }
    }
    if (iEq >= 0) iLo = iHi = -1;
    if (pCol->bRequired && iEq < 0 && !bOptional) return SQLITE_CONSTRAINT;
    pPlan->aiEq[iSlot] = iEq;
    pPlan->aiLo[iSlot] = iLo;
    pPlan->aiHi[iSlot] = iHi;
  }
  pPlan->nCol = nCol;
  return SQLITE_OK;
}

int nosqlPlanFind(sqlite3_index_info *pInfo, const NosqlPlanCol *aCol, int nCol, NosqlPlan *pPlan) {
  return nosqlPlanFindSlots(pInfo, aCol, nCol, 0, pPlan);
}

int nosqlPlanInputsReady(const sqlite3_index_info *pInfo, const NosqlPlanCol *aCol, const NosqlPlan *pPlan) {
  int iSlot, i;
  for (iSlot = 0; iSlot < pPlan->nCol; iSlot++) {
    if (pPlan->aiEq[iSlot] >= 0) continue;
    for (i = 0; i < pInfo->nConstraint; i++) {
      const struct sqlite3_index_constraint *pC = &pInfo->aConstraint[i];
      if (!pC->usable && pC->iColumn == aCol[iSlot].iColumn && pC->op == SQLITE_INDEX_CONSTRAINT_EQ) {
        return SQLITE_CONSTRAINT;
      }
    }
  }
  return SQLITE_OK;
}

int nosqlPlanCommit(sqlite3_index_info *pInfo, const NosqlPlanCol *aCol, NosqlPlan *pPlan) {
  int iSlot, k, nArg = 0;
  sqlite3_uint64 nTail = pPlan->zTail ? strlen(pPlan->zTail) + 1 : 0;
  char *z = (char *)sqlite3_malloc64((sqlite3_uint64)pPlan->nCol * 6 + nTail + 1);
  if (z == NULL) return SQLITE_NOMEM;
  for (iSlot = 0; iSlot < pPlan->nCol; iSlot++) {
    const NosqlPlanCol *pCol = &aCol[iSlot];
    pPlan->mUsed[iSlot] = 0;
    for (k = 0; k < 3; k++) {
      int iCons = k == 0 ? pPlan->aiEq[iSlot] : (k == 1 ? pPlan->aiLo[iSlot] : pPlan->aiHi[iSlot]);
      char c;
      if (iCons < 0) continue;
      c = nosqlPlanOpChar(pInfo->aConstraint[iCons].op);
      if (c == '=' && (pCol->mOp & NOSQL_OP_INLIST) && sqlite3_vtab_in(pInfo, iCons, -1)) {
        sqlite3_vtab_in(pInfo, iCons, 1);
        c = 'I';
        pPlan->bInList = 1;
      }
      pInfo->aConstraintUsage[iCons].argvIndex = ++nArg;
      pInfo->aConstraintUsage[iCons].omit = pCol->bExact ? 1 : 0;
      z[2 * (nArg - 1)] = (char)('a' + iSlot);
      z[2 * (nArg - 1) + 1] = c;
      pPlan->mUsed[iSlot] |= (c == 'I') ? NOSQL_OP_EQ : nosqlPlanOpBit(c);
    }
  }
  z[2 * nArg] = 0;
  if (nTail) {
    z[2 * nArg] = ' ';
    memcpy(&z[2 * nArg + 1], pPlan->zTail, nTail);
  }
  pPlan->nArg = nArg;
  pInfo->idxStr = z;
  pInfo->needToFreeIdxStr = 1;
  return SQLITE_OK;
}

int nosqlPlanBest(sqlite3_index_info *pInfo, const NosqlPlanCol *aCol, int nCol, NosqlPlan *pPlan) {
  int rc = nosqlPlanFind(pInfo, aCol, nCol, pPlan);
  if (rc == SQLITE_OK) rc = nosqlPlanCommit(pInfo, aCol, pPlan);
  return rc;
}

int nosqlPlanInputs(sqlite3_index_info *pInfo, const NosqlPlanCol *aCol, int nCol, double rCost,
                    sqlite3_int64 nRows) {
  NosqlPlan plan;
  int rc = nosqlPlanFindSlots(pInfo, aCol, nCol, 1, &plan), i, bAll = 1;
  if (rc == SQLITE_OK) rc = nosqlPlanInputsReady(pInfo, aCol, &plan);
  if (rc == SQLITE_OK) rc = nosqlPlanCommit(pInfo, aCol, &plan);
  if (rc != SQLITE_OK) return rc;
  for (i = 0; i < nCol; i++) {
    if (aCol[i].bRequired && plan.aiEq[i] < 0) bAll = 0;
  }
  pInfo->idxNum = 0;
  pInfo->estimatedCost = bAll ? rCost : 1e300;
  pInfo->estimatedRows = bAll ? nRows : 2147483647;
  return SQLITE_OK;
}

/* Argument iArg (from 0) of signature zUsage, "f(a, b[, c])": its first byte (*pn bytes), or NULL. */
static const char *nosqlUsageArg(const char *zUsage, int iArg, int *pn) {
  static const char zWord[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789";
  const char *z = strchr(zUsage, '(');
  int i = 0;
  while (z && *z) {
    int n;
    z += strcspn(z, zWord);
    n = (int)strspn(z, zWord);
    if (n == 0) break;
    if (i++ == iArg) {
      *pn = n;
      return z;
    }
    z += n;
  }
  *pn = 0;
  return NULL;
}

int nosqlPlanInputArgs(sqlite3_vtab *pVtab, const char *zUsage, const NosqlPlanCol *aCol, int nCol,
                       const char *idxStr, int argc, sqlite3_value **argv, NosqlPlanArg *aArg) {
  int nFunc = (int)strcspn(zUsage, "("), i;
  if (nosqlPlanArgs(idxStr, argc, argv, aArg, nCol) != SQLITE_OK) {
    nosqlVtabError(pVtab, "%.*s: bad plan %s", nFunc, zUsage, idxStr ? idxStr : "(none)");
    return pVtab->zErrMsg ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  for (i = 0; i < nCol; i++) {
    if (aCol[i].bRequired && aArg[i].pEq == NULL) {
      int nName;
      const char *zName = nosqlUsageArg(zUsage, i, &nName);
      nosqlVtabError(pVtab, "%.*s: %.*s is required: %s", nFunc, zUsage, nName, zName ? zName : "?", zUsage);
      return pVtab->zErrMsg ? SQLITE_ERROR : SQLITE_NOMEM;
    }
  }
  return SQLITE_OK;
}

int nosqlPlanArgs(const char *idxStr, int argc, sqlite3_value **argv, NosqlPlanArg *aArg, int nCol) {
  int i;
  memset(aArg, 0, sizeof(*aArg) * (size_t)nCol);
  if (idxStr == NULL) return argc == 0 ? SQLITE_OK : SQLITE_ERROR;
  if ((int)strcspn(idxStr, " ") != 2 * argc) return SQLITE_ERROR;
  for (i = 0; i < argc; i++) {
    int iSlot = idxStr[2 * i] - 'a';
    NosqlPlanArg *p;
    if (iSlot < 0 || iSlot >= nCol) return SQLITE_ERROR;
    p = &aArg[iSlot];
    switch (idxStr[2 * i + 1]) {
      case 'I':
        p->bInList = 1;
        p->pEq = argv[i];
        break;
      case '=':
      case 'M':
        p->pEq = argv[i];
        break;
      case '>':
      case '}':
        p->pLo = argv[i];
        p->bLoIncl = idxStr[2 * i + 1] == '}';
        break;
      case '<':
      case '{':
        p->pHi = argv[i];
        p->bHiIncl = idxStr[2 * i + 1] == '{';
        break;
      default:
        return SQLITE_ERROR;
    }
  }
  return SQLITE_OK;
}

const char *nosqlPlanTail(const char *idxStr) {
  const char *z = idxStr ? strchr(idxStr, ' ') : NULL;
  return z ? z + 1 : "";
}

void nosqlPlanKeepFree(sqlite3_value **apKeep, int nArg) {
  int i;
  for (i = 0; i < nArg; i++) {
    sqlite3_value_free(apKeep[i]);
    apKeep[i] = NULL;
  }
}

int nosqlPlanKeep(const NosqlPlanArg *aArg, int nArg, sqlite3_value **apKeep) {
  int i;
  nosqlPlanKeepFree(apKeep, nArg);
  for (i = 0; i < nArg; i++) {
    if (aArg[i].pEq == NULL || aArg[i].bInList) continue;
    apKeep[i] = sqlite3_value_dup(aArg[i].pEq);
    if (apKeep[i] == NULL) return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

void nosqlPlanKeptResult(sqlite3_context *ctx, sqlite3_value *pKept) {
  if (pKept) sqlite3_result_value(ctx, pKept);
}

void nosqlPlanWords(int *pRc, NosqlBuffer *pOut, const char *idxStr, const char *const *azSlot, int nSlot,
                    const char *zSep) {
  int i, n = idxStr ? (int)strcspn(idxStr, " ") : 0;
  for (i = 0; i + 1 < n; i += 2) {
    int iSlot = idxStr[i] - 'a';
    const char *zName = iSlot >= 0 && iSlot < nSlot && azSlot[iSlot] ? azSlot[iSlot] : "?";
    const char *zOp;
    switch (idxStr[i + 1]) {
      case '=':
        zOp = "= ?";
        break;
      case 'I':
        zOp = "IN (list, taken whole)";
        break;
      case '>':
        zOp = "> ?";
        break;
      case '}':
        zOp = ">= ?";
        break;
      case '<':
        zOp = "< ?";
        break;
      case '{':
        zOp = "<= ?";
        break;
      case 'M':
        zOp = "MATCH ?";
        break;
      default:
        zOp = "?";
        break;
    }
    nosqlBufferAppendf(pRc, pOut, "%s%s %s", i ? zSep : "", zName, zOp);
  }
}
