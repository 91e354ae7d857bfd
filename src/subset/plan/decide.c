/*-------------------------------------------------------------------------
 *
 * plan/decide.c
 *	  The first phase of the planner, which writes no SQL: every table's
 *	  rule (its seed kind), its belongs_to path and arms, the tables whose
 *	  rows all are somebody's, the fallbacks and the cascades turned off.
 *	  The cycles and the edges cut in them are decided before, with the
 *	  processing order (plan/order.c); the SQL of each decision is
 *	  written after, in plan/seeds.c, plan/closure.c and plan/build.c
 *	  (postgres_fdw's deparse.c is the model: decide, then write).
 *
 * Two modes, as in the Ruby client.  Single-target mode: the ids are keys
 * of the target table.  Scope-column mode (the target declares
 * "scope_column", or there is no target): the ids are values of a scope
 * column (a tenant id), and every table that declares "scope_column" is
 * filtered by it directly; "id_space" picks which set of ids a table's
 * column takes.
 *
 * Then, for every other table, the first rule that applies, in the
 * client's order:
 *
 *	1. Rails-managed tables, and in scope-column mode scope_exempt ones: all
 *	   rows; and every table the config exports whole ("export": "all"),
 *	   whatever ties it to the target, except the target and the tables a
 *	   scope column filters (their rows are the ids'; the plan's rule says
 *	   the decision does not apply);
 *	2. a belongs_to path to the target or a scoped table: the shortest (ties
 *	   broken by the names of child, parent and columns); the rows whose
 *	   foreign key is in the parent's seed.  When that hop is polymorphic,
 *	   every arm with the same type column whose parent has a seed is
 *	   followed: the rows are the union of the arms, each with its type
 *	   condition; every other edge to a tied parent is a further arm
 *	   (add_other_arms), and a self-reference takes the rows below the
 *	   seed rows that no arm decides (with_descendants);
 *	3. tables connected to nothing that has a seed: all rows;
 *	4. reverse_scope: the values that the seeds of its arms hold (an arm
 *	   without a seed is skipped with a WARNING; no arm left: all rows, with
 *	   a NOTICE);
 *	5. rows that exported rows reference (closure, plan/closure.c): the
 *	   client's "single referencing table" rule, generalized to all of them;
 *	6. forward cascade: the rows of its one parent that has a seed
 *	   (or of the one polymorphic group of arms that have); not from a
 *	   parent with only referenced rows that rows no rule ties to the
 *	   target may reference (uncascade_untied);
 *	   a group of polymorphic arms (rules 2 and 6) then also takes its arms
 *	   to parents with only referenced rows (add_late_arms): an arm is
 *	   followed whatever rule brought its parent's rows;
 *	7. otherwise, in single-target mode all rows, with a WARNING; in
 *	   scope-column mode an error naming every such table, before anything
 *	   is read (the client's validate_scope!).
 *
 * Every seed is narrowed by the table's own filter.  A seed is read from
 * its parents' seed-key sets (exwiw_s_N), which are built in dependency
 * order, each once.  batch_scope (scope-column mode, a table on a single
 * belongs_to path to a scoped table): the table's seed-key set is built in
 * slices of that scoped table's seed keys (check_batch, batch_seed;
 * run/executor.c runs them).
 *
 *-------------------------------------------------------------------------
 */
#include "subset/plan/planner.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "catalog/pg_index.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/syscache.h"
#include "access/table.h"
#include "catalog/pg_constraint.h"
#include "nodes/primnodes.h"
#include "utils/fmgroids.h"

/*
 * ids_arrays
 *		ids checked against the exact types of cols (with their modifiers:
 *		too long for character(2) is an error, not a silent truncation), as
 *		one array literal per column, in canonical text.  For one column ids
 *		is one-dimensional; for n columns, two-dimensional, n values per
 *		id.  Sets *nids.  what names the columns in messages.
 */
static char **
ids_arrays(SubsetTable *t, const SubsetCols *cols, const SubsetIds *ids,
		   int *nids, const char *what)
{
	int			nk = cols->n;
	int			n,
				i,
				k;
	char	  **lits = palloc(sizeof(char *) * nk);
	StringInfoData *bufs = palloc(sizeof(StringInfoData) * nk);
	FmgrInfo   *in = palloc(sizeof(FmgrInfo) * nk);
	FmgrInfo   *out = palloc(sizeof(FmgrInfo) * nk);
	Oid		   *ioparam = palloc(sizeof(Oid) * nk);
	MemoryContext cxt = CurrentMemoryContext;

	if (ids->nvalues == 0)
		n = 0;
	else if (nk == 1 && ids->ndims == 1)
		n = ids->nvalues;
	else if (nk > 1 && ids->ndims == 2 && ids->dims[1] == nk)
		n = ids->dims[0];
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ids do not fit the %s of \"%s\", which has %d column%s",
						what, t->name, nk, nk == 1 ? "" : "s"),
				 nk == 1 ?
				 errhint("Pass a one-dimensional array, for example '{1,2}'.") :
				 errhint("Pass one array of %d values per id, for example ARRAY[['1','a'],['2','b']].", nk)));

	for (k = 0; k < nk; k++)
	{
		Oid			infunc,
					outfunc;
		bool		isvarlena;

		getTypeInputInfo(cols->typids[k], &infunc, &ioparam[k]);
		fmgr_info(infunc, &in[k]);
		getTypeOutputInfo(cols->typids[k], &outfunc, &isvarlena);
		fmgr_info(outfunc, &out[k]);
		initStringInfo(&bufs[k]);
		appendStringInfoChar(&bufs[k], '{');
	}
	for (i = 0; i < n; i++)
	{
		for (k = 0; k < nk; k++)
		{
			int			j = i * nk + k;
			char	   *s = ids->values[j];
			Datum		d = (Datum) 0;
			char	   *c;

			if (s == NULL)
				ereport(ERROR,
						(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						 errmsg("ids must not contain NULL")));
			PG_TRY();
			{
				d = InputFunctionCall(&in[k], s, ioparam[k], cols->typmods[k]);
			}
			PG_CATCH();
			{
				ErrorData  *ed;

				MemoryContextSwitchTo(cxt);
				ed = CopyErrorData();
				FlushErrorState();
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("id \"%s\" is not a value of column \"%s\" of \"%s\" (%s)",
								s, cols->names[k], t->name,
								format_type_with_typemod(cols->typids[k], cols->typmods[k])),
						 errdetail("%s", ed->message)));
			}
			PG_END_TRY();
			/* an element of an array literal: double-quoted, \ and " escaped */
			c = OutputFunctionCall(&out[k], d);
			if (i > 0)
				appendStringInfoChar(&bufs[k], ',');
			appendStringInfoChar(&bufs[k], '"');
			for (; *c; c++)
			{
				if (*c == '"' || *c == '\\')
					appendStringInfoChar(&bufs[k], '\\');
				appendStringInfoChar(&bufs[k], *c);
			}
			appendStringInfoChar(&bufs[k], '"');
		}
	}
	for (k = 0; k < nk; k++)
	{
		StringInfoData l;

		appendStringInfoChar(&bufs[k], '}');
		initStringInfo(&l);
		appendStringInfoString(&l, "CAST(");
		subset_append_literal(&l, bufs[k].data);
		appendStringInfo(&l, " AS %s[])",
						 subset_type_name(cols->typids[k], cols->typmods[k]));
		lits[k] = l.data;
	}
	*nids = n;
	return lits;
}

