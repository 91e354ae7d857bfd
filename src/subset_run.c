/*-------------------------------------------------------------------------
 *
 * subset_run.c
 *	  Running a subset plan: everything that happens before the first row
 *	  of the first file is read.
 *
 * In order:
 *
 *	1. privileges: SELECT on every table, and on every sequence whose value
 *	   a file will carry (a missing one is an error that names the GRANT);
 *	2. locks: ACCESS SHARE on every table (and partition) before any row is
 *	   read, as pg_dump does, honouring lock_timeout.  A concurrent TRUNCATE
 *	   or table rewrite then waits for the export.  One that committed after
 *	   the export's snapshot was taken but before the lock is detected (the
 *	   table's catalog row is newer than the snapshot) and fails the export,
 *	   rather than letting it read an emptied table;
 *	3. a NOTICE for target ids that match no row;
 *	4. the row sets of the plan, each computed once by its query into a
 *	   tuplestore (which spills to disk past work_mem) and registered as an
 *	   ephemeral named relation for the queries that read it (a set of a
 *	   table with batch_scope, in slices: compute_batched_set).  Where
 *	   Citus is installed, whose planner knows no ephemeral relation (or
 *	   exwiw.sets_as_ctes is on), nothing is computed here: each query
 *	   carries the sets it reads as CTEs (with_sets);
 *	5. a NOTICE for rows that a table's filter excludes but closure adds;
 *	6. the setval lines of every file, from the source sequences;
 *	7. for a self-referencing table, each row's depth in the exported tree,
 *	   by Kahn's algorithm over (row, parent) pairs: linear in rows, however
 *	   many self-references the table has.
 *
 * Every query runs on the caller's active snapshot: the same one for every
 * set and every file of the export.  Queries exwiw writes are parsed with a
 * pinned search_path; those holding a user's fragment, in the caller's.
 *
 *-------------------------------------------------------------------------
 */
#include "subset.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "executor/executor.h"
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

struct SubsetRun
{
	const char *funcname;
	SubsetPlan *plan;
	MemoryContext cxt;
	EphemeralNamedRelation *enrs;	/* per set */
	bool		inline_sets;	/* Citus: sets as CTEs of each query */
	List	  **sequences;		/* per file: ExwiwSequenceState * */
	ArrayType **depths;			/* per file: row depths, or NULL */
	bool		any_mask;		/* a table of the config has masked columns */
};

/* How an error of one query is withheld (see withhold_for). */
typedef struct Withhold
{
	bool		on;				/* withhold the message */
	const char *table;
	const char *masked;			/* its masked columns, or NULL */
	const char *keys;			/* the config keys the query evaluates */
} Withhold;

/*
 * masked_columns
 *		The masked columns of table t, comma-separated, or NULL when it has
 *		none.
 */
static char *
masked_columns(SubsetTable *t)
{
	StringInfoData cols;
	int			c;

	if (!t->any_mask)
		return NULL;
	initStringInfo(&cols);
	for (c = 0; c < t->ncols; c++)
		if (SubsetColumnIsMasked(&t->cols[c]))
			appendStringInfo(&cols, "%s%s", cols.len ? ", " : "", t->cols[c].name);
	return cols.data;
}

/*
 * fragment_keys
 *		The config keys of table t whose SQL a query evaluates, quoted and
 *		comma-separated: "filter" when filter (and the table has one), and
 *		the raw_sql of every column when raw_sql.  NULL when there is none.
 */
static char *
fragment_keys(SubsetTable *t, bool filter, bool raw_sql)
{
	StringInfoData keys;
	int			c;

	initStringInfo(&keys);
	if (filter && t->filter)
		appendStringInfoString(&keys, "\"filter\"");
	for (c = 0; raw_sql && c < t->ncols; c++)
		if (t->cols[c].raw_sql)
			appendStringInfo(&keys, "%s\"columns[%d].raw_sql\"", keys.len ? ", " : "",
							 t->cols[c].cfgpos);
	return keys.len > 0 ? keys.data : NULL;
}

/*
 * withhold_for
 *		Whether, and how, an error of a query that reads table ti (holding a
 *		user's fragment of it when fragment, raw_sql too when raw_sql) is
 *		withheld: when the table has masked columns, and when a fragment,
 *		which may read any table, runs in an export where some table has
 *		them.  The message of such an error could quote a masked value.
 */
