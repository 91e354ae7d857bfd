/*-------------------------------------------------------------------------
 *
 * exwiw.h
 *	  The map of the extension, and the declarations every subsystem
 *	  shares: the streaming engine and its writers (dump/), the settings
 *	  pins, the argument checks of the SQL entry points.
 *
 * src/ is one directory per subsystem, the subset engine one folder per
 * phase; doc/architecture.md draws the layers and who may include and call
 * whom, and test/lint/src_layers.sh enforces that drawing.  Calls go one
 * way, down this list; a subsystem calls only those below it:
 *
 *	sink/		server-side files: a stream drained into a file, or a
 *				subset export's files into a directory, atomically, through
 *				a compressor (a handle per algorithm, compress_io.h)
 *	subset/		the subset engine, by phase: config/ (the config parsed
 *				and checked), catalog/ (the foreign-key graph, inference,
 *				sensitivity, secrets), sql/ (deparse.c: SQL text of names,
 *				types, a user's fragment), plan/ (the planner: decide.c,
 *				then seeds.c, closure.c, select.c, delete.c driven by
 *				build.c over planner.h's struct), run/ (the executor:
 *				privileges, locks, row sets, sequences, depths, the export,
 *				its delete files); explain and the mask preview on top
 *	mask/		the masks that are SQL functions called per row by an
 *				export's select list: pseudonyms, partial, noise,
 *				generalization, jsonb paths; the secret and its HMAC
 *	fake/		deterministic fake values and their word pools
 *	extjson/	Relaxed Extended JSON in the server: json and jsonb
 *				values, typed rows, the JSON Lines writer
 *	dump/		the streaming engine (stream.c: one query, rows formatted
 *				straight into chunks), the INSERT and COPY writer
 *				(writer.c), the checks of a query, the settings pinned
 *				while values are formatted, the read-ahead of a query's
 *				index probes (prefetch.c), SRF plumbing
 *	common/		what builds with FRONTEND too, so that the fuzz targets
 *				and the client take the directory: the dump format's text
 *				(sql_text.c), the Extended JSON core (extjson/), and
 *				compat.h, the one place that tests the server's version
 *
 * exwiw.c is the module's entry (the magic block, _PG_init and the
 * settings of every subsystem, the shared argument checks).  Each
 * subsystem's SQL-callable functions are in its funcs.c and nowhere else,
 * thin, as contrib/amcheck's: they decode their arguments (into a struct
 * where there are many: SubsetArgs), call the engine, and turn what it
 * returns into rows; no engine function takes a FunctionCallInfo.  An
 * entry point may call any subsystem (exwiw_dump_jsonl, in extjson/funcs.c,
 * runs dump/'s stream with extjson/'s writer).  Includes name the path
 * from src/: #include "subset/plan/planner.h".
 *
 * "sql" in a name means SQL text (common/sql_text.c, subset/sql/); the
 * dump format's writer is dump/writer.c, the SQL functions are the funcs.c.
 *
 * A "stream" runs one query through a cursor and hands every row to a
 * "writer", which appends the row's text to a chunk buffer.  The stream
 * decides where chunks end (only between rows) and returns each chunk as a
 * text datum.  Every exporter (exwiw_dump, exwiw_dump_jsonl, exwiw_export)
 * is a writer plugged into the same stream.
 *
 *-------------------------------------------------------------------------
 */
#ifndef EXWIW_H
#define EXWIW_H

#include "postgres.h"

#include "fmgr.h"
#include "access/tupdesc.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "nodes/plannodes.h"
#include "lib/stringinfo.h"
#include "common/sql_text.h"
#include "tcop/cmdtag.h"
#include "utils/queryenvironment.h"

/* Default and limits of the chunk size, in bytes of text per chunk. */
#define EXWIW_DEFAULT_CHUNK_BYTES	(256 * 1024)
#define EXWIW_MIN_CHUNK_BYTES		1
#define EXWIW_MAX_CHUNK_BYTES		(256 * 1024 * 1024)

/*
 * A writer formats rows.  The stream calls, in order:
 *
 *	begin		once, with the query's result descriptor, before any row
 *	row			for every row: append the row's text (and, for the first
 *				row of a statement, the statement's header) to buf
 *	between		when another row follows: append what ends the previous
 *				line (for INSERT, "," or ";"); the stream then adds the
 *				newline itself, or ends the chunk there instead
 *	finish		after the last row (only when there was one): append what
 *				ends the output (for INSERT ";", for COPY "\n\\.")
 *
 * between and finish may be NULL when the format needs nothing there (JSON
 * Lines).  Callbacks run in a short-lived per-row memory context; anything they keep
 * must be allocated in the writer's own context (given to begin).  buf's
 * data lives in the stream's chunk context: append only.
 */
typedef struct ExwiwWriter ExwiwWriter;

