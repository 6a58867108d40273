/*
** geohash.c: dimensionality reduction, technique 6 of the article. Two
** coordinates become one key whose order keeps neighbours close, so that
** an ordinary B-tree answers "near this point" with a few range scans.
**
** Scalar functions (all deterministic and innocuous: they may back
** generated columns and expression indexes):
**
**   geohash(lat, lon [, precision])   -> TEXT, 1..12 characters (default 12)
**   geohash_bits(lat, lon [, bits])   -> INTEGER, even bits in 2..62 (default 52)
**   geohash_from_bits(n, bits)        -> TEXT of floor(bits / 5) characters
**   geohash_lat(hash), geohash_lon(hash)   -> REAL, the cell centre
**   geohash_neighbor(hash, dir)       -> TEXT; dir n ne e se s sw w nw
**   geo_distance(lat1, lon1, lat2, lon2)   -> REAL metres (haversine)
**   zorder(x, y), zorder_x(z), zorder_y(z)
**   hilbert(x, y, order), hilbert_x(d, order), hilbert_y(d, order)
**
** Table-valued functions (eponymous virtual tables; the arguments are
** HIDDEN columns, as in SQLite's series.c):
**
**   CREATE TABLE geohash_decode(lat, lon, lat_err, lon_err, min_lat, min_lon,
**                               max_lat, max_lon, hash HIDDEN);
**   CREATE TABLE geohash_neighbors(direction, hash, center HIDDEN);
**   CREATE TABLE geohash_cover(lo, hi, lat HIDDEN, lon HIDDEN, radius HIDDEN);
**   CREATE TABLE geohash_cover_box(lo, hi, min_lat HIDDEN, min_lon HIDDEN,
**                                  max_lat HIDDEN, max_lon HIDDEN);
**   CREATE TABLE geohash_cover_bits(lo, hi, lat HIDDEN, lon HIDDEN, radius HIDDEN);
**   CREATE TABLE geohash_cover_box_bits(lo, hi, min_lat HIDDEN, min_lon HIDDEN,
**                                       max_lat HIDDEN, max_lon HIDDEN);
**   CREATE TABLE geo_bbox(min_lat, min_lon, max_lat, max_lon,
**                         lat HIDDEN, lon HIDDEN, radius HIDDEN);
**
** The *_bits covers give the same ranges as 60-bit INTEGERs, for a key
** column holding geohash_bits(lat, lon, 60) (integer keys seek faster).
**
** The radius recipe, on an ordinary table with an index on a 12-character
** geohash column; an index on (gh, lat, lon) covers the query, so it reads
** no table row (docs/geohash.md measures the layouts):
**
**   SELECT p.* FROM geohash_cover(:lat, :lon, :r) c
**     JOIN places p ON p.gh >= c.lo AND p.gh < c.hi
**    WHERE geo_distance(p.lat, p.lon, :lat, :lon) <= :r;
**
** How it works. A geohash interleaves the bits of the longitude and the
** latitude (longitude first), each the index of a cell in a regular
** subdivision of [-180, 180] and [-90, 90], and writes 5 bits per character
** in the alphabet 0123456789bcdefghjkmnpqrstuvwxyz. That alphabet is ASCII
** ascending, so string order is bit order and every cell, at any bit depth,
** is one contiguous range of 12-character strings. Quantisation is exact:
** q = floor((lat + 90) * 2^32 / 180) as bisection on the real value would
** find it, so a point on a cell border belongs to the cell above or east of
** it, and lat = 90 and lon = 180 are put in the last cell (the cells are
** half-open except the last one of each axis, which is closed). The
** interleave uses BMI2 pdep when the CPU has it (asked at run time), else
** magic-number spreads; batches use AVX2 for the quantisation.
**
** geohash_cover() keeps the cells that can hold a point of the circle: a
** cell inside the circle, or one small next to the radius (border cells
** shrink until their larger side is at most 1/4 of the radius, which keeps
** the candidates per hit near 1.3 for uniform data), becomes a range; a
** cell that may cross the border is split. Ranges that touch are merged,
** and beyond 16 ranges the smallest gaps are merged while that adds at
** most 10% to the area. Circles that reach no pole and are less than about
** 2,500 km across (the usual case) take a fast path: the split starts from
** the at most 2 x 2 cells that hold the circle's bounding box (two of them
** on either side of +-180 when it crosses there), goes depth first so that
** ranges come out sorted, and drops a cell on a lower bound of the
** haversine distance that needs no trigonometry (a few hundred cells at
** about 100 instructions each). The other circles take the exact walk:
** level by level from the whole globe down, with the exact spherical
** distance from the centre to each cell (a level with too many cells to
** split keeps them whole: coarser, never wrong). Both tests are
** conservative, with a margin of a few millimetres for rounding, so no
** point within the radius is ever missed, at the poles and across the
** antimeridian alike.
** geohash_cover_box() does the same walk with exact integer tests against
** the quantised box, split in two when min_lon > max_lon.
**
** Numbers: latitudes and longitudes are degrees (WGS84 values taken as
** spherical coordinates); distances are metres on a sphere of radius
** 6372797.560856 m, the constant Redis uses, so results compare with Redis.
**
** Files: this one has the codec, the curves, the batch kernels and the SQL
** functions; ext/geohash_cover.c has the cover algorithms, which this file
** calls; ext/geohash.h has the grid both use (quantisation, interleave,
** cells and their bounds, inline).
*/
#include "nosqlTest.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define GEOHASH_HAVE_PDEP 1
#else
#define GEOHASH_HAVE_PDEP 0
#endif

/**************************************************************************
** The pure core: no sqlite3_* calls below this line until the SQL glue.
*/

/*
** Character value + 1 for each byte, 0 for bytes outside the alphabet
** (geohashAlphabet[v - 1] == c). A constant: no first-use initialisation
** for two threads to race on (tests/unit/test_geohash.c checks it against
** the alphabet).
*/
static const unsigned char geohashValue[256] = {
    0,  0, 0,  0,  0, 0,  0,  0, 0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0, 0,  0,  0,  0,  0,  0,
    0,  0, 0,  0,  0, 0,  0,  0, 0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0, 0,  0,  1,  2,  3,  4,
    5,  6, 7,  8,  9, 10, 0,  0, 0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0, 0,  0,  0,  0,  0,  0,
    0,  0, 0,  0,  0, 0,  0,  0, 0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0, 11, 12, 13, 14, 15, 16,
    17, 0, 18, 19, 0, 20, 21, 0, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 0, 0,  0,  0,  0,  0,  0,
    0,  0, 0,  0,  0, 0,  0,  0, 0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0, 0,  0,  0,  0,  0,  0,
    0,  0, 0,  0,  0, 0,  0,  0, 0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0, 0,  0,  0,  0,  0,  0,
    0,  0, 0,  0,  0, 0,  0,  0, 0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0, 0,  0,  0,  0,  0,  0,
    0,  0, 0,  0,  0, 0,  0,  0, 0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0, 0,  0,  0,  0,  0,  0,
    0,  0, 0,  0,  0, 0,  0,  0, 0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0, 0,  0,
};

#if GEOHASH_HAVE_PDEP
__attribute__((target("bmi2"))) uint64_t geohashInterleavePdep(uint32_t lon, uint32_t lat) {
  return _pdep_u64(lon, 0xAAAAAAAAAAAAAAAAull) | _pdep_u64(lat, 0x5555555555555555ull);
}
#else
uint64_t geohashInterleavePdep(uint32_t lon, uint32_t lat) { return geohashInterleavePortable(lon, lat); }
#endif

