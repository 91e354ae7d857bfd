#!/usr/bin/env bash
# test/t/subset_closure.sh: a subset export loads, in file order, into an
# empty copy of the schema with every constraint enforced (replica mode
# off: the load runs as a role that may not set session_replication_role,
# so the files' DO block only warns), for several targets and both formats.
#
# The data: the regress fixture plus random rows whose foreign keys cross
# shops freely (orders by users of other shops, items of other shops'
# products), so the closure has work to do.  Run by test/run with
# PGHOST/PGPORT/PGUSER set for the throwaway cluster.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/subset/lib.sh"
[ -n "${EXWIW_BIN:-}" ] && PATH=$EXWIW_BIN:$PATH
export PGDATABASE=postgres
work=$(mktemp -d /tmp/subset-closure.XXXXXX)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT

subset_make_databases "$root"
psql -X -q -v ON_ERROR_STOP=1 -d subset_src <<'SQL'
SET search_path = shop;
SELECT setseed(0.42) \gset
INSERT INTO shops (name) SELECT 'shop ' || i FROM generate_series(4, 20) i;
INSERT INTO categories (parent_id, name)
	SELECT CASE WHEN i % 3 = 0 THEN NULL ELSE 1 + (i * 7) % 6 END, 'cat ' || i
	FROM generate_series(7, 30) i;
INSERT INTO users (shop_id, email, name, phone)
	SELECT 1 + (random() * 19)::int, 'u' || i || '@x.test', 'user ' || i, NULL
	FROM generate_series(1, 300) i;
INSERT INTO products (shop_id, category_id, name, price)
	SELECT 1 + (random() * 19)::int, 1 + (random() * 29)::int, 'p' || i, i
	FROM generate_series(1, 200) i;
INSERT INTO orders (shop_id, user_id, ordered_at, total)
	SELECT 1 + (random() * 19)::int, 1 + (random() * 303)::int, now(), i
	FROM generate_series(1, 2000) i;
INSERT INTO order_items (order_id, product_id, quantity)
	SELECT 1 + (random() * 2004)::int, 1 + (random() * 204)::int, 1
	FROM generate_series(1, 6000) i;
INSERT INTO transactions (order_id, amount)
	SELECT 1 + (random() * 2004)::int, 1 FROM generate_series(1, 1500) i;
INSERT INTO order_tags
	SELECT DISTINCT 1 + (random() * 2004)::int, 'tag' || (i % 3)
	FROM generate_series(1, 500) i ON CONFLICT DO NOTHING;
-- parents with larger ids than their children: 7 -> 40 -> 35
INSERT INTO categories (name) SELECT 'late root ' || i FROM generate_series(31, 40) i;
UPDATE categories SET parent_id = 35 WHERE id = 40;
UPDATE categories SET parent_id = 40 WHERE id IN (7, 8);
ANALYZE;
SQL
echo "$(date +%T) data ready" 

pg_dump --schema-only -n shop -d subset_src >"$work/schema.sql"

# one empty, fully constrained copy of the schema per load
fresh_dst() { subset_fresh_dst "$work/schema.sql"; }

fail=0
n=0
# "insert1": INSERT format with one row per statement (bulk_insert_chunk_size
# 1 everywhere), so that no parent can hide in the same statement as its
# child: self-referencing rows must come parents first.
chunk1_config="(SELECT jsonb_build_object('tables', jsonb_agg(t || '{\"bulk_insert_chunk_size\": 1}'))
	FROM jsonb_array_elements(exwiw_config_from_catalog() -> 'tables') t)"
# "slice": slices (issue 40): at most 2 orders per user, the newest, and a
# stable half of the order items; the rows the kept rows reference still
# come, the children of the rows left out do not, and the files load
slice_config="(SELECT jsonb_build_object('tables', jsonb_agg(CASE t ->> 'name'
	WHEN 'orders' THEN t || '{\"limit\": {\"rows\": 2, \"per\": \"user_id\", \"order_by\": \"ordered_at DESC, id DESC\"}}'
	WHEN 'order_items' THEN t || '{\"sample\": {\"fraction\": 0.5, \"seed\": \"s1\"}}'
	ELSE t END)) FROM jsonb_array_elements(exwiw_config_from_catalog() -> 'tables') t)"
