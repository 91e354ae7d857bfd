#!/usr/bin/env bash
# bench/exact.sh: the cost of counting an export before writing it, and a
# limited export against the whole one (issue 40).
#
#   bench/exact.sh     (EXWIW_PORT picks the port; EXWIW_BENCH_PORT the
#                       cluster's, default EXWIW_PORT + 1)
#
# Builds exwiw into a private copy of PostgreSQL, starts a throwaway
# cluster, loads the 1,000-shop dataset (bench/shops_1000.sql: 1M orders,
# 2M order items, 1M transactions) and runs, in interleaved rounds, each in
# a new session, for all 1,000 shops as one tenant:
#   export    exwiw_export streamed to /dev/null (what `exwiw export` runs)
#   exact     exwiw_explain(..., count_rows => true): every file's rows
#             counted on one snapshot, nothing sent (`explain --exact`, and
#             what `export --max-rows/--max-bytes` runs first): the row sets,
#             then a file read from its set takes the set's rows, any other
#             a count(*) of its rows
#   sets      exwiw_explain(...): the row sets computed and each file's
#             query planned, nothing counted: the part of both the export
#             and the counts that the counts cannot avoid
#   analyze   exwiw_explain(..., actual => true): each file's query run
#             under EXPLAIN ANALYZE (`explain --analyze`; what `--exact`
#             ran before 2026-12-07)
#   limit 1%  the export with orders limited to their newest 10 per shop
#             ("limit": {"rows": 10, "per": "shop_id", ...}: 1% of the
#             tenant's orders, and with them 1% of its items and
#             transactions)
# Best time of BENCH_ROUNDS (3) each.  Goals: exact <= 1/3 of export; the
# 1% export a small fraction of the whole one (it must not write, or read
# the children of, the rows it leaves out).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh
bench_cluster
bench_shops_1000
psql -X -q -v ON_ERROR_STOP=1 -c "SET search_path = shop, public" \
	-c "CREATE TABLE public.bench_limited AS SELECT jsonb_set(cfg, '{tables}', (SELECT jsonb_agg(CASE WHEN t->>'name' = 'orders'
	      THEN t || '{\"limit\": {\"rows\": 10, \"per\": \"shop_id\", \"order_by\": \"ordered_at DESC, id DESC\"}}' ELSE t END)
	      FROM jsonb_array_elements(cfg->'tables') t)) AS cfg FROM public.bench_cfg" \
	-c "CREATE TABLE public.bench_ids AS SELECT array_agg(id::text ORDER BY id) AS ids FROM shop.shops"

ids="(SELECT ids FROM public.bench_ids)"
declare -A best_s
rounds=${BENCH_ROUNDS:-3}
for round in $(seq "$rounds"); do
	for path in export exact sets analyze limited; do
		case $path in
			export) sql="SELECT (e).file_name, (e).chunk FROM (SELECT exwiw_export('shops', $ids, (SELECT cfg FROM public.bench_cfg), allow_undecided => true) AS e) s" ;;
			exact) sql="SELECT seq, table_name, actual_rows FROM exwiw_explain('shops', $ids, (SELECT cfg FROM public.bench_cfg), count_rows => true)" ;;
			sets) sql="SELECT seq, table_name FROM exwiw_explain('shops', $ids, (SELECT cfg FROM public.bench_cfg))" ;;
			analyze) sql="SELECT seq, table_name, actual_rows FROM exwiw_explain('shops', $ids, (SELECT cfg FROM public.bench_cfg), actual => true)" ;;
			limited) sql="SELECT (e).file_name, (e).chunk FROM (SELECT exwiw_export('shops', $ids, (SELECT cfg FROM public.bench_limited), allow_undecided => true) AS e) s" ;;
		esac
		bench_run "round $round, $path" psql -X -q -At -o /dev/null \
			-c "SET search_path = shop, public" -c "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" -c "$sql" -c "COMMIT" >/dev/null
		if [ -z "${best_s[$path]:-}" ] || [ "$(echo "$BENCH_SECONDS < ${best_s[$path]}" | bc)" -eq 1 ]; then
			best_s[$path]=$BENCH_SECONDS
		fi
	done
done
rows() {
	psql -X -At -c "SET search_path = shop, public" -c "SELECT sum(actual_rows)::bigint FROM exwiw_explain('shops', $ids, (SELECT cfg FROM public.$1), true)" | tail -1
}
all_rows=$(rows bench_cfg)
limited_rows=$(rows bench_limited)

printf '\n%-40s %10s %12s %10s\n' "all 1,000 shops" "seconds" "rows" "vs export"
printf '%-40s %10s %12s %10s\n' "export (exwiw_export to /dev/null)" "${best_s[export]}" "$all_rows" "1.00"
printf '%-40s %10s %12s %10s\n' "exact counts (exwiw_explain, count_rows)" "${best_s[exact]}" "$all_rows" "$(ratio "${best_s[exact]}" "${best_s[export]}")"
printf '%-40s %10s %12s %10s\n' "row sets only (exwiw_explain)" "${best_s[sets]}" "" "$(ratio "${best_s[sets]}" "${best_s[export]}")"
printf '%-40s %10s %12s %10s\n' "EXPLAIN ANALYZE (exwiw_explain, actual)" "${best_s[analyze]}" "$all_rows" "$(ratio "${best_s[analyze]}" "${best_s[export]}")"
printf '%-40s %10s %12s %10s\n' "export, orders limited to 10 per shop" "${best_s[limited]}" "$limited_rows" "$(ratio "${best_s[limited]}" "${best_s[export]}")"
status=0
if [ "$(echo "${best_s[exact]} * 3 > ${best_s[export]}" | bc)" -eq 1 ]; then
	echo "not ok: exact counts cost more than a third of the export"
	status=1
fi
exwiw_cluster_stop
exit $status
