/*-------------------------------------------------------------------------
 *
 * load.c
 *	  The load subcommand: an export's files into a database, with libpq.
 *
 *	  exwiw load DIR [-j N | --single-transaction | --commit-each-file | --refresh]
 *					 [--on-conflict=error|skip] [connection options]
 *
 * The files are DIR's insert-NNN-<table>.sql, in name order (the order
 * of the loop "for f in DIR/insert-*", insert-000-schema.sql
 * first); with --refresh, its delete-NNN-<table>.sql first, in name order,
 * and everything in one transaction.  Each file's statements are split
 * as psql splits them (sql_split.c) in the session's client encoding,
 * which the file's own first line sets, and sent one at a time; COPY
 * data goes with PQputCopyData.  No psql meta-command ever runs.
 *
 * The first error stops the load: "FILE:LINE: ERROR:  message", the line
 * of the error's position in the statement when the server gives one,
 * the data line for COPY, else the statement's first line; exit status 1.
 * A load is never committed half-way unless asked: with one connection,
 * every file runs in one transaction (--single-transaction, the default);
 * with --commit-each-file or -j N, each file runs in a transaction of its
 * own, so the files before the failing one stay and it leaves nothing.  A
 * file's own BEGIN, COMMIT or ROLLBACK is refused.

 * --on-conflict=skip: rows whose key exists already are skipped (a second
 * tenant into one database, whose shared parent rows are there already).
 * An INSERT without its own ON CONFLICT gets "ON CONFLICT DO NOTHING"; a
 * COPY goes into a temporary table with the same columns, then INSERT ...
 * SELECT ... ON CONFLICT DO NOTHING into the table.  Other statements run
 * as written.
 *
 * -j N: N connections; a file starts when the files it depends on have
 * loaded (load_deps.c).  A worker is a thread with its own connection; the
 * first error cancels the statements the others are running.
 *
 *-------------------------------------------------------------------------
 */
#include "cli.h"

#include <dirent.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

/* One load: the files, the options, what the workers share. */
typedef struct LoadRun
{
	const CliOptions *opts;
	LoadFile   *files;
	int			nfiles;
	bool		in_transaction; /* one transaction around every file */
	bool		file_transactions;	/* a transaction around each file */
	Refresh    *refresh;		/* --refresh (refresh.c) */
	Progress   *progress;
	ProgressFile *pfiles;
	pthread_mutex_t lock;		/* the fields below, progress, logging */
	pthread_cond_t changed;
	bool		failed;
	long		rows;
	long		bytes;
} LoadRun;

/* A worker of -j N. */
typedef struct LoadWorker
{
	LoadRun    *run;
	PGconn	   *conn;
	PGcancel   *cancel;			/* to stop its statement when another fails */
	bool		ok;
	struct LoadWorker *all;		/* every worker, for that */
	int			nall;
} LoadWorker;

/* What the COPY data sender needs. */
typedef struct CopySend
{
	PGconn	   *conn;
	bool		failed;
} CopySend;

/*
 * file_ext_is
 *		Whether name ends with ext.
 */
static bool
file_ext_is(const char *name, const char *ext)
{
	size_t		n = strlen(name),
				e = strlen(ext);

	return n > e && strcmp(name + n - e, ext) == 0;
}

/*
 * numbered_file
 *		Whether name is "<prefix>NNN-<something><ext>".
 */
