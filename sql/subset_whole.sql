-- subset_whole: tables read whole (plan/whole.c, run/whole.c).  When the
-- ids name every row of the target, a table whose seed then holds every
-- row (through NOT NULL keys that validated constraints enforce, or a
-- condition over the ids that no row fails) is read whole: no closure set,
-- its sets read from the table alone, its file in key order.  The files
-- are byte for byte those of the same export with every set computed
-- (exwiw.sets_as_ctes, which reads no table whole); where a constraint
-- cannot vouch for its rows (triggers disabled, a check pending, a
-- nullable key, a policy hiding parents) the table is not read whole and a
-- row whose parent is missing stays out.
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS whole CASCADE;
RESET client_min_messages;
CREATE SCHEMA whole;
SET search_path = whole, public;
CREATE TABLE tenants (id bigint PRIMARY KEY, name text NOT NULL);
CREATE TABLE things (id bigint PRIMARY KEY,
	tenant_id bigint NOT NULL REFERENCES tenants, secret text);
CREATE TABLE uses (id bigint PRIMARY KEY,
	tenant_id bigint NOT NULL REFERENCES tenants,
	thing_id bigint NOT NULL REFERENCES things);
-- a nullable key: its rows with none are nobody's
CREATE TABLE notes (id bigint PRIMARY KEY, thing_id bigint REFERENCES things);
-- a key checked at commit
CREATE TABLE marks (id bigint PRIMARY KEY,
	use_id bigint NOT NULL REFERENCES uses DEFERRABLE INITIALLY DEFERRED);
-- a key whose triggers are turned off below
CREATE TABLE tags (id bigint PRIMARY KEY,
	thing_id bigint NOT NULL REFERENCES things);
CREATE INDEX ON things (tenant_id);
CREATE INDEX ON uses (tenant_id);
CREATE INDEX ON uses (thing_id);
CREATE INDEX ON notes (thing_id);
CREATE INDEX ON marks (use_id);
CREATE INDEX ON tags (thing_id);
INSERT INTO tenants SELECT g, 'tenant ' || g FROM generate_series(1, 4) g;
INSERT INTO things SELECT g, 1 + g % 4, 'secret ' || g FROM generate_series(1, 40) g;
INSERT INTO uses SELECT g, 1 + g % 4, 1 + (g * 7) % 40 FROM generate_series(1, 60) g;
INSERT INTO notes SELECT g, CASE WHEN g % 5 = 0 THEN NULL ELSE 1 + g % 40 END
FROM generate_series(1, 30) g;
INSERT INTO marks SELECT g, 1 + g % 60 FROM generate_series(1, 80) g;
INSERT INTO tags SELECT g, 1 + g % 40 FROM generate_series(1, 20) g;
ANALYZE tenants, things, uses, notes, marks, tags;
CREATE TEMP TABLE cfg AS
SELECT jsonb_set(exwiw_config_from_catalog('whole'), '{tables}',
	(SELECT jsonb_agg(CASE WHEN t ->> 'name' = 'things'
		THEN jsonb_set(t, '{columns}', (SELECT jsonb_agg(CASE WHEN c ->> 'name' = 'secret'
			THEN c || '{"replace_with": "masked-{id}"}' ELSE c END)
			FROM jsonb_array_elements(t -> 'columns') c))
		ELSE t END)
	 FROM jsonb_array_elements(exwiw_config_from_catalog('whole') -> 'tables') t)) AS c;

-- bodies(ids, deletes): the export's files, each one text
CREATE FUNCTION bodies(ids text[], deletes bool)
RETURNS TABLE (f text, body text)
LANGUAGE sql AS $$
	SELECT (e).file_name, string_agg((e).chunk, '' ORDER BY n)
	FROM (SELECT e, row_number() OVER () AS n
		  FROM exwiw_export('tenants', ids, (SELECT c FROM cfg), 'copy',
							deletes => deletes) AS e) s
	GROUP BY (e).file_name
$$;

-- files(ids, deletes, debug): the export's files (its DEBUG messages when
-- debug), and the same export's with every set computed, compared byte for
-- byte
CREATE FUNCTION files(ids text[], deletes bool DEFAULT false, debug bool DEFAULT false)
RETURNS TABLE (file_name text, rows bigint, same bool)
LANGUAGE plpgsql AS $$
BEGIN
	CREATE TEMP TABLE got (f text, body text);
	CREATE TEMP TABLE want (f text, body text);
	IF debug THEN
		SET LOCAL client_min_messages = debug1;
	END IF;
	INSERT INTO got SELECT * FROM bodies(ids, deletes);
	SET LOCAL client_min_messages = warning;
	SET LOCAL exwiw.sets_as_ctes = on;
	INSERT INTO want SELECT * FROM bodies(ids, deletes);
	SET LOCAL exwiw.sets_as_ctes = off;
	RETURN QUERY
	SELECT coalesce(got.f, want.f),
		(SELECT count(*) FROM regexp_split_to_table(got.body, E'\n') AS l
		 WHERE l ~ E'^[0-9]+\t'),
		got.body IS NOT DISTINCT FROM want.body
	FROM got FULL JOIN want ON got.f = want.f
	ORDER BY 1;
	DROP TABLE got, want;
