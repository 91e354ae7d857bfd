/*-------------------------------------------------------------------------
 *
 * run/sets.c
 *	  The row sets of a subset export: each computed once by its query into
 *	  a tuplestore and registered as an ephemeral named relation (a table
 *	  with batch_scope in slices), or carried by each query as CTEs where
 *	  Citus is installed; and running the queries that read them.
 *
 *-------------------------------------------------------------------------
 */
#include "subset/subset.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "executor/executor.h"
#include "executor/spi_priv.h"
#include "executor/tstoreReceiver.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/queryenvironment.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"
#include "subset/run/run.h"

/*
 * run_enr_list
 *		The ephemeral relations of the sets in deps.
 */
List *
run_enr_list(SubsetRun *run, List *deps)
{
	List	   *enrs = NIL;
	ListCell   *lc;

	foreach(lc, deps)
	{
		Assert(run->enrs[lfirst_int(lc)] != NULL);
		enrs = lappend(enrs, run->enrs[lfirst_int(lc)]);
	}
	return enrs;
}

/*
 * run_catalog_rows
 *		The rows the catalog estimates table relid holds (pg_class's
 *		reltuples); 0 or less when it has no estimate (a table never
 *		analyzed or vacuumed, a partitioned one) or is gone.
 */
float4
run_catalog_rows(Oid relid)
{
	HeapTuple	tp = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	float4		reltuples;

	if (!HeapTupleIsValid(tp))
		return 0;
	reltuples = ((Form_pg_class) GETSTRUCT(tp))->reltuples;
	ReleaseSysCache(tp);
	return reltuples;
}

/*
 * run_set_is_large
 *		Does set setno, computed as a relation, hold at least a tenth as many
 *		rows as the catalog estimates table relid holds?  Then a query that
 *		reads its keys had better join them than look them up with IN
 *		(plan/seeds.c, seed_as_join).  No estimate (run_catalog_rows): no.
 */
bool
run_set_is_large(SubsetRun *run, int setno, Oid relid)
{
	float4		reltuples;

	if (setno < 0 || run->inline_sets || run->enrs[setno] == NULL)
		return false;
	reltuples = run_catalog_rows(relid);
	return reltuples > 0 && run->enrs[setno]->md.enrtuples * 10.0 >= reltuples;
}

/*
 * prepare_set_query
 *		Parse and plan the query of set under the sets registered now (an
 *		SPI connection is open), with a pinned search_path unless a user's
 *		fragment is in it.
 */
static SPIPlanPtr
prepare_set_query(SubsetSet *set)
{
	SPIPlanPtr	plan;
	int			nest = -1;

	if (!set->fragment)
		nest = exwiw_pin_search_path();
	plan = SPI_prepare(set->query, 0, NULL);
	if (plan == NULL)
		elog(ERROR, "could not prepare the query of set %s: %s", set->name,
			 SPI_result_code_string(SPI_result));
	if (nest >= 0)
		exwiw_restore_settings(nest);
	return plan;
}

/*
 * run_walk_plan
 *		When sql, the query of plan (prepared with nargs parameters of
 *		argtypes in the current SPI connection), hashes or merges a whole
 *		table against a small row set (walk.c), the same query prepared and
 *		planned again as an index walk, if walk.c keeps it; else NULL.  The
 *		caller frees it.  Called where plan runs, under the same settings,
 *		so that the plan cache keeps the walk's plan.
 */
SPIPlanPtr
run_walk_plan(SPIPlanPtr plan, const char *sql, int nargs, Oid *argtypes)
{
	CachedPlan *cplan = SPI_plan_get_cached_plan(plan);
	SPIPlanPtr	walk = NULL;

	if (cplan == NULL)
		return NULL;
	if (list_length(cplan->stmt_list) == 1 &&
		exwiw_walk_wanted(linitial_node(PlannedStmt, cplan->stmt_list)))
	{
		int			nest = exwiw_pin_walk();
		CachedPlan *wplan;

		walk = SPI_prepare(sql, nargs, argtypes);
		if (walk == NULL)
			elog(ERROR, "could not prepare a query: %s", SPI_result_code_string(SPI_result));
		wplan = SPI_plan_get_cached_plan(walk);
		exwiw_restore_settings(nest);
		if (wplan == NULL || list_length(wplan->stmt_list) != 1 ||
			!exwiw_walk_kept(linitial_node(PlannedStmt, cplan->stmt_list),
							 linitial_node(PlannedStmt, wplan->stmt_list)))
		{
			if (wplan != NULL)
				ReleaseCachedPlan(wplan, walk->saved ? CurrentResourceOwner : NULL);
			SPI_freeplan(walk);
			walk = NULL;
		}
		else
			ReleaseCachedPlan(wplan, walk->saved ? CurrentResourceOwner : NULL);
	}
	ReleaseCachedPlan(cplan, plan->saved ? CurrentResourceOwner : NULL);
	return walk;
}

