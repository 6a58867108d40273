-- composite_keys.sql: composite keys (technique 8), aggregation with
-- composite keys (9) and enumerable keys (5), each next to the relational
-- query that does the same job. Run it with `make demo`, or
--   sqlite3 :memory: < sql/composite_keys.sql
-- from the repository root after `make`.
.load ./dist/nosql
.headers on
.mode column

-- Built-in data, deterministic: 20000 user_stats rows keyed
-- 'State:City:UserID', and the same rows normalized with a composite index.
CREATE TABLE user_stats(key TEXT PRIMARY KEY, visits INTEGER);
CREATE TABLE user_stats_norm(state TEXT, city TEXT, user_id TEXT, visits INTEGER);
CREATE INDEX user_stats_norm_i ON user_stats_norm(state, city, user_id);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 20000)
INSERT INTO user_stats_norm
SELECT json_extract('["CA","NY","TX","WA","C%"]', '$[' || (i % 5) || ']'),
       json_extract('["San Francisco","Los Angeles","San Diego","100%_off","Fresno"]', '$[' || ((i / 5) % 5) || ']'),
       printf('%05d', i), (i * 7919) % 100
  FROM c;
INSERT INTO user_stats SELECT ckey_join(':', state, city, user_id), visits FROM user_stats_norm;
CREATE VIRTUAL TABLE by_region USING composite_scan(user_stats, key, state, city, user_id, sep=':');

.print
.print == Q1: the users of CA:San Francisco (a key prefix)
.print -- composite_scan: one range of the primary key's index
SELECT count(*) AS n, sum(visits) AS visits, min(user_id) AS first FROM by_region
 WHERE state = 'CA' AND city = 'San Francisco';
EXPLAIN QUERY PLAN SELECT * FROM by_region WHERE state = 'CA' AND city = 'San Francisco';
.print -- LIKE: SQLite's LIKE prefix optimisation needs case_sensitive_like or a NOCASE index: a full scan here
SELECT count(*) AS n, sum(visits) AS visits, min(substr(key, 18)) AS first FROM user_stats
 WHERE key LIKE 'CA:San Francisco:%';
EXPLAIN QUERY PLAN SELECT * FROM user_stats WHERE key LIKE 'CA:San Francisco:%';
.print -- GLOB: uses the index for a constant prefix
SELECT count(*) AS n, sum(visits) AS visits, min(substr(key, 18)) AS first FROM user_stats
 WHERE key GLOB 'CA:San Francisco:*';
EXPLAIN QUERY PLAN SELECT * FROM user_stats WHERE key GLOB 'CA:San Francisco:*';
.print -- relational: composite index (state, city, user_id)
SELECT count(*) AS n, sum(visits) AS visits, min(user_id) AS first FROM user_stats_norm
 WHERE state = 'CA' AND city = 'San Francisco';
EXPLAIN QUERY PLAN SELECT * FROM user_stats_norm WHERE state = 'CA' AND city = 'San Francisco';

SELECT 'Q1 prefix CA:San Francisco' AS question,
       CASE WHEN (SELECT group_concat(user_id) FROM (SELECT user_id FROM by_region WHERE state = 'CA' AND city = 'San Francisco'))
               = (SELECT group_concat(user_id) FROM (SELECT substr(key, 18) AS user_id FROM user_stats WHERE key LIKE 'CA:San Francisco:%' ORDER BY key))
             AND (SELECT group_concat(user_id) FROM (SELECT user_id FROM by_region WHERE state = 'CA' AND city = 'San Francisco'))
               = (SELECT group_concat(user_id) FROM (SELECT substr(key, 18) AS user_id FROM user_stats WHERE key GLOB 'CA:San Francisco:*' ORDER BY key))
             AND (SELECT group_concat(user_id) FROM (SELECT user_id FROM by_region WHERE state = 'CA' AND city = 'San Francisco'))
               = (SELECT group_concat(user_id) FROM (SELECT user_id FROM user_stats_norm WHERE state = 'CA' AND city = 'San Francisco' ORDER BY user_id))
            THEN 'agree' ELSE 'DISAGREE' END AS result;

