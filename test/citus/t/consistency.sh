#!/usr/bin/env bash
# test/citus/t/consistency.sh: the one-snapshot question on Citus.
#
# On a single node exwiw_export reads every table from one snapshot
# (test/t/subset_consistency.sh).  Citus has no global snapshot: each
# worker connection takes its own.  This test measures what still holds,
# like test/t/subset_consistency.sh: a writer commits as fast as it can
# while shop $shop (whose rows all live on one worker, co-located) is
# exported with config-tenant.json, every table's query slowed by a
# 0.2 s filter on shops so that the tables are read seconds apart.  Each
# iteration of the writer commits two transactions:
#   tenant:    insert an order of the shop with 2 items, a transaction and
#              a tag, and delete the shop's oldest order (cascading) -- one
#              shard group, one worker, no 2PC;
#   reference: insert a category (a reference table, on all three nodes),
#              point one product of the shop at it and delete the previous
#              one -- a 2PC transaction over the coordinator and workers.
# An export is consistent when its files load into a copy of the schema
# without foreign keys and then every foreign key of foreign_keys.sql
# validates (the tenant keys (shop_id, order_id) -> orders, and
# products.category_id -> categories).
#
# Modes: the plain node (the control: must always hold); Citus in
# autocommit (the README's one-statement export); Citus inside
# BEGIN ISOLATION LEVEL REPEATABLE READ; and the same with local execution
# off (reference tables then read on a worker, not the coordinator).
# Findings are printed as "# ..." lines; the assertions are the control and
# the guarantee this test establishes for Citus (see the summary lines).
source "$(dirname "$0")/../lib.sh"
PATH=$EXWIW_BIN:$PATH
source "$EXWIW_ROOT/test/subset/lib.sh"
shop=7
runs=${CITUS_CONSISTENCY_RUNS:-3}
work=$(mktemp -d /tmp/exwiw-citus-consistency.XXXXXX)
chmod 755 "$work"
writer_pids=()
cleanup() {
	local p
	for p in "$CITUS_COORD_PORT" "$CITUS_PLAIN_PORT"; do
		psql -X -q -h 127.0.0.1 -p "$p" -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
			WHERE application_name = 'exwiw_citus_writer'" >/dev/null 2>&1 || true
	done
	for p in "${writer_pids[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT

worker=$(cq -XAtq -c "SELECT nodeport FROM pg_dist_shard_placement
	WHERE shardid = get_shard_id_for_distribution_column('shop.shops', $shop)")
echo "# shop $shop lives on the worker at port $worker"

# the config, with a 0.2 s sleep in the shops seed of every tenant query;
# and the same with the reference tables "pinned" to the tenant's worker: a
# filter that joins the tenant's shops row makes their queries router
# queries to that worker (EXPLAIN: Task Count 1, the tenant's node) instead
# of reads of the coordinator's own replica
cfg=$(cq -XAtq -v cfg="$(cat "$CITUS_DIR/config-tenant.json")" <<'SQL'
SELECT jsonb_build_object('tables', jsonb_agg(CASE t ->> 'name' WHEN 'shops'
	THEN t || '{"filter": "(SELECT pg_sleep(0.2)) IS NOT NULL"}' ELSE t END))
FROM jsonb_array_elements(:'cfg'::jsonb -> 'tables') t;
SQL
)
cfg_pinned=$(cq -XAtq -v cfg="$cfg" <<SQL
SELECT jsonb_build_object('tables', jsonb_agg(CASE WHEN t ->> 'name' IN ('categories', 'announcements')
	THEN t || '{"filter": "EXISTS (SELECT FROM shop.shops WHERE id = $shop)"}' ELSE t END))
FROM jsonb_array_elements(:'cfg'::jsonb -> 'tables') t;
SQL
)

setup_writer() {
	"$@" -q -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
DROP TABLE IF EXISTS public.writer_state;
CREATE TABLE public.writer_state (iterations bigint NOT NULL, stop boolean NOT NULL);
INSERT INTO public.writer_state VALUES (0, false);
SQL
}

# start_writer PSQL...: the writer, through the coordinator or the plain node
start_writer() {
	PGAPPNAME=exwiw_citus_writer "$@" -q >"$work/writer.log" 2>&1 <<SQL &
SET search_path = shop, public;
DO \$\$
DECLARE
	o bigint;
	c integer := 1000000 + (SELECT coalesce(max(id), 0) FROM categories);
	p bigint := (SELECT min(id) FROM products WHERE shop_id = $shop);
	started timestamptz := clock_timestamp();
BEGIN
	LOOP
		INSERT INTO orders (shop_id, user_id, ordered_at, total)
			VALUES ($shop, $shop, now(), 1) RETURNING id INTO o;
		INSERT INTO order_items (shop_id, order_id, product_id, quantity)
			VALUES ($shop, o, p, 1), ($shop, o, p, 2);
		INSERT INTO transactions (shop_id, order_id, amount) VALUES ($shop, o, 1);
		INSERT INTO order_tags (shop_id, order_id, tag) VALUES ($shop, o, 'new');
		DELETE FROM orders WHERE shop_id = $shop AND id = (SELECT min(id) FROM orders WHERE shop_id = $shop);
		COMMIT;
		c := c + 1;
		INSERT INTO categories (id, parent_id, name) VALUES (c, 1, 'writer ' || c);
		UPDATE products SET category_id = c WHERE shop_id = $shop AND id = p;
		DELETE FROM categories WHERE id = c - 1 AND id > 1000000;
		UPDATE public.writer_state SET iterations = iterations + 1;
		COMMIT;
		EXIT WHEN (SELECT stop FROM public.writer_state)
			OR clock_timestamp() > started + interval '300 s';
	END LOOP;
END
\$\$;
SQL
	writer_pids+=($!)
}

stop_writer() {
	"$@" -q -c "UPDATE public.writer_state SET stop = true"
	wait "${writer_pids[-1]}" || true
	if grep -q ERROR "$work/writer.log"; then
		echo "not ok - the writer failed"
		cat "$work/writer.log"
	fi
}

iterations() { "$@" -XAtq -c "SELECT iterations FROM public.writer_state"; }

# check DIR: load DIR into a fresh copy of the schema without foreign keys
# on the plain node, then add each foreign key; prints the keys that fail
check() {
	local dir=$1
	pq -q -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS citus_dst" -c "CREATE DATABASE citus_dst"
	pq -q -v ON_ERROR_STOP=1 -d citus_dst -f "$CITUS_DIR/schema.sql" >/dev/null
	if ! PGOPTIONS='-c search_path=shop' subset_load_files "$dir" -h 127.0.0.1 -p "$CITUS_PLAIN_PORT" \
		-d citus_dst >/dev/null 2>"$work/load.err"; then
		echo "(the files do not load: $(grep -m1 ERROR "$work/load.err"))"
		return
	fi
	local fk bad=()
	while IFS= read -r fk; do
		case $fk in ALTER*) ;; *) continue ;; esac
		if ! pq -q -d citus_dst -c "SET search_path = shop" -c "$fk" >/dev/null 2>"$work/fk.err"; then
			bad+=("$(echo "$fk" | sed -E 's/ALTER TABLE ([a-z_]+) ADD FOREIGN KEY \(([^)]*)\) REFERENCES ([a-z_]+).*/\1(\2)->\3/')")
		fi
	done <"$CITUS_DIR/foreign_keys.sql"
	echo "${bad[*]}"
}

