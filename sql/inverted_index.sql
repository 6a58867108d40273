-- inverted_index.sql: the article's clickstream (technique 10, "Inverted
-- Search - Direct Aggregation") side by side. Run it with `make demo`, or
--   sqlite3 :memory: < sql/inverted_index.sql
-- from the repository root after `make`.
--
-- Users carry attributes (categories they browse, their city, the sites
-- they come from). The questions: who is in an audience, how many, and for
-- an audience, how many unique users per category (the report).
--   relational   user_attr(user_id, field, value) with indexes:
--                INTERSECT / EXCEPT, GROUP BY count(DISTINCT)
--   FTS5         one document per user, one token per field:value
--   NoSQL        inverted_index (roaring-bitmap postings) and its facets
.load ./dist/nosql
.headers on
.mode column

-- Built-in data, deterministic: 5000 users, Zipf-like attribute skew.
CREATE TABLE cat(k INTEGER PRIMARY KEY, v TEXT);
INSERT INTO cat VALUES (0,'Men'),(1,'Women'),(2,'Kids'),(3,'Bloggers'),(4,'Sports'),(5,'Tech'),(6,'Travel'),(7,'Food');
CREATE TABLE city(k INTEGER PRIMARY KEY, v TEXT);
INSERT INTO city VALUES (0,'Boston'),(1,'New York'),(2,'Paris'),(3,'Berlin'),(4,'Tokyo');
CREATE TABLE site(k INTEGER PRIMARY KEY, v TEXT);
INSERT INTO site VALUES (0,'cnn.com'),(1,'bbc.co.uk'),(2,'nytimes.com'),(3,'lemonde.fr');

CREATE TABLE user_attr(user_id INTEGER NOT NULL, field TEXT NOT NULL, value TEXT NOT NULL,
                       PRIMARY KEY (field, value, user_id)) WITHOUT ROWID;
CREATE INDEX user_attr_user ON user_attr(user_id, field, value);
WITH RECURSIVE u(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM u WHERE i < 5000),
  h(i, a, b, c, d) AS (SELECT i, i * 2654435761 % 1000003, i * 40503 % 999983, i * 69069 % 999979,
                              i * 1103515245 % 999961 FROM u)
INSERT OR IGNORE INTO user_attr
SELECT i, 'category', (SELECT v FROM cat WHERE k = (a % 8) * (b % 8) / 8) FROM h
UNION ALL SELECT i, 'category', (SELECT v FROM cat WHERE k = c % 8) FROM h WHERE d % 3 > 0
UNION ALL SELECT i, 'city', (SELECT v FROM city WHERE k = (b % 5) * (c % 5) / 5) FROM h
UNION ALL SELECT i, 'site', (SELECT v FROM site WHERE k = (d % 4) * (a % 4) / 4) FROM h
UNION ALL SELECT i, 'site', (SELECT v FROM site WHERE k = c % 4) FROM h WHERE a % 5 = 0;

-- NoSQL: the inverted index, each field a term or a JSON array of terms.
CREATE VIRTUAL TABLE audience USING inverted_index(category, city, site);
INSERT INTO audience(rowid, category, city, site)
SELECT user_id,
       json_group_array(value) FILTER (WHERE field = 'category'),
       json_group_array(value) FILTER (WHERE field = 'city'),
       json_group_array(value) FILTER (WHERE field = 'site')
  FROM user_attr GROUP BY user_id;
CREATE VIRTUAL TABLE audience_facets USING inverted_index_facets(audience);

-- FTS5: one token per field:value (non-alphanumerics as '_').
CREATE VIRTUAL TABLE clicks_fts USING fts5(tokens, tokenize = "unicode61 tokenchars '_'");
INSERT INTO clicks_fts(rowid, tokens)
SELECT user_id, group_concat(field || '_' || replace(replace(value, '.', '_'), ' ', '_'), ' ')
  FROM user_attr GROUP BY user_id;

.print
.print == Q1: the audience site:cnn.com AND (city:Boston OR city:"New York") AND NOT category:Kids
.print -- NoSQL: inverted_index MATCH (first 5 of the rows, in rowid order)
SELECT rowid AS user_id FROM audience
 WHERE audience MATCH 'site:cnn.com AND (city:Boston OR city:"New York") AND NOT category:Kids' LIMIT 5;
.print -- relational: INTERSECT / EXCEPT over user_attr
SELECT user_id FROM (
  SELECT user_id FROM user_attr WHERE field = 'site' AND value = 'cnn.com'
  INTERSECT SELECT user_id FROM user_attr WHERE field = 'city' AND value IN ('Boston', 'New York')
  EXCEPT SELECT user_id FROM user_attr WHERE field = 'category' AND value = 'Kids') LIMIT 5;
