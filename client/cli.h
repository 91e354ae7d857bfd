/*-------------------------------------------------------------------------
 *
 * cli.h
 *	  exwiw, the command-line client: declarations shared by its files.
 *
 * The client writes the directory of files that the Ruby client wrote, but
 * it formats nothing itself: every byte of every data file comes from the
 * server's exwiw_export().  Its files, one concept each, in three layers
 * (cmd/ calls files/ and lib/, files/ calls lib/; doc/architecture.md):
 *
 *	main.c				entry point: the subcommands, --help, --version
 *
 *	cmd/export.c		the export subcommand: run the files on one
 *						snapshot, with one connection or several
 *	cmd/dump.c			the dump subcommand: one table or query into files
 *						of N rows, on one snapshot, with one connection or
 *						several
 *	cmd/load.c			the load subcommand: a directory of files into a
 *						database, in order or with -j N connections
 *	cmd/refresh.c		load --refresh: one tenant's rows made equal to a
 *						new export, no other row changed
 *	cmd/schema.c		schema generate | check | tidy --from-db
 *	cmd/explain.c		the explain subcommand
 *	cmd/mask.c			mask preview: original beside masked values
 *
 *	files/parallel.c	the plan as the client sees it (files, row sets,
 *						sizes), the largest files split into parts, and
 *						the files and parts dealt to the workers
 *	files/parts.c		the parts of a file, written by several workers,
 *						joined in order into the file
 *	files/stream.c		one connection's stream of (file, chunk) rows into
 *						files, many connections multiplexed
 *	files/outdir.c		the output directory: temporary directory, fsync,
 *						atomic rename, cleanup
 *	files/pgdump.c		insert-000-schema.sql: pg_dump, run as a child
 *	files/load_deps.c	which files of a load may run at the same time
 *	files/manifest.c	manifest.json of an export, and exwiw verify DIR
 *	files/verify_fk.c	verify: every foreign key inside an export resolves
 *	files/limits.c		--max-rows, --max-bytes: the files' rows counted
 *						before anything is written
 *
 *	lib/options.c		the command line, merged with the run config, checked
 *	lib/ids.c			--ids values and their ID spaces, as the Ruby client
 *	lib/runconfig.c		the YAML run config (exwiw.yml), read with libyaml
 *	lib/schemadir.c		the schema config: a directory of per-table JSON
 *						files (or one JSON file), read and written
 *	lib/json.c			a small JSON tree: parse (libpgcommon's JSON
 *						lexer), print as Ruby's JSON.pretty_generate does
 *	lib/connection.c	connections, server messages, errors, cancel on
 *						signal
 *	lib/exit_status.c	the exit status of an error
 *	lib/progress.c		the progress display on a terminal
 *	lib/ddl.c			pg_dump's output made idempotent, as the Ruby client
 *	lib/sql_split.c		an SQL file's statements and COPY data, as psql
 *						splits them, in the session's client encoding
 *	lib/file_reader.c	a file's bytes, plain or decompressed (.gz, .zst)
 *	lib/file_writer.c	-Z: a file's bytes compressed as written (gzip, zstd)
 *
 *-------------------------------------------------------------------------
 */
#ifndef EXWIW_CLI_H
#define EXWIW_CLI_H

#include "postgres_fe.h"

#include <signal.h>

#include "common/logging.h"
#include "libpq-fe.h"
#include "lib/stringinfo.h"

#ifndef EXWIW_VERSION
#define EXWIW_VERSION "1.0"
#endif

/*
 * The modes of the directories and files the client creates, before the
 * umask: never writable by others, whatever the umask (the files are SQL
 * and JSON that are run or read later).
 */
#define OUTPUT_DIR_MODE		0775
#define OUTPUT_FILE_MODE	0664

/*
 * The most connections (-j) a run may open: each one's cancel object has a
 * place in connection.c's fixed table, which a signal handler reads.
 */
