/*-------------------------------------------------------------------------
 *
 * plan/build.c
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
#include "subset/plan/planner.h"

#include "access/xact.h"
#include "utils/resowner.h"

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
#include "utils/varlena.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/typcache.h"

/*
 * append_keyless_order
 *		The order of a table without a primary key: by its exported columns
 *		that are not masked and have an ordering (so that the order does
 *		not depend on where the rows lie, as on Citus, where the shards'
 *		rows arrive in any order), then by physical position.  A masked
 *		column is never sorted on: the order of the rows would tell
 *		something of the values the mask hides.
 */
static void
append_keyless_order(StringInfo q, SubsetTable *t, const char *alias)
{
	int			c;

	for (c = 0; c < t->ncols; c++)
	{
		SubsetColumn *col = &t->cols[c];
		TypeCacheEntry *tc;

		if (col->ignored || SubsetColumnIsMasked(col) || t->rails_managed)
			continue;
		tc = lookup_type_cache(col->typid, TYPECACHE_LT_OPR);
		if (!OidIsValid(tc->lt_opr))
			continue;
		appendStringInfo(q, "%s.%s, ", alias, quote_identifier(col->name));
	}
	if (t->relkind == RELKIND_PARTITIONED_TABLE)
		appendStringInfo(q, "%s.tableoid, %s.ctid", alias, alias);
	else
		appendStringInfo(q, "%s.ctid", alias);
}

/*
 * append_exported_parent
 *		Append "the child's key of edge e is among the exported rows of its
 *		parent" (its exwiw_f set), for a key that cuts a cycle.
 */
static void
append_exported_parent(Planner *pl, StringInfo buf, SubsetEdge *e)
{
	SubsetSet  *ps = planner_set(pl, planner_fset(pl, e->parent));
	StringInfoData sub;

	initStringInfo(&sub);
	appendStringInfoString(&sub, "SELECT ");
	subset_append_cols(&sub, ps->name, &e->ref);
	appendStringInfo(&sub, " FROM %s", ps->name);
	subset_append_match(buf, planner_alias(&pl->cfg->tables[e->child]), &e->fk,
						sub.data, &e->ref);
	pfree(sub.data);
}

/*
 * set_cycle_overrides
 *		The columns of the foreign keys that cut a cycle (plan/order.c):
 *		written NULL in the table's file (main), and in its fix-up file the
 *		value where the referenced row is exported, else NULL (a reference
 *		outside the export is not set).  Not for JSON Lines, which has no
 *		load order.
 */
static void
set_cycle_overrides(Planner *pl, bool main)
{
	SubsetConfig *cfg = pl->cfg;
	int			i,
				k,
				c;

	if (cfg->keep_cycle_values)
		return;
	for (i = 0; i < cfg->nedges; i++)
	{
		SubsetEdge *e = &cfg->edges[i];
		SubsetTable *t = &cfg->tables[e->child];

		if (!e->deferred || !planner_edge_live(pl, e))
			continue;
		for (k = 0; k < e->fk.n; k++)
			for (c = 0; c < t->ncols; c++)
			{
				StringInfoData x;

				if (strcmp(t->cols[c].name, e->fk.names[k]) != 0)
					continue;
				if (main)
				{
					t->cols[c].override_sql = "NULL";
					continue;
				}
				if (!pl->rel[e->parent].may || !pl->rel[e->child].may)
					continue;	/* nothing referenced is exported: NULL */
				initStringInfo(&x);
				appendStringInfoString(&x, "CASE WHEN ");
				append_exported_parent(pl, &x, e);
				appendStringInfo(&x, " THEN %s.%s END", planner_alias(t),
								 quote_identifier(e->fk.names[k]));
				t->cols[c].override_sql = x.data;
			}
	}
}

/*
 * plan_fixups
 *		After the files of every table, one fix-up file per table with a
 *		foreign key that cuts a cycle: its exported rows that reference an
 *		exported row through such a key, written as INSERT ... ON CONFLICT
 *		(key) DO UPDATE SET those columns, so that each statement holds
 *		every constraint when the files load in order.
 */
