#!/usr/bin/env bash
# bench/parallel.sh: one large table into many files, one connection against
# two connections on one exported snapshot, with 100 COPY runs as the limit
# (issue 23).
#
#   bench/parallel.sh [ROWS [FILES]]     default 1,000,000 rows, 100 files
#
# ROWS rows x 8 mixed columns (bench/common.sh), into FILES files of
# ROWS / FILES rows each, in JSON Lines and in SQL (INSERTs of 10,000 rows),
# with one command: exwiw dump --table --rows-per-file (key ranges of the
# primary key, the boundaries from one row_number() pass on the snapshot,
# counted in the time), -j 1 and -j 2; against the same key ranges as
# COPY (query) TO STDOUT runs, one psql session and two on one exported
# snapshot: the limit (the server's own text output, no framing)
# and one whole file against its two parts (part => k, parts => 2) read by
# two sessions on one snapshot; exwiw dump of the table as one file, -j 1
# against -j 2 (the client reads its two parts and joins them).  Then the
# 1,000-shop tenant export (bench/cli.sh's data: every shop) with the
# client, -j 1 against -j 2 (large files dealt as parts where the model
# says so; and without parts, EXWIW_PARTS=off), with the client's peak
# memory (GNU time's maximum RSS).  Best
# of EXWIW_BENCH_RUNS (default 2), alternating; prints the machine's load
# (uptime) before and after, the busy CPU of every run (/proc/stat), and
# what a second process gains on this machine for each kind of work the
# dump does (bench/scaling.c, compiled and run here).  EXWIW_BENCH_TENANT=0
# skips the tenant part.
source "$(dirname "$0")/common.sh"
rows=${1:-1000000}
files=${2:-100}
runs=${EXWIW_BENCH_RUNS:-2}
bench_cluster
PATH=$EXWIW_BIN:$PATH
export PGDATABASE=${PGDATABASE:-postgres}
out=$BENCH_OUT
bench_fill_mixed "$rows" bench_par

# the key ranges: FILES ranges of ROWS / FILES rows
bounds() {
	psql -XAt -F ' ' -c "SELECT min(id), max(id) FROM (SELECT id, (row_number() OVER (ORDER BY id) - 1) * $files / $rows AS f FROM bench_par) s GROUP BY f ORDER BY f"
}

# script FORMAT SHARE OF: the psql script that writes every OF-th file from
# SHARE (0-based) into $out/FORMAT/
script() {
	local fmt=$1 share=$2 of=$3 i=0 lo hi q
	while read -r lo hi; do
		if [ $((i % of)) -eq "$share" ]; then
			q="SELECT * FROM bench_par WHERE id BETWEEN $lo AND $hi ORDER BY id"
			case $fmt in
				jsonl) echo "SELECT exwiw_dump_jsonl('$q') \\g $out/$fmt/insert-$i-bench_par.jsonl" ;;
				sql) echo "SELECT exwiw_dump('$q', 'bench_par', 10000) \\g $out/$fmt/insert-$i-bench_par.sql" ;;
				copy) echo "COPY ($q) TO STDOUT \\g $out/$fmt/copy-$i.txt" ;;
			esac
		fi
		i=$((i + 1))
	done < <(bounds)
}

# on_snapshot SNAP: psql reading a script on stdin in a transaction on SNAP
on_snapshot() {
	{
		echo "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;"
		echo "SET TRANSACTION SNAPSHOT '$1';"
		cat
		echo "COMMIT;"
	} | psql -XAtq -v ON_ERROR_STOP=1 -v FETCH_COUNT=16 >/dev/null
}

# with_snapshot CONNS CMD: export a snapshot from a holder session (a
# coprocess), run CMD SNAP CONNS, end the holder
with_snapshot() {
	local conns=$1 snap
	shift
	coproc HOLD { psql -XAtq; }
	echo "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SELECT pg_export_snapshot();" >&"${HOLD[1]}"
	IFS= read -r snap <&"${HOLD[0]}"
	"$@" "$snap" "$conns"
	echo "COMMIT;" >&"${HOLD[1]}"
	echo '\q' >&"${HOLD[1]}"
	wait "$HOLD_PID" 2>/dev/null || true
}

