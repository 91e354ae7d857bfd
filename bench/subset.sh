#!/usr/bin/env bash
# bench/subset.sh: the cost of a subset export grows with the tenant's rows,
# not with the database.
#
#   bench/subset.sh            (EXWIW_PORT picks the port; default 5573)
#
# Builds exwiw into a private copy of PostgreSQL, starts a throwaway cluster,
# loads the test fixture's schema with 1,000 shops: 20,000 users, 50,000
# products, 1,000,000 orders, 2,000,000 order items, 1,000,000 transactions
# and 100,000 order tags.  Then it exports one shop, and all shops, through
# exwiw_export streamed to psql (the README's path, output to /dev/null),
# prints the times and their ratio (required: under 1/100, warm runs), and
# EXPLAINs the one-shop queries of the two biggest tables to show the
# foreign-key indexes at work and the few buffers they touch.  Before that it shows the NOTICE for the one foreign key
# the fixture leaves unindexed, and creates the index it suggests.
#
#   bench/subset.sh --scale    only the scale part (below)
#   bench/subset.sh --cold     only one tenant, cold and warm (below); as
#                              root, since it drops the OS page cache
#
# Cold: one shop exported warm (twice, the second timed), then cold: the
# cluster restarted (shared buffers empty) and the OS page cache dropped
# (echo 3 > /proc/sys/vm/drop_caches), for several shops, each with the
# read-ahead off (exwiw.io_concurrency = 0) and at its default (16: the
# leaf and heap pages of the queries' index probes of a row set's keys read
# ahead, bitmap heap scans with 16 reads in flight);
# COLD_CONFS="SET ...|SET ..." compares other settings.  Each
# export is a new psql session (a cold one must be), with the config
# computed once beforehand.  Goal: cold <= 5x warm.  Beside them, per
# shop: exwiw_plan alone (the library, the catalog, no row read), and the
# peer: plain SQL reading the same rows of the shop's tables as text.
#
#   The Ruby client's modes (belongs_to walk, scope_column, batch_scope):
#   the same bytes, their times and peak backend memory; see below.
#
# Scale: planning and exporting grow about linearly with the number of
# tables.  1,000 tables in a chain (each belongs to the one before), in a star
# (999 belong to one) and as a random graph of real density (each table
# belongs to 1 to 3 earlier ones), mostly empty: exwiw_plan and exwiw_export
# times (required: plan under 1 s, export under 5 s).  Two self-references
# on one table: the export of a chain of N rows, each referencing the two
# before it, for N = 1,000 to 100,000 (the depth order is linear in rows).
source "$(dirname "$0")/../test/lib.sh"
cd "$EXWIW_ROOT"

scale_only=0
cold_only=0
[ "${1:-}" = "--scale" ] && scale_only=1
[ "${1:-}" = "--cold" ] && cold_only=1

dir=/tmp/subset-bench
rm -rf "$dir"
mkdir -p "$dir"
exwiw_setup
exwiw_tmp_install "$dir/inst"
exwiw_cluster_start "$dir" "${EXWIW_PORT:-5573}" "shared_buffers = 1GB" "max_locks_per_transaction = 1024"
PATH=$EXWIW_BIN:$PATH

now() { date +%s.%N; }

