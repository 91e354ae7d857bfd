-- Extended JSON: plain values (spec "Values" table and "Output layout")
-- Floats: Ruby's Float#to_s layout
SELECT v, exwiw_ext_json(ROW(v::float8)) FROM (VALUES
  ('1'), ('0.1'), ('-0.0'), ('0'), ('100000000000000'), ('999999999999999.9'),
  ('1e15'), ('1234567890123456'), ('1222222222222222.2'), ('1e16'), ('1e23'),
  ('9007199254740993'), ('0.0001'), ('0.00001'), ('5e-324'), ('1.7976931348623157e308'),
  ('2.5e-5'), ('123.456'), ('NaN'), ('Infinity'), ('-Infinity')) AS t(v);
-- float4 is widened exactly to a double
SELECT exwiw_ext_json(ROW('0.1'::float4)), exwiw_ext_json(ROW('1.5'::float4));
-- Integers: int64 bounds, as bare numbers
SELECT exwiw_ext_json(ROW((-32768)::int2, 2147483647, (-9223372036854775808)::int8, 9223372036854775807::int8));
-- Strings: escapes, control characters, DEL, non-ASCII, U+2028/9, "/"
SELECT exwiw_ext_json(ROW(E'q" b\\ \b \f \n \r \t \x01 \x1f \x7f / é € \u2028 \u2029 😀'));
-- true / false / null
SELECT exwiw_ext_json(ROW(true, false, NULL::int));
-- numeric -> Decimal128, IEEE to-scientific-string
SELECT v, exwiw_ext_json(ROW(v::numeric)) FROM (VALUES
  ('1.50'), ('0.0000001'), ('0.000001'), ('123'), ('-0.00'), ('1000000000000000000000000000000000000'),
  ('1234567890123456789012345678901234'), ('0.1234567890123456789012345678901234'),
  ('NaN'), ('Infinity'), ('-Infinity')) AS t(v);
-- Dates: 1970..9999 as ISO strings, else $numberLong; milliseconds floored
SET TimeZone = 'America/New_York';
SELECT v, exwiw_ext_json(ROW(v::timestamptz)) FROM (VALUES
  ('1970-01-01 00:00:00+00'), ('2014-12-12 07:12:10.123456+00'), ('2014-12-12 07:12:10.0005+00'),
  ('2014-12-12 07:12:10.999999+00'), ('1969-12-31 23:59:59.9995+00'), ('1969-12-31 23:59:59+00'),
  ('9999-12-31 23:59:59.999+00'), ('10000-01-01 00:00:00+00'), ('0001-01-01 00:00:00+00'),
  ('4713-01-01 00:00:00+00 BC'), ('2014-12-12 02:12:10-05')) AS t(v);
-- timestamp without time zone is read as UTC, date as midnight UTC
SELECT exwiw_ext_json(ROW('2014-12-12 07:12:10.5'::timestamp, '2014-12-12'::date, '1900-01-01'::date));
RESET TimeZone;
-- Binary: bytea 00 (base64 with "\n" every 60 characters), uuid 04
SELECT exwiw_ext_json(ROW(''::bytea, '\x00'::bytea, '\x0001'::bytea, '\x000102'::bytea));
SELECT exwiw_ext_json(ROW(decode(repeat('00010203040506070809', 5), 'hex')));
SELECT exwiw_ext_json(ROW(decode(repeat('ff', 90), 'hex')));
SELECT exwiw_ext_json(ROW('00112233-4455-6677-8899-aabbccddeeff'::uuid));
-- DEL, U+2028 and U+2029 are written raw (psql shows them oddly above)
SELECT exwiw_ext_json(ROW(E'\x7f\u2028\u2029/')) = E'{"f1":"\x7f\u2028\u2029/"}' AS raw_ok;
