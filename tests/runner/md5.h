/*
** md5.h: a small MD5 (RFC 1321) for the sqllogictest runner's
** "N values hashing to <md5>" results. Not used for anything secret.
*/
#ifndef SLT_MD5_H
#define SLT_MD5_H

#include <stddef.h>
#include <stdint.h>

typedef struct Md5 Md5;
struct Md5 {
  uint32_t s[4];   /* Running state A, B, C, D */
  uint64_t nByte;  /* Bytes hashed so far */
  uint8_t buf[64]; /* Partial block */
};

void md5Init(Md5 *p);
void md5Update(Md5 *p, const void *a, size_t n);
/* Writes 32 lowercase hex digits and a NUL into zOut[33]. */
void md5FinalHex(Md5 *p, char zOut[33]);

#endif
