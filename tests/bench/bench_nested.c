/*
** bench_nested.c: techniques 15 and 16, nested documents in a flat index.
** People with 1-20 skills (Zipf: P(n) ~ 1/n), each skill an element
** {"skill": sK, "level": L} with sK from a Zipf vocabulary of 300 skills
** and L one of 5 levels, stored five ways in one database:
**
**   relational  people(id, skills) with the JSON array; the question is
**               EXISTS (SELECT 1 FROM json_each(skills) WHERE ...)
**   elements    inverted_index NESTED(skill, level): element sub-documents
**   numbered    inverted_index NESTED(skill, level) NUMBERED: the article's
**               skill_1, level_1, skill_2, ...
**   FTS5 gap    fts5 with the nosql_gap tokenizer, one value per element
**               ("s17 excellent"), asked with NEAR()
**   naive       inverted_index(skill, level): the elements flattened
**
** Questions: who has one element with skill S and level L (all but the
** naive index agree); the naive question (skill S and level L, perhaps in
** different elements) with its false matches counted; the growth of an
** element query with the largest element count (1, 10, 100, 1000: a few
** documents that long among short ones), elements against numbered; and,
** as its own table, build time per element of each structure (row by row,
** and for the two layouts 'rebuild' from content=) and index bytes per
** element (dbstat, the layouts after 'optimize').
*/
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NB_VOCAB 300 /* Skills */
#define NB_MAX 20    /* Elements per person at most */

static const char *const azNbLevel[] = {"poor", "fair", "good", "great", "excellent"};

/* A Zipf (s = 1) rank in [0, n) by inverse CDF over aCdf[0..n). */
static int nbZipf(const double *aCdf, int n, uint64_t *pSeed) {
  double u = (double)(benchRand(pSeed) >> 11) / 9007199254740992.0;
  int lo = 0, hi = n - 1;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (aCdf[mid] < u)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static void nbCdf(double *aCdf, int n) {
  double rSum = 0;
  int i;
  for (i = 0; i < n; i++) rSum += 1.0 / (i + 1);
  for (i = 0; i < n; i++) aCdf[i] = (i ? aCdf[i - 1] : 0) + 1.0 / (i + 1) / rSum;
}

/* Index bytes (pages, from dbstat) of the tables and indexes named zLike. */
static int64_t nbBytes(sqlite3 *db, const char *zLike) {
  sqlite3_stmt *pStmt = NULL;
  int64_t n = -1;
  char *zSql = sqlite3_mprintf(
      "SELECT sum(pgsize) FROM dbstat WHERE name IN (SELECT name FROM sqlite_schema WHERE tbl_name LIKE %Q "
      "ESCAPE '\\')",
      zLike);
  if (zSql && sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0) == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW) {
    n = sqlite3_column_int64(pStmt, 0);
  }
  sqlite3_finalize(pStmt);
  sqlite3_free(zSql);
  return n;
}

