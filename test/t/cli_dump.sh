#!/usr/bin/env bash
# test/t/cli_dump.sh: exwiw dump, one table or query into files of at most N
# rows on one snapshot (issue 23).
#
# - --table --rows-per-file, every format, -j 1 and -j 3: the same
#   directory; files of at most N rows in key order; JSON Lines files that
#   concatenate to exwiw_dump_jsonl of the table; SQL and COPY files that
#   each load by themselves (loaded in reverse order) into an empty copy of
#   the table, which then equals the source (EXCEPT both ways);
# - a text key (upper case, lower case, non-ASCII): files that split where
#   the key's own order says;
# - one file with -j 2: two key ranges of whole statements, joined into
#   -j 1's file (sql, jsonl);
# - without --rows-per-file: one file, exwiw_dump's bytes (10,000 rows per
#   INSERT);
# - --query --format=jsonl --rows-per-file: the query's parts, -j 2;
# - the errors, which leave nothing behind.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/subset/lib.sh"
source "$root/test/cli/lib.sh"
cli_init dump

psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
SET client_min_messages = warning;
DROP DATABASE IF EXISTS cli_dump;
CREATE DATABASE cli_dump;
SQL
export PGDATABASE=cli_dump
psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
CREATE EXTENSION exwiw;
CREATE SCHEMA "Sales";
CREATE TABLE "Sales".items (id bigint PRIMARY KEY, name text, price numeric, at timestamptz, tags text[]);
INSERT INTO "Sales".items SELECT g * 3, CASE WHEN g % 9 = 0 THEN NULL ELSE E'it''em\n\\' || g END, g / 7.0,
	timestamptz '2024-01-01 00:00:00+00' + g * interval '1 hour', ARRAY['a', g::text]
FROM generate_series(1, 25000) g;
CREATE TABLE "Sales".items_copy (LIKE "Sales".items);
CREATE TABLE "Sales".nokey (a int, b text);
INSERT INTO "Sales".nokey VALUES (1, 'x'), (2, 'y');
SQL
t='"Sales".items'

for fmt in jsonl sql copy; do
	exwiw dump --table="$t" --format=$fmt --rows-per-file=1000 -j 1 -o "$work/$fmt.1"
	exwiw dump --table="$t" --format=$fmt --rows-per-file=1000 -j 3 -o "$work/$fmt.3"
	n=$(ls "$work/$fmt.3" | wc -l)
	if same_dirs "$work/$fmt.1" "$work/$fmt.3" && [ "$n" -eq 25 ] &&
		[ "$(ls "$work/$fmt.3" | head -n 1)" = "insert-001-items.part01.$([ $fmt = jsonl ] && echo jsonl || echo sql)" ]; then
		ok "dump --format=$fmt --rows-per-file=1000: 25 files, -j 3 = -j 1 ($(ls "$work/$fmt.3" | head -n 1), ...)"
	else
		not_ok "dump --format=$fmt: $n files, or -j 3 differs from -j 1"
	fi
