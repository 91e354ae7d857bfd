/*-------------------------------------------------------------------------
 *
 * sink/write.c
 *	  The engine of the server-side file sinks (their SQL functions are in
 *	  sink/funcs.c, whose header says what the files hold): a stream
 *	  drained into one file, and the files of a subset export into a
 *	  directory, each through its compressor (compress.c) into an atomic
 *	  output (file_sink.c).
 *
 * Memory: a stream holds at most two chunks; the sink writes each chunk as
 * soon as it is returned and keeps nothing of it, so the backend's memory
 * does not grow with the number of rows.  Each file of a directory is
 * written in its own memory context, deleted after the file.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"

#include "sink/sink.h"
#include "subset/subset.h"

#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

/* One file being written: its output, and the compressor in front of it. */
typedef struct SinkFile
{
	const char *funcname;
	ExwiwOutput *out;
	ExwiwCompressor *comp;		/* NULL: no compression */
	ExwiwCompressSpec spec;
} SinkFile;

/*
 * sink_error_context
 *		Error context of a sink: the function and the file it writes.
 */
static void
sink_error_context(void *arg)
{
	SinkFile   *sf = (SinkFile *) arg;

	if (sf->out != NULL)
		errcontext("%s, writing \"%s\"", sf->funcname,
				   exwiw_output_file_path(sf->out));
}

/*
 * sink_raw_write
 *		Write callback of the compressor: bytes go to the file.
 */
static void
sink_raw_write(void *arg, const char *data, size_t len)
{
	exwiw_output_write((ExwiwOutput *) arg, data, len);
}

/*
 * sink_write
 *		Write bytes of the (uncompressed) output.
 */
static inline void
sink_write(SinkFile *sf, const char *data, size_t len)
{
	if (sf->comp)
		exwiw_compressor_write(sf->comp, data, len);
	else
		exwiw_output_write(sf->out, data, len);
}

/*
 * sink_start_file
 *		Open the next file of sf's output (name NULL for a file output) and
 *		its compressor.
 */
static void
sink_start_file(SinkFile *sf, const char *name)
{
	if (name != NULL)
		exwiw_output_open(sf->out, name);
	if (sf->spec.method != EXWIW_COMPRESS_NONE)
		sf->comp = exwiw_compressor_create(&sf->spec, sink_raw_write, sf->out);
}

/*
 * sink_end_file
 *		Finish the compressed stream, fsync and close the file; returns its
 *		size.
 */
static uint64
sink_end_file(SinkFile *sf)
{
	if (sf->comp)
		exwiw_compressor_finish(sf->comp);
	sf->comp = NULL;
	return exwiw_output_close(sf->out);
}

/*
 * sink_drain
 *		Write every chunk of stream, each followed by "\n".  When name is
 *		given (a directory output), the file is opened at the first chunk,
 *		so that a stream without rows makes no file; returns whether a
 *		file was written.
 */
static bool
sink_drain(SinkFile *sf, ExwiwStream *stream, const char *name)
{
	text	   *chunk;
	bool		opened = (name == NULL);

	while ((chunk = exwiw_stream_next(stream)) != NULL)
	{
		CHECK_FOR_INTERRUPTS();
		if (!opened)
		{
			sink_start_file(sf, name);
			opened = true;
		}
		sink_write(sf, VARDATA_ANY(chunk), VARSIZE_ANY_EXHDR(chunk));
		sink_write(sf, "\n", 1);
	}
	return opened;
}

/*
 * exwiw_sink_write_file
 *		Open a stream on q with writer and drain it into the file at path
 *		(checked by exwiw_sink_check_path), compressed as spec says, in
 *		place when complete; *res is the file written: its path, rows and
 *		bytes.  fn names the SQL function in errors.
 */
