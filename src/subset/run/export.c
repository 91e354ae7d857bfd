/*-------------------------------------------------------------------------
 *
 * run/export.c
 *	  A subset export streamed: every table's file in processing order,
 *	  all tables read from one snapshot.  The engine of exwiw_export(),
 *	  whose SQL entry point (subset/funcs.c) decodes its arguments into a
 *	  SubsetArgs and returns our chunks as rows, and of the directory sink
 *	  (sink/funcs.c), which writes the same files on the server:
 *
 *	  exwiw_export(target_table text, ids text[], config jsonb DEFAULT NULL,
 *				   format text DEFAULT 'insert',
 *				   allow_undecided boolean DEFAULT false,
 *				   files integer[] DEFAULT NULL,
 *				   ids_by_space jsonb DEFAULT NULL,
 *				   part integer DEFAULT NULL, parts integer DEFAULT NULL,
 *				   allow_missing_ids boolean DEFAULT false,
 *				   split_rows integer DEFAULT NULL,
 *				   deletes boolean DEFAULT false)
 *		RETURNS TABLE(file_name text, chunk text)
 *
 * subset_export_begin checks the config (config/parse.c), plans it
 * (plan/build.c) and prepares the run (run/executor.c: privileges, locks,
 * the row sets).  Then, in subset_export_next, for each table in turn, a stream (stream.c) runs its
 * extraction query through the SQL writer, which frames the file
 * (dump/writer.c: the prologue, the statements, the setval lines), and its
 * chunks are returned tagged with the file name.  A table with no rows
 * produces no chunk, hence no file.  With part => k, parts => n, each
 * file's stream reads only the k-th of its n parts (stream.c), under the
 * file's own name: the parts of one file, from connections that share a
 * snapshot, concatenate to the file.  With split_rows => N, each file is
 * written as pieces of at most N rows, insert-NNN-<table>.partK.sql
 * (K = 1, 2, ...), each framed as a whole file (its own prologue, trigger
 * blocks and statements; the setval lines in the last), so that each loads
 * on its own; the rows are read once (stream.c).  With deletes => true,
 * the delete files of the files written follow them, the last table's
 * first (plan/delete.c): delete-NNN-<table>.sql, each reading its insert
 * file's rows.
 *
 * One snapshot: every query reads the caller's active snapshot, which is
 * the same for every call of the SQL function within one statement; nothing
 * takes a new one.  Safe mode: a config in which a column still needs a
 * mask decision is refused unless allow_undecided is true.
 *
 * Early stop: the entry point's ExprContext shutdown callback calls
 * subset_export_end, which closes the open cursor when the consumer stops
 * before the last row (LIMIT, cancel, error).
 *
 *-------------------------------------------------------------------------
 */
#include "subset/subset.h"

#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

/* An export in progress (subset.h): the state kept across chunks. */
struct SubsetExport
{
	MemoryContext cxt;			/* lives until subset_export_end */
	SubsetPlan *plan;
	SubsetRun  *run;
	int			next;			/* next file to open */
	int			dnext;			/* next file whose delete file to open */
	bool		deletes;		/* delete files after the insert files */
	int			cur;			/* file of the open stream */
	ExwiwSqlFormat format;
	ExwiwStream *stream;		/* open stream, or NULL */
	text	   *file_name;		/* file name of the open stream */
	MemoryContext stream_cxt;	/* memory of the open stream */
	ExwiwQuery	part;			/* part and parts of each file, or 0 */
	int64		split_rows;		/* pieces of at most this many rows, or 0 */
	int			piece;			/* piece of file_name (split_rows) */
	bool		deleting;		/* the stream is a delete file's */
};

/*
 * open_next_stream
 *		Open the stream of the next file of the plan in its own memory
 *		context.  Returns false when every file has been streamed.
 */
