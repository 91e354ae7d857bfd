#!/usr/bin/env bash
# bench/load_cli.sh: the body of "bench/load.sh cli [SHOPS]" (sourced by
# bench/load.sh, which says what it measures).
shops=${2:-100}
bench_cluster "shared_buffers = 1GB" "max_wal_size = '4GB'" "checkpoint_timeout = '30min'"
export PGOPTIONS='-c search_path=shop,public -c client_min_messages=warning'
exwiw_log "loading the 1,000-shop dataset"
psql -X -q -v ON_ERROR_STOP=1 -f "$EXWIW_ROOT/test/subset/fixture.sql" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -f "$EXWIW_ROOT/bench/shops_1000.sql"
psql -X -q -c "CREATE INDEX ON shop.transactions (order_id)" -c "ANALYZE"
PATH=$EXWIW_BIN:$PATH
out=$BENCH_OUT
exwiw schema generate --from-db --schema-dir="$out/schema" >/dev/null
pg_dump --schema-only -n shop >"$out/schema.sql"
ids=$(psql -XAt -c "SELECT string_agg(id::text, ',' ORDER BY id) FROM shop.shops WHERE id <= $shops")
for fmt in insert copy; do
	exwiw --target-table=shops --ids="$ids" --schema-dir="$out/schema" --allow-undecided \
		--output-format=$fmt -j 2 -q -o "$out/$fmt" --force
done

# fresh: an empty copy of the schema in database dev
fresh() {
	psql -X -q -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS dev" -c "CREATE DATABASE dev"
	psql -X -q -v ON_ERROR_STOP=1 -d dev -f "$out/schema.sql" >/dev/null
	psql -X -q -d dev -c "CHECKPOINT"
}
psql_loop() {
	local f
	for f in "$1"/*.sql; do
		psql -X -q -v ON_ERROR_STOP=1 -d dev -f "$f" >/dev/null || return 1
	done
}
total() {
	psql -XAt -d dev -c "SELECT sum((xpath('/row/c/text()', query_to_xml(format('SELECT count(*) AS c FROM %s', c.oid::regclass), false, true, '')))[1]::text::bigint)
		FROM pg_class c WHERE c.relnamespace = 'shop'::regnamespace AND c.relkind = 'r'"
}

files=$(ls "$out/insert" | wc -l)
echo
echo "exwiw bench/load.sh cli: loading shops 1..$shops of the 1,000-shop dataset ($files files; INSERT $(du -sh "$out/insert" | cut -f1), COPY $(du -sh "$out/copy" | cut -f1)) ($(date -u +%Y-%m-%d), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg))"
want=""
for fmt in insert copy; do
	for loader in "psql loop" "exwiw load -j 1" "exwiw load -j 2"; do
		fresh
		case $loader in
			"psql loop") cmd=(psql_loop "$out/$fmt") ;;
			"exwiw load -j 1") cmd=(exwiw load "$out/$fmt" -d dev -j 1 -q) ;;
			"exwiw load -j 2") cmd=(exwiw load "$out/$fmt" -d dev -j 2 -q) ;;
		esac
		start=$(date +%s%N)
		"${cmd[@]}"
		end=$(date +%s%N)
		n=$(total)
		[ -z "$want" ] && want=$n
		[ "$n" = "$want" ] || { echo "$fmt, $loader: loaded $n rows, expected $want" >&2; exit 1; }
		printf '%-8s %-18s %8.2f s  %s rows\n' "$fmt" "$loader" "$(awk -v s="$start" -v e="$end" 'BEGIN { print (e - s) / 1e9 }')" "$n"
	done
done
