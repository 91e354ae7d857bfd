/*-------------------------------------------------------------------------
 *
 * options.c
 *	  The command line: subcommands and flags as the Ruby client has them,
 *	  merged with the run config (runconfig.c), then checked.
 *
 * "exwiw [SUBCOMMAND] [options]": the subcommand is the first argument
 * that is not an option, when it is export, explain or schema (schema
 * takes a verb: generate, check or tidy); otherwise it is export.  Options
 * may come before or after it, as with PostgreSQL's clients (getopt_long
 * moves the other arguments to the end).  With no option at all, exwiw
 * prints its help, as the Ruby client does; "exwiw SUBCOMMAND --help"
 * prints that subcommand's.  A mistyped flag, subcommand or verb gets a
 * "did you mean" hint (edit distance); an ambiguous abbreviation, the
 * flags it could be.  -W and -w are psql's (connection.c).
 *
 * Flags take "--flag=value" and "--flag value" (the Ruby client took only
 * the first form for some flags, and silently ignored a value given the
 * second way); unambiguous prefixes of long flags work, as with Ruby's
 * OptionParser and getopt_long.  Flags win over the run config, which
 * fills only what the command line left unset.
 *
 * Messages follow the Ruby client's wording, in the style of PostgreSQL's
 * clients ("exwiw: error: ...", exit status 1).
 *
 *-------------------------------------------------------------------------
 */
#include "cli.h"

#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "getopt_long.h"

enum
{
	OPT_SCHEMA_DIR = 1000,
	OPT_FROM_DB,
	OPT_URI,
	OPT_DATABASE,
	OPT_TARGET_TABLE,
	OPT_TARGET_COLLECTION,
	OPT_IDS,
	OPT_IDS_FIELD,
	OPT_SCOPE_COLUMN,
	OPT_OUTPUT_FORMAT,
	OPT_INSERT_ONLY,
	OPT_AFTER_INSERT_HOOK,
	OPT_MONGODB_TIMEOUT,
	OPT_FAIL_ON,
	OPT_LOG_LEVEL,
	OPT_HELP,
	OPT_WITH_SCHEMA,
	OPT_EXCLUDE_SCHEMA,
	OPT_RAILS_ENV,
	OPT_COMMIT_EACH_FILE,
	OPT_FORCE,
	OPT_ALLOW_UNDECIDED,
	OPT_ALL_TABLES,
	OPT_ALLOW_MISSING_IDS,
	OPT_SPLIT_ROWS,
	OPT_COMPRESS,
	OPT_NO_VERIFY,
	OPT_EXACT,
	OPT_SINCE,
	OPT_MAX_ROWS,
	OPT_MAX_BYTES,
	OPT_ANALYZE,
	OPT_TABLE,
	OPT_QUERY,
	OPT_FORMAT,
	OPT_ROWS_PER_FILE,
	OPT_SINGLE_TRANSACTION,
	OPT_REFRESH,
	OPT_ON_CONFLICT,
	OPT_ROWS,
	OPT_CONFIG_DIR,
	OPT_CURSOR_PARALLEL
};

static const struct option long_options[] = {
	{"host", required_argument, NULL, 'h'},
	{"port", required_argument, NULL, 'p'},
	{"user", required_argument, NULL, 'u'},
	{"username", required_argument, NULL, 'U'},
	{"password", no_argument, NULL, 'W'},
	{"no-password", no_argument, NULL, 'w'},
	{"output-dir", required_argument, NULL, 'o'},
	{"schema-dir", required_argument, NULL, OPT_SCHEMA_DIR},
	{"from-db", no_argument, NULL, OPT_FROM_DB},
	{"config", required_argument, NULL, 'c'},
	{"config-dir", required_argument, NULL, OPT_CONFIG_DIR},
	{"cursor-parallel", no_argument, NULL, OPT_CURSOR_PARALLEL},
	{"adapter", required_argument, NULL, 'a'},
	{"uri", required_argument, NULL, OPT_URI},
	{"database", required_argument, NULL, OPT_DATABASE},
	{"dbname", required_argument, NULL, 'd'},
	{"target-table", required_argument, NULL, OPT_TARGET_TABLE},
	{"target-collection", required_argument, NULL, OPT_TARGET_COLLECTION},
	{"ids", required_argument, NULL, OPT_IDS},
	{"ids-field", required_argument, NULL, OPT_IDS_FIELD},
	{"scope-column", required_argument, NULL, OPT_SCOPE_COLUMN},
	{"output-format", required_argument, NULL, OPT_OUTPUT_FORMAT},
	{"insert-only", no_argument, NULL, OPT_INSERT_ONLY},
	{"after-insert-hook", required_argument, NULL, OPT_AFTER_INSERT_HOOK},
	{"parallel-workers", required_argument, NULL, 'j'},
	{"jobs", required_argument, NULL, 'j'},
	{"mongodb-query-timeout-ms", required_argument, NULL, OPT_MONGODB_TIMEOUT},
	{"fail-on", required_argument, NULL, OPT_FAIL_ON},
	{"log-level", required_argument, NULL, OPT_LOG_LEVEL},
	{"with-schema", no_argument, NULL, OPT_WITH_SCHEMA},
	{"exclude-schema", required_argument, NULL, OPT_EXCLUDE_SCHEMA},
	{"rails-env", required_argument, NULL, OPT_RAILS_ENV},
	{"force", no_argument, NULL, OPT_FORCE},
	{"allow-undecided", no_argument, NULL, OPT_ALLOW_UNDECIDED},
	{"all-tables", no_argument, NULL, OPT_ALL_TABLES},
	{"allow-missing-ids", no_argument, NULL, OPT_ALLOW_MISSING_IDS},
	{"split-rows", required_argument, NULL, OPT_SPLIT_ROWS},
	{"compress", required_argument, NULL, 'Z'},
	{"no-verify", no_argument, NULL, OPT_NO_VERIFY},
	{"exact", no_argument, NULL, OPT_EXACT},
	{"since", required_argument, NULL, OPT_SINCE},
	{"max-rows", required_argument, NULL, OPT_MAX_ROWS},
	{"max-bytes", required_argument, NULL, OPT_MAX_BYTES},
	{"table", required_argument, NULL, OPT_TABLE},
	{"query", required_argument, NULL, OPT_QUERY},
	{"format", required_argument, NULL, OPT_FORMAT},
	{"rows-per-file", required_argument, NULL, OPT_ROWS_PER_FILE},
	{"single-transaction", no_argument, NULL, '1'},
	{"commit-each-file", no_argument, NULL, OPT_COMMIT_EACH_FILE},
	{"refresh", no_argument, NULL, OPT_REFRESH},
	{"on-conflict", required_argument, NULL, OPT_ON_CONFLICT},
	{"rows", required_argument, NULL, OPT_ROWS},
	{"quiet", no_argument, NULL, 'q'},
	{"analyze", no_argument, NULL, OPT_ANALYZE},
	{"verbose", no_argument, NULL, 'v'},
	{"help", no_argument, NULL, OPT_HELP},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0}
};

/* the subcommands, in the order the help lists them */
static const char *const subcommands[] = {"export", "explain", "dump", "load", "verify", "schema", "mask", NULL};
static const char *const schema_verbs[] = {"generate", "check", "tidy", NULL};

/*
 * usage_subcommands / usage_connection / usage_export / usage_explain /
 * usage_schema / usage_other
 *		The sections of --help, laid out as the Ruby client's (OptionParser:
 *		four spaces, the flag padded to 32 columns, its description).
 */
