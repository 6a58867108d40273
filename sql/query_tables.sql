-- query_tables.sql: index tables (technique 7) and denormalized query tables
-- (technique 1) side by side with the relational schema.
-- Run it with `make demo`, or
--   sqlite3 :memory: < sql/query_tables.sql
-- from the repository root after `make`.
--
-- 20,000 users in 500 cities, 5,000 posts with 1-4 tags each. Each question
-- is answered by an index table and by the relational query that does the
-- same job; both answers are compared row by row (with types), and a line
-- says agree or DISAGREE (make test fails on DISAGREE). In part 6, `.timer on`
-- shows each write's time: a "-- mode: statement" line names each "Run Time:"
-- line that follows it.
.load ./dist/nosql
.headers on
.mode list
.separator " | "

CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT, email TEXT, city TEXT COLLATE NOCASE, bio TEXT);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 20000)
INSERT INTO users SELECT i, 'user ' || i, 'u' || i || '@example.org',
       CASE i % 3 WHEN 0 THEN 'City ' ELSE 'city ' END || (i * 7919 % 500), printf('%.200c', 'b') FROM c;
CREATE TABLE posts(id INTEGER PRIMARY KEY, title TEXT, tags TEXT);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 5000)
INSERT INTO posts SELECT i, 'post ' || i,
       (SELECT json_group_array('tag' || ((i * 31 + k * 17) * k % 300))
          FROM (SELECT 1 AS k UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4) WHERE k <= 1 + i % 4) FROM c;

-- The relational side: an index on city, and a covering one on a copy.
CREATE INDEX users_city ON users(city);
CREATE TABLE users_cov AS SELECT * FROM users;
CREATE INDEX users_cov_city ON users_cov(city, name, email, id);

-- The NoSQL side: the query tables.
CREATE VIRTUAL TABLE users_by_city USING index_table(users, key = 'city', include = 'name, email');
CREATE VIRTUAL TABLE posts_by_tag USING index_table(posts, key = 'each(tags) AS tag', include = 'title');

.print
.print == 1. Users of one city, with name and email (the key keeps city's NOCASE collation)
.print -- index table: one key range of users_by_city, the copies beside the key
SELECT count(*) AS users, sum(rowid) AS id_sum, max(email) FROM users_by_city WHERE city = 'CITY 42';
.print -- its plan: the virtual table alone, never the base table
EXPLAIN QUERY PLAN SELECT rowid, name, email FROM users_by_city WHERE city = 'CITY 42';
.print -- relational: CREATE INDEX on city, then a lookup of the row for name and email
SELECT count(*) AS users, sum(id) AS id_sum, max(email) FROM users WHERE city = 'CITY 42';
EXPLAIN QUERY PLAN SELECT id, name, email FROM users WHERE city = 'CITY 42';
.print -- relational: a covering CREATE INDEX (city, name, email, id)
EXPLAIN QUERY PLAN SELECT id, name, email FROM users_cov WHERE city = 'CITY 42';
SELECT 'users of one city' AS question,
       CASE WHEN (SELECT count(*) FROM users_by_city WHERE city = 'CITY 42') > 10
             AND NOT EXISTS (SELECT rowid, typeof(rowid), name, typeof(name), email FROM users_by_city WHERE city = 'CITY 42'
                             EXCEPT SELECT id, typeof(id), name, typeof(name), email FROM users WHERE city = 'CITY 42')
             AND NOT EXISTS (SELECT id, typeof(id), name, typeof(name), email FROM users WHERE city = 'CITY 42'
                             EXCEPT SELECT rowid, typeof(rowid), name, typeof(name), email FROM users_by_city WHERE city = 'CITY 42')
            THEN 'agree' ELSE 'DISAGREE' END AS result;

.print
.print == 2. A JOIN through the index table: orders of the users of three cities
CREATE TABLE orders(id INTEGER PRIMARY KEY, user_id INTEGER, total REAL);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 30000)
INSERT INTO orders SELECT i, 1 + i * 13 % 20000, (i % 97) + 0.5 FROM c;
CREATE INDEX orders_user ON orders(user_id);
.print -- index table
SELECT u.city, count(*) AS orders, sum(o.total) AS total FROM users_by_city u JOIN orders o ON o.user_id = u.rowid
 WHERE u.city IN ('city 7', 'city 8', 'CITY 9') GROUP BY u.city ORDER BY u.city;
.print -- relational
SELECT u.city, count(*) AS orders, sum(o.total) AS total FROM users u JOIN orders o ON o.user_id = u.id
 WHERE u.city IN ('city 7', 'city 8', 'CITY 9') GROUP BY u.city ORDER BY u.city;