/*
 * execute_plan
 *		SPI_execute_plan_extended(plan, opts), after reading ahead the pages
 *		its index probes of the sets in prefetch (EphemeralNamedRelation)
 *		will read (exwiw_prefetch_plan), when exwiw.io_concurrency asks
 *		for it.  The plan prefetched from is the generic one that the
 *		execution then takes from the plan cache (a set's query has no
 *		parameter).  With sql, the plan's query, it may run as an index
 *		walk instead (run_walk_plan).
 */
static int
execute_plan(SPIPlanPtr plan, const SPIExecuteOptions *opts, List *prefetch,
			 const char *sql)
{
	SPIPlanPtr	walk = sql != NULL ? run_walk_plan(plan, sql, 0, NULL) : NULL;
	int			ret;

	if (walk != NULL)
		plan = walk;
	if (prefetch != NIL && exwiw_io_concurrency > 0)
	{
		CachedPlan *cplan = SPI_plan_get_cached_plan(plan);

		if (cplan != NULL)
		{
			if (list_length(cplan->stmt_list) == 1)
				exwiw_prefetch_plan(linitial_node(PlannedStmt, cplan->stmt_list),
									prefetch);
			ReleaseCachedPlan(cplan, plan->saved ? CurrentResourceOwner : NULL);
		}
	}
	ret = SPI_execute_plan_extended(plan, opts);
	if (walk != NULL)
		SPI_freeplan(walk);
	return ret;
}

/*
 * run_execute_withheld
 *		execute_plan(plan, opts, prefetch, sql); when w.on, an error it
 *		raises (planning included) is withheld (exwiw_withhold_error).
 */
int
run_execute_withheld(SPIPlanPtr plan, const SPIExecuteOptions *opts, Withhold w,
					 List *prefetch, const char *sql)
{
	MemoryContext old = CurrentMemoryContext;
	int			ret = 0;

	if (!w.on)
		return execute_plan(plan, opts, prefetch, sql);
	PG_TRY();
	{
		ret = execute_plan(plan, opts, prefetch, sql);
	}
	PG_CATCH();
	{
		exwiw_withhold_error(old, w.table, w.masked, w.keys);
	}
	PG_END_TRY();
	return ret;
}

/*
 * run_planned_set
 *		Run plan, the query of set, appending its rows to ts.  Returns a
 *		copy of its result descriptor in cxt.  An error of a set of a table
 *		with masked columns, or holding a filter in an export with some, is
 *		withheld (withhold_for).  With prefetch, the pages its index probes
 *		of the sets it reads will read are asked for first (execute_plan);
 *		not in a batch, whose sets are slices registered under the sets'
 *		names, not run->enrs.
 */
static TupleDesc
run_planned_set(SubsetRun *run, SubsetSet *set, SPIPlanPtr plan,
				Tuplestorestate *ts, MemoryContext cxt, bool prefetch)
{
	CachedPlanSource *src = linitial(SPI_plan_get_plan_sources(plan));
	DestReceiver *dest = CreateDestReceiver(DestTuplestore);
	SPIExecuteOptions opts;
	MemoryContext old;
	TupleDesc	desc;
	int			nest = -1;
	int			io;
	int			ret;
	Withhold	w = run_withhold_for(run, set->table, set->fragment, false);

	SetTuplestoreDestReceiverParams(dest, ts, cxt, false, NULL, NULL);
	memset(&opts, 0, sizeof(opts));
	opts.read_only = true;
	opts.dest = dest;
	io = exwiw_pin_io_settings();
	if (!set->fragment)
		nest = exwiw_pin_search_path();
	ret = run_execute_withheld(plan, &opts, w,
							   prefetch && !run->inline_sets ?
							   run_enr_list(run, set->deps) : NIL,
							   prefetch ? set->query : NULL);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "could not compute set %s: %s", set->name,
			 SPI_result_code_string(ret));
	if (nest >= 0)
		exwiw_restore_settings(nest);
	if (io >= 0)
		exwiw_restore_settings(io);
	old = MemoryContextSwitchTo(cxt);
	desc = CreateTupleDescCopy(src->resultDesc);
	MemoryContextSwitchTo(old);
	dest->rDestroy(dest);
	return desc;
}

