-- graph_batch.sql: batch graph processing (technique 17) side by side with
-- the SQL superstep loop. Run it with `make demo`, or
--   sqlite3 :memory: < sql/graph_batch.sql
-- from the repository root after `make`.
--
-- A small web graph (400 pages, about 2000 links, dangling pages, a
-- self-link and a duplicate) and a social graph of 600 people in several
-- circles. PageRank by graph_pagerank and by networkx's iteration written
-- in SQL (a recursive CTE carrying the rank vector as JSON: a CTE cannot
-- aggregate in its recursive part, so each superstep is a correlated
-- subquery per page); connected components by graph_components and by a
-- recursive CTE over the undirected edges; local clustering by
-- graph_clustering and by a three-way self-join of the undirected edges;
-- closeness by graph_closeness and by all-pairs hop distances from a
-- recursive CTE (a small road graph of two components, a self-loop and a
-- duplicate road). One line per question: 'agree' when both give the same
-- answer (ranks to 1e-9, clustering and closeness to 1e-12).
.load ./dist/nosql
.headers on
.mode column

CREATE TABLE links(src INTEGER, dst INTEGER);
WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i WHERE n < 1999)
INSERT INTO links SELECT (n * 7919) % 390, ((n * 104729) % 397 + n / 1000) % 400 FROM i;
INSERT INTO links VALUES (1, 1), (2, 3), (2, 3);
CREATE INDEX links_src ON links(src);
CREATE INDEX links_dst ON links(dst);
CREATE TABLE pages AS SELECT src AS n FROM links UNION SELECT dst FROM links;
CREATE TABLE outdeg AS SELECT n, (SELECT count(*) FROM links WHERE src = pages.n) AS d FROM pages;
SELECT (SELECT count(*) FROM links) AS links, (SELECT count(*) FROM pages) AS pages,
       (SELECT count(*) FROM outdeg WHERE d = 0) AS dangling;

.print
.print == 1. PageRank, 40 iterations (damping 0.85)
.print "-- graph_pagerank: SELECT node, rank FROM graph_pagerank('links', 'src', 'dst', 0.85, 0, 40)"
.print "-- SQL superstep:  rank'(v) = 0.85 * (sum over in-links of rank(u) / outdeg(u) + dangling / N) + 0.15 / N"
CREATE TEMP TABLE a1 AS SELECT node AS n, rank FROM graph_pagerank('links', 'src', 'dst', 0.85, 0, 40);
CREATE TEMP TABLE b1 AS
WITH RECURSIVE r(i, v) AS (
  SELECT 0, (SELECT json_group_object(n, 1.0 / (SELECT count(*) FROM pages)) FROM pages)
  UNION ALL
  SELECT i + 1, (SELECT json_group_object(p.n, 0.85 * (
      ifnull((SELECT sum(json_extract(r.v, '$."' || l.src || '"') / o.d) FROM links l JOIN outdeg o ON o.n = l.src
              WHERE l.dst = p.n), 0)
      + (SELECT sum(json_extract(r.v, '$."' || o.n || '"')) FROM outdeg o WHERE o.d = 0) / (SELECT count(*) FROM pages))
      + 0.15 / (SELECT count(*) FROM pages))
    FROM pages p) FROM r WHERE i < 40)
SELECT CAST(j.key AS INTEGER) AS n, j.value AS rank FROM r, json_each(r.v) j WHERE r.i = 40;
SELECT n AS top_page, printf('%.6f', rank) AS rank FROM a1 ORDER BY rank DESC LIMIT 5;

.print
.print == 2. Connected components of a social graph (each labelled by its smallest member)
.print "-- graph_components: SELECT node, component FROM graph_components('knows', 'a', 'b')"
.print "-- recursive CTE:    reach(s, t) over the edges both ways, then min(t) per s"
CREATE TABLE knows(a INTEGER, b INTEGER);
WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i WHERE n < 1199)
INSERT INTO knows SELECT (n % 6) * 100 + (n * 37) % 97, (n % 6) * 100 + (n * 53) % 89 FROM i;
CREATE TEMP TABLE a2 AS SELECT node AS n, component AS c FROM graph_components('knows', 'a', 'b');
CREATE TEMP TABLE b2 AS
WITH RECURSIVE u(x, y) AS (SELECT a, b FROM knows UNION SELECT b, a FROM knows),
  reach(s, t) AS (SELECT x, x FROM u UNION SELECT reach.s, u.y FROM reach JOIN u ON u.x = reach.t)
SELECT s AS n, min(t) AS c FROM reach GROUP BY s;
SELECT c AS component, count(*) AS people FROM a2 GROUP BY c ORDER BY c;

