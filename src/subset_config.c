/*-------------------------------------------------------------------------
 *
 * subset_config.c
 *	  Check a subset-export config and resolve it into a SubsetConfig.
 *
 * A config is a JSON array of table configs, or {"tables": [...]}:
 *
 *	{"name": "users",					table, or "schema.table"
 *	 "primary_key": "id",				a column, an array of columns, or null
 *	 "filter": "<SQL predicate>",
 *	 "belongs_tos": [{"table_name": "shops", "foreign_key": "shop_id"}],
 *	 "columns": [{"name": "email", "replace_with": "user{id}@example.com"},
 *				 {"name": "phone", "raw_sql": "NULL"},
 *				 {"name": "note", "needs_mask_decision": false}],
 *	 "bulk_insert_chunk_size": 10000, "ignore": false, "comment": "..."}
 *
 * A belongs_to's "foreign_key" is a column or an array of columns; it
 * references the parent's primary key, or the parent columns given in
 * "references".  Every mistake is an error that names the table and the
 * key, with an error context naming the function; unknown keys are errors,
 * as in the Ruby client.  Names are resolved here, once: an unqualified
 * table name through the caller's search_path (the config means what the
 * caller means), and everything after that by OID.
 *
 * A mask may not copy an original value that the export withholds: a
 * template's {col}, a raw_sql's column names (but its own column) and a
 * fake-data seed must name columns that are exported unmasked, never a
 * masked, "ignore"d or unlisted one (check_withheld_ref).
 *
 *-------------------------------------------------------------------------
 */
#include "subset.h"

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
#include "utils/syscache.h"

/* Allowed keys, sorted for the hint. */
static const char *const table_keys[] = {
	"batch_scope", "belongs_tos", "bulk_insert_chunk_size", "columns",
	"comment", "export", "export_reason", "filter", "id_space", "ignore",
	"name", "needs_scope_decision", "primary_key", "reverse_scope",
	"scope_column", "scope_exempt", "type", NULL
};
static const char *const column_keys[] = {
	"comment", "generalize", "ignore", "json", "map", "name",
	"needs_mask_decision", "noise", "partial", "pseudonym", "raw_sql",
	"replace_with", "replace_with_fake_data", NULL
};
static const char *const belongs_to_keys[] = {
	"comment", "foreign_key", "foreign_type", "ignore", "ignore_type",
	"inferred", "references", "table_name", "type_value", NULL
};
static const char *const fake_keys[] = {"locale", "seed", "type", NULL};
static const char *const reverse_keys[] = {"column", "via", NULL};
static const char *const via_keys[] = {"column", "table", NULL};
static const char *const batch_keys[] = {"comment", "size", "table", NULL};

/* Table types of the Ruby client. */
#define TYPE_SCHEMA_MIGRATIONS	"rails_managed_schema_migrations"
#define TYPE_INTERNAL_METADATA	"rails_managed_internal_metadata"

/* State of one parse, for error messages. */
typedef struct ConfigParse
{
	const char *funcname;
	SubsetErrorContext ectx;
	ErrorContextCallback errcb;
	char		keybuf[128];
} ConfigParse;

/*
 * subset_error_context_callback
 *		Error context of config checks and exports: the function, and the
 *		table and key when known.
 */
static void
subset_error_context_callback(void *arg)
{
	SubsetErrorContext *e = (SubsetErrorContext *) arg;

	if (e->table && e->key)
		errcontext("%s, config of table \"%s\", key \"%s\"",
				   e->funcname, e->table, e->key);
	else if (e->table)
		errcontext("%s, table \"%s\"", e->funcname, e->table);
	else
		errcontext("%s, config", e->funcname);
}

/*
 * json_type_name
 *		The JSON type of v, as jsonb_typeof() names it.
 */
static const char *
json_type_name(JsonbValue *v)
{
	switch (v->type)
	{
		case jbvNull:
			return "null";
		case jbvString:
			return "string";
		case jbvNumeric:
			return "number";
		case jbvBool:
			return "boolean";
		case jbvBinary:
			return JsonContainerIsArray(v->val.binary.data) ? "array" : "object";
		default:
			return "object";
	}
}

static bool
json_is_object(JsonbValue *v)
{
	return v->type == jbvBinary && JsonContainerIsObject(v->val.binary.data);
}

static bool
json_is_array(JsonbValue *v)
{
	return v->type == jbvBinary && JsonContainerIsArray(v->val.binary.data);
}

static char *
json_string(JsonbValue *v)
{
	Assert(v->type == jbvString);
	return pnstrdup(v->val.string.val, v->val.string.len);
}

/*
 * json_get
 *		The value of key in object v, or NULL when absent.
 */
static JsonbValue *
json_get(JsonbValue *v, const char *key)
{
	Assert(json_is_object(v));
	return getKeyJsonValueFromContainer(v->val.binary.data, key, strlen(key),
										NULL);
}

/* Number of elements of array v. */
static int
cfg_array_length(JsonbValue *v)
{
	return JsonContainerSize(v->val.binary.data);
}

static JsonbValue *
json_array_get(JsonbValue *v, int i)
{
	return getIthJsonbValueFromContainer(v->val.binary.data, i);
}

/*
 * allowed_list
 *		"a, b, c" from a NULL-terminated key list, for hints.
 */
static char *
allowed_list(const char *const *keys)
{
	StringInfoData s;
	int			i;

	initStringInfo(&s);
	for (i = 0; keys[i]; i++)
		appendStringInfo(&s, "%s%s", i ? ", " : "", keys[i]);
	return s.data;
}