static bool
numbered_file(const char *name, const char *prefix, const char *ext)
{
	size_t		pl = strlen(prefix);
	const char *p;

	if (strncmp(name, prefix, pl) != 0)
		return false;
	p = name + pl;
	if (*p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	return *p == '-' && p[1] != '\0' && file_ext_is(p + 1, ext);
}

/*
 * numbered_sql_file
 *		Whether name is "<prefix>NNN-<something>.sql", plain or compressed
 *		as the server's sinks write it (".sql.gz", ".sql.zst").
 */
static bool
numbered_sql_file(const char *name, const char *prefix)
{
	return numbered_file(name, prefix, ".sql") ||
		numbered_file(name, prefix, ".sql.gz") ||
		numbered_file(name, prefix, ".sql.zst");
}

/*
 * name_cmp
 *		qsort: file names in byte order (the shell's glob order in the C
 *		locale).
 */
static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/*
 * list_files
 *		The files to load, in order: with refresh, the delete files, then
 *		the insert files; each in name order.  Other files are left alone;
 *		JSON Lines files are refused (they are not SQL).
 */
static LoadFile *
list_files(const char *dir, bool refresh, int *nfiles, int *ndeletes)
{
	DIR		   *d = opendir(dir);
	struct dirent *de;
	char	  **ins = NULL,
			  **del = NULL;
	int			nins = 0,
				ndel = 0,
				cap = 0,
				dcap = 0;
	char	   *jsonl = NULL;
	LoadFile   *files;
	int			i;

	if (d == NULL)
	{
		pg_log_error("could not open directory \"%s\": %m", dir);
		exit(1);
	}
	while ((errno = 0, de = readdir(d)) != NULL)
	{
		if (numbered_sql_file(de->d_name, "insert-"))
		{
			if (nins == cap)
				ins = pg_realloc(ins, sizeof(char *) * (cap = Max(16, cap * 2)));
			ins[nins++] = pg_strdup(de->d_name);
		}
		else if (numbered_sql_file(de->d_name, "delete-"))
		{
			if (ndel == dcap)
				del = pg_realloc(del, sizeof(char *) * (dcap = Max(16, dcap * 2)));
			del[ndel++] = pg_strdup(de->d_name);
		}
		else if ((numbered_file(de->d_name, "insert-", ".jsonl") ||
				  numbered_file(de->d_name, "insert-", ".jsonl.gz") ||
				  numbered_file(de->d_name, "insert-", ".jsonl.zst")) && jsonl == NULL)
			jsonl = pg_strdup(de->d_name);
	}
	if (errno != 0)
	{
		pg_log_error("could not read directory \"%s\": %m", dir);
		exit(1);
	}
	closedir(d);

	if (jsonl != NULL)
	{
		pg_log_error("\"%s\" holds JSON Lines files (%s): exwiw load loads SQL files only", dir, jsonl);
		pg_log_error_hint("Export with --output-format=insert or copy to load the files with exwiw load.");
		exit(1);
	}
	if (nins == 0)
	{
		pg_log_error("no insert-NNN-<table>.sql files in \"%s\"", dir);
		exit(1);
	}
	if (refresh && ndel == 0)
		pg_log_warning("--refresh: \"%s\" holds no delete-NNN-<table>.sql files (exported with --insert-only?): only the inserts run", dir);
	else if (!refresh && ndel > 0)
		pg_log_debug("%d delete-NNN files left out (they run with --refresh)", ndel);
	if (!refresh)
		ndel = 0;
	if (ins)
		qsort(ins, nins, sizeof(char *), name_cmp);
	if (del)
		qsort(del, ndel, sizeof(char *), name_cmp);

	files = pg_malloc0(sizeof(LoadFile) * (ndel + nins));
	for (i = 0; i < ndel + nins; i++)
	{
		LoadFile   *f = &files[i];
		struct stat st;

		f->name = (i < ndel) ? del[i] : ins[i - ndel];
		f->is_delete = (i < ndel);
		f->path = psprintf("%s/%s", dir, f->name);
		f->table = load_file_table(f->name);
		if (stat(f->path, &st) != 0)
		{
			pg_log_error("could not stat file \"%s\": %m", f->path);
			exit(1);
		}
		if (!S_ISREG(st.st_mode))
		{
			pg_log_error("\"%s\" is not a regular file", f->path);
			exit(1);
		}
		f->size = st.st_size;
	}
	*nfiles = ndel + nins;
	*ndeletes = ndel;
	return files;
}

/*
 * copy_send
 *		split_copy_data's sender: the bytes to the server as COPY data.
 */
static bool
copy_send(const char *data, size_t len, void *arg)
{
	CopySend   *cs = arg;

	if (PQputCopyData(cs->conn, data, (int) len) != 1)
	{
		cs->failed = true;
		return false;
	}
	return true;
}

/*
 * report_load_error
 *		The first error of the load, psql's way: "FILE:LINE: ERROR:  msg",
 *		then the detail and hint; later errors (other workers') are not
 *		printed.  res may be NULL: then msg is the message.
 */
static void
report_load_error(LoadRun *run, const LoadFile *f, int line,
				  const PGresult *res, const char *msg)
{
	pthread_mutex_lock(&run->lock);
	if (!run->failed)
	{
		run->failed = true;
		if (res != NULL && PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) != NULL)
		{
			const char *sev = PQresultErrorField(res, PG_DIAG_SEVERITY);
			const char *detail = PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL);
			const char *hint = PQresultErrorField(res, PG_DIAG_MESSAGE_HINT);
			const char *context = PQresultErrorField(res, PG_DIAG_CONTEXT);

			pg_log_error("%s:%d: %s:  %s", f->path, line, sev ? sev : "ERROR",
						 PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY));
			if (detail)
				pg_log_error_detail("%s", detail);
			if (hint)
				pg_log_error_hint("%s", hint);
			else if (run->refresh == NULL && run->opts->on_conflict == ON_CONFLICT_ERROR &&
					 strcmp(PQresultErrorField(res, PG_DIAG_SQLSTATE) ?
							PQresultErrorField(res, PG_DIAG_SQLSTATE) : "", "23505") == 0)
				pg_log_error_hint("The database holds that row already: to load this export again, use --refresh; to load a second tenant beside the first, use --on-conflict=skip.");
			if (context)
				pg_log_error_detail("CONTEXT:  %s", context);
		}
		else
		{
			const char *m = msg ? msg : (res ? PQresultErrorMessage(res) : NULL);
			char	   *copy = pg_strdup((m && m[0]) ? m : "lost the connection to the server");
			size_t		l = strlen(copy);

			while (l > 0 && copy[l - 1] == '\n')
				copy[--l] = '\0';
			pg_log_error("%s:%d: %s", f->path, line, copy);
			pg_free(copy);
		}
	}
	pthread_cond_broadcast(&run->changed);
	pthread_mutex_unlock(&run->lock);
}

