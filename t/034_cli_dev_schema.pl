# t/034_cli_dev_schema.pl: --with-schema writes a schema file for a
# development database, not a copy of production's server (issue 35).
#
# Production has exwiw, pg_stat_statements, btree_gist (no table uses it),
# pg_trgm (an index uses its operator class), pg_cron where the server has
# it (its schema "cron" is one that the exporter may not read), and a
# schema "tooling" that the exporter may not read either.  An exporter who
# is no superuser exports with --with-schema --exclude-schema=tooling:
# pg_dump succeeds; insert-000-schema.sql creates pg_trgm and none of the
# others, and says which it left out; it and the data load into an empty
# database as its owner, who is no superuser, with no warning; the rows
# equal production's.  Rails's ar_internal_metadata says development
# (--rails-env sets another value).  --exclude-schema without --with-schema
# is refused.
use strict;
use warnings FATAL => 'all';

use Cwd qw(abs_path);
use FindBin;
use lib $FindBin::RealBin;
use ExwiwCli;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my ($prc, $pkglibdir) = run_cmd([ 'pg_config', '--pkglibdir' ]);
chomp $pkglibdir;
my $cron = -f "$pkglibdir/pg_cron.so";
my $node = cli_node('devschema',
	$cron ? ("shared_preload_libraries = 'pg_cron'", "cron.database_name = 'src'") : ());
diag('pg_cron is not installed for this server: its part is skipped') unless $cron;
my $work = abs_path(cli_work());

my %avail = map { $_ => 1 } split /\n/,
  $node->safe_psql('postgres', 'SELECT name FROM pg_available_extensions');
my @extensions = grep { $avail{$_} } qw(pg_stat_statements btree_gist pg_trgm);
push @extensions, 'pg_cron' if $cron;

$node->safe_psql('postgres', q{
CREATE DATABASE src;
CREATE ROLE exporter LOGIN;
CREATE ROLE owner LOGIN;
CREATE DATABASE dev OWNER owner;
CREATE DATABASE dev2 OWNER owner;
});
$node->safe_psql('src', join('', map { "CREATE EXTENSION \"$_\";\n" } 'exwiw', @extensions) . q{
CREATE SCHEMA tooling;
CREATE TABLE tooling.junk (x int);
CREATE TABLE shops (id int PRIMARY KEY, name text NOT NULL);
CREATE TABLE users (id int PRIMARY KEY, shop_id int NOT NULL REFERENCES shops, name text);
CREATE INDEX ON users (shop_id);
CREATE TABLE ar_internal_metadata (key character varying NOT NULL PRIMARY KEY, value character varying,
	created_at timestamp(6) NOT NULL, updated_at timestamp(6) NOT NULL);
INSERT INTO shops VALUES (1, 'one'), (2, 'two');
INSERT INTO users VALUES (1, 1, 'ann'), (2, 2, 'bob'), (3, 1, 'cy');
INSERT INTO ar_internal_metadata VALUES ('environment', 'production', '2026-01-01', '2026-01-01'),
	('schema_sha1', 'abc', '2026-01-01', '2026-01-01');
GRANT SELECT ON ALL TABLES IN SCHEMA public TO exporter;
});
$node->safe_psql('src', 'CREATE INDEX ON users USING gin (name gin_trgm_ops)') if $avail{pg_trgm};

run_ok([ 'exwiw', 'schema', 'generate', '--from-db', '--dbname=src', "--schema-dir=$work/schema" ],
	'schema generate');

my ($rc, $out, $err) = run_cmd(
	[
		'exwiw', '-d', 'src', '-U', 'exporter', '--target-table=shops', '--ids=1',
		"--schema-dir=$work/schema", '-o', "$work/d", '--with-schema', '-q'
	]);
isnt($rc, 0, 'without --exclude-schema, pg_dump fails on the schema the exporter may not read');
like($err, qr/permission denied for schema tooling/, 'and says which') or diag($err);

($rc, $out, $err) = run_cmd(
	[
		'exwiw', '-d', 'src', '-U', 'exporter', '--target-table=shops', '--ids=1',
		"--schema-dir=$work/schema", '-o', "$work/d", '--with-schema', '--exclude-schema=tooling', '-q'
	]);
is($rc, 0, 'an exporter who is no superuser, --with-schema --exclude-schema=tooling') or diag($err);
my $ddl = slurp("$work/d/insert-000-schema.sql");
my @left = sort('exwiw', grep { $_ ne 'pg_trgm' } @extensions);
like($ddl, qr/^-- Left out: the extensions that no object of this schema needs \(server tooling\): \Q@{[join(', ', @left)]}\E\.$/m,
	"the file says what it left out: @left") or diag(substr($ddl, 0, 300));
for my $e (@left)
{
	unlike($ddl, qr/CREATE EXTENSION[^;]*\b\Q$e\E\b/, "no CREATE EXTENSION $e");
}
like($ddl, qr/CREATE EXTENSION IF NOT EXISTS pg_trgm/, 'CREATE EXTENSION pg_trgm: an index uses it')
  if $avail{pg_trgm};
unlike($ddl, qr/\btooling\.|\bcron\./, 'neither tooling nor cron is in it');

($rc, $out, $err) = run_cmd([ 'exwiw', 'load', "$work/d", '-U', 'owner', '-d', 'dev' ]);
is($rc, 0, 'the schema file and the data load into an empty database as its owner, who is no superuser')
  or diag($err);
unlike($err, qr/warning/i, 'with no warning') or diag($err);
is($node->safe_psql('dev', 'SELECT string_agg(extname, \',\' ORDER BY extname) FROM pg_extension'),
	$avail{pg_trgm} ? 'pg_trgm,plpgsql' : 'plpgsql', 'the development database has the extensions it needs, no other');
is($node->safe_psql('dev', 'SELECT string_agg(id || \':\' || shop_id, \',\' ORDER BY id) FROM users'), '1:1,3:1',
	"the tenant's rows");
is($node->safe_psql('dev', "SELECT value FROM ar_internal_metadata WHERE key = 'environment'"),
	'development', 'ar_internal_metadata says development');
is($node->safe_psql('dev', "SELECT value FROM ar_internal_metadata WHERE key = 'schema_sha1'"),
	'abc', 'its other rows are production\'s');

($rc, $out, $err) = run_cmd(
	[
		'exwiw', '-d', 'src', '--target-table=shops', '--ids=1', "--schema-dir=$work/schema",
		'-o', "$work/d2", '--rails-env=staging', '-q'
	]);
is($rc, 0, '--rails-env=staging') or diag($err);
like(slurp("$work/d2/" . (grep { /ar_internal_metadata/ } dir_entries("$work/d2"))[0]),
	qr/\('environment', 'staging', /, 'writes staging');

expect_error($work, '--exclude-schema without --with-schema',
	qr/--exclude-schema applies to --with-schema only/,
	'exwiw', '-d', 'src', '--target-table=shops', '--ids=1', "--schema-dir=$work/schema",
	'-o', "$work/d3", '--exclude-schema=tooling');

done_testing();
