/*
** unit.h: the C unit-test harness of the pure cores. One test program per
** tests/unit/test_<feature>.c; each is its own main():
**
**   #include "unit.h"
**   static void testSomething(void) { CHECK(1 + 1 == 2); CHECK_STR(z, "ezs42"); }
**   int main(void) { RUN(testSomething); return unitReport(); }
**
** A failed check prints file:line and the expression and the test goes on.
** unitReport() prints "N passed, N failed" (checks) and returns the exit code.
*/
#ifndef NOSQL_UNIT_H
#define NOSQL_UNIT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int unitPass; /* Checks that held */
static int unitFail; /* Checks that failed */

/* splitmix64: the seeded random numbers of the randomized tests (*p is the state). */
static inline uint64_t unitRand(uint64_t *p) {
  uint64_t z = (*p += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

#define CHECK(expr)                                                 \
  do {                                                              \
    if (expr) {                                                     \
      unitPass++;                                                   \
    } else {                                                        \
      unitFail++;                                                   \
      printf("FAIL %s:%d: CHECK(%s)\n", __FILE__, __LINE__, #expr); \
    }                                                               \
  } while (0)

#define CHECK_INT(actual, expected)                                                                 \
  do {                                                                                              \
    long long unitA = (long long)(actual), unitE = (long long)(expected);                           \
    if (unitA == unitE) {                                                                           \
      unitPass++;                                                                                   \
    } else {                                                                                        \
      unitFail++;                                                                                   \
      printf("FAIL %s:%d: %s is %lld, expected %lld\n", __FILE__, __LINE__, #actual, unitA, unitE); \
    }                                                                                               \
  } while (0)

#define CHECK_STR(actual, expected)                                                      \
  do {                                                                                   \
    const char *unitA = (actual), *unitE = (expected);                                   \
    if (unitA && unitE && strcmp(unitA, unitE) == 0) {                                   \
      unitPass++;                                                                        \
    } else {                                                                             \
      unitFail++;                                                                        \
      printf("FAIL %s:%d: %s is \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #actual, \
             unitA ? unitA : "(null)", unitE ? unitE : "(null)");                        \
    }                                                                                    \
  } while (0)

#define RUN(fn) \
  do {          \
    fn();       \
  } while (0)

static int unitReport(void) {
  printf("%d passed, %d failed\n", unitPass, unitFail);
  return unitFail ? 1 : 0;
}

#endif /* NOSQL_UNIT_H */
