/*-------------------------------------------------------------------------
 *
 * catalog/sensitive.c
 *	  Which columns look sensitive, and what kind of value they hold: safe
 *	  mode of exwiw_config_from_catalog().
 *
 * A generated config marks every column that looks like personal or secret
 * data with "needs_mask_decision": true and writes a default mask that suits
 * its kind (catalog/read.c); exwiw_export() refuses a marked column that
 * has no mask until someone decides.  The test is deliberately generous (a
 * reviewer clears a false alarm with one key) but not blind: a product's
 * "name" is not a person's, nor is an invoice's display name.  Nothing here
 * reads a row: a column is judged by its table's name, its own name and its
 * type (the columns this leaves unmarked are then judged by a sample of
 * their values, catalog/values.c).  doc/subset.md (Safe mode) lists every
 * rule with its reason.
 *
 * By type: inet and cidr (the address of someone's machine), macaddr,
 * tsvector (a trigger may have filled it from a masked column, carrying the
 * original words) and bytea (pictures, documents, keys).  json and jsonb
 * only by name, like any other column: a document's keys are data, which
 * catalog/values.c reads a sample of.
 *
 * By name: the column name is cut into words at "_", "-", digits and
 * lower-to-upper case changes, and looked up in the lists below: words that
 * are sensitive anywhere, pairs of consecutive words, words that are
 * sensitive only in a table of people ("name", "location", "bio"), and
 * generic columns ("value", "key") of tables that hold secrets ("api_keys",
 * "ci_variables").
 *
 *-------------------------------------------------------------------------
 */
#include "subset/subset.h"

#include "catalog/pg_type.h"
#include "utils/lsyscache.h"

#define MAX_WORDS	16

/* A word and the kind of value it says a column holds. */
typedef struct SensitiveWord
{
	const char *word;
	SubsetSensitiveKind kind;
} SensitiveWord;

/* Words that make a column sensitive wherever they appear in its name. */
static const SensitiveWord sensitive_words[] = {
	/* people's names and handles */
	{"firstname", SENSITIVE_FIRST_NAME}, {"forename", SENSITIVE_FIRST_NAME},
	{"lastname", SENSITIVE_LAST_NAME}, {"surname", SENSITIVE_LAST_NAME},
	{"fullname", SENSITIVE_NAME}, {"kana", SENSITIVE_OTHER},
	{"nickname", SENSITIVE_USERNAME}, {"username", SENSITIVE_USERNAME},
	{"login", SENSITIVE_USERNAME},
	{"linkedin", SENSITIVE_OTHER}, {"twitter", SENSITIVE_OTHER},
	{"skype", SENSITIVE_OTHER}, {"discord", SENSITIVE_OTHER},
	{"mastodon", SENSITIVE_OTHER}, {"bluesky", SENSITIVE_OTHER},
	{"orcid", SENSITIVE_OTHER}, {"github", SENSITIVE_OTHER},
	/* contact */
	{"email", SENSITIVE_EMAIL}, {"emails", SENSITIVE_EMAIL},
	{"mail", SENSITIVE_EMAIL},
	{"phone", SENSITIVE_PHONE}, {"phones", SENSITIVE_PHONE},
	{"telephone", SENSITIVE_PHONE}, {"tel", SENSITIVE_PHONE},
	{"mobile", SENSITIVE_PHONE}, {"cellphone", SENSITIVE_PHONE},
	{"fax", SENSITIVE_PHONE},
	/* where someone lives */
	{"address", SENSITIVE_ADDRESS}, {"street", SENSITIVE_ADDRESS},
	{"city", SENSITIVE_CITY}, {"postcode", SENSITIVE_OTHER},
	{"postal", SENSITIVE_OTHER}, {"zip", SENSITIVE_OTHER},
	{"zipcode", SENSITIVE_OTHER},
	/* who someone works for */
	{"company", SENSITIVE_COMPANY}, {"employer", SENSITIVE_COMPANY},
	/* identity documents, money, special categories of personal data */
	{"birth", SENSITIVE_OTHER}, {"birthdate", SENSITIVE_OTHER},
	{"birthday", SENSITIVE_OTHER}, {"dob", SENSITIVE_OTHER},
	{"ssn", SENSITIVE_OTHER}, {"passport", SENSITIVE_OTHER},
	{"taxid", SENSITIVE_OTHER}, {"iban", SENSITIVE_OTHER},
	{"swift", SENSITIVE_OTHER}, {"card", SENSITIVE_OTHER},
	{"ccn", SENSITIVE_OTHER}, {"cvv", SENSITIVE_OTHER},
	{"cvc", SENSITIVE_OTHER}, {"salary", SENSITIVE_OTHER},
	{"income", SENSITIVE_OTHER}, {"gender", SENSITIVE_OTHER},
	{"ethnicity", SENSITIVE_OTHER}, {"religion", SENSITIVE_OTHER},
	{"nationality", SENSITIVE_OTHER}, {"biometric", SENSITIVE_OTHER},
	/* machines */
	{"ip", SENSITIVE_IP},
	/* secrets */
	{"password", SENSITIVE_OTHER}, {"passwd", SENSITIVE_OTHER},
	{"pwd", SENSITIVE_OTHER}, {"apikey", SENSITIVE_OTHER},
	{"secret", SENSITIVE_OTHER}, {"secrets", SENSITIVE_OTHER},
	{"credential", SENSITIVE_OTHER}, {"credentials", SENSITIVE_OTHER},
	{"token", SENSITIVE_OTHER}, {"tokens", SENSITIVE_OTHER},
	{"otp", SENSITIVE_OTHER}, {"salt", SENSITIVE_OTHER},
	{"hmac", SENSITIVE_OTHER}, {"encrypted", SENSITIVE_OTHER},
	{"crypted", SENSITIVE_OTHER}, {"ciphertext", SENSITIVE_OTHER},
	{NULL, SENSITIVE_NONE}
};