/*
 * check_keys
 *		Error out on a key of object v that is not in allowed.  prefix names
 *		where the object is ("" for a table, "columns[2]." for a column).
 */
static void
check_keys(ConfigParse *p, JsonbValue *v, const char *const *allowed,
		   const char *prefix)
{
	JsonbIterator *it = JsonbIteratorInit(v->val.binary.data);
	JsonbValue	k;
	JsonbIteratorToken tok;

	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		char	   *key;
		int			i;
		bool		ok = false;

		if (tok != WJB_KEY)
			continue;
		key = json_string(&k);
		for (i = 0; allowed[i]; i++)
			ok |= (strcmp(key, allowed[i]) == 0);
		if (!ok)
		{
			snprintf(p->keybuf, sizeof(p->keybuf), "%s%s", prefix, key);
			p->ectx.key = p->keybuf;
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown key \"%s%s\" in the config of table \"%s\"",
							prefix, key, p->ectx.table),
					 errhint("Valid keys%s%.*s are: %s.",
							 *prefix ? " in " : "",
							 *prefix ? (int) strlen(prefix) - 1 : 0, prefix,
							 allowed_list(allowed))));
		}
	}
}

/*
 * type_error
 *		Error out: key of the current table has the wrong JSON type.
 */
static void
type_error(ConfigParse *p, const char *key, const char *want, JsonbValue *v)
{
	p->ectx.key = key;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("key \"%s\" of table \"%s\" must be %s, not %s",
					key, p->ectx.table, want, json_type_name(v))));
}

/*
 * get_string
 *		The string value of key in object v; NULL when absent or null if
 *		nullable, else an error.
 */
static char *
get_string(ConfigParse *p, JsonbValue *obj, const char *key,
		   const char *keypath, bool nullable)
{
	JsonbValue *v = json_get(obj, key);

	if (v == NULL || v->type == jbvNull)
	{
		if (nullable)
			return NULL;
		p->ectx.key = keypath;
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("key \"%s\" of table \"%s\" is missing", keypath,
						p->ectx.table)));
	}
	if (v->type != jbvString)
		type_error(p, keypath, nullable ? "a string or null" : "a string", v);
	return json_string(v);
}

/*
 * subset_resolve_name
 *		The relation a config name means: "table" through the search path,
 *		or "schema.table"; InvalidOid when there is none, or the name is not
 *		of either form.  Names are raw, not SQL-quoted.
 */
Oid
subset_resolve_name(const char *name)
{
	const char *dot = strchr(name, '.');

	if (name[0] == '\0' || (dot && (dot == name || dot[1] == '\0' ||
									strchr(dot + 1, '.') != NULL)))
		return InvalidOid;
	if (dot)
	{
		char	   *nsp = pnstrdup(name, dot - name);
		Oid			nspid = get_namespace_oid(nsp, true);

		return OidIsValid(nspid) ? get_relname_relid(dot + 1, nspid) : InvalidOid;
	}
	return RelnameGetRelid(name);
}

/*
 * resolve_table
 *		The relation a config "name" means, see subset_resolve_name.  Only
 *		ordinary and partitioned tables.
 */
static Oid
resolve_table(ConfigParse *p, const char *name, char *relkind)
{
	const char *dot = strchr(name, '.');
	Oid			relid;

	p->ectx.key = "name";
	if (name[0] == '\0' || (dot && (dot == name || dot[1] == '\0' ||
									strchr(dot + 1, '.') != NULL)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_NAME),
				 errmsg("table name \"%s\" in the config is not \"table\" or \"schema.table\"",
						name)));
	relid = subset_resolve_name(name);
	if (!OidIsValid(relid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("table \"%s\" in the config does not exist", name),
				 errhint("Names are resolved through search_path; qualify other schemas as \"schema.table\".")));
	*relkind = get_rel_relkind(relid);
	if (*relkind != RELKIND_RELATION && *relkind != RELKIND_PARTITIONED_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" in the config is not a table", name),
				 errdetail("Only tables and partitioned tables can be exported.")));
	if (get_rel_relispartition(relid))
	{
		List	   *anc = get_partition_ancestors(relid);
		Oid			root = llast_oid(anc);

		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("table \"%s\" in the config is a partition of \"%s\"",
						name, get_rel_name(root)),
				 errdetail("A partitioned table is exported as one table; its partitions never appear in the config."),
				 errhint("Name the partitioned table instead.")));
	}
	return relid;
}

/*
 * column_attnum
 *		attnum of column name of relid, or InvalidAttrNumber; sets the type
 *		and generated flag.
 */
static AttrNumber
column_attnum(Oid relid, const char *name, Oid *typid, int32 *typmod,
			  Oid *collid, char *generated, char *identity)
{
	HeapTuple	tup = SearchSysCacheAttName(relid, name);
	Form_pg_attribute att;
	AttrNumber	attnum;

	if (!HeapTupleIsValid(tup))
		return InvalidAttrNumber;
	att = (Form_pg_attribute) GETSTRUCT(tup);
	attnum = att->attnum;
	if (typid)
		*typid = att->atttypid;
	if (typmod)
		*typmod = att->atttypmod;
	if (collid)
		*collid = att->attcollation;
	if (generated)
		*generated = att->attgenerated;
	if (identity)
		*identity = att->attidentity;
	ReleaseSysCache(tup);
	return attnum > 0 ? attnum : InvalidAttrNumber;
}

/*
 * parse_cols
 *		A column or an array of columns of table t (key keypath), resolved.
 *		NULL/absent gives n = 0 when nullable.
 */
