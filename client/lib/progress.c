/*-------------------------------------------------------------------------
 *
 * progress.c
 *	  The progress display on a terminal.
 *
 * On stderr, when it is a terminal (and not --quiet): a line per table
 * being written, with its rows and bytes so far against the estimate and
 * its rate; a line per finished table, which stays; and an overall bar
 * with the share done, the rate and an ETA.  The live lines are redrawn in
 * place (ANSI cursor movement), at most ten times a second, cut to the
 * terminal's width so that they never wrap.  Messages printed meanwhile
 * (warnings, errors) first clear the live lines (pg_logging's pre-print
 * callback), so they never mix with them.  At the end, one summary line:
 * files, rows, bytes, seconds.
 *
 * When stderr is not a terminal, or with --quiet, nothing is printed at
 * all; the functions below are then no-ops.
 *
 * The overall share weighs each file by its estimated size; a file counts
 * as done when it finished or when its connection moved past it (a table
 * with no rows has no file).
 *
 *-------------------------------------------------------------------------
 */
#include "cli.h"

#include <sys/ioctl.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

struct Progress
{
	bool		enabled;		/* the live lines (a terminal) */
	bool		summary;		/* the summary line at the end */
	ProgressFile *files;
	int			nfiles;
	int			drawn_lines;	/* live lines on the screen now */
	double		started;
	double		last_draw;
};

static Progress *active_progress = NULL;

/*
 * now_seconds
 *		Wall-clock seconds (monotonic).
 */
double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * format_bytes
 *		1.2 MB, 45.0 kB, 812 B.
 */
void
format_bytes(char *buf, size_t len, double bytes)
{
	if (bytes >= 1e9)
		snprintf(buf, len, "%.2f GB", bytes / 1e9);
	else if (bytes >= 1e6)
		snprintf(buf, len, "%.1f MB", bytes / 1e6);
	else if (bytes >= 1e3)
		snprintf(buf, len, "%.1f kB", bytes / 1e3);
	else
		snprintf(buf, len, "%.0f B", bytes);
}

/*
 * format_count
 *		1,234,567 (thousands separated).
 */