.print
.print == 3. Local clustering of the social graph (networkx's clustering, undirected)
.print "-- graph_clustering: SELECT node, clustering FROM graph_clustering('knows', 'a', 'b')"
.print "-- SQL: the undirected simple edges, triangles by a three-way self-join, 2T / (d (d - 1))"
CREATE TEMP TABLE a3 AS SELECT node AS n, clustering AS c FROM graph_clustering('knows', 'a', 'b');
CREATE TEMP TABLE u3 AS SELECT a AS x, b AS y FROM knows WHERE a <> b UNION SELECT b, a FROM knows WHERE a <> b;
CREATE INDEX u3_xy ON u3(x, y);
CREATE TEMP TABLE b3 AS
SELECT n, CASE WHEN d < 2 THEN 0.0 ELSE 2.0 * t / (d * (d - 1)) END AS c FROM (
  SELECT p.n, (SELECT count(*) FROM u3 WHERE x = p.n) AS d,
         (SELECT count(*) FROM u3 u1 JOIN u3 u2 ON u2.x = u1.x AND u2.y > u1.y
            JOIN u3 e ON e.x = u1.y AND e.y = u2.y WHERE u1.x = p.n) AS t
  FROM (SELECT a AS n FROM knows UNION SELECT b FROM knows) p);
SELECT printf('%.6f', avg(c)) AS average_clustering, sum(c = 1) AS in_closed_neighbourhoods FROM a3;

.print
.print == 4. Closeness of a small road graph (inward hop distances, Wasserman-Faust scaling)
.print "-- graph_closeness: SELECT node, closeness FROM graph_closeness('roads', 'a', 'b')"
.print "-- recursive CTE:   every (from, to, hops) by a breadth-first search per node, min(hops), then (r / d) * r / (n - 1)"
CREATE TABLE roads(a INTEGER, b INTEGER);
WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i WHERE n < 38)
INSERT INTO roads SELECT n, n + 1 FROM i UNION ALL SELECT n, (n * 7) % 40 FROM i WHERE n % 3 = 0;
INSERT INTO roads VALUES (50, 51), (51, 52), (52, 50), (3, 3), (3, 4);
CREATE TEMP TABLE a4 AS SELECT node AS n, closeness AS c FROM graph_closeness('roads', 'a', 'b');
CREATE TEMP TABLE b4 AS
WITH RECURSIVE nodes(n) AS (SELECT a FROM roads UNION SELECT b FROM roads),
  walk(s, t, h) AS (SELECT n, n, 0 FROM nodes UNION SELECT walk.s, r.b, walk.h + 1 FROM walk JOIN roads r ON r.a = walk.t
                    WHERE walk.h < 60),
  dist AS (SELECT s, t, min(h) AS h FROM walk GROUP BY s, t),
  inward AS (SELECT t AS n, count(*) - 1 AS r, sum(h) AS d FROM dist GROUP BY t)
SELECT n, CASE WHEN d > 0 THEN (1.0 * r / d) * r / ((SELECT count(*) FROM nodes) - 1) ELSE 0.0 END AS c FROM inward;
SELECT n AS most_central, printf('%.6f', c) AS closeness FROM a4 ORDER BY c DESC, n LIMIT 3;

.print
SELECT question, CASE WHEN ok THEN 'agree' ELSE 'DISAGREE' END AS result FROM (
  SELECT 1 AS k, 'PageRank (40 iterations, 1e-9)' AS question,
         (SELECT count(*) FROM a1) = (SELECT count(*) FROM pages) AND (SELECT count(*) FROM a1) > 100
     AND (SELECT count(*) FROM a1 JOIN b1 USING (n) WHERE abs(a1.rank - b1.rank) < 1e-9) = (SELECT count(*) FROM a1)
     AND abs((SELECT sum(rank) FROM a1) - 1) < 1e-9 AS ok
  UNION ALL
  SELECT 2, 'connected components',
         (SELECT count(*) FROM a2) > 100 AND (SELECT count(DISTINCT c) FROM a2) > 1
     AND NOT EXISTS (SELECT n, c FROM a2 EXCEPT SELECT n, c FROM b2)
     AND NOT EXISTS (SELECT n, c FROM b2 EXCEPT SELECT n, c FROM a2)
  UNION ALL
  SELECT 3, 'local clustering (1e-12)',
         (SELECT count(*) FROM a3) = (SELECT count(*) FROM b3) AND (SELECT count(*) FROM a3 WHERE c > 0) > 10
     AND (SELECT count(*) FROM a3 JOIN b3 USING (n) WHERE abs(a3.c - b3.c) < 1e-12) = (SELECT count(*) FROM a3)
  UNION ALL
  SELECT 4, 'closeness (1e-12)',
         (SELECT count(*) FROM a4) = (SELECT count(*) FROM b4) AND (SELECT count(DISTINCT c) FROM a4) > 5
     AND (SELECT count(*) FROM a4 JOIN b4 USING (n) WHERE abs(a4.c - b4.c) < 1e-12) = (SELECT count(*) FROM a4)
) ORDER BY k;
