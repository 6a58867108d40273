-- nested_documents.sql: element queries (technique 15) and proximity inside
-- one element (technique 16) of a nested document, side by side with the
-- flat index and the relational answer. Run it with `make demo`, or
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

-- Technique 15: the same resumes as JSON objects, {"skill": ..., "level": ...}
-- per element, in an inverted_index with a NESTED field, in both layouts
-- (element sub-documents, the default; numbered fields skill_1, level_1,
-- ..., the article's), against the flattened index (skill and level as two
-- multi-valued fields) and the relational EXISTS over json_each.
CREATE TABLE people(id INTEGER PRIMARY KEY, skills TEXT);
INSERT INTO people
  SELECT id, (SELECT json_group_array(json_object('skill', substr(value, instr(value, ' ') + 1),
                                                  'level', substr(value, 1, instr(value, ' ') - 1)))
                FROM json_each(resumes.skills)) AS skills
    FROM resumes;
CREATE VIRTUAL TABLE elems USING inverted_index(skills NESTED(skill, level), content=people);
CREATE VIRTUAL TABLE numbered USING inverted_index(skills NESTED(skill, level) NUMBERED, content=people);
CREATE VIRTUAL TABLE naive USING inverted_index(skill, level);
INSERT INTO elems(elems) VALUES ('rebuild');
INSERT INTO numbered(numbered) VALUES ('rebuild');
INSERT INTO naive(rowid, skill, level)
  SELECT id, (SELECT json_group_array(value ->> '$.skill') FROM json_each(people.skills)),
             (SELECT json_group_array(value ->> '$.level') FROM json_each(people.skills))
    FROM people;

.print
.print == Who has one skill element with skill chess at level excellent?
.print "-- elements:   SELECT rowid FROM elems WHERE elems MATCH 'skills:{skill:chess AND level:excellent}'"
.print "-- numbered:   the same query on the numbered layout"
.print "-- nosql_gap:  SELECT rowid FROM gap WHERE gap MATCH 'NEAR(excellent chess, 1)'"
.print "-- naive:      SELECT rowid FROM naive WHERE naive MATCH 'skill:chess AND level:excellent'"
.print "-- relational: EXISTS (SELECT 1 FROM json_each(skills) WHERE value ->> '$.skill' = 'chess' AND value ->> '$.level' = 'excellent')"
CREATE TEMP TABLE rel AS SELECT id FROM people p WHERE EXISTS (SELECT 1 FROM json_each(p.skills)
  WHERE value ->> '$.skill' = 'chess' AND value ->> '$.level' = 'excellent');
CREATE TEMP TABLE el AS SELECT rowid AS id FROM elems WHERE elems MATCH 'skills:{skill:chess AND level:excellent}';
CREATE TEMP TABLE nu AS SELECT rowid AS id FROM numbered WHERE numbered MATCH 'skills:{skill:chess AND level:excellent}';
CREATE TEMP TABLE gp AS SELECT rowid AS id FROM gap WHERE gap MATCH 'NEAR(excellent chess, 1)';
CREATE TEMP TABLE nv AS SELECT rowid AS id FROM naive WHERE naive MATCH 'skill:chess AND level:excellent';
SELECT (SELECT count(*) FROM rel) AS relational, (SELECT count(*) FROM el) AS elements,
       (SELECT count(*) FROM nu) AS numbered, (SELECT count(*) FROM gp) AS nosql_gap,
       (SELECT count(*) FROM nv) AS naive,
       (SELECT count(*) FROM (SELECT id FROM nv EXCEPT SELECT id FROM rel)) AS naive_false_matches;
.print
.print -- A false match of the naive index: chess at another level, excellent at another skill.
SELECT p.id, p.skills FROM people p WHERE p.id IN (SELECT id FROM nv EXCEPT SELECT id FROM rel) LIMIT 2;
.print
.print -- The same index, counted and faceted: levels among the chess elements, the article's numbered fields.
SELECT inverted_index_count('elems', 'skills:{skill:chess}') AS chess_players;
CREATE VIRTUAL TABLE elems_facets USING inverted_index_facets(elems);
SELECT term AS level, docs FROM elems_facets WHERE field = 'skills.level' AND query = 'skills:{skill:chess}';
CREATE VIRTUAL TABLE numbered_vocab USING inverted_index_vocab(numbered);
SELECT field, term, docs FROM numbered_vocab WHERE term = 'chess' ORDER BY docs DESC LIMIT 3;

.print
SELECT question, CASE WHEN ok THEN 'agree' ELSE 'DISAGREE' END AS result FROM (
  SELECT 1 AS k, 'elements layout = relational' AS question,
         (SELECT count(*) FROM rel) > 50
     AND NOT EXISTS (SELECT id FROM el EXCEPT SELECT id FROM rel)
     AND NOT EXISTS (SELECT id FROM rel EXCEPT SELECT id FROM el) AS ok
  UNION ALL
  SELECT 2, 'numbered layout = relational',
         NOT EXISTS (SELECT id FROM nu EXCEPT SELECT id FROM rel)
     AND NOT EXISTS (SELECT id FROM rel EXCEPT SELECT id FROM nu)
  UNION ALL
  SELECT 3, 'nosql_gap NEAR = relational',
         NOT EXISTS (SELECT id FROM gp EXCEPT SELECT id FROM rel)
     AND NOT EXISTS (SELECT id FROM rel EXCEPT SELECT id FROM gp)
  UNION ALL
  SELECT 4, 'naive flattening finds them all, plus false matches',
         NOT EXISTS (SELECT id FROM rel EXCEPT SELECT id FROM nv)
     AND (SELECT count(*) FROM (SELECT id FROM nv EXCEPT SELECT id FROM rel)) > 0
  UNION ALL
  SELECT 5, 'facet counts = GROUP BY over json_each',
         NOT EXISTS (SELECT term, docs FROM elems_facets WHERE field = 'skills.level' AND query = 'skills:{skill:chess}'
                     EXCEPT SELECT value ->> '$.level', count(DISTINCT p.id) FROM people p, json_each(p.skills)
                             WHERE value ->> '$.skill' = 'chess' GROUP BY 1)
     AND (SELECT count(*) FROM elems_facets WHERE field = 'skills.level' AND query = 'skills:{skill:chess}') = 4
) ORDER BY k;
