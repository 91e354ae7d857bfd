# t/020_cli_parts.pl: the client's parts of files (issue 23).
#
# - -j 2 deals the parts of a large file to two workers (the plan's row
#   estimates decide it; --log-level=debug says so) and joins them: the
#   directory equals -j 1's byte for byte, in every format; exwiw dump
#   --table -j 2 (one file, two parts) equals -j 1;
# - --split-rows=N writes insert-NNN-<table>.partK.sql (.jsonl) files of at
#   most N rows: each part loads on its own, in its own session, as a role
#   that is not a superuser and does not own the tables (so every foreign
#   key is checked), and adds at most N rows; the setval line is in the
#   last part only; the parts together equal the whole export loaded
#   elsewhere (EXCEPT both ways, every table) and the sequences agree;
# - edge cases: N larger than every table (one .part1 file per table), an
#   empty table (no file), N=1 (one row per file), JSON Lines parts that
#   concatenate to the whole file; invalid N is an error that leaves
#   nothing behind, on the client and on the server;
# - exwiw.io_concurrency=64 (index probes read ahead, bitmap heap scans
#   with 64 reads in flight) gives the same directory.
use strict;
use warnings FATAL => 'all';

use FindBin;
use lib $FindBin::RealBin;
use ExwiwCli;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = cli_node('parts');
my $work = cli_work();

my $ddl = q{
CREATE TABLE shops (id bigserial PRIMARY KEY, name text NOT NULL);
CREATE TABLE orders (id bigserial PRIMARY KEY, shop_id bigint NOT NULL REFERENCES shops,
	note text, amount numeric, at timestamptz);
CREATE INDEX ON orders (shop_id);
CREATE TABLE refunds (id bigserial PRIMARY KEY, shop_id bigint NOT NULL REFERENCES shops,
	qty int CHECK (qty > 0));
CREATE INDEX ON refunds (shop_id);
CREATE TABLE notes (id bigserial PRIMARY KEY, shop_id bigint NOT NULL REFERENCES shops, body text);
CREATE INDEX ON notes (shop_id);
};
$node->safe_psql(
	'postgres', q{
CREATE ROLE cli_parts_loader LOGIN NOSUPERUSER;
CREATE DATABASE cli_parts;
});
$ENV{PGDATABASE} = 'cli_parts';
$node->safe_psql('cli_parts', "CREATE EXTENSION exwiw;\n$ddl");
$node->safe_psql(
	'cli_parts', q{
INSERT INTO shops (name) SELECT 'shop ' || g FROM generate_series(1, 3) g;
-- shop 3 has 5 orders; shops 1 and 2 share the rest
INSERT INTO orders (shop_id, note, amount, at)
SELECT CASE WHEN g <= 5 THEN 3 ELSE 1 + g % 2 END, E'order ''' || g, g / 7.0,
	timestamptz '2024-01-01 00:00:00+00' + g * interval '1 minute'
FROM generate_series(1, 60000) g;
INSERT INTO refunds (shop_id, qty) SELECT 1 + g % 3, 1 + g % 5 FROM generate_series(1, 3000) g;
ANALYZE;
});
run_ok(
	[
		'exwiw', 'schema', 'generate', '--from-db', '--dbname=cli_parts',
		"--schema-dir=$work/schema"
	],
	'schema generate');

# xw(ARGS...): the export command with ARGS
sub xw
{
	return (
		'exwiw', '--dbname=cli_parts', "--schema-dir=$work/schema",
		'--allow-undecided', @_);
}

# -j 2 with parts = -j 1, every format (--insert-only: a file in parts has
# no delete file, so parts are dealt only without them)
for my $fmt (qw(insert copy jsonl))
{
	my @e = ('--target-table=shops', '--ids=1,2', "--output-format=$fmt",
		'--insert-only');
	run_ok([ xw(@e, '-j', '1', '-o', "$work/$fmt.1") ],
		"export --output-format=$fmt -j 1");
	my ($rc, $out, $log) =
	  run_cmd([ xw(@e, '-j', '2', '-o', "$work/$fmt.2", '--log-level=debug') ]);
	is($rc, 0, "export --output-format=$fmt -j 2") or diag($log);
	ok(same_dirs("$work/$fmt.1", "$work/$fmt.2"),
		"export --output-format=$fmt -j 2: the directory equals -j 1's");
	like($log, qr/split into 2 parts/,
		"export --output-format=$fmt -j 2: the orders file in 2 parts");
	like(
		$log,
		qr/joined 2 parts into insert-[0-9]*-orders/,
		"export --output-format=$fmt -j 2: from 2 workers, joined");
}