for spec in "shops {1} insert" "shops {2} copy" "shops {3,7} insert" \
	"shops {5} copy" "users {3} insert" "categories {2} insert" \
	"products {4} copy" "orders {10,11} insert" "categories {7} insert1" \
	"shops {1,2} insert1" "shops {1,2,3} slice" "users {3,4} slice"; do
	read -r table ids format <<<"$spec"
	config=NULL
	if [ "$format" = insert1 ]; then
		format=insert
		config=$chunk1_config
	elif [ "$format" = slice ]; then
		format=insert
		config=$slice_config
	fi
	n=$((n + 1))
	dir=$work/out$n
	subset_write_files "$dir" -d subset_src -c "SET client_min_messages = warning" \
		-c "SET search_path = shop, public" \
		-c "SELECT file_name, chunk FROM exwiw_export('$table', '$ids', $config, format => '$format', allow_undecided => true)"
	# byte-exact: each file is its chunks joined by "\n" plus "\n"
	want=$(psql -XAtq -d subset_src -c "SET client_min_messages = warning" \
		-c "SET search_path = shop, public" \
		-c "SELECT string_agg(file_name || ' ' || m, ' ' ORDER BY file_name) FROM (
			SELECT file_name, md5(string_agg(chunk, E'\n' ORDER BY n) || E'\n') AS m
			FROM exwiw_export('$table', '$ids', $config, format => '$format', allow_undecided => true) WITH ORDINALITY AS e(file_name, chunk, n)
			GROUP BY file_name) s")
	got=$(cd "$dir" && for f in $(ls | sort); do printf '%s %s ' "$f" "$(md5sum <"$f" | cut -d' ' -f1)"; done)
	if [ "$want" != "${got% }" ]; then
		echo "FAIL: $spec: the files differ from the chunks joined in SQL"
		echo "  want: $want"
		echo "  got:  ${got% }"
		fail=1
	fi
	fresh_dst
	if ! PGOPTIONS='-c search_path=shop' subset_load_files "$dir" -U subset_loader -d subset_dst \
		>/dev/null 2>"$dir.err"; then
		echo "FAIL: $spec: the load failed"
		cat "$dir.err"
		fail=1
		continue
	fi
	# the load really ran with the constraints on: the loader may not set
	# replica mode, and no file said it fell back to anything
	if subset_loader_may_skip_keys; then
		echo "FAIL: $spec: the loader may set session_replication_role: the load skipped foreign-key checks"
		fail=1
	fi
	if [ -s "$dir.err" ]; then
		echo "FAIL: $spec: the load printed messages:"
		cat "$dir.err"
		fail=1
	fi
	# the files end with exactly one newline and have no blank lines
	for f in "$dir"/*; do
		if [ "$(tail -c 1 "$f" | od -An -c | tr -d ' ')" != '\n' ] || grep -qx '' "$f"; then
			echo "FAIL: $spec: $(basename "$f") is not framed as the spec says"
			fail=1
		fi
	done
	# every file loaded its rows: the counts match the export's
	got=$(psql -XAt -d subset_dst -c "SELECT
		(SELECT count(*) FROM shop.shops) || ' ' || (SELECT count(*) FROM shop.users) || ' ' ||
		(SELECT count(*) FROM shop.orders) || ' ' || (SELECT count(*) FROM shop.order_items)")
	echo "$(date +%T) ok: $spec: $(ls "$dir" | wc -l) files; shops users orders items loaded: $got"
	[ "$(echo "$got" | cut -d' ' -f1)" -gt 0 ] || { echo "FAIL: $spec: nothing loaded"; fail=1; }
	if [ "$config" = "$slice_config" ]; then
		# the orders chosen by the limit: at most 2 per user, and every
		# loaded item's order is loaded (the load's foreign keys say so too)
		over=$(psql -XAt -d subset_dst -c "SELECT count(*) FROM (SELECT user_id FROM shop.orders
			WHERE id IN (SELECT order_id FROM shop.order_items) GROUP BY user_id HAVING count(*) > 2) s")
		[ "$over" = 0 ] || { echo "FAIL: $spec: $over users have more than 2 orders with items"; fail=1; }
	fi
done

psql -X -q -c "DROP DATABASE subset_dst" -c "DROP DATABASE subset_src" -c "DROP ROLE subset_loader"
exit $fail
