/*-------------------------------------------------------------------------
 *
 * exwiw.c
 *	  Module entry: the magic block, the settings, and argument checks
 *	  shared by the SQL-callable functions.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"
#include "mask/mask.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/pg_extension.h"
#include "commands/extension.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"

PG_MODULE_MAGIC;

/* exwiw.sets_as_ctes: see _PG_init */
bool		exwiw_sets_as_ctes = false;
int			exwiw_io_concurrency = 16;
int			exwiw_work_mem = 4096;
char	   *exwiw_rails_env = NULL;

void		_PG_init(void);

/*
 * _PG_init
 *		Define exwiw's settings.
 *
 * exwiw.sets_as_ctes: a subset export's row sets are carried by each query
 * as CTEs, instead of being computed once as ephemeral relations.  That is
 * what exwiw does where Citus is installed (its planner knows no ephemeral
 * relation); the setting lets the tests run the same way anywhere.
 *
 * exwiw.io_concurrency: when > 0 (the default, 16), a subset export reads
 * ahead the leaf and heap pages of its queries' index probes of a row
 * set's keys (exwiw_prefetch_plan, prefetch.c), and plans and starts its
 * queries with effective_io_concurrency at this value, which bitmap heap
 * scans prefetch by (exwiw_pin_io_settings).  0: neither; the server's
 * settings.
 *
 * exwiw.work_mem: while a subset export's entry points run, work_mem is at
 * most this (kB; default 4MB, PostgreSQL's own default; 0: the session's),
 * so that the export's backend memory is bounded by design, not by the
 * server's work_mem (exwiw_pin_work_mem).
 *
 * exwiw.rails_env: the value a subset export writes for the row "environment"
 * of Rails's ar_internal_metadata (type rails_managed_internal_metadata),
 * "development" by default, so that the development database does not say
 * it is production; '' writes the source's value.
 */
void
_PG_init(void)
{
	DefineCustomBoolVariable("exwiw.sets_as_ctes",
							 "Carry a subset export's row sets in each query as CTEs.",
							 "What exwiw does where Citus is installed; for tests.",
							 &exwiw_sets_as_ctes,
							 false,
							 PGC_USERSET,
							 GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("exwiw.io_concurrency",
							"Reads ahead a subset export's index probes, and sets effective_io_concurrency for its queries; 0: neither.",
							"A cold tenant's scattered index and heap pages are then read many at a time instead of one by one.",
							&exwiw_io_concurrency,
							16, 0, 1000,
							PGC_USERSET,
							GUC_NOT_IN_SAMPLE,
							NULL, NULL, NULL);

	DefineCustomIntVariable("exwiw.work_mem",
							"Caps work_mem while a subset export runs; 0: the session's work_mem.",
							"Hash joins and sorts of the export's queries then spill to disk instead of holding the whole of a big table in the backend.",
							&exwiw_work_mem,
							4096, 0, MAX_KILOBYTES,
							PGC_USERSET,
							GUC_UNIT_KB | GUC_NOT_IN_SAMPLE,
							NULL, NULL, NULL);

	DefineCustomStringVariable("exwiw.rails_env",
							   "The environment a subset export writes into Rails's ar_internal_metadata.",
							   "Rails refuses db:reset and friends in a database whose ar_internal_metadata says production; an empty value keeps the source's.",
							   &exwiw_rails_env,
							   "development",
							   PGC_USERSET,
							   GUC_NOT_IN_SAMPLE,
							   NULL, NULL, NULL);

	mask_define_settings();
	MarkGUCPrefixReserved("exwiw");
}

/*
 * exwiw_refuse_pushed_down
 *		Error out in a connection Citus opened to run part of a distributed
 *		query on a worker (its application_name starts with
 *		"citus_internal"), for the functions that read the catalog (the
 *		subset export's): pushed down with a shard query, they would read
 *		the worker's catalog, where the shards are tables and the caller's
 *		search_path is not in force.  The dumps of a given query are left
 *		to Citus, which refuses a nested distributed query itself unless
 *		the role allows it.
 */
void
exwiw_refuse_pushed_down(const char *funcname)
{
	const char *app = GetConfigOption("application_name", true, false);

	if (app != NULL && strncmp(app, "citus_internal", 14) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s cannot run inside a query that Citus runs on a worker", funcname),
				 errdetail("Citus pushed the call down with a query on a shard; there it would read the worker's shards and catalog, not the distributed tables."),
				 errhint("Call %s at the top level of a statement on the coordinator, not per row of a distributed table or inside a query Citus sends to a worker.",
						 funcname)));
}

