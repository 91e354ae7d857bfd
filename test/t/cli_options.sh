#!/usr/bin/env bash
# test/t/cli_options.sh: the exwiw command as PostgreSQL's users expect it.
#
# Options before or after the subcommand (and schema's verb) give the same
# result; "exwiw SUBCOMMAND --help" lists that subcommand's options only
# (and --help wins over any other error on the line); "did you mean" for a
# mistyped flag, subcommand or schema verb, and the flags an ambiguous
# abbreviation could be; -W asks for a password before connecting, -w
# never asks (on a terminal: script(1) gives one); --version is the
# extension's version, SELECT extversion.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/subset/lib.sh"
source "$root/test/cli/lib.sh"
cli_init options

psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
SET client_min_messages = warning;
DROP DATABASE IF EXISTS cli_options;
DROP ROLE IF EXISTS cli_opt_pw;
CREATE DATABASE cli_options;
CREATE ROLE cli_opt_pw LOGIN SUPERUSER PASSWORD 'opt-password';
SQL
psql -X -q -v ON_ERROR_STOP=1 -d cli_options -c "CREATE EXTENSION exwiw" -f "$root/test/subset/fixture.sql" >/dev/null
export PGDATABASE=cli_options PGOPTIONS='-c search_path=shop,public -c client_min_messages=warning'
cd "$work"

# options before, between, after the subcommand and its verb
exwiw schema generate --from-db --schema-dir="$work/s1" >/dev/null
exwiw --schema-dir="$work/s2" schema --from-db generate >/dev/null
exwiw --from-db --schema-dir "$work/s3" schema generate >/dev/null
if diff -r "$work/s1" "$work/s2" >/dev/null && diff -r "$work/s1" "$work/s3" >/dev/null; then
	ok "schema generate: options before, between or after the subcommand and its verb"
else
	not_ok "schema generate depends on where the options are"
