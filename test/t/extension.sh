#!/usr/bin/env bash
# test/t/extension.sh: the extension as a package.
#
#  1. Upgrade path, as contrib's upgrade tests do: install 1.0, use it with
#     the current library (the C functions of 1.1 called through 1.0's
#     declarations, with fewer arguments), ALTER EXTENSION exwiw UPDATE, and
#     compare every object of the extension (signature, definition,
#     comment, privileges) with a fresh install of the default version.
#  2. Any schema: CREATE EXTENSION exwiw SCHEMA tools, then exports run
#     from a session whose search_path does not hold tools (the generated
#     queries call tools.exwiw_fake); ALTER EXTENSION exwiw SET SCHEMA moves
#     it, and exports keep working.
#  3. Privileges: no function of the extension is executable by PUBLIC
#     beyond what the server grants by default to a function, and nothing
#     lives in the schema but the extension's documented functions.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
[ -n "${EXWIW_BIN:-}" ] && PATH=$EXWIW_BIN:$PATH
export PGDATABASE=postgres
work=$(mktemp -d /tmp/exwiw-extension.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail=0
ok() { echo "ok: $*"; }
not_ok() { echo "not ok: $*"; fail=1; }

psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
SET client_min_messages = warning;
DROP DATABASE IF EXISTS ext_upgraded;
DROP DATABASE IF EXISTS ext_fresh;
DROP DATABASE IF EXISTS ext_schema;
CREATE DATABASE ext_upgraded;
CREATE DATABASE ext_fresh;
CREATE DATABASE ext_schema;
SQL

# every object of the extension, one line each, comparable across databases
objects() {
	psql -X -At -v ON_ERROR_STOP=1 -d "$1" <<'SQL'
SELECT pg_describe_object(d.classid, d.objid, 0) || ' | ' ||
	   coalesce(pg_get_functiondef(p.oid), '') || ' | ' ||
	   coalesce(obj_description(d.objid, d.classid::regclass::name), '') || ' | ' ||
	   coalesce(p.proacl::text, '') || ' | ' || coalesce(p.provolatile::text || p.proparallel::text || p.proisstrict::text, '')
FROM pg_depend d
JOIN pg_extension e ON e.oid = d.refobjid AND d.refclassid = 'pg_extension'::regclass
LEFT JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND p.oid = d.objid
WHERE e.extname = 'exwiw' AND d.deptype = 'e'
ORDER BY 1;
SQL
}

# 1. the upgrade path
psql -X -q -v ON_ERROR_STOP=1 -d ext_upgraded <<'SQL' >"$work/v10.txt"
CREATE EXTENSION exwiw VERSION '1.0';
CREATE TABLE t (id int PRIMARY KEY, note text);
INSERT INTO t VALUES (1, 'a'), (2, 'b');
SELECT extversion FROM pg_extension WHERE extname = 'exwiw';
-- 1.0's declarations on the 1.1 library
SELECT string_agg(c, E'\n') FROM exwiw_dump('SELECT * FROM t ORDER BY id', 't') c;
SELECT string_agg(file_name || ':' || length(chunk), ',') FROM exwiw_export('t', '{1}', '[{"name": "t", "primary_key": "id", "columns": [{"name": "id"}, {"name": "note"}]}]');
SELECT exwiw_ext_json(t) FROM t WHERE id = 1;
SQL
if grep -q "^ *1.0$" "$work/v10.txt" && grep -q "insert-001-t.sql" "$work/v10.txt" && grep -q '"note":"a"' "$work/v10.txt"; then
	ok "1.0 installs, and its declarations run on the current library (exwiw_dump, exwiw_export with 4 arguments, exwiw_ext_json)"
else
	not_ok "1.0 on the current library:"
	cat "$work/v10.txt"
fi
psql -X -q -v ON_ERROR_STOP=1 -d ext_upgraded -c "ALTER EXTENSION exwiw UPDATE"
psql -X -q -v ON_ERROR_STOP=1 -d ext_fresh -c "CREATE EXTENSION exwiw"
v_up=$(psql -X -At -d ext_upgraded -c "SELECT extversion FROM pg_extension WHERE extname = 'exwiw'")
v_fresh=$(psql -X -At -d ext_fresh -c "SELECT extversion FROM pg_extension WHERE extname = 'exwiw'")
objects ext_upgraded >"$work/upgraded.txt"
objects ext_fresh >"$work/fresh.txt"
if [ "$v_up" = "$v_fresh" ] && cmp -s "$work/upgraded.txt" "$work/fresh.txt"; then
	ok "ALTER EXTENSION exwiw UPDATE from 1.0 gives $v_up with the same $(grep -c "^function " "$work/fresh.txt") functions as a fresh install (signatures, definitions, comments, privileges)"
else
	not_ok "1.0 updated ($v_up) differs from a fresh install ($v_fresh):"
	diff "$work/upgraded.txt" "$work/fresh.txt" | head -40
fi
n=$(psql -X -At -d ext_upgraded -c "SELECT count(*) FROM exwiw_export('t', '{1}', '[{\"name\": \"t\", \"primary_key\": \"id\"}]')")
[ "$n" -ge 1 ] && ok "after the update, exwiw_export runs with its new signature" ||
	not_ok "after the update, exwiw_export: $n"

# 2. any schema
psql -X -q -v ON_ERROR_STOP=1 -d ext_schema <<'SQL' >"$work/schema.txt" 2>&1
CREATE SCHEMA tools;
CREATE EXTENSION exwiw SCHEMA tools;
CREATE SCHEMA app;
CREATE TABLE app.people (id int PRIMARY KEY, name text);
INSERT INTO app.people VALUES (1, 'Ann'), (2, NULL);
SET search_path = app;
SELECT tools.exwiw_fake('name', NULL, '1') AS fake \gset
SELECT count(*) FROM (SELECT (e).file_name, (e).chunk FROM (SELECT tools.exwiw_export('people', '{1,2}',
	'[{"name": "people", "primary_key": "id", "columns": [{"name": "id"},
	  {"name": "name", "replace_with_fake_data": {"seed": "id", "type": "name"}}]}]') AS e) s
	WHERE (e).chunk LIKE '%' || :'fake' || '%' AND (e).chunk NOT LIKE '%Ann%') s;
