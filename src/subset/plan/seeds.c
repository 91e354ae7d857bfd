/*-------------------------------------------------------------------------
 *
 * plan/seeds.c
 *	  The SQL of the rows each table contributes on its own, its seed: the
 *	  second phase of the planner, once plan/decide.c has decided every
 *	  table's rule (plan/decide.c's header lists them) and arms.
 *
 * A seed is read from its parents' seed-key sets (exwiw_s_N), built in
 * dependency order, each once (planner_build_seed, recursively); a later
 * arm reads the rows its earlier arms leave undecided, among them those
 * naming a parent row of nobody's (exwiw_u_N, undecided_set).  Every seed
 * is narrowed by the table's own filter.  batch_scope: the table's
 * seed-key set is built in slices of its scoped table's seed keys
 * (batch_seed; run/executor.c runs them).
 *
 *-------------------------------------------------------------------------
 */
#include "subset/plan/planner.h"

#include <math.h>

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
 * same_cols
 *		Do a and b name the same columns, in any order?
 */
static bool
same_cols(const SubsetCols *a, const SubsetCols *b)
{
	if (a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++)
	{
		bool		in = false;

		for (int j = 0; j < b->n; j++)
			in |= (a->attnums[i] == b->attnums[j]);
		if (!in)
			return false;
	}
	return true;
}

static bool constant_parent(Planner *pl, SubsetEdge *e);
static char *arm_subquery(Planner *pl, SubsetEdge *e, int *setno);

/*
 * limit_values
 *		A query of every value table ti's limit.per columns hold among its
 *		seed's rows (and perhaps more), when the seed says it: per is the
 *		foreign key of the seed's one arm (its parent's keys, the very set
 *		or ids the arm matches) or the scope column of a scope-column seed
 *		(the ids), or the table's seed is every row (a skip scan of its
 *		values, plan/limit.c).  *cols gets the table's columns in the
 *		query's order, *srccols the query's own.  The seed's match (= ANY,
 *		or an EXISTS of equalities) holds for no row with a NULL there, so
 *		no row of a seed by key has a NULL per value; *nulls says whether a
 *		seed of every row may have one.  NULL: not known.
 */
static char *
limit_values(Planner *pl, int ti, const SubsetCols **cols, const SubsetCols **srccols,
			 bool *nulls)
{
	SubsetTable *t = &pl->cfg->tables[ti];
	PlannerRel *r = &pl->rel[ti];

	*nulls = false;
	if (r->kind == SEED_UNRELATED || r->kind == SEED_EXEMPT ||
		r->kind == SEED_DECIDED || r->kind == SEED_FALLBACK)
	{
		/* every row of the table: the values of the whole table */
		*cols = *srccols = &t->limit_per;
		return planner_limit_skip_scan(t, nulls);
	}
	if (r->kind == SEED_DIRECT && same_cols(&t->limit_per, &t->scope_col))
	{
		*cols = *srccols = &t->scope_col;
		return ids_subquery(r->ids_lits, t->scope_col.n);
	}
	if ((r->kind == SEED_PATH || r->kind == SEED_CASCADE) &&
		list_length(r->seed_edges) == 1 && r->claims == NIL &&
		!planner_descends_by_self(pl, ti))
	{
		SubsetEdge *e = &pl->cfg->edges[linitial_int(r->seed_edges)];
		int			setno;

		if (!same_cols(&t->limit_per, &e->fk))
			return NULL;
		*cols = &e->fk;
		*srccols = &e->ref;
		/* the arm of planner_build_seed: the ids, or the parent's set */
		if (constant_parent(pl, e))
			return ids_subquery(pl->rel[e->parent].ids_lits, e->fk.n);
		return arm_subquery(pl, e, &setno);
	}
	return NULL;
}

/*
 * with_slices
 *		Table ti's seed predicate pred narrowed by its slices (issue 40):
 *		"sample" keeps the rows whose key hashes below the share
 *		(hashtextextended of the key's row text and the seed: the same rows
 *		on every run, on a replica too), then "limit" the first rows_N of
 *		those by order_by in each group of per, by their keys
 *		(plan/limit.c): a top-N per value of per when an index leads with
 *		per and order_by and the values are known (limit_values), the seed's
 *		condition inside it, so that the rows are exactly the keys it
 *		returns; else numbered in a window over the seed's rows (the table
 *		scanned again under pred, whose row sets it reads as pred does).
 *		What their rows reference still comes (the closure), and children
 *		chosen through the table's seed take only the rows kept.
 */
