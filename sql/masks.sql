--
-- Masks that are functions: pseudonym (keyed by exwiw.mask_secret),
-- partial, noise, generalize, json paths, and the preview
--
SET client_min_messages = warning;
CREATE SCHEMA masks;
SET search_path = masks, public;
CREATE TABLE accounts (
	id int PRIMARY KEY,
	email text UNIQUE,
	name text,
	phone text,
	salary int,
	born date,
	seen timestamptz,
	profile jsonb,
	iban text);
CREATE TABLE orders (
	id int PRIMARY KEY,
	account_id int NOT NULL REFERENCES accounts,
	account_email text REFERENCES accounts (email),
	amount numeric(10, 2));
INSERT INTO accounts VALUES
	(1, 'alice@corp.test', 'Alice Original', '+1-202-555-0111', 50000,
	 '1980-05-17', '2024-03-01 10:00:00+00',
	 '{"profile": {"email": "alice@corp.test", "tags": ["a", "b"]}, "token": "tok-alice", "n": 1}',
	 'GB82WEST12345698765432'),
	(2, 'bob@corp.test', '山田 太郎', NULL, 2147483600, '5874897-12-31',
	 '294276-12-31 23:59:59+00', '{"token": "tok-bob"}', NULL),
	(3, 'carol@corp.test', '', '', -2147483600, '4713-11-24 BC', 'infinity', NULL, '');
INSERT INTO orders VALUES (10, 1, 'alice@corp.test', 12.50), (11, 1, 'alice@corp.test', 99.99),
	(12, 2, 'bob@corp.test', 1000.00), (13, 3, NULL, NULL);

-- Without a secret, a pseudonym or noise mask refuses: no weak default.
SELECT exwiw_mask_pseudonym('alice@corp.test', 'email');
SELECT exwiw_mask_noise(5::numeric, 0.1, 'int4'::regtype, 'c', '1');
SET exwiw.mask_secret = 'short';
SELECT exwiw_mask_pseudonym('alice@corp.test', 'email');
SET exwiw.mask_secret = 'a secret of the regression tests, 1';

-- Pseudonyms: the same original gives the same value for every type; NULL
-- stays NULL; a bad type or locale is an error.
SELECT t, exwiw_mask_pseudonym('alice@corp.test', t) AS v
FROM unnest('{name,first_name,last_name,email,username,phone_number,phone,address,city,company,iban,credit_card,uuid}'::text[]) AS t;
SELECT t, exwiw_mask_pseudonym('alice@corp.test', t, 'ja') AS v
FROM unnest('{name,human_name_kana,phone_number,address,company}'::text[]) AS t;
SELECT exwiw_mask_pseudonym(NULL, 'email') IS NULL AS null_stays_null,
	exwiw_mask_pseudonym('x', 'email') = exwiw_mask_pseudonym('x', 'email') AS repeats,
	exwiw_mask_pseudonym('x', 'email') <> exwiw_mask_pseudonym('y', 'email') AS differs,
	exwiw_mask_pseudonym('', 'email') = '' AS empty_stays_empty;
SELECT exwiw_mask_pseudonym('x', 'ssn');
SELECT exwiw_mask_pseudonym('x', 'name', 'fr');
SELECT exwiw_mask_pseudonym('x', 'first_name_kana');
-- IBANs pass the mod-97 check and cards the Luhn check, for many originals.
WITH v AS (
	SELECT exwiw_mask_pseudonym(i::text, 'iban') AS iban,
		exwiw_mask_pseudonym(i::text, 'credit_card') AS card
	FROM generate_series(1, 200) AS i),
ibans AS (
	SELECT iban, substr(iban, 5) || '1314' || substr(iban, 3, 2) AS num FROM v),
luhn AS (
	SELECT card, (SELECT sum(CASE WHEN (16 - p) % 2 = 1
			THEN (substr(card, p, 1)::int * 2) % 10 + (substr(card, p, 1)::int * 2) / 10
			ELSE substr(card, p, 1)::int END)
		FROM generate_series(1, 16) AS p) AS s FROM v)
SELECT (SELECT bool_and(num::numeric % 97 = 1 AND iban ~ '^DE[0-9]{20}$') FROM ibans) AS ibans_valid,
	(SELECT bool_and(s % 10 = 0 AND card ~ '^400000[0-9]{10}$') FROM luhn) AS cards_valid,
	(SELECT count(DISTINCT iban) FROM v) AS distinct_ibans;

-- Partial masks: characters, not bytes; a value no longer than what is
-- kept is filled whole; keep_domain keeps the e-mail's domain.
SELECT v, exwiw_mask_partial(v, 0, 4, '*') AS last4,
	exwiw_mask_partial(v, 1, 1, '#') AS ends,
	exwiw_mask_partial(v, 1, 0, '*', true) AS email
FROM (VALUES ('4111111111111111'), (''), ('abc'), ('abcd'), ('abcde'),
	('あいうえおかき'), ('jane.doe@example.com'), ('no-at-sign'), (NULL)) AS t(v);
