#!/usr/bin/env bash
# test/t/subset_real_schemas.sh: tenant isolation on schemas nobody on this
# project designed (issues 18 and 36): GitLab's, OpenStreetMap's and
# Maybe's (a personal-finance app: uuid keys, Rails delegated types)
# published db/structure.sql, from ../shared/data/real-schemas (skipped
# with a reason where that is absent, as in a plain clone).
#
# Each schema is loaded and filled by test/subset/realgen.sql, a generic
# generator that reads the catalog: rows for three tenants, in FK order,
# every parent a row of the same tenant, declared FKs, Rails <singular>_id
# columns and polymorphic <x>_type/<x>_id pairs alike (it records each
# row's tenant and the parent each relation points to).  Tables it cannot
# fill (a CHECK it cannot meet) are listed.  The types of a polymorphic
# pair that the catalog cannot tell (Maybe's delegated types) are given as
# the application's models declare them (test/subset/realgen.sql, p_arms).
#
# Then, for each target (GitLab: organizations, namespaces, projects, users,
# issues; OpenStreetMap: users; Maybe: families): `exwiw schema generate
# --from-db`; the tables the config leaves undecided ("needs_scope_decision":
# true) and the polymorphic types it maps to no table
# ("needs_table_decision") are first exported as they are (the export must
# refuse them, naming them), then decided by the rule below; tenant 1's
# rows of the target are exported with the exwiw command, and the files
# are loaded, in file order,
# as a non-superuser that owns an empty copy of the schema with every
# constraint enforced.  Checks, each listing the tables it fails on:
#   - every file loads;
#   - no row of another tenant in any table (a row's tenant is that of its
#     parents; the target's rows are the tenant's), except in tables
#     decided "export": "all" and the rows those tables' rows reference,
#     by the generator's relations or the config's belongs_tos (they come
#     in as their parents, whoever's they are);
#   - every row of tenant 1 reachable from the target rows by a relation of
#     any kind, child-wards, is loaded (except in tables decided "ignore").
#     A delegated type's rows are their record's: "reachable" goes up such
#     a pair too (Maybe: a tenant's account, its depository, and the rows
#     below that); such rows in a table decided "ignore" (refused: no rule
#     tied it) are counted apart ("refused rows");
#   - every row those rows point to, transitively, is loaded ("missing
#     parent rows": the load checks the declared foreign keys only, not a
#     Rails column or a polymorphic pair);
#   - no table goes out in full ("every row" in exwiw_plan's rule) that the
#     config did not decide (Rails's own tables, schema_migrations and
#     ar_internal_metadata, go out whole as the Ruby client sends them:
#     counted apart).
#   - Maybe: the first refusal names every decision (no table or type is
#     refused again after those decisions are made: one round).
# Per target it prints the tables scoped / decided in full / refused, the
# rows, and the plan time (not asserted).  A failure the planner is known
# to have (issue 36, Maybe's) prints "known: ..." instead of failing.
#
# The decisions (the principled rule for undecided tables), per target: the
# tables the export refuses (undecided, no rule ties them to the target)
# are decided "ignore": true (exported whole, they would leak), except
# those other tables' belongs_tos reference (they cannot be left out: the
# rows that reference them would not load), which are decided "export":
# "all"; then the export runs again.  Their counts are printed.  Tables
# the config writes "export": "all" are kept so.  A polymorphic type that
# maps to no table gets "ignore": true on its arm (a model that is gone:
# where the generator's rows do use it, the rows are counted missing).
# Undecided masks are decided as the catalog proposes
# ("needs_mask_decision": false, the mask kept): masks are not what this
# test is about.  The relations offered from evidence ("proposed": true,
# from the generator's values) are rejected ("ignore": true): the tenancy
# this test checks is the generator's, made from the declared and named
# keys and the arms only (test/t/subset_helpdesk.sh accepts them).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/subset/lib.sh"
source "$root/test/cli/lib.sh"
data=$root/../shared/data/real-schemas
if [ ! -f "$data/gitlab-structure.sql.gz" ] || [ ! -f "$data/openstreetmap-structure.sql.gz" ]; then
	echo "skipped: no real schemas at $data (../shared/data is not beside this checkout)"
	exit 77
fi
# (Maybe's schema, where it is absent, is skipped alone, below)
# The same planner on every server: the real schemas (minutes, mostly
# GitLab's fill) run on Debian's packaged server only, unless asked for.
if [ "${PG_MAJOR:-15}" != 15 ] && [ "${EXWIW_REAL_ALL:-0}" != 1 ]; then
	echo "skipped: real schemas run on PostgreSQL 15 only (EXWIW_REAL_ALL=1 runs them on $PG_MAJOR too)"
	exit 77
fi
cli_init real
export PGOPTIONS='-c client_min_messages=warning'
per_tenant=${EXWIW_REAL_ROWS:-2}
only=${EXWIW_REAL_ONLY:-}	# "osm", "gitlab" or "maybe": one schema (for a quick look)
want() { [ -z "$only" ] || [ "$only" = "$1" ]; }

# The generator's figures and the tables it could not fill.
gen_report() {
	local db=$1
	psql -X -At -d "$db" -v ON_ERROR_STOP=1 -F ' ' <<'SQL'
SELECT format('generated: %s rows in %s of %s tables (%s rows set by a second pass); relations: %s',
	(SELECT count(*) FROM realgen.row), (SELECT count(*) FROM realgen.tbl WHERE status = 'filled'),
	(SELECT count(*) FROM realgen.tbl), (SELECT count(*) FROM realgen.row WHERE deferred <> '{}'),
	(SELECT string_agg(format('%s %s', n, kind), ', ') FROM (SELECT kind, count(*) n FROM realgen.edge GROUP BY 1 ORDER BY 1) e));
SELECT format('  not filled (%s): %s', count(*), string_agg(name || ' (' || left(status, 90) || ')', ', ' ORDER BY name))
FROM realgen.tbl WHERE status <> 'filled' HAVING count(*) > 0;
SELECT format('  types given (%s pairs): %s', count(*), string_agg(format('%s.%s -> %s', c.name, e.type_col, array_to_string(e.arms, ' ')), '; ' ORDER BY c.name))
FROM realgen.edge e JOIN realgen.tbl c ON c.rel = e.child WHERE e.arms IS NOT NULL HAVING count(*) > 0;
SELECT '  ' || msg FROM realgen.log WHERE msg LIKE 'arms:%';
SQL
}

