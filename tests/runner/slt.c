/*
** slt.c: the sqllogictest runner of the nosql project.
**
** It links the system libsqlite3 and loads the extension through
** sqlite3_load_extension(), the path users take. Usage:
**
**   slt [--ext PATH] [--rewrite] [--verbose] [--slt-compat] FILE.test...
**   slt [--ext PATH] --docs DIR
**
** The file format is SQLite's sqllogictest as DuckDB extends it; the
** project's additions are marked (nosql). Records are separated by blank
** lines; '#' starts a comment line.
**
**   statement ok                  the SQL (one or more lines) must succeed
**   statement error [text]        the SQL must fail; the message must
**                                 contain the text after "error" on that
**                                 line (nosql), if any, and the text after
**                                 an optional "----" line, if any
**   query <types> [sort] [label]  <types> has one letter per column: I
**                                 integer, T text, R real (printed "%.3f");
**                                 sort is nosort (default), rowsort or
**                                 valuesort. After "----" come the values,
**                                 one per line or tab-separated by row;
**                                 NULL prints as NULL and '' as (empty).
**                                 Above the hash threshold the result is
**                                 "N values hashing to <md5>". Queries that
**                                 share a label must give the same result
**                                 (every label of the file is checked, as
**                                 SQLite's runner does; there is no limit).
**                                 A query whose SQL fails, at prepare or
**                                 while stepping, fails the record (see
**                                 --slt-compat for the reference's rule).
**   hash-threshold N              hash results with more than N values
**   skipif X / onlyif X           condition on the next record; X is an
**                                 engine name (sqlite, nosql), "asan"
**                                 when the runner runs under sanitizers,
**                                 (nosql) sqlite>=A.B.C / sqlite<A.B.C
**                                 on the host's SQLite version, or
**                                 (nosql) os=linux / os=windows /
**                                 os=macos: the system the runner was
**                                 built for, or arch=x64 / arch=arm64:
**                                 its processor (records that need what
**                                 another platform lacks or computes
**                                 otherwise: docs/ARCHITECTURE.md)
**   EXPLAIN QUERY PLAN queries    (nosql) with 4 columns, rows compare as
**                                 (depth in the plan tree, 0, 0, detail):
**                                 ids and the "notused" column move
**                                 between SQLite versions, plans do not
**   halt                          stop reading the file
**   require M                     (nosql) skip the rest of the file unless
**                                 module or compile option M is present
**   open NAME                     (nosql) close every connection; from now
**                                 on connections open the on-disk database
**                                 NAME in a temporary directory private to
**                                 this file (":memory:" goes back)
**   reopen                        (nosql) close every connection; the next
**                                 record reopens the same database
**   connection NAME               (nosql) run the next records on the
**                                 connection NAME ("default" at the start),
**                                 opening it on the current database
**   defensive on|off              (nosql) SQLITE_DBCONFIG_DEFENSIVE on the
**                                 current connection (shadow tables become
**                                 read-only to ordinary SQL)
**
** --rewrite writes FILE.test.new with the actual results of every query in
** place of the expected ones. An answer filled in that way must be checked
** by hand or against the relational equivalent before it is committed.
**
** --slt-compat applies the rule of SQLite's own runner to a query that fails
** while stepping: the rows returned before the error are its result (none
** when the first step fails), and the record passes if they are the
** expected ones. Without it (the default) such a query fails the record
** with the error shown, since an error half-way through a result is nearly
** always a bug the test should see. A query that fails to prepare fails the
** record in both modes, as in the reference.
**
** --docs DIR checks the reference: every function and module that the
** extension registers (pragma_function_list and pragma_module_list, minus
** SQLite's own) has a heading "### `name...`" in a .md file of DIR, every
** such heading names something registered, and every ```sql block of those
** files runs with the output its "--> " lines show (rows with columns joined
** by '|'; "--> error: TEXT" for an expected error). Each .md file gets its
** own connection. DIR/functions.md, the one-page index, must list every
** registered name and nothing else, one table row each:
**
**   | [`name(args)`](page.md#anchor) | what it does, in one line |
**
** where page.md#anchor is the page's "### `name..." heading (the anchor as
** GitHub derives it from the heading's text).
**
** The last line printed is "N passed, N failed, N skipped"; the exit code
** is 1 when anything failed.
*/
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(_WIN32)
#include <direct.h>
#include <fcntl.h>
#include <io.h>
#endif

#include <sqlite3.h>

#include "md5.h"

/*
** What differs on Windows (mingw-w64): mkdir() takes no mode, there is no
** mkdtemp(), temporary files live under %TEMP%, and stdout must be binary
** so that lines end in "\n" as on the other systems.
*/
#if defined(_WIN32)
#define SLT_OS "windows"
#define sltMkdir(z) _mkdir(z)
static char *sltMkdtemp(char *zTmpl) {
  if (_mktemp(zTmpl) == NULL || _mkdir(zTmpl) != 0) return NULL;
  return zTmpl;
}
#else
#if defined(__APPLE__)
#define SLT_OS "macos"
#elif defined(__linux__)
#define SLT_OS "linux"
#else
#define SLT_OS "other"
#endif
#define sltMkdir(z) mkdir(z, 0700)
#define sltMkdtemp(z) mkdtemp(z)
#endif
#if defined(__x86_64__) || defined(_M_X64)
#define SLT_ARCH "x64"
#elif defined(__aarch64__) || defined(_M_ARM64)
#define SLT_ARCH "arm64"
#else
#define SLT_ARCH "other"
#endif

#define SLT_MAX_CONN 16 /* Named connections per file */
#define SLT_SHOW_MAX 40 /* Result lines shown in a diagnostic */

typedef struct Runner Runner;
typedef struct SltFile SltFile;
typedef struct SltConn SltConn;
typedef struct SltResult SltResult;
typedef struct SltLabel SltLabel;

/* Totals and options of one run of the program. */
struct Runner {
  const char *zExt; /* Extension to load into every connection */
  int bRewrite;     /* True to write FILE.new with actual results */
  int bVerbose;     /* True to print every record as it runs */
  int bSltCompat;   /* True: a query's step error ends its result (--slt-compat) */
  int bAsan;        /* True when built with sanitizers ("asan" condition) */
  char *zTmpRoot;   /* Private temporary directory of this process */
  int nFileSeq;     /* Files run so far, names their temp directories */
  int nPass;        /* Records that passed */
  int nFail;        /* Records that failed */
  int nSkip;        /* Records or files skipped */
};

/* One named connection of a file. */
struct SltConn {
  char *zName; /* Name given by "connection NAME" */
  sqlite3 *db; /* Open handle, or NULL until first use */
};

/* The value of a labelled query, compared across queries. */
struct SltLabel {
  char *zLabel;   /* The label */
  char zHash[33]; /* md5 of its values */
  int nValue;     /* Number of values */
};

/* The state of the file being run. */
struct SltFile {
  Runner *pRun;                /* The run this file belongs to */
  const char *zPath;           /* File name, for diagnostics */
  char **azLine;               /* Lines of the file, NUL-terminated */
  int nLine;                   /* Number of lines */
  char *zDir;                  /* Temp directory for "open", or NULL */
  char *zDb;                   /* Database of new connections */
  SltConn aConn[SLT_MAX_CONN]; /* Named connections */
  int nConn;                   /* Used entries of aConn[] */
  int iConn;                   /* Current connection */
  int nHashThreshold;          /* 0: never hash */
  SltLabel *aLabel;            /* Labels seen so far: open-addressed hash */
  int nLabelSlot;              /* Slots of aLabel[]: 0 or a power of two */
  int nLabel;                  /* Used slots of aLabel[] */
  FILE *pOut;                  /* --rewrite output, or NULL */
};