done
# JSON Lines: at most 1000 lines per file, the table in key order
if [ "$(cat "$work"/jsonl.3/* | wc -l)" -eq 25000 ] &&
	! wc -l "$work"/jsonl.3/* | grep -v total | awk '$1 > 1000 { exit 1 }' | grep -q . &&
	psql -X -At -c "SELECT exwiw_dump_jsonl('SELECT * FROM \"Sales\".items ORDER BY id')" | cmp -s - <(cat "$work"/jsonl.3/*); then
	ok "dump --format=jsonl: the files concatenate to exwiw_dump_jsonl of the table, at most 1000 rows each"
else
	not_ok "dump --format=jsonl: not the table's JSON Lines"
fi
# a text key: the files split where the key's own order says
psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
CREATE TABLE "Sales".words (w text PRIMARY KEY, n int);
INSERT INTO "Sales".words SELECT CASE g % 3 WHEN 0 THEN upper(md5(g::text)) WHEN 1 THEN md5(g::text) ELSE 'é' || g END, g
FROM generate_series(1, 5000) g;
SQL
exwiw dump --table='"Sales".words' --format=jsonl --rows-per-file=700 -j 2 -o "$work/words"
if [ "$(ls "$work/words" | wc -l)" -eq 8 ] &&
	! wc -l "$work"/words/* | grep -v total | awk '$1 > 700 { exit 1 }' | grep -q . &&
	psql -X -At -c "SELECT exwiw_dump_jsonl('SELECT * FROM \"Sales\".words ORDER BY w')" | cmp -s - <(cat "$work"/words/*); then
	ok "dump --rows-per-file=700 of a text key: 8 files that concatenate to the table in key order"
else
	not_ok "dump of a text key: not the table's JSON Lines in key order"
fi
# one file, -j 2: two key ranges of whole statements (10,000 and 15,000
# rows), joined; the file equals -j 1's
for fmt in sql jsonl; do
	exwiw dump --table="$t" --format=$fmt -j 1 -o "$work/one.$fmt.1"
	exwiw dump --table="$t" --format=$fmt -j 2 -o "$work/one.$fmt.2" --log-level=debug 2>"$work/one.log"
	if same_dirs "$work/one.$fmt.1" "$work/one.$fmt.2" && grep -q 'joined 2 parts' "$work/one.log"; then
		ok "dump --format=$fmt -j 2 of 25,000 rows: two key ranges joined, the file equals -j 1's"
	else
		not_ok "dump --format=$fmt -j 2: the joined file differs from -j 1's"
	fi
done
# SQL and COPY: each file loads by itself
for fmt in sql copy; do
	psql -X -q -c 'TRUNCATE "Sales".items_copy'
	bad=0
	for f in $(ls "$work/$fmt.3" | sort -r); do
		sed 's/^\(INSERT INTO\|COPY\) "Sales".items /\1 "Sales".items_copy /' "$work/$fmt.3/$f" |
			psql -X -q -v ON_ERROR_STOP=1 >/dev/null || bad=1
	done
	diff=$(psql -X -At -c 'SELECT count(*) FROM ((TABLE "Sales".items EXCEPT ALL TABLE "Sales".items_copy) UNION ALL (TABLE "Sales".items_copy EXCEPT ALL TABLE "Sales".items)) d')
	if [ $bad -eq 0 ] && [ "$diff" = 0 ]; then
		ok "dump --format=$fmt: each of the 25 files loads by itself (in reverse order); the copy equals the table"
	else
		not_ok "dump --format=$fmt: load failed ($bad) or $diff rows differ"
	fi
done

# one file without --rows-per-file: exwiw_dump's bytes
exwiw dump --table="$t" -o "$work/one"
if [ "$(ls "$work/one")" = insert-001-items.sql ] &&
	psql -X -At -c "SELECT exwiw_dump('SELECT * FROM \"Sales\".items ORDER BY id', 'Sales.items', 10000)" |
	cmp -s - "$work/one/insert-001-items.sql"; then
	ok "dump --table without --rows-per-file: one file, exwiw_dump's bytes"
else
	not_ok "dump --table: not one file of exwiw_dump's bytes"
fi

# a query's parts, JSON Lines
exwiw dump --query='SELECT id, name FROM "Sales".items WHERE id % 2 = 0 ORDER BY id' --table=evens \
	--format=jsonl --rows-per-file=5000 -j 2 -o "$work/q"
if [ "$(ls "$work/q" | paste -sd' ')" = "insert-001-evens.part1.jsonl insert-001-evens.part2.jsonl insert-001-evens.part3.jsonl" ] &&
	psql -X -At -c "SELECT exwiw_dump_jsonl('SELECT id, name FROM \"Sales\".items WHERE id % 2 = 0 ORDER BY id')" |
	cmp -s - <(cat "$work"/q/*); then
	ok "dump --query --format=jsonl --rows-per-file=5000 -j 2: 3 parts that concatenate to the query's JSON Lines"
else
	not_ok "dump --query: $(ls "$work/q" | paste -sd' ')"
fi

# errors
expect_error "no --table or --query" 'needs --table or --query' exwiw dump -o "$work/e"
expect_error "--query, sql, --rows-per-file" 'needs --format=jsonl' \
	exwiw dump --query='SELECT 1' --rows-per-file=10 -o "$work/e"
expect_error "no primary key" 'has no single-column primary key' \
	exwiw dump --table='"Sales".nokey' --rows-per-file=10 -o "$work/e"
expect_error "unknown table" 'does not exist' exwiw dump --table=nosuch -o "$work/e"
expect_error "bad format" "invalid format 'xml'" exwiw dump --table="$t" --format=xml -o "$work/e"
expect_error "--rows-per-file=0" 'must be a positive integer' exwiw dump --table="$t" --rows-per-file=0 -o "$work/e"
expect_error "export options" 'takes no' exwiw dump --table="$t" --ids=1 -o "$work/e"
expect_error "dump options on export" 'apply to the dump subcommand only' \
	exwiw --target-table=x --ids=1 --schema-dir="$work" --rows-per-file=3 -o "$work/e"
exit $fail
