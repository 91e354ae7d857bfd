#!/usr/bin/env bash
# test/t/fs_races.sh: another OS user who can write the directory of an
# export moves, replaces and plants entries at the worst moment; exwiw must
# never remove, or write into, anything it did not create.
#
# The other user is played without any timing: by a mask that runs a shell
# command in the middle of the export (COPY ... TO PROGRAM), or by the
# LD_PRELOAD shim test/fixtures/fs_race.c, which runs a command just before
# the server or the client makes a given call (rename, unlink, open, create)
# on a given name.  The server is a cluster of its own (the main test port + 3,
# a Unix socket only) started with the shim.  Each victim is a directory of
# two files (precious.txt, insert-001-t.sql), the server's inside its data
# directory; after every case it must be exactly as it was.
#
# The server (exwiw_export_to_dir, exwiw_dump_to_file, exwiw_remove_export):
#  s1  the temporary directory swapped for a symbolic link to the victim
#      in the middle of the export, and a non-empty directory created under
#      the final name: the export fails (55000), our files are removed from
#      our directory where it was moved, the link and the victim are left;
#  s2  the same swap just before the rename (the shim), after every check:
#      the rename fails, the same cleanup;
#  s3  a non-empty directory created under the final name just before the
#      rename: 58P02 "was created by someone else", only our temporary
#      directory removed;
#  s4  a symbolic link planted at the (predictable) temporary name before
#      the export: the export fails, the link and the victim are left;
#  s5  exwiw_dump_to_file's temporary file swapped for a link to a file of
#      the victim: 55000, the victim's file unchanged;
#  s6  exwiw_remove_export: the directory swapped for a link to the victim
#      between its check and the first unlink: 55000, the victim is left;
#  s7  a hard link and symbolic links planted in an export directory:
#      exwiw_remove_export and overwrite => true refuse it, nothing removed;
#  s8  a hard link and a symbolic link planted in the previous export while
#      overwrite => true replaces it: the export succeeds, the previous
#      export is removed but for them (a WARNING), the victim is left;
#  s9  the previous export swapped for a link to the victim just before the
#      exchange: the export succeeds, the link is not followed (a WARNING);
#  s10 the parent directory swapped for a link to the data directory after
#      the path was checked, as it is opened: 42501, nothing written there.
# The client (exwiw -o shared/NAME):
#  c1  the temporary directory swapped for a link to the victim just before
#      the rename, and a non-empty directory created under the final name:
#      exit 1, our files removed, the link and the victim left;
#  c2  the same swap at the first file, then Ctrl-C (SIGINT): exit 130,
#      the same;
#  c3  a parent directory the run created swapped for a link to the victim,
#      then Ctrl-C: the link and the victim left;
#  c4  --force over a target holding a hard link and symbolic links (to the
#      victim's file and directory): replaced, the victim left;
#  c5  --force, the old target swapped for a link to the victim just before
#      the exchange: the link is not followed, the victim left.
source "$(dirname "$0")/../lib.sh"
if [ -z "${EXWIW_BIN:-}" ]; then
	echo "skip: fs_races: run it from test/run (EXWIW_BIN is not set)"
	exit 77
fi
PATH=$EXWIW_BIN:$PATH
port=$((${PGPORT:-$(exwiw_port)} + 3))
work=$(mktemp -d /tmp/exwiw-fs-races.XXXXXX)
chmod 755 "$work"
fail=0
ok() { echo "ok: $*"; }
not_ok() {
	echo "not ok: $*"
	fail=1
}
q() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

cc -O1 -Wall -Wextra -Werror -shared -fPIC -o "$work/fs_race.so" "$EXWIW_ROOT/test/fixtures/fs_race.c" -ldl
chmod 755 "$work/fs_race.so"
race=$work/race # the shim's configurations; the server's user writes .done there
mkdir "$race"
chmod 777 "$race"

# the server, with the shim
exwiw_initdb "$work/cluster" "$port"
exwiw_as_server_user env LD_PRELOAD="$work/fs_race.so" EXWIW_RACE_CONF="$race/server" \
	"$EXWIW_BIN/pg_ctl" -D "$work/cluster/data" -l "$work/cluster/server.log" -w -t 60 start >/dev/null ||
	{ cat "$work/cluster/server.log"; exit 1; }
