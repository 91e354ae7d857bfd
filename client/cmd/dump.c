/*-------------------------------------------------------------------------
 *
 * dump.c
 *	  The dump subcommand: one whole table, or one query, into files of at
 *	  most N rows, read from one snapshot by one connection or several.
 *
 *	  exwiw dump --table=orders --format=jsonl --rows-per-file=10000 -j 2 -o out
 *	  exwiw dump --query='SELECT ...' --table=name --format=jsonl ...
 *
 * Every byte still comes from the server: each file is one call of
 * exwiw_dump (sql: INSERTs of 10,000 rows; copy: a COPY block) or
 * exwiw_dump_jsonl, and each connection runs one statement
 *
 *	SELECT v.name, exwiw_dump(v.query, ...) FROM (VALUES ...) AS v(name, query)
 *
 * which streams (file_name, chunk) rows, as exwiw_export does, into the
 * export's stream loop (stream.c) and output directory (outdir.c).
 *
 * A table's files are key ranges of its single-column primary key: a walk
 * of the key's index on the snapshot gives each file's first key (the key
 * N rows after the previous file's first), so that every file holds at
 * most N rows, is ordered by the key, and loads by itself.  Without
 * --rows-per-file, a table with such a key is one file, and with -j N it
 * is read by N connections as N key ranges that start at a statement's
 * first row (every 10,000th row: the same walk), whose outputs concatenate
 * (parts.c) to the file, byte for byte the file of -j 1, since exwiw_dump
 * writes statements alone and JSON Lines are lines; a COPY file is one
 * block, so its N parts are the server's (part => k, parts => N), each of
 * which counts and skips rows.  A query's files are its parts (part => k,
 * parts => n, with n from a count on the snapshot), for JSON Lines only: a
 * part of an INSERT or COPY output does not load by itself.  Each part
 * counts and reads the query again up to its end, so a query's files cost
 * more than a table's.  Without --rows-per-file, one file.
 *
 * The statements name the table as the search path finds it, or as
 * schema.table (exwiw_dump's table_name: split on ".", quoted as needed).
 * Files are named insert-001-<table>.sql (.jsonl), or with
 * --rows-per-file insert-001-<table>.partK.sql, K zero-padded to the
 * width of the number of parts so that names sort in key order.  The
 * files are dealt to the connections in turn.
 *
 *-------------------------------------------------------------------------
 */
#include "cli.h"

#include <unistd.h>

/* Statements of a table's INSERT file: the README's recommendation. */
#define DUMP_ROWS_PER_STATEMENT 10000

/*
 * The chunks the calls stream, in bytes (the functions' default is 256 kB).
 * The backend's text output copies each chunk into a new palloc'd buffer
 * of its size, which AllocSet takes from malloc; glibc maps a buffer over
 * its mmap threshold (128 kB, raised only as mapped buffers are freed)
 * anew, and on a virtual machine each first touch of a new page is a fault
 * to the host.  Chunks of 64 kB stay in malloc's heap, reused from row to
 * row: a third of the page faults, and the 100-file dump about 10% faster
 * on the benchmark machine (bench/README.md, parallel.sh).  The files' bytes
 * do not depend on it: chunks end between rows and join with newlines.
 */
#define DUMP_CHUNK_BYTES		(64 * 1024)

/*
 * file_name_part
 *		A table's name as a file name part, with "/", "%" and control
 *		characters written %XX, as the server names files (file_name.c).
 */
static void
file_name_part(StringInfo s, const char *table)
{
	const unsigned char *p;

	for (p = (const unsigned char *) table; *p; p++)
	{
		if (*p == '/' || *p == '%' || *p < 0x20 || *p == 0x7f)
			appendStringInfo(s, "%%%02X", *p);
		else
			appendStringInfoChar(s, (char) *p);
	}
}

/*
 * literal
 *		s as an SQL string literal (palloc'd), or exit on failure.
 */
static char *
literal(PGconn *conn, const char *s)
{
	char	   *q = PQescapeLiteral(conn, s, strlen(s));
	char	   *r;

	if (q == NULL)
	{
		pg_log_error("could not quote a value: %s", PQerrorMessage(conn));
		exit(1);
	}
	r = pg_strdup(q);
	PQfreemem(q);
	return r;
}

/*
 * dump_call
 *		The server call that writes a file from the query in v.q, in chunks
 *		of DUMP_CHUNK_BYTES, with part v.k of n when n > 0 (a query's parts).
 */
