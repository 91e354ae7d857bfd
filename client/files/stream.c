/*-------------------------------------------------------------------------
 *
 * stream.c
 *	  One connection's stream of (file_name, chunk) rows into files, and
 *	  many connections multiplexed in one loop.
 *
 * Each connection runs one exwiw_export() in libpq's single-row mode, so
 * the client holds one chunk (at most 256 kB plus one row) per connection
 * at a time, whatever the size of the export.  A file's bytes are its
 * chunks joined by "\n" plus a final "\n", exactly: every chunk is written
 * followed by one newline.  A chunk is written with one writev() (chunk and
 * newline) when it is large, or gathered into a 128 kB buffer with the
 * next ones when it is small: never a write per byte or per line.  The
 * chunks of one file come one after the other; the next file name closes
 * the file (its writeback is started then, and outdir.c fsyncs every file
 * at the end).
 *
 * The loop waits on every connection's socket with poll(), 100 ms at most,
 * so the progress display stays live and a signal is seen promptly.  An
 * error on any connection cancels the others and exits; the temporary
 * directory is removed by outdir.c's exit handler.
 *
 * Rows are counted only for the progress display: the client knows the
 * formats just enough to count (see count_rows_in_chunk); it writes the
 * server's bytes untouched, or compressed (-Z, file_writer.c).
 *
 *-------------------------------------------------------------------------
 */
#include "cli.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/uio.h>
#include <unistd.h>

#define WRITE_BUFFER_SIZE	(128 * 1024)

/*
 * write_raw
 *		writev until everything is written, or exit(1).
 */
static void
write_raw(OutFile *f, struct iovec *iov, int iovcnt)
{
	while (iovcnt > 0)
	{
		ssize_t		w = writev(f->fd, iov, iovcnt);

		if (w < 0)
		{
			if (errno == EINTR)
				continue;
			pg_fatal("could not write file \"%s\": %m", f->name);
		}
		while (iovcnt > 0 && (size_t) w >= iov->iov_len)
		{
			w -= iov->iov_len;
			iov++;
			iovcnt--;
		}
		if (iovcnt > 0)
		{
			iov->iov_base = (char *) iov->iov_base + w;
			iov->iov_len -= w;
		}
	}
}

/*
 * write_compressed
 *		A compressor's output, written to f's file (CompressorOut).
 */
static void
write_compressed(void *arg, const char *data, size_t len)
{
	struct iovec iov;

	iov.iov_base = unconstify(char *, data);
	iov.iov_len = len;
	write_raw((OutFile *) arg, &iov, 1);
}

/*
 * write_all
 *		Write the bytes of iov to f's file: as they are, or through its
 *		compressor (-Z).
 */
static void
write_all(OutFile *f, struct iovec *iov, int iovcnt)
{
	int			i;

	if (f->z == NULL)
	{
		write_raw(f, iov, iovcnt);
		return;
	}
	for (i = 0; i < iovcnt; i++)
		compressor_write(f->z, iov[i].iov_base, iov[i].iov_len, write_compressed, f);
}

/*
 * flush_buffer
 *		Write what the buffer holds.
 */
static void
flush_buffer(OutFile *f)
{
	struct iovec iov;

	if (f->used == 0)
		return;
	iov.iov_base = f->buf;
	iov.iov_len = f->used;
	write_all(f, &iov, 1);
	f->used = 0;
}

/*
 * write_chunk
 *		A chunk and its newline.
 */
static void
write_chunk(OutFile *f, const char *chunk, size_t len)
{
	if (f->used + len + 1 <= WRITE_BUFFER_SIZE)
	{
		memcpy(f->buf + f->used, chunk, len);
		f->buf[f->used + len] = '\n';
		f->used += len + 1;
		return;
	}
	flush_buffer(f);
	if (len + 1 <= WRITE_BUFFER_SIZE / 2)
	{
		memcpy(f->buf, chunk, len);
		f->buf[len] = '\n';
		f->used = len + 1;
	}
	else
	{
		struct iovec iov[2];

		iov[0].iov_base = unconstify(char *, chunk);
		iov[0].iov_len = len;
		iov[1].iov_base = "\n";
		iov[1].iov_len = 1;
		write_all(f, iov, 2);
	}
}

/*
 * close_file
 *		Flush, start the writeback (fsynced later), close.
 */