static void
parse_cols(ConfigParse *p, SubsetTable *t, JsonbValue *v, const char *keypath,
		   SubsetCols *out)
{
	int			n,
				i;

	memset(out, 0, sizeof(*out));
	if (v == NULL || v->type == jbvNull)
		return;
	if (v->type == jbvString)
		n = 1;
	else if (json_is_array(v) && cfg_array_length(v) > 0)
		n = cfg_array_length(v);
	else
		type_error(p, keypath, "a column name or a non-empty array of column names", v);

	out->n = n;
	out->names = palloc(sizeof(char *) * n);
	out->attnums = palloc(sizeof(AttrNumber) * n);
	out->typids = palloc(sizeof(Oid) * n);
	out->typmods = palloc(sizeof(int32) * n);
	out->collids = palloc(sizeof(Oid) * n);
	for (i = 0; i < n; i++)
	{
		JsonbValue *e = (v->type == jbvString) ? v : json_array_get(v, i);
		int			j;

		if (e->type != jbvString)
			type_error(p, keypath, "a column name or a non-empty array of column names", v);
		out->names[i] = json_string(e);
		out->attnums[i] = column_attnum(t->relid, out->names[i], &out->typids[i],
										&out->typmods[i], &out->collids[i],
										NULL, NULL);
		p->ectx.key = keypath;
		if (out->attnums[i] == InvalidAttrNumber)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("key \"%s\" of table \"%s\" names column \"%s\", which does not exist",
							keypath, p->ectx.table, out->names[i]),
					 strcmp(p->ectx.table, t->name) != 0 ?
					 errdetail("Table \"%s\" has no such column.", t->name) : 0));
		for (j = 0; j < i; j++)
			if (strcmp(out->names[j], out->names[i]) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_DUPLICATE_COLUMN),
						 errmsg("key \"%s\" of table \"%s\" names column \"%s\" twice",
								keypath, t->name, out->names[i])));
	}
}

/*
 * parse_positive
 *		A positive integer at key (bulk_insert_chunk_size, batch_scope.size),
 *		or null for dflt.
 */
static int
parse_positive(ConfigParse *p, JsonbValue *v, const char *key, int dflt)
{
	char	   *s;
	char	   *end;
	long		n;

	if (v == NULL || v->type == jbvNull)
		return dflt;
	if (v->type != jbvNumeric)
		type_error(p, key, "a positive integer", v);
	s = DatumGetCString(DirectFunctionCall1(numeric_out,
											NumericGetDatum(v->val.numeric)));
	errno = 0;
	n = strtol(s, &end, 10);
	if (*end == '.')
		for (end++; *end == '0'; end++)
			;
	if (*end != '\0' || errno != 0 || n < 1 || n > PG_INT32_MAX)
	{
		p->ectx.key = key;
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("key \"%s\" of table \"%s\" must be a positive integer, not %s",
						key, p->ectx.table, s)));
	}
	return (int) n;
}

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
		if (column_attnum(t->relid, lfirst(lc), NULL, NULL, NULL, NULL, NULL) == InvalidAttrNumber)
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
		if (column_attnum(t->relid, part->text, NULL, NULL, NULL, NULL, NULL) == InvalidAttrNumber)
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

/* The types replace_with_fake_data knows (fake_data.c). */
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
	JsonbValue *f = json_get(cv, "replace_with_fake_data");
	char	   *key = psprintf("columns[%d].replace_with_fake_data", i);
	char	   *seed;
	const char *dot;
	int			k;
	bool		known = false;

	if (f == NULL || f->type == jbvNull)
		return;
	if (!json_is_object(f))
		type_error(p, key, "an object", f);
	check_keys(p, f, fake_keys, psprintf("%s.", key));
	c->fake_type = get_string(p, f, "type", psprintf("%s.type", key), false);
	seed = get_string(p, f, "seed", psprintf("%s.seed", key), false);
	c->fake_locale = get_string(p, f, "locale", psprintf("%s.locale", key), true);
	p->ectx.key = key;
	for (k = 0; fake_types[k]; k++)
		known |= (strcmp(fake_types[k], c->fake_type) == 0);
	if (!known)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown replace_with_fake_data type \"%s\" for column \"%s\" of table \"%s\"",
						c->fake_type, c->name, t->name),
				 errhint("Known types: %s.", allowed_list(fake_types))));
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
		column_attnum(t->relid, seed, NULL, NULL, NULL, NULL, NULL) == InvalidAttrNumber)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("replace_with_fake_data seed \"%s\" of column \"%s\" does not name a column of table \"%s\"",
						seed, c->name, t->name),
				 errhint("Use \"column\" or \"%s.column\".", t->relname)));
	c->fake_seed = seed;
	if (json_get(cv, "raw_sql") || json_get(cv, "replace_with"))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("column \"%s\" of table \"%s\" has replace_with_fake_data and also raw_sql or replace_with",
						c->name, t->name),
				 errhint("Use one mask per column.")));
}

/*
 * parse_columns
 *		The "columns" key: the exported columns, with their masks.
 */
