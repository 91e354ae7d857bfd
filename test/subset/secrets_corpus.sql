--
-- test/subset/secrets_corpus.sql: a corpus of columns whose names say
-- nothing, to measure the rules of src/subset/catalog/values.c (safe mode's
-- secrets found by their values).  Every column of schema secrets_corpus
-- has a comment: "secret: ..." (a column that holds secrets, which the
-- rules should mark) or "look-alike: ..." (one that looks random or holds
-- URLs or json, which they should not).  The values are made up,
-- deterministic (digests of a counter), 40 rows a table; none is a real
-- key.  Read by sql/subset_secret_values.sql, which prints the verdict of
-- every column and the figures that doc/subset.md (Safe mode) quotes.
--
CREATE SCHEMA secrets_corpus;
SET search_path = secrets_corpus, public;

-- n characters of [A-Za-z0-9] (b62), of base64url (b64u) or of hex, drawn
-- from digests of seed
CREATE FUNCTION rnd(seed text, n int, alphabet text DEFAULT 'b62') RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT left(CASE alphabet
				WHEN 'hex' THEN string_agg(encode(sha256(convert_to(seed || i, 'UTF8')), 'hex'), '')
				WHEN 'b64u' THEN translate(string_agg(encode(sha256(convert_to(seed || i, 'UTF8')), 'base64'), ''), '+/=', '-_')
				WHEN 'upper' THEN upper(translate(string_agg(encode(sha256(convert_to(seed || i, 'UTF8')), 'base64'), ''), '+/=01890', ''))
				ELSE translate(string_agg(encode(sha256(convert_to(seed || i, 'UTF8')), 'base64'), ''), '+/=', '')
				END, n)
	FROM generate_series(1, 1 + n / 30) AS i
