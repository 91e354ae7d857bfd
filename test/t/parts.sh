#!/usr/bin/env bash
# test/t/parts.sh: the parts of a file (part => k, parts => n), read by
# several connections on one exported snapshot while other sessions change
# the data, concatenate to the whole file (issue 23).
#
#  1. One connection holds a REPEATABLE READ transaction and exports its
#     snapshot; another, on that snapshot, writes the whole output.  Then
#     the table changes (UPDATE, DELETE, INSERT, committed), and three
#     connections, each on the snapshot, read parts 1, 2 and 3 at the same
#     time: exwiw_dump (INSERT of 1,000 rows per statement, COPY),
#     exwiw_dump_jsonl and exwiw_export (every file of two shops) give
#     parts that concatenate to the whole, byte for byte.
#  2. The sinks: exwiw_dump_to_file and exwiw_dump_jsonl_to_file of each
#     part concatenate to the whole file (the SET line only in part 1);
#     exwiw_export_to_dir with part => k writes insert-NNN-<table>.partK.sql
#     files that concatenate to the whole directory's files.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/subset/lib.sh"
source "$root/test/cli/lib.sh"
cli_init parts
chmod 777 "$work"
mkdir -p "$work/srv"
chmod 777 "$work/srv"

psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
SET client_min_messages = warning;
DROP DATABASE IF EXISTS parts_src;
CREATE DATABASE parts_src;
SQL
export PGDATABASE=parts_src PGOPTIONS='-c search_path=shop,public -c client_min_messages=warning'
psql -X -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION exwiw" -f "$root/test/subset/fixture.sql" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
CREATE TABLE public.big (id int PRIMARY KEY, t text, n numeric, ts timestamptz);
INSERT INTO public.big SELECT g, md5(g::text) || E'\n' || repeat('x', g % 40), g / 7.0,
	timestamptz '2024-01-01 00:00:00+00' + g * interval '1 minute'
FROM generate_series(1, 30000) g;
SQL

# the snapshot holder: one psql session, driven through a coprocess
coproc SNAP { psql -X -q -At 2>&1; }
echo "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SELECT pg_export_snapshot();" >&"${SNAP[1]}"
IFS= read -r -t 120 snap <&"${SNAP[0]}" || { not_ok "no snapshot"; exit 1; }
[[ $snap =~ ^[0-9A-F-]+$ ]] || { not_ok "pg_export_snapshot: $snap"; exit 1; }

# on_snapshot SQL: run SQL (its output on stdout, psql -XAt) on the snapshot
on_snapshot() {
	psql -X -q -At -v ON_ERROR_STOP=1 <<SQL
BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;
SET TRANSACTION SNAPSHOT '$snap';
$1;
COMMIT;
SQL
}
# on_snapshot_export DIR SQL: an exwiw_export's files into DIR, on the snapshot
on_snapshot_export() {
	local dir=$1 sql=$2 name chunk
	mkdir -p "$dir"
	while IFS= read -r -d '' name && IFS= read -r -d '' chunk; do
		printf '%s\n' "$chunk" >>"$dir/$name"
	done < <(psql -X -A -t -q -0 --field-separator-zero -v ON_ERROR_STOP=1 <<SQL
BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;
SET TRANSACTION SNAPSHOT '$snap';
$sql;
COMMIT;
SQL
	)
}

calls=(
	"SELECT exwiw_dump('SELECT * FROM public.big ORDER BY id', 'big', 1000%s)"
	"SELECT exwiw_dump('SELECT * FROM public.big ORDER BY id', 'big', format => 'copy'%s)"
	"SELECT exwiw_dump_jsonl('SELECT * FROM public.big ORDER BY id'%s)"
)
export_sql="SELECT (e).file_name, (e).chunk FROM (SELECT exwiw_export('shops', '{1,2}', exwiw_config_from_catalog('shop'), allow_undecided => true%s) AS e) s"

# 1. the whole outputs, on the snapshot, before the changes
for i in "${!calls[@]}"; do
	# shellcheck disable=SC2059
	on_snapshot "$(printf "${calls[$i]}" "")" >"$work/whole_$i"
done
# shellcheck disable=SC2059
on_snapshot_export "$work/whole_export" "$(printf "$export_sql" "")"

# the data changes, committed, after the snapshot
psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
UPDATE public.big SET t = 'changed' WHERE id % 7 = 0;
DELETE FROM public.big WHERE id % 11 = 0;
INSERT INTO public.big SELECT g, 'new', 0, now() FROM generate_series(30001, 31000) g;
UPDATE shop.orders SET total = total + 1;
DELETE FROM shop.order_tags;
SQL

