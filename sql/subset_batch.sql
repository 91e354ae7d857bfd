--
-- batch_scope: a table's rows found in slices of its batch table's rows in
-- scope, whose keys are sorted as text (as the Ruby client does).  The
-- files hold the same rows as without batches, for every batch size, batch
-- after batch (each by primary key), rows that no batch found (the
-- closure's) last; each rule of the Ruby client's pre-flight is an error.
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

-- each file's lines, sorted: the same rows for every size
CREATE FUNCTION pg_temp.sorted_lines(cfg jsonb, ids text[], format text) RETURNS text[]
LANGUAGE sql AS $$
	SELECT array_agg(file_name || ': ' || rtrim(line, ',;') ORDER BY file_name, rtrim(line, ',;') COLLATE "C")
	FROM exwiw_export('shops', ids, cfg, format) e,
		 regexp_split_to_table(e.chunk, E'\n') AS line
	-- the rows: not the lines of the blocks around them
	WHERE line !~ '^(SET |DO |BEGIN|EXCEPTION|END |  )'
$$;
-- the ids of table tab, in file order
CREATE FUNCTION pg_temp.file_ids(cfg jsonb, ids text[], format text, tab text) RETURNS int[]
LANGUAGE sql AS $$
	SELECT array_agg(r.m[1]::int ORDER BY e.n, r.o)
	FROM exwiw_export('shops', ids, cfg, format) WITH ORDINALITY AS e(file_name, chunk, n),
		 regexp_matches(e.chunk, CASE format WHEN 'copy' THEN E'^(\\d+)\t' ELSE E'^\\(''(\\d+)''' END, 'gn')
		 WITH ORDINALITY AS r(m, o)
	WHERE e.file_name = 'insert-003-' || tab || '.sql' OR e.file_name ~ ('-' || tab || '\.sql$')
$$;
-- the order the Ruby client's batches give: the in-scope orders' ids sorted
-- as text, sliced; each batch's lines by id; then the lines that only the
-- closure adds (refunds' lines of other shops), by id
CREATE FUNCTION pg_temp.expected_line_ids(ids int[], size int) RETURNS int[]
LANGUAGE sql AS $$
	WITH o AS (SELECT id, (row_number() OVER (ORDER BY id::text COLLATE "C") - 1) / size AS b
			   FROM batch.orders WHERE shop_id = ANY (ids)),
		 l AS (SELECT l.id, o.b FROM batch.order_lines l LEFT JOIN o ON o.id = l.order_id
			   WHERE o.id IS NOT NULL
				  OR l.id IN (SELECT line_id FROM batch.refunds WHERE id = ANY (ids)))
	SELECT array_agg(id ORDER BY b NULLS LAST, id) FROM l
$$;

SELECT size, format, ids,
	   pg_temp.sorted_lines(pg_temp.batched(:'cfg', size), ids, format)
		 IS NOT DISTINCT FROM pg_temp.sorted_lines(:'cfg', ids, format) AS same_rows,
	   cardinality(pg_temp.sorted_lines(:'cfg', ids, format)) AS lines,
	   pg_temp.file_ids(pg_temp.batched(:'cfg', size), ids, format, 'order_lines')
		 IS NOT DISTINCT FROM pg_temp.expected_line_ids(ids::int[], size) AS in_batch_order
FROM unnest('{1,3,7,1000}'::int[]) size, unnest('{insert,copy}'::text[]) format,
	 (VALUES ('{1}'::text[]), ('{1,2}'), ('{3}')) AS v(ids)
ORDER BY 1, 2, 3;
-- for example, batches of 7 of shop 1's orders: 10,12,14,16,18,2,20, then
-- 22,24,...; line 2 (refund 1's, of shop 2) last
SELECT pg_temp.file_ids(pg_temp.batched(:'cfg', 7), '{1}', 'insert', 'order_lines');

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
