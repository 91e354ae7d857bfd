# t/ExwiwCli.pm: what the TAP tests of the exwiw client (t/0NN_cli_*.pl)
# share, on PostgreSQL::Test::Cluster.
#
# A test starts one cluster with cli_node(), which also points libpq's
# environment (PGHOST, PGPORT, PGDATABASE) at it, so that exwiw, psql and
# pg_dump run by the test reach it as a user's shell would; it runs the
# client with run_cmd() (status, stdout, stderr: nothing goes through a
# shell) and checks an error with expect_error().  The round trips of the
# subset tests (make_databases, fresh_dst, load_files) are here too: a load
# runs as a role that is not a superuser, with every constraint enforced.
#
# Every test runs from the source directory (prove_installcheck's cd), so
# relative paths such as test/subset/fixture.sql name the repository's
# files; the servers and exwiw are those on PATH (the private install's
# bindir first).
package ExwiwCli;

use strict;
use warnings FATAL => 'all';

use Exporter 'import';
use File::Find;
use File::Path qw(make_path);
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

our @EXPORT = qw(
  cli_node cli_work run_cmd run_ok expect_error dir_entries same_dirs
  config_array recipe write_files load_files make_databases fresh_dst
  loader_owns loader_may_skip_keys psql_stdin slurp write_file
  load_fixture shop_env write_pairs
);

# cli_node(NAME, [SETTING...]): a new cluster (fsync off, and each
# SETTING line in postgresql.conf), started, with libpq's environment
# pointed at it (database postgres) and nothing else of the caller's that
# the client reads: its own variables, a password, a password file, a
# service.  The client's run config in the current directory (exwiw.yml)
# would be read by every run: it must not be there.
sub cli_node
{
	my ($name, @settings) = @_;
	die "exwiw.yml or exwiw.yaml in the test's directory would be read by every run"
	  if -e 'exwiw.yml' || -e 'exwiw.yaml';
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf('postgresql.conf', join("\n", "fsync = off", @settings) . "\n");
	$node->start;
	$ENV{PGHOST} = $node->host;
	$ENV{PGPORT} = $node->port;
	$ENV{PGDATABASE} = 'postgres';
	delete $ENV{$_}
	  for qw(PGOPTIONS PGPASSWORD PGSERVICE PGSERVICEFILE DATABASE_PASSWORD),
	  grep { /^EXWIW_/ } keys %ENV;
	# a password file that does not exist: libpq then reads none
	$ENV{PGPASSFILE} = "$PostgreSQL::Test::Utils::tmp_check/no-pgpass";
	return $node;
}

# cli_work(): a new scratch directory (removed at exit), mode 755.
sub cli_work
{
	my $work = PostgreSQL::Test::Utils::tempdir('cli');
	chmod 0755, $work;
	return $work;
}

# run_cmd(CMD, [stdin => TEXT]): run CMD (an array reference) with
# stdin from TEXT (or nothing); returns (exit status, stdout, stderr).
# A command killed by a signal has status 128 + the signal.  A command
# that runs longer than five times the harness's timeout is killed and
# the test dies (a hang guard: nothing here takes a fraction of that).
sub run_cmd
{
	my ($cmd, %opt) = @_;
	my ($out, $err) = ('', '');
	my $in = defined $opt{stdin} ? $opt{stdin} : '';
	IPC::Run::run($cmd, '<', \$in, '>', \$out, '2>', \$err,
		IPC::Run::timeout(5 * $PostgreSQL::Test::Utils::timeout_default));
	my $rc = $? & 127 ? 128 + ($? & 127) : $? >> 8;
	return ($rc, $out, $err);
}

# run_ok(CMD, LABEL, [stdin => TEXT]): CMD must exit 0; returns its stdout.
# On a failure the test says the status and stderr.
sub run_ok
{
	my ($cmd, $label, %opt) = @_;
	my ($rc, $out, $err) = run_cmd($cmd, %opt);
	ok($rc == 0, $label) or diag("exit $rc: @$cmd\n$err");
	return $out;
}

# dir_entries(DIR): DIR's entries (dot files too) but manifest.json, sorted bytewise.
sub dir_entries
{
	my ($dir) = @_;
	opendir(my $dh, $dir) or die "could not open $dir: $!";
	# manifest.json describes the others (t/014 reads it by name)
	my @e = sort grep { $_ ne '.' && $_ ne '..' && $_ ne 'manifest.json' } readdir($dh);
	closedir($dh);
	return @e;
}

