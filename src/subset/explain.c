/*-------------------------------------------------------------------------
 *
 * subset/explain.c
 *	  The planner's view of every file's query: the engine of
 *	  exwiw_explain(), whose entry point is in subset/funcs.c.
 *
 *	  exwiw_explain(target_table text, ids text[], config jsonb DEFAULT NULL,
 *					actual boolean DEFAULT false)
 *		RETURNS TABLE(seq int, table_name text, file_name text,
 *					  estimated_rows float8, indexes text[], plan text,
 *					  actual_rows float8)
 *
 * The extraction queries read row sets (plan/build.c) that exist only
 * while an export runs, so they cannot be pasted into EXPLAIN by hand.
 * This function prepares the export as exwiw_export() does (privileges,
 * locks, the row sets, on the caller's snapshot) and EXPLAINs each file's
 * query there: the estimated rows and the indexes of the plan, and the plan
 * itself, with ANALYZE and BUFFERS when actual is true, and then the file's
 * rows (the top node's actual rows: the query ran on that snapshot, its
 * rows counted, not sent).  With count_rows instead, each file's rows are
 * counted on that snapshot without running its query: a file that reads
 * its table by key from the set of its keys has that set's rows, which the
 * export has just computed; any other is counted by a count(*) over its
 * FROM and WHERE (plan/build.c), without its select list's masks or its
 * ORDER BY.  It is what "exwiw explain" prints, and what "exwiw export
 * --max-rows" checks.  Safe mode does not apply: nothing is written.
 *
 *-------------------------------------------------------------------------
 */
#include "subset/subset.h"

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "subset/run/run.h"

/*
 * explain_withheld
 *		Run sql, an EXPLAIN of q's query or a count of its rows, in the
 *		current SPI connection, with q's parameters, read-only or not; when
 *		withhold, an error it raises is withheld (exwiw_withhold_error):
 *		EXPLAIN ANALYZE and a count read the rows.
 */
static int
explain_withheld(const char *sql, ExwiwQuery *q, bool withhold, bool read_only)
{
	MemoryContext old = CurrentMemoryContext;
	int			ret = 0;

	if (!withhold)
		return SPI_execute_with_args(sql, q->nargs, q->argtypes, q->values, NULL,
									 read_only, 0);
	PG_TRY();
	{
		ret = SPI_execute_with_args(sql, q->nargs, q->argtypes, q->values, NULL,
									read_only, 0);
	}
	PG_CATCH();
	{
		exwiw_withhold_error(old, q->error_table, q->masked_columns, q->error_keys);
	}
	PG_END_TRY();
	return ret;
}

/*
 * pin_walk_for
 *		When the query sql (nargs parameters of argtypes) runs as an index
 *		walk in the export (run_walk_plan, walk.c), pin the walk's settings
 *		and return the nest level to restore; else -1.  Current SPI
 *		connection, the query's sets registered.
 */
static int
pin_walk_for(const char *sql, int nargs, Oid *argtypes)
{
	SPIPlanPtr	first = SPI_prepare(sql, nargs, argtypes);
	SPIPlanPtr	walk;

	if (first == NULL)
		elog(ERROR, "could not prepare a file's query: %s", SPI_result_code_string(SPI_result));
	walk = run_walk_plan(first, sql, nargs, argtypes);
	SPI_freeplan(first);
	if (walk == NULL)
		return -1;
	SPI_freeplan(walk);
	return exwiw_pin_walk();
}

/*
 * explain_file
 *		EXPLAIN one file's query in the current SPI connection, whose
 *		relations it reads are registered.  Returns the text of the plan
 *		and sets *rows and *indexes from the JSON form.  With ANALYZE, the
 *		errors of a query whose errors the export withholds are withheld
 *		(exwiw_withhold_error); the caller then plans it without parallel
 *		workers, as the export's own (a worker would log its error).  Where
 *		the export walks the query's sets through indexes (walk.c), the
 *		walk's plan is explained.
 */
