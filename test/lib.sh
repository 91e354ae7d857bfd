#!/usr/bin/env bash
# test/lib.sh: shared shell helpers for exwiw's scripts (sourced, not run).
#
# exwiw_setup            install build/test dependencies with apt-get (root)
# exwiw_pg_select MAJOR  pick the server to build and test against: Debian's
#                        PostgreSQL 15 package, or a build from Debian's
#                        source package cached under $EXWIW_PG_CACHE (built
#                        on first use, see exwiw_pgbuild)
# exwiw_pgbuild MAJOR    build that server once per source version (test/pgbuild)
# exwiw_tmp_install DIR  build exwiw (the extension and the client) and
#                        install it into a private copy of PostgreSQL under
#                        DIR, the way "make check" does, so parallel
#                        checkouts never share an installed .so; the exwiw
#                        client lands in $EXWIW_BIN
# exwiw_use_installed    use the exwiw installed on the machine (Debian's
#                        packages) instead: no build; EXWIW_BIN is the
#                        server's bindir, exwiw is found on PATH
# exwiw_initdb DIR PORT [LISTEN [SHARED_BUFFERS]]  initdb a throwaway
#                        cluster's data directory (exwiw_cluster_start)
# exwiw_cluster_start DIR PORT   initdb + start a throwaway cluster as a
#                        non-root OS user; exports PGHOST/PGPORT/PGUSER
# exwiw_cluster_stop DIR stop it (also registered as an EXIT trap)

set -euo pipefail

EXWIW_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Debian 12 packages PostgreSQL 15 only; the other majors are built from
# Debian's source packages (deb-src of newer suites) into this cache, one
# directory per major, reused while the source version stays the same.
# On Debian 13 (trixie: the root that exwiw_chroot_make builds for
# PostgreSQL 17) Debian's own server is 17, and clang is 19.
EXWIW_DEBIAN_CODENAME=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release 2>/dev/null || true)
case $EXWIW_DEBIAN_CODENAME in
	trixie) EXWIW_PG_DEBIAN=17 EXWIW_CLANG=19 ;;
	*) EXWIW_PG_DEBIAN=15 EXWIW_CLANG=14 ;;
