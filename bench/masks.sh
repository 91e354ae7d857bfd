#!/usr/bin/env bash
# bench/masks.sh: the cost of the masks of issue 21 on a subset export.
#
#   EXWIW_PORT=55233 bench/masks.sh [ROWS]     (default 1,000,000 rows)
#
# Builds exwiw into a private copy of PostgreSQL, starts a throwaway
# cluster (bench/common.sh), fills a table of ROWS rows of 8 mixed-type
# columns (bench_fill_mixed) plus a tenant column that every row shares,
# and exports that tenant (scope-column mode: every row) through
# exwiw_export, server side, into COPY ... TO '/dev/null', twice each:
#
#   unmasked   the columns as they are
#   masked     email: pseudonym (HMAC-SHA-256 under exwiw.mask_secret),
#              name: partial (keep 2 characters at the start),
#              amount: noise (ratio 0.1, keyed by the row's id)
#
# and prints the best time of each and their ratio (goal: under 1.5).
source "$(dirname "$0")/common.sh"
cd "$EXWIW_ROOT"

rows=${1:-1000000}
bench_cluster "shared_buffers = 512MB" "exwiw.mask_secret = 'bench secret of bench/masks.sh 1234'"
exwiw_log "filling bench_t with $rows rows"
bench_fill_mixed "$rows" bench_t
psql -X -q -c "ALTER TABLE bench_t ADD COLUMN tenant int NOT NULL DEFAULT 1" -c "VACUUM ANALYZE bench_t"

cols='{"name": "id"}, {"name": "user_id"}, {"name": "score"}, {"name": "created_at"}, {"name": "active"}, {"name": "tenant"}'
plain="[{\"name\": \"bench_t\", \"primary_key\": \"id\", \"scope_column\": \"tenant\", \"columns\": [$cols,
	{\"name\": \"email\"}, {\"name\": \"name\"}, {\"name\": \"amount\"}]}]"
masked="[{\"name\": \"bench_t\", \"primary_key\": \"id\", \"scope_column\": \"tenant\", \"columns\": [$cols,
	{\"name\": \"email\", \"pseudonym\": {\"type\": \"email\"}},
	{\"name\": \"name\", \"partial\": {\"keep_start\": 2}},
	{\"name\": \"amount\", \"noise\": {\"ratio\": 0.1}}]}]"

# export CONFIG: one export into /dev/null, on the server; prints seconds
export_once() {
	local start end
	start=$(date +%s.%N)
	psql -X -q -v ON_ERROR_STOP=1 -v cfg="$1" >/dev/null <<'SQL'
COPY (SELECT chunk FROM exwiw_export(NULL, '{1}', :'cfg')) TO '/dev/null';
SQL
	end=$(date +%s.%N)
	echo "$end - $start" | bc
}
best() { # best CONFIG: the best of two runs
	local a b
	a=$(export_once "$1")
	b=$(export_once "$1")
	echo "if ($a < $b) $a else $b" | bc
}
export_once "$plain" >/dev/null  # warm the cache
t_plain=$(best "$plain")
t_masked=$(best "$masked")
ratio=$(echo "scale=2; $t_masked / $t_plain" | bc)
printf 'rows %s  unmasked %.2f s  masked (pseudonym + partial + noise) %.2f s  ratio %s\n' \
	"$rows" "$t_plain" "$t_masked" "$ratio"
if [ "$(echo "$ratio < 1.5" | bc)" = 1 ]; then
	echo "ok: masked under 1.5x unmasked"
else
	echo "not ok: masked is ${ratio}x unmasked (goal: under 1.5)"
fi
