/*
** test_nested_set.c: unit tests of the pure core of nested_set (ext/nested_set_core.c): the
** label arithmetic (spacing, placement, window density, spreading) and the
** labelling of a whole forest by nsetBuild().
*/
#include <stdlib.h>

#include "nosqlInt.h"
#include "unit.h"

void unitApiInit(void);

static void testStep(void) {
  int64_t d;
  /* A wide gap: capped at NSET_STEP. */
  CHECK_INT(nsetStep(0, NSET_GAP, 2), NSET_STEP);
  /* A medium gap: 1/(n + NSET_SLACK) of it. */
  CHECK_INT(nsetStep(100, 160, 2), 10);
  /* A tight gap: the tightest fit still works. */
  CHECK_INT(nsetStep(10, 13, 2), 1);
  CHECK_INT(nsetStep(10, 15, 2), 1);
  /* No room. */
  CHECK_INT(nsetStep(10, 12, 2), 0);
  CHECK_INT(nsetStep(10, 10, 1), 0);
  CHECK_INT(nsetStep(10, 5, 1), 0);
  CHECK_INT(nsetStep(0, 100, 0), 0);
  /* Labels from a damaged table span all of int64: no signed overflow. */
  CHECK_INT(nsetStep(INT64_MIN, INT64_MAX, 2), NSET_STEP);
  CHECK_INT(nsetStep(INT64_MIN, INT64_MIN + 5, 2), 1);
  CHECK_INT(nsetStep(0, 100, INT64_MAX), 0);
  CHECK_INT(nsetPlace(INT64_MIN, INT64_MAX, 2, 1, &d), INT64_MAX - 2 * NSET_STEP);
  CHECK_INT(nsetPlace(INT64_MIN, INT64_MAX, 2, 0, &d), INT64_MIN + NSET_STEP);
  /* Placement: low end for appends, high end for inserts before a sibling. */
  CHECK_INT(nsetPlace(100, 160, 2, 0, &d), 110);
  CHECK_INT(d, 10);
  CHECK_INT(nsetPlace(100, 160, 2, 1, &d), 140);
  CHECK_INT(d, 10);
  CHECK_INT(nsetPlace(10, 12, 2, 0, &d), 0);
  CHECK_INT(d, 0);
  /* The new labels stay strictly inside the gap. */
  {
    int64_t lo, hi;
    int ok = 1;
    for (lo = 0; lo < 40; lo++) {
      for (hi = lo; hi < 60; hi++) {
        int64_t n, b;
        for (n = 1; n <= 4; n++) {
          for (b = 0; b <= 1; b++) {
            int64_t first = nsetPlace(lo, hi, n, (int)b, &d);
            if (d == 0) {
              if (hi - lo > n) ok = 0;
            } else if (!(first > lo && first + (n - 1) * d < hi)) {
              ok = 0;
            }
          }
        }
      }
    }
    CHECK(ok);
  }
}

static void testWindow(void) {
  /* 2^4 = 16 values need a spacing of 4: at most 3 labels. */
  CHECK(nsetWindowOk(4, 3));
  CHECK(!nsetWindowOk(4, 4));
  /* The whole space holds 2^31 - 1 labels at spacing 2^31. */
  CHECK(nsetWindowOk(62, ((int64_t)1 << 31) - 1));
  CHECK(!nsetWindowOk(62, (int64_t)1 << 31));
  /* A rebuilt tree (spacing NSET_GAP) passes every window. */
  {
    int nBits, ok = 1;
    for (nBits = 4; nBits <= 62; nBits++) {
      int64_t n = ((int64_t)1 << nBits) / NSET_GAP;
      if (!nsetWindowOk(nBits, n)) ok = 0;
    }
    CHECK(ok);
  }
}

static void testSpread(void) {
  int64_t a[4];
  /* 4 labels in [0, 100) with 2 free slots before label 2: step 100/7 = 14. */
  nsetSpread(0, 100, 4, 2, 2, a);
  CHECK_INT(a[0], 14);
  CHECK_INT(a[1], 28);
  CHECK_INT(a[2], 70);
  CHECK_INT(a[3], 84);
  /* The hole at the front. */
  nsetSpread(1000, 1100, 2, 0, 1, a);
  CHECK_INT(a[0], 1050);
  CHECK_INT(a[1], 1075);
  /* The hole at the end: labels keep their order and stay inside. */
  nsetSpread(64, 128, 3, 3, 5, a);
  CHECK(a[0] > 64 && a[0] < a[1] && a[1] < a[2] && a[2] < 128);
  /* Near the top of the label space, no overflow. */
  nsetSpread(NSET_LABEL_END - ((int64_t)1 << 40), NSET_LABEL_END, 4, 4, 0, a);
  CHECK(a[3] < NSET_LABEL_END && a[2] < a[3]);
}

