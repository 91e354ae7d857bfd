-- Extended JSON: json/jsonb documents and their $-wrappers
SELECT exwiw_ext_json('{}'::jsonb), exwiw_ext_json('[]'::jsonb), exwiw_ext_json('{"a":{},"b":[[],[{}]]}'::jsonb);
SELECT exwiw_ext_json('1'::jsonb), exwiw_ext_json('"x"'::jsonb), exwiw_ext_json('null'::jsonb), exwiw_ext_json('1.0'::json);
-- numbers: integers stay integers, fractions and exponents are Floats
SELECT exwiw_ext_json('[1, -0, 1.0, -0.0, 1e2, 1E-5, 0.1, 12345678901234567, 9223372036854775807, -9223372036854775808, 1e400]'::json);
SELECT exwiw_ext_json('[1, -0, 1.0, -0.0, 1e2, 1E-5, 0.1, 12345678901234567]'::jsonb);
-- json keeps key order and duplicates, jsonb sorts and dedups
SELECT exwiw_ext_json('{"b":1,"a":2,"b":3}'::json), exwiw_ext_json('{"b":1,"a":2,"b":3}'::jsonb);
-- strings with escapes
SELECT exwiw_ext_json('{"k\n\u0001\"":"x\b\f\r\t\u001f\u007f/\u2028é"}'::jsonb);
-- canonical and relaxed wrappers
SELECT exwiw_ext_json('{"$oid":"5F2A1B3C4D5E6F7A8B9C0D1E"}'::jsonb);
SELECT exwiw_ext_json('{"a":{"$numberInt":"-12"},"b":{"$numberLong":"9223372036854775807"},"c":{"$numberDouble":"1.5"},"d":{"$numberDouble":"-0.0"},"e":{"$numberDouble":"NaN"},"f":{"$numberDouble":"-Infinity"},"g":{"$numberDouble":"1e16"}}'::json);
SELECT exwiw_ext_json('[{"$numberDecimal":"1.50"},{"$numberDecimal":"0.0000001"},{"$numberDecimal":"1E+3"},{"$numberDecimal":"-NaN"},{"$numberDecimal":"-Inf"},{"$numberDecimal":".5"},{"$numberDecimal":"0E-6200"}]'::json);
SELECT exwiw_ext_json('[{"$date":"2014-12-12T07:12:10.123456Z"},{"$date":"2014-12-12T07:12:10+01:00"},{"$date":"2014-12-12"},{"$date":{"$numberLong":"-1"}},{"$date":{"$numberLong":"1418368330000"}}]'::json);
SELECT exwiw_ext_json('[{"$binary":{"base64":"AAE=","subType":"00"}},{"$binary":{"subType":"80","base64":"AAE="}},{"$uuid":"00112233-4455-6677-8899-AABBCCDDEEFF"}]'::json);
SELECT exwiw_ext_json('[{"$regularExpression":{"pattern":"a/b","options":"i"}},{"$regex":"^x","$options":"m"},{"$timestamp":{"t":1,"i":2}},{"$minKey":1},{"$maxKey":1},{"$symbol":"s"},{"$code":"f()"},{"$code":"g()","$scope":{"x":{"$numberLong":"1"}}},{"$undefined":true}]'::json);
SELECT exwiw_ext_json('{"$dbPointer":{"$ref":"c","$id":{"$oid":"5f2a1b3c4d5e6f7a8b9c0d1e"}}}'::json);
-- DBRef: $ref and $id first (not when $db is present: the gem's rule)
SELECT exwiw_ext_json('{"x":1,"$id":{"$oid":"5f2a1b3c4d5e6f7a8b9c0d1e"},"$ref":"c"}'::json);
SELECT exwiw_ext_json('{"$ref":"c","$id":1,"$db":"d"}'::jsonb);
SELECT exwiw_ext_json('{"$ref":"c","$id":1,"$regex":"x"}'::json);
-- unknown $-keys alone are ordinary documents
SELECT exwiw_ext_json('{"$foo":1}'::jsonb), exwiw_ext_json('{"$regex":"x"}'::jsonb);
-- mongo_fdw (libbson legacy) forms: normalised
SELECT exwiw_ext_json('{"_id":{"$oid":"5f2a1b3c4d5e6f7a8b9c0d1e"},"d":{"$date":1418368330000},"old":{"$date":-1},"b":{"$binary":"AAECAw==","$type":"00"},"b1":{"$binary":"AAE=","$type":"0"},"r":{"$regex":"a","$options":""}}'::json);
-- base64 longer than 60 characters gets "\n"
SELECT exwiw_ext_json('{"$binary":{"base64":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0+Pw==","subType":"00"}}'::jsonb);
-- deep nesting
SELECT exwiw_ext_json((repeat('{"a":[', 200) || '{"$oid":"5f2a1b3c4d5e6f7a8b9c0d1e"}' || repeat(']}', 200))::jsonb) =
       repeat('{"a":[', 200) || '{"$oid":"5f2a1b3c4d5e6f7a8b9c0d1e"}' || repeat(']}', 200) AS deep_ok;

-- Every binary subtype BSON defines, as its corpus (bson-corpus
-- binary.json) round-trips them: 00-09, with 09 (vector: FLOAT32, INT8,
-- PACKED_BIT, and zero-length) written as it is; user-defined 80-ff; the
-- reserved 0a-7f are refused (extjson_errors).
SELECT st, exwiw_ext_json(format('{"x":{"$binary":{"base64":"c//SZESzTGmQ6OfR38A11A==","subType":"%s"}}}', st)::json)
FROM unnest('{00,01,02,03,04,05,06,07,08,09,80,ff}'::text[]) st;
SELECT exwiw_ext_json(v::json) FROM unnest(ARRAY[
	'{"x": {"$binary": {"base64": "JwAAAP5CAADgQA==", "subType": "09"}}}',
	'{"x": {"$binary": {"base64": "AwB/Bw==", "subType": "09"}}}',
	'{"x": {"$binary": {"base64": "EAB/Bw==", "subType": "09"}}}',
	'{"x": {"$binary": {"base64": "JwA=", "subType": "09"}}}',
	'{"x": {"$binary": {"base64": "AwA=", "subType": "09"}}}',
	'{"x": {"$binary": {"base64": "EAA=", "subType": "09"}}}']) v;
