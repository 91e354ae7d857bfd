--
-- batch_scope: a table's rows found in slices of its batch table's rows in
-- scope.  The files are the same, byte for byte, as without batches, for
-- every batch size; each rule of the Ruby client's pre-flight is an error.
--
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS batch CASCADE;
RESET client_min_messages;
CREATE SCHEMA batch;
SET search_path = batch, public;
CREATE TABLE shops (id int PRIMARY KEY, name text NOT NULL);
CREATE TABLE orders (id int PRIMARY KEY, shop_id int NOT NULL REFERENCES shops, note text);
CREATE TABLE order_lines (id int PRIMARY KEY, order_id int REFERENCES orders, qty int NOT NULL);
CREATE TABLE line_notes (id int PRIMARY KEY, line_id int NOT NULL REFERENCES order_lines,
	body text NOT NULL, hidden boolean NOT NULL DEFAULT false);
CREATE TABLE refunds (id int PRIMARY KEY, line_id int NOT NULL REFERENCES order_lines);
CREATE INDEX ON orders (shop_id);
CREATE INDEX ON order_lines (order_id);
CREATE INDEX ON line_notes (line_id);
CREATE INDEX ON refunds (line_id);
INSERT INTO shops VALUES (1, 'one'), (2, 'two');
INSERT INTO orders SELECT i, 1 + i % 2, 'order ' || i FROM generate_series(1, 40) i;
-- lines of every order, and a line of no order (order_id NULL)
INSERT INTO order_lines SELECT i, 1 + i % 40, i FROM generate_series(1, 200) i;
INSERT INTO order_lines VALUES (201, NULL, 1);
-- notes on lines; a hidden one is filtered out
INSERT INTO line_notes SELECT i, 1 + (i * 7) % 201, 'note ' || i, i % 10 = 0 FROM generate_series(1, 300) i;
-- a refund of shop 1 on a line of shop 2: the closure adds that line
INSERT INTO refunds VALUES (1, 2), (2, 3);
ANALYZE;

\set cfg '[{"name": "shops", "primary_key": "id", "scope_column": "id"}, {"name": "orders", "primary_key": "id", "scope_column": "shop_id", "belongs_tos": [{"foreign_key": "shop_id", "table_name": "shops"}]}, {"name": "order_lines", "primary_key": "id", "belongs_tos": [{"foreign_key": "order_id", "table_name": "orders"}]}, {"name": "line_notes", "primary_key": "id", "filter": "NOT line_notes.hidden", "belongs_tos": [{"foreign_key": "line_id", "table_name": "order_lines"}]}, {"name": "refunds", "primary_key": "id", "scope_column": "id", "belongs_tos": [{"foreign_key": "line_id", "table_name": "order_lines"}]}]'

-- the config with batch_scope {table, size} on order_lines and line_notes
CREATE FUNCTION pg_temp.batched(cfg jsonb, size int) RETURNS jsonb
LANGUAGE sql AS $$
	SELECT jsonb_agg(CASE WHEN t ->> 'name' IN ('order_lines', 'line_notes')
					 THEN t || jsonb_build_object('batch_scope', jsonb_build_object('table', 'orders', 'size', size))
					 ELSE t END)
	FROM jsonb_array_elements(cfg) t
$$;
CREATE FUNCTION pg_temp.files(cfg jsonb, ids text[], format text) RETURNS text
LANGUAGE sql AS $$
	SELECT string_agg(file_name || E'\n' || chunk, E'\n' ORDER BY n)
	FROM exwiw_export('shops', ids, cfg, format) WITH ORDINALITY AS e(file_name, chunk, n)
$$;

SELECT seq, table_name, rule FROM exwiw_plan('shops', '{1}', pg_temp.batched(:'cfg', 7))
WHERE seq IS NULL AND rule ~ 'batch';

-- the same bytes for every size: one row per batch, a few, all at once
SELECT size, format, ids,
	   pg_temp.files(pg_temp.batched(:'cfg', size), ids, format)
		 IS NOT DISTINCT FROM pg_temp.files(:'cfg', ids, format) AS same,
	   length(pg_temp.files(:'cfg', ids, format)) AS length
