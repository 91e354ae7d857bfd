--
-- dump_roundtrip: dump every built-in type, restore into an empty copy, and
-- compare with EXCEPT both ways (test/fixtures/all_types.sql).
--
\set ECHO none
\set VERBOSITY terse
\i test/fixtures/all_types.sql
\set VERBOSITY default
\set ECHO all
SELECT count(*) AS source_rows FROM rt_src;

-- INSERT format, one statement.
SELECT rt_restore((SELECT string_agg(c, E'\n') FROM exwiw_dump('SELECT * FROM rt_src', 'rt_dst') c)) AS restored;
SELECT id AS missing_in_copy FROM (SELECT * FROM rt_src_v EXCEPT SELECT * FROM rt_dst_v) d;
SELECT id AS extra_in_copy FROM (SELECT * FROM rt_dst_v EXCEPT SELECT * FROM rt_src_v) d;

-- INSERT format, a statement every 3 rows, tiny chunks.
SELECT rt_restore((SELECT string_agg(c, E'\n')
                   FROM exwiw_dump('SELECT * FROM rt_src ORDER BY id', 'rt_dst', 3, chunk_bytes => 1) c)) AS restored;
SELECT id AS missing_in_copy FROM (SELECT * FROM rt_src_v EXCEPT SELECT * FROM rt_dst_v) d;
SELECT id AS extra_in_copy FROM (SELECT * FROM rt_dst_v EXCEPT SELECT * FROM rt_src_v) d;

-- COPY format, through a file written by psql and read back with \i.
TRUNCATE rt_dst;
SELECT '/tmp/exwiw_regress_rt_' || pg_backend_pid() || '.sql' AS rt_file \gset
SELECT exwiw_dump('SELECT * FROM rt_src', 'rt_dst', format => 'copy', chunk_bytes => 100)
\g (format=unaligned tuples_only=on) :rt_file
\i :rt_file
\setenv RT_FILE :rt_file
\! rm -f "$RT_FILE"
SELECT count(*) AS restored FROM rt_dst;
SELECT id AS missing_in_copy FROM (SELECT * FROM rt_src_v EXCEPT SELECT * FROM rt_dst_v) d;
SELECT id AS extra_in_copy FROM (SELECT * FROM rt_dst_v EXCEPT SELECT * FROM rt_src_v) d;

-- The restore must not depend on anything but the dump: the columns of a
-- query (not a table), in another order, into a table of that shape.
CREATE TEMP TABLE some_cols (t text, id int, ba bytea, tstz timestamptz);
DO $$ BEGIN
  EXECUTE (SELECT string_agg(c, E'\n') FROM exwiw_dump('SELECT t, id, ba, tstz FROM rt_src', 'some_cols') c);
END $$;
SELECT t, id, ba, tstz FROM rt_src EXCEPT SELECT * FROM some_cols;
SELECT * FROM some_cols EXCEPT SELECT t, id, ba, tstz FROM rt_src;
