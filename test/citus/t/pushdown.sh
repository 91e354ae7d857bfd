#!/usr/bin/env bash
# test/citus/t/pushdown.sh: exwiw functions inside queries that Citus pushes
# down to the workers.  A function call in a query on distributed tables
# runs on the worker, inside the task's connection, against the shard.
#   - exwiw_ext_json(t) of a shard's row is the same document (the column
#     names are the table's): it works, byte for byte.
#   - exwiw_dump, exwiw_dump_jsonl and exwiw_export of a query on
#     distributed tables, called from a pushed-down query, would start a
#     distributed query from inside a task: Citus refuses it (the exact
#     message is checked below) unless the role sets
#     citus.allow_nested_distributed_execution.
#   - exwiw_export/exwiw_plan/exwiw_config_from_catalog pushed down would
#     see the worker's catalog from a task connection, where Citus shows the
#     shards: exwiw refuses to run there (a task's application_name is
#     "citus_internal gpid=..."), with an error that says where to call it.
source "$(dirname "$0")/../lib.sh"
PATH=$EXWIW_BIN:$PATH
work=$(mktemp -d /tmp/exwiw-citus-pushdown.XXXXXX)
trap 'cq -q -c "ALTER ROLE postgres RESET citus.allow_nested_distributed_execution" >/dev/null 2>&1; rm -rf "$work"' EXIT

nested="cannot execute a distributed query from a query on a shard"

# expect_error DESC SQL MESSAGE: ok when SQL fails on the coordinator with MESSAGE
expect_error() {
	local desc=$1 sql=$2 msg=$3 out
	if out=$(cq -XAtq -v ON_ERROR_STOP=1 -c "SET search_path = shop, public" -c "$sql" 2>&1); then
		citus_not_ok "$desc: expected \"$msg\", but it ran"
	elif echo "$out" | grep -qF -- "$msg"; then
		citus_ok "$desc: refused: $(echo "$out" | grep -m1 ERROR)"
	else
		citus_not_ok "$desc: expected \"$msg\", got: $(echo "$out" | grep -m1 ERROR)"
	fi
}

# exwiw_ext_json on the workers
sql="SELECT exwiw_ext_json(t) FROM shop.users t ORDER BY id"
plan=$(cq -XAtq -c "EXPLAIN (VERBOSE, COSTS OFF) $sql" | grep -m1 'Query:' | sed 's/^ *//')
citus_note "pushed down: $plan"
cq -XAtq -c "$sql" >"$work/c.txt"
pq -XAtq -c "$sql" >"$work/p.txt"
citus_same "$work/c.txt" "$work/p.txt" "exwiw_ext_json(t) over a distributed table, evaluated on the workers: byte-identical to the plain node"
sql="SELECT exwiw_ext_json(t, omit_nulls => true) FROM shop.users t WHERE shop_id = 7 ORDER BY id"
cq -XAtq -c "$sql" >"$work/c.txt"
pq -XAtq -c "$sql" >"$work/p.txt"
citus_same "$work/c.txt" "$work/p.txt" "exwiw_ext_json(t, omit_nulls => true) in a router query: byte-identical"
sql="SELECT count(*) FROM shop.users u WHERE exwiw_ext_json(u) LIKE '%O''Brien%'"
if [ "$(cq -XAtq -c "$sql")" = "$(pq -XAtq -c "$sql")" ]; then
	citus_ok "exwiw_ext_json in the WHERE clause of a multi-shard query: the same count"
else
	citus_not_ok "exwiw_ext_json in the WHERE clause of a multi-shard query: another count"
fi
sql="SELECT exwiw_dump('SELECT exwiw_ext_json(t) AS doc FROM shop.orders t WHERE shop_id = 7 ORDER BY id', 'docs')"
cq -XAtq -c "$sql" >"$work/c.txt"
pq -XAtq -c "$sql" >"$work/p.txt"
citus_same "$work/c.txt" "$work/p.txt" "exwiw_dump of a query that calls exwiw_ext_json on the workers: byte-identical"

# nested distributed execution
expect_error "exwiw_dump of a distributed query, called per row of a router query" \
	"SELECT exwiw_dump(format('SELECT * FROM shop.orders WHERE id = %s', o.id), 'orders') FROM shop.orders o WHERE shop_id = 7" "$nested"
expect_error "exwiw_dump of a distributed query, called per row of a multi-shard query" \
	"SELECT exwiw_dump('SELECT * FROM shop.orders WHERE shop_id = ' || s.id, 'orders') FROM shop.shops s" "$nested"
expect_error "exwiw_dump_jsonl of a distributed query, in a pushed-down query" \
	"SELECT exwiw_dump_jsonl('SELECT * FROM shop.users WHERE shop_id = ' || s.id) FROM shop.shops s WHERE id = 7" "$nested"
