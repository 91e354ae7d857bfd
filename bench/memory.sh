#!/usr/bin/env bash
# bench/memory.sh: streaming means streaming.  Peak backend memory of
# exwiw_dump at 1M and at 10M rows (8 mixed columns) must be the same.
#
#   bench/memory.sh              # 1M and 10M rows
#   bench/memory.sh 100000 1000000
#
# psql runs with FETCH_COUNT so that the client, too, holds only a few
# chunks; the backend serves the same value-per-call stream either way.
#
# A backend's RSS also counts every shared buffer it touches, up to all of
# shared_buffers, whatever it exports (COPY included).  The cluster runs
# with shared_buffers = 32MB (and the default work_mem) so that peak RSS
# shows the backend's own
# memory; "private" (RssAnon) is reported too and does not depend on it.
source "$(dirname "$0")/common.sh"
small=${1:-1000000}
large=${2:-10000000}
bench_cluster "shared_buffers = 32MB" "work_mem = '4MB'"
out=$BENCH_OUT

exwiw_log "filling bench_mixed with $large rows"
bench_fill_mixed "$large" bench_mixed

echo
echo "exwiw bench/memory.sh ($(date -u +%Y-%m-%d), $(nproc) cores)"
for n in "$small" "$large"; do
	q="SELECT * FROM bench_mixed WHERE id <= $n"
	bench_run "COPY TO STDOUT, $n rows" bash -c "psql -X -c \"COPY ($q) TO STDOUT\" > $out/copy_$n.txt"
	bench_run "exwiw_dump insert, $n rows" bash -c "psql -XAt -v FETCH_COUNT=64 -c \"SELECT exwiw_dump('$q', 'bench_mixed', 10000)\" > $out/exwiw_$n.sql"
	bench_run "exwiw_dump copy, $n rows" bash -c "psql -XAt -v FETCH_COUNT=64 -c \"SELECT exwiw_dump('$q', 'bench_mixed', format => 'copy')\" > $out/exwiw_copy_$n.sql"
	echo "  output: $(du -m "$out/exwiw_$n.sql" | cut -f1) MB, $(grep -c '^INSERT INTO' "$out/exwiw_$n.sql") statements"
	rm -f "$out"/*_"$n".*
done
