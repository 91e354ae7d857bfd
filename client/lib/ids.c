/*-------------------------------------------------------------------------
 *
 * ids.c
 *	  --ids values and their ID spaces, parsed exactly as the Ruby client
 *	  parses them.
 *
 * "--ids=1,2" gives the ids of the default ID space; "--ids=org=a,b" gives
 * those of the named space "org" when the part before the first "=" is a
 * space name (a lowercase letter, then lowercase letters, digits or
 * underscores); otherwise the whole value is default ids ("--ids=Org=1"
 * is the id "Org=1").  The list splits on "," as Ruby's String#split(","):
 * inner empty fields stay, trailing ones go, and an empty value is no ids.
 * Giving one space twice is an error, reported with the other option
 * errors.
 *
 * The server exports by the target's primary key only, so a named space is
 * refused later (options.c) with a message that is easy to lift.
 *
 *-------------------------------------------------------------------------
 */
#include "cli.h"

/*
 * ids_valid_space_name
 *		/\A[a-z][a-z0-9_]*\z/
 */
bool
ids_valid_space_name(const char *name)
{
	const char *p;

	if (name[0] < 'a' || name[0] > 'z')
		return false;
	for (p = name + 1; *p; p++)
	{
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	}
	return true;
}

/*
 * split_commas
 *		Ruby's s.split(","): fields between commas, trailing empty fields
 *		dropped, inner ones kept; "" gives no fields.
 */
char	  **
split_commas(const char *s, int *n)
{
	int			cap = 4;
	char	  **out = pg_malloc(sizeof(char *) * cap);
	const char *start = s;
	const char *p;

	*n = 0;
	for (p = s;; p++)
	{
		if (*p == ',' || *p == '\0')
		{
			if (*n == cap)
			{
				cap *= 2;
				out = pg_realloc(out, sizeof(char *) * cap);
			}
			out[(*n)++] = pnstrdup(start, p - start);
			if (*p == '\0')
				break;
			start = p + 1;
		}
	}
	/* drop trailing empty fields */
	while (*n > 0 && out[*n - 1][0] == '\0')
		pg_free(out[--(*n)]);
	return out;
}

/*
 * ids_find
 *		The space named so, or NULL.
 */
IdSpace *
ids_find(IdSpaces *ids, const char *space)
{
	int			i;

	for (i = 0; i < ids->n; i++)
		if (strcmp(ids->spaces[i].name, space) == 0)
			return &ids->spaces[i];
	return NULL;
}

/*
 * ids_set_space
 *		Set the ids of a space, adding the space when new.
 */
void
ids_set_space(IdSpaces *ids, const char *space, char **values, int n)
{
	IdSpace    *s = ids_find(ids, space);

	if (s == NULL)
	{
		ids->spaces = pg_realloc(ids->spaces, sizeof(IdSpace) * (ids->n + 1));
		s = &ids->spaces[ids->n++];
		s->name = pg_strdup(space);
	}
	s->ids = values;
	s->nids = n;
}

/*
 * ids_add_option
 *		One --ids value.
 */
void
ids_add_option(IdSpaces *ids, const char *value)
{
	const char *eq = strchr(value, '=');
	char	   *space = NULL;
	const char *list = value;
	char	  **values;
	int			n;

	if (eq != NULL)
	{
		char	   *prefix = pnstrdup(value, eq - value);

		if (ids_valid_space_name(prefix))
		{
			space = prefix;
			list = eq + 1;
		}
		else
			pg_free(prefix);
	}
	if (space == NULL)
		space = pg_strdup(DEFAULT_ID_SPACE);
	if (ids_find(ids, space) != NULL)
	{
		char	   *msg = psprintf("--ids was given more than once for the ID space '%s'; pass all of its ids in one comma-separated --ids.",
								   space);

		ids->errors = pg_realloc(ids->errors, sizeof(char *) * (ids->nerrors + 1));
		ids->errors[ids->nerrors++] = msg;
	}
	values = split_commas(list, &n);
	ids_set_space(ids, space, values, n);
	pg_free(space);
}

/*
 * ids_any_given
 *		Whether any space has a non-empty list.
 */
bool
ids_any_given(const IdSpaces *ids)
{
	int			i;

	for (i = 0; i < ids->n; i++)
		if (ids->spaces[i].nids > 0)
			return true;
	return false;
}

/*
 * ids_array_literal
 *		The ids of a space as a text[] literal: {"1","a\"b"}.
 */
char *
ids_array_literal(const IdSpace *space)
{
	StringInfoData s;
	int			i;

	initStringInfo(&s);
	appendStringInfoChar(&s, '{');
	for (i = 0; space != NULL && i < space->nids; i++)
	{
		const char *p;

		if (i > 0)
			appendStringInfoChar(&s, ',');
		appendStringInfoChar(&s, '"');
		for (p = space->ids[i]; *p; p++)
		{
			if (*p == '"' || *p == '\\')
				appendStringInfoChar(&s, '\\');
			appendStringInfoChar(&s, *p);
		}
		appendStringInfoChar(&s, '"');
	}
	appendStringInfoChar(&s, '}');
	return s.data;
}

/*
 * ids_by_space_json
 *		The ids of the named ID spaces (every space but "default") as the
 *		ids_by_space argument of exwiw_export: {"org": ["1", "2"]}; NULL
 *		when no named space has ids.
 */
char *
ids_by_space_json(const IdSpaces *ids)
{
	StringInfoData s;
	int			i,
				j,
				n = 0;

	initStringInfo(&s);
	appendStringInfoChar(&s, '{');
	for (i = 0; i < ids->n; i++)
	{
		const IdSpace *sp = &ids->spaces[i];

		if (strcmp(sp->name, DEFAULT_ID_SPACE) == 0 || sp->nids == 0)
			continue;
		if (n++ > 0)
			appendStringInfoString(&s, ", ");
		/* a space name is [a-z][a-z0-9_]*: no escaping needed */
		appendStringInfo(&s, "\"%s\": [", sp->name);
		for (j = 0; j < sp->nids; j++)
		{
			const unsigned char *p;

			if (j > 0)
				appendStringInfoString(&s, ", ");
			appendStringInfoChar(&s, '"');
			for (p = (const unsigned char *) sp->ids[j]; *p; p++)
			{
				if (*p == '"' || *p == '\\')
					appendStringInfo(&s, "\\%c", *p);
				else if (*p < 0x20)
					appendStringInfo(&s, "\\u%04x", *p);
				else
					appendStringInfoChar(&s, *p);
			}
			appendStringInfoChar(&s, '"');
		}
		appendStringInfoChar(&s, ']');
	}
	appendStringInfoChar(&s, '}');
	if (n == 0)
	{
		pfree(s.data);
		return NULL;
	}
	return s.data;
}
