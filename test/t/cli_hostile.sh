#!/usr/bin/env bash
# test/t/cli_hostile.sh: the exwiw client against a hostile server, hostile
# files and a careless environment.  Each case must fail cleanly
# ("exwiw: error: ...", non-zero exit, nothing left behind) or do no harm.
#
# The server: exwiw_export() of database cli_hostile is replaced by a SQL
# function that returns the rows of table hostile_rows, so that the server
# can send any file name: "../x", "a/b", ".", "..", "", hidden names,
# names with a newline or an escape sequence must be refused, names with
# "%" written as they are.  The files: the output directory and its files
# are never writable by others, whatever the umask (umask 000 here), and
# the temporary directory is private while it is filled.  The secrets:
# neither the password nor a service's sslpassword is on pg_dump's command
# line (a pg_dump wrapper next to a copy of exwiw records its argv), nor in
# a --log-level=debug log.  The children: pg_dump and the after-insert
# hook do not inherit an ignored SIGPIPE; the hook runs without a shell (a
# path with ";" runs that file).  The input: a schema file nested a million
# levels deep is an error, not a crash; -j and parallel_workers beyond
# 256 (or beyond int) are refused.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/subset/lib.sh"
source "$root/test/cli/lib.sh"
cli_init hostile

psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
SET client_min_messages = warning;
DROP DATABASE IF EXISTS cli_hostile;
CREATE DATABASE cli_hostile;
SQL
psql -X -q -v ON_ERROR_STOP=1 -d cli_hostile -c "CREATE EXTENSION exwiw" -f "$root/test/subset/fixture.sql" >/dev/null
export PGDATABASE=cli_hostile PGOPTIONS='-c search_path=shop,public -c client_min_messages=warning'
exwiw schema generate --from-db --schema-dir="$work/s" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
CREATE TABLE public.hostile_rows(ord int, file_name text, chunk text);
CREATE OR REPLACE FUNCTION public.exwiw_export(target_table text, ids text[],
	config jsonb DEFAULT NULL, format text DEFAULT 'insert', allow_undecided boolean DEFAULT false,
	files integer[] DEFAULT NULL, ids_by_space jsonb DEFAULT NULL,
	part integer DEFAULT NULL, parts integer DEFAULT NULL, allow_missing_ids boolean DEFAULT false,
	split_rows integer DEFAULT NULL,
	deletes boolean DEFAULT false)
RETURNS TABLE(file_name text, chunk text) LANGUAGE sql
AS $$ SELECT file_name, chunk FROM public.hostile_rows ORDER BY ord $$;
SQL

s="--schema-dir=$work/s"
run="--target-table=shops --ids=1 --allow-undecided"

# serve FILE_NAME...: the server's rows, one per name (chunk "-- NAME")
serve() {
	local sql="TRUNCATE public.hostile_rows;" i=0 n
	for n in "$@"; do
		i=$((i + 1))
		sql+="INSERT INTO public.hostile_rows VALUES ($i, $n, 'select 1;');"
	done
	psql -X -q -v ON_ERROR_STOP=1 -c "$sql"
}

# file names the server must not be trusted with
for name in "'../x'" "'../../x'" "'a/b'" "'/etc/x'" "'.'" "'..'" "''" "'.hidden'" "'.pg_dump.sql'" \
	"E'x\\nexwiw: error: forged'" "E'\\033[2Jx'" "E'tab\\there'" "E'del\\x7f'"; do
	serve "'insert-001-ok.sql'" "$name"
	expect_error "file name $name" 'the server returned an unsafe file name' exwiw $s -o "$work/out" $run
	rm -rf "$work/out" # should a run succeed
done
[ ! -e /tmp/x ] && [ ! -e "$work/x" ] && [ ! -e "$work/a" ] && [ ! -e /etc/x ] &&
	ok "no file written outside the directory" || not_ok "a file was written outside the directory"
serve "E'x\\nexwiw: error: forged\\n\\033[31m'"
exwiw $s -o "$work/out" $run 2>"$work/forged.err" || true
rm -rf "$work/out"
if [ "$(wc -l <"$work/forged.err")" -eq 1 ] && ! grep -q $'\033' "$work/forged.err" &&
	grep -q 'unsafe file name: "x\\x0Aexwiw: error: forged\\x0A\\x1B\[31m"' "$work/forged.err"; then
	ok "an unsafe name is shown escaped: $(cat "$work/forged.err")"
