#!/usr/bin/env bash
# test/citus/t/config.sh: what exwiw_config_from_catalog() sees on a Citus
# cluster.  On the coordinator the distributed and reference tables are
# ordinary relations of pg_class (their shards live on the workers, and the
# coordinator's own replicas of the reference tables are hidden by Citus),
# so the config must equal the plain node's, with no shard and no Citus
# table in it.  Also reports what the catalog config makes of Citus's
# composite keys, and what the same function sees on a worker.
source "$(dirname "$0")/../lib.sh"
PATH=$EXWIW_BIN:$PATH
work=$(mktemp -d /tmp/exwiw-citus-config.XXXXXX)
trap 'rm -rf "$work"' EXIT

config() { "$@" -XAtq -c "SET search_path = shop, public" -c "SELECT jsonb_pretty(exwiw_config_from_catalog())"; }
names() { "$@" -XAtq -c "SET search_path = shop, public" -c "SELECT t ->> 'name' FROM jsonb_array_elements(exwiw_config_from_catalog() -> 'tables') t"; }

config cq >"$work/coord.json"
config pq >"$work/plain.json"
citus_same "$work/coord.json" "$work/plain.json" \
	"exwiw_config_from_catalog() on the coordinator equals the plain node's (same tables, keys, columns, belongs_tos)"
citus_note "tables in the coordinator's config: $(names cq | tr '\n' ' ')"

if names cq | grep -qE '_[0-9]{6,}$'; then
	citus_not_ok "the coordinator's config lists shards: $(names cq | grep -E '_[0-9]{6,}$' | tr '\n' ' ')"
else
	citus_ok "the coordinator's config lists no shard"
fi
# the coordinator holds a replica (a shard) of each reference table
local_shards=$(cq -XAtq -c "SELECT count(*) FROM pg_dist_placement p JOIN pg_dist_shard s USING (shardid)
	WHERE p.groupid = 0")
visible=$(cq -XAtq -c "SET citus.override_table_visibility = off" -c "SET search_path = shop, public" \
	-c "SELECT count(*) FROM jsonb_array_elements(exwiw_config_from_catalog() -> 'tables') t")
citus_note "the coordinator holds $local_shards reference-table shards; Citus hides them from pg_class" \
	"(citus.override_table_visibility); with it off the config would list $visible tables"

n=0
for s in public citus citus_internal; do
	c=$(cq -XAtq -c "SELECT count(*) FROM jsonb_array_elements(exwiw_config_from_catalog('$s') -> 'tables')" 2>&1 || true)
	citus_note "exwiw_config_from_catalog('$s') on the coordinator: $c tables" \
		"$(cq -XAtq -c "SELECT string_agg(t ->> 'name', ' ') FROM jsonb_array_elements(exwiw_config_from_catalog('$s') -> 'tables') t")"
	[ "$c" = 0 ] || n=1
done
others=$(cq -XAtq -c "SELECT string_agg(nspname, ' ' ORDER BY nspname) FROM pg_namespace
	WHERE nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast', 'public', 'shop')")
citus_note "schemas Citus added: $others (its tables pg_dist_* are in pg_catalog)"
[ $n -eq 0 ] && citus_ok "no Citus table leaks into a config (public, citus, citus_internal have none)" ||
	citus_not_ok "a Citus table leaks into a config"

# what the catalog config makes of Citus's keys
cq -XAtq -F ' ' -c "SET search_path = shop, public" -c "
	SELECT t ->> 'name', 'primary_key=' || coalesce(t ->> 'primary_key', 'null'),
		   'belongs_tos=' || coalesce((SELECT string_agg(b ->> 'table_name' || '.' || (b ->> 'foreign_key'), ',')
									   FROM jsonb_array_elements(t -> 'belongs_tos') b), '-')
	FROM jsonb_array_elements(exwiw_config_from_catalog() -> 'tables') t" | sed 's/^/#   catalog config: /'
composite=$(cq -XAtq -c "SET search_path = shop, public" -c "SELECT count(*) FROM jsonb_array_elements(exwiw_config_from_catalog() -> 'tables') t
	WHERE t ->> 'comment' LIKE 'composite primary key%'")
citus_note "$composite tables have a composite primary key (shop_id, ...), as Citus requires of every distributed" \
	"table but the one distributed by its own key: the catalog config gives them no primary_key (no ORDER BY," \
	"cannot be a parent) and drops their composite foreign keys (shop_id, order_id) -> orders; each keeps its" \
	"single-column shop_id -> shops belongs_to"

# on a worker: the shell tables of the distributed and reference tables
# (metadata is synced to every node), not the local table
citus_note "a worker's config: $(names w1 | tr '\n' ' ')"
if names w1 | grep -qE '_[0-9]{6,}$'; then
	citus_not_ok "a worker's config lists shards"
else
	citus_ok "a worker's config lists the distributed tables, not the shards it holds (hidden by Citus)"
fi
shards=$(w1 -XAtq -c "SET citus.override_table_visibility = off" -c "SET search_path = shop, public" \
	-c "SELECT count(*) FROM jsonb_array_elements(exwiw_config_from_catalog() -> 'tables') t")
citus_note "with citus.override_table_visibility = off a worker's config lists $shards tables (its shards too)"
