# t/035_cli_gem_habits.pl: the Ruby client's habits that the exwiw client
# keeps (issue 38, item 7).
#
# - Tables whose names hold a "." or odd characters (a quote, a space,
#   upper case): exwiw schema generate writes their names so that the
#   server reads them back, the export writes them quoted, and exwiw load
#   finds them; the tenant's rows, loaded as a role that owns nothing with
#   every foreign key enforced, equal production's (EXCEPT both ways).
# - --all-tables, the newest Ruby client's export without a target: every
#   table, masked, in foreign-key order, with manifest.json; no masked
#   value in the files; loaded into an empty database as that role, every
#   table equals production's on its unmasked columns.
use strict;
use warnings FATAL => 'all';

use FindBin;
use lib $FindBin::RealBin;
use ExwiwCli;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = cli_node('gem');
my $work = cli_work();

write_file(
	"$work/fixture.sql", q{
CREATE SCHEMA odd;
SET search_path = odd;
CREATE TABLE accounts (id int PRIMARY KEY, name text NOT NULL);
CREATE TABLE "audit.log" (id int PRIMARY KEY, account_id int NOT NULL REFERENCES accounts, msg text);
CREATE TABLE "We""ird Name" (id int PRIMARY KEY, "audit id" int NOT NULL REFERENCES "audit.log",
	email text, "Note" text);
INSERT INTO accounts VALUES (1, 'one'), (2, 'two');
INSERT INTO "audit.log" VALUES (10, 1, 'a.b'), (11, 1, 'x"y'), (20, 2, 'other');
INSERT INTO "We""ird Name" VALUES (100, 10, 'alice@hidden.test', 'n1'),
	(101, 11, 'bob@hidden.test', NULL), (200, 20, 'carol@hidden.test', 'n3');
});
make_databases($node, 'gem', "$work/fixture.sql");
$ENV{PGDATABASE} = 'gem_src';
$ENV{PGOPTIONS} = '-c search_path=odd,public -c client_min_messages=warning';
run_ok(
	[
		'pg_dump', '--schema-only', '-n', 'odd', '-d', 'gem_src',
		'-f', "$work/schema.sql"
	],
	'pg_dump --schema-only of the source');

# 1. schema generate: the names as the server reads them back
run_ok([ 'exwiw', 'schema', 'generate', '--from-db', "--schema-dir=$work/schema" ],
	'schema generate');
is(join(' ', dir_entries("$work/schema")),
	'"audit.log".json We"ird Name.json accounts.json',
	'schema generate: one file per table, named by its config name');
like(slurp("$work/schema/\"audit.log\".json"), qr/"name": "\\"audit\.log\\""/,
	'the table named audit.log is "\"audit.log\"" (quoted: it holds a dot)');
like(slurp("$work/schema/We\"ird Name.json"), qr/"name": "We\\"ird Name"/,
	'a name with a quote, a space and upper case is written as it is');
like(slurp("$work/schema/We\"ird Name.json"), qr/"table_name": "\\"audit\.log\\""/,
	'its belongs_to names the dotted table the same way');
my ($rc, $out, $err) =
  run_cmd([ 'exwiw', 'schema', 'check', '--from-db', "--schema-dir=$work/schema" ]);
is($rc, 0, 'schema check: the generated names read back to their tables')
  or diag($out . $err);

# copy_back(DB, SCHEMA): DB's odd tables into schema SCHEMA of gem_src
sub copy_back
{
	my ($db, $schema) = @_;
	my @t = ('accounts', '"audit.log"', '"We""ird Name"');
	$node->safe_psql('gem_src',
		"DROP SCHEMA IF EXISTS $schema CASCADE; CREATE SCHEMA $schema; "
		  . join(' ', map { "CREATE TABLE $schema.$_ (LIKE odd.$_);" } @t));
	for my $t (@t)
	{
		my $data = $node->safe_psql($db, "COPY odd.$t TO STDOUT");
		$data .= "\n" if $data ne '';
		my ($r, $o, $e) = run_cmd(
			[
				'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', 'gem_src',
				'-c', "COPY $schema.$t FROM STDIN"
			],
			stdin => $data);
		die "copying $t back failed: $e" if $r != 0;
	}
	return;
}

# differ(SQL-A, SQL-B): rows in one and not the other, both ways
sub differ
{
	my ($a, $b) = @_;
	return $node->safe_psql('gem_src',
		"SELECT count(*) FROM (($a EXCEPT ALL $b) UNION ALL ($b EXCEPT ALL $a)) d");
}

