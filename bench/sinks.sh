#!/usr/bin/env bash
# bench/sinks.sh: the server-side file sinks against server-side COPY TO a
# file (the speed limit) and against the psql recipe, gzip and zstd on and
# off, in one run on N rows x 8 mixed-type columns; then the backend's
# memory while exwiw_dump_to_file writes M rows.
#
#   bench/sinks.sh                    # N = 1,000,000, best of 3; M = 1M and 10M
#   bench/sinks.sh 100000 1 100000 1000000   # quick check
#
# The cluster runs with fsync = on, as a production server does: the sinks
# fsync what they write (COPY TO does not).  The sink is also timed with
# fsync = off (set with ALTER SYSTEM for that run only), which shows what
# the fsync costs.  shared_buffers = 32MB, so that a backend's peak RSS is
# mostly its own memory; "private" (RssAnon) does not depend on it.
source "$(dirname "$0")/common.sh"
rows=${1:-1000000}
runs=${2:-3}
mem_small=${3:-1000000}
mem_large=${4:-10000000}
bench_cluster "fsync = on" "shared_buffers = 32MB" "work_mem = '4MB'"
out=$BENCH_OUT

fill=$rows
[ "$mem_large" -gt "$fill" ] && fill=$mem_large
exwiw_log "filling bench_mixed with $fill rows"
bench_fill_mixed "$fill" bench_mixed
q="SELECT * FROM bench_mixed WHERE id <= $rows"
qq=${q//\'/\'\'}

best() { sort -n | head -n 1; }
declare -A times anon hwm samples
cases=(copy_file sink sink_copy sink_nofsync psql sink_gzip sink_gzip1 sink_zstd copy_gzip)
case_cmd() {
	case $1 in
	copy_file) echo "psql -X -q -c \"COPY ($q) TO '$out/copy_file.txt'\"" ;;
	sink | sink_nofsync) echo "psql -X -q -c \"SELECT * FROM exwiw_dump_to_file('$out/$1.sql', '$qq', 'bench_mixed')\"" ;;
	sink_copy) echo "psql -X -q -c \"SELECT * FROM exwiw_dump_to_file('$out/sink_copy.sql', '$qq', 'bench_mixed', format => 'copy')\"" ;;
	psql) echo "psql -XAt -c \"SELECT exwiw_dump('$qq', 'bench_mixed')\" > $out/psql.sql" ;;
	sink_gzip) echo "psql -X -q -c \"SELECT * FROM exwiw_dump_to_file('$out/sink.sql.gz', '$qq', 'bench_mixed', compress => 'gzip')\"" ;;
	sink_gzip1) echo "psql -X -q -c \"SELECT * FROM exwiw_dump_to_file('$out/sink1.sql.gz', '$qq', 'bench_mixed', compress => 'gzip:1')\"" ;;
	sink_zstd) echo "psql -X -q -c \"SELECT * FROM exwiw_dump_to_file('$out/sink.sql.zst', '$qq', 'bench_mixed', compress => 'zstd')\"" ;;
	copy_gzip) echo "psql -X -q -c \"COPY ($q) TO PROGRAM 'gzip > $out/copy_file.txt.gz'\"" ;;
	esac
}
set_fsync() {
	psql -X -q -c "ALTER SYSTEM SET fsync = $1" -c "SELECT pg_reload_conf()" >/dev/null
	sleep 0.3
}
for k in "${cases[@]}"; do anon[$k]=0; hwm[$k]=0; samples[$k]=""; done
for i in $(seq 1 "$runs"); do
	for k in "${cases[@]}"; do
		rm -f "$out"/*
		sync
		[ "$k" = sink_nofsync ] && set_fsync off
		bench_run "$k (run $i)" bash -c "$(case_cmd "$k")" >&2
		[ "$k" = sink_nofsync ] && set_fsync on
		samples[$k]+="$BENCH_SECONDS "
		[ "$BENCH_ANON_KB" -gt "${anon[$k]}" ] && anon[$k]=$BENCH_ANON_KB
		[ "$BENCH_HWM_KB" -gt "${hwm[$k]}" ] && hwm[$k]=$BENCH_HWM_KB
	done
done
for k in "${cases[@]}"; do times[$k]=$(printf '%s\n' ${samples[$k]} | best); done

# The bytes: the sink's file is the psql recipe's plus the SET lines, and
# the compressed files give it back.
rm -f "$out"/*
for k in sink psql sink_gzip sink_gzip1 sink_zstd copy_file; do bash -c "$(case_cmd "$k")"; done
if cmp -s "$out/sink.sql" <(echo "SET client_encoding = '$(psql -XAtc 'SHOW server_encoding')';"
	echo "SET standard_conforming_strings = on;"; cat "$out/psql.sql"); then same=yes; else same=NO; fi
if gunzip -c "$out/sink.sql.gz" | cmp -s - "$out/sink.sql" && gunzip -c "$out/sink1.sql.gz" | cmp -s - "$out/sink.sql" &&
	zstd -q -d -c "$out/sink.sql.zst" | cmp -s - "$out/sink.sql"; then unz=yes; else unz=NO; fi
size() { stat -c %s "$1"; }
raw=$(size "$out/sink.sql")

label() {
	case $1 in
	copy_file) echo "COPY (query) TO 'file' (speed limit)" ;;
	sink) echo "exwiw_dump_to_file (insert)" ;;
	sink_copy) echo "exwiw_dump_to_file (copy format)" ;;
	sink_nofsync) echo "exwiw_dump_to_file, fsync = off" ;;
	psql) echo "psql -XAt -c 'SELECT exwiw_dump(...)' > f" ;;
	sink_gzip) echo "exwiw_dump_to_file, gzip (level 6)" ;;
	sink_gzip1) echo "exwiw_dump_to_file, gzip:1" ;;
	sink_zstd) echo "exwiw_dump_to_file, zstd (level 3)" ;;
	copy_gzip) echo "COPY TO PROGRAM 'gzip > f' (2nd process)" ;;
	esac
}
echo
echo "exwiw bench/sinks.sh: $rows rows x 8 columns, best of $runs interleaved runs, fsync = on ($(date -u +%Y-%m-%d), $(nproc) cores)"
printf '%-44s %8s %9s %12s %12s\n' path seconds "vs COPY" "backend priv" "backend RSS"
for k in "${cases[@]}"; do
	printf '%-44s %8s %8sx %9s MB %9s MB\n' "$(label "$k")" "${times[$k]}" "$(ratio "${times[$k]}" "${times[copy_file]}")" "$(mb "${anon[$k]}")" "$(mb "${hwm[$k]}")"
done
echo
echo "exwiw_dump_to_file / COPY TO file      = $(ratio "${times[sink]}" "${times[copy_file]}")x   (goal <= 1.2)"
echo "  the same with fsync = off            = $(ratio "${times[sink_nofsync]}" "${times[copy_file]}")x"
echo "  copy format / COPY TO file           = $(ratio "${times[sink_copy]}" "${times[copy_file]}")x"
echo "psql recipe / exwiw_dump_to_file       = $(ratio "${times[psql]}" "${times[sink]}")x"
echo "file sizes: insert $raw bytes; COPY TO file $(size "$out/copy_file.txt")"
for k in sink_gzip sink_gzip1 sink_zstd; do
	f=$out/sink.sql.gz
	[ $k = sink_gzip1 ] && f=$out/sink1.sql.gz
	[ $k = sink_zstd ] && f=$out/sink.sql.zst
	echo "$(label "$k"): $(size "$f") bytes, ratio $(ratio "$raw" "$(size "$f")"):1, costs $(ratio "${times[$k]}" "${times[sink]}")x the uncompressed sink's time"
done
echo "sink file == SET line + psql recipe's file: $same; gunzip / zstd -d give it back: $unz"

# Memory: the backend while exwiw_dump_to_file writes mem_small and
# mem_large rows, uncompressed and gzip.
echo
echo "memory of exwiw_dump_to_file (backend peak, private / RSS):"
for n in "$mem_small" "$mem_large"; do
	for comp in none gzip; do
		rm -f "$out"/*
		mq="SELECT * FROM bench_mixed WHERE id <= $n"
		bench_run "$n rows, $comp" psql -X -q -c "SELECT * FROM exwiw_dump_to_file('$out/mem.sql', '${mq//\'/\'\'}', 'bench_mixed', 10000, compress => '$comp')" >/dev/null
		printf '  %-10s rows, compress %-4s: %6s s, private %6s MB, RSS %6s MB, file %s MB\n' "$n" "$comp" "$BENCH_SECONDS" \
			"$(mb "$BENCH_ANON_KB")" "$(mb "$BENCH_HWM_KB")" "$(($(size "$out/mem.sql") / 1048576))"
	done
done
rm -f "$out"/*