/*
** Fill people/r/q (and gap/naive if bAll) with nPeople people of 1-20
** elements (nBase 0) or nBase each; documents whose id is a multiple of
** nLongEvery (0: none) get nLong elements instead. Returns the number of
** elements; aTime[k], if not NULL, gets the seconds spent in the inserts
** into people, r, q, gap and naive (k = 0..4).
*/
static int64_t nbFill(sqlite3 *db, int64_t nPeople, int nBase, int nLongEvery, int nLong, int bAll,
                      double *aTime) {
  static const char *const azIns[] = {
      "INSERT INTO people(id, skills) VALUES (?1, ?2)", "INSERT INTO r(rowid, skills) VALUES (?1, ?2)",
      "INSERT INTO q(rowid, skills) VALUES (?1, ?2)", "INSERT INTO gap(rowid, skills) VALUES (?1, ?3)",
      "INSERT INTO naive(rowid, skill, level) VALUES (?1, ?4, ?5)"};
  sqlite3_stmt *apStmt[5];
  double aCdf[NB_VOCAB], aCdfN[NB_MAX];
  uint64_t seed = 20261125;
  int64_t i, nElem = 0;
  int k, nStmt = bAll ? 5 : 3;
  char *zJson = (char *)malloc((size_t)(nLong > NB_MAX ? nLong : NB_MAX) * 64 + 64);
  char *zGap = (char *)malloc((size_t)(nLong > NB_MAX ? nLong : NB_MAX) * 32 + 64);
  char *zSk = (char *)malloc((size_t)(nLong > NB_MAX ? nLong : NB_MAX) * 16 + 64);
  char *zLv = (char *)malloc((size_t)(nLong > NB_MAX ? nLong : NB_MAX) * 16 + 64);
  if (!zJson || !zGap || !zSk || !zLv) exit(2);
  nbCdf(aCdf, NB_VOCAB);
  nbCdf(aCdfN, NB_MAX);
  for (k = 0; k < nStmt; k++) {
    if (sqlite3_prepare_v2(db, azIns[k], -1, &apStmt[k], 0) != SQLITE_OK) {
      fprintf(stderr, "nested bench: %s\n", sqlite3_errmsg(db));
      exit(2);
    }
  }
  benchExec(db, "BEGIN");
  for (i = 1; i <= nPeople; i++) {
    int n = nLongEvery && i % nLongEvery == 0 ? nLong : nBase ? nBase : 1 + nbZipf(aCdfN, NB_MAX, &seed), e;
    char *pJ = zJson, *pG = zGap, *pS = zSk, *pL = zLv;
    pJ += sprintf(pJ, "[");
    pG += sprintf(pG, "[");
    pS += sprintf(pS, "[");
    pL += sprintf(pL, "[");
    for (e = 0; e < n; e++) {
      int s = nbZipf(aCdf, NB_VOCAB, &seed);
      const char *zLevel = azNbLevel[benchRand(&seed) % 5];
      const char *zSep = e ? "," : "";
      pJ += sprintf(pJ, "%s{\"skill\":\"s%d\",\"level\":\"%s\"}", zSep, s, zLevel);
      pG += sprintf(pG, "%s\"s%d %s\"", zSep, s, zLevel);
      pS += sprintf(pS, "%s\"s%d\"", zSep, s);
      pL += sprintf(pL, "%s\"%s\"", zSep, zLevel);
    }
    strcpy(pJ, "]");
    strcpy(pG, "]");
    strcpy(pS, "]");
    strcpy(pL, "]");
    nElem += n;
    for (k = 0; k < nStmt; k++) {
      double t0 = aTime ? benchNow() : 0;
      sqlite3_bind_int64(apStmt[k], 1, i);
      sqlite3_bind_text(apStmt[k], 2, zJson, -1, SQLITE_STATIC);
      sqlite3_bind_text(apStmt[k], 3, zGap, -1, SQLITE_STATIC);
      sqlite3_bind_text(apStmt[k], 4, zSk, -1, SQLITE_STATIC);
      sqlite3_bind_text(apStmt[k], 5, zLv, -1, SQLITE_STATIC);
      if (sqlite3_step(apStmt[k]) != SQLITE_DONE) {
        fprintf(stderr, "nested bench: %s\n", sqlite3_errmsg(db));
        exit(2);
      }
      sqlite3_reset(apStmt[k]);
      if (aTime) aTime[k] += benchNow() - t0;
    }
  }
  {
    double t0 = benchNow();
    benchExec(db, "COMMIT");
    for (k = 0; aTime && k < nStmt; k++) aTime[k] += (benchNow() - t0) / nStmt;
  }
  for (k = 0; k < nStmt; k++) sqlite3_finalize(apStmt[k]);
  free(zJson);
  free(zGap);
  free(zSk);
  free(zLv);
  return nElem;
}

static const char zNbSchema[] =
    "CREATE TABLE people(id INTEGER PRIMARY KEY, skills TEXT);"
    "CREATE VIRTUAL TABLE r USING inverted_index(skills NESTED(skill, level), content=people);"
    "CREATE VIRTUAL TABLE q USING inverted_index(skills NESTED(skill, level) NUMBERED, content=people);";

