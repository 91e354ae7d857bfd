#!/usr/bin/env bash
# test/lint/src_layers.sh: the layout src/exwiw.h maps holds.
#
#  1. Every .c and .h of src/ is in a subsystem directory the map names
#     (exwiw.c and exwiw.h alone at the top).
#  2. Includes go one way: a file of a subsystem includes only headers of
#     its own directory or of one below it in the map's order (sink/,
#     subset/, mask/, fake/, extjson/, dump/, common/); the *_funcs.c
#     entry points may include any.
#  3. The SQL-callable functions (PG_FUNCTION_INFO_V1) are only in the
#     *_funcs.c files.
#  4. Nothing in common/ includes a server-only header of ours (it builds
#     with FRONTEND), and only common/compat.h tests PG_VERSION_NUM.
#  5. The map in src/exwiw.h names every directory of src/.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
# the files are git's: without git, or outside a checkout, nothing would be
# checked
if ! command -v git >/dev/null; then
	echo "not ok: git is not installed (test/lib.sh's EXWIW_PACKAGES installs it)"
	exit 1
fi
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	echo "not ok: $root is not a git checkout: the files to check are git's"
	exit 1
fi
order=(sink subset mask fake extjson dump common)
fail=0
rank() {
	local i
	for i in "${!order[@]}"; do
		[ "${order[$i]}" = "$1" ] && { echo "$i"; return; }
	done
	echo -1
}
not_ok() {
	echo "not ok: $*"
	fail=1
}

# 1. directories
while read -r f; do
	case "$f" in
	src/exwiw.c | src/exwiw.h) ;;
	src/*/*/*) not_ok "$f is nested deeper than a subsystem directory" ;;
	src/*/*)
		d=${f#src/}
		d=${d%%/*}
		[ "$(rank "$d")" -ge 0 ] || not_ok "$f is in src/$d/, which the map does not name"
		;;
	*) not_ok "$f is at the top of src/ (only exwiw.c and exwiw.h are)" ;;
	esac
done < <(git ls-files 'src/*.c' 'src/*.h')
[ $fail -eq 0 ] && echo "ok: every file of src/ is in a subsystem directory of the map"

# 2. includes go down the map
before=$fail
fail=0
for d in "${order[@]}"; do
	r=$(rank "$d")
	for f in $(git ls-files "src/$d/*.c" "src/$d/*.h"); do
		case "$f" in *_funcs.c) continue ;; esac
		while read -r inc; do
			t=${inc%%/*}
			tr=$(rank "$t")
			# PostgreSQL's own common/ headers are not ours
			[ "$t" = common ] && [ ! -f "src/$inc" ] && continue
			[ "$tr" -lt 0 ] && continue
			[ "$tr" -lt "$r" ] && not_ok "$f includes $inc: $d/ may include only its own directory and those below it ($(printf '%s/ ' "${order[@]:$r}"))"
		done < <(sed -n 's/^#include "\([a-z_]*\/[a-z_]*\.h\)".*/\1/p' "$f")
	done
done
[ $fail -eq 0 ] && echo "ok: includes go one way, down the map (sink > subset > mask > fake > extjson > dump > common)"
fail=$((fail | before))

# 3. SQL-callable functions only in *_funcs.c
bad=$(git grep -l 'PG_FUNCTION_INFO_V1' -- 'src/*.c' | grep -v '_funcs\.c$' || true)
if [ -n "$bad" ]; then
	not_ok "SQL-callable functions outside the *_funcs.c files: $(echo $bad)"
else
	echo "ok: every SQL-callable function is in a *_funcs.c ($(git grep -c 'PG_FUNCTION_INFO_V1' -- 'src/*_funcs.c' | awk -F: '{n += $2} END {print n}') functions in $(git grep -l 'PG_FUNCTION_INFO_V1' -- 'src/*.c' | wc -l) files)"
fi

# 4. common/ builds with FRONTEND; one file tests the version
bad=$(git grep -l '#include "\(dump\|extjson\|subset\|sink\|mask\|fake\)/\|#include "exwiw.h"' -- 'src/common/' || true)
[ -z "$bad" ] && echo "ok: common/ includes none of the server-side subsystems" ||
	not_ok "common/ includes server-side headers: $(echo $bad)"
bad=$(git grep -l 'PG_VERSION_NUM' -- 'src/*.c' 'src/*.h' 'client/*.c' 'client/*.h' | grep -v '^src/common/compat\.h$' || true)
[ -z "$bad" ] && echo "ok: only src/common/compat.h tests PG_VERSION_NUM" ||
	not_ok "PG_VERSION_NUM outside compat.h: $(echo $bad)"

# 5. the map names every directory
for d in $(git ls-files 'src/*/*' | cut -d/ -f2 | sort -u); do
	grep -q "^ \*	$d/" src/exwiw.h || not_ok "src/exwiw.h's map does not name src/$d/"
done
[ $fail -eq 0 ] && echo "ok: src/exwiw.h's map names every directory"

[ $fail -eq 0 ] && echo "src_layers: all checks passed"
exit $fail
