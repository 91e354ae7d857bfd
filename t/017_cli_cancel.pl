# t/017_cli_cancel.pl: SIGINT (Ctrl-C) and SIGTERM during an export.
#
# The export is held on purpose: masks that call shop.held() for every row
# of users, orders, products, order items and transactions, a function that
# waits while a background psql holds advisory lock 4242, so that every
# worker is busy, and stays so, whatever the machine's speed.  A signal
# once every connection of the run waits on that lock must:
# - stop the server's work on every connection at once (PQcancel): each
#   backend of the run logs "canceling statement due to user request", and
#   none is left in pg_stat_activity, although the lock is still held (a
#   backend that was not canceled would wait on it for ever);
# - remove the temporary directory, leave no output directory;
# - exit with 130 for SIGINT (143 for SIGTERM), saying "canceled".
# With -j 1 and -j 2 (one connection, then a worker connection as well).
# A real Ctrl-C in a terminal is tested by t/019_cli_progress.pl.
use strict;
use warnings FATAL => 'all';

use FindBin;
use lib $FindBin::RealBin;
use ExwiwCli;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# the log lines read below: "[pid] application_name ERROR:  ..."
my $node = cli_node('cancel', "log_line_prefix = '%m [%p] %q%a '");
my $work = cli_work();
# the schema config, outside $work (which must stay empty)
my $sd = cli_work();

$node->safe_psql('postgres', 'CREATE DATABASE cli_cancel');
load_fixture('cli_cancel');
# a mask's part that waits while someone holds advisory lock 4242
# exclusively; it returns '' (as pg_sleep(2)::text did)
$node->safe_psql(
	'cli_cancel', q{
CREATE FUNCTION shop.held() RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_advisory_lock_shared(4242);
	PERFORM pg_advisory_unlock_shared(4242);
	RETURN '';
END
$$;
});
shop_env('cli_cancel');
run_ok([ 'exwiw', 'schema', 'generate', '--from-db', "--schema-dir=$sd" ],
	'schema generate');

my %masked = (
	users => q{{"name": "users", "primary_key": "id",
 "belongs_tos": [{"foreign_key": "shop_id", "table_name": "shops"}],
 "columns": [{"name": "id"}, {"name": "shop_id"}, {"name": "email", "raw_sql": "NULL"},
             {"name": "name", "raw_sql": "users.name || shop.held()"},
             {"name": "phone", "raw_sql": "NULL"}, {"name": "vip"}]}
},
	orders => q{{"name": "orders", "primary_key": "id",
 "belongs_tos": [{"foreign_key": "shop_id", "table_name": "shops"}, {"foreign_key": "user_id", "table_name": "users"}],
 "columns": [{"name": "id"}, {"name": "shop_id"}, {"name": "user_id"}, {"name": "ordered_at"},
             {"name": "total", "raw_sql": "orders.total + length(shop.held())"}]}
},
	products => q{{"name": "products", "primary_key": "id",
 "belongs_tos": [{"foreign_key": "category_id", "table_name": "categories"}, {"foreign_key": "shop_id", "table_name": "shops"}],
 "columns": [{"name": "id"}, {"name": "shop_id"}, {"name": "category_id"},
             {"name": "name", "raw_sql": "products.name || shop.held()"}, {"name": "price"}]}
},
	order_items => q{{"name": "order_items", "primary_key": "id",
 "belongs_tos": [{"foreign_key": "order_id", "table_name": "orders"}, {"foreign_key": "product_id", "table_name": "products"}],
 "columns": [{"name": "id"}, {"name": "order_id"}, {"name": "product_id"},
             {"name": "quantity", "raw_sql": "order_items.quantity + length(shop.held())"}]}
},
	transactions => q{{"name": "transactions", "primary_key": "id",
 "belongs_tos": [{"foreign_key": "order_id", "table_name": "orders"}],
 "columns": [{"name": "id"}, {"name": "order_id"}, {"name": "amount"},
             {"name": "card_last4", "raw_sql": "transactions.card_last4 || shop.held()"}]}
});
for my $t (sort keys %masked)
{
	open(my $fh, '>', "$sd/$t.json") or die "could not open $sd/$t.json: $!";
	print $fh $masked{$t};
	close $fh;
}