.print
.print == Q2: the users of state 'C%' in city '100%_off' (wildcards inside the key)
SELECT count(*) AS composite_scan FROM by_region WHERE state = 'C%' AND city = '100%_off';
SELECT count(*) AS normalized FROM user_stats_norm WHERE state = 'C%' AND city = '100%_off';
.print -- LIKE 'C%:100%_off:%' also matches CA:100%_off and any 'C..:100X.off' key: wrong unless escaped
SELECT count(*) AS naive_like FROM user_stats WHERE key LIKE 'C%:100%_off:%';
SELECT count(*) AS escaped_like FROM user_stats WHERE key LIKE 'C\%:100\%\_off:%' ESCAPE '\';
SELECT 'Q2 wildcards in keys' AS question,
       CASE WHEN (SELECT count(*) FROM by_region WHERE state = 'C%' AND city = '100%_off')
               = (SELECT count(*) FROM user_stats_norm WHERE state = 'C%' AND city = '100%_off')
             AND (SELECT count(*) FROM by_region WHERE state = 'C%' AND city = '100%_off')
               = (SELECT count(*) FROM user_stats WHERE key LIKE 'C\%:100\%\_off:%' ESCAPE '\')
            THEN 'agree' ELSE 'DISAGREE' END AS result;

.print
.print == Q3: a range on the next part, descending, then the next page after a key
SELECT user_id FROM by_region WHERE state = 'TX' AND city = 'Fresno' AND user_id >= '19900' ORDER BY user_id DESC LIMIT 3;
SELECT user_id FROM user_stats_norm WHERE state = 'TX' AND city = 'Fresno' AND user_id >= '19900' ORDER BY user_id DESC LIMIT 3;
SELECT key FROM by_region WHERE state = 'TX' AND key > 'TX:Fresno:19952' ORDER BY key LIMIT 2;
SELECT 'Q3 range and continuation' AS question,
       CASE WHEN (SELECT group_concat(user_id) FROM (SELECT user_id FROM by_region WHERE state = 'TX' AND city = 'Fresno' AND user_id >= '19900' ORDER BY user_id DESC))
               = (SELECT group_concat(user_id) FROM (SELECT user_id FROM user_stats_norm WHERE state = 'TX' AND city = 'Fresno' AND user_id >= '19900' ORDER BY user_id DESC))
             AND (SELECT group_concat(key) FROM (SELECT key FROM by_region WHERE state = 'TX' AND key > 'TX:Fresno:19952' ORDER BY key LIMIT 5))
               = (SELECT group_concat(key) FROM (SELECT key FROM user_stats WHERE key > 'TX:Fresno:19952' AND key < 'TX;' ORDER BY key LIMIT 5))
            THEN 'agree' ELSE 'DISAGREE' END AS result;

-- Clicks: 30000 (user, site, time) events, keyed user first as in the
-- article, site first for the second layout, and normalized.
CREATE TABLE clicks_norm(user_id INTEGER, site TEXT, ts INTEGER);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 30000)
INSERT INTO clicks_norm SELECT (i * 7) % 2000, 'site' || ((i * 13) % 37 % (1 + i % 9)), i FROM c;
CREATE TABLE clicks_by_user(k BLOB PRIMARY KEY) WITHOUT ROWID;
INSERT INTO clicks_by_user SELECT ckey(user_id, site, ts) FROM clicks_norm;
CREATE TABLE clicks_by_site(k BLOB PRIMARY KEY) WITHOUT ROWID;
INSERT INTO clicks_by_site SELECT ckey(site, user_id, ts) FROM clicks_norm;
CREATE VIRTUAL TABLE user_frames USING composite_scan(clicks_by_user, k, user_id INTEGER, site TEXT, ts INTEGER);
CREATE VIRTUAL TABLE site_frames USING composite_scan(clicks_by_site, k, site TEXT, user_id INTEGER, ts INTEGER);

