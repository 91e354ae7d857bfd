/*-------------------------------------------------------------------------
 *
 * compress.c
 *	  Streaming compression for the file sinks: gzip (zlib's deflate with
 *	  the gzip wrapper) and, when the server was built with it, zstd.
 *
 * A compressor takes the output bytes in pieces of any size and hands its
 * compressed bytes to a write callback, a buffer at a time, so it holds at
 * most one input piece and one output buffer whatever the size of the file.
 * The files it writes are plain .gz and .zst files: gunzip (zstd -d) turns
 * them into exactly the bytes that were written.
 *
 * The method is chosen as pg_dump chooses it: "none", "gzip", "zstd",
 * optionally with a level after a colon ("gzip:1", "zstd:19").  gzip uses
 * the zlib the server already links; zstd is there when the server's
 * pg_config.h defines USE_ZSTD (configure --with-zstd).
 *
 * Memory: zlib allocates through palloc in the compressor's memory
 * context; libzstd allocates with malloc, and a reset callback on that
 * context frees its state, so an error in the middle of a file leaks
 * nothing either way.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"

#include "sink.h"

#include "utils/memutils.h"

#ifdef HAVE_LIBZ
#include <zlib.h>
#endif
#ifdef USE_ZSTD
#include <zstd.h>
#endif

/* Bytes of compressed output buffered before the write callback is called. */
#define COMPRESS_OUT_BYTES	(256 * 1024)

struct ExwiwCompressor
{
	ExwiwCompressSpec spec;
	ExwiwWriteFn write;
	void	   *arg;
	MemoryContext cxt;
	char	   *out;			/* output buffer, COMPRESS_OUT_BYTES */
#ifdef HAVE_LIBZ
	z_stream	zs;
	bool		zs_open;
#endif
#ifdef USE_ZSTD
	ZSTD_CCtx  *zc;
#endif
};

/*
 * method_available
 *		Whether this build can write method.
 */
static bool
method_available(ExwiwCompressMethod method)
{
	switch (method)
	{
		case EXWIW_COMPRESS_NONE:
			return true;
		case EXWIW_COMPRESS_GZIP:
#ifdef HAVE_LIBZ
			return true;
#else
			return false;
#endif
		case EXWIW_COMPRESS_ZSTD:
#ifdef USE_ZSTD
			return true;
#else
			return false;
#endif
	}
	return false;
}

/*
 * exwiw_parse_compress
 *		Parse a compress argument ("none", "gzip", "gzip:N", "zstd",
 *		"zstd:N"; case-insensitive) into spec, or error out.
 */
void
exwiw_parse_compress(const char *value, ExwiwCompressSpec *spec)
{
	const char *colon = strchr(value, ':');
	size_t		namelen = colon ? (size_t) (colon - value) : strlen(value);
	int			lo = 0,
				hi = 0;

	memset(spec, 0, sizeof(*spec));
	if (namelen == 4 && pg_strncasecmp(value, "none", 4) == 0)
		spec->method = EXWIW_COMPRESS_NONE;
	else if (namelen == 4 && pg_strncasecmp(value, "gzip", 4) == 0)
	{
		spec->method = EXWIW_COMPRESS_GZIP;
		spec->level = 6;		/* gzip's own default */
		lo = 1;
		hi = 9;
	}
	else if (namelen == 4 && pg_strncasecmp(value, "zstd", 4) == 0)
	{
		spec->method = EXWIW_COMPRESS_ZSTD;
		spec->level = 3;		/* zstd's own default */
		lo = 1;
		hi = 19;
	}
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown compression method \"%s\"", value),
				 errhint("Valid values are \"none\", \"gzip\" and \"zstd\", optionally with a level after a colon, as in \"gzip:1\".")));

	if (!method_available(spec->method))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("compression method \"%.*s\" is not supported by this build",
						(int) namelen, value),
				 errdetail("The server was built without %s.",
						   spec->method == EXWIW_COMPRESS_ZSTD ? "zstd" : "zlib"),
				 errhint("Use \"gzip\" or \"none\".")));

	if (colon != NULL)
	{
		char	   *end;
		long		level;

		errno = 0;
		level = strtol(colon + 1, &end, 10);
		if (spec->method == EXWIW_COMPRESS_NONE || colon[1] == '\0' ||
			*end != '\0' || errno != 0 || level < lo || level > hi)
		{
			if (spec->method == EXWIW_COMPRESS_NONE)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("compression method \"none\" takes no level")));
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid compression level in \"%s\"", value),
					 errhint("The level of \"%.*s\" is an integer from %d to %d.",
							 (int) namelen, value, lo, hi)));
		}
		spec->level = (int) level;
	}
}

