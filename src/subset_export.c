/*-------------------------------------------------------------------------
 *
 * subset_export.c
 *	  exwiw_export(): stream a subset export, every table's file in
 *	  processing order, all tables read from one snapshot.
 *
 *	  exwiw_export(target_table text, ids text[], config jsonb DEFAULT NULL,
 *				   format text DEFAULT 'insert',
 *				   allow_undecided boolean DEFAULT false,
 *				   files integer[] DEFAULT NULL,
 *				   ids_by_space jsonb DEFAULT NULL)
 *		RETURNS TABLE(file_name text, chunk text)
 *
 * At the first call the config is checked (subset_config.c), planned
 * (subset_plan.c) and prepared (subset_run.c: privileges, locks, the row
 * sets).  Then, for each table in turn, a stream (stream.c) runs its
 * extraction query through the SQL writer, which frames the file
 * (sql_writer.c: the prologue, the statements, the setval lines), and its
 * chunks are returned tagged with the file name.  A table with no rows
 * produces no chunk, hence no file.
 *
 * One snapshot: every query reads the caller's active snapshot, which is
 * the same for every call of this function within one statement; nothing
 * takes a new one.  Safe mode: a config in which a column still needs a
 * mask decision is refused unless allow_undecided is true.
 *
 * Early stop: an ExprContext shutdown callback closes the open cursor when
 * the consumer stops before the last row (LIMIT, cancel, error).
 *
 *-------------------------------------------------------------------------
 */
#include "subset.h"

#include "access/htup_details.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(exwiw_export);

/* The state kept across calls. */
typedef struct SubsetExport
{
	SubsetPlan *plan;
	SubsetRun  *run;
	int			next;			/* next file to open */
	int			cur;			/* file of the open stream */
	ExwiwSqlFormat format;
	ExwiwStream *stream;		/* open stream, or NULL */
	text	   *file_name;		/* file name of the open stream */
	MemoryContext stream_cxt;	/* memory of the open stream */
	TupleDesc	desc;
} SubsetExport;

/*
 * subset_export_shutdown
 *		ExprContext callback: the consumer is done with us, close the cursor
 *		of the open stream, if any.
 */
static void
subset_export_shutdown(Datum arg)
{
	SubsetExport *ex = (SubsetExport *) DatumGetPointer(arg);

	if (ex->stream != NULL)
		exwiw_stream_close(ex->stream);
	ex->stream = NULL;
	if (ex->run != NULL)
		subset_run_release(ex->run);
}

/*
 * open_next_stream
 *		Open the stream of the next file of the plan in its own memory
 *		context.  Returns false when every file has been streamed.
 */
