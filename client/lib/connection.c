/*-------------------------------------------------------------------------
 *
 * connection.c
 *	  Connections, the server's messages and errors, and cancelling every
 *	  connection on Ctrl-C.
 *
 * A connection is made from the flags (-h, -p, -u, --database or --dbname,
 * which may be a conninfo string or URI, expanded by libpq) and libpq's
 * own environment (PGHOST, PGSERVICE, ...).  The password is
 * DATABASE_PASSWORD when set, as the Ruby client reads it, else whatever
 * libpq finds (PGPASSWORD, ~/.pgpass); when the server asks for one and
 * none was found, it is asked for on a terminal, as psql does (-W asks
 * before the first attempt, -w never asks); a password asked for is asked
 * once, for every connection of the run.
 *
 * Errors read as PostgreSQL's clients write them: "exwiw: error: ..."
 * with the server's detail and hint, exit status 1.  Server WARNINGs are
 * shown as "exwiw: warning: ..."; NOTICEs only with --log-level=debug or on
 * a terminal.
 *
 * Cancel: SIGINT, SIGTERM and SIGHUP send a cancel request (PQcancel, safe in a
 * signal handler) on every registered connection and stop a pg_dump
 * child; the main loops see exwiw_cancel_signal and exit with 128 + the
 * signal (130 for Ctrl-C), and outdir.c's exit handler removes the
 * temporary directory.
 *
 *-------------------------------------------------------------------------
 */
#include "cli.h"

#include <unistd.h>

#include "common/string.h"

/* every connection of a run: one per worker */
#define MAX_CANCELS MAX_PARALLEL_WORKERS

volatile sig_atomic_t exwiw_cancel_signal = 0;

static PGcancel *volatile cancels[MAX_CANCELS];
static PGconn *cancel_conns[MAX_CANCELS];
static volatile pid_t cancel_child = 0;

/* --dbname of the connections (for conninfo_for_child), or NULL */
static const char *connect_dbname = NULL;

/* whether NOTICEs are shown (set by exwiw_connect from the log level) */
static bool show_notices = false;

/* whether a connection is to a hot standby (its in_hot_standby parameter) */
static bool connected_to_standby = false;

/*
 * cancel_handler
 *		SIGINT/SIGTERM: cancel the server work on every connection, stop
 *		the child, remember the signal.  Only async-signal-safe calls.
 */
static void
cancel_handler(int signo)
{
	int			save_errno = errno;
	char		errbuf[256];
	int			i;

	exwiw_cancel_signal = signo;
	for (i = 0; i < MAX_CANCELS; i++)
	{
		PGcancel   *c = cancels[i];

		if (c != NULL)
			(void) PQcancel(c, errbuf, sizeof(errbuf));
	}
	if (cancel_child > 0)
		kill(cancel_child, SIGTERM);
	errno = save_errno;
}

/*
 * setup_cancel_handler_multi
 *		Install the handler for SIGINT and SIGTERM.
 */
void
setup_cancel_handler_multi(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = cancel_handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* a closed stderr must not kill us before the cleanup */
	signal(SIGPIPE, SIG_IGN);
}

/*
 * block_signals / unblock_signals
 *		Keep the handler out while the table of cancel objects changes.
 */
static void
block_signals(sigset_t *old)
{
	sigset_t	set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, old);
}

