/*-------------------------------------------------------------------------
 *
 * run/delete.c
 *	  A delete file written (plan/delete.c says what it holds and decides
 *	  its statements): the file's own query on the run's row sets and
 *	  snapshot, its keys written bulk_insert_chunk_size to a DELETE by the
 *	  writer below, after the prologue the plan made.
 *
 *-------------------------------------------------------------------------
 */
#include "subset/plan/planner.h"

#include "catalog/pg_type_d.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

/*
 * Keys of several columns to a statement, at most: the server turns "(a, b)
 * IN ((...), ...)" into one comparison per row, and 12,000 rows of two
 * columns exceed the default max_stack_depth (2 MB) where 6,000 do not.
 */
#define DELETE_ROW_KEYS		1000

/* The writer of a delete file: its state. */
typedef struct DeleteWriter
{
	ExwiwWriter pub;
	char	   *prologue;		/* settings lines and the chain's statement */
	char	   *head;			/* "DELETE FROM t\nWHERE t.id" */
	uint64		statements;		/* DELETE statements written so far */
} DeleteWriter;

/*
 * dw_row
 *		One statement per row of the key query (the stream puts each on
 *		its own line): the file's prologue for the first, then "DELETE
 *		FROM t\nWHERE t.id = '1';" for a single key,
 *		"... IN ('1', '2');" for several.  The row is (count, the keys as
 *		literals joined by ", ").
 */
static void
dw_row(ExwiwWriter *w, StringInfo buf, TupleTableSlot *slot, uint64 rowno)
{
	DeleteWriter *dw = (DeleteWriter *) w;
	bool		isnull;
	int64		n;
	char	   *keys;

	n = DatumGetInt64(slot_getattr(slot, 1, &isnull));
	if (isnull)
		elog(ERROR, "delete key count is NULL");
	if (rowno == 0)
	{
		/* the first row, (0, NULL): the prologue, without its last "\n" */
		if (n != 0)
			elog(ERROR, "unexpected first row of the delete key query");
		appendBinaryStringInfo(buf, dw->prologue, strlen(dw->prologue) - 1);
		return;
	}
	dw->statements++;
	keys = TextDatumGetCString(slot_getattr(slot, 2, &isnull));
	if (isnull)
		elog(ERROR, "delete keys are NULL");
	appendStringInfoString(buf, dw->head);
	appendStringInfo(buf, n == 1 ? " = %s;" : " IN (%s);", keys);
}

/*
 * dw_begin
 *		Check the shape of the key query's result.
 */
static void
dw_begin(ExwiwWriter *w, TupleDesc desc, MemoryContext cxt)
{
	if (desc->natts != 2 || TupleDescAttr(desc, 0)->atttypid != INT8OID ||
		TupleDescAttr(desc, 1)->atttypid != TEXTOID)
		elog(ERROR, "unexpected result of the delete key query");
}

/*
 * key_query
 *		The query that reads the keys of file `file`'s rows, wrapping the
 *		file's own query (sql, on the same row sets): a first row (0,
 *		NULL), then one row per statement, (number of keys, the keys as
 *		literals "'1', '2'", or
 *		"('1', 'a'), ..." for a key of several columns), in the file's
 *		order.  Each key value is its text output ('' doubled: the file sets
 *		standard_conforming_strings), in the C collation: a key of a
 *		nondeterministic collation cannot be searched for a quote.  With keys (a condition on exwiw_d,
 *		the file's row), only the rows it holds, in key order: a filter over
 *		the file's query keeps no order of its own.
 */