/* The rendered values of a query, row-major. */
struct SltResult {
  char **azVal; /* nRow*nCol values, each malloc'ed */
  int nVal;     /* Values stored */
  int nAlloc;   /* Allocated slots */
  int nCol;     /* Columns per row */
};

/*************************************************************************
** Small utilities.
*/

static void *sltMalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (p == NULL) {
    fprintf(stderr, "slt: out of memory\n");
    exit(2);
  }
  return p;
}

static char *sltStrdup(const char *z) {
  size_t n = strlen(z);
  char *zNew = (char *)sltMalloc(n + 1);
  memcpy(zNew, z, n + 1);
  return zNew;
}

static char *sltMprintf(const char *zFmt, ...) {
  va_list ap;
  char *z;
  char *zCopy;
  va_start(ap, zFmt);
  z = sqlite3_vmprintf(zFmt, ap);
  va_end(ap);
  if (z == NULL) {
    fprintf(stderr, "slt: out of memory\n");
    exit(2);
  }
  zCopy = sltStrdup(z);
  sqlite3_free(z);
  return zCopy;
}

static int sltStartsWith(const char *z, const char *zPrefix) {
  return strncmp(z, zPrefix, strlen(zPrefix)) == 0;
}

/* Split zLine into at most nMax whitespace-separated tokens, in place. */
static int sltTokens(char *zLine, char **azTok, int nMax) {
  int n = 0;
  char *z = zLine;
  while (*z && n < nMax) {
    while (*z == ' ' || *z == '\t') z++;
    if (*z == 0) break;
    azTok[n++] = z;
    while (*z && *z != ' ' && *z != '\t') z++;
    if (*z) *z++ = 0;
  }
  return n;
}

static void resultAdd(SltResult *p, char *zVal) {
  if (p->nVal == p->nAlloc) {
    p->nAlloc = p->nAlloc ? p->nAlloc * 2 : 64;
    p->azVal = (char **)realloc(p->azVal, sizeof(char *) * (size_t)p->nAlloc);
    if (p->azVal == NULL) {
      fprintf(stderr, "slt: out of memory\n");
      exit(2);
    }
  }
  p->azVal[p->nVal++] = zVal;
}

static void resultFree(SltResult *p) {
  int i;
  for (i = 0; i < p->nVal; i++) free(p->azVal[i]);
  free(p->azVal);
  memset(p, 0, sizeof(*p));
}

/* Remove a directory and the files directly inside it. */
static void sltRemoveDir(const char *zDir) {
  DIR *pDir = opendir(zDir);
  struct dirent *pEnt;
  if (pDir == NULL) return;
  while ((pEnt = readdir(pDir)) != NULL) {
    char *zPath;
    if (strcmp(pEnt->d_name, ".") == 0 || strcmp(pEnt->d_name, "..") == 0) continue;
    zPath = sltMprintf("%s/%s", zDir, pEnt->d_name);
    if (unlink(zPath) != 0) sltRemoveDir(zPath);
    free(zPath);
  }
  closedir(pDir);
  rmdir(zDir);
}

/* Read a whole file into a NUL-terminated buffer (caller frees). */
static char *sltReadFile(const char *zPath) {
  FILE *in = fopen(zPath, "rb");
  long n;
  char *z;
  if (in == NULL) return NULL;
  fseek(in, 0, SEEK_END);
  n = ftell(in);
  fseek(in, 0, SEEK_SET);
  z = (char *)sltMalloc((size_t)n + 1);
  if (fread(z, 1, (size_t)n, in) != (size_t)n) {
    fclose(in);
    free(z);
    return NULL;
  }
  z[n] = 0;
  fclose(in);
  return z;
}

/* Split a buffer into lines in place, dropping trailing CR and spaces. */
static char **sltSplitLines(char *zText, int *pnLine) {
  int nAlloc = 256;
  int n = 0;
  char **az = (char **)sltMalloc(sizeof(char *) * (size_t)nAlloc);
  char *z = zText;
  while (*z) {
    char *zEnd = strchr(z, '\n');
    char *zNext;
    if (zEnd) {
      *zEnd = 0;
      zNext = zEnd + 1;
    } else {
      zNext = z + strlen(z);
    }
    {
      size_t len = strlen(z);
      while (len > 0 && (z[len - 1] == '\r' || z[len - 1] == ' ')) z[--len] = 0;
    }
    if (n == nAlloc) {
      nAlloc *= 2;
      az = (char **)realloc(az, sizeof(char *) * (size_t)nAlloc);
      if (az == NULL) exit(2);
    }
    az[n++] = z;
    z = zNext;
  }
  *pnLine = n;
  return az;
}

/*************************************************************************
** Connections.
*/

/* Open a connection on zDb with the extension loaded. */
static sqlite3 *sltOpen(Runner *pRun, const char *zDb, char **pzErr) {
  sqlite3 *db = NULL;
  char *zErr = NULL;
  int rc = sqlite3_open_v2(zDb, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI, 0);
  if (rc != SQLITE_OK) {
    *pzErr = sltMprintf("cannot open %s: %s", zDb, db ? sqlite3_errmsg(db) : "out of memory");
    sqlite3_close(db);
    return NULL;
  }
  if (pRun->zExt) {
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 1, (int *)0);
    rc = sqlite3_load_extension(db, pRun->zExt, 0, &zErr);
    if (rc != SQLITE_OK) {
      *pzErr = sltMprintf("cannot load %s: %s", pRun->zExt, zErr ? zErr : sqlite3_errstr(rc));
      sqlite3_free(zErr);
      sqlite3_close(db);
      return NULL;
    }
  }
  return db;
}

/*
** Close every connection. sqlite3_close() (not _v2) is what hosts call, and
** it fails while a statement is unfinalized: an extension that leaves one
** behind (a cached statement, say) fails the file here.
*/
static void fileCloseAll(SltFile *pF) {
  int i;
  for (i = 0; i < pF->nConn; i++) {
    if (pF->aConn[i].db) {
      if (sqlite3_close(pF->aConn[i].db) != SQLITE_OK) {
        printf("FAIL %s: connection %s did not close: %s\n", pF->zPath, pF->aConn[i].zName,
               sqlite3_errmsg(pF->aConn[i].db));
        pF->pRun->nFail++;
        sqlite3_close_v2(pF->aConn[i].db);
      }
      pF->aConn[i].db = NULL;
    }
  }
}

/* The current connection, opened on first use. NULL and *pzErr on error. */
static sqlite3 *fileDb(SltFile *pF, char **pzErr) {
  SltConn *pC = &pF->aConn[pF->iConn];
  if (pC->db == NULL) pC->db = sltOpen(pF->pRun, pF->zDb, pzErr);
  return pC->db;
}

/*************************************************************************
** Running SQL and rendering values.
*/

/* Render one column value as sqllogictest prints it for type letter c. */
static char *sltRender(sqlite3_stmt *pStmt, int iCol, char c) {
  int eType = sqlite3_column_type(pStmt, iCol);
  if (eType == SQLITE_NULL) return sltStrdup("NULL");
  if (c == 'I') {
    return sltMprintf("%lld", sqlite3_column_int64(pStmt, iCol));
  } else if (c == 'R') {
    return sltMprintf("%.3f", sqlite3_column_double(pStmt, iCol));
  } else {
    const unsigned char *z = sqlite3_column_text(pStmt, iCol);
    int n = sqlite3_column_bytes(pStmt, iCol);
    char *zOut;
    int i;
    if (n == 0) return sltStrdup("(empty)");
    zOut = (char *)sltMalloc((size_t)n + 1);
    /* Control characters print as '@', as in SQLite's runner; bytes of
    ** UTF-8 sequences are kept so that non-ASCII results stay readable. */
    for (i = 0; i < n; i++) zOut[i] = (z[i] < ' ' || z[i] == 0x7f) ? '@' : (char)z[i];
    zOut[n] = 0;
    return zOut;
  }
}

