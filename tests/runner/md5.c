/*
** md5.c: MD5 as RFC 1321 defines it, written from the RFC's description.
*/
#include "md5.h"

#include <string.h>

static const uint32_t aK[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};

/* Per-round left-rotation amounts, four per round. */
static const uint8_t aR[16] = {7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21};

static uint32_t md5Rotl(uint32_t x, unsigned c) { return (x << c) | (x >> (32 - c)); }

static void md5Block(Md5 *p, const uint8_t *blk) {
  uint32_t m[16];
  uint32_t a = p->s[0], b = p->s[1], c = p->s[2], d = p->s[3];
  int i;
  for (i = 0; i < 16; i++) {
    m[i] = (uint32_t)blk[i * 4] | ((uint32_t)blk[i * 4 + 1] << 8) | ((uint32_t)blk[i * 4 + 2] << 16) |
           ((uint32_t)blk[i * 4 + 3] << 24);
  }
  for (i = 0; i < 64; i++) {
    uint32_t f;
    int g;
    int round = i / 16;
    if (round == 0) {
      f = (b & c) | (~b & d);
      g = i;
    } else if (round == 1) {
      f = (d & b) | (~d & c);
      g = (5 * i + 1) % 16;
    } else if (round == 2) {
      f = b ^ c ^ d;
      g = (3 * i + 5) % 16;
    } else {
      f = c ^ (b | ~d);
      g = (7 * i) % 16;
    }
    f = f + a + aK[i] + m[g];
    a = d;
    d = c;
    c = b;
    b = b + md5Rotl(f, aR[round * 4 + i % 4]);
  }
  p->s[0] += a;
  p->s[1] += b;
  p->s[2] += c;
  p->s[3] += d;
}

void md5Init(Md5 *p) {
  p->s[0] = 0x67452301;
  p->s[1] = 0xefcdab89;
  p->s[2] = 0x98badcfe;
  p->s[3] = 0x10325476;
  p->nByte = 0;
}

void md5Update(Md5 *p, const void *pData, size_t n) {
  const uint8_t *a = (const uint8_t *)pData;
  size_t nHave = (size_t)(p->nByte % 64);
  p->nByte += n;
  while (n > 0) {
    size_t nTake = 64 - nHave < n ? 64 - nHave : n;
    memcpy(&p->buf[nHave], a, nTake);
    nHave += nTake;
    a += nTake;
    n -= nTake;
    if (nHave == 64) {
      md5Block(p, p->buf);
      nHave = 0;
    }
  }
}

void md5FinalHex(Md5 *p, char zOut[33]) {
  static const char zHex[] = "0123456789abcdef";
  uint64_t nBit = p->nByte * 8;
  uint8_t pad = 0x80;
  uint8_t len[8];
  int i;
  md5Update(p, &pad, 1);
  pad = 0;
  while (p->nByte % 64 != 56) md5Update(p, &pad, 1);
  for (i = 0; i < 8; i++) len[i] = (uint8_t)(nBit >> (8 * i));
  md5Update(p, len, 8);
  for (i = 0; i < 16; i++) {
    uint8_t byte = (uint8_t)(p->s[i / 4] >> (8 * (i % 4)));
    zOut[i * 2] = zHex[byte >> 4];
    zOut[i * 2 + 1] = zHex[byte & 15];
  }
  zOut[32] = 0;
}
