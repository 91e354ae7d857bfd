# t/013_cli_delete.pl: the delete files (delete-NNN-<table>.sql), the
# Ruby client's refresh of a tenant, and the 0.1.8 flags.
#
# - An export writes one delete file per table with rows, numbered from the
#   end of the processing order (children first), byte for byte what
#   exwiw_export(..., deletes => true) streams; for the target and a table
#   one belongs_to from it, the Ruby client's statements.
# - A refresh: tenant 2 then tenant 1 loaded into a development database
#   by a role that is no superuser and owns nothing (every foreign key is
#   checked); rows of tenant 1 are inserted, updated and deleted in
#   production, and so are tenant 2's; tenant 1 exported again; its delete
#   files then its insert files, in name order: tenant 1's rows equal
#   production's (EXCEPT both ways, on every table), tenant 2's rows are
#   those loaded before.  The delete files in the opposite order (parents
#   first) fail on a foreign key: the order is what makes them load.
# - -j 2 writes the same directory; --insert-only writes no delete file;
#   JSON Lines has none; a masked primary key is refused (and
#   --insert-only exports it).
# - --config-dir DIR and -c DIR (0.1.8) warn and read the schema dir;
#   -c FILE stays the run config; --cursor-parallel is refused with the
#   Ruby client's message.
# - Several databases: schema/primary/ and schema/analytics/, one run each;
#   a belongs_to to the other database ("ignore": true, "ignore_type":
#   "cross_database") is ignored by the export and kept by schema generate.
use strict;
use warnings FATAL => 'all';

use Cwd qw(abs_path getcwd);
use File::Copy;
use File::Path qw(make_path rmtree);
use FindBin;
use JSON::PP;
use lib $FindBin::RealBin;
use ExwiwCli;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $root = getcwd();
my $node = cli_node('delete');
my $work = abs_path(cli_work());

# edit_json(FILE, CODE): CODE changes the decoded JSON of FILE (its
# argument), which is written back.
sub edit_json
{
	my ($file, $code) = @_;
	my $t = decode_json(slurp($file));
	$code->($t);
	open(my $fh, '>:raw', $file) or die "could not open $file: $!";
	print $fh JSON::PP->new->canonical->pretty->encode($t);
	close $fh;
	return;
}

# joined_lines(FILE, FROM, TO): lines FROM to TO of FILE (those it has),
# each followed by "|" (sed -n FROM,TOp | tr '\n' '|').
sub joined_lines
{
	my ($file, $from, $to) = @_;
	my @l = split /\n/, slurp($file), -1;
	pop @l if @l && $l[-1] eq '';
	return join('', map { "$_|" } grep { defined } @l[ $from - 1 .. $to - 1 ]);
}

# visible(DIR): DIR's entries but dot files (ls), sorted.
sub visible
{
	return grep { !/^\./ } dir_entries($_[0]);
}

PostgreSQL::Test::Utils::append_to_file("$work/fixture.sql", <<'SQL');
CREATE SCHEMA app;
SET search_path = app;
CREATE TABLE shops (id int PRIMARY KEY, name text NOT NULL);
CREATE TABLE users (id int PRIMARY KEY, shop_id int NOT NULL REFERENCES shops, label text);
CREATE TABLE orders (id int PRIMARY KEY, shop_id int NOT NULL REFERENCES shops,
	user_id int NOT NULL REFERENCES users, total int NOT NULL);
CREATE INDEX ON orders (shop_id);
CREATE INDEX ON orders (user_id);
CREATE TABLE order_items (order_id int NOT NULL REFERENCES orders, line int NOT NULL,
	qty int NOT NULL, PRIMARY KEY (order_id, line));
CREATE TABLE settings (id int PRIMARY KEY, value text);
INSERT INTO shops VALUES (1, 'one'), (2, 'two'), (3, 'three');
INSERT INTO users SELECT i, 1 + i % 3, 'user ' || i FROM generate_series(1, 12) i;
INSERT INTO orders SELECT i, 1 + (1 + i % 12) % 3, 1 + i % 12, i * 10 FROM generate_series(1, 30) i;
INSERT INTO order_items SELECT o, l, o + l FROM generate_series(1, 30) o, generate_series(1, 3) l;
INSERT INTO settings VALUES (1, 'a'), (2, 'b');
SQL
make_databases($node, 'del', "$work/fixture.sql");
$ENV{PGOPTIONS} = '-c search_path=app,public -c client_min_messages=warning';
run_ok(
	[
		'exwiw', 'schema', 'generate', '--from-db', '--dbname=del_src',
		"--schema-dir=$work/schema"
	],
	'schema generate');
