/*
** geohash.h: the geohash grid that the codec (ext/geohash.c) and the
** covers (ext/geohash_cover.c) both stand on: exact quantisation of a
** coordinate to a 32-bit cell index, the bit spread and interleave, the
** base32 alphabet, and a cell's bits and bounds. Pure and small, so
** static inline: each file gets its own inlined copy and neither file
** calls into the other for them (geohash.c uses geohash_cover.c, never the
** reverse). Uses the types of ext/nosqlInt.h (GeohashCell, GeohashBounds)
** and nothing else; no sqlite3_* calls.
*/
#ifndef NOSQL_GEOHASH_H
#define NOSQL_GEOHASH_H

#include "nosqlInt.h"

/* The base32 alphabet: ASCII ascending, so string order is bit order. */
static const char geohashAlphabet[] = "0123456789bcdefghjkmnpqrstuvwxyz";

/*
** floor((x + off) * 2^32 / span) for x in [-off, off], exactly as bisection
** on the real value of x would find it. The sum x + off may round; Fast2Sum
** gives its exact error e (|off| >= |x|). Scaling by 2^32 is exact, and
** floor(y / span) = floor(floor(y) / span) for the integer span, so the
** only correction is when the rounded sum sits on an integer the exact one
** is just below. The last cell takes x = off (lat 90, lon 180).
*/
static inline uint32_t geohashQuantize(double x, double off, uint64_t span) {
  double s = x + off;
  double e = (off - s) + x;
  double y = s * 4294967296.0;
  int64_t t = (int64_t)y; /* y < 2^41: the signed conversion is one instruction */
  uint64_t u;
  t -= ((double)t == y) & (e < 0);
  u = (uint64_t)t / span;
  return (uint32_t)(u - (u >> 32));
}

/* Quantise a coordinate to a 32-bit cell index (exact floor; 90 or 180 -> last cell). */
static inline uint32_t geohashQuantizeLat(double lat) { return geohashQuantize(lat, 90.0, 180); }

static inline uint32_t geohashQuantizeLon(double lon) { return geohashQuantize(lon, 180.0, 360); }

/* Spread the 32 bits of x to the even bits of a 64-bit word, and back. */
static inline uint64_t geohashSpread(uint32_t x) {
  uint64_t v = x;
  v = (v | (v << 16)) & 0x0000FFFF0000FFFFull;
  v = (v | (v << 8)) & 0x00FF00FF00FF00FFull;
  v = (v | (v << 4)) & 0x0F0F0F0F0F0F0F0Full;
  v = (v | (v << 2)) & 0x3333333333333333ull;
  v = (v | (v << 1)) & 0x5555555555555555ull;
  return v;
}

static inline uint32_t geohashSqueeze(uint64_t v) {
  v &= 0x5555555555555555ull;
  v = (v | (v >> 1)) & 0x3333333333333333ull;
  v = (v | (v >> 2)) & 0x0F0F0F0F0F0F0F0Full;
  v = (v | (v >> 4)) & 0x00FF00FF00FF00FFull;
  v = (v | (v >> 8)) & 0x0000FFFF0000FFFFull;
  v = (v | (v >> 16)) & 0x00000000FFFFFFFFull;
  return (uint32_t)v;
}

/* 64 interleaved bits, longitude first (bit 63), by magic-number spreads
** (ext/geohash.c has the pdep variant and the choice between them). */
static inline uint64_t geohashInterleavePortable(uint32_t lon, uint32_t lat) {
  return (geohashSpread(lon) << 1) | geohashSpread(lat);
}

/* Write the first nChar (<= 12) characters of the top-aligned bits to zOut[nChar + 1]. */
static inline void geohashToString(uint64_t bits, int nChar, char *zOut) {
  int i;
  for (i = 0; i < nChar; i++) zOut[i] = geohashAlphabet[(bits >> (59 - 5 * i)) & 31];
  zOut[nChar] = 0;
}

/* The cell of the first nBit (<= 60) top-aligned bits, its bits, its bounds. */
static inline void geohashCellOf(uint64_t bits, int nBit, GeohashCell *pCell) {
  int nLon = (nBit + 1) / 2;
  int nLat = nBit / 2;
  uint64_t w = nBit ? bits & (~0ull << (64 - nBit)) : 0;
  pCell->nLonBit = nLon;
  pCell->nLatBit = nLat;
  pCell->iLon = nLon ? geohashSqueeze(w >> 1) >> (32 - nLon) : 0;
  pCell->iLat = nLat ? geohashSqueeze(w) >> (32 - nLat) : 0;
}

static inline uint64_t geohashCellBits(const GeohashCell *pCell) {
  uint32_t lon = pCell->nLonBit ? (uint32_t)((uint64_t)pCell->iLon << (32 - pCell->nLonBit)) : 0;
  uint32_t lat = pCell->nLatBit ? (uint32_t)((uint64_t)pCell->iLat << (32 - pCell->nLatBit)) : 0;
  return geohashInterleavePortable(lon, lat);
}

static inline void geohashCellBounds(const GeohashCell *pCell, GeohashBounds *p) {
  /* Division by a power of two: exact, and cheaper than ldexp(). */
  double rLon = 360.0 / (double)((uint64_t)1 << pCell->nLonBit);
  double rLat = 180.0 / (double)((uint64_t)1 << pCell->nLatBit);
  p->minLon = -180.0 + rLon * pCell->iLon;
  p->maxLon = p->minLon + rLon;
  p->minLat = -90.0 + rLat * pCell->iLat;
  p->maxLat = p->minLat + rLat;
}

#endif /* NOSQL_GEOHASH_H */
