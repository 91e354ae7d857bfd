#!/usr/bin/env bash
# test/sqlwriter/fuzz/run.sh [SECONDS]: build the libFuzzer target for the
# dump format's text (src/common/sql_text.c) under ASan+UBSan (with leak checking)
# and run it for SECONDS (default 60).  Crashes and leaks are written to
# $EXWIW_FUZZ_DIR/artifacts (default /tmp/exwiw-fuzz-sql); the corpus grows
# in its corpus/.
set -euo pipefail
secs=${1:-60}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../../src" && pwd)
work=${EXWIW_FUZZ_DIR:-/tmp/exwiw-fuzz-sql}
pg_config=${PG_CONFIG:-pg_config}
pg_inc=$($pg_config --includedir-server 2>/dev/null || echo /usr/include/postgresql/15/server)
pg_lib=$($pg_config --libdir 2>/dev/null || echo /usr/lib/x86_64-linux-gnu)
# libpgcommon.a: in --libdir on Debian 12 and in source builds, in
# --pkglibdir on Debian 13
[ -f "$pg_lib/libpgcommon.a" ] || pg_lib=$($pg_config --pkglibdir 2>/dev/null || echo /usr/lib/postgresql/15/lib)
mkdir -p "$work/corpus" "$work/artifacts"
# seeds: quotes, backslashes, control characters, reserved and odd names
printf '\000\002\040\003users\377id\377e-mail\377SELECT\3771\377O'"'"'Brien\377\376\3772\377a\\tb\r\n\377x' > "$work/corpus/seed1"
printf '\001\003\001\001a"b\377\377\\N\377\\.\377\376\377'"''" > "$work/corpus/seed2"
clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-DFRONTEND -I"$src" -I"$pg_inc" -I"$(dirname "$pg_inc")/internal" \
	"$here/fuzz_sql.c" "$src"/common/*.c "$src"/common/*/*.c \
	-L"$pg_lib" -lpgcommon -lpgport -lm -o "$work/fuzz_sql"
cd "$work"
ASAN_OPTIONS=detect_leaks=1 ./fuzz_sql -max_total_time="$secs" -max_len=2048 \
	-artifact_prefix="$work/artifacts/" -print_final_stats=1 "$work/corpus"
