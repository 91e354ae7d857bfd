#!/usr/bin/env bash
# test/t/cli_delete.sh: the delete files (delete-NNN-<table>.sql), the
# Ruby client's refresh of a tenant, and the 0.1.8 flags.
#
# - An export writes one delete file per table with rows, numbered from the
#   end of the processing order (children first), byte for byte what
#   exwiw_export(..., deletes => true) streams; for the target and a table
#   one belongs_to from it, the Ruby client's statements.
# - A refresh: tenant 2 then tenant 1 loaded into a development database
#   by a role that is no superuser and owns nothing (every foreign key is
#   checked); rows of tenant 1 are inserted, updated and deleted in
#   production, and so are tenant 2's; tenant 1 exported again; its delete
#   files then its insert files, in name order: tenant 1's rows equal
#   production's (EXCEPT both ways, on every table), tenant 2's rows are
#   those loaded before.  The delete files in the opposite order (parents
#   first) fail on a foreign key: the order is what makes them load.
# - -j 2 writes the same directory; --insert-only writes no delete file;
#   JSON Lines has none; a masked primary key is refused (and
#   --insert-only exports it).
# - --config-dir DIR and -c DIR (0.1.8) warn and read the schema dir;
#   -c FILE stays the run config; --cursor-parallel is refused with the
#   Ruby client's message.
# - Several databases: schema/primary/ and schema/analytics/, one run each;
#   a belongs_to to the other database ("ignore": true, "ignore_type":
#   "cross_database") is ignored by the export and kept by schema generate.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/subset/lib.sh"
source "$root/test/cli/lib.sh"
cli_init delete

cat >"$work/fixture.sql" <<'SQL'
CREATE SCHEMA app;
SET search_path = app;
CREATE TABLE shops (id int PRIMARY KEY, name text NOT NULL);
CREATE TABLE users (id int PRIMARY KEY, shop_id int NOT NULL REFERENCES shops, label text);
CREATE TABLE orders (id int PRIMARY KEY, shop_id int NOT NULL REFERENCES shops,
	user_id int NOT NULL REFERENCES users, total int NOT NULL);
CREATE INDEX ON orders (shop_id);
CREATE INDEX ON orders (user_id);
CREATE TABLE order_items (order_id int NOT NULL REFERENCES orders, line int NOT NULL,
	qty int NOT NULL, PRIMARY KEY (order_id, line));
CREATE TABLE settings (id int PRIMARY KEY, value text);
INSERT INTO shops VALUES (1, 'one'), (2, 'two'), (3, 'three');
INSERT INTO users SELECT i, 1 + i % 3, 'user ' || i FROM generate_series(1, 12) i;
INSERT INTO orders SELECT i, 1 + (1 + i % 12) % 3, 1 + i % 12, i * 10 FROM generate_series(1, 30) i;
INSERT INTO order_items SELECT o, l, o + l FROM generate_series(1, 30) o, generate_series(1, 3) l;
INSERT INTO settings VALUES (1, 'a'), (2, 'b');
SQL
subset_make_databases "$root" del "$work/fixture.sql"
export PGOPTIONS='-c search_path=app,public -c client_min_messages=warning'
exwiw schema generate --from-db --dbname=del_src --schema-dir="$work/schema" >/dev/null
# settings is tied to no tenant: it goes out whole, as decided
python3 - "$work/schema/settings.json" <<'PY'
import json, sys
p = sys.argv[1]
t = json.load(open(p))
t["export"] = "all"
json.dump(t, open(p, "w"), indent=2)
PY

# the development database: the schema, fully constrained; the loader owns
# nothing (so no file can skip a trigger) and may select, insert, delete
pg_dump --schema-only --no-owner --no-acl -d del_src -n app >"$work/schema.sql"
SUBSET_LOADER_OWNS=0 subset_fresh_dst "$work/schema.sql" del app
psql -X -q -v ON_ERROR_STOP=1 -d del_dst -c "GRANT DELETE ON ALL TABLES IN SCHEMA app TO del_loader"
if subset_loader_may_skip_keys del; then
	not_ok "del_loader may skip the foreign-key checks"
fi