.print -- FTS5
SELECT rowid AS user_id FROM clicks_fts
 WHERE clicks_fts MATCH 'site_cnn_com AND (city_Boston OR city_New_York) NOT category_Kids' ORDER BY rowid LIMIT 5;

CREATE TEMP TABLE q1_nosql AS SELECT rowid AS id FROM audience
 WHERE audience MATCH 'site:cnn.com AND (city:Boston OR city:"New York") AND NOT category:Kids';
CREATE TEMP TABLE q1_rel AS
  SELECT user_id AS id FROM user_attr WHERE field = 'site' AND value = 'cnn.com'
  INTERSECT SELECT user_id FROM user_attr WHERE field = 'city' AND value IN ('Boston', 'New York')
  EXCEPT SELECT user_id FROM user_attr WHERE field = 'category' AND value = 'Kids';
CREATE TEMP TABLE q1_fts AS SELECT rowid AS id FROM clicks_fts
 WHERE clicks_fts MATCH 'site_cnn_com AND (city_Boston OR city_New_York) NOT category_Kids';
SELECT 'Q1 audience' AS question, (SELECT count(*) FROM q1_nosql) AS users,
       CASE WHEN (SELECT count(*) FROM q1_nosql) = (SELECT count(*) FROM q1_rel)
             AND (SELECT count(*) FROM q1_nosql) = (SELECT count(*) FROM q1_fts)
             AND NOT EXISTS (SELECT id FROM q1_nosql EXCEPT SELECT id FROM q1_rel)
             AND NOT EXISTS (SELECT id FROM q1_nosql EXCEPT SELECT id FROM q1_fts)
            THEN 'agree' ELSE 'DISAGREE' END AS result;

.print
.print == Q2: how many users in the audience site:cnn.com AND city:Boston
.print -- NoSQL: inverted_index_count (bitmap cardinality, no row visited)
SELECT inverted_index_count('audience', 'site:cnn.com AND city:Boston') AS users;
.print -- relational: count of an INTERSECT
SELECT count(*) AS users FROM (
  SELECT user_id FROM user_attr WHERE field = 'site' AND value = 'cnn.com'
  INTERSECT SELECT user_id FROM user_attr WHERE field = 'city' AND value = 'Boston');
.print -- FTS5: count(*) over the matching rows
SELECT count(*) AS users FROM clicks_fts WHERE clicks_fts MATCH 'site_cnn_com AND city_Boston';
SELECT 'Q2 count' AS question,
       CASE WHEN inverted_index_count('audience', 'site:cnn.com AND city:Boston')
                 = (SELECT count(*) FROM (SELECT user_id FROM user_attr WHERE field = 'site' AND value = 'cnn.com'
                      INTERSECT SELECT user_id FROM user_attr WHERE field = 'city' AND value = 'Boston'))
             AND inverted_index_count('audience', 'site:cnn.com AND city:Boston')
                 = (SELECT count(*) FROM clicks_fts WHERE clicks_fts MATCH 'site_cnn_com AND city_Boston')
             AND inverted_index_count('audience', 'site:cnn.com AND city:Boston')
                 = (SELECT count(*) FROM audience WHERE audience MATCH 'site:cnn.com AND city:Boston')
            THEN 'agree' ELSE 'DISAGREE' END AS result;

.print
.print == Q3: the report: unique users per category within site:cnn.com AND city:Boston
.print -- NoSQL: the facets table (direct aggregation)
SELECT term AS category, docs AS users FROM audience_facets
 WHERE field = 'category' AND query = 'site:cnn.com AND city:Boston';
.print -- relational: GROUP BY count(DISTINCT) over the audience
SELECT a.value AS category, count(DISTINCT a.user_id) AS users
  FROM user_attr a
 WHERE a.field = 'category'
   AND a.user_id IN (SELECT user_id FROM user_attr WHERE field = 'site' AND value = 'cnn.com'
                     INTERSECT SELECT user_id FROM user_attr WHERE field = 'city' AND value = 'Boston')
 GROUP BY a.value ORDER BY a.value;
CREATE TEMP TABLE q3_nosql AS SELECT term, docs FROM audience_facets
 WHERE field = 'category' AND query = 'site:cnn.com AND city:Boston';
CREATE TEMP TABLE q3_direct AS SELECT term, docs FROM audience_facets
 WHERE field = 'category' AND query = 'site:cnn.com AND city:Boston' AND method = 'direct';
