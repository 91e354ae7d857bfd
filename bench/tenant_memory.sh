#!/usr/bin/env bash
# bench/tenant_memory.sh: the tenant export's backend memory, bounded by
# exwiw.work_mem whatever work_mem the server has (issue 39).
#
#   bench/tenant_memory.sh     (EXWIW_PORT picks the port; default 5573)
#
# Builds exwiw into a private copy of PostgreSQL, starts a throwaway
# cluster with work_mem = 64MB (bench/common.sh: a server tuned for
# reporting), loads the 1,000-shop dataset (bench/shops_1000.sql: 1M
# orders, 2M order items) and exports 1, 10, 100 and all 1,000 shops with
# exwiw_export streamed to /dev/null, each in a new session, in
# interleaved rounds: with exwiw.work_mem = 0 (the server's 64MB) and at
# its default (4MB).  Per run: wall seconds and the serving backend's peak
# private memory (RssAnon, sampled every 0.1 s: bench_run); the best time
# and the largest peak of 3 rounds are printed side by side.  Goal: the
# backend under 64 MB private at every size with the default, at no more
# than 10% of the time with the server's work_mem.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh
bench_cluster
bench_shops_1000

declare -A best_s best_kb
rounds=${BENCH_ROUNDS:-3}
sizes="1 10 100 1000"
for round in $(seq "$rounds"); do
	for n in $sizes; do
		for wm in 0 default; do
			set_wm=$([ "$wm" = 0 ] && echo "SET exwiw.work_mem = 0" || echo "RESET exwiw.work_mem")
			bench_run "round $round, $n shops, exwiw.work_mem=$wm" psql -X -q -At -o /dev/null \
				-c "SET search_path = shop, public" -c "$set_wm" \
				-c "SELECT (e).file_name, (e).chunk FROM (SELECT exwiw_export('shops', (SELECT array_agg(id::text ORDER BY id) FROM (SELECT id FROM shop.shops ORDER BY id LIMIT $n) s), (SELECT cfg FROM public.bench_cfg), allow_undecided => true) AS e) s" >/dev/null
			k="$n/$wm"
			if [ -z "${best_s[$k]:-}" ] || [ "$(echo "$BENCH_SECONDS < ${best_s[$k]}" | bc)" -eq 1 ]; then
				best_s[$k]=$BENCH_SECONDS
			fi
			if [ -z "${best_kb[$k]:-}" ] || [ "$BENCH_ANON_KB" -gt "${best_kb[$k]}" ]; then
				best_kb[$k]=$BENCH_ANON_KB
			fi
		done
	done
done

status=0
printf '\n%-10s %22s %22s %10s\n' "tenant" "work_mem 64MB (s, MB)" "exwiw.work_mem 4MB" "time ratio"
for n in $sizes; do
	printf '%-10s %12s %8s MB %12s %8s MB %10s\n' "$n shops" \
		"${best_s[$n/0]}" "$(mb "${best_kb[$n/0]}")" "${best_s[$n/default]}" "$(mb "${best_kb[$n/default]}")" \
		"$(ratio "${best_s[$n/default]}" "${best_s[$n/0]}")"
	if [ "${best_kb[$n/default]}" -ge 65536 ]; then
		echo "not ok: $n shops: the backend held $(mb "${best_kb[$n/default]}") MB private (goal < 64 MB)"
		status=1
	fi
done
exwiw_cluster_stop
exit $status
