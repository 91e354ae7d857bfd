#!/usr/bin/env bash
# test/t/cli_parts.sh: the client's parts of files (issue 23).
#
# - -j 2 deals the parts of a large file to two workers (the plan's row
#   estimates decide it; --log-level=debug says so) and joins them: the
#   directory equals -j 1's byte for byte, in every format; exwiw dump
#   --table -j 2 (one file, two parts) equals -j 1;
# - --split-rows=N writes insert-NNN-<table>.partK.sql (.jsonl) files of at
#   most N rows: each part loads on its own, in its own session, as a role
#   that is not a superuser and does not own the tables (so every foreign
#   key is checked), and adds at most N rows; the setval line is in the
#   last part only; the parts together equal the whole export loaded
#   elsewhere (EXCEPT both ways, every table) and the sequences agree;
# - edge cases: N larger than every table (one .part1 file per table), an
#   empty table (no file), N=1 (one row per file), JSON Lines parts that
#   concatenate to the whole file; invalid N is an error that leaves
#   nothing behind, on the client and on the server;
# - exwiw.io_concurrency=64 (bitmap heap scans with reads in flight) gives
#   the same directory.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/cli/lib.sh"
cli_init parts

ddl='
CREATE TABLE shops (id bigserial PRIMARY KEY, name text NOT NULL);
CREATE TABLE orders (id bigserial PRIMARY KEY, shop_id bigint NOT NULL REFERENCES shops,
	note text, amount numeric, at timestamptz);
CREATE INDEX ON orders (shop_id);
CREATE TABLE refunds (id bigserial PRIMARY KEY, shop_id bigint NOT NULL REFERENCES shops,
	qty int CHECK (qty > 0));
CREATE INDEX ON refunds (shop_id);
CREATE TABLE notes (id bigserial PRIMARY KEY, shop_id bigint NOT NULL REFERENCES shops, body text);
CREATE INDEX ON notes (shop_id);
'
psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
SET client_min_messages = warning;
DROP DATABASE IF EXISTS cli_parts;
DROP DATABASE IF EXISTS cli_parts_whole;
DROP DATABASE IF EXISTS cli_parts_split;
DROP ROLE IF EXISTS cli_parts_loader;
CREATE ROLE cli_parts_loader LOGIN NOSUPERUSER;
CREATE DATABASE cli_parts;
SQL
export PGDATABASE=cli_parts
psql -X -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION exwiw" -c "$ddl" <<'SQL'
SQL
psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
INSERT INTO shops (name) SELECT 'shop ' || g FROM generate_series(1, 3) g;
-- shop 3 has 5 orders; shops 1 and 2 share the rest
INSERT INTO orders (shop_id, note, amount, at)
SELECT CASE WHEN g <= 5 THEN 3 ELSE 1 + g % 2 END, E'order ''' || g, g / 7.0,
	timestamptz '2024-01-01 00:00:00+00' + g * interval '1 minute'
FROM generate_series(1, 60000) g;
INSERT INTO refunds (shop_id, qty) SELECT 1 + g % 3, 1 + g % 5 FROM generate_series(1, 3000) g;
ANALYZE;
SQL
exwiw schema generate --from-db --dbname=cli_parts --schema-dir="$work/schema" >/dev/null
x() { exwiw --dbname=cli_parts --schema-dir="$work/schema" --allow-undecided "$@"; }

# -j 2 with parts = -j 1, every format (--insert-only: a file in parts has
# no delete file, so parts are dealt only without them)
for fmt in insert copy jsonl; do
	x --target-table=shops --ids=1,2 --output-format=$fmt --insert-only -j 1 -o "$work/$fmt.1"
	x --target-table=shops --ids=1,2 --output-format=$fmt --insert-only -j 2 -o "$work/$fmt.2" --log-level=debug 2>"$work/log"
	if same_dirs "$work/$fmt.1" "$work/$fmt.2" && grep -q 'split into 2 parts' "$work/log" &&
		grep -q 'joined 2 parts into insert-[0-9]*-orders' "$work/log"; then
		ok "export --output-format=$fmt -j 2: the orders file in 2 parts from 2 workers, joined: the directory equals -j 1's"
	else
		not_ok "export --output-format=$fmt -j 2: differs from -j 1, or no parts ($(grep -c 'split into\|joined' "$work/log" || true) log lines)"
	fi