/*
 * exwiw_compress_suffix
 *		The file name suffix of a method: ".gz", ".zst" or "".
 */
const char *
exwiw_compress_suffix(const ExwiwCompressSpec *spec)
{
	switch (spec->method)
	{
		case EXWIW_COMPRESS_GZIP:
			return ".gz";
		case EXWIW_COMPRESS_ZSTD:
			return ".zst";
		default:
			return "";
	}
}

#ifdef HAVE_LIBZ
/*
 * zlib_alloc, zlib_free
 *		zlib's allocator: palloc in the compressor's context.
 */
static voidpf
zlib_alloc(voidpf opaque, uInt items, uInt size)
{
	return MemoryContextAllocExtended((MemoryContext) opaque,
									  (Size) items * size, MCXT_ALLOC_NO_OOM);
}

static void
zlib_free(voidpf opaque, voidpf address)
{
	pfree(address);
}

/*
 * gzip_step
 *		Run deflate over the pending input with flush, writing every full
 *		output buffer; with Z_FINISH, until the stream has ended.
 */
static void
gzip_step(ExwiwCompressor *c, int flush)
{
	for (;;)
	{
		int			rc;

		c->zs.next_out = (Bytef *) c->out;
		c->zs.avail_out = COMPRESS_OUT_BYTES;
		rc = deflate(&c->zs, flush);
		if (rc == Z_STREAM_ERROR)
			elog(ERROR, "zlib deflate failed: %s", c->zs.msg ? c->zs.msg : "stream error");
		if (c->zs.avail_out < COMPRESS_OUT_BYTES)
			c->write(c->arg, c->out, COMPRESS_OUT_BYTES - c->zs.avail_out);
		if (flush == Z_FINISH ? rc == Z_STREAM_END :
			(c->zs.avail_in == 0 && c->zs.avail_out > 0))
			break;
	}
}
#endif

#ifdef USE_ZSTD
/*
 * zstd_check
 *		Error out on a libzstd error code.
 */
static void
zstd_check(size_t rc)
{
	if (ZSTD_isError(rc))
		elog(ERROR, "zstd compression failed: %s", ZSTD_getErrorName(rc));
}

/*
 * zstd_step
 *		Compress the input with mode (continue or end), writing every
 *		output buffer.
 */
static void
zstd_step(ExwiwCompressor *c, const char *data, size_t len,
		  ZSTD_EndDirective mode)
{
	ZSTD_inBuffer in = {data, len, 0};

	for (;;)
	{
		ZSTD_outBuffer out = {c->out, COMPRESS_OUT_BYTES, 0};
		size_t		remaining = ZSTD_compressStream2(c->zc, &out, &in, mode);

		zstd_check(remaining);
		if (out.pos > 0)
			c->write(c->arg, c->out, out.pos);
		if (mode == ZSTD_e_end ? remaining == 0 : in.pos == in.size)
			break;
	}
}

/*
 * zstd_release
 *		Memory-context callback: free libzstd's (malloc'd) state.
 */
static void
zstd_release(void *arg)
{
	ExwiwCompressor *c = (ExwiwCompressor *) arg;

	if (c->zc != NULL)
		ZSTD_freeCCtx(c->zc);
	c->zc = NULL;
}
#endif

/*
 * exwiw_compressor_create
 *		A compressor for spec (not "none") whose output goes to write(arg,
 *		...), with its state in a new child of the current memory context.
 */
