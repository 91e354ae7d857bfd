/*-------------------------------------------------------------------------
 *
 * plan/whole.c
 *	  The tables an export may read whole: those whose seed can hold every
 *	  row of the table, as it does when the ids name every row of the
 *	  target (a whole-database export), and the SQL that reads them so.
 *
 * A table's seed holds every row of it when either
 *
 *	1. the seed is a condition over constants (the target's ids, a scope
 *	   column's values) that no row fails: SubsetWhole.check, "SELECT NOT
 *	   EXISTS (SELECT FROM t WHERE (seed) IS NOT TRUE)", run on the
 *	   export's snapshot; or
 *	2. the seed is the rows whose foreign key matches a row of the
 *	   parent's seed, through one arm, and that seed holds every row of
 *	   the parent.  The arm's columns are NOT NULL and a validated
 *	   constraint of the catalog enforces it (subset_edge_enforced), so
 *	   every row of the table references a row of the parent, which the
 *	   parent's seed holds.  No row is read to know it: the constraint says
 *	   it, as long as its triggers fire (run/whole.c checks that they are
 *	   enabled and that the export's own transaction has none pending).
 *
 * Then the rows closure would add are among the seed's, so the closure set
 * is empty; the seed's and the file's sets hold the table's rows, read
 * without a join (whole_query of each set, "WHERE false" for the
 * closure's); and the file reads the table in key order (whole_query of the
 * file).  Only for a table whose rows nothing narrows further: no filter,
 * limit or sample, no children of rows left out, not self-referencing (its
 * file orders rows by depth), not read in batches, one arm and no delegated
 * rows.  Which tables are whole is found when the export runs
 * (run/whole.c); the plan says only which may be.
 *
 *-------------------------------------------------------------------------
 */
#include "subset/subset.h"

#include "catalog/pg_class.h"
#include "subset/plan/planner.h"

/*
 * may_be_whole
 *		Can table ti's seed (built) hold every row, nothing narrowing it
 *		further: see the file header for what does.
 */
static bool
may_be_whole(Planner *pl, int ti)
{
	PlannerRel *r = &pl->rel[ti];
	SubsetTable *t = &pl->cfg->tables[ti];

	return !t->ignore && r->kind != SEED_NONE && r->building == 2 &&
		r->seed != NULL && r->may && !r->selfref && !r->batched &&
		!r->batch_path && r->seed_uncut == NULL && !r->seed_frag &&
		!SubsetTableNarrowed(t) && r->claims == NIL && !r->late &&
		!planner_descends_by_self(pl, ti);
}

/*
 * whole_arm
 *		The edge through which table ti's seed holds every row when its
 *		parent's seed does (rule 2 of the file header), or -1.  Both ends
 *		ordinary tables: a key to or from a partitioned table has its
 *		triggers on the partitions, under constraints of their own.
 */
static int
whole_arm(Planner *pl, int ti)
{
	PlannerRel *r = &pl->rel[ti];
	SubsetEdge *e;

	if ((r->kind != SEED_PATH && r->kind != SEED_CASCADE) ||
		list_length(r->seed_edges) != 1)
		return -1;
	e = &pl->cfg->edges[linitial_int(r->seed_edges)];
	if (SubsetEdgeIsSelf(e) || SubsetEdgeIsPolymorphic(e) || e->broken ||
		e->deferred || e->delegated ||
		pl->cfg->tables[ti].relkind != RELKIND_RELATION ||
		pl->cfg->tables[e->parent].relkind != RELKIND_RELATION ||
		!subset_edge_not_null(pl->cfg, e) || !subset_edge_enforced(pl->cfg, e))
		return -1;
	return linitial_int(r->seed_edges);
}

/*
 * whole_set_query
 *		"SELECT <cols> FROM <table>": the columns cols of every row of table
 *		ti, with each row's ctid when ctid (exwiw_ctid, as plan/closure.c's
 *		exwiw_f carries it).
 */
static char *
whole_set_query(Planner *pl, int ti, const SubsetCols *cols, bool ctid)
{
	SubsetTable *t = &pl->cfg->tables[ti];
	StringInfoData q;

	initStringInfo(&q);
	appendStringInfoString(&q, "SELECT ");
	subset_append_cols(&q, planner_alias(t), cols);
	if (ctid)
		appendStringInfo(&q, ", %s.ctid AS exwiw_ctid", planner_alias(t));
	appendStringInfo(&q, " FROM %s", subset_relation_sql(t));
	return q.data;
}

/*
 * planner_whole
 *		plan->whole: for each table, how the export finds that it is read
 *		whole; and the queries of its seed's and file's sets for then.  Runs
 *		after every table's rows are built, before the files' queries
 *		(plan/build.c writes a file's whole_query where its table may be
 *		read whole).
 */
void
planner_whole(Planner *pl)
{
	SubsetPlan *plan = pl->plan;
	int			ti;

	plan->whole = palloc(sizeof(SubsetWhole) * Max(pl->nt, 1));
	for (ti = 0; ti < pl->nt; ti++)
	{
		SubsetWhole *w = &plan->whole[ti];
		PlannerRel *r = &pl->rel[ti];

		w->parent = w->edge = -1;
		w->check = NULL;
		if (!may_be_whole(pl, ti))
			continue;
		w->edge = whole_arm(pl, ti);
		if (w->edge >= 0)
			w->parent = pl->cfg->edges[w->edge].parent;
		if (planner_seed_constant(pl, ti))
			w->check = psprintf("SELECT NOT EXISTS (SELECT FROM %s WHERE (%s) IS NOT TRUE)",
								subset_relation_sql(&pl->cfg->tables[ti]), r->seed);
		if (w->parent < 0 && w->check == NULL)
			continue;
		if (r->sset >= 0)
			planner_set(pl, r->sset)->whole_query =
				whole_set_query(pl, ti, &r->scols, false);
		if (r->fset >= 0)
			planner_set(pl, r->fset)->whole_query =
				whole_set_query(pl, ti, &r->fcols, r->fset_ctid);
		/* no row, and no set read to know it */
		if (r->xset >= 0)
			planner_set(pl, r->xset)->whole_query =
				psprintf("%s WHERE false", whole_set_query(pl, ti, &r->fcols, false));
	}
}

/*
 * planner_may_be_whole
 *		May table ti be read whole (planner_whole has run)?
 */
bool
planner_may_be_whole(Planner *pl, int ti)
{
	return pl->plan->whole != NULL &&
		(pl->plan->whole[ti].parent >= 0 || pl->plan->whole[ti].check != NULL);
}