static void
plan_fixups(Planner *pl)
{
	SubsetConfig *cfg = pl->cfg;
	SubsetPlan *plan = pl->plan;
	int			o;
	int			nfix = 0;

	if (cfg->keep_cycle_values)
		return;
	set_cycle_overrides(pl, false);
	for (o = 0; o < plan->norder; o++)
	{
		int			ti = plan->order[o];
		SubsetTable *t = &cfg->tables[ti];
		StringInfoData q;
		StringInfoData cond;
		StringInfoData set;
		StringInfoData outside;
		StringInfoData where;
		SubsetFile *f;
		List	   *deps = NIL;
		int			i,
					k;

		if (t->ignore || !pl->rel[ti].may || pl->rel[ti].fset < 0)
			continue;
		initStringInfo(&cond);
		initStringInfo(&set);
		initStringInfo(&outside);
		for (i = 0; i < cfg->nedges; i++)
		{
			SubsetEdge *e = &cfg->edges[i];

			if (!e->deferred || e->child != ti || !planner_edge_live(pl, e) ||
				!pl->rel[e->parent].may)
				continue;
			{
				StringInfoData m;

				initStringInfo(&m);
				append_exported_parent(pl, &m, e);
				appendStringInfo(&cond, "%s%s", cond.len ? " OR " : "", m.data);
				for (k = 0; k < e->fk.n; k++)
					appendStringInfo(&outside, "%s(%s.%s IS NOT NULL AND NOT COALESCE(%s, false))",
									 outside.len ? " OR " : "", planner_alias(t),
									 quote_identifier(e->fk.names[k]), m.data);
			}
			for (k = 0; k < e->fk.n; k++)
				appendStringInfo(&set, "%s%s = EXCLUDED.%s", set.len ? ", " : "",
								 quote_identifier(e->fk.names[k]),
								 quote_identifier(e->fk.names[k]));
			deps = list_append_unique_int(deps, planner_fset(pl, e->parent));
		}
		if (cond.len == 0)
			continue;
		deps = list_append_unique_int(deps, pl->rel[ti].fset);
		f = &plan->files[plan->nfiles++];
		f->table = ti;
		f->seq = plan->norder + ++nfix;
		f->fixup = true;
		f->has_rows = true;
		f->filter_set = -1;
		f->count_set = -1;
		f->join_set = -1;
		f->deps = deps;
		f->fragment = subset_select_has_fragment(t);
		f->rule = psprintf("cycle: sets the foreign keys written NULL (%s) where the rows they reference are exported", set.data);
		/* its exported rows whose cycle's keys name exported rows */
		initStringInfo(&where);
		planner_append_key_match(&where, planner_alias(t), t, planner_set(pl, pl->rel[ti].fset));
		appendStringInfo(&where, " AND (%s)", cond.data);
		f->count_query = psprintf("SELECT pg_catalog.count(*) FROM %s WHERE %s",
								  subset_relation_sql(t), where.data);
		initStringInfo(&q);
		appendStringInfo(&q, "SELECT %s FROM %s WHERE %s ORDER BY ", subset_select_list(t),
						 subset_relation_sql(t), where.data);
		subset_append_cols(&q, planner_alias(t), &t->pk);
		f->query = q.data;
		initStringInfo(&q);
		appendStringInfoString(&q, "ON CONFLICT (");
		subset_append_cols(&q, NULL, &t->pk);
		appendStringInfo(&q, ") DO UPDATE SET %s", set.data);
		f->conflict = q.data;

		/* how many references point outside the export: a NOTICE */
		initStringInfo(&q);
		appendStringInfo(&q, "SELECT pg_catalog.count(*) FROM %s WHERE ", subset_relation_sql(t));
		planner_append_key_match(&q, planner_alias(t), t, planner_set(pl, pl->rel[ti].fset));
		appendStringInfo(&q, " AND (%s)", outside.data);
		f->filter_query = q.data;
		f->filter_set = pl->rel[ti].fset;
	}
}

/*
 * append_file_select
 *		A file's query in its plain form: table t's select list from from
 *		where where, in the file's order (its key, or append_keyless_order).
 */
static void
append_file_select(StringInfo q, SubsetTable *t, const char *from,
				   const char *where)
{
	appendStringInfo(q, "SELECT %s FROM %s WHERE %s ORDER BY ",
					 subset_select_list(t), from, where);
	if (t->pk.n > 0)
		subset_append_cols(q, planner_alias(t), &t->pk);
	else
		append_keyless_order(q, t, planner_alias(t));
}

/*
 * append_arm
 *		"t.fk -> parent", "t.(a, b) -> parent" or "t.fk -> parent (type = V)":
 *		edge e as a rule names it.
 */
static void
append_arm(StringInfo rule, SubsetConfig *cfg, SubsetEdge *e)
{
	appendStringInfo(rule, "%s.", cfg->tables[e->child].name);
	if (e->fk.n > 1)
		appendStringInfoChar(rule, '(');
	subset_append_cols(rule, NULL, &e->fk);
	if (e->fk.n > 1)
		appendStringInfoChar(rule, ')');
	appendStringInfo(rule, " -> %s", cfg->tables[e->parent].name);
	if (SubsetEdgeIsPolymorphic(e))
		appendStringInfo(rule, " (%s = %s)", e->type_col.names[0], e->type_value);
}

/*
 * undecided_names
 *		Does list l (plan->undecided: table names) name s?
 */