static char *
dump_call(const CliOptions *opts, const char *nsp, const char *table_lit, int n)
{
	const char *query = "v.q";
	char	   *named = n > 0 ?
		psprintf(", chunk_bytes => %d, part => v.k, parts => %d", DUMP_CHUNK_BYTES, n) :
		psprintf(", chunk_bytes => %d", DUMP_CHUNK_BYTES);
	char	   *call;

	if (strcmp(opts->dump_format, "jsonl") == 0)
		call = psprintf("%s.exwiw_dump_jsonl(%s%s)", nsp, query, named);
	else if (strcmp(opts->dump_format, "copy") == 0)
		call = psprintf("%s.exwiw_dump(%s, %s, format => 'copy'%s)", nsp, query, table_lit, named);
	else
		call = psprintf("%s.exwiw_dump(%s, %s, %d%s)", nsp, query, table_lit,
						DUMP_ROWS_PER_STATEMENT, named);
	pg_free(named);
	return call;
}

/*
 * key_ranges
 *		The queries of key ranges of table (regclass text) by its
 *		single-column key (an identifier, quoted): ranges of step rows in
 *		key order, or, when groups > 0, that many ranges of about equal
 *		numbers of such steps; as literals of the calls' v.q, in key order,
 *		*n of them (0 for an empty table).  Each range's first key is the
 *		key step rows after the previous one's, found by the key's index: a
 *		recursive walk of one index-only scan of step entries per range (a
 *		row_number() pass costs several times as much, and is a part of
 *		the export that no worker shares).  A range holds the keys from its
 *		first to the next range's.  The comparisons are the key type's own
 *		(unqualified, as the ranges' queries and ORDER BY use them), so that
 *		a type such as citext ranges as it sorts.
 */
static char **
key_ranges(PGconn *conn, const char *table, const char *key, long step,
		   int groups, int *n)
{
	char	   *q = psprintf("WITH RECURSIVE exwiw_b(k) AS (SELECT pg_catalog.min(%s) FROM %s"
							 " UNION ALL SELECT (SELECT %s FROM %s WHERE %s >= exwiw_b.k ORDER BY %s OFFSET %ld LIMIT 1)"
							 " FROM exwiw_b WHERE exwiw_b.k IS NOT NULL), "
							 "exwiw_c AS (SELECT exwiw_b.k, pg_catalog.row_number() OVER (ORDER BY exwiw_b.k) OPERATOR(pg_catalog.-) 1 AS i,"
							 " pg_catalog.count(*) OVER () AS n FROM exwiw_b WHERE exwiw_b.k IS NOT NULL), "
							 "exwiw_g AS (SELECT pg_catalog.min(exwiw_c.k) AS k FROM exwiw_c GROUP BY"
							 " CASE WHEN CAST($3 AS pg_catalog.int8) OPERATOR(pg_catalog.=) 0 THEN exwiw_c.i"
							 " ELSE exwiw_c.i OPERATOR(pg_catalog.*) CAST($3 AS pg_catalog.int8) OPERATOR(pg_catalog./) exwiw_c.n END) "
							 "SELECT pg_catalog.format('SELECT * FROM %%s WHERE %%s >= %%L%%s ORDER BY %%s', "
							 " CAST($1 AS pg_catalog.regclass), CAST($2 AS pg_catalog.text), s.k, "
							 " CASE WHEN s.next IS NULL THEN '' ELSE pg_catalog.format(' AND %%s < %%L', CAST($2 AS pg_catalog.text), s.next) END, "
							 " CAST($2 AS pg_catalog.text)) "
							 "FROM (SELECT exwiw_g.k, pg_catalog.lead(exwiw_g.k) OVER (ORDER BY exwiw_g.k) AS next"
							 " FROM exwiw_g) s ORDER BY s.k",
							 key, table, key, table, key, key, step);
	char	   *g = psprintf("%d", groups);
	const char *params[3] = {table, key, g};
	PGresult   *res;
	char	  **calls;
	int			i;

	res = exec_params_checked(conn, q, 3, params, "could not split the table by its primary key");
	*n = PQntuples(res);
	calls = pg_malloc(sizeof(char *) * (*n + 1));
	for (i = 0; i < *n; i++)
		calls[i] = literal(conn, PQgetvalue(res, i, 0));
	PQclear(res);
	pg_free(q);
	pg_free(g);
	return calls;
}

/*
 * run_dump
 *		The dump subcommand, see the file header.  Returns the exit status.
 */