/*
** Run every statement in zSql on db. When pRes is not NULL, the rows of
** statements that return columns are rendered into it with the type
** letters zTypes (NULL: render as text and join columns with '|', one value
** per row, the docs form). Returns SQLITE_OK, or an error code with the
** message in *pzErr (caller frees). With bStepEnds (--slt-compat), an error
** while stepping ends the run with SQLITE_OK and the rows gathered so far,
** as SQLite's runner reads it; errors at prepare are still returned.
*/
static int sltExec(sqlite3 *db, const char *zSql, const char *zTypes, SltResult *pRes, int bStepEnds,
                   char **pzErr) {
  const char *zTail = zSql;
  int rc = SQLITE_OK;
  while (rc == SQLITE_OK && zTail && *zTail) {
    sqlite3_stmt *pStmt = NULL;
    const char *zNext = NULL;
    int nCol;
    rc = sqlite3_prepare_v2(db, zTail, -1, &pStmt, &zNext);
    if (rc != SQLITE_OK) {
      *pzErr = sltStrdup(sqlite3_errmsg(db));
      break;
    }
    zTail = zNext;
    if (pStmt == NULL) continue; /* whitespace or comment */
    nCol = sqlite3_column_count(pStmt);
    if (pRes && zTypes && nCol > 0 && nCol != (int)strlen(zTypes)) {
      *pzErr = sltMprintf("wrong column count: the query declares %d (%s), the statement returns %d",
                          (int)strlen(zTypes), zTypes, nCol);
      sqlite3_finalize(pStmt);
      return SQLITE_MISMATCH;
    }
    while ((rc = sqlite3_step(pStmt)) == SQLITE_ROW) {
      int i;
      if (pRes == NULL) continue;
      if (zTypes) {
        pRes->nCol = nCol;
        for (i = 0; i < nCol; i++) resultAdd(pRes, sltRender(pStmt, i, zTypes[i]));
      } else {
        size_t nTotal = 1;
        char *zRow;
        char **az = (char **)sltMalloc(sizeof(char *) * (size_t)nCol);
        pRes->nCol = 1;
        for (i = 0; i < nCol; i++) {
          const char *z = (const char *)sqlite3_column_text(pStmt, i);
          az[i] = z ? sltStrdup(z) : sltStrdup("NULL");
          nTotal += strlen(az[i]) + 1;
        }
        zRow = (char *)sltMalloc(nTotal);
        zRow[0] = 0;
        for (i = 0; i < nCol; i++) {
          if (i) strcat(zRow, "|");
          strcat(zRow, az[i]);
          free(az[i]);
        }
        free(az);
        resultAdd(pRes, zRow);
      }
    }
    if (rc == SQLITE_DONE) {
      rc = sqlite3_finalize(pStmt);
    } else {
      sqlite3_finalize(pStmt);
    }
    if (rc != SQLITE_OK && bStepEnds) return SQLITE_OK;
    if (rc != SQLITE_OK) *pzErr = sltStrdup(sqlite3_errmsg(db));
  }
  return rc;
}

