--
-- parts: part => k, parts => n streams the k-th of n parts of an output,
-- split between rows by row count; the parts, each chunk followed by a
-- newline as a file has it, concatenate to the whole output byte for byte
-- (the prologue in the first part, statement headers where the whole has
-- them, the end and the setval lines in the last).
--
CREATE TABLE parts_t (id int PRIMARY KEY, s text, n numeric);
INSERT INTO parts_t SELECT g, CASE WHEN g % 4 = 0 THEN NULL ELSE E'r\n''' || g END, g / 3.0
FROM generate_series(1, 23) g;

-- The whole output of a call, as a file holds it: every chunk and "\n".
CREATE FUNCTION parts_whole(call text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
	EXECUTE format('SELECT coalesce(string_agg(c || E''\n'', '''' ORDER BY n), '''') FROM %s WITH ORDINALITY AS x(c, n)', call) INTO r;
	RETURN r;
END $$;
-- Every part of n, concatenated in order; call has %1$s for part, %2$s for parts.
CREATE FUNCTION parts_joined(call text, n int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text := ''; k int;
BEGIN
	FOR k IN 1 .. n LOOP
		r := r || parts_whole(format(call, k, n));
	END LOOP;
	RETURN r;
END $$;

-- exwiw_dump: one statement, statements of 1, 2, 5 and 7 rows, COPY, and
-- chunks of one row; 1 to 30 parts of 23 rows (parts of no row included).
SELECT rps, fmt, cb,
	   bool_and(parts_whole(format('exwiw_dump(%L, %L, %s, %L, %s)', 'SELECT * FROM parts_t ORDER BY id', 'parts_t', rps, fmt, cb))
				= parts_joined(format('exwiw_dump(%L, %L, %s, %L, %s, part => %%1$s, parts => %%2$s)', 'SELECT * FROM parts_t ORDER BY id', 'parts_t', rps, fmt, cb), n)) AS same
FROM (VALUES ('NULL', 'insert'), ('1', 'insert'), ('2', 'insert'), ('5', 'insert'), ('7', 'insert'), ('NULL', 'copy')) AS v(rps, fmt),
	 (VALUES (262144), (1)) AS c(cb),
	 (VALUES (1), (2), (3), (4), (5), (7), (22), (23), (24), (30)) AS p(n)
GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;

-- What the parts hold: 23 rows in 3 parts of 7, 8 and 8 rows; statements
-- of 5 rows: part 1 ends inside a statement (","), part 2 after one (";")
SELECT k, exwiw_dump('SELECT id FROM parts_t ORDER BY id', 'parts_t', 5, part => k, parts => 3)
FROM generate_series(1, 3) k;
SELECT k, exwiw_dump('SELECT id FROM parts_t ORDER BY id', 'parts_t', 4, part => k, parts => 3)
FROM generate_series(1, 3) k;
-- a part of no row returns nothing; no row at all: no part returns anything
SELECT k, count(c) FROM generate_series(1, 4) k
	LEFT JOIN LATERAL exwiw_dump('SELECT id FROM parts_t WHERE id <= 2', 'parts_t', part => k, parts => 4) c ON true
GROUP BY k ORDER BY k;
SELECT count(*) FROM generate_series(1, 3) k, exwiw_dump('SELECT id FROM parts_t WHERE false', 'parts_t', part => k, parts => 3);
-- a trailing semicolon and a trailing comment in the query
SELECT parts_joined('exwiw_dump(''SELECT id FROM parts_t ORDER BY id; '', ''x'', 2, part => %1$s, parts => %2$s)', 3)
	   = parts_whole('exwiw_dump(''SELECT id FROM parts_t ORDER BY id; '', ''x'', 2)') AS semicolon,
	   parts_joined(E'exwiw_dump(''SELECT id FROM parts_t ORDER BY id -- the end'', ''x'', 2, part => %1$s, parts => %2$s)', 3)
	   = parts_whole(E'exwiw_dump(''SELECT id FROM parts_t ORDER BY id -- the end'', ''x'', 2)') AS comment;

-- exwiw_dump_jsonl
SELECT n, parts_whole('exwiw_dump_jsonl(''SELECT * FROM parts_t ORDER BY id'', chunk_bytes => 40)')
		  = parts_joined('exwiw_dump_jsonl(''SELECT * FROM parts_t ORDER BY id'', chunk_bytes => 40, part => %1$s, parts => %2$s)', n) AS same
FROM generate_series(1, 5) n;

-- exwiw_export: each file's k-th part under the file's name; the parts of
-- every file, in every format, concatenate to the file (the DO block first,
-- the setval lines last).
CREATE SCHEMA parts_shop;
SET search_path = parts_shop, public;
CREATE TABLE shops (id bigserial PRIMARY KEY, name text);
CREATE TABLE orders (id bigserial PRIMARY KEY, shop_id bigint REFERENCES shops, note text);
CREATE INDEX ON orders (shop_id);
INSERT INTO shops (name) SELECT 'shop ' || g FROM generate_series(1, 3) g;
INSERT INTO orders (shop_id, note) SELECT 1 + g % 3, 'order ' || g FROM generate_series(1, 40) g;
CREATE FUNCTION parts_files(fmt text, part int, parts int) RETURNS TABLE(file_name text, body text)
LANGUAGE sql AS $$
	SELECT file_name, string_agg(chunk || E'\n', '' ORDER BY n)
	FROM exwiw_export('shops', '{1,2}', exwiw_config_from_catalog('parts_shop'), fmt,
					  allow_undecided => true, part => part, parts => parts) WITH ORDINALITY AS e(file_name, chunk, n)
	GROUP BY file_name
$$;
SELECT fmt, n, count(*) AS files,
	   bool_and(w.body = (SELECT string_agg(p.body, '' ORDER BY k) FROM generate_series(1, n) k, parts_files(fmt, k, n) p
						  WHERE p.file_name = w.file_name)) AS same
FROM unnest('{insert,copy,jsonl}'::text[]) fmt, generate_series(1, 4) n, parts_files(fmt, NULL, NULL) w
GROUP BY 1, 2 ORDER BY 1, 2;
-- the first part has the DO block, the last the setval line
SELECT file_name, body FROM parts_files('insert', 1, 2) WHERE file_name LIKE '%orders%';
SELECT file_name, body FROM parts_files('insert', 2, 2) WHERE file_name LIKE '%orders%';
-- Errors
SELECT count(*) FROM exwiw_export('shops', '{1}', exwiw_config_from_catalog('parts_shop'), allow_undecided => true, part => 2, parts => 1);
RESET search_path;
SELECT exwiw_dump('SELECT 1', 'x', part => 1);
SELECT exwiw_dump('SELECT 1', 'x', parts => 2);
SELECT exwiw_dump('SELECT 1', 'x', part => 0, parts => 2);
SELECT exwiw_dump('SELECT 1', 'x', part => 3, parts => 2);
SELECT exwiw_dump_jsonl('SELECT 1', part => 1, parts => 0);
-- a query whose rows change from one run to the next (a temporary
-- sequence, which a read-only query may advance): the count and the
-- reading disagree, an error
CREATE TEMP SEQUENCE parts_seq;
SELECT exwiw_dump('SELECT g FROM generate_series(1, nextval(''parts_seq'')::int) g', 'x', part => 1, parts => 1);
SELECT exwiw_dump('SELECT g FROM generate_series(1, 10 - nextval(''parts_seq'')::int) g', 'x', part => 2, parts => 2);

DROP SCHEMA parts_shop CASCADE;
DROP TABLE parts_t;
DROP FUNCTION parts_whole(text), parts_joined(text, int);
