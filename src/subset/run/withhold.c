/*-------------------------------------------------------------------------
 *
 * run/withhold.c
 *	  How an error of one of a run's queries is withheld: the table, its
 *	  masked columns and the config keys it evaluates, named instead of
 *	  the error's message (exwiw_withhold_error), for the queries of
 *	  run/executor.c, run/sets.c and run/depths.c; and the sets a query
 *	  reads, transitively (run_add_deps), which decide it.
 *
 *-------------------------------------------------------------------------
 */
#include "subset/subset.h"

#include "subset/run/run.h"

/*
 * masked_columns
 *		The masked columns of table t, comma-separated, or NULL when it has
 *		none.
 */
static char *
masked_columns(SubsetTable *t)
{
	StringInfoData cols;
	int			c;

	if (!t->any_mask)
		return NULL;
	initStringInfo(&cols);
	for (c = 0; c < t->ncols; c++)
		if (SubsetColumnIsMasked(&t->cols[c]))
			appendStringInfo(&cols, "%s%s", cols.len ? ", " : "", t->cols[c].name);
	return cols.data;
}

/*
 * fragment_keys
 *		The config keys of table t whose SQL a query evaluates, quoted and
 *		comma-separated: "filter" when filter (and the table has one), and
 *		the raw_sql of every column when raw_sql.  NULL when there is none.
 */
static char *
fragment_keys(SubsetTable *t, bool filter, bool raw_sql)
{
	StringInfoData keys;
	int			c;

	initStringInfo(&keys);
	if (filter && t->filter)
		appendStringInfoString(&keys, "\"filter\"");
	for (c = 0; raw_sql && c < t->ncols; c++)
		if (t->cols[c].raw_sql)
			appendStringInfo(&keys, "%s\"columns[%d].raw_sql\"", keys.len ? ", " : "",
							 t->cols[c].cfgpos);
	return keys.len > 0 ? keys.data : NULL;
}

/*
 * run_withhold_for
 *		Whether, and how, an error of a query that reads table ti (holding a
 *		user's fragment of it when fragment, raw_sql too when raw_sql) is
 *		withheld: when the table has masked columns, and when a fragment,
 *		which may read any table, runs in an export where some table has
 *		them.  The message of such an error could quote a masked value.
 */
Withhold
run_withhold_for(SubsetRun *run, int ti, bool fragment, bool raw_sql)
{
	SubsetTable *t = &run->plan->cfg->tables[ti];
	Withhold	w;

	w.on = t->any_mask || (fragment && run->any_mask);
	w.table = t->name;
	w.masked = masked_columns(t);
	w.keys = fragment ? fragment_keys(t, true, raw_sql) : NULL;
	return w;
}

/*
 * run_withhold_for_query
 *		withhold_for, for a query that reads the sets in deps: with inline
 *		sets (with_sets) it computes them itself, evaluating their tables'
 *		filters, so it is withheld also when one of them would be, and the
 *		error then names the first such set's table (the context names the
 *		file).
 */
Withhold
run_withhold_for_query(SubsetRun *run, int ti, bool fragment, bool raw_sql,
					   List *deps)
{
	SubsetPlan *plan = run->plan;
	Withhold	w = run_withhold_for(run, ti, fragment, raw_sql);
	bool	   *need;
	ListCell   *lc;
	int			i;

	if (w.on || !run->inline_sets || !run->any_mask || deps == NIL)
		return w;
	need = palloc0(sizeof(bool) * plan->nsets);
	foreach(lc, deps)
		run_add_deps(plan, lfirst_int(lc), need);
	for (i = 0; i < plan->nsets && !w.on; i++)
		if (need[i] && (plan->sets[i].fragment ||
						plan->cfg->tables[plan->sets[i].table].any_mask))
			w = run_withhold_for(run, plan->sets[i].table, true, false);
	pfree(need);
	return w;
}

/*
 * run_add_deps
 *		Mark set i and the sets it reads, transitively, in need.
 */
void
run_add_deps(SubsetPlan *plan, int i, bool *need)
{
	ListCell   *lc;

	if (need[i])
		return;
	need[i] = true;
	foreach(lc, plan->sets[i].deps)
		run_add_deps(plan, lfirst_int(lc), need);
}
