/*-------------------------------------------------------------------------
 *
 * explain.c
 *	  The explain subcommand: the export's plan, one line per table.
 *
 *	  [seq/n] table -> file  ~rows  rule: ...  indexes: a, b  query: SELECT ...
 *
 * or, with --format=json, the same as one JSON object for scripts.  The
 * rule is exwiw_plan()'s: why the table's rows are the ones exported.  The
 * estimates and indexes come from exwiw_explain(), which EXPLAINs each
 * file's extraction query where the export would run it (after computing
 * the row sets it reads, on one snapshot); the query text from
 * exwiw_plan().  --verbose adds each EXPLAIN plan, indented; --analyze runs
 * the queries (EXPLAIN ANALYZE, BUFFERS); --exact counts each file's rows
 * without running its query where its row set holds them (exwiw_explain's
 * count_rows).  Nothing is written.
 *
 * Exit status 1 exactly when the export would refuse (safe mode, without
 * --allow-undecided), naming every decision it waits for as the export's
 * refusal does: the config's undecided columns and polymorphic arms, and
 * the tables whose rule is UNDECIDED (with --format=json also as
 * "needs_decision").
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
 * joined
 *		The strings of JSON array a, joined by ", ", for a message.
 */
static char *
joined(const JsonValue *a)
{
	StringInfoData s;
	int			i;

	initStringInfo(&s);
	for (i = 0; i < a->n; i++)
		appendStringInfo(&s, "%s%s", i ? ", " : "", a->items[i]->str);
	return s.data;
}

/*
 * json_str / json_num
 *		Leaves of the JSON plan.
 */
static JsonValue *
json_str(const char *s)
{
	return json_new(JV_STRING, s);
}

static JsonValue *
json_num(const char *s)
{
	return s[0] ? json_new(JV_NUMBER, s) : json_new(JV_NULL, NULL);
}

/*
 * text_array_json
 *		A text[] as exwiw_explain returns it, read as JSON: the query
 *		gives it as array_to_json text.
 */
static JsonValue *
text_array_json(const char *s)
{
	char	   *err = NULL;
	JsonValue  *v = json_parse(s, strlen(s), &err);

	return v ? v : json_new(JV_ARRAY, NULL);
}

/*
 * run_explain
 *		Print the plan of the export the options describe: one line per
 *		file, with the rule that chose its rows (exwiw_plan's rule: the
 *		arms of a scoped table, "every row" of one that goes out in full
 *		and why), or, with --format=json, the plan as one JSON object:
 *
 *		{"target_table": ..., "ids": [...], "tables": [{"seq", "table",
 *		 "file", "rule", "estimated_rows", "indexes", "query"[, "plan"]}],
 *		 "steps": [{"step", "table", "output", "rule"}]}
 *
 *		"tables" in file order; "steps" are the row sets computed before
 *		the files (seeds, closures), in the order the export computes them.
 */
