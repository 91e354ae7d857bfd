/*-------------------------------------------------------------------------
 *
 * parts.c
 *	  The parts of a file, written by several workers, joined in order
 *	  into the file.
 *
 * With -j N, a large file may be read as parts from several connections
 * (export.c): the worker of part k writes it into the temporary directory
 * as "<file>.exwiw-part-<k>" (PART_FILE_SUFFIX), a name the server never
 * gives (its names end in .sql or .jsonl).  Once every stream has ended,
 * join_part_files() creates each <file> and appends its parts, in the
 * order of k, then removes them.  A part of no row wrote no file, which
 * is what it contributes.  The parts concatenate to the file byte for
 * byte (the server's part => k, parts => n), so the directory is -j 1's.
 *
 *-------------------------------------------------------------------------
 */
#include "cli.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#define JOIN_BUFFER_SIZE	(1024 * 1024)

/* One part file found in the directory. */
typedef struct PartFile
{
	char	   *name;			/* as in the directory */
	char	   *stem;			/* the file it is part of */
	int			part;
} PartFile;

/*
 * part_cmp
 *		qsort: by file, then part number.
 */
static int
part_cmp(const void *a, const void *b)
{
	const PartFile *x = a;
	const PartFile *y = b;
	int			c = strcmp(x->stem, y->stem);

	if (c != 0)
		return c;
	return x->part - y->part;
}

/*
 * parse_part_name
 *		Whether name is "<stem>.exwiw-part-<digits>"; fills p if so.
 */
static bool
parse_part_name(const char *name, PartFile *p)
{
	const char *s = strstr(name, PART_FILE_SUFFIX);
	const char *d;

	if (s == NULL || s == name)
		return false;
	d = s + strlen(PART_FILE_SUFFIX);
	if (*d < '0' || *d > '9' || strspn(d, "0123456789") != strlen(d))
		return false;
	p->name = pg_strdup(name);
	p->stem = pnstrdup(name, s - name);
	p->part = atoi(d);
	return true;
}

/*
 * append_file
 *		Append the contents of file name (in directory dirfd) to fd.
 */
static void
append_file(int dirfd, const char *name, int fd, const char *target, char *buf)
{
	int			in = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | PG_BINARY);

	if (in < 0)
		pg_fatal("could not open \"%s\": %m", name);
	for (;;)
	{
		ssize_t		r = read(in, buf, JOIN_BUFFER_SIZE);
		ssize_t		off = 0;

		if (r < 0)
		{
			if (errno == EINTR)
				continue;
			pg_fatal("could not read \"%s\": %m", name);
		}
		if (r == 0)
			break;
		while (off < r)
		{
			ssize_t		w = write(fd, buf + off, r - off);

			if (w < 0)
			{
				if (errno == EINTR)
					continue;
				pg_fatal("could not write \"%s\": %m", target);
			}
			off += w;
		}
	}
	close(in);
}

/*
 * join_part_files
 *		Join every file's parts in the temporary directory, see the file
 *		header.  Called after the streams, before outdir_fsync_files().
 */
void
join_part_files(void)
{
	int			dirfd = outdir_temp_fd();
	int			fd2 = dup(dirfd);
	DIR		   *dir;
	struct dirent *de;
	PartFile   *parts = NULL;
	int			nparts = 0;
	char	   *buf;
	int			i;

	if (fd2 < 0 || (dir = fdopendir(fd2)) == NULL)
		pg_fatal("could not read the temporary directory: %m");
	while ((errno = 0, de = readdir(dir)) != NULL)
	{
		PartFile	p;

		if (!parse_part_name(de->d_name, &p))
			continue;
		parts = pg_realloc(parts, sizeof(PartFile) * (nparts + 1));
		parts[nparts++] = p;
	}
	if (errno != 0)
		pg_fatal("could not read the temporary directory: %m");
	closedir(dir);
	if (nparts == 0)
		return;
	qsort(parts, nparts, sizeof(PartFile), part_cmp);
	buf = pg_malloc(JOIN_BUFFER_SIZE);
	for (i = 0; i < nparts;)
	{
		int			j;
		int			fd = outdir_create_file(parts[i].stem, OUTPUT_FILE_MODE);

		if (fd < 0)
			pg_fatal("could not create file \"%s\": %m", parts[i].stem);
		for (j = i; j < nparts && strcmp(parts[j].stem, parts[i].stem) == 0; j++)
		{
			append_file(dirfd, parts[j].name, fd, parts[i].stem, buf);
			outdir_remove_file(parts[j].name);
		}
		if (close(fd) != 0)
			pg_fatal("could not close file \"%s\": %m", parts[i].stem);
		pg_log_debug("joined %d parts into %s", j - i, parts[i].stem);
		i = j;
	}
	pg_free(buf);
}
