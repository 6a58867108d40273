/*
** fanout.h: what the multi-process tests (kv_incr.c, doc_upsert.c) share.
**
** fanoutRun() forks nProc children; child i runs xChild(pArg, nCall, fd),
** which makes nCall calls on its own connection (fanoutOpen()) and hands
** the nCall integers it got back to fanoutDone(), which writes them to the
** pipe fd and ends the process. The parent reads child i's integers into
** aAll[i * nCall ..] and returns 1 when every child sent them all and
** exited with status 0. fanoutCheck() counts and prints "PASS name (mode)"
** or "FAIL name (mode): why"; the program's last line is fanoutSummary().
*/
#ifndef FANOUT_H
#define FANOUT_H

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static int nFanoutPass; /* Checks that held */
static int nFanoutFail; /* Checks that failed */

static void fanoutCheck(int bOk, const char *zName, const char *zMode, const char *zWhy) {
  if (bOk) {
    nFanoutPass++;
    printf("PASS %s (%s)\n", zName, zMode);
  } else {
    nFanoutFail++;
    printf("FAIL %s (%s): %s\n", zName, zMode, zWhy);
  }
}

/* "N passed, N failed" for tests/run.sh; the exit code: 1 on any failure. */
static int fanoutSummary(void) {
  printf("%d passed, %d failed\n", nFanoutPass, nFanoutFail);
  return nFanoutFail ? 1 : 0;
}

static int fanoutCmpInt64(const void *a, const void *b) {
  sqlite3_int64 x = *(const sqlite3_int64 *)a, y = *(const sqlite3_int64 *)b;
  return x < y ? -1 : x > y;
}

/*
** A child's connection to zDb with extension zExt loaded, a 60 s busy
** timeout and synchronous = OFF. SQLITE_OK or an error (*pzErr may be set:
** sqlite3_free()). *pDb is set either way (close it).
*/
static int fanoutOpen(const char *zDb, const char *zExt, sqlite3 **pDb, char **pzErr) {
  int rc = sqlite3_open(zDb, pDb);
  if (rc == SQLITE_OK) rc = sqlite3_enable_load_extension(*pDb, 1);
  if (rc == SQLITE_OK) rc = sqlite3_load_extension(*pDb, zExt, 0, pzErr);
  if (rc == SQLITE_OK) rc = sqlite3_busy_timeout(*pDb, 60000);
  if (rc == SQLITE_OK) rc = sqlite3_exec(*pDb, "PRAGMA synchronous = OFF", 0, 0, 0);
  return rc;
}

/*
** End a child: on rc SQLITE_OK write aOut[0 .. nCall) to fd, else report
** the error (zErr, or db's message) under zName. Frees aOut, closes db
** (finalize its statements first) and exits the process.
*/
static void fanoutDone(sqlite3 *db, int rc, const char *zName, char *zErr, sqlite3_int64 *aOut, int nCall,
                       int fd) {
  size_t nByte = sizeof(sqlite3_int64) * (size_t)nCall;
  if (rc != SQLITE_OK || aOut == NULL) {
    fprintf(stderr, "child %d: %s: %s\n", (int)getpid(), zName, zErr ? zErr : sqlite3_errmsg(db));
    _exit(2);
  }
  if (write(fd, aOut, nByte) != (ssize_t)nByte) _exit(3);
  free(aOut);
  sqlite3_free(zErr);
  sqlite3_close(db);
  _exit(0);
}

static int fanoutRun(int nProc, int nCall, sqlite3_int64 *aAll, void (*xChild)(void *, int, int),
                     void *pArg) {
  pid_t aPid[64];
  int aFd[64], i, ok = 1;
  fflush(stdout);
  for (i = 0; i < nProc; i++) {
    int fd[2];
    if (pipe(fd) != 0) {
      perror("pipe");
      exit(1);
    }
    aPid[i] = fork();
    if (aPid[i] == 0) {
      close(fd[0]);
      xChild(pArg, nCall, fd[1]);
      _exit(4); /* xChild ends with fanoutDone() */
    }
    close(fd[1]);
    aFd[i] = fd[0];
  }
  for (i = 0; i < nProc; i++) {
    size_t nWant = sizeof(sqlite3_int64) * (size_t)nCall, nGot = 0;
    int status = 0;
    while (nGot < nWant) {
      ssize_t n = read(aFd[i], (char *)&aAll[(size_t)i * nCall] + nGot, nWant - nGot);
      if (n <= 0) break;
      nGot += (size_t)n;
    }
    close(aFd[i]);
    waitpid(aPid[i], &status, 0);
    if (nGot != nWant || !WIFEXITED(status) || WEXITSTATUS(status) != 0) ok = 0;
  }
  return ok;
}

#endif /* FANOUT_H */