else
	not_ok "an unsafe name printed raw:"
	sed 's/^/    /' "$work/forged.err" | cat -v
fi
rm -f "$work/forged.err"
serve "'insert-001-a.sql'" "'insert-002-b.sql'" "'insert-001-a.sql'"
expect_error "a file name sent twice" 'could not create file .*insert-001-a.sql.*: File exists' exwiw $s -o "$work/out" $run
rm -rf "$work/out"

# odd but safe names are written as they are
serve "'insert-001-100%.sql'" "'insert-002-%2e%2e%2Fx.sql'" "'insert-003-a b''c.sql'"
if exwiw $s -o "$work/odd" $run 2>"$work/odd.err" &&
	[ "$(cd "$work/odd" && ls -A | LC_ALL=C sort | tr '\n' '|')" = "insert-001-100%.sql|insert-002-%2e%2e%2Fx.sql|insert-003-a b'c.sql|" ]; then
	ok "names with %, spaces and quotes are written as they are"
else
	not_ok "odd names: $(ls -A "$work/odd" 2>&1 | tr '\n' '|') $(cat "$work/odd.err")"
fi
rm -rf "$work/odd" "$work/odd.err"

# permissions with umask 000: nothing writable by others; the temporary
# directory private while it is filled (a pg_dump wrapper looks at it)
real_pgdump=$(command -v pg_dump)
fake=$work/fake
mkdir "$fake"
cp "$(command -v exwiw)" "$fake/exwiw"
cat >"$fake/pg_dump" <<EOF
#!/bin/bash
# a pg_dump that records what it was given, then runs the real one
case "\${1:-}" in -V | --version) exec "$real_pgdump" "\$@" ;; esac
tr '\\0' '\\n' </proc/\$\$/cmdline >"$work/pgdump.argv"
env >"$work/pgdump.env"
awk '/^SigIgn/ { print \$2 }' /proc/self/status >"$work/pgdump.sigign"
# its output is its standard output, a hidden file in the temporary directory
stat -c %a "\$(dirname "\$(readlink /proc/\$\$/fd/1)")" >"$work/pgdump.tmpmode"
exec "$real_pgdump" "\$@"
EOF
chmod 755 "$fake/pg_dump"
serve "'insert-001-a.sql'" "'insert-002-b.sql'"
if (umask 000 && "$fake/exwiw" $s -o "$work/um/new/out" $run --with-schema 2>"$work/um.err"); then
	bad=$(find "$work/um" -perm -o+w -printf '%m %P\n')
	if [ -z "$bad" ] && [ -f "$work/um/new/out/insert-000-schema.sql" ] && [ -f "$work/um/new/out/insert-002-b.sql" ]; then
		ok "umask 000: nothing writable by others ($(find "$work/um" -printf '%m ' | tr -s ' '))"
	else
		not_ok "umask 000: writable by others: $bad"
	fi
	if [ "$(cat "$work/pgdump.tmpmode")" = 700 ]; then
		ok "the temporary directory is private while it is filled"
	else
		not_ok "the temporary directory is $(cat "$work/pgdump.tmpmode") while it is filled"
	fi
else
	not_ok "umask 000 export failed: $(cat "$work/um.err")"
fi
rm -rf "$work/um" "$work/um.err"

# secrets: DATABASE_PASSWORD and a service's sslpassword never on pg_dump's
# command line, nor in the debug log; the password reaches pg_dump by its
# environment
printf '[hostile]\nsslpassword=ssl-secret-42\n' >"$work/services"
serve "'insert-001-a.sql'"
rm -f "$work/pgdump.argv" "$work/pgdump.env"
if PGSERVICEFILE=$work/services DATABASE_PASSWORD=db-secret-42 PGPASSWORD=pg-secret-42 \
	"$fake/exwiw" --dbname="service=hostile dbname=cli_hostile" $s -o "$work/sec" $run --with-schema \
	--log-level=debug 2>"$work/sec.err" && [ -f "$work/sec/insert-000-schema.sql" ]; then
	ok "export with a service and a password, --with-schema"
else
	not_ok "export with a service failed: $(cat "$work/sec.err")"
fi
if [ -s "$work/pgdump.argv" ] && ! grep -q 'secret-42' "$work/pgdump.argv"; then
	ok "no secret on pg_dump's command line"
else
	not_ok "pg_dump's command line: $(grep secret "$work/pgdump.argv" 2>&1 || true)"
