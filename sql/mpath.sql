-- mpath.sql: materialized paths (technique 13) side by side with the
-- adjacency list and a recursive CTE, and with LIKE/GLOB on the same path
-- column. Run it with `make demo`, or
--   sqlite3 :memory: < sql/mpath.sql
-- from the repository root after `make`.
--
-- The article's eShop category hierarchy: each category row keeps its
-- parent (the relational adjacency list) and its materialized path, the
-- labels from the root down to itself. Products hang off categories.
.load ./dist/nosql
.headers on
.mode column

CREATE TABLE category(
  id INTEGER PRIMARY KEY,
  parent_id INTEGER REFERENCES category(id),
  label TEXT NOT NULL,
  path TEXT NOT NULL UNIQUE          -- materialized path; UNIQUE gives the index
);
CREATE INDEX category_parent ON category(parent_id);

INSERT INTO category(id, parent_id, label, path) VALUES
  (1, NULL, 'Catalog', 'Catalog'),
  (2, 1, 'Men', 'Catalog.Men'),
  (3, 2, 'Shoes', 'Catalog.Men.Shoes'),
  (4, 3, 'Sneakers', 'Catalog.Men.Shoes.Sneakers'),
  (5, 3, 'Boots', 'Catalog.Men.Shoes.Boots'),
  (6, 5, 'Hiking_Boots', 'Catalog.Men.Shoes.Boots.Hiking_Boots'),
  (7, 5, 'Chelsea_Boots', 'Catalog.Men.Shoes.Boots.Chelsea_Boots'),
  (8, 3, 'Sandals', 'Catalog.Men.Shoes.Sandals'),
  (9, 2, 'Shoes-Sale', 'Catalog.Men.Shoes-Sale'),   -- sorts right after 'Shoes'
  (10, 2, 'ShoesCare', 'Catalog.Men.ShoesCare'),    -- shares the prefix 'Shoes'
  (11, 2, 'Clothing', 'Catalog.Men.Clothing'),
  (12, 11, 'Jackets', 'Catalog.Men.Clothing.Jackets'),
  (13, 11, 'Shirts', 'Catalog.Men.Clothing.Shirts'),
  (14, 1, 'Women', 'Catalog.Women'),
  (15, 14, 'Shoes', 'Catalog.Women.Shoes'),
  (16, 15, 'Heels', 'Catalog.Women.Shoes.Heels'),
  (17, 15, 'Boots', 'Catalog.Women.Shoes.Boots'),
  (18, 14, 'Dresses', 'Catalog.Women.Dresses'),
  (19, 1, 'Kids', 'Catalog.Kids'),
  (20, 19, 'Shoes', 'Catalog.Kids.Shoes'),
  (21, 20, 'Sneakers', 'Catalog.Kids.Shoes.Sneakers');

-- Three products per category, deterministic.
CREATE TABLE product(id INTEGER PRIMARY KEY, category_id INTEGER NOT NULL REFERENCES category(id), name TEXT);
CREATE INDEX product_category ON product(category_id);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 63)
INSERT INTO product SELECT i, 1 + (i - 1) / 3, 'item ' || i FROM n;

.print
.print "== 1. Every product under Men's Shoes (the category and all its subcategories)"
.print
.print -- materialized path: one exact index range (MULTI-INDEX OR on the path index)
SELECT p.id, p.name, c.path FROM category c JOIN product p ON p.category_id = c.id
 WHERE c.path = 'Catalog.Men.Shoes'
    OR (c.path >= mpath_lower('Catalog.Men.Shoes') AND c.path < mpath_upper('Catalog.Men.Shoes'))
 ORDER BY p.id;

.print
.print "-- materialized path: mpath_ranges() gives the same rows as two plain index ranges"
SELECT count(*) AS products FROM mpath_ranges('Catalog.Men.Shoes') r
  JOIN category c ON c.path >= r.lo AND c.path < r.hi JOIN product p ON p.category_id = c.id;

.print
.print -- relational: adjacency list walked by a recursive CTE
WITH RECURSIVE sub(id) AS (SELECT 3 UNION ALL SELECT c.id FROM category c JOIN sub ON c.parent_id = sub.id)
SELECT count(*) AS products FROM product WHERE category_id IN sub;

