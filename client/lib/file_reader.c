/*-------------------------------------------------------------------------
 *
 * file_reader.c
 *	  The bytes of an export's file for exwiw load: plain, or compressed
 *	  as the server's sinks write it (".gz", ".zst").
 *
 * The server-side sinks (exwiw_export_to_dir(..., compress => 'gzip' |
 * 'zstd')) name a file "insert-NNN-<table>.sql.gz" or ".sql.zst": a
 * standard gzip member or zstd frame.  The reader decompresses as it goes,
 * by the name's suffix (as pg_dump's compress_io.c chooses by the file's),
 * in bounded memory: a gzip stream through zlib's gzFile, a zstd frame
 * through ZSTD_decompressStream with an input buffer of ZSTD_DStreamInSize.
 * Concatenated gzip members and zstd frames are read on, as gunzip and
 * zstd -d read them.  reader_position() is how far into the file on disk
 * the reader is, for a progress weighted by the files' sizes.
 *
 *-------------------------------------------------------------------------
 */
#include "cli.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

typedef enum ReaderKind
{
	READER_PLAIN,
	READER_GZIP,
	READER_ZSTD
} ReaderKind;

struct FileReader
{
	ReaderKind	kind;
	int			fd;
	gzFile		gz;
	ZSTD_DStream *zds;
	ZSTD_inBuffer in;			/* the compressed bytes read, not yet used */
	char	   *inbuf;
	size_t		incap;
	bool		in_eof;
	bool		frame_open;		/* a zstd frame was begun and not ended */
	off_t		position;		/* bytes of the file on disk read so far */
	char	   *error;			/* why the last read failed */
};

/*
 * reader_kind_of
 *		The compression a file's name says: ".gz", ".zst", or none.
 */
static ReaderKind
reader_kind_of(const char *path)
{
	size_t		n = strlen(path);

	if (n > 3 && strcmp(path + n - 3, ".gz") == 0)
		return READER_GZIP;
	if (n > 4 && strcmp(path + n - 4, ".zst") == 0)
		return READER_ZSTD;
	return READER_PLAIN;
}

/*
 * reader_compressed_suffix
 *		The length of name's ".gz" or ".zst" suffix, or 0.
 */
size_t
reader_compressed_suffix(const char *name)
{
	switch (reader_kind_of(name))
	{
		case READER_GZIP:
			return 3;
		case READER_ZSTD:
			return 4;
		default:
			return 0;
	}
}

/*
 * reader_open
 *		A reader of path; NULL with errno set when it cannot be opened.
 */
FileReader *
reader_open(const char *path)
{
	FileReader *r;
	int			fd = open(path, O_RDONLY | PG_BINARY, 0);

	if (fd < 0)
		return NULL;
	r = pg_malloc0(sizeof(FileReader));
	r->kind = reader_kind_of(path);
	r->fd = fd;
	if (r->kind == READER_GZIP)
	{
		/* gzdopen takes the descriptor: gzclose closes it */
		r->gz = gzdopen(fd, "rb");
		if (r->gz == NULL)
		{
			close(fd);
			pg_free(r);
			errno = ENOMEM;
			return NULL;
		}
		r->fd = -1;
		gzbuffer(r->gz, 128 * 1024);
	}
	else if (r->kind == READER_ZSTD)
	{
		r->zds = ZSTD_createDStream();
		if (r->zds == NULL)
		{
			close(fd);
			pg_free(r);
			errno = ENOMEM;
			return NULL;
		}
		ZSTD_initDStream(r->zds);
		r->incap = ZSTD_DStreamInSize();
		r->inbuf = pg_malloc(r->incap);
		r->in.src = r->inbuf;
	}
	return r;
}

/*
 * read_fd
 *		read(2), again after EINTR.
 */
static ssize_t
read_fd(int fd, void *buf, size_t n)
{
	ssize_t		got;

	do
		got = read(fd, buf, n);
	while (got < 0 && errno == EINTR);
	return got;
}

/*
 * reader_read
 *		Up to n bytes of the file's content into buf: their number, 0 at
 *		its end, -1 with reader_error() set on a read error or a damaged
 *		or cut compressed stream.
 */
ssize_t
reader_read(FileReader *r, char *buf, size_t n)
{
	ssize_t		got;

	pg_free(r->error);
	r->error = NULL;
	switch (r->kind)
	{
		case READER_PLAIN:
			got = read_fd(r->fd, buf, n);
			if (got < 0)
				r->error = psprintf("could not read file: %m");
			else
				r->position += got;
			return got;
		case READER_GZIP:
			{
				int			e;
				const char *msg;

				got = gzread(r->gz, buf, (unsigned) Min(n, (size_t) INT_MAX));
				r->position = gzoffset(r->gz);
				if (got >= 0)
					return got;
				msg = gzerror(r->gz, &e);
				r->error = psprintf("could not decompress file (gzip): %s",
									e == Z_ERRNO ? strerror(errno) : msg);
				return -1;
			}
		case READER_ZSTD:
			{
				ZSTD_outBuffer out = {buf, n, 0};

				while (out.pos == 0)
				{
					size_t		ret;

					if (r->in.pos == r->in.size)
					{
						if (r->in_eof)
						{
							if (r->frame_open)
							{
								r->error = pg_strdup("could not decompress file (zstd): the file ends inside a frame");
								return -1;
							}
							return 0;
						}
						got = read_fd(r->fd, r->inbuf, r->incap);
						if (got < 0)
						{
							r->error = psprintf("could not read file: %m");
							return -1;
						}
						r->position += got;
						r->in.size = got;
						r->in.pos = 0;
						if (got == 0)
						{
							r->in_eof = true;
							continue;
						}
					}
					ret = ZSTD_decompressStream(r->zds, &out, &r->in);
					if (ZSTD_isError(ret))
					{
						r->error = psprintf("could not decompress file (zstd): %s",
											ZSTD_getErrorName(ret));
						return -1;
					}
					r->frame_open = (ret != 0);
				}
				return out.pos;
			}
	}
	return -1;					/* can't happen */
}

/*
 * reader_error
 *		Why the last reader_read failed.
 */
const char *
reader_error(const FileReader *r)
{
	return r->error ? r->error : "could not read file";
}

/*
 * reader_position
 *		How many bytes of the file on disk have been read.
 */
off_t
reader_position(const FileReader *r)
{
	return r->position;
}

/*
 * reader_close
 *		Close the file and free the reader.
 */
void
reader_close(FileReader *r)
{
	if (r == NULL)
		return;
	if (r->gz)
		gzclose(r->gz);
	if (r->zds)
		ZSTD_freeDStream(r->zds);
	if (r->fd >= 0)
		close(r->fd);
	pg_free(r->inbuf);
	pg_free(r->error);
	pg_free(r);
}