export_shop() {
	local ids=$1 dir=$2
	shift 2
	rm -rf "$dir"
	exwiw --dbname=del_src --target-table=shops --ids="$ids" --schema-dir="$work/schema" \
		-o "$dir" "$@"
}
load_dir() {
	PGOPTIONS='-c search_path=app' subset_load_files "$1" -U del_loader -d del_dst
}

# 1. the files
export_shop 1 "$work/d1"
names=$(cd "$work/d1" && ls | tr '\n' ' ')
want="delete-001-order_items.sql delete-002-orders.sql delete-003-users.sql delete-004-shops.sql delete-005-settings.sql insert-001-settings.sql insert-002-shops.sql insert-003-users.sql insert-004-orders.sql insert-005-order_items.sql "
if [ "$names" = "$want" ]; then
	ok "one delete file per table, numbered from the end of the load order: $names"
else
	not_ok "the files: '$names', not '$want'"
fi
printf "SET client_encoding = 'UTF8';\nSET standard_conforming_strings = on;\nDELETE FROM shops\nWHERE shops.id = '1';\n" >"$work/want-shops.sql"
if cmp -s "$work/want-shops.sql" "$work/d1/delete-004-shops.sql"; then
	ok "delete-004-shops.sql: the settings lines, then the Ruby client's statement"
else
	not_ok "delete-004-shops.sql: $(cat "$work/d1/delete-004-shops.sql")"
fi
if sed -n 3,4p "$work/d1/delete-002-orders.sql" | tr '\n' '|' |
	grep -qxF "DELETE FROM orders|WHERE orders.shop_id IN (SELECT shops.id FROM shops WHERE shops.id = '1');|" &&
	sed -n 5,6p "$work/d1/delete-002-orders.sql" | tr '\n' '|' |
	grep -qE "^DELETE FROM orders\|WHERE orders.id IN \('[0-9]+'(, '[0-9]+')+\);\|$"; then
	ok "delete-002-orders.sql: the Ruby client's statement, then the exported rows by key"
else
	not_ok "delete-002-orders.sql: $(cat "$work/d1/delete-002-orders.sql")"
fi
if grep -qF "WHERE order_items.order_id IN (SELECT orders.id FROM orders WHERE orders.shop_id IN (SELECT shops.id FROM shops WHERE shops.id = '1'));" "$work/d1/delete-001-order_items.sql" &&
	grep -qE "^WHERE \(order_items.order_id, order_items.line\) IN \(\('[0-9]+', '[0-9]+'\), " "$work/d1/delete-001-order_items.sql"; then
	ok "delete-001-order_items.sql: the chain through orders, then the composite keys"
else
	not_ok "delete-001-order_items.sql: $(cat "$work/d1/delete-001-order_items.sql")"
fi
cfg=$(cli_config_array "$work/schema")
rm -rf "$work/recipe"
cli_recipe "$work/recipe" "SELECT (e).file_name, (e).chunk FROM (SELECT exwiw_export('shops', '{1}', :'cfg', deletes => true) AS e) s;" \
	-d del_src -v cfg="$cfg"
if same_dirs "$work/recipe" "$work/d1"; then
	ok "the client's directory is exwiw_export(..., deletes => true)'s, byte for byte"
else
	not_ok "the client's directory differs from exwiw_export(..., deletes => true)"
fi
export_shop 1 "$work/d1j2" -j 2
if same_dirs "$work/d1" "$work/d1j2"; then
	ok "-j 2: the same directory, delete files included"
else
	not_ok "-j 2 differs from -j 1"
fi
export_shop 1 "$work/ins" --insert-only 2>"$work/err.txt"
if [ -z "$(ls "$work/ins" | grep '^delete-')" ] && [ "$(ls "$work/ins" | wc -l)" -eq 5 ] && [ ! -s "$work/err.txt" ]; then
	ok "--insert-only: the insert files alone, no warning"
else
	not_ok "--insert-only: $(ls "$work/ins" | tr '\n' ' ') $(cat "$work/err.txt")"