/*
 * edge_order_cmp
 *		Path ties: by child name, parent name, then foreign key columns.
 */
static SubsetConfig *cmp_cfg;

static int
edge_order_cmp(const void *a, const void *b)
{
	SubsetEdge *x = &cmp_cfg->edges[*(const int *) a];
	SubsetEdge *y = &cmp_cfg->edges[*(const int *) b];
	int			c;
	int			i;

	c = strcmp(cmp_cfg->tables[x->child].name, cmp_cfg->tables[y->child].name);
	if (c == 0)
		c = strcmp(cmp_cfg->tables[x->parent].name, cmp_cfg->tables[y->parent].name);
	for (i = 0; c == 0 && i < Min(x->fk.n, y->fk.n); i++)
		c = strcmp(x->fk.names[i], y->fk.names[i]);
	if (c == 0)
		c = x->fk.n - y->fk.n;
	return c;
}

/*
 * edge_weak
 *		Is edge e weak evidence of which tenant a row of its child is: its
 *		columns nullable and no validated foreign key enforcing them (an
 *		inferred column such as GitLab's loose keys, whose values stay after
 *		their row is deleted)?  A NOT NULL column names a parent in every
 *		row; an enforced one names one that exists.
 */
static bool
edge_weak(SubsetConfig *cfg, SubsetEdge *e)
{
	return !subset_edge_not_null(cfg, e) && !subset_edge_enforced(cfg, e);
}

/*
 * path_order_cmp
 *		The path of a table among its shortest ones: by child (to group
 *		them), then an edge that is not weak evidence first (edge_weak: a
 *		NOT NULL or declared foreign key outranks an inferred nullable
 *		column), then edge_order_cmp's names.  The first arm decides a row before the
 *		others do (append_undecided_before), so this is the rule that wins
 *		where arms disagree.
 */
static int
path_order_cmp(const void *a, const void *b)
{
	SubsetEdge *x = &cmp_cfg->edges[*(const int *) a];
	SubsetEdge *y = &cmp_cfg->edges[*(const int *) b];
	int			c;

	c = strcmp(cmp_cfg->tables[x->child].name, cmp_cfg->tables[y->child].name);
	if (c == 0)
		c = (int) edge_weak(cmp_cfg, x) - (int) edge_weak(cmp_cfg, y);
	if (c == 0)
		c = edge_order_cmp(a, b);
	return c;
}

/*
 * find_paths
 *		Breadth-first from the seed sources (the target, or the scoped
 *		tables) over belongs_tos, reversed: every table's shortest path
 *		(among equally short ones, path_order_cmp's), and the sources'
 *		connected component (edges in either direction).
 */
static void
find_paths(Planner *pl)
{
	SubsetConfig *cfg = pl->cfg;
	int		   *cand = palloc(sizeof(int) * Max(cfg->nedges, 1));
	int			lvl = 0;
	bool		changed = true;
	bool		grew;
	int			i;

	for (i = 0; i < pl->nt; i++)
		if (pl->rel[i].kind == SEED_TARGET || pl->rel[i].kind == SEED_DIRECT)
		{
			pl->rel[i].dist = 0;
			pl->rel[i].comp = true;
		}
	while (changed)
	{
		int			n = 0;

		CHECK_FOR_INTERRUPTS();
		changed = false;
		for (i = 0; i < cfg->nedges; i++)
		{
			SubsetEdge *e = &cfg->edges[i];

			if (planner_edge_live(pl, e) && !SubsetEdgeIsSelf(e) &&
				pl->rel[e->parent].dist == lvl && pl->rel[e->child].dist < 0 &&
				pl->rel[e->child].kind == SEED_NONE)
				cand[n++] = i;
		}
		cmp_cfg = cfg;
		qsort(cand, n, sizeof(int), path_order_cmp);
		for (i = 0; i < n; i++)
		{
			SubsetEdge *e = &cfg->edges[cand[i]];

			if (pl->rel[e->child].dist >= 0)
				continue;
			pl->rel[e->child].dist = lvl + 1;
			pl->rel[e->child].path = cand[i];
			changed = true;
		}
		lvl++;
	}

	do
	{
		grew = false;
		for (i = 0; i < cfg->nedges; i++)
		{
			SubsetEdge *e = &cfg->edges[i];

			if (cfg->tables[e->child].ignore || cfg->tables[e->parent].ignore)
				continue;
			if (pl->rel[e->child].comp != pl->rel[e->parent].comp)
			{
				pl->rel[e->child].comp = pl->rel[e->parent].comp = true;
				grew = true;
			}
		}
	} while (grew);
}

/*
 * edges_between
 *		Number of live edges from child to parent.
 */
static int
edges_between(Planner *pl, int child, int parent)
{
	ListCell   *lc;
	int			n = 0;

	foreach(lc, pl->rel[child].out_edges)
	{
		SubsetEdge *e = &pl->cfg->edges[lfirst_int(lc)];

		n += (e->parent == parent && planner_edge_live(pl, e));
	}
	return n;
}

/*
 * self_referencing
 *		Does table t have a live edge to itself?
 */
static bool
self_referencing(Planner *pl, int t)
{
	return edges_between(pl, t, t) > 0;
}

/*
 * referenced_only_arm
 *		Can edge a of table t take the rows of t below all the rows of its
 *		parent, a parent that has only the rows exported rows reference
 *		(rule 6's cascade, and add_late_arms)?  Only when a is t's one edge to
 *		that parent and t has no self-reference: else t's rows would be
 *		chosen from a parent whose rows are chosen from t's.
 */
static bool
referenced_only_arm(Planner *pl, int t, SubsetEdge *a)
{
	return pl->rel[a->parent].kind == SEED_NONE && pl->rel[a->parent].may &&
		edges_between(pl, t, a->parent) == 1 && !self_referencing(pl, t);
}

/*
 * arms_of
 *		The live edges of table t whose parent's seed constrains it, or whose
 *		parent has only referenced rows (referenced_only_arm): the
 *		polymorphic arms with e's type column when e is polymorphic, or the
 *		non-polymorphic edges when e is NULL (cascade candidates).
 */