struct ExwiwWriter
{
	void		(*begin) (ExwiwWriter *w, TupleDesc desc, MemoryContext cxt);
	void		(*row) (ExwiwWriter *w, StringInfo buf, TupleTableSlot *slot,
						uint64 rowno);
	void		(*between) (ExwiwWriter *w, StringInfo buf, uint64 next_rowno);
	void		(*finish) (ExwiwWriter *w, StringInfo buf, uint64 nrows);
	/* end a piece that is not the last (split_rows); NULL: as finish */
	void		(*finish_piece) (ExwiwWriter *w, StringInfo buf, uint64 nrows);
};

/* Opaque streaming state, see stream.c. */
typedef struct ExwiwStream ExwiwStream;

/*
 * The query a stream reads, and how.  sql may use parameters $1..$nargs
 * and read the ephemeral named relations in enrs (a List of
 * EphemeralNamedRelation).  pin_search_path: the SQL is exwiw's own, every
 * name in it qualified; it is parsed with search_path = pg_catalog, pg_temp.
 * error_table: the rows hold masked values (or a user's fragment that may
 * read them), so an error raised while reading them keeps its SQLSTATE but
 * names this table, masked_columns (NULL: the table has none) and
 * error_keys (the config keys the query evaluates, or NULL) instead of
 * carrying the original message (exwiw_withhold_error).  context: the
 * error context line.
 */
typedef struct ExwiwQuery
{
	const char *sql;
	int			nargs;
	Oid		   *argtypes;
	Datum	   *values;
	List	   *enrs;
	bool		pin_search_path;
	const char *error_table;
	const char *masked_columns;
	const char *error_keys;
	const char *context;
	int			part;
	int			parts;
	bool		prefetch;		/* a subset export's query: planned and
								 * started under exwiw_pin_io_settings() */
} ExwiwQuery;

/* ident.c */
extern void exwiw_append_table_name(StringInfo buf, const char *table_name);
extern int	exwiw_table_name_parts(const char *name, char **parts, int max,
								   bool *quoted);
extern char *exwiw_extension_schema(void);

/* settings.c */
extern int	exwiw_pin_output_settings(void);
extern void exwiw_restore_settings(int nestlevel);
extern int	exwiw_pin_search_path(void);
extern int	exwiw_pin_serial(void);
extern int	exwiw_pin_io_settings(void);
extern int	exwiw_pin_work_mem(void);
extern int	exwiw_pin_walk(void);

/* walk.c */
extern bool exwiw_walk_wanted(PlannedStmt *stmt);
extern bool exwiw_walk_kept(PlannedStmt *stmt, PlannedStmt *walk);

/* prefetch.c */
extern void exwiw_prefetch_plan(PlannedStmt *stmt, List *enrs);

/* query_check.c */
extern void exwiw_check_statements(int nstatements);
extern void exwiw_check_query(List *querytrees, CommandTag tag);
extern void exwiw_check_column_names(TupleDesc desc);

/* stream.c */
extern ExwiwStream *exwiw_stream_open(const char *funcname, const ExwiwQuery *q,
									  ExwiwWriter *writer, int chunk_bytes,
									  MemoryContext cxt);
extern text *exwiw_stream_next(ExwiwStream *stream);
extern void exwiw_stream_close(ExwiwStream *stream);
extern uint64 exwiw_stream_rows(ExwiwStream *stream);
extern int	exwiw_stream_piece(ExwiwStream *stream);
extern void exwiw_stream_set_split_rows(ExwiwStream *stream, int64 split_rows);
extern bool exwiw_error_is_plain(int sqlerrcode);
extern int	exwiw_withheld_sqlstate(MemoryContext cxt);
extern void exwiw_withhold_error(MemoryContext cxt, const char *table,
								 const char *masked_columns, const char *keys);

/* dump/writer.c */
typedef enum ExwiwSqlFormat
{
	EXWIW_FORMAT_INSERT,
	EXWIW_FORMAT_COPY,
	EXWIW_FORMAT_JSONL			/* subset export only: Extended JSON Lines */
} ExwiwSqlFormat;

/*
 * What a SQL writer writes around the rows (doc/sql-dump-format.md):
 *	EXWIW_SQL_STREAM	nothing: the statements alone (exwiw_dump)
 *	EXWIW_SQL_FILE		a whole file: "SET client_encoding = '<the encoding
 *						of its bytes>';" then "SET standard_conforming_strings
 *						= on;" first (the sinks, exwiw_copy_lines)
 *	EXWIW_SQL_SUBSET	a subset export's file: those lines, then the block
 *						that skips foreign-key triggers where the role may
 * The writer writes it before the first row; after the last row, a
 * "SELECT pg_catalog.setval(...);" line per sequence of sequences (a
 * subset file's, ExwiwSequenceState).  A query
 * without rows gives nothing at all.  server_file: the file is written on
 * the server (a sink), so its bytes are in the server encoding; otherwise
 * they go to the client, converted to its client_encoding
 * (exwiw_file_encoding_name).
 */
