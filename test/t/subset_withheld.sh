#!/usr/bin/env bash
# test/t/subset_withheld.sh: no masked value in any message (issue 17,
# attack 3).  users.ssn, email, name and phone carry masks (safe mode's
# defaults); a filter or raw_sql that fails on one of their values
# ("ssn::int > 0" on 'ORIGINAL-SSN-2') must not show the value in the
# error, its detail, hint or context, in any NOTICE or DEBUG message, nor in
# the server log (the ERROR line, its context, the STATEMENT line), through
# every entry point: exwiw_export (the target's seed, a row set, the count
# of rows a filter drops, a file), with the sets as CTEs, exwiw_explain
# (with and without ANALYZE, with a parallel plan forced), exwiw_export_to_dir,
# exwiw_plan, and the exwiw command.  Each error keeps its SQLSTATE and names
# the table and the config key.  A control shows that the same filter run by
# hand does put the value in the output and the server log, so the searches
# can find it.
#
# The server log is $EXWIW_WORK/server.log (test/run's cluster); elsewhere
# the log check is skipped with the reason.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/subset/lib.sh"
[ -n "${EXWIW_BIN:-}" ] && PATH=$EXWIW_BIN:$PATH
export PGDATABASE=postgres
work=$(mktemp -d /tmp/subset-withheld.XXXXXX)
chmod 777 "$work"
trap 'rm -rf "$work"' EXIT
failed=0
ok() { echo "ok: $*"; }
not_ok() { echo "not ok: $*"; failed=1; }

subset_make_databases "$root" withheld
db=withheld_src
# Every message of these sessions, at every level, to the client and to the
# server log, with the statement.
export PGOPTIONS="-c client_min_messages=debug1 -c log_min_messages=debug1 -c log_min_error_statement=debug1 -c log_error_verbosity=verbose"
q() { psql -X -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -d "$db" "$@"; }

q -q <<'SQL' >/dev/null
ALTER TABLE shop.users ADD COLUMN ssn text;
UPDATE shop.users SET ssn = 'ORIGINAL-SSN-' || id;
-- the catalog's config (safe mode's masks on users.email, name, phone and
-- ssn) with patch merged into the entry of table tname
CREATE FUNCTION public.wcfg(tname text, patch jsonb) RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_build_object('tables', jsonb_agg(
		CASE WHEN t ->> 'name' = tname THEN t || patch ELSE t END ORDER BY n))
	FROM jsonb_array_elements(exwiw_config_from_catalog('shop') -> 'tables') WITH ORDINALITY AS x(t, n)
$$;
SQL

# The original values of the masked columns.
q -At -c "SELECT DISTINCT v FROM shop.users, LATERAL (VALUES (ssn), (email), (name), (phone)) AS x(v) WHERE v IS NOT NULL" >"$work/originals"
masked=$(q -At -c "SELECT string_agg(c ->> 'name', ', ' ORDER BY c ->> 'name') FROM jsonb_array_elements(exwiw_config_from_catalog('shop') -> 'tables') t, jsonb_array_elements(t -> 'columns') c WHERE t ->> 'name' IN ('users', 'shop.users') AND (c ? 'replace_with' OR c ? 'raw_sql' OR c ? 'replace_with_fake_data')")
if [ "$masked" = "email, name, phone, ssn" ] && [ "$(wc -l <"$work/originals")" -ge 10 ]; then
	ok "users has masked columns $masked; $(wc -l <"$work/originals") original values to look for"
else
	not_ok "the fixture's masks: '$masked'"
fi

log=
why_no_log=
if [ -n "${EXWIW_WORK:-}" ] && [ -r "$EXWIW_WORK/server.log" ]; then
	log=$EXWIW_WORK/server.log
else
	why_no_log="the server log is not known here (EXWIW_WORK unset: run through test/run)"
fi
log_since() { tail -c +$(($1 + 1)) "$log"; }

# Control: the same filter by hand shows the value, in the output and in the
# server log, so the searches below can find one.
start=0
[ -n "$log" ] && start=$(stat -c %s "$log")
q -c "SELECT count(*) FROM shop.users WHERE ssn::int > 0" >"$work/control.out" 2>&1 || true
if grep -qF -f "$work/originals" "$work/control.out"; then
	ok "control: the filter run by hand shows an original value"
else
	not_ok "control: no original value in $(cat "$work/control.out")"
