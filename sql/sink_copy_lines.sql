--
-- sink_copy_lines: exwiw_copy_lines returns a COPY-format dump as one file
-- line per row, which \copy ... WITH (FORMAT csv, DELIMITER E'\x01',
-- QUOTE E'\x02', NULL E'\x03') writes unchanged (test/t/sink_copy.sh
-- writes and loads the file with psql).
--
CREATE TABLE notes (id int, body text, extra bytea);
INSERT INTO notes VALUES
	(1, 'plain', NULL),
	(2, E'tab\there, newline\nthere, CR\rhere, backslash \\ and \\.', '\x00ff'),
	(3, E'markers \x01 \x02 \x03 and \x04', NULL),
	(4, '', ''),
	(5, NULL, NULL),
	(6, E'\\.', NULL),
	(7, E'quote " apostrophe '' comma , semicolon ;', NULL);

-- The lines, the marker bytes shown as <01> <02> <03>.
SELECT n, regexp_replace(regexp_replace(regexp_replace(l, E'\x01', '<01>', 'g'), E'\x02', '<02>', 'g'), E'\x03', '<03>', 'g') AS line
FROM exwiw_copy_lines('SELECT * FROM notes ORDER BY id', 'notes') WITH ORDINALITY AS x(l, n);

-- No line holds a byte that COPY's CSV output would quote: the delimiter,
-- the quote, the NULL marker, a newline or a carriage return; none is "\."
-- alone.
SELECT count(*) AS lines,
	count(*) FILTER (WHERE l ~ E'[\x01\x02\x03\n\r]' OR l = E'\\.') AS would_be_quoted
FROM exwiw_copy_lines('SELECT * FROM notes ORDER BY id', 'notes') l;

-- Without marker bytes in the data, the lines are exwiw_dump's COPY output
-- with the SET lines first and without the final "\." line.
SELECT format(E'SET client_encoding = %L;\n',
			  CASE current_setting('client_encoding') WHEN 'SQL_ASCII' THEN current_setting('server_encoding')
			  ELSE current_setting('client_encoding') END)
	|| E'SET standard_conforming_strings = on;\n'
	|| (SELECT string_agg(c, E'\n') FROM exwiw_dump('SELECT * FROM notes WHERE id <> 3 ORDER BY id', 'notes', format => 'copy') c)
	= (SELECT string_agg(l, E'\n') FROM exwiw_copy_lines('SELECT * FROM notes WHERE id <> 3 ORDER BY id', 'notes') l) || E'\n\\.'
	AS same_but_last_line;

-- What COPY writes with the documented options (the file, byte for byte).
COPY (SELECT exwiw_copy_lines('SELECT * FROM notes WHERE id IN (1, 2, 4, 6, 7) ORDER BY id', 'notes'))
	TO STDOUT WITH (FORMAT csv, DELIMITER E'\x01', QUOTE E'\x02', NULL E'\x03');

-- Many chunks: lines split correctly across chunk boundaries.
SELECT count(*) AS lines, count(DISTINCT l) AS distinct_lines
FROM exwiw_copy_lines('SELECT g AS id, repeat(md5(g::text), 100) AS t FROM generate_series(1, 3000) g', 't') l;

-- The first line names the encoding the lines reach the client in: its
-- client_encoding, to which COPY converts them, or the server's when
-- nothing converts them (SQL_ASCII).
SET client_encoding = 'LATIN1';
SELECT exwiw_copy_lines('SELECT 1 AS id', 't') LIMIT 2;
SET client_encoding = 'SQL_ASCII';
SELECT exwiw_copy_lines('SELECT 1 AS id', 't') LIMIT 1;
RESET client_encoding;

-- An early stop closes the stream.
SELECT exwiw_copy_lines('SELECT g AS id FROM generate_series(1, 100000) g', 't') LIMIT 4;

-- No rows: no lines (as exwiw_dump returns no chunk).
SELECT count(*) FROM exwiw_copy_lines('SELECT 1 AS id WHERE false', 't');

-- Names that COPY would not pass unchanged are refused.
SELECT exwiw_copy_lines('SELECT 1 AS "a' || E'\r' || 'b"', 't');
SELECT exwiw_copy_lines('SELECT 1 AS id', E't\x01');
-- ... a newline in a name is fine (the header spans two lines).
SELECT exwiw_copy_lines('SELECT 1 AS "a' || E'\n' || 'b"', 't');

-- Arguments and the query's checks.
SELECT exwiw_copy_lines(NULL, 't');
SELECT exwiw_copy_lines('SELECT 1 AS id', NULL);
SELECT exwiw_copy_lines('DELETE FROM notes', 't');
SELECT exwiw_copy_lines('SELECT 1 / 0 AS id', 't');
SELECT * FROM notes WHERE id = 1;

DROP TABLE notes;