void
exwiw_sink_write_file(const char *fn, const ExwiwCompressSpec *spec,
					  const char *path, bool overwrite, const ExwiwQuery *q,
					  ExwiwWriter *writer, ExwiwSinkResult *res)
{
	SinkFile	sfd = {0};
	SinkFile   *sf = &sfd;
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "exwiw sink",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	ErrorContextCallback errcb;
	ExwiwStream *stream;

	sf->funcname = fn;
	sf->spec = *spec;
	errcb.callback = sink_error_context;
	errcb.arg = sf;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;

	/* check the query before anything is created on disk */
	stream = exwiw_stream_open(sf->funcname, q, writer,
							   EXWIW_DEFAULT_CHUNK_BYTES, cxt);
	sf->out = exwiw_output_begin(path, false, overwrite);
	sink_start_file(sf, NULL);
	sink_drain(sf, stream, NULL);
	res->rows = exwiw_stream_rows(stream);
	exwiw_stream_close(stream);
	res->bytes = sink_end_file(sf);
	res->file_name = MemoryContextStrdup(old, exwiw_output_file_path(sf->out));
	exwiw_output_commit(sf->out);
	sf->out = NULL;

	error_context_stack = errcb.previous;
	MemoryContextSwitchTo(old);
}

/*
 * exwiw_sink_export_dir
 *		The files of the export of a's arguments (exwiw_export's files,
 *		byte for byte, but for the encoding line), compressed as spec says,
 *		into a directory at dir (checked by exwiw_sink_check_path) that
 *		appears when it is complete; one (file_name, rows, bytes) row per
 *		file into ts, of desc.
 */
void
exwiw_sink_export_dir(const SubsetArgs *a, const ExwiwCompressSpec *spec,
					  const char *dir, bool overwrite, Tuplestorestate *ts,
					  TupleDesc desc)
{
	SinkFile	sf = {0};
	SubsetPlan *plan;
	SubsetRun  *run;
	MemoryContext cxt;
	MemoryContext old;
	ErrorContextCallback errcb;
	const char *suffix;
	int			i;

	sf.funcname = a->fn;
	sf.spec = *spec;
	cxt = AllocSetContextCreate(CurrentMemoryContext, "exwiw_export_to_dir",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	suffix = exwiw_compress_suffix(&sf.spec);

	/* what exists at dir is checked before the (costly) preparation */
	sf.out = exwiw_output_begin(dir, true, overwrite);
	errcb.callback = sink_error_context;
	errcb.arg = &sf;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;
	run = subset_export_prepare(a, cxt, &plan);

	/* the insert files in load order, then their delete files, last first */
	for (i = 0; i < (a->deletes ? 2 * plan->nfiles : plan->nfiles); i++)
	{
		MemoryContext filecxt;
		ExwiwStream *stream;
		char	   *name;
		uint64		rows;
		const uint64 *statements = NULL;
		bool		deleting = i >= plan->nfiles;
		int			file = deleting ? 2 * plan->nfiles - 1 - i : i;

		CHECK_FOR_INTERRUPTS();
		if (!plan->files[file].has_rows ||
			(deleting && !subset_delete_wanted(plan, file)))
			continue;
		filecxt = AllocSetContextCreate(cxt, "exwiw_export_to_dir file",
										ALLOCSET_DEFAULT_SIZES);
		MemoryContextSwitchTo(filecxt);
		if (deleting)
		{
			name = psprintf("%s%s", plan->files[file].delete_name, suffix);
			stream = subset_delete_open_file(plan, run, file, true, filecxt,
											 &statements);
		}
		else
		{
			name = psprintf("%s%s", a->parts > 0 ?
							exwiw_part_file_name(plan->files[file].file_name, a->part) :
							plan->files[file].file_name, suffix);
			stream = subset_export_open_file(plan, run, file, a->format, true,
											 a->part, a->parts, filecxt);
		}
		if (sink_drain(&sf, stream, name))
		{
			Datum		values[3];
			bool		nulls[3] = {false, false, false};
			uint64		bytes;

			/* a delete file's rows are its statements */
			rows = deleting ? *statements : exwiw_stream_rows(stream);
			exwiw_stream_close(stream);
			bytes = sink_end_file(&sf);
			values[0] = CStringGetTextDatum(name);
			values[1] = Int64GetDatum((int64) rows);
			values[2] = Int64GetDatum((int64) bytes);
			tuplestore_putvalues(ts, desc, values, nulls);
		}
		else
			exwiw_stream_close(stream);
		MemoryContextSwitchTo(cxt);
		MemoryContextDelete(filecxt);
	}
	subset_run_release(run);
	exwiw_output_commit(sf.out);
	sf.out = NULL;

	error_context_stack = errcb.previous;
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
}
