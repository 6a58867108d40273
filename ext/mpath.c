/*
** mpath.c: materialized paths (technique 13 of the article), with
** PostgreSQL ltree's lquery and ltxtquery languages.
**
** A tree is stored one row per node, each row holding the path of labels
** from the root to the node: 'Top.Science.Astronomy'. The subtree of a node
** is then every path that starts with the node's path and a separator,
** which an ordinary index on the path column answers with one range, and
** pattern questions go to mpath_match(). The contract is PostgreSQL 15's
** ltree extension: where ltree answers, these functions give the same
** answer; what ltree rejects they reject, naming the position.
**
**   mpath_match(path, lquery [, sep])        -> 1/0   ltree's path ~ lquery
**   mpath_txtmatch(path, ltxtquery [, sep])  -> 1/0   ltree's path @ ltxtquery
**   mpath_nlevel(path [, sep])               -> number of labels
**   mpath_subpath(path, offset [, len [, sep]])        ltree's subpath()
**   mpath_subltree(path, start, end [, sep])           ltree's subltree()
**   mpath_index(a, b [, offset [, sep]])     -> first level of b in a, or -1
**   mpath_lca(p1, p2, ...)                   -> longest common ancestor
**   mpath_is_ancestor(a, b [, sep])          -> 1/0   ltree's a @> b
**   mpath_rebase(path, old, new [, sep])     -> path moved from old to new
**   mpath_lower(prefix [, sep]), mpath_upper(prefix [, sep])
**                                            -> bounds of the strict descendants
**   mpath_prefix(lquery [, sep])             -> the literal leading labels
**   SELECT lo, hi, self FROM mpath_ranges(prefix [, sep])
**                                            -> the subtree as two exact ranges
**
** Paths. Labels are ltree's [A-Za-z0-9_] plus '-' and any byte >= 0x80
** (non-ASCII UTF-8), at most 1000 bytes each (ltree 15: 255 characters;
** ltree 16: 1000), at most 65535 labels, joined by the separator ('.' by
** default). '' is the empty path (0 labels). With another separator, '.'
** is an ordinary label character. A separator is one ASCII punctuation
** character that is neither a label character nor an operator of the
** query languages.
**
** lquery. Items joined by the separator must match the whole path:
**   *         any number of labels; *{n} *{n,} *{n,m} *{,m} bound it
**   foo       a label; modifiers after it: @ case-insensitive (ASCII,
**             Latin-1, Latin Extended-A, Greek, Cyrillic, Armenian),
**             * label prefix, % every '_'-separated word of foo equals a
**             word of the label (with *: is a prefix of one)
**   a|b|c     any of the alternatives;  !a|b  a label matching none
**   foo{n,m}  n to m consecutive labels, each matching the item
** Matching computes, item after item, the set of path positions the items
** so far can reach (a bit set up to 62 labels, a dynamic program with a
** difference array beyond), so no pattern backtracks exponentially the
** way a naive matcher would; a literal first or last label is tested
** before that, which rejects most rows of a scan cheaply.
**
** ltxtquery. Words (with the same modifiers) combined by & | ! and
** parentheses; a word is true when some label of the path matches it.
**
** Index use. For a table t(path) with an index on path, the subtree of :p
** (the node and its descendants) is exactly
**
**   WHERE path = :p OR (path >= mpath_lower(:p) AND path < mpath_upper(:p))
**
** mpath_lower(p) is p || sep and mpath_upper(p) is p || (sep + 1), so the
** range holds exactly the paths that start with p and a separator: not
** 'a.b-c' nor 'a.bc' for p = 'a.b', which sort next to 'a.b.x'. SQLite
** runs it as two index searches (MULTI-INDEX OR), which deduplicate
** rowids; the table-valued function mpath_ranges() (below) gives the same
** rows as two plain range searches, about twice as fast per row:
**
**   SELECT n.* FROM mpath_ranges(:p) r JOIN t n ON n.path >= r.lo AND n.path < r.hi
**
** An lquery with a
** literal leading label sequence narrows the same way with
** mpath_prefix(:q) in place of :p, mpath_match() then filtering the range.
** For the empty prefix (the root) the bounds are '' and the empty blob,
** which sorts after every text value.
**
** A compiled lquery or ltxtquery is kept with sqlite3_set_auxdata() for
** the statement, so a scan parses its pattern once.
*/
#include "nosqlTest.h"

#include <stdio.h>
#include <string.h>

typedef struct MpathVariant MpathVariant;
typedef struct MpathItem MpathItem;
typedef struct MpathTxtItem MpathTxtItem;

/**************************************************************************
** Pure C core: no sqlite3_* calls below this line until the SQL glue.
*/

#define MPATH_MAX_LABELS 65535     /* Labels per path, items per lquery */
#define MPATH_MAX_LABEL_BYTES 1000 /* Bytes per label */

/* Variant flags, as ltree's modifiers. */
#define MPATH_INCASE 0x01 /* '@': case-insensitive (mpathFold) */
#define MPATH_ANYEND 0x02 /* '*': the label only has to start with it */
#define MPATH_SUBLEX 0x04 /* '%': compare '_'-separated words */

/* One alternative of an lquery item (or one word of an ltxtquery). */
struct MpathVariant {
  int iOff;  /* Byte offset of the text in the pattern */
  int n;     /* Bytes of text */
  int flags; /* MPATH_INCASE | MPATH_ANYEND | MPATH_SUBLEX */
};

/* One item of an lquery: '*' when nVar is 0. */
struct MpathItem {
  int iVar; /* First variant in MpathQuery.aVar[] */
  int nVar; /* Number of variants; 0 for '*' */
  int low;  /* Fewest labels the item matches */
  int high; /* Most labels the item matches */
  int bNot; /* True for '!': a label matching none of the variants */
  int bLit; /* True for a plain label matching exactly one label */
};

/* A compiled lquery, in one caller block of mpathLquerySize() bytes. */
struct MpathQuery {
  char sep;           /* Separator the pattern was compiled for */
  int nItem;          /* Items in aItem[] */
  int nVar;           /* Variants in aVar[] */
  MpathItem *aItem;   /* The items, in pattern order */
  MpathVariant *aVar; /* Variants of all items */
  char *zPat;         /* Copy of the pattern text (variants point into it) */
  int nPat;           /* Bytes in zPat */
};

/* ltxtquery node kinds, in the postfix program of MpathTxtQuery. */
#define MPATH_TXT_WORD 0 /* Push: some label matches aWord[iWord] */
#define MPATH_TXT_NOT 1  /* Pop one, push its negation */
#define MPATH_TXT_AND 2  /* Pop two, push both */
#define MPATH_TXT_OR 3   /* Pop two, push either */

/* One step of a compiled ltxtquery (postfix order). */
struct MpathTxtItem {
  int eOp;   /* MPATH_TXT_WORD, _NOT, _AND or _OR */
  int iWord; /* For a word: index in aWord[] */
};

/* A compiled ltxtquery, in one caller block of mpathTxtSize() bytes. */
struct MpathTxtQuery {
  char sep;              /* Separator the query was compiled for */
  int nProg;             /* Steps in aProg[] */
  MpathTxtItem *aProg;   /* The expression in postfix order */
  int nWord;             /* Words in aWord[] */
  MpathVariant *aWord;   /* The words, pointing into zPat */
  unsigned char *aStack; /* Evaluation stack, nProg bytes */
  char *zPat;            /* Copy of the query text */
};

