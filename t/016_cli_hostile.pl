# t/016_cli_hostile.pl: the exwiw client against a hostile server, hostile
# files and a careless environment.  Each case must fail cleanly
# ("exwiw: error: ...", non-zero exit, nothing left behind) or do no harm.
#
# The server: exwiw_export() of database cli_hostile is replaced by a SQL
# function that returns the rows of table hostile_rows, so that the server
# can send any file name: "../x", "a/b", ".", "..", "", hidden names,
# names with a newline or an escape sequence must be refused, names with
# "%" written as they are.  The files: the output directory and its files
# are never writable by others, whatever the umask (umask 000 here), and
# the temporary directory is private while it is filled.  The secrets:
# neither the password nor a service's sslpassword is on pg_dump's command
# line (a pg_dump wrapper next to a copy of exwiw records its argv), nor in
# a --log-level=debug log.  The children: pg_dump and the after-insert
# hook do not inherit an ignored SIGPIPE; the hook runs without a shell (a
# path with ";" runs that file).  The input: a schema file nested a million
# levels deep is an error, not a crash; -j and parallel_workers beyond
# 256 (or beyond int) are refused.
#
# It runs as the server's OS user, not root: a name such as "/etc/x" is
# refused by its message (expect_error), which does not depend on whether
# /etc would be writable.
use strict;
use warnings FATAL => 'all';

use Cwd;
use File::Copy;
use File::Find;
use File::Path qw(remove_tree);
use File::Basename qw(dirname);
use FindBin;
use lib $FindBin::RealBin;
use ExwiwCli;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $root = getcwd();
my $node = cli_node('hostile');
my $work = cli_work();

$node->safe_psql('postgres', 'CREATE DATABASE cli_hostile');
load_fixture('cli_hostile');
shop_env('cli_hostile');
run_ok([ 'exwiw', 'schema', 'generate', '--from-db', "--schema-dir=$work/s" ],
	'schema generate');
$node->safe_psql(
	'cli_hostile', q{
CREATE TABLE public.hostile_rows(ord int, file_name text, chunk text);
CREATE OR REPLACE FUNCTION public.exwiw_export(target_table text, ids text[],
	config jsonb DEFAULT NULL, format text DEFAULT 'insert', allow_undecided boolean DEFAULT false,
	files integer[] DEFAULT NULL, ids_by_space jsonb DEFAULT NULL,
	part integer DEFAULT NULL, parts integer DEFAULT NULL, allow_missing_ids boolean DEFAULT false,
	split_rows integer DEFAULT NULL,
	deletes boolean DEFAULT false)
RETURNS TABLE(file_name text, chunk text) LANGUAGE sql
AS $$ SELECT file_name, chunk FROM public.hostile_rows ORDER BY ord $$;
});

my $s = "--schema-dir=$work/s";
my @run = ('--target-table=shops', '--ids=1', '--allow-undecided');

# serve(FILE_NAME...): the server's rows, one per name (an SQL literal),
# each with the chunk "select 1;"
sub serve
{
	my $sql = 'TRUNCATE public.hostile_rows;';
	my $i = 0;
	for my $n (@_)
	{
		$i++;
		$sql .= "INSERT INTO public.hostile_rows VALUES ($i, $n, 'select 1;');";
	}
	$node->safe_psql('cli_hostile', $sql);
	return;
}

# write_file(FILE, TEXT, [MODE])

# on_path(NAME): the first NAME on PATH, as "command -v" finds it
sub on_path
{
	my ($name) = @_;
	for my $d (split /:/, $ENV{PATH})
	{
		return "$d/$name" if $d ne '' && -f "$d/$name" && -x "$d/$name";
	}
	die "$name is not on PATH";
}

# sigpipe_ignored(FILE): FILE holds a SigIgn mask (hex) from
# /proc/PID/status; is SIGPIPE (13: bit 0x1000) ignored?  undef when FILE
# is missing or empty.
sub sigpipe_ignored
{
	my ($file) = @_;
	return undef unless -s $file;
	my $mask = slurp($file);
	chomp $mask;
	# the low 32 bits (signals 1 to 32) hold bit 0x1000
	return (hex(substr($mask, -8)) & 0x1000) != 0;
}

# file names the server must not be trusted with
for my $name (
	q{'../x'}, q{'../../x'}, q{'a/b'}, q{'/etc/x'}, q{'.'}, q{'..'}, q{''},
	q{'.hidden'}, q{'.pg_dump.sql'}, q{E'x\nexwiw: error: forged'},
	q{E'\033[2Jx'}, q{E'tab\there'}, q{E'del\x7f'})
{
	serve(q{'insert-001-ok.sql'}, $name);
	expect_error($work, "file name $name", 'the server returned an unsafe file name',
		'exwiw', $s, '-o', "$work/out", @run);
	remove_tree("$work/out");    # should a run succeed
}
# ../x and a/b from $work/out (or its temporary directory) land in $work,
# ../../x in the directory above it
ok(!-e dirname($work) . '/x' && !-e "$work/x" && !-e "$work/a" && !-e '/etc/x',
	'no file written outside the directory');