export PGHOST=$work/cluster/sock PGPORT=$port PGUSER=postgres PGDATABASE=postgres
EXWIW_CLUSTER_DIR=$work/cluster
trap 'exwiw_cluster_stop; [ -n "${EXWIW_KEEP:-}" ] || rm -rf "$work"' EXIT

q <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION exwiw;
CREATE TABLE t (id int PRIMARY KEY, v text);
INSERT INTO t VALUES (1, 'a'), (2, 'b');
-- the other user, in the middle of an export: runs race.cmd once
CREATE FUNCTION race() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	cmd text := current_setting('race.cmd', true);
BEGIN
	IF coalesce(cmd, '') <> '' THEN
		PERFORM set_config('race.cmd', '', false);
		-- the program reads its input to the end first: COPY's write to a
		-- program that had exited would fail with a broken pipe, by timing
		EXECUTE format('COPY (SELECT) TO PROGRAM %L', 'cat >/dev/null; ' || cmd);
	END IF;
	RETURN '';
END $$;
SQL
data=$(q -At -c "SHOW data_directory")
suser=$(exwiw_server_user)
shared=$work/shared # a directory that others may write
mkdir "$shared"
chmod 777 "$shared"
cfg='[{"name": "t", "primary_key": "id"}]'
racecfg='[{"name": "t", "primary_key": "id", "columns": [{"name": "id"}, {"name": "v", "raw_sql": "t.v || race()"}]}]'

# make_victim DIR [OWNER]: a directory of two files
make_victim() {
	rm -rf "$1"
	mkdir "$1"
	printf precious >"$1/precious.txt"
	printf 'not yours' >"$1/insert-001-t.sql"
	if [ -n "${2:-}" ] && [ "$(id -u)" -eq 0 ]; then chown -R "$2": "$1"; fi
}
# victim_intact DIR: exactly the two files, unchanged
victim_intact() {
	[ "$(cd "$1" && ls -A | tr '\n' ' ')" = "insert-001-t.sql precious.txt " ] &&
		[ "$(cat "$1/precious.txt")" = precious ] && [ "$(cat "$1/insert-001-t.sql")" = "not yours" ]
}
# arm CONF ON MATCH RUN [SIGNAL]: the shim runs RUN once, before the first
# call ON whose name's last component starts with MATCH
arm() {
	{
		printf 'on=%s\nmatch=%s\nrun=%s\n' "$2" "$3" "$4"
		[ -z "${5:-}" ] || printf 'signal=%s\n' "$5"
	} >"$1"
	chmod 644 "$1"
	rm -f "$1.done"
}
disarm() { rm -f "$1" "$1.done"; }
fired() { [ -e "$1.done" ]; }
# sql_race CMD: SQL on stdin, with race.cmd = CMD, verbose errors; output
# and messages in $work/out
sql_race() {
	{
		echo "\\set VERBOSITY verbose"
		echo "SELECT set_config('race.cmd', :'cmd', false) IS NOT NULL AS armed \\gset"
		cat
	} | psql -X -q -At -v cmd="$1" >"$work/out" 2>&1 || true
}
is_empty_dir() { [ -d "$1" ] && [ -z "$(ls -A "$1")" ]; }
# leftovers NAME: temporary names of NAME left in $shared
leftovers() { (cd "$shared" && ls -A | grep -F ".$1.exwiw-tmp." || true); }

victim=$data/race_victim

# s1: the temporary directory swapped mid-export, the final name taken
make_victim "$victim" "$suser"
sql_race "cd $shared && t=\$(ls -d .s1.exwiw-tmp.*) && mv \"\$t\" s1-moved && ln -s $victim \"\$t\" && mkdir s1 && echo theirs > s1/keep" <<SQL
SELECT count(*) FROM exwiw_export_to_dir('$shared/s1', 't', '{1,2}', '$racecfg');
SQL
link=$(cd "$shared" && ls -A | grep -F '.s1.exwiw-tmp.' || true)
if grep -q 'ERROR:  55000: temporary directory ".*/.s1.exwiw-tmp.*" was moved or replaced while the export ran' "$work/out" &&
	victim_intact "$victim" && [ -n "$link" ] && [ "$(readlink "$shared/$link")" = "$victim" ] &&
	is_empty_dir "$shared/s1-moved" && [ "$(cat "$shared/s1/keep")" = theirs ]; then
	ok "s1: temporary directory swapped for a link mid-export: 55000, our files removed from the moved directory, the link and the victim left"
