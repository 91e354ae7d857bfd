#!/usr/bin/env bash
# test/t/debian_package.sh: Debian's packages of exwiw, as a user installs
# them (debian/: pg_buildext, debian/pgversions, debian/control.in).
#
# In a copy of the checkout: dpkg-buildpackage -us -uc -b; checks what the
# packages hold (postgresql-NN-exwiw: the extension and no client; exwiw:
# /usr/bin/exwiw, exwiw(1), the bash completion); installs them with dpkg;
# runs the README's demo against them (EXWIW_INSTALLED=1 test/demo: no
# build, the installed extension, exwiw from PATH); runs the package's
# autopkgtest, debian/tests/installcheck (pg_buildext installcheck: the
# pg_regress suite on a pg_virtualenv cluster); removes the packages again
# unless they were installed before.
#
# Only as root (dpkg) and against Debian's own server (test/run on Debian
# 12, PostgreSQL 15; with EXWIW_DEB_IN_ROOT=1, in the Debian 13 root of
# test/pgchroot, 17): a server built from source has no package to depend
# on.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "skip: debian_package: needs root (dpkg -i)"
	exit 77
fi
if [ "${PG_MAJOR:-}" != "$EXWIW_PG_DEBIAN" ]; then
	echo "skip: debian_package: PostgreSQL $PG_MAJOR is not Debian's packaged server ($EXWIW_PG_DEBIAN)"
	exit 77
fi
# In test/pgchroot's Debian 13 root it ran and passed (postgresql-17-exwiw);
# CI leaves it to the host, for time (5 to 7 minutes a server).
if [ -n "${EXWIW_CHROOT:-}" ] && [ "${EXWIW_DEB_IN_ROOT:-0}" != 1 ]; then
	echo "skip: debian_package: run on the host (EXWIW_DEB_IN_ROOT=1 runs it in the Debian $EXWIW_CHROOT root too)"
	exit 77
fi
exwiw_apt_install debhelper postgresql-server-dev-all libpq-dev libyaml-dev groff-base

fail=0
ok() { echo "ok: $*"; }
not_ok() {
	echo "not ok: $*"
	fail=1
}

work=$(mktemp -d /tmp/exwiw-deb.XXXXXX)
chmod 755 "$work"
installed_before=()
cleanup() {
	local p
	for p in exwiw "postgresql-$PG_MAJOR-exwiw"; do
		case " ${installed_before[*]} " in
			*" $p "*) ;;
			*) dpkg --purge "$p" >/dev/null 2>&1 || true ;;
		esac
	done
	if [ $fail -eq 0 ]; then
		# the demo leaves its files for a look: not here
		demo=$(sed -n 's/^The files stay in \(\/tmp\/exwiw-demo\.[A-Za-z0-9]*\)\/export;.*/\1/p' "$work/demo.log" 2>/dev/null)
		[ -z "$demo" ] || rm -rf "$demo"
		rm -rf "$work"
	fi
	return 0
}
trap cleanup EXIT

# 1. build, in a copy (no objects of the checkout's own builds)
mkdir "$work/exwiw"
tar -C "$root" --exclude=./.git --exclude='*.o' --exclude='*.so' --exclude='*.bc' \
	--exclude=./results --exclude=./output_iso --exclude=./regression.diffs --exclude=./regression.out \
	--exclude=./client/exwiw --exclude=./client/unit_test --exclude=./.build-stamp \
	-cf - . | tar -C "$work/exwiw" -xf -
