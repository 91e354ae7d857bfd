#!/usr/bin/env bash
# test/unit/install_bin.sh: "make install-bin" (the README's install line)
# links the exwiw command and its manual page where the default PATH and
# man look, to what "make install" put beside PostgreSQL: into a scratch
# DESTDIR, with the same pg_config as the extension; the links name
# pg_config's bindir and mandir, and uninstall-bin removes them.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/${PG_MAJOR:-15}/bin/pg_config}
dest=$(mktemp -d /tmp/exwiw-install-bin.XXXXXX)
trap 'rm -rf "$dest"' EXIT
fail=0
make -s -C "$root" install-bin DESTDIR="$dest" PG_CONFIG="$PG_CONFIG" >/dev/null
want_bin="$("$PG_CONFIG" --bindir)/exwiw"
want_man="$("$PG_CONFIG" --mandir)/man1/exwiw.1"
got_bin=$(readlink "$dest/usr/local/bin/exwiw" || true)
got_man=$(readlink "$dest/usr/local/share/man/man1/exwiw.1" || true)
if [ "$got_bin" = "$want_bin" ]; then
	echo "ok: install-bin: /usr/local/bin/exwiw -> $want_bin"
else
	echo "not ok: install-bin: /usr/local/bin/exwiw -> '$got_bin', want $want_bin"
	fail=1
fi
if [ "$got_man" = "$want_man" ]; then
	echo "ok: install-bin: /usr/local/share/man/man1/exwiw.1 -> $want_man"
else
	echo "not ok: install-bin: the manual links to '$got_man', want $want_man"
	fail=1
fi
make -s -C "$root" uninstall-bin DESTDIR="$dest" PG_CONFIG="$PG_CONFIG" >/dev/null
if [ -e "$dest/usr/local/bin/exwiw" ] || [ -L "$dest/usr/local/bin/exwiw" ] ||
	[ -L "$dest/usr/local/share/man/man1/exwiw.1" ]; then
	echo "not ok: uninstall-bin leaves a link"
	fail=1
else
	echo "ok: uninstall-bin removes both links"
fi
exit $fail
