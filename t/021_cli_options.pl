# t/021_cli_options.pl: the exwiw command as PostgreSQL's users expect it.
#
# Options before or after the subcommand (and schema's verb) give the same
# result; "exwiw SUBCOMMAND --help" lists that subcommand's options only
# (and --help wins over any other error on the line); "did you mean" for a
# mistyped flag, subcommand or schema verb, and the flags an ambiguous
# abbreviation could be; -W asks for a password before connecting, -w
# never asks (on a terminal: a pseudo-terminal of IO::Pty, through
# IPC::Run; the role cli_opt_pw needs scram-sha-256 by pg_hba.conf);
# --version is the extension's version, SELECT extversion.
use strict;
use warnings FATAL => 'all';

use File::Path qw(rmtree);
use FindBin;
use lib $FindBin::RealBin;
use ExwiwCli;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = cli_node('options');
my $work = cli_work();

$node->safe_psql(
	'postgres', q{
CREATE DATABASE cli_options;
CREATE ROLE cli_opt_pw LOGIN SUPERUSER PASSWORD 'opt-password';
});
load_fixture('cli_options');
shop_env('cli_options');
chdir $work or die;

# options before, between, after the subcommand and its verb
run_ok([ 'exwiw', 'schema', 'generate', '--from-db', "--schema-dir=$work/s1" ],
	'schema generate --from-db --schema-dir=...');
run_ok([ 'exwiw', "--schema-dir=$work/s2", 'schema', '--from-db', 'generate' ],
	'--schema-dir=... schema --from-db generate');
run_ok([ 'exwiw', '--from-db', '--schema-dir', "$work/s3", 'schema', 'generate' ],
	'--from-db --schema-dir ... schema generate');
ok( same_dirs("$work/s1", "$work/s2") && same_dirs("$work/s1", "$work/s3"),
	'schema generate: options before, between or after the subcommand and its verb'
);
my $p1 = run_ok(
	[
		'exwiw', 'explain', '--target-table=shops', '--ids=1',
		"--schema-dir=$work/s1"
	],
	'explain first');
my $p2 = run_ok(
	[
		'exwiw', '--target-table=shops', '--ids=1', 'explain',
		"--schema-dir=$work/s1"
	],
	'explain among the options');
my $p3 = run_ok(
	[
		'exwiw', '--target-table=shops', '--ids=1', "--schema-dir=$work/s1",
		'explain'
	],
	'explain last');
isnt($p1, '', 'explain prints a plan');
ok($p1 eq $p2 && $p1 eq $p3, 'explain: the same plan wherever the subcommand is')
  or diag("first:\n$p1\namong:\n$p2\nlast:\n$p3");
run_ok(
	[
		'exwiw', '--target-table=shops', '--ids=1', "--schema-dir=$work/s1",
		'--allow-undecided', '-o', "$work/d1", '-q'
	],
	'export without "export"');
run_ok(
	[
		'exwiw', '--target-table=shops', 'export', '--ids=1',
		"--schema-dir=$work/s1", '--allow-undecided', '-o', "$work/d2", '-q'
	],
	'export with "export" among the options');
ok(same_dirs("$work/d1", "$work/d2"),
	'export: the same files with "export" among the options');
rmtree([ "$work/s2", "$work/s3", "$work/d1", "$work/d2" ]);

# per-subcommand --help
my $full = run_ok([ 'exwiw', '--help' ], 'exwiw --help');
my $h_explain = run_ok([ 'exwiw', 'explain', '--help' ], 'exwiw explain --help');
my $h_schema = run_ok([ 'exwiw', '--help', 'schema' ], 'exwiw --help schema');
my $h_export = run_ok([ 'exwiw', 'export', '--help' ], 'exwiw export --help');
my $h_verb =
  run_ok([ 'exwiw', 'schema', 'generate', '--help' ], 'exwiw schema generate --help');
like($h_explain, qr/^Usage: exwiw explain \[options\]/m,
	'explain --help: its usage');
like($h_explain, qr/--analyze/, 'explain --help: --analyze');
like($h_explain, qr/--target-table/, 'explain --help: --target-table');
unlike($h_explain, qr/--with-schema/, 'explain --help: not --with-schema');
like($h_schema, qr/^Usage: exwiw schema generate\|check\|tidy/m,
	'--help schema: its usage');
like($h_schema, qr/--fail-on/, '--help schema: --fail-on');
unlike($h_schema, qr/--analyze/, '--help schema: not --analyze');
ok($h_verb eq $h_schema, 'schema generate --help = --help schema');
like($h_export, qr/^Usage: exwiw \[export\] \[options\]/m,
	'export --help: its usage');
like($h_export, qr/--parallel-workers/, 'export --help: --parallel-workers');
unlike($h_export, qr/--from-db/, 'export --help: not --from-db');
my ($rc, $out, $err) = run_cmd([ 'exwiw', '--help' ]);
ok($out eq $full, '--help alone: the same text twice');
($rc, $out, $err) = run_cmd([ 'exwiw', '-?' ]);
ok($out eq $full, '-? = --help');
like($full, qr/--analyze/, '--help alone: --analyze');
like($full, qr/--with-schema/, '--help alone: --with-schema');
like($full, qr/--fail-on/, '--help alone: --fail-on');
($rc, $out, $err) = run_cmd([ 'exwiw', 'explain', '--bogus', '-j', 'x', '--help' ]);
ok($out eq $h_explain && $err eq '',
	'--help wins over the other errors on the line')
  or diag("stdout:\n$out\nstderr:\n$err");
