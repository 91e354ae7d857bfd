#!/usr/bin/env bash
# bench/tenant_vs_copy.sh: the tenant export by the exwiw command against a
# psql COPY loop of the same row sets (issue 39), side by side in one run.
#
#   bench/tenant_vs_copy.sh          (EXWIW_PORT: the cluster is on EXWIW_PORT + 1)
#   BENCH_ROUNDS=5                   interleaved rounds (default 3)
#   BENCH_DATASETS="uniform skewed"  which datasets (default both)
#   BENCH_SIZES="1 10 100 1000"      tenant sizes, shops 1..N (default these)
#   BENCH_PARTS="main j"             the tenant table, the -j 2 part (default both)
#   EXWIW_BENCH_REUSE=1              reuse the cluster and data of a previous
#                                    run (the extension is built and
#                                    installed again)
#
# Builds exwiw into a private copy of PostgreSQL, starts a throwaway
# cluster with work_mem = 64MB (a server tuned for reporting, as
# bench/common.sh), and loads two databases with bench/shops_1000.sql (1M
# orders, 2M order items, 1M transactions): "uniform", 1,000 shops of the
# same size, and "skewed" (psql -v skewed=1: shop 1 holds a tenth of the
# orders, shops 2-10 another tenth, 990 small shops the rest).  The schema
# config is written once by "exwiw schema generate".
#
# For shops 1..N (N = 1, 10, 100, 1000), in interleaved rounds, each run a
# new process and session:
#
#   exwiw insert   exwiw --target-table=shops --ids=... --insert-only -o DIR
#   exwiw copy     the same with --output-format=copy
#   COPY loop      one psql session, REPEATABLE READ, one
#                  \copy (SELECT ... WHERE shop_id IN (...)) TO 'file' per
#                  table: the same row sets the closure finds (the row
#                  counts are checked against exwiw's files), with the
#                  masks of the generated config (users, transactions);
#                  in no order (exwiw's files are in key order)
#   sorted loop    the same loop, each query ending in ORDER BY the
#                  table's key: the files in exwiw's order, which is what
#                  the key order costs (the goal is against the loop in
#                  no order; copy/sorted is printed beside it)
#
# Per run: wall seconds, and the serving backend's peak private memory
# (RssAnon of /proc/PID/status, sampled every 20 ms).  Then -j 2: exwiw -j 2
# (COPY format) against two psql COPY sessions on one exported snapshot
# that split the same tables between them, for the 100 largest shops; and
# one table (order_items, shops 1..N) into files: exwiw dump --query ...
# --rows-per-file -j 1 / -j 2 against one COPY session / two COPY sessions
# on its key halves.  The load average is printed with every run: on a
# shared machine the seconds move by ±20%, the ratios of interleaved rounds
# much less.  Figures: median of the rounds.
#
# Goals (issue 39): exwiw / COPY loop <= 1.0 at every size on both
# datasets; the backend <= 64 MB private with work_mem = 64MB; -j 2's gain
# >= 0.95 of the two COPY sessions' gain.
source "$(dirname "$0")/common.sh"
cd "$EXWIW_ROOT"

port=$(($(exwiw_port) + 1))
dir=/tmp/exwiw-tvc-$port
rounds=${BENCH_ROUNDS:-3}
datasets=${BENCH_DATASETS:-uniform skewed}
sizes=${BENCH_SIZES:-1 10 100 1000}
parts=" ${BENCH_PARTS:-main j} "

if [ "${EXWIW_BENCH_REUSE:-0}" = 1 ] && [ -d "$dir/data" ]; then
	bench_cluster_reuse "$dir" "$port"
	reuse=1