static Withhold
withhold_for(SubsetRun *run, int ti, bool fragment, bool raw_sql)
{
	SubsetTable *t = &run->plan->cfg->tables[ti];
	Withhold	w;

	w.on = t->any_mask || (fragment && run->any_mask);
	w.table = t->name;
	w.masked = masked_columns(t);
	w.keys = fragment ? fragment_keys(t, true, raw_sql) : NULL;
	return w;
}

/*
 * check_select
 *		Error out unless the user may read table t (the table, or at least
 *		one of its columns: column privileges are checked by the queries).
 */
static void
check_select(SubsetTable *t)
{
	Oid			user = GetUserId();

	if (pg_class_aclcheck(t->relid, user, ACL_SELECT) == ACLCHECK_OK ||
		pg_attribute_aclcheck_all(t->relid, user, ACL_SELECT, ACLMASK_ANY) == ACLCHECK_OK)
		return;
	aclcheck_error(ACLCHECK_NO_PRIV, get_relkind_objtype(t->relkind), t->relname);
}

/*
 * table_changed_after_snapshot
 *		True when relid's catalog row was written by a transaction that the
 *		active snapshot does not see: a TRUNCATE, a rewrite or another DDL
 *		committed after the export began.
 */
static bool
table_changed_after_snapshot(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	TransactionId xmin;
	bool		changed;

	if (!HeapTupleIsValid(tup))
		return true;
	xmin = HeapTupleHeaderGetXmin(tup->t_data);
	changed = TransactionIdIsNormal(xmin) &&
		!TransactionIdIsCurrentTransactionId(xmin) &&
		XidInMVCCSnapshot(xmin, GetActiveSnapshot());
	ReleaseSysCache(tup);
	return changed;
}

/*
 * lock_table
 *		ACCESS SHARE on table t and every partition of it, then the snapshot
 *		check (see the file header).
 */
static void
lock_table(SubsetTable *t)
{
	List	   *rels;
	ListCell   *lc;

	CHECK_FOR_INTERRUPTS();
	check_select(t);
	LockRelationOid(t->relid, AccessShareLock);
	if (t->relkind == RELKIND_PARTITIONED_TABLE)
		rels = find_all_inheritors(t->relid, AccessShareLock, NULL);
	else
		rels = list_make1_oid(t->relid);
	foreach(lc, rels)
	{
		if (table_changed_after_snapshot(lfirst_oid(lc)))
			ereport(ERROR,
					(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
					 errmsg("table \"%s\" was changed after the export's snapshot was taken",
							get_rel_name(lfirst_oid(lc))),
					 errdetail("A concurrent transaction truncated, rewrote or altered it; reading it now could miss rows."),
					 errhint("Run the export again.")));
	}
}

/*
 * lock_tables
 *		Lock every table the export reads: those of its files and those of
 *		the row sets the files need, before any row is read.
 */
static void
lock_tables(SubsetRun *run)
{
	SubsetPlan *plan = run->plan;
	bool	   *done = palloc0(sizeof(bool) * Max(plan->cfg->ntables, 1));
	int			i;

	for (i = 0; i < plan->nfiles; i++)
		done[plan->files[i].table] = true;
	for (i = 0; i < plan->nsets; i++)
		if (plan->sets[i].needed)
			done[plan->sets[i].table] = true;
	for (i = 0; i < plan->norder; i++)
		if (done[plan->order[i]])
			lock_table(&plan->cfg->tables[plan->order[i]]);
	pfree(done);
}

/*
 * enr_list
 *		The ephemeral relations of the sets in deps.
 */
static List *
enr_list(SubsetRun *run, List *deps)
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
 * execute_withheld
 *		SPI_execute_plan_extended(plan, opts); when w.on, an error it raises
 *		is withheld (exwiw_withhold_error).
 */
