#!/usr/bin/env bash
# test/t/extjson_libbson.sh: semantic check of exwiw_dump_jsonl with a real
# Extended JSON parser.  Every line is parsed by libbson's
# bson_init_from_json() (test/extjson/bson_check.c), and the typed values it
# finds (double bits, int64, date milliseconds, Decimal128, Binary subtype
# and bytes, ObjectId, UTF-8 bytes) are compared in SQL with the source rows.
#
# Run by test/run (PGHOST/PGPORT/PGUSER point at the throwaway cluster).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/exwiw-libbson.XXXXXX)
trap 'rm -rf "$work"' EXIT
rows=${EXWIW_LIBBSON_ROWS:-20000}
db=exwiw_extjson_libbson

cc -O1 -Wall -Wextra $(pkg-config --cflags libbson-1.0) "$here/extjson/bson_check.c" \
	$(pkg-config --libs libbson-1.0) -o "$work/bson_check"

psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
export PGDATABASE=$db
psql -X -q -v ON_ERROR_STOP=1 <<SQL
CREATE EXTENSION exwiw;
SELECT setseed(0.42) AS seed \gset
CREATE TABLE src AS
SELECT g AS id,
       lpad(to_hex(g * 7919), 24, 'a')::name AS _id,
       (ARRAY[0, 1, -1, 2147483647, 2147483648, -9223372036854775808, 9223372036854775807,
              (random() * 1e18)::int8])[1 + g % 8] AS i,
       (ARRAY['-0.0', 'NaN', 'Infinity', '-Infinity', '5e-324', '1e16', '1e15', '0.1',
              (random() * 10 ^ (random() * 40 - 20))::text])[1 + g % 9]::float8 AS f,
       round((random() * 1e6)::numeric, (g % 12)) * (ARRAY[1, -1, 1e-20, 1e20])[1 + g % 4] AS n,
       'epoch'::timestamptz + (random() * 1e13 - 5e12) * interval '1 millisecond'
         + (g % 1000) * interval '1 microsecond' AS ts,
       '1970-01-01'::date + ((random() - 0.5) * 3e6)::int AS d,
       decode(substr(md5(g::text) || md5((g + 1)::text) || md5((g + 2)::text), 1, 2 * (g % 48)), 'hex') AS b,
       md5(g::text)::uuid AS u,
       (ARRAY[E'tab\there', E'nl\n"q"\\\\', 'é€😀', E'\u2028\x7f/', ''])[1 + g % 5] || g AS t,
       g % 2 = 0 AS flag,
       CASE WHEN g % 3 = 0 THEN ARRAY[g, NULL, -g] ELSE '{}'::int[] END AS arr,
       jsonb_build_object('o', jsonb_build_object('\$oid', lpad(to_hex(g), 24, '0')),
                          'when', jsonb_build_object('\$date', 1418368330000 + g)) AS j
FROM generate_series(1, $rows) g;
SQL

psql -XAt -v ON_ERROR_STOP=1 -c "SELECT exwiw_dump_jsonl('SELECT * FROM src ORDER BY id')" >"$work/out.jsonl"
"$work/bson_check" <"$work/out.jsonl" >"$work/parsed.tsv"

psql -X -q -v ON_ERROR_STOP=1 <<SQL
CREATE TABLE got (line int, path text, type text, value text);
\copy got FROM '$work/parsed.tsv'
CREATE TABLE want AS
SELECT id AS line, '_id' AS path, 'oid' AS type, lower(_id::text) AS value FROM src
UNION ALL SELECT id, 'id', 'int', id::text FROM src
UNION ALL SELECT id, 'i', 'int', i::text FROM src
UNION ALL SELECT id, 'f', 'double', encode(float8send(f), 'hex') FROM src
UNION ALL SELECT id, 'n', 'decimal', n::text FROM src
UNION ALL SELECT id, 'ts', 'date', floor(extract(epoch FROM ts) * 1000)::bigint::text FROM src
UNION ALL SELECT id, 'd', 'date', ((d - '1970-01-01'::date)::bigint * 86400000)::text FROM src
UNION ALL SELECT id, 'b', 'binary', '00:' || encode(b, 'hex') FROM src
UNION ALL SELECT id, 'u', 'binary', '04:' || encode(uuid_send(u), 'hex') FROM src
UNION ALL SELECT id, 't', 'string', encode(convert_to(t, 'UTF8'), 'hex') FROM src
UNION ALL SELECT id, 'flag', 'bool', CASE WHEN flag THEN 't' ELSE 'f' END FROM src
UNION ALL SELECT id, 'arr.' || (k - 1), CASE WHEN e IS NULL THEN 'null' ELSE 'int' END, coalesce(e::text, '')
          FROM src, unnest(arr) WITH ORDINALITY AS x(e, k)
UNION ALL SELECT id, 'j.o', 'oid', lpad(to_hex(id), 24, '0') FROM src
UNION ALL SELECT id, 'j.when', 'date', (1418368330000 + id)::text FROM src;
CREATE TABLE bad AS
SELECT w.line AS want_line, w.path AS want_path, w.type AS want_type, w.value AS want_value,
       g.line AS got_line, g.path AS got_path, g.type AS got_type, g.value AS got_value
FROM want w FULL JOIN got g ON g.line = w.line AND g.path = w.path
WHERE w.line IS NULL OR g.line IS NULL OR w.type <> g.type
   OR CASE WHEN w.type = 'decimal' THEN w.value::numeric <> g.value::numeric
           ELSE w.value <> g.value END;
SELECT count(*) AS values_compared FROM want;
SELECT * FROM bad LIMIT 10;
SQL
nbad=$(psql -XAt -c "SELECT count(*) FROM bad")
echo "libbson check: $(wc -l <"$work/out.jsonl") documents, $nbad mismatches"
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db"
[ "$nbad" -eq 0 ]