static char *
explain_file(ExwiwQuery *q, bool analyze, double *rows, Datum *indexes,
			 double *actual)
{
	StringInfoData sql;
	StringInfoData plan;
	char		nulls[1] = {' '};
	uint64		i;
	bool		isnull;
	Datum		json;
	Oid			argtypes[1] = {JSONOID};
	char	   *jsontext;
	int			walked;

	/* the plan that runs: an index walk where the export takes one */
	walked = pin_walk_for(q->sql, q->nargs, q->argtypes);
	initStringInfo(&sql);
	appendStringInfo(&sql, "EXPLAIN (FORMAT JSON) %s", q->sql);
	/* EXPLAIN is a utility statement: SPI runs those only read-write */
	if (SPI_execute_with_args(sql.data, q->nargs, q->argtypes, q->values, NULL,
							  false, 0) != SPI_OK_UTILITY || SPI_processed != 1)
		elog(ERROR, "could not EXPLAIN a file's query");
	jsontext = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	json = CStringGetTextDatum(jsontext);
	if (SPI_execute_with_args("SELECT ($1::pg_catalog.jsonb OPERATOR(pg_catalog.->) 0 OPERATOR(pg_catalog.->) 'Plan' OPERATOR(pg_catalog.->>) 'Plan Rows')::pg_catalog.float8,"
							  " ARRAY(SELECT DISTINCT pg_catalog.jsonb_path_query($1::pg_catalog.jsonb, 'strict $.**.\"Index Name\"') OPERATOR(pg_catalog.#>>) '{}' ORDER BY 1)",
							  1, argtypes, &json, nulls, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read an EXPLAIN");
	*rows = DatumGetFloat8(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	*indexes = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull);
	*indexes = PointerGetDatum(DatumGetArrayTypePCopy(*indexes));

	resetStringInfo(&sql);
	appendStringInfo(&sql, "EXPLAIN (%s) %s",
					 analyze ? "ANALYZE, BUFFERS, TIMING OFF, SUMMARY OFF" : "COSTS ON",
					 q->sql);
	/* EXPLAIN is a utility statement: SPI runs those only read-write */
	if (explain_withheld(sql.data, q, analyze && q->error_table, false) != SPI_OK_UTILITY)
		elog(ERROR, "could not EXPLAIN a file's query");
	initStringInfo(&plan);
	for (i = 0; i < SPI_processed; i++)
		appendStringInfo(&plan, "%s%s", i ? "\n" : "",
						 SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1));
	/* ANALYZE: the top node's "actual rows=N loops=1" are the file's rows */
	*actual = -1;
	if (analyze)
	{
		const char *nl = strchr(plan.data, '\n');
		const char *a = strstr(plan.data, "actual rows=");

		if (a == NULL || (nl != NULL && a > nl))
			elog(ERROR, "could not read the rows of an EXPLAIN ANALYZE");
		*actual = strtod(a + strlen("actual rows="), NULL);
	}
	if (walked >= 0)
		exwiw_restore_settings(walked);
	return plan.data;
}

/*
 * count_file
 *		The rows of file i of run, counted on the export's snapshot: those
 *		of the set that holds exactly its rows (plan/build.c), when the
 *		export has computed it as a relation; else its count query's
 *		count (joined to its parent's set where the file's query is, run/
 *		executor.c), run as the file's query would run (its sets, parameters,
 *		settings and withheld errors: q; an index walk where walk.c takes
 *		one) in the current SPI connection, which has q's sets registered.
 */
static double
count_file(SubsetRun *run, int i, ExwiwQuery *q)
{
	SubsetFile *f = &run->plan->files[i];
	ExwiwQuery	c;
	int			walked;
	bool		isnull;
	Datum		n;

	if (f->count_set >= 0 && !run->inline_sets && run->enrs[f->count_set] != NULL)
		return (double) run->enrs[f->count_set]->md.enrtuples;
	if (f->count_query == NULL)
		elog(ERROR, "file %s has no count query", f->file_name);
	c = *q;
	if (subset_run_reads_whole(run, i))
		c.sql = pstrdup(f->whole_count_query);
	else
		c.sql = run_with_sets(run, f->count_join_query != NULL &&
							  subset_run_joins_parent(run, i) ?
							  f->count_join_query : f->count_query, f->deps);
	walked = pin_walk_for(c.sql, c.nargs, c.argtypes);
	if (explain_withheld(c.sql, &c, c.error_table != NULL, true) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "could not count a file's rows");
	n = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (walked >= 0)
		exwiw_restore_settings(walked);
	return isnull ? 0 : (double) DatumGetInt64(n);
}

/*
 * subset_explain
 *		exwiw_explain's rows for a's arguments, put into ts (of desc, the
 *		function's result): the export prepared as exwiw_export prepares it
 *		(on the caller's snapshot), then one row per file that has rows.
 */
void
subset_explain(const SubsetArgs *a, Tuplestorestate *ts, TupleDesc desc)
{
	SubsetPlan *plan = subset_plan_from_args(a, false);
	SubsetConfig *cfg = plan->cfg;
	SubsetRun  *run = subset_run_prepare(a->fn, plan, CurrentMemoryContext);
	int			i;

	for (i = 0; i < plan->nfiles; i++)
	{
		SubsetFile *f = &plan->files[i];
		ExwiwQuery	q;
		Datum		values[7];
		bool		nulls[7] = {false, false, false, false, false, false, false};
		double		rows = 0;
		double		actual = -1;
		Datum		indexes = (Datum) 0;
		char	   *text;
		ListCell   *lc;
		int			nest = -1;
		int			serial = -1;

		CHECK_FOR_INTERRUPTS();
		if (!f->has_rows)
			continue;
		subset_run_file_query(run, i, &q);
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		foreach(lc, q.enrs)
			SPI_register_relation((EphemeralNamedRelation) lfirst(lc));
		if (q.error_table)
			serial = exwiw_pin_serial();
		if (q.pin_search_path)
			nest = exwiw_pin_search_path();
		text = explain_file(&q, a->actual, &rows, &indexes, &actual);

		if (a->count_rows && !a->actual)
			actual = count_file(run, i, &q);

		if (nest >= 0)
			exwiw_restore_settings(nest);
		if (serial >= 0)
			exwiw_restore_settings(serial);
		values[0] = Int32GetDatum(f->seq);
		values[1] = CStringGetTextDatum(cfg->tables[f->table].name);
		values[2] = CStringGetTextDatum(f->file_name);
		values[3] = Float8GetDatum(rows);
		values[4] = indexes;
		values[5] = CStringGetTextDatum(text);
		values[6] = Float8GetDatum(actual);
		nulls[6] = (actual < 0);
		tuplestore_putvalues(ts, desc, values, nulls);
		SPI_finish();
	}
	subset_run_release(run);
}
