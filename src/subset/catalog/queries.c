/*-------------------------------------------------------------------------
 *
 * catalog/queries.c
 *	  Relations offered from the joins the application runs: the query
 *	  texts pg_stat_statements keeps, read by the server's own parser.
 *
 * An application that joins tickets to users on "u.id = t.assignee_id"
 * says what its models know.  Where the extension pg_stat_statements is
 * installed (and loaded: its view errors otherwise) and its view readable,
 * exwiw_config_from_catalog reads the normalized texts of the current
 * database's statements (at most MAX_QUERIES, the most called first) and
 * parses each with raw_parser() (a "$1" parameter parses as any value; a
 * text that does not parse, a utility statement, or one the caller may not
 * see, "<insufficient privilege>", is skipped).  In each statement it
 * collects the tables of the FROM lists (RangeVar: an alias, or the
 * table's own name, names it; a name that means two tables in one
 * statement means neither) and the equalities between two qualified column
 * references, in join conditions and WHERE clauses alike, at any depth.
 * An equality "a.x = b.y" where y is b's one-column primary key and x is
 * not a's is a relation a.x -> b, which is offered as a proposal ("the
 * joins of N calls of K queries"), unless a foreign key, declared or
 * inferred, already covers a.x.  Tables are resolved under the caller's
 * search_path and must be tables of the config.
 *
 * Nothing of a query text leaves this file but table and column names: a
 * normalized text holds no constants, and the evidence counts calls.
 *
 *-------------------------------------------------------------------------
 */
#include "subset/subset.h"
#include "common/compat.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/parsenodes.h"
#include "parser/parser.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#define MAX_QUERIES		5000	/* statements read, the most called first */

/* A name of a FROM list: an alias, or a table's own name. */
typedef struct FromName
{
	char	   *name;
	Oid			relid;			/* InvalidOid: ambiguous, or not a table */
} FromName;

/* One statement being walked. */
typedef struct QueryWalk
{
	List	   *names;			/* FromName */
	List	   *pairs;			/* ColumnRef *, two by two */
} QueryWalk;

/* A relation seen, and in how many calls of how many statements. */
typedef struct SeenJoin
{
	Oid			child;
	char	   *col;
	Oid			parent;
	char	   *key;
	int64		calls;
	int			queries;
	int			last_query;		/* the statement that counted it last */
} SeenJoin;

/*
 * add_from_name
 *		Name name means table relid in this statement (or nothing, when it
 *		already meant another).
 */
static void
add_from_name(QueryWalk *w, const char *name, Oid relid)
{
	ListCell   *lc;
	FromName   *fn;

	foreach(lc, w->names)
	{
		fn = lfirst(lc);
		if (strcmp(fn->name, name) == 0)
		{
			if (fn->relid != relid)
				fn->relid = InvalidOid;
			return;
		}
	}
	fn = palloc(sizeof(FromName));
	fn->name = pstrdup(name);
	fn->relid = relid;
	w->names = lappend(w->names, fn);
}

/*
 * query_walker
 *		raw_expression_tree_walker callback: collect the RangeVars (with
 *		their aliases) and the equalities of two qualified column
 *		references.
 */
static bool
query_walker(Node *node, void *context)
{
	QueryWalk  *w = context;

	if (node == NULL)
		return false;
	check_stack_depth();
	if (IsA(node, RangeVar))
	{
		RangeVar   *rv = (RangeVar *) node;
		Oid			relid = RangeVarGetRelid(rv, NoLock, true);

		add_from_name(w, rv->alias ? rv->alias->aliasname : rv->relname, relid);
		return false;
	}
	if (IsA(node, A_Expr))
	{
		A_Expr	   *e = (A_Expr *) node;

		if (e->kind == AEXPR_OP && list_length(e->name) == 1 &&
			strcmp(strVal(linitial(e->name)), "=") == 0 &&
			e->lexpr && e->rexpr && IsA(e->lexpr, ColumnRef) && IsA(e->rexpr, ColumnRef) &&
			list_length(((ColumnRef *) e->lexpr)->fields) == 2 &&
			list_length(((ColumnRef *) e->rexpr)->fields) == 2 &&
			IsA(llast(((ColumnRef *) e->lexpr)->fields), String) &&
			IsA(llast(((ColumnRef *) e->rexpr)->fields), String))
		{
			w->pairs = lappend(w->pairs, e->lexpr);
			w->pairs = lappend(w->pairs, e->rexpr);
		}
	}
	return raw_expression_tree_walker(node, query_walker, context);
}

