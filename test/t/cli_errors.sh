#!/usr/bin/env bash
# test/t/cli_errors.sh: bad input to the exwiw client.  Each case must exit
# non-zero with "exwiw: error: <a clear message>" on stderr (in the style
# of PostgreSQL's clients, never a bare libpq or server text), print
# nothing on stdout, and leave nothing behind: no output directory, no
# temporary .exwiw-* directory, no created parent.
#
# A missing target or ids, an unknown table, bad ids, a wrong password
# (and none, stdin not a terminal), an unreachable host, a missing
# database, a database without the extension, a schema file that is not
# JSON (and one the server refuses), a missing or empty schema dir, an
# output path that cannot be written (under /proc, under a file, a file),
# --force on the current directory, a parent of it, the root or the schema
# config's directory,
# undecided masks without --allow-undecided, bad YAML and refused YAML
# keys, unknown options, a missing option argument, a bad format, the
# named ID spaces in single-target mode, --ids alone without any
# scope_column, --scope-column with a target or without ids; the flags
# that are not supported (yet):
# --split-rows=0, other adapters, mongodb flags; explain with export-only
# flags; schema without a verb or without --from-db; exit status 2 when
# schema check cannot run.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/subset/lib.sh"
source "$root/test/cli/lib.sh"
cli_init errors

psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
SET client_min_messages = warning;
DROP DATABASE IF EXISTS cli_err;
DROP DATABASE IF EXISTS cli_noext;
DROP ROLE IF EXISTS cli_pw;
CREATE DATABASE cli_err;
CREATE DATABASE cli_noext;
CREATE ROLE cli_pw LOGIN SUPERUSER PASSWORD 'right-password';
SQL
psql -X -q -v ON_ERROR_STOP=1 -d cli_err -c "CREATE EXTENSION exwiw" -f "$root/test/subset/fixture.sql" >/dev/null
export PGDATABASE=cli_err PGOPTIONS='-c search_path=shop,public -c client_min_messages=warning'
schema=$(mktemp -d /tmp/exwiw-cli-errors-schema.XXXXXX)
trap 'rm -rf "$work" "$schema"' EXIT
exwiw schema generate --from-db --schema-dir="$schema/s" >/dev/null
cli_config_array "$schema/s" >"$schema/one.json"

# password authentication for the role cli_pw, on the local socket
hba=$(psql -X -At -c "SHOW hba_file")
cp "$hba" "$schema/hba.orig"
restore_hba() {
	cp "$schema/hba.orig" "$hba"
	psql -X -q -At -c "SELECT pg_reload_conf()" >/dev/null
}
trap 'restore_hba; rm -rf "$work" "$schema"' EXIT
{ echo "local all cli_pw scram-sha-256"; cat "$schema/hba.orig"; } >"$hba"
psql -X -q -At -c "SELECT pg_reload_conf()" >/dev/null
# the reload is asynchronous: wait until cli_pw needs a password (bound:
# only a hang)
deadline=$((SECONDS + 300))
while PGPASSWORD= psql -X -w -q -At -U cli_pw -c "SELECT 1" >/dev/null 2>&1 && [ $SECONDS -lt $deadline ]; do
	sleep 0.1
done

s="--schema-dir=$schema/s"
o="-o $work/out"

# the target
expect_error "no target" '--target-table is required' exwiw $s $o --ids=
expect_error "ids without a target, no scope_column declared" 'scope-column mode: no table declares a scope_column' exwiw $s $o --ids=1
expect_error "target without ids" '--ids is required when --target-table is specified' exwiw $s $o --target-table=shops
expect_error "unknown table" 'nope' exwiw $s $o --target-table=nope --ids=1 --allow-undecided
expect_error "ids of the wrong type" 'id "abc" is not a value of column "id" of "shops"' exwiw $s $o --target-table=shops --ids=abc --allow-undecided
# the catalog proposes a mask for each sensitive column; without it, the
# column is undecided and the export refused
mkdir "$schema/undecided"
cp "$schema"/s/*.json "$schema/undecided/"
sed -i '/"replace_with"/d; /"replace_with_fake_data"/,/}/d' "$schema/undecided/users.json"
u="--schema-dir=$schema/undecided"
expect_error "undecided masks" '3 columns of the config need a mask decision' exwiw $u $o --target-table=shops --ids=1
if grep -q 'exwiw: hint: With the exwiw client, --allow-undecided' <(exwiw $u $o --target-table=shops --ids=1 2>&1 || true); then
	ok "undecided masks: the hint names --allow-undecided"
else
	not_ok "undecided masks: no hint for --allow-undecided"
fi
expect_error "named ID space in single-target mode" 'ids were given for named id spaces, but target table "shops" declares no scope_column' \
	exwiw $s $o --target-table=shops --ids=org=1

# the connection
expect_error "wrong password" 'password authentication failed for user "cli_pw"' \
	env DATABASE_PASSWORD=wrong exwiw -u cli_pw $s $o --target-table=shops --ids=1 --allow-undecided
expect_error "no password (stdin is not a terminal)" 'no password supplied' \
	env -u PGPASSWORD exwiw -u cli_pw $s $o --target-table=shops --ids=1 --allow-undecided
if DATABASE_PASSWORD=right-password exwiw -u cli_pw $s -o "$work/pw" --target-table=shops --ids=1 --allow-undecided &&
	[ -f "$work/pw/insert-003-shops.sql" ]; then
	ok "DATABASE_PASSWORD is the password"
	rm -rf "$work/pw"
else
	not_ok "DATABASE_PASSWORD"
fi
expect_error "unreachable host (refused)" 'connection to server at "127.0.0.1", port 1 failed' \
	exwiw -h 127.0.0.1 -p 1 $s $o --target-table=shops --ids=1
expect_error "unreachable host (no socket)" 'connection to server on socket "/nonexistent' \
	exwiw -h /nonexistent $s $o --target-table=shops --ids=1
expect_error "unknown host name" 'could not translate host name' \
	exwiw -h no-such-host.invalid $s $o --target-table=shops --ids=1
expect_error "missing database" 'database "no_such_db" does not exist' \
	exwiw --dbname=no_such_db $s $o --target-table=shops --ids=1
expect_error "no extension" 'the exwiw extension is not installed in database "cli_noext"' \
	exwiw --database=cli_noext $s $o --target-table=shops --ids=1

# the schema config
mkdir -p "$schema/bad" "$schema/empty" "$schema/badkey"
cp "$schema"/s/*.json "$schema/bad/"
printf '{\n  "name": "users",\n  "columns": [\n    {"name": "id"},,\n  ]\n}\n' >"$schema/bad/users.json"
expect_error "a schema file that is not JSON" 'schema file .*/bad/users.json is not valid JSON: line 4' \
	exwiw --schema-dir="$schema/bad" $o --target-table=shops --ids=1
