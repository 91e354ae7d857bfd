/*-------------------------------------------------------------------------
 *
 * prefetch.c
 *	  Reads ahead of a subset export's index probes: the btree leaf pages
 *	  and heap pages that a query's index scans will read for the keys of
 *	  a row set, asked of the kernel before the query runs.
 *
 * A row set's query and a file's query probe an index once per key of the
 * set they read: a nested loop whose outer side is the set (an ephemeral
 * named relation) and whose inner side is an index scan on
 * "column = outer key".  The executor reads each probe's leaf page, then
 * its heap pages, one at a time, so a cold tenant costs one disk latency
 * per page even where the disk serves many reads at once.  Bitmap heap
 * scans (exwiw.io_concurrency) prefetch the heap pages of one probe only,
 * not the next probe's, and no scan of PostgreSQL 15 to 18 prefetches
 * index pages.
 *
 * Here, when exwiw.io_concurrency is above 0, a query's plan is searched
 * for such probes before it runs.  For each, the set's keys are read from
 * its tuplestore and, per key, the btree is descended from the root to
 * the level above the leaves (pages few enough to be read at once, and
 * then cached): the leaf's block is prefetched (PrefetchBuffer, which is
 * posix_fadvise on a block not in shared buffers).  A second pass over the
 * keys descends to the leaves, by then read or in flight, and prefetches
 * the heap blocks of the entries equal to the key.  The query then finds
 * its pages in the kernel's page cache.  Keys given as a constant array
 * (column = ANY ('{...}')) are prefetched the same way.
 *
 * Where the quals compare several first columns with columns of the same
 * set (a composite foreign key), the key has all of them.  The children of
 * an Append with run-time partition pruning are not looked at: each key
 * probes only its own partitions.
 *
 * This is a hint only: nothing read here is returned, no row is looked
 * at, a page split or a deletion at the same time only makes a prefetch
 * miss, and a probe that does not have the expected shape (an expression
 * for the key, a set reached through a join, another index type, a key
 * of a type the index's operator class does not take as it is) is simply
 * not prefetched.  The pages
 * are those the query reads anyway, for the keys it reads anyway, under
 * locks it takes anyway.  At most PREFETCH_MAX_KEYS keys of one probe are
 * read ahead, the first that the outer side yields: beyond that the
 * kernel would evict what was read before it is used; and at most
 * PREFETCH_MAX_HEAP_PER_KEY heap entries of one key.  It runs where the
 * query's executor starts, with the transaction read-only as there, since
 * it calls the index's comparison functions.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"

#include "access/genam.h"
#include "access/nbtree.h"
#include "access/relation.h"
#include "access/stratnum.h"
#include "catalog/pg_am.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "executor/tuptable.h"
#include "nodes/nodeFuncs.h"
#include "nodes/plannodes.h"
#include "parser/parse_coerce.h"
#include "parser/parsetree.h"
#include "storage/bufmgr.h"
#include "utils/array.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/queryenvironment.h"
#include "utils/rel.h"
#include "utils/tuplestore.h"

#include "common/compat.h"

/* the keys of one probe read ahead, at most */
#define PREFETCH_MAX_KEYS 16384

/* keys whose leaves, all in shared buffers, show a warm index */
#define PREFETCH_WARM_KEYS 64

/* the leaf pages walked right for one key's equal entries, at most */
#define PREFETCH_MAX_LEAVES_PER_KEY 4

/* the heap entries of one key read ahead, at most */
#define PREFETCH_MAX_HEAP_PER_KEY 256

/* One nested loop on the way down: its parameters and its outer plan. */
typedef struct LoopLevel
{
	List	   *nestparams;		/* NestLoopParam */
	Plan	   *outer;
} LoopLevel;

typedef struct PrefetchWalk
{
	PlannedStmt *stmt;
	List	   *enrs;			/* EphemeralNamedRelation */
	List	   *loops;			/* LoopLevel, innermost last */
	MemoryContext cxt;			/* reset per probe */
} PrefetchWalk;

