# t/032_subset_prefetch.pl: a subset export reads ahead the pages of its
# index probes (src/dump/prefetch.c) when its index pages are not in
# shared buffers, and writes the same bytes whether it does or not.
#
# A schema of shapes the read-ahead must handle or leave alone, several
# tenants of generated rows: orders by tenant (a constant list of keys);
# items by order (a row set's keys, a btree with posting lists, one order
# whose items fill more leaves than one key's walk goes); a hash-partitioned
# table with its keys and a composite index on the partitions (an Append of
# probes); text keys in the "C" collation and a descending index; a NULL
# key in a set; a foreign key from int4 to bigint (a key of another type
# than the index's: not read ahead); a table hash-partitioned by the probed
# column (pruned per key: not read ahead); a composite foreign key led by
# the tenant's column (the key is both columns).  Each export runs on a server just
# restarted (shared buffers empty), with exwiw.io_concurrency 0 and 16:
#  - the files are the same, byte for byte, and hold the tenants' rows;
#  - with 16 the server says what it read ahead (DEBUG1): the leaf and heap
#    pages of the items' probe, a probe per partition, the text keys, and
#    nothing for the int4 column nor for the file of code_uses, which reads
#    its rows back by ctid; with 0, nothing;
#  - run again on a warm server, each probe stops after 64 keys whose
#    leaves were all in shared buffers, having read nothing ahead.
use strict;
use warnings FATAL => 'all';

use FindBin;
use lib $FindBin::RealBin;
use ExwiwCli;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = cli_node('prefetch', 'shared_buffers = 128MB');
$node->safe_psql('postgres', 'CREATE EXTENSION exwiw');
$node->safe_psql(
	'postgres', q{
CREATE SCHEMA p;
SET search_path = p;
CREATE TABLE tenants (id bigint PRIMARY KEY, name text NOT NULL);
CREATE TABLE orders (id bigint PRIMARY KEY,
	tenant_id bigint NOT NULL REFERENCES tenants, note text);
CREATE INDEX ON orders (tenant_id);
CREATE TABLE items (id bigint PRIMARY KEY,
	order_id bigint NOT NULL REFERENCES orders, qty int NOT NULL, pad text);
CREATE INDEX ON items (order_id);
CREATE TABLE events (id bigint, order_id bigint NOT NULL REFERENCES orders,
	kind text NOT NULL, PRIMARY KEY (id, order_id)) PARTITION BY HASH (id);
CREATE TABLE events_0 PARTITION OF events FOR VALUES WITH (MODULUS 3, REMAINDER 0);
CREATE TABLE events_1 PARTITION OF events FOR VALUES WITH (MODULUS 3, REMAINDER 1);
CREATE TABLE events_2 PARTITION OF events FOR VALUES WITH (MODULUS 3, REMAINDER 2);
CREATE INDEX ON events (order_id, kind);
-- partitioned by the probed column: each key's partition is pruned to
CREATE TABLE marks (id bigint, order_id bigint NOT NULL REFERENCES orders,
	PRIMARY KEY (id, order_id)) PARTITION BY HASH (order_id);
CREATE TABLE marks_0 PARTITION OF marks FOR VALUES WITH (MODULUS 4, REMAINDER 0);
CREATE TABLE marks_1 PARTITION OF marks FOR VALUES WITH (MODULUS 4, REMAINDER 1);
CREATE TABLE marks_2 PARTITION OF marks FOR VALUES WITH (MODULUS 4, REMAINDER 2);
CREATE TABLE marks_3 PARTITION OF marks FOR VALUES WITH (MODULUS 4, REMAINDER 3);
CREATE INDEX ON marks (order_id);
-- a composite foreign key led by the tenant's column
CREATE TABLE torders (tenant_id bigint NOT NULL REFERENCES tenants, id int NOT NULL,
	PRIMARY KEY (tenant_id, id));
CREATE TABLE titems (tenant_id bigint NOT NULL, id int NOT NULL, order_id int NOT NULL,
	PRIMARY KEY (tenant_id, id),
	FOREIGN KEY (tenant_id, order_id) REFERENCES torders (tenant_id, id));
CREATE INDEX ON titems (tenant_id, order_id);
CREATE TABLE codes (code text COLLATE "C" PRIMARY KEY, label text NOT NULL);
CREATE TABLE code_uses (id bigint PRIMARY KEY,
	order_id bigint NOT NULL REFERENCES orders,
	code text COLLATE "C" REFERENCES codes);
CREATE INDEX ON code_uses (order_id DESC);
CREATE TABLE legacy (id bigint PRIMARY KEY,
	order_ref int4 NOT NULL REFERENCES orders (id), v text);
CREATE INDEX ON legacy (order_ref);

INSERT INTO tenants SELECT t, 'tenant ' || t FROM generate_series(1, 100) t;
-- 200 orders a tenant, interleaved: a tenant's orders are every 100th row
INSERT INTO orders SELECT o, 1 + o % 100, 'order ' || o FROM generate_series(1, 20000) o;
INSERT INTO items SELECT i, 1 + (i - 1) / 10, i % 7, repeat('x', 40) FROM generate_series(1, 200000) i;
-- order 3 (tenant 4) has 3,000 more items: its key fills many leaves
INSERT INTO items SELECT 200000 + i, 3, 1, repeat('y', 40) FROM generate_series(1, 3000) i;
INSERT INTO events SELECT e, 1 + (e * 7) % 20000, 'kind ' || e % 5 FROM generate_series(1, 60000) e;
INSERT INTO codes SELECT 'code-' || lpad(c::text, 6, '0'), 'label ' || c FROM generate_series(1, 20000) c;
INSERT INTO code_uses SELECT u, 1 + (u * 13) % 20000,
	CASE WHEN u % 97 = 0 THEN NULL ELSE 'code-' || lpad((1 + (u * 31) % 20000)::text, 6, '0') END
	FROM generate_series(1, 40000) u;
INSERT INTO marks SELECT m, 1 + (m * 17) % 20000 FROM generate_series(1, 40000) m;
INSERT INTO torders SELECT 1 + o % 100, o FROM generate_series(1, 20000) o;
INSERT INTO titems SELECT 1 + (i / 3) % 100, i, i / 3 FROM generate_series(3, 60002) i;
INSERT INTO legacy SELECT l, 1 + (l * 11) % 20000, 'v' || l FROM generate_series(1, 40000) l;
VACUUM ANALYZE;
});

