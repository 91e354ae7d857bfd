#!/usr/bin/env bash
# test/lib.sh: shared shell helpers for exwiw's scripts (sourced, not run).
#
# exwiw_setup            install build/test dependencies with apt-get (root)
# exwiw_tmp_install DIR  build exwiw (the extension and the client) and
#                        install it into a private copy of PostgreSQL under
#                        DIR, the way "make check" does, so parallel
#                        checkouts never share an installed .so; the exwiw
#                        client lands in $EXWIW_BIN
# exwiw_cluster_start DIR PORT   initdb + start a throwaway cluster as a
#                        non-root OS user; exports PGHOST/PGPORT/PGUSER
# exwiw_cluster_stop DIR stop it (also registered as an EXIT trap)

set -euo pipefail

EXWIW_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PG_MAJOR=${PG_MAJOR:-15}
PG_BASE=/usr/lib/postgresql/$PG_MAJOR
PG_SHARE=/usr/share/postgresql/$PG_MAJOR

EXWIW_PACKAGES="postgresql-$PG_MAJOR postgresql-server-dev-$PG_MAJOR
  build-essential bc ruby ruby-bson ruby-pg libbson-dev clang libclang-rt-14-dev
  libpq-dev libyaml-dev tmux time"

exwiw_log() { printf '==> %s\n' "$*" >&2; }

# Install what the build, the tests and the benchmarks need.  Skips apt-get
# when everything is there already; needs root (or sudo) otherwise.
exwiw_setup() {
	local missing=()
	local p
	for p in $EXWIW_PACKAGES; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	exwiw_log "installing: ${missing[*]}"
	local sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
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

# exwiw_tmp_install DIR: copy the PostgreSQL binaries into DIR (PostgreSQL
# finds its share and lib directories relative to its own binary) and
# "make install DESTDIR=DIR" on top of them.
exwiw_tmp_install() {
	local dir=$1
	mkdir -p "$dir"
	if [ ! -x "$dir$PG_BASE/bin/postgres" ]; then
		mkdir -p "$dir$(dirname "$PG_BASE")" "$dir$(dirname "$PG_SHARE")"
		cp -a "$PG_BASE" "$dir$(dirname "$PG_BASE")/"
		cp -a "$PG_SHARE" "$dir$(dirname "$PG_SHARE")/"
	fi
	exwiw_log "building exwiw"
	make -C "$EXWIW_ROOT" -s -j2 PG_CONFIG="$PG_BASE/bin/pg_config" >/dev/null
	make -C "$EXWIW_ROOT" -s install DESTDIR="$dir" PG_CONFIG="$PG_BASE/bin/pg_config" >/dev/null
	chmod -R a+rX "$dir"
	EXWIW_BIN="$dir$PG_BASE/bin"
	export EXWIW_BIN
}

# exwiw_cluster_start DIR PORT [postgres -c options...]
exwiw_cluster_start() {
	local dir=$1 port=$2
	shift 2
	local data=$dir/data sock=$dir/sock
	mkdir -p "$sock"
	if [ "$(id -u)" -eq 0 ]; then chown postgres: "$dir" "$sock"; fi
	chmod 755 "$dir"
	exwiw_as_server_user "$EXWIW_BIN/initdb" -D "$data" -U postgres -A trust \
		--no-sync -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
		{ cat "$dir/initdb.log"; return 1; }
	cat >>"$data/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$sock'
port = $port
fsync = off
synchronous_commit = off
full_page_writes = off
shared_buffers = 256MB
max_wal_size = 4GB
logging_collector = off
CONF
	local opt
	for opt in "$@"; do echo "$opt" >>"$data/postgresql.conf"; done
	exwiw_as_server_user "$EXWIW_BIN/pg_ctl" -D "$data" -l "$dir/server.log" -w -t 60 start >/dev/null ||
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

# A free-ish port: honour EXWIW_PORT, else derive one from the checkout path
# so parallel checkouts on one machine do not collide.
exwiw_port() {
	if [ -n "${EXWIW_PORT:-}" ]; then echo "$EXWIW_PORT"; return; fi
	echo $((54000 + $(printf '%s' "$EXWIW_ROOT" | cksum | cut -d' ' -f1) % 900))
}