static char *
with_slices(Planner *pl, int ti, const char *pred)
{
	SubsetTable *t = &pl->cfg->tables[ti];
	const char *alias = planner_alias(t);
	StringInfoData s;
	StringInfoData keys;

	initStringInfo(&keys);
	subset_append_cols(&keys, alias, &t->pk);
	initStringInfo(&s);
	appendStringInfoString(&s, pred);
	if (t->sample > 0)
	{
		appendStringInfo(&s, " AND (pg_catalog.hashtextextended(CAST(ROW(%s) AS pg_catalog.text) OPERATOR(pg_catalog.||) ",
						 keys.data);
		subset_append_literal(&s, t->sample_seed);
		appendStringInfo(&s, ", 0) OPERATOR(pg_catalog.&) 1048575) OPERATOR(pg_catalog.<) %ld",
						 (long) ceil(t->sample * 1048576.0));
	}
	if (t->limit_rows > 0)
	{
		const SubsetCols *cols = NULL;
		const SubsetCols *srccols = NULL;
		bool		nulls = false;
		char	   *values = t->limit_per.n > 0 ?
			limit_values(pl, ti, &cols, &srccols, &nulls) : NULL;

		if ((values != NULL || t->limit_per.n == 0) && planner_limit_by_index(t))
		{
			/* the kept rows are the keys it returns: pred is inside */
			char	   *top = planner_limit_top(t, s.data, values, cols, srccols, nulls);

			resetStringInfo(&s);
			subset_append_match(&s, alias, &t->pk, top, &t->pk);
		}
		else
		{
			char	   *window = planner_limit_window(t, s.data);

			appendStringInfoString(&s, " AND ");
			subset_append_match(&s, alias, &t->pk, window, &t->pk);
		}
	}
	return s.data;
}

/* planner_index_leads's question about one index */
typedef struct IndexLeadsArg
{
	const SubsetCols *cols;
	AttrNumber	extra_att;
} IndexLeadsArg;

/*
 * index_leads
 *		Do the leading key columns of index row it (pg_index) name the
 *		columns of arg (an IndexLeadsArg), in any order, with its extra_att
 *		allowed among them, and is the index not partial?
 */
static bool
index_leads(SubsetTable *t, HeapTuple it, void *arg)
{
	const SubsetCols *cols = ((IndexLeadsArg *) arg)->cols;
	AttrNumber	extra_att = ((IndexLeadsArg *) arg)->extra_att;
	Form_pg_index ind = (Form_pg_index) GETSTRUCT(it);
	int			nkey = ind->indnkeyatts;
	int			i,
				j;
	int			covered = 0;
	Bitmapset  *seen = NULL;

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
	return covered == cols->n && heap_attisnull(it, Anum_pg_index_indpred, NULL);
}

/*
 * may_be_cut
 *		Could table x's seed be cut: has it a limit or a sample, or a
 *		foreign key to a table whose seed could be (without_dropped_parents
 *		then cuts it)?  Depends on the config alone; a table met again
 *		while it is being found (a cycle of keys) counts as not cut there.
 */
static bool
may_be_cut(Planner *pl, int x)
{
	SubsetTable *t = &pl->cfg->tables[x];
	ListCell   *lc;
	bool		cut;

	if (pl->rel[x].may_cut >= 1)
		return pl->rel[x].may_cut == 3;
	pl->rel[x].may_cut = 1;
	check_stack_depth();
	cut = (t->limit_rows > 0 || t->sample > 0);
	foreach(lc, pl->rel[x].out_edges)
	{
		if (cut)
			break;
		if (pl->cfg->edges[lfirst_int(lc)].parent != x)
			cut = may_be_cut(pl, pl->cfg->edges[lfirst_int(lc)].parent);
	}
	pl->rel[x].may_cut = cut ? 3 : 2;
	return cut;
}

