#!/usr/bin/env bash
# test/t/subset_consistency.sh: while another session inserts and deletes
# orders (with their items and transactions) as fast as it can, exports of
# the busy shop still load into an empty, fully constrained copy of the
# schema: every table was read from one snapshot.
#
# To make the race certain, a filter on shops sleeps 0.2 s in every table's
# query (the shops seed is part of each query), so the tables are read
# seconds apart while the writer commits hundreds of changes.  A control
# run exports the same files one statement (one snapshot) each; it is
# expected to produce an export that does not load, which shows the writer
# really raced (reported, not required).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/subset/lib.sh"
[ -n "${EXWIW_BIN:-}" ] && PATH=$EXWIW_BIN:$PATH
export PGDATABASE=postgres
work=$(mktemp -d /tmp/subset-consistency.XXXXXX)
chmod 755 "$work"
writer_pid=""
# The writer's backend would outlive its psql client: stop it by its
# application_name (ours alone), and it stops by itself after 120 s.
cleanup() {
	if [ -n "$writer_pid" ]; then
		psql -X -q -d postgres -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
			WHERE application_name = 'exwiw_subset_writer'" >/dev/null 2>&1 || true
		wait "$writer_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

subset_make_databases "$root"
psql -X -q -v ON_ERROR_STOP=1 -d subset_src <<'SQL'
SET search_path = shop;
CREATE INDEX ON transactions (order_id);
INSERT INTO orders (shop_id, user_id, ordered_at, total)
	SELECT 1, 1 + i % 2, now(), i FROM generate_series(1, 3000) i;
INSERT INTO order_items (order_id, product_id, quantity)
	SELECT o.id, 1 + o.id % 2, 1 FROM orders o, generate_series(1, 3);
INSERT INTO transactions (order_id, amount) SELECT id, total FROM orders WHERE id > 5;
CREATE TABLE public.writer_state (iterations bigint NOT NULL, stop boolean NOT NULL);
INSERT INTO public.writer_state VALUES (0, false);
ANALYZE;
SQL
pg_dump --schema-only -n shop -d subset_src >"$work/schema.sql"

# the writer: one transaction per iteration, each inserting a new order of
# shop 1 with items and a transaction, and deleting the oldest one (its
# items and transactions go by ON DELETE CASCADE)
PGAPPNAME=exwiw_subset_writer psql -X -q -d subset_src >"$work/writer.log" 2>&1 <<'SQL' &
SET search_path = shop;
DO $$
DECLARE
	o bigint;
	started timestamptz := clock_timestamp();
BEGIN
	LOOP
		INSERT INTO orders (shop_id, user_id, ordered_at, total)
			VALUES (1, 1, now(), 1) RETURNING id INTO o;
		INSERT INTO order_items (order_id, product_id, quantity)
			VALUES (o, 1, 1), (o, 2, 2);
		INSERT INTO transactions (order_id, amount) VALUES (o, 1);
		DELETE FROM orders WHERE id = (SELECT min(id) FROM orders WHERE shop_id = 1 AND id > 5);
		UPDATE public.writer_state SET iterations = iterations + 1;
		COMMIT;
		EXIT WHEN (SELECT stop FROM public.writer_state)
			OR clock_timestamp() > started + interval '900 s';
	END LOOP;
END
$$;
SQL
writer_pid=$!

config="(SELECT jsonb_agg(CASE t ->> 'name' WHEN 'shops'
	THEN t || '{\"filter\": \"(SELECT pg_sleep(0.2)) IS NOT NULL\"}' ELSE t END)
	FROM jsonb_array_elements(exwiw_config_from_catalog() -> 'tables') t)"

iterations() { psql -XAt -d subset_src -c "SELECT iterations FROM public.writer_state"; }

fresh_dst() { subset_fresh_dst "$work/schema.sql"; }

# Load as a role that may not set session_replication_role: the files' DO
# block only warns, and every foreign key is checked.
load() {
	fresh_dst
	PGOPTIONS='-c search_path=shop' subset_load_files "$1" -U subset_loader -d subset_dst \
		>/dev/null 2>"$1.err"
}

# the writer is running once it has committed (bound: only a hang)
deadline=$((SECONDS + 300))
while [ "$(iterations)" -eq 0 ] && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
fail=0
[ "$(iterations)" -gt 0 ] || { echo "FAIL: the writer did not start"; fail=1; }
for run in 1 2; do
	before=$(iterations)
	dir=$work/run$run
	subset_write_files "$dir" -d subset_src -c "SET client_min_messages = warning" \
		-c "SET search_path = shop, public" \
		-c "SELECT file_name, chunk FROM exwiw_export('shops', '{1}', $config, allow_undecided => true)"
	after=$(iterations)
	if [ "$after" -le "$before" ]; then
		echo "FAIL: run $run: the writer made no progress during the export"
		fail=1
	fi
	# every foreign key checked: the loader may not set replica mode (each
	# file's block then keeps only its table's own triggers quiet)
	if load "$dir" && ! grep -q ERROR "$dir.err" && ! subset_loader_may_skip_keys; then
		echo "ok: run $run: export taken while the writer committed $((after - before)) transactions loads with every foreign key checked"
	else
		echo "FAIL: run $run: the export does not load"
		cat "$dir.err"
		fail=1
	fi
done

# the control: the same export, one file per statement (files => {seq}),
# so one snapshot per file, as a client running a query per table reads.
dir=$work/control
mkdir -p "$dir"
before=$(iterations)
psql -XAtq -d subset_src -c "SET client_min_messages = warning" -c "SET search_path = shop, public" \
	-c "SELECT seq FROM exwiw_plan('shops', '{1}', $config) WHERE seq IS NOT NULL ORDER BY seq" >"$work/plan.txt"
while read -r seq; do
	subset_write_files "$dir/t" -d subset_src -c "SET search_path = shop, public" \
		-c "SET client_min_messages = warning" \
		-c "SELECT (e).file_name, (e).chunk FROM (SELECT exwiw_export('shops', '{1}', $config, allow_undecided => true, files => '{$seq}') AS e) s"
	sleep 0.2
done <"$work/plan.txt"
after=$(iterations)
if load "$dir/t"; then
	echo "note: the control (one snapshot per file) happened to load; writer did $((after - before)) transactions"
else
	echo "ok: the control (one snapshot per file) does not load, as expected: $(grep -m1 ERROR "$dir/t.err")"
fi

psql -X -q -d subset_src -c "UPDATE writer_state SET stop = true"
wait "$writer_pid" || true
writer_pid=""
if grep -q ERROR "$work/writer.log"; then
	echo "FAIL: the writer failed"
	cat "$work/writer.log"
	fail=1
fi
psql -X -q -c "DROP DATABASE subset_dst" -c "DROP DATABASE subset_src" -c "DROP ROLE subset_loader"
exit $fail