static void
unblock_signals(sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

/*
 * cancel_register
 *		Cancel conn's work on SIGINT/SIGTERM.
 */
void
cancel_register(PGconn *conn)
{
	sigset_t	old;
	int			i;

	block_signals(&old);
	for (i = 0; i < MAX_CANCELS; i++)
	{
		if (cancels[i] == NULL)
		{
			cancels[i] = PQgetCancel(conn);
			cancel_conns[i] = conn;
			break;
		}
	}
	unblock_signals(&old);
}

/*
 * cancel_unregister
 *		Forget conn's cancel object.
 */
void
cancel_unregister(PGconn *conn)
{
	sigset_t	old;
	int			i;

	block_signals(&old);
	for (i = 0; i < MAX_CANCELS; i++)
	{
		if (cancel_conns[i] == conn && cancels[i] != NULL)
		{
			PQfreeCancel(cancels[i]);
			cancels[i] = NULL;
			cancel_conns[i] = NULL;
		}
	}
	unblock_signals(&old);
}

/*
 * cancel_set_child
 *		The child process (pg_dump) to stop on a signal, or 0.
 */
void
cancel_set_child(pid_t pid)
{
	cancel_child = pid;
}

/*
 * exit_if_cancelled
 *		After a signal: say so and exit with 128 + the signal.  The exit
 *		handlers remove the temporary directory.
 */
void
exit_if_cancelled(void)
{
	if (exwiw_cancel_signal != 0)
	{
		int			sig = exwiw_cancel_signal;

		pg_log_error("canceled by %s", sig == SIGINT ? "user (SIGINT)" :
					 sig == SIGHUP ? "signal (SIGHUP)" : "signal (SIGTERM)");
		exit(EXIT_CANCELLED(sig));
	}
}

/*
 * seen_before
 *		Was this message (with this detail) already printed in this run?  The
 *		connections of a parallel export each compute the row sets, and the
 *		server says the same thing to each: it is printed once.  Remembers
 *		it otherwise.  A run prints a handful of messages: a list will do.
 */
static bool
seen_before(const char *msg, const char *detail)
{
	static char **seen = NULL;
	static int	nseen = 0;
	char	   *key = psprintf("%s\n%s", msg, detail ? detail : "");
	int			i;

	for (i = 0; i < nseen; i++)
		if (strcmp(seen[i], key) == 0)
		{
			pg_free(key);
			return true;
		}
	seen = pg_realloc(seen, sizeof(char *) * (nseen + 1));
	seen[nseen++] = key;
	return false;
}

/*
 * notice_receiver
 *		The server's NOTICEs and WARNINGs, in the client's style.
 */
static void
notice_receiver(void *arg, const PGresult *res)
{
	const char *sev = PQresultErrorField(res, PG_DIAG_SEVERITY_NONLOCALIZED);
	const char *msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
	const char *detail = PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL);
	const char *hint = PQresultErrorField(res, PG_DIAG_MESSAGE_HINT);
	bool		warning = (sev != NULL && strcmp(sev, "WARNING") == 0);

	if (msg == NULL || seen_before(msg, detail))
		return;
	if (warning)
	{
		pg_log_warning("%s", msg);
		if (detail)
			pg_log_warning_detail("%s", detail);
		if (hint)
			pg_log_warning_hint("%s", hint);
	}
	else if (show_notices)
	{
		pg_log_info("%s", msg);
		if (detail)
			pg_log_info_detail("%s", detail);
		if (hint)
			pg_log_info_hint("%s", hint);
	}
}

/*
 * exwiw_connect
 *		A connection, or exit(1) with libpq's message.
 */
PGconn *
exwiw_connect(const CliOptions *opts, const char *purpose)
{
	const char *keywords[8];
	const char *values[8];
	char	   *password = NULL;
	const char *env = getenv("DATABASE_PASSWORD");
	PGconn	   *conn;
	int			n;
	static char *prompted = NULL;	/* asked once, for every connection */

	if (env != NULL && env[0] != '\0')
		password = pg_strdup(env);
	else if (prompted != NULL)
		password = pg_strdup(prompted);
	else if (opts->password_prompt == PASSWORD_ALWAYS)
	{
		/* -W: before the first attempt, as psql */
		password = prompted = simple_prompt("Password: ", false);
		exit_if_cancelled();
	}
	connect_dbname = opts->dbname;

	for (;;)
	{
		n = 0;
		keywords[n] = "host", values[n++] = opts->host;
		keywords[n] = "port", values[n++] = opts->port;
		keywords[n] = "user", values[n++] = opts->user;
		keywords[n] = "password", values[n++] = password;
		keywords[n] = "dbname", values[n++] = opts->dbname;
		keywords[n] = "fallback_application_name", values[n++] = "exwiw";
		keywords[n] = NULL, values[n] = NULL;

		pg_log_debug("connecting (%s)", purpose);
		conn = PQconnectdbParams(keywords, values, true);
		if (conn == NULL)
			pg_fatal("could not connect to database: out of memory");
		if (PQstatus(conn) == CONNECTION_BAD && password == NULL &&
			PQconnectionNeedsPassword(conn) && exwiw_interactive() &&
			opts->password_prompt != PASSWORD_NEVER)
		{
			PQfinish(conn);
			password = prompted = simple_prompt("Password: ", false);
			exit_if_cancelled();
			continue;
		}
		break;
	}
	exit_if_cancelled();
	if (PQstatus(conn) == CONNECTION_BAD)
	{
		pg_log_error("%s", PQerrorMessage(conn));
		PQfinish(conn);
		exit(exwiw_error_exit);
	}
	if (opts->rails_env != NULL)
	{
		const char *values[1] = {opts->rails_env};

		PQclear(exec_params_checked(conn, "SELECT pg_catalog.set_config('exwiw.rails_env', $1, false)",
									1, values, "setting exwiw.rails_env (--rails-env)"));
	}
	/* on a terminal or not: cron and CI logs need them most */
	show_notices = (__pg_log_level <= PG_LOG_DEBUG ||
					(!opts->quiet &&
					 strcmp(opts->log_level ? opts->log_level : "info", "info") == 0));
	if (PQparameterStatus(conn, "in_hot_standby") != NULL &&
		strcmp(PQparameterStatus(conn, "in_hot_standby"), "on") == 0)
		connected_to_standby = true;
	PQsetNoticeReceiver(conn, notice_receiver, NULL);
	cancel_register(conn);
	return conn;
}