fi
a=$(exwiw explain --target-table=shops --ids=1 --schema-dir="$work/s1")
b=$(exwiw --target-table=shops --ids=1 explain --schema-dir="$work/s1")
c=$(exwiw --target-table=shops --ids=1 --schema-dir="$work/s1" explain)
if [ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" = "$c" ]; then
	ok "explain: the same plan wherever the subcommand is"
else
	not_ok "explain depends on where the subcommand is"
fi
exwiw --target-table=shops --ids=1 --schema-dir="$work/s1" --allow-undecided -o "$work/d1" -q
exwiw --target-table=shops export --ids=1 --schema-dir="$work/s1" --allow-undecided -o "$work/d2" -q
if same_dirs "$work/d1" "$work/d2"; then
	ok "export: the same files with \"export\" among the options"
else
	not_ok "export depends on where the subcommand is"
fi
rm -rf "$work/s2" "$work/s3" "$work/d1" "$work/d2"

# per-subcommand --help
full=$(exwiw --help)
h_explain=$(exwiw explain --help)
h_schema=$(exwiw --help schema)
h_export=$(exwiw export --help)
h_verb=$(exwiw schema generate --help)
if grep -q '^Usage: exwiw explain \[options\]' <<<"$h_explain" && grep -q -- '--analyze' <<<"$h_explain" &&
	grep -q -- '--target-table' <<<"$h_explain" && ! grep -q -- '--with-schema' <<<"$h_explain" &&
	grep -q '^Usage: exwiw schema generate|check|tidy' <<<"$h_schema" && grep -q -- '--fail-on' <<<"$h_schema" &&
	! grep -q -- '--analyze' <<<"$h_schema" && [ "$h_verb" = "$h_schema" ] &&
	grep -q '^Usage: exwiw \[export\] \[options\]' <<<"$h_export" && grep -q -- '--parallel-workers' <<<"$h_export" &&
	! grep -q -- '--from-db' <<<"$h_export" &&
	[ "$(exwiw --help)" = "$full" ] && [ "$(exwiw -'?')" = "$full" ] && grep -q -- '--analyze' <<<"$full" &&
	grep -q -- '--with-schema' <<<"$full" && grep -q -- '--fail-on' <<<"$full"; then
	ok "SUBCOMMAND --help (before or after it): that subcommand's options only; --help alone: all"
else
	not_ok "per-subcommand --help"
fi
if [ "$(exwiw explain --bogus -j x --help 2>&1)" = "$h_explain" ] && [ "$(exwiw --he explain)" = "$h_explain" ]; then
	ok "--help (or an abbreviation) wins over the other errors on the line"
else
	not_ok "--help with bad options"
fi
if grep -q -- '-W, --password' <<<"$full" && grep -q -- '-w, --no-password' <<<"$full"; then
	ok "--help lists -W and -w"
else
	not_ok "-W / -w in --help"
fi

# did you mean
expect_hint() {
	local label=$1 pattern=$2 err
	shift 2
	if err=$("$@" 2>&1 >/dev/null); then
		not_ok "$label: exit 0"
	elif grep -qE "$pattern" <<<"$err"; then
		ok "$label"
	else
		not_ok "$label: $err"
	fi
}
expect_hint "a mistyped flag: did you mean" '^exwiw: hint: Did you mean "--target-table"\?$' exwiw --target-tabel=shops --ids=1
expect_hint "a mistyped flag without a value" '^exwiw: hint: Did you mean "--allow-undecided"\?$' exwiw --alow-undecided
expect_hint "a mistyped subcommand" '^exwiw: hint: Did you mean the subcommand "explain"\?$' exwiw exlpain --ids=1
expect_hint "a mistyped schema verb" '^exwiw: hint: Did you mean "exwiw schema check"\?$' exwiw schema chek --from-db
expect_hint "an ambiguous abbreviation: the flags it could be" \
	'^exwiw: hint: "--ta" is short for any of --target-table, --target-collection, --table\.$' exwiw --ta=x
expect_hint "nothing like any flag: no guess" '^exwiw: hint: Try "exwiw --help"' exwiw --zzzzzzzz
if ! exwiw --zzzzzzzz 2>&1 | grep -q 'Did you mean'; then
	ok "no guess for a flag like none"
else
	not_ok "a guess for --zzzzzzzz"
fi
expect_error "an unknown short option" "invalid option -- 'y'" exwiw -y

# -W and -w, on a terminal
if command -v script >/dev/null; then
	hba=$(psql -X -At -c "SHOW hba_file")
	cp "$hba" "$work/hba.orig"
	trap 'cp "$work/hba.orig" "$hba"; psql -X -q -c "SELECT pg_reload_conf()" >/dev/null; rm -rf "$work"' EXIT
	{ echo "local all cli_opt_pw scram-sha-256"; cat "$work/hba.orig"; } >"$hba"
	psql -X -q -c "SELECT pg_reload_conf()" >/dev/null
	# run_tty INPUT COMMAND: COMMAND on a terminal; INPUT is typed once it
	# shows "Password:" (typed earlier, the prompt would flush it), or after
	# 10 s; prints what the terminal showed
	run_tty() {
		local log=$work/tty.log i
		rm -f "$log"
		{
			for i in $(seq 100); do
				grep -q 'Password:' "$log" 2>/dev/null && break
				sleep 0.1
			done
			sleep 0.2
			printf '%s\n' "$1"
		} | script -qfec "$2" "$log" >/dev/null 2>&1 || true
		tr -d '\r' <"$log"
	}
	q="PATH='$PATH' PGHOST='$PGHOST' PGPORT='$PGPORT' PGDATABASE=cli_options PGOPTIONS='$PGOPTIONS'"
	q="$q exwiw explain --target-table=shops --ids=1 --schema-dir='$work/s1'"
	out=$(run_tty opt-password "env -u PGPASSWORD $q -u cli_opt_pw")
	if grep -q '^Password: ' <<<"$out" && grep -q 'shops -> insert-' <<<"$out"; then
		ok "no flag: asked for the password the server wants, on a terminal"
	else
		not_ok "password prompt on demand: $out"
	fi
	out=$(run_tty opt-password "env -u PGPASSWORD $q -u cli_opt_pw -w")
	if ! grep -q 'Password: ' <<<"$out" && grep -q 'no password supplied' <<<"$out"; then
		ok "-w: never asks, fails with libpq's message"
	else
		not_ok "-w: $out"
	fi
	out=$(run_tty whatever "env -u PGPASSWORD $q -W")
	if grep -q '^Password: ' <<<"$out" && grep -q 'shops -> insert-' <<<"$out"; then
		ok "-W: asks before connecting, though the server (trust) wants none"
	else
		not_ok "-W: $out"
	fi
	out=$(run_tty opt-password "env -u PGPASSWORD $(sed 's/exwiw explain/exwiw --password -q -o dump -j 2 --allow-undecided/; s/--ids=1 /--ids=1 /' <<<"$q") -u cli_opt_pw")
	if [ "$(grep -c 'Password: ' <<<"$out")" -eq 1 ] && [ -f "$work/dump/insert-003-shops.sql" ]; then
		ok "--password with -j 2: asked once, for every connection"
	else
		not_ok "--password -j 2: $out"
	fi
else
	echo "skip: -W/-w: no script(1) for a terminal"
fi

# --version is the extension's version
extversion=$(psql -X -At -c "SELECT extversion FROM pg_extension WHERE extname = 'exwiw'")
if [ "$(exwiw --version)" = "exwiw $extversion" ] && [ "$(exwiw explain -V)" = "exwiw $extversion" ]; then
	ok "--version: exwiw $extversion, the installed extension's version (SELECT extversion)"
else
	not_ok "--version '$(exwiw --version)', extversion '$extversion'"
fi

exit $fail
