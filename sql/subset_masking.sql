--
-- Masking: replace_with templates and typed literals, raw_sql, inside the
-- extraction query
--
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
CROSS JOIN LATERAL exwiw_export('shops', ARRAY[s.id], exwiw_test_unmasked(exwiw_config_from_catalog())) AS e
JOIN originals o ON e.file_name ~ ('-' || o.t || '\.sql$') AND (strpos(e.chunk, o.v) > 0 OR strpos(e.chunk, replace(o.v, '''', '''''')) > 0);

-- NULLs stay NULL: transaction 4's card_last4 (shop 3), and user 2's email
-- and phone (shop 1, above)
SELECT chunk FROM exwiw_export('shops', '{3}', (SELECT config FROM masked_config), 'copy')
WHERE file_name ~ 'transactions';

-- A template is written as the text it makes, never cast to the column's
-- type (as the client writes it): nothing truncated, padded or reformatted.
-- A value the column cannot hold fails at load time, as with the client.
CREATE TABLE shop.codes (id int PRIMARY KEY, code varchar(5), price numeric(8,2),
	ok boolean, at timestamptz, note text, doc jsonb);
INSERT INTO shop.codes VALUES (1, 'abc', 1.5, true, '2026-01-01 00:00:00+00', NULL, '{"a": 1}'),
	(2, NULL, NULL, NULL, NULL, 'n', NULL);
SELECT output, query FROM exwiw_plan('codes', '{1}',
	'[{"name": "codes", "primary_key": "id", "columns": [{"name": "id"},
	  {"name": "code", "replace_with": "masked-{id}"}]}]') WHERE seq IS NOT NULL;
SELECT substr(chunk, strpos(chunk, E'END $exwiw$;\n') + 13) FROM exwiw_export('codes', '{1,2}',
	'[{"name": "codes", "primary_key": "id", "columns": [{"name": "id"},
	  {"name": "code", "replace_with": "masked-{id}"},
	  {"name": "price", "replace_with": 1.50},
	  {"name": "ok", "replace_with": false},
	  {"name": "at", "replace_with": "2000-01-01"},
	  {"name": "note", "replace_with": "{id}{}{ {id} }"},
	  {"name": "doc", "replace_with": "{}"}]}]');
-- a NULL that a template refers to is empty text, as the client's CONCAT
SELECT substr(chunk, strpos(chunk, E'END $exwiw$;\n') + 13) FROM exwiw_export('codes', '{1,2}',
	'[{"name": "codes", "primary_key": "id", "columns": [{"name": "id"}, {"name": "code"},
	  {"name": "note", "replace_with": "[{code}]"}]}]');

-- Masks hold through the structure.  A masked column that a foreign key
-- references is an error naming the referencing column ...
CREATE TABLE shop.badges (id int PRIMARY KEY, code varchar(5) UNIQUE);
CREATE TABLE shop.badge_uses (id int PRIMARY KEY, badge_code varchar(5) REFERENCES shop.badges (code));
INSERT INTO shop.badges VALUES (1, 'gold'); INSERT INTO shop.badge_uses VALUES (1, 'gold');
SELECT * FROM exwiw_plan('badges', '{1}', '[
	{"name": "badges", "primary_key": "id", "columns": [{"name": "id"}, {"name": "code", "replace_with": "b{id}"}]},
	{"name": "badge_uses", "primary_key": "id", "belongs_tos": [{"table_name": "badges", "foreign_key": "badge_code", "references": "code"}]}]');
-- ... also when only the catalog knows the foreign key ...
SELECT * FROM exwiw_plan('badges', '{1}', '[
	{"name": "badges", "primary_key": "id", "columns": [{"name": "id"}, {"name": "code", "replace_with": "b{id}"}]},
	{"name": "badge_uses", "primary_key": "id"}]');
-- ... unless the referencing column carries a mask too, which then holds
-- the same values: every file is masked, and they load.
SELECT file_name, substr(chunk, strpos(chunk, E'END $exwiw$;\n') + 13) FROM exwiw_export('badges', '{1}', '[
	{"name": "badges", "primary_key": "id", "columns": [{"name": "id"}, {"name": "code", "replace_with": "b{id}"}]},
	{"name": "badge_uses", "primary_key": "id", "columns": [{"name": "id"}, {"name": "badge_code", "raw_sql": "(SELECT ''b'' || b.id FROM shop.badges b WHERE b.code = badge_uses.badge_code)", "raw_sql_trusted": true}],
	 "belongs_tos": [{"table_name": "badges", "foreign_key": "badge_code", "references": "code"}]}]');
-- A constant under a unique index would make the load fail on the second
-- row: refused, naming the index (issue 37); a template that names a
-- column is not a constant.
SELECT * FROM exwiw_plan('badges', '{1}', '[
	{"name": "badges", "primary_key": "id", "columns": [{"name": "id"}, {"name": "code", "replace_with": "gold"}]}]');
SELECT count(*) FROM exwiw_plan('badges', '{1}', '[
	{"name": "badges", "primary_key": "id", "columns": [{"name": "id"}, {"name": "code", "replace_with": "b{id}"}]}]');
-- A masked primary key is refused unless its referencing columns are masked.
SELECT * FROM exwiw_plan('shops', '{1}', (
	SELECT jsonb_agg(CASE WHEN t ->> 'name' = 'shops' THEN t || '{"columns": [{"name": "id", "raw_sql": "id + 1000"}, {"name": "name"}]}' ELSE t END)
	FROM jsonb_array_elements(exwiw_config_from_catalog() -> 'tables') t));
-- A template may not copy a masked column, itself included.
SELECT * FROM exwiw_plan('codes', '{1}', '[{"name": "codes", "primary_key": "id", "columns": [{"name": "id"},
	{"name": "code", "replace_with": "x"}, {"name": "note", "replace_with": "{code}"}]}]');
SELECT * FROM exwiw_plan('codes', '{1}', '[{"name": "codes", "primary_key": "id", "columns": [{"name": "id"},
	{"name": "code", "replace_with": "{code}!"}]}]');
-- ... nor an ignored column, nor one the config leaves out: its original
-- value would reach the file all the same.
SELECT * FROM exwiw_plan('codes', '{1}', '[{"name": "codes", "primary_key": "id", "columns": [{"name": "id"},
	{"name": "code", "ignore": true}, {"name": "note", "replace_with": "{code}"}]}]');
SELECT * FROM exwiw_plan('codes', '{1}', '[{"name": "codes", "primary_key": "id", "columns": [{"name": "id"},
	{"name": "note", "replace_with": "n-{code}"}]}]');
-- A raw_sql may compute its own column from it, but may not name another
-- masked or ignored column, nor take the whole row while the table has one
-- (qualified by the table's name or not; another alias is another table).
SELECT * FROM exwiw_plan('codes', '{1}', '[{"name": "codes", "primary_key": "id", "columns": [{"name": "id"},
	{"name": "code", "raw_sql": "upper(code)"}, {"name": "note", "raw_sql": "''n'' || codes.code"}]}]');
SELECT * FROM exwiw_plan('codes', '{1}', '[{"name": "codes", "primary_key": "id", "columns": [{"name": "id"},
	{"name": "code", "ignore": true}, {"name": "note", "raw_sql": "(SELECT max(c.id) FROM shop.codes c) || shop.codes.code", "raw_sql_trusted": true}]}]');
SELECT * FROM exwiw_plan('codes', '{1}', '[{"name": "codes", "primary_key": "id", "columns": [{"name": "id"},
	{"name": "code", "replace_with": "c"}, {"name": "note", "raw_sql": "row_to_json(codes)::text"}]}]');
SELECT * FROM exwiw_plan('codes', '{1}', '[{"name": "codes", "primary_key": "id", "columns": [{"name": "id"},
	{"name": "code", "replace_with": "c"}, {"name": "doc", "raw_sql": "to_jsonb(codes.*)"}]}]');
SELECT output FROM exwiw_plan('codes', '{1}', '[{"name": "codes", "primary_key": "id", "columns": [{"name": "id"},
	{"name": "code", "raw_sql": "upper(code)"}, {"name": "note", "raw_sql": "(SELECT max(c.code) FROM shop.codes c WHERE c.id < codes.id) || (SELECT max(quantity) FROM shop.order_items)", "raw_sql_trusted": true}]}]')
WHERE seq IS NOT NULL;
-- Without "raw_sql_trusted", a raw_sql reads its own row only: a subquery
-- in any form, and a function that runs SQL or reads files or settings,
-- are refused (they would copy another table's masked or ignored column,
-- or the mask secret, into the file).
DO $$
DECLARE
	f text;
BEGIN
	FOREACH f IN ARRAY ARRAY['(SELECT c2.code FROM shop.codes c2 WHERE c2.id = codes.id)',
		'(SELECT c2 FROM shop.codes c2 WHERE c2.id = codes.id)::text',
		'(SELECT string_agg(code, '','') FROM shop.codes)',
		'CASE WHEN EXISTS (SELECT FROM shop.codes c2 WHERE c2.code LIKE ''a%'') THEN ''a'' END',
		'ARRAY(SELECT code FROM shop.codes)::text',
		'(SELECT x FROM (WITH w AS (SELECT code AS x FROM shop.codes) SELECT x FROM w) s LIMIT 1)',
		'(SELECT l.code FROM shop.codes c2, LATERAL (SELECT c2.code) l LIMIT 1)',
		'query_to_xml(''SELECT code FROM shop.codes'', true, true, '''')::text',
		'pg_catalog.current_setting(''exwiw.mask_secret'')',
		'pg_read_file(''/etc/hostname'')',
		'upper(note) || id']
	LOOP
		BEGIN
			PERFORM FROM exwiw_plan('codes', '{1}', jsonb_build_array(jsonb_build_object(
				'name', 'codes', 'primary_key', 'id', 'columns', jsonb_build_array(
					jsonb_build_object('name', 'id'), jsonb_build_object('name', 'code', 'ignore', true),
					jsonb_build_object('name', 'note', 'raw_sql', f)))));
			RAISE WARNING 'accepted: %', f;
		EXCEPTION WHEN OTHERS THEN
			RAISE WARNING '% % (%)', SQLSTATE, SQLERRM, f;
		END;
	END LOOP;
END $$;
-- A fake-data seed may not be the masked column itself (the same original
-- always gives the same fake value, so equal fakes show equal originals),
-- nor another masked or ignored column.
SELECT * FROM exwiw_plan('codes', '{1}', '[{"name": "codes", "primary_key": "id", "columns": [{"name": "id"},
	{"name": "code", "replace_with_fake_data": {"seed": "code", "type": "name"}}]}]');
