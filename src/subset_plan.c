/*-------------------------------------------------------------------------
 *
 * subset_plan.c
 *	  Which rows a subset export writes, as row sets and queries;
 *	  exwiw_plan().
 *
 *	  exwiw_plan(target_table text, ids text[], config jsonb DEFAULT NULL)
 *		RETURNS TABLE(step int, seq int, table_name text, output text,
 *					  rule text, query text)
 *
 * The rows of each table:
 *
 *	- the target's rows, by primary key (ids cast to the key's exact type);
 *	- the "seed" of a table with a belongs_to path to the target (the
 *	  shortest, ties broken by the names of child, parent and columns): its
 *	  rows whose foreign key is in the parent's seed, narrowed by the
 *	  table's filter;
 *	- a table related to nothing (not connected to the target through any
 *	  belongs_to) in full, narrowed by its filter;
 *	- closure: every row that an exported row references, whatever any
 *	  filter says, so that every foreign key of the export points into the
 *	  export; and, in a self-referencing table, the ancestors of its rows.
 *
 * The plan is a list of row sets, each computed once by one query into a
 * tuplestore that later queries read as an ephemeral named relation:
 *
 *	exwiw_s_N	keys of table N's seed (what its children's seeds match)
 *	exwiw_x_N	key columns of rows of N added by closure
 *	exwiw_f_N	key columns of all rows of N (when a parent or the
 *				recursion over a self-reference needs them)
 *
 * where N is the table's position in processing order.  Seeds are computed
 * parents first, closure children first, then one extraction query per
 * table reads its rows in load order.  Each query names only the sets it
 * reads directly, so planning and running grow linearly with the number of
 * tables.
 *
 *-------------------------------------------------------------------------
 */
#include "subset.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "catalog/pg_index.h"
#include "catalog/index.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

PG_FUNCTION_INFO_V1(exwiw_plan);

/* Planner working state. */
typedef struct Planner
{
	const char *funcname;
	SubsetConfig *cfg;
	SubsetPlan *plan;
	int			nt;
	int		   *pos;			/* table -> position in order, -1 ignored */
	int		   *dist;			/* belongs_to distance from target, -1 */
	int		   *path;			/* table -> its path edge, -1 */
	bool	   *comp;			/* connected to the target */
	char	  **seed;			/* seed predicate, or NULL */
	bool	   *seed_frag;		/* seed holds the table's filter */
	List	  **seed_deps;
	bool	   *may;			/* can have rows */
	bool	   *selfref;		/* has a (non-broken) self-reference */
	bool	   *need_f;			/* exwiw_f is read by someone */
	SubsetCols *fcols;			/* columns of exwiw_x/exwiw_f rows */
	SubsetCols *scols;			/* columns of exwiw_s rows */
	int		   *sset;			/* set index of exwiw_s, or -1 */
	int		   *xset;
	int		   *fset;
	char	  **pred;			/* predicate of all rows, or NULL: none */
	bool	   *pred_frag;
	List	  **pred_deps;
	List	   *sets;			/* SubsetSet * */
} Planner;

/*
 * cols_union
 *		Columns of a followed by those of b that are not in a, in attnum
 *		order.  Allocated fresh.
 */
static void
cols_union(SubsetCols *dst, const SubsetCols *b)
{
	int			n = dst->n + b->n;
	int			i,
				j,
				k;
	SubsetCols	r;

	r.names = palloc(sizeof(char *) * Max(n, 1));
	r.attnums = palloc(sizeof(AttrNumber) * Max(n, 1));
	r.typids = palloc(sizeof(Oid) * Max(n, 1));
	r.typmods = palloc(sizeof(int32) * Max(n, 1));
	r.collids = palloc(sizeof(Oid) * Max(n, 1));
	r.n = 0;
	for (k = 0; k < 2; k++)
	{
		const SubsetCols *s = k == 0 ? dst : b;

		for (i = 0; i < s->n; i++)
		{
			bool		dup = false;

			for (j = 0; j < r.n; j++)
				dup |= (r.attnums[j] == s->attnums[i]);
			if (dup)
				continue;
			/* insertion in attnum order */
			for (j = r.n; j > 0 && r.attnums[j - 1] > s->attnums[i]; j--)
			{
				r.names[j] = r.names[j - 1];
				r.attnums[j] = r.attnums[j - 1];
				r.typids[j] = r.typids[j - 1];
				r.typmods[j] = r.typmods[j - 1];
				r.collids[j] = r.collids[j - 1];
			}
			r.names[j] = s->names[i];
			r.attnums[j] = s->attnums[i];
			r.typids[j] = s->typids[i];
			r.typmods[j] = s->typmods[i];
			r.collids[j] = s->collids[i];
			r.n++;
		}
	}
	*dst = r;
}

static bool
cols_equal(const SubsetCols *a, const SubsetCols *b)
{
	int			i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (a->attnums[i] != b->attnums[i])
			return false;
	return true;
}

/* The implicit alias of a table in its FROM item: its own name. */
static const char *
alias_of(SubsetTable *t)
{
	return quote_identifier(t->relname);
}

/*
 * add_set
 *		Append a row set to the plan and return its index.
 */
static int
add_set(Planner *pl, const char *prefix, int table, char *query, bool frag,
		List *deps, const char *rule)
{
	SubsetSet  *s = palloc0(sizeof(SubsetSet));

	s->name = psprintf("exwiw_%s_%d", prefix, pl->pos[table] + 1);
	s->table = table;
	s->query = query;
	s->fragment = frag;
	s->deps = deps;
	s->rule = pstrdup(rule);
	pl->sets = lappend(pl->sets, s);
	return list_length(pl->sets) - 1;
}