/*
** Label bytes: 1 for [A-Za-z0-9_-] and bytes >= 0x80, 2 for '.', which is
** a label byte unless it is the separator. mpathLabelMask() says which.
*/
static const unsigned char mpathLabelByte[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0,
    0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1,
    0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

/*
** The mask of mpathLabelByte[] values that are label bytes with separator
** sep. A valid separator other than '.' is never in the table.
*/
static unsigned char mpathLabelMask(char sep) { return sep == '.' ? 1 : 3; }

/* True when byte c may appear in a label of a path whose separator is sep. */
static int mpathIsLabel(unsigned char c, char sep) { return (mpathLabelByte[c] & mpathLabelMask(sep)) != 0; }

/*
** True when c can separate labels: ASCII punctuation that is neither a
** label character nor an operator or delimiter of lquery and ltxtquery.
*/
int mpathSepValid(char c) {
  unsigned char u = (unsigned char)c;
  if (u <= 0x20 || u >= 0x7f) return 0;
  if (u != '.' && mpathLabelByte[u]) return 0;
  return strchr("*|!@%{}(),&", c) == NULL;
}

/* The 1-based character position of byte i of z (UTF-8 aware). */
static int mpathCharPos(const char *z, int i) {
  int k, nChar = 1;
  for (k = 0; k < i; k++) {
    if (((unsigned char)z[k] & 0xc0) != 0x80) nChar++;
  }
  return nChar;
}

/*
** Split path z[0..n) into labels. Fills at most nA entries of a[] and
** returns the number of labels (which may exceed nA: call again with a
** larger array), or -1 with a message in zErr[0..nErr) when the path is
** malformed.
*/
int mpathSplit(const char *z, int n, char sep, MpathLabel *a, int nA, char *zErr, int nErr) {
  int i = 0;
  int nLabel = 0;
  unsigned char mask = mpathLabelMask(sep);
  if (n == 0) return 0;
  while (1) {
    int iStart = i;
    while (i < n && (mpathLabelByte[(unsigned char)z[i]] & mask)) i++;
    if (i == iStart) {
      if (i == n) {
        snprintf(zErr, (size_t)nErr, "path syntax error at end of input");
      } else {
        snprintf(zErr, (size_t)nErr, "path syntax error at character %d", mpathCharPos(z, i));
      }
      return -1;
    }
    if (i - iStart > MPATH_MAX_LABEL_BYTES) {
      snprintf(zErr, (size_t)nErr, "label length (%d) exceeds the maximum allowed (%d) at character %d",
               i - iStart, MPATH_MAX_LABEL_BYTES, mpathCharPos(z, i));
      return -1;
    }
    if (nLabel < nA) {
      a[nLabel].iOff = iStart;
      a[nLabel].n = i - iStart;
    }
    nLabel++;
    if (i == n) break;
    if (z[i] != sep) {
      snprintf(zErr, (size_t)nErr, "path syntax error at character %d", mpathCharPos(z, i));
      return -1;
    }
    i++;
  }
  if (nLabel > MPATH_MAX_LABELS) {
    snprintf(zErr, (size_t)nErr, "number of labels (%d) exceeds the maximum allowed (%d)", nLabel,
             MPATH_MAX_LABELS);
    return -1;
  }
  return nLabel;
}

/*
** Unicode's simple lower-case mapping above U+007F as PostgreSQL applies
** it for ltree's '@' in a C.UTF-8 database (towlower() of glibc 2.36):
** 1,407 code points. Each entry maps first..last, every step-th code
** point, by adding delta. Generated by scripts/casefold.c; sorted by first.
*/
static const struct MpathFoldRange {
  unsigned int first; /* First code point folded */
  unsigned int last;  /* Last code point folded */
  int delta;          /* Lower case minus upper case */
  int step;           /* 1: every code point; 2: every other (upper, lower pairs) */
} aMpathFold[] = {{0x00C0, 0x00D6, 32, 1},     {0x00D8, 0x00DE, 32, 1},     {0x0100, 0x012E, 1, 2},
                  {0x0130, 0x0130, -199, 1},   {0x0132, 0x0136, 1, 2},      {0x0139, 0x0147, 1, 2},
                  {0x014A, 0x0176, 1, 2},      {0x0178, 0x0178, -121, 1},   {0x0179, 0x017D, 1, 2},
                  {0x0181, 0x0181, 210, 1},    {0x0182, 0x0184, 1, 2},      {0x0186, 0x0186, 206, 1},
                  {0x0187, 0x0187, 1, 1},      {0x0189, 0x018A, 205, 1},    {0x018B, 0x018B, 1, 1},
                  {0x018E, 0x018E, 79, 1},     {0x018F, 0x018F, 202, 1},    {0x0190, 0x0190, 203, 1},
                  {0x0191, 0x0191, 1, 1},      {0x0193, 0x0193, 205, 1},    {0x0194, 0x0194, 207, 1},
                  {0x0196, 0x0196, 211, 1},    {0x0197, 0x0197, 209, 1},    {0x0198, 0x0198, 1, 1},
                  {0x019C, 0x019C, 211, 1},    {0x019D, 0x019D, 213, 1},    {0x019F, 0x019F, 214, 1},
                  {0x01A0, 0x01A4, 1, 2},      {0x01A6, 0x01A6, 218, 1},    {0x01A7, 0x01A7, 1, 1},
                  {0x01A9, 0x01A9, 218, 1},    {0x01AC, 0x01AC, 1, 1},      {0x01AE, 0x01AE, 218, 1},
                  {0x01AF, 0x01AF, 1, 1},      {0x01B1, 0x01B2, 217, 1},    {0x01B3, 0x01B5, 1, 2},
                  {0x01B7, 0x01B7, 219, 1},    {0x01B8, 0x01B8, 1, 1},      {0x01BC, 0x01BC, 1, 1},
                  {0x01C4, 0x01C4, 2, 1},      {0x01C5, 0x01C5, 1, 1},      {0x01C7, 0x01C7, 2, 1},
                  {0x01C8, 0x01C8, 1, 1},      {0x01CA, 0x01CA, 2, 1},      {0x01CB, 0x01DB, 1, 2},
                  {0x01DE, 0x01EE, 1, 2},      {0x01F1, 0x01F1, 2, 1},      {0x01F2, 0x01F4, 1, 2},
                  {0x01F6, 0x01F6, -97, 1},    {0x01F7, 0x01F7, -56, 1},    {0x01F8, 0x021E, 1, 2},
                  {0x0220, 0x0220, -130, 1},   {0x0222, 0x0232, 1, 2},      {0x023A, 0x023A, 10795, 1},
                  {0x023B, 0x023B, 1, 1},      {0x023D, 0x023D, -163, 1},   {0x023E, 0x023E, 10792, 1},
                  {0x0241, 0x0241, 1, 1},      {0x0243, 0x0243, -195, 1},   {0x0244, 0x0244, 69, 1},
                  {0x0245, 0x0245, 71, 1},     {0x0246, 0x024E, 1, 2},      {0x0370, 0x0372, 1, 2},
                  {0x0376, 0x0376, 1, 1},      {0x037F, 0x037F, 116, 1},    {0x0386, 0x0386, 38, 1},
                  {0x0388, 0x038A, 37, 1},     {0x038C, 0x038C, 64, 1},     {0x038E, 0x038F, 63, 1},
                  {0x0391, 0x03A1, 32, 1},     {0x03A3, 0x03AB, 32, 1},     {0x03CF, 0x03CF, 8, 1},
                  {0x03D8, 0x03EE, 1, 2},      {0x03F4, 0x03F4, -60, 1},    {0x03F7, 0x03F7, 1, 1},
                  {0x03F9, 0x03F9, -7, 1},     {0x03FA, 0x03FA, 1, 1},      {0x03FD, 0x03FF, -130, 1},
                  {0x0400, 0x040F, 80, 1},     {0x0410, 0x042F, 32, 1},     {0x0460, 0x0480, 1, 2},
                  {0x048A, 0x04BE, 1, 2},      {0x04C0, 0x04C0, 15, 1},     {0x04C1, 0x04CD, 1, 2},
                  {0x04D0, 0x052E, 1, 2},      {0x0531, 0x0556, 48, 1},     {0x10A0, 0x10C5, 7264, 1},
                  {0x10C7, 0x10C7, 7264, 1},   {0x10CD, 0x10CD, 7264, 1},   {0x13A0, 0x13EF, 38864, 1},
                  {0x13F0, 0x13F5, 8, 1},      {0x1C90, 0x1CBA, -3008, 1},  {0x1CBD, 0x1CBF, -3008, 1},
                  {0x1E00, 0x1E94, 1, 2},      {0x1E9E, 0x1E9E, -7615, 1},  {0x1EA0, 0x1EFE, 1, 2},
                  {0x1F08, 0x1F0F, -8, 1},     {0x1F18, 0x1F1D, -8, 1},     {0x1F28, 0x1F2F, -8, 1},
                  {0x1F38, 0x1F3F, -8, 1},     {0x1F48, 0x1F4D, -8, 1},     {0x1F59, 0x1F5F, -8, 2},
                  {0x1F68, 0x1F6F, -8, 1},     {0x1F88, 0x1F8F, -8, 1},     {0x1F98, 0x1F9F, -8, 1},
                  {0x1FA8, 0x1FAF, -8, 1},     {0x1FB8, 0x1FB9, -8, 1},     {0x1FBA, 0x1FBB, -74, 1},
                  {0x1FBC, 0x1FBC, -9, 1},     {0x1FC8, 0x1FCB, -86, 1},    {0x1FCC, 0x1FCC, -9, 1},
                  {0x1FD8, 0x1FD9, -8, 1},     {0x1FDA, 0x1FDB, -100, 1},   {0x1FE8, 0x1FE9, -8, 1},
                  {0x1FEA, 0x1FEB, -112, 1},   {0x1FEC, 0x1FEC, -7, 1},     {0x1FF8, 0x1FF9, -128, 1},
                  {0x1FFA, 0x1FFB, -126, 1},   {0x1FFC, 0x1FFC, -9, 1},     {0x2126, 0x2126, -7517, 1},
                  {0x212A, 0x212A, -8383, 1},  {0x212B, 0x212B, -8262, 1},  {0x2132, 0x2132, 28, 1},
                  {0x2160, 0x216F, 16, 1},     {0x2183, 0x2183, 1, 1},      {0x24B6, 0x24CF, 26, 1},
                  {0x2C00, 0x2C2F, 48, 1},     {0x2C60, 0x2C60, 1, 1},      {0x2C62, 0x2C62, -10743, 1},
                  {0x2C63, 0x2C63, -3814, 1},  {0x2C64, 0x2C64, -10727, 1}, {0x2C67, 0x2C6B, 1, 2},
                  {0x2C6D, 0x2C6D, -10780, 1}, {0x2C6E, 0x2C6E, -10749, 1}, {0x2C6F, 0x2C6F, -10783, 1},
                  {0x2C70, 0x2C70, -10782, 1}, {0x2C72, 0x2C72, 1, 1},      {0x2C75, 0x2C75, 1, 1},
                  {0x2C7E, 0x2C7F, -10815, 1}, {0x2C80, 0x2CE2, 1, 2},      {0x2CEB, 0x2CED, 1, 2},
                  {0x2CF2, 0x2CF2, 1, 1},      {0xA640, 0xA66C, 1, 2},      {0xA680, 0xA69A, 1, 2},
                  {0xA722, 0xA72E, 1, 2},      {0xA732, 0xA76E, 1, 2},      {0xA779, 0xA77B, 1, 2},
                  {0xA77D, 0xA77D, -35332, 1}, {0xA77E, 0xA786, 1, 2},      {0xA78B, 0xA78B, 1, 1},
                  {0xA78D, 0xA78D, -42280, 1}, {0xA790, 0xA792, 1, 2},      {0xA796, 0xA7A8, 1, 2},
                  {0xA7AA, 0xA7AA, -42308, 1}, {0xA7AB, 0xA7AB, -42319, 1}, {0xA7AC, 0xA7AC, -42315, 1},
                  {0xA7AD, 0xA7AD, -42305, 1}, {0xA7AE, 0xA7AE, -42308, 1}, {0xA7B0, 0xA7B0, -42258, 1},
                  {0xA7B1, 0xA7B1, -42282, 1}, {0xA7B2, 0xA7B2, -42261, 1}, {0xA7B3, 0xA7B3, 928, 1},
                  {0xA7B4, 0xA7C2, 1, 2},      {0xA7C4, 0xA7C4, -48, 1},    {0xA7C5, 0xA7C5, -42307, 1},
                  {0xA7C6, 0xA7C6, -35384, 1}, {0xA7C7, 0xA7C9, 1, 2},      {0xA7D0, 0xA7D0, 1, 1},
                  {0xA7D6, 0xA7D8, 1, 2},      {0xA7F5, 0xA7F5, 1, 1},      {0xFF21, 0xFF3A, 32, 1},
                  {0x10400, 0x10427, 40, 1},   {0x104B0, 0x104D3, 40, 1},   {0x10570, 0x1057A, 39, 1},
                  {0x1057C, 0x1058A, 39, 1},   {0x1058C, 0x10592, 39, 1},   {0x10594, 0x10595, 39, 1},
                  {0x10C80, 0x10CB2, 64, 1},   {0x118A0, 0x118BF, 32, 1},   {0x16E40, 0x16E5F, 32, 1},
                  {0x1E900, 0x1E921, 34, 1}};

/* The lower case of code point c (ASCII, or a letter of aMpathFold[]); c itself otherwise. */
static unsigned int mpathFold(unsigned int c) {
  int lo = 0, hi = (int)(sizeof(aMpathFold) / sizeof(aMpathFold[0])) - 1;
  if (c < 0x80) return (c >= 'A' && c <= 'Z') ? c + 32 : c;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    const struct MpathFoldRange *r = &aMpathFold[mid];
    if (c < r->first) {
      hi = mid - 1;
    } else if (c > r->last) {
      lo = mid + 1;
    } else {
      return (c - r->first) % (unsigned int)r->step == 0 ? (unsigned int)((int)c + r->delta) : c;
    }
  }
  return c;
}