fi
if [ -n "$log" ]; then
	if ! subset_log_settle "$log" "$start" -d "$db" >"$work/control.log"; then
		not_ok "control: the server log does not show a mark logged after the filter"
	elif grep -qF -f "$work/originals" "$work/control.log"; then
		ok "control: the server log shows it too"
	else
		not_ok "control: the server log does not show the original value"
	fi
fi

[ -n "$log" ] && start=$(stat -c %s "$log")
: >"$work/all.out"

# expect_withheld NAME STATE TABLE KEY SQL...: the statements fail with
# SQLSTATE STATE, the message names TABLE and the detail KEY (a config key,
# or "-" for none), and no original value appears.
expect_withheld() {
	local name=$1 state=$2 table=$3 key=$4
	shift 4
	local out="$work/case.out"
	q -c "SET search_path = shop, public" "$@" >"$out" 2>&1 && {
		not_ok "$name: no error"
		cat "$out"
		cat "$out" >>"$work/all.out"
		return
	}
	cat "$out" >>"$work/all.out"
	if ! grep -q "^ERROR:  $state: could not read table \"$table\"" "$out"; then
		not_ok "$name: not the withheld error"
		cat "$out"
	elif [ "$key" != "-" ] && ! grep -qF "DETAIL:  The query evaluates key \"$key\"" "$out"; then
		not_ok "$name: the detail does not name key $key"
		cat "$out"
	elif grep -qF -f "$work/originals" "$out"; then
		not_ok "$name: an original value in the messages"
		grep -F -f "$work/originals" "$out"
	else
		ok "$name: $state, table $table, key $key, no value"
	fi
}
# expect_clean NAME SQL...: the statements succeed and show no original.
expect_clean() {
	local name=$1
	shift
	local out="$work/case.out"
	if ! q -c "SET search_path = shop, public" "$@" >"$out" 2>&1; then
		not_ok "$name: failed"
		cat "$out"
	elif grep -qF -f "$work/originals" "$out"; then
		not_ok "$name: an original value in the output"
	else
		ok "$name: no value"
	fi
	cat "$out" >>"$work/all.out"
}

bad_filter='{"filter": "ssn::int > 0"}'
expect_withheld "exwiw_export, a filter on a table reached by a belongs_to" 22P02 users filter \
	-c "SELECT count(*) FROM exwiw_export('shops', '{1}', wcfg('users', '$bad_filter'))"
expect_withheld "exwiw_export, the filter of the target's seed set" 22P02 users filter \
	-c "SELECT count(*) FROM exwiw_export('users', '{1,2}', wcfg('users', '$bad_filter'))"
expect_withheld "exwiw_export, the filter in the target's own file query" 22P02 users filter \
	-c "SELECT count(*) FROM exwiw_export('users', '{1,2}', '[{\"name\": \"users\", \"primary_key\": \"id\", \"filter\": \"ssn::int > 0\", \"columns\": [{\"name\": \"id\"}, {\"name\": \"shop_id\"}, {\"name\": \"ssn\", \"replace_with\": \"s{id}\"}]}]')"
expect_withheld "exwiw_export, a raw_sql of a masked column" 22P02 users 'columns[2].raw_sql' \
	-c "SELECT count(*) FROM exwiw_export('shops', '{1}', wcfg('users', '{\"columns\": [{\"name\": \"id\"}, {\"name\": \"shop_id\"}, {\"name\": \"email\", \"raw_sql\": \"email::int::text\"}, {\"name\": \"ssn\", \"replace_with\": \"s{id}\"}]}'))"
expect_withheld "exwiw_export, the filter of an unmasked table that reads a masked one" 22P02 orders filter \
	-c "SELECT count(*) FROM exwiw_export('shops', '{1}', wcfg('orders', '{\"filter\": \"user_id IN (SELECT u.id FROM shop.users u WHERE u.ssn::int > 0)\"}'))"
expect_withheld "exwiw_export, sets as CTEs, a filter on a table reached by a belongs_to" 22P02 users filter \
	-c "SET exwiw.sets_as_ctes = on" \
	-c "SELECT count(*) FROM exwiw_export('shops', '{1}', wcfg('users', '$bad_filter'))"
expect_withheld "exwiw_export, sets as CTEs, the target's seed" 22P02 users filter \
	-c "SET exwiw.sets_as_ctes = on" \
	-c "SELECT count(*) FROM exwiw_export('users', '{1,2}', wcfg('users', '$bad_filter'))"
