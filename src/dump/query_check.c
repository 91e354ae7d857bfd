/*-------------------------------------------------------------------------
 *
 * query_check.c
 *	  Refuse anything but a single read-only SELECT, and result columns
 *	  that cannot be written back.
 *
 * The "query" argument of every exwiw exporter is run with the caller's
 * privileges (row-level security applies as usual), inside a read-only
 * window.  Here we check, before the cursor is opened, that it is one plain
 * SELECT (or VALUES or TABLE): no DML even with RETURNING, no data-modifying
 * WITH, no SELECT INTO, no FOR UPDATE/SHARE, no utility statement, and not
 * several statements.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"

#include "nodes/nodeFuncs.h"
#include "nodes/parsenodes.h"
#include "tcop/cmdtag.h"

/*
 * has_row_marks_walker
 *		True if a Query in the tree (the top one, a subquery in FROM, a CTE
 *		or a sublink) locks rows with FOR UPDATE/SHARE.
 */
static bool
has_row_marks_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		Query	   *q = (Query *) node;

		if (q->rowMarks != NIL)
			return true;
		return query_tree_walker(q, has_row_marks_walker, context, 0);
	}
	return expression_tree_walker(node, has_row_marks_walker, context);
}

/*
 * exwiw_check_statements
 *		Error out unless the query string held exactly one statement.
 */
void
exwiw_check_statements(int nstatements)
{
	if (nstatements == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("query is empty"),
				 errhint("Pass a SELECT statement.")));
	if (nstatements != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("query must be a single SELECT statement"),
				 errdetail("The query string contains %d statements.", nstatements),
				 errhint("Remove the other statements, or export each query with a call of its own.")));
}

/*
 * exwiw_check_query
 *		Error out unless querytrees (the analyzed and rewritten form of one
 *		statement whose command tag is tag) is one read-only SELECT.
 */
void
exwiw_check_query(List *querytrees, CommandTag tag)
{
	ListCell   *lc;

	if (list_length(querytrees) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("query must be a single SELECT statement"),
				 errdetail("The query was rewritten into %d statements by rules.",
						   list_length(querytrees))));

	foreach(lc, querytrees)
	{
		Query	   *q = lfirst_node(Query, lc);

		if (q->utilityStmt != NULL && IsA(q->utilityStmt, CreateTableAsStmt))
			ereport(ERROR,
					(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
					 errmsg("query must be a read-only SELECT, not SELECT INTO or CREATE TABLE AS"),
					 errdetail("exwiw exports data; it never runs statements that change it."),
					 errhint("Remove the INTO clause.")));
		if (q->commandType != CMD_SELECT || q->utilityStmt != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
					 errmsg("query must be a read-only SELECT, not %s",
							GetCommandTagName(tag)),
					 errdetail("exwiw exports data; it never runs statements that change it."),
					 errhint("To export rows returned by a data-modifying statement, run it first and export the result with a SELECT.")));
		if (q->hasModifyingCTE)
			ereport(ERROR,
					(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
					 errmsg("query must be read-only"),
					 errdetail("The query contains a data-modifying statement in WITH."),
					 errhint("Remove the INSERT, UPDATE or DELETE from the WITH clause.")));
		if (has_row_marks_walker((Node *) q, NULL))
			ereport(ERROR,
					(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
					 errmsg("query must be read-only"),
					 errdetail("The query locks rows with FOR UPDATE or FOR SHARE."),
					 errhint("Remove the locking clause; the export reads one consistent snapshot without it.")));
	}
}

/*
 * exwiw_check_column_names
 *		Error out on result columns that would not make a loadable statement
 *		or document: duplicates, and unnamed expressions ("?column?").
 */
void
exwiw_check_column_names(TupleDesc desc)
{
	int			i,
				j;

	if (desc->natts == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("query returns no columns"),
				 errhint("Select at least one column.")));

	for (i = 0; i < desc->natts; i++)
	{
		const char *name = NameStr(TupleDescAttr(desc, i)->attname);

		if (strcmp(name, "?column?") == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_COLUMN_REFERENCE),
					 errmsg("result column %d has no name", i + 1),
					 errdetail("PostgreSQL named the expression \"?column?\"; the output needs a real column name."),
					 errhint("Give the expression an alias, for example: SELECT 1 AS id.")));
		for (j = 0; j < i; j++)
		{
			if (strcmp(name, NameStr(TupleDescAttr(desc, j)->attname)) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_DUPLICATE_COLUMN),
						 errmsg("column name \"%s\" appears more than once in the query result",
								name),
						 errdetail("Result columns %d and %d are both named \"%s\".",
								   j + 1, i + 1, name),
						 errhint("Alias the columns so that every name is distinct.")));
		}
	}
}