/*
** The code point at z[*pi] (z has n bytes), *pi moved past it. A byte
** that does not start a well-formed UTF-8 character is one "character" of
** its own, 0x110000 + the byte, which only equals itself.
*/
static unsigned int mpathUtf8Next(const unsigned char *z, int n, int *pi) {
  int i = *pi, nByte, k;
  unsigned int c = z[i], cMin;
  if (c < 0x80) {
    *pi = i + 1;
    return c;
  }
  if (c >= 0xC2 && c <= 0xDF) {
    nByte = 2, c &= 0x1F, cMin = 0x80;
  } else if (c >= 0xE0 && c <= 0xEF) {
    nByte = 3, c &= 0x0F, cMin = 0x800;
  } else if (c >= 0xF0 && c <= 0xF4) {
    nByte = 4, c &= 0x07, cMin = 0x10000;
  } else {
    nByte = 0, cMin = 0;
  }
  for (k = 1; k < nByte && i + k < n && (z[i + k] & 0xC0) == 0x80; k++) c = (c << 6) | (z[i + k] & 0x3Fu);
  if (nByte == 0 || k < nByte || c < cMin || c > 0x10FFFF || (c >= 0xD800 && c < 0xE000)) {
    *pi = i + 1;
    return 0x110000u + z[i];
  }
  *pi = i + nByte;
  return c;
}

/*
** Case-insensitive: does zL[0..nL) equal (or with bAnyEnd start with)
** zQ[0..nQ), both folded character by character with mpathFold()? As
** PostgreSQL's ltree compares lower-cased strings, the byte lengths may
** differ ('K', U+212A KELVIN SIGN, is three bytes; 'k' one).
*/
static int mpathFoldEq(const char *zQ, int nQ, const char *zL, int nL, int bAnyEnd) {
  const unsigned char *q = (const unsigned char *)zQ, *l = (const unsigned char *)zL;
  int iQ = 0, iL = 0;
  while (iQ < nQ) {
    if (iL >= nL) return 0;
    if (mpathFold(mpathUtf8Next(q, nQ, &iQ)) != mpathFold(mpathUtf8Next(l, nL, &iL))) return 0;
  }
  return bAnyEnd || iL == nL;
}

/* Does label zL[0..nL) equal (or with ANYEND start with) zQ[0..nQ)? */
static int mpathWordEq(const char *zQ, int nQ, const char *zL, int nL, int flags) {
  if (flags & MPATH_INCASE) return mpathFoldEq(zQ, nQ, zL, nL, flags & MPATH_ANYEND);
  if (!(nL == nQ || (nL > nQ && (flags & MPATH_ANYEND)))) return 0;
  return memcmp(zQ, zL, (size_t)nQ) == 0;
}

/*
** The '%' comparison: every '_'-separated word of the query equals (or
** with ANYEND starts) some word of the label, in any order. Runs of '_'
** separate words and never form one, so a query of underscores alone
** matches every label, as in ltree.
*/
static int mpathSublexEq(const char *zQ, int nQ, const char *zL, int nL, int flags) {
  int iQ = 0;
  while (iQ < nQ) {
    int nWordQ, iL = 0, bFound = 0;
    while (iQ < nQ && zQ[iQ] == '_') iQ++;
    if (iQ == nQ) break;
    for (nWordQ = 0; iQ + nWordQ < nQ && zQ[iQ + nWordQ] != '_'; nWordQ++) {
    }
    while (iL < nL && !bFound) {
      int nWordL;
      while (iL < nL && zL[iL] == '_') iL++;
      if (iL == nL) break;
      for (nWordL = 0; iL + nWordL < nL && zL[iL + nWordL] != '_'; nWordL++) {
      }
      bFound = mpathWordEq(&zQ[iQ], nWordQ, &zL[iL], nWordL, flags);
      iL += nWordL;
    }
    if (!bFound) return 0;
    iQ += nWordQ;
  }
  return 1;
}

/* Does the label match variant v of pattern zPat? */
static int mpathVariantEq(const char *zPat, const MpathVariant *v, const char *zL, int nL) {
  if (v->flags & MPATH_SUBLEX) return mpathSublexEq(&zPat[v->iOff], v->n, zL, nL, v->flags);
  return mpathWordEq(&zPat[v->iOff], v->n, zL, nL, v->flags);
}

/* Does one label match item p of q ('*' matches anything)? */
static int mpathItemEq(const MpathQuery *q, const MpathItem *p, const char *zL, int nL) {
  int i;
  if (p->nVar == 0) return 1;
  for (i = 0; i < p->nVar; i++) {
    if (mpathVariantEq(q->zPat, &q->aVar[p->iVar + i], zL, nL)) return !p->bNot;
  }
  return p->bNot;
}

/* Bytes a caller must provide to mpathLqueryCompile() for a pattern of n bytes. */
int64_t mpathLquerySize(int n) {
  return (int64_t)sizeof(MpathQuery) +
         (int64_t)(n + 2) * (int64_t)(sizeof(MpathItem) + sizeof(MpathVariant)) + n + 1;
}

/* lquery parser states, as the character it waits for. */
#define LQ_LEVEL 0 /* Start of an item */
#define LQ_VAR 1   /* A label, after '|' */
#define LQ_DELIM 2 /* Inside a label or its modifiers */
#define LQ_OPEN 3  /* After '*': '{', the separator or the end */
#define LQ_FNUM 4  /* After '{': the low bound or ',' */
#define LQ_SNUM 5  /* After ',': the high bound or '}' */
#define LQ_ND 6    /* Inside the low bound */
#define LQ_CLOSE 7 /* Inside the high bound */
#define LQ_END 8   /* After '}': the separator or the end */

/* Read the decimal number at z[*pi..n), advancing *pi; saturates at 10^9. */
static int mpathReadNum(const char *z, int n, int *pi) {
  int v = 0;
  while (*pi < n && z[*pi] >= '0' && z[*pi] <= '9') {
    v = v < 100000000 ? v * 10 + (z[*pi] - '0') : 1000000000;
    (*pi)++;
  }
  return v;
}

/* The lquery parser's state between characters (mpathLqueryCompile()). */
typedef struct MpathLqParse MpathLqParse;
struct MpathLqParse {
  MpathQuery *q;      /* The query being built */
  const char *z;      /* The pattern */
  int n;              /* Bytes in z */
  int i;              /* The character being read (a number's steps move it) */
  int eState;         /* LQ_* */
  MpathItem *pItem;   /* The item being read */
  MpathVariant *pVar; /* The variant (label) being read */
  char *zErr;         /* Message buffer */
  int nErr;           /* Its size */
};

/* What a step of the parser found: go on, a syntax error at p->i, or an error already written to zErr. */
#define LQ_STEP_OK 0
#define LQ_STEP_SYNTAX 1
#define LQ_STEP_FAIL 2

/* LQ_LEVEL and LQ_VAR: a new item ('!', '*' or a label) or, after '|', another label of the item. */
static int mpathLqStart(MpathLqParse *p, char c, int bEnd, int bLabel) {
  MpathQuery *q = p->q;
  if (p->eState == LQ_LEVEL) {
    p->pItem = &q->aItem[q->nItem++];
    memset(p->pItem, 0, sizeof(*p->pItem));
    p->pItem->iVar = q->nVar;
    p->pItem->low = p->pItem->high = 1;
    if (!bEnd && c == '!') {
      /* As in ltree, the label starts right after '!' and may be
      ** empty until a delimiter shows it is (then an error). */
      p->pItem->bNot = 1;
      p->pVar = &q->aVar[q->nVar++];
      p->pVar->iOff = p->i + 1;
      p->pVar->n = 0;
      p->pVar->flags = 0;
      p->pItem->nVar = 1;
      p->eState = LQ_DELIM;
      return LQ_STEP_OK;
    }
    if (!bEnd && c == '*') {
      p->pItem->low = 0;
      p->pItem->high = MPATH_MAX_LABELS;
      p->eState = LQ_OPEN;
      return LQ_STEP_OK;
    }
  }
  if (!bLabel) return LQ_STEP_SYNTAX;
  p->pVar = &q->aVar[q->nVar++];
  p->pVar->iOff = p->i;
  p->pVar->n = 1;
  p->pVar->flags = 0;
  p->pItem->nVar++;
  p->eState = LQ_DELIM;
  return LQ_STEP_OK;
}

/* LQ_DELIM: inside a label, its modifiers (@ * %), or what ends it (| { the separator, the end). */
static int mpathLqDelim(MpathLqParse *p, char c, int bEnd, int bLabel) {
  MpathVariant *pVar = p->pVar;
  if (bLabel) {
    if (pVar->flags) return LQ_STEP_SYNTAX;
    pVar->n++;
  } else if (c == '@') {
    pVar->flags |= MPATH_INCASE;
  } else if (c == '*') {
    pVar->flags |= MPATH_ANYEND;
  } else if (c == '%') {
    pVar->flags |= MPATH_SUBLEX;
  } else if (c == '|') {
    p->eState = LQ_VAR;
  } else if (c == '{') {
    p->eState = LQ_FNUM;
  } else if (bEnd || c == p->q->sep) {
    p->eState = LQ_LEVEL;
  } else {
    return LQ_STEP_SYNTAX;
  }
  if (!bLabel && pVar->n == 0 && p->eState != LQ_DELIM) {
    snprintf(p->zErr, (size_t)p->nErr, "lquery syntax error at character %d: empty label",
             mpathCharPos(p->z, pVar->iOff));
    return LQ_STEP_FAIL;
  }
  if (!bLabel && pVar->n > MPATH_MAX_LABEL_BYTES) {
    snprintf(p->zErr, (size_t)p->nErr,
             "lquery label length (%d) exceeds the maximum allowed (%d) at character %d", pVar->n,
             MPATH_MAX_LABEL_BYTES, mpathCharPos(p->z, p->i));
    return LQ_STEP_FAIL;
  }
  return LQ_STEP_OK;
}

/* LQ_FNUM and LQ_SNUM with a digit: the low or high bound of {n,m}, read whole (p->i on its last digit). */
static int mpathLqNumber(MpathLqParse *p) {
  MpathItem *pItem = p->pItem;
  int iNum = p->i, bLow = p->eState == LQ_FNUM;
  int v = mpathReadNum(p->z, p->n, &p->i);
  p->i--;
  if (v > MPATH_MAX_LABELS) {
    snprintf(p->zErr, (size_t)p->nErr,
             "lquery %s limit (%d) exceeds the maximum allowed (%d) at character %d", bLow ? "low" : "high",
             v, MPATH_MAX_LABELS, mpathCharPos(p->z, iNum));
    return LQ_STEP_FAIL;
  }
  if (bLow) {
    pItem->low = v;
    p->eState = LQ_ND;
    return LQ_STEP_OK;
  }
  pItem->high = v;
  if (pItem->low > pItem->high) {
    snprintf(p->zErr, (size_t)p->nErr,
             "lquery low limit (%d) is greater than high limit (%d) at character %d", pItem->low, pItem->high,
             mpathCharPos(p->z, iNum));
    return LQ_STEP_FAIL;
  }
  p->eState = LQ_CLOSE;
  return LQ_STEP_OK;
}

