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
# prints the times and their ratio (required: under 1/100), and EXPLAINs
# the one-shop queries of the two biggest tables to show the foreign-key
# indexes at work.  Before that it shows the NOTICE for the one foreign key
# the fixture leaves unindexed, and creates the index it suggests.
source "$(dirname "$0")/../test/lib.sh"
cd "$EXWIW_ROOT"

dir=/tmp/subset-bench
rm -rf "$dir"
mkdir -p "$dir"
exwiw_setup
exwiw_tmp_install "$dir/inst"
exwiw_cluster_start "$dir" "${EXWIW_PORT:-5573}"
PATH=$EXWIW_BIN:$PATH

now() { date +%s.%N; }

exwiw_log "loading 1,000 shops, 1M orders"
t0=$(now)
psql -X -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION exwiw" -f test/subset/fixture.sql >/dev/null
psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
SET search_path = shop;
TRUNCATE shops, users, categories, products, orders, order_items, transactions,
	order_tags, announcements RESTART IDENTITY;
INSERT INTO shops (name) SELECT 'shop ' || i FROM generate_series(1, 1000) i;
INSERT INTO categories (parent_id, name) SELECT NULL, 'root ' || i FROM generate_series(1, 10) i;
INSERT INTO categories (parent_id, name) SELECT 1 + i % 10, 'cat ' || i FROM generate_series(1, 90) i;
-- users, products and orders of shop s have ids s + 1000 k
INSERT INTO users (shop_id, email, name, phone)
	SELECT 1 + i % 1000, 'u' || i || '@x.test', 'user ' || i, '555-' || i
	FROM generate_series(0, 19999) i;
INSERT INTO products (shop_id, category_id, name, price)
	SELECT 1 + i % 1000, 1 + i % 100, 'product ' || i, (i % 100) + 0.99
	FROM generate_series(0, 49999) i;
INSERT INTO orders (shop_id, user_id, ordered_at, total)
	SELECT 1 + i % 1000, 1 + i % 1000 + 1000 * ((i / 1000) % 20),
		   timestamptz '2026-01-01' + i * interval '1 minute', (i % 500) + 0.5
	FROM generate_series(0, 999999) i;
INSERT INTO order_items (order_id, product_id, quantity)
	SELECT o.id, o.shop_id + 1000 * ((o.id + j) % 50), j
	FROM orders o, generate_series(1, 2) j;
INSERT INTO transactions (order_id, amount, card_last4)
	SELECT id, total, lpad((id % 10000)::text, 4, '0') FROM orders;
INSERT INTO order_tags SELECT id, 'gift' FROM orders WHERE id % 10 = 0;
INSERT INTO announcements (body) SELECT 'news ' || i FROM generate_series(1, 10) i;
VACUUM ANALYZE;
SQL
echo "data loaded in $(echo "$(now) - $t0" | bc) s"
psql -X -c "SELECT relname, n_live_tup FROM pg_stat_user_tables WHERE schemaname = 'shop' ORDER BY relname"

exwiw_log "the NOTICE for an unindexed foreign key, and the index it suggests"
psql -X -q -c "SET search_path = shop, public" -c "SELECT count(*) FROM exwiw_plan('shops', '{500}')" 2>&1 |
	grep -E 'NOTICE|HINT'
psql -X -q -c "CREATE INDEX ON shop.transactions (order_id)" -c "ANALYZE shop.transactions"

# export TARGET-IDS-SQL: stream every file to /dev/null; print seconds
export_time() {
	local t
	t=$(now)
	psql -X -A -t -q -v ON_ERROR_STOP=1 -c "SET search_path = shop, public" \
		-c "SELECT (e).file_name, (e).chunk FROM (SELECT exwiw_export('shops', $1) AS e) s" >"$dir/out.txt"
	echo "$(now) - $t" | bc
}

exwiw_log "export one shop vs all shops"
export_time "'{500}'" >/dev/null # warm the cache
one=$(export_time "'{500}'")
one_bytes=$(wc -c <"$dir/out.txt")
one2=$(export_time "'{17}'")
all=$(export_time "(SELECT array_agg(id::text) FROM shop.shops)")
all_bytes=$(wc -c <"$dir/out.txt")
ratio=$(echo "scale=5; $one / $all" | bc)
printf 'one shop (500):  %8.3f s  %12d bytes\n' "$one" "$one_bytes"
printf 'one shop (17):   %8.3f s\n' "$one2"
printf 'all 1,000 shops: %8.3f s  %12d bytes\n' "$all" "$all_bytes"
printf 'ratio one/all:   %8.5f (must be < 0.01)\n' "$ratio"

exwiw_log "EXPLAIN of the one-shop queries of orders and order_items"
for t in orders order_items; do
	q=$(psql -X -A -t -q -c "SET client_min_messages = warning" -c "SET search_path = shop, public" \
		-c "SELECT query FROM exwiw_plan('shops', '{500}') WHERE table_name = '$t'")
	echo "--- $t"
	psql -X -q -c "SET search_path = shop, public" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $q"
done

exwiw_cluster_stop
if [ "$(echo "$ratio < 0.01" | bc)" -ne 1 ]; then
	echo "FAIL: one shop takes more than 1/100 of all shops"
	exit 1
fi
echo "PASS"