ExwiwCompressor *
exwiw_compressor_create(const ExwiwCompressSpec *spec, ExwiwWriteFn write,
						void *arg)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "exwiw compressor",
											  ALLOCSET_DEFAULT_SIZES);
	ExwiwCompressor *c = MemoryContextAllocZero(cxt, sizeof(ExwiwCompressor));

	c->spec = *spec;
	c->write = write;
	c->arg = arg;
	c->cxt = cxt;
	c->out = MemoryContextAlloc(cxt, COMPRESS_OUT_BYTES);

	switch (spec->method)
	{
#ifdef HAVE_LIBZ
		case EXWIW_COMPRESS_GZIP:
			c->zs.zalloc = zlib_alloc;
			c->zs.zfree = zlib_free;
			c->zs.opaque = (voidpf) cxt;
			/* 15 + 16: the largest window, with the gzip header and trailer */
			if (deflateInit2(&c->zs, spec->level, Z_DEFLATED, 15 + 16, 8,
							 Z_DEFAULT_STRATEGY) != Z_OK)
				ereport(ERROR,
						(errcode(ERRCODE_OUT_OF_MEMORY),
						 errmsg("could not initialize gzip compression: %s",
								c->zs.msg ? c->zs.msg : "out of memory")));
			c->zs_open = true;
			break;
#endif
#ifdef USE_ZSTD
		case EXWIW_COMPRESS_ZSTD:
			{
				MemoryContextCallback *cb = MemoryContextAllocZero(cxt, sizeof(MemoryContextCallback));

				c->zc = ZSTD_createCCtx();
				if (c->zc == NULL)
					ereport(ERROR,
							(errcode(ERRCODE_OUT_OF_MEMORY),
							 errmsg("could not initialize zstd compression")));
				cb->func = zstd_release;
				cb->arg = c;
				MemoryContextRegisterResetCallback(cxt, cb);
				zstd_check(ZSTD_CCtx_setParameter(c->zc, ZSTD_c_compressionLevel,
												  spec->level));
				zstd_check(ZSTD_CCtx_setParameter(c->zc, ZSTD_c_checksumFlag, 1));
				break;
			}
#endif
		default:
			elog(ERROR, "unsupported compression method %d", (int) spec->method);
	}
	return c;
}

/*
 * exwiw_compressor_write
 *		Compress len bytes of data.
 */
void
exwiw_compressor_write(ExwiwCompressor *c, const char *data, size_t len)
{
	if (len == 0)
		return;
	switch (c->spec.method)
	{
#ifdef HAVE_LIBZ
		case EXWIW_COMPRESS_GZIP:
			while (len > 0)
			{
				/* avail_in is a uInt: feed very large pieces in parts */
				uInt		part = (uInt) Min(len, (size_t) 1 << 30);

				c->zs.next_in = (Bytef *) data;
				c->zs.avail_in = part;
				gzip_step(c, Z_NO_FLUSH);
				data += part;
				len -= part;
			}
			break;
#endif
#ifdef USE_ZSTD
		case EXWIW_COMPRESS_ZSTD:
			zstd_step(c, data, len, ZSTD_e_continue);
			break;
#endif
		default:
			elog(ERROR, "unsupported compression method %d", (int) c->spec.method);
	}
}

/*
 * exwiw_compressor_finish
 *		Write what ends the compressed stream (the gzip trailer, the last
 *		zstd frame) and free the compressor.
 */
void
exwiw_compressor_finish(ExwiwCompressor *c)
{
	switch (c->spec.method)
	{
#ifdef HAVE_LIBZ
		case EXWIW_COMPRESS_GZIP:
			c->zs.next_in = NULL;
			c->zs.avail_in = 0;
			gzip_step(c, Z_FINISH);
			deflateEnd(&c->zs);
			c->zs_open = false;
			break;
#endif
#ifdef USE_ZSTD
		case EXWIW_COMPRESS_ZSTD:
			zstd_step(c, NULL, 0, ZSTD_e_end);
			break;
#endif
		default:
			elog(ERROR, "unsupported compression method %d", (int) c->spec.method);
	}
	MemoryContextDelete(c->cxt);
}
