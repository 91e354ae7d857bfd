#!/usr/bin/env bash
# test/t/standby.sh: exports from a hot standby (issue 23).
#
# Starts a primary of its own (autovacuum off, so that nothing but this
# test writes WAL) and a streaming standby made with pg_basebackup -R, both
# from the private install (EXWIW_BIN), on the two ports after PGPORT
# (EXWIW_STANDBY_PORT overrides the first: primary, then standby).  Loads
# the subset fixture on the primary, waits until the standby has replayed
# it, and checks on the standby:
#  1. exwiw_export (insert, copy, jsonl), exwiw_dump and exwiw_dump_jsonl
#     give the primary's bytes;
#  2. the client, -j 1 and -j 2 (the snapshot exported and imported on the
#     standby) with --with-schema, writes the primary's directory;
#  3. the server-side sinks (exwiw_export_to_dir, exwiw_dump_to_file,
#     exwiw_dump_jsonl_to_file) write the primary's files: a standby writes
#     no WAL for them;
#  4. a snapshot conflict: with max_standby_streaming_delay = 100ms and
#     hot_standby_feedback off, an export is held in the middle of a file (a
#     mask waits on an advisory lock that a psql coprocess holds), the
#     primary deletes rows the export reads and VACUUMs them away; the
#     export ends with "conflict with recovery" (40001) and leaves no
#     directory, file or temporary file, for exwiw_export_to_dir,
#     exwiw_dump_to_file and the client (-j 2), which says what to change.
# No step depends on speed: every wait is for a condition (replay LSN, a
# backend waiting on the lock, a process ending), bounded by 120 s.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/lib.sh"
source "$root/test/subset/lib.sh"
source "$root/test/cli/lib.sh"
cli_init standby
chmod 755 "$work"

pport=${EXWIW_STANDBY_PORT:-$((${PGPORT:-5432} + 1))}
sport=$((pport + 1))
pdir=$work/primary
sdir=$work/standby
mkdir -p "$pdir" "$sdir" "$work/files"
if [ "$(id -u)" -eq 0 ]; then chown postgres: "$sdir" "$work/files"; fi
chmod 777 "$work/files"

stop_all() {
	local d
	for d in "$sdir" "$pdir"; do
		[ -f "$d/data/postmaster.pid" ] || continue
		exwiw_as_server_user "$EXWIW_BIN/pg_ctl" -D "$d/data" -m immediate -w stop >/dev/null 2>&1 ||
			kill -QUIT "$(head -n 1 "$d/data/postmaster.pid")" 2>/dev/null || true
	done
	[ -n "${hold_pid:-}" ] && kill "$hold_pid" 2>/dev/null
	rm -rf "$work"
	return 0
}
trap stop_all EXIT

# the primary: WAL for a standby, nothing written behind the test's back
exwiw_initdb "$pdir" "$pport" "" 64MB
cat >>"$pdir/data/postgresql.conf" <<CONF
wal_level = replica
max_wal_senders = 4
autovacuum = off
CONF
exwiw_as_server_user "$EXWIW_BIN/pg_ctl" -D "$pdir/data" -l "$pdir/server.log" -w -t 60 start >/dev/null ||
	{ cat "$pdir/server.log"; exit 1; }
P=(-h "$pdir/sock" -p "$pport")
S=(-h "$sdir/sock" -p "$sport")

psql -X -q -v ON_ERROR_STOP=1 "${P[@]}" -c "CREATE DATABASE standby_src"
psql -X -q -v ON_ERROR_STOP=1 "${P[@]}" -d standby_src -c "CREATE EXTENSION exwiw" \
	-f "$root/test/subset/fixture.sql" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 "${P[@]}" -d standby_src <<'SQL'
