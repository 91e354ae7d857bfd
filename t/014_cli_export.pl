# t/014_cli_export.pl: the exwiw client's export, end to end.
#
# - The directory the client writes equals, byte for byte, what the
#   doc/sql.md's SQL recipe writes (psql + the NUL-separated read loop), for
#   -j 1, -j 2 and -j 3, in every format (insert, copy, jsonl), on the
#   shop fixture and on the shapes fixture (partitions, inheritance,
#   composite keys, "Odd Name", and "a/b", whose file is insert-NNN-a%2Fb).
# - --with-schema: insert-000-schema.sql, idempotent (it loads twice into an
#   empty database), then the data files load on top of it.
# - The output directory: refused when not empty (stdin not a terminal),
#   replaced whole with --force (nothing of the old one stays), a symbolic
#   link to a directory is followed, parents are created.
# - The schema config as one JSON file (an array, or {"tables": [...]}).
# - The YAML run config (./exwiw.yml, -c FILE; flags win; paths relative
#   to the file), connection by flags, by a conninfo string (--dbname), by
#   the environment; --after-insert-hook and its environment; --help,
#   --version, no arguments; off a terminal no progress display, and the
#   server's notices each once, whatever -j; -v prints the summary line.
# - -Z gzip|zstd[:LEVEL]|LEVEL: the files compressed, byte for byte the
#   plain export's once decompressed, -j 1 and -j 2.
# - manifest.json: each file's rows, bytes and SHA-256, the snapshot and the
#   run; exwiw verify passes on the export, fails on a changed byte, an
#   added or a removed file, and on a row whose foreign key points outside
#   the export (INSERT and COPY; a table named ..._values, a column named
#   "values"); load refuses a changed directory.
# - --max-rows, --max-bytes: over a limit, refused before anything is
#   written (no directory, a directory there before untouched), the
#   largest tables named; at the limit, the files hold the rows counted;
#   bad values refused.
use strict;
use warnings FATAL => 'all';

use Cwd qw(abs_path getcwd);
use Digest::SHA;
use JSON::PP;
use File::Path qw(make_path rmtree);
use FindBin;
use lib $FindBin::RealBin;
use ExwiwCli;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $root = getcwd();
my $node = cli_node('export');
my $work = abs_path(cli_work());
# the cluster's bootstrap superuser: the OS user's name
my $user = getpwuid($>);

# visible(DIR): DIR's entries but dot files (ls), sorted.
sub visible
{
	return grep { !/^\./ && $_ ne 'manifest.json' } dir_entries($_[0]);
}

# write_file(FILE, TEXT): FILE holds TEXT.

# head(N, TEXT): TEXT's first N lines (head -N).
sub head
{
	my ($n, $text) = @_;
	my @l = split /\n/, $text;
	return join('', map { "$_\n" } @l[ 0 .. ($n < @l ? $n : @l) - 1 ]);
}

# temporaries(): the temporary .exwiw-* directories exwiw left in $work.
sub temporaries
{
	return grep { /^\.exwiw-/ } dir_entries($work);
}

$node->safe_psql(
	'postgres', q{
CREATE DATABASE cli_shop;
CREATE DATABASE cli_shapes;
CREATE DATABASE cli_load;
});
for (
	[ 'cli_shop', 'test/subset/fixture.sql' ],
	[ 'cli_shapes', 'test/subset/shapes.sql' ])
{
	my ($db, $fixture) = @$_;
	run_ok(
		[
			'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $db,
			'-c', 'CREATE EXTENSION exwiw', '-f', $fixture
		],
		"$db: $fixture");
}

$ENV{PGOPTIONS} = '-c search_path=shop,public -c client_min_messages=warning';
run_ok(
	[
		'exwiw', 'schema', 'generate', '--from-db', '--dbname=cli_shop',
		"--schema-dir=$work/shop-schema"
	],
	'schema generate (shop)');
{
	local $ENV{PGOPTIONS} =
	  '-c search_path=shapes,public -c client_min_messages=warning';
	run_ok(
		[
			'exwiw', 'schema', 'generate', '--from-db', '--dbname=cli_shapes',
			"--schema-dir=$work/shapes-schema"
		],
		'schema generate (shapes)');
}