esac
EXWIW_PG_CACHE=${EXWIW_PG_CACHE:-/var/cache/exwiw}
# Majors built with --enable-cassert --enable-debug (the others: release);
# EXWIW_PG_CASSERT=" " builds every major as a release, for benchmarks (a
# build with assertions is no place to time anything).
EXWIW_PG_CASSERT=${EXWIW_PG_CASSERT:-" 18 "}
# The deb-src suites that hold postgresql-N source packages, and apt's
# files for them, private to the cache: a sources file and package lists of
# their own, which apt reads only where exwiw_apt_src passes them (deb-src
# only: no binary package of those suites), so that the machine's
# /etc/apt stays as it was.
EXWIW_PG_SRC_SUITES="trixie sid"
EXWIW_PG_SRC_DIR=$EXWIW_PG_CACHE/apt
EXWIW_PG_SRC_LIST=$EXWIW_PG_SRC_DIR/postgresql-src.sources
# what an earlier version wrote into the machine's apt sources
EXWIW_PG_SRC_OLD_LIST=/etc/apt/sources.list.d/exwiw-postgresql-src.sources
# exwiw_pgbuild's status when Debian has no source of that major to build
# (EX_UNAVAILABLE): test/matrix reports that server as skipped.
EXWIW_PG_UNAVAILABLE=69
# Majors tested with Debian's own binary packages in a root of a newer Debian
# release (MAJOR:SUITE), made with debootstrap and cached in $EXWIW_PG_CACHE
# (exwiw_chroot_make): Debian 12 serves no postgresql-17 source to build.
EXWIW_PG_CHROOT=" 17:trixie "
EXWIW_DEBIAN_MIRROR=${EXWIW_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# What building PostgreSQL from a release tarball needs (17+ tarballs ship
# no generated parser, hence bison and flex; configure --enable-tap-tests
# checks for Perl's IPC::Run).
EXWIW_PG_BUILD_PACKAGES="build-essential dpkg-dev bison flex pkg-config
  zlib1g-dev libxml2-dev libzstd-dev liblz4-dev libipc-run-perl"

# What test/pgindent needs to fetch PostgreSQL's source and build
# pg_bsd_indent from it (its parser is bison and flex output), and to run
# pgindent (perl).
EXWIW_PGINDENT_PACKAGES="dpkg-dev bison flex perl"

# What the build, every test (test/run, test/t/*.sh, t/*.pl) and the benchmarks
# need; test/run installs it, so that it passes on a fresh Debian 12.
# libipc-run-perl: the TAP tests (t/*.pl, PostgreSQL::Test::Cluster, which
# Debian ships in postgresql-client-N and postgresql-server-dev-N);
# libio-pty-perl: IPC::Run's pseudo terminals (the progress display, the
# password prompt: t/019_cli_progress.pl, t/021_cli_options.pl).
EXWIW_PACKAGES="postgresql-$EXWIW_PG_DEBIAN postgresql-server-dev-$EXWIW_PG_DEBIAN
  build-essential bc ruby ruby-bson ruby-pg libbson-dev clang libclang-rt-$EXWIW_CLANG-dev
  zlib1g-dev libzstd-dev zstd postgresql-$EXWIW_PG_DEBIAN-cron
  libpq-dev libyaml-dev time python3 $EXWIW_PGINDENT_PACKAGES
  debhelper postgresql-server-dev-all groff-base pkg-config libipc-run-perl libio-pty-perl git"

# The server to use: PG_MAJOR (default 15) until exwiw_pg_select says which
# installation; Debian's is known without a build.
PG_MAJOR=${PG_MAJOR:-$EXWIW_PG_DEBIAN}
PG_BASE=${PG_BASE:-}
PG_SHARE=${PG_SHARE:-}
if [ -z "$PG_BASE" ] && [ "$PG_MAJOR" = "$EXWIW_PG_DEBIAN" ]; then
	PG_BASE=/usr/lib/postgresql/$PG_MAJOR
	PG_SHARE=/usr/share/postgresql/$PG_MAJOR
fi

exwiw_log() { printf '==> %s\n' "$*" >&2; }

# A machine with no locale in the environment (a debian:12 container, a
# fresh debootstrap root: LANG unset) would give every cluster a test
# initdb's SQL_ASCII, which no test expects: the tests run under C.UTF-8,
# which every Debian libc has, unless the caller chose a locale.
if [ -z "${LC_ALL:-}" ] && [ -z "${LANG:-}" ] && [ -z "${LC_CTYPE:-}" ]; then
	export LANG=C.UTF-8
fi

# exwiw_apt_install PACKAGE...: install the packages that are missing.
# Skips apt-get when everything is there already; needs root (or sudo)
# otherwise.  Waits for another apt-get or dpkg to finish.
exwiw_apt_install() {
	local missing=()
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	exwiw_log "installing: ${missing[*]}"
	exwiw_sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq -o DPkg::Lock::Timeout=600
	exwiw_sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		-o DPkg::Lock::Timeout=600 "${missing[@]}" >/dev/null
}

# Install what the build, the tests and the benchmarks need.
exwiw_setup() {
	# shellcheck disable=SC2086
	exwiw_apt_install $EXWIW_PACKAGES
}

# Run a command as root: directly when we are root, else with sudo.
exwiw_sudo() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# exwiw_pg_select MAJOR: the server that the build and the tests use.  Sets
# and exports PG_MAJOR, PG_BASE (its installation: bin/, lib/), PG_SHARE (its
# share directory when it lies outside PG_BASE, as in Debian's packages;
# empty otherwise), PG_CONFIG, and puts PG_BASE/bin first in PATH so that
# psql, pg_dump and pg_config are that server's.  Builds the server on first
# use (exwiw_pgbuild).
exwiw_pg_select() {
	local major=$1
	case $major in
		"$EXWIW_PG_DEBIAN")
			PG_BASE=/usr/lib/postgresql/$major
			PG_SHARE=/usr/share/postgresql/$major
			;;
		1[0-9] | [2-9][0-9])
			exwiw_pgbuild "$major"
			PG_BASE=$(exwiw_pg_prefix "$major")
			PG_SHARE=
			;;
		*)
			exwiw_log "unknown PostgreSQL major version: '$major'"
			return 1
			;;
	esac
	PG_MAJOR=$major
	PG_CONFIG=$PG_BASE/bin/pg_config
	PATH=$PG_BASE/bin:$PATH
	export PG_MAJOR PG_BASE PG_SHARE PG_CONFIG PATH
	exwiw_log "server: $("$PG_CONFIG" --version) in $PG_BASE"
}