/* Pairs of consecutive words that make a column sensitive. */
typedef struct SensitivePair
{
	const char *first;
	const char *second;
	SubsetSensitiveKind kind;
} SensitivePair;

static const SensitivePair sensitive_pairs[] = {
	{"first", "name", SENSITIVE_FIRST_NAME}, {"given", "name", SENSITIVE_FIRST_NAME},
	{"last", "name", SENSITIVE_LAST_NAME}, {"family", "name", SENSITIVE_LAST_NAME},
	{"maiden", "name", SENSITIVE_LAST_NAME}, {"middle", "name", SENSITIVE_FIRST_NAME},
	{"full", "name", SENSITIVE_NAME}, {"real", "name", SENSITIVE_NAME},
	{"legal", "name", SENSITIVE_NAME}, {"contact", "name", SENSITIVE_NAME},
	{"user", "name", SENSITIVE_USERNAME},
	{"api", "key", SENSITIVE_OTHER}, {"private", "key", SENSITIVE_OTHER},
	{"access", "key", SENSITIVE_OTHER}, {"secret", "key", SENSITIVE_OTHER},
	{"signing", "key", SENSITIVE_OTHER}, {"encryption", "key", SENSITIVE_OTHER},
	{"license", "key", SENSITIVE_OTHER}, {"licence", "key", SENSITIVE_OTHER},
	{"social", "security", SENSITIVE_OTHER}, {"national", "id", SENSITIVE_OTHER},
	{"tax", "id", SENSITIVE_OTHER}, {"tax", "identification", SENSITIVE_OTHER},
	{"tax", "number", SENSITIVE_OTHER}, {"tax", "code", SENSITIVE_OTHER},
	{"vat", "id", SENSITIVE_OTHER}, {"vat", "number", SENSITIVE_OTHER},
	{"account", "number", SENSITIVE_OTHER}, {"routing", "number", SENSITIVE_OTHER},
	{"credit", "card", SENSITIVE_OTHER}, {"date", "of", SENSITIVE_OTHER},
	{"license", "number", SENSITIVE_OTHER}, {"licence", "number", SENSITIVE_OTHER},
	{"driver", "license", SENSITIVE_OTHER}, {"license", "plate", SENSITIVE_OTHER},
	{"medical", "record", SENSITIVE_OTHER},
	{"extern", "uid", SENSITIVE_OTHER}, {"external", "uid", SENSITIVE_OTHER},
	{"provider", "uid", SENSITIVE_OTHER},
	{"job", "title", SENSITIVE_OTHER},
	{"home", "lat", SENSITIVE_OTHER}, {"home", "lon", SENSITIVE_OTHER},
	{"home", "lng", SENSITIVE_OTHER}, {"home", "latitude", SENSITIVE_OTHER},
	{"home", "longitude", SENSITIVE_OTHER}, {"home", "location", SENSITIVE_OTHER},
	{"mac", "address", SENSITIVE_OTHER},
	{NULL, NULL, SENSITIVE_NONE}
};

