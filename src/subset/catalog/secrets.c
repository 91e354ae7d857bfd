/*-------------------------------------------------------------------------
 *
 * catalog/secrets.c
 *	  What a secret looks like: the rules that judge one string (a value, an
 *	  element of an array, a string of a json document), a json key's name
 *	  and an array, for safe mode's secrets found by their values
 *	  (catalog/values.c reads the values and counts).
 *
 * Each rule recognizes a kind of secret (SubsetSecretKind); doc/subset.md
 * (Safe mode) lists them with the figures of the corpus
 * test/subset/secrets_corpus.sql.  Strong kinds mark a column when one
 * sampled value holds one; weak kinds when half of them do:
 *
 *	strong:
 *	- a PEM private key ("-----BEGIN ... PRIVATE KEY-----"; public keys and
 *	  certificates are public);
 *	- a JWT: "eyJ" at the start of a word, three base64url segments joined
 *	  by dots, the first decoding to a JSON object with "alg";
 *	- a provider's key by its prefix (key_prefixes below: Stripe, GitHub,
 *	  GitLab, Slack, AWS, Google, SendGrid, OpenAI, npm, PyPI...) at the
 *	  start of a word, followed by enough characters of its alphabet;
 *	- a URL with a password (scheme://user:pass@), with a credential in a
 *	  query or fragment parameter (url_params: token=, key=, sig=,
 *	  signature=, access_token=, X-Amz-Signature=...; 8 or more characters,
 *	  not all digits), or of a service that holds its token in the path
 *	  (url_services: web-push endpoints, Slack, Discord and Teams webhooks,
 *	  Telegram bots);
 *	- HTTP Basic credentials ("Basic " and base64 of "user:password");
 *	- a web-push p256dh key: 87 base64url characters, the first "B" (an
 *	  uncompressed P-256 point);
 *	- a password digest: bcrypt, argon2, scrypt, crypt's $5$ and $6$,
 *	  PBKDF2 (Django's, passlib's), LDAP's {SSHA};
 *	- in json, a key named like a secret (secret_keys, secret_key_suffixes:
 *	  "api_key", "clientSecret", "refresh_token", "smtp_password"; not
 *	  "token_type", "public_key", "secret_name") holding a string or number
 *	  that is not a placeholder ("${STRIPE_KEY}", "********", "[FILTERED]"),
 *	  or an object or an array.
 *
 *	weak:
 *	- a long random token: a whole value of 24 to 512 characters of
 *	  [A-Za-z0-9_-+/=] with a digit and a lower-case letter, whose Shannon
 *	  entropy is within 0.75 bit of log2 of the smaller of its length and
 *	  its alphabet (16 for hex, 36 for lower case and digits, 64 else), and
 *	  whose neighbouring letters and digits change class in at least a
 *	  fifth of the pairs (words, slugs and camel case do not); not a UUID,
 *	  not a hex digest of a digest's length (32, 40, 64, 128: md5, git's
 *	  SHA-1, SHA-256, SHA-512, which hash public data as often as not), not
 *	  base64 of an image or of json ("eyJ": a pagination cursor), not an
 *	  object's id ("ch_3Mml...": 2 to 6 lower-case letters and "_").  Off
 *	  for a column named as an identifier or a digest (identifier_words
 *	  last, digest_name_words anywhere: "upload_ref", "commit_sha"); in
 *	  json, only under a key of random_keys or with a word of
 *	  secret_key_words ("secret_id"), from 16 characters;
 *	- an array of one-time codes: 4 or more distinct elements of one length,
 *	  6 to 32 characters of [A-Za-z0-9-], three quarters with a digit and a
 *	  lower-case letter, none a UUID or a hex digest (recovery codes).
 *
 * Nothing here reports: a rule answers yes or no, and never copies a value.
 *
 *-------------------------------------------------------------------------
 */
#include "subset/subset.h"

#include <math.h>