int
run_dump(CliOptions *opts)
{
	PGconn	   *conn0;
	PGresult   *res;
	char	   *nsp;
	char	   *snapshot = NULL;
	char	   *table_text = NULL;	/* the table as regclass text */
	char	   *relname;		/* the table's name, for the file names */
	char	   *out_name = NULL;	/* the table's name in the files:
									 * schema.name unless the search path
									 * finds it */
	char	   *table_lit;
	const char *ext = strcmp(opts->dump_format, "jsonl") == 0 ? "jsonl" : "sql";
	char	  **names;
	char	  **calls;
	int			nfiles;
	int			jobs = opts->jobs;
	int			width;
	int			i;
	StringInfoData *sql;
	ExportStream *streams;
	StreamSink	sink = {0};
	char	   *temp;
	char	   *call;
	bool		join_parts = false; /* the files are parts of one */
	bool		join_ranges = false;	/* ... key ranges of one */

	outdir_check_target(opts->output_dir, opts->force, opts->quiet, NULL);
	setup_cancel_handler_multi();
	conn0 = exwiw_connect(opts, "dump");
	nsp = exwiw_extension_schema(conn0);
	exec_command(conn0, "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", NULL);
	if (jobs > 1)
	{
		res = exec_checked(conn0, "SELECT pg_catalog.pg_export_snapshot()",
						   "could not export the snapshot");
		snapshot = pg_strdup(PQgetvalue(res, 0, 0));
		PQclear(res);
	}

	/* the output's name, and for a table its text and key */
	if (opts->dump_query == NULL)
	{
		const char *params[1] = {opts->dump_table};

		res = exec_params_checked(conn0,
								  "SELECT CAST(CAST($1 AS pg_catalog.regclass) AS pg_catalog.text), c.relname, "
								  " CASE WHEN pg_catalog.pg_table_is_visible(c.oid) THEN c.relname"
								  "  ELSE n.nspname OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) c.relname END, "
								  " (SELECT pg_catalog.quote_ident(a.attname) FROM pg_catalog.pg_index i"
								  "  JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) i.indrelid"
								  "   AND a.attnum OPERATOR(pg_catalog.=) i.indkey[0]"
								  "  WHERE i.indrelid OPERATOR(pg_catalog.=) c.oid AND i.indisprimary"
								  "   AND i.indnatts OPERATOR(pg_catalog.=) 1) "
								  "FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace "
								  "WHERE c.oid OPERATOR(pg_catalog.=) CAST($1 AS pg_catalog.regclass)",
								  1, params, "could not find the table");
		table_text = pg_strdup(PQgetvalue(res, 0, 0));
		relname = pg_strdup(PQgetvalue(res, 0, 1));
		out_name = pg_strdup(PQgetvalue(res, 0, 2));
		if (opts->rows_per_file != -1 && PQgetisnull(res, 0, 3))
		{
			pg_log_error("table \"%s\" has no single-column primary key to split its files by", table_text);
			pg_log_error_hint("Drop --rows-per-file for one file, or use --query='SELECT ... ORDER BY ...' --format=jsonl.");
			exit(1);
		}
		if (!PQgetisnull(res, 0, 3))
		{
			char	   *key = pg_strdup(PQgetvalue(res, 0, 3));

			PQclear(res);
			if (opts->rows_per_file == -1 && jobs > 1 &&
				strcmp(opts->dump_format, "copy") != 0)
			{
				/*
				 * one file; with -j N, N key ranges of whole statements
				 * (exwiw_dump writes statements alone, JSON Lines are lines:
				 * ranges that start at a statement's first row concatenate to
				 * the file)
				 */
				calls = key_ranges(conn0, table_text, key, DUMP_ROWS_PER_STATEMENT,
								   jobs, &nfiles);
				if (nfiles < 2)
				{
					nfiles = 1;
					calls[0] = literal(conn0, psprintf("SELECT * FROM %s ORDER BY %s", table_text, key));
				}
				else
					join_ranges = true;
				names = pg_malloc(sizeof(char *) * (nfiles + 1));
			}
			else if (opts->rows_per_file == -1)
			{
				/* one file; with -j N, its N parts (COPY: one block) */
				nfiles = jobs > 1 ? jobs : 1;
				join_parts = jobs > 1;
				names = pg_malloc(sizeof(char *) * (nfiles + 1));
				calls = pg_malloc(sizeof(char *) * (nfiles + 1));
				for (i = 0; i < nfiles; i++)
					calls[i] = literal(conn0, psprintf("SELECT * FROM %s ORDER BY %s", table_text, key));
			}
			else
			{
				calls = key_ranges(conn0, table_text, key, opts->rows_per_file, 0,
								   &nfiles);
				names = pg_malloc(sizeof(char *) * (nfiles + 1));
			}
		}
		else
		{
			PQclear(res);
			nfiles = 1;
			names = pg_malloc(sizeof(char *));
			calls = pg_malloc(sizeof(char *));
			calls[0] = literal(conn0, psprintf("SELECT * FROM %s", table_text));
		}
	}
	else
	{
		relname = pg_strdup(opts->dump_table ? opts->dump_table : "query");
		nfiles = 1;
		if (opts->rows_per_file != -1)
		{
			/* the query's parts: its rows counted on the snapshot */
			char	   *q = psprintf("SELECT pg_catalog.count(*) FROM (\n%s\n) AS exwiw_dump", opts->dump_query);
			long		n;

			res = exec_checked(conn0, q, "could not count the query's rows");
			n = atol(PQgetvalue(res, 0, 0));
			PQclear(res);
			nfiles = n == 0 ? 0 : (int) ((n + opts->rows_per_file - 1) / opts->rows_per_file);
		}
		names = pg_malloc(sizeof(char *) * (nfiles + 1));
		calls = pg_malloc(sizeof(char *) * (nfiles + 1));
		for (i = 0; i < nfiles; i++)
			calls[i] = literal(conn0, opts->dump_query);
	}
	table_lit = literal(conn0, opts->dump_query ? relname : out_name);

	/* the files' names and calls */
	width = 1;
	for (i = nfiles; i >= 10; i /= 10)
		width++;
	call = dump_call(opts, nsp, table_lit,
					 (opts->dump_query && opts->rows_per_file != -1) || join_parts ? nfiles : 0);
	for (i = 0; i < nfiles; i++)
	{
		StringInfoData n;
		bool		parts = opts->rows_per_file != -1;

		initStringInfo(&n);
		appendStringInfoString(&n, "insert-001-");
		file_name_part(&n, relname);
		if (parts)
			appendStringInfo(&n, ".part%0*d", width, i + 1);
		appendStringInfo(&n, ".%s", ext);
		if (join_parts || join_ranges)
			appendStringInfo(&n, "%s%d", PART_FILE_SUFFIX, i + 1);
		names[i] = n.data;
	}
	pg_log_debug("%d files", nfiles);

	/* a worker per connection, the files dealt in turn */
	if (jobs > nfiles)
		jobs = nfiles > 0 ? nfiles : 1;
	sql = pg_malloc0(sizeof(StringInfoData) * jobs);
	for (i = 0; i < jobs; i++)
	{
		initStringInfo(&sql[i]);
		appendStringInfoString(&sql[i], "SELECT v.n, ");
	}
	streams = pg_malloc0(sizeof(ExportStream) * jobs);
	streams[0].conn = conn0;
	temp = outdir_create_temp(opts->output_dir);
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
	if (nfiles > 0)
	{
		/*
		 * The call is in the select list of a VALUES scan of the files (name,
		 * query, part): ProjectSet runs it value-per-call, row after row, so
		 * the chunks stream and the files come in order.
		 */
		for (i = 0; i < jobs; i++)
		{
			int			f;
			bool		first = true;

			appendStringInfo(&sql[i], "%s FROM (VALUES ", call);
			for (f = i; f < nfiles; f += jobs)
			{
				char	   *nl = literal(conn0, names[f]);

				appendStringInfo(&sql[i], "%s(%s, %s, %d)", first ? "" : ", ", nl, calls[f], f + 1);
				first = false;
				pg_free(nl);
			}
			appendStringInfoString(&sql[i], ") AS v(n, q, k)");
			pg_log_debug("query: %s", sql[i].data);
			if (!PQsendQuery(streams[i].conn, sql[i].data) ||
				!PQsetSingleRowMode(streams[i].conn))
			{
				pg_log_error("could not send the dump query: %s", PQerrorMessage(streams[i].conn));
				exit(1);
			}
		}
		sink.dir = temp;
		sink.compress_method = opts->compress_method;
		sink.compress_level = opts->compress_level;
		sink.format = strcmp(opts->dump_format, "copy") == 0 ? EXPORT_FORMAT_COPY :
			strcmp(opts->dump_format, "jsonl") == 0 ? EXPORT_FORMAT_JSONL : EXPORT_FORMAT_INSERT;
		stream_run(streams, jobs, &sink);
		if (join_parts || join_ranges)
			join_part_files();
	}
	for (i = 0; i < jobs; i++)
	{
		exec_command(streams[i].conn, "COMMIT", NULL);
		if (i > 0)
			exwiw_disconnect(streams[i].conn);
	}
	exit_if_cancelled();
	outdir_fsync_files();
	outdir_commit(opts->output_dir);
	if (!opts->quiet && isatty(fileno(stderr)))
		pg_log_info("%d files in %s", nfiles, opts->output_dir);
	exwiw_disconnect(conn0);
	return 0;
}
