/*
** geohash_cover.c: the covers of ext/geohash.c (its header comment
** documents them): a circle or a box as a short sorted list of geohash
** ranges, so that a plain B-tree on the codes answers radius and box
** searches exactly. A pure core: no sqlite3_* calls; the SQL functions and
** table-valued functions stay in geohash.c, and the unit tests and
** benchmarks drive these directly. Uses the grid of ext/geohash.h (cells,
** their bits and bounds, quantisation) and nothing of geohash.c: the
** dependency goes one way, geohash.c -> geohash_cover.c.
*/
#include "geohash.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
** The covers. Cells are bit prefixes of the 60-bit code of a 12-character
** geohash; a cell of depth d with prefix p is the half-open range
** [p << (60 - d), (p + 1) << (60 - d)). The walk visits cells in ascending
** order, so a new range either extends the last one or follows it.
*/
#define GEOHASH_BITS 60

/* How the walk treats a cell. */
#define GEOHASH_OUT 0   /* No point of the shape can have a code in it */
#define GEOHASH_WHOLE 1 /* Keep it as one range */
#define GEOHASH_SPLIT 2 /* Look at its two halves */

static int geohashRangeCmp(const void *a, const void *b) {
  uint64_t x = ((const GeohashRange *)a)->lo, y = ((const GeohashRange *)b)->lo;
  return x < y ? -1 : x > y;
}

