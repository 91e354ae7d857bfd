/*-------------------------------------------------------------------------
 *
 * plan/order.c
 *	  The processing order of a subset export: which file comes first.
 *
 * As the Ruby client computes it (and the dump format states): the order
 * goes in rounds.  Each round emits, in config order, every remaining table
 * all of whose parents (the tables its belongs_tos point to, other than
 * itself) are already emitted.  When no table can go, the remaining tables
 * hold a cycle; it is broken by emitting one member of it first, with a
 * WARNING that names the foreign keys it had to drop.  The member is one
 * that sits on a cycle (a strongly connected component of more than one
 * table), preferably one that already has an emitted parent, then the one
 * with the fewest unresolved parents, then the first by name.  The edges
 * dropped are marked broken: the planner neither selects rows through them
 * nor adds the rows they reference.
 *
 *-------------------------------------------------------------------------
 */
#include "subset/subset.h"

#include "miscadmin.h"

/* Working state of the ordering. */
typedef struct OrderState
{
	SubsetConfig *cfg;
	bool	   *live;			/* in this run (not ignored) */
	bool	   *done;			/* emitted */
	List	  **parents;		/* per table: edge indexes to other tables */
	/* Tarjan */
	int		   *index;
	int		   *low;
	bool	   *onstack;
	int		   *stack;
	int			sp;
	int			counter;
	bool	   *cyclic;
} OrderState;

/*
 * unresolved
 *		Number of distinct live, not yet emitted parents of table t, other
 *		than t.
 */
static int
unresolved(OrderState *st, int t)
{
	ListCell   *lc;
	int			n = 0;
	List	   *seen = NIL;

	foreach(lc, st->parents[t])
	{
		SubsetEdge *e = &st->cfg->edges[lfirst_int(lc)];

		if (!st->done[e->parent] && !list_member_int(seen, e->parent))
		{
			seen = lappend_int(seen, e->parent);
			n++;
		}
	}
	list_free(seen);
	return n;
}

/*
 * has_done_parent
 *		True when table t has a parent that is already emitted.
 */
static bool
has_done_parent(OrderState *st, int t)
{
	ListCell   *lc;

	foreach(lc, st->parents[t])
	{
		if (st->done[st->cfg->edges[lfirst_int(lc)].parent])
			return true;
	}
	return false;
}

/*
 * tarjan
 *		Strongly connected components of the remaining tables over their
 *		unresolved parent edges; marks members of components of more than
 *		one table in st->cyclic.  Recursive: the depth is bounded by the
 *		number of tables, and check_stack_depth() guards it.
 */
static void
tarjan(OrderState *st, int v)
{
	ListCell   *lc;

	check_stack_depth();
	st->index[v] = st->low[v] = st->counter++;
	st->stack[st->sp++] = v;
	st->onstack[v] = true;

	foreach(lc, st->parents[v])
	{
		int			w = st->cfg->edges[lfirst_int(lc)].parent;

		if (st->done[w])
			continue;
		if (st->index[w] < 0)
		{
			tarjan(st, w);
			st->low[v] = Min(st->low[v], st->low[w]);
		}
		else if (st->onstack[w])
			st->low[v] = Min(st->low[v], st->index[w]);
	}

	if (st->low[v] == st->index[v])
	{
		int			size = 0;
		int			base = st->sp;

		do
		{
			base--;
			size++;
		} while (st->stack[base] != v);
		while (st->sp > base)
		{
			int			w = st->stack[--st->sp];

			st->onstack[w] = false;
			if (size > 1)
				st->cyclic[w] = true;
		}
	}
}

/*
 * edge_text
 *		"child.col -> parent" (or "child.(a, b) -> parent") for messages.
 */
static char *
edge_text(SubsetConfig *cfg, SubsetEdge *e)
{
	StringInfoData s;

	initStringInfo(&s);
	appendStringInfo(&s, "%s.", cfg->tables[e->child].name);
	if (e->fk.n > 1)
		appendStringInfoChar(&s, '(');
	subset_append_cols(&s, NULL, &e->fk);
	if (e->fk.n > 1)
		appendStringInfoChar(&s, ')');
	appendStringInfo(&s, " -> %s", cfg->tables[e->parent].name);
	return s.data;
}

/*
 * unresolved_nullable
 *		Can table t be written before its unresolved parents: is every
 *		foreign key to them nullable, so that it can be written NULL and set
 *		once the parent's rows are loaded (by primary key: t needs one)?
 */
static bool
unresolved_nullable(OrderState *st, int t)
{
	ListCell   *lc;

	foreach(lc, st->parents[t])
	{
		SubsetEdge *e = &st->cfg->edges[lfirst_int(lc)];

		if (!st->done[e->parent] &&
			(subset_edge_not_null(st->cfg, e) || st->cfg->tables[t].pk.n == 0))
			return false;
	}
	return true;
}

/*
 * cycle_error
 *		No table of the remaining cycles can be written first: every one
 *		has a NOT NULL foreign key to another.  Name the tables of each
 *		cycle (strongly connected component), table by table.
 */