.print
.print "-- GLOB on the path (case-sensitive, so the index can serve 'prefix.*')"
SELECT count(*) AS products FROM category c JOIN product p ON p.category_id = c.id
 WHERE c.path = 'Catalog.Men.Shoes' OR c.path GLOB 'Catalog.Men.Shoes.*';

.print
.print "-- the trap: a bare prefix LIKE also takes 'Shoes-Sale' and 'ShoesCare'"
SELECT count(*) AS products_with_naive_like,
       group_concat(DISTINCT c.label) AS wrongly_included
  FROM category c JOIN product p ON p.category_id = c.id
 WHERE c.path LIKE 'Catalog.Men.Shoes%' AND NOT mpath_is_ancestor('Catalog.Men.Shoes', c.path);

SELECT 'products under Men''s Shoes' AS question,
       CASE WHEN (SELECT group_concat(id) FROM (SELECT p.id FROM category c JOIN product p ON p.category_id = c.id
                   WHERE c.path = 'Catalog.Men.Shoes' OR (c.path >= mpath_lower('Catalog.Men.Shoes')
                         AND c.path < mpath_upper('Catalog.Men.Shoes')) ORDER BY p.id))
               = (SELECT group_concat(id) FROM (WITH RECURSIVE sub(id) AS (SELECT 3 UNION ALL
                   SELECT c.id FROM category c JOIN sub ON c.parent_id = sub.id)
                   SELECT id FROM product WHERE category_id IN sub ORDER BY id))
             AND (SELECT group_concat(id) FROM (SELECT p.id FROM mpath_ranges('Catalog.Men.Shoes') r
                   JOIN category c ON c.path >= r.lo AND c.path < r.hi JOIN product p ON p.category_id = c.id
                   ORDER BY p.id))
               = (SELECT group_concat(id) FROM (SELECT p.id FROM category c JOIN product p ON p.category_id = c.id
                   WHERE c.path = 'Catalog.Men.Shoes' OR c.path GLOB 'Catalog.Men.Shoes.*' ORDER BY p.id))
             AND (SELECT group_concat(id) FROM (SELECT p.id FROM category c JOIN product p ON p.category_id = c.id
                   WHERE c.path = 'Catalog.Men.Shoes' OR c.path GLOB 'Catalog.Men.Shoes.*' ORDER BY p.id))
               = (SELECT group_concat(id) FROM (SELECT p.id FROM category c JOIN product p ON p.category_id = c.id
                   WHERE mpath_match(c.path, 'Catalog.Men.Shoes.*') ORDER BY p.id))
             AND (SELECT group_concat(id) FROM (SELECT p.id FROM category c JOIN product p ON p.category_id = c.id
                   WHERE mpath_match(c.path, 'Catalog.Men.Shoes.*') ORDER BY p.id))
               = (SELECT group_concat(id) FROM (SELECT p.id FROM category c JOIN product p ON p.category_id = c.id
                   WHERE c.path = 'Catalog.Men.Shoes' OR (c.path >= mpath_lower('Catalog.Men.Shoes')
                         AND c.path < mpath_upper('Catalog.Men.Shoes')) ORDER BY p.id))
            THEN 'agree' ELSE 'DISAGREE' END AS result;

.print
.print -- the plans of the materialized-path queries: index searches, no scan
EXPLAIN QUERY PLAN SELECT id FROM category c
 WHERE c.path = 'Catalog.Men.Shoes'
    OR (c.path >= mpath_lower('Catalog.Men.Shoes') AND c.path < mpath_upper('Catalog.Men.Shoes'));
EXPLAIN QUERY PLAN SELECT c.id FROM mpath_ranges('Catalog.Men.Shoes') r
  JOIN category c ON c.path >= r.lo AND c.path < r.hi;

.print
.print == 2. Categories exactly two levels below Men
.print
.print -- materialized path: lquery, narrowed to the subtree range of its literal prefix
SELECT path FROM category
 WHERE (path = mpath_prefix('Catalog.Men.*{2}') OR (path >= mpath_lower(mpath_prefix('Catalog.Men.*{2}'))
        AND path < mpath_upper(mpath_prefix('Catalog.Men.*{2}'))))
   AND mpath_match(path, 'Catalog.Men.*{2}')
 ORDER BY path;