SELECT exwiw_mask_partial('x', -1, 0);
SELECT exwiw_mask_partial('x', 0, 0, '');
-- a fill long enough to pass a text's 1 GB is refused before any is written
SELECT exwiw_mask_partial(repeat('x', 100000), 0, 0, repeat('y', 20000));

-- Noise: repeats, stays within the ratio, rounded to the scale, clamped to
-- the type's range; dates and times stay within theirs; infinities kept.
SELECT exwiw_mask_noise(1000::numeric, 0.1, 'int4'::regtype, 'salary', '1') AS n1,
	exwiw_mask_noise(1000::numeric, 0.1, 'int4'::regtype, 'salary', '1') AS n1_again,
	exwiw_mask_noise(1000::numeric, 0.1, 'int4'::regtype, 'salary', '2') AS n2,
	exwiw_mask_noise(12.34::numeric, 0.5, 'numeric'::regtype, 'amount', '1') AS scaled;
SELECT bool_and(abs(exwiw_mask_noise(1000::numeric, 0.1, 'int4'::regtype, 'c', i::text) - 1000) <= 100) AS within,
	count(DISTINCT exwiw_mask_noise(1000::numeric, 0.1, 'int4'::regtype, 'c', i::text)) > 50 AS varies
FROM generate_series(1, 200) AS i;
SELECT max(exwiw_mask_noise(2147483600::numeric, 1, 'int4'::regtype, 'c', i::text)) AS int4_max,
	min(exwiw_mask_noise(-32000::numeric, 1, 'int2'::regtype, 'c', i::text)) AS int2_min
FROM generate_series(1, 50) AS i;
SELECT exwiw_mask_noise('NaN'::numeric, 0.1, 'numeric'::regtype, 'c', '1') AS nan,
	exwiw_mask_noise(NULL::numeric, 0.1, 'numeric'::regtype, 'c', '1') IS NULL AS null_kept;
SELECT exwiw_mask_noise(1::numeric, 2, 'int4'::regtype, 'c', '1');
SELECT max(exwiw_mask_noise('5874897-12-31'::date, '1000 days', 'born', i::text)) AS date_end,
	min(exwiw_mask_noise('4713-11-24 BC'::date, '1000 days', 'born', i::text)) AS date_start,
	max(exwiw_mask_noise('294276-12-31 23:59:59'::timestamp, '1 year', 'seen', i::text)) AS ts_end,
	min(exwiw_mask_noise('4714-11-24 00:00:00+00 BC'::timestamptz, '1 year', 'seen', i::text)) AS tstz_start,
	bool_and(abs(exwiw_mask_noise('2024-01-15'::date, '30 days', 'born', i::text) - '2024-01-15'::date) <= 30) AS within
FROM generate_series(1, 100) AS i;
SELECT exwiw_mask_noise('infinity'::date, '30 days', 'born', '1') AS inf,
	exwiw_mask_noise('-infinity'::timestamptz, '30 days', 'seen', '1') AS minus_inf;
-- The seed is taken as its text, whatever its type: the generated query
-- passes an integer key as it is, and gets what its text would give.
SELECT bool_and(exwiw_mask_noise(1000::numeric, 0.1, 'int4'::regtype, 'c', i) =
		exwiw_mask_noise(1000::numeric, 0.1, 'int4'::regtype, 'c', i::text)) AS int8_as_text,
	bool_and(exwiw_mask_noise(1000::numeric, 0.1, 'int4'::regtype, 'c', i::int4) =
		exwiw_mask_noise(1000::numeric, 0.1, 'int4'::regtype, 'c', i::text)) AS int4_as_text,
	bool_and(exwiw_mask_noise(1000::numeric, 0.1, 'int4'::regtype, 'c', (i % 30000)::int2) =
		exwiw_mask_noise(1000::numeric, 0.1, 'int4'::regtype, 'c', (i % 30000)::text)) AS int2_as_text,
	bool_and(exwiw_mask_noise('2024-01-15'::date, '30 days', 'born', i) =
		exwiw_mask_noise('2024-01-15'::date, '30 days', 'born', i::text)) AS date_int8_as_text,
	bool_and(exwiw_mask_noise(1000::numeric, 0.1, 'int4'::regtype, 'c', i::numeric) =
		exwiw_mask_noise(1000::numeric, 0.1, 'int4'::regtype, 'c', i::text)) AS numeric_as_text,
	bool_and(exwiw_mask_noise(1000::numeric, 0.1, 'int4'::regtype, 'c', ('k' || i)::varchar) =
		exwiw_mask_noise(1000::numeric, 0.1, 'int4'::regtype, 'c', 'k' || i)) AS varchar_as_text,
	bool_and(exwiw_mask_noise(1000::numeric, 0.1, 'int4'::regtype, 'c', ROW(i, 'a')) =
		exwiw_mask_noise(1000::numeric, 0.1, 'int4'::regtype, 'c', CAST(ROW(i, 'a') AS text))) AS row_as_text
