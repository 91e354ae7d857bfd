# t/015_cli_errors.pl: bad input to the exwiw client.  Each case must exit
# non-zero with "exwiw: error: <a clear message>" on stderr (in the style
# of PostgreSQL's clients, never a bare libpq or server text), print
# nothing on stdout, and leave nothing behind: no output directory, no
# temporary .exwiw-* directory, no created parent.
#
# A missing target or ids, an unknown table, bad ids, a wrong password
# (and none, stdin not a terminal), an unreachable host, a missing
# database, a database without the extension, a schema file that is not
# JSON (and one the server refuses), a missing or empty schema dir, an
# output path that cannot be written (under /proc, under a file, a file),
# --force on the current directory, a parent of it, the root or the schema
# config's directory,
# undecided masks without --allow-undecided, bad YAML and refused YAML
# keys, unknown options, a missing option argument, a bad format, the
# named ID spaces in single-target mode, --ids alone without any
# scope_column, --scope-column with a target or without ids; the flags
# that are not supported (yet):
# --split-rows=0, other adapters, mongodb flags; explain with export-only
# flags; schema without a verb or without --from-db; exit status 2 when
# schema check cannot run.
#
# The role cli_pw needs a password (scram-sha-256) on the local socket: the
# rule goes first in pg_hba.conf and the cluster restarts, so that every
# later connection sees it (no wait for a reload).
use strict;
use warnings FATAL => 'all';

use Cwd;
use File::Path qw(make_path remove_tree);
use FindBin;
use lib $FindBin::RealBin;
use ExwiwCli;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes;

my $root = getcwd();
my $node = cli_node('errors');
my $work = cli_work();
# the schema configs, outside $work (which every expect_error watches)
my $schema = cli_work();

$node->safe_psql(
	'postgres', q{
CREATE DATABASE cli_err;
CREATE DATABASE cli_noext;
CREATE ROLE cli_pw LOGIN SUPERUSER PASSWORD 'right-password';
});
load_fixture('cli_err');
shop_env('cli_err');
run_ok([ 'exwiw', 'schema', 'generate', '--from-db', "--schema-dir=$schema/s" ],
	'schema generate');

# password authentication for the role cli_pw, on the local socket
my $hba = $node->data_dir . '/pg_hba.conf';
my $rules = slurp($hba);
open(my $hfh, '>', $hba) or die "could not open $hba: $!";
print $hfh "local all cli_pw scram-sha-256\n", $rules;
close $hfh;
$node->restart;
my ($rc, $out, $err) = run_cmd(
	[ 'env', '-u', 'PGPASSWORD', 'psql', '-X', '-w', '-q', '-At', '-U', 'cli_pw', '-c', 'SELECT 1' ]);
ok($rc != 0 && $err =~ /password/, 'cli_pw needs a password')
  or diag("exit $rc\n$out$err");

# copy_json(FROM, TO): FROM's *.json files into the new directory TO
sub copy_json
{
	my ($from, $to) = @_;
	mkdir $to or die "could not create $to: $!";
	for my $f (grep { /\.json\z/ && -f "$from/$_" } dir_entries($from))
	{
		PostgreSQL::Test::Utils::append_to_file("$to/$f", slurp("$from/$f"));
	}
	return;
}

# write_file(FILE, TEXT): FILE holds TEXT, byte for byte

my $s = "--schema-dir=$schema/s";
my @o = ('-o', "$work/out");

# the target
expect_error($work, 'no target', '--target-table is required',
	'exwiw', $s, @o, '--ids=');
expect_error(
	$work, 'ids without a target, no scope_column declared',
	'scope-column mode: no table declares a scope_column',
	'exwiw', $s, @o, '--ids=1');
expect_error(
	$work, 'target without ids',
	'--ids is required when --target-table is specified',
	'exwiw', $s, @o, '--target-table=shops');
expect_error($work, 'unknown table', 'nope',
	'exwiw', $s, @o, '--target-table=nope', '--ids=1', '--allow-undecided');
expect_error(
	$work, 'ids of the wrong type',
	'id "abc" is not a value of column "id" of "shops"',
	'exwiw', $s, @o, '--target-table=shops', '--ids=abc', '--allow-undecided');
