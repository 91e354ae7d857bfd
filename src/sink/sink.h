/*-------------------------------------------------------------------------
 *
 * sink.h
 *	  Server-side file sinks: writers of files on the server, on top of the
 *	  stream engine of exwiw.h.
 *
 *	file_sink.c		an atomic output (a file, or a directory of files):
 *					privileges and path rules, temporary names, write,
 *					fsync, rename into place, removal on error or cancel
 *	compress.c		streaming gzip (zlib) and zstd compression
 *	sink_funcs.c			the SQL functions that drain a stream into files:
 *					exwiw_dump_to_file, exwiw_dump_jsonl_to_file,
 *					exwiw_export_to_dir, exwiw_remove_export
 *	copy_lines.c	exwiw_copy_lines(): a COPY-format dump as one file line
 *					per row, for \copy ... WITH (FORMAT csv, ...)
 *
 *-------------------------------------------------------------------------
 */
#ifndef EXWIW_SINK_H
#define EXWIW_SINK_H

#include "exwiw.h"

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

/*
 * subset_export.c: the directory sink writes the files exwiw_export
 * streams, through the same planning and the same writers.
 */
struct SubsetPlan;
struct SubsetRun;
extern struct SubsetRun *subset_export_prepare(const char *funcname,
											   FunctionCallInfo fcinfo,
											   int argoff,
											   int ids_by_space_arg,
											   int allow_missing_arg,
											   int deletes_arg, int parts,
											   MemoryContext cxt,
											   ExwiwSqlFormat *format,
											   bool *deletes,
											   struct SubsetPlan **plan);
extern ExwiwStream *subset_export_open_file(struct SubsetPlan *plan,
											struct SubsetRun *run, int file,
											ExwiwSqlFormat format,
											bool server_file,
											int part, int parts,
											MemoryContext cxt);

/* subset_delete.c: a file's delete file, for both */
extern ExwiwStream *subset_delete_open_file(struct SubsetPlan *plan,
											struct SubsetRun *run, int file,
											bool server_file,
											MemoryContext cxt,
											const uint64 **statements);

#endif							/* EXWIW_SINK_H */