static void
parse_columns(ConfigParse *p, SubsetTable *t, JsonbValue *v)
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
	if (!json_is_array(v))
		type_error(p, "columns", "an array", v);
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
		JsonbValue *cv = json_array_get(v, i);
		SubsetColumn *c = &t->cols[i];
		char		prefix[64];
		char		generated = 0;
		char		identity = 0;
		JsonbValue *rw;
		JsonbValue *d;

		snprintf(p->keybuf, sizeof(p->keybuf), "columns[%d]", i);
		if (!json_is_object(cv))
			type_error(p, pstrdup(p->keybuf), "an object", cv);
		snprintf(prefix, sizeof(prefix), "columns[%d].", i);
		check_keys(p, cv, column_keys, prefix);

		snprintf(p->keybuf, sizeof(p->keybuf), "columns[%d].name", i);
		c->name = get_string(p, cv, "name", pstrdup(p->keybuf), false);
		c->attnum = column_attnum(t->relid, c->name, &c->typid, &c->typmod,
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
		(void) get_string(p, cv, "comment", pstrdup(p->keybuf), true);
		snprintf(p->keybuf, sizeof(p->keybuf), "columns[%d].raw_sql", i);
		c->raw_sql = get_string(p, cv, "raw_sql", pstrdup(p->keybuf), true);

		rw = json_get(cv, "replace_with");
		snprintf(p->keybuf, sizeof(p->keybuf), "columns[%d].replace_with", i);
		if (rw == NULL || rw->type == jbvNull)
			c->replace_with = NULL;
		else if (rw->type == jbvString)
			c->replace_with = json_string(rw);
		else if (rw->type == jbvNumeric)
			c->replace_with = DatumGetCString(DirectFunctionCall1(numeric_out,
																  NumericGetDatum(rw->val.numeric)));
		else if (rw->type == jbvBool)
			c->replace_with = pstrdup(rw->val.boolean ? "t" : "f");
		else
			type_error(p, pstrdup(p->keybuf), "a string, a number, a boolean or null", rw);
		/* raw_sql wins over replace_with */
		if (c->raw_sql)
			c->replace_with = NULL;

		d = json_get(cv, "needs_mask_decision");
		c->decision = -1;
		if (d != NULL && d->type != jbvNull)
		{
			if (d->type != jbvBool)
			{
				snprintf(p->keybuf, sizeof(p->keybuf), "columns[%d].needs_mask_decision", i);
				type_error(p, pstrdup(p->keybuf), "a boolean", d);
			}
			c->decision = d->val.boolean ? 1 : 0;
		}
		c->cfgpos = i;
		if (json_get(cv, "map") != NULL)
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
		d = json_get(cv, "ignore");
		if (d != NULL && d->type != jbvNull && d->type != jbvBool)
		{
			snprintf(p->keybuf, sizeof(p->keybuf), "columns[%d].ignore", i);
			type_error(p, pstrdup(p->keybuf), "a boolean or null", d);
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
			check_raw_sql_refs(p, t, c, p->ectx.key);
		}
		else if (c->replace_with)
		{
			snprintf(p->keybuf, sizeof(p->keybuf), "columns[%d].replace_with", c->cfgpos);
			check_template(p, t, c, pstrdup(p->keybuf));
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

/*
 * get_bool
 *		The boolean value of key in object v; false when absent or null.
 */
static bool
get_bool(ConfigParse *p, JsonbValue *obj, const char *key, const char *keypath)
{
	JsonbValue *v = json_get(obj, key);

	if (v == NULL || v->type == jbvNull)
		return false;
	if (v->type != jbvBool)
		type_error(p, keypath, "a boolean or null", v);
	return v->val.boolean;
}

/* An id space's name: a lower-case letter, then letters, digits or "_". */
static bool
valid_space_name(const char *s)
{
	if (!(*s >= 'a' && *s <= 'z'))
		return false;
	for (s++; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

/*
 * parse_scope_decision
 *		A table's decision about being exported in full: "export": "all"
 *		(every row may go, where no rule ties its rows to the target), or
 *		"needs_scope_decision": true (safe mode left it undecided; the
 *		export refuses it).  "export_reason" is the generator's note.
 */
static void
parse_scope_decision(ConfigParse *p, SubsetTable *t, JsonbValue *tv)
{
	char	   *export = get_string(p, tv, "export", "export", true);

	(void) get_string(p, tv, "export_reason", "export_reason", true);
	if (export != NULL && strcmp(export, "all") != 0)
	{
		p->ectx.key = "export";
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("\"export\" of table \"%s\" must be \"all\", not \"%s\"",
						t->name, export),
				 errhint("Leave the key out to export only the rows tied to the target.")));
	}
	t->export_all = (export != NULL);
	t->needs_scope_decision = get_bool(p, tv, "needs_scope_decision",
									   "needs_scope_decision");
}

/*
 * parse_scope_keys
 *		The Ruby client's table keys that need no other table: type,
 *		scope_column, scope_exempt, id_space.
 */
static void
parse_scope_keys(ConfigParse *p, SubsetTable *t, JsonbValue *tv)
{
	JsonbValue *v;
	char	   *scope;

	t->batch_table = -1;
	t->type = get_string(p, tv, "type", "type", true);
	t->rails_managed = t->type &&
		(strcmp(t->type, TYPE_SCHEMA_MIGRATIONS) == 0 ||
		 strcmp(t->type, TYPE_INTERNAL_METADATA) == 0);
	if (t->rails_managed)
	{
		static const char *const forbidden[] = {"primary_key", "belongs_tos", "reverse_scope", "batch_scope", NULL};
		int			k;

		for (k = 0; forbidden[k]; k++)
		{
			v = json_get(tv, forbidden[k]);
			if (v == NULL || v->type == jbvNull ||
				(json_is_array(v) && cfg_array_length(v) == 0))
				continue;
			p->ectx.key = forbidden[k];
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("table \"%s\" has type %s, so key \"%s\" must not be defined",
							t->name, t->type, forbidden[k]),
					 errdetail("A table Rails manages is exported in full, every column, as the Ruby client does.")));
		}
	}

	scope = get_string(p, tv, "scope_column", "scope_column", true);
	if (scope)
	{
		JsonbValue	sv;

		sv.type = jbvString;
		sv.val.string.val = scope;
		sv.val.string.len = strlen(scope);
		parse_cols(p, t, &sv, "scope_column", &t->scope_col);
	}
	t->scope_exempt = get_bool(p, tv, "scope_exempt", "scope_exempt") || t->rails_managed;
	t->id_space = get_string(p, tv, "id_space", "id_space", true);
	if (t->id_space)
	{
		p->ectx.key = "id_space";
		if (!valid_space_name(t->id_space))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("id_space \"%s\" of table \"%s\" must start with a lower-case letter and hold only lower-case letters, digits and underscores",
							t->id_space, t->name)));
		if (t->scope_col.n == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("table \"%s\" has an id_space but no scope_column", t->name),
					 errdetail("id_space names the id space of the scope column's values.")));
	}
}

