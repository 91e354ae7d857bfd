#!/usr/bin/env bash
# test/t/extjson_diff.sh: exwiw's Extended JSON, byte for byte against the
# reference (Ruby's bson gem), on random doubles, numerics, timestamps, jsonb
# and json documents and typed rows; see test/extjson/diff.rb.
#
# Run by test/run (PGHOST/PGPORT/PGUSER point at the throwaway cluster).
# EXWIW_DIFF_SCALE=10 runs ten times as many values; EXWIW_DIFF_SEED picks
# another seed.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
db=exwiw_extjson_diff
psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
psql -X -q -v ON_ERROR_STOP=1 -d $db -c "CREATE EXTENSION exwiw"
PGDATABASE=$db ruby "$here/extjson/diff.rb"
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db"