/*
 * strip_relabel
 *		e without the binary-compatible casts above it.
 */
static Node *
strip_relabel(Node *e)
{
	while (e != NULL && IsA(e, RelabelType))
		e = (Node *) ((RelabelType *) e)->arg;
	return e;
}

/*
 * find_enr
 *		The ephemeral relation named name among w->enrs, or NULL.
 */
static EphemeralNamedRelation
find_enr(PrefetchWalk *w, const char *name)
{
	ListCell   *lc;

	foreach(lc, w->enrs)
	{
		EphemeralNamedRelation enr = lfirst(lc);

		if (strcmp(enr->md.name, name) == 0)
			return enr;
	}
	return NULL;
}

/*
 * resolve_outer
 *		Column attno of plan's output, followed down through the nodes that
 *		pass their input's values on (sorts, aggregates that group by it,
 *		unique, material, memoize, subquery scans) to the scan of an
 *		ephemeral relation: sets *enr and returns its column, or returns 0
 *		when the value is computed or comes from a table.
 */
static AttrNumber
resolve_outer(PrefetchWalk *w, Plan *plan, AttrNumber attno,
			  EphemeralNamedRelation *enr)
{
	for (;;)
	{
		TargetEntry *tle;
		Var		   *var;

		CHECK_FOR_INTERRUPTS();
		if (plan == NULL || attno < 1 || attno > list_length(plan->targetlist))
			return 0;
		tle = list_nth_node(TargetEntry, plan->targetlist, attno - 1);
		var = (Var *) strip_relabel((Node *) tle->expr);
		if (var == NULL || !IsA(var, Var))
			return 0;
		switch (nodeTag(plan))
		{
			case T_NamedTuplestoreScan:
				{
					Index		scanrelid = ((Scan *) plan)->scanrelid;
					RangeTblEntry *rte;

					if (var->varno != (int) scanrelid)
						return 0;
					rte = rt_fetch(scanrelid, w->stmt->rtable);
					if (rte->rtekind != RTE_NAMEDTUPLESTORE || rte->enrname == NULL)
						return 0;
					*enr = find_enr(w, rte->enrname);
					return *enr != NULL ? var->varattno : 0;
				}
			case T_SubqueryScan:
				if (var->varno != (int) ((Scan *) plan)->scanrelid)
					return 0;
				plan = ((SubqueryScan *) plan)->subplan;
				attno = var->varattno;
				break;
			case T_Agg:
			case T_Group:
			case T_Unique:
			case T_Sort:
			case T_IncrementalSort:
			case T_Material:
			case T_Memoize:
			case T_Result:
				if (var->varno != OUTER_VAR)
					return 0;
				plan = outerPlan(plan);
				attno = var->varattno;
				break;
			default:
				return 0;
		}
	}
}

/*
 * first_not_below
 *		The first of the items low..high of page that the key is not above
 *		(high + 1 when it is above them all), by binary search, as
 *		_bt_binsrch does with nextkey false.  On an internal page, whose
 *		first data item compares as minus infinity, the one before it is
 *		the downlink to follow.
 */
static OffsetNumber
first_not_below(Relation rel, BTScanInsert key, Page page,
				OffsetNumber low, OffsetNumber high)
{
	high++;
	while (high > low)
	{
		OffsetNumber mid = low + ((high - low) / 2);

		if (_bt_compare(rel, key, page, mid) >= 1)
			low = mid + 1;
		else
			high = mid;
	}
	return low;
}

/*
 * descend
 *		Descend index rel for key from the root: stops at the page above the
 *		leaves and returns the leaf's block (*buf released), or, when to_leaf,
 *		returns InvalidBlockNumber with *buf the leaf, read-locked.  Returns
 *		InvalidBlockNumber with *buf invalid for an empty index or one that
 *		is a single leaf.  Moves right past concurrent splits as _bt_search
 *		does, for the hint to be right more often.
 */
