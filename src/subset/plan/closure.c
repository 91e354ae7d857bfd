/*-------------------------------------------------------------------------
 *
 * plan/closure.c
 *	  The rows that exported rows reference, and all rows of each table.
 *
 * For every table, children first (in reverse processing order): the rows
 * that its children's rows reference through each live belongs_to
 * (exwiw_x_N: key columns of the rows added), the predicate of all its rows
 * (its seed, or the rows added), and, when a parent or a self-reference
 * reads them, the key columns of all its rows (exwiw_f_N; with a
 * self-reference, the recursive closure over its ancestors).  Through a
 * child's seed edge only the child's added rows count: its seed rows
 * reference seed rows of the parent, which it has anyway.  A polymorphic
 * arm passes on only the child rows whose type column names the parent.
 *
 * Rows are added whatever the table's filter says: without them the files
 * would not load (run/executor.c tells how many with a NOTICE).
 *
 *-------------------------------------------------------------------------
 */
#include "subset/plan/planner.h"

#include "catalog/pg_class.h"
#include "commands/extension.h"
#include "miscadmin.h"
#include "utils/builtins.h"

/* One group of closure parts: rows of t whose columns ref are in parts. */
typedef struct ClosureGroup
{
	SubsetCols *ref;
	SubsetCols *subcols;		/* types of the parts' columns */
	StringInfoData parts;		/* "SELECT ... UNION ALL SELECT ..." */
	List	   *deps;
} ClosureGroup;

/*
 * seed_covers
 *		Does every seed row of table child reference, through edge i, a seed
 *		row of its parent?  So when i is the seed's only arm, or one of a
 *		group of polymorphic arms on one type column (each row follows the
 *		arm its type names).  A seed that is a union of other arms too does
 *		not: a row chosen through another arm may reference any row.
 */
static bool
seed_covers(Planner *pl, int child, int i)
{
	SubsetEdge *e = &pl->cfg->edges[i];
	ListCell   *lc;

	if (!list_member_int(pl->rel[child].seed_edges, i))
		return false;
	foreach(lc, pl->rel[child].seed_edges)
	{
		SubsetEdge *a = &pl->cfg->edges[lfirst_int(lc)];

		if (lfirst_int(lc) == i)
			continue;
		if (!SubsetEdgeIsPolymorphic(e) || !SubsetEdgeIsPolymorphic(a) ||
			a->type_col.attnums[0] != e->type_col.attnums[0])
			return false;
	}
	return true;
}

/*
 * exported_whole
 *		Is table ti exported whole: scope_exempt or managed by Rails, without
 *		a filter or a slice?  It then has every row the closure could add:
 *		no set is computed for it, nor read from its children for it
 *		(--all-tables reads each table straight).
 */
static bool
exported_whole(Planner *pl, int ti)
{
	SubsetTable *t = &pl->cfg->tables[ti];

	return pl->rel[ti].kind == SEED_EXEMPT && t->filter == NULL &&
		t->limit_rows == 0 && t->sample == 0;
}

/*
 * planner_closure_prepare
 *		Before any set is built: the columns of each table's exwiw_x and
 *		exwiw_f rows, which tables reference themselves, and which tables'
 *		exwiw_f someone reads.
 */
void
planner_closure_prepare(Planner *pl)
{
	SubsetConfig *cfg = pl->cfg;
	int			i;
	ListCell   *lc;

	for (i = 0; i < cfg->nedges; i++)
	{
		SubsetEdge *e = &cfg->edges[i];

		if (!planner_edge_live(pl, e))
			continue;
		if (e->deferred)
		{
			/* the fix-up file reads the child's rows and the parent's keys */
			planner_cols_union(&pl->rel[e->child].fcols, &e->fk);
			planner_cols_union(&pl->rel[e->parent].fcols, &e->ref);
			pl->rel[e->child].need_f = pl->rel[e->parent].need_f = true;
			continue;
		}
		planner_cols_union(&pl->rel[e->child].fcols, &e->fk);
		if (SubsetEdgeIsPolymorphic(e))
			planner_cols_union(&pl->rel[e->child].fcols, &e->type_col);
		if (SubsetEdgeIsSelf(e))
		{
			planner_cols_union(&pl->rel[e->child].fcols, &e->ref);
			pl->rel[e->child].selfref = true;
		}
		else if (!seed_covers(pl, e->child, i) && !exported_whole(pl, e->parent))
			pl->rel[e->child].need_f = true;
	}
	for (i = 0; i < pl->nt; i++)
	{
		planner_cols_union(&pl->rel[i].fcols, &cfg->tables[i].pk);
		if (pl->rel[i].selfref)
			pl->rel[i].need_f = true;
		/* a cascade from a parent with only referenced rows reads them all */
		foreach(lc, pl->rel[i].seed_edges)
		{
			SubsetEdge *e = &cfg->edges[lfirst_int(lc)];

			if (pl->rel[e->parent].kind == SEED_NONE)
			{
				pl->rel[e->parent].need_f = true;
				planner_cols_union(&pl->rel[e->parent].fcols, &e->ref);
			}
		}
	}
}