SELECT 'orders by city' AS question,
       CASE WHEN (SELECT group_concat(x, ';') FROM (SELECT u.city || ':' || count(*) || ':' || sum(o.total) AS x
                   FROM users_by_city u JOIN orders o ON o.user_id = u.rowid
                  WHERE u.city IN ('city 7', 'city 8', 'CITY 9') GROUP BY u.city ORDER BY u.city))
               = (SELECT group_concat(x, ';') FROM (SELECT u.city || ':' || count(*) || ':' || sum(o.total) AS x
                   FROM users u JOIN orders o ON o.user_id = u.id
                  WHERE u.city IN ('city 7', 'city 8', 'CITY 9') GROUP BY u.city ORDER BY u.city))
             AND (SELECT count(*) FROM users_by_city WHERE city IN ('city 7', 'city 8', 'CITY 9')) > 0
            THEN 'agree' ELSE 'DISAGREE' END AS result;

.print
.print == 3. Posts by tag: each(tags), the multikey index SQLite lacks
.print -- index table: one key range of posts_by_tag
SELECT count(*) AS posts, sum(rowid) AS id_sum FROM posts_by_tag WHERE tag = 'tag42';
EXPLAIN QUERY PLAN SELECT rowid, title FROM posts_by_tag WHERE tag = 'tag42';
.print -- relational: json_each over every post (a full scan and a JSON parse per row)
SELECT count(*) AS posts, sum(p.id) AS id_sum FROM posts p WHERE EXISTS (SELECT 1 FROM json_each(p.tags) WHERE value = 'tag42');
EXPLAIN QUERY PLAN SELECT p.id, p.title FROM posts p, json_each(p.tags) j WHERE j.value = 'tag42';
SELECT 'posts by tag' AS question,
       CASE WHEN (SELECT count(*) FROM posts_by_tag WHERE tag = 'tag42') > 5
             AND NOT EXISTS (SELECT rowid, title FROM posts_by_tag WHERE tag = 'tag42'
                             EXCEPT SELECT p.id, p.title FROM posts p, json_each(p.tags) j WHERE j.value = 'tag42')
             AND NOT EXISTS (SELECT p.id, p.title FROM posts p, json_each(p.tags) j WHERE j.value = 'tag42'
                             EXCEPT SELECT rowid, title FROM posts_by_tag WHERE tag = 'tag42')
            THEN 'agree' ELSE 'DISAGREE' END AS result;
.print -- the whole index, every tag, against json_each
SELECT 'every (tag, post)' AS question,
       CASE WHEN (SELECT count(*) FROM posts_by_tag) > 5000
             AND NOT EXISTS (SELECT tag, rowid, title FROM posts_by_tag
                             EXCEPT SELECT j.value, p.id, p.title FROM posts p, json_each(p.tags) j)
             AND NOT EXISTS (SELECT j.value, p.id, p.title FROM posts p, json_each(p.tags) j
                             EXCEPT SELECT tag, rowid, title FROM posts_by_tag)
            THEN 'agree' ELSE 'DISAGREE' END AS result;

.print
.print == 4. Writes keep it exact (sync mode), in the same transaction
BEGIN;
UPDATE users SET city = 'Atlantis' WHERE id % 1000 = 0;
UPDATE posts SET tags = json_insert(tags, '$[#]', 'fresh') WHERE id % 500 = 0;
DELETE FROM users WHERE id % 999 = 0;
INSERT INTO users(id, name, email, city) VALUES (30001, 'new', 'new@example.org', 'atlantis');
COMMIT;
SELECT 'after writes' AS question,
       CASE WHEN (SELECT count(*) FROM users_by_city WHERE city = 'ATLANTIS') = (SELECT count(*) FROM users WHERE city = 'ATLANTIS')
             AND (SELECT count(*) FROM users_by_city WHERE city = 'ATLANTIS') = 21
             AND (SELECT count(*) FROM posts_by_tag WHERE tag = 'fresh') = 10
             AND NOT EXISTS (SELECT city, rowid, name, email FROM users_by_city
                             EXCEPT SELECT city, id, name, email FROM users WHERE city IS NOT NULL)
            THEN 'agree' ELSE 'DISAGREE' END AS result;