static List *
arms_of(Planner *pl, int t, SubsetEdge *e)
{
	SubsetConfig *cfg = pl->cfg;
	List	   *arms = NIL;
	ListCell   *lc;

	foreach(lc, pl->rel[t].out_edges)
	{
		int			i = lfirst_int(lc);
		SubsetEdge *a = &cfg->edges[i];

		if (!planner_edge_live(pl, a) || SubsetEdgeIsSelf(a) ||
			!(SeedConstrains(pl->rel[a->parent].kind) || referenced_only_arm(pl, t, a)))
			continue;
		if (e == NULL ? SubsetEdgeIsPolymorphic(a) :
			!(SubsetEdgeIsPolymorphic(a) && a->type_col.attnums[0] == e->type_col.attnums[0]))
			continue;
		arms = lappend_int(arms, i);
	}
	return arms;
}

/*
 * compute_may
 *		Which tables can have rows: a seed, or a child that may have rows
 *		and references them (closure).  Children first.
 */
static void
compute_may(Planner *pl)
{
	SubsetConfig *cfg = pl->cfg;
	SubsetPlan *plan = pl->plan;
	int			o;
	ListCell   *lc;

	for (o = plan->norder - 1; o >= 0; o--)
	{
		int			ti = plan->order[o];

		if (cfg->tables[ti].ignore)
			continue;
		pl->rel[ti].may = (pl->rel[ti].kind != SEED_NONE);
		foreach(lc, pl->rel[ti].in_edges)
		{
			SubsetEdge *e = &cfg->edges[lfirst_int(lc)];

			if (pl->rel[ti].may)
				break;
			if (planner_edge_live(pl, e) && !SubsetEdgeIsSelf(e) &&
				!e->deferred && pl->rel[e->child].may)
				pl->rel[ti].may = true;
		}
	}
}

/*
 * reverse_arms
 *		The arms of t's reverse_scope whose table's seed constrains it;
 *		warn about the others when warn.
 */
static List *
reverse_arms(Planner *pl, int t, bool warn)
{
	SubsetConfig *cfg = pl->cfg;
	List	   *arms = NIL;
	ListCell   *lc;

	foreach(lc, cfg->tables[t].reverse_via)
	{
		SubsetReverseArm *arm = lfirst(lc);

		if (arm->table != t && !cfg->tables[arm->table].ignore &&
			SeedConstrains(pl->rel[arm->table].kind))
			arms = lappend(arms, arm);
		else if (warn)
			ereport(WARNING,
					(errmsg("reverse_scope arm %s.%s of table \"%s\" is not scoped; it is skipped",
							cfg->tables[arm->table].name, arm->col.names[0],
							cfg->tables[t].name),
					 errdetail("An arm whose rows are not tied to the target would bring every value back."),
					 errhint("Make table \"%s\" scoped, or remove it from reverse_scope.via.",
							 cfg->tables[arm->table].name)));
	}
	return arms;
}

/*
 * decided_whole
 *		Has the config decided that every row of table t goes out, with the
 *		kinds decided so far: Rails-managed or scope_exempt, or "export":
 *		"all" on a table that no rule ties to the target (rule 7 makes it
 *		SEED_DECIDED)?  A table exported whole without a decision is
 *		refused, or the user allowed it (allow_undecided): not counted.
 */
static bool
decided_whole(Planner *pl, int t)
{
	switch (pl->rel[t].kind)
	{
		case SEED_EXEMPT:
		case SEED_DECIDED:
			return true;
		case SEED_UNRELATED:
			return pl->cfg->tables[t].export_all;
		case SEED_NONE:
			return !pl->rel[t].may && pl->cfg->tables[t].export_all;
		default:
			return false;
	}
}

/*
 * compute_untied
 *		untied[t]: may the rows of table t include rows that no rule ties
 *		to the target?  So for a table the config exports whole, and for
 *		every table whose rows the rows of such a table reference (the
 *		closure brings them in, whoever's they are), transitively.  Assumes
 *		compute_may has run.  A cycle of references is followed to its fixed
 *		point.
 */
static void
compute_untied(Planner *pl, bool *untied)
{
	SubsetConfig *cfg = pl->cfg;
	bool		changed = true;
	int			i;

	for (i = 0; i < pl->nt; i++)
		untied[i] = !cfg->tables[i].ignore && decided_whole(pl, i);
	while (changed)
	{
		CHECK_FOR_INTERRUPTS();
		changed = false;
		for (i = 0; i < cfg->nedges; i++)
		{
			SubsetEdge *e = &cfg->edges[i];

			if (!untied[e->child] || untied[e->parent] ||
				cfg->tables[e->parent].ignore || !planner_edge_live(pl, e) ||
				SubsetEdgeIsSelf(e) || e->deferred)
				continue;
			untied[e->parent] = true;
			changed = true;
		}
	}
}

/*
 * uncascade_untied
 *		A forward cascade from a parent that has only referenced rows takes
 *		the children of all of them; when some of those rows are referenced
 *		only by rows that no rule ties to the target (untied), the children
 *		of another tenant's rows would come too.  Turn such cascades off
 *		(no_cascade), with a NOTICE naming the table and the parent, and say
 *		whether any was (the rules are then decided again).
 */
static bool
uncascade_untied(Planner *pl)
{
	SubsetConfig *cfg = pl->cfg;
	bool	   *untied = palloc0(sizeof(bool) * Max(pl->nt, 1));
	bool		any = false;
	int			ti;

	compute_untied(pl, untied);
	for (ti = 0; ti < pl->nt; ti++)
	{
		ListCell   *lc;

		if (pl->rel[ti].kind != SEED_CASCADE)
			continue;
		foreach(lc, pl->rel[ti].seed_edges)
		{
			SubsetEdge *e = &cfg->edges[lfirst_int(lc)];

			if (pl->rel[e->parent].kind != SEED_NONE || !untied[e->parent])
				continue;
			ereport(NOTICE,
					(errmsg("table \"%s\" is not exported with the rows of its parent \"%s\"",
							cfg->tables[ti].name, cfg->tables[e->parent].name),
					 errdetail("Rows of \"%s\" come in as the parents of rows that no rule ties to the target, such as the rows of a table exported in full; their children would be other tenants' rows.",
							   cfg->tables[e->parent].name),
					 errhint("Add a belongs_to that ties table \"%s\" to the target, set \"export\": \"all\", or set \"ignore\": true.",
							 cfg->tables[ti].name)));
			cfg->tables[ti].no_cascade = true;
			any = true;
			break;
		}
	}
	pfree(untied);
	return any;
}