version=$(cd "$work/exwiw" && dpkg-parsechangelog -S Version)
t0=$SECONDS
if (cd "$work/exwiw" && pg_buildext updatecontrol && dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1; then
	ok "dpkg-buildpackage -us -uc -b ($((SECONDS - t0)) s)"
else
	tail -n 60 "$work/build.log"
	not_ok "dpkg-buildpackage -us -uc -b (log: $work/build.log)"
	exit 1
fi
arch=$(dpkg --print-architecture)
ext_deb=$work/postgresql-$PG_MAJOR-exwiw_${version}_$arch.deb
cli_deb=$work/exwiw_${version}_$arch.deb

# 2. what they hold
upstream=$(sed -n "s/^default_version = '\(.*\)'$/\1/p" "$root/exwiw.control")
if [ "${version%-*}" = "$upstream" ]; then
	ok "debian/changelog's version $version is the extension's $upstream"
else
	not_ok "debian/changelog's version $version, exwiw.control's $upstream"
fi
ext_files=$(dpkg-deb -c "$ext_deb" | awk '{ print $NF }')
if grep -qx "./usr/lib/postgresql/$PG_MAJOR/lib/exwiw.so" <<<"$ext_files" &&
	grep -qx "./usr/share/postgresql/$PG_MAJOR/extension/exwiw.control" <<<"$ext_files" &&
	grep -qx "./usr/share/postgresql/$PG_MAJOR/extension/exwiw--$upstream.sql" <<<"$ext_files" &&
	! grep -q '/bin/' <<<"$ext_files"; then
	ok "postgresql-$PG_MAJOR-exwiw: the library and the extension's files, no client"
else
	not_ok "postgresql-$PG_MAJOR-exwiw holds: $ext_files"
fi
cli_files=$(dpkg-deb -c "$cli_deb" | awk '{ print $NF }')
if grep -qx './usr/bin/exwiw' <<<"$cli_files" &&
	grep -qx './usr/share/man/man1/exwiw.1.gz' <<<"$cli_files" &&
	grep -qx './usr/share/bash-completion/completions/exwiw' <<<"$cli_files"; then
	ok "exwiw: /usr/bin/exwiw, exwiw(1), the bash completion"
else
	not_ok "exwiw holds: $cli_files"
fi
if dpkg-deb -f "$ext_deb" Depends | grep -q "postgresql-$PG_MAJOR"; then
	ok "postgresql-$PG_MAJOR-exwiw depends on postgresql-$PG_MAJOR"
else
	not_ok "postgresql-$PG_MAJOR-exwiw's Depends: $(dpkg-deb -f "$ext_deb" Depends)"
fi

# 3. install: the packages are the machine's, so two runs of this test (two
# checkouts' suites at once) take turns from here until they are removed
# again (the lock is held until the script exits, after cleanup; the
# servers the demo and the autopkgtest start do not inherit it: 9>&-)
exec 9>/var/lock/exwiw-debian-package.lock
if ! flock -n 9; then
	echo "waiting for another run of debian_package to remove its packages"
	flock 9
fi
for p in exwiw "postgresql-$PG_MAJOR-exwiw"; do
	if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		installed_before+=("$p")
	fi
done
if dpkg -i "$ext_deb" "$cli_deb" >"$work/dpkg.log" 2>&1; then
	ok "dpkg -i"
else
	cat "$work/dpkg.log"
	not_ok "dpkg -i"
	exit 1
fi
if [ "$(command -v exwiw)" = /usr/bin/exwiw ] && [ "$(exwiw --version)" = "exwiw $upstream" ]; then
	ok "exwiw is on PATH: /usr/bin/exwiw, exwiw $upstream"
else
	not_ok "exwiw on PATH: '$(command -v exwiw || true)'"
fi
if ! command -v man >/dev/null; then
	# a machine without man-db (a fresh root, a container): what it would
	# find is checked in the package above
	echo "skip: man exwiw: man is not installed here"
elif [ "$(man -w exwiw 2>/dev/null)" = /usr/share/man/man1/exwiw.1.gz ]; then
	ok "man exwiw finds the manual page"
else
	not_ok "man -w exwiw: '$(man -w exwiw 2>&1 || true)'"
fi

# 4. the README's demo, against the installed packages
if EXWIW_INSTALLED=1 EXWIW_PORT=$((${PGPORT:-$(exwiw_port)} + 5)) bash "$root/test/demo" >"$work/demo.log" 2>&1 9>&- &&
	grep -q 'OK: the exwiw command wrote the same' "$work/demo.log" &&
	grep -q 'using the installed exwiw: /usr/bin/exwiw' "$work/demo.log"; then
	ok "test/demo against the installed packages"
else
	tail -n 40 "$work/demo.log"
	not_ok "test/demo against the installed packages (log: $work/demo.log)"
fi

# 5. the autopkgtest: pg_regress against the installed package, as
#    autopkgtest runs it, as a user who is not root (its pg_virtualenv
#    cluster listens on localhost, on PGPORT)
chown -R postgres: "$work/exwiw"
if (cd "$work/exwiw" && runuser -u postgres -- env PGPORT=$((${PGPORT:-$(exwiw_port)} + 6)) \
	debian/tests/installcheck) >"$work/installcheck.log" 2>&1 9>&-; then
	ok "debian/tests/installcheck: $(grep -cE '^(ok|test) .* \.\.\. ok|^ok [0-9]+ ' "$work/installcheck.log") pg_regress and isolation tests"
else
	tail -n 60 "$work/installcheck.log"
	not_ok "debian/tests/installcheck (log: $work/installcheck.log)"
fi
exit $fail
