/*-------------------------------------------------------------------------
 *
 * export.c
 *	  The export subcommand: one target's files, from one snapshot, into a
 *	  directory, with one connection or several.
 *
 * With -j 1, one connection runs
 *
 *	SELECT (e).file_name, (e).chunk
 *	FROM (SELECT exwiw_export(target, ids, config, format, allow_undecided) AS e) s
 *
 * in a REPEATABLE READ, READ ONLY transaction and stream.c writes the rows
 * into files.  With -j N, that first connection also exports its snapshot
 * (pg_export_snapshot()) and asks exwiw_plan() for the files; N - 1 more
 * connections import the snapshot (SET TRANSACTION SNAPSHOT) while the
 * first one keeps its transaction open, and each of the N connections
 * runs exwiw_export(..., files => its share).  Every file therefore comes
 * from one consistent view, and each file is written by one connection,
 * whole, so the directory is byte-identical to -j 1.
 *
 * Shares: parallel.c deals the files so that the largest worker's work is
 * smallest, counting the row sets each worker must compute for its files
 * as well as the files themselves, with sizes from the catalog.  The same
 * estimates feed the progress display.  A large file may be dealt as parts
 * (part => k, parts => n) to several workers: a worker's statement is then
 * its whole files' call followed, UNION ALL, by one call per part, whose
 * file names get ".exwiw-part-k" appended; parts.c joins them, in order,
 * into the file, byte for byte the file of -j 1.
 *
 * --split-rows=N: every call gets split_rows => N, and the server writes
 * each file as files of at most N rows, insert-NNN-<table>.partK.sql, each
 * loading on its own.  Files are then dealt whole (never in parts).
 *
 * --max-rows, --max-bytes: the files' rows are counted first, in the same
 * transaction (limits.c), and the run stops before the directory is
 * created when they exceed the limits; the progress display then shows
 * the counts instead of the planner's estimates.
 *
 * --with-schema: pg_dump --schema-only runs as a child, on the same
 * snapshot (--snapshot), while the data streams; its output is made
 * idempotent (ddl.c) into insert-000-schema.sql.
 *
 *-------------------------------------------------------------------------
 */
#include "cli.h"

#include <ctype.h>

#include <sys/wait.h>
#include <unistd.h>

/* What the callbacks of stream.c need. */
typedef struct ExportRun
{
	Progress   *progress;
	Manifest   *manifest;		/* each file's rows, for manifest.json */
	ExportStream *streams;
	int			nstreams;
	int			files_written;
	long		rows;
	long		bytes;
} ExportRun;

/*
 * seq_of_file_name
 *		The file number in "insert-NNN-<table>.ext", or -1 (a delete file:
 *		the progress display follows the insert files only).
 */
static int
seq_of_file_name(const char *name)
{
	if (strncmp(name, "insert-", 7) != 0 || name[7] < '0' || name[7] > '9')
		return -1;
	return atoi(name + 7);
}

/*
 * share_literal
 *		A worker's file numbers as an int[] literal.
 */
static char *
share_literal(const ExportStream *s)
{
	StringInfoData buf;
	int			i;

	initStringInfo(&buf);
	appendStringInfoChar(&buf, '{');
	for (i = 0; i < s->nshare; i++)
		appendStringInfo(&buf, "%s%d", i ? "," : "", s->share[i]);
	appendStringInfoChar(&buf, '}');
	return buf.data;
}

/* The types of the export call's parameters $1 .. $9. */
static const Oid param_types[9] = {
	25,							/* text: target */
	1009,						/* text[]: ids */
	3802,						/* jsonb: config */
	25,							/* text: format */
	16,							/* bool: allow_undecided */
	1007,						/* int4[]: files */
	3802,						/* jsonb: ids_by_space */
	16,							/* bool: allow_missing_ids */
	16							/* bool: deletes */
};

