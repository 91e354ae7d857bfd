/*-------------------------------------------------------------------------
 *
 * subset_seeds.c
 *	  Which rows each table contributes on its own: its seed.
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
 *	   rows;
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
 *	5. rows that exported rows reference (closure, subset_closure.c): the
 *	   client's "single referencing table" rule, generalized to all of them;
 *	6. forward cascade: the rows of its one parent that has a seed
 *	   (or of the one polymorphic group of arms that have); not from a
 *	   parent with only referenced rows that rows no rule ties to the
 *	   target may reference (uncascade_untied);
 *	7. otherwise, in single-target mode all rows, with a WARNING; in
 *	   scope-column mode an error naming every such table, before anything
 *	   is read (the client's validate_scope!).
 *
 * Every seed is narrowed by the table's own filter.  A seed is read from
 * its parents' seed-key sets (exwiw_s_N), which are built in dependency
 * order, each once.  batch_scope (scope-column mode, a table on a single
 * belongs_to path to a scoped table): the table's seed-key set is built in
 * slices of that scoped table's seed keys (check_batch, batch_seed;
 * subset_run.c runs them).
 *
 *-------------------------------------------------------------------------
 */
#include "subset/subset_planner.h"

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
 * ids_subquery
 *		"SELECT * FROM ROWS FROM (pg_catalog.unnest(<array>), ...)": the ids
 *		as rows, one column per key column.
 */
static char *
ids_subquery(char **lits, int nk)
{
	StringInfoData s;
	int			k;

	initStringInfo(&s);
	appendStringInfoString(&s, "SELECT * FROM ROWS FROM (");
	for (k = 0; k < nk; k++)
		appendStringInfo(&s, "%spg_catalog.unnest(%s)", k ? ", " : "", lits[k]);
	appendStringInfoChar(&s, ')');
	return s.data;
}

/*
 * ids_predicate
 *		"alias.cols match one of the ids".
 */
static char *
ids_predicate(SubsetTable *t, const SubsetCols *cols, char **lits)
{
	StringInfoData s;
	const char *alias = planner_alias(t);

	initStringInfo(&s);
	if (cols->n == 1)
		subset_append_eq(&s, psprintf("%s.%s", alias, quote_identifier(cols->names[0])),
						 cols->typids[0], psprintf("ANY (%s)", lits[0]), cols->typids[0]);
	else
		subset_append_match(&s, alias, cols, ids_subquery(lits, cols->n), cols);
	return s.data;
}

/*
 * with_filter
 *		"pred AND (\nfilter\n)", the filter on lines of its own.
 */
static char *
with_filter(const char *pred, const char *filter)
{
	if (filter == NULL)
		return pstrdup(pred);
	if (pred == NULL)
		return psprintf("(\n%s\n)", filter);
	return psprintf("%s AND (\n%s\n)", pred, filter);
}

/*
 * planner_index_leads
 *		Has table t a (non-partial) index whose leading key columns are
 *		cols, in any order, with extra_att (a polymorphic edge's type
 *		column, or InvalidAttrNumber) allowed among them?  Then the planner
 *		can find the rows of one key without reading the whole table.
 */
bool
planner_index_leads(SubsetTable *t, const SubsetCols *cols, AttrNumber extra_att)
{
	Relation	rel = relation_open(t->relid, AccessShareLock);
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;
	bool		found = false;

	foreach(lc, indexes)
	{
		/* pg_index's row: no relcache entry built for the index */
		HeapTuple	it = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(lfirst_oid(lc)));
		Form_pg_index ind;
		int			nkey;
		int			i,
					j;
		int			covered = 0;
		Bitmapset  *seen = NULL;

		if (!HeapTupleIsValid(it))
			elog(ERROR, "cache lookup failed for index %u", lfirst_oid(lc));
		ind = (Form_pg_index) GETSTRUCT(it);
		nkey = ind->indnkeyatts;
		/* the leading columns are cols (and extra_att) until all are seen */
		for (i = 0; i < nkey && covered < cols->n; i++)
		{
			AttrNumber	a = ind->indkey.values[i];
			bool		in = false;

			for (j = 0; j < cols->n; j++)
			{
				if (cols->attnums[j] == a && !bms_is_member(j, seen))
				{
					seen = bms_add_member(seen, j);
					in = true;
				}
			}
			if (in)
				covered++;
			else if (a == InvalidAttrNumber || a != extra_att)
				break;
		}
		bms_free(seen);
		if (covered == cols->n && heap_attisnull(it, Anum_pg_index_indpred, NULL))
			found = true;
		ReleaseSysCache(it);
		if (found)
			break;
	}
	list_free(indexes);
	relation_close(rel, AccessShareLock);
	return found;
}

/*
 * edge_type_att
 *		The type column of a polymorphic edge, or InvalidAttrNumber.
 */
