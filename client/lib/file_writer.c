/*-------------------------------------------------------------------------
 *
 * file_writer.c
 *	  Compression of the files the client writes (-Z/--compress): a gzip
 *	  member or a zstd frame per file, streamed, in bounded memory.
 *
 * As pg_dump's compress_io.h, one small interface over the methods:
 * compressor_begin() for a file, compressor_write() for its bytes as they
 * come, compressor_end() at its close; each hands its output to the
 * caller's write function, so that the file's own writing (its buffer, its
 * short writes, its errors) stays in stream.c.  gzip goes through zlib's
 * deflate with the gzip wrapper (windowBits 15 + 16), zstd through
 * ZSTD_compressStream2 with an output buffer of ZSTD_CStreamOutSize().
 * The files keep their names with ".gz" or ".zst" added, which exwiw load
 * (file_reader.c) reads back, as gunzip and zstd -d would: the parts of a
 * file written by several connections are joined by concatenation, which
 * both formats allow (members, frames).
 *
 *-------------------------------------------------------------------------
 */
#include "cli.h"

#include <zlib.h>
#include <zstd.h>

#define GZIP_OUT_SIZE	(64 * 1024)

struct FileCompressor
{
	int			method;			/* COMPRESS_GZIP or COMPRESS_ZSTD */
	z_stream	zs;
	ZSTD_CCtx  *cctx;
	char	   *out;
	size_t		outcap;
};

/*
 * compress_parse
 *		-Z's value, as pg_dump reads it: "gzip", "zstd", "none", a method
 *		with ":LEVEL" ("zstd:9"), or a level alone (0: none, 1-9: gzip).
 *		Sets *method and *level (0: the method's default); false, with
 *		*error set, when the value is not one of these.
 */
bool
compress_parse(const char *value, int *method, int *level, char **error)
{
	const char *colon = strchr(value, ':');
	char	   *name = colon ? pnstrdup(value, colon - value) : pg_strdup(value);
	char	   *end;
	long		l = 0;

	*error = NULL;
	*level = 0;
	if (strspn(value, "0123456789") == strlen(value) && value[0] != '\0')
	{
		l = strtol(value, &end, 10);
		if (l > 9)
		{
			*error = psprintf("invalid compression level \"%s\": a level alone is gzip's, 0 to 9", value);
			return false;
		}
		*method = l == 0 ? COMPRESS_NONE : COMPRESS_GZIP;
		*level = (int) l;
		return true;
	}
	if (strcmp(name, "none") == 0)
		*method = COMPRESS_NONE;
	else if (strcmp(name, "gzip") == 0)
		*method = COMPRESS_GZIP;
	else if (strcmp(name, "zstd") == 0)
		*method = COMPRESS_ZSTD;
	else
	{
		*error = psprintf("invalid compression method \"%s\"; use gzip, zstd or none, with an optional :LEVEL", name);
		return false;
	}
	if (colon)
	{
		l = strtol(colon + 1, &end, 10);
		if (colon[1] == '\0' || *end != '\0' || *method == COMPRESS_NONE ||
			(*method == COMPRESS_GZIP && (l < 1 || l > 9)) ||
			(*method == COMPRESS_ZSTD && (l < 1 || l > ZSTD_maxCLevel())))
		{
			*error = psprintf("invalid compression level in \"%s\": gzip takes 1 to 9, zstd 1 to %d, none none",
							  value, ZSTD_maxCLevel());
			return false;
		}
		*level = (int) l;
	}
	return true;
}

/*
 * compress_suffix
 *		The name suffix of a method's files: ".gz", ".zst", or "".
 */
const char *
compress_suffix(int method)
{
	return method == COMPRESS_GZIP ? ".gz" : method == COMPRESS_ZSTD ? ".zst" : "";
}

/*
 * compressor_begin
 *		A compressor for one file (method not COMPRESS_NONE), at level (0:
 *		the method's default).
 */
FileCompressor *
compressor_begin(int method, int level)
{
	FileCompressor *c = pg_malloc0(sizeof(FileCompressor));

	Assert(method != COMPRESS_NONE);
	c->method = method;
	if (method == COMPRESS_GZIP)
	{
		if (deflateInit2(&c->zs, level > 0 ? level : Z_DEFAULT_COMPRESSION, Z_DEFLATED,
						 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
			pg_fatal("could not initialize gzip compression: %s", c->zs.msg ? c->zs.msg : "out of memory");
		c->outcap = GZIP_OUT_SIZE;
	}
	else
	{
		c->cctx = ZSTD_createCCtx();
		if (c->cctx == NULL)
			pg_fatal("could not initialize zstd compression: out of memory");
		if (level > 0)
			(void) ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_compressionLevel, level);
		c->outcap = ZSTD_CStreamOutSize();
	}
	c->out = pg_malloc(c->outcap);
	return c;
}

/*
 * run
 *		Compress len bytes of data (flushing the end of the file when
 *		finish), handing every full or final output buffer to out.
 */
static void
run(FileCompressor *c, const char *data, size_t len, bool finish,
	CompressorOut out, void *arg)
{
	if (c->method == COMPRESS_GZIP)
	{
		int			rc;

		c->zs.next_in = (Bytef *) unconstify(char *, data);
		c->zs.avail_in = (uInt) len;
		do
		{
			c->zs.next_out = (Bytef *) c->out;
			c->zs.avail_out = (uInt) c->outcap;
			rc = deflate(&c->zs, finish ? Z_FINISH : Z_NO_FLUSH);
			if (rc == Z_STREAM_ERROR)
				pg_fatal("could not compress data (gzip)");
			if (c->outcap - c->zs.avail_out > 0)
				out(arg, c->out, c->outcap - c->zs.avail_out);
		} while (c->zs.avail_out == 0 || (finish && rc != Z_STREAM_END));
	}
	else
	{
		ZSTD_inBuffer in = {data, len, 0};
		size_t		rc;

		do
		{
			ZSTD_outBuffer o = {c->out, c->outcap, 0};

			rc = ZSTD_compressStream2(c->cctx, &o, &in, finish ? ZSTD_e_end : ZSTD_e_continue);
			if (ZSTD_isError(rc))
				pg_fatal("could not compress data (zstd): %s", ZSTD_getErrorName(rc));
			if (o.pos > 0)
				out(arg, c->out, o.pos);
		} while (in.pos < in.size || (finish && rc != 0));
	}
}

/*
 * compressor_write
 *		Compress len bytes of the file, handing output to out as it fills.
 */
void
compressor_write(FileCompressor *c, const char *data, size_t len,
				 CompressorOut out, void *arg)
{
	if (len > 0)
		run(c, data, len, false, out, arg);
}

/*
 * compressor_end
 *		End the file's member or frame, hand out the rest, free c.
 */
void
compressor_end(FileCompressor *c, CompressorOut out, void *arg)
{
	run(c, NULL, 0, true, out, arg);
	if (c->method == COMPRESS_GZIP)
		deflateEnd(&c->zs);
	else
		ZSTD_freeCCtx(c->cctx);
	pg_free(c->out);
	pg_free(c);
}
