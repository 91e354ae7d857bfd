--
-- Safe mode: secrets found by their values (src/subset/catalog/values.c).
-- exwiw_config_from_catalog reads a bounded sample of the text, json and
-- text[] columns that the name rules leave unmarked, and marks those whose
-- values look secret, with a comment (the kinds, how many of the sampled
-- values; never a value) and a default mask.
--
CREATE SCHEMA sv;
CREATE FUNCTION sv.rnd(seed text, n int) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT left(translate(string_agg(encode(sha256(convert_to(seed || i, 'UTF8')), 'base64'), ''), '+/=', ''), n)
	FROM generate_series(1, 1 + n / 30) AS i
$$;

-- Innocent names, each kind of secret; look-alikes beside them.
CREATE TABLE sv.integrations (
	id int PRIMARY KEY,
	provider_config jsonb,
	webhook text,
	hook varchar(32),
	endpoint text,
	key_p256dh varchar(100),
	recovery_codes text[],
	signing text,
	session text,
	remember text,
	upload_ref text,
	legacy json,
	nested jsonb,
	per_user jsonb,
	avatar text,
	commit_sha text,
	label text,
	notes text,
	api_token text);
INSERT INTO sv.integrations
SELECT i,
	jsonb_build_object('api_key', 'sk_live_' || sv.rnd('a' || i, 24), 'region', 'eu',
					   'smtp', jsonb_build_object('host', 'mail.example.com', 'password', sv.rnd('b' || i, 16))),
	'https://example.com/hooks/' || i || '?token=' || sv.rnd('c' || i, 32),
	'https://h.example/?sig=' || sv.rnd('d' || i, 8),
	'https://fcm.googleapis.com/fcm/send/' || sv.rnd('e' || i, 40),
	'B' || translate(sv.rnd('f' || i, 86), '+/', '-_'),
	ARRAY(SELECT left(md5(i || '-' || k), 5) || '-' || right(md5(k || '-' || i), 5) FROM generate_series(1, 8) k),
	E'-----BEGIN EC PRIVATE KEY-----\n' || sv.rnd('g' || i, 64) || E'\n-----END EC PRIVATE KEY-----',
	'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.' || sv.rnd('h' || i, 43),
	CASE WHEN i <= 6 THEN sv.rnd('j' || i, 24) ELSE 'plain words' END,
	sv.rnd('k' || i, 32),
	json_build_object('client_secret', sv.rnd('l' || i, 24)),
	jsonb_build_object('hooks', jsonb_build_array(jsonb_build_object('secret', sv.rnd('m' || i, 24)))),
	jsonb_build_object('user' || i, jsonb_build_object('token', sv.rnd('n' || i, 24))),
	'https://secure.gravatar.com/avatar/' || md5('u' || i) || '?s=80',
	encode(sha256(convert_to('c' || i, 'UTF8')), 'hex')::varchar(40),
	(ARRAY['Urgent', 'Backlog', 'Done'])[1 + i % 3],
	CASE WHEN i = 1 THEN sv.rnd('o', 30) ELSE 'a note about order ' || i END,
	'sk_live_' || sv.rnd('p' || i, 24)
FROM generate_series(1, 10) AS i;

-- Which columns are marked, with what mask, and the comment.
SELECT c ->> 'name' AS col, c - 'name' - 'needs_mask_decision' - 'comment' AS mask,
	   regexp_split_to_table(c ->> 'comment', '; ') AS comment
FROM jsonb_array_elements(exwiw_config_from_catalog('sv') -> 'tables') AS t,
	 jsonb_array_elements(t -> 'columns') AS c
WHERE t ->> 'name' = 'sv.integrations' AND c ? 'needs_mask_decision';
-- not marked: an avatar URL, a git SHA (named as one), labels, notes where
-- one value in ten looks random (a weak rule wants half), a random value
-- in a column named as an identifier ("upload_ref")
SELECT string_agg(c ->> 'name', ', ') AS plain
FROM jsonb_array_elements(exwiw_config_from_catalog('sv') -> 'tables') AS t,
	 jsonb_array_elements(t -> 'columns') AS c
WHERE t ->> 'name' = 'sv.integrations' AND NOT c ? 'needs_mask_decision';

-- No value, nor a part of one, is in the config: every value of the table
-- (json strings too) of 8 characters or more, and its middle 8 characters.
WITH cfg AS MATERIALIZED (SELECT exwiw_config_from_catalog('sv')::text AS c),
vals AS (
	SELECT v #>> '{}' AS v
	FROM sv.integrations t, jsonb_each(to_jsonb(t) - 'id') AS e(k, doc),
		 jsonb_path_query(doc, 'strict $.**') AS v
	WHERE jsonb_typeof(v) = 'string')
