-- Extended JSON: errors name the path inside the document, or the column
SELECT exwiw_ext_json('{"$oid":"xyz"}'::jsonb);
SELECT exwiw_ext_json('{"a":{"b":[0,1,{"$oid":"5f2a1b3c4d5e6f7a8b9c0d1"}]}}'::jsonb);
SELECT exwiw_ext_json('{"a":{"$date":"2014-13-01T00:00:00Z"}}'::json);
SELECT exwiw_ext_json('{"a":{"$date":"garbage"}}'::json);
SELECT exwiw_ext_json('{"a":{"$date":true}}'::json);
SELECT exwiw_ext_json('{"a":{"$oid":"5f2a1b3c4d5e6f7a8b9c0d1e","b":1}}'::json);
SELECT exwiw_ext_json('{"odd key":[{"$numberLong":"9223372036854775808"}]}'::json);
SELECT exwiw_ext_json('{"a":{"$numberInt":"abc"}}'::json);
SELECT exwiw_ext_json('{"a":{"$numberDouble":"0x10"}}'::json);
SELECT exwiw_ext_json('{"a":{"$numberDecimal":"123456789012345678901234567890123456"}}'::json);
SELECT exwiw_ext_json('{"a":{"$numberDecimal":"1e-7000"}}'::json);
SELECT exwiw_ext_json('{"a":{"$binary":{"base64":"!!","subType":"00"}}}'::json);
SELECT exwiw_ext_json('{"a":{"$binary":"AAE=","$type":"0a"}}'::json);
SELECT exwiw_ext_json('{"a":{"$binary":"AAE="}}'::json);
SELECT exwiw_ext_json('{"a":{"$uuid":"not-a-uuid"}}'::json);
SELECT exwiw_ext_json('{"a":{"$timestamp":{"t":-1,"i":0}}}'::json);
SELECT exwiw_ext_json('{"a":{"$code":"x","$type":"00"}}'::json);
SELECT exwiw_ext_json('{"a":12345678901234567890}'::json);
SELECT exwiw_ext_json('{"$ref":"c","$id":1,"$uuid":"00112233-4455-6677-8899-aabbccddeeff"}'::json);
SELECT exwiw_ext_json('{"a":"\u0000"}'::json);
-- rows: infinity dates, numerics Decimal128 cannot hold, oid_columns
SELECT exwiw_ext_json(t) FROM (SELECT 1 AS id, 'infinity'::timestamptz AS created) t;
SELECT exwiw_ext_json(t) FROM (SELECT '-infinity'::date AS born) t;
SELECT exwiw_ext_json(t) FROM (SELECT ARRAY['2020-01-01', 'infinity']::timestamp[] AS ts) t;
SELECT exwiw_ext_json(t) FROM (SELECT 0.12345678901234567890123456789012345::numeric AS n) t;
SELECT exwiw_ext_json(t) FROM (SELECT '{"x":{"$oid":1}}'::jsonb AS j) t;
SELECT exwiw_ext_json(t, oid_columns => '{ref}') FROM (SELECT 'nope'::text AS ref) t;
SELECT exwiw_ext_json(t, oid_columns => '{missing}') FROM (SELECT 1 AS a) t;
SELECT exwiw_ext_json(42);
SELECT exwiw_dump_jsonl('SELECT ''infinity''::date AS d');
SELECT exwiw_ext_json(t, oid_columns => '{n}') FROM (SELECT 1 AS n) t;
SELECT exwiw_ext_json(t, oid_columns => '{a}') FROM (SELECT ARRAY['5f2a1b3c4d5e6f7a8b9c0d1e', 'x'] AS a) t;
SELECT exwiw_ext_json(t, oid_columns => '{NULL}') FROM (SELECT 1 AS n) t;
SELECT exwiw_ext_json('{"a":1}');
-- the reserved binary subtypes; $uuid forms the corpus refuses
SELECT exwiw_ext_json('{"x":{"$binary":{"base64":"AAE=","subType":"7f"}}}'::json);
SELECT exwiw_ext_json('{"x":{"$uuid":"73ffd264-44b3-90e8-e7d1dfc035d4"}}'::json);
SELECT exwiw_ext_json('{"x":{"$uuid":"73ffd264-44b3-4c69-90e8-e7d1dfc035d4-789e4"}}'::json);
SELECT exwiw_ext_json('{"x":{"$uuid":"73ff-d26444b-34c6-990e8e-7d1dfc035d4"}}'::json);
SELECT exwiw_ext_json('{"x":{"$uuid":"----d264-44b3-4--9-90e8-e7d1dfc0----"}}'::json);
SELECT exwiw_ext_json('{"x":{"$uuid":{"data":"73ffd264-44b3-4c69-90e8-e7d1dfc035d4"}}}'::json);
-- \u0000 where json text holds it: the error names the value's path (a
-- key that holds it, its object's)
SELECT exwiw_ext_json('{"x": [1, {"b\"c": ["ok", "\u0000"]}]}'::json);
SELECT exwiw_ext_json('{"x": {"k\u0000": 1}}'::json);
SELECT exwiw_ext_json(t) FROM (SELECT '{"a": ["\u0000"]}'::json AS doc) t;
SELECT count(*) FROM exwiw_dump_jsonl($$SELECT '{"a": {"b": "\u0000"}}'::json AS doc$$);