/*
 * run_set_query
 *		Plan the query of set now and run it, appending its rows to ts.
 *		Returns a copy of its result descriptor in cxt.
 */
static TupleDesc
run_set_query(SubsetRun *run, SubsetSet *set, Tuplestorestate *ts,
			  MemoryContext cxt)
{
	SPIPlanPtr	plan = prepare_set_query(set);
	TupleDesc	desc = run_planned_set(run, set, plan, ts, cxt, true);

	SPI_freeplan(plan);
	return desc;
}

/*
 * make_set
 *		The ephemeral named relation name over tuplestore ts, of rows desc,
 *		made in cxt (not registered).
 */
static EphemeralNamedRelation
make_set(const char *name, TupleDesc desc, Tuplestorestate *ts,
		 MemoryContext cxt)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	EphemeralNamedRelation enr = palloc0(sizeof(EphemeralNamedRelationData));

	enr->md.name = pstrdup(name);
	enr->md.reliddesc = InvalidOid;
	enr->md.tupdesc = desc;
	enr->md.enrtype = ENR_NAMED_TUPLESTORE;
	enr->md.enrtuples = tuplestore_tuple_count(ts);
	enr->reldata = ts;
	MemoryContextSwitchTo(old);
	return enr;
}

/*
 * register_set
 *		make_set, and register the relation in the SPI connection.
 */
static EphemeralNamedRelation
register_set(const char *name, TupleDesc desc, Tuplestorestate *ts,
			 MemoryContext cxt)
{
	EphemeralNamedRelation enr = make_set(name, desc, ts, cxt);
	MemoryContext old = MemoryContextSwitchTo(cxt);

	if (SPI_register_relation(enr) != SPI_OK_REL_REGISTER)
		elog(ERROR, "could not register set %s", name);
	MemoryContextSwitchTo(old);
	return enr;
}

/*
 * swap_set
 *		Make enr the relation registered under its name.
 */
static void
swap_set(EphemeralNamedRelation enr)
{
	if (SPI_unregister_relation(enr->md.name) != SPI_OK_REL_UNREGISTER)
		elog(ERROR, "could not unregister set %s", enr->md.name);
	if (SPI_register_relation(enr) != SPI_OK_REL_REGISTER)
		elog(ERROR, "could not register set %s", enr->md.name);
}

/*
 * sorted_source
 *		The rows of set i's batch source in batch order (its query sorts
 *		the keys as text), in a tuplestore made in cxt.
 */
static Tuplestorestate *
sorted_source(SubsetRun *run, SubsetSet *set, MemoryContext cxt)
{
	SubsetSet	order = *set;
	MemoryContext old = MemoryContextSwitchTo(cxt);
	Tuplestorestate *ts = tuplestore_begin_heap(false, false, work_mem);

	MemoryContextSwitchTo(old);
	order.query = set->batch_order;
	order.fragment = false;
	(void) run_set_query(run, &order, ts, cxt);
	return ts;
}

/*
 * compute_batched_set
 *		batch_scope: run the query of set i once per slice of batch_size
 *		rows of its source set (in the order of their keys as text), each
 *		time after the sets of its chain were computed again from the slice
 *		alone; its rows are appended with the batch number as a last
 *		column.  The slices partition the source, and the chain follows one
 *		belongs_to per row, so each row is found in exactly one batch: the
 *		union is the set the query computes at once.  The queries are
 *		planned at the first batch, for a slice, so they read the foreign
 *		key indexes however many rows the whole scope holds, and the plans
 *		serve every batch.  Memory: one slice and the chain's sets of one
 *		batch, freed after it; tuplestores spill to disk past work_mem.
 */