# the lock holder: one psql session, open until the end
my $hold = $node->background_psql('cli_cancel');
$hold->query_safe('SELECT pg_advisory_lock(4242)');

# run_and_signal(LABEL, SIGNAL, STATUS, JOBS): start an export with -j
# JOBS, wait until JOBS of its connections wait on the lock, send SIGNAL;
# the export must exit with STATUS saying "canceled by", leave nothing in
# $work, and every backend that waited must have been canceled and gone
# (the lock still held).
sub run_and_signal
{
	my ($label, $sig, $want, $jobs) = @_;
	my $app = "exwiw_cancel_${sig}_$jobs";
	my $where = "application_name = '$app'";
	my $log_offset = -s $node->logfile;
	my ($in, $out, $err) = ('', '', '');
	my $h;
	{
		local $ENV{PGAPPNAME} = $app;
		$h = IPC::Run::start(
			[
				'exwiw', '--target-table=shops', '--ids=1,2,3', "--schema-dir=$sd",
				'--allow-undecided', '-j', $jobs, '-o', "$work/out"
			],
			'<', \$in, '>', \$out, '2>', \$err,
			IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
	}
	# until JOBS connections of the run wait on the lock
	my $busy = $node->poll_query_until('postgres',
		"SELECT count(*) >= $jobs FROM pg_stat_activity WHERE $where AND wait_event = 'advisory'"
	);
	if (!$busy)
	{
		$h->kill_kill;
		fail("$label: fewer than $jobs connections of the run waited on the lock");
		diag($node->safe_psql('postgres',
				"SELECT pid, state, wait_event, query FROM pg_stat_activity WHERE $where"));
		diag($err);
		return;
	}
	my @pids = split /\n/,
	  $node->safe_psql('postgres',
		"SELECT pid FROM pg_stat_activity WHERE $where AND wait_event = 'advisory' ORDER BY pid");
	$h->signal($sig);
	eval { $h->finish; };
	if ($@)
	{
		$h->kill_kill;
		fail("$label: the export did not end after SIG$sig");
		diag("$@\n$err");
		return;
	}
	my $res = $h->full_result;
	my $rc = $res & 127 ? 128 + ($res & 127) : $res >> 8;
	is($rc, $want, "$label: exit status $want") or diag($err);
	like($err, qr/^exwiw: error: canceled by/m, "$label: says it was canceled")
	  or diag($err);
	is($out, '', "$label: nothing on stdout");
	# the backends end once their cancel is served and the client has gone;
	# without the cancel they would wait on the lock, which is still held
	ok( $node->poll_query_until(
			'postgres', "SELECT count(*) = 0 FROM pg_stat_activity WHERE $where"),
		"$label: every backend of the run stopped, the lock still held")
	  or diag($node->safe_psql('postgres',
			"SELECT pid, state, wait_event, query FROM pg_stat_activity WHERE $where"));
	my $log = slurp_file($node->logfile, $log_offset);
	my @uncanceled = grep {
		$log !~ /\[$_\] \Q$app\E ERROR:  canceling statement due to user request/
	} @pids;
	ok(!@uncanceled,
		"$label: the statement of each of the " . scalar(@pids) . ' waiting backends was canceled')
	  or diag("not canceled: @uncanceled\n$log");
	is(join(' ', dir_entries($work)), '', "$label: nothing left (no temporary or output directory)");
	return;
}

run_and_signal('SIGINT, -j 1', 'INT', 130, 1);
run_and_signal('SIGINT, -j 2', 'INT', 130, 2);
run_and_signal('SIGTERM, -j 2', 'TERM', 143, 2);

$hold->query_safe('SELECT pg_advisory_unlock(4242)');
$hold->quit;

done_testing();