/*
 * exwiw_disconnect
 *		Close a connection made by exwiw_connect.
 */
void
exwiw_disconnect(PGconn *conn)
{
	if (conn == NULL)
		return;
	cancel_unregister(conn);
	PQfinish(conn);
}

/*
 * report_result_error
 *		An error result as "exwiw: error: ..." with detail and hint (and
 *		the context and SQLSTATE at debug level).  what says what failed,
 *		or NULL.
 */
void
report_result_error(const PGresult *res, const char *what)
{
	const char *msg = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	const char *detail = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL) : NULL;
	const char *hint = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_HINT) : NULL;
	const char *context = res ? PQresultErrorField(res, PG_DIAG_CONTEXT) : NULL;
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;

	if (msg == NULL)
	{
		const char *m = res ? PQresultErrorMessage(res) : "";

		if (m == NULL || m[0] == '\0')
			m = "lost the connection to the server";
		if (what)
			pg_log_error("%s: %s", what, m);
		else
			pg_log_error("%s", m);
		return;
	}
	if (what)
		pg_log_error("%s: %s", what, msg);
	else
		pg_log_error("%s", msg);
	if (detail)
		pg_log_error_detail("%s", detail);
	if (hint)
		pg_log_error_hint("%s", hint);
	if (hint)
		schema_decision_hints(hint);
	if (hint && strstr(hint, "allow_undecided => true exports them unmasked") != NULL)
		pg_log_error_hint("With the exwiw client, --allow-undecided exports them unmasked.");
	else if (hint && strstr(hint, "allow_undecided => true exports them in full") != NULL)
		pg_log_error_hint("With the exwiw client, --allow-undecided exports them in full.");
	else if (hint && strstr(hint, "allow_undecided => true exports them without a parent") != NULL)
		pg_log_error_hint("With the exwiw client, --allow-undecided exports them without a parent.");
	else if (hint && strstr(hint, "allow_undecided => true exports without these decisions") != NULL)
		pg_log_error_hint("With the exwiw client, --allow-undecided exports without these decisions.");
	if (hint && strstr(hint, "allow_missing_ids => true") != NULL)
		pg_log_error_hint("With the exwiw client, --allow-missing-ids exports the rows of the others.");
	if (connected_to_standby && state != NULL && strcmp(state, "40001") == 0)
		pg_log_error_hint("The standby canceled the export to replay the primary's changes (a recovery conflict); nothing was written.  "
						  "Set hot_standby_feedback = on on the standby, or raise max_standby_streaming_delay, and run the export again.");
	if (context)
		pg_log_debug("context: %s", context);
	if (state)
		pg_log_debug("SQLSTATE %s", state);
}

/*
 * check_result
 *		Exit on an error result (or after a cancel).
 */
static PGresult *
check_result(PGconn *conn, PGresult *res, const char *what)
{
	ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;

	if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK)
		return res;
	exit_if_cancelled();
	if (res == NULL)
		pg_log_error("%s: %s", what, PQerrorMessage(conn));
	else
		report_result_error(res, what);
	exit(exwiw_error_exit);
}

/*
 * exec_checked
 *		Run sql; its result, or exit(1) with the error.
 */
PGresult *
exec_checked(PGconn *conn, const char *sql, const char *what)
{
	pg_log_debug("query: %s", sql);
	return check_result(conn, PQexec(conn, sql), what);
}

/*
 * exec_params_checked
 *		Run sql with text parameters; its result, or exit(1).
 */
PGresult *
exec_params_checked(PGconn *conn, const char *sql, int nparams,
					const char *const *values, const char *what)
{
	pg_log_debug("query: %s", sql);
	return check_result(conn, PQexecParams(conn, sql, nparams, NULL, values,
										   NULL, NULL, 0), what);
}

/*
 * exwiw_extension_schema
 *		The schema the exwiw extension is installed in, quoted for SQL.
 *		Exits with exwiw_error_exit and a hint when it is not installed, or
 *		when it is older than the functions this client calls (1.1: the
 *		files, allow_undecided and ids_by_space arguments).
 */
