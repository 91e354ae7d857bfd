/*-------------------------------------------------------------------------
 *
 * run/executor.c
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
 *	4. the tables read whole, every row of each exported (run/whole.c),
 *	   then the row sets of the plan that the export's queries read, each
 *	   computed once by its query into a
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
 * Steps 1 and 2 are run/locks.c's, 4 run/sets.c's, 6
 * run/sequences.c's and 7 run/depths.c's (run/run.h); how a query's error
 * is withheld, run/withhold.c's.
 *
 * Every query runs on the caller's active snapshot: the same one for every
 * set and every file of the export.  Queries exwiw writes are parsed with a
 * pinned search_path; those holding a user's fragment, in the caller's.
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

static void query_over(SubsetRun *run, int i, const char *sql, List *deps,
					   bool fragment, ExwiwQuery *q);

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
	if (run_query(plan->ids_query, run_withhold_for(run, plan->target, false, false)) != SPI_OK_SELECT)
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
		if (run_query(run_with_sets(run, f->filter_query,
									f->fixup ? f->deps : list_make1_int(f->filter_set)),
					  run_withhold_for_query(run, f->table, true, false,
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
	bool	   *read;
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

	run_lock_tables(run);

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
	run_find_whole(run);
	read = run_sets_read(run);
	for (i = 0; i < plan->nsets && !run->inline_sets; i++)
	{
		CHECK_FOR_INTERRUPTS();
		if (!plan->sets[i].needed || !read[i])
			continue;
		ectx.set = i;
		run_compute_set(run, i, run_set_whole(run, i));
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
		seqs = run_file_sequences(run, f);
		if (f->depth_query)
			depths = run_file_depths(run, f, linitial_int(f->deps));
		old = MemoryContextSwitchTo(cxt);
		run->sequences[i] = run_copy_sequences(seqs);
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
 * subset_run_joins_parent
 *		Does file i read its parent's row set by a join rather than IN (its
 *		join_query, and its count's count_join_query): the plan keeps that
 *		form (plan/build.c) and the set is large against the table
 *		(run_set_is_large)?
 */
bool
subset_run_joins_parent(SubsetRun *run, int i)
{
	SubsetFile *f = &run->plan->files[i];

	return f->join_set >= 0 &&
		run_set_is_large(run, f->join_set, run->plan->cfg->tables[f->table].relid);
}

/*
 * subset_run_file_query
 *		The stream query of file i: its SQL (every row of its table where it
 *		is read whole, read back by ctid where the
 *		set of its rows has at most SUBSET_CTID_MAX_ROWS, by its own
 *		predicate where that set is larger and the predicate reads no set,
 *		joined to its parent's set where that is large), the sets it reads, its
 *		parameter, whether a user's fragment is in it, and whether its
 *		errors are withheld (withhold_for_query).
 */
void
subset_run_file_query(SubsetRun *run, int i, ExwiwQuery *q)
{
	SubsetFile *f = &run->plan->files[i];
	const char *sql = f->query;

	/* every row of its table (run/whole.c) */
	if (subset_run_reads_whole(run, i))
	{
		elog(DEBUG1, "file %s reads every row of its table", f->file_name);
		sql = f->whole_query;
	}
	/* a set of few rows: read back by ctid (plan/build.c) */
	else if (f->ctid_query != NULL && !run->inline_sets &&
			 run->enrs[f->ctid_set] != NULL &&
			 run->enrs[f->ctid_set]->md.enrtuples <= SUBSET_CTID_MAX_ROWS)
		sql = f->ctid_query;
	/* a large set of its rows, read by its own predicate (plan/build.c) */
	else if (f->pred_query != NULL && !run->inline_sets &&
			 run->enrs[f->count_set] != NULL &&
			 run->enrs[f->count_set]->md.enrtuples > SUBSET_CTID_MAX_ROWS)
	{
		elog(DEBUG1, "file %s reads its %.0f rows by its predicate",
			 f->file_name, run->enrs[f->count_set]->md.enrtuples);
		sql = f->pred_query;
	}
	/* a large parent set: joined, not looked up with IN (plan/seeds.c) */
	else if (f->join_query != NULL && subset_run_joins_parent(run, i))
	{
		elog(DEBUG1, "file %s joins the %.0f rows of set %s",
			 f->file_name, run->enrs[f->join_set]->md.enrtuples,
			 run->enrs[f->join_set]->md.name);
		sql = f->join_query;
	}
	query_over(run, i, sql, subset_run_reads_whole(run, i) ? NIL : f->deps,
			   f->fragment, q);
}

/*
 * query_over
 *		As subset_run_file_query, for a query sql of file i that reads the
 *		sets deps and holds a user's fragment when fragment.
 */
static void
query_over(SubsetRun *run, int i, const char *sql, List *deps, bool fragment,
		   ExwiwQuery *q)
{
	SubsetFile *f = &run->plan->files[i];
	SubsetTable *t = &run->plan->cfg->tables[f->table];
	Withhold	w;

	memset(q, 0, sizeof(*q));
	q->sql = run_with_sets(run, sql, deps);
	if (!run->inline_sets)
		q->enrs = run_enr_list(run, deps);
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
	w = run_withhold_for_query(run, f->table, fragment, true, deps);
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

	query_over(run, i, sql, list_concat_unique_int(list_copy(f->deps), extra_deps),
			   f->fragment || extra_fragment, q);
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
