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
-- the same rows. Last, a comment thread as one document (tree_json) against
-- the hand-nested json_group_array query SQL needs, and back (tree_rows).
-- Last, the route again from a graph_index, the persistent adjacency copy.
-- nosql_compare's median_us and ratio move from run to run:
-- timing column: 4
-- timing column: 5
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
.print == 5. A comment thread as one document (technique 11, tree aggregation)
.print "-- tree_json:      SELECT tree_json(id, parent, json_object('author', author, 'body', body)) FROM comments"
.print "-- relational:     one json_group_array subquery per level, nested by hand: SQLite refuses"
.print "--                 aggregates in the recursive part of a CTE, so the nesting depth is fixed"
.print "--                 by the query text and deeper comments are silently dropped."
.print "-- application:    one query per level (a round trip each), or fetch rows and build the tree."
CREATE TABLE comments(id INTEGER PRIMARY KEY, parent INTEGER, author TEXT, body TEXT);
-- 10 threads, 400 comments, at most 3 levels of replies (so the hand-nested query can answer).
WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < 400)
INSERT INTO comments SELECT n,
  CASE WHEN n <= 10 THEN NULL WHEN n <= 60 THEN n % 10 + 1 WHEN n <= 200 THEN 11 + n % 50 ELSE 61 + n % 140 END,
  'user' || (n * 7 % 23), 'comment ' || n FROM i;
CREATE INDEX comments_parent ON comments(parent);
CREATE TEMP TABLE a5 AS SELECT tree_json(id, parent, json_object('author', author, 'body', body)) AS doc
  FROM (SELECT * FROM comments ORDER BY id);
CREATE TEMP TABLE b5 AS SELECT json_group_array(json_object('id', c0.id, 'author', c0.author, 'body', c0.body,
  'children', (SELECT json_group_array(json_object('id', c1.id, 'author', c1.author, 'body', c1.body,
    'children', (SELECT json_group_array(json_object('id', c2.id, 'author', c2.author, 'body', c2.body,
      'children', (SELECT json_group_array(json_object('id', c3.id, 'author', c3.author, 'body', c3.body,
        'children', json_array()))
        FROM (SELECT * FROM comments WHERE parent = c2.id ORDER BY id) c3)))
      FROM (SELECT * FROM comments WHERE parent = c1.id ORDER BY id) c2)))
    FROM (SELECT * FROM comments WHERE parent = c0.id ORDER BY id) c1))) AS doc
  FROM (SELECT * FROM comments WHERE parent IS NULL ORDER BY id) c0;
SELECT json_array_length(doc) AS threads, length(doc) AS bytes,
  json_extract(doc, '$[0].children[0].children[0].body') AS first_reply_of_a_reply FROM a5;
-- And back: tree_rows gives every comment with its depth.
CREATE TEMP TABLE c5 AS SELECT id, parent, depth FROM tree_rows((SELECT doc FROM a5));
CREATE TEMP TABLE d5 AS WITH RECURSIVE r(id, parent, depth) AS (
  SELECT id, parent, 0 FROM comments WHERE parent IS NULL
  UNION ALL SELECT c.id, c.parent, r.depth + 1 FROM comments c JOIN r ON c.parent = r.id)
  SELECT * FROM r;
SELECT depth, count(*) AS comments FROM c5 GROUP BY depth;

.print
.print == 6. The route of question 3 again, from a graph_index (a persistent adjacency copy:
.print ==    node numbers and neighbour blocks kept exact by triggers; docs/graphs.md)
.print "-- CREATE VIRTUAL TABLE fg USING graph_index(follows_g, src, dst)"
.print "-- graph_path:    SELECT step, node FROM graph_path('fg', NULL, NULL, 7, 1234)"
.print -- and nosql_compare() of the route read from the table and from the index
CREATE TABLE follows_g(id INTEGER PRIMARY KEY, src INTEGER, dst INTEGER);
INSERT INTO follows_g(id, src, dst) SELECT rowid, src, dst FROM follows ORDER BY rowid;
CREATE INDEX follows_g_src ON follows_g(src);
CREATE INDEX follows_g_dst ON follows_g(dst);
CREATE VIRTUAL TABLE fg USING graph_index(follows_g, src, dst);
SELECT count(*) AS nodes, sum(out_degree) AS edges FROM fg;
CREATE TEMP TABLE a6 AS SELECT step, node FROM graph_path('fg', NULL, NULL, 7, 1234);
SELECT label AS route_from, rows, agree, median_us, ratio
  FROM nosql_compare('SELECT step, node FROM graph_path(''follows'', ''src'', ''dst'', 7, 1234)',
                     'SELECT step, node FROM graph_path(''fg'', NULL, NULL, 7, 1234)', 5, 'edge table', 'graph_index');

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
  UNION ALL
  -- The same document text from tree_json and from the hand-nested query,
  -- and the same (id, parent, depth) rows from tree_rows and a recursive CTE.
  SELECT 5, 'comment thread as one document',
         (SELECT doc FROM a5) = (SELECT doc FROM b5) AND (SELECT json_array_length(doc) FROM a5) = 10
     AND (SELECT count(*) FROM c5) = 400
     AND NOT EXISTS (SELECT id, parent, depth FROM c5 EXCEPT SELECT id, parent, depth FROM d5)
     AND NOT EXISTS (SELECT id, parent, depth FROM d5 EXCEPT SELECT id, parent, depth FROM c5)
  UNION ALL
  -- The route from the graph_index is the route from the table, step by step.
  SELECT 6, 'route from a graph_index',
         (SELECT count(*) FROM a6) > 2
     AND NOT EXISTS (SELECT step, node FROM a6 EXCEPT SELECT step, node FROM a3)
     AND NOT EXISTS (SELECT step, node FROM a3 EXCEPT SELECT step, node FROM a6)
) ORDER BY k;