/*
 * walk_statement
 *		Walk a DML statement (others are passed over); false when the raw
 *		walker does not know one of its nodes (the text is then skipped).
 */
static bool
walk_statement(Node *stmt, QueryWalk *w)
{
	MemoryContext old = CurrentMemoryContext;
	volatile bool ok = true;

	if (!IsA(stmt, SelectStmt) && !IsA(stmt, InsertStmt) &&
		!IsA(stmt, UpdateStmt) && !IsA(stmt, DeleteStmt))
		return true;
	PG_TRY();
	{
		(void) query_walker(stmt, w);
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(old);
		FlushErrorState();
		ok = false;
	}
	PG_END_TRY();
	return ok;
}

/*
 * from_relid
 *		The table a qualified column reference's first name means in the
 *		statement, or InvalidOid.
 */
static Oid
from_relid(QueryWalk *w, ColumnRef *cr)
{
	const char *name = strVal(linitial(cr->fields));
	ListCell   *lc;

	foreach(lc, w->names)
	{
		FromName   *fn = lfirst(lc);

		if (strcmp(fn->name, name) == 0)
			return fn->relid;
	}
	return InvalidOid;
}

/*
 * config_table
 *		Is relid a table of the config?
 */
static bool
config_table(SubsetCatTable *tables, int n, Oid relid)
{
	int			i;

	for (i = 0; i < n; i++)
		if (tables[i].relid == relid)
			return true;
	return false;
}

/*
 * count_join
 *		Count child.col -> parent.key, seen in statement q with calls calls.
 */
static List *
count_join(List *seen, Oid child, const char *col, Oid parent, const char *key,
		   int64 calls, int q)
{
	ListCell   *lc;
	SeenJoin   *s;

	foreach(lc, seen)
	{
		s = lfirst(lc);
		if (s->child == child && s->parent == parent && strcmp(s->col, col) == 0)
		{
			if (s->last_query != q)
			{
				s->calls += calls;
				s->queries++;
				s->last_query = q;
			}
			return seen;
		}
	}
	s = palloc0(sizeof(SeenJoin));
	s->child = child;
	s->col = pstrdup(col);
	s->parent = parent;
	s->key = pstrdup(key);
	s->calls = calls;
	s->queries = 1;
	s->last_query = q;
	return lappend(seen, s);
}

/*
 * joins_of
 *		The relations of one query text (calls calls, number q) added to
 *		seen: each equality of a column and another table's one-column
 *		primary key, both tables of the config.
 */
static List *
joins_of(List *seen, const char *text, int64 calls, int q,
		 SubsetCatTable *tables, int n)
{
	char	   *why;
	List	   *raw = subset_parse_quietly(text, &why);
	QueryWalk	w = {NIL, NIL};
	ListCell   *lc;
	int			i;

	foreach(lc, raw)
		if (!walk_statement(((RawStmt *) lfirst(lc))->stmt, &w))
		return seen;
	for (i = 0; i + 1 < list_length(w.pairs); i += 2)
	{
		ColumnRef  *side[2] = {list_nth(w.pairs, i), list_nth(w.pairs, i + 1)};
		int			k;

		for (k = 0; k < 2; k++)
		{
			ColumnRef  *c = side[k],
					   *p = side[1 - k];
			Oid			crel = from_relid(&w, c),
						prel = from_relid(&w, p);
			const char *ccol = strVal(llast(c->fields));
			Oid			pkt,
						ckt;
			char	   *pkey,
					   *ckey;

			if (!OidIsValid(crel) || !OidIsValid(prel) ||
				!config_table(tables, n, crel) || !config_table(tables, n, prel))
				continue;
			pkey = subset_single_key(prel, &pkt);
			ckey = subset_single_key(crel, &ckt);
			if (pkey == NULL || strcmp(pkey, strVal(llast(p->fields))) != 0 ||
				(ckey != NULL && strcmp(ckey, ccol) == 0) ||
				get_attnum(crel, ccol) == InvalidAttrNumber ||
				!subset_same_key_type(getBaseType(get_atttype(crel, get_attnum(crel, ccol))),
									  getBaseType(pkt)))
				continue;
			seen = count_join(seen, crel, ccol, prel, pkey, calls, q);
		}
	}
	return seen;
}

