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
# subset_make_databases ROOT
#     Fresh databases subset_src (exwiw and the fixture loaded) and
#     subset_dst, and the non-superuser role subset_loader.
# subset_fresh_dst SCHEMA_FILE
#     Replace schema shop of subset_dst by an empty, fully constrained copy
#     (SCHEMA_FILE, from pg_dump --schema-only) that subset_loader may load.

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

subset_make_databases() {
	local root=$1
	psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
SET client_min_messages = warning;
DROP DATABASE IF EXISTS subset_src;
DROP DATABASE IF EXISTS subset_dst;
DROP ROLE IF EXISTS subset_loader;
CREATE ROLE subset_loader LOGIN;
CREATE DATABASE subset_src;
CREATE DATABASE subset_dst;
SQL
	psql -X -q -v ON_ERROR_STOP=1 -d subset_src -c "CREATE EXTENSION exwiw" \
		-f "$root/test/subset/fixture.sql" >/dev/null
}

subset_fresh_dst() {
	psql -X -q -v ON_ERROR_STOP=1 -d subset_dst -c "SET client_min_messages = warning" \
		-c "DROP SCHEMA IF EXISTS shop CASCADE"
	psql -X -q -v ON_ERROR_STOP=1 -d subset_dst -f "$1" >/dev/null
	psql -X -q -v ON_ERROR_STOP=1 -d subset_dst <<'SQL'
GRANT USAGE ON SCHEMA shop TO subset_loader;
GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA shop TO subset_loader;
GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA shop TO subset_loader;
SQL
}