static int sltCmpStr(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int gnSortCol; /* Columns per row, for sltCmpRow */
static int sltCmpRow(const void *a, const void *b) {
  char *const *pA = *(char **const *)a;
  char *const *pB = *(char **const *)b;
  int i;
  for (i = 0; i < gnSortCol; i++) {
    int c = strcmp(pA[i], pB[i]);
    if (c) return c;
  }
  return 0;
}

/* Sort a result in place: 'r' rowsort, 'v' valuesort, 'n' nosort. */
static void resultSort(SltResult *p, char eSort) {
  if (eSort == 'v') {
    qsort(p->azVal, (size_t)p->nVal, sizeof(char *), sltCmpStr);
  } else if (eSort == 'r' && p->nCol > 0) {
    int nRow = p->nVal / p->nCol;
    char ***aRow = (char ***)sltMalloc(sizeof(char **) * (size_t)nRow);
    char **azNew = (char **)sltMalloc(sizeof(char *) * (size_t)(p->nVal ? p->nVal : 1));
    int i;
    for (i = 0; i < nRow; i++) aRow[i] = &p->azVal[i * p->nCol];
    gnSortCol = p->nCol;
    qsort(aRow, (size_t)nRow, sizeof(char **), sltCmpRow);
    for (i = 0; i < nRow; i++) memcpy(&azNew[i * p->nCol], aRow[i], sizeof(char *) * (size_t)p->nCol);
    free(aRow);
    free(p->azVal);
    p->azVal = azNew;
    p->nAlloc = p->nVal ? p->nVal : 1;
  }
}

static void resultHash(const SltResult *p, char zHash[33]) {
  Md5 m;
  int i;
  md5Init(&m);
  for (i = 0; i < p->nVal; i++) {
    md5Update(&m, p->azVal[i], strlen(p->azVal[i]));
    md5Update(&m, "\n", 1);
  }
  md5FinalHex(&m, zHash);
}

/*************************************************************************
** Diagnostics.
*/

static void sltFailHeader(SltFile *pF, int iLine, const char *zWhat, const char *zSql) {
  pF->pRun->nFail++;
  printf("FAIL %s:%d: %s\n", pF->zPath, iLine + 1, zWhat);
  printf("  sql:      %s\n", zSql);
}

/* Print up to SLT_SHOW_MAX lines of a result, one row per line. */
static void sltShowValues(const char *zLabel, char **azVal, int nVal, int nCol) {
  int i;
  int nShown = 0;
  printf("  %-9s ", zLabel);
  if (nVal == 0) printf("(no rows)");
  for (i = 0; i < nVal; i++) {
    if (nCol > 0 && i % nCol == 0 && i > 0) {
      if (++nShown >= SLT_SHOW_MAX) {
        printf("\n            ... (%d values in all)", nVal);
        break;
      }
      printf("\n            ");
    } else if (i > 0) {
      printf("\t");
    }
    printf("%s", azVal[i]);
  }
  printf("\n");
}

/*************************************************************************
** Records.
*/

/* Join lines [iFirst, iLast) with newlines into a new string. */
static char *sltJoin(char **azLine, int iFirst, int iLast) {
  size_t n = 1;
  int i;
  char *z;
  for (i = iFirst; i < iLast; i++) n += strlen(azLine[i]) + 1;
  z = (char *)sltMalloc(n);
  z[0] = 0;
  for (i = iFirst; i < iLast; i++) {
    if (i > iFirst) strcat(z, "\n");
    strcat(z, azLine[i]);
  }
  return z;
}

/* Index of the first line at or after i that is blank or "----". */
static int sltSqlEnd(SltFile *pF, int i) {
  while (i < pF->nLine && pF->azLine[i][0] != 0 && strcmp(pF->azLine[i], "----") != 0) i++;
  return i;
}

/* Index of the first blank line at or after i. */
static int sltBlockEnd(SltFile *pF, int i) {
  while (i < pF->nLine && pF->azLine[i][0] != 0) i++;
  return i;
}

static void sltEcho(SltFile *pF, int iFirst, int iLast) {
  int i;
  if (pF->pOut == NULL) return;
  for (i = iFirst; i < iLast; i++) fprintf(pF->pOut, "%s\n", pF->azLine[i]);
}

/* "statement ok" or "statement error"; returns the line after the record. */
static int sltStatement(SltFile *pF, int iLine, const char *zMode, int bSkip) {
  int iSql = iLine + 1;
  int iSqlEnd = sltSqlEnd(pF, iSql);
  int iEnd = sltBlockEnd(pF, iSqlEnd);
  int bError = strcmp(zMode, "error") == 0;
  char *zSql;
  char *zErr = NULL;
  char *zExpect = NULL;
  char *zInline = NULL;
  sqlite3 *db;
  int rc;

  sltEcho(pF, iLine, iEnd);
  if (bSkip) {
    pF->pRun->nSkip++;
    return iEnd;
  }
  zSql = sltJoin(pF->azLine, iSql, iSqlEnd);
  if (!bError && strcmp(zMode, "ok") != 0) {
    sltFailHeader(pF, iLine, "unknown statement mode (expected ok or error)", zSql);
    free(zSql);
    return iEnd;
  }
  if (iSqlEnd < iEnd) zExpect = sltJoin(pF->azLine, iSqlEnd + 1, iEnd);
  if (bError) {
    /* "statement error <text>": the text after the word error. */
    const char *z = strstr(pF->azLine[iLine], "error") + 5;
    while (*z == ' ' || *z == '\t') z++;
    if (*z) zInline = sltStrdup(z);
  }
  if (pF->pRun->bVerbose) printf("%s:%d: statement %s\n", pF->zPath, iLine + 1, zMode);
  db = fileDb(pF, &zErr);
  rc = db ? sltExec(db, zSql, NULL, NULL, 0, &zErr) : SQLITE_CANTOPEN;
  if (!bError && rc != SQLITE_OK) {
    sltFailHeader(pF, iLine, "statement failed", zSql);
    printf("  expected: success\n  actual:   error: %s\n", zErr ? zErr : sqlite3_errstr(rc));
  } else if (bError && rc == SQLITE_OK) {
    sltFailHeader(pF, iLine, "statement succeeded but an error was expected", zSql);
    printf("  expected: error%s%s\n  actual:   success\n", zExpect ? ": " : "", zExpect ? zExpect : "");
  } else if (bError && zExpect && (zErr == NULL || strstr(zErr, zExpect) == NULL)) {
    sltFailHeader(pF, iLine, "wrong error message", zSql);
    printf("  expected: error containing: %s\n  actual:   error: %s\n", zExpect, zErr ? zErr : "(none)");
  } else if (bError && zInline && (zErr == NULL || strstr(zErr, zInline) == NULL)) {
    sltFailHeader(pF, iLine, "wrong error message", zSql);
    printf("  expected: error containing: %s\n  actual:   error: %s\n", zInline, zErr ? zErr : "(none)");
  } else {
    pF->pRun->nPass++;
  }
  free(zErr);
  free(zExpect);
  free(zInline);
  free(zSql);
  return iEnd;
}

/* The expected values of a query: tab-separated fields of each line. */
static void sltExpected(SltFile *pF, int iFirst, int iLast, SltResult *pExp) {
  int i;
  for (i = iFirst; i < iLast; i++) {
    char *z = pF->azLine[i];
    for (;;) {
      char *zTab = strchr(z, '\t');
      size_t n = zTab ? (size_t)(zTab - z) : strlen(z);
      char *zVal = (char *)sltMalloc(n + 1);
      memcpy(zVal, z, n);
      zVal[n] = 0;
      resultAdd(pExp, zVal);
      if (zTab == NULL) break;
      z = zTab + 1;
    }
  }
}

/* Returns the value count if zLine reads "N values hashing to H", else -1. */
static int sltHashLine(const char *zLine, char zHash[33]) {
  int n = 0;
  char zH[64];
  if (sscanf(zLine, "%d values hashing to %63s", &n, zH) != 2 || strlen(zH) != 32) return -1;
  memcpy(zHash, zH, 33);
  return n;
}

/* FNV-1a hash of a label, to place it in SltFile.aLabel[]. */
static unsigned int sltLabelHash(const char *z) {
  unsigned int h = 2166136261u;
  while (*z) h = (h ^ (unsigned char)*z++) * 16777619u;
  return h;
}

/* The slot of zLabel in aLabel[] (nSlot a power of two): its entry, or the
** empty slot where it belongs. */
static SltLabel *sltLabelSlot(SltLabel *aLabel, int nSlot, const char *zLabel) {
  unsigned int i = sltLabelHash(zLabel) & (unsigned int)(nSlot - 1);
  while (aLabel[i].zLabel && strcmp(aLabel[i].zLabel, zLabel) != 0) i = (i + 1) & (unsigned int)(nSlot - 1);
  return &aLabel[i];
}

/*
** Check a labelled result against earlier queries with the same label;
** the first query with a label records its result. Every label of a file is
** kept (the table doubles at half full), so none goes unchecked.
*/
static int sltCheckLabel(SltFile *pF, const char *zLabel, const char *zHash, int nValue) {
  SltLabel *p;
  if (2 * (pF->nLabel + 1) > pF->nLabelSlot) {
    int nNew = pF->nLabelSlot ? 2 * pF->nLabelSlot : 64;
    SltLabel *aNew = (SltLabel *)sltMalloc(sizeof(SltLabel) * (size_t)nNew);
    int i;
    memset(aNew, 0, sizeof(SltLabel) * (size_t)nNew);
    for (i = 0; i < pF->nLabelSlot; i++) {
      if (pF->aLabel[i].zLabel) *sltLabelSlot(aNew, nNew, pF->aLabel[i].zLabel) = pF->aLabel[i];
    }
    free(pF->aLabel);
    pF->aLabel = aNew;
    pF->nLabelSlot = nNew;
  }
  p = sltLabelSlot(pF->aLabel, pF->nLabelSlot, zLabel);
  if (p->zLabel) return strcmp(p->zHash, zHash) == 0 && p->nValue == nValue;
  p->zLabel = sltStrdup(zLabel);
  memcpy(p->zHash, zHash, 33);
  p->nValue = nValue;
  pF->nLabel++;
  return 1;
}

/*
** EXPLAIN QUERY PLAN results (nosql): SQLite numbers plan rows by opcode
** address and filled the third column ("notused") from 3.48 on, so those
** move between versions while the plan stays the same. Rows of 4 values are
** rewritten to (depth, 0, 0, detail): the tree shape and the text of each
** step are compared, nothing else.
*/
static void sltPlanNormalize(SltResult *p) {
  int nRow = p->nVal / 4, i, j;
  if (p->nVal % 4 != 0) return;
  for (i = 0; i < nRow; i++) {
    int iParent = atoi(p->azVal[4 * i + 1]), iDepth = 0;
    /* The depth of a row is one more than its parent's (rows come parent first). */
    for (j = i - 1; j >= 0 && iParent != 0; j--) {
      if (atoi(p->azVal[4 * j]) == iParent) {
        iDepth = atoi(p->azVal[4 * j + 2]) + 1;
        break;
      }
    }
    free(p->azVal[4 * i + 2]);
    p->azVal[4 * i + 2] = (char *)sltMalloc(16);
    snprintf(p->azVal[4 * i + 2], 16, "%d", iDepth);
  }
  /* Ids are needed above until every depth is known; then drop them. */
  for (i = 0; i < nRow; i++) {
    free(p->azVal[4 * i]);
    free(p->azVal[4 * i + 1]);
    p->azVal[4 * i] = sltStrdup(p->azVal[4 * i + 2]);
    p->azVal[4 * i + 1] = sltStrdup("0");
    free(p->azVal[4 * i + 2]);
    p->azVal[4 * i + 2] = sltStrdup("0");
  }
}

/* True if zSql starts with EXPLAIN QUERY PLAN. */
static int sltIsPlan(const char *zSql) {
  while (*zSql == ' ' || *zSql == '\n' || *zSql == '\t') zSql++;
  return sqlite3_strnicmp(zSql, "EXPLAIN QUERY PLAN", 18) == 0;
}

/* "query <types> [sort] [label]"; returns the line after the record. */
static int sltQuery(SltFile *pF, int iLine, char **azTok, int nTok, int bSkip) {
  int iSql = iLine + 1;
  int iSqlEnd = sltSqlEnd(pF, iSql);
  int iEnd = sltBlockEnd(pF, iSqlEnd);
  const char *zTypes = nTok > 1 ? azTok[1] : "";
  const char *zSortArg = nTok > 2 ? azTok[2] : "nosort";
  const char *zLabel = nTok > 3 ? azTok[3] : NULL;
  char eSort = 'n';
  char *zSql;
  char *zErr = NULL;
  SltResult res = {0, 0, 0, 0};
  SltResult exp = {0, 0, 0, 0};
  char zHash[33];
  sqlite3 *db;
  int rc;
  int i;
  int bHashed;

  if (pF->pOut) sltEcho(pF, iLine, iSqlEnd);
  if (bSkip) {
    if (pF->pOut) sltEcho(pF, iSqlEnd, iEnd);
    pF->pRun->nSkip++;
    return iEnd;
  }
  zSql = sltJoin(pF->azLine, iSql, iSqlEnd);
  if (strcmp(zSortArg, "rowsort") == 0) {
    eSort = 'r';
  } else if (strcmp(zSortArg, "valuesort") == 0) {
    eSort = 'v';
  } else if (strcmp(zSortArg, "nosort") != 0) {
    zLabel = zSortArg; /* "query I label" is allowed */
  }
  for (i = 0; zTypes[i]; i++) {
    if (zTypes[i] != 'I' && zTypes[i] != 'T' && zTypes[i] != 'R') break;
  }
  if (zTypes[0] == 0 || zTypes[i] != 0) {
    sltFailHeader(pF, iLine, "bad column types (use I, T and R)", zSql);
    if (pF->pOut) sltEcho(pF, iSqlEnd, iEnd);
    free(zSql);
    return iEnd;
  }
  if (pF->pRun->bVerbose) printf("%s:%d: query %s\n", pF->zPath, iLine + 1, zTypes);
  db = fileDb(pF, &zErr);
  rc = db ? sltExec(db, zSql, zTypes, &res, pF->pRun->bSltCompat, &zErr) : SQLITE_CANTOPEN;
  if (rc != SQLITE_OK) {
    sltFailHeader(pF, iLine, rc == SQLITE_MISMATCH ? "wrong column count" : "query failed", zSql);
    printf("  actual:   error: %s\n", zErr ? zErr : sqlite3_errstr(rc));
    if (pF->pOut) sltEcho(pF, iSqlEnd, iEnd);
    goto query_out;
  }
  res.nCol = (int)strlen(zTypes);
  resultSort(&res, eSort);
  resultHash(&res, zHash);
  bHashed = pF->nHashThreshold > 0 && res.nVal > pF->nHashThreshold;

  if (pF->pOut) {
    fprintf(pF->pOut, "----\n");
    if (bHashed) {
      fprintf(pF->pOut, "%d values hashing to %s\n", res.nVal, zHash);
    } else {
      for (i = 0; i < res.nVal; i++) {
        fprintf(pF->pOut, "%s%s", res.azVal[i], (i + 1) % res.nCol == 0 ? "\n" : "\t");
      }
    }
  }

  if (zLabel && !sltCheckLabel(pF, zLabel, zHash, res.nVal)) {
    sltFailHeader(pF, iLine, "result differs from an earlier query with the same label", zSql);
    printf("  label:    %s\n", zLabel);
    goto query_out;
  }
  if (iSqlEnd < iEnd) sltExpected(pF, iSqlEnd + 1, iEnd, &exp);
  if (res.nCol == 4 && sltIsPlan(zSql)) {
    sltPlanNormalize(&res);
    sltPlanNormalize(&exp);
    resultHash(&res, zHash);
  }
  {
    char zExpHash[33];
    int nExpHash = exp.nVal == 1 ? sltHashLine(exp.azVal[0], zExpHash) : -1;
    if (nExpHash >= 0) {
      if (nExpHash != res.nVal || strcmp(zExpHash, zHash) != 0) {
        sltFailHeader(pF, iLine, "wrong result hash", zSql);
        printf("  expected: %d values hashing to %s\n", nExpHash, zExpHash);
        printf("  actual:   %d values hashing to %s\n", res.nVal, zHash);
        if (res.nVal <= 4 * SLT_SHOW_MAX) sltShowValues("values:", res.azVal, res.nVal, res.nCol);
        goto query_out;
      }
    } else {
      int bSame = exp.nVal == res.nVal;
      for (i = 0; bSame && i < res.nVal; i++) bSame = strcmp(exp.azVal[i], res.azVal[i]) == 0;
      if (!bSame) {
        sltFailHeader(pF, iLine, "wrong result", zSql);
        sltShowValues("expected:", exp.azVal, exp.nVal, res.nCol);
        sltShowValues("actual:", res.azVal, res.nVal, res.nCol);
        goto query_out;
      }
    }
  }
  pF->pRun->nPass++;

query_out:
  resultFree(&res);
  resultFree(&exp);
  free(zErr);
  free(zSql);
  return iEnd;
}

/* Whether condition X of skipif/onlyif holds for this run. */
static int sltCondition(Runner *pRun, const char *zX) {
  int a = 0, b = 0, c = 0;
  if (strcmp(zX, "sqlite") == 0 || strcmp(zX, "nosql") == 0) return 1;
  /* (nosql) sqlite>=3.50.0 and sqlite<3.50.0: the host's SQLite version. */
  if (strncmp(zX, "sqlite>=", 8) == 0 && sscanf(zX + 8, "%d.%d.%d", &a, &b, &c) >= 2) {
    return sqlite3_libversion_number() >= a * 1000000 + b * 1000 + c;
  }
  if (strncmp(zX, "sqlite<", 7) == 0 && sscanf(zX + 7, "%d.%d.%d", &a, &b, &c) >= 2) {
    return sqlite3_libversion_number() < a * 1000000 + b * 1000 + c;
  }
  if (strcmp(zX, "asan") == 0) return pRun->bAsan;
  if (strncmp(zX, "os=", 3) == 0) return strcmp(zX + 3, SLT_OS) == 0;
  if (strncmp(zX, "arch=", 5) == 0) return strcmp(zX + 5, SLT_ARCH) == 0;
  return 0;
}

/* Whether the host has module or compile option zName. */
static int sltHas(SltFile *pF, const char *zName) {
  char *zErr = NULL;
  sqlite3 *db = fileDb(pF, &zErr);
  int bHas = 0;
  if (db) {
    sqlite3_stmt *pStmt = NULL;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_module_list WHERE name=?1", -1, &pStmt, 0) ==
        SQLITE_OK) {
      sqlite3_bind_text(pStmt, 1, zName, -1, SQLITE_STATIC);
      bHas = sqlite3_step(pStmt) == SQLITE_ROW;
    }
    sqlite3_finalize(pStmt);
    if (!bHas) {
      char *zUpper = sltStrdup(zName);
      char *z;
      for (z = zUpper; *z; z++) {
        if (*z >= 'a' && *z <= 'z') *z = (char)(*z - 'a' + 'A');
      }
      bHas = sqlite3_compileoption_used(zUpper) ||
             (strcmp(zUpper, "FTS5") == 0 && sqlite3_compileoption_used("ENABLE_FTS5"));
      if (!bHas) {
        char *zOpt = sltMprintf("ENABLE_%s", zUpper);
        bHas = sqlite3_compileoption_used(zOpt);
        free(zOpt);
      }
      free(zUpper);
    }
  }
  free(zErr);
  return bHas;
}