else
	not_ok "s1: $(cat "$work/out"); victim: $(ls -A "$victim" | tr '\n' ' '); moved: $(ls -A "$shared/s1-moved" 2>&1 | tr '\n' ' ')"
fi

# s2: the same swap just before the rename, after every check
make_victim "$victim" "$suser"
arm "$race/server" rename .s2.exwiw-tmp. "cd $shared && t=\$(ls -d .s2.exwiw-tmp.*) && mv \"\$t\" s2-moved && ln -s $victim \"\$t\" && mkdir s2 && echo theirs > s2/keep"
sql_race "" <<SQL
SELECT count(*) FROM exwiw_export_to_dir('$shared/s2', 't', '{1,2}', '$cfg');
SQL
if fired "$race/server" && grep -q 'ERROR:  55000: temporary directory ".*" was moved or replaced while the export ran' "$work/out" &&
	victim_intact "$victim" && [ "$(readlink "$shared/$(leftovers s2)")" = "$victim" ] &&
	is_empty_dir "$shared/s2-moved" && [ "$(cat "$shared/s2/keep")" = theirs ]; then
	ok "s2: temporary directory swapped for a link at the rename: the rename fails (55000), the link and the victim left"
else
	not_ok "s2: $(cat "$work/out"); fired: $(fired "$race/server" && echo yes); victim: $(ls -A "$victim" | tr '\n' ' ')"
fi
disarm "$race/server"

# s3: a non-empty directory under the final name, made just before the rename
arm "$race/server" rename .s3.exwiw-tmp. "mkdir $shared/s3 && echo theirs > $shared/s3/keep"
sql_race "" <<SQL
SELECT count(*) FROM exwiw_export_to_dir('$shared/s3', 't', '{1,2}', '$cfg');
SQL
if fired "$race/server" && grep -q 'ERROR:  58P02: ".*/s3" was created by someone else while the export ran' "$work/out" &&
	[ -z "$(leftovers s3)" ] && [ "$(cd "$shared/s3" && ls -A)" = keep ]; then
	ok "s3: a non-empty directory made under the final name: 58P02 \"was created by someone else\", our temporary directory removed, theirs kept"
else
	not_ok "s3: $(cat "$work/out"); left: $(leftovers s3)"
fi
disarm "$race/server"

# s4: a symbolic link planted at the predictable temporary name
make_victim "$victim" "$suser"
sql_race "" <<SQL
SELECT format('cat >/dev/null; ln -s %s %s/.s4.exwiw-tmp.%s.1', '$victim', '$shared', pg_backend_pid()) AS plant \\gset
COPY (SELECT) TO PROGRAM :'plant';
SELECT count(*) FROM exwiw_export_to_dir('$shared/s4', 't', '{1,2}', '$cfg');
SQL
if grep -q 'could not create directory ".*/s4": File exists' "$work/out" && victim_intact "$victim" &&
	[ "$(readlink "$shared/$(leftovers s4)")" = "$victim" ] && [ ! -e "$shared/s4" ]; then
	ok "s4: a link planted at the temporary name: the export fails, the link and the victim left"
else
	not_ok "s4: $(cat "$work/out"); victim: $(ls -A "$victim" | tr '\n' ' ')"
fi

# s5: exwiw_dump_to_file's temporary file swapped for a link to the victim's file
make_victim "$victim" "$suser"
sql_race "cd $shared && t=\$(ls -A | grep -F .s5.sql.exwiw-tmp.) && mv \"\$t\" s5-moved && ln -s $victim/precious.txt \"\$t\"" <<SQL
SELECT rows FROM exwiw_dump_to_file('$shared/s5.sql', 'SELECT id, race() AS r FROM t', 't');
SQL
if grep -q 'ERROR:  55000: temporary file ".*" was moved or replaced while the export ran' "$work/out" &&
	victim_intact "$victim" && [ "$(readlink "$shared/$(leftovers s5.sql)")" = "$victim/precious.txt" ] &&
	[ ! -e "$shared/s5.sql" ]; then
	ok "s5: exwiw_dump_to_file's temporary file swapped for a link: 55000, the victim's file unchanged"
