#!/usr/bin/env bash
# test/t/cli_progress.sh: the progress display, in a real terminal (tmux:
# send-keys, then capture-pane), and Ctrl-C typed in it.
#
# - On a terminal: a line per table with rows (against the estimate),
#   bytes and rate, an overall bar with a percentage and an ETA; at the
#   end the live lines are gone and one summary line says files, rows,
#   bytes and seconds.
# - stderr not a terminal (2>file), and --quiet: nothing at all.
# - Ctrl-C typed in the terminal: exit status 130, "canceled", nothing
#   left behind.
# The export is slowed down by pg_sleep() masks so the display is seen.
# Skips (passes with a message) when tmux is not installed.
#
# Nothing here depends on the machine's speed: each command in the pane
# records its exit status in a file of its own when it ends (run.sh), and
# the checks wait for that file, or for what the screen must show, with
# bounds (pane_wait, file_wait) that only a hang reaches; the Ctrl-C is
# typed once the export is seen writing, in an export slowed down so much
# that it cannot end first.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/subset/lib.sh"
source "$root/test/cli/lib.sh"
if ! command -v tmux >/dev/null; then
	echo "skip: tmux is not installed (apt-get install tmux)"
	exit 0
fi
cli_init progress

psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
SET client_min_messages = warning;
DROP DATABASE IF EXISTS cli_progress;
CREATE DATABASE cli_progress;
SQL
psql -X -q -v ON_ERROR_STOP=1 -d cli_progress -c "CREATE EXTENSION exwiw" -f "$root/test/subset/fixture.sql" >/dev/null
psql -X -q -d cli_progress -c "INSERT INTO shop.orders (shop_id, user_id, ordered_at, total)
	SELECT 1, 1, now(), g FROM generate_series(1, 30) g" -c "ANALYZE"
export PGDATABASE=cli_progress PGOPTIONS='-c search_path=shop,public -c client_min_messages=warning'
sd=$work/schema
exwiw schema generate --from-db --schema-dir="$sd" >/dev/null
cat >"$sd/orders.json" <<'JSON'
{"name": "orders", "primary_key": "id",
 "belongs_tos": [{"foreign_key": "shop_id", "table_name": "shops"}, {"foreign_key": "user_id", "table_name": "users"}],
 "columns": [{"name": "id"}, {"name": "shop_id"}, {"name": "user_id"}, {"name": "ordered_at"},
             {"name": "total", "raw_sql": "orders.total + length(pg_sleep(0.15)::text)"}]}
JSON
# the same, 34 rows of 2 s each: the export Ctrl-C stops
sd_slow=$work/schema-slow
cp -r "$sd" "$sd_slow"
sed -i 's/pg_sleep(0.15)/pg_sleep(2)/' "$sd_slow/orders.json"

sock="exwiw-cli-test-$$"
session=progress
T() { tmux -L "$sock" "$@"; }
trap 'T kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
T new-session -d -s "$session" -x 150 -y 40
# the pane's shell gets the connection settings
cat >"$work/env.sh" <<ENV
export PATH='$PATH' PGHOST='$PGHOST' PGPORT='$PGPORT' PGUSER='$PGUSER' PGDATABASE='$PGDATABASE' PGOPTIONS='$PGOPTIONS'
ENV
# run.sh N ARGS...: exwiw ARGS in the pane; then EXIT=<status> on the
# screen, and last the status in rc.N (so that when rc.N has it, the
# command has ended and the screen and its files are complete)
# (the shell outlives a Ctrl-C, which only exwiw acts on)
cat >"$work/run.sh" <<'RUN'
trap : INT
n=$1
shift
exwiw "$@"
rc=$?
echo "EXIT=$rc"
echo "$rc" >"$(dirname "$0")/rc.$n.tmp" && mv "$(dirname "$0")/rc.$n.tmp" "$(dirname "$0")/rc.$n"
RUN

# pane_wait PATTERN [SECONDS]: until the pane shows PATTERN (default
# bound 300 s: only a hang reaches it)
pane_wait() {
	local deadline=$((SECONDS + ${2:-300}))
	while [ $SECONDS -lt $deadline ]; do
		T capture-pane -p -t "$session" | grep -qE "$1" && return 0
		sleep 0.1
	done
	return 1
}
# file_wait FILE [SECONDS]: until FILE exists
file_wait() {
	local deadline=$((SECONDS + ${2:-300}))
	while [ $SECONDS -lt $deadline ]; do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	return 1
}
# glob_wait PATTERN [SECONDS]: until a file matches PATTERN
glob_wait() {
	local deadline=$((SECONDS + ${2:-300}))
	while [ $SECONDS -lt $deadline ]; do
		compgen -G "$1" >/dev/null && return 0
		sleep 0.1
	done
	return 1
}
# run N ARGS...: clear the pane, then run.sh N ARGS in it
run() {
	local n=$1
	shift
	T send-keys -t "$session" "clear; sh $work/run.sh $n $*" Enter
}

