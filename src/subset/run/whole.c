/*-------------------------------------------------------------------------
 *
 * run/whole.c
 *	  Which tables this export reads whole, every row of each exported
 *	  (plan/whole.c says when a table may be), and so which row sets it
 *	  need not compute.
 *
 * Only an export whose ids name at least half of its target table's rows
 * (the catalog's reltuples) asks: a tenant's export never pays for the
 * checks, which it would fail at the first row.  Then, table by table:
 *
 *	- a table whose parent's seed holds every row holds every row too,
 *	  through an edge the catalog's constraint enforces, when the
 *	  constraint's triggers are enabled and this transaction has no after
 *	  trigger pending on either table (a deferred check, or a cascade not
 *	  yet run, would let the export see a row whose parent is gone), and
 *	  when no row-level security policy applies to the user on either
 *	  (one could hide the parent of a row it shows).
 *	  Rows loaded while the triggers were disabled, or in replica mode, are
 *	  the constraint's to answer for, as they are PostgreSQL's;
 *	- else, a table whose seed is a condition over constants runs its
 *	  check: one scan for a row outside the seed.
 *
 * A table read whole has its closure set left empty and its seed's and
 * file's sets read from the table alone (run/sets.c), and its file reads
 * the table in key order (run/executor.c).  A set that no query of the
 * export reads then is not computed at all (run_sets_read).
 *
 *-------------------------------------------------------------------------
 */
#include "subset/subset.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/pg_trigger.h"
#include "commands/trigger.h"
#include "miscadmin.h"
#include "utils/fmgroids.h"
#include "utils/rls.h"
#include "utils/rel.h"
#include "subset/run/run.h"

/*
 * triggers_enabled
 *		Does constraint conoid have triggers, every one of them enabled as
 *		created (firing in origin and local sessions, or always)?
 */
