--
-- sink_files: exwiw_dump_to_file and exwiw_dump_jsonl_to_file write on the
-- server, atomically; their arguments and errors; nothing is left behind
-- after an error or a cancel.
--
-- The files go into a scratch directory next to the server's data
-- directory (which the server's OS user owns); error messages show it as
-- <dir>.  COPY ... TO PROGRAM (superuser) makes and removes it.
--
SELECT regexp_replace(current_setting('data_directory'), '/[^/]*$', '') || '/sink_files' AS base \gset
SELECT set_config('sink.base', :'base', false) IS NOT NULL AS base_set;
\set cmd 'rm -rf ' :base ' && mkdir ' :base ' && mkdir ' :base '/ro && chmod 555 ' :base '/ro'
COPY (SELECT) TO PROGRAM :'cmd';

-- Run a statement; show its SQLSTATE, message and hint with the scratch
-- directory as <dir>.  The EXCEPTION block is a subtransaction: its abort
-- must remove the temporary files too.
CREATE FUNCTION sink_try(stmt text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	st text; msg text; hint text;
BEGIN
	EXECUTE stmt;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT;
	RETURN st || ': ' || replace(msg, current_setting('sink.base'), '<dir>')
		|| CASE WHEN hint <> '' THEN E'\nHINT: ' || replace(hint, current_setting('sink.base'), '<dir>') ELSE '' END;
END $$;
-- What is in the scratch directory (hidden temporary names included).
CREATE FUNCTION sink_ls(sub text DEFAULT '') RETURNS SETOF text LANGUAGE sql AS $$
	SELECT f FROM pg_ls_dir(current_setting('sink.base') || sub) f ORDER BY f
$$;
-- The bytes of a file, as text.
CREATE FUNCTION sink_cat(name text) RETURNS text LANGUAGE sql AS $$
	SELECT pg_read_file(current_setting('sink.base') || '/' || name)
$$;

CREATE TABLE users (id int, name text, note text);
INSERT INTO users VALUES (1, 'O''Brien', NULL), (2, E'a\nb', 'x\y');

-- The file is exwiw_dump's output with the whole-file framing: the SET
-- lines first (the encoding of the file's bytes: the server's), the chunks
-- joined by newlines, a final newline.
SELECT file_name = :'base' || '/users.sql' AS right_name, rows, bytes
FROM exwiw_dump_to_file(:'base' || '/users.sql', 'SELECT * FROM users ORDER BY id', 'users');
SELECT sink_cat('users.sql');
SELECT sink_cat('users.sql') = format(E'SET client_encoding = %L;\n', current_setting('server_encoding'))
	|| E'SET standard_conforming_strings = on;\n'
	|| (SELECT string_agg(c, E'\n') FROM exwiw_dump('SELECT * FROM users ORDER BY id', 'users') c) || E'\n' AS same_bytes;
-- A file the server writes holds the server's bytes, whatever the
-- caller's client_encoding: its first line names the server encoding.
SET client_encoding = 'LATIN1';
SELECT rows FROM exwiw_dump_to_file(:'base' || '/users_latin1.sql', 'SELECT * FROM users ORDER BY id', 'users');
RESET client_encoding;
SELECT split_part(sink_cat('users_latin1.sql'), E'\n', 1) AS first_line;
-- Options pass through: statements of N rows, the COPY format.
SELECT rows FROM exwiw_dump_to_file(:'base' || '/users_split.sql', 'SELECT * FROM users ORDER BY id', 'users', 1);
SELECT sink_cat('users_split.sql');
SELECT rows FROM exwiw_dump_to_file(:'base' || '/users_copy.sql', 'SELECT * FROM users ORDER BY id', 'users', format => 'copy');
SELECT sink_cat('users_copy.sql');
-- Many chunks: the same bytes as the chunks of exwiw_dump.
SELECT rows, bytes = octet_length(sink_cat('big.sql')) AS bytes_right
FROM exwiw_dump_to_file(:'base' || '/big.sql', 'SELECT g AS id, repeat(md5(g::text), 20) AS t FROM generate_series(1, 5000) g', 'big', 100);
SELECT sink_cat('big.sql') = format(E'SET client_encoding = %L;\n', current_setting('server_encoding'))
	|| E'SET standard_conforming_strings = on;\n'
	|| (SELECT string_agg(c, E'\n') FROM exwiw_dump('SELECT g AS id, repeat(md5(g::text), 20) AS t FROM generate_series(1, 5000) g', 'big', 100) c) || E'\n' AS same_bytes;
-- No rows: an empty file, as exwiw_dump returns no chunk.
SELECT rows, bytes FROM exwiw_dump_to_file(:'base' || '/none.sql', 'SELECT 1 AS id WHERE false', 't');

-- JSON Lines: exwiw_dump_jsonl's output, with a final newline.
SELECT rows, bytes FROM exwiw_dump_jsonl_to_file(:'base' || '/users.jsonl', 'SELECT * FROM users ORDER BY id', omit_nulls => true);
SELECT sink_cat('users.jsonl');
SELECT rows FROM exwiw_dump_jsonl_to_file(:'base' || '/oid.jsonl', 'SELECT ''5f2a1b3c4d5e6f7a8b9c0d1e''::text AS _id', oid_columns => '{_id}');
SELECT sink_cat('oid.jsonl');

-- Compressed: gzip and zstd headers (the round trip through gunzip and
-- zstd -d is test/t/sink_files.sh).
SELECT rows, encode(substr(pg_read_binary_file(:'base' || '/users.sql.gz'), 1, 3), 'hex') AS gzip_magic
FROM exwiw_dump_to_file(:'base' || '/users.sql.gz', 'SELECT * FROM users ORDER BY id', 'users', compress => 'gzip');
SELECT rows, encode(substr(pg_read_binary_file(:'base' || '/users.sql.zst'), 1, 4), 'hex') AS zstd_magic
FROM exwiw_dump_to_file(:'base' || '/users.sql.zst', 'SELECT * FROM users ORDER BY id', 'users', compress => 'zstd:19');
SELECT rows FROM exwiw_dump_jsonl_to_file(:'base' || '/users.jsonl.gz', 'SELECT * FROM users', compress => 'GZIP:1');
SELECT sink_try($$SELECT exwiw_dump_to_file('$$ || :'base' || $$/c1.sql', 'SELECT 1 AS a', 't', compress => 'lz4')$$);
SELECT sink_try($$SELECT exwiw_dump_to_file('$$ || :'base' || $$/c2.sql', 'SELECT 1 AS a', 't', compress => 'gzip:0')$$);
SELECT sink_try($$SELECT exwiw_dump_to_file('$$ || :'base' || $$/c3.sql', 'SELECT 1 AS a', 't', compress => 'gzip:x')$$);
SELECT sink_try($$SELECT exwiw_dump_to_file('$$ || :'base' || $$/c4.sql', 'SELECT 1 AS a', 't', compress => 'zstd:20')$$);
SELECT sink_try($$SELECT exwiw_dump_to_file('$$ || :'base' || $$/c5.sql', 'SELECT 1 AS a', 't', compress => 'none:1')$$);

-- An existing file is refused, and kept; overwrite => true replaces it.
SELECT sink_try($$SELECT exwiw_dump_to_file('$$ || :'base' || $$/users.sql', 'SELECT 1 AS id', 't')$$);
SELECT sink_cat('users.sql') LIKE '%O''''Brien%' AS kept;
SELECT rows FROM exwiw_dump_to_file(:'base' || '/users.sql', 'SELECT 1 AS id', 't', overwrite => true);
SELECT sink_cat('users.sql');
-- A directory is never replaced by a file.
SELECT sink_try($$SELECT exwiw_dump_to_file('$$ || :'base' || $$/ro', 'SELECT 1 AS id', 't', overwrite => true)$$);

-- Paths: absolute only; the parent must exist; never the data directory,
-- nor a directory that contains it; not "/".
SELECT sink_try($$SELECT exwiw_dump_to_file('users.sql', 'SELECT 1 AS id', 't')$$);
SELECT sink_try($$SELECT exwiw_dump_to_file('./users.sql', 'SELECT 1 AS id', 't')$$);
SELECT sink_try($$SELECT exwiw_dump_to_file('', 'SELECT 1 AS id', 't')$$);
SELECT sink_try($$SELECT exwiw_dump_to_file('/', 'SELECT 1 AS id', 't')$$);
SELECT sink_try($$SELECT exwiw_dump_to_file('$$ || :'base' || $$/no/such/dir.sql', 'SELECT 1 AS id', 't')$$);
SELECT replace(sink_try(format('SELECT exwiw_dump_to_file(%L, %L, %L)',
	current_setting('data_directory') || '/base/evil.sql', 'SELECT 1 AS id', 't')),
	current_setting('data_directory'), '<data>');
SELECT replace(sink_try(format('SELECT exwiw_dump_to_file(%L, %L, %L, overwrite => true)',
	current_setting('data_directory'), 'SELECT 1 AS id', 't')),
	current_setting('data_directory'), '<data>');
SELECT replace(sink_try(format('SELECT exwiw_dump_to_file(%L, %L, %L)',
	:'base' || '/../' || regexp_replace(current_setting('data_directory'), '^.*/', '') || '/x.sql', 'SELECT 1 AS id', 't')),
	current_setting('data_directory'), '<data>');
-- An unwritable directory: the error names the file, nothing is left.
SELECT sink_try($$SELECT exwiw_dump_to_file('$$ || :'base' || $$/ro/x.sql', 'SELECT 1 AS id', 't')$$);
SELECT count(*) AS files_in_ro FROM sink_ls('/ro');

-- NULL arguments are errors.
SELECT sink_try($$SELECT exwiw_dump_to_file(NULL, 'SELECT 1 AS id', 't')$$);
SELECT sink_try($$SELECT exwiw_dump_to_file('$$ || :'base' || $$/n.sql', NULL, 't')$$);
SELECT sink_try($$SELECT exwiw_dump_to_file('$$ || :'base' || $$/n.sql', 'SELECT 1 AS id', NULL)$$);
SELECT sink_try($$SELECT exwiw_dump_to_file('$$ || :'base' || $$/n.sql', 'SELECT 1 AS id', 't', format => NULL)$$);
SELECT sink_try($$SELECT exwiw_dump_to_file('$$ || :'base' || $$/n.sql', 'SELECT 1 AS id', 't', compress => NULL)$$);
SELECT sink_try($$SELECT exwiw_dump_to_file('$$ || :'base' || $$/n.sql', 'SELECT 1 AS id', 't', overwrite => NULL)$$);
SELECT sink_try($$SELECT exwiw_dump_jsonl_to_file('$$ || :'base' || $$/n.jsonl', 'SELECT 1 AS id', omit_nulls => NULL)$$);
-- exwiw_dump's own checks apply, before any file is made.
SELECT sink_try($$SELECT exwiw_dump_to_file('$$ || :'base' || $$/n.sql', 'SELECT 1 AS id', 't', 0)$$);
SELECT sink_try($$SELECT exwiw_dump_to_file('$$ || :'base' || $$/n.sql', 'SELECT 1 AS id', 't', 10, 'copy')$$);
SELECT sink_try($$SELECT exwiw_dump_to_file('$$ || :'base' || $$/n.sql', 'SELECT 1 AS id', 't', format => 'csv')$$);
SELECT sink_try($$SELECT exwiw_dump_to_file('$$ || :'base' || $$/n.sql', 'DELETE FROM users', 't')$$);
SELECT sink_try($$SELECT exwiw_dump_to_file('$$ || :'base' || $$/n.sql', 'SELECT 1, 2', 't')$$);
SELECT sink_try($$SELECT exwiw_dump_jsonl_to_file('$$ || :'base' || $$/n.jsonl', 'SELECT 1 AS id', '{nope}')$$);
SELECT count(*) AS n_files FROM sink_ls() f WHERE f LIKE 'n.%' OR f LIKE '.n.%';

-- Cleanup after an error in the middle of the rows: in a subtransaction
-- (sink_try), and at the top level.  Neither the file nor its temporary
-- name remains.
SELECT sink_try($$SELECT exwiw_dump_to_file('$$ || :'base' || $$/err.sql', 'SELECT g AS id, 1 / (3000 - g) AS x FROM generate_series(1, 5000) g', 't')$$);
\set VERBOSITY terse
SELECT exwiw_dump_to_file(:'base' || '/err.sql', 'SELECT g AS id, repeat(''x'', 1000) AS pad, 1 / (3000 - g) AS x FROM generate_series(1, 5000) g', 't', compress => 'gzip');
SELECT exwiw_dump_jsonl_to_file(:'base' || '/err.jsonl', 'SELECT g AS id, 1 / (3000 - g) AS x FROM generate_series(1, 5000) g');
-- ... and after a cancel (statement_timeout), with many chunks written.
SET statement_timeout = '500ms';
SELECT exwiw_dump_to_file(:'base' || '/cancel.sql', 'SELECT g AS id, repeat(''y'', 1000) AS pad, pg_sleep(0.0002) AS s FROM generate_series(1, 1000000) g', 't');
RESET statement_timeout;
\set VERBOSITY default
SELECT * FROM sink_ls() f WHERE f LIKE '%err%' OR f LIKE '%cancel%' OR f LIKE '%exwiw-tmp%';
-- The same in a transaction block that goes on after ROLLBACK TO SAVEPOINT.
BEGIN;
SAVEPOINT s;
\set VERBOSITY terse
SELECT exwiw_dump_to_file(:'base' || '/sp.sql', 'SELECT g AS id, 1 / (3000 - g) AS x FROM generate_series(1, 5000) g', 't');
\set VERBOSITY default
ROLLBACK TO SAVEPOINT s;
SELECT count(*) AS leftovers FROM sink_ls() f WHERE f LIKE '%sp.sql%';
SELECT rows FROM exwiw_dump_to_file(:'base' || '/sp.sql', 'SELECT 1 AS id', 't');
COMMIT;
SELECT count(*) AS written FROM sink_ls() f WHERE f = 'sp.sql';

-- Privileges: superusers and members of pg_write_server_files only.
CREATE ROLE sink_nobody;
CREATE ROLE sink_writer IN ROLE pg_write_server_files;
GRANT SELECT ON users TO sink_nobody, sink_writer;
SET ROLE sink_nobody;
SELECT exwiw_dump_to_file('/nonexistent/x.sql', 'SELECT * FROM users', 'users');
SELECT exwiw_dump_jsonl_to_file('/nonexistent/x.jsonl', 'SELECT * FROM users');
-- (the privilege is checked before the path)
SELECT exwiw_dump_to_file('relative.sql', 'SELECT * FROM users', 'users');
RESET ROLE;
SET ROLE sink_writer;
SELECT rows FROM exwiw_dump_to_file(:'base' || '/by_writer.sql', 'SELECT * FROM users', 'users');
RESET ROLE;

-- Everything written, and nothing else (no temporary names).
SELECT * FROM sink_ls();

DROP TABLE users;
DROP ROLE sink_nobody, sink_writer;
\set cmd 'chmod 755 ' :base '/ro && rm -rf ' :base
COPY (SELECT) TO PROGRAM :'cmd';
