#!/usr/bin/env bash
# test/t/cli_explain.sh: exwiw explain prints the plan, one line per table
# ("[seq/n] table -> file  ~rows  rule: ...  indexes: ...  query: ..."), in
# file order, with the planner's row estimates, the rule that chose the
# table's rows (exwiw_plan's rule column, the same text) and the indexes the
# queries use; --verbose adds each EXPLAIN plan, --analyze runs the queries;
# --format=json gives the same plan as one JSON object (every table's seq,
# file, rule, estimate, indexes and query, and the steps computed before
# the files), which equals exwiw_plan's rows.  Nothing is written.
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
if [ "$n" -eq 9 ] && grep -qE '^\[3/9\] shops -> insert-003-shops\.sql  ~[0-9,]+ rows  rule: target: [^ ].*  indexes: ([a-z_, ]+|\(none\))  query: SELECT shops\.id, shops\.name FROM ' "$work/plan.txt" &&
	grep -qE '^\[6/9\] orders -> insert-006-orders\.sql  ~[0-9,]+ rows  rule: belongs_to: orders\.shop_id -> shops[^ ]*.*  indexes: [a-z_, ]*orders_pkey[a-z_, ]*  query: SELECT .* ORDER BY orders\.id$' "$work/plan.txt" &&
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
# every line's rule is exwiw_plan's, table by table, in file order
cfg=$(cli_config_array "$work/schema")
psql -X -q -At -F ' ' -v cfg="$cfg" >"$work/rules.want" <<'SQL'
SELECT format('[%s/%s] %s rule: %s', seq, max(seq) OVER (), table_name, regexp_replace(rule, '\s+', ' ', 'g'))
FROM exwiw_plan('shops', '{1}', :'cfg') WHERE seq IS NOT NULL ORDER BY seq;
SQL
sed -E 's/^(\[[0-9]+\/[0-9]+\] [^ ]+) -> [^ ]+  ~[0-9,]+ rows  (rule: .*)  indexes: .*$/\1 \2/' "$work/plan.txt" >"$work/rules.got"
if [ -s "$work/rules.want" ] && diff "$work/rules.want" "$work/rules.got" >"$work/rules.diff"; then
	ok "every table's rule is exwiw_plan's rule, e.g. $(grep -m1 ' users ' "$work/rules.got")"
else
	not_ok "the rules differ from exwiw_plan's:"
	cat "$work/rules.diff"
fi
# a table that goes out in full says so: a table no foreign key ties to shops
psql -X -q -c "CREATE TABLE shop.settings (id int PRIMARY KEY, v text)" -c "INSERT INTO shop.settings VALUES (1, 'x')"
mkdir "$work/schema2"
cp "$work/schema"/*.json "$work/schema2/"
exwiw schema generate --from-db --schema-dir="$work/schema2" >/dev/null
sed -i 's/"needs_mask_decision": true/"needs_mask_decision": false/' "$work/schema2"/*.json
exwiw explain --target-table=shops --ids=1 --schema-dir="$work/schema2" >"$work/plan3.txt"
cfg2=$(cli_config_array "$work/schema2")
want=$(psql -X -q -At -v cfg="$cfg2" <<'SQL'
SELECT regexp_replace(rule, '\s+', ' ', 'g') FROM exwiw_plan('shops', '{1}', :'cfg') WHERE table_name = 'settings' AND seq IS NOT NULL;
SQL
)
if [ -n "$want" ] && grep -qF "] settings -> " "$work/plan3.txt" && grep -F "] settings -> " "$work/plan3.txt" | grep -qF "  rule: $want  indexes: "; then
	ok "a table unrelated to the target shows its rule: $want"
else
	not_ok "the rule of a table unrelated to the target (want '$want'):"
	grep -F settings "$work/plan3.txt"
fi
psql -X -q -c "DROP TABLE shop.settings"

# --format=json: the plan for scripts, equal to exwiw_plan's rows
exwiw explain --target-table=shops --ids=1 --schema-dir="$work/schema" --format=json >"$work/plan.json"
got=$(psql -X -q -At -v plan="$(cat "$work/plan.json")" -v cfg="$cfg" <<'SQL'
WITH j AS (SELECT :'plan'::jsonb AS j),
got AS (SELECT (t->>'seq')::int AS seq, t->>'table' AS table_name, t->>'file' AS output, t->>'rule' AS rule, t->>'query' AS query
		FROM j, jsonb_array_elements(j->'tables') t
		UNION ALL
		SELECT NULL, s->>'table', s->>'output', s->>'rule', NULL FROM j, jsonb_array_elements(j->'steps') s),
want AS (SELECT seq, table_name, output, rule, CASE WHEN seq IS NOT NULL THEN query END FROM exwiw_plan('shops', '{1}', :'cfg'))
SELECT (SELECT count(*) FROM ((TABLE got EXCEPT ALL TABLE want) UNION ALL (TABLE want EXCEPT ALL TABLE got)) d)
	|| ' ' || (SELECT count(*) FROM got WHERE seq IS NOT NULL)
	|| ' ' || (SELECT count(*) FROM got WHERE seq IS NULL)
	|| ' ' || (SELECT j->>'target_table' FROM j) || ' ' || (SELECT j->'ids' FROM j)::text
	|| ' ' || (SELECT bool_and(jsonb_typeof(t->'estimated_rows') = 'number' AND jsonb_typeof(t->'indexes') = 'array'
						 AND NOT t ? 'plan') FROM j, jsonb_array_elements(j->'tables') t)
	|| ' ' || (SELECT bool_and((t->>'seq')::int = n) FROM j, jsonb_array_elements(j->'tables') WITH ORDINALITY x(t, n));
SQL
)
if [[ $got =~ ^0\ 9\ [0-9]+\ shops\ \[\"1\"\]\ true\ true$ ]]; then
	ok "--format=json: the plan as JSON, tables in file order and steps, equal to exwiw_plan's rows (EXCEPT both ways): $got"
else
	not_ok "--format=json: got '$got':"
	head -c 600 "$work/plan.json"
fi
exwiw explain --target-table=shops --ids=1 --schema-dir="$work/schema" --format=json --verbose >"$work/plan2.json"
if [ "$(psql -X -q -At -v plan="$(cat "$work/plan2.json")" -c "SELECT 1" 2>/dev/null)" = 1 ] &&
	[ "$(psql -X -q -At -v plan="$(cat "$work/plan2.json")" <<<"SELECT bool_and(t->>'plan' LIKE '%Scan%') FROM jsonb_array_elements(:'plan'::jsonb->'tables') t")" = t ]; then
	ok "--format=json --verbose: each table's EXPLAIN plan in \"plan\""
else
	not_ok "--format=json --verbose:"
	head -c 600 "$work/plan2.json"
fi
expect_error "--format=yaml" "invalid explain format 'yaml'" \
	exwiw explain --target-table=shops --ids=1 --schema-dir="$work/schema" --format=yaml
expect_error "--format outside explain" "--format applies to the explain and dump subcommands only" \
	exwiw --target-table=shops --ids=1 --schema-dir="$work/schema" --format=json -o "$work/never"
exit $fail