/*
** BMI2 with a fast pdep. AMD families 15h and 17h (Excavator, Zen 1 and 2)
** have BMI2 but run pdep in microcode, tens to hundreds of cycles: there
** the magic-number spread is faster.
*/
#if GEOHASH_HAVE_PDEP
/*
** The CPU features, probed once when the library is loaded (a constructor
** runs under the loader's lock, before any thread can call in), so the
** flags are never written while another thread reads them.
*/
static int geohashCpuPdep = 0; /* Fast pdep (BMI2, not AMD 15h/17h) */
static int geohashCpuAvx2 = 0; /* AVX2 and a fast pdep */
__attribute__((constructor)) static void geohashCpuProbe(void) {
  __builtin_cpu_init();
  geohashCpuPdep =
      __builtin_cpu_supports("bmi2") && !__builtin_cpu_is("amdfam15h") && !__builtin_cpu_is("amdfam17h");
  geohashCpuAvx2 = __builtin_cpu_supports("avx2") && geohashCpuPdep;
}
#endif

int geohashHasPdep(void) {
#if GEOHASH_HAVE_PDEP
  return geohashCpuPdep;
#else
  return 0;
#endif
}

uint64_t geohashEncodePortable(double lat, double lon) {
  return geohashInterleavePortable(geohashQuantizeLon(lon), geohashQuantizeLat(lat));
}

#if GEOHASH_HAVE_PDEP
__attribute__((target("bmi2"))) uint64_t geohashEncodePdep(double lat, double lon) {
  return _pdep_u64(geohashQuantizeLon(lon), 0xAAAAAAAAAAAAAAAAull) |
         _pdep_u64(geohashQuantizeLat(lat), 0x5555555555555555ull);
}
#else
uint64_t geohashEncodePdep(double lat, double lon) { return geohashEncodePortable(lat, lon); }
#endif

uint64_t geohashEncode(double lat, double lon) {
  return geohashHasPdep() ? geohashEncodePdep(lat, lon) : geohashEncodePortable(lat, lon);
}

void geohashEncodeBatchPortable(const double *aLat, const double *aLon, uint64_t *aOut, int n) {
  int i;
  for (i = 0; i < n; i++) aOut[i] = geohashEncodePortable(aLat[i], aLon[i]);
}

#if GEOHASH_HAVE_PDEP
__attribute__((target("bmi2"))) void geohashEncodeBatchPdep(const double *aLat, const double *aLon,
                                                            uint64_t *aOut, int n) {
  int i;
  for (i = 0; i < n; i++) aOut[i] = geohashEncodePdep(aLat[i], aLon[i]);
}
#else
void geohashEncodeBatchPdep(const double *aLat, const double *aLon, uint64_t *aOut, int n) {
  geohashEncodeBatchPortable(aLat, aLon, aOut, n);
}
#endif

#if GEOHASH_HAVE_PDEP
/*
** Four quantisations at once, the same exact floor as geohashQuantize():
** t = floor(s * 2^32) corrected by the Fast2Sum error, then
** floor(t / span) as floor(t * (1 / span) + 2^-10). That is exact: t < 2^41
** is an integer, so t / span is within 1 / span of the next integer unless
** it is one, and the product's error (< 2^-11) plus 2^-10 stays below
** 1 / 360. Adding 2^52 puts the integer in the low bits of each lane.
*/
__attribute__((target("avx2"))) static inline __m256i geohashQuantize4(__m256d x, double off, double span) {
  const __m256d vOff = _mm256_set1_pd(off);
  const __m256d vZero = _mm256_setzero_pd();
  __m256d s = _mm256_add_pd(x, vOff);
  __m256d e = _mm256_add_pd(_mm256_sub_pd(vOff, s), x);
  __m256d y = _mm256_mul_pd(s, _mm256_set1_pd(4294967296.0));
  __m256d t = _mm256_floor_pd(y);
  __m256d fix =
      _mm256_and_pd(_mm256_and_pd(_mm256_cmp_pd(t, y, _CMP_EQ_OQ), _mm256_cmp_pd(e, vZero, _CMP_LT_OQ)),
                    _mm256_set1_pd(1.0));
  __m256d q;
  t = _mm256_sub_pd(t, fix);
  q = _mm256_floor_pd(_mm256_add_pd(_mm256_mul_pd(t, _mm256_set1_pd(1.0 / span)), _mm256_set1_pd(0x1p-10)));
  q = _mm256_min_pd(q, _mm256_set1_pd(4294967295.0));
  return _mm256_castpd_si256(_mm256_add_pd(q, _mm256_set1_pd(0x1p52)));
}

__attribute__((target("avx2,bmi2"))) void geohashEncodeBatchAvx2(const double *aLat, const double *aLon,
                                                                 uint64_t *aOut, int n) {
  int i;
  for (i = 0; i + 4 <= n; i += 4) {
    uint64_t aQLat[4], aQLon[4];
    int j;
    _mm256_storeu_si256((__m256i *)aQLat, geohashQuantize4(_mm256_loadu_pd(&aLat[i]), 90.0, 180.0));
    _mm256_storeu_si256((__m256i *)aQLon, geohashQuantize4(_mm256_loadu_pd(&aLon[i]), 180.0, 360.0));
    for (j = 0; j < 4; j++) {
      aOut[i + j] = _pdep_u64((uint32_t)aQLon[j], 0xAAAAAAAAAAAAAAAAull) |
                    _pdep_u64((uint32_t)aQLat[j], 0x5555555555555555ull);
    }
  }
  for (; i < n; i++) aOut[i] = geohashEncodePdep(aLat[i], aLon[i]);
}

int geohashHasAvx2(void) { return geohashCpuAvx2; }
#else
void geohashEncodeBatchAvx2(const double *aLat, const double *aLon, uint64_t *aOut, int n) {
  geohashEncodeBatchPortable(aLat, aLon, aOut, n);
}

int geohashHasAvx2(void) { return 0; }
#endif

void geohashEncodeBatch(const double *aLat, const double *aLon, uint64_t *aOut, int n) {
  if (geohashHasAvx2()) {
    geohashEncodeBatchAvx2(aLat, aLon, aOut, n);
  } else if (geohashHasPdep()) {
    geohashEncodeBatchPdep(aLat, aLon, aOut, n);
  } else {
    geohashEncodeBatchPortable(aLat, aLon, aOut, n);
  }
}

int geohashFromString(const char *z, int n, uint64_t *pBits) {
  uint64_t v = 0;
  int i;
  for (i = 0; i < n; i++) {
    int c = geohashValue[(unsigned char)z[i]];
    if (c == 0) return i;
    v |= (uint64_t)(c - 1) << (59 - 5 * i);
  }
  *pBits = v;
  return -1;
}

int geohashNeighbor(GeohashCell *pCell, int dLat, int dLon) {
  uint32_t nLat = pCell->nLatBit ? (uint32_t)(((uint64_t)1 << pCell->nLatBit) - 1) : 0;
  uint32_t mLon = pCell->nLonBit ? (uint32_t)(((uint64_t)1 << pCell->nLonBit) - 1) : 0;
  if (dLat > 0 && pCell->iLat == nLat) return 0;
  if (dLat < 0 && pCell->iLat == 0) return 0;
  pCell->iLat = (uint32_t)((int64_t)pCell->iLat + dLat);
  pCell->iLon = (uint32_t)((int64_t)pCell->iLon + dLon) & mLon;
  return 1;
}