static bool
open_next_stream(SubsetExport *ex, MemoryContext parent)
{
	MemoryContext old;
	bool		deleting;

	/* a table known to have no rows has no file: skip its query */
	while (ex->next < ex->plan->nfiles && !ex->plan->files[ex->next].has_rows)
		ex->next++;
	/* then the delete files, last table first */
	while (ex->next >= ex->plan->nfiles && ex->deletes && ex->dnext >= 0 &&
		   !subset_delete_wanted(ex->plan, ex->dnext))
		ex->dnext--;
	if (ex->next < ex->plan->nfiles)
	{
		ex->cur = ex->next++;
		deleting = false;
	}
	else if (ex->deletes && ex->dnext >= 0)
	{
		ex->cur = ex->dnext--;
		deleting = true;
	}
	else
		return false;

	ex->stream_cxt = AllocSetContextCreate(parent, "exwiw_export table",
										   ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(ex->stream_cxt);
	ex->piece = 0;
	ex->deleting = deleting;
	if (deleting)
	{
		ex->file_name = cstring_to_text(ex->plan->files[ex->cur].delete_name);
		ex->stream = subset_delete_open_file(ex->plan, ex->run, ex->cur, false,
											 ex->stream_cxt, NULL);
	}
	else
	{
		ex->file_name = cstring_to_text(ex->plan->files[ex->cur].file_name);
		ex->stream = subset_export_open_file(ex->plan, ex->run, ex->cur, ex->format,
											 false, ex->part.part, ex->part.parts,
											 ex->stream_cxt);
		exwiw_stream_set_split_rows(ex->stream, ex->split_rows);
	}
	MemoryContextSwitchTo(old);
	return true;
}

/*
 * subset_export_open_file
 *		Open the stream of file number `file` of a prepared plan, with the
 *		writer that frames the file, in cxt; only its part-th of parts parts
 *		when parts > 0.  Shared with the directory sink (sink/funcs.c), so that
 *		both write the same bytes but for the encoding line: server_file
 *		when the server writes the file itself.
 */
ExwiwStream *
subset_export_open_file(SubsetPlan *plan, SubsetRun *run, int file,
						ExwiwSqlFormat format, bool server_file,
						int part, int parts,
						MemoryContext cxt)
{
	SubsetTable *t = &plan->cfg->tables[plan->files[file].table];
	MemoryContext old = MemoryContextSwitchTo(cxt);
	ExwiwWriter *writer;
	ExwiwSqlWriterOptions opts = {0};
	ExwiwQuery	q;
	ExwiwStream *stream;
	int			c;

	subset_run_file_query(run, file, &q);
	q.part = part;
	q.parts = parts;
	if (format == EXWIW_FORMAT_JSONL)
	{
		/* one Extended JSON document per row, nothing else in the file */
		writer = exwiw_jsonl_writer_create("exwiw_export", NULL, false);
		stream = exwiw_stream_open("exwiw_export", &q, writer,
								   EXWIW_DEFAULT_CHUNK_BYTES, cxt);
		MemoryContextSwitchTo(old);
		return stream;
	}
	if (plan->files[file].fixup)
	{
		/* a cycle's fix-up: INSERT ... ON CONFLICT DO UPDATE, in any format */
		format = EXWIW_FORMAT_INSERT;
		opts.conflict = plan->files[file].conflict;
	}
	else if (t->rails_managed)
	{
		/* the schema file may have inserted Rails's own rows already */
		format = EXWIW_FORMAT_INSERT;
		opts.conflict = "ON CONFLICT DO NOTHING";
	}
	opts.table_name = t->outname;
	opts.format = format;
	opts.rows_per_statement = format == EXWIW_FORMAT_INSERT ? t->chunk : 0;
	for (c = 0; c < t->ncols; c++)
		opts.overriding_system_value |= t->cols[c].identity_always;
	opts.no_column_list = t->rails_managed;
	opts.file = EXWIW_SQL_SUBSET;
	opts.server_file = server_file;
	opts.sequences = plan->files[file].fixup ? NIL : subset_run_sequences(run, file);
	writer = exwiw_sql_writer_create(&opts);
	stream = exwiw_stream_open("exwiw_export", &q, writer,
							   EXWIW_DEFAULT_CHUNK_BYTES, cxt);
	MemoryContextSwitchTo(old);
	return stream;
}

/*
 * close_stream
 *		Close the open stream and free its memory.  Only called once its
 *		last chunk has been consumed (a later call than the one that
 *		returned it).
 */
static void
close_stream(SubsetExport *ex)
{
	if (ex->stream != NULL)
		exwiw_stream_close(ex->stream);
	ex->stream = NULL;
	ex->file_name = NULL;
	if (ex->stream_cxt != NULL)
		MemoryContextDelete(ex->stream_cxt);
	ex->stream_cxt = NULL;
}

/*
 * subset_export_prepare
 *		Check, plan and prepare an export of a's arguments (exwiw_export's,
 *		or the directory sink's): the config checked in full (safe mode
 *		unless allow_undecided), the plan built and narrowed to a's files,
 *		and its run prepared (run/executor.c), kept in cxt.  *planp is the
 *		plan.
 */
SubsetRun *
subset_export_prepare(const SubsetArgs *a, MemoryContext cxt,
					  SubsetPlan **planp)
{
	SubsetPlan *plan = subset_plan_from_args(a, true);

	if (a->deletes && a->format == EXWIW_FORMAT_JSONL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("deletes => true needs format \"insert\" or \"copy\""),
				 errdetail("Delete files are SQL; a JSON Lines export has none, as with the Ruby client.")));
	if (a->deletes && a->parts > 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("deletes => true cannot be combined with parts"),
				 errhint("Write the delete files in a call without part and parts.")));
	if (a->deletes)
		subset_delete_check(plan);
	*planp = plan;
	return subset_run_prepare(a->fn, plan, cxt);
}

