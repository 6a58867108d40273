-- documents.sql: aggregates (technique 2), atomic aggregates (4) and
-- application-side joins (3) side by side with the relational schema.
-- Run it with `make demo`, or
--   sqlite3 :memory: < sql/documents.sql
-- from the repository root after `make`.
--
-- The article's product catalog: books, albums with their tracks, jeans with
-- brand-specific sizes. The NoSQL way keeps one JSON document per product
-- (products(key, doc, version)); the relational way normalizes it into a
-- product table, one table per kind and a track table. Each question is
-- answered both ways, both answers are shown, and a line says agree or
-- DISAGREE (make test fails on DISAGREE).
.load ./dist/nosql
.headers on
.mode list
.separator " | "

-- Deterministic data: 300 products, 100 of each kind; albums have 3..7 tracks.
CREATE TABLE product(id INTEGER PRIMARY KEY, kind TEXT, title TEXT, price REAL);
CREATE TABLE book(id INTEGER PRIMARY KEY REFERENCES product, author TEXT, pages INTEGER);
CREATE TABLE album(id INTEGER PRIMARY KEY REFERENCES product, artist TEXT);
CREATE TABLE track(album_id INTEGER REFERENCES album, pos INTEGER, title TEXT, seconds INTEGER,
                   PRIMARY KEY (album_id, pos)) WITHOUT ROWID;
CREATE TABLE jeans(id INTEGER PRIMARY KEY REFERENCES product, brand TEXT, waist INTEGER, length INTEGER);

WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 300)
INSERT INTO product SELECT i, CASE i % 3 WHEN 0 THEN 'book' WHEN 1 THEN 'album' ELSE 'jeans' END,
       'title ' || i, (i * 37 % 90) + 9.5 FROM c;
INSERT INTO book SELECT id, 'author ' || (id % 17), 100 + id * 13 % 700 FROM product WHERE kind = 'book';
INSERT INTO album SELECT id, 'artist ' || (id % 11) FROM product WHERE kind = 'album';
WITH RECURSIVE t(pos) AS (SELECT 1 UNION ALL SELECT pos + 1 FROM t WHERE pos < 7)
INSERT INTO track SELECT a.id, t.pos, 'track ' || a.id || '.' || t.pos, 120 + (a.id * 31 + t.pos * 57) % 500
  FROM album a, t WHERE t.pos <= 3 + a.id % 5;
INSERT INTO jeans SELECT id, CASE id % 4 WHEN 0 THEN 'Levi''s' WHEN 1 THEN 'Wrangler' WHEN 2 THEN 'Lee' ELSE 'Diesel' END,
       28 + id % 8, 30 + id % 5 FROM product WHERE kind = 'jeans';

-- The same catalog as one document per product, built from the tables.
CREATE TABLE products(key TEXT PRIMARY KEY, doc TEXT, version INTEGER);
INSERT INTO products
SELECT 'p' || p.id, json_patch(json_object('kind', p.kind, 'title', p.title, 'price', p.price),
         CASE p.kind
           WHEN 'book' THEN (SELECT json_object('author', author, 'pages', pages) FROM book WHERE id = p.id)
           WHEN 'album' THEN (SELECT json_object('artist', artist, 'tracks',
                                (SELECT json_group_array(json_object('title', title, 'seconds', seconds))
                                   FROM (SELECT title, seconds FROM track WHERE album_id = p.id ORDER BY pos)))
                              FROM album WHERE id = p.id)
           ELSE (SELECT json_object('brand', brand, 'sizes', json_object('waist', waist, 'length', length))
                   FROM jeans WHERE id = p.id) END), 1
  FROM product p;

.print
.print == 1. One product, whole: album p4 with its tracks
.print -- aggregate: one row
SELECT doc FROM products WHERE key = 'p4';
.print -- relational: product JOIN album JOIN track
SELECT p.title, a.artist, t.pos, t.title, t.seconds
  FROM product p JOIN album a USING (id) JOIN track t ON t.album_id = p.id WHERE p.id = 4 ORDER BY t.pos;
SELECT 'one product, whole' AS question,
       CASE WHEN (SELECT json_extract(doc, '$.artist') || '/' || json_array_length(doc, '$.tracks') || '/' ||
                         (SELECT group_concat(json_extract(j.value, '$.title') || ':' || (json_extract(j.value, '$.seconds')), ',')
                            FROM json_each(doc, '$.tracks') j)
                    FROM products WHERE key = 'p4')
               = (SELECT a.artist || '/' || count(*) || '/' || group_concat(t.title || ':' || t.seconds, ',')
                    FROM album a JOIN (SELECT * FROM track WHERE album_id = 4 ORDER BY pos) t ON t.album_id = a.id
                   WHERE a.id = 4)
            THEN 'agree' ELSE 'DISAGREE' END AS result;

