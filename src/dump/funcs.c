/*-------------------------------------------------------------------------
 *
 * dump/funcs.c
 *	  The SQL-callable functions of the dump: exwiw_dump() streams any
 *	  query as one INSERT statement (or COPY block) in text chunks;
 *	  exwiw_dump_jsonl(), its JSON Lines twin, is with the Extended JSON
 *	  functions (extjson/funcs.c), on the same engine.
 *
 *	  exwiw_dump(query text, table_name text,
 *				 rows_per_statement integer DEFAULT NULL,
 *				 format text DEFAULT 'insert',
 *				 chunk_bytes integer DEFAULT 262144,
 *				 part integer DEFAULT NULL, parts integer DEFAULT NULL)
 *		RETURNS SETOF text
 *	  exwiw_file_prologue() RETURNS text
 *	  exwiw_copy_lines(query text, table_name text) RETURNS SETOF text
 *
 * part => k, parts => n: only the k-th of n parts of the output, split
 * between rows by row count, so that the parts' outputs concatenate to the
 * whole output (stream.c).
 *
 * exwiw_dump writes the statements alone; exwiw_file_prologue gives the
 * lines that make them a whole file when written from the client's end.
 * exwiw_copy_lines returns a COPY dump one line per row, for psql's \copy
 * (copy_lines.c says how the lines pass through COPY's CSV format).
 * Each plugs a writer (dump/writer.c, copy_lines.c) into the streaming
 * engine (stream.c).
 * A value-per-call set-returning function: in a target list
 * (SELECT exwiw_dump(...)) every call formats just enough rows for one
 * chunk, so the backend holds one chunk at a time however large the result.
 * In FROM (SELECT * FROM exwiw_dump(...)) PostgreSQL's FunctionScan
 * collects all chunks in a tuplestore first; that works, but buffers.
 *
 * The consumer may stop early (LIMIT, cancel, an error): the cursor is
 * closed by an ExprContext shutdown callback, never by relying on a last
 * call that may not come.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"

#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(exwiw_dump);
PG_FUNCTION_INFO_V1(exwiw_file_prologue);
PG_FUNCTION_INFO_V1(exwiw_copy_lines);

/* What exwiw_copy_lines keeps across calls. */
typedef struct LinesState
{
	ExwiwStream *stream;
	const char *pos;			/* next line in the current chunk */
	const char *end;			/* end of the current chunk, or NULL */
} LinesState;

/*
 * exwiw_file_prologue
 *		SQL entry point: the lines a whole file starts with (dump/writer.c),
 *		for a file made of this session's output, so naming the encoding
 *		that output reaches the client in; without the final newline,
 *		which psql -XAt adds.
 */
Datum
exwiw_file_prologue(PG_FUNCTION_ARGS)
{
	char	   *lines = exwiw_sql_file_prologue(EXWIW_SQL_FILE, false);
	int			len = strlen(lines);

	Assert(len > 0 && lines[len - 1] == '\n');
	PG_RETURN_TEXT_P(cstring_to_text_with_len(lines, len - 1));
}

/*
 * exwiw_dump
 *		SQL entry point, see the file header.
 */