# compare(LABEL, DB, SCHEMA, TARGET, IDS, FORMAT, JOBS): the recipe and the
# client, compared
sub compare
{
	my ($label, $db, $schema, $target, $ids, $fmt, $jobs) = @_;
	my $cfg = config_array($schema);
	rmtree("$work/recipe");
	rmtree("$work/cli");
	# the client writes the delete files too, but for JSON Lines
	my $deletes = $fmt eq 'jsonl' ? 'false' : 'true';
	is( recipe(
			"$work/recipe",
			"SELECT (e).file_name, (e).chunk FROM (SELECT exwiw_export('$target', '{$ids}', :'cfg', '$fmt', true, deletes => $deletes) AS e) s;",
			'-d', $db, '-v', "cfg=$cfg"),
		0,
		"$label: the SQL recipe");
	my ($rc, $out, $err) = run_cmd(
		[
			'exwiw', "--dbname=$db", "--target-table=$target", "--ids=$ids",
			"--schema-dir=$schema", "--output-format=$fmt", '--allow-undecided',
			'-j', $jobs, '-o', "$work/cli"
		]);
	if (!ok($rc == 0, "$label: exwiw"))
	{
		diag("exit $rc\n$err");
		return;
	}
	# off a terminal: the server's notices about the data, each once
	# however many connections computed the sets, and no progress display
	unlike($err, qr/[\r\e]/, "$label: stderr is not a terminal: no progress display");
	my %seen;
	$seen{$_}++ for grep { !/^exwiw: (detail|hint): / } split /\n/, $err;
	is(join("\n", grep { $seen{$_} > 1 } sort keys %seen),
		'', "$label: each message once, with -j $jobs");
	my $n = -d "$work/cli" ? scalar(visible("$work/cli")) : 0;
	ok(same_dirs("$work/recipe", "$work/cli"),
		"$label: $n files, byte-identical to the SQL recipe")
	  or diag(head(5, (run_cmd([ 'diff', '-r', "$work/recipe", "$work/cli" ]))[1]));
	return;
}

for my $fmt (qw(insert copy jsonl))
{
	for my $j (1, 2, 3)
	{
		compare("shop $fmt -j $j", 'cli_shop', "$work/shop-schema", 'shops', '1,2',
			$fmt, $j);
	}
}
$ENV{PGOPTIONS} = '-c search_path=shapes,public -c client_min_messages=warning';
for my $fmt (qw(insert copy jsonl))
{
	for my $j (1, 2)
	{
		compare("shapes $fmt -j $j", 'cli_shapes', "$work/shapes-schema", 'shops',
			'1', $fmt, $j);
		my $ext = $fmt eq 'jsonl' ? 'jsonl' : 'sql';
		my @ab = -d "$work/cli" ? grep { /^insert-[0-9]+-a%2Fb\.$ext\z/ }
		  visible("$work/cli") : ();
		ok(@ab, "shapes $fmt -j $j: the table \"a/b\" has its file (@ab)");
	}
}

# -v: the summary line off a terminal, as pg_dump -v users expect
{
	local $ENV{PGOPTIONS} = '-c search_path=shop,public -c client_min_messages=warning';
	rmtree("$work/verbose");
	my ($rc, $out, $err) = run_cmd(
		[
			'exwiw', '--dbname=cli_shop', '--target-table=shops', '--ids=1,2',
			"--schema-dir=$work/shop-schema", '--allow-undecided', '-v',
			'-o', "$work/verbose"
		]);
	is($rc, 0, '-v: the export') or diag($err);
	like($err, qr/^exwiw: wrote \d+ files, [\d,]+ rows, [\d.]+ [kMG]?B to \Q$work\E\/verbose in [\d.]+ s$/m,
		'-v off a terminal: the summary line') or diag($err);
	($rc, $out, $err) = run_cmd(
		[
			'exwiw', '--dbname=cli_shop', '--target-table=shops', '--ids=1,2',
			"--schema-dir=$work/shop-schema", '--allow-undecided',
			'-o', "$work/verbose", '--force'
		]);
	unlike($err, qr/^exwiw: wrote/m, 'without -v off a terminal: no summary line');
}

