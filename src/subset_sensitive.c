/*-------------------------------------------------------------------------
 *
 * subset_sensitive.c
 *	  Which columns look sensitive: safe mode of exwiw_config_from_catalog().
 *
 * A generated config marks every column that looks like personal or secret
 * data with "needs_mask_decision": true, and exwiw_export() refuses to run
 * until each of them carries a mask or "needs_mask_decision": false.  The
 * test is deliberately generous (a reviewer clears a false alarm with one
 * key) but not blind: a product's "name" is not a person's.
 *
 * By type: inet, cidr, macaddr (addresses of people's machines), tsvector
 * (a trigger may have filled it from a masked column, carrying the original
 * words), bytea (pictures, documents, keys), json and jsonb (anything).
 *
 * By name: the column name is cut into words at "_", "-", digits and
 * lower-to-upper case changes, and looked up in the lists below; "name"
 * alone counts when the table's name says it holds people.
 *
 *-------------------------------------------------------------------------
 */
#include "subset.h"

#include "catalog/pg_type.h"
#include "utils/lsyscache.h"

/* A word that makes a column sensitive wherever it appears in its name. */
static const char *const sensitive_words[] = {
	"address", "apikey", "birth", "birthdate", "birthday", "card", "cellphone",
	"cvv", "dob", "email", "emails", "fax", "firstname", "fullname", "iban",
	"ip", "kana", "lastname", "login", "mail", "mobile", "nickname", "otp",
	"passport", "passwd", "password", "phone", "phones", "postcode", "postal",
	"pwd", "salt", "secret", "ssn", "street", "surname", "tel", "telephone",
	"token", "tokens", "username", "zip", "zipcode",
	NULL
};

/* Pairs of consecutive words that make a column sensitive. */
static const char *const sensitive_pairs[][2] = {
	{"first", "name"}, {"last", "name"}, {"full", "name"}, {"display", "name"},
	{"middle", "name"}, {"given", "name"}, {"family", "name"},
	{"maiden", "name"}, {"user", "name"}, {"real", "name"}, {"legal", "name"},
	{"contact", "name"}, {"api", "key"}, {"private", "key"}, {"access", "key"},
	{"secret", "key"}, {"social", "security"}, {"tax", "id"},
	{"account", "number"}, {"date", "of"}, {"credit", "card"},
	{"national", "id"},
	{NULL, NULL}
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

static bool
in_list(const char *w, const char *const *list)
{
	int			i;

	for (i = 0; list[i]; i++)
		if (strcmp(w, list[i]) == 0)
			return true;
	return false;
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
 * sensitive_type
 *		True for types whose values are personal or opaque by nature.
 */
static bool
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
		case MACADDROID:
		case MACADDR8OID:
		case TSVECTOROID:
		case BYTEAOID:
		case JSONOID:
		case JSONBOID:
			return true;
		default:
			return false;
	}
}

/*
 * subset_column_looks_sensitive
 *		True when column of table looks like personal or secret data.
 */
bool
subset_column_looks_sensitive(const char *table, const char *column, Oid typid)
{
	char		words[16][64];
	char		twords[16][64];
	int			n,
				tn,
				i,
				j;

	if (sensitive_type(typid))
		return true;

	n = split_words(column, words, 16);
	for (i = 0; i < n; i++)
	{
		if (in_list(words[i], sensitive_words))
			return true;
		for (j = 0; i + 1 < n && sensitive_pairs[j][0]; j++)
			if (strcmp(words[i], sensitive_pairs[j][0]) == 0 &&
				strcmp(words[i + 1], sensitive_pairs[j][1]) == 0)
				return true;
	}

	/* "name" alone: a person's only in a table of people */
	if (n == 1 && strcmp(words[0], "name") == 0)
	{
		tn = split_words(table, twords, 16);
		for (i = 0; i < tn; i++)
		{
			singular(twords[i]);
			if (in_list(twords[i], person_tables))
				return true;
		}
	}
	return false;
}