else
	if [ -d "$dir/data" ]; then
		EXWIW_CLUSTER_DIR=$dir
		exwiw_setup
		exwiw_tmp_install "$dir/inst"
		exwiw_cluster_stop
	fi
	rm -rf "$dir"
	mkdir -p "$dir"
	exwiw_setup
	exwiw_tmp_install "$dir/inst"
	exwiw_cluster_start "$dir" "$port" "work_mem = '64MB'" "maintenance_work_mem = '512MB'" \
		"jit = off" "max_locks_per_transaction = 1024"
	PATH=$EXWIW_BIN:$PATH
	reuse=0
fi
out=$dir/out
mkdir -p "$out"
chmod 777 "$out"
export PGOPTIONS='-c search_path=shop,public -c client_min_messages=warning'

load() { uptime | sed 's/.*load average: //'; }

for db in $datasets; do
	if [ $reuse -eq 0 ] || ! psql -X -q -d "$db" -c "SELECT 1" >/dev/null 2>&1; then
		exwiw_log "loading the $db dataset (1,000 shops, 1M orders)"
		psql -X -q -c "CREATE DATABASE $db"
		psql -X -q -d "$db" -c "CREATE EXTENSION exwiw"
		psql -X -q -d "$db" -v ON_ERROR_STOP=1 -f test/subset/fixture.sql >/dev/null
		psql -X -q -d "$db" -v ON_ERROR_STOP=1 $([ "$db" = skewed ] && echo "-v skewed=1") -f bench/shops_1000.sql
		psql -X -q -d "$db" -c "CREATE INDEX ON shop.transactions (order_id)" -c "VACUUM ANALYZE shop.transactions"
	fi
	rm -rf "$dir/schema-$db"
	PGDATABASE=$db exwiw schema generate --from-db --schema-dir="$dir/schema-$db" >/dev/null
done

# ids N: shops 1..N, comma-separated
ids() { seq -s, 1 "$1"; }

# copy_script N TAG [PART PARTS]: the \copy commands of the COPY loop for
# shops 1..N, its files named $out/TAG.TABLE; with PART of PARTS (0 or 1 of
# 2) those of that part only (dealt by hand: order_items, 2M rows for all
# shops, against orders and transactions, 1M each).  With SORTED=1 each
# query ends in ORDER BY the table's key: the rows in exwiw's order
copy_script() {
	local n=$1 tag=$2 part=${3:-0} parts=${4:-1}
	local s o
	s="shop_id IN ($(ids "$n"))"
	o="order_id IN (SELECT id FROM shop.orders WHERE $s)"
	while IFS='|' read -r p table key query; do
		[ "${SORTED:-0}" = 1 ] && query="$query ORDER BY $key"
		if [ "$parts" -eq 1 ] || [ "$p" -eq "$part" ]; then
			echo "\\copy ($query) TO '$out/$tag.$table'"
		fi
	done <<EOF
0|order_items|id|SELECT * FROM shop.order_items WHERE $o
1|orders|id|SELECT * FROM shop.orders WHERE $s
1|transactions|id|SELECT id, order_id, amount, CASE WHEN card_last4 IS NULL THEN NULL ELSE concat('masked-', id) END FROM shop.transactions WHERE $o
0|order_tags|order_id, tag|SELECT * FROM shop.order_tags WHERE $o
0|products|id|SELECT * FROM shop.products WHERE $s OR id IN (SELECT product_id FROM shop.order_items WHERE $o)
1|users|id|SELECT id, shop_id, CASE WHEN email IS NULL THEN NULL ELSE concat('masked-', id, '@example.com') END, CASE WHEN name IS NULL THEN NULL ELSE exwiw_fake('name', NULL, id::text) END, CASE WHEN phone IS NULL THEN NULL ELSE exwiw_fake('phone_number', NULL, id::text) END, vip FROM shop.users WHERE $s OR id IN (SELECT user_id FROM shop.orders WHERE $s)
0|categories|id|WITH RECURSIVE c AS (SELECT * FROM shop.categories WHERE id IN (SELECT category_id FROM shop.products WHERE $s OR id IN (SELECT product_id FROM shop.order_items WHERE $o)) UNION SELECT p.* FROM shop.categories p JOIN c ON p.id = c.parent_id) SELECT * FROM c
1|shops|id|SELECT * FROM shop.shops WHERE id IN ($(ids "$n"))
0|announcements|id|SELECT * FROM shop.announcements
EOF
}