-- rows that an export reads and the primary will delete and vacuum away
CREATE TABLE shop.pad (id int PRIMARY KEY, note text);
INSERT INTO shop.pad SELECT g, 'pad ' || g FROM generate_series(1, 2000) g;
-- a mask that waits while someone holds advisory lock 4242 exclusively
CREATE FUNCTION shop.held(v text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_advisory_lock_shared(4242);
	PERFORM pg_advisory_unlock_shared(4242);
	RETURN v;
END
$$;
SQL

# the standby: a base backup with -R (standby.signal, primary_conninfo)
exwiw_as_server_user "$EXWIW_BIN/pg_basebackup" "${P[@]}" -U postgres -D "$sdir/data" -R -X stream \
	--no-sync >"$sdir/basebackup.log" 2>&1 || { cat "$sdir/basebackup.log"; exit 1; }
mkdir -p "$sdir/sock"
if [ "$(id -u)" -eq 0 ]; then chown postgres: "$sdir/sock"; fi
cat >>"$sdir/data/postgresql.conf" <<CONF
port = $sport
unix_socket_directories = '$sdir/sock'
hot_standby = on
hot_standby_feedback = off
max_standby_streaming_delay = 100ms
CONF
exwiw_as_server_user "$EXWIW_BIN/pg_ctl" -D "$sdir/data" -l "$sdir/server.log" -w -t 60 start >/dev/null ||
	{ cat "$sdir/server.log"; exit 1; }

# wait_for LABEL SQL: until SQL (on the standby) returns t, at most 120 s
wait_for() {
	local label=$1 sql=$2 end=$((SECONDS + 120))
	while [ $SECONDS -lt $end ]; do
		[ "$(psql -X -At "${S[@]}" -d "${3:-postgres}" -c "$sql" 2>/dev/null)" = t ] && return 0
		sleep 0.1
	done
	not_ok "$label: not after 120 s"
	return 1
}
# caught_up: the standby has replayed everything the primary wrote so far
# (the insert position, not pg_current_wal_lsn(), the write position: with
# synchronous_commit = off, as test/lib.sh sets it, a commit that has
# returned may not be written yet, and a standby that has replayed up to the
# write position may not see it: the export then read an empty shop.pad)
caught_up() {
	local lsn
	lsn=$(psql -X -At "${P[@]}" -c "SELECT pg_current_wal_insert_lsn()")
	wait_for "standby replays $lsn" "SELECT pg_last_wal_replay_lsn() >= '$lsn'"
}
caught_up
[ "$(psql -X -At "${S[@]}" -c "SELECT pg_is_in_recovery()")" = t ] ||
	{ not_ok "the standby is not in recovery"; exit 1; }
ok "primary on $pport, streaming standby on $sport (pg_basebackup -R), data replayed"

export PGDATABASE=standby_src PGOPTIONS='-c search_path=shop,public -c client_min_messages=warning'

# 1. the SQL functions
for fmt in insert copy jsonl; do
	sql="SELECT (e).file_name, (e).chunk FROM (SELECT exwiw_export('shops', '{1,2}', exwiw_config_from_catalog(), '$fmt', allow_undecided => true) AS e) s"
	subset_write_files "$work/p_$fmt" "${P[@]}" -c "$sql"
	subset_write_files "$work/s_$fmt" "${S[@]}" -c "$sql"
	if [ "$(ls "$work/p_$fmt" | wc -l)" -gt 3 ] && same_dirs "$work/p_$fmt" "$work/s_$fmt"; then
		ok "exwiw_export $fmt on the standby: the primary's $(ls "$work/s_$fmt" | wc -l) files"
	else
		not_ok "exwiw_export $fmt on the standby differs from the primary's"
		diff -r "$work/p_$fmt" "$work/s_$fmt" | head -n 20 || true
	fi
done
for sql in "SELECT exwiw_dump('SELECT * FROM shop.orders ORDER BY id', 'orders', 7)" \
	"SELECT exwiw_dump_jsonl('SELECT * FROM shop.users ORDER BY id')"; do
	if cmp -s <(psql -X -At "${P[@]}" -c "$sql") <(psql -X -At "${S[@]}" -c "$sql"); then
		ok "on the standby, the primary's bytes: $sql"
	else
		not_ok "different bytes on the standby: $sql"
	fi
done

# 2. the client
sd=$work/schema
exwiw schema generate --from-db --schema-dir="$sd" "${P[@]}" >/dev/null
exwiw --target-table=shops --ids=1,2 --schema-dir="$sd" --allow-undecided --with-schema \
	-j 1 -o "$work/cli_p" "${P[@]}" 2>"$work/cli_p.err" || { not_ok "exwiw on the primary"; cat "$work/cli_p.err"; }
# pg_dump's \restrict key is random, run after run
unrestrict() { sed -i '/^\\\(un\)\?restrict /d' "$1/insert-000-schema.sql"; }
unrestrict "$work/cli_p"
for j in 1 2; do
	if exwiw --target-table=shops --ids=1,2 --schema-dir="$sd" --allow-undecided --with-schema \
		-j "$j" -o "$work/cli_s$j" "${S[@]}" 2>"$work/cli_s$j.err"; then
		unrestrict "$work/cli_s$j"
		if same_dirs "$work/cli_p" "$work/cli_s$j"; then
			ok "exwiw -j $j --with-schema on the standby: the primary's $(ls "$work/cli_s$j" | wc -l) files"
		else
			not_ok "exwiw -j $j on the standby: not the primary's files"
			diff -r "$work/cli_p" "$work/cli_s$j" | head -n 20 || true
		fi
	else
		not_ok "exwiw -j $j on the standby failed"
		cat "$work/cli_s$j.err"
	fi
done

# 3. the sinks (server-side files; the standby writes them, no WAL)
f=$work/files
for side in p s; do
	if [ $side = p ]; then c=("${P[@]}"); else c=("${S[@]}"); fi
	psql -X -q -At -v ON_ERROR_STOP=1 "${c[@]}" >/dev/null <<SQL || not_ok "the sinks on side $side"
SELECT count(*) FROM exwiw_export_to_dir('$f/dir_$side', 'shops', '{1,2}', exwiw_config_from_catalog(), allow_undecided => true);
SELECT exwiw_dump_to_file('$f/orders_$side.sql', 'SELECT * FROM shop.orders ORDER BY id', 'orders', compress => 'zstd');
SELECT exwiw_dump_jsonl_to_file('$f/users_$side.jsonl', 'SELECT * FROM shop.users ORDER BY id');
SQL
done
if same_dirs "$f/dir_p" "$f/dir_s" && [ "$(ls "$f/dir_s" | wc -l)" -gt 3 ] &&
	cmp -s "$f/orders_p.sql" "$f/orders_s.sql" && [ -s "$f/orders_s.sql" ] &&
	cmp -s "$f/users_p.jsonl" "$f/users_s.jsonl" && [ -s "$f/users_s.jsonl" ]; then
	ok "exwiw_export_to_dir, exwiw_dump_to_file (zstd), exwiw_dump_jsonl_to_file on the standby: the primary's files"
else
	not_ok "the sinks on the standby wrote other files than on the primary"
	ls -l "$f" "$f"/dir_*
fi

# 4. snapshot conflicts
# The config of the client's schema directory, with users.name masked by
# shop.held: every users row waits while lock 4242 is held.
jq_users='{"name": "users", "primary_key": "id",
 "belongs_tos": [{"foreign_key": "shop_id", "table_name": "shops"}],
 "columns": [{"name": "id"}, {"name": "shop_id"}, {"name": "email", "raw_sql": "NULL"},
             {"name": "name", "raw_sql": "shop.held(users.name)"},
             {"name": "phone", "raw_sql": "NULL"}, {"name": "vip"}]}'
