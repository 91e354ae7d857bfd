--
-- Masking: replace_with templates and typed literals, raw_sql, inside the
-- extraction query
--
\set SHOW_CONTEXT never
\i test/subset/fixture.sql
SET client_min_messages = warning;

-- users: email from a template on the row's id; phone from a template on
-- id, with NULL staying NULL; name by raw_sql, which wins over its
-- replace_with; vip by a boolean.  products.price by a number.
-- transactions.card_last4 by a constant template.
CREATE TEMP TABLE masked_config AS
SELECT jsonb_build_object('tables', jsonb_agg(
	CASE t ->> 'name'
	WHEN 'users' THEN t || '{"columns": [
		{"name": "id"}, {"name": "shop_id"},
		{"name": "email", "replace_with": "user{id}@example.com"},
		{"name": "name", "raw_sql": "''User '' || id", "replace_with": "never used"},
		{"name": "phone", "replace_with": "+1-555-{id}-{shop_id}"},
		{"name": "vip", "replace_with": false}]}'
	WHEN 'products' THEN t || '{"columns": [
		{"name": "id"}, {"name": "shop_id"}, {"name": "category_id"},
		{"name": "name"}, {"name": "price", "replace_with": 1}]}'
	WHEN 'transactions' THEN t || '{"columns": [
		{"name": "id"}, {"name": "order_id"}, {"name": "amount"},
		{"name": "card_last4", "replace_with": "0000"}]}'
	ELSE t END ORDER BY t ->> 'name')) AS config
FROM jsonb_array_elements(exwiw_config_from_catalog() -> 'tables') AS t;

-- the masks are in the extraction queries
SELECT table_name, query FROM exwiw_plan('shops', '{1}', (SELECT config FROM masked_config))
WHERE table_name IN ('users', 'products');

SELECT file_name, chunk
FROM exwiw_export('shops', '{1}', (SELECT config FROM masked_config))
WHERE file_name ~ '(users|products|transactions)';

-- Not one original value of a masked column reaches its table's file, in
-- either format, for any shop.  (Prices are searched for in the products
-- file only: order totals legitimately hold the same numbers.  A value is
-- looked for as is and with its quotes doubled, as INSERT writes it.)
CREATE TEMP TABLE originals AS
	SELECT 'users' AS t, v FROM shop.users, LATERAL (VALUES (email), (name), (phone)) AS x(v)
	WHERE v IS NOT NULL
	UNION SELECT 'products', price::text FROM shop.products
	UNION SELECT 'transactions', card_last4 FROM shop.transactions WHERE card_last4 IS NOT NULL;
SELECT t, count(*) AS original_values FROM originals GROUP BY t ORDER BY t;
SELECT f.format, s.id, count(DISTINCT e.file_name) AS files_searched,
	   count(o.v) AS leaked
FROM (VALUES ('insert'), ('copy')) AS f(format)
CROSS JOIN (VALUES ('1'), ('2'), ('3')) AS s(id)
CROSS JOIN LATERAL exwiw_export('shops', ARRAY[s.id], (SELECT config FROM masked_config), f.format) AS e
LEFT JOIN originals o
  ON e.file_name ~ ('-' || o.t || '\.sql$') AND (strpos(e.chunk, o.v) > 0 OR strpos(e.chunk, replace(o.v, '''', '''''')) > 0)
WHERE e.file_name ~ '-(users|products|transactions)\.sql$'
GROUP BY f.format, s.id ORDER BY 1, 2;
-- the unmasked export does contain them, so the search above can find them
SELECT count(DISTINCT o.v) AS found_unmasked
FROM (VALUES ('1'), ('2'), ('3')) AS s(id)
CROSS JOIN LATERAL exwiw_export('shops', ARRAY[s.id]) AS e
JOIN originals o ON e.file_name ~ ('-' || o.t || '\.sql$') AND (strpos(e.chunk, o.v) > 0 OR strpos(e.chunk, replace(o.v, '''', '''''')) > 0);

-- NULLs stay NULL: transaction 4's card_last4 (shop 3), and user 2's email
-- and phone (shop 1, above)
SELECT chunk FROM exwiw_export('shops', '{3}', (SELECT config FROM masked_config), 'copy')
WHERE file_name ~ 'transactions';

-- a template on a numeric column is cast to the column's type
SELECT table_name, query FROM exwiw_plan('shops', '{1}',
	'[{"name": "shops", "primary_key": "id", "columns": [{"name": "id", "replace_with": "{id}0"}, {"name": "name"}]}]');
SELECT chunk FROM exwiw_export('shops', '{1,2}',
	'[{"name": "shops", "primary_key": "id", "columns": [{"name": "id", "replace_with": "{id}0"}, {"name": "name"}]}]');
