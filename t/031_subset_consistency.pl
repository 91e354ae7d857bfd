# t/031_subset_consistency.pl: an export taken while another session
# commits inserts, updates and deletes loads into an empty, fully
# constrained copy of the schema, with every foreign key checked, and holds
# the rows of the source as they were when the export began: every file of
# an export is read on one snapshot.  The control, one statement (so one
# snapshot) per file, fails to load when the same kind of commit falls
# between two of its files.
#
# The interleaving is made certain, not hoped for: a column of one table
# (raw_sql "tst.held(<table>.name)") waits while a background session holds
# advisory lock 4242, so the export stops in the middle of that table's
# file; the test waits until its backend waits on the lock, the writer
# session commits (tst.writer: a new category, user, product and order with
# items, transactions and tags that reference rows of earlier files, and
# rows of earlier files updated or deleted, with their children in later
# files), the test checks the export still waits, and releases the lock.
# Then:
#  1. the export's files are those of an export taken just before the
#     commit, byte for byte;
#  2. they load as a role that may not set session_replication_role (every
#     foreign key checked), into an empty copy of the schema;
#  3. every loaded table equals (EXCEPT ALL both ways) the rows the export
#     should hold, computed by queries over the source just before the
#     commit and copied over with COPY (not by exwiw), and those differ
#     from the rows after the commit in every table (so the commit touched
#     every file).
# This is done for exwiw_export (held in categories, the second file) and
# for the client with -j 2 (held in users, the fifth: the workers share an
# exported snapshot).  The control: the per-file exports (files => '{seq}')
# taken without a writer are the export's files; with the writer's commit
# after file 2, 5 or 6 they fail to load, at the first later file that
# references a row the earlier files do not hold, naming the foreign key.
#
# specs/subset_snapshot_writes.spec shows the same at the level of rows in
# one session's cursor; this test is about the files loading.  Every wait is
# a bounded poll for a condition (PostgreSQL::Test::Utils's timeout); none
# depends on the machine's speed.
use strict;
use warnings FATAL => 'all';

use FindBin;
use lib $FindBin::RealBin;
use ExwiwCli;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = cli_node('consistency');
my $work = cli_work();