/* The haversine distance, given cos2 = cos(lat2 in radians). */
double geohashDistanceCos(double lat1, double lon1, double lat2, double lon2, double cos2) {
  double p1 = lat1 * (M_PI / 180.0);
  double p2 = lat2 * (M_PI / 180.0);
  double u = sin((p2 - p1) / 2.0);
  double v = sin((lon2 - lon1) * (M_PI / 180.0) / 2.0);
  double a = u * u + cos(p1) * cos2 * v * v;
  if (a > 1.0) a = 1.0;
  return 2.0 * GEOHASH_EARTH_RADIUS * asin(sqrt(a));
}

double geohashDistance(double lat1, double lon1, double lat2, double lon2) {
  return geohashDistanceCos(lat1, lon1, lat2, lon2, cos(lat2 * (M_PI / 180.0)));
}

/*
** geo_distance()'s memory, one per connection (its user data): the last
** lat2 and its cosine. A radius query passes the same centre on every
** candidate row, so the centre's cosine is computed once; cos() of the same
** value is the same value, so answers do not change. A connection runs one
** call at a time, so no lock is needed.
*/
typedef struct GeohashDistMemo GeohashDistMemo;
struct GeohashDistMemo {
  double lat;    /* The last lat2, degrees, or NaN before the first call */
  double cosLat; /* cos(lat * pi / 180) */
};

static double geohashDistanceMemo(sqlite3_context *ctx, double lat1, double lon1, double lat2, double lon2) {
  GeohashDistMemo *m = (GeohashDistMemo *)sqlite3_user_data(ctx);
  if (lat2 != m->lat) {
    m->cosLat = cos(lat2 * (M_PI / 180.0));
    m->lat = lat2;
  }
  return geohashDistanceCos(lat1, lon1, lat2, lon2, m->cosLat);
}

uint64_t geohashZorder(uint32_t x, uint32_t y) { return geohashSpread(x) | (geohashSpread(y) << 1); }

/* Reflect and swap a quadrant of side s, the step shared by both ways of the Hilbert map. */
static void geohashHilbertRotate(uint64_t s, uint64_t *pX, uint64_t *pY, uint64_t rx, uint64_t ry) {
  if (ry == 0) {
    uint64_t t;
    if (rx == 1) {
      *pX = s - 1 - *pX;
      *pY = s - 1 - *pY;
    }
    t = *pX;
    *pX = *pY;
    *pY = t;
  }
}

uint64_t geohashHilbert(uint32_t x, uint32_t y, int order) {
  uint64_t n = (uint64_t)1 << order;
  uint64_t X = x, Y = y, d = 0, s;
  for (s = n / 2; s > 0; s /= 2) {
    uint64_t rx = (X & s) ? 1 : 0;
    uint64_t ry = (Y & s) ? 1 : 0;
    d += s * s * ((3 * rx) ^ ry);
    geohashHilbertRotate(n, &X, &Y, rx, ry);
    X &= s - 1; /* the reflection flipped bits already consumed */
    Y &= s - 1;
  }
  return d;
}

void geohashHilbertInverse(uint64_t d, int order, uint32_t *pX, uint32_t *pY) {
  uint64_t n = (uint64_t)1 << order;
  uint64_t X = 0, Y = 0, t = d, s;
  for (s = 1; s < n; s *= 2) {
    uint64_t rx = 1 & (t / 2);
    uint64_t ry = 1 & (t ^ rx);
    geohashHilbertRotate(s, &X, &Y, rx, ry);
    X += s * rx;
    Y += s * ry;
    t /= 4;
  }
  *pX = (uint32_t)X;
  *pY = (uint32_t)Y;
}

/**************************************************************************
** SQL glue: argument checking shared by the scalar functions and the
** table-valued functions. Each checker returns SQLITE_OK, SQLITE_ERROR with
** a message in *pzErr (from sqlite3_mprintf), or SQLITE_NOMEM. NULL
** arguments are the caller's business.
*/

/* Format an error naming zFunc and quoting pVal; returns SQLITE_ERROR or SQLITE_NOMEM. */
static int geohashArgError(char **pzErr, sqlite3_value *pVal, const char *zFmt, const char *zFunc,
                           const char *zWhat, const char *zTail) {
  char *zVal = nosqlValueQuote(pVal);
  if (zVal == NULL) return SQLITE_NOMEM;
  *pzErr = sqlite3_mprintf(zFmt, zFunc, zWhat, zVal, zTail);
  sqlite3_free(zVal);
  return *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
}

/* A number: INTEGER, REAL or text that reads as one. */
int geohashArgNumber(sqlite3_value *pVal, const char *zFunc, const char *zWhat, double *pOut, char **pzErr) {
  int eType = sqlite3_value_numeric_type(pVal);
  double r;
  if (eType != SQLITE_INTEGER && eType != SQLITE_FLOAT) {
    return geohashArgError(pzErr, pVal, "%s: %s %s is not a number%s", zFunc, zWhat, "");
  }
  r = sqlite3_value_double(pVal);
  if (isnan(r) || isinf(r)) {
    return geohashArgError(pzErr, pVal, "%s: %s %s is not a finite number%s", zFunc, zWhat, "");
  }
  *pOut = r;
  return SQLITE_OK;
}

/* A number in [rMin, rMax]; zRange is how the message shows the interval. */
static int geohashArgReal(sqlite3_value *pVal, const char *zFunc, const char *zWhat, double rMin, double rMax,
                          const char *zRange, double *pOut, char **pzErr) {
  int rc = geohashArgNumber(pVal, zFunc, zWhat, pOut, pzErr);
  if (rc == SQLITE_OK && (*pOut < rMin || *pOut > rMax)) {
    rc = geohashArgError(pzErr, pVal, "%s: %s %s is outside %s", zFunc, zWhat, zRange);
  }
  return rc;
}

int geohashArgLat(sqlite3_value *pVal, const char *zFunc, const char *zWhat, double *pOut, char **pzErr) {
  return geohashArgReal(pVal, zFunc, zWhat, -90.0, 90.0, "[-90, 90]", pOut, pzErr);
}

int geohashArgLon(sqlite3_value *pVal, const char *zFunc, const char *zWhat, double *pOut, char **pzErr) {
  return geohashArgReal(pVal, zFunc, zWhat, -180.0, 180.0, "[-180, 180]", pOut, pzErr);
}

/* An integer in [iMin, iMax] (a REAL with an integral value counts). */
static int geohashArgInt(sqlite3_value *pVal, const char *zFunc, const char *zWhat, sqlite3_int64 iMin,
                         sqlite3_int64 iMax, sqlite3_int64 *pOut, char **pzErr) {
  int eType = sqlite3_value_numeric_type(pVal);
  if (eType == SQLITE_INTEGER) {
    *pOut = sqlite3_value_int64(pVal);
  } else if (eType == SQLITE_FLOAT) {
    double r = sqlite3_value_double(pVal);
    if (!(r == floor(r) && r >= -9.2e18 && r <= 9.2e18)) {
      return geohashArgError(pzErr, pVal, "%s: %s %s is not an integer%s", zFunc, zWhat, "");
    }
    *pOut = (sqlite3_int64)r;
  } else {
    return geohashArgError(pzErr, pVal, "%s: %s %s is not an integer%s", zFunc, zWhat, "");
  }
  if (*pOut < iMin || *pOut > iMax) {
    char zRange[64];
    sqlite3_snprintf(sizeof(zRange), zRange, "[%lld, %lld]", iMin, iMax);
    return geohashArgError(pzErr, pVal, "%s: %s %s is outside %s", zFunc, zWhat, zRange);
  }
  return SQLITE_OK;
}