# exwiw_pg_prefix MAJOR: where the build of that major lives in the cache.
exwiw_pg_prefix() {
	case $EXWIW_PG_CASSERT in
		*" $1 "*) echo "$EXWIW_PG_CACHE/pg-$1-cassert" ;;
		*) echo "$EXWIW_PG_CACHE/pg-$1" ;;
	esac
}

# exwiw_pg_configure_flags MAJOR: configure's options for that major.  Only
# what the tests need: zlib (pg_dump), libxml (the xml type in the
# round-trip fixture), lz4 and zstd (cheap, and the server's defaults in
# Debian's packages), TAP tests (installs PostgreSQL::Test::Cluster into
# pgxs for t/*.pl; pg_isolation_regress is installed anyway); no ICU,
# readline, SSL, or contrib.
exwiw_pg_configure_flags() {
	local flags="--prefix=$(exwiw_pg_prefix "$1") --without-icu --without-readline"
	flags="$flags --with-libxml --with-lz4 --with-zstd --enable-tap-tests"
	case $EXWIW_PG_CASSERT in
		*" $1 "*) flags="$flags --enable-cassert --enable-debug" ;;
	esac
	echo "$flags"
}

# exwiw_apt_src ARGS...: apt-get ARGS with the private deb-src sources and
# lists only (EXWIW_PG_SRC_DIR).
exwiw_apt_src() {
	apt-get -o Dir::Etc::sourcelist="$EXWIW_PG_SRC_LIST" -o Dir::Etc::sourceparts=- \
		-o Dir::State::Lists="$EXWIW_PG_SRC_DIR/lists" \
		-o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= "$@"
}

# exwiw_pg_src_list: write the private deb-src file for EXWIW_PG_SRC_SUITES
# unless it is there already (and remove the one an earlier version wrote
# into /etc/apt).  Returns 1 when it was (re)written, so that the caller
# updates its package lists.
exwiw_pg_src_list() {
	local want
	if [ -f "$EXWIW_PG_SRC_OLD_LIST" ] && grep -q "Written by exwiw" "$EXWIW_PG_SRC_OLD_LIST"; then
		exwiw_log "removing $EXWIW_PG_SRC_OLD_LIST (an earlier exwiw wrote it; the lists are private now)"
		exwiw_sudo rm -f "$EXWIW_PG_SRC_OLD_LIST"
	fi
	want="# Written by exwiw's test/lib.sh (exwiw_pgbuild): Debian's source
# packages only (deb-src), to build newer PostgreSQL majors on Debian 12.
# Read by apt only through exwiw_apt_src; /etc/apt does not name it.
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $EXWIW_PG_SRC_SUITES
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg"
	if [ "$(cat "$EXWIW_PG_SRC_LIST" 2>/dev/null)" = "$want" ] && [ -d "$EXWIW_PG_SRC_DIR/lists/partial" ]; then
		return 0
	fi
	exwiw_log "writing $EXWIW_PG_SRC_LIST (deb-src $EXWIW_PG_SRC_SUITES)"
	exwiw_sudo mkdir -p "$EXWIW_PG_SRC_DIR/lists/partial"
	printf '%s\n' "$want" | exwiw_sudo tee "$EXWIW_PG_SRC_LIST" >/dev/null
	return 1
}