static bool
undecided_names(List *l, const char *s)
{
	ListCell   *lc;

	foreach(lc, l)
		if (strcmp((const char *) lfirst(lc), s) == 0)
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
	plan->files = palloc0(sizeof(SubsetFile) * Max(2 * plan->norder, 1));
	set_cycle_overrides(pl, true);
	for (o = 0; o < plan->norder; o++)
	{
		int			ti = plan->order[o];
		SubsetTable *t = &cfg->tables[ti];
		SubsetFile *f;
		const char *alias = planner_alias(t);
		const char *relsql = subset_relation_sql(t);
		StringInfoData q;
		StringInfoData rule;
		char	   *where;
		const char *from = relsql;	/* the table, or it joined to its keys */
		const char *jfrom = NULL;	/* from and where as a join with a large */
		const char *jwhere = NULL;	/* parent set (seed_as_join), or NULL */
		bool		via_fset = false;	/* from/where read exwiw_f by key */

		CHECK_FOR_INTERRUPTS();

		/*
		 * an ignored table keeps its number, as in the client, but has no
		 * file
		 */
		if (t->ignore)
			continue;
		f = &plan->files[plan->nfiles++];
		f->table = ti;
		f->seq = o + 1;
		f->filter_set = -1;
		f->count_set = -1;
		f->join_set = -1;
		initStringInfo(&rule);
		switch (pl->rel[ti].kind)
		{
			case SEED_TARGET:
				appendStringInfoString(&rule, "target: rows with the given primary keys");
				break;
			case SEED_DIRECT:
				appendStringInfo(&rule, "scope column: rows whose %s is one of the ids%s%s",
								 t->scope_col.names[0],
								 t->id_space ? " of id space " : "",
								 t->id_space ? t->id_space : "");
				break;
			case SEED_PATH:
			case SEED_CASCADE:
				{
					ListCell   *lc;

					appendStringInfoString(&rule, pl->rel[ti].kind == SEED_PATH ?
										   "belongs_to: " :
										   pl->rel[ti].seed_edges == NIL ? "" :
										   "cascade from its parent: ");
					foreach(lc, pl->rel[ti].seed_edges)
					{
						if (foreach_current_index(lc) > 0)
							appendStringInfoString(&rule, " or ");
						append_arm(&rule, cfg, &cfg->edges[lfirst_int(lc)]);
					}
					foreach(lc, pl->rel[ti].shadowed)
					{
						appendStringInfoString(&rule, foreach_current_index(lc) == 0 ?
											   " (not by " : ", ");
						append_arm(&rule, cfg, &cfg->edges[lfirst_int(lc)]);
					}
					if (pl->rel[ti].shadowed != NIL)
					{
						SubsetEdge *a = &cfg->edges[pl->rel[ti].all_arm];

						appendStringInfo(&rule, ": %s.", t->name);
						subset_append_cols(&rule, NULL, &a->fk);
						appendStringInfoString(&rule, " is never NULL)");
					}
					/* decide_claims */
					foreach(lc, pl->rel[ti].claims)
					{
						appendStringInfoString(&rule, foreach_current_index(lc) > 0 ? " or " :
											   pl->rel[ti].seed_edges != NIL ?
											   ", and the rows its delegated child owns: " :
											   "delegated: the rows its child owns: ");
						append_arm(&rule, cfg, &cfg->edges[lfirst_int(lc)]);
					}
					break;
				}
			case SEED_REVERSE:
				{
					ListCell   *lc;

					appendStringInfo(&rule, "reverse_scope: %s values of ", t->reverse_col.names[0]);
					foreach(lc, pl->rel[ti].rev_arms)
					{
						SubsetReverseArm *arm = lfirst(lc);

						appendStringInfo(&rule, "%s%s.%s", foreach_current_index(lc) ? ", " : "",
										 cfg->tables[arm->table].name, arm->col.names[0]);
					}
					break;
				}
			case SEED_UNRELATED:
				appendStringInfoString(&rule, "UNDECIDED: unrelated to the target, every row");
				break;
			case SEED_DECIDED:
				appendStringInfoString(&rule, "every row: decided by config (export: all)");
				break;
			case SEED_EXEMPT:
				appendStringInfoString(&rule, t->rails_managed ?
									   "managed by Rails: every row" : "scope_exempt: every row");
				break;
			case SEED_FALLBACK:
				appendStringInfoString(&rule, "UNDECIDED: no rule ties it to the target, every row");
				break;
			case SEED_NONE:
				appendStringInfoString(&rule, pl->rel[ti].may ?
									   "referenced: only rows that exported rows reference" :
									   "none: nothing selects or references its rows");
				break;
		}
		if (t->filter && pl->rel[ti].seed)
			appendStringInfoString(&rule, ", narrowed by its filter");
		if (t->sample > 0 && pl->rel[ti].seed)
			appendStringInfo(&rule, ", a sample of %g%% of them", t->sample * 100);
		if (t->limit_rows > 0 && pl->rel[ti].seed)
		{
			appendStringInfo(&rule, ", limited to " INT64_FORMAT " %s", t->limit_rows,
							 t->limit_per.n > 0 ? "per " : "in all");
			if (t->limit_per.n > 0)
				subset_append_cols(&rule, NULL, &t->limit_per);
			appendStringInfo(&rule, " by %s", t->limit_order);
		}
		if (t->export_all && (pl->rel[ti].kind == SEED_TARGET || pl->rel[ti].kind == SEED_DIRECT))
			appendStringInfoString(&rule, " (\"export\": \"all\" does not apply: its rows are the ids')");
		if (pl->rel[ti].kind == SEED_FALLBACK && t->no_cascade)
			appendStringInfoString(&rule, " (not the rows of its parent: some of those are other tenants', see the NOTICE)");
		if (pl->rel[ti].xset >= 0 && pl->rel[ti].seed &&
			!((pl->rel[ti].kind == SEED_FALLBACK || pl->rel[ti].kind == SEED_EXEMPT ||
			   pl->rel[ti].kind == SEED_DECIDED) &&
			  t->filter == NULL))
			appendStringInfoString(&rule, ", plus rows that exported rows reference");
		if (pl->rel[ti].selfref && pl->rel[ti].may)
			appendStringInfoString(&rule, ", plus ancestors (self-reference)");
		f->rule = rule.data;
		/* what the export refuses says so, whatever the rule (safe mode) */
		if (strncmp(f->rule, "UNDECIDED", 9) != 0 &&
			undecided_names(plan->undecided, t->name))
			f->rule = psprintf("UNDECIDED (needs_scope_decision): %s", f->rule);
		f->has_rows = pl->rel[ti].may;

		if (!pl->rel[ti].may)
		{
			where = "false";
			f->deps = NIL;
		}
		else if (pl->rel[ti].fset >= 0 && t->pk.n > 0 &&
				 !planner_index_leads(t, &t->pk, InvalidAttrNumber))
		{
			/*
			 * Its keys among the set of its keys, where no index finds a
			 * key's rows: IN hashes the set; a join would hash the whole
			 * table, the planner having no statistics of the set.
			 */
			StringInfoData w;

			initStringInfo(&w);
			planner_append_key_match(&w, alias, t, planner_set(pl, pl->rel[ti].fset));
			where = w.data;
			f->deps = list_make1_int(pl->rel[ti].fset);
			via_fset = true;
		}
		else if (pl->rel[ti].fset >= 0 && t->pk.n > 0)
		{
			/*
			 * Joined to the set of its keys, which holds each key once: a
			 * join, unlike IN, lets the planner size the set by its rows (it
			 * knows no number of distinct values of a set), so a large set is
			 * hashed or merged rather than probed key by key.  The set's
			 * columns get names of ours, so that unqualified names in raw_sql
			 * stay unambiguous.
			 */
			SubsetSet  *fs = planner_set(pl, pl->rel[ti].fset);
			StringInfoData j;

			initStringInfo(&j);
			appendStringInfo(&j, "%s JOIN (SELECT ", relsql);
			for (int k = 0; k < t->pk.n; k++)
				appendStringInfo(&j, "%s%s.%s AS exwiw_key%d", k > 0 ? ", " : "",
								 fs->name, quote_identifier(t->pk.names[k]), k + 1);
			appendStringInfo(&j, " FROM %s) AS exwiw_k ON ", fs->name);
			for (int k = 0; k < t->pk.n; k++)
			{
				if (k > 0)
					appendStringInfoString(&j, " AND ");
				subset_append_eq(&j, psprintf("%s.%s", alias, quote_identifier(t->pk.names[k])),
								 t->pk.typids[k],
								 psprintf("exwiw_k.exwiw_key%d", k + 1),
								 t->pk.typids[k]);
			}
			from = j.data;
			where = "true";
			f->deps = list_make1_int(pl->rel[ti].fset);
			via_fset = true;
		}
		else if (pl->rel[ti].fset >= 0)
		{
			/* no key: the rows themselves are the set's */
			where = pl->rel[ti].pred;
			f->deps = list_copy(pl->rel[ti].pred_deps);
			f->fragment = pl->rel[ti].pred_frag;
		}
		else
		{
			where = pl->rel[ti].pred;
			if (pl->rel[ti].pred_from)
			{
				from = pl->rel[ti].pred_from;
				where = pl->rel[ti].pred_where;
			}
			else if (pl->rel[ti].pred_jfrom)
			{
				jfrom = pl->rel[ti].pred_jfrom;
				jwhere = pl->rel[ti].pred_jwhere;
				f->join_set = pl->rel[ti].seed_jset;
			}
			f->deps = list_copy(pl->rel[ti].pred_deps);
			f->fragment = pl->rel[ti].pred_frag;
		}
		f->fragment |= subset_select_has_fragment(t);

		initStringInfo(&q);
		if (pl->rel[ti].selfref && pl->rel[ti].may && t->pk.n > 0)
		{
			SubsetSet  *fs = planner_set(pl, pl->rel[ti].fset);
			int			i;

			/*
			 * rows numbered by key; $1 holds each row's depth
			 * (run/executor.c)
			 */
			appendStringInfo(&q, "SELECT %s FROM (SELECT pg_catalog.row_number() OVER (ORDER BY ",
							 subset_select_list(t));
			subset_append_cols(&q, alias, &t->pk);
			appendStringInfo(&q, ") AS exwiw_i, %s.* FROM %s WHERE %s) AS %s ORDER BY $1[CAST(exwiw_i AS pg_catalog.int4)], ",
							 alias, from, where, alias);
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

					if (!planner_edge_live(pl, e) || !SubsetEdgeIsSelf(e) || e->child != ti)
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
		else if (pl->rel[ti].batched)
		{
			/*
			 * batch_scope: batch after batch, rows no batch found last.  The
			 * joined set shows only names of ours, so that the user's
			 * unqualified column names in raw_sql or filter stay unambiguous.
			 */
			SubsetSet  *bs = planner_set(pl, pl->rel[ti].sset);

			appendStringInfo(&q, "SELECT %s FROM %s LEFT JOIN (SELECT ",
							 subset_select_list(t), from);
			for (int k = 0; k < t->pk.n; k++)
				appendStringInfo(&q, "%s.%s AS exwiw_batch_key%d, ",
								 bs->name, quote_identifier(t->pk.names[k]), k + 1);
			appendStringInfo(&q, "%s.exwiw_batch AS exwiw_batch_no FROM %s) AS exwiw_b ON ",
							 bs->name, bs->name);
			for (int k = 0; k < t->pk.n; k++)
			{
				if (k > 0)
					appendStringInfoString(&q, " AND ");
				subset_append_eq(&q, psprintf("%s.%s", alias, quote_identifier(t->pk.names[k])),
								 t->pk.typids[k],
								 psprintf("exwiw_b.exwiw_batch_key%d", k + 1),
								 t->pk.typids[k]);
			}
			appendStringInfo(&q, " WHERE %s ORDER BY exwiw_b.exwiw_batch_no, ", where);
			subset_append_cols(&q, alias, &t->pk);
			f->deps = list_append_unique_int(f->deps, pl->rel[ti].sset);
		}
		else
		{
			append_file_select(&q, t, from, where);
			/* every row of the table, when it is read whole (plan/whole.c) */
			if (planner_may_be_whole(pl, ti))
			{
				StringInfoData wq;

				initStringInfo(&wq);
				append_file_select(&wq, t, relsql, "true");
				f->whole_query = wq.data;
				f->whole_count_query = psprintf("SELECT pg_catalog.count(*) FROM %s",
												relsql);
			}
			/* the same rows, for a large parent set (run/executor.c) */
			if (jfrom != NULL)
			{
				StringInfoData jq;

				initStringInfo(&jq);
				append_file_select(&jq, t, jfrom, jwhere);
				f->join_query = jq.data;
			}
			if (via_fset && pl->rel[ti].fset_ctid)
			{
				/*
				 * The same rows read back by ctid (carries_ctid), which the
				 * executor runs for a set of few rows (run/executor.c): a TID
				 * scan per row, where a probe of the key's index would read
				 * its pages a second time.  A large set is better joined on
				 * the key's index, in the file's order, than sorted again, or
				 * read by the predicate below.
				 */
				SubsetSet  *fs = planner_set(pl, pl->rel[ti].fset);
				StringInfoData c;

				initStringInfo(&c);
				appendStringInfo(&c, "SELECT %s FROM %s JOIN (SELECT %s.exwiw_ctid AS exwiw_key1 FROM %s) AS exwiw_k ON ",
								 subset_select_list(t), relsql, fs->name, fs->name);
				subset_append_eq(&c, psprintf("%s.ctid", alias), TIDOID,
								 "exwiw_k.exwiw_key1", TIDOID);
				appendStringInfoString(&c, " WHERE true ORDER BY ");
				subset_append_cols(&c, alias, &t->pk);
				f->ctid_query = c.data;
				f->ctid_set = pl->rel[ti].fset;
			}
			if (via_fset && pl->rel[ti].xset < 0 && planner_seed_constant(pl, ti))
			{
				/*
				 * The same rows by the predicate exwiw_f was computed by,
				 * when closure adds none and it reads no set (the target's
				 * ids, a scope column's), which the executor runs for a set
				 * of more than SUBSET_CTID_MAX_ROWS rows (run/executor.c):
				 * for most of a table, one scan in key order beats sorting
				 * the set's million keys to merge them with the key's index.
				 * Closure adding none, the predicate is the seed, which a
				 * limit or a sample would run again (their fragment).  The
				 * set holding exactly the file's rows is count_set (below).
				 */
				StringInfoData pq;

				Assert(pl->rel[ti].pred_from == NULL);
				initStringInfo(&pq);
				append_file_select(&pq, t, relsql, pl->rel[ti].pred);
				f->pred_query = pq.data;
			}
		}
		f->query = q.data;

		/*
		 * Its rows counted without reading them (exwiw_explain's count_rows):
		 * read by key from the set of its keys, which holds each of its rows
		 * once, they are that set's rows; else they are those of from and
		 * where, whatever the branch above made of them (a self-reference's
		 * numbering and a batch's join add none).
		 */
		if (via_fset)
			f->count_set = pl->rel[ti].fset;
		f->count_query = psprintf("SELECT pg_catalog.count(*) FROM %s WHERE %s",
								  from, where);
		if (jfrom != NULL)
			f->count_join_query = psprintf("SELECT pg_catalog.count(*) FROM %s WHERE %s",
										   jfrom, jwhere);

		/*
		 * Rows the filter would have dropped: those that closure added (and,
		 * in a self-referencing table, the ancestors it added).
		 */
		if (t->filter && t->pk.n > 0 &&
			(pl->rel[ti].selfref ? pl->rel[ti].fset : pl->rel[ti].xset) >= 0)
		{
			SubsetSet  *xs = planner_set(pl, pl->rel[ti].selfref ? pl->rel[ti].fset : pl->rel[ti].xset);
			StringInfoData c;

			initStringInfo(&c);
			appendStringInfo(&c, "SELECT pg_catalog.count(*) FROM %s WHERE ", relsql);
			planner_append_key_match(&c, alias, t, xs);
			appendStringInfo(&c, " AND NOT COALESCE((\n%s\n), false)", t->filter);
			f->filter_set = pl->rel[ti].selfref ? pl->rel[ti].fset : pl->rel[ti].xset;
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
 *		Keep only the files numbered in files (n file numbers, decoded from
 *		the int4[] of the call), and only the row sets they read: the export
 *		writes part of its files, as a parallel client's worker does, and
 *		computes no more than those need.  Every number must be one of the
 *		plan's files.
 */
void
subset_plan_keep_files(SubsetPlan *plan, const int32 *files, int n)
{
	int			i,
				j,
				kept = 0;
	bool		target_kept = false;

	for (j = 0; j < n; j++)
	{
		bool		found = false;

		for (i = 0; i < plan->nfiles; i++)
			found |= (plan->files[i].seq == files[j]);
		if (!found)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("file number %d is not in the plan", files[j]),
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
			keep |= (f->seq == files[j]);
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
 * table_has_decision
 *		Has the config decided how table ti's rows are chosen: a belongs_to,
 *		a scope_column, a reverse_scope, scope_exempt or "export": "all"?
 */
static bool
table_has_decision(SubsetConfig *cfg, int ti)
{
	SubsetTable *t = &cfg->tables[ti];
	int			i;

	if (t->export_all || t->scope_col.n > 0 || t->has_reverse ||
		t->scope_exempt || t->rails_managed)
		return true;
	for (i = 0; i < cfg->nedges; i++)
		if (cfg->edges[i].child == ti && !SubsetEdgeIsSelf(&cfg->edges[i]))
			return true;
	return false;
}

/*
 * collect_undecided
 *		The tables of the plan that would go out in full although nobody
 *		decided it (unrelated to the target, or tied by no rule), and those
 *		that safe mode marked "needs_scope_decision", that still have no
 *		decision and whose rows do not come in as parents of exported rows,
 *		in processing order.
 */
static void
collect_undecided(Planner *pl)
{
	SubsetPlan *plan = pl->plan;
	int			o;

	for (o = 0; o < plan->norder; o++)
	{
		int			ti = plan->order[o];
		SubsetTable *t = &pl->cfg->tables[ti];

		if (t->ignore)
			continue;

		/*
		 * Marked undecided: refused unless its rows come in as the parents of
		 * exported rows (a lookup table of the tenant's rows: fine).
		 */
		if (pl->rel[ti].kind == SEED_UNRELATED || pl->rel[ti].kind == SEED_FALLBACK ||
			(t->needs_scope_decision && !table_has_decision(pl->cfg, ti) &&
			 ti != plan->target && !(pl->rel[ti].kind == SEED_NONE && pl->rel[ti].may)))
			plan->undecided = lappend(plan->undecided, t->name);
	}
}

/*
 * append_table_fixes
 *		One hint line per undecided table: the config key that settles it
 *		("Table "x": add "export": "all" to its config ..."), so that the
 *		client can name the file that holds the table's config.
 */
static void
append_table_fixes(StringInfo hint, List *undecided)
{
	ListCell   *lc;

	foreach(lc, undecided)
		appendStringInfo(hint, "%sTable \"%s\": add \"export\": \"all\" to its config to export every row, or \"ignore\": true to leave it out.",
						 hint->len ? "\n" : "", (char *) lfirst(lc));
}

/*
 * subset_plan_check_decided
 *		Safe mode: error out when anything waits for a person, naming every
 *		such decision in one message so that one round of edits settles
 *		them: columns marked "needs_mask_decision" without a mask, tables
 *		the plan would export in full that nobody decided to (or marked
 *		"needs_scope_decision"), and polymorphic arms whose type maps to no
 *		table ("needs_table_decision").  With allow_undecided nothing is
 *		refused; the arms without a table are left out with a WARNING.
 */
void
subset_plan_check_decided(SubsetPlan *plan, bool allow_undecided)
{
	StringInfoData cols,
				tables,
				arms,
				props,
				detail,
				hint;
	ListCell   *lc;
	int			ncols,
				ntables = list_length(plan->undecided),
				narms,
				nprops,
				kinds;

	initStringInfo(&cols);
	initStringInfo(&tables);
	initStringInfo(&arms);
	initStringInfo(&props);
	ncols = subset_config_undecided_columns(plan->cfg, &cols);
	narms = subset_config_undecided_arms(plan->cfg, &arms);
	nprops = subset_config_proposals(plan->cfg, &props);
	if (allow_undecided)
	{
		if (nprops > 0)
			ereport(WARNING,
					(errmsg_plural("%d proposed relation is not applied: %s",
								   "%d proposed relations are not applied: %s",
								   nprops, nprops, props.data),
					 errhint("Accept a proposal by removing its \"proposed\" key, or reject it with \"ignore\": true.")));
		if (narms > 0)
			ereport(WARNING,
					(errmsg("rows of %d polymorphic type%s that map%s to no table have no parent: %s",
							narms, narms == 1 ? "" : "s", narms == 1 ? "s" : "", arms.data),
					 errhint("Name the table in the arm's \"table_name\", or set \"ignore\": true on the arm.")));
		return;
	}
	kinds = (ncols > 0) + (ntables > 0) + (narms > 0) + (nprops > 0);
	if (kinds == 0)
		return;
	foreach(lc, plan->undecided)
		appendStringInfo(&tables, "%s%s", foreach_current_index(lc) ? ", " : "",
						 (char *) lfirst(lc));
	initStringInfo(&detail);
	initStringInfo(&hint);
	if (ncols > 0)
	{
		appendStringInfo(&detail, "Columns that need a mask decision: %s.", cols.data);
		appendStringInfoString(&hint, "Give each column a mask (\"replace_with\" or \"raw_sql\"), or set \"needs_mask_decision\": false to export it as it is.");
	}
	if (ntables > 0)
	{
		appendStringInfo(&detail, "%sTables that need a scope decision: %s. No rule ties their rows to the target, so they would be exported in full.",
						 detail.len ? "\n" : "", tables.data);
		append_table_fixes(&hint, plan->undecided);
		appendStringInfoString(&hint, "\nOr add a belongs_to (or a scope_column) that ties a table's rows to the target.");
	}
	if (narms > 0)
	{
		appendStringInfo(&detail, "%sPolymorphic types that map to no table: %s. Their rows would be exported without their parent rows.",
						 detail.len ? "\n" : "", arms.data);
		appendStringInfo(&hint, "%sFor each type, name the table that holds its rows in the arm's \"table_name\", or set \"ignore\": true on the arm.",
						 hint.len ? "\n" : "");
	}
	if (nprops > 0)
	{
		appendStringInfo(&detail, "%sRelations proposed from evidence: %s. A proposal is not applied until a person accepts it.",
						 detail.len ? "\n" : "", props.data);
		appendStringInfo(&hint, "%sFor each proposal, read its \"evidence\"; accept it by removing \"proposed\", or reject it with \"ignore\": true.",
						 hint.len ? "\n" : "");
	}
	appendStringInfo(&hint, "\nallow_undecided => true exports without these decisions.");
	if (kinds > 1 || nprops > 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg_plural("the config needs %d decision", "the config needs %d decisions",
							   ncols + ntables + narms + nprops, ncols + ntables + narms + nprops),
				 errdetail_internal("%s", detail.data),
				 errhint("%s", hint.data)));
	else if (ncols > 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg_plural("%d column of the config needs a mask decision",
							   "%d columns of the config need a mask decision",
							   ncols, ncols),
				 errdetail("Undecided: %s.", cols.data),
				 errhint("Give each a mask (\"replace_with\" or \"raw_sql\"), or set \"needs_mask_decision\": false to export it as it is; allow_undecided => true exports them unmasked.")));
	else if (ntables > 0)
	{
		resetStringInfo(&hint);
		append_table_fixes(&hint, plan->undecided);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg_plural("%d table of the config needs a scope decision",
							   "%d tables of the config need a scope decision",
							   ntables, ntables),
				 errdetail("Undecided: %s. No rule ties their rows to the target, so they would be exported in full.",
						   tables.data),
				 errhint("%s\nOr add a belongs_to (or a scope_column) that ties the rows to the target; allow_undecided => true exports them in full.",
						 hint.data)));
	}
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg_plural("%d polymorphic type of the config maps to no table",
							   "%d polymorphic types of the config map to no table",
							   narms, narms),
				 errdetail("Undecided: %s. Their rows would be exported without their parent rows.",
						   arms.data),
				 errhint("For each, name the table that holds its rows in the arm's \"table_name\", or set \"ignore\": true on the arm; allow_undecided => true exports them without a parent.")));
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

	for (n = plan->nfiles > 0 ? plan->files[plan->nfiles - 1].seq : 0; n >= 1000; n /= 10)
		width++;
	for (i = 0; i < plan->nfiles; i++)
	{
		SubsetFile *f = &plan->files[i];
		const char *name = plan->cfg->tables[f->table].name;

		f->file_name = exwiw_file_name(f->seq, width, name, ext);
		/* the Ruby client's number: the last table's delete file first */
		if (!f->fixup)
			f->delete_name = exwiw_named_file("delete", plan->norder + 1 - f->seq,
											  width, name, "sql");
	}
}

