/*-------------------------------------------------------------------------
 *
 * config/columns.c
 *	  A table's "columns": which are exported, templates, raw_sql and fake
 *	  data, and the check that no mask copies a value the export withholds
 *	  (check_withheld_ref).
 *
 *-------------------------------------------------------------------------
 */
#include "subset/config/config.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "parser/parser.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/rel.h"
#include "utils/syscache.h"

/* Allowed keys, sorted for the hint. */
static const char *const fake_keys[] = {"locale", "seed", "type", NULL};
static const char *const column_keys[] = {
	"comment", "generalize", "ignore", "json", "map", "name",
	"needs_mask_decision", "noise", "partial", "pseudonym", "raw_sql",
	"raw_sql_trusted", "replace_with", "replace_with_fake_data", NULL
};

/*
 * default_columns
 *		Every column a load can write: not dropped, not generated.
 */
static void
default_columns(SubsetTable *t)
{
	Relation	rel = relation_open(t->relid, AccessShareLock);
	TupleDesc	desc = RelationGetDescr(rel);
	int			i;

	t->cols = palloc0(sizeof(SubsetColumn) * Max(desc->natts, 1));
	t->ncols = 0;
	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		SubsetColumn *c;

		if (att->attisdropped || att->attgenerated)
			continue;
		c = &t->cols[t->ncols++];
		c->name = pstrdup(NameStr(att->attname));
		c->attnum = att->attnum;
		c->typid = att->atttypid;
		c->typmod = att->atttypmod;
		c->decision = -1;
		c->identity_always = (att->attidentity == ATTRIBUTE_IDENTITY_ALWAYS);
	}
	relation_close(rel, AccessShareLock);
}

/*
 * subset_template_parse
 *		Split a replace_with template as the Ruby client does (the regular
 *		expression \{[^{}]+\}|[^{}]+|[{}]): "{name}" is a reference to
 *		column name of the same row; anything else, a lone brace and "{}"
 *		included, is literal text.  Returns a List of SubsetTemplatePart,
 *		adjacent literals merged.
 */
List *
subset_template_parse(const char *tpl)
{
	List	   *parts = NIL;
	const char *p = tpl;
	StringInfoData lit;

	initStringInfo(&lit);
	while (*p)
	{
		if (*p == '{')
		{
			const char *q = p + 1;

			while (*q && *q != '{' && *q != '}')
				q++;
			if (*q == '}' && q > p + 1)
			{
				SubsetTemplatePart *part = palloc0(sizeof(SubsetTemplatePart));

				if (lit.len > 0)
				{
					SubsetTemplatePart *l = palloc0(sizeof(SubsetTemplatePart));

					l->text = pstrdup(lit.data);
					parts = lappend(parts, l);
					resetStringInfo(&lit);
				}
				part->is_ref = true;
				part->text = pnstrdup(p + 1, q - p - 1);
				parts = lappend(parts, part);
				p = q + 1;
				continue;
			}
		}
		appendStringInfoChar(&lit, *p);
		p++;
	}
	if (lit.len > 0 || parts == NIL)
	{
		SubsetTemplatePart *l = palloc0(sizeof(SubsetTemplatePart));

		l->text = pstrdup(lit.data);
		parts = lappend(parts, l);
	}
	return parts;
}

/*
 * listed_column
 *		The entry of column name in table t's "columns" (ignored ones
 *		included), or NULL.
 */
static SubsetColumn *
listed_column(SubsetTable *t, const char *name)
{
	int			i;

	for (i = 0; i < t->ncols; i++)
		if (strcmp(t->cols[i].name, name) == 0)
			return &t->cols[i];
	return NULL;
}

/*
 * check_withheld_ref
 *		Key keypath of column c of table t (a template, a raw_sql or a
 *		fake-data seed) refers to column name: error out when that column's
 *		original value is not exported, being masked (c itself included,
 *		unless self_ok), "ignore"d or left out of "columns": the key would
 *		carry it into the file (detail says how).  Assumes every column of t
 *		is parsed.
 */
