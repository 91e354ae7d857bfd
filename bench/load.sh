#!/usr/bin/env bash
# bench/load.sh: loading is the other half of the job.  Time and backend
# memory to load N rows (8 mixed columns) written by exwiw_dump as
#   - one INSERT statement,
#   - rows_per_statement => 10000,
#   - format => 'copy'.
#
#   bench/load.sh            # N = 1,000,000
#
# bench/load.sh cli [SHOPS]: exwiw load against the psql loop, on the
# 1,000-shop dataset of bench/subset.sh and bench/cli.sh: shops 1..SHOPS
# (default 100: a tenth of the dataset, so that the run stays near five
# minutes on a busy machine) exported with exwiw in the INSERT and COPY
# formats, then each directory loaded into a fresh copy of the schema by
#   - the psql loop: for f in DIR/*.sql; do psql -X -q -v ON_ERROR_STOP=1 -f "$f"; done
#   - exwiw load DIR -j 1
#   - exwiw load DIR -j 2
# as the superuser (the files' trigger blocks then set replica mode, for
# both loaders alike).  Wall seconds of each; the row counts must agree.
source "$(dirname "$0")/common.sh"
if [ "${1:-}" = cli ]; then
	source "$(dirname "$0")/load_cli.sh"
	exit
fi
rows=${1:-1000000}
bench_cluster
out=$BENCH_OUT
bench_fill_mixed "$rows" bench_mixed
psql -X -q -c "CREATE TABLE bench_target (LIKE bench_mixed INCLUDING ALL)"

q="SELECT * FROM bench_mixed"
psql -XAt -c "SELECT exwiw_dump('$q', 'bench_target')" >"$out/one.sql"
psql -XAt -c "SELECT exwiw_dump('$q', 'bench_target', 10000)" >"$out/chunked.sql"
psql -XAt -c "SELECT exwiw_dump('$q', 'bench_target', format => 'copy')" >"$out/copy.sql"

echo
echo "exwiw bench/load.sh: loading $rows rows x 8 columns with psql -f ($(date -u +%Y-%m-%d), $(nproc) cores)"
for f in one chunked copy; do
	psql -X -q -c "TRUNCATE bench_target"
	case $f in
	one) label="one INSERT statement" ;;
	chunked) label="rows_per_statement => 10000" ;;
	copy) label="format => 'copy'" ;;
	esac
	bench_run "$label" psql -X -q -v ON_ERROR_STOP=1 -f "$out/$f.sql"
	n=$(psql -XAt -c "SELECT count(*) FROM bench_target")
	[ "$n" = "$rows" ] || { echo "loaded $n rows, expected $rows" >&2; exit 1; }
done
