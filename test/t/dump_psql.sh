#!/usr/bin/env bash
# test/t/dump_psql.sh: the psql recipes in the README write byte-exact files,
# the files load, and Ctrl-C cancels a 10M-row dump promptly.
#
# Run by test/run with PGHOST/PGPORT/PGUSER pointing at a throwaway cluster.
set -euo pipefail
db=exwiw_t_dump_psql
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
q() { psql -X -v ON_ERROR_STOP=1 -d "$db" "$@"; }

dropdb --if-exists "$db" 2>/dev/null
createdb "$db"
q -qc "CREATE EXTENSION exwiw"
q -q <<'SQL'
CREATE TABLE users (id int, name text, note text);
INSERT INTO users VALUES (1, 'O''Brien', NULL), (2, E'a\nb', 'x\y');
CREATE TABLE awkward (id int PRIMARY KEY, t text, b bytea, j jsonb);
INSERT INTO awkward
SELECT g, E'line1\nline2\r\n\ttab \\ back '' quote "dq" é' || g, decode(md5(g::text), 'hex'),
       jsonb_build_object('k', E'v\n' || g)
FROM generate_series(1, 5000) g;
CREATE TABLE awkward_restored (LIKE awkward);
SQL

# 1. The spec's worked example, written by psql -XAt, is the client's file:
#    the statement plus one newline.
printf "INSERT INTO users (id, name, note) VALUES\n('1', 'O''Brien', NULL),\n('2', 'a\nb', 'x\\\\y');\n" >"$tmp/expected.sql"
q -At -c "SELECT exwiw_dump('SELECT * FROM users ORDER BY id', 'users')" >"$tmp/xat.sql"
cmp "$tmp/expected.sql" "$tmp/xat.sql" || fail "psql -XAt output differs from the spec's worked example"

# 2. The README's three recipes, exwiw_file_prologue() first: psql -XAt,
#    FETCH_COUNT (which keeps psql's own memory bounded) and \o from inside
#    psql all give the same bytes, with many chunks: the prologue, a
#    newline, the chunks joined by newlines, a newline.
dump="SELECT exwiw_dump('SELECT * FROM awkward ORDER BY id', 'awkward_restored', 700, chunk_bytes => 4096)"
q -At -c "SELECT exwiw_file_prologue()" -c "$dump" >"$tmp/a.sql"
printf '%s\n' '\pset format unaligned' '\pset tuples_only on' "\\o $tmp/b.sql" \
	'SELECT exwiw_file_prologue();' "$dump;" '\o' | q -q >/dev/null
q -At -v FETCH_COUNT=7 -c "SELECT exwiw_file_prologue()" -c "$dump" >"$tmp/c.sql"
q -At -c "SELECT exwiw_file_prologue() || E'\\n' || string_agg(c, E'\\n') FROM ($dump AS c) s" >"$tmp/d.sql"
[ "$(head -n 2 "$tmp/a.sql")" = "$(printf "SET client_encoding = '%s';\nSET standard_conforming_strings = on;" \
	"$(q -At -c "SELECT CASE current_setting('client_encoding') WHEN 'SQL_ASCII' THEN current_setting('server_encoding') ELSE current_setting('client_encoding') END")")" ] ||
	fail "the file does not start with the two SET lines naming the client's encoding"
chunks=$(q -At -c "SELECT count(*) FROM ($dump AS c) s")
[ "$chunks" -gt 50 ] || fail "expected many chunks, got $chunks"
cmp "$tmp/a.sql" "$tmp/b.sql" || fail "\\o from inside psql differs from psql -XAt"
cmp "$tmp/a.sql" "$tmp/c.sql" || fail "FETCH_COUNT output differs from psql -XAt"
cmp "$tmp/a.sql" "$tmp/d.sql" || fail "string_agg of the chunks differs from psql -XAt"
[ "$(tail -c 4 "$tmp/a.sql" | od -An -c | tr -d ' ')" = "');\\n" ] || fail "file must end with ');' and one newline"

# 3. The file loads, and the rows are the same (EXCEPT both ways).
q -q -f "$tmp/a.sql"
diff_rows=$(q -At -c "SELECT (SELECT count(*) FROM (TABLE awkward EXCEPT TABLE awkward_restored) x)
                           + (SELECT count(*) FROM (TABLE awkward_restored EXCEPT TABLE awkward) y)")
[ "$diff_rows" = 0 ] || fail "restored rows differ: $diff_rows"
[ "$(q -At -c 'SELECT count(*) FROM awkward_restored')" = 5000 ] || fail "row count after restore"

# 4. COPY format through psql loads too.
q -q -c "TRUNCATE awkward_restored"
q -At -c "SELECT exwiw_dump('SELECT * FROM awkward', 'awkward_restored', format => 'copy', chunk_bytes => 4096)" >"$tmp/copy.sql"
q -q -f "$tmp/copy.sql"
diff_rows=$(q -At -c "SELECT (SELECT count(*) FROM (TABLE awkward EXCEPT TABLE awkward_restored) x)
                           + (SELECT count(*) FROM (TABLE awkward_restored EXCEPT TABLE awkward) y)")
[ "$diff_rows" = 0 ] || fail "COPY-format restore differs: $diff_rows"

# 5. The pitfall the README warns about: \copy in text format escapes the
#    newlines and backslashes inside the statement, so the file differs.
q -q -c "\\copy ($dump) TO '$tmp/copy_pitfall.sql'"
q -At -c "$dump" >"$tmp/bare.sql"
if cmp -s "$tmp/bare.sql" "$tmp/copy_pitfall.sql"; then
	fail "expected \\copy text format to mangle the statement"
fi
grep -q 'VALUES\\n' "$tmp/copy_pitfall.sql" || fail "expected escaped newlines in the \\copy file"

# 6. Ctrl-C in psql cancels a 10M-row dump promptly.  psql turns SIGINT
#    into a cancel request, which is what pressing Ctrl-C does.
psql -X -d "$db" -At -c "SELECT exwiw_dump('SELECT g AS id, md5(g::text) AS h FROM generate_series(1, 10000000) g', 't')" \
	>/dev/null 2>"$tmp/cancel.err" &
pid=$!
# wait until the dump is running (the bound only catches a hang)
deadline=$((SECONDS + 300))
while :; do
	n=$(q -At -c "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT exwiw_dump(%generate_series(1, 10000000)%' AND state = 'active'")
	[ "$n" = 1 ] || [ $SECONDS -ge $deadline ] && break
	sleep 0.1
done
[ "$n" = 1 ] || fail "the dump did not start"
start=$(date +%s%N)
kill -INT "$pid"
wait "$pid" && fail "psql should fail after cancel"
end=$(date +%s%N)
grep -q "canceling statement due to user request" "$tmp/cancel.err" || { cat "$tmp/cancel.err"; fail "no cancel message"; }
elapsed_ms=$(((end - start) / 1000000))
echo "cancel took ${elapsed_ms} ms"
# A dump that is not cancelled runs to its end, which the wait above
# catches; this bound, far above the usual few hundred ms, only catches a
# cancel that waits for something else.
[ "$elapsed_ms" -lt 30000 ] || fail "cancel took ${elapsed_ms} ms"

dropdb "$db"
echo "dump_psql: all checks passed"
