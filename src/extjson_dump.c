/*-------------------------------------------------------------------------
 *
 * extjson_dump.c
 *	  exwiw_dump_jsonl(): stream one Relaxed Extended JSON document per row
 *	  of a query, as JSON Lines in text chunks.
 *
 *	  exwiw_dump_jsonl(query text, oid_columns text[] DEFAULT NULL,
 *					   omit_nulls boolean DEFAULT false,
 *					   chunk_bytes integer DEFAULT 262144) RETURNS SETOF text
 *
 * A writer (see exwiw.h) plugged into the shared streaming engine, like
 * exwiw_dump: the engine checks the query, runs the cursor, cuts chunks
 * between rows and cleans up; this file only formats a row.  JSON Lines
 * has nothing between or after rows but the newline the engine adds, so
 * `psql -XAt -c "SELECT exwiw_dump_jsonl(...)"` prints the .jsonl file.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"

#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"

typedef struct JsonlWriter
{
	ExwiwWriter pub;
	const char *funcname;
	ArrayType  *oid_columns;	/* NULL, or copied into the SRF's context */
	bool		omit_nulls;
	ExjRowWriter *rw;			/* made by begin */
} JsonlWriter;

/*
 * jsonl_begin
 *		Writer callback: prepare the row formatter for the query's columns
 *		(this also checks that oid_columns names only real columns).
 */
static void
jsonl_begin(ExwiwWriter *w, TupleDesc desc, MemoryContext cxt)
{
	JsonlWriter *jw = (JsonlWriter *) w;

	jw->rw = exwiw_extjson_row_writer(jw->funcname, desc, jw->oid_columns,
									  jw->omit_nulls, cxt);
}

/*
 * jsonl_row
 *		Writer callback: append the row's document.
 */
static void
jsonl_row(ExwiwWriter *w, StringInfo buf, TupleTableSlot *slot, uint64 rowno)
{
	JsonlWriter *jw = (JsonlWriter *) w;
	MemoryContext cxt = CurrentMemoryContext;

	slot_getallattrs(slot);
	PG_TRY();
	{
		exwiw_extjson_append_row(jw->rw, buf, slot->tts_values, slot->tts_isnull);
	}
	PG_CATCH();
	{
		ErrorData  *ed;

		/*
		 * A document that does not fit in the chunk: the buffer could not
		 * grow past 1 GB ("out of memory", 54000).  Say which row.
		 */
		MemoryContextSwitchTo(cxt);
		ed = CopyErrorData();
		if (ed->sqlerrcode != ERRCODE_PROGRAM_LIMIT_EXCEEDED)
			PG_RE_THROW();
		FlushErrorState();
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("row " UINT64_FORMAT " is too large to export", rowno + 1),
				 errdetail("A chunk is one text value, limited to 1 GB, and holds at least one whole row; this row's document does not fit."),
				 errhint("Export the widest columns separately, or select a shorter form of them.")));
	}
	PG_END_TRY();
}

/*
 * exwiw_jsonl_writer_create
 *		A JSON Lines writer, allocated in the current memory context:
 *		oid_columns (NULL, or an array that outlives the writer) and
 *		omit_nulls as exwiw_dump_jsonl() takes them.
 */
ExwiwWriter *
exwiw_jsonl_writer_create(const char *funcname, ArrayType *oid_columns,
						  bool omit_nulls)
{
	JsonlWriter *jw = palloc0(sizeof(JsonlWriter));

	jw->pub.begin = jsonl_begin;
	jw->pub.row = jsonl_row;
	/* JSON Lines: nothing between rows or after them but the newline */
	jw->funcname = funcname;
	jw->oid_columns = oid_columns;
	jw->omit_nulls = omit_nulls;
	return &jw->pub;
}

PG_FUNCTION_INFO_V1(exwiw_dump_jsonl);

/*
 * exwiw_dump_jsonl
 *		SQL entry point, see the file header.
 */
Datum
exwiw_dump_jsonl(PG_FUNCTION_ARGS)
{
	FuncCallContext *funcctx;

	if (SRF_IS_FIRSTCALL())
	{
		const char *fn = "exwiw_dump_jsonl";
		int			chunk_bytes;
		MemoryContext old;
		ExwiwWriter *jw;
		char	   *query;

		exwiw_check_srf_context(fcinfo, fn);
		exwiw_require_arg(fcinfo, 0, fn, "query");
		exwiw_require_arg(fcinfo, 2, fn, "omit_nulls");
		chunk_bytes = exwiw_chunk_bytes_arg(fcinfo, 3, fn);

		funcctx = SRF_FIRSTCALL_INIT();
		old = MemoryContextSwitchTo(funcctx->multi_call_memory_ctx);
		query = text_to_cstring(PG_GETARG_TEXT_PP(0));
		jw = exwiw_jsonl_writer_create(fn, PG_ARGISNULL(1) ? NULL :
									   DatumGetArrayTypePCopy(PG_GETARG_DATUM(1)),
									   PG_GETARG_BOOL(2));
		{
			ExwiwQuery	q = {0};

			q.sql = query;
			q.context = "exwiw_dump_jsonl, reading the query";
			exwiw_srf_start(fcinfo, funcctx,
							exwiw_stream_open(fn, &q, (ExwiwWriter *) jw,
											  chunk_bytes,
											  funcctx->multi_call_memory_ctx));
		}
		MemoryContextSwitchTo(old);
	}

	funcctx = SRF_PERCALL_SETUP();
	return exwiw_srf_next(fcinfo, funcctx);
}