# setup_schema NAME FILE [ARMS [ROWS [MORE]]]: NAME_src (the schema, filled;
# ARMS the types of polymorphic pairs, realgen.fill's p_arms; ROWS per
# tenant, default $per_tenant; MORE, SQL run after the fill: more rows,
# realgen.grow), NAME_dst (an empty copy owned by NAME_loader), the schema
# config in $work/NAME-schema
setup_schema() {
	local name=$1 file=$2 arms=${3:-'{}'} rows=${4:-$per_tenant} more=${5:-} t0
	psql -X -q -v ON_ERROR_STOP=1 <<SQL
DROP DATABASE IF EXISTS ${name}_src;
DROP DATABASE IF EXISTS ${name}_dst;
DROP ROLE IF EXISTS ${name}_loader;
CREATE ROLE ${name}_loader LOGIN;
CREATE DATABASE ${name}_src;
CREATE DATABASE ${name}_dst OWNER ${name}_loader;
SQL
	t0=$SECONDS
	zcat "$file" | psql -X -q -v ON_ERROR_STOP=1 -d "${name}_src" >/dev/null
	psql -X -q -v ON_ERROR_STOP=1 -d "${name}_src" -c "CREATE EXTENSION exwiw" -f "$root/test/subset/realgen.sql"
	psql -X -q -At -v ON_ERROR_STOP=1 -d "${name}_src" -v arms="$arms" >/dev/null <<SQL
SELECT realgen.fill($rows, :'arms');
SQL
	if [ -n "$more" ]; then
		echo "$name: more rows: $(psql -X -q -At -v ON_ERROR_STOP=1 -d "${name}_src" -c "$more" | paste -sd' ')"
	fi
	echo "$name: loaded and filled in $((SECONDS - t0)) s"
	gen_report "${name}_src"
	# the empty copy: the schema as the generator left it (it adds DEFAULT
	# partitions to partitioned tables that had none), owned by the loader;
	# the extensions are the superuser's
	pg_dump --schema-only --no-owner --no-acl -N realgen -d "${name}_src" |
		grep -v '^COMMENT ON EXTENSION' >"$work/$name-schema.sql"
	psql -X -q -v ON_ERROR_STOP=1 -d "${name}_dst" -At -c "SELECT 1" >/dev/null
	psql -X -q -At -d "${name}_src" -c "SELECT format('CREATE EXTENSION IF NOT EXISTS %I;', extname) FROM pg_extension WHERE extname <> 'plpgsql'" |
		psql -X -q -v ON_ERROR_STOP=1 -d "${name}_dst"
	psql -X -q -v ON_ERROR_STOP=1 -d "${name}_dst" -U "${name}_loader" -f "$work/$name-schema.sql" >/dev/null
	# the generator's record, for the checks (not in the exported schema)
	pg_dump -n realgen -d "${name}_src" | psql -X -q -v ON_ERROR_STOP=1 -d "${name}_dst" >/dev/null
	PGDATABASE=${name}_src PGOPTIONS="$PGOPTIONS -c search_path=public" \
		exwiw schema generate --from-db --schema-dir="$work/$name-schema" >/dev/null
}

# masks NAME: the schema config with the masks decided ($work/NAME-masks)
# and the config's own "export": "all" decisions ($work/NAME-all.txt)
masks() {
	local name=$1 all undecided
	rm -rf "$work/$name-masks"
	cp -r "$work/$name-schema" "$work/$name-masks"
	sed -i 's/"needs_mask_decision": true/"needs_mask_decision": false/; s/"proposed": true/"ignore": true/' "$work/$name-masks"/*.json
	{ grep -l '"export": "all"' "$work/$name-schema"/*.json || true; } | xargs -r -n1 basename | sed 's/\.json$//' |
		LC_ALL=C sort >"$work/$name-all.txt"
	all=$(wc -l <"$work/$name-all.txt")
	undecided=$({ grep -l '"needs_scope_decision": true' "$work/$name-schema"/*.json || true; } | wc -l)
	echo "$name: schema config: $(ls "$work/$name-schema" | wc -l) tables; \"export\": \"all\" written for $all," \
		"\"needs_scope_decision\": true for $undecided; $(cat "$work/$name-schema"/*.json | grep -c '"proposed": true' || true) relations proposed (rejected)"
}

# check LABEL KEY MESSAGE: a failed check.  KEY names it (rounds, load:TABLE,
# full:TABLE, leak:TABLE, missing:TABLE, refused:TABLE,
# missing-parent:TABLE): one of
# $known, the failures the planner is known to have (issue 36), prints
# "known: ..." and does not fail the test; any other is not ok.
known=
seen_known=
one_round=0
check() {
	local label=$1 key=$2
	shift 2
	if [[ " $known " == *" $key "* ]]; then
		echo "known: $label: $* (issue 36)"
		seen_known="$seen_known $key"
	else
		not_ok "$label: $*"
	fi
}

# decided_json NAME IGNORED-FILE ALL-FILE: the decisions as JSON, table -> all | ignore
decided_json() {
	local name=$1 ignored=$2 all=$3
	{ sed 's/.*/"&": "all"/' "$work/$name-all.txt" "$all"; sed 's/.*/"&": "ignore"/' "$ignored"; } | paste -sd, | sed 's/^/{/; s/$/}/'
}