# exwiw_pg_src_update: refresh the private package lists (the system's are
# left as they are).
exwiw_pg_src_update() {
	exwiw_log "apt-get update (deb-src $EXWIW_PG_SRC_SUITES, lists in $EXWIW_PG_SRC_DIR)"
	exwiw_sudo mkdir -p "$EXWIW_PG_SRC_DIR/lists/partial"
	exwiw_sudo apt-get -o Dir::Etc::sourcelist="$EXWIW_PG_SRC_LIST" -o Dir::Etc::sourceparts=- \
		-o Dir::State::Lists="$EXWIW_PG_SRC_DIR/lists" -o APT::Sandbox::User=root \
		-o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= \
		update -qq -o DPkg::Lock::Timeout=600 -o APT::Get::List-Cleanup=0 >/dev/null
	exwiw_sudo chmod -R a+rX "$EXWIW_PG_SRC_DIR"
}

# exwiw_pg_src_version MAJOR: the version of the postgresql-MAJOR source
# package that "apt-get source" would fetch; empty when there is none.
exwiw_pg_src_version() {
	exwiw_apt_src source --print-uris -qq "postgresql-$1" 2>/dev/null |
		sed -n "s/^'[^']*' postgresql-$1_\(.*\)\.dsc .*/\1/p" | head -n 1
}

# exwiw_pgbuild MAJOR: make sure that $(exwiw_pg_prefix MAJOR) holds
# PostgreSQL MAJOR built from Debian's current postgresql-MAJOR source
# package, with $(exwiw_pg_configure_flags MAJOR).  A stamp file in the
# prefix records both; while they match, the build is reused and this takes
# a second.  Otherwise it downloads the source package, unpacks the upstream
# tarball without Debian's patches (they move the install directories and
# the socket directory for Debian's packaging), builds and installs it.
# Concurrent calls for one major wait for each other (flock).
exwiw_pgbuild() {
	local major=$1
	exwiw_sudo mkdir -p "$EXWIW_PG_CACHE"
	[ -w "$EXWIW_PG_CACHE" ] || exwiw_sudo chown "$(id -u):$(id -g)" "$EXWIW_PG_CACHE"
	(
		exec 9>"$EXWIW_PG_CACHE/.pg-$major.lock"
		if ! flock -n 9; then
			exwiw_log "waiting for another build of PostgreSQL $major"
			flock 9
		fi
		exwiw_pgbuild_locked "$major"
	)
}

# The body of exwiw_pgbuild, run under its lock.
exwiw_pgbuild_locked() {
	local major=$1 prefix flags version stamp work t0 jobs
	prefix=$(exwiw_pg_prefix "$major")
	flags=$(exwiw_pg_configure_flags "$major")

	version=
	exwiw_pg_src_list && version=$(exwiw_pg_src_version "$major")
	if [ -z "$version" ]; then
		exwiw_apt_install dpkg-dev
		exwiw_pg_src_update
		version=$(exwiw_pg_src_version "$major")
	fi
	if [ -z "$version" ]; then
		exwiw_log "no source package postgresql-$major in Debian's $EXWIW_PG_SRC_SUITES"
		return "$EXWIW_PG_UNAVAILABLE"
	fi
	stamp="postgresql-$major $version; configure $flags"
	if [ -x "$prefix/bin/postgres" ] && [ "$(cat "$prefix/.exwiw-build" 2>/dev/null)" = "$stamp" ]; then
		exwiw_log "PostgreSQL $major: reusing $prefix (postgresql-$major $version)"
		return 0
	fi

	exwiw_log "PostgreSQL $major: building postgresql-$major $version into $prefix"
	exwiw_log "  configure $flags"
	t0=$SECONDS
	# shellcheck disable=SC2086
	exwiw_apt_install $EXWIW_PG_BUILD_PACKAGES
	work=$(mktemp -d "/tmp/exwiw-pgbuild-$major.XXXXXX")
	chmod 755 "$work"
	exwiw_log "  apt-get source --download-only postgresql-$major=$version (in $work)"
	if ! (cd "$work" && exwiw_apt_src source --download-only -qq "postgresql-$major=$version" >"$work/source.log" 2>&1); then
		# The lists may name a version that the mirror no longer has.
		exwiw_pg_src_update
		version=$(exwiw_pg_src_version "$major")
		stamp="postgresql-$major $version; configure $flags"
		if ! (cd "$work" && exwiw_apt_src source --download-only -qq "postgresql-$major=$version" >"$work/source.log" 2>&1); then
			cat "$work/source.log" >&2
			if grep -q "404 *Not Found" "$work/source.log"; then
				# The index names it, but the mirror serves no such file.
				exwiw_log "Debian's mirror does not serve the source package postgresql-$major $version"
				rm -rf "$work"
				return "$EXWIW_PG_UNAVAILABLE"
			fi
			exwiw_log "cannot download the source package postgresql-$major $version"
			return 1
		fi
	fi
	(cd "$work" && dpkg-source --skip-patches -x "postgresql-${major}_$version.dsc" src >"$work/source.log" 2>&1) ||
		{ cat "$work/source.log" >&2; return 1; }
	exwiw_log "  configure, make, make install (logs in $work)"
	jobs=$(nproc)
	# shellcheck disable=SC2086
	(cd "$work/src" && ./configure $flags >"$work/configure.log" 2>&1) ||
		{ tail -n 40 "$work/configure.log" >&2; return 1; }
	make -C "$work/src" -s -j"$jobs" >"$work/make.log" 2>&1 ||
		{ tail -n 40 "$work/make.log" >&2; return 1; }
	rm -rf "$prefix"
	make -C "$work/src" -s install >"$work/install.log" 2>&1 ||
		{ tail -n 40 "$work/install.log" >&2; return 1; }
	chmod -R a+rX "$prefix"
	printf '%s\n' "$stamp" >"$prefix/.exwiw-build"
	rm -rf "$work"
	exwiw_log "PostgreSQL $major: built in $((SECONDS - t0)) s"
}

