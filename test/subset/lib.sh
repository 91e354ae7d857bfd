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
	for f in $(cd "$dir" && ls | sort); do
		psql -X -q -v ON_ERROR_STOP=1 "$@" -f "$dir/$f" || {
			echo "load failed at $f" >&2
			return 1
		}
	done
}