FROM unnest('{0,1,-1,9223372036854775807,-9223372036854775808}'::int8[] || ARRAY(SELECT generate_series(-3000, 3000, 7)::int8)) AS i
WHERE i BETWEEN -2147483648 AND 2147483647;
SELECT exwiw_mask_noise(1000::numeric, 0.1, 'int4'::regtype, 'c', 9223372036854775807) =
	exwiw_mask_noise(1000::numeric, 0.1, 'int4'::regtype, 'c', '9223372036854775807') AS int8_max,
	exwiw_mask_noise(1000::numeric, 0.1, 'int4'::regtype, 'c', NULL::int8) =
	exwiw_mask_noise(1000::numeric, 0.1, 'int4'::regtype, 'c', '') AS null_as_empty;

-- numeric(p, s): held to the typmod (rounded to its scale, within its
-- precision), where a cast after the noise would fail; a negative scale and
-- a scale above the precision too.  Without moving it (ratio 0), a value
-- comes back byte for byte.
SELECT exwiw_mask_noise(5::numeric, 0.5, 'numeric'::regtype, 'c', 1, 4);
SELECT exwiw_mask_noise(5::numeric, 0.5, 'numeric'::regtype, 'c', 1, 2147483647);
SELECT exwiw_mask_noise(5::numeric, 0.5, 'int4'::regtype, 'c', 1, 327686);
SELECT exwiw_mask_noise(5::numeric, 0.5, 'numeric'::regtype, 'c', 1, NULL) AS null_typmod_is_none;
CREATE TEMP TABLE typmods (a numeric(5,2), b numeric(3,-2), c numeric(2,3), d numeric(18,0), e numeric(20,2));
CREATE TEMP VIEW typmod_of AS
SELECT attname AS col, format_type(atttypid, atttypmod) AS type, atttypmod AS typmod
FROM pg_attribute WHERE attrelid = 'typmods'::regclass AND attnum > 0;
CREATE TEMP TABLE typmod_noise AS
SELECT col, type, v, exwiw_mask_noise(v * sign, 1, 'numeric'::regtype, 'c', i, typmod) AS n
FROM typmod_of JOIN (VALUES ('a', 999.99), ('b', 99900), ('c', 0.099), ('d', 999999999999999999),
		('e', 999999999999999999.99), ('a', 'NaN')) AS t(col, v) USING (col),
	generate_series(1, 60) AS i, unnest('{1,-1}'::int[]) AS sign;
SELECT type, max(n) AS max, min(n) AS min, count(*) FROM typmod_noise GROUP BY type ORDER BY type;
-- each value is one of its column's: stored as it is
INSERT INTO typmods (a) SELECT n FROM typmod_noise WHERE col = 'a';
INSERT INTO typmods (b) SELECT n FROM typmod_noise WHERE col = 'b';
INSERT INTO typmods (c) SELECT n FROM typmod_noise WHERE col = 'c';
INSERT INTO typmods (d) SELECT n FROM typmod_noise WHERE col = 'd';
INSERT INTO typmods (e) SELECT n FROM typmod_noise WHERE col = 'e';
SELECT (SELECT string_agg(n::text, ',' ORDER BY n) FROM typmod_noise) =
	(SELECT string_agg(coalesce(a, b, c, d, e)::text, ',' ORDER BY coalesce(a, b, c, d, e)) FROM typmods) AS stored_as_is;
-- Through an export: a noised numeric(5,2) near its bound is exported (a
-- cast after the noise failed it: numeric field overflow) and every value
-- fits the column.
CREATE TABLE prices (id int PRIMARY KEY, price numeric(5,2));
INSERT INTO prices SELECT i, CASE WHEN i % 2 = 0 THEN 999.99 ELSE -999.99 END FROM generate_series(1, 40) AS i;
CREATE TEMP TABLE prices_cfg AS SELECT
	'[{"name": "prices", "primary_key": "id", "columns": [{"name": "id"}, {"name": "price", "noise": {"ratio": 1}}]}]'::jsonb AS c;
SELECT count(*) > 0 AS exported
FROM exwiw_export('prices', ARRAY(SELECT i::text FROM generate_series(1, 40) AS i), (SELECT c FROM prices_cfg));
SELECT position('numeric(5,2)' IN query) = 0 AS no_cast_after_noise FROM exwiw_plan('prices', '{1}', (SELECT c FROM prices_cfg))
WHERE output IS NOT NULL;
DO $$
BEGIN
	EXECUTE 'CREATE TEMP TABLE prices_out AS ' ||
		(SELECT query FROM exwiw_plan('prices', ARRAY(SELECT i::text FROM generate_series(1, 40) AS i),
									  (SELECT c FROM prices_cfg)) WHERE output IS NOT NULL);