static BlockNumber
descend(Relation rel, BTScanInsert key, bool to_leaf, Buffer *buf)
{
	*buf = exwiw_bt_getroot(rel);
	if (!BufferIsValid(*buf))
		return InvalidBlockNumber;
	for (;;)
	{
		Page		page = BufferGetPage(*buf);
		BTPageOpaque opaque = BTPageGetOpaque(page);
		OffsetNumber low,
					high;
		IndexTuple	itup;
		BlockNumber child;

		/* move right while the key is beyond the page (a split) */
		while (!P_RIGHTMOST(opaque) &&
			   (P_IGNORE(opaque) || _bt_compare(rel, key, page, P_HIKEY) > 0))
		{
			*buf = _bt_relandgetbuf(rel, *buf, opaque->btpo_next, BT_READ);
			page = BufferGetPage(*buf);
			opaque = BTPageGetOpaque(page);
		}
		if (P_ISLEAF(opaque))
		{
			if (to_leaf)
				return InvalidBlockNumber;
			/* the root is the only leaf: nothing worth reading ahead */
			_bt_relbuf(rel, *buf);
			*buf = InvalidBuffer;
			return InvalidBlockNumber;
		}

		/* the last item below the key, as _bt_binsrch on an internal page */
		low = P_FIRSTDATAKEY(opaque);
		high = PageGetMaxOffsetNumber(page);
		if (high < low)
		{
			_bt_relbuf(rel, *buf);
			*buf = InvalidBuffer;
			return InvalidBlockNumber;
		}
		low = first_not_below(rel, key, page, low, high);
		itup = (IndexTuple) PageGetItem(page, PageGetItemId(page, OffsetNumberPrev(low)));
		child = BTreeTupleGetDownLink(itup);
		if (opaque->btpo_level == 1 && !to_leaf)
		{
			_bt_relbuf(rel, *buf);
			*buf = InvalidBuffer;
			return child;
		}
		*buf = _bt_relandgetbuf(rel, *buf, child, BT_READ);
	}
}

/*
 * prefetch_heap
 *		On the leaf in buf (read-locked; released here), prefetch the heap
 *		blocks of the entries equal to key, walking right while they go on.
 */
static int
prefetch_heap(Relation rel, Relation heap, BTScanInsert key, Buffer buf)
{
	int			leaves = 0;
	int			n = 0;

	for (;;)
	{
		Page		page = BufferGetPage(buf);
		BTPageOpaque opaque = BTPageGetOpaque(page);
		OffsetNumber low;
		OffsetNumber maxoff;
		OffsetNumber off;

		/* a page deleted since its left sibling pointed to it: go on */
		if (P_IGNORE(opaque))
		{
			if (P_RIGHTMOST(opaque) || ++leaves >= PREFETCH_MAX_LEAVES_PER_KEY)
			{
				_bt_relbuf(rel, buf);
				return n;
			}
			buf = _bt_relandgetbuf(rel, buf, opaque->btpo_next, BT_READ);
			continue;
		}
		maxoff = PageGetMaxOffsetNumber(page);
		/* the first entry at or above the key */
		low = first_not_below(rel, key, page, P_FIRSTDATAKEY(opaque), maxoff);
		for (off = low; off <= maxoff; off++)
		{
			IndexTuple	itup;

			if (n >= PREFETCH_MAX_HEAP_PER_KEY ||
				_bt_compare(rel, key, page, off) != 0)
			{
				_bt_relbuf(rel, buf);
				return n;
			}
			itup = (IndexTuple) PageGetItem(page, PageGetItemId(page, off));
			if (BTreeTupleIsPosting(itup))
			{
				int			i;

				for (i = 0; i < BTreeTupleGetNPosting(itup); i++)
					PrefetchBuffer(heap, MAIN_FORKNUM,
								   ItemPointerGetBlockNumber(BTreeTupleGetPostingN(itup, i)));
				n += BTreeTupleGetNPosting(itup);
			}
			else
			{
				PrefetchBuffer(heap, MAIN_FORKNUM, ItemPointerGetBlockNumber(&itup->t_tid));
				n++;
			}
		}
		/* equal entries to the page's end: they may go on to the right */
		if (P_RIGHTMOST(opaque) || ++leaves >= PREFETCH_MAX_LEAVES_PER_KEY)
		{
			_bt_relbuf(rel, buf);
			return n;
		}
		buf = _bt_relandgetbuf(rel, buf, opaque->btpo_next, BT_READ);
	}
}

