-- compare.sql: nosql_compare() and nosql_explain() on one table, the way
-- a user would try a NoSQL layout on their own data. Run it with
-- `make demo`, or
--   sqlite3 :memory: < sql/compare.sql
-- from the repository root after `make`.
--
-- 20,000 users in 500 cities, each with a few tags. Three questions, each
-- asked the relational way and through one of the extension's virtual
-- tables; nosql_compare runs both side by side and says whether they
-- agree ('agree' = 1), how long each took (median of 5 runs after a
-- warm-up) and how many VM steps and full-scan steps one run took. The
-- times move from run to run; agree and the step counts do not.
-- timing column: 7
.load ./dist/nosql
.headers on
.mode column

CREATE TABLE users(id INTEGER PRIMARY KEY, city TEXT, name TEXT, tags);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 20000)
INSERT INTO users SELECT i, 'city' || (i * 7919 % 500), 'user ' || i,
  json_array('t' || (i % 37), 't' || (i % 11), 't' || (i * 13 % 101)) FROM c;

-- An index table keyed on city, carrying the name (a DynamoDB GSI with
-- its projection), and one keyed on each tag (a multikey index).
CREATE VIRTUAL TABLE users_by_city USING index_table(users, key = 'city', include = 'name');
CREATE VIRTUAL TABLE users_by_tag USING index_table(users, key = 'each(tags) AS tag');

-- 1. The users of one city: a full scan of users, against one seek.
SELECT 'users in city42' AS question, label AS side,
       rows, CASE agree WHEN 1 THEN 'agree' ELSE 'differ' END AS answers,
       vm_steps, fullscan_steps, ratio AS time_ratio
  FROM nosql_compare('SELECT id, name FROM users WHERE city = ''city42''',
                     'SELECT rowid, name FROM users_by_city WHERE city = ''city42''', 5, 'relational', 'index_table');

-- 2. The users with one tag: json_each over every row, against one seek.
SELECT 'users tagged t5' AS question, label AS side,
       rows, CASE agree WHEN 1 THEN 'agree' ELSE 'differ' END AS answers,
       vm_steps, fullscan_steps, ratio AS time_ratio
  FROM nosql_compare('SELECT u.id FROM users u WHERE EXISTS (SELECT 1 FROM json_each(u.tags) WHERE value = ''t5'')',
                     'SELECT rowid FROM users_by_tag WHERE tag = ''t5''', 5, 'relational', 'index_table');

-- 3. In order: both end with ORDER BY, so the order must agree too.
SELECT 'first 20 names of city7' AS question, label AS side,
       rows, CASE agree WHEN 1 THEN 'agree' ELSE 'differ' END AS answers,
       vm_steps, sort_steps, ratio AS time_ratio
  FROM nosql_compare('SELECT name FROM users WHERE city = ''city7'' ORDER BY id LIMIT 20',
                     'SELECT name FROM users_by_city WHERE city = ''city7'' ORDER BY city, rowid LIMIT 20', 5,
                     'relational', 'index_table');

-- Why the second side is fast: its plan in words.
SELECT module, plan_words FROM nosql_explain('SELECT rowid, name FROM users_by_city WHERE city = ''city42''');
SELECT module, plan_words FROM nosql_explain('SELECT name FROM users_by_city WHERE city = ''city7'' ORDER BY city, rowid LIMIT 20');