static void
compute_batched_set(SubsetRun *run, int i)
{
	SubsetSet  *set = &run->plan->sets[i];
	EphemeralNamedRelation src = run->enrs[set->batch_source];
	MemoryContext batchcxt;
	MemoryContext old;
	Tuplestorestate *sorted;
	Tuplestorestate *all;
	TupleDesc	desc;
	TupleDesc	outdesc;
	TupleTableSlot *srcslot;
	TupleTableSlot *rowslot;
	Datum	   *values;
	bool	   *nulls;
	int			batch = 0;
	int			nbatches;
	int			nchain = list_length(set->batch_chain);
	SPIPlanPtr *plans = palloc0(sizeof(SPIPlanPtr) * (nchain + 1));
	ListCell   *lc;

	/* the descriptor of the set's query, and of the set: one more column */
	{
		SPIPlanPtr	plan = prepare_set_query(set);
		CachedPlanSource *psrc = linitial(SPI_plan_get_plan_sources(plan));

		old = MemoryContextSwitchTo(run->cxt);
		desc = CreateTupleDescCopy(psrc->resultDesc);
		outdesc = CreateTemplateTupleDesc(desc->natts + 1);
		for (int a = 1; a <= desc->natts; a++)
			TupleDescCopyEntry(outdesc, a, desc, a);
		TupleDescInitEntry(outdesc, desc->natts + 1, "exwiw_batch", INT4OID, -1, 0);
		all = tuplestore_begin_heap(false, false, work_mem);
		values = palloc(sizeof(Datum) * (desc->natts + 1));
		nulls = palloc(sizeof(bool) * (desc->natts + 1));
		MemoryContextSwitchTo(old);
		SPI_freeplan(plan);
	}

	sorted = sorted_source(run, set, CurrentMemoryContext);
	nbatches = (int) ((tuplestore_tuple_count(sorted) + set->batch_size - 1) / set->batch_size);
	batchcxt = AllocSetContextCreate(CurrentMemoryContext, "exwiw batch",
									 ALLOCSET_DEFAULT_SIZES);
	srcslot = MakeSingleTupleTableSlot(src->md.tupdesc, &TTSOpsMinimalTuple);
	rowslot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	for (;;)
	{
		Tuplestorestate *slice;
		Tuplestorestate *found;
		List	   *temps = NIL;
		int			n = 0;
		int64		nfound = 0;

		CHECK_FOR_INTERRUPTS();
		old = MemoryContextSwitchTo(batchcxt);
		slice = tuplestore_begin_heap(false, false, work_mem);
		found = tuplestore_begin_heap(false, false, work_mem);
		MemoryContextSwitchTo(old);
		while (n < set->batch_size &&
			   tuplestore_gettupleslot(sorted, true, false, srcslot))
		{
			tuplestore_puttupleslot(slice, srcslot);
			n++;
		}
		if (n == 0)
		{
			tuplestore_end(slice);
			tuplestore_end(found);
			break;
		}
		batch++;

		/*
		 * The slice in place of the source, then the chain from it.  The
		 * queries are planned at the first batch, for a slice, and the plans
		 * serve every batch: a plan finds the sets by name when it runs.
		 */
		swap_set(make_set(src->md.name, src->md.tupdesc, slice, batchcxt));
		foreach(lc, set->batch_chain)
		{
			int			c = lfirst_int(lc);
			SubsetSet  *cs = &run->plan->sets[c];
			Tuplestorestate *ts;
			int			k = foreach_current_index(lc);

			old = MemoryContextSwitchTo(batchcxt);
			ts = tuplestore_begin_heap(false, false, work_mem);
			MemoryContextSwitchTo(old);
			if (plans[k] == NULL)
				plans[k] = prepare_set_query(cs);
			(void) run_planned_set(run, cs, plans[k], ts, batchcxt, false);
			swap_set(make_set(cs->name, run->enrs[c]->md.tupdesc, ts, batchcxt));
			temps = lappend(temps, ts);
		}
		if (plans[nchain] == NULL)
			plans[nchain] = prepare_set_query(set);
		(void) run_planned_set(run, set, plans[nchain], found, batchcxt, false);

		/* the rows found, with the batch number */
		while (tuplestore_gettupleslot(found, true, false, rowslot))
		{
			slot_getallattrs(rowslot);
			memcpy(values, rowslot->tts_values, sizeof(Datum) * desc->natts);
			memcpy(nulls, rowslot->tts_isnull, sizeof(bool) * desc->natts);
			values[desc->natts] = Int32GetDatum(batch);
			nulls[desc->natts] = false;
			tuplestore_putvalues(all, outdesc, values, nulls);
			nfound++;
		}
		ExecClearTuple(rowslot);
		ereport(DEBUG1,
				(errmsg_internal("batch_scope of table \"%s\": batch %d of %d, %d rows of table \"%s\", " INT64_FORMAT " rows found",
								 run->plan->cfg->tables[set->table].name, batch, nbatches, n,
								 run->plan->cfg->tables[run->plan->sets[set->batch_source].table].name,
								 nfound)));

		/* back to the whole sets */
		swap_set(src);
		foreach(lc, set->batch_chain)
			swap_set(run->enrs[lfirst_int(lc)]);
		foreach(lc, temps)
			tuplestore_end((Tuplestorestate *) lfirst(lc));
		tuplestore_end(slice);
		tuplestore_end(found);
		MemoryContextReset(batchcxt);
	}
	for (int k = 0; k <= nchain; k++)
		if (plans[k] != NULL)
			SPI_freeplan(plans[k]);
	ExecDropSingleTupleTableSlot(srcslot);
	ExecDropSingleTupleTableSlot(rowslot);
	tuplestore_end(sorted);
	MemoryContextDelete(batchcxt);
	run->enrs[i] = register_set(set->name, outdesc, all, run->cxt);
}