/* A forest of n nodes with the given parents (0 = root); ids are 1..n. */
typedef struct Forest Forest;
struct Forest {
  NsetBuild b; /* The build, arrays owned */
};

static void forestInit(Forest *f, int64_t n, const int64_t *aId, const int64_t *aParent) {
  int64_t i;
  memset(f, 0, sizeof(*f));
  f->b.n = n;
  f->b.aId = (int64_t *)malloc(sizeof(int64_t) * (size_t)n);
  f->b.aParent = (int64_t *)malloc(sizeof(int64_t) * (size_t)n);
  f->b.aRoot = (unsigned char *)malloc((size_t)n);
  f->b.aLft = (int64_t *)malloc(sizeof(int64_t) * (size_t)n);
  f->b.aRgt = (int64_t *)malloc(sizeof(int64_t) * (size_t)n);
  f->b.aDepth = (int64_t *)malloc(sizeof(int64_t) * (size_t)n);
  f->b.aLeaf = (unsigned char *)malloc((size_t)n);
  f->b.aPre = (int64_t *)malloc(sizeof(int64_t) * (size_t)n);
  f->b.aPar = (int64_t *)malloc(sizeof(int64_t) * (size_t)n);
  f->b.aFirst = (int64_t *)malloc(sizeof(int64_t) * (size_t)n);
  f->b.aNext = (int64_t *)malloc(sizeof(int64_t) * (size_t)n);
  f->b.aKey = (NsetKey *)malloc(sizeof(NsetKey) * (size_t)n);
  for (i = 0; i < n; i++) {
    f->b.aId[i] = aId[i];
    f->b.aParent[i] = aParent[i];
    f->b.aRoot[i] = aParent[i] == 0;
  }
}

static void forestFree(Forest *f) {
  free(f->b.aId);
  free(f->b.aParent);
  free(f->b.aRoot);
  free(f->b.aLft);
  free(f->b.aRgt);
  free(f->b.aDepth);
  free(f->b.aLeaf);
  free(f->b.aPre);
  free(f->b.aPar);
  free(f->b.aFirst);
  free(f->b.aNext);
  free(f->b.aKey);
}

static void testBuild(void) {
  /*    10          40
  **   /  \         |
  **  30   20       50
  **  |
  **  60            (siblings in input order: 30 before 20) */
  static const int64_t aId[] = {10, 30, 20, 40, 50, 60};
  static const int64_t aParent[] = {0, 10, 10, 0, 40, 30};
  Forest f;
  forestInit(&f, 6, aId, aParent);
  CHECK_INT(nsetBuild(&f.b), NSET_BUILD_OK);
  /* Euler tour: 10( 30( 60() ) 20() ) 40( 50() ), labels k * NSET_GAP. */
  CHECK_INT(f.b.aLft[0], 1 * NSET_GAP);
  CHECK_INT(f.b.aRgt[0], 8 * NSET_GAP);
  CHECK_INT(f.b.aLft[1], 2 * NSET_GAP);
  CHECK_INT(f.b.aRgt[1], 5 * NSET_GAP);
  CHECK_INT(f.b.aLft[5], 3 * NSET_GAP);
  CHECK_INT(f.b.aRgt[5], 4 * NSET_GAP);
  CHECK_INT(f.b.aLft[2], 6 * NSET_GAP);
  CHECK_INT(f.b.aRgt[2], 7 * NSET_GAP);
  CHECK_INT(f.b.aLft[3], 9 * NSET_GAP);
  CHECK_INT(f.b.aRgt[4], 11 * NSET_GAP);
  CHECK_INT(f.b.aDepth[5], 2);
  CHECK_INT(f.b.aDepth[3], 0);
  CHECK_INT(f.b.aLeaf[0], 0);
  CHECK_INT(f.b.aLeaf[2], 1);
  CHECK_INT(f.b.aLeaf[5], 1);
  /* Preorder: 10 30 60 20 40 50. */
  CHECK_INT(f.b.aId[f.b.aPre[0]], 10);
  CHECK_INT(f.b.aId[f.b.aPre[1]], 30);
  CHECK_INT(f.b.aId[f.b.aPre[2]], 60);
  CHECK_INT(f.b.aId[f.b.aPre[3]], 20);
  CHECK_INT(f.b.aId[f.b.aPre[4]], 40);
  CHECK_INT(f.b.aId[f.b.aPre[5]], 50);
  forestFree(&f);
}

