#!/usr/bin/env bash
# test/citus/t/routing.sh: does each extraction query of exwiw_plan() go to
# one worker?  Citus's EXPLAIN of a router query shows one "Task Count: 1"
# and the node it runs on; a query it cannot route shows "Distributed
# Subplan"s (CTEs and subqueries run first, their results shipped as
# intermediate results) and "Task Count: 32" (every shard).
#
# For the tenant config every distributed table's query must route to the
# worker that holds the tenant; a reference table's to a single node (the
# coordinator's replica); the local table's reads the coordinator's table
# plus one router subplan for the shops seed.  For the relational and
# catalog configs the queries that do not route are reported as TODO, with
# the reason.
source "$(dirname "$0")/../lib.sh"
PATH=$EXWIW_BIN:$PATH
work=$(mktemp -d /tmp/exwiw-citus-routing.XXXXXX)
trap 'rm -rf "$work"' EXIT
shop=7
worker=$(cq -XAtq -c "SELECT nodeport FROM pg_dist_shard_placement
	WHERE shardid = get_shard_id_for_distribution_column('shop.shops', $shop)")
citus_note "shop $shop lives on the worker at port $worker"

# explain TABLE QUERY: "tasks=<counts> nodes=<ports> subplans=<n>" or the error
explain() {
	local out
	if ! out=$(cq -XAtq -c "SET search_path = shop, public" -c "EXPLAIN (COSTS OFF) $2" 2>&1); then
		echo "error=$(echo "$out" | grep -m1 ERROR | sed 's/^ERROR: *//')"
		return
	fi
	echo "tasks=$(echo "$out" | grep -o 'Task Count: [0-9]*' | awk '{print $3}' | paste -sd, -)" \
		"nodes=$(echo "$out" | grep -o 'port=[0-9]*' | cut -d= -f2 | sort -u | paste -sd, -)" \
		"subplans=$(echo "$out" | grep -c 'Distributed Subplan' || true)"
}

kind() {
	cq -XAtq -c "SELECT CASE WHEN to_regclass('shop.$1') IS NULL THEN 'none'
		WHEN NOT EXISTS (SELECT FROM pg_dist_partition WHERE logicalrelid = 'shop.$1'::regclass) THEN 'local'
		WHEN (SELECT partmethod FROM pg_dist_partition WHERE logicalrelid = 'shop.$1'::regclass) = 'n' THEN 'reference'
		ELSE 'distributed' END"
}

for cfgname in tenant relational catalog; do
	cq -XAtq -F $'\t' -c "SET client_min_messages = warning" -c "SET search_path = shop, public" \
		-c "SELECT table_name, replace(query, E'\n', ' ') FROM exwiw_plan('shops', '{$shop}', $(citus_config $cfgname))" \
		>"$work/plan.txt"
	while IFS=$'\t' read -r table q; do
		r=$(explain "$table" "$q")
		k=$(kind "$table")
		desc="config $cfgname: $table ($k): $r"
		case "$k:$r" in
		distributed:"tasks=1 nodes=$worker subplans=0")
			citus_ok "$desc: one router query to the tenant's worker" ;;
		reference:"tasks=1 nodes="*" subplans=0")
			citus_ok "$desc: one task on one node" ;;
		local:"tasks=1,1 nodes=$worker,"*" subplans=1" | local:"tasks=1,1 nodes="*",$worker subplans=1")
			citus_ok "$desc: the local table read on the coordinator, the shops seed routed to the tenant's worker" ;;
		local:"tasks= nodes= subplans=0")
			citus_ok "$desc: a plain local query (not related to a distributed table in this config)" ;;
		*error=*)
			citus_todo "$desc" "Citus cannot plan it: WITH RECURSIVE (the ancestors of a self-referencing table) is refused in a query it cannot route, and it cannot route it because the CTEs over distributed tables select the tenant by 'shop_id IN (SELECT id FROM shops WHERE id = ANY (...))', not by a constant" ;;
		*"tasks=1 "*"subplans=0")
			citus_not_ok "$desc: routed, but not to the tenant's worker" ;;
		*)
			citus_todo "$desc" "not one router query: its rows are chosen by 'id IN (seed UNION ALL the children's foreign keys)' (the closure) or by 'order_id IN (...)' (a belongs_to through a column that is not the distribution column), never by shop_id = a constant; Citus runs the CTEs and subqueries first as subplans (each routed when it filters shop_id) and then reads every shard of the table (Task Count 32) against their intermediate results" ;;
		esac
	done <"$work/plan.txt"
done

# the catalog config's failing query, with the tenant as a constant: routes
q=$(cq -XAtq -c "SET client_min_messages = warning" -c "SET search_path = shop, public" \
	-c "SELECT query FROM exwiw_plan('shops', '{$shop}') WHERE table_name = 'categories'")
q2=${q//"shop_id IN (SELECT exwiw_s_"/"shop_id = $shop AND shop_id IN (SELECT exwiw_s_"}
r=$(explain categories "$q2")
if [ "$r" = "tasks=1 nodes=$worker subplans=0" ]; then
	citus_ok "the catalog config's categories query with 'shop_id = $shop AND' added next to each seed: routes to the tenant's worker ($r) -- what the planner could write when a path reaches the target by its distribution column"
else
	citus_note "the catalog config's categories query with 'shop_id = $shop AND' added: $r"
fi