printf '%s\n' "$jq_users" >"$sd/users.json"
cfg=$(cli_config_array "$sd")

# the lock holder: one psql session on the standby, driven through a coprocess
coproc HOLD { psql -X -q -At "${S[@]}" -d standby_src 2>&1; }
hold_pid=$HOLD_PID
hold() {
	local line
	echo "$1" >&"${HOLD[1]}"
	IFS= read -r -t 120 line <&"${HOLD[0]}" || line="(no answer)"
	[ "$line" = "$2" ] || not_ok "lock holder: '$line', not '$2'"
}

# conflict LABEL DIR-OR-FILE CMD...: run CMD (an export on the standby) in
# the background while lock 4242 is held, wait until it waits on the lock,
# delete the pad rows (which it reads, after users) on the primary and
# VACUUM them away, release nothing, and wait for CMD to end.  CMD must fail
# with "conflict with recovery" and leave nothing where it writes.
conflict() {
	local label=$1 out=$2 rc=0 pid before after end
	shift 2
	psql -X -q -v ON_ERROR_STOP=1 "${P[@]}" -c "INSERT INTO shop.pad SELECT g, 'pad ' || g FROM generate_series(1, 2000) g ON CONFLICT DO NOTHING"
	caught_up
	before=$(ls -A "$(dirname "$out")" | LC_ALL=C sort)
	hold "SELECT 'locked' FROM pg_advisory_lock(4242);" locked
	local padrows
	padrows=$(psql -X -At "${S[@]}" -c "SELECT count(*) FROM shop.pad")
	"$@" >"$work/conflict.out" 2>"$work/conflict.err" &
	pid=$!
	# until it waits on the lock (or has ended: then it failed otherwise)
	end=$((SECONDS + 120))
	until [ "$(psql -X -At "${S[@]}" -d postgres -c "SELECT count(*) > 0 FROM pg_stat_activity WHERE wait_event = 'advisory' AND datname = 'standby_src'")" = t ]; do
		if ! kill -0 $pid 2>/dev/null || [ $SECONDS -ge $end ]; then
			not_ok "$label: the export did not wait on the lock:"
			kill $pid 2>/dev/null || true
			rc=0
			wait $pid || rc=$?
			echo "    exit status $rc; stdout: $(head -c 200 "$work/conflict.out" | tr '\n' ' ')"
			echo "    before: $padrows pad rows; the query now: $(psql -X -At "${S[@]}" -c "SELECT count(*) FROM shop.users u, shop.pad p")"
			echo "    primary: $(psql -X -At "${P[@]}" -c "SELECT count(*) FROM shop.pad") pad rows, lsn $(psql -X -At "${P[@]}" -c "SELECT pg_current_wal_insert_lsn()");" \
				"standby replayed $(psql -X -At "${S[@]}" -c "SELECT pg_last_wal_replay_lsn() || ' received ' || pg_last_wal_receive_lsn() || ' paused ' || pg_get_wal_replay_pause_state()")"
			echo "    standby plan: $(psql -X -At "${S[@]}" -c "EXPLAIN (COSTS off) SELECT count(*) FROM shop.pad" | tr '\n' ' ')"
			echo "    on the standby: $(psql -X -At "${S[@]}" -c "SELECT count(*) FROM shop.pad") pad rows," \
				"$(psql -X -At "${S[@]}" -c "SELECT count(*) FROM shop.users") users rows, lock 4242 held by" \
				"$(psql -X -At "${S[@]}" -c "SELECT string_agg(pid || ' ' || mode || ' ' || granted, ', ') FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242")"
			sed 's/^/    /' "$work/conflict.err"
			hold "SELECT 'unlocked' FROM pg_advisory_unlock(4242);" unlocked
			return 0
		fi
		sleep 0.1
	done
	# rows the export's snapshot sees, gone on the primary, vacuumed away
	# (no truncation: its lock would be a conflict of another kind)
	psql -X -q -v ON_ERROR_STOP=1 "${P[@]}" -c "DELETE FROM shop.pad" -c "VACUUM (TRUNCATE false) shop.pad"
	wait $pid || rc=$?
	hold "SELECT 'unlocked' FROM pg_advisory_unlock(4242);" unlocked
	after=$(ls -A "$(dirname "$out")" | LC_ALL=C sort)
	if [ $rc -eq 0 ]; then
		not_ok "$label: the export succeeded"
	elif ! grep -q "conflict with recovery" "$work/conflict.err"; then
		not_ok "$label: exit $rc without 'conflict with recovery':"
		sed 's/^/    /' "$work/conflict.err"
	elif [ -e "$out" ] || [ "$before" != "$after" ]; then
		not_ok "$label: left something behind: $(comm -13 <(echo "$before") <(echo "$after") | tr '\n' ' ')"
	else
		ok "$label: $(grep -m1 'conflict with recovery' "$work/conflict.err" | cut -c1-100)"
		cp "$work/conflict.err" "$work/conflict.last"
	fi
}

