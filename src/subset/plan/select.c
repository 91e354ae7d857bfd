/*-------------------------------------------------------------------------
 *
 * plan/select.c
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
 *	  pseudonym, partial, noise, generalize, json
 *						the functions of mask_*.c, or date_trunc and floor,
 *						cast back to the column's type where the type is
 *						kept (subset_mask_expr); the secret that keys a
 *						pseudonym or noise is read by the function, never
 *						written into the query
 *
 * A table that Rails manages is read whole (SELECT t.*), as the client
 * does.
 *
 *-------------------------------------------------------------------------
 */
#include "subset/plan/planner.h"

#include "access/relation.h"
#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

/*
 * row_seed
 *		The seed of a noise mask of column qc: the row's primary key as text
 *		(a row of its columns for a composite key), or the value itself in
 *		a table without one.  A key of one integer column is passed as it
 *		is: the function writes its digits itself (mask/funcs.c,
 *		noise_unit), the same text without a cast's two calls a row.
 */
static void
row_seed(StringInfo s, SubsetTable *t, const char *alias, const char *qc)
{
	int			i;

	if (t->pk.n == 0)
	{
		appendStringInfo(s, "CAST(%s.%s AS pg_catalog.text)", alias, qc);
		return;
	}
	if (t->pk.n == 1 && (t->pk.typids[0] == INT2OID ||
						 t->pk.typids[0] == INT4OID ||
						 t->pk.typids[0] == INT8OID))
	{
		appendStringInfo(s, "%s.%s", alias, quote_identifier(t->pk.names[0]));
		return;
	}
	appendStringInfoString(s, t->pk.n > 1 ? "CAST(ROW(" : "CAST(");
	for (i = 0; i < t->pk.n; i++)
		appendStringInfo(s, "%s%s.%s", i ? ", " : "", alias,
						 quote_identifier(t->pk.names[i]));
	appendStringInfoString(s, t->pk.n > 1 ? ") AS pg_catalog.text)" : " AS pg_catalog.text)");
}

/*
 * subset_mask_expr
 *		The expression of column c of table t (read as alias) under its
 *		mask c->mask (not SUBSET_MASK_NONE).  NULL stays NULL.
 */
char *
subset_mask_expr(SubsetTable *t, SubsetColumn *c, const char *alias)
{
	StringInfoData s;
	const char *qc = quote_identifier(c->name);
	const char *qs = quote_identifier(exwiw_extension_schema());
	char	   *typ = format_type_extended(c->typid, c->typmod,
										   FORMAT_TYPE_TYPEMOD_GIVEN | FORMAT_TYPE_FORCE_QUALIFY);

	initStringInfo(&s);
	switch (c->mask)
	{
		case SUBSET_MASK_PSEUDONYM:

			/*
			 * NULL stays NULL: the function's own rule when the pseudonym is
			 * of the column itself; a CASE on the column when it is made from
			 * another one
			 */
			if (strcmp(c->mask_from, c->name) != 0)
				appendStringInfo(&s, "CASE WHEN %s.%s IS NULL THEN NULL ELSE ",
								 alias, qc);
			if (c->mask_unique)
				appendStringInfoChar(&s, '(');
			appendStringInfo(&s, "%s.exwiw_mask_pseudonym(CAST(%s.%s AS pg_catalog.text), ",
							 qs, alias, quote_identifier(c->mask_from));
			subset_append_literal(&s, c->mask_type);
			appendStringInfoString(&s, ", ");
			if (c->mask_locale)
				subset_append_literal(&s, c->mask_locale);
			else
				appendStringInfoString(&s, "NULL");
			appendStringInfoChar(&s, ')');

			/*
			 * Under a unique index, a pool's names would repeat and the load
			 * would fail: widened by 12 hex digits of the value's own digest
			 * (its uuid pseudonym: the same HMAC), "Maria Cruz 12c553e9d92a"
			 */
			if (c->mask_unique)
				appendStringInfo(&s, " OPERATOR(pg_catalog.||) ' ' OPERATOR(pg_catalog.||) "
								 "pg_catalog.left(pg_catalog.replace(%s.exwiw_mask_pseudonym(CAST(%s.%s AS pg_catalog.text), 'uuid', NULL), '-', ''), 12))",
								 qs, alias, quote_identifier(c->mask_from));
			if (strcmp(c->mask_from, c->name) != 0)
				appendStringInfoString(&s, " END");
			break;
		case SUBSET_MASK_PARTIAL:
			appendStringInfo(&s, "%s.exwiw_mask_partial(CAST(%s.%s AS pg_catalog.text), %d, %d, ",
							 qs, alias, qc, c->keep_start, c->keep_end);
			subset_append_literal(&s, c->mask_fill);
			appendStringInfo(&s, ", %s)", c->keep_domain ? "true" : "false");
			break;
		case SUBSET_MASK_NOISE:
			{
				/*
				 * A date or a time keeps its type; a number is computed on
				 * numeric and cast back to the column's type (a domain's
				 * checks included), except a plain numeric(p, s), which the
				 * function holds to its typmod itself, so that no cast (a
				 * call a row) is needed.  A typmod over numeric, the column's
				 * or its domain's, is passed, so that the value never fails
				 * the cast on the precision.
				 */
				int32		basetypmod = c->typmod;
				Oid			base = getBaseTypeAndTypmod(c->typid, &basetypmod);
				bool		held = !c->noise_interval && c->typid == NUMERICOID &&
					c->typmod >= 0;

				if (!held)
					appendStringInfoString(&s, "CAST(");
				if (c->noise_interval)
				{
					appendStringInfo(&s, "%s.exwiw_mask_noise(%s.%s, CAST(", qs, alias, qc);
					subset_append_literal(&s, c->noise_interval);
					appendStringInfoString(&s, " AS pg_catalog.interval), ");
				}
				else if (held)
					appendStringInfo(&s, "%s.exwiw_mask_noise(%s.%s, CAST('%.15g' AS pg_catalog.float8), CAST(%u AS pg_catalog.oid), ",
									 qs, alias, qc, c->noise_ratio, base);
				else
					appendStringInfo(&s, "%s.exwiw_mask_noise(CAST(%s.%s AS pg_catalog.numeric), CAST('%.15g' AS pg_catalog.float8), CAST(%u AS pg_catalog.oid), ",
									 qs, alias, qc, c->noise_ratio, base);
				subset_append_literal(&s, c->name);
				appendStringInfoString(&s, ", ");
				row_seed(&s, t, alias, qc);
				if (!c->noise_interval && base == NUMERICOID && basetypmod >= 0)
					appendStringInfo(&s, ", %d", basetypmod);
				appendStringInfoChar(&s, ')');
				if (!held)
					appendStringInfo(&s, " AS %s)", typ);
			}
			break;
		case SUBSET_MASK_GENERALIZE:
			if (c->gen_to && getBaseType(c->typid) == DATEOID)
			{
				/*
				 * date arithmetic: date_trunc would go through timestamp,
				 * whose range is shorter; an infinity stays
				 */
				const char *field = strcmp(c->gen_to, "year") == 0 ? "doy" :
					strcmp(c->gen_to, "month") == 0 ? "day" :
					strcmp(c->gen_to, "week") == 0 ? "isodow" : NULL;

				if (field)
					appendStringInfo(&s, "CAST(%s.%s OPERATOR(pg_catalog.-) COALESCE(CAST(pg_catalog.extract('%s', %s.%s) AS pg_catalog.int4) OPERATOR(pg_catalog.-) 1, 0) AS %s)",
									 alias, qc, field, alias, qc, typ);
				else
					appendStringInfo(&s, "%s.%s", alias, qc);
			}
			else if (c->gen_to)
			{
				appendStringInfoString(&s, "CAST(pg_catalog.date_trunc(");
				subset_append_literal(&s, c->gen_to);
				appendStringInfo(&s, ", %s.%s) AS %s)", alias, qc, typ);
			}
			else
				appendStringInfo(&s, "CAST(pg_catalog.floor(CAST(%s.%s AS pg_catalog.numeric) OPERATOR(pg_catalog./) %s) OPERATOR(pg_catalog.*) %s AS %s)",
								 alias, qc, c->gen_step, c->gen_step, typ);
			break;
		case SUBSET_MASK_JSON:
			appendStringInfo(&s, "%s.exwiw_mask_json(%s.%s, CAST(", qs, alias, qc);
			subset_append_literal(&s, c->mask_json);
			appendStringInfoString(&s, " AS pg_catalog.jsonb))");
			break;
		case SUBSET_MASK_NONE:
			appendStringInfo(&s, "%s.%s", alias, qc);
			break;
	}
	return s.data;
}

