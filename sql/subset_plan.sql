--
-- exwiw_plan: processing order, row selection rules, cycles, NOTICEs
--

\i test/subset/fixture.sql

-- The fixture, shop 1: parents first, ties by name.  The NOTICE names the
-- foreign key without an index and the index that would help.
SELECT seq, table_name, output, rule FROM exwiw_plan('shops', '{1}') WHERE seq IS NOT NULL;
-- every step, as it runs: the row sets, computed once each, then one
-- query per file
SELECT step, seq, output, rule, query FROM exwiw_plan('shops', '{1,2}');
SET client_min_messages = warning;

-- Shortest path: order_items reaches shops both through orders and through
-- products (2 steps each); the tie goes to the parent with the smaller name,
-- orders.  Target users: orders are selected through user_id, and
-- order_items through orders.
SELECT seq, table_name, rule FROM exwiw_plan('users', '{2}')
WHERE table_name IN ('orders', 'order_items', 'products') AND seq IS NOT NULL;

-- Filters apply to the tables on the path: with a filter on orders, shop
-- 1's orders are 1 and 3 (order 2 totals 399.99), and order_items are
-- selected through those only (1, 2, 6).
SELECT seq, table_name, output, query
FROM exwiw_plan('shops', '{1}', (
	SELECT jsonb_agg(CASE t ->> 'name'
					 WHEN 'orders' THEN t || '{"filter": "total > 400"}'
					 ELSE t END)
	FROM jsonb_array_elements(exwiw_config_from_catalog() -> 'tables') t))
WHERE table_name IN ('orders', 'order_items');
SELECT file_name, substr(chunk, strpos(chunk, 'INSERT')) AS statements
FROM exwiw_export('shops', '{1}', (
	SELECT jsonb_agg(CASE t ->> 'name'
					 WHEN 'orders' THEN t || '{"filter": "total > 400"}'
					 ELSE t END)
	FROM jsonb_array_elements(exwiw_config_from_catalog() -> 'tables') t), allow_undecided => true) e
WHERE file_name ~ '(orders|order_items)';

-- An ignored table has no file (it keeps its number), and a table with no
-- relation to the target is exported in full, with its filter.
SELECT seq, table_name, query
FROM exwiw_plan('shops', '{1}', (
	SELECT jsonb_agg(CASE t ->> 'name'
					 WHEN 'transactions' THEN t || '{"ignore": true}'
					 WHEN 'announcements' THEN t || '{"filter": "body LIKE ''W%''"}'
					 ELSE t END)
	FROM jsonb_array_elements(exwiw_config_from_catalog() -> 'tables') t))
WHERE table_name IN ('transactions', 'announcements') AND seq IS NOT NULL;

-- Cycles: employees.team_id -> teams and teams.lead_id -> employees.  The
-- cycle is broken as the client breaks it (a member of the cycle, then the
-- fewest unresolved parents, then the name), with a WARNING
-- naming the edge; self-references (employees.mentor_id) are no cycle.
RESET client_min_messages;
CREATE SCHEMA cyc;
SET search_path = cyc, public;
CREATE TABLE cyc.teams (id int PRIMARY KEY, lead_id int, name text);
CREATE TABLE cyc.employees (id int PRIMARY KEY, team_id int REFERENCES cyc.teams,
	mentor_id int REFERENCES cyc.employees, name text);
ALTER TABLE cyc.teams ADD FOREIGN KEY (lead_id) REFERENCES cyc.employees;
CREATE INDEX ON cyc.employees (team_id);
CREATE INDEX ON cyc.employees (mentor_id);
CREATE INDEX ON cyc.teams (lead_id);
INSERT INTO cyc.teams VALUES (1, NULL, 'core'), (2, NULL, 'web');
INSERT INTO cyc.employees VALUES (10, 1, NULL, 'ann'), (11, 1, 10, 'ben'),
	(12, 2, 11, 'cy'), (13, 2, 12, 'dee');
