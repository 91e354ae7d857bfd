-- Tables whose names hold a "." or other odd characters (issue 38, item 7).
-- A config names a table as the Ruby client writes it ("audit.log": the
-- name as it is, or "schema.table"), every reading counted, one must find
-- a table; or with parts in double quotes as in SQL ("\"audit.log\"",
-- "dn.\"audit.log\"").  exwiw_config_from_catalog() spells such a name so
-- that it reads back; the files write it quoted.  The export is loaded as
-- a role that owns nothing, every foreign key enforced, and compared with
-- EXCEPT both ways.
SET client_min_messages = warning;
CREATE SCHEMA dn;
SET search_path = dn, public;
CREATE TABLE accounts (id int PRIMARY KEY, name text NOT NULL);
CREATE TABLE "audit.log" (id int PRIMARY KEY, account_id int NOT NULL REFERENCES accounts, msg text);
CREATE TABLE "We""ird Name" (id int PRIMARY KEY, "audit id" int NOT NULL REFERENCES "audit.log",
	"Secret" text, "Note" text);
INSERT INTO accounts VALUES (1, 'one'), (2, 'two');
INSERT INTO "audit.log" VALUES (10, 1, 'a.b'), (11, 1, 'x"y'), (20, 2, 'other');
INSERT INTO "We""ird Name" VALUES (100, 10, 'hush-100', 'n1'), (101, 11, 'hush-101', 'n2'),
	(200, 20, 'hush-200', 'n3');

-- the catalog's names, and that each reads back to its table
SELECT n #>> '{}' AS name FROM jsonb_path_query(exwiw_config_from_catalog(), '$.tables[*].name') n ORDER BY 1;
SELECT p.seq, p.table_name FROM exwiw_plan('accounts', '{1}', exwiw_config_from_catalog()) p
WHERE p.seq IS NOT NULL ORDER BY p.seq;

-- the Ruby client's spelling: the name as it is
CREATE TEMP TABLE cfg AS SELECT '[
  {"name": "accounts", "primary_key": "id"},
  {"name": "audit.log", "primary_key": "id",
   "belongs_tos": [{"table_name": "accounts", "foreign_key": "account_id"}]},
  {"name": "We\"ird Name", "primary_key": "id",
   "belongs_tos": [{"table_name": "audit.log", "foreign_key": "audit id"}],
   "columns": [{"name": "id"}, {"name": "audit id"},
     {"name": "Secret", "replace_with": "masked-{id}"}, {"name": "Note"}]}]'::jsonb AS c;
CREATE TEMP TABLE exported AS
SELECT row_number() OVER () AS n, e.file_name, e.chunk
FROM cfg, exwiw_export('accounts', '{1}', cfg.c, deletes => true) e;
SELECT file_name, string_agg(chunk, E'\n' ORDER BY n) AS body
FROM exported GROUP BY file_name ORDER BY file_name;
-- no masked value reached a file
SELECT count(*) AS leaks FROM exported WHERE chunk LIKE '%hush-%';

-- load into a copy as a role that owns nothing, every foreign key enforced
CREATE SCHEMA dn_copy;
CREATE TABLE dn_copy.accounts (LIKE dn.accounts INCLUDING ALL);
CREATE TABLE dn_copy."audit.log" (LIKE dn."audit.log" INCLUDING ALL,
	FOREIGN KEY (account_id) REFERENCES dn_copy.accounts);
CREATE TABLE dn_copy."We""ird Name" (LIKE dn."We""ird Name" INCLUDING ALL,
	FOREIGN KEY ("audit id") REFERENCES dn_copy."audit.log");