fi
printf 'insert_only: true\n' >"$work/run.yml"
export_shop 1 "$work/ins2" -c "$work/run.yml"
if [ -z "$(ls "$work/ins2" | grep '^delete-')" ]; then
	ok "insert_only: true in the run config: no delete file"
else
	not_ok "insert_only in the run config: $(ls "$work/ins2" | tr '\n' ' ')"
fi
export_shop 1 "$work/jl" --output-format=jsonl
if [ -z "$(ls "$work/jl" | grep '^delete-')" ]; then
	ok "JSON Lines: no delete file"
else
	not_ok "JSON Lines wrote delete files"
fi

# 2. the refresh: tenant 2, then tenant 1, loaded
export_shop 2 "$work/d2"
load_dir "$work/d2" || not_ok "loading tenant 2"
load_dir "$work/d1" || not_ok "loading tenant 1"
psql -X -q -v ON_ERROR_STOP=1 -d del_dst <<'SQL'
CREATE SCHEMA keep;
CREATE TABLE keep.users AS SELECT * FROM app.users WHERE shop_id = 2;
CREATE TABLE keep.orders AS SELECT * FROM app.orders WHERE shop_id = 2;
CREATE TABLE keep.order_items AS SELECT i.* FROM app.order_items i JOIN app.orders o ON o.id = i.order_id WHERE o.shop_id = 2;
SQL
psql -X -q -v ON_ERROR_STOP=1 -d del_src <<'SQL'
SET search_path = app;
-- tenant 1: insert, update, delete
INSERT INTO users VALUES (100, 1, 'new user');
INSERT INTO orders VALUES (100, 1, 100, 7), (101, 1, 3, 8);
INSERT INTO order_items VALUES (100, 1, 1), (100, 2, 2), (101, 1, 5);
UPDATE users SET label = 'renamed' WHERE id = 3;
UPDATE orders SET total = total + 1 WHERE shop_id = 1 AND id % 2 = 0;
UPDATE order_items SET qty = 99 WHERE order_id = 8;
DELETE FROM order_items WHERE order_id = 2 AND line = 2;
DELETE FROM order_items WHERE order_id = 5;
DELETE FROM orders WHERE id = 5;
UPDATE settings SET value = 'changed' WHERE id = 2;
-- tenant 2: the same kinds of changes, which the refresh of 1 leaves alone
INSERT INTO orders VALUES (200, 2, 1, 1);
UPDATE users SET label = 'other' WHERE shop_id = 2;
DELETE FROM order_items WHERE order_id = 3;
SQL
export_shop 1 "$work/r1"
if load_dir "$work/r1"; then
	ok "the refresh loads: the delete files, then the insert files, as a role that checks every foreign key"
else
	not_ok "the refresh failed to load"
fi
compare_tenant() {
	local table=$1 where=$2 b
	psql -X -q -v ON_ERROR_STOP=1 -d del_dst -c "DROP TABLE IF EXISTS keep.prod" -c "CREATE TABLE keep.prod (LIKE app.$table)"
	psql -XAtq -v ON_ERROR_STOP=1 -d del_src -c "COPY (SELECT t.* FROM app.$table t $where) TO STDOUT" |
		psql -X -q -v ON_ERROR_STOP=1 -d del_dst -c "COPY keep.prod FROM STDIN"
	b=$(psql -XAtq -d del_dst -c "SELECT (SELECT count(*) FROM (SELECT * FROM keep.prod EXCEPT SELECT t.* FROM app.$table t $where) x), (SELECT count(*) FROM (SELECT t.* FROM app.$table t $where EXCEPT SELECT * FROM keep.prod) y), (SELECT count(*) FROM keep.prod)")
	if [[ $b =~ ^0\|0\|[1-9][0-9]*$ ]]; then
		ok "$table: tenant 1's rows equal production's (EXCEPT both ways: $b)"
	else
		not_ok "$table: tenant 1's rows differ from production's (missing|extra|rows: $b)"
	fi
}
compare_tenant shops "WHERE t.id = 1"
compare_tenant users "WHERE t.shop_id = 1"
compare_tenant orders "WHERE t.shop_id = 1"
compare_tenant order_items "WHERE t.order_id IN (SELECT id FROM app.orders WHERE shop_id = 1)"
compare_tenant settings ""
other=$(psql -XAtq -d del_dst <<'SQL'
SELECT (SELECT count(*) FROM ((SELECT * FROM keep.users EXCEPT SELECT * FROM app.users WHERE shop_id = 2)
		UNION ALL (SELECT * FROM app.users WHERE shop_id = 2 EXCEPT SELECT * FROM keep.users)) a)
	+ (SELECT count(*) FROM ((SELECT * FROM keep.orders EXCEPT SELECT * FROM app.orders WHERE shop_id = 2)
		UNION ALL (SELECT * FROM app.orders WHERE shop_id = 2 EXCEPT SELECT * FROM keep.orders)) b)
	+ (SELECT count(*) FROM ((SELECT * FROM keep.order_items EXCEPT SELECT i.* FROM app.order_items i JOIN app.orders o ON o.id = i.order_id WHERE o.shop_id = 2)
		UNION ALL (SELECT i.* FROM app.order_items i JOIN app.orders o ON o.id = i.order_id WHERE o.shop_id = 2 EXCEPT SELECT * FROM keep.order_items)) c),
	(SELECT count(*) FROM keep.order_items)
SQL
)
if [[ $other =~ ^0\|[1-9][0-9]*$ ]]; then
	ok "tenant 2's rows in the development database are untouched ($other)"
