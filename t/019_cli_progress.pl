# t/019_cli_progress.pl: the progress display, on a real terminal (a
# pseudo terminal of 40 rows and 150 columns, IPC::Run's '<pty<' and
# '>pty>', exwiw's controlling terminal), and Ctrl-C typed in it.
#
# - On a terminal: a line per table with rows (against the estimate),
#   bytes and rate, an overall bar with a percentage and an ETA; at the
#   end the live lines are gone and one summary line says files, rows,
#   bytes and seconds.
# - stderr not a terminal (2>file), and --quiet: nothing at all.
# - Ctrl-C typed in the terminal: exit status 130, "canceled", nothing
#   left behind.
# The export is slowed down by pg_sleep() masks so the display is seen.
# Skips when Perl's IO::Pty is not installed (libio-pty-perl).
#
# What the terminal shows is computed from the bytes exwiw writes to it
# (screen(): text, "\r", "\n" and the ANSI sequences the display uses),
# so every line the display drew is seen, however fast or slow the machine:
# nothing here depends on its speed.  The Ctrl-C is typed once the bar of
# an export slowed down so much that it cannot end first is drawn (IPC::Run
# pumps the terminal's output until then); every run is bounded by
# PostgreSQL::Test::Utils's timeout, which only a hang reaches.
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

plan skip_all => 'IO::Pty is not installed (apt-get install libio-pty-perl)'
  unless eval { require IO::Pty; 1 };