static int
execute_withheld(SPIPlanPtr plan, const SPIExecuteOptions *opts, Withhold w)
{
	MemoryContext old = CurrentMemoryContext;
	int			ret = 0;

	if (!w.on)
		return SPI_execute_plan_extended(plan, opts);
	PG_TRY();
	{
		ret = SPI_execute_plan_extended(plan, opts);
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
 *		withheld (withhold_for).
 */
static TupleDesc
run_planned_set(SubsetRun *run, SubsetSet *set, SPIPlanPtr plan,
				Tuplestorestate *ts, MemoryContext cxt)
{
	CachedPlanSource *src = linitial(SPI_plan_get_plan_sources(plan));
	DestReceiver *dest = CreateDestReceiver(DestTuplestore);
	SPIExecuteOptions opts;
	MemoryContext old;
	TupleDesc	desc;
	int			nest = -1;
	int			io;
	int			ret;
	Withhold	w = withhold_for(run, set->table, set->fragment, false);

	SetTuplestoreDestReceiverParams(dest, ts, cxt, false, NULL, NULL);
	memset(&opts, 0, sizeof(opts));
	opts.read_only = true;
	opts.dest = dest;
	io = exwiw_pin_io_settings();
	if (!set->fragment)
		nest = exwiw_pin_search_path();
	ret = execute_withheld(plan, &opts, w);
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
	TupleDesc	desc = run_planned_set(run, set, plan, ts, cxt);

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
			(void) run_planned_set(run, cs, plans[k], ts, batchcxt);
			swap_set(make_set(cs->name, run->enrs[c]->md.tupdesc, ts, batchcxt));
			temps = lappend(temps, ts);
		}
		if (plans[nchain] == NULL)
			plans[nchain] = prepare_set_query(set);
		(void) run_planned_set(run, set, plans[nchain], found, batchcxt);

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
 * compute_set
 *		Run the query of set i into a tuplestore and register it.  Assumes
 *		an SPI connection in which the sets it reads are registered.
 */
static void
compute_set(SubsetRun *run, int i)
{
	SubsetSet  *set = &run->plan->sets[i];
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
	desc = run_set_query(run, set, ts, run->cxt);
	run->enrs[i] = register_set(set->name, desc, ts, run->cxt);
}

/*
 * add_deps
 *		Mark set i and the sets it reads, transitively, in need.
 */
static void
add_deps(SubsetPlan *plan, int i, bool *need)
{
	ListCell   *lc;

	if (need[i])
		return;
	need[i] = true;
	foreach(lc, plan->sets[i].deps)
		add_deps(plan, lfirst_int(lc), need);
}

/*
 * withhold_for_query
 *		withhold_for, for a query that reads the sets in deps: with inline
 *		sets (with_sets) it computes them itself, evaluating their tables'
 *		filters, so it is withheld also when one of them would be, and the
 *		error then names the first such set's table (the context names the
 *		file).
 */
static Withhold
withhold_for_query(SubsetRun *run, int ti, bool fragment, bool raw_sql,
				   List *deps)
{
	SubsetPlan *plan = run->plan;
	Withhold	w = withhold_for(run, ti, fragment, raw_sql);
	bool	   *need;
	ListCell   *lc;
	int			i;

	if (w.on || !run->inline_sets || !run->any_mask || deps == NIL)
		return w;
	need = palloc0(sizeof(bool) * plan->nsets);
	foreach(lc, deps)
		add_deps(plan, lfirst_int(lc), need);
	for (i = 0; i < plan->nsets && !w.on; i++)
		if (need[i] && (plan->sets[i].fragment ||
						plan->cfg->tables[plan->sets[i].table].any_mask))
			w = withhold_for(run, plan->sets[i].table, true, false);
	pfree(need);
	return w;
}

/*
 * run_query
 *		SPI_execute(sql) read-only, its errors withheld as w says.  The query
 *		is parsed and planned first, unwithheld, so that a mistake in a
 *		user's fragment (an unknown column, a type mismatch) is reported as
 *		it is: only its execution sees rows.  Planned without parallel
 *		workers (SPI_prepare), which would log their own errors.
 */
static int
run_query(const char *sql, Withhold w)
{
	SPIPlanPtr	plan = SPI_prepare(sql, 0, NULL);
	SPIExecuteOptions opts;
	int			ret;

	if (plan == NULL)
		elog(ERROR, "could not prepare a query: %s", SPI_result_code_string(SPI_result));
	memset(&opts, 0, sizeof(opts));
	opts.read_only = true;
	ret = execute_withheld(plan, &opts, w);
	SPI_freeplan(plan);
	return ret;
}

/*
 * with_sets
 *		query, reading the sets in deps (set indexes): as it is when the sets
 *		are ephemeral relations; with inline sets (Citus, whose planner
 *		knows no ephemeral relation), preceded by the sets it reads,
 *		transitively, as materialized CTEs of the same names, in the order
 *		of the plan (each after the sets it reads).  Every query then
 *		computes its sets again, on the same snapshot.
 */
static char *
with_sets(SubsetRun *run, const char *query, List *deps)
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
		add_deps(plan, lfirst_int(lc), need);
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

/*
 * notice_unmatched_ids
 *		An error naming the target ids that match no row (a typo must not
 *		give an almost empty export that exits 0), or a NOTICE with
 *		allow_missing_ids.
 */
static void
notice_unmatched_ids(SubsetRun *run)
{
	SubsetPlan *plan = run->plan;
	StringInfoData ids;
	int			nest;
	uint64		i;

	if (plan->ids_query == NULL)
		return;
	nest = exwiw_pin_search_path();
	if (run_query(plan->ids_query, withhold_for(run, plan->target, false, false)) != SPI_OK_SELECT)
		elog(ERROR, "could not check the target ids");
	exwiw_restore_settings(nest);
	if (SPI_processed == 0)
		return;
	initStringInfo(&ids);
	for (i = 0; i < SPI_processed; i++)
	{
		int			k;

		if (i > 0)
			appendStringInfoString(&ids, ", ");
		if (SPI_tuptable->tupdesc->natts > 1)
			appendStringInfoChar(&ids, '(');
		for (k = 1; k <= SPI_tuptable->tupdesc->natts; k++)
			appendStringInfo(&ids, "%s%s", k > 1 ? ", " : "",
							 SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, k));
		if (SPI_tuptable->tupdesc->natts > 1)
			appendStringInfoChar(&ids, ')');
	}
	ereport(plan->allow_missing_ids ? NOTICE : ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg_plural("%d target id matches no row of table \"%s\": %s",
						   "%d target ids match no row of table \"%s\": %s",
						   (int) SPI_processed, (int) SPI_processed,
						   plan->cfg->tables[plan->target].name, ids.data),
			 plan->allow_missing_ids ? 0 :
			 errhint("Check the ids, or pass allow_missing_ids => true to export the rows of the others.")));
}

