#!/usr/bin/env bash
# test/t/file_encoding.sh: a file exwiw writes is safe to load under any
# client encoding (issue 17).
#
# In SJIS, BIG5, GBK, GB18030 and UHC (client-only encodings) a byte of
# 0x80 or more starts a two-byte character, whatever follows it.  psql lexes
# a file in its client encoding, so a UTF-8 value ending in such a byte
# takes the quote after it into a character: the quote no longer ends the
# literal, and a "\!" line inside the value runs on the loading machine.
# Every whole file therefore starts with SET client_encoding, naming the
# encoding its bytes are in, before anything else.
#
# The values (table hostile, ids 1-5): the issue's E'\u4e00''\n\\! touch ..'
# (the quote after the value's last byte), a value ending in that byte and
# a next row with the command (the quote that ends the first literal),
# SJIS's 0x5c second byte before a quote, and two LATIN1 values (ids 11,
# 12) for the encodings the CJK values do not convert to.  Each writer:
#
#   dump_to_file   exwiw_dump_to_file (the server's bytes, the server's name)
#   to_dir         exwiw_export_to_dir
#   client         the exwiw command, run under the loading client encoding
#                  (its bytes are converted to it, and the line names it)
#   recipe         doc/sql.md's exwiw_dump recipe (exwiw_file_prologue first)
#   export_recipe  doc/sql.md's exwiw_export read loop
#   copy_lines     doc/sql.md's \copy of exwiw_copy_lines
#
# and the client's SJIS file loads under BIG5, UTF8 and LATIN1 too.
#
# Each file is loaded by a non-superuser with PGCLIENTENCODING set to each
# of SJIS, BIG5, GBK, GB18030, UHC, EUC_JP and LATIN1: nothing runs (no
# file appears) and every loaded value equals the original.  The controls
# show the attack, so that the test can fail: the server's file without
# its client_encoding line, and the old recipe (only the
# standard_conforming_strings line), create the file under each of the
# five encodings.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/subset/lib.sh"
source "$root/test/cli/lib.sh"
cli_init encoding
chmod 777 "$work"
unset PGCLIENTENCODING

psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
SET client_min_messages = warning;
DROP DATABASE IF EXISTS enc_src;
DROP DATABASE IF EXISTS enc_dst;
DROP ROLE IF EXISTS enc_loader;
CREATE ROLE enc_loader LOGIN;
CREATE DATABASE enc_src ENCODING 'UTF8' TEMPLATE template0;
CREATE DATABASE enc_dst ENCODING 'UTF8' TEMPLATE template0;
SQL
pwn=$work/pwned
psql -X -q -v ON_ERROR_STOP=1 -d enc_src -v pwn="$pwn" <<'SQL'
CREATE EXTENSION exwiw;
CREATE TABLE public.hostile (id int PRIMARY KEY, v text);
INSERT INTO public.hostile VALUES
	(1, E'\u4e00''\n\\! touch ' || :'pwn' || E'1\n'),
	(2, E'\u4e00'),
	(3, E'\n\\! touch ' || :'pwn' || E'3\n'),
	(4, E'\u8868\\''\n\\! touch ' || :'pwn' || E'4\n'),
	(5, E'\u4e00\u4e00''\u8868''\n\\! touch ' || :'pwn' || E'5 #'''),
	(11, E'\u00e9''\n\\! touch ' || :'pwn' || E'11\n'),
	(12, E'x\\''\n\\! touch ' || :'pwn' || E'12\n');
SQL
mkdir -p "$work/s"
echo '{"name": "hostile", "primary_key": "id"}' >"$work/s/hostile.json"
cfg=$(cli_config_array "$work/s")
cjk_ids=1,2,3,4,5
latin_ids=11,12
all_ids=$cjk_ids,$latin_ids

# ids_for ENCODING: the rows whose values convert to it (no e-acute in
# SJIS, BIG5 and UHC; no CJK in LATIN1)
ids_for() {
	case $1 in
		LATIN1) echo "$latin_ids" ;;
		SJIS | BIG5 | UHC) echo "$cjk_ids,12" ;;
		*) echo "$all_ids" ;;
	esac
}
# digest IDS DB: the rows' ids and md5s, computed by the server
digest() {
	psql -X -At -d "$2" -c "SELECT string_agg(id || ':' || md5(v), ',' ORDER BY id) FROM public.hostile WHERE id = ANY ('{$1}')"
}
pwned() { compgen -G "$pwn*" >/dev/null; }

fresh_dst() {
	rm -f "$pwn"*
	psql -X -q -v ON_ERROR_STOP=1 -d enc_dst -c "SET client_min_messages = warning" \
		-c "DROP TABLE IF EXISTS public.hostile" \
		-c "CREATE TABLE public.hostile (id int PRIMARY KEY, v text)" \
		-c "GRANT SELECT, INSERT ON public.hostile TO enc_loader"
}

# load ENCODING FILE...: load the files into a fresh enc_dst as enc_loader
load() {
	local enc=$1 f
	shift
	fresh_dst
	for f in "$@"; do
		PGCLIENTENCODING=$enc PGOPTIONS='-c client_min_messages=error' \
			psql -X -q -v ON_ERROR_STOP=1 -U enc_loader -d enc_dst -f "$f" >"$work/load.out" 2>&1 || return 1
	done
}