expect_error "exwiw_dump in a CTE (even MATERIALIZED) of a router query: Citus ships the whole query, the CTE too, to the worker" \
	"WITH d AS MATERIALIZED (SELECT exwiw_dump('SELECT * FROM shop.orders WHERE shop_id = 7', 'orders') AS c) SELECT count(*) FROM d JOIN shop.shops s ON s.id = 7" "$nested"
cq -q -v ON_ERROR_STOP=1 -c "CREATE TABLE public.chunks (shop_id bigint, chunk text)" \
	-c "SELECT create_distributed_table('public.chunks', 'shop_id', colocate_with => 'shop.shops')" >/dev/null
expect_error "INSERT INTO a co-located table SELECT exwiw_dump(...) FROM shops (pushed down)" \
	"INSERT INTO public.chunks SELECT s.id, exwiw_dump('SELECT * FROM shop.orders WHERE shop_id = ' || s.id, 'orders') FROM shop.shops s WHERE s.id = 7" "$nested"
out=$(cq -XAtq -c "INSERT INTO public.chunks SELECT 7, exwiw_dump('SELECT * FROM shop.orders WHERE shop_id = 7', 'orders')" \
	-c "SELECT count(*) FROM public.chunks" 2>&1 || true)
[ "$out" = 1 ] && citus_ok "INSERT INTO a distributed table SELECT exwiw_dump(...) without FROM: runs on the coordinator" ||
	citus_not_ok "INSERT INTO a distributed table SELECT exwiw_dump(...) without FROM: $out"
cq -q -c "DROP TABLE public.chunks"
pushed="cannot run inside a query that Citus runs on a worker"
expect_error "exwiw_export with a qualified config, in a pushed-down query" \
	"SELECT exwiw_export('shop.shops', ARRAY[s.id::text], (SELECT exwiw_config_from_catalog('shop'))) FROM shop.shops s WHERE id = 7" "$pushed"
expect_error "exwiw_export('shops', ...) with the catalog config, pushed down" \
	"SELECT exwiw_export('shops', ARRAY[s.id::text]) FROM shops s WHERE id = 7" "$pushed"
expect_error "exwiw_plan, pushed down" \
	"SELECT exwiw_plan('shops', ARRAY[s.id::text]) FROM shops s WHERE id = 7" "$pushed"
expect_error "exwiw_config_from_catalog('shop'), pushed down (the worker's catalog lists the shards)" \
	"SELECT exwiw_config_from_catalog('shop') FROM shop.shops s WHERE id = 7" "$pushed"
app=$(cq -XAtq -c "SELECT current_setting('application_name') FROM shop.shops WHERE id = 7")
case $app in
"citus_internal gpid="*) citus_ok "a pushed-down call can tell it runs in a Citus task: application_name is '$app'" ;;
*) citus_not_ok "application_name inside a task is '$app'" ;;
esac

# what still works: a dump of a query that does not read distributed
# tables, on the workers; a dump sent to the workers as a command
out=$(cq -XAtq -c "SELECT count(*) FROM (SELECT exwiw_dump(format('SELECT %s AS x', o.id), 'x') FROM shop.orders o) s")
[ "$out" = "$(pq -XAtq -c "SELECT count(*) FROM shop.orders")" ] &&
	citus_ok "exwiw_dump of a query that reads no distributed table, per row of a multi-shard query: runs on the workers" ||
	citus_not_ok "exwiw_dump of a non-distributed query per row: $out"
out=$(cq -XAtq -c "SELECT string_agg(success::text || ':' || result, ' ') FROM run_command_on_workers(\$\$SELECT count(*) FROM exwiw_dump('SELECT * FROM shop.orders', 'orders')\$\$)")
[ "$out" = "true:1 true:1" ] && citus_ok "exwiw_dump of a multi-shard query sent to each worker by run_command_on_workers: runs ($out)" ||
	citus_not_ok "run_command_on_workers exwiw_dump: $out"

# with nested execution allowed (per role, as Citus's HINT says)
cq -q -c "ALTER ROLE postgres SET citus.allow_nested_distributed_execution = on"
sql="SELECT string_agg(c, E'\n') FROM (SELECT exwiw_dump(format('SELECT * FROM shop.orders WHERE shop_id = 7 AND id = %s', o.id), 'orders') c FROM shop.orders o WHERE shop_id = 7 ORDER BY o.id) s"
if cq -XAtq -c "$sql" >"$work/c.txt" 2>"$work/err"; then
	pq -XAtq -c "$sql" >"$work/p.txt"
	citus_same "$work/c.txt" "$work/p.txt" "with ALTER ROLE ... SET citus.allow_nested_distributed_execution = on, per-row exwiw_dump in a router query runs on the worker and equals the plain node's"
else
	citus_not_ok "with citus.allow_nested_distributed_execution = on: $(grep -m1 ERROR "$work/err")"
fi
cq -q -c "ALTER ROLE postgres RESET citus.allow_nested_distributed_execution"
