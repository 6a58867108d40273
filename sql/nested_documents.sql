-- nested_documents.sql: proximity inside one element of a nested document
-- (technique 16) side by side with the flat index and the relational
-- answer. Run it with `make demo`, or
--   sqlite3 :memory: < sql/nested_documents.sql
-- from the repository root after `make` (needs FTS5, as Debian's SQLite has).
--
-- 3,000 generated resumes, each a JSON array of 1-6 skill descriptions
-- ("excellent poetry", "poor math", ...). The question: who has an element
-- with both "excellent" and "poetry" within 3 words? Asked of an FTS5
-- index with the nosql_gap tokenizer, of the same index with plain
-- unicode61 (whose NEAR spans elements: false matches), and of the rows
-- with json_each (the relational answer, per element).
.load ./dist/nosql
.headers on
.mode column

CREATE TABLE resumes(id INTEGER PRIMARY KEY, skills TEXT);
WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < 3000),
  e(n, k) AS (SELECT n, 0 FROM i UNION ALL SELECT n, k + 1 FROM e WHERE k < (n * 7) % 6)
INSERT INTO resumes SELECT n, json_group_array(
    json_extract('["excellent","poor","fair","good"]', '$[' || ((n * 31 + k * 17) % 4) || ']') || ' ' ||
    json_extract('["poetry","math","chess","cooking","poetry writing"]', '$[' || ((n * 13 + k * 29) % 5) || ']'))
  FROM e GROUP BY n;
CREATE VIRTUAL TABLE gap USING fts5(skills, tokenize = 'nosql_gap 10 unicode61');
CREATE VIRTUAL TABLE flat USING fts5(skills);
INSERT INTO gap(rowid, skills) SELECT id, skills FROM resumes;
INSERT INTO flat(rowid, skills) SELECT id, skills FROM resumes;

.print
.print == Who has "excellent" and "poetry" within 3 words of each other, in one skill?
.print "-- nosql_gap:  SELECT rowid FROM gap WHERE gap MATCH 'NEAR(excellent poetry, 3)'"
.print "-- unicode61:  the same query on the flat index (NEAR spans elements)"
.print "-- relational: EXISTS (SELECT 1 FROM json_each(skills) WHERE value LIKE 'excellent%poetry%')"
CREATE TEMP TABLE a AS SELECT rowid AS id FROM gap WHERE gap MATCH 'NEAR(excellent poetry, 3)';
CREATE TEMP TABLE b AS SELECT rowid AS id FROM flat WHERE flat MATCH 'NEAR(excellent poetry, 3)';
CREATE TEMP TABLE c AS SELECT id FROM resumes r WHERE EXISTS (SELECT 1 FROM json_each(r.skills) WHERE value LIKE 'excellent poetry%');
SELECT (SELECT count(*) FROM c) AS relational, (SELECT count(*) FROM a) AS nosql_gap, (SELECT count(*) FROM b) AS flat,
       (SELECT count(*) FROM (SELECT id FROM b EXCEPT SELECT id FROM c)) AS flat_false_matches;
SELECT r.id, r.skills FROM resumes r WHERE r.id IN (SELECT id FROM b EXCEPT SELECT id FROM c) LIMIT 3;

.print
SELECT question, CASE WHEN ok THEN 'agree' ELSE 'DISAGREE' END AS result FROM (
  SELECT 1 AS k, 'nosql_gap NEAR = per-element answer' AS question,
         (SELECT count(*) FROM c) > 50
     AND NOT EXISTS (SELECT id FROM a EXCEPT SELECT id FROM c)
     AND NOT EXISTS (SELECT id FROM c EXCEPT SELECT id FROM a) AS ok
  UNION ALL
  SELECT 2, 'flat index finds them all, plus false matches',
         NOT EXISTS (SELECT id FROM c EXCEPT SELECT id FROM b)
     AND (SELECT count(*) FROM (SELECT id FROM b EXCEPT SELECT id FROM c)) > 0
) ORDER BY k;
