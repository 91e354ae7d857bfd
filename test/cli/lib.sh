#!/usr/bin/env bash
# test/cli/lib.sh: shell helpers of the end-to-end scripts that run the
# exwiw client (test/t/*.sh, test/demo), sourced after test/subset/lib.sh.
# The client's own tests are TAP tests on t/ExwiwCli.pm, which has the same
# helpers in Perl.
#
# cli_init NAME           a scratch directory $work (/tmp/exwiw-cli-NAME.XXXXXX),
#                         removed at exit; PATH gets $EXWIW_BIN; $fail = 0
# cli_config_array DIR    the schema dir's files joined into one JSON array,
#                         in file-name order: the config exwiw sends
# cli_recipe DIR SQL ARGS...
#                         the README's SQL recipe: psql -XAtq -0 with NUL
#                         separators, SQL on stdin (so that :'cfg' works),
#                         and the read loop, writing an export into DIR;
#                         ARGS are more psql arguments
# ok / not_ok MESSAGE     report one check ($fail = 1 on not ok)
# expect_error LABEL PATTERN CMD...
#                         CMD must exit non-zero, say "exwiw: error: ..."
#                         matching PATTERN (grep -E) on stderr, print nothing
#                         on stdout, and leave $work as it was (no new entry,
#                         no temporary .exwiw-* directory)
# same_dirs A B           the two directories hold the same files, byte for byte

cli_init() {
	[ -n "${EXWIW_BIN:-}" ] && PATH=$EXWIW_BIN:$PATH
	export PGDATABASE=${PGDATABASE:-postgres}
	work=$(mktemp -d "/tmp/exwiw-cli-$1.XXXXXX")
	chmod 755 "$work"
	[ -n "${EXWIW_KEEP_WORK:-}" ] || trap 'rm -rf "$work"' EXIT
	fail=0
}

cli_config_array() {
	local dir=$1 first=1 f
	printf '['
	while IFS= read -r -d '' f; do
		[ $first -eq 1 ] || printf ','
		first=0
		cat "$dir/$f"
	done < <(cd "$dir" && find . -maxdepth 1 -name '*.json' -type f -printf '%P\0' | LC_ALL=C sort -z)
	printf ']'
}

cli_recipe() {
	local dir=$1 sql=$2 name chunk
	shift 2
	mkdir -p "$dir"
	while IFS= read -r -d '' name && IFS= read -r -d '' chunk; do
		printf '%s\n' "$chunk" >>"$dir/$name"
	done < <(psql -X -A -t -q -0 --field-separator-zero -v ON_ERROR_STOP=1 "$@" <<<"$sql")
}

ok() { echo "ok: $*"; }
not_ok() {
	echo "not ok: $*"
	fail=1
}

expect_error() {
	local label=$1 pattern=$2
	shift 2
	local before after rc=0
	before=$(cd "$work" && ls -A | { grep -v '^\.std' || true; } | LC_ALL=C sort)
	"$@" >"$work/.stdout" 2>"$work/.stderr" </dev/null || rc=$?
	after=$(cd "$work" && ls -A | { grep -v '^\.std' || true; } | LC_ALL=C sort)
	if [ $rc -eq 0 ]; then
		not_ok "$label: exit status 0"
	elif ! grep -qE "^exwiw: error: .*($pattern)" "$work/.stderr"; then
		not_ok "$label: stderr does not match /$pattern/:"
		sed 's/^/    /' "$work/.stderr"
	elif [ -s "$work/.stdout" ]; then
		not_ok "$label: printed on stdout"
	elif [ "$before" != "$after" ]; then
		not_ok "$label: left something behind: $(comm -13 <(echo "$before") <(echo "$after") | tr '\n' ' ')"
	else
		ok "$label (exit $rc): $(grep -m1 '^exwiw: error:' "$work/.stderr" | cut -c1-110)"
	fi
	rm -f "$work/.stdout" "$work/.stderr"
	return 0
}

# (manifest.json, when and from which snapshot, is never the same twice)
same_dirs() {
	diff -r -x manifest.json "$1" "$2" >/dev/null
}