static void
cycle_error(OrderState *st)
{
	SubsetConfig *cfg = st->cfg;
	StringInfoData tables;
	StringInfoData keys;
	int			i;
	ListCell   *lc;

	initStringInfo(&tables);
	initStringInfo(&keys);
	for (i = 0; i < cfg->ntables; i++)
	{
		if (!st->live[i] || st->done[i] || !st->cyclic[i])
			continue;
		appendStringInfo(&tables, "%s%s", tables.len ? ", " : "", cfg->tables[i].name);
		foreach(lc, st->parents[i])
		{
			SubsetEdge *e = &cfg->edges[lfirst_int(lc)];

			if (!st->done[e->parent] && st->cyclic[e->parent])
				appendStringInfo(&keys, "%s%s", keys.len ? ", " : "", edge_text(cfg, e));
		}
	}
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("tables %s reference each other through NOT NULL foreign keys", tables.data),
			 errdetail("The cycle: %s. No table of it can be loaded before the others.", keys.data),
			 errhint("Mark one of these belongs_tos \"ignore\", or make one of the columns nullable.")));
}

/*
 * break_cycle
 *		Pick the table to emit although its parents are not all emitted,
 *		and mark the edges to its unresolved parents broken, with a
 *		WARNING.
 */
static int
break_cycle(OrderState *st)
{
	SubsetConfig *cfg = st->cfg;
	int			n = cfg->ntables;
	int			i;
	int			victim = -1;
	int			victim_unres = 0;
	bool		victim_anchored = false;
	bool		any_cyclic = false;
	ListCell   *lc;

	for (i = 0; i < n; i++)
	{
		st->index[i] = -1;
		st->onstack[i] = false;
		st->cyclic[i] = false;
	}
	st->sp = 0;
	st->counter = 0;
	for (i = 0; i < n; i++)
		if (st->live[i] && !st->done[i] && st->index[i] < 0)
			tarjan(st, i);
	for (i = 0; i < n; i++)
		any_cyclic |= (st->live[i] && !st->done[i] && st->cyclic[i]);

	for (i = 0; i < n; i++)
	{
		bool		anchored;
		int			unres;

		if (!st->live[i] || st->done[i] || (any_cyclic && !st->cyclic[i]) ||
			!unresolved_nullable(st, i))
			continue;
		anchored = has_done_parent(st, i);
		unres = unresolved(st, i);
		if (victim < 0 ||
			(anchored && !victim_anchored) ||
			(anchored == victim_anchored &&
			 (unres < victim_unres ||
			  (unres == victim_unres &&
			   strcmp(cfg->tables[i].name, cfg->tables[victim].name) < 0))))
		{
			victim = i;
			victim_unres = unres;
			victim_anchored = anchored;
		}
	}
	if (victim < 0)
		cycle_error(st);

	foreach(lc, st->parents[victim])
	{
		SubsetEdge *e = &cfg->edges[lfirst_int(lc)];

		if (st->done[e->parent])
			continue;
		e->deferred = true;
		ereport(DEBUG1,
				(errmsg_internal("foreign key cycle cut at %s: written NULL, set by a later file",
								 edge_text(cfg, e))));
	}
	return victim;
}

/*
 * subset_processing_order
 *		The non-ignored tables of cfg in processing order; *n gets their
 *		number.  Marks the edges it drops to break cycles.
 */
int *
subset_processing_order(SubsetConfig *cfg, int *n)
{
	OrderState	st;
	int			nt = cfg->ntables;
	int		   *order = palloc(sizeof(int) * Max(nt, 1));
	int		   *round = palloc(sizeof(int) * Max(nt, 1));
	int			norder = 0;
	int			nlive = 0;
	int			i;

	memset(&st, 0, sizeof(st));
	st.cfg = cfg;
	st.live = palloc0(sizeof(bool) * Max(nt, 1));
	st.done = palloc0(sizeof(bool) * Max(nt, 1));
	st.parents = palloc0(sizeof(List *) * Max(nt, 1));
	st.index = palloc(sizeof(int) * Max(nt, 1));
	st.low = palloc(sizeof(int) * Max(nt, 1));
	st.onstack = palloc0(sizeof(bool) * Max(nt, 1));
	st.stack = palloc(sizeof(int) * Max(nt, 1));
	st.cyclic = palloc0(sizeof(bool) * Max(nt, 1));

	/* ignored tables take part in the order: they keep their file number */
	for (i = 0; i < nt; i++)
	{
		st.live[i] = true;
		nlive++;
	}
	for (i = 0; i < cfg->nedges; i++)
	{
		SubsetEdge *e = &cfg->edges[i];

		if (!SubsetEdgeIsSelf(e) && st.live[e->child] && st.live[e->parent])
			st.parents[e->child] = lappend_int(st.parents[e->child], i);
	}

	while (norder < nlive)
	{
		int			nround = 0;

		CHECK_FOR_INTERRUPTS();
		for (i = 0; i < nt; i++)
			if (st.live[i] && !st.done[i] && unresolved(&st, i) == 0)
				round[nround++] = i;
		if (nround == 0)
			round[nround++] = break_cycle(&st);
		for (i = 0; i < nround; i++)
		{
			st.done[round[i]] = true;
			order[norder++] = round[i];
		}
	}
	*n = norder;
	return order;
}
