#!/usr/bin/env bash
# test/t/sink_cron.sh: a scheduled export with pg_cron, for real.
#
# Starts its own cluster (on the main test port + 2) with pg_cron preloaded
# (Debian's postgresql-15-cron), leaving the main test cluster alone.
# Debian 12 ships pg_cron 1.4, whose schedules are cron expressions, one
# minute at the finest (the '5 seconds' schedules came with 1.5), so the
# test schedules its jobs for the next minute and waits up to two minutes
# for cron.job_run_details.
#
#  1. the README's job: exwiw_export_to_dir of every shop into a dated
#     directory, then the cleanup statement that keeps the last two
#     exports, runs and succeeds (three older exports are there before it;
#     two remain);
#  2. its files load, in file order and with every constraint enforced,
#     into an empty copy of the schema, and every table equals its source
#     (EXCEPT both ways);
#  3. a job whose export fails (its directory is not empty) shows as
#     "failed" in cron.job_run_details, with the error as return_message,
#     and leaves the directory as it was.
source "$(dirname "$0")/../lib.sh"
source "$EXWIW_ROOT/test/subset/lib.sh"
if [ -z "${EXWIW_BIN:-}" ]; then
	echo "skip: sink_cron: run it from test/run (EXWIW_BIN is not set)"
	exit 0
fi
if [ ! -f "$EXWIW_BIN/../lib/pg_cron.so" ]; then
	echo "skip: sink_cron: pg_cron is not installed (apt-get install postgresql-$PG_MAJOR-cron)"
	exit 0
fi
PATH=$EXWIW_BIN:$PATH
main_port=${PGPORT:-$(exwiw_port)}
port=$((main_port + 2))
work=$(mktemp -d /tmp/exwiw-sinks-cron.XXXXXX)
out=$work/exports
mkdir -p "$out"
chmod 777 "$out"
exwiw_cluster_start "$work" "$port" "shared_preload_libraries = 'pg_cron'" \
	"cron.database_name = 'shopdb'" "cron.use_background_workers = on" \
	"max_worker_processes = 16"
trap 'exwiw_cluster_stop; [ -n "${EXWIW_KEEP:-}" ] || rm -rf "$work"' EXIT
fail() { echo "not ok: $*"; exit 1; }
ok() { echo "ok: $*"; }
q() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

q -c "CREATE DATABASE shopdb"
subset_make_databases "$EXWIW_ROOT" # subset_src (the fixture), subset_dst, subset_loader
export PGDATABASE=shopdb
q -c "CREATE EXTENSION exwiw" -c "CREATE EXTENSION pg_cron" \
	-c "SET client_min_messages = warning" -f "$EXWIW_ROOT/test/subset/fixture.sql" >/dev/null
q -c "ALTER DATABASE shopdb SET search_path = shop, public"
# Three older exports, as earlier runs would have left them.
for d in 2026-01-01 2026-01-02 2026-01-03; do
	q -c "SELECT count(*) FROM exwiw_export_to_dir('$out/shops-$d', 'shops', '{1}', allow_undecided => true)" >/dev/null
done
mkdir "$out/keep-me" && touch "$out/keep-me/notes.txt" && chmod -R 777 "$out/keep-me"

# Schedule for the next minute (not in its last seconds: pg_cron reads a
# new job at the start of the next minute's check).
while [ "$(date -u +%S)" -gt 50 ]; do sleep 1; done
when=$(date -u -d '+1 minute' '+%-M %-H')
job=$(q -At <<SQL
SELECT cron.schedule('exwiw-shops', '$when * * *', \$job\$
  SELECT count(*) FROM exwiw_export_to_dir(
           '$out/shops-' || to_char(now(), 'YYYY-MM-DD"T"HH24MISS'),
           'shops', '{1,2,3}', exwiw_test_unmasked(exwiw_config_from_catalog()),
           allow_undecided => true);
  SELECT exwiw_remove_export('$out/' || d)
  FROM (SELECT d FROM pg_ls_dir('$out') AS d
        WHERE d LIKE 'shops-%'
        ORDER BY d DESC OFFSET 2) AS old;
\$job\$);
SQL
)
badjob=$(q -At -c "SELECT cron.schedule('exwiw-fails', '$when * * *', \$job\$
  SELECT count(*) FROM exwiw_export_to_dir('$out/keep-me', 'shops', '{1}', allow_undecided => true);
\$job\$)")
echo "jobs $job and $badjob scheduled for minute '$when' (UTC), now $(date -u +%H:%M:%S)"

