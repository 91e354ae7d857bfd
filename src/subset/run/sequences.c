/*-------------------------------------------------------------------------
 *
 * run/sequences.c
 *	  The sequences a subset file sets again: one per sequence a written
 *	  column's default draws from, with the source sequence's state, as
 *	  data (ExwiwSequenceState); the SQL writer writes their setval lines.
 *
 *-------------------------------------------------------------------------
 */
#include "subset/subset.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "executor/executor.h"
#include "executor/tstoreReceiver.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/queryenvironment.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"
#include "subset/run/run.h"

/*
 * run_copy_sequences
 *		A copy of a list of sequence states in the current memory context
 *		(file_sequences allocates in SPI's, which SPI_finish frees).
 */
List *
run_copy_sequences(List *seqs)
{
	List	   *out = NIL;
	ListCell   *lc;

	foreach(lc, seqs)
	{
		ExwiwSequenceState *src = lfirst(lc);
		ExwiwSequenceState *dst = palloc(sizeof(ExwiwSequenceState));

		dst->name = pstrdup(src->name);
		dst->last_value = pstrdup(src->last_value);
		dst->is_called = src->is_called;
		out = lappend(out, dst);
	}
	return out;
}

/*
 * run_file_sequences
 *		The sequences a file sets again: one per sequence that a written
 *		column's default draws from (serial, identity, or any DEFAULT
 *		nextval('seq')), in column order, with the source sequence's own
 *		state, as ExwiwSequenceState (the SQL writer writes their setval
 *		lines).  NIL when there is none.
 */
List *
run_file_sequences(SubsetRun *run, SubsetFile *f)
{
	SubsetTable *t = &run->plan->cfg->tables[f->table];
	Oid			argtypes[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(t->relid)};
	List	   *out = NIL;
	List	   *done = NIL;
	int			nest = exwiw_pin_search_path();
	SPITupleTable *seqs;
	uint64		nseqs;
	int			c;

	if (SPI_execute_with_args("SELECT d.refobjid, ad.adnum FROM pg_catalog.pg_attrdef ad"
							  " JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass"
							  "  AND d.objid = ad.oid AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass"
							  " JOIN pg_catalog.pg_class s ON s.oid = d.refobjid AND s.relkind = 'S'"
							  " WHERE ad.adrelid = $1"
							  " UNION"
							  " SELECT d.objid, d.refobjsubid FROM pg_catalog.pg_depend d"
							  " JOIN pg_catalog.pg_class s ON s.oid = d.objid AND s.relkind = 'S'"
							  " WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass"
							  "  AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass"
							  "  AND d.refobjid = $1 AND d.refobjsubid > 0 AND d.deptype IN ('a', 'i')"
							  " ORDER BY 2, 1",
							  1, argtypes, values, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the sequences of table \"%s\"", t->name);
	seqs = SPI_tuptable;
	nseqs = SPI_processed;

	for (c = 0; c < t->ncols; c++)
	{
		uint64		i;

		for (i = 0; i < nseqs; i++)
		{
			bool		isnull;
			Oid			seq = DatumGetObjectId(SPI_getbinval(seqs->vals[i], seqs->tupdesc, 1, &isnull));
			int16		attnum = DatumGetInt16(SPI_getbinval(seqs->vals[i], seqs->tupdesc, 2, &isnull));
			char	   *qname;
			StringInfoData q;
			ExwiwSequenceState *st;

			if (attnum != t->cols[c].attnum || list_member_oid(done, seq))
				continue;
			done = lappend_oid(done, seq);
			qname = quote_qualified_identifier(get_namespace_name(get_rel_namespace(seq)),
											   get_rel_name(seq));
			if (pg_class_aclcheck(seq, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
				ereport(ERROR,
						(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
						 errmsg("permission denied for sequence %s", qname),
						 errdetail("The file of table \"%s\" sets the sequence that column \"%s\" draws from to its current value, so that ids made later in the development database do not collide.",
								   t->name, t->cols[c].name),
						 errhint("GRANT SELECT ON SEQUENCE %s TO %s;", qname,
								 quote_identifier(GetUserNameFromId(GetUserId(), false)))));
			initStringInfo(&q);
			appendStringInfo(&q, "SELECT last_value::pg_catalog.text, is_called FROM %s", qname);
			if (SPI_execute(q.data, true, 0) != SPI_OK_SELECT || SPI_processed != 1)
				elog(ERROR, "could not read sequence %s", qname);
			st = palloc(sizeof(ExwiwSequenceState));
			st->name = qname;
			st->last_value = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
			st->is_called = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
			out = lappend(out, st);
		}
	}
	exwiw_restore_settings(nest);
	return out;
}
