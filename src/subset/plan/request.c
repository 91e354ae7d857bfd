/*-------------------------------------------------------------------------
 *
 * plan/request.c
 *	  The ids of a subset export, decoded from the SQL arguments into the
 *	  planner's request (SubsetRequest, subset.h), so that no ArrayType
 *	  or Jsonb reaches the planner: the entry points (exwiw_plan,
 *	  exwiw_explain, exwiw_export and the sinks) decode, the planner reads
 *	  C strings.
 *
 * ids is a text[]: one-dimensional for a key of one column, two-dimensional
 * (one row of values per id) for a key of several; the planner checks the
 * shape against the columns the ids are for, and each value against the
 * column's type.  ids_by_space is a JSON object of id space name to a JSON
 * array of strings or numbers, each number in its canonical text
 * (numeric_out), as the client writes them.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"
#include "subset/subset.h"

#include "catalog/pg_type_d.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"

/*
 * ids_from_array
 *		Decode ids (text[], not NULL) into *out: its dimensions as given
 *		and its values as C strings, NULL for a NULL element.
 */
static void
ids_from_array(ArrayType *ids, SubsetIds *out)
{
	Datum	   *elems;
	bool	   *nulls;
	int			nelems;
	int			i;

	deconstruct_array(ids, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls,
					  &nelems);
	out->ndims = nelems == 0 ? 0 : ARR_NDIM(ids);
	out->nvalues = nelems;
	out->dims[0] = out->ndims >= 1 ? ARR_DIMS(ids)[0] : 0;
	out->dims[1] = out->ndims >= 2 ? ARR_DIMS(ids)[1] : 0;
	out->values = palloc(sizeof(char *) * Max(nelems, 1));
	for (i = 0; i < nelems; i++)
		out->values[i] = nulls[i] ? NULL : TextDatumGetCString(elems[i]);
}

/*
 * space_values
 *		The values of id space `name`'s JSON value v into *out, as a
 *		one-dimensional list.
 */
static void
space_values(const char *name, JsonbValue *v, SubsetIds *out)
{
	JsonbIterator *it;
	JsonbValue	e;
	JsonbIteratorToken tok;
	int			n = 0;

	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ids of id space \"%s\" must be a JSON array", name)));
	out->values = palloc(sizeof(char *) *
						 Max(JsonContainerSize(v->val.binary.data), 1));
	it = JsonbIteratorInit(v->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		if (tok != WJB_ELEM)
			continue;
		if (e.type == jbvString)
			out->values[n++] = pnstrdup(e.val.string.val, e.val.string.len);
		else if (e.type == jbvNumeric)
			out->values[n++] = DatumGetCString(DirectFunctionCall1(numeric_out,
																   NumericGetDatum(e.val.numeric)));
		else
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("ids of id space \"%s\" must be strings or numbers", name)));
	}
	out->nvalues = n;
	out->ndims = n == 0 ? 0 : 1;
	out->dims[0] = n;
	out->dims[1] = 0;
}

/*
 * request_error_context
 *		Error context while decoding ids_by_space: "<function>, argument
 *		ids_by_space".
 */
static void
request_error_context(void *arg)
{
	errcontext("%s, argument ids_by_space", (const char *) arg);
}

/*
 * subset_request_init
 *		Fill req for planning the export of target's rows (NULL: scope-column
 *		mode) with keys ids (text[], not NULL) and, when ids_by_space is not
 *		NULL, the ids of the named id spaces, under config cfg, for SQL
 *		function funcname.
 */
void
subset_request_init(SubsetRequest *req, const char *funcname,
					SubsetConfig *cfg, const char *target, ArrayType *ids,
					Jsonb *ids_by_space)
{
	memset(req, 0, sizeof(SubsetRequest));
	req->funcname = funcname;
	req->cfg = cfg;
	req->target = target;
	ids_from_array(ids, &req->ids);
	if (ids_by_space != NULL)
	{
		JsonbIterator *it = JsonbIteratorInit(&ids_by_space->root);
		JsonbValue	v;
		JsonbIteratorToken tok;
		char	   *name = NULL;
		ErrorContextCallback errcb;

		errcb.callback = request_error_context;
		errcb.arg = unconstify(char *, funcname);
		errcb.previous = error_context_stack;
		error_context_stack = &errcb;
		if (!JB_ROOT_IS_OBJECT(ids_by_space))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("ids_by_space must be a JSON object"),
					 errhint("Pass the ids of each named id space, as {\"org\": [\"1\", \"2\"]}.")));
		while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		{
			if (tok == WJB_KEY)
				name = pnstrdup(v.val.string.val, v.val.string.len);
			else if (tok == WJB_VALUE)
			{
				SubsetSpaceIds *s = palloc0(sizeof(SubsetSpaceIds));

				Assert(name != NULL);
				s->space = name;
				space_values(name, &v, &s->ids);
				req->spaces = lappend(req->spaces, s);
			}
		}
		error_context_stack = errcb.previous;
	}
}

/*
 * subset_plan_from_args
 *		The plan of a subset call's arguments: its config (the catalog's
 *		when a->config is NULL) parsed and checked, its ids decoded, the
 *		plan built and its files named.  With export, the config's mask
 *		decisions, its polymorphic types and the plan's tables must all be
 *		decided, one refusal naming them all (unless allow_undecided), and the plan keeps only a's files when it names
 *		some; without, as exwiw_plan and exwiw_explain read it (nothing is
 *		written, so safe mode does not apply).
 */
SubsetPlan *
subset_plan_from_args(const SubsetArgs *a, bool export)
{
	SubsetRequest req;
	SubsetConfig *cfg;
	SubsetPlan *plan;
	bool		jsonl = export && a->format == EXWIW_FORMAT_JSONL;

	if (a->config == NULL)
		cfg = subset_config_parse(a->fn, subset_catalog_config(subset_current_schema(), false));
	else
		cfg = subset_config_parse(a->fn, a->config);
	cfg->keep_cycle_values = jsonl;
	subset_config_check_masks(cfg);
	if (export)
		cfg->allow_undecided = a->allow_undecided;
	subset_request_init(&req, a->fn, cfg, a->target, a->ids, a->ids_by_space);
	plan = subset_plan_build(&req);
	if (export)
		subset_plan_check_decided(plan, a->allow_undecided);
	subset_plan_name_files(plan, jsonl ? "jsonl" : "sql");
	if (export && a->files != NULL)
		subset_plan_keep_files(plan, a->files, a->nfiles);
	if (export)
	{
		plan->allow_missing_ids = a->allow_missing_ids;
		plan->deletes = a->deletes;
	}
	return plan;
}