/* LQ_OPEN to LQ_END: the quantifier {n}, {n,}, {,m}, {n,m} of an item, and what follows it. */
static int mpathLqQuantifier(MpathLqParse *p, char c, int bEnd) {
  int bNext = bEnd || c == p->q->sep; /* The separator or the end: the next item */
  switch (p->eState) {
    case LQ_OPEN:
      if (c == '{') return p->eState = LQ_FNUM, LQ_STEP_OK;
      if (bNext) return p->eState = LQ_LEVEL, LQ_STEP_OK;
      return LQ_STEP_SYNTAX;
    case LQ_FNUM:
      if (c == ',') return p->pItem->low = 0, p->eState = LQ_SNUM, LQ_STEP_OK;
      if (c >= '0' && c <= '9') return mpathLqNumber(p);
      return LQ_STEP_SYNTAX;
    case LQ_SNUM:
      if (c >= '0' && c <= '9') return mpathLqNumber(p);
      if (c == '}') return p->pItem->high = MPATH_MAX_LABELS, p->eState = LQ_END, LQ_STEP_OK;
      return LQ_STEP_SYNTAX;
    case LQ_ND:
      if (c == '}') return p->pItem->high = p->pItem->low, p->eState = LQ_END, LQ_STEP_OK;
      if (c == ',') return p->eState = LQ_SNUM, LQ_STEP_OK;
      return LQ_STEP_SYNTAX;
    case LQ_CLOSE:
      if (c == '}') return p->eState = LQ_END, LQ_STEP_OK;
      return LQ_STEP_SYNTAX;
    default: /* LQ_END */
      if (bNext) return p->eState = LQ_LEVEL, LQ_STEP_OK;
      return LQ_STEP_SYNTAX;
  }
}

/*
** Mark the literal items: a plain label with nothing after it in the text
** but the separator or the end (not "a{1}").
*/
static void mpathLqLiterals(MpathQuery *q, const char *z, int n) {
  int i;
  for (i = 0; i < q->nItem; i++) {
    MpathItem *p = &q->aItem[i];
    const MpathVariant *v;
    int iAfter;
    /* A '*' item has no variant: aVar[iVar] is not its own (maybe unset). */
    p->bLit = 0;
    if (p->nVar != 1 || p->bNot || p->low != 1 || p->high != 1) continue;
    v = &q->aVar[p->iVar];
    iAfter = v->iOff + v->n;
    p->bLit = v->flags == 0 && (iAfter == n || z[iAfter] == q->sep);
  }
}

/*
** Compile lquery z[0..n) for separator sep into pBuf, a block of at least
** mpathLquerySize(n) bytes aligned for pointers. Returns the query (inside
** pBuf), or NULL with a message in zErr[0..nErr). The grammar and its
** error positions are ltree's (contrib/ltree/ltree_io.c, parse_lquery):
** one state machine over the characters and the end, whose states are
** read by mpathLqStart, mpathLqDelim and mpathLqQuantifier.
*/
MpathQuery *mpathLqueryCompile(const char *z, int n, char sep, void *pBuf, char *zErr, int nErr) {
  MpathQuery *q = (MpathQuery *)pBuf;
  MpathLqParse p;
  memset(q, 0, sizeof(*q));
  q->sep = sep;
  q->aItem = (MpathItem *)&q[1];
  q->aVar = (MpathVariant *)&q->aItem[n + 2];
  q->zPat = (char *)&q->aVar[n + 2];
  q->nPat = n;
  if (n > 0) memcpy(q->zPat, z, (size_t)n);
  q->zPat[n] = 0;
  memset(&p, 0, sizeof(p));
  p.q = q;
  p.z = z;
  p.n = n;
  p.eState = LQ_LEVEL;
  p.zErr = zErr;
  p.nErr = nErr;

  for (p.i = 0; p.i <= n; p.i++) {
    int bEnd = (p.i == n), eStep;
    char c = bEnd ? 0 : z[p.i];
    int bLabel = !bEnd && mpathIsLabel((unsigned char)c, sep);
    if (p.eState == LQ_LEVEL || p.eState == LQ_VAR) {
      eStep = mpathLqStart(&p, c, bEnd, bLabel);
    } else if (p.eState == LQ_DELIM) {
      eStep = mpathLqDelim(&p, c, bEnd, bLabel);
    } else {
      eStep = mpathLqQuantifier(&p, c, bEnd);
    }
    if (eStep == LQ_STEP_FAIL) return NULL;
    if (eStep == LQ_STEP_SYNTAX) {
      if (p.i == n) {
        snprintf(zErr, (size_t)nErr, "lquery syntax error at end of input");
      } else {
        snprintf(zErr, (size_t)nErr, "lquery syntax error at character %d", mpathCharPos(z, p.i));
      }
      return NULL;
    }
    if (q->nItem > MPATH_MAX_LABELS) {
      snprintf(zErr, (size_t)nErr, "number of lquery items (%d) exceeds the maximum allowed (%d)", q->nItem,
               MPATH_MAX_LABELS);
      return NULL;
    }
  }
  /* Every state handles the end of input itself, so reaching here means a
  ** complete pattern. */
  mpathLqLiterals(q, z, n);
  return q;
}

/* Ints of scratch space mpathLqueryMatch() needs for a path of nLabel labels. */
int64_t mpathMatchWorkSize(int nLabel) { return 3 * ((int64_t)nLabel + 2); }

/*
** The dynamic program for paths of any length: does the path z with labels
** a[0..nLabel) match q? aWork holds mpathMatchWorkSize(nLabel) ints.
**
** aReach[p] says that the items so far can consume exactly the first p
** labels. For each item, aRun[p] counts the consecutive labels from p that
** match it, and every reachable p makes p+low .. p+min(high, aRun[p])
** reachable for the next item (a difference array adds those intervals).
** This is ltree's checkCond() without its backtracking.
*/
int mpathLqueryMatchDp(const MpathQuery *q, const char *z, const MpathLabel *a, int nLabel, int *aWork) {
  int *aReach = aWork;
  int *aRun = &aWork[nLabel + 2];
  int *aDiff = &aWork[2 * (nLabel + 2)];
  int iItem, p;
  int iFirst = 0; /* Smallest reachable position */
  memset(aReach, 0, sizeof(int) * (size_t)(nLabel + 1));
  aReach[0] = 1;
  for (iItem = 0; iItem < q->nItem; iItem++) {
    const MpathItem *pItem = &q->aItem[iItem];
    int nOpen = 0;
    int iNext = -1;
    aRun[nLabel] = 0;
    for (p = nLabel - 1; p >= iFirst; p--) {
      if (pItem->nVar == 0) {
        aRun[p] = nLabel - p;
      } else {
        aRun[p] = mpathItemEq(q, pItem, &z[a[p].iOff], a[p].n) ? aRun[p + 1] + 1 : 0;
      }
    }
    memset(&aDiff[iFirst], 0, sizeof(int) * (size_t)(nLabel + 2 - iFirst));
    for (p = iFirst; p <= nLabel; p++) {
      if (aReach[p]) {
        int iLo = p + pItem->low;
        int iHi = p + (pItem->high < aRun[p] ? pItem->high : aRun[p]);
        if (iLo <= iHi) {
          aDiff[iLo]++;
          aDiff[iHi + 1]--;
        }
      }
    }
    for (p = iFirst; p <= nLabel; p++) {
      nOpen += aDiff[p];
      aReach[p] = nOpen > 0;
      if (nOpen > 0 && iNext < 0) iNext = p;
    }
    if (iNext < 0) return 0;
    iFirst = iNext;
  }
  return aReach[nLabel];
}

/*
** The same program for paths of at most MPATH_BITS_MAX labels, with the
** set of reachable positions as the bits of a word: the items consume
** labels one at a time (r = (r & m) << 1, m the labels matching the item)
** and every count from low to high adds its positions. No scratch space.
*/
int mpathLqueryMatchBits(const MpathQuery *q, const char *z, const MpathLabel *a, int nLabel) {
  uint64_t mAll = ((uint64_t)1 << nLabel) - 1; /* Bits of the labels */
  uint64_t mReach = 1;                         /* Bit p: first p labels consumed */
  int iItem;
  for (iItem = 0; iItem < q->nItem; iItem++) {
    const MpathItem *pItem = &q->aItem[iItem];
    uint64_t mMatch = mAll, r = mReach, mNext = 0;
    int k, p = 0;
    if (pItem->nVar > 0) {
      const MpathVariant *v = &q->aVar[pItem->iVar];
      mMatch = 0;
      while (((mReach >> p) & 1) == 0) p++;
      if (pItem->nVar == 1 && !pItem->bNot && v->flags == 0) {
        /* The common plain label, compared inline. */
        for (; p < nLabel; p++) {
          if (a[p].n == v->n && memcmp(&z[a[p].iOff], &q->zPat[v->iOff], (size_t)v->n) == 0) {
            mMatch |= (uint64_t)1 << p;
          }
        }
      } else {
        for (; p < nLabel; p++) {
          if (mpathItemEq(q, pItem, &z[a[p].iOff], a[p].n)) mMatch |= (uint64_t)1 << p;
        }
      }
    }
    for (k = 0; k <= pItem->high && r; k++) {
      if (k >= pItem->low) mNext |= r;
      r = (r & mMatch) << 1;
    }
    if (mNext == 0) return 0;
    mReach = mNext;
  }
  return (int)((mReach >> nLabel) & 1);
}

int mpathLqueryMatch(const MpathQuery *q, const char *z, const MpathLabel *a, int nLabel, int *aWork) {
  if (q->nItem > 0) {
    /* A plain label first or last must be the path's first or last label:
    ** a cheap test that rejects most rows of a scan before the program. */
    const MpathItem *pHead = &q->aItem[0], *pTail = &q->aItem[q->nItem - 1];
    if (pHead->bLit && (nLabel == 0 || !mpathItemEq(q, pHead, &z[a[0].iOff], a[0].n))) return 0;
    if (pTail->bLit && (nLabel == 0 || !mpathItemEq(q, pTail, &z[a[nLabel - 1].iOff], a[nLabel - 1].n))) {
      return 0;
    }
  }
  if (nLabel <= MPATH_BITS_MAX) return mpathLqueryMatchBits(q, z, a, nLabel);
  return mpathLqueryMatchDp(q, z, a, nLabel, aWork);
}

/*
** The literal leading labels of q: the items before the first one that is
** not a plain label, as byte length of their text in q->zPat (joined by
** the separator, as in the pattern). 0 when the pattern starts otherwise.
*/
int mpathLqueryPrefix(const MpathQuery *q) {
  int i, nByte = 0;
  for (i = 0; i < q->nItem && q->aItem[i].bLit; i++) {
    const MpathVariant *v = &q->aVar[q->aItem[i].iVar];
    nByte = v->iOff + v->n;
  }
  return nByte;
}