# export_run MODE PREFIX SUFFIX NODE(cq|pq) [CONFIG]: one export, checked;
# PREFIX and SUFFIX are SQL around the export's SELECT in the same query
# string
declare -A consistent total tenant_ok
export_run() {
	local mode=$1 prefix=$2 suffix=$3 node=$4 cfg=${5:-$cfg}
	local dir=$work/$mode-$RANDOM before after bad port=$CITUS_COORD_PORT
	[ "$node" = pq ] && port=$CITUS_PLAIN_PORT
	before=$(iterations "$node")
	subset_write_files "$dir" -h 127.0.0.1 -p "$port" -c "SET client_min_messages = warning" \
		-c "SET search_path = shop, public" -c "$prefix SELECT file_name, chunk FROM exwiw_export('shops', '{$shop}', '$cfg') $suffix"
	after=$(iterations "$node")
	bad=$(check "$dir")
	total[$mode]=$((${total[$mode]:-0} + 1))
	case $bad in *"->orders"*) ;; *) tenant_ok[$mode]=$((${tenant_ok[$mode]:-0} + 1)) ;; esac
	if [ -z "$bad" ]; then
		consistent[$mode]=$((${consistent[$mode]:-0} + 1))
		echo "# $mode: export during $((after - before)) writer iterations: consistent"
	else
		echo "# $mode: export during $((after - before)) writer iterations: INCONSISTENT, failing foreign keys: $bad"
	fi
	rm -rf "$dir"
}

# --- control: the plain node -------------------------------------------
# the writers change the shop data: the next test needs it reloaded
touch "${CITUS_WORK:-$work}/dirty"
setup_writer pq
start_writer pq
sleep 0.5
for i in $(seq "$runs"); do
	export_run plain "" "" pq
done
stop_writer pq

# --- Citus ---------------------------------------------------------------
setup_writer cq
start_writer cq
sleep 0.5
for i in $(seq "$runs"); do
	export_run citus-autocommit "" "" cq
	# psql -c with several statements runs them in one transaction block
	export_run citus-repeatable-read "BEGIN ISOLATION LEVEL REPEATABLE READ;" "; COMMIT;" cq
	export_run citus-rr-no-local-exec "SET citus.enable_local_execution = off; BEGIN ISOLATION LEVEL REPEATABLE READ;" "; COMMIT;" cq
	export_run citus-rr-pinned "BEGIN ISOLATION LEVEL REPEATABLE READ;" "; COMMIT;" cq "$cfg_pinned"
done
stop_writer cq

for mode in plain citus-autocommit citus-repeatable-read citus-rr-no-local-exec citus-rr-pinned; do
	echo "# summary: $mode: ${consistent[$mode]:-0} of ${total[$mode]:-0} exports consistent," \
		"${tenant_ok[$mode]:-0} of ${total[$mode]:-0} consistent in the tenant's own (distributed) tables"
done
# ok_if COND MESSAGE
ok_if() { if [ "$1" -eq "$2" ]; then echo "ok - $3"; else echo "not ok - $3 ($1 of $2)"; fi; }
ok_if "${consistent[plain]:-0}" "$runs" "control: on the plain node every export taken during the writes is consistent"
ok_if "${tenant_ok[citus-repeatable-read]:-0}" "$runs" \
	"Citus, REPEATABLE READ: a one-worker tenant's distributed tables are consistent (one worker connection, one snapshot)"
ok_if "${consistent[citus-rr-pinned]:-0}" "$runs" \
	"Citus, REPEATABLE READ, reference tables read through the tenant's worker: the whole export is consistent"
pq -q -c "DROP DATABASE IF EXISTS citus_dst"
cq -q -c "DROP TABLE public.writer_state"
pq -q -c "DROP TABLE public.writer_state"