# one_run FORMAT JOBS: exwiw dump of the whole table into one file
one_run() {
	rm -rf "${out:?}/o_$1_$2"
	exwiw dump --table=bench_par --format="$1" -j "$2" -q -o "$out/o_$1_$2"
}

# dump_run FORMAT JOBS: exwiw dump of the whole table into FILES files
dump_run() {
	rm -rf "${out:?}/d_$1"
	exwiw dump --table=bench_par --format="$1" --rows-per-file=$((rows / files)) -j "$2" -q -o "$out/d_$1"
}

# files_run FORMAT SNAP CONNS: every file, dealt to CONNS sessions
files_run() {
	local fmt=$1 snap=$2 conns=$3 k pids=()
	rm -rf "${out:?}/$fmt"
	mkdir -p "$out/$fmt"
	for ((k = 0; k < conns; k++)); do
		script "$fmt" "$k" "$conns" | on_snapshot "$snap" &
		pids+=($!)
	done
	wait "${pids[@]}"
}

# parts_run FORMAT SNAP CONNS: one whole file as CONNS parts, one per session
parts_run() {
	local fmt=$1 snap=$2 conns=$3 k pids=() call
	rm -rf "${out:?}/p_$fmt"
	mkdir -p "$out/p_$fmt"
	for ((k = 1; k <= conns; k++)); do
		if [ "$fmt" = jsonl ]; then
			call="exwiw_dump_jsonl('SELECT * FROM bench_par ORDER BY id', part => $k, parts => $conns)"
		else
			call="exwiw_dump('SELECT * FROM bench_par ORDER BY id', 'bench_par', 10000, part => $k, parts => $conns)"
		fi
		echo "SELECT $call \\g $out/p_$fmt/part$k" | on_snapshot "$snap" &
		pids+=($!)
	done
	wait "${pids[@]}"
}

# busy_ticks: the machine's busy CPU time so far, in clock ticks (user,
# nice, system, irq and softirq of every CPU, from /proc/stat)
busy_ticks() {
	awk '/^cpu / { print $2 + $3 + $4 + $7 + $8; exit }' /proc/stat
}

# timed NAME CMD...: wall seconds of CMD into best[NAME] (the best run),
# and the CPU seconds the whole machine was busy during that run into
# cpu[NAME]: every process of the run (backends, client, psql) and the
# kernel's work for them, which an idle machine adds little to
declare -A best cpu
hz=$(getconf CLK_TCK)
timed() {
	local name=$1 t0 t1 s c0 c1 c
	shift
	# the previous run's files written back before, not counted in this run
	sync
	c0=$(busy_ticks)
	t0=$(date +%s%N)
	"$@"
	t1=$(date +%s%N)
	c1=$(busy_ticks)
	s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
	c=$(awk -v a="$c0" -v b="$c1" -v hz="$hz" 'BEGIN { printf "%.2f", (b - a) / hz }')
	if [ -z "${best[$name]:-}" ] || awk -v x="$s" -v y="${best[$name]}" 'BEGIN { exit !(x < y) }'; then
		best[$name]=$s
		cpu[$name]=$c
	fi
	echo "# run: $name $s s, $c CPU s" >&2
}

echo "# load before: $(uptime)"
for ((r = 0; r < runs; r++)); do
	for fmt in jsonl sql; do
		timed "$fmt 1" dump_run "$fmt" 1
		timed "$fmt 2" dump_run "$fmt" 2
	done
	timed "copy 1" with_snapshot 1 files_run copy
	timed "copy 2" with_snapshot 2 files_run copy
	for fmt in jsonl sql; do
		timed "$fmt whole 1" with_snapshot 1 parts_run "$fmt"
		timed "$fmt whole 2" with_snapshot 2 parts_run "$fmt"
		timed "$fmt one file 1" one_run "$fmt" 1
		timed "$fmt one file 2" one_run "$fmt" 2
	done