/*
 * target_hint
 *		The hint for a target the config does not name: the config's names
 *		nearest to it (Levenshtein distance, as the server's "Perhaps you
 *		meant" hints), or, when none is near, the first of its names.
 */
static char *
target_hint(SubsetConfig *cfg, const char *target)
{
	StringInfoData s;
	int			best = -1;
	int			limit = Max(2, (int) strlen(target) / 3);
	int			i,
				n = 0;

	initStringInfo(&s);
	for (i = 0; i < cfg->ntables; i++)
	{
		const char *name = cfg->tables[i].name;
		int			d = varstr_levenshtein_less_equal(target, strlen(target), name,
													  strlen(name), 1, 1, 1, limit, true);

		if (d <= limit && (best < 0 || d < best))
			best = d;
	}
	if (best >= 0)
	{
		appendStringInfoString(&s, "Perhaps you meant ");
		for (i = 0; i < cfg->ntables; i++)
		{
			const char *name = cfg->tables[i].name;

			if (varstr_levenshtein_less_equal(target, strlen(target), name, strlen(name),
											  1, 1, 1, limit, true) == best && n < 3)
				appendStringInfo(&s, "%s\"%s\"", n++ ? " or " : "", name);
		}
		appendStringInfoString(&s, ": name the target as the config does.");
		return s.data;
	}
	appendStringInfoString(&s, "Name the target as the config does");
	for (i = 0; i < cfg->ntables && i < 5; i++)
		appendStringInfo(&s, "%s\"%s\"", i ? ", " : ": ", cfg->tables[i].name);
	if (cfg->ntables > 5)
		appendStringInfo(&s, " and %d more", cfg->ntables - 5);
	appendStringInfoChar(&s, '.');
	return s.data;
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
					 errhint("%s", target_hint(cfg, target))));
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

	if (e->table)
		errcontext("%s, planning the export of target table \"%s\"", e->funcname, e->table);
	else
		errcontext("%s, planning the export", e->funcname);
}

