/*
** fuzz_ii_nested.c: NESTED fields of inverted_index: the JSON values the
** write path walks (json_tree: elements, keys, arrays of terms) and the
** stored element rows (<name>_elems.terms), read by element queries,
** facets, 'integrity-check', 'optimize' and writes, in both layouts.
**
** Input: byte 0 chooses the mode. Bit 0 clear: the rest is a value for the
** nested fields, inserted and updated in both layouts. Bit 0 set: bits 2
** and 3 choose an element row, and with bit 7 clear the rest is the row's
** payload (framed unless bit 1 is set: as the current "IIE2" varints, or
** with bit 6 set as an older release's "IIB1" u32 words), so the fuzzer
** reaches the element decoders behind the checksum; with bit 7 set the rest
** is the row's first, n and doc, 8 bytes each, little-endian (the element
** range arithmetic).
*/
#include <stdlib.h>

#include "fuzz.h"
#include "nosqlInt.h"
#include "nosqlTest.h"

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData) {
  sqlite3 *db;
  sqlite3_stmt *pStmt = NULL;
  unsigned char *aBlob;
  size_t nBlob, i;
  int bElems, bRaw, iRow;
  static const char *const azRead[] = {
      "SELECT rowid FROM e WHERE e MATCH 'skills:{skill:poetry AND level:excellent}'",
      "SELECT rowid FROM e WHERE e MATCH 'NOT skills:{skill:math OR NOT level:poor} OR city:x'",
      "SELECT rowid FROM q WHERE q MATCH 'skills:{skill:poetry AND NOT level:poor}'",
      "SELECT inverted_index_count('e', 'skills:{level:excellent}')",
      "SELECT field, term, docs FROM e_facets WHERE field = 'skills.level' AND query = "
      "'skills:{skill:poetry}'",
      "SELECT field, term, docs FROM q_facets WHERE query = 'skills:{skill:math}'",
      "SELECT * FROM e_vocab",
      "SELECT * FROM e WHERE rowid = 2",
      "INSERT INTO e(e) VALUES ('integrity-check')",
      "INSERT INTO q(q) VALUES ('integrity-check')",
      "UPDATE e SET skills = '[{\"skill\":\"chess\"}]' WHERE rowid = 1",
      "DELETE FROM e WHERE rowid = 2",
      "INSERT INTO e(rowid, city, skills) VALUES (20, 'y', "
      "'[{\"skill\":\"poetry\",\"level\":\"excellent\"}]')",
      "SELECT rowid FROM e WHERE e MATCH 'skills:{skill:poetry}'",
      "INSERT INTO e(e) VALUES ('optimize')",
      "INSERT INTO e(e) VALUES ('rebuild')",
      "INSERT INTO e(e) VALUES ('integrity-check')",
  };
  if (nData == 0) return 0;
  bElems = aData[0] & 1;
  bRaw = aData[0] & 2;
  iRow = aData[0] >> 2;
  if ((db = fuzzOpen()) == NULL) return 0;
  fuzzExec(
      db,
      "CREATE VIRTUAL TABLE e USING inverted_index(city, skills NESTED(skill, level));"
      "CREATE VIRTUAL TABLE q USING inverted_index(city, skills NESTED(skill, level) NUMBERED);"
      "INSERT INTO e(rowid, city, skills) VALUES"
      " (1, 'x', '[{\"skill\":\"poetry\",\"level\":\"poor\"},{\"skill\":\"math\",\"level\":\"excellent\"}]'),"
      " (2, NULL, '[{\"skill\":[\"poetry\",7]},{}]'), (3, 'x', '[]'), (4, 'y', NULL),"
      " (5, 'x', '[{\"level\":\"excellent\",\"skill\":\"poetry\"}]');"
      "INSERT INTO q(rowid, city, skills) SELECT rowid, city, skills FROM e;"
      "CREATE VIRTUAL TABLE e_facets USING inverted_index_facets(e);"
      "CREATE VIRTUAL TABLE q_facets USING inverted_index_facets(q);"
      "CREATE VIRTUAL TABLE e_vocab USING inverted_index_vocab(e);");
  if (!bElems) {
    static const char *const azWrite[] = {"INSERT INTO e(rowid, city, skills) VALUES (10, 'z', ?1)",
                                          "INSERT INTO q(rowid, city, skills) VALUES (10, 'z', ?1)",
                                          "UPDATE e SET skills = ?1 WHERE rowid = 1",
                                          "UPDATE q SET skills = ?1 WHERE rowid = 1"};
    for (i = 0; i < sizeof(azWrite) / sizeof(azWrite[0]); i++) {
      fuzzRun1(db, azWrite[i], 1, aData + 1, (int)nData - 1);
    }
  } else if (aData[0] & 0x80) {
    sqlite3_int64 aVal[3] = {0, 0, 0};
    int k;
    for (i = 1; i < nData && i < 25; i++)
      aVal[(i - 1) / 8] |= (sqlite3_int64)((uint64_t)aData[i] << (8 * ((i - 1) % 8)));
    sqlite3_prepare_v2(db,
                       "UPDATE e_elems SET first = ?1, n = ?2, doc = ?3 WHERE doc = (SELECT doc FROM e_elems "
                       "ORDER BY doc LIMIT 1 OFFSET ?4)",
                       -1, &pStmt, 0);
    if (pStmt) {
      for (k = 0; k < 3; k++) sqlite3_bind_int64(pStmt, k + 1, aVal[k]);
      sqlite3_bind_int(pStmt, 4, iRow % 4);
      sqlite3_step(pStmt);
      sqlite3_finalize(pStmt);
    }
  } else {
    nBlob = nData - 1 + (bRaw ? 0 : 12);
    aBlob = (unsigned char *)malloc(nBlob + 1);
    if (aBlob == NULL) {
      sqlite3_close(db);
      return 0;
    }
    if (bRaw) {
      memcpy(aBlob, aData + 1, nData - 1);
    } else {
      memcpy(aBlob + 12, aData + 1, nData - 1);
      iiFrameHeader(aBlob, aBlob + 12, nData - 1);
      if ((aData[0] & 0x40) == 0) {
        /* The current format's 8-byte frame: magic, checksum of the payload. */
        memmove(aBlob + II_FRAME2_HDR, aBlob + II_FRAME_HDR, nData - 1);
        iiPut32(aBlob, II_ELEM_MAGIC);
        iiPut32(aBlob + 4, iiChecksum(aBlob + II_FRAME2_HDR, nData - 1));
        nBlob = II_FRAME2_HDR + nData - 1;
      }
    }
    sqlite3_prepare_v2(
        db,
        "UPDATE e_elems SET terms = ?1 WHERE doc = (SELECT doc FROM e_elems ORDER BY doc LIMIT 1 OFFSET ?2)",
        -1, &pStmt, 0);
    if (pStmt) {
      sqlite3_bind_blob(pStmt, 1, aBlob, (int)nBlob, SQLITE_STATIC);
      sqlite3_bind_int(pStmt, 2, iRow % 4);
      sqlite3_step(pStmt);
      sqlite3_finalize(pStmt);
    }
    free(aBlob);
  }
  for (i = 0; i < sizeof(azRead) / sizeof(azRead[0]); i++) fuzzRun(db, azRead[i], 0, 0, NULL, NULL);
  sqlite3_close(db);
  return 0;
}
