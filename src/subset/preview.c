/*-------------------------------------------------------------------------
 *
 * subset/preview.c
 *	  A table's masked columns, original beside masked, for a few rows,
 *	  without writing anything: the engine of exwiw_mask_preview(), whose
 *	  entry point (subset/funcs.c) checks the privilege.  It reads a
 *	  config's table as the export does, so it lives with the subset
 *	  engine rather than with the masks (mask/), which it calls through the
 *	  select list.
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
#include "subset/plan/planner.h"

#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"

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
 * subset_mask_preview
 *		exwiw_mask_preview's rows into ts (of desc): for the first nrows
 *		rows of table name of config (NULL: the catalog's), each masked
 *		column's original and masked text.  The caller has checked the
 *		privilege.
 */
void
subset_mask_preview(Jsonb *config, const char *name, int32 nrows,
					Tuplestorestate *ts, TupleDesc desc)
{
	SubsetConfig *cfg;
	SubsetTable *t;
	StringInfoData q;
	int			nest;
	int			nsp;
	uint64		r;
	int			i;
	const char *fn = "exwiw_mask_preview";

	if (config == NULL)
		cfg = subset_config_parse(fn, subset_catalog_config(subset_current_schema(), false));
	else
		cfg = subset_config_parse(fn, config);
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
		TupleDesc	tdesc = SPI_tuptable->tupdesc;
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
			orig = SPI_getvalue(tup, tdesc, t->ncols + k + 1);
			masked = SPI_getvalue(tup, tdesc, i + 1);
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
			tuplestore_putvalues(ts, desc, values, nulls);
		}
	}
	SPI_finish();
	exwiw_restore_settings(nsp);
	exwiw_restore_settings(nest);
}
