--
-- exwiw_plan: processing order, row selection rules, cycles, NOTICEs
--

\i test/subset/fixture.sql

-- The fixture, shop 1: parents first, ties by name.  The NOTICE names the
-- foreign key without an index and the index that would help.
SELECT seq, table_name, file_name FROM exwiw_plan('shops', '{1}');
-- every query, as it runs
SELECT seq, query FROM exwiw_plan('shops', '{1,2}');
SET client_min_messages = warning;

-- Shortest path: order_items reaches shops both through orders and through
-- products (2 steps each); the tie goes to the parent with the smaller name,
-- orders.  Target users: orders are selected through user_id, and
-- order_items through orders.
SELECT seq, table_name, query FROM exwiw_plan('users', '{2}')
WHERE table_name IN ('orders', 'order_items', 'products');

-- Filters apply to the tables on the path: with a filter on orders, shop
-- 1's orders are 1 and 3 (order 2 totals 399.99), and order_items are
-- selected through those only (1, 2, 6).
SELECT seq, table_name, query
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
	FROM jsonb_array_elements(exwiw_config_from_catalog() -> 'tables') t)) e
WHERE file_name ~ '(orders|order_items)';

-- An ignored table has no plan row, and a table with no relation to the
-- target is exported in full, with its filter.
SELECT seq, table_name, query
FROM exwiw_plan('shops', '{1}', (
	SELECT jsonb_agg(CASE t ->> 'name'
					 WHEN 'transactions' THEN t || '{"ignore": true}'
					 WHEN 'announcements' THEN t || '{"filter": "body LIKE ''W%''"}'
					 ELSE t END)
	FROM jsonb_array_elements(exwiw_config_from_catalog() -> 'tables') t))
WHERE table_name IN ('transactions', 'announcements');

-- Cycles: employees.team_id -> teams and teams.lead_id -> employees.  The
-- cycle is broken at the table with the smallest name on it, with a WARNING
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
SELECT seq, table_name, query FROM exwiw_plan('teams', '{2}', exwiw_config_from_catalog());
-- team 2, its lead (13) and the mentors above 13 (12, 11, 10), by the
-- recursive CTE.  Through the broken edge nothing is selected or added:
-- employees 10 and 11 reference team 1, which the load must tolerate.
SELECT file_name, chunk FROM exwiw_export('teams', '{2}', exwiw_config_from_catalog());
-- deterministic: the same plan every time
SELECT count(DISTINCT q) AS distinct_plans FROM (
	SELECT (SELECT string_agg(query, ';' ORDER BY seq)
			FROM exwiw_plan('teams', '{2}', exwiw_config_from_catalog())) AS q
	FROM generate_series(1, 3)) s;

-- More than 999 tables: every file number gets the same width, so that the
-- names still sort in load order.
CREATE SCHEMA many;
SET search_path = many;
DO $$ BEGIN FOR i IN 1..1001 LOOP EXECUTE format('CREATE TABLE t%s (id int PRIMARY KEY)', lpad(i::text, 4, '0')); END LOOP; END $$;
SELECT seq, file_name FROM public.exwiw_plan('t0001', '{1}') WHERE seq IN (1, 2, 999, 1000, 1001) ORDER BY seq;
SELECT bool_and(file_name COLLATE "C" < lead_name) AS names_sort_in_load_order
FROM (SELECT file_name, lead(file_name) OVER (ORDER BY seq) AS lead_name FROM public.exwiw_plan('t0001', '{1}')) s
WHERE lead_name IS NOT NULL;
SET client_min_messages = warning;
DROP SCHEMA many CASCADE;
RESET client_min_messages;

-- The internal functions are found whatever the caller's search_path.
CREATE SCHEMA few;
CREATE TABLE few.a (id int PRIMARY KEY);
CREATE TABLE few.b (id int PRIMARY KEY, a_id int REFERENCES few.a);
SET search_path = pg_catalog;
SELECT seq, table_name, file_name FROM public.exwiw_plan('few.a', '{1}', public.exwiw_config_from_catalog('few'));
RESET search_path;
DROP SCHEMA few CASCADE;
