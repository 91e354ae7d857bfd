# t/033_cli_refresh.pl: exwiw load --refresh changes the refreshed
# tenant's rows and no other row (issue 35); a load never half-succeeds
# silently.
#
# - The issue's case: shop 2's order and comment name a user of shop 1
#   (ON DELETE CASCADE, ON DELETE SET NULL); shop 2 then shop 1 loaded, shop
#   1 refreshed: shop 2's rows are untouched.  When production deletes that
#   user, the refresh refuses, names the constraints and the rows, and
#   changes nothing.  The same files loaded again without --refresh fail
#   with a hint that names --refresh and --on-conflict=skip; a file's own
#   BEGIN (which, left open, would roll its rows back silently) fails the
#   load.
# - A property test over seeds: three shops with random rows, users shared
#   across shops, a self-referencing table, a composite key, a join table
#   without a primary key (its composite foreign key may name another
#   shop's tag), a Rails join table without a primary key tied through
#   its parent (projects_users), a partitioned table, an inheritance child with keys of
#   its own, every ON DELETE action (CASCADE,
#   SET NULL, SET DEFAULT, RESTRICT, NO ACTION).  Shop 2, then shop 1 are loaded into a development database as
#   a role that is no superuser (every foreign key checked); production
#   changes (rows inserted, updated, deleted, moved between shops); shop 1
#   is exported again and refreshed.  The development database must hold,
#   table by table (the rows' texts, sorted, compared whole): the rows
#   that were not shop 1's, as they were; shop 1's rows and the rows that
#   are shop 1's now, as a fresh load of the new export has them; the new
#   export's other rows where the database had none.  Or the refresh
#   refused, and not one row changed.
use strict;
use warnings FATAL => 'all';

use Cwd qw(abs_path);
use FindBin;
use lib $FindBin::RealBin;
use ExwiwCli;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = cli_node('refresh');
my $work = abs_path(cli_work());
$ENV{PGOPTIONS} = '-c search_path=app,public -c client_min_messages=warning';

my $schema_sql = <<'SQL';
CREATE SCHEMA app;
SET search_path = app;
CREATE TABLE shops (id int PRIMARY KEY, name text NOT NULL, plan text NOT NULL DEFAULT 'free');
CREATE TABLE users (id int PRIMARY KEY, shop_id int NOT NULL REFERENCES shops, name text NOT NULL,
	score int NOT NULL DEFAULT 0);
CREATE TABLE categories (id int PRIMARY KEY, shop_id int NOT NULL REFERENCES shops,
	parent_id int REFERENCES categories ON DELETE CASCADE, name text);
CREATE TABLE orders (id int PRIMARY KEY, shop_id int NOT NULL REFERENCES shops,
	user_id int NOT NULL REFERENCES users ON DELETE CASCADE,
	category_id int REFERENCES categories ON DELETE SET NULL, total int NOT NULL);
CREATE TABLE comments (id int PRIMARY KEY, shop_id int NOT NULL REFERENCES shops,
	order_id int NOT NULL REFERENCES orders ON DELETE CASCADE,
	user_id int REFERENCES users ON DELETE SET NULL, body text);
CREATE TABLE tags (shop_id int NOT NULL REFERENCES shops, code text NOT NULL, label text,
	PRIMARY KEY (shop_id, code));
CREATE TABLE order_tags (shop_id int NOT NULL REFERENCES shops,
	order_id int NOT NULL REFERENCES orders ON DELETE CASCADE,
	tag_shop int NOT NULL, tag_code text NOT NULL,
	FOREIGN KEY (tag_shop, tag_code) REFERENCES tags ON DELETE RESTRICT);
CREATE TABLE events (shop_id int NOT NULL REFERENCES shops, id int NOT NULL,
	user_id int REFERENCES users ON DELETE SET DEFAULT, kind text,
	PRIMARY KEY (shop_id, id)) PARTITION BY LIST (shop_id);