# the tenants' export as psql prints it (file name, chunk), with its
# messages; after a restart when $cold.  The planner is steered to nested
# loops and index scans (small tables would be hashed), so that every
# shape above is probed.
sub export
{
	my ($io, $cold) = @_;
	$node->restart if $cold;
	my ($ret, $out, $err) = $node->psql(
		'postgres', qq{
SET search_path = p, public;
SET exwiw.io_concurrency = $io;
SET client_min_messages = debug1;
-- every join a nested loop over the set, probing an index
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_seqscan = off;
SELECT (e).file_name, (e).chunk FROM (SELECT exwiw_export('tenants', '{1,4}',
	allow_undecided => true) AS e) s;
});
	is($ret, 0, "export with exwiw.io_concurrency = $io" . ($cold ? ', cold' : ', warm'))
	  or diag($err);
	return ($out, $err);
}

# the read-ahead lines: index => [keys, leaves, heap pages, key columns], of the line
# with the most leaves where several queries probe one index
sub read_ahead
{
	my ($err) = @_;
	my %r;
	while ($err =~ /read ahead for (\d+) keys of (\d+) columns: (\d+) leaf pages of index "([^"]+)", (\d+) heap pages/g)
	{
		$r{$4} = [ $1, $3, $5, $2 ] if !defined $r{$4} || $r{$4}[1] < $3;
	}
	return \%r;
}

my ($off, $off_err) = export(0, 1);
my ($on, $on_err) = export(16, 1);
ok(length($off) > 100000, 'the export holds the tenants\' rows');
ok($off =~ /^insert-\d+-items\.sql\|/m && $off =~ /^insert-\d+-events\.sql\|/m,
	'it has files of items and of events');
ok($off eq $on, 'exwiw.io_concurrency = 16: the same bytes as 0, cold');
is_deeply(read_ahead($off_err), {}, 'exwiw.io_concurrency = 0: nothing read ahead');

my $r = read_ahead($on_err);
note(join("\n", map { "$_: @{$r->{$_}}" } sort keys %$r));
ok(defined $r->{items_order_id_idx}, 'the items\' probe by order is read ahead');
SKIP:
{
	skip 'no read-ahead of items_order_id_idx', 3 unless defined $r->{items_order_id_idx};
	my ($keys, $leaves, $heap) = @{ $r->{items_order_id_idx} };
	is($keys, 400, 'for the 400 orders of tenants 1 and 4');
	ok($leaves > 0, "its leaf pages ($leaves)");
	ok($heap >= 400 * 10, "and the heap pages of each order's items ($heap)");
}
ok(defined $r->{orders_tenant_id_idx}, 'a constant list of keys (the tenants), read ahead');
ok(!defined $r->{code_uses_pkey},
	'a file joined to the set of its rows reads them by ctid: no key probed');
ok((grep { /^events_\d_order_id_kind_idx$/ } keys %$r) >= 2,
	'the partitions\' probes, each read ahead');
ok(defined $r->{codes_pkey} && $r->{codes_pkey}[1] > 0,
	'text keys in the "C" collation, read ahead');
ok(!defined $r->{legacy_order_ref_idx},
	'an int4 column probed with bigint keys: not read ahead');
ok(!grep({ /^marks_\d_order_id_idx$/ } keys %$r),
	'partitions pruned per key: not read ahead');
ok(defined $r->{titems_tenant_id_order_id_idx},
	'a composite foreign key: read ahead');
SKIP:
{
	skip 'no read-ahead of titems_tenant_id_order_id_idx', 2
	  unless defined $r->{titems_tenant_id_order_id_idx};
	my ($keys, $leaves, $heap, $cols) = @{ $r->{titems_tenant_id_order_id_idx} };
	is($cols, 2, 'by both columns of the key');
	ok($heap <= 3 * $keys, "the heap pages of each order's 3 items, no more ($heap for $keys keys)");
}

my ($warm, $warm_err) = export(16, 0);
ok($warm eq $off, 'warm: the same bytes');
my $w = read_ahead($warm_err);
ok(scalar(keys %$w) > 0, 'warm: the probes are looked at');
is_deeply([ grep { $w->{$_}[1] != 0 || $w->{$_}[2] != 0 || $w->{$_}[0] > 64 } sort keys %$w ],
	[], 'warm: no probe reads ahead, none goes past 64 keys');

# a cancel is honoured during the read-ahead: a timeout shorter than the
# export, on a cold server, ends it with the timeout's error
$node->restart;
{
	my ($ret, $out, $err) = $node->psql(
		'postgres', q{
SET search_path = p, public;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_seqscan = off;
SET statement_timeout = '1ms';
SELECT count(*) FROM (SELECT exwiw_export('tenants', '{1,4}', allow_undecided => true) AS e) s;
});
	like($err, qr/canceling statement due to statement timeout/,
		'statement_timeout: the export is canceled');
}

$node->stop;
# the node's own log: an assertion of a cassert build, a crash
unlike(slurp_file($node->logfile), qr/^TRAP: |terminated by signal/m,
	'the server log: no assertion failure, no crash');
done_testing();
