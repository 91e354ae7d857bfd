# t/030_sink_cron.pl: a scheduled export with pg_cron, for real, on
# PostgreSQL::Test::Cluster.
#
# Starts a cluster of its own with pg_cron preloaded (Debian's
# postgresql-N-cron; the test skips, saying so, when the server under test
# has no pg_cron.so).  Debian 12 ships pg_cron 1.4, whose schedules are
# cron expressions, one minute at the finest (the '5 seconds' schedules
# came with 1.5), so the test schedules its jobs for the next minute (UTC,
# pg_cron 1.4's clock) and waits for cron.job_run_details with
# poll_query_until (bounded by PostgreSQL::Test::Utils's timeout): it takes
# about a minute.
#
#  1. doc/sinks.md's job: exwiw_export_to_dir of every shop into a dated
#     directory, then the cleanup statement that keeps the last two
#     exports, runs and succeeds (three older exports are there before it;
#     two remain: the newest old one and the new one, of 9 files, with no
#     temporary name left);
#  2. its files load, in file order and with every constraint enforced, as
#     a role that is not a superuser, into an empty copy of the schema, and
#     every table equals its source (EXCEPT both ways);
#  3. a job whose export fails (its directory is not empty) shows as
#     "failed" in cron.job_run_details, with the error as return_message,
#     and leaves the directory as it was.
use strict;
use warnings FATAL => 'all';

use FindBin;
use lib $FindBin::RealBin;
use ExwiwCli;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# pg_cron must be installed for the server under test (pg_config on PATH is
# the private install's)
my ($prc, $pkglibdir, $perr) = run_cmd([ 'pg_config', '--pkglibdir' ]);
chomp $pkglibdir;
die "pg_config --pkglibdir: exit $prc: $perr" if $prc != 0;
my ($vrc, $version) = run_cmd([ 'pg_config', '--version' ]);
chomp $version;
if (!-f "$pkglibdir/pg_cron.so")
{
	my ($major) = $version =~ /(\d+)/;
	plan skip_all => "pg_cron is not installed for $version: no pg_cron.so in"
	  . " $pkglibdir (Debian's postgresql-$major-cron installs it for Debian's server)";
}

my $node = PostgreSQL::Test::Cluster->new('cron');
$node->init;
$node->append_conf(
	'postgresql.conf', q{
fsync = off
shared_preload_libraries = 'pg_cron'
cron.database_name = 'shopdb'
cron.use_background_workers = on
max_worker_processes = 16
});
$node->start;
$ENV{PGHOST} = $node->host;
$ENV{PGPORT} = $node->port;
$ENV{PGDATABASE} = 'postgres';
delete $ENV{PGOPTIONS};

my $work = cli_work();
my $out = "$work/exports";
mkdir $out or die "mkdir $out: $!";

$node->safe_psql('postgres', 'CREATE DATABASE shopdb');
# subset_src (the fixture), subset_dst, subset_loader
make_databases($node);
load_fixture('shopdb');
$node->safe_psql('shopdb', 'CREATE EXTENSION pg_cron');
$node->safe_psql('shopdb', 'ALTER DATABASE shopdb SET search_path = shop, public');

# Three older exports, as earlier runs would have left them.
for my $d (qw(2000-01-01 2000-01-02 2000-01-03))
{
	$node->safe_psql('shopdb',
		"SELECT count(*) FROM exwiw_export_to_dir('$out/shops-$d', 'shops', '{1}', allow_undecided => true)"
	);
}
mkdir "$out/keep-me" or die "mkdir $out/keep-me: $!";
write_file("$out/keep-me/notes.txt", '');

# Schedule for the next minute, not in this minute's last seconds: pg_cron
# reads a new job at the start of the next minute's check.  (A wait for the
# clock to pass the minute, not for anything else.)
sleep 1 while (gmtime)[0] > 50;
my @next = gmtime(time + 60);
my $when = "$next[1] $next[2]";
my $job = $node->safe_psql(
	'shopdb', qq{
SELECT cron.schedule('exwiw-shops', '$when * * *', \$job\$
  SELECT count(*) FROM exwiw_export_to_dir(
           '$out/shops-' || to_char(now(), 'YYYY-MM-DD"T"HH24MISS'),
           'shops', '{1,2,3}', exwiw_test_unmasked(exwiw_config_from_catalog()),
           allow_undecided => true);
  SELECT exwiw_remove_export('$out/' || d)
  FROM (SELECT d FROM pg_ls_dir('$out') AS d
        WHERE d LIKE 'shops-%'
        ORDER BY d DESC OFFSET 2) AS old;
\$job\$);
});
my $badjob = $node->safe_psql(
	'shopdb', qq{
SELECT cron.schedule('exwiw-fails', '$when * * *', \$job\$
  SELECT count(*) FROM exwiw_export_to_dir('$out/keep-me', 'shops', '{1}', allow_undecided => true);
\$job\$);
});
note(sprintf("jobs %s and %s scheduled for minute '%s' (UTC), now %02d:%02d:%02d",
	$job, $badjob, $when, (gmtime)[ 2, 1, 0 ]));

