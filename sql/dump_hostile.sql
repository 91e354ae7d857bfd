--
-- dump_hostile: value text does not depend on the caller's settings
--
-- The dump pins DateStyle, IntervalStyle, extra_float_digits and
-- bytea_output while it formats values, and gives the caller's settings
-- back afterwards, also on error.
--
\set ECHO none
\set VERBOSITY terse
\i test/fixtures/all_types.sql
\set VERBOSITY default
\set ECHO all

-- Under default settings first, for comparison.
CREATE TEMP TABLE default_out AS
  SELECT string_agg(c, E'\n') AS s FROM exwiw_dump('SELECT * FROM rt_src ORDER BY id', 't') c;

SET DateStyle = 'SQL, DMY';
SET IntervalStyle = 'sql_standard';
SET extra_float_digits = -15;
SET bytea_output = 'escape';

-- Exactly the same bytes, for every type.
SELECT string_agg(c, E'\n') = (SELECT s FROM default_out) AS same_bytes_as_default
FROM exwiw_dump('SELECT * FROM rt_src ORDER BY id', 't') c;
-- What that looks like for the settings-dependent types.
SELECT string_agg(c, E'\n') FROM exwiw_dump(
  'SELECT id, d, ts, iv, f8, f4, substr(ba, 1, 4) AS ba FROM rt_src WHERE id <= 3 ORDER BY id', 't') c;

-- The session's time zone is kept: a timestamptz literal carries its offset.
SET TimeZone = 'America/St_Johns';
SELECT string_agg(c, E'\n') FROM exwiw_dump('SELECT id, tstz FROM rt_src WHERE id IN (1, 6) ORDER BY id', 't') c;

-- The caller's settings are back.
SHOW DateStyle;
SHOW IntervalStyle;
SHOW extra_float_digits;
SHOW bytea_output;
SHOW TimeZone;

-- Round trip of every type, dumped and restored in the hostile session.
SELECT rt_restore((SELECT string_agg(c, E'\n') FROM exwiw_dump('SELECT * FROM rt_src', 'rt_dst', 2) c)) AS restored;
SELECT id AS missing_in_copy FROM (SELECT * FROM rt_src_v EXCEPT SELECT * FROM rt_dst_v) d;
SELECT id AS extra_in_copy FROM (SELECT * FROM rt_dst_v EXCEPT SELECT * FROM rt_src_v) d;

-- Round trip through COPY, too.
TRUNCATE rt_dst;
SELECT '/tmp/exwiw_regress_hostile_' || pg_backend_pid() || '.sql' AS rt_file \gset
SELECT exwiw_dump('SELECT * FROM rt_src', 'rt_dst', format => 'copy')
\g (format=unaligned tuples_only=on) :rt_file
\i :rt_file
\setenv RT_FILE :rt_file
\! rm -f "$RT_FILE"
SELECT id AS missing_in_copy FROM (SELECT * FROM rt_src_v EXCEPT SELECT * FROM rt_dst_v) d;
SELECT id AS extra_in_copy FROM (SELECT * FROM rt_dst_v EXCEPT SELECT * FROM rt_src_v) d;

-- Settings are restored after an error in the middle of a dump.
SELECT exwiw_dump('SELECT g AS id, 1 / (3 - g) AS boom FROM generate_series(1, 5) g', 't', chunk_bytes => 1);
SHOW DateStyle;
SHOW extra_float_digits;
SHOW bytea_output;

-- ... also after an error caught by an EXCEPTION block (a subtransaction),
-- and the read-only window is closed again.
DO $$
BEGIN
	BEGIN
		PERFORM exwiw_dump('SELECT g AS id, 1 / (3 - g) AS boom FROM generate_series(1, 5) g', 't', chunk_bytes => 1);
	EXCEPTION WHEN division_by_zero THEN
		RAISE NOTICE 'caught: %', SQLERRM;
	END;
	RAISE NOTICE 'after the caught error: DateStyle %, bytea_output %, transaction_read_only %',
		current_setting('DateStyle'), current_setting('bytea_output'), current_setting('transaction_read_only');
	CREATE TEMP TABLE still_writable AS SELECT 1 AS x;
END $$;
SELECT count(*) AS written FROM still_writable;

-- ... and between the chunks of a dump: in the select list, the function
-- returns one chunk per call, and the expressions after it, evaluated after
-- each call, see the caller's settings, not the pinned ones.
SELECT exwiw_dump('SELECT ''2024-01-02''::date AS d UNION ALL SELECT ''2024-01-03''', 't', chunk_bytes => 1) AS c,
       current_setting('DateStyle') AS caller_datestyle,
       ('2024-01-02'::date + (random() * 0)::int)::text AS caller_date;

-- Inside the dumped query, expressions run under the pinned settings too
-- (the query is parsed and planned under the caller's, then executed while
-- values are formatted).
SELECT exwiw_dump($$SELECT ('2024-01-02'::date + (random() * 0)::int)::text AS d$$, 't');

-- extra_float_digits above 1 is kept (it prints the same digits).
SET extra_float_digits = 3;
SELECT c FROM exwiw_dump('SELECT 0.1::float8 AS f', 't') c;
SHOW extra_float_digits;

RESET ALL;