/*
 * plan_build_once
 *		Plan the export of the rows of target with primary keys ids, once.
 *		The processing order depends on the config alone: the first attempt
 *		computes it into *order (in keep, the caller's memory, which outlives
 *		the attempt's subtransaction and its memory), and a retry reuses it,
 *		with its WARNINGs said once.  Everything else is allocated in the
 *		current memory context, the attempt's.
 */
static SubsetPlan *
plan_build_once(const SubsetRequest *req, int **order, int *norder,
				MemoryContext keep)
{
	Planner		pl;
	SubsetPlan *plan = palloc0(sizeof(SubsetPlan));
	SubsetConfig *cfg = req->cfg;
	const char *funcname = req->funcname;
	const char *target = req->target;
	int			nt = cfg->ntables;
	int			i;
	SubsetErrorContext ectx = {funcname, NULL, NULL};
	ErrorContextCallback errcb;

	errcb.callback = plan_error_context;
	errcb.arg = &ectx;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;
	ectx.table = target;

	memset(&pl, 0, sizeof(pl));
	pl.req = req;
	pl.funcname = funcname;
	pl.cfg = cfg;
	pl.plan = plan;
	pl.nt = nt;
	plan->cfg = cfg;
	plan->target = target ? find_target(cfg, target) : -1;
	if (*order == NULL)
	{
		MemoryContext attempt = MemoryContextSwitchTo(keep);

		*order = subset_processing_order(cfg, norder);
		MemoryContextSwitchTo(attempt);
	}
	plan->order = *order;
	plan->norder = *norder;

	pl.rel = palloc0(sizeof(PlannerRel) * Max(nt, 1));
	for (i = 0; i < nt; i++)
	{
		pl.rel[i].pos = -1;
		pl.rel[i].all_arm = -1;
		pl.rel[i].dist = -1;
		pl.rel[i].path = -1;
		pl.rel[i].sset = pl.rel[i].xset = pl.rel[i].fset = -1;
		pl.rel[i].uset = -1;
	}
	for (i = 0; i < plan->norder; i++)
		pl.rel[plan->order[i]].pos = i;
	/* each table's edges, so that a walk of one table's is not one of all */
	for (i = 0; i < cfg->nedges; i++)
	{
		pl.rel[cfg->edges[i].child].out_edges =
			lappend_int(pl.rel[cfg->edges[i].child].out_edges, i);
		pl.rel[cfg->edges[i].parent].in_edges =
			lappend_int(pl.rel[cfg->edges[i].parent].in_edges, i);
	}

	/* decide: every table's rule and arms, and which sets are read */
	planner_seeds(&pl);
	collect_undecided(&pl);
	planner_closure_prepare(&pl);
	/* write: the sets' SQL in dependency order, then the files' */
	for (i = 0; i < plan->norder; i++)
		if (!cfg->tables[plan->order[i]].ignore)
			planner_build_rows(&pl, plan->order[i]);
	planner_whole(&pl);
	plan_files(&pl);
	plan_fixups(&pl);
	planner_delete_conditions(&pl);

	plan->nsets = list_length(pl.sets);
	plan->sets = palloc0(sizeof(SubsetSet) * Max(plan->nsets, 1));
	for (i = 0; i < plan->nsets; i++)
	{
		plan->sets[i] = *planner_set(&pl, i);
		plan->sets[i].needed = true;
	}
	plan->ids_query = planner_ids_query(&pl);
	plan->target_nids = pl.scope_mode ? 0 : pl.target_nids;
	error_context_stack = errcb.previous;
	return plan;
}