static void
check_withheld_ref(ConfigParse *p, SubsetTable *t, SubsetColumn *c,
				   const char *keypath, const char *name, bool self_ok,
				   const char *detail, const char *hint)
{
	SubsetColumn *r = listed_column(t, name);

	if (r == c && self_ok)
		return;
	if (r != NULL && !r->ignored && !SubsetColumnIsMasked(r))
		return;
	p->ectx.key = keypath;
	if (r == NULL || r->ignored)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("key \"%s\" of table \"%s\" refers to column \"%s\", which the config does not export",
						keypath, t->name, name),
				 errdetail("%s", detail),
				 errhint("%s", hint)));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("key \"%s\" of table \"%s\" refers to masked column \"%s\"",
					keypath, t->name, name),
			 errdetail("%s", detail),
			 errhint("%s", hint)));
}

/* What check_raw_sql_refs collects: the column references of an expression. */
typedef struct RefWalk
{
	SubsetTable *t;
	List	   *names;			/* columns of t it names (char *) */
	bool		whole_row;		/* it names t's whole row */
} RefWalk;

/*
 * ref_walker
 *		raw_expression_tree_walker callback: collect the references to
 *		table t's columns.  An unqualified name is taken as t's when t has
 *		such a column (a subquery's own columns are best qualified); t.col
 *		and schema.t.col are t's; a name of t itself, t.* or * is its whole
 *		row.
 */
static bool
ref_walker(Node *node, void *arg)
{
	RefWalk    *w = (RefWalk *) arg;

	if (node == NULL)
		return false;
	if (IsA(node, ColumnRef))
	{
		ColumnRef  *cr = (ColumnRef *) node;
		int			nf = list_length(cr->fields);
		Node	   *last = llast(cr->fields);
		bool		ours = (nf == 1);

		if (nf == 2)
			ours = IsA(linitial(cr->fields), String) &&
				strcmp(strVal(linitial(cr->fields)), w->t->relname) == 0;
		else if (nf == 3)
			ours = IsA(linitial(cr->fields), String) && IsA(lsecond(cr->fields), String) &&
				strcmp(strVal(linitial(cr->fields)), w->t->nspname) == 0 &&
				strcmp(strVal(lsecond(cr->fields)), w->t->relname) == 0;
		if (!ours)
			return false;
		if (IsA(last, A_Star))
			w->whole_row = true;
		else if (nf == 1 && listed_column(w->t, strVal(last)) == NULL &&
				 strcmp(strVal(last), w->t->relname) == 0)
			w->whole_row = true;
		else
			w->names = lappend(w->names, strVal(last));
		return false;
	}
	return raw_expression_tree_walker(node, ref_walker, arg);
}

/*
 * The functions a raw_sql may not call unless it is trusted: they run SQL
 * of their own (the query_to_xml family, dblink) or read files, large
 * objects or settings (exwiw.mask_secret), so they would reach data the
 * expression's own row does not hold.  By the name's last part.
 */
static const char *const reaching_functions[] = {
	"query_to_xml", "query_to_xmlschema", "query_to_xml_and_xmlschema",
	"cursor_to_xml", "cursor_to_xmlschema", "table_to_xml", "table_to_xmlschema",
	"table_to_xml_and_xmlschema", "schema_to_xml", "schema_to_xmlschema",
	"schema_to_xml_and_xmlschema", "database_to_xml", "database_to_xmlschema",
	"database_to_xml_and_xmlschema", "pg_read_file", "pg_read_binary_file",
	"pg_stat_file", "pg_ls_dir", "lo_get", "lo_export", "lo_import", "loread",
	"current_setting", "set_config", "dblink", "dblink_exec", "dblink_open",
	"dblink_fetch", "pg_get_functiondef", "pg_get_viewdef", NULL
};

/* What check_raw_sql_reach finds: the first construct that reaches out. */
typedef struct ReachWalk
{
	const char *what;			/* NULL: none */
}			ReachWalk;

/*
 * reach_walker
 *		raw_expression_tree_walker callback: a subquery (any SubLink:
 *		(SELECT ...), EXISTS, IN (SELECT ...), ARRAY(SELECT ...)), or a call
 *		of one of reaching_functions.
 */
static bool
reach_walker(Node *node, void *arg)
{
	ReachWalk  *w = (ReachWalk *) arg;

	if (node == NULL)
		return false;
	if (IsA(node, SubLink))
	{
		w->what = "a subquery";
		return true;
	}
	if (IsA(node, FuncCall))
	{
		const char *fn = strVal(llast(((FuncCall *) node)->funcname));
		int			i;

		for (i = 0; reaching_functions[i]; i++)
			if (pg_strcasecmp(fn, reaching_functions[i]) == 0)
			{
				w->what = psprintf("function %s()", reaching_functions[i]);
				return true;
			}
	}
	return raw_expression_tree_walker(node, reach_walker, arg);
}