/*
** The element question (skill zS at level zL) five ways, and the naive one,
** on nPeople people; zTitle names the element question's comparison.
*/
static void nbQuestions(Bench *p, sqlite3 *db, const char *zTitle, const char *zSize, int64_t nPeople,
                        const char *zS, const char *zL, int bAll) {
  char *azSql[6];
  int64_t nRight, nNaive;
  int k;
  azSql[0] = sqlite3_mprintf(
      "SELECT id FROM people WHERE EXISTS (SELECT 1 FROM json_each(people.skills) e WHERE "
      "json_extract(e.value, '$.skill') = %Q AND json_extract(e.value, '$.level') = %Q)",
      zS, zL);
  azSql[1] = sqlite3_mprintf("SELECT rowid FROM r WHERE r MATCH 'skills:{skill:%s AND level:%s}'", zS, zL);
  azSql[2] = sqlite3_mprintf("SELECT rowid FROM q WHERE q MATCH 'skills:{skill:%s AND level:%s}'", zS, zL);
  azSql[3] = sqlite3_mprintf("SELECT rowid FROM gap WHERE gap MATCH 'NEAR(%s %s, 1)'", zS, zL);
  azSql[4] = sqlite3_mprintf(
      "SELECT id FROM people WHERE EXISTS (SELECT 1 FROM json_each(people.skills) e WHERE "
      "json_extract(e.value, '$.skill') = %Q) AND EXISTS (SELECT 1 FROM json_each(people.skills) e WHERE "
      "json_extract(e.value, '$.level') = %Q)",
      zS, zL);
  azSql[5] = sqlite3_mprintf("SELECT rowid FROM naive WHERE naive MATCH 'skill:%s AND level:%s'", zS, zL);
  {
    BenchVariant aVar[4] = {
        {BENCH_RELATIONAL, "relational: EXISTS (json_each ...)", azSql[0], 0, 0},
        {BENCH_EXTENSION, "nosql: elements layout, skills:{skill AND level}", azSql[1], 0, 0},
        {BENCH_EXTENSION, "nosql: numbered layout (skill_1, level_1, ...)", azSql[2], 0, 0},
        {BENCH_EXTENSION, "FTS5 nosql_gap 100: NEAR(skill level, 1)", azSql[3], 0, 0}};
    char *zCount = sqlite3_mprintf("SELECT count(*) FROM (%s)", azSql[0]);
    nRight = benchInt(db, zCount);
    sqlite3_free(zCount);
    benchCompare(p, zTitle, db, zSize, (double)nPeople, "people", (double)nRight, "match", aVar,
                 bAll ? 4 : 3);
  }
  if (bAll) {
    BenchVariant aVar[3] = {
        {BENCH_RELATIONAL, "relational: two EXISTS (json_each ...)", azSql[4], 0, 0},
        {BENCH_EXTENSION, "naive flattening: inverted_index(skill, level)", azSql[5], 0, 0},
        {BENCH_EXTENSION, "nosql: two element queries", 0, 0, 0}};
    char *zTwo = sqlite3_mprintf(
        "SELECT rowid FROM r WHERE r MATCH 'skills:{skill:%s} AND skills:{level:%s}'", zS, zL);
    char *zCount = sqlite3_mprintf("SELECT count(*) FROM (%s)", azSql[4]);
    aVar[2].zSql = zTwo;
    nNaive = benchInt(db, zCount);
    sqlite3_free(zCount);
    benchCompare(p, "naive: skill and level, any elements", db, zSize, (double)nPeople, "people",
                 (double)nNaive, "match", aVar, 3);
    printf(
        "\nNaive flattening answers %lld documents, %lld of them false matches (%.1f%%); the element query "
        "answers %lld.\n\n",
        (long long)nNaive, (long long)(nNaive - nRight),
        nNaive ? 100.0 * (double)(nNaive - nRight) / (double)nNaive : 0.0, (long long)nRight);
    sqlite3_free(zTwo);
  }
  for (k = 0; k < 6; k++) sqlite3_free(azSql[k]);
}

