/*
** test_geohash.c: unit tests of the pure core of ext/geohash.c: exact
** quantisation against bisection, the two interleave kernels, strings,
** cells and neighbours, the curves, and the cover invariant (no point
** within the radius or box outside the ranges) on many random shapes.
*/
#include <math.h>
#include <stdlib.h>

#include "nosqlTest.h"
#include <string.h>

#include "unit.h"

void unitApiInit(void);

/* Deterministic random numbers (splitmix64). */
static uint64_t testRand(uint64_t *p) {
  uint64_t z = (*p += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static double testUniform(uint64_t *p, double lo, double hi) {
  return lo + (hi - lo) * ((double)(testRand(p) >> 11) * 0x1p-53);
}

/* The reference: bisection on the exact value, upper half on ties. */
static uint32_t testBisect(double x, double lo, double hi) {
  uint32_t v = 0;
  int i;
  for (i = 0; i < 32; i++) {
    double mid = (lo + hi) / 2;
    v <<= 1;
    if (x >= mid) {
      v |= 1;
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return v;
}

static void testQuantize(void) {
  uint64_t seed = 1;
  int i, nBad = 0;
  CHECK_INT(geohashQuantizeLat(-90.0), 0);
  CHECK_INT(geohashQuantizeLat(90.0), 0xffffffffu);
  CHECK_INT(geohashQuantizeLon(180.0), 0xffffffffu);
  CHECK_INT(geohashQuantizeLat(0.0), 0x80000000u);
  CHECK_INT(geohashQuantizeLat(-0.0), 0x80000000u);
  CHECK_INT(geohashQuantizeLat(nextafter(0.0, -1.0)), 0x7fffffffu);
  CHECK_INT(geohashQuantizeLon(nextafter(-90.0, -100.0)), 0x3fffffffu);
  for (i = 0; i < 200000; i++) {
    /* Small magnitudes have bits finer than the sum x + 90 keeps: the case
    ** the Fast2Sum correction exists for. */
    double lat = i % 3 == 0 ? testUniform(&seed, -1e-6, 1e-6) : testUniform(&seed, -90, 90);
    double lon =
        i % 3 == 1 ? ldexp(testUniform(&seed, -1, 1), -(int)(i % 40)) : testUniform(&seed, -180, 180);
    if (geohashQuantizeLat(lat) != testBisect(lat, -90, 90)) nBad++;
    if (geohashQuantizeLon(lon) != testBisect(lon, -180, 180)) nBad++;
  }
  /* Exact cell borders at 32 bits, and the doubles next to them. */
  for (i = 0; i < 20000; i++) {
    uint32_t k = (uint32_t)testRand(&seed);
    double b = -90.0 + 180.0 * ldexp((double)k, -32);
    double d[3];
    int j;
    d[0] = b;
    d[1] = nextafter(b, -1000);
    d[2] = nextafter(b, 1000);
    for (j = 0; j < 3; j++) {
      if (d[j] >= -90 && d[j] <= 90 && geohashQuantizeLat(d[j]) != testBisect(d[j], -90, 90)) nBad++;
    }
  }
  CHECK_INT(nBad, 0);
}

/* The batch kernels agree with the scalar encoder, borders included. */
static void testBatch(void) {
  enum { N = 100003 };
  static double aLat[N], aLon[N];
  static uint64_t aOut[N];
  uint64_t seed = 5;
  int i, nBad = 0;
  for (i = 0; i < N; i++) {
    uint32_t k = (uint32_t)testRand(&seed);
    switch (i % 4) {
      case 0: /* an exact 32-bit border */
        aLat[i] = -90.0 + 180.0 * ldexp((double)k, -32);
        aLon[i] = -180.0 + 360.0 * ldexp((double)k, -32);
        break;
      case 1: /* tiny magnitudes, finer than the sum keeps */
        aLat[i] = testUniform(&seed, -1e-9, 1e-9);
        aLon[i] = ldexp(testUniform(&seed, -1, 1), -(int)(k % 60));
        break;
      default:
        aLat[i] = testUniform(&seed, -90, 90);
        aLon[i] = testUniform(&seed, -180, 180);
    }
  }
  aLat[0] = 90;
  aLon[0] = 180;
  aLat[1] = -90;
  aLon[1] = -180;
  geohashEncodeBatch(aLat, aLon, aOut, N);
  for (i = 0; i < N; i++) {
    uint64_t ref = ((uint64_t)testBisect(aLon[i], -180, 180) << 32) | testBisect(aLat[i], -90, 90);
    if (aOut[i] != geohashInterleavePortable((uint32_t)(ref >> 32), (uint32_t)ref)) nBad++;
  }
  if (geohashHasAvx2()) {
    geohashEncodeBatchAvx2(aLat, aLon, aOut, N);
    for (i = 0; i < N; i++) nBad += aOut[i] != geohashEncodePortable(aLat[i], aLon[i]);
  }
  if (geohashHasPdep()) {
    geohashEncodeBatchPdep(aLat, aLon, aOut, N);
    for (i = 0; i < N; i++) nBad += aOut[i] != geohashEncodePortable(aLat[i], aLon[i]);
  }
  CHECK_INT(nBad, 0);
}

static void testInterleave(void) {
  uint64_t seed = 2;
  int i, nBad = 0;
  for (i = 0; i < 100000; i++) {
    uint32_t a = (uint32_t)testRand(&seed), b = (uint32_t)testRand(&seed);
    uint64_t v = geohashInterleavePortable(a, b);
    if (geohashHasPdep() && geohashInterleavePdep(a, b) != v) nBad++;
    if (geohashSqueeze(v >> 1) != a || geohashSqueeze(v) != b) nBad++;
    if (geohashSqueeze(geohashSpread(a)) != a) nBad++;
  }
  CHECK_INT(nBad, 0);
  CHECK(geohashInterleavePortable(1u << 31, 0) == 1ull << 63);
  CHECK(geohashInterleavePortable(0, 1u << 31) == 1ull << 62);
}

static void testEncode(void) {
  char z[13];
  uint64_t bits = 0;
  double aLat[4] = {42.6, 57.64911, -90, 90}, aLon[4] = {-5.6, 10.40744, -180, 180};
  uint64_t aOut[4], aOut2[4];
  geohashToString(geohashEncode(42.6, -5.6), 5, z);
  CHECK_STR(z, "ezs42");
  geohashToString(geohashEncode(57.64911, 10.40744), 11, z);
  CHECK_STR(z, "u4pruydqqvj");
  geohashToString(geohashEncode(90, 180), 12, z);
  CHECK_STR(z, "zzzzzzzzzzzz");
  CHECK_INT(geohashFromString("ezs42", 5, &bits), -1);
  geohashToString(bits, 5, z);
  CHECK_STR(z, "ezs42");
  CHECK_INT(geohashFromString("ezs4a", 5, &bits), 4);
  CHECK_INT(geohashFromString("Ezs4", 4, &bits), 0);
  geohashEncodeBatch(aLat, aLon, aOut, 4);
  geohashEncodeBatchPortable(aLat, aLon, aOut2, 4);
  CHECK(memcmp(aOut, aOut2, sizeof(aOut)) == 0);
  geohashEncodeBatchPdep(aLat, aLon, aOut2, geohashHasPdep() ? 4 : 0);
  CHECK(!geohashHasPdep() || memcmp(aOut, aOut2, sizeof(aOut)) == 0);
}

static void testCells(void) {
  GeohashCell cell;
  GeohashBounds b;
  uint64_t bits = 0;
  char z[13];
  geohashFromString("ezs42", 5, &bits);
  geohashCellOf(bits, 25, &cell);
  CHECK_INT(cell.nLonBit, 13);
  CHECK_INT(cell.nLatBit, 12);
  CHECK(geohashCellBits(&cell) == bits);
  geohashCellBounds(&cell, &b);
  CHECK(b.minLat == 42.5830078125 && b.maxLat == 42.626953125);
  CHECK(b.minLon == -5.625 && b.maxLon == -5.5810546875);
  CHECK(geohashNeighbor(&cell, 0, -1));
  geohashToString(geohashCellBits(&cell), 5, z);
  CHECK_STR(z, "ezefr");
  /* Wrap east-west, stop at the poles. */
  geohashFromString("zzz", 3, &bits);
  geohashCellOf(bits, 15, &cell);
  CHECK_INT(geohashNeighbor(&cell, 1, 0), 0);
  CHECK(geohashNeighbor(&cell, 0, 1));
  geohashToString(geohashCellBits(&cell), 3, z);
  CHECK_STR(z, "bpb");
  geohashCellOf(0, 0, &cell);
  geohashCellBounds(&cell, &b);
  CHECK(b.minLat == -90 && b.maxLat == 90 && b.minLon == -180 && b.maxLon == 180);
}

static void testRangeString(void) {
  char z[13];
  CHECK_INT(geohashRangeString(0, z), 0);
  CHECK_STR(z, "");
  CHECK_INT(geohashRangeString(1ull << 60, z), 1);
  CHECK_STR(z, "{");
  geohashRangeString(24ull << 55, z);
  CHECK_STR(z, "s");
  geohashRangeString(1, z);
  CHECK_STR(z, "000000000001");
}

static void testCurves(void) {
  uint32_t x, y;
  uint64_t d;
  int nBad = 0;
  CHECK(geohashZorder(3, 5) == 39);
  CHECK(geohashHilbert(3, 0, 2) == 15);
  for (d = 0; d + 1 < (1u << 16); d++) {
    uint32_t x2, y2;
    geohashHilbertInverse(d, 8, &x, &y);
    geohashHilbertInverse(d + 1, 8, &x2, &y2);
    if (geohashHilbert(x, y, 8) != d) nBad++;
    if ((x > x2 ? x - x2 : x2 - x) + (y > y2 ? y - y2 : y2 - y) != 1) nBad++;
  }
  CHECK_INT(nBad, 0);
  geohashHilbertInverse(geohashHilbert(123456789, 987654321, 31), 31, &x, &y);
  CHECK_INT(x, 123456789);
  CHECK_INT(y, 987654321);
}

/* True when the 60-bit code of (lat, lon) lies in one of the ranges. */
static int testCovered(const GeohashCover *p, double lat, double lon) {
  uint64_t v = geohashEncode(lat, lon) >> 4;
  int i;
  for (i = 0; i < p->nRange; i++) {
    if (v >= p->aRange[i].lo && v < p->aRange[i].hi) return 1;
  }
  return 0;
}

/* Ranges sorted, non-empty, not touching, at most GEOHASH_COVER_MAX. */
static int testWellFormed(const GeohashCover *p) {
  int i;
  if (p->nRange < 1 || p->nRange > GEOHASH_COVER_MAX) return 0;
  for (i = 0; i < p->nRange; i++) {
    if (p->aRange[i].lo >= p->aRange[i].hi) return 0;
    if (i > 0 && p->aRange[i - 1].hi >= p->aRange[i].lo) return 0;
  }
  return 1;
}

static void testCoverCircle(void) {
  GeohashCover *p = (GeohashCover *)malloc(sizeof(GeohashCover));
  uint64_t seed = 3;
  int i, j, nMissed = 0, nBadForm = 0, nHit = 0;
  if (p == NULL) return;
  for (i = 0; i < 400; i++) {
    double lat = i % 4 == 0 ? testUniform(&seed, 80, 90) : testUniform(&seed, -90, 90);
    double lon = i % 4 == 1 ? testUniform(&seed, 175, 180) : testUniform(&seed, -180, 180);
    double r = pow(10.0, testUniform(&seed, 0, 7.3));
    geohashCoverCircle(p, lat, lon, r);
    if (!testWellFormed(p)) nBadForm++;
    /* Points within the radius: along random bearings at random distances,
    ** plus points on the exact border. */
    for (j = 0; j < 300; j++) {
      double plat = testUniform(&seed, lat - 2 * r / 111000.0, lat + 2 * r / 111000.0);
      double plon = testUniform(&seed, lon - 4 * r / 111000.0, lon + 4 * r / 111000.0);
      if (plat < -90 || plat > 90) plat = testUniform(&seed, -90, 90);
      while (plon > 180) plon -= 360;
      while (plon < -180) plon += 360;
      if (geohashDistance(plat, plon, lat, lon) <= r) {
        nHit++;
        if (!testCovered(p, plat, plon)) nMissed++;
      }
    }
  }
  CHECK_INT(nMissed, 0);
  CHECK_INT(nBadForm, 0);
  CHECK(nHit > 10000);
  /* Radius 0 on the pole: every longitude there is the same point. */
  geohashCoverCircle(p, 90, 0, 0);
  for (i = 0, nMissed = 0; i < 1000; i++) nMissed += !testCovered(p, 90, testUniform(&seed, -180, 180));
  CHECK_INT(nMissed, 0);
  CHECK(testWellFormed(p));
  free(p);
}

/* The point at distance d (metres) from (lat, lon) on bearing t (radians). */
static void testDestination(double lat, double lon, double d, double t, double *pLat, double *pLon) {
  double p1 = lat * (M_PI / 180.0), a = d / GEOHASH_EARTH_RADIUS;
  double s2 = sin(p1) * cos(a) + cos(p1) * sin(a) * cos(t);
  double p2 = asin(s2 > 1.0 ? 1.0 : (s2 < -1.0 ? -1.0 : s2));
  double l2 = lon * (M_PI / 180.0) + atan2(sin(t) * sin(a) * cos(p1), cos(a) - sin(p1) * s2);
  *pLat = p2 * (180.0 / M_PI);
  *pLon = l2 * (180.0 / M_PI);
  while (*pLon > 180.0) *pLon -= 360.0;
  while (*pLon < -180.0) *pLon += 360.0;
  if (*pLat > 90.0) *pLat = 90.0;
  if (*pLat < -90.0) *pLat = -90.0;
}

/* x moved to the nearest multiple of span / 2^k above lo: a cell border. */
static double testSnap(double x, double lo, double span, int k) {
  double q = span / (double)((uint64_t)1 << k);
  return lo + q * floor((x - lo) / q + 0.5);
}

/*
** Small and medium circles (1 m to 2000 km), where the cover starts near
** the circle's own cells: centres anywhere, on cell borders, at +-180 and
** near the poles; points on the circle's border (within a hair inside,
** along random bearings), some snapped onto cell borders, which belong to
** the cell north or east of them.
*/
static void testCoverCircleSmall(void) {
  GeohashCover *p = (GeohashCover *)malloc(sizeof(GeohashCover));
  uint64_t seed = 5;
  int i, j, nMissed = 0, nBadForm = 0, nHit = 0, nBorder = 0;
  if (p == NULL) return;
  for (i = 0; i < 3000; i++) {
    double lat = asin(testUniform(&seed, -1, 1)) * (180.0 / M_PI), lon = testUniform(&seed, -180, 180);
    double r = pow(10.0, testUniform(&seed, 0, 6.3));
    int k = 1 + (int)(testRand(&seed) % 28);
    switch (i % 6) {
      case 1: /* centre on a cell corner */
        lat = testSnap(lat, -90, 180, k);
        lon = testSnap(lon, -180, 360, k);
        break;
      case 2: /* at or next to the antimeridian */
        lon =
            i % 12 == 2 ? (i % 24 == 2 ? 180.0 : -180.0) : testUniform(&seed, -1, 1) + (lon > 0 ? 179 : -179);
        if (lon > 180.0) lon -= 360.0;
        if (lon < -180.0) lon += 360.0;
        break;
      case 3: /* near a pole, the circle reaching it or not */
        lat = (lat > 0 ? 1 : -1) * (90.0 - pow(10.0, testUniform(&seed, -4, 1.2)));
        r = pow(10.0, testUniform(&seed, 0, 5.5));
        break;
      default:
        break;
    }
    geohashCoverCircle(p, lat, lon, r);
    if (!testWellFormed(p)) nBadForm++;
    for (j = 0; j < 200; j++) {
      double plat, plon;
      double d = j % 2 ? r * (1.0 - pow(10.0, -testUniform(&seed, 0, 15))) : r * testUniform(&seed, 0, 1);
      testDestination(lat, lon, d, testUniform(&seed, 0, 2 * M_PI), &plat, &plon);
      if (j % 4 == 3) {
        int kk = 1 + (int)(testRand(&seed) % 30);
        if (j % 8 == 3) {
          plat = testSnap(plat, -90, 180, kk);
        } else {
          plon = testSnap(plon, -180, 360, kk);
        }
      }
      if (geohashDistance(plat, plon, lat, lon) <= r) {
        nHit++;
        if (d > r * 0.999999) nBorder++;
        if (!testCovered(p, plat, plon)) nMissed++;
      }
    }
  }
  CHECK_INT(nMissed, 0);
  CHECK_INT(nBadForm, 0);
  CHECK(nHit > 200000);
  CHECK(nBorder > 50000);
  free(p);
}

static void testCoverBox(void) {
  GeohashCover *p = (GeohashCover *)malloc(sizeof(GeohashCover));
  uint64_t seed = 4;
  int i, j, nMissed = 0, nBadForm = 0;
  if (p == NULL) return;
  for (i = 0; i < 400; i++) {
    double minLat = testUniform(&seed, -90, 90), maxLat = testUniform(&seed, minLat, 90);
    double minLon = testUniform(&seed, -180, 180), maxLon = testUniform(&seed, -180, 180);
    if (i % 10 == 0) maxLat = minLat;
    geohashCoverBox(p, minLat, minLon, maxLat, maxLon);
    if (!testWellFormed(p)) nBadForm++;
    for (j = 0; j < 200; j++) {
      double plat = j == 0 ? maxLat : testUniform(&seed, minLat, maxLat);
      double plon = j == 1 ? maxLon : j == 2 ? minLon : testUniform(&seed, -180, 180);
      int bIn = minLon <= maxLon ? (plon >= minLon && plon <= maxLon) : (plon >= minLon || plon <= maxLon);
      if (bIn && !testCovered(p, plat, plon)) nMissed++;
    }
  }
  CHECK_INT(nMissed, 0);
  CHECK_INT(nBadForm, 0);
  free(p);
}

/* The constant character table: exactly the 32 alphabet bytes decode, each to its position. */
static void testAlphabetTable(void) {
  static const char zAlpha[] = "0123456789bcdefghjkmnpqrstuvwxyz";
  int c;
  for (c = 1; c < 256; c++) {
    char z[1];
    uint64_t bits = 0;
    const char *zPos = strchr(zAlpha, c);
    z[0] = (char)c;
    if (zPos != NULL) {
      CHECK_INT(geohashFromString(z, 1, &bits), -1);
      CHECK_INT((int)(bits >> 59), (int)(zPos - zAlpha));
    } else {
      CHECK_INT(geohashFromString(z, 1, &bits), 0);
    }
  }
}

int main(void) {
  unitApiInit();
  RUN(testQuantize);
  RUN(testAlphabetTable);
  RUN(testBatch);
  RUN(testInterleave);
  RUN(testEncode);
  RUN(testCells);
  RUN(testRangeString);
  RUN(testCurves);
  RUN(testCoverCircle);
  RUN(testCoverCircleSmall);
  RUN(testCoverBox);
  return unitReport();
}