/*
 * parse_reverse_and_batch
 *		reverse_scope {column?, via: [{table, column}]} and batch_scope
 *		{table, size?}, which name other tables of the config.
 */
static void
parse_reverse_and_batch(ConfigParse *p, SubsetConfig *cfg, int idx, JsonbValue *tv)
{
	SubsetTable *t = &cfg->tables[idx];
	JsonbValue *r = json_get(tv, "reverse_scope");
	JsonbValue *b = json_get(tv, "batch_scope");

	p->ectx.table = t->name;
	if (r != NULL && r->type != jbvNull)
	{
		JsonbValue *via;
		JsonbValue *col;
		int			i;

		if (!json_is_object(r))
			type_error(p, "reverse_scope", "an object", r);
		check_keys(p, r, reverse_keys, "reverse_scope.");
		col = json_get(r, "column");
		if (col != NULL && col->type != jbvNull)
			parse_cols(p, t, col, "reverse_scope.column", &t->reverse_col);
		else
			t->reverse_col = t->pk;
		p->ectx.key = "reverse_scope.column";
		if (t->reverse_col.n == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("reverse_scope of table \"%s\" needs a column: the table has no primary_key", t->name)));
		if (t->reverse_col.n != 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("reverse_scope.column of table \"%s\" must be one column", t->name)));
		via = json_get(r, "via");
		if (via == NULL || !json_is_array(via))
			type_error(p, "reverse_scope.via", "an array", via ? via : r);
		t->has_reverse = true;
		for (i = 0; i < cfg_array_length(via); i++)
		{
			JsonbValue *a = json_array_get(via, i);
			SubsetReverseArm *arm = palloc0(sizeof(SubsetReverseArm));
			char	   *key = psprintf("reverse_scope.via[%d]", i);
			char	   *tab;

			if (!json_is_object(a))
				type_error(p, key, "an object", a);
			check_keys(p, a, via_keys, psprintf("%s.", key));
			tab = get_string(p, a, "table", psprintf("%s.table", key), false);
			arm->table = subset_config_find(cfg, tab);
			p->ectx.key = psprintf("%s.table", key);
			if (arm->table < 0)
			{
				/* as the client: an unknown arm is skipped, with a WARNING */
				ereport(WARNING,
						(errmsg("reverse_scope of table \"%s\" names table \"%s\", which is not in the config; the arm is skipped",
								t->name, tab)));
				continue;
			}
			parse_cols(p, &cfg->tables[arm->table], json_get(a, "column"),
					   psprintf("%s.column", key), &arm->col);
			if (arm->col.n != 1)
			{
				p->ectx.key = psprintf("%s.column", key);
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("key \"%s.column\" of table \"%s\" must name one column", key, t->name)));
			}
			t->reverse_via = lappend(t->reverse_via, arm);
		}
	}
	if (b != NULL && b->type != jbvNull)
	{
		char	   *tab;
		JsonbValue *size;

		if (!json_is_object(b))
			type_error(p, "batch_scope", "an object", b);
		check_keys(p, b, batch_keys, "batch_scope.");
		(void) get_string(p, b, "comment", "batch_scope.comment", true);
		tab = get_string(p, b, "table", "batch_scope.table", false);
		t->batch_table = subset_config_find(cfg, tab);
		p->ectx.key = "batch_scope.table";
		if (t->batch_table < 0)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_TABLE),
					 errmsg("batch_scope of table \"%s\" names table \"%s\", which is not in the config",
							t->name, tab)));
		size = json_get(b, "size");
		t->batch_size = parse_positive(p, size, "batch_scope.size",
									   SUBSET_DEFAULT_BATCH);
	}
}

/*
 * parse_table
 *		One table config, everything but its belongs_tos.
 */
