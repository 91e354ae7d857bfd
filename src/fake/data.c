/*-------------------------------------------------------------------------
 *
 * fake/data.c
 *	  Deterministic fake values for replace_with_fake_data: the engine of
 *	  exwiw_fake() (fake/funcs.c) and of the pseudonym masks
 *	  (mask/pseudonym.c).
 *
 * As the Ruby client does: the SHA-256 of the seed (the text of the row's
 * seed column, "" for NULL) picks an entry of a fixed pool; its first eight
 * bytes, read as a big-endian unsigned integer, are the index (modulo the
 * pool's size), and the next eight give the hex suffix that keeps e-mail
 * addresses and user names unique.  So one seed value gives the same fake
 * value in every run, on every machine, in every table; a person's first
 * and last name stay a pair when both are seeded by the same column.  The
 * pools are exwiw's own (fake/words.c): the values do not match the
 * client's Faker output.
 *
 * Types: name (or human_name), first_name, last_name, email, username,
 * phone_number, address, city, company (or company_name); with locale
 * "ja", Japanese names (surname first), their *_kana readings, Japanese
 * addresses and phone numbers.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"
#include "fake/fake.h"

#include "common/cryptohash.h"
#include "common/sha2.h"
#include "utils/builtins.h"

/*
 * fake_digest
 *		SHA-256 of seed[0..len), as the two integers the pools use.
 */
FakeDigest
fake_digest(const char *seed, size_t len)
{
	pg_cryptohash_ctx *ctx = pg_cryptohash_create(PG_SHA256);
	uint8		d[PG_SHA256_DIGEST_LENGTH];
	FakeDigest	r = {0, 0};
	int			i;

	if (ctx == NULL || pg_cryptohash_init(ctx) < 0 ||
		pg_cryptohash_update(ctx, (const uint8 *) seed, len) < 0 ||
		pg_cryptohash_final(ctx, d, sizeof(d)) < 0)
		elog(ERROR, "could not compute a SHA-256 digest");
	pg_cryptohash_free(ctx);
	for (i = 0; i < 8; i++)
	{
		r.index = (r.index << 8) | d[i];
		r.suffix = (r.suffix << 8) | d[8 + i];
	}
	return r;
}

/* Pick entry i of a pool of n. */
#define PICK(pool, n, i)	((pool)[(i) % (uint64) (n)])

/* pg_tolower(c), its ASCII case inline */
#define LOGIN_LOWER(c) \
	((c) >= 'A' && (c) <= 'Z' ? (c) + ('a' - 'A') : \
	 IS_HIGHBIT_SET(c) ? pg_tolower(c) : (c))

/*
 * A name of a login, lower case, in a slot of LOGIN_SLOT bytes (copied
 * whole: the bytes after the name are overwritten by what follows it).
 */
#define LOGIN_SLOT 16
typedef struct LoginName
{
	char		s[LOGIN_SLOT];
	int			len;
} LoginName;

/*
 * The English name pools lower case, built once per backend
 * (login_names): the login of every masked e-mail copies two of them.
 */
static LoginName login_first[FAKE_FIRST_NAMES_N];
static LoginName login_last[FAKE_LAST_NAMES_N];
static bool login_names_built = false;

/*
 * lower_names
 *		The n names of pool lower case into names; a name too long for a
 *		slot is a can't-happen (the pools are fake/words.c's).
 */
static void
lower_names(const char *const *pool, int n, LoginName *names)
{
	int			i;
	int			k;

	for (i = 0; i < n; i++)
	{
		int			len = strlen(pool[i]);

		if (len >= LOGIN_SLOT)
			elog(ERROR, "fake name \"%s\" is too long for a login", pool[i]);
		memset(names[i].s, 0, LOGIN_SLOT);
		for (k = 0; k < len; k++)
			names[i].s[k] = LOGIN_LOWER((unsigned char) pool[i][k]);
		names[i].len = len;
	}
}

/*
 * fake_login
 *		A user name, first.last_<16 hex digits> (the names lower case, the
 *		digits keep it unique), or an e-mail address,
 *		first.last.<16 hex digits>@example.com, from digest g, written by
 *		hand after room bytes left for the caller (a varlena header) and
 *		followed by a NUL; *len is its length.  It is the pseudonym of every
 *		e-mail column (mask/pseudonym.c), once a row: the names are copied
 *		from the lower-case pools (built on the first call), the digits two
 *		at a time.
 */
