#!/usr/bin/env bash
# test/t/cli_cancel.sh: SIGINT (Ctrl-C) and SIGTERM during an export.
#
# The export is made slow on purpose: masks that call pg_sleep(2) for every
# row of users, orders, products, order items and transactions, so that
# every worker is busy.  A signal half a second after every connection of
# the run is active must:
# - stop the server's work on every connection at once (PQcancel): no
#   backend of the run is left in pg_stat_activity half a second later,
#   although each one was inside a two-second pg_sleep;
# - remove the temporary directory, leave no output directory;
# - exit with 130 for SIGINT (143 for SIGTERM), saying "canceled".
# With -j 1 and -j 2 (one connection, then a worker connection as well).
# A real Ctrl-C in a terminal is tested by test/t/cli_progress.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/subset/lib.sh"
source "$root/test/cli/lib.sh"
cli_init cancel

psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
SET client_min_messages = warning;
DROP DATABASE IF EXISTS cli_cancel;
CREATE DATABASE cli_cancel;
SQL
psql -X -q -v ON_ERROR_STOP=1 -d cli_cancel -c "CREATE EXTENSION exwiw" -f "$root/test/subset/fixture.sql" >/dev/null
export PGDATABASE=cli_cancel PGOPTIONS='-c search_path=shop,public -c client_min_messages=warning'
sd=$(mktemp -d /tmp/exwiw-cli-cancel-schema.XXXXXX)
trap 'rm -rf "$work" "$sd"' EXIT
exwiw schema generate --from-db --schema-dir="$sd" >/dev/null
cat >"$sd/users.json" <<'JSON'
{"name": "users", "primary_key": "id",
 "belongs_tos": [{"foreign_key": "shop_id", "table_name": "shops"}],
 "columns": [{"name": "id"}, {"name": "shop_id"}, {"name": "email", "raw_sql": "NULL"},
             {"name": "name", "raw_sql": "users.name || pg_sleep(2)::text"},
             {"name": "phone", "raw_sql": "NULL"}, {"name": "vip"}]}
JSON
cat >"$sd/orders.json" <<'JSON'
{"name": "orders", "primary_key": "id",
 "belongs_tos": [{"foreign_key": "shop_id", "table_name": "shops"}, {"foreign_key": "user_id", "table_name": "users"}],
 "columns": [{"name": "id"}, {"name": "shop_id"}, {"name": "user_id"}, {"name": "ordered_at"},
             {"name": "total", "raw_sql": "orders.total + length(pg_sleep(2)::text)"}]}
JSON
cat >"$sd/products.json" <<'JSON'
{"name": "products", "primary_key": "id",
 "belongs_tos": [{"foreign_key": "category_id", "table_name": "categories"}, {"foreign_key": "shop_id", "table_name": "shops"}],
 "columns": [{"name": "id"}, {"name": "shop_id"}, {"name": "category_id"},
             {"name": "name", "raw_sql": "products.name || pg_sleep(2)::text"}, {"name": "price"}]}
JSON
cat >"$sd/order_items.json" <<'JSON'
{"name": "order_items", "primary_key": "id",
 "belongs_tos": [{"foreign_key": "order_id", "table_name": "orders"}, {"foreign_key": "product_id", "table_name": "products"}],
 "columns": [{"name": "id"}, {"name": "order_id"}, {"name": "product_id"},
             {"name": "quantity", "raw_sql": "order_items.quantity + length(pg_sleep(2)::text)"}]}
JSON
cat >"$sd/transactions.json" <<'JSON'
{"name": "transactions", "primary_key": "id",
 "belongs_tos": [{"foreign_key": "order_id", "table_name": "orders"}],
 "columns": [{"name": "id"}, {"name": "order_id"}, {"name": "amount"},
             {"name": "card_last4", "raw_sql": "transactions.card_last4 || pg_sleep(2)::text"}]}
JSON

run_and_signal() {
	local label=$1 sig=$2 want=$3 jobs=$4
	local app="exwiw_cancel_$$_$RANDOM" pid rc=0 n
	PGAPPNAME=$app exwiw --target-table=shops --ids=1,2,3 --schema-dir="$sd" --allow-undecided \
		-j "$jobs" -o "$work/out" 2>"$work/.stderr" &
	pid=$!
	# wait until the run's backends are busy (the bounds only catch a hang:
	# the transactions' masks sleep 2 s a row, so the run is still busy)
	deadline=$((SECONDS + 300))
	while :; do
		n=$(psql -X -At -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = '$app' AND state = 'active'")
		[ "$n" -ge "$jobs" ] || [ $SECONDS -ge $deadline ] && break
		sleep 0.1
	done
	if [ "$n" -lt "$jobs" ]; then
		not_ok "$label: $n of $jobs connections became active"
	fi
	kill -"$sig" $pid
	wait $pid || rc=$?
	# the backends end once their cancel is served and the client has gone
	deadline=$((SECONDS + 60))
	while :; do
		n=$(psql -X -At -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = '$app'")
		[ "$n" -eq 0 ] || [ $SECONDS -ge $deadline ] && break
		sleep 0.1
	done
	if [ $rc -ne "$want" ]; then
		not_ok "$label: exit status $rc, $want expected ($(cat "$work/.stderr"))"
	elif [ "$n" -ne 0 ]; then
		not_ok "$label: $n backends of the run still there a minute later"
	elif [ -n "$(ls -A "$work" | grep -v '^\.stderr$')" ]; then
		not_ok "$label: left $(ls -A "$work")"
	elif ! grep -q '^exwiw: error: canceled by' "$work/.stderr"; then
		not_ok "$label: no message: $(cat "$work/.stderr")"
	else
		ok "$label: exit $rc, every backend stopped, nothing left ($(head -1 "$work/.stderr"))"
	fi
	rm -f "$work/.stderr"
}

run_and_signal "SIGINT, -j 1" INT 130 1
run_and_signal "SIGINT, -j 2" INT 130 2
run_and_signal "SIGTERM, -j 2" TERM 143 2

exit $fail
