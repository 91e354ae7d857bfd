--
-- Subset export on schema shapes you did not design: partitions (keys on
-- the parent, on the partitions, to a partitioned table), inheritance,
-- composite keys, several keys to one parent, character(n) and bit(n) keys,
-- nextval defaults, generated and identity columns, two self-references,
-- odd names.  test/t/subset_shapes.sh loads these exports with every
-- constraint enforced.
--
\i test/subset/shapes.sql
SET client_min_messages = warning;

-- The config from the catalog: partitions never appear, keys declared on
-- partitions (payments) are edges of the partitioned table, the key that
-- references the partitioned orders is one edge, films has two edges to
-- languages, the composite key of casting_notes follows film_actors'
-- primary key order, secret_notes (a child by inheritance) is a table of
-- its own, invoices.gross (generated) is left out; * marks a column that
-- needs a mask decision.
SELECT t ->> 'name' AS name, t -> 'primary_key' AS pk,
	   (SELECT string_agg((b -> 'foreign_key')::text || ' -> ' || (b ->> 'table_name'), ', ')
		FROM jsonb_array_elements(t -> 'belongs_tos') b) AS belongs_tos,
	   (SELECT string_agg((c ->> 'name') || CASE WHEN c ? 'needs_mask_decision' THEN '*' ELSE '' END, ', ')
		FROM jsonb_array_elements(t -> 'columns') c) AS columns,
	   t ->> 'comment' AS comment
FROM jsonb_array_elements(exwiw_config_from_catalog() -> 'tables') AS t;

-- The plan of shop 1: file order in rounds, config order within a round;
-- which rule selects each table's rows.
SELECT seq, table_name, output, rule FROM exwiw_plan('shops', '{1}') WHERE seq IS NOT NULL;

-- The files of shop 1.  One file in full; of the others only the rows (the
-- prologue is the same in every file).
SELECT chunk FROM exwiw_export('shops', '{1}', allow_undecided => true) WHERE file_name = 'insert-003-shops.sql';
SELECT file_name, substr(chunk, strpos(chunk, E'END $exwiw$;\n') + 13) AS statements
FROM exwiw_export('shops', '{1}', allow_undecided => true) WHERE file_name <> 'insert-003-shops.sql';

-- The same with format copy: identity needs nothing, the generated column
-- is still left out.
SELECT file_name, substr(chunk, strpos(chunk, E'END $exwiw$;\n') + 13) AS statements
FROM exwiw_export('shops', '{1}', format => 'copy', allow_undecided => true)
WHERE file_name ~ '(invoices|tickets|payments)';

-- A partitioned table as the target: payment 101 comes through a key
-- declared on its partition only; order lines 2 and 4.
SELECT file_name, substr(chunk, strpos(chunk, E'END $exwiw$;\n') + 13) AS statements
FROM exwiw_export('orders', '{150}', allow_undecided => true);

-- A composite key as the target: ids are one array per key, in key order.
SELECT file_name, substr(chunk, strpos(chunk, E'END $exwiw$;\n') + 13) AS statements
FROM exwiw_export('film_actors', ARRAY[['1', '1']], allow_undecided => true);
SELECT * FROM exwiw_plan('film_actors', '{1,1}');
SELECT * FROM exwiw_plan('film_actors', ARRAY[['1', '1', '1']]);

-- character(2) and bit(3) keys: ids are cast to the key's exact type;
-- 'ab' is tenant ab, never tenant 'a'; a value that does not fit is an
-- error; an id that matches no row is a NOTICE.
SELECT file_name, substr(chunk, strpos(chunk, E'END $exwiw$;\n') + 13) AS statements
FROM exwiw_export('tenants', '{ab}', allow_undecided => true);
SELECT * FROM exwiw_export('tenants', '{abc}', allow_undecided => true);
RESET client_min_messages;
SELECT count(*) FROM exwiw_export('tenants', '{zz,ab,yy}', allow_undecided => true);
SET client_min_messages = warning;
SELECT file_name FROM exwiw_export('flags', '{011}', allow_undecided => true);
SELECT * FROM exwiw_export('flags', '{1}', allow_undecided => true);