char *
fake_login(bool email, FakeDigest g, int room, int *len)
{
	static const char domain[] = "@example.com";
	static char hex_pairs[256][2];
	const LoginName *first;
	const LoginName *last;
	char	   *r;
	char	   *p;
	int			k;

	if (!login_names_built)
	{
		static const char hex[] = "0123456789abcdef";

		lower_names(fake_first_names, FAKE_FIRST_NAMES_N, login_first);
		lower_names(fake_last_names, FAKE_LAST_NAMES_N, login_last);
		for (k = 0; k < 256; k++)
		{
			hex_pairs[k][0] = hex[k >> 4];
			hex_pairs[k][1] = hex[k & 0xf];
		}
		login_names_built = true;
	}
	first = &PICK(login_first, FAKE_FIRST_NAMES_N, g.index);
	last = &PICK(login_last, FAKE_LAST_NAMES_N, g.index / FAKE_FIRST_NAMES_N);
	/* room for the whole slots, which are copied whole */
	r = palloc(room + LOGIN_SLOT + 1 + LOGIN_SLOT + 1 + 16 + sizeof(domain));
	p = r + room;
	memcpy(p, first->s, LOGIN_SLOT);
	p += first->len;
	*p++ = '.';
	memcpy(p, last->s, LOGIN_SLOT);
	p += last->len;
	*p++ = email ? '.' : '_';
	for (k = 7; k >= 0; k--)
	{
		memcpy(p, hex_pairs[(g.suffix >> (8 * k)) & 0xff], 2);
		p += 2;
	}
	if (email)
	{
		memcpy(p, domain, sizeof(domain));
		p += sizeof(domain) - 1;
	}
	*p = '\0';
	*len = p - (r + room);
	return r;
}

/*
 * fake_value
 *		The fake value of type for locale ("ja" or NULL) from digest.
 *		Also used by the pseudonym mask (mask/pseudonym.c), whose digest
 *		is a keyed HMAC instead of the seed's SHA-256.
 */
char *
fake_value(const char *type, bool ja, FakeDigest g)
{
	uint64		i = g.index;

	/* the same in both locales (no type above matches these two) */
	if (strcmp(type, "email") == 0 || strcmp(type, "username") == 0)
	{
		int			len;

		return fake_login(type[0] == 'e', g, 0, &len);
	}
	/* a person: first name from the index, last name from its quotient */
	if (ja)
	{
		const FakeName *first = &fake_ja_first_names[i % fake_ja_first_names_n];
		const FakeName *last = &fake_ja_last_names[(i / fake_ja_first_names_n) % fake_ja_last_names_n];

		if (strcmp(type, "name") == 0 || strcmp(type, "human_name") == 0)
			return psprintf("%s %s", last->kanji, first->kanji);
		if (strcmp(type, "human_name_kana") == 0)
			return psprintf("%s %s", last->kana, first->kana);
		if (strcmp(type, "first_name") == 0)
			return pstrdup(first->kanji);
		if (strcmp(type, "first_name_kana") == 0)
			return pstrdup(first->kana);
		if (strcmp(type, "last_name") == 0)
			return pstrdup(last->kanji);
		if (strcmp(type, "last_name_kana") == 0)
			return pstrdup(last->kana);
		if (strcmp(type, "phone_number") == 0)
			return psprintf("090-%04d-%04d", (int) (i % 10000), (int) ((i / 10000) % 10000));
		if (strcmp(type, "address") == 0)
			return psprintf("%s%s%d-%d-%d",
							PICK(fake_ja_cities, fake_ja_cities_n, i),
							PICK(fake_ja_towns, fake_ja_towns_n, i / fake_ja_cities_n),
							(int) (1 + (i / 1000) % 9), (int) (1 + (i / 100000) % 30),
							(int) (1 + (i / 10000000) % 20));
		if (strcmp(type, "city") == 0)
			return pstrdup(PICK(fake_ja_cities, fake_ja_cities_n, i));
		if (strcmp(type, "company") == 0 || strcmp(type, "company_name") == 0)
			return psprintf("株式会社%s", last->kanji);
	}
	else
	{
		const char *first = PICK(fake_first_names, fake_first_names_n, i);
		const char *last = PICK(fake_last_names, fake_last_names_n, i / fake_first_names_n);

		if (strcmp(type, "name") == 0 || strcmp(type, "human_name") == 0)
			return psprintf("%s %s", first, last);
		if (strcmp(type, "first_name") == 0)
			return pstrdup(first);
		if (strcmp(type, "last_name") == 0)
			return pstrdup(last);
		if (strcmp(type, "phone_number") == 0)
			/* 555-01xx is reserved for fiction */
			return psprintf("555-01%02d-%04d", (int) (i % 100), (int) ((i / 100) % 10000));
		if (strcmp(type, "address") == 0)
			return psprintf("%d %s %s, %s", (int) (1 + i % 9999),
							PICK(fake_streets, fake_streets_n, i / 9999),
							PICK(fake_street_kinds, fake_street_kinds_n, i / 99999),
							PICK(fake_cities, fake_cities_n, i / 999999));
		if (strcmp(type, "city") == 0)
			return pstrdup(PICK(fake_cities, fake_cities_n, i));
		if (strcmp(type, "company") == 0 || strcmp(type, "company_name") == 0)
			return psprintf("%s %s", PICK(fake_company_words, fake_company_words_n, i),
							PICK(fake_company_kinds, fake_company_kinds_n, i / fake_company_words_n));
	}
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown fake data type \"%s\"", type)));
	return NULL;
}