echo "SELECT count(*) FROM exwiw_export_to_dir('$f/dir_conflict', 'shops', '{1,2}', :'cfg', allow_undecided => true);" >"$work/to_dir.sql"
conflict "exwiw_export_to_dir on the standby, snapshot conflict" "$f/dir_conflict" \
	psql -X -q -At -v ON_ERROR_STOP=1 "${S[@]}" -v cfg="$cfg" -f "$work/to_dir.sql"
conflict "exwiw_dump_to_file on the standby, snapshot conflict" "$f/conflict.sql" \
	psql -X -q -At -v ON_ERROR_STOP=1 "${S[@]}" \
	-c "SELECT exwiw_dump_to_file('$f/conflict.sql', 'SELECT u.id AS user_id, shop.held(u.name) AS name, p.* FROM shop.users u, shop.pad p ORDER BY 1, p.id', 'x')"
conflict "exwiw -j 2 on the standby, snapshot conflict" "$work/cli_conflict" \
	exwiw --target-table=shops --ids=1,2 --schema-dir="$sd" --allow-undecided -j 2 -o "$work/cli_conflict" "${S[@]}"
if [ -f "$work/conflict.last" ] && grep -q "^exwiw: error: .*conflict with recovery" "$work/conflict.last" &&
	grep -q "hot_standby_feedback" "$work/conflict.last"; then
	ok "the client names the conflict and the settings: $(grep -m1 'hot_standby_feedback' "$work/conflict.last" | cut -c1-100)"
else
	not_ok "the client's message does not say what to change:"
	sed 's/^/    /' "$work/conflict.last" 2>/dev/null || true
fi
echo '\q' >&"${HOLD[1]}"
wait "$hold_pid" 2>/dev/null || true
hold_pid=

# the standby is still a standby, still replaying
caught_up && ok "the standby still replays after the conflicts"
exit $fail
