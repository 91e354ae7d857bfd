#!/usr/bin/env bash
# test/t/dump_psql.sh: the psql recipes of doc/sql.md write byte-exact files,
# the files load, and Ctrl-C cancels a 10M-row dump in the middle.
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

# 2. doc/sql.md's three recipes, exwiw_file_prologue() first: psql -XAt,
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

# 5. The pitfall doc/sql.md warns about: \copy in text format escapes the
#    newlines and backslashes inside the statement, so the file differs.
q -q -c "\\copy ($dump) TO '$tmp/copy_pitfall.sql'"
q -At -c "$dump" >"$tmp/bare.sql"
if cmp -s "$tmp/bare.sql" "$tmp/copy_pitfall.sql"; then
	fail "expected \\copy text format to mangle the statement"
fi
grep -q 'VALUES\\n' "$tmp/copy_pitfall.sql" || fail "expected escaped newlines in the \\copy file"

# 6. Ctrl-C in psql cancels a 10M-row dump.  psql turns SIGINT into a
#    cancel request, which is what pressing Ctrl-C does.  Row 1,000,000
#    waits while a session of this script holds advisory lock 4711, so the
#    dump is in the middle, standing still, when the signal comes, and
#    nothing but the cancel can end it.  No step waits for a time; the
#    bounds only catch a hang.
q -q <<'SQL'
-- true; row AT first waits for advisory lock 4711 (shared, for the
-- transaction: an error lets go of it)
CREATE FUNCTION gate(g int, at int) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	IF g = at THEN PERFORM pg_advisory_xact_lock_shared(4711); END IF;
	RETURN true;
END $$;
SQL
# the holder: a psql session of its own, on stdin; it ends, and lets go,
# at "\q", or when this script exits (its stdin closes)
coproc HOLDER { psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" 2>&1; }
holder_pid=$HOLDER_PID
holder_in=${HOLDER[1]}
echo "SELECT pg_backend_pid(), pg_advisory_lock(4711);" >&"$holder_in"
IFS= read -r -t 300 holder_line <&"${HOLDER[0]}" || fail "the lock holder did not answer"
holder_backend=${holder_line%%|*}
[[ $holder_line =~ ^[0-9]+\|$ ]] || fail "the lock holder: $holder_line"
psql -X -d "$db" -At -c "SELECT exwiw_dump('SELECT g AS id, md5(g::text) AS h FROM generate_series(1, 10000000) g WHERE gate(g, 1000000)', 't')" \
	>/dev/null 2>"$tmp/cancel.err" &
pid=$!
# cancel_dump: end the dump however it is (on a failure, before exiting)
cancel_dump() { q -At -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE 'SELECT exwiw_dump(%generate_series(1, 10000000)%' AND pid <> pg_backend_pid()" >/dev/null || true; }
# wait until the dump's backend waits for the lock (at row 1,000,000)
deadline=$((SECONDS + 300))
while :; do
	dpid=$(q -At -c "SELECT pid FROM pg_stat_activity WHERE query LIKE 'SELECT exwiw_dump(%generate_series(1, 10000000)%' AND pid <> pg_backend_pid() AND state = 'active' AND wait_event_type = 'Lock' AND wait_event = 'advisory'")
	[ -n "$dpid" ] && break
	kill -0 "$pid" 2>/dev/null || { cat "$tmp/cancel.err"; fail "the dump ended before it reached the lock"; }
	[ $SECONDS -lt $deadline ] || { cancel_dump; fail "the dump did not reach the lock in 300 s"; }
	sleep 0.1
done
start=$(date +%s%N)
kill -INT "$pid"
deadline=$((SECONDS + 300))
while kill -0 "$pid" 2>/dev/null; do
	[ $SECONDS -lt $deadline ] || { cancel_dump; fail "psql did not end in 300 s after Ctrl-C"; }
	sleep 0.05
done
end=$(date +%s%N)
wait "$pid" && fail "psql should fail after cancel"
grep -q "canceling statement due to user request" "$tmp/cancel.err" || { cat "$tmp/cancel.err"; fail "no cancel message"; }
# printed, not asserted: the machine's speed decides it
echo "cancel took $(((end - start) / 1000000)) ms"
# the holder lets go and ends; then no session is left in the database
echo '\q' >&"$holder_in"
wait "$holder_pid" || fail "the lock holder failed"
while [ "$(q -At -c "SELECT count(*) FROM pg_stat_activity WHERE pid IN ($dpid, $holder_backend)")" != 0 ]; do
	[ $SECONDS -lt $deadline ] || fail "the sessions of the Ctrl-C test did not end"
	sleep 0.1
done

dropdb "$db"
echo "dump_psql: all checks passed"