done
echo "# load after: $(uptime)"

# the parts concatenate to the whole
for fmt in jsonl sql; do
	with_snapshot 2 parts_run "$fmt"
	cat "$out/p_$fmt/part1" "$out/p_$fmt/part2" >"$out/joined_$fmt"
	with_snapshot 1 parts_run "$fmt"
	cmp -s "$out/joined_$fmt" "$out/p_$fmt/part1" && echo "# $fmt: 2 parts = the whole file, byte for byte" ||
		echo "# $fmt: PARTS DIFFER FROM THE WHOLE"
done

[ "$(ls "$out/d_jsonl" | wc -l)" -eq "$files" ] && [ "$(ls "$out/d_sql" | wc -l)" -eq "$files" ] &&
	echo "# exwiw dump wrote $files JSON Lines files and $files SQL files"
printf '\n%d rows, %d files of %d rows, best of %d\n\n' "$rows" "$files" $((rows / files)) "$runs"
printf '| %s | %s | %s | %s |\n| --- | ---: | ---: | ---: |\n' "path" "1 connection" "2 connections" "speed-up"
for fmt in jsonl sql; do
	cmp -s "$out/o_${fmt}_1/insert-001-bench_par.$([ $fmt = jsonl ] && echo jsonl || echo sql)" \
		"$out/o_${fmt}_2/insert-001-bench_par.$([ $fmt = jsonl ] && echo jsonl || echo sql)" &&
		echo "# exwiw dump --format=$fmt, one file: -j 2 (two parts, joined) = -j 1, byte for byte" ||
		echo "# exwiw dump --format=$fmt, one file: -J 2 DIFFERS FROM -j 1"
done
for p in "jsonl" "sql" "copy" "jsonl whole" "sql whole" "jsonl one file" "sql one file"; do
	# jsonl, sql: exwiw dump -j 1 / -j 2; copy: COPY runs; whole: one file, 1 or 2 parts
	a=${best["$p 1"]} b=${best["$p 2"]}
	printf '| %s | %s s | %s s | %s× |\n' "$p" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }')"
done
# The ceiling of a second connection: a run keeps the machine busy for
# cpu CPU seconds, so that on C cores it takes at least cpu / C; with one
# connection the client's work already runs beside its backend, and that
# share of the two cores is not left for -j 2 to gain.
cores=$(nproc)
[ "$cores" -gt 2 ] && cores=2
# The 2-connection run's own busy CPU gives a second ceiling: it needed
# that much, so on C cores it cannot take less than CPU / C, however well
# its work were spread; its CPU / wall, in cores, says how far it was from
# that (near C: bound by the CPU; below: something waited, a serial step
# or one connection done before the other).
printf '\n| path | busy CPU, 1 connection | wall / busy CPU | ceiling: wall of 1 / (its CPU / %d) | busy CPU, 2 connections | ceiling: wall of 1 / (CPU of 2 / %d) | measured |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n' "$cores" "$cores"
for p in jsonl sql copy; do
	a=${best["$p 1"]} c=${cpu["$p 1"]} b=${best["$p 2"]} d=${cpu["$p 2"]}
	printf '| %s | %s s | %s cores | %s× | %s s, %s cores | %s× | %s× |\n' "$p" "$c" \
		"$(awk -v a="$a" -v c="$c" 'BEGIN { printf "%.2f", c / a }')" \
		"$(awk -v a="$a" -v c="$c" -v n="$cores" 'BEGIN { printf "%.2f", a / (c / n) }')" \
		"$d" "$(awk -v b="$b" -v d="$d" 'BEGIN { printf "%.2f", d / b }')" \
		"$(awk -v a="$a" -v d="$d" -v n="$cores" 'BEGIN { printf "%.2f", a / (d / n) }')" \
		"$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }')"
