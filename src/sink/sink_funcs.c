/*-------------------------------------------------------------------------
 *
 * sink_funcs.c
 *	  The server-side file sinks: SQL functions that drain a stream (see
 *	  exwiw.h) into files on the database server.
 *
 *	  exwiw_dump_to_file(path, query, table_name, rows_per_statement,
 *						 format, compress, overwrite, part, parts)
 *	  exwiw_dump_jsonl_to_file(path, query, oid_columns, omit_nulls,
 *							   compress, overwrite, part, parts)
 *		-> (file_name text, rows bigint, bytes bigint)
 *	  exwiw_export_to_dir(dir, target_table, ids, config, format,
 *						  allow_undecided, files, compress, overwrite,
 *						  ids_by_space, part, parts, allow_missing_ids)
 *		-> SETOF (file_name text, rows bigint, bytes bigint)
 *	  exwiw_remove_export(dir) -> integer
 *
 * The bytes of a file are the stream's chunks joined by "\n", plus a final
 * "\n": exactly what the psql recipe writes for exwiw_dump_jsonl, and for
 * exwiw_export's files, but for the encoding their first line names: the
 * sinks write the server's bytes, so it names the server encoding.  An
 * exwiw_dump file starts with the lines "SET client_encoding = '...';" and
 * "SET standard_conforming_strings = on;", as every whole SQL file exwiw
 * writes does (the SQL writer's prologue, so a query without rows gives an
 * empty file).  Compression (compress.c) sits between the stream and the
 * file; atomicity and cleanup are file_sink.c's.
 *
 * Memory: a stream holds at most two chunks; the sink writes each chunk as
 * soon as it is returned and keeps nothing of it, so the backend's memory
 * does not grow with the number of rows.  The functions run to the end
 * within one call: exwiw_export_to_dir returns its rows (one per file)
 * once the directory is in place.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"

#include "sink/sink.h"

#include "access/htup_details.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "subset/subset.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(exwiw_dump_to_file);
PG_FUNCTION_INFO_V1(exwiw_dump_jsonl_to_file);
PG_FUNCTION_INFO_V1(exwiw_export_to_dir);
PG_FUNCTION_INFO_V1(exwiw_remove_export);

/* One file being written: its output, and the compressor in front of it. */
typedef struct SinkFile
{
	const char *funcname;
	ExwiwOutput *out;
	ExwiwCompressor *comp;		/* NULL: no compression */
	ExwiwCompressSpec spec;
} SinkFile;

/*
 * sink_error_context
 *		Error context of a sink: the function and the file it writes.
 */
static void
sink_error_context(void *arg)
{
	SinkFile   *sf = (SinkFile *) arg;

	if (sf->out != NULL)
		errcontext("%s, writing \"%s\"", sf->funcname,
				   exwiw_output_file_path(sf->out));
}

/*
 * sink_raw_write
 *		Write callback of the compressor: bytes go to the file.
 */
static void
sink_raw_write(void *arg, const char *data, size_t len)
{
	exwiw_output_write((ExwiwOutput *) arg, data, len);
}

/*
 * sink_write
 *		Write bytes of the (uncompressed) output.
 */
static inline void
sink_write(SinkFile *sf, const char *data, size_t len)
{
	if (sf->comp)
		exwiw_compressor_write(sf->comp, data, len);
	else
		exwiw_output_write(sf->out, data, len);
}

/*
 * sink_start_file
 *		Open the next file of sf's output (name NULL for a file output) and
 *		its compressor.
 */
static void
sink_start_file(SinkFile *sf, const char *name)
{
	if (name != NULL)
		exwiw_output_open(sf->out, name);
	if (sf->spec.method != EXWIW_COMPRESS_NONE)
		sf->comp = exwiw_compressor_create(&sf->spec, sink_raw_write, sf->out);
}

/*
 * sink_end_file
 *		Finish the compressed stream, fsync and close the file; returns its
 *		size.
 */
static uint64
sink_end_file(SinkFile *sf)
{
	if (sf->comp)
		exwiw_compressor_finish(sf->comp);
	sf->comp = NULL;
	return exwiw_output_close(sf->out);
}

/*
 * sink_drain
 *		Write every chunk of stream, each followed by "\n".  When name is
 *		given (a directory output), the file is opened at the first chunk,
 *		so that a stream without rows makes no file; returns whether a
 *		file was written.
 */
static bool
sink_drain(SinkFile *sf, ExwiwStream *stream, const char *name)
{
	text	   *chunk;
	bool		opened = (name == NULL);

	while ((chunk = exwiw_stream_next(stream)) != NULL)
	{
		CHECK_FOR_INTERRUPTS();
		if (!opened)
		{
			sink_start_file(sf, name);
			opened = true;
		}
		sink_write(sf, VARDATA_ANY(chunk), VARSIZE_ANY_EXHDR(chunk));
		sink_write(sf, "\n", 1);
	}
	return opened;
}