static SubsetSet *
set_at(Planner *pl, int i)
{
	return (SubsetSet *) list_nth(pl->sets, i);
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

/* A usable edge: between tables of this run, not broken. */
static bool
edge_live(Planner *pl, SubsetEdge *e)
{
	return !e->broken && !pl->cfg->tables[e->child].ignore &&
		!pl->cfg->tables[e->parent].ignore;
}

/*
 * find_paths
 *		Breadth-first from the target over belongs_tos, reversed: every
 *		table's shortest belongs_to path to the target, and the target's
 *		connected component (edges in either direction).
 */
static void
find_paths(Planner *pl)
{
	SubsetConfig *cfg = pl->cfg;
	int		   *cand = palloc(sizeof(int) * Max(cfg->nedges, 1));
	int			lvl = 0;
	bool		changed = true;
	int			i;
	bool		grew;

	pl->dist[pl->plan->target] = 0;
	while (changed)
	{
		int			n = 0;

		CHECK_FOR_INTERRUPTS();
		changed = false;
		for (i = 0; i < cfg->nedges; i++)
		{
			SubsetEdge *e = &cfg->edges[i];

			if (edge_live(pl, e) && !SubsetEdgeIsSelf(e) &&
				pl->dist[e->parent] == lvl && pl->dist[e->child] < 0)
				cand[n++] = i;
		}
		cmp_cfg = cfg;
		qsort(cand, n, sizeof(int), edge_order_cmp);
		for (i = 0; i < n; i++)
		{
			SubsetEdge *e = &cfg->edges[cand[i]];

			if (pl->dist[e->child] >= 0)
				continue;
			pl->dist[e->child] = lvl + 1;
			pl->path[e->child] = cand[i];
			changed = true;
		}
		lvl++;
	}

	/* the component: every edge, in either direction, until no growth */
	pl->comp[pl->plan->target] = true;
	do
	{
		grew = false;
		for (i = 0; i < cfg->nedges; i++)
		{
			SubsetEdge *e = &cfg->edges[i];

			if (cfg->tables[e->child].ignore || cfg->tables[e->parent].ignore)
				continue;
			if (pl->comp[e->child] != pl->comp[e->parent])
			{
				pl->comp[e->child] = pl->comp[e->parent] = true;
				grew = true;
			}
		}
	} while (grew);
}

/*
 * ids_arrays
 *		The target ids, checked against the key's exact types (with their
 *		modifiers: too long for character(2) is an error, not a silent
 *		truncation), as one array literal per key column, in canonical
 *		text.  For a key of one column ids is one-dimensional; for a key of
 *		n columns, two-dimensional, n values per id.  Sets *nids.
 */
static char **
ids_arrays(Planner *pl, SubsetTable *t, ArrayType *ids, int *nids)
{
	int			nk = t->pk.n;
	Datum	   *elems;
	bool	   *nulls;
	int			nelems;
	int			n,
				i,
				k;
	char	  **lits = palloc(sizeof(char *) * nk);
	StringInfoData *bufs = palloc(sizeof(StringInfoData) * nk);
	FmgrInfo   *in = palloc(sizeof(FmgrInfo) * nk);
	FmgrInfo   *out = palloc(sizeof(FmgrInfo) * nk);
	Oid		   *ioparam = palloc(sizeof(Oid) * nk);
	MemoryContext cxt = CurrentMemoryContext;

	deconstruct_array(ids, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &nelems);
	if (nelems == 0)
		n = 0;
	else if (nk == 1 && ARR_NDIM(ids) == 1)
		n = nelems;
	else if (nk > 1 && ARR_NDIM(ids) == 2 && ARR_DIMS(ids)[1] == nk)
		n = ARR_DIMS(ids)[0];
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ids do not fit the primary key of \"%s\", which has %d column%s",
						t->name, nk, nk == 1 ? "" : "s"),
				 nk == 1 ?
				 errhint("Pass a one-dimensional array, for example '{1,2}'.") :
				 errhint("Pass one array of %d values per id, for example ARRAY[['1','a'],['2','b']].", nk)));

	for (k = 0; k < nk; k++)
	{
		Oid			infunc,
					outfunc;
		bool		isvarlena;

		getTypeInputInfo(t->pk.typids[k], &infunc, &ioparam[k]);
		fmgr_info(infunc, &in[k]);
		getTypeOutputInfo(t->pk.typids[k], &outfunc, &isvarlena);
		fmgr_info(outfunc, &out[k]);
		initStringInfo(&bufs[k]);
		appendStringInfoChar(&bufs[k], '{');
	}
	for (i = 0; i < n; i++)
	{
		for (k = 0; k < nk; k++)
		{
			int			j = i * nk + k;
			char	   *s;
			Datum		d;

			if (nulls[j])
				ereport(ERROR,
						(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						 errmsg("ids must not contain NULL"),
						 errdetail("A primary key is never NULL.")));
			s = TextDatumGetCString(elems[j]);
			PG_TRY();
			{
				d = InputFunctionCall(&in[k], s, ioparam[k], t->pk.typmods[k]);
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
								s, t->pk.names[k], t->name,
								format_type_with_typemod(t->pk.typids[k], t->pk.typmods[k])),
						 errdetail("%s", ed->message)));
			}
			PG_END_TRY();
			/* an element of an array literal: double-quoted, \ and " escaped */
			{
				char	   *c = OutputFunctionCall(&out[k], d);

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
	}
	for (k = 0; k < nk; k++)
	{
		StringInfoData l;

		appendStringInfoChar(&bufs[k], '}');
		initStringInfo(&l);
		appendStringInfoString(&l, "CAST(");
		subset_append_literal(&l, bufs[k].data);
		appendStringInfo(&l, " AS %s[])",
						 subset_type_name(t->pk.typids[k], t->pk.typmods[k]));
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
 * warn_unindexed
 *		NOTICE when a path edge's foreign key has no index that starts with
 *		its columns: selecting the child's rows then reads the whole table.
 */
static void
warn_unindexed(SubsetTable *t, SubsetEdge *e)
{
	Relation	rel = relation_open(t->relid, AccessShareLock);
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;
	bool		found = false;
	StringInfoData cols;

	foreach(lc, indexes)
	{
		Relation	ir = index_open(lfirst_oid(lc), AccessShareLock);
		int			nkey = IndexRelationGetNumberOfKeyAttributes(ir);
		int			i,
					j;
		int			covered = 0;

		/* the leading index columns are the foreign key's, in any order */
		for (i = 0; i < Min(nkey, e->fk.n); i++)
		{
			AttrNumber	a = ir->rd_index->indkey.values[i];
			bool		in = false;

			for (j = 0; j < e->fk.n; j++)
				in |= (e->fk.attnums[j] == a);
			if (!in)
				break;
			covered++;
		}
		if (covered == e->fk.n &&
			heap_attisnull(ir->rd_indextuple, Anum_pg_index_indpred, NULL))
			found = true;
		index_close(ir, AccessShareLock);
		if (found)
			break;
	}
	relation_close(rel, AccessShareLock);
	if (found)
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
 * plan_seeds
 *		Seed predicates, parents first, and the exwiw_s sets that children
 *		read.
 */
static void
plan_seeds(Planner *pl, char **idlits)
{
	SubsetConfig *cfg = pl->cfg;
	SubsetPlan *plan = pl->plan;
	int			o,
				i;

	/* which columns each seed set must carry: the path edges' refs */
	for (i = 0; i < pl->nt; i++)
		if (pl->path[i] >= 0)
			cols_union(&pl->scols[cfg->edges[pl->path[i]].parent],
					   &cfg->edges[pl->path[i]].ref);

	for (o = 0; o < plan->norder; o++)
	{
		int			ti = plan->order[o];
		SubsetTable *t = &cfg->tables[ti];
		char	   *alias = (char *) alias_of(t);
		StringInfoData s;

		CHECK_FOR_INTERRUPTS();
		if (t->ignore)
			continue;
		initStringInfo(&s);
		if (ti == plan->target)
		{
			if (t->pk.n == 1)
			{
				char	   *l = psprintf("%s.%s", alias, quote_identifier(t->pk.names[0]));

				subset_append_eq(&s, l, t->pk.typids[0],
								 psprintf("ANY (%s)", idlits[0]), t->pk.typids[0]);
			}
			else
				subset_append_match(&s, alias, &t->pk, ids_subquery(idlits, t->pk.n),
									&t->pk);
			pl->seed[ti] = with_filter(s.data, t->filter);
		}
		else if (pl->path[ti] >= 0)
		{
			SubsetEdge *e = &cfg->edges[pl->path[ti]];
			int			ps = pl->sset[e->parent];
			SubsetSet  *set = set_at(pl, ps);
			StringInfoData sub;

			Assert(ps >= 0);
			initStringInfo(&sub);
			appendStringInfoString(&sub, "SELECT ");
			subset_append_cols(&sub, set->name, &e->ref);
			appendStringInfo(&sub, " FROM %s", set->name);
			subset_append_match(&s, alias, &e->fk, sub.data, &e->ref);
			pl->seed[ti] = with_filter(s.data, t->filter);
			pl->seed_deps[ti] = list_make1_int(ps);
			warn_unindexed(t, e);
		}
		else if (!pl->comp[ti])
			pl->seed[ti] = t->filter ? with_filter(NULL, t->filter) : pstrdup("true");
		pl->seed_frag[ti] = (pl->seed[ti] != NULL && t->filter != NULL);

		if (pl->seed[ti] != NULL && pl->scols[ti].n > 0)
		{
			StringInfoData q;

			initStringInfo(&q);
			appendStringInfoString(&q, "SELECT ");
			subset_append_cols(&q, alias, &pl->scols[ti]);
			appendStringInfo(&q, " FROM %s WHERE %s",
							 subset_relation_sql(t), pl->seed[ti]);
			pl->sset[ti] = add_set(pl, "s", ti, q.data, pl->seed_frag[ti],
								   list_copy(pl->seed_deps[ti]),
								   ti == plan->target ? "seed: the target rows" :
								   "seed: rows on the belongs_to path");
		}
	}
}

/* One group of closure parts: rows of t whose columns ref are in parts. */
typedef struct ClosureGroup
{
	SubsetCols *ref;
	SubsetCols *subcols;		/* types of the parts' columns */
	StringInfoData parts;		/* "SELECT ... UNION ALL SELECT ..." */
	List	   *deps;
} ClosureGroup;

/*
 * plan_closure
 *		For every table, children first: the rows added by closure
 *		(exwiw_x), the predicate of all its rows, and exwiw_f when a parent
 *		or a self-reference reads it.
 */
static void
plan_closure(Planner *pl)
{
	SubsetConfig *cfg = pl->cfg;
	SubsetPlan *plan = pl->plan;
	int			o,
				i;

	/* which tables' exwiw_f someone reads; columns of exwiw_x/exwiw_f */
	for (i = 0; i < cfg->nedges; i++)
	{
		SubsetEdge *e = &cfg->edges[i];

		if (!edge_live(pl, e))
			continue;
		cols_union(&pl->fcols[e->child], &e->fk);
		if (SubsetEdgeIsSelf(e))
		{
			cols_union(&pl->fcols[e->child], &e->ref);
			pl->selfref[e->child] = true;
		}
		else if (pl->path[e->child] != i)
			pl->need_f[e->child] = true;
	}
	for (i = 0; i < pl->nt; i++)
	{
		cols_union(&pl->fcols[i], &cfg->tables[i].pk);
		if (pl->selfref[i])
			pl->need_f[i] = true;
	}

	/* which tables can have rows at all, children first */
	for (o = plan->norder - 1; o >= 0; o--)
	{
		int			ti = plan->order[o];

		if (cfg->tables[ti].ignore)
			continue;
		pl->may[ti] = (pl->seed[ti] != NULL);
		for (i = 0; i < cfg->nedges && !pl->may[ti]; i++)
		{
			SubsetEdge *e = &cfg->edges[i];

			if (edge_live(pl, e) && !SubsetEdgeIsSelf(e) && e->parent == ti &&
				pl->may[e->child])
				pl->may[ti] = true;
		}
	}

	for (o = plan->norder - 1; o >= 0; o--)
	{
		int			ti = plan->order[o];
		SubsetTable *t = &cfg->tables[ti];
		const char *alias = alias_of(t);
		const char *relsql = subset_relation_sql(t);
		List	   *groups = NIL;
		ListCell   *lc;
		StringInfoData q;
		List	   *xdeps = NIL;

		CHECK_FOR_INTERRUPTS();
		if (!pl->may[ti])
			continue;

		/* the parts: what each child's rows reference */
		for (i = 0; i < cfg->nedges; i++)
		{
			SubsetEdge *e = &cfg->edges[i];
			int			src;
			ClosureGroup *g = NULL;

			if (!edge_live(pl, e) || SubsetEdgeIsSelf(e) || e->parent != ti ||
				!pl->may[e->child])
				continue;
			/*
			 * Through its path edge a child's seed rows reference seed rows
			 * of ours, which we have anyway: only its added rows count.
			 */
			if (pl->path[e->child] == i)
				src = pl->selfref[e->child] ? pl->fset[e->child] : pl->xset[e->child];
			else
				src = pl->fset[e->child];
			if (src < 0)
				continue;
			foreach(lc, groups)
				if (cols_equal(((ClosureGroup *) lfirst(lc))->ref, &e->ref))
					g = lfirst(lc);
			if (g == NULL)
			{
				g = palloc0(sizeof(ClosureGroup));
				g->ref = &e->ref;
				g->subcols = &e->fk;
				initStringInfo(&g->parts);
				groups = lappend(groups, g);
			}
			else
				appendStringInfoString(&g->parts, " UNION ALL ");
			appendStringInfoString(&g->parts, "SELECT ");
			subset_append_cols(&g->parts, set_at(pl, src)->name, &e->fk);
			appendStringInfo(&g->parts, " FROM %s", set_at(pl, src)->name);
			g->deps = list_append_unique_int(g->deps, src);
			xdeps = list_append_unique_int(xdeps, src);
		}

		if (groups != NIL)
		{
			StringInfoData cond;

			initStringInfo(&cond);
			if (t->pk.n > 0)
			{
				StringInfoData keys;

				initStringInfo(&keys);
				foreach(lc, groups)
				{
					ClosureGroup *g = lfirst(lc);

					if (keys.len > 0)
						appendStringInfoString(&keys, " UNION ALL ");
					if (cols_equal(g->ref, &t->pk))
						appendStringInfoString(&keys, g->parts.data);
					else
					{
						appendStringInfoString(&keys, "SELECT ");
						subset_append_cols(&keys, "exwiw_u", &t->pk);
						appendStringInfo(&keys, " FROM %s AS exwiw_u WHERE ", relsql);
						subset_append_match(&keys, "exwiw_u", g->ref, g->parts.data,
											g->subcols);
					}
				}
				/* the keys come out with the types of the key, or of the foreign keys */
				subset_append_match(&cond, alias, &t->pk, keys.data,
									list_length(groups) == 1 &&
									cols_equal(((ClosureGroup *) linitial(groups))->ref, &t->pk) ?
									((ClosureGroup *) linitial(groups))->subcols : &t->pk);
			}
			else
			{
				foreach(lc, groups)
				{
					ClosureGroup *g = lfirst(lc);

					if (cond.len > 0)
						appendStringInfoString(&cond, " OR ");
					subset_append_match(&cond, alias, g->ref, g->parts.data, g->subcols);
				}
			}
			initStringInfo(&q);
			appendStringInfoString(&q, "SELECT ");
			subset_append_cols(&q, alias, &pl->fcols[ti]);
			appendStringInfo(&q, " FROM %s WHERE %s", relsql, cond.data);
			pl->xset[ti] = add_set(pl, "x", ti, q.data, false, xdeps,
								   "closure: rows that exported rows reference");

			/* all rows: the seed, and the rows added */
			if (t->pk.n > 0)
			{
				StringInfoData keys;
				StringInfoData p;

				initStringInfo(&keys);
				if (pl->seed[ti])
				{
					appendStringInfoString(&keys, "SELECT ");
					subset_append_cols(&keys, alias, &t->pk);
					appendStringInfo(&keys, " FROM %s WHERE %s UNION ALL ",
									 relsql, pl->seed[ti]);
				}
				appendStringInfoString(&keys, "SELECT ");
				subset_append_cols(&keys, set_at(pl, pl->xset[ti])->name, &t->pk);
				appendStringInfo(&keys, " FROM %s", set_at(pl, pl->xset[ti])->name);
				initStringInfo(&p);
				subset_append_match(&p, alias, &t->pk, keys.data, &t->pk);
				pl->pred[ti] = p.data;
			}
			else
				pl->pred[ti] = pl->seed[ti] ?
					psprintf("(%s) OR (%s)", pl->seed[ti], cond.data) :
					cond.data;
			pl->pred_deps[ti] = list_append_unique_int(list_copy(pl->seed_deps[ti]),
													   pl->xset[ti]);
			if (pl->seed[ti] && t->pk.n == 0)
				pl->pred_deps[ti] = list_concat_unique_int(pl->pred_deps[ti], xdeps);
		}
		else
		{
			pl->pred[ti] = pl->seed[ti];
			pl->pred_deps[ti] = list_copy(pl->seed_deps[ti]);
		}
		pl->pred_frag[ti] = pl->seed_frag[ti];

		/* exwiw_f: all rows' key columns, with ancestors when self-referencing */
		if (pl->need_f[ti])
		{
			initStringInfo(&q);
			if (pl->selfref[ti])
			{
				bool		first = true;

				appendStringInfoString(&q, "WITH RECURSIVE exwiw_r AS (SELECT ");
				subset_append_cols(&q, alias, &pl->fcols[ti]);
				appendStringInfo(&q, " FROM %s WHERE %s UNION SELECT ", relsql,
								 pl->pred[ti]);
				subset_append_cols(&q, "exwiw_p", &pl->fcols[ti]);
				appendStringInfo(&q, " FROM %s AS exwiw_p JOIN exwiw_r ON ", relsql);
				for (i = 0; i < cfg->nedges; i++)
				{
					SubsetEdge *e = &cfg->edges[i];
					int			k;

					if (!edge_live(pl, e) || !SubsetEdgeIsSelf(e) || e->child != ti)
						continue;
					appendStringInfoString(&q, first ? "(" : " OR (");
					first = false;
					for (k = 0; k < e->fk.n; k++)
					{
						if (k > 0)
							appendStringInfoString(&q, " AND ");
						subset_append_eq(&q,
										 psprintf("exwiw_p.%s", quote_identifier(e->ref.names[k])),
										 e->ref.typids[k],
										 psprintf("exwiw_r.%s", quote_identifier(e->fk.names[k])),
										 e->fk.typids[k]);
					}
					appendStringInfoChar(&q, ')');
				}
				appendStringInfoString(&q, ") SELECT * FROM exwiw_r");
			}
			else
			{
				appendStringInfoString(&q, "SELECT ");
				subset_append_cols(&q, alias, &pl->fcols[ti]);
				appendStringInfo(&q, " FROM %s WHERE %s", relsql, pl->pred[ti]);
			}
			pl->fset[ti] = add_set(pl, "f", ti, q.data, pl->pred_frag[ti],
								   list_copy(pl->pred_deps[ti]),
								   pl->selfref[ti] ?
								   "all rows, with their ancestors (self-reference)" :
								   "all rows");
		}
	}
}

/*
 * subset_select_list
 *		The extraction query's select list: the config's columns in order,
 *		masks applied.  A replace_with template is written as text, exactly
 *		as it comes out ({col} replaced by the row's value); NULL stays NULL.
 */
char *
subset_select_list(SubsetTable *t)
{
	StringInfoData s;
	const char *alias = alias_of(t);
	int			i;

	initStringInfo(&s);
	for (i = 0; i < t->ncols; i++)
	{
		SubsetColumn *c = &t->cols[i];
		const char *qc = quote_identifier(c->name);

		if (i > 0)
			appendStringInfoString(&s, ", ");
		if (c->raw_sql)
			appendStringInfo(&s, "(\n%s\n) AS %s", c->raw_sql, qc);
		else if (c->replace_with)
		{
			ListCell   *lc;

			/* CONCAT, as the client: a NULL reference gives "" */
			appendStringInfo(&s, "CASE WHEN %s.%s IS NULL THEN NULL ELSE pg_catalog.concat(",
							 alias, qc);
			foreach(lc, subset_template_parse(c->replace_with))
			{
				SubsetTemplatePart *part = lfirst(lc);

				if (foreach_current_index(lc) > 0)
					appendStringInfoString(&s, ", ");
				if (part->is_ref)
					appendStringInfo(&s, "%s.%s", alias, quote_identifier(part->text));
				else
				{
					appendStringInfoString(&s, "CAST(");
					subset_append_literal(&s, part->text);
					appendStringInfoString(&s, " AS pg_catalog.text)");
				}
			}
			appendStringInfo(&s, ") END AS %s", qc);
		}
		else
			appendStringInfo(&s, "%s.%s", alias, qc);
	}
	return s.data;
}

/* Does the table's select list hold a raw_sql fragment? */
static bool
select_has_fragment(SubsetTable *t)
{
	int			i;

	for (i = 0; i < t->ncols; i++)
		if (t->cols[i].raw_sql)
			return true;
	return false;
}

/*
 * plan_files
 *		One extraction query per table, in processing order.
 */
static void
plan_files(Planner *pl)
{
	SubsetConfig *cfg = pl->cfg;
	SubsetPlan *plan = pl->plan;
	int			o;

	plan->nfiles = 0;
	plan->files = palloc0(sizeof(SubsetFile) * Max(plan->norder, 1));
	for (o = 0; o < plan->norder; o++)
	{
		int			ti = plan->order[o];
		SubsetTable *t = &cfg->tables[ti];
		SubsetFile *f;
		const char *alias = alias_of(t);
		const char *relsql = subset_relation_sql(t);
		StringInfoData q;
		StringInfoData rule;
		char	   *where;

		CHECK_FOR_INTERRUPTS();
		/* an ignored table keeps its number, as in the client, but has no file */
		if (t->ignore)
			continue;
		f = &plan->files[plan->nfiles++];
		f->table = ti;
		f->seq = o + 1;
		f->filter_set = -1;
		initStringInfo(&rule);
		if (ti == plan->target)
			appendStringInfoString(&rule, "target: rows with the given primary keys");
		else if (pl->path[ti] >= 0)
		{
			SubsetEdge *e = &cfg->edges[pl->path[ti]];

			appendStringInfo(&rule, "belongs_to: %s.", t->name);
			if (e->fk.n > 1)
				appendStringInfoChar(&rule, '(');
			subset_append_cols(&rule, NULL, &e->fk);
			if (e->fk.n > 1)
				appendStringInfoChar(&rule, ')');
			appendStringInfo(&rule, " -> %s", cfg->tables[e->parent].name);
		}
		else if (!pl->comp[ti])
			appendStringInfoString(&rule, "unrelated to the target: every row");
		else if (pl->may[ti])
			appendStringInfoString(&rule, "referenced: only rows that exported rows reference");
		else
			appendStringInfoString(&rule, "none: nothing selects or references its rows");
		if (t->filter && pl->seed[ti])
			appendStringInfoString(&rule, ", narrowed by its filter");
		if (pl->xset[ti] >= 0 && pl->seed[ti])
			appendStringInfoString(&rule, ", plus rows that exported rows reference");
		if (pl->selfref[ti] && pl->may[ti])
			appendStringInfoString(&rule, ", plus ancestors (self-reference)");
		f->rule = rule.data;
		f->has_rows = pl->may[ti];

		if (!pl->may[ti])
		{
			where = "false";
			f->deps = NIL;
		}
		else if (pl->fset[ti] >= 0 && t->pk.n > 0)
		{
			StringInfoData w;
			SubsetSet  *fs = set_at(pl, pl->fset[ti]);
			StringInfoData sub;

			initStringInfo(&sub);
			appendStringInfoString(&sub, "SELECT ");
			subset_append_cols(&sub, fs->name, &t->pk);
			appendStringInfo(&sub, " FROM %s", fs->name);
			initStringInfo(&w);
			subset_append_match(&w, alias, &t->pk, sub.data, &t->pk);
			where = w.data;
			f->deps = list_make1_int(pl->fset[ti]);
		}
		else if (pl->fset[ti] >= 0)
		{
			/* no key: the rows themselves are the set's */
			where = pl->pred[ti];
			f->deps = list_copy(pl->pred_deps[ti]);
			f->fragment = pl->pred_frag[ti];
		}
		else
		{
			where = pl->pred[ti];
			f->deps = list_copy(pl->pred_deps[ti]);
			f->fragment = pl->pred_frag[ti];
		}
		f->fragment |= select_has_fragment(t);

		initStringInfo(&q);
		if (pl->selfref[ti] && pl->may[ti] && t->pk.n > 0)
		{
			SubsetSet  *fs = set_at(pl, pl->fset[ti]);
			int			i;

			/* rows numbered by key; $1 holds each row's depth (subset_run.c) */
			appendStringInfo(&q, "SELECT %s FROM (SELECT pg_catalog.row_number() OVER (ORDER BY ",
							 subset_select_list(t));
			subset_append_cols(&q, alias, &t->pk);
			appendStringInfo(&q, ") AS exwiw_i, %s.* FROM %s WHERE %s) AS %s ORDER BY $1[CAST(exwiw_i AS pg_catalog.int4)], ",
							 alias, relsql, where, alias);
			subset_append_cols(&q, alias, &t->pk);

			initStringInfo(&rule);
			appendStringInfoString(&rule, "WITH exwiw_n AS MATERIALIZED (SELECT pg_catalog.row_number() OVER (ORDER BY ");
			subset_append_cols(&rule, fs->name, &t->pk);
			appendStringInfo(&rule, ") AS exwiw_i, * FROM %s) ", fs->name);
			{
				bool		first = true;

				for (i = 0; i < cfg->nedges; i++)
				{
					SubsetEdge *e = &cfg->edges[i];
					int			k;

					if (!edge_live(pl, e) || !SubsetEdgeIsSelf(e) || e->child != ti)
						continue;
					if (!first)
						appendStringInfoString(&rule, " UNION ALL ");
					first = false;
					appendStringInfoString(&rule, "SELECT exwiw_c.exwiw_i, exwiw_p.exwiw_i FROM exwiw_n AS exwiw_c JOIN exwiw_n AS exwiw_p ON ");
					for (k = 0; k < e->fk.n; k++)
					{
						if (k > 0)
							appendStringInfoString(&rule, " AND ");
						subset_append_eq(&rule,
										 psprintf("exwiw_p.%s", quote_identifier(e->ref.names[k])),
										 e->ref.typids[k],
										 psprintf("exwiw_c.%s", quote_identifier(e->fk.names[k])),
										 e->fk.typids[k]);
					}
					appendStringInfoString(&rule, " WHERE exwiw_c.exwiw_i OPERATOR(pg_catalog.<>) exwiw_p.exwiw_i");
				}
			}
			f->depth_query = rule.data;
		}
		else
		{
			appendStringInfo(&q, "SELECT %s FROM %s WHERE %s ORDER BY ",
							 subset_select_list(t), relsql, where);
			if (t->pk.n > 0)
				subset_append_cols(&q, alias, &t->pk);
			else if (t->relkind == RELKIND_PARTITIONED_TABLE)
				appendStringInfo(&q, "%s.tableoid, %s.ctid", alias, alias);
			else
				appendStringInfo(&q, "%s.ctid", alias);
		}
		f->query = q.data;

		/*
		 * Rows the filter would have dropped: those that closure added (and,
		 * in a self-referencing table, the ancestors it added).
		 */
		if (t->filter && t->pk.n > 0 &&
			(pl->selfref[ti] ? pl->fset[ti] : pl->xset[ti]) >= 0)
		{
			SubsetSet  *xs = set_at(pl, pl->selfref[ti] ? pl->fset[ti] : pl->xset[ti]);
			StringInfoData sub;
			StringInfoData c;

			initStringInfo(&sub);
			appendStringInfoString(&sub, "SELECT ");
			subset_append_cols(&sub, xs->name, &t->pk);
			appendStringInfo(&sub, " FROM %s", xs->name);
			initStringInfo(&c);
			appendStringInfo(&c, "SELECT pg_catalog.count(*) FROM %s WHERE ", relsql);
			subset_append_match(&c, alias, &t->pk, sub.data, &t->pk);
			appendStringInfo(&c, " AND NOT COALESCE((\n%s\n), false)", t->filter);
			f->filter_set = pl->selfref[ti] ? pl->fset[ti] : pl->xset[ti];
			f->filter_query = c.data;
		}
	}
}

/*
 * mark_needed
 *		Mark set i and every set it reads, transitively, as needed.
 */
static void
mark_needed(SubsetPlan *plan, int i)
{
	ListCell   *lc;

	if (plan->sets[i].needed)
		return;
	plan->sets[i].needed = true;
	foreach(lc, plan->sets[i].deps)
		mark_needed(plan, lfirst_int(lc));
}

/*
 * subset_plan_keep_files
 *		Keep only the files numbered in files (an int4[] of file numbers),
 *		and only the row sets they read: the export writes part of its
 *		files, as a parallel client's worker does, and computes no more
 *		than those need.  Every number must be one of the plan's files.
 */
void
subset_plan_keep_files(SubsetPlan *plan, ArrayType *files)
{
	Datum	   *elems;
	bool	   *nulls;
	int			n,
				i,
				j,
				kept = 0;
	bool		target_kept = false;

	deconstruct_array(files, INT4OID, sizeof(int32), true, TYPALIGN_INT,
					  &elems, &nulls, &n);
	for (j = 0; j < n; j++)
	{
		bool		found = false;

		for (i = 0; i < plan->nfiles && !nulls[j]; i++)
			found |= (plan->files[i].seq == DatumGetInt32(elems[j]));
		if (!found)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 nulls[j] ? errmsg("files must not contain NULL") :
					 errmsg("file number %d is not in the plan", DatumGetInt32(elems[j])),
					 errhint("exwiw_plan() lists the file numbers (column seq).")));
	}
	for (i = 0; i < plan->nsets; i++)
		plan->sets[i].needed = false;
	for (i = 0; i < plan->nfiles; i++)
	{
		SubsetFile *f = &plan->files[i];
		bool		keep = false;
		ListCell   *lc;

		for (j = 0; j < n; j++)
			keep |= (f->seq == DatumGetInt32(elems[j]));
		if (!keep)
			continue;
		foreach(lc, f->deps)
			mark_needed(plan, lfirst_int(lc));
		if (f->filter_set >= 0)
			mark_needed(plan, f->filter_set);
		target_kept |= (f->table == plan->target);
		plan->files[kept++] = *f;
	}
	plan->nfiles = kept;
	/* the NOTICE about unmatched ids belongs to the target's file */
	if (!target_kept)
		plan->ids_query = NULL;
}

