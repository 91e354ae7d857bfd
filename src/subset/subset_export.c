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
 *				   ids_by_space jsonb DEFAULT NULL,
 *				   part integer DEFAULT NULL, parts integer DEFAULT NULL,
 *				   allow_missing_ids boolean DEFAULT false,
 *				   split_rows integer DEFAULT NULL,
 *				   deletes boolean DEFAULT false)
 *		RETURNS TABLE(file_name text, chunk text)
 *
 * At the first call the config is checked (subset_config.c), planned
 * (subset_plan.c) and prepared (subset_run.c: privileges, locks, the row
 * sets).  Then, for each table in turn, a stream (stream.c) runs its
 * extraction query through the SQL writer, which frames the file
 * (dump_writer.c: the prologue, the statements, the setval lines), and its
 * chunks are returned tagged with the file name.  A table with no rows
 * produces no chunk, hence no file.  With part => k, parts => n, each
 * file's stream reads only the k-th of its n parts (stream.c), under the
 * file's own name: the parts of one file, from connections that share a
 * snapshot, concatenate to the file.  With split_rows => N, each file is
 * written as pieces of at most N rows, insert-NNN-<table>.partK.sql
 * (K = 1, 2, ...), each framed as a whole file (its own prologue, trigger
 * blocks and statements; the setval lines in the last), so that each loads
 * on its own; the rows are read once (stream.c).  With deletes => true,
 * the delete files of the files written follow them, the last table's
 * first (subset_delete.c): delete-NNN-<table>.sql, each reading its insert
 * file's rows.
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
#include "subset/subset.h"
#include "sink/sink.h"

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
	int			dnext;			/* next file whose delete file to open */
	bool		deletes;		/* delete files after the insert files */
	int			cur;			/* file of the open stream */
	ExwiwSqlFormat format;
	ExwiwStream *stream;		/* open stream, or NULL */
	text	   *file_name;		/* file name of the open stream */
	MemoryContext stream_cxt;	/* memory of the open stream */
	TupleDesc	desc;
	ExwiwQuery	part;			/* part and parts of each file, or 0 */
	int64		split_rows;		/* pieces of at most this many rows, or 0 */
	int			piece;			/* piece of file_name (split_rows) */
	bool		deleting;		/* the stream is a delete file's */
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
	MemoryContext old;
	bool		deleting;

	/* a table known to have no rows has no file: skip its query */
	while (ex->next < ex->plan->nfiles && !ex->plan->files[ex->next].has_rows)
		ex->next++;
	/* then the delete files, last table first */
	while (ex->next >= ex->plan->nfiles && ex->deletes && ex->dnext >= 0 &&
		   !subset_delete_wanted(ex->plan, ex->dnext))
		ex->dnext--;
	if (ex->next < ex->plan->nfiles)
	{
		ex->cur = ex->next++;
		deleting = false;
	}
	else if (ex->deletes && ex->dnext >= 0)
	{
		ex->cur = ex->dnext--;
		deleting = true;
	}
	else
		return false;

	ex->stream_cxt = AllocSetContextCreate(parent, "exwiw_export table",
										   ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(ex->stream_cxt);
	ex->piece = 0;
	ex->deleting = deleting;
	if (deleting)
	{
		ex->file_name = cstring_to_text(ex->plan->files[ex->cur].delete_name);
		ex->stream = subset_delete_open_file(ex->plan, ex->run, ex->cur, false,
											 ex->stream_cxt, NULL);
	}
	else
	{
		ex->file_name = cstring_to_text(ex->plan->files[ex->cur].file_name);
		ex->stream = subset_export_open_file(ex->plan, ex->run, ex->cur, ex->format,
											 false, ex->part.part, ex->part.parts,
											 ex->stream_cxt);
		exwiw_stream_set_split_rows(ex->stream, ex->split_rows);
	}
	MemoryContextSwitchTo(old);
	return true;
}

/*
 * subset_export_open_file
 *		Open the stream of file number `file` of a prepared plan, with the
 *		writer that frames the file, in cxt; only its part-th of parts parts
 *		when parts > 0.  Shared with the directory sink (sink_funcs.c), so that
 *		both write the same bytes but for the encoding line: server_file
 *		when the server writes the file itself.
 */
