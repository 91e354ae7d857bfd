#!/usr/bin/env bash
# test/t/cli_explain.sh: exwiw explain prints the plan, one line per table
# ("[seq/n] table -> file  ~rows  indexes: ...  query: ..."), in file
# order, with the planner's row estimates and the indexes the queries use;
# --verbose adds each EXPLAIN plan, --analyze runs the queries.  Nothing is
# written.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/subset/lib.sh"
source "$root/test/cli/lib.sh"
cli_init explain

psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
SET client_min_messages = warning;
DROP DATABASE IF EXISTS cli_explain;
CREATE DATABASE cli_explain;
SQL
psql -X -q -v ON_ERROR_STOP=1 -d cli_explain -c "CREATE EXTENSION exwiw" -f "$root/test/subset/fixture.sql" >/dev/null
# enough orders of another shop that the planner reads shop 1's through the index
psql -X -q -d cli_explain -c "INSERT INTO shop.orders (shop_id, user_id, ordered_at, total)
	SELECT 3, 4, now(), g FROM generate_series(1, 20000) g" -c "ANALYZE"
export PGDATABASE=cli_explain PGOPTIONS='-c search_path=shop,public -c client_min_messages=warning'
exwiw schema generate --from-db --schema-dir="$work/schema" >/dev/null

cd "$work"
exwiw explain --target-table=shops --ids=1 --schema-dir="$work/schema" >"$work/plan.txt"
n=$(wc -l <"$work/plan.txt")
if [ "$n" -eq 9 ] && grep -qE '^\[3/9\] shops -> insert-003-shops\.sql  ~[0-9,]+ rows  indexes: ([a-z_, ]+|\(none\))  query: SELECT shops\.id, shops\.name FROM ' "$work/plan.txt" &&
	grep -qE '^\[6/9\] orders -> insert-006-orders\.sql  ~[0-9,]+ rows  indexes: [a-z_, ]*orders_pkey[a-z_, ]*  query: SELECT .* ORDER BY orders\.id$' "$work/plan.txt" &&
	[ "$(ls -A "$work" | tr '\n' ' ')" = "plan.txt schema " ]; then
	ok "one line per table: file, estimated rows, indexes, query; nothing written"
else
	not_ok "explain output:"
	cat "$work/plan.txt"
fi
# (PostgreSQL 18 prints actual rows with two decimals: "rows=4.00")
exwiw explain --target-table=shops --ids=1 --schema-dir="$work/schema" --verbose --analyze >"$work/plan2.txt"
if grep -qE '^    .*\(actual rows=[0-9.]+ loops=[0-9]+\)' "$work/plan2.txt" && grep -qE '^    +Buffers: ' "$work/plan2.txt" &&
	[ "$(grep -c '^\[' "$work/plan2.txt")" -eq 9 ]; then
	ok "--verbose --analyze: each table's EXPLAIN ANALYZE plan, indented"
else
	not_ok "--verbose --analyze:"
	head -20 "$work/plan2.txt"
fi
exit $fail