/* What each kind is called in a comment, and whether one value is enough. */
static const struct
{
	const char *what;
	bool		strong;
}			kinds[SUBSET_NUM_SECRET_KINDS] = {
	[SUBSET_SECRET_PEM] = {"a private key (PEM)", true},
	[SUBSET_SECRET_JWT] = {"a JWT", true},
	[SUBSET_SECRET_PREFIXED] = {"an API key with a provider's prefix", true},
	[SUBSET_SECRET_URL_PASSWORD] = {"a URL with a password", true},
	[SUBSET_SECRET_BASIC] = {"HTTP Basic credentials", true},
	[SUBSET_SECRET_URL_PARAM] = {"a URL with a token parameter", true},
	[SUBSET_SECRET_URL_SERVICE] = {"a web-push endpoint or a webhook URL with its token", true},
	[SUBSET_SECRET_PUSH_KEY] = {"a web-push key (p256dh)", true},
	[SUBSET_SECRET_DIGEST] = {"a password digest", true},
	[SUBSET_SECRET_JSON_KEY] = {"a json key named like a secret", true},
	[SUBSET_SECRET_CODES] = {"an array of one-time codes", false},
	[SUBSET_SECRET_TOKEN] = {"a long random token", false},
};

/* Characters that may follow a key's prefix. */
typedef enum PrefixChars
{
	CH_ALNUM,					/* [A-Za-z0-9] */
	CH_WORD,					/* [A-Za-z0-9_-] */
	CH_WORD_DOT,				/* [A-Za-z0-9_.-] */
	CH_UPPER,					/* [A-Z0-9] */
	CH_HEX,						/* [0-9a-f] */
	CH_BASE64					/* [A-Za-z0-9+/=] */
} PrefixChars;

/* A provider's key: a prefix, then min to max (0: any) such characters. */
typedef struct KeyPrefix
{
	const char *prefix;
	int			min;
	int			max;
	PrefixChars chars;
	bool		mixed;			/* the rest has an upper, a lower, a digit */
} KeyPrefix;

static const KeyPrefix key_prefixes[] = {
	/* Stripe: secret, restricted and webhook signing keys */
	{"sk_live_", 16, 0, CH_ALNUM, false}, {"sk_test_", 16, 0, CH_ALNUM, false},
	{"rk_live_", 16, 0, CH_ALNUM, false}, {"rk_test_", 16, 0, CH_ALNUM, false},
	{"whsec_", 24, 0, CH_ALNUM, false},
	/* GitHub, GitLab */
	{"ghp_", 30, 0, CH_ALNUM, false}, {"gho_", 30, 0, CH_ALNUM, false},
	{"ghu_", 30, 0, CH_ALNUM, false}, {"ghs_", 30, 0, CH_ALNUM, false},
	{"ghr_", 30, 0, CH_ALNUM, false}, {"github_pat_", 40, 0, CH_WORD, false},
	{"glpat-", 20, 0, CH_WORD, false}, {"glrt-", 20, 0, CH_WORD, false},
	/* Slack */
	{"xoxb-", 10, 0, CH_WORD, false}, {"xoxp-", 10, 0, CH_WORD, false},
	{"xoxa-", 10, 0, CH_WORD, false}, {"xoxr-", 10, 0, CH_WORD, false},
	{"xoxs-", 10, 0, CH_WORD, false}, {"xapp-", 10, 0, CH_WORD, false},
	/* AWS access key ids, Google API keys */
	{"AKIA", 16, 16, CH_UPPER, false}, {"ASIA", 16, 16, CH_UPPER, false},
	{"AIza", 35, 35, CH_WORD, false},
	/* SendGrid, OpenAI and Anthropic, npm, PyPI, Hugging Face */
	{"SG.", 60, 0, CH_WORD_DOT, false}, {"sk-", 32, 0, CH_WORD, true},
	{"npm_", 36, 0, CH_ALNUM, false}, {"pypi-", 50, 0, CH_WORD, false},
	{"hf_", 30, 0, CH_ALNUM, true},
	/* Shopify, DigitalOcean, Mailgun, Square, Brevo, Linear, Notion */
	{"shpat_", 32, 32, CH_HEX, false}, {"shpss_", 32, 32, CH_HEX, false},
	{"shpca_", 32, 32, CH_HEX, false}, {"shppa_", 32, 32, CH_HEX, false},
	{"dop_v1_", 64, 64, CH_HEX, false}, {"key-", 32, 32, CH_HEX, false},
	{"sq0atp-", 22, 0, CH_WORD, false}, {"sq0csp-", 40, 0, CH_WORD, false},
	{"xkeysib-", 60, 0, CH_WORD, false}, {"lin_api_", 40, 0, CH_ALNUM, false},
	{"secret_", 43, 43, CH_ALNUM, true}, {"ntn_", 40, 0, CH_ALNUM, true},
	/* Azure storage connection strings */
	{"AccountKey=", 40, 0, CH_BASE64, false},
	{NULL, 0, 0, CH_ALNUM, false}
};