# settings is tied to no tenant: it goes out whole, as decided
edit_json("$work/schema/settings.json", sub { $_[0]->{export} = 'all' });

# the development database: the schema, fully constrained; the loader owns
# nothing (so no file can skip a trigger) and may select, insert, delete
my $ddl = run_ok(
	[
		'pg_dump', '--schema-only', '--no-owner', '--no-acl', '-d', 'del_src',
		'-n', 'app'
	],
	'pg_dump --schema-only');
PostgreSQL::Test::Utils::append_to_file("$work/schema.sql", $ddl);
fresh_dst($node, "$work/schema.sql", 'del', 'app', 0);
$node->safe_psql('del_dst', 'GRANT DELETE ON ALL TABLES IN SCHEMA app TO del_loader');
ok(!loader_may_skip_keys($node, 'del'), 'del_loader may not skip the foreign-key checks');

# export_shop(IDS, DIR, FLAGS...): export shops IDS into DIR (replaced);
# returns (exit status, stdout, stderr).
sub export_shop
{
	my ($ids, $dir, @flags) = @_;
	rmtree($dir);
	return run_cmd(
		[
			'exwiw', '--dbname=del_src', '--target-table=shops', "--ids=$ids",
			"--schema-dir=$work/schema", '-o', $dir, @flags
		]);
}

# export_shop_ok(IDS, DIR, FLAGS...): the same, which must exit 0;
# returns stderr.
sub export_shop_ok
{
	my ($ids, $dir, @flags) = @_;
	my ($rc, $out, $err) = export_shop($ids, $dir, @flags);
	my $name = substr($dir, length($work) + 1);
	ok($rc == 0, "export of shop $ids into $name" . (@flags ? " (@flags)" : ''))
	  or diag("exit $rc\n$err");
	return $err;
}

# load_dir(DIR): load DIR's files into del_dst as del_loader; '' or the
# failure
sub load_dir
{
	my ($dir) = @_;
	local $ENV{PGOPTIONS} = '-c search_path=app';
	return load_files($dir, '-U', 'del_loader', '-d', 'del_dst');
}

# 1. the files
export_shop_ok(1, "$work/d1");
my $names = join(' ', dir_entries("$work/d1"));
is( $names,
	'delete-001-order_items.sql delete-002-orders.sql delete-003-users.sql delete-004-shops.sql delete-005-settings.sql insert-001-settings.sql insert-002-shops.sql insert-003-users.sql insert-004-orders.sql insert-005-order_items.sql',
	'one delete file per table, numbered from the end of the load order');
is( slurp("$work/d1/delete-004-shops.sql"),
	"SET client_encoding = 'UTF8';\nSET standard_conforming_strings = on;\nDELETE FROM shops\nWHERE shops.id = '1';\n",
	'delete-004-shops.sql: the settings lines, then the Ruby client\'s statement'
);
my $orders = slurp("$work/d1/delete-002-orders.sql");
is( joined_lines("$work/d1/delete-002-orders.sql", 3, 4),
	"DELETE FROM orders|WHERE orders.shop_id = '1';|",
	'delete-002-orders.sql: the Ruby client\'s statement, byte for byte (lines 3-4)')
  or diag($orders);
like(
	joined_lines("$work/d1/delete-002-orders.sql", 5, 6),
	qr/^DELETE FROM orders\|WHERE orders.id IN \('[0-9]+'(?:, '[0-9]+')+\);\|\z/,
	'delete-002-orders.sql: then the exported rows by key (lines 5-6)')
  or diag($orders);
my $items = slurp("$work/d1/delete-001-order_items.sql");
ok( index($items,
		"DELETE FROM order_items\nWHERE order_items.order_id IN (SELECT orders.id FROM orders WHERE orders.shop_id = '1');\n"
	) >= 0,
	'delete-001-order_items.sql: the chain through orders, the Ruby client\'s statement byte for byte') or diag($items);