void benchNested(Bench *p) {
  int64_t nPeople = benchSize(p, 500000, 1000), nElem;
  char zSize[96], zTitle[96];
  int iM;
  static const int aM[] = {1, 10, 100, 1000};
  {
    sqlite3 *db = benchOpen();
    char *zSchema = sqlite3_mprintf(
        "%s CREATE VIRTUAL TABLE gap USING fts5(skills, tokenize = 'nosql_gap 100 unicode61', content='');"
        "CREATE VIRTUAL TABLE naive USING inverted_index(skill, level);",
        zNbSchema);
    benchExec(db, zSchema);
    sqlite3_free(zSchema);
    double aTime[5] = {0, 0, 0, 0, 0}, aRebuild[4];
    nElem = nbFill(db, nPeople, 0, 0, 0, 1, aTime);
    benchSave(p, db, "nested_people.tsv", "SELECT id, skills FROM people ORDER BY id");
    snprintf(zSize, sizeof(zSize), "%lld people, %lld elements", (long long)nPeople, (long long)nElem);
    nbQuestions(p, db, "one element with skill and level", zSize, nPeople, "s20", "excellent", 1);
    /* Index bytes per element of each layout (the people table itself for scale). */
    /* The two layouts again, into fresh tables, from content=people in one
    ** pass ('rebuild', the bulk path); then 'optimize' of the row-by-row
    ** ones, whose bytes are reported (the queries above ran on them). */
    {
      double t0;
      benchExec(db,
                "CREATE VIRTUAL TABLE rb USING inverted_index(skills NESTED(skill, level), content=people);"
                "CREATE VIRTUAL TABLE qb USING inverted_index(skills NESTED(skill, level) NUMBERED, "
                "content=people);");
      t0 = benchNow();
      benchExec(db, "INSERT INTO rb(rb) VALUES ('rebuild')");
      aRebuild[0] = benchNow() - t0;
      t0 = benchNow();
      benchExec(db, "INSERT INTO qb(qb) VALUES ('rebuild')");
      aRebuild[1] = benchNow() - t0;
      benchExec(db, "DROP TABLE rb; DROP TABLE qb;");
      /* direct=off (FTS5's external-content rule: 'delete' takes the old values), kept for the bytes and
      ** the queries below. */
      benchExec(db,
                "CREATE VIRTUAL TABLE rd USING inverted_index(skills NESTED(skill, level), content=people, "
                "direct=off);"
                "CREATE VIRTUAL TABLE qd USING inverted_index(skills NESTED(skill, level) NUMBERED, "
                "content=people, direct=off);");
      t0 = benchNow();
      benchExec(db, "INSERT INTO rd(rd) VALUES ('rebuild')");
      aRebuild[2] = benchNow() - t0;
      t0 = benchNow();
      benchExec(db, "INSERT INTO qd(qd) VALUES ('rebuild')");
      aRebuild[3] = benchNow() - t0;
      benchExec(db, "INSERT INTO r(r) VALUES ('optimize'); INSERT INTO q(q) VALUES ('optimize');");
    }
    printf("Build and index bytes per element (%s, dbstat pages, after 'optimize'):\n\n", zSize);
    printf(
        "| structure | row by row, us/element | 'rebuild', us/element | bytes | bytes/element "
        "|\n|---|---:|---:|---:|---:|\n");
    {
      static const char *const azName[][2] = {
          {"the people table (JSON text)", "people"},
          {"elements layout (inverted_index NESTED)", "r\\_%"},
          {"numbered layout (NESTED ... NUMBERED)", "q\\_%"},
          {"FTS5 nosql_gap 100 (contentless)", "gap\\_%"},
          {"naive flattening (inverted_index, values stored)", "naive\\_%"},
          {"elements layout, content= direct=off ('rebuild')", "rd\\_%"},
          {"numbered layout, content= direct=off ('rebuild')", "qd\\_%"}};
      int k;
      for (k = 0; k < 7; k++) {
        int64_t n = nbBytes(db, azName[k][1]);
        char zRebuild[32] = "", zRow[32] = "-";
        if (k == 1 || k == 2)
          snprintf(zRebuild, sizeof(zRebuild), "%.2f", aRebuild[k - 1] * 1e6 / (double)nElem);
        if (k >= 5) snprintf(zRebuild, sizeof(zRebuild), "%.2f", aRebuild[k - 3] * 1e6 / (double)nElem);
        if (k < 5) snprintf(zRow, sizeof(zRow), "%.2f", aTime[k] * 1e6 / (double)nElem);
        printf("| %s | %s | %s | %lld | %.1f |\n", azName[k][0], zRow, zRebuild, (long long)n,
               (double)n / (double)nElem);
      }
    }
    {
      /* Where the bytes go, per b-tree (dbstat), for the four content= builds. */
      sqlite3_stmt *pStmt = NULL;
      if (sqlite3_prepare_v2(
              db,
              "SELECT name, sum(pgsize) FROM dbstat WHERE name IN (SELECT name FROM sqlite_schema "
              "WHERE tbl_name LIKE 'r\\_%' ESCAPE '\\' OR tbl_name LIKE 'q\\_%' ESCAPE '\\' OR "
              "tbl_name LIKE 'rd\\_%' ESCAPE '\\' OR tbl_name LIKE 'qd\\_%' ESCAPE '\\') "
              "GROUP BY name ORDER BY name",
              -1, &pStmt, 0) == SQLITE_OK) {
        printf("\nBytes per element by b-tree (dbstat):");
        while (sqlite3_step(pStmt) == SQLITE_ROW) {
          printf(" %s %.2f;", (const char *)sqlite3_column_text(pStmt, 0),
                 sqlite3_column_double(pStmt, 1) / (double)nElem);
        }
        printf("\n");
      }
      sqlite3_finalize(pStmt);
    }
    printf("\n");
    {
      /* The element question on direct=on and direct=off builds of each layout. */
      char *azSql[4];
      int k;
      azSql[0] =
          sqlite3_mprintf("SELECT rowid FROM r WHERE r MATCH 'skills:{skill:s20 AND level:excellent}'");
      azSql[1] =
          sqlite3_mprintf("SELECT rowid FROM rd WHERE rd MATCH 'skills:{skill:s20 AND level:excellent}'");
      azSql[2] =
          sqlite3_mprintf("SELECT rowid FROM q WHERE q MATCH 'skills:{skill:s20 AND level:excellent}'");
      azSql[3] =
          sqlite3_mprintf("SELECT rowid FROM qd WHERE qd MATCH 'skills:{skill:s20 AND level:excellent}'");
      BenchVariant aVar[4] = {
          {BENCH_EXTENSION, "elements layout, direct=on (after 'optimize')", azSql[0], 0, 0},
          {BENCH_EXTENSION, "elements layout, direct=off ('rebuild')", azSql[1], 0, 0},
          {BENCH_EXTENSION, "numbered layout, direct=on (after 'optimize')", azSql[2], 0, 0},
          {BENCH_EXTENSION, "numbered layout, direct=off ('rebuild')", azSql[3], 0, 0}};
      benchCompare(p, "element query, direct=on against direct=off", db, zSize, (double)nPeople, "people",
                   (double)benchInt(db,
                                    "SELECT count(*) FROM r WHERE r MATCH 'skills:{skill:s20 AND "
                                    "level:excellent}'"),
                   "match", aVar, 4);
      for (k = 0; k < 4; k++) sqlite3_free(azSql[k]);
    }
    sqlite3_close(db);
  }
  /* Growth with the largest element count: one element each, but one document in 1000 has M. */
  for (iM = 0; iM < 4; iM++) {
    sqlite3 *db = benchOpen();
    int64_t nGrow = benchSize(p, 100000, 1000);
    benchExec(db, zNbSchema);
    nElem = nbFill(db, nGrow, 1, 1000, aM[iM], 0, NULL);
    snprintf(zSize, sizeof(zSize), "%lld people, %lld elements, longest %d", (long long)nGrow,
             (long long)nElem, aM[iM]);
    snprintf(zTitle, sizeof(zTitle), "one element with skill and level, longest array %d (1 person in 1000)",
             aM[iM]);
    nbQuestions(p, db, zTitle, zSize, nGrow, "s20", "excellent", 0);
    sqlite3_close(db);
  }
}
