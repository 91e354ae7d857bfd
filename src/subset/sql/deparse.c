/*-------------------------------------------------------------------------
 *
 * sql/deparse.c
 *	  The SQL text of a subset plan: names, operators, key tuples, and the
 *	  check of the user's own fragments.
 *
 * Everything exwiw writes into a query is independent of the caller's
 * search_path: relations are schema-qualified, types are written with
 * format_type's forced qualification, and every comparison names its
 * operator's schema (OPERATOR(pg_catalog.=)), using the equality operator of
 * the key types' default btree operator family, as a foreign key does.  So a
 * function or operator that someone creates in a schema on the caller's path
 * is never called by exwiw.  The user's own fragments ("filter", "raw_sql")
 * resolve names in the caller's path, as the user wrote them; they are
 * checked to be one SQL expression each, so that they cannot escape the
 * parentheses they are put in.
 *
 *-------------------------------------------------------------------------
 */
#include "subset/subset.h"

#include "access/stratnum.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "nodes/parsenodes.h"
#include "parser/parser.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

/*
 * eq_operator
 *		The equality operator a foreign key would use between ltype and
 *		rtype: the member of the default btree family of either type.
 */
static Oid
eq_operator(Oid ltype, Oid rtype)
{
	Oid			lbase = getBaseType(ltype);
	Oid			rbase = getBaseType(rtype);
	TypeCacheEntry *tc;
	Oid			op;

	tc = lookup_type_cache(lbase, TYPECACHE_EQ_OPR | TYPECACHE_BTREE_OPFAMILY);
	if (lbase == rbase && OidIsValid(tc->eq_opr))
		return tc->eq_opr;
	if (OidIsValid(tc->btree_opf))
	{
		op = get_opfamily_member(tc->btree_opf, lbase, rbase, BTEqualStrategyNumber);
		if (OidIsValid(op))
			return op;
	}
	tc = lookup_type_cache(rbase, TYPECACHE_EQ_OPR | TYPECACHE_BTREE_OPFAMILY);
	if (OidIsValid(tc->btree_opf))
	{
		op = get_opfamily_member(tc->btree_opf, lbase, rbase, BTEqualStrategyNumber);
		if (OidIsValid(op))
			return op;
	}
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_FUNCTION),
			 errmsg("no equality operator between types %s and %s",
					format_type_be(ltype), format_type_be(rtype)),
			 errdetail("A key is compared with the equality operator of its type's default btree operator class.")));
	return InvalidOid;
}

/*
 * subset_append_eq
 *		Append "l OPERATOR(nsp.=) r", comparing an ltype with an rtype.
 */
void
subset_append_eq(StringInfo buf, const char *l, Oid ltype,
				 const char *r, Oid rtype)
{
	Oid			op = eq_operator(ltype, rtype);
	HeapTuple	tup = SearchSysCache1(OPEROID, ObjectIdGetDatum(op));
	Form_pg_operator form;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for operator %u", op);
	form = (Form_pg_operator) GETSTRUCT(tup);
	appendStringInfo(buf, "%s OPERATOR(%s.%s) %s", l,
					 quote_identifier(get_namespace_name(form->oprnamespace)),
					 NameStr(form->oprname), r);
	ReleaseSysCache(tup);
}

/*
 * subset_append_cols
 *		Append "alias.c1, alias.c2" (alias may be NULL).
 */
void
subset_append_cols(StringInfo buf, const char *alias, const SubsetCols *cols)
{
	int			i;

	for (i = 0; i < cols->n; i++)
	{
		if (i > 0)
			appendStringInfoString(buf, ", ");
		if (alias)
			appendStringInfo(buf, "%s.", alias);
		appendStringInfoString(buf, quote_identifier(cols->names[i]));
	}
}

/*
 * subset_append_match
 *		Append a predicate: the row's columns cols (of alias) equal one row
 *		of subquery, whose columns, in order, have the types of subcols.
 *
 * One column: "a.c OPERATOR(pg_catalog.=) ANY (subquery)".  Several: an
 * EXISTS over the subquery with positional column aliases, one qualified
 * operator per column.  Both become semi-joins in the planner.
 */
void
subset_append_match(StringInfo buf, const char *alias, const SubsetCols *cols,
					const char *subquery, const SubsetCols *subcols)
{
	StringInfoData l;
	int			i;

	Assert(cols->n == subcols->n && cols->n > 0);
	initStringInfo(&l);
	if (cols->n == 1)
	{
		appendStringInfo(&l, "%s.%s", alias, quote_identifier(cols->names[0]));
		subset_append_eq(buf, l.data, cols->typids[0],
						 psprintf("ANY (%s)", subquery), subcols->typids[0]);
		/* "ANY (...)" is the right operand of the operator */
		pfree(l.data);
		return;
	}
	appendStringInfo(buf, "EXISTS (SELECT FROM (%s) AS exwiw_m(", subquery);
	for (i = 0; i < cols->n; i++)
		appendStringInfo(buf, "%sc%d", i ? ", " : "", i + 1);
	appendStringInfoString(buf, ") WHERE ");
	for (i = 0; i < cols->n; i++)
	{
		char	   *r = psprintf("exwiw_m.c%d", i + 1);

		resetStringInfo(&l);
		appendStringInfo(&l, "%s.%s", alias, quote_identifier(cols->names[i]));
		if (i > 0)
			appendStringInfoString(buf, " AND ");
		subset_append_eq(buf, l.data, cols->typids[i], r, subcols->typids[i]);
	}
	appendStringInfoChar(buf, ')');
	pfree(l.data);
}

