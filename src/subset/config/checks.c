/*-------------------------------------------------------------------------
 *
 * config/checks.c
 *	  The checks of a parsed config: a masked key joined by its referencing
 *	  columns, and tables that nobody decided.
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
 * subset_config_undecided_columns
 *		Safe mode: the columns that still carry "needs_mask_decision": true
 *		without a mask, as "table.column, ..." appended to list; returns how
 *		many.
 */
int
subset_config_undecided_columns(SubsetConfig *cfg, StringInfo list)
{
	int			n = 0;
	int			i,
				j;

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
				appendStringInfo(list, "%s%s.%s", n ? ", " : "", t->name, c->name);
				n++;
			}
		}
	}
	return n;
}

/*
 * table_lists
 *		The entries of one list of every table that is not ignored (the
 *		arms that wait for a table, or the proposals), "table.entry, ..."
 *		appended to list; returns how many.
 */
static int
table_lists(SubsetConfig *cfg, StringInfo list, bool proposals)
{
	int			n = 0;
	int			i;
	ListCell   *lc;

	for (i = 0; i < cfg->ntables; i++)
	{
		SubsetTable *t = &cfg->tables[i];

		if (t->ignore)
			continue;
		foreach(lc, proposals ? t->proposals : t->undecided_arms)
		{
			appendStringInfo(list, "%s%s.%s", n ? ", " : "", t->name,
							 (char *) lfirst(lc));
			n++;
		}
	}
	return n;
}

/*
 * subset_config_undecided_arms
 *		Safe mode: the polymorphic arms of tables that are not ignored whose
 *		type maps to no table yet ("needs_table_decision"), as
 *		"table.type_col = 'Type', ..." appended to list; returns how many.
 */
int
subset_config_undecided_arms(SubsetConfig *cfg, StringInfo list)
{
	return table_lists(cfg, list, false);
}

/*
 * subset_config_proposals
 *		Safe mode: the belongs_tos of tables that are not ignored that were
 *		offered from evidence ("proposed": true) and that nobody accepted
 *		or rejected yet, as "table.col -> parent, ..." appended to list;
 *		returns how many.
 */
int
subset_config_proposals(SubsetConfig *cfg, StringInfo list)
{
	return table_lists(cfg, list, true);
}
