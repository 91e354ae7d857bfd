#!/usr/bin/env bash
# test/t/cli_doc.sh: the exwiw command's manual page and bash completion
# keep up with it.
#
# Every long option of client/options.c is in doc/exwiw.1 and in
# client/exwiw.bash; the page is clean roff (groff -ww) and names the
# extension's version; the completion completes subcommands, schema's
# verbs, flags (after the subcommand too) and the values of --output-format
# and --log-level; make install installs the page (pg_config --mandir).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/cli/lib.sh"
cli_init doc

options=$(sed -n 's/^\t{"\([a-z-]*\)", \(no\|required\)_argument, .*/\1/p' "$root/client/options.c")
[ "$(wc -l <<<"$options")" -gt 30 ] || not_ok "could not read the long options of client/options.c"
missing_man=() missing_bash=()
for o in $options; do
	grep -qF -- "\\-\\-${o//-/\\-}" "$root/doc/exwiw.1" || missing_man+=("--$o")
	grep -qE -- "(^|[[:space:]\"])--$o(=|[[:space:]\"]|$)" "$root/client/exwiw.bash" || missing_bash+=("--$o")
done
if [ ${#missing_man[@]} -eq 0 ]; then
	ok "doc/exwiw.1 names every long option ($(wc -w <<<"$options"))"
else
	not_ok "doc/exwiw.1 lacks ${missing_man[*]}"
fi
if [ ${#missing_bash[@]} -eq 0 ]; then
	ok "client/exwiw.bash completes every long option"
else
	not_ok "client/exwiw.bash lacks ${missing_bash[*]}"
fi
version=$(sed -n "s/^default_version = '\(.*\)'$/\1/p" "$root/exwiw.control")
if grep -q "^\.TH EXWIW 1 .*\"exwiw $version\"" "$root/doc/exwiw.1"; then
	ok "exwiw(1) is the page of exwiw $version"
else
	not_ok "exwiw(1)'s .TH names another version than $version"
fi
if command -v groff >/dev/null; then
	if warnings=$(groff -man -ww -z "$root/doc/exwiw.1" 2>&1) && [ -z "$warnings" ]; then
		ok "groff -man -ww: no warning"
	else
		not_ok "groff: $warnings"
	fi
	if groff -man -Tascii "$root/doc/exwiw.1" 2>/dev/null | col -b | tr -s ' \n' '  ' | grep -q 'Prompt for a password before connecting'; then
		ok "the page renders"
	else
		not_ok "the page does not render"
	fi
else
	echo "skip: groff is not installed"
fi

# complete WORD...: COMPREPLY for the command line WORDS, the last being
# the word under the cursor
complete_words() {
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _exwiw; [ ${#COMPREPLY[@]} -eq 0 ] || printf "%s\n" "${COMPREPLY[@]}"' \
		- "$root/client/exwiw.bash" "$@" | sort | tr '\n' ' '
}
check_completion() {
	local want=$1 got
	shift
	got=$(complete_words "$@")
	if [ "$got" = "$want" ]; then
		ok "completion of '$*': $want"
	else
		not_ok "completion of '$*': '$got', not '$want'"
	fi
}
check_completion "explain export " exwiw ex
check_completion "dump explain export load mask schema " exwiw ""
check_completion "error skip " exwiw load --on-conflict ""
check_completion "preview " exwiw mask p
check_completion "generate " exwiw schema g
check_completion "check " exwiw --from-db schema ch
check_completion "--target-table= " exwiw --target-t
check_completion "--from-db " exwiw schema generate --fr
check_completion "--parallel-workers= --password --port= " exwiw explain --p
check_completion "copy " exwiw --output-format = c
check_completion "warn " exwiw --log-level w
check_completion "" exwiw --ids ""

# make install installs the page
dest=$work/inst
if make -s -C "$root/client" install-man DESTDIR="$dest" PG_CONFIG="${PG_CONFIG:-pg_config}" >/dev/null &&
	cmp -s "$dest$("${PG_CONFIG:-pg_config}" --mandir)/man1/exwiw.1" "$root/doc/exwiw.1"; then
	ok "make install puts exwiw.1 into pg_config --mandir"
else
	not_ok "make install-man"
fi
exit $fail