typedef enum ExwiwSqlFile
{
	EXWIW_SQL_STREAM,
	EXWIW_SQL_FILE,
	EXWIW_SQL_SUBSET
} ExwiwSqlFile;

/* A sequence's state, as a file sets it again (setval). */
typedef struct ExwiwSequenceState
{
	const char *name;			/* schema-qualified, quoted as needed */
	const char *last_value;		/* its text output */
	bool		is_called;
} ExwiwSequenceState;

typedef struct ExwiwSqlWriterOptions
{
	const char *table_name;
	ExwiwSqlFormat format;
	int64		rows_per_statement; /* 0: one statement */
	bool		overriding_system_value;
	bool		no_column_list; /* INSERT INTO t VALUES, COPY t FROM stdin */
	ExwiwSqlFile file;
	bool		server_file;
	List	   *sequences;		/* ExwiwSequenceState *, in file order */
	const char *conflict;		/* INSERT: an ON CONFLICT clause, or NULL */
} ExwiwSqlWriterOptions;

extern ExwiwSqlFormat exwiw_parse_sql_format(const char *format,
											 bool allow_jsonl);
extern ExwiwWriter *exwiw_sql_writer_create(const ExwiwSqlWriterOptions *opts);

/* dump/copy_lines.c */
extern ExwiwWriter *exwiw_copy_lines_writer(const char *table_name);
extern const char *exwiw_file_encoding_name(bool server_file);
extern char *exwiw_sql_file_prologue(ExwiwSqlFile file, bool server_file);

/* srf.c: value-per-call plumbing for streaming SRFs */
struct FuncCallContext;
extern void exwiw_check_srf_context(FunctionCallInfo fcinfo,
									const char *funcname);
extern void exwiw_srf_start(FunctionCallInfo fcinfo,
							struct FuncCallContext *funcctx,
							ExwiwStream *stream);
extern Datum exwiw_srf_next(FunctionCallInfo fcinfo,
							struct FuncCallContext *funcctx);

/* exwiw.c: shared argument checks */
extern void exwiw_require_arg(FunctionCallInfo fcinfo, int argno,
							  const char *funcname, const char *argname);
extern int	exwiw_chunk_bytes_arg(FunctionCallInfo fcinfo, int argno,
								  const char *funcname);
extern void exwiw_part_args(FunctionCallInfo fcinfo, int argno,
							const char *funcname, ExwiwQuery *q);
extern int64 exwiw_rows_per_statement_arg(FunctionCallInfo fcinfo, int argno,
										  ExwiwSqlFormat format);

extern void exwiw_refuse_pushed_down(const char *funcname);

/*
 * Was argument n passed?  A C function of 1.1 may be called through the SQL
 * declaration of 1.0, with fewer arguments, until ALTER EXTENSION UPDATE.
 */
#define EXWIW_HAS_ARG(fcinfo, n) (PG_NARGS() > (n))
extern void exwiw_push_fn_context(ErrorContextCallback *cb, const char *funcname);
extern void exwiw_pop_fn_context(ErrorContextCallback *cb);
extern bool exwiw_sets_as_ctes;
extern int	exwiw_io_concurrency;
extern int	exwiw_work_mem;
extern char *exwiw_rails_env;

/* extjson: Relaxed Extended JSON (extjson_*.c; the pure core is common/extjson/extjson.h) */
struct ExjError;
typedef struct ExjRowWriter ExjRowWriter;

/* extjson/datum.c */
extern bool exwiw_extjson_must_check_utf8(void);
extern void exwiw_extjson_check_utf8(const char *s, int len,
									 const char *column);
extern void exwiw_extjson_raise(const char *funcname, struct ExjError *err,
								const char *column, const char *where);
extern bool exwiw_extjson_append_jsonb(StringInfo buf, Datum jsonb,
									   const char *root_path,
									   struct ExjError *err);
extern bool exwiw_extjson_append_json(StringInfo buf, Datum json,
									  const char *root_path,
									  struct ExjError *err);

/* extjson/lines.c */
extern ExwiwWriter *exwiw_jsonl_writer_create(const char *funcname,
											  struct ArrayType *oid_columns,
											  bool omit_nulls);

/* extjson/row.c */
extern ExjRowWriter *exwiw_extjson_row_writer(const char *funcname,
											  TupleDesc desc,
											  struct ArrayType *oid_columns,
											  bool omit_nulls,
											  MemoryContext cxt);
extern void exwiw_extjson_append_row(ExjRowWriter *rw, StringInfo buf,
									 Datum *values, bool *isnull);
extern void exwiw_extjson_deform_record(HeapTupleHeader th, TupleDesc desc,
										Datum **values, bool **nulls);

/*
 * subset export: run/export.c holds exwiw_export(), which streams one
 * file after another through the engine above (one stream per file of the
 * planner's plan); its declarations are in subset.h.
 */

#endif							/* EXWIW_H */
