# t/022_cli_dump.pl: exwiw dump, one table or query into files of at most N
# rows on one snapshot (issue 23).
#
# - --table --rows-per-file, every format, -j 1 and -j 3: the same
#   directory; files of at most N rows in key order; JSON Lines files that
#   concatenate to exwiw_dump_jsonl of the table; SQL and COPY files that
#   each load by themselves (loaded in reverse order) into an empty copy of
#   the table, which then equals the source (EXCEPT both ways);
# - a text key (upper case, lower case, non-ASCII): files that split where
#   the key's own order says;
# - one file with -j 2: two key ranges of whole statements, joined into
#   -j 1's file (sql, jsonl);
# - without --rows-per-file: one file, exwiw_dump's bytes (10,000 rows per
#   INSERT);
# - --query --format=jsonl --rows-per-file: the query's parts, -j 2;
# - the errors, which leave nothing behind.
# The client streams chunks of 64 kB and the functions' default is 256 kB:
# the comparisons with exwiw_dump_jsonl's and exwiw_dump's own output, of
# 2-3 MB each, also check that the chunk size changes no byte.
use strict;
use warnings FATAL => 'all';

use FindBin;
use lib $FindBin::RealBin;
use ExwiwCli;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# cat_files(DIR, NAMES...): the bytes of DIR's files NAMES, concatenated.
sub cat_files
{
	my ($dir, @names) = @_;
	return join('', map { slurp("$dir/$_") } @names);
}

# lines_over(DIR, MAX): DIR's files with more than MAX lines, as
# "name: lines".
sub lines_over
{
	my ($dir, $max) = @_;
	my @over;
	for my $f (dir_entries($dir))
	{
		my $n = () = slurp("$dir/$f") =~ /\n/g;
		push @over, "$f: $n" if $n > $max;
	}
	return @over;
}

my $node = cli_node('dump');
my $work = cli_work();