/*
 * decide_fallbacks
 *		Rules 4 to 7 of the file header, for the tables that rules 1 to 3
 *		left without a seed.  A new seed can give rows to others, so the
 *		rules are applied until nothing changes; then again, from the kinds
 *		rules 1 to 3 gave, as long as uncascade_untied turns a cascade off.
 */
static void
decide_fallbacks(Planner *pl)
{
	SubsetConfig *cfg = pl->cfg;
	SubsetPlan *plan = pl->plan;
	bool		changed = true;
	StringInfoData unscopable;
	int			n_unscopable = 0;
	int			o;

again:
	changed = true;
	while (changed)
	{
		CHECK_FOR_INTERRUPTS();
		changed = false;
		compute_may(pl);
		for (o = 0; o < plan->norder; o++)
		{
			int			ti = plan->order[o];
			List	   *arms;

			if (cfg->tables[ti].ignore || pl->rel[ti].kind != SEED_NONE)
				continue;
			if (cfg->tables[ti].has_reverse)
			{
				arms = reverse_arms(pl, ti, false);
				if (arms != NIL)
				{
					pl->rel[ti].kind = SEED_REVERSE;
					pl->rel[ti].rev_arms = arms;
					changed = true;
				}
				continue;
			}
			if (pl->rel[ti].may)
				continue;
			arms = arms_of(pl, ti, NULL);
			if (list_length(arms) != 1)
			{
				/* one polymorphic group of arms with a seed, else none */
				List	   *group = NIL;
				int			ngroups = 0;
				ListCell   *ec;

				foreach(ec, pl->rel[ti].out_edges)
				{
					int			i = lfirst_int(ec);
					SubsetEdge *e = &cfg->edges[i];
					List	   *g;

					if (!SubsetEdgeIsPolymorphic(e))
						continue;
					g = arms_of(pl, ti, e);
					if (g != NIL && linitial_int(g) == i)
					{
						group = g;
						ngroups++;
					}
				}
				arms = (list_length(arms) == 0 && ngroups == 1) ? group : NIL;
			}
			if (arms != NIL && !cfg->tables[ti].no_cascade)
			{
				pl->rel[ti].kind = SEED_CASCADE;
				pl->rel[ti].seed_edges = arms;
				changed = true;
			}
		}
	}
	compute_may(pl);
	if (uncascade_untied(pl))
	{
		for (o = 0; o < plan->norder; o++)
		{
			int			ti = plan->order[o];

			if (pl->rel[ti].kind == SEED_CASCADE || pl->rel[ti].kind == SEED_REVERSE)
			{
				pl->rel[ti].kind = SEED_NONE;
				pl->rel[ti].seed_edges = NIL;
				pl->rel[ti].rev_arms = NIL;
			}
		}
		goto again;
	}

	/* rule 7, and the warnings of rule 4 */
	initStringInfo(&unscopable);
	for (o = 0; o < plan->norder; o++)
	{
		int			ti = plan->order[o];
		SubsetTable *t = &cfg->tables[ti];

		if (t->ignore)
			continue;
		if (t->has_reverse && pl->rel[ti].kind == SEED_REVERSE)
			(void) reverse_arms(pl, ti, true);
		if (pl->rel[ti].kind == SEED_UNRELATED && t->export_all)
			pl->rel[ti].kind = SEED_DECIDED;
		if (pl->rel[ti].kind != SEED_NONE || pl->rel[ti].may)
			continue;
		if (t->export_all)
			pl->rel[ti].kind = SEED_DECIDED;
		else if (t->has_reverse)
		{
			(void) reverse_arms(pl, ti, true);
			ereport(NOTICE,
					(errmsg("no arm of the reverse_scope of table \"%s\" is scoped, so it is exported in full",
							t->name)));
			pl->rel[ti].kind = SEED_FALLBACK;
		}
		else if (pl->scope_mode)
		{
			appendStringInfo(&unscopable, "%s%s", n_unscopable ? ", " : "", t->name);
			n_unscopable++;
		}
		else
		{
			if (pl->cfg->allow_undecided)
				ereport(WARNING,
						(errmsg("no rule ties the rows of table \"%s\" to the target, so it is exported in full",
								t->name),
						 errdetail("It has no belongs_to path to the target, no reverse_scope, no exported row references it, and no parent with selected rows."),
						 errhint("Add a belongs_to, declare reverse_scope, set \"export\": \"all\", or set \"ignore\": true.")));
			pl->rel[ti].kind = SEED_FALLBACK;
		}
	}
	if (n_unscopable > 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg_plural("scope-column mode: %d table cannot be scoped: %s",
							   "scope-column mode: %d tables cannot be scoped: %s",
							   n_unscopable, n_unscopable, unscopable.data),
				 errhint("For each, declare \"scope_column\" on the table to filter it directly, add a belongs_to path to a table that carries the scope column, set \"scope_exempt\": true to export it in full, or set \"ignore\": true to skip it.")));
	compute_may(pl);
}

/*
 * decide_sources
 *		The mode, and the tables whose seed comes from the ids: the target,
 *		or the scoped tables.  Checks the id spaces as the client does.
 */
static void
decide_sources(Planner *pl)
{
	const SubsetRequest *req = pl->req;
	SubsetConfig *cfg = pl->cfg;
	SubsetPlan *plan = pl->plan;
	SubsetTable *target = plan->target >= 0 ? &cfg->tables[plan->target] : NULL;
	List	   *spaces_used = NIL;
	ListCell   *lc;
	int			i,
				nids;

	pl->scope_mode = (target == NULL || target->scope_col.n > 0);
	if (!pl->scope_mode)
	{
		if (req->spaces != NIL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("ids were given for named id spaces, but target table \"%s\" declares no scope_column",
							target->name),
					 errdetail("Single-target mode uses only the default id space: the target's keys."),
					 errhint("Name a table that declares a scope_column as the target, or drop the named ids.")));
		if (target->rails_managed)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("target table \"%s\" is managed by Rails (type %s) and cannot be a target",
							target->name, target->type)));
		pl->rel[plan->target].kind = SEED_TARGET;
		pl->rel[plan->target].ids_lits = ids_arrays(target, &target->pk, &req->ids, &nids,
													"primary key");
		pl->target_nids = nids;
		return;
	}

	for (i = 0; i < pl->nt; i++)
	{
		SubsetTable *t = &cfg->tables[i];
		const SubsetIds *a;
		const char *space = t->id_space ? t->id_space : "default";

		if (t->ignore)
			continue;
		if (t->rails_managed || t->scope_exempt)
		{
			pl->rel[i].kind = SEED_EXEMPT;
			continue;
		}
		if (t->scope_col.n == 0)
			continue;
		a = subset_request_space(req, space);
		if (a == NULL || a->nvalues == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("scope-column mode: no ids were given for id space \"%s\", which table \"%s\" is filtered by",
							space, t->name),
					 strcmp(space, "default") == 0 ?
					 errhint("Pass the ids of the scope column's values.") :
					 errhint("Pass them in ids_by_space, as {\"%s\": [...]}.", space)));
		spaces_used = list_append_unique(spaces_used, makeString(pstrdup(space)));
		pl->rel[i].kind = SEED_DIRECT;
		pl->rel[i].ids_lits = ids_arrays(t, &t->scope_col, a, &nids, "scope column");
	}

	/*
	 * No target, no ids and no scope column: every table in full (the
	 * client's --all-tables, which makes each scope_exempt); a table that is
	 * not is refused below as one that cannot be scoped.
	 */
	if (spaces_used == NIL && (req->ids.nvalues > 0 || req->spaces != NIL))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("scope-column mode: no table declares a scope_column"),
				 errhint("Name the table the ids belong to as the target (single-target mode), or declare \"scope_column\" on the tables to filter.")));
	foreach(lc, req->spaces)
	{
		SubsetSpaceIds *sp = lfirst(lc);

		if (!list_member(spaces_used, makeString(pstrdup(sp->space))))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("scope-column mode: ids were given for id space \"%s\", but no table declares a scope_column in it",
							sp->space),
					 errhint("Check the id space's name, or declare \"id_space\" on the tables it scopes.")));
	}
	/* no single target: no NOTICE about ids that match no row */
	plan->ids_query = NULL;
}

