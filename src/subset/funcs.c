/*-------------------------------------------------------------------------
 *
 * subset/funcs.c
 *	  The SQL-callable functions of the subset engine, thin: each decodes
 *	  its arguments into a SubsetArgs (subset.h), calls the engine and
 *	  turns what it returns into rows.  Nothing below this file sees a
 *	  FunctionCallInfo.
 *
 *	  exwiw_config_from_catalog(schema name DEFAULT current_schema())
 *		RETURNS jsonb							(catalog/read.c)
 *	  exwiw_plan(target_table text, ids text[], config jsonb DEFAULT NULL,
 *				 ids_by_space jsonb DEFAULT NULL)
 *		RETURNS TABLE(step int, seq int, table_name text, name text,
 *					  rule text, query text)		(plan/build.c)
 *	  exwiw_explain(target_table text, ids text[], config jsonb DEFAULT NULL,
 *					actual boolean DEFAULT false,
 *					ids_by_space jsonb DEFAULT NULL,
 *					count_rows boolean DEFAULT false)
 *		RETURNS TABLE(seq int, table_name text, file_name text,
 *					  estimated_rows float8, indexes text[], plan text,
 *					  actual_rows float8)
 *												(subset/explain.c)
 *	  exwiw_export(target_table, ids, config, format, allow_undecided,
 *				   files, ids_by_space, part, parts, allow_missing_ids,
 *				   split_rows, deletes)
 *		RETURNS TABLE(file_name text, chunk text)	(run/export.c)
 *	  exwiw_mask_preview(config jsonb, table_name text, nrows int)
 *		RETURNS TABLE(row_number int, column_name text, original text,
 *					  masked text)				(subset/preview.c)
 *
 * exwiw--1.1.sql has the full declarations and their defaults.  The
 * arguments after format came with 1.1: a call through 1.0's declaration
 * (before ALTER EXTENSION exwiw UPDATE) does not have them, and they take
 * their defaults.  The directory sink (sink/funcs.c) takes
 * exwiw_export's arguments after its own first, and decodes them with
 * subset_args_export.
 *
 *-------------------------------------------------------------------------
 */
#include "subset/subset.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(exwiw_config_from_catalog);
PG_FUNCTION_INFO_V1(exwiw_plan);
PG_FUNCTION_INFO_V1(exwiw_explain);
PG_FUNCTION_INFO_V1(exwiw_export);
PG_FUNCTION_INFO_V1(exwiw_mask_preview);

/*
 * args_common
 *		The arguments every subset function has: target_table at argoff
 *		(NULL: scope-column mode), ids after it (required), config after
 *		that (NULL: the catalog's), and ids_by_space at ids_by_space_arg
 *		when the call has it.
 */
static void
args_common(FunctionCallInfo fcinfo, const char *fn, int argoff,
			int ids_by_space_arg, SubsetArgs *a)
{
	memset(a, 0, sizeof(*a));
	a->fn = fn;
	exwiw_refuse_pushed_down(fn);
	exwiw_require_arg(fcinfo, argoff + 1, fn, "ids");
	if (!PG_ARGISNULL(argoff))
		a->target = text_to_cstring(PG_GETARG_TEXT_PP(argoff));
	a->ids = PG_GETARG_ARRAYTYPE_P(argoff + 1);
	if (!PG_ARGISNULL(argoff + 2))
		a->config = PG_GETARG_JSONB_P(argoff + 2);
	if (EXWIW_HAS_ARG(fcinfo, ids_by_space_arg) && !PG_ARGISNULL(ids_by_space_arg))
		a->ids_by_space = PG_GETARG_JSONB_P(ids_by_space_arg);
}

/*
 * optional_bool
 *		Boolean argument argno, required when the call has it; dflt when it
 *		does not (a call through an older declaration).
 */
static bool
optional_bool(FunctionCallInfo fcinfo, int argno, const char *fn,
			  const char *argname, bool dflt)
{
	if (!EXWIW_HAS_ARG(fcinfo, argno))
		return dflt;
	exwiw_require_arg(fcinfo, argno, fn, argname);
	return PG_GETARG_BOOL(argno);
}

/*
 * files_arg
 *		files => int4[] at argno into a->files: NULL (or absent) for every
 *		file; NULL elements are refused.
 */
