#!/usr/bin/env bash
# test/t/cli_load.sh: exwiw load DIR, end to end.
#
# - An export of shop 1 (INSERT and COPY formats), loaded by exwiw load into
#   a fresh, fully constrained copy of the schema by a non-superuser that
#   owns the tables (every foreign key checked), equals production's tenant
#   rows: the same export loaded by psql -f, file by file (the Ruby
#   client's workflow), compared table by table with EXCEPT both ways.
#   -j 2 loads the same rows.
# - A second tenant (shop 2: its closure shares shop 2's rows, user 3,
#   product 4 and the announcements with shop 1's) into the same database:
#   --on-conflict=skip loads it (the result is the union of both tenants),
#   --on-conflict=error fails on the first shared row.
# - A failing file stops the load, names the file and the line (a
#   statement's, and a COPY data line's), loads nothing after it; with
#   --single-transaction nothing at all stays.
# - --refresh: the delete files, then the inserts, in one transaction:
#   after rows changed in production, the development database holds the
#   new export, and of the old one only another tenant's row (a product of
#   shop 2 that a since-deleted order reached): the rows of other tenants
#   the export brings as parents are skipped, not deleted (shop 2 stays);
#   with --on-conflict=error they fail the refresh; a refresh that fails
#   changes nothing.
# - Hostile values under SJIS (test/t/file_encoding.sh's attack): the
#   files load the exact bytes under each client-only encoding and run
#   nothing; without the file's client_encoding line, exwiw load refuses
#   the "\!" that psql would run, and still runs nothing.
# - --with-schema: insert-000-schema.sql (pg_dump's DDL, $$ bodies and
#   \restrict lines) and the data load into an empty database.
# - Usage errors: -j with --single-transaction (as pg_restore), -j with
#   --refresh, no DIR, a JSON Lines export, a bad --on-conflict.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/subset/lib.sh"
source "$root/test/cli/lib.sh"
cli_init load
chmod 777 "$work"
unset PGCLIENTENCODING

subset_make_databases "$root" load
psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
SET client_min_messages = warning;
DROP DATABASE IF EXISTS load_ref;
CREATE DATABASE load_ref;
SQL
pg_dump --schema-only -n shop -d load_src >"$work/schema.sql"
export PGOPTIONS='-c search_path=shop,public -c client_min_messages=warning'
exwiw schema generate --from-db --dbname=load_src --schema-dir="$work/schema" >/dev/null

