#!/usr/bin/env bash
# bench/dump.sh: exwiw_dump against COPY, pg_dump --inserts and the Ruby
# client's path, in one run, on a table of N rows x 8 mixed-type columns.
#
#   bench/dump.sh            # N = 1,000,000, best of 3 interleaved runs
#   bench/dump.sh 100000 1   # quick check
#
# Every path writes a file through a client, as a user would.  Prints wall
# time, backend peak memory, and the ratios the project tracks.
source "$(dirname "$0")/common.sh"
rows=${1:-1000000}
runs=${2:-3}
bench_cluster
out=$BENCH_OUT

exwiw_log "filling bench_mixed with $rows rows"
bench_fill_mixed "$rows" bench_mixed
q="SELECT * FROM bench_mixed"

# Runs are interleaved (every path once, then again) so that a noisy
# neighbour slows all paths alike; each path's best time is reported.
best() { sort -n | head -n 1; }
declare -A times anon hwm samples
cases=(copy exwiw exwiw_copy pg_dump ruby)
case_cmd() {
	case $1 in
	copy) echo "psql -X -c \"COPY ($q) TO STDOUT\" > $out/copy.txt" ;;
	exwiw) echo "psql -XAt -c \"SELECT exwiw_dump('$q', 'bench_mixed')\" > $out/exwiw.sql" ;;
	exwiw_copy) echo "psql -XAt -c \"SELECT exwiw_dump('$q', 'bench_mixed', format => 'copy')\" > $out/exwiw_copy.sql" ;;
	pg_dump) echo "pg_dump --data-only --inserts --rows-per-insert=1000 -t bench_mixed > $out/pg_dump.sql" ;;
	ruby) echo "ruby $(dirname "$0")/client_style.rb '$q' bench_mixed $out/ruby.sql" ;;
	esac
}
for k in "${cases[@]}"; do anon[$k]=0; hwm[$k]=0; samples[$k]=""; done
for i in $(seq 1 "$runs"); do
	for k in "${cases[@]}"; do
		bench_run "$k (run $i)" bash -c "$(case_cmd "$k")" >&2
		samples[$k]+="$BENCH_SECONDS "
		[ "$BENCH_ANON_KB" -gt "${anon[$k]}" ] && anon[$k]=$BENCH_ANON_KB
		[ "$BENCH_HWM_KB" -gt "${hwm[$k]}" ] && hwm[$k]=$BENCH_HWM_KB
	done
done
for k in "${cases[@]}"; do times[$k]=$(printf '%s\n' ${samples[$k]} | best); done

# The client's path and exwiw_dump must produce the same bytes.
if cmp -s "$out/exwiw.sql" "$out/ruby.sql"; then same=yes; else same=NO; fi

echo
echo "exwiw bench/dump.sh: $rows rows x 8 columns, best of $runs interleaved runs ($(date -u +%Y-%m-%d), $(nproc) cores)"
printf '%-40s %9s %10s %14s %12s\n' path seconds "vs COPY" "backend priv" "backend RSS"
for k in copy exwiw exwiw_copy pg_dump ruby; do
	case $k in
	copy) label="COPY (query) TO STDOUT" ;;
	exwiw) label="exwiw_dump (insert) via psql -XAt" ;;
	exwiw_copy) label="exwiw_dump (copy) via psql -XAt" ;;
	pg_dump) label="pg_dump --inserts --rows-per-insert=1000" ;;
	ruby) label="Ruby client path (single-row mode)" ;;
	esac
	printf '%-40s %9s %9sx %11s MB %9s MB\n' "$label" "${times[$k]}" "$(ratio "${times[$k]}" "${times[copy]}")" "$(mb "${anon[$k]}")" "$(mb "${hwm[$k]}")"
done
echo
echo "exwiw_dump / COPY            = $(ratio "${times[exwiw]}" "${times[copy]}")x   (goal <= 1.3)"
echo "pg_dump --inserts / exwiw    = $(ratio "${times[pg_dump]}" "${times[exwiw]}")x   (goal >= 1.5)"
echo "Ruby client path / exwiw     = $(ratio "${times[ruby]}" "${times[exwiw]}")x"
echo "exwiw output == Ruby client output, byte for byte: $same"
echo "file sizes: $(cd "$out" && ls -l --block-size=M copy.txt exwiw.sql exwiw_copy.sql pg_dump.sql ruby.sql | awk '{print $NF "=" $5}' | tr '\n' ' ')"

# The server's share alone: no client, no network.  COPY writes to
# /dev/null on the server; exwiw_dump runs in a cursor that MOVE drains.
server_ms() { psql -X -At -c '\timing on' "$@" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -n 1; }
best_ms() { local i v b=""; for i in 1 2 3; do v=$(server_ms "$@"); if [ -z "$b" ] || awk -v v="$v" -v b="$b" 'BEGIN{exit !(v<b)}'; then b=$v; fi; done; echo "$b"; }
s_copy=$(best_ms -c "COPY ($q) TO '/dev/null'")
s_exwiw=$(best_ms -c "BEGIN" -c "DECLARE c NO SCROLL CURSOR FOR SELECT exwiw_dump('$q', 'bench_mixed')" -c "MOVE FORWARD ALL IN c")
echo "server side only (best of 3): COPY TO '/dev/null' ${s_copy} ms, exwiw_dump drained by MOVE ${s_exwiw} ms ($(ratio "$s_exwiw" "$s_copy")x)"