/*
 * The keys of one probe: the values of the index's first ncols columns,
 * from columns of a tuplestore's rows, or of the first column from a
 * constant array.
 */
typedef struct ProbeKeys
{
	int			ncols;
	Oid			opnos[INDEX_MAX_KEYS];	/* the equality of each column */
	Oid			types[INDEX_MAX_KEYS];	/* the key values' types */
	Tuplestorestate *ts;
	TupleTableSlot *slot;
	AttrNumber	attnos[INDEX_MAX_KEYS]; /* the tuplestore's columns */
	int			readptr;
	Datum	   *elems;			/* or the array's */
	bool	   *nulls;
	int			nelems;
	int			next;
} ProbeKeys;

static void
keys_rewind(ProbeKeys *k)
{
	k->next = 0;
	if (k->ts != NULL)
	{
		tuplestore_select_read_pointer(k->ts, k->readptr);
		tuplestore_rescan(k->ts);
	}
}

/* the next key with no NULL into d[0..ncols); false at the end (or limit) */
static bool
keys_next(ProbeKeys *k, Datum *d)
{
	while (k->next < PREFETCH_MAX_KEYS)
	{
		bool		isnull = false;

		if (k->ts != NULL)
		{
			tuplestore_select_read_pointer(k->ts, k->readptr);
			if (!tuplestore_gettupleslot(k->ts, true, false, k->slot))
				return false;
			for (int c = 0; c < k->ncols && !isnull; c++)
				d[c] = slot_getattr(k->slot, k->attnos[c], &isnull);
		}
		else
		{
			if (k->next >= k->nelems)
				return false;
			d[0] = k->elems[k->next];
			isnull = k->nulls[k->next];
		}
		k->next++;
		if (!isnull)
			return true;
	}
	return false;
}

/*
 * prefetch_probe
 *		Read ahead the pages that probing index indexid for keys reads: the
 *		leaves, then the heap blocks of the entries equal to the keys whose
 *		leaf was not in shared buffers.  Nothing is done unless each key
 *		column is compared by its operator family's equality and its values
 *		are of the type the operator class takes.  When none of the first
 *		PREFETCH_WARM_KEYS keys' leaves missed, the index is taken to be in
 *		shared buffers, its heap pages too, and nothing more is done: a warm
 *		export pays a few dozen descents per probe, not two per key.
 */
