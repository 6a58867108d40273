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
-- recursive CTE over the undirected edges. One line per question: 'agree'
-- when both give the same answer (ranks to 1e-9).
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
) ORDER BY k;