static void fileSetDb(SltFile *pF, const char *zName) {
  fileCloseAll(pF);
  free(pF->zDb);
  if (strcmp(zName, ":memory:") == 0) {
    pF->zDb = sltStrdup(":memory:");
    return;
  }
  if (pF->zDir == NULL) {
    pF->zDir = sltMprintf("%s/f%d", pF->pRun->zTmpRoot, ++pF->pRun->nFileSeq);
    sltMkdir(pF->zDir);
  }
  pF->zDb = sltMprintf("%s/%s", pF->zDir, zName);
}

static void fileUseConnection(SltFile *pF, const char *zName) {
  int i;
  for (i = 0; i < pF->nConn; i++) {
    if (strcmp(pF->aConn[i].zName, zName) == 0) {
      pF->iConn = i;
      return;
    }
  }
  if (pF->nConn == SLT_MAX_CONN) {
    fprintf(stderr, "%s: too many connections\n", pF->zPath);
    exit(2);
  }
  pF->aConn[pF->nConn].zName = sltStrdup(zName);
  pF->aConn[pF->nConn].db = NULL;
  pF->iConn = pF->nConn++;
}

/* Run one .test file. */
static void sltRunFile(Runner *pRun, const char *zPath) {
  SltFile f;
  char *zText = sltReadFile(zPath);
  int nPass0 = pRun->nPass, nFail0 = pRun->nFail, nSkip0 = pRun->nSkip;
  int i = 0;
  int bSkipNext = 0;
  int bHalt = 0;

  if (zText == NULL) {
    printf("FAIL %s: cannot read the file\n", zPath);
    pRun->nFail++;
    return;
  }
  memset(&f, 0, sizeof(f));
  f.pRun = pRun;
  f.zPath = zPath;
  f.azLine = sltSplitLines(zText, &f.nLine);
  f.zDb = sltStrdup(":memory:");
  fileUseConnection(&f, "default");
  if (pRun->bRewrite) {
    char *zOut = sltMprintf("%s.new", zPath);
    f.pOut = fopen(zOut, "wb");
    if (f.pOut == NULL) fprintf(stderr, "slt: cannot write %s\n", zOut);
    free(zOut);
  }

  while (i < f.nLine && !bHalt) {
    char *zLine = f.azLine[i];
    char *zCopy;
    char *azTok[8] = {0};
    int nTok;
    if (zLine[0] == 0 || zLine[0] == '#') {
      sltEcho(&f, i, i + 1);
      i++;
      continue;
    }
    zCopy = sltStrdup(zLine);
    nTok = sltTokens(zCopy, azTok, 8);
    if (strcmp(azTok[0], "skipif") == 0 || strcmp(azTok[0], "onlyif") == 0) {
      int bHolds = nTok > 1 && sltCondition(pRun, azTok[1]);
      if (azTok[0][0] == 's' ? bHolds : !bHolds) bSkipNext = 1;
      sltEcho(&f, i, i + 1);
      i++;
    } else if (strcmp(azTok[0], "statement") == 0) {
      i = sltStatement(&f, i, nTok > 1 ? azTok[1] : "", bSkipNext);
      bSkipNext = 0;
    } else if (strcmp(azTok[0], "query") == 0) {
      i = sltQuery(&f, i, azTok, nTok, bSkipNext);
      bSkipNext = 0;
    } else if (strcmp(azTok[0], "hash-threshold") == 0 && nTok > 1) {
      f.nHashThreshold = atoi(azTok[1]);
      sltEcho(&f, i, i + 1);
      i++;
    } else if (strcmp(azTok[0], "halt") == 0) {
      sltEcho(&f, i, f.nLine);
      if (!bSkipNext) bHalt = 1;
      bSkipNext = 0;
      i++;
    } else if (strcmp(azTok[0], "require") == 0 && nTok > 1) {
      sltEcho(&f, i, i + 1);
      i++;
      if (!sltHas(&f, azTok[1])) {
        printf("SKIP %s: requires %s, which this host lacks\n", zPath, azTok[1]);
        pRun->nSkip++;
        sltEcho(&f, i, f.nLine);
        bHalt = 1;
      }
    } else if (strcmp(azTok[0], "open") == 0 && nTok > 1) {
      sltEcho(&f, i, i + 1);
      fileSetDb(&f, azTok[1]);
      i++;
    } else if (strcmp(azTok[0], "reopen") == 0) {
      sltEcho(&f, i, i + 1);
      fileCloseAll(&f);
      i++;
    } else if (strcmp(azTok[0], "connection") == 0 && nTok > 1) {
      sltEcho(&f, i, i + 1);
      fileUseConnection(&f, azTok[1]);
      i++;
    } else if (strcmp(azTok[0], "defensive") == 0 && nTok > 1) {
      char *zErr = NULL;
      sqlite3 *db = fileDb(&f, &zErr);
      int bOn = strcmp(azTok[1], "on") == 0, bNow = -1;
      sltEcho(&f, i, i + 1);
      if (db == NULL || sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, bOn, &bNow) != SQLITE_OK ||
          bNow != bOn) {
        sltFailHeader(&f, i, "cannot set defensive mode", zErr ? zErr : zLine);
      }
      free(zErr);
      i++;
    } else {
      int iEnd = sltBlockEnd(&f, i);
      sltFailHeader(&f, i, "unknown record type", zLine);
      sltEcho(&f, i, iEnd);
      i = iEnd;
    }
    free(zCopy);
  }

  fileCloseAll(&f);
  for (i = 0; i < f.nConn; i++) free(f.aConn[i].zName);
  for (i = 0; i < f.nLabelSlot; i++) free(f.aLabel[i].zLabel);
  free(f.aLabel);
  if (f.pOut) fclose(f.pOut);
  free(f.zDb);
  free(f.zDir);
  free(f.azLine);
  free(zText);
  printf("%s: %d passed, %d failed, %d skipped\n", zPath, pRun->nPass - nPass0, pRun->nFail - nFail0,
         pRun->nSkip - nSkip0);
}