static int geohashU64Cmp(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Sort the ranges and merge those that touch or overlap. */
static void geohashCoverNormalize(GeohashCover *p) {
  int i, k;
  if (p->nRange < 2) return;
  qsort(p->aRange, (size_t)p->nRange, sizeof(GeohashRange), geohashRangeCmp);
  for (k = 0, i = 1; i < p->nRange; i++) {
    if (p->aRange[i].lo <= p->aRange[k].hi) {
      if (p->aRange[i].hi > p->aRange[k].hi) p->aRange[k].hi = p->aRange[i].hi;
    } else {
      p->aRange[++k] = p->aRange[i];
    }
  }
  p->nRange = k + 1;
}

/*
** Merge normalized ranges across their smallest gaps until at most nMax
** remain, whatever area that adds. The union only grows, so the cover
** stays correct, just coarser. aGap is scratch room for nRange values.
*/
static void geohashCoverMergeGaps(GeohashCover *p, int nMax) {
  uint64_t thr;
  int i, k, nMerge;
  if (p->nRange <= nMax) return;
  for (i = 1; i < p->nRange; i++) p->aGap[i - 1] = p->aRange[i].lo - p->aRange[i - 1].hi;
  qsort(p->aGap, (size_t)(p->nRange - 1), sizeof(uint64_t), geohashU64Cmp);
  thr = p->aGap[p->nRange - nMax - 1];
  nMerge = p->nRange - nMax; /* gaps equal to thr are merged only up to this count */
  for (k = 0, i = 1; i < p->nRange; i++) {
    uint64_t gap = p->aRange[i].lo - p->aRange[k].hi;
    if (gap < thr || (gap == thr && nMerge > 0)) {
      p->aRange[k].hi = p->aRange[i].hi;
      nMerge--;
    } else {
      p->aRange[++k] = p->aRange[i];
    }
  }
  p->nRange = k + 1;
}

/* Add the range of a cell; when the room is full, normalize and coarsen. */
static void geohashCoverAdd(GeohashCover *p, uint64_t prefix, int depth) {
  if (p->nRange == GEOHASH_COVER_ROOM) {
    geohashCoverNormalize(p);
    geohashCoverMergeGaps(p, GEOHASH_COVER_ROOM / 2);
  }
  p->aRange[p->nRange].lo = prefix << (GEOHASH_BITS - depth);
  p->aRange[p->nRange].hi = (prefix + 1) << (GEOHASH_BITS - depth);
  p->nRange++;
}

/*
** Merge the ranges across their smallest gaps while there are more than
** nTarget of them and the gaps taken add at most rExtra times the covered
** length. A gap's length in codes is its area in square degrees, so this
** trades a bounded share of extra candidates for fewer index seeks.
*/
static void geohashCoverCompact(GeohashCover *p, int nTarget, double rExtra) {
  uint64_t nCovered = 0, nAdded = 0;
  int i;
  for (i = 0; i < p->nRange; i++) nCovered += p->aRange[i].hi - p->aRange[i].lo;
  while (p->nRange > nTarget) {
    int iMin = 1;
    uint64_t gap;
    for (i = 2; i < p->nRange; i++) {
      if (p->aRange[i].lo - p->aRange[i - 1].hi < p->aRange[iMin].lo - p->aRange[iMin - 1].hi) iMin = i;
    }
    gap = p->aRange[iMin].lo - p->aRange[iMin - 1].hi;
    if ((double)(nAdded + gap) > rExtra * (double)nCovered) break;
    nAdded += gap;
    p->aRange[iMin - 1].hi = p->aRange[iMin].hi;
    memmove(&p->aRange[iMin], &p->aRange[iMin + 1], sizeof(GeohashRange) * (size_t)(p->nRange - iMin - 1));
    p->nRange--;
  }
}

/*
** The walk, level by level from the whole globe (depth 0) down, so that
** the cells kept have even sizes. xClassify says what to do with a cell
** (it must not say GEOHASH_SPLIT at depth 60). When the cells to split at
** one level would exceed the work room (a tiny circle on a pole touches
** every cell of the top row), they are kept whole instead: coarser, never
** wrong. The result is normalized, compacted, and at most
** GEOHASH_COVER_MAX ranges.
*/
static void geohashCoverWalk(GeohashCover *p, int (*xClassify)(const void *, uint64_t, int),
                             const void *pCtx) {
  GeohashCellRef *aCur = p->aCell[0], *aNext = p->aCell[1];
  int nCur = 1, i;
  p->nRange = 0;
  aCur[0].prefix = 0;
  aCur[0].depth = 0;
  while (nCur > 0) {
    int nSplit = 0;
    GeohashCellRef *aSwap;
    for (i = 0; i < nCur; i++) {
      int e = xClassify(pCtx, aCur[i].prefix, aCur[i].depth);
      if (e == GEOHASH_WHOLE) {
        geohashCoverAdd(p, aCur[i].prefix, aCur[i].depth);
      } else if (e == GEOHASH_SPLIT) {
        aCur[nSplit++] = aCur[i];
      }
    }
    if (2 * nSplit > GEOHASH_COVER_WORK) {
      for (i = 0; i < nSplit; i++) geohashCoverAdd(p, aCur[i].prefix, aCur[i].depth);
      break;
    }
    for (i = 0; i < nSplit; i++) {
      aNext[2 * i].prefix = aCur[i].prefix * 2;
      aNext[2 * i + 1].prefix = aCur[i].prefix * 2 + 1;
      aNext[2 * i].depth = aNext[2 * i + 1].depth = aCur[i].depth + 1;
    }
    nCur = 2 * nSplit;
    aSwap = aCur;
    aCur = aNext;
    aNext = aSwap;
  }
  geohashCoverNormalize(p);
  geohashCoverMergeGaps(p, GEOHASH_COVER_MAX);
  geohashCoverCompact(p, GEOHASH_COVER_TARGET, GEOHASH_COVER_EXTRA);
}

/* Radians per degree. */
#define GEOHASH_RAD (M_PI / 180.0)

/* The circle being covered, in radians. */
typedef struct GeohashCircle GeohashCircle;
struct GeohashCircle {
  double lat;      /* Centre latitude */
  double lon;      /* Centre longitude, in [-pi, pi] */
  double sinLat;   /* sin(lat) */
  double cosLat;   /* cos(lat) */
  double angle;    /* Radius as an angle at the centre of the Earth */
  double cosAngle; /* cos(angle): a point is inside when its dot product with the centre is >= this */
  double rMin;     /* Cell size (radians) at which a border cell is kept whole */
  /* A bounding box, degrees, widened by a margin: cells outside it are
  ** dropped without trigonometry. No longitude test when the circle holds
  ** a pole (bLonAll). */
  double minLat, maxLat; /* Latitude range of the circle */
  double minLon, maxLon; /* Longitude range; may extend past +-180 */
  int bLonAll;           /* True when every longitude is in range */
};

/* Angular distance between the centre and (lat, lon), radians; haversine. */
static double geohashAngleTo(const GeohashCircle *c, double lat, double lon) {
  double u = sin((lat - c->lat) / 2.0);
  double v = sin((lon - c->lon) / 2.0);
  double a = u * u + c->cosLat * cos(lat) * v * v;
  if (a > 1.0) a = 1.0;
  return 2.0 * asin(sqrt(a));
}

/* x reduced to [-pi, pi]. */
static double geohashWrap(double x) {
  while (x > M_PI) x -= 2.0 * M_PI;
  while (x < -M_PI) x += 2.0 * M_PI;
  return x;
}

/*
** The smallest angular distance from the centre to a point of the cell
** (a latitude-longitude rectangle, radians). Exact on the sphere:
**  - centre longitude inside the cell's: the nearest point is on the same
**    meridian, at the nearer latitude edge (or the centre itself);
**  - otherwise the nearest point lies on the meridian edge with the smaller
**    longitude difference d (along a parallel the distance grows with d).
**    On that meridian the distance is smallest at latitude
**    atan2(sin lat, cos lat cos d) when d <= 90 degrees and that latitude
**    falls inside the edge (cross-track distance asin(cos lat sin d)),
**    else at one of the edge's two ends.
*/
static double geohashMinAngle(const GeohashCircle *c, const GeohashBounds *b) {
  double latMin = b->minLat * GEOHASH_RAD, latMax = b->maxLat * GEOHASH_RAD;
  double lonMin = b->minLon * GEOHASH_RAD, lonMax = b->maxLon * GEOHASH_RAD;
  double dW = geohashWrap(lonMin - c->lon);
  double dE = geohashWrap(lonMax - c->lon);
  double off = c->lon - lonMin; /* how far east of the west edge, in [0, 2pi) */
  double d, lonEdge, latStar;
  while (off < 0) off += 2.0 * M_PI;
  while (off >= 2.0 * M_PI) off -= 2.0 * M_PI;
  if (off <= lonMax - lonMin) {
    if (c->lat < latMin) return latMin - c->lat;
    if (c->lat > latMax) return c->lat - latMax;
    return 0.0;
  }
  if (fabs(dW) <= fabs(dE)) {
    d = fabs(dW);
    lonEdge = lonMin;
  } else {
    d = fabs(dE);
    lonEdge = lonMax;
  }
  if (d <= M_PI / 2) {
    latStar = atan2(c->sinLat, c->cosLat * cos(d));
    if (latStar >= latMin && latStar <= latMax) {
      double x = c->cosLat * sin(d);
      return asin(x > 1.0 ? 1.0 : x);
    }
  }
  {
    double a1 = geohashAngleTo(c, latMin, lonEdge);
    double a2 = geohashAngleTo(c, latMax, lonEdge);
    return a1 < a2 ? a1 : a2;
  }
}

/*
** True when the four corners of the cell are inside the circle. On a small
** circle that makes the whole cell inside; where it does not (a cap larger
** than a hemisphere), the cell is merely kept whole, which is still a
** correct cover.
*/
static int geohashCornersInside(const GeohashCircle *c, const GeohashBounds *b) {
  double s0 = sin(b->minLat * GEOHASH_RAD), c0 = cos(b->minLat * GEOHASH_RAD);
  double s1 = sin(b->maxLat * GEOHASH_RAD), c1 = cos(b->maxLat * GEOHASH_RAD);
  double cW = cos(b->minLon * GEOHASH_RAD - c->lon), cE = cos(b->maxLon * GEOHASH_RAD - c->lon);
  double cMin = cW < cE ? cW : cE; /* the corner farther in longitude, on each parallel */
  double k = c->cosAngle;
  return c->sinLat * s0 + c->cosLat * c0 * cMin >= k && c->sinLat * s1 + c->cosLat * c1 * cMin >= k;
}

/* True when the cell cannot touch the circle's bounding box. */
static int geohashOutsideBox(const GeohashCircle *c, const GeohashBounds *b) {
  if (b->minLat > c->maxLat || b->maxLat < c->minLat) return 1;
  if (c->bLonAll) return 0;
  if (b->minLon <= c->maxLon && b->maxLon >= c->minLon) return 0;
  if (b->minLon <= c->maxLon - 360.0 && b->maxLon >= c->minLon - 360.0) return 0;
  if (b->minLon <= c->maxLon + 360.0 && b->maxLon >= c->minLon + 360.0) return 0;
  return 1;
}

/* Cell size for the stopping rule: its larger side, radians of arc. */
static double geohashCellSize(const GeohashBounds *b) {
  double h = (b->maxLat - b->minLat) * GEOHASH_RAD;
  double latNear = b->minLat > 0 ? b->minLat : (b->maxLat < 0 ? -b->maxLat : 0.0);
  double w = (b->maxLon - b->minLon) * GEOHASH_RAD * cos(latNear * GEOHASH_RAD);
  return h > w ? h : w;
}

/* Tolerance of the distance tests: rounding, never geometry. */
#define GEOHASH_EPS 1e-9

static int geohashCircleClassify(const void *pCtx, uint64_t prefix, int depth) {
  const GeohashCircle *c = (const GeohashCircle *)pCtx;
  GeohashCell cell;
  GeohashBounds b;
  geohashCellOf(depth ? prefix << (64 - depth) : 0, depth, &cell);
  geohashCellBounds(&cell, &b);
  if (geohashOutsideBox(c, &b)) return GEOHASH_OUT;
  if (geohashMinAngle(c, &b) > c->angle * (1 + GEOHASH_EPS) + GEOHASH_EPS) return GEOHASH_OUT;
  if (depth == GEOHASH_BITS || geohashCellSize(&b) <= c->rMin ||
      (c->angle < M_PI / 2 && geohashCornersInside(c, &b))) {
    return GEOHASH_WHOLE;
  }
  return GEOHASH_SPLIT;
}

/*
** The fast path for circles that reach no pole and span less than a
** quarter of the longitudes: the walk starts at the deepest level where at
** most 2 x 2 cells hold the circle's bounding box, not at the whole globe,
** and goes depth first, so that ranges come out sorted and merge as they
** come. The cells kept whole at the bottom all have one depth, the
** shallowest whose cells have their larger side at most rMin everywhere in
** the box (the old walk's rule, taken where cells are widest).
**
** The test that drops a cell needs no trigonometry. For every point of a
** cell [A, B] x [L, M] (degrees; longitudes unwrapped so that the centre's
** is within 180 of each edge) the haversine term
**   a = sin^2(dlat / 2) + cos(lat) cos(lat0) sin^2(dlon / 2)
** is at least the same sum with dlat and dlon the gaps from the centre to
** the cell (0 when the centre's latitude or longitude is inside) and cos(lat)
** its smallest value on the cell, at the edge farther from the equator.
** Lower bounds of each factor come from sin x >= x - x^3/6 (x >= 0) and
** cos(lat0 + d) >= cos lat0 (1 - d^2/2) - sin lat0 d - |sin lat0| |d|^3/6,
** both within x^3/6 of the truth, so the bound is tight on small cells.
** A cell is dropped when that bound exceeds sin^2 of half the widened
** radius (the same margin as the exact walk). A cell whose farthest point
** is inside (an upper bound from sin x <= x) is kept whole: that only
** saves work, since its sub-cells would all be kept.
*/
#define GEOHASH_DISC_LEAVES 2048 /* Most leaf cells in the circle's box */

typedef struct GeohashDisc GeohashDisc;
struct GeohashDisc {
  GeohashCover *pCover; /* Where the ranges go */
  double lat, lon;      /* Centre, degrees; lon in [-180, 180] */
  double sinLat;        /* sin(lat) */
  double cosLat;        /* cos(lat) */
  double aOut;          /* Haversine term of the widened radius: drop a cell whose bound exceeds it */
  double aIn;           /* Haversine term of the radius: keep whole a cell whose farthest point is within */
  int depthLeaf;        /* Depth of the smallest cells: kept whole when not dropped */
  double aH[GEOHASH_BITS + 1]; /* Height of a cell of each depth from the roots', degrees */
  double aW[GEOHASH_BITS + 1]; /* Width, the same */
};

/* sin(x)^2 from below, for x in [0, pi/2]. */
static double geohashSinSqLow(double x) {
  double s = x - x * x * x / 6.0;
  return s * s;
}

/* The larger of two doubles (fmax() is a library call). */
static double geohashMax(double x, double y) { return x > y ? x : y; }

/* A cell waiting on the fast path's stack: the cell of that depth and bit
** prefix whose south-west corner is (latA, lonA), degrees; lonA is
** unwrapped (within a turn of the true value) so that the cell's edges are
** within 180 degrees of the centre's longitude. Those values are exact, and
** so are its sides, GeohashDisc.aH[depth] and aW[depth] (halvings). */
typedef struct GeohashDiscCell GeohashDiscCell;
struct GeohashDiscCell {
  uint64_t code; /* Bit prefix, < 2^depth */
  double latA;   /* South edge */
  double lonA;   /* West edge, unwrapped */
  int depth;     /* Bits in code */
};

/* Room for the depth-first walk: two cells per level below the roots. */
#define GEOHASH_DISC_STACK (2 * GEOHASH_BITS + 4)

/*
** Walk the cells below the roots depth first, children in code order, so
** that the ranges come out sorted and merge as they come. With d the
** latitude offset from the centre in radians (|d| < 1.2 below a root of
** depth >= 4, at most 45 degrees tall, near a circle under 23 degrees),
**   cos(lat0 + d) >= cos lat0 - sin lat0 d - 0.7 d^2
**   cos(lat0 + d) <= cos lat0 - sin lat0 d + 0.2 d^2
** from cos d >= 1 - d^2/2, |sin d - d| <= |d|^3/6 and cos lat0 in [0, 1].
*/
static void geohashDiscWalk(const GeohashDisc *c, GeohashDiscCell *aStack, int nStack) {
  GeohashCover *p = c->pCover;
  while (nStack > 0) {
    GeohashDiscCell x = aStack[--nStack];
    double latB = x.latA + c->aH[x.depth], lonB = x.lonA + c->aW[x.depth];
    double gLat = geohashMax(geohashMax(x.latA - c->lat, c->lat - latB), 0.0);
    double gLon = geohashMax(geohashMax(x.lonA - c->lon, c->lon - lonB), 0.0);
    double a = geohashSinSqLow(gLat * (GEOHASH_RAD / 2));
    int bWhole = x.depth == c->depthLeaf;
    /* The term added below is >= 0, so a cell this test drops the sum
    ** drops too: the same answer without the longitude bound. */
    if (a > c->aOut) continue;
    if (gLon > 0.0) {
      double d = ((fabs(x.latA) > fabs(latB) ? x.latA : latB) - c->lat) * GEOHASH_RAD;
      double cosMin = geohashMax(c->cosLat - c->sinLat * d - 0.7 * d * d, 0.0);
      a += c->cosLat * cosMin * geohashSinSqLow(gLon * (GEOHASH_RAD / 2));
    }
    if (a > c->aOut) continue;
    if (!bWhole) {
      double fLat = geohashMax(latB - c->lat, c->lat - x.latA) * (GEOHASH_RAD / 2);
      double fLon = geohashMax(lonB - c->lon, c->lon - x.lonA) * (GEOHASH_RAD / 2);
      double d = ((x.latA > 0.0 ? x.latA : (latB < 0.0 ? latB : 0.0)) - c->lat) * GEOHASH_RAD;
      double cosMax = c->cosLat - c->sinLat * d + 0.2 * d * d;
      bWhole = fLat * fLat + c->cosLat * cosMax * fLon * fLon <= c->aIn;
    }
    if (bWhole) {
      uint64_t lo = x.code << (GEOHASH_BITS - x.depth);
      if (p->nRange > 0 && p->aRange[p->nRange - 1].hi == lo) {
        p->aRange[p->nRange - 1].hi = (x.code + 1) << (GEOHASH_BITS - x.depth);
      } else {
        geohashCoverAdd(p, x.code, x.depth);
      }
      continue;
    }
    /* Split: the next bit is a longitude bit at even depths. Push the
    ** upper half first, so the lower is visited first. */
    x.depth++;
    x.code *= 2;
    aStack[nStack] = x;
    aStack[nStack].code++;
    if (x.depth & 1) {
      aStack[nStack].lonA = x.lonA + c->aW[x.depth];
    } else {
      aStack[nStack].latA = x.latA + c->aH[x.depth];
    }
    aStack[nStack + 1] = x;
    nStack += 2;
  }
}

/*
** The fast path. Returns 0, having done nothing, when the circle is not one
** it handles (it reaches a pole, or its box is too wide). (Long: the box,
** the roots and the walk share the quantised bounds; split, each part
** would recompute them.)
*/
static int geohashCoverDisc(GeohashCover *p, double lat, double lon, double radius) {
  GeohashDisc c;
  double angle = radius / GEOHASH_EARTH_RADIUS;
  double wide = angle * (1 + GEOHASH_EPS) + GEOHASH_EPS; /* the widened radius, radians */
  double latLo, latHi, lonLo, lonHi, dLon, cosNear, rMin, s;
  int64_t cLo, cHi, rLo, rHi, iCol, iRow;
  int depth, i, j, nRoot = 0;
  struct {
    uint64_t code;
    int64_t iLonU;
    uint32_t iLat;
  } aRoot[4], t;
  if (wide >= M_PI / 8) return 0;
  latLo = lat - wide / GEOHASH_RAD - GEOHASH_EPS;
  latHi = lat + wide / GEOHASH_RAD + GEOHASH_EPS;
  if (latLo <= -90.0 || latHi >= 90.0) return 0;
  s = sin(wide) / cos(lat * GEOHASH_RAD);
  if (s >= 0.7) return 0; /* more than about 45 degrees east and west */
  dLon = asin(s) / GEOHASH_RAD * (1 + GEOHASH_EPS) + GEOHASH_EPS;
  lonLo = lon - dLon;
  lonHi = lon + dLon;
  c.pCover = p;
  c.lat = lat;
  c.lon = lon;
  c.sinLat = sin(lat * GEOHASH_RAD);
  c.cosLat = cos(lat * GEOHASH_RAD);
  s = sin(wide / 2);
  c.aOut = s * s * (1 + 1e-12);
  s = sin(angle / 2);
  c.aIn = s * s;
  /* The leaf depth, from the width where cells are widest. */
  cosNear = cos((latLo > 0.0 ? latLo : (latHi < 0.0 ? -latHi : 0.0)) * GEOHASH_RAD);
  rMin = angle * GEOHASH_COVER_CELL;
  for (depth = 0; depth < GEOHASH_BITS; depth++) {
    double hh = M_PI / (double)((uint64_t)1 << (depth / 2));
    double ww = 2.0 * M_PI / (double)((uint64_t)1 << ((depth + 1) / 2)) * cosNear;
    if (hh <= rMin && ww <= rMin) break;
  }
  c.depthLeaf = depth;
  /* The box's cells at the leaf depth (unwrapped longitude indexes offset
  ** by one turn, so they are >= 0), then up to at most 2 x 2 cells. */
  {
    double w = 360.0 / (double)((uint64_t)1 << ((depth + 1) / 2));
    double h = 180.0 / (double)((uint64_t)1 << (depth / 2));
    cLo = (int64_t)floor((lonLo + 540.0) / w);
    cHi = (int64_t)floor((lonHi + 540.0) / w);
    rLo = (int64_t)floor((latLo + 90.0) / h);
    rHi = (int64_t)floor((latHi + 90.0) / h);
  }
  if (rHi >= ((int64_t)1 << (depth / 2))) return 0;
  /* Near a pole the leaves are slivers, many to a box: the exact walk,
  ** which coarsens a level that has too many cells, is the better tool. */
  if ((cHi - cLo + 1) * (rHi - rLo + 1) > GEOHASH_DISC_LEAVES) return 0;
  while (cHi - cLo > 1 || rHi - rLo > 1) {
    if (depth % 2) {
      cLo >>= 1;
      cHi >>= 1;
    } else {
      rLo >>= 1;
      rHi >>= 1;
    }
    depth--;
  }
  if (depth < 4) return 0;
  /* At most 2 x 2 roots. The indexes stay 64-bit: at longitude 180 and the
  ** finest depth the unwrapped index reaches 2^31. */
  for (iCol = cLo; iCol <= cHi; iCol++) {
    for (iRow = rLo; iRow <= rHi; iRow++) {
      GeohashCell cell;
      cell.nLonBit = (depth + 1) / 2;
      cell.nLatBit = depth / 2;
      cell.iLon = (uint32_t)((uint64_t)iCol & (((uint64_t)1 << cell.nLonBit) - 1));
      cell.iLat = (uint32_t)iRow;
      aRoot[nRoot].code = geohashCellBits(&cell) >> (64 - depth);
      aRoot[nRoot].iLonU = iCol;
      aRoot[nRoot].iLat = (uint32_t)iRow;
      nRoot++;
    }
  }
  /* In code order (across the antimeridian the eastern cells come first). */
  for (i = 1; i < nRoot; i++) {
    for (j = i; j > 0 && aRoot[j - 1].code > aRoot[j].code; j--) {
      t = aRoot[j];
      aRoot[j] = aRoot[j - 1];
      aRoot[j - 1] = t;
    }
  }
  p->nRange = 0;
  {
    GeohashDiscCell aStack[GEOHASH_DISC_STACK];
    double w = 360.0 / (double)((uint64_t)1 << ((depth + 1) / 2));
    double h = 180.0 / (double)((uint64_t)1 << (depth / 2));
    c.aH[depth] = h;
    c.aW[depth] = w;
    for (i = depth; i < c.depthLeaf; i++) {
      c.aH[i + 1] = i % 2 ? c.aH[i] / 2 : c.aH[i];
      c.aW[i + 1] = i % 2 ? c.aW[i] : c.aW[i] / 2;
    }
    for (i = 0; i < nRoot; i++) {
      GeohashDiscCell *x = &aStack[nRoot - 1 - i]; /* the first root on top */
      x->code = aRoot[i].code;
      x->depth = depth;
      x->latA = -90.0 + h * (double)aRoot[i].iLat;
      x->lonA = -540.0 + w * (double)aRoot[i].iLonU;
    }
    geohashDiscWalk(&c, aStack, nRoot);
  }
  geohashCoverMergeGaps(p, GEOHASH_COVER_MAX);
  geohashCoverCompact(p, GEOHASH_COVER_TARGET, GEOHASH_COVER_EXTRA);
  return 1;
}

void geohashCoverCircle(GeohashCover *p, double lat, double lon, double radius) {
  GeohashCircle c;
  c.lat = lat * GEOHASH_RAD;
  c.lon = lon * GEOHASH_RAD;
  c.sinLat = sin(c.lat);
  c.cosLat = cos(c.lat);
  c.angle = radius / GEOHASH_EARTH_RADIUS;
  c.cosAngle = cos(c.angle);
  c.rMin = c.angle * GEOHASH_COVER_CELL;
  if (c.angle >= M_PI) {
    p->nRange = 1;
    p->aRange[0].lo = 0;
    p->aRange[0].hi = (uint64_t)1 << GEOHASH_BITS;
    return;
  }
  if (geohashCoverDisc(p, lat, lon, radius)) return;
  {
    GeohashBounds aBox[2];
    int n = geohashBoundingBoxes(lat, lon, radius * (1 + GEOHASH_EPS) + 1e-3, aBox);
    c.minLat = aBox[0].minLat;
    c.maxLat = aBox[0].maxLat;
    c.bLonAll = n == 1 && aBox[0].minLon == -180.0 && aBox[0].maxLon == 180.0;
    c.minLon = n == 2 ? aBox[1].minLon : aBox[0].minLon;
    c.maxLon = n == 2 ? aBox[0].maxLon + 360.0 : aBox[0].maxLon;
  }
  geohashCoverWalk(p, geohashCircleClassify, &c);
}

/* Boxes in quantised units (30 bits per axis), inclusive bounds. */
typedef struct GeohashBox GeohashBox;
struct GeohashBox {
  int nBox;                    /* 1, or 2 across the antimeridian */
  uint32_t lonLo[2], lonHi[2]; /* Longitude cell indexes of each box, inclusive */
  uint32_t latLo, latHi;       /* Latitude cell indexes, inclusive */
  uint32_t lonMin;             /* Span at which a border cell is kept whole */
  uint32_t latMin;             /* Same, for latitude */
};

static int geohashBoxClassify(const void *pCtx, uint64_t prefix, int depth) {
  const GeohashBox *x = (const GeohashBox *)pCtx;
  GeohashCell cell;
  uint32_t lon0, lon1, lat0, lat1;
  int i, bTouch = 0, bInside = 0;
  geohashCellOf(depth ? prefix << (64 - depth) : 0, depth, &cell);
  lon0 = (uint32_t)((uint64_t)cell.iLon << (30 - cell.nLonBit));
  lon1 = (uint32_t)((((uint64_t)cell.iLon + 1) << (30 - cell.nLonBit)) - 1);
  lat0 = (uint32_t)((uint64_t)cell.iLat << (30 - cell.nLatBit));
  lat1 = (uint32_t)((((uint64_t)cell.iLat + 1) << (30 - cell.nLatBit)) - 1);
  if (lat1 < x->latLo || lat0 > x->latHi) return GEOHASH_OUT;
  for (i = 0; i < x->nBox; i++) {
    if (lon1 >= x->lonLo[i] && lon0 <= x->lonHi[i]) bTouch = 1;
    if (lon0 >= x->lonLo[i] && lon1 <= x->lonHi[i]) bInside = 1;
  }
  if (!bTouch) return GEOHASH_OUT;
  if (depth == GEOHASH_BITS || (bInside && lat0 >= x->latLo && lat1 <= x->latHi) ||
      (lon1 - lon0 <= x->lonMin && lat1 - lat0 <= x->latMin)) {
    return GEOHASH_WHOLE;
  }
  return GEOHASH_SPLIT;
}

void geohashCoverBox(GeohashCover *p, double minLat, double minLon, double maxLat, double maxLon) {
  GeohashBox x;
  uint32_t lonSpan;
  x.latLo = geohashQuantizeLat(minLat) >> 2;
  x.latHi = geohashQuantizeLat(maxLat) >> 2;
  if (minLon <= maxLon) {
    x.nBox = 1;
    x.lonLo[0] = geohashQuantizeLon(minLon) >> 2;
    x.lonHi[0] = geohashQuantizeLon(maxLon) >> 2;
    lonSpan = x.lonHi[0] - x.lonLo[0];
  } else {
    /* Across the antimeridian: [min_lon, 180] and [-180, max_lon]. */
    x.nBox = 2;
    x.lonLo[0] = geohashQuantizeLon(minLon) >> 2;
    x.lonHi[0] = (1u << 30) - 1;
    x.lonLo[1] = 0;
    x.lonHi[1] = geohashQuantizeLon(maxLon) >> 2;
    lonSpan = (x.lonHi[0] - x.lonLo[0]) + x.lonHi[1];
  }
  x.lonMin = (uint32_t)(lonSpan * GEOHASH_COVER_CELL);
  x.latMin = (uint32_t)((x.latHi - x.latLo) * GEOHASH_COVER_CELL);
  geohashCoverWalk(p, geohashBoxClassify, &x);
}

int geohashRangeString(uint64_t v, char *zOut) {
  int n;
  if (v >= (uint64_t)1 << GEOHASH_BITS) {
    zOut[0] = '{'; /* the byte after 'z': above every geohash */
    zOut[1] = 0;
    return 1;
  }
  /* Trailing '0' characters are trailing 5-bit groups of zeros: count
  ** them from the bits and encode only the characters kept. */
  n = v ? 12 - __builtin_ctzll(v) / 5 : 0;
  geohashToString(v << 4, n, zOut);
  return n;
}

int geohashBoundingBoxes(double lat, double lon, double radius, GeohashBounds *aBox) {
  double a = radius / GEOHASH_EARTH_RADIUS;
  double latR = lat * GEOHASH_RAD;
  double minLat = lat - a / GEOHASH_RAD;
  double maxLat = lat + a / GEOHASH_RAD;
  double dLon, minLon, maxLon;
  if (a >= M_PI || minLat <= -90.0 || maxLat >= 90.0) {
    /* The circle holds a pole: every longitude, up to that pole. */
    aBox[0].minLat = minLat < -90.0 ? -90.0 : minLat;
    aBox[0].maxLat = maxLat > 90.0 ? 90.0 : maxLat;
    if (a >= M_PI) aBox[0].minLat = -90.0, aBox[0].maxLat = 90.0;
    aBox[0].minLon = -180.0;
    aBox[0].maxLon = 180.0;
    return 1;
  }
  /* The widest parallel of a cap: asin(sin a / cos lat). */
  {
    double s = sin(a) / cos(latR);
    dLon = s >= 1.0 ? 180.0 : asin(s) / GEOHASH_RAD;
  }
  /* A hair wider, so that rounding never drops a point on the border. */
  dLon = dLon * (1 + GEOHASH_EPS) + GEOHASH_EPS;
  minLat -= GEOHASH_EPS;
  maxLat += GEOHASH_EPS;
  if (dLon >= 180.0) {
    aBox[0].minLat = minLat;
    aBox[0].maxLat = maxLat;
    aBox[0].minLon = -180.0;
    aBox[0].maxLon = 180.0;
    return 1;
  }
  minLon = lon - dLon;
  maxLon = lon + dLon;
  if (minLon < -180.0) {
    aBox[0].minLat = aBox[1].minLat = minLat;
    aBox[0].maxLat = aBox[1].maxLat = maxLat;
    aBox[0].minLon = -180.0;
    aBox[0].maxLon = maxLon;
    aBox[1].minLon = minLon + 360.0;
    aBox[1].maxLon = 180.0;
    return 2;
  }
  if (maxLon > 180.0) {
    aBox[0].minLat = aBox[1].minLat = minLat;
    aBox[0].maxLat = aBox[1].maxLat = maxLat;
    aBox[0].minLon = -180.0;
    aBox[0].maxLon = maxLon - 360.0;
    aBox[1].minLon = minLon;
    aBox[1].maxLon = 180.0;
    return 2;
  }
  aBox[0].minLat = minLat;
  aBox[0].maxLat = maxLat;
  aBox[0].minLon = minLon;
  aBox[0].maxLon = maxLon;
  return 1;
}