#define MAX_PARALLEL_WORKERS	256

/* Exit status of a run cancelled by a signal: 128 + the signal number. */
#define EXIT_CANCELLED(sig)	(128 + (sig))

/* ---------------------------------------------------------------- */
/* options.c, ids.c                                                    */
/* ---------------------------------------------------------------- */

typedef enum CliCommand
{
	CMD_EXPORT,
	CMD_EXPLAIN,
	CMD_SCHEMA,
	CMD_DUMP,
	CMD_LOAD,
	CMD_MASK,
	CMD_VERIFY
} CliCommand;

/* load --on-conflict */
typedef enum OnConflict
{
	ON_CONFLICT_ERROR,
	ON_CONFLICT_SKIP
} OnConflict;

/* -W forces a password prompt, -w forbids one; by default, on demand */
typedef enum PasswordPrompt
{
	PASSWORD_ON_DEMAND,
	PASSWORD_NEVER,				/* -w, --no-password */
	PASSWORD_ALWAYS				/* -W, --password */
} PasswordPrompt;

typedef enum SchemaVerb
{
	VERB_NONE,
	VERB_GENERATE,
	VERB_CHECK,
	VERB_TIDY,
	VERB_UNKNOWN
} SchemaVerb;

/* The ids of one ID space: --ids=1,2 (space "default") or --ids=org=a,b. */
typedef struct IdSpace
{
	char	   *name;
	int			nids;
	char	  **ids;
} IdSpace;

typedef struct IdSpaces
{
	int			n;
	IdSpace    *spaces;
	/* "--ids was given more than once..." messages, reported later */
	int			nerrors;
	char	  **errors;
} IdSpaces;

#define DEFAULT_ID_SPACE	"default"

/*
 * Everything the command line and the run config say.  A NULL pointer (or
 * -1 for numbers) is "not given": the run config fills only those, so
 * flags win over the file.
 */
typedef struct CliOptions
{
	CliCommand	command;
	SchemaVerb	verb;
	char	   *verb_text;		/* as typed, for the usage error */

	/* connection */
	char	   *host;
	char	   *port;
	char	   *user;
	char	   *dbname;			/* --database / -d / --dbname: a name or a
								 * conninfo string or URI */
	char	   *adapter;

	/* what and where */
	char	   *config_file;
	char	   *schema_dir;
	char	   *output_dir;
	char	   *output_format;	/* insert | copy | jsonl */
	char	   *target_table;
	IdSpaces	ids;
	bool		ids_given;		/* --ids on the command line */
	char	   *log_level;
	char	   *after_insert_hook;
	char	   *scope_column;	/* deprecated --scope-column: every table with
								 * that column is scoped by it */
	char	   *target_collection;	/* mongodb: refused */
	char	   *ids_field;		/* mongodb: refused */
	char	   *uri;			/* mongodb: refused */
	int			jobs;			/* -j / --parallel-workers, -1 unset */
	long		split_rows;		/* --split-rows, -1 unset */
	int			compress_method;	/* -Z: COMPRESS_* */
	int			compress_level; /* -Z's level, 0: the method's default */
	bool		compress_given;
	bool		no_verify;		/* load --no-verify */
	bool		exact;			/* explain --exact */
	char	   *since;			/* --since COLUMN=WHEN */
	long		max_rows;		/* export --max-rows, -1 unset */
	int64		max_bytes;		/* export --max-bytes, -1 unset */
	char	   *fail_on;		/* schema check: any | stale */
	bool		from_db;
	bool		with_schema;
	char	  **exclude_schemas;	/* --exclude-schema patterns, for pg_dump */
	int			nexclude_schemas;
	char	   *rails_env;		/* --rails-env: exwiw.rails_env, or NULL */
	bool		force;
	bool		quiet;
	bool		allow_undecided;
	bool		all_tables;		/* --all-tables: every table, no target */
	bool		allow_missing_ids;	/* target ids matching no row: warn */
	bool		insert_only;	/* --insert-only: no delete files */
	bool		given_insert_only;
	bool		cursor_parallel;	/* mongodb: refused */
	bool		analyze;		/* explain --analyze */
	bool		show_plans;		/* explain --verbose: the EXPLAIN text */
	char	   *explain_format; /* explain --format: text | json, NULL unset */
	PasswordPrompt password_prompt; /* -W / -w, as psql's */

	/* which export-only flags were given, for explain's refusal */
	bool		given_output_dir;
	bool		given_output_format;
	bool		given_hook;
	bool		given_jobs;

	/* the dump subcommand */
	char	   *dump_table;		/* --table */
	char	   *dump_query;		/* --query */
	char	   *dump_format;	/* --format: sql | copy | jsonl */
	long		rows_per_file;	/* --rows-per-file, -1 unset */

	/* the load subcommand */
	char	   *load_dir;		/* DIR */
	bool		single_transaction; /* -1, --single-transaction */
	bool		commit_each_file;	/* --commit-each-file */
	bool		refresh;		/* --refresh: delete files, then inserts */
	char	   *on_conflict_text;	/* --on-conflict, as given */
	OnConflict	on_conflict;

	/* mask preview */
	char	   *mask_verb;		/* "preview", as typed, or NULL */
	long		preview_rows;	/* --rows, -1 unset */
} CliOptions;

