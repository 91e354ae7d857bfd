#!/usr/bin/env bash
# test/t/extjson_sql_ascii.sh: the JSON writers in a SQL_ASCII database
# (issue 17).
#
# JSON text is UTF-8; a SQL_ASCII database stores bytes without saying
# what they mean.  exwiw writes JSON from bytes that are valid UTF-8 and
# refuses the others with SQLSTATE 22021 (character_not_in_repertoire),
# naming the column and no byte of the value:
#
#  1. ASCII and valid UTF-8 values come out as they are, valid UTF-8;
#  2. a text value, a jsonb key and a column name that are not UTF-8 are
#     refused by exwiw_dump_jsonl, exwiw_ext_json (jsonb and record),
#     exwiw_dump_jsonl_to_file (which leaves no file) and exwiw_export's
#     jsonl format, and the messages hold none of the value's bytes;
#  3. the same bytes as bytea come out as Binary;
#  4. a SQL file of the database names SQL_ASCII in its first line.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/subset/lib.sh"
source "$root/test/cli/lib.sh"
cli_init sql-ascii
chmod 777 "$work"

psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
SET client_min_messages = warning;
DROP DATABASE IF EXISTS exwiw_sql_ascii;
CREATE DATABASE exwiw_sql_ascii ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
SQL
db=exwiw_sql_ascii
psql -X -q -v ON_ERROR_STOP=1 -d $db <<'SQL'
CREATE EXTENSION exwiw;
CREATE TABLE t (id int PRIMARY KEY, v text, j jsonb);
INSERT INTO t VALUES
	(1, 'plain', '{"a": "b"}'),
	(2, E'caf\303\251 \344\270\200', E'{"k": "\303\251"}'),
	(3, E'secret\351', NULL),
	(4, 'x', E'{"secret\351": 1}');
SQL

# 1. valid UTF-8 through
want=$(printf '{"id":1,"v":"plain","j":{"a":"b"}}\n{"id":2,"v":"caf\303\251 \344\270\200","j":{"k":"\303\251"}}')
got=$(psql -X -At -d $db -c "SELECT exwiw_dump_jsonl('SELECT * FROM t WHERE id <= 2 ORDER BY id')")
if [ "$got" = "$want" ] && printf '%s' "$got" | iconv -f UTF-8 -t UTF-8 >/dev/null; then
	ok "ASCII and valid UTF-8 values come out as they are, valid UTF-8"
else
	not_ok "exwiw_dump_jsonl of valid values: $(printf '%s' "$got" | od -c | head -5)"
fi

# 2. the others refused: SQLSTATE, the column, no byte of the value
refused() {
	local label=$1 pattern=$2 sql=$3 out
	out=$(psql -X -q -d $db -v VERBOSITY=verbose -c "\\set VERBOSITY verbose" -c "$sql" 2>&1 >/dev/null || true)
	if ! printf '%s' "$out" | grep -q "ERROR:  22021: $pattern"; then
		not_ok "$label: not refused with 22021 /$pattern/: $out"
	elif printf '%s' "$out" | grep -q 'secret'; then
		not_ok "$label: the message shows the value: $out"
	else
		ok "$label: $(printf '%s' "$out" | head -n 1)"
	fi
}
refused "exwiw_dump_jsonl, a text value" 'column "v" is not valid UTF-8' \
	"SELECT exwiw_dump_jsonl('SELECT * FROM t WHERE id = 3')"
refused "exwiw_dump_jsonl, a jsonb key" 'column "j" is not valid UTF-8' \
	"SELECT exwiw_dump_jsonl('SELECT * FROM t WHERE id = 4')"
refused "exwiw_ext_json(jsonb)" 'the document is not valid UTF-8' \
	"SELECT exwiw_ext_json(j) FROM t WHERE id = 4"
refused "exwiw_ext_json(json)" 'the document is not valid UTF-8' \
	"SELECT exwiw_ext_json(j::json) FROM t WHERE id = 4"
refused "exwiw_ext_json(record)" 'column "v" is not valid UTF-8' \
	"SELECT exwiw_ext_json(t) FROM t WHERE id = 3"
refused "a column name" 'the name of column 1 is not valid UTF-8' \
	"SELECT exwiw_dump_jsonl(E'SELECT 1 AS \"secret\\351\"')"
refused "exwiw_dump_jsonl_to_file" 'column "v" is not valid UTF-8' \
	"SELECT * FROM exwiw_dump_jsonl_to_file('$work/t.jsonl', 'SELECT * FROM t ORDER BY id')"
[ -z "$(ls -A "$work" | grep -v '^\.std')" ] || not_ok "exwiw_dump_jsonl_to_file left a file: $(ls -A "$work")"
refused "exwiw_export, format jsonl" 'column "v" is not valid UTF-8' \
	"SELECT exwiw_export('t', '{1,2,3}', '[{\"name\": \"t\", \"primary_key\": \"id\"}]', format => 'jsonl')"

# 3. the bytes as bytea: Binary
got=$(psql -X -At -d $db -c "SELECT exwiw_dump_jsonl('SELECT id, convert_to(v, ''SQL_ASCII'') AS v FROM t WHERE id = 3')")
if [ "$got" = '{"id":3,"v":{"$binary":{"base64":"c2VjcmV06Q==","subType":"00"}}}' ]; then
	ok "the same bytes as bytea come out as Binary"
else
	not_ok "bytea of the value: $got"
fi

# 4. a SQL file of the database names its encoding
psql -X -q -At -d $db -c "SELECT rows FROM exwiw_dump_to_file('$work/t.sql', 'SELECT * FROM t ORDER BY id', 't')" >/dev/null
if [ "$(head -n 1 "$work/t.sql")" = "SET client_encoding = 'SQL_ASCII';" ]; then
	ok "a SQL file of a SQL_ASCII database starts with SET client_encoding = 'SQL_ASCII'"
else
	not_ok "the SQL file starts with: $(head -n 1 "$work/t.sql")"
fi

psql -X -q -c "DROP DATABASE $db"
[ $fail -eq 0 ] && echo "extjson_sql_ascii: all checks passed"
[ $fail -eq 0 ]
