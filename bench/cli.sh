#!/usr/bin/env bash
# bench/cli.sh: the exwiw client against the ways to write an export's
# directory without it, on the 1,000-shop dataset of bench/subset.sh.
#
#   bench/cli.sh                 (EXWIW_PORT picks the port; default 55340)
#   EXWIW_BENCH_RUNS=3           runs of each path (the best is kept)
#   EXWIW_BENCH_REUSE=1          reuse the cluster and data of a previous run
#
# Builds exwiw into a private copy of PostgreSQL, starts a throwaway
# cluster, loads bench/shops_1000.sql (1M orders, 2M order items, ...),
# writes the schema config with "exwiw schema generate", then exports one
# shop (500) and all 1,000 shops by every path, interleaved, each run
# timed with its client's peak memory (GNU time: wall seconds, max RSS):
#
#   psql alone              one stream of (file, chunk) rows into one file,
#                           the lower bound of any client: psql -XAt -0
#                           (it holds the whole result in memory)
#   psql, FETCH_COUNT=64    the same, in bounded memory
#   README shell loop       psql -0 | while read -d '' ...: the recipe that
#                           writes the directory (bash reads the pipe one
#                           byte per read() call); run once for all shops
#   exwiw -j 1              the client: the directory, fsynced, renamed
#                           (--insert-only: the files the loop writes)
#   exwiw -j 2              two connections on one exported snapshot
#   exwiw -j 2, by hand     the same with another deal, by hand
#                           (EXWIW_DEAL=2,3,4,7,8/1,5,6,9), for comparison
#
# The backends' CPU time is read from the server log (log_statement_stats)
# for the all-shops exports: -j 1's export, and each -j 2 worker's.  The
# largest worker's CPU against -j 1's is the speedup two idle cores would
# give, whatever else the machine runs meanwhile.
#
# It checks that the loop's, -j 1's and -j 2's directories are identical,
# and prints the ratios against the goals: exwiw -j 1 within 1.1x of psql
# alone, -j 2 at least 1.6x faster than -j 1 on all shops, the client
# under 32 MB.  The machine's load average is printed too: the figures
# mean little on a busy machine.
source "$(dirname "$0")/common.sh"
cd "$EXWIW_ROOT"

dir=/tmp/exwiw-cli-bench
port=${EXWIW_PORT:-55340}
runs=${EXWIW_BENCH_RUNS:-3}
GNU_TIME=/usr/bin/time

if [ "${EXWIW_BENCH_REUSE:-0}" = 1 ] && [ -d "$dir/data" ]; then
	bench_cluster_reuse "$dir" "$port"
	reuse=1
else
	rm -rf "$dir"
	mkdir -p "$dir"
	exwiw_setup
	exwiw_tmp_install "$dir/inst"
	exwiw_cluster_start "$dir" "$port" "shared_buffers = 1GB" "max_locks_per_transaction = 1024" \
		"work_mem = '64MB'" "jit = off"
	PATH=$EXWIW_BIN:$PATH
	reuse=0
fi
[ -x "$GNU_TIME" ] || { echo "GNU time is needed (apt-get install time)"; exit 1; }
export PGOPTIONS='-c search_path=shop,public -c client_min_messages=warning'

if [ $reuse -eq 0 ]; then
	exwiw_log "loading 1,000 shops, 1M orders"
	psql -X -q -c "CREATE EXTENSION exwiw"
	psql -X -q -v ON_ERROR_STOP=1 -f test/subset/fixture.sql >/dev/null
	psql -X -q -v ON_ERROR_STOP=1 -f bench/shops_1000.sql
	psql -X -q -c "CREATE INDEX ON shop.transactions (order_id)" -c "ANALYZE shop.transactions"