# The OS user that runs the server: ourselves, or "postgres" when we are root
# (PostgreSQL refuses to run as root).
exwiw_server_user() {
	if [ "$(id -u)" -eq 0 ]; then echo postgres; else id -un; fi
}

exwiw_as_server_user() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

# exwiw_build: build exwiw in the checkout against PG_BASE, with
# COPT=$EXWIW_COPT (test/run passes -Werror).  The objects of a build against
# another server, or with other flags, are cleaned first (.build-stamp).
exwiw_build() {
	local stamp="$PG_BASE/bin/pg_config COPT=${EXWIW_COPT:-}"
	if [ "$(cat "$EXWIW_ROOT/.build-stamp" 2>/dev/null)" != "$stamp" ]; then
		make -C "$EXWIW_ROOT" -s clean PG_CONFIG="$PG_BASE/bin/pg_config" >/dev/null
		printf '%s\n' "$stamp" >"$EXWIW_ROOT/.build-stamp"
	fi
	exwiw_log "building exwiw${EXWIW_COPT:+ (COPT=$EXWIW_COPT)}"
	make -C "$EXWIW_ROOT" -s -j2 PG_CONFIG="$PG_BASE/bin/pg_config" COPT="${EXWIW_COPT:-}" >/dev/null
}

# exwiw_tmp_install DIR: copy the PostgreSQL binaries into DIR (PostgreSQL
# finds its share and lib directories relative to its own binary) and
# "make install DESTDIR=DIR" on top of them.
exwiw_tmp_install() {
	local dir=$1
	mkdir -p "$dir"
	[ -n "${PG_BASE:-}" ] || exwiw_pg_select "$PG_MAJOR"
	if [ ! -x "$dir$PG_BASE/bin/postgres" ]; then
		mkdir -p "$dir$(dirname "$PG_BASE")"
		cp -a "$PG_BASE" "$dir$(dirname "$PG_BASE")/"
		if [ -n "$PG_SHARE" ]; then
			mkdir -p "$dir$(dirname "$PG_SHARE")"
			cp -a "$PG_SHARE" "$dir$(dirname "$PG_SHARE")/"
		fi
	fi
	exwiw_build
	make -C "$EXWIW_ROOT" -s install DESTDIR="$dir" PG_CONFIG="$PG_BASE/bin/pg_config" >/dev/null
	chmod -R a+rX "$dir"
	EXWIW_BIN="$dir$PG_BASE/bin"
	export EXWIW_BIN
}

