#!/usr/bin/env bash
# test/citus/t/routing.sh: does each file's query go to one worker?
# exwiw_explain() EXPLAINs every file's query where it runs (on Citus each
# query carries the row sets it reads as CTEs).  Citus's EXPLAIN of a
# router query shows one "Task Count: 1" and the node it runs on; a query
# it cannot route shows "Distributed Subplan"s (CTEs run first, their
# results shipped as intermediate results) and "Task Count: 32" (every
# shard).
#
# Every query must plan (no error).  For the tenant config, the query of
# every distributed table whose rows are its seed alone (the tenant as a
# constant: shop_id = ANY ('{7}')) must route to the worker that holds the
# tenant, and a reference table's to a single node.  A query that reads
# the export's row sets (the closure: rows that exported rows reference)
# runs those first as subplans and then reads every shard against their
# results: reported as TODO, with the reason.
source "$(dirname "$0")/../lib.sh"
PATH=$EXWIW_BIN:$PATH
work=$(mktemp -d /tmp/exwiw-citus-routing.XXXXXX)
trap 'rm -rf "$work"' EXIT
shop=7
worker=$(cq -XAtq -c "SELECT nodeport FROM pg_dist_shard_placement
	WHERE shardid = get_shard_id_for_distribution_column('shop.shops', $shop)")
citus_note "shop $shop lives on the worker at port $worker"

# summary PLAN-FILE: "tasks=<counts> nodes=<ports> subplans=<n>"
summary() {
	echo "tasks=$(grep -o 'Task Count: [0-9]*' "$1" | awk '{print $3}' | paste -sd, -)" \
		"nodes=$(grep -o 'port=[0-9]*' "$1" | cut -d= -f2 | sort -u | paste -sd, -)" \
		"subplans=$(grep -c 'Distributed Subplan' "$1" || true)"
}

kind() {
	cq -XAtq -c "SELECT CASE WHEN to_regclass('shop.$1') IS NULL THEN 'none'
		WHEN NOT EXISTS (SELECT FROM pg_dist_partition WHERE logicalrelid = 'shop.$1'::regclass) THEN 'local'
		WHEN (SELECT partmethod FROM pg_dist_partition WHERE logicalrelid = 'shop.$1'::regclass) = 'n' THEN 'reference'
		ELSE 'distributed' END"
}

for cfgname in tenant relational catalog; do
	if ! cq -XAtq -F $'\t' -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" -c "SET search_path = shop, public" \
		-c "SELECT table_name, replace(plan, E'\n', ' ') FROM exwiw_explain('shops', '{$shop}', $(citus_config $cfgname)) ORDER BY seq" \
		>"$work/plans.txt" 2>"$work/err"; then
		citus_not_ok "config $cfgname: exwiw_explain fails: $(grep -m1 ERROR "$work/err")"
		continue
	fi
	while IFS=$'\t' read -r table plan; do
		printf '%s\n' "$plan" >"$work/plan"
		r=$(summary "$work/plan")
		k=$(kind "$table")
		sets=$(grep -c 'CTE exwiw_\|Distributed Subplan' "$work/plan" || true)
		desc="config $cfgname: $table ($k): $r"
		case "$k:$r" in
		distributed:"tasks=1 nodes=$worker subplans=0")
			citus_ok "$desc: one router query to the tenant's worker" ;;
		reference:"tasks=1 nodes="*" subplans=0")
			citus_ok "$desc: one task on one node" ;;
		local:"tasks= nodes= subplans=0")
			citus_ok "$desc: a plain local query" ;;
		*"tasks=1 nodes= subplans=0")
			citus_ok "$desc: one task" ;;
		*"tasks=1 "*"subplans=0")
			citus_not_ok "$desc: routed, but not to the tenant's worker" ;;
		*)
			if [ "$cfgname" = tenant ] && [ "$k" = distributed ] && [ "$sets" -eq 0 ]; then
				citus_not_ok "$desc: a seed-only query of the tenant config that does not route"
			else
				citus_todo "$desc" "not one router query: its rows are chosen through the export's row sets (the closure's 'id IN (seed UNION ALL the rows exported rows reference)', or a belongs_to through a column that is not the distribution column); Citus runs those CTEs first as subplans (each routed when it filters shop_id by a constant) and then reads every shard of the table against their intermediate results"
			fi ;;
		esac
	done <"$work/plans.txt"
done