static void
parse_table(ConfigParse *p, SubsetConfig *cfg, int idx, JsonbValue *tv)
{
	SubsetTable *t = &cfg->tables[idx];
	JsonbValue *v;
	int			i;

	if (!json_is_object(tv))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("table config %d is a JSON %s, not an object", idx + 1,
						json_type_name(tv))));
	v = json_get(tv, "name");
	if (v == NULL || v->type != jbvString)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("table config %d has no \"name\" string", idx + 1),
				 errhint("Every table config needs \"name\": \"<table>\".")));
	t->name = json_string(v);
	p->ectx.table = t->name;
	p->ectx.key = NULL;
	check_keys(p, tv, table_keys, "");

	for (i = 0; i < idx; i++)
		if (strcmp(cfg->tables[i].name, t->name) == 0)
		{
			p->ectx.key = "name";
			ereport(ERROR,
					(errcode(ERRCODE_DUPLICATE_OBJECT),
					 errmsg("table \"%s\" appears more than once in the config",
							t->name)));
		}

	t->relid = resolve_table(p, t->name, &t->relkind);
	for (i = 0; i < idx; i++)
		if (cfg->tables[i].relid == t->relid)
		{
			p->ectx.key = "name";
			ereport(ERROR,
					(errcode(ERRCODE_DUPLICATE_OBJECT),
					 errmsg("tables \"%s\" and \"%s\" in the config are the same table",
							cfg->tables[i].name, t->name),
					 errdetail("Both names resolve to %s.",
							   quote_qualified_identifier(get_namespace_name(get_rel_namespace(t->relid)),
														  get_rel_name(t->relid))),
					 errhint("Give each table one config entry.")));
		}
	t->nspname = get_namespace_name(get_rel_namespace(t->relid));
	t->relname = get_rel_name(t->relid);
	t->qualname = quote_qualified_identifier(t->nspname, t->relname);

	(void) get_string(p, tv, "comment", "comment", true);
	v = json_get(tv, "ignore");
	if (v != NULL && v->type != jbvNull && v->type != jbvBool)
		type_error(p, "ignore", "a boolean or null", v);
	t->ignore = (v != NULL && v->type == jbvBool && v->val.boolean);
	parse_scope_decision(p, t, tv);

	v = json_get(tv, "primary_key");
	parse_cols(p, t, v, "primary_key", &t->pk);

	t->filter = get_string(p, tv, "filter", "filter", true);
	p->ectx.key = "filter";
	if (t->filter)
		subset_check_fragment(p->funcname, t, "filter", t->filter, true);
	t->chunk = parse_positive(p, json_get(tv, "bulk_insert_chunk_size"),
							  "bulk_insert_chunk_size", SUBSET_DEFAULT_CHUNK);

	parse_scope_keys(p, t, tv);
	parse_columns(p, t, json_get(tv, "columns"));

	v = json_get(tv, "belongs_tos");
	if (v != NULL && v->type != jbvNull && !json_is_array(v))
		type_error(p, "belongs_tos", "an array", v);
}

/*
 * parse_belongs_tos
 *		The belongs_tos of table idx, once every table is known.
 */
static void
parse_belongs_tos(ConfigParse *p, SubsetConfig *cfg, int idx, JsonbValue *tv,
				  List **edges)
{
	SubsetTable *t = &cfg->tables[idx];
	JsonbValue *bv = json_get(tv, "belongs_tos");
	int			n,
				i;

	p->ectx.table = t->name;
	if (bv == NULL || bv->type == jbvNull)
		return;
	n = cfg_array_length(bv);
	for (i = 0; i < n; i++)
	{
		JsonbValue *b = json_array_get(bv, i);
		SubsetEdge *e = palloc0(sizeof(SubsetEdge));
		char		prefix[64];
		char	   *key;
		char	   *pname;
		SubsetTable *pt;

		snprintf(prefix, sizeof(prefix), "belongs_tos[%d]", i);
		if (!json_is_object(b))
			type_error(p, pstrdup(prefix), "an object", b);
		snprintf(prefix, sizeof(prefix), "belongs_tos[%d].", i);
		check_keys(p, b, belongs_to_keys, prefix);

		key = psprintf("belongs_tos[%d].comment", i);
		(void) get_string(p, b, "comment", key, true);
		key = psprintf("belongs_tos[%d].ignore_type", i);
		(void) get_string(p, b, "ignore_type", key, true);
		key = psprintf("belongs_tos[%d].inferred", i);
		(void) get_bool(p, b, "inferred", key);
		{
			JsonbValue *ig = json_get(b, "ignore");

			if (ig != NULL && ig->type != jbvNull && ig->type != jbvBool)
				type_error(p, psprintf("belongs_tos[%d].ignore", i), "a boolean or null", ig);

			/*
			 * an ignored belongs_to is not a relation at all, as in the
			 * client
			 */
			if (ig != NULL && ig->type == jbvBool && ig->val.boolean)
				continue;
		}
		key = psprintf("belongs_tos[%d].table_name", i);
		pname = get_string(p, b, "table_name", key, false);
		e->child = idx;
		e->pos = i;
		e->parent = subset_config_find(cfg, pname);
		p->ectx.key = key;
		if (e->parent < 0)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_TABLE),
					 errmsg("key \"%s\" of table \"%s\" names table \"%s\", which is not in the config",
							key, t->name, pname),
					 errhint("A belongs_to must name a table that has its own entry in the config.")));
		pt = &cfg->tables[e->parent];

		key = psprintf("belongs_tos[%d].foreign_key", i);
		if (json_get(b, "foreign_key") == NULL)
		{
			p->ectx.key = key;
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("key \"%s\" of table \"%s\" is missing", key, t->name)));
		}
		parse_cols(p, t, json_get(b, "foreign_key"), key, &e->fk);

		/* polymorphic: foreign_type names the column that holds type_value */
		{
			char	   *ft = get_string(p, b, "foreign_type", psprintf("belongs_tos[%d].foreign_type", i), true);
			char	   *tv2 = get_string(p, b, "type_value", psprintf("belongs_tos[%d].type_value", i), true);

			if ((ft == NULL) != (tv2 == NULL))
			{
				p->ectx.key = psprintf("belongs_tos[%d].%s", i, ft ? "type_value" : "foreign_type");
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("belongs_to %d of table \"%s\" has %s but no %s",
								i, t->name, ft ? "foreign_type" : "type_value",
								ft ? "type_value" : "foreign_type"),
						 errhint("A polymorphic belongs_to names the type column (foreign_type) and the value that means this parent (type_value).")));
			}
			if (ft)
			{
				JsonbValue	fv;

				fv.type = jbvString;
				fv.val.string.val = ft;
				fv.val.string.len = strlen(ft);
				parse_cols(p, t, &fv, psprintf("belongs_tos[%d].foreign_type", i), &e->type_col);
				e->type_value = tv2;
			}
		}

		key = psprintf("belongs_tos[%d].references", i);
		parse_cols(p, pt, json_get(b, "references"), key, &e->ref);
		if (e->ref.n == 0)
		{
			if (pt->pk.n == 0)
			{
				p->ectx.key = psprintf("belongs_tos[%d].table_name", i);
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_FOREIGN_KEY),
						 errmsg("key \"%s\" of table \"%s\" names table \"%s\", which has no primary_key in the config",
								p->ectx.key, t->name, pname),
						 errhint("The foreign key refers to the parent's primary_key, so the parent needs one, or name the parent's columns in \"references\".")));
			}
			e->ref = pt->pk;
		}
		if (e->ref.n != e->fk.n)
		{
			p->ectx.key = psprintf("belongs_tos[%d].foreign_key", i);
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_FOREIGN_KEY),
					 errmsg("key \"%s\" of table \"%s\" names %d columns, but the columns it references in \"%s\" are %d",
							p->ectx.key, t->name, e->fk.n, pname, e->ref.n)));
		}
		if (pt->ignore && !t->ignore)
		{
			p->ectx.key = psprintf("belongs_tos[%d].table_name", i);
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_FOREIGN_KEY),
					 errmsg("key \"%s\" of table \"%s\" names table \"%s\", which is ignored",
							p->ectx.key, t->name, pname),
					 errhint("The export would reference rows it does not contain: remove the belongs_to or unset \"ignore\" on the parent.")));
		}
		*edges = lappend(*edges, e);
	}
}