/* Bytes a caller must provide to mpathTxtCompile() for a query of n bytes. */
int64_t mpathTxtSize(int n) {
  return (int64_t)sizeof(MpathTxtQuery) +
         (int64_t)(n + 2) * (int64_t)(2 * sizeof(MpathTxtItem) + sizeof(MpathVariant)) + 2 * (int64_t)n + 4;
}

/* Binding strength of an ltxtquery operator on the operator stack. */
static int mpathTxtPrec(int eOp) {
  switch (eOp) {
    case MPATH_TXT_NOT:
      return 3;
    case MPATH_TXT_AND:
      return 2;
    case MPATH_TXT_OR:
      return 1;
    default: /* '(' */
      return 0;
  }
}

#define MPATH_TXT_OPEN 4 /* '(' on the operator stack only */

/*
** Compile ltxtquery z[0..n) into pBuf (mpathTxtSize(n) bytes, pointer
** aligned). Returns the query or NULL with a message in zErr. The grammar
** is ltree's (ltxtquery_io.c): ! binds tighter than &, & than |; words
** take the modifiers @ * %; white space separates tokens (any before an
** operand, only ' ' before an operator, as ltree). ltree names no
** position in these errors; we do.
*/
MpathTxtQuery *mpathTxtCompile(const char *z, int n, char sep, void *pBuf, char *zErr, int nErr) {
  MpathTxtQuery *q = (MpathTxtQuery *)pBuf;
  MpathTxtItem *aOp; /* Operator stack (shunting yard) */
  int nOp = 0;
  int bWaitOperand = 1;
  int i = 0;
  memset(q, 0, sizeof(*q));
  q->sep = sep;
  q->aProg = (MpathTxtItem *)&q[1];
  aOp = &q->aProg[n + 2];
  q->aWord = (MpathVariant *)&aOp[n + 2];
  q->aStack = (unsigned char *)&q->aWord[n + 2];
  q->zPat = (char *)&q->aStack[n + 2];
  if (n > 0) memcpy(q->zPat, z, (size_t)n);
  q->zPat[n] = 0;

  while (1) {
    char c;
    /* As ltree: any white space before an operand, only ' ' after one. */
    while (i < n && (z[i] == ' ' || (bWaitOperand && z[i] >= '\t' && z[i] <= '\r'))) i++;
    c = i < n ? z[i] : 0;
    if (bWaitOperand) {
      if (i < n && c == '!') {
        aOp[nOp].iWord = -1;
        aOp[nOp++].eOp = MPATH_TXT_NOT;
        i++;
      } else if (i < n && c == '(') {
        aOp[nOp].iWord = -1;
        aOp[nOp++].eOp = MPATH_TXT_OPEN;
        i++;
      } else if (i < n && mpathIsLabel((unsigned char)c, sep)) {
        MpathVariant *w = &q->aWord[q->nWord];
        w->iOff = i;
        w->flags = 0;
        while (i < n && mpathIsLabel((unsigned char)z[i], sep)) i++;
        w->n = i - w->iOff;
        while (i < n && (z[i] == '@' || z[i] == '*' || z[i] == '%')) {
          w->flags |= z[i] == '@' ? MPATH_INCASE : z[i] == '*' ? MPATH_ANYEND : MPATH_SUBLEX;
          i++;
        }
        if (i < n && mpathIsLabel((unsigned char)z[i], sep)) {
          snprintf(zErr, (size_t)nErr, "ltxtquery modifiers syntax error at character %d",
                   mpathCharPos(z, i));
          return NULL;
        }
        if (w->n > MPATH_MAX_LABEL_BYTES) {
          snprintf(zErr, (size_t)nErr,
                   "ltxtquery word length (%d) exceeds the maximum allowed (%d) at character %d", w->n,
                   MPATH_MAX_LABEL_BYTES, mpathCharPos(z, w->iOff));
          return NULL;
        }
        q->aProg[q->nProg].eOp = MPATH_TXT_WORD;
        q->aProg[q->nProg++].iWord = q->nWord++;
        bWaitOperand = 0;
      } else {
        if (i < n) {
          snprintf(zErr, (size_t)nErr, "ltxtquery operand syntax error at character %d", mpathCharPos(z, i));
        } else {
          snprintf(zErr, (size_t)nErr, "ltxtquery operand syntax error at end of input");
        }
        return NULL;
      }
    } else if (i < n && (c == '&' || c == '|')) {
      int eOp = c == '&' ? MPATH_TXT_AND : MPATH_TXT_OR;
      while (nOp > 0 && mpathTxtPrec(aOp[nOp - 1].eOp) >= mpathTxtPrec(eOp))
        q->aProg[q->nProg++] = aOp[--nOp];
      aOp[nOp].iWord = -1;
      aOp[nOp++].eOp = eOp;
      bWaitOperand = 1;
      i++;
    } else if (i < n && c == ')') {
      while (nOp > 0 && aOp[nOp - 1].eOp != MPATH_TXT_OPEN) q->aProg[q->nProg++] = aOp[--nOp];
      if (nOp == 0) {
        snprintf(zErr, (size_t)nErr, "ltxtquery syntax error at character %d: unbalanced ')'",
                 mpathCharPos(z, i));
        return NULL;
      }
      nOp--;
      i++;
    } else if (i == n) {
      while (nOp > 0 && aOp[nOp - 1].eOp != MPATH_TXT_OPEN) q->aProg[q->nProg++] = aOp[--nOp];
      if (nOp > 0) {
        snprintf(zErr, (size_t)nErr, "ltxtquery syntax error at end of input: unbalanced '('");
        return NULL;
      }
      break;
    } else {
      snprintf(zErr, (size_t)nErr, "ltxtquery syntax error at character %d", mpathCharPos(z, i));
      return NULL;
    }
  }
  return q;
}

/* Does the path z with labels a[0..nLabel) satisfy q? */
int mpathTxtMatch(MpathTxtQuery *q, const char *z, const MpathLabel *a, int nLabel) {
  int nStack = 0;
  int i;
  for (i = 0; i < q->nProg; i++) {
    const MpathTxtItem *p = &q->aProg[i];
    switch (p->eOp) {
      case MPATH_TXT_WORD: {
        const MpathVariant *w = &q->aWord[p->iWord];
        int k, b = 0;
        for (k = 0; k < nLabel && !b; k++) b = mpathVariantEq(q->zPat, w, &z[a[k].iOff], a[k].n);
        q->aStack[nStack++] = (unsigned char)b;
        break;
      }
      case MPATH_TXT_NOT:
        q->aStack[nStack - 1] = !q->aStack[nStack - 1];
        break;
      case MPATH_TXT_AND:
        nStack--;
        q->aStack[nStack - 1] = q->aStack[nStack - 1] && q->aStack[nStack];
        break;
      default: /* MPATH_TXT_OR */
        nStack--;
        q->aStack[nStack - 1] = q->aStack[nStack - 1] || q->aStack[nStack];
        break;
    }
  }
  return q->aStack[0];
}

/* Do labels a[0..nA) of zA equal labels b[0..nB) of zB one by one, for n labels? */
static int mpathLabelsEq(const char *zA, const MpathLabel *a, const char *zB, const MpathLabel *b, int n) {
  int i;
  for (i = 0; i < n; i++) {
    if (a[i].n != b[i].n || memcmp(&zA[a[i].iOff], &zB[b[i].iOff], (size_t)a[i].n) != 0) return 0;
  }
  return 1;
}

/*
** ltree's arithmetic on its int4 arguments wraps (PostgreSQL is built with
** -fwrapv): x as a 32-bit integer, the way ltree computes it, so that an
** argument near the ends of the range gives ltree's answer.
*/
static int32_t mpathWrap(int64_t x) { return (int32_t)(uint32_t)(uint64_t)x; }

/*
** ltree's index(a, b, offset): the first level of a at or after offset
** (negative counts from the end) where the labels of b occur, or -1.
*/
int mpathIndex(const char *zA, const MpathLabel *a, int nA, const char *zB, const MpathLabel *b, int nB,
               int64_t iStart) {
  int32_t i, start = (int32_t)iStart;
  if (start < 0) start = mpathWrap((int64_t)0 - start) >= nA ? 0 : mpathWrap((int64_t)nA + start);
  if (mpathWrap((int64_t)nA - start) < nB || nA == 0 || nB == 0) return -1;
  for (i = start < 0 ? 0 : start; i <= nA - nB; i++) { /* ltree walks from 0 and skips levels below start */
    if (mpathLabelsEq(zA, &a[i], zB, b, nB)) return (int)i;
  }
  return -1;
}

/*
** ltree's subpath(path, offset[, len]) as the half-open level range
** [*piStart, *piEnd) of a path with nLabel labels. bLen says whether len
** was given. Returns 0 for ltree's "invalid positions". The repeated
** negative adjustment of offset is ltree's, kept for the same answers.
*/
int mpathSubpathRange(int nLabel, int64_t iOff, int64_t nLen, int bLen, int64_t *piStart, int64_t *piEnd) {
  int32_t iStart = mpathWrap(iOff), iLen = mpathWrap(nLen), iEnd = mpathWrap(iOff + nLen);
  if (iStart < 0) {
    iStart = mpathWrap((int64_t)nLabel + iStart);
    iEnd = mpathWrap((int64_t)iStart + iLen);
  }
  if (iStart < 0) {
    iStart = mpathWrap((int64_t)nLabel + iStart);
    iEnd = mpathWrap((int64_t)iStart + iLen);
  }
  if (iLen < 0) {
    iEnd = mpathWrap((int64_t)nLabel + iLen);
  } else if (iLen == 0) {
    iEnd = bLen ? iStart : MPATH_MAX_LABELS;
  }
  if (iStart < 0 || iEnd < 0 || iStart >= nLabel || iStart > iEnd) return 0;
  if (iEnd > nLabel) iEnd = nLabel;
  *piStart = iStart;
  *piEnd = iEnd;
  return 1;
}

/* ltree's subltree(path, start, end): 0 for "invalid positions". */
int mpathSubltreeRange(int nLabel, int64_t iStart, int64_t iEnd, int64_t *piStart, int64_t *piEnd) {
  if (iStart < 0 || iEnd < 0 || iStart >= nLabel || iStart > iEnd) return 0;
  *piStart = iStart;
  *piEnd = iEnd > nLabel ? nLabel : iEnd;
  return 1;
}

/*
** The number of labels the lca of zA (nA labels) and zB keeps, given that
** it keeps at most nKeep so far: the common leading labels, never a whole
** path (ltree's lca_inner: the lca of 'a.b' and 'a.b' is 'a').
*/
int mpathLcaStep(const char *zA, const MpathLabel *a, const char *zB, const MpathLabel *b, int nB,
                 int nKeep) {
  int i, nMax = nKeep < nB - 1 ? nKeep : nB - 1;
  for (i = 0; i < nMax; i++) {
    if (!mpathLabelsEq(zA, &a[i], zB, &b[i], 1)) break;
  }
  return i;
}