serve(q{E'x\nexwiw: error: forged\n\033[31m'});
my ($rc, $out, $err) = run_cmd([ 'exwiw', $s, '-o', "$work/out", @run ]);
remove_tree("$work/out");
ok( ($err =~ tr/\n//) == 1
	  && index($err, "\033") < 0
	  && index($err, 'unsafe file name: "x\x0Aexwiw: error: forged\x0A\x1B[31m"') >= 0,
	'an unsafe name is shown escaped')
  or diag(join '', map { s/([^\n\x20-\x7e])/sprintf('\\x%02X', ord $1)/ger } $err);
serve(q{'insert-001-a.sql'}, q{'insert-002-b.sql'}, q{'insert-001-a.sql'});
expect_error(
	$work, 'a file name sent twice',
	'could not create file .*insert-001-a.sql.*: File exists',
	'exwiw', $s, '-o', "$work/out", @run);
remove_tree("$work/out");

# odd but safe names are written as they are
serve(q{'insert-001-100%.sql'}, q{'insert-002-%2e%2e%2Fx.sql'}, q{'insert-003-a b''c.sql'});
($rc, $out, $err) = run_cmd([ 'exwiw', $s, '-o', "$work/odd", @run ]);
my $names = $rc == 0 ? join('', map { "$_|" } dir_entries("$work/odd")) : '';
is($names, q{insert-001-100%.sql|insert-002-%2e%2e%2Fx.sql|insert-003-a b'c.sql|},
	'names with %, spaces and quotes are written as they are')
  or diag("exit $rc\n$err");
remove_tree("$work/odd");

# permissions with umask 000: nothing writable by others; the temporary
# directory private while it is filled (a pg_dump wrapper looks at it)
my $real_pgdump = on_path('pg_dump');
my $fake = "$work/fake";
mkdir $fake or die;
copy(on_path('exwiw'), "$fake/exwiw") or die "could not copy exwiw: $!";
chmod 0755, "$fake/exwiw" or die;
write_file(
	"$fake/pg_dump", <<"EOF", 0755);
#!/bin/bash
# a pg_dump that records what it was given, then runs the real one
case "\${1:-}" in -V | --version) exec "$real_pgdump" "\$@" ;; esac
tr '\\0' '\\n' </proc/\$\$/cmdline >"$work/pgdump.argv"
env >"$work/pgdump.env"
# the script's own mask (/proc/\$\$): gawk, unlike mawk, ignores SIGPIPE itself
sed -n 's/^SigIgn:[[:space:]]*//p' /proc/\$\$/status >"$work/pgdump.sigign"
# its output is its standard output, a hidden file in the temporary directory
stat -c %a "\$(dirname "\$(readlink /proc/\$\$/fd/1)")" >"$work/pgdump.tmpmode"
exec "$real_pgdump" "\$@"
EOF
serve(q{'insert-001-a.sql'}, q{'insert-002-b.sql'});
{
	my $umask = umask(0);
	($rc, $out, $err) =
	  run_cmd([ "$fake/exwiw", $s, '-o', "$work/um/new/out", @run, '--with-schema' ]);
	umask($umask);
}
if (ok($rc == 0, 'umask 000: the export') or diag("exit $rc\n$err"))
{
	my (@bad, @modes);
	find(
		{
			wanted => sub {
				my $mode = (lstat $_)[2] & 07777;
				push @modes, sprintf('%o', $mode);
				push @bad, sprintf('%o %s', $mode, $File::Find::name)
				  if $mode & 0002;
			},
			no_chdir => 1
		},
		"$work/um");
	ok( !@bad
		  && -f "$work/um/new/out/insert-000-schema.sql"
		  && -f "$work/um/new/out/insert-002-b.sql",
		"umask 000: nothing writable by others (@modes)")
	  or diag("writable by others: @bad");
	my $tmpmode = -e "$work/pgdump.tmpmode" ? slurp("$work/pgdump.tmpmode") : '(none)';
	is($tmpmode, "700\n", 'the temporary directory is private while it is filled');
}
remove_tree("$work/um");

# secrets: DATABASE_PASSWORD and a service's sslpassword never on pg_dump's
# command line, nor in the debug log; the password reaches pg_dump by its
# environment
write_file("$work/services", "[hostile]\nsslpassword=ssl-secret-42\n");
serve(q{'insert-001-a.sql'});
unlink "$work/pgdump.argv", "$work/pgdump.env";
{
	local $ENV{PGSERVICEFILE} = "$work/services";
	local $ENV{DATABASE_PASSWORD} = 'db-secret-42';
	local $ENV{PGPASSWORD} = 'pg-secret-42';
	($rc, $out, $err) = run_cmd(
		[
			"$fake/exwiw", '--dbname=service=hostile dbname=cli_hostile',
			$s, '-o', "$work/sec", @run, '--with-schema', '--log-level=debug'
		]);
}
ok($rc == 0 && -f "$work/sec/insert-000-schema.sql",
	'export with a service and a password, --with-schema')
  or diag("exit $rc\n$err");
my $argv = -e "$work/pgdump.argv" ? slurp("$work/pgdump.argv") : '';
my $env = -e "$work/pgdump.env" ? slurp("$work/pgdump.env") : '';
ok($argv ne '' && index($argv, 'secret-42') < 0, "no secret on pg_dump's command line")
  or diag("pg_dump's command line:\n$argv");
ok(index($argv, q{service='hostile'}) >= 0 && $env =~ /^PGPASSWORD=db-secret-42$/m,
	'pg_dump gets the service by name and DATABASE_PASSWORD in its environment')
  or diag("pg_dump's command line:\n$argv\npg_dump's PGPASSWORD: "
	  . join(' ', $env =~ /^(PGPASSWORD=.*)$/mg));
ok(index($err, 'secret-42') < 0,
	'no secret in the debug log (' . ($err =~ tr/\n//) . ' lines)')
  or diag($err);
expect_error(
	$work, 'a wrong service does not echo a secret',
	'definition of service "nope" not found',
	'env', 'DATABASE_PASSWORD=db-secret-42', 'exwiw',
	'--dbname=service=nope password=pw-secret-42',
	$s, '-o', "$work/out", @run);
($rc, $out, $err) = run_cmd(
	[ 'exwiw', '--dbname=service=nope password=pw-secret-42', $s, '-o', "$work/out", @run ]);
ok(index($out . $err, 'secret-42') < 0, 'no password in the error message') or diag($err);
remove_tree("$work/sec");

# the children: no ignored SIGPIPE (bit 13: 0x1000), the hook without a shell
my $ign = sigpipe_ignored("$work/pgdump.sigign");
ok(defined $ign && !$ign, 'pg_dump does not inherit an ignored SIGPIPE')
  or diag("pg_dump's ignored signals: "
	  . (-e "$work/pgdump.sigign" ? slurp("$work/pgdump.sigign") : '(none)'));
mkdir "$work/hook dir" or die;
my $hook = "$work/hook dir/h;touch pwned;\$(touch pwned2).sh";
write_file(
	$hook, <<"EOF", 0755);
#!/bin/bash
sed -n 's/^SigIgn:[[:space:]]*//p' /proc/\$\$/status >"$work/hook.sigign"
echo "\$EXWIW_OUTPUT_DIR" >"$work/hook.out"
EOF
serve(q{'insert-001-a.sql'});
chdir $work or die;
($rc, $out, $err) =
  run_cmd([ 'exwiw', $s, '-o', "$work/h", @run, "--after-insert-hook=$hook" ]);
chdir $root or die;
my $hook_out = -e "$work/hook.out" ? slurp("$work/hook.out") : '(none)';
ok($rc == 0 && $hook_out eq "$work/h\n" && !-e "$work/pwned" && !-e "$work/pwned2",
	'the hook runs without a shell')
  or diag("exit $rc\n$err\nhook.out: $hook_out\n" . join(' ', dir_entries($work)));
$ign = sigpipe_ignored("$work/hook.sigign");
ok(defined $ign && !$ign, 'the hook does not inherit an ignored SIGPIPE')
  or diag("the hook's ignored signals: "
	  . (-e "$work/hook.sigign" ? slurp("$work/hook.sigign") : '(none)'));
remove_tree("$work/h", "$work/hook dir", $fake);
unlink((map { "$work/$_" } grep { /^(?:hook|pgdump)\./ } dir_entries($work)),
	"$work/services");

# hostile input
mkdir "$work/deep" or die;
write_file("$work/deep/t.json", ('[' x 1000000) . (']' x 1000000) . "\n");
expect_error(
	$work,
	'a schema file nested a million levels',
	'deep/t.json is not valid JSON: line 1: arrays and objects nest deeper than 1000 levels',
	'exwiw', "--schema-dir=$work/deep", '-o', "$work/out", @run);
remove_tree("$work/deep");
expect_error(
	$work, '-j beyond int',
	'--parallel-workers must be at most 256 \(got 4294967297\)',
	'exwiw', $s, '-o', "$work/out", @run, '-j', '4294967297');
remove_tree("$work/out");
expect_error($work, '-j 257', '--parallel-workers must be at most 256',
	'exwiw', $s, '-o', "$work/out", @run, '-j', '257');
remove_tree("$work/out");
expect_error(
	$work, '-j beyond long',
	'invalid argument: --parallel-workers=99999999999999999999',
	'exwiw', $s, '-o', "$work/out", @run, '-j', '99999999999999999999');
mkdir "$work/y" or die;
write_file("$work/y/exwiw.yml", "parallel_workers: 4294967297\n");
expect_error(
	$work, 'parallel_workers beyond int',
	'--parallel-workers must be at most 256 \(got 4294967297\)',
	'exwiw', '-c', "$work/y/exwiw.yml", $s, '-o', "$work/out", @run);
remove_tree("$work/out");
write_file("$work/y/exwiw.yml", "parallel_workers: 99999999999999999999\n");
expect_error(
	$work, 'parallel_workers beyond long',
	q{config 'parallel_workers' must be an integer},
	'exwiw', '-c', "$work/y/exwiw.yml", $s, '-o', "$work/out", @run);
remove_tree("$work/y");

done_testing();
