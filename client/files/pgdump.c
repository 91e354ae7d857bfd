/*-------------------------------------------------------------------------
 *
 * pgdump.c
 *	  insert-000-schema.sql (--with-schema): pg_dump --schema-only, run
 *	  as a child while the data streams, then made idempotent (ddl.c).
 *
 * pg_dump connects where the export is connected (the live connection's
 * settings as a conninfo string; the password in its environment, not on
 * its command line) and reads the export's own snapshot (--snapshot), so
 * the schema and the data are one view.  The command is the Ruby
 * client's:
 *
 *	pg_dump --schema-only --no-owner --no-acl
 *		--exclude-schema=google_columnar_engine --exclude-schema=google_db_advisor
 *		--exclude-schema=google_vacuum_mgmt
 *
 * and, unlike it, the user's --exclude-schema patterns, and the schemas of
 * the extensions that no object of the schema needs (left_out_query:
 * exwiw, pg_cron, pg_stat_statements), which the schema file leaves out
 * (ddl.c), so that the owner of an empty database who is no superuser
 * loads it.
 *
 * pg_dump is the one next to this program when its version matches (it is
 * installed into PostgreSQL's bindir), else the first one on PATH.  Its
 * output (its standard output) and its messages go to hidden files in the
 * temporary directory, created through the directory's descriptor (see
 * outdir.c) and given to it open; when it fails, its messages are shown and
 * the export fails.
 *
 *-------------------------------------------------------------------------
 */
#include "cli.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/string.h"

/* argv[0], to find pg_dump next to this program (main() sets it) */
char	   *exwiw_program_path = NULL;

#define PG_DUMP_VERSIONSTR "pg_dump (PostgreSQL) " PG_VERSION "\n"

#define RAW_NAME	".pg_dump.sql"
#define ERR_NAME	".pg_dump.sql.err"

static pid_t running = 0;

/* The extensions the schema file leaves out (left_out_extensions). */
static char **left_out = NULL;

/*
 * The extensions no object outside an extension needs: no column's type
 * (nor its array's), no index's operator class, no default's, check's,
 * view's or trigger's function is one of their members, nor of an
 * extension a needed one requires.  The parts of a member (a view's rule,
 * an operator family's entries: internal or automatic dependencies on it)
 * are the member's, not users of it.  With each, the schemas that are its
 * members (pg_cron's "cron"), which pg_dump is told to leave out: a role
 * that may not read them would fail on them.
 */
static const char *const left_out_query =
"WITH RECURSIVE member AS ("
"  SELECT d.refobjid AS ext, d.classid, d.objid FROM pg_catalog.pg_depend d"
"  WHERE d.refclassid OPERATOR(pg_catalog.=) CAST('pg_catalog.pg_extension' AS pg_catalog.regclass)"
"  AND d.deptype OPERATOR(pg_catalog.=) 'e'"
"  UNION ALL"
"  SELECT d.refobjid, CAST('pg_catalog.pg_type' AS pg_catalog.regclass), t.oid"
"  FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_type t ON t.typelem OPERATOR(pg_catalog.=) d.objid"
"  WHERE d.classid OPERATOR(pg_catalog.=) CAST('pg_catalog.pg_type' AS pg_catalog.regclass)"
"  AND d.refclassid OPERATOR(pg_catalog.=) CAST('pg_catalog.pg_extension' AS pg_catalog.regclass)"
"  AND d.deptype OPERATOR(pg_catalog.=) 'e'),"
" needed AS ("
"  SELECT m.ext FROM member m JOIN pg_catalog.pg_depend u"
"   ON u.refclassid OPERATOR(pg_catalog.=) m.classid AND u.refobjid OPERATOR(pg_catalog.=) m.objid"
"  WHERE u.deptype OPERATOR(pg_catalog.=) ANY ('{n,a}')"
"  AND u.classid OPERATOR(pg_catalog.<>) CAST('pg_catalog.pg_extension' AS pg_catalog.regclass)"
"  AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend x WHERE x.classid OPERATOR(pg_catalog.=) u.classid"
"   AND x.objid OPERATOR(pg_catalog.=) u.objid AND x.deptype OPERATOR(pg_catalog.=) 'e')"
"  AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend y JOIN member o"
"   ON y.refclassid OPERATOR(pg_catalog.=) o.classid AND y.refobjid OPERATOR(pg_catalog.=) o.objid"
"   WHERE y.classid OPERATOR(pg_catalog.=) u.classid AND y.objid OPERATOR(pg_catalog.=) u.objid"
"   AND y.deptype OPERATOR(pg_catalog.=) ANY ('{i,a}'))"
"  UNION"
"  SELECT r.refobjid FROM needed n JOIN pg_catalog.pg_depend r ON r.objid OPERATOR(pg_catalog.=) n.ext"
"  AND r.classid OPERATOR(pg_catalog.=) CAST('pg_catalog.pg_extension' AS pg_catalog.regclass)"
"  AND r.refclassid OPERATOR(pg_catalog.=) CAST('pg_catalog.pg_extension' AS pg_catalog.regclass))"
" SELECT e.extname, s.nspname FROM pg_catalog.pg_extension e"
" LEFT JOIN member m ON m.ext OPERATOR(pg_catalog.=) e.oid"
"  AND m.classid OPERATOR(pg_catalog.=) CAST('pg_catalog.pg_namespace' AS pg_catalog.regclass)"
" LEFT JOIN pg_catalog.pg_namespace s ON s.oid OPERATOR(pg_catalog.=) m.objid"
" WHERE e.extname OPERATOR(pg_catalog.<>) 'plpgsql' AND e.oid NOT IN (SELECT ext FROM needed)"
" ORDER BY 1, 2";

