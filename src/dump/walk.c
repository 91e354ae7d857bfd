/*-------------------------------------------------------------------------
 *
 * walk.c
 *	  Index walks for a subset export's queries: a plan that hashes or
 *	  merges a whole table against a row set holding a small part of its
 *	  rows is planned again with hash and merge joins off, so that the
 *	  set's keys probe the table's indexes one by one.
 *
 * The planner sizes a row set (an ephemeral named relation) by its rows,
 * which it is told, but has no statistics of its values: it takes a
 * column of the set for 200 distinct values (DEFAULT_NUM_DISTINCT), so
 * that hashing the set looks costly, and it prices each index probe as a
 * random read from disk.  So for 100 of 1,000 shops it hashed all 2M
 * order items to find 200,000 of them (in 32 batches under
 * exwiw.work_mem), and merged along the whole of a primary key's index
 * for 100,000 orders, where the probes of the set's keys take a fifth of
 * the time (bench/tenant_vs_copy.sh).  The export knows what the planner
 * does not weigh: the set has K rows, the table R; where a hash or merge
 * join reads R >= WALK_RATIO * K rows of a table against a set of K, the
 * walk is tried.
 *
 * The walk's plan is kept when the planner's own estimate of it is at
 * most WALK_MAX_COST times its first plan's.  The planner overprices
 * probes of cached pages, about 2x in the cases above, but a walk without
 * an index that leads with the key (a nested loop that reads the whole
 * table once per key, or a join it must keep disabled) costs orders of
 * magnitude more, and is never taken.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"

#include "miscadmin.h"
#include "nodes/plannodes.h"

/* a set of K rows joined with a table's R rows: a walk's case when R >= this * K */
#define WALK_RATIO 4.0

/* scans of fewer rows are not worth planning twice */
#define WALK_MIN_ROWS 10000.0

/* the walk's estimated cost, at most this times the first plan's */
#define WALK_MAX_COST 4.0

/*
 * subtree_rows
 *		The most rows of one node of plan's subtree that reads a row set
 *		(sets true) or a table (sets false); -1 when there is none.
 */
static double
subtree_rows(Plan *plan, bool sets)
{
	double		rows = -1;
	ListCell   *lc;

	if (plan == NULL)
		return -1;
	check_stack_depth();
	switch (nodeTag(plan))
	{
		case T_NamedTuplestoreScan:
			if (sets)
				rows = plan->plan_rows;
			break;
		case T_SeqScan:
		case T_IndexScan:
		case T_IndexOnlyScan:
		case T_BitmapHeapScan:
		case T_TidScan:
			if (!sets)
				rows = plan->plan_rows;
			break;
		case T_Append:
			foreach(lc, ((Append *) plan)->appendplans)
				rows = Max(rows, subtree_rows(lfirst(lc), sets));
			break;
		case T_SubqueryScan:
			rows = subtree_rows(((SubqueryScan *) plan)->subplan, sets);
			break;
		default:
			break;
	}
	rows = Max(rows, subtree_rows(plan->lefttree, sets));
	return Max(rows, subtree_rows(plan->righttree, sets));
}

/*
 * join_walks
 *		Does a hash or merge join of plan's subtree read a table of at least
 *		WALK_RATIO times the rows of a set on its other side?
 */
static bool
join_walks(Plan *plan)
{
	ListCell   *lc;

	if (plan == NULL)
		return false;
	check_stack_depth();
	if (IsA(plan, HashJoin) || IsA(plan, MergeJoin))
	{
		Plan	   *sides[2] = {plan->lefttree, plan->righttree};

		for (int s = 0; s < 2; s++)
		{
			double		k = subtree_rows(sides[s], true);
			double		r = subtree_rows(sides[1 - s], false);

			if (k >= 0 && r >= WALK_MIN_ROWS && r >= WALK_RATIO * k)
				return true;
		}
	}
	if (IsA(plan, Append))
		foreach(lc, ((Append *) plan)->appendplans)
			if (join_walks(lfirst(lc)))
			return true;
	if (IsA(plan, SubqueryScan) && join_walks(((SubqueryScan *) plan)->subplan))
		return true;
	return join_walks(plan->lefttree) || join_walks(plan->righttree);
}

/*
 * exwiw_walk_wanted
 *		Would stmt, a subset export's query over row sets, be better walked
 *		(see above)?  Its subplans count too.
 */
bool
exwiw_walk_wanted(PlannedStmt *stmt)
{
	ListCell   *lc;

	if (join_walks(stmt->planTree))
		return true;
	foreach(lc, stmt->subplans)
		if (join_walks(lfirst(lc)))
		return true;
	return false;
}

/*
 * exwiw_walk_kept
 *		Is walk, stmt planned again under exwiw_pin_walk(), to be run
 *		instead of it: is its estimated cost at most WALK_MAX_COST times
 *		stmt's?  Says which at DEBUG1 (the error context names the query).
 */
bool
exwiw_walk_kept(PlannedStmt *stmt, PlannedStmt *walk)
{
	bool		kept = walk->planTree->total_cost <= WALK_MAX_COST * stmt->planTree->total_cost;

	ereport(DEBUG1,
			(errmsg_internal(kept ? "index walk: planned again with hash and merge joins off" :
							 "index walk: not taken, its estimate is over %g times the plan's",
							 WALK_MAX_COST)));
	return kept;
}