int
run_explain(CliOptions *opts)
{
	SchemaConfig *cfg = schema_config_load(opts->schema_dir, true);
	char	   *config_text;
	IdSpace    *def = ids_find(&opts->ids, DEFAULT_ID_SPACE);
	char	   *ids = ids_array_literal(def);
	const char *params[6];
	bool		json = opts->explain_format && strcmp(opts->explain_format, "json") == 0;
	PGconn	   *conn;
	PGresult   *res;
	char	   *nsp;
	char	   *sql;
	int			i,
				n,
				maxseq = 0;
	JsonValue  *top = NULL,
			   *tables = NULL;
	JsonValue  *undecided_cols = json_new(JV_ARRAY, NULL),
			   *undecided_tables = json_new(JV_ARRAY, NULL),
			   *undecided_arms = json_new(JV_ARRAY, NULL),
			   *proposals = json_new(JV_ARRAY, NULL);
	int			nundecided;

	if (opts->all_tables)
		schema_config_apply_all_tables(cfg);
	if (opts->scope_column)
		(void) schema_config_apply_scope_column(cfg, opts->scope_column);
	config_text = schema_config_text(cfg);

	setup_cancel_handler_multi();
	conn = exwiw_connect(opts, "explain");
	nsp = exwiw_extension_schema(conn);
	if (opts->since)
	{
		since_apply(conn, opts, cfg);
		config_text = schema_config_text(cfg);
		params[2] = config_text;
	}

	params[0] = opts->target_table;
	params[1] = ids;
	params[2] = config_text;
	params[3] = opts->analyze ? "true" : "false";
	params[4] = ids_by_space_json(&opts->ids);
	params[5] = opts->exact ? "true" : "false";
	sql = psprintf("SELECT e.seq, e.table_name, e.file_name, e.estimated_rows, "
				   "pg_catalog.array_to_string(e.indexes, ', '), e.plan, p.query, p.rule, "
				   "pg_catalog.array_to_json(e.indexes), e.actual_rows "
				   "FROM %s.exwiw_explain($1, $2::pg_catalog.text[], $3::pg_catalog.jsonb, $4::pg_catalog.bool, $5::pg_catalog.jsonb, $6::pg_catalog.bool) e "
				   "LEFT JOIN %s.exwiw_plan($1, $2::pg_catalog.text[], $3::pg_catalog.jsonb, $5::pg_catalog.jsonb) p ON p.seq = e.seq "
				   "ORDER BY e.seq", nsp, nsp);
	nundecided = schema_config_undecided(cfg, undecided_cols, undecided_arms, proposals);
	exec_command(conn, "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", NULL);
	res = exec_params_checked(conn, sql, 6, params, NULL);
	n = PQntuples(res);
	for (i = 0; i < n; i++)
		maxseq = Max(maxseq, atoi(PQgetvalue(res, i, 0)));
	if (json)
	{
		JsonValue  *idlist = json_new(JV_ARRAY, NULL);
		int			j;

		top = json_new(JV_OBJECT, NULL);
		json_set(top, "target_table", opts->target_table ? json_str(opts->target_table) : json_new(JV_NULL, NULL));
		for (j = 0; def && j < def->nids; j++)
			json_append(idlist, json_str(def->ids[j]));
		json_set(top, "ids", idlist);
		tables = json_new(JV_ARRAY, NULL);
		json_set(top, "tables", tables);
	}
	for (i = 0; i < n; i++)
	{
		char		rows[32];
		const char *indexes = PQgetvalue(res, i, 4);
		const char *rule = PQgetisnull(res, i, 7) ? "" : PQgetvalue(res, i, 7);

		if (strncmp(rule, "UNDECIDED", 9) == 0)
		{
			json_append(undecided_tables, json_str(PQgetvalue(res, i, 1)));
			nundecided++;
		}

		if (json)
		{
			JsonValue  *t = json_new(JV_OBJECT, NULL);

			json_set(t, "seq", json_num(PQgetvalue(res, i, 0)));
			json_set(t, "table", json_str(PQgetvalue(res, i, 1)));
			json_set(t, "file", json_str(PQgetvalue(res, i, 2)));
			json_set(t, "rule", json_str(rule));
			json_set(t, "estimated_rows", json_num(PQgetvalue(res, i, 3)));
			if (!PQgetisnull(res, i, 9))
				json_set(t, "rows", json_num(PQgetvalue(res, i, 9)));
			json_set(t, "indexes", text_array_json(PQgetvalue(res, i, 8)));
			json_set(t, "query", json_str(PQgetvalue(res, i, 6)));
			if (opts->show_plans || opts->analyze)
				json_set(t, "plan", json_str(PQgetvalue(res, i, 5)));
			json_append(tables, t);
			continue;
		}
		/* --exact (or --analyze): the rows counted; else the estimate */
		if (!PQgetisnull(res, i, 9))
			format_count(rows, sizeof(rows), strtod(PQgetvalue(res, i, 9), NULL));
		else
		{
			rows[0] = '~';
			format_count(rows + 1, sizeof(rows) - 1, strtod(PQgetvalue(res, i, 3), NULL));
		}
		printf("[%s/%d] %s -> %s  %s rows  rule: %s  indexes: %s  query: %s\n",
			   PQgetvalue(res, i, 0), maxseq, PQgetvalue(res, i, 1),
			   PQgetvalue(res, i, 2), rows, rule[0] ? one_line(rule) : "(none)",
			   indexes[0] ? indexes : "(none)",
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
	if (json)
	{
		JsonValue  *steps = json_new(JV_ARRAY, NULL);
		StringInfoData out;
		const char *pparams[4] = {params[0], params[1], params[2], params[4]};

		/* the row sets computed before the files, on the same snapshot */
		sql = psprintf("SELECT p.step, p.table_name, p.output, p.rule "
					   "FROM %s.exwiw_plan($1, $2::pg_catalog.text[], $3::pg_catalog.jsonb, $4::pg_catalog.jsonb) p "
					   "WHERE p.seq IS NULL ORDER BY p.step", nsp);
		res = exec_params_checked(conn, sql, 4, pparams, NULL);
		for (i = 0; i < PQntuples(res); i++)
		{
			JsonValue  *s = json_new(JV_OBJECT, NULL);

			json_set(s, "step", json_num(PQgetvalue(res, i, 0)));
			json_set(s, "table", json_str(PQgetvalue(res, i, 1)));
			json_set(s, "output", json_str(PQgetvalue(res, i, 2)));
			json_set(s, "rule", json_str(PQgetvalue(res, i, 3)));
			json_append(steps, s);
		}
		PQclear(res);
		json_set(top, "steps", steps);
		if (!opts->allow_undecided)
		{
			JsonValue  *d = json_new(JV_OBJECT, NULL);

			json_set(d, "columns", undecided_cols);
			json_set(d, "tables", undecided_tables);
			json_set(d, "polymorphic_types", undecided_arms);
			json_set(d, "proposed_relations", proposals);
			json_set(top, "needs_decision", d);
		}
		initStringInfo(&out);
		json_print_pretty(&out, top);
		printf("%s\n", out.data);
	}
	exec_command(conn, "COMMIT", NULL);
	exwiw_disconnect(conn);
	/* the export would refuse: say what it waits for, and fail as it would */
	if (nundecided > 0 && !opts->allow_undecided)
	{
		pg_log_error("the export would refuse: the config needs %d decision%s",
					 nundecided, nundecided == 1 ? "" : "s");
		if (undecided_cols->n > 0)
			pg_log_error_detail("Columns that need a mask decision: %s.", joined(undecided_cols));
		if (undecided_tables->n > 0)
			pg_log_error_detail("Tables that need a scope decision (rule UNDECIDED): %s.", joined(undecided_tables));
		if (undecided_arms->n > 0)
			pg_log_error_detail("Polymorphic types that map to no table: %s.", joined(undecided_arms));
		if (proposals->n > 0)
			pg_log_error_detail("Relations proposed from evidence: %s.", joined(proposals));
		pg_log_error_hint("Decide each in the schema config (doc/subset.md, \"Safe mode\"), or pass --allow-undecided.");
		for (i = 0; i < undecided_tables->n; i++)
			schema_table_fix_hint(undecided_tables->items[i]->str);
		return 1;
	}
	return 0;
}
