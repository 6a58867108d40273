/*
** nested_set_core.c: the pure core of nested_set (ext/nested_set.c): label
** arithmetic (the step between labels, where a new pair goes, when a relabel
** window is sparse enough, spreading labels over a window) and the rebuild
** of a whole forest from (id, parent) pairs into gapped preorder labels.
** None of this calls sqlite3_*; callers own every array. Contracts are in
** ext/nosqlInt.h ("Interface to code in ext/nested_set_core.c"); the unit
** tests (tests/unit/test_nested_set.c) and the fuzz target drive it alone.
*/
#include "nosqlInt.h"

#include <stdint.h>
#include <stdlib.h>

/*
** The span hi - lo is taken in unsigned arithmetic: labels read from a
** damaged table may be anywhere in int64, and the difference of two of them
** overflows int64 (INT64_MIN labels, say). The results stay in [lo, hi].
*/
int64_t nsetStep(int64_t lo, int64_t hi, int64_t nLabel) {
  uint64_t span, d;
  if (nLabel <= 0 || hi <= lo || nLabel > INT64_MAX - NSET_SLACK) return 0;
  span = (uint64_t)hi - (uint64_t)lo;
  d = span / (uint64_t)(nLabel + NSET_SLACK);
  if (d == 0) d = span / ((uint64_t)nLabel + 1);
  if (d > NSET_STEP) d = NSET_STEP;
  return (int64_t)d;
}

int64_t nsetPlace(int64_t lo, int64_t hi, int64_t nLabel, int bHigh, int64_t *pd) {
  int64_t d = nsetStep(lo, hi, nLabel);
  *pd = d;
  if (d == 0) return 0;
  /* nLabel * d <= hi - lo, so both results lie in [lo, hi]. */
  return bHigh ? (int64_t)((uint64_t)hi - (uint64_t)nLabel * (uint64_t)d)
               : (int64_t)((uint64_t)lo + (uint64_t)d);
}

int nsetWindowOk(int nBits, int64_t nLabel) {
  int64_t nSize = (int64_t)1 << nBits;
  int64_t nGap = (int64_t)1 << (nBits / 2);
  return nSize / (nLabel + 1) >= nGap;
}

void nsetSpread(int64_t iFirst, int64_t iEnd, int64_t nLabel, int64_t iHole, int64_t nHole, int64_t *aLabel) {
  int64_t d = (iEnd - iFirst) / (nLabel + nHole + 1);
  int64_t i;
  for (i = 0; i < nLabel; i++) {
    int64_t iSlot = i < iHole ? i : i + nHole;
    aLabel[i] = iFirst + (iSlot + 1) * d;
  }
}

/* Order of NsetKey: by id. */
static int nsetKeyCmp(const void *a, const void *b) {
  int64_t x = ((const NsetKey *)a)->id, y = ((const NsetKey *)b)->id;
  return x < y ? -1 : x > y;
}

/* Index of id in the sorted keys, or -1. */
static int64_t nsetKeyFind(const NsetKey *aKey, int64_t n, int64_t id) {
  int64_t lo = 0, hi = n - 1;
  while (lo <= hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (aKey[mid].id == id) return aKey[mid].iNode;
    if (aKey[mid].id < id)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

int nsetBuild(NsetBuild *p) {
  int64_t n = p->n;
  int64_t i, k = 0, nSeen = 0;
  int64_t iRoot = -1;
  int64_t gap = NSET_GAP;
  if (n > 0 && (NSET_LABEL_END - 1) / (2 * n + 1) < gap) gap = (NSET_LABEL_END - 1) / (2 * n + 1);

  for (i = 0; i < n; i++) {
    p->aKey[i].id = p->aId[i];
    p->aKey[i].iNode = i;
  }
  qsort(p->aKey, (size_t)n, sizeof(NsetKey), nsetKeyCmp);
  for (i = 1; i < n; i++) {
    if (p->aKey[i].id == p->aKey[i - 1].id) {
      p->iErrId = p->aKey[i].id;
      return NSET_BUILD_DUPLICATE;
    }
  }
  for (i = 0; i < n; i++) {
    p->aFirst[i] = -1;
    p->aNext[i] = -1;
    p->aLft[i] = 0;
    if (p->aRoot[i]) {
      p->aPar[i] = -1;
    } else {
      p->aPar[i] = nsetKeyFind(p->aKey, n, p->aParent[i]);
      if (p->aPar[i] < 0) {
        p->iErrId = p->aId[i];
        p->iErrParent = p->aParent[i];
        return NSET_BUILD_ORPHAN;
      }
    }
  }
  /* Prepending while walking backwards keeps siblings in input order. */
  for (i = n - 1; i >= 0; i--) {
    if (p->aPar[i] < 0) {
      p->aNext[i] = iRoot;
      iRoot = i;
    } else {
      p->aNext[i] = p->aFirst[p->aPar[i]];
      p->aFirst[p->aPar[i]] = i;
    }
  }
  /* Depth-first walk along the first-child, next-sibling and parent links. */
  for (; iRoot >= 0; iRoot = p->aNext[iRoot]) {
    int64_t x = iRoot, iDepth = 0;
    p->aLft[x] = ++k * gap;
    p->aDepth[x] = 0;
    p->aPre[nSeen++] = x;
    for (;;) {
      if (p->aFirst[x] >= 0) {
        x = p->aFirst[x];
        iDepth++;
      } else {
        for (;;) {
          p->aRgt[x] = ++k * gap;
          p->aLeaf[x] = p->aFirst[x] < 0;
          if (x == iRoot || p->aNext[x] >= 0) break;
          x = p->aPar[x];
          iDepth--;
        }
        if (x == iRoot) break;
        x = p->aNext[x];
      }
      p->aLft[x] = ++k * gap;
      p->aDepth[x] = iDepth;
      p->aPre[nSeen++] = x;
    }
  }
  if (nSeen < n) {
    /* Unreached nodes hang off a cycle: walk up from the unreached node with
    ** the smallest id, marking with aRgt = -1, until a node repeats. That node
    ** is on the cycle; report the smallest id on it. */
    int64_t x = -1, y, iBest;
    for (i = 0; i < n; i++) {
      if (p->aLft[p->aKey[i].iNode] == 0) {
        x = p->aKey[i].iNode;
        break;
      }
    }
    while (p->aRgt[x] != -1) {
      p->aRgt[x] = -1;
      x = p->aPar[x];
    }
    iBest = x;
    for (y = p->aPar[x]; y != x; y = p->aPar[y]) {
      if (p->aId[y] < p->aId[iBest]) iBest = y;
    }
    p->iErrId = p->aId[iBest];
    p->iErrParent = p->aParent[iBest];
    return NSET_BUILD_CYCLE;
  }
  return NSET_BUILD_OK;
}