CREATE ROLE dn_loader;
GRANT USAGE ON SCHEMA dn_copy TO dn_loader;
GRANT SELECT, INSERT, DELETE ON ALL TABLES IN SCHEMA dn_copy TO dn_loader;
GRANT SELECT ON exported TO dn_loader;
CREATE FUNCTION pg_temp.load_files(pattern text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	f record;
BEGIN
	FOR f IN SELECT file_name, string_agg(chunk, E'\n' ORDER BY n) || E'\n' AS body
			 FROM exported WHERE file_name ~ pattern GROUP BY file_name ORDER BY file_name
	LOOP
		EXECUTE f.body;
	END LOOP;
END
$$;
SET ROLE dn_loader;
SET search_path = dn_copy;
SELECT pg_temp.load_files('^insert-');
-- and once more, through the delete files first (the refresh)
SELECT pg_temp.load_files('^delete-');
SELECT pg_temp.load_files('^insert-');
RESET ROLE;
REVOKE SELECT ON exported FROM dn_loader;
SET search_path = dn, public;
SELECT 'audit.log' AS t, count(*) AS differ FROM (
	(SELECT * FROM dn."audit.log" WHERE account_id = 1 EXCEPT SELECT * FROM dn_copy."audit.log")
	UNION ALL (SELECT * FROM dn_copy."audit.log" EXCEPT SELECT * FROM dn."audit.log" WHERE account_id = 1)) d
UNION ALL
SELECT 'We"ird Name', count(*) FROM (
	(SELECT id, "audit id", "Note" FROM dn."We""ird Name" WHERE "audit id" IN (10, 11)
	 EXCEPT SELECT id, "audit id", "Note" FROM dn_copy."We""ird Name")
	UNION ALL (SELECT id, "audit id", "Note" FROM dn_copy."We""ird Name"
	 EXCEPT SELECT id, "audit id", "Note" FROM dn."We""ird Name" WHERE "audit id" IN (10, 11))) d;
SELECT id, "Secret" FROM dn_copy."We""ird Name" ORDER BY id;

-- the quoted spellings name the same tables; the target in any spelling
SELECT count(*) AS files FROM exwiw_export('"accounts"', '{1}', '[
  {"name": "dn.\"accounts\"", "primary_key": "id"},
  {"name": "\"audit.log\"", "primary_key": "id",
   "belongs_tos": [{"table_name": "dn.\"accounts\"", "foreign_key": "account_id"}]}]', allow_undecided => true);

-- a schema "audit" with a table "log": the Ruby client's "audit.log" is
-- now ambiguous; the quoted spellings are not
CREATE SCHEMA audit;
CREATE TABLE audit.log (id int PRIMARY KEY);
SELECT exwiw_plan('accounts', '{1}', '[{"name": "accounts", "primary_key": "id"},
  {"name": "audit.log", "primary_key": "id"}]');
SELECT DISTINCT table_name FROM exwiw_plan('accounts', '{1}', '[{"name": "accounts", "primary_key": "id"},
  {"name": "\"audit.log\"", "primary_key": "id"}, {"name": "audit.\"log\"", "primary_key": "id"}]')
WHERE table_name <> 'accounts' ORDER BY 1;
SELECT n #>> '{}' AS name FROM jsonb_path_query(exwiw_config_from_catalog(), '$.tables[*].name') n ORDER BY 1;
SELECT count(*) AS files FROM exwiw_plan('accounts', '{1}', exwiw_config_from_catalog()) p
WHERE p.seq IS NOT NULL;
-- bad spellings
SELECT exwiw_plan('accounts', '{1}', '[{"name": "accounts", "primary_key": "id"},
  {"name": "\"audit.log", "primary_key": "id"}]');
SELECT exwiw_plan('accounts', '{1}', '[{"name": "accounts", "primary_key": "id"},
  {"name": "no.such.table", "primary_key": "id"}]');

-- exwiw_dump's table name: quoted parts as in SQL
SELECT c AS header FROM exwiw_dump('SELECT 1 AS id', '"audit.log"', chunk_bytes => 1) c LIMIT 3;
SELECT c AS header FROM exwiw_dump('SELECT 1 AS id', 'dn."We""ird Name"', chunk_bytes => 1) c LIMIT 3;
SELECT exwiw_dump('SELECT 1 AS id', '"audit.log');
SELECT exwiw_dump('SELECT 1 AS id', '"audit"x.log');

RESET search_path;
DROP SCHEMA dn, dn_copy, audit CASCADE;
DROP ROLE dn_loader;
RESET client_min_messages;