SELECT count(*) AS values_checked,
	   count(*) FILTER (WHERE position(v IN c) > 0) AS in_config,
	   count(*) FILTER (WHERE position(substr(v, length(v) / 2 - 3, 8) IN c) > 0) AS part_in_config
FROM cfg, vals
WHERE length(v) >= 8;
SELECT position('sk_live_' IN exwiw_config_from_catalog('sv')::text) = 0 AS no_stripe_key,
	   position('PRIVATE KEY' IN exwiw_config_from_catalog('sv')::text) = 0 AS no_pem,
	   position('user1' IN exwiw_config_from_catalog('sv')::text) = 0 AS no_data_key;

-- The generated config is valid, masks and all: the json path masks
-- delete the keys the sample saw.
SELECT (SELECT count(*) FROM exwiw_plan('sv.integrations', '{1}', exwiw_config_from_catalog('sv'))
		WHERE seq IS NOT NULL) AS files;
SELECT exwiw_mask_json(provider_config, (SELECT c -> 'json'
		FROM jsonb_array_elements(exwiw_config_from_catalog('sv') -> 'tables') AS t,
			 jsonb_array_elements(t -> 'columns') AS c
		WHERE c ->> 'name' = 'provider_config')) AS masked
FROM sv.integrations WHERE id = 1;

-- A unique jsonb column gets no default mask (deleting its keys, or {},
-- could make two documents equal): undecided.  A table without a
-- single-column primary key: no "masked-{id}".  A key column ("code") is
-- never sampled.
CREATE TABLE sv.tokens_by_key (code text PRIMARY KEY, doc jsonb UNIQUE, blob text);
INSERT INTO sv.tokens_by_key
SELECT sv.rnd('q' || i, 32), jsonb_build_object('access_token', sv.rnd('r' || i, 32)), 'xoxb-' || sv.rnd('s' || i, 30)
FROM generate_series(1, 5) AS i;
CREATE TABLE sv.pairs (a int, b int, hook text, PRIMARY KEY (a, b));
INSERT INTO sv.pairs VALUES (1, 1, 'https://hooks.slack.com/services/T000/B000/' || sv.rnd('t', 24));
SELECT t ->> 'name' AS tbl, c ->> 'name' AS col, c ? 'needs_mask_decision' AS marked,
	   c - 'name' - 'needs_mask_decision' - 'comment' AS mask, c ->> 'comment' AS comment
FROM jsonb_array_elements(exwiw_config_from_catalog('sv') -> 'tables') AS t,
	 jsonb_array_elements(t -> 'columns') AS c
WHERE t ->> 'name' IN ('sv.tokens_by_key', 'sv.pairs');

-- A partitioned table is sampled through its partitions.
CREATE TABLE sv.events (id int, at date, payload jsonb, PRIMARY KEY (id, at)) PARTITION BY RANGE (at);
CREATE TABLE sv.events_2024 PARTITION OF sv.events FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
INSERT INTO sv.events VALUES (1, '2024-05-01', '{"auth": {"password": "correct horse"}}'),
	(2, '2024-06-01', '{"auth": {"password": "battery staple"}}');
SELECT c ->> 'name' AS col, c -> 'json' AS json_mask, c ->> 'comment' AS comment
FROM jsonb_array_elements(exwiw_config_from_catalog('sv') -> 'tables') AS t,
	 jsonb_array_elements(t -> 'columns') AS c
WHERE t ->> 'name' = 'sv.events' AND c ? 'needs_mask_decision';

-- A role that may not read a table's columns: they are not sampled, and
-- the table's comment says so.  One that may read some of them: those are.
CREATE ROLE regress_sv_reader;
GRANT USAGE ON SCHEMA sv TO regress_sv_reader;
GRANT SELECT (a, hook) ON sv.pairs TO regress_sv_reader;
GRANT SELECT (code, blob) ON sv.tokens_by_key TO regress_sv_reader;
SET ROLE regress_sv_reader;
SELECT t ->> 'name' AS tbl, t ->> 'comment' AS comment,
	   (SELECT string_agg(c ->> 'name', ', ') FROM jsonb_array_elements(t -> 'columns') c
		WHERE c ? 'needs_mask_decision') AS marked
FROM jsonb_array_elements(exwiw_config_from_catalog('sv') -> 'tables') AS t
WHERE t ->> 'name' IN ('sv.tokens_by_key', 'sv.pairs', 'sv.integrations');
RESET ROLE;

