--
-- Subset export against a hostile session: a role that may create objects
-- in a schema on a superuser's search_path tries to get its functions and
-- operators called; a role without privileges; safe mode.
--
SET client_min_messages = warning;
DROP ROLE IF EXISTS exwiw_owner;
DROP ROLE IF EXISTS exwiw_reader;
CREATE ROLE exwiw_owner;
CREATE ROLE exwiw_reader;
CREATE SCHEMA trap AUTHORIZATION exwiw_owner;
SET ROLE exwiw_owner;
CREATE TABLE trap.shops (id int PRIMARY KEY, name varchar(20), code char(3));
CREATE TABLE trap.users (id serial PRIMARY KEY, shop_id int REFERENCES trap.shops,
	email varchar(50), parent_id int REFERENCES trap.users, api_token uuid);
CREATE INDEX ON trap.users (shop_id);
CREATE TABLE trap.tags (shop_code char(3), tag text, PRIMARY KEY (shop_code, tag));
INSERT INTO trap.shops VALUES (1, 'a', 'A01'), (2, 'b', 'B02');
INSERT INTO trap.users (shop_id, email, parent_id) VALUES (1, 'x@y', NULL), (1, 'z@y', 1), (2, 'w@y', NULL);
INSERT INTO trap.tags VALUES ('A01', 't');
CREATE TABLE trap.called (what text);
-- Every function and operator exwiw could call, shadowed with a better
-- match for the argument types than pg_catalog's: each records its call.
CREATE FUNCTION trap.record(w text) RETURNS void LANGUAGE sql AS $$ INSERT INTO trap.called VALUES (w) $$;
CREATE FUNCTION trap.cardinality(text[]) RETURNS int LANGUAGE plpgsql AS $$ BEGIN PERFORM trap.record('cardinality'); RETURN 1; END $$;
CREATE FUNCTION trap.array_to_string(text[], text) RETURNS text LANGUAGE plpgsql AS $$ BEGIN PERFORM trap.record('array_to_string'); RETURN ''; END $$;
CREATE FUNCTION trap.unnest(integer[]) RETURNS SETOF integer LANGUAGE plpgsql AS $$ BEGIN PERFORM trap.record('unnest'); RETURN NEXT 1; END $$;
CREATE FUNCTION trap.count(integer) RETURNS bigint LANGUAGE plpgsql AS $$ BEGIN PERFORM trap.record('count'); RETURN 1; END $$;
CREATE FUNCTION trap.concat(text, integer) RETURNS text LANGUAGE plpgsql AS $$ BEGIN PERFORM trap.record('concat'); RETURN 'x'; END $$;
CREATE FUNCTION trap.row_number() RETURNS bigint LANGUAGE plpgsql AS $$ BEGIN PERFORM trap.record('row_number'); RETURN 1; END $$;
CREATE FUNCTION trap.setval(text, bigint, boolean) RETURNS bigint LANGUAGE plpgsql AS $$ BEGIN PERFORM trap.record('setval'); RETURN 1; END $$;
CREATE FUNCTION trap.eq_int(int, int) RETURNS boolean LANGUAGE plpgsql AS $$ BEGIN PERFORM trap.record('= int'); RETURN $1 OPERATOR(pg_catalog.=) $2; END $$;
CREATE OPERATOR trap.= (LEFTARG = int, RIGHTARG = int, FUNCTION = trap.eq_int);
CREATE FUNCTION trap.eq_vc(varchar, varchar) RETURNS boolean LANGUAGE plpgsql AS $$ BEGIN PERFORM trap.record('= varchar'); RETURN $1::text OPERATOR(pg_catalog.=) $2::text; END $$;
CREATE OPERATOR trap.= (LEFTARG = varchar, RIGHTARG = varchar, FUNCTION = trap.eq_vc);
CREATE FUNCTION trap.eq_bp(char(3), char(3)) RETURNS boolean LANGUAGE plpgsql AS $$ BEGIN PERFORM trap.record('= bpchar'); RETURN $1::text OPERATOR(pg_catalog.=) $2::text; END $$;
CREATE OPERATOR trap.= (LEFTARG = bpchar, RIGHTARG = bpchar, FUNCTION = trap.eq_bp);
CREATE FUNCTION trap.ne_big(bigint, bigint) RETURNS boolean LANGUAGE plpgsql AS $$ BEGIN PERFORM trap.record('<> bigint'); RETURN true; END $$;
CREATE OPERATOR trap.<> (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = trap.ne_big);
CREATE FUNCTION trap.cat(text, text) RETURNS text LANGUAGE plpgsql AS $$ BEGIN PERFORM trap.record('||'); RETURN $1 OPERATOR(pg_catalog.||) $2; END $$;
CREATE OPERATOR trap.|| (LEFTARG = text, RIGHTARG = text, FUNCTION = trap.cat);
GRANT USAGE ON SCHEMA trap TO PUBLIC;
GRANT SELECT, INSERT ON trap.called TO PUBLIC;
RESET ROLE;