/*
 * notice_filtered
 *		NOTICE for each table whose filter excludes rows that closure adds
 *		anyway (exported rows reference them, so the load needs them).
 *		*file is the file at hand, for the error context.
 */
static void
notice_filtered(SubsetRun *run, int *file)
{
	SubsetPlan *plan = run->plan;
	int			i;

	for (i = 0; i < plan->nfiles; i++)
	{
		SubsetFile *f = &plan->files[i];
		bool		isnull;
		int64		n;

		if (f->filter_query == NULL)
			continue;
		CHECK_FOR_INTERRUPTS();
		*file = i;
		/* the sets are registered in this connection (compute_set) */
		if (run_query(with_sets(run, f->filter_query,
								f->fixup ? f->deps : list_make1_int(f->filter_set)),
					  withhold_for_query(run, f->table, true, false,
										 f->fixup ? f->deps : list_make1_int(f->filter_set))) != SPI_OK_SELECT)
			elog(ERROR, "could not count the rows a filter excludes");
		n = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
		if (n > 0 && f->fixup)
			ereport(NOTICE,
					(errmsg_plural("%lld row of table \"%s\" references a row outside the export through a foreign key that cuts a cycle; the key is written NULL",
								   "%lld rows of table \"%s\" reference rows outside the export through a foreign key that cuts a cycle; the keys are written NULL",
								   n, (long long) n, plan->cfg->tables[f->table].name),
					 errdetail("The rows they reference belong to no exported row's closure.")));
		else if (n > 0)
			ereport(NOTICE,
					(errmsg_plural("%lld row of table \"%s\" is exported although its filter excludes it",
								   "%lld rows of table \"%s\" are exported although its filter excludes them",
								   n, (long long) n, plan->cfg->tables[f->table].name),
					 errdetail("Other exported rows reference them, and the files would not load without them.")));
	}
}

/*
 * copy_sequences
 *		A copy of a list of sequence states in the current memory context
 *		(file_sequences allocates in SPI's, which SPI_finish frees).
 */
static List *
copy_sequences(List *seqs)
{
	List	   *out = NIL;
	ListCell   *lc;

	foreach(lc, seqs)
	{
		ExwiwSequenceState *src = lfirst(lc);
		ExwiwSequenceState *dst = palloc(sizeof(ExwiwSequenceState));

		dst->name = pstrdup(src->name);
		dst->last_value = pstrdup(src->last_value);
		dst->is_called = src->is_called;
		out = lappend(out, dst);
	}
	return out;
}

