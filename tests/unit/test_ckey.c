/*
** test_ckey.c: unit tests of the pure cores of ext/ckey.c (tuple-layer
** encoding), ext/hll.c (HyperLogLog) and ext/kv.c (checked addition).
*/
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nosql.h"
#include "nosqlTest.h"
#include "unit.h"

void unitApiInit(void);

/* Hex of a[0..n) into z (room for 2n+1). */
static const char *unitHex(const unsigned char *a, int n, char *z) {
  int i;
  for (i = 0; i < n; i++) sprintf(&z[2 * i], "%02X", a[i]);
  z[2 * n] = 0;
  return z;
}

static void testEncodeInt(void) {
  static const struct {
    sqlite3_int64 v;  /* Value */
    const char *zHex; /* FoundationDB encoding */
  } aCase[] = {
      {0, "14"},
      {1, "1501"},
      {-1, "13FE"},
      {255, "15FF"},
      {256, "160100"},
      {-255, "1300"},
      {-256, "12FEFF"},
      {-5551212, "11AB4B93"}, /* design/tuple.md */
      {INT64_MAX, "1C7FFFFFFFFFFFFFFF"},
      {INT64_MIN, "0C7FFFFFFFFFFFFFFF"},
  };
  size_t i;
  for (i = 0; i < sizeof(aCase) / sizeof(aCase[0]); i++) {
    unsigned char a[CKEY_MAX_INT];
    char z[32];
    int n = ckeyEncodeInt(a, aCase[i].v);
    int iOff = 0;
    CkeyPart part;
    CHECK_STR(unitHex(a, n, z), aCase[i].zHex);
    CHECK(ckeyParse(a, n, &iOff, &part) == NULL);
    CHECK_INT(iOff, n);
    CHECK_INT(part.eType, SQLITE_INTEGER);
    CHECK(part.iVal == aCase[i].v);
  }
}

static void testEncodeReal(void) {
  unsigned char a[CKEY_MAX_INT];
  char z[32];
  int iOff = 0;
  CkeyPart part;
  CHECK_STR(unitHex(a, ckeyEncodeReal(a, 1.5), z), "21BFF8000000000000");
  CHECK_STR(unitHex(a, ckeyEncodeReal(a, -42.0), z), "213FBAFFFFFFFFFFFF");
  CHECK_STR(unitHex(a, ckeyEncodeReal(a, -0.0), z), "217FFFFFFFFFFFFFFF");
  ckeyEncodeReal(a, -1e-300);
  CHECK(ckeyParse(a, 9, &iOff, &part) == NULL);
  CHECK(part.rVal == -1e-300);
}

/* memcmp order of encodings equals numeric order, for random values. */
static void testOrder(void) {
  uint64_t x = 88172645463325252ull;
  int i, nBad = 0;
  for (i = 0; i < 20000; i++) {
    unsigned char a[CKEY_MAX_INT], b[CKEY_MAX_INT];
    sqlite3_int64 u, v;
    double r, s;
    int na, nb, c;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    u = (sqlite3_int64)x >> (x % 64);
    v = (sqlite3_int64)(x * 0x9e3779b97f4a7c15ull) >> ((x >> 8) % 64);
    na = ckeyEncodeInt(a, u);
    nb = ckeyEncodeInt(b, v);
    c = memcmp(a, b, (size_t)(na < nb ? na : nb));
    if (c == 0) c = na - nb;
    if ((c < 0) != (u < v) || (c == 0) != (u == v)) nBad++;
    r = (double)u / 3.0;
    s = (double)v * 1e-5;
    ckeyEncodeReal(a, r);
    ckeyEncodeReal(b, s);
    c = memcmp(a, b, 9);
    if ((c < 0) != (r < s)) nBad++;
  }
  CHECK_INT(nBad, 0);
}