# scale: see the header.  Prints one line per shape.
scale_bench() {
	local shape ms_plan ms_export fail=0
	exwiw_log "scale: 1,000 tables as a chain, a star and a random graph"
	for shape in chain star random; do
		psql -X -q -v ON_ERROR_STOP=1 -v shape="$shape" <<'SQL'
SET client_min_messages = warning;
SET exwiw.shape = :'shape';
DROP SCHEMA IF EXISTS scale CASCADE;
CREATE SCHEMA scale;
SELECT setseed(0.5);
DO $$
DECLARE
	i int;
	p int;
	k int;
BEGIN
	FOR i IN 1..1000 LOOP
		EXECUTE format('CREATE TABLE scale.t%s (id int PRIMARY KEY, a int, b int, c int, note text)', i);
		IF i > 1 THEN
			IF current_setting('exwiw.shape') = 'chain' THEN
				EXECUTE format('ALTER TABLE scale.t%s ADD FOREIGN KEY (a) REFERENCES scale.t%s', i, i - 1);
			ELSIF current_setting('exwiw.shape') = 'star' THEN
				EXECUTE format('ALTER TABLE scale.t%s ADD FOREIGN KEY (a) REFERENCES scale.t1', i);
			ELSE
				FOR k IN 1..1 + (random() * 2)::int LOOP
					p := 1 + (random() * (i - 2))::int;
					EXECUTE format('ALTER TABLE scale.t%s ADD FOREIGN KEY (%s) REFERENCES scale.t%s',
								   i, (ARRAY['a', 'b', 'c'])[k], p);
				END LOOP;
			END IF;
			EXECUTE format('INSERT INTO scale.t%s VALUES (1, NULL, NULL, NULL, %L)', i, 'row of ' || i);
		END IF;
	END LOOP;
	INSERT INTO scale.t1 VALUES (1, NULL, NULL, NULL, 'root');
END $$;
SQL
		ms_plan=$(psql -X -At -c "SET search_path = scale, public" -c "SET client_min_messages = warning" \
			-c "\\timing on" -c "SELECT count(*) FROM exwiw_plan('t1', '{1}')" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p')
		ms_export=$(psql -X -At -c "SET search_path = scale, public" -c "SET client_min_messages = warning" \
			-c "\\timing on" -c "SELECT count(*) FROM exwiw_export('t1', '{1}')" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p')
		printf '1,000 tables, %-7s plan %8.1f ms   export %8.1f ms\n' "$shape:" "$ms_plan" "$ms_export"
		[ "$(echo "$ms_plan < 1000 && $ms_export < 5000" | bc)" -eq 1 ] || fail=1
	done
	psql -X -q -c "SET client_min_messages = warning" -c "DROP SCHEMA scale CASCADE"

	exwiw_log "scale: two self-references on one table"
	local n
	for n in 1000 10000 100000; do
		psql -X -q -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS selfref CASCADE;
CREATE SCHEMA selfref;
CREATE TABLE selfref.node (id int PRIMARY KEY, a int REFERENCES selfref.node, b int REFERENCES selfref.node, name text);
INSERT INTO selfref.node SELECT g, NULLIF(g - 1, 0), CASE WHEN g > 2 THEN g - 2 END, 'n' || g FROM generate_series(1, $n) g;
CREATE INDEX ON selfref.node (a);
CREATE INDEX ON selfref.node (b);
ANALYZE selfref.node;
SQL
		ms_export=$(psql -X -At -c "SET search_path = selfref, public" -c "SET client_min_messages = warning" \
			-c "\\timing on" -c "SELECT count(*) FROM exwiw_export('node', '{$n}')" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p')
		printf 'two self-references, %6d rows, all ancestors of the last: export %8.1f ms\n' "$n" "$ms_export"
	done
	psql -X -q -c "SET client_min_messages = warning" -c "DROP SCHEMA selfref CASCADE"
	return $fail
}

psql -X -q -c "CREATE EXTENSION exwiw"
if [ $scale_only -eq 1 ]; then
	scale_bench && echo PASS || { echo "FAIL: planning or exporting 1,000 tables is too slow"; exit 1; }
	exit 0
fi

exwiw_log "loading 1,000 shops, 1M orders"
t0=$(now)
psql -X -q -v ON_ERROR_STOP=1 -f test/subset/fixture.sql >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -f bench/shops_1000.sql
echo "data loaded in $(echo "$(now) - $t0" | bc) s"
psql -X -c "SELECT relname, n_live_tup FROM pg_stat_user_tables WHERE schemaname = 'shop' ORDER BY relname"

# cold: see the header
cold_bench() {
	local s conf ms_warm ms_cold
	export_one() {
		psql -X -q -v ON_ERROR_STOP=1 -o /dev/null -c "SET search_path = shop, public" -c "$1" -c "\\timing on" \
			-c "SELECT (e).file_name, (e).chunk FROM (SELECT exwiw_export('shops', '{$2}', (SELECT cfg FROM public.cold_cfg), allow_undecided => true) AS e) s" |
			sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p'
	}
	# the plan alone: what a cold session pays before any row of the tenant
	# (the library, the catalog, the config)
	plan_one() {
		psql -X -q -v ON_ERROR_STOP=1 -o /dev/null -c "SET search_path = shop, public" -c "\\timing on" \
			-c "SELECT count(*) FROM exwiw_plan('shops', '{$1}', (SELECT cfg FROM public.cold_cfg))" |
			sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p'
	}
	# the peer: plain SQL reading the same rows of the shop's big tables,
	# formatted as text, in one transaction (what any client would pay)
	peer_one() {
		psql -X -q -v ON_ERROR_STOP=1 -o /dev/null -c "\\timing on" -c "SELECT
			(SELECT sum(length(o::text)) FROM shop.orders o WHERE o.shop_id = $1),
			(SELECT sum(length(i::text)) FROM shop.order_items i WHERE i.order_id IN (SELECT id FROM shop.orders WHERE shop_id = $1)),
			(SELECT sum(length(t::text)) FROM shop.transactions t WHERE t.order_id IN (SELECT id FROM shop.orders WHERE shop_id = $1)),
			(SELECT sum(length(g::text)) FROM shop.order_tags g WHERE g.order_id IN (SELECT id FROM shop.orders WHERE shop_id = $1)),
			(SELECT sum(length(u::text)) FROM shop.users u WHERE u.shop_id = $1),
			(SELECT sum(length(p::text)) FROM shop.products p WHERE p.shop_id = $1)" |
			sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p'
	}
	cold_restart() {
		exwiw_as_server_user "$EXWIW_BIN/pg_ctl" -D "$dir/data" -m fast -w restart -l "$dir/server.log" >/dev/null
		sync
		echo 3 >/proc/sys/vm/drop_caches
	}
	printf 'load average: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
	printf '%-8s %-40s %10s %10s %7s\n' shop settings warm cold ratio
	for s in 500 17 233; do
		plan_one "$s" >/dev/null
		ms_warm=$(plan_one "$s")
		cold_restart
		ms_cold=$(plan_one "$s")
		printf '%-8s %-40s %7.1f ms %7.1f ms %6.1fx\n' "$s" "exwiw_plan only (no row read)" "$ms_warm" "$ms_cold" "$(echo "$ms_cold / $ms_warm" | bc -l)"
		peer_one "$s" >/dev/null
		ms_warm=$(peer_one "$s")
		cold_restart
		ms_cold=$(peer_one "$s")
		printf '%-8s %-40s %7.1f ms %7.1f ms %6.1fx\n' "$s" "plain SQL, the same rows (the peer)" "$ms_warm" "$ms_cold" "$(echo "$ms_cold / $ms_warm" | bc -l)"
		for conf in "${cold_confs[@]}"; do
			export_one "$conf" "$s" >/dev/null
			ms_warm=$(export_one "$conf" "$s")
			cold_restart
			ms_cold=$(export_one "$conf" "$s")
			printf '%-8s %-40s %7.1f ms %7.1f ms %6.1fx\n' "$s" "$conf" "$ms_warm" "$ms_cold" "$(echo "$ms_cold / $ms_warm" | bc -l)"
		done
	done
}
# the settings compared (COLD_CONFS: "|"-separated SET commands)
IFS='|' read -r -a cold_confs <<<"${COLD_CONFS:-SET exwiw.io_concurrency = 0|SET exwiw.io_concurrency = 16}"
if [ $cold_only -eq 1 ]; then
	psql -X -q -c "CREATE INDEX ON shop.transactions (order_id)" -c "ANALYZE shop.transactions"
	# the config computed once: the export reads the tenant's rows, not the
	# catalog inference's
	psql -X -q -c "SET search_path = shop, public" -c "SET client_min_messages = warning" \
		-c "CREATE TABLE public.cold_cfg AS SELECT exwiw_config_from_catalog() AS cfg"
	cold_bench
	exwiw_cluster_stop
	exit 0
fi

exwiw_log "the NOTICE for an unindexed foreign key, and the index it suggests"
psql -X -q -c "SET search_path = shop, public" -c "SELECT count(*) FROM exwiw_plan('shops', '{500}')" 2>&1 |
	grep -E 'NOTICE|HINT'
psql -X -q -c "CREATE INDEX ON shop.transactions (order_id)" -c "ANALYZE shop.transactions"

# Every export streams all its files to psql (the README's path), whose
# output goes to /dev/null, timed by psql's \timing, all in one session
# after a first export that warms the backend's caches.  The database
# (about 450 MB) fits in shared_buffers.  Each export runs twice: the first
# run of a shop is the first time this backend touches that shop's pages
# (a fixed cost per page, high in sandboxed VMs), the second is warm.  The
# criterion compares warm runs; the first runs are printed as well.
exwiw_log "export one shop vs all shops (one session)"
export_sql() {
	echo "SELECT (e).file_name, (e).chunk FROM (SELECT exwiw_export('shops', $1, allow_undecided => true) AS e) s;"
}
shops="500 17 233 734"
{
	echo "SET search_path = shop, public;"
	echo "\\o /dev/null"
	echo "\\timing on"
	export_sql "'{1}'"
	export_sql "(SELECT array_agg(id::text) FROM shop.shops)"
	export_sql "(SELECT array_agg(id::text) FROM shop.shops)"
	for s in $shops; do
		export_sql "'{$s}'"
		export_sql "'{$s}'"
	done
} | psql -X -q -v ON_ERROR_STOP=1 >"$dir/timing.txt"
mapfile -t ms < <(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' "$dir/timing.txt")
printf '%-16s %12s %12s\n' "" "first run" "second run"
printf '%-16s %9.1f ms %9.1f ms\n' "all 1,000 shops" "${ms[1]}" "${ms[2]}"
i=3
one_max=0
for s in $shops; do
	printf '%-16s %9.1f ms %9.1f ms\n' "shop $s" "${ms[$i]}" "${ms[$((i + 1))]}"
	one_max=$(printf '%s\n%s\n' "$one_max" "${ms[$((i + 1))]}" | sort -g | tail -1)
	first_max=$(printf '%s\n%s\n' "${first_max:-0}" "${ms[$i]}" | sort -g | tail -1)
	i=$((i + 2))
done
ratio=$(echo "scale=5; $one_max / ${ms[2]}" | bc)
ratio_first=$(echo "scale=5; $first_max / ${ms[1]}" | bc)
printf 'slowest one shop / all shops, second runs: %s (must be < 0.01)\n' "$ratio"
printf 'slowest one shop / all shops, first runs:  %s\n' "$ratio_first"

# bytes written, and a fresh session's first export (first planning of
# every query: a fixed cost per session)
psql -X -A -t -q -c "SET search_path = shop, public" -c "$(export_sql "'{500}'")" >"$dir/out.txt"
printf 'one shop writes %d bytes; ' "$(wc -c <"$dir/out.txt")"
psql -X -A -t -q -c "SET search_path = shop, public" \
	-c "$(export_sql "(SELECT array_agg(id::text) FROM shop.shops)")" >"$dir/out.txt"
printf 'all shops write %d bytes\n' "$(wc -c <"$dir/out.txt")"
t=$(date +%s.%N)
psql -X -A -t -q -c "SET search_path = shop, public" -c "$(export_sql "'{321}'")" >/dev/null
printf 'one shop in a new psql session, including its start: %.1f ms\n' \
	"$(echo "($(date +%s.%N) - $t) * 1000" | bc)"

exwiw_log "EXPLAIN of the one-shop queries of orders and order_items (exwiw_explain)"
psql -X -A -t -q -c "SET client_min_messages = warning" -c "SET search_path = shop, public" \
	-c "SELECT '--- ' || table_name || ' (' || array_to_string(indexes, ', ') || E')\n' || plan
	    FROM exwiw_explain('shops', '{500}', actual => true) WHERE table_name IN ('orders', 'order_items')"

echo "--- the tables' sizes, for the buffer counts above"
psql -X -q -c "SELECT relname, relpages, reltuples::bigint FROM pg_class
	WHERE relnamespace = 'shop'::regnamespace AND relname IN ('orders', 'order_items') ORDER BY 1"

# The Ruby client's two ways to scope a tenant, on the same data: the
# belongs_to walk from the target (the catalog's config, single-target
# mode), scope_column on every table that carries shop_id (scope-column
# mode), and scope-column mode with batch_scope on order_items and
# transactions (slices of 1,000 orders).  The files must be the same
# bytes (batches: the same lines, in batch order); time and the backend's peak private memory (RssAnon, sampled) for
# one shop and for all 1,000.
exwiw_log "the Ruby client's modes: belongs_to walk, scope_column, scope_column + batch_scope"
source "$EXWIW_ROOT/bench/common.sh"
psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
SET search_path = shop, public;
CREATE TABLE public.bench_cfg (mode text PRIMARY KEY, cfg jsonb);
INSERT INTO public.bench_cfg
SELECT 'walk', exwiw_config_from_catalog();
INSERT INTO public.bench_cfg
SELECT 'scope', jsonb_set(cfg, '{tables}', (
	SELECT jsonb_agg(CASE WHEN t ->> 'name' = 'shops' THEN t || '{"scope_column": "id"}'
					 WHEN t ->> 'name' IN ('users', 'products', 'orders') THEN t || '{"scope_column": "shop_id"}'
					 WHEN t ->> 'name' = 'announcements' THEN t || '{"scope_exempt": true}'
					 ELSE t END)
	FROM jsonb_array_elements(cfg -> 'tables') t))
FROM public.bench_cfg WHERE mode = 'walk';
INSERT INTO public.bench_cfg
SELECT 'batch', jsonb_set(cfg, '{tables}', (
	SELECT jsonb_agg(CASE WHEN t ->> 'name' IN ('order_items', 'transactions')
					 THEN t || '{"batch_scope": {"table": "orders", "size": 1000}}' ELSE t END)
	FROM jsonb_array_elements(cfg -> 'tables') t))
FROM public.bench_cfg WHERE mode = 'scope';
SQL
for ids in "'{500}'" "(SELECT array_agg(id::text) FROM shop.shops)"; do
	label=$([ "$ids" = "'{500}'" ] && echo "one shop" || echo "all shops")
	for mode in walk scope batch; do
		bench_run "$label, $mode" psql -X -A -t -q -o "$dir/mode-$mode.txt" -c "SET search_path = shop, public" \
			-c "SELECT (e).file_name, (e).chunk FROM (SELECT exwiw_export('shops', $ids, (SELECT cfg FROM public.bench_cfg WHERE mode = '$mode'), allow_undecided => true) AS e) s"
	done
	# batches order a file's rows batch after batch: the same rows, sorted
	# (a row ends with "," or ";" by where its statement ends, and the
	# first line of a chunk carries its file's name)
	if cmp -s "$dir/mode-walk.txt" "$dir/mode-scope.txt" &&
		cmp -s <(sed -e 's/^insert-[^|]*|//' -e 's/[,;]$//' "$dir/mode-scope.txt" | LC_ALL=C sort) \
			<(sed -e 's/^insert-[^|]*|//' -e 's/[,;]$//' "$dir/mode-batch.txt" | LC_ALL=C sort); then
		echo "$label: walk and scope write the same $(wc -c <"$dir/mode-walk.txt") bytes; batches the same lines in batch order"
	else
		echo "FAIL: $label: the modes write different files"
		exit 1
	fi
done

scale_ok=0
scale_bench || scale_ok=1

exwiw_cluster_stop
if [ $scale_ok -ne 0 ]; then
	echo "FAIL: planning or exporting 1,000 tables is too slow"
	exit 1
fi
if [ "$(echo "$ratio < 0.01" | bc)" -ne 1 ]; then
	echo "FAIL: one shop takes more than 1/100 of all shops"
	exit 1
fi
echo "PASS"