fi
out=$dir/out
rm -rf "$out"
mkdir -p "$out"
chmod 777 "$out"
rm -rf "$dir/schema"
exwiw schema generate --from-db --schema-dir="$dir/schema" >/dev/null
cfg=$(cd "$dir/schema" && first=1 && printf '[' && for f in $(ls *.json | LC_ALL=C sort); do
	[ $first -eq 1 ] || printf ','
	first=0
	cat "$f"
done && printf ']')
all_ids=$(psql -X -At -c "SELECT string_agg(id::text, ',' ORDER BY id) FROM shop.shops")

# the export query, on stdin (psql interpolates :'cfg' there)
query() {
	echo "SELECT (e).file_name, (e).chunk FROM (SELECT exwiw_export('shops', string_to_array('$1', ','), :'cfg', 'insert', true) AS e) s;"
}

declare -A best_s best_kb

psql_alone() {
	query "$1" | psql -X -A -t -q -0 --field-separator-zero -v ON_ERROR_STOP=1 -v cfg="$cfg" >"$out/psql.out"
}
psql_fetch() {
	query "$1" | psql -X -A -t -q -0 --field-separator-zero -v ON_ERROR_STOP=1 -v FETCH_COUNT=64 -v cfg="$cfg" >"$out/psql.out"
}
shell_loop() {
	rm -rf "$out/loop"
	mkdir -p "$out/loop"
	local name chunk
	while IFS= read -r -d '' name && IFS= read -r -d '' chunk; do
		printf '%s\n' "$chunk" >>"$out/loop/$name"
	done < <(query "$1" | psql -X -A -t -q -0 --field-separator-zero -v ON_ERROR_STOP=1 -v cfg="$cfg")
}
export -f query psql_alone psql_fetch shell_loop
export out cfg

cli() {
	local ids=$1 jobs=$2 deal=${3:-}
	EXWIW_DEAL=$deal PGOPTIONS="$PGOPTIONS -c log_statement_stats=on" \
		exwiw --target-table=shops --ids="$ids" --schema-dir="$dir/schema" --allow-undecided \
		-j "$jobs" -o "$out/j$jobs${deal:+d}" --force --quiet --insert-only
}
export -f cli

# backend_cpu FROM_LINE: the CPU seconds (user + system) of each export
# statement logged since that line of the server log, one per line
backend_cpu() {
	tail -n +"$1" "$dir/server.log" | grep -A2 'EXECUTE MESSAGE STATISTICS' |
		awk '/s user,/ { c = $2 + $5; if (c > 0.05) printf "%.2f\n", c }'
}
declare -A cpu_max cpu_sum
# measure_cli KEY IDS JOBS [DEAL]: measure, and keep the run's backend CPU
measure_cli() {
	local key=$1 from
	from=$(($(wc -l <"$dir/server.log") + 1))
	bench_measure "$key" bash -c "cli '$2' $3 '${4:-}'"
	local max sum
	max=$(backend_cpu "$from" | sort -g | tail -1)
	sum=$(backend_cpu "$from" | awk '{ s += $1 } END { printf "%.2f", s }')
	if [ -z "${cpu_max[$key]:-}" ] || [ "$(echo "$max < ${cpu_max[$key]}" | bc)" -eq 1 ]; then
		cpu_max[$key]=$max
		cpu_sum[$key]=$sum
	fi
}
export dir

load() { uptime | sed 's/.*load average/load average/'; }

exwiw_log "warming up (one export of all shops)"
cli "$all_ids" 1
echo "machine at start: $(nproc) CPUs, $(load)"

