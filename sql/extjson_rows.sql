-- Extended JSON: typed rows (spec "Typed columns" table)
CREATE TYPE extjson_pt AS (x int, label text, at date);
CREATE DOMAIN extjson_posint AS int CHECK (VALUE > 0);
CREATE TABLE extjson_t (
  _id name, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8, n numeric, b bool,
  t text, vc varchar(10), bp char(4), ts timestamptz, tsn timestamp, d date,
  by bytea, u uuid, j json, jb jsonb, ia int[], m int[][], ta text[], pt extjson_pt,
  dom extjson_posint, iv interval, ip inet, owner text);
INSERT INTO extjson_t VALUES (
  '5f2a1b3c4d5e6f7a8b9c0d1e', -1, 2, 9223372036854775807, 0.5, 1e16, 1.50, true,
  'text', 'vc', 'ab', '2014-12-12 07:12:10.5+00', '1960-01-01 00:00:00', '2014-12-12',
  '\xdeadbeef', '00112233-4455-6677-8899-aabbccddeeff',
  '{"b":1,"a":{"$date":1418368330000}}', '{"$oid":"5f2a1b3c4d5e6f7a8b9c0d1f"}',
  '{1,NULL,3}', '{{1,2},{3,4}}', '{}', ROW(1, 'p', '2000-01-01'),
  7, '1 day 02:00', '10.0.0.1/8', '5F2A1B3C4D5E6F7A8B9C0D20');
INSERT INTO extjson_t (_id, t) VALUES ('not-an-oid', NULL);
SET TimeZone = 'Asia/Tokyo';
SELECT exwiw_ext_json(r) FROM extjson_t r ORDER BY i2;
-- oid_columns makes a text column an ObjectId; omit_nulls leaves NULLs out
SELECT exwiw_ext_json(r, oid_columns => '{owner}', omit_nulls => true) FROM extjson_t r WHERE i2 = -1;
SELECT exwiw_ext_json(r, omit_nulls => true) FROM extjson_t r WHERE i2 IS NULL;
SELECT exwiw_ext_json(t, omit_nulls => false) FROM (SELECT 1 AS a, NULL::text AS b) t;
-- oid_columns applies to the elements of a text array too
SELECT exwiw_ext_json(t, oid_columns => '{refs}') FROM (SELECT ARRAY['5F2A1B3C4D5E6F7A8B9C0D1E', NULL] AS refs) t;
-- name that is not 24 hex digits stays a String
SELECT exwiw_ext_json(ROW('abc'::name, '5f2a1b3c4d5e6f7a8b9c0d1'::name));
-- anonymous records and nested composites
SELECT exwiw_ext_json(ROW(1, ROW(2, ARRAY[ROW(3)])));
-- arrays of special types
SELECT exwiw_ext_json(t) FROM (SELECT ARRAY['2020-01-01'::date, NULL] AS ds,
  ARRAY['\x01'::bytea] AS bs, ARRAY[1.5::numeric] AS ns, ARRAY['{"$numberLong":"3"}'::jsonb] AS js) t;
-- a NULL row gives NULL
SELECT exwiw_ext_json(NULL::extjson_t) IS NULL AS is_null;
RESET TimeZone;
-- records inside records, and arrays of records, of different shapes: each
-- row type keeps its own layout (no field is lost or misread)
SELECT exwiw_dump_jsonl($$SELECT row(1, row('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h')) AS r$$);
SELECT exwiw_ext_json(row(0, row(1, row('a', 'b', 'c'), 9)));
SELECT exwiw_dump_jsonl($$SELECT row(1, array[row('a', 'b', 'c')], 7, 8) AS r$$);
SELECT exwiw_dump_jsonl($$SELECT row(1, array[row('a', 2), row('b', 3)], 3) AS r$$);
SELECT exwiw_dump_jsonl($$SELECT row(row(1, 'a'), 'x'::text, 5) AS r, row('z', row(true, 2.5)) AS s$$);