END $$;
-- A domain over numeric(5,2) keeps its cast (its checks), held to the
-- domain's typmod first.
CREATE DOMAIN price_d AS numeric(5,2) CHECK (VALUE IS NOT NULL);
CREATE TABLE dprices (id int PRIMARY KEY, price price_d);
INSERT INTO dprices SELECT i, 999.99 FROM generate_series(1, 20) AS i;
SELECT max(price), min(price), count(*)
FROM (SELECT chunk FROM exwiw_export('dprices', ARRAY(SELECT i::text FROM generate_series(1, 20) AS i),
	'[{"name": "dprices", "primary_key": "id", "columns": [{"name": "id"}, {"name": "price", "noise": {"ratio": 1}}]}]')) e,
	LATERAL (SELECT (regexp_matches(chunk, '\(''\d+'', ''(-?[0-9.]+)''\)', 'g'))[1]::numeric AS price) m;
CREATE TEMP TABLE prices_copy (price numeric(5,2));
INSERT INTO prices_copy SELECT price FROM prices_out;
SELECT count(*), max(price), min(price), count(DISTINCT price) > 10 AS varies,
	(SELECT string_agg(price::text, ',' ORDER BY price) FROM prices_out) =
	(SELECT string_agg(price::text, ',' ORDER BY price) FROM prices_copy) AS stored_as_is
FROM prices_out;
SELECT count(*) > 1000 AS many,
	bool_and(numeric_send(exwiw_mask_noise(v, 0, 'numeric'::regtype, 'c', 1)) = numeric_send(v)) AS same_bytes
FROM (SELECT round((sin(i) * 10 ^ (i % 19))::numeric, i % 7) AS v FROM generate_series(1, 5000) AS i) s
WHERE length(replace(replace(v::text, '-', ''), '.', '')) <= 18;

-- JSON paths: only the named paths change, the rest of the document stays.
SELECT exwiw_mask_json(profile, '[{"path": "$.profile.email", "pseudonym": "email"},
	{"path": "$.profile.tags[1]", "partial": {"keep_start": 0}},
	{"path": "$.token", "delete": true}, {"path": "$.missing.deep", "delete": true},
	{"path": "$.n[0]", "pseudonym": "name"}]') AS masked
FROM accounts ORDER BY id;
SELECT exwiw_mask_json('{"a": [1, {"b": "x"}]}', '[{"path": "$.a[1].b", "pseudonym": {"type": "name", "locale": "ja"}}]');
SELECT exwiw_mask_json('"scalar"', '[{"path": "$.a", "delete": true}]');
SELECT exwiw_mask_json('{}', '[{"path": "$..a", "delete": true}]');
SELECT exwiw_mask_json('{}', '[{"path": "$.a"}]');

-- The config: every mask on a column, the key pseudonymized in both tables
-- so that the rows still join.
CREATE TEMP TABLE cfg AS SELECT '[
	{"name": "accounts", "primary_key": "id", "columns": [
		{"name": "id"},
		{"name": "email", "pseudonym": {"type": "email"}},
		{"name": "name", "pseudonym": {"type": "name", "from": "email"}},
		{"name": "phone", "partial": {"keep_end": 4, "fill": "X"}},
		{"name": "salary", "noise": {"ratio": 0.1}},
		{"name": "born", "generalize": {"to": "year"}},
		{"name": "seen", "noise": {"interval": "30 days"}},
		{"name": "profile", "json": [{"path": "$.profile.email", "pseudonym": "email"},
									 {"path": "$.token", "delete": true}]},
		{"name": "iban", "pseudonym": {"type": "iban"}}]},
	{"name": "orders", "primary_key": "id",
	 "belongs_tos": [{"table_name": "accounts", "foreign_key": "account_id"}],
	 "columns": [
		{"name": "id"}, {"name": "account_id"},
		{"name": "account_email", "pseudonym": {"type": "email"}},
		{"name": "amount", "generalize": {"step": 10}}]}]'::jsonb AS c;

-- The secret is read by the functions: the query does not hold it.
SELECT table_name, query FROM exwiw_plan('accounts', '{1,2,3}', (SELECT c FROM cfg))
WHERE output IS NOT NULL ORDER BY seq;
SELECT bool_or(query LIKE '%regression tests%') AS secret_in_query
FROM exwiw_plan('accounts', '{1,2,3}', (SELECT c FROM cfg));

CREATE TEMP TABLE run1 AS
SELECT file_name, string_agg(chunk, E'\n' ORDER BY ord) AS body
FROM exwiw_export('accounts', '{1,2,3}', (SELECT c FROM cfg)) WITH ORDINALITY AS e(file_name, chunk, ord)
GROUP BY file_name;
SELECT file_name, body FROM run1 ORDER BY file_name;
-- A masked key stays joinable: every account_email of orders is the
-- pseudonym that accounts.email got.
SELECT (SELECT body FROM run1 WHERE file_name LIKE '%orders%') LIKE
	'%' || exwiw_mask_pseudonym('alice@corp.test', 'email') || '%' AS orders_join,
	(SELECT body FROM run1 WHERE file_name LIKE '%accounts%') LIKE
	'%' || exwiw_mask_pseudonym('alice@corp.test', 'email') || '%' AS accounts_join;
