/*-------------------------------------------------------------------------
 *
 * settings.c
 *	  Pin the settings that change a value's text output.
 *
 * Output functions read DateStyle, IntervalStyle, extra_float_digits and
 * bytea_output.  While exwiw formats values, these are pinned to what the
 * dump format requires (the same choice pg_dump makes); the caller's values
 * come back when the formatting call returns.  synchronize_seqscans is
 * pinned off as well, so that a sequential scan returns a table's rows in
 * the same order whatever other scans run: the parts of a file, read by
 * several connections, must see the rows in one order.  TimeZone is deliberately left
 * alone: a timestamptz literal carries its offset.
 *
 * The pinning uses a GUC nest level, as a function's SET clause does, so an
 * error anywhere inside restores the caller's settings through the normal
 * (sub)transaction abort path.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"

#include "miscadmin.h"
#include "utils/float.h"
#include "utils/guc.h"

/*
 * pin_one
 *		Set one GUC at the current nest level, saving the old value.
 */
static void
pin_one(const char *name, const char *value)
{
	(void) set_config_option(name, value, PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
}

/*
 * exwiw_pin_output_settings
 *		Open a GUC nest level and pin the output settings in it.
 *
 * Returns the nest level, to be passed to exwiw_restore_settings() on the
 * success path.  On error, transaction abort unwinds the level.
 */
int
exwiw_pin_output_settings(void)
{
	int			nestlevel = NewGUCNestLevel();

	pin_one("datestyle", "ISO");
	pin_one("intervalstyle", "postgres");
	/* any value >= 1 selects shortest-exact output; keep the caller's if so */
	if (extra_float_digits < 1)
		pin_one("extra_float_digits", "1");
	pin_one("bytea_output", "hex");
	/* a scan starts at the table's first page, whoever else is scanning it */
	pin_one("synchronize_seqscans", "off");
	return nestlevel;
}

/*
 * exwiw_restore_settings
 *		Give the caller's settings back (success path).
 */
void
exwiw_restore_settings(int nestlevel)
{
	AtEOXact_GUC(true, nestlevel);
}

/*
 * exwiw_pin_search_path
 *		Open a GUC nest level with search_path = pg_catalog, pg_temp, for
 *		the statements exwiw writes itself: nothing a user can create in a
 *		schema of their own is found by name while they run.
 *
 * Returns the nest level for exwiw_restore_settings().
 */
int
exwiw_pin_search_path(void)
{
	int			nestlevel = NewGUCNestLevel();

	pin_one("search_path", "pg_catalog, pg_temp");
	return nestlevel;
}

/*
 * exwiw_pin_serial
 *		Open a GUC nest level with max_parallel_workers_per_gather = 0, for
 *		queries whose errors exwiw withholds (exwiw_withhold_error): a
 *		parallel worker reports its own error, to the server log too, before
 *		the leader sees it, so such a query runs in this process only.
 *		(With it, debug_parallel_query adds no worker either.)
 *
 * Returns the nest level for exwiw_restore_settings().
 */
int
exwiw_pin_serial(void)
{
	int			nestlevel = NewGUCNestLevel();

	pin_one("max_parallel_workers_per_gather", "0");
	return nestlevel;
}

/*
 * exwiw_pin_work_mem
 *		When exwiw.work_mem is above 0 and below work_mem, open a GUC nest
 *		level with work_mem at its value, for one call of an export's SQL
 *		entry point: every hash table and sort the export's queries begin
 *		in it is sized by it (they read work_mem when they begin, which is
 *		inside the call), so a hash join over the whole of a big table
 *		spills to disk in batches instead of holding hundreds of MB in the
 *		backend, whatever work_mem the server or the role has.
 *
 * Returns the nest level for exwiw_restore_settings(), or -1 when nothing
 * was set.
 */
int
exwiw_pin_work_mem(void)
{
	int			nestlevel;
	char		buf[32];

	if (exwiw_work_mem <= 0 || exwiw_work_mem >= work_mem)
		return -1;
	nestlevel = NewGUCNestLevel();
	snprintf(buf, sizeof(buf), "%d", exwiw_work_mem);
	pin_one("work_mem", buf);
	return nestlevel;
}

/*
 * exwiw_pin_io_settings
 *		When exwiw.io_concurrency is above 0, open a GUC nest level with
 *		effective_io_concurrency at its value, for the planning and executor
 *		start of a subset export's queries: a bitmap heap scan (a set's rows
 *		found by a constant list of keys) then prefetches that many heap
 *		pages ahead.  The index probes of a set's keys are read ahead by
 *		exwiw_prefetch_plan() (prefetch.c), whatever scan the planner
 *		chose, so plain index scans stay.
 *
 * Returns the nest level for exwiw_restore_settings(), or -1 when nothing
 * was set.
 */
int
exwiw_pin_io_settings(void)
{
	int			nestlevel;
	char		buf[16];

	if (exwiw_io_concurrency <= 0)
		return -1;
	nestlevel = NewGUCNestLevel();
	snprintf(buf, sizeof(buf), "%d", exwiw_io_concurrency);
	pin_one("effective_io_concurrency", buf);
	return nestlevel;
}

/*
 * exwiw_pin_walk
 *		Open a GUC nest level with hash and merge joins off, to plan a
 *		subset export's query again as an index walk over the keys of its
 *		row sets (walk.c decides when, and whether the plan is kept).
 *
 * Returns the nest level for exwiw_restore_settings().
 */
int
exwiw_pin_walk(void)
{
	int			nestlevel = NewGUCNestLevel();

	pin_one("enable_hashjoin", "off");
	pin_one("enable_mergejoin", "off");
	return nestlevel;
}
