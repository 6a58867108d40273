/*
** bench_inverted_index.c: technique 10, inverted search and direct
** aggregation. Documents with 20 keyword terms (4 fields x 5 terms drawn
** from a Zipf vocabulary of 2500 terms per field), 200k then 500k of them,
** stored three ways in one database:
**
**   relational   user_attr(user_id, field, value) WITHOUT ROWID, keyed
**                (field, value, user_id), plus an index (user_id, ...)
**   FTS5         one row per document, one token per field:term
**   NoSQL        inverted_index (roaring-bitmap postings)
**
** Questions: AND and OR of two frequent terms (time per input posting);
** a skewed AND (1:1000, time per posting of the small list); the size of
** an audience; the facet report (unique documents per term of a field
** within an audience) against GROUP BY count(DISTINCT); and, printed as
** its own table, build time per term and bytes of each structure, with
** FTS5 contentless and the index over content= (row by row and 'rebuild',
** the bulk path) beside the index that stores the field values, with
** direct = on and off.
*/
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define II_BENCH_FIELDS 4    /* Keyword fields per document */
#define II_BENCH_PER_FIELD 5 /* Terms drawn per field (duplicates collapse) */
#define II_BENCH_VOCAB 2500  /* Terms per field */

/* The generated documents: aTerm[doc][field][k], term ranks 0..VOCAB-1. */
typedef struct IiBenchData IiBenchData;
struct IiBenchData {
  int nDoc;                                        /* Documents */
  uint16_t *aTerm;                                 /* nDoc * FIELDS * PER_FIELD term ranks */
  int64_t aCount[II_BENCH_FIELDS][II_BENCH_VOCAB]; /* Documents per term */
};

/* Zipf (s = 1) ranks by inverse CDF. */
static void iiBenchGenerate(IiBenchData *p, int nDoc) {
  double aCdf[II_BENCH_VOCAB];
  double rSum = 0;
  uint64_t seed = 20240610;
  int i, f, k;
  for (i = 0; i < II_BENCH_VOCAB; i++) rSum += 1.0 / (i + 1);
  for (i = 0, aCdf[0] = 0; i < II_BENCH_VOCAB; i++) aCdf[i] = (i ? aCdf[i - 1] : 0) + 1.0 / (i + 1) / rSum;
  memset(p, 0, sizeof(*p));
  p->nDoc = nDoc;
  p->aTerm = (uint16_t *)malloc(sizeof(uint16_t) * (size_t)nDoc * II_BENCH_FIELDS * II_BENCH_PER_FIELD);
  if (p->aTerm == NULL) exit(2);
  for (i = 0; i < nDoc; i++) {
    for (f = 0; f < II_BENCH_FIELDS; f++) {
      uint16_t *a = &p->aTerm[((size_t)i * II_BENCH_FIELDS + f) * II_BENCH_PER_FIELD];
      for (k = 0; k < II_BENCH_PER_FIELD; k++) {
        double u = (double)(benchRand(&seed) >> 11) / 9007199254740992.0;
        int lo = 0, hi = II_BENCH_VOCAB - 1, j;
        while (lo < hi) {
          int mid = (lo + hi) / 2;
          if (aCdf[mid] < u)
            lo = mid + 1;
          else
            hi = mid;
        }
        a[k] = (uint16_t)lo;
        for (j = 0; j < k && a[j] != a[k]; j++) {
        }
        if (j == k) p->aCount[f][lo]++;
      }
    }
  }
}

/* The term of field f whose document count is closest to n. */
static int iiBenchTermNear(const IiBenchData *p, int f, int64_t n) {
  int i, iBest = 0;
  for (i = 1; i < II_BENCH_VOCAB; i++) {
    if (llabs(p->aCount[f][i] - n) < llabs(p->aCount[f][iBest] - n)) iBest = i;
  }
  return iBest;
}

/*
** The term of field f1 whose document count is closest to n among those
** that share a document with term a0 of field f0, so that the skewed AND
** has rows to agree on at every size; -1 if a0 is in no document.
*/
static int iiBenchTermNearWith(const IiBenchData *p, int a0, int64_t n) {
  int i, k, iBest = -1;
  for (i = 0; i < p->nDoc; i++) {
    const uint16_t *aF0 = &p->aTerm[(size_t)i * II_BENCH_FIELDS * II_BENCH_PER_FIELD];
    const uint16_t *aF1 = aF0 + II_BENCH_PER_FIELD;
    for (k = 0; k < II_BENCH_PER_FIELD && aF0[k] != a0; k++) {
    }
    if (k == II_BENCH_PER_FIELD) continue;
    for (k = 0; k < II_BENCH_PER_FIELD; k++) {
      if (iBest < 0 || llabs(p->aCount[1][aF1[k]] - n) < llabs(p->aCount[1][iBest] - n) ||
          (llabs(p->aCount[1][aF1[k]] - n) == llabs(p->aCount[1][iBest] - n) && aF1[k] < iBest)) {
        iBest = aF1[k];
      }
    }
  }
  return iBest;
}

static sqlite3_int64 iiBenchBytes(sqlite3 *db) {
  sqlite3_stmt *pStmt = NULL;
  sqlite3_int64 n = 0;
  sqlite3_prepare_v2(
      db, "SELECT (SELECT page_count FROM pragma_page_count) * (SELECT page_size FROM pragma_page_size)", -1,
      &pStmt, 0);
  if (pStmt && sqlite3_step(pStmt) == SQLITE_ROW) n = sqlite3_column_int64(pStmt, 0);
  sqlite3_finalize(pStmt);
  return n;
}