# the catalog proposes a mask for each sensitive column; without it, the
# column is undecided and the export refused.  users.json loses, as with
# sed '/"replace_with"/d; /"replace_with_fake_data"/,/}/d', every line that
# names replace_with and every replace_with_fake_data block (from its line
# to the next line with a "}").
copy_json("$schema/s", "$schema/undecided");
{
	my $f = "$schema/undecided/users.json";
	my ($kept, $in_block) = ('', 0);
	for my $line (split /(?<=\n)/, slurp($f))
	{
		next if $line =~ /"replace_with"/;
		if ($in_block)
		{
			$in_block = 0 if $line =~ /}/;
			next;
		}
		if ($line =~ /"replace_with_fake_data"/)
		{
			$in_block = 1;
			next;
		}
		$kept .= $line;
	}
	write_file($f, $kept);
}
my $u = "--schema-dir=$schema/undecided";
expect_error(
	$work, 'undecided masks',
	'3 columns of the config need a mask decision',
	'exwiw', $u, @o, '--target-table=shops', '--ids=1');
($rc, $out, $err) = run_cmd([ 'exwiw', $u, @o, '--target-table=shops', '--ids=1' ]);
ok(index($out . $err, 'exwiw: hint: With the exwiw client, --allow-undecided') >= 0,
	'undecided masks: the hint names --allow-undecided')
  or diag($err);
# the Ruby client's scenario: a table that no belongs_to ties to the target
# (its system_announcements), which the Ruby client exported in full.  The
# refusal names the table and the one-line fix: the key to add to its file,
# or --allow-undecided.
mkdir "$schema/gem" or die "could not create $schema/gem: $!";
write_file("$schema/gem/shops.json",
	'{"name": "shops", "primary_key": "id", "columns": [{"name": "id"}, {"name": "name"}]}');
write_file("$schema/gem/announcements.json",
	'{"name": "announcements", "primary_key": "id", "columns": [{"name": "id"}, {"name": "body"}]}'
);
$err = expect_error(
	$work, 'the Ruby client\'s scenario: a table no rule ties',
	'1 table of the config needs a scope decision',
	'exwiw', "--schema-dir=$schema/gem", @o, '--target-table=shops', '--ids=1');
like(
	$err,
	qr/^exwiw: hint: To export table "announcements" as the Ruby client did: add "export": "all" to \Q$schema\E\/gem\/announcements\.json, or pass --allow-undecided\.$/m,
	'the Ruby client\'s scenario: the hint names the table, the key, its file and --allow-undecided'
) or diag($err);
like($err, qr/^exwiw: detail: Undecided: announcements\./m,
	'the Ruby client\'s scenario: the detail names the one table')
  or diag($err);
($rc, $out, $err) = run_cmd(
	[ 'exwiw', 'explain', "--schema-dir=$schema/gem", '--target-table=shops', '--ids=1' ]);
ok( $rc == 1
	  && $err =~ /^exwiw: hint: To export table "announcements" as the Ruby client did: add "export": "all" to \Q$schema\E\/gem\/announcements\.json, or pass --allow-undecided\.$/m,
	'the Ruby client\'s scenario: explain fails as the export would, with the same one-line fix'
) or diag("exit $rc\n$err");
run_ok([ 'exwiw', "--schema-dir=$schema/gem", '-o', "$schema/gem-out", '--target-table=shops', '--ids=1',
		'--allow-undecided' ],
	'the Ruby client\'s scenario exports with --allow-undecided');
expect_error(
	$work,
	'named ID space in single-target mode',
	'ids were given for named id spaces, but target table "shops" declares no scope_column',
	'exwiw', $s, @o, '--target-table=shops', '--ids=org=1');

# the connection
expect_error(
	$work, 'wrong password',
	'password authentication failed for user "cli_pw"',
	'env', 'DATABASE_PASSWORD=wrong', 'exwiw', '-u', 'cli_pw', $s, @o,
	'--target-table=shops', '--ids=1', '--allow-undecided');