END $$;

-- (once first, quietly, for the catalog caches; no read-ahead's messages)
SET exwiw.io_concurrency = 0;
\o /dev/null
SELECT * FROM files(ARRAY['1', '2', '3', '4']);
\o

-- every tenant: all but notes are read whole (its key is nullable, and
-- the rows without one are nobody's); their closure sets are not computed
SELECT * FROM files(ARRAY['1', '2', '3', '4'], debug => true);
SELECT (SELECT count(*) FROM notes WHERE thing_id IS NOT NULL) AS notes_with_thing;

-- the file of things carries the mask, read whole too
SELECT count(*) FILTER (WHERE l ~ E'\tsecret ') AS clear,
	   count(*) FILTER (WHERE l ~ E'\tmasked-[0-9]+$') AS masked
FROM exwiw_export('tenants', ARRAY['1', '2', '3', '4'], (SELECT c FROM cfg), 'copy') AS e,
	 regexp_split_to_table((e).chunk, E'\n') AS l
WHERE (e).file_name LIKE '%-things.sql';

-- three of four: the target's check fails, nothing is read whole
SELECT * FROM files(ARRAY['1', '2', '3'], debug => true);

-- one: nothing is checked
SELECT * FROM files(ARRAY['1'], debug => true);

-- a fifth tenant without a row elsewhere: the target is not read whole,
-- the tables whose seeds its ids hold every row of are (their closure sets
-- empty, computed without reading the sets their queries name)
INSERT INTO tenants VALUES (5, 'tenant 5');
SELECT * FROM files(ARRAY['1', '2', '3', '4'], debug => true);
DELETE FROM tenants WHERE id = 5;

-- the refresh's delete files, every tenant
SELECT * FROM files(ARRAY['1', '2', '3', '4'], true);

-- counted without reading them (exwiw_explain's count_rows)
SELECT file_name, actual_rows FROM exwiw_explain('tenants', ARRAY['1', '2', '3', '4'],
	(SELECT c FROM cfg), count_rows => true) ORDER BY file_name;

-- the triggers of tags' key turned off, and a tag whose thing is gone: tags
-- is not read whole, and its orphan stays out
ALTER TABLE tags DISABLE TRIGGER ALL;
INSERT INTO tags VALUES (21, 999);
SELECT * FROM files(ARRAY['1', '2', '3', '4'], debug => true);
DELETE FROM tags WHERE id = 21;
ALTER TABLE tags ENABLE TRIGGER ALL;

-- a use deleted in the export's own transaction, its marks' check pending
-- until commit: marks is not read whole, and the marks of the use stay out
BEGIN;
DELETE FROM uses WHERE id = 1;
SELECT count(*) AS orphan_marks FROM marks WHERE use_id = 1;
SELECT * FROM files(ARRAY['1', '2', '3', '4'], debug => true);
ROLLBACK;

-- row-level security hides thing 2 from a reader: tags, whose parent it
-- is, is not read whole (its tags of thing 2 stay out, as the rows of a
-- tenant's export whose parent the reader cannot see)
CREATE ROLE exwiw_whole_reader;
GRANT USAGE ON SCHEMA whole TO exwiw_whole_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA whole TO exwiw_whole_reader;
GRANT SELECT ON cfg TO exwiw_whole_reader;
ALTER TABLE things ENABLE ROW LEVEL SECURITY;
CREATE POLICY visible ON things FOR SELECT TO exwiw_whole_reader USING (id <> 2);
SELECT count(*) AS tags_of_thing_2 FROM tags WHERE thing_id = 2;
SET ROLE exwiw_whole_reader;
SET client_min_messages = debug1;
SELECT (e).file_name, count(*) FILTER (WHERE l ~ E'^[0-9]+\t') AS rows,
	count(*) FILTER (WHERE l ~ E'^[0-9]+\t2$') AS of_thing_2
FROM exwiw_export('tenants', ARRAY['1', '2', '3', '4'], (SELECT c FROM cfg), 'copy') AS e,
	 regexp_split_to_table((e).chunk, E'\n') AS l
WHERE (e).file_name LIKE '%-tags.sql'
GROUP BY 1;
RESET client_min_messages;
RESET ROLE;
DROP POLICY visible ON things;
ALTER TABLE things DISABLE ROW LEVEL SECURITY;
REVOKE ALL ON ALL TABLES IN SCHEMA whole FROM exwiw_whole_reader;
REVOKE ALL ON SCHEMA whole FROM exwiw_whole_reader;
REVOKE ALL ON cfg FROM exwiw_whole_reader;
DROP ROLE exwiw_whole_reader;

RESET exwiw.io_concurrency;
DROP TABLE cfg;
SET client_min_messages = warning;
DROP SCHEMA whole CASCADE;
RESET client_min_messages;
