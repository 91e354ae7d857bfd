/*-------------------------------------------------------------------------
 *
 * mask_preview.c
 *	  exwiw_mask_preview(): a table's masked columns, original beside
 *	  masked, for a few rows, without writing anything.
 *
 *	  exwiw_mask_preview(config jsonb, table_name text, nrows int)
 *		  RETURNS TABLE(row_number int, column_name text, original text,
 *						masked text)
 *
 * Only a role with the privileges of pg_read_all_data (superusers have
 * them) may call it: it shows original values, and the pseudonyms of
 * them, side by side.  The config is checked as exwiw_export checks it (a
 * NULL config is exwiw_config_from_catalog()); the table is named as in
 * the config, or resolved through the search_path.  The rows are the
 * first nrows by primary key (in physical order without one), read with
 * the same select list as the export, so the masked value is the one the
 * export writes.  It reads with the caller's privileges and writes nothing.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"
#include "subset/subset.h"
#include "subset/subset_planner.h"

#include "catalog/pg_authid.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(exwiw_mask_preview);

/*
 * preview_table
 *		The index of the table named name in cfg: by its config name, else
 *		by the relation the name resolves to.  An error when none.
 */
static int
preview_table(SubsetConfig *cfg, const char *name)
{
	int			i = subset_config_find(cfg, name);
	Oid			relid;

	if (i >= 0)
		return i;
	relid = subset_resolve_name(name);
	for (i = 0; OidIsValid(relid) && i < cfg->ntables; i++)
		if (cfg->tables[i].relid == relid)
			return i;
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_TABLE),
			 errmsg("table \"%s\" is not in the config", name)));
	return -1;
}

/*
 * exwiw_mask_preview
 *		SQL entry point, see the file header.
 */
Datum
exwiw_mask_preview(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	SubsetConfig *cfg;
	SubsetTable *t;
	StringInfoData q;
	char	   *name;
	int32		nrows;
	int			nest;
	int			nsp;
	uint64		r;
	int			i;
	const char *fn = "exwiw_mask_preview";

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
	if (PG_ARGISNULL(0))
		cfg = subset_config_parse(fn, subset_catalog_config(subset_current_schema()));
	else
		cfg = subset_config_parse(fn, PG_GETARG_JSONB_P(0));
	t = &cfg->tables[preview_table(cfg, name)];
	if (t->ignore || t->rails_managed)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("table \"%s\" has no masks to preview", t->name),
				 errdetail("The config ignores it, or exports it in full as Rails manages it.")));

	/* the export's select list, then the masked columns' originals */
	initStringInfo(&q);
	appendStringInfo(&q, "SELECT %s", subset_select_list(t));
	for (i = 0; i < t->ncols; i++)
		if (SubsetColumnIsMasked(&t->cols[i]))
			appendStringInfo(&q, ", CAST(%s.%s AS pg_catalog.text)", planner_alias(t),
							 quote_identifier(t->cols[i].name));
	appendStringInfo(&q, " FROM %s AS %s", t->qualname, planner_alias(t));
	for (i = 0; i < t->pk.n; i++)
		appendStringInfo(&q, "%s%s.%s", i ? ", " : " ORDER BY ", planner_alias(t),
						 quote_identifier(t->pk.names[i]));
	appendStringInfo(&q, " LIMIT %d", nrows);

	nest = exwiw_pin_output_settings();
	nsp = exwiw_pin_search_path();
	SPI_connect();
	if (SPI_execute(q.data, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read table \"%s\"", t->name);
	for (r = 0; r < SPI_processed; r++)
	{
		HeapTuple	tup = SPI_tuptable->vals[r];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		int			k = 0;

		CHECK_FOR_INTERRUPTS();
		for (i = 0; i < t->ncols; i++)
		{
			Datum		values[4];
			bool		nulls[4] = {false, false, false, false};
			char	   *orig;
			char	   *masked;

			if (!SubsetColumnIsMasked(&t->cols[i]))
				continue;
			orig = SPI_getvalue(tup, desc, t->ncols + k + 1);
			masked = SPI_getvalue(tup, desc, i + 1);
			k++;
			values[0] = Int32GetDatum((int32) r + 1);
			values[1] = CStringGetTextDatum(t->cols[i].name);
			if (orig)
				values[2] = CStringGetTextDatum(orig);
			else
				nulls[2] = true;
			if (masked)
				values[3] = CStringGetTextDatum(masked);
			else
				nulls[3] = true;
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	}
	SPI_finish();
	exwiw_restore_settings(nsp);
	exwiw_restore_settings(nest);
	return (Datum) 0;
}
