# t/018_cli_schema.pl: exwiw schema generate | check | tidy --from-db.
#
# - generate writes one file per table in the Ruby client's layout and
#   JSON style (JSON.pretty_generate, keys in its order);
# - check on a fresh config: exit 0, every list empty, the report also in
#   $EXWIW_SCHEMA_CHECK_OUTPUT;
# - a column added to a table: check exits 1 and lists it (added_columns,
#   changed_tables), --fail-on=stale exits 0 with its message; the export
#   does not write the column; generate adds it marked
#   "needs_mask_decision": true (masks already decided stay), so the export
#   refuses it until decided; EXWIW_NEW_COLUMNS=plain does not mark it;
# - a new table and a new foreign key: added_tables, added_columns,
#   added_belongs_tos;
# - a dropped column and a dropped table: removed_*, stale_* and exit 1
#   even with --fail-on=stale; tidy removes them (and the table's file);
# - a polymorphic type value that maps to no table (a model with its own
#   self.table_name): generate writes the arm "needs_table_decision", check
#   lists it and exits 1, the export refuses it together with the table
#   that may hold its rows, in one message; once the arm names the table,
#   generate keeps it, check is clean and the export writes that tenant's
#   rows of the table only;
# - --schema-dir FILE.json: the one-file form.
use strict;
use warnings FATAL => 'all';

use File::Copy qw(copy);
use FindBin;
use lib $FindBin::RealBin;
use ExwiwCli;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# edit_file(FILE, CODE): rewrite FILE with CODE applied to its text ($_),
# as sed -i does.
sub edit_file
{
	my ($file, $code) = @_;
	local $_ = slurp($file);
	$code->();
	open(my $fh, '>:raw', $file) or die "could not open $file: $!";
	print $fh $_;
	close $fh;
	return;
}

