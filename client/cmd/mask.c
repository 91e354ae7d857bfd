/*-------------------------------------------------------------------------
 *
 * mask.c
 *	  The mask preview subcommand: a table's masked columns, original
 *	  beside masked.
 *
 *	  exwiw mask preview --table=users --rows=5 --schema-dir=schema
 *
 * One call of the server's exwiw_mask_preview() with the schema config,
 * in a read-only transaction: nothing is written.  The output is one line
 * per row and masked column, padded into columns:
 *
 *	  row  column  original  masked
 *
 * NULL is shown as (null).  The server refuses roles without the
 * privileges of pg_read_all_data.
 *
 *-------------------------------------------------------------------------
 */
#include "cli.h"

/*
 * cell
 *		The value of row r, column c of res, or "(null)".
 */
static const char *
cell(PGresult *res, int r, int c)
{
	return PQgetisnull(res, r, c) ? "(null)" : PQgetvalue(res, r, c);
}

/*
 * run_mask_preview
 *		Print the preview of --table (see the file header); 0 on success.
 */
int
run_mask_preview(CliOptions *opts)
{
	SchemaConfig *cfg = schema_config_load(opts->schema_dir, true);
	const char *params[3];
	char		rows[32];
	int			width[4] = {3, 6, 8, 6};
	static const char *const head[4] = {"row", "column", "original", "masked"};
	PGconn	   *conn;
	PGresult   *res;
	char	   *sql;
	int			i,
				c,
				n;

	snprintf(rows, sizeof(rows), "%ld", opts->preview_rows);
	params[0] = schema_config_text(cfg);
	params[1] = opts->dump_table;
	params[2] = rows;

	setup_cancel_handler_multi();
	conn = exwiw_connect(opts, "mask preview");
	sql = psprintf("SELECT row_number, column_name, original, masked "
				   "FROM %s.exwiw_mask_preview($1::pg_catalog.jsonb, $2, $3::pg_catalog.int4)",
				   exwiw_extension_schema(conn));
	exec_command(conn, "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", NULL);
	res = exec_params_checked(conn, sql, 3, params, NULL);
	n = PQntuples(res);
	for (i = 0; i < n; i++)
		for (c = 0; c < 4; c++)
			width[c] = Max(width[c], (int) strlen(cell(res, i, c)));
	printf("%-*s  %-*s  %-*s  %s\n", width[0], head[0], width[1], head[1],
		   width[2], head[2], head[3]);
	for (i = 0; i < n; i++)
		printf("%-*s  %-*s  %-*s  %s\n", width[0], cell(res, i, 0),
			   width[1], cell(res, i, 1), width[2], cell(res, i, 2),
			   cell(res, i, 3));
	PQclear(res);
	exec_command(conn, "COMMIT", NULL);
	PQfinish(conn);
	return 0;
}
