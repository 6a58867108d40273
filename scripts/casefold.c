/*
** casefold.c: prints the case-folding table of ext/mpath.c (aMpathFold[]):
** the simple lower-case mapping of every code point above U+007F, as
** towlower() gives it in the C.UTF-8 locale, which is what PostgreSQL's
** ltree folds with ('@') in a database whose LC_CTYPE is C.UTF-8. Runs of
** mappings with one distance and a step of 1 or 2 (upper, lower pairs)
** become one entry.
**
**   gcc -O2 -o /tmp/casefold scripts/casefold.c && /tmp/casefold
**
** The table in ext/mpath.c came from glibc 2.36 (Debian 12).
*/
#include <locale.h>
#include <stdio.h>
#include <wctype.h>

#define CASEFOLD_MAX 4096 /* More mappings than Unicode has */

int main(void) {
  static unsigned aFrom[CASEFOLD_MAX], aTo[CASEFOLD_MAX];
  unsigned c;
  int n = 0, i = 0, nOut = 0;
  if (setlocale(LC_CTYPE, "C.UTF-8") == NULL) {
    fprintf(stderr, "casefold: no C.UTF-8 locale\n");
    return 1;
  }
  for (c = 0x80; c <= 0x10FFFF && n < CASEFOLD_MAX; c++) {
    unsigned l;
    if (c >= 0xD800 && c < 0xE000) continue;
    l = (unsigned)towlower((wint_t)c);
    if (l == c) continue;
    aFrom[n] = c;
    aTo[n++] = l;
  }
  while (i < n) {
    int d = (int)aTo[i] - (int)aFrom[i], j = i + 1, step = 1;
    if (j < n && (int)aTo[j] - (int)aFrom[j] == d && (aFrom[j] - aFrom[i] == 1 || aFrom[j] - aFrom[i] == 2)) {
      step = (int)(aFrom[j] - aFrom[i]);
      while (j < n && (int)aTo[j] - (int)aFrom[j] == d && (int)(aFrom[j] - aFrom[j - 1]) == step) j++;
    }
    printf("%s{0x%04X, 0x%04X, %d, %d},", nOut % 3 ? " " : (nOut ? "\n    " : "    "), aFrom[i], aFrom[j - 1], d,
           step);
    nOut++;
    i = j;
  }
  printf("\n/* %d entries, %d code points */\n", nOut, n);
  return 0;
}