/*
 * sink_args
 *		The arguments every sink takes: the path (checked) and, at the
 *		given positions, compress and overwrite.  Checks the caller's
 *		privilege first, so that a role without it learns that before
 *		anything else.
 */
static char *
sink_args(FunctionCallInfo fcinfo, const char *fn, const char *pathname,
		  int compress_arg, int overwrite_arg, SinkFile *sf, bool *overwrite)
{
	exwiw_sink_check_privilege(fn);
	exwiw_require_arg(fcinfo, 0, fn, pathname);
	memset(sf, 0, sizeof(*sf));
	sf->funcname = fn;
	if (compress_arg >= 0)
	{
		exwiw_require_arg(fcinfo, compress_arg, fn, "compress");
		exwiw_parse_compress(text_to_cstring(PG_GETARG_TEXT_PP(compress_arg)),
							 &sf->spec);
	}
	exwiw_require_arg(fcinfo, overwrite_arg, fn, "overwrite");
	*overwrite = PG_GETARG_BOOL(overwrite_arg);
	return exwiw_sink_check_path(text_to_cstring(PG_GETARG_TEXT_PP(0)), pathname);
}

/*
 * file_result
 *		The (file_name, rows, bytes) row of a file sink.
 */
static Datum
file_result(FunctionCallInfo fcinfo, const char *file_name, uint64 rows,
			uint64 bytes)
{
	TupleDesc	desc;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	desc = BlessTupleDesc(desc);
	values[0] = CStringGetTextDatum(file_name);
	values[1] = Int64GetDatum((int64) rows);
	values[2] = Int64GetDatum((int64) bytes);
	return HeapTupleGetDatum(heap_form_tuple(desc, values, nulls));
}

/*
 * write_one_file
 *		Open a stream on q with writer and drain it into the file at path.
 *		Returns the (file_name, rows, bytes) row.
 */
static Datum
write_one_file(FunctionCallInfo fcinfo, SinkFile *sf, const char *path,
			   bool overwrite, const ExwiwQuery *q, ExwiwWriter *writer)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "exwiw sink",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	ErrorContextCallback errcb;
	ExwiwStream *stream;
	uint64		rows;
	uint64		bytes;
	char	   *final_path;

	errcb.callback = sink_error_context;
	errcb.arg = sf;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;

	/* check the query before anything is created on disk */
	stream = exwiw_stream_open(sf->funcname, q, writer,
							   EXWIW_DEFAULT_CHUNK_BYTES, cxt);
	sf->out = exwiw_output_begin(path, false, overwrite);
	sink_start_file(sf, NULL);
	sink_drain(sf, stream, NULL);
	rows = exwiw_stream_rows(stream);
	exwiw_stream_close(stream);
	bytes = sink_end_file(sf);
	final_path = pstrdup(exwiw_output_file_path(sf->out));
	exwiw_output_commit(sf->out);
	sf->out = NULL;

	error_context_stack = errcb.previous;
	MemoryContextSwitchTo(old);
	return file_result(fcinfo, final_path, rows, bytes);
}

/*
 * exwiw_dump_to_file
 *		SQL entry point, see the file header: exwiw_dump's output, framed as
 *		a whole file.
 */
Datum
exwiw_dump_to_file(PG_FUNCTION_ARGS)
{
	const char *fn = "exwiw_dump_to_file";
	SinkFile	sf;
	bool		overwrite;
	char	   *path;
	ExwiwSqlWriterOptions opts = {0};
	ExwiwQuery	q = {0};

	path = sink_args(fcinfo, fn, "path", 5, 6, &sf, &overwrite);
	exwiw_require_arg(fcinfo, 1, fn, "query");
	exwiw_require_arg(fcinfo, 2, fn, "table_name");
	exwiw_require_arg(fcinfo, 4, fn, "format");
	opts.format = exwiw_parse_sql_format(text_to_cstring(PG_GETARG_TEXT_PP(4)), false);
	opts.rows_per_statement = exwiw_rows_per_statement_arg(fcinfo, 3, opts.format);
	opts.table_name = text_to_cstring(PG_GETARG_TEXT_PP(2));
	opts.file = EXWIW_SQL_FILE;
	opts.server_file = true;
	q.sql = text_to_cstring(PG_GETARG_TEXT_PP(1));
	q.context = "exwiw_dump_to_file, reading the query";
	exwiw_part_args(fcinfo, 7, fn, &q);
	PG_RETURN_DATUM(write_one_file(fcinfo, &sf, path, overwrite, &q,
								   exwiw_sql_writer_create(&opts)));
}

/*
 * exwiw_dump_jsonl_to_file
 *		SQL entry point, see the file header: exwiw_dump_jsonl's output as
 *		a .jsonl file.
 */