for scope in one all; do
	ids=500
	[ $scope = all ] && ids=$all_ids
	exwiw_log "exporting $([ $scope = one ] && echo 'one shop (500)' || echo 'all 1,000 shops'), $runs runs of each path"
	for r in $(seq 1 "$runs"); do
		bench_measure "$scope psql" bash -c "psql_alone '$ids'"
		bench_measure "$scope psql64" bash -c "psql_fetch '$ids'"
		measure_cli "$scope j1" "$ids" 1
		measure_cli "$scope j2" "$ids" 2
		measure_cli "$scope j2d" "$ids" 2 "2,3,4,7,8/1,5,6,9"
		if [ $scope = one ] || [ "$r" -eq 1 ]; then
			bench_measure "$scope loop" bash -c "shell_loop '$ids'"
		fi
	done
	bytes=$(du -sb "$out/j1" | cut -f1)
	if diff -r -x manifest.json "$out/loop" "$out/j1" >/dev/null && diff -r -x manifest.json "$out/j1" "$out/j2" >/dev/null &&
		diff -r -x manifest.json "$out/j1" "$out/j2d" >/dev/null; then
		echo "$scope: $(ls "$out/j1" | wc -l) files, $bytes bytes; the loop's, -j 1's and both -j 2's directories are identical"
	else
		echo "FAIL: $scope: the directories differ"
		exit 1
	fi
	eval "bytes_$scope=$bytes"
done
echo "machine at end: $(load)"

echo
printf '%-34s %12s %12s %14s %12s\n' "path" "one shop" "peak RSS" "all shops" "peak RSS"
row() {
	printf '%-34s %10s s %9s MB %12s s %9s MB\n' "$1" "${best_s[one $2]}" "$(mb "${best_kb[one $2]}")" \
		"${best_s[all $2]}" "$(mb "${best_kb[all $2]}")"
}
row "psql alone (one stream)" psql
row "psql alone, FETCH_COUNT=64" psql64
row "README shell loop (directory)" loop
row "exwiw -j 1 (directory)" j1
row "exwiw -j 2 (directory)" j2
row "exwiw -j 2, dealt by hand" j2d

r_one=$(echo "scale=3; ${best_s[one j1]} / ${best_s[one psql]}" | bc)
r_all=$(echo "scale=3; ${best_s[all j1]} / ${best_s[all psql]}" | bc)
r_all64=$(echo "scale=3; ${best_s[all j1]} / ${best_s[all psql64]}" | bc)
speedup=$(echo "scale=3; ${best_s[all j1]} / ${best_s[all j2]}" | bc)
loop_x=$(echo "scale=1; ${best_s[all loop]} / ${best_s[all j1]}" | bc)
max_kb=0
for k in "one j1" "one j2" "all j1" "all j2"; do
	[ "${best_kb[$k]}" -gt $max_kb ] && max_kb=${best_kb[$k]}
done
echo
echo "exwiw -j 1 / psql alone: one shop $r_one, all shops $r_all (goal <= 1.10); all shops vs FETCH_COUNT=64: $r_all64"
speedup_d=$(echo "scale=3; ${best_s[all j1]} / ${best_s[all j2d]}" | bc)
echo "exwiw -j 1 / -j 2, all shops: $speedup (goal >= 1.6); with the deal by hand: $speedup_d"
echo "backend CPU, all shops: -j 1 ${cpu_max[all j1]} s; -j 2 largest worker ${cpu_max[all j2]} s (both ${cpu_sum[all j2]} s);" \
	"by hand ${cpu_max[all j2d]} s (both ${cpu_sum[all j2d]} s)"
echo "  so on two idle cores -j 2 would be $(echo "scale=2; ${cpu_max[all j1]} / ${cpu_max[all j2]}" | bc)x faster" \
	"($(echo "scale=2; ${cpu_max[all j1]} / ${cpu_max[all j2d]}" | bc)x by hand)"
echo "the README shell loop / exwiw -j 1, all shops: $loop_x"
echo "exwiw's peak memory: $(mb $max_kb) MB (goal < 32 MB), for $bytes_all bytes"
status=0
[ "$(echo "$r_all <= 1.10" | bc)" -eq 1 ] || { echo "MISSED: -j 1 within 1.1x of psql alone"; status=1; }
[ "$(echo "$speedup >= 1.6" | bc)" -eq 1 ] || { echo "MISSED: -j 2 1.6x faster than -j 1"; status=1; }
[ "$max_kb" -lt 32768 ] || { echo "MISSED: client memory under 32 MB"; status=1; }
[ $status -eq 0 ] && echo PASS
exit $status
