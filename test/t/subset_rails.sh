#!/usr/bin/env bash
# test/t/subset_rails.sh: account 1 of the Rails-shaped schema
# (test/subset/rails.sql), exported with the Ruby client's schema directory
# (test/subset/rails_schema/*.json) in scope-column mode and, without any
# scope_column, in single-target mode, in both formats.  The files load, in
# file order, as a role that is not a superuser, into an empty copy of the
# schema with every constraint enforced; every loaded table then equals,
# EXCEPT both ways, the rows written here by hand, with the masks applied
# (email from its template, full_name from exwiw_fake).  After the load the
# sequences are past the loaded ids: the loader inserts a row with every
# default.
#
# The exwiw command, given the same schema directory, writes the same
# files byte for byte: with --target-table in both modes and formats, with
# --ids alone (scope-column mode, no target), and with the ids in a named
# ID space (every scope_column given "id_space": "acct", --ids=acct=1),
# and with the deprecated --scope-column=account_id in place of the
# tables' own "scope_column": "account_id".
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/subset/lib.sh"
source "$root/test/cli/lib.sh"
[ -n "${EXWIW_BIN:-}" ] && PATH=$EXWIW_BIN:$PATH
export PGDATABASE=postgres
work=$(mktemp -d /tmp/subset-rails.XXXXXX)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT

subset_make_databases "$root" rails "$root/test/subset/rails.sql"
pg_dump --schema-only -n rails -d rails_src >"$work/schema.sql"

