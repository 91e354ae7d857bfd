/*-------------------------------------------------------------------------
 *
 * run/locks.c
 *	  Privileges and locks of a subset export: SELECT on every table, ACCESS
 *	  SHARE on every table and partition before any row is read, and the
 *	  check that no table changed after the export's snapshot.
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
 * check_select
 *		Error out unless the user may read table t (the table, or at least
 *		one of its columns: column privileges are checked by the queries),
 *		with the server's message and the GRANT that fixes it.
 */
static void
check_select(SubsetTable *t)
{
	Oid			user = GetUserId();

	if (pg_class_aclcheck(t->relid, user, ACL_SELECT) == ACLCHECK_OK ||
		pg_attribute_aclcheck_all(t->relid, user, ACL_SELECT, ACLMASK_ANY) == ACLCHECK_OK)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("permission denied for table %s", t->relname),
			 errdetail("The export reads table \"%s\" of the config (its file, or rows that other files need).",
					   t->name),
			 errhint("GRANT SELECT ON %s TO %s;", t->qualname,
					 quote_identifier(GetUserNameFromId(GetUserId(), false)))));
}

/*
 * table_changed_after_snapshot
 *		True when relid's catalog row was written by a transaction that the
 *		active snapshot does not see: a TRUNCATE, a rewrite or another DDL
 *		committed after the export began.
 */
static bool
table_changed_after_snapshot(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	TransactionId xmin;
	bool		changed;

	if (!HeapTupleIsValid(tup))
		return true;
	xmin = HeapTupleHeaderGetXmin(tup->t_data);
	changed = TransactionIdIsNormal(xmin) &&
		!TransactionIdIsCurrentTransactionId(xmin) &&
		XidInMVCCSnapshot(xmin, GetActiveSnapshot());
	ReleaseSysCache(tup);
	return changed;
}

/*
 * lock_table
 *		ACCESS SHARE on table t and every partition of it, then the snapshot
 *		check (see the file header).
 */
static void
lock_table(SubsetTable *t)
{
	List	   *rels;
	ListCell   *lc;

	CHECK_FOR_INTERRUPTS();
	check_select(t);
	LockRelationOid(t->relid, AccessShareLock);
	if (t->relkind == RELKIND_PARTITIONED_TABLE)
		rels = find_all_inheritors(t->relid, AccessShareLock, NULL);
	else
		rels = list_make1_oid(t->relid);
	foreach(lc, rels)
	{
		if (table_changed_after_snapshot(lfirst_oid(lc)))
			ereport(ERROR,
					(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
					 errmsg("table \"%s\" was changed after the export's snapshot was taken",
							get_rel_name(lfirst_oid(lc))),
					 errdetail("A concurrent transaction truncated, rewrote or altered it; reading it now could miss rows."),
					 errhint("Run the export again.")));
	}
}

/*
 * run_lock_tables
 *		Lock every table the export reads: those of its files and those of
 *		the row sets the files need, before any row is read.
 */
void
run_lock_tables(SubsetRun *run)
{
	SubsetPlan *plan = run->plan;
	bool	   *done = palloc0(sizeof(bool) * Max(plan->cfg->ntables, 1));
	int			i;

	for (i = 0; i < plan->nfiles; i++)
		done[plan->files[i].table] = true;
	for (i = 0; i < plan->nsets; i++)
		if (plan->sets[i].needed)
			done[plan->sets[i].table] = true;
	for (i = 0; i < plan->norder; i++)
		if (done[plan->order[i]])
			lock_table(&plan->cfg->tables[plan->order[i]]);
	pfree(done);
}