char *
exwiw_extension_schema(PGconn *conn)
{
	PGresult   *res;
	char	   *nsp;

	res = exec_checked(conn,
					   "SELECT pg_catalog.quote_ident(n.nspname), e.extversion "
					   "FROM pg_catalog.pg_extension e "
					   "JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace "
					   "WHERE e.extname = 'exwiw'",
					   "could not look up the exwiw extension");
	if (PQntuples(res) != 1)
	{
		pg_log_error("the exwiw extension is not installed in database \"%s\"", PQdb(conn));
		pg_log_error_hint("Run CREATE EXTENSION exwiw; as a superuser in that database.");
		exit(exwiw_error_exit);
	}
	if (strcmp(PQgetvalue(res, 0, 1), "1.0") == 0)
	{
		pg_log_error("the exwiw extension in database \"%s\" is version %s; this client needs %s",
					 PQdb(conn), PQgetvalue(res, 0, 1), EXWIW_VERSION);
		pg_log_error_hint("Run ALTER EXTENSION exwiw UPDATE; in that database.");
		exit(exwiw_error_exit);
	}
	nsp = pg_strdup(PQgetvalue(res, 0, 0));
	PQclear(res);
	return nsp;
}

/*
 * exec_command
 *		Run a command whose result does not matter, or exit(1).
 */
void
exec_command(PGconn *conn, const char *sql, const char *what)
{
	PQclear(exec_checked(conn, sql, what));
}

/*
 * append_conninfo_value
 *		key='value', quoted for a conninfo string.
 */
static void
append_conninfo_value(StringInfo s, const char *key, const char *value)
{
	const char *p;

	if (s->len > 0)
		appendStringInfoChar(s, ' ');
	appendStringInfo(s, "%s='", key);
	for (p = value; *p; p++)
	{
		if (*p == '\'' || *p == '\\')
			appendStringInfoChar(s, '\\');
		appendStringInfoChar(s, *p);
	}
	appendStringInfoChar(s, '\'');
}

/*
 * conninfo_for_child
 *		The live connection's settings as a conninfo string, for pg_dump to
 *		connect where we are connected; the password is returned apart (for
 *		the child's PGPASSWORD, not its command line).
 *
 * The conninfo is on the child's command line, which every local user can
 * read (/proc/PID/cmdline), so no secret goes into it.  The other secret
 * libpq knows, sslpassword, has no environment variable: when it was on our
 * own command line (--dbname), where it was just as readable, it is passed
 * on; else it came from a service file, and the child, with our
 * environment, is told the service's name (the live connection does not
 * know it) and reads it there.
 */
char *
conninfo_for_child(PGconn *conn, char **password)
{
	PQconninfoOption *opts = PQconninfo(conn);
	PQconninfoOption *given = connect_dbname ? PQconninfoParse(connect_dbname, NULL) : NULL;
	PQconninfoOption *o;
	const char *service = getenv("PGSERVICE");
	StringInfoData s;

	for (o = given; o && o->keyword; o++)
	{
		if (strcmp(o->keyword, "service") == 0 && o->val != NULL)
			service = o->val;
	}

	*password = NULL;
	initStringInfo(&s);
	for (o = opts; o && o->keyword; o++)
	{
		if (o->val == NULL || o->val[0] == '\0')
			continue;
		if (strcmp(o->keyword, "password") == 0)
		{
			*password = pg_strdup(o->val);
			continue;
		}
		if (o->dispchar != NULL && o->dispchar[0] == '*')
		{
			/* another secret (sslpassword): only when it was on our argv */
			PQconninfoOption *g;
			bool		on_argv = false;

			for (g = given; g && g->keyword; g++)
				if (strcmp(g->keyword, o->keyword) == 0 && g->val != NULL)
					on_argv = true;
			if (!on_argv)
				continue;
		}
		if (strcmp(o->keyword, "fallback_application_name") == 0 ||
			strcmp(o->keyword, "application_name") == 0 ||
			strcmp(o->keyword, "replication") == 0)
			continue;
		append_conninfo_value(&s, o->keyword, o->val);
	}
	if (service != NULL && service[0] != '\0')
		append_conninfo_value(&s, "service", service);
	append_conninfo_value(&s, "application_name", "exwiw pg_dump");
	PQconninfoFree(opts);
	if (given)
		PQconninfoFree(given);
	return s.data;
}

/*
 * exwiw_interactive
 *		Whether stdin is a terminal (prompts are allowed).
 */
bool
exwiw_interactive(void)
{
	return isatty(fileno(stdin));
}