else
	not_ok "s5: $(cat "$work/out")"
fi

# s6: exwiw_remove_export, the directory swapped between the check and the unlinks
make_victim "$victim" "$suser"
q -At -c "SELECT count(*) FROM exwiw_export_to_dir('$shared/s6', 't', '{1,2}', '$cfg')" >/dev/null
arm "$race/server" unlink insert- "cd $shared && mv s6 s6-moved && ln -s $victim s6"
sql_race "" <<SQL
SELECT exwiw_remove_export('$shared/s6');
SQL
if fired "$race/server" && grep -q 'ERROR:  55000: directory ".*/s6" was moved or replaced while it was removed' "$work/out" &&
	victim_intact "$victim" && [ "$(readlink "$shared/s6")" = "$victim" ] && is_empty_dir "$shared/s6-moved"; then
	ok "s6: exwiw_remove_export, the directory swapped for a link after its check: 55000, its own files removed, the link and the victim left"
else
	not_ok "s6: $(cat "$work/out"); victim: $(ls -A "$victim" | tr '\n' ' ')"
fi
disarm "$race/server"

# s7: a hard link and symbolic links planted in an export directory
make_victim "$victim" "$suser"
for d in s7h s7s s7d; do
	q -At -c "SELECT count(*) FROM exwiw_export_to_dir('$shared/$d', 't', '{1,2}', '$cfg')" >/dev/null
done
ln "$victim/precious.txt" "$shared/s7h/insert-009-x.sql"
ln -s "$victim/precious.txt" "$shared/s7s/insert-009-x.sql"
ln -s "$victim" "$shared/s7d/insert-009-x"
s7=ok
for d in s7h s7s s7d; do
	sql_race "" <<SQL
SELECT exwiw_remove_export('$shared/$d');
SELECT count(*) FROM exwiw_export_to_dir('$shared/$d', 't', '{1}', '$cfg', overwrite => true);
SQL
	n=$(grep -c 'holds files that exwiw did not write' "$work/out" || true)
	{ [ "$n" = 2 ] && [ "$(ls -A "$shared/$d" | wc -l)" = 2 ]; } || s7="$d: $(cat "$work/out")"
done
grep -q 'DETAIL:  "insert-009-x.sql" has 2 hard links, and a file exwiw writes has one' <(
	psql -X -q -c "\\set VERBOSITY verbose" -c "SELECT exwiw_remove_export('$shared/s7h')" 2>&1
) || s7="s7h: no hard-link detail"
if [ "$s7" = ok ] && victim_intact "$victim" && [ "$(stat -c %h "$victim/precious.txt")" = 2 ]; then
	ok "s7: a hard link, a link to a file, a link to a directory in an export: exwiw_remove_export and overwrite refuse it, nothing removed"
else
	not_ok "s7: $s7"
fi
rm -f "$shared/s7h/insert-009-x.sql"

# s8: a hard link and a symbolic link planted in the previous export while
# overwrite => true replaces it
make_victim "$victim" "$suser"
q -At -c "SELECT count(*) FROM exwiw_export_to_dir('$shared/s8', 't', '{1,2}', '$cfg')" >/dev/null
sql_race "ln $victim/precious.txt $shared/s8/insert-008-x.sql && ln -s $victim $shared/s8/insert-009-y.sql" <<SQL
SELECT count(*) FROM exwiw_export_to_dir('$shared/s8', 't', '{1}', '$racecfg', overwrite => true);
SQL
prev=$(leftovers s8)
if grep -q 'WARNING:  55000: the previous export, now at ".*", holds files that exwiw did not write' "$work/out" &&
	victim_intact "$victim" && [ "$(ls -A "$shared/s8")" = insert-001-t.sql ] &&
	grep -q "'1'" "$shared/s8/insert-001-t.sql" && ! grep -q "'2'" "$shared/s8/insert-001-t.sql" &&
	[ "$(cd "$shared/$prev" && ls -A | tr '\n' ' ')" = "insert-008-x.sql insert-009-y.sql " ]; then
	ok "s8: links planted in the previous export during overwrite: replaced, the links left with a WARNING, the victim left"
