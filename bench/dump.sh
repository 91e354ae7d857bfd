#!/usr/bin/env bash
# bench/dump.sh: exwiw_dump against COPY, pg_dump --inserts and the Ruby
# client's path, in one run, on a table of N rows x 8 mixed-type columns.
#
#   bench/dump.sh            # N = 1,000,000, 3 runs each, median
#   bench/dump.sh 100000 1   # quick check
#
# Every path writes a file through a client, as a user would.  Prints wall
# time, backend peak memory, and the ratios the project tracks.
source "$(dirname "$0")/common.sh"
rows=${1:-1000000}
runs=${2:-3}
bench_cluster
out=$BENCH_WORK/out
mkdir -p "$out"
chmod 777 "$out"

exwiw_log "filling bench_mixed with $rows rows"
bench_fill_mixed "$rows" bench_mixed
q="SELECT * FROM bench_mixed"

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
declare -A times anon hwm
run_case() {
	local key=$1
	shift
	local i s=() a=0 h=0
	for i in $(seq 1 "$runs"); do
		bench_run "$key (run $i)" "$@" >&2
		s+=("$BENCH_SECONDS")
		[ "$BENCH_ANON_KB" -gt "$a" ] && a=$BENCH_ANON_KB
		[ "$BENCH_HWM_KB" -gt "$h" ] && h=$BENCH_HWM_KB
	done
	times[$key]=$(printf '%s\n' "${s[@]}" | median)
	anon[$key]=$a
	hwm[$key]=$h
}

run_case copy bash -c "psql -X -c \"COPY ($q) TO STDOUT\" > $out/copy.txt"
run_case exwiw bash -c "psql -XAt -c \"SELECT exwiw_dump('$q', 'bench_mixed')\" > $out/exwiw.sql"
run_case exwiw_copy bash -c "psql -XAt -c \"SELECT exwiw_dump('$q', 'bench_mixed', format => 'copy')\" > $out/exwiw_copy.sql"
run_case pg_dump bash -c "pg_dump --data-only --inserts --rows-per-insert=1000 -t bench_mixed > $out/pg_dump.sql"
run_case ruby ruby "$(dirname "$0")/client_style.rb" "$q" bench_mixed "$out/ruby.sql"

# The client's path and exwiw_dump must produce the same bytes.
if cmp -s "$out/exwiw.sql" "$out/ruby.sql"; then same=yes; else same=NO; fi

mb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
echo
echo "exwiw bench/dump.sh: $rows rows x 8 columns, median of $runs runs ($(date -u +%Y-%m-%d), $(nproc) cores)"
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