# exwiw_use_installed: test the installed exwiw (the packages of
# test/t/debian_package.sh): the server's own binaries, the extension in
# its own directories, the exwiw command from PATH (/usr/bin/exwiw).
exwiw_use_installed() {
	[ -n "${PG_BASE:-}" ] || exwiw_pg_select "$PG_MAJOR"
	EXWIW_BIN="$PG_BASE/bin"
	export EXWIW_BIN
	if [ ! -f "$("$PG_BASE/bin/pg_config" --sharedir)/extension/exwiw.control" ]; then
		exwiw_log "exwiw is not installed for PostgreSQL $PG_MAJOR"
		return 1
	fi
	command -v exwiw >/dev/null || { exwiw_log "no exwiw command on PATH"; return 1; }
	exwiw_log "using the installed exwiw: $(command -v exwiw), $("$PG_BASE/bin/pg_config" --sharedir)/extension"
}

# exwiw_initdb DIR PORT [LISTEN [SHARED_BUFFERS]]: initdb DIR/data as the
# server's OS user, for a throwaway cluster listening on the socket
# directory DIR/sock and on LISTEN (default none), durability off.
exwiw_initdb() {
	local dir=$1 port=$2 listen=${3:-} shared_buffers=${4:-256MB}
	local data=$dir/data sock=$dir/sock
	mkdir -p "$sock"
	if [ "$(id -u)" -eq 0 ]; then chown postgres: "$dir" "$sock"; fi
	chmod 755 "$dir"
	exwiw_as_server_user "$EXWIW_BIN/initdb" -D "$data" -U postgres -A trust \
		--no-sync -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
		{ cat "$dir/initdb.log"; return 1; }
	cat >>"$data/postgresql.conf" <<CONF
listen_addresses = '$listen'
unix_socket_directories = '$sock'
port = $port
fsync = off
synchronous_commit = off
full_page_writes = off
shared_buffers = $shared_buffers
max_wal_size = 4GB
logging_collector = off
CONF
}

# exwiw_cluster_start DIR PORT [postgres -c options...]
exwiw_cluster_start() {
	local dir=$1 port=$2
	shift 2
	local data=$dir/data sock=$dir/sock
	exwiw_initdb "$dir" "$port" || return 1
	local opt
	for opt in "$@"; do echo "$opt" >>"$data/postgresql.conf"; done
	# -c: a crashing backend may leave a core file (see exwiw_check_server)
	exwiw_as_server_user "$EXWIW_BIN/pg_ctl" -D "$data" -l "$dir/server.log" -c -w -t 60 start >/dev/null ||
		{ cat "$dir/server.log"; return 1; }
	export PGHOST=$sock PGPORT=$port PGUSER=postgres PGDATABASE=postgres
	EXWIW_CLUSTER_DIR=$dir
	trap 'exwiw_cluster_stop' EXIT
}

exwiw_cluster_stop() {
	if [ -n "${EXWIW_CLUSTER_DIR:-}" ] && [ -d "$EXWIW_CLUSTER_DIR/data" ]; then
		exwiw_as_server_user "$EXWIW_BIN/pg_ctl" -D "$EXWIW_CLUSTER_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
	fi
}

# exwiw_check_server DIR: did the server of the cluster in DIR fail an
# assertion or crash?  Prints every "TRAP:" (a failed Assert of a cassert
# build, with the backtrace the server logs after it), every backend
# "terminated by signal", and a gdb backtrace of each core file left in the
# data directory.  Returns 1 when it found any.
exwiw_check_server() {
	local dir=$1 found=0 core
	if grep -qE '^TRAP: |terminated by signal' "$dir/server.log" 2>/dev/null; then
		found=1
		echo "==> $dir/server.log: assertion failures / crashes"
		grep -E -A 30 '^TRAP: |terminated by signal' "$dir/server.log" | head -n 400
	fi
	for core in "$dir"/data/core*; do
		[ -f "$core" ] || continue
		found=1
		echo "==> core file $core"
		exwiw_apt_install gdb
		gdb -q -batch -ex "bt full" "$EXWIW_BIN/postgres" "$core" 2>&1 | head -n 200 || true
	done
	[ $found -eq 0 ]
}

