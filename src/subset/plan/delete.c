/*-------------------------------------------------------------------------
 *
 * plan/delete.c
 *	  The delete files of a subset export: delete-NNN-<table>.sql, one per
 *	  insert file, which clear the tenant's rows from the database the
 *	  export is loaded into, so that running the delete files and then the
 *	  insert files refreshes a tenant there (the Ruby client's workflow).
 *
 * NNN is the Ruby client's number: the table's position counted from the
 * end of the processing order (norder + 1 - seq), so that the names sort
 * children first.  A delete file holds, after the two settings lines of a
 * whole file (no trigger block: the foreign keys are enforced):
 *
 *	- when the table's rows are tied to the target by a chain of plain
 *	  belongs_tos, the statement that deletes the rows the target database
 *	  holds on that chain (planner_delete_conditions): the rows production
 *	  no longer has go too.  For a table one or two belongs_tos from the
 *	  target it is the Ruby client's statement, byte for byte:
 *
 *		DELETE FROM orders
 *		WHERE orders.shop_id = '1';
 *
 *		DELETE FROM order_items
 *		WHERE order_items.order_id IN (SELECT orders.id FROM orders WHERE orders.shop_id = '1');
 *
 *	- then the statements that delete, by primary key, the tenant's rows its
 *	  insert file brings (tenant_keys: not the rows of other tenants that
 *	  come only as parents): the file's own query on the same row sets and
 *	  the same snapshot, its keys written bulk_insert_chunk_size to a
 *	  statement (all in one for a self-referencing table, whose rows
 *	  reference each other):
 *
 *		DELETE FROM shops
 *		WHERE shops.id = '1';
 *
 * The rows are decided by the server's query; the text is written by the
 * writer below, in a separate phase, as the SQL writer writes INSERTs.  A
 * DELETE by a masked key would delete other rows than the ones exported,
 * and one by the unmasked key would put it in the file: a masked primary
 * key is refused (subset_delete_check).  A table without a primary key has
 * the chain's statement alone, or no delete file when no chain ties it; a
 * Rails-managed table and a cycle's fix-up file have none.
 *
 *-------------------------------------------------------------------------
 */
#include "subset/plan/planner.h"

#include "catalog/pg_type_d.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

/*
 * subset_delete_append_qualified
 *		Append "<table>.<column>", the table as the file names it.
 */
void
subset_delete_append_qualified(StringInfo buf, SubsetTable *t, const char *column)
{
	exwiw_append_table_name(buf, t->outname);
	appendStringInfo(buf, ".%s", quote_identifier(column));
}

/*
 * ids_condition
 *		" = '1'" or " IN ('1', '2')": the target's ids as the user gave
 *		them, each a literal, as the Ruby client writes them; NULL when
 *		there are none or they are not a one-dimensional list.
 */
static char *
ids_condition(const SubsetIds *ids)
{
	int			i;
	StringInfoData s;

	if (ids->ndims != 1 || ids->nvalues == 0)
		return NULL;
	initStringInfo(&s);
	appendStringInfoString(&s, ids->nvalues == 1 ? " = " : " IN (");
	for (i = 0; i < ids->nvalues; i++)
	{
		const char *c;

		if (ids->values[i] == NULL)
			return NULL;
		if (i > 0)
			appendStringInfoString(&s, ", ");
		appendStringInfoChar(&s, '\'');
		for (c = ids->values[i]; *c; c++)
		{
			if (*c == '\'')
				appendStringInfoChar(&s, '\'');
			appendStringInfoChar(&s, *c);
		}
		appendStringInfoChar(&s, '\'');
	}
	if (ids->nvalues > 1)
		appendStringInfoChar(&s, ')');
	return s.data;
}

static char *build_chain_condition(Planner *pl, int ti, const char *ids,
								   int depth);

