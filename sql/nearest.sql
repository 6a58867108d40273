-- nearest.sql: "the k places nearest to me" (Redis GEOSEARCH ... ASC COUNT k,
-- PostGIS ORDER BY geom <-> point LIMIT k), side by side. Run it with
-- `make demo`, or
--   sqlite3 :memory: < sql/nearest.sql
-- from the repository root after `make`.
--
-- One question, "the 10 points nearest to here", answered four ways on the
-- same table:
--   1. full scan: every distance with geo_distance, sorted, LIMIT k;
--   2. guess a radius and retry: the radius recipe of sql/geohash.sql from
--      20 km, doubled until the circle holds k points (what a user must
--      write without a nearest-neighbour search), then sorted;
--   3. geo_nearest over the table's geohash index (rings of covers);
--   4. geo_nearest over a copy without the recipe (a scan inside C).
-- The centres include a point across the antimeridian and the north pole.
-- The question ends with a row saying 'agree' when every way returns the
-- same ids at the same distances ('DISAGREE' otherwise).
.load ./dist/nosql
.headers on
.mode column

-- 20000 deterministic points: most over Europe, some around Fiji, where the
-- antimeridian runs, and a few on the north pole.
CREATE TABLE places(id INTEGER PRIMARY KEY, lat REAL, lon REAL,
                    gh TEXT GENERATED ALWAYS AS (geohash(lat, lon)) STORED);
WITH RECURSIVE g(i, x, y) AS (
  SELECT 1, 12345, 678
  UNION ALL
  SELECT i + 1, (x * 1103515245 + 12345) % 2147483648, (y * 69069 + 1) % 4294967296 FROM g WHERE i < 20000),
u AS (SELECT i, x / 2147483648.0 AS a, y / 4294967296.0 AS b FROM g)
INSERT INTO places(id, lat, lon)
SELECT i,
       CASE WHEN i % 10 = 0 THEN -25 + a * 15 WHEN i % 97 = 0 THEN 89 + a ELSE 35 + a * 25 END,
       CASE WHEN i % 10 = 0 THEN (CASE WHEN b < 0.5 THEN 175 + b * 10 ELSE -185 + b * 10 END)
            ELSE -10 + b * 40 END
  FROM u;
CREATE INDEX places_gh ON places(gh, lat, lon);
CREATE TABLE places_plain(id INTEGER PRIMARY KEY, lat REAL, lon REAL);
INSERT INTO places_plain SELECT id, lat, lon FROM places;

CREATE TABLE here(name TEXT, lat REAL, lon REAL, k INTEGER);
INSERT INTO here VALUES ('Paris', 48.8566, 2.3522, 10),
                        ('Suva, across 180', -18.1416, 178.4419, 10),
                        ('the north pole', 90, 0, 10),
                        ('mid-Atlantic, far from every point', 30, -40, 3);

.print
.print -- How each geo_nearest reads its table.
SELECT plan_words FROM nosql_explain('SELECT * FROM geo_nearest(''places'', ''lat'', ''lon'', 48.8566, 2.3522, 10)');
SELECT plan_words FROM nosql_explain('SELECT * FROM geo_nearest(''places_plain'', ''lat'', ''lon'', 48.8566, 2.3522, 10)');

.print
.print -- The 10 nearest to Paris, the NoSQL way.
SELECT n.id, round(n.distance_m) AS metres, round(p.lat, 4) AS lat, round(p.lon, 4) AS lon
  FROM geo_nearest('places', 'lat', 'lon', 48.8566, 2.3522, 10) n JOIN places p ON p.id = n.id;

.print
.print -- Every way, per centre: the ids in order and their distances.
CREATE TEMP TABLE answers(name TEXT, way TEXT, rank INTEGER, id INTEGER, d REAL);

-- 1. The full scan.
INSERT INTO answers
SELECT h.name, 'full scan', r.rn, r.id, r.d FROM here h,
       (SELECT hh.name AS nm, p.id, geo_distance(p.lat, p.lon, hh.lat, hh.lon) AS d,
               row_number() OVER (PARTITION BY hh.name ORDER BY geo_distance(p.lat, p.lon, hh.lat, hh.lon), p.id) AS rn
          FROM here hh, places p) r
 WHERE r.nm = h.name AND r.rn <= h.k;

-- 2. Guess a radius, retry with double until k points are inside, then sort.
WITH RECURSIVE tries(name, lat, lon, k, r, found) AS (
  SELECT name, lat, lon, k, 20000.0, -1 FROM here
  UNION ALL
  SELECT name, lat, lon, k, 2 * r,
         (SELECT count(*) FROM geohash_cover(t.lat, t.lon, t.r) c JOIN places p ON p.gh >= c.lo AND p.gh < c.hi
           WHERE geo_distance(p.lat, p.lon, t.lat, t.lon) <= t.r)
    FROM tries t WHERE t.found < t.k AND t.r < 20037508),
radius AS (SELECT name, lat, lon, k, min(r) / 2 AS r FROM tries WHERE found >= k OR r >= 20037508 GROUP BY name)
INSERT INTO answers
SELECT name, 'radius guess and retry', rn, id, d FROM (
  SELECT q.name, q.k, p.id, geo_distance(p.lat, p.lon, q.lat, q.lon) AS d,
         row_number() OVER (PARTITION BY q.name ORDER BY geo_distance(p.lat, p.lon, q.lat, q.lon), p.id) AS rn
    FROM radius q, geohash_cover(q.lat, q.lon, q.r) c JOIN places p ON p.gh >= c.lo AND p.gh < c.hi
   WHERE geo_distance(p.lat, p.lon, q.lat, q.lon) <= q.r)
 WHERE rn <= k;

-- 3. and 4. geo_nearest, with and without the recipe.
INSERT INTO answers
SELECT h.name, 'geo_nearest, geohash rings', n.rowid, n.id, n.distance_m
  FROM here h, geo_nearest('places', 'lat', 'lon', h.lat, h.lon, h.k) n;
INSERT INTO answers
SELECT h.name, 'geo_nearest, scan', n.rowid, n.id, n.distance_m
  FROM here h, geo_nearest('places_plain', 'lat', 'lon', h.lat, h.lon, h.k) n;

SELECT name, way, count(*) AS points, group_concat(id, ' ') AS ids, round(max(d)) AS kth_metres
  FROM (SELECT * FROM answers ORDER BY name, way, rank) GROUP BY name, way ORDER BY name, way;

.print
SELECT 'the k nearest points' AS question,
       CASE WHEN (SELECT count(*) FROM (
                    SELECT name, rank, id, d, count(*) AS n FROM answers GROUP BY name, rank, id, d) WHERE n != 4) = 0
             AND (SELECT count(DISTINCT way) FROM answers) = 4
             AND (SELECT count(*) FROM answers) = 4 * (SELECT sum(k) FROM here)
            THEN 'agree' ELSE 'DISAGREE' END AS result;
