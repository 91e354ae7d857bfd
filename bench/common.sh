#!/usr/bin/env bash
# bench/common.sh: shared helpers for the benchmark scripts (sourced).
#
# bench_cluster [OPT...]   build, install into a private PostgreSQL copy and
#                          start a throwaway cluster tuned like a small server;
#                          output files go to $BENCH_OUT; OPTs are extra
#                          postgresql.conf lines
# bench_cluster_reuse DIR PORT   build and install exwiw into DIR/inst and
#                          (re)start the cluster an earlier run left in DIR
# bench_fill_mixed N TABLE create TABLE with N rows of 8 mixed-type columns
# bench_shops_1000         the 1,000-shop dataset (bench/shops_1000.sql) and
#                          its catalog config in public.bench_cfg
# bench_run NAME CMD...    run CMD, print wall time and the peak memory of
#                          the backend serving it (found by application_name)
# ratio A B, mb KB         A / B and KB in MB, for the tables
# bench_measure KEY CMD... run CMD under GNU time, keep its best wall time
#                          and largest peak RSS in best_s[KEY], best_kb[KEY]
source "$(dirname "${BASH_SOURCE[0]}")/../test/lib.sh"

bench_cluster() {
	exwiw_setup
	BENCH_WORK=$(mktemp -d /tmp/exwiw-bench.XXXXXX)
	exwiw_tmp_install "$BENCH_WORK/inst"
	exwiw_cluster_start "$BENCH_WORK" "${EXWIW_BENCH_PORT:-$(($(exwiw_port) + 1))}" \
		"work_mem = '64MB'" "maintenance_work_mem = '512MB'" "jit = off" "$@"
	psql -X -q -c "CREATE EXTENSION IF NOT EXISTS exwiw"
	BENCH_OUT=$BENCH_WORK/out
	mkdir -p "$BENCH_OUT"
	chmod 777 "$BENCH_OUT"
}

bench_cluster_reuse() {
	local dir=$1 port=$2
	exwiw_setup
	exwiw_tmp_install "$dir/inst"
	# restart: the server loads the library just installed
	exwiw_as_server_user "$EXWIW_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w restart >/dev/null
	export PGHOST=$dir/sock PGPORT=$port PGUSER=postgres PGDATABASE=postgres
	EXWIW_CLUSTER_DIR=$dir
	trap 'exwiw_cluster_stop' EXIT
	PATH=$EXWIW_BIN:$PATH
}

bench_shops_1000() {
	exwiw_log "loading 1,000 shops, 1M orders"
	psql -X -q -v ON_ERROR_STOP=1 -f test/subset/fixture.sql >/dev/null
	psql -X -q -v ON_ERROR_STOP=1 -f bench/shops_1000.sql
	psql -X -q -v ON_ERROR_STOP=1 -c "SET search_path = shop, public" \
		-c "CREATE TABLE public.bench_cfg AS SELECT exwiw_config_from_catalog() AS cfg"
}

bench_fill_mixed() {
	local n=$1 table=$2
	psql -X -q -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
DROP TABLE IF EXISTS $table;
CREATE TABLE $table (
	id bigint PRIMARY KEY,
	user_id int NOT NULL,
	name text NOT NULL,
	email varchar(100),
	amount numeric(12, 2) NOT NULL,
	score float8,
	created_at timestamptz NOT NULL,
	active boolean NOT NULL
);
INSERT INTO $table
SELECT g, (g::bigint * 7919) % 100000, 'customer ' || g || CASE WHEN g % 10 = 0 THEN E' O''Brien\nsecond line' ELSE '' END,
       CASE WHEN g % 5 = 0 THEN NULL ELSE 'user' || g || '@example.com' END,
       ((g::bigint * 104729) % 1000000) / 100.0, CASE WHEN g % 3 = 0 THEN NULL ELSE g / 7.0 END,
       timestamptz '2020-01-01 00:00:00+00' + g * interval '37 seconds', g % 2 = 0
FROM generate_series(1, $n) g;
SQL
	# Every page all-visible, so that index-only scans (the key walk of
	# exwiw dump --rows-per-file) fetch no heap: a VACUUM sets that only when
	# no other snapshot holds back its horizon, and autovacuum's ANALYZE of
	# the new table may; so again until it has.
	local i
	for i in 1 2 3 4 5 6 7 8 9 10; do
		psql -X -q -c "VACUUM (ANALYZE, FREEZE) $table"
		[ "$(psql -X -At -c "SELECT relallvisible >= relpages FROM pg_catalog.pg_class WHERE oid = '$table'::regclass")" = t ] && return 0
		sleep 1
	done
	echo "bench_fill_mixed: $table is not all-visible after 10 VACUUMs" >&2
}