# A free-ish port: honour EXWIW_PORT, else derive one from the checkout path
# so parallel checkouts on one machine do not collide.
exwiw_port() {
	if [ -n "${EXWIW_PORT:-}" ]; then echo "$EXWIW_PORT"; return; fi
	echo $((54000 + $(printf '%s' "$EXWIW_ROOT" | cksum | cut -d' ' -f1) % 900))
}

# exwiw_chroot_suite MAJOR: the Debian suite whose root tests that major
# (EXWIW_PG_CHROOT); empty when it is tested on this machine.
exwiw_chroot_suite() {
	local entry
	for entry in $EXWIW_PG_CHROOT; do
		[ "${entry%%:*}" = "$1" ] && { echo "${entry#*:}"; return 0; }
	done
	return 0
}

# exwiw_chroot_dir MAJOR: where that major's Debian root lives in the cache.
exwiw_chroot_dir() {
	echo "$EXWIW_PG_CACHE/$(exwiw_chroot_suite "$1")-pg$1"
}

# exwiw_chroot_make MAJOR: make sure that $(exwiw_chroot_dir MAJOR) holds a
# Debian root of the major's suite ("debootstrap --variant=minbase") with
# EXWIW_PACKAGES, as lib.sh computes them inside it, installed from Debian's
# packages.  A stamp in the root records the suite and the packages; while
# it matches, the root is reused and this takes a second; when only the
# packages changed, the missing ones are installed into it.  Concurrent
# calls for one root wait for each other (flock).
exwiw_chroot_make() {
	local major=$1
	exwiw_sudo mkdir -p "$EXWIW_PG_CACHE"
	(
		exec 9>"$EXWIW_PG_CACHE/.$(basename "$(exwiw_chroot_dir "$major")").lock"
		if ! flock -n 9; then
			exwiw_log "waiting for another run that makes the PostgreSQL $major root"
			flock 9
		fi
		exwiw_chroot_make_locked "$major"
	)
}

# The body of exwiw_chroot_make, run under its lock.
exwiw_chroot_make_locked() {
	local major=$1 suite root stamp packages t0
	suite=$(exwiw_chroot_suite "$major")
	root=$(exwiw_chroot_dir "$major")
	t0=$SECONDS
	if [ ! -f "$root/.exwiw-debootstrap" ]; then
		exwiw_log "PostgreSQL $major: debootstrap --variant=minbase $suite $root"
		exwiw_debootstrap "$suite" "$root" || return 1
		# no cluster is made by the packages
		exwiw_sudo mkdir -p "$root/etc/postgresql-common"
		echo "create_main_cluster = false" | exwiw_sudo tee "$root/etc/postgresql-common/createcluster.conf" >/dev/null
		exwiw_sudo touch "$root/.exwiw-debootstrap"
		exwiw_log "PostgreSQL $major: debootstrap took $((SECONDS - t0)) s"
	fi
	packages=$(exwiw_chroot_run "$major" bash -c 'source test/lib.sh; echo $EXWIW_PACKAGES')
	stamp="debootstrap --variant=minbase $suite; "$(echo $packages)
	if [ "$(cat "$root/.exwiw-root" 2>/dev/null)" = "$stamp" ]; then
		exwiw_log "PostgreSQL $major: reusing the $suite root $root"
		return 0
	fi
	exwiw_log "PostgreSQL $major: installing into the $suite root: $(echo $packages)"
	# shellcheck disable=SC2086
	exwiw_chroot_run "$major" env DEBIAN_FRONTEND=noninteractive bash -c \
		'apt-get update -qq && apt-get install -y -qq --no-install-recommends -o Dpkg::Options::=--force-confold "$@" && apt-get clean' \
		- $packages >"$EXWIW_PG_CACHE/.apt-$suite-pg$major.log" 2>&1 ||
		{ tail -n 40 "$EXWIW_PG_CACHE/.apt-$suite-pg$major.log" >&2; return 1; }
	printf '%s\n' "$stamp" | exwiw_sudo tee "$root/.exwiw-root" >/dev/null
	exwiw_log "PostgreSQL $major: $suite root ready in $((SECONDS - t0)) s"
}