/*
 * check_raw_sql_reach
 *		A raw_sql computes its column from its own row: a subquery could
 *		read another row or table (a masked or ignored column of another
 *		table included: "(SELECT s.secret FROM shops s WHERE ...)", "(SELECT
 *		string_agg(secret, ',') FROM shops)"), and so could a function that
 *		runs SQL or reads files or settings.  Refused unless the column says
 *		"raw_sql_trusted": true, a key a reviewer sees.  Functions of the
 *		user's own are not looked into: they run with the exporter's
 *		privileges, as any function of the expression does.  Assumes the
 *		fragment parses (subset_check_fragment).
 */
static void
check_raw_sql_reach(ConfigParse *p, SubsetTable *t, const char *raw_sql,
					const char *keypath)
{
	List	   *raw = raw_parser(psprintf("SELECT %s\n", raw_sql), RAW_PARSE_DEFAULT);
	ReachWalk	w = {NULL};

	(void) raw_expression_tree_walker(linitial_node(RawStmt, raw)->stmt, reach_walker, &w);
	if (w.what == NULL)
		return;
	p->ectx.key = keypath;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("key \"%s\" of table \"%s\" holds %s, which could read other rows or tables",
					keypath, t->name, w.what),
			 errdetail("A raw_sql computes its column from the values of its own row; what else it reads, masked or ignored columns of other tables included, would go into the file as it is."),
			 errhint("Compute the value from the row's own unmasked columns, or, once a reviewer has read the expression, add \"raw_sql_trusted\": true to the column.")));
}

/*
 * check_raw_sql_refs
 *		A raw_sql expression may name its own column (it computes that
 *		column's value from it), but no other column whose original value
 *		the export withholds (check_withheld_ref), nor the whole row while
 *		the table has such a column.  Assumes the fragment parses
 *		(subset_check_fragment).
 */
static void
check_raw_sql_refs(ConfigParse *p, SubsetTable *t, SubsetColumn *c,
				   const char *keypath)
{
	const char *detail = "The expression would copy the column's original value into the file.";
	const char *hint = "Refer to columns that are exported unmasked, such as the primary key.";
	List	   *raw = raw_parser(psprintf("SELECT %s\n", c->raw_sql), RAW_PARSE_DEFAULT);
	RefWalk		w = {t, NIL, false};
	ListCell   *lc;
	int			i;

	(void) raw_expression_tree_walker(linitial_node(RawStmt, raw)->stmt, ref_walker, &w);
	foreach(lc, w.names)
	{
		/* a name the table does not have is another table's */
		if (cfg_column_attnum(t->relid, lfirst(lc), NULL, NULL, NULL, NULL, NULL) == InvalidAttrNumber)
			continue;
		check_withheld_ref(p, t, c, keypath, lfirst(lc), true, detail, hint);
	}
	if (!w.whole_row)
		return;
	for (i = 0; i < t->ncols; i++)
		if (t->cols[i].ignored || SubsetColumnIsMasked(&t->cols[i]))
			check_withheld_ref(p, t, c, keypath, t->cols[i].name, false, detail, hint);
}

/*
 * check_fake_seed
 *		A fake-data seed must be exported unmasked: the same original value
 *		always gives the same fake value, so a seed that is the masked
 *		column itself (or another masked, ignored or unlisted one) would let
 *		the file show which rows share an original.
 */
static void
check_fake_seed(ConfigParse *p, SubsetTable *t, SubsetColumn *c)
{
	check_withheld_ref(p, t, c, psprintf("columns[%d].replace_with_fake_data.seed", c->cfgpos),
					   c->fake_seed, false,
					   "The same original value always gives the same fake value, so the fake values would show which rows share an original.",
					   "Seed it with a column that is exported unmasked, such as the primary key.");
}

/*
 * check_template
 *		A replace_with template: every {name} must be a column of the table
 *		that is exported unmasked (a template that copied a masked, ignored
 *		or unlisted column would put its original value into the file).
 */