static void
usage_subcommands(void)
{
	printf("Subcommands:\n"
		   "  export    Write one target's rows, closed under foreign keys and masked,\n"
		   "            from one snapshot, into a directory of per-table files\n"
		   "            (insert-NNN-<table>.sql, or .jsonl). The default when omitted.\n"
		   "  explain   Print the plan: one line per table with its file, estimated\n"
		   "            rows, the indexes it uses and its query.\n"
		   "  schema    Maintain the schema config (generate | check | tidy) by\n"
		   "            reading the live database; --from-db is required. `check`\n"
		   "            prints a JSON report and exits 1 when the config needs work.\n"
		   "  dump      Write one whole table (--table) or query (--query) into files\n"
		   "            of at most --rows-per-file rows, from one snapshot, with -j N\n"
		   "            connections: no config, no masks, no closure.\n"
		   "  load      Load an export's directory (load DIR) into a database, file by\n"
		   "            file, with libpq: -j N, --single-transaction, --refresh,\n"
		   "            --on-conflict=skip.\n"
		   "  verify    Check an export's directory (verify DIR) against its\n"
		   "            manifest.json: every file's size and SHA-256, no file added.\n"
		   "  mask      preview: print a table's masked columns, original beside\n"
		   "            masked, for its first --rows rows (for a privileged role).\n"
		   "Options go before or after the subcommand. \"exwiw SUBCOMMAND --help\"\n"
		   "lists that subcommand's options only; \"man exwiw\" is the manual.\n"
		   "\n");
}

static void
usage_connection(void)
{
	printf("Connection options (libpq's PG* environment variables apply too):\n"
		   "    -h, --host=HOST                  Target database host (or socket directory)\n"
		   "    -p, --port=PORT                  Target database port\n"
		   "    -u, --user=USERNAME              Target database user (also -U, --username)\n"
		   "        --database=DATABASE          Target database name\n"
		   "    -d, --dbname=DBNAME              Database name, or a conninfo string\n"
		   "                                     ('service=prod', 'host=... sslmode=...') or URI\n"
		   "    -w, --no-password                Never prompt for a password\n"
		   "    -W, --password                   Prompt for a password before connecting\n"
		   "    -a, --adapter=ADAPTER            Database adapter: postgresql (the only one)\n"
		   "    The password: DATABASE_PASSWORD, else libpq's (PGPASSWORD, ~/.pgpass),\n"
		   "    else asked for when the server wants one and stdin is a terminal.\n"
		   "\n");
}

static void
usage_target(void)
{
	printf("        --target-table=TABLE         Target table for extraction; without it, --ids are\n"
		   "                                     values of the tables' scope_column (scope-column mode)\n"
		   "        --ids=IDS                    Comma-separated primary keys of the target, or scope\n"
		   "                                     values (required). `<id_space>=` prefixes\n"
		   "                                     (--ids=org=a,b) give the ids of a named ID space.\n"
		   "        --scope-column=COLUMN        DEPRECATED: scope every table that has COLUMN by it\n"
		   "                                     (declare scope_column per table instead)\n"
		   "        --schema-dir=SCHEMA_DIR_PATH Directory of schema JSON files, one per table\n"
		   "                                     (or one JSON file holding the array). (or set\n"
		   "                                     schema_dir in the config file)\n"
		   "    -c, --config=CONFIG_FILE_PATH    Path to the exwiw config YAML. Defaults to\n"
		   "                                     ./exwiw.yml (or ./exwiw.yaml) when present. CLI\n"
		   "                                     options take precedence; paths inside the file\n"
		   "                                     are resolved relative to the file.\n");
}

static void
usage_export(void)
{
	printf("Export options:\n");
	usage_target();
	printf("    -o, --output-dir=DUMP_DIR_PATH   Output directory, default dump/. Written into a\n"
		   "                                     temporary directory next to it and renamed into\n"
		   "                                     place when every file is complete and synced.\n"
		   "        --force                      Replace a non-empty output directory (without it,\n"
		   "                                     exwiw asks on a terminal and refuses otherwise)\n"
		   "        --output-format=FORMAT       insert (default), copy, or jsonl (Extended JSON\n"
		   "                                     Lines, insert-NNN-<table>.jsonl)\n"
		   "        --with-schema                Also write insert-000-schema.sql: pg_dump\n"
		   "                                     --schema-only made idempotent (the Ruby client\n"
		   "                                     always wrote it; this one writes it when asked),\n"
		   "                                     without the extensions no table needs\n"
		   "        --exclude-schema=PATTERN     With --with-schema: leave the schemas that match\n"
		   "                                     PATTERN (pg_dump's -N) out of the schema file\n"
		   "        --rails-env=ENV              The environment written into Rails's\n"
		   "                                     ar_internal_metadata (default development; ''\n"
		   "                                     keeps production's)\n"
		   "    -j, --parallel-workers=N         Export with N connections on one snapshot,\n"
		   "                                     tables (and parts of the largest) dealt to\n"
		   "                                     them; the directory is byte-identical to\n"
		   "                                     -j 1. (also --jobs)\n"
		   "        --since=COLUMN=WHEN          Every table with COLUMN (not the target) keeps\n"
		   "                                     its rows of COLUMN >= WHEN, a timestamp or now\n"
		   "                                     less an interval (created_at=\"90 days\")\n"
		   "        --max-rows=N                 Count the export's rows first, on its snapshot,\n"
		   "                                     and write nothing when they are more than N\n"
		   "        --max-bytes=SIZE             The same for its estimated size (500MB, 2GB)\n"
		   "        --split-rows=N               Write each table as part files of at most N\n"
		   "                                     rows, insert-NNN-<table>.partK.sql (.jsonl),\n"
		   "                                     each loading on its own (setval in the last)\n"
		   "    -Z, --compress=METHOD[:LEVEL]    Compress the files: gzip, zstd or none, or a\n"
		   "                                     gzip level 0-9 (.sql.gz, .sql.zst; exwiw load\n"
		   "                                     reads them)\n"
		   "        --all-tables                 Export every table of the config in full,\n"
		   "                                     masked, without a target or ids\n"
		   "        --allow-undecided            Export columns marked needs_mask_decision that\n"
		   "                                     have no mask, and tables that no rule ties to\n"
		   "                                     the target, in full (refused by default)\n"
		   "        --allow-missing-ids          Export although some --ids match no row of the\n"
		   "                                     target (an error by default)\n"
		   "        --after-insert-hook=PATH     Executable run after the files are in place, with\n"
		   "                                     EXWIW_OUTPUT_DIR, EXWIW_IDS, ... in its environment\n"
		   "                                     (.rb hooks are the Ruby client's only)\n"
		   "    -q, --quiet                      No progress display, no summary: only errors\n"
		   "    -v, --verbose                    The summary line also when stderr is not a\n"
		   "                                     terminal\n"
		   "    Progress (per table rows and bytes against the estimate, an overall bar\n"
		   "    with an ETA, and a summary line) is shown on stderr when it is a terminal.\n"
		   "\n");
}

/*
 * usage_dump
 *		The dump subcommand's options.
 */
static void
usage_mask(void)
{
	printf("Mask preview options:\n"
		   "        --table=TABLE                The table to preview, as the config names it\n"
		   "        --rows=N                     Its first N rows by primary key (default 10)\n"
		   "        --schema-dir, -c             As for export\n"
		   "\n");
}

/*
 * usage_dump
 *		The dump subcommand's options.
 */
