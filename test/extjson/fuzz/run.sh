#!/usr/bin/env bash
# test/extjson/fuzz/run.sh [SECONDS]: build the libFuzzer target for the
# Extended JSON core under ASan+UBSan (with leak checking) and run it for
# SECONDS (default 60).  Crashes and leaks are written to
# /tmp/exwiw-fuzz/artifacts; the corpus grows in /tmp/exwiw-fuzz/corpus.
set -euo pipefail
secs=${1:-60}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../../src" && pwd)
work=${EXWIW_FUZZ_DIR:-/tmp/exwiw-fuzz}
pg_inc=$(pg_config --includedir-server 2>/dev/null || echo /usr/include/postgresql/15/server)
pg_lib=$(pg_config --libdir 2>/dev/null || echo /usr/lib/x86_64-linux-gnu)
# libpgcommon.a: in --libdir on Debian 12 and in source builds, in
# --pkglibdir on Debian 13
[ -f "$pg_lib/libpgcommon.a" ] || pg_lib=$(pg_config --pkglibdir 2>/dev/null || echo /usr/lib/postgresql/15/lib)
mkdir -p "$work/corpus" "$work/artifacts"
# seeds: a few documents with every wrapper
cat > "$work/corpus/seed1.json" <<'JSON'
{"_id":{"$oid":"5f2a1b3c4d5e6f7a8b9c0d1e"},"d":{"$date":1418368330000},"s":{"$date":"2014-12-12T07:12:10.5Z"},"b":{"$binary":"AAE=","$type":"00"},"n":[1,-0.0,1e16,{"$numberDecimal":"1.50"},{"$numberDouble":"NaN"},{"$numberLong":"-9"}],"r":{"$regex":"a","$options":"i"},"c":{"$code":"x","$scope":{"a":1}},"x":{"$ref":"c","$id":1,"y":"\u0001\n"}}
JSON
printf '[{"$uuid":"00112233-4455-6677-8899-aabbccddeeff"},{"$timestamp":{"t":1,"i":2}},{"$minKey":1},{"$undefined":true},{"$binary":{"base64":"AAE=","subType":"80"}}]' > "$work/corpus/seed2.json"
clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-Wno-ignored-attributes \
	-DFRONTEND -I"$src" -I"$pg_inc" -I"$(dirname "$pg_inc")/internal" \
	"$here/fuzz_extjson.c" "$src"/common/*.c "$src"/common/*/*.c \
	-L"$pg_lib" -lpgcommon -lpgport -lm -o "$work/fuzz_extjson"
cd "$work"
LSAN_OPTIONS=suppressions="$here/lsan.supp":print_suppressions=0 ASAN_OPTIONS=detect_leaks=1 ./fuzz_extjson -max_total_time="$secs" -max_len=4096 \
	-artifact_prefix="$work/artifacts/" -print_final_stats=1 "$work/corpus"
