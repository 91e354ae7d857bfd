/*-------------------------------------------------------------------------
 *
 * sink.h
 *	  Server-side file sinks: writers of files on the server, on top of the
 *	  stream engine of exwiw.h.
 *
 *	file_sink.c		an atomic output (a file, or a directory of files):
 *					privileges and path rules, temporary names, write,
 *					fsync, rename into place, removal on error or cancel
 *	compress.c		the compression method's parsing, and the compressor
 *					called through its algorithm's handle (compress_io.h:
 *					compress_gzip.c, compress_zstd.c)
 *	sink/write.c	the engine: a stream drained into one file, or the
 *					files of a subset export into a directory
 *	sink/funcs.c	the SQL functions, thin: exwiw_dump_to_file,
 *					exwiw_dump_jsonl_to_file, exwiw_export_to_dir,
 *					exwiw_remove_export
 *
 *-------------------------------------------------------------------------
 */
#ifndef EXWIW_SINK_H
#define EXWIW_SINK_H

#include "exwiw.h"

#include "utils/tuplestore.h"

/* compress.c */
typedef enum ExwiwCompressMethod
{
	EXWIW_COMPRESS_NONE,
	EXWIW_COMPRESS_GZIP,
	EXWIW_COMPRESS_ZSTD
} ExwiwCompressMethod;

typedef struct ExwiwCompressSpec
{
	ExwiwCompressMethod method;
	int			level;
} ExwiwCompressSpec;

typedef struct ExwiwCompressor ExwiwCompressor;

/* Where a compressor's output goes. */
typedef void (*ExwiwWriteFn) (void *arg, const char *data, size_t len);

extern void exwiw_parse_compress(const char *value, ExwiwCompressSpec *spec);
extern const char *exwiw_compress_suffix(const ExwiwCompressSpec *spec);
extern ExwiwCompressor *exwiw_compressor_create(const ExwiwCompressSpec *spec,
												ExwiwWriteFn write, void *arg);
extern void exwiw_compressor_write(ExwiwCompressor *c, const char *data,
								   size_t len);
extern void exwiw_compressor_finish(ExwiwCompressor *c);

/* file_sink.c */
typedef struct ExwiwOutput ExwiwOutput;

extern void exwiw_sink_check_privilege(const char *funcname);
extern char *exwiw_sink_check_path(const char *path, const char *argname);
extern ExwiwOutput *exwiw_output_begin(const char *path, bool is_dir,
									   bool overwrite);
extern void exwiw_output_open(ExwiwOutput *out, const char *name);
extern void exwiw_output_write(ExwiwOutput *out, const char *data, size_t len);
extern uint64 exwiw_output_close(ExwiwOutput *out);
extern void exwiw_output_commit(ExwiwOutput *out);
extern const char *exwiw_output_file_path(ExwiwOutput *out);
extern int	exwiw_remove_export_dir(const char *path);

/* sink/write.c: the sinks' engine, for sink/funcs.c */
typedef struct ExwiwSinkResult
{
	char	   *file_name;		/* the path written */
	uint64		rows;
	uint64		bytes;
} ExwiwSinkResult;

struct SubsetArgs;
extern void exwiw_sink_write_file(const char *fn, const ExwiwCompressSpec *spec,
								  const char *path, bool overwrite,
								  const ExwiwQuery *q, ExwiwWriter *writer,
								  ExwiwSinkResult *res);
extern void exwiw_sink_export_dir(const struct SubsetArgs *a,
								  const ExwiwCompressSpec *spec,
								  const char *dir, bool overwrite,
								  Tuplestorestate *ts, TupleDesc desc);

#endif							/* EXWIW_SINK_H */