extern void parse_options(int argc, char **argv, CliOptions *opts);
extern bool parse_size(const char *value, const char *flag, int64 *bytes,
					   char **error);
extern void check_options(CliOptions *opts);
extern int	check_parallel_workers(long n);
extern void usage(void);
extern void usage_command(CliCommand command);
extern bool exwiw_interactive(void);

extern void ids_add_option(IdSpaces *ids, const char *value);
extern void ids_set_space(IdSpaces *ids, const char *space, char **values,
						  int n);
extern IdSpace *ids_find(IdSpaces *ids, const char *space);
extern bool ids_any_given(const IdSpaces *ids);
extern bool ids_valid_space_name(const char *name);
extern char **split_commas(const char *s, int *n);
extern char *ids_array_literal(const IdSpace *space);
extern char *ids_by_space_json(const IdSpaces *ids);

/* ---------------------------------------------------------------- */
/* runconfig.c                                                        */
/* ---------------------------------------------------------------- */

extern char *runconfig_find(const char *given);
extern void runconfig_apply(const char *path, CliOptions *opts);

/* ---------------------------------------------------------------- */
/* json.c                                                             */
/* ---------------------------------------------------------------- */

typedef enum JsonKind
{
	JV_NULL,
	JV_BOOL,
	JV_NUMBER,
	JV_STRING,
	JV_ARRAY,
	JV_OBJECT
} JsonKind;

typedef struct JsonValue JsonValue;

struct JsonValue
{
	JsonKind	kind;
	char	   *str;			/* string value, number text, "true"/"false" */
	int			n;				/* array elements, object members */
	int			cap;
	char	  **keys;			/* object: member names, in order */
	JsonValue **items;			/* array elements, object values */
};

extern JsonValue *json_parse(const char *text, size_t len, char **errmsg);
extern void json_print_pretty(StringInfo out, const JsonValue *v);
extern void json_print_compact(StringInfo out, const JsonValue *v);
extern JsonValue *json_get(const JsonValue *obj, const char *key);
extern const char *json_get_string(const JsonValue *obj, const char *key);
extern void json_set(JsonValue *obj, const char *key, JsonValue *v);
extern void json_remove(JsonValue *obj, const char *key);
extern void json_append(JsonValue *arr, JsonValue *v);
extern JsonValue *json_new(JsonKind kind, const char *str);
extern JsonValue *json_copy(const JsonValue *v);
extern bool json_equal(const JsonValue *a, const JsonValue *b);
extern bool json_truthy(const JsonValue *v);
extern JsonValue *json_reorder(const JsonValue *obj, const char *const *order);

