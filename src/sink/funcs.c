/*-------------------------------------------------------------------------
 *
 * sink/funcs.c
 *	  The SQL functions of the server-side file sinks, thin: each decodes
 *	  its arguments and calls the sink's engine (sink/write.c), which
 *	  drains a stream (see exwiw.h) into files on the database server.
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
#include "subset/subset.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(exwiw_dump_to_file);
PG_FUNCTION_INFO_V1(exwiw_dump_jsonl_to_file);
PG_FUNCTION_INFO_V1(exwiw_export_to_dir);
PG_FUNCTION_INFO_V1(exwiw_remove_export);

/*
 * sink_args
 *		The arguments every sink takes: the path (checked) and, at the
 *		given positions, compress and overwrite.  Checks the caller's
 *		privilege first, so that a role without it learns that before
 *		anything else.
 */
static char *
sink_args(FunctionCallInfo fcinfo, const char *fn, const char *pathname,
		  int compress_arg, int overwrite_arg, ExwiwCompressSpec *spec,
		  bool *overwrite)
{
	exwiw_sink_check_privilege(fn);
	exwiw_require_arg(fcinfo, 0, fn, pathname);
	memset(spec, 0, sizeof(*spec));
	if (compress_arg >= 0)
	{
		exwiw_require_arg(fcinfo, compress_arg, fn, "compress");
		exwiw_parse_compress(text_to_cstring(PG_GETARG_TEXT_PP(compress_arg)),
							 spec);
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
file_result(FunctionCallInfo fcinfo, const ExwiwSinkResult *res)
{
	TupleDesc	desc;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	desc = BlessTupleDesc(desc);
	values[0] = CStringGetTextDatum(res->file_name);
	values[1] = Int64GetDatum((int64) res->rows);
	values[2] = Int64GetDatum((int64) res->bytes);
	return HeapTupleGetDatum(heap_form_tuple(desc, values, nulls));
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
	ExwiwCompressSpec spec;
	ExwiwSinkResult res;
	bool		overwrite;
	char	   *path;
	ExwiwSqlWriterOptions opts = {0};
	ExwiwQuery	q = {0};

	path = sink_args(fcinfo, fn, "path", 5, 6, &spec, &overwrite);
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
	exwiw_sink_write_file(fn, &spec, path, overwrite, &q,
						  exwiw_sql_writer_create(&opts), &res);
	PG_RETURN_DATUM(file_result(fcinfo, &res));
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
	ExwiwCompressSpec spec;
	ExwiwSinkResult res;
	bool		overwrite;
	char	   *path;
	ExwiwQuery	q = {0};
	ExwiwWriter *writer;

	path = sink_args(fcinfo, fn, "path", 4, 5, &spec, &overwrite);
	exwiw_require_arg(fcinfo, 1, fn, "query");
	exwiw_require_arg(fcinfo, 3, fn, "omit_nulls");
	writer = exwiw_jsonl_writer_create(fn, PG_ARGISNULL(2) ? NULL :
									   PG_GETARG_ARRAYTYPE_P(2),
									   PG_GETARG_BOOL(3));
	q.sql = text_to_cstring(PG_GETARG_TEXT_PP(1));
	q.context = "exwiw_dump_jsonl_to_file, reading the query";
	exwiw_part_args(fcinfo, 6, fn, &q);
	exwiw_sink_write_file(fn, &spec, path, overwrite, &q, writer, &res);
	PG_RETURN_DATUM(file_result(fcinfo, &res));
}

/*
 * exwiw_export_to_dir
 *		SQL entry point, see the file header: the files of exwiw_export,
 *		byte for byte, in a directory that appears when it is complete
 *		(sink/write.c).
 */
Datum
exwiw_export_to_dir(PG_FUNCTION_ARGS)
{
	const char *fn = "exwiw_export_to_dir";
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ExwiwCompressSpec spec;
	bool		overwrite;
	char	   *dir;
	SubsetArgs	a;
	int			wm;

	dir = sink_args(fcinfo, fn, "dir", 7, 8, &spec, &overwrite);
	subset_args_export(fcinfo, fn, 1, 9, 12, 13, 10, &a);
	InitMaterializedSRF(fcinfo, 0);
	wm = exwiw_pin_work_mem();	/* exwiw.work_mem */
	exwiw_sink_export_dir(&a, &spec, dir, overwrite, rsinfo->setResult,
						  rsinfo->setDesc);
	if (wm >= 0)
		exwiw_restore_settings(wm);
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
