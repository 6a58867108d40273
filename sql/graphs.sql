-- graphs.sql: adjacency lists (technique 12) side by side with the
-- relational answers. Run it with `make demo`, or
--   sqlite3 :memory: < sql/graphs.sql
-- from the repository root after `make`.
--
-- A deterministic social graph of 2000 people and about 10000 "follows"
-- edges (with cycles, self-loops and duplicates), and the same people's
-- follow lists as JSON arrays (Katsov's document layout). Four questions,
-- each answered by graph_walk / graph_path and by a recursive CTE (with the
-- guard SQLite lacks written out: a depth bound, and min() over the depths
-- a node is reached at), then one row per question: 'agree' when both give
-- the same rows.
.load ./dist/nosql
.headers on
.mode column

CREATE TABLE follows(src INTEGER, dst INTEGER);
WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i WHERE n < 9999)
INSERT INTO follows SELECT (n * 7919) % 2000, ((n * 104729) % 1999 + n / 5000) % 2000 FROM i;
CREATE INDEX follows_src ON follows(src);
CREATE INDEX follows_dst ON follows(dst);
-- The document layout: one row per person, the people they follow as a JSON array.
CREATE TABLE people(id INTEGER PRIMARY KEY, follows TEXT);
INSERT INTO people SELECT src, json_group_array(dst) FROM follows GROUP BY src;
SELECT (SELECT count(*) FROM follows) AS edges, (SELECT count(*) FROM people) AS people_with_edges;

.print
.print == 1. Friends of friends of person 7: everyone within 2 hops
.print "-- graph_walk:    SELECT node, depth FROM graph_walk('follows', 'src', 'dst', 7, 2)"
.print -- recursive CTE: WITH RECURSIVE r(n, d) AS (SELECT 7, 0 UNION SELECT f.dst, r.d + 1 FROM r
.print --                  JOIN follows f ON f.src = r.n WHERE r.d < 2) SELECT n, min(d) FROM r GROUP BY n
CREATE TEMP TABLE a1 AS SELECT node AS n, depth AS d FROM graph_walk('follows', 'src', 'dst', 7, 2);
CREATE TEMP TABLE b1 AS WITH RECURSIVE r(n, d) AS (SELECT 7, 0 UNION SELECT f.dst, r.d + 1 FROM r
  JOIN follows f ON f.src = r.n WHERE r.d < 2) SELECT n, min(d) AS d FROM r GROUP BY n;
SELECT d AS hops, count(*) AS people FROM a1 GROUP BY d;

.print
.print == 2. Who can reach person 7 at all (edges followed backwards, no depth limit)
.print "-- graph_walk:    SELECT node FROM graph_walk('follows', 'src', 'dst', 7, NULL, 'in')"
.print -- recursive CTE: needs a depth bound to stop on cycles, guessed: 12 (graph_walk finds 6 is enough);
.print --                every node is visited again at each depth some route reaches it
CREATE TEMP TABLE a2 AS SELECT node AS n, depth AS d FROM graph_walk('follows', 'src', 'dst', 7, NULL, 'in');
CREATE TEMP TABLE b2 AS WITH RECURSIVE r(n, d) AS (SELECT 7, 0 UNION SELECT f.src, r.d + 1 FROM r
  JOIN follows f ON f.dst = r.n WHERE r.d < 12) SELECT n, min(d) AS d FROM r GROUP BY n;
SELECT count(*) AS can_reach_7, max(d) AS farthest_hops FROM a2;

.print
.print == 3. A shortest chain of follows from person 7 to person 1234
.print "-- graph_path:    SELECT step, node FROM graph_path('follows', 'src', 'dst', 7, 1234)"
.print -- recursive CTE: the hop count of the shortest route (bounded depth, min over routes)
CREATE TEMP TABLE a3 AS SELECT step, node FROM graph_path('follows', 'src', 'dst', 7, 1234);
CREATE TEMP TABLE b3 AS WITH RECURSIVE r(n, d) AS (SELECT 7, 0 UNION SELECT f.dst, r.d + 1 FROM r
  JOIN follows f ON f.src = r.n WHERE r.d < 8) SELECT min(d) AS d FROM r WHERE n = 1234;
SELECT group_concat(node, ' -> ') AS route_by_graph_path, (SELECT d FROM b3) AS hops_by_cte FROM a3;

.print
.print == 4. The same walk over the JSON layout (people.follows arrays)
.print "-- graph_walk:    SELECT node, depth FROM graph_walk('people', 'id', 'follows', 7, 3, 'out', 'json')"
.print -- recursive CTE: json_each in the recursive term
CREATE TEMP TABLE a4 AS SELECT node AS n, depth AS d FROM graph_walk('people', 'id', 'follows', 7, 3, 'out', 'json');
CREATE TEMP TABLE b4 AS WITH RECURSIVE r(n, d) AS (SELECT 7, 0 UNION SELECT j.value, r.d + 1 FROM r
  JOIN people p ON p.id = r.n, json_each(p.follows) AS j WHERE r.d < 3) SELECT n, min(d) AS d FROM r GROUP BY n;
SELECT count(*) AS within_3_hops FROM a4;

.print
SELECT question, CASE WHEN ok THEN 'agree' ELSE 'DISAGREE' END AS result FROM (
  SELECT 1 AS k, 'friends of friends (2 hops)' AS question,
         (SELECT count(*) FROM a1) > 10
     AND NOT EXISTS (SELECT n, d FROM a1 EXCEPT SELECT n, d FROM b1)
     AND NOT EXISTS (SELECT n, d FROM b1 EXCEPT SELECT n, d FROM a1) AS ok
  UNION ALL
  SELECT 2, 'who can reach 7',
         (SELECT count(*) FROM a2) > 10
     AND NOT EXISTS (SELECT n, d FROM a2 EXCEPT SELECT n, d FROM b2)
     AND NOT EXISTS (SELECT n, d FROM b2 EXCEPT SELECT n, d FROM a2)
  UNION ALL
  -- Several routes may be shortest: the two must have the same length, and
  -- the graph_path route must be made of real edges.
  SELECT 3, 'shortest route 7 -> 1234',
         (SELECT max(step) FROM a3) = (SELECT d FROM b3)
     AND (SELECT count(*) FROM a3 x JOIN a3 y ON y.step = x.step + 1
           WHERE NOT EXISTS (SELECT 1 FROM follows WHERE src = x.node AND dst = y.node)) = 0
     AND (SELECT count(*) FROM a3) > 2
  UNION ALL
  SELECT 4, 'JSON layout, 3 hops',
         (SELECT count(*) FROM a4) > 10
     AND NOT EXISTS (SELECT n, d FROM a4 EXCEPT SELECT n, d FROM b4)
     AND NOT EXISTS (SELECT n, d FROM b4 EXCEPT SELECT n, d FROM a4)
) ORDER BY k;