/*
 * read_statements
 *		The query texts and calls of the current database's statements in
 *		pg_stat_statements (in schema nsp), the most called first; NULL
 *		with *note set when the view cannot be read.  Under SPI.
 */
static SPITupleTable *
read_statements(const char *nsp, char **note, uint64 *n)
{
	MemoryContext outer = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	SPITupleTable *volatile tt = NULL;
	char	   *q = psprintf("SELECT s.query, s.calls FROM %s.pg_stat_statements s"
							 " WHERE s.dbid = (SELECT d.oid FROM pg_catalog.pg_database d"
							 " WHERE d.datname = pg_catalog.current_database())"
							 " AND s.query IS NOT NULL ORDER BY s.calls DESC LIMIT %d",
							 quote_identifier(nsp), MAX_QUERIES);

	/* in a subtransaction: the view errors when the library is not loaded */
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(outer);
	PG_TRY();
	{
		if (SPI_execute(q, true, 0) != SPI_OK_SELECT)
			elog(ERROR, "could not read pg_stat_statements");
		*n = SPI_processed;
		tt = SPI_tuptable;
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(outer);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		ErrorData  *ed;

		MemoryContextSwitchTo(outer);
		ed = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(outer);
		CurrentResourceOwner = owner;
		*note = psprintf("pg_stat_statements could not be read (%s): no relations were offered from the queries",
						 ed->message);
		tt = NULL;
	}
	PG_END_TRY();
	return tt;
}

/*
 * subset_propose_from_queries
 *		The relations the joins in pg_stat_statements show for tables (n of
 *		them) that fks do not cover, as proposals; *note says why none were
 *		read (the extension is not installed, not loaded, or not readable),
 *		or is NULL.
 */
List *
subset_propose_from_queries(SubsetCatTable *tables, int n, List *fks, char **note)
{
	MemoryContext cxt = CurrentMemoryContext;
	MemoryContext work;
	List	   *seen = NIL;
	List	   *out = NIL;
	int			nest = exwiw_pin_search_path();
	char	   *nsp = NULL;
	SPITupleTable *tt;
	uint64		nq = 0,
				i;
	ListCell   *lc;

	*note = NULL;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute("SELECT n.nspname::pg_catalog.text FROM pg_catalog.pg_extension e"
					" JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace"
					" WHERE e.extname = 'pg_stat_statements'", true, 0) == SPI_OK_SELECT &&
		SPI_processed == 1)
		nsp = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	exwiw_restore_settings(nest);
	if (nsp == NULL)
	{
		SPI_finish();
		*note = pstrdup("pg_stat_statements is not installed: no relations were offered from the queries the application runs");
		return NIL;
	}
	tt = read_statements(nsp, note, &nq);
	if (tt == NULL)
	{
		char	   *copy = MemoryContextStrdup(cxt, *note);

		SPI_finish();
		*note = copy;
		return NIL;
	}
	/* parsed under the caller's search_path: the application's names */
	work = AllocSetContextCreate(CurrentMemoryContext, "exwiw query joins",
								 ALLOCSET_DEFAULT_SIZES);
	for (i = 0; i < nq; i++)
	{
		bool		isnull;
		char	   *text = SPI_getvalue(tt->vals[i], tt->tupdesc, 1);
		int64		calls = DatumGetInt64(SPI_getbinval(tt->vals[i], tt->tupdesc, 2, &isnull));
		MemoryContext old;

		CHECK_FOR_INTERRUPTS();
		if (text == NULL)
			continue;
		old = MemoryContextSwitchTo(work);
		seen = joins_of(seen, text, calls, (int) i, tables, n);
		MemoryContextSwitchTo(old);
	}
	MemoryContextSwitchTo(cxt);
	foreach(lc, seen)
	{
		SeenJoin   *s = lfirst(lc);
		SubsetCatalogFk *fk;

		if (subset_fk_covers(fks, s->child, s->col) || subset_fk_covers(out, s->child, s->col))
			continue;
		fk = subset_infer_new_fk(s->child, s->parent, s->col, s->key, "the queries");
		fk->proposed = psprintf("%s.%s = %s.%s joins tables in " INT64_FORMAT " call%s of %d quer%s (pg_stat_statements)",
								get_rel_name(s->child), s->col, get_rel_name(s->parent), s->key,
								s->calls, s->calls == 1 ? "" : "s", s->queries,
								s->queries == 1 ? "y" : "ies");
		out = lappend(out, fk);
	}
	SPI_finish();
	return out;
}
