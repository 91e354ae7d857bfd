#!/usr/bin/env bash
# test/t/subset_shapes.sh: exports of the shapes schema (test/subset/shapes.sql:
# partitions with keys on the parent or on the partitions, inheritance,
# composite keys, several keys to one parent, character(n) and bit(n) keys,
# nextval defaults, generated and identity columns, two self-references,
# odd names, a trigger) load, in file order, as a role that is not a
# superuser, into an empty copy of the schema with every constraint
# enforced (replica mode refused, so every foreign key and trigger fires);
# then every loaded table equals, EXCEPT both ways, the source rows the
# rules select, written here by hand for shop 1.
#
# Targets: shops {1} and {2} and {1,2}, in both formats and with one row per
# INSERT statement; orders {150} (a partitioned target); film_actors
# ('1','1') (a composite key); tenants {ab} (a character(2) key); a config
# straight from exwiw_config_from_catalog().
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/subset/lib.sh"
[ -n "${EXWIW_BIN:-}" ] && PATH=$EXWIW_BIN:$PATH
export PGDATABASE=postgres
work=$(mktemp -d /tmp/subset-shapes.XXXXXX)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT

subset_make_databases "$root" shapes "$root/test/subset/shapes.sql"
pg_dump --schema-only -n shapes -d shapes_src >"$work/schema.sql"

fresh_dst() { subset_fresh_dst "$work/schema.sql" shapes shapes; }

# compare_loaded: copy the loaded tables back into schema "loaded" of the
# source database and compare each with the rows the source query expects.
compare_loaded() {
	local expected_sql=$1
	pg_dump --data-only --load-via-partition-root -n shapes -d shapes_dst 2>/dev/null | sed -e 's/^COPY shapes\./COPY loaded./' \
		-e '/^SELECT pg_catalog.setval/d' >"$work/loaded.sql"
	psql -X -q -v ON_ERROR_STOP=1 -d shapes_src >/dev/null <<'SQL'
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS loaded CASCADE;
CREATE SCHEMA loaded;
DO $$ DECLARE r record; BEGIN
	FOR r IN SELECT c.relname FROM pg_class c
			 WHERE c.relnamespace = 'shapes'::regnamespace AND c.relkind IN ('r', 'p')
			   AND NOT c.relispartition
	LOOP
		EXECUTE format('CREATE TABLE loaded.%I (LIKE shapes.%I INCLUDING GENERATED)', r.relname, r.relname);
	END LOOP;
END $$;
SQL
	psql -X -q -v ON_ERROR_STOP=1 -d shapes_src -f "$work/loaded.sql" >/dev/null
	psql -X -At -v ON_ERROR_STOP=1 -d shapes_src -f "$expected_sql"
}

fail=0
run() {
	local label=$1 target=$2 ids=$3 format=$4 config=${5:-"exwiw_test_unmasked(exwiw_config_from_catalog())"}
	local dir=$work/out-$label
	rm -rf "$dir"
	fresh_dst
	subset_write_files "$dir" -d shapes_src -c "SET search_path = shapes, public" \
		-c "SET client_min_messages = warning" \
		-c "SELECT (e).file_name, (e).chunk FROM (SELECT exwiw_export('$target', '$ids', $config, '$format', allow_undecided => true) AS e) s"
	if ! subset_load_files "$dir" -d shapes_dst -U shapes_loader \
		-c "SET search_path = shapes" -c "SET client_min_messages = error" 2>"$work/load.err"; then
		echo "not ok: $label: the files do not load with every constraint enforced"
		cat "$work/load.err"
		fail=1
		return
	fi
	echo "ok: $label: $(ls "$dir" | wc -l) files load as a non-superuser with every constraint enforced"
}

check() {
	local label=$1 expected=$2
	local out
	out=$(compare_loaded "$expected" 2>&1)
	if [ -n "$out" ]; then
		echo "not ok: $label: loaded rows differ from the expected rows:"
		echo "$out"
		fail=1
	else
		echo "ok: $label: every loaded table equals the expected rows (EXCEPT both ways)"
	fi
}

