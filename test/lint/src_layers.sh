#!/usr/bin/env bash
# test/lint/src_layers.sh: the layers doc/architecture.md draws hold, in
# src/ and client/ (its "What the lint checks" says each rule's why).
#
#  1. Every .c and .h is in a layer of the "layers" blocks.
#  2. Includes go down the layers (entry files: any).
#  3. Calls go down the layers (entry files: any): a non-static function
#     defined in a file of a higher layer is named nowhere below it.
#  4. No circle between files, by includes or by calls.
#  5. No folder holds more than 15 C files.
#  6. No file repeats its folder's name (the folder's door header may be it).
#  7. The SQL-callable functions are only in the funcs.c files.
#  8. src/common/ builds with FRONTEND; only common/compat.h tests
#     PG_VERSION_NUM.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
# the files are git's: without git, or outside a checkout, nothing would be
# checked
if ! command -v git >/dev/null; then
	echo "not ok: git is not installed (test/lib.sh's EXWIW_PACKAGES installs it)"
	exit 1
fi
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	echo "not ok: $root is not a git checkout: the files to check are git's"
	exit 1
fi
fail=0
not_ok() {
	echo "not ok: $*"
	fail=1
}

# 1-4: the layers, the include graph and the call graph
git ls-files 'src/*.c' 'src/*.h' 'client/*.c' 'client/*.h' |
	perl -e '
