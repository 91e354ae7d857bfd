#!/usr/bin/env bash
# test/subset/lib.sh: shell helpers of the subset export scripts (sourced).
#
# subset_write_files DIR PSQL-ARGS... -c "SELECT file_name, chunk FROM exwiw_export(...)"
#     Run one export with psql and write every file into DIR (empty or
#     new), byte-exact:
#     a file is its chunks joined by "\n", plus a final "\n".  psql -XAt with
#     NUL separators gives name\0chunk\0name\0chunk\0...; a chunk is text, so
#     it holds no NUL.  The export is one statement, hence one snapshot.
# subset_load_files DIR PSQL-ARGS...
#     Run the files of DIR in name order with ON_ERROR_STOP.
# subset_make_databases ROOT [NAME FIXTURE]
#     Fresh databases NAME_src (exwiw and FIXTURE loaded) and NAME_dst, and
#     the non-superuser role NAME_loader; NAME defaults to subset, FIXTURE
#     to test/subset/fixture.sql.
# subset_fresh_dst SCHEMA_FILE [NAME SCHEMA]
#     Replace schema SCHEMA (default shop) of NAME_dst (default subset) by
#     an empty, fully constrained copy (SCHEMA_FILE, from pg_dump
#     --schema-only) that NAME_loader may load, and owns (unless
#     SUBSET_LOADER_OWNS=0: then it has only SELECT, INSERT and sequence
#     privileges).
# subset_log_settle LOG START PSQL-ARGS...
#     Print the server log LOG (a file that the server writes itself,
#     pg_ctl -l) from byte START on, once it holds everything that the
#     statements run before wrote: a session (psql PSQL-ARGS) logs a mark
#     of its own (RAISE LOG, that line only), which the server writes after
#     every line that the finished sessions wrote before they answered;
#     poll until LOG shows it, and print what comes before it.  The bound
#     (300 s) only catches a hang: then it says so and returns 1.

subset_write_files() {
	local dir=$1
	shift
	local name chunk
	mkdir -p "$dir"
	# joined by "\n" plus a final "\n": every chunk followed by "\n"
	while IFS= read -r -d '' name && IFS= read -r -d '' chunk; do
		printf '%s\n' "$chunk" >>"$dir/$name"
	done < <(psql -X -A -t -q -0 --field-separator-zero -v ON_ERROR_STOP=1 "$@")
	wait $! # psql's status
}

subset_load_files() {
	local dir=$1
	shift
	local f
	# names may hold spaces: read them NUL-separated, in name order
	while IFS= read -r -d '' f; do
		psql -X -q -v ON_ERROR_STOP=1 "$@" -f "$dir/$f" >/dev/null || {
			echo "load failed at $f" >&2
			return 1
		}
	done < <(cd "$dir" && find . -maxdepth 1 -type f -printf '%P\0' | LC_ALL=C sort -z)
}

subset_log_settle() {
	local log=$1 start=$2 mark deadline
	shift 2
	mark="subset_log_settle mark $$.$RANDOM$RANDOM"
	PGOPTIONS="-c log_min_messages=warning -c log_min_error_statement=panic -c log_statement=none" \
		psql -X -q -v ON_ERROR_STOP=1 "$@" -c "DO \$\$ BEGIN RAISE LOG '%', '$mark'; END \$\$" >/dev/null 2>&1 || {
		echo "subset_log_settle: psql could not log the mark" >&2
		return 1
	}
	deadline=$((SECONDS + 300))
	until tail -c +$((start + 1)) "$log" | grep -qF "$mark"; do
		if [ $SECONDS -ge $deadline ]; then
			echo "subset_log_settle: the mark is not in $log after 300 s" >&2
			return 1
		fi
		sleep 0.1
	done
	tail -c +$((start + 1)) "$log" | sed "/$mark/,\$d"
}

subset_make_databases() {
	local root=$1 name=${2:-subset} fixture=${3:-$1/test/subset/fixture.sql}
	psql -X -q -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
DROP DATABASE IF EXISTS ${name}_src;
DROP DATABASE IF EXISTS ${name}_dst;
DROP ROLE IF EXISTS ${name}_loader;
CREATE ROLE ${name}_loader LOGIN;
CREATE DATABASE ${name}_src;
CREATE DATABASE ${name}_dst;
SQL
	psql -X -q -v ON_ERROR_STOP=1 -d "${name}_src" -c "CREATE EXTENSION exwiw" \
		-f "$fixture" >/dev/null
}

subset_fresh_dst() {
	local file=$1 name=${2:-subset} schema=${3:-shop}
	psql -X -q -v ON_ERROR_STOP=1 -d "${name}_dst" -c "SET client_min_messages = warning" \
		-c "DROP SCHEMA IF EXISTS $schema CASCADE"
	psql -X -q -v ON_ERROR_STOP=1 -d "${name}_dst" -f "$file" >/dev/null
	psql -X -q -v ON_ERROR_STOP=1 -d "${name}_dst" <<SQL
GRANT USAGE ON SCHEMA $schema TO ${name}_loader;
GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA $schema TO ${name}_loader;
GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA $schema TO ${name}_loader;
SQL
	if [ "${SUBSET_LOADER_OWNS:-1}" = 1 ]; then
		subset_loader_owns "$name" "$schema"
	fi
}

# subset_loader_owns NAME SCHEMA: NAME_loader owns every table of SCHEMA in
# NAME_dst, as a developer owns the development database's tables: each
# file may then disable its table's user triggers during the load.
subset_loader_owns() {
	local name=$1 schema=$2
	psql -X -q -v ON_ERROR_STOP=1 -d "${name}_dst" <<SQL
DO \$\$ DECLARE r record; BEGIN
	FOR r IN SELECT c.oid::regclass AS t FROM pg_catalog.pg_class c
		WHERE c.relnamespace = '$schema'::regnamespace AND c.relkind IN ('r', 'p')
	LOOP
		EXECUTE format('ALTER TABLE %s OWNER TO %I', r.t, '${name}_loader');
	END LOOP;
END \$\$;
SQL
}

# subset_loader_may_skip_keys [NAME]: can NAME_loader (default subset) set
# session_replication_role to replica in NAME_dst, so that a load by it
# would skip the foreign-key checks?  (It must not: the loads check them.)
subset_loader_may_skip_keys() {
	local name=${1:-subset}
	psql -XAtq -U "${name}_loader" -d "${name}_dst" \
		-c "SELECT pg_catalog.set_config('session_replication_role', 'replica', false)" >/dev/null 2>&1
}