/*
 * chain_condition
 *		The rows of table ti that the target database ties to the target:
 *		"<t>.<fk> IN (SELECT <p>.<ref> FROM <p> WHERE <p's condition>)",
 *		down to "<child of the target>.<fk> = '1'" when the belongs_to
 *		references the target's key (the Ruby client's condition; else
 *		"<fk> IN (SELECT ... WHERE <target>.<key> = '1')"), along the first
 *		arm of each seed
 *		(the shortest path's).  NULL unless that arm is a plain belongs_to
 *		(one column, not polymorphic, not cut from a cycle) at every table
 *		up to the target.  Filters are left out, as the
 *		Ruby client leaves them out: the rows a filter kept out of the
 *		export would otherwise stay behind their deleted parents.  Built
 *		once per table and kept (PlannerRel.chain_cond), for one ids.
 */
static char *
chain_condition(Planner *pl, int ti, const char *ids, int depth)
{
	PlannerRel *rel = &pl->rel[ti];

	if (!rel->chain_done)
	{
		rel->chain_cond = build_chain_condition(pl, ti, ids, depth);
		rel->chain_done = true;
	}
	return rel->chain_cond;
}

/*
 * build_chain_condition
 *		chain_condition's text for table ti, its parent's taken from
 *		chain_condition (each table's is built once: a chain of n tables
 *		writes n conditions, not n of each depth).
 */
static char *
build_chain_condition(Planner *pl, int ti, const char *ids, int depth)
{
	SubsetConfig *cfg = pl->cfg;
	SubsetEdge *e;
	SubsetTable *t = &cfg->tables[ti];
	SubsetTable *p;
	StringInfoData s;
	char	   *where;

	check_stack_depth();
	if (depth > cfg->ntables || pl->rel[ti].kind != SEED_PATH ||
		pl->rel[ti].seed_edges == NIL)
		return NULL;
	/* the shortest path's arm: the rows of further arms go by key */
	e = &cfg->edges[linitial_int(pl->rel[ti].seed_edges)];
	if (SubsetEdgeIsPolymorphic(e) || SubsetEdgeIsSelf(e) || e->broken ||
		e->deferred || e->fk.n != 1 || e->ref.n != 1)
		return NULL;
	p = &cfg->tables[e->parent];
	if (e->parent == pl->plan->target)
	{
		StringInfoData w;

		if (p->pk.n != 1)
			return NULL;
		initStringInfo(&w);
		if (strcmp(e->ref.names[0], p->pk.names[0]) == 0)
		{
			/* the Ruby client's: the key's values are the ids themselves */
			subset_delete_append_qualified(&w, t, e->fk.names[0]);
			appendStringInfoString(&w, ids);
			return w.data;
		}
		subset_delete_append_qualified(&w, p, p->pk.names[0]);
		appendStringInfoString(&w, ids);
		where = w.data;
	}
	else if ((where = chain_condition(pl, e->parent, ids, depth + 1)) == NULL)
		return NULL;

	initStringInfo(&s);
	subset_delete_append_qualified(&s, t, e->fk.names[0]);
	appendStringInfoString(&s, " IN (SELECT ");
	subset_delete_append_qualified(&s, p, e->ref.names[0]);
	appendStringInfoString(&s, " FROM ");
	exwiw_append_table_name(&s, p->outname);
	appendStringInfo(&s, " WHERE %s)", where);
	return s.data;
}

/*
 * tenant_keys
 *		Which of file f's rows its delete file deletes by key: set
 *		f->delete_by_key, and f->delete_keys (with its sets and whether it
 *		holds the user's filter) when not all of them.
 *
 * The rows tied to the target (a constraining seed) are the tenant's; a
 * table the export holds whole is the export's (its rows are deleted and
 * loaded again).  The rows a table contributes only because exported rows
 * reference them (shop 2 for an order of shop 1 that names a user of shop
 * 2; every row of a table without a seed) are another tenant's: a delete by
 * key would fail on that tenant's rows in the target database that reference
 * them, or, through ON DELETE CASCADE, delete those; they are not deleted,
 * and exwiw load --refresh skips them when the database has them.
 */