# every_tenant NAME TARGET CFGDIR: every tenant's rows of TARGET exported
# with the decided config, the tables analyzed (so that the catalog's row
# counts let exwiw read whole the tables whose seeds hold every row,
# plan/whole.c), are byte for byte the files of the same export with every
# row set computed (exwiw.sets_as_ctes, which reads no table whole).  The
# tables read whole are counted, from the DEBUG lines, into $work/whole.count
# (run_target may run in a subshell).
every_tenant() {
	local name=$1 target=$2 cfgdir=$3 ids n nwhole
	local label="$name/$target"
	[ -e "$work/$name.analyzed" ] || { psql -X -q -d "${name}_src" -c "ANALYZE" && touch "$work/$name.analyzed"; }
	ids=$(psql -X -At -d "${name}_src" -c "SELECT string_agg(r.key, ',' ORDER BY r.rowno) FROM realgen.row r JOIN realgen.tbl t ON t.rel = r.rel WHERE t.name = '$target'")
	n=$(echo "$ids" | tr ',' '\n' | grep -c .)
	rm -rf "$work/all-whole" "$work/all-sets"
	if ! env PGDATABASE="${name}_src" PGOPTIONS="$PGOPTIONS -c search_path=public -c client_min_messages=debug1" \
		exwiw --target-table="$target" --ids="$ids" --schema-dir="$cfgdir" -o "$work/all-whole" \
		>/dev/null 2>"$work/all-whole.err" ||
		! env PGDATABASE="${name}_src" PGOPTIONS="$PGOPTIONS -c search_path=public -c exwiw.sets_as_ctes=on" \
			exwiw --target-table="$target" --ids="$ids" --schema-dir="$cfgdir" -o "$work/all-sets" --quiet \
			>/dev/null 2>"$work/all-sets.err"; then
		not_ok "$label: the export of every tenant ($n ids) fails: $(grep -h -m1 'error' "$work/all-whole.err" "$work/all-sets.err" | cut -c1-300)"
		return
	fi
	nwhole=$(grep -c 'is read whole' "$work/all-whole.err" || true)
	echo "$nwhole" >>"$work/whole.count"
	if diff -r -x manifest.json "$work/all-whole" "$work/all-sets" >"$work/all.diff"; then
		ok "$label: every tenant ($n ids, $(ls "$work/all-whole" | grep -vcx manifest.json) files): $nwhole tables read whole, the files byte for byte those with every set computed"
	else
		not_ok "$label: every tenant ($n ids): the files differ from those with every set computed: $(head -c 400 "$work/all.diff")"
	fi
}