.print
.print == 2. Albums with a track longer than 600 seconds
.print -- aggregate: json_each over each document
SELECT count(*) AS albums, sum(CAST(substr(key, 2) AS INTEGER)) AS id_sum FROM products
 WHERE json_extract(doc, '$.kind') = 'album'
   AND EXISTS (SELECT 1 FROM json_each(doc, '$.tracks') WHERE json_extract(value, '$.seconds') > 600);
.print -- relational: EXISTS over track
SELECT count(*) AS albums, sum(id) AS id_sum FROM album a
 WHERE EXISTS (SELECT 1 FROM track WHERE album_id = a.id AND seconds > 600);
SELECT 'albums with a long track' AS question,
       CASE WHEN (SELECT group_concat(k) FROM (SELECT CAST(substr(key, 2) AS INTEGER) AS k FROM products
                   WHERE json_extract(doc, '$.kind') = 'album'
                     AND EXISTS (SELECT 1 FROM json_each(doc, '$.tracks') WHERE json_extract(value, '$.seconds') > 600)
                   ORDER BY k))
               = (SELECT group_concat(id) FROM (SELECT id FROM album a
                   WHERE EXISTS (SELECT 1 FROM track WHERE album_id = a.id AND seconds > 600) ORDER BY id))
             AND (SELECT count(*) FROM album a WHERE EXISTS (SELECT 1 FROM track WHERE album_id = a.id AND seconds > 600)) > 0
            THEN 'agree' ELSE 'DISAGREE' END AS result;

.print
.print == 3. What fields do the products have? (soft schema vs the catalog of tables)
.print -- aggregate: doc_schema
SELECT path, type, docs FROM doc_schema('products', 'doc') WHERE path <> '$';
.print -- relational: the columns of the tables, and their row counts
SELECT m.name AS tbl, c.name AS col, c.type FROM sqlite_schema m, pragma_table_info(m.name) c
 WHERE m.name IN ('book', 'album', 'track', 'jeans') AND c.pk = 0 ORDER BY 1, c.cid;
SELECT 'fields and how many products have them' AS question,
       CASE WHEN (SELECT docs FROM doc_schema('products', 'doc') WHERE path = '$.author') = (SELECT count(*) FROM book)
             AND (SELECT docs FROM doc_schema('products', 'doc') WHERE path = '$.tracks[*].seconds') = (SELECT count(*) FROM album)
             AND (SELECT docs FROM doc_schema('products', 'doc') WHERE path = '$.sizes.waist') = (SELECT count(*) FROM jeans)
             AND (SELECT docs FROM doc_schema('products', 'doc') WHERE path = '$.title') = (SELECT count(*) FROM product)
            THEN 'agree' ELSE 'DISAGREE' END AS result;

.print
.print == 4. Jeans by brand, through an index either way
CREATE INDEX products_brand ON products(json_extract(doc, '$.brand'));
CREATE INDEX jeans_brand ON jeans(brand);
.print -- aggregate: an expression index on the brand field of the documents
SELECT count(*) AS n, 'p' || min(CAST(substr(key, 2) AS INTEGER)) AS first FROM products WHERE json_extract(doc, '$.brand') = 'Lee';
EXPLAIN QUERY PLAN SELECT key FROM products WHERE json_extract(doc, '$.brand') = 'Lee';
.print -- relational: index on jeans(brand)
SELECT count(*) AS n, 'p' || min(id) AS first FROM jeans WHERE brand = 'Lee';
SELECT 'jeans by brand (index)' AS question,
       CASE WHEN (SELECT group_concat(k) FROM (SELECT CAST(substr(key, 2) AS INTEGER) AS k FROM products
                   WHERE json_extract(doc, '$.brand') = 'Lee' ORDER BY k))
               = (SELECT group_concat(id) FROM (SELECT id FROM jeans WHERE brand = 'Lee' ORDER BY id))
             AND (SELECT count(*) FROM jeans WHERE brand = 'Lee') > 0
            THEN 'agree' ELSE 'DISAGREE' END AS result;