printf 'not json at all' >"$schema/notjson.json"
expect_error "a one-file schema config that is not JSON" 'notjson.json is not valid JSON: line 1: Token "not" is invalid' \
	exwiw --schema-dir="$schema/notjson.json" $o --target-table=shops --ids=1
cp "$schema"/s/*.json "$schema/badkey/"
sed -i 's/"name": "shops",/"name": "shops", "colour": "blue",/' "$schema/badkey/shops.json"
expect_error "a key the server refuses" 'unknown key "colour"' \
	exwiw --schema-dir="$schema/badkey" $o --target-table=shops --ids=1 --allow-undecided
expect_error "missing schema dir" 'schema dir does not exist' exwiw --schema-dir="$schema/none" $o --target-table=shops --ids=1
expect_error "empty schema dir" 'schema dir contains no .json files' exwiw --schema-dir="$schema/empty" $o --target-table=shops --ids=1
expect_error "no schema dir" 'schema dir is required' exwiw $o --target-table=shops --ids=1

# the output path
expect_error "output path under /proc" 'could not create' exwiw $s -o /proc/exwiw-test/out --target-table=shops --ids=1 --allow-undecided
touch "$work/afile"
expect_error "output path under a file" 'Not a directory' exwiw $s -o "$work/afile/out" --target-table=shops --ids=1 --allow-undecided
expect_error "output path is a file" 'exists and is not a directory' exwiw $s -o "$work/afile" --target-table=shops --ids=1 --allow-undecided
rm -f "$work/afile"
expect_error "a failure after the directory was started leaves no parents" 'nope' \
	exwiw $s -o "$work/new/parents/out" --target-table=nope --ids=1 --allow-undecided
# --force never replaces what the run stands on: the current directory (or
# a parent of it), the root, the directory that holds the schema config
mkdir -p "$work/cwd/sub"
echo keep >"$work/cwd/sub/precious"
expect_error "--force on the current directory" 'is the current directory or one of its parents: it will not be replaced' \
	bash -c 'cd "$1/cwd/sub" && shift && exec "$@"' _ "$work" exwiw $s -o . --force --target-table=shops --ids=1 --allow-undecided
expect_error "--force on a parent of the current directory" 'is the current directory or one of its parents' \
	bash -c 'cd "$1/cwd/sub" && shift && exec "$@"' _ "$work" exwiw $s -o .. --force --target-table=shops --ids=1 --allow-undecided
expect_error "--force on the root" 'is the root directory' exwiw $s -o / --force --target-table=shops --ids=1 --allow-undecided
expect_error "--force on the schema config's directory" 'is the directory that holds the schema config' \
	exwiw $s -o "$schema" --force --target-table=shops --ids=1 --allow-undecided
if [ "$(cat "$work/cwd/sub/precious")" = keep ] && [ -f "$schema/s/users.json" ]; then
	ok "--force refusals removed nothing"
else
	not_ok "a --force refusal removed files"
fi
rm -rf "$work/cwd"

# the run config
mkdir -p "$work/y"
cd "$work/y"
printf 'target_table: [shops\n' >exwiw.yml
expect_error "YAML that does not parse" 'is not valid YAML' exwiw $s $o --ids=1
printf 'host: db.example.com\n' >exwiw.yml
expect_error "a connection key in the YAML" "'host' is a database connection setting" exwiw $s $o --ids=1
printf 'colour: blue\n' >exwiw.yml
expect_error "an unknown YAML key" "unknown config key 'colour'" exwiw $s $o --ids=1
printf -- '- a\n- b\n' >exwiw.yml
expect_error "YAML that is not a mapping" 'must be a YAML mapping' exwiw $s $o --ids=1
printf 'parallel_workers: many\n' >exwiw.yml
expect_error "a YAML value of the wrong kind" "config 'parallel_workers' must be an integer" exwiw $s $o --ids=1
# Bounded YAML: 100,000 levels of nesting (flow and block) and a
# thousand aliases are refused at once (libyaml's loader took time
# quadratic in the depth: more than 20 s).  The bound only catches a hang.
yaml_bounded() {
	local label=$1 pattern=$2 t0=$SECONDS
	expect_error "$label" "$pattern" timeout 120 exwiw $s $o --ids=1
	[ $((SECONDS - t0)) -lt 60 ] || not_ok "$label: took $((SECONDS - t0)) s"
}
{ printf 'target_table: '; head -c 100000 /dev/zero | tr '\0' '['; head -c 100000 /dev/zero | tr '\0' ']'; echo; } >exwiw.yml
yaml_bounded "YAML nested 100,000 levels deep (flow)" 'nests deeper than 64 levels, at line 1$'
{ printf 'ids:\n'; head -c 100000 /dev/zero | sed 's/\x0/- /g'; echo x; } >exwiw.yml
yaml_bounded "YAML nested 100,000 levels deep (block)" 'nests deeper than 64 levels, at line 2$'
awk 'BEGIN { print "a: &a [1, 2, 3]"; printf "ids: {"; for (i = 1; i <= 1000; i++) printf "%ss%d: *a", (i > 1 ? ", " : ""), i; print "}" }' >exwiw.yml
yaml_bounded "YAML with a thousand aliases" 'has more than 64 aliases, at line 2$'
printf 'ids: {x: &a [1, 2], y: *a}\ntarget_table: nosuch\n' >exwiw.yml
expect_error "a YAML alias within the limit is read" 'nosuch' exwiw $s $o
rm -f exwiw.yml
cd "$root"
expect_error "a missing -c file" 'config file not found' exwiw -c "$work/none.yml" $s $o --ids=1

# the options
expect_error "unknown option" 'unrecognized or ambiguous option "--bogus"' exwiw --bogus
expect_error "ambiguous option" 'unrecognized or ambiguous option "--ta=x"' exwiw --ta=x
expect_error "missing argument" 'option "--target-table" requires an argument' exwiw $s --target-table
expect_error "extra argument" 'too many command-line arguments \(first is "extra"\)' exwiw $s --target-table=shops --ids=1 extra
expect_error "bad format" "invalid output format 'xml'" exwiw $s $o --target-table=shops --ids=1 --output-format=xml
expect_error "zero workers" '--parallel-workers must be a positive integer \(got 0\)' exwiw $s $o --target-table=shops --ids=1 -j 0
expect_error "--split-rows=0" '--split-rows must be a positive integer \(got 0\)' exwiw $s $o --target-table=shops --ids=1 --split-rows=0
expect_error "--scope-column with a target" '--scope-column cannot be combined with --target-table' exwiw $s $o --scope-column=shop_id --target-table=shops --ids=1
expect_error "--scope-column without ids" '--ids is required when --scope-column is specified' exwiw $s $o --scope-column=shop_id
expect_error "another adapter" 'adapter "mysql" is not supported' exwiw $s $o --target-table=shops --ids=1 --adapter=mysql
expect_error "--uri" '--uri is only supported by the mongodb adapter' exwiw $s $o --uri=mongodb://x --target-table=shops --ids=1
expect_error "--target-collection" '--target-collection is only supported by the mongodb adapter' exwiw $s $o --target-collection=shops --ids=1
expect_error "bad log level" 'invalid log level: loud' exwiw $s $o --target-table=shops --ids=1 --log-level=loud
expect_error "explain with --output-dir" "not applicable in 'explain' subcommand: --output-dir" \
	exwiw explain $s -o "$work/out" --target-table=shops --ids=1
expect_error "schema without a verb" 'usage: exwiw schema generate\|check\|tidy' exwiw schema --from-db $s
expect_error "schema with a bad verb" 'got "frob"' exwiw schema frob --from-db $s
expect_error "schema without --from-db" 'requires --from-db' exwiw schema check $s
expect_error "--fail-on outside check" '--fail-on only applies to `exwiw schema check`' exwiw schema generate --from-db $s --fail-on=stale

# schema check that cannot run: exit status 2
rc=0
exwiw schema check --from-db $s -h 127.0.0.1 -p 1 >/dev/null 2>"$work/.err" || rc=$?
if [ $rc -eq 2 ] && grep -q '^exwiw: error: connection to server' "$work/.err"; then
	ok "schema check that cannot connect exits 2"
else
	not_ok "schema check that cannot connect: exit $rc"
fi
rm -f "$work/.err"

exit $fail