make_databases($node);
$node->safe_psql(
	'subset_src', q{
SET search_path = shop;
CREATE INDEX ON transactions (order_id);
-- orders of shop 1 for the writer to delete, with their children
INSERT INTO orders (shop_id, user_id, ordered_at, total)
	SELECT 1, 1 + i % 2, '2026-02-01 00:00:00+00'::timestamptz + i * interval '1 min', i
	FROM generate_series(1, 200) i;
INSERT INTO order_items (order_id, product_id, quantity)
	SELECT o.id, 1 + o.id % 2, g FROM orders o, generate_series(1, 3) g WHERE o.id > 5;
INSERT INTO transactions (order_id, amount) SELECT id, total FROM orders WHERE id > 5;
INSERT INTO order_tags SELECT id, 'bulk' FROM orders WHERE id > 5 AND id % 3 = 0;
ANALYZE;

-- the test's functions, outside the exported schema
CREATE SCHEMA tst;
-- a mask that waits while someone holds advisory lock 4242 exclusively
CREATE FUNCTION tst.held(v text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_advisory_lock_shared(4242);
	PERFORM pg_advisory_unlock_shared(4242);
	RETURN v;
END
$$;
-- the config: the catalog's, unmasked (the rows as they are), with
-- column name of table held (if any) read through tst.held
CREATE FUNCTION tst.cfg(held text) RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_agg(CASE WHEN t ->> 'name' = held
		THEN jsonb_set(t, '{columns}', (SELECT jsonb_agg(CASE WHEN c ->> 'name' = 'name'
				THEN c || jsonb_build_object('raw_sql', format('tst.held(%I.name)', held)) ELSE c END ORDER BY k)
			FROM jsonb_array_elements(t -> 'columns') WITH ORDINALITY AS y(c, k)))
		ELSE t END ORDER BY n)
	FROM jsonb_array_elements(public.exwiw_test_unmasked(public.exwiw_config_from_catalog('shop')) -> 'tables')
		WITH ORDINALITY AS x(t, n)
$$;
-- the writer's transaction, round r: rows that reference rows of earlier
-- files (a new category's product, a new user's order, new items,
-- transactions and tags of a new and of an old order), rows of earlier
-- files updated, and orders deleted whose items, transactions and tags
-- (later files) go by ON DELETE CASCADE: the oldest bulk order, and order
-- 3 (the only reason user 3, of shop 2, is exported)
CREATE FUNCTION tst.writer(r int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	c int;
	u bigint;
	p bigint;
	o bigint;
BEGIN
	INSERT INTO shop.categories (parent_id, name) VALUES (NULL, 'new ' || r) RETURNING id INTO c;
	INSERT INTO shop.users (shop_id, name) VALUES (3, 'writer ' || r) RETURNING id INTO u;
	INSERT INTO shop.products (shop_id, category_id, name, price)
		VALUES (1, c, 'new ' || r, r) RETURNING id INTO p;
	INSERT INTO shop.orders (shop_id, user_id, ordered_at, total)
		VALUES (1, u, '2026-03-01 00:00:00+00', r) RETURNING id INTO o;
	INSERT INTO shop.order_items (order_id, product_id, quantity) VALUES (o, p, 1), (1, p, r);
	INSERT INTO shop.transactions (order_id, amount) VALUES (o, r), (1, r);
	INSERT INTO shop.order_tags VALUES (o, 'new'), (1, 'new ' || r);
	INSERT INTO shop.announcements (body) VALUES ('new ' || r);
	UPDATE shop.shops SET name = name || ' ' || r WHERE id = 1;
	UPDATE shop.users SET name = name || ' ' || r WHERE id = 1;
	UPDATE shop.orders SET total = total + r WHERE id = 1;
	DELETE FROM shop.orders WHERE id = 3
		OR id = (SELECT min(id) FROM shop.orders WHERE shop_id = 1 AND id > 5);
END
$$;
-- the rows an export of shop 1 holds, table by table, computed from the
-- source's rows (not by exwiw): the tenant's rows and, transitively, the
-- rows they reference
CREATE VIEW tst.want_orders AS SELECT * FROM shop.orders WHERE shop_id = 1;
CREATE VIEW tst.want_order_items AS
	SELECT * FROM shop.order_items WHERE order_id IN (SELECT id FROM tst.want_orders);
CREATE VIEW tst.want_transactions AS
	SELECT * FROM shop.transactions WHERE order_id IN (SELECT id FROM tst.want_orders);
CREATE VIEW tst.want_order_tags AS
	SELECT * FROM shop.order_tags WHERE order_id IN (SELECT id FROM tst.want_orders);
CREATE VIEW tst.want_users AS
	SELECT * FROM shop.users WHERE shop_id = 1 OR id IN (SELECT user_id FROM tst.want_orders);
CREATE VIEW tst.want_products AS
	SELECT * FROM shop.products
	WHERE shop_id = 1 OR id IN (SELECT product_id FROM tst.want_order_items);
CREATE VIEW tst.want_shops AS
	SELECT * FROM shop.shops WHERE id = 1
		OR id IN (SELECT shop_id FROM tst.want_users UNION SELECT shop_id FROM tst.want_products);
CREATE VIEW tst.want_categories AS
	WITH RECURSIVE c(id) AS (
		SELECT category_id FROM tst.want_products
		UNION
		SELECT k.parent_id FROM shop.categories k JOIN c ON k.id = c.id)
	SELECT * FROM shop.categories WHERE id IN (SELECT id FROM c);
CREATE VIEW tst.want_announcements AS SELECT * FROM shop.announcements;
});
my @tables =
  qw(announcements categories shops products users orders order_items order_tags transactions);

my $schema = "$work/schema.sql";
run_ok([ 'pg_dump', '--schema-only', '-n', 'shop', '-f', $schema, '-d', 'subset_src' ],
	'pg_dump --schema-only of the source');
# the comparison of a loaded table with the expected rows, in the copy
$node->safe_psql(
	'subset_dst', q{
CREATE FUNCTION public.diff(t text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE d text;
BEGIN
	EXECUTE format('SELECT %L || '': '' || (SELECT count(*) FROM (TABLE shop.%1$I EXCEPT ALL TABLE want.%1$I) a)
		|| '' extra, '' || (SELECT count(*) FROM (TABLE want.%1$I EXCEPT ALL TABLE shop.%1$I) b)
		|| '' missing, '' || (SELECT count(*) FROM shop.%1$I) || '' rows''', t) INTO d;
	RETURN d;
END
$$;
});

# every session from here on: the fixture's database and schema, no NOTICE
shop_env('subset_src');

# the file order: the plan's
my $plan = $node->safe_psql('subset_src',
	"SELECT string_agg(table_name, ' ' ORDER BY seq) FROM exwiw_plan('shops', '{1}', tst.cfg(NULL)) WHERE seq IS NOT NULL"
);
is($plan, join(' ', @tables), "the files, in order: $plan");

# want(): the rows the export of shop 1 holds now, table by table, as COPY
# text
sub want
{
	my %w;
	for my $t (@tables)
	{
		my ($rc, $out, $err) = run_cmd(
			[
				'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-c',
				"COPY (SELECT * FROM tst.want_$t) TO STDOUT"
			]);
		die "COPY tst.want_$t: $err" if $rc;
		$w{$t} = $out;
	}
	return \%w;
}

# load(LABEL, DIR, WANT): DIR loads into a fresh, fully constrained copy as
# subset_loader, who may not skip the foreign-key checks, and every table
# then holds exactly WANT's rows (EXCEPT ALL both ways)
sub load
{
	my ($label, $dir, $want) = @_;
	fresh_dst($node, $schema);
	ok(!loader_may_skip_keys($node), "$label: the loader may not skip foreign-key checks");
	my $failed = load_files($dir, '-U', 'subset_loader', '-d', 'subset_dst');
	is($failed, '', "$label: loads with every foreign key checked");
	$node->safe_psql('subset_dst', 'DROP SCHEMA IF EXISTS want CASCADE; CREATE SCHEMA want');
	my (@got, @exp);
	for my $t (@tables)
	{
		$node->safe_psql('subset_dst', "CREATE TABLE want.$t (LIKE shop.$t)");
		my ($rc, $out, $err) = run_cmd([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', 'subset_dst',
			'-c', "COPY want.$t FROM STDIN" ], stdin => $want->{$t});
		die "COPY want.$t: $err" if $rc;
		my $n = () = $want->{$t} =~ /\n/g;
		push @exp, "$t: 0 extra, 0 missing, $n rows";
		push @got, $node->safe_psql('subset_dst', "SELECT public.diff('$t')");
	}
	is(join("\n", @got), join("\n", @exp),
		"$label: every table holds the source's rows as of the export's snapshot (EXCEPT ALL both ways)");
	return;
}

# waiting(): the number of backends waiting for advisory lock 4242
sub waiting
{
	return $node->safe_psql('postgres',
		"SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242 AND NOT granted");
}

my $hold = $node->background_psql('subset_src');
my $writer = $node->background_psql('subset_src');
my $round = 0;

# held(LABEL, HELD-TABLE, DIR, CMD, REF-DIR): run CMD (an export) while
# lock 4242 is held; once its backend waits on it (in HELD-TABLE's file),
# the writer commits; CMD must still wait, then finish once the lock is
# released.  Its files (in DIR: CMD writes them, or its stdout holds psql
# -0 pairs) must be REF-DIR's, an export taken just before, and load with
# the rows of the source before the commit.
sub held
{
	my ($label, $table, $dir, $cmd, $ref) = @_;
	my $want = want();
	load("$label, the export taken before the writer's commit", $ref, $want);
	$round++;
	is(waiting(), '0', "$label: nothing waits on the lock yet");
	$hold->query_safe('SELECT pg_advisory_lock(4242)');
	my ($out, $err) = ('', '');
	my $in = '';
	my $h = IPC::Run::start($cmd, '<', \$in, '>', \$out, '2>', \$err,
		IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
	my $waits = $node->poll_query_until('postgres',
		"SELECT count(*) = 1 FROM pg_locks l JOIN pg_stat_activity a USING (pid)
		 WHERE l.locktype = 'advisory' AND l.objid = 4242 AND NOT l.granted
		   AND a.datname = 'subset_src' AND a.wait_event = 'advisory'");
	ok($waits, "$label: the export waits in the file of $table") or diag($err);
	$writer->query_safe("SELECT tst.writer($round)");
	my $after = want();
	my @changed = grep { $after->{$_} ne $want->{$_} } @tables;
	is("@changed", "@tables",
		"$label: the writer committed, changing every table's rows to export, while the export waited");
	is(waiting(), '1', "$label: the export still waits after the writer's commit");
	$hold->query_safe('SELECT pg_advisory_unlock(4242)');
	# the harness's timeout throws without killing: kill it, then fail
	my $finished = eval { $h->finish };
	if (!defined $finished)
	{
		$h->kill_kill;
		$finished = 0;
		$err .= "\n$@";
	}
	ok($finished, "$label: the export ends once the lock is released") or diag($err);
	# psql's output: the files as recipe() writes them
	unless (-d $dir)
	{
		mkdir $dir or die "mkdir $dir: $!";
		write_pairs($dir, $out);
	}
	ok(same_dirs($ref, $dir),
		"$label: its files are those of the export taken before the commit, byte for byte");
	load($label, $dir, $want);
	return;
}

# export_sql(HELD, [SEQ]): exwiw_export of shop 1 with tst.cfg(HELD), all
# files or file SEQ alone
sub export_sql
{
	my ($held, $seq) = @_;
	my $f = defined $seq ? ", files => '{$seq}'" : '';
	return "SELECT file_name, chunk FROM exwiw_export('shops', '{1}', tst.cfg('$held'), allow_undecided => true$f)";
}

# 1. exwiw_export, one statement, held in categories (the second file)
is(write_files("$work/ref1", '-c', export_sql('categories')), 0,
	'exwiw_export before the writer');
held('exwiw_export held in categories', 'categories', "$work/held1",
	[
		'psql', '-X', '-A', '-t', '-q', '-0', '--field-separator-zero',
		'-v', 'ON_ERROR_STOP=1', '-c', export_sql('categories')
	],
	"$work/ref1");

# 2. the client, -j 2 (its workers on one exported snapshot), held in users
# (the fifth file); the config as one schema file
my $cfg = "$work/cfg.json";
write_file($cfg, $node->safe_psql('subset_src', "SELECT jsonb_pretty(jsonb_build_object('tables', tst.cfg('users')))"));
my @client = ('exwiw', '--target-table=shops', '--ids=1', "--schema-dir=$cfg", '--allow-undecided', '-j', '2');
run_ok([ @client, '-o', "$work/ref2" ], 'exwiw -j 2 before the writer');
held('exwiw -j 2 held in users', 'users', "$work/held2", [ @client, '-o', "$work/held2" ], "$work/ref2");

# 3. the control: one statement, so one snapshot, per file
# per_file(DIR, CUT): the files one statement each; the writer commits
# after file CUT (none if 0)
sub per_file
{
	my ($dir, $cut) = @_;
	my @failed;
	for my $seq (1 .. @tables)
	{
		push @failed, $seq if write_files($dir, '-c', export_sql('', $seq)) != 0;
		if ($seq == $cut)
		{
			$round++;
			$writer->query_safe("SELECT tst.writer($round)");
		}
	}
	is("@failed", '',
		"the control, one statement per file" . ($cut ? ", the writer's commit after file $cut" : ''));
	return;
}
is(write_files("$work/ref3", '-c', export_sql('')), 0, 'exwiw_export, one statement');
per_file("$work/control0", 0);
ok(same_dirs("$work/ref3", "$work/control0"),
	'the control without a writer: one statement per file gives the same files');
load('the control without a writer', "$work/control0", want());
for my $c ([ 2, '004-products', 'products_category_id_fkey' ],
	[ 5, '006-orders', 'orders_user_id_fkey' ],
	[ 6, '007-order_items', 'order_items_order_id_fkey' ])
{
	my ($cut, $file, $fkey) = @$c;
	per_file("$work/control$cut", $cut);
	fresh_dst($node, $schema);
	my $failed = load_files("$work/control$cut", '-U', 'subset_loader', '-d', 'subset_dst');
	like(
		$failed,
		qr/^load failed at insert-$file\.sql: .*violates foreign key constraint "$fkey"/s,
		"the control with the writer's commit after file $cut does not load: $fkey");
}

$hold->quit;
$writer->quit;
$node->stop;
done_testing();