SELECT * FROM exwiw_plan('codes', '{1}', '[{"name": "codes", "primary_key": "id", "columns": [{"name": "id"},
	{"name": "code", "replace_with_fake_data": {"seed": "note", "type": "name"}}, {"name": "note", "raw_sql": "NULL"}]}]');
SELECT * FROM exwiw_plan('codes', '{1}', '[{"name": "codes", "primary_key": "id", "columns": [{"name": "id"},
	{"name": "code", "replace_with_fake_data": {"seed": "codes.note", "type": "name"}}, {"name": "note", "ignore": true}]}]');
SELECT output FROM exwiw_plan('codes', '{1}', '[{"name": "codes", "primary_key": "id", "columns": [{"name": "id"},
	{"name": "code", "replace_with_fake_data": {"seed": "id", "type": "name"}}]}]')
WHERE seq IS NOT NULL;

-- An error while reading a masked table names the table and the masked
-- columns, never a value: here the original email would be in PostgreSQL's
-- own message ("invalid input syntax for type integer: ...").
SELECT * FROM exwiw_export('shops', '{1}', (
	SELECT jsonb_agg(CASE WHEN t ->> 'name' = 'users' THEN t || '{"columns": [{"name": "id"}, {"name": "shop_id"}, {"name": "name"}, {"name": "email", "raw_sql": "email::int"}]}' ELSE t END)
	FROM jsonb_array_elements(exwiw_config_from_catalog() -> 'tables') t), allow_undecided => true);
-- unmasked tables keep PostgreSQL's message
SELECT * FROM exwiw_export('shops', '{1}', '[{"name": "shops", "primary_key": "id", "filter": "name::int > 0"}]');
