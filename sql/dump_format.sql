--
-- dump_format: the exact bytes of doc/sql-dump-format.md
--
-- Every output is compared byte for byte.  string_agg(chunk, E'\n') over the
-- chunks is the statement; we also show the chunks themselves with
-- chunk_bytes => 1, where every chunk must hold exactly one row.
--
\pset null '<NULL>'

CREATE TEMP TABLE users (id int, name text, note text);
INSERT INTO users VALUES (1, 'O''Brien', NULL), (2, E'a\nb', 'x\y');

-- The spec's worked example, compared with the literal from the spec.
SELECT string_agg(c, E'\n') = E'INSERT INTO users (id, name, note) VALUES\n(''1'', ''O''''Brien'', NULL),\n(''2'', ''a\nb'', ''x\\y'');' AS worked_example_matches
FROM exwiw_dump('SELECT id, name, note FROM users ORDER BY id', 'users') c;

-- The same, shown (the psql -XAt file body).
\pset format unaligned
\pset tuples_only on
SELECT exwiw_dump('SELECT id, name, note FROM users ORDER BY id', 'users');
\pset format aligned
\pset tuples_only off

-- Numbers and booleans are quoted; NULL is bare; nothing but ' is escaped.
SELECT string_agg(c, E'\n') AS out FROM exwiw_dump($$
  SELECT 10.00::numeric AS n, true AS b, false AS f, NULL::int AS z,
         (-7)::int2 AS s, 9223372036854775807::int8 AS big, (-2147483648)::int4 AS i,
         E'tab\there\r\nnext\\back''quote' AS t, 'é ü 日本'::varchar(10) AS v,
         'pad'::char(5) AS c, 'nm'::name AS nm
$$, 't') c;

-- One statement by default; rows_per_statement N starts a new one every N rows.
SELECT string_agg(c, E'\n') AS one_statement
FROM exwiw_dump('SELECT g AS id FROM generate_series(1, 5) g', 't') c;
SELECT string_agg(c, E'\n') AS every_two
FROM exwiw_dump('SELECT g AS id FROM generate_series(1, 5) g', 't', 2) c;
SELECT string_agg(c, E'\n') AS exactly_two
FROM exwiw_dump('SELECT g AS id FROM generate_series(1, 4) g', 't', 2) c;
SELECT string_agg(c, E'\n') AS every_one
FROM exwiw_dump('SELECT g AS id FROM generate_series(1, 2) g', 't', 1) c;

-- Chunks end only between tuples: with chunk_bytes => 1 every chunk is one
-- tuple, the separator stays with the tuple before it, and the newline is
-- the chunk boundary.
SELECT n, c FROM exwiw_dump('SELECT g AS id, g * 10 AS x FROM generate_series(1, 4) g',
                            't', 3, chunk_bytes => 1) WITH ORDINALITY AS d(c, n);
SELECT n, c FROM exwiw_dump('SELECT g AS id FROM generate_series(1, 3) g',
                            't', format => 'copy', chunk_bytes => 1) WITH ORDINALITY AS d(c, n);

-- Joined chunks are the same bytes whatever the chunk size.
SELECT bool_and(a.s = b.s) AS chunking_is_invisible
FROM (SELECT cb, string_agg(c, E'\n') AS s
      FROM unnest(ARRAY[1, 7, 100, 4096, 262144]) cb,
           LATERAL exwiw_dump('SELECT g AS id, repeat(''x'', g % 50) AS pad FROM generate_series(1, 3000) g',
                              't', 100, chunk_bytes => cb) c
      GROUP BY cb) a,
     (SELECT string_agg(c, E'\n') AS s
      FROM exwiw_dump('SELECT g AS id, repeat(''x'', g % 50) AS pad FROM generate_series(1, 3000) g',
                      't', 100, chunk_bytes => 268435456) c) b;

-- A result with no rows produces nothing, in both formats.
SELECT count(*) AS no_rows FROM exwiw_dump('SELECT 1 AS id WHERE false', 't');
SELECT count(*) AS no_rows_copy FROM exwiw_dump('SELECT 1 AS id WHERE false', 't', format => 'copy');

-- COPY format: \N for NULL; only \, TAB, LF and CR escaped; the \. line.
SELECT string_agg(c, E'\n') AS copy_out FROM exwiw_dump($$
  SELECT 1 AS id, E'a\tb\nc\rd\\e''f\b\f\x0B' AS t, NULL::text AS z, '\.'::text AS dot
  UNION ALL SELECT 2, '', 'x', 'y'
$$, 'billing.order', format => 'copy') c;

-- The format name is case-insensitive.
SELECT string_agg(c, E'\n') AS upper_format FROM exwiw_dump('SELECT 1 AS id', 't', format => 'COPY') c;

-- Type output is the type's own text output.
SELECT string_agg(c, E'\n') AS types FROM exwiw_dump($$
  SELECT '2024-02-29 13:14:15.5+05:30'::timestamptz AS tz,
         '1 year 2 mons 3 days 04:05:06.7'::interval AS iv,
         '\x00ff'::bytea AS b, ARRAY['a', NULL, 'b c', 'd"e']::text[] AS arr,
         '{"k": [1, "x"]}'::jsonb AS j, 'NaN'::numeric AS nan,
         0.1::float8 AS f, '-0'::float8 AS negzero, 'infinity'::float4 AS inf
$$, 't') c;

-- exwiw_file_prologue: the lines that make the statements a whole file
-- written from the client's end, naming the encoding the output reaches
-- the client in: its client_encoding, or the server's where nothing
-- converts (a SQL_ASCII client_encoding).
SET client_encoding = 'SJIS';
SELECT exwiw_file_prologue();
SET client_encoding = 'SQL_ASCII';
SELECT exwiw_file_prologue() = format(E'SET client_encoding = %L;\nSET standard_conforming_strings = on;',
									  current_setting('server_encoding')) AS names_server_encoding;
RESET client_encoding;
