/*-------------------------------------------------------------------------
 *
 * subset_export.c
 *	  exwiw_export(): stream a subset export, every table's file in
 *	  processing order, all tables read from one snapshot.
 *
 *	  exwiw_export(target_table text, ids text[], config jsonb DEFAULT NULL,
 *				   format text DEFAULT 'insert')
 *		RETURNS TABLE(file_name text, chunk text)
 *
 * The plan (which tables, in which order, with which extraction query) comes
 * from exwiw_internal_plan(), the SQL planner behind exwiw_plan().  At the
 * first call we run it once through SPI and copy its rows out.  Then, for
 * each table in turn, we open a stream (stream.c) on its extraction query
 * with the dump writer (sql_writer.c), the file's DO block as prologue and
 * the setval line as epilogue, and return its chunks, tagged with the file
 * name.  A table with no rows produces no chunk, hence no file.
 *
 * One snapshot: the engine opens every cursor read-only, on the caller's
 * active snapshot, which is the same for every call of this function within
 * one statement.  Streams are opened lazily, when the previous one ends, and
 * all of them still read that one snapshot; we never take a new one.
 *
 * Early stop: an ExprContext shutdown callback closes the open cursor when
 * the consumer stops before the last row (LIMIT, cancel, error).
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(exwiw_export);

/*
 * What the load runs first in every file: skip foreign-key triggers where
 * the role may (../shared/spec/sql-dump-format.md).
 */
#define SUBSET_PROLOGUE \
	"DO $exwiw$ BEGIN\n" \
	"  PERFORM set_config('session_replication_role', 'replica', false);\n" \
	"EXCEPTION WHEN insufficient_privilege THEN\n" \
	"  RAISE WARNING 'exwiw: could not disable triggers for the load (%): %', SQLSTATE, SQLERRM;\n" \
	"END $exwiw$;\n"

/* One table of the plan. */
typedef struct SubsetTable
{
	char	   *table_name;
	char	   *file_name;
	char	   *query;
	int			chunk_size;		/* INSERT rows per statement */
	char	   *epilogue;		/* setval line, or NULL */
} SubsetTable;

/* The state kept across calls. */
typedef struct SubsetExport
{
	SubsetTable *tables;
	int			ntables;
	int			next;			/* next table to open */
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
}

/*
 * text_or_null
 *		SPI result column colno of tuple as a C string allocated in the
 *		current memory context, or NULL.
 */
static char *
text_or_null(HeapTuple tuple, TupleDesc desc, int colno)
{
	return SPI_getvalue(tuple, desc, colno);
}

/*
 * load_plan
 *		Run the planner through SPI and copy its rows into ex, allocated in
 *		cxt.  fn_oid is our own function, whose schema holds the planner.
 */
static void
load_plan(SubsetExport *ex, Oid fn_oid, Datum target, Datum ids,
		  Datum config, bool config_null, MemoryContext cxt)
{
	char	   *nspname = get_namespace_name(get_func_namespace(fn_oid));
	StringInfoData sql;
	Oid			argtypes[3] = {TEXTOID, TEXTARRAYOID, JSONBOID};
	Datum		values[3];
	char		nulls[3] = {' ', ' ', ' '};
	MemoryContext old;
	uint64		i;
	int			ret;

	initStringInfo(&sql);
	appendStringInfo(&sql,
					 "SELECT table_name, file_name, query, chunk_size, epilogue "
					 "FROM %s.exwiw_internal_plan($1, $2, $3) ORDER BY seq",
					 quote_identifier(nspname));
	values[0] = target;
	values[1] = ids;
	values[2] = config;
	if (config_null)
		nulls[2] = 'n';

	/*
	 * The planner is a volatile PL/pgSQL function (it warns, and reads the
	 * sequences), so it runs with read_only = false.  That gives the
	 * planner's own statements fresh snapshots while it runs, and leaves
	 * the caller's active snapshot, on which every table is read later,
	 * untouched.
	 */
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	ret = SPI_execute_with_args(sql.data, 3, argtypes, values, nulls, false, 0);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "exwiw_internal_plan failed: %s", SPI_result_code_string(ret));

	/* copy the rows out into cxt, which outlives SPI_finish() */
	old = MemoryContextSwitchTo(cxt);
	ex->ntables = (int) SPI_processed;
	ex->tables = palloc0(sizeof(SubsetTable) * Max(ex->ntables, 1));
	for (i = 0; i < SPI_processed; i++)
	{
		HeapTuple	tuple = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		SubsetTable *t = &ex->tables[i];
		char	   *chunk;

		t->table_name = text_or_null(tuple, desc, 1);
		t->file_name = text_or_null(tuple, desc, 2);
		t->query = text_or_null(tuple, desc, 3);
		chunk = SPI_getvalue(tuple, desc, 4);
		t->chunk_size = chunk ? pg_strtoint32(chunk) : 0;
		t->epilogue = text_or_null(tuple, desc, 5);
		if (t->table_name == NULL || t->file_name == NULL || t->query == NULL)
			elog(ERROR, "exwiw_internal_plan returned a NULL in row " UINT64_FORMAT, i + 1);
	}
	MemoryContextSwitchTo(old);

	SPI_finish();
	pfree(sql.data);
}

/*
 * open_next_stream
 *		Open the stream of the next table of the plan in its own memory
 *		context.  Returns false when every table has been streamed.
 */
static bool
open_next_stream(SubsetExport *ex, MemoryContext parent)
{
	SubsetTable *t;
	MemoryContext old;
	ExwiwWriter *writer;

	if (ex->next >= ex->ntables)
		return false;
	t = &ex->tables[ex->next++];

	ex->stream_cxt = AllocSetContextCreate(parent, "exwiw_export table",
										   ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(ex->stream_cxt);
	ex->file_name = cstring_to_text(t->file_name);
	writer = exwiw_sql_writer_create(t->table_name, ex->format,
									 ex->format == EXWIW_FORMAT_INSERT ? t->chunk_size : 0);
	ex->stream = exwiw_stream_open("exwiw_export", t->query, writer,
								   EXWIW_DEFAULT_CHUNK_BYTES,
								   SUBSET_PROLOGUE, t->epilogue,
								   ex->stream_cxt);
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

		exwiw_check_srf_context(fcinfo, fn);
		exwiw_require_arg(fcinfo, 0, fn, "target_table");
		exwiw_require_arg(fcinfo, 1, fn, "ids");
		exwiw_require_arg(fcinfo, 3, fn, "format");

		funcctx = SRF_FIRSTCALL_INIT();
		old = MemoryContextSwitchTo(funcctx->multi_call_memory_ctx);

		ex = palloc0(sizeof(SubsetExport));
		ex->format = exwiw_parse_sql_format(fn, text_to_cstring(PG_GETARG_TEXT_PP(3)));
		if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
			elog(ERROR, "return type must be a row type");
		ex->desc = BlessTupleDesc(CreateTupleDescCopy(desc));

		load_plan(ex, fcinfo->flinfo->fn_oid,
				  PG_GETARG_DATUM(0), PG_GETARG_DATUM(1),
				  PG_ARGISNULL(2) ? (Datum) 0 : PG_GETARG_DATUM(2),
				  PG_ARGISNULL(2), funcctx->multi_call_memory_ctx);

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
	UnregisterExprContextCallback(rsinfo->econtext, subset_export_shutdown,
								  PointerGetDatum(ex));
	SRF_RETURN_DONE(funcctx);
}
