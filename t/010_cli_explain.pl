# t/010_cli_explain.pl: exwiw explain prints the plan, one line per table
# ("[seq/n] table -> file  ~rows  rule: ...  indexes: ...  query: ..."), in
# file order, with the planner's row estimates, the rule that chose the
# table's rows (exwiw_plan's rule column, the same text) and the indexes the
# queries use; --verbose adds each EXPLAIN plan, --analyze runs the queries;
# --format=json gives the same plan as one JSON object (every table's seq,
# file, rule, estimate, indexes and query, and the steps computed before
# the files), which equals exwiw_plan's rows.  Nothing is written.
use strict;
use warnings FATAL => 'all';

use FindBin;
use lib $FindBin::RealBin;
use ExwiwCli;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use JSON::PP;
use Test::More;

my $node = cli_node('explain');
my $work = cli_work();

$node->safe_psql('postgres', 'CREATE DATABASE cli_explain');
load_fixture('cli_explain');
# enough orders of another shop that the planner reads shop 1's through the index
$node->safe_psql(
	'cli_explain', q{
INSERT INTO shop.orders (shop_id, user_id, ordered_at, total)
	SELECT 3, 4, now(), g FROM generate_series(1, 20000) g;
ANALYZE;
});
shop_env('cli_explain');
run_ok([ 'exwiw', 'schema', 'generate', '--from-db', "--schema-dir=$work/schema" ],
	'schema generate');

my @explain =
  ('exwiw', 'explain', '--target-table=shops', '--ids=1', "--schema-dir=$work/schema");

