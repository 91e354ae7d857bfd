#!/usr/bin/env bash
# test/citus/lib.sh: helpers of the Citus tests and bench/citus.sh (sourced).
#
# Citus is AGPL and a test dependency only: nothing of it is in this
# repository.  Its source tarball is looked for in ../shared/vendor/citus
# (next to the checkout, as CI clones it; EXWIW_CITUS_SRC overrides), built
# once per machine into a cache, and copied into the private PostgreSQL
# copy that exwiw_tmp_install makes.
#
# citus_unavailable      prints why the Citus tests cannot run (and returns 0),
#                        or prints nothing and returns 1 when they can
# citus_build            build Citus into the cache unless it is there; sets
#                        CITUS_STAGE (a DESTDIR tree: usr/lib/postgresql/15/...)
# citus_tmp_install DIR  exwiw_tmp_install DIR, plus Citus copied on top
# citus_cluster_start WORK PORT
#                        a coordinator (PORT) and two workers (PORT+1, PORT+2)
#                        with Citus, and a plain single node (PORT+3) without
#                        it, all as the server user on 127.0.0.1; exwiw
#                        created in database "postgres" of each; the stop
#                        is registered as an EXIT trap
# cq / w1 / w2 / pq ARGS psql -X on the coordinator / worker 1 / worker 2 /
#                        the plain node (database postgres unless -d)
# citus_load_shop SHOPS [ORDERS]  the shop schema and data on both sides
# citus_ok / citus_not_ok / citus_todo / citus_note / citus_same /
# citus_same_export      the tests' result lines (see test/citus/run)
# citus_export_files DIR PORT CONFIG-SQL [IDS] [FORMAT]  one export, as files
# citus_config NAME      the SQL of config-NAME.json (NULL for "catalog")

source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

CITUS_VERSION=13.2.2
CITUS_SRC=${EXWIW_CITUS_SRC:-$(cd "$EXWIW_ROOT/.." && pwd)/shared/vendor/citus}
CITUS_TARBALL=$CITUS_SRC/citus-$CITUS_VERSION.tar.gz
CITUS_PATCH=$CITUS_SRC/pg15-minor.patch
CITUS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# build dependencies beyond exwiw's (libkrb5-dev: gssapi/gssapi.h, which
# PostgreSQL's libpq-be.h includes)
CITUS_PACKAGES="liblz4-dev libzstd-dev libkrb5-dev"

citus_unavailable() {
	if [ ! -f "$CITUS_TARBALL" ]; then
		echo "no Citus source: $CITUS_TARBALL does not exist (set EXWIW_CITUS_SRC to the directory holding citus-$CITUS_VERSION.tar.gz)"
		return 0
	fi
	if [ "$PG_MAJOR" != 15 ]; then
		echo "the Citus tests are written for PostgreSQL 15 (PG_MAJOR=$PG_MAJOR)"
		return 0
	fi
	if [ "$(id -u)" -ne 0 ] && ! sudo -n true 2>/dev/null; then
		local p
		for p in $CITUS_PACKAGES; do
			dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
				{ echo "$p is not installed and there is no root or sudo to install it"; return 0; }
		done
	fi
	return 1
}

# The cache: one directory per (tarball, patch, PostgreSQL build).  The
# key is the tarball's and the patch's checksums and pg_config's version
# line (e.g. "PostgreSQL 15.20 (Debian 15.20-0+deb12u1)"): a new minor
# release of the server headers rebuilds Citus.
citus_cache_dir() {
	local base=${EXWIW_CITUS_CACHE:-/var/cache/exwiw}
	if ! mkdir -p "$base" 2>/dev/null || [ ! -w "$base" ]; then
		base=${XDG_CACHE_HOME:-$HOME/.cache}/exwiw
		mkdir -p "$base"
	fi
	local key
	key=$({
		sha256sum "$CITUS_TARBALL" | cut -d' ' -f1
		[ -f "$CITUS_PATCH" ] && sha256sum "$CITUS_PATCH" | cut -d' ' -f1
		"$PG_BASE/bin/pg_config" --version
	} | sha256sum | cut -c1-12)
	echo "$base/citus-$CITUS_VERSION-pg$PG_MAJOR-$key"
}