static void testBytes(void) {
  NosqlBuffer b = {0, 0, 0};
  int rc = SQLITE_OK, iOff = 0;
  CkeyPart part;
  unsigned char aOut[16];
  char z[64];
  ckeyAppendBytes(&rc, &b, CKEY_BLOB, (const unsigned char *)"foo\0bar", 7);
  CHECK_STR(unitHex(b.a, (int)b.n, z), "01666F6F00FF62617200");
  CHECK(ckeyParse(b.a, (int)b.n, &iOff, &part) == NULL);
  CHECK_INT(part.nRaw, 8);
  CHECK_INT(part.nData, 7);
  ckeyUnescape(part.z, part.nRaw, aOut);
  CHECK(memcmp(aOut, "foo\0bar", 7) == 0);
  /* Truncations are errors, or (cut right after the escaped 0x00) the key of "foo". */
  {
    int n;
    for (n = 1; n < (int)b.n; n++) {
      const char *zWhy;
      iOff = 0;
      zWhy = ckeyParse(b.a, n, &iOff, &part);
      CHECK(n == 5 ? (zWhy == NULL && iOff == 5 && part.nData == 3) : zWhy != NULL);
    }
  }
  nosqlBufferFree(&b);
}

static void testMalformed(void) {
  static const struct {
    const char *a;    /* Bytes */
    int n;            /* Length */
    const char *zWhy; /* Expected error */
  } aCase[] = {
      {"\x15", 1, "truncated integer"},
      {"\x16\x00\x01", 3, "non-canonical integer"},
      {"\x13\xff", 2, "non-canonical integer"},
      {"\x1c\xff\xff\xff\xff\xff\xff\xff\xff", 9, "integer above the 64-bit range"},
      {"\x0c\x00\x00\x00\x00\x00\x00\x00\x00", 9, "integer below the 64-bit range"},
      {"\x21\x00", 2, "truncated real"},
      {"\x21\xff\xf8\x00\x00\x00\x00\x00\x00", 9, "NaN real"},
      {"\x21\x00\x07\xff\xff\xff\xff\xff\xff", 9, "NaN real"},
      {"\x02\x61", 2, "unterminated text"},
      {"\x01\x00\xff", 3, "unterminated blob"},
      {"\x05", 1, "unsupported type code"},
      {"\xff", 1, "unsupported type code"},
  };
  size_t i;
  for (i = 0; i < sizeof(aCase) / sizeof(aCase[0]); i++) {
    CkeyPart part;
    int iOff = 0;
    const char *zWhy = ckeyParse((const unsigned char *)aCase[i].a, aCase[i].n, &iOff, &part);
    CHECK_STR(zWhy, aCase[i].zWhy);
    CHECK_INT(iOff, 0);
  }
}

static void testStrinc(void) {
  unsigned char aOut[8];
  CHECK_INT(ckeyStrinc((const unsigned char *)"\x01\xff\xff", 3, aOut), 1);
  CHECK_INT(aOut[0], 0x02);
  CHECK_INT(ckeyStrinc((const unsigned char *)"ab", 2, aOut), 2);
  CHECK(memcmp(aOut, "ac", 2) == 0);
  CHECK_INT(ckeyStrinc((const unsigned char *)"\xff\xff", 2, aOut), -1);
  CHECK_INT(ckeyStrinc((const unsigned char *)"", 0, aOut), -1);
}

static void testEscaped(void) {
  NosqlBuffer b = {0, 0, 0};
  int rc = SQLITE_OK;
  ckeyAppendEscaped(&rc, &b, (const unsigned char *)"a:b\\c", 5, ':');
  CHECK_STR((const char *)b.a, "a\\:b\\\\c");
  nosqlBufferFree(&b);
}