else
	not_ok "s8: $(cat "$work/out"); s8: $(ls -A "$shared/s8" | tr '\n' ' '); previous: $prev"
fi
[ -z "$prev" ] || rm -rf "${shared:?}/$prev"

# s9: the previous export swapped for a link just before the exchange
make_victim "$victim" "$suser"
q -At -c "SELECT count(*) FROM exwiw_export_to_dir('$shared/s9', 't', '{1,2}', '$cfg')" >/dev/null
arm "$race/server" rename .s9.exwiw-tmp. "cd $shared && mv s9 s9-old && ln -s $victim s9"
sql_race "" <<SQL
SELECT count(*) FROM exwiw_export_to_dir('$shared/s9', 't', '{1}', '$cfg', overwrite => true);
SQL
if fired "$race/server" && grep -Eq "WARNING:  .*could not remove the previous export \".*\": (Not a directory|Too many levels of symbolic links)" "$work/out" &&
	victim_intact "$victim" && [ "$(readlink "$shared/$(leftovers s9)")" = "$victim" ] && [ -d "$shared/s9" ] && [ ! -L "$shared/s9" ]; then
	ok "s9: the previous export swapped for a link before the exchange: the link is not followed, the victim left"
else
	not_ok "s9: $(cat "$work/out"); victim: $(ls -A "$victim" | tr '\n' ' ')"
fi
disarm "$race/server"

# s10: the parent directory swapped for a link to the data directory after
# the path was checked, just before it is opened
mkdir "$shared/s10p"
chmod 777 "$shared/s10p"
arm "$race/server" open s10p "cd $shared && mv s10p s10p-moved && ln -s $data s10p"
sql_race "" <<SQL
SELECT count(*) FROM exwiw_export_to_dir('$shared/s10p/s10', 't', '{1,2}', '$cfg');
SQL
if fired "$race/server" && grep -q 'ERROR:  42501: cannot write ".*/s10p/s10": its directory is in the server.s data directory or a tablespace' "$work/out" &&
	[ ! -e "$data/s10" ] && [ -z "$(cd "$data" && ls -A | grep -F .s10.exwiw-tmp. || true)" ]; then
	ok "s10: the parent swapped for a link to the data directory after the check: 42501, nothing written there"
else
	not_ok "s10: $(cat "$work/out"); fired: $(fired "$race/server" && echo yes)"
fi
disarm "$race/server"
rm -rf "$victim"

# the client, with the shim
cvictim=$work/cvictim
sd=$work/schema
mkdir "$sd"
printf '{"name": "t", "primary_key": "id", "columns": [{"name": "id"}, {"name": "v"}]}\n' >"$sd/t.json"
cconf=$race/client
# client ARGS...: exwiw with the shim; status in $rc, messages in $work/out
client() {
	rc=0
	LD_PRELOAD=$work/fs_race.so EXWIW_RACE_CONF=$cconf \
		exwiw --target-table=t --ids=1,2 --schema-dir="$sd" --insert-only "$@" >"$work/out" 2>&1 </dev/null || rc=$?
}
ctmp() { (cd "$shared" && ls -A | grep -F ".exwiw-$1." || true); }

# c1: the temporary directory swapped just before the rename, the final name taken
make_victim "$cvictim"
arm "$cconf" rename .exwiw-c1. "cd $shared && t=\$(ls -A | grep -F .exwiw-c1.) && mv \"\$t\" c1-moved && ln -s $cvictim \"\$t\" && mkdir c1 && echo theirs > c1/keep"
client -o "$shared/c1"
if fired "$cconf" && [ $rc = 1 ] && grep -q 'exwiw: error: the temporary directory ".*" was moved or replaced while the export ran' "$work/out" &&
	victim_intact "$cvictim" && [ "$(readlink "$shared/$(ctmp c1)")" = "$cvictim" ] &&
	is_empty_dir "$shared/c1-moved" && [ "$(cat "$shared/c1/keep")" = theirs ]; then
	ok "c1: the client's temporary directory swapped for a link at the rename: exit 1, our files removed, the link and the victim left"