# -Z: every file compressed as it is written, byte for byte the plain
# export's once decompressed (gunzip, zstd -d), with -j 1 and -j 2 (a file
# dealt in parts joins gzip members or zstd frames); exwiw load reads them
{
	local $ENV{PGOPTIONS} = '-c search_path=shop,public -c client_min_messages=warning';
	my @base = (
		'exwiw', '--dbname=cli_shop', '--target-table=shops', '--ids=1,2',
		"--schema-dir=$work/shop-schema", '--allow-undecided', '--force');
	rmtree("$work/plain");
	run_ok([ @base, '-o', "$work/plain" ], '-Z: the plain export');
	my @plain = visible("$work/plain");
	for my $z ([ 'gzip', '.gz', 'gzip' ], [ 'zstd:3', '.zst', 'zstd' ], [ '5', '.gz', 'gzip' ])
	{
		my ($arg, $suffix, $tool) = @$z;
		for my $j (1, 2)
		{
			my $dir = "$work/z-$j";
			rmtree($dir);
			run_ok([ @base, "-Z$arg", '-j', $j, '-o', $dir ], "-Z $arg -j $j: the export");
			my @got = visible($dir);
			is(join(' ', @got), join(' ', map { "$_$suffix" } @plain),
				"-Z $arg -j $j: every file, named with $suffix");
			my @differ = grep {
				my ($rc, $out) = run_cmd([ $tool, '-dc', "$dir/$_$suffix" ]);
				$rc != 0 || $out ne slurp("$work/plain/$_")
			} @plain;
			is("@differ", '', "-Z $arg -j $j: each file decompresses to the plain export's bytes");
		}
	}

	# manifest.json: every file with its rows, bytes and SHA-256, the
	# snapshot, the run; exwiw verify checks a directory against it, and
	# load verifies first
	my $dir = "$work/z-2";    # the last -Z 5 -j 2 export
	my $m = eval { JSON::PP->new->decode(slurp("$dir/manifest.json")) };
	ok($m, 'manifest.json: written, and JSON') or diag($@);
	$m //= {};
	is(join(' ', map { $_->{name} } @{ $m->{files} // [] }),
		join(' ', visible($dir)), 'manifest.json lists every file, in load order');
	my @wrong = grep {
		my $f = $_;
		!(-s "$dir/$f->{name}" == $f->{bytes}
			&& Digest::SHA->new(256)->addfile("$dir/$f->{name}")->hexdigest eq $f->{sha256})
	} @{ $m->{files} // [] };
	is(scalar(@wrong), 0, 'manifest.json: each file\'s bytes and SHA-256 are the file\'s');
	my ($pm) = eval { JSON::PP->new->decode(slurp("$work/plain/manifest.json")) };
	my %plain_rows = map { ($_->{name} => $_->{rows}) } @{ $pm->{files} // [] };
	my @rows_wrong = grep {
		my $f = $_;
		my $plain = $f->{name} =~ s/\.gz\z//r;
		my @tuples = slurp("$work/plain/$plain") =~ /^\(/mg;
		$f->{name} =~ /^insert-/ && (($f->{rows} // -1) != @tuples || ($plain_rows{$plain} // -1) != @tuples)
	} @{ $m->{files} // [] };
	is("@{[ map { $_->{name} } @rows_wrong ]}", '',
		'manifest.json: the rows of each insert file, -Z and -j 2 as plain');
	is_deeply([ $m->{target_table}, $m->{ids}, $m->{format}, $m->{compress} ],
		[ 'shops', [ '1', '2' ], 'insert', 'gzip' ], 'manifest.json: the run');
	like($m->{snapshot} // '', qr/^\d+:\d+:/, 'manifest.json: the export\'s snapshot');
	like($m->{config_sha256} // '', qr/^[0-9a-f]{64}\z/, 'manifest.json: the config\'s digest');
	ok(!grep({ !defined $_->{mask} || $_->{mask} !~ /^[a-z_]+\z/ } @{ $m->{masks} // [] }),
		'manifest.json: masks by kind only');
	my $v = run_ok([ 'exwiw', 'verify', $dir ], 'verify: the directory as written');
	my ($vrc, $vout, $verr) = run_cmd([ 'exwiw', 'verify', $dir ]);
	like($verr, qr/verified \d+ files of \Q$dir\E against manifest\.json/, 'verify: says so');
	# one changed byte, an added file, a removed file
	my ($first) = grep { /^insert-/ } visible($dir);
	my $bytes = slurp("$dir/$first");
	substr($bytes, -5, 1) = chr(ord(substr($bytes, -5, 1)) ^ 1);
	write_file("$dir/$first", $bytes);
	($vrc, $vout, $verr) = run_cmd([ 'exwiw', 'verify', $dir ]);
	is($vrc, 1, 'verify: a changed byte fails');
	like($verr, qr/\Q$first\E: its SHA-256 is not the one in manifest\.json/, 'verify: names the changed file')
	  or diag($verr);
	($vrc, $vout, $verr) = run_cmd([ 'exwiw', 'load', '--dbname=cli_shop', $dir ]);
	is($vrc, 1, 'load: refuses a directory that is not what the export wrote');
	like($verr, qr/--no-verify/, 'load: names --no-verify');
	rmtree($dir);
	run_ok([ @base, '-Z5', '-j', 2, '-o', $dir ], 'the export again');
	write_file("$dir/insert-999-extra.sql", "SELECT 1;\n");
	($vrc, $vout, $verr) = run_cmd([ 'exwiw', 'verify', $dir ]);
	like($verr, qr/insert-999-extra\.sql: not in manifest\.json/, 'verify: an added file fails');
	unlink("$dir/insert-999-extra.sql", "$dir/$first");
	($vrc, $vout, $verr) = run_cmd([ 'exwiw', 'verify', $dir ]);
	like($verr, qr/\Q$first\E: listed in manifest\.json, but could not open/, 'verify: a removed file fails');
	($vrc, $vout, $verr) = run_cmd([ 'exwiw', 'verify', "$work/recipe" ]);
	like($verr, qr/has no manifest\.json/, 'verify: a directory without a manifest');

	# the foreign keys inside the export: a parent row taken out of its
	# file, the manifest's digest made to match, fails on the rows that
	# point to it, named (INSERT and COPY files)
	for my $fmt ('insert', 'copy')
	{
		my $fk = "$work/fk-$fmt";
		run_ok([ @base, "--output-format=$fmt", '-o', $fk ], "verify's foreign keys: the $fmt export");
		($vrc, $vout, $verr) = run_cmd([ 'exwiw', 'verify', $fk ]);
		is($vrc, 0, "verify: the $fmt export's foreign keys resolve inside it") or diag($verr);
		like($verr, qr/and ([1-9]\d*) foreign keys inside it/, "verify: $fmt: says how many keys it checked");
		my $fm = JSON::PP->new->decode(slurp("$fk/manifest.json"));
		ok((grep { $_->{constraint} eq 'orders_shop_id_fkey' && $_->{references} eq 'shops' }
			  @{ $fm->{foreign_keys} // [] }), "manifest.json: $fmt: the foreign keys inside the export");
		my ($entry) = grep { $_->{name} =~ /^insert-\d+-shops\.sql\z/ } @{ $fm->{files} };
		my $text = slurp("$fk/$entry->{name}");
		# shop 1's row: a tuple line of the INSERT, a data line of the COPY
		my $gone = $fmt eq 'insert' ? $text =~ s/^\('1', [^\n]*\n//m : $text =~ s/^1\t[^\n]*\n//m;
		ok($gone, "verify: $fmt: shop 1's row taken out of $entry->{name}");
		write_file("$fk/$entry->{name}", $text);
		$entry->{bytes} = length($text);
		$entry->{sha256} = Digest::SHA::sha256_hex($text);
		write_file("$fk/manifest.json", JSON::PP->new->pretty->encode($fm));
		($vrc, $vout, $verr) = run_cmd([ 'exwiw', 'verify', $fk ]);
		is($vrc, 1, "verify: $fmt: a row whose parent is not in the export fails");
		like($verr, qr/^exwiw: error: insert-\d+-orders\.sql, line \d+: a row of orders whose foreign key orders_shop_id_fkey \(shop_id = '?1'?\) points outside the export: no row of shops has it/m,
			"verify: $fmt: names the row, the constraint and the key") or diag($verr);
		unlike($verr, qr/SHA-256/, "verify: $fmt: the files are the manifest's (only the key check fails)");
		($vrc, $vout, $verr) = run_cmd([ 'exwiw', 'load', '--dbname=cli_load', $fk ]);
		is($vrc, 1, "load: $fmt: refuses an export whose keys point outside it");
	}

	my ($rc, $out, $err) = run_cmd([ @base, '-Zbrotli', '-o', "$work/z-bad" ]);
	isnt($rc, 0, '-Z with an unknown method: refused');
	like($err, qr/invalid compression method "brotli"/, '-Z brotli: says why');
	($rc, $out, $err) = run_cmd([ @base, '-Zgzip:12', '-o', "$work/z-bad" ]);
	like($err, qr/invalid compression level/, '-Z gzip:12: refused');
	ok(!-e "$work/z-bad", '-Z refused: nothing written');
}

# --since COLUMN=WHEN: every table with the column but the target keeps its
# rows of the window; the closure keeps the files loadable (issue 40)
{
	local $ENV{PGOPTIONS} = '-c search_path=shop,public -c client_min_messages=warning';
	my @base = (
		'exwiw', '--dbname=cli_shop', '--target-table=shops', '--ids=1',
		"--schema-dir=$work/shop-schema", '--allow-undecided', '--force');
	my ($rc, $out, $err) = run_cmd([ @base, '--since=ordered_at=2026-01-02', '-o', "$work/since" ]);
	is($rc, 0, '--since=ordered_at=2026-01-02: the export') or diag($err);
	like($err, qr/--since: 1 table keeps? their rows of ordered_at >= 2026-01-02/,
		'--since: says which tables it narrowed, and from when') or diag($err);
	my ($orders) = grep { /^insert-\d+-orders\.sql\z/ } visible("$work/since");
	my $o = defined $orders ? slurp("$work/since/$orders") : '';
	my @ids = $o =~ /^\('(\d+)'/mg;
	is("@ids", '2 3', '--since: the orders of the window only (shop 1: 2 and 3, not 1)');
	my ($items) = grep { /^insert-\d+-order_items\.sql\z/ } visible("$work/since");
	my $it = defined $items ? slurp("$work/since/$items") : '';
	unlike($it, qr/^\('\d+', '1', /m, '--since: the items of an order left out are left out');
	($rc, $out, $err) = run_cmd([ @base, '--since=ordered_at=1000 years', '-o', "$work/since2" ]);
	my ($o2) = grep { /^insert-\d+-orders\.sql\z/ } visible("$work/since2");
	my @ids2 = defined $o2 ? slurp("$work/since2/$o2") =~ /^\('(\d+)'/mg : ();
	is("@ids2", '1 2 3', '--since with an interval: now() less it');
	expect_error($work, '--since without =', q{invalid --since "ordered_at"}, @base,
		'--since=ordered_at', '-o', "$work/never");
	expect_error($work, '--since: an unknown column', q{--since: no table of the config exports a column "nope"},
		@base, '--since=nope=1 day', '-o', "$work/never");
}

# verify's INSERT reader: a table whose name ends in "values" (GitLab's
# work_item_date_field_values) is not taken for the VALUES keyword
{
	$node->safe_psql('postgres', 'CREATE DATABASE cli_vals');
	$node->safe_psql(
		'cli_vals', q{
CREATE EXTENSION exwiw;
CREATE TABLE list_values (id int PRIMARY KEY, "values" text);
CREATE TABLE item_values (id int PRIMARY KEY, list_id int NOT NULL REFERENCES list_values, note text);
INSERT INTO list_values VALUES (1, 'a (b), c'), (2, 'values (x)');
INSERT INTO item_values VALUES (10, 1, 'x'), (11, 2, 'it''s (1, 2)'), (12, 2, NULL);
});
	run_ok([ 'exwiw', 'schema', 'generate', '--from-db', '--dbname=cli_vals', "--schema-dir=$work/vals-schema" ],
		'verify, tables named ..._values: the config');
	my @vals = ('exwiw', '--dbname=cli_vals', '--target-table=list_values', '--ids=1,2',
		"--schema-dir=$work/vals-schema", '--allow-undecided', '-o', "$work/vals");
	run_ok(\@vals, 'verify, tables named ..._values: the export');
	my ($rc, $out, $err) = run_cmd([ 'exwiw', 'verify', "$work/vals" ]);
	is($rc, 0, 'verify: tables named ..._values, a column named "values": the keys resolve') or diag($err);
	like($err, qr/and 1 foreign key inside it/, 'verify: ..._values: the key is checked');
	my $fm = JSON::PP->new->decode(slurp("$work/vals/manifest.json"));
	my ($entry) = grep { $_->{name} =~ /^insert-\d+-list_values\.sql\z/ } @{ $fm->{files} };
	my $text = slurp("$work/vals/$entry->{name}");
	# list 2, the last tuple ("...);") or not
	ok($text =~ s/,\n\('2', [^\n]*\);\n/;\n/ || $text =~ s/^\('2', [^\n]*\n//m, 'verify: ..._values: list 2 taken out');
	write_file("$work/vals/$entry->{name}", $text);
	$entry->{bytes} = length($text);
	$entry->{sha256} = Digest::SHA::sha256_hex($text);
	write_file("$work/vals/manifest.json", JSON::PP->new->pretty->encode($fm));
	($rc, $out, $err) = run_cmd([ 'exwiw', 'verify', "$work/vals" ]);
	my @named = $err =~ /^exwiw: error: insert-\d+-item_values\.sql, line (\d+): a row of item_values whose foreign key item_values_list_id_fkey \(list_id = '2'\)/mg;
	is(scalar(@named), 2, 'verify: ..._values: both rows of list 2 named, no other') or diag($err);
}

# --max-rows N, --max-bytes SIZE: the export's rows counted on its own
# snapshot before anything is written; over a limit, nothing is written
# (no directory, and a directory that was there keeps its files), the
# largest tables named (issue 40, item 4)
{
	local $ENV{PGOPTIONS} = '-c search_path=shop,public -c client_min_messages=warning';
	my @base = (
		'exwiw', '--dbname=cli_shop', '--target-table=shops', '--ids=1',
		"--schema-dir=$work/shop-schema", '--allow-undecided');
	my ($rc, $out, $err) = run_cmd([ 'exwiw', 'explain', @base[ 1 .. $#base ], '--exact', '--format=json' ]);
	is($rc, 0, 'explain --exact for the limits') or diag($err);
	my $plan = eval { JSON::PP->new->decode($out) } // {};
	my %rows = map { ($_->{table} => $_->{rows}) } @{ $plan->{tables} // [] };
	my $total = 0;
	$total += $_ for values %rows;
	my ($largest) = sort { $rows{$b} <=> $rows{$a} || $a cmp $b } keys %rows;
	ok($total > 1, "the shop's export has $total rows");

	expect_error($work, '--max-rows below the rows: refused, nothing written',
		"the export would write $total rows \\(about [^)]*\\), more than --max-rows=@{[ $total - 1 ]}; nothing was written",
		@base, '--max-rows=' . ($total - 1), '-o', "$work/limited");
	($rc, $out, $err) = run_cmd([ @base, '--max-rows=' . ($total - 1), '-o', "$work/limited" ]);
	like($err, qr/^exwiw: detail: The largest tables: \Q$largest\E $rows{$largest} rows/m,
		'--max-rows: names the largest tables, first the largest') or diag($err);
	like($err, qr/^exwiw: hint: .*"limit", "sample" or "filter"/m, '--max-rows: says what to do');
	ok(!-e "$work/limited", '--max-rows: no directory created');

	# a directory that was there, replaced with --force: untouched
	make_path("$work/kept");
	write_file("$work/kept/insert-001-old.sql", "SELECT 1;\n");
	($rc, $out, $err) = run_cmd([ @base, '--force', '--max-bytes=1B', '-o', "$work/kept" ]);
	is($rc, 1, '--max-bytes=1B: refused');
	like($err, qr/^exwiw: error: the export would write about .*, more than --max-bytes=1 bytes; nothing was written/m,
		'--max-bytes: says so') or diag($err);
	is(join(' ', dir_entries("$work/kept")), 'insert-001-old.sql',
		'--max-bytes: the directory there before keeps its files, and gets none');
	is(join(' ', temporaries()), '', '--max-rows, --max-bytes: no temporary directory left');

	# at the limit: the export, whose rows are the counts
	($rc, $out, $err) = run_cmd([ @base, "--max-rows=$total", '--max-bytes=1GB', '-o', "$work/limited" ]);
	is($rc, 0, '--max-rows at the rows, --max-bytes above: the export') or diag($err);
	my $m = eval { JSON::PP->new->decode(slurp("$work/limited/manifest.json")) } // {};
	my %written = map { ($_->{table} => $_->{rows}) } grep { $_->{name} =~ /^insert-/ } @{ $m->{files} // [] };
	is_deeply(\%written, \%rows, '--max-rows: the files hold the rows counted, table by table');
	run_ok([ 'exwiw', 'verify', "$work/limited" ], '--max-rows: the export verifies');
	run_ok([ @base, '--force', '--max-bytes=0.5 GB', '-j', '2', '-o', "$work/limited" ],
		'--max-bytes with a fraction and a space, -j 2');

	# bad values
	for my $bad ([ '--max-rows=0', '--max-rows must be a positive integer \\(got 0\\)' ],
		[ '--max-rows=-3', '--max-rows must be a positive integer \\(got -3\\)' ],
		[ '--max-rows=many', 'invalid argument: --max-rows=many \\(an integer is expected\\)' ],
		[ '--max-bytes=0', '--max-bytes must be at least 1 byte \\(got "0"\\)' ],
		[ '--max-bytes=-1GB', 'invalid --max-bytes "-1GB": a size is a positive number with a unit' ],
		[ '--max-bytes=2XB', 'invalid --max-bytes "2XB": unknown unit "XB" \\(valid units are bytes, B, kB, MB, GB, TB and PB\\)' ],
		[ '--max-bytes=GB', 'invalid --max-bytes "GB": a size is a positive number' ])
	{
		expect_error($work, "$bad->[0]: refused", $bad->[1], @base, $bad->[0], '-o', "$work/never");
	}
	expect_error($work, '--max-rows with explain: refused', '--max-rows and --max-bytes apply to export only',
		'exwiw', 'explain', @base[ 1 .. $#base ], '--max-rows=5');
}

# --with-schema: the schema file loads twice, then the data
$ENV{PGOPTIONS} = '-c search_path=shop,public -c client_min_messages=warning';
run_ok(
	[
		'exwiw', '--dbname=cli_shop', '--target-table=shops', '--ids=1',
		"--schema-dir=$work/shop-schema", '--allow-undecided', '--with-schema',
		'-o', "$work/ws", '-j', '2'
	],
	'--with-schema');
my $ddl = -f "$work/ws/insert-000-schema.sql" ? slurp("$work/ws/insert-000-schema.sql") : '';
my ($first) = split /\n/, $ddl;
is($first // '',
	'-- Auto-generated by exwiw via pg_dump. Idempotent DDL for postgresql.',
	'--with-schema: insert-000-schema.sql, its first line');
like($ddl, qr/CREATE TABLE IF NOT EXISTS shop.orders/,
	'--with-schema: insert-000-schema.sql is pg_dump\'s schema made idempotent (CREATE TABLE IF NOT EXISTS)'
);
like($ddl, qr/^EXCEPTION WHEN duplicate_object/m,
	'--with-schema: insert-000-schema.sql is pg_dump\'s schema made idempotent (EXCEPTION WHEN duplicate_object)'
);
my @hidden = grep { /^\./ } dir_entries("$work/ws");
ok(!@hidden, '--with-schema: no hidden file left in the directory') or diag("@hidden");
my ($rc, $out, $err) = run_cmd(
	[
		'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', 'cli_load',
		'-f', "$work/ws/insert-000-schema.sql"
	]);
my $load = $rc == 0 ? load_files("$work/ws", '-d', 'cli_load', '-c',
	'SET client_min_messages = error') : "the schema file: $err";
my $n = $load eq '' ? $node->safe_psql('cli_load', 'SELECT count(*) FROM shop.orders') : '?';
is($load, '',
	"--with-schema: the schema loads twice (the loop loads it again), then the data ($n orders)"
);

# the output directory
make_path("$work/out");
write_file("$work/out/stale.txt", "junk\n");
my @out1 = (
	'exwiw', '--dbname=cli_shop', '--target-table=shops', '--ids=1',
	"--schema-dir=$work/shop-schema", '--allow-undecided');
($rc, $out, $err) = run_cmd([ @out1, '-o', "$work/out" ]);
isnt($rc, 0, 'a non-empty output directory is refused');
ok( $err =~ /exwiw: error: output directory ".*" exists and is not empty/
	  && $err =~ /exwiw: hint: Use --force/
	  && -f "$work/out/stale.txt"
	  && !temporaries(),
	'a non-empty output directory: the error and the hint, and it is left as it was'
) or diag($err);
run_ok([ @out1, '-o', "$work/out", '--force' ], '--force');
ok( !-e "$work/out/stale.txt"
	  && -f "$work/out/insert-003-shops.sql"
	  && !temporaries(),
	'--force replaces the directory whole (the old file is gone, no temporary directory left)'
);
symlink("$work/out", "$work/link") or die "symlink: $!";
run_ok(
	[
		'exwiw', '--dbname=cli_shop', '--target-table=shops', '--ids=2',
		"--schema-dir=$work/shop-schema", '--allow-undecided', '-o', "$work/link",
		'--force'
	],
	'--force into a symbolic link');
ok( -l "$work/link"
	  && -f "$work/out/insert-003-shops.sql"
	  && slurp("$work/out/insert-003-shops.sql") =~ /'Bolt'/,
	'a symbolic link to a directory is followed (the link stays, the directory is replaced)'
);
run_ok([ @out1, '-o', "$work/new/deep/dir" ], 'an output directory whose parents are missing');
ok(-f "$work/new/deep/dir/insert-003-shops.sql", 'missing parent directories are created');

# the schema config as one file
my $one = config_array("$work/shop-schema");
write_file("$work/one.json", $one);
write_file("$work/tables.json", '{"tables": ' . $one . '}');
for my $f ('one.json', 'tables.json')
{
	rmtree("$work/a");
	rmtree("$work/b");
	my @x = (
		'exwiw', '--dbname=cli_shop', '--target-table=shops', '--ids=1',
		'--allow-undecided');
	run_ok([ @x, "--schema-dir=$work/shop-schema", '-o', "$work/a" ],
		"--schema-dir DIR, to compare with $f");
	run_ok([ @x, "--schema-dir=$work/$f", '-o', "$work/b" ], "--schema-dir $f");
	ok(same_dirs("$work/a", "$work/b"),
		"--schema-dir $f (one JSON file) exports what the directory does");
}

# the YAML run config
make_path("$work/proj/cfg");
my $yml = <<'YAML';
# paths are relative to this file
schema_dir: ../schema/
output_dir: ../dump-from-yaml
output_format: copy
target_table: shops
ids: [1, 2]
log_level: info
parallel_workers: 2
YAML
write_file("$work/proj/cfg/exwiw.yml", $yml);
($rc, $out, $err) = run_cmd([ 'cp', '-r', "$work/shop-schema", "$work/proj/schema" ]);
die "cp -r $work/shop-schema failed: $err" if $rc != 0;
write_file("$work/proj/exwiw.yml",
	$yml =~ s|\.\./schema/|schema|r =~ s|\.\./dump-from-yaml|dump-cwd|r);
{
	local $ENV{PGDATABASE} = 'cli_shop';
	chdir "$work/proj" or die "chdir $work/proj: $!";
	run_ok([ 'exwiw', '--allow-undecided' ], 'exwiw in a directory with exwiw.yml');
	chdir $work or die "chdir $work: $!";
	run_ok([ 'exwiw', '-c', 'proj/cfg/exwiw.yml', '--allow-undecided' ],
		'exwiw -c proj/cfg/exwiw.yml');
	run_ok(
		[
			'exwiw', '-c', 'proj/cfg/exwiw.yml', '--allow-undecided',
			'--output-format=insert', '--ids=2', '-o', "$work/flags-win"
		],
		'exwiw -c proj/cfg/exwiw.yml with flags');
	chdir $root or die "chdir $root: $!";
}
my $f = "$work/proj/dump-cwd/insert-003-shops.sql";
ok(-f $f && slurp($f) =~ /^COPY shops \(id, name\) FROM stdin;/m,
	'./exwiw.yml is read: target, ids, schema_dir, output_dir, output_format');
my @fy = -d "$work/proj/dump-from-yaml" ? visible("$work/proj/dump-from-yaml") : ();
ok(@fy > 3, '-c FILE: paths inside are relative to the file') or diag("@fy");
$f = "$work/flags-win/insert-003-shops.sql";
my $fw = -f $f ? slurp($f) : '';
ok( $fw =~ /^INSERT INTO shops \(id, name\) VALUES/m
	  && $fw =~ /'Bolt'/
	  && $fw !~ /'Acme'/,
	'flags win over the run config (--output-format, --ids, -o)') or diag($fw);

# connections: flags, conninfo string, environment
my @conn = (
	'--target-table=shops', '--ids=1', "--schema-dir=$work/shop-schema",
	'--allow-undecided', '-o', "$work/c");
for my $how (qw(flags conninfo env))
{
	rmtree("$work/c");
	if ($how eq 'flags')
	{
		delete local $ENV{PGDATABASE};
		($rc, $out, $err) = run_cmd(
			[
				'exwiw', '-h', $ENV{PGHOST}, '-p', $ENV{PGPORT}, '-u', $user,
				'--database=cli_shop', @conn
			]);
	}
	elsif ($how eq 'conninfo')
	{
		my $h = $ENV{PGHOST};
		delete local $ENV{PGDATABASE};
		delete local $ENV{PGHOST};
		($rc, $out, $err) = run_cmd(
			[
				'exwiw',
				"--dbname=host=$h dbname=cli_shop application_name=exwiw_test",
				@conn
			]);
	}
	else
	{
		local $ENV{PGDATABASE} = 'cli_shop';
		($rc, $out, $err) = run_cmd([ 'exwiw', '--adapter=postgresql', @conn ]);
	}
	ok($rc == 0 && -f "$work/c/insert-003-shops.sql", "connection by $how")
	  or diag("exit $rc\n$err");
}

# --after-insert-hook
write_file("$work/hook.sh", <<'SH');
#!/bin/sh
env | grep '^EXWIW_' | sort > "$EXWIW_OUTPUT_DIR/../hook-env.txt"
ls "$EXWIW_OUTPUT_DIR" > "$EXWIW_OUTPUT_DIR/../hook-ls.txt"
SH
chmod 0755, "$work/hook.sh" or die;
run_ok(
	[
		'exwiw', '--dbname=cli_shop', '--target-table=shops', '--ids=1,2',
		"--schema-dir=$work/shop-schema", '--allow-undecided', '-o', "$work/hooked",
		"--after-insert-hook=$work/hook.sh"
	],
	'--after-insert-hook');
my $env = -f "$work/hook-env.txt" ? slurp("$work/hook-env.txt") : '';
my $ls = -f "$work/hook-ls.txt" ? slurp("$work/hook-ls.txt") : '';
my %lines = map { $_ => 1 } split /\n/, $env;
my @missing = grep { !$lines{$_} } (
	"EXWIW_OUTPUT_DIR=$work/hooked", 'EXWIW_IDS=1,2',
	'EXWIW_IDS_DEFAULT=1,2', 'EXWIW_TARGET_TABLE=shops',
	'EXWIW_DATABASE_NAME=cli_shop', 'EXWIW_OUTPUT_FORMAT=insert');
ok(!@missing && $ls =~ /insert-003-shops.sql/,
	'--after-insert-hook runs on the final directory with the Ruby client\'s environment'
) or diag("missing: @missing\nenvironment:\n$env\nls:\n$ls");
write_file("$work/badhook.sh", "#!/bin/sh\nexit 3\n");
chmod 0755, "$work/badhook.sh" or die;
($rc, $out, $err) = run_cmd(
	[
		'exwiw', '--dbname=cli_shop', '--target-table=shops', '--ids=1',
		"--schema-dir=$work/shop-schema", '--allow-undecided', '-o', "$work/hooked2",
		"--after-insert-hook=$work/badhook.sh"
	]);
isnt($rc, 0, "a failing hook is an error (exit $rc)");
like($err, qr/exwiw: error: after-insert shell hook failed/,
	'a failing hook: "after-insert shell hook failed"');

# --log-level=debug, --insert-only, -U, --jobs, --adapter
rmtree("$work/dbg");
($rc, $out, $err) = run_cmd(
	[
		'exwiw', '--dbname=cli_shop', '-U', $user, '--target-table=shops', '--ids=1',
		"--schema-dir=$work/shop-schema", '--allow-undecided', '-o', "$work/dbg",
		'--log-level=debug', '--insert-only', '--jobs=2', '--adapter=PostgreSQL'
	]);
is($rc, 0, '--log-level=debug --insert-only -U --jobs=2 --adapter=PostgreSQL: exit 0')
  or diag($err);
my @dbg = -d "$work/dbg" ? visible("$work/dbg") : ();
ok( $err !~ /insert-only/
	  && !(grep { /^delete-/ } @dbg)
	  && $err =~ /^exwiw: connecting \(export\)/m
	  && $err =~ /^exwiw: connecting \(parallel worker\)/m
	  && $err =~ /^exwiw: dealt 9 files to 2 workers/m
	  && $err =~ /^exwiw: wrote insert-003-shops.sql/m
	  && -f "$work/dbg/insert-003-shops.sql",
	'--log-level=debug (connections, the deal, the files), --insert-only (no delete file), -U, --jobs, --adapter'
) or diag(head(5, $err) . "files: @dbg");
rmtree("$work/dbg");
($rc, $out, $err) = run_cmd(
	[
		'exwiw', '--dbname=cli_shop', '--target-table=shops', '--ids=1',
		"--schema-dir=$work/shop-schema", '--allow-undecided', '-o', "$work/dbg",
		'--log-level=error'
	]);
ok($rc == 0 && $err eq '', '--log-level=error: quiet') or diag("exit $rc\n$err");

# --help, --version, no arguments
my $help = run_ok([ 'exwiw', '--help' ], 'exwiw --help');
like($help, qr/^Usage: exwiw \[SUBCOMMAND\] \[options\]/m, '--help: the usage line');
like($help, qr/--split-rows/, '--help: the options (--split-rows)');
my ($version) = slurp('exwiw.control') =~ /^default_version = '(.*)'$/m;
my $v = run_ok([ 'exwiw', '--version' ], 'exwiw --version');
is($v =~ s/\n+\z//r, "exwiw $version", '--version: the extension\'s default_version');
for my $args ([], ['export'], ['-?'], ['explain'])
{
	my $cmd = join(' ', 'exwiw', @$args);
	my $got = run_ok([ 'exwiw', @$args ], "$cmd: exit 0");
	is($got, $help, "$cmd prints the help");
}

done_testing();