/*
 * subset_config_find
 *		Index of the table the config calls name, or -1.
 */
int
subset_config_find(SubsetConfig *cfg, const char *name)
{
	int			i;

	for (i = 0; i < cfg->ntables; i++)
		if (strcmp(cfg->tables[i].name, name) == 0)
			return i;
	return -1;
}

/*
 * subset_config_parse
 *		Check config and resolve it.  Errors name the table and the key.
 */
SubsetConfig *
subset_config_parse(const char *funcname, Jsonb *config)
{
	ConfigParse p;
	SubsetConfig *cfg = palloc0(sizeof(SubsetConfig));
	JsonbValue	root;
	JsonbValue *tables;
	List	   *edges = NIL;
	ListCell   *lc;
	int			i;
	const char *hint = "A config is a JSON array of table configs, or an object whose only key is \"tables\".";

	memset(&p, 0, sizeof(p));
	p.funcname = funcname;
	p.ectx.funcname = funcname;
	p.errcb.callback = subset_error_context_callback;
	p.errcb.arg = &p.ectx;
	p.errcb.previous = error_context_stack;
	error_context_stack = &p.errcb;

	if (JB_ROOT_IS_SCALAR(config))
	{
		JsonbValue *s = getIthJsonbValueFromContainer(&config->root, 0);

		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("config must be an array of table configs, not a JSON %s",
						json_type_name(s)),
				 errhint("%s", hint)));
	}
	root.type = jbvBinary;
	root.val.binary.data = &config->root;
	root.val.binary.len = VARSIZE(config) - VARHDRSZ;

	if (json_is_object(&root))
	{
		JsonbIterator *it = JsonbIteratorInit(&config->root);
		JsonbValue	k;
		JsonbIteratorToken tok;

		while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
			if (tok == WJB_KEY &&
				!(k.val.string.len == 6 && memcmp(k.val.string.val, "tables", 6) == 0))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("unknown top-level key \"%s\" in the config", json_string(&k)),
						 errhint("%s", hint)));
		tables = json_get(&root, "tables");
		if (tables == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("config object has no key \"tables\""),
					 errhint("%s", hint)));
	}
	else
		tables = &root;
	if (!json_is_array(tables))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("config must be an array of table configs, not a JSON %s",
						json_type_name(tables)),
				 errhint("%s", hint)));

	cfg->ntables = cfg_array_length(tables);
	cfg->tables = palloc0(sizeof(SubsetTable) * Max(cfg->ntables, 1));
	for (i = 0; i < cfg->ntables; i++)
	{
		CHECK_FOR_INTERRUPTS();
		parse_table(&p, cfg, i, json_array_get(tables, i));
	}
	for (i = 0; i < cfg->ntables; i++)
	{
		CHECK_FOR_INTERRUPTS();
		parse_belongs_tos(&p, cfg, i, json_array_get(tables, i), &edges);
		parse_reverse_and_batch(&p, cfg, i, json_array_get(tables, i));
	}

	cfg->nedges = list_length(edges);
	cfg->edges = palloc0(sizeof(SubsetEdge) * Max(cfg->nedges, 1));
	i = 0;
	foreach(lc, edges)
		cfg->edges[i++] = *(SubsetEdge *) lfirst(lc);

	error_context_stack = p.errcb.previous;
	return cfg;
}

/*
 * find_column
 *		The exported column name of table t, or NULL.
 */
static SubsetColumn *
find_column(SubsetTable *t, const char *name)
{
	int			i;

	for (i = 0; i < t->ncols; i++)
		if (strcmp(t->cols[i].name, name) == 0)
			return &t->cols[i];
	return NULL;
}