/*
 * copy_error_line
 *		The file line of a COPY error: the server's context says "COPY t,
 *		line N"; first_line is the file's line of data line 1.  The COPY
 *		statement's line when the context has none.
 */
static int
copy_error_line(const PGresult *res, int stmt_line, int first_line)
{
	const char *context = PQresultErrorField(res, PG_DIAG_CONTEXT);
	const char *p;

	if (context == NULL || strncmp(context, "COPY ", 5) != 0 ||
		(p = strstr(context, ", line ")) == NULL)
		return stmt_line;
	return first_line + atoi(p + 7) - 1;
}

/*
 * error_line
 *		The file line of a statement's error: its position's, when the
 *		server gives one, else the statement's first.
 */
static int
error_line(const PGresult *res, const SqlStatement *st, const char *sql, int encoding)
{
	const char *pos = PQresultErrorField(res, PG_DIAG_STATEMENT_POSITION);

	if (pos == NULL)
		return st->line;
	return split_line_at(st, sql, strlen(sql), encoding, atoi(pos));
}

/*
 * copy_target
 *		The table and the column list of "COPY <table> (<columns>) FROM
 *		stdin" (stmt, without the semicolon): *table and *columns (NULL when
 *		there is no list), as written.  False when it is not of that shape.
 */
static bool
copy_target(const char *stmt, char **table, char **columns)
{
	const char *end;

	return sql_statement_target(stmt + 4, table, columns, &end);
}

/*
 * run_simple
 *		One statement of the loader's own (the COPY staging): false, with
 *		the error reported at line of f, when it fails.
 */
static bool
run_simple(LoadRun *run, PGconn *conn, const LoadFile *f, int line, const char *sql)
{
	PGresult   *res = PQexec(conn, sql);
	bool		ok = (PQresultStatus(res) == PGRES_COMMAND_OK ||
					  PQresultStatus(res) == PGRES_TUPLES_OK);

	if (!ok)
		report_load_error(run, f, line, res, NULL);
	PQclear(res);
	return ok;
}

/*
 * apply_staged
 *		--refresh: the rows a statement staged into their table; false,
 *		with the error reported at line of f, when that fails.
 */
static bool
apply_staged(LoadRun *run, PGconn *conn, const LoadFile *f, int line)
{
	PGresult   *fail = NULL;

	if (refresh_apply(run->refresh, conn, &fail))
		return true;
	report_load_error(run, f, line, fail, NULL);
	PQclear(fail);
	return false;
}

/*
 * add_progress
 *		A file's rows and bytes so far, for the display and the summary.
 */
