#!/usr/bin/env bash
# test/citus/t/dump.sh: exwiw_dump and exwiw_dump_jsonl over distributed,
# reference and local tables through the coordinator write, with a
# deterministic ORDER BY, exactly the bytes the same query writes on the
# plain node (INSERT, INSERT split every 100 rows, COPY, JSON Lines), and
# so does exwiw_dump run on a worker.  Without ORDER BY a multi-shard
# query returns the shards' rows in completion order: reported.
source "$(dirname "$0")/../lib.sh"
PATH=$EXWIW_BIN:$PATH
work=$(mktemp -d /tmp/exwiw-citus-dump.XXXXXX)
trap 'rm -rf "$work"' EXIT

# out NODE SQL > FILE: psql's unaligned tuples-only output (the README's recipe)
out() { local node=$1; shift; "$node" -XAtq -v ON_ERROR_STOP=1 -c "$1"; }

# table, ORDER BY, what it is
while read -r table order kind; do
	q="SELECT * FROM shop.$table ORDER BY $order"
	for variant in insert split copy jsonl; do
		case $variant in
		insert) sql="SELECT exwiw_dump('$q', '$table')" ;;
		split) sql="SELECT exwiw_dump('$q', '$table', rows_per_statement => 100)" ;;
		copy) sql="SELECT exwiw_dump('$q', '$table', format => 'copy')" ;;
		jsonl) sql="SELECT exwiw_dump_jsonl('$q')" ;;
		esac
		out cq "$sql" >"$work/c.txt"
		out pq "$sql" >"$work/p.txt"
		if [ ! -s "$work/p.txt" ]; then
			citus_not_ok "$table: the plain node's $variant dump is empty"
			continue
		fi
		citus_same "$work/c.txt" "$work/p.txt" \
			"$kind $table, $variant: the coordinator's dump is byte-identical to the plain node's ($(wc -c <"$work/p.txt") bytes)"
	done
done <<'EOF'
orders id distributed
order_items id distributed
order_tags shop_id,order_id,tag distributed-composite-key
users id distributed
shops id distributed-by-its-key
categories id reference
shop_notes id local
EOF

# a worker is a full client of the cluster too (Citus 11+ syncs metadata)
sql="SELECT exwiw_dump('SELECT * FROM shop.orders ORDER BY id', 'orders')"
out w2 "$sql" >"$work/w.txt"
out pq "$sql" >"$work/p.txt"
citus_same "$work/w.txt" "$work/p.txt" "exwiw_dump run in a session on a worker (a multi-shard query from there) equals the plain node's"

# one tenant, one shard: the router path
sql="SELECT exwiw_dump('SELECT * FROM shop.order_items WHERE shop_id = 7 ORDER BY id', 'order_items')"
out cq "$sql" >"$work/c.txt"
out pq "$sql" >"$work/p.txt"
citus_same "$work/c.txt" "$work/p.txt" "one tenant's rows (a router query to one worker): byte-identical"

# no ORDER BY: same rows, in another order
sql="SELECT exwiw_dump('SELECT * FROM shop.orders', 'orders', rows_per_statement => 1)"
out cq "$sql" | sort >"$work/c.txt"
out pq "$sql" | sort >"$work/p.txt"
citus_same "$work/c.txt" "$work/p.txt" "without ORDER BY: the same rows (sorted lines compared)"
if cmp -s <(out cq "$sql") <(out pq "$sql"); then
	citus_note "without ORDER BY the coordinator happened to return the plain node's order"
else
	citus_note "without ORDER BY the rows come in another order than on the plain node (shard by shard):" \
		"a byte-exact file needs an ORDER BY, as any multi-shard query does"
fi
