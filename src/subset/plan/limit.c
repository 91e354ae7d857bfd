/*-------------------------------------------------------------------------
 *
 * plan/limit.c
 *	  The keys a table's "limit" keeps (issue 40): the first rows_N rows
 *	  by order_by of each group of per among the rows of the seed.
 *
 * Two forms give the same rows:
 *
 *	- a window, row_number() OVER (PARTITION BY per ORDER BY order_by) of
 *	  every seed row, which reads them all;
 *	- a top-N per value, when an index of the table leads with the per
 *	  columns and then the order_by columns (index_fits) and the caller
 *	  knows the values per can take among the seed's rows (plan/seeds.c:
 *	  the parent's keys, when per is the seed's foreign key; a skip scan
 *	  of the index, planner_limit_skip_scan, when the seed is every row):
 *
 *		SELECT <key> FROM (<values>) AS exwiw_v(...) CROSS JOIN LATERAL
 *		  (SELECT <key> FROM t WHERE t.per = exwiw_v... AND <seed>
 *		   ORDER BY order_by LIMIT N) AS exwiw_l
 *
 *	  which reads about N index entries per value.  Without per, the same
 *	  with one "ORDER BY order_by LIMIT N" over the seed.
 *
 * The two agree row for row only when order_by orders the rows totally:
 * the top-N form is used only when order_by names every primary key
 * column (the key is unique, so no two rows tie on the whole list); with
 * ties a window and a LIMIT may choose different rows among them, and the
 * window is kept.
 *
 *-------------------------------------------------------------------------
 */
#include "subset/plan/planner.h"

#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/relation.h"
#include "catalog/pg_am.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "catalog/pg_operator.h"
#include "commands/defrem.h"
#include "nodes/parsenodes.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

/* one item of order_by that is a plain column reference */
typedef struct LimitOrderItem
{
	AttrNumber	attnum;
	bool		desc;
	bool		nulls_first;
} LimitOrderItem;

/* order_by as items */
typedef struct LimitOrder
{
	LimitOrderItem *items;
	int			n;
} LimitOrder;

/*
 * order_items
 *		Decode t's order_by (checked to parse as one ORDER BY list by
 *		config/parse.c) into items; false when an item is not a plain,
 *		unqualified column of the table (an expression, COLLATE, USING).
 */
static bool
order_items(SubsetTable *t, LimitOrderItem **items, int *nitems)
{
	char	   *why;
	List	   *raw = subset_parse_quietly(psprintf("SELECT 1 ORDER BY %s\n", t->limit_order),
										   &why);
	List	   *sort;
	ListCell   *lc;
	int			i = 0;

	if (why != NULL || list_length(raw) != 1)
		return false;
	sort = ((SelectStmt *) linitial_node(RawStmt, raw)->stmt)->sortClause;
	*items = palloc0(sizeof(LimitOrderItem) * list_length(sort));
	foreach(lc, sort)
	{
		SortBy	   *sb = lfirst_node(SortBy, lc);
		ColumnRef  *cr = (ColumnRef *) sb->node;
		LimitOrderItem *it = &(*items)[i++];

		if (!IsA(cr, ColumnRef) || list_length(cr->fields) != 1 ||
			!IsA(linitial(cr->fields), String) || sb->sortby_dir == SORTBY_USING)
			return false;
		it->attnum = get_attnum(t->relid, strVal(linitial(cr->fields)));
		if (it->attnum <= 0)
			return false;
		it->desc = (sb->sortby_dir == SORTBY_DESC);
		/* ORDER BY's default: NULLS LAST ascending, NULLS FIRST descending */
		it->nulls_first = sb->sortby_nulls == SORTBY_NULLS_DEFAULT ? it->desc :
			sb->sortby_nulls == SORTBY_NULLS_FIRST;
	}
	*nitems = i;
	return true;
}

/*
 * orders_totally
 *		Does order_by name every primary key column?  Then no two rows tie
 *		on it, and any two ways of taking its first N rows take the same.
 */
static bool
orders_totally(SubsetTable *t, LimitOrderItem *items, int nitems)
{
	for (int k = 0; k < t->pk.n; k++)
	{
		bool		found = false;

		for (int i = 0; i < nitems && !found; i++)
			found = (items[i].attnum == t->pk.attnums[k]);
		if (!found)
			return false;
	}
	return true;
}

/*
 * is_btree
 *		Is relation indexrelid (an index) a btree?
 */
static bool
is_btree(Oid indexrelid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(indexrelid));
	bool		btree;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for relation %u", indexrelid);
	btree = ((Form_pg_class) GETSTRUCT(tup))->relam == BTREE_AM_OID;
	ReleaseSysCache(tup);
	return btree;
}

/*
 * index_fits
 *		Is index row it (pg_index) a valid, non-partial btree whose key
 *		columns begin with the per columns (in any order), followed by the
 *		order_by columns in order, each by its type's default operator
 *		class and its own collation (as ORDER BY compares a column), all in
 *		order_by's directions or all reversed (a btree scans both ways)?
 *		arg: the order_by (a LimitOrder).
 */