CREATE TABLE events_1 PARTITION OF events FOR VALUES IN (1);
CREATE TABLE events_2 PARTITION OF events FOR VALUES IN (2);
CREATE TABLE events_3 PARTITION OF events FOR VALUES IN (3);
CREATE TABLE projects (id int PRIMARY KEY, shop_id int NOT NULL REFERENCES shops, title text);
CREATE TABLE projects_users (project_id int NOT NULL REFERENCES projects,
	user_id int NOT NULL REFERENCES users ON DELETE CASCADE);
CREATE INDEX ON projects (shop_id);
CREATE INDEX ON projects_users (project_id);
CREATE INDEX ON projects_users (user_id);
CREATE TABLE notes (id int PRIMARY KEY, shop_id int NOT NULL REFERENCES shops, body text);
CREATE TABLE pinned_notes (rank int) INHERITS (notes);
ALTER TABLE pinned_notes ADD PRIMARY KEY (id);
ALTER TABLE pinned_notes ADD FOREIGN KEY (shop_id) REFERENCES shops;
CREATE INDEX ON notes (shop_id);
CREATE INDEX ON pinned_notes (shop_id);
CREATE INDEX ON users (shop_id);
CREATE INDEX ON categories (shop_id);
CREATE INDEX ON categories (parent_id);
CREATE INDEX ON orders (shop_id);
CREATE INDEX ON orders (user_id);
CREATE INDEX ON orders (category_id);
CREATE INDEX ON comments (shop_id);
CREATE INDEX ON comments (order_id);
CREATE INDEX ON comments (user_id);
CREATE INDEX ON order_tags (shop_id);
CREATE INDEX ON order_tags (order_id);
CREATE INDEX ON order_tags (tag_shop, tag_code);
CREATE INDEX ON events (user_id);
SQL

# every table, its key as text (the whole row where it has none)
my %key = (
	shops => 'id::text',
	users => 'id::text',
	categories => 'id::text',
	orders => 'id::text',
	comments => 'id::text',
	tags => '(shop_id, code)::text',
	order_tags => 't::text',
	events => '(shop_id, id)::text',
	notes => 'id::text',
	projects => 'id::text',
	projects_users => 't::text',
	pinned_notes => 'id::text');
my @tables = sort keys %key;

# rows(DB): { table => { key => [shop_id, row text] } }
sub rows
{
	my ($db) = @_;
	my %r;
	for my $t (@tables)
	{
		my $owner =
		    $t eq 'shops' ? 't.id'
		  : $t eq 'projects_users'
		  ? '(SELECT p.shop_id FROM app.projects p WHERE p.id = t.project_id)'
		  : 't.shop_id';
		my $only = $t eq 'notes' ? 'ONLY ' : '';    # its child is a table of its own
		my $out = $node->safe_psql($db,
			"SELECT $key{$t}, $owner, t::text FROM $only app.$t t ORDER BY 1",
			extra_params => [ '-F', "\t" ]);
		for my $l (split /\n/, $out)
		{
			my ($k, $shop, $text) = split /\t/, $l, 3;
			$r{$t}{$k} = [ $shop, $text ];
		}
	}
	return \%r;
}