T send-keys -t "$session" "source $work/env.sh; clear; echo READY" Enter
pane_wait '^READY$' || { not_ok "the pane's shell did not start"; exit 1; }

args="--target-table=shops --ids=1,2 --allow-undecided -j 2 -o $work/out"
run 1 "$args --schema-dir=$sd"
if pane_wait '^\[[#-]{30}\] +[0-9]+%  [0-9]+/9 tables  .* rows  .*/s  ETA '; then
	T capture-pane -p -t "$session" >"$work/screen1.txt"
	ok "the overall bar, with tables, rows, bytes, rate and ETA: $(grep -E '^\[' "$work/screen1.txt" | head -1)"
else
	not_ok "no progress bar on the terminal"
	T capture-pane -p -t "$session"
fi
live='^  (insert-[0-9]{3}-[a-z_]+\.sql|#[0-9] [a-z_]+) +[0-9,]+ / ~[0-9]+ +rows +[0-9.]+ [kMG]?B +[0-9.]+ [kMG]?B/s'
if pane_wait "$live"; then
	ok "a live line per table: rows against the estimate, bytes, rate: $(T capture-pane -p -t "$session" | grep -E "$live" | head -1 | sed 's/  */ /g')"
else
	not_ok "no live line for the table being written"
	T capture-pane -p -t "$session"
fi
if file_wait "$work/rc.1"; then
	T capture-pane -p -t "$session" >"$work/screen2.txt"
	# the insert and the delete files (a table whose rows come only as
	# parents, categories, has no delete file)
	nfiles=$(ls "$work/out" | wc -l)
	if grep -q '^EXIT=0$' "$work/screen2.txt" && [ "$nfiles" -gt 9 ] &&
		grep -qE "^exwiw: wrote $nfiles files, [0-9,]+ rows, [0-9.]+ [kMG]?B to $work/out in [0-9.]+ s$" "$work/screen2.txt" &&
		! grep -qE '^\[[#-]{30}\]' "$work/screen2.txt" &&
		grep -qE '^  insert-006-orders\.sql +34 rows .* done$' "$work/screen2.txt"; then
		ok "at the end: the live lines are gone, each table's line stays (orders: 34 rows), and one summary line: $(grep '^exwiw: wrote' "$work/screen2.txt")"
	else
		not_ok "the end of the display:"
		cat "$work/screen2.txt"
	fi
else
	not_ok "the export did not end"
fi

# not a terminal, or --quiet: nothing (the screen: the command line and
# EXIT=0)
run 2 "$args --schema-dir=$sd --force 2>$work/stderr.txt"
if file_wait "$work/rc.2" && [ "$(cat "$work/rc.2")" = 0 ] && [ ! -s "$work/stderr.txt" ] &&
	T capture-pane -p -t "$session" | grep -q '^EXIT=0$' &&
	[ "$(T capture-pane -p -t "$session" | grep -cv '^$')" -le 2 ]; then
	ok "stderr not a terminal: nothing printed"
else
	not_ok "stderr not a terminal: exit $(cat "$work/rc.2" 2>/dev/null), $(cat "$work/stderr.txt")"
	T capture-pane -p -t "$session"
fi
run 3 "$args --schema-dir=$sd --force --quiet"
if file_wait "$work/rc.3" && [ "$(cat "$work/rc.3")" = 0 ] &&
	T capture-pane -p -t "$session" | grep -q '^EXIT=0$' &&
	[ "$(T capture-pane -p -t "$session" | grep -cE '^(exwiw|  insert|  #|\[)')" -eq 0 ]; then
	ok "--quiet on a terminal: nothing printed"
else
	not_ok "--quiet printed (exit $(cat "$work/rc.3" 2>/dev/null)):"
	T capture-pane -p -t "$session"
fi

# Ctrl-C typed in the terminal, once the slow export is seen running: its
# bar on the screen (the screen before showed none) and its temporary
# directory (68 s of pg_sleep: it cannot end first)
rm -rf "$work/out"
run 4 "$args --schema-dir=$sd_slow"
if ! pane_wait '^\[[#-]{30}\]' || ! glob_wait "$work/.exwiw-*"; then
	not_ok "the slow export did not start"
	T capture-pane -p -t "$session"
fi
T send-keys -t "$session" C-c
if file_wait "$work/rc.4"; then
	T capture-pane -p -t "$session" >"$work/screen3.txt"
	if grep -q '^EXIT=130$' "$work/screen3.txt" && grep -q '^exwiw: error: canceled by user (SIGINT)$' "$work/screen3.txt" &&
		[ "$(cat "$work/rc.4")" = 130 ] &&
		[ ! -e "$work/out" ] && [ -z "$(ls -A "$work" | grep '^\.exwiw-')" ]; then
		ok "Ctrl-C in the terminal: exit 130, canceled, nothing left"
	else
		not_ok "Ctrl-C:"
		cat "$work/screen3.txt"
	fi
else
	not_ok "Ctrl-C did not stop the export"
fi

exit $fail