/*
 * run_compute_set
 *		Run the query of set i into a tuplestore and register it.  With
 *		whole, its table being read whole (run/whole.c, run_set_whole), its
 *		whole_query instead: the same rows read from the table alone, and
 *		none for a closure set, whose rows are the seed's already.  Assumes
 *		an SPI connection in which the sets it reads are registered.
 */
void
run_compute_set(SubsetRun *run, int i, bool whole)
{
	SubsetSet  *set = &run->plan->sets[i];
	SubsetSet	fromtable;
	Tuplestorestate *ts;
	MemoryContext old;
	TupleDesc	desc;

	if (set->batch_source >= 0)
	{
		compute_batched_set(run, i);
		return;
	}
	old = MemoryContextSwitchTo(run->cxt);
	ts = tuplestore_begin_heap(false, false, work_mem);
	MemoryContextSwitchTo(old);
	if (whole)
	{
		if (set->kind == 'x')
			elog(DEBUG1, "set %s is empty: the seed of table \"%s\" holds every row",
				 set->name, run->plan->cfg->tables[set->table].name);
		fromtable = *set;
		fromtable.query = set->whole_query;
		fromtable.deps = NIL;
		fromtable.fragment = false;
		desc = run_set_query(run, &fromtable, ts, run->cxt);
	}
	else
		desc = run_set_query(run, set, ts, run->cxt);
	run->enrs[i] = register_set(set->name, desc, ts, run->cxt);
}

/*
 * run_query
 *		SPI_execute(sql) read-only, its errors withheld as w says.  The query
 *		is parsed and planned first, unwithheld, so that a mistake in a
 *		user's fragment (an unknown column, a type mismatch) is reported as
 *		it is: only its execution sees rows.  Planned without parallel
 *		workers (SPI_prepare), which would log their own errors.
 */
int
run_query(const char *sql, Withhold w)
{
	SPIPlanPtr	plan = SPI_prepare(sql, 0, NULL);
	SPIExecuteOptions opts;
	int			ret;

	if (plan == NULL)
		elog(ERROR, "could not prepare a query: %s", SPI_result_code_string(SPI_result));
	memset(&opts, 0, sizeof(opts));
	opts.read_only = true;
	ret = run_execute_withheld(plan, &opts, w, NIL, NULL);
	SPI_freeplan(plan);
	return ret;
}

/*
 * run_with_sets
 *		query, reading the sets in deps (set indexes): as it is when the sets
 *		are ephemeral relations; with inline sets (Citus, whose planner
 *		knows no ephemeral relation), preceded by the sets it reads,
 *		transitively, as materialized CTEs of the same names, in the order
 *		of the plan (each after the sets it reads).  Every query then
 *		computes its sets again, on the same snapshot.
 */
char *
run_with_sets(SubsetRun *run, const char *query, List *deps)
{
	SubsetPlan *plan = run->plan;
	bool	   *need;
	StringInfoData q;
	ListCell   *lc;
	bool		first = true;
	bool		recursive = strncmp(query, "WITH RECURSIVE ", 15) == 0;
	int			i;

	if (!run->inline_sets || deps == NIL)
		return pstrdup(query);
	need = palloc0(sizeof(bool) * plan->nsets);
	foreach(lc, deps)
		run_add_deps(plan, lfirst_int(lc), need);
	initStringInfo(&q);
	appendStringInfoString(&q, recursive ? "WITH RECURSIVE " : "WITH ");
	for (i = 0; i < plan->nsets; i++)
	{
		if (!need[i])
			continue;
		appendStringInfo(&q, "%s%s AS MATERIALIZED (%s)", first ? "" : ", ",
						 plan->sets[i].name, plan->sets[i].query);
		first = false;
	}
	/* the query's own CTEs follow ours */
	if (recursive)
		appendStringInfo(&q, ", %s", query + 15);
	else if (strncmp(query, "WITH ", 5) == 0)
		appendStringInfo(&q, ", %s", query + 5);
	else
		appendStringInfo(&q, " %s", query);
	pfree(need);
	return q.data;
}