ExwiwStream *
subset_export_open_file(SubsetPlan *plan, SubsetRun *run, int file,
						ExwiwSqlFormat format, bool server_file,
						int part, int parts,
						MemoryContext cxt)
{
	SubsetTable *t = &plan->cfg->tables[plan->files[file].table];
	MemoryContext old = MemoryContextSwitchTo(cxt);
	ExwiwWriter *writer;
	ExwiwSqlWriterOptions opts = {0};
	ExwiwQuery	q;
	ExwiwStream *stream;
	int			c;

	subset_run_file_query(run, file, &q);
	q.part = part;
	q.parts = parts;
	if (format == EXWIW_FORMAT_JSONL)
	{
		/* one Extended JSON document per row, nothing else in the file */
		writer = exwiw_jsonl_writer_create("exwiw_export", NULL, false);
		stream = exwiw_stream_open("exwiw_export", &q, writer,
								   EXWIW_DEFAULT_CHUNK_BYTES, cxt);
		MemoryContextSwitchTo(old);
		return stream;
	}
	if (plan->files[file].fixup)
	{
		/* a cycle's fix-up: INSERT ... ON CONFLICT DO UPDATE, in any format */
		format = EXWIW_FORMAT_INSERT;
		opts.conflict = plan->files[file].conflict;
	}
	else if (t->rails_managed)
	{
		/* the schema file may have inserted Rails's own rows already */
		format = EXWIW_FORMAT_INSERT;
		opts.conflict = "ON CONFLICT DO NOTHING";
	}
	opts.table_name = t->name;
	opts.format = format;
	opts.rows_per_statement = format == EXWIW_FORMAT_INSERT ? t->chunk : 0;
	for (c = 0; c < t->ncols; c++)
		opts.overriding_system_value |= t->cols[c].identity_always;
	opts.no_column_list = t->rails_managed;
	opts.file = EXWIW_SQL_SUBSET;
	opts.server_file = server_file;
	opts.sequences = plan->files[file].fixup ? NIL : subset_run_sequences(run, file);
	writer = exwiw_sql_writer_create(&opts);
	stream = exwiw_stream_open("exwiw_export", &q, writer,
							   EXWIW_DEFAULT_CHUNK_BYTES, cxt);
	MemoryContextSwitchTo(old);
	return stream;
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
 * subset_export_prepare
 *		Check, plan and prepare an export from the arguments of exwiw_export
 *		(target_table, ids, config, format, allow_undecided, files), which
 *		are fcinfo's arguments argoff to argoff + 5, ids_by_space, at
 *		ids_by_space_arg, allow_missing_ids, at allow_missing_arg, and
 *		deletes, at deletes_arg (*deletes; parts: the call's parts, or 0).
 *		Shared with the directory sink (sink_funcs.c), whose arguments follow its
 *		own first.  The prepared run is kept in cxt.
 */
SubsetRun *
subset_export_prepare(const char *fn, FunctionCallInfo fcinfo, int argoff,
					  int ids_by_space_arg, int allow_missing_arg,
					  int deletes_arg, int parts, MemoryContext cxt,
					  ExwiwSqlFormat *format, bool *deletes, SubsetPlan **planp)
{
	SubsetRequest req;
	SubsetConfig *cfg;
	SubsetPlan *plan;
	bool		allow_undecided = false;

	exwiw_refuse_pushed_down(fn);
	exwiw_require_arg(fcinfo, argoff + 1, fn, "ids");
	exwiw_require_arg(fcinfo, argoff + 3, fn, "format");

	/*
	 * The arguments after format came with 1.1: called through 1.0's
	 * declaration (before ALTER EXTENSION exwiw UPDATE), they are absent and
	 * take their defaults.
	 */
	if (EXWIW_HAS_ARG(fcinfo, argoff + 4))
	{
		exwiw_require_arg(fcinfo, argoff + 4, fn, "allow_undecided");
		allow_undecided = PG_GETARG_BOOL(argoff + 4);
	}

	*format = exwiw_parse_sql_format(text_to_cstring(PG_GETARG_TEXT_PP(argoff + 3)), true);
	if (PG_ARGISNULL(argoff + 2))
		cfg = subset_config_parse(fn, subset_catalog_config(subset_current_schema()));
	else
		cfg = subset_config_parse(fn, PG_GETARG_JSONB_P(argoff + 2));
	cfg->keep_cycle_values = (*format == EXWIW_FORMAT_JSONL);
	subset_config_check_masks(cfg);
	cfg->allow_undecided = allow_undecided;
	if (!allow_undecided)
		subset_config_check_decided(cfg);
	subset_request_init(&req, fn, cfg,
						PG_ARGISNULL(argoff + 0) ? NULL :
						text_to_cstring(PG_GETARG_TEXT_PP(argoff + 0)),
						PG_GETARG_ARRAYTYPE_P(argoff + 1),
						EXWIW_HAS_ARG(fcinfo, ids_by_space_arg) &&
						!PG_ARGISNULL(ids_by_space_arg) ?
						PG_GETARG_JSONB_P(ids_by_space_arg) : NULL);
	plan = subset_plan_build(&req);
	if (!allow_undecided)
		subset_plan_check_decided(plan);
	subset_plan_name_files(plan, *format == EXWIW_FORMAT_JSONL ? "jsonl" : "sql");
	if (EXWIW_HAS_ARG(fcinfo, argoff + 5) && !PG_ARGISNULL(argoff + 5))
		subset_plan_keep_files(plan, PG_GETARG_ARRAYTYPE_P(argoff + 5));
	if (EXWIW_HAS_ARG(fcinfo, allow_missing_arg))
	{
		exwiw_require_arg(fcinfo, allow_missing_arg, fn, "allow_missing_ids");
		plan->allow_missing_ids = PG_GETARG_BOOL(allow_missing_arg);
	}
	*deletes = false;
	if (EXWIW_HAS_ARG(fcinfo, deletes_arg))
	{
		exwiw_require_arg(fcinfo, deletes_arg, fn, "deletes");
		*deletes = PG_GETARG_BOOL(deletes_arg);
	}
	if (*deletes && *format == EXWIW_FORMAT_JSONL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("deletes => true needs format \"insert\" or \"copy\""),
				 errdetail("Delete files are SQL; a JSON Lines export has none, as with the Ruby client.")));
	if (*deletes && parts > 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("deletes => true cannot be combined with parts"),
				 errhint("Write the delete files in a call without part and parts.")));
	if (*deletes)
		subset_delete_check(plan);
	*planp = plan;
	return subset_run_prepare(fn, plan, cxt);
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

		exwiw_check_srf_context(fcinfo, fn);
		funcctx = SRF_FIRSTCALL_INIT();
		old = MemoryContextSwitchTo(funcctx->multi_call_memory_ctx);

		ex = palloc0(sizeof(SubsetExport));
		if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
			elog(ERROR, "return type must be a row type");
		ex->desc = BlessTupleDesc(CreateTupleDescCopy(desc));
		exwiw_part_args(fcinfo, 7, fn, &ex->part);
		if (EXWIW_HAS_ARG(fcinfo, 10) && !PG_ARGISNULL(10))
		{
			ex->split_rows = PG_GETARG_INT32(10);
			if (ex->split_rows < 1)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("split_rows must be positive, not " INT64_FORMAT,
								ex->split_rows)));
			if (ex->part.parts > 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s takes split_rows or part and parts, not both", fn)));
		}
		ex->run = subset_export_prepare(fn, fcinfo, 0, 6, 9, 11, ex->part.parts,
										funcctx->multi_call_memory_ctx,
										&ex->format, &ex->deletes, &ex->plan);
		ex->dnext = ex->plan->nfiles - 1;

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

			if (ex->split_rows > 0 && !ex->deleting &&
				exwiw_stream_piece(ex->stream) != ex->piece)
			{
				/* a new piece: its own file name, in the stream's memory */
				MemoryContext old = MemoryContextSwitchTo(ex->stream_cxt);

				ex->piece = exwiw_stream_piece(ex->stream);
				ex->file_name = cstring_to_text(exwiw_part_file_name(ex->plan->files[ex->cur].file_name,
																	 ex->piece));
				MemoryContextSwitchTo(old);
			}
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