-- No original of a masked column reaches a file.
SELECT o AS leaked FROM run1, unnest('{alice@corp.test,bob@corp.test,carol@corp.test,Alice Original,山田,202-555,50000,1980-05-17,tok-alice,tok-bob,GB82WEST,12.50,99.99}'::text[]) AS o
WHERE strpos(body, o) > 0;
-- A second run writes the same bytes; another secret, other values.
SELECT bool_and(r.body = e.body) AS same_bytes FROM run1 AS r JOIN (
	SELECT file_name, string_agg(chunk, E'\n' ORDER BY ord) AS body
	FROM exwiw_export('accounts', '{1,2,3}', (SELECT c FROM cfg)) WITH ORDINALITY AS e(file_name, chunk, ord)
	GROUP BY file_name) AS e USING (file_name);
SET exwiw.mask_secret = 'another secret, of the regression tests';
SELECT bool_and(r.body = e.body) AS same_bytes FROM run1 AS r JOIN (
	SELECT file_name, string_agg(chunk, E'\n' ORDER BY ord) AS body
	FROM exwiw_export('accounts', '{1,2,3}', (SELECT c FROM cfg)) WITH ORDINALITY AS e(file_name, chunk, ord)
	GROUP BY file_name) AS e USING (file_name)
WHERE file_name LIKE '%accounts%';
-- A secret of one block (64 bytes) and a longer one (hashed first, as RFC
-- 2104 says), and a value over several blocks: HMAC-SHA-256 each (a build
-- with assertions checks every HMAC against PostgreSQL's common/hmac.h);
-- back to the first secret, the first value again.
SET exwiw.mask_secret = '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';
SELECT exwiw_mask_pseudonym('alice@corp.test', 'email') AS one_block,
	exwiw_mask_pseudonym(repeat('x', 200) || '@corp.test', 'email') AS long_value;
SET exwiw.mask_secret = 'long secret, long secret, long secret, long secret, long secret, long secret, long secret, long secret, long secret, long secret, ';
SELECT exwiw_mask_pseudonym('alice@corp.test', 'email') AS longer_secret;
SET exwiw.mask_secret = 'a secret of the regression tests, 1';
SELECT exwiw_mask_pseudonym('alice@corp.test', 'email') AS first_again;
-- The masks follow every change of the secret, those a transaction's end
-- or a savepoint's rollback makes too (the keys are recomputed after each
-- assignment of the setting).
CREATE TEMP TABLE by_secret (step text, p text, n numeric);
INSERT INTO by_secret SELECT 'first', exwiw_mask_pseudonym('alice@corp.test', 'email'), exwiw_mask_noise(1000::numeric, 0.5, 'numeric'::regtype, 'c', 1);
BEGIN;
SET LOCAL exwiw.mask_secret = 'another secret, of the regression tests';
INSERT INTO by_secret SELECT 'local', exwiw_mask_pseudonym('alice@corp.test', 'email'), exwiw_mask_noise(1000::numeric, 0.5, 'numeric'::regtype, 'c', 1);
SAVEPOINT s;
SET LOCAL exwiw.mask_secret = 'short';
SELECT exwiw_mask_noise(1000::numeric, 0.5, 'numeric'::regtype, 'c', 1);
ROLLBACK TO s;
INSERT INTO by_secret SELECT 'after savepoint', exwiw_mask_pseudonym('alice@corp.test', 'email'), exwiw_mask_noise(1000::numeric, 0.5, 'numeric'::regtype, 'c', 1);
COMMIT;
INSERT INTO by_secret SELECT 'after commit', exwiw_mask_pseudonym('alice@corp.test', 'email'), exwiw_mask_noise(1000::numeric, 0.5, 'numeric'::regtype, 'c', 1);
SELECT b.step, b.p = f.p AS same_pseudonym, b.n = f.n AS same_noise
FROM by_secret AS b, by_secret AS f WHERE f.step = 'first' AND b.step <> 'first' ORDER BY b.step;