tables=$(psql -XAt -d load_src -c "SELECT relname FROM pg_catalog.pg_class
	WHERE relnamespace = 'shop'::regnamespace AND relkind IN ('r', 'p') ORDER BY 1")

# export DIR FORMAT IDS: the client's export of shops IDS
export_shops() {
	exwiw --dbname=load_src --target-table=shops --ids="$3" --schema-dir="$work/schema" \
		--output-format="$2" --allow-undecided -q -o "$1" --force
}

# fresh DB: an empty, fully constrained schema shop in DB (load_dst or
# load_ref), owned by load_loader
fresh() {
	psql -X -q -v ON_ERROR_STOP=1 -d "$1" -c "SET client_min_messages = warning" \
		-c "DROP SCHEMA IF EXISTS shop CASCADE"
	psql -X -q -v ON_ERROR_STOP=1 -d "$1" -f "$work/schema.sql" >/dev/null
	psql -X -q -v ON_ERROR_STOP=1 -d "$1" <<SQL
DO \$\$ DECLARE r record; BEGIN
	FOR r IN SELECT c.oid::regclass AS t FROM pg_catalog.pg_class c
		WHERE c.relnamespace = 'shop'::regnamespace AND c.relkind IN ('r', 'p')
	LOOP
		EXECUTE format('ALTER TABLE %s OWNER TO load_loader', r.t);
	END LOOP;
END \$\$;
GRANT USAGE ON SCHEMA shop TO load_loader;
SQL
}

# xload ARGS...: exwiw load as load_loader into load_dst
xload() {
	exwiw load "$@" -U load_loader -d load_dst
}

# copy_into_src DB SCHEMA: DB's shop tables into schema SCHEMA of load_src
copy_into_src() {
	local db=$1 schema=$2 t
	psql -X -q -v ON_ERROR_STOP=1 -d load_src -c "DROP SCHEMA IF EXISTS $schema CASCADE" -c "CREATE SCHEMA $schema"
	for t in $tables; do
		psql -X -q -v ON_ERROR_STOP=1 -d load_src -c "CREATE TABLE $schema.$t (LIKE shop.$t)"
		psql -X -q -v ON_ERROR_STOP=1 -d "$db" -c "COPY shop.$t TO STDOUT" |
			psql -X -q -v ON_ERROR_STOP=1 -d load_src -c "COPY $schema.$t FROM STDIN"
	done
}

# differ A B: the tables where schemas A and B of load_src differ
# (EXCEPT both ways); B may be a UNION of schemas "x+y"
differ() {
	local a=$1 b=$2 t out="" q
	for t in $tables; do
		if [ "${b#*+}" != "$b" ]; then
			q="(SELECT * FROM ${b%+*}.$t UNION SELECT * FROM ${b#*+}.$t)"
		else
			q="(SELECT * FROM $b.$t)"
		fi
		n=$(psql -XAt -d load_src -c "SELECT (SELECT count(*) FROM (SELECT * FROM $a.$t EXCEPT SELECT * FROM $q s) d)
			+ (SELECT count(*) FROM ($q EXCEPT SELECT * FROM $a.$t) e)")
		[ "$n" = 0 ] || out="$out $t"
	done
	echo "$out"
}

# rows DB: total rows of DB's shop tables
rows() {
	local t n=0
	for t in $tables; do
		n=$((n + $(psql -XAt -d "$1" -c "SELECT count(*) FROM shop.$t")))
	done
	echo "$n"
}

# the references: psql -f, file by file, as the Ruby client's users load
for ids in 1 2; do
	export_shops "$work/ins$ids" insert "$ids"
	export_shops "$work/copy$ids" copy "$ids"
	fresh load_ref
	subset_load_files "$work/ins$ids" -U load_loader -d load_ref 2>/dev/null
	copy_into_src load_ref ref$ids
done
[ "$(rows load_ref)" -gt 10 ] || not_ok "the reference export is almost empty"

if subset_loader_may_skip_keys load; then
	not_ok "load_loader may set session_replication_role: the loads would not check foreign keys"
fi

# 1. one tenant, INSERT and COPY, -j 1 and -j 2
for fmt in ins copy; do
	for j in 1 2; do
		fresh load_dst
		if ! xload "$work/${fmt}1" -j "$j" >"$work/out" 2>"$work/err"; then
			not_ok "$fmt -j $j: exwiw load failed: $(cat "$work/err")"
			continue
		fi
		[ -s "$work/out" ] || [ -s "$work/err" ] &&
			not_ok "$fmt -j $j: printed although stdout and stderr are not terminals: $(cat "$work/out" "$work/err")"
		copy_into_src load_dst got
		d=$(differ got ref1)
		if [ -z "$d" ]; then
			ok "$fmt -j $j: shop 1 loaded with every constraint enforced equals production's tenant rows as psql -f loads them ($(rows load_dst) rows, EXCEPT both ways)"
		else
			not_ok "$fmt -j $j: differs from the psql-loaded export in:$d"
		fi
	done
done

# -j 2's plan: transactions and order_items both reference orders, not
# each other: neither waits for the other; each waits for orders
fresh load_dst
xload "$work/ins1" -j 2 --log-level=debug 2>"$work/err" >/dev/null || true
items=$(grep -o 'insert-[0-9]*-order_items.sql waits for:.*' "$work/err" || true)
trans=$(grep -o 'insert-[0-9]*-transactions.sql waits for:.*' "$work/err" || true)
if [ -n "$items" ] && [ -n "$trans" ] &&
	! grep -q 'order_items' <<<"${trans#*:}" && ! grep -q 'transactions' <<<"${items#*:}" &&
	grep -q -- '-orders.sql' <<<"${trans#*:}" && grep -q -- '-orders.sql' <<<"${items#*:}"; then
	ok "-j 2: order_items and transactions may load at the same time, both after orders"
else
	not_ok "-j 2's plan: $items / $trans"
fi

# 2. a second tenant into the same database
for fmt in ins copy; do
	fresh load_dst
	xload "$work/${fmt}1" -q
	if xload "$work/${fmt}2" --on-conflict=skip 2>"$work/err"; then
		copy_into_src load_dst got
		d=$(differ got ref1+ref2)
		if [ -z "$d" ]; then
			ok "$fmt: shop 2 loaded with --on-conflict=skip over shop 1: the union of both tenants ($(rows load_dst) rows)"
		else
			not_ok "$fmt: shop 1 + shop 2 (--on-conflict=skip) differs from the union in:$d"
		fi
	else
		not_ok "$fmt: --on-conflict=skip failed: $(cat "$work/err")"
	fi
	fresh load_dst
	xload "$work/${fmt}1" -q
	if xload "$work/${fmt}2" --on-conflict=error 2>"$work/err"; then
		not_ok "$fmt: --on-conflict=error loaded the second tenant over shared rows"
	elif grep -qE "^exwiw: error: .*/${fmt}2/insert-[0-9]+-[a-z_]+\.sql:[0-9]+: ERROR:  duplicate key value" "$work/err"; then
		ok "$fmt: --on-conflict=error stops at the first shared row: $(head -n1 "$work/err" | sed "s|$work/||")"
	else
		not_ok "$fmt: --on-conflict=error: unexpected message: $(cat "$work/err")"
	fi
done

# 3. a failing file names the file and the line, and stops the load
mkdir -p "$work/bad"
cp "$work/ins1"/* "$work/bad/"
first=$(cd "$work/bad" && ls insert-*.sql | sed -n 1p)
first_table=$(sed -n 's/^insert-[0-9]*-\(.*\)\.sql$/\1/p' <<<"$first")
second=$(cd "$work/bad" && ls insert-*.sql | sed -n 2p)
last=$(cd "$work/bad" && ls insert-*.sql | tail -n1)
last_table=$(sed -n 's/^insert-[0-9]*-\(.*\)\.sql$/\1/p' <<<"$last")
line=$(($(wc -l <"$work/bad/$second") + 2))
printf '\nINSERT INTO no_such_table VALUES (1);\n' >>"$work/bad/$second"
fresh load_dst
if xload "$work/bad" 2>"$work/err"; then
	not_ok "a failing file: exit status 0"
elif grep -qF "exwiw: error: $work/bad/$second:$line: ERROR:  relation \"no_such_table\" does not exist" "$work/err" &&
	[ "$(psql -XAt -d load_dst -c "SELECT count(*) FROM shop.$last_table")" = 0 ] &&
	[ "$(psql -XAt -d load_dst -c "SELECT count(*) FROM shop.$first_table")" != 0 ]; then
	ok "a failing file stops the load and names the file and line ($second:$line); the files before it stay, $last is not loaded"
else
	not_ok "a failing file: $(cat "$work/err"); $last_table has $(psql -XAt -d load_dst -c "SELECT count(*) FROM shop.$last_table") rows"
fi
fresh load_dst
if xload "$work/bad" -j 2 2>"$work/err"; then
	not_ok "-j 2, a failing file: exit status 0"
elif [ "$(grep -c '^exwiw: error:' "$work/err")" = 1 ] &&
	grep -qF "exwiw: error: $work/bad/$second:$line: ERROR:  relation \"no_such_table\" does not exist" "$work/err"; then
	ok "-j 2: a failing file stops the load, one error naming the file and line"
else
	not_ok "-j 2, a failing file: $(cat "$work/err")"
fi
fresh load_dst
if xload "$work/bad" --single-transaction 2>"$work/err"; then
	not_ok "--single-transaction: a failing file, exit status 0"
elif [ "$(rows load_dst)" = 0 ] && grep -qF "$second:$line:" "$work/err"; then
	ok "--single-transaction: the failing file leaves nothing loaded"
else
	not_ok "--single-transaction: $(rows load_dst) rows left: $(cat "$work/err")"
fi

# a bad COPY data line: the line of the file
mkdir -p "$work/badcopy"
cp "$work/copy1"/* "$work/badcopy/"
users=$(cd "$work/badcopy" && ls insert-*-users.sql)
dline=$(($(grep -n '^COPY ' "$work/badcopy/$users" | cut -d: -f1) + 2))
sed -i "${dline}s/^[0-9]*/notanumber/" "$work/badcopy/$users"
fresh load_dst
if xload "$work/badcopy" 2>"$work/err"; then
	not_ok "a bad COPY line: exit status 0"
elif grep -qF "exwiw: error: $work/badcopy/$users:$dline: ERROR:  invalid input syntax" "$work/err"; then
	ok "a bad COPY data line is named by its line of the file ($users:$dline)"
else
	not_ok "a bad COPY line ($users:$dline): $(cat "$work/err")"
fi

# 4. --refresh
# the export's own delete files (delete-NNN-<table>.sql, children first)
fresh load_dst
xload "$work/ins1" -q
psql -X -q -v ON_ERROR_STOP=1 -d load_src <<'SQL'
SET search_path = shop;
UPDATE shops SET name = 'Acme Renamed' WHERE id = 1;
DELETE FROM orders WHERE id = 2;
INSERT INTO orders (shop_id, user_id, ordered_at, total) VALUES (1, 1, '2026-02-01 10:00:00+00', 1.00);
UPDATE users SET name = 'Alice A.' WHERE id = 1;
SQL
export_shops "$work/ins1b" insert 1
[ -n "$(cd "$work/ins1b" && ls delete-*.sql 2>/dev/null)" ] || not_ok "the export wrote no delete files"
fresh load_ref
for f in $(cd "$work/ins1b" && ls insert-*.sql); do
	psql -X -q -v ON_ERROR_STOP=1 -U load_loader -d load_ref -f "$work/ins1b/$f" >/dev/null 2>&1
done
copy_into_src load_ref ref1b
if ! xload "$work/ins1b" 2>"$work/err" >/dev/null; then
	ok "without --refresh, the changed export does not load over the old rows (the delete files do not run): $(head -c 100 "$work/err" | head -n1 | sed "s|$work/||")"
else
	not_ok "without --refresh, the delete files ran or the inserts were skipped"
fi
# What the refresh must leave: the new export's rows, and the rows of other
# tenants that the old export brought as parents and the new one does not
# (product 4 of shop 2, which only the deleted order 2 reached): another
# tenant's rows are not deleted (doc/cli.md, "Rows of other tenants").
psql -X -q -v ON_ERROR_STOP=1 -d load_src -c "DROP SCHEMA IF EXISTS left1 CASCADE" -c "CREATE SCHEMA left1"
for t in $tables; do
	psql -X -q -v ON_ERROR_STOP=1 -d load_src -c "CREATE TABLE left1.$t (LIKE shop.$t)"
done
psql -X -q -v ON_ERROR_STOP=1 -d load_src -c "INSERT INTO left1.products SELECT * FROM ref1.products WHERE shop_id <> 1 EXCEPT SELECT * FROM ref1b.products"
[ "$(psql -XAt -d load_src -c "SELECT count(*) FROM left1.products")" -ge 1 ] ||
	not_ok "the fixture has no row of another tenant that only the old export brought"
if xload "$work/ins1b" --refresh 2>"$work/err"; then
	copy_into_src load_dst got
	d=$(differ got ref1b+left1)
	if [ -z "$d" ]; then
		ok "--refresh: after rows changed in production, the database holds the new export and, of the old one, only another tenant's product ($(rows load_dst) rows, EXCEPT both ways)"
	else
		not_ok "--refresh: differs from the new export (and the other tenant's rows) in:$d"
	fi
	if [ "$(psql -XAt -d load_dst -c "SELECT count(*) FROM shop.shops WHERE id = 2")" = 1 ]; then
		ok "--refresh: shop 2, brought again as a parent, is skipped, not deleted"
	else
		not_ok "--refresh: shop 2 is gone"
	fi
else
	not_ok "--refresh failed: $(cat "$work/err")"
fi
if xload "$work/ins1b" --refresh --on-conflict=error 2>"$work/err"; then
	not_ok "--refresh --on-conflict=error: loaded over another tenant's rows"
elif grep -q 'duplicate key value' "$work/err"; then
	ok "--refresh --on-conflict=error: another tenant's row the database has fails the load: $(head -n1 "$work/err" | sed "s|$work/||")"
else
	not_ok "--refresh --on-conflict=error: $(cat "$work/err")"
fi
# a refresh that fails changes nothing
before=$(psql -XAt -d load_dst -c "SELECT string_agg(s::text, ',' ORDER BY id) FROM shop.shops s")
cp -r "$work/ins1b" "$work/ins1c"
printf '\nSELECT 1/0;\n' >>"$work/ins1c/$last"
if xload "$work/ins1c" --refresh 2>"$work/err"; then
	not_ok "--refresh with a failing file: exit status 0"
elif [ "$(psql -XAt -d load_dst -c "SELECT string_agg(s::text, ',' ORDER BY id) FROM shop.shops s")" = "$before" ] &&
	copy_into_src load_dst got && [ -z "$(differ got ref1b+left1)" ]; then
	ok "--refresh with a failing file changes nothing (one transaction): $(head -n1 "$work/err" | sed "s|$work/||")"
else
	not_ok "--refresh with a failing file changed the database"
fi

# 5. hostile values under client-only encodings (see test/t/file_encoding.sh)
psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
SET client_min_messages = warning;
DROP DATABASE IF EXISTS load_enc_src;
DROP DATABASE IF EXISTS load_enc_dst;
CREATE DATABASE load_enc_src ENCODING 'UTF8' TEMPLATE template0;
CREATE DATABASE load_enc_dst ENCODING 'UTF8' TEMPLATE template0;
SQL
pwn=$work/pwned
psql -X -q -v ON_ERROR_STOP=1 -d load_enc_src -v pwn="$pwn" <<'SQL'
CREATE EXTENSION exwiw;
CREATE TABLE public.hostile (id int PRIMARY KEY, v text);
INSERT INTO public.hostile VALUES
	(1, E'\u4e00''\n\\! touch ' || :'pwn' || E'1\n'),
	(2, E'\u4e00'),
	(3, E'\n\\! touch ' || :'pwn' || E'3\n'),
	(4, E'\u8868\\''\n\\! touch ' || :'pwn' || E'4\n'),
	(5, E'\u4e00\u4e00''\u8868''\n\\! touch ' || :'pwn' || E'5 #'''),
	(12, E'x\\''\n\\! touch ' || :'pwn' || E'12\n');
SQL
mkdir -p "$work/hs"
echo '{"name": "hostile", "primary_key": "id"}' >"$work/hs/hostile.json"
enc_fresh() {
	rm -f "$pwn"*
	psql -X -q -v ON_ERROR_STOP=1 -d load_enc_dst -c "SET client_min_messages = warning" \
		-c "DROP TABLE IF EXISTS public.hostile" \
		-c "CREATE TABLE public.hostile (id int PRIMARY KEY, v text)" \
		-c "GRANT SELECT, INSERT ON public.hostile TO load_loader"
}
digest() {
	psql -X -At -d "$1" -c "SELECT string_agg(id || ':' || md5(v), ',' ORDER BY id) FROM public.hostile"
}
pwned() { compgen -G "$pwn*" >/dev/null; }
for wenc in SJIS UTF8; do
	for fmt in insert copy; do
		PGOPTIONS= PGCLIENTENCODING=$wenc exwiw --dbname=load_enc_src --target-table=hostile --ids=1,2,3,4,5,12 \
			--schema-dir="$work/hs" --output-format=$fmt -q -o "$work/$wenc-$fmt" --force
		[ "$(head -n1 "$work/$wenc-$fmt"/insert-001-hostile.sql)" = "SET client_encoding = '$wenc';" ] ||
			not_ok "$fmt: the $wenc export does not start with its client_encoding line"
		for enc in SJIS BIG5 GBK GB18030 UHC UTF8; do
			enc_fresh
			if ! PGOPTIONS= PGCLIENTENCODING=$enc exwiw load "$work/$wenc-$fmt" -U load_loader -d load_enc_dst 2>"$work/err"; then
				not_ok "$fmt: the $wenc file under $enc: the load failed: $(cat "$work/err")"
			elif pwned; then
				not_ok "$fmt: the $wenc file under $enc: a command ran"
			elif [ "$(digest load_enc_dst)" != "$(digest load_enc_src)" ]; then
				not_ok "$fmt: the $wenc file under $enc: the values differ"
			else
				ok "$fmt: the $wenc file loaded under $enc: the exact values, nothing ran"
			fi
		done
	done
done
# without its client_encoding line, psql would run "\!" under SJIS; exwiw
# load refuses it and runs nothing
mkdir -p "$work/bare"
grep -av '^SET client_encoding' "$work/UTF8-insert/insert-001-hostile.sql" >"$work/bare/insert-001-hostile.sql"
enc_fresh
PGOPTIONS= PGCLIENTENCODING=SJIS psql -X -q -U load_loader -d load_enc_dst -f "$work/bare/insert-001-hostile.sql" >/dev/null 2>&1 || true
if pwned; then
	ok "control: psql runs the \\! of the file without its client_encoding line under SJIS"
else
	not_ok "control: psql ran nothing: the attack is not shown"
fi
enc_fresh
if PGOPTIONS= PGCLIENTENCODING=SJIS exwiw load "$work/bare" -U load_loader -d load_enc_dst 2>"$work/err"; then
	pwned && not_ok "exwiw load ran a meta-command" || ok "exwiw load of the file without its client_encoding line: nothing ran"
elif pwned; then
	not_ok "exwiw load ran a meta-command: $(cat "$work/err")"
elif grep -q 'psql meta-command "\\!" is not supported' "$work/err"; then
	ok "exwiw load of the file without its client_encoding line under SJIS refuses the \\!, runs nothing: $(head -n1 "$work/err" | sed "s|$work/||")"
else
	not_ok "exwiw load of the bare file: $(cat "$work/err")"
fi
mkdir -p "$work/meta"
printf 'SET client_encoding = %s;\n\\! touch %s-meta\nSELECT 1;\n' "'UTF8'" "$pwn" >"$work/meta/insert-001-x.sql"
if ! exwiw load "$work/meta" -d load_enc_dst 2>"$work/err" && ! pwned &&
	grep -qF "$work/meta/insert-001-x.sql:2: psql meta-command" "$work/err"; then
	ok "a meta-command line is refused with its file and line, and never runs"
else
	not_ok "a meta-command line: $(cat "$work/err")"
fi

# 6. --with-schema into an empty database (superuser: the DDL)
psql -X -q -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS load_empty" -c "CREATE DATABASE load_empty"
exwiw --dbname=load_src --target-table=shops --ids=1 --schema-dir="$work/schema" \
	--allow-undecided --with-schema -q -o "$work/ws" --force
if exwiw load "$work/ws" -d load_empty 2>"$work/err" &&
	[ "$(psql -XAt -d load_empty -c "SELECT count(*) FROM shop.shops")" -gt 0 ]; then
	ok "--with-schema: insert-000-schema.sql ($(grep -c '^\\' "$work/ws/insert-000-schema.sql" || true) psql lines \\restrict/\\unrestrict skipped) and the data load into an empty database"
else
	not_ok "--with-schema: $(cat "$work/err")"
fi

# no option at all: the environment says where ("exwiw load" alone prints the help)
fresh load_dst
if PGUSER=load_loader PGDATABASE=load_dst exwiw load "$work/copy1" 2>"$work/err" &&
	[ "$(rows load_dst)" = "$(psql -XAt -d load_src -c "SELECT $(for t in $tables; do printf '(SELECT count(*) FROM ref1.%s) + ' "$t"; done) 0")" ]; then
	ok "exwiw load DIR with no option loads into the environment's database"
else
	not_ok "exwiw load DIR with no option: $(cat "$work/err")"
fi
help=$(exwiw load 2>&1 || true)
if grep -q '^Usage: exwiw' <<<"$help"; then
	ok "exwiw load alone prints the help"
else
	not_ok "exwiw load alone does not print the help"
fi

# 7. usage errors
expect_error "-j with --single-transaction" "cannot specify both --single-transaction and multiple jobs" \
	exwiw load "$work/ins1" -j 2 --single-transaction -d load_dst
expect_error "-j with --refresh" "cannot specify both --refresh and multiple jobs" \
	exwiw load "$work/ins1" -j 2 --refresh -d load_dst
expect_error "no directory" "needs the directory" exwiw load -d load_dst
expect_error "bad --on-conflict" "invalid --on-conflict" exwiw load "$work/ins1" --on-conflict=merge -d load_dst
export_shops "$work/jsonl1" jsonl 1
expect_error "a JSON Lines export" "JSON Lines files" exwiw load "$work/jsonl1" -d load_dst
expect_error "--on-conflict outside load" "apply to the load subcommand only" \
	exwiw --dbname=load_src --target-table=shops --ids=1 --schema-dir="$work/schema" --on-conflict=skip -o "$work/x"

exit $fail