/*
 * export_call
 *		One exwiw_export() call of a worker's statement, as a SELECT of
 *		(file_name, chunk): files as SQL text, the part arguments (only
 *		when part > 0), split_rows (only when split is not NULL), deletes
 *		($9, false for a part), and what the file names get appended (a
 *		string literal, or NULL).  A call
 *		without parts or split_rows names no argument that 1.1's first
 *		declarations lacked.
 */
static void
export_call(StringInfo buf, const char *nsp, const char *files,
			int part, int parts, const char *split, const char *suffix)
{
	appendStringInfo(buf,
					 "SELECT (e).file_name%s%s, (e).chunk FROM (SELECT %s.exwiw_export($1, $2, $3, $4, $5, %s, $7",
					 suffix ? " OPERATOR(pg_catalog.||) " : "", suffix ? suffix : "",
					 nsp, files);
	if (part > 0)
		appendStringInfo(buf, ", part => %d, parts => %d", part, parts);
	appendStringInfoString(buf, ", allow_missing_ids => $8");
	if (split != NULL)
		appendStringInfo(buf, ", split_rows => %s", split);
	/* the delete files come with the whole files only */
	appendStringInfoString(buf, part > 0 ? ", deletes => false" : ", deletes => $9");
	appendStringInfoString(buf, ") AS e) s");
}

/*
 * worker_query
 *		The statement of worker w: its whole files ($6), when whole is set,
 *		then each of its parts of files, UNION ALL, in file order.  Every
 *		call passes split_rows => split (SQL text) unless split is NULL.
 */
static char *
worker_query(const char *nsp, const ExportPlan *parts, int w, bool whole,
			 const char *split)
{
	StringInfoData buf;
	int			i;
	bool		first = true;

	initStringInfo(&buf);
	if (whole)
	{
		export_call(&buf, nsp, "$6", 0, 0, split, NULL);
		first = false;
	}
	for (i = 0; parts != NULL && i < parts->nfiles; i++)
	{
		const PlanFile *f = &parts->files[i];
		char	   *files;
		char	   *suffix;

		if (f->worker != w || f->parts == 0)
			continue;
		files = psprintf("'{%d}'::pg_catalog.int4[]", f->seq);
		suffix = psprintf("'%s%d'", PART_FILE_SUFFIX, f->part);
		if (!first)
			appendStringInfoString(&buf, " UNION ALL ");
		export_call(&buf, nsp, files, f->part, f->parts, split, suffix);
		first = false;
		pg_free(files);
		pg_free(suffix);
	}
	return buf.data;
}

/*
 * The callbacks of stream.c: the progress display, and the totals.
 */
static void
on_file_started(void *arg, ExportStream *s)
{
	ExportRun  *run = arg;
	int			seq = seq_of_file_name(s->file.name);
	int			i;

	if (seq < 0)
		return;
	/* the files of this share before this one are done (no rows) */
	for (i = 0; i < s->nshare && s->share[i] < seq; i++)
		progress_file_done(run->progress, s->share[i]);
	progress_file_started(run->progress, seq, s->file.name);
}

static void
on_file_finished(void *arg, ExportStream *s)
{
	ExportRun  *run = arg;
	int			seq = seq_of_file_name(s->file.name);

	run->files_written++;
	run->bytes += s->file.bytes;
	manifest_add_rows(run->manifest, s->file.name, s->file.rows);
	pg_log_debug("wrote %s: %ld bytes", s->file.name, s->file.bytes);
	if (seq < 0)
		return;
	run->rows += s->file.rows;
	progress_file_update(run->progress, seq, s->file.rows, s->file.bytes);
	progress_file_done(run->progress, seq);
}