static void
tenant_keys(Planner *pl, SubsetFile *f)
{
	int			ti = f->table;
	SubsetTable *t = &pl->cfg->tables[ti];
	StringInfoData c;

	switch (pl->rel[ti].kind)
	{
		case SEED_NONE:
			f->delete_by_key = false;
			return;
		case SEED_UNRELATED:
		case SEED_EXEMPT:
		case SEED_DECIDED:
		case SEED_FALLBACK:
			f->delete_by_key = true;
			return;
		default:
			Assert(SeedConstrains(pl->rel[ti].kind));
			break;
	}
	f->delete_by_key = true;
	/* nothing but the seed's rows: all of them */
	if (pl->rel[ti].seed == NULL || t->pk.n == 0 ||
		(pl->rel[ti].xset < 0 && !pl->rel[ti].selfref))
		return;

	initStringInfo(&c);
	subset_append_match(&c, "exwiw_d", &t->pk,
						planner_seed_query(pl, ti, &t->pk), &t->pk);
	f->delete_keys = c.data;
	f->delete_deps = list_copy(pl->rel[ti].seed_deps);
	f->delete_fragment = pl->rel[ti].seed_frag;
}

/*
 * planner_delete_conditions
 *		Set each file's delete_cond: the rows of its table that the target
 *		database ties to the export's target (chain_condition), for the
 *		tables whose seed is such a chain, by the target's ids.  And
 *		which of its exported rows it deletes by key (tenant_keys).
 */
void
planner_delete_conditions(Planner *pl)
{
	SubsetPlan *plan = pl->plan;
	char	   *idc;
	int			i;

	for (i = 0; i < plan->nfiles; i++)
		if (!plan->files[i].fixup)
			tenant_keys(pl, &plan->files[i]);
	if (plan->target < 0 || (idc = ids_condition(&pl->req->ids)) == NULL)
		return;
	for (i = 0; i < plan->nfiles; i++)
	{
		SubsetFile *f = &plan->files[i];

		if (!f->fixup && f->table != plan->target)
			f->delete_cond = chain_condition(pl, f->table, idc, 0);
	}
}

/*
 * subset_delete_wanted
 *		Has file number `file` of the plan a delete file?  Not a cycle's
 *		fix-up (its rows are in its table's file), not a Rails-managed table
 *		(the Ruby client writes none: the schema file owns its rows), not a
 *		table known to have no rows, and not a table without a primary key
 *		unless a chain ties its rows to the target (then the chain's
 *		statement alone: a join table's rows go by their parent).
 */
bool
subset_delete_wanted(SubsetPlan *plan, int file)
{
	SubsetFile *f = &plan->files[file];
	SubsetTable *t = &plan->cfg->tables[f->table];

	return f->has_rows && !f->fixup && !t->rails_managed &&
		f->delete_name != NULL &&
		(f->delete_cond || (f->delete_by_key && t->pk.n > 0));
}

/*
 * subset_delete_check
 *		Refuse a delete file the export cannot write faithfully: one whose
 *		table's primary key is masked or left out of the columns.  NOTICE
 *		for a table without a primary key that no chain ties to the target,
 *		which gets no delete file.
 */
void
subset_delete_check(SubsetPlan *plan)
{
	int			i;

	for (i = 0; i < plan->nfiles; i++)
	{
		SubsetFile *f = &plan->files[i];
		SubsetTable *t = &plan->cfg->tables[f->table];
		int			k;

		if (f->fixup || t->rails_managed || !f->has_rows)
			continue;
		if (t->pk.n == 0)
		{
			if (f->delete_cond)
				continue;		/* the chain's statement alone */
			ereport(NOTICE,
					(errmsg("table \"%s\" has no primary key: no delete file is written for it", t->name),
					 errhint("Its rows already in the target database stay there; give it a primary key, or delete them by hand.")));
			continue;
		}
		for (k = 0; k < t->pk.n; k++)
		{
			SubsetColumn *col = NULL;
			int			c;

			for (c = 0; c < t->ncols; c++)
				if (strcmp(t->cols[c].name, t->pk.names[k]) == 0)
					col = &t->cols[c];
			if (col == NULL || SubsetColumnIsMasked(col))
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("cannot write the delete file of table \"%s\": its primary key column \"%s\" is %s",
								t->name, t->pk.names[k],
								col == NULL ? "not exported" : "masked"),
						 errdetail("A DELETE by the exported value would delete other rows than the exported ones, and one by the real value would write it into the file."),
						 errhint("Export without delete files (deletes => false; with the exwiw client, --insert-only).")));
		}
	}
}