static AttrNumber
edge_type_att(SubsetEdge *e)
{
	return e->type_col.n > 0 ? e->type_col.attnums[0] : InvalidAttrNumber;
}

/*
 * warn_unindexed
 *		NOTICE when a seed edge's foreign key has no index that starts with
 *		its columns (in any order; a polymorphic edge's type column may lead
 *		too): selecting the child's rows then reads the whole table.
 */
static void
warn_unindexed(SubsetTable *t, SubsetEdge *e)
{
	StringInfoData cols;

	if (planner_index_leads(t, &e->fk, edge_type_att(e)))
		return;
	initStringInfo(&cols);
	subset_append_cols(&cols, NULL, &e->fk);
	ereport(NOTICE,
			(errmsg("foreign key %s.%s%s%s has no index, so selecting the rows of \"%s\" reads the whole table",
					t->name, e->fk.n > 1 ? "(" : "", cols.data,
					e->fk.n > 1 ? ")" : "", t->name),
			 errhint("CREATE INDEX ON %s (%s);", t->qualname, cols.data)));
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
 * find_paths
 *		Breadth-first from the seed sources (the target, or the scoped
 *		tables) over belongs_tos, reversed: every table's shortest path,
 *		and the sources' connected component (edges in either direction).
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
		qsort(cand, n, sizeof(int), edge_order_cmp);
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
	int			i,
				n = 0;

	for (i = 0; i < pl->cfg->nedges; i++)
	{
		SubsetEdge *e = &pl->cfg->edges[i];

		n += (e->child == child && e->parent == parent && planner_edge_live(pl, e));
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
 * arms_of
 *		The live edges of table t whose parent's seed constrains it: the
 *		polymorphic arms with e's type column when e is polymorphic, or the
 *		non-polymorphic edges when e is NULL (cascade candidates).
 */
static List *
arms_of(Planner *pl, int t, SubsetEdge *e)
{
	SubsetConfig *cfg = pl->cfg;
	List	   *arms = NIL;
	int			i;

	for (i = 0; i < cfg->nedges; i++)
	{
		SubsetEdge *a = &cfg->edges[i];

		if (a->child != t || !planner_edge_live(pl, a) || SubsetEdgeIsSelf(a) ||
			!(SeedConstrains(pl->rel[a->parent].kind) ||
			  (e == NULL && pl->rel[a->parent].kind == SEED_NONE && pl->rel[a->parent].may &&
			   edges_between(pl, t, a->parent) == 1 && !self_referencing(pl, t))))
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
	int			o,
				i;

	for (o = plan->norder - 1; o >= 0; o--)
	{
		int			ti = plan->order[o];

		if (cfg->tables[ti].ignore)
			continue;
		pl->rel[ti].may = (pl->rel[ti].kind != SEED_NONE);
		for (i = 0; i < cfg->nedges && !pl->rel[ti].may; i++)
		{
			SubsetEdge *e = &cfg->edges[i];

			if (planner_edge_live(pl, e) && !SubsetEdgeIsSelf(e) && e->parent == ti &&
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
				int			i;

				for (i = 0; i < cfg->nedges; i++)
				{
					SubsetEdge *e = &cfg->edges[i];
					List	   *g;

					if (e->child != ti || !SubsetEdgeIsPolymorphic(e))
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
	if (spaces_used == NIL)
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
 * arm_subquery
 *		"SELECT alias.ref FROM exwiw_s_N": the keys of an edge's parent seed.
 */
static char *
arm_subquery(Planner *pl, SubsetEdge *e, int *setno)
{
	SubsetSet  *set;
	StringInfoData sub;

	/* a parent whose rows are only referenced ones: all of them */
	*setno = pl->rel[e->parent].kind == SEED_NONE ? planner_fset(pl, e->parent) :
		pl->rel[e->parent].sset;
	set = planner_set(pl, *setno);

	initStringInfo(&sub);
	appendStringInfoString(&sub, "SELECT ");
	subset_append_cols(&sub, set->name, &e->ref);
	appendStringInfo(&sub, " FROM %s", set->name);
	return sub.data;
}


/*
 * batch_seed
 *		Table ti's seed-key set is computed in slices of its batch table's
 *		seed rows, in the order of their keys as text (check_batch): annotate
 *		the set with the slice source, its order and the seed sets of the
 *		path between, and let every reader of ti's seed match its primary
 *		key against the set.  The set's rows carry their batch number, by
 *		which the file orders its rows (subset_plan.c).
 */
static void
batch_seed(Planner *pl, int ti)
{
	SubsetConfig *cfg = pl->cfg;
	SubsetTable *t = &cfg->tables[ti];
	SubsetSet  *set = planner_set(pl, pl->rel[ti].sset);
	SubsetSet  *src;
	StringInfoData s;
	int			cur;

	Assert(pl->rel[ti].sset >= 0);
	set->batch_size = t->batch_size;
	for (cur = cfg->edges[pl->rel[ti].path].parent; pl->rel[cur].kind == SEED_PATH;
		 cur = cfg->edges[pl->rel[cur].path].parent)
		set->batch_chain = lcons_int(pl->rel[cur].sset, set->batch_chain);
	Assert(cur == t->batch_table && pl->rel[cur].sset >= 0);
	set->batch_source = pl->rel[cur].sset;
	src = planner_set(pl, set->batch_source);
	/* the Ruby client sorts the key values it reads as text, byte-wise */
	set->batch_order = psprintf("SELECT * FROM %s ORDER BY CAST(%s.%s AS pg_catalog.text) COLLATE pg_catalog.\"C\"",
								src->name, src->name,
								quote_identifier(cfg->tables[cur].pk.names[0]));
	set->rule = psprintf("%s, in batches of %d rows of table %s", set->rule,
						 t->batch_size, cfg->tables[cur].name);

	initStringInfo(&s);
	planner_append_key_match(&s, planner_alias(t), t, set);
	pl->rel[ti].seed = s.data;

	/*
	 * The same as a join: the set holds each key once (seed_as_join); only
	 * where an index finds a key's rows, since without one the planner,
	 * knowing no statistics of the set, hashes the whole table instead of the
	 * set.
	 */
	pl->rel[ti].seed_deps = list_make1_int(pl->rel[ti].sset);
	pl->rel[ti].seed_frag = false;
	if (!planner_index_leads(t, &t->pk, InvalidAttrNumber))
		return;
	initStringInfo(&s);
	appendStringInfo(&s, "%s JOIN (SELECT ", subset_relation_sql(t));
	for (int k = 0; k < t->pk.n; k++)
		appendStringInfo(&s, "%s%s.%s AS exwiw_key%d", k > 0 ? ", " : "",
						 set->name, quote_identifier(t->pk.names[k]), k + 1);
	appendStringInfo(&s, " FROM %s) AS exwiw_k ON ", set->name);
	for (int k = 0; k < t->pk.n; k++)
	{
		if (k > 0)
			appendStringInfoString(&s, " AND ");
		subset_append_eq(&s, psprintf("%s.%s", planner_alias(t), quote_identifier(t->pk.names[k])),
						 t->pk.typids[k], psprintf("exwiw_k.exwiw_key%d", k + 1),
						 t->pk.typids[k]);
	}
	pl->rel[ti].seed_from = s.data;
	pl->rel[ti].seed_where = pstrdup("true");
}

/*
 * constant_parent
 *		Are the parent's seed rows through edge e exactly the rows whose
 *		referenced columns hold the ids?  So for the target by its key, and
 *		for a table filtered by its scope column through its scope column,
 *		when no filter narrows them.  Then the child's seed is its foreign
 *		key among the ids, a constant: the query needs no set, and Citus
 *		routes it to the tenant's worker.  (A child row whose parent is
 *		missing, which only a schema without the foreign key allows, then
 *		comes too, as in scope-column mode.)
 */
static bool
constant_parent(Planner *pl, SubsetEdge *e)
{
	SubsetTable *pt = &pl->cfg->tables[e->parent];

	if (e->parent == e->child || pt->filter != NULL || pl->rel[e->parent].ids_lits == NULL)
		return false;
	if (pl->rel[e->parent].kind == SEED_TARGET)
		return planner_cols_equal(&e->ref, &pt->pk);
	if (pl->rel[e->parent].kind == SEED_DIRECT)
		return planner_cols_equal(&e->ref, &pt->scope_col);
	return false;
}

/*
 * seed_as_join
 *		The seed of table ti through its one edge e, also as a join with the
 *		parent's key set (seed_from, seed_where: the type condition; the
 *		filter is added later), when that set holds each referenced key
 *		once: e references the parent's primary key, whose columns the set
 *		carries.  The planner knows no number of distinct values of a set,
 *		so it sizes "IN (set)" as if the set held 200 keys and probes an
 *		index key by key however large the set is; a join it sizes by the
 *		set's rows.  The set's columns get names of ours, so that unqualified
 *		names in a filter stay unambiguous.  Only where an index leads with
 *		the foreign key: without one, the planner (which has no statistics
 *		of the set, so guesses that its keys are few and skewed) would hash
 *		the whole table rather than the set; "IN" hashes the set.
 */
static void
seed_as_join(Planner *pl, int ti, SubsetEdge *e)
{
	SubsetTable *t = &pl->cfg->tables[ti];
	SubsetTable *p = &pl->cfg->tables[e->parent];
	const char *alias = planner_alias(t);
	SubsetSet  *set;
	StringInfoData j;
	int			setno;
	int			k;

	if (p->pk.n == 0 || !planner_cols_equal(&e->ref, &p->pk) || e->parent == ti ||
		!planner_index_leads(t, &e->fk, edge_type_att(e)))
		return;
	(void) arm_subquery(pl, e, &setno);
	set = planner_set(pl, setno);
	initStringInfo(&j);
	appendStringInfo(&j, "%s JOIN (SELECT ", subset_relation_sql(t));
	for (k = 0; k < e->ref.n; k++)
		appendStringInfo(&j, "%s%s.%s AS exwiw_key%d", k > 0 ? ", " : "",
						 set->name, quote_identifier(e->ref.names[k]), k + 1);
	appendStringInfo(&j, " FROM %s) AS exwiw_k ON ", set->name);
	for (k = 0; k < e->fk.n; k++)
	{
		if (k > 0)
			appendStringInfoString(&j, " AND ");
		subset_append_eq(&j, psprintf("%s.%s", alias, quote_identifier(e->fk.names[k])),
						 e->fk.typids[k],
						 psprintf("exwiw_k.exwiw_key%d", k + 1), e->ref.typids[k]);
	}
	pl->rel[ti].seed_from = j.data;
	if (SubsetEdgeIsPolymorphic(e))
	{
		StringInfoData w;

		initStringInfo(&w);
		planner_append_type_cond(&w, alias, e);
		pl->rel[ti].seed_where = w.data;
	}
	else
		pl->rel[ti].seed_where = NULL;
}

static void append_undecided(Planner *pl, StringInfo buf, const char *alias,
							 int ti, int n, SubsetEdge *e, List **deps);
static bool descends_by_self(Planner *pl, int ti);
static bool all_decided(Planner *pl, int ti);

/*
 * undecided_set
 *		The set of table ti's rows that no tenant's rows decide, exwiw_u
 *		(its keys): rows whose every arm's key is NULL (or names, when
 *		polymorphic, another table), or names a row of the arm's parent that
 *		is itself in its parent's such set, recursively.  A row of a child
 *		whose earlier arm names one of them is decided by its later arms
 *		(append_undecided): it is nobody's by that arm, as if the key were
 *		NULL.  The set does not depend on the ids: whose a row is, is a
 *		property of its keys.
 *
 *		Only for a table whose rows arms alone decide (a belongs_to path, a
 *		key, no filter, no self-reference that hands rows down); for any
 *		other (the target's rows are every one of them somebody's), and for
 *		a parent met again while its set is being built (a cycle of arms),
 *		-1: every row counts as decided, so a child's later arm takes no row
 *		whose earlier key names one.  That keeps rows out rather than let a
 *		row in that is another tenant's.  Returns the set's index, or -1.
 */
static int
undecided_set(Planner *pl, int ti)
{
	PlannerRel *r = &pl->rel[ti];
	SubsetTable *t = &pl->cfg->tables[ti];
	const char *alias = planner_alias(t);
	StringInfoData q;
	StringInfoData cond;
	List	   *deps = NIL;

	if (r->u_state == 2)
		return r->uset;
	if (r->u_state == 1)
		return -1;
	if (r->kind != SEED_PATH || r->seed_edges == NIL || t->filter != NULL ||
		t->pk.n == 0 || r->batched || descends_by_self(pl, ti) ||
		all_decided(pl, ti))
	{
		r->u_state = 2;
		return -1;
	}
	r->u_state = 1;
	check_stack_depth();
	initStringInfo(&cond);
	append_undecided(pl, &cond, alias, ti, list_length(r->seed_edges), NULL, &deps);
	Assert(strncmp(cond.data, " AND ", 5) == 0);
	initStringInfo(&q);
	appendStringInfoString(&q, "SELECT ");
	subset_append_cols(&q, alias, &t->pk);
	appendStringInfo(&q, " FROM %s WHERE %s", subset_relation_sql(t), cond.data + 5);
	r->uset = planner_add_set(pl, "u", ti, q.data, false, deps,
							  "rows no tenant's rows decide: no arm's key names a tenant's row");
	r->u_state = 2;
	return r->uset;
}

/*
 * append_undecided_before
 *		Arms have an order (subset_seeds.c's add_other_arms): the path's
 *		first, then the others.  A row is chosen through arm n only when no
 *		earlier arm decides it: the earlier arm's foreign key is NULL (or,
 *		polymorphic, its type names another table).  So a row whose first
 *		foreign key points at another tenant's row is that tenant's, even if
 *		a later key points at ours; one whose first key points at a row of
 *		nobody's (undecided_set) is decided by the later ones.  Appends
 *		" AND <not decided>" for every arm before arm n of table ti that is
 *		not of n's polymorphic group.
 */
static void
append_undecided_before(Planner *pl, StringInfo buf, const char *alias,
						int ti, int n)
{
	append_undecided(pl, buf, alias, ti, n,
					 &pl->cfg->edges[list_nth_int(pl->rel[ti].seed_edges, n)],
					 &pl->rel[ti].seed_deps);
}

/*
 * append_undecided
 *		Appends " AND <not decided>" for each of the first n arms of table
 *		ti that is not of e's polymorphic group (e may be NULL: every one of
 *		them): its key NULL, its type another table's, or its key naming a
 *		row of its parent's undecided_set, which is added to *deps.
 */
static void
append_undecided(Planner *pl, StringInfo buf, const char *alias, int ti, int n,
				 SubsetEdge *e, List **deps)
{
	SubsetConfig *cfg = pl->cfg;
	int			i,
				k;

	for (i = 0; i < n; i++)
	{
		SubsetEdge *a = &cfg->edges[list_nth_int(pl->rel[ti].seed_edges, i)];

		if (e != NULL && SubsetEdgeIsPolymorphic(a) && SubsetEdgeIsPolymorphic(e) &&
			a->type_col.attnums[0] == e->type_col.attnums[0])
			continue;
		appendStringInfoString(buf, " AND (");
		for (k = 0; k < a->fk.n; k++)
			appendStringInfo(buf, "%s%s.%s IS NULL", k ? " OR " : "", alias,
							 quote_identifier(a->fk.names[k]));
		if (SubsetEdgeIsPolymorphic(a))
		{
			appendStringInfo(buf, " OR %s.%s IS NULL OR NOT (", alias,
							 quote_identifier(a->type_col.names[0]));
			planner_append_type_cond(buf, alias, a);
			appendStringInfoChar(buf, ')');
		}
		if (!SubsetEdgeIsSelf(a) &&
			planner_cols_equal(&a->ref, &cfg->tables[a->parent].pk))
		{
			int			u = undecided_set(pl, a->parent);

			if (u >= 0)
			{
				SubsetSet  *set = planner_set(pl, u);
				StringInfoData sub;

				initStringInfo(&sub);
				appendStringInfoString(&sub, "SELECT ");
				subset_append_cols(&sub, set->name, &a->ref);
				appendStringInfo(&sub, " FROM %s", set->name);
				appendStringInfoString(buf, " OR ");
				subset_append_match(buf, alias, &a->fk, sub.data, &a->ref);
				*deps = list_append_unique_int(*deps, u);
			}
		}
		appendStringInfoChar(buf, ')');
	}
}

/*
 * descends_by_self
 *		Does table ti take the descendants of its seed rows through a
 *		self-reference?  Tables on a belongs_to path or a cascade, with a key
 *		and a live self-reference: a row whose parent_id names a seed row,
 *		and that no arm of its own decides, is the tenant's as much as its
 *		parent is (a subgroup, a token that replaced one).  The target's rows
 *		are the ids named, and a scope column decides every row itself.
 */
static bool
descends_by_self(Planner *pl, int ti)
{
	SubsetConfig *cfg = pl->cfg;
	int			i;

	if ((pl->rel[ti].kind != SEED_PATH && pl->rel[ti].kind != SEED_CASCADE) ||
		cfg->tables[ti].pk.n == 0)
		return false;
	for (i = 0; i < cfg->nedges; i++)
	{
		SubsetEdge *e = &cfg->edges[i];

		if (e->child == ti && SubsetEdgeIsSelf(e) && planner_edge_live(pl, e) &&
			!e->deferred)
			return true;
	}
	return false;
}

/*
 * with_descendants
 *		Table ti's seed predicate pred (over its alias) widened by the rows
 *		below its rows through its self-references, recursively: a key match
 *		with
 *
 *			WITH RECURSIVE exwiw_d AS (SELECT <key, referenced columns>
 *			  FROM t WHERE pred
 *			UNION SELECT <the same of exwiw_c> FROM t AS exwiw_c JOIN exwiw_d
 *			  ON <a self-reference of exwiw_c names an exwiw_d row>
 *			  WHERE <no arm decides exwiw_c>) SELECT <key> FROM exwiw_d
 *
 *		UNION ends the walk on a cycle of rows.  A descendant that an arm of
 *		its own decides (its foreign key set) is that arm's, as in
 *		append_undecided_before.
 */
static char *
with_descendants(Planner *pl, int ti, const char *pred)
{
	SubsetConfig *cfg = pl->cfg;
	SubsetTable *t = &cfg->tables[ti];
	const char *alias = planner_alias(t);
	const char *relsql = subset_relation_sql(t);
	SubsetCols	cols = {0};
	StringInfoData q;
	StringInfoData r;
	bool		first = true;
	int			i,
				k;

	planner_cols_union(&cols, &t->pk);
	for (i = 0; i < cfg->nedges; i++)
	{
		SubsetEdge *e = &cfg->edges[i];

		if (e->child == ti && SubsetEdgeIsSelf(e) && planner_edge_live(pl, e) &&
			!e->deferred)
			planner_cols_union(&cols, &e->ref);
	}
	initStringInfo(&q);
	appendStringInfoString(&q, "WITH RECURSIVE exwiw_d AS (SELECT ");
	subset_append_cols(&q, alias, &cols);
	appendStringInfo(&q, " FROM %s WHERE %s UNION SELECT ", relsql, pred);
	subset_append_cols(&q, "exwiw_c", &cols);
	appendStringInfo(&q, " FROM %s AS exwiw_c JOIN exwiw_d ON ", relsql);
	for (i = 0; i < cfg->nedges; i++)
	{
		SubsetEdge *e = &cfg->edges[i];

		if (e->child != ti || !SubsetEdgeIsSelf(e) || !planner_edge_live(pl, e) ||
			e->deferred)
			continue;
		appendStringInfoString(&q, first ? "(" : " OR (");
		first = false;
		for (k = 0; k < e->fk.n; k++)
		{
			if (k > 0)
				appendStringInfoString(&q, " AND ");
			subset_append_eq(&q, psprintf("exwiw_c.%s", quote_identifier(e->fk.names[k])),
							 e->fk.typids[k],
							 psprintf("exwiw_d.%s", quote_identifier(e->ref.names[k])),
							 e->ref.typids[k]);
		}
		appendStringInfoChar(&q, ')');
	}
	appendStringInfoString(&q, " WHERE true");
	append_undecided(pl, &q, "exwiw_c", ti, list_length(pl->rel[ti].seed_edges), NULL,
					 &pl->rel[ti].seed_deps);
	appendStringInfoString(&q, ") SELECT ");
	subset_append_cols(&q, "exwiw_d", &t->pk);
	appendStringInfoString(&q, " FROM exwiw_d");
	initStringInfo(&r);
	subset_append_match(&r, alias, &t->pk, q.data, &t->pk);
	return r.data;
}

/*
 * planner_build_seed
 *		Table ti's seed predicate, and its seed-key set when someone reads
 *		it, after those of the tables it depends on (recursively, once).
 */
void
planner_build_seed(Planner *pl, int ti)
{
	SubsetConfig *cfg = pl->cfg;
	SubsetTable *t = &cfg->tables[ti];
	const char *alias = planner_alias(t);
	const char *relsql = subset_relation_sql(t);
	StringInfoData s;
	ListCell   *lc;
	char	   *rule = NULL;

	if (pl->rel[ti].building == 2 || pl->rel[ti].kind == SEED_NONE)
		return;
	if (pl->rel[ti].building == 1)
		planner_cycle_error(pl, ti);
	pl->rel[ti].building = 1;
	planner_enter(pl, ti);
	check_stack_depth();
	initStringInfo(&s);

	switch (pl->rel[ti].kind)
	{
		case SEED_TARGET:
			appendStringInfoString(&s, ids_predicate(t, &t->pk, pl->rel[ti].ids_lits));
			rule = "seed: the target rows";
			break;
		case SEED_DIRECT:
			appendStringInfoString(&s, ids_predicate(t, &t->scope_col, pl->rel[ti].ids_lits));
			rule = "seed: rows with the scope values";
			break;
		case SEED_PATH:
		case SEED_CASCADE:
			{
				List	   *parts = NIL;

				foreach(lc, pl->rel[ti].seed_edges)
				{
					SubsetEdge *e = &cfg->edges[lfirst_int(lc)];
					StringInfoData p;
					int			setno;

					planner_build_seed(pl, e->parent);
					initStringInfo(&p);
					if (list_length(pl->rel[ti].seed_edges) == 1 &&
						constant_parent(pl, e))
					{
						/* the ids themselves: a tenant query Citus can route */
						SubsetTable *pt = &cfg->tables[e->parent];

						if (e->fk.n == 1)
							subset_append_eq(&p, psprintf("%s.%s", alias, quote_identifier(e->fk.names[0])),
											 e->fk.typids[0],
											 psprintf("ANY (%s)", pl->rel[e->parent].ids_lits[0]),
											 e->ref.typids[0]);
						else
							subset_append_match(&p, alias, &e->fk,
												ids_subquery(pl->rel[e->parent].ids_lits, e->fk.n),
												pl->rel[e->parent].kind == SEED_TARGET ? &pt->pk : &pt->scope_col);
						if (SubsetEdgeIsPolymorphic(e))
						{
							appendStringInfoString(&p, " AND ");
							planner_append_type_cond(&p, alias, e);
						}
						parts = lappend(parts, p.data);
						warn_unindexed(t, e);
						continue;
					}
					subset_append_match(&p, alias, &e->fk, arm_subquery(pl, e, &setno), &e->ref);
					if (SubsetEdgeIsPolymorphic(e))
					{
						appendStringInfoString(&p, " AND ");
						planner_append_type_cond(&p, alias, e);
					}
					append_undecided_before(pl, &p, alias, ti, foreach_current_index(lc));
					parts = lappend(parts, p.data);
					pl->rel[ti].seed_deps = list_append_unique_int(pl->rel[ti].seed_deps, setno);
					warn_unindexed(t, e);
				}
				if (list_length(parts) == 1 && !descends_by_self(pl, ti) &&
					!constant_parent(pl, &cfg->edges[linitial_int(pl->rel[ti].seed_edges)]))
					seed_as_join(pl, ti, &cfg->edges[linitial_int(pl->rel[ti].seed_edges)]);
				if (list_length(parts) == 1 || t->pk.n == 0)
				{
					foreach(lc, parts)
						appendStringInfo(&s, "%s%s%s%s", foreach_current_index(lc) ? " OR " : "",
										 list_length(parts) > 1 ? "(" : "",
										 (char *) lfirst(lc), list_length(parts) > 1 ? ")" : "");
				}
				else
				{
					/* a union of the arms, each a semi-join by key */
					StringInfoData keys;

					initStringInfo(&keys);
					foreach(lc, parts)
					{
						if (foreach_current_index(lc) > 0)
							appendStringInfoString(&keys, " UNION ALL ");
						appendStringInfoString(&keys, "SELECT ");
						subset_append_cols(&keys, alias, &t->pk);
						appendStringInfo(&keys, " FROM %s WHERE %s", relsql, (char *) lfirst(lc));
					}
					subset_append_match(&s, alias, &t->pk, keys.data, &t->pk);
				}
				rule = pl->rel[ti].kind == SEED_PATH ? "seed: rows on the belongs_to path" :
					"seed: rows of the parent with selected rows";
				if (descends_by_self(pl, ti))
				{
					char	   *p = with_descendants(pl, ti, s.data);

					resetStringInfo(&s);
					appendStringInfoString(&s, p);
					rule = pl->rel[ti].kind == SEED_PATH ?
						"seed: rows on the belongs_to path, and the rows below them (self-reference)" :
						"seed: rows of the parent with selected rows, and the rows below them (self-reference)";
				}
				break;
			}
		case SEED_REVERSE:
			{
				StringInfoData vals;

				initStringInfo(&vals);
				foreach(lc, pl->rel[ti].rev_arms)
				{
					SubsetReverseArm *arm = lfirst(lc);
					SubsetSet  *set;

					planner_build_seed(pl, arm->table);
					set = planner_set(pl, pl->rel[arm->table].sset);
					if (vals.len > 0)
						appendStringInfoString(&vals, " UNION ");
					appendStringInfo(&vals, "SELECT %s.%s FROM %s WHERE %s.%s IS NOT NULL",
									 set->name, quote_identifier(arm->col.names[0]), set->name,
									 set->name, quote_identifier(arm->col.names[0]));
					pl->rel[ti].seed_deps = list_append_unique_int(pl->rel[ti].seed_deps,
																   pl->rel[arm->table].sset);
				}
				subset_append_match(&s, alias, &t->reverse_col, vals.data,
									&((SubsetReverseArm *) linitial(pl->rel[ti].rev_arms))->col);
				rule = "seed: values its reverse_scope arms hold";
				break;
			}
		case SEED_UNRELATED:
		case SEED_EXEMPT:
		case SEED_DECIDED:
		case SEED_FALLBACK:
			break;
		case SEED_NONE:
			Assert(false);
	}

	pl->rel[ti].seed = s.len > 0 ? with_filter(s.data, t->filter) :
		(t->filter ? with_filter(NULL, t->filter) : pstrdup("true"));
	if (pl->rel[ti].seed_from)
		pl->rel[ti].seed_where = (pl->rel[ti].seed_where || t->filter) ?
			with_filter(pl->rel[ti].seed_where, t->filter) : pstrdup("true");
	pl->rel[ti].seed_frag = (t->filter != NULL);

	if (pl->rel[ti].scols.n > 0)
	{
		pl->rel[ti].sset = planner_add_set(pl, "s", ti,
										   planner_seed_query(pl, ti, &pl->rel[ti].scols),
										   pl->rel[ti].seed_frag,
										   list_copy(pl->rel[ti].seed_deps),
										   rule ? rule : "seed: every row");
	}
	if (pl->rel[ti].batched)
		batch_seed(pl, ti);
	pl->rel[ti].building = 2;
	planner_leave(pl);
}

/*
 * planner_seed_query
 *		"SELECT <cols> FROM ... WHERE ...": the columns cols of the rows of
 *		table ti's seed (planner_build_seed has run), read from the seed's
 *		join (seed_from, seed_where) where it has one, else from the table
 *		under the seed's condition; the columns qualified by the table's
 *		alias, as the seed's condition names them.
 */
char *
planner_seed_query(Planner *pl, int ti, const SubsetCols *cols)
{
	SubsetTable *t = &pl->cfg->tables[ti];
	StringInfoData q;

	Assert(pl->rel[ti].seed != NULL);
	initStringInfo(&q);
	appendStringInfoString(&q, "SELECT ");
	subset_append_cols(&q, planner_alias(t), cols);
	if (pl->rel[ti].seed_from)
		appendStringInfo(&q, " FROM %s WHERE %s", pl->rel[ti].seed_from,
						 pl->rel[ti].seed_where);
	else
		appendStringInfo(&q, " FROM %s WHERE %s", subset_relation_sql(t),
						 pl->rel[ti].seed);
	return q.data;
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
 * arm_decides_all
 *		Does arm e decide every row of its table?  When it is not
 *		polymorphic and its columns are all NOT NULL (nn: subset_edge_not_null
 *		of e): each row references a parent through it, and a later arm takes
 *		only the rows whose earlier arms' keys are NULL
 *		(append_undecided_before).
 */
static bool
arm_decides_all(SubsetEdge *e, bool nn)
{
	return nn && !SubsetEdgeIsPolymorphic(e);
}

/*
 * all_decided
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
static bool
all_decided(Planner *pl, int ti)
{
	SubsetConfig *cfg = pl->cfg;
	SubsetTable *t = &cfg->tables[ti];
	PlannerRel *r = &pl->rel[ti];
	bool	   *seen;
	bool		result = false;
	int			i;

	if (r->somebodys >= 2)
		return r->somebodys == 2;
	if (r->somebodys == 1)
		return false;
	if (r->kind != SEED_PATH || t->filter != NULL || t->pk.n == 0 ||
		t->batch_table >= 0 || descends_by_self(pl, ti))
	{
		r->somebodys = 2;
		return true;
	}
	r->somebodys = 1;
	check_stack_depth();
	seen = palloc(sizeof(bool) * Max(pl->nt, 1));
	for (i = 0; i < cfg->nedges && !result; i++)
	{
		SubsetEdge *e = &cfg->edges[i];

		CHECK_FOR_INTERRUPTS();
		if (e->child != ti || SubsetEdgeIsSelf(e) || SubsetEdgeIsPolymorphic(e) ||
			!planner_edge_live(pl, e) || !SeedConstrains(pl->rel[e->parent].kind) ||
			!subset_edge_not_null(cfg, e))
			continue;
		if (!list_member_int(r->seed_edges, i))
		{
			memset(seen, 0, sizeof(bool) * pl->nt);
			if (seed_reaches(pl, e->parent, ti, seen))
				continue;
		}
		result = all_decided(pl, e->parent);
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

			if (arm_decides_all(a, subset_edge_not_null(cfg, a)) &&
				all_decided(pl, a->parent))
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
			if (arm_decides_all(e, nn[i]) && all_decided(pl, e->parent))
				pl->rel[e->child].all_arm = cand[i];
		}
	}
	pfree(cand);
	pfree(nn);
	pfree(seen);
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

	decide_fallbacks(pl);

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
	}
	for (i = 0; i < pl->nt; i++)
		if (!cfg->tables[i].ignore && cfg->tables[i].batch_table >= 0)
			check_batch(pl, i);
}

/*
 * planner_ids_query
 *		The query that returns the target ids that match no row, for a
 *		NOTICE at export; NULL when there is no target or no id.
 */
char *
planner_ids_query(Planner *pl)
{
	SubsetPlan *plan = pl->plan;
	SubsetTable *tt;
	StringInfoData q;
	int			k;

	if (pl->scope_mode || plan->target < 0 || pl->target_nids == 0)
		return NULL;
	tt = &pl->cfg->tables[plan->target];
	initStringInfo(&q);
	appendStringInfoString(&q, "SELECT ");
	for (k = 0; k < tt->pk.n; k++)
		appendStringInfo(&q, "%sCAST(exwiw_id.c%d AS pg_catalog.text)", k ? ", " : "", k + 1);
	appendStringInfo(&q, " FROM (%s) AS exwiw_id(",
					 ids_subquery(pl->rel[plan->target].ids_lits, tt->pk.n));
	for (k = 0; k < tt->pk.n; k++)
		appendStringInfo(&q, "%sc%d", k ? ", " : "", k + 1);

	/*
	 * An anti-join with the target's rows among the ids (not a correlated NOT
	 * EXISTS, which Citus cannot plan next to a function in FROM).
	 */
	appendStringInfoString(&q, ") LEFT JOIN (SELECT ");
	for (k = 0; k < tt->pk.n; k++)
		appendStringInfo(&q, "%s%s.%s AS exwiw_key%d", k ? ", " : "",
						 planner_alias(tt), quote_identifier(tt->pk.names[k]), k + 1);
	appendStringInfo(&q, " FROM %s WHERE %s) AS exwiw_t ON ", subset_relation_sql(tt),
					 ids_predicate(tt, &tt->pk, pl->rel[plan->target].ids_lits));
	for (k = 0; k < tt->pk.n; k++)
	{
		if (k > 0)
			appendStringInfoString(&q, " AND ");
		subset_append_eq(&q, psprintf("exwiw_t.exwiw_key%d", k + 1),
						 tt->pk.typids[k], psprintf("exwiw_id.c%d", k + 1),
						 tt->pk.typids[k]);
	}
	appendStringInfoString(&q, " WHERE exwiw_t.exwiw_key1 IS NULL");
	return q.data;
}
