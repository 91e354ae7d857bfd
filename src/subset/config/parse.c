/*-------------------------------------------------------------------------
 *
 * config/parse.c
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
 * This file parses the tables and drives the parse; config/config.h names
 * the files that parse the rest (jsonb access, columns, masks, edges) and
 * check the result.
 *
 *-------------------------------------------------------------------------
 */
#include "subset/config/config.h"

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

/* Table types of the Ruby client. */
#define TYPE_SCHEMA_MIGRATIONS	"rails_managed_schema_migrations"
#define TYPE_INTERNAL_METADATA	"rails_managed_internal_metadata"

/* Allowed keys, sorted for the hint. */
static const char *const table_keys[] = {
	"batch_scope", "belongs_tos", "bulk_insert_chunk_size", "columns",
	"comment", "export", "export_reason", "filter", "id_space", "ignore",
	"limit", "name", "needs_scope_decision", "primary_key", "reverse_scope",
	"sample", "scope_column", "scope_exempt", "type", NULL
};
static const char *const limit_keys[] = {"order_by", "per", "rows", NULL};
static const char *const sample_keys[] = {"fraction", "seed", NULL};

/*
 * parse_fraction
 *		A sample's share: a number above 0 and at most 1.
 */
static double
parse_fraction(ConfigParse *p, JsonbValue *v, const char *key)
{
	double		f;

	if (v == NULL || v->type != jbvNumeric)
		cfg_type_error(p, key, "a number above 0 and at most 1", v);
	f = DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(v->val.numeric)));
	if (!(f > 0 && f <= 1))
	{
		p->ectx.key = key;
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("key \"%s\" of table \"%s\" must be above 0 and at most 1, not %g",
						key, p->ectx.table, f),
				 errhint("A sample keeps that share of the table's rows: 0.1 keeps a tenth.")));
	}
	return f;
}

/*
 * parse_slices
 *		A table's slices (issue 40): "limit": {"rows": N, "per": cols?,
 *		"order_by": "..."} keeps at most N of its own rows (per distinct
 *		value of per), the first by order_by; "sample": F or {"fraction": F,
 *		"seed": "..."} keeps a stable share F of them, chosen by a hash of
 *		the key.  Both narrow the table's seed, as a filter does
 *		(plan/seeds.c); both need a primary key.
 */
static void
parse_slices(ConfigParse *p, SubsetTable *t, JsonbValue *tv)
{
	JsonbValue *l = cfg_json_get(tv, "limit");
	JsonbValue *s = cfg_json_get(tv, "sample");

	if (l != NULL && l->type != jbvNull)
	{
		p->ectx.key = "limit";
		if (!cfg_json_is_object(l))
			cfg_type_error(p, "limit", "an object", l);
		cfg_check_keys(p, l, limit_keys, "limit.");
		if (cfg_json_get(l, "rows") == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("key \"limit.rows\" of table \"%s\" is missing", t->name)));
		t->limit_rows = cfg_parse_positive(p, cfg_json_get(l, "rows"), "limit.rows", 1);
		cfg_parse_cols(p, t, cfg_json_get(l, "per"), "limit.per", &t->limit_per);
		t->limit_order = cfg_get_string(p, l, "order_by", "limit.order_by", false);
		p->ectx.key = "limit.order_by";
		subset_check_order_by(t, "limit.order_by", t->limit_order);
	}
	if (s != NULL && s->type != jbvNull)
	{
		p->ectx.key = "sample";
		if (cfg_json_is_object(s))
		{
			cfg_check_keys(p, s, sample_keys, "sample.");
			t->sample = parse_fraction(p, cfg_json_get(s, "fraction"), "sample.fraction");
			t->sample_seed = cfg_get_string(p, s, "seed", "sample.seed", true);
		}
		else
			t->sample = parse_fraction(p, s, "sample");
		if (t->sample_seed == NULL)
			t->sample_seed = "";
	}
	if ((t->limit_rows > 0 || t->sample > 0) && t->pk.n == 0)
	{
		p->ectx.key = t->limit_rows > 0 ? "limit" : "sample";
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("table \"%s\" has %s but no primary_key", t->name,
						t->limit_rows > 0 ? "a limit" : "a sample"),
				 errhint("A limit and a sample choose rows by their key: give the table a primary_key in the config.")));
	}
}

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
 * resolve_table
 *		The relation a config "name" means, see subset_name_readings, and the name
 *		the files write for it (*outname).  Only ordinary and partitioned
 *		tables.
 */