else
	not_ok "c1: exit $rc: $(cat "$work/out"); victim: $(ls -A "$cvictim" | tr '\n' ' ')"
fi

# c2: the same swap at the first file, then Ctrl-C
make_victim "$cvictim"
arm "$cconf" create insert- "cd $shared && t=\$(ls -A | grep -F .exwiw-c2.) && mv \"\$t\" c2-moved && ln -s $cvictim \"\$t\"" 2
client -o "$shared/c2"
if fired "$cconf" && [ $rc = 130 ] && victim_intact "$cvictim" && [ "$(readlink "$shared/$(ctmp c2)")" = "$cvictim" ] &&
	is_empty_dir "$shared/c2-moved" && [ ! -e "$shared/c2" ]; then
	ok "c2: the temporary directory swapped for a link, then Ctrl-C: exit 130, the link and the victim left"
else
	not_ok "c2: exit $rc: $(cat "$work/out"); victim: $(ls -A "$cvictim" | tr '\n' ' ')"
fi

# c3: a parent directory the run created swapped for a link, then Ctrl-C
make_victim "$cvictim"
arm "$cconf" create insert- "cd $shared && mv c3new c3-moved && ln -s $cvictim c3new" 2
client -o "$shared/c3new/sub/out"
if fired "$cconf" && [ $rc = 130 ] && victim_intact "$cvictim" && [ "$(readlink "$shared/c3new")" = "$cvictim" ] &&
	is_empty_dir "$shared/c3-moved"; then
	ok "c3: a parent directory the run made swapped for a link, then Ctrl-C: exit 130, ours removed, the link and the victim left"
else
	not_ok "c3: exit $rc: $(cat "$work/out"); victim: $(ls -A "$cvictim" | tr '\n' ' '); moved: $(ls -AR "$shared/c3-moved" 2>&1 | tr '\n' ' ')"
fi
disarm "$cconf"

# c4: --force over a target holding a hard link and symbolic links
make_victim "$cvictim"
mkdir -p "$shared/c4/sub"
echo old >"$shared/c4/insert-001-old.sql"
ln "$cvictim/precious.txt" "$shared/c4/hard"
ln -s "$cvictim/precious.txt" "$shared/c4/soft"
ln -s "$cvictim" "$shared/c4/dir"
ln -s "$cvictim" "$shared/c4/sub/dir"
client -o "$shared/c4" --force
if [ $rc = 0 ] && victim_intact "$cvictim" && [ "$(stat -c %h "$cvictim/precious.txt")" = 1 ] &&
	[ "$(ls -A "$shared/c4" | tr '\n' ' ')" = "insert-001-t.sql manifest.json " ] && [ -z "$(ctmp c4)" ]; then
	ok "c4: --force over a hard link and links to the victim's file and directory: replaced, the victim left"
else
	not_ok "c4: exit $rc: $(cat "$work/out"); c4: $(ls -A "$shared/c4" | tr '\n' ' '); victim: $(ls -A "$cvictim" | tr '\n' ' ')"
fi

# c5: --force, the old target swapped for a link just before the exchange
make_victim "$cvictim"
mkdir "$shared/c5"
echo old >"$shared/c5/insert-001-old.sql"
arm "$cconf" rename .exwiw-c5. "cd $shared && mv c5 c5-old && ln -s $cvictim c5"
client -o "$shared/c5" --force
if fired "$cconf" && [ $rc = 0 ] && grep -q 'exwiw: warning: could not remove the previous output directory' "$work/out" &&
	victim_intact "$cvictim" && [ "$(readlink "$shared/$(ctmp c5)")" = "$cvictim" ] &&
	[ "$(ls -A "$shared/c5" | tr '\n' ' ')" = "insert-001-t.sql manifest.json " ] && [ ! -L "$shared/c5" ]; then
	ok "c5: --force, the old target swapped for a link before the exchange: the link is not followed, the victim left"
else
	not_ok "c5: exit $rc: $(cat "$work/out"); victim: $(ls -A "$cvictim" | tr '\n' ' ')"
fi
disarm "$cconf"

[ $fail -eq 0 ] && echo "fs_races: all checks passed"
exit $fail