like(
	$items,
	qr/^WHERE \(order_items.order_id, order_items.line\) IN \(\('[0-9]+', '[0-9]+'\), /m,
	'delete-001-order_items.sql: then the composite keys') or diag($items);
my $cfg = config_array("$work/schema");
is( recipe(
		"$work/recipe",
		q{SELECT (e).file_name, (e).chunk FROM (SELECT exwiw_export('shops', '{1}', :'cfg', deletes => true) AS e) s;},
		'-d', 'del_src', '-v', "cfg=$cfg"),
	0,
	'the SQL recipe with deletes => true');
ok(same_dirs("$work/recipe", "$work/d1"),
	'the client\'s directory is exwiw_export(..., deletes => true)\'s, byte for byte');
export_shop_ok(1, "$work/d1j2", '-j', '2');
ok(same_dirs("$work/d1", "$work/d1j2"), '-j 2: the same directory, delete files included');
my $err = export_shop_ok(1, "$work/ins", '--insert-only');
my @ins = visible("$work/ins");
ok(!(grep { /^delete-/ } @ins) && @ins == 5 && $err eq '',
	'--insert-only: the insert files alone, no warning')
  or diag("@ins\n$err");
PostgreSQL::Test::Utils::append_to_file("$work/run.yml", "insert_only: true\n");
export_shop_ok(1, "$work/ins2", '-c', "$work/run.yml");
my @ins2 = visible("$work/ins2");
ok(!(grep { /^delete-/ } @ins2), 'insert_only: true in the run config: no delete file')
  or diag("@ins2");
export_shop_ok(1, "$work/jl", '--output-format=jsonl');
my @jl = visible("$work/jl");
ok(!(grep { /^delete-/ } @jl), 'JSON Lines: no delete file') or diag("@jl");

# 2. the refresh: tenant 2, then tenant 1, loaded
export_shop_ok(2, "$work/d2");
is(load_dir("$work/d2"), '', 'loading tenant 2');
is(load_dir("$work/d1"), '', 'loading tenant 1');
$node->safe_psql(
	'del_dst', q{
CREATE SCHEMA keep;
CREATE TABLE keep.users AS SELECT * FROM app.users WHERE shop_id = 2;
CREATE TABLE keep.orders AS SELECT * FROM app.orders WHERE shop_id = 2;
CREATE TABLE keep.order_items AS SELECT i.* FROM app.order_items i JOIN app.orders o ON o.id = i.order_id WHERE o.shop_id = 2;
});
$node->safe_psql(
	'del_src', q{
SET search_path = app;
-- tenant 1: insert, update, delete
INSERT INTO users VALUES (100, 1, 'new user');
INSERT INTO orders VALUES (100, 1, 100, 7), (101, 1, 3, 8);
INSERT INTO order_items VALUES (100, 1, 1), (100, 2, 2), (101, 1, 5);
UPDATE users SET label = 'renamed' WHERE id = 3;
UPDATE orders SET total = total + 1 WHERE shop_id = 1 AND id % 2 = 0;
UPDATE order_items SET qty = 99 WHERE order_id = 8;
DELETE FROM order_items WHERE order_id = 2 AND line = 2;
DELETE FROM order_items WHERE order_id = 5;
DELETE FROM orders WHERE id = 5;
UPDATE settings SET value = 'changed' WHERE id = 2;
-- tenant 2: the same kinds of changes, which the refresh of 1 leaves alone
INSERT INTO orders VALUES (200, 2, 1, 1);
UPDATE users SET label = 'other' WHERE shop_id = 2;
DELETE FROM order_items WHERE order_id = 3;
});
export_shop_ok(1, "$work/r1");
is(load_dir("$work/r1"), '',
	'the refresh loads: the delete files, then the insert files, as a role that checks every foreign key'
);

# compare_tenant(TABLE, WHERE): TABLE's rows of tenant 1 (WHERE) in the
# development database equal production's, EXCEPT both ways
sub compare_tenant
{
	my ($table, $where) = @_;
	$node->safe_psql('del_dst',
		"DROP TABLE IF EXISTS keep.prod; CREATE TABLE keep.prod (LIKE app.$table)");
	my $rows = run_ok(
		[
			'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', 'del_src', '-c',
			"COPY (SELECT t.* FROM app.$table t $where) TO STDOUT"
		],
		"$table: production's rows of tenant 1");
	run_ok(
		[
			'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', 'del_dst',
			'-c', 'COPY keep.prod FROM STDIN'
		],
		"$table: copied beside the development database's",
		stdin => $rows);
	my $b = $node->safe_psql('del_dst',
		"SELECT (SELECT count(*) FROM (SELECT * FROM keep.prod EXCEPT SELECT t.* FROM app.$table t $where) x), (SELECT count(*) FROM (SELECT t.* FROM app.$table t $where EXCEPT SELECT * FROM keep.prod) y), (SELECT count(*) FROM keep.prod)"
	);
	like($b, qr/^0\|0\|[1-9][0-9]*$/,
		"$table: tenant 1's rows equal production's (EXCEPT both ways, missing|extra|rows: $b)");
	return;
}
compare_tenant('shops', 'WHERE t.id = 1');
compare_tenant('users', 'WHERE t.shop_id = 1');
compare_tenant('orders', 'WHERE t.shop_id = 1');
compare_tenant('order_items',
	'WHERE t.order_id IN (SELECT id FROM app.orders WHERE shop_id = 1)');
compare_tenant('settings', '');
my $other = $node->safe_psql(
	'del_dst', q{
SELECT (SELECT count(*) FROM ((SELECT * FROM keep.users EXCEPT SELECT * FROM app.users WHERE shop_id = 2)
		UNION ALL (SELECT * FROM app.users WHERE shop_id = 2 EXCEPT SELECT * FROM keep.users)) a)
	+ (SELECT count(*) FROM ((SELECT * FROM keep.orders EXCEPT SELECT * FROM app.orders WHERE shop_id = 2)
		UNION ALL (SELECT * FROM app.orders WHERE shop_id = 2 EXCEPT SELECT * FROM keep.orders)) b)
	+ (SELECT count(*) FROM ((SELECT * FROM keep.order_items EXCEPT SELECT i.* FROM app.order_items i JOIN app.orders o ON o.id = i.order_id WHERE o.shop_id = 2)
		UNION ALL (SELECT i.* FROM app.order_items i JOIN app.orders o ON o.id = i.order_id WHERE o.shop_id = 2 EXCEPT SELECT * FROM keep.order_items)) c),
	(SELECT count(*) FROM keep.order_items)
});
like($other, qr/^0\|[1-9][0-9]*$/,
	"tenant 2's rows in the development database are untouched (differences|rows: $other)");

# the delete order: parents first fails on a foreign key
my $rev_err = '';
{
	local $ENV{PGOPTIONS} = '-c search_path=app';
	for my $f (reverse grep { /^delete-.*\.sql\z/ } dir_entries("$work/r1"))
	{
		my ($rc, $out, $e) = run_cmd(
			[
				'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-U', 'del_loader',
				'-d', 'del_dst', '-1', '-f', "$work/r1/$f"
			]);
		$rev_err .= $e;
		last if $rc != 0;
	}
}
like($rev_err, qr/violates foreign key constraint/,
	'the delete files parents first: a foreign-key violation (the order matters, and is enforced)'
) or diag($rev_err);

# a masked primary key
make_path("$work/masked");
copy("$work/schema/$_", "$work/masked/$_") or die "copy $_: $!"
  for grep { /\.json\z/ } dir_entries("$work/schema");
edit_json(
	"$work/masked/order_items.json",
	sub {
		for my $c (@{ $_[0]->{columns} })
		{
			$c->{raw_sql} = 'line + 100' if $c->{name} eq 'line';
		}
	});
rmtree("$work/m");
my @masked = (
	'exwiw', '--dbname=del_src', '--target-table=shops', '--ids=1',
	"--schema-dir=$work/masked", '-o', "$work/m");
expect_error($work, 'a masked primary key',
	q{cannot write the delete file of table "order_items": its primary key column "line" is masked},
	@masked);
run_ok([ @masked, '--insert-only' ], 'a masked primary key with --insert-only: exported');

# 3. the 0.1.8 flags
my ($rc, $out);
($rc, $out, $err) = export_shop(1, "$work/cd", "--config-dir=$work/schema");
ok( same_dirs("$work/r1", "$work/cd")
	  && $err =~ /^warning: --config-dir is deprecated, use --schema-dir/m,
	'--config-dir: a deprecation warning, and the schema dir') or diag("exit $rc\n$err");
rmtree("$work/cc");
($rc, $out, $err) = run_cmd(
	[
		'exwiw', '--dbname=del_src', '--target-table=shops', '--ids=1',
		'-c', "$work/schema", '-o', "$work/cc"
	]);
ok( same_dirs("$work/r1", "$work/cc")
	  && $err =~ /^warning: -c DIR \(--config-dir\) is deprecated, use --schema-dir=/m,
	'-c DIR: the 0.1.8 meaning (a directory cannot be a run config), with a warning'
) or diag("exit $rc\n$err");
expect_error(
	$work, '--cursor-parallel',
	q{--cursor-parallel is only supported by the mongodb adapter$},
	'exwiw', '--dbname=del_src', '--target-table=shops', '--ids=1',
	"--schema-dir=$work/schema", '--cursor-parallel', '-j', '2', '-o', "$work/cp");

# 4. several databases: one schema dir each, one run each
$node->safe_psql('postgres', 'CREATE DATABASE del_analytics');
$node->safe_psql(
	'del_analytics', q{
CREATE EXTENSION exwiw;
CREATE SCHEMA app;
SET search_path = app;
CREATE TABLE reports (id int PRIMARY KEY, title text);
CREATE TABLE events (id int PRIMARY KEY, report_id int NOT NULL REFERENCES reports, user_id int, kind text);
CREATE INDEX ON events (report_id);
INSERT INTO reports VALUES (1, 'r1'), (2, 'r2');
INSERT INTO events SELECT i, 1 + i % 2, i, 'k' FROM generate_series(1, 6) i;
});
make_path("$work/app/exwiw/schema");
run_ok(
	[
		'exwiw', 'schema', 'generate', '--from-db', '--dbname=del_src',
		"--schema-dir=$work/app/exwiw/schema/primary"
	],
	'schema generate of the primary database');
my @gen_analytics = (
	'exwiw', 'schema', 'generate', '--from-db', '--dbname=del_analytics',
	"--schema-dir=$work/app/exwiw/schema/analytics");
run_ok([@gen_analytics], 'schema generate of the analytics database');
# events.user_id references users of the primary database
edit_json(
	"$work/app/exwiw/schema/analytics/events.json",
	sub {
		push @{ $_[0]->{belongs_tos} },
		  {
			table_name => 'users',
			foreign_key => 'user_id',
			ignore => JSON::PP::true,
			ignore_type => 'cross_database'
		  };
	});
rmtree("$work/app/dump");
chdir "$work/app" or die "chdir $work/app: $!";
run_ok(
	[
		'exwiw', '--dbname=del_src', '--target-table=shops', '--ids=1',
		'--schema-dir=exwiw/schema/primary', '-o', 'dump/primary'
	],
	'several databases: the run of the primary one (relative paths)');
run_ok(
	[
		'exwiw', '--dbname=del_analytics', '--target-table=reports', '--ids=1',
		'--schema-dir=exwiw/schema/analytics', '-o', 'dump/analytics'
	],
	'several databases: the run of the analytics one (relative paths)');
chdir $root or die "chdir $root: $!";
ok(same_dirs("$work/r1", "$work/app/dump/primary"),
	'several databases: exwiw/schema/primary exports what the single schema dir does');
is( join(' ', visible("$work/app/dump/analytics")),
	'delete-001-events.sql delete-002-reports.sql insert-001-reports.sql insert-002-events.sql',
	'several databases: exwiw/schema/analytics, the cross-database belongs_to ignored: its files'
);
my $events = -f "$work/app/dump/analytics/insert-002-events.sql"
  ? slurp("$work/app/dump/analytics/insert-002-events.sql")
  : '';
is(scalar(() = $events =~ /^\('[0-9]*', '1', /mg),
	3, 'several databases: the events of report 1, none filtered by the ignored belongs_to')
  or diag($events);
run_ok([@gen_analytics], 'schema generate of the analytics database again');
my $t = decode_json(slurp("$work/app/exwiw/schema/analytics/events.json"));
my @bt = grep { ($_->{table_name} // '') eq 'users' } @{ $t->{belongs_tos} };
ok( @bt
	  && JSON::PP::is_bool($bt[0]{ignore})
	  && $bt[0]{ignore}
	  && ($bt[0]{ignore_type} // '') eq 'cross_database',
	'schema generate keeps the cross-database belongs_to (ignore: true, ignore_type: cross_database)'
) or diag(slurp("$work/app/exwiw/schema/analytics/events.json"));
my @parent = (
	'exwiw', '--dbname=del_analytics', '--target-table=reports', '--ids=1',
	"--schema-dir=$work/app/exwiw/schema", '-o', "$work/app/x");
expect_error($work, 'the parent of the database directories',
	q{schema dir contains no \.json files: .*/exwiw/schema$}, @parent);
($rc, $out, $err) = run_cmd(\@parent);
ok( index($err,
		'hint: It holds one schema dir per database (analytics, primary): pass --schema-dir='
	) >= 0,
	'the parent of the database directories: the hint names them') or diag($err);

done_testing();
