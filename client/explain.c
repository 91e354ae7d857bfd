/*-------------------------------------------------------------------------
 *
 * explain.c
 *	  The explain subcommand: the export's plan, one line per table.
 *
 *	  [seq/n] table -> file  ~rows  indexes: a, b  query: SELECT ...
 *
 * The estimates and indexes come from exwiw_explain(), which EXPLAINs each
 * file's extraction query where the export would run it (after computing
 * the row sets it reads, on one snapshot); the query text from
 * exwiw_plan().  --verbose adds each EXPLAIN plan, indented; --analyze runs
 * the queries (EXPLAIN ANALYZE, BUFFERS).  Nothing is written.
 *
 *-------------------------------------------------------------------------
 */
#include "cli.h"

/*
 * one_line
 *		The query with every run of whitespace as one space.
 */
static char *
one_line(const char *s)
{
	StringInfoData out;
	bool		space = false;

	initStringInfo(&out);
	for (; *s; s++)
	{
		if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
			space = true;
		else
		{
			if (space && out.len > 0)
				appendStringInfoChar(&out, ' ');
			space = false;
			appendStringInfoChar(&out, *s);
		}
	}
	return out.data;
}

/*
 * run_explain
 *		Print the plan of the export the options describe.
 */
int
run_explain(CliOptions *opts)
{
	SchemaConfig *cfg = schema_config_load(opts->schema_dir, true);
	char	   *config_text;
	IdSpace    *def = ids_find(&opts->ids, DEFAULT_ID_SPACE);
	char	   *ids = ids_array_literal(def);
	const char *params[5];
	PGconn	   *conn;
	PGresult   *res;
	char	   *nsp;
	char	   *sql;
	int			i,
				n,
				maxseq = 0;

	if (opts->scope_column)
		(void) schema_config_apply_scope_column(cfg, opts->scope_column);
	config_text = schema_config_text(cfg);

	setup_cancel_handler_multi();
	conn = exwiw_connect(opts, "explain");
	nsp = exwiw_extension_schema(conn);

	params[0] = opts->target_table;
	params[1] = ids;
	params[2] = config_text;
	params[3] = opts->analyze ? "true" : "false";
	params[4] = ids_by_space_json(&opts->ids);
	sql = psprintf("SELECT e.seq, e.table_name, e.file_name, e.estimated_rows, "
				   "pg_catalog.array_to_string(e.indexes, ', '), e.plan, p.query "
				   "FROM %s.exwiw_explain($1, $2::pg_catalog.text[], $3::pg_catalog.jsonb, $4::pg_catalog.bool, $5::pg_catalog.jsonb) e "
				   "LEFT JOIN %s.exwiw_plan($1, $2::pg_catalog.text[], $3::pg_catalog.jsonb, $5::pg_catalog.jsonb) p ON p.seq = e.seq "
				   "ORDER BY e.seq", nsp, nsp);
	exec_command(conn, "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", NULL);
	res = exec_params_checked(conn, sql, 5, params, NULL);
	n = PQntuples(res);
	for (i = 0; i < n; i++)
		maxseq = Max(maxseq, atoi(PQgetvalue(res, i, 0)));
	for (i = 0; i < n; i++)
	{
		char		rows[32];
		const char *indexes = PQgetvalue(res, i, 4);

		format_count(rows, sizeof(rows), strtod(PQgetvalue(res, i, 3), NULL));
		printf("[%s/%d] %s -> %s  ~%s rows  indexes: %s  query: %s\n",
			   PQgetvalue(res, i, 0), maxseq, PQgetvalue(res, i, 1),
			   PQgetvalue(res, i, 2), rows, indexes[0] ? indexes : "(none)",
			   one_line(PQgetvalue(res, i, 6)));
		if (opts->show_plans)
		{
			const char *p = PQgetvalue(res, i, 5);

			while (*p)
			{
				const char *nl = strchr(p, '\n');
				int			l = nl ? (int) (nl - p) : (int) strlen(p);

				printf("    %.*s\n", l, p);
				p += l + (nl ? 1 : 0);
			}
		}
	}
	PQclear(res);
	exec_command(conn, "COMMIT", NULL);
	exwiw_disconnect(conn);
	return 0;
}