/* HyperLogLog: relative error on known cardinalities within 3 standard errors. */
static void testHll(void) {
  static const int aCard[] = {1, 10, 100, 1000, 10000, 30000, 100000, 1000000};
  int p;
  for (p = 10; p <= 16; p += 2) {
    size_t k;
    unsigned char *aReg = (unsigned char *)calloc((size_t)1 << p, 1);
    double rSe = 1.04 / sqrt((double)(1 << p));
    int i = 0;
    if (aReg == NULL) return;
    CHECK(hllEstimate(aReg, p) == 0.0);
    for (k = 0; k < sizeof(aCard) / sizeof(aCard[0]); k++) {
      double rEst;
      for (; i < aCard[k]; i++) hllAdd(aReg, p, hllHashInt(i));
      rEst = hllEstimate(aReg, p);
      CHECK(fabs(rEst - aCard[k]) <= 3 * rSe * aCard[k] + 0.5);
    }
    free(aReg);
  }
}

static void testHllSerialize(void) {
  int p = 12;
  unsigned char *aReg = (unsigned char *)calloc(1 << 12, 1);
  unsigned char *aReg2 = (unsigned char *)calloc(1 << 12, 1);
  unsigned char *aBlob = (unsigned char *)malloc((size_t)hllSketchBytes(12));
  int i, p2 = 0;
  if (aReg == NULL || aReg2 == NULL || aBlob == NULL) return;
  for (i = 0; i < 50000; i++) hllAdd(aReg, p, hllHashBytes(&i, sizeof(i), 7));
  hllSerialize(aReg, p, aBlob);
  CHECK(hllDeserialize(aBlob, hllSketchBytes(12), aReg2, &p2) == NULL);
  CHECK_INT(p2, 12);
  CHECK(memcmp(aReg, aReg2, 1 << 12) == 0);
  CHECK_STR(hllDeserialize(aBlob, hllSketchBytes(12) - 1, NULL, &p2), "wrong length for its precision");
  aBlob[4] = 0xFF; /* Register 0 becomes 63 > 65 - 12 */
  CHECK_STR(hllDeserialize(aBlob, hllSketchBytes(12), NULL, &p2), "register value out of range");
  aBlob[0] = 'X';
  CHECK_STR(hllDeserialize(aBlob, hllSketchBytes(12), NULL, &p2), "not an hll sketch (bad header)");
  free(aReg);
  free(aReg2);
  free(aBlob);
}

static void testKvAdd(void) {
  sqlite3_int64 v = INT64_MAX - 1;
  CHECK(kvAddChecked(&v, 1));
  CHECK(v == INT64_MAX);
  CHECK(!kvAddChecked(&v, 1));
  CHECK(v == INT64_MAX);
  v = INT64_MIN;
  CHECK(!kvAddChecked(&v, -1));
  CHECK(kvAddChecked(&v, INT64_MAX));
  CHECK_INT(v, -1);
  CHECK(kvAddChecked(&v, 0));
}

/*
** ckey_decode writes up to six bytes per input byte: past
** SQLITE_LIMIT_LENGTH it stops with "too big" instead of first building the
** whole text (99,000 control characters would be 594,000 bytes).
*/
static void testDecodeLengthLimit(void) {
  sqlite3 *db = NULL;
  sqlite3_stmt *pStmt = NULL;
  sqlite3_int64 iCur = 0, iHigh = 0, iBase = 0;
  int rc;
  sqlite3_auto_extension((void (*)(void))sqlite3_nosql_init);
  rc = sqlite3_open(":memory:", &db);
  sqlite3_cancel_auto_extension((void (*)(void))sqlite3_nosql_init);
  CHECK_INT(rc, SQLITE_OK);
  if (rc != SQLITE_OK) {
    sqlite3_close(db);
    return;
  }
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 100000);
  rc = sqlite3_exec(
      db,
      "CREATE TABLE k(b BLOB); INSERT INTO k VALUES (ckey(replace(printf('%.*c', 99000, 'x'), 'x', "
      "char(1))))",
      NULL, NULL, NULL);
  CHECK_INT(rc, SQLITE_OK);
  CHECK_INT(sqlite3_prepare_v2(db, "SELECT ckey_decode(b) FROM k", -1, &pStmt, NULL), SQLITE_OK);
  sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &iBase, &iHigh, 1);
  rc = sqlite3_step(pStmt);
  sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &iCur, &iHigh, 0);
  CHECK_INT(rc, SQLITE_TOOBIG);
  CHECK(strstr(sqlite3_errmsg(db), "too big") != NULL);
  /* The key (99,002 bytes), its unescaped text and at most ~100,000 bytes of output. */
  CHECK(iHigh - iBase < 700000);
  if (iHigh - iBase >= 700000) printf("high water %lld bytes above the start\n", (long long)(iHigh - iBase));
  sqlite3_finalize(pStmt);
  /* Under the limit, the same key decodes in full. */
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1000000);
  CHECK_INT(sqlite3_prepare_v2(db, "SELECT length(ckey_decode(b)) FROM k", -1, &pStmt, NULL), SQLITE_OK);
  CHECK_INT(sqlite3_step(pStmt), SQLITE_ROW);
  CHECK_INT(sqlite3_column_int(pStmt, 0), 99000 * 6 + 4);
  sqlite3_finalize(pStmt);
  sqlite3_close(db);
}

