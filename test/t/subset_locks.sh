#!/usr/bin/env bash
# test/t/subset_locks.sh: an export locks every table it will read before it
# reads the first row, so concurrent DDL waits for it or fails it, and never
# makes a file silently disappear.  Two sessions:
#
#  1. A reads the first file of an export through a cursor; B's TRUNCATE of
#     a table A has not read yet waits (B shows as waiting on a lock); A
#     finishes with that table's file complete; then B goes on.
#  2. B holds an ACCESS EXCLUSIVE lock; A's export with lock_timeout fails
#     with lock_not_available (55P03) instead of waiting forever.
#  3. A takes its snapshot (REPEATABLE READ), B truncates a table and
#     commits before A locks it: A's export fails (40001) instead of reading
#     the emptied table.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/subset/lib.sh"
[ -n "${EXWIW_BIN:-}" ] && PATH=$EXWIW_BIN:$PATH
export PGDATABASE=postgres
work=$(mktemp -d /tmp/subset-locks.XXXXXX)
chmod 755 "$work"
cleanup() {
	exec 3>&- 2>/dev/null || true
	[ -n "${apid:-}" ] && kill "$apid" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

subset_make_databases "$root"
src="-d subset_src"
fail=0

# session A reads its commands from a fifo, so that it can wait mid-way
mkfifo "$work/a.in"
start_a() {
	psql -X -At -v ON_ERROR_STOP=0 $src <"$work/a.in" >"$work/a.out" 2>&1 &
	apid=$!
	exec 3>"$work/a.in"
}
a() { printf '%s\n' "$1" >&3; }
wait_for() { # wait_for FILE PATTERN: up to 10 s
	local i
	for i in $(seq 100); do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# 1. TRUNCATE waits for the export
start_a
a "SET search_path = shop, public; SET client_min_messages = warning;"
a "BEGIN;"
a "DECLARE c CURSOR FOR SELECT (e).file_name, length((e).chunk) FROM (SELECT exwiw_export('shops', '{1}', allow_undecided => true) e) s;"
a "FETCH 1 FROM c;"
a "\\echo fetched-first"
wait_for "$work/a.out" fetched-first || { echo "not ok: session A did not start"; cat "$work/a.out"; exit 1; }
psql -X -q $src -c "TRUNCATE shop.transactions" >"$work/b.out" 2>&1 &
bpid=$!
waiting=0
for i in $(seq 50); do
	n=$(psql -X -At $src -c "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'TRUNCATE%'")
	[ "$n" = 1 ] && { waiting=1; break; }
	sleep 0.1
done
if [ $waiting = 1 ]; then
	echo "ok: a TRUNCATE during the export waits for it"
else
	echo "not ok: the TRUNCATE did not wait for the export"
	fail=1
fi
a "FETCH ALL FROM c;"
a "COMMIT;"
a "\\echo done-1"
wait_for "$work/a.out" done-1 || { echo "not ok: session A did not finish"; fail=1; }
wait "$bpid" || true
if grep -q '^insert-009-transactions.sql|' "$work/a.out"; then
	echo "ok: the export still wrote the file of the table TRUNCATE was waiting for"
else
	echo "not ok: the transactions file is missing:"
	cat "$work/a.out"
	fail=1
fi
n=$(psql -X -At $src -c "SELECT count(*) FROM shop.transactions")
[ "$n" = 0 ] && echo "ok: the TRUNCATE ran after the export" || { echo "not ok: TRUNCATE did not run"; fail=1; }
a "\\q"
exec 3>&-
wait "$apid" || true
apid=

# 2. lock_timeout: fail instead of waiting forever
subset_make_databases "$root"
start_a
a "BEGIN;"
a "LOCK TABLE shop.orders IN ACCESS EXCLUSIVE MODE;"
a "\\echo locked"
wait_for "$work/a.out" locked || { echo "not ok: could not lock"; exit 1; }
out=$(psql -X -At $src -v VERBOSITY=verbose -c "SET search_path = shop, public" -c "SET lock_timeout = '200ms'" \
	-c "SELECT count(*) FROM exwiw_export('shops', '{1}', allow_undecided => true)" 2>&1 || true)
if grep -q '55P03' <<<"$out"; then
	echo "ok: with lock_timeout, an export that cannot lock a table fails with 55P03"
else
	echo "not ok: expected lock_not_available, got: $out"
	fail=1
fi
a "ROLLBACK;"
a "\\q"
exec 3>&-
wait "$apid" || true
apid=

# 3. a TRUNCATE committed after the snapshot, before the lock
start_a
a "SET search_path = shop, public; SET client_min_messages = warning;"
a "BEGIN ISOLATION LEVEL REPEATABLE READ;"
a "SELECT count(*) FROM shops;"
a "\\echo snapshot-taken"
wait_for "$work/a.out" snapshot-taken || { echo "not ok: session A did not start"; exit 1; }
psql -X -q $src -c "TRUNCATE shop.transactions"
a "\\set VERBOSITY verbose"
a "SELECT count(*) FROM exwiw_export('shops', '{1}', allow_undecided => true);"
a "ROLLBACK;"
a "\\echo done-3"
wait_for "$work/a.out" done-3 || { echo "not ok: session A did not finish"; fail=1; }
if grep -q '40001.*table "transactions" was changed after the export' "$work/a.out"; then
	echo "ok: a table truncated after the snapshot fails the export (40001) instead of losing its file"
else
	echo "not ok: expected a serialization failure:"
	cat "$work/a.out"
	fail=1
fi
a "\\q"
exec 3>&-
wait "$apid" || true
apid=

[ $fail -eq 0 ]