/*
 * seed_may_ask_for
 *		Could building table x's seed ask for table target's: is target
 *		among the tables x's seed reads (its arms' parents, its delegated
 *		children, its reverse_scope arms) or whose seeds a cut parent's
 *		condition reads (every parent: without_dropped_parents), through
 *		any number of them?  seen: nt flags, cleared by the caller.
 */
static bool
seed_may_ask_for(Planner *pl, int x, int target, bool *seen)
{
	ListCell   *lc;

	if (x == target)
		return true;
	if (seen[x] || pl->rel[x].building == 2)
		return false;
	seen[x] = true;
	check_stack_depth();
	foreach(lc, pl->rel[x].out_edges)
		if (seed_may_ask_for(pl, pl->cfg->edges[lfirst_int(lc)].parent, target, seen))
		return true;
	foreach(lc, pl->rel[x].claims)
		if (seed_may_ask_for(pl, pl->cfg->edges[lfirst_int(lc)].child, target, seen))
		return true;
	foreach(lc, pl->rel[x].rev_arms)
		if (seed_may_ask_for(pl, ((SubsetReverseArm *) lfirst(lc))->table, target, seen))
		return true;
	return false;
}

/*
 * without_dropped_parents
 *		The condition that table ti's rows reference no row its parents'
 *		seeds left out ("children of a row left out are left out"): for each
 *		edge to a parent whose seed was cut (a limit, a sample, or this very
 *		condition one level up: seed_uncut) and is built, the row's key is
 *		not one of the parent's rows that the uncut seed holds and the seed
 *		does not.  A NULL key, or a key of a row the parent's seed never
 *		held, passes.  Not an edge by which ti's seed alone comes (its rows
 *		are then the kept rows' already), nor one to ti itself, nor to a
 *		parent whose seed could ask for ti's (seed_may_ask_for: a cycle),
 *		which is not built first.  Adds the sets read to *deps
 *		and sets *frag when a parent's seed holds a user's fragment; NULL
 *		when nothing is cut.
 */
static char *
without_dropped_parents(Planner *pl, int ti, List **deps, bool *frag)
{
	SubsetConfig *cfg = pl->cfg;
	SubsetTable *t = &cfg->tables[ti];
	const char *alias = planner_alias(t);
	StringInfoData c;
	ListCell   *lc;

	initStringInfo(&c);
	foreach(lc, pl->rel[ti].out_edges)
	{
		SubsetEdge *e = &cfg->edges[lfirst_int(lc)];
		PlannerRel *pr = &pl->rel[e->parent];
		SubsetTable *pt = &cfg->tables[e->parent];
		StringInfoData sub;
		StringInfoData m;

		if (e->parent == ti || !may_be_cut(pl, e->parent))
			continue;
		/* the parent's seed first, unless it could ask for ti's */
		if (pr->building == 0 && pr->kind != SEED_NONE)
		{
			bool	   *seen = palloc0(sizeof(bool) * pl->nt);

			if (!seed_may_ask_for(pl, e->parent, ti, seen))
				planner_build_seed(pl, e->parent);
			pfree(seen);
		}
		if (pr->building != 2 || pr->seed_uncut == NULL ||
			pt->pk.n == 0 || !planner_cols_equal(&e->ref, &pt->pk) ||
			!planner_edge_live(pl, e) ||
			(list_length(pl->rel[ti].seed_edges) == 1 &&
			 linitial_int(pl->rel[ti].seed_edges) == lfirst_int(lc)))
			continue;
		initStringInfo(&sub);
		appendStringInfoString(&sub, "SELECT ");
		subset_append_cols(&sub, planner_alias(pt), &pt->pk);
		appendStringInfo(&sub, " FROM %s WHERE (%s) AND NOT COALESCE((%s), false)",
						 subset_relation_sql(pt), pr->seed_uncut, pr->seed);
		initStringInfo(&m);
		subset_append_match(&m, alias, &e->fk, sub.data, &e->ref);
		if (SubsetEdgeIsPolymorphic(e))
		{
			appendStringInfoString(&m, " AND ");
			planner_append_type_cond(&m, alias, e);
		}
		appendStringInfo(&c, "%sNOT COALESCE((%s), false)", c.len ? " AND " : "", m.data);
		*deps = list_concat_unique_int(*deps, pr->seed_deps);
		*frag |= pr->seed_frag;
	}
	return c.len > 0 ? c.data : NULL;
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
	IndexLeadsArg arg = {cols, extra_att};

	return planner_any_index(t, index_leads, &arg);
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
 *		which the file orders its rows (plan/build.c).
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
	pl->rel[ti].seed_jfrom = pl->rel[ti].seed_jwhere = NULL;
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
 *		comes too, as in scope-column mode.)  Not on a batch_scope path,
 *		whose slices replace the parent's set (check_batch).
 */