/*
** ckey_decode writes a real with the fewest digits that read back to it
** exactly. The check reads them with the C library's strtod, which is
** exact: SQLite 3.47 to 3.51 read some 17-digit reals one ulp off, so the
** sqllogictest (tests/ckey/ckey.test) can only compare within an ulp.
** Bit patterns from every binade, both signs, subnormals and the
** value that SQLite misreads.
*/
static void testDecodeRealExact(void) {
  sqlite3 *db = NULL;
  sqlite3_stmt *pStmt = NULL;
  uint64_t x = 0x2545F4914F6CDD1Dull;
  int i, nBad = 0, rc;
  sqlite3_auto_extension((void (*)(void))sqlite3_nosql_init);
  rc = sqlite3_open(":memory:", &db);
  sqlite3_cancel_auto_extension((void (*)(void))sqlite3_nosql_init);
  CHECK_INT(rc, SQLITE_OK);
  CHECK_INT(sqlite3_prepare_v2(db, "SELECT ckey_decode(ckey(?1))", -1, &pStmt, NULL), SQLITE_OK);
  for (i = 0; pStmt && i < 20001; i++) {
    double r, rBack;
    const char *z;
    char *zEnd = NULL;
    if (i == 20000) {
      r = -3.1032643901734105e-194;
    } else {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      memcpy(&r, &x, sizeof(r));
      if (isnan(r) || isinf(r)) continue;
    }
    sqlite3_bind_double(pStmt, 1, r);
    if (sqlite3_step(pStmt) != SQLITE_ROW) {
      nBad++;
      sqlite3_reset(pStmt);
      continue;
    }
    z = (const char *)sqlite3_column_text(pStmt, 0); /* "[<real>]" */
    rBack = z && z[0] == '[' ? strtod(z + 1, &zEnd) : 0.0;
    if (zEnd == NULL || strcmp(zEnd, "]") != 0 || memcmp(&rBack, &r, sizeof(r)) != 0) {
      if (nBad++ < 5) printf("ckey_decode(ckey(%.17g)) is %s\n", r, z ? z : "NULL");
    }
    sqlite3_reset(pStmt);
  }
  CHECK_INT(nBad, 0);
  sqlite3_finalize(pStmt);
  sqlite3_close(db);
}

int main(void) {
  unitApiInit();
  RUN(testEncodeInt);
  RUN(testEncodeReal);
  RUN(testOrder);
  RUN(testBytes);
  RUN(testMalformed);
  RUN(testStrinc);
  RUN(testEscaped);
  RUN(testHll);
  RUN(testHllSerialize);
  RUN(testKvAdd);
  RUN(testDecodeLengthLimit);
  RUN(testDecodeRealExact);
  return unitReport();
}