static void
usage_dump(void)
{
	printf("Dump options:\n"
		   "        --table=TABLE                The table to write, in primary key order\n"
		   "        --query=QUERY                Or a read-only query (ordered by a unique key);\n"
		   "                                     --table then names its files and statements\n"
		   "        --format=FORMAT              sql (default: INSERTs of 10,000 rows), copy or\n"
		   "                                     jsonl (Extended JSON Lines)\n"
		   "        --rows-per-file=N            Files of at most N rows, insert-001-<table>.partK.\n"
		   "                                     <ext>, each loadable by itself; --table: split by\n"
		   "                                     primary key range; --query: jsonl only\n"
		   "    -o, -j, -Z, --force, -q          As for export\n"
		   "\n");
}

static void
usage_explain(bool with_target)
{
	printf("Explain options:\n");
	if (with_target)
		usage_target();
	printf("        --exact                      Each file's exact rows, counted on the export's\n"
		   "                                     snapshot (the queries run; nothing is written)\n"
		   "        --analyze                    Run each query (EXPLAIN ANALYZE, BUFFERS)\n"
		   "    -v, --verbose                    Print each table's EXPLAIN plan too\n"
		   "        --format=FORMAT              text (default): one line per table with the rule\n"
		   "                                     that chose its rows; json: the plan for scripts\n"
		   "\n");
}

/*
 * usage_load
 *		The load subcommand's options.
 */
static void
usage_load(void)
{
	printf("Load options (exwiw load DIR):\n"
		   "    -j, --jobs=N                     Load with N connections: a file starts once the\n"
		   "                                     files of the tables its table's foreign keys join\n"
		   "                                     have loaded (also --parallel-workers)\n"
		   "    -1, --single-transaction         Load every file in one transaction: all or nothing\n"
		   "                                     (the default with one connection)\n"
		   "        --commit-each-file           Load each file in a transaction of its own: the\n"
		   "                                     files before a failing one stay (-j N does so)\n"
		   "        --refresh                    Make the tenant's rows the export's, in one\n"
		   "                                     transaction: updated in place, new ones inserted,\n"
		   "                                     the ones production no longer has deleted; no\n"
		   "                                     other tenant's row changes (else it refuses)\n"
		   "        --on-conflict=ACTION         error (default; skip with --refresh): a row whose\n"
		   "                                     key exists fails the load; skip: such rows are\n"
		   "                                     skipped (ON CONFLICT DO NOTHING), to load a second\n"
		   "                                     tenant into one database\n"
		   "        --no-verify                  Load without checking the directory against\n"
		   "                                     its manifest.json first\n"
		   "    -q, --quiet                      No progress display, no summary: only errors\n"
		   "    -v, --verbose                    The summary line also when stderr is not a\n"
		   "                                     terminal\n"
		   "    The first error stops the load, naming the file and line; exit status 1.\n"
		   "\n");
}

static void
usage_schema(void)
{
	printf("Schema options:\n"
		   "        --from-db                    Read the schema from the database the connection\n"
		   "                                     options point at (required by `exwiw schema`)\n"
		   "        --fail-on=CATEGORY           schema check only: 'any' (default) fails on any\n"
		   "                                     drift or undecided masking; 'stale' fails only\n"
		   "                                     when the config references tables/columns the\n"
		   "                                     schema no longer has. The report is printed\n"
		   "                                     either way.\n"
		   "\n");
}

static void
usage_other(void)
{
	printf("Other options:\n"
		   "        --log-level=LEVEL            Log level (debug, info, warn, error). default is info\n"
		   "        --insert-only                Do not generate DELETE SQL files (export\n"
		   "                                     subcommand only)\n"
		   "        --config-dir=DIR             DEPRECATED: the 0.1.8 name of --schema-dir (so\n"
		   "                                     is -c DIR when DIR is a directory)\n"
		   "        --help                       Print this help\n"
		   "        --version                    Print the version\n"
		   "\n"
		   "Exit status: 0 success, 1 error (schema check: the config needs work),\n"
		   "2 schema check could not run, 130 cancelled (Ctrl-C).\n");
}

/*
 * usage
 *		--help: every subcommand and every option.
 */
void
usage(void)
{
	printf("exwiw %s\n\n", EXWIW_VERSION);
	printf("Usage: exwiw [SUBCOMMAND] [options]\n\n");
	usage_subcommands();
	usage_connection();
	usage_export();
	usage_explain(false);
	usage_dump();
	usage_load();
	usage_mask();
	usage_schema();
	usage_other();
}

/*
 * usage_command
 *		"exwiw SUBCOMMAND --help": that subcommand's options only.
 */
void
usage_command(CliCommand command)
{
	printf("exwiw %s\n\n", EXWIW_VERSION);
	switch (command)
	{
		case CMD_EXPORT:
			printf("Usage: exwiw [export] [options]\n\n"
				   "Write one target's rows, closed under foreign keys and masked, from one\n"
				   "snapshot, into a directory of per-table files. The default subcommand.\n\n");
			usage_connection();
			usage_export();
			break;
		case CMD_EXPLAIN:
			printf("Usage: exwiw explain [options]\n\n"
				   "Print the plan: one line per table with its file, estimated rows, the\n"
				   "indexes it uses and its query. Nothing is written.\n\n");
			usage_connection();
			usage_explain(true);
			break;
		case CMD_DUMP:
			printf("Usage: exwiw dump --table=TABLE|--query=QUERY [options]\n\n"
				   "Write one whole table or query into files of at most --rows-per-file\n"
				   "rows, from one snapshot, with -j N connections: no config, no masks.\n\n");
			usage_connection();
			usage_dump();
			break;
		case CMD_LOAD:
			printf("Usage: exwiw load DIR [options]\n\n"
				   "Load an export's files into the database the connection options point\n"
				   "at, in file order, with libpq (no psql): statements and COPY data, in\n"
				   "each file's own client encoding. No psql meta-command is ever run.\n\n");
			usage_connection();
			usage_load();
			break;
		case CMD_VERIFY:
			printf("Usage: exwiw verify DIR\n\n"
				   "Check an export's directory against the manifest.json the export wrote:\n"
				   "every file it lists, with its size and SHA-256, and no other insert-\n"
				   "or delete- file. Exit status 1 on any difference, each named. exwiw\n"
				   "load verifies first (--no-verify: not). No connection is made.\n\n");
			break;
		case CMD_MASK:
			printf("Usage: exwiw mask preview --table=TABLE [--rows=N] --schema-dir=DIR [options]\n\n"
				   "Print the masked columns of a table, original beside masked, for its\n"
				   "first N rows, as the export would mask them. Nothing is written. Needs\n"
				   "a role with the privileges of pg_read_all_data.\n\n");
			usage_connection();
			usage_mask();
			break;
		case CMD_SCHEMA:
			printf("Usage: exwiw schema generate|check|tidy --from-db --schema-dir=DIR [options]\n\n"
				   "  generate  Write a schema config (one JSON file per table) from the catalog,\n"
				   "            marking the columns that need a mask decision.\n"
				   "  check     Compare the config with the database: a JSON report, exit 1\n"
				   "            when the config needs work, 2 when the check could not run.\n"
				   "  tidy      Remove what the database no longer has: dropped tables, columns,\n"
				   "            and belongs_tos to dropped tables.\n\n");
			usage_connection();
			usage_schema();
			printf("        --schema-dir=SCHEMA_DIR_PATH Directory of schema JSON files\n"
				   "    -c, --config=CONFIG_FILE_PATH    Path to the exwiw config YAML\n\n");
			break;
	}
	usage_other();
}