/* Query or fragment parameters that carry a credential (lower case). */
static const char *const url_params[] = {
	"access_token", "api_key", "api-key", "apikey", "auth", "auth_token",
	"client_secret", "code_verifier", "hmac", "id_token", "jwt", "key",
	"pass", "password", "private_token", "pwd", "refresh_token", "secret",
	"session", "sessionid", "sig", "signature", "token", "x-amz-security-token",
	"x-amz-signature", "x-goog-signature", NULL
};

/* Services whose URLs hold their token in the path: host, path prefix. */
static const char *const url_services[][2] = {
	/* web push */
	{"fcm.googleapis.com", "/fcm/send/"}, {"fcm.googleapis.com", "/wp/"},
	{"android.googleapis.com", "/gcm/send/"},
	{"updates.push.services.mozilla.com", "/wpush/"},
	{"notify.windows.com", "/w/"}, {"web.push.apple.com", "/"},
	/* webhooks and bots */
	{"hooks.slack.com", "/services/"}, {"hooks.slack.com", "/workflows/"},
	{"hooks.slack.com", "/triggers/"}, {"discord.com", "/api/webhooks/"},
	{"discordapp.com", "/api/webhooks/"}, {"webhook.office.com", "/webhookb2/"},
	{"outlook.office.com", "/webhook/"}, {"api.telegram.org", "/bot"},
	{NULL, NULL}
};

/* Json keys (lower case, letters and digits only) that end a secret's name. */
static const char *const secret_key_suffixes[] = {
	"accesskey", "apikey", "credential", "credentials", "encryptionkey",
	"passphrase", "passwd", "password", "privatekey", "secret", "secretkey",
	"signingkey", "token", NULL
};

/*
 * Json keys that hold a secret when their value looks random: these, and
 * those with a word of secret_key_words ("secret_id", "token_value").
 */
static const char *const random_keys[] = {"auth", "key", "sig", "signature", NULL};
static const char *const secret_key_words[] = {"apikey", "password", "secret", "token", NULL};

/* Exact json keys that are secrets: short passwords, web-push's key. */
static const char *const secret_keys[] = {"p256dh", "pass", "pwd", NULL};

/* Last words of a column named as an identifier (entropy rule off). */
static const char *const identifier_words[] = {
	"guid", "id", "ids", "no", "number", "ref", "reference", "revision",
	"sku", "slug", "uid", "uuid", "version", NULL
};

/* Words anywhere in a column name that say it holds digests. */
static const char *const digest_name_words[] = {
	"checksum", "commit", "digest", "etag", "fingerprint", "hash", "sha",
	"sha1", "sha256", NULL
};

/*
 * is_alnum
 *		[A-Za-z0-9], ASCII only.
 */
static inline bool
is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/*
 * is_hex
 *		[0-9a-fA-F].
 */
static inline bool
is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/*
 * is_b64url
 *		A base64url character: [A-Za-z0-9_-].
 */
static inline bool
is_b64url(char c)
{
	return is_alnum(c) || c == '_' || c == '-';
}

/*
 * prefix_char_ok
 *		May c follow a key prefix whose characters are chars?
 */
static bool
prefix_char_ok(char c, PrefixChars chars)
{
	switch (chars)
	{
		case CH_ALNUM:
			return is_alnum(c);
		case CH_WORD:
			return is_b64url(c);
		case CH_WORD_DOT:
			return is_b64url(c) || c == '.';
		case CH_UPPER:
			return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
		case CH_HEX:
			return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
		case CH_BASE64:
			return is_alnum(c) || c == '+' || c == '/' || c == '=';
	}
	return false;
}

/*
 * has_classes
 *		Does s[0..n) hold an upper-case letter, a lower-case letter and a
 *		digit?
 */
static bool
has_classes(const char *s, int n)
{
	bool		upper = false,
				lower = false,
				digit = false;
	int			i;

	for (i = 0; i < n; i++)
	{
		upper |= (s[i] >= 'A' && s[i] <= 'Z');
		lower |= (s[i] >= 'a' && s[i] <= 'z');
		digit |= (s[i] >= '0' && s[i] <= '9');
	}
	return upper && lower && digit;
}

/*
 * has_prefixed_key
 *		Does s hold a provider's key (key_prefixes): its prefix at the
 *		start of a word, then enough characters of its kind?
 */
