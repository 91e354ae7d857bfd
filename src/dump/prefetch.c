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
 * This is a hint only: nothing read here is returned, no row is looked
 * at, a page split or a deletion at the same time only makes a prefetch
 * miss, and a probe that does not have the expected shape (an expression
 * for the key, a set reached through a join, another index type, a key
 * of a type the index's operator class does not take as it is) is simply
 * not prefetched.  The pages
 * are those the query reads anyway, for the keys it reads anyway, under
 * locks it takes anyway.  At most PREFETCH_MAX_KEYS keys of one probe are
 * read ahead, the first that the outer side yields: beyond that the
 * kernel would evict what was read before it is used.
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

		CHECK_FOR_INTERRUPTS();
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
		high++;
		while (high > low)
		{
			OffsetNumber mid = low + ((high - low) / 2);

			if (_bt_compare(rel, key, page, mid) >= 1)
				low = mid + 1;
			else
				high = mid;
		}
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
		OffsetNumber low = P_FIRSTDATAKEY(opaque);
		OffsetNumber high = PageGetMaxOffsetNumber(page);
		OffsetNumber maxoff = high;
		OffsetNumber off;

		CHECK_FOR_INTERRUPTS();
		/* the first entry at or above the key */
		high++;
		while (high > low)
		{
			OffsetNumber mid = low + ((high - low) / 2);

			if (_bt_compare(rel, key, page, mid) >= 1)
				low = mid + 1;
			else
				high = mid;
		}
		for (off = low; off <= maxoff; off++)
		{
			IndexTuple	itup;

			if (_bt_compare(rel, key, page, off) != 0)
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

/* The keys of one probe: a tuplestore's column, or a constant array. */
typedef struct ProbeKeys
{
	Tuplestorestate *ts;
	TupleTableSlot *slot;
	AttrNumber	attno;
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

/* the next non-null key into *d; false at the end (or the limit) */
static bool
keys_next(ProbeKeys *k, Datum *d)
{
	while (k->next < PREFETCH_MAX_KEYS)
	{
		bool		isnull;

		if (k->ts != NULL)
		{
			tuplestore_select_read_pointer(k->ts, k->readptr);
			if (!tuplestore_gettupleslot(k->ts, true, false, k->slot))
				return false;
			*d = slot_getattr(k->slot, k->attno, &isnull);
		}
		else
		{
			if (k->next >= k->nelems)
				return false;
			*d = k->elems[k->next];
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
 *		Read ahead the pages that probing index indexid for keys of type
 *		keytype with operator opno (equality, or nothing is done) reads:
 *		the leaves, then the heap blocks of the entries equal
 *		to the keys whose leaf was not in shared buffers.  When none of the
 *		first PREFETCH_WARM_KEYS keys' leaves missed, the index is taken to
 *		be in shared buffers, its heap pages too, and nothing more is done:
 *		a warm export pays a few dozen descents per probe, not two per key.
 */
static void
prefetch_probe(PrefetchWalk *w, Oid indexid, Oid opno, Oid keytype,
			   ProbeKeys *keys)
{
	Relation	rel;
	Relation	heap;
	BTScanInsert key;
	Datum		d;
	bool	   *missed;
	int			nkeys = 0;
	int			nleaves = 0;
	int			nheap = 0;
	int			i;

	rel = index_open(indexid, AccessShareLock);
	if (rel->rd_rel->relam != BTREE_AM_OID ||
		get_op_opfamily_strategy(opno, rel->rd_opfamily[0]) != BTEqualStrategyNumber ||
		!IsBinaryCoercible(getBaseType(keytype), rel->rd_opcintype[0]))
	{
		index_close(rel, AccessShareLock);
		return;
	}
	heap = relation_open(rel->rd_index->indrelid, AccessShareLock);

	/*
	 * A scan key of the first column only.  Without a tuple, _bt_mkscankey
	 * assumes a version 4 index without posting-list semantics; the metapage
	 * says what this index is, as _bt_first does.
	 */
	key = _bt_mkscankey(rel, NULL);
	_bt_metaversion(rel, &key->heapkeyspace, &key->allequalimage);
	key->keysz = 1;
	key->scankeys[0].sk_flags &= ~SK_ISNULL;
	missed = palloc0(sizeof(bool) * PREFETCH_MAX_KEYS);

	/* the leaves */
	keys_rewind(keys);
	while (keys_next(keys, &d))
	{
		Buffer		buf;
		BlockNumber leaf;

		key->scankeys[0].sk_argument = d;
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
		for (i = 0; i < nkeys && keys_next(keys, &d); i++)
		{
			Buffer		buf;

			if (!missed[i])
				continue;
			key->scankeys[0].sk_argument = d;
			(void) descend(rel, key, true, &buf);
			if (BufferIsValid(buf))
				nheap += prefetch_heap(rel, heap, key, buf);
		}
	}
	ereport(DEBUG1,
			(errmsg_internal("read ahead for %d keys: %d leaf pages of index \"%s\", %d heap pages of \"%s\"",
							 nkeys, nleaves, RelationGetRelationName(rel), nheap,
							 RelationGetRelationName(heap))));
	if (keys->ts != NULL)
		tuplestore_select_read_pointer(keys->ts, 0);
	relation_close(heap, AccessShareLock);
	index_close(rel, AccessShareLock);
}

/*
 * probe_of_qual
 *		When qual, of an index scan of indexid, compares the index's first
 *		column (by equality: prefetch_probe checks) with a nested loop's
 *		parameter that is a set's column, or with a constant array, read
 *		its pages ahead.
 */
static void
probe_of_qual(PrefetchWalk *w, Oid indexid, Node *qual)
{
	Node	   *l;
	Node	   *r;
	Oid			opno;
	bool		saop;
	ProbeKeys	keys;

	memset(&keys, 0, sizeof(keys));
	if (IsA(qual, OpExpr) && list_length(((OpExpr *) qual)->args) == 2)
	{
		saop = false;
		opno = ((OpExpr *) qual)->opno;
		l = strip_relabel(linitial(((OpExpr *) qual)->args));
		r = strip_relabel(lsecond(((OpExpr *) qual)->args));
	}
	else if (IsA(qual, ScalarArrayOpExpr) && ((ScalarArrayOpExpr *) qual)->useOr)
	{
		saop = true;
		opno = ((ScalarArrayOpExpr *) qual)->opno;
		l = strip_relabel(linitial(((ScalarArrayOpExpr *) qual)->args));
		r = strip_relabel(lsecond(((ScalarArrayOpExpr *) qual)->args));
	}
	else
		return;
	if (!IsA(l, Var) || ((Var *) l)->varno != INDEX_VAR || ((Var *) l)->varattno != 1)
		return;
	if (saop)
	{
		ArrayType  *arr;
		int16		elmlen;
		bool		elmbyval;
		char		elmalign;

		/* column = ANY (constant array) */
		if (!IsA(r, Const) || ((Const *) r)->constisnull)
			return;
		arr = DatumGetArrayTypeP(((Const *) r)->constvalue);
		get_typlenbyvalalign(ARR_ELEMTYPE(arr), &elmlen, &elmbyval, &elmalign);
		deconstruct_array(arr, ARR_ELEMTYPE(arr), elmlen, elmbyval, elmalign,
						  &keys.elems, &keys.nulls, &keys.nelems);
		if (keys.nelems > 1)
			prefetch_probe(w, indexid, opno, ARR_ELEMTYPE(arr), &keys);
		return;
	}
	/* column = a nested loop's parameter: an operator of two arguments */
	if (IsA(r, Param) && ((Param *) r)->paramkind == PARAM_EXEC)
	{
		int			paramid = ((Param *) r)->paramid;
		ListCell   *lc;

		/* the nested loop that sets the parameter (paramids are unique) */
		foreach(lc, w->loops)
		{
			LoopLevel  *lv = lfirst(lc);
			ListCell   *pc;

			foreach(pc, lv->nestparams)
			{
				NestLoopParam *nlp = lfirst(pc);
				EphemeralNamedRelation enr = NULL;
				Var		   *pv = nlp->paramval;
				AttrNumber	attno;

				if (nlp->paramno != paramid || pv->varno != OUTER_VAR)
					continue;
				attno = resolve_outer(w, lv->outer, pv->varattno, &enr);
				if (attno <= 0 || enr->reldata == NULL || enr->md.tupdesc == NULL ||
					attno > enr->md.tupdesc->natts)
					return;
				keys.ts = (Tuplestorestate *) enr->reldata;
				keys.attno = attno;
				keys.slot = MakeSingleTupleTableSlot(enr->md.tupdesc, &TTSOpsMinimalTuple);
				keys.readptr = tuplestore_alloc_read_pointer(keys.ts, EXEC_FLAG_REWIND);
				prefetch_probe(w, indexid, opno,
							   TupleDescAttr(enr->md.tupdesc, attno - 1)->atttypid, &keys);
				ExecDropSingleTupleTableSlot(keys.slot);
				return;
			}
		}
	}
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
	foreach(lc, quals)
	{
		MemoryContext old = MemoryContextSwitchTo(w->cxt);

		probe_of_qual(w, indexid, lfirst(lc));
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
			foreach(lc, ((Append *) plan)->appendplans)
				walk_plan(w, lfirst(lc));
			break;
		case T_MergeAppend:
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