expect_error(
	$work, 'no password (stdin is not a terminal)',
	'no password supplied',
	'env', '-u', 'PGPASSWORD', 'exwiw', '-u', 'cli_pw', $s, @o,
	'--target-table=shops', '--ids=1', '--allow-undecided');
($rc, $out, $err) = run_cmd(
	[
		'env', 'DATABASE_PASSWORD=right-password', 'exwiw', '-u', 'cli_pw', $s,
		'-o', "$work/pw", '--target-table=shops', '--ids=1', '--allow-undecided'
	]);
ok($rc == 0 && -f "$work/pw/insert-003-shops.sql", 'DATABASE_PASSWORD is the password')
  or diag("exit $rc\n$err");
remove_tree("$work/pw");
expect_error(
	$work, 'unreachable host (refused)',
	'connection to server at "127.0.0.1", port 1 failed',
	'exwiw', '-h', '127.0.0.1', '-p', '1', $s, @o, '--target-table=shops', '--ids=1');
expect_error(
	$work, 'unreachable host (no socket)',
	'connection to server on socket "/nonexistent',
	'exwiw', '-h', '/nonexistent', $s, @o, '--target-table=shops', '--ids=1');
expect_error($work, 'unknown host name', 'could not translate host name',
	'exwiw', '-h', 'no-such-host.invalid', $s, @o, '--target-table=shops', '--ids=1');
expect_error($work, 'missing database', 'database "no_such_db" does not exist',
	'exwiw', '--dbname=no_such_db', $s, @o, '--target-table=shops', '--ids=1');
expect_error(
	$work, 'no extension',
	'the exwiw extension is not installed in database "cli_noext"',
	'exwiw', '--database=cli_noext', $s, @o, '--target-table=shops', '--ids=1');

# the schema config
copy_json("$schema/s", "$schema/bad");
mkdir "$schema/empty" or die;
write_file("$schema/bad/users.json",
	qq({\n  "name": "users",\n  "columns": [\n    {"name": "id"},,\n  ]\n}\n));
expect_error(
	$work, 'a schema file that is not JSON',
	'schema file .*/bad/users.json is not valid JSON: line 4',
	'exwiw', "--schema-dir=$schema/bad", @o, '--target-table=shops', '--ids=1');
write_file("$schema/notjson.json", 'not json at all');
expect_error(
	$work,
	'a one-file schema config that is not JSON',
	'notjson.json is not valid JSON: line 1: Token "not" is invalid',
	'exwiw', "--schema-dir=$schema/notjson.json", @o, '--target-table=shops', '--ids=1');
copy_json("$schema/s", "$schema/badkey");
{
	# as sed 's/"name": "shops",/"name": "shops", "colour": "blue",/': the
	# first on each line
	my $f = "$schema/badkey/shops.json";
	my $t = join '',
	  map { s/"name": "shops",/"name": "shops", "colour": "blue",/r }
	  split /(?<=\n)/, slurp($f);
	ok($t =~ /"colour": "blue"/, 'shops.json has the key "colour"');
	write_file($f, $t);
}
expect_error($work, 'a key the server refuses', 'unknown key "colour"',
	'exwiw', "--schema-dir=$schema/badkey", @o, '--target-table=shops', '--ids=1',
	'--allow-undecided');
expect_error($work, 'missing schema dir', 'schema dir does not exist',
	'exwiw', "--schema-dir=$schema/none", @o, '--target-table=shops', '--ids=1');
expect_error($work, 'empty schema dir', 'schema dir contains no .json files',
	'exwiw', "--schema-dir=$schema/empty", @o, '--target-table=shops', '--ids=1');
expect_error($work, 'no schema dir', 'schema dir is required',
	'exwiw', @o, '--target-table=shops', '--ids=1');

# the output path
expect_error($work, 'output path under /proc', 'could not create',
	'exwiw', $s, '-o', '/proc/exwiw-test/out', '--target-table=shops', '--ids=1',
	'--allow-undecided');
write_file("$work/afile", '');
expect_error($work, 'output path under a file', 'Not a directory',
	'exwiw', $s, '-o', "$work/afile/out", '--target-table=shops', '--ids=1',
	'--allow-undecided');
