#!/usr/bin/env bash
# test/t/sink_files.sh: what the server-side file sinks write, end to end.
#
#  1. exwiw_dump_to_file's file is the psql recipe's file with the line
#     "SET standard_conforming_strings = on;" first; gunzip and zstd -d give
#     back exactly the uncompressed bytes (also for a file of many
#     compression buffers); exwiw_dump_jsonl_to_file's is psql's output.
#  2. Round trip: every type of test/fixtures/all_types.sql, written by
#     exwiw_dump_to_file (insert, copy; none, gzip, zstd) and loaded with
#     psql, equals the source (EXCEPT both ways).
#  3. Round trip: exwiw_export_to_dir of every shop of the subset fixture,
#     plain, gzip and zstd, loads in file order as a role that is not a
#     superuser into an empty copy of the schema with every constraint
#     enforced, and every table equals its source (EXCEPT both ways).
#  4. A cancel in the middle (pg_cancel_backend while the export waits at a
#     row for an advisory lock that the script holds, its temporary file
#     over 1000 kB) leaves no file and no temporary file.
#  5. A full disk (a 1 MB tmpfs): the export fails with 53100 disk_full and
#     leaves nothing behind; the same export fits on a larger tmpfs.  Skipped,
#     with the reason, where tmpfs cannot be mounted.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/subset/lib.sh"
[ -n "${EXWIW_BIN:-}" ] && PATH=$EXWIW_BIN:$PATH
export PGDATABASE=postgres
work=$(mktemp -d /tmp/exwiw-sinks-files.XXXXXX)
chmod 777 "$work"
mnt=""
cleanup() {
	[ -n "$mnt" ] && umount "$mnt" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "not ok: $*"; exit 1; }
ok() { echo "ok: $*"; }
q() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

q <<'SQL'
SET client_min_messages = warning;
DROP DATABASE IF EXISTS sink_src;
DROP DATABASE IF EXISTS sink_dst;
CREATE DATABASE sink_src;
CREATE DATABASE sink_dst;
SQL
q -d sink_src -c "CREATE EXTENSION exwiw" -f "$root/test/fixtures/all_types.sql" >/dev/null
q -d sink_src <<'SQL'
CREATE TABLE big (id int PRIMARY KEY, t text, n numeric, ts timestamptz);
INSERT INTO big SELECT g, md5(g::text) || E'\n' || repeat('x', g % 50), g / 7.0,
	timestamptz '2024-01-01 00:00:00+00' + g * interval '1 minute'
FROM generate_series(1, 200000) g;
SQL

# 1. the bytes
s() { q -d sink_src -At -c "$1" >/dev/null; }
s "SELECT exwiw_dump_to_file('$work/big.sql', 'SELECT * FROM big ORDER BY id', 'big', 1000)"
s "SELECT exwiw_dump_to_file('$work/big.sql.gz', 'SELECT * FROM big ORDER BY id', 'big', 1000, compress => 'gzip')"
s "SELECT exwiw_dump_to_file('$work/big.sql.zst', 'SELECT * FROM big ORDER BY id', 'big', 1000, compress => 'zstd')"
{
	echo "SET client_encoding = '$(q -d sink_src -At -c "SHOW server_encoding")';"
	echo "SET standard_conforming_strings = on;"
	q -d sink_src -At -c "SELECT exwiw_dump('SELECT * FROM big ORDER BY id', 'big', 1000)"
} >"$work/big.psql.sql"
cmp "$work/big.sql" "$work/big.psql.sql" || fail "exwiw_dump_to_file differs from the SET lines plus the psql recipe's file"
gunzip -c "$work/big.sql.gz" | cmp - "$work/big.sql" || fail "gunzip does not give back the uncompressed bytes"
zstd -q -d -c "$work/big.sql.zst" | cmp - "$work/big.sql" || fail "zstd -d does not give back the uncompressed bytes"
gzip -t "$work/big.sql.gz" && zstd -q -t "$work/big.sql.zst" || fail "a compressed file does not check"
ok "exwiw_dump_to_file = SET lines + psql recipe ($(stat -c %s "$work/big.sql") bytes); gunzip ($(stat -c %s "$work/big.sql.gz") bytes) and zstd -d ($(stat -c %s "$work/big.sql.zst") bytes) give it back"
s "SELECT exwiw_dump_jsonl_to_file('$work/big.jsonl.gz', 'SELECT * FROM big ORDER BY id', compress => 'gzip:1')"
q -d sink_src -At -c "SELECT exwiw_dump_jsonl('SELECT * FROM big ORDER BY id')" >"$work/big.psql.jsonl"
gunzip -c "$work/big.jsonl.gz" | cmp - "$work/big.psql.jsonl" || fail "exwiw_dump_jsonl_to_file differs from the psql recipe's file"
ok "exwiw_dump_jsonl_to_file (gzip:1) = the psql recipe's file"