static void iiBenchPrepare(sqlite3 *db, const char *zSql, sqlite3_stmt **ppStmt) {
  if (sqlite3_prepare_v2(db, zSql, -1, ppStmt, 0) != SQLITE_OK) {
    fprintf(stderr, "bench: %s\n  in: %s\n", sqlite3_errmsg(db), zSql);
    exit(2);
  }
}

static void iiBenchStep(sqlite3 *db, sqlite3_stmt *pStmt) {
  if (sqlite3_step(pStmt) != SQLITE_DONE) {
    fprintf(stderr, "bench: %s\n", sqlite3_errmsg(db));
    exit(2);
  }
  sqlite3_reset(pStmt);
}

/* Build the three structures, printing build time per term and bytes. */
static void iiBenchBuild(Bench *pB, sqlite3 *db, const IiBenchData *p) {
  static const char *azName[] = {"relational: user_attr + index",
                                 "FTS5 detail=none",
                                 "inverted_index",
                                 "FTS5 detail=none, content=''",
                                 "inverted_index content=, row by row",
                                 "inverted_index content=, 'rebuild'",
                                 "inverted_index content=, direct=off, row by row",
                                 "inverted_index content=, direct=off, 'rebuild'",
                                 "inverted_index direct=off (values stored)"};
  double aTime[9];
  sqlite3_int64 aBytes[9];
  int64_t nTerm = 0;
  int s, i, f, k;
  (void)pB;
  for (i = 0; i < p->nDoc; i++) {
    for (f = 0; f < II_BENCH_FIELDS; f++) {
      const uint16_t *a = &p->aTerm[((size_t)i * II_BENCH_FIELDS + f) * II_BENCH_PER_FIELD];
      for (k = 0; k < II_BENCH_PER_FIELD; k++) {
        int j;
        for (j = 0; j < k && a[j] != a[k]; j++) {
        }
        if (j == k) nTerm++;
      }
    }
  }
  benchExec(db,
            "CREATE TABLE user_attr(user_id INTEGER NOT NULL, field TEXT NOT NULL, value TEXT NOT NULL,"
            " PRIMARY KEY (field, value, user_id)) WITHOUT ROWID;"
            "CREATE INDEX user_attr_user ON user_attr(user_id, field, value);"
            "CREATE VIRTUAL TABLE docs_fts USING fts5(tokens, detail=none);"
            "CREATE VIRTUAL TABLE aud USING inverted_index(f0, f1, f2, f3);"
            "CREATE VIRTUAL TABLE aud_facets USING inverted_index_facets(aud);"
            "CREATE VIRTUAL TABLE docs_fts0 USING fts5(tokens, detail=none, content='');"
            "CREATE TABLE aud_src(id INTEGER PRIMARY KEY, f0, f1, f2, f3);"
            "CREATE VIRTUAL TABLE audr USING inverted_index(f0, f1, f2, f3, content=aud_src);"
            "CREATE VIRTUAL TABLE audc USING inverted_index(f0, f1, f2, f3, content=aud_src);"
            "CREATE VIRTUAL TABLE auddr USING inverted_index(f0, f1, f2, f3, content=aud_src, direct=off);"
            "CREATE VIRTUAL TABLE auddc USING inverted_index(f0, f1, f2, f3, content=aud_src, direct=off);"
            "CREATE VIRTUAL TABLE auds USING inverted_index(f0, f1, f2, f3, direct=off);");
  for (s = 0; s < 9; s++) {
    sqlite3_stmt *pIns = NULL;
    sqlite3_int64 nBefore;
    double t0;
    char zBuf[512];
    /* The content table of the last two (user data, not counted): the values aud stores. */
    if (s == 4) benchExec(db, "INSERT INTO aud_src SELECT id, c0, c1, c2, c3 FROM aud_docs ORDER BY id");
    nBefore = iiBenchBytes(db);
    t0 = benchNow();
    benchExec(db, "BEGIN");
    if (s >= 4 && s < 8) {
      benchExec(db, s == 4   ? "INSERT INTO audr(rowid, f0, f1, f2, f3) SELECT * FROM aud_src"
                    : s == 5 ? "INSERT INTO audc(audc) VALUES ('rebuild')"
                    : s == 6 ? "INSERT INTO auddr(rowid, f0, f1, f2, f3) SELECT * FROM aud_src"
                             : "INSERT INTO auddc(auddc) VALUES ('rebuild')");
      benchExec(db, "COMMIT");
      aTime[s] = benchNow() - t0;
      aBytes[s] = iiBenchBytes(db) - nBefore;
      continue;
    }
    if (s == 0) {
      iiBenchPrepare(db, "INSERT OR IGNORE INTO user_attr VALUES (?1, ?2, ?3)", &pIns);
    } else if (s == 1 || s == 3) {
      iiBenchPrepare(db,
                     s == 1 ? "INSERT INTO docs_fts(rowid, tokens) VALUES (?1, ?2)"
                            : "INSERT INTO docs_fts0(rowid, tokens) VALUES (?1, ?2)",
                     &pIns);
    } else {
      /* The values stored, direct = on (aud) and off (auds): the same rows, formatted alike. */
      iiBenchPrepare(db,
                     s == 2 ? "INSERT INTO aud(rowid, f0, f1, f2, f3) VALUES (?1, ?2, ?3, ?4, ?5)"
                            : "INSERT INTO auds(rowid, f0, f1, f2, f3) VALUES (?1, ?2, ?3, ?4, ?5)",
                     &pIns);
    }
    for (i = 0; i < p->nDoc; i++) {
      int n = 0;
      sqlite3_bind_int64(pIns, 1, i + 1);
      for (f = 0; f < II_BENCH_FIELDS; f++) {
        const uint16_t *a = &p->aTerm[((size_t)i * II_BENCH_FIELDS + f) * II_BENCH_PER_FIELD];
        if (s == 2 || s == 8) n = 0;
        if (s == 2 || s == 8) n += snprintf(zBuf + n, sizeof(zBuf) - (size_t)n, "[");
        for (k = 0; k < II_BENCH_PER_FIELD; k++) {
          if (s == 0) {
            char zVal[16];
            snprintf(zVal, sizeof(zVal), "t%d", a[k]);
            sqlite3_bind_text(pIns, 2, "f0\0f1\0f2\0f3" + 3 * f, 2, SQLITE_STATIC);
            sqlite3_bind_text(pIns, 3, zVal, -1, SQLITE_TRANSIENT);
            iiBenchStep(db, pIns);
            sqlite3_bind_int64(pIns, 1, i + 1);
          } else if (s == 1 || s == 3) {
            n += snprintf(zBuf + n, sizeof(zBuf) - (size_t)n, "%sf%dt%d", n ? " " : "", f, a[k]);
          } else {
            n += snprintf(zBuf + n, sizeof(zBuf) - (size_t)n, "%s\"t%d\"", k ? "," : "", a[k]);
          }
        }
        if (s == 2 || s == 8) {
          n += snprintf(zBuf + n, sizeof(zBuf) - (size_t)n, "]");
          sqlite3_bind_text(pIns, 2 + f, zBuf, n, SQLITE_TRANSIENT);
        }
      }
      if (s == 1 || s == 3) sqlite3_bind_text(pIns, 2, zBuf, n, SQLITE_TRANSIENT);
      if (s != 0) iiBenchStep(db, pIns);
    }
    sqlite3_finalize(pIns);
    benchExec(db, "COMMIT");
    aTime[s] = benchNow() - t0;
    aBytes[s] = iiBenchBytes(db) - nBefore;
  }
  printf("\n### inverted_index: build (%d documents, %lld distinct document terms)\n\n", p->nDoc,
         (long long)nTerm);
  printf(
      "| structure | build ms | ns/term | bytes | bytes/term | ratio (time) "
      "|\n|---|---:|---:|---:|---:|---:|\n");
  for (s = 0; s < 9; s++) {
    printf("| %s | %.0f | %.0f | %lld | %.2f | %.2fx |\n", azName[s], aTime[s] * 1e3,
           aTime[s] * 1e9 / (double)nTerm, (long long)aBytes[s], (double)aBytes[s] / (double)nTerm,
           aTime[s] / aTime[0]);
  }
  {
    /* The first query of a connection loads the document map and the posting lists it needs. */
    double t0 = benchNow();
    benchExec(db, "SELECT count(*) FROM aud WHERE aud MATCH 'f0:t0'");
    sqlite3_stmt *pStmt = NULL;
    printf("\nFirst query after the build (loads the document map): %.1f ms.\n", (benchNow() - t0) * 1e3);
    iiBenchPrepare(
        db,
        "SELECT (SELECT sum(length(postings)) FROM aud_terms), (SELECT sum(length(terms)) FROM aud_docs),"
        " (SELECT sum(length(c0) + length(c1) + length(c2) + length(c3)) FROM aud_docs)",
        &pStmt);
    if (sqlite3_step(pStmt) == SQLITE_ROW) {
      printf(
          "inverted_index payload per term: posting lists %.2f bytes, direct index %.2f, stored values "
          "%.2f.\n",
          sqlite3_column_double(pStmt, 0) / (double)nTerm, sqlite3_column_double(pStmt, 1) / (double)nTerm,
          sqlite3_column_double(pStmt, 2) / (double)nTerm);
    }
    sqlite3_finalize(pStmt);
    pStmt = NULL;
    /* Where the bytes of the content= builds go (dbstat: pages of each b-tree). */
    if (sqlite3_prepare_v2(db,
                           "SELECT name, sum(pgsize) FROM dbstat WHERE name LIKE 'audc%' OR name LIKE "
                           "'sqlite_autoindex_audc%' OR name LIKE 'auddc%' OR name LIKE "
                           "'sqlite_autoindex_auddc%' GROUP BY name ORDER BY name",
                           -1, &pStmt, 0) == SQLITE_OK) {
      printf(
          "\nBytes per term by b-tree (dbstat), content= 'rebuild' with direct=on (audc) and off (auddc):");
      while (sqlite3_step(pStmt) == SQLITE_ROW) {
        printf(" %s %.2f;", (const char *)sqlite3_column_text(pStmt, 0),
               sqlite3_column_double(pStmt, 1) / (double)nTerm);
      }
      printf("\n");
    }
    sqlite3_finalize(pStmt);
    pStmt = NULL;
    /* The same for the builds that keep the values: FTS5, direct = on (aud) and off (auds). */
    if (sqlite3_prepare_v2(db,
                           "SELECT name, sum(pgsize) FROM dbstat WHERE name GLOB 'docs_fts_*' OR name GLOB "
                           "'aud_*' OR name GLOB 'sqlite_autoindex_aud_*' OR name GLOB 'auds_*' OR name "
                           "GLOB 'sqlite_autoindex_auds_*' GROUP BY name ORDER BY name",
                           -1, &pStmt, 0) == SQLITE_OK) {
      printf(
          "\nBytes per term by b-tree (dbstat), values stored: FTS5 detail=none (docs_fts), inverted_index "
          "direct=on (aud) and direct=off (auds):");
      while (sqlite3_step(pStmt) == SQLITE_ROW) {
        printf(" %s %.2f;", (const char *)sqlite3_column_text(pStmt, 0),
               sqlite3_column_double(pStmt, 1) / (double)nTerm);
      }
      printf("\n");
    }
    sqlite3_finalize(pStmt);
  }
  fflush(stdout);
}