static void
prefetch_probe(PrefetchWalk *w, Oid indexid, ProbeKeys *keys)
{
	Relation	rel;
	Relation	heap;
	BTScanInsert key;
	Datum		d[INDEX_MAX_KEYS];
	bool	   *missed;
	int			nkeys = 0;
	int			nleaves = 0;
	int			nheap = 0;
	int			i;
	int			c;

	rel = index_open(indexid, AccessShareLock);
	if (rel->rd_rel->relam != BTREE_AM_OID ||
		keys->ncols > IndexRelationGetNumberOfKeyAttributes(rel))
	{
		index_close(rel, AccessShareLock);
		return;
	}
	for (c = 0; c < keys->ncols; c++)
	{
		if (get_op_opfamily_strategy(keys->opnos[c], rel->rd_opfamily[c]) != BTEqualStrategyNumber ||
			!IsBinaryCoercible(getBaseType(keys->types[c]), rel->rd_opcintype[c]))
		{
			index_close(rel, AccessShareLock);
			return;
		}
	}
	heap = relation_open(rel->rd_index->indrelid, AccessShareLock);

	/*
	 * A scan key of the key columns.  Without a tuple, _bt_mkscankey assumes
	 * a version 4 index without posting-list semantics; the metapage says
	 * what this index is, as _bt_first does.
	 */
	key = _bt_mkscankey(rel, NULL);
	_bt_metaversion(rel, &key->heapkeyspace, &key->allequalimage);
	key->keysz = keys->ncols;
	for (c = 0; c < keys->ncols; c++)
		key->scankeys[c].sk_flags &= ~SK_ISNULL;
	missed = palloc0(sizeof(bool) * PREFETCH_MAX_KEYS);

	/* the leaves */
	keys_rewind(keys);
	while (keys_next(keys, d))
	{
		Buffer		buf;
		BlockNumber leaf;

		CHECK_FOR_INTERRUPTS();
		for (c = 0; c < keys->ncols; c++)
			key->scankeys[c].sk_argument = d[c];
		leaf = descend(rel, key, false, &buf);
		if (leaf != InvalidBlockNumber)
		{
			PrefetchBufferResult r = PrefetchBuffer(rel, MAIN_FORKNUM, leaf);

			if (!BufferIsValid(r.recent_buffer))
			{
				missed[nkeys] = true;
				nleaves++;
			}
		}
		nkeys++;
		if (nkeys == PREFETCH_WARM_KEYS && nleaves == 0)
			break;
	}
	/* the heap blocks of the entries equal to each key whose leaf missed */
	if (nleaves > 0)
	{
		keys_rewind(keys);
		for (i = 0; i < nkeys && keys_next(keys, d); i++)
		{
			Buffer		buf;

			CHECK_FOR_INTERRUPTS();
			if (!missed[i])
				continue;
			for (c = 0; c < keys->ncols; c++)
				key->scankeys[c].sk_argument = d[c];
			(void) descend(rel, key, true, &buf);
			if (BufferIsValid(buf))
				nheap += prefetch_heap(rel, heap, key, buf);
		}
	}
	ereport(DEBUG1,
			(errmsg_internal("read ahead for %d keys of %d columns: %d leaf pages of index \"%s\", %d heap pages of \"%s\"",
							 nkeys, keys->ncols, nleaves, RelationGetRelationName(rel), nheap,
							 RelationGetRelationName(heap))));
	if (keys->ts != NULL)
		tuplestore_select_read_pointer(keys->ts, 0);
	relation_close(heap, AccessShareLock);
	index_close(rel, AccessShareLock);
}

/*
 * index_qual
 *		qual split as "index column = right": sets *col (1-based), *opno,
 *		*right and *saop (right is an array: = ANY) and returns true, or
 *		returns false for any other form.
 */
static bool
index_qual(Node *qual, int *col, Oid *opno, Node **right, bool *saop)
{
	List	   *args;
	Node	   *l;

	if (IsA(qual, OpExpr) && list_length(((OpExpr *) qual)->args) == 2)
	{
		*saop = false;
		*opno = ((OpExpr *) qual)->opno;
		args = ((OpExpr *) qual)->args;
	}
	else if (IsA(qual, ScalarArrayOpExpr) && ((ScalarArrayOpExpr *) qual)->useOr)
	{
		*saop = true;
		*opno = ((ScalarArrayOpExpr *) qual)->opno;
		args = ((ScalarArrayOpExpr *) qual)->args;
	}
	else
		return false;
	l = strip_relabel(linitial(args));
	if (!IsA(l, Var) || ((Var *) l)->varno != INDEX_VAR ||
		((Var *) l)->varattno < 1 || ((Var *) l)->varattno > INDEX_MAX_KEYS)
		return false;
	*col = ((Var *) l)->varattno;
	*right = strip_relabel(lsecond(args));
	return true;
}

/*
 * param_column
 *		When right is a parameter that a nested loop on the way down sets
 *		from a column of a set's rows, that set (*enr) and its column;
 *		otherwise 0.
 */