/*
 * subset_plan_build
 *		Plan the export of the rows of target with primary keys ids.  A
 *		forward cascade (plan/decide.c's rule 6) takes the rows of a parent
 *		whose own rows may come from the closure of the cascade's children:
 *		in a real schema the two can depend on each other.  When planning
 *		finds such a cycle (planner_cycle_error marks the cascading tables of
 *		it), it plans again, in a subtransaction each time so that nothing
 *		of the failed attempt stays open, with those tables' cascade off:
 *		they are then chosen by what references them, or left undecided.
 *		Each retry turns off at least one cascade, so this ends.
 */
SubsetPlan *
subset_plan_build(const SubsetRequest *req)
{
	SubsetConfig *cfg = req->cfg;
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	int		  **order = palloc0(sizeof(int *)); /* kept across attempts */
	int		   *norder = palloc0(sizeof(int));

	for (;;)
	{
		SubsetPlan *volatile plan = NULL;
		volatile bool retry = false;

		/*
		 * An attempt's memory (on GitLab's schema, tens of MB of sets and
		 * their SQL) goes with it when it fails; the plan stays in it.
		 */
		MemoryContext attempt = AllocSetContextCreate(cxt, "exwiw plan attempt",
													  ALLOCSET_DEFAULT_SIZES);

		BeginInternalSubTransaction(NULL);
		MemoryContextSwitchTo(attempt);
		PG_TRY();
		{
			plan = plan_build_once(req, order, norder, cxt);
			ReleaseCurrentSubTransaction();
			MemoryContextSwitchTo(cxt);
			CurrentResourceOwner = owner;
		}
		PG_CATCH();
		{
			ErrorData  *edata;

			/* the subtransaction ends whatever the error, as plpgsql's do */
			MemoryContextSwitchTo(cxt);
			edata = CopyErrorData();
			FlushErrorState();
			RollbackAndReleaseCurrentSubTransaction();
			MemoryContextSwitchTo(cxt);
			CurrentResourceOwner = owner;
			if (!cfg->cascade_cut)
				ReThrowError(edata);
			cfg->cascade_cut = false;
			elog(DEBUG1, "planning again, with a cascade off: %s", edata->message);
			FreeErrorData(edata);
			MemoryContextDelete(attempt);
			retry = true;
		}
		PG_END_TRY();
		if (!retry)
			return plan;
		CHECK_FOR_INTERRUPTS();
	}
}