/*
 * pseudonyms_join
 *		Do columns a and b hold the same pseudonym for the same original:
 *		both pseudonyms of their own values, of one type and locale?
 */
static bool
pseudonyms_join(SubsetColumn *a, SubsetColumn *b)
{
	return a->mask == SUBSET_MASK_PSEUDONYM && b->mask == SUBSET_MASK_PSEUDONYM &&
		strcmp(a->mask_from, a->name) == 0 && strcmp(b->mask_from, b->name) == 0 &&
		strcmp(a->mask_type, b->mask_type) == 0 &&
		strcmp(a->mask_locale ? a->mask_locale : "en", b->mask_locale ? b->mask_locale : "en") == 0;
}

/*
 * check_reference
 *		Error out when child column fkcol of table c references masked
 *		column pcol of table p and is exported unmasked, or when pcol is a
 *		pseudonym and fkcol is masked otherwise (the rows would not join).
 */
static void
check_reference(SubsetTable *p, const char *pcol, SubsetTable *c,
				const char *fkcol)
{
	SubsetColumn *m = find_column(p, pcol);
	SubsetColumn *r;
	bool		is_pk = false;
	int			i;

	if (m == NULL || !SubsetColumnIsMasked(m) || c->ignore)
		return;
	r = find_column(c, fkcol);
	if (r != NULL && m->mask == SUBSET_MASK_PSEUDONYM && SubsetColumnIsMasked(r) &&
		!pseudonyms_join(m, r))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("column \"%s\" of table \"%s\" references pseudonymized column \"%s\" of table \"%s\", but is not masked the same way",
						fkcol, c->name, pcol, p->name),
				 errdetail("The two columns would hold different values, so the rows would not join."),
				 errhint("Give %s.%s the same \"pseudonym\" (type and locale, made from its own value) as %s.%s.",
						 c->name, fkcol, p->name, pcol)));
	if (r == NULL || SubsetColumnIsMasked(r))
		return;
	for (i = 0; i < p->pk.n; i++)
		is_pk |= (strcmp(p->pk.names[i], pcol) == 0);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("masked column \"%s\" of table \"%s\" is referenced by column \"%s\" of table \"%s\", which is not masked",
					pcol, p->name, fkcol, c->name),
			 is_pk ?
			 errdetail("A masked primary key would leave the rows of \"%s\" pointing at the original values, which the export does not contain.",
					   c->name) :
			 errdetail("Column \"%s\" of \"%s\" would carry the original values into its file.",
					   fkcol, c->name),
			 errhint("Mask %s.%s too, so that it holds the same values as %s.%s, or remove the mask.",
					 c->name, fkcol, p->name, pcol)));
}

/*
 * subset_config_check_masks
 *		Masks must hold through the structure: a masked column that a
 *		foreign key references (a belongs_to of the config, or a constraint
 *		in the catalog) is an error unless every referencing column that is
 *		exported carries a mask too.  Masking a primary key falls under the
 *		same rule.
 */
void
subset_config_check_masks(SubsetConfig *cfg)
{
	List	   *fks = NIL;
	ListCell   *lc;
	bool		any = false;
	int			i,
				k;

	for (i = 0; i < cfg->ntables; i++)
		any |= (!cfg->tables[i].ignore && cfg->tables[i].any_mask);
	if (!any)
		return;

	for (i = 0; i < cfg->nedges; i++)
	{
		SubsetEdge *e = &cfg->edges[i];

		for (k = 0; k < e->fk.n; k++)
			check_reference(&cfg->tables[e->parent], e->ref.names[k],
							&cfg->tables[e->child], e->fk.names[k]);
	}

	fks = subset_catalog_fks();
	foreach(lc, fks)
	{
		SubsetCatalogFk *fk = lfirst(lc);
		int			pi = -1,
					ci = -1;

		for (i = 0; i < cfg->ntables; i++)
		{
			if (cfg->tables[i].relid == fk->parent)
				pi = i;
			if (cfg->tables[i].relid == fk->child)
				ci = i;
		}
		if (pi < 0 || ci < 0 || !cfg->tables[pi].any_mask)
			continue;
		for (k = 0; k < fk->n; k++)
			check_reference(&cfg->tables[pi], fk->ref[k], &cfg->tables[ci], fk->fk[k]);
	}
}

/*
 * subset_config_check_decided
 *		Safe mode: error out, naming them all, when columns still carry
 *		"needs_mask_decision": true without a mask.
 */
void
subset_config_check_decided(SubsetConfig *cfg)
{
	StringInfoData list;
	int			n = 0;
	int			i,
				j;

	initStringInfo(&list);
	for (i = 0; i < cfg->ntables; i++)
	{
		SubsetTable *t = &cfg->tables[i];

		if (t->ignore)
			continue;
		for (j = 0; j < t->ncols; j++)
		{
			SubsetColumn *c = &t->cols[j];

			if (c->decision == 1 && !SubsetColumnIsMasked(c))
			{
				appendStringInfo(&list, "%s%s.%s", n ? ", " : "", t->name, c->name);
				n++;
			}
		}
	}
	if (n > 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg_plural("%d column of the config needs a mask decision",
							   "%d columns of the config need a mask decision",
							   n, n),
				 errdetail("Undecided: %s.", list.data),
				 errhint("Give each a mask (\"replace_with\" or \"raw_sql\"), or set \"needs_mask_decision\": false to export it as it is; allow_undecided => true exports them unmasked.")));
}