/* Words sensitive only in a table of people (person_tables). */
static const SensitiveWord person_words[] = {
	{"name", SENSITIVE_NAME}, {"location", SENSITIVE_OTHER},
	{"bio", SENSITIVE_OTHER}, {"description", SENSITIVE_OTHER},
	{"website", SENSITIVE_OTHER},
	{"organization", SENSITIVE_COMPANY}, {"organisation", SENSITIVE_COMPANY},
	{"lat", SENSITIVE_OTHER}, {"lon", SENSITIVE_OTHER},
	{"lng", SENSITIVE_OTHER}, {"latitude", SENSITIVE_OTHER},
	{"longitude", SENSITIVE_OTHER},
	{NULL, SENSITIVE_NONE}
};

/* Table words (singular) that say a table holds people. */
static const char *const person_tables[] = {
	"account", "actor", "admin", "applicant", "attendee", "author", "buyer",
	"candidate", "client", "contact", "customer", "driver", "employee",
	"guest", "member", "owner", "participant", "passenger", "patient",
	"people", "person", "player", "profile", "recipient", "seller", "staff",
	"student", "subscriber", "teacher", "user", "visitor",
	NULL
};

/* Last words (singular) of a table about a person: "user_details". */
static const char *const person_aspects[] = {
	"detail", "identity", "info", "preference", "profile", "setting", NULL
};

/* Table words (singular) that say a table holds secrets. */
static const char *const secret_tables[] = {
	"apikey", "credential", "key", "password", "secret", "token", "variable",
	NULL
};

/* Generic columns that hold the secret of a table of secrets. */
static const char *const secret_columns[] = {
	"key", "secret", "token", "value", NULL
};

/* Words before "password" (or "pass") that say it holds a digest. */
static const char *const digest_words[] = {
	"crypt", "crypted", "digest", "encrypted", "hash", "hashed", NULL
};

/*
 * split_words
 *		Lower-case words of name: cut at non-letters and at a lower-to-upper
 *		case change ("firstName" gives "first", "name").  Returns the count.
 */
static int
split_words(const char *name, char words[][64], int max)
{
	int			n = 0;
	int			len = 0;
	const char *p;

	for (p = name;; p++)
	{
		bool		letter = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z');
		bool		boundary = !letter ||
			(len > 0 && *p >= 'A' && *p <= 'Z' && p > name && p[-1] >= 'a' && p[-1] <= 'z');

		if (boundary && len > 0 && n < max)
		{
			words[n][len] = '\0';
			n++;
			len = 0;
		}
		if (*p == '\0')
			break;
		if (letter && len < 63 && n < max)
			words[n][len++] = (*p >= 'A' && *p <= 'Z') ? *p - 'A' + 'a' : *p;
	}
	return n;
}

/*
 * subset_word_in
 *		Is w one of the strings of the NULL-terminated list?
 */