/*
 * quoted_pattern
 *		A pg_dump pattern that matches exactly name: "name", '"' doubled.
 */
static char *
quoted_pattern(const char *name)
{
	StringInfoData s;

	initStringInfo(&s);
	appendStringInfoChar(&s, '"');
	for (; *name; name++)
	{
		if (*name == '"')
			appendStringInfoChar(&s, '"');
		appendStringInfoChar(&s, *name);
	}
	appendStringInfoChar(&s, '"');
	return s.data;
}

/*
 * stop_child_at_exit
 *		Exit handler: a pg_dump still running when the export fails is
 *		stopped (its output goes with the temporary directory).
 */
static void
stop_child_at_exit(void)
{
	if (running > 0)
	{
		kill(running, SIGTERM);
		(void) waitpid(running, NULL, 0);
		running = 0;
	}
}

/*
 * pgdump_path
 *		pg_dump next to this program, or "pg_dump" (found on PATH).
 */
static char *
pgdump_path(void)
{
	char		path[MAXPGPATH];

	if (exwiw_program_path != NULL &&
		find_other_exec(exwiw_program_path, "pg_dump", PG_DUMP_VERSIONSTR, path) == 0)
		return pg_strdup(path);
	return pg_strdup("pg_dump");
}

/*
 * create_hidden
 *		Create file name, new, in the temporary directory (dir is its
 *		path, for messages); its descriptor.
 */
static int
create_hidden(const char *dir, const char *name)
{
	int			fd = outdir_create_file(name, 0600);

	if (fd < 0)
		pg_fatal("could not create file \"%s/%s\": %m", dir, name);
	return fd;
}

/*
 * pgdump_start
 *		Start pg_dump, writing to a hidden file of the temporary directory
 *		dir (its path), without the schemas that match exclude_schemas
 *		(pg_dump patterns) and those of the extensions no object needs;
 *		its pid.  conn is idle.
 */