static bool
has_prefixed_key(const char *s)
{
	int			i;

	for (i = 0; key_prefixes[i].prefix; i++)
	{
		const KeyPrefix *k = &key_prefixes[i];
		const char *p = s;

		while ((p = strstr(p, k->prefix)) != NULL)
		{
			const char *t = p + strlen(k->prefix);
			int			n = 0;

			if (p == s || !is_alnum(p[-1]))
			{
				while (prefix_char_ok(t[n], k->chars))
					n++;
				if (n >= k->min && (k->max == 0 || n == k->max) &&
					(!k->mixed || has_classes(t, n)))
					return true;
			}
			p++;
		}
	}
	return false;
}

/*
 * has_private_key
 *		Does s hold "-----BEGIN ... PRIVATE KEY-----" (or "... PRIVATE KEY
 *		BLOCK-----", PGP's)?
 */
static bool
has_private_key(const char *s)
{
	const char *p = s;

	while ((p = strstr(p, "-----BEGIN ")) != NULL)
	{
		const char *label = p + 11;
		const char *end = strstr(label, "-----");

		if (end != NULL && end - label < 64)
		{
			char		buf[64];

			memcpy(buf, label, end - label);
			buf[end - label] = '\0';
			if (strstr(buf, "PRIVATE KEY") != NULL)
				return true;
		}
		p = label;
	}
	return false;
}

/*
 * b64url_value
 *		The 6 bits of a base64url (or base64) character, or -1.
 */
static int
b64url_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '-' || c == '+')
		return 62;
	if (c == '_' || c == '/')
		return 63;
	return -1;
}

/*
 * jwt_header
 *		Does the base64url segment s[0..n) decode to a JSON object with an
 *		"alg" member (a JWT's header)?  Only its first 256 characters are
 *		decoded: a header is short.
 */
static bool
jwt_header(const char *s, int n)
{
	char		out[200];
	int			len = 0;
	uint32		acc = 0;
	int			bits = 0;
	int			i;

	for (i = 0; i < n && i < 256; i++)
	{
		acc = (acc << 6) | (uint32) b64url_value(s[i]);
		bits += 6;
		if (bits >= 8)
		{
			bits -= 8;
			out[len++] = (char) ((acc >> bits) & 0xFF);
		}
	}
	out[len] = '\0';
	return len > 0 && out[0] == '{' && strstr(out, "\"alg\"") != NULL;
}

/*
 * has_jwt
 *		Does s hold a JWT: "eyJ" at the start of a word, three base64url
 *		segments joined by dots (the third may be empty: "alg": "none"),
 *		the first a JSON header with "alg"?
 */
static bool
has_jwt(const char *s)
{
	const char *p = s;

	while ((p = strstr(p, "eyJ")) != NULL)
	{
		int			a = 0,
					b = 0;

		if (p == s || !is_b64url(p[-1]))
		{
			while (is_b64url(p[a]))
				a++;
			if (p[a] == '.')
			{
				while (is_b64url(p[a + 1 + b]))
					b++;
				if (a >= 10 && b >= 2 && p[a + 1 + b] == '.' && jwt_header(p, a))
					return true;
			}
		}
		p += 3;
	}
	return false;
}

/*
 * has_basic_auth
 *		Does s hold HTTP Basic credentials: "Basic " then base64 of 8 or more
 *		characters that decodes to printable text with a ":" between a
 *		user and a password?
 */
static bool
has_basic_auth(const char *s)
{
	const char *p = s;

	while ((p = strstr(p, "Basic ")) != NULL)
	{
		const char *b = p + 6;
		char		out[96];
		int			len = 0,
					bits = 0,
					i;
		uint32		acc = 0;
		bool		printable = true;
		char	   *colon;

		for (i = 0; b[i] && b64url_value(b[i]) >= 0 && len < (int) sizeof(out) - 1; i++)
		{
			acc = (acc << 6) | (uint32) b64url_value(b[i]);
			bits += 6;
			if (bits >= 8)
			{
				bits -= 8;
				out[len++] = (char) ((acc >> bits) & 0xFF);
			}
		}
		out[len] = '\0';
		for (i = 0; i < len; i++)
			printable &= (out[i] >= 0x20 && out[i] < 0x7F);
		colon = strchr(out, ':');
		if (len >= 6 && printable && colon != NULL && colon > out && colon[1] != '\0')
			return true;
		p = b;
	}
	return false;
}

/*
 * subset_secret_placeholder
 *		Is s[0..n) a placeholder rather than a secret: short, one character
 *		repeated ("********"), a reference to elsewhere ("${API_KEY}",
 *		"<password>", "{{token}}", "[FILTERED]"), or a word such as
 *		"redacted"?
 */