/* A geohash: 1..12 characters of the alphabet. Sets *pBits and *pnChar. */
static int geohashArgHash(sqlite3_value *pVal, const char *zFunc, uint64_t *pBits, int *pnChar,
                          char **pzErr) {
  const char *z;
  int n, iBad;
  if (sqlite3_value_type(pVal) == SQLITE_BLOB) {
    return geohashArgError(pzErr, pVal, "%s: %s %s is not text%s", zFunc, "geohash", "");
  }
  z = (const char *)sqlite3_value_text(pVal);
  n = sqlite3_value_bytes(pVal);
  if (z == NULL) return SQLITE_NOMEM;
  if (n == 0) return geohashArgError(pzErr, pVal, "%s: %s %s is empty%s", zFunc, "geohash", "");
  if (n > 12) {
    return geohashArgError(pzErr, pVal, "%s: %s %s is longer than 12 characters%s", zFunc, "geohash", "");
  }
  iBad = geohashFromString(z, n, pBits);
  if (iBad >= 0) {
    char *zVal = nosqlValueQuote(pVal);
    if (zVal == NULL) return SQLITE_NOMEM;
    if ((unsigned char)z[iBad] >= 0x20 && (unsigned char)z[iBad] < 0x7f) {
      *pzErr = sqlite3_mprintf("%s: invalid character '%c' in geohash %s", zFunc, z[iBad], zVal);
    } else {
      *pzErr = sqlite3_mprintf("%s: invalid byte 0x%02X in geohash %s", zFunc, (unsigned char)z[iBad], zVal);
    }
    sqlite3_free(zVal);
    return *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  *pnChar = n;
  return SQLITE_OK;
}

/* Directions, in the order geohash_neighbors() lists them. */
static const struct GeohashDir {
  const char *zName; /* As written in SQL */
  int dLat;          /* +1 north, -1 south */
  int dLon;          /* +1 east, -1 west */
} aGeohashDir[8] = {
    {"n", 1, 0},  {"ne", 1, 1},   {"e", 0, 1},  {"se", -1, 1},
    {"s", -1, 0}, {"sw", -1, -1}, {"w", 0, -1}, {"nw", 1, -1},
};

/* Report rc/zErr from a checker as the function's result. */
static void geohashResultArgError(sqlite3_context *ctx, int rc, char *zErr) {
  if (rc == SQLITE_NOMEM) {
    sqlite3_result_error_nomem(ctx);
  } else {
    sqlite3_result_error(ctx, zErr, -1);
  }
  sqlite3_free(zErr);
}

/* True when any of the first n arguments is NULL (the result is then NULL). */
static int geohashAnyNull(int n, sqlite3_value **argv) {
  int i;
  for (i = 0; i < n; i++) {
    if (sqlite3_value_type(argv[i]) == SQLITE_NULL) return 1;
  }
  return 0;
}

/**************************************************************************
** Scalar functions.
*/

/* geohash(lat, lon [, precision]) */
static void geohashFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  double lat, lon;
  sqlite3_int64 nChar = 12;
  char *zErr = NULL;
  char zOut[13];
  int rc;
  /* Fast path: two REAL arguments in range, the case an index build hits. */
  if (argc == 2 && sqlite3_value_type(argv[0]) == SQLITE_FLOAT &&
      sqlite3_value_type(argv[1]) == SQLITE_FLOAT) {
    lat = sqlite3_value_double(argv[0]);
    lon = sqlite3_value_double(argv[1]);
    if (lat >= -90.0 && lat <= 90.0 && lon >= -180.0 && lon <= 180.0) {
      geohashToString(geohashEncode(lat, lon), 12, zOut);
      sqlite3_result_text(ctx, zOut, 12, SQLITE_TRANSIENT);
      return;
    }
  }
  if (geohashAnyNull(argc, argv)) return;
  rc = geohashArgLat(argv[0], "geohash", "latitude", &lat, &zErr);
  if (rc == SQLITE_OK) rc = geohashArgLon(argv[1], "geohash", "longitude", &lon, &zErr);
  if (rc == SQLITE_OK && argc > 2) rc = geohashArgInt(argv[2], "geohash", "precision", 1, 12, &nChar, &zErr);
  if (rc != SQLITE_OK) {
    geohashResultArgError(ctx, rc, zErr);
    return;
  }
  geohashToString(geohashEncode(lat, lon), (int)nChar, zOut);
  sqlite3_result_text(ctx, zOut, (int)nChar, SQLITE_TRANSIENT);
}

/* geohash_bits(lat, lon [, bits]) */
static void geohashBitsFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  double lat, lon;
  sqlite3_int64 nBit = 52;
  char *zErr = NULL;
  int rc;
  if (geohashAnyNull(argc, argv)) return;
  rc = geohashArgLat(argv[0], "geohash_bits", "latitude", &lat, &zErr);
  if (rc == SQLITE_OK) rc = geohashArgLon(argv[1], "geohash_bits", "longitude", &lon, &zErr);
  if (rc == SQLITE_OK && argc > 2) rc = geohashArgInt(argv[2], "geohash_bits", "bits", 2, 62, &nBit, &zErr);
  if (rc == SQLITE_OK && (nBit & 1)) {
    rc = geohashArgError(&zErr, argv[2], "%s: %s %s is odd%s", "geohash_bits", "bits", "");
  }
  if (rc != SQLITE_OK) {
    geohashResultArgError(ctx, rc, zErr);
    return;
  }
  sqlite3_result_int64(ctx, (sqlite3_int64)(geohashEncode(lat, lon) >> (64 - nBit)));
}

/* geohash_from_bits(n, bits) */
static void geohashFromBitsFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  sqlite3_int64 iVal, nBit;
  char *zErr = NULL;
  char zOut[13];
  int rc;
  if (geohashAnyNull(argc, argv)) return;
  rc = geohashArgInt(argv[1], "geohash_from_bits", "bits", 6, 62, &nBit, &zErr);
  if (rc == SQLITE_OK && (nBit & 1)) {
    rc = geohashArgError(&zErr, argv[1], "%s: %s %s is odd%s", "geohash_from_bits", "bits", "");
  }
  if (rc == SQLITE_OK) {
    char zWhat[40];
    sqlite3_snprintf(sizeof(zWhat), zWhat, "value for %lld bits", nBit);
    rc = geohashArgInt(argv[0], "geohash_from_bits", zWhat, 0, (sqlite3_int64)(((uint64_t)1 << nBit) - 1),
                       &iVal, &zErr);
  }
  if (rc != SQLITE_OK) {
    geohashResultArgError(ctx, rc, zErr);
    return;
  }
  geohashToString((uint64_t)iVal << (64 - nBit), (int)(nBit / 5), zOut);
  sqlite3_result_text(ctx, zOut, (int)(nBit / 5), SQLITE_TRANSIENT);
}