/*
** The facet report of field f2 for the audience "f<iField>:t<iTerm>" (nAud
** documents): GROUP BY count(DISTINCT) against the facets table's methods.
*/
static void iiBenchFacets(Bench *pB, sqlite3 *db, const IiBenchData *p, const char *zWhich, int iField,
                          int iTerm, int64_t nAud) {
  char zSize[96], zTitle[96];
  char *z[4];
  int i;
  snprintf(zSize, sizeof(zSize), "%d docs, audience %lld, field of %d terms", p->nDoc, (long long)nAud,
           II_BENCH_VOCAB);
  snprintf(zTitle, sizeof(zTitle), "inverted_index: facet report (%s audience)", zWhich);
  z[0] = sqlite3_mprintf(
      "SELECT a.value, count(DISTINCT a.user_id) FROM user_attr a WHERE a.field = 'f2' AND a.user_id IN "
      "(SELECT user_id FROM user_attr WHERE field = 'f%d' AND value = 't%d') GROUP BY a.value",
      iField, iTerm);
  for (i = 1; i < 4; i++) {
    static const char *azMethod[] = {"", " AND method = 'bitmap'", " AND method = 'direct'", ""};
    z[i] = sqlite3_mprintf("SELECT term, docs FROM aud_facets WHERE field = 'f2' AND query = 'f%d:t%d'%s",
                           iField, iTerm, azMethod[i]);
  }
  {
    const BenchVariant aVar[] = {{BENCH_RELATIONAL, "relational: GROUP BY count(DISTINCT)", z[0], 0, 0},
                                 {BENCH_EXTENSION, "facets: bitmap intersections", z[1], 0, 0},
                                 {BENCH_EXTENSION, "facets: direct index", z[2], 0, 0},
                                 {BENCH_EXTENSION, "facets: chosen by the estimate", z[3], 0, 0}};
    benchCompare(pB, zTitle, db, zSize, p->nDoc, "docs", (double)(nAud > 0 ? nAud : 1), "audience doc", aVar,
                 4);
  }
  for (i = 0; i < 4; i++) sqlite3_free(z[i]);
}