/*
 * file_sequences
 *		The sequences a file sets again: one per sequence that a written
 *		column's default draws from (serial, identity, or any DEFAULT
 *		nextval('seq')), in column order, with the source sequence's own
 *		state, as ExwiwSequenceState (the SQL writer writes their setval
 *		lines).  NIL when there is none.
 */
static List *
file_sequences(SubsetRun *run, SubsetFile *f)
{
	SubsetTable *t = &run->plan->cfg->tables[f->table];
	Oid			argtypes[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(t->relid)};
	List	   *out = NIL;
	List	   *done = NIL;
	int			nest = exwiw_pin_search_path();
	SPITupleTable *seqs;
	uint64		nseqs;
	int			c;

	if (SPI_execute_with_args("SELECT d.refobjid, ad.adnum FROM pg_catalog.pg_attrdef ad"
							  " JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass"
							  "  AND d.objid = ad.oid AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass"
							  " JOIN pg_catalog.pg_class s ON s.oid = d.refobjid AND s.relkind = 'S'"
							  " WHERE ad.adrelid = $1"
							  " UNION"
							  " SELECT d.objid, d.refobjsubid FROM pg_catalog.pg_depend d"
							  " JOIN pg_catalog.pg_class s ON s.oid = d.objid AND s.relkind = 'S'"
							  " WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass"
							  "  AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass"
							  "  AND d.refobjid = $1 AND d.refobjsubid > 0 AND d.deptype IN ('a', 'i')"
							  " ORDER BY 2, 1",
							  1, argtypes, values, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the sequences of table \"%s\"", t->name);
	seqs = SPI_tuptable;
	nseqs = SPI_processed;

	for (c = 0; c < t->ncols; c++)
	{
		uint64		i;

		for (i = 0; i < nseqs; i++)
		{
			bool		isnull;
			Oid			seq = DatumGetObjectId(SPI_getbinval(seqs->vals[i], seqs->tupdesc, 1, &isnull));
			int16		attnum = DatumGetInt16(SPI_getbinval(seqs->vals[i], seqs->tupdesc, 2, &isnull));
			char	   *qname;
			StringInfoData q;
			ExwiwSequenceState *st;

			if (attnum != t->cols[c].attnum || list_member_oid(done, seq))
				continue;
			done = lappend_oid(done, seq);
			qname = quote_qualified_identifier(get_namespace_name(get_rel_namespace(seq)),
											   get_rel_name(seq));
			if (pg_class_aclcheck(seq, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
				ereport(ERROR,
						(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
						 errmsg("permission denied for sequence %s", qname),
						 errdetail("The file of table \"%s\" sets the sequence that column \"%s\" draws from to its current value, so that ids made later in the development database do not collide.",
								   t->name, t->cols[c].name),
						 errhint("GRANT SELECT ON SEQUENCE %s TO %s;", qname,
								 quote_identifier(GetUserNameFromId(GetUserId(), false)))));
			initStringInfo(&q);
			appendStringInfo(&q, "SELECT last_value::pg_catalog.text, is_called FROM %s", qname);
			if (SPI_execute(q.data, true, 0) != SPI_OK_SELECT || SPI_processed != 1)
				elog(ERROR, "could not read sequence %s", qname);
			st = palloc(sizeof(ExwiwSequenceState));
			st->name = qname;
			st->last_value = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
			st->is_called = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
			out = lappend(out, st);
		}
	}
	exwiw_restore_settings(nest);
	return out;
}

/*
 * read_pairs
 *		Fetch every (child, parent) pair of row numbers from cursor cur of
 *		the depth query into the growing arrays *pc and *pp (NULL at first),
 *		counting them in *npairs.  Row numbers are 1..n.
 */
static void
read_pairs(Portal cur, int64 n, int **pc, int **pp, int64 *npairs)
{
	int64		cap = 0;

	for (;;)
	{
		uint64		j;

		CHECK_FOR_INTERRUPTS();
		SPI_cursor_fetch(cur, true, 10000);
		if (SPI_processed == 0)
			break;
		for (j = 0; j < SPI_processed; j++)
		{
			bool		n1,
						n2;

			if ((*npairs) == cap)
			{
				cap = Max(1024, cap * 2);
				*pc = *pc ? repalloc_huge(*pc, sizeof(int) * cap) : palloc_extended(sizeof(int) * cap, MCXT_ALLOC_HUGE);
				*pp = *pp ? repalloc_huge(*pp, sizeof(int) * cap) : palloc_extended(sizeof(int) * cap, MCXT_ALLOC_HUGE);
			}
			(*pc)[*npairs] = (int) DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[j], SPI_tuptable->tupdesc, 1, &n1));
			(*pp)[*npairs] = (int) DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[j], SPI_tuptable->tupdesc, 2, &n2));
			Assert((*pc)[*npairs] >= 1 && (*pc)[*npairs] <= n && (*pp)[*npairs] >= 1 && (*pp)[*npairs] <= n);
			(*npairs)++;
		}
		SPI_freetuptable(SPI_tuptable);
	}
}