/*
 * subset_plan_name_files
 *		Name every file: insert-NNN-<table>.<ext>, NNN three digits or as
 *		many as the largest number needs, so that the names sort in load
 *		order.
 */
void
subset_plan_name_files(SubsetPlan *plan, const char *ext)
{
	int			width = 3;
	int			n;
	int			i;

	for (n = plan->norder; n >= 1000; n /= 10)
		width++;
	for (i = 0; i < plan->nfiles; i++)
		plan->files[i].file_name = exwiw_file_name(plan->files[i].seq, width,
												   plan->cfg->tables[plan->files[i].table].name,
												   ext);
}

/*
 * find_target
 *		The config index of the target table: by its config name, or by the
 *		relation the name means.
 */
static int
find_target(SubsetConfig *cfg, const char *target)
{
	int			i = subset_config_find(cfg, target);
	SubsetTable *t;

	if (i < 0)
	{
		Oid			relid = subset_resolve_name(target);

		for (i = 0; OidIsValid(relid) && i < cfg->ntables; i++)
			if (cfg->tables[i].relid == relid)
				break;
		if (!OidIsValid(relid) || i == cfg->ntables)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_TABLE),
					 errmsg("target table \"%s\" is not in the config", target),
					 errhint("Name the target as the config does, for example \"shops\" or \"billing.invoices\".")));
	}
	t = &cfg->tables[i];
	if (t->ignore)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("target table \"%s\" is ignored in the config", t->name)));
	if (t->pk.n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("target table \"%s\" has no primary_key in the config", t->name),
				 errdetail("The target rows are selected by primary key.")));
	return i;
}

