/*-------------------------------------------------------------------------
 *
 * catalog/spelling.c
 *	  A table's name in a config: the relations a name can mean (the Ruby
 *	  client's spelling, or parts in double quotes as in SQL), and the
 *	  spelling that reads back as one relation.
 *
 * config/parse.c resolves each table's "name" through these, and
 * catalog/read.c spells the names of the config it writes with them, so
 * that what exwiw_config_from_catalog() writes, the parser reads back as
 * the same table.
 *
 *-------------------------------------------------------------------------
 */
#include "subset/subset.h"

#include "catalog/namespace.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

/*
 * name_part
 *		One part of a config name as the files write it: as it is, or in
 *		double quotes (each '"' doubled) when it holds a "." or begins with
 *		a '"', so that exwiw_append_table_name reads it back as one part.
 */
static char *
name_part(const char *part)
{
	StringInfoData s;

	if (strchr(part, '.') == NULL && part[0] != '"')
		return pstrdup(part);
	initStringInfo(&s);
	exwiw_append_quoted_ident(&s, part);
	return s.data;
}

/*
 * subset_quoted_name
 *		"schema"."table" for relid, both parts in double quotes: a config
 *		name with a single reading.
 */
char *
subset_quoted_name(Oid relid)
{
	StringInfoData s;

	initStringInfo(&s);
	exwiw_append_quoted_ident(&s, get_namespace_name(get_rel_namespace(relid)));
	appendStringInfoChar(&s, '.');
	exwiw_append_quoted_ident(&s, get_rel_name(relid));
	return s.data;
}

/*
 * add_reading
 *		Add relation relid (when valid and not there yet) to the readings of
 *		a name, with its spelling in the files.
 */
static void
add_reading(Oid relid, char *outname, Oid *found, char **outnames, int *n)
{
	int			i;

	if (!OidIsValid(relid))
		return;
	for (i = 0; i < *n; i++)
		if (found[i] == relid)
			return;
	found[*n] = relid;
	outnames[(*n)++] = outname;
}

/*
 * subset_name_readings
 *		The relations a config name can mean, at most max (the number of
 *		"." in the name plus one is enough): their OIDs in found[], and for
 *		each the name the files write (exwiw_append_table_name's form) in
 *		outnames[].  Returns how many; -1 when the name is of no form.
 *
 * A name with a part in double quotes (it begins with '"', or holds '."')
 * is read as SQL reads it, one reading: "audit.log" is the table audit.log
 * through the search path, public."audit.log" that table of schema public,
 * audit."log" table log of schema audit; the unquoted parts are taken as
 * they are (case kept).  Any other name is the Ruby client's, which writes
 * a table's name as it is, and "schema.table" for another schema: every
 * reading counts, the name as one table through the search path, and each
 * split at a "." into schema and table.
 */
int
subset_name_readings(const char *name, Oid *found, char **outnames, int max)
{
	int			n = 0;
	const char *c;

	if (name[0] == '\0')
		return -1;
	if (name[0] == '"' || strstr(name, ".\"") != NULL)
	{
		char	   *parts[2];
		bool		quoted;
		int			np = exwiw_table_name_parts(name, parts, 2, &quoted);

		if (np == 1)
			add_reading(RelnameGetRelid(parts[0]), pstrdup(name), found, outnames, &n);
		else if (np == 2)
		{
			Oid			nsp = get_namespace_oid(parts[0], true);

			if (OidIsValid(nsp))
				add_reading(get_relname_relid(parts[1], nsp), pstrdup(name),
							found, outnames, &n);
		}
		else
			return -1;
		return n;
	}
	add_reading(RelnameGetRelid(name), name_part(name), found, outnames, &n);
	for (c = strchr(name, '.'); c != NULL && n < max; c = strchr(c + 1, '.'))
	{
		char	   *nspname = pnstrdup(name, c - name);
		Oid			nsp;

		if (c == name || c[1] == '\0')
			continue;
		nsp = get_namespace_oid(nspname, true);
		if (OidIsValid(nsp))
			add_reading(get_relname_relid(c + 1, nsp),
						psprintf("%s.%s", name_part(nspname), name_part(c + 1)),
						found, outnames, &n);
	}
	return n;
}

/* Readings a name can have at most: its "." plus one. */
int
subset_name_max_readings(const char *name)
{
	int			n = 1;

	for (; *name; name++)
		n += (*name == '.');
	return n;
}

/*
 * subset_resolve_name
 *		The relation a config name means (see subset_name_readings); InvalidOid
 *		when there is none, or more than one, or the name is of no form.
 */
Oid
subset_resolve_name(const char *name)
{
	int			max = subset_name_max_readings(name);
	Oid		   *found = palloc(sizeof(Oid) * max);
	char	  **outnames = palloc(sizeof(char *) * max);

	return subset_name_readings(name, found, outnames, max) == 1 ? found[0] : InvalidOid;
}

/*
 * subset_config_spelling
 *		How a config names relid, read back by subset_name_readings to relid
 *		alone: bare (the name as it is, quoted when it holds a "." or
 *		begins with '"') when bare is wanted and the search path finds it,
 *		else "schema.table" (so quoted).  Fully quoted when the Ruby
 *		client's spelling would be ambiguous.
 */
char *
subset_config_spelling(Oid relid, bool bare)
{
	char	   *rel = get_rel_name(relid);
	char	   *nsp = get_namespace_name(get_rel_namespace(relid));
	char	   *name;
	int			max;
	Oid		   *found;
	char	  **outnames;

	if (bare && RelationIsVisible(relid))
		name = name_part(rel);
	else
		name = psprintf("%s.%s", name_part(nsp), name_part(rel));
	max = subset_name_max_readings(name);
	found = palloc(sizeof(Oid) * max);
	outnames = palloc(sizeof(char *) * max);
	if (subset_name_readings(name, found, outnames, max) == 1 && found[0] == relid)
		return name;
	return subset_quoted_name(relid);
}