# exwiw_debootstrap SUITE DIR: a new Debian root of SUITE in DIR (what was
# there is removed), "debootstrap --variant=minbase" from
# EXWIW_DEBIAN_MIRROR, the package set of Debian's container images; as in
# them, no service starts in the root (policy-rc.d), and apt trusts an
# index whatever the clock says, as on this machine.  The log goes to
# $EXWIW_PG_CACHE/.debootstrap-SUITE.log.
exwiw_debootstrap() {
	local suite=$1 root=$2 log=$EXWIW_PG_CACHE/.debootstrap-$1.log
	exwiw_apt_install debootstrap
	exwiw_sudo rm -rf "$root"
	exwiw_sudo debootstrap --variant=minbase "$suite" "$root" "$EXWIW_DEBIAN_MIRROR" >"$log" 2>&1 ||
		{ tail -n 40 "$log" >&2; return 1; }
	printf '#!/bin/sh\nexit 101\n' | exwiw_sudo tee "$root/usr/sbin/policy-rc.d" >/dev/null
	exwiw_sudo chmod 755 "$root/usr/sbin/policy-rc.d"
	printf 'Acquire::Check-Valid-Until "false";\nAcquire::Check-Date "false";\n' |
		exwiw_sudo tee "$root/etc/apt/apt.conf.d/99exwiw" >/dev/null
}

# exwiw_root_exec ROOT SRC COMMAND...: run COMMAND as root in the Debian
# root ROOT (chroot), with /proc, /sys and /dev mounted, and the directory
# SRC bind-mounted at the same path unless SRC is empty.  The mounts live in
# a private mount namespace and the processes in a pid namespace of their
# own (unshare), so that the mounts vanish and every process started in
# the root (a server a failed test left running) is killed when COMMAND
# ends, however it ends: the host never keeps a mount or a process of the
# root, and concurrent runs never see each other's.  COMMAND runs with the
# environment it is given: wrap it in "env -i ..." for a clean one.
exwiw_root_exec() {
	local root=$1 src=$2
	shift 2
	exwiw_sudo unshare --mount --propagation private --pid --fork --kill-child -- bash -c '
		set -e
		root=$1 src=$2
		shift 2
		mount -t proc proc "$root/proc"
		mount -t sysfs sysfs "$root/sys"
		mount --rbind /dev "$root/dev"
		if [ -n "$src" ]; then
			mkdir -p "$root$src"
			mount --bind "$src" "$root$src"
		fi
		cd /
		# not exec: this shell stays the namespace'"'"'s init, which reaps
		# orphans; when it ends, the kernel kills what is left
		rc=0
		chroot "$root" "$@" || rc=$?
		exit $rc' - "$root" "$src" "$@"
}

# exwiw_chroot_run MAJOR COMMAND...: run COMMAND as root in that major's
# Debian root, in this checkout (bind-mounted at the same path), with /proc,
# /sys and /dev mounted (exwiw_root_exec).  Passes on EXWIW_PORT, EXWIW_COPT
# and EXWIW_DEB_IN_ROOT, and sets EXWIW_CHROOT to the root's suite.
exwiw_chroot_run() {
	local major=$1
	shift
	exwiw_root_exec "$(exwiw_chroot_dir "$major")" "$EXWIW_ROOT" \
		env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 EXWIW_CHROOT="$(exwiw_chroot_suite "$major")" \
		${EXWIW_PORT:+EXWIW_PORT=$EXWIW_PORT} ${EXWIW_DEB_IN_ROOT:+EXWIW_DEB_IN_ROOT=$EXWIW_DEB_IN_ROOT} \
		${EXWIW_COPT+EXWIW_COPT=$EXWIW_COPT} \
		bash -c 'cd "$1" && shift && exec "$@"' - "$EXWIW_ROOT" "$@"
}