static void
check_template(ConfigParse *p, SubsetTable *t, SubsetColumn *c,
			   const char *keypath)
{
	ListCell   *lc;

	foreach(lc, subset_template_parse(c->replace_with))
	{
		SubsetTemplatePart *part = lfirst(lc);

		if (!part->is_ref)
			continue;
		p->ectx.key = keypath;
		if (cfg_column_attnum(t->relid, part->text, NULL, NULL, NULL, NULL, NULL) == InvalidAttrNumber)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("key \"%s\" of table \"%s\" refers to column \"{%s}\", which does not exist",
							keypath, t->name, part->text),
					 errhint("In a template, {name} stands for the value of column \"name\" of the same row.")));
		check_withheld_ref(p, t, c, keypath, part->text, false,
						   "The template would copy the column's original value into the file.",
						   "Refer to columns that are exported unmasked, such as the primary key.");
	}
}

/*
 * check_constant_unique
 *		A replace_with template that names no column writes one value in
 *		every row: under a unique index (or a primary key) the development
 *		database rejects the second row, so the config is refused, naming
 *		the index.
 */
static void
check_constant_unique(ConfigParse *p, SubsetTable *t, SubsetColumn *c,
					  const char *keypath)
{
	ListCell   *lc;
	char	   *index;

	foreach(lc, subset_template_parse(c->replace_with))
		if (((SubsetTemplatePart *) lfirst(lc))->is_ref)
		return;
	if ((index = subset_unique_index_with(t->relid, c->attnum)) == NULL)
		return;
	p->ectx.key = keypath;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("key \"%s\" of table \"%s\" writes one value in every row of column \"%s\", which unique index \"%s\" holds",
					keypath, t->name, c->name, index),
			 errdetail("The development database would reject the second row of the file."),
			 errhint("Make the value unique per row, for example \"user{id}@example.com\", or use a pseudonym or \"raw_sql\": \"NULL\".")));
}

/* The types replace_with_fake_data knows (fake/data.c). */
static const char *const fake_types[] = {
	"name", "human_name", "first_name", "last_name", "human_name_kana",
	"first_name_kana", "last_name_kana", "email", "username", "phone_number",
	"address", "city", "company", "company_name", NULL
};

/*
 * parse_fake
 *		A column's replace_with_fake_data: {"seed": column, "type": ...,
 *		"locale": "ja"?}.  Exclusive of raw_sql and replace_with.
 */
static void
parse_fake(ConfigParse *p, SubsetTable *t, SubsetColumn *c, JsonbValue *cv, int i)
{
	JsonbValue *f = cfg_json_get(cv, "replace_with_fake_data");
	char	   *key = psprintf("columns[%d].replace_with_fake_data", i);
	char	   *seed;
	const char *dot;
	int			k;
	bool		known = false;

	if (f == NULL || f->type == jbvNull)
		return;
	if (!cfg_json_is_object(f))
		cfg_type_error(p, key, "an object", f);
	cfg_check_keys(p, f, fake_keys, psprintf("%s.", key));
	c->fake_type = cfg_get_string(p, f, "type", psprintf("%s.type", key), false);
	seed = cfg_get_string(p, f, "seed", psprintf("%s.seed", key), false);
	c->fake_locale = cfg_get_string(p, f, "locale", psprintf("%s.locale", key), true);
	p->ectx.key = key;
	for (k = 0; fake_types[k]; k++)
		known |= (strcmp(fake_types[k], c->fake_type) == 0);
	if (!known)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown replace_with_fake_data type \"%s\" for column \"%s\" of table \"%s\"",
						c->fake_type, c->name, t->name),
				 errhint("Known types: %s.", cfg_allowed_list(fake_types))));
	if (strstr(c->fake_type, "kana") && (c->fake_locale == NULL || strcmp(c->fake_locale, "ja") != 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("replace_with_fake_data type \"%s\" of column \"%s\" of table \"%s\" needs locale \"ja\"",
						c->fake_type, c->name, t->name),
				 errdetail("Kana readings exist only for Japanese names.")));
	if (c->fake_locale && strcmp(c->fake_locale, "ja") != 0 && strcmp(c->fake_locale, "en") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown replace_with_fake_data locale \"%s\" for column \"%s\" of table \"%s\"",
						c->fake_locale, c->name, t->name),
				 errhint("Known locales: en (the default) and ja.")));
	/* "table.column" names a column of this table, as in the client */
	dot = strchr(seed, '.');
	if (dot && strncmp(seed, t->relname, dot - seed) == 0 && strlen(t->relname) == (size_t) (dot - seed))
		seed = pstrdup(dot + 1);
	if (strchr(seed, '.') ||
		cfg_column_attnum(t->relid, seed, NULL, NULL, NULL, NULL, NULL) == InvalidAttrNumber)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("replace_with_fake_data seed \"%s\" of column \"%s\" does not name a column of table \"%s\"",
						seed, c->name, t->name),
				 errhint("Use \"column\" or \"%s.column\".", t->relname)));
	c->fake_seed = seed;
	/* a pool's values repeat: under a unique index they are widened */
	c->fake_unique = strcmp(c->fake_type, "email") != 0 && strcmp(c->fake_type, "username") != 0 &&
		subset_unique_index_with(t->relid, c->attnum) != NULL;
	if (cfg_json_get(cv, "raw_sql") || cfg_json_get(cv, "replace_with"))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("column \"%s\" of table \"%s\" has replace_with_fake_data and also raw_sql or replace_with",
						c->name, t->name),
				 errhint("Use one mask per column.")));
}