use strict;
use warnings;
my $doc = "doc/architecture.md";
open(my $dh, "<", $doc) or die "not ok: $doc: $!\n";
my (%rank, %entry, %known, @layers, $in);
my $n = 0;
while (<$dh>)
{
	if (/^```circles/) { $in = "circles"; next; }
	if (/^```layers (\S+)/) { $in = $1; next; }
	if ($in && /^```/) { $in = undef; next; }
	next unless $in;
	chomp;
	next if /^\s*$/;
	if ($in eq "circles")
	{
		$known{ join(" ", sort split /\s+/) } = 1;
		next;
	}
	if (s/^entry\s+//)
	{
		$entry{$_} = 1 for split /\s+/;
		next;
	}
	my ($path) = split /\s+/;
	$rank{$path} = $n++;
	push @layers, $path;
}
close $dh;
my @files = map { chomp; $_ } <STDIN>;
my %is_file = map { $_ => 1 } @files;
my $fail = 0;
sub not_ok { print "not ok: @_\n"; $fail = 1; }
sub is_entry
{
	my $f = shift;
	for my $e (keys %entry)
	{
		(my $re = quotemeta $e) =~ s/\\\*/[^\/]*/g;
		return 1 if $f =~ /^$re$/;
	}
	return 0;
}
# a file is the layer it names, or in its folder"s layer
sub layer
{
	my $f = shift;
	return $f if exists $rank{$f};
	(my $d = $f) =~ s{/[^/]*$}{};
	return exists $rank{$d} ? $d : undef;
}
# src/ and client/ are two programs: each has its own graph
sub prog { return (split m{/}, shift)[0]; }
my $bad = 0;
for my $f (@files)
{
	next if is_entry($f);
	defined layer($f) or (not_ok("$f is in no layer of $doc (give its folder a line in a layers block)"), $bad = 1);
}
print "ok: every file of src/ and client/ is in a layer of $doc (" . scalar(@layers) . " layers)\n" unless $bad;

# the code of a file, comments, strings and character constants left out
sub code
{
	my $f = shift;
	open(my $fh, "<", $f) or die "$f: $!";
	local $/;
	my $s = <$fh>;
	close $fh;
	$s =~ s{/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\x27(?:\\.|[^\x27\\\n])*\x27}{
		my $m = $&; $m =~ /^"/ ? "\"\"" : ($m =~ /^\x27/ ? "0" : "\n" x ($m =~ tr/\n//) . " ")}gse;
	return $s;
}
# includes: "x" resolved from src/, from the file"s folder, from client/
my (%inc, %defs, %text);
for my $f (@files)
{
	open(my $fh, "<", $f) or die "$f: $!";
	while (<$fh>)
	{
		next unless /^#include "([^"]+)"/;
		my $h = $1;
		(my $dir = $f) =~ s{/[^/]*$}{};
		my $t;
		for my $c ("src/$h", "$dir/$h", "client/$h")
		{
			(my $n = $c) =~ s{[^/]+/\.\./}{}g;
			$n =~ s{[^/]+/\.\./}{}g;
			if ($is_file{$n}) { $t = $n; last; }
		}
		next unless defined $t;
		# the client takes src/common/ (it builds with FRONTEND), nothing
		# else of the extension
		if (prog($t) ne prog($f))
		{
			not_ok("$f includes $t: the client takes only src/common/ of the extension") unless $t =~ m{^src/common/};
			next;
		}
		push @{ $inc{$f} }, $t;
	}
	close $fh;
	next unless $f =~ /\.c$/;
	$text{$f} = code($f);
	# a definition: "name(" at the start of a line, after a line that is
	# its type and does not say static
	my @lines = split /\n/, $text{$f};
	for my $i (1 .. $#lines)
	{
		next unless $lines[$i] =~ /^([A-Za-z_]\w*)\(/;
		my $name = $1;
		next if $lines[$i - 1] =~ /\bstatic\b|^\s*$|[;{}]\s*$|^#/;
		push @{ $defs{$name} }, $f;
	}
	# a variable of the program: "type name = ...;" or "type name;" at
	# the start of a line, not static, extern or a typedef
	for my $l (@lines)
	{
		next if $l =~ /^(?:static|extern|typedef|return|else|case|goto)\b/;
		# the settings (variables) of an entry file are read by all
		next if is_entry($f);
		push @{ $defs{$1} }, $f
		  if $l =~ /^(?:const\s+)?(?:unsigned\s+|struct\s+|volatile\s+)?[A-Za-z_]\w*[\s*]+(?:const\s+)?([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)?(?:=|;)/;
	}
}
my %call;
for my $f (sort keys %text)
{
	my %seen;
	for my $w ($text{$f} =~ /\b([A-Za-z_]\w*)\b/g)
	{
		next if $seen{$w}++ || !$defs{$w};
		# a name two files of the program define (main: main.c and
		# unit_test.c) belongs to no one file
		my @t = grep { prog($_) eq prog($f) } @{ $defs{$w} };
		next if @t != 1;
		for my $t (@t)
		{
			push @{ $call{$f}{$t} }, $w if $t ne $f;
		}
	}
}
sub down
{
	my ($kind, $graph, $what) = @_;
	my $bad = 0;
	for my $f (sort keys %$graph)
	{
		next if is_entry($f);
		my $lf = layer($f);
		next unless defined $lf;
		for my $t (sort(ref $graph->{$f} eq "HASH" ? keys %{ $graph->{$f} } : @{ $graph->{$f} }))
		{
			my $lt = is_entry($t) ? undef : layer($t);
			if (is_entry($t))
			{
				not_ok("$f $kind $t, an entry point: nothing calls up into one" . $what->($f, $t));
				$bad = 1;
				next;
			}
			next unless defined $lt;
			next if $rank{$lt} >= $rank{$lf};
			not_ok("$f ($lf) $kind $t ($lt), a layer above it" . $what->($f, $t));
			$bad = 1;
		}
	}
	return $bad;
}
my $nowhat = sub { "" };
print "ok: includes go down the layers\n" unless down("includes", \%inc, $nowhat);
my $callwhat = sub { my ($f, $t) = @_; ": " . join(", ", sort @{ $call{$f}{$t} }) };
print "ok: calls go down the layers\n" unless down("calls", \%call, $callwhat);

# circles: strongly connected components of more than one file (Tarjan)
sub circles
{
	my ($kind, $edges) = @_;
	my (%index, %low, %on, @stack, @found);
	my $i = 0;
	my $visit;
	$visit = sub {
		my $v = shift;
		$index{$v} = $low{$v} = $i++;
		push @stack, $v;
		$on{$v} = 1;
		for my $w (sort @{ $edges->{$v} || [] })
		{
			if (!exists $index{$w}) { $visit->($w); $low{$v} = $low{$w} if $low{$w} < $low{$v}; }
			elsif ($on{$w}) { $low{$v} = $index{$w} if $index{$w} < $low{$v}; }
		}
		if ($low{$v} == $index{$v})
		{
			my @c;
			while (1) { my $w = pop @stack; delete $on{$w}; push @c, $w; last if $w eq $v; }
			push @found, [ sort @c ] if @c > 1;
		}
	};
	$visit->($_) for grep { !exists $index{$_} } sort keys %$edges;
	my $n = 0;
	for my $c (@found)
	{
		my $name = join(" ", @$c);
		if ($kind eq "call" && $known{$name})
		{
			print "ok: the known circle of $doc: " . join(" <-> ", @$c) . "\n";
			next;
		}
		not_ok("a circle of ${kind}s: " . join(" <-> ", @$c));
		$n++;
	}
	print "ok: no other circle of ${kind}s between files\n" unless $n;
}
circles("include", \%inc);
circles("call", { map { my $f = $_; ($f => [ keys %{ $call{$f} } ]) } keys %call });
exit $fail;
' || fail=1

# 5. at most 15 C files a folder
bad=$(git ls-files 'src/*.c' 'client/*.c' | xargs -n1 dirname | sort | uniq -c | awk '$1 > 15 {print $2 " (" $1 ")"}')
[ -z "$bad" ] && echo "ok: no folder holds more than 15 C files" || not_ok "folders with more than 15 C files: $(echo $bad)"

# 6. no file named after its folder (the door header may be the folder's name)
bad=$(git ls-files 'src/*/*' 'client/*/*' | awk -F/ '{d = $(NF-1); f = $NF; if (index(f, d "_") == 1 || (f == d ".c")) print}')
[ -z "$bad" ] && echo "ok: no file repeats its folder's name" || not_ok "files that repeat their folder's name: $(echo $bad)"

# 7. SQL-callable functions only in funcs.c
bad=$(git grep -l 'PG_FUNCTION_INFO_V1' -- 'src/*.c' | grep -v '/funcs\.c$' || true)
if [ -n "$bad" ]; then
	not_ok "SQL-callable functions outside the funcs.c files: $(echo $bad)"
else
	echo "ok: every SQL-callable function is in a funcs.c ($(git grep -h 'PG_FUNCTION_INFO_V1' -- 'src/*/funcs.c' | wc -l) functions in $(git grep -l 'PG_FUNCTION_INFO_V1' -- 'src/*.c' | wc -l) files)"
fi

# 8. common/ builds with FRONTEND; one file tests the version
bad=$(git grep -l '#include "\(dump\|extjson\|subset\|sink\|mask\|fake\)/\|#include "exwiw.h"' -- 'src/common/' || true)
[ -z "$bad" ] && echo "ok: common/ includes none of the server-side subsystems" ||
	not_ok "common/ includes server-side headers: $(echo $bad)"
bad=$(git grep -l 'PG_VERSION_NUM' -- 'src/*.c' 'src/*.h' 'client/*.c' 'client/*.h' | grep -v '^src/common/compat\.h$' || true)
[ -z "$bad" ] && echo "ok: only src/common/compat.h tests PG_VERSION_NUM" ||
	not_ok "PG_VERSION_NUM outside compat.h: $(echo $bad)"

[ $fail -eq 0 ] && echo "src_layers: all checks passed"
exit $fail