/* ---------------------------------------------------------------- */
/* schemadir.c                                                        */
/* ---------------------------------------------------------------- */

/* One table config and the file it came from. */
typedef struct SchemaTable
{
	char	   *path;			/* file, or NULL when new */
	JsonValue  *config;			/* the table's object */
} SchemaTable;

typedef struct SchemaConfig
{
	char	   *location;		/* the directory, or the single file */
	bool		single_file;
	int			ntables;
	SchemaTable *tables;
} SchemaConfig;

extern SchemaConfig *schema_config_load(const char *location, bool must_exist);
extern char *schema_config_text(const SchemaConfig *cfg);
extern void schema_decision_hints(const char *hint);
extern void schema_table_fix_hint(const char *name);
extern int	schema_config_apply_scope_column(SchemaConfig *cfg, const char *col);
extern void schema_config_apply_all_tables(SchemaConfig *cfg);
extern int	schema_config_apply_since(SchemaConfig *cfg, const char *col,
									  const char *cond, const char *target);
extern const char *schema_table_name(const SchemaTable *t);
extern bool schema_column_decided(const JsonValue *c);
extern bool schema_arm_undecided(const JsonValue *b);
extern bool schema_belongs_to_proposed(const JsonValue *b);
extern char *schema_proposal_name(const char *table, const JsonValue *b);
extern int	schema_config_undecided(const SchemaConfig *cfg, JsonValue *cols,
									JsonValue *arms, JsonValue *props);
extern char *schema_table_file_name(const char *dir, const char *table);
extern void write_file_durably(const char *path, const char *data, size_t len);
extern char *read_whole_file(const char *path, size_t *len);
extern char *read_whole_file_at(int dirfd, const char *name, size_t *len);

/* ---------------------------------------------------------------- */
/* exit_status.c, connection.c                                        */
/* ---------------------------------------------------------------- */

/* exit status of an error: 1, or 2 while schema check runs */
extern int	exwiw_error_exit;

extern PGconn *exwiw_connect(const CliOptions *opts, const char *purpose);
extern void exwiw_disconnect(PGconn *conn);
extern void report_result_error(const PGresult *res, const char *what);
extern PGresult *exec_checked(PGconn *conn, const char *sql, const char *what);
extern PGresult *exec_params_checked(PGconn *conn, const char *sql,
									 int nparams, const char *const *values,
									 const char *what);
extern void exec_command(PGconn *conn, const char *sql, const char *what);
extern char *exwiw_extension_schema(PGconn *conn);
extern char *conninfo_for_child(PGconn *conn, char **password);

/* cancel on SIGINT/SIGTERM */
extern volatile sig_atomic_t exwiw_cancel_signal;
extern void setup_cancel_handler_multi(void);
extern void cancel_register(PGconn *conn);
extern void cancel_unregister(PGconn *conn);
extern void cancel_set_child(pid_t pid);
extern void exit_if_cancelled(void);

/* ---------------------------------------------------------------- */
/* outdir.c                                                           */
/* ---------------------------------------------------------------- */

extern void outdir_check_target(const char *target, bool force, bool quiet,
								const char *keep);
extern char *outdir_create_temp(const char *target);
extern int	outdir_temp_fd(void);
extern int	outdir_create_file(const char *name, mode_t mode);
extern void outdir_remove_file(const char *name);
extern void outdir_fsync_files(void);
extern void outdir_commit(const char *target);
extern void outdir_abandon(void);

/* ---------------------------------------------------------------- */
/* stream.c: files written from (file_name, chunk) rows               */
/* ---------------------------------------------------------------- */