# the jobs start at the next minute; the bound only catches a hang
my $ran = $node->poll_query_until('shopdb',
	"SELECT count(DISTINCT jobid) = 2 FROM cron.job_run_details WHERE jobid IN ($job, $badjob) AND status IN ('succeeded', 'failed')"
);
my $details = $node->safe_psql('shopdb',
	"SELECT jobid, status, return_message, end_time - start_time AS took FROM cron.job_run_details ORDER BY jobid"
);
ok($ran, 'both jobs ran (cron.job_run_details)')
  or diag("cron.job_run_details:\n$details");
note("cron.job_run_details:\n$details");
$node->safe_psql('shopdb', 'SELECT cron.unschedule(jobid) FROM cron.job');

# 1. the export job succeeded, and the cleanup kept the last two
my $status =
  $node->safe_psql('shopdb', "SELECT status FROM cron.job_run_details WHERE jobid = $job");
is($status, 'succeeded', 'the export job ran once and succeeded')
  or diag("cron.job_run_details:\n$details");
my @dirs = grep { /^shops-/ } dir_entries($out);
is(scalar(@dirs), 2, 'the cleanup kept the last two exports')
  or diag("found: @dirs");
is($dirs[0] // '', 'shops-2000-01-03', 'the cleanup kept the newest older export')
  or diag("found: @dirs");
my $newname = $dirs[1] // '';
like($newname, qr/^shops-\d{4}-\d\d-\d\dT\d{6}$/, "the scheduled export's dated directory")
  or diag("found: @dirs");
my $new = "$out/$newname";
my @files = $newname ne '' && -d $new ? dir_entries($new) : ();
is(scalar(@files), 9, "the scheduled export ($newname) has 9 files")
  or diag("files: @files");
my @tmp = grep { /exwiw-tmp/ } (dir_entries($out), @files);
is(scalar(@tmp), 0, 'no temporary name is left') or diag("left: @tmp");

# 2. the files (every shop: every row) load with every constraint enforced,
#    as a role that is not a superuser, and each table equals its source
run_ok([ 'pg_dump', '--schema-only', '-n', 'shop', '-f', "$work/schema.sql", 'shopdb' ],
	'pg_dump --schema-only of the source');
fresh_dst($node, "$work/schema.sql");
my $loaded;
{
	local $ENV{PGOPTIONS} = '-c search_path=shop,public';
	$loaded = @files ? load_files($new, '-U', 'subset_loader', '-d', 'subset_dst') : 'no files';
}
is($loaded, '', "the scheduled export's files load as subset_loader, every constraint enforced");
my ($drc, $dump, $derr) = run_cmd([ 'pg_dump', '--data-only', '-n', 'shop', 'subset_dst' ]);
is($drc, 0, 'pg_dump --data-only of the loaded copy') or diag($derr);
$dump =~ s/^COPY shop\./COPY loaded./mg;
$dump =~ s/^SELECT pg_catalog\.setval.*\n//mg;
write_file("$work/loaded.sql", $dump);
my @tables = map { /^insert-[0-9]*-(.*)\.sql$/ ? $1 : "($_)" } @files;
$node->safe_psql('shopdb',
	"SET client_min_messages = warning; DROP SCHEMA IF EXISTS loaded CASCADE; CREATE SCHEMA loaded; "
	  . join('', map { "CREATE TABLE loaded.$_ (LIKE shop.$_); " } @tables));
run_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', 'shopdb', '-f', "$work/loaded.sql" ],
	'the loaded rows copied back into shopdb, schema loaded');
my @differ;
for my $t (@tables)
{
	my $d = $node->safe_psql(
		'shopdb', qq{
SELECT (SELECT count(*) FROM (TABLE shop.$t EXCEPT ALL TABLE loaded.$t) a)
	+ (SELECT count(*) FROM (TABLE loaded.$t EXCEPT ALL TABLE shop.$t) b)});
	push @differ, "$t ($d rows)" if $d ne '0';
}
ok(@tables == 9 && !@differ,
	'every loaded table equals its source (EXCEPT ALL both ways): ' . join(' ', @tables))
  or diag('tables: ' . scalar(@tables) . '; differ: ' . join(', ', @differ));

# 3. the failed run
my $row = $node->safe_psql('shopdb',
	"SELECT status || '|' || return_message FROM cron.job_run_details WHERE jobid = $badjob");
note($row);
like($row, qr/^failed\|/, 'the failing job shows status failed')
  or diag($row);
like($row, qr/is not empty/, "the failed run's error is its return_message")
  or diag($row);
my @kept = dir_entries("$out/keep-me");
ok("@kept" eq 'notes.txt' && -z "$out/keep-me/notes.txt",
	'the failed run left the directory as it was')
  or diag("keep-me holds: @kept");

$node->stop;
done_testing();