# run_sampled CMD...: run CMD, sample the private memory (RssAnon) of
# every backend the postmaster starts meanwhile (the cluster serves nothing
# else) every 20 ms, one awk a sample; sets RUN_S (wall seconds) and RUN_KB
# (the largest backend's peak, kB)
run_sampled() {
	local pm t0 t1 cpid base
	pm=$(head -1 "$dir/data/postmaster.pid")
	base=" $(cat "/proc/$pm/task/$pm/children") "
	: >"$dir/samples"
	t0=$(date +%s%N)
	"$@" &
	cpid=$!
	while kill -0 "$cpid" 2>/dev/null; do
		awk -v pm="$pm" -v base="$base" 'BEGIN {
			f = "/proc/" pm "/task/" pm "/children"
			getline line < f
			n = split(line, a, " ")
			for (i = 1; i <= n; i++) {
				if (index(base, " " a[i] " ")) continue
				s = "/proc/" a[i] "/status"
				while ((getline l < s) > 0)
					if (l ~ /^RssAnon:/) { split(l, b, " "); print b[2] }
				close(s)
			}
		}' >>"$dir/samples" 2>/dev/null || true
		sleep 0.02
	done
	wait "$cpid"
	t1=$(date +%s%N)
	RUN_S=$(awk -v s="$t0" -v e="$t1" 'BEGIN { printf "%.3f", (e - s) / 1e9 }')
	RUN_KB=$(sort -n "$dir/samples" | tail -1)
	RUN_KB=${RUN_KB:-0}
}

# exwiw_cli DB N FORMAT JOBS: the exwiw command's export of shops 1..N
exwiw_cli() {
	rm -rf "$out/x-$1-$3-$4"
	PGDATABASE=$1 exwiw --target-table=shops --ids="$(ids "$2")" --schema-dir="$dir/schema-$1" \
		--allow-undecided --insert-only --output-format="$3" -j "$4" -o "$out/x-$1-$3-$4" --force --quiet
}
# in_snapshot CMD...: CMD's statements in one REPEATABLE READ transaction
in_snapshot() {
	echo "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;"
	"$@"
	echo "COMMIT;"
}
# copy_loop DB N: the psql COPY loop of shops 1..N
copy_loop() {
	in_snapshot copy_script "$2" "c-$1" | psql -X -q -v ON_ERROR_STOP=1 -d "$1" >/dev/null
}
# copy_sorted DB N: the same, each file in its key's order (exwiw's)
copy_sorted() { SORTED=1 copy_loop "$@"; }
# two_sessions DB CMD...: the statements of "CMD... 0" and of "CMD... 1"
# in two psql sessions on one snapshot: the first exports it and waits,
# before it commits, until the second has taken it
two_sessions() {
	local db=$1 first
	shift
	rm -f "$dir/snap" "$dir/snap.taken"
	{
		echo "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;"
		echo "\\pset tuples_only on"
		echo "\\pset format unaligned"
		echo "SELECT pg_catalog.pg_export_snapshot() \\g $dir/snap.tmp"
		echo "\\! mv $dir/snap.tmp $dir/snap"
		"$@" 0
		echo "\\! while [ ! -e $dir/snap.taken ]; do sleep 0.005; done"
		echo "COMMIT;"
	} | psql -X -q -v ON_ERROR_STOP=1 -d "$db" >/dev/null &
	first=$!
	while [ ! -e "$dir/snap" ]; do sleep 0.005; done
	{
		echo "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;"
		echo "SET TRANSACTION SNAPSHOT '$(cat "$dir/snap")';"
		echo "\\! touch $dir/snap.taken"
		"$@" 1
		echo "COMMIT;"
	} | psql -X -q -v ON_ERROR_STOP=1 -d "$db" >/dev/null
	wait $first
}
# copy_part N TAG PART: part PART of 2 of the COPY loop
copy_part() { copy_script "$1" "$2" "$3" 2; }
# copy_two DB N: the COPY loop in two sessions on one snapshot
copy_two() { two_sessions "$1" copy_part "$2" "c2-$1"; }
# one table into files: order_items (2M rows) in $table_files files by
# key range, exwiw dump --rows-per-file -j N against psql sessions that
# COPY the same key ranges, N sessions on one exported snapshot
table_files=20
table_rows=2000000
table_exwiw() {
	rm -rf "$out/t-$1"
	PGDATABASE=$jdb exwiw dump --table=shop.order_items --format=copy \
		--rows-per-file=$((table_rows / table_files)) -j "$1" -q -o "$out/t-$1"
}
# table_script PART PARTS: the COPYs of the key ranges of that part
table_script() {
	local k per=$((table_rows / table_files))
	for k in $(seq 0 $((table_files - 1))); do
		[ $((k % $2)) -eq "$1" ] || continue
		echo "\\copy (SELECT * FROM shop.order_items WHERE id > $((k * per)) AND id <= $(((k + 1) * per)) ORDER BY id) TO '$out/tc.$k'"
	done
}
# table_half PART: part PART of 2
table_half() { table_script "$1" 2; }
# table_copy N: the key ranges in one session (N = 1) or in two
table_copy() {
	if [ "$1" -eq 1 ]; then
		in_snapshot table_script 0 1 | psql -X -q -v ON_ERROR_STOP=1 -d "$jdb" >/dev/null
	else
		two_sessions "$jdb" table_half
	fi
}
export -f ids copy_script
export dir out