/* Both sides' counts of a term must agree: FTS5 token zFts, inverted_index query zIi. */
static void iiBenchAgree(sqlite3 *db, const char *zPhase, const char *zFts, const char *zIi) {
  char zSql[256];
  int64_t nF, nI;
  snprintf(zSql, sizeof(zSql), "SELECT count(*) FROM fx WHERE fx MATCH '%s'", zFts);
  nF = benchInt(db, zSql);
  snprintf(zSql, sizeof(zSql), "SELECT count(*) FROM sx WHERE sx MATCH '%s'", zIi);
  nI = benchInt(db, zSql);
  if (nF != nI || nF == 0) {
    fprintf(stderr, "bench: after %s, FTS5 has %lld rows of %s, the sync index %lld of %s\n", zPhase,
            (long long)nF, zFts, (long long)nI, zIi);
    exit(2);
  }
}

/*
** Writes to a content table that keeps its index in step: FTS5 external
** content with the triggers FTS5's documentation gives, against
** inverted_index(..., mode = 'sync') and its own triggers, on the same
** documents (FTS5 tokens f<field>t<term>, the index's JSON arrays): per-row
** time of the INSERTs, of UPDATEs of one field (its 5 terms replaced), and
** of DELETEs, then 'rebuild' and bytes of the sync index.
*/
static void iiBenchSync(sqlite3 *db, const IiBenchData *p) {
  static const char *const azPhase[] = {"INSERT", "UPDATE of one field", "DELETE"};
  static const char *const azFts[] = {
      "INSERT INTO fx_src SELECT rowid, tokens FROM docs_fts ORDER BY rowid",
      "UPDATE fx_src SET tokens = replace(tokens, 'f0t', 'f0u') WHERE id % 4 = 0",
      "DELETE FROM fx_src WHERE id % 4 = 1"};
  static const char *const azIi[] = {"INSERT INTO sx_src SELECT * FROM aud_src ORDER BY id",
                                     "UPDATE sx_src SET f0 = replace(f0, '\"t', '\"u') WHERE id % 4 = 0",
                                     "DELETE FROM sx_src WHERE id % 4 = 1"};
  double aF[3], aI[3], t0, tRebuild;
  int64_t anRow[3] = {p->nDoc, p->nDoc / 4, p->nDoc / 4}, nBytes = 0, nOff = 0;
  int i;
  benchExec(db,
            "CREATE TABLE fx_src(id INTEGER PRIMARY KEY, tokens);"
            "CREATE VIRTUAL TABLE fx USING fts5(tokens, detail=none, content=fx_src, content_rowid=id);"
            "CREATE TRIGGER fx_ai AFTER INSERT ON fx_src BEGIN"
            " INSERT INTO fx(rowid, tokens) VALUES (new.id, new.tokens); END;"
            "CREATE TRIGGER fx_ad AFTER DELETE ON fx_src BEGIN"
            " INSERT INTO fx(fx, rowid, tokens) VALUES ('delete', old.id, old.tokens); END;"
            "CREATE TRIGGER fx_au AFTER UPDATE ON fx_src BEGIN"
            " INSERT INTO fx(fx, rowid, tokens) VALUES ('delete', old.id, old.tokens);"
            " INSERT INTO fx(rowid, tokens) VALUES (new.id, new.tokens); END;"
            "CREATE TABLE sx_src(id INTEGER PRIMARY KEY, f0, f1, f2, f3);"
            "CREATE VIRTUAL TABLE sx USING inverted_index(f0, f1, f2, f3, content=sx_src, mode='sync');");
  for (i = 0; i < 3; i++) {
    t0 = benchNow();
    benchExec(db, "BEGIN");
    benchExec(db, azFts[i]);
    benchExec(db, "COMMIT");
    aF[i] = benchNow() - t0;
    t0 = benchNow();
    benchExec(db, "BEGIN");
    benchExec(db, azIi[i]);
    benchExec(db, "COMMIT");
    aI[i] = benchNow() - t0;
    if (i == 0) {
      /* The index's b-trees (dbstat), beside those of the direct = off 'rebuild' of the same rows. */
      nBytes = benchInt(
          db,
          "SELECT sum(pgsize) FROM dbstat WHERE (name GLOB 'sx_*' AND name <> 'sx_src') OR name GLOB "
          "'sqlite_autoindex_sx_*'");
      nOff = benchInt(db,
                      "SELECT sum(pgsize) FROM dbstat WHERE name GLOB 'auddc_*' OR name GLOB "
                      "'sqlite_autoindex_auddc_*'");
    }
    /* Agreement on real rows after each phase. */
    iiBenchAgree(db, azPhase[i], "f1t3", "f1:t3");
    iiBenchAgree(db, azPhase[i], "f2t0", "f2:t0");
    iiBenchAgree(db, azPhase[i], i ? "f0u1" : "f0t1", i ? "f0:u1" : "f0:t1");
  }
  benchExec(db, "INSERT INTO sx(sx) VALUES ('integrity-check')");
  t0 = benchNow();
  benchExec(db, "INSERT INTO sx(sx) VALUES ('rebuild')");
  tRebuild = benchNow() - t0;
  printf(
      "\n### inverted_index mode='sync' against FTS5 external content with its triggers (%d documents)\n\n",
      p->nDoc);
  printf(
      "| write to the content table | rows | FTS5 detail=none + triggers us/row | inverted_index mode='sync' "
      "us/row | ratio |\n|---|---:|---:|---:|---:|\n");
  for (i = 0; i < 3; i++) {
    printf("| %s | %lld | %.2f | %.2f | %.2fx |\n", azPhase[i], (long long)anRow[i],
           aF[i] * 1e6 / (double)anRow[i], aI[i] * 1e6 / (double)anRow[i], aI[i] / aF[i]);
  }
  printf(
      "\nSync index after the INSERTs: %lld bytes (content=, direct=off by 'rebuild': %lld); its 'rebuild' "
      "of "
      "the %lld rows left: %.0f ms.\n",
      (long long)nBytes, (long long)nOff, (long long)(p->nDoc - p->nDoc / 4), tRebuild * 1e3);
  fflush(stdout);
}

