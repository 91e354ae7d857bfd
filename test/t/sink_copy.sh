#!/usr/bin/env bash
# test/t/sink_copy.sh: \copy that works.  The one documented command
#
#   \copy (SELECT exwiw_copy_lines('<query>', '<table>')) TO '<file>'
#       WITH (FORMAT csv, DELIMITER E'\x01', QUOTE E'\x02', NULL E'\x03')
#
# writes a file that psql -f loads to exactly the same data, for any data:
#
#  1. every type of test/fixtures/all_types.sql, and a table of hostile
#     text (every ASCII byte, the marker bytes 0x01-0x03 themselves, "\.",
#     backslashes, newlines, carriage returns, quotes, multibyte
#     characters) and a bytea of every byte value, in a UTF8 database;
#  2. a text of every byte value 0x01-0xFF, in a SQL_ASCII database;
#  3. the file differs from exwiw_dump_to_file's COPY file only in the
#     missing last line "\." and in the marker bytes written as \001, \002
#     and \003;
#  4. the control: exwiw_dump through the same \copy command does not give
#     the file (COPY quotes every chunk), so the line mode is needed;
#  5. exwiw_dump_jsonl with chunk_bytes => 1 (one document per chunk) goes
#     through the same command unchanged.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
[ -n "${EXWIW_BIN:-}" ] && PATH=$EXWIW_BIN:$PATH
export PGDATABASE=postgres
work=$(mktemp -d /tmp/exwiw-sinks-copy.XXXXXX)
chmod 777 "$work"
trap 'rm -rf "$work"' EXIT
fail() { echo "not ok: $*"; exit 1; }
ok() { echo "ok: $*"; }
q() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }
opts="WITH (FORMAT csv, DELIMITER E'\\x01', QUOTE E'\\x02', NULL E'\\x03')"
# copy_lines DB QUERY TABLE FILE: the documented command
copy_lines() {
	q -d "$1" -c "\\copy (SELECT exwiw_copy_lines('$2', '$3')) TO '$4' $opts"
}
# same DB A B: rows of views/tables A and B, EXCEPT ALL both ways
same() {
	q -d "$1" -At -c "SELECT (SELECT count(*) FROM (TABLE $2 EXCEPT ALL TABLE $3) a)
		+ (SELECT count(*) FROM (TABLE $3 EXCEPT ALL TABLE $2) b)"
}

q <<'SQL'
SET client_min_messages = warning;
DROP DATABASE IF EXISTS copy_utf8;
DROP DATABASE IF EXISTS copy_ascii;
CREATE DATABASE copy_utf8;
CREATE DATABASE copy_ascii ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
SQL

# 1. UTF8: every type, hostile text, every byte in a bytea
q -d copy_utf8 -c "CREATE EXTENSION exwiw" -f "$root/test/fixtures/all_types.sql" >/dev/null
q -d copy_utf8 <<'SQL'
CREATE TABLE hostile (id int PRIMARY KEY, t text, b bytea, j jsonb);
INSERT INTO hostile (id, t) SELECT g, chr(g) FROM generate_series(1, 127) g;
INSERT INTO hostile VALUES
	(200, E'\x01\x02\x03', '\x010203', '{"k": "\u0001"}'),
	(201, E'\\.', NULL, NULL),
	(202, E'a\\.\nb\r\nc\td\\e', NULL, NULL),
	(203, '', '', '{}'),
	(204, NULL, NULL, NULL),
	(205, E'"quoted", ''apostrophe'', \\N, \\x01, \\001', NULL, '"\\N"'),
	(206, 'é ü 漢字 🎉', NULL, '{"emoji": "🎉"}'),
	(207, repeat(E'\x01x\x02y\x03z\\', 100000), NULL, NULL);
INSERT INTO hostile (id, b) VALUES (300, (SELECT string_agg(set_byte('\x00'::bytea, 0, g), ''::bytea ORDER BY g) FROM generate_series(0, 255) g));
CREATE TABLE hostile_dst (LIKE hostile);
SQL
copy_lines copy_utf8 'SELECT * FROM rt_src' rt_dst "$work/rt.sql"
q -d copy_utf8 -f "$work/rt.sql" >/dev/null
[ "$(same copy_utf8 rt_src_v rt_dst_v)" = 0 ] || fail "all types differ after the \\copy file"
[ "$(q -d copy_utf8 -At -c 'SELECT count(*) > 0 FROM rt_dst')" = t ] || fail "nothing loaded"
copy_lines copy_utf8 'SELECT * FROM hostile' hostile_dst "$work/hostile.sql"
q -d copy_utf8 -f "$work/hostile.sql" >/dev/null
[ "$(same copy_utf8 hostile hostile_dst)" = 0 ] || fail "hostile text differs after the \\copy file"
[ "$(q -d copy_utf8 -At -c 'SELECT count(*) FROM hostile_dst')" = 136 ] || fail "hostile rows missing"
ok "UTF8: every type, every ASCII byte, the marker bytes, \\., CR/LF, multibyte and every bytea byte load back equal"