/*
 * planner_fset
 *		The exwiw_f set of table t, built (with what it reads) if not yet.
 */
int
planner_fset(Planner *pl, int t)
{
	planner_build_rows(pl, t);
	Assert(pl->rel[t].fset >= 0);
	return pl->rel[t].fset;
}

/*
 * build_x
 *		Table t's rows added by closure (exwiw_x) and the condition that
 *		selects them, after the sets of its children (recursively, once).
 *		Its own seed is not needed: a cascade child may read our rows.
 */
static void
build_x(Planner *pl, int ti)
{
	SubsetConfig *cfg = pl->cfg;
	SubsetTable *t = &cfg->tables[ti];
	const char *alias = planner_alias(t);
	const char *relsql = subset_relation_sql(t);
	List	   *groups = NIL;
	ListCell   *lc;
	ListCell   *ec;
	StringInfoData q;
	List	   *xdeps = NIL;

	if (pl->rel[ti].x_state == 2)
		return;
	if (pl->rel[ti].x_state == 1)
		planner_cycle_error(pl, ti);
	pl->rel[ti].x_state = 1;
	planner_enter(pl, ti);
	check_stack_depth();
	CHECK_FOR_INTERRUPTS();
	if (!pl->rel[ti].may || exported_whole(pl, ti))
	{
		pl->rel[ti].x_state = 2;
		planner_leave(pl);
		return;
	}

	/* the parts: what each child's rows reference */
	foreach(ec, pl->rel[ti].in_edges)
	{
		int			i = lfirst_int(ec);
		SubsetEdge *e = &cfg->edges[i];
		int			src;
		ClosureGroup *g = NULL;

		if (!planner_edge_live(pl, e) || SubsetEdgeIsSelf(e) ||
			e->deferred || !pl->rel[e->child].may)
			continue;

		/*
		 * Through its seed edges a child's seed rows reference rows of ours
		 * that we have anyway: only its added rows count.
		 */
		if (seed_covers(pl, e->child, i) && !pl->rel[e->child].selfref)
		{
			build_x(pl, e->child);
			src = pl->rel[e->child].xset;
		}
		else
			src = planner_fset(pl, e->child);
		if (src < 0)
			continue;
		foreach(lc, groups)
		{
			if (planner_cols_equal(((ClosureGroup *) lfirst(lc))->ref, &e->ref))
				g = lfirst(lc);
		}
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
		subset_append_cols(&g->parts, planner_set(pl, src)->name, &e->fk);
		appendStringInfo(&g->parts, " FROM %s", planner_set(pl, src)->name);
		if (SubsetEdgeIsPolymorphic(e))
		{
			appendStringInfoString(&g->parts, " WHERE ");
			planner_append_type_cond(&g->parts, planner_set(pl, src)->name, e);
		}
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
				if (planner_cols_equal(g->ref, &t->pk))
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

			/*
			 * the keys come out with the types of the key, or of the foreign
			 * keys
			 */
			subset_append_match(&cond, alias, &t->pk, keys.data,
								list_length(groups) == 1 &&
								planner_cols_equal(((ClosureGroup *) linitial(groups))->ref, &t->pk) ?
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
		subset_append_cols(&q, alias, &pl->rel[ti].fcols);
		appendStringInfo(&q, " FROM %s WHERE %s", relsql, cond.data);
		pl->rel[ti].xset = planner_add_set(pl, "x", ti, q.data, false, xdeps,
										   "closure: rows that exported rows reference");
		pl->rel[ti].xcond = cond.data;
		pl->rel[ti].xdeps = xdeps;
	}
	pl->rel[ti].x_state = 2;
	planner_leave(pl);
}

/*
 * carries_ctid
 *		Whether table ti's exwiw_f also holds each row's ctid, for its file
 *		to read its rows back by ctid (a TID scan or a hash of the ctids)
 *		instead of probing its primary key's index once more: a cold
 *		tenant's key lookups are a third of its page reads.  A row's ctid
 *		names the version the export's snapshot sees for as long as the
 *		snapshot lives (no vacuum or pruning removes or moves a version a
 *		snapshot can see; exwiw's locks keep TRUNCATE, CLUSTER and VACUUM
 *		FULL out), and every query of an export runs on its one snapshot.
 *		So only: an ordinary table or a materialized view read alone (not a
 *		partitioned tree, whose partitions share ctids), not a
 *		self-referencing one (its exwiw_f is recursive, and its file numbers
 *		rows by key), with a key, without a column of that name, and not
 *		where Citus is installed (a distributed table's shards share ctids).
 */
static bool
carries_ctid(Planner *pl, int ti)
{
	SubsetTable *t = &pl->cfg->tables[ti];
	int			k;

	if ((t->relkind != RELKIND_RELATION && t->relkind != RELKIND_MATVIEW) ||
		pl->rel[ti].selfref || t->pk.n == 0)
		return false;
	for (k = 0; k < pl->rel[ti].fcols.n; k++)
		if (strcmp(pl->rel[ti].fcols.names[k], "exwiw_ctid") == 0)
			return false;
	return !OidIsValid(get_extension_oid("citus", true));
}

/*
 * planner_build_rows
 *		Table t's predicate of all its rows (its seed, and the rows closure
 *		adds), and exwiw_f when someone reads it (recursively, once).
 */
void
planner_build_rows(Planner *pl, int ti)
{
	SubsetConfig *cfg = pl->cfg;
	SubsetTable *t = &cfg->tables[ti];
	const char *alias = planner_alias(t);
	const char *relsql = subset_relation_sql(t);
	StringInfoData q;
	ListCell   *lc;

	if (pl->rel[ti].rows_state == 2)
		return;
	if (pl->rel[ti].rows_state == 1)
		planner_cycle_error(pl, ti);
	pl->rel[ti].rows_state = 1;
	planner_enter(pl, ti);
	check_stack_depth();
	build_x(pl, ti);
	planner_build_seed(pl, ti);
	if (!pl->rel[ti].may)
	{
		pl->rel[ti].rows_state = 2;
		planner_leave(pl);
		return;
	}
	if (pl->rel[ti].xset >= 0)
	{
		/* all rows: the seed, and the rows added */
		if (t->pk.n > 0)
		{
			StringInfoData keys;
			StringInfoData p;

			initStringInfo(&keys);
			if (pl->rel[ti].seed)
				appendStringInfo(&keys, "%s UNION ALL ",
								 planner_seed_query(pl, ti, &t->pk));
			appendStringInfoString(&keys, "SELECT ");
			subset_append_cols(&keys, planner_set(pl, pl->rel[ti].xset)->name, &t->pk);
			appendStringInfo(&keys, " FROM %s", planner_set(pl, pl->rel[ti].xset)->name);
			initStringInfo(&p);
			subset_append_match(&p, alias, &t->pk, keys.data, &t->pk);
			pl->rel[ti].pred = p.data;
		}
		else
			pl->rel[ti].pred = pl->rel[ti].seed ?
				psprintf("(%s) OR (%s)", pl->rel[ti].seed, pl->rel[ti].xcond) :
				pl->rel[ti].xcond;
		pl->rel[ti].pred_deps = list_append_unique_int(list_copy(pl->rel[ti].seed_deps),
													   pl->rel[ti].xset);
		if (pl->rel[ti].seed && t->pk.n == 0)
			pl->rel[ti].pred_deps = list_concat_unique_int(pl->rel[ti].pred_deps, pl->rel[ti].xdeps);
	}
	else
	{
		pl->rel[ti].pred = pl->rel[ti].seed;
		pl->rel[ti].pred_from = pl->rel[ti].seed_from;
		pl->rel[ti].pred_where = pl->rel[ti].seed_where;
		pl->rel[ti].pred_jfrom = pl->rel[ti].seed_jfrom;
		pl->rel[ti].pred_jwhere = pl->rel[ti].seed_jwhere;
		pl->rel[ti].pred_deps = list_copy(pl->rel[ti].seed_deps);
	}
	pl->rel[ti].pred_frag = pl->rel[ti].seed_frag;

	/* exwiw_f: all rows' key columns, with ancestors when self-referencing */
	if (pl->rel[ti].need_f)
	{
		initStringInfo(&q);
		if (pl->rel[ti].selfref)
		{
			bool		first = true;

			appendStringInfoString(&q, "WITH RECURSIVE exwiw_r AS (SELECT ");
			subset_append_cols(&q, alias, &pl->rel[ti].fcols);
			appendStringInfo(&q, " FROM %s WHERE %s UNION SELECT ", relsql,
							 pl->rel[ti].pred);
			subset_append_cols(&q, "exwiw_p", &pl->rel[ti].fcols);
			appendStringInfo(&q, " FROM %s AS exwiw_p JOIN exwiw_r ON ", relsql);
			foreach(lc, pl->rel[ti].out_edges)
			{
				SubsetEdge *e = &cfg->edges[lfirst_int(lc)];
				int			k;

				if (!planner_edge_live(pl, e) || !SubsetEdgeIsSelf(e))
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
			subset_append_cols(&q, alias, &pl->rel[ti].fcols);
			pl->rel[ti].fset_ctid = carries_ctid(pl, ti);
			if (pl->rel[ti].fset_ctid)
				appendStringInfo(&q, ", %s.ctid AS exwiw_ctid", alias);
			if (pl->rel[ti].pred_from)
				appendStringInfo(&q, " FROM %s WHERE %s", pl->rel[ti].pred_from,
								 pl->rel[ti].pred_where);
			else
				appendStringInfo(&q, " FROM %s WHERE %s", relsql, pl->rel[ti].pred);
		}
		pl->rel[ti].fset = planner_add_set(pl, "f", ti, q.data, pl->rel[ti].pred_frag,
										   list_copy(pl->rel[ti].pred_deps),
										   pl->rel[ti].selfref ?
										   "all rows, with their ancestors (self-reference)" :
										   "all rows");
	}
	pl->rel[ti].rows_state = 2;
	planner_leave(pl);
}
