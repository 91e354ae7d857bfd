/*-------------------------------------------------------------------------
 *
 * limits.c
 *	  export --max-rows and --max-bytes: the export's exact counts, on its
 *	  own snapshot, checked before a byte is written.
 *
 * The counts are exwiw explain --exact's: exwiw_explain(..., count_rows =>
 * true) prepares the export in the export's own transaction (its first
 * statement, or after --since's, so the snapshot is the one the files are
 * then written from) and counts each file's rows, sending none: a file read
 * from the row set of its keys has that set's rows, any other is counted
 * by a count(*) of its rows.  The rows are exact.  The bytes are an estimate: the rows times the
 * planner's average width of the query's row (the top plan node's
 * "width=", from the columns' statistics), not the files' text, which
 * quoting and INSERT syntax make larger and -Z smaller.
 *
 * When the totals exceed a limit the run stops before the output
 * directory is created or touched, naming the largest tables.  Otherwise
 * the counts replace the planner's estimates in the progress display.
 *
 *-------------------------------------------------------------------------
 */
#include "cli.h"

#include <ctype.h>

/* how many of the largest tables a refusal names */
#define LIMIT_TABLES_NAMED	5

/*
 * top_width
 *		The "width=" of an EXPLAIN text's first line (its top node), or 0.
 */
static double
top_width(const char *plan)
{
	const char *nl = strchr(plan, '\n');
	const char *w = strstr(plan, " width=");

	if (w == NULL || (nl != NULL && w > nl))
		return 0;
	return strtod(w + strlen(" width="), NULL);
}

/*
 * rows_cmp, bytes_cmp
 *		qsort: the largest files first, by rows or by bytes, then by
 *		number.
 */
static int
rows_cmp(const void *a, const void *b)
{
	const ExactCount *x = a;
	const ExactCount *y = b;

	if (x->rows != y->rows)
		return x->rows > y->rows ? -1 : 1;
	return x->seq - y->seq;
}

static int
bytes_cmp(const void *a, const void *b)
{
	const ExactCount *x = a;
	const ExactCount *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return rows_cmp(a, b);
}

/*
 * exact_counts
 *		Each file's exact rows and estimated bytes, counted on conn's
 *		transaction (its snapshot: the export's), for the export params
 *		describe (export.c's $1 target, $2 ids, $3 config, $7 ids by
 *		space).  Sets *n.
 */
ExactCount *
exact_counts(PGconn *conn, const char *nsp, const char *const *params, int *n)
{
	const char *eparams[4] = {params[0], params[1], params[2], params[6]};
	char	   *sql = psprintf("SELECT e.seq, e.table_name, e.actual_rows, e.plan "
							   "FROM %s.exwiw_explain($1, $2::pg_catalog.text[], $3::pg_catalog.jsonb, false, $4::pg_catalog.jsonb, true) e "
							   "ORDER BY e.seq", nsp);
	PGresult   *res = exec_params_checked(conn, sql, 4, eparams,
										  "could not count the export's rows");
	ExactCount *c;
	int			i;

	*n = PQntuples(res);
	c = pg_malloc0(sizeof(ExactCount) * (*n + 1));
	for (i = 0; i < *n; i++)
	{
		c[i].seq = atoi(PQgetvalue(res, i, 0));
		c[i].table = pg_strdup(PQgetvalue(res, i, 1));
		c[i].rows = PQgetisnull(res, i, 2) ? 0 : strtod(PQgetvalue(res, i, 2), NULL);
		c[i].bytes = c[i].rows * top_width(PQgetvalue(res, i, 3));
	}
	PQclear(res);
	pg_free(sql);
	return c;
}

/*
 * check_limits
 *		exit(1) when the counts exceed --max-rows or --max-bytes (-1:
 *		none), naming the totals, the largest tables and what to do;
 *		nothing has been written when it is called.  Reorders c.
 */
void
check_limits(ExactCount *c, int n, long max_rows, int64 max_bytes)
{
	double		rows = 0,
				bytes = 0;
	char		a[32],
				b[32];
	StringInfoData s;
	int			i;

	for (i = 0; i < n; i++)
	{
		rows += c[i].rows;
		bytes += c[i].bytes;
	}
	if ((max_rows < 0 || rows <= max_rows) && (max_bytes < 0 || bytes <= max_bytes))
	{
		format_count(a, sizeof(a), rows);
		format_bytes(b, sizeof(b), bytes);
		pg_log_info("exact counts: %s rows, about %s, within the limits", a, b);
		return;
	}
	format_count(a, sizeof(a), rows);
	format_bytes(b, sizeof(b), bytes);
	/* the largest by what is over the limit */
	qsort(c, n, sizeof(ExactCount), max_rows >= 0 && rows > max_rows ? rows_cmp : bytes_cmp);
	if (max_rows >= 0 && rows > max_rows)
		pg_log_error("the export would write %s rows (about %s), more than --max-rows=%ld; nothing was written",
					 a, b, max_rows);
	else
		pg_log_error("the export would write about %s (%s rows), more than --max-bytes=" INT64_FORMAT " bytes; nothing was written",
					 b, a, max_bytes);
	initStringInfo(&s);
	for (i = 0; i < n && i < LIMIT_TABLES_NAMED; i++)
	{
		format_count(a, sizeof(a), c[i].rows);
		format_bytes(b, sizeof(b), c[i].bytes);
		appendStringInfo(&s, "%s%s %s rows (about %s)", i ? ", " : "", c[i].table, a, b);
	}
	pg_log_error_detail("The largest tables: %s.", s.data);
	pg_log_error_hint("Narrow the largest tables with \"limit\", \"sample\" or \"filter\" in the schema config, or --since (doc/subset.md), or raise the limit; exwiw explain --exact prints every table's rows.");
	exit(1);
}