done

# exwiw.io_concurrency (bitmap heap scans, reads in flight): the same bytes
PGOPTIONS='-c exwiw.io_concurrency=64' x --target-table=shops --ids=1,2 --insert-only -j 2 -o "$work/io"
if same_dirs "$work/insert.1" "$work/io"; then
	ok "exwiw.io_concurrency=64: the same directory"
else
	not_ok "exwiw.io_concurrency=64 changes the files"
fi

# exwiw dump --table -j 2: one file in two parts
for fmt in sql copy jsonl; do
	exwiw dump --table=orders --format=$fmt -j 1 -o "$work/d$fmt.1"
	exwiw dump --table=orders --format=$fmt -j 2 -o "$work/d$fmt.2" --log-level=debug 2>"$work/log"
	if same_dirs "$work/d$fmt.1" "$work/d$fmt.2" && [ "$(ls "$work/d$fmt.2" | wc -l)" = 1 ] &&
		grep -q 'joined 2 parts' "$work/log"; then
		ok "dump --table=orders --format=$fmt -j 2: two parts joined, the file equals -j 1's"
	else
		not_ok "dump --format=$fmt -j 2 differs from -j 1: $(ls "$work/d$fmt.2")"
	fi
done

# --split-rows: destination databases, loaded as a non-superuser
for db in cli_parts_whole cli_parts_split; do
	psql -X -q -v ON_ERROR_STOP=1 -c "CREATE DATABASE $db"
	psql -X -q -v ON_ERROR_STOP=1 -d $db -c "$ddl" -c "
		GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA public TO cli_parts_loader;
		GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO cli_parts_loader;"
done
N=7000
x --target-table=shops --ids=1,2 --split-rows=$N --insert-only -j 2 -o "$work/split"
# each file in its own session, in name order, counting the rows it adds
bad=0
over=0
for f in $(ls "$work/split" | LC_ALL=C sort); do
	t=$(sed 's/^insert-[0-9]*-\(.*\)\.part[0-9]*\.sql$/\1/' <<<"$f")
	before=$(psql -X -At -d cli_parts_split -c "SELECT count(*) FROM $t")
	psql -X -q -v ON_ERROR_STOP=1 -U cli_parts_loader -d cli_parts_split -f "$work/split/$f" >/dev/null 2>"$work/err" || {
		bad=1
		echo "    $f: $(head -n 3 "$work/err")"
	}
	after=$(psql -X -At -d cli_parts_split -c "SELECT count(*) FROM $t")
	[ $((after - before)) -le $N ] && [ $((after - before)) -ge 1 ] || over=1