Datum
exwiw_dump(PG_FUNCTION_ARGS)
{
	FuncCallContext *funcctx;

	if (SRF_IS_FIRSTCALL())
	{
		const char *fn = "exwiw_dump";
		char	   *query;
		char	   *table_name;
		int64		rows_per_statement;
		ExwiwSqlFormat format;
		int			chunk_bytes;
		MemoryContext old;
		ExwiwWriter *writer;
		ExwiwSqlWriterOptions opts = {0};
		ExwiwQuery	q = {0};

		exwiw_check_srf_context(fcinfo, fn);
		exwiw_require_arg(fcinfo, 0, fn, "query");
		exwiw_require_arg(fcinfo, 1, fn, "table_name");
		exwiw_require_arg(fcinfo, 3, fn, "format");
		chunk_bytes = exwiw_chunk_bytes_arg(fcinfo, 4, fn);
		format = exwiw_parse_sql_format(text_to_cstring(PG_GETARG_TEXT_PP(3)), false);
		rows_per_statement = exwiw_rows_per_statement_arg(fcinfo, 2, format);

		funcctx = SRF_FIRSTCALL_INIT();
		old = MemoryContextSwitchTo(funcctx->multi_call_memory_ctx);
		query = text_to_cstring(PG_GETARG_TEXT_PP(0));
		table_name = text_to_cstring(PG_GETARG_TEXT_PP(1));
		opts.table_name = table_name;
		opts.format = format;
		opts.rows_per_statement = rows_per_statement;
		writer = exwiw_sql_writer_create(&opts);
		q.sql = query;
		q.context = "exwiw_dump, reading the query";
		exwiw_part_args(fcinfo, 5, fn, &q);
		exwiw_srf_start(fcinfo, funcctx,
						exwiw_stream_open(fn, &q, writer, chunk_bytes,
										  funcctx->multi_call_memory_ctx));
		MemoryContextSwitchTo(old);
	}

	funcctx = SRF_PERCALL_SETUP();
	return exwiw_srf_next(fcinfo, funcctx);
}

/*
 * lines_shutdown
 *		ExprContext callback: the consumer stopped early, close the stream.
 */
static void
lines_shutdown(Datum arg)
{
	exwiw_stream_close(((LinesState *) DatumGetPointer(arg))->stream);
}

/*
 * exwiw_copy_lines
 *		SQL entry point, see the file header.  Each call returns the next
 *		line of the current chunk; the chunks of the stream hold whole
 *		lines joined by "\n", and a COPY line never holds a raw newline.
 */
Datum
exwiw_copy_lines(PG_FUNCTION_ARGS)
{
	const char *fn = "exwiw_copy_lines";
	FuncCallContext *funcctx;
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	LinesState *st;
	const char *nl;
	text	   *line;

	if (SRF_IS_FIRSTCALL())
	{
		MemoryContext old;
		ExwiwQuery	q = {0};

		exwiw_check_srf_context(fcinfo, fn);
		exwiw_require_arg(fcinfo, 0, fn, "query");
		exwiw_require_arg(fcinfo, 1, fn, "table_name");
		funcctx = SRF_FIRSTCALL_INIT();
		old = MemoryContextSwitchTo(funcctx->multi_call_memory_ctx);
		st = palloc0(sizeof(LinesState));
		q.sql = text_to_cstring(PG_GETARG_TEXT_PP(0));
		q.context = "exwiw_copy_lines, reading the query";
		st->stream = exwiw_stream_open(fn, &q,
									   exwiw_copy_lines_writer(text_to_cstring(PG_GETARG_TEXT_PP(1))),
									   EXWIW_DEFAULT_CHUNK_BYTES,
									   funcctx->multi_call_memory_ctx);
		funcctx->user_fctx = st;
		RegisterExprContextCallback(rsinfo->econtext, lines_shutdown,
									PointerGetDatum(st));
		MemoryContextSwitchTo(old);
	}

	funcctx = SRF_PERCALL_SETUP();
	st = (LinesState *) funcctx->user_fctx;

	if (st->end == NULL || st->pos > st->end)
	{
		text	   *chunk = exwiw_stream_next(st->stream);

		if (chunk == NULL)
		{
			exwiw_stream_close(st->stream);
			UnregisterExprContextCallback(rsinfo->econtext, lines_shutdown,
										  PointerGetDatum(st));
			SRF_RETURN_DONE(funcctx);
		}
		st->pos = VARDATA_ANY(chunk);
		st->end = st->pos + VARSIZE_ANY_EXHDR(chunk);
	}
	nl = memchr(st->pos, '\n', st->end - st->pos);
	if (nl == NULL)
		nl = st->end;
	line = cstring_to_text_with_len(st->pos, nl - st->pos);
	st->pos = nl + 1;			/* past end: the chunk is used up */
	SRF_RETURN_NEXT(funcctx, PointerGetDatum(line));
}
