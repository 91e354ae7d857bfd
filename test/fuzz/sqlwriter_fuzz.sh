#!/usr/bin/env bash
# test/fuzz/sqlwriter_fuzz.sh: a short libFuzzer run of the dump format's text
# (src/common/sql_text.c: values, identifiers, statement framing and chunk
# boundaries, read back by an independent reader) under ASan, UBSan and
# LeakSanitizer, so that CI proves the fuzz target builds and finds
# nothing in its seconds.  For a longer hunt:
#   test/sqlwriter/fuzz/run.sh 600
set -euo pipefail
export EXWIW_FUZZ_DIR
EXWIW_FUZZ_DIR=$(mktemp -d /tmp/exwiw-fuzz-sql-ci.XXXXXX)
trap 'rm -rf "$EXWIW_FUZZ_DIR" "$EXWIW_FUZZ_DIR.log"' EXIT
"$(dirname "$0")/../sqlwriter/fuzz/run.sh" "${EXWIW_FUZZ_SECONDS:-20}" >"$EXWIW_FUZZ_DIR.log" 2>&1 ||
	{ tail -50 "$EXWIW_FUZZ_DIR.log"; exit 1; }
grep -E "^stat::number_of_executed_units|Done [0-9]+ runs" "$EXWIW_FUZZ_DIR.log" || true
echo "fuzz: no crash, no leak, every dump read back"
