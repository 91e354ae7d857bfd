#!/usr/bin/env bash
# bench/citus.sh: exwiw on a three-node Citus cluster against a single node
# with the same data (issue 11).
#
#   bench/citus.sh              # 1,000 shops x 1,000 orders, best of 3 runs
#   bench/citus.sh 200 100 1    # quick: 200 shops x 100 orders, 1 run
#   EXWIW_CITUS_BENCH_PORT=55230  coordinator; workers and the plain node
#                                 use the next three ports
#
# Builds Citus from ../shared/vendor/citus (cached, see test/citus/lib.sh),
# starts a coordinator, two workers and a plain node on one machine, and
# loads test/citus's shop schema into both (distributed by shop_id on
# Citus, 32 shards): 1,000 shops, 20,000 users, 50,000 products, 1M orders,
# 2M order items, 1M transactions.  Then:
#   1. one tenant out of 1,000 with exwiw_export (config-tenant.json: every
#      query routed to the tenant's worker; config-relational.json: the
#      single-node config, whose closure queries read every shard), first
#      and second run of each of 4 shops in one session, on Citus and on
#      the plain node;
#   2. a full-table exwiw_dump of orders (1M rows) through the coordinator
#      against COPY through the coordinator, and the same on the plain
#      node: wall time and the serving backend's peak memory (bench_run).
source "$(dirname "$0")/common.sh"
source "$EXWIW_ROOT/test/citus/lib.sh"
cd "$EXWIW_ROOT"
shops=${1:-1000}
orders=${2:-1000}
runs=${3:-3}

if why=$(citus_unavailable); then
	echo "Citus benchmark skipped: $why"
	exit 0
fi
exwiw_setup
work=$(mktemp -d /tmp/exwiw-citus-bench.XXXXXX)
chmod 755 "$work"
citus_tmp_install "$work/inst"
PATH=$EXWIW_BIN:$PATH
CITUS_EXTRA_CONF=("work_mem = '64MB'" "maintenance_work_mem = '512MB'")
CITUS_SHARED_BUFFERS=1GB citus_cluster_start "$work" "${EXWIW_CITUS_BENCH_PORT:-55230}"
trap 'citus_cluster_stop; rm -rf "$work"' EXIT
exwiw_log "loading $shops shops x $orders orders into Citus and the plain node"
t0=$(date +%s.%N)
citus_load_shop "$shops" "$orders"
cq -q -c "VACUUM ANALYZE" && pq -q -c "VACUUM ANALYZE"
echo "data loaded into both in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }') s"
cq -X -c "SELECT table_name AS table, citus_table_type AS type, count(*) AS shards,
	pg_size_pretty(sum(shard_size)) AS size, string_agg(DISTINCT nodeport::text, ',') AS nodes
	FROM citus_shards WHERE table_name::text LIKE 'shop.%' GROUP BY 1, 2 ORDER BY 1"