expect_error($work, 'output path is a file', 'exists and is not a directory',
	'exwiw', $s, '-o', "$work/afile", '--target-table=shops', '--ids=1',
	'--allow-undecided');
unlink "$work/afile" or die;
expect_error(
	$work, 'a failure after the directory was started leaves no parents',
	'nope',
	'exwiw', $s, '-o', "$work/new/parents/out", '--target-table=nope', '--ids=1',
	'--allow-undecided');
# --force never replaces what the run stands on: the current directory (or
# a parent of it), the root, the directory that holds the schema config
make_path("$work/cwd/sub");
write_file("$work/cwd/sub/precious", "keep\n");
chdir "$work/cwd/sub" or die;
expect_error(
	$work,
	'--force on the current directory',
	'is the current directory or one of its parents: it will not be replaced',
	'exwiw', $s, '-o', '.', '--force', '--target-table=shops', '--ids=1',
	'--allow-undecided');
expect_error(
	$work, '--force on a parent of the current directory',
	'is the current directory or one of its parents',
	'exwiw', $s, '-o', '..', '--force', '--target-table=shops', '--ids=1',
	'--allow-undecided');
chdir $root or die;
expect_error($work, '--force on the root', 'is the root directory',
	'exwiw', $s, '-o', '/', '--force', '--target-table=shops', '--ids=1',
	'--allow-undecided');
expect_error(
	$work, "--force on the schema config's directory",
	'is the directory that holds the schema config',
	'exwiw', $s, '-o', $schema, '--force', '--target-table=shops', '--ids=1',
	'--allow-undecided');
ok(slurp("$work/cwd/sub/precious") eq "keep\n" && -f "$schema/s/users.json",
	'--force refusals removed nothing');
remove_tree("$work/cwd");

# the run config
mkdir "$work/y" or die;
chdir "$work/y" or die;
write_file('exwiw.yml', "target_table: [shops\n");
expect_error($work, 'YAML that does not parse', 'is not valid YAML',
	'exwiw', $s, @o, '--ids=1');
write_file('exwiw.yml', "host: db.example.com\n");
expect_error(
	$work, 'a connection key in the YAML',
	q{'host' is a database connection setting},
	'exwiw', $s, @o, '--ids=1');
write_file('exwiw.yml', "colour: blue\n");
expect_error($work, 'an unknown YAML key', q{unknown config key 'colour'},
	'exwiw', $s, @o, '--ids=1');
write_file('exwiw.yml', "- a\n- b\n");
expect_error($work, 'YAML that is not a mapping', 'must be a YAML mapping',
	'exwiw', $s, @o, '--ids=1');
write_file('exwiw.yml', "parallel_workers: many\n");
expect_error(
	$work, 'a YAML value of the wrong kind',
	q{config 'parallel_workers' must be an integer},
	'exwiw', $s, @o, '--ids=1');

# Bounded YAML: 100,000 levels of nesting (flow and block) and a
# thousand aliases are refused at once (libyaml's loader took time
# quadratic in the depth: more than 20 s).  The bounds (timeout 120, 60 s)
# only catch a hang: the refusal takes milliseconds.
sub yaml_bounded
{
	my ($label, $pattern) = @_;
	my $t0 = Time::HiRes::time();
	expect_error($work, $label, $pattern, 'timeout', '120', 'exwiw', $s, @o, '--ids=1');
	my $took = Time::HiRes::time() - $t0;
	ok($took < 60, "$label: refused within the bound") or diag(sprintf('took %.1f s', $took));
	return;
}
write_file('exwiw.yml', 'target_table: ' . ('[' x 100000) . (']' x 100000) . "\n");
yaml_bounded('YAML nested 100,000 levels deep (flow)', 'nests deeper than 64 levels, at line 1$');
write_file('exwiw.yml', "ids:\n" . ('- ' x 100000) . "x\n");
yaml_bounded('YAML nested 100,000 levels deep (block)', 'nests deeper than 64 levels, at line 2$');
write_file('exwiw.yml',
	"a: &a [1, 2, 3]\nids: {" . join(', ', map { "s$_: *a" } 1 .. 1000) . "}\n");
