#!/usr/bin/env bash
# test/citus/t/cli.sh: the exwiw command against the coordinator.
#
# - export: the tenant config (test/citus/config-tenant.json, one JSON file
#   as the schema config) for shops 7 and {7,8,42}, in every format, with
#   -j 1 and -j 2 (the second connection imports the first's snapshot on
#   the coordinator): the directory equals, file for file and byte for
#   byte, exwiw_export on the plain node;
# - explain: one line per file, each naming its table;
# - schema generate --from-db: the distributed tables, not their shards,
#   the same files as on the plain node.
source "$(dirname "$0")/../lib.sh"
PATH=$EXWIW_BIN:$PATH
work=$(mktemp -d /tmp/exwiw-citus-cli.XXXXXX)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
export PGOPTIONS='-c search_path=shop,public -c client_min_messages=warning'
cfgfile=$CITUS_DIR/config-tenant.json
cfg=$(citus_config tenant)

for ids in 7 7,8,42; do
	for format in insert copy jsonl; do
		citus_export_files "$work/p" "$CITUS_PLAIN_PORT" "$cfg" "{$ids}" $format
		for jobs in 1 2; do
			rm -rf "$work/c"
			if ! exwiw -h 127.0.0.1 -p "$CITUS_COORD_PORT" --schema-dir="$cfgfile" \
				--target-table=shops --ids=$ids --output-format=$format -j $jobs \
				--allow-undecided --quiet -o "$work/c" 2>"$work/err"; then
				citus_not_ok "exwiw -j $jobs, shops $ids, $format: failed: $(head -3 "$work/err")"
				continue
			fi
			citus_same_export "$work/c" "$work/p" \
				"exwiw -j $jobs on the coordinator, shops $ids, $format: the $(ls "$work/p" | wc -l) files equal exwiw_export on the plain node"
		done
	done
done

# explain
if exwiw explain -h 127.0.0.1 -p "$CITUS_COORD_PORT" --schema-dir="$cfgfile" \
	--target-table=shops --ids=7 >"$work/explain.txt" 2>"$work/err"; then
	n=$(grep -c '^\[[0-9]*/[0-9]*\] ' "$work/explain.txt" || true)
	want=$(ls "$work/p" | wc -l)
	if [ "$n" -eq "$want" ] && grep -q '^\[[0-9]*/[0-9]*\] orders -> insert-[0-9]*-orders.sql ' "$work/explain.txt"; then
		citus_ok "exwiw explain on the coordinator: one line per file ($n)"
	else
		citus_not_ok "exwiw explain: $n lines for $want files"
		sed 's/^/#   /' "$work/explain.txt" | head -12
	fi
else
	citus_not_ok "exwiw explain on the coordinator failed: $(head -3 "$work/err")"
fi

# schema generate: the distributed tables, not their shards
for node in c:$CITUS_COORD_PORT p:$CITUS_PLAIN_PORT; do
	if ! exwiw schema generate --from-db -h 127.0.0.1 -p "${node#*:}" \
		--schema-dir="$work/schema-${node%%:*}" >/dev/null 2>"$work/err"; then
		citus_not_ok "exwiw schema generate on port ${node#*:} failed: $(head -3 "$work/err")"
	fi
done
if [ -d "$work/schema-c" ] && [ "$(ls "$work/schema-c")" = "$(ls "$work/schema-p")" ] &&
	! ls "$work/schema-c" | grep -q '_[0-9]\{6\}\.json$'; then
	citus_ok "exwiw schema generate on the coordinator: the tables, not their shards ($(ls "$work/schema-c" | wc -l) files, as on the plain node)"
else
	citus_not_ok "exwiw schema generate: the coordinator's files differ from the plain node's"
	diff <(ls "$work/schema-c" 2>/dev/null) <(ls "$work/schema-p") | head -10 | sed 's/^/#   /'
fi
