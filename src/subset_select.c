/*-------------------------------------------------------------------------
 *
 * subset_select.c
 *	  The select list of a table's extraction query: its config's columns,
 *	  in order, masks applied.
 *
 *	  raw_sql			the user's expression, on lines of its own
 *	  replace_with		a template, written as the text it makes: literal
 *						parts and {column} values joined by CONCAT, as the
 *						Ruby client does (a NULL value gives ""), never cast
 *						to the column's type; NULL stays NULL
 *	  replace_with_fake_data	exwiw_fake(type, locale, seed column's text):
 *						the same value for the same seed, everywhere
 *
 * A table that Rails manages is read whole (SELECT t.*), as the client
 * does.
 *
 *-------------------------------------------------------------------------
 */
#include "subset_planner.h"

#include "utils/builtins.h"
#include "utils/lsyscache.h"

/*
 * subset_select_list
 *		The extraction query's select list: the config's columns in order,
 *		masks applied.  A replace_with template is written as text, exactly
 *		as it comes out ({col} replaced by the row's value); NULL stays NULL.
 */
char *
subset_select_list(SubsetTable *t)
{
	StringInfoData s;
	const char *alias = planner_alias(t);
	char	   *extschema = NULL;
	int			i;

	initStringInfo(&s);
	/* a table Rails manages: every column, as the client's SELECT * */
	if (t->rails_managed)
	{
		appendStringInfo(&s, "%s.*", alias);
		return s.data;
	}
	for (i = 0; i < t->ncols; i++)
	{
		SubsetColumn *c = &t->cols[i];
		const char *qc = quote_identifier(c->name);

		if (i > 0)
			appendStringInfoString(&s, ", ");
		if (c->override_sql)
			appendStringInfo(&s, "%s AS %s", c->override_sql, qc);
		else if (c->raw_sql)
			appendStringInfo(&s, "(\n%s\n) AS %s", c->raw_sql, qc);
		else if (c->fake_type)
		{
			if (extschema == NULL)
				extschema = exwiw_extension_schema();
			/* deterministic fake data from the seed column's text */
			appendStringInfo(&s, "CASE WHEN %s.%s IS NULL THEN NULL ELSE %s.exwiw_fake(",
							 alias, qc, quote_identifier(extschema));
			subset_append_literal(&s, c->fake_type);
			appendStringInfoString(&s, ", ");
			if (c->fake_locale)
				subset_append_literal(&s, c->fake_locale);
			else
				appendStringInfoString(&s, "NULL");
			appendStringInfo(&s, ", CAST(%s.%s AS pg_catalog.text)) END AS %s",
							 alias, quote_identifier(c->fake_seed), qc);
		}
		else if (c->replace_with)
		{
			ListCell   *lc;

			/* CONCAT, as the client: a NULL reference gives "" */
			appendStringInfo(&s, "CASE WHEN %s.%s IS NULL THEN NULL ELSE pg_catalog.concat(",
							 alias, qc);
			foreach(lc, subset_template_parse(c->replace_with))
			{
				SubsetTemplatePart *part = lfirst(lc);

				if (foreach_current_index(lc) > 0)
					appendStringInfoString(&s, ", ");
				if (part->is_ref)
					appendStringInfo(&s, "%s.%s", alias, quote_identifier(part->text));
				else
				{
					appendStringInfoString(&s, "CAST(");
					subset_append_literal(&s, part->text);
					appendStringInfoString(&s, " AS pg_catalog.text)");
				}
			}
			appendStringInfo(&s, ") END AS %s", qc);
		}
		else
			appendStringInfo(&s, "%s.%s", alias, qc);
	}
	return s.data;
}

/*
 * subset_select_has_fragment
 *		Does the table's select list hold a raw_sql fragment?
 */
bool
subset_select_has_fragment(SubsetTable *t)
{
	int			i;

	for (i = 0; i < t->ncols; i++)
		if (t->cols[i].raw_sql)
			return true;
	return false;
}