bool
subset_secret_placeholder(const char *s, int n)
{
	static const char *const words[] = {
		"changeme", "false", "filtered", "none", "null", "password", "redacted",
		"secret", "true", "undefined", NULL
	};
	char		low[16];
	int			i;

	if (n < 4)
		return true;
	if (s[0] == '$' || s[0] == '<' || s[0] == '{' || s[0] == '[' || s[0] == '%')
		return true;
	for (i = 1; i < n && s[i] == s[0]; i++)
		;
	if (i == n)
		return true;
	if (n >= (int) sizeof(low))
		return false;
	for (i = 0; i < n; i++)
		low[i] = (s[i] >= 'A' && s[i] <= 'Z') ? s[i] - 'A' + 'a' : s[i];
	low[n] = '\0';
	return subset_word_in(low, words);
}

/*
 * url_param_hit
 *		Do the parameters of q[0..n) ("a=1&b=2", a query or a fragment)
 *		hold a credential: a name of url_params with a value of 8 or more
 *		characters, not all digits (a timestamp), not a placeholder?
 */
static bool
url_param_hit(const char *q, int n)
{
	int			i = 0;

	while (i < n)
	{
		int			start = i,
					eq = -1,
					end;

		while (i < n && q[i] != '&' && q[i] != ';')
		{
			if (q[i] == '=' && eq < 0)
				eq = i;
			i++;
		}
		end = i++;
		if (eq > start && eq - start < 32 && end - eq - 1 >= 8)
		{
			char		name[32];
			int			k;
			bool		digits = true;

			for (k = start; k < eq; k++)
				name[k - start] = (q[k] >= 'A' && q[k] <= 'Z') ? q[k] - 'A' + 'a' : q[k];
			name[eq - start] = '\0';
			for (k = eq + 1; k < end; k++)
				digits &= (q[k] >= '0' && q[k] <= '9');
			if (subset_word_in(name, url_params) && !digits &&
				!subset_secret_placeholder(q + eq + 1, end - eq - 1))
				return true;
		}
	}
	return false;
}

/*
 * url_service_hit
 *		Is host (lower case) with path one of url_services', with 8 or more
 *		characters after the service's path?
 */
static bool
url_service_hit(const char *host, int hlen, const char *path, int plen)
{
	int			i;

	for (i = 0; url_services[i][0]; i++)
	{
		int			sh = strlen(url_services[i][0]);
		int			sp = strlen(url_services[i][1]);

		if (hlen < sh || memcmp(host + hlen - sh, url_services[i][0], sh) != 0 ||
			(hlen > sh && host[hlen - sh - 1] != '.'))
			continue;
		if (plen >= sp + 8 && memcmp(path, url_services[i][1], sp) == 0)
			return true;
	}
	return false;
}

/*
 * judge_urls
 *		The kinds of secret the URLs in s hold (SUBSET_SECRET_BIT()s): a
 *		password in the authority, a credential parameter in the query or
 *		the fragment, a service that holds its token in the path.
 */
