/*-------------------------------------------------------------------------
 *
 * compress.c
 *	  Streaming compression for the file sinks: the method's parsing, and
 *	  the compressor, which calls its algorithm's methods (compress_io.h;
 *	  gzip in compress_gzip.c, zstd in compress_zstd.c).
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
 * Memory: everything a compressor holds is in its own memory context,
 * deleted when it finishes or with its parent on error (an algorithm
 * whose library allocates with malloc frees it from a reset callback).
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"

#include "sink/compress_io.h"

#include "utils/memutils.h"

static const ExwiwCompressAlgorithm compress_none = {
	.method = EXWIW_COMPRESS_NONE,
	.name = "none",
	.suffix = "",
};

/* The algorithms, indexed by ExwiwCompressMethod. */
static const ExwiwCompressAlgorithm *const algorithms[] = {
	[EXWIW_COMPRESS_NONE] = &compress_none,
	[EXWIW_COMPRESS_GZIP] = &exwiw_compress_gzip,
	[EXWIW_COMPRESS_ZSTD] = &exwiw_compress_zstd,
};

/*
 * algorithm_of
 *		The algorithm of method.
 */
static const ExwiwCompressAlgorithm *
algorithm_of(ExwiwCompressMethod method)
{
	if ((int) method < 0 || (int) method >= lengthof(algorithms))
		elog(ERROR, "unsupported compression method %d", (int) method);
	return algorithms[method];
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
	const ExwiwCompressAlgorithm *alg = NULL;
	int			i;

	memset(spec, 0, sizeof(*spec));
	for (i = 0; i < lengthof(algorithms); i++)
		if (strlen(algorithms[i]->name) == namelen &&
			pg_strncasecmp(value, algorithms[i]->name, namelen) == 0)
			alg = algorithms[i];
	if (alg == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown compression method \"%s\"", value),
				 errhint("Valid values are \"none\", \"gzip\" and \"zstd\", optionally with a level after a colon, as in \"gzip:1\".")));
	spec->method = alg->method;
	spec->level = alg->default_level;

	if (alg->method != EXWIW_COMPRESS_NONE && alg->init == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("compression method \"%.*s\" is not supported by this build",
						(int) namelen, value),
				 errdetail("The server was built without %s.", alg->library),
				 errhint("Use \"gzip\" or \"none\".")));

	if (colon != NULL)
	{
		char	   *end;
		long		level;

		if (alg->max_level == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("compression method \"%s\" takes no level", alg->name)));
		errno = 0;
		level = strtol(colon + 1, &end, 10);
		if (colon[1] == '\0' || *end != '\0' || errno != 0 ||
			level < alg->min_level || level > alg->max_level)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid compression level in \"%s\"", value),
					 errhint("The level of \"%.*s\" is an integer from %d to %d.",
							 (int) namelen, value, alg->min_level,
							 alg->max_level)));
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
	return algorithm_of(spec->method)->suffix;
}

/*
 * exwiw_compressor_create
 *		A compressor for spec (not "none") whose output goes to write(arg,
 *		...), with its state in a new child of the current memory context.
 */
ExwiwCompressor *
exwiw_compressor_create(const ExwiwCompressSpec *spec, ExwiwWriteFn write,
						void *arg)
{
	const ExwiwCompressAlgorithm *alg = algorithm_of(spec->method);
	MemoryContext cxt;
	ExwiwCompressor *c;

	if (alg->init == NULL)
		elog(ERROR, "unsupported compression method %d", (int) spec->method);
	cxt = AllocSetContextCreate(CurrentMemoryContext, "exwiw compressor",
								ALLOCSET_DEFAULT_SIZES);
	c = MemoryContextAllocZero(cxt, sizeof(ExwiwCompressor));
	c->write = write;
	c->arg = arg;
	c->cxt = cxt;
	c->out = MemoryContextAlloc(cxt, COMPRESS_OUT_BYTES);
	alg->init(c, spec->level);
	Assert(c->compress != NULL && c->end != NULL);
	return c;
}

/*
 * exwiw_compressor_write
 *		Compress len bytes of data.
 */
void
exwiw_compressor_write(ExwiwCompressor *c, const char *data, size_t len)
{
	if (len > 0)
		c->compress(c, data, len);
}

/*
 * exwiw_compressor_finish
 *		Write what ends the compressed stream (the gzip trailer, the last
 *		zstd frame) and free the compressor.
 */
void
exwiw_compressor_finish(ExwiwCompressor *c)
{
	c->end(c);
	MemoryContextDelete(c->cxt);
}
