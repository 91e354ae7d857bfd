/*-------------------------------------------------------------------------
 *
 * compress_zstd.c
 *	  zstd for the file sinks, when the server was built with it
 *	  (pg_config.h: USE_ZSTD, configure --with-zstd): frames with a
 *	  checksum, as the zstd command writes them.
 *
 * libzstd allocates with malloc: a reset callback on the compressor's
 * memory context frees its state, so an error in the middle of a file
 * leaks nothing.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"

#include "sink/compress_io.h"

#ifdef USE_ZSTD
#include <zstd.h>

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
	ZSTD_CCtx  *zc = (ZSTD_CCtx *) c->private_data;
	ZSTD_inBuffer in = {data, len, 0};

	for (;;)
	{
		ZSTD_outBuffer out = {c->out, COMPRESS_OUT_BYTES, 0};
		size_t		remaining = ZSTD_compressStream2(zc, &out, &in, mode);

		zstd_check(remaining);
		if (out.pos > 0)
			c->write(c->arg, c->out, out.pos);
		if (mode == ZSTD_e_end ? remaining == 0 : in.pos == in.size)
			break;
	}
}

static void
zstd_compress(ExwiwCompressor *c, const char *data, size_t len)
{
	zstd_step(c, data, len, ZSTD_e_continue);
}

static void
zstd_end(ExwiwCompressor *c)
{
	zstd_step(c, NULL, 0, ZSTD_e_end);
}

/*
 * zstd_release
 *		Memory-context callback: free libzstd's (malloc'd) state.
 */
static void
zstd_release(void *arg)
{
	ExwiwCompressor *c = (ExwiwCompressor *) arg;

	if (c->private_data != NULL)
		ZSTD_freeCCtx((ZSTD_CCtx *) c->private_data);
	c->private_data = NULL;
}

/*
 * zstd_init
 *		A compression context at level, freed with the compressor's memory
 *		context.
 */
static void
zstd_init(ExwiwCompressor *c, int level)
{
	MemoryContextCallback *cb = MemoryContextAllocZero(c->cxt, sizeof(MemoryContextCallback));
	ZSTD_CCtx  *zc = ZSTD_createCCtx();

	if (zc == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("could not initialize zstd compression")));
	c->private_data = zc;
	cb->func = zstd_release;
	cb->arg = c;
	MemoryContextRegisterResetCallback(c->cxt, cb);
	zstd_check(ZSTD_CCtx_setParameter(zc, ZSTD_c_compressionLevel, level));
	zstd_check(ZSTD_CCtx_setParameter(zc, ZSTD_c_checksumFlag, 1));
	c->compress = zstd_compress;
	c->end = zstd_end;
}
#define ZSTD_INIT zstd_init
#else
#define ZSTD_INIT NULL
#endif

const ExwiwCompressAlgorithm exwiw_compress_zstd = {
	.method = EXWIW_COMPRESS_ZSTD,
	.name = "zstd",
	.suffix = ".zst",
	.default_level = 3,			/* zstd's own default */
	.min_level = 1,
	.max_level = 19,
	.library = "zstd",
	.init = ZSTD_INIT,
};