jdb=${datasets%% *}
declare -A times mem
# measure KEY CMD...: run_sampled, keep the time in times[KEY] (a list)
# and the largest peak in mem[KEY]; prints the run with the load average
measure() {
	local key=$1
	shift
	run_sampled "$@"
	times[$key]="${times[$key]:-} $RUN_S"
	[ "$RUN_KB" -gt "${mem[$key]:-0}" ] && mem[$key]=$RUN_KB
	printf '  %-34s %8s s %8s MB   load %s\n' "$key" "$RUN_S" "$(mb "$RUN_KB")" "$(load)"
}
median() { tr ' ' '\n' | grep . | sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else printf "%.3f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
med() { echo "${times[$1]}" | median; }

# check_rows DB N: the COPY loop's files and exwiw's COPY files hold the
# same rows (sorted, byte for byte: the same masks)
check_rows() {
	local db=$1 n=$2 t f
	for t in shops users categories products orders order_items transactions order_tags announcements; do
		f=$(ls "$out/x-$db-copy-1"/insert-*-"$t".sql 2>/dev/null || true)
		if ! cmp -s <(sort "$out/c-$db.$t") <([ -z "$f" ] || awk '/^COPY .* FROM stdin;$/ { on = 1; next } /^\\\.$/ { on = 0 } on' "$f" | sort); then
			echo "FAIL: $db, $n shops, $t: the COPY loop's rows are not exwiw's"
			exit 1
		fi
	done
}

echo "machine at start: $(nproc) CPUs, load average $(load)"
for db in $([[ $parts == *" main "* ]] && echo "$datasets"); do
	for r in $(seq "$rounds"); do
		exwiw_log "$db: round $r of $rounds"
		for n in $sizes; do
			measure "$db $n copy-loop" copy_loop "$db" "$n"
			measure "$db $n copy-sorted" copy_sorted "$db" "$n"
			measure "$db $n exwiw-copy" exwiw_cli "$db" "$n" copy 1
			measure "$db $n exwiw-insert" exwiw_cli "$db" "$n" insert 1
			[ "$r" -eq 1 ] && check_rows "$db" "$n"
		done
	done
done

# -j 2: exwiw -j 1 / -j 2 against one COPY session / two, for the largest
# tenant of the first dataset; then one table into files
jdb=${datasets%% *}
jn=${sizes##* }
jrounds=${BENCH_J_ROUNDS:-$rounds}
[[ $parts == *" j "* ]] || jrounds=0
for r in $(seq "$jrounds"); do
	exwiw_log "-j 2: round $r of $jrounds ($jdb, $jn shops)"
	measure "j $jdb $jn copy-1" copy_loop "$jdb" "$jn"
	measure "j $jdb $jn copy-2" copy_two "$jdb" "$jn"
	measure "j $jdb $jn exwiw-j1" exwiw_cli "$jdb" "$jn" copy 1
	measure "j $jdb $jn exwiw-j2" exwiw_cli "$jdb" "$jn" copy 2
	measure "table copy-1" table_copy 1
	measure "table copy-2" table_copy 2
	measure "table exwiw-j1" table_exwiw 1
	measure "table exwiw-j2" table_exwiw 2
done
echo "machine at end: load average $(load)"

status=0
for db in $([[ $parts == *" main "* ]] && echo "$datasets"); do
	echo
	echo "$db dataset: medians of $rounds rounds (seconds; backend peak private MB, the largest of the rounds)"
	printf '%-10s %16s %16s %16s %16s %12s %12s %12s\n' tenant "COPY loop" "sorted loop" "exwiw copy" "exwiw insert" "copy/loop" "insert/loop" "copy/sorted"
	for n in $sizes; do
		l=$(med "$db $n copy-loop")
		o=$(med "$db $n copy-sorted")
		c=$(med "$db $n exwiw-copy")
		i=$(med "$db $n exwiw-insert")
		printf '%-10s %8s %5s MB %8s %5s MB %8s %5s MB %8s %5s MB %12s %12s %12s\n' "$n shops" \
			"$l" "$(mb "${mem[$db $n copy-loop]}")" "$o" "$(mb "${mem[$db $n copy-sorted]}")" \
			"$c" "$(mb "${mem[$db $n exwiw-copy]}")" \
			"$i" "$(mb "${mem[$db $n exwiw-insert]}")" "$(ratio "$c" "$l")" "$(ratio "$i" "$l")" "$(ratio "$c" "$o")"
		[ "$(echo "$c <= $l" | bc)" -eq 1 ] || { echo "not ok: $db, $n shops: exwiw copy / COPY loop $(ratio "$c" "$l") (goal <= 1.0)"; status=1; }
		for p in exwiw-copy exwiw-insert; do
			[ "${mem[$db $n $p]}" -le 65536 ] || { echo "not ok: $db, $n shops, $p: backend $(mb "${mem[$db $n $p]}") MB (goal <= 64 MB)"; status=1; }
		done
	done
done
[ "$jrounds" -gt 0 ] || exit $status
echo
echo "-j 2 ($jdb, $jn shops; one table: order_items, $table_files files): medians of $jrounds rounds"
printf '%-18s %10s %10s %8s\n' path "1 session" "2 sessions" gain
for k in "j $jdb $jn" table; do
	c1=$(med "$k copy-1")
	c2=$(med "$k copy-2")
	e1=$(med "$k exwiw-j1")
	e2=$(med "$k exwiw-j2")
	printf '%-18s %10s %10s %8s\n' "$k COPY" "$c1" "$c2" "$(ratio "$c1" "$c2")"
	printf '%-18s %10s %10s %8s\n' "$k exwiw" "$e1" "$e2" "$(ratio "$e1" "$e2")"
	g=$(echo "scale=3; ($e1 / $e2) / ($c1 / $c2)" | bc)
	echo "  exwiw's gain / COPY's gain: $g (goal >= 0.95)"
	[ "$(echo "$g >= 0.95" | bc)" -eq 1 ] || { echo "not ok: $k: -j 2's gain $g of the two COPY sessions' (goal >= 0.95)"; status=1; }
done
exit $status