static uint32
judge_urls(const char *s)
{
	uint32		found = 0;
	const char *p = s;

	while ((p = strstr(p, "://")) != NULL)
	{
		const char *rest = p + 3;
		const char *end = rest;
		const char *auth_end;
		const char *at = NULL;
		const char *host;
		const char *q;
		char		lhost[256];
		int			hlen = 0;

		if (p - s < 2 || !is_alnum(p[-1]))
		{
			p = rest;
			continue;
		}
		while (*end && *end != ' ' && *end != '"' && *end != '\'' &&
			   *end != '<' && *end != '>' && *end != '\n' && *end != '\t')
			end++;
		for (auth_end = rest; auth_end < end && *auth_end != '/' &&
			 *auth_end != '?' && *auth_end != '#'; auth_end++)
			if (*auth_end == '@')
				at = auth_end;
		if (at != NULL)
		{
			const char *colon = memchr(rest, ':', at - rest);

			if (colon != NULL && !subset_secret_placeholder(colon + 1, at - colon - 1))
				found |= SUBSET_SECRET_BIT(SUBSET_SECRET_URL_PASSWORD);
		}
		host = at ? at + 1 : rest;
		while (host + hlen < auth_end && host[hlen] != ':' && hlen < (int) sizeof(lhost) - 1)
		{
			char		c = host[hlen];

			lhost[hlen++] = (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
		}
		lhost[hlen] = '\0';
		if (url_service_hit(lhost, hlen, auth_end, end - auth_end))
			found |= SUBSET_SECRET_BIT(SUBSET_SECRET_URL_SERVICE);
		for (q = auth_end; q < end; q++)
			if (*q == '?' || *q == '#')
			{
				const char *e = q + 1;

				while (e < end && *e != '#')
					e++;
				if (url_param_hit(q + 1, e - q - 1))
					found |= SUBSET_SECRET_BIT(SUBSET_SECRET_URL_PARAM);
			}
		p = end;
	}
	return found;
}

/*
 * is_digest
 *		Is s[0..n) a password digest in one of the formats of crypt(3) and
 *		of the libraries applications use: bcrypt, argon2, scrypt, sha-crypt,
 *		PBKDF2 (Django's and passlib's), LDAP's salted SHA?
 */
static bool
is_digest(const char *s, int n)
{
	static const char *const prefixes[] = {
		"$argon2", "$scrypt$", "$pbkdf2", "pbkdf2_sha256$", "pbkdf2_sha1$",
		"{SSHA}", "{SSHA256}", "{SSHA512}", NULL
	};
	int			i;

	if (n == 60 && s[0] == '$' && s[1] == '2' && s[3] == '$' && s[6] == '$' &&
		strchr("abxy", s[2]) != NULL)
		return true;
	if (n > 30 && s[0] == '$' && (s[1] == '5' || s[1] == '6') && s[2] == '$')
		return true;
	for (i = 0; prefixes[i]; i++)
		if (n > (int) strlen(prefixes[i]) + 16 &&
			strncmp(s, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

/*
 * is_push_key
 *		Is s[0..n) a web-push p256dh key: an uncompressed P-256 point, 65
 *		bytes, in base64url (87 characters, 88 with padding), whose first
 *		byte 0x04 makes the first character "B"?
 */
static bool
is_push_key(const char *s, int n)
{
	int			i;

	if (n == 88 && s[87] == '=')
		n = 87;
	if (n != 87 || s[0] != 'B')
		return false;
	for (i = 0; i < n; i++)
		if (b64url_value(s[i]) < 0)
			return false;
	return true;
}

/*
 * is_uuid_or_digest
 *		Is s[0..n) a UUID (with or without its dashes) or a hex digest of a
 *		digest's length (md5, SHA-1, SHA-256, SHA-512)?
 */
static bool
is_uuid_or_digest(const char *s, int n)
{
	int			i;

	if (n == 36)
	{
		for (i = 0; i < 36; i++)
			if ((i == 8 || i == 13 || i == 18 || i == 23) ? s[i] != '-' : !is_hex(s[i]))
				break;
		if (i == 36)
			return true;
	}
	if (n != 32 && n != 40 && n != 64 && n != 128)
		return false;
	for (i = 0; i < n; i++)
		if (!is_hex(s[i]))
			return false;
	return true;
}

/*
 * looks_random
 *		Is s[0..n) a long random token (the weak rule of the file header):
 *		min to 512 characters of [A-Za-z0-9_-+/=] with a digit and a
 *		lower-case letter; Shannon entropy within 0.75 bit of log2 of the
 *		smaller of its length and its alphabet (16 for hex, 36 for lower
 *		case and digits, 64 else); letters and digits alternating in at
 *		least a fifth of the neighbouring pairs; not a UUID, a hex digest or
 *		base64 of an image.
 */
static bool
looks_random(const char *s, int n, int min)
{
	static const char *const images[] = {
		"iVBORw0KGgo", "/9j/", "R0lGOD", "UklGR", "PHN2Zy", "Qk0", NULL
	};
	int			counts[256] = {0};
	bool		lower = false,
				upper = false,
				digit = false,
				hex = true;
	int			pairs = 0,
				changes = 0;
	int			alphabet;
	double		h = 0;
	int			i;

	if (n < min || n > 512)
		return false;
	for (i = 0; i < n; i++)
	{
		unsigned char c = (unsigned char) s[i];

		if (!is_alnum(c) && c != '_' && c != '-' && c != '+' && c != '/' && c != '=')
			return false;
		lower |= (c >= 'a' && c <= 'z');
		upper |= (c >= 'A' && c <= 'Z');
		digit |= (c >= '0' && c <= '9');
		hex &= is_hex(c);
		counts[c]++;
		if (i > 0 && is_alnum(s[i - 1]) && is_alnum(c))
		{
			char		a = s[i - 1];
			int			ca = (a >= 'a' && a <= 'z') ? 0 : (a >= 'A' && a <= 'Z') ? 1 : 2;
			int			cb = (c >= 'a' && c <= 'z') ? 0 : (c >= 'A' && c <= 'Z') ? 1 : 2;

			pairs++;
			changes += (ca != cb);
		}
	}
	if (!lower || !digit || is_uuid_or_digest(s, n))
		return false;
	for (i = 0; images[i]; i++)
		if (strncmp(s, images[i], strlen(images[i])) == 0)
			return false;
	/* base64 of json (a pagination cursor), an object's id ("ch_3Mml...") */
	if (strncmp(s, "eyJ", 3) == 0)
		return false;
	for (i = 0; i < n && i < 7 && s[i] >= 'a' && s[i] <= 'z'; i++)
		;
	if (i >= 2 && i <= 6 && s[i] == '_')
		return false;
	if (pairs == 0 || changes * 5 < pairs)
		return false;
	for (i = 0; i < 256; i++)
		if (counts[i] > 0)
		{
			double		p = (double) counts[i] / n;

			h -= p * log2(p);
		}
	alphabet = hex ? 16 : upper ? 64 : 36;
	return h >= log2((double) Min(n, alphabet)) - 0.75;
}

/*
 * subset_secret_string
 *		The kinds of secret s holds (SUBSET_SECRET_BIT()s), by the rules of
 *		the file header that judge one string; the random-token rule only
 *		when tokens, from min_token characters.  The caller cuts a long
 *		value (catalog/values.c reads a prefix).
 */
uint32
subset_secret_string(const char *s, bool tokens, int min_token)
{
	uint32		found = 0;
	const char *b = s;
	int			n;

	if (has_private_key(s))
		found |= SUBSET_SECRET_BIT(SUBSET_SECRET_PEM);
	if (has_jwt(s))
		found |= SUBSET_SECRET_BIT(SUBSET_SECRET_JWT);
	if (has_prefixed_key(s))
		found |= SUBSET_SECRET_BIT(SUBSET_SECRET_PREFIXED);
	if (strstr(s, "://") != NULL)
		found |= judge_urls(s);
	if (has_basic_auth(s))
		found |= SUBSET_SECRET_BIT(SUBSET_SECRET_BASIC);

	/* rules on the whole value, blanks around it cut */
	while (*b == ' ' || *b == '\n' || *b == '\t' || *b == '\r')
		b++;
	n = strlen(b);
	while (n > 0 && (b[n - 1] == ' ' || b[n - 1] == '\n' || b[n - 1] == '\t' || b[n - 1] == '\r'))
		n--;
	if (is_digest(b, n))
		found |= SUBSET_SECRET_BIT(SUBSET_SECRET_DIGEST);
	else if (is_push_key(b, n))
		found |= SUBSET_SECRET_BIT(SUBSET_SECRET_PUSH_KEY);
	else if (tokens && found == 0 && looks_random(b, n, min_token))
		found |= SUBSET_SECRET_BIT(SUBSET_SECRET_TOKEN);
	return found;
}

/*
 * compact_key
 *		A json key in lower case without its separators ("client_secret",
 *		"clientSecret" and "client-secret" give "clientsecret"), cut at 63
 *		characters, into out.
 */
static void
compact_key(const char *key, char *out)
{
	int			n = 0;

	for (; *key && n < 63; key++)
		if (is_alnum(*key))
			out[n++] = (*key >= 'A' && *key <= 'Z') ? *key - 'A' + 'a' : *key;
	out[n] = '\0';
}

/*
 * subset_secret_key_name
 *		Is a json key named like a secret: a name of secret_keys, or one
 *		ending in a suffix of secret_key_suffixes ("api_key",
 *		"stripeSecretKey", "webhook_secret", "refresh_token"; not
 *		"token_type", "public_key", "secret_name")?
 */
bool
subset_secret_key_name(const char *key)
{
	char		c[64];
	int			n,
				i;

	compact_key(key, c);
	n = strlen(c);
	if (subset_word_in(c, secret_keys))
		return true;
	for (i = 0; secret_key_suffixes[i]; i++)
	{
		int			k = strlen(secret_key_suffixes[i]);

		if (n >= k && strcmp(c + n - k, secret_key_suffixes[i]) == 0)
			return true;
	}
	return false;
}

/*
 * subset_secret_path_key
 *		May key be an element of a mask's path: of the grammar
 *		exwiw_mask_json accepts (a letter or "_", then letters, digits or
 *		"_"), at most 40 characters, not random-looking, without a run of
 *		six digits (an id)?
 */
bool
subset_secret_path_key(const char *key)
{
	int			n = strlen(key);
	int			i,
				run = 0;

	if (n == 0 || n > 40 || !((key[0] >= 'a' && key[0] <= 'z') ||
							  (key[0] >= 'A' && key[0] <= 'Z') || key[0] == '_'))
		return false;
	for (i = 0; i < n; i++)
	{
		if (!is_alnum(key[i]) && key[i] != '_')
			return false;
		run = (key[i] >= '0' && key[i] <= '9') ? run + 1 : 0;
		if (run >= 6)
			return false;
	}
	return !looks_random(key, n, 12);
}

/*
 * subset_secret_codes
 *		Is the array of n strings a set of one-time codes: 4 or more
 *		distinct elements of one length, 6 to 32 characters of
 *		[A-Za-z0-9-], most (three quarters) with a digit and a lower-case
 *		letter, none a UUID or a hex digest?
 */
bool
subset_secret_codes(char **elems, int n)
{
	int			len,
				mixed = 0;
	int			i,
				j;

	if (n < 4)
		return false;
	len = strlen(elems[0]);
	if (len < 6 || len > 32)
		return false;
	for (i = 0; i < n; i++)
	{
		bool		lower = false,
					digit = false;

		if ((int) strlen(elems[i]) != len || is_uuid_or_digest(elems[i], len))
			return false;
		for (j = 0; j < len; j++)
		{
			char		c = elems[i][j];

			if (!is_alnum(c) && c != '-')
				return false;
			lower |= (c >= 'a' && c <= 'z');
			digit |= (c >= '0' && c <= '9');
		}
		mixed += (lower && digit);
		for (j = 0; j < i; j++)
			if (strcmp(elems[i], elems[j]) == 0)
				return false;
	}
	return mixed * 4 >= n * 3;
}

/*
 * subset_secret_is_url
 *		Is s one URL (http or https, no blank inside)?
 */
bool
subset_secret_is_url(const char *s)
{
	if (strncmp(s, "https://", 8) != 0 && strncmp(s, "http://", 7) != 0)
		return false;
	return strpbrk(s, " \t\n\r") == NULL;
}

/*
 * subset_secret_random_column
 *		Does the random-token rule apply to a column of this name: not one
 *		named as an identifier or a digest (identifier_words,
 *		digest_name_words; the name cut into words as catalog/sensitive.c
 *		cuts it, crudely: at non-letters and lower-to-upper changes)?
 */
bool
subset_secret_random_column(const char *name)
{
	char		words[16][64];
	int			n = 0,
				len = 0,
				i;
	const char *p;

	for (p = name;; p++)
	{
		bool		letter = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			(*p >= '0' && *p <= '9' && len > 0);
		bool		boundary = !letter ||
			(len > 0 && *p >= 'A' && *p <= 'Z' && p[-1] >= 'a' && p[-1] <= 'z');

		if (boundary && len > 0 && n < 16)
		{
			words[n++][len] = '\0';
			len = 0;
		}
		if (*p == '\0')
			break;
		if (letter && len < 63 && n < 16)
			words[n][len++] = (*p >= 'A' && *p <= 'Z') ? *p - 'A' + 'a' : *p;
	}
	if (n > 0 && subset_word_in(words[n - 1], identifier_words))
		return false;
	for (i = 0; i < n; i++)
		if (subset_word_in(words[i], digest_name_words))
			return false;
	return true;
}

/*
 * subset_secret_kind_name
 *		What kind is called in a config's comment.
 */
const char *
subset_secret_kind_name(SubsetSecretKind kind)
{
	return kinds[kind].what;
}

/*
 * subset_secret_kind_strong
 *		Does one sampled value of kind mark its column?
 */
bool
subset_secret_kind_strong(SubsetSecretKind kind)
{
	return kinds[kind].strong;
}

/*
 * subset_secret_random_key
 *		Is a json key one under which a random-looking value is a secret: a
 *		key of random_keys ("key", "auth", "sig", "signature") or with a word
 *		of secret_key_words ("secret_id", "token_value")?
 */
bool
subset_secret_random_key(const char *key)
{
	char		c[64];
	int			i;

	compact_key(key, c);
	if (subset_word_in(c, random_keys))
		return true;
	for (i = 0; secret_key_words[i]; i++)
		if (strstr(c, secret_key_words[i]) != NULL)
			return true;
	return false;
}