($rc, $out, $err) = run_cmd([ 'exwiw', '--he', 'explain' ]);
ok($out eq $h_explain, 'an abbreviation of --help wins too') or diag($err);
like($full, qr/-W, --password/, '--help lists -W');
like($full, qr/-w, --no-password/, '--help lists -w');

# did you mean
# expect_hint(LABEL, PATTERN, CMD...): CMD fails, and a line of its stderr
# matches PATTERN
sub expect_hint
{
	my ($label, $pattern, @cmd) = @_;
	my ($rc, $out, $err) = run_cmd(\@cmd);
	if ($rc == 0)
	{
		fail("$label: exit 0");
	}
	else
	{
		like($err, qr/$pattern/m, $label);
	}
	return;
}
expect_hint('a mistyped flag: did you mean',
	'^exwiw: hint: Did you mean "--target-table"\?$',
	'exwiw', '--target-tabel=shops', '--ids=1');
expect_hint('a mistyped flag without a value',
	'^exwiw: hint: Did you mean "--allow-undecided"\?$',
	'exwiw', '--alow-undecided');
expect_hint('a mistyped subcommand',
	'^exwiw: hint: Did you mean the subcommand "explain"\?$',
	'exwiw', 'exlpain', '--ids=1');
expect_hint('a mistyped schema verb',
	'^exwiw: hint: Did you mean "exwiw schema check"\?$',
	'exwiw', 'schema', 'chek', '--from-db');
expect_hint(
	'an ambiguous abbreviation: the flags it could be',
	'^exwiw: hint: "--ta" is short for any of --target-table, --target-collection, --table\.$',
	'exwiw', '--ta=x');
expect_hint('nothing like any flag: no guess',
	'^exwiw: hint: Try "exwiw --help"',
	'exwiw', '--zzzzzzzz');
($rc, $out, $err) = run_cmd([ 'exwiw', '--zzzzzzzz' ]);
unlike($out . $err, qr/Did you mean/, 'no guess for a flag like none');
expect_error($work, 'an unknown short option', q{invalid option -- 'y'},
	'exwiw', '-y');

# -W and -w, on a terminal
# run_tty(INPUT, CMD...): CMD on a pseudo-terminal (its controlling
# terminal, stdin and stdout); INPUT and a newline are typed at each
# "Password:" it shows, once it has shown it (typed earlier, the prompt
# would flush it); returns what the terminal showed, without "\r".
sub run_tty
{
	my ($input, @cmd) = @_;
	my ($in, $tty) = ('', '');
	my $typed = 0;
	my $timer = IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default);
	my $h = IPC::Run::start(\@cmd, '<pty<', \$in, '>pty>', \$tty, $timer);
	eval {
		while ($h->pumpable)
		{
			my $prompts = () = $tty =~ /Password:/g;
			if ($prompts > $typed)
			{
				$in .= "$input\n";
				$typed++;
			}
			$h->pump;
		}
		$h->finish;
	};
	if ($@)
	{
		$h->kill_kill;
		diag("run_tty: @cmd: $@");
	}
	$tty =~ s/\r//g;
	return $tty;
}

SKIP:
{
	skip 'no IO::Pty for a terminal', 4 unless eval { require IO::Pty; 1 };

	# scram-sha-256 for cli_opt_pw, trust for the others (this line first);
	# a restart, not a reload, so that the next connection sees it
	my $hba = $node->data_dir . '/pg_hba.conf';
	my $orig = slurp($hba);
	open(my $fh, '>', $hba) or die "could not write $hba: $!";
	print $fh "local all cli_opt_pw scram-sha-256\n", $orig;
	close $fh;
	$node->restart;

	delete local $ENV{PGPASSWORD};
	delete local $ENV{DATABASE_PASSWORD};
	my @q = (
		'exwiw', 'explain', '--target-table=shops', '--ids=1',
		"--schema-dir=$work/s1");
	my $tty = run_tty('opt-password', @q, '-u', 'cli_opt_pw');
	ok($tty =~ /^Password: /m && $tty =~ /shops -> insert-/,
		'no flag: asked for the password the server wants, on a terminal')
	  or diag($tty);
	$tty = run_tty('opt-password', @q, '-u', 'cli_opt_pw', '-w');
	ok($tty !~ /Password: / && $tty =~ /no password supplied/,
		'-w: never asks, fails with libpq\'s message')
	  or diag($tty);
	$tty = run_tty('whatever', @q, '-W');
	ok($tty =~ /^Password: /m && $tty =~ /shops -> insert-/,
		'-W: asks before connecting, though the server (trust) wants none')
	  or diag($tty);
	$tty = run_tty(
		'opt-password', 'exwiw', '--password', '-q', '-o', 'dump', '-j', '2',
		'--allow-undecided', '--target-table=shops', '--ids=1',
		"--schema-dir=$work/s1", '-u', 'cli_opt_pw');
	my $prompts = () = $tty =~ /^.*Password: .*$/mg;
	ok($prompts == 1 && -f "$work/dump/insert-003-shops.sql",
		'--password with -j 2: asked once, for every connection')
	  or diag($tty);
}

# --version is the extension's version
my $extversion = $node->safe_psql('cli_options',
	q{SELECT extversion FROM pg_extension WHERE extname = 'exwiw'});
isnt($extversion, '', 'the extension\'s version');
is(run_ok([ 'exwiw', '--version' ], 'exwiw --version'),
	"exwiw $extversion\n",
	"--version: exwiw $extversion, the installed extension's version (SELECT extversion)"
);
is(run_ok([ 'exwiw', 'explain', '-V' ], 'exwiw explain -V'),
	"exwiw $extversion\n", 'explain -V: the same');

chdir $FindBin::RealBin . '/..';
done_testing();