/* geohash_lat(hash) and geohash_lon(hash): user data 0 for lat, 1 for lon. */
static void geohashCentreFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  int bLon = sqlite3_user_data(ctx) != 0;
  uint64_t bits;
  int nChar, rc;
  char *zErr = NULL;
  GeohashCell cell;
  GeohashBounds b;
  if (geohashAnyNull(argc, argv)) return;
  rc = geohashArgHash(argv[0], bLon ? "geohash_lon" : "geohash_lat", &bits, &nChar, &zErr);
  if (rc != SQLITE_OK) {
    geohashResultArgError(ctx, rc, zErr);
    return;
  }
  geohashCellOf(bits, 5 * nChar, &cell);
  geohashCellBounds(&cell, &b);
  sqlite3_result_double(ctx, bLon ? (b.minLon + b.maxLon) / 2 : (b.minLat + b.maxLat) / 2);
}

/* Look up a direction name, case-insensitively; -1 when unknown. */
static int geohashDirIndex(sqlite3_value *pVal) {
  const char *z = (const char *)sqlite3_value_text(pVal);
  int i;
  if (z == NULL) return -1;
  for (i = 0; i < 8; i++) {
    if (sqlite3_stricmp(z, aGeohashDir[i].zName) == 0) return i;
  }
  return -1;
}

/* The neighbour of an nChar-character cell; returns 0 beyond a pole. */
static int geohashNeighborString(uint64_t bits, int nChar, int iDir, char *zOut) {
  GeohashCell cell;
  geohashCellOf(bits, 5 * nChar, &cell);
  if (!geohashNeighbor(&cell, aGeohashDir[iDir].dLat, aGeohashDir[iDir].dLon)) return 0;
  geohashToString(geohashCellBits(&cell), nChar, zOut);
  return 1;
}

/* geohash_neighbor(hash, dir) */
static void geohashNeighborFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  uint64_t bits;
  int nChar, rc, iDir;
  char *zErr = NULL;
  char zOut[13];
  if (geohashAnyNull(argc, argv)) return;
  rc = geohashArgHash(argv[0], "geohash_neighbor", &bits, &nChar, &zErr);
  if (rc == SQLITE_OK && (iDir = geohashDirIndex(argv[1])) < 0) {
    rc = geohashArgError(&zErr, argv[1], "%s: %s %s is not one of n, ne, e, se, s, sw, w, nw%s",
                         "geohash_neighbor", "direction", "");
  }
  if (rc != SQLITE_OK) {
    geohashResultArgError(ctx, rc, zErr);
    return;
  }
  if (geohashNeighborString(bits, nChar, iDir, zOut)) sqlite3_result_text(ctx, zOut, nChar, SQLITE_TRANSIENT);
}

/* geo_distance(lat1, lon1, lat2, lon2) */
static void geohashDistanceFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  double a[4];
  char *zErr = NULL;
  int rc;
  if (sqlite3_value_type(argv[0]) == SQLITE_FLOAT && sqlite3_value_type(argv[1]) == SQLITE_FLOAT &&
      sqlite3_value_type(argv[2]) == SQLITE_FLOAT && sqlite3_value_type(argv[3]) == SQLITE_FLOAT) {
    a[0] = sqlite3_value_double(argv[0]);
    a[1] = sqlite3_value_double(argv[1]);
    a[2] = sqlite3_value_double(argv[2]);
    a[3] = sqlite3_value_double(argv[3]);
    if (fabs(a[0]) <= 90.0 && fabs(a[1]) <= 180.0 && fabs(a[2]) <= 90.0 && fabs(a[3]) <= 180.0) {
      sqlite3_result_double(ctx, geohashDistanceMemo(ctx, a[0], a[1], a[2], a[3]));
      return;
    }
  }
  if (geohashAnyNull(argc, argv)) return;
  rc = geohashArgLat(argv[0], "geo_distance", "lat1", &a[0], &zErr);
  if (rc == SQLITE_OK) rc = geohashArgLon(argv[1], "geo_distance", "lon1", &a[1], &zErr);
  if (rc == SQLITE_OK) rc = geohashArgLat(argv[2], "geo_distance", "lat2", &a[2], &zErr);
  if (rc == SQLITE_OK) rc = geohashArgLon(argv[3], "geo_distance", "lon2", &a[3], &zErr);
  if (rc != SQLITE_OK) {
    geohashResultArgError(ctx, rc, zErr);
    return;
  }
  sqlite3_result_double(ctx, geohashDistanceMemo(ctx, a[0], a[1], a[2], a[3]));
}

/* zorder(x, y) */
static void geohashZorderFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  sqlite3_int64 x, y;
  char *zErr = NULL;
  int rc;
  if (geohashAnyNull(argc, argv)) return;
  rc = geohashArgInt(argv[0], "zorder", "x", 0, 0x7fffffff, &x, &zErr);
  if (rc == SQLITE_OK) rc = geohashArgInt(argv[1], "zorder", "y", 0, 0x7fffffff, &y, &zErr);
  if (rc != SQLITE_OK) {
    geohashResultArgError(ctx, rc, zErr);
    return;
  }
  sqlite3_result_int64(ctx, (sqlite3_int64)geohashZorder((uint32_t)x, (uint32_t)y));
}

/* zorder_x(z), zorder_y(z): user data 0 for x, 1 for y. */
static void geohashZorderInverseFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  int bY = sqlite3_user_data(ctx) != 0;
  sqlite3_int64 z;
  char *zErr = NULL;
  int rc;
  if (geohashAnyNull(argc, argv)) return;
  rc = geohashArgInt(argv[0], bY ? "zorder_y" : "zorder_x", "z", 0, ((sqlite3_int64)1 << 62) - 1, &z, &zErr);
  if (rc != SQLITE_OK) {
    geohashResultArgError(ctx, rc, zErr);
    return;
  }
  sqlite3_result_int64(ctx, geohashSqueeze((uint64_t)z >> (bY ? 1 : 0)));
}

/* hilbert(x, y, order) */
static void geohashHilbertFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  sqlite3_int64 x, y, order;
  char *zErr = NULL;
  int rc;
  if (geohashAnyNull(argc, argv)) return;
  rc = geohashArgInt(argv[2], "hilbert", "order", 1, 31, &order, &zErr);
  if (rc == SQLITE_OK)
    rc = geohashArgInt(argv[0], "hilbert", "x", 0, ((sqlite3_int64)1 << order) - 1, &x, &zErr);
  if (rc == SQLITE_OK)
    rc = geohashArgInt(argv[1], "hilbert", "y", 0, ((sqlite3_int64)1 << order) - 1, &y, &zErr);
  if (rc != SQLITE_OK) {
    geohashResultArgError(ctx, rc, zErr);
    return;
  }
  sqlite3_result_int64(ctx, (sqlite3_int64)geohashHilbert((uint32_t)x, (uint32_t)y, (int)order));
}

/* hilbert_x(d, order), hilbert_y(d, order): user data 0 for x, 1 for y. */
static void geohashHilbertInverseFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  int bY = sqlite3_user_data(ctx) != 0;
  const char *zFunc = bY ? "hilbert_y" : "hilbert_x";
  sqlite3_int64 d, order;
  uint32_t x, y;
  char *zErr = NULL;
  int rc;
  if (geohashAnyNull(argc, argv)) return;
  rc = geohashArgInt(argv[1], zFunc, "order", 1, 31, &order, &zErr);
  if (rc == SQLITE_OK)
    rc = geohashArgInt(argv[0], zFunc, "d", 0, ((sqlite3_int64)1 << (2 * order)) - 1, &d, &zErr);
  if (rc != SQLITE_OK) {
    geohashResultArgError(ctx, rc, zErr);
    return;
  }
  geohashHilbertInverse((uint64_t)d, (int)order, &x, &y);
  sqlite3_result_int64(ctx, bY ? y : x);
}

