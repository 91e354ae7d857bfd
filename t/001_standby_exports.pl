# t/001_standby_exports.pl: exports from a hot standby (issue 23), on
# PostgreSQL::Test::Cluster (PGXS TAP_TESTS, prove_installcheck).
#
# A primary (autovacuum off, so that nothing but this test writes WAL) and
# a streaming standby made from its base backup.  The subset fixture is
# loaded on the primary; once the standby has replayed it, on the standby:
#  1. exwiw_export (insert, copy, jsonl), exwiw_dump and exwiw_dump_jsonl
#     give the primary's bytes;
#  2. the client, -j 1 and -j 2 (the snapshot exported and imported on the
#     standby), with --with-schema, writes the primary's directory;
#  3. the server-side sinks (exwiw_export_to_dir, exwiw_dump_to_file,
#     exwiw_dump_jsonl_to_file) write the primary's files: a standby writes
#     no WAL for them;
#  4. a snapshot conflict: with max_standby_streaming_delay = 100ms and
#     hot_standby_feedback off, an export is held in the middle of a file (a
#     mask waits on an advisory lock that a background psql holds), the
#     primary deletes rows the export reads and VACUUMs them away; the
#     export ends with "conflict with recovery" and leaves no directory,
#     file or temporary file, for exwiw_export_to_dir, exwiw_dump_to_file
#     and the client (-j 2), which says what to change.
# Every wait is for a condition (replay LSN, a backend waiting on the lock,
# a process ending), bounded by PostgreSQL::Test::Utils's timeout; none
# depends on speed.
#
# The servers and the exwiw client are those on PATH (prove_installcheck
# puts the bindir of PG_CONFIG first); with EXWIW_TAP_PORT, the primary
# listens on that port and the standby on the next one.
use strict;
use warnings FATAL => 'all';

use File::Compare;
use File::Find;
use File::Path qw(make_path);
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $tap_port = $ENV{EXWIW_TAP_PORT};
my $primary = PostgreSQL::Test::Cluster->new('primary',
	defined $tap_port ? (port => $tap_port) : ());
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', "autovacuum = off\nfsync = off\n");
$primary->start;

$primary->safe_psql('postgres', 'CREATE DATABASE standby_src');
# a file (it includes another, relative to itself)
$primary->command_ok(
	[
		'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1',
		'-d', $primary->connstr('standby_src'),
		'-c', 'CREATE EXTENSION exwiw',
		'-f', 'test/subset/fixture.sql'
	],
	'the subset fixture on the primary');