# the jobs start at the next minute; the bound only catches a hang
deadline=$((SECONDS + 400))
while :; do
	n=$(q -At -c "SELECT count(*) FROM cron.job_run_details WHERE status IN ('succeeded', 'failed')")
	[ "$n" -ge 2 ] || [ $SECONDS -ge $deadline ] && break
	sleep 1
done
q -c "SELECT jobid, status, return_message, end_time - start_time AS took FROM cron.job_run_details ORDER BY jobid"
[ "$n" -ge 2 ] || fail "the jobs did not run within 400 seconds"
q -c "SELECT cron.unschedule(jobid) FROM cron.job" >/dev/null

# 1. the export job succeeded, and the cleanup kept the last two
status=$(q -At -c "SELECT status FROM cron.job_run_details WHERE jobid = $job")
[ "$status" = succeeded ] || fail "the export job: $status"
mapfile -t dirs < <(cd "$out" && ls -d shops-* | sort)
[ "${#dirs[@]}" = 2 ] || fail "expected the last two exports, found: ${dirs[*]}"
[ "${dirs[0]}" = shops-2026-01-03 ] || fail "the cleanup kept ${dirs[0]}"
new=$out/${dirs[1]}
[ "$(ls "$new" | wc -l)" = 9 ] || fail "the scheduled export has $(ls "$new" | wc -l) files"
if ls -a "$out" | grep -q exwiw-tmp; then fail "a temporary name is left"; fi
ok "the scheduled export succeeded (${dirs[1]}), and the cleanup kept the last two exports"

# 2. the files (every shop: every row) load with every constraint enforced
#    and each table equals its source
pg_dump --schema-only -n shop shopdb >"$work/schema.sql"
subset_fresh_dst "$work/schema.sql"
PGDATABASE=subset_dst PGUSER=subset_loader PGOPTIONS='-c search_path=shop,public' subset_load_files "$new" 2>"$work/load.err" ||
	{ cat "$work/load.err"; fail "the scheduled export does not load"; }
PGDATABASE=subset_dst pg_dump --data-only -n shop 2>/dev/null |
	sed -e 's/^COPY shop\./COPY loaded./' -e '/^SELECT pg_catalog.setval/d' >"$work/loaded.sql"
q -c "SET client_min_messages = warning" -c "DROP SCHEMA IF EXISTS loaded CASCADE" -c "CREATE SCHEMA loaded"
tables=$(ls "$new" | sed -e 's/^insert-[0-9]*-//' -e 's/\.sql$//')
for t in $tables; do q -c "CREATE TABLE loaded.$t (LIKE shop.$t)"; done
q -f "$work/loaded.sql" >/dev/null
for t in $tables; do
	d=$(q -At -c "SELECT (SELECT count(*) FROM (TABLE shop.$t EXCEPT ALL TABLE loaded.$t) a)
		+ (SELECT count(*) FROM (TABLE loaded.$t EXCEPT ALL TABLE shop.$t) b)")
	[ "$d" = 0 ] || fail "table $t differs in $d rows"
done
ok "the scheduled export's files load with every constraint enforced and equal the source"

# 3. the failed run
row=$(q -At -F '|' -c "SELECT status, return_message FROM cron.job_run_details WHERE jobid = $badjob")
echo "$row"
[ "${row%%|*}" = failed ] || fail "the failing job: $row"
echo "$row" | grep -q "is not empty" || fail "the failed run's message: $row"
[ "$(ls "$out/keep-me")" = notes.txt ] || fail "the failed run changed the directory"
ok "a failed run shows status failed and the error in return_message, and changes nothing"
echo "sink_cron: all checks passed"