/*
 * subset_append_literal
 *		Append s as a string literal: ' doubled, and an E'' string when it
 *		holds a backslash, so it reads the same whatever
 *		standard_conforming_strings is.
 */
void
subset_append_literal(StringInfo buf, const char *s)
{
	appendStringInfoString(buf, quote_literal_cstr(s));
}

/*
 * subset_type_name
 *		A type name for a cast in SQL that exwiw writes: schema-qualified,
 *		with its modifier (character(2), numeric(10,2)).
 */
char *
subset_type_name(Oid typid, int32 typmod)
{
	return format_type_extended(typid, typmod,
								FORMAT_TYPE_TYPEMOD_GIVEN | FORMAT_TYPE_FORCE_QUALIFY);
}

/*
 * subset_relation_sql
 *		The FROM item that reads table t and nothing else: ONLY for an
 *		ordinary table (an inheritance child has its own config entry), the
 *		whole tree for a partitioned table.  Its implicit alias is the
 *		table's name, as a user's fragment expects.
 */
char *
subset_relation_sql(SubsetTable *t)
{
	if (t->relkind == RELKIND_PARTITIONED_TABLE)
		return t->qualname;
	return psprintf("ONLY %s", t->qualname);
}

/*
 * lone_select
 *		The statement of raw when raw is exactly one "SELECT <one target>"
 *		with no other clause but ORDER BY, which it has when sorted and has
 *		not otherwise; NULL when it is not.
 */
static SelectStmt *
lone_select(List *raw, bool sorted)
{
	RawStmt    *rs;
	SelectStmt *s;

	if (list_length(raw) != 1)
		return NULL;
	rs = linitial_node(RawStmt, raw);
	if (!IsA(rs->stmt, SelectStmt))
		return NULL;
	s = (SelectStmt *) rs->stmt;
	if (s->op != SETOP_NONE || s->intoClause || s->fromClause ||
		s->whereClause || s->groupClause || s->havingClause ||
		s->windowClause || s->valuesLists || (s->sortClause != NIL) != sorted ||
		s->limitOffset || s->limitCount || s->lockingClause ||
		s->withClause || s->distinctClause ||
		list_length(s->targetList) != 1)
		return NULL;
	return s;
}

/*
 * single_expression
 *		True when the raw parse tree of "SELECT <fragment>" is exactly one
 *		unnamed expression: no FROM, WHERE, alias, set operation or second
 *		statement.
 */
static bool
single_expression(List *raw)
{
	SelectStmt *s = lone_select(raw, false);

	return s != NULL && linitial_node(ResTarget, s->targetList)->name == NULL;
}

/*
 * subset_parse_quietly
 *		The raw parse trees of sql, or NIL with *why set to the parser's
 *		message when it does not parse (the error is caught, not raised).
 */
List *
subset_parse_quietly(const char *sql, char **why)
{
	MemoryContext old = CurrentMemoryContext;
	List	   *volatile raw = NIL;

	*why = NULL;
	PG_TRY();
	{
		raw = raw_parser(sql, RAW_PARSE_DEFAULT);
	}
	PG_CATCH();
	{
		ErrorData  *ed;

		MemoryContextSwitchTo(old);
		ed = CopyErrorData();
		FlushErrorState();
		*why = ed->message;
	}
	PG_END_TRY();
	return raw;
}

/*
 * subset_check_order_by
 *		Error out unless text, the user's SQL for key of table t, is one
 *		ORDER BY list ("ordered_at DESC, id"): it is put after ORDER BY in
 *		a window of the table's rows, and must not close it.
 */
void
subset_check_order_by(SubsetTable *t, const char *key, const char *text)
{
	char	   *why;
	List	   *raw = subset_parse_quietly(psprintf("SELECT 1 ORDER BY %s\n", text), &why);

	if (why != NULL || lone_select(raw, true) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_SYNTAX_ERROR),
				 errmsg("key \"%s\" of table \"%s\" is not a single ORDER BY list",
						key, t->name),
				 why ? errdetail("%s", why) :
				 errdetail("It parses as more than an ORDER BY list."),
				 errhint("Write what follows ORDER BY, for example \"created_at DESC, id\".")));
}

/*
 * subset_check_fragment
 *		Error out unless fragment, the user's SQL for key of table t, is one
 *		SQL expression.  A filter like "true) OR (true" would otherwise
 *		close the parentheses it is put in and select other tenants' rows.
 *
 * The fragment is put on lines of its own in the queries, so that a
 * trailing "--" comment ends with its line.
 */
void
subset_check_fragment(const char *funcname, SubsetTable *t, const char *key,
					  const char *fragment, bool is_filter)
{
	char	   *why;
	List	   *raw = subset_parse_quietly(psprintf("SELECT %s\n", fragment), &why);

	if (why != NULL || !single_expression(raw))
		ereport(ERROR,
				(errcode(ERRCODE_SYNTAX_ERROR),
				 errmsg("key \"%s\" of table \"%s\" is not a single SQL expression",
						key, t->name),
				 why ? errdetail("%s", why) :
				 errdetail("It parses as more than one expression, or as a clause of its own."),
				 is_filter ?
				 errhint("A filter is a boolean expression, as in a WHERE clause, for example \"created_at > now() - interval '30 days'\".") :
				 errhint("raw_sql is an expression that computes the column's value, for example \"NULL\" or \"'user' || id\".")));
}