static bool
index_fits(SubsetTable *t, HeapTuple it, void *arg)
{
	LimitOrderItem *items = ((LimitOrder *) arg)->items;
	int			nitems = ((LimitOrder *) arg)->n;
	Form_pg_index ind = (Form_pg_index) GETSTRUCT(it);
	int			nper = t->limit_per.n;
	bool		isnull;
	oidvector  *indclass;
	oidvector  *indcoll;
	int2vector *indoption;
	int			flip = -1;

	if (!ind->indisvalid || ind->indnkeyatts < nper + nitems ||
		!heap_attisnull(it, Anum_pg_index_indpred, NULL) ||
		!is_btree(ind->indexrelid))
		return false;
	for (int i = 0; i < nper; i++)
	{
		bool		in = false;

		for (int j = 0; j < nper; j++)
			in |= (ind->indkey.values[i] == t->limit_per.attnums[j]);
		if (!in)
			return false;
	}
	indclass = (oidvector *) DatumGetPointer(SysCacheGetAttr(INDEXRELID, it, Anum_pg_index_indclass, &isnull));
	Assert(!isnull);
	indcoll = (oidvector *) DatumGetPointer(SysCacheGetAttr(INDEXRELID, it, Anum_pg_index_indcollation, &isnull));
	Assert(!isnull);
	indoption = (int2vector *) DatumGetPointer(SysCacheGetAttr(INDEXRELID, it, Anum_pg_index_indoption, &isnull));
	Assert(!isnull);
	for (int i = 0; i < nitems; i++)
	{
		int			c = nper + i;
		Oid			typid;
		int32		typmod;
		Oid			coll;
		int			opt = indoption->values[c];
		bool		same;

		if (ind->indkey.values[c] != items[i].attnum)
			return false;
		get_atttypetypmodcoll(t->relid, items[i].attnum, &typid, &typmod, &coll);
		if (indclass->values[c] != GetDefaultOpClass(typid, BTREE_AM_OID) ||
			indcoll->values[c] != coll)
			return false;
		same = (((opt & INDOPTION_DESC) != 0) == items[i].desc &&
				((opt & INDOPTION_NULLS_FIRST) != 0) == items[i].nulls_first);
		if (!same && (((opt & INDOPTION_DESC) != 0) == items[i].desc ||
					  ((opt & INDOPTION_NULLS_FIRST) != 0) == items[i].nulls_first))
			return false;		/* neither this way nor backwards */
		if (flip >= 0 && flip != !same)
			return false;
		flip = !same;
	}
	return true;
}

/*
 * planner_limit_by_index
 *		Can table t's limit be taken as a top-N per value: does its order_by
 *		order the rows totally, and does an index find each value's first
 *		rows (index_fits)?
 */
bool
planner_limit_by_index(SubsetTable *t)
{
	LimitOrder	order;

	if (!order_items(t, &order.items, &order.n) ||
		!orders_totally(t, order.items, order.n))
		return false;
	return planner_any_index(t, index_fits, &order);
}

/*
 * planner_limit_window
 *		"SELECT <key> FROM (SELECT <key>, row_number() OVER (PARTITION BY
 *		per ORDER BY order_by) ... FROM t WHERE pred) ... WHERE rn <= N":
 *		the keys of the rows t's limit keeps among those pred selects,
 *		numbered in a window over all of them.
 */
char *
planner_limit_window(SubsetTable *t, const char *pred)
{
	const char *alias = planner_alias(t);
	StringInfoData q;

	initStringInfo(&q);
	appendStringInfoString(&q, "SELECT ");
	subset_append_cols(&q, "exwiw_l", &t->pk);
	appendStringInfoString(&q, " FROM (SELECT ");
	subset_append_cols(&q, alias, &t->pk);
	appendStringInfoString(&q, ", pg_catalog.row_number() OVER (");
	if (t->limit_per.n > 0)
	{
		appendStringInfoString(&q, "PARTITION BY ");
		subset_append_cols(&q, alias, &t->limit_per);
		appendStringInfoChar(&q, ' ');
	}
	appendStringInfo(&q, "ORDER BY\n%s\n) AS exwiw_rn FROM %s WHERE %s) AS exwiw_l WHERE exwiw_l.exwiw_rn OPERATOR(pg_catalog.<=) " INT64_FORMAT,
					 t->limit_order, subset_relation_sql(t), pred, t->limit_rows);
	return q.data;
}

/*
 * append_top
 *		"(SELECT <key> FROM t WHERE <conds> AND pred ORDER BY order_by LIMIT
 *		N) AS exwiw_l": the first rows of one group; conds (NULL: none) a
 *		list of conditions ending with " AND ".
 */
static void
append_top(StringInfo q, SubsetTable *t, const char *conds, const char *pred)
{
	appendStringInfoString(q, "(SELECT ");
	subset_append_cols(q, planner_alias(t), &t->pk);
	appendStringInfo(q, " FROM %s WHERE %s%s ORDER BY\n%s\nLIMIT " INT64_FORMAT ") AS exwiw_l",
					 subset_relation_sql(t), conds ? conds : "", pred, t->limit_order,
					 t->limit_rows);
}

