/*-------------------------------------------------------------------------
 *
 * plan/planner.c
 *	  The helpers of the per-table struct every phase of the planner takes
 *	  (plan/planner.h): column lists, aliases, the row sets, the edges that
 *	  are live, the path walked (for a cycle's error), key matches and type
 *	  conditions, a request's ids by space.  Below every phase: it calls
 *	  none of them.
 *
 *-------------------------------------------------------------------------
 */
#include "subset/plan/planner.h"

#include "access/relation.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/syscache.h"

/*
 * planner_cols_union
 *		dst becomes the columns of dst and those of b that are not in it, in
 *		attnum order: allocated fresh when b adds a column, else left as it
 *		is.
 */
void
planner_cols_union(SubsetCols *dst, const SubsetCols *b)
{
	int			n = dst->n + b->n;
	int			i,
				j,
				k;
	SubsetCols	r;

	/* nothing to add (the common case): dst stays, nothing is allocated */
	for (i = 0; i < b->n; i++)
	{
		for (j = 0; j < dst->n && dst->attnums[j] != b->attnums[i]; j++)
			;
		if (j == dst->n)
			break;
	}
	if (i == b->n)
		return;

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

bool
planner_cols_equal(const SubsetCols *a, const SubsetCols *b)
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
const char *
planner_alias(SubsetTable *t)
{
	return quote_identifier(t->relname);
}

/*
 * planner_add_set
 *		Append a row set to the plan and return its index.
 */
int
planner_add_set(Planner *pl, const char *prefix, int table, char *query, bool frag,
				List *deps, const char *rule)
{
	SubsetSet  *s = palloc0(sizeof(SubsetSet));

	s->name = psprintf("exwiw_%s_%d", prefix, pl->rel[table].pos + 1);
	s->kind = prefix[0];
	s->table = table;
	s->query = query;
	s->fragment = frag;
	s->deps = deps;
	s->rule = pstrdup(rule);
	s->batch_source = -1;
	pl->sets = lappend(pl->sets, s);
	return list_length(pl->sets) - 1;
}

SubsetSet *
planner_set(Planner *pl, int i)
{
	return (SubsetSet *) list_nth(pl->sets, i);
}

/* A usable edge: between tables of this run, not broken. */
bool
planner_edge_live(Planner *pl, SubsetEdge *e)
{
	return !e->broken && !pl->cfg->tables[e->child].ignore &&
		!pl->cfg->tables[e->parent].ignore;
}

/*
 * planner_enter, planner_leave
 *		Table t's rows (its seed, added rows or all rows) are being built,
 *		or are built: the chain planner_cycle_error names.
 */
void
planner_enter(Planner *pl, int t)
{
	pl->chain = lappend_int(pl->chain, t);
}

void
planner_leave(Planner *pl)
{
	Assert(pl->chain != NIL);
	pl->chain = list_delete_last(pl->chain);
}

/*
 * planner_cycle_error
 *		Table t's rows were asked for while they are being built: they
 *		depend on themselves through the tables of the chain since t's
 *		entry (a cascade or a reverse_scope in a cycle).  Name them.  Does
 *		not return.
 */
void
planner_cycle_error(Planner *pl, int t)
{
	StringInfoData chain;
	ListCell   *lc;
	bool		on = false;

	initStringInfo(&chain);
	foreach(lc, pl->chain)
	{
		on |= (lfirst_int(lc) == t);
		/* a table enters twice in a row: its rows, then its added rows */
		if (on && !(foreach_current_index(lc) > 0 &&
					list_nth_int(pl->chain, foreach_current_index(lc) - 1) == lfirst_int(lc)))
			appendStringInfo(&chain, "%s -> ", pl->cfg->tables[lfirst_int(lc)].name);
	}
	appendStringInfoString(&chain, pl->cfg->tables[t].name);

	/* a cascade on the cycle: plan again without it (subset_plan_build) */
	on = false;
	foreach(lc, pl->chain)
	{
		on |= (lfirst_int(lc) == t);
		if (on && (pl->rel[lfirst_int(lc)].kind == SEED_CASCADE || pl->rel[lfirst_int(lc)].late))
		{
			pl->cfg->tables[lfirst_int(lc)].no_cascade = true;
			pl->cfg->cascade_cut = true;
		}
		if (on && pl->rel[lfirst_int(lc)].claims != NIL)
		{
			pl->cfg->tables[lfirst_int(lc)].no_claims = true;
			pl->cfg->cascade_cut = true;
		}
	}
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("the rows of table \"%s\" depend on themselves", pl->cfg->tables[t].name),
			 errdetail("Each table's rows are chosen from the next one's: %s.", chain.data),
			 errhint("Mark one of the belongs_tos between them \"ignore\", or give one of the tables a rule of its own (a belongs_to path, a scope_column, \"export\": \"all\").")));
}

/*
 * planner_append_key_match
 *		Append "the primary key of t (as alias) is among the keys of set":
 *		a semi-join, which hashes the set (the planner knows its rows but
 *		not how many distinct keys it holds).
 */
void
planner_append_key_match(StringInfo buf, const char *alias, SubsetTable *t,
						 SubsetSet *set)
{
	StringInfoData sub;

	initStringInfo(&sub);
	appendStringInfoString(&sub, "SELECT ");
	subset_append_cols(&sub, set->name, &t->pk);
	appendStringInfo(&sub, " FROM %s", set->name);
	subset_append_match(buf, alias, &t->pk, sub.data, &t->pk);
	pfree(sub.data);
}

/*
 * planner_append_type_cond
 *		Append "alias.type_col = 'value'" for polymorphic edge e (the column
 *		compared as text).
 */
void
planner_append_type_cond(StringInfo buf, const char *alias, SubsetEdge *e)
{
	Assert(SubsetEdgeIsPolymorphic(e));
	appendStringInfo(buf, "CAST(%s.%s AS pg_catalog.text) OPERATOR(pg_catalog.=) ",
					 alias, quote_identifier(e->type_col.names[0]));
	subset_append_literal(buf, e->type_value);
}

/*
 * subset_request_space
 *		The ids of id space `space` ("default" or NULL: the ids), or NULL
 *		when none were given for it.
 */
const SubsetIds *
subset_request_space(const SubsetRequest *req, const char *space)
{
	ListCell   *lc;

	if (space == NULL || strcmp(space, "default") == 0)
		return &req->ids;
	foreach(lc, req->spaces)
	{
		SubsetSpaceIds *s = lfirst(lc);

		if (strcmp(s->space, space) == 0)
			return &s->ids;
	}
	return NULL;
}

/*
 * planner_any_index
 *		Does fits say yes to the pg_index row of some index of table t (arg
 *		passed on)?  The rows are read from the syscache: no relcache entry
 *		is built for the indexes.
 */
bool
planner_any_index(SubsetTable *t, PlannerIndexTest fits, void *arg)
{
	Relation	rel = relation_open(t->relid, AccessShareLock);
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;
	bool		found = false;

	foreach(lc, indexes)
	{
		HeapTuple	it = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(lfirst_oid(lc)));

		if (!HeapTupleIsValid(it))
			elog(ERROR, "cache lookup failed for index %u", lfirst_oid(lc));
		found = fits(t, it, arg);
		ReleaseSysCache(it);
		if (found)
			break;
	}
	list_free(indexes);
	relation_close(rel, AccessShareLock);
	return found;
}
