-- nested_set.sql: nested sets (technique 14) side by side with the
-- relational answers. Run it with `make demo`, or
--   sqlite3 :memory: < sql/nested_set.sql
-- from the repository root after `make`.
--
-- One deterministic tree of 3000 nodes, stored three ways:
--   adjacency list  nodes(id, parent, name) + recursive CTEs
--   materialized    paths(id, path) with path '/0001/0004/0012/', answered
--   paths           with plain prefix ranges on an index (no functions)
--   nested_set      the virtual table: range scans over gapped labels
-- Five questions, each answered by all three, then one row per question
-- that says 'agree' when all three return the same rows.
.load ./dist/nosql
.headers on
.mode column

-- The tree: node i > 1 hangs under a node with a smaller id, so the
-- rows can be inserted in id order. Some nodes get many children, most
-- are leaves; depth reaches about 10.
CREATE TABLE nodes(id INTEGER PRIMARY KEY, parent INTEGER, name TEXT);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 3000)
INSERT INTO nodes SELECT i, CASE WHEN i = 1 THEN NULL ELSE 1 + (i * 7919) % (i - 1) END, 'node ' || i FROM c;
CREATE INDEX nodes_parent ON nodes(parent);

-- Materialized paths, built once with a recursive CTE.
CREATE TABLE paths(id INTEGER PRIMARY KEY, path TEXT NOT NULL, depth INTEGER);
WITH RECURSIVE p(id, path, depth) AS (
  SELECT id, '/' || printf('%04d', id) || '/', 0 FROM nodes WHERE parent IS NULL
  UNION ALL
  SELECT n.id, p.path || printf('%04d', n.id) || '/', p.depth + 1 FROM nodes n JOIN p ON n.parent = p.id)
INSERT INTO paths SELECT id, path, depth FROM p;
CREATE UNIQUE INDEX paths_path ON paths(path);

-- The nested set, filled by ordinary inserts (each appends a last child).
CREATE VIRTUAL TABLE tree USING nested_set(name TEXT);
INSERT INTO tree(id, parent, name) SELECT id, parent, name FROM nodes ORDER BY id;
INSERT INTO tree(tree) VALUES ('integrity-check');

-- The node the questions are about, and its path.
CREATE TABLE q(id INTEGER, path TEXT, depth INTEGER);
INSERT INTO q SELECT id, path, depth FROM paths WHERE id = 4;
SELECT id AS node, path, depth, (SELECT count(*) FROM nodes) AS tree_size FROM q;

-- The prefix range of a path: paths that start with it are >= it and
-- < it with the final '/' replaced by the next character, '0'.

.print
.print == 1. The subtree of node 4 (proper descendants)
.print -- nested_set:     SELECT id FROM tree WHERE descendant_of = 4
.print -- adjacency list: WITH RECURSIVE s(id) AS (SELECT id FROM nodes WHERE parent = 4
.print --                   UNION ALL SELECT n.id FROM nodes n JOIN s ON n.parent = s.id) SELECT id FROM s
.print "-- mat. paths:     SELECT id FROM paths WHERE path > '/0001/0002/0003/0004/' AND path < '/0001/0002/0003/00040'"
CREATE TEMP TABLE a1 AS SELECT id FROM tree WHERE descendant_of = 4;
CREATE TEMP TABLE b1 AS WITH RECURSIVE s(id) AS (SELECT id FROM nodes WHERE parent = 4
  UNION ALL SELECT n.id FROM nodes n JOIN s ON n.parent = s.id) SELECT id FROM s;
CREATE TEMP TABLE c1 AS SELECT paths.id FROM paths, q
  WHERE paths.path > q.path AND paths.path < substr(q.path, 1, length(q.path) - 1) || '0';
SELECT (SELECT count(*) FROM a1) AS nested_set, (SELECT count(*) FROM b1) AS recursive_cte,
       (SELECT count(*) FROM c1) AS mat_paths, (SELECT group_concat(id, ' ') FROM (SELECT id FROM a1 LIMIT 12)) AS first_rows_preorder;