static AttrNumber
param_column(PrefetchWalk *w, Node *right, EphemeralNamedRelation *enr)
{
	int			paramid;
	ListCell   *lc;

	if (!IsA(right, Param) || ((Param *) right)->paramkind != PARAM_EXEC)
		return 0;
	paramid = ((Param *) right)->paramid;
	/* the nested loop that sets the parameter (paramids are unique) */
	foreach(lc, w->loops)
	{
		LoopLevel  *lv = lfirst(lc);
		ListCell   *pc;

		foreach(pc, lv->nestparams)
		{
			NestLoopParam *nlp = lfirst(pc);
			AttrNumber	attno;

			if (nlp->paramno != paramid || nlp->paramval->varno != OUTER_VAR)
				continue;
			attno = resolve_outer(w, lv->outer, nlp->paramval->varattno, enr);
			if (attno <= 0 || (*enr)->reldata == NULL || (*enr)->md.tupdesc == NULL ||
				attno > (*enr)->md.tupdesc->natts)
				return 0;
			return attno;
		}
	}
	return 0;
}

/*
 * probe_of_scan
 *		When the index quals of a scan of indexid compare the index's
 *		first columns by equality with columns of one set's rows (nested
 *		loop parameters), or its first column with a constant array, read
 *		the probe's pages ahead.  Where the quals compare the first columns
 *		with a set's columns, all of those in a row make the key: a key of
 *		the first column alone would match many more entries than the
 *		query reads (a composite foreign key led by a tenant's column).
 */
static void
probe_of_scan(PrefetchWalk *w, Oid indexid, List *quals)
{
	Node	   *right[INDEX_MAX_KEYS] = {0};
	Oid			opnos[INDEX_MAX_KEYS] = {0};
	bool		saops[INDEX_MAX_KEYS] = {0};
	ProbeKeys	keys;
	EphemeralNamedRelation enr = NULL;
	ListCell   *lc;
	int			c;

	foreach(lc, quals)
	{
		int			col;
		Oid			opno;
		Node	   *r;
		bool		saop;

		if (index_qual(lfirst(lc), &col, &opno, &r, &saop) && right[col - 1] == NULL)
		{
			right[col - 1] = r;
			opnos[col - 1] = opno;
			saops[col - 1] = saop;
		}
	}
	if (right[0] == NULL)
		return;
	memset(&keys, 0, sizeof(keys));
	if (saops[0])
	{
		ArrayType  *arr;
		int16		elmlen;
		bool		elmbyval;
		char		elmalign;

		/* column = ANY (constant array) */
		if (!IsA(right[0], Const) || ((Const *) right[0])->constisnull)
			return;
		arr = DatumGetArrayTypeP(((Const *) right[0])->constvalue);
		get_typlenbyvalalign(ARR_ELEMTYPE(arr), &elmlen, &elmbyval, &elmalign);
		deconstruct_array(arr, ARR_ELEMTYPE(arr), elmlen, elmbyval, elmalign,
						  &keys.elems, &keys.nulls, &keys.nelems);
		keys.ncols = 1;
		keys.opnos[0] = opnos[0];
		keys.types[0] = ARR_ELEMTYPE(arr);
		if (keys.nelems > 1)
			prefetch_probe(w, indexid, &keys);
		return;
	}
	/* the first columns, each = a column of the same set's rows */
	for (c = 0; c < INDEX_MAX_KEYS && right[c] != NULL && !saops[c]; c++)
	{
		EphemeralNamedRelation e = NULL;
		AttrNumber	attno = param_column(w, right[c], &e);

		if (attno <= 0 || (enr != NULL && e != enr))
			break;
		enr = e;
		keys.attnos[c] = attno;
		keys.opnos[c] = opnos[c];
		keys.types[c] = TupleDescAttr(enr->md.tupdesc, attno - 1)->atttypid;
		keys.ncols = c + 1;
	}
	if (keys.ncols == 0)
		return;
	keys.ts = (Tuplestorestate *) enr->reldata;
	keys.slot = MakeSingleTupleTableSlot(enr->md.tupdesc, &TTSOpsMinimalTuple);
	keys.readptr = tuplestore_alloc_read_pointer(keys.ts, EXEC_FLAG_REWIND);
	prefetch_probe(w, indexid, &keys);
	ExecDropSingleTupleTableSlot(keys.slot);
}