# screen(BYTES): what a terminal shows after BYTES, and every line as it
# was when it was ended by a newline (so a line that was drawn and erased
# again is among them).  Returns (screen lines, drawn lines), trailing
# blanks removed as tmux capture-pane removes them.  The terminal is as
# wide as a line is long: exwiw cuts its live lines to the width.
sub screen
{
	my ($bytes) = @_;
	my @s = ('');
	my @drawn;
	my ($r, $c) = (0, 0);
	# put(TEXT): TEXT at the cursor, over what is there
	my $put = sub {
		my ($text) = @_;
		$s[$r] .= ' ' x ($c - length $s[$r]) if length $s[$r] < $c;
		substr($s[$r], $c, length $text) = $text;
		$c += length $text;
	};
	pos($bytes) = 0;
	while (pos($bytes) < length $bytes)
	{
		if ($bytes =~ /\G([^\e\r\n\x08\t]+)/gc)
		{
			$put->($1);
		}
		elsif ($bytes =~ /\G\r/gc)
		{
			$c = 0;
		}
		elsif ($bytes =~ /\G\n/gc)
		{
			push @drawn, $s[$r] =~ s/ +\z//r;
			$r++;
			$s[$r] //= '';
		}
		elsif ($bytes =~ /\G\x08/gc)
		{
			$c-- if $c > 0;
		}
		elsif ($bytes =~ /\G\t/gc)
		{
			$put->(' ' x (8 - $c % 8));
		}
		elsif ($bytes =~ /\G\e\[([0-9]*)A/gc)
		{
			$r -= length $1 ? $1 : 1;
			$r = 0 if $r < 0;
		}
		elsif ($bytes =~ /\G\e\[0?J/gc)
		{
			splice(@s, $r + 1);
			$s[$r] = substr($s[$r], 0, $c) if length $s[$r] > $c;
		}
		elsif ($bytes =~ /\G\e\[0?K/gc)
		{
			$s[$r] = substr($s[$r], 0, $c) if length $s[$r] > $c;
		}
		else
		{
			die 'screen: unexpected bytes: '
			  . substr($bytes, pos($bytes), 20) =~ s/\e/\\e/gr;
		}
	}
	return ([ map { s/ +\z//r } @s ], \@drawn);
}

# on_terminal(STDERR, ARGS...): start exwiw ARGS on a new pseudo terminal of
# 40 rows and 150 columns, its controlling terminal, as stdin, stdout and
# stderr (unless STDERR is a file name: then stderr goes to that file).
# Returns { h => the IPC::Run harness, in => what is typed, out => what
# the terminal got }.
sub on_terminal
{
	my ($stderr, @args) = @_;
	my $t = { in => '', out => '' };
	my @redirect = ('<pty<', \$t->{in}, '>pty>', \$t->{out});
	push @redirect, '2>', $stderr if defined $stderr;
	$t->{h} = IPC::Run::start(
		[ 'exwiw', @args ],
		@redirect,
		# in the child, once the pty is its terminal: the window size
		init => sub {
			open(my $tty, '+<', '/dev/tty') or die "could not open /dev/tty: $!";
			ioctl($tty, IO::Tty::Constant::TIOCSWINSZ(),
				IO::Tty::pack_winsize(40, 150, 0, 0))
			  or die "TIOCSWINSZ: $!";
			close $tty;
		},
		IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
	return $t;
}

# finished(T): wait for T's exwiw to end; its status (128 + the signal if
# a signal killed it), as run_cmd gives it.
sub finished
{
	my ($t) = @_;
	# the harness's timeout throws without killing: kill it, then fail
	eval { $t->{h}->finish; };
	if ($@)
	{
		$t->{h}->kill_kill;
		die "exwiw did not end: $@";
	}
	my $st = $t->{h}->full_result(0);
	return $st & 127 ? 128 + ($st & 127) : $st >> 8;
}

my $node = cli_node('progress');
my $work = cli_work();

$node->safe_psql('postgres', 'CREATE DATABASE cli_progress');
load_fixture('cli_progress');
$node->safe_psql(
	'cli_progress', q{
INSERT INTO shop.orders (shop_id, user_id, ordered_at, total)
	SELECT 1, 1, now(), g FROM generate_series(1, 30) g;
ANALYZE;
});
shop_env('cli_progress');
my $sd = "$work/schema";
run_ok([ 'exwiw', 'schema', 'generate', '--from-db', "--schema-dir=$sd" ],
	'schema generate');
my $orders = <<'JSON';
{"name": "orders", "primary_key": "id",
 "belongs_tos": [{"foreign_key": "shop_id", "table_name": "shops"}, {"foreign_key": "user_id", "table_name": "users"}],
 "columns": [{"name": "id"}, {"name": "shop_id"}, {"name": "user_id"}, {"name": "ordered_at"},
             {"name": "total", "raw_sql": "orders.total + length(pg_sleep(0.15)::text)"}]}
JSON
open(my $fh, '>:raw', "$sd/orders.json") or die;
print $fh $orders;
close $fh;
# the same, 34 rows of 2 s each: the export Ctrl-C stops
my $sd_slow = "$work/schema-slow";
mkdir $sd_slow or die;
PostgreSQL::Test::Utils::append_to_file("$sd_slow/$_",
	slurp("$sd/$_") =~ s/pg_sleep\(0\.15\)/pg_sleep(2)/gr)
  for dir_entries($sd);

my @args = (
	'--target-table=shops', '--ids=1,2', '--allow-undecided', '-j', '2', '-o',
	"$work/out");

my $t = on_terminal(undef, @args, "--schema-dir=$sd");
my $rc = finished($t);
my ($scr, $drawn) = screen($t->{out});
my $screen = join("\n", @$scr) . "\n";
is($rc, 0, 'an export on a terminal: exit 0') or diag($t->{out});
my ($bar) =
  grep { /^\[[#-]{30}\] +[0-9]+%  [0-9]+\/9 tables  .* rows  .*\/s  ETA / } @$drawn;
ok(defined $bar, 'the overall bar, with tables, rows, bytes, rate and ETA')
  or diag("the terminal's lines as drawn:\n" . join("\n", @$drawn));
note("bar: $bar") if defined $bar;
my ($live) = grep {
	/^  (insert-[0-9]{3}-[a-z_]+\.sql|#[0-9] [a-z_]+) +[0-9,]+ \/ ~[0-9]+ +rows +[0-9.]+ [kMG]?B +[0-9.]+ [kMG]?B\/s/
} @$drawn;
ok(defined $live, 'a live line per table: rows against the estimate, bytes, rate')
  or diag("the terminal's lines as drawn:\n" . join("\n", @$drawn));
note('live line: ' . $live =~ s/  +/ /gr) if defined $live;
# a live line longer than the terminal would wrap and break the redraw
my @wide = grep { length($_) > 150 && (/^\[[#-]{30}\]/ || /^  [^ ].* \/ ~[0-9]+ +rows /) } @$drawn;
is(scalar(@wide), 0, 'the live lines fit the terminal\'s 150 columns')
  or diag(join("\n", @wide));
# the insert and the delete files (a table whose rows come only as
# parents, categories, has no delete file)
my $nfiles = -d "$work/out" ? scalar(grep { !/^\./ } dir_entries("$work/out")) : 0;
cmp_ok($nfiles, '>', 9, 'the insert and the delete files');
like(
	$screen,
	qr/^exwiw: wrote $nfiles files, [0-9,]+ rows, [0-9.]+ [kMG]?B to \Q$work\E\/out in [0-9.]+ s$/m,
	'at the end: one summary line, of every file') or diag("the screen:\n$screen");
unlike($screen, qr/^\[[#-]{30}\]/m, 'at the end: the live lines are gone');
like(
	$screen,
	qr/^  insert-006-orders\.sql +34 rows .* done$/m,
	'at the end: each table\'s line stays (orders: 34 rows)');

# not a terminal, or --quiet: nothing
$t = on_terminal("$work/stderr.txt", @args, "--schema-dir=$sd", '--force');
$rc = finished($t);
is($rc, 0, 'stderr not a terminal: exit 0');
is(slurp("$work/stderr.txt"), '', 'stderr not a terminal: nothing on stderr');
is($t->{out}, '', 'stderr not a terminal: nothing on the terminal');
$t = on_terminal(undef, @args, "--schema-dir=$sd", '--force', '--quiet');
$rc = finished($t);
is($rc, 0, '--quiet on a terminal: exit 0');
($scr) = screen($t->{out});
is(join("\n", grep { /^(exwiw|  insert|  #|\[)/ } @$scr),
	'', '--quiet on a terminal: no progress line, no summary');
is($t->{out}, '', '--quiet on a terminal: nothing printed at all');

# Ctrl-C typed in the terminal, once the slow export is seen running: its
# bar drawn (and so its temporary directory made, before the display
# starts); 68 s of pg_sleep: it cannot end first
rmtree("$work/out");
$t = on_terminal(undef, @args, "--schema-dir=$sd_slow");
my $started = 0;
while (1)
{
	($scr, $drawn) = screen($t->{out});
	$started = grep { /^\[[#-]{30}\]/ } @$drawn;
	last if $started || !$t->{h}->pumpable;
	eval { $t->{h}->pump; };
	if ($@)
	{
		$t->{h}->kill_kill;
		die "the slow export drew no bar: $@";
	}
}
ok($started, 'the slow export draws its bar') or diag($t->{out});
ok(scalar(grep { /^\.exwiw-/ } dir_entries($work)),
	'the slow export has its temporary directory')
  or diag(join(' ', dir_entries($work)));
$t->{in} .= "\x03";
$rc = finished($t);
($scr) = screen($t->{out});
$screen = join("\n", @$scr) . "\n";
is($rc, 130, 'Ctrl-C in the terminal: exit 130') or diag("the screen:\n$screen");
like(
	$screen,
	# (the terminal echoes the ^C where its cursor is, before or after
	# the display has cleared its lines: a race a user sees too)
	qr/^(?:\^C)?exwiw: error: canceled by user \(SIGINT\)$/m,
	'Ctrl-C in the terminal: canceled') or diag("the screen:\n$screen");
ok(!-e "$work/out", 'Ctrl-C: no output directory');
is(join(' ', grep { /^\.exwiw-/ } dir_entries($work)),
	'', 'Ctrl-C: no temporary directory left');

done_testing();