done
# The machine's own gain from a second process for each kind of work the
# dump does (bench/scaling.c: nothing of exwiw or PostgreSQL in it).
cc -O2 -o "$BENCH_WORK/scaling" "$(dirname "$0")/scaling.c"
echo
echo "# the machine: what a second process gains (bench/scaling.c)"
TMPDIR=$out "$BENCH_WORK/scaling" 256
echo
for n in 1 2; do
	printf '| JSON Lines / COPY, %d connection(s) | %s× | SQL / COPY | %s× |\n' "$n" \
		"$(awk -v a="${best["jsonl $n"]}" -v b="${best["copy $n"]}" 'BEGIN { printf "%.2f", a / b }')" \
		"$(awk -v a="${best["sql $n"]}" -v b="${best["copy $n"]}" 'BEGIN { printf "%.2f", a / b }')"
done

[ "${EXWIW_BENCH_TENANT:-1}" = 1 ] || exit 0
# the 1,000-shop tenant export, every shop, with the client
echo "# loading 1,000 shops (test/subset/fixture.sql, bench/shops_1000.sql)"
root=$(cd "$(dirname "$0")/.." && pwd)
psql -X -q -v ON_ERROR_STOP=1 -f "$root/test/subset/fixture.sql" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -f "$root/bench/shops_1000.sql" >/dev/null
psql -X -q -c "CREATE INDEX ON shop.transactions (order_id)" -c "ANALYZE shop.transactions"
export PGOPTIONS='-c search_path=shop,public -c client_min_messages=warning'
rm -rf "$out/schema"
exwiw schema generate --from-db --schema-dir="$out/schema" >/dev/null
all_ids=$(psql -X -At -c "SELECT string_agg(id::text, ',' ORDER BY id) FROM shop.shops")
declare -A rss
# tenant JOBS: the export, timed, with the client's peak RSS (kB)
tenant() {
	/usr/bin/time -f '%M' -o "$out/rss.txt" \
		exwiw --target-table=shops --ids="$all_ids" --schema-dir="$out/schema" --allow-undecided \
		-j "$1" -o "$out/t$1" --force --quiet
	local kb
	kb=$(cat "$out/rss.txt")
	if [ -z "${rss[$1]:-}" ] || [ "$kb" -gt "${rss[$1]}" ]; then
		rss[$1]=$kb
	fi
}
tenant 1 # warm-up
echo "# tenant load before: $(uptime)"
for ((r = 0; r < runs; r++)); do
	timed "tenant 1" tenant 1
	timed "tenant 2" tenant 2
	EXWIW_PARTS=off timed "tenant 2, whole files" tenant 2
done
echo "# tenant load after: $(uptime)"
exwiw --target-table=shops --ids="$all_ids" --schema-dir="$out/schema" --allow-undecided \
	-j 2 -o "$out/t2" --force --quiet --log-level=debug 2>&1 | grep -E 'split into|joined|dealt' | sed 's/^/# /'
diff -r -x manifest.json "$out/t1" "$out/t2" >/dev/null && echo "# tenant: -j 2 = -j 1, byte for byte" || echo "# tenant: -j 2 DIFFERS FROM -j 1"
printf '\n| 1,000-shop tenant export | -j 1 | -j 2 | speed-up | client max RSS -j 1 / -j 2 |\n| --- | ---: | ---: | ---: | ---: |\n'
printf '| every shop, -j 2 without parts (EXWIW_PARTS=off) | | %s s | %s× | |\n' "${best["tenant 2, whole files"]}" \
	"$(awk -v a="${best["tenant 1"]}" -v b="${best["tenant 2, whole files"]}" 'BEGIN { printf "%.2f", a / b }')"
printf '| every shop | %s s | %s s | %s× | %.1f MB / %.1f MB |\n' "${best["tenant 1"]}" "${best["tenant 2"]}" \
	"$(awk -v a="${best["tenant 1"]}" -v b="${best["tenant 2"]}" 'BEGIN { printf "%.2f", a / b }')" \
	"$(awk -v k="${rss[1]}" 'BEGIN { print k / 1024 }')" "$(awk -v k="${rss[2]}" 'BEGIN { print k / 1024 }')"
