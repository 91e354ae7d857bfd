--
-- dump_cursors: the stream owns its executor.  Nothing another command can
-- close, move or replace stands between two chunks; savepoints, PL/pgSQL
-- and held cursors either work or stop with a clear error, never a crash.
--
CREATE TABLE cursor_t AS SELECT g AS id, 'row ' || g AS label FROM generate_series(1, 10) g;
CREATE ROLE exwiw_cursor_user;
GRANT SELECT ON cursor_t TO exwiw_cursor_user;
SET ROLE exwiw_cursor_user;

-- The attack of the issue, as an unprivileged role: there is no export
-- cursor to close and replace by name (the stream has none), and the
-- export goes on, whole.
BEGIN;
DECLARE c1 CURSOR FOR SELECT exwiw_dump('SELECT g::text AS t FROM generate_series(1,10) g', 't', chunk_bytes => 1);
FETCH 1 FROM c1;
SELECT name FROM pg_cursors ORDER BY name;
SAVEPOINT attack;
CLOSE "<unnamed portal 1>";
ROLLBACK TO SAVEPOINT attack;
DECLARE "<unnamed portal 1>" CURSOR FOR SELECT 12345::int8 AS x FROM generate_series(1, 10);
FETCH 1 FROM "<unnamed portal 1>";
FETCH ALL FROM c1;
COMMIT;

-- The same from PL/pgSQL, closing every other cursor between two fetches.
CREATE FUNCTION pg_temp.close_others(keep text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	names text[] := ARRAY(SELECT name FROM pg_cursors WHERE name <> keep);
	n text;
BEGIN
	FOREACH n IN ARRAY names LOOP
		EXECUTE format('CLOSE %I', n);
	END LOOP;
	RETURN cardinality(names);
END $$;
BEGIN;
DECLARE c2 CURSOR FOR SELECT exwiw_dump('SELECT id, label FROM cursor_t ORDER BY id', 'cursor_t', 2, chunk_bytes => 1);
FETCH 1 FROM c2;
SELECT pg_temp.close_others('c2') AS closed;
FETCH ALL FROM c2;
COMMIT;

-- Savepoints: a stream started before a savepoint goes on after ROLLBACK TO
-- it; one started inside a savepoint that is rolled back stops with an
-- error (its query may read what the rollback removed), never a crash.
BEGIN;
DECLARE c3 CURSOR FOR SELECT exwiw_dump_jsonl('SELECT id FROM cursor_t ORDER BY id', chunk_bytes => 1);
FETCH 1 FROM c3;
SAVEPOINT s1;
FETCH 1 FROM c3;
ROLLBACK TO SAVEPOINT s1;
FETCH 2 FROM c3;
COMMIT;
BEGIN;
DECLARE c4 CURSOR FOR SELECT exwiw_dump_jsonl('SELECT id FROM cursor_t ORDER BY id', chunk_bytes => 1);
SAVEPOINT s2;
FETCH 1 FROM c4;
ROLLBACK TO SAVEPOINT s2;
FETCH 1 FROM c4;
ROLLBACK;
RESET ROLE;
-- an index created inside the rolled-back savepoint, which the stream's
-- plan reads
BEGIN;
DECLARE c5 CURSOR FOR SELECT exwiw_dump('SELECT id FROM cursor_t WHERE id > 3 ORDER BY id', 'cursor_t', chunk_bytes => 1);
SAVEPOINT s3;
CREATE INDEX cursor_t_id ON cursor_t (id);
SET LOCAL enable_seqscan = off;
FETCH 1 FROM c5;
ROLLBACK TO SAVEPOINT s3;
FETCH 1 FROM c5;
ROLLBACK;
-- a stream started in a savepoint that commits belongs to the parent
BEGIN;
DECLARE c6 CURSOR FOR SELECT exwiw_dump('SELECT id FROM cursor_t ORDER BY id', 'cursor_t', chunk_bytes => 1);
SAVEPOINT s4;
FETCH 1 FROM c6;
RELEASE SAVEPOINT s4;
SAVEPOINT s5;
ROLLBACK TO SAVEPOINT s5;
FETCH 2 FROM c6;
COMMIT;
-- exwiw_export in the same situation
CREATE TABLE cursor_p (id int PRIMARY KEY);
CREATE TABLE cursor_c (id int PRIMARY KEY, p int REFERENCES cursor_p);
INSERT INTO cursor_p VALUES (1); INSERT INTO cursor_c VALUES (1, 1), (2, 1);
BEGIN;
DECLARE c7 CURSOR FOR SELECT (e).file_name FROM (SELECT exwiw_export('cursor_p', '{1}', '[{"name": "cursor_p", "primary_key": "id"}, {"name": "cursor_c", "primary_key": "id", "belongs_tos": [{"table_name": "cursor_p", "foreign_key": "p"}]}]') e) s;
SAVEPOINT s6;
FETCH 1 FROM c7;
ROLLBACK TO SAVEPOINT s6;
FETCH 1 FROM c7;
ROLLBACK;

-- WITH HOLD: the held cursor's query runs again at COMMIT, into the
-- cursor's store, and the transaction's other work is kept; whether or not
-- it was fetched from before the COMMIT.
CREATE TABLE held_work (n int);
BEGIN;
INSERT INTO held_work VALUES (1);
DECLARE h1 CURSOR WITH HOLD FOR SELECT exwiw_dump('SELECT id FROM cursor_t ORDER BY id', 'cursor_t', 4, chunk_bytes => 1);
COMMIT;
SELECT count(*) AS kept FROM held_work;
FETCH ALL FROM h1;
CLOSE h1;
BEGIN;
INSERT INTO held_work VALUES (2);
DECLARE h2 CURSOR WITH HOLD FOR SELECT exwiw_dump('SELECT id FROM cursor_t ORDER BY id', 'cursor_t', 4, chunk_bytes => 1);
FETCH 1 FROM h2;
COMMIT;
SELECT count(*) AS kept FROM held_work;
FETCH ALL FROM h2;
CLOSE h2;
BEGIN;
DECLARE h3 CURSOR WITH HOLD FOR SELECT (e).file_name FROM (SELECT exwiw_export('cursor_p', '{1}', '[{"name": "cursor_p", "primary_key": "id"}, {"name": "cursor_c", "primary_key": "id", "belongs_tos": [{"table_name": "cursor_p", "foreign_key": "p"}]}]') e) s;
COMMIT;
FETCH ALL FROM h3;
CLOSE h3;

DROP TABLE held_work, cursor_c, cursor_p, cursor_t;
DROP FUNCTION pg_temp.close_others(text);
DROP ROLE exwiw_cursor_user;