static Oid
resolve_table(ConfigParse *p, const char *name, char *relkind, char **outname)
{
	int			max = subset_name_max_readings(name);
	Oid		   *found = palloc(sizeof(Oid) * max);
	char	  **outnames = palloc(sizeof(char *) * max);
	int			n = subset_name_readings(name, found, outnames, max);
	Oid			relid;

	p->ectx.key = "name";
	if (n < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_NAME),
				 errmsg("table name \"%s\" in the config is not \"table\" or \"schema.table\"",
						name),
				 errhint("Quote a part that holds a \".\" as in SQL: \"\\\"audit.log\\\"\" or \"public.\\\"audit.log\\\"\".")));
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("table \"%s\" in the config does not exist", name),
				 errhint("Names are resolved through search_path; qualify other schemas as \"schema.table\".")));
	if (n > 1)
		ereport(ERROR,
				(errcode(ERRCODE_AMBIGUOUS_ALIAS),
				 errmsg("table name \"%s\" in the config is ambiguous", name),
				 errdetail("It names both %s and %s.",
						   quote_qualified_identifier(get_namespace_name(get_rel_namespace(found[0])),
													  get_rel_name(found[0])),
						   quote_qualified_identifier(get_namespace_name(get_rel_namespace(found[1])),
													  get_rel_name(found[1]))),
				 errhint("Name one with its parts in double quotes, as in SQL: %s or %s.",
						 subset_quoted_name(found[0]), subset_quoted_name(found[1]))));
	relid = found[0];
	*outname = outnames[0];
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
	char	   *export = cfg_get_string(p, tv, "export", "export", true);

	(void) cfg_get_string(p, tv, "export_reason", "export_reason", true);
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
	t->needs_scope_decision = cfg_get_bool(p, tv, "needs_scope_decision",
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
	t->type = cfg_get_string(p, tv, "type", "type", true);
	t->rails_managed = t->type &&
		(strcmp(t->type, TYPE_SCHEMA_MIGRATIONS) == 0 ||
		 strcmp(t->type, TYPE_INTERNAL_METADATA) == 0);
	if (t->rails_managed)
	{
		static const char *const forbidden[] = {"primary_key", "belongs_tos", "reverse_scope", "batch_scope", NULL};
		int			k;

		for (k = 0; forbidden[k]; k++)
		{
			v = cfg_json_get(tv, forbidden[k]);
			if (v == NULL || v->type == jbvNull ||
				(cfg_json_is_array(v) && cfg_array_length(v) == 0))
				continue;
			p->ectx.key = forbidden[k];
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("table \"%s\" has type %s, so key \"%s\" must not be defined",
							t->name, t->type, forbidden[k]),
					 errdetail("A table Rails manages is exported in full, every column, as the Ruby client does.")));
		}
	}

	scope = cfg_get_string(p, tv, "scope_column", "scope_column", true);
	if (scope)
	{
		JsonbValue	sv;

		sv.type = jbvString;
		sv.val.string.val = scope;
		sv.val.string.len = strlen(scope);
		cfg_parse_cols(p, t, &sv, "scope_column", &t->scope_col);
	}
	t->scope_exempt = cfg_get_bool(p, tv, "scope_exempt", "scope_exempt") || t->rails_managed;
	t->id_space = cfg_get_string(p, tv, "id_space", "id_space", true);
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
 * parse_table
 *		One table config, everything but its belongs_tos.
 */
