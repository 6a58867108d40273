/*
** nosqlTest.h: the pure cores' functions that only the unit tests
** (tests/unit), the benchmarks (tests/bench) and the fuzz targets call,
** apart from the file that defines them. ext/nosqlInt.h keeps what files
** of the extension share; the file that defines a function here includes
** this header too, so the prototypes are checked against the definitions.
** Each function's contract is stated above its definition.
*/
#ifndef NOSQL_TEST_H
#define NOSQL_TEST_H

#include "nosqlInt.h"
#include "geohash.h"

/**************************************************************************
** ext/mpath.c: paths, lquery and ltxtquery (none of them calls sqlite3_*)
*/
typedef struct MpathLabel MpathLabel;
typedef struct MpathQuery MpathQuery;
typedef struct MpathTxtQuery MpathTxtQuery;

/* One label of a parsed path: a slice of the path's text. */
struct MpathLabel {
  int iOff; /* Byte offset of the label in the path */
  int n;    /* Bytes in the label, > 0 */
};

int mpathSepValid(char c);
int mpathSplit(const char *z, int n, char sep, MpathLabel *a, int nA, char *zErr, int nErr);
int64_t mpathLquerySize(int n);
MpathQuery *mpathLqueryCompile(const char *z, int n, char sep, void *pBuf, char *zErr, int nErr);
int64_t mpathMatchWorkSize(int nLabel);
/*
** Does path z, split into labels a[0..nLabel), match q? aWork holds
** mpathMatchWorkSize(nLabel) ints (unused up to MPATH_BITS_MAX labels).
** The Bits and Dp variants are the two programs it chooses between.
*/
#define MPATH_BITS_MAX 62
int mpathLqueryMatch(const MpathQuery *q, const char *z, const MpathLabel *a, int nLabel, int *aWork);
int mpathLqueryMatchBits(const MpathQuery *q, const char *z, const MpathLabel *a, int nLabel);
int mpathLqueryMatchDp(const MpathQuery *q, const char *z, const MpathLabel *a, int nLabel, int *aWork);
int mpathLqueryPrefix(const MpathQuery *q);
int64_t mpathTxtSize(int n);
MpathTxtQuery *mpathTxtCompile(const char *z, int n, char sep, void *pBuf, char *zErr, int nErr);
int mpathTxtMatch(MpathTxtQuery *q, const char *z, const MpathLabel *a, int nLabel);
int mpathIndex(const char *zA, const MpathLabel *a, int nA, const char *zB, const MpathLabel *b, int nB,
               int64_t iStart);
int mpathSubpathRange(int nLabel, int64_t iOff, int64_t nLen, int bLen, int64_t *piStart, int64_t *piEnd);
int mpathSubltreeRange(int nLabel, int64_t iStart, int64_t iEnd, int64_t *piStart, int64_t *piEnd);
int mpathLcaStep(const char *zA, const MpathLabel *a, const char *zB, const MpathLabel *b, int nB, int nKeep);
int mpathIsAncestor(const char *zA, const MpathLabel *a, int nA, const char *zB, const MpathLabel *b, int nB);

/**************************************************************************
** ext/geohash.c: bit kernels, string codec, neighbours, distance, curves
** (the grid's inline helpers, geohashSpread() and the portable interleave
** among them, are in ext/geohash.h)
*/
/* 64 interleaved bits, longitude first (bit 63): BMI2 pdep, and the one
** chosen at run time. The pdep variants need BMI2; geohashHasPdep() is
** true when the CPU has it and runs pdep fast (not AMD before Zen 3). */
uint64_t geohashInterleavePdep(uint32_t lon, uint32_t lat);
int geohashHasPdep(void);
uint64_t geohashEncodePortable(double lat, double lon);
uint64_t geohashEncodePdep(double lat, double lon);
uint64_t geohashEncode(double lat, double lon);
void geohashEncodeBatchPortable(const double *aLat, const double *aLon, uint64_t *aOut, int n);
void geohashEncodeBatchPdep(const double *aLat, const double *aLon, uint64_t *aOut, int n);
/* Four points at a time: AVX2 quantisation, BMI2 pdep; only when
** geohashHasAvx2() is true (AVX2 and a fast pdep, see geohashHasPdep()). */
void geohashEncodeBatchAvx2(const double *aLat, const double *aLon, uint64_t *aOut, int n);
int geohashHasAvx2(void);
/* The fastest of the batch kernels this CPU runs. */
void geohashEncodeBatch(const double *aLat, const double *aLon, uint64_t *aOut, int n);
/* Parse n (<= 12) characters to top-aligned bits; -1, or the index of the first bad byte. */
int geohashFromString(const char *z, int n, uint64_t *pBits);
/* Move a cell by dLat, dLon in {-1, 0, 1}; wraps east-west, 0 beyond a pole. */
int geohashNeighbor(GeohashCell *pCell, int dLat, int dLon);
/* Z-order and Hilbert keys of integer grids (order in 1..31). */
uint64_t geohashZorder(uint32_t x, uint32_t y);
uint64_t geohashHilbert(uint32_t x, uint32_t y, int order);
void geohashHilbertInverse(uint64_t d, int order, uint32_t *pX, uint32_t *pY);

/**************************************************************************
** ext/hll.c: HyperLogLog hashes, registers and sketch codec
*/
/* 64-bit hashes of bytes (seed separates value types) and of an integer. */
uint64_t hllHashBytes(const void *pData, size_t n, uint64_t seed);
uint64_t hllHashInt(int64_t v);
/* Add hash h to the 2^p one-byte registers aReg[]. */
void hllAdd(unsigned char *aReg, int p, uint64_t h);
/* The cardinality estimate of 2^p registers (Ertl's improved estimator). */
double hllEstimate(const unsigned char *aReg, int p);
/* Bytes of a serialized sketch of precision p. */
int hllSketchBytes(int p);
/* Write registers as a sketch into aOut (hllSketchBytes(p) bytes). */
void hllSerialize(const unsigned char *aReg, int p, unsigned char *aOut);
/*
** Validate the sketch a[0..n) and, if aReg is not NULL, unpack its
** registers there (room for 2^p). Returns NULL and sets *pp, or a static
** description of what is wrong.
*/
const char *hllDeserialize(const unsigned char *a, int n, unsigned char *aReg, int *pp);

/**************************************************************************
** ext/ckey.c
*/
/* Copy the nRaw escaped bytes at z to aOut (room for nData bytes), removing escapes. */
void ckeyUnescape(const unsigned char *z, int nRaw, unsigned char *aOut);

/**************************************************************************
** ext/roaring_sql.c
*/
/*
** Check that a[0..n) is exactly one bitmap in CRoaring's portable format
** with well-formed containers (keys and array values ascending, runs
** disjoint and in range, bitset cardinalities equal to their popcount,
** offsets exact, no trailing bytes). Returns 0 if so, 1 if not. Never
** reads outside a[0..n).
*/
int roaringValidate(const unsigned char *a, size_t n);

/**************************************************************************
** ext/inverted_index_core.c: the frame checksum, and the query language
** without nested fields (iiQueryParseNested / iiQueryEvalNested with no
** nested field, in ext/nosqlInt.h).
*/
uint32_t iiChecksum(const unsigned char *a, size_t n);
IiExpr *iiQueryParse(const char *zQuery, int nField, const char *const *azField, char **pzErr, int *pRc);
struct roaring_bitmap_s *iiQueryEval(IiExpr *pExpr, const struct roaring_bitmap_s *pUniverse,
                                     IiPostingLoader xLoad, void *pCtx, int *pRc);

#endif /* NOSQL_TEST_H */
