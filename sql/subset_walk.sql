-- subset_walk: index walks (src/dump/walk.c).  A tenant's row set that is
-- a small part of a big table is found by probing the table's index with
-- the set's keys, not by hashing the whole table; the rows are the same.
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS walk CASCADE;
RESET client_min_messages;
CREATE SCHEMA walk;
SET search_path = walk, public;
CREATE TABLE accounts (id bigint PRIMARY KEY, name text NOT NULL);
CREATE TABLE orders (id bigint PRIMARY KEY,
	account_id bigint NOT NULL REFERENCES accounts, total int NOT NULL);
CREATE INDEX ON orders (account_id);
CREATE TABLE products (id bigint PRIMARY KEY, name text NOT NULL);
CREATE TABLE items (id bigint PRIMARY KEY,
	order_id bigint NOT NULL REFERENCES orders,
	product_id bigint NOT NULL REFERENCES products, qty int NOT NULL);
CREATE INDEX ON items (order_id);
INSERT INTO accounts SELECT g, 'account ' || g FROM generate_series(1, 100) g;
INSERT INTO orders SELECT g, 1 + g % 100, g % 7 FROM generate_series(1, 50000) g;
INSERT INTO products SELECT g, 'product ' || g FROM generate_series(1, 1000) g;
INSERT INTO items SELECT g, 1 + g % 50000, 1 + g % 1000, g % 3
FROM generate_series(1, 200000) g;
ANALYZE accounts, orders, products, items;
CREATE TEMP TABLE cfg AS SELECT exwiw_config_from_catalog('walk') AS c;

-- 2 of 100 accounts: 1,000 orders, 4,000 of 200,000 items.  The items'
-- file reads its rows back by ctid from the items' row set (which their
-- products' closure needs); the planner would hash all 200,000 items for
-- it: it is planned again as an index walk, TID scans of the set's rows.
-- (exwiw.io_concurrency 0: no read-ahead's messages.)
CREATE TEMP TABLE exported (file_name text, chunk text);
SET exwiw.io_concurrency = 0;
\set SHOW_CONTEXT always
SET client_min_messages = debug1;
INSERT INTO exported
SELECT (e).file_name, (e).chunk
FROM (SELECT exwiw_export('accounts', ARRAY['1', '2'], (SELECT c FROM cfg), 'copy') AS e) s;
RESET client_min_messages;
\set SHOW_CONTEXT errors
RESET exwiw.io_concurrency;

-- the same rows as plain SQL finds: the items of the accounts' orders,
-- and the products they reference
SELECT file_name, count(*) AS rows
FROM exported, pg_catalog.regexp_split_to_table(chunk, E'\n') AS l
WHERE l ~ E'^[0-9]+\t'
GROUP BY file_name ORDER BY file_name;
SELECT (SELECT count(*) FROM items i JOIN orders o ON o.id = i.order_id
		WHERE o.account_id <= 2) AS items,
	   (SELECT count(DISTINCT i.product_id) FROM items i JOIN orders o ON o.id = i.order_id
		WHERE o.account_id <= 2) AS products;

-- the items exported are the tenant's, both ways
SELECT count(*) AS missing FROM (
	SELECT i.id FROM items i JOIN orders o ON o.id = i.order_id WHERE o.account_id <= 2
	EXCEPT
	SELECT CAST(pg_catalog.split_part(l, E'\t', 1) AS bigint)
	FROM exported, pg_catalog.regexp_split_to_table(chunk, E'\n') AS l
	WHERE file_name = 'insert-004-items.sql' AND l ~ E'^[0-9]+\t') d;
SELECT count(*) AS extra FROM (
	SELECT CAST(pg_catalog.split_part(l, E'\t', 1) AS bigint)
	FROM exported, pg_catalog.regexp_split_to_table(chunk, E'\n') AS l
	WHERE file_name = 'insert-004-items.sql' AND l ~ E'^[0-9]+\t'
	EXCEPT
	SELECT i.id FROM items i JOIN orders o ON o.id = i.order_id WHERE o.account_id <= 2) d;
DROP TABLE exported, cfg;

-- A file whose row set is most of a table, more than the 50,000 rows read
-- back by ctid, and its predicate the target's ids alone (closure adds no
-- row): it reads its rows by that predicate in key order, not by sorting
-- the set's keys to merge them with its key's index.  The rows are those
-- of the set, in key order.
CREATE TABLE events (id bigint PRIMARY KEY,
	account_id bigint NOT NULL REFERENCES accounts,
	product_id bigint NOT NULL REFERENCES products, n int NOT NULL);