/*
 * plan_error_context
 *		Error context while planning: the function and the target.
 */
static void
plan_error_context(void *arg)
{
	SubsetErrorContext *e = (SubsetErrorContext *) arg;

	errcontext("%s, planning the export of target table \"%s\"", e->funcname, e->table);
}

/*
 * subset_plan_build
 *		Plan the export of the rows of target with primary keys ids.
 */
SubsetPlan *
subset_plan_build(const char *funcname, SubsetConfig *cfg, const char *target,
				  ArrayType *ids)
{
	Planner		pl;
	SubsetPlan *plan = palloc0(sizeof(SubsetPlan));
	int			nt = cfg->ntables;
	int			i,
				nids;
	char	  **idlits;
	SubsetTable *tt;
	SubsetErrorContext ectx = {funcname, NULL, NULL};
	ErrorContextCallback errcb;

	errcb.callback = plan_error_context;
	errcb.arg = &ectx;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;
	ectx.table = target;

	memset(&pl, 0, sizeof(pl));
	pl.funcname = funcname;
	pl.cfg = cfg;
	pl.plan = plan;
	pl.nt = nt;
	plan->cfg = cfg;
	plan->target = find_target(cfg, target);
	tt = &cfg->tables[plan->target];
	idlits = ids_arrays(&pl, tt, ids, &nids);

	plan->order = subset_processing_order(cfg, &plan->norder);

#define ALLOC_ARRAY(field, type) pl.field = (type *) palloc0(sizeof(type) * Max(nt, 1))
	ALLOC_ARRAY(pos, int);
	ALLOC_ARRAY(dist, int);
	ALLOC_ARRAY(path, int);
	ALLOC_ARRAY(comp, bool);
	ALLOC_ARRAY(seed, char *);
	ALLOC_ARRAY(seed_frag, bool);
	ALLOC_ARRAY(seed_deps, List *);
	ALLOC_ARRAY(may, bool);
	ALLOC_ARRAY(selfref, bool);
	ALLOC_ARRAY(need_f, bool);
	ALLOC_ARRAY(fcols, SubsetCols);
	ALLOC_ARRAY(scols, SubsetCols);
	ALLOC_ARRAY(sset, int);
	ALLOC_ARRAY(xset, int);
	ALLOC_ARRAY(fset, int);
	ALLOC_ARRAY(pred, char *);
	ALLOC_ARRAY(pred_frag, bool);
	ALLOC_ARRAY(pred_deps, List *);
#undef ALLOC_ARRAY
	for (i = 0; i < nt; i++)
	{
		pl.pos[i] = -1;
		pl.dist[i] = -1;
		pl.path[i] = -1;
		pl.sset[i] = pl.xset[i] = pl.fset[i] = -1;
	}
	for (i = 0; i < plan->norder; i++)
		pl.pos[plan->order[i]] = i;

	find_paths(&pl);
	plan_seeds(&pl, idlits);
	plan_closure(&pl);
	plan_files(&pl);

	plan->nsets = list_length(pl.sets);
	plan->sets = palloc0(sizeof(SubsetSet) * Max(plan->nsets, 1));
	for (i = 0; i < plan->nsets; i++)
	{
		plan->sets[i] = *set_at(&pl, i);
		plan->sets[i].needed = true;
	}

	/* the ids that match no row, for a NOTICE at export */
	{
		StringInfoData q;
		int			k;

		initStringInfo(&q);
		appendStringInfoString(&q, "SELECT ");
		for (k = 0; k < tt->pk.n; k++)
			appendStringInfo(&q, "%sCAST(exwiw_id.c%d AS pg_catalog.text)", k ? ", " : "", k + 1);
		appendStringInfo(&q, " FROM (%s) AS exwiw_id(", ids_subquery(idlits, tt->pk.n));
		for (k = 0; k < tt->pk.n; k++)
			appendStringInfo(&q, "%sc%d", k ? ", " : "", k + 1);
		appendStringInfo(&q, ") WHERE NOT EXISTS (SELECT FROM %s WHERE ",
						 subset_relation_sql(tt));
		for (k = 0; k < tt->pk.n; k++)
		{
			if (k > 0)
				appendStringInfoString(&q, " AND ");
			subset_append_eq(&q, psprintf("%s.%s", alias_of(tt), quote_identifier(tt->pk.names[k])),
							 tt->pk.typids[k], psprintf("exwiw_id.c%d", k + 1),
							 tt->pk.typids[k]);
		}
		appendStringInfoString(&q, ")");
		plan->ids_query = nids > 0 ? q.data : NULL;
	}
	error_context_stack = errcb.previous;
	return plan;
}

