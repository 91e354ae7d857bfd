--
-- dump_streaming: value-per-call streaming, early stop, very wide rows
--
-- Memory and speed are measured in bench/, not here; this file checks the
-- behaviour that makes streaming safe.
--

-- A LIMIT stops the stream early; its executor is closed at once, inside
-- the same transaction, by the shutdown callback (no "last call" happens),
-- and the COMMIT finds nothing left open.  The stream has no cursor of its
-- own: pg_cursors shows none.
BEGIN;
SELECT length(c) > 0 AS got_chunk
FROM (SELECT exwiw_dump('SELECT g AS id FROM generate_series(1, 1000000) g', 't', chunk_bytes => 100) AS c LIMIT 2) s;
SELECT count(*) AS open_cursors FROM pg_cursors;
COMMIT;

-- The same from PL/pgSQL, leaving a loop early.
DO $$
DECLARE
	c text;
	n int := 0;
BEGIN
	FOR c IN SELECT exwiw_dump('SELECT g AS id FROM generate_series(1, 1000000) g', 't', chunk_bytes => 100)
	LOOP
		n := n + 1;
		EXIT WHEN n = 3;
	END LOOP;
	RAISE NOTICE 'read % chunks, % cursors open', n, (SELECT count(*) FROM pg_cursors);
END $$;

-- Two dumps side by side in one query, each with its own executor.
SELECT a, b
FROM exwiw_dump('SELECT g AS id FROM generate_series(1, 3) g', 'a', chunk_bytes => 1) a,
     LATERAL (SELECT exwiw_dump('SELECT g AS id FROM generate_series(1, 2) g', 'b') AS b) s
ORDER BY 1, 2;

-- SELECT * FROM exwiw_dump(...) works too (it buffers in a tuplestore).
SELECT count(*) AS chunks, sum(length(c)) AS bytes
FROM exwiw_dump('SELECT g AS id FROM generate_series(1, 100000) g', 't', chunk_bytes => 65536) c;
SELECT count(*) AS chunks
FROM (SELECT exwiw_dump('SELECT g AS id FROM generate_series(1, 100000) g', 't', chunk_bytes => 65536)) s;

-- A chunk closes as soon as it reaches chunk_bytes, so it is at most
-- chunk_bytes plus one row.
SELECT max(length(c)) <= 1000 + 60 AS bounded, min(length(c)) >= 1000 AS filled
FROM (SELECT c, row_number() OVER () AS n, count(*) OVER () AS total
      FROM exwiw_dump('SELECT g AS id, md5(g::text) AS h FROM generate_series(1, 10000) g', 't', chunk_bytes => 1000) c) s
WHERE n < total;

-- Rescan: the function re-runs from the start for each outer row.
SELECT n, (SELECT string_agg(c, E'\n') FROM exwiw_dump(format('SELECT %s AS id', n), 't') c) AS dump
FROM generate_series(1, 3) n;

-- The pg_cron recipe of the README: INSERT ... SELECT consumes the stream in
-- order, so a serial column numbers the chunks in output order.
CREATE TEMP TABLE nightly_export (n bigserial PRIMARY KEY, chunk text NOT NULL);
INSERT INTO nightly_export (chunk)
SELECT exwiw_dump('SELECT g AS id FROM generate_series(1, 100000) g', 't', rows_per_statement => 10000, chunk_bytes => 1000);
SELECT count(*) > 100 AS many_chunks,
       (SELECT string_agg(chunk, E'\n' ORDER BY n) FROM nightly_export)
       = (SELECT string_agg(c, E'\n') FROM exwiw_dump('SELECT g AS id FROM generate_series(1, 100000) g', 't',
                                                      rows_per_statement => 10000) c) AS same_bytes
FROM nightly_export;

-- A very wide row: a 100 MB value in one chunk, with its neighbours.
SELECT n, length(c) AS chunk_length, left(c, 40) AS starts, right(c, 12) AS ends
FROM exwiw_dump($$SELECT 1 AS id, 'a' AS v
                  UNION ALL SELECT 2, repeat('x''', 50 * 1024 * 1024)
                  UNION ALL SELECT 3, 'b'$$, 'wide', chunk_bytes => 1) WITH ORDINALITY d(c, n);

-- No chunk may exceed PostgreSQL's 1 GB limit for a value: a row whose text
-- cannot fit (520 MB of quotes, doubled) is refused with a clear error.
SELECT length(c) FROM exwiw_dump($$SELECT 1 AS id, repeat(repeat('''', 1024 * 1024), 520) AS v$$, 't') c;
