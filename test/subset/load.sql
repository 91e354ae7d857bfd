-- test/subset/load.sql: load an export into schema shop_copy, an empty
-- copy of schema shop's tables (constraints other than NOT NULL left out:
-- the closure is checked with every constraint in test/t/subset_closure.sh).
--
-- Expects temporary table exported(n, file_name, chunk) holding the
-- export's rows in order; joins each file's chunks with "\n", adds the final
-- "\n" and runs the file.  Quiet: only the checks that follow are shown,
-- and client_min_messages stays at warning.
\set ECHO none
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS shop_copy CASCADE;
CREATE SCHEMA shop_copy;
DO $$
DECLARE
	r record;
BEGIN
	FOR r IN SELECT c.relname FROM pg_class c
			 WHERE c.relnamespace = 'shop'::regnamespace AND c.relkind = 'r'
	LOOP
		EXECUTE format('CREATE TABLE shop_copy.%I (LIKE shop.%I)', r.relname, r.relname);
	END LOOP;
END
$$;
SET search_path = shop_copy, public;
DO $$
DECLARE
	f record;
BEGIN
	FOR f IN SELECT file_name, string_agg(chunk, E'\n' ORDER BY n) || E'\n' AS body
			 FROM exported GROUP BY file_name ORDER BY min(n)
	LOOP
		EXECUTE f.body;
	END LOOP;
END
$$;
RESET session_replication_role;
SET search_path = shop, public;
\set ECHO all