pid_t
pgdump_start(PGconn *conn, const char *dir, const char *snapshot,
			 char **exclude_schemas, int nexclude)
{
	char	   *password;
	char	   *conninfo = conninfo_for_child(conn, &password);
	char	   *bin = pgdump_path();
	char	  **args;
	int			n = 0;
	pid_t		pid;
	int			out_fd = create_hidden(dir, RAW_NAME);
	int			err_fd = create_hidden(dir, ERR_NAME);
	PGresult   *res;
	int			i,
				k;

	/* a row per left-out extension and schema of it (NULL: none) */
	res = exec_checked(conn, left_out_query, "finding the extensions the schema needs");
	left_out = pg_malloc0(sizeof(char *) * (PQntuples(res) + 1));
	args = pg_malloc0(sizeof(char *) * (16 + nexclude + PQntuples(res)));
	args[n++] = bin;
	args[n++] = "--schema-only";
	args[n++] = "--no-owner";
	args[n++] = "--no-acl";
	args[n++] = "--exclude-schema=google_columnar_engine";
	args[n++] = "--exclude-schema=google_db_advisor";
	args[n++] = "--exclude-schema=google_vacuum_mgmt";
	for (i = 0; i < nexclude; i++)
		args[n++] = psprintf("--exclude-schema=%s", exclude_schemas[i]);
	for (i = 0, k = 0; i < PQntuples(res); i++)
	{
		if (k == 0 || strcmp(left_out[k - 1], PQgetvalue(res, i, 0)) != 0)
			left_out[k++] = pg_strdup(PQgetvalue(res, i, 0));
		if (!PQgetisnull(res, i, 1))
			args[n++] = psprintf("--exclude-schema=%s", quoted_pattern(PQgetvalue(res, i, 1)));
	}
	PQclear(res);
	if (snapshot)
		args[n++] = psprintf("--snapshot=%s", snapshot);
	args[n++] = psprintf("--dbname=%s", conninfo);
	args[n] = NULL;
	pg_log_debug("running %s (schema-only, snapshot %s)", bin, snapshot ? snapshot : "none");

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		pg_fatal("could not fork pg_dump: %m");
	if (pid == 0)
	{
		/* Ctrl-C reaches the parent, which stops us */
		signal(SIGINT, SIG_IGN);
		/* exec keeps an ignored signal ignored: give back SIGPIPE's default */
		signal(SIGPIPE, SIG_DFL);
		/* dup2 clears close-on-exec on the copies */
		if (dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
			_exit(127);
		if (password)
			setenv("PGPASSWORD", password, 1);
		execvp(bin, args);
		fprintf(stderr, "could not execute %s: %s\n", bin, strerror(errno));
		_exit(127);
	}
	close(out_fd);
	close(err_fd);
	cancel_set_child(pid);
	running = pid;
	atexit(stop_child_at_exit);
	return pid;
}

/*
 * pgdump_finish
 *		Wait for pg_dump; write out_name in the temporary directory dir
 *		(its path) from its output; remove the raw files.  exit(1) when it
 *		failed.
 */
void
pgdump_finish(pid_t pid, const char *dir, const char *out_name)
{
	int			status;
	size_t		len;
	char	   *raw;
	char	   *ddl;
	char	   *stripped = NULL;
	int			fd;
	size_t		done = 0;

	while (waitpid(pid, &status, 0) < 0)
	{
		if (errno != EINTR)
			pg_fatal("could not wait for pg_dump: %m");
		exit_if_cancelled();
	}
	cancel_set_child(0);
	running = 0;
	exit_if_cancelled();
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
	{
		char	   *msg = read_whole_file_at(outdir_temp_fd(), ERR_NAME, &len);

		if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
			pg_log_error("failed to run `pg_dump`. Ensure the postgresql client is installed and on PATH.");
		else if (WIFEXITED(status))
			pg_log_error("pg_dump failed (exit %d)", WEXITSTATUS(status));
		else
			pg_log_error("pg_dump was terminated by signal %d", WTERMSIG(status));
		if (msg != NULL && len > 0)
		{
			(void) pg_strip_crlf(msg);
			pg_log_error_detail("%s", msg);
		}
		exit(1);
	}
	raw = read_whole_file_at(outdir_temp_fd(), RAW_NAME, &len);
	if (raw == NULL)
		pg_fatal("could not read pg_dump's output \"%s/%s\": %m", dir, RAW_NAME);
	ddl = ddl_postprocess(raw, (const char *const *) left_out, &stripped);
	if (stripped)
		pg_log_debug("Excluded extension(s) from the schema dump: %s.", stripped);

	fd = outdir_create_file(out_name, OUTPUT_FILE_MODE);
	if (fd < 0)
		pg_fatal("could not create file \"%s/%s\": %m", dir, out_name);
	len = strlen(ddl);
	while (done < len)
	{
		ssize_t		w = write(fd, ddl + done, len - done);

		if (w < 0)
			pg_fatal("could not write file \"%s/%s\": %m", dir, out_name);
		done += w;
	}
	if (close(fd) != 0)
		pg_fatal("could not close file \"%s/%s\": %m", dir, out_name);
	outdir_remove_file(RAW_NAME);
	outdir_remove_file(ERR_NAME);
	pg_free(raw);
	pg_free(ddl);
}