/*
 * append_internal_metadata
 *		Rails's ar_internal_metadata as SELECT * writes it, but for the value
 *		of the row "environment": exwiw.rails_env, so that Rails does not take
 *		the development database for production (ProtectedEnvironmentError).
 */
static void
append_internal_metadata(StringInfo s, SubsetTable *t, const char *alias)
{
	Relation	rel = relation_open(t->relid, AccessShareLock);
	TupleDesc	desc = RelationGetDescr(rel);
	bool		first = true;
	int			i;

	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		const char *qc = quote_identifier(NameStr(att->attname));

		if (att->attisdropped)
			continue;
		if (!first)
			appendStringInfoString(s, ", ");
		first = false;
		if (strcmp(NameStr(att->attname), "value") == 0)
		{
			appendStringInfo(s, "CASE WHEN CAST(%s.%s AS pg_catalog.text) OPERATOR(pg_catalog.=) 'environment' THEN ",
							 alias, quote_identifier("key"));
			subset_append_literal(s, exwiw_rails_env);
			appendStringInfo(s, " ELSE CAST(%s.%s AS pg_catalog.text) END AS %s", alias, qc, qc);
		}
		else
			appendStringInfo(s, "%s.%s", alias, qc);
	}
	relation_close(rel, AccessShareLock);
}

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
		if (strcmp(t->type, "rails_managed_internal_metadata") == 0 &&
			exwiw_rails_env != NULL && exwiw_rails_env[0] != '\0' &&
			get_attnum(t->relid, "value") != InvalidAttrNumber)
			append_internal_metadata(&s, t, alias);
		else
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
		else if (c->mask != SUBSET_MASK_NONE)
			appendStringInfo(&s, "%s AS %s", subset_mask_expr(t, c, alias), qc);
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
			appendStringInfo(&s, ", CAST(%s.%s AS pg_catalog.text))",
							 alias, quote_identifier(c->fake_seed));

			/*
			 * Under a unique index the pools' values repeat: widened by 12
			 * hex digits of the seed's md5 (the seed goes out unmasked, so
			 * its digest tells nothing the file does not)
			 */
			if (c->fake_unique)
				appendStringInfo(&s, " OPERATOR(pg_catalog.||) ' ' OPERATOR(pg_catalog.||) "
								 "pg_catalog.left(pg_catalog.md5(CAST(%s.%s AS pg_catalog.text)), 12)",
								 alias, quote_identifier(c->fake_seed));
			appendStringInfo(&s, " END AS %s", qc);
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