CREATE TEMP TABLE q3_bitmap AS SELECT term, docs FROM audience_facets
 WHERE field = 'category' AND query = 'site:cnn.com AND city:Boston' AND method = 'bitmap';
CREATE TEMP TABLE q3_rel AS SELECT a.value AS term, count(DISTINCT a.user_id) AS docs
  FROM user_attr a
 WHERE a.field = 'category'
   AND a.user_id IN (SELECT user_id FROM user_attr WHERE field = 'site' AND value = 'cnn.com'
                     INTERSECT SELECT user_id FROM user_attr WHERE field = 'city' AND value = 'Boston')
 GROUP BY a.value;
SELECT 'Q3 report' AS question,
       CASE WHEN (SELECT count(*) FROM q3_rel) = (SELECT count(*) FROM q3_nosql)
             AND (SELECT count(*) FROM q3_rel) = (SELECT count(*) FROM q3_direct)
             AND (SELECT count(*) FROM q3_rel) = (SELECT count(*) FROM q3_bitmap)
             AND NOT EXISTS (SELECT * FROM q3_rel EXCEPT SELECT * FROM q3_nosql)
             AND NOT EXISTS (SELECT * FROM q3_rel EXCEPT SELECT * FROM q3_direct)
             AND NOT EXISTS (SELECT * FROM q3_rel EXCEPT SELECT * FROM q3_bitmap)
            THEN 'agree' ELSE 'DISAGREE' END AS result;

.print
.print == Q4: the batch report: unique users per site for three audiences, in one scan
.print -- NoSQL: facets with query IN (...)
SELECT query AS audience, term AS site, docs AS users FROM audience_facets
 WHERE field = 'site' AND query IN ('category:Men', 'category:Women AND city:Paris', 'NOT category:Sports');
.print -- relational: one GROUP BY count(DISTINCT) over a table of audiences
CREATE TEMP TABLE audiences(query TEXT, user_id INTEGER);
INSERT INTO audiences
SELECT 'category:Men', user_id FROM user_attr WHERE field = 'category' AND value = 'Men'
UNION ALL
SELECT 'category:Women AND city:Paris', user_id FROM (
  SELECT user_id FROM user_attr WHERE field = 'category' AND value = 'Women'
  INTERSECT SELECT user_id FROM user_attr WHERE field = 'city' AND value = 'Paris')
UNION ALL
SELECT 'NOT category:Sports', user_id FROM (
  SELECT DISTINCT user_id FROM user_attr
  EXCEPT SELECT user_id FROM user_attr WHERE field = 'category' AND value = 'Sports');
SELECT q.query AS audience, a.value AS site, count(DISTINCT a.user_id) AS users
  FROM audiences q JOIN user_attr a ON a.user_id = q.user_id AND a.field = 'site'
 GROUP BY q.query, a.value ORDER BY a.value, q.query;
CREATE TEMP TABLE q4_nosql AS SELECT query, term, docs FROM audience_facets
 WHERE field = 'site' AND query IN ('category:Men', 'category:Women AND city:Paris', 'NOT category:Sports');
CREATE TEMP TABLE q4_rel AS SELECT q.query, a.value AS term, count(DISTINCT a.user_id) AS docs
  FROM audiences q JOIN user_attr a ON a.user_id = q.user_id AND a.field = 'site'
 GROUP BY q.query, a.value;
SELECT 'Q4 batch report' AS question,
       CASE WHEN (SELECT count(*) FROM q4_rel) = (SELECT count(*) FROM q4_nosql)
             AND NOT EXISTS (SELECT * FROM q4_rel EXCEPT SELECT * FROM q4_nosql)
            THEN 'agree' ELSE 'DISAGREE' END AS result;

.print
.print == Q5: term statistics (vocabulary) against GROUP BY
CREATE VIRTUAL TABLE audience_vocab USING inverted_index_vocab(audience);
SELECT field, term, docs FROM audience_vocab WHERE field = 'city';
SELECT 'Q5 vocabulary' AS question,
       CASE WHEN NOT EXISTS (SELECT field, value, count(*) FROM user_attr GROUP BY field, value
                             EXCEPT SELECT field, term, docs FROM audience_vocab)
             AND (SELECT count(*) FROM audience_vocab) = (SELECT count(*) FROM (SELECT DISTINCT field, value FROM user_attr))
            THEN 'agree' ELSE 'DISAGREE' END AS result;

INSERT INTO audience(audience) VALUES ('integrity-check');