.print
.print -- relational: recursive CTE with a depth counter
WITH RECURSIVE sub(id, depth) AS (SELECT 2, 0 UNION ALL
  SELECT c.id, depth + 1 FROM category c JOIN sub ON c.parent_id = sub.id WHERE depth < 2)
SELECT c.path FROM sub JOIN category c USING (id) WHERE depth = 2 ORDER BY c.path;

.print
.print -- GLOB: two more separators, not three
SELECT path FROM category
 WHERE path GLOB 'Catalog.Men.*.*' AND NOT path GLOB 'Catalog.Men.*.*.*' ORDER BY path;

SELECT 'two levels below Men' AS question,
       CASE WHEN (SELECT group_concat(path) FROM (SELECT path FROM category
                   WHERE (path = mpath_prefix('Catalog.Men.*{2}') OR (path >= mpath_lower(mpath_prefix('Catalog.Men.*{2}'))
                          AND path < mpath_upper(mpath_prefix('Catalog.Men.*{2}'))))
                     AND mpath_match(path, 'Catalog.Men.*{2}') ORDER BY path))
               = (SELECT group_concat(path) FROM (WITH RECURSIVE sub(id, depth) AS (SELECT 2, 0 UNION ALL
                   SELECT c.id, depth + 1 FROM category c JOIN sub ON c.parent_id = sub.id WHERE depth < 2)
                   SELECT c.path FROM sub JOIN category c USING (id) WHERE depth = 2 ORDER BY c.path))
             AND (SELECT group_concat(path) FROM (SELECT path FROM category
                   WHERE path GLOB 'Catalog.Men.*.*' AND NOT path GLOB 'Catalog.Men.*.*.*' ORDER BY path))
               = (SELECT group_concat(path) FROM (SELECT path FROM category
                   WHERE mpath_match(path, 'Catalog.Men.*{2}') ORDER BY path))
             AND (SELECT count(*) FROM category WHERE mpath_match(path, 'Catalog.Men.*{2}')) > 0
            THEN 'agree' ELSE 'DISAGREE' END AS result;

.print
.print == 3. The path from Hiking_Boots to the root
.print
.print "-- materialized path: the ancestors are the prefixes of the node's path (no traversal)"
SELECT c.id, c.label, mpath_nlevel(c.path) AS level FROM category c
 WHERE mpath_is_ancestor(c.path, (SELECT path FROM category WHERE id = 6))
 ORDER BY level DESC;

.print
.print -- relational: recursive CTE up the parent links
WITH RECURSIVE up(id, n) AS (SELECT 6, 0 UNION ALL SELECT c.parent_id, n + 1 FROM category c JOIN up ON c.id = up.id
                             WHERE c.parent_id IS NOT NULL)
SELECT c.id, c.label FROM up JOIN category c USING (id) ORDER BY n;

.print
.print "-- LIKE: the node's path starts with each ancestor's path and a separator"
SELECT c.id, c.label FROM category c, (SELECT path AS p FROM category WHERE id = 6)
 WHERE p = c.path OR substr(p, 1, length(c.path) + 1) = c.path || '.'
 ORDER BY length(c.path) DESC;

SELECT 'path to the root' AS question,
       CASE WHEN (SELECT group_concat(id) FROM (SELECT c.id FROM category c
                   WHERE mpath_is_ancestor(c.path, (SELECT path FROM category WHERE id = 6))
                   ORDER BY mpath_nlevel(c.path) DESC))
               = (SELECT group_concat(id) FROM (WITH RECURSIVE up(id, n) AS (SELECT 6, 0 UNION ALL
                   SELECT c.parent_id, n + 1 FROM category c JOIN up ON c.id = up.id WHERE c.parent_id IS NOT NULL)
                   SELECT id FROM up ORDER BY n))
             AND (SELECT group_concat(id) FROM (SELECT c.id FROM category c, (SELECT path AS p FROM category WHERE id = 6)
                   WHERE p = c.path OR substr(p, 1, length(c.path) + 1) = c.path || '.'
                   ORDER BY length(c.path) DESC))
               = (SELECT group_concat(id) FROM (WITH RECURSIVE up(id, n) AS (SELECT 6, 0 UNION ALL
                   SELECT c.parent_id, n + 1 FROM category c JOIN up ON c.id = up.id WHERE c.parent_id IS NOT NULL)
                   SELECT id FROM up ORDER BY n))
            THEN 'agree' ELSE 'DISAGREE' END AS result;

