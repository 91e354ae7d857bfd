#!/usr/bin/env bash
# test/t/cli_schema.sh: exwiw schema generate | check | tidy --from-db.
#
# - generate writes one file per table in the Ruby client's layout and
#   JSON style (JSON.pretty_generate, keys in its order);
# - check on a fresh config: exit 0, every list empty, the report also in
#   $EXWIW_SCHEMA_CHECK_OUTPUT;
# - a column added to a table: check exits 1 and lists it (added_columns,
#   changed_tables), --fail-on=stale exits 0 with its message; the export
#   does not write the column; generate adds it marked
#   "needs_mask_decision": true (masks already decided stay), so the export
#   refuses it until decided; EXWIW_NEW_COLUMNS=plain does not mark it;
# - a new table and a new foreign key: added_tables, added_columns,
#   added_belongs_tos;
# - a dropped column and a dropped table: removed_*, stale_* and exit 1
#   even with --fail-on=stale; tidy removes them (and the table's file);
# - --schema-dir FILE.json: the one-file form.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/subset/lib.sh"
source "$root/test/cli/lib.sh"
cli_init schema

psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
SET client_min_messages = warning;
DROP DATABASE IF EXISTS cli_schema;
CREATE DATABASE cli_schema;
SQL
psql -X -q -v ON_ERROR_STOP=1 -d cli_schema -c "CREATE EXTENSION exwiw" -f "$root/test/subset/fixture.sql" >/dev/null
export PGDATABASE=cli_schema PGOPTIONS='-c search_path=shop,public -c client_min_messages=warning'
sd=$work/schema

out=$(exwiw schema generate --from-db --schema-dir="$sd")
if [ "$out" = "exwiw: wrote the schema config for cli_schema to $sd." ] &&
	[ "$(ls "$sd" | tr '\n' ' ')" = "announcements.json categories.json order_items.json order_tags.json orders.json products.json shops.json transactions.json users.json " ]; then
	ok "generate: one file per table"
else
	not_ok "generate: $out / $(ls "$sd")"
fi
cat >"$work/want-orders.json" <<'JSON'
{
  "name": "orders",
  "primary_key": "id",
  "belongs_tos": [
    {
      "foreign_key": "shop_id",
      "table_name": "shops"
    },
    {
      "foreign_key": "user_id",
      "table_name": "users"
    }
  ],
  "columns": [
    {
      "name": "id"
    },
    {
      "name": "shop_id"
    },
    {
      "name": "user_id"
    },
    {
      "name": "ordered_at"
    },
    {
      "name": "total"
    }
  ]
}
JSON
if cmp -s "$work/want-orders.json" "$sd/orders.json"; then
	ok "generate: the Ruby client's JSON layout and key order"
else
	not_ok "generate: orders.json differs:"
	diff "$work/want-orders.json" "$sd/orders.json" || true
fi
if grep -q '"needs_mask_decision": true' "$sd/users.json"; then
	ok "generate: sensitive-looking columns are marked needs_mask_decision"
else
	not_ok "generate: no needs_mask_decision in users.json"
fi

# decide every mask, as a user would
# (the catalog proposed masked-{id}@example.com; the user picks another)
sed -i 's/"replace_with": "masked-{id}@example.com"/"replace_with": "user{id}@example.com"/' "$sd/users.json"
sed -i 's/"needs_mask_decision": true/"needs_mask_decision": false/' "$sd/users.json" "$sd/transactions.json"

check() {
	local rc=0
	EXWIW_SCHEMA_CHECK_OUTPUT=$work/report.json exwiw schema check --from-db --schema-dir="$sd" "$@" \
		>"$work/stdout.json" 2>"$work/stderr.txt" || rc=$?
	return $rc
}
rc=0
check || rc=$?
empty='{
  "added_tables": [],
  "added_columns": [],
  "added_belongs_tos": [],
  "removed_tables": [],
  "removed_columns": [],
  "changed_tables": [],
  "needs_mask_decision": [],
  "stale_tables": [],
  "stale_columns": []
}'
if [ $rc -eq 0 ] && [ "$(cat "$work/stdout.json")" = "$empty" ] && cmp -s "$work/stdout.json" "$work/report.json"; then
	ok "check on a fresh config: exit 0, nothing listed, the report in \$EXWIW_SCHEMA_CHECK_OUTPUT too"