/*
 * planner_descends_by_self
 *		Does table ti take the descendants of its seed rows through a
 *		self-reference?  Tables on a belongs_to path or a cascade, with a key
 *		and a live self-reference: a row whose parent_id names a seed row,
 *		and that no arm of its own decides, is the tenant's as much as its
 *		parent is (a subgroup, a token that replaced one).  The target's rows
 *		are the ids named, and a scope column decides every row itself.
 */
bool
planner_descends_by_self(Planner *pl, int ti)
{
	SubsetConfig *cfg = pl->cfg;
	ListCell   *lc;

	if ((pl->rel[ti].kind != SEED_PATH && pl->rel[ti].kind != SEED_CASCADE) ||
		cfg->tables[ti].pk.n == 0)
		return false;
	foreach(lc, pl->rel[ti].out_edges)
	{
		SubsetEdge *e = &cfg->edges[lfirst_int(lc)];

		if (SubsetEdgeIsSelf(e) && planner_edge_live(pl, e) && !e->deferred)
			return true;
	}
	return false;
}

/*
 * check_batch
 *		The Ruby client's rules for batch_scope on table ti, naming batch
 *		table b: scope-column mode only; b carries the scope column and has
 *		a primary key; ti reaches b by a single belongs_to path (one arm at
 *		every hop), or is b itself (then its rows are read by the scope
 *		column's index at once, and nothing is sliced).  Marks ti batched.
 */
static void
check_batch(Planner *pl, int ti)
{
	SubsetConfig *cfg = pl->cfg;
	SubsetTable *t = &cfg->tables[ti];
	SubsetTable *b = &cfg->tables[t->batch_table];
	int			cur;

	if (!pl->scope_mode)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("batch_scope of table \"%s\" applies only in scope-column mode", t->name),
				 errdetail("In single-target mode the export is anchored on the ids given."),
				 errhint("Export a slice of the ids at a time instead, or name a target that declares a scope_column.")));
	if (pl->rel[ti].kind == SEED_EXEMPT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("batch_scope of table \"%s\" cannot apply: the table is exported in full", t->name),
				 errdetail("It is scope_exempt or managed by Rails, so there is no scope filter to slice.")));
	if (b->ignore)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("batch_scope of table \"%s\" names table \"%s\", which is ignored",
						t->name, b->name)));
	if (b->pk.n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("batch_scope of table \"%s\": table \"%s\" has no primary_key to slice the export by",
						t->name, b->name)));
	if (pl->rel[t->batch_table].kind == SEED_EXEMPT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("batch_scope of table \"%s\": table \"%s\" is exported in full",
						t->name, b->name),
				 errdetail("Its rows are not scoped, so every batch would reach outside the scope.")));
	if (pl->rel[t->batch_table].kind != SEED_DIRECT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("batch_scope of table \"%s\": table \"%s\" does not carry the scope column",
						t->name, b->name),
				 errdetail("Its rows in scope are not known before the batches run."),
				 errhint("Name the scoped table that table \"%s\" reaches through its belongs_tos.", t->name)));
	if (pl->rel[ti].kind == SEED_DIRECT)
	{
		if (t->batch_table != ti)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("batch_scope of table \"%s\" must name the table itself", t->name),
					 errdetail("It carries the scope column, so it is filtered directly rather than through table \"%s\".",
							   b->name)));
		return;
	}
	if (t->pk.n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("batch_scope of table \"%s\" needs a primary_key on the table", t->name),
				 errdetail("The rows each batch finds are collected by primary key.")));
	for (cur = ti; pl->rel[cur].kind == SEED_PATH; cur = cfg->edges[pl->rel[cur].path].parent)
	{
		if (list_length(pl->rel[cur].seed_edges) != 1)
			break;
	}
	if (pl->rel[cur].kind != SEED_DIRECT || cur == ti)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("batch_scope of table \"%s\" needs a single belongs_to path from it to the scope",
						t->name),
				 errdetail("It is scoped another way (polymorphic arms, reverse_scope, a parent's rows) or not at all; those rows are not tied to the rows of table \"%s\".",
						   b->name)));
	if (cur != t->batch_table)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("batch_scope of table \"%s\": table \"%s\" is not where it reaches the scope",
						t->name, b->name),
				 errhint("Name the scoped table at the end of its belongs_to path, \"%s\".",
						 cfg->tables[cur].name)));
	if (b->pk.n > 1)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("batch_scope of table \"%s\": table \"%s\" has a composite primary key",
						t->name, b->name),
				 errdetail("Batches are slices of the batch table's key values sorted as text.")));
	pl->rel[ti].batched = true;
	for (cur = ti; cur != t->batch_table; cur = cfg->edges[pl->rel[cur].path].parent)
		pl->rel[cur].batch_path = true;
	planner_cols_union(&pl->rel[ti].scols, &t->pk);
	planner_cols_union(&pl->rel[t->batch_table].scols, &b->pk);
}

/*
 * column_checked_not_null
 *		Has relation relid a validated CHECK (col IS NOT NULL) on column
 *		attnum?  It holds the column as NOT NULL does (GitLab adds NOT NULL
 *		that way first, to validate it without a long lock).
 */