else
	not_ok "tenant 2's rows changed: $other"
fi

# the delete order: parents first fails on a foreign key
rev_err=$(cd "$work/r1" && for f in $(ls delete-*.sql | sort -r); do
	PGOPTIONS='-c search_path=app' psql -X -q -v ON_ERROR_STOP=1 -U del_loader -d del_dst -1 -f "$f" 2>&1 >/dev/null || break
done)
if grep -q 'violates foreign key constraint' <<<"$rev_err"; then
	ok "the delete files parents first: a foreign-key violation (the order matters, and is enforced)"
else
	not_ok "the delete files in the wrong order did not fail on a foreign key: $rev_err"
fi

# a masked primary key
mkdir -p "$work/masked"
cp "$work/schema"/*.json "$work/masked/"
python3 - "$work/masked/order_items.json" <<'PY'
import json, sys
p = sys.argv[1]
t = json.load(open(p))
for c in t["columns"]:
    if c["name"] == "line":
        c["raw_sql"] = "line + 100"
json.dump(t, open(p, "w"), indent=2)
PY
rm -rf "$work/m"
expect_error "a masked primary key" 'cannot write the delete file of table "order_items": its primary key column "line" is masked' \
	exwiw --dbname=del_src --target-table=shops --ids=1 --schema-dir="$work/masked" -o "$work/m"
if exwiw --dbname=del_src --target-table=shops --ids=1 --schema-dir="$work/masked" -o "$work/m" --insert-only 2>/dev/null; then
	ok "a masked primary key with --insert-only: exported"
else
	not_ok "a masked primary key with --insert-only failed"
fi

# 3. the 0.1.8 flags
export_shop 1 "$work/cd" --config-dir="$work/schema" 2>"$work/err.txt" || true
if same_dirs "$work/r1" "$work/cd" && grep -q '^warning: --config-dir is deprecated, use --schema-dir' "$work/err.txt"; then
	ok "--config-dir: a deprecation warning, and the schema dir"
else
	not_ok "--config-dir: $(cat "$work/err.txt")"
fi
rm -rf "$work/cc"
exwiw --dbname=del_src --target-table=shops --ids=1 -c "$work/schema" -o "$work/cc" 2>"$work/err.txt" || true
if same_dirs "$work/r1" "$work/cc" && grep -q '^warning: -c DIR (--config-dir) is deprecated, use --schema-dir=' "$work/err.txt"; then
	ok "-c DIR: the 0.1.8 meaning (a directory cannot be a run config), with a warning"
else
	not_ok "-c DIR: $(cat "$work/err.txt")"
fi
expect_error "--cursor-parallel" '--cursor-parallel is only supported by the mongodb adapter$' \
	exwiw --dbname=del_src --target-table=shops --ids=1 --schema-dir="$work/schema" --cursor-parallel -j 2 -o "$work/cp"

# 4. several databases: one schema dir each, one run each
psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
SET client_min_messages = warning;
DROP DATABASE IF EXISTS del_analytics;
CREATE DATABASE del_analytics;
SQL
psql -X -q -v ON_ERROR_STOP=1 -d del_analytics <<'SQL'
CREATE EXTENSION exwiw;
CREATE SCHEMA app;
SET search_path = app;
CREATE TABLE reports (id int PRIMARY KEY, title text);
CREATE TABLE events (id int PRIMARY KEY, report_id int NOT NULL REFERENCES reports, user_id int, kind text);
CREATE INDEX ON events (report_id);
INSERT INTO reports VALUES (1, 'r1'), (2, 'r2');
INSERT INTO events SELECT i, 1 + i % 2, i, 'k' FROM generate_series(1, 6) i;
SQL
mkdir -p "$work/app/exwiw/schema"
exwiw schema generate --from-db --dbname=del_src --schema-dir="$work/app/exwiw/schema/primary" >/dev/null
exwiw schema generate --from-db --dbname=del_analytics --schema-dir="$work/app/exwiw/schema/analytics" >/dev/null
# events.user_id references users of the primary database
python3 - "$work/app/exwiw/schema/analytics/events.json" <<'PY'
import json, sys
p = sys.argv[1]
t = json.load(open(p))
t["belongs_tos"].append({"table_name": "users", "foreign_key": "user_id", "ignore": True,
                         "ignore_type": "cross_database"})
json.dump(t, open(p, "w"), indent=2)
PY
rm -rf "$work/app/dump"
if (cd "$work/app" && exwiw --dbname=del_src --target-table=shops --ids=1 --schema-dir=exwiw/schema/primary -o dump/primary &&
	exwiw --dbname=del_analytics --target-table=reports --ids=1 --schema-dir=exwiw/schema/analytics -o dump/analytics) 2>"$work/err.txt" &&
	same_dirs "$work/r1" "$work/app/dump/primary" &&
	[ "$(cd "$work/app/dump/analytics" && ls | tr '\n' ' ')" = "delete-001-events.sql delete-002-reports.sql insert-001-reports.sql insert-002-events.sql " ] &&
	[ "$(grep -c "^('[0-9]*', '1', " "$work/app/dump/analytics/insert-002-events.sql")" -eq 3 ]; then
	ok "several databases: exwiw/schema/primary and exwiw/schema/analytics, one run each; the cross-database belongs_to is ignored"
else
	not_ok "several databases: $(cat "$work/err.txt"; ls "$work/app/dump/analytics" 2>&1)"
fi
exwiw schema generate --from-db --dbname=del_analytics --schema-dir="$work/app/exwiw/schema/analytics" >/dev/null
if python3 - "$work/app/exwiw/schema/analytics/events.json" <<'PY'; then
import json, sys
t = json.load(open(sys.argv[1]))
bt = [b for b in t["belongs_tos"] if b.get("table_name") == "users"]
sys.exit(0 if bt and bt[0].get("ignore") is True and bt[0].get("ignore_type") == "cross_database" else 1)
PY
	ok "schema generate keeps the cross-database belongs_to (ignore: true, ignore_type: cross_database)"
else
	not_ok "schema generate dropped the cross-database belongs_to: $(cat "$work/app/exwiw/schema/analytics/events.json")"
fi
expect_error "the parent of the database directories" 'schema dir contains no \.json files: .*/exwiw/schema$' \
	exwiw --dbname=del_analytics --target-table=reports --ids=1 --schema-dir="$work/app/exwiw/schema" -o "$work/app/x"
exwiw --dbname=del_analytics --target-table=reports --ids=1 --schema-dir="$work/app/exwiw/schema" -o "$work/app/x" 2>"$work/err.txt" || true
if grep -qF 'hint: It holds one schema dir per database (analytics, primary): pass --schema-dir=' "$work/err.txt"; then
	ok "the parent of the database directories: the hint names them"
else
	not_ok "the parent of the database directories: $(cat "$work/err.txt")"
fi

exit $fail