# expect_error(WORK, LABEL, PATTERN, CMD...): CMD must exit non-zero, say
# "exwiw: error: ..." matching PATTERN (a Perl regex) on stderr, print
# nothing on stdout, and leave WORK as it was (no new entry, no temporary
# .exwiw-* directory).  Returns stderr.
sub expect_error
{
	my ($work, $label, $pattern, @cmd) = @_;
	my $before = join("\n", dir_entries($work));
	my ($rc, $out, $err) = run_cmd(\@cmd);
	my $after = join("\n", dir_entries($work));
	if ($rc == 0)
	{
		fail("$label: exit status 0");
	}
	elsif ($err !~ /^exwiw: error: .*(?:$pattern)/m)
	{
		fail("$label: stderr does not match /$pattern/");
		diag($err);
	}
	elsif ($out ne '')
	{
		fail("$label: printed on stdout");
		diag($out);
	}
	elsif ($before ne $after)
	{
		fail("$label: left something behind");
		diag("before:\n$before\nafter:\n$after");
	}
	else
	{
		my ($line) = $err =~ /^(exwiw: error:.*)$/m;
		pass("$label (exit $rc): " . substr($line, 0, 110));
	}
	return $err;
}

# files_of(DIR): every file under DIR, relative to it, sorted; a
# directory (an empty one too) as its name and "/".
sub files_of
{
	my ($dir) = @_;
	my @f;
	find(
		{
			wanted => sub {
				# manifest.json: when and from which snapshot, so never
				# the same twice; its files are what the others compare
				push @f, $File::Find::name
				  if (-f $_ || -l $_) && $File::Find::name ne "$dir/manifest.json";
				push @f, "$File::Find::name/"
				  if -d $_ && !-l $_ && $File::Find::name ne $dir;
			},
			no_chdir => 1
		},
		$dir);
	return sort map { substr($_, length($dir) + 1) } @f;
}

# same_dirs(A, B): the two directories hold the same files, byte for byte,
# and the same directories (diff -r).
sub same_dirs
{
	my ($a, $b) = @_;
	my @fa = files_of($a);
	my @fb = files_of($b);
	return 0 unless join("\0", @fa) eq join("\0", @fb);
	for my $f (@fa)
	{
		next if $f =~ m{/\z};
		return 0 unless slurp("$a/$f") eq slurp("$b/$f");
	}
	return 1;
}

# write_file(FILE, TEXT, [MODE]): FILE holds the bytes TEXT (and has mode
# MODE, when given).
sub write_file
{
	my ($file, $text, $mode) = @_;
	open(my $fh, '>:raw', $file) or die "could not open $file: $!";
	print $fh $text;
	close $fh;
	chmod $mode, $file or die "could not chmod $file: $!" if defined $mode;
	return;
}

# slurp(FILE): the bytes of FILE.
sub slurp
{
	my ($file) = @_;
	open(my $fh, '<:raw', $file) or die "could not open $file: $!";
	local $/;
	my $s = <$fh>;
	close $fh;
	return defined $s ? $s : '';
}

# config_array(DIR): the schema dir's *.json files joined into one JSON
# array, in file-name order: the config exwiw sends.
sub config_array
{
	my ($dir) = @_;
	my @f = grep { /\.json\z/ && -f "$dir/$_" } dir_entries($dir);
	return '[' . join(',', map { slurp("$dir/$_") } @f) . ']';
}

# recipe(DIR, SQL, PSQL-ARGS...): the README's SQL recipe: psql -XAtq -0
# with NUL separators, SQL on stdin (so that :'cfg' works), each
# (file_name, chunk) row appended to DIR/file_name with a "\n".  Returns
# psql's exit status; dies if psql's output is not pairs.
sub recipe
{
	my ($dir, $sql, @args) = @_;
	my ($rc, $out, $err) = run_cmd(
		[
			'psql', '-X', '-A', '-t', '-q', '-0', '--field-separator-zero',
			'-v', 'ON_ERROR_STOP=1', @args
		],
		stdin => $sql);
	make_path($dir);
	if ($rc != 0)
	{
		diag("psql: exit $rc\n$err");
		return $rc;
	}
	write_pairs($dir, $out);
	return 0;
}

# write_pairs(DIR, OUT): the (file_name, chunk) rows of psql -A -t -0
# --field-separator-zero's output OUT, each chunk appended to
# DIR/file_name with a "\n"; dies if OUT is not pairs.
sub write_pairs
{
	my ($dir, $out) = @_;
	# name\0chunk\0name\0chunk\0...: a chunk is text, so it holds no NUL
	my @v = split /\0/, $out, -1;
	pop @v if @v && $v[-1] eq '';
	die "psql printed an odd number of fields" if @v % 2;
	while (my ($name, $chunk) = splice(@v, 0, 2))
	{
		open(my $fh, '>>:raw', "$dir/$name") or die "could not open $dir/$name: $!";
		print $fh $chunk, "\n";
		close $fh;
	}
	return;
}

# write_files(DIR, PSQL-ARGS...): the same with the query in PSQL-ARGS
# (-c "SELECT file_name, chunk FROM exwiw_export(...)").
sub write_files
{
	my ($dir, @args) = @_;
	return recipe($dir, '', @args);
}