# texts(ROWS, TABLE): the sorted row texts of a table of rows()
sub texts
{
	my ($r, $t) = @_;
	return join("\n", sort map { $_->[1] } values %{ $r->{$t} // {} });
}

# expected(D0, FA, SHOP): what a refresh of SHOP must leave, from the
# database before it (D0) and a fresh load of the new export (FA)
sub expected
{
	my ($d0, $fa, $shop) = @_;
	my %e;
	for my $t (@tables)
	{
		my %own;
		$own{$_} = 1 for grep { $d0->{$t}{$_}[0] == $shop } keys %{ $d0->{$t} };
		$own{$_} = 1 for grep { $fa->{$t}{$_}[0] == $shop } keys %{ $fa->{$t} };
		for my $k (keys %{ $d0->{$t} })
		{
			$e{$t}{$k} = $d0->{$t}{$k} unless $own{$k};
		}
		for my $k (keys %{ $fa->{$t} })
		{
			$e{$t}{$k} = $fa->{$t}{$k} if $own{$k} || !exists $d0->{$t}{$k};
		}
	}
	return \%e;
}

# same_rows(A, B, LABEL): every table holds the same rows
sub same_rows
{
	my ($a, $b, $label) = @_;
	my @diff = grep { texts($a, $_) ne texts($b, $_) } @tables;
	ok(!@diff, $label)
	  or diag(join("\n", map { "$_:\n got: " . texts($a, $_) . "\n want: " . texts($b, $_) } @diff));
	return;
}

# db(NAME, [SQL]): a new database NAME holding the schema (and SQL)
sub db
{
	my ($name, $sql) = @_;
	$node->safe_psql('postgres', "SET client_min_messages = warning; DROP DATABASE IF EXISTS $name; CREATE DATABASE $name");
	$node->safe_psql($name, $schema_sql . ($sql // ''));
	return;
}

# dev(NAME): a development database: the schema, owned by the loader, no
# superuser (every foreign key is checked)
sub dev
{
	my ($name) = @_;
	db($name);
	loader_owns($node, 'refresh', 'app', $name);
	$node->safe_psql($name, 'GRANT USAGE ON SCHEMA app TO refresh_loader');
	return;
}

# export(SHOP, DIR): shop SHOP of refresh_src into DIR
sub export
{
	my ($shop, $dir) = @_;
	run_ok(
		[
			'exwiw', '-d', 'refresh_src', '--target-table=shops', "--ids=$shop",
			"--schema-dir=$work/schema", '-o', $dir, '-q', '--force'
		],
		"export of shop $shop");
	return;
}

# load(DIR, DB, FLAGS...): exwiw load as refresh_loader; (status, stderr)
sub load
{
	my ($dir, $db, @flags) = @_;
	my ($rc, $out, $err) =
	  run_cmd([ 'exwiw', 'load', $dir, '-q', '-U', 'refresh_loader', '-d', $db, @flags ]);
	return ($rc, $err);
}

$node->safe_psql('postgres', 'CREATE ROLE refresh_loader LOGIN');
is($node->safe_psql('postgres',
		"SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = 'refresh_loader'"), 'f',
	'the loader is no superuser');

# 1. the issue's case
db('refresh_src', <<'SQL');
INSERT INTO shops VALUES (1, 'one'), (2, 'two'), (3, 'three');
INSERT INTO users VALUES (1, 1, 'a'), (2, 2, 'b'), (3, 1, 'c'), (4, 2, 'd');
INSERT INTO orders VALUES (11, 1, 1, NULL, 10), (12, 1, 3, NULL, 20), (21, 2, 3, NULL, 30), (22, 2, 4, NULL, 40);
INSERT INTO comments VALUES (100, 2, 21, 3, 'x'), (101, 1, 11, 1, 'y'), (102, 2, 22, 2, 'z');
INSERT INTO tags VALUES (1, 'a', 'A'), (2, 'a', 'A2');
INSERT INTO order_tags VALUES (1, 11, 1, 'a'), (1, 12, 2, 'a'), (2, 21, 1, 'a'), (2, 22, 2, 'a');
SQL
$node->safe_psql('refresh_src', 'CREATE EXTENSION exwiw');
run_ok(
	[
		'exwiw', 'schema', 'generate', '--from-db', '--dbname=refresh_src',
		"--schema-dir=$work/schema"
	],
	'schema generate');
dev('refresh_dev');
export(2, "$work/s2");
export(1, "$work/s1");
ok(-f "$work/s1/delete-002-order_tags.sql" || (grep { /^delete-.*order_tags/ } dir_entries("$work/s1")),
	'the join table without a primary key has a delete file (its chain)');
my ($rc, $err) = load("$work/s2", 'refresh_dev');
is($rc, 0, 'shop 2 loaded') or diag($err);
($rc, $err) = load("$work/s1", 'refresh_dev', '--on-conflict=skip');
is($rc, 0, 'shop 1 loaded beside it') or diag($err);
my $before = rows('refresh_dev');
$node->safe_psql('refresh_src', "UPDATE app.users SET name = 'c2' WHERE id = 3; UPDATE app.orders SET total = 13 WHERE id = 12");
export(1, "$work/s1");
($rc, $err) = load("$work/s1", 'refresh_dev', '--refresh');
is($rc, 0, 'shop 1 refreshed') or diag($err);
my $after = rows('refresh_dev');
is($after->{orders}{21}[1], '(21,2,3,,30)', "shop 2's order 21, which names shop 1's user 3 (ON DELETE CASCADE), is still there");
is($after->{comments}{100}[1], '(100,2,21,3,x)', "shop 2's comment 100 still names user 3 (ON DELETE SET NULL)");
is($after->{orders}{12}[1], '(12,1,3,,13)', "shop 1's order 12 is updated in place");
is(texts($after, 'order_tags'), texts($before, 'order_tags'), 'the join table holds the same rows, loaded again');

$node->safe_psql('refresh_src', "DELETE FROM app.order_tags WHERE order_id IN (12, 21); DELETE FROM app.users WHERE id = 3");
export(1, "$work/s1");
($rc, $err) = load("$work/s1", 'refresh_dev', '--refresh');
isnt($rc, 0, 'shop 1 refreshed after production deleted user 3: refused');
like($err, qr/^exwiw: error: --refresh would change rows that it does not replace$/m, 'the refusal says why') or diag($err);
like($err, qr/Row \(id\)=\(21\) of table orders references \(user_id\)=\(3\) of table users through foreign key "orders_user_id_fkey": .* ON DELETE CASCADE would delete it\./,
	'the refusal names the cascade, its constraint and both rows') or diag($err);
like($err, qr/Row \(id\)=\(100\) of table comments references \(user_id\)=\(3\) of table users through foreign key "comments_user_id_fkey": .* ON DELETE SET NULL would change it\./,
	'the refusal names the SET NULL') or diag($err);
same_rows(rows('refresh_dev'), $after, 'a refused refresh changes nothing');

# a second plain load of the same files says what to use
($rc, $err) = load("$work/s1", 'refresh_dev');
isnt($rc, 0, 'the same export loaded again without --refresh fails');
like($err, qr/ERROR:  duplicate key value.*\n(?:.*\n)*exwiw: hint: The database holds that row already: to load this export again, use --refresh; to load a second tenant beside the first, use --on-conflict=skip\./,
	'and its hint names --refresh and --on-conflict=skip') or diag($err);

# a file that leaves a transaction open fails the load
mkdir("$work/open");
write_file("$work/open/insert-001-shops.sql", "BEGIN;\nINSERT INTO shops VALUES (9, 'nine');\n");
for my $flags ([], ['--commit-each-file'])
{
	($rc, $err) = load("$work/open", 'refresh_dev', @$flags);
	isnt($rc, 0, "a file with BEGIN and no COMMIT fails the load (@$flags)");
	like($err, qr{^exwiw: error: .*/open/insert-001-shops\.sql:1: a transaction statement in a file cannot run inside the (?:load's one|file's own) transaction}m,
		'and says which file and line') or diag($err);
	is($node->safe_psql('refresh_dev', 'SELECT count(*) FROM app.shops WHERE id = 9'), '0',
		'its row is not there');
}

# the server's compressed exports load, as they are, and refresh
my $cfg = config_array("$work/schema");
export(1, "$work/s1");
dev('refresh_plain');
($rc, $err) = load("$work/s1", 'refresh_plain');
is($rc, 0, 'the export of shop 1 loads') or diag($err);
for my $c (qw(gzip zstd))
{
	$node->safe_psql('refresh_src',
		"SELECT count(*) FROM exwiw_export_to_dir('$work/srv_$c', 'shops', '{1}', \$cfg\$$cfg\$cfg\$, compress => '$c', deletes => true)"
	);
	my @files = grep { /^(insert|delete)-/ } dir_entries("$work/srv_$c");
	my $ext = $c eq 'gzip' ? 'gz' : 'zst';
	ok(@files && !(grep { !/\.sql\.$ext\z/ } @files), "exwiw_export_to_dir(compress => '$c') writes .sql.$ext files");
	dev("refresh_$c");
	($rc, $err) = load("$work/srv_$c", "refresh_$c");
	is($rc, 0, "exwiw load reads them") or diag($err);
	same_rows(rows("refresh_$c"), rows('refresh_plain'), "$c: the same rows as the client's export");
	($rc, $err) = load("$work/srv_$c", "refresh_$c", '--refresh');
	is($rc, 0, "$c: --refresh reads the compressed delete files") or diag($err);
	same_rows(rows("refresh_$c"), rows('refresh_plain'), "$c: refreshed, the same rows");
}
# a cut compressed file fails the load with its name
mkdir("$work/cut");
for my $f (grep { /^insert-/ } dir_entries("$work/srv_zstd"))
{
	my $bytes = slurp("$work/srv_zstd/$f");
	$bytes = substr($bytes, 0, length($bytes) - 8) if $f =~ /users/;
	write_file("$work/cut/$f", $bytes);
}
dev('refresh_cut');
($rc, $err) = load("$work/cut", 'refresh_cut');
isnt($rc, 0, 'a cut .zst file fails the load');
like($err, qr{^exwiw: error: .*/cut/insert-[0-9]+-users\.sql\.zst:[0-9]+: could not decompress file \(zstd\)}m,
	'and says which file') or diag($err);

# 2. the property test
my %outcome = (refreshed => 0, refused => 0);
for my $seed (1 .. 16)
{
	my $gen = <<"SQL";
SELECT setseed($seed / 100.0);
INSERT INTO shops VALUES (1, 'one'), (2, 'two'), (3, 'three');
INSERT INTO users SELECT i, 1 + i % 3, 'u' || i FROM generate_series(1, 24) i;
INSERT INTO categories SELECT i, 1 + i % 3, CASE WHEN i > 3 THEN i - 3 END, 'c' || i FROM generate_series(1, 9) i;
INSERT INTO orders SELECT i, 1 + i % 3,
	CASE WHEN random() < 0.3 THEN 1 + floor(random() * 24)::int ELSE 3 * floor(random() * 8)::int + 1 + (1 + i % 3) % 3 END,
	CASE WHEN random() < 0.5 THEN 3 * floor(random() * 3)::int + 1 + (1 + i % 3) % 3 END, i
	FROM generate_series(1, 45) i;
INSERT INTO comments SELECT i, o.shop_id, o.id, CASE WHEN random() < 0.7 THEN 1 + floor(random() * 24)::int END, 'b' || i
	FROM generate_series(1, 60) i, LATERAL (SELECT * FROM orders WHERE id = 1 + (i * 7) % 45) o;
INSERT INTO tags SELECT s, c, s || c FROM generate_series(1, 3) s, unnest('{a,b,c}'::text[]) c;
INSERT INTO order_tags SELECT o.shop_id, o.id, CASE WHEN random() < 0.2 THEN 1 + floor(random() * 3)::int ELSE o.shop_id END,
	(ARRAY['a', 'b', 'c'])[1 + floor(random() * 3)::int]
	FROM orders o, generate_series(1, 2) k WHERE random() < 0.6;
INSERT INTO events SELECT 1 + i % 3, i, CASE WHEN random() < 0.8 THEN 1 + floor(random() * 24)::int END, 'k' || i
	FROM generate_series(1, 30) i;
INSERT INTO notes SELECT i, 1 + i % 3, 'note ' || i FROM generate_series(1, 12) i;
INSERT INTO projects SELECT i, 1 + i % 3, 'p' || i FROM generate_series(1, 9) i;
INSERT INTO projects_users SELECT DISTINCT p, CASE WHEN random() < 0.7 THEN 3 * floor(random() * 8)::int + 1 + (1 + p % 3) % 3
	ELSE 1 + floor(random() * 24)::int END FROM generate_series(1, 9) p, generate_series(1, 3) k;
INSERT INTO pinned_notes SELECT i, 1 + i % 3, 'pinned ' || i, i FROM generate_series(101, 109) i;
SQL
	my $change = <<"SQL";
SELECT setseed($seed / 100.0 + 0.005);
SET search_path = app;
UPDATE users SET name = name || '*' WHERE random() < 0.3;
UPDATE users SET score = score + 1 WHERE random() < 0.5;
UPDATE shops SET plan = plan || '*';
UPDATE orders SET total = total + 1000 WHERE random() < 0.3;
UPDATE orders SET user_id = 1 + floor(random() * 24)::int WHERE random() < 0.15;
UPDATE comments SET body = body || '*' WHERE random() < 0.3;
UPDATE tags SET label = label || '*' WHERE random() < 0.3;
INSERT INTO users SELECT 100 + i, 1 + i % 2, 'n' || i FROM generate_series(1, 4) i;
INSERT INTO orders SELECT 100 + i, 1 + i % 2, 1 + floor(random() * 24)::int, NULL, 7 FROM generate_series(1, 6) i;
INSERT INTO comments SELECT 200 + i, 1 + i % 2, 100 + i, 101 + i % 4, 'n' FROM generate_series(1, 6) i;
INSERT INTO order_tags SELECT 1 + i % 2, 100 + i, 1 + i % 2, 'b' FROM generate_series(1, 6) i;
INSERT INTO categories VALUES (50, 1, 1, 'new'), (51, 2, 2, 'new');
INSERT INTO events SELECT 1 + i % 2, 100 + i, 101 + i % 4, 'n' FROM generate_series(1, 6) i;
-- moves between shops
UPDATE users SET shop_id = 3 - shop_id WHERE id IN (SELECT id FROM users WHERE shop_id IN (1, 2) AND random() < 0.05);
UPDATE orders SET shop_id = 3 - shop_id WHERE id IN (SELECT id FROM orders WHERE shop_id IN (1, 2) AND random() < 0.05);
-- deletes (production's own actions cascade)
DELETE FROM projects_users WHERE random() < 0.15 OR project_id IN (2, 4);
DELETE FROM projects WHERE id IN (2, 4);
INSERT INTO projects_users SELECT (ARRAY[1, 3, 5])[k], 100 + k FROM generate_series(1, 3) k;
DELETE FROM order_tags WHERE random() < 0.1;
DELETE FROM comments WHERE random() < 0.1;
DELETE FROM orders WHERE id IN (SELECT id FROM orders WHERE random() < 0.08);
DELETE FROM categories WHERE id IN (SELECT id FROM categories WHERE random() < 0.15);
DELETE FROM users WHERE id IN (SELECT id FROM users WHERE random() < 0.03);
DELETE FROM events WHERE random() < 0.1;
UPDATE notes SET body = body || '*' WHERE random() < 0.4;
DELETE FROM ONLY notes WHERE random() < 0.2;
DELETE FROM pinned_notes WHERE random() < 0.2;
INSERT INTO pinned_notes VALUES (150, 1, 'new', 1), (151, 2, 'new', 1);
INSERT INTO notes VALUES (50, 1, 'new');
SQL
	db('refresh_src', $gen);
	$node->safe_psql('refresh_src', 'CREATE EXTENSION exwiw');
	dev('refresh_dev');
	export(2, "$work/b");
	export(1, "$work/a");
	($rc, $err) = load("$work/b", 'refresh_dev');
	is($rc, 0, "seed $seed: shop 2 loaded") or diag($err);
	($rc, $err) = load("$work/a", 'refresh_dev', '--on-conflict=skip');
	is($rc, 0, "seed $seed: shop 1 loaded beside it") or diag($err);
	$node->safe_psql('refresh_src', $change);
	export(1, "$work/a");
	dev('refresh_fa');
	($rc, $err) = load("$work/a", 'refresh_fa');
	is($rc, 0, "seed $seed: the new export of shop 1 loads into an empty database") or diag($err);
	my $d0 = rows('refresh_dev');
	($rc, $err) = load("$work/a", 'refresh_dev', '--refresh');
	my $d1 = rows('refresh_dev');
	if ($rc == 0)
	{
		$outcome{refreshed}++;
		same_rows($d1, expected($d0, rows('refresh_fa'), 1),
			"seed $seed: refreshed: shop 1's rows are the new export's, no other row changed");
	}
	else
	{
		$outcome{refused}++;
		note("seed $seed: $err");
		like($err, qr/^exwiw: error: --refresh would change rows that it does not replace$/m,
			"seed $seed: refused, and says why") or diag($err);
		same_rows($d1, $d0, "seed $seed: refused: not one row changed");
	}
}
ok($outcome{refreshed} >= 3 && $outcome{refused} >= 1,
	"the seeds both refreshed ($outcome{refreshed}) and refused ($outcome{refused})");

done_testing();