# exwiw.io_concurrency (probes read ahead, reads in flight): the same bytes
{
	local $ENV{PGOPTIONS} = '-c exwiw.io_concurrency=64';
	run_ok(
		[
			xw(
				'--target-table=shops', '--ids=1,2', '--insert-only', '-j', '2',
				'-o', "$work/io")
		],
		'export with exwiw.io_concurrency=64');
}
ok(same_dirs("$work/insert.1", "$work/io"),
	'exwiw.io_concurrency=64: the same directory');

# exwiw dump --table -j 2: one file in two parts
for my $fmt (qw(sql copy jsonl))
{
	run_ok(
		[
			'exwiw', 'dump', '--table=orders', "--format=$fmt", '-j', '1', '-o',
			"$work/d$fmt.1"
		],
		"dump --table=orders --format=$fmt -j 1");
	my ($rc, $out, $log) = run_cmd(
		[
			'exwiw', 'dump', '--table=orders', "--format=$fmt", '-j', '2', '-o',
			"$work/d$fmt.2", '--log-level=debug'
		]);
	is($rc, 0, "dump --table=orders --format=$fmt -j 2") or diag($log);
	ok(same_dirs("$work/d$fmt.1", "$work/d$fmt.2"),
		"dump --table=orders --format=$fmt -j 2: the file equals -j 1's");
	is(scalar(dir_entries("$work/d$fmt.2")),
		1, "dump --table=orders --format=$fmt -j 2: one file")
	  or diag(join(' ', dir_entries("$work/d$fmt.2")));
	like($log, qr/joined 2 parts/,
		"dump --table=orders --format=$fmt -j 2: two parts joined");
}

# --split-rows: destination databases, loaded as a non-superuser
for my $db (qw(cli_parts_whole cli_parts_split))
{
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	$node->safe_psql(
		$db, qq{$ddl
GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA public TO cli_parts_loader;
GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO cli_parts_loader;
});
}
my $N = 7000;
run_ok(
	[
		xw(
			'--target-table=shops', '--ids=1,2', "--split-rows=$N",
			'--insert-only', '-j', '2', '-o', "$work/split")
	],
	"export --split-rows=$N -j 2");
# each file in its own session, in name order, counting the rows it adds
my (@bad, @over);
my @split = dir_entries("$work/split");
for my $f (@split)
{
	my $t = $f =~ s/^insert-[0-9]*-(.*)\.part[0-9]*\.sql$/$1/r;
	my $before =
	  $node->safe_psql('cli_parts_split', "SELECT count(*) FROM $t");
	my ($rc, $out, $err) = run_cmd(
		[
			'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-U',
			'cli_parts_loader', '-d', 'cli_parts_split', '-f',
			"$work/split/$f"
		]);
	push @bad, "$f: $err" if $rc != 0;
	my $after = $node->safe_psql('cli_parts_split', "SELECT count(*) FROM $t");
	my $added = $after - $before;
	push @over, "$f: $added rows" if $added > $N || $added < 1;
}
is("@bad", '',
	"--split-rows=$N: each part loads on its own as a non-superuser (keys checked)"
);
is("@over", '', "--split-rows=$N: each part adds 1 to $N rows");
is(scalar(grep { /orders\.part/ } @split), 9, "--split-rows=$N: 9 orders parts")
  or diag("@split");
my @setvals =
  grep { /orders\.part.*\.sql\z/ && slurp("$work/split/$_") =~ /setval/ }
  @split;
my @last = grep { /orders\.part9\.sql/ } @split;
ok(@last == 1 && "@setvals" eq "@last",
	"--split-rows=$N: setval in the last orders part only")
  or diag("setval in: @setvals");

my $whole =
  load_files("$work/insert.1", '-U', 'cli_parts_loader', '-d', 'cli_parts_whole');
is($whole, '', 'the whole export loads as a non-superuser');
my $diff = 0;
for my $t (qw(shops orders refunds notes))
{
	$node->safe_psql('cli_parts_split', "CREATE TABLE whole_$t (LIKE $t)");
	my ($rc, $copy, $err) = run_cmd(
		[ 'psql', '-X', '-q', '-d', 'cli_parts_whole', '-c', "COPY $t TO STDOUT" ]);
	is($rc, 0, "COPY $t out of the whole export's database") or diag($err);
	($rc, my $out, $err) = run_cmd(
		[
			'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d',
			'cli_parts_split', '-c', "COPY whole_$t FROM STDIN"
		],
		stdin => $copy);
	is($rc, 0, "COPY whole_$t in") or diag($err);
	$diff += $node->safe_psql('cli_parts_split',
		"SELECT count(*) FROM ((TABLE $t EXCEPT ALL TABLE whole_$t) UNION ALL (TABLE whole_$t EXCEPT ALL TABLE $t)) d"
	);
}
is($diff, 0,
	"--split-rows=$N: the parts together equal the whole export (EXCEPT both ways, every table)"
);
my $seqs =
  q{SELECT string_agg(last_value::text, ',' ORDER BY sequencename) FROM pg_sequences};
