/*-------------------------------------------------------------------------
 *
 * compress_io.h
 *	  The compressor's methods, one set per algorithm, as pg_dump's
 *	  compress_io.h has them: compress.c parses the method, picks its
 *	  algorithm from the table of algorithms, and calls through the
 *	  compressor's function pointers; compress_gzip.c and compress_zstd.c
 *	  each fill them for their library.  No code switches on the method.
 *
 * Internal to the compression files; sink.h is the interface.
 *
 *-------------------------------------------------------------------------
 */
#ifndef EXWIW_COMPRESS_IO_H
#define EXWIW_COMPRESS_IO_H

#include "sink/sink.h"

/* Bytes of compressed output buffered before the write callback is called. */
#define COMPRESS_OUT_BYTES	(256 * 1024)

/* A compressor: where its output goes, and its algorithm's methods. */
struct ExwiwCompressor
{
	ExwiwWriteFn write;
	void	   *arg;
	MemoryContext cxt;			/* holds everything below; deleted at the end */
	char	   *out;			/* output buffer, COMPRESS_OUT_BYTES */

	/* compress len (> 0) bytes of data */
	void		(*compress) (ExwiwCompressor *c, const char *data, size_t len);
	/* write what ends the stream; the context is deleted after */
	void		(*end) (ExwiwCompressor *c);
	void	   *private_data;	/* the algorithm's state */
};

/* An algorithm: its name, file suffix, levels, and how to start it. */
typedef struct ExwiwCompressAlgorithm
{
	ExwiwCompressMethod method;
	const char *name;			/* as the compress argument spells it */
	const char *suffix;			/* ".gz"; "" for none */
	int			default_level;
	int			min_level;		/* 0 and 0: takes no level */
	int			max_level;
	const char *library;		/* what a build without it lacks */

	/*
	 * Set c's methods and state for level, in c->cxt; NULL when this build
	 * has not the library (and for none, which has no compressor).
	 */
	void		(*init) (ExwiwCompressor *c, int level);
} ExwiwCompressAlgorithm;

/* compress_gzip.c, compress_zstd.c */
extern const ExwiwCompressAlgorithm exwiw_compress_gzip;
extern const ExwiwCompressAlgorithm exwiw_compress_zstd;

#endif							/* EXWIW_COMPRESS_IO_H */