.print
.print == 5. A deliberate drift: a trigger dropped, a row changed behind the index's back
DROP TRIGGER users_by_city_update;
UPDATE users SET email = 'moved@example.org', city = 'Nowhere' WHERE id = 7;
UPDATE users_by_city_data SET name = 'forged' WHERE rowid = 11;
.print -- index_table_drift: the drifted entries, one row each
SELECT kind, base_rowid, key, stored, expected FROM index_table_drift('users_by_city') ORDER BY base_rowid, kind;
.print "-- what 'check' counts; the command itself fails while drift exists, with the report"
.print "--   index_table 'users_by_city' has drifted from 'users': 1 missing (rowid 7: 'Nowhere'), 1 extra"
.print "--   (rowid 7: 'city 433'), 1 stale (rowid 11: 'city 109'); trigger 'users_by_city_update' is missing; ..." 
SELECT kind, count(*) AS entries FROM index_table_drift('users_by_city') GROUP BY kind ORDER BY kind;
SELECT 'drift found' AS question,
       CASE WHEN (SELECT group_concat(kind || ':' || base_rowid, ' ') FROM (SELECT kind, base_rowid FROM index_table_drift('users_by_city') ORDER BY kind))
                 = 'extra:7 missing:7 stale:11'
             AND NOT EXISTS (SELECT 1 FROM sqlite_schema WHERE name = 'users_by_city_update')
            THEN 'agree' ELSE 'DISAGREE' END AS result;
.print "-- 'rebuild' repairs it and makes the trigger again; 'check' and 'integrity-check' then pass" 
INSERT INTO users_by_city(users_by_city) VALUES ('rebuild');
INSERT INTO users_by_city(users_by_city) VALUES ('check');
INSERT INTO users_by_city(users_by_city) VALUES ('integrity-check');
SELECT 'drift repaired' AS question,
       CASE WHEN (SELECT count(*) FROM index_table_drift('users_by_city')) = 0
             AND (SELECT name FROM users_by_city WHERE rowid = 11) = 'user 11'
             AND (SELECT city FROM users_by_city WHERE rowid = 7) = 'Nowhere'
             AND EXISTS (SELECT 1 FROM sqlite_schema WHERE name = 'users_by_city_update')
            THEN 'agree' ELSE 'DISAGREE' END AS result;

.print
.print == 6. The cost per base-table write of each mode (5,000 inserts, updates, deletes each)
CREATE TABLE w_none(id INTEGER PRIMARY KEY, name TEXT, email TEXT, city TEXT);
CREATE TABLE w_index(id INTEGER PRIMARY KEY, name TEXT, email TEXT, city TEXT);
CREATE INDEX w_index_city ON w_index(city, name, email);
CREATE TABLE w_sync(id INTEGER PRIMARY KEY, name TEXT, email TEXT, city TEXT);
CREATE VIRTUAL TABLE w_sync_city USING index_table(w_sync, key = 'city', include = 'name, email');
CREATE TABLE w_later(id INTEGER PRIMARY KEY, name TEXT, email TEXT, city TEXT);
CREATE VIRTUAL TABLE w_later_city USING index_table(w_later, key = 'city', include = 'name, email', mode = 'deferred');
.print -- Each timing below (Run Time) is that of the statement named on the line before it.
.timer on
.print -- base table alone: INSERT 5,000 rows
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 5000)
INSERT INTO w_none SELECT i, 'n' || i, 'e' || i, 'c' || (i % 97) FROM c;
.print -- base table alone: UPDATE the city of 5,000 rows
UPDATE w_none SET city = 'd' || (id % 13);
.print -- base table alone: DELETE 5,000 rows
DELETE FROM w_none;
.print -- covering CREATE INDEX: INSERT 5,000 rows
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 5000)
INSERT INTO w_index SELECT i, 'n' || i, 'e' || i, 'c' || (i % 97) FROM c;
.print -- covering CREATE INDEX: UPDATE the city of 5,000 rows
UPDATE w_index SET city = 'd' || (id % 13);
.print -- covering CREATE INDEX: DELETE 5,000 rows
DELETE FROM w_index;
.print -- index table, sync: INSERT 5,000 rows
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 5000)
INSERT INTO w_sync SELECT i, 'n' || i, 'e' || i, 'c' || (i % 97) FROM c;
.print -- index table, sync: UPDATE the city of 5,000 rows
UPDATE w_sync SET city = 'd' || (id % 13);
.print -- index table, sync: DELETE 5,000 rows
DELETE FROM w_sync;
.print -- index table, deferred: INSERT 5,000 rows
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 5000)
INSERT INTO w_later SELECT i, 'n' || i, 'e' || i, 'c' || (i % 97) FROM c;
.print -- index table, deferred: UPDATE the city of 5,000 rows
UPDATE w_later SET city = 'd' || (id % 13);
.print -- index table, deferred: one 'refresh' applies the logged writes to the index table
INSERT INTO w_later_city(w_later_city) VALUES ('refresh');
.timer off
SELECT 'every mode ends exact' AS question,
       CASE WHEN (SELECT count(*) FROM w_sync_city) = 0
             AND (SELECT count(*) FROM w_later_city) = 5000
             AND NOT EXISTS (SELECT city, rowid, name, email FROM w_later_city EXCEPT SELECT city, id, name, email FROM w_later)
            THEN 'agree' ELSE 'DISAGREE' END AS result;