/*
 * exwiw_plan
 *		SQL entry point, see the file header.  One row per step: the row
 *		sets in the order they are computed, then the files.
 */
Datum
exwiw_plan(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const char *fn = "exwiw_plan";
	SubsetConfig *cfg;
	SubsetPlan *plan;
	int			step = 0;
	int			i;

	exwiw_require_arg(fcinfo, 0, fn, "target_table");
	exwiw_require_arg(fcinfo, 1, fn, "ids");
	InitMaterializedSRF(fcinfo, 0);

	if (PG_ARGISNULL(2))
		cfg = subset_config_parse(fn, subset_catalog_config(subset_current_schema()));
	else
		cfg = subset_config_parse(fn, PG_GETARG_JSONB_P(2));
	subset_config_check_masks(cfg);
	plan = subset_plan_build(fn, cfg, text_to_cstring(PG_GETARG_TEXT_PP(0)),
							 PG_GETARG_ARRAYTYPE_P(1));
	subset_plan_name_files(plan, "sql");

	for (i = 0; i < plan->nsets; i++)
	{
		SubsetSet  *s = &plan->sets[i];
		Datum		values[6];
		bool		nulls[6] = {false, false, false, false, false, false};

		values[0] = Int32GetDatum(++step);
		values[1] = Int32GetDatum(0);
		nulls[1] = true;
		values[2] = CStringGetTextDatum(cfg->tables[s->table].name);
		values[3] = CStringGetTextDatum(s->name);
		values[4] = CStringGetTextDatum(s->rule);
		values[5] = CStringGetTextDatum(s->query);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	for (i = 0; i < plan->nfiles; i++)
	{
		SubsetFile *f = &plan->files[i];
		Datum		values[6];
		bool		nulls[6] = {false, false, false, false, false, false};

		values[0] = Int32GetDatum(++step);
		values[1] = Int32GetDatum(f->seq);
		values[2] = CStringGetTextDatum(cfg->tables[f->table].name);
		values[3] = CStringGetTextDatum(f->file_name);
		values[4] = CStringGetTextDatum(f->rule);
		values[5] = CStringGetTextDatum(f->query);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