yaml_bounded('YAML with a thousand aliases', 'has more than 64 aliases, at line 2$');
write_file('exwiw.yml', "ids: {x: &a [1, 2], y: *a}\ntarget_table: nosuch\n");
expect_error($work, 'a YAML alias within the limit is read', 'nosuch', 'exwiw', $s, @o);
unlink 'exwiw.yml' or die;
chdir $root or die;
expect_error($work, 'a missing -c file', 'config file not found',
	'exwiw', '-c', "$work/none.yml", $s, @o, '--ids=1');

# the options
expect_error($work, 'unknown option', 'unrecognized or ambiguous option "--bogus"',
	'exwiw', '--bogus');
expect_error($work, 'ambiguous option', 'unrecognized or ambiguous option "--ta=x"',
	'exwiw', '--ta=x');
expect_error($work, 'missing argument', 'option "--target-table" requires an argument',
	'exwiw', $s, '--target-table');
expect_error(
	$work, 'extra argument',
	'too many command-line arguments \(first is "extra"\)',
	'exwiw', $s, '--target-table=shops', '--ids=1', 'extra');
expect_error($work, 'bad format', q{invalid output format 'xml'},
	'exwiw', $s, @o, '--target-table=shops', '--ids=1', '--output-format=xml');
expect_error(
	$work, 'zero workers',
	'--parallel-workers must be a positive integer \(got 0\)',
	'exwiw', $s, @o, '--target-table=shops', '--ids=1', '-j', '0');
expect_error(
	$work, '--split-rows=0',
	'--split-rows must be a positive integer \(got 0\)',
	'exwiw', $s, @o, '--target-table=shops', '--ids=1', '--split-rows=0');
expect_error(
	$work, '--scope-column with a target',
	'--scope-column cannot be combined with --target-table',
	'exwiw', $s, @o, '--scope-column=shop_id', '--target-table=shops', '--ids=1');
expect_error(
	$work, '--scope-column without ids',
	'--ids is required when --scope-column is specified',
	'exwiw', $s, @o, '--scope-column=shop_id');
expect_error($work, 'another adapter', 'adapter "mysql" is not supported',
	'exwiw', $s, @o, '--target-table=shops', '--ids=1', '--adapter=mysql');
expect_error($work, '--uri', '--uri is only supported by the mongodb adapter',
	'exwiw', $s, @o, '--uri=mongodb://x', '--target-table=shops', '--ids=1');
expect_error(
	$work, '--target-collection',
	'--target-collection is only supported by the mongodb adapter',
	'exwiw', $s, @o, '--target-collection=shops', '--ids=1');
expect_error($work, 'bad log level', 'invalid log level: loud',
	'exwiw', $s, @o, '--target-table=shops', '--ids=1', '--log-level=loud');
expect_error(
	$work, 'explain with --output-dir',
	q{not applicable in 'explain' subcommand: --output-dir},
	'exwiw', 'explain', $s, '-o', "$work/out", '--target-table=shops', '--ids=1');
expect_error($work, 'schema without a verb', 'usage: exwiw schema generate\|check\|tidy',
	'exwiw', 'schema', '--from-db', $s);
expect_error($work, 'schema with a bad verb', 'got "frob"',
	'exwiw', 'schema', 'frob', '--from-db', $s);
expect_error($work, 'schema without --from-db', 'requires --from-db',
	'exwiw', 'schema', 'check', $s);
expect_error(
	$work, '--fail-on outside check',
	'--fail-on only applies to `exwiw schema check`',
	'exwiw', 'schema', 'generate', '--from-db', $s, '--fail-on=stale');

# schema check that cannot run: exit status 2
($rc, $out, $err) =
  run_cmd([ 'exwiw', 'schema', 'check', '--from-db', $s, '-h', '127.0.0.1', '-p', '1' ]);
ok($rc == 2 && $err =~ /^exwiw: error: connection to server/m,
	'schema check that cannot connect exits 2')
  or diag("exit $rc\n$err");

done_testing();