static void
add_progress(LoadRun *run, int fi, long rows, long file_rows, long file_bytes)
{
	pthread_mutex_lock(&run->lock);
	run->rows += rows;
	progress_file_update(run->progress, fi, file_rows, file_bytes);
	progress_tick(run->progress, false);
	pthread_mutex_unlock(&run->lock);
}

/*
 * load_one_file
 *		Run file fi's statements on conn, in order; false at the first
 *		error (reported).  The splitter reads in conn's client encoding and
 *		standard_conforming_strings, as they are before each statement.
 */
static bool
load_one_file(LoadRun *run, PGconn *conn, int fi)
{
	LoadFile   *f = &run->files[fi];
	bool		skip = (run->opts->on_conflict == ON_CONFLICT_SKIP && run->refresh == NULL);
	SqlSplitter *s = split_open(f->path);
	SqlStatement st;
	long		file_rows = 0;
	bool		ok = true;
	int			last_line;

	if (s == NULL)
	{
		char		msg[MAXPGPATH + 64];

		snprintf(msg, sizeof(msg), "could not open file: %m");
		report_load_error(run, f, 0, NULL, msg);
		return false;
	}
	pthread_mutex_lock(&run->lock);
	progress_file_started(run->progress, fi, f->name);
	pthread_mutex_unlock(&run->lock);
	if (run->file_transactions && !run_simple(run, conn, f, 1, "BEGIN"))
	{
		split_close(s);
		return false;
	}

	for (;;)
	{
		const char *scs = PQparameterStatus(conn, "standard_conforming_strings");
		SplitResult r;
		char	   *sql;
		char	   *stage_table = NULL;
		char	   *stage_columns = NULL;
		bool		refresh_staged = false;
		PGresult   *res;
		int			encoding;
		long		stmt_rows = 0;

		/* another worker failed, or a signal came: stop here */
		if (run->failed || exwiw_cancel_signal != 0)
		{
			ok = false;
			break;
		}
		encoding = PQclientEncoding(conn);
		s->encoding = encoding;
		s->std_strings = (scs == NULL || strcmp(scs, "on") == 0);
		r = split_next(s, &st);
		if (r == SPLIT_END)
			break;
		if (r == SPLIT_ERROR)
		{
			report_load_error(run, f, s->errline, NULL, s->errmsg);
			ok = false;
			break;
		}
		if (st.len == 0)
			continue;			/* a lone ";" */
		if (strcmp(st.first_word, "begin") == 0 || strcmp(st.first_word, "commit") == 0 ||
			strcmp(st.first_word, "rollback") == 0 || strcmp(st.first_word, "start") == 0 ||
			strcmp(st.first_word, "end") == 0 || strcmp(st.first_word, "abort") == 0)
		{
			report_load_error(run, f, st.line, NULL,
							  run->in_transaction ?
							  "a transaction statement in a file cannot run inside the load's one transaction (the default with one connection, --refresh)" :
							  "a transaction statement in a file cannot run inside the file's own transaction (--commit-each-file, -j N)");
			ok = false;
			break;
		}

		if (run->refresh != NULL && f->is_delete && strcmp(st.first_word, "delete") == 0)
		{
			/* --refresh: the rows it would delete are the tenant's */
			PGresult   *fail = NULL;
			char	   *msg = NULL;

			if (!refresh_own_rows(run->refresh, conn, st.text, &fail, &msg))
			{
				report_load_error(run, f, st.line, fail, msg);
				PQclear(fail);
				ok = false;
				break;
			}
			continue;
		}
		if (run->refresh != NULL && !f->is_delete &&
			(strcmp(st.first_word, "insert") == 0 || st.is_copy_from_stdin))
		{
			/* --refresh: the rows into a stage, then applied */
			PGresult   *fail = NULL;
			char	   *msg = NULL;

			sql = refresh_stage(run->refresh, conn, &st, &fail, &msg);
			if (sql == NULL)
			{
				report_load_error(run, f, st.line, fail, msg);
				PQclear(fail);
				ok = false;
				break;
			}
			refresh_staged = true;
		}
		else if (skip && strcmp(st.first_word, "insert") == 0 && !st.has_on_conflict)
			sql = psprintf("%s\nON CONFLICT DO NOTHING", st.text);
		else if (skip && st.is_copy_from_stdin)
		{
			if (!copy_target(st.text, &stage_table, &stage_columns))
			{
				report_load_error(run, f, st.line, NULL,
								  "--on-conflict=skip: cannot read the table and columns of this COPY statement");
				ok = false;
				break;
			}
			if (!run_simple(run, conn, f, st.line,
							psprintf("CREATE TEMP TABLE exwiw_load_stage AS SELECT %s FROM %s WITH NO DATA",
									 stage_columns ? stage_columns : "*", stage_table)))
			{
				ok = false;
				break;
			}
			sql = pg_strdup("COPY pg_temp.exwiw_load_stage FROM stdin");
		}
		else
			sql = pg_strdup(st.text);

		res = PQexec(conn, sql);
		if (PQresultStatus(res) == PGRES_COPY_IN)
		{
			CopySend	cs = {conn, false};
			int			first_line = 0;
			int			stmt_line = st.line;
			bool		sent;

			PQclear(res);
			sent = split_copy_data(s, copy_send, &cs, &stmt_rows, &first_line);
			if (!sent)
			{
				const char *why = cs.failed ? PQerrorMessage(conn) : s->errmsg;
				int			line = cs.failed ? stmt_line : s->errline;

				PQputCopyEnd(conn, "exwiw load: the COPY data could not be read");
				while ((res = PQgetResult(conn)) != NULL)
					PQclear(res);
				report_load_error(run, f, line, NULL, why);
				ok = false;
				pg_free(sql);
				break;
			}
			if (PQputCopyEnd(conn, NULL) != 1)
			{
				report_load_error(run, f, stmt_line, NULL, PQerrorMessage(conn));
				ok = false;
				pg_free(sql);
				break;
			}
			while ((res = PQgetResult(conn)) != NULL)
			{
				if (ok && PQresultStatus(res) != PGRES_COMMAND_OK)
				{
					report_load_error(run, f, copy_error_line(res, stmt_line, first_line), res, NULL);
					ok = false;
				}
				PQclear(res);
			}
			if (ok && stage_table != NULL)
			{
				char	   *ins;

				if (stage_columns)
					ins = psprintf("INSERT INTO %s (%s) OVERRIDING SYSTEM VALUE SELECT * FROM pg_temp.exwiw_load_stage ON CONFLICT DO NOTHING",
								   stage_table, stage_columns);
				else
					ins = psprintf("INSERT INTO %s OVERRIDING SYSTEM VALUE SELECT * FROM pg_temp.exwiw_load_stage ON CONFLICT DO NOTHING",
								   stage_table);
				ok = run_simple(run, conn, f, stmt_line, ins) &&
					run_simple(run, conn, f, stmt_line, "DROP TABLE pg_temp.exwiw_load_stage");
				pg_free(ins);
			}
			if (ok && refresh_staged)
				ok = apply_staged(run, conn, f, stmt_line);
		}
		else if (PQresultStatus(res) == PGRES_COMMAND_OK ||
				 PQresultStatus(res) == PGRES_TUPLES_OK)
		{
			if (strcmp(st.first_word, "insert") == 0)
				stmt_rows = st.rows;
			PQclear(res);
			if (refresh_staged)
				ok = apply_staged(run, conn, f, st.line);
		}
		else if (PQresultStatus(res) == PGRES_COPY_OUT || PQresultStatus(res) == PGRES_COPY_BOTH)
		{
			PQclear(res);
			report_load_error(run, f, st.line, NULL, "COPY TO STDOUT is not supported by exwiw load");
			ok = false;
		}
		else
		{
			report_load_error(run, f, error_line(res, &st, sql, encoding), res, NULL);
			PQclear(res);
			ok = false;
		}
		pg_free(sql);
		if (!ok)
			break;
		file_rows += stmt_rows;
		add_progress(run, fi, stmt_rows, file_rows, split_progress(s));
	}
	last_line = s->line;
	split_close(s);

	/*
	 * The next file starts from the session's own settings, as a psql run of
	 * its own would: a file's SET lines (pg_dump's empty search_path, the
	 * trigger block's session_replication_role) end with it.
	 */
	if (ok)
		ok = run_simple(run, conn, f, last_line, "RESET ALL");
	if (ok && run->file_transactions)
		ok = run_simple(run, conn, f, last_line, "COMMIT");
	pthread_mutex_lock(&run->lock);
	if (ok)
	{
		run->bytes += f->size;
		progress_file_update(run->progress, fi, file_rows, f->size);
		progress_file_done(run->progress, fi);
	}
	pthread_mutex_unlock(&run->lock);
	return ok;
}

