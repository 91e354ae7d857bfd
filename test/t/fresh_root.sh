#!/usr/bin/env bash
# test/t/fresh_root.sh: the README's two commands, as printed, on a fresh
# Debian 12 machine, as a newcomer runs them (issue 38).
#
# A new Debian 12 root (debootstrap --variant=minbase bookworm, the package
# set of the debian:12 container image, with its apt sources and its
# policy-rc.d; made once and kept as a tarball in $EXWIW_PG_CACHE, a new
# copy of it per run), entered with chroot and no environment but PATH and
# HOME (LANG unset, no LC_*, no EXWIW_*), as in a container.  In it:
#
#   - as root: "apt-get update && apt-get install -y git", the one package
#     a newcomer installs before the clone; "git clone" of this checkout's
#     HEAD into /root/exwiw (/root is 0700); then, in the clone, the
#     README's two commands as printed (the lines of its first fenced
#     block that start with test/demo and test/run, without their
#     "# comment"): test/demo must pass, test/run must end with
#     "N passed, 0 failed" (its tests of ../shared/data skip: no such
#     directory beside the clone);
#   - as a user with a home directory, not root: the clone in its home,
#     then test/demo.
#
# The packages the commands install are downloaded once: the .deb files
# are kept in $EXWIW_PG_CACHE/fresh-bookworm-debs between runs and put in
# the new root's apt cache (apt still installs every one of them).  The
# mounts (/proc, /sys, /dev) and every process of the root end with it
# (exwiw_root_exec); the root is removed when everything passed, kept for a
# look otherwise.
#
# Runs only where test/matrix (CI) asks for it (EXWIW_FRESH_ROOT=1), once,
# in the run of Debian's own server, as root, and not inside a root of its
# own; it takes about as long as test/run itself (test/README.md has its
# times).  EXWIW_FRESH_PORT=N passes EXWIW_PORT=N to the commands, for a
# machine where other suites run at once (not as printed, then).
#
#   EXWIW_FRESH_ROOT=1 bash test/t/fresh_root.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/lib.sh"

suite=bookworm
if [ -n "${EXWIW_CHROOT:-}" ]; then
	echo "skip: fresh_root: run on the host, not in the Debian $EXWIW_CHROOT root"
	exit 77
fi
if [ "${EXWIW_FRESH_ROOT:-0}" != 1 ]; then
	echo "skip: fresh_root: the README's commands in a fresh Debian 12 root take as long as test/run; test/matrix runs them (EXWIW_FRESH_ROOT=1)"
	exit 77
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "skip: fresh_root: needs root (debootstrap, chroot, mount)"
	exit 77
fi
if [ "${PG_MAJOR:-$EXWIW_PG_DEBIAN}" != "$EXWIW_PG_DEBIAN" ]; then
	echo "skip: fresh_root: runs once, in the run of Debian's PostgreSQL $EXWIW_PG_DEBIAN, not $PG_MAJOR's"
	exit 77
fi
if ! exwiw_apt_install debootstrap >/dev/null 2>&1 || ! command -v debootstrap >/dev/null; then
	echo "skip: fresh_root: debootstrap is not available (apt-get install debootstrap failed)"
	exit 77
fi

fail=0
ok() { echo "ok: $*"; }
not_ok() {
	echo "not ok: $*"
	fail=1
}

