-- range.sql: numeric RANGE fields of inverted_index (price:[10 TO 20])
-- against the relational query with an index on each column, side by
-- side. Run it with `make demo`, or
--   sqlite3 :memory: < sql/range.sql
-- from the repository root after `make`.
--
-- 50,000 products with a brand (100 values), a colour (10) and a price
-- (0.00 .. 1000.00, some missing). The questions: the products of one
-- brand and colour in a price range, how many there are, how many hold a
-- price range alone, and the price buckets of an audience (Elasticsearch's
-- range aggregation) against GROUP BY over CASE. nosql_compare runs each
-- pair side by side and says whether they agree ('agree' = 1) and how
-- long each took (median of 5 runs after a warm-up); the times move from
-- run to run, the answers do not.
-- timing column: 5
.load ./dist/nosql
.headers on
.mode column

CREATE TABLE prod(id INTEGER PRIMARY KEY, brand TEXT, colour TEXT, price REAL);
WITH RECURSIVE c(i, x, y, z) AS (SELECT 1, 12345, 678, 91011 UNION ALL
  SELECT i + 1, (x * 1103515245 + 12345) % 4294967296, (y * 69069 + 1) % 4294967296,
         (z * 22695477 + 1) % 4294967296 FROM c WHERE i < 50000)
INSERT INTO prod SELECT i, 'b' || ((x >> 8) % 100), 'c' || ((y >> 8) % 10),
  CASE WHEN i % 97 = 0 THEN NULL ELSE ((z >> 4) % 100001) / 100.0 END FROM c;

-- Relational: an index on each column, ANALYZEd.
CREATE INDEX prod_brand ON prod(brand);
CREATE INDEX prod_colour ON prod(colour);
CREATE INDEX prod_price ON prod(price);
ANALYZE;

-- NoSQL: one inverted index over the table, price a RANGE field (bit-sliced bitmaps),
-- kept in step with prod by its own triggers.
CREATE VIRTUAL TABLE prod_idx USING inverted_index(brand, colour, price RANGE, content=prod, mode='sync');
CREATE VIRTUAL TABLE prod_facets USING inverted_index_facets(prod_idx);

-- A write goes through the triggers (a text price would be refused by the index, and the
-- write with it: docs/inverted_index.md).
UPDATE prod SET price = 150 WHERE id = 7;

.print
.print -- The products of b7 in colour c3 priced 100 to 200, the NoSQL way.
SELECT p.id, p.brand, p.colour, p.price
  FROM prod_idx i JOIN prod p ON p.id = i.rowid
 WHERE prod_idx MATCH 'brand:b7 AND colour:c3 AND price:[100 TO 200]';

.print
.print -- Side by side: the same rows, the same counts.
SELECT 'b7, c3, 100..200 (rows)' AS question, label AS side, rows,
       CASE agree WHEN 1 THEN 'agree' ELSE 'differ' END AS answers, ratio AS time_ratio
  FROM nosql_compare('SELECT id FROM prod WHERE brand = ''b7'' AND colour = ''c3'' AND price BETWEEN 100 AND 200',
                     'SELECT rowid FROM prod_idx WHERE prod_idx MATCH ''brand:b7 AND colour:c3 AND price:[100 TO 200]''',
                     5, 'relational', 'inverted_index');
SELECT 'b7, c3, 100..200 (count)' AS question, label AS side, rows,
       CASE agree WHEN 1 THEN 'agree' ELSE 'differ' END AS answers, ratio AS time_ratio
  FROM nosql_compare('SELECT count(*) FROM prod WHERE brand = ''b7'' AND colour = ''c3'' AND price BETWEEN 100 AND 200',
                     'SELECT inverted_index_count(''prod_idx'', ''brand:b7 AND colour:c3 AND price:[100 TO 200]'')',
                     5, 'relational', 'inverted_index');
SELECT 'price 250..750 (count, 50%)' AS question, label AS side, rows,
       CASE agree WHEN 1 THEN 'agree' ELSE 'differ' END AS answers, ratio AS time_ratio
  FROM nosql_compare('SELECT count(*) FROM prod WHERE price >= 250 AND price < 750',
                     'SELECT inverted_index_count(''prod_idx'', ''price:[250 TO 750}'')',
                     5, 'relational', 'inverted_index');
SELECT 'not under 500, or no price' AS question, label AS side, rows,
       CASE agree WHEN 1 THEN 'agree' ELSE 'differ' END AS answers, ratio AS time_ratio
  FROM nosql_compare('SELECT id FROM prod WHERE colour = ''c1'' AND (price IS NULL OR price >= 500)',
                     'SELECT rowid FROM prod_idx WHERE prod_idx MATCH ''colour:c1 NOT price:<500''',
                     5, 'relational', 'inverted_index');

.print
.print -- Price buckets of brand b7 (Elasticsearch's range aggregation), and GROUP BY over CASE.
SELECT term AS bucket, lo, hi, docs FROM prod_facets
 WHERE field = 'price' AND ranges = '[100, 250, 500]' AND query = 'brand:b7';
SELECT 'price buckets of b7' AS question, label AS side, rows,
       CASE agree WHEN 1 THEN 'agree' ELSE 'differ' END AS answers, ratio AS time_ratio
  FROM nosql_compare('SELECT CASE WHEN price < 100 THEN ''*-100'' WHEN price < 250 THEN ''100-250''
                             WHEN price < 500 THEN ''250-500'' ELSE ''500-*'' END AS bucket, count(*)
                        FROM prod WHERE brand = ''b7'' AND price IS NOT NULL GROUP BY bucket',
                     'SELECT term, docs FROM prod_facets WHERE field = ''price'' AND ranges = ''[100, 250, 500]''
                        AND query = ''brand:b7''',
                     5, 'relational', 'inverted_index');

.print
.print -- The index stays in step with the table.
INSERT INTO prod_idx(prod_idx) VALUES ('integrity-check');
SELECT 'integrity-check' AS step, 'agree' AS result;