-- A superuser with the trap schema first on its path, and then explicitly
-- before pg_catalog: every function of exwiw, with a config from the catalog
-- and with one that has masks, a filter, a composite key, a self-reference.
SET search_path = trap, public;
SELECT count(*) > 0 AS planned FROM exwiw_plan('shops', '{1}');
SELECT count(*) > 0 AS exported FROM exwiw_export('shops', '{1}', allow_undecided => true);
SELECT count(*) > 0 AS exported FROM exwiw_export('tags', ARRAY[['A01', 't']], format => 'copy', allow_undecided => true);
SELECT jsonb_array_length(exwiw_config_from_catalog() -> 'tables') AS tables;
SET search_path = trap, pg_catalog, public;
SELECT count(*) > 0 AS planned FROM public.exwiw_plan('shops', '{1,2}');
SELECT count(*) > 0 AS exported FROM public.exwiw_export('shops', '{1,2}', '[
	{"name": "shops", "primary_key": "id", "filter": "id > 0"},
	{"name": "users", "primary_key": "id", "columns": [{"name": "id"}, {"name": "shop_id"},
	 {"name": "email", "replace_with": "u{id}@example.com"}, {"name": "parent_id"}],
	 "belongs_tos": [{"table_name": "shops", "foreign_key": "shop_id"}, {"table_name": "users", "foreign_key": "parent_id"}]},
	{"name": "tags", "primary_key": ["shop_code", "tag"],
	 "belongs_tos": [{"table_name": "shops", "foreign_key": "shop_code", "references": "code"}]}]');
SELECT jsonb_array_length(public.exwiw_config_from_catalog('trap') -> 'tables') AS tables;
SELECT count(*) > 0 AS dumped FROM public.exwiw_dump('SELECT 1 AS a', 't');
SELECT count(*) > 0 AS dumped FROM public.exwiw_dump_jsonl('SELECT 1 AS a');
RESET search_path;
-- nothing of trap's was called
SELECT what, count(*) FROM trap.called GROUP BY what;
-- (the traps work: unqualified calls in this session reach them)
SET search_path = trap, pg_catalog, public;
SELECT cardinality(ARRAY['a']) + count(x) FROM unnest(ARRAY[1, 2]) AS x WHERE x = 1 AND 'a'::varchar = 'a'::varchar;
RESET search_path;
SELECT what, count(*) FROM trap.called GROUP BY what ORDER BY what;
TRUNCATE trap.called;

-- The files do not depend on the search_path either.
SET search_path = trap, pg_catalog, public;
CREATE TEMP TABLE with_trap AS SELECT * FROM public.exwiw_export('shops', '{1}', allow_undecided => true);
SET search_path = trap, public;
CREATE TEMP TABLE without_trap AS SELECT * FROM exwiw_export('shops', '{1}', allow_undecided => true);
SELECT count(*) AS differing_chunks FROM ((TABLE with_trap EXCEPT TABLE without_trap) UNION ALL (TABLE without_trap EXCEPT TABLE with_trap)) d;

-- Privileges: the caller's own.  A role that may read the tables but not
-- the sequence a file sets gets the GRANT it needs; the plan alone needs
-- no sequence.
GRANT USAGE ON SCHEMA trap TO exwiw_reader;
GRANT SELECT ON trap.shops, trap.users TO exwiw_reader;
SET ROLE exwiw_reader;
SELECT count(*) > 0 AS planned FROM exwiw_plan('shops', '{1}', '[{"name": "shops", "primary_key": "id"}, {"name": "users", "primary_key": "id", "belongs_tos": [{"table_name": "shops", "foreign_key": "shop_id"}]}]');
SELECT * FROM exwiw_export('shops', '{1}', '[{"name": "shops", "primary_key": "id"}, {"name": "users", "primary_key": "id", "belongs_tos": [{"table_name": "shops", "foreign_key": "shop_id"}]}]');
SELECT * FROM exwiw_export('shops', '{1}', '[{"name": "shops", "primary_key": "id"}, {"name": "tags", "primary_key": ["shop_code", "tag"], "export": "all"}]');
RESET ROLE;
GRANT SELECT ON SEQUENCE trap.users_id_seq TO exwiw_reader;
SET ROLE exwiw_reader;
SELECT file_name FROM exwiw_export('shops', '{1}', '[{"name": "shops", "primary_key": "id"}, {"name": "users", "primary_key": "id", "belongs_tos": [{"table_name": "shops", "foreign_key": "shop_id"}]}]');
RESET ROLE;

-- Safe mode: the generated config masks what it can by default (email);
-- a column with no default mask (a uuid token) stays undecided, and a
-- config with undecided columns is refused, naming them all, before
-- anything is read; a mask or "needs_mask_decision": false decides a
-- column; allow_undecided => true exports them as they are.
SELECT c FROM jsonb_array_elements(exwiw_config_from_catalog('trap') -> 'tables') t,
	jsonb_array_elements(t -> 'columns') c WHERE c ? 'needs_mask_decision';
SELECT * FROM exwiw_export('shops', '{1}', exwiw_config_from_catalog('trap'));
SELECT count(*) FROM exwiw_export('shops', '{1}', '[{"name": "trap.shops", "primary_key": "id"},
	{"name": "trap.users", "primary_key": "id", "export": "all", "columns": [{"name": "id"},
	 {"name": "email", "needs_mask_decision": true, "replace_with": "u{id}"},
	 {"name": "parent_id", "needs_mask_decision": false}]}]');
SELECT count(*) FROM exwiw_export('shops', '{1}', exwiw_config_from_catalog('trap'), allow_undecided => true);
SELECT * FROM exwiw_export('shops', '{1}', allow_undecided => NULL);

SET client_min_messages = warning;
DROP SCHEMA trap CASCADE;
DROP ROLE exwiw_reader;
DROP ROLE exwiw_owner;