/*
 * subset_export_begin
 *		Start exwiw_export for a's arguments: the export prepared, in cxt,
 *		which must live until subset_export_end.  Nothing is read yet.
 */
SubsetExport *
subset_export_begin(const SubsetArgs *a, MemoryContext cxt)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	SubsetExport *ex = palloc0(sizeof(SubsetExport));

	ex->cxt = cxt;
	ex->format = a->format;
	ex->deletes = a->deletes;
	ex->part.part = a->part;
	ex->part.parts = a->parts;
	ex->split_rows = a->split_rows;
	ex->run = subset_export_prepare(a, cxt, &ex->plan);
	ex->dnext = ex->plan->nfiles - 1;
	MemoryContextSwitchTo(old);
	return ex;
}

/*
 * subset_export_next
 *		The next chunk of the export: *file_name (the file it belongs to)
 *		and *chunk, both in the open stream's memory, valid until the next
 *		call.  Returns false when every file has been streamed.
 */
bool
subset_export_next(SubsetExport *ex, text **file_name, text **chunk)
{
	for (;;)
	{
		CHECK_FOR_INTERRUPTS();

		if (ex->stream == NULL && !open_next_stream(ex, ex->cxt))
			return false;

		*chunk = exwiw_stream_next(ex->stream);
		if (*chunk != NULL)
		{
			if (ex->split_rows > 0 && !ex->deleting &&
				exwiw_stream_piece(ex->stream) != ex->piece)
			{
				/* a new piece: its own file name, in the stream's memory */
				MemoryContext old = MemoryContextSwitchTo(ex->stream_cxt);

				ex->piece = exwiw_stream_piece(ex->stream);
				ex->file_name = cstring_to_text(exwiw_part_file_name(ex->plan->files[ex->cur].file_name,
																	 ex->piece));
				MemoryContextSwitchTo(old);
			}
			*file_name = ex->file_name;
			return true;
		}
		/* this table is done (or had no rows): go on with the next one */
		close_stream(ex);
	}
}

/*
 * subset_export_end
 *		Close the open stream, if any, and release the run's row sets and
 *		locks' bookkeeping: after the last chunk, or when the consumer stops
 *		early (the SRF's ExprContext callback).  May be called twice.
 */
void
subset_export_end(SubsetExport *ex)
{
	if (ex->stream != NULL)
		exwiw_stream_close(ex->stream);
	ex->stream = NULL;
	if (ex->run != NULL)
		subset_run_release(ex->run);
	ex->run = NULL;
}