static void
parse_table(ConfigParse *p, SubsetConfig *cfg, int idx, JsonbValue *tv)
{
	SubsetTable *t = &cfg->tables[idx];
	JsonbValue *v;
	int			i;

	if (!cfg_json_is_object(tv))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("table config %d is a JSON %s, not an object", idx + 1,
						cfg_json_type_name(tv))));
	v = cfg_json_get(tv, "name");
	if (v == NULL || v->type != jbvString)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("table config %d has no \"name\" string", idx + 1),
				 errhint("Every table config needs \"name\": \"<table>\".")));
	t->name = cfg_json_string(v);
	p->ectx.table = t->name;
	p->ectx.key = NULL;
	cfg_check_keys(p, tv, table_keys, "");

	for (i = 0; i < idx; i++)
		if (strcmp(cfg->tables[i].name, t->name) == 0)
		{
			p->ectx.key = "name";
			ereport(ERROR,
					(errcode(ERRCODE_DUPLICATE_OBJECT),
					 errmsg("table \"%s\" appears more than once in the config",
							t->name)));
		}

	t->relid = resolve_table(p, t->name, &t->relkind, &t->outname);
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

	(void) cfg_get_string(p, tv, "comment", "comment", true);
	v = cfg_json_get(tv, "ignore");
	if (v != NULL && v->type != jbvNull && v->type != jbvBool)
		cfg_type_error(p, "ignore", "a boolean or null", v);
	t->ignore = (v != NULL && v->type == jbvBool && v->val.boolean);
	parse_scope_decision(p, t, tv);

	v = cfg_json_get(tv, "primary_key");
	cfg_parse_cols(p, t, v, "primary_key", &t->pk);

	t->filter = cfg_get_string(p, tv, "filter", "filter", true);
	p->ectx.key = "filter";
	if (t->filter)
		subset_check_fragment(p->funcname, t, "filter", t->filter, true);
	parse_slices(p, t, tv);
	t->chunk = cfg_parse_positive(p, cfg_json_get(tv, "bulk_insert_chunk_size"),
								  "bulk_insert_chunk_size", SUBSET_DEFAULT_CHUNK);

	parse_scope_keys(p, t, tv);
	cfg_parse_columns(p, t, cfg_json_get(tv, "columns"));

	v = cfg_json_get(tv, "belongs_tos");
	if (v != NULL && v->type != jbvNull && !cfg_json_is_array(v))
		cfg_type_error(p, "belongs_tos", "an array", v);
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
						cfg_json_type_name(s)),
				 errhint("%s", hint)));
	}
	root.type = jbvBinary;
	root.val.binary.data = &config->root;
	root.val.binary.len = VARSIZE(config) - VARHDRSZ;

	if (cfg_json_is_object(&root))
	{
		JsonbIterator *it = JsonbIteratorInit(&config->root);
		JsonbValue	k;
		JsonbIteratorToken tok;

		while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
			if (tok == WJB_KEY &&
				!(k.val.string.len == 6 && memcmp(k.val.string.val, "tables", 6) == 0) &&
				!(k.val.string.len == 7 && memcmp(k.val.string.val, "comment", 7) == 0))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("unknown top-level key \"%s\" in the config", cfg_json_string(&k)),
						 errhint("%s", hint)));
		tables = cfg_json_get(&root, "tables");
		if (tables == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("config object has no key \"tables\""),
					 errhint("%s", hint)));
	}
	else
		tables = &root;
	if (!cfg_json_is_array(tables))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("config must be an array of table configs, not a JSON %s",
						cfg_json_type_name(tables)),
				 errhint("%s", hint)));

	cfg->ntables = cfg_array_length(tables);
	cfg->tables = palloc0(sizeof(SubsetTable) * Max(cfg->ntables, 1));
	for (i = 0; i < cfg->ntables; i++)
	{
		CHECK_FOR_INTERRUPTS();
		parse_table(&p, cfg, i, cfg_json_array_get(tables, i));
	}
	for (i = 0; i < cfg->ntables; i++)
	{
		CHECK_FOR_INTERRUPTS();
		cfg_parse_belongs_tos(&p, cfg, i, cfg_json_array_get(tables, i), &edges);
		cfg_parse_reverse_and_batch(&p, cfg, i, cfg_json_array_get(tables, i));
	}

	cfg->nedges = list_length(edges);
	cfg->edges = palloc0(sizeof(SubsetEdge) * Max(cfg->nedges, 1));
	i = 0;
	foreach(lc, edges)
		cfg->edges[i++] = *(SubsetEdge *) lfirst(lc);

	error_context_stack = p.errcb.previous;
	return cfg;
}