chdir $work or die;
my $plan = run_ok([@explain], 'explain');
my @lines = split /\n/, $plan;
is($plan =~ tr/\n//, 9, 'one line per table');
like(
	$plan,
	qr/^\[3\/9\] shops -> insert-003-shops\.sql  ~[0-9,]+ rows  rule: target: [^ ].*  indexes: ([a-z_, ]+|\(none\))  query: SELECT shops\.id, shops\.name FROM /m,
	'the target: file, estimated rows, rule, indexes, query');
like(
	$plan,
	qr/^\[6\/9\] orders -> insert-006-orders\.sql  ~[0-9,]+ rows  rule: belongs_to: orders\.shop_id -> shops[^ ]*.*  indexes: \(none\)  query: SELECT .* JOIN \(SELECT exwiw_f_6\.id AS exwiw_key1 FROM exwiw_f_6\) AS exwiw_k ON orders\.id OPERATOR\(pg_catalog\.=\) exwiw_k\.exwiw_key1 .*ORDER BY orders\.id$/m,
	'a table of the tenant: its rule, its query; its few rows read back by ctid, by no index');
{
	# the fixture's tables are small: seq scans off, the tags' file probes
	# their key
	local $ENV{PGOPTIONS} = ($ENV{PGOPTIONS} // '') . ' -c enable_seqscan=off';
	like(
		run_ok([@explain], 'explain, seq scans off'),
		qr/^\[8\/9\] order_tags -> insert-008-order_tags\.sql  ~[0-9,]+ rows  rule: belongs_to: order_tags\.order_id -> orders  indexes: [a-z_, ]*order_tags_pkey[a-z_, ]*  query: SELECT /m,
		'a table of the tenant: the index its query uses');
}
is(join(' ', dir_entries($work)), 'schema', 'nothing written');

# (PostgreSQL 18 prints actual rows with two decimals: "rows=4.00")
my $plan2 = run_ok([ @explain, '--verbose', '--analyze' ], 'explain --verbose --analyze');
like($plan2, qr/^    .*\(actual rows=[0-9.]+ loops=[0-9]+\)/m,
	'--verbose --analyze: each table\'s EXPLAIN ANALYZE plan, indented');
like($plan2, qr/^    +Buffers: /m, '--analyze: with buffers');
is(scalar(() = $plan2 =~ /^\[/mg), 9, '--verbose: still one line per table');

# every line's rule is exwiw_plan's, table by table, in file order
my $cfg = config_array("$work/schema");
my ($rc, $want, $err) = psql_stdin(
	q{SELECT format('[%s/%s] %s rule: %s', seq, max(seq) OVER (), table_name, regexp_replace(rule, '\s+', ' ', 'g'))
FROM exwiw_plan('shops', '{1}', :'cfg') WHERE seq IS NOT NULL ORDER BY seq;},
	'-At', '-v', "cfg=$cfg");
is($rc, 0, 'exwiw_plan') or diag($err);
my $got = join('',
	map { s/^(\[[0-9]+\/[0-9]+\] [^ ]+) -> [^ ]+  ~[0-9,]+ rows  (rule: .*)  indexes: .*$/$1 $2/r . "\n" }
	  @lines);
isnt($want, '', 'exwiw_plan has rows');
is($got, $want, 'every table\'s rule is exwiw_plan\'s rule');

# a table that goes out in full says so: a table no foreign key ties to shops
$node->safe_psql('cli_explain',
	"CREATE TABLE shop.settings (id int PRIMARY KEY, v text); INSERT INTO shop.settings VALUES (1, 'x')"
);
mkdir "$work/schema2" or die;
for my $f (grep { /\.json\z/ } dir_entries("$work/schema"))
{
	PostgreSQL::Test::Utils::append_to_file("$work/schema2/$f", slurp("$work/schema/$f"));
}
run_ok([ 'exwiw', 'schema', 'generate', '--from-db', "--schema-dir=$work/schema2" ],
	'schema generate again, with a new table');
for my $f (grep { /\.json\z/ } dir_entries("$work/schema2"))
{
	my $s = slurp("$work/schema2/$f");
	$s =~ s/"needs_mask_decision": true/"needs_mask_decision": false/g;
	open(my $fh, '>:raw', "$work/schema2/$f") or die;
	print $fh $s;
	close $fh;
}
my $plan3 = run_ok(
	[
		'exwiw', 'explain', '--target-table=shops', '--ids=1',
		"--schema-dir=$work/schema2"
	],
	'explain with the new table');
my $cfg2 = config_array("$work/schema2");
($rc, my $rule, $err) = psql_stdin(
	q{SELECT regexp_replace(rule, '\s+', ' ', 'g') FROM exwiw_plan('shops', '{1}', :'cfg') WHERE table_name = 'settings' AND seq IS NOT NULL;},
	'-At', '-v', "cfg=$cfg2");
chomp $rule;
isnt($rule, '', 'exwiw_plan has a rule for the unrelated table') or diag($err);
my ($line) = grep { /\] settings -> / } split /\n/, $plan3;
ok(defined $line && index($line, "  rule: $rule  indexes: ") >= 0,
	"a table unrelated to the target shows its rule: $rule")
  or diag($plan3);
$node->safe_psql('cli_explain', 'DROP TABLE shop.settings');

# --format=json: the plan for scripts, equal to exwiw_plan's rows
my $json = run_ok([ @explain, '--format=json' ], 'explain --format=json');
($rc, $got, $err) = psql_stdin(
	q{WITH j AS (SELECT :'plan'::jsonb AS j),
got AS (SELECT (t->>'seq')::int AS seq, t->>'table' AS table_name, t->>'file' AS output, t->>'rule' AS rule, t->>'query' AS query
		FROM j, jsonb_array_elements(j->'tables') t
		UNION ALL
		SELECT NULL, s->>'table', s->>'output', s->>'rule', NULL FROM j, jsonb_array_elements(j->'steps') s),
want AS (SELECT seq, table_name, output, rule, CASE WHEN seq IS NOT NULL THEN query END FROM exwiw_plan('shops', '{1}', :'cfg'))
SELECT (SELECT count(*) FROM ((TABLE got EXCEPT ALL TABLE want) UNION ALL (TABLE want EXCEPT ALL TABLE got)) d)
	|| ' ' || (SELECT count(*) FROM got WHERE seq IS NOT NULL)
	|| ' ' || (SELECT count(*) FROM got WHERE seq IS NULL)
	|| ' ' || (SELECT j->>'target_table' FROM j) || ' ' || (SELECT j->'ids' FROM j)::text
	|| ' ' || (SELECT bool_and(jsonb_typeof(t->'estimated_rows') = 'number' AND jsonb_typeof(t->'indexes') = 'array'
						 AND NOT t ? 'plan') FROM j, jsonb_array_elements(j->'tables') t)
	|| ' ' || (SELECT bool_and((t->>'seq')::int = n) FROM j, jsonb_array_elements(j->'tables') WITH ORDINALITY x(t, n));},
	'-At', '-v', "plan=$json", '-v', "cfg=$cfg");
like(
	$got,
	qr/^0 9 [0-9]+ shops \["1"\] true true$/,
	'--format=json: the plan as JSON, tables in file order and steps, equal to exwiw_plan\'s rows (EXCEPT both ways)'
) or diag("$err\n" . substr($json, 0, 600));

my $json2 = run_ok([ @explain, '--format=json', '--verbose' ], 'explain --format=json --verbose');
($rc, $got, $err) = psql_stdin(
	q{SELECT bool_and(t->>'plan' LIKE '%Scan%') FROM jsonb_array_elements(:'plan'::jsonb->'tables') t;},
	'-At', '-v', "plan=$json2");
is($got, "t\n", '--format=json --verbose: each table\'s EXPLAIN plan in "plan"')
  or diag("$err\n" . substr($json2, 0, 600));

# --exact: each file's rows counted on the export's snapshot, equal to the
# rows the export writes, table by table (the estimates are not)
my $exact = run_ok([ @explain, '--exact', '--format=json' ], 'explain --exact --format=json');
my %exact_rows = map { ($_->{file} => $_->{rows}) } @{ JSON::PP->new->decode($exact)->{tables} };
run_ok([ 'exwiw', '--target-table=shops', '--ids=1', "--schema-dir=$work/schema", '--allow-undecided', '-o', "$work/exact" ],
	'the export --exact counts for');
my $m = JSON::PP->new->decode(slurp("$work/exact/manifest.json"));
my @differ = grep {
	my $f = $_;
	$f->{name} =~ /^insert-/ && defined $f->{rows} && $f->{rows} > 0
	  && ($exact_rows{ $f->{name} } // -1) != $f->{rows}
} @{ $m->{files} };
is("@{[ map { $_->{name} } @differ ]}", '',
	'explain --exact: every file\'s rows, as the export writes them (manifest.json)');
ok(scalar(keys %exact_rows) >= 3, 'explain --exact: a count per file with rows')
  or diag($exact);
my $exact_text = run_ok([ @explain, '--exact' ], 'explain --exact');
like($exact_text, qr/^\[\d+\/9\] orders -> insert-\d+-orders\.sql  [0-9,]+ rows  rule/m,
	'explain --exact: the rows without "~"');

expect_error($work, '--format=yaml', q{invalid explain format 'yaml'},
	@explain, '--format=yaml');
expect_error(
	$work, '--format outside explain',
	q{--format applies to the explain and dump subcommands only},
	'exwiw', '--target-table=shops', '--ids=1', "--schema-dir=$work/schema",
	'--format=json', '-o', "$work/never");

chdir $FindBin::RealBin . '/..';
done_testing();
