/*-------------------------------------------------------------------------
 *
 * run/depths.c
 *	  Each row's depth in the exported tree of a self-referencing table, by
 *	  Kahn's algorithm over (row, parent) pairs, so that a file lists
 *	  parents before their children.
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
 * read_pairs
 *		Fetch every (child, parent) pair of row numbers from cursor cur of
 *		the depth query into the growing arrays *pc and *pp (NULL at first),
 *		counting them in *npairs.  Row numbers are 1..n.
 */
static void
read_pairs(Portal cur, int64 n, int **pc, int **pp, int64 *npairs)
{
	int64		cap = 0;

	for (;;)
	{
		uint64		j;

		CHECK_FOR_INTERRUPTS();
		SPI_cursor_fetch(cur, true, 10000);
		if (SPI_processed == 0)
			break;
		for (j = 0; j < SPI_processed; j++)
		{
			bool		n1,
						n2;

			if ((*npairs) == cap)
			{
				cap = Max(1024, cap * 2);
				*pc = *pc ? repalloc_huge(*pc, sizeof(int) * cap) : palloc_extended(sizeof(int) * cap, MCXT_ALLOC_HUGE);
				*pp = *pp ? repalloc_huge(*pp, sizeof(int) * cap) : palloc_extended(sizeof(int) * cap, MCXT_ALLOC_HUGE);
			}
			(*pc)[*npairs] = (int) DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[j], SPI_tuptable->tupdesc, 1, &n1));
			(*pp)[*npairs] = (int) DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[j], SPI_tuptable->tupdesc, 2, &n2));
			Assert((*pc)[*npairs] >= 1 && (*pc)[*npairs] <= n && (*pp)[*npairs] >= 1 && (*pp)[*npairs] <= n);
			(*npairs)++;
		}
		SPI_freetuptable(SPI_tuptable);
	}
}

/*
 * run_file_depths
 *		Depth of every row of a self-referencing table's file in its
 *		exported tree: 0 for a row whose parents are not exported, else one
 *		more than its deepest parent; -1 for rows in (or below) a cycle of
 *		their own, which come first.  Kahn's algorithm over the (row,
 *		parent) pairs of f->depth_query, rows numbered 1..n by key.
 *		Returns an int4[] indexed by row number.
 */
ArrayType *
run_file_depths(SubsetRun *run, SubsetFile *f, int fset)
{
	int64		n;
	int		   *indeg;
	int		   *depth;
	int		   *queue;
	int64	   *head;			/* first pair of each parent, CSR */
	int		   *child;
	int		   *pc = NULL;		/* pairs: child, parent */
	int		   *pp = NULL;
	int64		npairs = 0;
	int64		i,
				qh = 0,
				qt = 0;
	Portal		cur;
	SPIPlanPtr	plan;
	Datum	   *elems;
	ArrayType  *result;
	int			nest = exwiw_pin_search_path();
	Withhold	w = run_withhold_for_query(run, f->table, f->fragment, false,
										   list_make1_int(fset));
	MemoryContext old = CurrentMemoryContext;

	if (run->inline_sets)
	{
		bool		isnull;
		char	   *count = run_with_sets(run, psprintf("SELECT pg_catalog.count(*) FROM %s",
														run->plan->sets[fset].name),
										  list_make1_int(fset));

		if (run_query(count, w) != SPI_OK_SELECT || SPI_processed != 1)
			elog(ERROR, "could not count the rows of a self-referencing table");
		n = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	}
	else
	{
		n = tuplestore_tuple_count((Tuplestorestate *) run->enrs[fset]->reldata);
		SPI_register_relation(run->enrs[fset]);
	}
	if (n >= PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("table \"%s\" has too many rows to order by depth",
						run->plan->cfg->tables[f->table].name)));
	plan = SPI_prepare(run_with_sets(run, f->depth_query, list_make1_int(fset)), 0, NULL);
	if (plan == NULL)
		elog(ERROR, "could not prepare the depth query");
	cur = SPI_cursor_open(NULL, plan, NULL, NULL, true);
	if (!w.on)
		read_pairs(cur, n, &pc, &pp, &npairs);
	else
	{
		PG_TRY();
		{
			read_pairs(cur, n, &pc, &pp, &npairs);
		}
		PG_CATCH();
		{
			exwiw_withhold_error(old, w.table, w.masked, w.keys);
		}
		PG_END_TRY();
	}
	SPI_cursor_close(cur);
	SPI_freeplan(plan);
	exwiw_restore_settings(nest);

	indeg = palloc_extended(sizeof(int) * (n + 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	depth = palloc_extended(sizeof(int) * (n + 1), MCXT_ALLOC_HUGE);
	queue = palloc_extended(sizeof(int) * (n + 1), MCXT_ALLOC_HUGE);
	head = palloc_extended(sizeof(int64) * (n + 2), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	child = palloc_extended(sizeof(int) * Max(npairs, 1), MCXT_ALLOC_HUGE);

	/* children of each parent, compressed: head[p] .. head[p + 1] */
	for (i = 0; i < npairs; i++)
	{
		head[pp[i] + 1]++;
		indeg[pc[i]]++;
	}
	for (i = 1; i <= n + 1; i++)
		head[i] += head[i - 1];
	{
		int64	   *fill = palloc_extended(sizeof(int64) * (n + 1), MCXT_ALLOC_HUGE);

		memcpy(fill, head, sizeof(int64) * (n + 1));
		for (i = 0; i < npairs; i++)
			child[fill[pp[i]]++] = pc[i];
		pfree(fill);
	}

	for (i = 1; i <= n; i++)
	{
		depth[i] = -1;
		if (indeg[i] == 0)
		{
			depth[i] = 0;
			queue[qt++] = (int) i;
		}
	}
	while (qh < qt)
	{
		int			p = queue[qh++];
		int64		k;

		if ((qh & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		for (k = head[p]; k < head[p + 1]; k++)
		{
			int			c = child[k];

			if (depth[c] < depth[p] + 1)
				depth[c] = depth[p] + 1;
			if (--indeg[c] == 0)
				queue[qt++] = c;
		}
	}
	/* rows never freed of their parents sit in or below a cycle */
	for (i = 1; i <= n; i++)
		if (indeg[i] > 0)
			depth[i] = -1;

	elems = palloc_extended(sizeof(Datum) * Max(n, 1), MCXT_ALLOC_HUGE);
	for (i = 0; i < n; i++)
		elems[i] = Int32GetDatum(depth[i + 1]);
	result = construct_array(elems, (int) n, INT4OID, sizeof(int32), true, TYPALIGN_INT);

	pfree(indeg);
	pfree(depth);
	pfree(queue);
	pfree(head);
	pfree(child);
	pfree(elems);
	if (pc)
	{
		pfree(pc);
		pfree(pp);
	}
	return result;
}