static void
on_tick(void *arg)
{
	ExportRun  *run = arg;
	int			i;

	for (i = 0; i < run->nstreams; i++)
	{
		ExportStream *s = &run->streams[i];

		if (s->file.name != NULL && s->file.fd >= 0)
		{
			if (seq_of_file_name(s->file.name) >= 0)
				progress_file_update(run->progress, seq_of_file_name(s->file.name),
									 s->file.rows, s->file.bytes);
		}
		else if (!s->done)
		{
			/* between files: the next one of the share is being prepared */
			int			last = s->file.name ? seq_of_file_name(s->file.name) : 0;
			int			j;

			if (last < 0)
				continue;		/* its delete files */

			for (j = 0; j < s->nshare; j++)
			{
				if (s->share[j] > last)
				{
					progress_file_pending(run->progress, s->share[j]);
					break;
				}
			}
		}
		if (s->done)
		{
			int			j;

			for (j = 0; j < s->nshare; j++)
				progress_file_done(run->progress, s->share[j]);
		}
	}
	progress_tick(run->progress, false);
}

/*
 * run_hook
 *		--after-insert-hook: run the executable with the Ruby client's
 *		environment; exit(1) when it fails.
 */
static void
run_hook(const CliOptions *opts, PGconn *conn, const char *dir)
{
	pid_t		pid;
	int			status;
	int			i;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		pg_fatal("could not fork: %m");
	if (pid == 0)
	{
		IdSpace    *def = ids_find(unconstify(IdSpaces *, &opts->ids), DEFAULT_ID_SPACE);
		StringInfoData s;
		int			j;

		setenv("EXWIW_OUTPUT_DIR", dir, 1);
		setenv("EXWIW_SCHEMA_DIR", opts->schema_dir ? opts->schema_dir : "", 1);
		setenv("EXWIW_DATABASE_ADAPTER", "postgresql", 1);
		setenv("EXWIW_DATABASE_HOST", PQhost(conn) ? PQhost(conn) : "", 1);
		setenv("EXWIW_DATABASE_PORT", PQport(conn) ? PQport(conn) : "", 1);
		setenv("EXWIW_DATABASE_USER", PQuser(conn) ? PQuser(conn) : "", 1);
		setenv("EXWIW_DATABASE_NAME", PQdb(conn) ? PQdb(conn) : "", 1);
		setenv("EXWIW_TARGET_TABLE", opts->target_table ? opts->target_table : "", 1);
		setenv("EXWIW_SCOPE_COLUMN", "", 1);
		setenv("EXWIW_OUTPUT_FORMAT", export_format_name(opts), 1);
		for (i = 0; i < opts->ids.n; i++)
		{
			IdSpace    *sp = &opts->ids.spaces[i];
			char	   *var = psprintf("EXWIW_IDS_%s", sp->name);
			char	   *p;

			for (p = var; *p; p++)
				*p = pg_toupper((unsigned char) *p);
			initStringInfo(&s);
			for (j = 0; j < sp->nids; j++)
				appendStringInfo(&s, "%s%s", j ? "," : "", sp->ids[j]);
			setenv(var, s.data, 1);
		}
		initStringInfo(&s);
		for (j = 0; def && j < def->nids; j++)
			appendStringInfo(&s, "%s%s", j ? "," : "", def->ids[j]);
		setenv("EXWIW_IDS", s.data, 1);
		/* exec keeps an ignored signal ignored: give back SIGPIPE's default */
		signal(SIGPIPE, SIG_DFL);
		execl(opts->after_insert_hook, opts->after_insert_hook, (char *) NULL);
		fprintf(stderr, "exwiw: error: could not run the after-insert hook \"%s\": %s\n",
				opts->after_insert_hook, strerror(errno));
		_exit(127);
	}
	cancel_set_child(pid);
	while (waitpid(pid, &status, 0) < 0)
	{
		if (errno != EINTR)
			pg_fatal("could not wait for the after-insert hook: %m");
	}
	cancel_set_child(0);
	exit_if_cancelled();
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
	{
		pg_log_error("after-insert shell hook failed: %s", opts->after_insert_hook);
		pg_log_error_detail("The export itself is complete in \"%s\".", dir);
		exit(1);
	}
}

