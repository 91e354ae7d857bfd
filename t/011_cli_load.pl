# t/011_cli_load.pl: exwiw load DIR, end to end.
#
# - An export of shop 1 (INSERT and COPY formats), loaded by exwiw load into
#   a fresh, fully constrained copy of the schema by a non-superuser that
#   owns the tables (every foreign key checked), equals production's tenant
#   rows: the same export loaded by psql -f, file by file (the Ruby
#   client's workflow), compared table by table with EXCEPT both ways.
#   -j 2 loads the same rows.
# - A second tenant (shop 2: its closure shares shop 2's rows, user 3,
#   product 4 and the announcements with shop 1's) into the same database:
#   --on-conflict=skip loads it (the result is the union of both tenants),
#   --on-conflict=error fails on the first shared row.
# - A failing file stops the load, names the file and the line (a
#   statement's, and a COPY data line's), loads nothing after it; with one
#   connection the load is one transaction (the default, and
#   --single-transaction): nothing at all stays; with --commit-each-file
#   the files before it stay and it leaves nothing of itself.
# - --refresh: the delete files, then the inserts, in one transaction:
#   after rows changed in production, the development database holds the
#   new export, and of the old one only another tenant's row (a product of
#   shop 2 that a since-deleted order reached): the rows of other tenants
#   the export brings as parents are skipped, not deleted (shop 2 stays);
#   with --on-conflict=error they fail the refresh; a refresh that fails
#   changes nothing.
# - Hostile values under SJIS (test/t/file_encoding.sh's attack): the
#   files load the exact bytes under each client-only encoding and run
#   nothing; without the file's client_encoding line, exwiw load refuses
#   the "\!" that psql would run, and still runs nothing.
# - --with-schema: insert-000-schema.sql (pg_dump's DDL, $$ bodies and
#   \restrict lines) and the data load into an empty database.
# - Usage errors: -j with --single-transaction (as pg_restore), -j with
#   --refresh, no DIR, a JSON Lines export, a bad --on-conflict.
use strict;
use warnings FATAL => 'all';

use FindBin;
use lib $FindBin::RealBin;
use ExwiwCli;
use File::Copy qw(copy);
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = cli_node('load');
my $work = cli_work();
chmod 0777, $work;
delete $ENV{PGCLIENTENCODING};

make_databases($node, 'load');
$node->safe_psql('postgres', 'CREATE DATABASE load_ref');
my $schema_sql =
  run_ok([ 'pg_dump', '--schema-only', '-n', 'shop', '-d', 'load_src' ],
	'pg_dump --schema-only of the source');
PostgreSQL::Test::Utils::append_to_file("$work/schema.sql", $schema_sql);
$ENV{PGOPTIONS} = '-c search_path=shop,public -c client_min_messages=warning';
run_ok(
	[
		'exwiw', 'schema', 'generate', '--from-db', '--dbname=load_src',
		"--schema-dir=$work/schema"
	],
	'schema generate');

my @tables = split /\n/, $node->safe_psql(
	'load_src', q{SELECT relname FROM pg_catalog.pg_class
	WHERE relnamespace = 'shop'::regnamespace AND relkind IN ('r', 'p') ORDER BY 1});

# must(CMD): run CMD (an array reference), die unless it exits 0 (a step
# of the setup, not a check); returns its stdout
sub must
{
	my ($cmd, %opt) = @_;
	my ($rc, $out, $err) = run_cmd($cmd, %opt);
	die "exit $rc: @$cmd\n$err" if $rc != 0;
	return $out;
}

# export_shops(DIR, FORMAT, IDS): the client's export of shops IDS
sub export_shops
{
	my ($dir, $fmt, $ids) = @_;
	return run_ok(
		[
			'exwiw', '--dbname=load_src', '--target-table=shops', "--ids=$ids",
			"--schema-dir=$work/schema", "--output-format=$fmt",
			'--allow-undecided', '-q', '-o', $dir, '--force'
		],
		"export of shops $ids ($fmt)");
}