/* ltree's a @> b: a has no more labels than b and they lead b. */
int mpathIsAncestor(const char *zA, const MpathLabel *a, int nA, const char *zB, const MpathLabel *b,
                    int nB) {
  return nA <= nB && mpathLabelsEq(zA, a, zB, b, nA);
}

/**************************************************************************
** SQL glue.
*/

/* Labels kept on the stack before a parse allocates. */
#define MPATH_STACK_LABELS 64

/* A parsed path argument: its text and its labels. */
typedef struct MpathArg MpathArg;
struct MpathArg {
  const char *z;                          /* Text of the value (owned by SQLite) */
  int n;                                  /* Bytes of z */
  int nLabel;                             /* Labels */
  MpathLabel *a;                          /* aStatic or a sqlite3_malloc64 block */
  MpathLabel aStatic[MPATH_STACK_LABELS]; /* Labels of short paths */
};

static void mpathArgFree(MpathArg *p) {
  if (p->a != p->aStatic) sqlite3_free(p->a);
  p->a = p->aStatic;
}

/* Report zErr about argument pVal of function zFunc. */
static void mpathError(sqlite3_context *ctx, const char *zFunc, const char *zErr, sqlite3_value *pVal) {
  char *zQuoted = nosqlValueQuote(pVal);
  if (zQuoted == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  nosqlResultError(ctx, "%s: %s in %s", zFunc, zErr, zQuoted);
  sqlite3_free(zQuoted);
}

/*
** Parse argument pVal as a path into *p. Returns 1, or 0 after reporting
** the error (malformed path or OOM). The caller calls mpathArgFree().
*/
static int mpathArgParse(sqlite3_context *ctx, const char *zFunc, sqlite3_value *pVal, char sep,
                         MpathArg *p) {
  char zErr[160];
  p->a = p->aStatic;
  p->z = (const char *)sqlite3_value_text(pVal);
  p->n = sqlite3_value_bytes(pVal);
  if (p->z == NULL) {
    sqlite3_result_error_nomem(ctx);
    return 0;
  }
  p->nLabel = mpathSplit(p->z, p->n, sep, p->a, MPATH_STACK_LABELS, zErr, sizeof(zErr));
  if (p->nLabel > MPATH_STACK_LABELS) {
    p->a = (MpathLabel *)sqlite3_malloc64(sizeof(MpathLabel) * (sqlite3_uint64)p->nLabel);
    if (p->a == NULL) {
      p->a = p->aStatic;
      sqlite3_result_error_nomem(ctx);
      return 0;
    }
    mpathSplit(p->z, p->n, sep, p->a, p->nLabel, zErr, sizeof(zErr));
  }
  if (p->nLabel < 0) {
    mpathError(ctx, zFunc, zErr, pVal);
    return 0;
  }
  return 1;
}

/*
** Read the optional separator argument argv[iArg] (default '.') into
** *pSep. Returns 1, or 0 after reporting a bad separator.
*/
static int mpathArgSep(sqlite3_context *ctx, const char *zFunc, int argc, sqlite3_value **argv, int iArg,
                       char *pSep) {
  const char *z;
  *pSep = '.';
  if (iArg >= argc) return 1;
  z = (const char *)sqlite3_value_text(argv[iArg]);
  if (z && z[0] && z[1] == 0 && mpathSepValid(z[0])) {
    *pSep = z[0];
    return 1;
  }
  if (z == NULL && sqlite3_value_type(argv[iArg]) != SQLITE_NULL) {
    sqlite3_result_error_nomem(ctx);
    return 0;
  }
  mpathError(ctx, zFunc,
             "separator must be one ASCII punctuation character other than - _ * | ! @ % { } ( ) , &",
             argv[iArg]);
  return 0;
}

/* True when some argument is NULL: the result is then NULL. */
static int mpathAnyNull(int argc, sqlite3_value **argv) {
  int i;
  for (i = 0; i < argc; i++) {
    if (sqlite3_value_type(argv[i]) == SQLITE_NULL) return 1;
  }
  return 0;
}

/*
** Read integer argument pVal named zName into *piOut. Integers, and reals
** and texts holding an integral value in the int32 range (ltree's int4),
** are accepted. Returns 1, or 0 after reporting the error.
*/
static int mpathArgInt(sqlite3_context *ctx, const char *zFunc, const char *zName, sqlite3_value *pVal,
                       int64_t *piOut) {
  int eType = sqlite3_value_numeric_type(pVal);
  const char *zWhy = "is not an integer";
  if (eType == SQLITE_INTEGER || eType == SQLITE_FLOAT) {
    double r = sqlite3_value_double(pVal);
    int64_t i = sqlite3_value_int64(pVal);
    if (eType == SQLITE_FLOAT && (r < -9.2e18 || r > 9.2e18 || r != (double)(int64_t)r)) {
      zWhy = (r < -9.2e18 || r > 9.2e18) ? "is out of range" : "is not an integer";
    } else if (i < -2147483647 - 1 || i > 2147483647) {
      zWhy = "is out of range";
    } else {
      *piOut = i;
      return 1;
    }
  }
  {
    char *zQuoted = nosqlValueQuote(pVal);
    if (zQuoted) {
      nosqlResultError(ctx, "%s: %s %s %s", zFunc, zName, zQuoted, zWhy);
    } else {
      sqlite3_result_error_nomem(ctx);
    }
    sqlite3_free(zQuoted);
  }
  return 0;
}

/* Set the result to labels [iStart, iEnd) of path p ('' when empty). */
static void mpathResultRange(sqlite3_context *ctx, const MpathArg *p, int64_t iStart, int64_t iEnd) {
  if (iStart >= iEnd) {
    sqlite3_result_text(ctx, "", 0, SQLITE_STATIC);
    return;
  }
  sqlite3_result_text(ctx, &p->z[p->a[iStart].iOff],
                      p->a[iEnd - 1].iOff + p->a[iEnd - 1].n - p->a[iStart].iOff, SQLITE_TRANSIENT);
}

/*
** The compiled lquery of argument iArg, pPat, for separator sep: from the statement's
** auxdata when the pattern is constant, else compiled now. *pbNew says the
** caller owns it and hands it to sqlite3_set_auxdata() when done. NULL after an
** error was reported.
*/
static MpathQuery *mpathQueryGet(sqlite3_context *ctx, const char *zFunc, int iArg, sqlite3_value *pPat,
                                 char sep, int *pbNew) {
  MpathQuery *q = (MpathQuery *)sqlite3_get_auxdata(ctx, iArg);
  const char *z;
  int n;
  void *pBuf;
  char zErr[160];
  *pbNew = 0;
  if (q && q->sep == sep) return q;
  z = (const char *)sqlite3_value_text(pPat);
  n = sqlite3_value_bytes(pPat);
  if (z == NULL) {
    sqlite3_result_error_nomem(ctx);
    return NULL;
  }
  pBuf = sqlite3_malloc64((sqlite3_uint64)mpathLquerySize(n));
  if (pBuf == NULL) {
    sqlite3_result_error_nomem(ctx);
    return NULL;
  }
  q = mpathLqueryCompile(z, n, sep, pBuf, zErr, sizeof(zErr));
  if (q == NULL) {
    sqlite3_free(pBuf);
    mpathError(ctx, zFunc, zErr, pPat);
    return NULL;
  }
  *pbNew = 1;
  return q;
}

/* mpath_match(path, lquery [, sep]) */
static void mpathMatchFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  MpathArg path;
  MpathQuery *q;
  char sep;
  int bNew = 0;
  int aStack[3 * (MPATH_STACK_LABELS + 2)];
  int *aWork = aStack;
  if (mpathAnyNull(argc, argv)) return;
  if (!mpathArgSep(ctx, "mpath_match", argc, argv, 2, &sep)) return;
  q = mpathQueryGet(ctx, "mpath_match", 1, argv[1], sep, &bNew);
  if (q == NULL) return;
  if (mpathArgParse(ctx, "mpath_match", argv[0], sep, &path)) {
    if (path.nLabel > MPATH_STACK_LABELS) {
      aWork = (int *)sqlite3_malloc64(sizeof(int) * (sqlite3_uint64)mpathMatchWorkSize(path.nLabel));
    }
    if (aWork == NULL) {
      sqlite3_result_error_nomem(ctx);
    } else {
      sqlite3_result_int(ctx, mpathLqueryMatch(q, path.z, path.a, path.nLabel, aWork));
    }
    if (aWork != aStack) sqlite3_free(aWork);
  }
  mpathArgFree(&path);
  if (bNew) sqlite3_set_auxdata(ctx, 1, q, sqlite3_free);
}

/* mpath_prefix(lquery [, sep]): the literal leading labels of the pattern. */
static void mpathPrefixFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  MpathQuery *q;
  char sep;
  int bNew = 0;
  if (mpathAnyNull(argc, argv)) return;
  if (!mpathArgSep(ctx, "mpath_prefix", argc, argv, 1, &sep)) return;
  q = mpathQueryGet(ctx, "mpath_prefix", 0, argv[0], sep, &bNew);
  if (q == NULL) return;
  sqlite3_result_text(ctx, q->zPat, mpathLqueryPrefix(q), SQLITE_TRANSIENT);
  if (bNew) sqlite3_set_auxdata(ctx, 0, q, sqlite3_free);
}

/* mpath_txtmatch(path, ltxtquery [, sep]) */
static void mpathTxtMatchFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  MpathArg path;
  MpathTxtQuery *q;
  char sep;
  int bNew = 0;
  if (mpathAnyNull(argc, argv)) return;
  if (!mpathArgSep(ctx, "mpath_txtmatch", argc, argv, 2, &sep)) return;
  q = (MpathTxtQuery *)sqlite3_get_auxdata(ctx, 1);
  if (q == NULL || q->sep != sep) {
    const char *z = (const char *)sqlite3_value_text(argv[1]);
    int n = sqlite3_value_bytes(argv[1]);
    char zErr[160];
    void *pBuf;
    if (z == NULL) {
      sqlite3_result_error_nomem(ctx);
      return;
    }
    pBuf = sqlite3_malloc64((sqlite3_uint64)mpathTxtSize(n));
    if (pBuf == NULL) {
      sqlite3_result_error_nomem(ctx);
      return;
    }
    q = mpathTxtCompile(z, n, sep, pBuf, zErr, sizeof(zErr));
    if (q == NULL) {
      sqlite3_free(pBuf);
      mpathError(ctx, "mpath_txtmatch", zErr, argv[1]);
      return;
    }
    bNew = 1;
  }
  if (mpathArgParse(ctx, "mpath_txtmatch", argv[0], sep, &path)) {
    sqlite3_result_int(ctx, mpathTxtMatch(q, path.z, path.a, path.nLabel));
  }
  mpathArgFree(&path);
  if (bNew) sqlite3_set_auxdata(ctx, 1, q, sqlite3_free);
}