$$;
-- base64url of a text, without padding
CREATE FUNCTION b64u(t text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT translate(encode(convert_to(t, 'UTF8'), 'base64'), E'+/=\n', '-_')
$$;

--
-- Secrets in plain text columns with innocent names
--
CREATE TABLE integrations (
	id int PRIMARY KEY,
	stripe text,
	stripe_test text,
	restricted text,
	webhook_signing text,
	gh text,
	gh_fine text,
	gitlab text,
	slack_bot text,
	aws_pair text,
	aws_other_half text,
	google_maps text,
	sendgrid text,
	openai text,
	deploy_pem text,
	ssh_deploy text,
	session_blob text,
	auth_header text,
	remember text,
	share_link text,
	nonce_value text,
	pin_check text,
	mfa_seed text,
	hex_api text,
	basic_header text,
	storage_conn text,
	sms_auth text
);
INSERT INTO integrations
SELECT i,
	'sk_live_' || rnd('a' || i, 24),
	'sk_test_' || rnd('b' || i, 24),
	'rk_live_' || rnd('c' || i, 24),
	'whsec_' || rnd('d' || i, 32),
	'ghp_' || rnd('e' || i, 36),
	'github_pat_' || rnd('f' || i, 22) || '_' || rnd('g' || i, 59),
	'glpat-' || rnd('h' || i, 20, 'b64u'),
	'xoxb-' || (1000000000 + i) || '-' || (2000000000 + i) || '-' || rnd('i' || i, 24),
	'AKIA' || rnd('j' || i, 16, 'upper'),
	rnd('k' || i, 40, 'b64'),
	'AIza' || rnd('l' || i, 35, 'b64u'),
	'SG.' || rnd('m' || i, 22, 'b64u') || '.' || rnd('n' || i, 43, 'b64u'),
	'sk-proj-' || rnd('o' || i, 48, 'b64u'),
	E'-----BEGIN RSA PRIVATE KEY-----\n' || rnd('p' || i, 64, 'b64') || E'\n' || rnd('q' || i, 64, 'b64') || E'\n-----END RSA PRIVATE KEY-----\n',
	E'-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ' || rnd('r' || i, 40, 'b64') || E'\n-----END OPENSSH PRIVATE KEY-----',
	b64u('{"alg":"HS256","typ":"JWT"}') || '.' || b64u('{"sub":"' || i || '","exp":1700000000}') || '.' || rnd('s' || i, 43, 'b64u'),
	'Bearer ' || b64u('{"alg":"RS256","kid":"k1"}') || '.' || b64u('{"sub":"user-' || i || '"}') || '.' || rnd('t' || i, 86, 'b64u'),
	rnd('u' || i, 24),
	rnd('v' || i, 32, 'b64u'),
	rnd('w' || i, 48, 'hex'),
	'$2a$12$' || rnd('x' || i, 53, 'b62'),
	rnd('y' || i, 32, 'upper'),
	rnd('z' || i, 64, 'hex'),
	'Basic ' || encode(convert_to('user' || i || ':' || rnd('aa' || i, 12), 'UTF8'), 'base64'),
	'DefaultEndpointsProtocol=https;AccountName=store' || i || ';AccountKey=' || rnd('ab' || i, 86) || '==;EndpointSuffix=core.windows.net',
	rnd('ac' || i, 32, 'hex')
FROM generate_series(1, 40) AS i;
COMMENT ON COLUMN integrations.stripe IS 'secret: Stripe live secret key';
COMMENT ON COLUMN integrations.stripe_test IS 'secret: Stripe test secret key';
COMMENT ON COLUMN integrations.restricted IS 'secret: Stripe restricted key';
COMMENT ON COLUMN integrations.webhook_signing IS 'secret: Stripe webhook signing secret';
COMMENT ON COLUMN integrations.gh IS 'secret: GitHub personal access token';
COMMENT ON COLUMN integrations.gh_fine IS 'secret: GitHub fine-grained token';
COMMENT ON COLUMN integrations.gitlab IS 'secret: GitLab personal access token';
COMMENT ON COLUMN integrations.slack_bot IS 'secret: Slack bot token';
COMMENT ON COLUMN integrations.aws_pair IS 'secret: AWS access key id';
COMMENT ON COLUMN integrations.aws_other_half IS 'secret: AWS secret access key (40 base64)';
COMMENT ON COLUMN integrations.google_maps IS 'secret: Google API key';
COMMENT ON COLUMN integrations.sendgrid IS 'secret: SendGrid API key';
COMMENT ON COLUMN integrations.openai IS 'secret: OpenAI project key';
COMMENT ON COLUMN integrations.deploy_pem IS 'secret: RSA private key, PEM';
COMMENT ON COLUMN integrations.ssh_deploy IS 'secret: OpenSSH private key';
COMMENT ON COLUMN integrations.session_blob IS 'secret: JWT';
COMMENT ON COLUMN integrations.auth_header IS 'secret: JWT after "Bearer "';
COMMENT ON COLUMN integrations.remember IS 'secret: Rails has_secure_token (24 base58)';
COMMENT ON COLUMN integrations.share_link IS 'secret: 32 base64url token';
COMMENT ON COLUMN integrations.nonce_value IS 'secret: SecureRandom.hex(24)';
COMMENT ON COLUMN integrations.pin_check IS 'secret: bcrypt digest';
COMMENT ON COLUMN integrations.mfa_seed IS 'secret: TOTP seed, base32 upper case (known miss)';
COMMENT ON COLUMN integrations.hex_api IS 'secret: SecureRandom.hex(32), a digest''s length (known miss)';
COMMENT ON COLUMN integrations.basic_header IS 'secret: HTTP Basic credentials';
COMMENT ON COLUMN integrations.storage_conn IS 'secret: Azure storage connection string';
COMMENT ON COLUMN integrations.sms_auth IS 'secret: Twilio auth token, 32 hex digits, an md5''s length (known miss)';

--
-- Secrets in URLs, web push, arrays
--
CREATE TABLE hooks (
	id int PRIMARY KEY,
	callback text,
	notify text,
	slack_hook text,
	chat_hook text,
	telegram text,
	dsn text,
	broker text,
	presigned text,
	oauth_redirect text,
	endpoint text,
	moz_endpoint text,
	key_p256dh text,
	key_auth text,
	recovery_codes text[],
	backup_digests text[],
	extra text
);
INSERT INTO hooks
SELECT i,
	'https://api.example' || i % 3 || '.com/callbacks/orders?token=' || rnd('ba' || i, 32) || '&order=' || i,
	'https://partner.example.org/notify?id=' || i || '&signature=' || rnd('bb' || i, 40, 'hex'),
	'https://hooks.slack.com/services/T' || rnd('bc' || i, 8, 'upper') || '/B' || rnd('bd' || i, 10, 'upper') || '/' || rnd('be' || i, 24),
	'https://discord.com/api/webhooks/' || (100000000000000000 + i) || '/' || rnd('bf' || i, 68, 'b64u'),
	'https://api.telegram.org/bot' || (600000000 + i) || ':' || rnd('bg' || i, 35, 'b64u') || '/sendMessage',
	'postgres://app_' || i || ':' || rnd('bh' || i, 20) || '@db' || i % 4 || '.internal:5432/app',
	'amqps://worker:' || rnd('bi' || i, 16) || '@mq.example.net/vhost',
	'https://bucket.s3.amazonaws.com/exports/' || i || '.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=3600&X-Amz-Signature=' || rnd('bj' || i, 64, 'hex'),
	'https://app.example.com/oauth/done#access_token=' || rnd('bk' || i, 40, 'b64u') || '&token_type=bearer',
	'https://fcm.googleapis.com/fcm/send/' || rnd('bl' || i, 22, 'b64u') || ':APA91b' || rnd('bm' || i, 134, 'b64u'),
	'https://updates.push.services.mozilla.com/wpush/v2/gAAAAAB' || rnd('bn' || i, 120, 'b64u'),
	'B' || rnd('bo' || i, 86, 'b64u'),
	rnd('bp' || i, 22, 'b64u'),
	ARRAY(SELECT rnd('bq' || i || '-' || k, 5, 'hex') || '-' || rnd('br' || i || '-' || k, 5, 'hex') FROM generate_series(1, 10) k),
	ARRAY(SELECT '$2a$10$' || rnd('bs' || i || '-' || k, 53) FROM generate_series(1, 8) k),
	'{"smtp_password": "' || rnd('bt' || i, 16) || '", "from": "noreply@example.com"}'
FROM generate_series(1, 40) AS i;
COMMENT ON COLUMN hooks.callback IS 'secret: callback URL with ?token=';
COMMENT ON COLUMN hooks.notify IS 'secret: URL with &signature=';
COMMENT ON COLUMN hooks.slack_hook IS 'secret: Slack incoming webhook';
COMMENT ON COLUMN hooks.chat_hook IS 'secret: Discord webhook';
COMMENT ON COLUMN hooks.telegram IS 'secret: Telegram bot URL';
COMMENT ON COLUMN hooks.dsn IS 'secret: database URL with a password';
COMMENT ON COLUMN hooks.broker IS 'secret: AMQP URL with a password';
COMMENT ON COLUMN hooks.presigned IS 'secret: S3 presigned URL';
COMMENT ON COLUMN hooks.oauth_redirect IS 'secret: access token in a URL fragment';
COMMENT ON COLUMN hooks.endpoint IS 'secret: web-push endpoint (FCM)';
COMMENT ON COLUMN hooks.moz_endpoint IS 'secret: web-push endpoint (Mozilla)';
COMMENT ON COLUMN hooks.key_p256dh IS 'secret: web-push p256dh key';
COMMENT ON COLUMN hooks.key_auth IS 'secret: web-push auth secret, 22 characters (known miss)';
COMMENT ON COLUMN hooks.recovery_codes IS 'secret: recovery codes text[]';
COMMENT ON COLUMN hooks.backup_digests IS 'secret: bcrypt digests of backup codes, text[]';
COMMENT ON COLUMN hooks.extra IS 'secret: json text with a password key';

--
-- Secrets in jsonb
--
CREATE TABLE providers (
	id int PRIMARY KEY,
	provider_config jsonb,
	smtp_settings jsonb,
	oauth jsonb,
	subscription jsonb,
	hooks_doc jsonb,
	vault json
);
INSERT INTO providers
SELECT i,
	jsonb_build_object('mode', 'live', 'api_key', rnd('ca' || i, 32), 'account', 'acct-' || i),
	jsonb_build_object('smtp', jsonb_build_object('host', 'smtp.example.com', 'port', 587, 'user', 'mailer', 'password', rnd('cb' || i, 16))),
	jsonb_build_object('access_token', rnd('cc' || i, 40, 'b64u'), 'refreshToken', rnd('cd' || i, 40, 'b64u'), 'token_type', 'bearer', 'expires_in', 3600),
	jsonb_build_object('endpoint', 'https://fcm.googleapis.com/fcm/send/' || rnd('ce' || i, 140, 'b64u'),
					   'keys', jsonb_build_object('p256dh', 'B' || rnd('cf' || i, 86, 'b64u'), 'auth', rnd('cg' || i, 22, 'b64u'))),
	jsonb_build_object('hooks', jsonb_build_array(jsonb_build_object('url', 'https://example.com/in?key=' || rnd('ch' || i, 24)))),
	json_build_object('vault', json_build_object('role', 'app', 'secret_id', rnd('ci' || i, 36, 'hex')))
FROM generate_series(1, 40) AS i;
COMMENT ON COLUMN providers.provider_config IS 'secret: jsonb with "api_key"';
COMMENT ON COLUMN providers.smtp_settings IS 'secret: jsonb with a nested "password"';
COMMENT ON COLUMN providers.oauth IS 'secret: jsonb with "access_token", "refreshToken"';
COMMENT ON COLUMN providers.subscription IS 'secret: jsonb web-push subscription';
COMMENT ON COLUMN providers.hooks_doc IS 'secret: jsonb array of URLs with ?key=';
COMMENT ON COLUMN providers.vault IS 'secret: json, a random value under "secret_id"';

--
-- Look-alikes: random-looking, URLs, json, arrays, that hold no secret
--
CREATE TABLE lookalikes (
	id int PRIMARY KEY,
	avatar text,
	google_avatar text,
	asset text,
	label text,
	handle_slug text,
	commit_sha text,
	gravatar text,
	correlation text,
	thumb text,
	thumb_uri text,
	about text,
	tracking text,
	usps text,
	payout_dest text,
	tags text[],
	parents text[],
	ordering text,
	stripe_customer text,
	stripe_charge text,
	page_cursor text,
	file_name text,
	blur text,
	public_pem text,
	cert text,
	image_ref text,
	version_tag text,
	landing text,
	colour text,
	order_code text,
	short_link text,
	sizes text[],
	short_id text,
	request_trace text
);
INSERT INTO lookalikes
SELECT i,
	'https://secure.gravatar.com/avatar/' || md5('user' || i || '@example.com') || '?s=80&d=identicon',
	'https://lh3.googleusercontent.com/a/ACg8oc' || rnd('da' || i, 60, 'b64u') || '=s96-c',
	'https://cdn.example.com/assets/application-' || rnd('db' || i, 64, 'hex') || '.js?v=' || rnd('dc' || i, 8, 'hex'),
	(ARRAY['Urgent', 'Needs review', 'Waiting on customer', 'Done', 'Backlog'])[1 + i % 5],
	(ARRAY['how-to-train-your-dragon', 'best-coffee-in-town-2023', 'release-notes-v2-3-1', 'getting-started-with-postgres-15'])[1 + i % 4] || '-' || i,
	encode(sha256(convert_to('commit' || i, 'UTF8')), 'hex')::varchar(40),
	md5('person' || i || '@example.com'),
	md5('c' || i)::uuid::text,
	'iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9h' || rnd('dd' || i, 300, 'b64'),
	'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk' || rnd('de' || i, 40, 'b64'),
	'We shipped the new dashboard on ' || (date '2023-01-01' + i) || '. It loads faster, shows every order of the week, and lets you export a CSV of the rows you filtered; thanks to everyone who tested it.',
	'1Z' || rnd('df' || i, 6, 'upper') || lpad((i * 7919)::text, 10, '0'),
	lpad((9400111899223197428490 + i)::text, 22, '0'),
	'DE89' || lpad((370400440532013000 + i)::text, 18, '0'),
	ARRAY['ruby', 'rails', 'postgres', 'tag' || i % 3],
	ARRAY[encode(sha256(convert_to('p' || i, 'UTF8')), 'hex')::varchar(40), encode(sha256(convert_to('q' || i, 'UTF8')), 'hex')::varchar(40)],
	'01H' || rnd('dg' || i, 23, 'upper'),
	'cus_' || rnd('dh' || i, 14),
	'ch_3' || rnd('di' || i, 23),
	b64u('{"after_id":' || (1000 + i) || ',"direction":"next","per_page":50}'),
	'IMG_2023' || lpad(i::text, 4, '0') || '_153012.jpg',
	'LEHV6nWB2yk8pyo0adR*.7kC' || lpad(i::text, 4, 'M'),
	E'-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA' || rnd('dj' || i, 40, 'b64') || E'\n-----END PUBLIC KEY-----',
	E'-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ' || rnd('dk' || i, 40, 'b64') || E'\n-----END CERTIFICATE-----',
	'registry.example.com/app@sha256:' || rnd('dl' || i, 64, 'hex'),
	'v' || (i % 4) || '.' || (i % 7) || '.' || i,
	'https://www.example.com/pricing?utm_source=newsletter&utm_medium=email&utm_campaign=spring_' || i || '&ref=homepage',
	'#' || rnd('dm' || i, 6, 'hex'),
	'ORD-2023-' || lpad(i::text, 6, '0'),
	'https://youtu.be/' || rnd('dn' || i, 11, 'b64u'),
	ARRAY['64x64', '128x128', '256x256', '512x512'],
	rnd('do' || i, 21, 'b64u'),
	'2' || rnd('dp' || i, 26)
FROM generate_series(1, 40) AS i;
COMMENT ON COLUMN lookalikes.avatar IS 'look-alike: Gravatar URL (md5 in the path, ?s=&d=)';
COMMENT ON COLUMN lookalikes.google_avatar IS 'look-alike: Google avatar URL, a long random path';
COMMENT ON COLUMN lookalikes.asset IS 'look-alike: CDN URL, fingerprinted file, cache-busting ?v=';
COMMENT ON COLUMN lookalikes.label IS 'look-alike: labels';
COMMENT ON COLUMN lookalikes.handle_slug IS 'look-alike: slugs';
COMMENT ON COLUMN lookalikes.commit_sha IS 'look-alike: git commit SHA';
COMMENT ON COLUMN lookalikes.gravatar IS 'look-alike: md5 of an e-mail address';
COMMENT ON COLUMN lookalikes.correlation IS 'look-alike: UUIDs';
COMMENT ON COLUMN lookalikes.thumb IS 'look-alike: base64 PNG thumbnail';
COMMENT ON COLUMN lookalikes.thumb_uri IS 'look-alike: data: URI of a PNG';
COMMENT ON COLUMN lookalikes.about IS 'look-alike: English text';
COMMENT ON COLUMN lookalikes.tracking IS 'look-alike: UPS tracking numbers';
COMMENT ON COLUMN lookalikes.usps IS 'look-alike: USPS tracking numbers, 22 digits';
COMMENT ON COLUMN lookalikes.payout_dest IS 'look-alike: IBAN-like';
COMMENT ON COLUMN lookalikes.tags IS 'look-alike: tags text[]';
COMMENT ON COLUMN lookalikes.parents IS 'look-alike: git SHAs text[]';
COMMENT ON COLUMN lookalikes.ordering IS 'look-alike: ULIDs';
COMMENT ON COLUMN lookalikes.stripe_customer IS 'look-alike: Stripe customer ids';
COMMENT ON COLUMN lookalikes.stripe_charge IS 'look-alike: Stripe charge ids (27 random characters)';
COMMENT ON COLUMN lookalikes.page_cursor IS 'look-alike: base64url of a json pagination cursor';
COMMENT ON COLUMN lookalikes.file_name IS 'look-alike: file names';
COMMENT ON COLUMN lookalikes.blur IS 'look-alike: blurhash';
COMMENT ON COLUMN lookalikes.public_pem IS 'look-alike: PEM public key';
COMMENT ON COLUMN lookalikes.cert IS 'look-alike: PEM certificate';
COMMENT ON COLUMN lookalikes.image_ref IS 'look-alike: container image digest';
COMMENT ON COLUMN lookalikes.version_tag IS 'look-alike: versions';
COMMENT ON COLUMN lookalikes.landing IS 'look-alike: URL with utm_ and ref= parameters';
COMMENT ON COLUMN lookalikes.colour IS 'look-alike: hex colours';
COMMENT ON COLUMN lookalikes.order_code IS 'look-alike: order numbers';
COMMENT ON COLUMN lookalikes.short_link IS 'look-alike: YouTube short links';
COMMENT ON COLUMN lookalikes.sizes IS 'look-alike: sizes text[]';
COMMENT ON COLUMN lookalikes.short_id IS 'look-alike: nanoid (21 characters)';
COMMENT ON COLUMN lookalikes.request_trace IS 'look-alike: KSUIDs, 27 random base62 characters (known false alarm)';

CREATE TABLE events (
	id int PRIMARY KEY,
	payload jsonb,
	prefs jsonb,
	placeholders jsonb,
	widget jsonb,
	geo json,
	headers jsonb,
	hashes jsonb
);
INSERT INTO events
SELECT i,
	jsonb_build_object('event', 'signup', 'plan', 'pro', 'utm_source', 'google', 'session_count', i, 'request_uuid', md5('r' || i)::uuid),
	jsonb_build_object('theme', 'dark', 'locale', 'en', 'token_type', 'bearer', 'publishable_key', 'pk_live_' || rnd('ea' || i, 24), 'secret_name', 'prod/db'),
	jsonb_build_object('api_key', '${STRIPE_API_KEY}', 'password', '********', 'token', '[FILTERED]'),
	jsonb_build_object('embed_url', 'https://www.youtube.com/embed/' || rnd('eb' || i, 11, 'b64u') || '?autoplay=1', 'width', 640),
	json_build_object('lat', 48.85 + i / 1000.0, 'lon', 2.35, 'geohash', 'u09tvw' || i),
	jsonb_build_object('user_agent', 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0', 'accept', 'text/html', 'etag', '"' || md5('e' || i) || '"'),
	jsonb_build_object('sha256', encode(sha256(convert_to('f' || i, 'UTF8')), 'hex'), 'md5', md5('f' || i), 'git', jsonb_build_object('commit', encode(sha256(convert_to('g' || i, 'UTF8')), 'hex')::varchar(40)))
FROM generate_series(1, 40) AS i;
COMMENT ON COLUMN events.payload IS 'look-alike: jsonb event with a UUID';
COMMENT ON COLUMN events.prefs IS 'look-alike: jsonb with token_type, a publishable key, secret_name';
COMMENT ON COLUMN events.placeholders IS 'look-alike: jsonb with placeholders under secret names';
COMMENT ON COLUMN events.widget IS 'look-alike: jsonb with an embed URL';
COMMENT ON COLUMN events.geo IS 'look-alike: json coordinates and a geohash';
COMMENT ON COLUMN events.headers IS 'look-alike: jsonb request headers with an ETag';
COMMENT ON COLUMN events.hashes IS 'look-alike: jsonb of digests';

RESET search_path;
