#!/usr/bin/env bash
# bench/standby.sh: the 1,000-shop tenant export (bench/cli.sh's data) on a
# streaming hot standby against the same export on its primary (issue 23).
#
#   bench/standby.sh             (EXWIW_PORT picks the primary's port, the
#                                standby takes the next; default 55350)
#   EXWIW_BENCH_RUNS=3           runs of each path (the best is kept)
#
# Builds exwiw into a private copy of PostgreSQL, starts a primary
# (autovacuum off, so that nothing writes WAL during the runs), loads
# test/subset/fixture.sql and bench/shops_1000.sql, freezes every table, and
# makes a standby from a base backup (pg_basebackup -R -X stream, as the
# README's replica section assumes: hot_standby_feedback = on).  Both have
# the same settings (shared_buffers = 1GB).  Once the standby has replayed
# the primary's last LSN, the schema config is written from the primary
# (exwiw schema generate), each server is warmed by one export of all shops,
# and then one shop (500) and all 1,000 shops are exported with the exwiw
# command, -j 1 and -j 2 (on the standby the first connection exports its
# snapshot there and the second imports it), from the primary and from the
# standby in turn, each run timed with GNU time (wall seconds, the client's
# peak RSS).  The directories of all four all-shops paths must be identical,
# byte for byte, and the script says so (it fails otherwise).
#
# The two servers share the machine's two cores and its page cache: while
# one exports, the other is idle (the standby's startup process waits for
# WAL that does not come), so the comparison is of the servers' own work.
source "$(dirname "$0")/common.sh"
cd "$EXWIW_ROOT"

dir=/tmp/exwiw-standby-bench
port=${EXWIW_PORT:-55350}
sport=$((port + 1))
runs=${EXWIW_BENCH_RUNS:-3}

# stop both servers on exit, whatever happens
stop_all() {
	local d
	for d in "$dir/standby/data" "$dir/primary/data"; do
		[ -d "$d" ] && exwiw_as_server_user "$EXWIW_BIN/pg_ctl" -D "$d" -m fast -w stop >/dev/null 2>&1
	done
	return 0
}

rm -rf "$dir"
mkdir -p "$dir/primary" "$dir/standby"
chmod 755 "$dir"
exwiw_setup
[ -x /usr/bin/time ] || { echo "GNU time is needed (apt-get install time)"; exit 1; }
exwiw_tmp_install "$dir/inst"
PATH=$EXWIW_BIN:$PATH

# the primary
exwiw_cluster_start "$dir/primary" "$port" "shared_buffers = 1GB" "max_locks_per_transaction = 1024" \
	"work_mem = '64MB'" "jit = off" "autovacuum = off" "wal_level = replica" "max_wal_senders = 4"
trap stop_all EXIT
primary_host=$PGHOST
export PGOPTIONS='-c search_path=shop,public -c client_min_messages=warning'

exwiw_log "loading 1,000 shops, 1M orders on the primary"
psql -X -q -c "CREATE EXTENSION exwiw"
psql -X -q -v ON_ERROR_STOP=1 -f test/subset/fixture.sql >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -f bench/shops_1000.sql
psql -X -q -c "CREATE INDEX ON shop.transactions (order_id)" -c "VACUUM (FREEZE, ANALYZE)" -c "CHECKPOINT"

# the standby: a base backup of the primary, streaming from it
exwiw_log "making the standby (pg_basebackup -R)"
mkdir -p "$dir/standby/sock"
[ "$(id -u)" -eq 0 ] && chown postgres: "$dir/standby" "$dir/standby/sock"
exwiw_as_server_user "$EXWIW_BIN/pg_basebackup" -h "$primary_host" -p "$port" -U postgres \
	-D "$dir/standby/data" -R -X stream -c fast --no-sync
cat >>"$dir/standby/data/postgresql.conf" <<CONF
port = $sport
unix_socket_directories = '$dir/standby/sock'
hot_standby = on
hot_standby_feedback = on
CONF
exwiw_as_server_user "$EXWIW_BIN/pg_ctl" -D "$dir/standby/data" -l "$dir/standby/server.log" -w -t 60 start >/dev/null ||
	{ cat "$dir/standby/server.log"; exit 1; }