/*************************************************************************
** --docs: the reference check.
*/

/* Names of functions and modules on db, one string per entry. */
static void sltNames(sqlite3 *db, SltResult *pOut) {
  char *zErr = NULL;
  sltExec(db,
          "SELECT name FROM pragma_function_list UNION SELECT name FROM pragma_module_list "
          "ORDER BY 1",
          "T", pOut, 0, &zErr);
  free(zErr);
}

static int sltHasName(const SltResult *p, const char *zName) {
  int i;
  for (i = 0; i < p->nVal; i++) {
    if (strcmp(p->azVal[i], zName) == 0) return 1;
  }
  return 0;
}

/*
** The name after zPrefix at the start of zLine: "### `" for a reference
** heading "### `name(...)...", "| [`" for a row of functions.md. NULL if
** zLine does not start so or no name follows.
*/
static char *sltNameAfter(const char *zLine, const char *zPrefix) {
  const char *z;
  size_t n = 0;
  char *zName;
  if (!sltStartsWith(zLine, zPrefix)) return NULL;
  z = zLine + strlen(zPrefix);
  while ((z[n] >= 'a' && z[n] <= 'z') || (z[n] >= 'A' && z[n] <= 'Z') || (z[n] >= '0' && z[n] <= '9') ||
         z[n] == '_') {
    n++;
  }
  if (n == 0) return NULL;
  zName = (char *)sltMalloc(n + 1);
  memcpy(zName, z, n);
  zName[n] = 0;
  return zName;
}