# the README's two commands: the lines of its first fenced block that holds
# them, without the comment
readme=$(git -C "$root" -c safe.directory='*' show HEAD:README.md)
commands=$(awk '
	/^```/ { if (inblock && found) exit; inblock = !inblock; next }
	inblock && /^test\/(demo|run)([ \t#]|$)/ { sub(/[ \t]*#.*/, ""); print; found = 1 }
' <<<"$readme")
demo_cmd=$(grep '^test/demo' <<<"$commands" || true)
run_cmd=$(grep '^test/run' <<<"$commands" || true)
if [ "$(grep -c . <<<"$demo_cmd")" -ne 1 ] || [ "$(grep -c . <<<"$run_cmd")" -ne 1 ]; then
	not_ok "README.md: no fenced block with one test/demo and one test/run line (found: '$commands')"
	exit 1
fi
ok "README.md's commands: '$demo_cmd', '$run_cmd'"
if [ -n "$(git -C "$root" -c safe.directory='*' status --porcelain --untracked-files=no)" ]; then
	echo "note: the fresh root clones HEAD ($(git -C "$root" -c safe.directory='*' rev-parse --short HEAD)), without this checkout's uncommitted changes"
fi

# the pristine root, made once (concurrent runs wait for each other)
tarball=$EXWIW_PG_CACHE/$suite-minbase.tar.gz
debs=$EXWIW_PG_CACHE/fresh-$suite-debs
mkdir -p "$EXWIW_PG_CACHE" "$debs"
t0=$SECONDS
(
	exec 9>"$EXWIW_PG_CACHE/.$suite-minbase.lock"
	flock 9
	[ -f "$tarball" ] && exit 0
	tmp=$EXWIW_PG_CACHE/.$suite-minbase.tmp
	exwiw_log "fresh_root: debootstrap --variant=minbase $suite (once, kept in $tarball)"
	exwiw_debootstrap "$suite" "$tmp"
	# the apt sources of the debian:12 image (debootstrap writes the suite
	# alone)
	rm -f "$tmp/etc/apt/sources.list"
	cat >"$tmp/etc/apt/sources.list.d/debian.sources" <<SOURCES
Types: deb
URIs: $EXWIW_DEBIAN_MIRROR
Suites: $suite $suite-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${EXWIW_DEBIAN_MIRROR%/debian}/debian-security
Suites: $suite-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
	rm -rf "$tmp/var/cache/apt/archives/"*.deb "$tmp/var/lib/apt/lists/"*_*
	tar -C "$tmp" --numeric-owner -czf "$tarball.tmp" .
	mv "$tarball.tmp" "$tarball"
	rm -rf "$tmp"
) || { not_ok "debootstrap $suite (log: $EXWIW_PG_CACHE/.debootstrap-$suite.log)"; exit 1; }
make_s=$((SECONDS - t0))

work=$(mktemp -d /tmp/exwiw-fresh.XXXXXX)
chmod 755 "$work"
fresh=$work/root
cleanup() {
	# the mounts were the namespace's: none may be left under the root
	if grep -q " $work/" /proc/self/mounts; then
		echo "not ok: mounts left under $work:"
		grep " $work/" /proc/self/mounts
		return 1
	fi
	if [ $fail -eq 0 ]; then
		rm -rf "$work"
	else
		echo "==> the root and its logs kept in $work"
	fi
}
trap cleanup EXIT

t0=$SECONDS
mkdir "$fresh"
tar -C "$fresh" --numeric-owner -xpzf "$tarball"
cp -L /etc/resolv.conf "$fresh/etc/resolv.conf"
# what this checkout commits, to clone from (the newcomer's clone of the
# repository)
git -c safe.directory='*' clone -q --bare --no-local "$root" "$fresh/srv/exwiw.git"
find "$debs" -name '*.deb' -exec cp -l {} "$fresh/var/cache/apt/archives/" \;
extract_s=$((SECONDS - t0))

# in_root LOG COMMAND...: COMMAND in the fresh root, as root, with a
# container's environment (PATH and HOME; no LANG, no LC_*); its output
# in LOG
path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
in_root() {
	local log=$1
	shift
	exwiw_root_exec "$fresh" "" env -i PATH="$path" HOME=/root \
		${EXWIW_FRESH_PORT:+EXWIW_PORT=$EXWIW_FRESH_PORT} "$@" >"$log" 2>&1 </dev/null
}

# failed LOG WHAT: not ok, with what the log says about it
failed() {
	echo "---- $1: the failures, then the last lines"
	grep -E '^not ok|^==> .*regression.diffs|FAILED|did not complete' "$1" | head -n 40 || true
	tail -n 40 "$1"
	not_ok "$2 (log: $1)"
}

# step NAME LOG WHAT COMMAND...: one timed step of the newcomer's
step() {
	local name=$1 log=$work/$1.log what=$2 t=$SECONDS rc=0
	shift 2
	in_root "$log" "$@" || rc=$?
	times+=("$name $((SECONDS - t)) s")
	if [ $rc -ne 0 ]; then
		failed "$log" "$what: exit $rc"
		return 1
	fi
}
times=()

t_all=$SECONDS
step apt "as root: apt-get update && apt-get install -y git" \
	bash -c 'apt-get update && apt-get install -y git' || exit 1
ok "as root: apt-get update && apt-get install -y git"

step clone "as root: git clone into /root/exwiw" \
	bash -c 'chmod 700 /root && cd /root && git clone /srv/exwiw.git exwiw' || exit 1
mode=$(stat -c %a "$fresh/root")
ok "as root: the clone is /root/exwiw, in a home of mode $mode"

if step root-demo "as root, in /root/exwiw, LANG unset: $demo_cmd" \
	bash -c "cd /root/exwiw && $demo_cmd"; then
	ok "as root, in /root/exwiw, LANG unset: $demo_cmd"
fi

if step root-run "as root, in /root/exwiw, LANG unset: $run_cmd" \
	bash -c "cd /root/exwiw && $run_cmd"; then
	counts=$(tail -n 1 "$work/root-run.log")
	if [[ $counts =~ ^[0-9]+\ passed,\ 0\ failed$ ]]; then
		ok "as root, in /root/exwiw, LANG unset: $run_cmd: $counts ($(grep '^skipped (not counted)' "$work/root-run.log" || echo 'none skipped'))"
	else
		failed "$work/root-run.log" "$run_cmd ended with '$counts', not 'N passed, 0 failed'"
	fi
fi

# a user who is not root, with a home directory: the clone in it (of a
# repository the user owns: git refuses to clone root's, "dubious
# ownership"), the demo
user=newcomer
if step user-demo "as $user, in /home/$user/exwiw, LANG unset: $demo_cmd" \
	bash -c 'useradd -m -s /bin/bash "$1" && chown -R "$1": /srv/exwiw.git &&
		cd "/home/$1" && runuser -u "$1" -- env -i PATH="$2" HOME="/home/$1" ${3:+EXWIW_PORT=$3} \
		bash -c "git clone /srv/exwiw.git exwiw && cd exwiw && $4"' \
	- "$user" "$path" "${EXWIW_FRESH_PORT:-}" "$demo_cmd"; then
	ok "as $user, in /home/$user/exwiw, LANG unset: $demo_cmd"
fi

# the packages downloaded, for the next run
in_root "$work/autoclean.log" apt-get autoclean -qq || true
find "$debs" -name '*.deb' -delete
find "$fresh/var/cache/apt/archives" -maxdepth 1 -name '*.deb' -exec cp -l {} "$debs/" \;

echo "fresh_root: times: debootstrap $make_s s (0 when cached), new root $extract_s s, ${times[*]}, in all $((SECONDS - t_all)) s"
exit $fail