static bool
column_checked_not_null(Oid relid, AttrNumber attnum)
{
	Relation	rel = table_open(ConstraintRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	bool		found = false;

	ScanKeyInit(&key, Anum_pg_constraint_conrelid, BTEqualStrategyNumber,
				F_OIDEQ, ObjectIdGetDatum(relid));
	scan = systable_beginscan(rel, ConstraintRelidTypidNameIndexId, true,
							  NULL, 1, &key);
	while (!found && HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_constraint con = (Form_pg_constraint) GETSTRUCT(tup);
		Datum		bin;
		bool		isnull;
		Node	   *expr;

		if (con->contype != CONSTRAINT_CHECK || !con->convalidated)
			continue;
		bin = heap_getattr(tup, Anum_pg_constraint_conbin,
						   RelationGetDescr(rel), &isnull);
		if (isnull)
			continue;
		expr = stringToNode(TextDatumGetCString(bin));
		if (IsA(expr, NullTest) &&
			((NullTest *) expr)->nulltesttype == IS_NOT_NULL &&
			IsA(((NullTest *) expr)->arg, Var) &&
			((Var *) ((NullTest *) expr)->arg)->varattno == attnum)
			found = true;
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return found;
}

/*
 * subset_edge_not_null
 *		Are all foreign key columns of edge e NOT NULL in the child (by
 *		NOT NULL, or a validated CHECK (col IS NOT NULL))?  Then every row of
 *		the child references a parent row through e.
 */
bool
subset_edge_not_null(SubsetConfig *cfg, SubsetEdge *e)
{
	SubsetTable *t = &cfg->tables[e->child];
	int			k;

	/* the catalog's answer does not change while a statement plans */
	if (e->not_null != 0)
		return e->not_null == 2;
	e->not_null = 1;
	for (k = 0; k < e->fk.n; k++)
	{
		HeapTuple	tup = SearchSysCache2(ATTNUM, ObjectIdGetDatum(t->relid),
										  Int16GetDatum(e->fk.attnums[k]));
		bool		notnull;

		if (!HeapTupleIsValid(tup))
			elog(ERROR, "cache lookup failed for attribute %d of relation %u",
				 e->fk.attnums[k], t->relid);
		notnull = ((Form_pg_attribute) GETSTRUCT(tup))->attnotnull;
		ReleaseSysCache(tup);
		if (!notnull && !column_checked_not_null(t->relid, e->fk.attnums[k]))
			return false;
	}
	e->not_null = 2;
	return true;
}

/*
 * seed_reaches
 *		Does the seed of table from read, through its arms and theirs, the
 *		seed of table to?  (Depth-first over seed_edges; seen is scratch
 *		space of nt entries, cleared by the caller.)
 */
static bool
seed_reaches(Planner *pl, int from, int to, bool *seen)
{
	ListCell   *lc;

	if (from == to)
		return true;
	if (seen[from])
		return false;
	seen[from] = true;
	check_stack_depth();
	foreach(lc, pl->rel[from].seed_edges)
	{
		SubsetEdge *e = &pl->cfg->edges[lfirst_int(lc)];

		if (seed_reaches(pl, e->parent, to, seen))
			return true;
	}
	return false;
}

/*
 * subset_edge_enforced
 *		Is edge e a foreign key constraint of the catalog, validated, on
 *		the child's columns to the parent's (not one the config or the
 *		inference declared)?  Then no row's key names a row the parent does
 *		not have.  A key that names no row decides nothing
 *		(append_undecided), so only such an edge on NOT NULL columns
 *		decides every row.
 */
bool
subset_edge_enforced(SubsetConfig *cfg, SubsetEdge *e)
{
	SubsetTable *t = &cfg->tables[e->child];
	SubsetTable *p = &cfg->tables[e->parent];
	Relation	rel;
	List	   *fks;
	ListCell   *lc;

	if (e->enforced != 0)
		return e->enforced == 2;
	e->enforced = 1;
	if (SubsetEdgeIsPolymorphic(e))
		return false;
	rel = relation_open(t->relid, AccessShareLock);
	fks = RelationGetFKeyList(rel);
	foreach(lc, fks)
	{
		ForeignKeyCacheInfo *fk = lfirst_node(ForeignKeyCacheInfo, lc);
		HeapTuple	tup;
		bool		valid;
		int			k;

		if (fk->confrelid != p->relid || fk->nkeys != e->fk.n)
			continue;
		for (k = 0; k < fk->nkeys; k++)
			if (fk->conkey[k] != e->fk.attnums[k] || fk->confkey[k] != e->ref.attnums[k])
				break;
		if (k < fk->nkeys)
			continue;
		tup = SearchSysCache1(CONSTROID, ObjectIdGetDatum(fk->conoid));
		if (!HeapTupleIsValid(tup))
			continue;
		valid = ((Form_pg_constraint) GETSTRUCT(tup))->convalidated;
		ReleaseSysCache(tup);
		if (valid)
		{
			e->enforced = 2;
			e->conoid = fk->conoid;
			break;
		}
	}
	relation_close(rel, AccessShareLock);
	return e->enforced == 2;
}

/*
 * arm_decides_all
 *		Does arm e decide every row of its table?  When it is not
 *		polymorphic and its columns are all NOT NULL (nn: subset_edge_not_null
 *		of e): each row references a parent through it, and a later arm takes
 *		only the rows whose earlier arms' keys are NULL or name no row
 *		(append_undecided_before).  Not exact for an arm no foreign key
 *		enforces, whose NOT NULL key may name no row: such a row is then
 *		left to no later arm (a later arm on every such table would cost
 *		GitLab's export 20 times its time).
 */
static bool
arm_decides_all(SubsetConfig *cfg, SubsetEdge *e, bool nn)
{
	return nn && !SubsetEdgeIsPolymorphic(e);
}

/*
 * planner_all_decided
 *		Is every row of table ti somebody's, so that its undecided_set would
 *		be empty?  The target's rows are, and so are those of every table
 *		that has no undecided_set; a table on a belongs_to path is when one
 *		of its arms (or a belongs_to that will be one: live, to a table tied
 *		to the target, closing no cycle of arms) is on NOT NULL columns, not
 *		polymorphic, and every row of its parent is somebody's.  Only such an
 *		arm decides every row (all_arm): one whose parent may have rows of
 *		nobody's leaves the rows that name them to the later arms.  Memoized;
 *		a table met again while it is being decided (a cycle) counts as not,
 *		which keeps a later arm that takes no row, never loses one.
 */
bool
planner_all_decided(Planner *pl, int ti)
{
	SubsetConfig *cfg = pl->cfg;
	SubsetTable *t = &cfg->tables[ti];
	PlannerRel *r = &pl->rel[ti];
	bool	   *seen;
	bool		result = false;
	ListCell   *lc;

	if (r->somebodys >= 2)
		return r->somebodys == 2;
	if (r->somebodys == 1)
		return false;
	if (r->kind != SEED_PATH || SubsetTableNarrowed(t) || t->pk.n == 0 ||
		t->batch_table >= 0 || planner_descends_by_self(pl, ti))
	{
		r->somebodys = 2;
		return true;
	}
	r->somebodys = 1;
	check_stack_depth();
	seen = palloc(sizeof(bool) * Max(pl->nt, 1));
	foreach(lc, r->out_edges)
	{
		int			i = lfirst_int(lc);
		SubsetEdge *e = &cfg->edges[i];

		CHECK_FOR_INTERRUPTS();
		if (result)
			break;
		if (SubsetEdgeIsSelf(e) || SubsetEdgeIsPolymorphic(e) ||
			!planner_edge_live(pl, e) || !SeedConstrains(pl->rel[e->parent].kind) ||
			!subset_edge_not_null(cfg, e))
			continue;
		if (!list_member_int(r->seed_edges, i))
		{
			memset(seen, 0, sizeof(bool) * pl->nt);
			if (seed_reaches(pl, e->parent, ti, seen))
				continue;
		}
		result = planner_all_decided(pl, e->parent);
	}
	pfree(seen);
	r->somebodys = result ? 2 : 3;
	return result;
}

/*
 * add_other_arms
 *		A row belongs to the export when a foreign key ties it to the
 *		target, not only the one on its shortest path: every table on a path
 *		takes as further arms every live edge to a parent whose seed is tied
 *		to the target, after its path's arm, in this order (a later arm
 *		decides only rows that the earlier ones leave undecided, their keys
 *		NULL: append_undecided_before), except where that would make the
 *		parent's seed read the table's own (a cycle of belongs_tos; the edge
 *		is then left out, and listed in pl->cycle_arms).  Edges whose columns are NOT NULL go
 *		first, so that a cycle is cut at a nullable edge where it can be;
 *		ties by the path order of edges.  An edge after an arm that decides
 *		every row (arm_decides_all, kept in the table's all_arm) would take
 *		no row: it is no arm, and is listed in the table's shadowed edges.  Tables with batch_scope keep
 *		their single path, which the batches slice.
 */
static void
add_other_arms(Planner *pl)
{
	SubsetConfig *cfg = pl->cfg;
	int		   *cand = palloc(sizeof(int) * Max(cfg->nedges, 1));
	bool	   *nn = palloc(sizeof(bool) * Max(cfg->nedges, 1));
	bool	   *seen = palloc(sizeof(bool) * Max(pl->nt, 1));
	int			n = 0;
	int			pass;
	int			i;
	ListCell   *lc;

	/* the arms so far (the path's, and its polymorphic siblings') */
	for (i = 0; i < pl->nt; i++)
	{
		if (pl->rel[i].kind != SEED_PATH)
			continue;
		foreach(lc, pl->rel[i].seed_edges)
		{
			SubsetEdge *a = &cfg->edges[lfirst_int(lc)];

			if (arm_decides_all(cfg, a, subset_edge_not_null(cfg, a)) &&
				planner_all_decided(pl, a->parent))
			{
				pl->rel[i].all_arm = lfirst_int(lc);
				break;
			}
		}
	}

	for (i = 0; i < cfg->nedges; i++)
	{
		SubsetEdge *e = &cfg->edges[i];

		if (!planner_edge_live(pl, e) || SubsetEdgeIsSelf(e) ||
			pl->rel[e->child].kind != SEED_PATH ||
			cfg->tables[e->child].batch_table >= 0 ||
			!SeedConstrains(pl->rel[e->parent].kind) ||
			list_member_int(pl->rel[e->child].seed_edges, i))
			continue;
		cand[n++] = i;
	}
	cmp_cfg = cfg;
	qsort(cand, n, sizeof(int), edge_order_cmp);
	for (i = 0; i < n; i++)
		nn[i] = subset_edge_not_null(cfg, &cfg->edges[cand[i]]);
	for (pass = 0; pass < 2; pass++)
	{
		for (i = 0; i < n; i++)
		{
			SubsetEdge *e = &cfg->edges[cand[i]];

			CHECK_FOR_INTERRUPTS();
			if (nn[i] != (pass == 0))
				continue;
			if (pl->rel[e->child].all_arm >= 0)
			{
				/* an earlier arm decides every row: this one would take none */
				pl->rel[e->child].shadowed = lappend_int(pl->rel[e->child].shadowed,
														 cand[i]);
				continue;
			}
			memset(seen, 0, sizeof(bool) * pl->nt);
			if (seed_reaches(pl, e->parent, e->child, seen))
			{
				pl->cycle_arms = lappend_int(pl->cycle_arms, cand[i]);
				continue;
			}
			pl->rel[e->child].seed_edges = lappend_int(pl->rel[e->child].seed_edges, cand[i]);
			if (arm_decides_all(cfg, e, nn[i]) && planner_all_decided(pl, e->parent))
				pl->rel[e->child].all_arm = cand[i];
		}
	}
	pfree(cand);
	pfree(nn);
	pfree(seen);
}

/*
 * decide_claims
 *		A belongs_to marked "delegated" says that the parent row is the
 *		child row's own (Rails' delegated_type: an entry's transaction, an
 *		account's depository): the parent's rows that exported rows of a
 *		child tied to the target name through it are the tenant's, whatever
 *		the parent's own arms say (a transaction with no category and no
 *		merchant), and so are their children.  The parent's seed takes them
 *		(planner_build_seed reads the child's seed-key set: the child's own
 *		rows, not the rows the closure adds, which may be another tenant's);
 *		a parent with no
 *		rule of its own gets one (SEED_CASCADE, as a child of its owner).
 *		Not from a child whose rows are not tied to the target, nor into
 *		the target, a scope-filtered table or a table exported whole (their
 *		rows are decided), nor for a table whose claims planning found in a
 *		cycle (no_claims: it plans again without them).  Runs after rules 1
 *		to 3, so that the fallbacks see the new seeds.
 */
static void
decide_claims(Planner *pl)
{
	SubsetConfig *cfg = pl->cfg;
	int			i;

	for (i = 0; i < cfg->nedges; i++)
	{
		SubsetEdge *e = &cfg->edges[i];
		PlannerRel *p = &pl->rel[e->parent];

		if (!e->delegated || !planner_edge_live(pl, e) || SubsetEdgeIsSelf(e) ||
			cfg->tables[e->parent].no_claims || cfg->tables[e->parent].batch_table >= 0 ||
			!SeedConstrains(pl->rel[e->child].kind) ||
			!(p->kind == SEED_NONE || p->kind == SEED_UNRELATED ||
			  p->kind == SEED_PATH || p->kind == SEED_CASCADE))
			continue;
		p->claims = lappend_int(p->claims, i);
		if (p->kind == SEED_NONE || p->kind == SEED_UNRELATED)
			p->kind = SEED_CASCADE;
	}
}

/*
 * add_late_arms
 *		A polymorphic arm is followed from every parent whose rows are
 *		exported, whatever rule brought them: a table whose seed is a group
 *		of polymorphic arms (rule 2's path, or rule 6's cascade) also takes
 *		the arms of the group whose parent has only the rows exported rows
 *		reference (a Rails app's users, tied to the account through a join
 *		table: the "User" rows of access_tokens beside its "AgentBot" rows).
 *		They read all of the parent's rows (its exwiw_f set), as a cascade
 *		does, and come right after the group's other arms.  Not from a
 *		parent some of whose rows may be another tenant's (untied: rows a
 *		table exported in full references), with a NOTICE; not for a table
 *		whose cascade planning found in a cycle (no_cascade: it plans again
 *		without them).  Assumes compute_may has run on the final kinds.
 */
static void
add_late_arms(Planner *pl)
{
	SubsetConfig *cfg = pl->cfg;
	bool	   *untied = palloc0(sizeof(bool) * Max(pl->nt, 1));
	int			ti;
	ListCell   *lc;

	compute_untied(pl, untied);
	for (ti = 0; ti < pl->nt; ti++)
	{
		SubsetEdge *g;
		int			pos = 0;

		if (cfg->tables[ti].ignore || cfg->tables[ti].no_cascade ||
			cfg->tables[ti].batch_table >= 0 ||
			(pl->rel[ti].kind != SEED_PATH && pl->rel[ti].kind != SEED_CASCADE) ||
			pl->rel[ti].seed_edges == NIL)
			continue;
		g = &cfg->edges[linitial_int(pl->rel[ti].seed_edges)];
		if (!SubsetEdgeIsPolymorphic(g))
			continue;
		/* the group leads the arms: the late ones go right after it */
		foreach(lc, pl->rel[ti].seed_edges)
		{
			SubsetEdge *a = &cfg->edges[lfirst_int(lc)];

			if (!SubsetEdgeIsPolymorphic(a) || a->type_col.attnums[0] != g->type_col.attnums[0])
				break;
			pos++;
		}
		foreach(lc, pl->rel[ti].out_edges)
		{
			int			i = lfirst_int(lc);
			SubsetEdge *a = &cfg->edges[i];

			if (!planner_edge_live(pl, a) || SubsetEdgeIsSelf(a) ||
				!SubsetEdgeIsPolymorphic(a) ||
				a->type_col.attnums[0] != g->type_col.attnums[0] ||
				list_member_int(pl->rel[ti].seed_edges, i) ||
				!referenced_only_arm(pl, ti, a))
				continue;
			if (untied[a->parent])
			{
				ereport(NOTICE,
						(errmsg("the rows of table \"%s\" whose %s is %s are not exported with the rows of \"%s\"",
								cfg->tables[ti].name, a->type_col.names[0],
								quote_literal_cstr(a->type_value), cfg->tables[a->parent].name),
						 errdetail("Rows of \"%s\" come in as the parents of rows that no rule ties to the target, such as the rows of a table exported in full; their children would be other tenants' rows.",
								   cfg->tables[a->parent].name)));
				continue;
			}
			pl->rel[ti].seed_edges = list_insert_nth_int(pl->rel[ti].seed_edges, pos++, i);
			pl->rel[ti].late = true;
		}
	}
	pfree(untied);
}

/*
 * planner_seeds
 *		Decide every table's seed (the file header's rules), then build the
 *		seed predicates and the seed-key sets that others read.
 */
void
planner_seeds(Planner *pl)
{
	SubsetConfig *cfg = pl->cfg;
	int			i;
	ListCell   *lc;

	decide_sources(pl);
	if (!pl->scope_mode)
		for (i = 0; i < pl->nt; i++)
			if (cfg->tables[i].rails_managed && !cfg->tables[i].ignore)
				pl->rel[i].kind = SEED_EXEMPT;
	/* "export": "all" means every row, wherever the table stands */
	for (i = 0; i < pl->nt; i++)
		if (cfg->tables[i].export_all && !cfg->tables[i].ignore &&
			pl->rel[i].kind == SEED_NONE)
			pl->rel[i].kind = SEED_DECIDED;
	find_paths(pl);

	/* rule 2: the path, with its polymorphic sibling arms */
	for (i = 0; i < pl->nt; i++)
	{
		if (pl->rel[i].path < 0)
			continue;
		pl->rel[i].kind = SEED_PATH;
		pl->rel[i].seed_edges = list_make1_int(pl->rel[i].path);
	}
	for (i = 0; i < pl->nt; i++)
	{
		SubsetEdge *e;

		if (pl->rel[i].kind != SEED_PATH)
			continue;
		e = &cfg->edges[pl->rel[i].path];
		if (SubsetEdgeIsPolymorphic(e))
			pl->rel[i].seed_edges = arms_of(pl, i, e);
	}
	add_other_arms(pl);
	/* rule 3 */
	for (i = 0; i < pl->nt; i++)
		if (!cfg->tables[i].ignore && !pl->rel[i].comp && pl->rel[i].kind == SEED_NONE)
			pl->rel[i].kind = SEED_UNRELATED;
	decide_claims(pl);

	decide_fallbacks(pl);
	add_late_arms(pl);

	/* which columns each seed-key set carries: what its readers match */
	for (i = 0; i < pl->nt; i++)
	{
		foreach(lc, pl->rel[i].seed_edges)
		{
			SubsetEdge *e = &cfg->edges[lfirst_int(lc)];

			if (pl->rel[e->parent].kind != SEED_NONE)
				planner_cols_union(&pl->rel[e->parent].scols, &e->ref);
		}
		foreach(lc, pl->rel[i].rev_arms)
		{
			SubsetReverseArm *arm = lfirst(lc);

			planner_cols_union(&pl->rel[arm->table].scols, &arm->col);
		}
		/* a delegated parent reads its owners' own rows (decide_claims) */
		foreach(lc, pl->rel[i].claims)
		{
			SubsetEdge *e = &cfg->edges[lfirst_int(lc)];

			planner_cols_union(&pl->rel[e->child].scols, &e->fk);
			if (SubsetEdgeIsPolymorphic(e))
				planner_cols_union(&pl->rel[e->child].scols, &e->type_col);
		}
	}
	for (i = 0; i < pl->nt; i++)
		if (!cfg->tables[i].ignore && cfg->tables[i].batch_table >= 0)
			check_batch(pl, i);
}
