#!/usr/bin/env bash
# test/citus/t/memory.sh: the coordinator's memory for exwiw_dump over a
# distributed table of 1M rows (8 mixed columns, bench_fill_mixed of
# bench/common.sh, distributed by id over 32 shards), measured the way
# bench/memory.sh does (bench_run: peak RssAnon and VmHWM of the serving
# backend; psql with FETCH_COUNT=64), against COPY through the coordinator
# and against the same on the plain node.  Also: the temporary files the
# coordinator writes (pg_stat_database.temp_bytes) and the time to the
# first chunk, which show whether Citus materializes the multi-shard result
# before exwiw sees its first row.
#
# Figures are printed; the checks are that the ORDER BY dumps are
# byte-identical to the plain node's, and that the unordered ones hold the
# same rows.  CITUS_MEMORY_ROWS overrides the 1,000,000 rows.
source "$(dirname "$0")/../lib.sh"
source "$EXWIW_ROOT/bench/common.sh"
PATH=$EXWIW_BIN:$PATH
rows=${CITUS_MEMORY_ROWS:-1000000}
work=$(mktemp -d /tmp/exwiw-citus-memory.XXXXXX)
chmod 777 "$work"
trap 'rm -rf "$work"' EXIT
export PGHOST=127.0.0.1

PGPORT=$CITUS_PLAIN_PORT bench_fill_mixed "$rows" bench_mixed
PGPORT=$CITUS_COORD_PORT bench_fill_mixed "$rows" bench_mixed
cq -q -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" \
	-c "SELECT create_distributed_table('bench_mixed', 'id')" \
	-c "SELECT truncate_local_data_after_distributing_table('bench_mixed')" -c "ANALYZE bench_mixed" >/dev/null
citus_note "bench_mixed: $rows rows, $(cq -XAtq -c "SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = 'bench_mixed'::regclass") shards;" \
	"work_mem $(cq -XAtq -c "SHOW work_mem"), shared_buffers $(cq -XAtq -c "SHOW shared_buffers")"

temp_bytes() { psql -XAtq -p "$1" -c "SELECT temp_bytes FROM pg_stat_database WHERE datname = current_database()"; }

# measure NAME NODE-PORT OUTFILE SQL: bench_run's line, and the temporary
# files the node wrote meanwhile.  psql's FETCH_COUNT runs "FETCH 64" on a
# cursor, and PostgreSQL holds each FETCH's rows in a tuplestore before
# sending them: 64 chunks of 256 kB spill past work_mem on any node (the
# plain node's figures show that share); what Citus adds is its own.
measure() {
	local name=$1 port=$2 outfile=$3 sql=$4 t0 t1
	t0=$(temp_bytes "$port")
	PGPORT=$port bench_run "$name" bash -c "psql -XAt -v FETCH_COUNT=64 -v ON_ERROR_STOP=1 -c \"$sql\" > $outfile"
	sleep 0.5
	t1=$(temp_bytes "$port")
	echo "#     temp files written by $name: $(((t1 - t0) / 1048576)) MB"
}

q="SELECT * FROM bench_mixed"
for node in citus plain; do
	port=$CITUS_COORD_PORT
	[ $node = plain ] && port=$CITUS_PLAIN_PORT
	measure "$node COPY TO STDOUT" "$port" "$work/$node-copy.txt" "COPY ($q) TO STDOUT" | sed 's/^/# /'
	measure "$node exwiw_dump insert" "$port" "$work/$node-insert.sql" \
		"SELECT exwiw_dump('$q', 'bench_mixed', 10000)" | sed 's/^/# /'
	measure "$node exwiw_dump copy" "$port" "$work/$node-dcopy.sql" \
		"SELECT exwiw_dump('$q', 'bench_mixed', format => 'copy')" | sed 's/^/# /'
	measure "$node exwiw_dump copy ORDER BY" "$port" "$work/$node-dcopy-ordered.sql" \
		"SELECT exwiw_dump('$q ORDER BY id', 'bench_mixed', format => 'copy')" | sed 's/^/# /'
	PGOPTIONS='-c work_mem=64MB' measure "$node exwiw_dump copy, work_mem 64MB" "$port" "$work/$node-dcopy64.sql" \
		"SELECT exwiw_dump('$q', 'bench_mixed', format => 'copy')" | sed 's/^/# /'
	# time to the first chunk: the whole multi-shard result first?
	ms=$(psql -XAtq -p "$port" -c '\timing on' \
		-c "SELECT length(c) FROM exwiw_dump('$q', 'bench_mixed', format => 'copy', chunk_bytes => 65536) c LIMIT 1" 2>&1 |
		sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p')
	ms_sl=$(psql -XAtq -p "$port" -c '\timing on' \
		-c "SELECT length(c) FROM (SELECT exwiw_dump('$q', 'bench_mixed', format => 'copy', chunk_bytes => 65536) c) s LIMIT 1" 2>&1 |
		sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p')
	citus_note "$node: time to the first 64 kB chunk (select-list form, LIMIT 1): $ms_sl ms (FROM form: $ms ms)"
done

citus_same "$work/citus-dcopy-ordered.sql" "$work/plain-dcopy-ordered.sql" \
	"exwiw_dump(... ORDER BY id, format => 'copy') of $rows rows through the coordinator equals the plain node's"
if cmp -s <(sort "$work/citus-dcopy.sql") <(sort "$work/plain-dcopy.sql"); then
	citus_ok "exwiw_dump(format => 'copy') without ORDER BY: the same rows as the plain node"
else
	citus_not_ok "exwiw_dump(format => 'copy') without ORDER BY: other rows than the plain node"
fi
cq -q -c "DROP TABLE bench_mixed"
pq -q -c "DROP TABLE bench_mixed"