# wait until the standby has replayed everything the primary wrote
lsn=$(psql -XAt -c "SELECT pg_catalog.pg_current_wal_lsn()")
for _ in $(seq 1 600); do
	caught=$(PGHOST=$dir/standby/sock PGPORT=$sport psql -XAt -c \
		"SELECT pg_catalog.pg_is_in_recovery() AND pg_catalog.pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn")
	[ "$caught" = t ] && break
	sleep 1
done
[ "$caught" = t ] || { echo "FAIL: the standby did not replay up to $lsn"; exit 1; }
exwiw_log "the standby has replayed up to $lsn"

out=$dir/out
mkdir -p "$out"
exwiw schema generate --from-db --schema-dir="$dir/schema" >/dev/null
all_ids=$(psql -X -At -c "SELECT string_agg(id::text, ',' ORDER BY id) FROM shop.shops")

# cli SERVER IDS JOBS NAME: the command of one export from the primary or
# the standby into $out/NAME, into the array CMD
cli() {
	local host=$primary_host p=$port
	[ "$1" = standby ] && host=$dir/standby/sock p=$sport
	CMD=(env PGHOST="$host" PGPORT="$p" exwiw --target-table=shops --ids="$2" --schema-dir="$dir/schema"
		--allow-undecided -j "$3" -o "$out/$4" --force --quiet --insert-only)
}

declare -A best_s best_kb
# measure KEY SERVER IDS JOBS NAME: one timed export (bench_measure)
measure() {
	local key=$1
	shift
	cli "$@"
	bench_measure "$key" "${CMD[@]}"
}

load() { uptime | sed 's/.*load average/load average/'; }

exwiw_log "warming up (one export of all shops from each server)"
for server in primary standby; do
	cli $server "$all_ids" 1 warm
	"${CMD[@]}"
done
echo "machine at start: $(nproc) CPUs, $(load)"
for scope in one all; do
	ids=500
	[ $scope = all ] && ids=$all_ids
	exwiw_log "exporting $([ $scope = one ] && echo 'one shop (500)' || echo 'all 1,000 shops'), $runs runs of each path"
	for _ in $(seq 1 "$runs"); do
		for jobs in 1 2; do
			for server in primary standby; do
				measure "$scope $server $jobs" $server "$ids" $jobs "$scope-$server-j$jobs"
			done
		done
	done
	same=1
	for p in primary-j2 standby-j1 standby-j2; do
		diff -r -x manifest.json "$out/$scope-primary-j1" "$out/$scope-$p" >/dev/null || same=0
	done
	if [ $same -eq 1 ]; then
		echo "$scope: $(ls "$out/$scope-primary-j1" | wc -l) files, $(du -sb "$out/$scope-primary-j1" | cut -f1) bytes;" \
			"the primary's and the standby's directories (-j 1 and -j 2) are identical"
	else
		echo "FAIL: $scope: the standby's directory differs from the primary's"
		exit 1
	fi
done
echo "machine at end: $(load)"

echo
echo "best of $runs; the client's peak RSS in parentheses"
echo
echo "| export | primary | standby | standby / primary |"
echo "| --- | ---: | ---: | ---: |"
for scope in one all; do
	for jobs in 1 2; do
		p=${best_s[$scope primary $jobs]} s=${best_s[$scope standby $jobs]}
		printf '| %s, `-j %d` | %s s (%s MB) | %s s (%s MB) | %s× |\n' \
			"$([ $scope = one ] && echo 'one shop' || echo 'all 1,000 shops')" "$jobs" \
			"$p" "$(mb "${best_kb[$scope primary $jobs]}")" "$s" "$(mb "${best_kb[$scope standby $jobs]}")" \
			"$(ratio "$s" "$p")"
	done
done
echo
echo "-j 1 / -j 2, all shops: primary $(ratio "${best_s[all primary 1]}" "${best_s[all primary 2]}")," \
	"standby $(ratio "${best_s[all standby 1]}" "${best_s[all standby 2]}")"