-- The SHA-256 under the masks (mask/hmac.c) has two implementations, portable
-- C and the x86 SHA extensions (NULL where the CPU or the build has none;
-- "auto" is the masks' choice): each gives RFC 4231's HMAC-SHA-256 test
-- vectors (case 5 truncated to 128 bits, as there) and the server's
-- sha256() for every length from 0 to 300 bytes, and they agree on HMACs
-- under keys of 0 to 150 bytes.  The test function is not part of the
-- extension's SQL.
CREATE FUNCTION hmac_test(impl text, key bytea, data bytea) RETURNS bytea
AS 'exwiw', 'exwiw_mask_hmac_test' LANGUAGE C;
SELECT (hmac_test('sha_ni', NULL, '') IS NOT NULL) =
	coalesce(pg_read_file('/proc/cpuinfo', 0, 65536, true) ~ '\msha_ni\M', false) AS sha_ni_where_the_cpu_has_it;
CREATE TEMP TABLE rfc4231 (n int, key bytea, data bytea, hmac text);
INSERT INTO rfc4231 VALUES
	(1, decode(repeat('0b', 20), 'hex'), 'Hi There',
	 'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7'),
	(2, 'Jefe', 'what do ya want for nothing?',
	 '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843'),
	(3, decode(repeat('aa', 20), 'hex'), decode(repeat('dd', 50), 'hex'),
	 '773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe'),
	(4, '\x0102030405060708090a0b0c0d0e0f10111213141516171819', decode(repeat('cd', 50), 'hex'),
	 '82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b'),
	(5, decode(repeat('0c', 20), 'hex'), 'Test With Truncation',
	 'a3b6167473100ee06e0c796c2955552b'),
	(6, decode(repeat('aa', 131), 'hex'), 'Test Using Larger Than Block-Size Key - Hash Key First',
	 '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54'),
	(7, decode(repeat('aa', 131), 'hex'), 'This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.',
	 '9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2');
SELECT n, left(encode(hmac_test('portable', key, data), 'hex'), length(hmac)) = hmac AS portable,
	coalesce(left(encode(hmac_test('sha_ni', key, data), 'hex'), length(hmac)) = hmac, true) AS sha_ni,
	left(encode(hmac_test('auto', key, data), 'hex'), length(hmac)) = hmac AS auto
FROM rfc4231 ORDER BY n;
CREATE TEMP TABLE noise_bytes AS
SELECT string_agg(sha512(int4send(j)), '' ORDER BY j) AS b FROM generate_series(1, 8) AS j;
SELECT bool_and(hmac_test('portable', NULL, d) = sha256(d)) AS portable,
	bool_and(coalesce(hmac_test('sha_ni', NULL, d) = sha256(d), true)) AS sha_ni,
	bool_and(hmac_test('auto', NULL, d) = sha256(d)) AS auto, count(*)
FROM noise_bytes, generate_series(0, 300) AS n, substring(b FROM 1 FOR n) AS d;
SELECT bool_and(coalesce(hmac_test('sha_ni', k, d) = hmac_test('portable', k, d), true)) AS sha_ni,
	bool_and(hmac_test('auto', k, d) = hmac_test('portable', k, d)) AS auto, count(*)
FROM noise_bytes, generate_series(0, 150) AS kl, unnest('{0,1,54,55,56,63,64,65,119,120,200}'::int[]) AS n,
	substring(b FROM 301 FOR kl) AS k, substring(b FROM 7 * kl % 50 + 1 FOR n) AS d;
SELECT hmac_test('sha3', NULL, '');

-- SipHash-2-4 under the noise (mask/siphash.c): the paper's test vector
-- (key 00..0f, message 00..0e), and under the same key the messages 00..
-- of other lengths, each as Rust's std::hash::SipHasher (an implementation
-- of its own) gives them; a key of another length is an error.  The test
-- function is not part of the extension's SQL.
CREATE FUNCTION siphash_test(key bytea, data bytea) RETURNS bytea
AS 'exwiw', 'exwiw_mask_siphash_test' LANGUAGE C;
SELECT n, encode(siphash_test('\x000102030405060708090a0b0c0d0e0f',
		substring('\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f'::bytea FROM 1 FOR n)), 'hex') = v AS same
FROM (VALUES (0, '310e0edd47db6f72'), (1, 'fd67dc93c539f874'), (7, '37d1018bf50002ab'),
	(8, '6224939a79f5f593'), (15, 'e545be4961ca29a1'), (16, 'db9bc2577fcc2a3f'),
	(63, '724506eb4c328a95')) AS t(n, v) ORDER BY n;
SELECT encode(siphash_test(convert_to('exwiw siphash k!', 'UTF8'), '\x616d6f756e7400313233343536373839'), 'hex') = 'ee5e56f8af3b6fe0' AS text_message;
SELECT siphash_test('\x00', '');