/*
 * since_apply
 *		--since COLUMN=WHEN: the cutoff computed once by the server, in the
 *		export's transaction (now() is its start: a timestamp, or now()
 *		less an interval), and the condition on the column written by it
 *		(format's %I and %L quote), then every table with the column
 *		narrowed by it (schemadir.c); the same literal for every connection
 *		of the run.
 */
void
since_apply(PGconn *conn, const CliOptions *opts, SchemaConfig *cfg)
{
	char	   *col = pnstrdup(opts->since, strchr(opts->since, '=') - opts->since);
	const char *when = strchr(opts->since, '=') + 1;
	const char *params[2] = {when, col};
	bool		absolute = strlen(when) >= 5 && isdigit((unsigned char) when[0]) &&
		isdigit((unsigned char) when[1]) && isdigit((unsigned char) when[2]) &&
		isdigit((unsigned char) when[3]) && when[4] == '-';
	PGresult   *res;
	int			n;

	res = exec_params_checked(conn, absolute ?
							  "SELECT c, pg_catalog.format('%I OPERATOR(pg_catalog.>=) CAST(%L AS pg_catalog.timestamptz)', CAST($2 AS pg_catalog.text), c)"
							  " FROM CAST(CAST($1 AS pg_catalog.timestamptz) AS pg_catalog.text) AS c" :
							  "SELECT c, pg_catalog.format('%I OPERATOR(pg_catalog.>=) CAST(%L AS pg_catalog.timestamptz)', CAST($2 AS pg_catalog.text), c)"
							  " FROM CAST(pg_catalog.now() OPERATOR(pg_catalog.-) CAST($1 AS pg_catalog.interval) AS pg_catalog.text) AS c",
							  2, params, "reading --since");
	n = schema_config_apply_since(cfg, col, PQgetvalue(res, 0, 1), opts->target_table);
	if (n == 0)
	{
		pg_log_error("--since: no table of the config exports a column \"%s\"", col);
		exit(1);
	}
	pg_log_info("--since: %d table%s keep their rows of %s >= %s", n, n == 1 ? "" : "s",
				col, PQgetvalue(res, 0, 0));
	PQclear(res);
}

/*
 * ids_json
 *		The run's ids as JSON, for manifest.json: the default id space's as
 *		an array, or every space's as an object when there are several.
 */
static char *
ids_json(const CliOptions *opts)
{
	IdSpace    *def = ids_find(unconstify(IdSpaces *, &opts->ids), DEFAULT_ID_SPACE);
	JsonValue  *a = json_new(JV_ARRAY, NULL);
	StringInfoData out;
	int			i;

	if (opts->ids.n > 1 || def == NULL)
	{
		char	   *spaces = ids_by_space_json(&opts->ids);

		return spaces ? spaces : pg_strdup("null");
	}
	for (i = 0; i < def->nids; i++)
		json_append(a, json_new(JV_STRING, def->ids[i]));
	initStringInfo(&out);
	json_print_compact(&out, a);
	return out.data;
}

/*
 * run_export
 *		The export subcommand.
 */