/*
 * next_ready_file
 *		The first waiting file whose dependencies have loaded, or -1; *left
 *		is whether any file still waits.  Called with the lock held.
 */
static int
next_ready_file(LoadRun *run, bool *left)
{
	int			i,
				k;

	*left = false;
	for (i = 0; i < run->nfiles; i++)
	{
		LoadFile   *f = &run->files[i];
		bool		ready = true;

		if (f->state != 0)
			continue;
		*left = true;
		for (k = 0; k < f->ndeps && ready; k++)
			ready = (run->files[f->deps[k]].state == 2);
		if (ready)
			return i;
	}
	return -1;
}

/*
 * worker_main
 *		A -j worker: take the next ready file, load it, until none is left
 *		or a worker failed.
 */
static void *
worker_main(void *arg)
{
	LoadWorker *w = arg;
	LoadRun    *run = w->run;

	w->ok = true;
	for (;;)
	{
		int			fi;
		bool		left;
		bool		ok;

		pthread_mutex_lock(&run->lock);
		for (;;)
		{
			if (run->failed || exwiw_cancel_signal != 0)
			{
				fi = -1;
				left = false;
				break;
			}
			fi = next_ready_file(run, &left);
			if (fi >= 0 || !left)
				break;
			pthread_cond_wait(&run->changed, &run->lock);
		}
		if (fi >= 0)
			run->files[fi].state = 1;
		pthread_mutex_unlock(&run->lock);
		if (fi < 0)
			break;

		ok = load_one_file(run, w->conn, fi);

		pthread_mutex_lock(&run->lock);
		run->files[fi].state = 2;
		if (!ok)
		{
			run->failed = true;
			w->ok = false;
		}
		pthread_cond_broadcast(&run->changed);
		pthread_mutex_unlock(&run->lock);
		if (!ok)
		{
			int			i;
			char		errbuf[256];

			/*
			 * the others stop their statements too (their errors are not
			 * shown)
			 */
			for (i = 0; i < w->nall; i++)
				if (&w->all[i] != w && w->all[i].cancel != NULL)
					(void) PQcancel(w->all[i].cancel, errbuf, sizeof(errbuf));
			break;
		}
	}
	return NULL;
}