/* mpath_nlevel(path [, sep]) */
static void mpathNlevelFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  MpathArg path;
  char sep;
  if (mpathAnyNull(argc, argv)) return;
  if (!mpathArgSep(ctx, "mpath_nlevel", argc, argv, 1, &sep)) return;
  if (mpathArgParse(ctx, "mpath_nlevel", argv[0], sep, &path)) sqlite3_result_int(ctx, path.nLabel);
  mpathArgFree(&path);
}

/*
** mpath_subpath(path, offset [, len [, sep]]) and mpath_subltree(path,
** start, end [, sep]): a slice of the labels of path. The function's user
** data is NULL for subpath, non-NULL for subltree.
*/
static void mpathSliceFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  int bSubltree = sqlite3_user_data(ctx) != NULL;
  const char *zFunc = bSubltree ? "mpath_subltree" : "mpath_subpath";
  const char *zArg1 = bSubltree ? "start" : "offset";
  const char *zArg2 = bSubltree ? "end" : "length";
  MpathArg path;
  char sep;
  int64_t i1, i2 = 0, iStart, iEnd;
  int bValid;
  if (mpathAnyNull(argc, argv)) return;
  if (!mpathArgSep(ctx, zFunc, argc, argv, 3, &sep)) return;
  if (!mpathArgInt(ctx, zFunc, zArg1, argv[1], &i1)) return;
  if (argc > 2 && !mpathArgInt(ctx, zFunc, zArg2, argv[2], &i2)) return;
  if (!mpathArgParse(ctx, zFunc, argv[0], sep, &path)) {
    mpathArgFree(&path);
    return;
  }
  if (bSubltree) {
    bValid = mpathSubltreeRange(path.nLabel, i1, i2, &iStart, &iEnd);
  } else {
    bValid = mpathSubpathRange(path.nLabel, i1, i2, argc > 2, &iStart, &iEnd);
  }
  if (bValid) {
    mpathResultRange(ctx, &path, iStart, iEnd);
  } else {
    char *zQuoted = nosqlValueQuote(argv[0]);
    if (zQuoted) {
      nosqlResultError(ctx, "%s: invalid positions (%s %lld, %s %lld) for %s of %d labels", zFunc, zArg1,
                       (long long)i1, zArg2, (long long)i2, zQuoted, path.nLabel);
    } else {
      sqlite3_result_error_nomem(ctx);
    }
    sqlite3_free(zQuoted);
  }
  mpathArgFree(&path);
}

/* mpath_index(a, b [, offset [, sep]]) */
static void mpathIndexFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  MpathArg a, b;
  char sep;
  int64_t iOff = 0;
  if (mpathAnyNull(argc, argv)) return;
  if (!mpathArgSep(ctx, "mpath_index", argc, argv, 3, &sep)) return;
  if (argc > 2 && !mpathArgInt(ctx, "mpath_index", "offset", argv[2], &iOff)) return;
  b.a = b.aStatic;
  if (mpathArgParse(ctx, "mpath_index", argv[0], sep, &a) &&
      mpathArgParse(ctx, "mpath_index", argv[1], sep, &b)) {
    sqlite3_result_int(ctx, mpathIndex(a.z, a.a, a.nLabel, b.z, b.a, b.nLabel, iOff));
  }
  mpathArgFree(&a);
  mpathArgFree(&b);
}

/* mpath_is_ancestor(a, b [, sep]) */
static void mpathIsAncestorFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  MpathArg a, b;
  char sep;
  if (mpathAnyNull(argc, argv)) return;
  if (!mpathArgSep(ctx, "mpath_is_ancestor", argc, argv, 2, &sep)) return;
  b.a = b.aStatic;
  if (mpathArgParse(ctx, "mpath_is_ancestor", argv[0], sep, &a) &&
      mpathArgParse(ctx, "mpath_is_ancestor", argv[1], sep, &b)) {
    sqlite3_result_int(ctx, mpathIsAncestor(a.z, a.a, a.nLabel, b.z, b.a, b.nLabel));
  }
  mpathArgFree(&a);
  mpathArgFree(&b);
}

/* mpath_lca(p1, p2, ...): ltree's lca(); NULL when any argument is NULL or ''. */
static void mpathLcaFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  MpathArg first, other;
  int i, nKeep;
  if (argc == 0) {
    sqlite3_result_error(ctx, "mpath_lca: at least one path is required", -1);
    return;
  }
  if (mpathAnyNull(argc, argv)) return;
  other.a = other.aStatic;
  if (!mpathArgParse(ctx, "mpath_lca", argv[0], '.', &first)) goto lca_done;
  if (first.nLabel == 0) goto lca_done;
  nKeep = first.nLabel - 1;
  for (i = 1; i < argc; i++) {
    mpathArgFree(&other);
    if (!mpathArgParse(ctx, "mpath_lca", argv[i], '.', &other)) goto lca_done;
    if (other.nLabel == 0) goto lca_done;
    nKeep = mpathLcaStep(first.z, first.a, other.z, other.a, other.nLabel, nKeep);
  }
  mpathResultRange(ctx, &first, 0, nKeep);
lca_done:
  mpathArgFree(&first);
  mpathArgFree(&other);
}

/* mpath_rebase(path, old, new [, sep]) */
static void mpathRebaseFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  MpathArg path, pOld, pNew;
  char sep;
  if (mpathAnyNull(argc, argv)) return;
  if (!mpathArgSep(ctx, "mpath_rebase", argc, argv, 3, &sep)) return;
  pOld.a = pOld.aStatic;
  pNew.a = pNew.aStatic;
  if (mpathArgParse(ctx, "mpath_rebase", argv[0], sep, &path) &&
      mpathArgParse(ctx, "mpath_rebase", argv[1], sep, &pOld) &&
      mpathArgParse(ctx, "mpath_rebase", argv[2], sep, &pNew)) {
    if (!mpathIsAncestor(pOld.z, pOld.a, pOld.nLabel, path.z, path.a, path.nLabel)) {
      sqlite3_result_text(ctx, path.z, path.n, SQLITE_TRANSIENT);
    } else {
      int64_t nLabel = (int64_t)pNew.nLabel + path.nLabel - pOld.nLabel;
      int nTail = pOld.nLabel == 0 ? path.n : path.n - (pOld.n + (pOld.nLabel < path.nLabel ? 1 : 0));
      const char *zTail = &path.z[path.n - nTail];
      int rc = SQLITE_OK;
      NosqlBuffer out = {0, 0, 0};
      if (nLabel > MPATH_MAX_LABELS) {
        nosqlResultError(ctx, "mpath_rebase: number of labels (%lld) exceeds the maximum allowed (%d)",
                         (long long)nLabel, MPATH_MAX_LABELS);
      } else if ((int64_t)pNew.n + 1 + nTail >
                 sqlite3_limit(sqlite3_context_db_handle(ctx), SQLITE_LIMIT_LENGTH, -1)) {
        sqlite3_result_error_toobig(ctx);
      } else {
        nosqlBufferAppend(&rc, &out, pNew.z, pNew.n);
        if (pNew.n > 0 && nTail > 0) nosqlBufferAppend(&rc, &out, &sep, 1);
        nosqlBufferAppend(&rc, &out, zTail, nTail);
        if (rc != SQLITE_OK) {
          sqlite3_result_error_nomem(ctx);
        } else {
          sqlite3_result_text(ctx, (const char *)out.a, (int)out.n, SQLITE_TRANSIENT);
        }
      }
      nosqlBufferFree(&out);
    }
  }
  mpathArgFree(&path);
  mpathArgFree(&pOld);
  mpathArgFree(&pNew);
}

/*
** mpath_lower(prefix [, sep]) and mpath_upper(prefix [, sep]): the bounds
** [prefix || sep, prefix || (sep + 1)) of its strict descendants. The
** function's user data is 0 for lower, 1 for upper.
*/
static void mpathBoundFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  int bUpper = sqlite3_user_data(ctx) != NULL;
  const char *zFunc = bUpper ? "mpath_upper" : "mpath_lower";
  MpathArg path;
  char sep;
  if (mpathAnyNull(argc, argv)) return;
  if (!mpathArgSep(ctx, zFunc, argc, argv, 1, &sep)) return;
  if (mpathArgParse(ctx, zFunc, argv[0], sep, &path)) {
    if (path.n == 0) {
      if (bUpper) {
        sqlite3_result_zeroblob(ctx, 0);
      } else {
        sqlite3_result_text(ctx, "", 0, SQLITE_STATIC);
      }
    } else {
      char *z = sqlite3_mprintf("%.*s%c", path.n, path.z, bUpper ? sep + 1 : sep);
      if (z == NULL) {
        sqlite3_result_error_nomem(ctx);
      } else {
        sqlite3_result_text(ctx, z, -1, sqlite3_free);
      }
    }
  }
  mpathArgFree(&path);
}

/**************************************************************************
** The mpath_ranges table-valued function: the subtree of a path as two
** exact index ranges, for a join that SQLite runs as two plain range
** searches (no MULTI-INDEX OR and its rowid deduplication):
**
**   SELECT n.* FROM mpath_ranges(:p) r JOIN node n ON n.path >= r.lo AND n.path < r.hi
**
** Equivalent table:
**
**   CREATE TABLE mpath_ranges(
**     lo,              -- inclusive lower bound (TEXT)
**     hi,              -- exclusive upper bound (TEXT, or an empty BLOB: above all text)
**     self,            -- 1 for the range holding the node itself, 0 for its descendants
**     prefix HIDDEN,   -- the subtree's root path (required)
**     sep HIDDEN       -- the separator (optional, default '.')
**   );
**
** Row 1 is [p, p || char(0)), which holds exactly p: a longer path starting
** with p continues with a byte above 0. Row 2 is [p || sep, p || (sep + 1)),
** the strict descendants (for the root '': [char(0), x''), every non-empty
** path). The bounds assume the path column's BINARY collation.
*/
typedef struct mpath_ranges_cursor mpath_ranges_cursor;

/* The cursor: the validated prefix and the row it is on. */
struct mpath_ranges_cursor {
  sqlite3_vtab_cursor base; /* Base class - must be first */
  char *zPrefix;            /* Copy of the prefix (sqlite3_malloc64), or NULL for no rows */
  int nPrefix;              /* Bytes of zPrefix */
  char sep;                 /* Separator */
  int iRow;                 /* 1 or 2; 3 at EOF */
  sqlite3_value *apArg[2];  /* Copies of prefix and sep, for the HIDDEN columns */
};

/* Columns of the table, in declaration order. */
#define MPATH_RANGES_LO 0
#define MPATH_RANGES_HI 1
#define MPATH_RANGES_SELF 2
#define MPATH_RANGES_PREFIX 3
#define MPATH_RANGES_SEP 4