static char *sltHeadingName(const char *zLine) { return sltNameAfter(zLine, "### `"); }

/*
** The anchor GitHub gives a heading's text: lower case, ASCII punctuation
** other than '-' and '_' dropped, each space a '-' (caller frees). A page's
** later headings with the same anchor get "-1", "-2", ... (sltDocAnchors).
*/
static char *sltSlug(const char *zText) {
  char *zOut = (char *)sltMalloc(strlen(zText) + 1);
  int n = 0;
  for (; *zText; zText++) {
    unsigned char c = (unsigned char)*zText;
    if (c >= 'A' && c <= 'Z') {
      zOut[n++] = (char)(c - 'A' + 'a');
    } else if (c == ' ') {
      zOut[n++] = '-';
    } else if (c >= 0x80 || c == '-' || c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z')) {
      zOut[n++] = (char)c;
    }
  }
  zOut[n] = 0;
  return zOut;
}

/*
** Add the headings of page zFile (its lines) to pOut, two values each:
** "zFile#anchor" and the name the heading documents ("" if none).
*/
static void sltDocAnchors(const char *zFile, char **azLine, int nLine, SltResult *pOut) {
  SltResult seen = {0, 0, 0, 0};
  int bCode = 0;
  int i, k;
  for (i = 0; i < nLine; i++) {
    const char *z = azLine[i];
    char *zSlug, *zName;
    int nDup = 0;
    if (sltStartsWith(z, "```")) bCode = !bCode;
    if (bCode || z[0] != '#') continue;
    while (*z == '#') z++;
    if (*z != ' ') continue;
    zSlug = sltSlug(z + 1);
    for (k = 0; k < seen.nVal; k++) nDup += strcmp(seen.azVal[k], zSlug) == 0;
    resultAdd(&seen, sltStrdup(zSlug));
    zName = sltHeadingName(azLine[i]);
    if (nDup)
      resultAdd(pOut, sltMprintf("%s#%s-%d", zFile, zSlug, nDup));
    else
      resultAdd(pOut, sltMprintf("%s#%s", zFile, zSlug));
    resultAdd(pOut, zName ? zName : sltStrdup(""));
    free(zSlug);
  }
  resultFree(&seen);
}

/*
** Check the index DIR/functions.md (lines azLine) against the names the
** extension registers (in pExt, not in pPlain) and the headings of every
** page (pAnchors, from sltDocAnchors).
*/
static void sltDocIndex(Runner *pRun, const char *zDir, char **azLine, int nLine, const SltResult *pPlain,
                        const SltResult *pExt, const SltResult *pAnchors) {
  SltResult listed = {0, 0, 0, 0};
  int i, k;
  for (i = 0; i < nLine; i++) {
    const char *z = azLine[i];
    const char *zLink, *zEnd, *zDesc;
    char *zName, *zTarget;
    int bOk = 1;
    if (!sltStartsWith(z, "| [`")) continue;
    zName = sltNameAfter(z, "| [`");
    if (zName == NULL) {
      printf("FAIL %s/functions.md:%d: a row that names no function\n", zDir, i + 1);
      pRun->nFail++;
      continue;
    }
    if (sltHasName(&listed, zName)) {
      printf("FAIL %s/functions.md:%d: '%s' is listed twice\n", zDir, i + 1, zName);
      bOk = 0;
    }
    resultAdd(&listed, sltStrdup(zName));
    if (!sltHasName(pExt, zName) || sltHasName(pPlain, zName)) {
      printf("FAIL %s/functions.md:%d: '%s' is listed but the extension does not register it\n", zDir, i + 1,
             zName);
      bOk = 0;
    }
    zLink = strstr(z, "`](");
    zEnd = zLink ? strchr(zLink + 3, ')') : NULL;
    zTarget = zEnd ? sltMprintf("%.*s", (int)(zEnd - zLink - 3), zLink + 3) : sltStrdup("");
    for (k = 0; k + 1 < pAnchors->nVal; k += 2) {
      if (strcmp(pAnchors->azVal[k], zTarget) == 0 && strcmp(pAnchors->azVal[k + 1], zName) == 0) break;
    }
    if (k + 1 >= pAnchors->nVal) {
      printf("FAIL %s/functions.md:%d: the link of '%s' (%s) is not its \"### `%s...`\" heading\n", zDir,
             i + 1, zName, zTarget, zName);
      bOk = 0;
    }
    zDesc = zEnd ? strstr(zEnd, " | ") : NULL;
    if (zDesc == NULL || zDesc[3] == 0 || zDesc[3] == '|') {
      printf("FAIL %s/functions.md:%d: '%s' has no one-line description\n", zDir, i + 1, zName);
      bOk = 0;
    }
    if (bOk)
      pRun->nPass++;
    else
      pRun->nFail++;
    free(zTarget);
    free(zName);
  }
  for (i = 0; i < pExt->nVal; i++) {
    const char *zName = pExt->azVal[i];
    if (sltHasName(pPlain, zName) || sltHasName(&listed, zName)) continue;
    printf("FAIL %s/functions.md: '%s' is registered by the extension but not listed\n", zDir, zName);
    pRun->nFail++;
  }
  resultFree(&listed);
}

/* Run the ```sql examples of one .md file on a fresh connection. */
static void sltDocExamples(Runner *pRun, const char *zPath, char **azLine, int nLine) {
  char *zErr = NULL;
  sqlite3 *db = sltOpen(pRun, ":memory:", &zErr);
  int bIn = 0;
  int i;
  char *zSql = NULL;
  int iStart = 0;

  if (db == NULL) {
    printf("FAIL %s: %s\n", zPath, zErr);
    pRun->nFail++;
    free(zErr);
    return;
  }
  for (i = 0; i < nLine; i++) {
    const char *zLine = azLine[i];
    if (!bIn) {
      if (strcmp(zLine, "```sql") == 0) bIn = 1;
      continue;
    }
    if (strcmp(zLine, "```") == 0) {
      bIn = 0;
      if (zSql) {
        printf("FAIL %s:%d: example SQL is not a complete statement\n  sql:      %s\n", zPath, iStart + 1,
               zSql);
        pRun->nFail++;
        sqlite3_free(zSql);
        zSql = NULL;
      }
      continue;
    }
    if (zSql == NULL && (zLine[0] == 0 || sltStartsWith(zLine, "-->"))) continue;
    if (zSql == NULL) iStart = i;
    zSql = zSql ? sqlite3_mprintf("%z\n%s", zSql, zLine) : sqlite3_mprintf("%s", zLine);
    if (sqlite3_complete(zSql)) {
      SltResult res = {0, 0, 0, 0};
      SltResult exp = {0, 0, 0, 0};
      char *zExpErr = NULL;
      int rc;
      int bOk;
      int k;
      while (i + 1 < nLine && sltStartsWith(azLine[i + 1], "-->")) {
        const char *zVal = azLine[++i] + 3;
        if (*zVal == ' ') zVal++;
        if (sltStartsWith(zVal, "error: ")) {
          zExpErr = sltStrdup(zVal + 7);
        } else {
          resultAdd(&exp, sltStrdup(zVal));
        }
      }
      free(zErr);
      zErr = NULL;
      rc = sltExec(db, zSql, NULL, &res, 0, &zErr);
      if (zExpErr) {
        bOk = rc != SQLITE_OK && zErr && strstr(zErr, zExpErr) != NULL;
      } else if (rc != SQLITE_OK) {
        bOk = 0;
      } else if (res.nVal > 0 && exp.nVal == 0) {
        bOk = 0; /* an example that returns rows must show them */
      } else {
        bOk = res.nVal == exp.nVal;
        for (k = 0; bOk && k < res.nVal; k++) bOk = strcmp(res.azVal[k], exp.azVal[k]) == 0;
      }
      if (bOk) {
        pRun->nPass++;
      } else {
        printf("FAIL %s:%d: example output differs\n  sql:      %s\n", zPath, iStart + 1, zSql);
        if (zExpErr)
          printf("  expected: error: %s\n", zExpErr);
        else
          sltShowValues("expected:", exp.azVal, exp.nVal, 1);
        if (rc != SQLITE_OK)
          printf("  actual:   error: %s\n", zErr ? zErr : sqlite3_errstr(rc));
        else
          sltShowValues("actual:", res.azVal, res.nVal, 1);
        pRun->nFail++;
      }
      resultFree(&res);
      resultFree(&exp);
      free(zExpErr);
      sqlite3_free(zSql);
      zSql = NULL;
    }
  }
  if (zSql) {
    printf("FAIL %s: unterminated example\n  sql:      %s\n", zPath, zSql);
    pRun->nFail++;
    sqlite3_free(zSql);
  }
  free(zErr);
  sqlite3_close(db);
}