static bool
triggers_enabled(Oid conoid)
{
	Relation	rel = table_open(TriggerRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	int			n = 0;
	bool		enabled = true;

	ScanKeyInit(&key, Anum_pg_trigger_tgconstraint, BTEqualStrategyNumber,
				F_OIDEQ, ObjectIdGetDatum(conoid));
	scan = systable_beginscan(rel, TriggerConstraintIndexId, true, NULL, 1, &key);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		char		how = ((Form_pg_trigger) GETSTRUCT(tup))->tgenabled;

		n++;
		enabled &= (how == TRIGGER_FIRES_ON_ORIGIN || how == TRIGGER_FIRES_ALWAYS);
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return n > 0 && enabled;
}

/*
 * edge_trusted
 *		Does edge e's constraint (subset_edge_enforced found it) hold for
 *		every row the export's snapshot sees, and the export see every row
 *		it holds: its triggers enabled, none pending on its tables in this
 *		transaction, and no row-level security hiding a parent row (a
 *		policy) from the user?
 */
static bool
edge_trusted(SubsetConfig *cfg, SubsetEdge *e)
{
	return OidIsValid(e->conoid) &&
		check_enable_rls(cfg->tables[e->child].relid, InvalidOid, true) != RLS_ENABLED &&
		check_enable_rls(cfg->tables[e->parent].relid, InvalidOid, true) != RLS_ENABLED &&
		!AfterTriggerPendingOnRel(cfg->tables[e->child].relid) &&
		!AfterTriggerPendingOnRel(cfg->tables[e->parent].relid) &&
		triggers_enabled(e->conoid);
}

/*
 * seed_check
 *		Run table ti's check (plan/whole.c): does its seed hold every row?
 *		Assumes an SPI connection.
 */
static bool
seed_check(SubsetRun *run, int ti)
{
	SubsetPlan *plan = run->plan;
	bool		isnull;
	bool		all;
	int			nest = exwiw_pin_search_path();

	if (run_query(plan->whole[ti].check, run_withhold_for(run, ti, false, false)) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "could not check the seed of table \"%s\"",
			 plan->cfg->tables[ti].name);
	all = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	exwiw_restore_settings(nest);
	return !isnull && all;
}

/*
 * find_whole
 *		Is table ti read whole?  state: per table, 0 not known, 1 being
 *		found, 2 no, 3 yes.  The parents' first, once each.
 */
static bool
find_whole(SubsetRun *run, int ti, char *state)
{
	SubsetPlan *plan = run->plan;
	SubsetWhole *w = &plan->whole[ti];
	bool		yes = false;

	if (state[ti] >= 2)
		return state[ti] == 3;
	/* a seed's arms lead away from it, never back: planning refuses that */
	if (state[ti] == 1)
		elog(ERROR, "table \"%s\" is its own parent's seed", plan->cfg->tables[ti].name);
	state[ti] = 1;
	check_stack_depth();
	CHECK_FOR_INTERRUPTS();
	if (w->parent >= 0 && find_whole(run, w->parent, state) &&
		edge_trusted(plan->cfg, &plan->cfg->edges[w->edge]))
		yes = true;
	else if (w->check != NULL)
		yes = seed_check(run, ti);
	state[ti] = yes ? 3 : 2;
	if (yes)
		elog(DEBUG1, "table \"%s\" is read whole: its seed holds every row",
			 plan->cfg->tables[ti].name);
	return yes;
}

/*
 * run_find_whole
 *		run->whole: which tables the export reads whole.  None where Citus
 *		is installed (the sets are CTEs there) or when the ids name less
 *		than half of the target table's rows.  Assumes an SPI connection.
 */
void
run_find_whole(SubsetRun *run)
{
	SubsetPlan *plan = run->plan;
	int			nt = plan->cfg->ntables;
	float4		reltuples;
	char	   *state;
	int			ti;

	run->whole = MemoryContextAllocZero(run->cxt, sizeof(bool) * Max(nt, 1));
	if (run->inline_sets || plan->whole == NULL || plan->target < 0 ||
		plan->target_nids <= 0)
		return;
	reltuples = run_catalog_rows(plan->cfg->tables[plan->target].relid);
	if (reltuples <= 0 || plan->target_nids * 2.0 < reltuples)
		return;
	state = palloc0(nt);
	for (ti = 0; ti < nt; ti++)
		run->whole[ti] = find_whole(run, ti, state);
	pfree(state);
}

/*
 * run_set_whole
 *		Is set i that of a table read whole, so computed from the table
 *		alone by its whole_query (a closure set's returns no row)?
 */
bool
run_set_whole(SubsetRun *run, int i)
{
	SubsetSet  *set = &run->plan->sets[i];

	return run->whole != NULL && run->whole[set->table] &&
		set->whole_query != NULL;
}

/*
 * subset_run_reads_whole
 *		Does file i read its table whole (its whole_query)?
 */
bool
subset_run_reads_whole(SubsetRun *run, int i)
{
	SubsetFile *f = &run->plan->files[i];

	return f->whole_query != NULL && run->whole != NULL && run->whole[f->table];
}

/*
 * read_set
 *		Set i is read: it and the sets its query reads, transitively, unless
 *		it is read from its table alone.
 */
static void
read_set(SubsetRun *run, int i, bool *read)
{
	ListCell   *lc;

	if (read[i])
		return;
	read[i] = true;
	if (run_set_whole(run, i))
		return;
	foreach(lc, run->plan->sets[i].deps)
		read_set(run, lfirst_int(lc), read);
	/* a batch's slices come from its source, through its chain */
	if (run->plan->sets[i].batch_source >= 0)
		read_set(run, run->plan->sets[i].batch_source, read);
	foreach(lc, run->plan->sets[i].batch_chain)
		read_set(run, lfirst_int(lc), read);
}

/*
 * run_sets_read
 *		Which sets the export's queries read (palloc'd, per set): those of
 *		its files that do not read their table whole, of their filters'
 *		counts, of their delete files when it writes them, and those these
 *		read.  run_find_whole has run.
 */
bool *
run_sets_read(SubsetRun *run)
{
	SubsetPlan *plan = run->plan;
	bool	   *read = palloc0(sizeof(bool) * Max(plan->nsets, 1));
	int			i;
	ListCell   *lc;

	for (i = 0; i < plan->nfiles; i++)
	{
		SubsetFile *f = &plan->files[i];
		bool		deletes = plan->deletes && subset_delete_wanted(plan, i);

		/* a delete file's key query reads the file's own query's sets */
		if (!subset_run_reads_whole(run, i) || deletes)
			foreach(lc, f->deps)
				read_set(run, lfirst_int(lc), read);
		if (deletes)
			foreach(lc, f->delete_deps)
				read_set(run, lfirst_int(lc), read);
		if (f->filter_set >= 0)
			read_set(run, f->filter_set, read);
	}
	return read;
}