/**************************************************************************
** Table-valued functions. One virtual table implementation serves all of
** them: a GeohashModule names the schema, how many of its columns are
** results (the rest are the HIDDEN arguments, all required), how to
** compute the rows from the arguments and how to return a column.
*/
typedef struct GeohashModule GeohashModule;
typedef struct geohash_vtab geohash_vtab;
typedef struct geohash_cursor geohash_cursor;

struct GeohashModule {
  const char *zName;   /* SQL name, for error messages */
  const char *zUsage;  /* Its signature, for the message of a missing argument (nosqlPlanInputArgs()) */
  const char *zSchema; /* CREATE TABLE x(...): results, then HIDDEN arguments */
  int nOut;            /* Result columns; argument columns follow */
  int nArg;            /* Argument columns, all required */
  double nRowEst;      /* Typical rows, for xBestIndex */
  /* Compute the rows from the arguments (none NULL). SQLITE_OK, or an
  ** error code with the message in *pzErr (sqlite3_mprintf). */
  int (*xCompute)(geohash_cursor *pCur, sqlite3_value **apArg, char **pzErr);
  /* Return result column iCol of row pCur->iRow. */
  void (*xColumn)(geohash_cursor *pCur, sqlite3_context *ctx, int iCol);
};

struct geohash_vtab {
  sqlite3_vtab base;         /* Base class - must be first */
  const GeohashModule *pMod; /* What this table computes */
  NosqlPlanCol aPlan[4];     /* ext/plan.c: every argument a required equality */
};

struct geohash_cursor {
  sqlite3_vtab_cursor base; /* Base class - must be first */
  sqlite3_int64 iRow;       /* Current row, from 0 */
  sqlite3_int64 nRow;       /* Rows computed by xFilter */
  sqlite3_value
      *apArg[4];   /* Copies of the arguments, for the HIDDEN columns; NULL for a number kept in aNum[] */
  int aNumType[4]; /* SQLITE_INTEGER or SQLITE_FLOAT when apArg[i] is NULL (no allocation per xFilter) */
  double aNum[4];  /* That argument, when SQLITE_FLOAT */
  sqlite3_int64 aInt[4]; /* That argument, when SQLITE_INTEGER */
  GeohashBounds aBox[2]; /* geohash_decode: the cell; geo_bbox: the boxes */
  int nChar;             /* geohash_neighbors: characters of the hash */
  int aDir[8];           /* geohash_neighbors: direction of each row */
  char aHash[8][13];     /* geohash_neighbors: the hash of each row */
  GeohashCover *pCover;  /* geohash_cover*: the ranges, or NULL */
};

static int geohashConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab,
                          char **pzErr) {
  const GeohashModule *pMod = (const GeohashModule *)pAux;
  geohash_vtab *pNew;
  int rc = nosqlVtabNew(db, pMod->zSchema, sizeof(geohash_vtab), ppVtab), i;
  (void)argc;
  (void)argv;
  (void)pzErr;
  if (rc != SQLITE_OK) return rc;
  pNew = (geohash_vtab *)*ppVtab;
  pNew->pMod = pMod;
  for (i = 0; i < pMod->nArg; i++) {
    NosqlPlanCol c = {pMod->nOut + i, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 1};
    pNew->aPlan[i] = c;
  }
  return SQLITE_OK;
}

static int geohashOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor) {
  (void)pVtab;
  return nosqlCursorNew(sizeof(geohash_cursor), ppCursor) ? SQLITE_OK : SQLITE_NOMEM;
}

/* Forget the arguments and rows of the previous xFilter. */
static void geohashCursorReset(geohash_cursor *pCur) {
  int i;
  for (i = 0; i < 4; i++) {
    sqlite3_value_free(pCur->apArg[i]);
    pCur->apArg[i] = NULL;
    pCur->aNumType[i] = 0;
  }
  pCur->iRow = 0;
  pCur->nRow = 0;
}

static int geohashClose(sqlite3_vtab_cursor *cur) {
  geohash_cursor *pCur = (geohash_cursor *)cur;
  geohashCursorReset(pCur);
  sqlite3_free(pCur->pCover);
  sqlite3_free(pCur);
  return SQLITE_OK;
}

/*
** The plan (ext/plan.c, nosqlPlanInputs()): every argument column is a
** required equality. A missing argument that a join can supply gives
** SQLITE_CONSTRAINT, so that the planner tries an order where the value is
** known; one that nothing supplies is named by xFilter.
*/
static int geohashBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo) {
  geohash_vtab *p = (geohash_vtab *)pVtab;
  int rc = nosqlPlanInputs(pInfo, p->aPlan, p->pMod->nArg, p->pMod->nRowEst, (sqlite3_int64)p->pMod->nRowEst);
  pInfo->idxNum = 1; /* As EXPLAIN QUERY PLAN has always shown it */
  return rc;
}

static int geohashFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr, int argc,
                         sqlite3_value **argv) {
  geohash_cursor *pCur = (geohash_cursor *)cur;
  const GeohashModule *pMod = ((geohash_vtab *)cur->pVtab)->pMod;
  char *zErr = NULL;
  int i, rc;
  NosqlPlanArg aArg[4];
  sqlite3_value *apVal[4];
  geohashCursorReset(pCur);
  if (nosqlPlanInputArgs(cur->pVtab, pMod->zUsage, ((geohash_vtab *)cur->pVtab)->aPlan, pMod->nArg, idxStr,
                         argc, argv, aArg) != SQLITE_OK) {
    return SQLITE_ERROR;
  }
  (void)idxNum;
  for (i = 0; i < pMod->nArg; i++) {
    apVal[i] = aArg[i].pEq;
    pCur->aNumType[i] = sqlite3_value_type(apVal[i]);
    if (pCur->aNumType[i] == SQLITE_FLOAT && sqlite3_value_subtype(apVal[i]) == 0) {
      pCur->aNum[i] = sqlite3_value_double(apVal[i]);
    } else if (pCur->aNumType[i] == SQLITE_INTEGER && sqlite3_value_subtype(apVal[i]) == 0) {
      pCur->aInt[i] = sqlite3_value_int64(apVal[i]);
    } else {
      pCur->aNumType[i] = 0;
      pCur->apArg[i] = sqlite3_value_dup(apVal[i]);
      if (pCur->apArg[i] == NULL) return SQLITE_NOMEM;
    }
  }
  /* A NULL argument gives no rows, as NULL gives NULL for the scalars. */
  if (geohashAnyNull(pMod->nArg, apVal)) return SQLITE_OK;
  rc = pMod->xCompute(pCur, apVal, &zErr);
  if (rc != SQLITE_OK) {
    pCur->nRow = 0;
    if (zErr) {
      sqlite3_free(cur->pVtab->zErrMsg);
      cur->pVtab->zErrMsg = zErr;
    }
  }
  return rc;
}

static int geohashNext(sqlite3_vtab_cursor *cur) {
  ((geohash_cursor *)cur)->iRow++;
  return SQLITE_OK;
}