/* The timed questions, on the terms the generated counts make representative. */
static void iiBenchQueries(Bench *pB, sqlite3 *db, const IiBenchData *p) {
  char zSize[96];
  int a0 = iiBenchTermNear(p, 0, p->aCount[0][0]); /* most frequent of f0 */
  int b1 = iiBenchTermNear(p, 1, p->aCount[1][1]); /* second of f1 */
  int64_t nA = p->aCount[0][a0], nB = p->aCount[1][b1];
  int s1 = iiBenchTermNearWith(p, a0, nA / 1000 > 0 ? nA / 1000 : 1); /* the skewed small list */
  int64_t nS = s1 < 0 ? 0 : p->aCount[1][s1];
  char *z[30] = {0};
  int i;

  snprintf(zSize, sizeof(zSize), "%d docs, |A| = %lld, |B| = %lld", p->nDoc, (long long)nA, (long long)nB);
  z[0] = sqlite3_mprintf(
      "SELECT user_id FROM user_attr WHERE field = 'f0' AND value = 't%d' INTERSECT "
      "SELECT user_id FROM user_attr WHERE field = 'f1' AND value = 't%d'",
      a0, b1);
  z[1] = sqlite3_mprintf("SELECT rowid FROM docs_fts WHERE docs_fts MATCH 'f0t%d AND f1t%d'", a0, b1);
  z[2] = sqlite3_mprintf("SELECT rowid FROM aud WHERE aud MATCH 'f0:t%d AND f1:t%d'", a0, b1);
  {
    const BenchVariant aVar[] = {{BENCH_RELATIONAL, "relational: INTERSECT", z[0], 0, 0},
                                 {BENCH_RELATIONAL, "FTS5 MATCH", z[1], 0, 0},
                                 {BENCH_EXTENSION, "inverted_index MATCH", z[2], 0, 0}};
    benchCompare(pB, "inverted_index: AND of two frequent terms", db, zSize, p->nDoc, "docs",
                 (double)(nA + nB), "posting", aVar, 3);
  }
  z[3] = sqlite3_mprintf(
      "SELECT user_id FROM user_attr WHERE field = 'f0' AND value = 't%d' UNION "
      "SELECT user_id FROM user_attr WHERE field = 'f1' AND value = 't%d'",
      a0, b1);
  z[4] = sqlite3_mprintf("SELECT rowid FROM docs_fts WHERE docs_fts MATCH 'f0t%d OR f1t%d'", a0, b1);
  z[5] = sqlite3_mprintf("SELECT rowid FROM aud WHERE aud MATCH 'f0:t%d OR f1:t%d'", a0, b1);
  {
    const BenchVariant aVar[] = {{BENCH_RELATIONAL, "relational: UNION", z[3], 0, 0},
                                 {BENCH_RELATIONAL, "FTS5 MATCH", z[4], 0, 0},
                                 {BENCH_EXTENSION, "inverted_index MATCH", z[5], 0, 0}};
    benchCompare(pB, "inverted_index: OR of two frequent terms", db, zSize, p->nDoc, "docs",
                 (double)(nA + nB), "posting", aVar, 3);
  }
  z[21] = sqlite3_mprintf(
      "SELECT count(*) FROM (SELECT user_id FROM user_attr WHERE field = 'f0' AND value = 't%d' "
      "UNION SELECT user_id FROM user_attr WHERE field = 'f1' AND value = 't%d')",
      a0, b1);
  z[22] = sqlite3_mprintf("SELECT count(*) FROM docs_fts WHERE docs_fts MATCH 'f0t%d OR f1t%d'", a0, b1);
  z[23] = sqlite3_mprintf("SELECT count(*) FROM aud WHERE aud MATCH 'f0:t%d OR f1:t%d'", a0, b1);
  z[24] = sqlite3_mprintf("SELECT inverted_index_count('aud', 'f0:t%d OR f1:t%d')", a0, b1);
  {
    const BenchVariant aVar[] = {{BENCH_RELATIONAL, "relational: count(*) of UNION", z[21], 0, 0},
                                 {BENCH_RELATIONAL, "FTS5 count(*)", z[22], 0, 0},
                                 {BENCH_EXTENSION, "inverted_index count(*) (rows stepped)", z[23], 0, 0},
                                 {BENCH_EXTENSION, "inverted_index_count() (cardinality)", z[24], 0, 0}};
    benchCompare(pB, "inverted_index: OR of two frequent terms, count(*)", db, zSize, p->nDoc, "docs",
                 (double)(nA + nB), "posting", aVar, 4);
  }
  snprintf(zSize, sizeof(zSize), "%d docs, |A| = %lld, |S| = %lld", p->nDoc, (long long)nA, (long long)nS);
  z[6] = sqlite3_mprintf(
      "SELECT user_id FROM user_attr WHERE field = 'f1' AND value = 't%d' INTERSECT "
      "SELECT user_id FROM user_attr WHERE field = 'f0' AND value = 't%d'",
      s1, a0);
  z[7] = sqlite3_mprintf("SELECT rowid FROM docs_fts WHERE docs_fts MATCH 'f0t%d AND f1t%d'", a0, s1);
  z[8] = sqlite3_mprintf("SELECT rowid FROM aud WHERE aud MATCH 'f0:t%d AND f1:t%d'", a0, s1);
  {
    const BenchVariant aVar[] = {{BENCH_RELATIONAL, "relational: INTERSECT (small list first)", z[6], 0, 0},
                                 {BENCH_RELATIONAL, "FTS5 MATCH", z[7], 0, 0},
                                 {BENCH_EXTENSION, "inverted_index MATCH", z[8], 0, 0}};
    benchCompare(pB, "inverted_index: skewed AND (1:1000)", db, zSize, p->nDoc, "docs",
                 (double)(nS > 0 ? nS : 1), "small posting", aVar, 3);
  }
  snprintf(zSize, sizeof(zSize), "%d docs, |A| = %lld, |B| = %lld", p->nDoc, (long long)nA, (long long)nB);
  z[9] = sqlite3_mprintf(
      "SELECT count(*) FROM (SELECT user_id FROM user_attr WHERE field = 'f0' AND value = 't%d' "
      "INTERSECT SELECT user_id FROM user_attr WHERE field = 'f1' AND value = 't%d')",
      a0, b1);
  z[10] = sqlite3_mprintf("SELECT count(*) FROM docs_fts WHERE docs_fts MATCH 'f0t%d AND f1t%d'", a0, b1);
  z[11] = sqlite3_mprintf("SELECT count(*) FROM aud WHERE aud MATCH 'f0:t%d AND f1:t%d'", a0, b1);
  z[12] = sqlite3_mprintf("SELECT inverted_index_count('aud', 'f0:t%d AND f1:t%d')", a0, b1);
  {
    const BenchVariant aVar[] = {{BENCH_RELATIONAL, "relational: count(*) of INTERSECT", z[9], 0, 0},
                                 {BENCH_RELATIONAL, "FTS5 count(*)", z[10], 0, 0},
                                 {BENCH_EXTENSION, "inverted_index count(*) (rows stepped)", z[11], 0, 0},
                                 {BENCH_EXTENSION, "inverted_index_count() (cardinality)", z[12], 0, 0}};
    benchCompare(pB, "inverted_index: count(*) of an audience", db, zSize, p->nDoc, "docs", (double)(nA + nB),
                 "posting", aVar, 4);
  }
  /* Pagination: the next 10 rows after the middle rowid of an AND. */
  snprintf(zSize, sizeof(zSize), "%d docs, |A| = %lld, |B| = %lld, 10 rows", p->nDoc, (long long)nA,
           (long long)nB);
  z[25] = sqlite3_mprintf(
      "SELECT user_id FROM (SELECT user_id FROM user_attr WHERE field = 'f0' AND value = 't%d' AND user_id > "
      "%d "
      "INTERSECT SELECT user_id FROM user_attr WHERE field = 'f1' AND value = 't%d' AND user_id > %d) "
      "ORDER BY user_id LIMIT 10",
      a0, p->nDoc / 2, b1, p->nDoc / 2);
  z[26] = sqlite3_mprintf(
      "SELECT rowid FROM docs_fts WHERE docs_fts MATCH 'f0t%d AND f1t%d' AND rowid > %d ORDER BY rowid LIMIT "
      "10",
      a0, b1, p->nDoc / 2);
  z[27] = sqlite3_mprintf("SELECT rowid FROM aud WHERE aud MATCH 'f0:t%d AND f1:t%d' AND rowid > %d LIMIT 10",
                          a0, b1, p->nDoc / 2);
  {
    const BenchVariant aVar[] = {{BENCH_RELATIONAL, "relational: INTERSECT of rowid ranges", z[25], 0, 0},
                                 {BENCH_RELATIONAL, "FTS5 MATCH, rowid range", z[26], 0, 0},
                                 {BENCH_EXTENSION, "inverted_index MATCH, rowid range", z[27], 0, 0}};
    benchCompare(pB, "inverted_index: pagination (rowid > X LIMIT 10 of an AND)", db, zSize, p->nDoc, "docs",
                 10.0, "row", aVar, 3);
  }
  /* The report: unique documents per term of f2, for a large and a small audience. */
  iiBenchFacets(pB, db, p, "large", 0, a0, nA);
  iiBenchFacets(pB, db, p, "small", 1, s1, nS);
  /* The batch form: the report for 4 audiences (terms of ranks 2..5 of f0), one scan against one GROUP BY. */
  snprintf(zSize, sizeof(zSize), "%d docs, audiences %lld + %lld + %lld + %lld", p->nDoc,
           (long long)p->aCount[0][1], (long long)p->aCount[0][2], (long long)p->aCount[0][3],
           (long long)p->aCount[0][4]);
  z[28] = sqlite3_mprintf(
      "SELECT q.value, a.value, count(DISTINCT a.user_id) FROM user_attr q JOIN user_attr a "
      "ON a.user_id = q.user_id AND a.field = 'f2' WHERE q.field = 'f0' AND q.value IN ('t1', 't2', 't3', "
      "'t4') "
      "GROUP BY q.value, a.value");
  z[29] = sqlite3_mprintf(
      "SELECT substr(query, 4), term, docs FROM aud_facets WHERE field = 'f2' "
      "AND query IN ('f0:t1', 'f0:t2', 'f0:t3', 'f0:t4')");
  {
    const BenchVariant aVar[] = {
        {BENCH_RELATIONAL, "relational: one GROUP BY count(DISTINCT) over 4 audiences", z[28], 0, 0},
        {BENCH_EXTENSION, "facets: query IN (4 audiences), one scan", z[29], 0, 0}};
    benchCompare(pB, "inverted_index: batch facet report (4 audiences)", db, zSize, p->nDoc, "docs",
                 (double)(p->aCount[0][1] + p->aCount[0][2] + p->aCount[0][3] + p->aCount[0][4]),
                 "audience doc", aVar, 2);
  }
  for (i = 0; i < 30; i++) sqlite3_free(z[i]);
}