static void
close_file(OutFile *f)
{
	if (f->name == NULL)
		return;
	flush_buffer(f);
	if (f->z != NULL)
	{
		compressor_end(f->z, write_compressed, f);
		f->z = NULL;
	}
#ifdef SYNC_FILE_RANGE_WRITE
	(void) sync_file_range(f->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#endif
	if (close(f->fd) != 0)
		pg_fatal("could not close file \"%s\": %m", f->name);
	f->fd = -1;
}

/*
 * safe_file_name
 *		A file name that stays in the directory, as the server writes them
 *		("insert-NNN-<table>.<ext>", with "/", "%" and control characters
 *		of the table's name as %XX): not empty, no "/", no control
 *		character (a newline or an escape sequence in a name would forge
 *		lines on a terminal, or in any listing of the directory), and not
 *		starting with "." (".", "..", and hidden files such as pg_dump's
 *		.pg_dump.sql next to them).  The client trusts the server's names
 *		for nothing: this is the safety net.
 */
static bool
safe_file_name(const char *name)
{
	const unsigned char *p;

	if (name[0] == '\0' || name[0] == '.')
		return false;
	for (p = (const unsigned char *) name; *p; p++)
	{
		if (*p == '/' || *p < 0x20 || *p == 0x7f)
			return false;
	}
	return true;
}

/*
 * printable_name
 *		name for a message: control characters, '"' and '\\' as \xNN, at
 *		most 200 bytes of it, so that a hostile name cannot write lines or
 *		escape sequences of its own on the terminal.
 */
static char *
printable_name(const char *name)
{
	StringInfoData s;
	const unsigned char *p;

	initStringInfo(&s);
	for (p = (const unsigned char *) name; *p && s.len < 200; p++)
	{
		if (*p < 0x20 || *p == 0x7f || *p == '"' || *p == '\\')
			appendStringInfo(&s, "\\x%02X", *p);
		else
			appendStringInfoChar(&s, (char) *p);
	}
	if (*p)
		appendStringInfoString(&s, "...");
	return s.data;
}

/*
 * disk_file_name
 *		The name on disk of the server's file name: with the compression's
 *		suffix (-Z), before a part's ".exwiw-part-N" (parts.c joins the parts
 *		into the compressed name: gzip members and zstd frames concatenate).
 */
static char *
disk_file_name(const char *name, int method)
{
	const char *part = strstr(name, PART_FILE_SUFFIX);

	if (method == COMPRESS_NONE)
		return pg_strdup(name);
	if (part != NULL && part != name)
		return psprintf("%.*s%s%s", (int) (part - name), name,
						compress_suffix(method), part);
	return psprintf("%s%s", name, compress_suffix(method));
}

/*
 * open_file
 *		Create the file of a new name in the temporary directory (it must
 *		not exist), through its descriptor; dir is its path, for messages.
 */
static void
open_file(OutFile *f, const char *dir, const char *name)
{
	char	   *path;
	char	   *disk_name;

	if (!safe_file_name(name))
	{
		pg_log_error("the server returned an unsafe file name: \"%s\"",
					 printable_name(name));
		exit(1);
	}
	disk_name = disk_file_name(name, f->compress_method);
	path = psprintf("%s/%s", dir, disk_name);
	f->fd = outdir_create_file(disk_name, OUTPUT_FILE_MODE);
	if (f->fd < 0)
		pg_fatal("could not create file \"%s\": %m", path);
	pg_free(path);
	pg_free(disk_name);
	if (f->compress_method != COMPRESS_NONE)
		f->z = compressor_begin(f->compress_method, f->compress_level);
	if (f->name)
		pg_free(f->name);
	f->name = pg_strdup(name);
	f->used = 0;
	f->rows = 0;
	f->bytes = 0;
	f->copy_state = 0;
	if (f->buf == NULL)
		f->buf = pg_malloc(WRITE_BUFFER_SIZE);
}

/*
 * count_rows_in_chunk
 *		The rows in a chunk, for the progress display only.  A chunk holds
 *		whole lines.  jsonl: one row per line.  copy: the lines between a
 *		"COPY ... FROM stdin;" line and "\.".  insert: the lines that start
 *		with "(" outside a quoted value (every value is quoted, with '
 *		doubled, so quotes pair up within a chunk).
 */
long
count_rows_in_chunk(int format, const char *chunk, size_t len, int *copy_state)
{
	const char *p = chunk;
	const char *end = chunk + len;
	long		rows = 0;

	if (len == 0)
		return 0;
	if (format == EXPORT_FORMAT_JSONL)
	{
		rows = 1;
		while ((p = memchr(p, '\n', end - p)) != NULL)
		{
			rows++;
			p++;
		}
		return rows;
	}
	if (format == EXPORT_FORMAT_COPY)
	{
		while (p < end)
		{
			const char *nl = memchr(p, '\n', end - p);
			const char *eol = nl ? nl : end;
			size_t		l = eol - p;

			if (*copy_state)
			{
				if (l == 2 && p[0] == '\\' && p[1] == '.')
					*copy_state = 0;
				else
					rows++;
			}
			else if (l > 17 && strncmp(p, "COPY ", 5) == 0 &&
					 strncmp(eol - 12, " FROM stdin;", 12) == 0)
				*copy_state = 1;
			p = eol + 1;
		}
		return rows;
	}
	/* insert */
	{
		bool		inq = false;
		bool		bol = true;

		for (; p < end; p++)
		{
			char		c = *p;

			if (c == '\'')
				inq = !inq;
			else if (!inq)
			{
				if (bol && c == '(')
					rows++;
				if (c == '\n')
				{
					bol = true;
					continue;
				}
			}
			bol = false;
		}
	}
	return rows;
}

/*
 * handle_row
 *		One (file_name, chunk) row of a stream.
 */
static void
handle_row(ExportStream *s, PGresult *res, const StreamSink *sink)
{
	const char *name = PQgetvalue(res, 0, 0);
	const char *chunk = PQgetvalue(res, 0, 1);
	size_t		len = PQgetlength(res, 0, 1);
	OutFile    *f = &s->file;

	if (PQgetisnull(res, 0, 0) || PQgetisnull(res, 0, 1))
	{
		pg_log_error("the server returned a NULL file name or chunk");
		exit(1);
	}
	if (f->name == NULL || f->fd < 0 || strcmp(f->name, name) != 0)
	{
		if (f->name != NULL && f->fd >= 0)
		{
			close_file(f);
			if (sink->file_finished)
				sink->file_finished(sink->arg, s);
		}
		f->compress_method = sink->compress_method;
		f->compress_level = sink->compress_level;
		open_file(f, sink->dir, name);
		if (sink->file_started)
			sink->file_started(sink->arg, s);
	}
	write_chunk(f, chunk, len);
	f->bytes += len + 1;
	if (sink->count_rows)
		f->rows += count_rows_in_chunk(sink->format, chunk, len, &f->copy_state);
}

/*
 * fail_stream
 *		An error on one connection: report it, cancel the others, exit.
 */
static void
fail_stream(ExportStream *streams, int n, ExportStream *s, PGresult *res)
{
	int			i;
	char		errbuf[256];

	exit_if_cancelled();
	for (i = 0; i < n; i++)
	{
		if (&streams[i] != s && !streams[i].done)
		{
			PGcancel   *c = PQgetCancel(streams[i].conn);

			if (c)
			{
				(void) PQcancel(c, errbuf, sizeof(errbuf));
				PQfreeCancel(c);
			}
		}
	}
	if (res != NULL)
		report_result_error(res, NULL);
	else
		pg_log_error("%s", PQerrorMessage(s->conn));
	exit(1);
}

/*
 * stream_run
 *		Drain every stream (each connection has sent its query in single-
 *		row mode) into files in sink->dir.
 */
void
stream_run(ExportStream *streams, int n, const StreamSink *sink)
{
	struct pollfd *fds = pg_malloc(sizeof(struct pollfd) * n);
	int		   *which = pg_malloc(sizeof(int) * n);
	int			active = n;
	int			i;

	for (i = 0; i < n; i++)
	{
		streams[i].file.fd = -1;
		streams[i].file.name = NULL;
	}

	while (active > 0)
	{
		int			k = 0;
		int			rc;

		for (i = 0; i < n; i++)
		{
			if (streams[i].done)
				continue;
			fds[k].fd = PQsocket(streams[i].conn);
			fds[k].events = POLLIN;
			fds[k].revents = 0;
			which[k++] = i;
		}
		rc = poll(fds, k, 100);
		exit_if_cancelled();
		if (rc < 0)
		{
			if (errno == EINTR)
				continue;
			pg_fatal("poll() failed: %m");
		}
		for (i = 0; i < k && rc > 0; i++)
		{
			ExportStream *s = &streams[which[i]];

			if (fds[i].revents == 0)
				continue;
			if (!PQconsumeInput(s->conn))
				fail_stream(streams, n, s, NULL);
			while (!PQisBusy(s->conn))
			{
				PGresult   *res = PQgetResult(s->conn);

				if (res == NULL)
				{
					/* the stream ended */
					if (s->file.name != NULL && s->file.fd >= 0)
					{
						close_file(&s->file);
						if (sink->file_finished)
							sink->file_finished(sink->arg, s);
					}
					s->done = true;
					active--;
					break;
				}
				switch (PQresultStatus(res))
				{
					case PGRES_SINGLE_TUPLE:
						handle_row(s, res, sink);
						break;
					case PGRES_TUPLES_OK:
					case PGRES_COMMAND_OK:
						break;
					default:
						fail_stream(streams, n, s, res);
				}
				PQclear(res);
			}
		}
		if (sink->tick)
			sink->tick(sink->arg);
	}
	pg_free(fds);
	pg_free(which);
	for (i = 0; i < n; i++)
		pg_free(streams[i].file.buf);
}