is( $node->safe_psql('cli_parts_split', $seqs),
	$node->safe_psql('cli_parts_whole', $seqs),
	"--split-rows=$N: the sequences agree");
cmp_ok($node->safe_psql('cli_parts_split', 'SELECT count(*) FROM orders'),
	'>', 50000, "--split-rows=$N: more than 50,000 orders loaded");

# N larger than every table; the empty table has no file
run_ok(
	[
		xw(
			'--target-table=shops', '--ids=1,2', '--split-rows=1000000',
			'--insert-only', '-o', "$work/big")
	],
	'export --split-rows=1000000');
my @big = dir_entries("$work/big");
is( join(' ', map { s/^insert-[0-9]*-//r } @big),
	'shops.part1.sql orders.part1.sql refunds.part1.sql',
	'--split-rows larger than every table: one .part1 file per table; the empty table has none'
);
for my $f (@big)
{
	my $w = $f =~ s/\.part1//r;
	ok(-f "$work/insert.1/$w"
		  && slurp("$work/big/$f") eq slurp("$work/insert.1/$w"),
		"--split-rows larger than every table: $f has $w\'s bytes");
}

# N=1 on the small shop, SQL and JSON Lines
run_ok(
	[
		xw(
			'--target-table=shops', '--ids=3', '--split-rows=1', '--insert-only',
			'-o', "$work/one")
	],
	'export --split-rows=1');
run_ok([ xw('--target-table=shops', '--ids=3', '-o', "$work/one.whole") ],
	'export of shop 3');
run_ok(
	[
		xw(
			'--target-table=shops', '--ids=3', '--split-rows=1',
			'--output-format=jsonl', '-j', '2', '-o', "$work/onej")
	],
	'export --split-rows=1 --output-format=jsonl -j 2');
run_ok(
	[
		xw(
			'--target-table=shops', '--ids=3', '--output-format=jsonl', '-o',
			"$work/onej.whole")
	],
	'export --output-format=jsonl of shop 3');
$node->safe_psql('cli_parts_split', 'TRUNCATE shops, orders, refunds, notes');
@bad = ();
my @one = dir_entries("$work/one");
for my $f (@one)
{
	my ($rc, $out, $err) = run_cmd(
		[
			'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-U',
			'cli_parts_loader', '-d', 'cli_parts_split', '-f', "$work/one/$f"
		]);
	push @bad, "$f: $err" if $rc != 0;
}
is("@bad", '', '--split-rows=1: every file loads on its own');
is(scalar(grep { /orders\.part/ } @one), 5, '--split-rows=1: 5 orders files')
  or diag("@one");
is($node->safe_psql('cli_parts_split', 'SELECT count(*) FROM orders'),
	'5', '--split-rows=1: they add the 5 orders');
my @onej = dir_entries("$work/onej");
my @onej_orders =
  sort { ($a =~ /\.part([0-9]+)/)[0] <=> ($b =~ /\.part([0-9]+)/)[0] }
  grep { /orders\.part/ } @onej;
is(scalar(@onej_orders), 5, '--split-rows=1 --output-format=jsonl: 5 orders files')
  or diag("@onej");
my @not_one =
  grep { my $n = () = slurp("$work/onej/$_") =~ /\n/g; $n != 1 } @onej;
is("@not_one", '', '--split-rows=1 --output-format=jsonl: one line per file');
my @whole_orders = grep { /orders\.jsonl\z/ } dir_entries("$work/onej.whole");
ok( @whole_orders == 1
	  && join('', map { slurp("$work/onej/$_") } @onej_orders) eq
	  slurp("$work/onej.whole/$whole_orders[0]"),
	'--split-rows=1: JSON Lines parts (-j 2) concatenate to the whole file');

# invalid N
expect_error($work, '--split-rows=0', 'must be a positive integer',
	xw('--target-table=shops', '--ids=1', '--split-rows=0', '-o', "$work/e"));
expect_error($work, '--split-rows=-3', 'must be a positive integer',
	xw('--target-table=shops', '--ids=1', '--split-rows=-3', '-o', "$work/e"));
expect_error($work, '--split-rows=abc', 'an integer is expected',
	xw('--target-table=shops', '--ids=1', '--split-rows=abc', '-o', "$work/e"));
expect_error(
	$work, 'explain --split-rows',
	'not applicable in .explain. subcommand: --split-rows',
	'exwiw', 'explain', '--dbname=cli_parts', "--schema-dir=$work/schema",
	'--target-table=shops', '--ids=1', '--split-rows=5');
my ($rc, $out, $err) = run_cmd(
	[
		'psql', '-X', '-A', '-t', '-c',
		q{SELECT count(*) FROM exwiw_export('shops', '{1}', NULL, allow_undecided => true, split_rows => 0)}
	]);
like($out . $err, qr/split_rows must be positive/,
	'exwiw_export(split_rows => 0) is an error');

done_testing();