void benchInvertedIndex(Bench *p) {
  int64_t aSize[2];
  int iSize;
  aSize[0] = benchSize(p, 200000, 400);
  aSize[1] = benchSize(p, 500000, 1000);
  for (iSize = 0; iSize < 2; iSize++) {
    sqlite3 *db = benchOpen();
    IiBenchData *pData = (IiBenchData *)malloc(sizeof(IiBenchData));
    if (pData == NULL) exit(2);
    iiBenchGenerate(pData, (int)aSize[iSize]);
    iiBenchBuild(p, db, pData);
    if (p->zSave) {
      /* The documents as JSON objects of term arrays, for tests/bench/pg_gin.sh. */
      char zFile[64];
      snprintf(zFile, sizeof(zFile), "inverted_index_%d.tsv", pData->nDoc);
      benchSave(p, db, zFile,
                "SELECT user_id, json_group_object(field, json(v)) FROM (SELECT user_id, field,"
                " json_group_array(value) AS v FROM user_attr GROUP BY user_id, field) GROUP BY user_id"
                " ORDER BY user_id");
    }
    iiBenchQueries(p, db, pData);
    if (iSize == 0) iiBenchSync(db, pData);
    free(pData->aTerm);
    free(pData);
    sqlite3_close(db);
  }
}

