/*-------------------------------------------------------------------------
 *
 * mask/pseudonym.c
 *	  The pseudonym mask: a fake value keyed by exwiw.mask_secret (the
 *	  engine of exwiw_mask_pseudonym, whose entry point is in mask/funcs.c).
 *
 * The digest is HMAC-SHA-256(secret, "pseudonym" NUL NUL value): it does
 * not depend on the type or the locale, so the same original gives the
 * same pseudonym in every column, table and run (a first and a last name
 * taken from one column stay a pair), a key and the columns that reference
 * it stay joinable when all are pseudonymized with the same type, and
 * without the secret a dictionary of originals cannot be matched.  The
 * digest picks from the pools of replace_with_fake_data (fake/data.c) for
 * the types it knows; this file adds:
 *
 *	  iban			"DE", two check digits, 18 digits: a valid ISO 13616
 *					check (mod 97)
 *	  credit_card	16 digits starting 400000, the last a Luhn check digit
 *	  uuid			a version 4 UUID made of the digest
 *
 * (card and phone are accepted for credit_card and phone_number).  NULL
 * stays NULL, and "" stays "".
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"
#include "fake/fake.h"
#include "mask/mask.h"

#include "lib/stringinfo.h"
#include "utils/builtins.h"

/* The pseudonym types, NULL-terminated. */
static const char *const pseudonym_types[] = {
	"name", "human_name", "first_name", "last_name", "human_name_kana",
	"first_name_kana", "last_name_kana", "email", "username", "phone_number",
	"phone", "address", "city", "company", "company_name", "iban",
	"credit_card", "card", "uuid", NULL
};

/*
 * mask_pseudonym_type_known
 *		Is type a pseudonym type?
 */
bool
mask_pseudonym_type_known(const char *type)
{
	int			i;

	for (i = 0; pseudonym_types[i]; i++)
		if (strcmp(pseudonym_types[i], type) == 0)
			return true;
	return false;
}

/*
 * mask_pseudonym_types
 *		The pseudonym types as a comma-separated list, for hints.
 */
const char *
mask_pseudonym_types(void)
{
	StringInfoData s;
	int			i;

	initStringInfo(&s);
	for (i = 0; pseudonym_types[i]; i++)
		appendStringInfo(&s, "%s%s", i ? ", " : "", pseudonym_types[i]);
	return s.data;
}

/*
 * digits_from
 *		n (at most 30) decimal digits from the digest d, into out (n + 1
 *		bytes): digit i is byte i + 2 modulo 10 (a slight bias, harmless in
 *		fake data).
 */
static void
digits_from(const uint8 *d, int n, char *out)
{
	int			i;

	for (i = 0; i < n; i++)
		out[i] = '0' + d[(i + 2) % PG_SHA256_DIGEST_LENGTH] % 10;
	out[n] = '\0';
}

/*
 * iban_value
 *		A German-format IBAN, "DE" kk + 18 digits, whose check digits kk are
 *		valid: 98 - (BBAN || "1314" || "00") mod 97.
 */
static char *
iban_value(const uint8 *d)
{
	char		bban[19];
	char		num[25];
	int			mod = 0;
	int			i;

	digits_from(d, 18, bban);
	snprintf(num, sizeof(num), "%s131400", bban);
	for (i = 0; num[i]; i++)
		mod = (mod * 10 + (num[i] - '0')) % 97;
	return psprintf("DE%02d%s", 98 - mod, bban);
}

/*
 * card_value
 *		A 16-digit card-like number, 400000 and 9 digits from the digest,
 *		then the Luhn check digit.
 */
static char *
card_value(const uint8 *d)
{
	char		num[17];
	int			sum = 0;
	int			i;

	memcpy(num, "400000", 6);
	digits_from(d, 9, num + 6);
	/* Luhn: from the right, not counting the check digit, double every other */
	for (i = 14; i >= 0; i--)
	{
		int			v = num[i] - '0';

		if ((14 - i) % 2 == 0)
		{
			v *= 2;
			if (v > 9)
				v -= 9;
		}
		sum += v;
	}
	num[15] = '0' + (10 - sum % 10) % 10;
	num[16] = '\0';
	return pstrdup(num);
}

/*
 * uuid_value
 *		A version 4, variant 1 UUID made of the digest's first 16 bytes.
 */
static char *
uuid_value(const uint8 *d)
{
	uint8		u[16];

	memcpy(u, d, 16);
	u[6] = (u[6] & 0x0f) | 0x40;
	u[8] = (u[8] & 0x3f) | 0x80;
	return psprintf("%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
					u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
					u[10], u[11], u[12], u[13], u[14], u[15]);
}

/*
 * pseudonym_digest
 *		The digest of value[0..len) (see the file header) into d, and as the
 *		two integers the pools use.  Errors out without a secret.
 */
static FakeDigest
pseudonym_digest(const char *value, size_t len, uint8 d[PG_SHA256_DIGEST_LENGTH])
{
	FakeDigest	g = {0, 0};
	int			i;

	mask_hmac("pseudonym", "", 0, value, len, d);
	for (i = 0; i < 8; i++)
	{
		g.index = (g.index << 8) | d[i];
		g.suffix = (g.suffix << 8) | d[8 + i];
	}
	return g;
}

/*
 * mask_pseudonym_value
 *		The pseudonym of type (known, see mask_pseudonym_type_known) for
 *		value[0..len), in locale ja or en.  Errors out without a secret.
 */
char *
mask_pseudonym_value(const char *type, bool ja, const char *value, size_t len)
{
	uint8		d[PG_SHA256_DIGEST_LENGTH];
	FakeDigest	g = pseudonym_digest(value, len, d);

	if (strcmp(type, "iban") == 0)
		return iban_value(d);
	if (strcmp(type, "credit_card") == 0 || strcmp(type, "card") == 0)
		return card_value(d);
	if (strcmp(type, "uuid") == 0)
		return uuid_value(d);
	if (strcmp(type, "phone") == 0)
		type = "phone_number";
	return fake_value(type, ja, g);
}

/*
 * mask_pseudonym_text
 *		mask_pseudonym_value as a text; an e-mail address or a user name (the
 *		commonest, once a row) is written straight into the text.
 */
text *
mask_pseudonym_text(const char *type, bool ja, const char *value, size_t len)
{
	bool		email = strcmp(type, "email") == 0;

	if (email || strcmp(type, "username") == 0)
	{
		uint8		d[PG_SHA256_DIGEST_LENGTH];
		int			n;
		char	   *r = fake_login(email, pseudonym_digest(value, len, d), VARHDRSZ, &n);

		SET_VARSIZE(r, VARHDRSZ + n);
		return (text *) r;
	}
	return cstring_to_text(mask_pseudonym_value(type, ja, value, len));
}