$primary->safe_psql(
	'standby_src', q{
-- rows that an export reads and the primary will delete and vacuum away
CREATE TABLE shop.pad (id int PRIMARY KEY, note text);
INSERT INTO shop.pad SELECT g, 'pad ' || g FROM generate_series(1, 2000) g;
-- a mask that waits while someone holds advisory lock 4242 exclusively
CREATE FUNCTION shop.held(v text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_advisory_lock_shared(4242);
	PERFORM pg_advisory_unlock_shared(4242);
	RETURN v;
END
$$;
});

$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('standby',
	defined $tap_port ? (port => $tap_port + 1) : ());
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->append_conf(
	'postgresql.conf', q{
hot_standby = on
hot_standby_feedback = off
max_standby_streaming_delay = 100ms
});
$standby->start;

# caught_up: the standby has replayed everything the primary wrote so far
# (up to the insert position: with synchronous_commit off, a commit that has
# returned may not be written yet)
sub caught_up
{
	$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
}
caught_up();
is($standby->safe_psql('postgres', 'SELECT pg_is_in_recovery()'),
	't', 'a streaming standby, the fixture replayed');

# every session from here on: the fixture's schema, no NOTICEs
$ENV{PGOPTIONS} = '-c search_path=shop,public -c client_min_messages=warning';

# 1. the SQL functions: the same rows, byte for byte
for my $fmt (qw(insert copy jsonl))
{
	my $sql =
	  "SELECT file_name, chunk FROM exwiw_export('shops', '{1,2}', exwiw_config_from_catalog(), '$fmt', allow_undecided => true)";
	my $p = $primary->safe_psql('standby_src', $sql);
	my $s = $standby->safe_psql('standby_src', $sql);
	my $files = $standby->safe_psql('standby_src',
		"SELECT count(DISTINCT file_name) FROM ($sql) e");
	ok($files > 3 && $p eq $s,
		"exwiw_export $fmt on the standby: the primary's $files files");
}
for my $sql (
	"SELECT exwiw_dump('SELECT * FROM shop.orders ORDER BY id', 'orders', 7)",
	"SELECT exwiw_dump_jsonl('SELECT * FROM shop.users ORDER BY id')")
{
	my $p = $primary->safe_psql('standby_src', $sql);
	my $s = $standby->safe_psql('standby_src', $sql);
	ok($p ne '' && $p eq $s, "on the standby, the primary's bytes: $sql");
}

# the files of a directory, relative to it, in name order (but
# manifest.json: when and from which snapshot, never the same twice)
sub files_of
{
	my ($dir) = @_;
	my @f;
	return () unless -d $dir;
	find(
		{
			wanted => sub {
				push @f, $File::Find::name
				  if -f $_ && $File::Find::name ne "$dir/manifest.json";
			},
			no_chdir => 1
		},
		$dir);
	return sort map { substr($_, length($dir) + 1) } @f;
}

# same_dirs A B: the same file names, the same bytes
sub same_dirs
{
	my ($a, $b) = @_;
	my @fa = files_of($a);
	my @fb = files_of($b);
	return 0 unless @fa && "@fa" eq "@fb";
	for my $f (@fa)
	{
		return 0 if compare("$a/$f", "$b/$f") != 0;
	}
	return 1;
}

# the client's connection options for a node
sub conn
{
	my ($node) = @_;
	return ('-h', $node->host, '-p', $node->port, '-d', 'standby_src');
}

# 2. the client
my $work = PostgreSQL::Test::Utils::tempdir();
my $sd = "$work/schema";
command_ok([ 'exwiw', 'schema', 'generate', '--from-db', "--schema-dir=$sd", conn($primary) ],
	'exwiw schema generate on the primary');
my @export = ('exwiw', '--target-table=shops', '--ids=1,2', "--schema-dir=$sd", '--allow-undecided');

# pg_dump's \restrict key is random, run after run
sub unrestrict
{
	my ($dir) = @_;
	my $f = "$dir/insert-000-schema.sql";
	my $text = slurp_file($f);
	$text =~ s/^\\(un)?restrict .*\n//mg;
	open my $fh, '>', $f or die "$f: $!";
	print $fh $text;
	close $fh;
}
command_ok([ @export, '--with-schema', '-j', '1', '-o', "$work/cli_p", conn($primary) ],
	'exwiw -j 1 --with-schema on the primary');
unrestrict("$work/cli_p");
for my $j (1, 2)
{
	my ($out, $err) = ('', '');
	my $ran = IPC::Run::run([ @export, '--with-schema', '-j', $j, '-o', "$work/cli_s$j", conn($standby) ],
		'>', \$out, '2>', \$err);
	unrestrict("$work/cli_s$j") if $ran;
	my $n = () = files_of("$work/cli_s$j");
	ok($ran && same_dirs("$work/cli_p", "$work/cli_s$j"),
		"exwiw -j $j --with-schema on the standby: the primary's $n files")
	  or diag($err);
}

# 3. the sinks (server-side files; the standby writes them, no WAL)
my $f = "$work/files";
make_path($f);
for my $side ([ 'p', $primary ], [ 's', $standby ])
{
	my ($s, $node) = @$side;
	$node->safe_psql('standby_src', qq{
SELECT count(*) FROM exwiw_export_to_dir('$f/dir_$s', 'shops', '{1,2}', exwiw_config_from_catalog(), allow_undecided => true);
SELECT exwiw_dump_to_file('$f/orders_$s.sql', 'SELECT * FROM shop.orders ORDER BY id', 'orders', compress => 'zstd');
SELECT exwiw_dump_jsonl_to_file('$f/users_$s.jsonl', 'SELECT * FROM shop.users ORDER BY id');
});
}
my $ndir = () = files_of("$f/dir_s");
ok( $ndir > 3
	  && same_dirs("$f/dir_p", "$f/dir_s")
	  && -s "$f/orders_s.sql"
	  && compare("$f/orders_p.sql", "$f/orders_s.sql") == 0
	  && -s "$f/users_s.jsonl"
	  && compare("$f/users_p.jsonl", "$f/users_s.jsonl") == 0,
	'exwiw_export_to_dir, exwiw_dump_to_file (zstd), exwiw_dump_jsonl_to_file on the standby: the primary\'s files');

# 4. snapshot conflicts
# The config of the client's schema directory, with users.name masked by
# shop.held: every users row waits while lock 4242 is held.
open my $uj, '>', "$sd/users.json" or die "$sd/users.json: $!";
print $uj q{{"name": "users", "primary_key": "id",
 "belongs_tos": [{"foreign_key": "shop_id", "table_name": "shops"}],
 "columns": [{"name": "id"}, {"name": "shop_id"}, {"name": "email", "raw_sql": "NULL"},
             {"name": "name", "raw_sql": "shop.held(users.name)"},
             {"name": "phone", "raw_sql": "NULL"}, {"name": "vip"}]}
};
close $uj;
opendir my $dh, $sd or die "$sd: $!";
my $cfg = '[' . join(',', map { slurp_file("$sd/$_") } sort grep { /\.json$/ } readdir $dh) . ']';
closedir $dh;
$cfg =~ s/'/''/g;

# the lock holder: one psql session on the standby
my $hold = $standby->background_psql('standby_src');

# conflict LABEL WHERE CMD: run CMD (an export on the standby) while lock
# 4242 is held, wait until it waits on the lock, delete the pad rows (which
# it reads, after users) on the primary and VACUUM them away, and wait for
# CMD to end.  CMD must fail with "conflict with recovery" and leave nothing
# where it writes (WHERE, and nothing new beside it).  Returns its stderr.
sub conflict
{
	my ($label, $where, @cmd) = @_;
	$primary->safe_psql('standby_src',
		"INSERT INTO shop.pad SELECT g, 'pad ' || g FROM generate_series(1, 2000) g ON CONFLICT DO NOTHING");
	caught_up();
	my $parent = $where =~ s{/[^/]+$}{}r;
	my @before = files_of($parent);
	$hold->query_safe('SELECT pg_advisory_lock(4242)');
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(\@cmd, '>', \$out, '2>', \$err);
	# until it waits on the lock (or has ended: then it failed otherwise)
	my $waits = $standby->poll_query_until('postgres',
		"SELECT count(*) > 0 FROM pg_stat_activity WHERE wait_event = 'advisory' AND datname = 'standby_src'");
	if (!$waits)
	{
		$h->kill_kill;
		$hold->query_safe('SELECT pg_advisory_unlock(4242)');
		fail("$label: the export did not wait on the lock");
		diag($err);
		return '';
	}
	# rows the export's snapshot sees, gone on the primary, vacuumed away
	# (no truncation: its lock would be a conflict of another kind)
	$primary->safe_psql('standby_src', 'DELETE FROM shop.pad');
	$primary->safe_psql('standby_src', 'VACUUM (TRUNCATE false) shop.pad');
	my $succeeded = $h->finish;
	$hold->query_safe('SELECT pg_advisory_unlock(4242)');
	my @after = files_of($parent);
	if ($succeeded)
	{
		fail("$label: the export succeeded");
	}
	elsif ($err !~ /conflict with recovery/)
	{
		fail("$label: failed without 'conflict with recovery'");
		diag($err);
	}
	elsif (-e $where || "@before" ne "@after")
	{
		fail("$label: left something behind");
	}
	else
	{
		my ($line) = $err =~ /^(.*conflict with recovery.*)$/m;
		pass("$label: " . substr($line, 0, 100));
	}
	return $err;
}

my $sq = $standby->connstr('standby_src');
conflict('exwiw_export_to_dir on the standby, snapshot conflict', "$f/dir_conflict",
	'psql', '-X', '-q', '-At', '-v', 'ON_ERROR_STOP=1', '-d', $sq, '-c',
	"SELECT count(*) FROM exwiw_export_to_dir('$f/dir_conflict', 'shops', '{1,2}', '$cfg', allow_undecided => true)");
conflict('exwiw_dump_to_file on the standby, snapshot conflict', "$f/conflict.sql",
	'psql', '-X', '-q', '-At', '-v', 'ON_ERROR_STOP=1', '-d', $sq, '-c',
	"SELECT exwiw_dump_to_file('$f/conflict.sql', 'SELECT u.id AS user_id, shop.held(u.name) AS name, p.* FROM shop.users u, shop.pad p ORDER BY 1, p.id', 'x')");
my $err = conflict('exwiw -j 2 on the standby, snapshot conflict', "$work/cli_conflict",
	@export, '-j', '2', '-o', "$work/cli_conflict", conn($standby));
like($err, qr/^exwiw: error: .*conflict with recovery/m, 'the client names the conflict');
like($err, qr/hot_standby_feedback/, 'the client names the settings to change');
$hold->quit;

# the standby is still a standby, still replaying
caught_up();
is($standby->safe_psql('postgres', 'SELECT pg_is_in_recovery()'),
	't', 'the standby still replays after the conflicts');

$standby->stop;
$primary->stop;
done_testing();
