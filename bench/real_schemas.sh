#!/usr/bin/env bash
# bench/real_schemas.sh: GitLab's published structure.sql (969 tables, 2,315
# foreign keys), filled with three tenants by test/subset/realgen.sql, and
# one tenant of it: the config from the catalog, exwiw_plan in a new backend
# (first, with the backend's CPU time and peak RSS after it) and again in the same
# backend (warm), for each target; the export
# of organization 1 with exwiw_export and its load, as a non-superuser that
# owns an empty copy, with psql; the tables scoped, decided in full and
# refused.  Needs ../shared/data (skips with the reason without it).
#
#   bench/real_schemas.sh          figures into bench/README.md by hand
set -euo pipefail
source "$(dirname "$0")/common.sh"
root=$EXWIW_ROOT
data=$root/../shared/data/real-schemas/gitlab-structure.sql.gz
[ -f "$data" ] || { echo "skip: $data is absent"; exit 0; }
bench_cluster
psql -X -q -c "CREATE DATABASE gl"
export PGDATABASE=gl
{ echo "SET client_min_messages = warning;"; zcat "$data"; } | psql -X -q -v ON_ERROR_STOP=1 >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION exwiw" -f "$root/test/subset/realgen.sql" >/dev/null
psql -X -q -At -c "SELECT realgen.fill(2)" >/dev/null
echo "uptime: $(uptime)"

# the config, with the masks it proposes and every undecided table decided
# "export": "all" (refused ones are counted first)
psql -X -q -At -c "CREATE TABLE public.bench_cfg AS SELECT exwiw_config_from_catalog() AS c"
for target in organizations namespaces projects users issues; do
	# a new backend: its first plan, then the same plan warm
	out=$(psql -X -q -At -v ON_ERROR_STOP=1 <<SQL 2>/dev/null
SET client_min_messages = error;
\\timing on
SELECT count(*) FROM exwiw_plan('$target', '{1}', (SELECT c FROM public.bench_cfg));
SELECT pg_backend_pid() AS bpid \\gset
\\setenv BPID :bpid
\\! sed -n 's/^VmHWM:[[:space:]]*\\([0-9]*\\) kB/peak \\1/p' /proc/\$BPID/status; awk '{print "cpu", (\$14 + \$15) * 10}' /proc/\$BPID/stat
SELECT count(*) FROM exwiw_plan('$target', '{1}', (SELECT c FROM public.bench_cfg));
SQL
	)
	peak=$(echo "$out" | sed -n 's/^peak \([0-9]*\)$/\1/p')
	cpu=$(echo "$out" | sed -n 's/^cpu \([0-9]*\)$/\1/p')
	first=$(echo "$out" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | sed -n 1p)
	warm=$(echo "$out" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | sed -n 3p)
	counts=$(psql -X -q -At -c "SET client_min_messages = error" -c "SELECT
		count(*) FILTER (WHERE rule ~ '^(belongs_to|target|scope|cascade|reverse|referenced)'),
		count(*) FILTER (WHERE rule ~ '^(every row|managed by Rails)'),
		count(*) FILTER (WHERE rule ~ '^UNDECIDED'),
		count(*) FILTER (WHERE rule ~ '^cycle')
		FROM exwiw_plan('$target', '{1}', (SELECT c FROM public.bench_cfg)) WHERE seq IS NOT NULL" | tr '|' ' ')
	read -r scoped full undecided fixups <<<"$counts"
	echo "$target: plan first ${first} ms (backend CPU ${cpu} ms, peak RSS $((peak / 1024)) MB), warm ${warm} ms; tables scoped $scoped, decided in full $full, refused (undecided) $undecided, cycle fix-up files $fixups"
done

# export organization 1 (undecided tables decided "export": "all"), and load it
psql -X -q -At -c "UPDATE public.bench_cfg SET c = jsonb_build_object('tables', (SELECT jsonb_agg(CASE WHEN t ? 'needs_scope_decision' OR t->>'name' IN (
	SELECT table_name FROM exwiw_plan('organizations', '{1}', (SELECT c FROM public.bench_cfg)) WHERE rule ~ '^UNDECIDED')
	THEN t - 'needs_scope_decision' || '{\"export\": \"all\"}' ELSE t END) FROM jsonb_array_elements(c -> 'tables') t))" 2>/dev/null
mkdir -p "$BENCH_OUT/org1"
s=$(date +%s.%N)
subset_dir=$BENCH_OUT/org1
source "$root/test/subset/lib.sh"
subset_write_files "$subset_dir" -c "SET client_min_messages = error" \
	-c "SELECT file_name, chunk FROM exwiw_export('organizations', '{1}', (SELECT c FROM public.bench_cfg), allow_undecided => true)"
e=$(date +%s.%N)
nfiles=$(ls "$subset_dir" | wc -l)
echo "export of organization 1: $(echo "$e - $s" | bc) s, $nfiles files, $(cat "$subset_dir"/* | wc -c) bytes"
psql -X -q -c "CREATE ROLE gl_loader LOGIN" -c "CREATE DATABASE gl_dst OWNER gl_loader"
pg_dump --schema-only -d gl -N realgen | psql -X -q -d gl_dst >/dev/null 2>&1 || true
psql -X -q -d gl_dst -At -c "SELECT format('ALTER %s %s OWNER TO gl_loader;', CASE c.relkind WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END, c.oid::regclass) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p', 'S') AND n.nspname = 'public' AND NOT (c.relkind = 'S' AND EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i')))" | psql -X -q -d gl_dst >/dev/null
s=$(date +%s.%N)
(cd "$subset_dir" && cat $(ls | LC_ALL=C sort)) | psql -X -q -U gl_loader -d gl_dst -v ON_ERROR_STOP=0 >/dev/null 2>"$BENCH_OUT/load.err" || true
e=$(date +%s.%N)
echo "load as the non-superuser owner (one psql): $(echo "$e - $s" | bc) s, $(grep -c ERROR "$BENCH_OUT/load.err" || true) statements failed"
grep ERROR "$BENCH_OUT/load.err" | sed 's/^/  /' | head -n 10 || true
exwiw_cluster_stop
rm -rf "$BENCH_WORK"