FROM unnest('{1,3,7,1000}'::int[]) size, unnest('{insert,copy}'::text[]) format,
	 (VALUES ('{1}'::text[]), ('{1,2}'), ('{3}')) AS v(ids)
ORDER BY 1, 2, 3;

-- The batches ran: shop 1 has 20 orders, so 3 batches of 7 for each
-- table (line_notes: the lines of the slice's orders, then their notes).
SET client_min_messages = debug1;
SELECT count(*) FROM exwiw_export('shops', '{1}', pg_temp.batched(:'cfg', 7));
RESET client_min_messages;
-- no order in scope: no batch, no line, no note
SET client_min_messages = debug1;
SELECT count(*) FROM exwiw_export('shops', '{3}', pg_temp.batched(:'cfg', 7));
RESET client_min_messages;

-- the pre-flight errors
SELECT * FROM exwiw_plan('order_lines', '{1}', pg_temp.batched(:'cfg', 3));
SELECT * FROM exwiw_plan('shops', '{1}', (
	SELECT jsonb_agg(CASE WHEN t ->> 'name' = 'order_lines'
					 THEN t || '{"batch_scope": {"table": "shops"}}' ELSE t END)
	FROM jsonb_array_elements(:'cfg'::jsonb) t));
SELECT * FROM exwiw_plan('shops', '{1}', (
	SELECT jsonb_agg(CASE WHEN t ->> 'name' = 'orders'
					 THEN t || '{"batch_scope": {"table": "shops"}}' ELSE t END)
	FROM jsonb_array_elements(:'cfg'::jsonb) t));
SELECT * FROM exwiw_plan('shops', '{1}', (
	SELECT jsonb_agg(CASE WHEN t ->> 'name' = 'order_lines'
					 THEN t || '{"batch_scope": {"table": "line_notes"}}' ELSE t END)
	FROM jsonb_array_elements(:'cfg'::jsonb) t));
SELECT * FROM exwiw_plan('shops', '{1}', (
	SELECT jsonb_agg(CASE WHEN t ->> 'name' = 'order_lines'
					 THEN t || '{"batch_scope": {"table": "orders"}, "scope_exempt": true}'
					 WHEN t ->> 'name' = 'line_notes' THEN t || '{"ignore": true}' ELSE t END)
	FROM jsonb_array_elements(:'cfg'::jsonb) t));
SELECT * FROM exwiw_plan('shops', '{1}', (
	SELECT jsonb_agg(CASE WHEN t ->> 'name' = 'order_lines'
					 THEN t || '{"batch_scope": {"table": "orders", "size": 0}}' ELSE t END)
	FROM jsonb_array_elements(:'cfg'::jsonb) t));
SELECT * FROM exwiw_plan('shops', '{1}', (
	SELECT jsonb_agg(CASE WHEN t ->> 'name' = 'order_lines'
					 THEN t || '{"batch_scope": {"table": "nope"}}' ELSE t END)
	FROM jsonb_array_elements(:'cfg'::jsonb) t));
SELECT * FROM exwiw_plan('shops', '{1}', (
	SELECT jsonb_agg(CASE WHEN t ->> 'name' = 'order_lines'
					 THEN t || '{"batch_scope": {"table": "orders", "rows": 5}}' ELSE t END)
	FROM jsonb_array_elements(:'cfg'::jsonb) t));
-- refunds carry the scope column: batch_scope may name only refunds itself,
-- which changes nothing
SELECT * FROM exwiw_plan('shops', '{1}', (
	SELECT jsonb_agg(CASE WHEN t ->> 'name' = 'refunds'
					 THEN t || '{"batch_scope": {"table": "orders"}}' ELSE t END)
	FROM jsonb_array_elements(:'cfg'::jsonb) t));
SELECT pg_temp.files((
	SELECT jsonb_agg(CASE WHEN t ->> 'name' = 'refunds'
					 THEN t || '{"batch_scope": {"table": "refunds", "size": 1}}' ELSE t END)
	FROM jsonb_array_elements(:'cfg'::jsonb) t), '{1}', 'insert') = pg_temp.files(:'cfg', '{1}', 'insert') AS same;
RESET search_path;