/*
 * file_depths
 *		Depth of every row of a self-referencing table's file in its
 *		exported tree: 0 for a row whose parents are not exported, else one
 *		more than its deepest parent; -1 for rows in (or below) a cycle of
 *		their own, which come first.  Kahn's algorithm over the (row,
 *		parent) pairs of f->depth_query, rows numbered 1..n by key.
 *		Returns an int4[] indexed by row number.
 */
static ArrayType *
file_depths(SubsetRun *run, SubsetFile *f, int fset)
{
	int64		n;
	int		   *indeg;
	int		   *depth;
	int		   *queue;
	int64	   *head;			/* first pair of each parent, CSR */
	int		   *child;
	int		   *pc = NULL;		/* pairs: child, parent */
	int		   *pp = NULL;
	int64		npairs = 0;
	int64		i,
				qh = 0,
				qt = 0;
	Portal		cur;
	SPIPlanPtr	plan;
	Datum	   *elems;
	ArrayType  *result;
	int			nest = exwiw_pin_search_path();
	Withhold	w = withhold_for_query(run, f->table, f->fragment, false,
									   list_make1_int(fset));
	MemoryContext old = CurrentMemoryContext;

	if (run->inline_sets)
	{
		bool		isnull;
		char	   *count = with_sets(run, psprintf("SELECT pg_catalog.count(*) FROM %s",
													run->plan->sets[fset].name),
									  list_make1_int(fset));

		if (run_query(count, w) != SPI_OK_SELECT || SPI_processed != 1)
			elog(ERROR, "could not count the rows of a self-referencing table");
		n = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	}
	else
	{
		n = tuplestore_tuple_count((Tuplestorestate *) run->enrs[fset]->reldata);
		SPI_register_relation(run->enrs[fset]);
	}
	if (n >= PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("table \"%s\" has too many rows to order by depth",
						run->plan->cfg->tables[f->table].name)));
	plan = SPI_prepare(with_sets(run, f->depth_query, list_make1_int(fset)), 0, NULL);
	if (plan == NULL)
		elog(ERROR, "could not prepare the depth query");
	cur = SPI_cursor_open(NULL, plan, NULL, NULL, true);
	if (!w.on)
		read_pairs(cur, n, &pc, &pp, &npairs);
	else
	{
		PG_TRY();
		{
			read_pairs(cur, n, &pc, &pp, &npairs);
		}
		PG_CATCH();
		{
			exwiw_withhold_error(old, w.table, w.masked, w.keys);
		}
		PG_END_TRY();
	}
	SPI_cursor_close(cur);
	SPI_freeplan(plan);
	exwiw_restore_settings(nest);

	indeg = palloc_extended(sizeof(int) * (n + 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	depth = palloc_extended(sizeof(int) * (n + 1), MCXT_ALLOC_HUGE);
	queue = palloc_extended(sizeof(int) * (n + 1), MCXT_ALLOC_HUGE);
	head = palloc_extended(sizeof(int64) * (n + 2), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	child = palloc_extended(sizeof(int) * Max(npairs, 1), MCXT_ALLOC_HUGE);

	/* children of each parent, compressed: head[p] .. head[p + 1] */
	for (i = 0; i < npairs; i++)
	{
		head[pp[i] + 1]++;
		indeg[pc[i]]++;
	}
	for (i = 1; i <= n + 1; i++)
		head[i] += head[i - 1];
	{
		int64	   *fill = palloc_extended(sizeof(int64) * (n + 1), MCXT_ALLOC_HUGE);

		memcpy(fill, head, sizeof(int64) * (n + 1));
		for (i = 0; i < npairs; i++)
			child[fill[pp[i]]++] = pc[i];
		pfree(fill);
	}

	for (i = 1; i <= n; i++)
	{
		depth[i] = -1;
		if (indeg[i] == 0)
		{
			depth[i] = 0;
			queue[qt++] = (int) i;
		}
	}
	while (qh < qt)
	{
		int			p = queue[qh++];
		int64		k;

		if ((qh & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		for (k = head[p]; k < head[p + 1]; k++)
		{
			int			c = child[k];

			if (depth[c] < depth[p] + 1)
				depth[c] = depth[p] + 1;
			if (--indeg[c] == 0)
				queue[qt++] = c;
		}
	}
	/* rows never freed of their parents sit in or below a cycle */
	for (i = 1; i <= n; i++)
		if (indeg[i] > 0)
			depth[i] = -1;

	elems = palloc_extended(sizeof(Datum) * Max(n, 1), MCXT_ALLOC_HUGE);
	for (i = 0; i < n; i++)
		elems[i] = Int32GetDatum(depth[i + 1]);
	result = construct_array(elems, (int) n, INT4OID, sizeof(int32), true, TYPALIGN_INT);

	pfree(indeg);
	pfree(depth);
	pfree(queue);
	pfree(head);
	pfree(child);
	pfree(elems);
	if (pc)
	{
		pfree(pc);
		pfree(pp);
	}
	return result;
}

/* What the preparation is doing, for the error context. */
typedef struct RunErrorContext
{
	SubsetRun  *run;
	int			set;			/* set being computed, or -1 */
	int			file;			/* file being prepared, or -1 */
} RunErrorContext;

/*
 * run_error_context
 *		Error context of the preparation: the set or file at hand.
 */
static void
run_error_context(void *arg)
{
	RunErrorContext *e = (RunErrorContext *) arg;
	SubsetPlan *plan;

	if (e->run == NULL)
		return;
	plan = e->run->plan;
	if (e->set >= 0)
		errcontext("%s, computing row set %s of table \"%s\"", e->run->funcname,
				   plan->sets[e->set].name, plan->cfg->tables[plan->sets[e->set].table].name);
	else if (e->file >= 0)
		errcontext("%s, preparing file %s", e->run->funcname, plan->files[e->file].file_name);
	else
		errcontext("%s, preparing the export", e->run->funcname);
}

/*
 * subset_run_prepare
 *		Steps 1 to 7 of the file header.  Everything the export streams
 *		later is kept in cxt.
 */
SubsetRun *
subset_run_prepare(const char *funcname, SubsetPlan *plan, MemoryContext cxt)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	SubsetRun  *run = palloc0(sizeof(SubsetRun));
	RunErrorContext ectx = {NULL, -1, -1};
	ErrorContextCallback errcb;
	int			serial = -1;
	int			i;

	run->funcname = funcname;
	run->plan = plan;
	run->cxt = cxt;
	run->enrs = palloc0(sizeof(EphemeralNamedRelation) * Max(plan->nsets, 1));
	run->sequences = palloc0(sizeof(List *) * Max(plan->nfiles, 1));
	run->depths = palloc0(sizeof(ArrayType *) * Max(plan->nfiles, 1));
	MemoryContextSwitchTo(old);

	for (i = 0; i < plan->cfg->ntables; i++)
		run->any_mask |= (!plan->cfg->tables[i].ignore && plan->cfg->tables[i].any_mask);

	errcb.callback = run_error_context;
	errcb.arg = &ectx;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;
	ectx.run = run;
	/* no parallel worker logs an error that is withheld here */
	if (run->any_mask)
		serial = exwiw_pin_serial();

	lock_tables(run);

	/*
	 * Citus plans every query on the coordinator and knows no ephemeral
	 * relation: there, each query carries the sets it reads as CTEs.
	 */
	run->inline_sets = exwiw_sets_as_ctes ||
		OidIsValid(get_extension_oid("citus", true));
	if (run->inline_sets)
		for (i = 0; i < plan->nsets; i++)
			if (plan->sets[i].needed && plan->sets[i].batch_source >= 0)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("batch_scope of table \"%s\" cannot be used where Citus is installed",
								plan->cfg->tables[plan->sets[i].table].name),
						 errdetail("Batches need the export's row sets computed once; where Citus is installed (or exwiw.sets_as_ctes is on) each query carries its sets as CTEs."),
						 errhint("Remove batch_scope: on Citus, a tenant's queries run on the tenant's worker.")));

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	notice_unmatched_ids(run);
	for (i = 0; i < plan->nsets && !run->inline_sets; i++)
	{
		CHECK_FOR_INTERRUPTS();
		if (!plan->sets[i].needed)
			continue;
		ectx.set = i;
		compute_set(run, i);
	}
	ectx.set = -1;
	notice_filtered(run, &ectx.file);
	ectx.file = -1;
	SPI_finish();

	for (i = 0; i < plan->nfiles; i++)
	{
		SubsetFile *f = &plan->files[i];
		List	   *seqs;
		ArrayType  *depths = NULL;

		CHECK_FOR_INTERRUPTS();
		ectx.file = i;
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		seqs = file_sequences(run, f);
		if (f->depth_query)
			depths = file_depths(run, f, linitial_int(f->deps));
		old = MemoryContextSwitchTo(cxt);
		run->sequences[i] = copy_sequences(seqs);
		if (depths)
			run->depths[i] = DatumGetArrayTypePCopy(PointerGetDatum(depths));
		MemoryContextSwitchTo(old);
		SPI_finish();
	}
	if (serial >= 0)
		exwiw_restore_settings(serial);
	error_context_stack = errcb.previous;
	return run;
}

/*
 * subset_run_file_query
 *		The stream query of file i: its SQL, the sets it reads, its
 *		parameter, whether a user's fragment is in it, and whether its
 *		errors are withheld (withhold_for_query).
 */
void
subset_run_file_query(SubsetRun *run, int i, ExwiwQuery *q)
{
	subset_run_query_over(run, i, run->plan->files[i].query, NIL, false, q);
}

/*
 * subset_run_query_over
 *		As subset_run_file_query, for a query sql over file i's own (its
 *		text inside sql), which reads the sets extra_deps too and holds a
 *		user's fragment too when extra_fragment: a delete file's key query.
 */
void
subset_run_query_over(SubsetRun *run, int i, const char *sql,
					  List *extra_deps, bool extra_fragment, ExwiwQuery *q)
{
	SubsetFile *f = &run->plan->files[i];
	SubsetTable *t = &run->plan->cfg->tables[f->table];
	List	   *deps = list_concat_unique_int(list_copy(f->deps), extra_deps);
	bool		fragment = f->fragment || extra_fragment;
	Withhold	w;

	memset(q, 0, sizeof(*q));
	q->sql = with_sets(run, sql, deps);
	if (!run->inline_sets)
		q->enrs = enr_list(run, deps);
	q->pin_search_path = !fragment;
	q->prefetch = true;
	if (run->depths[i])
	{
		q->nargs = 1;
		q->argtypes = palloc(sizeof(Oid));
		q->argtypes[0] = INT4ARRAYOID;
		q->values = palloc(sizeof(Datum));
		q->values[0] = PointerGetDatum(run->depths[i]);
	}
	w = withhold_for_query(run, f->table, fragment, true, deps);
	if (w.on)
	{
		q->error_table = w.table;
		q->masked_columns = w.masked;
		q->error_keys = w.keys;
	}
	q->context = psprintf("%s, table \"%s\", file %s", run->funcname, t->name,
						  f->file_name);
}

/*
 * subset_run_sequences
 *		The sequences file i sets again (ExwiwSequenceState *), or NIL.
 */
List *
subset_run_sequences(SubsetRun *run, int i)
{
	return run->sequences[i];
}

/*
 * subset_run_release
 *		End the row sets' tuplestores, closing the temporary files of those
 *		that spilled to disk.  Call once no stream reads them any more: when
 *		the export ends, or when its consumer stops early.  Idempotent.
 */
void
subset_run_release(SubsetRun *run)
{
	int			i;

	for (i = 0; i < run->plan->nsets; i++)
	{
		if (run->enrs[i] == NULL)
			continue;
		tuplestore_end((Tuplestorestate *) run->enrs[i]->reldata);
		run->enrs[i]->reldata = NULL;
		run->enrs[i] = NULL;
	}
}