CREATE INDEX ON events (account_id);
INSERT INTO events SELECT g, CASE WHEN g <= 60000 THEN 1 + g % 2 ELSE 3 END,
	1 + g % 1000, g % 5
FROM generate_series(70000, 1, -1) g;
-- and in a partitioned table (whose set keeps no ctid: its partitions share them)
CREATE TABLE visits (id bigint, account_id bigint NOT NULL REFERENCES accounts,
	product_id bigint NOT NULL REFERENCES products,
	at date NOT NULL, PRIMARY KEY (id, at)) PARTITION BY RANGE (at);
CREATE TABLE visits_1 PARTITION OF visits FOR VALUES FROM ('2026-01-01') TO ('2026-07-01');
CREATE TABLE visits_2 PARTITION OF visits FOR VALUES FROM ('2026-07-01') TO ('2027-01-01');
CREATE INDEX ON visits (account_id);
INSERT INTO visits SELECT g, CASE WHEN g <= 60000 THEN 1 + g % 2 ELSE 3 END,
	1 + g % 1000, DATE '2026-01-01' + g % 365
FROM generate_series(1, 70000) g;
ANALYZE events, visits;
CREATE TEMP TABLE cfg AS SELECT exwiw_config_from_catalog('walk') AS c;
SELECT table_name, plan NOT LIKE '%Named Tuplestore Scan%' AS by_predicate
FROM exwiw_explain('accounts', ARRAY['1', '2'], (SELECT c FROM cfg))
WHERE table_name IN ('events', 'visits') ORDER BY 1;
CREATE TEMP TABLE exported (k serial, file_name text, chunk text);
INSERT INTO exported (file_name, chunk)
SELECT (e).file_name, (e).chunk
FROM (SELECT exwiw_export('accounts', ARRAY['1', '2'], (SELECT c FROM cfg), 'copy') AS e) s;
CREATE TEMP TABLE got AS
SELECT pg_catalog.row_number() OVER (ORDER BY k, o) AS pos,
	CAST(pg_catalog.split_part(l, E'\t', 1) AS bigint) AS id,
	CAST(pg_catalog.split_part(l, E'\t', 2) AS bigint) AS account_id,
	CAST(pg_catalog.split_part(l, E'\t', 3) AS bigint) AS product_id,
	CAST(pg_catalog.split_part(l, E'\t', 4) AS int) AS n
FROM exported, pg_catalog.regexp_split_to_table(chunk, E'\n') WITH ORDINALITY AS x(l, o)
WHERE file_name LIKE '%-events.sql' AND l ~ E'^[0-9]+\t';
SELECT count(*) AS rows, bool_and(id = pos) AS in_key_order FROM got;
SELECT count(*) AS missing FROM (
	SELECT * FROM events WHERE account_id <= 2
	EXCEPT SELECT id, account_id, product_id, n FROM got) d;
SELECT count(*) AS extra FROM (
	SELECT id, account_id, product_id, n FROM got
	EXCEPT SELECT * FROM events WHERE account_id <= 2) d;
SELECT count(*) AS visits, count(*) FILTER (WHERE l ~ E'^[0-9]+\t[12]\t') AS tenants
FROM exported, pg_catalog.regexp_split_to_table(chunk, E'\n') AS l
WHERE file_name LIKE '%-visits.sql' AND l ~ E'^[0-9]+\t';
-- and the products they reference, all 1,000 of them
SELECT count(*) AS products
FROM exported, pg_catalog.regexp_split_to_table(chunk, E'\n') AS l
WHERE file_name LIKE '%-products.sql' AND l ~ E'^[0-9]+\t';
DROP TABLE exported, got, cfg;