static int geohashEof(sqlite3_vtab_cursor *cur) {
  geohash_cursor *pCur = (geohash_cursor *)cur;
  return pCur->iRow >= pCur->nRow;
}

static int geohashColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int iCol) {
  geohash_cursor *pCur = (geohash_cursor *)cur;
  const GeohashModule *pMod = ((geohash_vtab *)cur->pVtab)->pMod;
  if (iCol >= pMod->nOut) {
    int i = iCol - pMod->nOut;
    if (pCur->apArg[i]) {
      sqlite3_result_value(ctx, pCur->apArg[i]);
    } else if (pCur->aNumType[i] == SQLITE_FLOAT) {
      sqlite3_result_double(ctx, pCur->aNum[i]);
    } else if (pCur->aNumType[i] == SQLITE_INTEGER) {
      sqlite3_result_int64(ctx, pCur->aInt[i]);
    }
  } else {
    pMod->xColumn(pCur, ctx, iCol);
  }
  return SQLITE_OK;
}

static int geohashRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid) {
  *pRowid = ((geohash_cursor *)cur)->iRow + 1;
  return SQLITE_OK;
}

/* geohash_decode(hash): one row, the cell. */
static int geohashDecodeCompute(geohash_cursor *pCur, sqlite3_value **apArg, char **pzErr) {
  uint64_t bits;
  int nChar;
  GeohashCell cell;
  int rc = geohashArgHash(apArg[0], "geohash_decode", &bits, &nChar, pzErr);
  if (rc != SQLITE_OK) return rc;
  geohashCellOf(bits, 5 * nChar, &cell);
  geohashCellBounds(&cell, &pCur->aBox[0]);
  pCur->nRow = 1;
  return SQLITE_OK;
}

static void geohashDecodeColumn(geohash_cursor *pCur, sqlite3_context *ctx, int iCol) {
  const GeohashBounds *b = &pCur->aBox[0];
  double r = 0.0;
  switch (iCol) {
    case 0:
      r = (b->minLat + b->maxLat) / 2;
      break;
    case 1:
      r = (b->minLon + b->maxLon) / 2;
      break;
    case 2:
      r = (b->maxLat - b->minLat) / 2;
      break;
    case 3:
      r = (b->maxLon - b->minLon) / 2;
      break;
    case 4:
      r = b->minLat;
      break;
    case 5:
      r = b->minLon;
      break;
    case 6:
      r = b->maxLat;
      break;
    default:
      r = b->maxLon;
      break;
  }
  sqlite3_result_double(ctx, r);
}

/* geohash_neighbors(hash): one row per direction, none beyond a pole. */
static int geohashNeighborsCompute(geohash_cursor *pCur, sqlite3_value **apArg, char **pzErr) {
  uint64_t bits;
  int nChar, i;
  int rc = geohashArgHash(apArg[0], "geohash_neighbors", &bits, &nChar, pzErr);
  if (rc != SQLITE_OK) return rc;
  pCur->nChar = nChar;
  for (i = 0; i < 8; i++) {
    if (geohashNeighborString(bits, nChar, i, pCur->aHash[pCur->nRow])) pCur->aDir[pCur->nRow++] = i;
  }
  return SQLITE_OK;
}

static void geohashNeighborsColumn(geohash_cursor *pCur, sqlite3_context *ctx, int iCol) {
  if (iCol == 0) {
    sqlite3_result_text(ctx, aGeohashDir[pCur->aDir[pCur->iRow]].zName, -1, SQLITE_STATIC);
  } else {
    sqlite3_result_text(ctx, pCur->aHash[pCur->iRow], pCur->nChar, SQLITE_TRANSIENT);
  }
}