.print
.print == 2. The ancestors of node 2999, root first
.print -- nested_set:     SELECT id FROM tree WHERE ancestor_of = 2999
.print -- adjacency list: walk up with a recursive CTE, order by level descending
.print -- mat. paths:     the path's own segments: ids whose path is a proper prefix of it
CREATE TEMP TABLE a2 AS SELECT group_concat(id, ' ') AS ids FROM tree WHERE ancestor_of = 2999;
CREATE TEMP TABLE b2 AS SELECT group_concat(id, ' ') AS ids FROM (
  WITH RECURSIVE up(id, lvl) AS (SELECT parent, 1 FROM nodes WHERE id = 2999
    UNION ALL SELECT n.parent, up.lvl + 1 FROM nodes n JOIN up ON n.id = up.id WHERE n.parent IS NOT NULL)
  SELECT id FROM up ORDER BY lvl DESC);
CREATE TEMP TABLE c2 AS SELECT group_concat(a.id, ' ') AS ids FROM (
  SELECT a.id FROM paths a, paths x WHERE x.id = 2999 AND a.id != x.id
     AND a.path = substr(x.path, 1, length(a.path)) ORDER BY a.depth) AS a;
SELECT a2.ids AS nested_set, b2.ids AS recursive_cte, c2.ids AS mat_paths FROM a2, b2, c2;