static bool
open_next_stream(SubsetExport *ex, MemoryContext parent)
{
	SubsetFile *f;
	SubsetTable *t;
	MemoryContext old;
	ExwiwWriter *writer;
	ExwiwSqlWriterOptions opts = {0};
	ExwiwQuery	q;
	int			c;

	/* a table known to have no rows has no file: skip its query */
	while (ex->next < ex->plan->nfiles && !ex->plan->files[ex->next].has_rows)
		ex->next++;
	if (ex->next >= ex->plan->nfiles)
		return false;
	ex->cur = ex->next++;
	f = &ex->plan->files[ex->cur];
	t = &ex->plan->cfg->tables[f->table];

	ex->stream_cxt = AllocSetContextCreate(parent, "exwiw_export table",
										   ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(ex->stream_cxt);
	ex->file_name = cstring_to_text(f->file_name);
	subset_run_file_query(ex->run, ex->cur, &q);
	if (ex->format == EXWIW_FORMAT_JSONL)
	{
		/* one Extended JSON document per row, nothing else in the file */
		writer = exwiw_jsonl_writer_create("exwiw_export", NULL, false);
		ex->stream = exwiw_stream_open("exwiw_export", &q, writer,
									   EXWIW_DEFAULT_CHUNK_BYTES, ex->stream_cxt);
		MemoryContextSwitchTo(old);
		return true;
	}
	opts.table_name = t->name;
	opts.format = ex->format;
	opts.rows_per_statement = ex->format == EXWIW_FORMAT_INSERT ? t->chunk : 0;
	for (c = 0; c < t->ncols; c++)
		opts.overriding_system_value |= t->cols[c].identity_always;
	opts.no_column_list = t->rails_managed;
	opts.prologue = exwiw_subset_file_prologue();
	opts.epilogue = subset_run_epilogue(ex->run, ex->cur);
	writer = exwiw_sql_writer_create(&opts);
	ex->stream = exwiw_stream_open("exwiw_export", &q, writer,
								   EXWIW_DEFAULT_CHUNK_BYTES, ex->stream_cxt);
	MemoryContextSwitchTo(old);
	return true;
}

/*
 * close_stream
 *		Close the open stream and free its memory.  Only called once its
 *		last chunk has been consumed (a later call than the one that
 *		returned it).
 */
static void
close_stream(SubsetExport *ex)
{
	if (ex->stream != NULL)
		exwiw_stream_close(ex->stream);
	ex->stream = NULL;
	ex->file_name = NULL;
	if (ex->stream_cxt != NULL)
		MemoryContextDelete(ex->stream_cxt);
	ex->stream_cxt = NULL;
}

/*
 * exwiw_export
 *		SQL entry point, see the file header.
 */
Datum
exwiw_export(PG_FUNCTION_ARGS)
{
	const char *fn = "exwiw_export";
	FuncCallContext *funcctx;
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	SubsetExport *ex;

	if (SRF_IS_FIRSTCALL())
	{
		MemoryContext old;
		TupleDesc	desc;
		SubsetConfig *cfg;

		exwiw_check_srf_context(fcinfo, fn);
		exwiw_require_arg(fcinfo, 1, fn, "ids");
		exwiw_require_arg(fcinfo, 3, fn, "format");
		exwiw_require_arg(fcinfo, 4, fn, "allow_undecided");

		funcctx = SRF_FIRSTCALL_INIT();
		old = MemoryContextSwitchTo(funcctx->multi_call_memory_ctx);

		ex = palloc0(sizeof(SubsetExport));
		ex->format = exwiw_parse_sql_format(text_to_cstring(PG_GETARG_TEXT_PP(3)), true);
		if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
			elog(ERROR, "return type must be a row type");
		ex->desc = BlessTupleDesc(CreateTupleDescCopy(desc));

		if (PG_ARGISNULL(2))
			cfg = subset_config_parse(fn, subset_catalog_config(subset_current_schema()));
		else
			cfg = subset_config_parse(fn, PG_GETARG_JSONB_P(2));
		subset_config_check_masks(cfg);
		if (!PG_GETARG_BOOL(4))
			subset_config_check_decided(cfg);
		ex->plan = subset_plan_build(fn, cfg,
									 PG_ARGISNULL(0) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(0)),
									 PG_GETARG_ARRAYTYPE_P(1),
									 PG_ARGISNULL(6) ? NULL : PG_GETARG_JSONB_P(6));
		subset_plan_name_files(ex->plan, ex->format == EXWIW_FORMAT_JSONL ? "jsonl" : "sql");
		if (!PG_ARGISNULL(5))
			subset_plan_keep_files(ex->plan, PG_GETARG_ARRAYTYPE_P(5));
		ex->run = subset_run_prepare(fn, ex->plan, funcctx->multi_call_memory_ctx);

		funcctx->user_fctx = ex;
		RegisterExprContextCallback(rsinfo->econtext, subset_export_shutdown,
									PointerGetDatum(ex));
		MemoryContextSwitchTo(old);
	}

	funcctx = SRF_PERCALL_SETUP();
	ex = (SubsetExport *) funcctx->user_fctx;

	for (;;)
	{
		text	   *chunk;

		CHECK_FOR_INTERRUPTS();

		if (ex->stream == NULL &&
			!open_next_stream(ex, funcctx->multi_call_memory_ctx))
			break;

		chunk = exwiw_stream_next(ex->stream);
		if (chunk != NULL)
		{
			Datum		values[2];
			bool		nulls[2] = {false, false};

			values[0] = PointerGetDatum(ex->file_name);
			values[1] = PointerGetDatum(chunk);
			SRF_RETURN_NEXT(funcctx,
							HeapTupleGetDatum(heap_form_tuple(ex->desc, values, nulls)));
		}
		/* this table is done (or had no rows): go on with the next one */
		close_stream(ex);
	}

	/* our memory goes away with the SRF's: drop the callback */
	subset_run_release(ex->run);
	UnregisterExprContextCallback(rsinfo->econtext, subset_export_shutdown,
								  PointerGetDatum(ex));
	SRF_RETURN_DONE(funcctx);
}