-- Fingerprints of many values, so that a faster computation is seen to
-- give the same bytes: pseudonyms of values of every length from 1 to 300
-- bytes (the HMAC's one-block and several-block messages), of each type
-- and locale; partial masks of ASCII and multibyte values under several
-- keeps and fills; noise on numbers of every scale and sign, and beyond 18
-- digits, for each type, and on dates and times.
SELECT md5(string_agg(exwiw_mask_pseudonym(substr(repeat('abcdéfghij', 40), 1, i), 'uuid'), ',' ORDER BY i)) AS uuid_by_length
FROM generate_series(1, 300) AS i;
SELECT t, l, md5(string_agg(exwiw_mask_pseudonym('v' || i, t, l), ',' ORDER BY i)) AS fingerprint
FROM unnest('{name,first_name,last_name,email,username,phone_number,address,city,company,iban,credit_card,uuid}'::text[]) AS t,
	unnest('{en,ja}'::text[]) AS l, generate_series(1, 300) AS i
GROUP BY t, l ORDER BY t, l;
SELECT md5(string_agg(exwiw_mask_partial(v, s, e, f, d), ',' ORDER BY v, s, e, f, d)) AS partial
FROM unnest(ARRAY['', 'a', 'ab', 'abc', 'customer 12345', 'user17@example.com', 'a@b', '@x', 'x@',
	'あいうえおかき', '山田 太郎', 'jane.doe@例え.jp', E'tab\there', repeat('z', 300)]) AS v,
	generate_series(0, 3) AS s, generate_series(0, 2) AS e, unnest('{*,##,ー}'::text[]) AS f,
	unnest('{false,true}'::bool[]) AS d;
SELECT ty, md5(string_agg(exwiw_mask_noise(v, r, ty, 'c', i::text)::text, ',' ORDER BY v, r, i)) AS noise
FROM unnest(ARRAY[0, 1, -1, 7, 12.5, -99.99, 1000.00, 0.001, 123456.789, -32768, 32767,
	2147483647, -2147483648, 9223372036854775807, 123456789012345678, 1234567890123456789,
	-12345678901234567.8, 0.000000000000000001, 1e30, 12345678901234567890.12345]::numeric[]) AS v,
	unnest('{0,0.1,0.5,1}'::float8[]) AS r,
	unnest('{numeric,int2,int4,int8,float4,float8}'::regtype[]) AS ty,
	generate_series(1, 5) AS i
GROUP BY ty ORDER BY ty;
SELECT md5(string_agg(exwiw_mask_noise(d, s, 'born', i::text)::text, ',' ORDER BY d, s, i)) AS dates,
	md5(string_agg(exwiw_mask_noise(d::timestamp, s, 'seen', i::text)::text, ',' ORDER BY d, s, i)) AS times,
	md5(string_agg(exwiw_mask_noise(d::timestamptz, s, 'seen', i::text)::text, ',' ORDER BY d, s, i)) AS times_tz
FROM unnest('{2024-01-15,1999-12-31,2000-02-29}'::date[]) AS d,
	unnest('{0,1 day,30 days,1 year,1 hour}'::interval[]) AS s, generate_series(1, 20) AS i;

-- The preview: original beside masked, nothing written.
SELECT * FROM exwiw_mask_preview((SELECT c FROM cfg), 'accounts', 2);
SELECT * FROM exwiw_mask_preview((SELECT c FROM cfg), 'masks.orders');
SELECT * FROM exwiw_mask_preview((SELECT c FROM cfg), 'nosuch');

-- Config errors name the key.
CREATE FUNCTION try_cfg(cols jsonb) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	PERFORM exwiw_plan('accounts', '{1}', jsonb_build_array(jsonb_build_object(
		'name', 'accounts', 'primary_key', 'id', 'columns', cols)));
EXCEPTION WHEN OTHERS THEN
	DECLARE m text; c text; s text;
	BEGIN
		GET STACKED DIAGNOSTICS m = MESSAGE_TEXT, c = PG_EXCEPTION_CONTEXT, s = RETURNED_SQLSTATE;
		RAISE NOTICE '% % [%]', s, m, substring(c FROM 'key "[^"]*"');
	END;
END $$;
SET client_min_messages = notice;
SELECT try_cfg('[{"name": "id"}, {"name": "profile", "json": [{"path": "$.a..b", "delete": true}]}]');
SELECT try_cfg('[{"name": "id"}, {"name": "profile", "json": [{"path": "$.a[x]", "delete": true}]}]');
SELECT try_cfg('[{"name": "id"}, {"name": "profile", "json": [{"path": "a.b", "delete": true}]}]');
SELECT try_cfg('[{"name": "id"}, {"name": "profile", "json": [{"path": "$.a", "delete": true, "pseudonym": "email"}]}]');
SELECT try_cfg('[{"name": "id"}, {"name": "profile", "json": [{"path": "$.a", "pseudonym": "ssn"}]}]');
SELECT try_cfg('[{"name": "id"}, {"name": "profile", "json": [{"path": "$.a", "wat": 1, "delete": true}]}]');
SELECT try_cfg('[{"name": "id"}, {"name": "name", "json": [{"path": "$.a", "delete": true}]}]');
SELECT try_cfg('[{"name": "id"}, {"name": "email", "pseudonym": {"type": "ssn"}}]');
SELECT try_cfg('[{"name": "id"}, {"name": "email", "pseudonym": {"type": "email", "from": "nosuch"}}]');
SELECT try_cfg('[{"name": "id"}, {"name": "email", "pseudonym": {"type": "email"}, "replace_with": "x"}]');
SELECT try_cfg('[{"name": "id"}, {"name": "salary", "pseudonym": {"type": "email"}}]');
SELECT try_cfg('[{"name": "id"}, {"name": "profile", "json": [{"path": "$.a", "pseudonym": {"type": "name", "seed": "x"}}]}]');
SELECT try_cfg('[{"name": "id"}, {"name": "salary", "partial": {"keep_end": 4}}]');
SELECT try_cfg('[{"name": "id"}, {"name": "phone", "partial": {"keep_end": -1}}]');
SELECT try_cfg('[{"name": "id"}, {"name": "phone", "partial": {"fill": ""}}]');
SELECT try_cfg('[{"name": "id"}, {"name": "salary", "noise": {"ratio": 1.5}}]');
SELECT try_cfg('[{"name": "id"}, {"name": "salary", "noise": {"interval": "1 day"}}]');
SELECT try_cfg('[{"name": "id"}, {"name": "born", "noise": {"interval": "-1 day"}}]');
SELECT try_cfg('[{"name": "id"}, {"name": "born", "noise": {"interval": "soon"}}]');
SELECT try_cfg('[{"name": "id"}, {"name": "born", "generalize": {"to": "decade"}}]');
SELECT try_cfg('[{"name": "id"}, {"name": "salary", "generalize": {"step": 0}}]');
-- a pseudonymized key whose referencing column is masked otherwise
SELECT exwiw_plan('accounts', '{1}', jsonb_set((SELECT c FROM cfg), '{1,columns,2}',
	'{"name": "account_email", "replace_with": "x{id}"}'));
RESET exwiw.mask_secret;
SELECT try_cfg('[{"name": "id"}, {"name": "email", "pseudonym": {"type": "email"}}]');
SET client_min_messages = warning;

-- A role that is neither superuser nor pg_read_all_data cannot read the
-- secret, nor preview.
SET exwiw.mask_secret = 'a secret of the regression tests, 1';
DROP ROLE IF EXISTS exwiw_mask_user;
CREATE ROLE exwiw_mask_user;
GRANT USAGE ON SCHEMA masks TO exwiw_mask_user;
GRANT SELECT ON ALL TABLES IN SCHEMA masks TO exwiw_mask_user;
GRANT SELECT ON cfg TO exwiw_mask_user;
SET ROLE exwiw_mask_user;
-- the secret is not readable (42501; the message differs between majors)
DO $$
BEGIN
	BEGIN
		EXECUTE 'SHOW exwiw.mask_secret';
		RAISE WARNING 'SHOW exwiw.mask_secret: readable';
	EXCEPTION WHEN insufficient_privilege THEN
		RAISE WARNING 'SHOW exwiw.mask_secret: %', SQLSTATE;
	END;
	BEGIN
		PERFORM pg_catalog.current_setting('exwiw.mask_secret');
		RAISE WARNING 'current_setting: readable';
	EXCEPTION WHEN insufficient_privilege THEN
		RAISE WARNING 'current_setting: %', SQLSTATE;
	END;
END $$;
SELECT count(*) AS visible FROM pg_settings WHERE name = 'exwiw.mask_secret';
SELECT * FROM exwiw_mask_preview((SELECT c FROM cfg), 'accounts', 1);
SET exwiw.mask_secret = 'a secret a user would like to set';
RESET ROLE;

-- A pool's pseudonyms repeat (issue 37): under a unique index they are
-- widened by 12 hex digits of the value's own digest, so that the load of
-- the file does not fail on the second equal name; without one they stay
-- plain.  E-mail and user name pseudonyms carry a digest already.
SET exwiw.mask_secret = 'a secret of the regression tests, 1';
CREATE TABLE masks.people (id int PRIMARY KEY, full_name text UNIQUE, nick text,
                           mail text, city text, UNIQUE (city, id));
INSERT INTO masks.people SELECT g, 'person ' || g, 'nick ' || g, 'p' || g || '@x.test', 'city ' || (g % 7)
  FROM generate_series(1, 2000) g;
SELECT count(*) AS rows, count(DISTINCT m[1]) AS distinct_names, count(DISTINCT m[2]) < 500 AS nicks_pooled,
       count(DISTINCT m[3]) AS distinct_mails, count(DISTINCT m[4]) AS distinct_cities,
       bool_and(m[1] ~ ' [0-9a-f]{12}$') AS names_widened, bool_and(m[2] !~ ' [0-9a-f]{12}$') AS nicks_plain
  FROM exwiw_export('masks.people', (SELECT array_agg(id::text) FROM masks.people),
         '[{"name": "masks.people", "primary_key": "id", "columns": [{"name": "id"},
           {"name": "full_name", "pseudonym": {"type": "name"}}, {"name": "nick", "pseudonym": {"type": "first_name"}},
           {"name": "mail", "pseudonym": {"type": "email"}}, {"name": "city", "pseudonym": {"type": "city"}}]}]') e,
       LATERAL regexp_matches(e.chunk, E'^\\(''[0-9]+'', ''([^'']*)'', ''([^'']*)'', ''([^'']*)'', ''([^'']*)''\\)', 'gn') m
 WHERE e.file_name LIKE 'insert-%';
-- fake data too: widened by the seed's digest (the seed goes out unmasked)
SELECT count(*) AS rows, count(DISTINCT m[1]) AS distinct_names, bool_and(m[1] ~ ' [0-9a-f]{12}$') AS widened
  FROM exwiw_export('masks.people', (SELECT array_agg(id::text) FROM masks.people),
         '[{"name": "masks.people", "primary_key": "id", "columns": [{"name": "id"},
           {"name": "full_name", "replace_with_fake_data": {"type": "name", "seed": "id"}}]}]') e,
       LATERAL regexp_matches(e.chunk, E'^\\(''[0-9]+'', ''([^'']*)''\\)', 'gn') m
 WHERE e.file_name LIKE 'insert-%';
DROP TABLE masks.people;
DROP OWNED BY exwiw_mask_user;
DROP ROLE exwiw_mask_user;
DROP SCHEMA masks CASCADE;
