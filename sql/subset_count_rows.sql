--
-- exwiw_explain(..., count_rows => true): each file's rows counted on the
-- export's snapshot without running its query (issue 40: "exwiw explain
-- --exact", "export --max-rows").  A file read by key from the set of its
-- keys takes that set's rows; any other, a count(*) over its FROM and
-- WHERE.  Either must equal the rows its own query returns (EXPLAIN
-- ANALYZE's, the count "exwiw explain --analyze" prints and the manifest
-- agrees with, t/010), on every shape: partitions, inheritance, composite
-- and character keys, two self-references, odd names, keyless tables,
-- filters with closure, batch_scope, limits and samples, and with the sets
-- carried as CTEs (Citus), where no set is a relation.
--
\i test/subset/shapes.sql
SET client_min_messages = warning;

CREATE TEMP TABLE cases (name text, target text, ids text[], cfg jsonb);
INSERT INTO cases
SELECT 'plain ' || target || ' ' || ids::text, target, ids, exwiw_config_from_catalog()
FROM (VALUES ('shops', '{1}'::text[]), ('shops', '{1,2}'), ('orders', '{150}'),
			 ('tenants', '{ab}'), ('films', '{1,2,3}')) AS v(target, ids);
-- a filter whose closure brings rows back, a limit, a sample; and with
-- batch_scope (which needs the sets as relations)
INSERT INTO cases
SELECT 'filtered and sliced' || CASE WHEN batch THEN ', batched' ELSE '' END, 'shops', '{1,2}',
	   (SELECT jsonb_agg(CASE t ->> 'name'
						 WHEN 'films' THEN t || '{"filter": "films.id % 2 = 0"}'
						 WHEN 'orders' THEN t || '{"limit": {"rows": 2, "per": "shop_id", "order_by": "total DESC, id"}}'
						 WHEN 'order_lines' THEN t || '{"sample": 0.5}'
						 WHEN 'inventory' THEN CASE WHEN batch THEN t || '{"batch_scope": {"table": "shops", "size": 1}}' ELSE t END
						 WHEN 'shops' THEN t || '{"scope_column": "id"}'
						 ELSE t END)
		FROM jsonb_array_elements(exwiw_config_from_catalog() -> 'tables') t)
FROM (VALUES (false), (true)) AS b(batch);

CREATE TEMP TABLE counted AS
SELECT c.name, false AS ctes, e.seq, e.table_name, e.actual_rows AS counted, a.actual_rows AS analyzed
FROM cases c,
	 LATERAL exwiw_explain(c.target, c.ids, c.cfg, count_rows => true) e
	 LEFT JOIN LATERAL exwiw_explain(c.target, c.ids, c.cfg, actual => true) a USING (seq);
SET exwiw.sets_as_ctes = on;
INSERT INTO counted
SELECT c.name, true, e.seq, e.table_name, e.actual_rows, a.actual_rows
FROM cases c,
	 LATERAL exwiw_explain(c.target, c.ids, c.cfg, count_rows => true) e
	 LEFT JOIN LATERAL exwiw_explain(c.target, c.ids, c.cfg, actual => true) a USING (seq)
WHERE c.name NOT LIKE '%batched';
RESET exwiw.sets_as_ctes;

-- a cycle through a nullable key: its fix-up file (the keys written NULL,
-- set once all is loaded) is counted too
CREATE SCHEMA cnt_cyc;
CREATE TABLE cnt_cyc.teams (id int PRIMARY KEY, captain_id int);
CREATE TABLE cnt_cyc.members (id int PRIMARY KEY, team_id int NOT NULL REFERENCES cnt_cyc.teams);
ALTER TABLE cnt_cyc.teams ADD FOREIGN KEY (captain_id) REFERENCES cnt_cyc.members;
INSERT INTO cnt_cyc.teams VALUES (1, NULL), (2, NULL), (3, NULL);
INSERT INTO cnt_cyc.members VALUES (1, 1), (2, 1), (3, 2), (4, 3);
UPDATE cnt_cyc.teams SET captain_id = id + 1;
ANALYZE cnt_cyc.teams, cnt_cyc.members;
SET search_path = cnt_cyc, public;
INSERT INTO counted
SELECT 'cycle', false, e.seq, e.table_name, e.actual_rows, a.actual_rows
FROM exwiw_explain('teams', '{1,2}', exwiw_config_from_catalog('cnt_cyc'), count_rows => true) e
	 LEFT JOIN LATERAL exwiw_explain('teams', '{1,2}', exwiw_config_from_catalog('cnt_cyc'), actual => true) a USING (seq);
SELECT p.seq, p.table_name, p.rule, c.counted
FROM exwiw_plan('teams', '{1,2}', exwiw_config_from_catalog('cnt_cyc')) p
	 JOIN counted c ON c.name = 'cycle' AND c.seq = p.seq
ORDER BY p.seq;
SET search_path = shapes, public;

-- not vacuous: every case counts files with rows, in both modes
SELECT name, ctes, count(*) AS files, sum(counted) > 0 AS some_rows
FROM counted GROUP BY 1, 2 ORDER BY 1, 2;
-- every file: the count equals the rows its query returns
SELECT name, ctes, seq, table_name, counted, analyzed
FROM counted WHERE counted IS DISTINCT FROM analyzed ORDER BY 1, 2, 3;
-- batch_scope slices the rows, it adds none: the same rows per file as
-- without it (a batch table whose scope column is its key once made each
-- batch read every id's rows, each row written once per batch)
SELECT b.table_name, b.analyzed AS batched, u.analyzed AS unbatched
FROM counted b JOIN counted u USING (seq, ctes)
WHERE b.name = 'filtered and sliced, batched' AND u.name = 'filtered and sliced'
  AND b.analyzed IS DISTINCT FROM u.analyzed;
-- a file's count without count_rows or actual: none
SELECT count(*) AS counts_without_asking
FROM exwiw_explain('shops', '{1}', exwiw_config_from_catalog()) WHERE actual_rows IS NOT NULL;
-- NULL is refused as the other flags are
SELECT count(*) FROM exwiw_explain('shops', '{1}', NULL, false, NULL, NULL);
DROP SCHEMA cnt_cyc CASCADE;
RESET client_min_messages;