.print
.print == 4b. The same question on an entity-attribute-value table (the third way to store soft schemas)
CREATE TABLE attr(id INTEGER, name TEXT, value, PRIMARY KEY (id, name)) WITHOUT ROWID;
INSERT INTO attr SELECT CAST(substr(p.key, 2) AS INTEGER), j.key, j.value FROM products p, json_each(p.doc) j
 WHERE j.type NOT IN ('object', 'array');
INSERT INTO attr SELECT CAST(substr(p.key, 2) AS INTEGER), 'sizes.' || j.key, j.value FROM products p, json_each(p.doc, '$.sizes') j;
CREATE INDEX attr_name_value ON attr(name, value);
.print -- EAV: one row per attribute; a query on two attributes is a self-join
SELECT count(*) AS n FROM attr b JOIN attr w ON w.id = b.id AND w.name = 'sizes.waist' AND w.value = 34
 WHERE b.name = 'brand' AND b.value = 'Lee';
.print -- aggregate: both attributes inside one document
SELECT count(*) AS n FROM products WHERE json_extract(doc, '$.brand') = 'Lee' AND json_extract(doc, '$.sizes.waist') = 34;
.print -- relational: two columns of one row
SELECT count(*) AS n FROM jeans WHERE brand = 'Lee' AND waist = 34;
SELECT 'Lee jeans with waist 34: EAV, document, columns' AS question,
       CASE WHEN (SELECT group_concat(id) FROM (SELECT b.id FROM attr b JOIN attr w ON w.id = b.id
                   AND w.name = 'sizes.waist' AND w.value = 34 WHERE b.name = 'brand' AND b.value = 'Lee' ORDER BY b.id))
               = (SELECT group_concat(id) FROM (SELECT id FROM jeans WHERE brand = 'Lee' AND waist = 34 ORDER BY id))
             AND (SELECT group_concat(k) FROM (SELECT CAST(substr(key, 2) AS INTEGER) AS k FROM products
                   WHERE json_extract(doc, '$.brand') = 'Lee' AND json_extract(doc, '$.sizes.waist') = 34 ORDER BY k))
               = (SELECT group_concat(id) FROM (SELECT id FROM jeans WHERE brand = 'Lee' AND waist = 34 ORDER BY id))
             AND (SELECT count(*) FROM jeans WHERE brand = 'Lee' AND waist = 34) > 0
            THEN 'agree' ELSE 'DISAGREE' END AS result;

.print
.print == 5. Place an order: one atomic document update vs a multi-table transaction
-- The document table is an existing one with its own column names: doc_update takes it in
-- place as 'orders_doc(id, body, rev)' (key, document, version), no copy, no rename.
CREATE TABLE orders_doc(id TEXT PRIMARY KEY, body TEXT, rev INTEGER);
INSERT INTO orders_doc VALUES ('o1', '{"customer":"c7","lines":[],"total":0}', 0);
CREATE TABLE orders(id TEXT PRIMARY KEY, customer TEXT, total REAL, version INTEGER);
CREATE TABLE order_line(order_id TEXT REFERENCES orders, product INTEGER, qty INTEGER, price REAL);
INSERT INTO orders VALUES ('o1', 'c7', 0, 0);
.print -- aggregate: each line is one doc_update ($push the line, $inc the total), optimistic on the version
SELECT doc_update('orders_doc(id, body, rev)', 'o1',
         json_object('$push', json_object('lines', json_object('product', id, 'qty', id % 3 + 1, 'price', price)),
                     '$inc', json_object('total', (id % 3 + 1) * price)), id - 3) AS version
  FROM product WHERE id BETWEEN 3 AND 7 ORDER BY id;
SELECT json_array_length(body, '$.lines') AS lines, json_extract(body, '$.total') AS total, rev AS version FROM orders_doc;
.print -- relational: the lines INSERTed into order_line and the order's total UPDATEd in one transaction
BEGIN IMMEDIATE;
INSERT INTO order_line SELECT 'o1', id, id % 3 + 1, price FROM product WHERE id BETWEEN 3 AND 7;
UPDATE orders SET total = (SELECT sum(qty * price) FROM order_line WHERE order_id = 'o1'), version = version + 5 WHERE id = 'o1';
COMMIT;
SELECT (SELECT count(*) FROM order_line WHERE order_id = 'o1') AS lines, total, version FROM orders;
SELECT 'place an order' AS question,
       CASE WHEN (SELECT json_array_length(body, '$.lines') || '/' || json_extract(body, '$.total') || '/' || rev FROM orders_doc)
               = (SELECT (SELECT count(*) FROM order_line) || '/' || total || '/' || version FROM orders)
             AND (SELECT group_concat(json_extract(j.value, '$.product')) FROM orders_doc, json_each(body, '$.lines') j)
               = (SELECT group_concat(product) FROM (SELECT product FROM order_line ORDER BY rowid))
             AND (SELECT total FROM orders) > 0
            THEN 'agree' ELSE 'DISAGREE' END AS result;