expect_withheld "exwiw_explain" 22P02 users filter \
	-c "SELECT count(*) FROM exwiw_explain('shops', '{1}', wcfg('users', '$bad_filter'))"
expect_withheld "exwiw_explain, actual => true, the target's file query" 22P02 users filter \
	-c "SELECT count(*) FROM exwiw_explain('users', '{1,2}', '[{\"name\": \"users\", \"primary_key\": \"id\", \"filter\": \"ssn::int > 0\", \"columns\": [{\"name\": \"id\"}, {\"name\": \"ssn\", \"replace_with\": \"s{id}\"}]}]', actual => true)"
# A parallel worker reports (and logs) its own error before the leader sees
# it: the plan a withheld EXPLAIN ANALYZE runs has no worker.  (Forced, the
# plan is a Gather whose one worker reads every row.)
expect_withheld "exwiw_explain, actual => true, a parallel plan forced" 22P02 users 'columns[1].raw_sql' \
	-c "SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000 THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END, 'on', false)" \
	-c "SET parallel_setup_cost = 0" -c "SET parallel_leader_participation = off" \
	-c "SELECT count(*) FROM exwiw_explain('users', '{1,2}', '[{\"name\": \"users\", \"primary_key\": \"id\", \"columns\": [{\"name\": \"id\"}, {\"name\": \"ssn\", \"raw_sql\": \"ssn::int::text\"}]}]', actual => true)"
expect_clean "exwiw_explain, actual => false: nothing is read" \
	-c "SELECT count(*) FROM exwiw_explain('users', '{1,2}', '[{\"name\": \"users\", \"primary_key\": \"id\", \"filter\": \"ssn::int > 0\", \"columns\": [{\"name\": \"id\"}, {\"name\": \"ssn\", \"replace_with\": \"s{id}\"}]}]')"
expect_withheld "exwiw_export_to_dir" 22P02 users filter \
	-c "SELECT count(*) FROM exwiw_export_to_dir('$work/dir', 'shops', '{1}', wcfg('users', '$bad_filter'))"
[ -e "$work/dir" ] && not_ok "exwiw_export_to_dir left $work/dir behind"
expect_clean "exwiw_plan: nothing is read" \
	-c "SELECT count(*) FROM exwiw_plan('shops', '{1}', wcfg('users', '$bad_filter'))"

# The exwiw command prints the server's error as it is: withheld.
q -qAt -c "SET search_path = shop, public" -c "SELECT jsonb_pretty(wcfg('users', '$bad_filter') -> 'tables')" >"$work/schema.json"
if PGOPTIONS="$PGOPTIONS -c search_path=shop,public" exwiw --dbname="$db" --target-table=shops --ids=1 --schema-dir="$work/schema.json" -o "$work/cli-out" --quiet >"$work/cli.out" 2>&1; then
	not_ok "exwiw: no error"
elif ! grep -q 'could not read table "users", which has masked columns' "$work/cli.out"; then
	not_ok "exwiw: not the withheld error"
	cat "$work/cli.out"
elif grep -qF -f "$work/originals" "$work/cli.out"; then
	not_ok "exwiw: an original value in its messages"
else
	ok "exwiw command: the withheld error, no value"
fi
cat "$work/cli.out" >>"$work/all.out"

if grep -qF -f "$work/originals" "$work/all.out"; then
	not_ok "an original value in the messages of all cases"
else
	ok "no original value in any error, NOTICE or DEBUG message of $(grep -c '^ERROR:' "$work/all.out") errors"
fi
if [ -n "$log" ]; then
	if ! subset_log_settle "$log" "$start" -d "$db" >"$work/log.out"; then
		not_ok "server log: it does not show a mark logged after the cases"
	elif ! grep -q 'could not read table "users", which has masked columns' "$work/log.out" ||
		! grep -q 'STATEMENT:' "$work/log.out"; then
		not_ok "server log: the withheld errors and their statements are not in it"
	elif log_since "$start" | grep -qF -f "$work/originals"; then
		# (the whole log since the cases, the mark and after it too)
		not_ok "server log: an original value"
		log_since "$start" | grep -F -f "$work/originals" | head -n 5
	else
		ok "server log: $(grep -c 'ERROR:' "$work/log.out") errors with their statements, no original value"
	fi
else
	echo "ok: server log check skipped: $why_no_log"
fi
exit $failed