citus_build() {
	local cache
	cache=$(citus_cache_dir)
	CITUS_STAGE=$cache/stage
	export CITUS_STAGE
	[ -f "$cache/ok" ] && return 0
	local sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	local p missing=()
	for p in $CITUS_PACKAGES; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		exwiw_log "installing: ${missing[*]}"
		$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	fi
	# one build at a time per machine; the others wait and then use it
	exec {lockfd}>"$(dirname "$cache")/.citus-build.lock"
	flock "$lockfd"
	if [ ! -f "$cache/ok" ]; then
		exwiw_log "building Citus $CITUS_VERSION into $cache (once per machine, about 2 minutes)"
		local build t0=$SECONDS
		build=$(mktemp -d /tmp/exwiw-citus-build.XXXXXX)
		rm -rf "$cache"
		(
			set -e
			cd "$build"
			tar xzf "$CITUS_TARBALL"
			cd "citus-$CITUS_VERSION"
			[ -f "$CITUS_PATCH" ] && patch -s -p1 <"$CITUS_PATCH"
			./configure -q --without-libcurl PG_CONFIG="$PG_BASE/bin/pg_config" >"$build/configure.log" 2>&1
			make -s -j2 >"$build/make.log" 2>&1
			make -s install-extension DESTDIR="$cache/stage" >>"$build/make.log" 2>&1
		) || {
			tail -n 40 "$build"/*.log
			rm -rf "$cache"
			flock -u "$lockfd"
			echo "Citus build failed (log in $build)" >&2
			return 1
		}
		rm -rf "$build"
		echo "built in $((SECONDS - t0)) s" >"$cache/ok"
		exwiw_log "Citus built in $((SECONDS - t0)) s"
	fi
	flock -u "$lockfd"
	exec {lockfd}>&-
}

citus_tmp_install() {
	local dir=$1
	citus_build
	exwiw_tmp_install "$dir"
	cp -a "$CITUS_STAGE/." "$dir/"
	chmod -R a+rX "$dir"
}

# citus_node_start DIR PORT WITH_CITUS(0|1): initdb and start one node,
# listening on 127.0.0.1 (Citus nodes connect to each other over TCP;
# initdb -A trust trusts 127.0.0.1) and on a socket in DIR/sock.
citus_node_start() {
	local dir=$1 port=$2 with_citus=$3
	local data=$dir/data
	exwiw_initdb "$dir" "$port" 127.0.0.1 "${CITUS_SHARED_BUFFERS:-256MB}" || return 1
	cat >>"$data/postgresql.conf" <<CONF
jit = off
max_prepared_transactions = 200
CONF
	if [ "$with_citus" = 1 ]; then
		cat >>"$data/postgresql.conf" <<CONF
shared_preload_libraries = 'citus'
citus.node_conninfo = 'sslmode=disable'
CONF
	fi
	local opt
	for opt in "${CITUS_EXTRA_CONF[@]}"; do echo "$opt" >>"$data/postgresql.conf"; done
	# Our ports lie in the kernel's ephemeral range (32768-60999): a
	# client socket of anyone on this machine may hold one for a while
	local try
	for try in 1 2 3 4 5 6; do
		exwiw_as_server_user "$EXWIW_BIN/pg_ctl" -D "$data" -l "$dir/server.log" -w -t 60 start >/dev/null 2>&1 && break
		if [ $try -lt 6 ] && grep -q "Address already in use" "$dir/server.log"; then
			exwiw_log "port $port is busy, retrying"
			sleep 5
			continue
		fi
		cat "$dir/server.log"
		return 1
	done
	CITUS_NODE_DIRS+=("$dir")
}

citus_cluster_stop() {
	local d
	for d in "${CITUS_NODE_DIRS[@]}"; do
		[ -d "$d/data" ] && exwiw_as_server_user "$EXWIW_BIN/pg_ctl" -D "$d/data" -m fast -w stop >/dev/null 2>&1 || true
	done
	CITUS_NODE_DIRS=()
}

citus_cluster_start() {
	local work=$1 port=$2
	CITUS_NODE_DIRS=()
	trap 'citus_cluster_stop' EXIT
	CITUS_COORD_PORT=$port
	CITUS_W1_PORT=$((port + 1))
	CITUS_W2_PORT=$((port + 2))
	CITUS_PLAIN_PORT=$((port + 3))
	export CITUS_COORD_PORT CITUS_W1_PORT CITUS_W2_PORT CITUS_PLAIN_PORT
	exwiw_log "starting a coordinator ($port), two workers ($((port + 1)), $((port + 2))) and a plain node ($((port + 3)))"
	citus_node_start "$work/coord" "$CITUS_COORD_PORT" 1
	citus_node_start "$work/w1" "$CITUS_W1_PORT" 1
	citus_node_start "$work/w2" "$CITUS_W2_PORT" 1
	citus_node_start "$work/plain" "$CITUS_PLAIN_PORT" 0
	export PGHOST=127.0.0.1 PGUSER=postgres PGDATABASE=postgres
	local p
	for p in "$CITUS_W1_PORT" "$CITUS_W2_PORT" "$CITUS_COORD_PORT"; do
		psql -X -q -v ON_ERROR_STOP=1 -p "$p" -c "CREATE EXTENSION citus" >/dev/null
	done
	cq -q -v ON_ERROR_STOP=1 >/dev/null <<SQL
SELECT citus_set_coordinator_host('127.0.0.1', $CITUS_COORD_PORT);
SELECT citus_add_node('127.0.0.1', $CITUS_W1_PORT);
SELECT citus_add_node('127.0.0.1', $CITUS_W2_PORT);
CREATE EXTENSION exwiw;
SQL
	pq -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION exwiw" >/dev/null
}

cq() { psql -X -h 127.0.0.1 -p "$CITUS_COORD_PORT" "$@"; }
w1() { psql -X -h 127.0.0.1 -p "$CITUS_W1_PORT" "$@"; }
w2() { psql -X -h 127.0.0.1 -p "$CITUS_W2_PORT" "$@"; }
pq() { psql -X -h 127.0.0.1 -p "$CITUS_PLAIN_PORT" "$@"; }

# citus_load_shop SHOPS [ORDERS_PER_SHOP]: the shop schema (schema.sql,
# foreign_keys.sql) on the coordinator, distributed by distribute.sql in
# between, and on the plain node; then the same data (data.sql) into both,
# through the coordinator on Citus.
citus_load_shop() {
	local shops=${1:-100} orders=${2:-20}
	cq -q -v ON_ERROR_STOP=1 -f "$CITUS_DIR/schema.sql" -f "$CITUS_DIR/distribute.sql" \
		-f "$CITUS_DIR/foreign_keys.sql" >/dev/null
	pq -q -v ON_ERROR_STOP=1 -f "$CITUS_DIR/schema.sql" -f "$CITUS_DIR/foreign_keys.sql" >/dev/null
	cq -q -v ON_ERROR_STOP=1 -v shops="$shops" -v orders="$orders" -f "$CITUS_DIR/data.sql" >/dev/null
	pq -q -v ON_ERROR_STOP=1 -v shops="$shops" -v orders="$orders" -f "$CITUS_DIR/data.sql" >/dev/null
}

# TAP-like result lines (see run): citus_ok DESC, citus_not_ok DESC,
# citus_todo DESC REASON (a known limitation: printed, not a failure), and
# citus_same FILE1 FILE2 DESC (ok when byte-identical; else prints a diff)
citus_ok() { echo "ok - $*"; }
citus_not_ok() { echo "not ok - $*"; }
citus_todo() { echo "not ok - $1 # TODO $2"; }
citus_note() { echo "# $*"; }
citus_same() {
	if diff -r -q "$1" "$2" >/dev/null 2>&1; then
		citus_ok "$3"
	else
		citus_not_ok "$3"
		diff -r "$1" "$2" | head -20 | sed 's/^/#   /' || true
	fi
}

# citus_same_export DIR1 DIR2 DESC: like citus_same for two exports; when
# they differ only in the order of lines within files without an ORDER BY
# (tables with no primary_key in the config), a TODO naming those files
citus_same_export() {
	if diff -r -q "$1" "$2" >/dev/null 2>&1; then
		citus_ok "$3"
		return
	fi
	local f differ=() unordered=()
	for f in $( (ls "$1"; ls "$2") | sort -u); do
		cmp -s "$1/$f" "$2/$f" && continue
		# an INSERT's rows end with "," but its last with ";"
		if [ -f "$1/$f" ] && [ -f "$2/$f" ] &&
			cmp -s <(sed 's/[,;]$//' "$1/$f" | sort) <(sed 's/[,;]$//' "$2/$f" | sort); then
			unordered+=("$f")
		else
			differ+=("$f")
		fi
	done
	if [ ${#differ[@]} -eq 0 ]; then
		citus_todo "$3" "same rows but another order in ${unordered[*]}: a table with no primary_key gets no ORDER BY, and a multi-shard read returns the shards' rows in completion order"
	else
		citus_not_ok "$3 (differ: ${differ[*]})"
		diff -r "$1" "$2" | head -20 | sed 's/^/#   /' || true
	fi
}

# citus_export_files DIR PORT CONFIG-SQL [TARGET-IDS] [FORMAT]: exwiw_export
# of shops TARGET-IDS (default {7}) on the node at PORT into DIR, written
# like test/subset/lib.sh's subset_write_files
citus_export_files() {
	local dir=$1 port=$2 cfg=$3 ids=${4:-"{7}"} format=${5:-insert}
	rm -rf "$dir"
	source "$EXWIW_ROOT/test/subset/lib.sh"
	subset_write_files "$dir" -h 127.0.0.1 -p "$port" -c "SET client_min_messages = warning" \
		-c "SET search_path = shop, public" \
		-c "SELECT (e).file_name, (e).chunk FROM (SELECT exwiw_export('shops', '$ids', $cfg, '$format', allow_undecided => true) AS e) s"
}

# citus_config NAME: the SQL of config NAME (test/citus/config-NAME.json),
# or NULL (exwiw_config_from_catalog()) for "catalog"
citus_config() {
	if [ "$1" = catalog ]; then
		echo NULL
	else
		echo "'$(cat "$CITUS_DIR/config-$1.json")'::jsonb"
	fi
}
