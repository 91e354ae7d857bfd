/*-------------------------------------------------------------------------
 *
 * ident.c
 *	  The table name of a statement: the user's text split on ".", each
 *	  part quoted by the dump format's rule (sql_text.c).
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"

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