static char *
key_query(SubsetTable *t, const char *sql, const char *keys,
		  int64 per_statement)
{
	StringInfoData q;
	int			k;

	initStringInfo(&q);
	appendStringInfoString(&q, "SELECT exwiw_g.n, exwiw_g.l FROM ("
						   "SELECT CAST(0 AS pg_catalog.int8) AS n, CAST(NULL AS pg_catalog.text) AS l, CAST(-1 AS pg_catalog.int8) AS g"
						   " UNION ALL "
						   "SELECT pg_catalog.count(*), pg_catalog.string_agg(exwiw_k.l, ', ' ORDER BY exwiw_k.r),"
						   " (exwiw_k.r OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog./) ");
	appendStringInfo(&q, INT64_FORMAT " FROM (SELECT ", per_statement);
	if (t->pk.n == 0)
		appendStringInfoString(&q, "CAST(NULL AS pg_catalog.text)");
	if (t->pk.n > 1)
		appendStringInfoString(&q, "'(' OPERATOR(pg_catalog.||) ");
	for (k = 0; k < t->pk.n; k++)
		appendStringInfo(&q, "%s'''' OPERATOR(pg_catalog.||) pg_catalog.replace(CAST(exwiw_d.%s AS pg_catalog.text) COLLATE pg_catalog.\"C\", '''', '''''') OPERATOR(pg_catalog.||) ''''",
						 k > 0 ? " OPERATOR(pg_catalog.||) ', ' OPERATOR(pg_catalog.||) " : "",
						 quote_identifier(t->pk.names[k]));
	if (t->pk.n > 1)
		appendStringInfoString(&q, " OPERATOR(pg_catalog.||) ')'");
	appendStringInfoString(&q, " AS l, pg_catalog.row_number() OVER (");
	if (keys && t->pk.n > 0)
	{
		appendStringInfoString(&q, "ORDER BY ");
		subset_append_cols(&q, "exwiw_d", &t->pk);
	}
	appendStringInfo(&q, ") AS r FROM (%s) AS exwiw_d", sql);
	if (keys)
		appendStringInfo(&q, " WHERE %s", keys);
	appendStringInfoString(&q, ") AS exwiw_k");
	appendStringInfoString(&q, " GROUP BY 3) AS exwiw_g ORDER BY exwiw_g.g");
	return q.data;
}

/*
 * subset_delete_open_file
 *		Open the stream of the delete file of file number `file` of a
 *		prepared plan (subset_delete_wanted), in cxt; server_file as for
 *		subset_export_open_file.  If statements is not NULL, *statements
 *		points at the number of DELETE statements the stream has written so
 *		far (the file's "rows"; the stream's own row count also counts the
 *		row that carries the prologue).
 */
ExwiwStream *
subset_delete_open_file(SubsetPlan *plan, SubsetRun *run, int file,
						bool server_file, MemoryContext cxt,
						const uint64 **statements)
{
	SubsetFile *f = &plan->files[file];
	SubsetTable *t = &plan->cfg->tables[f->table];
	MemoryContext old = MemoryContextSwitchTo(cxt);
	DeleteWriter *dw = palloc0(sizeof(DeleteWriter));
	StringInfoData s;
	ExwiwQuery	q;
	ExwiwStream *stream;
	int64		per_statement;
	int			k;

	/*
	 * a self-referencing table's rows reference each other: one statement;
	 * keys of several columns at most DELETE_ROW_KEYS to a statement; a file
	 * with no row to delete by key (or no key) reads none
	 */
	per_statement = Max(t->chunk, 1);
	if (t->pk.n > 1)
		per_statement = Min(per_statement, DELETE_ROW_KEYS);
	if (f->depth_query)
		per_statement = PG_INT64_MAX;
	subset_run_query_over(run, file,
						  key_query(t, f->query,
									(f->delete_by_key && t->pk.n > 0) ?
									f->delete_keys : "false",
									per_statement),
						  f->delete_deps, f->delete_fragment, &q);
	q.context = psprintf("exwiw_export, table \"%s\", file %s", t->name,
						 f->delete_name);

	initStringInfo(&s);
	appendStringInfoString(&s, exwiw_sql_file_prologue(EXWIW_SQL_FILE, server_file));
	if (f->delete_cond)
	{
		appendStringInfoString(&s, "DELETE FROM ");
		exwiw_append_table_name(&s, t->outname);
		appendStringInfo(&s, "\nWHERE %s;\n", f->delete_cond);
		dw->statements = 1;
	}
	dw->prologue = s.data;

	initStringInfo(&s);
	appendStringInfoString(&s, "DELETE FROM ");
	exwiw_append_table_name(&s, t->outname);
	appendStringInfoString(&s, "\nWHERE ");
	if (t->pk.n > 1)
		appendStringInfoChar(&s, '(');
	for (k = 0; k < t->pk.n; k++)
	{
		if (k > 0)
			appendStringInfoString(&s, ", ");
		subset_delete_append_qualified(&s, t, t->pk.names[k]);
	}
	if (t->pk.n > 1)
		appendStringInfoChar(&s, ')');
	dw->head = s.data;

	dw->pub.begin = dw_begin;
	dw->pub.row = dw_row;
	if (statements)
		*statements = &dw->statements;
	stream = exwiw_stream_open("exwiw_export", &q, (ExwiwWriter *) dw,
							   EXWIW_DEFAULT_CHUNK_BYTES, cxt);
	MemoryContextSwitchTo(old);
	return stream;
}