typedef struct OutFile
{
	char	   *name;			/* file name, as the server gave it */
	int			fd;
	char	   *buf;			/* write buffer */
	size_t		used;
	long		rows;			/* counted for progress, when asked */
	long		bytes;
	int			copy_state;		/* row counting state for COPY files */
	int			compress_method;	/* COMPRESS_*: -Z */
	int			compress_level;
	struct FileCompressor *z;	/* its compressor, or NULL */
} OutFile;

typedef struct ExportStream
{
	PGconn	   *conn;
	int			worker;			/* 0-based */
	bool		done;
	bool		failed;
	PGresult   *error;			/* the error result, kept for the report */
	OutFile		file;			/* the open file, name NULL when none */
	int		   *share;			/* file numbers of this worker, in order */
	int			nshare;
	int			next_share;		/* index of the next file in share */
} ExportStream;

typedef struct StreamSink
{
	const char *dir;			/* directory to write into */
	int			format;			/* EXPORT_FORMAT_* for row counting */
	bool		count_rows;
	int			compress_method;	/* COMPRESS_*: the files' (-Z) */
	int			compress_level;
	void		(*file_started) (void *arg, ExportStream *s);
	void		(*file_finished) (void *arg, ExportStream *s);
	void		(*tick) (void *arg);
	void	   *arg;
} StreamSink;

#define EXPORT_FORMAT_INSERT	0
#define EXPORT_FORMAT_COPY		1
#define EXPORT_FORMAT_JSONL		2

extern void stream_run(ExportStream *streams, int n, const StreamSink *sink);
extern long count_rows_in_chunk(int format, const char *chunk, size_t len,
								int *copy_state);

/* ---------------------------------------------------------------- */
/* parallel.c                                                         */
/* ---------------------------------------------------------------- */

/* A row set of the plan (exwiw_s_3, ...): computed by every worker that
 * needs it. */
typedef struct PlanSet
{
	char	   *name;
	char	   *table;
	double		cost;			/* modelled: its table's size */
} PlanSet;

/* A file of the plan. */
typedef struct PlanFile
{
	int			seq;
	char	   *table;
	char	   *rule;
	char	   *query;
	double		cost;			/* modelled: its table's size (scaled) */
	double		rows;			/* estimated rows (scaled), < 0 unknown */
	double		standalone;		/* cost with every set it needs */
	int			nneed;
	int		   *need;			/* the sets it needs, transitively */
	int			worker;
	int			part;			/* part of parts of the file, or 0 */
	int			parts;
} PlanFile;

typedef struct ExportPlan
{
	int			nfiles;
	PlanFile   *files;
	int			nsets;
	PlanSet    *sets;
} ExportPlan;

extern ExportPlan *plan_export(PGconn *conn, const char *nsp,
							   const char *const *params, int nids,
							   const char *target);
extern int	deal_files(ExportPlan *plan, int jobs);
extern ExportPlan *plan_split_files(ExportPlan *plan, int jobs);
extern void plan_join_parts(ExportPlan *plan);

/* ---------------------------------------------------------------- */
/* parts.c: the parts of a file, written by several workers, joined   */
/* ---------------------------------------------------------------- */

/* what a worker's file name of a part ends with, before the part number */
#define PART_FILE_SUFFIX	".exwiw-part-"

extern void join_part_files(void);

/* ---------------------------------------------------------------- */
/* progress.c                                                         */
/* ---------------------------------------------------------------- */

typedef struct ProgressFile
{
	int			seq;
	char	   *table;
	char	   *file_name;		/* known when it starts */
	double		est_rows;		/* < 0: unknown */
	bool		exact;			/* est_rows counted (--max-rows), not
								 * estimated */
	double		est_bytes;		/* weight for the overall bar */
	long		rows;
	long		bytes;
	int			state;			/* 0 waiting, 1 running, 2 done */
	double		started;
	double		finished;
} ProgressFile;

typedef struct Progress Progress;

extern Progress *progress_start(ProgressFile *files, int nfiles, bool enabled,
								bool summary);
