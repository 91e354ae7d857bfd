/*-------------------------------------------------------------------------
 *
 * extjson/lines.c
 *	  The JSON Lines writer: one Relaxed Extended JSON document per row.
 *
 * A writer (see exwiw.h) plugged into the shared streaming engine, as the
 * SQL writer is: the engine checks the query, runs it, cuts chunks between
 * rows and cleans up; this file only formats a row.  JSON Lines has nothing
 * between or after rows but the newline the engine adds, so a stream of it
 * printed one chunk a line is the .jsonl file.  Used by exwiw_dump_jsonl
 * (dump/funcs.c), the subset export's jsonl files and the JSON Lines sink.
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
