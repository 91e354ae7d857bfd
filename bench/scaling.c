/*-------------------------------------------------------------------------
 *
 * scaling.c
 *	  What a second process gains on this machine for each kind of work a
 *	  parallel dump does, with nothing of exwiw or PostgreSQL in it: the
 *	  peers that set the ceiling of bench/parallel.sh's -j 2.
 *
 *	  cc -O2 -o scaling bench/scaling.c && ./scaling [MB]
 *
 * Each kind of work is done once by one process (all of it) and once by
 * two forked processes side by side (half each), three times alternating;
 * the best wall time of each is printed with the ratio (one / two: 2.00 is
 * a perfect second core, 1.00 none):
 *
 *	arithmetic	an integer loop in registers: the cores themselves
 *	memcpy		MB x 16 copied between two buffers touched before the
 *				clock starts:
 *				the memory's bandwidth (the formatting's output, the
 *				socket's and the page cache's copies are all of this kind)
 *	new pages	MB of fresh anonymous memory touched, page by page, and
 *				unmapped: the cost of first touches (a new backend's
 *				shared buffers, a socket's and a file's new pages)
 *	socket		MB through a Unix stream socket pair in 256 kB writes, as
 *				a backend sends rows to its client
 *	new files	MB written into new files in 256 kB writes, as the client
 *				writes an export's files (the page cache; no fsync)
 *
 * No figure here is asserted: bench/README.md reads them beside the
 * dump's own.  The files go to a directory made under $TMPDIR (or /tmp)
 * and removed at the end.
 *
 *-------------------------------------------------------------------------
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BLOCK		(256 * 1024)
#define MIB			(1024L * 1024)

static long total_mb = 256;
static char dir[4096];

static void
die(const char *what)
{
	perror(what);
	exit(1);
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* an integer loop the compiler cannot fold: share / 1 of 800M steps */
static void
work_arith(int share, int of)
{
	volatile uint64_t sink;
	uint64_t	x = 88172645463325252ULL;
	long		i,
				n = 800000000L / of;

	(void) share;
	for (i = 0; i < n; i++)
	{
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	sink = x;
	(void) sink;
}

/* two buffers of MB / of bytes, touched before the clock starts */
static char *copy_a,
		   *copy_b;

static void
prepare_memcpy(int share, int of)
{
	size_t		len = total_mb * MIB / of;

	copy_a = malloc(len);
	copy_b = malloc(len);
	if (copy_a == NULL || copy_b == NULL)
		die("malloc");
	memset(copy_a, share + 1, len);
	memset(copy_b, 0, len);
}

/* the buffers copied into each other, 16 times */
static void
work_memcpy(int share, int of)
{
	size_t		len = total_mb * MIB / of;
	int			i;

	(void) share;
	for (i = 0; i < 16; i++)
		memcpy(i % 2 ? copy_a : copy_b, i % 2 ? copy_b : copy_a, len);
}

/* fresh anonymous pages, one byte written in each, in 16 MB mappings */
static void
work_pages(int share, int of)
{
	size_t		len = 16 * MIB;
	long		n = total_mb / 16 / of,
				i;
	size_t		off;

	(void) share;
	for (i = 0; i < n; i++)
	{
		char	   *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
							 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			die("mmap");
		for (off = 0; off < len; off += 4096)
			p[off] = 1;
		munmap(p, len);
	}
}

/* MB / of through a socket pair: a forked writer, this process reads */
static void
work_socket(int share, int of)
{
	int			sv[2];
	long		left = total_mb * MIB / of;
	static char buf[BLOCK];
	pid_t		pid;

	(void) share;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		die("socketpair");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0)
	{
		close(sv[0]);
		memset(buf, 'x', sizeof(buf));
		while (left > 0)
		{
			ssize_t		w = write(sv[1], buf, left < BLOCK ? left : BLOCK);

			if (w < 0 && errno != EINTR)
				die("write");
			if (w > 0)
				left -= w;
		}
		_exit(0);
	}
	close(sv[1]);
	for (;;)
	{
		ssize_t		r = read(sv[0], buf, sizeof(buf));

		if (r == 0)
			break;
		if (r < 0 && errno != EINTR)
			die("read");
	}
	close(sv[0]);
	waitpid(pid, NULL, 0);
}

