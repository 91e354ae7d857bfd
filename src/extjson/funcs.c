/*-------------------------------------------------------------------------
 *
 * extjson/funcs.c
 *	  The SQL functions of Extended JSON: one value as one compact Relaxed
 *	  Extended JSON document, and a query's rows as JSON Lines.
 *
 *	  exwiw_ext_json(jsonb) RETURNS text
 *	  exwiw_ext_json(json) RETURNS text
 *	  exwiw_ext_json(record, oid_columns text[] DEFAULT NULL,
 *					 omit_nulls boolean DEFAULT false) RETURNS text
 *	  exwiw_dump_jsonl(query text, oid_columns text[] DEFAULT NULL,
 *					   omit_nulls boolean DEFAULT false,
 *					   chunk_bytes integer DEFAULT 262144,
 *					   part integer DEFAULT NULL, parts integer DEFAULT NULL)
 *		RETURNS SETOF text
 *
 * exwiw_dump_jsonl is exwiw_dump's twin (dump/funcs.c says how the
 * value-per-call stream behaves: one chunk per call in a target list, the
 * cursor closed by a shutdown callback).  Each call names the function in
 * the context of its errors.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"

#include "access/htup_details.h"
#include "common/extjson/extjson.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/typcache.h"

PG_FUNCTION_INFO_V1(exwiw_ext_json_jsonb);
PG_FUNCTION_INFO_V1(exwiw_ext_json_json);
PG_FUNCTION_INFO_V1(exwiw_ext_json_row);
PG_FUNCTION_INFO_V1(exwiw_dump_jsonl);

/* exwiw_extjson_append_jsonb or exwiw_extjson_append_json */
typedef bool (*ExjDocAppender) (StringInfo buf, Datum doc, const char *root_path,
								ExjError *err);

/*
 * ext_json_doc
 *		exwiw_ext_json of argument 0, a document that append writes;
 *		valid UTF-8 (checked in a SQL_ASCII database).
 */
static Datum
ext_json_doc(FunctionCallInfo fcinfo, ExjDocAppender append)
{
	StringInfoData buf;
	ExjError	err;
	ErrorContextCallback cb;

	memset(&err, 0, sizeof(err));
	initStringInfo(&buf);
	exwiw_push_fn_context(&cb, "exwiw_ext_json");
	if (!append(&buf, PG_GETARG_DATUM(0), "$", &err))
		exwiw_extjson_raise("exwiw_ext_json", &err, NULL, NULL);
	if (exwiw_extjson_must_check_utf8())
		exwiw_extjson_check_utf8(buf.data, buf.len, NULL);
	exwiw_pop_fn_context(&cb);
	PG_RETURN_TEXT_P(cstring_to_text_with_len(buf.data, buf.len));
}

/*
 * exwiw_ext_json_jsonb
 *		SQL entry point: exwiw_ext_json(jsonb) RETURNS text.
 */
Datum
exwiw_ext_json_jsonb(PG_FUNCTION_ARGS)
{
	return ext_json_doc(fcinfo, exwiw_extjson_append_jsonb);
}

/*
 * exwiw_ext_json_json
 *		SQL entry point: exwiw_ext_json(json) RETURNS text.
 */
Datum
exwiw_ext_json_json(PG_FUNCTION_ARGS)
{
	return ext_json_doc(fcinfo, exwiw_extjson_append_json);
}

/*
 * exwiw_ext_json_row
 *		SQL entry point: exwiw_ext_json(record, text[], boolean).  Types
 *		without a BSON counterpart are written with their output function
 *		under the same pinned settings as exwiw_dump_jsonl (settings.c).
 */
Datum
exwiw_ext_json_row(PG_FUNCTION_ARGS)
{
	const char *fn = "exwiw_ext_json";
	HeapTupleHeader th;
	Oid			typid;
	int32		typmod;
	TupleDesc	desc;
	Datum	   *values;
	bool	   *nulls;
	ExjRowWriter *rw;
	StringInfoData buf;
	Oid			argtype = get_fn_expr_argtype(fcinfo->flinfo, 0);
	MemoryContext cxt;
	int			nestlevel;
	ErrorContextCallback cb;

	if (!OidIsValid(argtype) || !type_is_rowtype(argtype))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("argument of %s must be a row, not type %s", fn,
						OidIsValid(argtype) ? format_type_be(argtype) : "unknown"),
				 errhint("Pass a table row (exwiw_ext_json(t) FROM t t), a ROW(...) value, or a json or jsonb value.")));
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();

	exwiw_push_fn_context(&cb, fn);
	th = PG_GETARG_HEAPTUPLEHEADER(0);
	typid = HeapTupleHeaderGetTypeId(th);
	typmod = HeapTupleHeaderGetTypMod(th);

	/* a fresh writer per call: oid_columns may differ between calls */
	cxt = AllocSetContextCreate(CurrentMemoryContext, "exwiw_ext_json row",
								ALLOCSET_SMALL_SIZES);
	desc = lookup_rowtype_tupdesc_copy(typid, typmod);
	rw = exwiw_extjson_row_writer(fn, desc,
								  PG_ARGISNULL(1) ? NULL : PG_GETARG_ARRAYTYPE_P(1),
								  !PG_ARGISNULL(2) && PG_GETARG_BOOL(2), cxt);

	exwiw_extjson_deform_record(th, desc, &values, &nulls);

	initStringInfo(&buf);
	nestlevel = exwiw_pin_output_settings();
	exwiw_extjson_append_row(rw, &buf, values, nulls);
	exwiw_restore_settings(nestlevel);
	exwiw_pop_fn_context(&cb);
	MemoryContextDelete(cxt);
	PG_RETURN_TEXT_P(cstring_to_text_with_len(buf.data, buf.len));
}

/*
 * exwiw_dump_jsonl
 *		SQL entry point: any query as JSON Lines of Relaxed Extended JSON,
 *		in text chunks, by the JSON Lines writer (extjson/lines.c) on the
 *		streaming engine, as exwiw_dump (dump/funcs.c) is.
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
			exwiw_part_args(fcinfo, 4, fn, &q);
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