else
	not_ok "check on a fresh config: exit $rc: $(cat "$work/stdout.json" "$work/stderr.txt")"
fi

# a column added after the config was written
# (ssn gets the catalog's default mask; api_key, a uuid, has none and stays
# undecided)
psql -X -q -c "ALTER TABLE shop.users ADD COLUMN ssn text, ADD COLUMN api_key uuid" \
	-c "UPDATE shop.users SET ssn = 'secret-' || id, api_key = md5(id::text)::uuid"
rc=0
check || rc=$?
if [ $rc -eq 1 ] && grep -q '"users.ssn"' "$work/stdout.json" &&
	grep -q 'exwiw: the schema config is out of date or has undecided masking' "$work/stderr.txt"; then
	ok "check: an added column is listed, exit 1"
else
	not_ok "check: added column: exit $rc: $(cat "$work/stdout.json" "$work/stderr.txt")"
fi
rc=0
check --fail-on=stale || rc=$?
if [ $rc -eq 0 ] && grep -q 'nothing the extraction reads is stale (--fail-on=stale)' "$work/stderr.txt"; then
	ok "check --fail-on=stale: an added column is drift, not stale (exit 0)"
else
	not_ok "check --fail-on=stale with an added column: exit $rc"
fi
exwiw --target-table=shops --ids=1 --schema-dir="$sd" -o "$work/dump1"
if ! grep -q 'ssn\|secret-' "$work/dump1/insert-005-users.sql"; then
	ok "the export does not write a column the config does not list"
else
	not_ok "the added column went out"
fi
exwiw schema generate --from-db --schema-dir="$sd" >/dev/null
if grep -A3 '"name": "ssn"' "$sd/users.json" | grep -q '"needs_mask_decision": true' &&
	grep -A3 '"name": "ssn"' "$sd/users.json" | grep -q '"replace_with": "masked-{id}"' &&
	grep -A2 '"name": "api_key"' "$sd/users.json" | grep -q '"needs_mask_decision": true' &&
	grep -q '"replace_with": "user{id}@example.com"' "$sd/users.json"; then
	ok "generate: the new columns are marked needs_mask_decision (ssn with the default mask), the decided masks stay"
else
	not_ok "generate after a new column: $(cat "$sd/users.json")"
fi
rc=0
exwiw --target-table=shops --ids=1 --schema-dir="$sd" -o "$work/dump2" 2>"$work/stderr.txt" || rc=$?
if [ $rc -ne 0 ] && grep -q 'Undecided: users.api_key\.' "$work/stderr.txt" && [ ! -e "$work/dump2" ]; then
	ok "the export refuses the new column without a mask until someone decides"
else
	not_ok "export of an undecided new column: exit $rc $(cat "$work/stderr.txt")"
fi
rc=0
check || rc=$?
if [ $rc -eq 1 ] && grep -A2 '"needs_mask_decision": \[' "$work/stdout.json" | grep -q '"users.api_key"' &&
	! grep -q '"users.ssn"' <(grep -A3 '"needs_mask_decision": \[' "$work/stdout.json"); then
	ok "check lists the undecided column (not the one masked by default)"
else
	not_ok "check: undecided: $(cat "$work/stdout.json")"
fi
cp -r "$sd" "$work/plain"
psql -X -q -c "ALTER TABLE shop.orders ADD COLUMN note text"
EXWIW_NEW_COLUMNS=plain exwiw schema generate --from-db --schema-dir="$work/plain" >/dev/null
if grep -A2 '"name": "note"' "$work/plain/orders.json" | grep -q needs_mask_decision; then
	not_ok "EXWIW_NEW_COLUMNS=plain still marks new columns"
else
	ok "EXWIW_NEW_COLUMNS=plain: new columns are not marked"
