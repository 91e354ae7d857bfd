--
-- Config validation: every error names the table and the key
--

\i test/subset/fixture.sql
CREATE TABLE gen_t (id int PRIMARY KEY, a int, b int GENERATED ALWAYS AS (a * 2) STORED);

-- the shape of the document
SELECT * FROM exwiw_plan('shops', '{1}', '"shops"');
SELECT * FROM exwiw_plan('shops', '{1}', '{"tables": [], "version": 1}');
SELECT * FROM exwiw_plan('shops', '{1}', '{}');
SELECT * FROM exwiw_plan('shops', '{1}', '{"tables": {"name": "shops"}}');
SELECT * FROM exwiw_plan('shops', '{1}', '[1]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"primary_key": "id"}]');
-- table keys
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id", "colums": []}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shopz", "primary_key": "id"}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "a.b.c"}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id"}, {"name": "shops"}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": 1}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "shop_id"}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id", "filter": true}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id", "ignore": "yes"}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id", "bulk_insert_chunk_size": 0}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id", "bulk_insert_chunk_size": "100"}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id", "comment": ["a"]}]');
-- columns
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id", "columns": {"name": "id"}}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id", "columns": []}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id", "columns": ["id"]}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id", "columns": [{"name": "id", "mask": "x"}]}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id", "columns": [{"nam": "id"}]}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id", "columns": [{"name": "title"}]}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id", "columns": [{"name": "id"}, {"name": "id"}]}]');
SELECT * FROM exwiw_plan('gen_t', '{1}', '[{"name": "gen_t", "primary_key": "id", "columns": [{"name": "id"}, {"name": "b"}]}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id", "columns": [{"name": "name", "replace_with": ["x"]}]}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id", "columns": [{"name": "name", "replace_with": "shop{nr}"}]}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id", "columns": [{"name": "name", "raw_sql": 1}]}]');
-- belongs_tos
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id"}, {"name": "users", "primary_key": "id", "belongs_tos": {"table_name": "shops"}}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id"}, {"name": "users", "primary_key": "id", "belongs_tos": ["shops"]}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id"}, {"name": "users", "primary_key": "id", "belongs_tos": [{"table_name": "shops", "foreign_key": "shop_id", "on": "id"}]}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id"}, {"name": "users", "primary_key": "id", "belongs_tos": [{"table_name": "shops"}]}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id"}, {"name": "users", "primary_key": "id", "belongs_tos": [{"table_name": "stores", "foreign_key": "shop_id"}]}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id"}, {"name": "users", "primary_key": "id", "belongs_tos": [{"table_name": "shops", "foreign_key": "store_id"}]}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops"}, {"name": "users", "primary_key": "id", "belongs_tos": [{"table_name": "shops", "foreign_key": "shop_id"}]}]');
SELECT * FROM exwiw_plan('users', '{1}', '[{"name": "shops", "primary_key": "id", "ignore": true}, {"name": "users", "primary_key": "id", "belongs_tos": [{"table_name": "shops", "foreign_key": "shop_id"}]}]');
-- the target
SELECT * FROM exwiw_plan('stores', '{1}', '[{"name": "shops", "primary_key": "id"}]');
-- a misspelt target: the config's nearest names
SELECT * FROM exwiw_plan('shop', '{1}', '[{"name": "shops", "primary_key": "id"}, {"name": "users", "primary_key": "id"}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id", "ignore": true}]');
SELECT * FROM exwiw_plan('order_tags', '{1}');
SELECT * FROM exwiw_plan('shops', NULL);
SELECT * FROM exwiw_plan(NULL, '{1}');
SELECT * FROM exwiw_plan('shops', '{1,x}', '[{"name": "shops", "primary_key": "id"}]');
-- raw SQL is checked when the query runs: the error names the query
SELECT * FROM exwiw_export('shops', '{1}', '[{"name": "shops", "primary_key": "id", "filter": "nope > 1"}]');
-- the same errors from exwiw_export
SELECT * FROM exwiw_export('shops', '{1}', '[{"name": "shops", "primary_key": "id", "colums": []}]');
-- a valid minimal config: ignore, comment, null values, no columns key
SELECT seq, table_name, query FROM exwiw_plan('shops', '{1}',
	'[{"name": "shops", "primary_key": "id", "comment": "the tenant", "filter": null, "bulk_insert_chunk_size": null},
	  {"name": "announcements", "primary_key": "id", "ignore": true}]');

-- user fragments must be one SQL expression each: a filter cannot close
-- its parentheses and widen the selection, nor hide a second statement
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id", "filter": "true) OR (true"}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id", "filter": "true; DROP TABLE shop.shops"}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id", "filter": "true FROM shop.users"}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id", "filter": "true AS x"}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id", "filter": "/* open"}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id", "columns": [{"name": "id"}, {"name": "name", "raw_sql": "1, 2"}]}]');
-- a trailing comment is fine: the fragment is on lines of its own
SELECT query FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id", "filter": "id > 0 -- positive"}]') WHERE seq = 1;
SELECT count(*) FROM exwiw_export('shops', '{1}', '[{"name": "shops", "primary_key": "id", "filter": "id > 0 -- positive"}]');
-- keys: composite, references
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": []}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": ["id", "id"]}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id"}, {"name": "users", "primary_key": "id", "belongs_tos": [{"table_name": "shops", "foreign_key": ["shop_id", "id"]}]}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id"}, {"name": "users", "primary_key": "id", "belongs_tos": [{"table_name": "shops", "foreign_key": "shop_id", "references": "nope"}]}]');
-- belongs_to and column keys of the Ruby client: ignore, ignore_type
SELECT seq, table_name, rule FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id"}, {"name": "users", "primary_key": "id", "belongs_tos": [{"table_name": "shops", "foreign_key": "shop_id", "ignore": true, "ignore_type": "cross_database"}], "columns": [{"name": "id"}, {"name": "email", "ignore": true}]}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id", "columns": [{"name": "id", "ignore": true}, {"name": "name", "ignore": true}]}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id", "columns": [{"name": "id", "needs_mask_decision": "no"}]}]');