# 2. round trip of every type
for fmt in insert copy; do
	for comp in none gzip zstd; do
		f=$work/rt_$fmt.sql
		case $comp in gzip) f=$f.gz ;; zstd) f=$f.zst ;; esac
		s "SELECT exwiw_dump_to_file('$f', 'SELECT * FROM rt_src', 'rt_dst', format => '$fmt', compress => '$comp')"
		q -d sink_src -c "TRUNCATE rt_dst"
		case $comp in
		none) q -d sink_src -f "$f" >/dev/null ;;
		gzip) gunzip -c "$f" | q -d sink_src >/dev/null ;;
		zstd) zstd -q -d -c "$f" | q -d sink_src >/dev/null ;;
		esac
		d=$(q -d sink_src -At -c "SELECT (SELECT count(*) FROM (TABLE rt_src_v EXCEPT ALL TABLE rt_dst_v) a)
			+ (SELECT count(*) FROM (TABLE rt_dst_v EXCEPT ALL TABLE rt_src_v) b), (SELECT count(*) FROM rt_dst)")
		[ "${d%%|*}" = 0 ] && [ "${d##*|}" -gt 0 ] || fail "all types, $fmt, $comp: $d (differing rows | rows loaded)"
	done
done
ok "all types round-trip through exwiw_dump_to_file: insert and copy, none, gzip and zstd"

# 3. round trip of a subset export, constraints enforced
subset_make_databases "$root"
export PGOPTIONS='-c search_path=shop,public'
pg_dump --schema-only -n shop subset_src >"$work/schema.sql"
tables="announcements categories shops products users orders order_items order_tags transactions"
for comp in none gzip zstd; do
	dir=$work/export_$comp
	n=$(q -d subset_src -At -c "SET client_min_messages = warning" \
		-c "SELECT count(*) FROM exwiw_export_to_dir('$dir', 'shops', '{1,2,3}', exwiw_test_unmasked(exwiw_config_from_catalog()), allow_undecided => true, compress => '$comp')")
	[ "$n" = 9 ] || fail "$comp: $n files"
	case $comp in
	gzip) gunzip "$dir"/*.gz ;;
	zstd) zstd -q -d --rm "$dir"/*.zst ;;
	esac
	subset_fresh_dst "$work/schema.sql"
	# no session_replication_role for this role: every foreign key fires
	PGUSER=subset_loader subset_load_files "$dir" -d subset_dst 2>"$work/load.err" ||
		{ cat "$work/load.err"; fail "$comp: the files do not load"; }
	pg_dump --data-only -n shop -d subset_dst 2>/dev/null | sed -e 's/^COPY shop\./COPY loaded./' \
		-e '/^SELECT pg_catalog.setval/d' >"$work/loaded.sql"
	q -d subset_src -c "SET client_min_messages = warning" -c "DROP SCHEMA IF EXISTS loaded CASCADE" \
		-c "CREATE SCHEMA loaded"
	for t in $tables; do q -d subset_src -c "CREATE TABLE loaded.$t (LIKE shop.$t)"; done
	q -d subset_src -f "$work/loaded.sql" >/dev/null
	for t in $tables; do
		d=$(q -d subset_src -At -c "SELECT (SELECT count(*) FROM (TABLE shop.$t EXCEPT ALL TABLE loaded.$t) a)
			+ (SELECT count(*) FROM (TABLE loaded.$t EXCEPT ALL TABLE shop.$t) b)")
		[ "$d" = 0 ] || fail "$comp: table $t differs in $d rows"
	done
done
unset PGOPTIONS
ok "exwiw_export_to_dir of every shop (none, gzip, zstd) loads with every constraint enforced and equals the source"

# 4. a cancel in the middle.  Row 20000 of the export waits while a session
#    of this script holds advisory lock 4711: the export stops there, its
#    temporary file holding the rows before it, and nothing but the cancel
#    can end it.  No step waits for a time; the bounds only catch a hang.
q -d sink_src <<'SQL'
-- row AT waits for advisory lock 4711 (shared, for the transaction: an
-- error lets go of it)
CREATE FUNCTION gate(g int, at int) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
	IF g = at THEN PERFORM pg_advisory_xact_lock_shared(4711); END IF;
	RETURN g;
END $$;
SQL
# the holder: a psql session of its own, on stdin; it ends, and lets go,
# at "\q", or when this script exits (its stdin closes)
coproc HOLDER { psql -X -q -At -v ON_ERROR_STOP=1 -d sink_src 2>&1; }
holder_pid=$HOLDER_PID
holder_in=${HOLDER[1]}
echo "SELECT pg_backend_pid(), pg_advisory_lock(4711);" >&"$holder_in"
IFS= read -r -t 300 holder_line <&"${HOLDER[0]}" || fail "the lock holder did not answer"
holder_backend=${holder_line%%|*}
[[ $holder_line =~ ^[0-9]+\|$ ]] || fail "the lock holder: $holder_line"
gated="SELECT gate(g, 20000) AS id, repeat('y', 500) AS pad FROM generate_series(1, 100000) g"
q -d sink_src -At -c "SELECT exwiw_dump_to_file('$work/cancel.sql', \$q\$$gated\$q\$, 't')" >/dev/null 2>"$work/cancel.err" &
pid=$!
# cancel_export: end the export however it is (on a failure, before exiting)
cancel_export() { q -At -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE 'SELECT exwiw_dump_to_file(%cancel.sql%' AND pid <> pg_backend_pid()" >/dev/null || true; }
# wait until the export's backend waits for the lock (at row 20000)
deadline=$((SECONDS + 300))
while :; do
	epid=$(q -At -c "SELECT pid FROM pg_stat_activity WHERE query LIKE 'SELECT exwiw_dump_to_file(%cancel.sql%' AND pid <> pg_backend_pid() AND wait_event_type = 'Lock' AND wait_event = 'advisory'")
	[ -n "$epid" ] && break
	kill -0 $pid 2>/dev/null || { cat "$work/cancel.err"; fail "the export ended before it reached the lock"; }
	[ $SECONDS -lt $deadline ] || { cancel_export; fail "the export did not reach the lock in 300 s"; }
	sleep 0.1
done
# it stands still there, the rows before written: the temporary file is there
tmpf=$(find "$work" -maxdepth 1 -name '.cancel.sql.exwiw-tmp.*' -size +1000k | head -n 1)
[ -n "$tmpf" ] || { ls -la "$work"; cancel_export; fail "no temporary file of more than 1000 kB while the export waits at row 20000"; }
[ "$(q -At -c "SELECT pg_cancel_backend($epid)")" = t ] || { cancel_export; fail "pg_cancel_backend($epid) failed"; }
deadline=$((SECONDS + 300))
while kill -0 $pid 2>/dev/null; do
	[ $SECONDS -lt $deadline ] || { cancel_export; fail "the export did not end in 300 s after the cancel"; }
	sleep 0.1
done
wait $pid && fail "the cancelled export succeeded"
# the holder lets go and ends; then no session is left of this part
echo '\q' >&"$holder_in"
wait "$holder_pid" || fail "the lock holder failed"
while [ "$(q -At -c "SELECT count(*) FROM pg_stat_activity WHERE pid IN ($epid, $holder_backend)")" != 0 ]; do
	[ $SECONDS -lt $deadline ] || fail "the sessions of the cancel test did not end"
	sleep 0.1
done
grep -q "canceling statement due to user request" "$work/cancel.err" || { cat "$work/cancel.err"; fail "no cancel message"; }
left=$(find "$work" -maxdepth 1 -name '*cancel.sql*' | wc -l)
[ "$left" = 0 ] || fail "a cancel left $left files"
ok "a cancel while the export waited at row 20000, its temporary file ($(basename "$tmpf")) over 1000 kB, leaves nothing"

# 5. a full disk
mnt=$work/small
mkdir -p "$mnt"
if mount -t tmpfs -o size=1m,mode=0777 tmpfs "$mnt" 2>"$work/mount.err"; then
	q -d sink_src -At -c "SELECT exwiw_dump_to_file('$mnt/big.sql', 'SELECT * FROM big', 'big')" >/dev/null 2>"$work/full.err" &&
		fail "an export larger than the disk succeeded"
	grep -q "could not write file \"$mnt/big.sql\": No space left on device" "$work/full.err" || { cat "$work/full.err"; fail "no disk-full error"; }
	state=$(q -d sink_src -At -c "DO \$\$ BEGIN PERFORM exwiw_export_to_dir('$mnt/dir', 'rt_src', '{1}', '[{\"name\": \"rt_src\", \"primary_key\": \"id\"}, {\"name\": \"big\", \"primary_key\": \"id\", \"export\": \"all\"}]'); EXCEPTION WHEN disk_full THEN RAISE NOTICE 'disk_full'; END \$\$" 2>&1)
	echo "$state" | grep -q disk_full || fail "the directory export did not fail with disk_full: $state"
	left=$(find "$mnt" -mindepth 1 | wc -l)
	[ "$left" = 0 ] || { find "$mnt"; fail "a full disk left $left entries"; }
	[ "$(df --output=used -k "$mnt" | tail -n 1 | tr -d ' ')" -lt 64 ] || fail "space is still used on the tmpfs"
	umount "$mnt"
	mount -t tmpfs -o size=64m,mode=0777 tmpfs "$mnt"
	s "SELECT exwiw_dump_to_file('$mnt/big.sql', 'SELECT * FROM big ORDER BY id', 'big', 1000)"
	cmp "$mnt/big.sql" "$work/big.sql" || fail "the export on the larger disk differs"
	umount "$mnt"
	mnt=""
	ok "a full disk (1 MB tmpfs) fails with disk_full and leaves nothing; the same export fits on 64 MB"
else
	mnt=""
	echo "skip: full-disk test: cannot mount a tmpfs here ($(cat "$work/mount.err"))"
fi

q -c "DROP DATABASE sink_src" -c "DROP DATABASE sink_dst"
echo "sink_files: all checks passed"