# The schema directory as it is (scope), without any scope_column (walk),
# with an id_space on every scope_column (space), and without the
# account_id ones (flag, for --scope-column); exwiw_export takes a
# directory as one JSON array (cli_config_array)
mkdir "$work/dir-scope" "$work/dir-walk" "$work/dir-space" "$work/dir-flag"
cp "$root"/test/subset/rails_schema/*.json "$work/dir-scope/"
for f in "$root"/test/subset/rails_schema/*.json; do
	grep -v '"scope_column"' "$f" >"$work/dir-walk/$(basename "$f")"
	sed 's/^\(  "scope_column": "[a-z_]*",\)$/\1 "id_space": "acct",/' "$f" >"$work/dir-space/$(basename "$f")"
	grep -v '"scope_column": "account_id"' "$f" >"$work/dir-flag/$(basename "$f")"
done
cli_config_array "$work/dir-scope" >"$work/scope.json"
cli_config_array "$work/dir-walk" >"$work/walk.json"
if ! grep -q '"id_space": "acct"' "$work/dir-space/users.json"; then
	echo "not ok: the id_space copy of the schema directory was not made"
	exit 1
fi

# cli_same LABEL DIR ARGS...: the exwiw command with ARGS writes exactly the
# files of DIR.
cli_same() {
	local label=$1 want=$2
	shift 2
	rm -rf "$work/cli"
	if ! PGDATABASE=rails_src PGOPTIONS='-c search_path=rails,public' \
		exwiw -o "$work/cli" --quiet --insert-only "$@" >"$work/cli.log" 2>&1; then
		echo "not ok: $label: the exwiw command failed:"
		cat "$work/cli.log"
		fail=1
	elif ! diff -r -x manifest.json "$want" "$work/cli" >"$work/cli.diff"; then
		echo "not ok: $label: the exwiw command wrote other files than exwiw_export:"
		head -n 20 "$work/cli.diff"
		fail=1
	else
		echo "ok: $label: the exwiw command writes the same $(ls "$want" | wc -l) files, byte for byte"
	fi
}

fresh_dst() { subset_fresh_dst "$work/schema.sql" rails rails; }

# The rows of account 1, written by hand, masks applied.  Each output line
# is a difference; none is expected.
cat >"$work/expect.sql" <<'SQL'
\set QUIET on
SET search_path = rails, public;
CREATE TEMP TABLE want (t text, ids bigint[]);
INSERT INTO want VALUES
	('accounts', '{1}'), ('users', '{1,2}'), ('tags', '{1,2}'), ('posts', '{1,2}'),
	('photos', '{1}'), ('comments', '{1,2}'), ('active_storage_attachments', '{1,3}'),
	('active_storage_blobs', '{1,3}');
SELECT 'table without expectation: ' || c.relname FROM pg_class c
WHERE c.relnamespace = 'rails'::regnamespace AND c.relkind = 'r'
  AND c.relname NOT IN (SELECT t FROM want)
  AND c.relname NOT IN ('schema_migrations', 'ar_internal_metadata');
CREATE TEMP VIEW src_users AS
	SELECT id, account_id, 'user' || id || '@example.com' AS email,
		   CASE WHEN full_name IS NOT NULL THEN exwiw_fake('name', NULL, id::text) END AS full_name,
		   created_at
	FROM rails.users;
DO $$
DECLARE
	r record;
	src text;
	n bigint;
BEGIN
	FOR r IN SELECT t, ids FROM want LOOP
		src := CASE r.t WHEN 'users' THEN 'pg_temp.src_users' ELSE format('rails.%I', r.t) END;
		EXECUTE format('SELECT count(*) FROM ((TABLE loaded.%1$I EXCEPT ALL SELECT * FROM %2$s WHERE id = ANY (%3$L))
						UNION ALL (SELECT * FROM %2$s WHERE id = ANY (%3$L) EXCEPT ALL TABLE loaded.%1$I)) d',
					   r.t, src, r.ids) INTO n;
		IF n > 0 THEN
			RAISE NOTICE 'table %: % rows differ', r.t, n;
		END IF;
	END LOOP;
	-- in full; ar_internal_metadata says development (exwiw.rails_env)
	FOR r IN SELECT * FROM (VALUES ('schema_migrations', 'TABLE rails.schema_migrations'),
		('ar_internal_metadata', $q$SELECT key, CASE WHEN key = 'environment' THEN 'development' ELSE value END,
			created_at, updated_at FROM rails.ar_internal_metadata$q$)) v(t, src) LOOP
		EXECUTE format('SELECT count(*) FROM ((TABLE loaded.%1$I EXCEPT ALL %2$s)
						UNION ALL (%2$s EXCEPT ALL TABLE loaded.%1$I)) d', r.t, r.src) INTO n;
		IF n > 0 THEN
			RAISE NOTICE 'table %: % rows differ', r.t, n;
		END IF;
	END LOOP;
END $$;
SQL

compare_loaded() {
	pg_dump --data-only -n rails -d rails_dst 2>/dev/null | sed -e 's/^COPY rails\./COPY loaded./' \
		-e '/^SELECT pg_catalog.setval/d' >"$work/loaded.sql"
	psql -X -q -v ON_ERROR_STOP=1 -d rails_src >/dev/null <<'SQL'
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS loaded CASCADE;
CREATE SCHEMA loaded;
DO $$ DECLARE r record; BEGIN
	FOR r IN SELECT c.relname FROM pg_class c
			 WHERE c.relnamespace = 'rails'::regnamespace AND c.relkind = 'r'
	LOOP
		EXECUTE format('CREATE TABLE loaded.%I (LIKE rails.%I)', r.relname, r.relname);
	END LOOP;
END $$;
SQL
	psql -X -q -v ON_ERROR_STOP=1 -d rails_src -f "$work/loaded.sql" >/dev/null
	psql -X -At -v ON_ERROR_STOP=1 -d rails_src -f "$work/expect.sql"
}

fail=0
# --scope-column scopes the tables that have the column as their own
# scope_column would: the same plan as the schema directory that declares
# it, another plan without the flag (the files happen to be the same)
explain() {
	PGDATABASE=rails_src PGOPTIONS='-c search_path=rails,public -c client_min_messages=warning' \
		exwiw explain --ids=1 "$@" 2>/dev/null
}
if [ "$(explain --schema-dir="$work/dir-flag" --scope-column=account_id)" = "$(explain --schema-dir="$work/dir-scope")" ] &&
	[ "$(explain --schema-dir="$work/dir-flag")" != "$(explain --schema-dir="$work/dir-scope")" ] &&
	[ -n "$(explain --schema-dir="$work/dir-scope")" ]; then
	echo "ok: --scope-column=account_id plans as the tables' own scope_column: account_id"
else
	echo "not ok: --scope-column=account_id does not plan as the declared scope_column"
	fail=1
fi
for mode in scope walk; do
	for fmt in insert copy; do
		label="$mode-$fmt"
		dir=$work/out-$label
		fresh_dst
		cat >"$work/export.sql" <<SQL
SET search_path = rails, public;
SET client_min_messages = warning;
SELECT (e).file_name, (e).chunk FROM (SELECT exwiw_export('accounts', '{1}', :'cfg', '$fmt') AS e) s;
SQL
		subset_write_files "$dir" -d rails_src -v cfg="$(cat "$work/$mode.json")" -f "$work/export.sql"
		if ! subset_load_files "$dir" -d rails_dst -U rails_loader \
			-c "SET search_path = rails" -c "SET client_min_messages = error" 2>"$work/load.err"; then
			echo "not ok: $label: the files do not load with every constraint enforced"
			cat "$work/load.err"
			fail=1
			continue
		fi
		echo "ok: $label: $(ls "$dir" | wc -l) files load as a non-superuser with every constraint enforced"
		cli_same "$label: exwiw --target-table" "$dir" --schema-dir="$work/dir-$mode" \
			--target-table=accounts --ids=1 --output-format=$fmt -j 2
		if [ $mode = scope ]; then
			cli_same "$label: exwiw --ids without a target" "$dir" --schema-dir="$work/dir-scope" \
				--ids=1 --output-format=$fmt
			cli_same "$label: exwiw --ids=acct=1 (a named ID space)" "$dir" --schema-dir="$work/dir-space" \
				--ids=acct=1 --output-format=$fmt
			cli_same "$label: exwiw --scope-column=account_id (deprecated), no per-table account_id" "$dir" \
				--schema-dir="$work/dir-flag" --scope-column=account_id --ids=1 --output-format=$fmt
		fi
		out=$(compare_loaded 2>&1)
		if [ -n "$out" ]; then
			echo "not ok: $label: loaded rows differ from the expected rows:"
			echo "$out"
			fail=1
		else
			echo "ok: $label: every loaded table equals the expected rows, masks applied (EXCEPT both ways)"
		fi
		# the sequences are past the loaded ids
		if ! psql -X -q -v ON_ERROR_STOP=1 -d rails_dst -U rails_loader >/dev/null 2>"$work/seq.err" <<'SQL'
SET search_path = rails;
INSERT INTO accounts (name) VALUES ('new');
INSERT INTO users (account_id, email, created_at) VALUES (1, 'new@example.com', now());
INSERT INTO tags (label) VALUES ('new');
INSERT INTO posts (account_id, user_id, title) VALUES (1, 1, 'new');
INSERT INTO comments (commentable_type, commentable_id, user_id, body) VALUES ('Post', 1, 1, 'new');
INSERT INTO active_storage_blobs (key, filename, byte_size) VALUES ('new', 'new', 1);
SQL
		then
			echo "not ok: $label: a row with default ids collides after the load"
			cat "$work/seq.err"
			fail=1
		else
			echo "ok: $label: the sequences are past the loaded ids"
		fi
	done
done
[ $fail -eq 0 ]