# The rows of shop 1, by the rules, written by hand.  Each line of the
# output is a difference; none is expected.
cat >"$work/expect-shop1.sql" <<'SQL'
\set QUIET on
SET search_path = shapes;
CREATE TEMP TABLE want (t text, keys text);
INSERT INTO want VALUES
	('shops', '{1}'), ('languages', '{1,2,3,4}'), ('films', '{1,2,3}'),
	('inventory', '{1,2}'), ('orders', '{1,150}'), ('order_lines', '{1,2,4}'),
	('payments', '{1,101,201}'), ('notes', '{1}'), ('secret_notes', '{3}'),
	('actors', '{1,2,3}'), ('film_actors', '{1,2,3}'), ('casting_notes', '{1,2}'),
	('tenants', '{a}'), ('flags', '{101}'), ('tickets', '{500,502}'),
	('invoices', '{1,3}'), ('categories', '{1,2,3}'), ('Odd Name', '{1}'),
	('a/b', '{1}'), ('audit_log', '{1,2,3}');
-- every table is listed
SELECT 'table without expectation: ' || c.relname FROM pg_class c
WHERE c.relnamespace = 'shapes'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
  AND c.relname NOT IN (SELECT t FROM want);
-- each table: loaded EXCEPT expected, and expected EXCEPT loaded.  The
-- source rows are read with ONLY: an inheritance child is its own table.
-- the trigger on films did not fire during the load (the loader owns the
-- tables, so each file disabled its table's triggers and enabled them
-- again): audit_log holds the exported rows only
SELECT 'audit_log: ' || count(*) || ' rows written by the trigger during the load, none expected'
FROM loaded.audit_log WHERE id > 3 HAVING count(*) <> 0;
DO $$
DECLARE
	r record;
	key text;
	src text;
	n bigint;
BEGIN
	FOR r IN SELECT t, keys FROM want LOOP
		SELECT a.attname INTO key FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
		WHERE i.indrelid = format('shapes.%I', r.t)::regclass AND i.indisprimary;
		key := coalesce(key, CASE r.t WHEN 'payments' THEN 'id' WHEN 'film_actors' THEN 'film_id' END);
		-- a partitioned table is the whole tree; an ordinary one, ONLY itself
		src := CASE WHEN r.t IN ('orders', 'payments') THEN format('shapes.%I', r.t)
					ELSE format('ONLY shapes.%I', r.t) END;
		EXECUTE format('SELECT count(*) FROM ((TABLE loaded.%1$I EXCEPT ALL SELECT * FROM %4$s WHERE %2$I::text = ANY (%3$L::text[]))
						UNION ALL (SELECT * FROM %4$s WHERE %2$I::text = ANY (%3$L::text[]) EXCEPT ALL TABLE loaded.%1$I)) d',
					   r.t, key, CASE WHEN r.t = 'tenants' THEN replace(r.keys, 'a', 'a ') ELSE r.keys END, src) INTO n;
		IF n > 0 THEN
			RAISE NOTICE 'table %: % rows differ', r.t, n;
		END IF;
	END LOOP;
END $$;
SQL

for fmt in insert copy; do
	run "shops-1-$fmt" shops '{1}' "$fmt"
	check "shops-1-$fmt" "$work/expect-shop1.sql" 2>&1
done

# one row per INSERT statement: a load in many statements, parents first
psql -X -q -d shapes_src -v ON_ERROR_STOP=1 -At >"$work/cfg1.json" <<'SQL'
SET search_path = shapes, public;
SELECT jsonb_agg(t || '{"bulk_insert_chunk_size": 1}') FROM jsonb_array_elements(exwiw_test_unmasked(exwiw_config_from_catalog()) -> 'tables') t;
SQL
run "shops-1-insert1" shops '{1}' insert "'$(cat "$work/cfg1.json")'"
check "shops-1-insert1" "$work/expect-shop1.sql" 2>&1

run "shops-2" shops '{2}' insert
run "shops-1,2-copy" shops '{1,2}' copy
run "orders-150" orders '{150}' insert
run "film_actors-1,1" film_actors '{{1,1}}' insert
run "tenants-ab" tenants '{ab}' copy

[ $fail -eq 0 ]
