/*-------------------------------------------------------------------------
 *
 * config/edges.c
 *	  The edges of a config: belongs_tos (foreign keys, polymorphic pairs,
 *	  references), reverse scopes and batch scopes.
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

/* Allowed keys, sorted for the hint. */
static const char *const batch_keys[] = {"comment", "size", "table", NULL};
static const char *const via_keys[] = {"column", "table", NULL};
static const char *const reverse_keys[] = {"column", "via", NULL};
static const char *const belongs_to_keys[] = {
	"comment", "delegated", "evidence", "foreign_key", "foreign_type", "ignore",
	"ignore_type", "inferred", "needs_table_decision", "proposed", "references",
	"table_name", "type_value", NULL
};

/*
 * cfg_parse_reverse_and_batch
 *		reverse_scope {column?, via: [{table, column}]} and batch_scope
 *		{table, size?}, which name other tables of the config.
 */
void
cfg_parse_reverse_and_batch(ConfigParse *p, SubsetConfig *cfg, int idx, JsonbValue *tv)
{
	SubsetTable *t = &cfg->tables[idx];
	JsonbValue *r = cfg_json_get(tv, "reverse_scope");
	JsonbValue *b = cfg_json_get(tv, "batch_scope");

	p->ectx.table = t->name;
	if (r != NULL && r->type != jbvNull)
	{
		JsonbValue *via;
		JsonbValue *col;
		int			i;

		if (!cfg_json_is_object(r))
			cfg_type_error(p, "reverse_scope", "an object", r);
		cfg_check_keys(p, r, reverse_keys, "reverse_scope.");
		col = cfg_json_get(r, "column");
		if (col != NULL && col->type != jbvNull)
			cfg_parse_cols(p, t, col, "reverse_scope.column", &t->reverse_col);
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
		via = cfg_json_get(r, "via");
		if (via == NULL || !cfg_json_is_array(via))
			cfg_type_error(p, "reverse_scope.via", "an array", via ? via : r);
		t->has_reverse = true;
		for (i = 0; i < cfg_array_length(via); i++)
		{
			JsonbValue *a = cfg_json_array_get(via, i);
			SubsetReverseArm *arm = palloc0(sizeof(SubsetReverseArm));
			char	   *key = psprintf("reverse_scope.via[%d]", i);
			char	   *tab;

			if (!cfg_json_is_object(a))
				cfg_type_error(p, key, "an object", a);
			cfg_check_keys(p, a, via_keys, psprintf("%s.", key));
			tab = cfg_get_string(p, a, "table", psprintf("%s.table", key), false);
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
			cfg_parse_cols(p, &cfg->tables[arm->table], cfg_json_get(a, "column"),
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

		if (!cfg_json_is_object(b))
			cfg_type_error(p, "batch_scope", "an object", b);
		cfg_check_keys(p, b, batch_keys, "batch_scope.");
		(void) cfg_get_string(p, b, "comment", "batch_scope.comment", true);
		tab = cfg_get_string(p, b, "table", "batch_scope.table", false);
		t->batch_table = subset_config_find(cfg, tab);
		p->ectx.key = "batch_scope.table";
		if (t->batch_table < 0)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_TABLE),
					 errmsg("batch_scope of table \"%s\" names table \"%s\", which is not in the config",
							t->name, tab)));
		size = cfg_json_get(b, "size");
		t->batch_size = cfg_parse_positive(p, size, "batch_scope.size",
										   SUBSET_DEFAULT_BATCH);
	}
}

/*
 * cfg_parse_belongs_tos
 *		The belongs_tos of table idx, once every table is known.
 */