# run_target NAME TARGET: export tenant 1's rows of TARGET, load, check
run_target() {
	local name=$1 target=$2 ids out rc t0 t1 plan_ms files f
	local failed_files=()
	local label="$name/$target"
	seen_known=
	ids=$(psql -X -At -d "${name}_src" -c "SELECT string_agg(r.key, ',' ORDER BY r.rowno) FROM realgen.row r JOIN realgen.tbl t ON t.rel = r.rel WHERE t.name = '$target' AND r.tenant = 1")
	if [ -z "$ids" ]; then
		not_ok "$label: the generator made no row of tenant 1 in $target"
		return
	fi
	local env=(env PGDATABASE="${name}_src" PGOPTIONS="$PGOPTIONS -c search_path=public")
	local cfgdir=$work/$name-$target-cfg
	rm -rf "$cfgdir"
	cp -r "$work/$name-masks" "$cfgdir"
	: >"$work/ignored.txt"
	# 1. the config as generated: the export refuses the tables no rule ties
	#    to the target that the config left undecided, naming them all; the
	#    test decides those "ignore": true (exported whole, they would leak)
	out=$work/$name-$target
	rm -rf "$out"
	rc=0
	t0=$(date +%s%N)
	"${env[@]}" exwiw --target-table="$target" --ids="$ids" --schema-dir="$cfgdir" \
		-o "$out" --quiet >/dev/null 2>"$work/err" || rc=$?
	t1=$(date +%s%N)
	local nrefused=0 narms=0 round=0 again=
	: >"$work/referenced.txt"
	: >"$work/arms-ignored.txt"
	while [ $rc -ne 0 ] && grep -qE 'need.* a scope decision|map.* to no table|needs [0-9]+ decisions' "$work/err" &&
		[ $round -lt 3 ]; do
		round=$((round + 1))
		# the tables (one kind of decision: "Undecided: ..."; several: a
		# line each)
		sed -n -e 's/.*Undecided: \(.*\)\. No rule ties.*/\1/p' \
			-e 's/.*Tables that need a scope decision: \(.*\)\. No rule ties.*/\1/p' "$work/err" |
			tr ',' '\n' | sed 's/^ *//; /^$/d' | LC_ALL=C sort -u >"$work/refused.txt"
		# the polymorphic types that map to no table: table.column = 'Type'
		{ sed -n -e 's/.*Undecided: \(.*\)\. Their rows would be exported without.*/\1/p' \
			-e 's/.*Polymorphic types that map to no table: \(.*\)\. Their rows would.*/\1/p' "$work/err" |
			grep -oE "[A-Za-z0-9_\"]+\.[A-Za-z0-9_\"]+ = '([^']|'')*'" || true; } | LC_ALL=C sort -u >"$work/arms-refused.txt"
		nrefused=$((nrefused + $(wc -l <"$work/refused.txt")))
		narms=$((narms + $(wc -l <"$work/arms-refused.txt")))
		[ $round -eq 1 ] ||
			again="$again round $round: $(cat "$work/refused.txt" "$work/arms-refused.txt" | paste -sd' ' | cut -c1-300);"
		ok "$label: the export refuses $(wc -l <"$work/refused.txt") undecided tables and" \
			"$(wc -l <"$work/arms-refused.txt") types that map to no table, naming them: $(grep -m1 'error' "$work/err" | cut -c1-100)"
		# a type that maps to no table: "ignore": true on its arm
		cat "$work/arms-refused.txt" >>"$work/arms-ignored.txt"
		python3 - "$cfgdir" "$work/arms-refused.txt" <<'PY'
import json, re, sys
cfgdir, arms = sys.argv[1], sys.argv[2]
for line in open(arms):
	m = re.match(r'"?([^".]+)"?\."?([^".]+)"? = \'(.*)\'$', line.strip())
	table, col, value = m.group(1), m.group(2), m.group(3).replace("''", "'")
	path = "%s/%s.json" % (cfgdir, table)
	cfg = json.load(open(path))
	for bt in cfg.get("belongs_tos", []):
		if bt.get("foreign_type") == col and bt.get("type_value") == value and bt.pop("needs_table_decision", False):
			bt["ignore"] = True
	with open(path, "w") as f:
		json.dump(cfg, f, indent=2, ensure_ascii=False)
		f.write("\n")
PY
		while read -r f; do
			if grep -lF "\"table_name\": \"$f\"" "$cfgdir"/*.json | grep -qvF "/$f.json"; then
				# a parent of other tables: its rows are referenced, so it
				# cannot be left out; every row goes
				echo "$f" >>"$work/referenced.txt"
				sed -i -e 's/"needs_scope_decision": true/"needs_scope_decision": false/' \
					-e '0,/^{/s/^{/{\n  "export": "all",/' "$cfgdir/$f.json"
			else
				echo "$f" >>"$work/ignored.txt"
				sed -i -e 's/"needs_scope_decision": true/"needs_scope_decision": false/' \
					-e '0,/^{/s/^{/{\n  "ignore": true,/' "$cfgdir/$f.json"
			fi
		done <"$work/refused.txt"
		rm -rf "$out"
		t0=$(date +%s%N)
		rc=0
		"${env[@]}" exwiw --target-table="$target" --ids="$ids" --schema-dir="$cfgdir" \
			-o "$out" --quiet >/dev/null 2>"$work/err" || rc=$?
		t1=$(date +%s%N)
	done
	if [ "$nrefused" -gt 0 ] || [ "$narms" -gt 0 ]; then
		echo "$label: decided: $(wc -l <"$work/ignored.txt") \"ignore\": true ($(paste -sd' ' "$work/ignored.txt" | cut -c1-300))," \
			"$(wc -l <"$work/referenced.txt") \"export\": \"all\" as parents of other tables ($(paste -sd' ' "$work/referenced.txt" | cut -c1-300))," \
			"$narms types \"ignore\": true on their arm ($(paste -sd' ' "$work/arms-ignored.txt" | cut -c1-300))"
	fi
	# every decision named at once: the export after them refuses nothing
	# new (asserted where $one_round is 1: Maybe, issue 36)
	if [ -n "$again" ] && [ "$one_round" = 1 ]; then
		check "$label" rounds "the export refuses again after the first refusal's decisions ($round refusals):$again"
	elif [ -n "$again" ]; then
		echo "note: $label: the export refuses again after the first refusal's decisions ($round refusals):$again"
	elif [ "$round" -gt 0 ]; then
		ok "$label: the first refusal named every decision (the export after them refuses nothing)"
	fi
	if [ $rc -ne 0 ]; then
		not_ok "$label: the export fails: $(head -c 400 "$work/err")"
		return
	fi
	local export_ms=$(((t1 - t0) / 1000000))
	decided_json "$name" "$work/ignored.txt" "$work/referenced.txt" >"$work/$name-decided.json"
	every_tenant "$name" "$target" "$cfgdir"
	# 2. plan time (printed, not asserted) and the tables that go out in full
	cli_config_array "$cfgdir" >"$work/cfg.json"
	t0=$(date +%s%N)
	# (GitLab's config is over 128 kB: too long for one argument)
	psql -X -q -At -F '|' -d "${name}_src" -v ids="{$ids}" \
		>"$work/plan.txt" 2>"$work/plan.err" <<SQL || true
\\set cfg \`cat '$work/cfg.json'\`
SET search_path = public;
SELECT table_name, rule FROM exwiw_plan('$target', :'ids', :'cfg') WHERE seq IS NOT NULL;
SQL
	t1=$(date +%s%N)
	plan_ms=$(((t1 - t0) / 1000000))
	if [ ! -s "$work/plan.txt" ]; then
		not_ok "$label: exwiw_plan fails: $(head -c 300 "$work/plan.err")"
		return
	fi
	local scoped full_decided full_undecided full_rails
	full_rails=$(grep -cE '\|managed by Rails' "$work/plan.txt" || true)
	full_undecided=$({ grep -E '\|.*every row' "$work/plan.txt" | grep -v '|managed by Rails' || true; } | cut -d'|' -f1 |
		while read -r t; do grep -q "\"$t\": \"all\"" "$work/$name-decided.json" || echo "$t"; done | LC_ALL=C sort)
	full_decided=$({ grep -E '\|.*every row' "$work/plan.txt" || true; } | cut -d'|' -f1 |
		while read -r t; do if grep -q "\"$t\": \"all\"" "$work/$name-decided.json"; then echo "$t"; fi; done | wc -l)
	scoped=$(grep -vcE '\|.*every row' "$work/plan.txt" || true)
	files=$(ls "$out" | grep -vcx manifest.json)
	# 3. load into the empty copy, as its owner (not a superuser)
	psql -X -q -At -d "${name}_dst" -c "SELECT format('TRUNCATE %s CASCADE;', string_agg(c.oid::regclass::text, ', '))
		FROM pg_class c WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
		  AND c.relnamespace::regnamespace::text NOT IN ('pg_catalog', 'information_schema', 'realgen')" |
		psql -X -q -v ON_ERROR_STOP=1 -d "${name}_dst"
	# one session for every file, in file order (a psql per file takes
	# minutes for GitLab's 900 files); \warn marks each file on stderr, so
	# the errors that follow a mark are that file's
	while IFS= read -r -d '' f; do
		printf '\\warn @@file %s\n\\i %s\n' "$f" "$out/$f"
	done < <(cd "$out" && find . -maxdepth 1 -type f ! -name manifest.json -printf '%P\0' | LC_ALL=C sort -z) >"$work/load.psql"
	psql -X -q -v ON_ERROR_STOP=0 -d "${name}_dst" -U "${name}_loader" -f "$work/load.psql" >/dev/null 2>"$work/load.err" || true
	mapfile -t failed_files < <(awk '/^@@file / {f = $2; next} /ERROR/ && f != "" && !(f in seen) {seen[f] = 1; print f ": " substr($0, 1, 200)}' "$work/load.err")
	local rows
	rows=$(cat "$out"/*.sql 2>/dev/null | grep -c '^(' || true)
	echo "$label: ids $ids; plan ${plan_ms} ms; export ${export_ms} ms; $files files, ~$rows rows;" \
		"tables scoped $scoped, decided full $full_decided (+ $full_rails managed by Rails), in full undecided $(echo "$full_undecided" | grep -c . || true), refused $nrefused"
	if [ ${#failed_files[@]} -eq 0 ]; then
		ok "$label: every file loads as a non-superuser owner with every constraint enforced"
	else
		for f in "${failed_files[@]}"; do
			# insert-NNN-TABLE.sql: ERROR...
			check "$label" "load:$(echo "$f" | sed 's/^[a-z]*-[0-9]*-\([^.]*\)\..*/\1/')" "a file does not load: $f"
		done
	fi
	if [ -z "$full_undecided" ]; then
		ok "$label: no table goes out in full without a decision"
	else
		for f in $full_undecided; do
			check "$label" "full:$f" "table $f goes out in full without a decision"
		done
	fi
	# 4. the rows
	psql -X -At -F '|' -v ON_ERROR_STOP=1 -d "${name}_dst" >"$work/check.txt" <<SQL
\\set cfg \`cat '$work/cfg.json'\`
SELECT * FROM realgen.check('$target', '$(cat "$work/$name-decided.json")', :'cfg') ORDER BY 1, 2;
SQL
	local kind n t c keys via
	for kind in leak missing refused missing-parent unknown; do
		n=$(grep -c "^$kind|" "$work/check.txt" || true)
		if [ "$n" -eq 0 ]; then
			[ $kind = unknown ] || ok "$label: no $kind rows"
			continue
		fi
		local msg="$label: $kind rows in $n tables ($(grep "^$kind|" "$work/check.txt" | awk -F'|' '{s += $3} END {print s}') rows)"
		if [ $kind = unknown ]; then
			echo "note: $msg (rows the generator did not make, e.g. a schema file's own)"
			grep "^$kind|" "$work/check.txt" | cut -d'|' -f2- | while IFS='|' read -r t c keys; do
				printf '    %s: %s (keys %s)\n' "$t" "$c" "$(echo "$keys" | cut -c1-60)"
			done
			continue
		fi
		# a line per table: known (issue 36) or not ok
		while IFS='|' read -r t c keys; do
			via=
			[ $kind = leak ] || via=$(grep "^$kind-via|$t|" "$work/check.txt" | cut -d'|' -f4 | cut -c1-200)
			check "$label" "$kind:$t" "$kind rows in $t: $c (keys $(echo "$keys" | cut -c1-80))${via:+; via $via}"
		done < <(grep "^$kind|" "$work/check.txt" | cut -d'|' -f2-)
		echo "$msg"
	done
	# a known failure that no longer happens: the planner meets it now
	for t in $known; do
		[[ " $seen_known " == *" $t "* ]] ||
			echo "note: $label: known failure $t (issue 36) did not happen: take it off the known list"
	done
	cp "$work/check.txt" "$work/$name-$target.check"
}

# gitlab_slices: issue 40's done-means on GitLab's schema, with the
# organizations config as run_target decided it: "organization 1, the last
# 30 days of CI and events, the newest 100 issues of each project".  The
# generator's timestamps are a minute apart from 2025-01-01, so "the last
# 30 days" is a cutoff inside them: the median created_at of the generated
# events ("filter" on the CI tables and events that have created_at); "the
# newest 100 issues" is "limit": {"rows": 100, "per": "project_id",
# "order_by": "created_at DESC, id DESC"} on issues (tenant 1's projects
# have 141 and 108: realgen.grow, below).  It plans (explain --exact),
# exports, loads with exwiw load (which verifies first) as the
# non-superuser owner of an empty copy, every constraint enforced, and
# exwiw verify passes.  Then, on the loaded rows:
#   - the newest 100 issues of each project, row_number() OVER (PARTITION
#     BY project_id ORDER BY created_at DESC, id DESC) <= 100 over the
#     tenant's issues (the generator's record, computed on the source),
#     are loaded, and some of the tenant's issues are beyond them;
#   - every loaded issue beyond them is a parent of a loaded row (none:
#     children of a row left out are left out), and every note, assignee
#     and metrics row the generator made for a kept issue is loaded;
#   - the loaded issues are exactly the newest 100 (EXCEPT both ways), and
#     no such child of a dropped issue is loaded, although GitLab's notes,
#     issue_assignees and issue_metrics carry a namespace_id (a sharding
#     key) and so are the tenant's by a rule of their own (a check may be
#     marked known again with EXWIW_REAL_SLICES_KNOWN, as the key list
#     "exact:issues dropped-children:notes" shows);
#   - explain --exact's rows for issues (its insert file) are the loaded
#     issues;
#   - a loaded row of a windowed table older than the cutoff is the parent
#     of a loaded row (by a relation the generator made or a belongs_to of
#     the config).
slices_known=${EXWIW_REAL_SLICES_KNOWN-}
# slice_check KEY MESSAGE: a failed check of gitlab_slices: known (in
# $slices_known: printed, issue 40) or not ok
slice_check() {
	local key=$1
	shift
	if [[ " $slices_known " == *" $key "* ]]; then
		echo "known: gitlab/slices: $* (issue 40)"
		seen_known="$seen_known $key"
	else
		not_ok "gitlab/slices: $*"
	fi
}

gitlab_slices() {
	local label=gitlab/slices cfgdir=$work/gitlab-slices-cfg out=$work/gitlab-slices ids cutoff n
	local env=(env PGDATABASE=gitlab_src PGOPTIONS="$PGOPTIONS -c search_path=public")
	if [ ! -d "$work/gitlab-organizations-cfg" ]; then
		not_ok "$label: no organizations config (run_target gitlab organizations did not run)"
		return
	fi
	ids=$(psql -X -At -d gitlab_src -c "SELECT string_agg(r.key, ',' ORDER BY r.rowno) FROM realgen.row r JOIN realgen.tbl t ON t.rel = r.rel WHERE t.name = 'organizations' AND r.tenant = 1")
	cutoff=$(psql -X -At -d gitlab_src -c "SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY created_at) FROM public.events")
	rm -rf "$cfgdir" "$out"
	cp -r "$work/gitlab-organizations-cfg" "$cfgdir"
	# the windowed tables' names on stdout
	python3 - "$cfgdir" "$cutoff" >"$work/windowed.txt" <<'PY'
import json, os, sys
cfgdir, cutoff = sys.argv[1], sys.argv[2]
for f in sorted(os.listdir(cfgdir)):
	path = os.path.join(cfgdir, f)
	cfg = json.load(open(path))
	name = cfg.get("name", "")
	cols = [c.get("name") for c in cfg.get("columns", [])]
	if cfg.get("ignore") or cfg.get("export") == "all":
		continue
	if name == "issues":
		cfg["limit"] = {"rows": 100, "per": "project_id", "order_by": "created_at DESC, id DESC"}
	elif (name == "events" or name.startswith("ci_") or name.startswith("p_ci_")) and "created_at" in cols:
		window = "created_at >= '%s'" % cutoff
		cfg["filter"] = "(%s) AND %s" % (cfg["filter"], window) if cfg.get("filter") else window
		print(name)
	else:
		continue
	with open(path, "w") as out:
		json.dump(cfg, out, indent=2, ensure_ascii=False)
		out.write("\n")
PY
	n=$(wc -l <"$work/windowed.txt")
	cli_config_array "$cfgdir" >"$work/slices-cfg.json"
	seen_known=
	if ! grep -q '"limit"' "$cfgdir/issues.json"; then
		not_ok "$label: the organizations config has no issues to limit"
		return
	fi
	echo "$label: CI tables and events windowed from $cutoff: $n; issues: the newest 100 per project"
	if ! "${env[@]}" exwiw explain --target-table=organizations --ids="$ids" --schema-dir="$cfgdir" \
		--exact --format=json >"$work/slices-plan.json" 2>"$work/err"; then
		not_ok "$label: explain --exact fails: $(head -c 400 "$work/err")"
		return
	fi
	ok "$label: plans (explain --exact: $(python3 -c 'import json, sys; print(sum(t.get("rows") or 0 for t in json.load(open(sys.argv[1]))["tables"]))' "$work/slices-plan.json") rows)"
	if ! "${env[@]}" exwiw --target-table=organizations --ids="$ids" --schema-dir="$cfgdir" -o "$out" --quiet \
		2>"$work/err"; then
		not_ok "$label: the export fails: $(head -c 400 "$work/err")"
		return
	fi
	ok "$label: exports ($(ls "$out" | grep -vcx manifest.json) files)"
	if exwiw verify "$out" 2>"$work/err"; then
		ok "$label: exwiw verify passes: $(cat "$work/err")"
	else
		not_ok "$label: exwiw verify fails: $(head -c 600 "$work/err")"
	fi
	psql -X -q -At -d gitlab_dst -c "SELECT format('TRUNCATE %s CASCADE;', string_agg(c.oid::regclass::text, ', '))
		FROM pg_class c WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
		  AND c.relnamespace::regnamespace::text NOT IN ('pg_catalog', 'information_schema', 'realgen')" |
		psql -X -q -v ON_ERROR_STOP=1 -d gitlab_dst
	if PGOPTIONS="$PGOPTIONS" exwiw load --dbname=gitlab_dst -U gitlab_loader --quiet "$out" 2>"$work/err"; then
		ok "$label: exwiw load (verified first) as the non-superuser owner, every constraint enforced"
	else
		not_ok "$label: the load fails: $(head -c 600 "$work/err")"
		return
	fi
	# the newest 100 of each project, computed on the source over the
	# tenant's issues (the generator's record): kept|dropped, as arrays
	local want dropped
	want=$(psql -X -At -v ON_ERROR_STOP=1 -d gitlab_src -c "
		SELECT '{' || coalesce(string_agg(id::text, ',' ORDER BY id) FILTER (WHERE rn <= 100), '') || '}|{'
			   || coalesce(string_agg(id::text, ',' ORDER BY id) FILTER (WHERE rn > 100), '') || '}'
		FROM (SELECT i.id, row_number() OVER (PARTITION BY i.project_id ORDER BY i.created_at DESC, i.id DESC) rn
			  FROM public.issues i
			  WHERE i.id::text IN (SELECT r.key FROM realgen.row r JOIN realgen.tbl t ON t.rel = r.rel
								   WHERE t.name = 'issues' AND r.tenant = 1)) s")
	dropped=${want#*|}
	want=${want%%|*}
	if ! { printf '\\set cfg `cat %s`\n' "$work/slices-cfg.json"; cat; } <<'SQL' |
CREATE TEMP TABLE want AS SELECT unnest(:'want'::bigint[]) AS id;
CREATE TEMP TABLE dropped AS SELECT unnest(:'dropped'::bigint[]) AS id;
SELECT 'issues', (SELECT count(*) FROM public.issues), (SELECT count(*) FROM want), (SELECT count(*) FROM dropped),
	(SELECT count(*) FROM (SELECT id FROM public.issues EXCEPT SELECT id FROM want) x),
	(SELECT count(*) FROM (SELECT id FROM want EXCEPT SELECT id FROM public.issues) x),
	(SELECT string_agg(format('project %s: %s', project_id, n), ', ' ORDER BY project_id)
	 FROM (SELECT project_id, count(*) n FROM public.issues GROUP BY 1) p);
-- the generator's children of the tenant's issues: of kept or dropped
-- issues, loaded or not
CREATE TEMP TABLE kid AS
SELECT ct.name, c.key, ir.key::bigint IN (SELECT id FROM dropped) AS of_dropped
FROM realgen.link l JOIN realgen.tbl it ON it.rel = l.parent AND it.name = 'issues'
JOIN realgen.row ir ON ir.rel = l.parent AND ir.rowno = l.parent_rowno AND ir.tenant = 1
JOIN realgen.row c ON c.rel = l.child AND c.rowno = l.child_rowno JOIN realgen.tbl ct ON ct.rel = l.child
WHERE ct.name IN ('notes', 'issue_assignees', 'issue_metrics');
CREATE TEMP TABLE kid_loaded AS
SELECT DISTINCT k.* FROM kid k JOIN realgen.tbl t ON t.name = k.name
JOIN realgen.loaded_keys('{notes,issue_assignees,issue_metrics}') lk ON lk.rel = t.rel AND lk.key = k.key;
SELECT 'children', name, count(*) FILTER (WHERE of_dropped),
	(SELECT count(*) FROM kid_loaded l WHERE l.name = k.name AND l.of_dropped),
	count(*) FILTER (WHERE NOT of_dropped),
	(SELECT count(*) FROM kid_loaded l WHERE l.name = k.name AND NOT l.of_dropped)
FROM kid k GROUP BY name ORDER BY name;
-- the loaded issues beyond the newest 100, and whether a loaded row needs them
SELECT 'beyond', o.* FROM realgen.outside('{issues}', format('x.id <> ALL (%L::bigint[])', :'want'), :'cfg') o;
SELECT 'outside', o.* FROM realgen.outside(:'windowed', format('x.created_at < %L', :'cutoff'), :'cfg') o WHERE o.n > 0;
SQL
		psql -X -At -F '|' -v ON_ERROR_STOP=1 -d gitlab_dst -v cutoff="$cutoff" -v want="$want" -v dropped="$dropped" \
			-v windowed="{$(paste -sd, "$work/windowed.txt")}" >"$work/slices.txt" 2>"$work/err"
	then
		not_ok "$label: the loaded rows cannot be checked: $(head -c 300 "$work/err")"
		return
	fi
	local loaded nwant ndropped extra missing per
	IFS='|' read -r _ loaded nwant ndropped extra missing per < <(grep '^issues|' "$work/slices.txt")
	echo "$label: issues: $loaded loaded ($per); the newest 100 per project: $nwant, dropped $ndropped"
	if [ "$ndropped" -eq 0 ]; then
		not_ok "$label: issues: the limit has nothing to drop (the tenant's projects have 100 issues or fewer)"
	elif [ "$missing" = 0 ]; then
		ok "$label: issues: the newest 100 per project (row_number() on the source) are loaded; $ndropped of the tenant's are beyond them"
	else
		not_ok "$label: issues: $missing of the newest 100 per project are not loaded"
	fi
	local nbeyond unneeded sample
	IFS='|' read -r _ _ nbeyond unneeded sample < <(grep '^beyond|' "$work/slices.txt")
	if [ "$unneeded" = 0 ]; then
		ok "$label: issues: each of the $nbeyond loaded beyond the newest 100 is a parent of a loaded row"
	else
		not_ok "$label: issues: $unneeded loaded beyond the newest 100 that no loaded row needs (ids $(echo "$sample" | cut -c1-200))"
	fi
	if [ "$extra" = 0 ] && [ "$missing" = 0 ]; then
		ok "$label: issues: exactly the newest 100 per project (EXCEPT both ways)"
	else
		slice_check exact:issues "issues: not exactly the newest 100 per project: $extra of the $ndropped beyond them loaded (as parents of notes, assignees, metrics), $missing of them not loaded"
	fi
	# the children, per table: of dropped issues, loaded; of kept, loaded
	local t nd ld nk lk nbad=0
	while IFS='|' read -r _ t nd ld nk lk; do
		echo "$label: $t: the generator's rows of dropped issues $nd, loaded $ld; of kept issues $nk, loaded $lk"
		if [ "$lk" != "$nk" ] || [ "$nd" = 0 ]; then
			not_ok "$label: $t: $lk of the $nk rows of kept issues loaded, $nd of dropped issues made"
			nbad=$((nbad + 1))
		fi
		if [ "$ld" != 0 ]; then
			slice_check "dropped-children:$t" "$t: $ld of the $nd rows of dropped issues loaded (the tenant's by their namespace_id)"
		else
			ok "$label: $t: the rows of dropped issues stay out"
		fi
	done < <(grep '^children|' "$work/slices.txt")
	if [ "$(grep -c '^children|' "$work/slices.txt")" != 3 ]; then
		not_ok "$label: the generator's children of issues are not in 3 tables: $(grep '^children|' "$work/slices.txt" | cut -d'|' -f2 | paste -sd' ')"
		nbad=$((nbad + 1))
	fi
	[ $nbad != 0 ] || ok "$label: the kept issues' notes, assignees and metrics are loaded"
	for t in $slices_known; do
		[[ " $seen_known " == *" $t "* ]] ||
			echo "note: $label: known failure $t (issue 40) did not happen: take it off the known list"
	done
	# the insert file's rows (not the cycle fix-up's, which updates)
	local exact
	exact=$(python3 -c 'import json, sys; print(sum(t.get("rows") or 0 for t in json.load(open(sys.argv[1]))["tables"] if t["table"] == "issues" and not t["rule"].startswith("cycle:")))' "$work/slices-plan.json")
	if [ "$exact" = "$loaded" ]; then
		ok "$label: explain --exact's rows for issues ($exact) are the loaded issues"
	else
		not_ok "$label: explain --exact says $exact rows for issues, $loaded loaded"
	fi
	# a row before the cutoff comes only as the parent of a kept row
	echo "$label: rows before the cutoff (parents of kept rows): $(grep '^outside|' "$work/slices.txt" | cut -d'|' -f2,3 | paste -sd' ')"
	if grep -q '^outside|[^|]*|[^|]*|[1-9]' "$work/slices.txt"; then
		not_ok "$label: rows before the cutoff that no loaded row needs: $(grep '^outside|[^|]*|[^|]*|[1-9]' "$work/slices.txt" | cut -d'|' -f2,4,5 | paste -sd' ' | cut -c1-400)"
	else
		ok "$label: the window holds in the $n windowed tables (a row before the cutoff is a loaded row's parent)"
	fi
}

t_all=$SECONDS
if want osm; then
	setup_schema osm "$data/openstreetmap-structure.sql.gz"
	masks osm
	run_target osm users
fi
if want gitlab; then
	# The fill makes a row or two per parent: tenant 1's projects get 141
	# and 108 issues (realgen.grow: copies of its first issue, created
	# over five months before the fill's own, the projects' interleaved in
	# time, three at a time sharing a created_at), each with the first
	# issue's note, assignee and metrics row (the fill links no label to
	# it), for gitlab_slices' "the newest 100 issues of each project"
	setup_schema gitlab "$data/gitlab-structure.sql.gz" '{}' "$per_tenant" \
		"SELECT realgen.grow('issues', 1, 'project_id', '{140,108}', '{notes,issue_assignees,issue_metrics}',
							 '2024-06-01', '2 days')"
	masks gitlab
	# Known failures (issue 18, open): with these targets some rows of other
	# tenants come in through a further arm, or a tenant's rows that only a
	# second path ties are missing.  They run and report every table (as
	# "not ok (TODO)"), but only organizations and OpenStreetMap's users
	# decide the result until the planner meets them.
	todo=${EXWIW_REAL_TODO-namespaces projects users issues}
	for target in organizations namespaces projects users issues; do
		if [[ " $todo " == *" $target "* ]]; then
			# a subshell: its "fail" stays there
			{ run_target gitlab "$target" || true; } | sed 's/^not ok: /not ok (TODO, known): /'
		else
			run_target gitlab "$target"
		fi
	done
	gitlab_slices
fi
if want maybe; then
	if [ ! -f "$data/maybe-structure.sql.gz" ]; then
		echo "skipped: maybe: no $data/maybe-structure.sql.gz"
	else
		t0=$SECONDS
		# The types of Maybe's polymorphic pairs, as its models declare them
		# (maybe-finance/maybe, app/models: `delegated_type :accountable,
		# types: Accountable::TYPES`, `delegated_type :entryable, ...`;
		# Syncable in Account, PlaidItem, Family; Enrichable in Account and
		# Entry and their delegates; `as: :mappable` in Account, Category,
		# Tag; `as: :taggable` in Transaction; `as: :addressable` in
		# Property; has_one_attached in Account, FamilyExport, PlaidItem,
		# User; Doorkeeper's application owner, a User): the catalog does
		# not say, and the generator cannot tell a delegated type's tables.
		# 3 rows per tenant: the third of a delegated type's table has no
		# relation of its own (a transaction without category or merchant:
		# only its entry ties it)
		setup_schema maybe "$data/maybe-structure.sql.gz" '{
			"accounts.accountable_type": {"delegated": ["Depository", "Investment", "Crypto", "Property", "Vehicle",
														"OtherAsset", "CreditCard", "Loan", "OtherLiability"]},
			"entries.entryable_type": {"delegated": ["Valuation", "Transaction", "Trade"]},
			"syncs.syncable_type": ["Account", "PlaidItem", "Family"],
			"data_enrichments.enrichable_type": ["Account", "Entry", "Transaction"],
			"import_mappings.mappable_type": ["Account", "Category", "Tag"],
			"taggings.taggable_type": ["Transaction"],
			"addresses.addressable_type": ["Property"],
			"active_storage_attachments.record_type": ["Account", "FamilyExport", "PlaidItem", "User"],
			"oauth_applications.owner_type": ["User"]}' "${EXWIW_REAL_ROWS:-3}"
		masks maybe
		# The two relations a person writes by hand from Maybe's models:
		# its delegated types ("delegated": true on their arms: a
		# depository is its account's, a transaction its entry's), so that
		# the children of a transaction that only its entry ties (no
		# category, no merchant) come too (issue 36)
		perl -0pi -e 's/("foreign_type": "accountable_type",)/$1\n      "delegated": true,/g' "$work/maybe-masks/accounts.json"
		perl -0pi -e 's/("foreign_type": "entryable_type",)/$1\n      "delegated": true,/g' "$work/maybe-masks/entries.json"
		grep -q '"delegated": true' "$work/maybe-masks/accounts.json" "$work/maybe-masks/entries.json" ||
			not_ok "maybe: the delegated types could not be marked in the config"
		# Known failures (issue 36, open; EXWIW_REAL_KNOWN= asserts them): none
		known=${EXWIW_REAL_KNOWN-}
		one_round=1
		run_target maybe families
		known=
		one_round=0
		echo "maybe: $((SECONDS - t0)) s"
	fi
fi
# the every-tenant comparisons compared something
if [ -e "$work/whole.count" ]; then
	n=$(awk '{ s += $1 } END { print s + 0 }' "$work/whole.count")
	if [ "$n" -gt 0 ]; then
		ok "every tenant: $n tables read whole across the targets"
	else
		not_ok "every tenant: no table read whole on any target"
	fi
fi
echo "subset_real_schemas: $((SECONDS - t_all)) s"
if [ -z "${EXWIW_REAL_KEEP:-}" ]; then
	for name in osm gitlab maybe; do
		psql -X -q -c "DROP DATABASE IF EXISTS ${name}_src" -c "DROP DATABASE IF EXISTS ${name}_dst" \
			-c "DROP ROLE IF EXISTS ${name}_loader"
	done
fi
[ -n "${EXWIW_REAL_KEEP:-}" ] && { cp -r "$work" "$EXWIW_REAL_KEEP"; }
exit $fail