/*
 * fn_context
 *		Error context callback: the name of the SQL function.
 */
static void
fn_context(void *arg)
{
	errcontext("%s", (const char *) arg);
}

/*
 * exwiw_push_fn_context
 *		Name funcname in the context of every error until
 *		exwiw_pop_fn_context(cb); cb lives on the caller's stack.
 */
void
exwiw_push_fn_context(ErrorContextCallback *cb, const char *funcname)
{
	cb->callback = fn_context;
	cb->arg = (void *) funcname;
	cb->previous = error_context_stack;
	error_context_stack = cb;
}

void
exwiw_pop_fn_context(ErrorContextCallback *cb)
{
	Assert(error_context_stack == cb);
	error_context_stack = cb->previous;
}

/*
 * exwiw_require_arg
 *		Error out when argument argno is NULL.
 *
 * Our functions are not STRICT on purpose: a NULL argument is almost always
 * a mistake (a NULL from a subquery, say) and deserves an error, not an
 * empty result that looks like an empty table.
 */
void
exwiw_require_arg(FunctionCallInfo fcinfo, int argno, const char *funcname,
				  const char *argname)
{
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("argument \"%s\" of %s must not be NULL", argname, funcname),
				 errhint("Pass a value, or leave the argument out to use its default.")));
}

/*
 * exwiw_chunk_bytes_arg
 *		Read and range-check a chunk_bytes argument.
 */
int
exwiw_chunk_bytes_arg(FunctionCallInfo fcinfo, int argno, const char *funcname)
{
	int32		chunk_bytes;

	exwiw_require_arg(fcinfo, argno, funcname, "chunk_bytes");
	chunk_bytes = PG_GETARG_INT32(argno);
	if (chunk_bytes < EXWIW_MIN_CHUNK_BYTES || chunk_bytes > EXWIW_MAX_CHUNK_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("chunk_bytes must be between %d and %d, not %d",
						EXWIW_MIN_CHUNK_BYTES, EXWIW_MAX_CHUNK_BYTES,
						chunk_bytes),
				 errdetail("A chunk holds whole rows and closes once it reaches chunk_bytes, so it never exceeds chunk_bytes plus one row."),
				 errhint("The default, %d, suits psql and file exports.",
						 EXWIW_DEFAULT_CHUNK_BYTES)));
	return chunk_bytes;
}

/*
 * exwiw_part_args
 *		Read and check the part and parts arguments at argno and argno + 1
 *		into q: both NULL (or absent: the 1.1 declarations before parts
 *		existed) for the whole output, else 1 <= part <= parts.
 */
void
exwiw_part_args(FunctionCallInfo fcinfo, int argno, const char *funcname,
				ExwiwQuery *q)
{
	bool		has_part = EXWIW_HAS_ARG(fcinfo, argno) && !PG_ARGISNULL(argno);
	bool		has_parts = EXWIW_HAS_ARG(fcinfo, argno + 1) && !PG_ARGISNULL(argno + 1);
	int			part;
	int			parts;

	q->part = 0;
	q->parts = 0;
	if (!has_part && !has_parts)
		return;
	if (has_part != has_parts)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s needs both part and parts, or neither", funcname),
				 errhint("Pass part => k, parts => n for the k-th of n parts of the output.")));
	part = PG_GETARG_INT32(argno);
	parts = PG_GETARG_INT32(argno + 1);
	if (parts < 1 || part < 1 || part > parts)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("part %d of %d parts is out of range", part, parts),
				 errhint("parts must be positive, and part between 1 and parts.")));
	q->part = part;
	q->parts = parts;
}

/*
 * exwiw_rows_per_statement_arg
 *		Read and check a rows_per_statement argument: NULL (one statement,
 *		returned as 0) or positive, and only for the INSERT format.
 */
int64
exwiw_rows_per_statement_arg(FunctionCallInfo fcinfo, int argno,
							 ExwiwSqlFormat format)
{
	int64		rows_per_statement;

	if (PG_ARGISNULL(argno))
		return 0;
	rows_per_statement = PG_GETARG_INT32(argno);
	if (rows_per_statement <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("rows_per_statement must be positive, not " INT64_FORMAT,
						rows_per_statement),
				 errhint("Pass NULL (the default) for a single statement.")));
	if (format != EXWIW_FORMAT_INSERT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("rows_per_statement applies only to format \"insert\""),
				 errdetail("A COPY block has no statements to split."),
				 errhint("Leave rows_per_statement NULL with format \"copy\".")));
	return rows_per_statement;
}