static void
files_arg(FunctionCallInfo fcinfo, int argno, SubsetArgs *a)
{
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	int			i;

	if (!EXWIW_HAS_ARG(fcinfo, argno) || PG_ARGISNULL(argno))
		return;
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(argno), INT4OID, sizeof(int32),
					  true, TYPALIGN_INT, &elems, &nulls, &n);
	a->files = palloc(sizeof(int32) * Max(n, 1));
	for (i = 0; i < n; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("files must not contain NULL"),
					 errhint("exwiw_plan() lists the file numbers (column seq).")));
		a->files[i] = DatumGetInt32(elems[i]);
	}
	a->nfiles = n;
}

/*
 * subset_args_export
 *		Decode exwiw_export's arguments, as they follow argoff in the call
 *		(target_table, ids, config, format, allow_undecided, files), with
 *		ids_by_space, allow_missing_ids, deletes and part (part, parts) at
 *		the positions given, into *a.  Shared with the directory sink.
 */
void
subset_args_export(FunctionCallInfo fcinfo, const char *fn, int argoff,
				   int ids_by_space_arg, int allow_missing_arg,
				   int deletes_arg, int part_arg, SubsetArgs *a)
{
	ExwiwQuery	part = {0};

	exwiw_part_args(fcinfo, part_arg, fn, &part);
	args_common(fcinfo, fn, argoff, ids_by_space_arg, a);
	a->part = part.part;
	a->parts = part.parts;
	exwiw_require_arg(fcinfo, argoff + 3, fn, "format");
	a->allow_undecided = optional_bool(fcinfo, argoff + 4, fn,
									   "allow_undecided", false);
	a->format = exwiw_parse_sql_format(text_to_cstring(PG_GETARG_TEXT_PP(argoff + 3)),
									   true);
	files_arg(fcinfo, argoff + 5, a);
	a->allow_missing_ids = optional_bool(fcinfo, allow_missing_arg, fn,
										 "allow_missing_ids", false);
	a->deletes = optional_bool(fcinfo, deletes_arg, fn, "deletes", false);
}

/*
 * exwiw_config_from_catalog
 *		SQL entry point: the config the catalog implies for a schema.
 */
Datum
exwiw_config_from_catalog(PG_FUNCTION_ARGS)
{
	char	   *schema;
	Oid			nspid;

	exwiw_refuse_pushed_down("exwiw_config_from_catalog");
	exwiw_require_arg(fcinfo, 0, "exwiw_config_from_catalog", "schema");
	schema = NameStr(*PG_GETARG_NAME(0));
	nspid = get_namespace_oid(schema, true);
	if (!OidIsValid(nspid))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_SCHEMA_NAME),
				 errmsg("schema \"%s\" does not exist", schema)));
	PG_RETURN_JSONB_P(subset_catalog_config(nspid, true));
}

/*
 * exwiw_plan
 *		SQL entry point: one row per step of the plan, the row sets in the
 *		order they are computed, then the files.
 */