fi
if grep -q "service='hostile'" "$work/pgdump.argv" && grep -qx 'PGPASSWORD=db-secret-42' "$work/pgdump.env"; then
	ok "pg_dump gets the service by name and DATABASE_PASSWORD in its environment"
else
	not_ok "pg_dump's connection: $(grep -e service -e PGPASSWORD "$work/pgdump.argv" "$work/pgdump.env")"
fi
if grep -q 'secret-42' "$work/sec.err"; then
	not_ok "a secret in the debug log"
else
	ok "no secret in the debug log ($(wc -l <"$work/sec.err") lines)"
fi
expect_error "a wrong service does not echo a secret" 'definition of service "nope" not found' \
	env DATABASE_PASSWORD=db-secret-42 exwiw --dbname="service=nope password=pw-secret-42" $s -o "$work/out" $run
exwiw --dbname="service=nope password=pw-secret-42" $s -o "$work/out" $run 2>&1 | grep -q secret-42 &&
	not_ok "an error message shows the password" || ok "no password in the error message"
rm -rf "$work/sec" "$work/sec.err"

# the children: no ignored SIGPIPE (bit 13: 0x1000), the hook without a shell
if [ -s "$work/pgdump.sigign" ] && (((0x$(cat "$work/pgdump.sigign") & 0x1000) == 0)); then
	ok "pg_dump does not inherit an ignored SIGPIPE"
else
	not_ok "pg_dump's ignored signals: $(cat "$work/pgdump.sigign" 2>&1)"
fi
mkdir "$work/hook dir"
hook="$work/hook dir/h;touch pwned;\$(touch pwned2).sh"
cat >"$hook" <<EOF
#!/bin/bash
awk '/^SigIgn/ { print \$2 }' /proc/self/status >"$work/hook.sigign"
echo "\$EXWIW_OUTPUT_DIR" >"$work/hook.out"
EOF
chmod 755 "$hook"
serve "'insert-001-a.sql'"
if (cd "$work" && exwiw $s -o "$work/h" $run --after-insert-hook="$hook" 2>"$work/hook.err") &&
	[ "$(cat "$work/hook.out")" = "$work/h" ] && [ ! -e "$work/pwned" ] && [ ! -e "$work/pwned2" ]; then
	ok "the hook runs without a shell"
else
	not_ok "the hook: $(cat "$work/hook.err" "$work/hook.out" 2>&1); $(ls "$work")"
fi
if [ -s "$work/hook.sigign" ] && (((0x$(cat "$work/hook.sigign") & 0x1000) == 0)); then
	ok "the hook does not inherit an ignored SIGPIPE"
else
	not_ok "the hook's ignored signals: $(cat "$work/hook.sigign" 2>&1)"
fi
rm -rf "$work/h" "$work/hook dir" "$work"/hook.* "$work"/pgdump.* "$fake" "$work/services"

# hostile input
mkdir "$work/deep"
python3 -c "print('[' * 1000000 + ']' * 1000000)" >"$work/deep/t.json"
expect_error "a schema file nested a million levels" 'deep/t.json is not valid JSON: line 1: arrays and objects nest deeper than 1000 levels' \
	exwiw --schema-dir="$work/deep" -o "$work/out" $run
rm -rf "$work/deep"
expect_error "-j beyond int" '--parallel-workers must be at most 256 \(got 4294967297\)' exwiw $s -o "$work/out" $run -j 4294967297
rm -rf "$work/out"
expect_error "-j 257" '--parallel-workers must be at most 256' exwiw $s -o "$work/out" $run -j 257
rm -rf "$work/out"
expect_error "-j beyond long" 'invalid argument: --parallel-workers=99999999999999999999' exwiw $s -o "$work/out" $run -j 99999999999999999999
mkdir "$work/y"
printf 'parallel_workers: 4294967297\n' >"$work/y/exwiw.yml"
expect_error "parallel_workers beyond int" '--parallel-workers must be at most 256 \(got 4294967297\)' \
	exwiw -c "$work/y/exwiw.yml" $s -o "$work/out" $run
rm -rf "$work/out"
printf 'parallel_workers: 99999999999999999999\n' >"$work/y/exwiw.yml"
expect_error "parallel_workers beyond long" "config 'parallel_workers' must be an integer" \
	exwiw -c "$work/y/exwiw.yml" $s -o "$work/out" $run
rm -rf "$work/y"

psql -X -q -d postgres -c "DROP DATABASE cli_hostile"
exit $fail
