-- core.sql: the side-by-side mechanism, on the article's simplest technique,
-- application-side joins (technique 3). Run it with `make demo`, or
--   sqlite3 :memory: < sql/core.sql
-- from the repository root after `make`.
--
-- The question: the names of the users whose ids the application holds.
-- Relational: one JOIN. NoSQL: the store has no joins, so the application
-- batches its lookups into one key query (the DataLoader pattern), never
-- one query per id.
.load ./dist/nosql
.headers on
.mode column

SELECT 'nosql ' || nosql_version() AS extension;

-- Built-in data, deterministic: 1000 users, and the ids of 5 of them.
CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1000)
INSERT INTO users SELECT i, 'user-' || printf('%04d', (i * 7919) % 10000) FROM c;
CREATE TABLE wanted(id INTEGER);
INSERT INTO wanted VALUES (3), (141), (592), (653), (589);

.print
.print -- relational: JOIN
SELECT u.id, u.name FROM wanted w JOIN users u ON u.id = w.id ORDER BY u.id;

.print
.print -- application-side join: one batched key lookup
SELECT id, name FROM users
 WHERE id IN (SELECT value FROM json_each('[3, 141, 592, 653, 589]'))
 ORDER BY id;

.print
SELECT 'application-side join' AS question,
       CASE WHEN (SELECT count(*) FROM (
                    SELECT u.id, u.name FROM wanted w JOIN users u ON u.id = w.id
                    EXCEPT
                    SELECT id, name FROM users WHERE id IN (SELECT value FROM json_each('[3, 141, 592, 653, 589]'))))
               = 0
             AND (SELECT count(*) FROM wanted JOIN users USING (id))
               = (SELECT count(*) FROM users WHERE id IN (SELECT value FROM json_each('[3, 141, 592, 653, 589]')))
            THEN 'agree' ELSE 'DISAGREE' END AS result;