Datum
exwiw_plan(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	SubsetArgs	a;
	SubsetPlan *plan;
	int			step = 0;
	int			i;

	args_common(fcinfo, "exwiw_plan", 0, 3, &a);
	InitMaterializedSRF(fcinfo, 0);
	plan = subset_plan_from_args(&a, false);

	for (i = 0; i < plan->nsets; i++)
	{
		SubsetSet  *s = &plan->sets[i];
		Datum		values[6];
		bool		nulls[6] = {false, true, false, false, false, false};

		values[0] = Int32GetDatum(++step);
		values[1] = Int32GetDatum(0);
		values[2] = CStringGetTextDatum(plan->cfg->tables[s->table].name);
		values[3] = CStringGetTextDatum(s->name);
		values[4] = CStringGetTextDatum(s->rule);
		values[5] = CStringGetTextDatum(s->query);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	for (i = 0; i < plan->nfiles; i++)
	{
		SubsetFile *f = &plan->files[i];
		Datum		values[6];
		bool		nulls[6] = {false, false, false, false, false, false};

		values[0] = Int32GetDatum(++step);
		values[1] = Int32GetDatum(f->seq);
		values[2] = CStringGetTextDatum(plan->cfg->tables[f->table].name);
		values[3] = CStringGetTextDatum(f->file_name);
		values[4] = CStringGetTextDatum(f->rule);
		values[5] = CStringGetTextDatum(f->query);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * exwiw_explain
 *		SQL entry point: the EXPLAIN of every file's query, on the export's
 *		row sets (subset/explain.c).
 */
Datum
exwiw_explain(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	SubsetArgs	a;
	int			wm;

	args_common(fcinfo, "exwiw_explain", 0, 4, &a);
	exwiw_require_arg(fcinfo, 3, a.fn, "actual");
	a.actual = PG_GETARG_BOOL(3);
	if (PG_NARGS() > 5)
	{
		exwiw_require_arg(fcinfo, 5, a.fn, "count_rows");
		a.count_rows = PG_GETARG_BOOL(5);
	}
	InitMaterializedSRF(fcinfo, 0);
	/* the plans the export would run, with its work_mem */
	wm = exwiw_pin_work_mem();
	subset_explain(&a, rsinfo->setResult, rsinfo->setDesc);
	if (wm >= 0)
		exwiw_restore_settings(wm);
	return (Datum) 0;
}

/*
 * export_shutdown
 *		ExprContext callback: the consumer is done with us (LIMIT, cancel,
 *		error, or the last row): close what is open.
 */
static void
export_shutdown(Datum arg)
{
	subset_export_end((SubsetExport *) DatumGetPointer(arg));
}

/*
 * exwiw_export
 *		SQL entry point, value per call: (file_name, chunk) rows, every
 *		file of the export in processing order (run/export.c).
 */
Datum
exwiw_export(PG_FUNCTION_ARGS)
{
	const char *fn = "exwiw_export";
	FuncCallContext *funcctx;
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	SubsetExport *ex;
	text	   *file_name;
	text	   *chunk;
	int			wm = exwiw_pin_work_mem();	/* for this call (exwiw.work_mem) */

	if (SRF_IS_FIRSTCALL())
	{
		MemoryContext old;
		TupleDesc	desc;
		SubsetArgs	a;

		exwiw_check_srf_context(fcinfo, fn);
		funcctx = SRF_FIRSTCALL_INIT();
		old = MemoryContextSwitchTo(funcctx->multi_call_memory_ctx);
		if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
			elog(ERROR, "return type must be a row type");
		funcctx->tuple_desc = BlessTupleDesc(CreateTupleDescCopy(desc));

		subset_args_export(fcinfo, fn, 0, 6, 9, 11, 7, &a);
		if (EXWIW_HAS_ARG(fcinfo, 10) && !PG_ARGISNULL(10))
		{
			a.split_rows = PG_GETARG_INT32(10);
			if (a.split_rows < 1)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("split_rows must be positive, not " INT64_FORMAT,
								a.split_rows)));
			if (a.parts > 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s takes split_rows or part and parts, not both", fn)));
		}
		ex = subset_export_begin(&a, funcctx->multi_call_memory_ctx);
		funcctx->user_fctx = ex;
		RegisterExprContextCallback(rsinfo->econtext, export_shutdown,
									PointerGetDatum(ex));
		MemoryContextSwitchTo(old);
	}

	funcctx = SRF_PERCALL_SETUP();
	ex = (SubsetExport *) funcctx->user_fctx;
	if (subset_export_next(ex, &file_name, &chunk))
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};

		values[0] = PointerGetDatum(file_name);
		values[1] = PointerGetDatum(chunk);
		if (wm >= 0)
			exwiw_restore_settings(wm);
		SRF_RETURN_NEXT(funcctx,
						HeapTupleGetDatum(heap_form_tuple(funcctx->tuple_desc,
														  values, nulls)));
	}

	/* our memory goes away with the SRF's: drop the callback */
	subset_export_end(ex);
	UnregisterExprContextCallback(rsinfo->econtext, export_shutdown,
								  PointerGetDatum(ex));
	if (wm >= 0)
		exwiw_restore_settings(wm);
	SRF_RETURN_DONE(funcctx);
}

/*
 * exwiw_mask_preview
 *		SQL entry point: a table's masked columns, original beside masked
 *		(subset/preview.c).  Only a role with the privileges of
 *		pg_read_all_data (superusers have them) may call it: it shows
 *		original values, and the pseudonyms of them, side by side.
 */
Datum
exwiw_mask_preview(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *name;
	int32		nrows;

	if (!has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_DATA))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to preview masks"),
				 errdetail("Only roles with the privileges of pg_read_all_data may see original values beside masked ones.")));
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("table_name must not be null")));
	name = text_to_cstring(PG_GETARG_TEXT_PP(1));
	nrows = PG_ARGISNULL(2) ? 10 : PG_GETARG_INT32(2);
	if (nrows < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("nrows must not be negative")));
	InitMaterializedSRF(fcinfo, 0);
	subset_mask_preview(PG_ARGISNULL(0) ? NULL : PG_GETARG_JSONB_P(0), name,
						nrows, rsinfo->setResult, rsinfo->setDesc);
	return (Datum) 0;
}
