#!/usr/bin/env bash
# test/lint/pgindent.sh: the C code is as PostgreSQL's pgindent writes it (with
# typedefs.list); "make pgindent" fixes a failure.  Skipped where Debian's
# postgresql-18 source package cannot be fetched, and in test/pgchroot's
# Debian 13 root.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# the layout depends on neither the server nor the release: the host checks it
if [ -n "${EXWIW_CHROOT:-}" ]; then
	echo "skip: pgindent: checked on the host, not in the Debian $EXWIW_CHROOT root"
	exit 77
fi
out=$("$root/test/pgindent" --check 2>&1) && { echo "$out" | tail -1; exit 0; }
if echo "$out" | grep -q "no postgresql-18 source package\|cannot get the source"; then
	echo "skip: pgindent: $(echo "$out" | grep -m1 'source')"
	exit 77
fi
echo "$out"
exit 1
