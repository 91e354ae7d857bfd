# t/012_cli_doc.pl: the exwiw command's manual page and bash completion
# keep up with it.
#
# Every long option of client/lib/options.c is in doc/exwiw.1 and in
# client/exwiw.bash; the page is clean roff (groff -ww) and names the
# extension's version; the completion completes subcommands, schema's
# verbs, flags (after the subcommand too) and the values of --output-format
# and --log-level; make install installs the page (pg_config --mandir).
# (No server: the test reads files and runs bash, groff and make.)
use strict;
use warnings FATAL => 'all';

use FindBin;
use lib $FindBin::RealBin;
use ExwiwCli;
use IPC::Run;
use PostgreSQL::Test::Utils;
use Test::More;

my $root = "$FindBin::RealBin/..";
my $work = cli_work();

# the long options of client/lib/options.c: '\t{"name", no_argument, ...'
my @options = slurp("$root/client/lib/options.c") =~
  /^\t\{"([a-z-]*)", (?:no|required)_argument, .*$/mg;
cmp_ok(scalar(@options), '>', 30, 'the long options of client/lib/options.c')
  or diag("read: @options");
my $man = slurp("$root/doc/exwiw.1");
my $bash = slurp("$root/client/exwiw.bash");
my (@missing_man, @missing_bash);
for my $o (@options)
{
	# roff spells each "-" of an option "\-"
	my $roff = '\-\-' . ($o =~ s/-/\\-/gr);
	push @missing_man, "--$o" if index($man, $roff) < 0;
	push @missing_bash, "--$o"
	  unless $bash =~ /(?:^|[[:space:]"])--\Q$o\E(?:=|[[:space:]"]|$)/m;
}
is("@missing_man", '',
	'doc/exwiw.1 names every long option (' . scalar(@options) . ')');
is("@missing_bash", '', 'client/exwiw.bash completes every long option');

my ($version) = slurp("$root/exwiw.control") =~ /^default_version = '(.*)'$/m;
ok(defined $version, "exwiw.control's default_version");
$version //= '';
like(
	$man,
	qr/^\.TH EXWIW 1 .*"exwiw \Q$version\E"/m,
	"exwiw(1) is the page of exwiw $version");

SKIP:
{
	my ($has_groff) = run_cmd([ 'sh', '-c', 'command -v groff' ]);
	skip 'groff is not installed', 2 if $has_groff != 0;

	my ($rc, $out, $err) =
	  run_cmd([ 'groff', '-man', '-ww', '-z', "$root/doc/exwiw.1" ]);
	ok($rc == 0 && $out . $err eq '', 'groff -man -ww: no warning')
	  or diag("exit $rc\n$out$err");

	my $text = '';
	IPC::Run::run(
		[ 'groff', '-man', '-Tascii', "$root/doc/exwiw.1" ],
		'2>', \my $groff_err,
		'|', [ 'col', '-b' ],
		'>', \$text);
	$text =~ s/[ \n]+/ /g;
	like(
		$text,
		qr/Prompt for a password before connecting/,
		'the page renders');
}

# complete_words(WORD...): COMPREPLY for the command line WORDS, the last
# being the word under the cursor, sorted, each followed by a space
sub complete_words
{
	my @words = @_;
	my ($rc, $out, $err) = run_cmd(
		[
			'bash', '-c',
			'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _exwiw; [ ${#COMPREPLY[@]} -eq 0 ] || printf "%s\n" "${COMPREPLY[@]}"',
			'-', "$root/client/exwiw.bash", @words
		]);
	diag("bash: exit $rc\n$err") if $rc != 0;
	# every candidate, an empty one too ("" is one)
	my @w = split /\n/, $out, -1;
	pop @w if @w && $w[-1] eq '';
	return join('', map { "$_ " } sort @w);
}

# check_completion(WANT, WORD...)
sub check_completion
{
	my ($want, @words) = @_;
	is(complete_words(@words), $want, "completion of '@words': $want");
}
check_completion('explain export ', 'exwiw', 'ex');
check_completion('dump explain export load mask schema verify ', 'exwiw', '');
check_completion('error skip ', 'exwiw', 'load', '--on-conflict', '');
check_completion('preview ', 'exwiw', 'mask', 'p');
check_completion('generate ', 'exwiw', 'schema', 'g');
check_completion('check ', 'exwiw', '--from-db', 'schema', 'ch');
check_completion('--target-table= ', 'exwiw', '--target-t');
check_completion('--from-db ', 'exwiw', 'schema', 'generate', '--fr');
check_completion('--parallel-workers= --password --port= ',
	'exwiw', 'explain', '--p');
check_completion('copy ', 'exwiw', '--output-format', '=', 'c');
check_completion('warn ', 'exwiw', '--log-level', 'w');
check_completion('', 'exwiw', '--ids', '');

# make install installs the page
my $pg_config = $ENV{PG_CONFIG} // 'pg_config';
my $dest = "$work/inst";
run_ok(
	[
		'make', '-s', '-C', "$root/client", 'install-man', "DESTDIR=$dest",
		"PG_CONFIG=$pg_config"
	],
	'make install-man');
my ($rc, $mandir, $err) = run_cmd([ $pg_config, '--mandir' ]);
chomp $mandir;
my $installed = "$dest$mandir/man1/exwiw.1";
ok(-f $installed && slurp($installed) eq $man,
	'make install puts exwiw.1 into pg_config --mandir (the same bytes)')
  or diag("pg_config --mandir: exit $rc, '$mandir'; $installed "
	  . (-f $installed ? 'differs' : 'is missing'));

done_testing();