# grep_after(TEXT, RE, N): the lines of TEXT that match RE, each with the N
# lines after it, as grep -A N prints them.
sub grep_after
{
	my ($text, $re, $n) = @_;
	my @l = split /\n/, $text;
	my %take;
	for my $i (grep { $l[$_] =~ $re } 0 .. $#l)
	{
		$take{$_} = 1 for $i .. ($i + $n > $#l ? $#l : $i + $n);
	}
	return join('', map { "$l[$_]\n" } sort { $a <=> $b } keys %take);
}

# copy_dir(FROM, TO): cp -r of a directory of files (a schema dir).
sub copy_dir
{
	my ($from, $to) = @_;
	mkdir $to or die "could not create $to: $!";
	for my $f (dir_entries($from))
	{
		die "copy_dir: $from/$f is not a file" unless -f "$from/$f";
		copy("$from/$f", "$to/$f") or die "could not copy $from/$f: $!";
	}
	return;
}

# without the trailing newlines, as $(...) gives a command's output
sub trimmed { return $_[0] =~ s/\n+\z//r; }

my $node = cli_node('schema');
my $work = cli_work();

$node->safe_psql('postgres', 'CREATE DATABASE cli_schema');
load_fixture('cli_schema');
shop_env('cli_schema');
my $sd = "$work/schema";
my @export = ('exwiw', '--target-table=shops', '--ids=1', "--schema-dir=$sd");

my $out = run_ok([ 'exwiw', 'schema', 'generate', '--from-db', "--schema-dir=$sd" ],
	'schema generate');
is( trimmed($out),
	"exwiw: wrote the schema config for cli_schema to $sd.",
	'generate: what it says');
is( join(' ', dir_entries($sd)),
	'announcements.json categories.json order_items.json order_tags.json orders.json products.json shops.json transactions.json users.json',
	'generate: one file per table');

my $want_orders = <<'JSON';
{
  "name": "orders",
  "primary_key": "id",
  "belongs_tos": [
    {
      "foreign_key": "shop_id",
      "table_name": "shops"
    },
    {
      "foreign_key": "user_id",
      "table_name": "users"
    }
  ],
  "columns": [
    {
      "name": "id"
    },
    {
      "name": "shop_id"
    },
    {
      "name": "user_id"
    },
    {
      "name": "ordered_at"
    },
    {
      "name": "total"
    }
  ]
}
JSON
is(slurp("$sd/orders.json"), $want_orders,
	'generate: the Ruby client\'s JSON layout and key order (orders.json, byte for byte)');
like(
	slurp("$sd/users.json"),
	qr/"needs_mask_decision": true/,
	'generate: sensitive-looking columns are marked needs_mask_decision');

# decide every mask, as a user would
# (the catalog proposed masked-{id}@example.com; the user picks another)
edit_file("$sd/users.json",
	sub { s/"replace_with": "masked-\{id\}\@example\.com"/"replace_with": "user{id}\@example.com"/g; });
edit_file($_, sub { s/"needs_mask_decision": true/"needs_mask_decision": false/g; })
  for ("$sd/users.json", "$sd/transactions.json");

# check(ARGS...): exwiw schema check with the report also in
# $work/report.json; returns (status, stdout, stderr)
sub check
{
	local $ENV{EXWIW_SCHEMA_CHECK_OUTPUT} = "$work/report.json";
	return run_cmd([ 'exwiw', 'schema', 'check', '--from-db', "--schema-dir=$sd", @_ ]);
}

my ($rc, $stdout, $stderr) = check();
my $empty = '{
  "added_tables": [],
  "added_columns": [],
  "added_belongs_tos": [],
  "removed_tables": [],
  "removed_columns": [],
  "changed_tables": [],
  "needs_mask_decision": [],
  "needs_table_decision": [],
  "proposed_belongs_tos": [],
  "stale_tables": [],
  "stale_columns": []
}';
is($rc, 0, 'check on a fresh config: exit 0') or diag($stderr);
is(trimmed($stdout), $empty, 'check on a fresh config: nothing listed');
ok(-f "$work/report.json" && slurp("$work/report.json") eq $stdout,
	'check: the report in $EXWIW_SCHEMA_CHECK_OUTPUT too, byte for byte')
  or diag(-f "$work/report.json" ? slurp("$work/report.json") : 'no report file');

# a column added after the config was written
# (ssn gets the catalog's default mask; api_key, a uuid, has none and stays
# undecided)
$node->safe_psql(
	'cli_schema', q{
ALTER TABLE shop.users ADD COLUMN ssn text, ADD COLUMN api_key uuid;
UPDATE shop.users SET ssn = 'secret-' || id, api_key = md5(id::text)::uuid;
});
($rc, $stdout, $stderr) = check();
is($rc, 1, 'check: an added column: exit 1') or diag($stderr);
like($stdout, qr/"users\.ssn"/, 'check: the added column is listed') or diag($stdout);
like(
	$stderr,
	qr/exwiw: the schema config is out of date or has undecided masking/,
	'check: says the config is out of date');
($rc, $stdout, $stderr) = check('--fail-on=stale');
is($rc, 0, 'check --fail-on=stale: an added column is drift, not stale (exit 0)')
  or diag($stderr);
like(
	$stderr,
	qr/nothing the extraction reads is stale \(--fail-on=stale\)/,
	'check --fail-on=stale: says nothing is stale');
run_ok([ @export, '-o', "$work/dump1" ], 'export with the added column');
unlike(
	slurp("$work/dump1/insert-005-users.sql"),
	qr/ssn|secret-/,
	'the export does not write a column the config does not list');
run_ok([ 'exwiw', 'schema', 'generate', '--from-db', "--schema-dir=$sd" ],
	'schema generate after the new columns');
my $users = slurp("$sd/users.json");
like(
	grep_after($users, qr/"name": "ssn"/, 3),
	qr/"needs_mask_decision": true/,
	'generate: the new column ssn is marked needs_mask_decision') or diag($users);
like(
	grep_after($users, qr/"name": "ssn"/, 3),
	qr/"replace_with": "masked-\{id\}"/,
	'generate: ssn gets the default mask');
like(
	grep_after($users, qr/"name": "api_key"/, 2),
	qr/"needs_mask_decision": true/,
	'generate: the new column api_key is marked needs_mask_decision');
like(
	$users,
	qr/"replace_with": "user\{id\}\@example\.com"/,
	'generate: the decided masks stay');
($rc, $stdout, $stderr) = run_cmd([ @export, '-o', "$work/dump2" ]);
isnt($rc, 0, 'the export refuses the new column without a mask until someone decides');
like($stderr, qr/Undecided: users.api_key\./, 'the export names the undecided column')
  or diag($stderr);
ok(!-e "$work/dump2", 'the refused export writes nothing');
($rc, $stdout, $stderr) = check();
is($rc, 1, 'check with an undecided column: exit 1') or diag($stderr);
like(
	grep_after($stdout, qr/"needs_mask_decision": \[/, 2),
	qr/"users\.api_key"/,
	'check lists the undecided column') or diag($stdout);
unlike(
	grep_after($stdout, qr/"needs_mask_decision": \[/, 3),
	qr/"users\.ssn"/,
	'check does not list the column masked by default as undecided');
copy_dir($sd, "$work/plain");
$node->safe_psql('cli_schema', 'ALTER TABLE shop.orders ADD COLUMN note text');
{
	local $ENV{EXWIW_NEW_COLUMNS} = 'plain';
	run_ok([ 'exwiw', 'schema', 'generate', '--from-db', "--schema-dir=$work/plain" ],
		'EXWIW_NEW_COLUMNS=plain schema generate');
}
my $plain_orders = slurp("$work/plain/orders.json");
like($plain_orders, qr/"name": "note"/, 'EXWIW_NEW_COLUMNS=plain: the new column is added');
unlike(
	grep_after($plain_orders, qr/"name": "note"/, 2),
	qr/needs_mask_decision/,
	'EXWIW_NEW_COLUMNS=plain: new columns are not marked') or diag($plain_orders);
$node->safe_psql('cli_schema', 'ALTER TABLE shop.orders DROP COLUMN note');
edit_file("$sd/users.json",
	sub { s/"needs_mask_decision": true/"needs_mask_decision": false/g; });
run_ok([ @export, '-o', "$work/dump-decided" ], 'export once decided');
my $dumped = slurp("$work/dump-decided/insert-005-users.sql");
unlike($dumped, qr/secret-/, 'once decided, the new column\'s values do not go out');
like($dumped, qr/'masked-1'/, 'once decided, the new column goes out masked by its default mask');

# a new table with a new foreign key
$node->safe_psql(
	'cli_schema', q{
CREATE TABLE shop.coupons (id serial PRIMARY KEY, shop_id bigint REFERENCES shop.shops, code text);
ALTER TABLE shop.orders ADD COLUMN coupon_id int REFERENCES shop.coupons;
});
($rc, $stdout, $stderr) = check();
is($rc, 1, 'check with a new table: exit 1') or diag($stderr);
like(grep_after($stdout, qr/"added_tables"/, 2),
	qr/"coupons"/, 'check: the new table is listed') or diag($stdout);
like($stdout, qr/"orders\.coupon_id"/, 'check: the new column is listed');
like($stdout, qr/"orders\.coupon_id -> coupons"/, 'check: the new foreign key is listed');
run_ok([ 'exwiw', 'schema', 'generate', '--from-db', "--schema-dir=$sd" ],
	'schema generate with the new table');
ok(-f "$sd/coupons.json", 'generate: the new table\'s file');
like(slurp("$sd/orders.json"), qr/"table_name": "coupons"/, 'generate: the new belongs_to');
like(
	grep_after(-f "$sd/coupons.json" ? slurp("$sd/coupons.json") : '', qr/"name": "code"/, 2),
	qr/"needs_mask_decision": true/,
	'generate: the new table\'s columns are marked');
edit_file("$sd/$_", sub { s/"needs_mask_decision": true/"needs_mask_decision": false/g; })
  for grep { /\.json\z/ } dir_entries($sd);

# dropped columns and tables are stale
$node->safe_psql('cli_schema',
	'ALTER TABLE shop.users DROP COLUMN phone; DROP TABLE shop.announcements');
($rc, $stdout, $stderr) = check('--fail-on=stale');
is($rc, 1, 'check --fail-on=stale: a dropped column and a dropped table are stale (exit 1)')
  or diag($stderr);
like($stdout, qr/"users\.phone"/, 'check: the dropped column is listed') or diag($stdout);
like(grep_after($stdout, qr/"stale_tables"/, 2),
	qr/"announcements"/, 'check: the dropped table is stale');
like(
	$stderr,
	qr/exwiw: the config still references announcements, users\.phone/,
	'check: says what the config still references');
$out = run_ok([ 'exwiw', 'schema', 'tidy', '--from-db', "--schema-dir=$sd" ], 'schema tidy');
like($out, qr/removed config for table 'announcements'/, 'tidy says it removed the dropped table');
like($out, qr/removed column\(s\) phone from 'users'/, 'tidy says it removed the dropped column');
ok(!-e "$sd/announcements.json", 'tidy removes the dropped table\'s file');
unlike(slurp("$sd/users.json"), qr/"phone"/, 'tidy removes the dropped column');
($rc, $stdout, $stderr) = check();
is($rc, 0, 'check after generate, decisions and tidy: clean') or diag("$stdout$stderr");
$out = run_ok([ 'exwiw', 'schema', 'tidy', '--from-db', "--schema-dir=$sd" ], 'schema tidy again');
is( trimmed($out),
	'exwiw: schema config is already tidy; nothing to remove.',
	'tidy again: nothing to remove');

# a polymorphic type whose table Rails' naming does not give
$node->safe_psql(
	'cli_schema', q{
CREATE TABLE shop.channel_api (id bigint PRIMARY KEY, hmac_token text);
CREATE TABLE shop.inboxes (id bigint PRIMARY KEY, shop_id bigint NOT NULL REFERENCES shop.shops,
                           channel_type text, channel_id bigint);
INSERT INTO shop.channel_api VALUES (1, 'hmac-of-shop-1'), (2, 'hmac-of-shop-2');
INSERT INTO shop.inboxes VALUES (10, 1, 'Channel::Api', 1), (20, 2, 'Channel::Api', 2);
});
run_ok([ 'exwiw', 'schema', 'generate', '--from-db', "--schema-dir=$sd" ],
	'schema generate with an unmapped polymorphic type');
like(
	grep_after(slurp("$sd/inboxes.json"), qr/"type_value": "Channel::Api"/, 1),
	qr/"needs_table_decision": true/,
	'generate: the arm of the unmapped type waits for a table');
like(slurp("$sd/channel_api.json"), qr/"needs_scope_decision": true/,
	'generate: the table with the class\'s name waits for a decision, not "export": "all"');
($rc, $stdout, $stderr) = check();
is($rc, 1, 'check with an arm waiting for its table: exit 1') or diag($stderr);
like(
	grep_after($stdout, qr/"needs_table_decision": \[/, 2),
	qr/"inboxes\.channel_type = 'Channel::Api'"/,
	'check lists the arm') or diag($stdout);
($rc, $stdout, $stderr) = run_cmd([ @export, '-o', "$work/dump-untyped" ]);
isnt($rc, 0, 'the export refuses the unmapped type');
like(
	$stderr,
	qr/the config needs \d+ decisions.*Tables that need a scope decision: channel_api\..*Polymorphic types that map to no table: inboxes\.channel_type = 'Channel::Api'/s,
	'the export names the table and the arm in one refusal') or diag($stderr);
ok(!-e "$work/dump-untyped", 'the refused export writes nothing');
($rc, $stdout, $stderr) =
  run_cmd([ 'exwiw', 'explain', '--target-table=shops', '--ids=1', "--schema-dir=$sd" ]);
is($rc, 1, 'explain exits 1 where the export would refuse') or diag($stderr);
like($stdout, qr/channel_api -> insert-\d+-channel_api\.sql .* rule: UNDECIDED/,
	'explain: the refused table\'s rule is UNDECIDED') or diag($stdout);
like(
	$stderr,
	qr/the export would refuse: the config needs \d+ decisions.*Tables that need a scope decision \(rule UNDECIDED\): channel_api\..*Polymorphic types that map to no table: inboxes\.channel_type = 'Channel::Api'/s,
	'explain names the same decisions as the export') or diag($stderr);
($rc, $stdout, $stderr) = run_cmd(
	[
		'exwiw', 'explain', '--target-table=shops', '--ids=1', "--schema-dir=$sd",
		'--format=json'
	]);
like($stdout, qr/"polymorphic_types": \[\s*"inboxes\.channel_type = 'Channel::Api'"/,
	'explain --format=json: needs_decision lists the arm') or diag($stdout);
($rc, $stdout, $stderr) = run_cmd(
	[
		'exwiw', 'explain', '--target-table=shops', '--ids=1', "--schema-dir=$sd",
		'--allow-undecided'
	]);
is($rc, 0, 'explain --allow-undecided: exit 0, as the export would run') or diag($stderr);
edit_file("$sd/inboxes.json",
	sub { s/"needs_table_decision": true/"table_name": "channel_api"/; });
edit_file("$sd/channel_api.json",
	sub { s/"needs_mask_decision": true/"needs_mask_decision": false/g; });
run_ok([ 'exwiw', 'schema', 'generate', '--from-db', "--schema-dir=$sd" ],
	'schema generate after the arm was decided');
my $inboxes = slurp("$sd/inboxes.json");
is(scalar(() = $inboxes =~ /"type_value": "Channel::Api"/g),
	1, 'generate keeps the decided arm, once') or diag($inboxes);
like(grep_after($inboxes, qr/"table_name": "channel_api"/, 2),
	qr/"type_value": "Channel::Api"/, 'generate keeps the arm\'s table') or diag($inboxes);
($rc, $stdout, $stderr) = check();
is($rc, 0, 'check once the arm is decided: clean') or diag("$stdout$stderr");
($rc, $stdout, $stderr) =
  run_cmd([ 'exwiw', 'explain', '--target-table=shops', '--ids=1', "--schema-dir=$sd" ]);
is($rc, 0, 'explain once every decision is taken: exit 0') or diag($stderr);
run_ok([ @export, '-o', "$work/dump-typed" ], 'the export once the arm is decided');
my ($chan) = grep { /-channel_api\.sql\z/ } dir_entries("$work/dump-typed");
my $chan_sql = defined $chan ? slurp("$work/dump-typed/$chan") : '';
like($chan_sql, qr/\('1', 'masked-1'\)/, 'the tenant\'s channel row goes out, masked');
unlike($chan_sql, qr/'2'|hmac-of/, 'no other tenant\'s channel row, no original token');

# the one-file form
run_ok([ 'exwiw', 'schema', 'generate', '--from-db', "--schema-dir=$work/one.json" ],
	'schema generate --schema-dir FILE.json');
my $one = -f "$work/one.json" ? slurp("$work/one.json") : '';
like(substr($one, 0, 5), qr/^\[/m, 'generate --schema-dir FILE.json: one file holding the array');
like($one, qr/"name": "coupons"/, 'generate --schema-dir FILE.json: every table in it');
run_ok(
	[
		'exwiw', '--target-table=shops', '--ids=1', "--schema-dir=$work/one.json",
		'--allow-undecided', '-o', "$work/dump3"
	],
	'the export reads the one-file form');
ok((-d "$work/dump3" && grep { /-shops\.sql\z/ } dir_entries("$work/dump3")),
	'the export from the one-file form writes the files');

done_testing();