# UTF-8 and C.UTF-8, as test/run's cluster: the text key holds non-ASCII
# characters
$node->safe_psql('postgres',
	q{CREATE DATABASE cli_dump TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C.UTF-8'}
);
$ENV{PGDATABASE} = 'cli_dump';
$node->safe_psql('cli_dump', <<'SQL');
CREATE EXTENSION exwiw;
CREATE SCHEMA "Sales";
CREATE TABLE "Sales".items (id bigint PRIMARY KEY, name text, price numeric, at timestamptz, tags text[]);
INSERT INTO "Sales".items SELECT g * 3, CASE WHEN g % 9 = 0 THEN NULL ELSE E'it''em\n\\' || g END, g / 7.0,
	timestamptz '2024-01-01 00:00:00+00' + g * interval '1 hour', ARRAY['a', g::text]
FROM generate_series(1, 25000) g;
CREATE TABLE "Sales".items_copy (LIKE "Sales".items);
CREATE TABLE "Sales".nokey (a int, b text);
INSERT INTO "Sales".nokey VALUES (1, 'x'), (2, 'y');
SQL
my $t = '"Sales".items';

for my $fmt (qw(jsonl sql copy))
{
	run_ok(
		[
			'exwiw', 'dump', "--table=$t", "--format=$fmt",
			'--rows-per-file=1000', '-j', '1', '-o', "$work/$fmt.1"
		],
		"dump --format=$fmt --rows-per-file=1000 -j 1");
	run_ok(
		[
			'exwiw', 'dump', "--table=$t", "--format=$fmt",
			'--rows-per-file=1000', '-j', '3', '-o', "$work/$fmt.3"
		],
		"dump --format=$fmt --rows-per-file=1000 -j 3");
	my @files = dir_entries("$work/$fmt.3");
	my $ext = $fmt eq 'jsonl' ? 'jsonl' : 'sql';
	ok(same_dirs("$work/$fmt.1", "$work/$fmt.3"),
		"dump --format=$fmt --rows-per-file=1000: -j 3 = -j 1");
	is(scalar(@files), 25, "dump --format=$fmt --rows-per-file=1000: 25 files");
	is($files[0], "insert-001-items.part01.$ext",
		"dump --format=$fmt --rows-per-file=1000: the first file's name");
}

# JSON Lines: at most 1000 lines per file, the table in key order
my @jsonl = dir_entries("$work/jsonl.3");
my $all = cat_files("$work/jsonl.3", @jsonl);
is(scalar(() = $all =~ /\n/g), 25000, 'dump --format=jsonl: 25,000 lines');
my @over = lines_over("$work/jsonl.3", 1000);
is("@over", '', 'dump --format=jsonl: at most 1000 rows per file');
my ($rc, $want, $err) = run_cmd(
	[
		'psql', '-X', '-A', '-t', '-c',
		q{SELECT exwiw_dump_jsonl('SELECT * FROM "Sales".items ORDER BY id')}
	]);
is($rc, 0, 'exwiw_dump_jsonl of the table') or diag($err);
ok($want eq $all,
	'dump --format=jsonl: the files concatenate to exwiw_dump_jsonl of the table (byte for byte)'
) or diag(sprintf('%d bytes, want %d', length($all), length($want)));

# a text key: the files split where the key's own order says
$node->safe_psql(
	'cli_dump', q{
CREATE TABLE "Sales".words (w text PRIMARY KEY, n int);
INSERT INTO "Sales".words SELECT CASE g % 3 WHEN 0 THEN upper(md5(g::text)) WHEN 1 THEN md5(g::text) ELSE 'é' || g END, g
FROM generate_series(1, 5000) g;
});
run_ok(
	[
		'exwiw', 'dump', '--table="Sales".words', '--format=jsonl',
		'--rows-per-file=700', '-j', '2', '-o', "$work/words"
	],
	'dump --rows-per-file=700 of a text key');
my @words = dir_entries("$work/words");
is(scalar(@words), 8, 'dump --rows-per-file=700 of a text key: 8 files');
@over = lines_over("$work/words", 700);
is("@over", '', 'dump of a text key: at most 700 rows per file');
($rc, $want, $err) = run_cmd(
	[
		'psql', '-X', '-A', '-t', '-c',
		q{SELECT exwiw_dump_jsonl('SELECT * FROM "Sales".words ORDER BY w')}
	]);
is($rc, 0, 'exwiw_dump_jsonl of the text key\'s table') or diag($err);
ok($want eq cat_files("$work/words", @words),
	'dump of a text key: the files concatenate to the table in key order (byte for byte)'
);

# one file, -j 2: two key ranges of whole statements (10,000 and 15,000
# rows), joined; the file equals -j 1's
for my $fmt (qw(sql jsonl))
{
	run_ok(
		[
			'exwiw', 'dump', "--table=$t", "--format=$fmt", '-j', '1', '-o',
			"$work/one.$fmt.1"
		],
		"dump --format=$fmt -j 1, one file");
	my ($rc2, $out2, $log) = run_cmd(
		[
			'exwiw', 'dump', "--table=$t", "--format=$fmt", '-j', '2', '-o',
			"$work/one.$fmt.2", '--log-level=debug'
		]);
	is($rc2, 0, "dump --format=$fmt -j 2, one file") or diag($log);
	ok(same_dirs("$work/one.$fmt.1", "$work/one.$fmt.2"),
		"dump --format=$fmt -j 2 of 25,000 rows: the file equals -j 1's");
	like($log, qr/joined 2 parts/,
		"dump --format=$fmt -j 2 of 25,000 rows: two key ranges joined");
}

# SQL and COPY: each file loads by itself
for my $fmt (qw(sql copy))
{
	$node->safe_psql('cli_dump', 'TRUNCATE "Sales".items_copy');
	my @bad;
	for my $f (reverse dir_entries("$work/$fmt.3"))
	{
		my $s = slurp("$work/$fmt.3/$f");
		$s =~ s/^(INSERT INTO|COPY) "Sales".items /$1 "Sales".items_copy /mg;
		my ($rc3, $out3, $err3) =
		  run_cmd([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1' ], stdin => $s);
		push @bad, "$f: $err3" if $rc3 != 0;
	}
	is("@bad", '',
		"dump --format=$fmt: each of the 25 files loads by itself (in reverse order)"
	);
	is( $node->safe_psql(
			'cli_dump',
			'SELECT count(*) FROM ((TABLE "Sales".items EXCEPT ALL TABLE "Sales".items_copy) UNION ALL (TABLE "Sales".items_copy EXCEPT ALL TABLE "Sales".items)) d'
		),
		'0',
		"dump --format=$fmt: the copy equals the table (EXCEPT both ways)");
}

# one file without --rows-per-file: exwiw_dump's bytes
run_ok([ 'exwiw', 'dump', "--table=$t", '-o', "$work/one" ],
	'dump --table without --rows-per-file');
is(join(' ', dir_entries("$work/one")),
	'insert-001-items.sql', 'dump --table without --rows-per-file: one file');
($rc, $want, $err) = run_cmd(
	[
		'psql', '-X', '-A', '-t', '-c',
		q{SELECT exwiw_dump('SELECT * FROM "Sales".items ORDER BY id', 'Sales.items', 10000)}
	]);
is($rc, 0, 'exwiw_dump of the table') or diag($err);
ok(-f "$work/one/insert-001-items.sql"
	  && $want eq slurp("$work/one/insert-001-items.sql"),
	'dump --table without --rows-per-file: exwiw_dump\'s bytes');

# a query's parts, JSON Lines
run_ok(
	[
		'exwiw', 'dump',
		'--query=SELECT id, name FROM "Sales".items WHERE id % 2 = 0 ORDER BY id',
		'--table=evens', '--format=jsonl', '--rows-per-file=5000', '-j', '2',
		'-o', "$work/q"
	],
	'dump --query --format=jsonl --rows-per-file=5000 -j 2');
my @q = dir_entries("$work/q");
is( "@q",
	'insert-001-evens.part1.jsonl insert-001-evens.part2.jsonl insert-001-evens.part3.jsonl',
	'dump --query --rows-per-file=5000: 3 parts');
($rc, $want, $err) = run_cmd(
	[
		'psql', '-X', '-A', '-t', '-c',
		q{SELECT exwiw_dump_jsonl('SELECT id, name FROM "Sales".items WHERE id % 2 = 0 ORDER BY id')}
	]);
is($rc, 0, 'exwiw_dump_jsonl of the query') or diag($err);
ok($want eq cat_files("$work/q", @q),
	'dump --query: the parts concatenate to the query\'s JSON Lines');

# errors
expect_error($work, 'no --table or --query', 'needs --table or --query',
	'exwiw', 'dump', '-o', "$work/e");
expect_error($work, '--query, sql, --rows-per-file', 'needs --format=jsonl',
	'exwiw', 'dump', '--query=SELECT 1', '--rows-per-file=10', '-o', "$work/e");
expect_error($work, 'no primary key', 'has no single-column primary key',
	'exwiw', 'dump', '--table="Sales".nokey', '--rows-per-file=10', '-o',
	"$work/e");
expect_error($work, 'unknown table', 'does not exist',
	'exwiw', 'dump', '--table=nosuch', '-o', "$work/e");
expect_error($work, 'bad format', q{invalid format 'xml'},
	'exwiw', 'dump', "--table=$t", '--format=xml', '-o', "$work/e");
expect_error($work, '--rows-per-file=0', 'must be a positive integer',
	'exwiw', 'dump', "--table=$t", '--rows-per-file=0', '-o', "$work/e");
expect_error($work, 'export options', 'takes no',
	'exwiw', 'dump', "--table=$t", '--ids=1', '-o', "$work/e");
expect_error(
	$work, 'dump options on export',
	'apply to the dump subcommand only',
	'exwiw', '--target-table=x', '--ids=1', "--schema-dir=$work",
	'--rows-per-file=3', '-o', "$work/e");

done_testing();
