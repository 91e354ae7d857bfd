/*-------------------------------------------------------------------------
 *
 * outdir.c
 *	  The output directory, written atomically.
 *
 * The files are written into a temporary directory next to the target
 * (".exwiw-<name>.XXXXXX" in the same parent, so that a rename moves it),
 * and the temporary directory replaces the target only when every file is
 * complete and fsynced: an existing target is swapped with it in one step
 * (renameat2 RENAME_EXCHANGE; two renames where the file system cannot),
 * then removed.  A failed, killed or cancelled run never leaves a half
 * directory under the target's name: an exit handler removes the
 * temporary directory, and any parent directories this run created,
 * unless the export was committed.
 *
 * An existing, non-empty target is refused unless --force; on a terminal
 * exwiw asks first, as the Ruby client does.
 *
 *-------------------------------------------------------------------------
 */
#include "cli.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/string.h"

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static char *temp_dir = NULL;	/* the temporary directory, while it exists */
static char *created_parent = NULL; /* topmost parent directory we created */
static char *target_abs = NULL; /* the target, absolute, symlink resolved */
static bool committed = false;

/*
 * resolve_target
 *		The target as an absolute path; a symbolic link to a directory is
 *		followed, so that the directory it points to is replaced, not the
 *		link.
 */
static char *
resolve_target(const char *target)
{
	char	   *abs = make_absolute_path(target);
	struct stat st;

	if (abs == NULL)
		pg_fatal("could not make an absolute path of \"%s\"", target);
	canonicalize_path(abs);
	if (lstat(abs, &st) == 0 && S_ISLNK(st.st_mode))
	{
		char	   *real = realpath(abs, NULL);

		if (real != NULL && stat(real, &st) == 0 && S_ISDIR(st.st_mode))
			return pg_strdup(real);
	}
	return abs;
}

/*
 * count_entries
 *		Entries of a directory, "." and ".." left out; -1 on error.
 */
static int
count_entries(const char *path)
{
	DIR		   *d = opendir(path);
	struct dirent *de;
	int			n = 0;

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
	{
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			n++;
	}
	closedir(d);
	return n;
}

/*
 * path_within
 *		Is path (a resolved, absolute path) dir itself or under it?
 */