void
format_count(char *buf, size_t len, double n)
{
	char		digits[64];
	int			nd,
				i,
				o = 0;

	snprintf(digits, sizeof(digits), "%.0f", n < 0 ? 0 : n);
	nd = strlen(digits);
	for (i = 0; i < nd && o < (int) len - 1; i++)
	{
		if (i > 0 && (nd - i) % 3 == 0 && o < (int) len - 1)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
}

/*
 * format_estimate
 *		~1.2M, ~45k, ~812; a count that is exact, in full: 1,234,567.
 */
static void
format_estimate(char *buf, size_t len, double n, bool exact)
{
	if (exact)
		format_count(buf, len, n);
	else if (n < 0)
		snprintf(buf, len, "?");
	else if (n >= 1e6)
		snprintf(buf, len, "~%.1fM", n / 1e6);
	else if (n >= 1e4)
		snprintf(buf, len, "~%.0fk", n / 1e3);
	else
		snprintf(buf, len, "~%.0f", n);
}

/*
 * terminal_width
 *		Columns of stderr's terminal (80 when unknown).
 */
static int
terminal_width(void)
{
	struct winsize ws;

	if (ioctl(fileno(stderr), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20)
		return ws.ws_col;
	return 80;
}

/*
 * put_line
 *		One line, cut to the terminal's width.
 */
static void
put_line(const char *line, int width)
{
	int			len = strlen(line);

	if (len > width - 1)
		len = width - 1;
	fprintf(stderr, "%.*s\n", len, line);
}

/*
 * find_file
 *		The entry of file number seq, or NULL.
 */
static ProgressFile *
find_file(Progress *p, int seq)
{
	int			i;

	if (p == NULL)
		return NULL;
	for (i = 0; i < p->nfiles; i++)
		if (p->files[i].seq == seq)
			return &p->files[i];
	return NULL;
}

/*
 * clear_live
 *		Erase the live lines.
 */
static void
clear_live(Progress *p)
{
	if (p->drawn_lines > 0)
		fprintf(stderr, "\033[%dA\r\033[J", p->drawn_lines);
	p->drawn_lines = 0;
}

/*
 * progress_clear
 *		pg_logging's pre-print callback: erase the live lines before a
 *		message (they are drawn again at the next tick).
 */
void
progress_clear(Progress *p)
{
	if (p == NULL)
		p = active_progress;
	if (p == NULL || !p->summary)
		return;
	if (p->enabled)
		clear_live(p);
	fflush(stderr);
}

/*
 * logging_pre_callback
 *		See progress_clear.
 */
static void
logging_pre_callback(void)
{
	progress_clear(NULL);
}

/*
 * progress_start
 *		Begin a display over these files (which it keeps): the live lines
 *		when enabled (a terminal), and the summary line at the end when
 *		enabled or summary (-v, as pg_dump -v: also off a terminal).
 */
Progress *
progress_start(ProgressFile *files, int nfiles, bool enabled, bool summary)
{
	Progress   *p = pg_malloc0(sizeof(Progress));

	p->enabled = enabled && files != NULL;
	p->summary = summary || p->enabled;
	p->files = files;
	p->nfiles = nfiles;
	p->started = now_seconds();
	if (p->enabled)
	{
		active_progress = p;
		pg_logging_set_pre_callback(logging_pre_callback);
	}
	return p;
}

/*
 * progress_file_started
 *		A file was opened.
 */
void
progress_file_started(Progress *p, int seq, const char *name)
{
	ProgressFile *f = find_file(p, seq);

	if (f == NULL)
		return;
	f->file_name = pg_strdup(name);
	if (f->state == 0)
		f->started = now_seconds();
	f->state = 1;
}

/*
 * progress_file_pending
 *		A connection is working on this file, whose first rows have not
 *		come yet (the server is computing the row sets it reads, or its
 *		first chunk): show it as running, named by its table.
 */
void
progress_file_pending(Progress *p, int seq)
{
	ProgressFile *f = find_file(p, seq);

	if (f == NULL || f->state != 0)
		return;
	f->state = 1;
	f->started = now_seconds();
}

/*
 * progress_file_update
 *		A file's rows and bytes so far.
 */
void
progress_file_update(Progress *p, int seq, long rows, long bytes)
{
	ProgressFile *f = find_file(p, seq);

	if (f == NULL)
		return;
	f->rows = rows;
	f->bytes = bytes;
}

/*
 * file_line
 *		The line of one file: name, rows (against the estimate), bytes, rate.
 */
static void
file_line(char *buf, size_t len, const ProgressFile *f, double now)
{
	char		rows[32],
				est[32],
				bytes[32],
				rate[32],
				label[300];
	double		secs = (f->state == 2 ? f->finished : now) - f->started;

	/* before its first chunk, a file is named by its number and table */
	if (f->file_name)
		snprintf(label, sizeof(label), "%s", f->file_name);
	else
		snprintf(label, sizeof(label), "#%d %s", f->seq, f->table);

	format_count(rows, sizeof(rows), f->rows);
	format_estimate(est, sizeof(est), f->est_rows, f->exact);
	format_bytes(bytes, sizeof(bytes), f->bytes);
	format_bytes(rate, sizeof(rate), secs > 0.001 ? f->bytes / secs : 0);
	if (f->state == 2)
		snprintf(buf, len, "  %-34s %12s rows %10s  %6.2f s  done",
				 label, rows, bytes, secs);
	else
		snprintf(buf, len, "  %-34s %12s / %-7s rows %10s  %10s/s",
				 label, rows, est, bytes, rate);
}

/*
 * progress_file_done
 *		A file is complete (or had no rows).
 */
void
progress_file_done(Progress *p, int seq)
{
	ProgressFile *f = find_file(p, seq);

	if (f == NULL || f->state == 2)
		return;
	if (f->state == 0)
		f->started = now_seconds();
	f->state = 2;
	f->finished = now_seconds();
	if (p->enabled && f->file_name != NULL)
	{
		char		line[512];

		/* a finished file's line stays above the live ones */
		clear_live(p);
		file_line(line, sizeof(line), f, f->finished);
		put_line(line, terminal_width());
	}
}

/*
 * progress_tick
 *		Redraw the live lines (at most ten times a second, unless force).
 */
void
progress_tick(Progress *p, bool force)
{
	double		now = now_seconds();
	double		wsum = 0,
				done = 0,
				elapsed;
	long		rows = 0,
				bytes = 0;
	int			nfinished = 0;
	int			width,
				i,
				bar;
	char		line[512],
				b1[32],
				b2[32],
				b3[32],
				eta[32];
	char		barbuf[64];
	double		frac;

	if (p == NULL || !p->enabled)
		return;
	if (!force && now - p->last_draw < 0.1)
		return;
	p->last_draw = now;
	width = terminal_width();
	clear_live(p);

	for (i = 0; i < p->nfiles; i++)
	{
		ProgressFile *f = &p->files[i];
		double		w = Max(f->est_bytes, 8192.0);
		double		part = 0;

		wsum += w;
		rows += f->rows;
		bytes += f->bytes;
		if (f->state == 2)
		{
			part = 1;
			nfinished++;
		}
		else if (f->state == 1)
		{
			part = f->est_rows > 0 ? Min((double) f->rows / f->est_rows, 0.99) : 0.5;
			file_line(line, sizeof(line), f, now);
			put_line(line, width);
			p->drawn_lines++;
		}
		done += w * part;
	}
	frac = wsum > 0 ? done / wsum : 0;
	elapsed = now - p->started;
	bar = (int) (frac * 30);
	memset(barbuf, '#', bar);
	memset(barbuf + bar, '-', 30 - bar);
	barbuf[30] = '\0';
	format_count(b1, sizeof(b1), rows);
	format_bytes(b2, sizeof(b2), bytes);
	format_bytes(b3, sizeof(b3), elapsed > 0.001 ? bytes / elapsed : 0);
	if (frac > 0.02 && frac < 1)
	{
		int			s = (int) (elapsed * (1 - frac) / frac + 0.5);

		snprintf(eta, sizeof(eta), "ETA %d:%02d", s / 60, s % 60);
	}
	else
		snprintf(eta, sizeof(eta), "ETA --:--");
	snprintf(line, sizeof(line), "[%s] %3.0f%%  %d/%d tables  %s rows  %s  %s/s  %s",
			 barbuf, frac * 100, nfinished, p->nfiles, b1, b2, b3, eta);
	put_line(line, width);
	p->drawn_lines++;
	fflush(stderr);
}

/*
 * finish_summary
 *		Erase the live lines and print the summary line: "exwiw: <verb> N
 *		files, N rows, SIZE <preposition> DIR in S s".
 */
static void
finish_summary(Progress *p, const char *verb, const char *preposition,
			   const char *dir, int files, long rows, long bytes)
{
	char		b1[32],
				b2[32];

	if (p == NULL || !p->summary)
		return;
	if (p->enabled)
		clear_live(p);
	format_count(b1, sizeof(b1), rows);
	format_bytes(b2, sizeof(b2), bytes);
	fprintf(stderr, "exwiw: %s %d files, %s rows, %s %s %s in %.2f s\n",
			verb, files, b1, b2, preposition, dir, now_seconds() - p->started);
	fflush(stderr);
	if (p->enabled)
	{
		active_progress = NULL;
		pg_logging_set_pre_callback(NULL);
	}
}

/*
 * progress_finish
 *		The export's summary line (finish_summary).
 */
void
progress_finish(Progress *p, const char *dir, int files, long rows, long bytes)
{
	finish_summary(p, "wrote", "to", dir, files, rows, bytes);
}

/*
 * progress_finish_load
 *		exwiw load's summary line (finish_summary).
 */
void
progress_finish_load(Progress *p, const char *dir, int files, long rows, long bytes)
{
	finish_summary(p, "loaded", "from", dir, files, rows, bytes);
}