# 2. SQL_ASCII: every byte value in text
q -d copy_ascii -c "CREATE EXTENSION exwiw" -f - <<'SQL'
CREATE TABLE bytes (id int PRIMARY KEY, t text);
INSERT INTO bytes SELECT g, convert_from(decode(lpad(to_hex(g), 2, '0'), 'hex'), 'SQL_ASCII') FROM generate_series(1, 255) g;
INSERT INTO bytes SELECT 1000, string_agg(t, '' ORDER BY id) FROM bytes;
CREATE TABLE bytes_dst (LIKE bytes);
SQL
copy_lines copy_ascii 'SELECT * FROM bytes' bytes_dst "$work/bytes.sql"
q -d copy_ascii -f "$work/bytes.sql" >/dev/null
[ "$(same copy_ascii bytes bytes_dst)" = 0 ] || fail "SQL_ASCII bytes differ after the \\copy file"
[ "$(q -d copy_ascii -At -c "SELECT octet_length(t) FROM bytes_dst WHERE id = 1000")" = 255 ] || fail "the row of all bytes is not 255 bytes"
ok "SQL_ASCII: every byte value 0x01-0xFF in text loads back equal"

# 3. which bytes differ from the server-side file
q -d copy_utf8 -At -c "SELECT exwiw_dump_to_file('$work/hostile.sink.sql', 'SELECT * FROM hostile', 'hostile_dst', format => 'copy')" >/dev/null
[ "$(tail -n 1 "$work/hostile.sink.sql")" = '\.' ] || fail "the sink's COPY file does not end with \\."
head -n -1 "$work/hostile.sink.sql" | perl -pe 's/\x01/\\001/g; s/\x02/\\002/g; s/\x03/\\003/g' >"$work/hostile.expected.sql"
cmp "$work/hostile.expected.sql" "$work/hostile.sql" || fail "the \\copy file differs from the sink's in more than the last line and the marker bytes"
ok "the \\copy file is exwiw_dump_to_file's COPY file without its last line \\. and with 0x01-0x03 as \\001-\\003"

# 4. the control: chunks of many lines do not pass
q -d copy_utf8 -c "\\copy (SELECT exwiw_dump('SELECT * FROM hostile WHERE id < 100', 'hostile_dst', format => 'copy')) TO '$work/chunks.sql' $opts"
q -d copy_utf8 -At -c "SELECT exwiw_dump('SELECT * FROM hostile WHERE id < 100', 'hostile_dst', format => 'copy')" >"$work/chunks.psql.sql"
if cmp -s "$work/chunks.sql" "$work/chunks.psql.sql"; then fail "the control passed: exwiw_dump went through \\copy unchanged"; fi
[ "$(head -c 1 "$work/chunks.sql" | od -An -tx1 | tr -d ' ')" = 02 ] || fail "the control: the chunk was not quoted"
ok "control: exwiw_dump through the same \\copy is quoted (the file starts with the quote byte 0x02)"

# 5. JSON Lines, one document per chunk
q -d copy_utf8 -c "\\copy (SELECT exwiw_dump_jsonl('SELECT * FROM hostile ORDER BY id', chunk_bytes => 1)) TO '$work/hostile.jsonl' $opts"
q -d copy_utf8 -At -c "SELECT exwiw_dump_jsonl('SELECT * FROM hostile ORDER BY id')" >"$work/hostile.psql.jsonl"
cmp "$work/hostile.jsonl" "$work/hostile.psql.jsonl" || fail "exwiw_dump_jsonl(chunk_bytes => 1) through \\copy differs from the psql recipe"
ok "exwiw_dump_jsonl(..., chunk_bytes => 1) through the same \\copy is the psql recipe's file"

q -c "DROP DATABASE copy_utf8" -c "DROP DATABASE copy_ascii"
echo "sink_copy: all checks passed"