-- An error while the sample is read (here an RLS policy's function that
-- quotes the row) keeps its SQLSTATE, and its message is withheld: it
-- could show a value.
CREATE TABLE sv.guarded (id int PRIMARY KEY, hook text);
INSERT INTO sv.guarded VALUES (1, 'https://example.com/in?token=' || sv.rnd('u', 24));
CREATE FUNCTION sv.tattle(v text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'saw %', v;
END
$$;
ALTER TABLE sv.guarded ENABLE ROW LEVEL SECURITY;
CREATE POLICY tattle ON sv.guarded USING (sv.tattle(hook));
GRANT SELECT ON sv.guarded TO regress_sv_reader;
GRANT EXECUTE ON FUNCTION sv.tattle(text) TO regress_sv_reader;
SET ROLE regress_sv_reader;
SELECT exwiw_config_from_catalog('sv');
RESET ROLE;

DROP SCHEMA sv CASCADE;
DROP OWNED BY regress_sv_reader;
DROP ROLE regress_sv_reader;

--
-- The corpus (test/subset/secrets_corpus.sql): columns with innocent names
-- that hold secrets ("secret: ...") or look like they do ("look-alike:
-- ..."), 40 rows each.  The verdict of every column, then the figures
-- that doc/subset.md (Safe mode) quotes.
--
SET client_min_messages = warning;
\i test/subset/secrets_corpus.sql
RESET client_min_messages;
CREATE TEMP TABLE verdicts AS
WITH cfg AS (SELECT exwiw_config_from_catalog('secrets_corpus') AS doc),
cols AS (
	SELECT regexp_replace(t ->> 'name', '^.*\.', '') AS tbl, c ->> 'name' AS col,
		   c ? 'needs_mask_decision' AS marked, c ->> 'comment' AS comment
	FROM cfg, jsonb_array_elements(doc -> 'tables') t, jsonb_array_elements(t -> 'columns') c),
truth AS (
	SELECT c.relname::text AS tbl, a.attname::text AS col, d.description
	FROM pg_description d
	JOIN pg_class c ON c.oid = d.objoid AND d.classoid = 'pg_class'::regclass
	JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = d.objsubid
	WHERE c.relnamespace = 'secrets_corpus'::regnamespace)
SELECT t.tbl, t.col, t.description LIKE 'secret:%' AS secret, c.marked,
	   coalesce(c.comment LIKE 'secrets in its values: %', false) AS by_values,
	   CASE WHEN c.marked = (t.description LIKE 'secret:%') THEN 'ok'
			WHEN c.marked THEN 'false alarm' ELSE 'missed' END AS verdict,
	   regexp_replace(t.description, '^[^:]*: ', '') AS what,
	   regexp_replace(c.comment, '^secrets in its values: |; (safe mode|undecided).*$', '', 'g') AS seen
FROM truth t JOIN cols c USING (tbl, col);
-- every mark comes from the values: no name gives a column away
SELECT count(*) AS marked_by_name FROM verdicts WHERE marked AND NOT by_values;
SELECT tbl, col, verdict, what, seen FROM verdicts ORDER BY secret DESC, verdict DESC, tbl, col;
SELECT count(*) FILTER (WHERE secret) AS secret_columns,
	   count(*) FILTER (WHERE NOT secret) AS lookalike_columns,
	   count(*) FILTER (WHERE secret AND marked) AS marked_correctly,
	   count(*) FILTER (WHERE secret AND NOT marked) AS missed,
	   count(*) FILTER (WHERE NOT secret AND marked) AS false_alarms,
	   round(count(*) FILTER (WHERE secret AND marked)::numeric
			 / nullif(count(*) FILTER (WHERE marked), 0), 3) AS precision,
	   round(count(*) FILTER (WHERE secret AND marked)::numeric
			 / nullif(count(*) FILTER (WHERE secret), 0), 3) AS recall
FROM verdicts;
-- and no value of the corpus is in its config
WITH cfg AS MATERIALIZED (SELECT exwiw_config_from_catalog('secrets_corpus')::text AS c),
vals AS (
	SELECT v #>> '{}' AS v
	FROM (SELECT to_jsonb(t) - 'id' AS r FROM secrets_corpus.integrations t
		  UNION ALL SELECT to_jsonb(t) - 'id' FROM secrets_corpus.hooks t
		  UNION ALL SELECT to_jsonb(t) - 'id' FROM secrets_corpus.providers t) AS rows,
		 jsonb_each(r) AS e(k, doc), jsonb_path_query(doc, 'strict $.**') AS v
	WHERE jsonb_typeof(v) = 'string')
SELECT count(*) > 1000 AS many_values,
	   count(*) FILTER (WHERE position(substr(v, length(v) / 2 - 3, 8) IN c) > 0) AS part_in_config
FROM cfg, vals
WHERE length(v) >= 8;
DROP SCHEMA secrets_corpus CASCADE;