# write WRITER ENCODING DIR: the files of WRITER for ids_for ENCODING
write() {
	local writer=$1 enc=$2 dir=$3 ids
	ids=$(ids_for "$enc")
	mkdir -p "$dir"
	chmod 777 "$dir"
	case $writer in
		dump_to_file)
			psql -X -q -At -v ON_ERROR_STOP=1 -d enc_src -c \
				"SELECT rows FROM exwiw_dump_to_file('$dir/hostile.sql', 'SELECT * FROM public.hostile WHERE id IN ($ids) ORDER BY id', 'public.hostile')" >/dev/null
			;;
		to_dir)
			rmdir "$dir"
			psql -X -q -At -v ON_ERROR_STOP=1 -d enc_src -v cfg="$cfg" >/dev/null <<SQL
SELECT count(*) FROM exwiw_export_to_dir('$dir', 'hostile', '{$ids}', :'cfg');
SQL
			;;
		client)
			rmdir "$dir"
			PGCLIENTENCODING=$enc exwiw --dbname=enc_src --target-table=hostile --ids="$ids" \
				--schema-dir="$work/s" -o "$dir" -q --insert-only
			;;
		recipe)
			PGCLIENTENCODING=$enc psql -XAt -v FETCH_COUNT=64 -d enc_src -c "SELECT exwiw_file_prologue()" \
				-c "SELECT exwiw_dump('SELECT * FROM public.hostile WHERE id IN ($ids) ORDER BY id', 'public.hostile')" \
				>"$dir/hostile.sql"
			;;
		export_recipe)
			PGCLIENTENCODING=$enc cli_recipe "$dir" \
				"SELECT (e).file_name, (e).chunk FROM (SELECT exwiw_export('hostile', '{$ids}', :'cfg') AS e) s;" \
				-d enc_src -v cfg="$cfg"
			;;
		copy_lines)
			PGCLIENTENCODING=$enc psql -X -q -d enc_src -c "\\copy (SELECT exwiw_copy_lines('SELECT * FROM public.hostile WHERE id IN ($ids) ORDER BY id', 'public.hostile')) TO '$dir/hostile.sql' WITH (FORMAT csv, DELIMITER E'\\x01', QUOTE E'\\x02', NULL E'\\x03')"
			;;
	esac
}

encodings="SJIS BIG5 GBK GB18030 UHC EUC_JP LATIN1"
attack_encodings="SJIS BIG5 GBK GB18030 UHC"
for writer in dump_to_file to_dir client recipe export_recipe copy_lines; do
	for enc in $encodings; do
		dir=$work/out-$writer-$enc
		ids=$(ids_for "$enc")
		if ! write "$writer" "$enc" "$dir" 2>"$work/write.err"; then
			not_ok "$writer under $enc: writing failed: $(cat "$work/write.err")"
			continue
		fi
		if ! compgen -G "$dir/*.sql" >/dev/null; then
			not_ok "$writer under $enc: no file written: $(cat "$work/write.err")"
			continue
		fi
		first=$(head -n 1 "$dir"/*.sql)
		case $writer in
			dump_to_file | to_dir) want="SET client_encoding = 'UTF8';" ;;
			*) want="SET client_encoding = '$enc';" ;;
		esac
		[ "$first" = "$want" ] || not_ok "$writer under $enc: the first line is '$first', not \"$want\""
		if ! load "$enc" "$dir"/*.sql; then
			not_ok "$writer under $enc: the load failed: $(cat "$work/load.out")"
		elif pwned; then
			not_ok "$writer under $enc: loading ran a command ($(ls "$pwn"*))"
		elif [ "$(digest "$ids" enc_dst)" != "$(digest "$ids" enc_src)" ]; then
			not_ok "$writer under $enc: the loaded values differ from the originals"
		else
			ok "$writer, loaded under $enc (written under $([ "${want#*UTF8}" = "$want" ] && echo "$enc" || echo UTF8)): nothing ran, the values are equal"
		fi
	done
done

# A file written in one client encoding loads under another: its first
# line switches psql to the encoding of its bytes.
for enc in BIG5 UTF8 LATIN1; do
	ids=$(ids_for SJIS)
	if load "$enc" "$work/out-client-SJIS"/*.sql && ! pwned &&
		[ "$(digest "$ids" enc_dst)" = "$(digest "$ids" enc_src)" ]; then
		ok "the client's SJIS file, loaded under $enc: nothing ran, the values are equal"
	else
		not_ok "the client's SJIS file, loaded under $enc: $(cat "$work/load.out")"
	fi
done

# The controls: the attack is real.
for enc in $attack_encodings; do
	grep -v '^SET client_encoding' "$work/out-dump_to_file-SJIS/hostile.sql" >"$work/bare.sql"
	load "$enc" "$work/bare.sql" || true
	if pwned; then
		ok "control: without its client_encoding line, the server's file runs a command under $enc"
	else
		not_ok "control: without its client_encoding line, the file ran nothing under $enc: the test proves nothing"
	fi
	# the recipe before issue 17: only the standard_conforming_strings line
	{
		echo 'SET standard_conforming_strings = on;'
		psql -XAt -d enc_src -c "SELECT exwiw_dump('SELECT * FROM public.hostile WHERE id = 1', 'public.hostile')"
	} >"$work/old_recipe.sql"
	load "$enc" "$work/old_recipe.sql" || true
	if [ -e "${pwn}1" ]; then
		ok "control: the old recipe's file runs a command under $enc"
	else
		not_ok "control: the old recipe's file ran nothing under $enc"
	fi
done
rm -f "$pwn"*

[ $fail -eq 0 ] && echo "file_encoding: all checks passed"
[ $fail -eq 0 ]