UPDATE cyc.teams SET lead_id = 10 WHERE id = 1;
UPDATE cyc.teams SET lead_id = 13 WHERE id = 2;
SELECT step, seq, table_name, output, query FROM exwiw_plan('teams', '{2}', exwiw_config_from_catalog());
-- team 2, its lead (13) and the mentors above 13 (12, 11, 10), by the
-- recursive CTE.  Through the broken edge nothing is selected or added:
-- employees 10 and 11 reference team 1, which the load must tolerate.
SELECT file_name, chunk FROM exwiw_export('teams', '{2}', exwiw_config_from_catalog(), allow_undecided => true);
-- deterministic: the same plan every time
SELECT count(DISTINCT q) AS distinct_plans FROM (
	SELECT (SELECT string_agg(query, ';' ORDER BY seq)
			FROM exwiw_plan('teams', '{2}', exwiw_config_from_catalog())) AS q
	FROM generate_series(1, 3)) s;

-- File order as the client: rounds, config order within a round.  In
-- reversed config order the rounds stay the same, but the tables of a round
-- come in the new order.
SELECT string_agg(table_name, ', ' ORDER BY seq) AS by_name
FROM exwiw_plan('shop.shops', '{1}', exwiw_config_from_catalog('shop')) WHERE seq IS NOT NULL;
SELECT string_agg(table_name, ', ' ORDER BY seq) AS reversed
FROM exwiw_plan('shop.shops', '{1}', (SELECT jsonb_agg(t ORDER BY n DESC)
	FROM jsonb_array_elements(exwiw_config_from_catalog('shop') -> 'tables') WITH ORDINALITY AS x(t, n)))
WHERE seq IS NOT NULL;

-- A filter narrows the rows a table contributes on its own; rows that
-- exported rows reference are exported anyway, or the load would fail, and
-- a NOTICE says how many.  On a table whose rows come only through
-- references (categories), it narrows nothing: category 1 and 2 are
-- ancestors of exported categories.
RESET client_min_messages;
SET search_path = shop, public;
SELECT file_name, substr(chunk, strpos(chunk, E'END $exwiw$;\n') + 13) AS statements
FROM exwiw_export('shops', '{1}', (
	SELECT jsonb_agg(CASE t ->> 'name'
					 WHEN 'categories' THEN t || '{"filter": "name <> ''All''"}'
					 WHEN 'users' THEN t || '{"filter": "vip"}'
					 WHEN 'transactions' THEN t || '{"ignore": true}'
					 ELSE t END)
	FROM jsonb_array_elements(exwiw_config_from_catalog() -> 'tables') t), allow_undecided => true)
WHERE file_name ~ '(categories|users)';
SET client_min_messages = warning;
SET search_path = cyc, public;

-- More than 999 tables: every file number gets the same width, so that the
-- names still sort in load order.
CREATE SCHEMA many;
SET search_path = many;
DO $$ BEGIN FOR i IN 1..1001 LOOP EXECUTE format('CREATE TABLE t%s (id int PRIMARY KEY)', lpad(i::text, 4, '0')); END LOOP; END $$;
SELECT seq, output FROM public.exwiw_plan('t0001', '{1}') WHERE seq IN (1, 2, 999, 1000, 1001) ORDER BY seq;
SELECT bool_and(output COLLATE "C" < lead_name) AS names_sort_in_load_order
FROM (SELECT output, lead(output) OVER (ORDER BY seq) AS lead_name FROM public.exwiw_plan('t0001', '{1}') WHERE seq IS NOT NULL) s
WHERE lead_name IS NOT NULL;
SET client_min_messages = warning;
DROP SCHEMA many CASCADE;
RESET client_min_messages;

-- The internal functions are found whatever the caller's search_path.
CREATE SCHEMA few;
CREATE TABLE few.a (id int PRIMARY KEY);
CREATE TABLE few.b (id int PRIMARY KEY, a_id int REFERENCES few.a);
SET search_path = pg_catalog;
SELECT seq, table_name, output FROM public.exwiw_plan('few.a', '{1}', public.exwiw_config_from_catalog('few')) WHERE seq IS NOT NULL;
RESET search_path;
DROP SCHEMA few CASCADE;