static void sltRunDocs(Runner *pRun, const char *zDir) {
  char *zErr = NULL;
  const char *zExt = pRun->zExt;
  sqlite3 *dbPlain;
  sqlite3 *dbExt;
  SltResult plain = {0, 0, 0, 0};
  SltResult withExt = {0, 0, 0, 0};
  SltResult documented = {0, 0, 0, 0};
  SltResult files = {0, 0, 0, 0};
  SltResult anchors = {0, 0, 0, 0};
  char *zIndex = NULL; /* Text of DIR/functions.md, or NULL */
  char **azIndex = NULL;
  int nIndex = 0;
  DIR *pDir;
  struct dirent *pEnt;
  int nPass0 = pRun->nPass, nFail0 = pRun->nFail;
  int i;

  pRun->zExt = NULL;
  dbPlain = sltOpen(pRun, ":memory:", &zErr);
  pRun->zExt = zExt;
  dbExt = dbPlain ? sltOpen(pRun, ":memory:", &zErr) : NULL;
  if (dbExt == NULL) {
    printf("FAIL %s: %s\n", zDir, zErr);
    pRun->nFail++;
    free(zErr);
    sqlite3_close(dbPlain);
    return;
  }
  sltNames(dbPlain, &plain);
  sltNames(dbExt, &withExt);
  sqlite3_close(dbPlain);
  sqlite3_close(dbExt);

  pDir = opendir(zDir);
  if (pDir == NULL) {
    printf("FAIL %s: cannot open the directory\n", zDir);
    pRun->nFail++;
    resultFree(&plain);
    resultFree(&withExt);
    return;
  }
  while ((pEnt = readdir(pDir)) != NULL) {
    size_t n = strlen(pEnt->d_name);
    if (n > 3 && strcmp(&pEnt->d_name[n - 3], ".md") == 0) {
      resultAdd(&files, sltMprintf("%s/%s", zDir, pEnt->d_name));
    }
  }
  closedir(pDir);
  files.nCol = 1;
  resultSort(&files, 'v');

  for (i = 0; i < files.nVal; i++) {
    char *zText = sltReadFile(files.azVal[i]);
    char **azLine;
    int nLine;
    int k;
    if (zText == NULL) continue;
    azLine = sltSplitLines(zText, &nLine);
    sltDocAnchors(strrchr(files.azVal[i], '/') + 1, azLine, nLine, &anchors);
    for (k = 0; k < nLine; k++) {
      char *zName = sltHeadingName(azLine[k]);
      if (zName == NULL) continue;
      if (!sltHasName(&documented, zName))
        resultAdd(&documented, zName);
      else
        free(zName);
    }
    sltDocExamples(pRun, files.azVal[i], azLine, nLine);
    if (strcmp(strrchr(files.azVal[i], '/'), "/functions.md") == 0) {
      zIndex = zText;
      azIndex = azLine;
      nIndex = nLine;
      continue;
    }
    free(azLine);
    free(zText);
  }
  if (zIndex) {
    sltDocIndex(pRun, zDir, azIndex, nIndex, &plain, &withExt, &anchors);
    free(azIndex);
    free(zIndex);
  } else {
    printf("FAIL %s/functions.md is missing: the index of every function and module\n", zDir);
    pRun->nFail++;
  }

  for (i = 0; i < withExt.nVal; i++) {
    const char *zName = withExt.azVal[i];
    if (sltHasName(&plain, zName)) continue;
    if (sltHasName(&documented, zName)) {
      pRun->nPass++;
    } else {
      printf("FAIL %s: '%s' is registered by the extension but has no \"### `%s...`\" heading\n", zDir, zName,
             zName);
      pRun->nFail++;
    }
  }
  for (i = 0; i < documented.nVal; i++) {
    const char *zName = documented.azVal[i];
    if (sltHasName(&withExt, zName) && !sltHasName(&plain, zName)) {
      pRun->nPass++;
    } else {
      printf("FAIL %s: '%s' is documented but the extension does not register it\n", zDir, zName);
      pRun->nFail++;
    }
  }
  resultFree(&plain);
  resultFree(&withExt);
  resultFree(&documented);
  resultFree(&files);
  resultFree(&anchors);
  printf("%s (reference): %d passed, %d failed, 0 skipped\n", zDir, pRun->nPass - nPass0,
         pRun->nFail - nFail0);
}

/*************************************************************************
** main
*/

static void sltUsage(void) {
  fprintf(stderr,
          "usage: slt [--ext PATH] [--rewrite] [--verbose] [--slt-compat] FILE.test...\n"
          "       slt [--ext PATH] --docs DIR\n");
  exit(2);
}

int main(int argc, char **argv) {
  Runner run;
  const char *zDocs = NULL;
  char *zTmpl;
  int i;

  memset(&run, 0, sizeof(run));
  run.zExt = "dist/nosql";
#if defined(__SANITIZE_ADDRESS__)
  run.bAsan = 1;
#endif
  for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
    if (strcmp(argv[i], "--ext") == 0 && i + 1 < argc) {
      run.zExt = argv[++i];
    } else if (strcmp(argv[i], "--rewrite") == 0) {
      run.bRewrite = 1;
    } else if (strcmp(argv[i], "--verbose") == 0) {
      run.bVerbose = 1;
    } else if (strcmp(argv[i], "--slt-compat") == 0) {
      run.bSltCompat = 1;
    } else if (strcmp(argv[i], "--docs") == 0 && i + 1 < argc) {
      zDocs = argv[++i];
    } else {
      sltUsage();
    }
  }
  if (zDocs == NULL && i >= argc) sltUsage();
#if defined(_WIN32)
  zTmpl = sltMprintf("%s\\nosql-slt-XXXXXX", getenv("TEMP") ? getenv("TEMP") : ".");
  _setmode(_fileno(stdout), _O_BINARY);
  setvbuf(stdout, NULL, _IONBF, 0);
#else
  zTmpl = sltStrdup("/tmp/nosql-slt-XXXXXX");
  setvbuf(stdout, NULL, _IOLBF, 0);
#endif
  if (sltMkdtemp(zTmpl) == NULL) {
    perror("slt: mkdtemp");
    return 2;
  }
  run.zTmpRoot = zTmpl;

  if (zDocs) sltRunDocs(&run, zDocs);
  for (; i < argc; i++) sltRunFile(&run, argv[i]);

  sltRemoveDir(run.zTmpRoot);
  free(zTmpl);
  printf("%d passed, %d failed, %d skipped\n", run.nPass, run.nFail, run.nSkip);
  return run.nFail > 0 ? 1 : 0;
}