/*
 * planner_limit_top
 *		The keys of the rows t's limit keeps among those pred selects, as a
 *		top-N per value (planner_limit_by_index has said yes):
 *		values is a query whose rows hold every value of cols (t's per
 *		columns, in the query's column order; its types srccols) that a row
 *		of pred holds, more do no harm; NULL without per.  A row with a NULL
 *		in cols matches no value: with nulls (one per column), the group of
 *		the rows whose per is NULL is taken too, as the window's
 *		PARTITION BY makes them one group; without, the caller knows pred
 *		selects no such row.
 */
char *
planner_limit_top(SubsetTable *t, const char *pred, const char *values,
				  const SubsetCols *cols, const SubsetCols *srccols, bool nulls)
{
	const char *alias = planner_alias(t);
	StringInfoData q;
	StringInfoData conds;

	Assert((values == NULL) == (t->limit_per.n == 0));
	Assert(!nulls || t->limit_per.n == 1);
	initStringInfo(&q);
	appendStringInfoString(&q, "SELECT ");
	subset_append_cols(&q, "exwiw_l", &t->pk);
	appendStringInfoString(&q, " FROM ");
	if (values == NULL)
	{
		append_top(&q, t, NULL, pred);
		return q.data;
	}
	Assert(cols->n == srccols->n && cols->n == t->limit_per.n);
	appendStringInfo(&q, "(%s) AS exwiw_v(", values);
	for (int k = 0; k < cols->n; k++)
		appendStringInfo(&q, "%sexwiw_v%d", k ? ", " : "", k + 1);
	appendStringInfoString(&q, ") CROSS JOIN LATERAL ");
	initStringInfo(&conds);
	for (int k = 0; k < cols->n; k++)
	{
		subset_append_eq(&conds, psprintf("%s.%s", alias, quote_identifier(cols->names[k])),
						 cols->typids[k], psprintf("exwiw_v.exwiw_v%d", k + 1),
						 srccols->typids[k]);
		appendStringInfoString(&conds, " AND ");
	}
	append_top(&q, t, conds.data, pred);
	if (nulls)
	{
		appendStringInfoString(&q, " UNION ALL SELECT ");
		subset_append_cols(&q, "exwiw_l", &t->pk);
		appendStringInfoString(&q, " FROM ");
		append_top(&q, t, psprintf("%s.%s IS NULL AND ", alias,
								   quote_identifier(cols->names[0])), pred);
	}
	return q.data;
}

/*
 * planner_limit_skip_scan
 *		A query of the distinct non-NULL values of t's one per column in
 *		the whole table, each found by one descent of the index that leads
 *		with it (a recursive "the next value above the last"), or NULL when
 *		per is not one column or its type's default btree family has no
 *		"greater than".  For a seed of every row (nothing else says which
 *		values the tenant's rows hold): in a seed narrowed to a tenant, the
 *		other tenants' values would each cost a walk over their rows.
 *		*nulls: may the column hold NULLs (a group the values miss)?
 */
char *
planner_limit_skip_scan(SubsetTable *t, bool *nulls)
{
	const char *alias = planner_alias(t);
	const char *rel = subset_relation_sql(t);
	char	   *col;
	Oid			opclass;
	Oid			gt;
	HeapTuple	tup;
	Form_pg_operator form;
	char	   *op;

	if (t->limit_per.n != 1)
		return NULL;
	tup = SearchSysCache2(ATTNUM, ObjectIdGetDatum(t->relid),
						  Int16GetDatum(t->limit_per.attnums[0]));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for attribute %d of relation %u",
			 t->limit_per.attnums[0], t->relid);
	*nulls = !((Form_pg_attribute) GETSTRUCT(tup))->attnotnull;
	ReleaseSysCache(tup);
	opclass = GetDefaultOpClass(t->limit_per.typids[0], BTREE_AM_OID);
	if (!OidIsValid(opclass))
		return NULL;
	gt = get_opfamily_member(get_opclass_family(opclass), t->limit_per.typids[0],
							 t->limit_per.typids[0], BTGreaterStrategyNumber);
	if (!OidIsValid(gt))
		return NULL;
	tup = SearchSysCache1(OPEROID, ObjectIdGetDatum(gt));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for operator %u", gt);
	form = (Form_pg_operator) GETSTRUCT(tup);
	op = psprintf("OPERATOR(%s.%s)", quote_identifier(get_namespace_name(form->oprnamespace)),
				  NameStr(form->oprname));
	ReleaseSysCache(tup);
	col = psprintf("%s.%s", alias, quote_identifier(t->limit_per.names[0]));
	return psprintf("WITH RECURSIVE exwiw_k(v) AS ((SELECT %s FROM %s WHERE %s IS NOT NULL ORDER BY %s LIMIT 1) "
					"UNION ALL SELECT (SELECT %s FROM %s WHERE %s %s exwiw_k.v ORDER BY %s LIMIT 1) "
					"FROM exwiw_k WHERE exwiw_k.v IS NOT NULL) "
					"SELECT exwiw_k.v FROM exwiw_k WHERE exwiw_k.v IS NOT NULL",
					col, rel, col, col, col, rel, col, op, col);
}