/*
** RANGE fields (issue 37, docs/inverted_index.md "Numeric RANGE fields"):
** products with a brand (100 values), a colour (10) and a price (REAL,
** 0.00 .. 1000.00, uniform; 1,000,000 by default), in a table with an
** index on each column (ANALYZEd) and in inverted_index(brand, colour,
** price RANGE, content=prod, direct=off) built by 'rebuild'. Questions:
** the count of brand AND colour AND a price range (SQLite picks its best
** index, then checks the rest per row; the index intersects two posting
** lists and walks the price slices over what is left), the same as rowids,
** and a range-only count holding 10% and 50% of the rows against
** count(*) over the price index (a covering range scan). Build time and
** bytes are printed.
*/
static void iiBenchRangeBuild(sqlite3 *db, int64_t nDoc) {
  char *zSql = sqlite3_mprintf(
      "CREATE TABLE prod(id INTEGER PRIMARY KEY, brand TEXT, colour TEXT, price REAL);"
      "WITH RECURSIVE c(i, x, y, z) AS (SELECT 1, 12345, 678, 91011 UNION ALL"
      "  SELECT i + 1, (x * 1103515245 + 12345) %% 4294967296, (y * 69069 + 1) %% 4294967296,"
      "  (z * 22695477 + 1) %% 4294967296 FROM c WHERE i < %lld)"
      "INSERT INTO prod SELECT i, 'b' || ((x >> 8) %% 100), 'c' || ((y >> 8) %% 10),"
      "  ((z >> 4) %% 100001) / 100.0 FROM c;",
      (long long)nDoc);
  double t0, tRel, tIdx;
  sqlite3_int64 nRel = 0, nIdx = 0;
  sqlite3_stmt *pStmt = NULL;
  if (zSql == NULL) exit(2);
  benchExec(db, zSql);
  sqlite3_free(zSql);
  t0 = benchNow();
  benchExec(db,
            "CREATE INDEX prod_brand ON prod(brand); CREATE INDEX prod_colour ON prod(colour);"
            "CREATE INDEX prod_price ON prod(price); ANALYZE;");
  tRel = benchNow() - t0;
  t0 = benchNow();
  benchExec(
      db,
      "CREATE VIRTUAL TABLE pi USING inverted_index(brand, colour, price RANGE, content=prod, direct=off);"
      "INSERT INTO pi(pi) VALUES ('rebuild');");
  tIdx = benchNow() - t0;
  if (sqlite3_prepare_v2(
          db,
          "SELECT sum(CASE WHEN name LIKE 'prod_%' THEN pgsize END),"
          " sum(CASE WHEN name LIKE 'pi_%' OR name LIKE 'sqlite_autoindex_pi_%' THEN pgsize END)"
          " FROM dbstat",
          -1, &pStmt, 0) == SQLITE_OK &&
      sqlite3_step(pStmt) == SQLITE_ROW) {
    nRel = sqlite3_column_int64(pStmt, 0);
    nIdx = sqlite3_column_int64(pStmt, 1);
  }
  sqlite3_finalize(pStmt);
  printf(
      "\nRANGE fields, %lld products: build of the three indexes + ANALYZE %.2f s, %.1f MB (dbstat); "
      "inverted_index 'rebuild' (brand, colour, price RANGE, direct=off) %.2f s, %.1f MB.\n",
      (long long)nDoc, tRel, (double)nRel / 1048576.0, tIdx, (double)nIdx / 1048576.0);
  fflush(stdout);
}