extern void progress_file_started(Progress *p, int seq, const char *name);
extern void progress_file_pending(Progress *p, int seq);
extern void progress_file_update(Progress *p, int seq, long rows, long bytes);
extern void progress_file_done(Progress *p, int seq);
extern void progress_tick(Progress *p, bool force);
extern void progress_finish(Progress *p, const char *dir, int files,
							long rows, long bytes);
extern void progress_finish_load(Progress *p, const char *dir, int files,
								 long rows, long bytes);
extern void progress_clear(Progress *p);
extern double now_seconds(void);
extern void format_bytes(char *buf, size_t len, double bytes);
extern void format_count(char *buf, size_t len, double n);

/* ---------------------------------------------------------------- */
/* subcommands                                                        */
/* ---------------------------------------------------------------- */

extern int	run_export(CliOptions *opts);
extern int	run_dump(CliOptions *opts);
extern int	run_explain(CliOptions *opts);
extern int	run_mask_preview(CliOptions *opts);
extern int	run_schema(CliOptions *opts);
extern int	run_load(CliOptions *opts);

/* ---------------------------------------------------------------- */
/* sql_split.c                                                        */
/* ---------------------------------------------------------------- */

/* manifest.c: manifest.json, and exwiw verify */
typedef struct Manifest Manifest;

extern Manifest *manifest_begin(void);
extern void manifest_add_rows(Manifest *m, const char *name, long rows);
extern void manifest_write(Manifest *m, PGconn *conn, const CliOptions *opts,
						   const SchemaConfig *cfg, const char *config_text,
						   const char *ids_text);
extern bool manifest_verify(const char *dir, bool *found, int *nchecked,
							int *nkeys);
extern bool verify_foreign_keys(const char *dir, const JsonValue *top,
								int *nchecked);
extern int	run_verify(CliOptions *opts);

/* file_writer.c: -Z, a file's bytes compressed as they are written */
#define COMPRESS_NONE	0
#define COMPRESS_GZIP	1
#define COMPRESS_ZSTD	2

typedef struct FileCompressor FileCompressor;
typedef void (*CompressorOut) (void *arg, const char *data, size_t len);

extern bool compress_parse(const char *value, int *method, int *level,
						   char **error);
extern const char *compress_suffix(int method);
extern FileCompressor *compressor_begin(int method, int level);
extern void compressor_write(FileCompressor *c, const char *data, size_t len,
							 CompressorOut out, void *arg);
extern void compressor_end(FileCompressor *c, CompressorOut out, void *arg);

/* file_reader.c: a file's bytes, decompressed as its name says */
typedef struct FileReader FileReader;

extern FileReader *reader_open(const char *path);
extern ssize_t reader_read(FileReader *r, char *buf, size_t n);
extern const char *reader_error(const FileReader *r);
extern off_t reader_position(const FileReader *r);
extern void reader_close(FileReader *r);
extern size_t reader_compressed_suffix(const char *name);

/* A file being read, statement after statement. */
typedef struct SqlSplitter
{
	FileReader *reader;
	char	   *path;
	char	   *buf;			/* bytes read and not yet consumed */
	size_t		len;
	size_t		cap;
	size_t		pos;			/* where the next statement is looked for */
	bool		eof;
	bool		read_failed;
	long		bytes_read;
	int			line;			/* the file's line at pos */
	int			encoding;		/* the session's client encoding */
	bool		std_strings;	/* the session's standard_conforming_strings */
	int			begin_depth;	/* BEGIN ... END in CREATE FUNCTION */
	char		last_word[17];
	char		prev_word[17];
	char	   *errmsg;			/* the last error */
	int			errline;
} SqlSplitter;