static bool
path_within(const char *path, const char *dir)
{
	size_t		n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return true;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/*
 * refuse_precious_target
 *		A non-empty target is replaced whole: refuse one whose removal
 *		would take what the run stands on, whatever --force says: the root,
 *		the current directory or one of its ancestors, or a directory that
 *		holds the schema config (keep, may be NULL).
 */
static void
refuse_precious_target(const char *target, const char *keep)
{
	char	   *rtarget = realpath(target, NULL);
	char	   *cwd = getcwd(NULL, 0);
	char	   *rcwd = cwd ? realpath(cwd, NULL) : NULL;
	char	   *rkeep = keep ? realpath(keep, NULL) : NULL;
	const char *why = NULL;

	if (rtarget == NULL)
		pg_fatal("could not resolve output directory \"%s\": %m", target);
	if (strcmp(rtarget, "/") == 0)
		why = "the root directory";
	else if (rcwd != NULL && path_within(rcwd, rtarget))
		why = "the current directory or one of its parents";
	else if (rkeep != NULL && path_within(rkeep, rtarget))
		why = "the directory that holds the schema config";
	free(rtarget);
	free(cwd);
	free(rcwd);
	free(rkeep);
	if (why == NULL)
		return;
	pg_log_error("output directory \"%s\" is %s: it will not be replaced", target, why);
	pg_log_error_hint("Choose another --output-dir.");
	exit(1);
}

/*
 * outdir_check_target
 *		Refuse a target that exists and is not an empty directory, unless
 *		--force or the user says so on a terminal; never one whose
 *		replacement would remove the current directory or the schema
 *		config (keep, may be NULL).
 */
void
outdir_check_target(const char *target, bool force, bool quiet, const char *keep)
{
	struct stat st;
	int			n;
	char		answer[64];

	if (stat(target, &st) != 0)
	{
		if (errno == ENOENT)
			return;
		pg_fatal("could not access output directory \"%s\": %m", target);
	}
	if (!S_ISDIR(st.st_mode))
	{
		pg_log_error("output path \"%s\" exists and is not a directory", target);
		exit(1);
	}
	n = count_entries(target);
	if (n < 0)
		pg_fatal("could not open output directory \"%s\": %m", target);
	if (n == 0)
		return;
	refuse_precious_target(target, keep);
	if (force)
		return;
	if (!exwiw_interactive())
	{
		pg_log_error("output directory \"%s\" exists and is not empty (%d %s)",
					 target, n, n == 1 ? "entry" : "entries");
		pg_log_error_hint("Use --force to replace it, or choose another --output-dir.");
		exit(1);
	}
	fprintf(stderr, "All contents of the output dir will be removed before export:\n"
			"  %s (%d %s)\nContinue? [y/N]: ", target, n, n == 1 ? "entry" : "entries");
	fflush(stderr);
	if (fgets(answer, sizeof(answer), stdin) == NULL)
		answer[0] = '\0';
	exit_if_cancelled();
	(void) pg_strip_crlf(answer);
	{
		char	   *a = answer;
		char	   *e;

		while (*a == ' ' || *a == '\t')
			a++;
		for (e = a; *e; e++)
			*e = pg_tolower((unsigned char) *e);
		while (e > a && (e[-1] == ' ' || e[-1] == '\t'))
			*--e = '\0';
		if (strcmp(a, "y") == 0 || strcmp(a, "yes") == 0)
			return;
	}
	fprintf(stderr, "Aborted.\n");
	exit(1);
}

/*
 * cleanup_at_exit
 *		Exit handler: an export that was not committed leaves nothing.
 */
static void
cleanup_at_exit(void)
{
	if (!committed)
		outdir_abandon();
}

/*
 * make_parents
 *		mkdir -p of path, remembering the topmost directory created.
 */
static void
make_parents(const char *path)
{
	char	   *p = pg_strdup(path);
	char	   *s;
	struct stat st;

	if (stat(p, &st) == 0)
	{
		if (!S_ISDIR(st.st_mode))
		{
			pg_log_error("could not create output directory: \"%s\" is not a directory", p);
			exit(1);
		}
		return;
	}
	/* find each missing component from the top */
	for (s = p + 1;; s++)
	{
		if (*s == '/' || *s == '\0')
		{
			char		save = *s;

			*s = '\0';
			if (stat(p, &st) != 0)
			{
				/*
				 * Only a directory this mkdir() made is ours to remove on
				 * failure: one that appeared meanwhile (EEXIST) is not.
				 */
				if (mkdir(p, OUTPUT_DIR_MODE) == 0)
				{
					if (created_parent == NULL)
						created_parent = pg_strdup(p);
				}
				else if (errno != EEXIST)
					pg_fatal("could not create directory \"%s\": %m", p);
			}
			else if (!S_ISDIR(st.st_mode))
			{
				pg_log_error("could not create output directory: \"%s\" is not a directory", p);
				exit(1);
			}
			*s = save;
			if (save == '\0')
				break;
		}
	}
	pg_free(p);
}

/*
 * outdir_create_temp
 *		Create the temporary directory next to target; its path.
 */
char *
outdir_create_temp(const char *target)
{
	char	   *abs = resolve_target(target);
	char	   *parent;
	const char *base;
	char	   *tmpl;

	target_abs = abs;
	parent = pg_strdup(abs);
	get_parent_directory(parent);
	base = last_dir_separator(abs) ? last_dir_separator(abs) + 1 : abs;
	if (strcmp(abs, "/") == 0)
	{
		pg_log_error("the output directory cannot be /");
		exit(1);
	}

	atexit(cleanup_at_exit);
	make_parents(parent);

	tmpl = psprintf("%s/.exwiw-%s.XXXXXX", parent, base);
	if (mkdtemp(tmpl) == NULL)
	{
		pg_log_error("could not create a directory next to the output directory \"%s\": %m", target);
		exit(1);
	}
	temp_dir = tmpl;

	/*
	 * mkdtemp makes it 0700, and so it stays while it is filled: nobody else
	 * can add a file, a symbolic link or a FIFO to the export, or read a
	 * half-written file.  outdir_fsync_files gives it its final mode.
	 */
	pg_log_debug("writing into %s", temp_dir);
	return temp_dir;
}

/*
 * fsync_path
 *		fsync a file or a directory, or exit(1).
 */
static void
fsync_path(const char *path, bool isdir)
{
	int			fd = open(path, (isdir ? O_RDONLY : O_RDWR) | PG_BINARY, 0);

	if (fd < 0)
		pg_fatal("could not open \"%s\" to fsync it: %m", path);
	if (fsync(fd) != 0)
		pg_fatal("could not fsync \"%s\": %m", path);
	close(fd);
}

/*
 * outdir_fsync_files
 *		Give the temporary directory its final mode; fsync every file of
 *		it, then the directory.
 *		(stream.c started each file's writeback when it closed it.)
 */
void
outdir_fsync_files(void)
{
	DIR		   *d;
	struct dirent *de;
	mode_t		mask;

	/*
	 * First the mode of a new directory (the umask's, as the Ruby client's
	 * directory got), never writable by others: the files are SQL that is run
	 * later, so whoever may add one may run SQL as the loading user.
	 */
	mask = umask(0);
	umask(mask);
	if (chmod(temp_dir, OUTPUT_DIR_MODE & ~mask) != 0)
		pg_fatal("could not change permissions of \"%s\": %m", temp_dir);

	d = opendir(temp_dir);
	if (d == NULL)
		pg_fatal("could not open directory \"%s\": %m", temp_dir);
	while ((de = readdir(d)) != NULL)
	{
		char	   *path;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		path = psprintf("%s/%s", temp_dir, de->d_name);
		fsync_path(path, false);
		pg_free(path);
	}
	closedir(d);
	fsync_path(temp_dir, true);
}

/*
 * outdir_commit
 *		Put the temporary directory in the target's place.
 */
void
outdir_commit(const char *target)
{
	char	   *abs = target_abs;
	char	   *parent;
	struct stat st;

	parent = pg_strdup(abs);
	get_parent_directory(parent);

	if (lstat(abs, &st) == 0 && S_ISDIR(st.st_mode))
	{
		/* swap them in one step; the old one is then at temp_dir */
		if (renameat2(AT_FDCWD, temp_dir, AT_FDCWD, abs, RENAME_EXCHANGE) == 0)
		{
			committed = true;
			fsync_path(parent, true);
			if (!rmtree(temp_dir, true))
				pg_log_warning("could not remove the previous output directory, now at \"%s\"", temp_dir);
			temp_dir = NULL;
			return;
		}
		if (errno != EINVAL && errno != ENOSYS)
			pg_fatal("could not rename \"%s\" to \"%s\": %m", temp_dir, abs);
		else
		{
			/* no exchange here: move the old one aside first */
			char	   *old = psprintf("%s/.exwiw-old-%d", parent, (int) getpid());

			if (rename(abs, old) != 0)
				pg_fatal("could not rename \"%s\" to \"%s\": %m", abs, old);
			if (rename(temp_dir, abs) != 0)
			{
				int			save = errno;

				(void) rename(old, abs);
				errno = save;
				pg_fatal("could not rename \"%s\" to \"%s\": %m", temp_dir, abs);
			}
			committed = true;
			temp_dir = NULL;
			fsync_path(parent, true);
			if (!rmtree(old, true))
				pg_log_warning("could not remove the previous output directory, now at \"%s\"", old);
			return;
		}
	}
	if (rename(temp_dir, abs) != 0)
		pg_fatal("could not rename \"%s\" to \"%s\": %m", temp_dir, abs);
	committed = true;
	temp_dir = NULL;
	fsync_path(parent, true);
}

/*
 * outdir_abandon
 *		Remove the temporary directory and the parents we created.
 */
void
outdir_abandon(void)
{
	if (temp_dir != NULL)
	{
		(void) rmtree(temp_dir, true);
		temp_dir = NULL;
	}
	if (created_parent != NULL)
	{
		(void) rmtree(created_parent, true);
		created_parent = NULL;
	}
}
