--
-- sink_export_dir: exwiw_export_to_dir writes the files of exwiw_export,
-- byte for byte, into a directory that appears only when complete;
-- exwiw_remove_export removes such a directory.
--
\i test/subset/fixture.sql
SET client_min_messages = warning;
SELECT regexp_replace(current_setting('data_directory'), '/[^/]*$', '') || '/sink_export_dir' AS base \gset
SELECT set_config('sink.base', :'base', false) IS NOT NULL AS base_set;
\set cmd 'rm -rf ' :base ' && mkdir ' :base ' && mkdir ' :base '/empty ' :base '/other && touch ' :base '/other/notes.txt'
COPY (SELECT) TO PROGRAM :'cmd';

CREATE FUNCTION sink_try(stmt text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	st text; msg text; det text; hint text;
BEGIN
	EXECUTE stmt;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
	RETURN st || ': ' || replace(msg, current_setting('sink.base'), '<dir>')
		|| CASE WHEN det <> '' THEN E'\nDETAIL: ' || replace(det, current_setting('sink.base'), '<dir>') ELSE '' END
		|| CASE WHEN hint <> '' THEN E'\nHINT: ' || replace(hint, current_setting('sink.base'), '<dir>') ELSE '' END;
END $$;
CREATE FUNCTION sink_ls(sub text DEFAULT '') RETURNS SETOF text LANGUAGE sql AS $$
	SELECT f FROM pg_ls_dir(current_setting('sink.base') || sub) f ORDER BY f
$$;
-- Each file of the directory against exwiw_export's chunks of that file
-- (joined by newlines, plus a final newline).
CREATE FUNCTION sink_same_as_export(dir text, target text, ids text[], cfg jsonb, fmt text)
RETURNS TABLE(file_name text, same boolean) LANGUAGE sql AS $$
	SELECT e.file_name,
		pg_read_file(current_setting('sink.base') || '/' || dir || '/' || e.file_name)
			= string_agg(e.chunk, E'\n' ORDER BY e.n) || E'\n'
	FROM exwiw_export(target, ids, cfg, fmt, allow_undecided => true) WITH ORDINALITY AS e(file_name, chunk, n)
	GROUP BY e.file_name ORDER BY e.file_name
$$;

-- Shop 1: one row per file, the same files as exwiw_export.
SELECT * FROM exwiw_export_to_dir(:'base' || '/shop1', 'shops', '{1}', allow_undecided => true);
SELECT * FROM sink_ls('/shop1');
SELECT * FROM sink_same_as_export('shop1', 'shops', '{1}', NULL, 'insert');
-- The COPY and JSON Lines formats, a config, part of the files.
SELECT * FROM exwiw_export_to_dir(:'base' || '/shop1_copy', 'shops', '{1}', format => 'copy', allow_undecided => true);
SELECT bool_and(same) AS all_same, count(*) FROM sink_same_as_export('shop1_copy', 'shops', '{1}', NULL, 'copy');
SELECT * FROM exwiw_export_to_dir(:'base' || '/shop1_jsonl', 'shops', '{1}', format => 'jsonl', allow_undecided => true);
SELECT bool_and(same) AS all_same, count(*) FROM sink_same_as_export('shop1_jsonl', 'shops', '{1}', NULL, 'jsonl');
SELECT * FROM exwiw_export_to_dir(:'base' || '/shop2_part', 'shops', '{2}', allow_undecided => true, files => '{3,5}');
-- Compressed files get the method's suffix.
SELECT * FROM exwiw_export_to_dir(:'base' || '/shop1_gz', 'shops', '{1}', allow_undecided => true, compress => 'gzip');
SELECT file_name FROM exwiw_export_to_dir(:'base' || '/shop1_zst', 'shops', '{1}', allow_undecided => true, compress => 'zstd') LIMIT 2;
-- An existing empty directory is used; it is replaced by the export.
SELECT count(*) AS files FROM exwiw_export_to_dir(:'base' || '/empty', 'shops', '{3}', allow_undecided => true);
-- An empty export is an empty directory.
SELECT count(*) AS files FROM exwiw_export_to_dir(:'base' || '/nothing', 'announcements', '{999}',
	'[{"name": "announcements", "primary_key": "id"}]', allow_missing_ids => true);
SELECT count(*) AS entries FROM sink_ls('/nothing');

-- A directory that is not empty is refused (and kept) unless overwrite;
-- overwrite replaces only the directory of an export.
SELECT sink_try($$SELECT exwiw_export_to_dir('$$ || :'base' || $$/shop1', 'shops', '{2}', allow_undecided => true)$$);
SELECT count(*) AS kept FROM sink_ls('/shop1');
SELECT file_name, rows FROM exwiw_export_to_dir(:'base' || '/shop1', 'shops', '{2}', allow_undecided => true, overwrite => true);
SELECT * FROM sink_ls('/shop1');
SELECT * FROM sink_same_as_export('shop1', 'shops', '{2}', NULL, 'insert');
SELECT sink_try($$SELECT exwiw_export_to_dir('$$ || :'base' || $$/other', 'shops', '{2}', allow_undecided => true, overwrite => true)$$);
SELECT * FROM sink_ls('/other');
SELECT sink_try($$SELECT exwiw_export_to_dir('$$ || :'base' || $$/shop1/insert-001-announcements.sql', 'shops', '{2}', allow_undecided => true, overwrite => true)$$);

-- Argument errors: exwiw_export's own, and the sink's.
SELECT sink_try($$SELECT exwiw_export_to_dir(NULL, 'shops', '{1}')$$);
SELECT sink_try($$SELECT exwiw_export_to_dir('$$ || :'base' || $$/x', NULL, '{1}')$$);
SELECT sink_try($$SELECT exwiw_export_to_dir('$$ || :'base' || $$/x', 'shops', NULL)$$);
SELECT sink_try($$SELECT exwiw_export_to_dir('$$ || :'base' || $$/x', 'shops', '{1}', format => NULL)$$);
SELECT sink_try($$SELECT exwiw_export_to_dir('$$ || :'base' || $$/x', 'shops', '{1}', allow_undecided => NULL)$$);
SELECT sink_try($$SELECT exwiw_export_to_dir('$$ || :'base' || $$/x', 'shops', '{1}', compress => NULL)$$);
SELECT sink_try($$SELECT exwiw_export_to_dir('$$ || :'base' || $$/x', 'shops', '{1}', overwrite => NULL)$$);
SELECT sink_try($$SELECT exwiw_export_to_dir('$$ || :'base' || $$/x', 'shops', '{1}', format => 'xml')$$);
SELECT sink_try($$SELECT exwiw_export_to_dir('$$ || :'base' || $$/x', 'shops', '{1}', compress => 'brotli')$$);
SELECT sink_try($$SELECT exwiw_export_to_dir('$$ || :'base' || $$/x', 'no_such_table', '{1}', allow_undecided => true)$$);
SELECT sink_try($$SELECT exwiw_export_to_dir('$$ || :'base' || $$/x', 'shops', '{1}')$$);
SELECT sink_try($$SELECT exwiw_export_to_dir('$$ || :'base' || $$/x', 'shops', '{1}', '[{"name": "shops", "primary_key": "id", "colour": 1}]')$$);
SELECT sink_try($$SELECT exwiw_export_to_dir('x', 'shops', '{1}')$$);
SELECT sink_try($$SELECT exwiw_export_to_dir('$$ || :'base' || $$/no/x', 'shops', '{1}')$$);

-- An error in the middle of the export (the second file's mask fails):
-- no directory, and no temporary directory, in a subtransaction and at
-- the top level.
\set badcfg '[{"name": "shops", "primary_key": "id"}, {"name": "users", "primary_key": "id", "belongs_tos": [{"table_name": "shops", "foreign_key": "shop_id"}], "columns": [{"name": "id"}, {"name": "shop_id"}, {"name": "email", "raw_sql": "(1 / (id - id))::text"}, {"name": "name"}, {"name": "phone"}, {"name": "vip"}]}]'
SELECT sink_try(format('SELECT exwiw_export_to_dir(%L, %L, %L, %L)', :'base' || '/bad', 'shops', '{1}', :'badcfg'));
\set VERBOSITY terse
SELECT exwiw_export_to_dir(:'base' || '/bad', 'shops', '{1}', :'badcfg', compress => 'gzip');
-- ... and a cancel in the middle.
SET statement_timeout = '300ms';
SELECT exwiw_export_to_dir(:'base' || '/slow', 'shops', '{1}',
	'[{"name": "shops", "primary_key": "id", "columns": [{"name": "id"}, {"name": "name", "raw_sql": "name || pg_sleep(1)::text"}]}]');
RESET statement_timeout;
\set VERBOSITY default
SELECT * FROM sink_ls() f WHERE f LIKE '%bad%' OR f LIKE '%slow%' OR f LIKE '%exwiw-tmp%';
-- Replacing a previous export that fails keeps the previous export.
SELECT sink_try(format('SELECT exwiw_export_to_dir(%L, %L, %L, %L, overwrite => true)', :'base' || '/shop1', 'shops', '{1}', :'badcfg'));
SELECT count(*) AS kept FROM sink_ls('/shop1');

-- Privileges.
CREATE ROLE sink_nobody;
SET ROLE sink_nobody;
SELECT exwiw_export_to_dir('/nonexistent/x', 'shops', '{1}');
SELECT exwiw_remove_export('/nonexistent/x');
RESET ROLE;

-- exwiw_remove_export: only the directory of an export.
SELECT exwiw_remove_export(:'base' || '/shop1_gz') AS removed;
SELECT sink_try($$SELECT exwiw_remove_export('$$ || :'base' || $$/other')$$);
SELECT sink_try($$SELECT exwiw_remove_export('$$ || :'base' || $$/shop1/insert-001-announcements.sql')$$);
SELECT sink_try($$SELECT exwiw_remove_export('$$ || :'base' || $$/gone')$$);
SELECT sink_try($$SELECT exwiw_remove_export('relative')$$);
SELECT sink_try($$SELECT exwiw_remove_export(NULL)$$);
-- Keep the last two of a series of dated exports: the cleanup statement
-- of the pg_cron recipe.
SELECT count(*) FROM generate_series(1, 4) d,
	exwiw_export_to_dir(:'base' || '/shop3-2026-01-0' || d, 'shops', '{3}', allow_undecided => true);
SELECT sum(exwiw_remove_export(:'base' || '/' || d)) AS removed
FROM (SELECT d FROM sink_ls() d WHERE d LIKE 'shop3-%' ORDER BY d DESC OFFSET 2) old;
SELECT * FROM sink_ls() f WHERE f LIKE 'shop3-%';

-- deletes => true: the delete files too, as exwiw_export streams them;
-- overwrite and exwiw_remove_export take them as an export's files.
SELECT file_name, rows FROM exwiw_export_to_dir(:'base' || '/shop1_del', 'shops', '{1}', allow_undecided => true, deletes => true);
SELECT bool_and(pg_read_file(current_setting('sink.base') || '/shop1_del/' || e.file_name) = e.body) AS all_same, count(*)
FROM (SELECT file_name, string_agg(chunk, E'\n' ORDER BY n) || E'\n' AS body
	FROM exwiw_export('shops', '{1}', allow_undecided => true, deletes => true) WITH ORDINALITY AS e(file_name, chunk, n)
	GROUP BY file_name) e;
SELECT f, pg_read_file(current_setting('sink.base') || '/shop1_del/' || f) AS body
FROM sink_ls('/shop1_del') f WHERE f LIKE 'delete-%-shops.sql';
SELECT count(*) AS files FROM exwiw_export_to_dir(:'base' || '/shop1_del', 'shops', '{2}', allow_undecided => true, deletes => true, overwrite => true);
SELECT exwiw_remove_export(:'base' || '/shop1_del') AS removed;
SELECT sink_try($$SELECT exwiw_export_to_dir('$$ || :'base' || $$/del_x', 'shops', '{1}', format => 'jsonl', allow_undecided => true, deletes => true)$$);
SELECT sink_try($$SELECT exwiw_export_to_dir('$$ || :'base' || $$/del_x', 'shops', '{1}', allow_undecided => true, deletes => true, part => 1, parts => 2)$$);

SELECT * FROM sink_ls();

DROP ROLE sink_nobody;
\set cmd 'rm -rf ' :base
COPY (SELECT) TO PROGRAM :'cmd';
RESET client_min_messages;