# three connections at once, on the snapshot, one part each
for i in "${!calls[@]}"; do
	pids=()
	for k in 1 2 3; do
		# shellcheck disable=SC2059
		on_snapshot "$(printf "${calls[$i]}" ", part => $k, parts => 3")" >"$work/part_${i}_$k" &
		pids+=($!)
	done
	wait "${pids[@]}"
	if cat "$work/part_${i}_1" "$work/part_${i}_2" "$work/part_${i}_3" | cmp -s - "$work/whole_$i" &&
		[ -s "$work/part_${i}_1" ] && [ -s "$work/part_${i}_3" ]; then
		ok "3 connections on one snapshot, parts concatenate to the whole ($(wc -c <"$work/whole_$i") bytes): ${calls[$i]/\%s/}"
	else
		not_ok "parts differ from the whole: ${calls[$i]/\%s/}"
	fi
done
pids=()
for k in 1 2 3; do
	# shellcheck disable=SC2059
	on_snapshot_export "$work/export_part$k" "$(printf "$export_sql" ", part => $k, parts => 3")" &
	pids+=($!)
done
wait "${pids[@]}"
bad=0
for f in "$work/whole_export"/*; do
	n=$(basename "$f")
	# a part of no row has no file
	for k in 1 2 3; do
		[ ! -f "$work/export_part$k/$n" ] || cat "$work/export_part$k/$n"
	done | cmp -s - "$f" || { bad=1; echo "    $n differs"; }
done
if [ $bad -eq 0 ] && [ "$(ls "$work/whole_export" | wc -l)" -gt 3 ]; then
	ok "exwiw_export, 3 parts from 3 connections on one snapshot: every one of $(ls "$work/whole_export" | wc -l) files is its parts concatenated"
else
	not_ok "exwiw_export: parts do not concatenate to the files"
fi

# 2. the sinks, on the snapshot
s=$work/srv
on_snapshot "SELECT exwiw_dump_to_file('$s/whole.sql', 'SELECT * FROM public.big ORDER BY id', 'big', 500)" >/dev/null
on_snapshot "SELECT exwiw_dump_jsonl_to_file('$s/whole.jsonl', 'SELECT * FROM public.big ORDER BY id')" >/dev/null
on_snapshot "SELECT count(*) FROM exwiw_export_to_dir('$s/whole_dir', 'shops', '{1,2}', exwiw_config_from_catalog('shop'), allow_undecided => true)" >/dev/null
for k in 1 2 3; do
	pids=()
	on_snapshot "SELECT exwiw_dump_to_file('$s/part$k.sql', 'SELECT * FROM public.big ORDER BY id', 'big', 500, part => $k, parts => 3)" >/dev/null &
	pids+=($!)
	on_snapshot "SELECT exwiw_dump_jsonl_to_file('$s/part$k.jsonl', 'SELECT * FROM public.big ORDER BY id', part => $k, parts => 3)" >/dev/null &
	pids+=($!)
	on_snapshot "SELECT count(*) FROM exwiw_export_to_dir('$s/dir$k', 'shops', '{1,2}', exwiw_config_from_catalog('shop'), allow_undecided => true, part => $k, parts => 3)" >/dev/null &
	pids+=($!)
	wait "${pids[@]}"
done
if cat "$s"/part{1,2,3}.sql | cmp -s - "$s/whole.sql" && [ "$(grep -c '^SET standard_conforming_strings' "$s"/part{1,2,3}.sql | paste -sd' ')" = "$s/part1.sql:1 $s/part2.sql:0 $s/part3.sql:0" ]; then
	ok "exwiw_dump_to_file: 3 part files concatenate to the whole file, the SET line in part 1 only"
else
	not_ok "exwiw_dump_to_file: the part files do not concatenate to the whole"
fi
if cat "$s"/part{1,2,3}.jsonl | cmp -s - "$s/whole.jsonl"; then
	ok "exwiw_dump_jsonl_to_file: 3 part files concatenate to the whole file"
else
	not_ok "exwiw_dump_jsonl_to_file: the part files do not concatenate to the whole"
fi
bad=0
for f in "$s/whole_dir"/*; do
	n=$(basename "$f")
	p=${n%.sql}
	for k in 1 2 3; do
		[ ! -f "$s/dir$k/$p.part$k.sql" ] || cat "$s/dir$k/$p.part$k.sql"
	done | cmp -s - "$f" || { bad=1; echo "    $n differs"; }
done
names=$(cd "$s/dir1" && ls | head -n 1)
if [ $bad -eq 0 ] && [[ $names =~ ^insert-[0-9]{3}-.*\.part1\.sql$ ]]; then
	ok "exwiw_export_to_dir part => k: insert-NNN-<table>.partK.sql files ($names, ...) that concatenate to the whole directory's"
else
	not_ok "exwiw_export_to_dir: part files ($names) do not concatenate to the whole"
fi

echo "COMMIT;" >&"${SNAP[1]}"
echo '\q' >&"${SNAP[1]}"
wait "$SNAP_PID" 2>/dev/null || true
exit $fail