# fresh(DB): an empty, fully constrained schema shop in DB (load_dst or
# load_ref), owned by load_loader
sub fresh
{
	my ($db) = @_;
	$node->safe_psql($db,
		'SET client_min_messages = warning; DROP SCHEMA IF EXISTS shop CASCADE');
	must([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $db, '-f', "$work/schema.sql" ]);
	$node->safe_psql(
		$db, q{
DO $$ DECLARE r record; BEGIN
	FOR r IN SELECT c.oid::regclass AS t FROM pg_catalog.pg_class c
		WHERE c.relnamespace = 'shop'::regnamespace AND c.relkind IN ('r', 'p')
	LOOP
		EXECUTE format('ALTER TABLE %s OWNER TO load_loader', r.t);
	END LOOP;
END $$;
GRANT USAGE ON SCHEMA shop TO load_loader;
});
	return;
}

# xload(ARGS...): exwiw load as load_loader into load_dst; (status,
# stdout, stderr)
sub xload
{
	return run_cmd([ 'exwiw', 'load', @_, '-U', 'load_loader', '-d', 'load_dst' ]);
}

# copy_into_src(DB, SCHEMA): DB's shop tables into schema SCHEMA of load_src
sub copy_into_src
{
	my ($db, $schema) = @_;
	must(
		[
			'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', 'load_src',
			'-c', "DROP SCHEMA IF EXISTS $schema CASCADE",
			'-c', "CREATE SCHEMA $schema",
			map { ('-c', "CREATE TABLE $schema.$_ (LIKE shop.$_)") } @tables
		]);
	for my $t (@tables)
	{
		my ($err1, $err2) = ('', '');
		IPC::Run::run(
			[
				'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $db,
				'-c', "COPY shop.$t TO STDOUT"
			],
			'2>', \$err1, '|',
			[
				'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', 'load_src',
				'-c', "COPY $schema.$t FROM STDIN"
			],
			'2>', \$err2)
		  or die "copying shop.$t of $db into $schema failed: $err1$err2";
	}
	return;
}