/*
 * load_parallel
 *		-j N: N workers over the files, each with its own connection; false
 *		when a file failed.
 */
static bool
load_parallel(LoadRun *run, PGconn *first, int jobs)
{
	LoadWorker *workers = pg_malloc0(sizeof(LoadWorker) * jobs);
	pthread_t  *threads = pg_malloc0(sizeof(pthread_t) * jobs);
	bool		ok = true;
	int			i;

	workers[0].conn = first;
	for (i = 1; i < jobs; i++)
		workers[i].conn = exwiw_connect(run->opts, "load worker");
	for (i = 0; i < jobs; i++)
	{
		workers[i].run = run;
		workers[i].cancel = PQgetCancel(workers[i].conn);
		workers[i].all = workers;
		workers[i].nall = jobs;
	}
	for (i = 0; i < jobs; i++)
	{
		if (pthread_create(&threads[i], NULL, worker_main, &workers[i]) != 0)
			pg_fatal("could not create a thread: %m");
	}
	for (i = 0; i < jobs; i++)
	{
		pthread_join(threads[i], NULL);
		ok = ok && workers[i].ok;
	}
	for (i = 0; i < jobs; i++)
		PQfreeCancel(workers[i].cancel);
	for (i = 1; i < jobs; i++)
		exwiw_disconnect(workers[i].conn);
	return ok && !run->failed;
}

/*
 * refresh_step
 *		One of the refresh's deletes (refresh.c) on conn; false, with the
 *		error printed, when it failed or refused.
 */
