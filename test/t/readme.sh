#!/usr/bin/env bash
# test/t/readme.sh: the README's examples run as printed.
#
# Extracts from README.md, and runs on the throwaway cluster:
# - the quick start: its SQL in a new database (the default one, as a
#   reader's PGDATABASE), whose exwiw_dump must print the text the README
#   says it writes; then its shell lines, which write insert-users.sql and
#   load it into devdb, which they create;
# - the client's quick start (the README's first lines): schema generate,
#   the review of the masks it marks (the one step a person does: here,
#   keep every proposed mask), the export with -j 2, createdb devdb, the
#   load of every file; shop 1 and its orders are in devdb.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/subset/lib.sh"
source "$root/test/cli/lib.sh"
cli_init readme

# readme_block HEADING KIND N: the Nth fenced block (```KIND, or a bare ```
# when KIND is "-") of README.md's section "## HEADING" (the text before the
# first section when HEADING is "-").
readme_block() {
	awk -v heading="$1" -v kind="$2" -v n="$3" '
		!inblock && /^## / { insec = (heading != "-" && substr($0, 4) == heading); started = 1; next }
		!((heading == "-" && !started) || insec) { next }
		/^```/ {
			if (inblock) { inblock = 0; if (printing) exit; next }
			inblock = 1
			tag = substr($0, 4)
			printing = ((kind == "-" && tag == "") || tag == kind) && ++k == n
			next
		}
		printing { print }
	' "$root/README.md"
}

fresh_db() {
	psql -X -q -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
DROP DATABASE IF EXISTS devdb;
DROP DATABASE IF EXISTS $1;
CREATE DATABASE $1;
SQL
}

# the quick start
sql=$(readme_block "Quick start" sql 1)
wants=$(readme_block "Quick start" - 1)
shell=$(readme_block "Quick start" sh 1)
if [ -z "$sql" ] || [ -z "$wants" ] || [ -z "$shell" ]; then
	not_ok "README.md: no quick start found (SQL, its output, the shell lines)"
	exit 1
fi
fresh_db readme_qs
got=$(PGDATABASE=readme_qs psql -X -Atq -v ON_ERROR_STOP=1 <<<"$sql")
if [ "$got" = "$wants" ]; then
	ok "quick start: the SQL runs in a new database and exwiw_dump writes what the README shows"
else
	not_ok "quick start: exwiw_dump wrote"
	printf '%s\n---- the README shows ----\n%s\n' "$got" "$wants"
fi
mkdir "$work/qs"
if (cd "$work/qs" && PGDATABASE=readme_qs bash -euo pipefail <<<"$shell") >"$work/qs.log" 2>&1 &&
	[ "$(psql -X -At -d devdb -c "SELECT string_agg(format('%s|%s|%s', id, name, note), ',' ORDER BY id) FROM users")" = "$(psql -X -At -d readme_qs -c "SELECT string_agg(format('%s|%s|%s', id, name, note), ',' ORDER BY id) FROM users")" ]; then
	ok "quick start: the shell lines write insert-users.sql and load it into devdb, which they create"
else
	not_ok "quick start's shell lines:"
	cat "$work/qs.log"
fi

# the client's quick start: the README's first lines
client=$(readme_block - sh 1)
if ! grep -q '^exwiw schema generate' <<<"$client"; then
	not_ok "README.md: the client's quick start is not the first block"
	exit 1
fi
fresh_db readme_shop
psql -X -q -v ON_ERROR_STOP=1 -d readme_shop -c "CREATE EXTENSION exwiw" -f "$root/test/subset/fixture.sql" >/dev/null
mkdir "$work/client"
generate=$(grep '^exwiw schema generate' <<<"$client")
rest=$(grep -v '^exwiw schema generate' <<<"$client")
if (
	cd "$work/client"
	export PGDATABASE=readme_shop PGOPTIONS='-c search_path=shop,public -c client_min_messages=warning'
	bash -euo pipefail <<<"$generate"
	# the review: keep every mask that generate proposes
	sed -i 's/"needs_mask_decision": true/"needs_mask_decision": false/' schema/*.json
	bash -euo pipefail <<<"$rest"
) >"$work/client.log" 2>&1; then
	# every file loaded with ON_ERROR_STOP and every constraint on; shop 1
	# and its orders are there (with what they reference, closed under
	# foreign keys)
	n_shop=$(PGOPTIONS='-c search_path=shop' psql -X -At -d devdb -c "SELECT count(*) FROM shops WHERE id = 1")
	n_orders=$(PGOPTIONS='-c search_path=shop' psql -X -At -d devdb -c "SELECT count(*) FROM orders WHERE shop_id = 1")
	n_src=$(PGOPTIONS='-c search_path=shop' psql -X -At -d readme_shop -c "SELECT count(*) FROM orders WHERE shop_id = 1")
	if [ "$n_shop" = 1 ] && [ "$n_orders" = "$n_src" ] && [ -f "$work/client/dump/insert-000-schema.sql" ]; then
		ok "the client's quick start: generate, review, export -j 2, createdb devdb, load: shop 1 and its $n_orders orders are in devdb"
	else
		not_ok "the client's quick start: devdb has $n_shop shop 1, $n_orders of its $n_src orders"
	fi
else
	not_ok "the client's quick start:"
	cat "$work/client.log"
fi

psql -X -q -c "DROP DATABASE IF EXISTS devdb" -c "DROP DATABASE readme_qs" -c "DROP DATABASE readme_shop"
exit $fail