static bool
constant_parent(Planner *pl, SubsetEdge *e)
{
	SubsetTable *pt = &pl->cfg->tables[e->parent];

	if (e->parent == e->child || SubsetTableNarrowed(pt) || pl->rel[e->parent].ids_lits == NULL)
		return false;
	/* a batch's slice of the parent's rows is its set, not the ids */
	if (pl->rel[e->child].batch_path)
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
 *		the whole table rather than the set; "IN" hashes the set.  Without
 *		one, the join is kept aside (seed_jfrom, seed_jwhere, seed_jset):
 *		once the set holds a tenth of the table or more, hashing the table
 *		costs little more than hashing the set, and "IN" would first make
 *		the set's keys unique in a hash sized for 200 of them, which spills
 *		(the executor chooses, run/executor.c).
 */
static void
seed_as_join(Planner *pl, int ti, SubsetEdge *e)
{
	SubsetTable *t = &pl->cfg->tables[ti];
	SubsetTable *p = &pl->cfg->tables[e->parent];
	const char *alias = planner_alias(t);
	SubsetSet  *set;
	StringInfoData j;
	char	   *where = NULL;
	bool		indexed;
	int			setno;
	int			k;

	if (p->pk.n == 0 || !planner_cols_equal(&e->ref, &p->pk) || e->parent == ti)
		return;
	indexed = planner_index_leads(t, &e->fk, edge_type_att(e));
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
	if (SubsetEdgeIsPolymorphic(e))
	{
		StringInfoData w;

		initStringInfo(&w);
		planner_append_type_cond(&w, alias, e);
		where = w.data;
	}
	if (indexed)
	{
		pl->rel[ti].seed_from = j.data;
		pl->rel[ti].seed_where = where;
	}
	else
	{
		pl->rel[ti].seed_jfrom = j.data;
		pl->rel[ti].seed_jwhere = where;
		pl->rel[ti].seed_jset = setno;
	}
}

static void append_undecided(Planner *pl, StringInfo buf, const char *alias,
							 int ti, int n, SubsetEdge *e, List **deps);

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
	if (r->kind != SEED_PATH || r->seed_edges == NIL || SubsetTableNarrowed(t) ||
		t->pk.n == 0 || r->batched || planner_descends_by_self(pl, ti) ||
		planner_all_decided(pl, ti))
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
 *		Arms have an order (plan/seeds.c's add_other_arms): the path's
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
 *		them): its key NULL, its type another table's, its key naming no row
 *		of its parent (an arm no foreign key constraint enforces: an
 *		inferred or declared belongs_to whose values dangle, as GitLab's
 *		loose keys do until a cleanup job runs), or naming a row of its
 *		parent's undecided_set, which is added to *deps.
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
		if (!SubsetEdgeIsSelf(a) && !subset_edge_enforced(cfg, a))
		{
			/* a key that names no row of the parent decides nothing */
			SubsetTable *p = &cfg->tables[a->parent];

			appendStringInfo(buf, " OR NOT EXISTS (SELECT FROM %s AS exwiw_n WHERE ",
							 subset_relation_sql(p));
			for (k = 0; k < a->fk.n; k++)
			{
				if (k > 0)
					appendStringInfoString(buf, " AND ");
				subset_append_eq(buf, psprintf("exwiw_n.%s", quote_identifier(a->ref.names[k])),
								 a->ref.typids[k],
								 psprintf("%s.%s", alias, quote_identifier(a->fk.names[k])),
								 a->fk.typids[k]);
			}
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
				SubsetEdge *prev = NULL;	/* the arm before */

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
					/* once per column: the arms of a group share it */
					if (prev == NULL || !SubsetEdgeIsPolymorphic(e) ||
						!SubsetEdgeIsPolymorphic(prev) ||
						prev->fk.attnums[0] != e->fk.attnums[0])
						warn_unindexed(t, e);
					prev = e;
				}

				/*
				 * the rows its delegated children's own rows own
				 * (decide_claims): their seed, not the closure's rows, which
				 * may be another tenant's
				 */
				foreach(lc, pl->rel[ti].claims)
				{
					SubsetEdge *e = &cfg->edges[lfirst_int(lc)];
					int			setno;
					SubsetSet  *set;
					StringInfoData sub;
					StringInfoData p;

					planner_build_seed(pl, e->child);
					setno = pl->rel[e->child].sset;
					Assert(setno >= 0);
					set = planner_set(pl, setno);

					initStringInfo(&sub);
					appendStringInfoString(&sub, "SELECT ");
					subset_append_cols(&sub, set->name, &e->fk);
					appendStringInfo(&sub, " FROM %s", set->name);
					if (SubsetEdgeIsPolymorphic(e))
					{
						appendStringInfoString(&sub, " WHERE ");
						planner_append_type_cond(&sub, set->name, e);
					}
					initStringInfo(&p);
					subset_append_match(&p, alias, &e->ref, sub.data, &e->fk);
					parts = lappend(parts, p.data);
					pl->rel[ti].seed_deps = list_append_unique_int(pl->rel[ti].seed_deps, setno);
				}
				if (list_length(parts) == 1 && pl->rel[ti].claims == NIL &&
					!planner_descends_by_self(pl, ti) &&
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
					pl->rel[ti].seed_edges == NIL ? "seed: rows its delegated child owns" :
					"seed: rows of the parent with selected rows";
				if (planner_descends_by_self(pl, ti))
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
	if (pl->rel[ti].seed_jfrom)
		pl->rel[ti].seed_jwhere = (pl->rel[ti].seed_jwhere || t->filter) ?
			with_filter(pl->rel[ti].seed_jwhere, t->filter) : pstrdup("true");
	pl->rel[ti].seed_frag = (t->filter != NULL);
	if (pl->rel[ti].kind == SEED_DIRECT || pl->rel[ti].kind == SEED_PATH ||
		pl->rel[ti].kind == SEED_CASCADE)
	{
		/* children of a row left out are left out (issue 40) */
		char	   *excl = without_dropped_parents(pl, ti, &pl->rel[ti].seed_deps,
												   &pl->rel[ti].seed_frag);

		if (excl != NULL)
		{
			pl->rel[ti].seed_uncut = pl->rel[ti].seed;
			pl->rel[ti].seed = psprintf("(%s) AND %s", pl->rel[ti].seed, excl);
			pl->rel[ti].seed_from = pl->rel[ti].seed_where = NULL;
			pl->rel[ti].seed_jfrom = pl->rel[ti].seed_jwhere = NULL;
		}
	}
	if (t->limit_rows > 0 || t->sample > 0)
	{
		/* the slices read the seed as a predicate: no join form */
		if (pl->rel[ti].seed_uncut == NULL)
			pl->rel[ti].seed_uncut = pl->rel[ti].seed;
		pl->rel[ti].seed = with_slices(pl, ti, pl->rel[ti].seed);
		pl->rel[ti].seed_from = pl->rel[ti].seed_where = NULL;
		pl->rel[ti].seed_jfrom = pl->rel[ti].seed_jwhere = NULL;
		pl->rel[ti].seed_frag = true;
	}

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
 * planner_seed_constant
 *		Does table ti's seed (planner_build_seed has run) read no row set
 *		and hold no user's fragment: a condition over constants, the
 *		target's ids or a scope column's values?  (A limit or a sample is a
 *		fragment; a batch reads its source's set.)
 */
bool
planner_seed_constant(Planner *pl, int ti)
{
	return pl->rel[ti].seed != NULL && pl->rel[ti].seed_deps == NIL &&
		!pl->rel[ti].seed_frag;
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