/*
 * walk_plan
 *		Look for probes in plan and below it.
 */
static void
walk_plan(PrefetchWalk *w, Plan *plan)
{
	List	   *quals = NIL;
	Oid			indexid = InvalidOid;
	ListCell   *lc;

	if (plan == NULL)
		return;
	check_stack_depth();
	CHECK_FOR_INTERRUPTS();
	switch (nodeTag(plan))
	{
		case T_IndexScan:
			indexid = ((IndexScan *) plan)->indexid;
			quals = ((IndexScan *) plan)->indexqual;
			break;
		case T_IndexOnlyScan:
			indexid = ((IndexOnlyScan *) plan)->indexid;
			quals = ((IndexOnlyScan *) plan)->indexqual;
			break;
		case T_BitmapIndexScan:
			indexid = ((BitmapIndexScan *) plan)->indexid;
			quals = ((BitmapIndexScan *) plan)->indexqual;
			break;
		default:
			break;
	}
	if (quals != NIL)
	{
		MemoryContext old = MemoryContextSwitchTo(w->cxt);

		probe_of_scan(w, indexid, quals);
		MemoryContextSwitchTo(old);
		MemoryContextReset(w->cxt);
	}

	walk_plan(w, outerPlan(plan));
	if (IsA(plan, NestLoop))
	{
		LoopLevel  *lv = palloc(sizeof(LoopLevel));

		lv->nestparams = ((NestLoop *) plan)->nestParams;
		lv->outer = outerPlan(plan);
		w->loops = lappend(w->loops, lv);
		walk_plan(w, innerPlan(plan));
		w->loops = list_delete_last(w->loops);
		pfree(lv);
	}
	else
		walk_plan(w, innerPlan(plan));

	switch (nodeTag(plan))
	{
		case T_Append:
			/* partitions pruned per key: the probes would be many more */
			if (exwiw_plan_prunes((Append *) plan))
				break;
			foreach(lc, ((Append *) plan)->appendplans)
				walk_plan(w, lfirst(lc));
			break;
		case T_MergeAppend:
			if (exwiw_plan_prunes((MergeAppend *) plan))
				break;
			foreach(lc, ((MergeAppend *) plan)->mergeplans)
				walk_plan(w, lfirst(lc));
			break;
		case T_BitmapAnd:
			foreach(lc, ((BitmapAnd *) plan)->bitmapplans)
				walk_plan(w, lfirst(lc));
			break;
		case T_BitmapOr:
			foreach(lc, ((BitmapOr *) plan)->bitmapplans)
				walk_plan(w, lfirst(lc));
			break;
		case T_SubqueryScan:
			walk_plan(w, ((SubqueryScan *) plan)->subplan);
			break;
		default:
			break;
	}
}

/*
 * exwiw_prefetch_plan
 *		When exwiw.io_concurrency is above 0, read ahead the pages that the
 *		index probes of stmt will read for the keys of the sets in enrs
 *		(EphemeralNamedRelation) or of constant arrays.  stmt's relations
 *		are locked (it is planned); nothing of stmt is changed.
 */
void
exwiw_prefetch_plan(PlannedStmt *stmt, List *enrs)
{
	PrefetchWalk w;
	ListCell   *lc;

	if (exwiw_io_concurrency <= 0 || stmt == NULL)
		return;
	w.stmt = stmt;
	w.enrs = enrs;
	w.loops = NIL;
	w.cxt = AllocSetContextCreate(CurrentMemoryContext, "exwiw prefetch",
								  ALLOCSET_SMALL_SIZES);
	walk_plan(&w, stmt->planTree);
	foreach(lc, stmt->subplans)
		walk_plan(&w, lfirst(lc));
	MemoryContextDelete(w.cxt);
}