# differ(A, B): the tables where schemas A and B of load_src differ
# (EXCEPT both ways), separated by spaces; B may be a UNION of schemas "x+y"
sub differ
{
	my ($a, $b) = @_;
	my @q;
	for my $t (@tables)
	{
		my $q =
		  $b =~ /^(.*)\+(.*)$/
		  ? "(SELECT * FROM $1.$t UNION SELECT * FROM $2.$t)"
		  : "(SELECT * FROM $b.$t)";
		push @q, '-c',
		  "SELECT (SELECT count(*) FROM (SELECT * FROM $a.$t EXCEPT SELECT * FROM $q s) d)
			+ (SELECT count(*) FROM ($q EXCEPT SELECT * FROM $a.$t) e)";
	}
	my @n = split /\n/,
	  must([ 'psql', '-X', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-d', 'load_src', @q ]);
	die "differ: " . scalar(@n) . " counts for " . scalar(@tables) . " tables"
	  if @n != @tables;
	return join(' ', map { $n[$_] eq '0' ? () : $tables[$_] } 0 .. $#tables);
}

# rows(DB): total rows of DB's shop tables
sub rows
{
	my ($db) = @_;
	return $node->safe_psql($db,
		'SELECT ' . join(' + ', map { "(SELECT count(*) FROM shop.$_)" } @tables));
}

# count(DB, SQL): one value
sub count
{
	my ($db, $sql) = @_;
	return $node->safe_psql($db, $sql);
}

# copy_files(FROM, TO, [DOT]): FROM's files into TO (made), as cp FROM/* TO/
# (no dot file unless DOT, as cp -r FROM TO); a directory in FROM dies
sub copy_files
{
	my ($from, $to, $dot) = @_;
	mkdir $to or die "could not create $to: $!" unless -d $to;
	for my $f (dir_entries($from))
	{
		next if !$dot && $f =~ /^\./;
		die "$from/$f is not a file" unless -f "$from/$f";
		copy("$from/$f", "$to/$f") or die "could not copy $from/$f: $!";
	}
	return;
}

# inserts(DIR): DIR's insert-*.sql files, in name order
sub inserts
{
	my ($dir) = @_;
	return grep { /^insert-.*\.sql\z/ } dir_entries($dir);
}

# first_line(ERR): the first line, without the scratch directory's path
sub first_line
{
	my ($s) = @_;
	my ($l) = split /\n/, $s;
	$l //= '';
	$l =~ s/\Q$work\E\///g;
	return $l;
}

# the references: psql -f, file by file, as the Ruby client's users load
for my $ids (1, 2)
{
	export_shops("$work/ins$ids", 'insert', $ids);
	export_shops("$work/copy$ids", 'copy', $ids);
	fresh('load_ref');
	my $failed = load_files("$work/ins$ids", '-U', 'load_loader', '-d', 'load_ref');
	is($failed, '', "the reference: shops $ids loaded by psql -f, file by file");
	copy_into_src('load_ref', "ref$ids");
}
cmp_ok(rows('load_ref'), '>', 10, 'the reference export is not almost empty');

ok(!loader_may_skip_keys($node, 'load'),
	'load_loader may not set session_replication_role (the loads check foreign keys)');

# 1. one tenant, INSERT and COPY, -j 1 and -j 2
for my $fmt ('ins', 'copy')
{
	for my $j (1, 2)
	{
		fresh('load_dst');
		my ($rc, $out, $err) = xload("$work/${fmt}1", '-j', $j);
		if (!ok($rc == 0, "$fmt -j $j: exwiw load"))
		{
			diag("exit $rc: $err");
			next;
		}
		is($out . $err, '',
			"$fmt -j $j: prints nothing when stdout and stderr are not terminals");
		copy_into_src('load_dst', 'got');
		my $d = differ('got', 'ref1');
		is($d, '',
			"$fmt -j $j: shop 1 loaded with every constraint enforced equals production's tenant rows as psql -f loads them ("
			  . rows('load_dst')
			  . ' rows, EXCEPT both ways)');
	}
}

# -j 2's plan: transactions and order_items both reference orders, not
# each other: neither waits for the other; each waits for orders
fresh('load_dst');
{
	my ($rc, $out, $err) = xload("$work/ins1", '-j', 2, '--log-level=debug');
	my $items = join("\n", $err =~ /(insert-[0-9]*-order_items\.sql waits for:.*)/g);
	my $trans = join("\n", $err =~ /(insert-[0-9]*-transactions\.sql waits for:.*)/g);
	# what each waits for: after the first ":"
	my $items_waits = $items =~ s/^[^:]*://r;
	my $trans_waits = $trans =~ s/^[^:]*://r;
	ok( $items ne ''
		  && $trans ne ''
		  && $trans_waits !~ /order_items/
		  && $items_waits !~ /transactions/
		  && $trans_waits =~ /-orders\.sql/
		  && $items_waits =~ /-orders\.sql/,
		'-j 2: order_items and transactions may load at the same time, both after orders'
	) or diag("-j 2's plan: $items / $trans\n$err");
}

# 2. a second tenant into the same database
for my $fmt ('ins', 'copy')
{
	fresh('load_dst');
	run_ok([ 'exwiw', 'load', "$work/${fmt}1", '-q', '-U', 'load_loader', '-d', 'load_dst' ],
		"$fmt: shop 1 loaded");
	my ($rc, $out, $err) = xload("$work/${fmt}2", '--on-conflict=skip');
	if (ok($rc == 0, "$fmt: shop 2 loaded with --on-conflict=skip over shop 1"))
	{
		copy_into_src('load_dst', 'got');
		my $d = differ('got', 'ref1+ref2');
		is($d, '',
			"$fmt: shop 1 + shop 2 (--on-conflict=skip) is the union of both tenants ("
			  . rows('load_dst')
			  . ' rows)');
	}
	else
	{
		diag("exit $rc: $err");
	}

	fresh('load_dst');
	run_ok([ 'exwiw', 'load', "$work/${fmt}1", '-q', '-U', 'load_loader', '-d', 'load_dst' ],
		"$fmt: shop 1 loaded");
	($rc, $out, $err) = xload("$work/${fmt}2", '--on-conflict=error');
	isnt($rc, 0,
		"$fmt: --on-conflict=error does not load the second tenant over shared rows");
	like(
		$err,
		qr{^exwiw: error: .*/\Q${fmt}2\E/insert-[0-9]+-[a-z_]+\.sql:[0-9]+: ERROR:  duplicate key value}m,
		"$fmt: --on-conflict=error stops at the first shared row: " . first_line($err));
}

# 3. a failing file names the file and the line, and stops the load
copy_files("$work/ins1", "$work/bad");
my @bad = inserts("$work/bad");
my ($first, $second, $last) = @bad[ 0, 1, -1 ];
my ($first_table) = $first =~ /^insert-[0-9]*-(.*)\.sql$/;
my ($last_table) = $last =~ /^insert-[0-9]*-(.*)\.sql$/;
my $line = (() = slurp("$work/bad/$second") =~ /\n/g) + 2;
PostgreSQL::Test::Utils::append_to_file("$work/bad/$second",
	"\nINSERT INTO no_such_table VALUES (1);\n");
my $bad_error =
  "exwiw: error: $work/bad/$second:$line: ERROR:  relation \"no_such_table\" does not exist";

fresh('load_dst');
{
	my ($rc, $out, $err) = xload("$work/bad");
	isnt($rc, 0, 'a failing file: exit status not 0');
	ok(index($err, $bad_error) >= 0,
		"a failing file stops the load and names the file and line ($second:$line)")
	  or diag($err);
	is(rows('load_dst'), 0, 'a failing file: nothing is loaded (one transaction, the default)');
	like($err, qr/^exwiw: detail: The load ran in one transaction: nothing of it was committed\.$/m,
		'and it says so') or diag($err);
}
fresh('load_dst');
{
	my ($rc, $out, $err) = xload("$work/bad", '--commit-each-file');
	isnt($rc, 0, '--commit-each-file, a failing file: exit status not 0');
	ok(index($err, $bad_error) >= 0, '--commit-each-file: the error names the file and line')
	  or diag($err);
	is(count('load_dst', "SELECT count(*) FROM shop.$last_table"),
		0, "--commit-each-file: $last is not loaded");
	isnt(count('load_dst', "SELECT count(*) FROM shop.$first_table"),
		0, "--commit-each-file: the files before it stay ($first)");
	my ($second_table) = $second =~ /^insert-[0-9]*-(.*)\.sql$/;
	is(count('load_dst', "SELECT count(*) FROM shop.$second_table"),
		0, "--commit-each-file: the failing file leaves nothing of its own ($second)");
}
fresh('load_dst');
{
	my ($rc, $out, $err) = xload("$work/bad", '-j', 2);
	isnt($rc, 0, '-j 2, a failing file: exit status not 0');
	ok( scalar(() = $err =~ /^exwiw: error:/mg) == 1
		  && index($err, $bad_error) >= 0,
		'-j 2: a failing file stops the load, one error naming the file and line')
	  or diag($err);
}
fresh('load_dst');
{
	my ($rc, $out, $err) = xload("$work/bad", '--single-transaction');
	isnt($rc, 0, '--single-transaction: a failing file, exit status not 0');
	ok(index($err, "$second:$line:") >= 0,
		'--single-transaction: the error names the file and line')
	  or diag($err);
	is(rows('load_dst'), 0,
		'--single-transaction: the failing file leaves nothing loaded');
}

# a bad COPY data line: the line of the file
copy_files("$work/copy1", "$work/badcopy");
my ($users) = grep { /^insert-.*-users\.sql\z/ } dir_entries("$work/badcopy");
{
	my @l = split /^/, slurp("$work/badcopy/$users");
	my @copy = grep { $l[$_] =~ /^COPY / } 0 .. $#l;
	die "$users: " . scalar(@copy) . " COPY lines, not 1" if @copy != 1;
	my $dline = $copy[0] + 1 + 2;
	$l[ $dline - 1 ] =~ s/^[0-9]*/notanumber/;
	open(my $fh, '>:raw', "$work/badcopy/$users") or die;
	print $fh @l;
	close $fh;

	fresh('load_dst');
	my ($rc, $out, $err) = xload("$work/badcopy");
	isnt($rc, 0, 'a bad COPY line: exit status not 0');
	ok( index(
			$err,
			"exwiw: error: $work/badcopy/$users:$dline: ERROR:  invalid input syntax"
		) >= 0,
		"a bad COPY data line is named by its line of the file ($users:$dline)"
	) or diag($err);
}

# 4. --refresh
# the export's own delete files (delete-NNN-<table>.sql, children first)
fresh('load_dst');
run_ok([ 'exwiw', 'load', "$work/ins1", '-q', '-U', 'load_loader', '-d', 'load_dst' ],
	'shop 1 loaded, to be refreshed');
$node->safe_psql(
	'load_src', q{
SET search_path = shop;
UPDATE shops SET name = 'Acme Renamed' WHERE id = 1;
DELETE FROM orders WHERE id = 2;
INSERT INTO orders (shop_id, user_id, ordered_at, total) VALUES (1, 1, '2026-02-01 10:00:00+00', 1.00);
UPDATE users SET name = 'Alice A.' WHERE id = 1;
});
export_shops("$work/ins1b", 'insert', 1);
ok(scalar(grep { /^delete-.*\.sql\z/ } dir_entries("$work/ins1b")),
	'the export wrote delete files');
fresh('load_ref');
for my $f (inserts("$work/ins1b"))
{
	must(
		[
			'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-U', 'load_loader', '-d',
			'load_ref', '-f', "$work/ins1b/$f"
		]);
}
copy_into_src('load_ref', 'ref1b');
{
	my ($rc, $out, $err) = xload("$work/ins1b");
	isnt($rc, 0,
		'without --refresh, the changed export does not load over the old rows (the delete files do not run): '
		  . first_line(substr($err, 0, 100)));
}
# What the refresh must leave: the new export's rows, and the rows of other
# tenants that the old export brought as parents and the new one does not
# (product 4 of shop 2, which only the deleted order 2 reached): another
# tenant's rows are not deleted (doc/cli.md, "Rows of other tenants").
must(
	[
		'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', 'load_src',
		'-c', 'DROP SCHEMA IF EXISTS left1 CASCADE',
		'-c', 'CREATE SCHEMA left1',
		(map { ('-c', "CREATE TABLE left1.$_ (LIKE shop.$_)") } @tables),
		'-c',
		'INSERT INTO left1.products SELECT * FROM ref1.products WHERE shop_id <> 1 EXCEPT SELECT * FROM ref1b.products'
	]);
cmp_ok(count('load_src', 'SELECT count(*) FROM left1.products'),
	'>=', 1,
	'the fixture has a row of another tenant that only the old export brought');
{
	my ($rc, $out, $err) = xload("$work/ins1b", '--refresh');
	ok($rc == 0, '--refresh') or diag("exit $rc: $err");
	copy_into_src('load_dst', 'got');
	my $d = differ('got', 'ref1b+left1');
	is($d, '',
		'--refresh: after rows changed in production, the database holds the new export and, of the old one, only another tenant\'s product ('
		  . rows('load_dst')
		  . ' rows, EXCEPT both ways)');
	is(count('load_dst', 'SELECT count(*) FROM shop.shops WHERE id = 2'),
		1, '--refresh: shop 2, brought again as a parent, is skipped, not deleted');
}
{
	my ($rc, $out, $err) = xload("$work/ins1b", '--refresh', '--on-conflict=error');
	isnt($rc, 0,
		'--refresh --on-conflict=error: does not load over another tenant\'s rows');
	like(
		$err,
		qr/duplicate key value/,
		'--refresh --on-conflict=error: another tenant\'s row the database has fails the load: '
		  . first_line($err));
}
# a refresh that fails changes nothing
{
	my $shops_sql =
	  q{SELECT string_agg(s::text, ',' ORDER BY id) FROM shop.shops s};
	my $before = count('load_dst', $shops_sql);
	copy_files("$work/ins1b", "$work/ins1c", 1);
	PostgreSQL::Test::Utils::append_to_file("$work/ins1c/$last", "\nSELECT 1/0;\n");
	my ($rc, $out, $err) = xload("$work/ins1c", '--refresh');
	isnt($rc, 0, '--refresh with a failing file: exit status not 0');
	is(count('load_dst', $shops_sql),
		$before, '--refresh with a failing file: the shops did not change');
	copy_into_src('load_dst', 'got');
	is(differ('got', 'ref1b+left1'),
		'',
		'--refresh with a failing file changes nothing (one transaction): '
		  . first_line($err));
}

# 5. hostile values under client-only encodings (see test/t/file_encoding.sh)
$node->safe_psql(
	'postgres', q{
CREATE DATABASE load_enc_src ENCODING 'UTF8' TEMPLATE template0;
CREATE DATABASE load_enc_dst ENCODING 'UTF8' TEMPLATE template0;
});
my $pwn = "$work/pwned";
{
	# (a heredoc: the backslashes as they are)
	my ($rc, $out, $err) = psql_stdin(<<'SQL', '-d', 'load_enc_src', '-v', "pwn=$pwn");
CREATE EXTENSION exwiw;
CREATE TABLE public.hostile (id int PRIMARY KEY, v text);
INSERT INTO public.hostile VALUES
	(1, E'\u4e00''\n\\! touch ' || :'pwn' || E'1\n'),
	(2, E'\u4e00'),
	(3, E'\n\\! touch ' || :'pwn' || E'3\n'),
	(4, E'\u8868\\''\n\\! touch ' || :'pwn' || E'4\n'),
	(5, E'\u4e00\u4e00''\u8868''\n\\! touch ' || :'pwn' || E'5 #'''),
	(12, E'x\\''\n\\! touch ' || :'pwn' || E'12\n');
SQL
	die "the hostile table: $err" if $rc != 0;
}
mkdir "$work/hs" or die;
PostgreSQL::Test::Utils::append_to_file("$work/hs/hostile.json",
	qq{{"name": "hostile", "primary_key": "id"}\n});

# enc_fresh(): an empty hostile table in load_enc_dst that load_loader may
# load, no file touched by a test
sub enc_fresh
{
	unlink map { "$work/$_" } grep { /^pwned/ } dir_entries($work);
	$node->safe_psql(
		'load_enc_dst', q{
SET client_min_messages = warning;
DROP TABLE IF EXISTS public.hostile;
CREATE TABLE public.hostile (id int PRIMARY KEY, v text);
GRANT SELECT, INSERT ON public.hostile TO load_loader;
});
	return;
}

# digest(DB): the hostile rows' values
sub digest
{
	my ($db) = @_;
	return $node->safe_psql($db,
		q{SELECT string_agg(id || ':' || md5(v), ',' ORDER BY id) FROM public.hostile});
}

# pwned(): did a file's "\!" run?
sub pwned
{
	return scalar(grep { /^pwned/ } dir_entries($work)) > 0;
}

for my $wenc ('SJIS', 'UTF8')
{
	for my $fmt ('insert', 'copy')
	{
		{
			local $ENV{PGOPTIONS} = '';
			local $ENV{PGCLIENTENCODING} = $wenc;
			run_ok(
				[
					'exwiw', '--dbname=load_enc_src', '--target-table=hostile',
					'--ids=1,2,3,4,5,12', "--schema-dir=$work/hs",
					"--output-format=$fmt", '-q', '-o', "$work/$wenc-$fmt", '--force'
				],
				"$fmt: the export under $wenc");
		}
		my ($head) = split /\n/, slurp("$work/$wenc-$fmt/insert-001-hostile.sql");
		is($head, "SET client_encoding = '$wenc';",
			"$fmt: the $wenc export starts with its client_encoding line");
		for my $enc ('SJIS', 'BIG5', 'GBK', 'GB18030', 'UHC', 'UTF8')
		{
			enc_fresh();
			my ($rc, $out, $err);
			{
				local $ENV{PGOPTIONS} = '';
				local $ENV{PGCLIENTENCODING} = $enc;
				($rc, $out, $err) = run_cmd(
					[
						'exwiw', 'load', "$work/$wenc-$fmt", '-U', 'load_loader',
						'-d', 'load_enc_dst'
					]);
			}
			my $why =
			    $rc != 0 ? "the load failed: $err"
			  : pwned() ? 'a command ran'
			  : digest('load_enc_dst') ne digest('load_enc_src') ? 'the values differ'
			  :                                                    '';
			is($why, '',
				"$fmt: the $wenc file loaded under $enc: the exact values, nothing ran");
		}
	}
}
# without its client_encoding line, psql would run "\!" under SJIS; exwiw
# load refuses it and runs nothing
mkdir "$work/bare" or die;
PostgreSQL::Test::Utils::append_to_file(
	"$work/bare/insert-001-hostile.sql",
	join('',
		grep { !/^SET client_encoding/ }
		  split /^/, slurp("$work/UTF8-insert/insert-001-hostile.sql")));
enc_fresh();
{
	local $ENV{PGOPTIONS} = '';
	local $ENV{PGCLIENTENCODING} = 'SJIS';
	run_cmd(
		[
			'psql', '-X', '-q', '-U', 'load_loader', '-d', 'load_enc_dst', '-f',
			"$work/bare/insert-001-hostile.sql"
		]);
}
ok(pwned(),
	'control: psql runs the \\! of the file without its client_encoding line under SJIS'
);
enc_fresh();
{
	my ($rc, $out, $err);
	{
		local $ENV{PGOPTIONS} = '';
		local $ENV{PGCLIENTENCODING} = 'SJIS';
		($rc, $out, $err) = run_cmd(
			[ 'exwiw', 'load', "$work/bare", '-U', 'load_loader', '-d', 'load_enc_dst' ]);
	}
	ok(!pwned(),
		'exwiw load of the file without its client_encoding line under SJIS: nothing ran'
	) or diag($err);
	# (it may load the file, or refuse the "\!")
	ok( $rc == 0
		  || index($err, 'psql meta-command "\!" is not supported') >= 0,
		'exwiw load of the file without its client_encoding line under SJIS loads it or refuses the \\!: '
		  . first_line($err)) or diag($err);
}
mkdir "$work/meta" or die;
PostgreSQL::Test::Utils::append_to_file("$work/meta/insert-001-x.sql",
	"SET client_encoding = 'UTF8';\n\\! touch $pwn-meta\nSELECT 1;\n");
{
	my ($rc, $out, $err) = run_cmd([ 'exwiw', 'load', "$work/meta", '-d', 'load_enc_dst' ]);
	ok( $rc != 0
		  && !pwned()
		  && index($err, "$work/meta/insert-001-x.sql:2: psql meta-command") >= 0,
		'a meta-command line is refused with its file and line, and never runs')
	  or diag("exit $rc: $err");
}

# 6. --with-schema into an empty database (superuser: the DDL)
$node->safe_psql('postgres', 'CREATE DATABASE load_empty');
run_ok(
	[
		'exwiw', '--dbname=load_src', '--target-table=shops', '--ids=1',
		"--schema-dir=$work/schema", '--allow-undecided', '--with-schema',
		'-q', '-o', "$work/ws", '--force'
	],
	'export --with-schema');
{
	my ($rc, $out, $err) = run_cmd([ 'exwiw', 'load', "$work/ws", '-d', 'load_empty' ]);
	my $psql_lines = () = slurp("$work/ws/insert-000-schema.sql") =~ /^\\/mg;
	ok( $rc == 0
		  && count('load_empty', 'SELECT count(*) FROM shop.shops') > 0,
		"--with-schema: insert-000-schema.sql ($psql_lines psql lines \\restrict/\\unrestrict skipped) and the data load into an empty database"
	) or diag("exit $rc: $err");
}

# no option at all: the environment says where ("exwiw load" alone prints the help)
fresh('load_dst');
{
	my ($rc, $out, $err);
	{
		local $ENV{PGUSER} = 'load_loader';
		local $ENV{PGDATABASE} = 'load_dst';
		($rc, $out, $err) = run_cmd([ 'exwiw', 'load', "$work/copy1" ]);
	}
	ok($rc == 0, 'exwiw load DIR with no option') or diag("exit $rc: $err");
	is(rows('load_dst'),
		count('load_src',
			'SELECT ' . join(' + ', map { "(SELECT count(*) FROM ref1.$_)" } @tables)),
		'exwiw load DIR with no option loads into the environment\'s database');
}
{
	my ($rc, $out, $err) = run_cmd([ 'exwiw', 'load' ]);
	ok($out =~ /^Usage: exwiw/m || $err =~ /^Usage: exwiw/m,
		'exwiw load alone prints the help')
	  or diag("exit $rc\n$out$err");
}

# 7. usage errors
expect_error($work, '-j with --single-transaction',
	'cannot specify both --single-transaction and multiple jobs',
	'exwiw', 'load', "$work/ins1", '-j', '2', '--single-transaction', '-d', 'load_dst');
expect_error($work, '-j with --refresh',
	'cannot specify both --refresh and multiple jobs',
	'exwiw', 'load', "$work/ins1", '-j', '2', '--refresh', '-d', 'load_dst');
expect_error($work, 'no directory', 'needs the directory',
	'exwiw', 'load', '-d', 'load_dst');
expect_error($work, 'bad --on-conflict', 'invalid --on-conflict',
	'exwiw', 'load', "$work/ins1", '--on-conflict=merge', '-d', 'load_dst');
export_shops("$work/jsonl1", 'jsonl', 1);
expect_error($work, 'a JSON Lines export', 'JSON Lines files',
	'exwiw', 'load', "$work/jsonl1", '-d', 'load_dst');
expect_error(
	$work, '--on-conflict outside load',
	'apply to the load subcommand only',
	'exwiw', '--dbname=load_src', '--target-table=shops', '--ids=1',
	"--schema-dir=$work/schema", '--on-conflict=skip', '-o', "$work/x");

done_testing();