-- A table whose seed holds every row is read whole, its closure set not
-- computed: the rows it would add are the seed's already.  Checked only
-- when the ids name at least half of the target's rows (here 4 accounts):
-- all four (the check holds), three of them (a thing of account 4 is
-- outside the seed, and closure brings the one a use of account 1
-- references), one (no check).  The rows are the same either way
-- (sql/subset_whole.sql compares the bytes).
CREATE TABLE tenants (id bigint PRIMARY KEY);
CREATE TABLE things (id bigint PRIMARY KEY, tenant_id bigint NOT NULL REFERENCES tenants);
CREATE TABLE uses (id bigint PRIMARY KEY, tenant_id bigint NOT NULL REFERENCES tenants,
	thing_id bigint NOT NULL REFERENCES things);
CREATE INDEX ON things (tenant_id);
CREATE INDEX ON uses (tenant_id);
CREATE INDEX ON uses (thing_id);
INSERT INTO tenants SELECT g FROM generate_series(1, 4) g;
INSERT INTO things SELECT g, 1 + g % 4 FROM generate_series(1, 40) g;
INSERT INTO uses SELECT g, 1 + g % 4, g FROM generate_series(1, 40) g;
UPDATE uses SET thing_id = 3 WHERE id = 4;	-- tenant 1 uses tenant 4's thing 3
ANALYZE tenants, things, uses;
CREATE TEMP TABLE cfg AS
SELECT exwiw_config_from_catalog('walk') #- '{tables}' || jsonb_build_object('tables',
	(SELECT jsonb_agg(t) FROM jsonb_array_elements(exwiw_config_from_catalog('walk') -> 'tables') t
	 WHERE t ->> 'name' IN ('tenants', 'things', 'uses'))) AS c;
-- (each once first, quietly, for the catalog caches; no read-ahead's
-- messages)
SET exwiw.io_concurrency = 0;
\o /dev/null
SELECT x.file_name, count(*) FROM (SELECT (e).file_name, (e).chunk
	  FROM (SELECT exwiw_export('tenants', ARRAY['1', '2', '3', '4'], (SELECT c FROM cfg), 'copy') AS e) s) x,
	 pg_catalog.regexp_split_to_table(chunk, E'\n') AS l
GROUP BY file_name ORDER BY file_name;
\o
SET client_min_messages = debug1;
SELECT file_name, count(*) FILTER (WHERE l ~ E'^[0-9]+(\t|$)') AS rows
FROM (SELECT (e).file_name, (e).chunk
	  FROM (SELECT exwiw_export('tenants', ARRAY['1', '2', '3', '4'], (SELECT c FROM cfg), 'copy') AS e) s) x,
	 pg_catalog.regexp_split_to_table(chunk, E'\n') AS l
GROUP BY file_name ORDER BY file_name;
SELECT file_name, count(*) FILTER (WHERE l ~ E'^[0-9]+(\t|$)') AS rows,
	count(*) FILTER (WHERE l ~ E'^3\t4$') AS thing_3
FROM (SELECT (e).file_name, (e).chunk
	  FROM (SELECT exwiw_export('tenants', ARRAY['1', '2', '3'], (SELECT c FROM cfg), 'copy') AS e) s) x,
	 pg_catalog.regexp_split_to_table(chunk, E'\n') AS l
GROUP BY file_name ORDER BY file_name;
SELECT file_name, count(*) FILTER (WHERE l ~ E'^[0-9]+(\t|$)') AS rows,
	count(*) FILTER (WHERE l ~ E'^3\t4$') AS thing_3
FROM (SELECT (e).file_name, (e).chunk
	  FROM (SELECT exwiw_export('tenants', ARRAY['1'], (SELECT c FROM cfg), 'copy') AS e) s) x,
	 pg_catalog.regexp_split_to_table(chunk, E'\n') AS l
GROUP BY file_name ORDER BY file_name;
RESET client_min_messages;
RESET exwiw.io_concurrency;
DROP TABLE cfg;
SET client_min_messages = warning;
DROP SCHEMA walk CASCADE;
RESET client_min_messages;
