--
-- exwiw_export: every table's file, in order, from one snapshot
--
\i test/subset/fixture.sql

-- Shop 1, the whole output.  Expected, by the rules:
--   announcements: all (related to nothing)
--   categories: 3, 4 (of the exported products) and their ancestors 1, 2
--   shops: 1, and 2 (user 3 and product 4, referenced by shop 1's rows)
--   products: 1, 2 (shop 1) and 4 (in order item 3)
--   users: 1, 2 (shop 1) and 3 (placed order 3); email NULL stays NULL
--   orders: 1, 2, 3; order_items: 1, 2, 3, 6; order_tags: (1, gift);
--   transactions: 1, 2 (no index on order_id: NOTICE)
-- Safe mode's default masks apply to the generated config: users' email,
-- name and phone and transactions' card number are masked.
SELECT file_name, chunk FROM exwiw_export('shops', '{1}', allow_undecided => true);
-- The NOTICE about transactions.order_id was shown; quiet from here.
SET client_min_messages = warning;

-- Loaded, each table holds exactly the hand-written set.
CREATE TEMP TABLE exported AS
	SELECT n, file_name, chunk
	FROM exwiw_export('shops', '{1}', exwiw_test_unmasked(exwiw_config_from_catalog())) WITH ORDINALITY AS e(file_name, chunk, n);
\i test/subset/load.sql
SELECT t, got, got = want AS ok
FROM (VALUES
	('announcements', (SELECT array_agg(id ORDER BY id)::text FROM shop_copy.announcements), '{1,2}'),
	('categories', (SELECT array_agg(id ORDER BY id)::text FROM shop_copy.categories), '{1,2,3,4}'),
	('shops', (SELECT array_agg(id ORDER BY id)::text FROM shop_copy.shops), '{1,2}'),
	('products', (SELECT array_agg(id ORDER BY id)::text FROM shop_copy.products), '{1,2,4}'),
	('users', (SELECT array_agg(id ORDER BY id)::text FROM shop_copy.users), '{1,2,3}'),
	('orders', (SELECT array_agg(id ORDER BY id)::text FROM shop_copy.orders), '{1,2,3}'),
	('order_items', (SELECT array_agg(id ORDER BY id)::text FROM shop_copy.order_items), '{1,2,3,6}'),
	('order_tags', (SELECT array_agg(order_id || ':' || tag)::text FROM shop_copy.order_tags), '{1:gift}'),
	('transactions', (SELECT array_agg(id ORDER BY id)::text FROM shop_copy.transactions), '{1,2}')
) AS v(t, got, want);
-- the rows themselves are the source rows, every column
SELECT (SELECT count(*) FROM (TABLE shop_copy.users EXCEPT TABLE shop.users) d) AS users_differing,
	   (SELECT count(*) FROM (TABLE shop_copy.orders EXCEPT TABLE shop.orders) d) AS orders_differing,
	   (SELECT count(*) FROM (TABLE shop_copy.products EXCEPT TABLE shop.products) d) AS products_differing,
	   (SELECT count(*) FROM (TABLE shop_copy.categories EXCEPT TABLE shop.categories) d) AS categories_differing;
DROP TABLE exported;

-- Shop 3: order_tags has no row for it, so it gets no file: 008 is missing
-- (files are numbered by processing order, as the client does).
CREATE TEMP TABLE exported AS
	SELECT n, file_name, chunk
	FROM exwiw_export('shops', '{3}', allow_undecided => true) WITH ORDINALITY AS e(file_name, chunk, n);
SELECT DISTINCT file_name FROM exported ORDER BY 1;
\i test/subset/load.sql
SELECT t, got, got = want AS ok
FROM (VALUES
	('categories', (SELECT array_agg(id ORDER BY id)::text FROM shop_copy.categories), '{5,6}'),
	('shops', (SELECT array_agg(id ORDER BY id)::text FROM shop_copy.shops), '{3}'),
	('products', (SELECT array_agg(id ORDER BY id)::text FROM shop_copy.products), '{5}'),
	('users', (SELECT array_agg(id ORDER BY id)::text FROM shop_copy.users), '{4}'),
	('orders', (SELECT array_agg(id ORDER BY id)::text FROM shop_copy.orders), '{5}'),
	('order_items', (SELECT array_agg(id ORDER BY id)::text FROM shop_copy.order_items), '{5}'),
	('order_tags', (SELECT count(*)::text FROM shop_copy.order_tags), '0'),
	('transactions', (SELECT array_agg(id ORDER BY id)::text FROM shop_copy.transactions), '{4}')
) AS v(t, got, want);
DROP TABLE exported;

-- Another target: category 3 (Phones).  Its ancestors 2, 1; the products
-- in it (1, 4) and their shops; the order items of those products (1, 3,
-- 6), and the orders and users those reference.
CREATE TEMP TABLE exported AS
	SELECT n, file_name, chunk
	FROM exwiw_export('categories', '{3}', allow_undecided => true) WITH ORDINALITY AS e(file_name, chunk, n);
\i test/subset/load.sql
SELECT t, got, got = want AS ok
FROM (VALUES
	('categories', (SELECT array_agg(id ORDER BY id)::text FROM shop_copy.categories), '{1,2,3}'),
	('shops', (SELECT array_agg(id ORDER BY id)::text FROM shop_copy.shops), '{1,2}'),
	('products', (SELECT array_agg(id ORDER BY id)::text FROM shop_copy.products), '{1,4}'),
	('users', (SELECT array_agg(id ORDER BY id)::text FROM shop_copy.users), '{1,2,3}'),
	('orders', (SELECT array_agg(id ORDER BY id)::text FROM shop_copy.orders), '{1,2,3}'),
	('order_items', (SELECT array_agg(id ORDER BY id)::text FROM shop_copy.order_items), '{1,3,6}'),
	('transactions', (SELECT count(*)::text FROM shop_copy.transactions), '0')
) AS v(t, got, want);
DROP TABLE exported;

-- format => 'copy'
SELECT file_name, chunk
FROM exwiw_export('shops', '{2}', format => 'copy', allow_undecided => true)
WHERE file_name ~ '(users|orders)';

-- bulk_insert_chunk_size: a new INSERT statement every 2 rows
SELECT chunk
FROM exwiw_export('shops', '{1}',
	jsonb_set(exwiw_config_from_catalog(), '{tables,2,bulk_insert_chunk_size}', '2'),
	allow_undecided => true)
WHERE file_name = 'insert-007-order_items.sql';

-- no ids: only the unrelated table has rows
SELECT DISTINCT file_name FROM exwiw_export('shops', '{}', allow_undecided => true);

-- the consumer stops early: the open cursor is closed
-- (by the ExprContext callback), and the transaction goes on
SELECT (exwiw_export('shops', '{1}', allow_undecided => true)).file_name LIMIT 2;
BEGIN;
SELECT (exwiw_export('shops', '{1}', allow_undecided => true)).file_name LIMIT 1;
SELECT (exwiw_export('shops', '{2}', allow_undecided => true)).file_name LIMIT 1;
COMMIT;

-- argument errors
SELECT * FROM exwiw_export(NULL, '{1}', allow_undecided => true);
SELECT * FROM exwiw_export('shops', NULL);
SELECT * FROM exwiw_export('shops', '{1}', format => 'csv');
SELECT * FROM exwiw_export('shops', '{1}', format => NULL);

-- an identity key gets its setval too; mixed-case names are quoted
CREATE TABLE "Ledger" (id int GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, "Memo" text);
INSERT INTO "Ledger" ("Memo") VALUES ('a'), ('b');
SELECT file_name, chunk FROM exwiw_export('Ledger', '{2}', '[{"name": "Ledger", "primary_key": "id"}]');

-- format jsonl: the same rows as Extended JSON Lines, files .jsonl, no
-- prologue or setval (mongoimport input)
SELECT file_name, chunk FROM exwiw_export('shops', '{1}', format => 'jsonl', allow_undecided => true)
WHERE file_name ~ '(shops|orders)';
-- files: only some files, numbered as in the whole export (a parallel
-- client's worker writes its share); only the row sets they need are
-- computed
SELECT file_name FROM exwiw_export('shops', '{1}', allow_undecided => true, files => '{7,3}');
SELECT file_name FROM exwiw_export('shops', '{1}', allow_undecided => true, files => '{10}');
SELECT file_name FROM exwiw_export('shops', '{1}', allow_undecided => true, files => '{}');
-- the parts equal the whole
SELECT (SELECT string_agg(file_name || chunk, '' ORDER BY n) FROM exwiw_export('shops', '{1,2}', allow_undecided => true) WITH ORDINALITY AS e(file_name, chunk, n))
	 = (SELECT string_agg(p, '' ORDER BY k)
		FROM (SELECT seq FROM exwiw_plan('shops', '{1,2}') WHERE seq IS NOT NULL) AS f(k),
		LATERAL (SELECT string_agg(file_name || chunk, '' ORDER BY n) AS p
				 FROM exwiw_export('shops', '{1,2}', allow_undecided => true, files => ARRAY[k]) WITH ORDINALITY AS e(file_name, chunk, n)) s)
	AS parts_equal_whole;
-- file names: "/", "%", control characters written as %XX
CREATE TABLE "100%/x" (id int PRIMARY KEY);
CREATE TABLE "tab	name" (id int PRIMARY KEY);
INSERT INTO "100%/x" VALUES (1); INSERT INTO "tab	name" VALUES (1);
SELECT file_name FROM exwiw_export('100%/x', '{1}', '[{"name": "100%/x", "primary_key": "id"}, {"name": "tab\tname", "primary_key": "id", "export": "all"}]');
DROP TABLE "100%/x", "tab	name";