int
run_export(CliOptions *opts)
{
	SchemaConfig *cfg;
	char	   *config_text;
	char	   *ids;
	char	   *nsp;
	const char *params[9];
	PGconn	   *conn0;
	PGresult   *res;
	char	   *snapshot = NULL;
	ExportPlan *plan = NULL;
	ExportPlan *parts = NULL;	/* the plan as dealt: files and parts */
	char	   *split;
	int			nfiles = 0;
	int			jobs = opts->jobs;
	bool		show_progress = !opts->quiet && isatty(fileno(stderr)) &&
		__pg_log_level <= PG_LOG_INFO;
	bool		need_plan = show_progress || jobs > 1;

	/* -v: the summary line off a terminal too, as pg_dump -v prints */
	bool		summary = !opts->quiet && opts->show_plans;
	ExportStream *streams;
	ExportRun	run = {0};
	StreamSink	sink = {0};
	ProgressFile *pfiles = NULL;
	char	   *temp;
	char	   *sql;
	pid_t		pgdump_pid = 0;
	int			i;
	IdSpace    *def;
	ExactCount *counts = NULL;	/* --max-rows, --max-bytes: each file's */
	int			ncounts = 0;

	/* everything that can be checked without the server, first */
	cfg = schema_config_load(opts->schema_dir, true);
	if (opts->scope_column)
		(void) schema_config_apply_scope_column(cfg, opts->scope_column);
	if (opts->all_tables)
		schema_config_apply_all_tables(cfg);
	config_text = schema_config_text(cfg);
	def = ids_find(&opts->ids, DEFAULT_ID_SPACE);
	ids = ids_array_literal(def);
	outdir_check_target(opts->output_dir, opts->force, opts->quiet, opts->schema_dir);

	setup_cancel_handler_multi();
	conn0 = exwiw_connect(opts, "export");
	nsp = exwiw_extension_schema(conn0);
	exec_command(conn0, "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", NULL);
	if (opts->since)
	{
		since_apply(conn0, opts, cfg);
		config_text = schema_config_text(cfg);
	}

	params[0] = opts->target_table;
	params[1] = ids;
	params[2] = config_text;
	params[3] = export_format_name(opts);
	params[4] = opts->allow_undecided ? "true" : "false";
	params[5] = NULL;
	params[6] = ids_by_space_json(&opts->ids);
	params[7] = opts->allow_missing_ids ? "true" : "false";
	/* the Ruby client's delete files, but for --insert-only and JSON Lines */
	params[8] = opts->insert_only || strcmp(export_format_name(opts), "jsonl") == 0 ?
		"false" : "true";

	/*
	 * --max-rows, --max-bytes: the files' rows counted on this transaction's
	 * snapshot, the export's, before the directory is touched
	 */
	if (opts->max_rows != -1 || opts->max_bytes != -1)
	{
		counts = exact_counts(conn0, nsp, params, &ncounts);
		check_limits(counts, ncounts, opts->max_rows, opts->max_bytes);
	}

	if (jobs > 1 || opts->with_schema)
	{
		res = exec_checked(conn0, "SELECT pg_catalog.pg_export_snapshot()",
						   "could not export the snapshot");
		snapshot = pg_strdup(PQgetvalue(res, 0, 0));
		PQclear(res);
		pg_log_debug("snapshot %s", snapshot);
	}
	if (need_plan)
	{
		ExportPlan *dealt;

		plan = plan_export(conn0, nsp, params, def ? def->nids : 0, opts->target_table);
		nfiles = plan->nfiles;

		/*
		 * Parts of a file only without delete files: a delete file comes from
		 * the call that writes its whole insert file.
		 */
		dealt = opts->split_rows == -1 && strcmp(params[8], "false") == 0 ?
			plan_split_files(plan, jobs) : plan;
		jobs = deal_files(dealt, jobs);
		if (dealt != plan)
		{
			plan_join_parts(dealt);
			parts = dealt;
		}
		else
		{
			/* the progress display's entries: the plan's files, dealt */
			parts = plan;
		}
	}
	else
		jobs = 1;

	streams = pg_malloc0(sizeof(ExportStream) * jobs);
	streams[0].conn = conn0;
	if (need_plan)
	{
		for (i = 0; i < jobs; i++)
		{
			int			k;

			streams[i].share = pg_malloc(sizeof(int) * (parts->nfiles + 1));
			for (k = 0; k < parts->nfiles; k++)
				if (parts->files[k].worker == i && parts->files[k].parts == 0)
					streams[i].share[streams[i].nshare++] = parts->files[k].seq;
		}
	}

	temp = outdir_create_temp(opts->output_dir);
	if (opts->with_schema)
		pgdump_pid = pgdump_start(conn0, temp, snapshot,
								  opts->exclude_schemas, opts->nexclude_schemas);

	/* the other workers import the snapshot */
	for (i = 1; i < jobs; i++)
	{
		char	   *set;

		streams[i].conn = exwiw_connect(opts, "parallel worker");
		streams[i].worker = i;
		exec_command(streams[i].conn, "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", NULL);
		set = psprintf("SET TRANSACTION SNAPSHOT '%s'", snapshot);
		exec_command(streams[i].conn, set, "could not import the snapshot");
		pg_free(set);
	}

	split = opts->split_rows != -1 ? psprintf("%ld", opts->split_rows) : NULL;
	for (i = 0; i < jobs; i++)
	{
		char	   *share = need_plan && jobs > 1 ? share_literal(&streams[i]) : NULL;

		params[5] = share;
		sql = worker_query(nsp, parts, i, share == NULL || streams[i].nshare > 0, split);
		pg_log_debug("query: %s (files %s)", sql, share ? share : "all");
		if (!PQsendQueryParams(streams[i].conn, sql, 9, param_types, params, NULL, NULL, 0) ||
			!PQsetSingleRowMode(streams[i].conn))
		{
			pg_log_error("could not send the export query: %s", PQerrorMessage(streams[i].conn));
			exit(1);
		}
	}

	/* the progress display */
	if (need_plan)
	{
		pfiles = pg_malloc0(sizeof(ProgressFile) * (nfiles + 1));
		for (i = 0; i < nfiles; i++)
		{
			pfiles[i].seq = plan->files[i].seq;
			pfiles[i].table = plan->files[i].table;
			pfiles[i].est_rows = plan->files[i].rows;
			pfiles[i].est_bytes = plan->files[i].cost;
			/* the exact rows, when counted (a file not counted has none) */
			if (counts != NULL)
			{
				int			k;

				pfiles[i].est_rows = 0;
				pfiles[i].exact = true;
				for (k = 0; k < ncounts; k++)
					if (counts[k].seq == pfiles[i].seq)
					{
						pfiles[i].est_rows = counts[k].rows;
						pfiles[i].est_bytes = counts[k].bytes;
					}
			}
		}
	}
	run.progress = progress_start(pfiles, nfiles, show_progress, summary);
	run.streams = streams;
	run.nstreams = jobs;
	sink.dir = temp;
	sink.format = strcmp(export_format_name(opts), "copy") == 0 ? EXPORT_FORMAT_COPY :
		strcmp(export_format_name(opts), "jsonl") == 0 ? EXPORT_FORMAT_JSONL : EXPORT_FORMAT_INSERT;
	sink.compress_method = opts->compress_method;
	sink.compress_level = opts->compress_level;
	/* counted for the display, the summary and manifest.json */
	sink.count_rows = true;
	run.manifest = manifest_begin();
	sink.file_started = on_file_started;
	sink.file_finished = on_file_finished;
	sink.tick = on_tick;
	sink.arg = &run;

	stream_run(streams, jobs, &sink);
	if (parts != plan)
		join_part_files();

	if (opts->with_schema)
	{
		pgdump_finish(pgdump_pid, temp, "insert-000-schema.sql");
		run.files_written++;
	}
	/* in the export's transaction: its snapshot is the manifest's */
	manifest_write(run.manifest, streams[0].conn, opts, cfg, config_text,
				   ids_json(opts));
	for (i = 0; i < jobs; i++)
	{
		exec_command(streams[i].conn, "COMMIT", NULL);
		if (i > 0)
			exwiw_disconnect(streams[i].conn);
	}
	exit_if_cancelled();

	outdir_fsync_files();
	outdir_commit(opts->output_dir);
	progress_finish(run.progress, opts->output_dir, run.files_written, run.rows, run.bytes);

	if (opts->after_insert_hook)
	{
		char	   *abs = make_absolute_path(opts->output_dir);

		run_hook(opts, conn0, abs);
	}
	exwiw_disconnect(conn0);
	return 0;
}
