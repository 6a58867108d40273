/*
** replay.c: a main() for the fuzz targets without libFuzzer (gcc, plain or
** with ASan). Feeds each file named on the command line, or each file of
** each directory named, to LLVMFuzzerTestOneInput() once, in name order.
** A crash or a sanitizer report ends the program; otherwise it prints
** "N passed, 0 failed" (files replayed). -v names each file first.
*/
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData);

static int replayVerbose; /* -v: print each file name before its run */

/* Replay one file; returns 0, or 1 if it cannot be read. */
static int replayFile(const char *zPath) {
  FILE *f = fopen(zPath, "rb");
  uint8_t *a = NULL;
  long n;
  size_t nRead;
  if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
    fprintf(stderr, "replay: cannot read %s\n", zPath);
    if (f) fclose(f);
    return 1;
  }
  a = (uint8_t *)malloc((size_t)n + 1);
  nRead = a ? fread(a, 1, (size_t)n, f) : 0;
  fclose(f);
  if (a == NULL || nRead != (size_t)n) {
    fprintf(stderr, "replay: cannot read %s\n", zPath);
    free(a);
    return 1;
  }
  if (replayVerbose) printf("replay %s (%ld bytes)\n", zPath, n);
  fflush(stdout);
  LLVMFuzzerTestOneInput(a, (size_t)n);
  free(a);
  return 0;
}

static int replayCmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
  int nPass = 0, nFail = 0, k;
  for (k = 1; k < argc; k++) {
    struct stat st;
    if (strcmp(argv[k], "-v") == 0) {
      replayVerbose = 1;
    } else if (stat(argv[k], &st) == 0 && S_ISDIR(st.st_mode)) {
      DIR *d = opendir(argv[k]);
      struct dirent *e;
      char **az = NULL;
      size_t n = 0, nAlloc = 0, i;
      while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        if (n == nAlloc) {
          nAlloc = nAlloc ? nAlloc * 2 : 64;
          char **azNew = (char **)realloc(az, nAlloc * sizeof(char *));
          if (azNew == NULL) return 2;
          az = azNew;
        }
        az[n] = (char *)malloc(strlen(argv[k]) + strlen(e->d_name) + 2);
        if (az[n] == NULL) return 2;
        sprintf(az[n], "%s/%s", argv[k], e->d_name);
        n++;
      }
      if (d) closedir(d);
      if (n) qsort(az, n, sizeof(char *), replayCmp);
      for (i = 0; i < n; i++) {
        if (replayFile(az[i]))
          nFail++;
        else
          nPass++;
        free(az[i]);
      }
      free(az);
    } else if (replayFile(argv[k])) {
      nFail++;
    } else {
      nPass++;
    }
  }
  printf("%d passed, %d failed\n", nPass, nFail);
  return nFail ? 1 : 0;
}