void benchInvertedRange(Bench *p) {
  int64_t nDoc = benchSize(p, 1000000, 2000);
  sqlite3 *db = benchOpen();
  char zSize[96], *z[12] = {0};
  int64_t nAnd, n10, n50;
  int i;
  iiBenchRangeBuild(db, nDoc);
  /* brand AND colour AND price: about 1/1000 of the rows before the price, then 10% of those. */
  z[0] = sqlite3_mprintf(
      "SELECT count(*) FROM prod WHERE brand = 'b7' AND colour = 'c3' AND price BETWEEN 100 AND 200");
  z[1] =
      sqlite3_mprintf("SELECT inverted_index_count('pi', 'brand:b7 AND colour:c3 AND price:[100 TO 200]')");
  z[2] = sqlite3_mprintf(
      "SELECT id FROM prod WHERE brand = 'b7' AND colour = 'c3' AND price BETWEEN 100 AND 200");
  z[3] =
      sqlite3_mprintf("SELECT rowid FROM pi WHERE pi MATCH 'brand:b7 AND colour:c3 AND price:[100 TO 200]'");
  nAnd = benchInt(db, z[0]);
  snprintf(zSize, sizeof(zSize), "%lld products, %lld match", (long long)nDoc, (long long)nAnd);
  {
    const BenchVariant aVar[] = {
        {BENCH_RELATIONAL, "relational: count(*), an index per column (ANALYZEd)", z[0], 0, 0},
        {BENCH_EXTENSION, "inverted_index_count", z[1], 0, 0}};
    benchCompare(p, "inverted_index RANGE: count of brand AND colour AND price range", db, zSize,
                 (double)nDoc, "docs", 1, "query", aVar, 2);
  }
  {
    const BenchVariant aVar[] = {
        {BENCH_RELATIONAL, "relational: rowids, an index per column (ANALYZEd)", z[2], 0, 0},
        {BENCH_EXTENSION, "inverted_index MATCH", z[3], 0, 0}};
    benchCompare(p, "inverted_index RANGE: rowids of brand AND colour AND price range", db, zSize,
                 (double)nDoc, "docs", (double)(nAnd > 0 ? nAnd : 1), "row", aVar, 2);
  }
  /* Range only: 10% and 50% of the rows. */
  z[4] = sqlite3_mprintf("SELECT count(*) FROM prod WHERE price BETWEEN 300 AND 400");
  z[5] = sqlite3_mprintf("SELECT inverted_index_count('pi', 'price:[300 TO 400]')");
  z[6] = sqlite3_mprintf("SELECT count(*) FROM prod WHERE price >= 250 AND price < 750");
  z[7] = sqlite3_mprintf("SELECT inverted_index_count('pi', 'price:[250 TO 750}')");
  n10 = benchInt(db, z[4]);
  n50 = benchInt(db, z[6]);
  snprintf(zSize, sizeof(zSize), "%lld products, %lld in range (10%%)", (long long)nDoc, (long long)n10);
  {
    const BenchVariant aVar[] = {{BENCH_RELATIONAL, "relational: count(*) over the price index", z[4], 0, 0},
                                 {BENCH_EXTENSION, "inverted_index_count", z[5], 0, 0}};
    benchCompare(p, "inverted_index RANGE: range-only count (10% of rows)", db, zSize, (double)nDoc, "docs",
                 (double)n10, "row in range", aVar, 2);
  }
  snprintf(zSize, sizeof(zSize), "%lld products, %lld in range (50%%)", (long long)nDoc, (long long)n50);
  {
    const BenchVariant aVar[] = {{BENCH_RELATIONAL, "relational: count(*) over the price index", z[6], 0, 0},
                                 {BENCH_EXTENSION, "inverted_index_count", z[7], 0, 0}};
    benchCompare(p, "inverted_index RANGE: range-only count (50% of rows)", db, zSize, (double)nDoc, "docs",
                 (double)n50, "row in range", aVar, 2);
  }
  for (i = 0; i < 12; i++) sqlite3_free(z[i]);
  sqlite3_close(db);
}