-- Several keys to one parent as the path: films of language 2 through
-- language_id (the tie between language_id and original_language_id goes
-- to the first by name); none here, so only the language itself.
SELECT seq, table_name, rule FROM exwiw_plan('languages', '{2}') WHERE seq IS NOT NULL AND table_name IN ('films', 'languages');

-- Inheritance: notes is read with ONLY, and secret_notes (whose rows notes
-- would otherwise show) is exported only through its own entry: with
-- secret_notes ignored, no secret reaches any file.
SELECT count(*) AS files_with_a_secret
FROM exwiw_export('shops', '{1,2}', (
	SELECT jsonb_agg(CASE WHEN t ->> 'name' = 'secret_notes' THEN t || '{"ignore": true}' ELSE t END)
	FROM jsonb_array_elements(exwiw_config_from_catalog() -> 'tables') t), allow_undecided => true)
WHERE chunk ~ 'S1|S2|secret';

-- A partition in the config is an error; so is one table under two names.
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id"}, {"name": "orders_low", "primary_key": "id"}]');
SELECT * FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id"}, {"name": "shapes.shops", "primary_key": "id"}]');

-- An ignored table keeps its number in the file order, as in the client
-- (languages is 003 either way).
SELECT seq, output FROM exwiw_plan('shops', '{1}', (
	SELECT jsonb_agg(CASE WHEN t ->> 'name' = 'audit_log' THEN t || '{"ignore": true}' ELSE t END)
	FROM jsonb_array_elements(exwiw_config_from_catalog() -> 'tables') t))
WHERE seq <= 3;

-- The row sets carried by each query as CTEs (what exwiw does where Citus
-- is installed): the same bytes as the sets computed once, for every
-- shape here (two self-references, composite keys, partitions), with the
-- same NOTICEs; EXPLAIN works the same way.  batch_scope needs the sets
-- computed once: an error.
CREATE TEMP TABLE once AS
SELECT target, ids, format, string_agg(file_name || E'\n' || chunk, E'\n' ORDER BY n) AS files
FROM (VALUES ('shops', '{1}'::text[]), ('shops', '{1,2}'), ('orders', '{150}'), ('tenants', '{ab}')) AS v(target, ids),
	 unnest('{insert,copy,jsonl}'::text[]) AS format,
	 exwiw_export(target, ids, exwiw_config_from_catalog(), format, allow_undecided => true)
	 WITH ORDINALITY AS e(file_name, chunk, n)
GROUP BY 1, 2, 3;
SET exwiw.sets_as_ctes = on;
SELECT o.target, o.ids, o.format, o.files = c.files AS same_bytes
FROM once o,
	 LATERAL (SELECT string_agg(file_name || E'\n' || chunk, E'\n' ORDER BY n) AS files
			  FROM exwiw_export(o.target, o.ids, exwiw_config_from_catalog(), o.format, allow_undecided => true)
			  WITH ORDINALITY AS e(file_name, chunk, n)) c
ORDER BY 1, 2, 3;
SELECT count(*) > 0 AS explained, bool_and(plan ~ 'CTE exwiw_') AS sets_in_the_plan
FROM exwiw_explain('shops', '{1}') WHERE table_name IN ('orders', 'categories');
SELECT count(*) FROM exwiw_export('shops', '{1}', (
	SELECT jsonb_agg(CASE WHEN t ->> 'name' = 'orders' THEN t || '{"batch_scope": {"table": "shops"}}'
					 WHEN t ->> 'name' = 'shops' THEN t || '{"scope_column": "id"}' ELSE t END)
	FROM jsonb_array_elements(exwiw_config_from_catalog() -> 'tables') t), allow_undecided => true);
RESET exwiw.sets_as_ctes;
RESET search_path;
RESET client_min_messages;
