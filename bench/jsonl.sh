#!/usr/bin/env bash
# bench/jsonl.sh: exwiw_dump_jsonl against PostgreSQL's own JSON and the Ruby
# reference, on ROWS rows x 8 mixed columns (default 1,000,000).
#
#   bench/jsonl.sh [ROWS]
#
# Starts its own throwaway cluster (bench/common.sh), like the other benches.
# Prints wall times (best of EXWIW_BENCH_RUNS=3, alternating), the ratios,
# the backends' CPU time (user+system from /proc/<pid>/stat, best run),
# and each backend's peak RSS (VmHWM, read from /proc inside the same psql
# session, so run it on the server's host).  Both exports write a file
# through psql; the Ruby time is serialization only (rows fetched first),
# and its output is compared byte for byte with exwiw's.
source "$(dirname "$0")/common.sh"
rows=${1:-1000000}
here=$(cd "$(dirname "$0")" && pwd)
bench_cluster
out=$(mktemp -d /tmp/exwiw-bench-jsonl.XXXXXX)
export PGDATABASE=${PGDATABASE:-postgres}

psql -X -q -v ON_ERROR_STOP=1 <<SQL
DROP TABLE IF EXISTS bench_jsonl;
CREATE TABLE bench_jsonl AS
SELECT lpad(to_hex(g), 24, '0')::name AS _id,
       g AS n,
       'user ' || g || E' "quoted" \\\\ é' AS title,
       (g % 1000) / 7.0::float8 AS score,
       round((g % 100000) / 100.0, 2) AS price,
       '2020-01-01'::timestamptz + g * interval '1 second' AS created,
       g % 3 = 0 AS active,
       json_build_object('tags', json_build_array('a', 'b', g % 10), 'depth', json_build_object('x', g)) AS meta
FROM generate_series(1, $rows) g;
VACUUM ANALYZE bench_jsonl;
SQL

# run SQL in one session: the export, then the backend's peak RSS
run() {
	local name=$1 sql=$2 file=$3
	local t0 t1
	t0=$(date +%s.%N)
	psql -XAt -v ON_ERROR_STOP=1 <<SQL
SELECT pg_backend_pid() AS pid \\gset
\\setenv EXWIW_BENCH_PID :pid
\\o $file
$sql
\\o
\\! grep VmHWM /proc/\$EXWIW_BENCH_PID/status > $out/$name.hwm
\\! awk '{print \$14 + \$15}' /proc/\$EXWIW_BENCH_PID/stat >> $out/$name.cpu
SQL
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc
}

# best of $runs, alternating, as the machine may be shared
best() { printf '%s\n' "$@" | sort -g | head -1; }
runs=${EXWIW_BENCH_RUNS:-3}
tc=() te=()
for ((i = 0; i < runs; i++)); do
	tc+=("$(run copy "COPY (SELECT row_to_json(t) FROM bench_jsonl t) TO STDOUT;" "$out/copy.json")")
	te+=("$(run exwiw "SELECT exwiw_dump_jsonl('SELECT * FROM bench_jsonl');" "$out/exwiw.jsonl")")
done
t_copy=$(best "${tc[@]}")
t_exwiw=$(best "${te[@]}")
# backend CPU seconds (user+system), best run: steadier than wall time
tck=$(getconf CLK_TCK)
c_copy=$(echo "$(sort -g "$out/copy.cpu" | head -1) / $tck" | bc -l)
c_exwiw=$(echo "$(sort -g "$out/exwiw.cpu" | head -1) / $tck" | bc -l)

# Ruby: fetch the same rows (typed as the extension types them) and serialize
t_ruby=$(ruby "$here/jsonl_ruby.rb" "$out/ruby.jsonl" 2>&1 >/dev/null | sed -n 's/^ruby serialize: \(.*\)s$/\1/p')

lines_exwiw=$(wc -l <"$out/exwiw.jsonl")
cmp -s "$out/exwiw.jsonl" "$out/ruby.jsonl" && same=identical || same=DIFFERENT
printf 'rows: %s  exwiw lines: %s  exwiw vs ruby output: %s\n' "$rows" "$lines_exwiw" "$same"
printf 'COPY row_to_json      %6.2fs  (runs: %s)  peak backend %s\n' "$t_copy" "${tc[*]}" "$(cat $out/copy.hwm)"
printf 'exwiw_dump_jsonl      %6.2fs  (runs: %s)  peak backend %s\n' "$t_exwiw" "${te[*]}" "$(cat $out/exwiw.hwm)"
printf 'ruby bson (serialize) %6.2fs\n' "$t_ruby"
printf 'backend CPU: COPY %.2fs, exwiw %.2fs (%.2fx)\n' "$c_copy" "$c_exwiw" "$(echo "$c_exwiw / $c_copy" | bc -l)"
printf 'exwiw / COPY = %.2fx (goal <= 1.2)   ruby / exwiw = %.1fx (goal >= 5)\n' \
	"$(echo "$t_exwiw / $t_copy" | bc -l)" "$(echo "$t_ruby / $t_exwiw" | bc -l)"