/*
 * cfg_parse_columns
 *		The "columns" key: the exported columns, with their masks.
 */
void
cfg_parse_columns(ConfigParse *p, SubsetTable *t, JsonbValue *v)
{
	int			n,
				i,
				j;

	if (v == NULL || v->type == jbvNull)
	{
		default_columns(t);
		if (t->ncols == 0 && !t->ignore)
			goto empty;
		return;
	}
	if (!cfg_json_is_array(v))
		cfg_type_error(p, "columns", "an array", v);
	n = cfg_array_length(v);
	if (n > 0 && t->rails_managed)
	{
		p->ectx.key = "columns";
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("table \"%s\" has type %s, so key \"columns\" must not list columns",
						t->name, t->type),
				 errdetail("A table Rails manages is exported in full, every column, as the Ruby client does.")));
	}
	if (n == 0 && t->rails_managed)
	{
		default_columns(t);
		return;
	}
	if (n == 0 && !t->ignore)
		goto empty;
	t->cols = palloc0(sizeof(SubsetColumn) * Max(n, 1));
	t->ncols = n;

	/* names first: a template may refer to a column listed after it */
	for (i = 0; i < n; i++)
	{
		JsonbValue *cv = cfg_json_array_get(v, i);
		SubsetColumn *c = &t->cols[i];
		char		prefix[64];
		char		generated = 0;
		char		identity = 0;
		JsonbValue *rw;
		JsonbValue *d;

		snprintf(p->keybuf, sizeof(p->keybuf), "columns[%d]", i);
		if (!cfg_json_is_object(cv))
			cfg_type_error(p, pstrdup(p->keybuf), "an object", cv);
		snprintf(prefix, sizeof(prefix), "columns[%d].", i);
		cfg_check_keys(p, cv, column_keys, prefix);

		snprintf(p->keybuf, sizeof(p->keybuf), "columns[%d].name", i);
		c->name = cfg_get_string(p, cv, "name", pstrdup(p->keybuf), false);
		c->attnum = cfg_column_attnum(t->relid, c->name, &c->typid, &c->typmod,
									  NULL, &generated, &identity);
		p->ectx.key = pstrdup(p->keybuf);
		if (c->attnum == InvalidAttrNumber)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("key \"%s\" of table \"%s\" names column \"%s\", which does not exist",
							p->keybuf, t->name, c->name)));
		if (generated)
			ereport(ERROR,
					(errcode(ERRCODE_GENERATED_ALWAYS),
					 errmsg("key \"%s\" of table \"%s\" names generated column \"%s\", which cannot be loaded",
							p->keybuf, t->name, c->name),
					 errhint("Leave generated columns out: the load computes them.")));
		for (j = 0; j < i; j++)
			if (strcmp(t->cols[j].name, c->name) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_DUPLICATE_COLUMN),
						 errmsg("column \"%s\" is listed twice in the config of table \"%s\"",
								c->name, t->name)));
		c->identity_always = (identity == ATTRIBUTE_IDENTITY_ALWAYS);

		snprintf(p->keybuf, sizeof(p->keybuf), "columns[%d].comment", i);
		(void) cfg_get_string(p, cv, "comment", pstrdup(p->keybuf), true);
		snprintf(p->keybuf, sizeof(p->keybuf), "columns[%d].raw_sql", i);
		c->raw_sql = cfg_get_string(p, cv, "raw_sql", pstrdup(p->keybuf), true);
		snprintf(p->keybuf, sizeof(p->keybuf), "columns[%d].raw_sql_trusted", i);
		c->raw_sql_trusted = cfg_get_bool(p, cv, "raw_sql_trusted", pstrdup(p->keybuf));

		rw = cfg_json_get(cv, "replace_with");
		snprintf(p->keybuf, sizeof(p->keybuf), "columns[%d].replace_with", i);
		if (rw == NULL || rw->type == jbvNull)
			c->replace_with = NULL;
		else if (rw->type == jbvString)
			c->replace_with = cfg_json_string(rw);
		else if (rw->type == jbvNumeric)
			c->replace_with = DatumGetCString(DirectFunctionCall1(numeric_out,
																  NumericGetDatum(rw->val.numeric)));
		else if (rw->type == jbvBool)
			c->replace_with = pstrdup(rw->val.boolean ? "t" : "f");
		else
			cfg_type_error(p, pstrdup(p->keybuf), "a string, a number, a boolean or null", rw);
		/* raw_sql wins over replace_with */
		if (c->raw_sql)
			c->replace_with = NULL;

		d = cfg_json_get(cv, "needs_mask_decision");
		c->decision = -1;
		if (d != NULL && d->type != jbvNull)
		{
			if (d->type != jbvBool)
			{
				snprintf(p->keybuf, sizeof(p->keybuf), "columns[%d].needs_mask_decision", i);
				cfg_type_error(p, pstrdup(p->keybuf), "a boolean", d);
			}
			c->decision = d->val.boolean ? 1 : 0;
		}
		c->cfgpos = i;
		if (cfg_json_get(cv, "map") != NULL)
		{
			snprintf(p->keybuf, sizeof(p->keybuf), "columns[%d].map", i);
			p->ectx.key = pstrdup(p->keybuf);
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("key \"%s\" of table \"%s\" holds Ruby code for column \"%s\", which exwiw cannot run",
							p->keybuf, t->name, c->name),
					 errdetail("A map is a Ruby proc that the Ruby client evaluates for every row."),
					 errhint("Write the same as \"raw_sql\", an SQL expression (for example \"'user' || id || '@example.com'\" or \"left(name, 1) || '.'\"), or as \"replace_with\", a template (for example \"user{id}@example.com\").")));
		}
		parse_fake(p, t, c, cv, i);
		subset_config_parse_masks(&p->ectx, t, c, cv, i);
		d = cfg_json_get(cv, "ignore");
		if (d != NULL && d->type != jbvNull && d->type != jbvBool)
		{
			snprintf(p->keybuf, sizeof(p->keybuf), "columns[%d].ignore", i);
			cfg_type_error(p, pstrdup(p->keybuf), "a boolean or null", d);
		}
		c->ignored = (d != NULL && d->type == jbvBool && d->val.boolean);
	}

	/* the masks, once every column is known (ignored ones too) */
	for (i = 0; i < n; i++)
	{
		SubsetColumn *c = &t->cols[i];

		if (c->ignored)
			continue;
		if (SubsetColumnIsMasked(c))
			t->any_mask = true;
		if (c->raw_sql)
		{
			snprintf(p->keybuf, sizeof(p->keybuf), "columns[%d].raw_sql", c->cfgpos);
			p->ectx.key = pstrdup(p->keybuf);
			subset_check_fragment(p->funcname, t, p->ectx.key, c->raw_sql, false);
			if (!c->raw_sql_trusted)
				check_raw_sql_reach(p, t, c->raw_sql, p->ectx.key);
			check_raw_sql_refs(p, t, c, p->ectx.key);
		}
		else if (c->replace_with)
		{
			snprintf(p->keybuf, sizeof(p->keybuf), "columns[%d].replace_with", c->cfgpos);
			check_template(p, t, c, pstrdup(p->keybuf));
			check_constant_unique(p, t, c, pstrdup(p->keybuf));
		}
		else if (c->fake_type)
			check_fake_seed(p, t, c);
	}

	/* "ignore": true leaves a column out, as the Ruby client does */
	for (i = j = 0; i < n; i++)
		if (!t->cols[i].ignored)
			t->cols[j++] = t->cols[i];
	t->ncols = n = j;
	if (n == 0 && !t->ignore)
		goto empty;
	return;

empty:
	p->ectx.key = "columns";
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("the config of table \"%s\" exports no column", t->name),
			 errhint("List at least one column, leave \"columns\" out to export them all, or set \"ignore\": true.")));
}