/* MB / of into new files of 4 MB each, then removed */
static void
work_files(int share, int of)
{
	static char buf[BLOCK];
	long		files = total_mb / 4 / of,
				f;
	char		path[4200];

	memset(buf, 'x', sizeof(buf));
	for (f = 0; f < files; f++)
	{
		int			fd;
		int			i;

		snprintf(path, sizeof(path), "%s/%d.%ld", dir, share, f);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
		if (fd < 0)
			die("open");
		for (i = 0; i < 16; i++)
			if (write(fd, buf, BLOCK) != BLOCK)
				die("write");
		close(fd);
	}
}

/* remove the files of work_files, outside the timing */
static void
clean_files(void)
{
	long		f;
	int			s;
	char		path[4200];

	for (s = 0; s < 2; s++)
		for (f = 0; f < total_mb / 4; f++)
		{
			snprintf(path, sizeof(path), "%s/%d.%ld", dir, s, f);
			(void) unlink(path);
		}
}

/*
 * run
 *		The wall time of work done by n forked processes, share k of n each:
 *		each child prepares (outside the clock), says so on a pipe and waits
 *		for the parent to close another; the clock runs from that close to
 *		the last child's exit.
 */
static double
run(void (*prepare) (int, int), void (*work) (int, int), int n)
{
	int			ready[2],
				go[2];
	double		t0;
	int			k;
	char		c;

	if (pipe(ready) != 0 || pipe(go) != 0)
		die("pipe");
	for (k = 0; k < n; k++)
	{
		pid_t		pid = fork();

		if (pid < 0)
			die("fork");
		if (pid == 0)
		{
			close(ready[0]);
			close(go[1]);
			if (prepare)
				prepare(k, n);
			if (write(ready[1], "r", 1) != 1)
				die("write");
			if (read(go[0], &c, 1) != 0)
				die("read");
			work(k, n);
			_exit(0);
		}
	}
	close(ready[1]);
	close(go[0]);
	for (k = 0; k < n; k++)
		if (read(ready[0], &c, 1) != 1)
			die("read");
	t0 = now();
	close(go[1]);
	while (wait(NULL) > 0)
		;
	close(ready[0]);
	return now() - t0;
}

int
main(int argc, char **argv)
{
	static const struct
	{
		const char *name;
		void		(*prepare) (int, int);
		void		(*work) (int, int);
	}			kinds[] = {
		{"arithmetic", NULL, work_arith},
		{"memcpy", prepare_memcpy, work_memcpy},
		{"new pages", NULL, work_pages},
		{"socket", NULL, work_socket},
		{"new files", NULL, work_files},
	};
	const char *tmp = getenv("TMPDIR");
	size_t		i;

	if (argc > 1)
		total_mb = atol(argv[1]);
	if (total_mb < 64)
		total_mb = 64;
	snprintf(dir, sizeof(dir), "%s/exwiw-scaling.XXXXXX", tmp ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL)
		die("mkdtemp");

	printf("| work (%ld MB) | one process | two processes, half each | one / two |\n", total_mb);
	printf("| --- | ---: | ---: | ---: |\n");
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
	{
		double		one = 1e9,
					two = 1e9,
					t;
		int			r;

		for (r = 0; r < 3; r++)
		{
			clean_files();
			t = run(kinds[i].prepare, kinds[i].work, 1);
			if (t < one)
				one = t;
			clean_files();
			t = run(kinds[i].prepare, kinds[i].work, 2);
			if (t < two)
				two = t;
		}
		printf("| %s | %.3f s | %.3f s | %.2f× |\n", kinds[i].name, one, two, one / two);
		fflush(stdout);
	}
	clean_files();
	rmdir(dir);
	return 0;
}