static bool
refresh_step(LoadRun *run, PGconn *conn,
			 bool (*step) (Refresh *, PGconn *, PGresult **, bool *))
{
	PGresult   *fail = NULL;
	bool		refused = false;

	progress_clear(run->progress);
	if (step(run->refresh, conn, &fail, &refused))
		return true;
	if (!refused)
	{
		report_result_error(fail, "--refresh: deleting the rows the new export does not have");
		PQclear(fail);
	}
	run->failed = true;
	return false;
}

/*
 * run_load
 *		The load subcommand.
 */
int
run_load(CliOptions *opts)
{
	LoadRun		run;
	PGconn	   *conn;
	int			nfiles,
				ndeletes;
	int			i;
	bool		ok = true;
	int			jobs = opts->jobs;

	memset(&run, 0, sizeof(run));
	run.opts = opts;
	run.in_transaction = opts->refresh ||
		(!opts->commit_each_file && opts->jobs <= 1);
	run.file_transactions = !run.in_transaction;
	pthread_mutex_init(&run.lock, NULL);
	pthread_cond_init(&run.changed, NULL);
	/* the directory is what the export wrote (manifest.c), unless told */
	if (!opts->no_verify)
	{
		bool		found;
		int			nchecked,
					nkeys;

		if (!manifest_verify(opts->load_dir, &found, &nchecked, &nkeys))
		{
			pg_log_error_hint("The directory is not what the export wrote: export it again, or load it as it is with --no-verify.");
			return 1;
		}
		if (found)
			pg_log_debug("verified %d files against manifest.json, and %d foreign keys inside it",
						 nchecked, nkeys);
	}
	run.files = list_files(opts->load_dir, opts->refresh, &nfiles, &ndeletes);
	run.nfiles = nfiles;
	if (jobs > nfiles)
		jobs = nfiles;

	setup_cancel_handler_multi();
	conn = exwiw_connect(opts, "load");

	run.pfiles = pg_malloc0(sizeof(ProgressFile) * nfiles);
	for (i = 0; i < nfiles; i++)
	{
		run.pfiles[i].seq = i;
		run.pfiles[i].table = run.files[i].table ? run.files[i].table : run.files[i].name;
		run.pfiles[i].est_rows = -1;
		run.pfiles[i].est_bytes = run.files[i].size;
	}
	run.progress = progress_start(run.pfiles, nfiles,
								  isatty(fileno(stderr)) && !opts->quiet,
								  !opts->quiet && opts->show_plans);

	if (jobs > 1)
	{
		load_plan_dependencies(conn, run.files, nfiles);
		ok = load_parallel(&run, conn, jobs);
	}
	else
	{
		if (run.in_transaction)
			exec_command(conn, "BEGIN", "starting the load's transaction");
		if (opts->refresh)
			run.refresh = refresh_start(conn, opts->on_conflict == ON_CONFLICT_ERROR);
		for (i = 0; i < nfiles && ok; i++)
		{
			if (run.refresh != NULL && i == ndeletes)
				ok = refresh_step(&run, conn, refresh_clear_keyless);
			if (!ok)
				break;
			run.files[i].state = 1;
			ok = load_one_file(&run, conn, i);
			run.files[i].state = 2;
		}
		if (ok && run.refresh != NULL)
			ok = refresh_step(&run, conn, refresh_finish);
		if (ok && run.in_transaction)
		{
			PGresult   *res = PQexec(conn, "COMMIT");

			if (PQresultStatus(res) != PGRES_COMMAND_OK)
			{
				progress_clear(run.progress);
				report_result_error(res, "committing the load");
				ok = false;
			}
			PQclear(res);
		}
	}
	if (!ok)
	{
		progress_clear(run.progress);
		exit_if_cancelled();
		if (run.in_transaction)
			pg_log_error_detail("The load ran in one transaction: nothing of it was committed.");
		else
			pg_log_error_detail("Each file ran in a transaction of its own: the files loaded before the failing one were committed, nothing of that one was.");
		exwiw_disconnect(conn);
		return 1;
	}
	progress_finish_load(run.progress, opts->load_dir, nfiles, run.rows, run.bytes);
	if (run.refresh != NULL && !opts->quiet)
	{
		long		inserted,
					updated,
					deleted;

		refresh_summary(run.refresh, &inserted, &updated, &deleted);
		pg_log_info("refreshed: %ld rows inserted, %ld updated in place, %ld deleted",
					inserted, updated, deleted);
	}
	exwiw_disconnect(conn);
	return 0;
}