.print
.print == Q4: unique users per site
.print -- relational: COUNT(DISTINCT) with GROUP BY, no index
SELECT site, count(DISTINCT user_id) AS users FROM clicks_norm GROUP BY site ORDER BY site LIMIT 3;
.print -- user-prefixed keys (the article): one pass over user frames, then the distinct pairs by site
SELECT site, count(*) AS users FROM (SELECT user_id, site FROM user_frames GROUP BY user_id, site)
 GROUP BY site ORDER BY site LIMIT 3;
.print -- site-prefixed keys: one streaming pass, O(1) memory per group
SELECT site, count_distinct_sorted(user_id) AS users FROM site_frames GROUP BY site LIMIT 3;
EXPLAIN QUERY PLAN SELECT site, count_distinct_sorted(user_id) FROM site_frames GROUP BY site;
.print -- approximate, any order: HyperLogLog (0.81% standard error)
SELECT site, hll_count(user_id) AS users_estimate FROM clicks_norm GROUP BY site ORDER BY site LIMIT 3;
SELECT 'Q4 unique users per site' AS question,
       CASE WHEN (SELECT group_concat(site || '=' || n) FROM (SELECT site, count(DISTINCT user_id) AS n FROM clicks_norm GROUP BY site ORDER BY site))
               = (SELECT group_concat(site || '=' || n) FROM (SELECT site, count(*) AS n FROM (SELECT user_id, site FROM user_frames GROUP BY user_id, site) GROUP BY site ORDER BY site))
             AND (SELECT group_concat(site || '=' || n) FROM (SELECT site, count(DISTINCT user_id) AS n FROM clicks_norm GROUP BY site ORDER BY site))
               = (SELECT group_concat(site || '=' || n) FROM (SELECT site, count_distinct_sorted(user_id) AS n FROM site_frames GROUP BY site))
            THEN 'agree' ELSE 'DISAGREE' END AS result;
SELECT 'Q4 hll_count within 3 standard errors' AS question,
       CASE WHEN (SELECT max(abs(e - n) / CAST(n AS REAL)) FROM (SELECT count(DISTINCT user_id) AS n, hll_count(user_id) AS e
                                                       FROM clicks_norm GROUP BY site)) <= 0.0243
            THEN 'agree' ELSE 'DISAGREE' END AS result;

.print
.print == Q5: counters handing out message ids
.print -- relational: upsert with RETURNING
CREATE TABLE seq(name TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE ids_relational(name TEXT, id INTEGER);
CREATE TABLE ids_kv(name TEXT, id INTEGER);
INSERT INTO seq VALUES ('msg:1', 1) ON CONFLICT(name) DO UPDATE SET value = value + 1 RETURNING value;
INSERT INTO seq VALUES ('msg:1', 1) ON CONFLICT(name) DO UPDATE SET value = value + 1 RETURNING value;
INSERT INTO seq VALUES ('msg:2', 1) ON CONFLICT(name) DO UPDATE SET value = value + 1 RETURNING value;
.print -- kv_incr
SELECT kv_incr('msg:1') AS id;
SELECT kv_incr('msg:1') AS id;
SELECT kv_incr('msg:2') AS id;
SELECT 'Q5 counters' AS question,
       CASE WHEN (SELECT group_concat(name || '=' || value) FROM (SELECT * FROM seq ORDER BY name))
               = (SELECT group_concat(name || '=' || value) FROM (SELECT * FROM nosql_counters ORDER BY name))
            THEN 'agree' ELSE 'DISAGREE' END AS result;
.print -- overflow: the upsert silently turns the counter into a REAL; kv_incr refuses
INSERT INTO seq VALUES ('big', 9223372036854775807);
UPDATE seq SET value = value + 1 WHERE name = 'big' RETURNING value, typeof(value);
SELECT kv_incr('big', 9223372036854775807) AS kv_big;
.print -- one more kv_incr('big') is the error "kv_incr: increment or decrement would overflow"
.print -- (this script runs with -bail, so tests/ckey/kv.test shows it)