Datum
exwiw_dump_jsonl_to_file(PG_FUNCTION_ARGS)
{
	const char *fn = "exwiw_dump_jsonl_to_file";
	SinkFile	sf;
	bool		overwrite;
	char	   *path;
	ExwiwQuery	q = {0};
	ExwiwWriter *writer;

	path = sink_args(fcinfo, fn, "path", 4, 5, &sf, &overwrite);
	exwiw_require_arg(fcinfo, 1, fn, "query");
	exwiw_require_arg(fcinfo, 3, fn, "omit_nulls");
	writer = exwiw_jsonl_writer_create(fn, PG_ARGISNULL(2) ? NULL :
									   PG_GETARG_ARRAYTYPE_P(2),
									   PG_GETARG_BOOL(3));
	q.sql = text_to_cstring(PG_GETARG_TEXT_PP(1));
	q.context = "exwiw_dump_jsonl_to_file, reading the query";
	exwiw_part_args(fcinfo, 6, fn, &q);
	PG_RETURN_DATUM(write_one_file(fcinfo, &sf, path, overwrite, &q, writer));
}

/*
 * exwiw_export_to_dir
 *		SQL entry point, see the file header: the files of exwiw_export,
 *		byte for byte, in a directory that appears when it is complete.
 */
Datum
exwiw_export_to_dir(PG_FUNCTION_ARGS)
{
	const char *fn = "exwiw_export_to_dir";
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	SinkFile	sf;
	bool		overwrite;
	char	   *dir;
	ExwiwSqlFormat format;
	SubsetPlan *plan;
	SubsetRun  *run;
	MemoryContext cxt;
	MemoryContext old;
	ErrorContextCallback errcb;
	const char *suffix;
	ExwiwQuery	part = {0};
	bool		deletes;
	int			i;

	dir = sink_args(fcinfo, fn, "dir", 7, 8, &sf, &overwrite);
	exwiw_part_args(fcinfo, 10, fn, &part);
	InitMaterializedSRF(fcinfo, 0);

	cxt = AllocSetContextCreate(CurrentMemoryContext, "exwiw_export_to_dir",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	suffix = exwiw_compress_suffix(&sf.spec);

	/* what exists at dir is checked before the (costly) preparation */
	sf.out = exwiw_output_begin(dir, true, overwrite);
	errcb.callback = sink_error_context;
	errcb.arg = &sf;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;
	run = subset_export_prepare(fn, fcinfo, 1, 9, 12, 13, part.parts, cxt,
								&format, &deletes, &plan);

	/* the insert files in load order, then their delete files, last first */
	for (i = 0; i < (deletes ? 2 * plan->nfiles : plan->nfiles); i++)
	{
		MemoryContext filecxt;
		ExwiwStream *stream;
		char	   *name;
		uint64		rows;
		const uint64 *statements = NULL;
		bool		deleting = i >= plan->nfiles;
		int			file = deleting ? 2 * plan->nfiles - 1 - i : i;

		CHECK_FOR_INTERRUPTS();
		if (!plan->files[file].has_rows ||
			(deleting && !subset_delete_wanted(plan, file)))
			continue;
		filecxt = AllocSetContextCreate(cxt, "exwiw_export_to_dir file",
										ALLOCSET_DEFAULT_SIZES);
		MemoryContextSwitchTo(filecxt);
		if (deleting)
		{
			name = psprintf("%s%s", plan->files[file].delete_name, suffix);
			stream = subset_delete_open_file(plan, run, file, true, filecxt,
											 &statements);
		}
		else
		{
			name = psprintf("%s%s", part.parts > 0 ?
							exwiw_part_file_name(plan->files[file].file_name, part.part) :
							plan->files[file].file_name, suffix);
			stream = subset_export_open_file(plan, run, file, format, true,
											 part.part, part.parts, filecxt);
		}
		if (sink_drain(&sf, stream, name))
		{
			Datum		values[3];
			bool		nulls[3] = {false, false, false};
			uint64		bytes;

			/* a delete file's rows are its statements */
			rows = deleting ? *statements : exwiw_stream_rows(stream);
			exwiw_stream_close(stream);
			bytes = sink_end_file(&sf);
			values[0] = CStringGetTextDatum(name);
			values[1] = Int64GetDatum((int64) rows);
			values[2] = Int64GetDatum((int64) bytes);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
		else
			exwiw_stream_close(stream);
		MemoryContextSwitchTo(cxt);
		MemoryContextDelete(filecxt);
	}
	subset_run_release(run);
	exwiw_output_commit(sf.out);
	sf.out = NULL;

	error_context_stack = errcb.previous;
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	return (Datum) 0;
}

/*
 * exwiw_remove_export
 *		SQL entry point: remove the directory of an export (it must hold
 *		nothing but files named insert-*), for keeping the last N exports.
 *		Returns the number of files removed.
 */
Datum
exwiw_remove_export(PG_FUNCTION_ARGS)
{
	const char *fn = "exwiw_remove_export";
	char	   *dir;

	exwiw_sink_check_privilege(fn);
	exwiw_require_arg(fcinfo, 0, fn, "dir");
	dir = exwiw_sink_check_path(text_to_cstring(PG_GETARG_TEXT_PP(0)), "dir");
	PG_RETURN_INT32(exwiw_remove_export_dir(dir));
}
