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

sock="exwiw-cli-test-$$"
session=progress
T() { tmux -L "$sock" "$@"; }
trap 'T kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
T new-session -d -s "$session" -x 150 -y 40
# the pane's shell gets the connection settings
cat >"$work/env.sh" <<ENV
export PATH='$PATH' PGHOST='$PGHOST' PGPORT='$PGPORT' PGUSER='$PGUSER' PGDATABASE='$PGDATABASE' PGOPTIONS='$PGOPTIONS'
ENV
T send-keys -t "$session" "source $work/env.sh; clear" Enter
sleep 0.5

# wait_for PATTERN SECONDS: until the pane shows PATTERN
wait_for() {
	local i
	for i in $(seq 1 $(($2 * 10))); do
		if T capture-pane -p -t "$session" | grep -qE "$1"; then
			return 0
		fi
		sleep 0.1
	done
	return 1
}

cmd="exwiw --target-table=shops --ids=1,2 --schema-dir=$sd --allow-undecided -j 2 -o $work/out"
T send-keys -t "$session" "$cmd; echo EXIT=\$?" Enter
if wait_for '^\[[#-]{30}\] +[0-9]+%  [0-9]+/9 tables  .* rows  .*/s  ETA ' 20; then
	T capture-pane -p -t "$session" >"$work/screen1.txt"
	ok "the overall bar, with tables, rows, bytes, rate and ETA: $(grep -E '^\[' "$work/screen1.txt" | head -1)"
else
	not_ok "no progress bar on the terminal"
	T capture-pane -p -t "$session"
fi
live='^  (insert-[0-9]{3}-[a-z_]+\.sql|#[0-9] [a-z_]+) +[0-9,]+ / ~[0-9]+ +rows +[0-9.]+ [kMG]?B +[0-9.]+ [kMG]?B/s'
if wait_for "$live" 20; then
	ok "a live line per table: rows against the estimate, bytes, rate: $(T capture-pane -p -t "$session" | grep -E "$live" | head -1 | sed 's/  */ /g')"
else
	not_ok "no live line for the table being written"
	T capture-pane -p -t "$session"
fi
if wait_for '^EXIT=' 60; then
	T capture-pane -p -t "$session" >"$work/screen2.txt"
	if grep -q '^EXIT=0$' "$work/screen2.txt" &&
		grep -qE "^exwiw: wrote 9 files, [0-9,]+ rows, [0-9.]+ [kMG]?B to $work/out in [0-9.]+ s$" "$work/screen2.txt" &&
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

# not a terminal, or --quiet: nothing
# (each step ends with its own marker: on a busy machine the pane may still
# show the step before when the next one is typed)
T send-keys -t "$session" "clear; $cmd --force 2>$work/stderr.txt; echo EXIT_STDERR=\$?" Enter
sleep 0.3
if wait_for '^EXIT_STDERR=' 60 && T capture-pane -p -t "$session" | grep -q '^EXIT_STDERR=0$' && [ ! -s "$work/stderr.txt" ] &&
	[ "$(T capture-pane -p -t "$session" | grep -cv '^$')" -le 2 ]; then
	ok "stderr not a terminal: nothing printed"
else
	not_ok "stderr not a terminal: $(cat "$work/stderr.txt")"
fi
rm -f "$work/stderr.txt"
T send-keys -t "$session" "clear; $cmd --force --quiet; echo EXIT_QUIET=\$?" Enter
sleep 0.3
if wait_for '^EXIT_QUIET=' 60 && T capture-pane -p -t "$session" | grep -q '^EXIT_QUIET=0$' &&
	[ "$(T capture-pane -p -t "$session" | grep -cE '^(exwiw|  insert|  #|\[)')" -eq 0 ]; then
	ok "--quiet on a terminal: nothing printed"
else
	not_ok "--quiet printed:"
	T capture-pane -p -t "$session"
fi

# Ctrl-C typed in the terminal
rm -rf "$work/out"
T send-keys -t "$session" "clear; $cmd; echo EXIT_CANCEL=\$?" Enter
wait_for '^\[[#-]{30}\]' 20 || true
sleep 1
T send-keys -t "$session" C-c
if wait_for '^EXIT_CANCEL=' 10; then
	T capture-pane -p -t "$session" >"$work/screen3.txt"
	if grep -q '^EXIT_CANCEL=130$' "$work/screen3.txt" && grep -q '^exwiw: error: canceled by user (SIGINT)$' "$work/screen3.txt" &&
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
