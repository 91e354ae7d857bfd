#!/usr/bin/env bash
# test/t/file_scs.sh: a file exwiw writes is safe to load in any session.
#
# Values are written with standard_conforming_strings = on in mind: a
# backslash is an ordinary character.  A session where the setting is off
# reads \' as an escaped quote, so the production value below would end its
# string literal there and run the rest as SQL and as a psql meta-command.
# Every whole file therefore sets standard_conforming_strings = on (its
# second line, after the client_encoding line; test/t/file_encoding.sh).
#
#  1. the subset export of a row holding the value loads with the setting
#     off: nothing runs, the victim table survives, no file appears on the
#     loading machine, and the row comes back byte for byte;
#  2. the control: the same file without that line does run the attack,
#     so the test above can fail.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/subset/lib.sh"
[ -n "${EXWIW_BIN:-}" ] && PATH=$EXWIW_BIN:$PATH
export PGDATABASE=postgres
work=$(mktemp -d /tmp/file-scs.XXXXXX)
chmod 777 "$work"
trap 'rm -rf "$work"' EXIT

psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
SET client_min_messages = warning;
DROP DATABASE IF EXISTS scs_src;
DROP DATABASE IF EXISTS scs_dst;
CREATE DATABASE scs_src;
CREATE DATABASE scs_dst;
SQL
pwned=$work/pwned
psql -X -q -v ON_ERROR_STOP=1 -d scs_src -v pwned="$pwned" <<'SQL'
CREATE EXTENSION exwiw;
CREATE TABLE notes (id int PRIMARY KEY, body text);
-- x\'');<newline>DROP TABLE public.victim; --<newline>\! touch <file> #
INSERT INTO notes VALUES (1, E'x\\'');\nDROP TABLE public.victim; --\n\\! touch ' || :'pwned' || ' #');
SQL
fresh_dst() {
	psql -X -q -v ON_ERROR_STOP=1 -d scs_dst -c "SET client_min_messages = warning" \
		-c "DROP TABLE IF EXISTS notes, victim" \
		-c "CREATE TABLE notes (id int PRIMARY KEY, body text)" \
		-c "CREATE TABLE public.victim (n int)"
}
subset_write_files "$work/out" -d scs_src -c "SET client_min_messages = warning" \
	-c "SELECT (e).file_name, (e).chunk FROM (SELECT exwiw_export('notes', '{1}', '[{\"name\": \"notes\", \"primary_key\": \"id\"}]') e) s"
f=$work/out/insert-001-notes.sql
fail=0

# 1. the whole file, loaded where standard_conforming_strings is off
fresh_dst
PGOPTIONS='-c standard_conforming_strings=off' psql -X -q -d scs_dst -f "$f" >"$work/load.out" 2>&1 || true
victim=$(psql -X -At -d scs_dst -c "SELECT to_regclass('public.victim') IS NOT NULL")
same=$(psql -X -At -d scs_dst -c "SELECT body FROM notes WHERE id = 1" | md5sum)
orig=$(psql -X -At -d scs_src -c "SELECT body FROM notes WHERE id = 1" | md5sum)
if [ "$victim" = t ] && [ ! -e "$pwned" ] && [ "$same" = "$orig" ]; then
	echo "ok: loaded with standard_conforming_strings off, nothing ran and the value round-trips"
else
	echo "not ok: victim kept: $victim, $pwned exists: $([ -e "$pwned" ] && echo yes || echo no), value same: $([ "$same" = "$orig" ] && echo yes || echo no)"
	cat "$work/load.out"
	fail=1
fi

# 2. the control: without the SET standard_conforming_strings line the attack works
fresh_dst
grep -vx 'SET standard_conforming_strings = on;' "$f" >"$work/bare.sql"
PGOPTIONS='-c standard_conforming_strings=off' psql -X -q -d scs_dst -f "$work/bare.sql" >/dev/null 2>&1 || true
victim=$(psql -X -At -d scs_dst -c "SELECT to_regclass('public.victim') IS NOT NULL")
if [ "$victim" = f ] && [ -e "$pwned" ]; then
	echo "ok: control: without its SET standard_conforming_strings line the same file drops the table and runs a shell command"
else
	echo "not ok: the control did not run the attack (victim kept: $victim); the test proves nothing"
	fail=1
fi
[ $fail -eq 0 ]