# 2. the tenant's export, loaded by exwiw load as a role that owns nothing
run_ok(
	[
		'exwiw', "--schema-dir=$work/schema", '--target-table=accounts', '--ids=1',
		'--allow-undecided', '-q', '-o', "$work/one"
	],
	'export of account 1');
ok(-f "$work/one/insert-002-\"audit.log\".sql" && -f "$work/one/insert-003-We\"ird Name.sql",
	'the files are named by the config names')
  or diag(join(' ', dir_entries("$work/one")));
like(slurp("$work/one/insert-002-\"audit.log\".sql"), qr/^INSERT INTO "audit\.log" \(/m,
	'the insert file writes the dotted name as one quoted identifier');
fresh_dst($node, "$work/schema.sql", 'gem', 'odd', 0);
($rc, $out, $err) = run_cmd([ 'exwiw', 'load', "$work/one", '-U', 'gem_loader', '-d', 'gem_dst' ]);
is($rc, 0, 'exwiw load of account 1 as gem_loader (no owner, every key checked)')
  or diag($out . $err);
copy_back('gem_dst', 'got1');
is(differ('SELECT id FROM odd.accounts WHERE id = 1', 'SELECT id FROM got1.accounts'),
	0, 'accounts: the loaded rows are account 1\'s (EXCEPT both ways; name is masked)');
is(differ('SELECT * FROM odd."audit.log" WHERE account_id = 1', 'TABLE got1."audit.log"'),
	0, 'audit.log: the loaded rows are account 1\'s (EXCEPT both ways)');
is( differ(
		'SELECT id, "audit id", "Note" FROM odd."We""ird Name" WHERE "audit id" IN (10, 11)',
		'SELECT id, "audit id", "Note" FROM got1."We""ird Name"'),
	0,
	'We"ird Name: the loaded rows are account 1\'s on the unmasked columns (EXCEPT both ways)');

# 3. --all-tables: every table, masked, loaded into an empty database
run_ok(
	[
		'exwiw', "--schema-dir=$work/schema", '--all-tables', '--allow-undecided',
		'-q', '-o', "$work/all"
	],
	'export --all-tables');
is(join(' ', grep { /^insert-/ } dir_entries("$work/all")),
	'insert-001-accounts.sql insert-002-"audit.log".sql insert-003-We"ird Name.sql',
	'--all-tables: one file per table, parents first');
ok(-f "$work/all/manifest.json", '--all-tables: manifest.json');
my $leaks = join('', map { slurp("$work/all/$_") } dir_entries("$work/all"));
unlike($leaks, qr/hidden\.test/, '--all-tables: no masked value in the files');
expect_error(
	$work, '--all-tables with a target',
	'--all-tables cannot be combined with --target-table, --ids or --scope-column',
	'exwiw', "--schema-dir=$work/schema", '--all-tables', '--target-table=accounts',
	'--ids=1', '-o', "$work/nope");
fresh_dst($node, "$work/schema.sql", 'gem', 'odd', 0);
($rc, $out, $err) = run_cmd([ 'exwiw', 'load', "$work/all", '-U', 'gem_loader', '-d', 'gem_dst' ]);
is($rc, 0, 'exwiw load of --all-tables as gem_loader') or diag($out . $err);
copy_back('gem_dst', 'got_all');
is(differ('SELECT id FROM odd.accounts', 'SELECT id FROM got_all.accounts'),
	0, '--all-tables: accounts equal on the unmasked columns (EXCEPT both ways)');
is($node->safe_psql('gem_src', 'SELECT count(*) FROM got_all.accounts a JOIN odd.accounts o USING (id) WHERE a.name = o.name'),
	0, '--all-tables: the loaded names are masked');
is(differ('TABLE odd."audit.log"', 'TABLE got_all."audit.log"'),
	0, '--all-tables: audit.log equal (EXCEPT both ways)');
is( differ(
		'SELECT id, "audit id", "Note" FROM odd."We""ird Name"',
		'SELECT id, "audit id", "Note" FROM got_all."We""ird Name"'),
	0,
	'--all-tables: We"ird Name equal on the unmasked columns (EXCEPT both ways)');
is($node->safe_psql('gem_src', 'SELECT count(*) FROM got_all."We""ird Name" WHERE email LIKE \'%hidden.test\''),
	0, '--all-tables: the loaded emails are masked');

done_testing();