/* The cursor's cover buffer, allocated on first use. */
static int geohashCursorCover(geohash_cursor *pCur) {
  if (pCur->pCover == NULL) {
    pCur->pCover = (GeohashCover *)sqlite3_malloc64(sizeof(GeohashCover));
    if (pCur->pCover == NULL) return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

/* A radius in metres: a finite number >= 0. */
static int geohashArgRadius(sqlite3_value *pVal, const char *zFunc, double *pOut, char **pzErr) {
  int rc = geohashArgNumber(pVal, zFunc, "radius", pOut, pzErr);
  if (rc == SQLITE_OK && *pOut < 0)
    rc = geohashArgError(pzErr, pVal, "%s: %s %s is negative%s", zFunc, "radius", "");
  return rc;
}

/* The SQL name of the cursor's table-valued function, for error messages. */
static const char *geohashCursorName(geohash_cursor *pCur) {
  return ((geohash_vtab *)pCur->base.pVtab)->pMod->zName;
}

/* geohash_cover(lat, lon, radius) and geohash_cover_bits(lat, lon, radius) */
static int geohashCoverCompute(geohash_cursor *pCur, sqlite3_value **apArg, char **pzErr) {
  const char *zFunc = geohashCursorName(pCur);
  double lat, lon, radius;
  int rc = geohashArgLat(apArg[0], zFunc, "latitude", &lat, pzErr);
  if (rc == SQLITE_OK) rc = geohashArgLon(apArg[1], zFunc, "longitude", &lon, pzErr);
  if (rc == SQLITE_OK) rc = geohashArgRadius(apArg[2], zFunc, &radius, pzErr);
  if (rc == SQLITE_OK) rc = geohashCursorCover(pCur);
  if (rc != SQLITE_OK) return rc;
  geohashCoverCircle(pCur->pCover, lat, lon, radius);
  pCur->nRow = pCur->pCover->nRange;
  return SQLITE_OK;
}

/* geohash_cover_box(min_lat, min_lon, max_lat, max_lon) and geohash_cover_box_bits(...) */
static int geohashCoverBoxCompute(geohash_cursor *pCur, sqlite3_value **apArg, char **pzErr) {
  const char *zFunc = geohashCursorName(pCur);
  double a[4];
  int rc = geohashArgLat(apArg[0], zFunc, "min_lat", &a[0], pzErr);
  if (rc == SQLITE_OK) rc = geohashArgLon(apArg[1], zFunc, "min_lon", &a[1], pzErr);
  if (rc == SQLITE_OK) rc = geohashArgLat(apArg[2], zFunc, "max_lat", &a[2], pzErr);
  if (rc == SQLITE_OK) rc = geohashArgLon(apArg[3], zFunc, "max_lon", &a[3], pzErr);
  if (rc == SQLITE_OK && a[0] > a[2]) {
    *pzErr = sqlite3_mprintf("%s: min_lat %!.15g is greater than max_lat %!.15g", zFunc, a[0], a[2]);
    rc = *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  if (rc == SQLITE_OK) rc = geohashCursorCover(pCur);
  if (rc != SQLITE_OK) return rc;
  geohashCoverBox(pCur->pCover, a[0], a[1], a[2], a[3]);
  pCur->nRow = pCur->pCover->nRange;
  return SQLITE_OK;
}

static void geohashCoverColumn(geohash_cursor *pCur, sqlite3_context *ctx, int iCol) {
  const GeohashRange *p = &pCur->pCover->aRange[pCur->iRow];
  char z[13];
  int n = geohashRangeString(iCol == 0 ? p->lo : p->hi, z);
  sqlite3_result_text(ctx, z, n, SQLITE_TRANSIENT);
}

/* The *_bits covers: the ranges as 60-bit integers, for a column holding
** geohash_bits(lat, lon, 60) (the 12-character geohash read as a number). */
static void geohashCoverBitsColumn(geohash_cursor *pCur, sqlite3_context *ctx, int iCol) {
  const GeohashRange *p = &pCur->pCover->aRange[pCur->iRow];
  sqlite3_result_int64(ctx, (sqlite3_int64)(iCol == 0 ? p->lo : p->hi));
}

/* geo_bbox(lat, lon, radius) */
static int geohashBboxCompute(geohash_cursor *pCur, sqlite3_value **apArg, char **pzErr) {
  double lat, lon, radius;
  int rc = geohashArgLat(apArg[0], "geo_bbox", "latitude", &lat, pzErr);
  if (rc == SQLITE_OK) rc = geohashArgLon(apArg[1], "geo_bbox", "longitude", &lon, pzErr);
  if (rc == SQLITE_OK) rc = geohashArgRadius(apArg[2], "geo_bbox", &radius, pzErr);
  if (rc != SQLITE_OK) return rc;
  pCur->nRow = geohashBoundingBoxes(lat, lon, radius, pCur->aBox);
  return SQLITE_OK;
}

static void geohashBboxColumn(geohash_cursor *pCur, sqlite3_context *ctx, int iCol) {
  const GeohashBounds *b = &pCur->aBox[pCur->iRow];
  double r = iCol == 0 ? b->minLat : iCol == 1 ? b->minLon : iCol == 2 ? b->maxLat : b->maxLon;
  sqlite3_result_double(ctx, r);
}

static const GeohashModule aGeohashModule[] = {
    {"geohash_decode", "geohash_decode(hash)",
     "CREATE TABLE x(lat REAL, lon REAL, lat_err REAL, lon_err REAL, min_lat REAL, min_lon REAL, max_lat "
     "REAL,"
     " max_lon REAL, hash HIDDEN)",
     8, 1, 1, geohashDecodeCompute, geohashDecodeColumn},
    {"geohash_neighbors", "geohash_neighbors(center)",
     "CREATE TABLE x(direction TEXT, hash TEXT, center HIDDEN)", 2, 1, 8, geohashNeighborsCompute,
     geohashNeighborsColumn},
    {"geohash_cover", "geohash_cover(lat, lon, radius)",
     "CREATE TABLE x(lo TEXT, hi TEXT, lat HIDDEN, lon HIDDEN, radius HIDDEN)", 2, 3, 20, geohashCoverCompute,
     geohashCoverColumn},
    {"geohash_cover_box", "geohash_cover_box(min_lat, min_lon, max_lat, max_lon)",
     "CREATE TABLE x(lo TEXT, hi TEXT, min_lat HIDDEN, min_lon HIDDEN, max_lat HIDDEN, max_lon HIDDEN)", 2, 4,
     20, geohashCoverBoxCompute, geohashCoverColumn},
    {"geohash_cover_bits", "geohash_cover_bits(lat, lon, radius)",
     "CREATE TABLE x(lo INTEGER, hi INTEGER, lat HIDDEN, lon HIDDEN, radius HIDDEN)", 2, 3, 20,
     geohashCoverCompute, geohashCoverBitsColumn},
    {"geohash_cover_box_bits", "geohash_cover_box_bits(min_lat, min_lon, max_lat, max_lon)",
     "CREATE TABLE x(lo INTEGER, hi INTEGER, min_lat HIDDEN, min_lon HIDDEN, max_lat HIDDEN, max_lon HIDDEN)",
     2, 4, 20, geohashCoverBoxCompute, geohashCoverBitsColumn},
    {"geo_bbox", "geo_bbox(lat, lon, radius)",
     "CREATE TABLE x(min_lat REAL, min_lon REAL, max_lat REAL, max_lon REAL, lat HIDDEN, lon HIDDEN,"
     " radius HIDDEN)",
     4, 3, 1, geohashBboxCompute, geohashBboxColumn},
};

static sqlite3_module geohashVtabModule = {
    0,                /* iVersion */
    0,                /* xCreate: eponymous only */
    geohashConnect,   /* xConnect */
    geohashBestIndex, /* xBestIndex */
    nosqlVtabFree,    /* xDisconnect */
    0,                /* xDestroy */
    geohashOpen,      /* xOpen */
    geohashClose,     /* xClose */
    geohashFilter,    /* xFilter */
    geohashNext,      /* xNext */
    geohashEof,       /* xEof */
    geohashColumn,    /* xColumn */
    geohashRowid,     /* xRowid */
    0,                /* xUpdate */
    0,                /* xBegin */
    0,                /* xSync */
    0,                /* xCommit */
    0,                /* xRollback */
    0,                /* xFindMethod */
    0,                /* xRename */
    0,                /* xSavepoint */
    0,                /* xRelease */
    0,                /* xRollbackTo */
    0,                /* xShadowName */
};

int geohashRegister(sqlite3 *db) {
  static const struct {
    const char *zName; /* SQL name */
    int nArg;          /* Number of arguments */
    int iUser;         /* User data: which of a pair */
    void (*xFunc)(sqlite3_context *, int, sqlite3_value **);
  } aFunc[] = {
      {"geohash", 2, 0, geohashFunc},
      {"geohash", 3, 0, geohashFunc},
      {"geohash_bits", 2, 0, geohashBitsFunc},
      {"geohash_bits", 3, 0, geohashBitsFunc},
      {"geohash_from_bits", 2, 0, geohashFromBitsFunc},
      {"geohash_lat", 1, 0, geohashCentreFunc},
      {"geohash_lon", 1, 1, geohashCentreFunc},
      {"geohash_neighbor", 2, 0, geohashNeighborFunc},
      {"zorder", 2, 0, geohashZorderFunc},
      {"zorder_x", 1, 0, geohashZorderInverseFunc},
      {"zorder_y", 1, 1, geohashZorderInverseFunc},
      {"hilbert", 3, 0, geohashHilbertFunc},
      {"hilbert_x", 2, 0, geohashHilbertInverseFunc},
      {"hilbert_y", 2, 1, geohashHilbertInverseFunc},
  };
  size_t i;
  int rc = SQLITE_OK;
  for (i = 0; rc == SQLITE_OK && i < sizeof(aFunc) / sizeof(aFunc[0]); i++) {
    rc = sqlite3_create_function(db, aFunc[i].zName, aFunc[i].nArg, NOSQL_PURE,
                                 aFunc[i].iUser ? (void *)&aFunc[i] : 0, aFunc[i].xFunc, 0, 0);
  }
  if (rc == SQLITE_OK) {
    GeohashDistMemo *pMemo = (GeohashDistMemo *)sqlite3_malloc64(sizeof(GeohashDistMemo));
    if (pMemo == NULL) return SQLITE_NOMEM;
    pMemo->lat = NAN;
    pMemo->cosLat = 0.0;
    /* On failure SQLite calls the destructor itself. */
    rc = sqlite3_create_function_v2(db, "geo_distance", 4, NOSQL_PURE, pMemo, geohashDistanceFunc, 0, 0,
                                    sqlite3_free);
  }
  for (i = 0; rc == SQLITE_OK && i < sizeof(aGeohashModule) / sizeof(aGeohashModule[0]); i++) {
    rc = sqlite3_create_module(db, aGeohashModule[i].zName, &geohashVtabModule, (void *)&aGeohashModule[i]);
  }
  return rc;
}