bool
subset_word_in(const char *w, const char *const *list)
{
	int			i;

	for (i = 0; list[i]; i++)
		if (strcmp(w, list[i]) == 0)
			return true;
	return false;
}

/*
 * word_kind
 *		The kind that list gives word w, or SENSITIVE_NONE.
 */
static SubsetSensitiveKind
word_kind(const char *w, const SensitiveWord *list)
{
	int			i;

	for (i = 0; list[i].word; i++)
		if (strcmp(w, list[i].word) == 0)
			return list[i].kind;
	return SENSITIVE_NONE;
}

/*
 * singular
 *		A crude singular of an English table word: users -> user,
 *		addresses -> address, people stays.
 */
static void
singular(char *w)
{
	size_t		len = strlen(w);

	if (len > 4 && strcmp(w + len - 3, "ies") == 0)
		strcpy(w + len - 3, "y");
	else if (len > 3 && strcmp(w + len - 2, "es") == 0 &&
			 (w[len - 3] == 's' || w[len - 3] == 'x'))
		w[len - 2] = '\0';
	else if (len > 3 && w[len - 1] == 's' && w[len - 2] != 's')
		w[len - 1] = '\0';
}

/*
 * table_is
 *		Does a (singular) word of table name appear in list?  "api_keys"
 *		gives "api", "key", and "apikey" too.
 */
static bool
table_is(const char *table, const char *const *list)
{
	char		words[MAX_WORDS][64];
	int			n = split_words(table, words, MAX_WORDS);
	int			i;

	for (i = 0; i < n; i++)
	{
		singular(words[i]);
		if (subset_word_in(words[i], list))
			return true;
		if (i + 1 < n && strlen(words[i]) + strlen(words[i + 1]) < 64)
		{
			char		both[128];

			snprintf(both, sizeof(both), "%s%s", words[i], words[i + 1]);
			singular(both);
			if (subset_word_in(both, list))
				return true;
		}
	}
	return false;
}

/*
 * is_person_table
 *		Does table hold people?  Its last word (singular) names people
 *		("users", "customer_contacts"), or its first word does and its last
 *		an aspect of them ("user_details").  Not "customer_organizations":
 *		the rows are organizations.
 */
static bool
is_person_table(const char *table)
{
	char		words[MAX_WORDS][64];
	int			n = split_words(table, words, MAX_WORDS);

	if (n == 0)
		return false;
	singular(words[0]);
	singular(words[n - 1]);
	return subset_word_in(words[n - 1], person_tables) ||
		(n > 1 && subset_word_in(words[0], person_tables) &&
		 subset_word_in(words[n - 1], person_aspects));
}

/*
 * sensitive_type
 *		The kind of a type whose values are personal or opaque by nature, or
 *		SENSITIVE_NONE.
 */
static SubsetSensitiveKind
sensitive_type(Oid typid)
{
	Oid			base = getBaseType(typid);
	Oid			elem = get_element_type(base);

	if (OidIsValid(elem))
		base = getBaseType(elem);
	switch (base)
	{
		case INETOID:
		case CIDROID:
			return SENSITIVE_IP;
		case MACADDROID:
		case MACADDR8OID:
		case TSVECTOROID:
		case BYTEAOID:
			return SENSITIVE_OTHER;
		default:
			return SENSITIVE_NONE;
	}
}

/*
 * is_password_digest
 *		Does the column name a password digest ("encrypted_password",
 *		"password_digest", "pass_crypt", "hashed_password")?  Words w[0..n).
 */
static bool
is_password_digest(char words[][64], int n)
{
	int			i;

	for (i = 0; i < n; i++)
	{
		if (strcmp(words[i], "password") != 0 && strcmp(words[i], "pass") != 0 &&
			strcmp(words[i], "passwd") != 0)
			continue;
		if ((i > 0 && subset_word_in(words[i - 1], digest_words)) ||
			(i + 1 < n && subset_word_in(words[i + 1], digest_words)))
			return true;
	}
	return false;
}

