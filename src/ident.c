/*-------------------------------------------------------------------------
 *
 * ident.c
 *	  Identifier quoting by the dump format's rule.
 *
 * The rule (../shared/spec/sql-dump-format.md): a name is written bare when
 * it matches ^[a-z_][a-z0-9_$]*$ and is not one of the words that cannot
 * stand bare as a table or column name (PostgreSQL's reserved and
 * type/function-name keywords, plus SYSTEM_USER); otherwise it is written in
 * double quotes with each " doubled.  Unlike the Ruby client, mixed-case
 * names are quoted, so they survive the restore.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"

/* Sorted, so that bsearch() can be used. */
static const char *const exwiw_reserved_words[] = {
	"all", "analyse", "analyze", "and", "any", "array", "as", "asc",
	"asymmetric", "authorization", "binary", "both", "case", "cast",
	"check", "collate", "collation", "column", "concurrently",
	"constraint", "create", "cross", "current_catalog", "current_date",
	"current_role", "current_schema", "current_time", "current_timestamp",
	"current_user", "default", "deferrable", "desc", "distinct", "do",
	"else", "end", "except", "false", "fetch", "for", "foreign", "freeze",
	"from", "full", "grant", "group", "having", "ilike", "in", "initially",
	"inner", "intersect", "into", "is", "isnull", "join", "lateral",
	"leading", "left", "like", "limit", "localtime", "localtimestamp",
	"natural", "not", "notnull", "null", "offset", "on", "only", "or",
	"order", "outer", "overlaps", "placing", "primary", "references",
	"returning", "right", "select", "session_user", "similar", "some",
	"symmetric", "system_user", "table", "tablesample", "then", "to",
	"trailing", "true", "union", "unique", "user", "using", "variadic",
	"verbose", "when", "where", "window", "with"
};

/*
 * bsearch comparator over the reserved word table.
 */
static int
reserved_word_cmp(const void *key, const void *elem)
{
	return strcmp((const char *) key, *(const char *const *) elem);
}

/*
 * exwiw_ident_needs_quotes
 *		True when ident must be written in double quotes.
 *
 * Only names that are entirely [a-z0-9_$], start with [a-z_] and are not a
 * reserved word are safe bare.  A word that passes the pattern is already
 * lower case, so the case-insensitive comparison the spec asks for is a
 * plain strcmp here.
 */
bool
exwiw_ident_needs_quotes(const char *ident)
{
	const char *p;

	if (ident[0] == '\0')
		return true;
	if (!((ident[0] >= 'a' && ident[0] <= 'z') || ident[0] == '_'))
		return true;
	for (p = ident; *p; p++)
	{
		char		c = *p;

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
			  c == '_' || c == '$'))
			return true;
	}
	return bsearch(ident, exwiw_reserved_words,
				   lengthof(exwiw_reserved_words),
				   sizeof(exwiw_reserved_words[0]),
				   reserved_word_cmp) != NULL;
}

/*
 * exwiw_append_ident
 *		Append ident to buf, quoted when the rule requires it.
 */
void
exwiw_append_ident(StringInfo buf, const char *ident)
{
	const char *p;

	if (!exwiw_ident_needs_quotes(ident))
	{
		appendStringInfoString(buf, ident);
		return;
	}
	appendStringInfoChar(buf, '"');
	for (p = ident; *p; p++)
	{
		if (*p == '"')
			appendStringInfoChar(buf, '"');
		appendStringInfoChar(buf, *p);
	}
	appendStringInfoChar(buf, '"');
}

/*
 * exwiw_append_table_name
 *		Append a possibly schema-qualified table name, split on '.', with
 *		each part quoted by the rule.
 *
 * The name is the user's text, not a regclass: "billing.order" becomes
 * billing."order".  An empty part ("a..b", ".t", "") is refused, since it
 * can only produce a statement that does not load.
 */
void
exwiw_append_table_name(StringInfo buf, const char *table_name)
{
	char	   *copy = pstrdup(table_name);
	char	   *part = copy;
	bool		first = true;

	for (;;)
	{
		char	   *dot = strchr(part, '.');

		if (dot)
			*dot = '\0';
		if (*part == '\0')
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_NAME),
					 errmsg("invalid table name \"%s\"", table_name),
					 errdetail("The table name is split on \".\" and one of its parts is empty."),
					 errhint("Pass the name as it should appear in the output, for example \"billing.order\".")));
		if (!first)
			appendStringInfoChar(buf, '.');
		exwiw_append_ident(buf, part);
		first = false;
		if (!dot)
			break;
		part = dot + 1;
	}
	pfree(copy);
}