ALTER EXTENSION exwiw SET SCHEMA public;
SET search_path = app;
SELECT count(*) FROM public.exwiw_export('people', '{1}', '[{"name": "people", "primary_key": "id", "columns": [{"name": "id"},
	  {"name": "name", "replace_with_fake_data": {"seed": "id", "type": "name"}}]}]') WHERE chunk LIKE '%' || :'fake' || '%';
SELECT count(*) FROM pg_proc WHERE pronamespace = 'tools'::regnamespace;
SQL
if [ "$(grep -c '^ *1$' "$work/schema.txt")" -eq 2 ] && grep -q '^ *0$' "$work/schema.txt"; then
	ok "CREATE EXTENSION exwiw SCHEMA tools: an export with fake data runs from search_path app (it calls tools.exwiw_fake); after ALTER EXTENSION exwiw SET SCHEMA public it runs the same, and tools is left empty"
else
	not_ok "the extension in schema tools:"
	cat "$work/schema.txt"
fi

# 3. privileges: what PUBLIC may execute is the documented API
psql -X -At -d ext_fresh -c "SELECT p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')'
	FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass AND d.deptype = 'e'
	JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'exwiw'
	WHERE p.proname NOT IN ('exwiw_dump', 'exwiw_dump_jsonl', 'exwiw_ext_json', 'exwiw_config_from_catalog',
		'exwiw_plan', 'exwiw_explain', 'exwiw_export', 'exwiw_fake', 'exwiw_dump_to_file',
		'exwiw_dump_jsonl_to_file', 'exwiw_export_to_dir', 'exwiw_remove_export', 'exwiw_copy_lines',
		'exwiw_file_prologue', 'exwiw_mask_pseudonym', 'exwiw_mask_partial', 'exwiw_mask_noise',
		'exwiw_mask_json', 'exwiw_mask_preview')" >"$work/extra.txt"
if [ ! -s "$work/extra.txt" ]; then
	ok "the extension holds only its documented functions (no internal helper for PUBLIC to call)"
else
	not_ok "functions beyond the documented API: $(paste -sd, "$work/extra.txt")"
fi

psql -X -q -c "DROP DATABASE ext_upgraded" -c "DROP DATABASE ext_fresh" -c "DROP DATABASE ext_schema"
[ $fail -eq 0 ]
