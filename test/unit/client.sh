#!/usr/bin/env bash
# test/unit/client.sh: the exwiw client's unit tests (client/unit_test.c):
# --ids parsing, the YAML run config, JSON printing, schema file names,
# the DDL post-processing of pg_dump's output, row counting, the deal of
# files to workers, exwiw load's statement splitter.  Built against the same pg_config as the extension.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/${PG_MAJOR:-15}/bin/pg_config}
make -s -C "$root/client" unit_test PG_CONFIG="$PG_CONFIG" >/dev/null
"$root/client/unit_test"