fi
psql -X -q -c "ALTER TABLE shop.orders DROP COLUMN note"
sed -i 's/"needs_mask_decision": true/"needs_mask_decision": false/' "$sd/users.json"
exwiw --target-table=shops --ids=1 --schema-dir="$sd" -o "$work/dump-decided"
if ! grep -q 'secret-' "$work/dump-decided/insert-005-users.sql" && grep -q "'masked-1'" "$work/dump-decided/insert-005-users.sql"; then
	ok "once decided, the new column goes out masked by its default mask"
else
	not_ok "the new column's values went out unmasked"
fi

# a new table with a new foreign key
psql -X -q <<'SQL'
CREATE TABLE shop.coupons (id serial PRIMARY KEY, shop_id bigint REFERENCES shop.shops, code text);
ALTER TABLE shop.orders ADD COLUMN coupon_id int REFERENCES shop.coupons;
SQL
rc=0
check || rc=$?
if [ $rc -eq 1 ] && grep -A2 '"added_tables"' "$work/stdout.json" | grep -q '"coupons"' &&
	grep -q '"orders.coupon_id"' "$work/stdout.json" && grep -q '"orders.coupon_id -> coupons"' "$work/stdout.json"; then
	ok "check: a new table, its column and the new foreign key are listed"
else
	not_ok "check: new table / foreign key: $(cat "$work/stdout.json")"
fi
exwiw schema generate --from-db --schema-dir="$sd" >/dev/null
if [ -f "$sd/coupons.json" ] && grep -q '"table_name": "coupons"' "$sd/orders.json" &&
	grep -A2 '"name": "code"' "$sd/coupons.json" | grep -q '"needs_mask_decision": true'; then
	ok "generate: the new table (its columns marked) and the new belongs_to"
else
	not_ok "generate: new table"
fi
sed -i 's/"needs_mask_decision": true/"needs_mask_decision": false/' "$sd"/*.json

# dropped columns and tables are stale
psql -X -q -c "ALTER TABLE shop.users DROP COLUMN phone" -c "DROP TABLE shop.announcements"
rc=0
check --fail-on=stale || rc=$?
if [ $rc -eq 1 ] && grep -q '"users.phone"' "$work/stdout.json" && grep -A2 '"stale_tables"' "$work/stdout.json" | grep -q '"announcements"' &&
	grep -q 'exwiw: the config still references announcements, users.phone' "$work/stderr.txt"; then
	ok "check --fail-on=stale: a dropped column and a dropped table are stale (exit 1)"
else
	not_ok "check stale: exit $rc: $(cat "$work/stdout.json" "$work/stderr.txt")"
fi
out=$(exwiw schema tidy --from-db --schema-dir="$sd")
if grep -q "removed config for table 'announcements'" <<<"$out" && grep -q "removed column(s) phone from 'users'" <<<"$out" &&
	[ ! -e "$sd/announcements.json" ] && ! grep -q '"phone"' "$sd/users.json"; then
	ok "tidy removes the dropped table's file and the dropped column"
else
	not_ok "tidy: $out"
fi
rc=0
check || rc=$?
if [ $rc -eq 0 ]; then
	ok "check after generate, decisions and tidy: clean"
else
	not_ok "check after tidy: exit $rc $(cat "$work/stdout.json")"
fi
out=$(exwiw schema tidy --from-db --schema-dir="$sd")
if [ "$out" = "exwiw: schema config is already tidy; nothing to remove." ]; then
	ok "tidy again: nothing to remove"
else
	not_ok "tidy again: $out"
fi

# the one-file form
exwiw schema generate --from-db --schema-dir="$work/one.json" >/dev/null
if head -c 5 "$work/one.json" | grep -q '^\[' && grep -q '"name": "coupons"' "$work/one.json" &&
	exwiw --target-table=shops --ids=1 --schema-dir="$work/one.json" --allow-undecided -o "$work/dump3" &&
	ls "$work/dump3" | grep -q -- '-shops\.sql$'; then
	ok "generate --schema-dir FILE.json: one file holding the array, which the export reads"
else
	not_ok "one-file schema config"
fi

exit $fail