.print
.print == 3. The leaves under node 4
.print -- nested_set:     SELECT id FROM tree WHERE leaves_of = 4  (Katsov's leaf range)
.print -- adjacency list: the recursive subtree, keeping nodes without children
.print -- mat. paths:     the prefix range, keeping paths that prefix no other path
CREATE TEMP TABLE a3 AS SELECT id FROM tree WHERE leaves_of = 4;
CREATE TEMP TABLE b3 AS WITH RECURSIVE s(id) AS (SELECT 4 UNION ALL SELECT n.id FROM nodes n JOIN s ON n.parent = s.id)
  SELECT id FROM s WHERE NOT EXISTS (SELECT 1 FROM nodes c WHERE c.parent = s.id);
CREATE TEMP TABLE c3 AS SELECT p.id FROM paths p, q
  WHERE p.path >= q.path AND p.path < substr(q.path, 1, length(q.path) - 1) || '0'
    AND NOT EXISTS (SELECT 1 FROM paths c WHERE c.path > p.path AND c.path < substr(p.path, 1, length(p.path) - 1) || '0');
SELECT (SELECT count(*) FROM a3) AS nested_set, (SELECT count(*) FROM b3) AS recursive_cte,
       (SELECT count(*) FROM c3) AS mat_paths, (SELECT group_concat(id, ' ') FROM (SELECT id FROM a3 LIMIT 12)) AS first_leaves;

.print
.print == 4. Descendants of node 4 at most 2 levels down (children and grandchildren)
.print -- nested_set:     SELECT id FROM tree WHERE descendant_of = 4 AND depth <= (depth of 4) + 2
.print -- adjacency list: recursive CTE with a level counter that stops at 2
.print -- mat. paths:     prefix range plus depth <= (depth of 4) + 2
CREATE TEMP TABLE a4 AS SELECT id, depth FROM tree WHERE descendant_of = 4 AND depth <= (SELECT depth FROM q) + 2;
CREATE TEMP TABLE b4 AS WITH RECURSIVE s(id, lvl) AS (SELECT id, 1 FROM nodes WHERE parent = 4
  UNION ALL SELECT n.id, s.lvl + 1 FROM nodes n JOIN s ON n.parent = s.id WHERE s.lvl < 2)
  SELECT id, lvl + (SELECT depth FROM q) AS depth FROM s;
CREATE TEMP TABLE c4 AS SELECT p.id, p.depth FROM paths p, q
  WHERE p.path > q.path AND p.path < substr(q.path, 1, length(q.path) - 1) || '0' AND p.depth <= q.depth + 2;
SELECT (SELECT count(*) FROM a4) AS nested_set, (SELECT count(*) FROM b4) AS recursive_cte,
       (SELECT count(*) FROM c4) AS mat_paths, (SELECT group_concat(id, ' ') FROM (SELECT id FROM a4 LIMIT 12)) AS first_rows;

.print
.print == 5. Descendant counts of the children of node 16
.print -- nested_set:     (SELECT count(*) FROM tree d WHERE d.descendant_of = c.id) per child c
.print -- adjacency list: one recursive CTE from all children, grouped by the child it started from
.print -- mat. paths:     one prefix-range count per child
CREATE TEMP TABLE a5 AS SELECT c.id, (SELECT count(*) FROM tree d WHERE d.descendant_of = c.id) AS n
  FROM tree c WHERE c.children_of = 16;
CREATE TEMP TABLE b5 AS WITH RECURSIVE s(root, id) AS (SELECT id, id FROM nodes WHERE parent = 16
  UNION ALL SELECT s.root, n.id FROM nodes n JOIN s ON n.parent = s.id)
  SELECT root AS id, count(*) - 1 AS n FROM s GROUP BY root;
CREATE TEMP TABLE c5 AS SELECT p.id, (SELECT count(*) FROM paths d
    WHERE d.path > p.path AND d.path < substr(p.path, 1, length(p.path) - 1) || '0') AS n
  FROM paths p WHERE p.path LIKE (SELECT path FROM paths WHERE id = 16) || '%/' AND p.depth = (SELECT depth + 1 FROM paths WHERE id = 16);
SELECT id AS child, n AS descendants FROM a5 ORDER BY n DESC LIMIT 5;

.print
SELECT question, CASE WHEN ok THEN 'agree' ELSE 'DISAGREE' END AS result FROM (
  SELECT 1 AS k, 'subtree' AS question,
         (SELECT count(*) FROM (SELECT id FROM a1 EXCEPT SELECT id FROM b1)) = 0
     AND (SELECT count(*) FROM (SELECT id FROM b1 EXCEPT SELECT id FROM c1)) = 0
     AND (SELECT count(*) FROM a1) = (SELECT count(*) FROM b1)
     AND (SELECT count(*) FROM b1) = (SELECT count(*) FROM c1) AS ok
  UNION ALL
  SELECT 2, 'ancestors, root first', (SELECT ids FROM a2) = (SELECT ids FROM b2) AND (SELECT ids FROM b2) = (SELECT ids FROM c2)
  UNION ALL
  SELECT 3, 'leaves under a node',
         (SELECT count(*) FROM (SELECT id FROM a3 EXCEPT SELECT id FROM b3)) = 0
     AND (SELECT count(*) FROM (SELECT id FROM b3 EXCEPT SELECT id FROM c3)) = 0
     AND (SELECT count(*) FROM a3) = (SELECT count(*) FROM b3)
     AND (SELECT count(*) FROM b3) = (SELECT count(*) FROM c3)
  UNION ALL
  SELECT 4, 'depth-limited descendants',
         (SELECT count(*) FROM (SELECT * FROM a4 EXCEPT SELECT * FROM b4)) = 0
     AND (SELECT count(*) FROM (SELECT * FROM b4 EXCEPT SELECT * FROM c4)) = 0
     AND (SELECT count(*) FROM a4) = (SELECT count(*) FROM b4)
     AND (SELECT count(*) FROM b4) = (SELECT count(*) FROM c4)
  UNION ALL
  SELECT 5, 'descendant counts',
         (SELECT count(*) FROM (SELECT * FROM a5 EXCEPT SELECT * FROM b5)) = 0
     AND (SELECT count(*) FROM (SELECT * FROM b5 EXCEPT SELECT * FROM c5)) = 0
     AND (SELECT count(*) FROM a5) = (SELECT count(*) FROM b5)
     AND (SELECT count(*) FROM b5) = (SELECT count(*) FROM c5)
) ORDER BY k;
