#!/usr/bin/env bash
# test/fuzz/extjson_fuzz.sh: a short libFuzzer run of the Extended JSON core
# under ASan, UBSan and LeakSanitizer, so that CI proves the fuzz target
# builds and finds nothing in its seconds.  For a longer hunt:
#   test/extjson/fuzz/run.sh 600
set -euo pipefail
export EXWIW_FUZZ_DIR
EXWIW_FUZZ_DIR=$(mktemp -d /tmp/exwiw-fuzz-ci.XXXXXX)
trap 'rm -rf "$EXWIW_FUZZ_DIR"' EXIT
"$(dirname "$0")/../extjson/fuzz/run.sh" "${EXWIW_FUZZ_SECONDS:-20}" >"$EXWIW_FUZZ_DIR.log" 2>&1 ||
	{ tail -50 "$EXWIW_FUZZ_DIR.log"; rm -f "$EXWIW_FUZZ_DIR.log"; exit 1; }
grep -E "^stat::number_of_executed_units|Done [0-9]+ runs" "$EXWIW_FUZZ_DIR.log" || true
rm -f "$EXWIW_FUZZ_DIR.log"
echo "fuzz: no crash, no leak"