# bench_run NAME CMD...: runs CMD with PGAPPNAME set, samples the serving
# backend's /proc status while it runs, and prints one line:
#   NAME <seconds> <peak RssAnon kB> <VmHWM kB>
# RssAnon is the backend's private memory (what grows if something
# accumulates); VmHWM also counts the shared buffers it touched.
# The seconds are also stored in BENCH_SECONDS.
bench_run() {
	local name=$1
	shift
	local app="exwiw_bench_$$_$RANDOM"
	local start end cpid bpid="" anon=0 hwm=0 v
	start=$(date +%s%N)
	PGAPPNAME=$app "$@" &
	cpid=$!
	while kill -0 "$cpid" 2>/dev/null; do
		if [ -z "$bpid" ]; then
			bpid=$(psql -XAt -c "SELECT pid FROM pg_stat_activity WHERE application_name = '$app' LIMIT 1" 2>/dev/null || true)
		fi
		if [ -n "$bpid" ] && [ -r "/proc/$bpid/status" ]; then
			v=$(awk '/^RssAnon:/ {print $2}' "/proc/$bpid/status" 2>/dev/null || echo 0)
			[ -n "$v" ] && [ "$v" -gt "$anon" ] && anon=$v
			v=$(awk '/^VmHWM:/ {print $2}' "/proc/$bpid/status" 2>/dev/null || echo 0)
			[ -n "$v" ] && [ "$v" -gt "$hwm" ] && hwm=$v
		fi
		sleep 0.1
	done
	wait "$cpid"
	end=$(date +%s%N)
	BENCH_SECONDS=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f", (e - s) / 1e9 }')
	BENCH_ANON_KB=$anon
	BENCH_HWM_KB=$hwm
	printf '%-34s %8s s   backend peak: private %7.1f MB, RSS %7.1f MB\n' \
		"$name" "$BENCH_SECONDS" "$(awk -v k="$anon" 'BEGIN{print k/1024}')" "$(awk -v k="$hwm" 'BEGIN{print k/1024}')"
}

# ratio A B: A / B with two decimals
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# mb KB: kilobytes as megabytes with one decimal
mb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

# bench_measure KEY CMD...: one run of CMD under GNU time (after a sync, so
# that earlier runs' writeback is not in it); keeps the best wall seconds in
# best_s[KEY] and the largest peak RSS of CMD, in kB, in best_kb[KEY]: the
# caller declares both (declare -A best_s best_kb).
bench_measure() {
	local key=$1 s kb t
	shift
	t=$(mktemp)
	sync
	/usr/bin/time -f '%e %M' -o "$t" "$@"
	read -r s kb <"$t"
	rm -f "$t"
	if [ -z "${best_s[$key]:-}" ] || [ "$(echo "$s < ${best_s[$key]}" | bc)" -eq 1 ]; then
		best_s[$key]=$s
	fi
	if [ -z "${best_kb[$key]:-}" ] || [ "$kb" -gt "${best_kb[$key]}" ]; then
		best_kb[$key]=$kb
	fi
}