void
cfg_parse_belongs_tos(ConfigParse *p, SubsetConfig *cfg, int idx, JsonbValue *tv,
					  List **edges)
{
	SubsetTable *t = &cfg->tables[idx];
	JsonbValue *bv = cfg_json_get(tv, "belongs_tos");
	int			n,
				i;

	p->ectx.table = t->name;
	if (bv == NULL || bv->type == jbvNull)
		return;
	n = cfg_array_length(bv);
	for (i = 0; i < n; i++)
	{
		JsonbValue *b = cfg_json_array_get(bv, i);
		SubsetEdge *e = palloc0(sizeof(SubsetEdge));
		char		prefix[64];
		char	   *key;
		char	   *pname;
		SubsetTable *pt;

		snprintf(prefix, sizeof(prefix), "belongs_tos[%d]", i);
		if (!cfg_json_is_object(b))
			cfg_type_error(p, pstrdup(prefix), "an object", b);
		snprintf(prefix, sizeof(prefix), "belongs_tos[%d].", i);
		cfg_check_keys(p, b, belongs_to_keys, prefix);

		key = psprintf("belongs_tos[%d].comment", i);
		(void) cfg_get_string(p, b, "comment", key, true);
		key = psprintf("belongs_tos[%d].ignore_type", i);
		(void) cfg_get_string(p, b, "ignore_type", key, true);
		key = psprintf("belongs_tos[%d].inferred", i);
		(void) cfg_get_bool(p, b, "inferred", key);
		{
			JsonbValue *ig = cfg_json_get(b, "ignore");

			if (ig != NULL && ig->type != jbvNull && ig->type != jbvBool)
				cfg_type_error(p, psprintf("belongs_tos[%d].ignore", i), "a boolean or null", ig);

			/*
			 * an ignored belongs_to is not a relation at all, as in the
			 * client
			 */
			if (ig != NULL && ig->type == jbvBool && ig->val.boolean)
				continue;
		}
		key = psprintf("belongs_tos[%d].evidence", i);
		(void) cfg_get_string(p, b, "evidence", key, true);
		key = psprintf("belongs_tos[%d].table_name", i);
		if (cfg_get_bool(p, b, "proposed", psprintf("belongs_tos[%d].proposed", i)))
		{
			/* offered from evidence, not applied until a person accepts it */
			JsonbValue *fk = cfg_json_get(b, "foreign_key");
			char	   *pn = cfg_get_string(p, b, "table_name", key, true);

			t->proposals = lappend(t->proposals,
								   psprintf("%s -> %s",
											fk && fk->type == jbvString ? cfg_json_string(fk) : psprintf("belongs_tos[%d]", i),
											pn ? pn : "?"));
			continue;
		}
		if (cfg_get_bool(p, b, "needs_table_decision",
						 psprintf("belongs_tos[%d].needs_table_decision", i)) &&
			cfg_get_string(p, b, "table_name", key, true) == NULL)
		{
			/* an arm whose type maps to no table yet: a person decides */
			char	   *ft = cfg_get_string(p, b, "foreign_type", psprintf("belongs_tos[%d].foreign_type", i), true);
			char	   *tv2 = cfg_get_string(p, b, "type_value", psprintf("belongs_tos[%d].type_value", i), true);

			t->undecided_arms = lappend(t->undecided_arms,
										ft && tv2 ? psprintf("%s = %s", ft, quote_literal_cstr(tv2)) :
										psprintf("belongs_tos[%d]", i));
			continue;
		}
		pname = cfg_get_string(p, b, "table_name", key, false);
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
		if (cfg_json_get(b, "foreign_key") == NULL)
		{
			p->ectx.key = key;
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("key \"%s\" of table \"%s\" is missing", key, t->name)));
		}
		cfg_parse_cols(p, t, cfg_json_get(b, "foreign_key"), key, &e->fk);

		/* polymorphic: foreign_type names the column that holds type_value */
		{
			char	   *ft = cfg_get_string(p, b, "foreign_type", psprintf("belongs_tos[%d].foreign_type", i), true);
			char	   *tv2 = cfg_get_string(p, b, "type_value", psprintf("belongs_tos[%d].type_value", i), true);

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
				cfg_parse_cols(p, t, &fv, psprintf("belongs_tos[%d].foreign_type", i), &e->type_col);
				e->type_value = tv2;
			}
		}

		e->delegated = cfg_get_bool(p, b, "delegated", psprintf("belongs_tos[%d].delegated", i));
		key = psprintf("belongs_tos[%d].references", i);
		cfg_parse_cols(p, pt, cfg_json_get(b, "references"), key, &e->ref);
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
		if (e->delegated && e->parent == idx)
		{
			p->ectx.key = psprintf("belongs_tos[%d].delegated", i);
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("a belongs_to of table \"%s\" to itself cannot be delegated", t->name),
					 errhint("\"delegated\": true says that the parent row is the child row's own (Rails' delegated_type); a row cannot own another row of its table that way.")));
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