/*
 * empty_to_null
 *		"--target-table=" means not given, as in the Ruby client.
 */
static char *
empty_to_null(const char *s)
{
	return (s == NULL || *s == '\0') ? NULL : pg_strdup(s);
}

/*
 * is_directory
 *		Whether path names a directory (following links).
 */
static bool
is_directory(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * strip_slashes
 *		A path with its trailing "/" removed (but "/" stays "/").
 */
static char *
strip_slashes(const char *s)
{
	char	   *p = pg_strdup(s);
	size_t		len = strlen(p);

	while (len > 1 && p[len - 1] == '/')
		p[--len] = '\0';
	return p;
}

/*
 * parse_int_option
 *		A positive integer, or an error naming the flag.
 */
static long
parse_int_option(const char *value, const char *flag)
{
	char	   *end;
	long		v;

	errno = 0;
	v = strtol(value, &end, 10);
	if (errno != 0 || end == value || *end != '\0')
	{
		pg_log_error("invalid argument: %s=%s (an integer is expected)", flag, value);
		pg_log_error_hint("Try \"exwiw --help\" for more information.");
		exit(1);
	}
	return v;
}

/*
 * edit_distance
 *		Levenshtein distance between a (alen bytes) and b, for "did you
 *		mean"; 99 when either is longer than 63 bytes.
 */
static int
edit_distance(const char *a, size_t alen, const char *b)
{
	size_t		blen = strlen(b);
	int			prev[64],
				cur[64];
	size_t		i,
				j;

	if (alen >= lengthof(prev) || blen >= lengthof(prev))
		return 99;
	for (j = 0; j <= blen; j++)
		prev[j] = j;
	for (i = 1; i <= alen; i++)
	{
		cur[0] = i;
		for (j = 1; j <= blen; j++)
		{
			int			sub = prev[j - 1] + (a[i - 1] != b[j - 1]);

			cur[j] = Min(sub, Min(prev[j] + 1, cur[j - 1] + 1));
		}
		memcpy(prev, cur, sizeof(int) * (blen + 1));
	}
	return prev[blen];
}

/*
 * closest_word
 *		The word of words (NULL-terminated) nearest to the len bytes at s, when
 *		it is near enough to be a typo (at most a third of its length, at
 *		least 1, at most 3 edits); else NULL.
 */
static const char *
closest_word(const char *s, size_t len, const char *const *words)
{
	const char *best = NULL;
	int			bestd = 99;
	int			i;

	for (i = 0; words[i] != NULL; i++)
	{
		int			d = edit_distance(s, len, words[i]);

		if (d < bestd)
			bestd = d, best = words[i];
	}
	if (best == NULL || bestd > Max(1, Min(3, (int) strlen(best) / 3)))
		return NULL;
	return best;
}

/*
 * bad_long_option
 *		An unknown or ambiguous "--flag[=value]": the error, with the flags
 *		it could abbreviate, or the one it may be a typo of; exit(1).
 */
static void
bad_long_option(const char *arg)
{
	const char *name = arg + 2;
	size_t		len = strcspn(name, "=");
	const char *names[lengthof(long_options)];
	StringInfoData matches;
	int			nmatches = 0;
	int			i;

	if (strncmp(arg, "--", 2) != 0)
	{
		pg_log_error("unrecognized option \"%s\"", arg);
		pg_log_error_hint("Try \"exwiw --help\" for more information.");
		exit(1);
	}
	initStringInfo(&matches);
	for (i = 0; long_options[i].name != NULL; i++)
	{
		names[i] = long_options[i].name;
		if (len > 0 && strncmp(long_options[i].name, name, len) == 0)
		{
			appendStringInfo(&matches, "%s--%s", nmatches ? ", " : "", long_options[i].name);
			nmatches++;
		}
	}
	names[i] = NULL;
	pg_log_error("unrecognized or ambiguous option \"%s\"", arg);
	if (nmatches > 1)
		pg_log_error_hint("\"--%.*s\" is short for any of %s.", (int) len, name, matches.data);
	else
	{
		const char *near = closest_word(name, len, names);

		if (near != NULL)
			pg_log_error_hint("Did you mean \"--%s\"?", near);
	}
	pg_log_error_hint("Try \"exwiw --help\" for more information.");
	exit(1);
}

/*
 * wants_help
 *		Whether "--help" (or "-?", or an abbreviation such as "--he") is
 *		among the arguments before a "--".
 */
static bool
wants_help(int argc, char **argv)
{
	int			i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
	{
		size_t		len = strlen(argv[i]);

		if (strcmp(argv[i], "-?") == 0 ||
			(len >= 4 && strncmp(argv[i], "--help", len) == 0))
			return true;
	}
	return false;
}

/*
 * parse_options
 *		The subcommand and the flags, into opts.  Options may come before
 *		or after the subcommand (getopt_long moves the other arguments to
 *		the end, as for PostgreSQL's own clients): the first argument that
 *		is not an option is the subcommand when it names one (and, for
 *		schema, the next is its verb); otherwise the subcommand is export.
 */
void
parse_options(int argc, char **argv, CliOptions *opts)
{
	int			c;
	int			optindex;
	int			noptions = 0;
	bool		help = wants_help(argc, argv);
	int			pos;
	char	   *format = NULL;	/* --format, until the subcommand is known */

	memset(opts, 0, sizeof(*opts));
	opts->command = CMD_EXPORT;
	opts->jobs = -1;
	opts->split_rows = -1;
	opts->max_rows = -1;
	opts->max_bytes = -1;
	opts->rows_per_file = -1;
	opts->preview_rows = -1;

	optind = 1;
	opterr = 0;					/* our own messages, "exwiw: error: ..." */

	while ((c = getopt_long(argc, argv, ":h:p:u:U:o:c:a:d:j:Z:qvVwW1?", long_options,
							&optindex)) != -1)
	{
		noptions++;
		switch (c)
		{
			case 'h':
				opts->host = pg_strdup(optarg);
				break;
			case 'p':
				opts->port = pg_strdup(optarg);
				break;
			case 'u':
			case 'U':
				opts->user = pg_strdup(optarg);
				break;
			case 'w':
				opts->password_prompt = PASSWORD_NEVER;
				break;
			case 'W':
				opts->password_prompt = PASSWORD_ALWAYS;
				break;
			case 'o':
				opts->output_dir = empty_to_null(optarg);
				if (opts->output_dir)
					opts->output_dir = strip_slashes(opts->output_dir);
				opts->given_output_dir = true;
				break;
			case OPT_SCHEMA_DIR:
				opts->schema_dir = strip_slashes(optarg);
				break;
			case OPT_FROM_DB:
				opts->from_db = true;
				break;
			case 'c':
				if (is_directory(optarg))
				{
					/*
					 * The 0.1.8 client's -c DIR (--config-dir): a run config
					 * file cannot be a directory, so nothing else is meant.
					 */
					if (!help)
						fprintf(stderr, "warning: -c DIR (--config-dir) is deprecated, use --schema-dir=%s; -c now names the run config file (exwiw.yml)\n",
								optarg);
					opts->schema_dir = strip_slashes(pg_strdup(optarg));
				}
				else
					opts->config_file = pg_strdup(optarg);
				break;
			case OPT_CONFIG_DIR:
				if (!help)
					fprintf(stderr, "warning: --config-dir is deprecated, use --schema-dir (the same directory of schema JSON files)\n");
				opts->schema_dir = strip_slashes(optarg);
				break;
			case OPT_CURSOR_PARALLEL:
				opts->cursor_parallel = true;
				break;
			case 'a':
				opts->adapter = pg_strdup(optarg);
				break;
			case OPT_URI:
				opts->uri = pg_strdup(optarg);
				break;
			case OPT_DATABASE:
			case 'd':
				opts->dbname = pg_strdup(optarg);
				break;
			case OPT_TARGET_TABLE:
				opts->target_table = empty_to_null(optarg);
				break;
			case OPT_TARGET_COLLECTION:
				opts->target_collection = empty_to_null(optarg);
				break;
			case OPT_IDS:
				ids_add_option(&opts->ids, optarg);
				opts->ids_given = true;
				break;
			case OPT_IDS_FIELD:
				opts->ids_field = empty_to_null(optarg);
				break;
			case OPT_SCOPE_COLUMN:
				opts->scope_column = empty_to_null(optarg);
				break;
			case OPT_OUTPUT_FORMAT:
				opts->output_format = empty_to_null(optarg);
				opts->given_output_format = true;
				break;
			case OPT_INSERT_ONLY:
				opts->insert_only = true;
				opts->given_insert_only = true;
				break;
			case OPT_AFTER_INSERT_HOOK:
				opts->after_insert_hook = pg_strdup(optarg);
				opts->given_hook = true;
				break;
			case 'j':
				if (!help)
				{
					opts->jobs = check_parallel_workers(parse_int_option(optarg, "--parallel-workers"));
					opts->given_jobs = true;
				}
				break;
			case OPT_MONGODB_TIMEOUT:
				if (help)
					break;
				pg_log_error("--mongodb-query-timeout-ms is only supported by the mongodb adapter");
				exit(1);
				break;
			case OPT_FAIL_ON:
				opts->fail_on = pg_strdup(optarg);
				break;
			case OPT_LOG_LEVEL:
				opts->log_level = pg_strdup(optarg);
				break;
			case OPT_WITH_SCHEMA:
				opts->with_schema = true;
				break;
			case OPT_COMMIT_EACH_FILE:
				opts->commit_each_file = true;
				break;
			case OPT_RAILS_ENV:
				opts->rails_env = pg_strdup(optarg);
				break;
			case OPT_EXCLUDE_SCHEMA:
				opts->exclude_schemas = pg_realloc(opts->exclude_schemas,
												   sizeof(char *) * (opts->nexclude_schemas + 1));
				opts->exclude_schemas[opts->nexclude_schemas++] = pg_strdup(optarg);
				break;
			case OPT_FORCE:
				opts->force = true;
				break;
			case OPT_ALLOW_UNDECIDED:
				opts->allow_undecided = true;
				break;
			case OPT_ALL_TABLES:
				opts->all_tables = true;
				break;
			case OPT_ALLOW_MISSING_IDS:
				opts->allow_missing_ids = true;
				break;
			case OPT_SPLIT_ROWS:
				if (!help)
					opts->split_rows = parse_int_option(optarg, "--split-rows");
				break;
			case 'Z':
				{
					char	   *err;

					if (!help && !compress_parse(optarg, &opts->compress_method,
												 &opts->compress_level, &err))
					{
						pg_log_error("%s", err);
						exit(1);
					}
					opts->compress_given = true;
					break;
				}
			case OPT_TABLE:
				opts->dump_table = pg_strdup(optarg);
				break;
			case OPT_QUERY:
				opts->dump_query = pg_strdup(optarg);
				break;
			case OPT_FORMAT:
				/* the subcommand's: known once every argument is read */
				format = pg_strdup(optarg);
				break;
			case '1':
				opts->single_transaction = true;
				break;
			case OPT_REFRESH:
				opts->refresh = true;
				break;
			case OPT_NO_VERIFY:
				opts->no_verify = true;
				break;
			case OPT_EXACT:
				opts->exact = true;
				break;
			case OPT_SINCE:
				if (strchr(optarg, '=') == NULL || optarg[0] == '=' ||
					strchr(optarg, '=')[1] == '\0')
				{
					pg_log_error("invalid --since \"%s\": use COLUMN=INTERVAL or COLUMN=TIMESTAMP, for example created_at=\"90 days\"", optarg);
					exit(1);
				}
				opts->since = pg_strdup(optarg);
				break;
			case OPT_MAX_ROWS:
				if (!help)
				{
					opts->max_rows = parse_int_option(optarg, "--max-rows");
					if (opts->max_rows < 1)
					{
						pg_log_error("--max-rows must be a positive integer (got %ld)", opts->max_rows);
						exit(1);
					}
				}
				break;
			case OPT_MAX_BYTES:
				{
					char	   *err;

					if (!help && !parse_size(optarg, "--max-bytes", &opts->max_bytes, &err))
					{
						pg_log_error("%s", err);
						exit(1);
					}
					break;
				}
			case OPT_ON_CONFLICT:
				opts->on_conflict_text = pg_strdup(optarg);
				break;
			case OPT_ROWS_PER_FILE:
				opts->rows_per_file = parse_int_option(optarg, "--rows-per-file");
				break;
			case OPT_ROWS:
				opts->preview_rows = parse_int_option(optarg, "--rows");
				break;
			case 'q':
				opts->quiet = true;
				break;
			case OPT_ANALYZE:
				opts->analyze = true;
				break;
			case 'v':
				opts->show_plans = true;
				break;
			case OPT_HELP:
				break;			/* below, once the subcommand is known */
			case 'V':
				printf("exwiw %s\n", EXWIW_VERSION);
				exit(0);
				break;
			case '?':
				if (help)
					break;
				if (optopt != 0 && optopt != '?')
				{
					pg_log_error("invalid option -- '%c'", optopt);
					pg_log_error_hint("Try \"exwiw --help\" for more information.");
					exit(1);
				}
				bad_long_option(argv[optind - 1]);
				break;
			case ':':
				if (help)
					break;
				pg_log_error("option \"%s\" requires an argument", argv[optind - 1]);
				pg_log_error_hint("Try \"exwiw --help\" for more information.");
				exit(1);
				break;
			default:
				pg_log_error_hint("Try \"exwiw --help\" for more information.");
				exit(1);
		}
	}

	/* the subcommand (and schema's verb) among the other arguments */
	pos = optind;
	if (pos < argc)
	{
		if (strcmp(argv[pos], "export") == 0)
			opts->command = CMD_EXPORT, pos++;
		else if (strcmp(argv[pos], "explain") == 0)
			opts->command = CMD_EXPLAIN, pos++;
		else if (strcmp(argv[pos], "dump") == 0)
			opts->command = CMD_DUMP, pos++;
		else if (strcmp(argv[pos], "load") == 0)
		{
			opts->command = CMD_LOAD;
			pos++;
			if (pos < argc)
				opts->load_dir = strip_slashes(argv[pos++]);
		}
		else if (strcmp(argv[pos], "verify") == 0)
		{
			opts->command = CMD_VERIFY;
			pos++;
			if (pos < argc)
				opts->load_dir = strip_slashes(argv[pos++]);
		}
		else if (strcmp(argv[pos], "mask") == 0)
		{
			opts->command = CMD_MASK;
			pos++;
			if (pos < argc)
				opts->mask_verb = argv[pos++];
		}
		else if (strcmp(argv[pos], "schema") == 0)
		{
			opts->command = CMD_SCHEMA;
			pos++;
			if (pos < argc)
			{
				opts->verb_text = argv[pos];
				if (strcmp(argv[pos], "generate") == 0)
					opts->verb = VERB_GENERATE;
				else if (strcmp(argv[pos], "check") == 0)
					opts->verb = VERB_CHECK;
				else if (strcmp(argv[pos], "tidy") == 0)
					opts->verb = VERB_TIDY;
				else
					opts->verb = VERB_UNKNOWN;
				pos++;
			}
		}
	}

	/* explain --format=text|json, dump --format=sql|copy|jsonl */
	if (format != NULL && opts->command == CMD_EXPLAIN)
		opts->explain_format = format;
	else if (format != NULL)
		opts->dump_format = format;

	if (help)
	{
		if (pos > optind)
			usage_command(opts->command);
		else
			usage();
		exit(0);
	}
	/* no option at all: the help, as the Ruby client ("exwiw load DIR" loads) */
	if (noptions == 0 && pos == argc && opts->load_dir == NULL)
	{
		usage();
		exit(0);
	}
	if (opts->verb == VERB_UNKNOWN)
	{
		const char *near = closest_word(opts->verb_text, strlen(opts->verb_text), schema_verbs);

		pg_log_error("usage: exwiw schema generate|check|tidy --from-db [options] (got \"%s\")", opts->verb_text);
		if (near != NULL)
			pg_log_error_hint("Did you mean \"exwiw schema %s\"?", near);
		exit(1);
	}
	if (pos < argc)
	{
		const char *near = (pos == optind) ?
			closest_word(argv[pos], strlen(argv[pos]), subcommands) : NULL;

		pg_log_error("too many command-line arguments (first is \"%s\")", argv[pos]);
		if (near != NULL)
			pg_log_error_hint("Did you mean the subcommand \"%s\"?", near);
		pg_log_error_hint("Try \"exwiw --help\" for more information.");
		exit(1);
	}
}

/*
 * set_log_level
 *		--log-level: the levels Ruby's Logger knows, mapped to pg_logging's.
 */
static void
set_log_level(const char *level)
{
	char	   *l = pg_strdup(level);
	char	   *p;

	for (p = l; *p; p++)
		*p = pg_tolower((unsigned char) *p);
	if (strcmp(l, "debug") == 0)
		pg_logging_set_level(PG_LOG_DEBUG);
	else if (strcmp(l, "info") == 0)
		pg_logging_set_level(PG_LOG_INFO);
	else if (strcmp(l, "warn") == 0 || strcmp(l, "warning") == 0)
		pg_logging_set_level(PG_LOG_WARNING);
	else if (strcmp(l, "error") == 0 || strcmp(l, "fatal") == 0 ||
			 strcmp(l, "unknown") == 0)
		pg_logging_set_level(PG_LOG_ERROR);
	else
	{
		pg_log_error("invalid log level: %s", level);
		pg_log_error_hint("Use one of debug, info, warn, error.");
		exit(1);
	}
}

/*
 * check_mask_options
 *		The mask subcommand's options: the verb preview, --table, --rows
 *		(default 10), a schema dir, and nothing of export or dump.
 */
static void
check_mask_options(CliOptions *opts)
{
	if (opts->mask_verb == NULL || strcmp(opts->mask_verb, "preview") != 0)
	{
		pg_log_error("usage: exwiw mask preview --table=TABLE [--rows=N] (got \"%s\")",
					 opts->mask_verb ? opts->mask_verb : "");
		exit(1);
	}
	if (opts->dump_table == NULL)
	{
		pg_log_error("exwiw mask preview needs --table");
		exit(1);
	}
	if (opts->dump_query || opts->dump_format || opts->rows_per_file != -1 ||
		opts->target_table || ids_any_given(&opts->ids) || opts->given_output_dir ||
		opts->with_schema || opts->analyze || opts->from_db)
	{
		pg_log_error("exwiw mask preview takes --table, --rows, the schema config and the connection options only");
		exit(1);
	}
	if (opts->preview_rows == -1)
		opts->preview_rows = 10;
	if (opts->schema_dir == NULL)
	{
		pg_log_error("schema dir is required (pass --schema-dir or set schema_dir in the config file)");
		exit(1);
	}
}

/*
 * check_dump_options
 *		The dump subcommand's options: --table or --query (with --query,
 *		--table only names the output), a format,
 *		a positive --rows-per-file (with --query, JSON Lines only: a part of
 *		a query's INSERT or COPY output is not a file of its own), and none
 *		of the export's target options.
 */
static void
check_dump_options(CliOptions *opts)
{
	if (opts->dump_table == NULL && opts->dump_query == NULL)
	{
		pg_log_error("exwiw dump needs --table or --query");
		pg_log_error_hint("Write a whole table with --table=orders, or a query's rows with --query='SELECT ...' (--table then names its files and statements).");
		exit(1);
	}
	if (opts->target_table || ids_any_given(&opts->ids) ||
		opts->with_schema || opts->after_insert_hook || opts->given_output_format ||
		opts->split_rows != -1)
	{
		pg_log_error("exwiw dump takes no --target-table, --ids, --output-format, --with-schema, --split-rows or --after-insert-hook");
		pg_log_error_hint("Use --format=sql|copy|jsonl; exwiw dump writes rows as they are, with no config and no masks.");
		exit(1);
	}
	if (opts->dump_format == NULL)
		opts->dump_format = pg_strdup("sql");
	if (strcmp(opts->dump_format, "sql") != 0 && strcmp(opts->dump_format, "copy") != 0 &&
		strcmp(opts->dump_format, "jsonl") != 0)
	{
		pg_log_error("invalid format '%s'. Available options are: sql, copy, jsonl", opts->dump_format);
		exit(1);
	}
	if (opts->rows_per_file != -1 && opts->rows_per_file < 1)
	{
		pg_log_error("--rows-per-file must be a positive integer (got %ld)", opts->rows_per_file);
		exit(1);
	}
	if (opts->dump_query && opts->rows_per_file != -1 && strcmp(opts->dump_format, "jsonl") != 0)
	{
		pg_log_error("--rows-per-file with --query needs --format=jsonl");
		pg_log_error_hint("A part of a query's INSERT or COPY output does not load by itself; use --table, whose files are split by primary key range.");
		exit(1);
	}
	if (opts->output_dir == NULL)
		opts->output_dir = pg_strdup("dump");
	if (opts->jobs < 1)
		opts->jobs = 1;
}

/*
 * check_load_options
 *		The load subcommand's options: the directory, --on-conflict's
 *		value, -j not with one transaction (as pg_restore), none of the
 *		export's or dump's options.
 */
static void
check_load_options(CliOptions *opts)
{
	if (opts->load_dir == NULL)
	{
		pg_log_error("exwiw load needs the directory to load: exwiw load DIR");
		pg_log_error_hint("Try \"exwiw load --help\" for more information.");
		exit(1);
	}
	if (opts->ids_given || opts->given_output_dir || opts->given_output_format ||
		opts->given_hook || opts->with_schema || opts->dump_table || opts->dump_query ||
		opts->dump_format || opts->rows_per_file != -1 || opts->split_rows != -1 ||
		opts->analyze || opts->from_db || opts->fail_on || opts->compress_given)
	{
		pg_log_error("exwiw load takes no export, explain, dump or schema options (--ids, --output-dir, --output-format, ...)");
		pg_log_error_hint("Try \"exwiw load --help\" for more information.");
		exit(1);
	}

	/*
	 * --refresh changes the tenant's rows, never the rows of other tenants
	 * that the export brings as parents (refresh.c): a database that has
	 * those keeps them as they are
	 */
	opts->on_conflict = opts->refresh ? ON_CONFLICT_SKIP : ON_CONFLICT_ERROR;
	if (opts->on_conflict_text != NULL)
	{
		if (strcmp(opts->on_conflict_text, "skip") == 0)
			opts->on_conflict = ON_CONFLICT_SKIP;
		else if (strcmp(opts->on_conflict_text, "error") == 0)
			opts->on_conflict = ON_CONFLICT_ERROR;
		else
		{
			pg_log_error("invalid --on-conflict '%s'. Available options are: error, skip", opts->on_conflict_text);
			exit(1);
		}
	}
	if (opts->jobs < 1)
		opts->jobs = 1;
	if (opts->jobs > 1 && opts->single_transaction)
	{
		pg_log_error("cannot specify both --single-transaction and multiple jobs");
		exit(1);
	}
	if (opts->commit_each_file && (opts->single_transaction || opts->refresh))
	{
		pg_log_error("cannot specify both --commit-each-file and %s",
					 opts->refresh ? "--refresh" : "--single-transaction");
		exit(1);
	}
	if (opts->jobs > 1 && opts->refresh)
	{
		pg_log_error("cannot specify both --refresh and multiple jobs");
		pg_log_error_hint("--refresh runs in one transaction, on one connection.");
		exit(1);
	}
}

/*
 * check_options
 *		Apply the run config, then check the options in the Ruby client's
 *		order, with its messages.
 */
void
check_options(CliOptions *opts)
{
	char	   *config;
	int			i;

	/* 1. --ids given twice for a space */
	if (opts->ids.nerrors > 0)
	{
		for (i = 0; i < opts->ids.nerrors; i++)
			pg_log_error("%s", opts->ids.errors[i]);
		exit(1);
	}
	if (opts->nexclude_schemas > 0 && !opts->with_schema)
	{
		pg_log_error("--exclude-schema applies to --with-schema only");
		pg_log_error_hint("It leaves schemas out of insert-000-schema.sql, which --with-schema writes.");
		exit(1);
	}

	/* 2. the run config fills what the flags left unset */
	config = runconfig_find(opts->config_file);
	if (config != NULL)
		runconfig_apply(config, opts);

	/* 3. log level */
	if (opts->log_level == NULL)
		opts->log_level = pg_strdup("info");
	set_log_level(opts->log_level);

	/* 4. adapter: postgresql only */
	if (opts->adapter != NULL)
	{
		char	   *a = pg_strdup(opts->adapter);
		char	   *p;

		for (p = a; *p; p++)
			*p = pg_tolower((unsigned char) *p);
		if (strcmp(a, "postgresql") != 0)
		{
			if (strcmp(a, "mysql") == 0 || strcmp(a, "mysql2") == 0 ||
				strcmp(a, "sqlite") == 0 || strcmp(a, "sqlite3") == 0 ||
				strcmp(a, "mongodb") == 0)
				pg_log_error("adapter \"%s\" is not supported: this client exports from PostgreSQL only (--adapter=postgresql)", opts->adapter);
			else
				pg_log_error("invalid adapter. Available options are: postgresql");
			exit(1);
		}
	}

	/* 5.-11. the mongodb-only flags */
	if (opts->target_collection)
	{
		if (opts->target_table)
			pg_log_error("specify only one of --target-table and --target-collection");
		else
			pg_log_error("--target-collection is only supported by the mongodb adapter (use --target-table)");
		exit(1);
	}
	if (opts->ids_field)
	{
		pg_log_error("--ids-field is only supported by the mongodb adapter");
		exit(1);
	}
	if (opts->uri)
	{
		pg_log_error("--uri is only supported by the mongodb adapter (use --host/--port, or --dbname with a conninfo string or URI)");
		exit(1);
	}
	if (opts->cursor_parallel)
	{
		pg_log_error("--cursor-parallel is only supported by the mongodb adapter");
		exit(1);
	}
	if (opts->scope_column && opts->command != CMD_SCHEMA)
	{
		if (opts->target_table)
		{
			pg_log_error("--scope-column cannot be combined with --target-table/--target-collection");
			exit(1);
		}
		if (!ids_any_given(&opts->ids))
		{
			pg_log_error("--ids is required when --scope-column is specified");
			exit(1);
		}
		pg_log_warning("--scope-column is deprecated; declare a per-table `scope_column:` in the schema config and drop the flag instead.");
	}

	/* 12. load: its own options; theirs are the load's only */
	if (opts->command == CMD_LOAD)
	{
		check_load_options(opts);
		return;
	}
	if (opts->command == CMD_VERIFY)
	{
		if (opts->load_dir == NULL)
		{
			pg_log_error("exwiw verify needs a directory: exwiw verify DIR");
			exit(1);
		}
		return;
	}
	if (opts->no_verify)
	{
		pg_log_error("--no-verify applies to the load subcommand only");
		exit(1);
	}
	if (opts->single_transaction || opts->commit_each_file || opts->refresh || opts->on_conflict_text)
	{
		pg_log_error("--single-transaction, --commit-each-file, --refresh and --on-conflict apply to the load subcommand only");
		exit(1);
	}

	/* 11b. mask preview: --table, --rows, the schema dir */
	if (opts->command == CMD_MASK)
	{
		check_mask_options(opts);
		return;
	}
	if (opts->preview_rows != -1)
	{
		pg_log_error("--rows applies to the mask preview subcommand only");
		exit(1);
	}

	/* 12. dump: its own options */
	if (opts->command == CMD_DUMP)
	{
		check_dump_options(opts);
		return;
	}
	if (opts->dump_format && !opts->dump_table && !opts->dump_query && opts->rows_per_file == -1)
	{
		pg_log_error("--format applies to the explain and dump subcommands only");
		exit(1);
	}
	if (opts->dump_table || opts->dump_query || opts->dump_format || opts->rows_per_file != -1)
	{
		pg_log_error("--table, --query, --format and --rows-per-file apply to the dump subcommand only");
		exit(1);
	}

	/* 13. explain: export-only options */
	if (opts->command == CMD_EXPLAIN)
	{
		StringInfoData s;

		initStringInfo(&s);
		if (opts->given_output_dir)
			appendStringInfoString(&s, ", --output-dir");
		if (opts->given_output_format)
			appendStringInfoString(&s, ", --output-format");
		if (opts->given_insert_only)
			appendStringInfoString(&s, ", --insert-only");
		if (opts->given_hook)
			appendStringInfoString(&s, ", --after-insert-hook");
		if (opts->given_jobs)
			appendStringInfoString(&s, ", --parallel-workers");
		if (opts->with_schema)
			appendStringInfoString(&s, ", --with-schema");
		if (opts->split_rows != -1)
			appendStringInfoString(&s, ", --split-rows");
		if (s.len > 0)
		{
			pg_log_error("the following options are not applicable in 'explain' subcommand: %s", s.data + 2);
			exit(1);
		}
	}
	if (opts->since && opts->command != CMD_EXPORT && opts->command != CMD_EXPLAIN)
	{
		pg_log_error("--since applies to export and explain only");
		exit(1);
	}
	if ((opts->max_rows != -1 || opts->max_bytes != -1) && opts->command != CMD_EXPORT)
	{
		pg_log_error("--max-rows and --max-bytes apply to export only");
		pg_log_error_hint("exwiw explain --exact prints the rows an export would write.");
		exit(1);
	}
	if (opts->compress_given && opts->command != CMD_EXPORT && opts->command != CMD_DUMP)
	{
		pg_log_error("-Z/--compress applies to the files of export and dump only");
		exit(1);
	}
	if (opts->command != CMD_EXPLAIN &&
		(opts->analyze || opts->explain_format || opts->exact ||
		 (opts->show_plans && opts->command != CMD_EXPORT && opts->command != CMD_LOAD)))
	{
		pg_log_error("--analyze, --exact and --format apply to the explain subcommand only, --verbose to explain, export and load");
		exit(1);
	}
	if (opts->explain_format && strcmp(opts->explain_format, "text") != 0 &&
		strcmp(opts->explain_format, "json") != 0)
	{
		pg_log_error("invalid explain format '%s'. Available options are: text, json", opts->explain_format);
		exit(1);
	}

	/* 14. schema */
	if (opts->command == CMD_SCHEMA)
	{
		if (opts->verb == VERB_NONE || opts->verb == VERB_UNKNOWN)
		{
			if (opts->verb_text)
				pg_log_error("usage: exwiw schema generate|check|tidy --from-db [options] (got \"%s\")", opts->verb_text);
			else
				pg_log_error("usage: exwiw schema generate|check|tidy --from-db [options] (got nil)");
			exit(1);
		}
		if (!opts->from_db)
		{
			pg_log_error("`exwiw schema %s` requires --from-db to say where the schema is read from (a live database connection)",
						 opts->verb_text);
			exit(1);
		}
		if (opts->fail_on)
		{
			if (opts->verb != VERB_CHECK)
			{
				pg_log_error("--fail-on only applies to `exwiw schema check` (got `exwiw schema %s`).", opts->verb_text);
				exit(1);
			}
			if (strcmp(opts->fail_on, "any") != 0 && strcmp(opts->fail_on, "stale") != 0)
			{
				pg_log_error("--fail-on must be 'any' or 'stale' (got '%s').", opts->fail_on);
				exit(1);
			}
		}
		if (opts->schema_dir == NULL)
		{
			pg_log_error("schema dir is required (pass --schema-dir or set schema_dir in the config file)");
			exit(1);
		}
		return;
	}
	if (opts->fail_on)
	{
		pg_log_error("--fail-on only applies to `exwiw schema check`");
		exit(1);
	}
	if (opts->from_db)
	{
		pg_log_error("--from-db applies to the schema subcommand only");
		exit(1);
	}

	/* 15. export: defaults and the format */
	if (opts->output_dir == NULL)
		opts->output_dir = pg_strdup("dump");
	if (opts->output_format == NULL)
		opts->output_format = pg_strdup("insert");
	if (strcmp(opts->output_format, "insert") != 0 &&
		strcmp(opts->output_format, "copy") != 0 &&
		strcmp(opts->output_format, "jsonl") != 0)
	{
		pg_log_error("invalid output format '%s'. Available options are: insert, copy, jsonl", opts->output_format);
		exit(1);
	}

	/* 16. schema dir */
	if (opts->schema_dir == NULL)
	{
		pg_log_error("schema dir is required (pass --schema-dir or set schema_dir in the config file)");
		pg_log_error_hint("Write one from the database with \"exwiw schema generate --from-db --schema-dir=DIR\".");
		exit(1);
	}

	/* 17. target and ids: none with --all-tables */
	if (opts->all_tables)
	{
		if (opts->target_table || ids_any_given(&opts->ids) || opts->scope_column)
		{
			pg_log_error("--all-tables cannot be combined with --target-table, --ids or --scope-column");
			exit(1);
		}
	}
	else if (opts->target_table == NULL && !ids_any_given(&opts->ids))
	{
		pg_log_error("--target-table is required");
		pg_log_error_hint("Name the target table and its primary keys: --target-table=shops --ids=1,2; or give --ids alone to filter by the tables' scope_column.");
		exit(1);
	}
	else if (!ids_any_given(&opts->ids))
	{
		pg_log_error("--ids is required when --target-table is specified");
		exit(1);
	}

	if (opts->split_rows != -1 && (opts->split_rows < 1 || opts->split_rows > PG_INT32_MAX))
	{
		pg_log_error("--split-rows must be a positive integer (got %ld)", opts->split_rows);
		exit(1);
	}

	/* 18. the hook */
	if (opts->after_insert_hook)
	{
		size_t		len = strlen(opts->after_insert_hook);

		if (access(opts->after_insert_hook, F_OK) != 0)
		{
			pg_log_error("--after-insert-hook file not found: %s", opts->after_insert_hook);
			exit(1);
		}
		if (len >= 3 && strcmp(opts->after_insert_hook + len - 3, ".rb") == 0)
		{
			pg_log_error("--after-insert-hook: Ruby hooks (.rb) run inside the Ruby client only: %s", opts->after_insert_hook);
			pg_log_error_hint("Use an executable script.");
			exit(1);
		}
		if (access(opts->after_insert_hook, X_OK) != 0)
		{
			pg_log_error("--after-insert-hook must be an executable script: %s", opts->after_insert_hook);
			exit(1);
		}
	}
	if (opts->jobs < 1)
		opts->jobs = 1;
}

/*
 * parse_size
 *		A size as pg_size_bytes() reads one: a number (a fraction allowed),
 *		optional spaces, and a unit, bytes, B, kB, MB, GB, TB or PB (powers
 *		of 1024, any case), or none (bytes).  Returns false with *error set
 *		when value is not one, is not above zero, or does not fit.
 */
bool
parse_size(const char *value, const char *flag, int64 *bytes, char **error)
{
	static const struct
	{
		const char *unit;
		double		mult;
	}			units[] = {
		{"", 1}, {"b", 1}, {"bytes", 1}, {"kb", 1024.0}, {"mb", 1024.0 * 1024},
		{"gb", 1024.0 * 1024 * 1024}, {"tb", 1024.0 * 1024 * 1024 * 1024},
		{"pb", 1024.0 * 1024 * 1024 * 1024 * 1024}
	};
	const char *p = value;
	char	   *end;
	double		n;
	size_t		i;

	while (isspace((unsigned char) *p))
		p++;
	if (!isdigit((unsigned char) *p) && *p != '.')
	{
		*error = psprintf("invalid %s \"%s\": a size is a positive number with a unit, such as 500MB or 2GB",
						  flag, value);
		return false;
	}
	errno = 0;
	n = strtod(p, &end);
	if (errno != 0 || end == p)
	{
		*error = psprintf("invalid %s \"%s\": a size is a positive number with a unit, such as 500MB or 2GB",
						  flag, value);
		return false;
	}
	while (isspace((unsigned char) *end))
		end++;
	for (i = 0; i < lengthof(units); i++)
		if (pg_strcasecmp(end, units[i].unit) == 0)
			break;
	if (i == lengthof(units))
	{
		*error = psprintf("invalid %s \"%s\": unknown unit \"%s\" (valid units are bytes, B, kB, MB, GB, TB and PB)",
						  flag, value, end);
		return false;
	}
	n = floor(n * units[i].mult);
	if (n < 1)
	{
		*error = psprintf("%s must be at least 1 byte (got \"%s\")", flag, value);
		return false;
	}
	if (n > (double) PG_INT64_MAX / 2)
	{
		*error = psprintf("%s is too large (got \"%s\")", flag, value);
		return false;
	}
	*bytes = (int64) n;
	return true;
}