/* One statement: its text (no semicolon) and what the loader asks. */
typedef struct SqlStatement
{
	char	   *text;
	size_t		len;
	int			line;			/* the line of its first token */
	int			end_line;		/* the line of its semicolon */
	int			nwords;
	char		first_word[17]; /* lower case */
	bool		has_on_conflict;	/* ON CONFLICT outside quotes */
	bool		is_copy_from_stdin;
	bool		is_routine;		/* CREATE [OR REPLACE] FUNCTION|PROCEDURE */
	long		rows;			/* lines that start with a tuple's "(" */
} SqlStatement;

typedef enum SplitResult
{
	SPLIT_STATEMENT,
	SPLIT_END,
	SPLIT_ERROR
} SplitResult;

extern SqlSplitter *split_open(const char *path);
extern void split_close(SqlSplitter *s);
extern SplitResult split_next(SqlSplitter *s, SqlStatement *st);
extern bool split_copy_data(SqlSplitter *s,
							bool (*send) (const char *data, size_t len, void *arg),
							void *arg, long *rows, int *first_line);
extern int	split_line_at(const SqlStatement *st, const char *text, size_t len,
						  int encoding, int pos);
extern bool sql_statement_target(const char *p, char **table, char **columns,
								 const char **end);
extern long split_progress(const SqlSplitter *s);

/* ---------------------------------------------------------------- */
/* refresh.c                                                          */
/* ---------------------------------------------------------------- */

typedef struct Refresh Refresh;

extern Refresh *refresh_start(PGconn *conn, bool strict);
extern bool refresh_own_rows(Refresh *r, PGconn *conn, const char *stmt,
							 PGresult **fail, char **msg);
extern char *refresh_stage(Refresh *r, PGconn *conn, const SqlStatement *st,
						   PGresult **fail, char **msg);
extern bool refresh_apply(Refresh *r, PGconn *conn, PGresult **fail);
extern bool refresh_clear_keyless(Refresh *r, PGconn *conn, PGresult **fail,
								  bool *refused);
extern bool refresh_finish(Refresh *r, PGconn *conn, PGresult **fail,
						   bool *refused);
extern void refresh_summary(const Refresh *r, long *inserted, long *updated,
							long *deleted);

/* ---------------------------------------------------------------- */
/* load.c, load_deps.c                                                */
/* ---------------------------------------------------------------- */

/* A file of the directory being loaded. */
typedef struct LoadFile
{
	char	   *name;			/* file name in the directory */
	char	   *path;
	char	   *table;			/* its table, from the name; NULL: none */
	bool		is_delete;		/* delete-NNN-<table>.sql */
	bool		barrier;		/* runs alone: before it and after it, all */
	off_t		size;
	int			ndeps;
	int		   *deps;			/* earlier files it waits for */
	int			state;			/* 0 waiting, 1 running, 2 done */
} LoadFile;

extern void load_plan_dependencies(PGconn *conn, LoadFile *files, int nfiles);
extern char *load_file_table(const char *name);

/* pgdump.c, ddl.c */
extern pid_t pgdump_start(PGconn *conn, const char *dir,
						  const char *snapshot, char **exclude_schemas,
						  int nexclude);
extern char *exwiw_program_path;
extern void pgdump_finish(pid_t pid, const char *dir, const char *out_name);
extern char *ddl_postprocess(const char *dump, const char *const *left_out,
							 char **stripped_extensions);

/* files/limits.c: --max-rows, --max-bytes */
typedef struct ExactCount
{
	int			seq;
	char	   *table;
	double		rows;			/* counted on the export's snapshot */
	double		bytes;			/* estimated: rows times the plan's width */
} ExactCount;

extern ExactCount *exact_counts(PGconn *conn, const char *nsp,
								const char *const *params, int *n);
extern void check_limits(ExactCount *c, int n, long max_rows, int64 max_bytes);

/* files/manifest.c: the --output-format value, for the manifest and export.c */
extern const char *export_format_name(const CliOptions *opts);

/* the export's SQL, shared by export.c and explain.c */
extern void since_apply(PGconn *conn, const CliOptions *opts, SchemaConfig *cfg);

#endif							/* EXWIW_CLI_H */