# --- 1. one tenant -----------------------------------------------------------
ms_of() { sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p'; }
# shops 500, 17, 233 and 734 of 1,000 (bench/subset.sh's), scaled to $shops
tenants="$((shops / 2)) $(((17 * shops + 999) / 1000)) $((233 * shops / 1000)) $((734 * shops / 1000))"
# session NODE CONFIG PREFIX SUFFIX: every tenant twice, in one session; prints
# the times in ms, one per line
session() {
	local node=$1 cfg=$2 prefix=$3 suffix=$4 s
	{
		echo "SET search_path = shop, public;"
		echo "SET client_min_messages = warning;"
		echo "\\set cfg '$(tr -d '\n' <"$EXWIW_ROOT/test/citus/config-$cfg.json")'"
		echo "\\o /dev/null"
		echo "SELECT count(*) FROM exwiw_export('shops', '{1}', :'cfg');"
		for s in $tenants; do
			for _ in 1 2; do
				echo "$prefix"
				echo "\\timing on"
				echo "SELECT (e).file_name, (e).chunk FROM (SELECT exwiw_export('shops', '{$s}', :'cfg') AS e) s;"
				echo "\\timing off"
				echo "$suffix"
			done
		done
	} | "$node" -q -v ON_ERROR_STOP=1 | ms_of
}
declare -A tenant_ms
rows=()
for spec in "plain tenant pq" "citus tenant cq" "citus-rr tenant cq" "plain relational pq" "citus relational cq"; do
	set -- $spec
	prefix="" suffix=""
	[ "$1" = citus-rr ] && prefix="BEGIN ISOLATION LEVEL REPEATABLE READ;" suffix="COMMIT;"
	mapfile -t t < <(session "$3" "$2" "$prefix" "$suffix")
	tenant_ms["$1 $2"]="${t[*]}"
	rows+=("$1 $2")
done
echo
echo "exwiw bench/citus.sh: one tenant of $shops ($shops x $orders orders), exwiw_export streamed to psql," \
	"ms ($(date -u +%Y-%m-%d), $(nproc) cores)"
printf '%-22s' "node, config"
for s in $tenants; do printf '%18s' "shop $s 1st/2nd"; done
echo
for r in "${rows[@]}"; do
	read -ra t <<<"${tenant_ms[$r]}"
	printf '%-22s' "$r"
	for i in 0 2 4 6; do printf '%18s' "$(printf '%.1f / %.1f' "${t[$i]:-0}" "${t[$((i + 1))]:-0}")"; done
	echo
done
med2() { read -ra t <<<"${tenant_ms[$1]}"; printf '%s\n' "${t[1]}" "${t[3]}" "${t[5]}" "${t[7]}" | sort -g | sed -n 2,3p | awk '{ s += $1 } END { printf "%.1f", s / 2 }'; }
echo "median second run: plain tenant $(med2 "plain tenant") ms, citus tenant $(med2 "citus tenant") ms" \
	"($(ratio "$(med2 "citus tenant")" "$(med2 "plain tenant")")x), citus REPEATABLE READ $(med2 "citus-rr tenant") ms," \
	"citus relational $(med2 "citus relational") ms (plain relational $(med2 "plain relational") ms)"
one=${tenants%% *}
citus_export_files "$work/c" "$CITUS_COORD_PORT" "$(citus_config tenant)" "{$one}"
citus_export_files "$work/p" "$CITUS_PLAIN_PORT" "$(citus_config tenant)" "{$one}"
if diff -r -q "$work/c" "$work/p" >/dev/null; then same=yes; else same=NO; fi
echo "shop $one: $(cat "$work/p"/* | wc -c) bytes in $(ls "$work/p" | wc -l) files; Citus's files == the plain node's: $same"

# --- 2. a full table through the coordinator ----------------------------------
q="SELECT * FROM shop.orders"
out=$work/out
mkdir -p "$out"
chmod 777 "$out"
best() { sort -g | head -n 1; }
declare -A secs anon hwm
cases=(citus_copy citus_exwiw citus_exwiw_copy plain_copy plain_exwiw plain_exwiw_copy)
case_cmd() {
	local port=$CITUS_COORD_PORT
	case $1 in plain_*) port=$CITUS_PLAIN_PORT ;; esac
	case $1 in
	*_exwiw_copy) echo "psql -XAt -p $port -c \"SELECT exwiw_dump('$q', 'orders', format => 'copy')\" > $out/$1" ;;
	*_exwiw) echo "psql -XAt -p $port -c \"SELECT exwiw_dump('$q', 'orders', 10000)\" > $out/$1" ;;
	*_copy) echo "psql -X -p $port -c \"COPY ($q) TO STDOUT\" > $out/$1" ;;
	esac
}
for k in "${cases[@]}"; do anon[$k]=0; hwm[$k]=0; secs[$k]=""; done
for i in $(seq 1 "$runs"); do
	for k in "${cases[@]}"; do
		port=$CITUS_COORD_PORT
		case $k in plain_*) port=$CITUS_PLAIN_PORT ;; esac
		PGPORT=$port bench_run "$k (run $i)" bash -c "$(case_cmd "$k")" >&2
		secs[$k]+="$BENCH_SECONDS "
		[ "$BENCH_ANON_KB" -gt "${anon[$k]}" ] && anon[$k]=$BENCH_ANON_KB
		[ "$BENCH_HWM_KB" -gt "${hwm[$k]}" ] && hwm[$k]=$BENCH_HWM_KB
	done
done
for k in "${cases[@]}"; do secs[$k]=$(printf '%s\n' ${secs[$k]} | best); done
mb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
n=$(pq -XAtq -c "SELECT count(*) FROM shop.orders")
echo
echo "full table: $n orders, best of $runs runs; backend = the coordinator's (Citus) or the node's (plain)"
printf '%-52s %8s %9s %13s %11s\n' path seconds "vs COPY" "backend priv" "backend RSS"
for k in "${cases[@]}"; do
	case $k in
	*_exwiw_copy) label="exwiw_dump (copy) via psql -XAt" ;;
	*_exwiw) label="exwiw_dump (insert, 10000/stmt) via psql -XAt" ;;
	*_copy) label="COPY (query) TO STDOUT" ;;
	esac
	base=${k%%_*}_copy
	printf '%-6s %-45s %8s %8sx %10s MB %8s MB\n' "${k%%_*}" "$label" "${secs[$k]}" "$(ratio "${secs[$k]}" "${secs[$base]}")" \
		"$(mb "${anon[$k]}")" "$(mb "${hwm[$k]}")"
done
echo "Citus / plain: COPY $(ratio "${secs[citus_copy]}" "${secs[plain_copy]}")x, exwiw_dump $(ratio "${secs[citus_exwiw]}" "${secs[plain_exwiw]}")x," \
	"exwiw_dump copy $(ratio "${secs[citus_exwiw_copy]}" "${secs[plain_exwiw_copy]}")x"
if cmp -s <(sort "$out/citus_exwiw_copy") <(sort "$out/plain_exwiw_copy"); then same=yes; else same=NO; fi
echo "the coordinator's exwiw_dump (copy) holds the plain node's rows (sorted lines): $same"