static void testBuildErrors(void) {
  Forest f;
  {
    static const int64_t aId[] = {1, 2, 2};
    static const int64_t aParent[] = {0, 1, 1};
    forestInit(&f, 3, aId, aParent);
    CHECK_INT(nsetBuild(&f.b), NSET_BUILD_DUPLICATE);
    CHECK_INT(f.b.iErrId, 2);
    forestFree(&f);
  }
  {
    static const int64_t aId[] = {1, 2, 3};
    static const int64_t aParent[] = {0, 1, 9};
    forestInit(&f, 3, aId, aParent);
    CHECK_INT(nsetBuild(&f.b), NSET_BUILD_ORPHAN);
    CHECK_INT(f.b.iErrId, 3);
    CHECK_INT(f.b.iErrParent, 9);
    forestFree(&f);
  }
  {
    /* 1 is a root; 5 -> 7 -> 6 -> 5 is a cycle with 4 and 8 hanging off it. */
    static const int64_t aId[] = {1, 8, 7, 6, 5, 4};
    static const int64_t aParent[] = {0, 7, 6, 5, 7, 5};
    forestInit(&f, 6, aId, aParent);
    CHECK_INT(nsetBuild(&f.b), NSET_BUILD_CYCLE);
    CHECK_INT(f.b.iErrId, 5);
    CHECK_INT(f.b.iErrParent, 7);
    forestFree(&f);
  }
  {
    /* A node that is its own parent. */
    static const int64_t aId[] = {3};
    static const int64_t aParent[] = {3};
    forestInit(&f, 1, aId, aParent);
    CHECK_INT(nsetBuild(&f.b), NSET_BUILD_CYCLE);
    CHECK_INT(f.b.iErrId, 3);
    forestFree(&f);
  }
}

/* A deep chain and a wide star: labels nest and stay in range. */
static void testBuildShapes(void) {
  int64_t n = 20000, i;
  int64_t *aId = (int64_t *)malloc(sizeof(int64_t) * (size_t)n);
  int64_t *aParent = (int64_t *)malloc(sizeof(int64_t) * (size_t)n);
  Forest f;
  int ok = 1;
  for (i = 0; i < n; i++) {
    aId[i] = i + 1;
    aParent[i] = i;
  }
  forestInit(&f, n, aId, aParent);
  CHECK_INT(nsetBuild(&f.b), NSET_BUILD_OK);
  for (i = 1; i < n; i++) {
    if (!(f.b.aLft[i - 1] < f.b.aLft[i] && f.b.aRgt[i] < f.b.aRgt[i - 1] && f.b.aDepth[i] == i)) ok = 0;
  }
  CHECK(ok);
  CHECK_INT(f.b.aLeaf[n - 1], 1);
  forestFree(&f);
  for (i = 0; i < n; i++) aParent[i] = i == 0 ? 0 : 1;
  forestInit(&f, n, aId, aParent);
  CHECK_INT(nsetBuild(&f.b), NSET_BUILD_OK);
  ok = 1;
  for (i = 2; i < n; i++) {
    if (!(f.b.aRgt[i - 1] < f.b.aLft[i] && f.b.aRgt[i] < f.b.aRgt[0] && f.b.aDepth[i] == 1)) ok = 0;
  }
  CHECK(ok);
  CHECK(f.b.aRgt[0] < NSET_LABEL_END);
  forestFree(&f);
  free(aId);
  free(aParent);
}

int main(void) {
  unitApiInit();
  RUN(testStep);
  RUN(testWindow);
  RUN(testSpread);
  RUN(testBuild);
  RUN(testBuildErrors);
  RUN(testBuildShapes);
  return unitReport();
}