.print
.print "== 4. Partial pattern: boots of any kind, in any Shoes department ('*.Shoes.*.boots@*')"
.print
.print -- materialized path: lquery (case-insensitive, label prefix)
SELECT path FROM category WHERE mpath_match(path, '*.Shoes.*.boots@*') ORDER BY path;

.print
.print "-- relational: recursive CTE below every 'Shoes' category, then filter labels"
WITH RECURSIVE sub(id) AS (SELECT c.id FROM category c WHERE c.label = 'Shoes'
  UNION SELECT c.id FROM category c JOIN sub ON c.parent_id = sub.id)
SELECT c.path FROM sub JOIN category c USING (id)
 WHERE c.label LIKE 'boots%' AND c.label != 'Shoes' ORDER BY c.path;

.print
.print "-- LIKE (GLOB cannot ignore case): the last label, cut off with rtrim(), LIKE 'boots%'"
SELECT path FROM category
 WHERE path LIKE '%.Shoes.%'
   AND lower(substr(path, length(rtrim(path, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-')) + 1))
       LIKE 'boots%'
 ORDER BY path;

SELECT 'partial pattern' AS question,
       CASE WHEN (SELECT group_concat(path) FROM (SELECT path FROM category
                   WHERE mpath_match(path, '*.Shoes.*.boots@*') ORDER BY path))
               = (SELECT group_concat(path) FROM (WITH RECURSIVE sub(id) AS (SELECT c.id FROM category c
                   WHERE c.label = 'Shoes' UNION SELECT c.id FROM category c JOIN sub ON c.parent_id = sub.id)
                   SELECT c.path FROM sub JOIN category c USING (id)
                   WHERE c.label LIKE 'boots%' AND c.label != 'Shoes' ORDER BY c.path))
             AND (SELECT group_concat(path) FROM (SELECT path FROM category
                   WHERE path LIKE '%.Shoes.%'
                     AND lower(substr(path, length(rtrim(path,
                         'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-')) + 1)) LIKE 'boots%'
                   ORDER BY path))
               = (SELECT group_concat(path) FROM (SELECT path FROM category
                   WHERE mpath_match(path, '*.Shoes.*.boots@*') ORDER BY path))
            THEN 'agree' ELSE 'DISAGREE' END AS result;

.print
.print "== 5. Moving a subtree: Boots from Men's Shoes to Women's Shoes, one UPDATE"
.print
.print "-- materialized path: rebase every path in the subtree's range"
UPDATE category SET path = mpath_rebase(path, 'Catalog.Men.Shoes.Boots', 'Catalog.Women.Shoes.Boots_Men')
 WHERE path = 'Catalog.Men.Shoes.Boots'
    OR (path >= mpath_lower('Catalog.Men.Shoes.Boots') AND path < mpath_upper('Catalog.Men.Shoes.Boots'));
UPDATE category SET parent_id = 15, label = 'Boots_Men' WHERE id = 5;
SELECT id, path FROM category WHERE mpath_is_ancestor('Catalog.Women.Shoes', path) ORDER BY path;

SELECT 'subtree move' AS question,
       CASE WHEN (SELECT count(*) FROM (
                    WITH RECURSIVE p(id, path) AS (SELECT id, label FROM category WHERE parent_id IS NULL
                      UNION ALL SELECT c.id, p.path || '.' || c.label FROM category c JOIN p ON c.parent_id = p.id)
                    SELECT id, path FROM p EXCEPT SELECT id, path FROM category)) = 0
             AND (SELECT count(*) FROM category) = 21
            THEN 'agree' ELSE 'DISAGREE' END AS result;