/*
 * subset_column_sensitivity
 *		What column of table looks like it holds: SENSITIVE_NONE when
 *		nothing personal or secret.  The first rule that matches wins, in
 *		this order: the type, a boolean or a Rails timestamp ("..._at") is
 *		nothing, a password digest, a pair of words, a word
 *		(a mail address before an IP address before a postal address, as in
 *		"email_address" and "ip_address"), a person's word in a table of
 *		people, a generic column of a table of secrets.
 */
SubsetSensitiveKind
subset_column_sensitivity(const char *table, const char *column, Oid typid)
{
	char		words[MAX_WORDS][64];
	int			n,
				i,
				j;
	SubsetSensitiveKind kind = sensitive_type(typid);
	SubsetSensitiveKind best = SENSITIVE_NONE;

	if (kind != SENSITIVE_NONE)
		return kind;

	/*
	 * A flag or a moment about a secret is not the secret:
	 * "password_automatically_set", "reset_password_sent_at".
	 */
	if (getBaseType(typid) == BOOLOID)
		return SENSITIVE_NONE;
	n = split_words(column, words, MAX_WORDS);
	if (n > 1 && strcmp(words[n - 1], "at") == 0)
		return SENSITIVE_NONE;
	if (is_password_digest(words, n))
		return SENSITIVE_PASSWORD_DIGEST;
	for (i = 0; i + 1 < n; i++)
	{
		/* "owner_display_name": a person's; "invoice_display_name": not */
		if (i > 0 && strcmp(words[i], "display") == 0 && strcmp(words[i + 1], "name") == 0)
		{
			char		w[64];

			strlcpy(w, words[i - 1], sizeof(w));
			singular(w);
			if (subset_word_in(w, person_tables))
				return SENSITIVE_NAME;
		}
		for (j = 0; sensitive_pairs[j].first; j++)
			if (strcmp(words[i], sensitive_pairs[j].first) == 0 &&
				strcmp(words[i + 1], sensitive_pairs[j].second) == 0)
				return sensitive_pairs[j].kind;
	}
	for (i = 0; i < n; i++)
	{
		kind = word_kind(words[i], sensitive_words);
		if (kind == SENSITIVE_EMAIL)
			return kind;
		if (kind != SENSITIVE_NONE &&
			(best == SENSITIVE_NONE || best == SENSITIVE_OTHER ||
			 kind == SENSITIVE_IP))
			best = kind;
	}
	if (best != SENSITIVE_NONE)
		return best;

	/*
	 * "name", "display_name", "location": a person's only in a table of
	 * people.  A display name elsewhere names a thing (an invoice's, a
	 * plan's), as does a display name after another word.  "name" counts
	 * alone only ("product_name" in a table of users is not a person's); the
	 * other words anywhere, except in a column that refers to a row
	 * ("organization_id").
	 */
	if (n > 0 && is_person_table(table))
	{
		if (n == 1 && strcmp(words[0], "name") == 0)
			return SENSITIVE_NAME;
		if (n == 2 && strcmp(words[0], "display") == 0 && strcmp(words[1], "name") == 0)
			return SENSITIVE_NAME;
		if (strcmp(words[n - 1], "id") != 0 && strcmp(words[n - 1], "ids") != 0)
			for (i = 0; i < n; i++)
				if (strcmp(words[i], "name") != 0 &&
					(kind = word_kind(words[i], person_words)) != SENSITIVE_NONE)
					return kind;
	}

	/* the value of a table of secrets: "api_keys.value", "keys.key" */
	if (n >= 1 && subset_word_in(words[n - 1], secret_columns) &&
		table_is(table, secret_tables))
		return SENSITIVE_OTHER;
	return SENSITIVE_NONE;
}

/*
 * subset_column_looks_sensitive
 *		True when column of table looks like personal or secret data.
 */
bool
subset_column_looks_sensitive(const char *table, const char *column, Oid typid)
{
	return subset_column_sensitivity(table, column, typid) != SENSITIVE_NONE;
}
