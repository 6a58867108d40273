/*
** fuzz_ii_stored.c: the stored blobs of inverted_index: posting lists
** (<name>_terms.postings) and the direct index (<name>_docs.terms), read by
** queries, facets, vocab, 'integrity-check', 'optimize' and writes.
**
** Input: byte 0 chooses the victim (bit 0: a direct-index blob instead of
** a posting list; bit 1: store the bytes raw instead of in a valid frame,
** which tests the frame check; bits 2..7: which row; bit 7 also frames a
** direct-index blob as an older release's "IIB1" u32 ids instead of the
** current "IID2" varints, and a posting list as a direct=off index's
** "IIV1" varint list instead of the bitmap's "IIB1"), the rest is the payload. Framing uses
** iiFrameHeader() (ext/nosqlInt.h), so the fuzzer reaches the CRoaring and
** direct-index decoders behind the checksum.
*/
#include <stdlib.h>

#include "fuzz.h"
#include "nosqlInt.h"
#include "nosqlTest.h"

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData) {
  sqlite3 *db;
  sqlite3_stmt *pStmt = NULL;
  unsigned char *aBlob;
  size_t nBlob;
  int bDocs, bRaw, iRow;
  static const char *const azRead[] = {
      "SELECT rowid FROM a WHERE a MATCH 'city:Boston OR site:cnn.com'",
      "SELECT rowid FROM a WHERE a MATCH 'NOT category:Men AND site:cnn.com'",
      "SELECT count(*) FROM a WHERE a MATCH 'city:Boston' AND rowid > 0",
      "SELECT inverted_index_count('a', 'site:cnn.com OR site:bbc.com')",
      "SELECT field, term, docs FROM a_facets WHERE query = 'site:cnn.com'",
      "SELECT field, term, docs FROM a_facets WHERE query = 'NOT city:Boston' AND method = 'direct'",
      "SELECT field, term, docs FROM a_facets WHERE query = 'city:Boston' AND method = 'bitmap'",
      "SELECT * FROM a_vocab",
      "SELECT * FROM a WHERE rowid = 7",
      "INSERT INTO a(a) VALUES ('integrity-check')",
      "UPDATE a SET city = 'Paris' WHERE rowid = 7",
      "DELETE FROM a WHERE rowid = 9",
      "INSERT INTO a(rowid, category, city, site) VALUES (12, 'Kids', 'Boston', 'cnn.com')",
      "SELECT rowid FROM a WHERE a MATCH 'city:Boston OR city:Paris'",
      "INSERT INTO a(a) VALUES ('optimize')",
      "INSERT INTO a(a) VALUES ('rebuild')",
      "INSERT INTO a(a) VALUES ('integrity-check')",
  };
  size_t i;
  if (nData == 0) return 0;
  bDocs = aData[0] & 1;
  bRaw = aData[0] & 2;
  iRow = aData[0] >> 2;
  nBlob = nData - 1 + (bRaw ? 0 : 12);
  aBlob = (unsigned char *)malloc(nBlob + 1);
  if (aBlob == NULL) return 0;
  if (bRaw) {
    memcpy(aBlob, aData + 1, nData - 1);
  } else {
    memcpy(aBlob + 12, aData + 1, nData - 1);
    iiFrameHeader(aBlob, aBlob + 12, nData - 1);
    /* A direct-index blob is the current "IID2" varints unless bit 7 asks for an older release's "IIB1". */
    if (bDocs && (aData[0] & 0x80) == 0) {
      /* The current format's 8-byte frame: magic, checksum of the payload. */
      memmove(aBlob + II_FRAME2_HDR, aBlob + II_FRAME_HDR, nData - 1);
      iiPut32(aBlob, II_DIRECT_MAGIC);
      iiPut32(aBlob + 4, iiChecksum(aBlob + II_FRAME2_HDR, nData - 1));
      nBlob = II_FRAME2_HDR + nData - 1;
    } else if (!bDocs && (aData[0] & 0x80) != 0) {
      /* A varint posting list ("IIV1", read by every index). */
      memmove(aBlob + II_FRAME2_HDR, aBlob + II_FRAME_HDR, nData - 1);
      iiPut32(aBlob, II_LIST_MAGIC);
      iiPut32(aBlob + 4, iiChecksum(aBlob + II_FRAME2_HDR, nData - 1));
      nBlob = II_FRAME2_HDR + nData - 1;
    }
  }
  if ((db = fuzzOpen()) == NULL) {
    free(aBlob);
    return 0;
  }
  fuzzExec(db,
           "CREATE VIRTUAL TABLE a USING inverted_index(category, city, site);"
           "INSERT INTO a(rowid, category, city, site) VALUES"
           " (7, '[\"Men\",\"Bloggers\"]', 'Boston', 'cnn.com'), (-3, '[\"Women\"]', 'New York', 'cnn.com'),"
           " (9, 'Kids', 'Boston', 'bbc.com'), (10, NULL, NULL, 'cnn.com'), (11, '[\"Men\"]', 'Boston', 'x');"
           "CREATE VIRTUAL TABLE a_facets USING inverted_index_facets(a);"
           "CREATE VIRTUAL TABLE a_vocab USING inverted_index_vocab(a);");
  if (bDocs) {
    sqlite3_prepare_v2(
        db,
        "UPDATE a_docs SET terms = ?1 WHERE doc = (SELECT doc FROM a_docs ORDER BY doc LIMIT 1 OFFSET ?2)",
        -1, &pStmt, 0);
  } else {
    sqlite3_prepare_v2(
        db,
        "UPDATE a_terms SET postings = ?1 WHERE id = (SELECT id FROM a_terms ORDER BY id LIMIT 1 OFFSET ?2)",
        -1, &pStmt, 0);
  }
  if (pStmt) {
    sqlite3_bind_blob(pStmt, 1, aBlob, (int)nBlob, SQLITE_STATIC);
    sqlite3_bind_int(pStmt, 2, iRow % (bDocs ? 5 : 12));
    sqlite3_step(pStmt);
    sqlite3_finalize(pStmt);
  }
  for (i = 0; i < sizeof(azRead) / sizeof(azRead[0]); i++) fuzzRun(db, azRead[i], 0, 0, NULL, NULL);
  sqlite3_close(db);
  free(aBlob);
  return 0;
}