static int mpathRangesConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv,
                              sqlite3_vtab **ppVtab, char **pzErr) {
  (void)pAux;
  (void)argc;
  (void)argv;
  (void)pzErr;
  return nosqlVtabNew(db, "CREATE TABLE x(lo, hi, self, prefix HIDDEN, sep HIDDEN)", sizeof(sqlite3_vtab),
                      ppVtab);
}

/*
** The plan (ext/plan.c): slot a is prefix (required), slot b sep, both
** inputs taken by equality in any collation.
*/
static const NosqlPlanCol aMpathRangesPlan[] = {
    {MPATH_RANGES_PREFIX, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 1},
    {MPATH_RANGES_SEP, NOSQL_OP_EQ, NOSQL_COLL_ANY, 1, 0},
};

static int mpathRangesBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo) {
  (void)pVtab;
  return nosqlPlanInputs(pInfo, aMpathRangesPlan, 2, 2, 2);
}

static int mpathRangesOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor) {
  mpath_ranges_cursor *pCur = (mpath_ranges_cursor *)nosqlCursorNew(sizeof(mpath_ranges_cursor), ppCursor);
  (void)pVtab;
  if (pCur == NULL) return SQLITE_NOMEM;
  pCur->iRow = 3;
  return SQLITE_OK;
}

static int mpathRangesClose(sqlite3_vtab_cursor *pCursor) {
  mpath_ranges_cursor *pCur = (mpath_ranges_cursor *)pCursor;
  sqlite3_free(pCur->zPrefix);
  nosqlPlanKeepFree(pCur->apArg, 2);
  sqlite3_free(pCur);
  return SQLITE_OK;
}

static int mpathRangesFilter(sqlite3_vtab_cursor *pCursor, int idxNum, const char *idxStr, int argc,
                             sqlite3_value **argv) {
  mpath_ranges_cursor *pCur = (mpath_ranges_cursor *)pCursor;
  sqlite3_vtab *pVtab = pCursor->pVtab;
  const char *z;
  int n, nLabel;
  char zErr[160];
  NosqlPlanArg aArg[2];
  (void)idxNum;
  sqlite3_free(pCur->zPrefix);
  pCur->zPrefix = NULL;
  pCur->iRow = 3;
  pCur->sep = '.';
  if (nosqlPlanInputArgs(pVtab, "mpath_ranges(prefix[, sep])", aMpathRangesPlan, 2, idxStr, argc, argv,
                         aArg) != SQLITE_OK) {
    return SQLITE_ERROR;
  }
  if (nosqlPlanKeep(aArg, 2, pCur->apArg) != SQLITE_OK) return SQLITE_NOMEM;
  if (sqlite3_value_type(aArg[0].pEq) == SQLITE_NULL) return SQLITE_OK;
  if (aArg[1].pEq) {
    const char *zSep = (const char *)sqlite3_value_text(aArg[1].pEq);
    if (sqlite3_value_type(aArg[1].pEq) == SQLITE_NULL) return SQLITE_OK;
    if (zSep == NULL || zSep[0] == 0 || zSep[1] != 0 || !mpathSepValid(zSep[0])) {
      char *zQuoted = nosqlValueQuote(aArg[1].pEq);
      nosqlVtabError(
          pVtab,
          "mpath_ranges: separator must be one ASCII punctuation character other than - _ * | ! @ %% { } ( "
          ") , & in %s",
          zQuoted ? zQuoted : "?");
      sqlite3_free(zQuoted);
      return SQLITE_ERROR;
    }
    pCur->sep = zSep[0];
  }
  z = (const char *)sqlite3_value_text(aArg[0].pEq);
  n = sqlite3_value_bytes(aArg[0].pEq);
  if (z == NULL) return SQLITE_NOMEM;
  nLabel = mpathSplit(z, n, pCur->sep, NULL, 0, zErr, sizeof(zErr));
  if (nLabel < 0) {
    char *zQuoted = nosqlValueQuote(aArg[0].pEq);
    nosqlVtabError(pVtab, "mpath_ranges: %s in %s", zErr, zQuoted ? zQuoted : "?");
    sqlite3_free(zQuoted);
    return SQLITE_ERROR;
  }
  pCur->zPrefix = (char *)sqlite3_malloc64((sqlite3_uint64)n + 2);
  if (pCur->zPrefix == NULL) return SQLITE_NOMEM;
  memcpy(pCur->zPrefix, z, (size_t)n);
  pCur->nPrefix = n;
  pCur->iRow = 1;
  return SQLITE_OK;
}

static int mpathRangesNext(sqlite3_vtab_cursor *pCursor) {
  ((mpath_ranges_cursor *)pCursor)->iRow++;
  return SQLITE_OK;
}

static int mpathRangesEof(sqlite3_vtab_cursor *pCursor) { return ((mpath_ranges_cursor *)pCursor)->iRow > 2; }

/* Set the result to the prefix followed by byte c (none when c < 0). */
static void mpathRangesBound(sqlite3_context *ctx, mpath_ranges_cursor *pCur, int c) {
  int n = pCur->nPrefix;
  if (c >= 0) pCur->zPrefix[n++] = (char)c;
  sqlite3_result_text(ctx, pCur->zPrefix, n, SQLITE_TRANSIENT);
}

static int mpathRangesColumn(sqlite3_vtab_cursor *pCursor, sqlite3_context *ctx, int iCol) {
  mpath_ranges_cursor *pCur = (mpath_ranges_cursor *)pCursor;
  int bSelf = pCur->iRow == 1;
  int bRoot = pCur->nPrefix == 0;
  switch (iCol) {
    case MPATH_RANGES_LO:
      /* self: p; descendants: p || sep, or char(0) below the root */
      mpathRangesBound(ctx, pCur, bSelf ? -1 : (bRoot ? 0 : pCur->sep));
      break;
    case MPATH_RANGES_HI:
      if (bSelf) {
        mpathRangesBound(ctx, pCur, 0);
      } else if (bRoot) {
        sqlite3_result_zeroblob(ctx, 0);
      } else {
        mpathRangesBound(ctx, pCur, pCur->sep + 1);
      }
      break;
    case MPATH_RANGES_SELF:
      sqlite3_result_int(ctx, bSelf);
      break;
    case MPATH_RANGES_PREFIX:
      nosqlPlanKeptResult(ctx, pCur->apArg[0]);
      break;
    default: /* MPATH_RANGES_SEP: the argument, or the default '.' */
      if (pCur->apArg[1]) {
        nosqlPlanKeptResult(ctx, pCur->apArg[1]);
      } else {
        sqlite3_result_text(ctx, &pCur->sep, 1, SQLITE_TRANSIENT);
      }
      break;
  }
  return SQLITE_OK;
}

static int mpathRangesRowid(sqlite3_vtab_cursor *pCursor, sqlite_int64 *pRowid) {
  *pRowid = ((mpath_ranges_cursor *)pCursor)->iRow;
  return SQLITE_OK;
}

/* An eponymous-only table-valued function: no xCreate, no writes. */
static sqlite3_module mpathRangesModule = {
    0,                    /* iVersion */
    0,                    /* xCreate */
    mpathRangesConnect,   /* xConnect */
    mpathRangesBestIndex, /* xBestIndex */
    nosqlVtabFree,        /* xDisconnect */
    0,                    /* xDestroy */
    mpathRangesOpen,      /* xOpen */
    mpathRangesClose,     /* xClose */
    mpathRangesFilter,    /* xFilter */
    mpathRangesNext,      /* xNext */
    mpathRangesEof,       /* xEof */
    mpathRangesColumn,    /* xColumn */
    mpathRangesRowid,     /* xRowid */
    0,                    /* xUpdate */
    0,                    /* xBegin */
    0,                    /* xSync */
    0,                    /* xCommit */
    0,                    /* xRollback */
    0,                    /* xFindFunction */
    0,                    /* xRename */
    0,                    /* xSavepoint */
    0,                    /* xRelease */
    0,                    /* xRollbackTo */
    0,                    /* xShadowName */
};

int mpathRegister(sqlite3 *db) {
  static const struct {
    const char *zName;                                       /* SQL name */
    int nArg;                                                /* Arguments, -1 for any */
    void (*xFunc)(sqlite3_context *, int, sqlite3_value **); /* Implementation */
    int iUser;                                               /* 1: user data non-NULL */
  } aFunc[] = {
      {"mpath_match", 2, mpathMatchFunc, 0},
      {"mpath_match", 3, mpathMatchFunc, 0},
      {"mpath_txtmatch", 2, mpathTxtMatchFunc, 0},
      {"mpath_txtmatch", 3, mpathTxtMatchFunc, 0},
      {"mpath_nlevel", 1, mpathNlevelFunc, 0},
      {"mpath_nlevel", 2, mpathNlevelFunc, 0},
      {"mpath_subpath", 2, mpathSliceFunc, 0},
      {"mpath_subpath", 3, mpathSliceFunc, 0},
      {"mpath_subpath", 4, mpathSliceFunc, 0},
      {"mpath_subltree", 3, mpathSliceFunc, 1},
      {"mpath_subltree", 4, mpathSliceFunc, 1},
      {"mpath_index", 2, mpathIndexFunc, 0},
      {"mpath_index", 3, mpathIndexFunc, 0},
      {"mpath_index", 4, mpathIndexFunc, 0},
      {"mpath_lca", -1, mpathLcaFunc, 0},
      {"mpath_is_ancestor", 2, mpathIsAncestorFunc, 0},
      {"mpath_is_ancestor", 3, mpathIsAncestorFunc, 0},
      {"mpath_rebase", 3, mpathRebaseFunc, 0},
      {"mpath_rebase", 4, mpathRebaseFunc, 0},
      {"mpath_lower", 1, mpathBoundFunc, 0},
      {"mpath_lower", 2, mpathBoundFunc, 0},
      {"mpath_upper", 1, mpathBoundFunc, 1},
      {"mpath_upper", 2, mpathBoundFunc, 1},
      {"mpath_prefix", 1, mpathPrefixFunc, 0},
      {"mpath_prefix", 2, mpathPrefixFunc, 0},
  };
  static int iMark = 1; /* Non-NULL user data: mpath_upper, mpath_subltree */
  size_t i;
  int rc = SQLITE_OK;
  for (i = 0; rc == SQLITE_OK && i < sizeof(aFunc) / sizeof(aFunc[0]); i++) {
    rc = sqlite3_create_function(db, aFunc[i].zName, aFunc[i].nArg, NOSQL_PURE, aFunc[i].iUser ? &iMark : 0,
                                 aFunc[i].xFunc, 0, 0);
  }
  if (rc == SQLITE_OK) rc = sqlite3_create_module(db, "mpath_ranges", &mpathRangesModule, 0);
  return rc;
}
