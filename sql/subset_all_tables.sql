-- Every table, masked, no target (issue 38, item 7): the newest Ruby
-- client's export without --target-table, which the exwiw client runs as
-- --all-tables by making every table scope_exempt and passing no target
-- and no ids.  Each file reads its table straight (no row set is computed
-- first: nothing to close over), the files come in foreign-key order, and
-- they load as a role that owns nothing, every foreign key enforced.
SET client_min_messages = warning;
CREATE SCHEMA at;
SET search_path = at, public;
CREATE TABLE shops (id int PRIMARY KEY, name text NOT NULL);
CREATE TABLE users (id int PRIMARY KEY, shop_id int NOT NULL REFERENCES shops,
	email text NOT NULL, note text);
CREATE TABLE orders (id int PRIMARY KEY, user_id int REFERENCES users, total int NOT NULL);
CREATE TABLE tags (name text PRIMARY KEY);
INSERT INTO shops VALUES (1, 'one'), (2, 'two');
INSERT INTO users VALUES (10, 1, 'a@secret.test', 'n1'), (11, 2, 'b@secret.test', NULL),
	(12, 2, 'c@secret.test', 'n3');
INSERT INTO orders VALUES (100, 10, 5), (101, 12, 7), (102, NULL, 9);
INSERT INTO tags VALUES ('x'), ('y');
CREATE TEMP TABLE cfg AS SELECT '[
  {"name": "orders", "primary_key": "id", "scope_exempt": true,
   "belongs_tos": [{"table_name": "users", "foreign_key": "user_id"}]},
  {"name": "users", "primary_key": "id", "scope_exempt": true,
   "belongs_tos": [{"table_name": "shops", "foreign_key": "shop_id"}],
   "columns": [{"name": "id"}, {"name": "shop_id"},
     {"name": "email", "replace_with": "user{id}@example.com"}, {"name": "note"}]},
  {"name": "shops", "primary_key": "id", "scope_exempt": true},
  {"name": "tags", "primary_key": "name", "scope_exempt": true}]'::jsonb AS c;

-- the plan: no row set, every table's rule "every row", parents first
SELECT p.step, p.seq, p.table_name, p.rule FROM cfg, exwiw_plan(NULL, '{}', cfg.c) p ORDER BY p.step;

CREATE TEMP TABLE exported AS
SELECT row_number() OVER () AS n, e.file_name, e.chunk
FROM cfg, exwiw_export(NULL, '{}', cfg.c) e;
SELECT file_name, count(*) > 0 AS has_chunks FROM exported GROUP BY file_name ORDER BY file_name;
-- no masked value reached a file
SELECT count(*) AS leaks FROM exported WHERE chunk LIKE '%secret.test%';

-- load into a copy as a role that owns nothing, every foreign key enforced
CREATE SCHEMA at_copy;
CREATE TABLE at_copy.shops (LIKE at.shops INCLUDING ALL);
CREATE TABLE at_copy.users (LIKE at.users INCLUDING ALL, FOREIGN KEY (shop_id) REFERENCES at_copy.shops);
CREATE TABLE at_copy.orders (LIKE at.orders INCLUDING ALL, FOREIGN KEY (user_id) REFERENCES at_copy.users);
CREATE TABLE at_copy.tags (LIKE at.tags INCLUDING ALL);
CREATE ROLE at_loader;
GRANT USAGE ON SCHEMA at_copy TO at_loader;
GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA at_copy TO at_loader;
GRANT SELECT ON exported TO at_loader;
SET ROLE at_loader;
SET search_path = at_copy;
DO $$
DECLARE
	f record;
BEGIN
	FOR f IN SELECT file_name, string_agg(chunk, E'\n' ORDER BY n) || E'\n' AS body
			 FROM exported GROUP BY file_name ORDER BY file_name
	LOOP
		EXECUTE f.body;
	END LOOP;
END
$$;
RESET ROLE;
REVOKE SELECT ON exported FROM at_loader;
SET search_path = at, public;
SELECT 'shops' AS t, count(*) AS differ FROM ((TABLE at.shops EXCEPT TABLE at_copy.shops)
	UNION ALL (TABLE at_copy.shops EXCEPT TABLE at.shops)) d
UNION ALL
SELECT 'users', count(*) FROM ((SELECT id, shop_id, note FROM at.users EXCEPT SELECT id, shop_id, note FROM at_copy.users)
	UNION ALL (SELECT id, shop_id, note FROM at_copy.users EXCEPT SELECT id, shop_id, note FROM at.users)) d
UNION ALL
SELECT 'orders', count(*) FROM ((TABLE at.orders EXCEPT TABLE at_copy.orders)
	UNION ALL (TABLE at_copy.orders EXCEPT TABLE at.orders)) d
UNION ALL
SELECT 'tags', count(*) FROM ((TABLE at.tags EXCEPT TABLE at_copy.tags)
	UNION ALL (TABLE at_copy.tags EXCEPT TABLE at.tags)) d;
SELECT id, email FROM at_copy.users ORDER BY id;

-- without a target or ids, a table that is not scope_exempt is refused
SELECT count(*) FROM exwiw_export(NULL, '{}', '[{"name": "shops", "primary_key": "id", "scope_exempt": true},
  {"name": "tags", "primary_key": "name"}]');
-- ids without a scope column stay an error
SELECT count(*) FROM exwiw_export(NULL, '{1}', '[{"name": "shops", "primary_key": "id", "scope_exempt": true}]');

RESET search_path;
DROP SCHEMA at, at_copy CASCADE;
DROP ROLE at_loader;
RESET client_min_messages;