done
subset_like_load() {
	local f
	for f in $(ls "$1" | LC_ALL=C sort); do
		psql -X -q -v ON_ERROR_STOP=1 -U cli_parts_loader -d "$2" -f "$1/$f" >/dev/null
	done
}
subset_like_load "$work/insert.1" cli_parts_whole
nparts=$(ls "$work/split" | grep -c 'orders\.part')
setvals=$(grep -l 'setval' "$work/split"/*orders.part*.sql | paste -sd' ')
if [ $bad -eq 0 ] && [ $over -eq 0 ] && [ "$nparts" -eq 9 ] &&
	[ "$setvals" = "$work/split/$(ls "$work/split" | grep 'orders\.part9\.sql')" ]; then
	ok "--split-rows=$N: 9 orders parts of at most $N rows, each loads on its own as a non-superuser (keys checked); setval in the last only"
else
	not_ok "--split-rows=$N: load failed ($bad), a part over $N rows ($over), $nparts parts, setval in: $setvals"
fi
diff=0
for t in shops orders refunds notes; do
	psql -X -q -v ON_ERROR_STOP=1 -d cli_parts_split -c "CREATE TABLE whole_$t (LIKE $t)"
	psql -X -q -d cli_parts_whole -c "COPY $t TO STDOUT" | psql -X -q -v ON_ERROR_STOP=1 -d cli_parts_split -c "COPY whole_$t FROM STDIN"
	d=$(psql -X -At -d cli_parts_split -c "SELECT count(*) FROM ((TABLE $t EXCEPT ALL TABLE whole_$t) UNION ALL (TABLE whole_$t EXCEPT ALL TABLE $t)) d")
	diff=$((diff + d))
done
seqs() { psql -X -At -d "$1" -c "SELECT string_agg(last_value::text, ',' ORDER BY sequencename) FROM pg_sequences"; }
if [ $diff -eq 0 ] && [ "$(seqs cli_parts_split)" = "$(seqs cli_parts_whole)" ] &&
	[ "$(psql -X -At -d cli_parts_split -c 'SELECT count(*) FROM orders')" -gt 50000 ]; then
	ok "--split-rows=$N: the parts together equal the whole export (EXCEPT both ways, every table); the sequences agree"
else
	not_ok "--split-rows=$N: $diff rows differ, or the sequences: $(seqs cli_parts_split) / $(seqs cli_parts_whole)"
fi

# N larger than every table; the empty table has no file
x --target-table=shops --ids=1,2 --split-rows=1000000 --insert-only -o "$work/big"
if [ "$(ls "$work/big" | sed 's/^insert-[0-9]*-//' | paste -sd' ')" = "shops.part1.sql orders.part1.sql refunds.part1.sql" ] &&
	for f in "$work"/big/*; do cmp -s "$f" "$work/insert.1/$(basename "$f" | sed 's/\.part1//')" || exit 1; done; then
	ok "--split-rows larger than every table: one .part1 file per table, the whole file's bytes; the empty table has none"
else
	not_ok "--split-rows=1000000: $(ls "$work/big" | paste -sd' ')"
fi

# N=1 on the small shop, SQL and JSON Lines
x --target-table=shops --ids=3 --split-rows=1 --insert-only -o "$work/one"
x --target-table=shops --ids=3 -o "$work/one.whole"
x --target-table=shops --ids=3 --split-rows=1 --output-format=jsonl -j 2 -o "$work/onej"
x --target-table=shops --ids=3 --output-format=jsonl -o "$work/onej.whole"
psql -X -q -d cli_parts_split -c "TRUNCATE shops, orders, refunds, notes"
bad=0
for f in $(ls "$work/one" | LC_ALL=C sort); do
	psql -X -q -v ON_ERROR_STOP=1 -U cli_parts_loader -d cli_parts_split -f "$work/one/$f" >/dev/null || bad=1
done
if [ $bad -eq 0 ] && [ "$(ls "$work/one" | grep -c 'orders\.part')" -eq 5 ] &&
	[ "$(psql -X -At -d cli_parts_split -c 'SELECT count(*) FROM orders')" -eq 5 ] &&
	[ "$(ls "$work/onej" | grep -c 'orders\.part')" -eq 5 ] &&
	! wc -l "$work"/onej/* | grep -v total | awk '$1 != 1 { exit 1 }' | grep -q . &&
	cmp -s <(cat $(ls -d "$work"/onej/*orders.part* | sort -V)) "$work"/onej.whole/*orders.jsonl; then
	ok "--split-rows=1: 5 orders files of one row each that load on their own; JSON Lines parts (-j 2) concatenate to the whole file"
else
	not_ok "--split-rows=1: bad=$bad, $(ls "$work/one" | paste -sd' ')"
fi

# invalid N
expect_error "--split-rows=0" 'must be a positive integer' x --target-table=shops --ids=1 --split-rows=0 -o "$work/e"
expect_error "--split-rows=-3" 'must be a positive integer' x --target-table=shops --ids=1 --split-rows=-3 -o "$work/e"
expect_error "--split-rows=abc" 'an integer is expected' x --target-table=shops --ids=1 --split-rows=abc -o "$work/e"
expect_error "explain --split-rows" 'not applicable in .explain. subcommand: --split-rows' \
	exwiw explain --dbname=cli_parts --schema-dir="$work/schema" --target-table=shops --ids=1 --split-rows=5
out=$(psql -X -At -c "SELECT count(*) FROM exwiw_export('shops', '{1}', NULL, allow_undecided => true, split_rows => 0)" 2>&1 || true)
if grep -q 'split_rows must be positive' <<<"$out"; then
	ok "exwiw_export(split_rows => 0) is an error"
else
	not_ok "exwiw_export(split_rows => 0) is not an error"
fi
exit $fail
