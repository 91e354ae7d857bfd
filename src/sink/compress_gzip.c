/*-------------------------------------------------------------------------
 *
 * compress_gzip.c
 *	  gzip for the file sinks: zlib's deflate with the gzip wrapper, the
 *	  zlib the server already links (HAVE_LIBZ).
 *
 * zlib allocates through palloc in the compressor's memory context, so an
 * error in the middle of a file leaks nothing.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"

#include "sink/compress_io.h"

#ifdef HAVE_LIBZ
#include <zlib.h>

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
	z_stream   *zs = (z_stream *) c->private_data;

	for (;;)
	{
		int			rc;

		zs->next_out = (Bytef *) c->out;
		zs->avail_out = COMPRESS_OUT_BYTES;
		rc = deflate(zs, flush);
		if (rc == Z_STREAM_ERROR)
			elog(ERROR, "zlib deflate failed: %s", zs->msg ? zs->msg : "stream error");
		if (zs->avail_out < COMPRESS_OUT_BYTES)
			c->write(c->arg, c->out, COMPRESS_OUT_BYTES - zs->avail_out);
		if (flush == Z_FINISH ? rc == Z_STREAM_END :
			(zs->avail_in == 0 && zs->avail_out > 0))
			break;
	}
}

/*
 * gzip_compress
 *		Deflate len bytes, in parts of at most 1 GB (avail_in is a uInt).
 */
static void
gzip_compress(ExwiwCompressor *c, const char *data, size_t len)
{
	z_stream   *zs = (z_stream *) c->private_data;

	while (len > 0)
	{
		uInt		part = (uInt) Min(len, (size_t) 1 << 30);

		zs->next_in = (Bytef *) data;
		zs->avail_in = part;
		gzip_step(c, Z_NO_FLUSH);
		data += part;
		len -= part;
	}
}

/*
 * gzip_end
 *		Write the rest and the gzip trailer.
 */
static void
gzip_end(ExwiwCompressor *c)
{
	z_stream   *zs = (z_stream *) c->private_data;

	zs->next_in = NULL;
	zs->avail_in = 0;
	gzip_step(c, Z_FINISH);
	deflateEnd(zs);
}

/*
 * gzip_init
 *		Start a deflate stream at level, with the gzip header and trailer.
 */
static void
gzip_init(ExwiwCompressor *c, int level)
{
	z_stream   *zs = MemoryContextAllocZero(c->cxt, sizeof(z_stream));

	zs->zalloc = zlib_alloc;
	zs->zfree = zlib_free;
	zs->opaque = (voidpf) c->cxt;
	/* 15 + 16: the largest window, with the gzip header and trailer */
	if (deflateInit2(zs, level, Z_DEFLATED, 15 + 16, 8,
					 Z_DEFAULT_STRATEGY) != Z_OK)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("could not initialize gzip compression: %s",
						zs->msg ? zs->msg : "out of memory")));
	c->private_data = zs;
	c->compress = gzip_compress;
	c->end = gzip_end;
}
#define GZIP_INIT gzip_init
#else
#define GZIP_INIT NULL
#endif

const ExwiwCompressAlgorithm exwiw_compress_gzip = {
	.method = EXWIW_COMPRESS_GZIP,
	.name = "gzip",
	.suffix = ".gz",
	.default_level = 6,			/* gzip's own default */
	.min_level = 1,
	.max_level = 9,
	.library = "zlib",
	.init = GZIP_INIT,
};