.print -- a stale version changes nothing (NULL), as a lost race would
SELECT quote(doc_update('orders_doc(id, body, rev)', 'o1', '{"$inc":{"total":1000}}', 2)) AS stale_write,
       json_extract(body, '$.total') AS total FROM orders_doc;

.print
.print == 6. Application-side join: the authors of user 7's messages
CREATE TABLE users_kv(key TEXT PRIMARY KEY, value);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1000)
INSERT INTO users_kv SELECT 'user:' || i, json_object('name', 'user ' || i, 'city', 'city ' || (i % 13)) FROM c;
CREATE TABLE messages(id INTEGER PRIMARY KEY, to_user INTEGER, from_user INTEGER, body TEXT);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 5000)
INSERT INTO messages SELECT i, i % 50, (i * 7919) % 1000 + 1, 'message ' || i FROM c;
CREATE INDEX messages_to ON messages(to_user);
.print -- NoSQL: the message ids, then one kv_mget for all the authors (one probe per key, one call)
SELECT count(*) AS authors, group_concat(CASE WHEN rowid <= 3 THEN json_extract(value, '$.name') END, ', ') AS first_three
  FROM kv_mget('users_kv', (SELECT json_group_array('user:' || from_user)
                              FROM (SELECT from_user FROM messages WHERE to_user = 7 ORDER BY id)));
.print -- NoSQL, naive: one lookup per message (a correlated subquery stands for N round trips)
SELECT count(*) AS authors FROM messages m
 WHERE to_user = 7 AND (SELECT value FROM users_kv WHERE key = 'user:' || m.from_user) IS NOT NULL;
.print -- relational: JOIN
SELECT count(*) AS authors FROM messages m JOIN users_kv u ON u.key = 'user:' || m.from_user WHERE m.to_user = 7;
SELECT 'authors of a mailbox' AS question,
       CASE WHEN (SELECT group_concat(value, '|') FROM kv_mget('users_kv', (SELECT json_group_array('user:' || from_user)
                   FROM (SELECT from_user FROM messages WHERE to_user = 7 ORDER BY id))))
               = (SELECT group_concat(u.value, '|') FROM (SELECT from_user FROM messages WHERE to_user = 7 ORDER BY id) m
                   JOIN users_kv u ON u.key = 'user:' || m.from_user)
             AND (SELECT count(*) FROM messages WHERE to_user = 7) > 0
            THEN 'agree' ELSE 'DISAGREE' END AS result;

.print
.print == 7. Composite-key entries folded into one document per user, and back
CREATE TABLE profile_kv(key TEXT PRIMARY KEY, value);
CREATE TABLE profile(user TEXT PRIMARY KEY, name TEXT, email TEXT, age INTEGER);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 20)
INSERT INTO profile SELECT 'u' || i, 'name ' || i, 'u' || i || '@example.com', 20 + i FROM c;
INSERT INTO profile_kv SELECT k.key, k.value FROM profile p,
  kv_pairs(p.user, json_object('name', p.name, 'email', p.email, 'age', p.age)) k;
.print -- key-value: kv_object per user prefix
SELECT substr(key, 1, instr(key, '_') - 1) AS user, kv_object(key, value) AS doc
  FROM profile_kv GROUP BY user ORDER BY CAST(substr(user, 2) AS INTEGER) LIMIT 3;
.print -- relational: one row per user
SELECT user, json_object('name', name, 'email', email, 'age', age) AS doc FROM profile
 ORDER BY CAST(substr(user, 2) AS INTEGER) LIMIT 3;
SELECT 'fold entries into documents' AS question,
       CASE WHEN (SELECT count(*) FROM (SELECT substr(key, 1, instr(key, '_') - 1) AS user, kv_object(key, value) AS doc
                                          FROM profile_kv GROUP BY user) f
                   JOIN profile p ON p.user = f.user
                  WHERE json_extract(f.doc, '$.name') = p.name AND json_extract(f.doc, '$.email') = p.email
                    AND json_extract(f.doc, '$.age') = p.age)
               = (SELECT count(*) FROM profile)
             AND (SELECT count(*) FROM profile) = 20
            THEN 'agree' ELSE 'DISAGREE' END AS result;