# psql_stdin(SQL, PSQL-ARGS...): psql -X -q -v ON_ERROR_STOP=1 with SQL on
# stdin (psql variables work); returns (status, stdout, stderr).
sub psql_stdin
{
	my ($sql, @args) = @_;
	return run_cmd([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', @args ],
		stdin => $sql);
}

# load_files(DIR, PSQL-ARGS...): run the files of DIR in name order
# (bytewise) with ON_ERROR_STOP; returns '' or the failure (file, stderr).
sub load_files
{
	my ($dir, @args) = @_;
	for my $f (grep { -f "$dir/$_" && $_ ne 'manifest.json' } dir_entries($dir))
	{
		my ($rc, $out, $err) =
		  run_cmd([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', @args, '-f', "$dir/$f" ]);
		return "load failed at $f: $err" if $rc != 0;
	}
	return '';
}

# load_fixture(DB, [FIXTURE]): the extension and FIXTURE (default
# test/subset/fixture.sql, the shops of the subset tests) in the existing
# database DB, as a test step.
sub load_fixture
{
	my ($db, $fixture) = @_;
	$fixture //= 'test/subset/fixture.sql';
	run_ok(
		[
			'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $db,
			'-c', 'CREATE EXTENSION exwiw', '-f', $fixture
		],
		"the fixture $fixture in $db");
	return;
}

# shop_env(DB): libpq's environment for the fixture's database DB, as the
# client tests run exwiw: PGDATABASE, and PGOPTIONS with the fixture's
# schema first on search_path and no NOTICE.
sub shop_env
{
	my ($db) = @_;
	$ENV{PGDATABASE} = $db;
	$ENV{PGOPTIONS} = '-c search_path=shop,public -c client_min_messages=warning';
	return;
}

# make_databases(NODE, [NAME, [FIXTURE]]): fresh databases NAME_src (exwiw
# and FIXTURE loaded) and NAME_dst, and the non-superuser role
# NAME_loader; NAME defaults to subset, FIXTURE to test/subset/fixture.sql.
sub make_databases
{
	my ($node, $name, $fixture) = @_;
	$name //= 'subset';
	$fixture //= 'test/subset/fixture.sql';
	$node->safe_psql(
		'postgres', qq{
SET client_min_messages = warning;
DROP DATABASE IF EXISTS ${name}_src;
DROP DATABASE IF EXISTS ${name}_dst;
DROP ROLE IF EXISTS ${name}_loader;
CREATE ROLE ${name}_loader LOGIN;
CREATE DATABASE ${name}_src;
CREATE DATABASE ${name}_dst;
});
	my ($rc, $out, $err) = run_cmd(
		[
			'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', "${name}_src",
			'-c', 'CREATE EXTENSION exwiw', '-f', $fixture
		]);
	die "loading $fixture failed: $err" if $rc != 0;
	return;
}

# fresh_dst(NODE, SCHEMA_FILE, [NAME, [SCHEMA, [OWNS]]]): replace schema
# SCHEMA (default shop) of NAME_dst (default subset) by an empty, fully
# constrained copy (SCHEMA_FILE, from pg_dump --schema-only) that
# NAME_loader may load, and owns (unless OWNS is 0: then it has only
# SELECT, INSERT and sequence privileges).
sub fresh_dst
{
	my ($node, $file, $name, $schema, $owns) = @_;
	$name //= 'subset';
	$schema //= 'shop';
	$owns //= 1;
	$node->safe_psql("${name}_dst",
		"SET client_min_messages = warning; DROP SCHEMA IF EXISTS $schema CASCADE");
	my ($rc, $out, $err) =
	  run_cmd([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', "${name}_dst", '-f', $file ]);
	die "loading $file failed: $err" if $rc != 0;
	$node->safe_psql(
		"${name}_dst", qq{
GRANT USAGE ON SCHEMA $schema TO ${name}_loader;
GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA $schema TO ${name}_loader;
GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA $schema TO ${name}_loader;
});
	loader_owns($node, $name, $schema) if $owns;
	return;
}

# loader_owns(NODE, NAME, SCHEMA, [DB]): NAME_loader owns every table of
# SCHEMA in DB (default NAME_dst), as a developer owns the development
# database's tables: each file may then disable its table's user triggers
# during the load.
sub loader_owns
{
	my ($node, $name, $schema, $db) = @_;
	$node->safe_psql(
		$db // "${name}_dst", qq{
DO \$\$ DECLARE r record; BEGIN
	FOR r IN SELECT c.oid::regclass AS t FROM pg_catalog.pg_class c
		WHERE c.relnamespace = '$schema'::regnamespace AND c.relkind IN ('r', 'p')
	LOOP
		EXECUTE format('ALTER TABLE %s OWNER TO %I', r.t, '${name}_loader');
	END LOOP;
END \$\$;
});
	return;
}

# loader_may_skip_keys(NODE, [NAME]): can NAME_loader set
# session_replication_role to replica in NAME_dst, so that a load by it
# would skip the foreign-key checks?  (It must not: the loads check them.)
sub loader_may_skip_keys
{
	my ($node, $name) = @_;
	$name //= 'subset';
	my ($rc) = run_cmd(
		[
			'psql', '-XAtq', '-U', "${name}_loader", '-d', "${name}_dst", '-c',
			"SELECT pg_catalog.set_config('session_replication_role', 'replica', false)"
		]);
	return $rc == 0;
}

1;
