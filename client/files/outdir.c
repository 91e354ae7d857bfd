/*-------------------------------------------------------------------------
 *
 * outdir.c
 *	  The output directory, written atomically.
 *
 * The files are written into a temporary directory next to the target
 * (".exwiw-<name>.XXXXXX" in the same parent, so that a rename moves it),
 * and the temporary directory replaces the target only when every file is
 * complete and fsynced: an existing target that the user agreed to replace
 * is swapped with it in one step (renameat2 RENAME_EXCHANGE; two renames
 * where the file system cannot), then removed.  A failed, killed or
 * cancelled run never leaves a half directory under the target's name: an
 * exit handler removes the temporary directory, and any parent directories
 * this run created, unless the export was committed.
 *
 * Others may write the parent directory (exwiw -o shared/dump), and so move
 * or replace the temporary directory, the target or a parent we created at
 * any time.  So the parent directory is opened once, and everything after
 * is relative to a directory descriptor: the temporary directory is made
 * with mkdirat and opened with O_NOFOLLOW | O_DIRECTORY, the files are
 * created through its descriptor, and a name is renamed or removed only
 * when fstatat (AT_SYMLINK_NOFOLLOW) shows the device and inode that were
 * created (or checked).  A removal never follows a symbolic link: a link
 * is removed, not what it points to.  A temporary directory swapped for a
 * link to another directory: the export fails, our files are removed from
 * our directory, wherever it went, and the link and its target are left
 * alone.
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
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/string.h"

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

/* A directory or file this run created: its name in directory parent_fd. */
typedef struct CreatedEntry
{
	int			parent_fd;
	char	   *name;
	dev_t		dev;
	ino_t		ino;
} CreatedEntry;

static char *temp_dir = NULL;	/* the temporary directory, for messages */
static char *temp_name = NULL;	/* its name in parent_fd, while it is ours */
static int	temp_fd = -1;		/* it, opened when created */
static struct stat temp_st;		/* its device and inode */
static int	parent_fd = -1;		/* the target's parent directory */
static char *parent_path = NULL;	/* its path, for messages */
static CreatedEntry *created_dirs = NULL;	/* parents we created, top first */
static int	ncreated = 0;
static CreatedEntry *created_files = NULL;	/* files made in temp_fd */
static int	nfiles = 0;
static char *target_abs = NULL; /* the target, absolute, symlink resolved */
static bool replace_approved = false;	/* a non-empty target may go */
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
	replace_approved = true;
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
 * same_entry
 *		Whether name in directory dir is, without following a link, the
 *		file or directory of that device and inode.
 */
static bool
same_entry(int dir, const char *name, dev_t dev, ino_t ino)
{
	struct stat st;

	return fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		st.st_dev == dev && st.st_ino == ino;
}

/*
 * list_names
 *		The entry names of the directory open at dir ("." and ".." left
 *		out), NULL-terminated, malloc'd; NULL with errno set on error.  The
 *		listing reads a descriptor of its own.
 */
static char **
list_names(int dir)
{
	int			fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR		   *d;
	struct dirent *de;
	char	  **names;
	int			n = 0;
	int			max = 16;

	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (d == NULL)
	{
		close(fd);
		return NULL;
	}
	names = pg_malloc(sizeof(char *) * (max + 1));
	while ((de = readdir(d)) != NULL)
	{
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (n == max)
		{
			max *= 2;
			names = pg_realloc(names, sizeof(char *) * (max + 1));
		}
		names[n++] = pg_strdup(de->d_name);
	}
	names[n] = NULL;
	closedir(d);
	return names;
}

static bool remove_tree_at(int dir, const char *name, dev_t dev, ino_t ino);

/*
 * empty_dir
 *		Remove everything in the directory open at dir: files and links are
 *		unlinked (a link, never what it points to), directories removed with
 *		what they hold, each only if it is still the directory that was
 *		looked at.  Returns false if something stayed.
 */
static bool
empty_dir(int dir)
{
	char	  **names = list_names(dir);
	bool		ok = true;
	int			i;

	if (names == NULL)
		return false;
	for (i = 0; names[i] != NULL; i++)
	{
		struct stat st;

		if (fstatat(dir, names[i], &st, AT_SYMLINK_NOFOLLOW) != 0)
		{
			if (errno != ENOENT)
				ok = false;
		}
		else if (S_ISDIR(st.st_mode))
		{
			if (!remove_tree_at(dir, names[i], st.st_dev, st.st_ino))
				ok = false;
		}
		else if (unlinkat(dir, names[i], 0) != 0 && errno != ENOENT)
			ok = false;
		pg_free(names[i]);
	}
	pg_free(names);
	return ok;
}

/*
 * remove_tree_at
 *		Remove directory name of dir and all it holds, if it is (links not
 *		followed) the directory of dev and ino: opened with O_NOFOLLOW,
 *		emptied through that descriptor, then removed if its name still
 *		holds it.  Returns false with errno set if anything stayed.
 */
static bool
remove_tree_at(int dir, const char *name, dev_t dev, ino_t ino)
{
	int			fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	bool		ok;

	if (fd < 0)
		return false;
	if (fstat(fd, &st) != 0 || st.st_dev != dev || st.st_ino != ino)
	{
		close(fd);
		errno = ESTALE;
		return false;
	}
	ok = empty_dir(fd);
	close(fd);
	if (!ok)
		return false;
	if (!same_entry(dir, name, dev, ino))
	{
		errno = ESTALE;
		return false;
	}
	return unlinkat(dir, name, AT_REMOVEDIR) == 0;
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
 * open_parents
 *		Open directory path (absolute), creating what is missing of it
 *		(mkdir -p) with mkdirat, one component after the other, each
 *		relative to the one above.  The user's path is followed as it is,
 *		symbolic links included; below a directory this run created,
 *		nothing is followed (O_NOFOLLOW).  Every directory created is
 *		remembered with its device and inode, for outdir_abandon.  Returns
 *		the descriptor of path.
 */
static int
open_parents(const char *path)
{
	char	   *p = pg_strdup(path);
	char	   *s = p;
	int			fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		pg_fatal("could not open directory \"/\": %m");
	while (*s != '\0')
	{
		char	   *comp;
		char	   *end;
		char		save;
		int			next;
		int			nofollow = ncreated > 0 ? O_NOFOLLOW : 0;
		struct stat st;

		while (*s == '/')
			s++;
		if (*s == '\0')
			break;
		comp = s;
		for (end = s; *end != '\0' && *end != '/'; end++)
			;
		save = *end;
		*end = '\0';
		next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_CLOEXEC | nofollow);
		if (next < 0 && errno == ENOENT)
		{
			/*
			 * Only a directory this mkdirat made is ours to remove on
			 * failure: one that appeared meanwhile (EEXIST) is not.
			 */
			if (mkdirat(fd, comp, OUTPUT_DIR_MODE) == 0)
			{
				next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				if (next >= 0 && fstat(next, &st) == 0)
				{
					created_dirs = pg_realloc(created_dirs,
											  sizeof(CreatedEntry) * (ncreated + 1));
					created_dirs[ncreated].parent_fd = fd;
					created_dirs[ncreated].name = pg_strdup(comp);
					created_dirs[ncreated].dev = st.st_dev;
					created_dirs[ncreated].ino = st.st_ino;
					ncreated++;
				}
			}
			else if (errno == EEXIST)
				next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_CLOEXEC | nofollow);
			else
				pg_fatal("could not create directory \"%s\": %m", p);
		}
		if (next < 0)
		{
			if (errno == ENOTDIR)
			{
				pg_log_error("could not create output directory: \"%s\" is not a directory", p);
				exit(1);
			}
			pg_fatal("could not open directory \"%s\": %m", p);
		}
		/* the parent of a directory we created stays open for its removal */
		if (ncreated == 0 || created_dirs[ncreated - 1].parent_fd != fd)
			close(fd);
		fd = next;
		*end = save;
		s = end;
	}
	pg_free(p);
	return fd;
}

/*
 * outdir_create_temp
 *		Create the temporary directory next to target, mode 0700, with a
 *		random name, through the parent directory's descriptor, and open
 *		it; its path (for messages: files are created through
 *		outdir_temp_fd).
 */
char *
outdir_create_temp(const char *target)
{
	char	   *abs = resolve_target(target);
	char	   *parent;
	const char *base;
	int			tries;

	target_abs = abs;
	parent = pg_strdup(abs);
	get_parent_directory(parent);
	if (parent[0] == '\0')
		strcpy(parent, "/");
	base = last_dir_separator(abs) ? last_dir_separator(abs) + 1 : abs;
	if (strcmp(abs, "/") == 0)
	{
		pg_log_error("the output directory cannot be /");
		exit(1);
	}

	atexit(cleanup_at_exit);
	parent_fd = open_parents(parent);
	parent_path = parent;

	for (tries = 0;; tries++)
	{
		static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
		unsigned char rnd[6];
		char		suffix[7];
		char	   *name;
		int			i;

		if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd))
			pg_fatal("could not generate a random name: %m");
		for (i = 0; i < 6; i++)
			suffix[i] = chars[rnd[i] % (sizeof(chars) - 1)];
		suffix[6] = '\0';
		name = psprintf(".exwiw-%s.%s", base, suffix);
		if (mkdirat(parent_fd, name, 0700) == 0)
		{
			temp_name = name;
			break;
		}
		if (errno != EEXIST || tries >= 100)
		{
			pg_log_error("could not create a directory next to the output directory \"%s\": %m", target);
			exit(1);
		}
		pg_free(name);
	}
	temp_dir = psprintf("%s/%s", strcmp(parent, "/") == 0 ? "" : parent, temp_name);

	/*
	 * Opened without following a link, and ours (another user's directory
	 * swapped in at once would not be): from here on, the files go through
	 * this descriptor, wherever the directory is moved.
	 */
	temp_fd = openat(parent_fd, temp_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (temp_fd < 0 || fstat(temp_fd, &temp_st) != 0 || temp_st.st_uid != geteuid())
	{
		if (temp_fd >= 0)
			close(temp_fd);
		temp_fd = -1;
		temp_name = NULL;
		pg_log_error("the temporary directory \"%s\" was replaced as it was created", temp_dir);
		pg_log_error_detail("Someone else can write \"%s\"; what is there is left alone.", parent);
		exit(1);
	}

	/*
	 * mkdirat makes it 0700, and so it stays while it is filled: nobody else
	 * can add a file, a symbolic link or a FIFO to the export, or read a
	 * half-written file.  outdir_fsync_files gives it its final mode.
	 */
	pg_log_debug("writing into %s", temp_dir);
	return temp_dir;
}

/*
 * outdir_temp_fd
 *		The descriptor of the temporary directory: files of the export are
 *		created with outdir_create_file and read relative to it.
 */
int
outdir_temp_fd(void)
{
	Assert(temp_fd >= 0);
	return temp_fd;
}

/*
 * outdir_create_file
 *		Create file name, new (O_EXCL, O_NOFOLLOW), in the temporary
 *		directory through its descriptor, with mode; remember its device
 *		and inode for outdir_abandon.  Its descriptor, or -1 with errno set.
 */
int
outdir_create_file(const char *name, mode_t mode)
{
	int			fd = openat(temp_fd, name,
							O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | PG_BINARY,
							mode);
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0)
		pg_fatal("could not stat \"%s/%s\": %m", temp_dir, name);
	created_files = pg_realloc(created_files, sizeof(CreatedEntry) * (nfiles + 1));
	created_files[nfiles].parent_fd = temp_fd;
	created_files[nfiles].name = pg_strdup(name);
	created_files[nfiles].dev = st.st_dev;
	created_files[nfiles].ino = st.st_ino;
	nfiles++;
	return fd;
}

/*
 * outdir_remove_file
 *		Remove file name of the temporary directory, made by
 *		outdir_create_file, if it is still the file made.
 */
void
outdir_remove_file(const char *name)
{
	int			i;

	for (i = 0; i < nfiles; i++)
	{
		CreatedEntry *f = &created_files[i];

		if (f->name != NULL && strcmp(f->name, name) == 0)
		{
			if (same_entry(temp_fd, name, f->dev, f->ino))
				(void) unlinkat(temp_fd, name, 0);
			pg_free(f->name);
			f->name = NULL;
		}
	}
}

/*
 * outdir_fsync_files
 *		Give the temporary directory its final mode; fsync every file of
 *		it, then the directory, all through its descriptor.
 *		(stream.c started each file's writeback when it closed it.)
 */
void
outdir_fsync_files(void)
{
	char	  **names;
	mode_t		mask;
	int			i;

	/*
	 * First the mode of a new directory (the umask's, as the Ruby client's
	 * directory got), never writable by others: the files are SQL that is run
	 * later, so whoever may add one may run SQL as the loading user.
	 */
	mask = umask(0);
	umask(mask);
	if (fchmod(temp_fd, OUTPUT_DIR_MODE & ~mask) != 0)
		pg_fatal("could not change permissions of \"%s\": %m", temp_dir);

	names = list_names(temp_fd);
	if (names == NULL)
		pg_fatal("could not open directory \"%s\": %m", temp_dir);
	for (i = 0; names[i] != NULL; i++)
	{
		int			fd = openat(temp_fd, names[i], O_RDWR | O_NOFOLLOW | O_CLOEXEC | PG_BINARY);

		if (fd < 0)
			pg_fatal("could not open \"%s/%s\" to fsync it: %m", temp_dir, names[i]);
		if (fsync(fd) != 0)
			pg_fatal("could not fsync \"%s/%s\": %m", temp_dir, names[i]);
		close(fd);
		pg_free(names[i]);
	}
	pg_free(names);
	if (fsync(temp_fd) != 0)
		pg_fatal("could not fsync \"%s\": %m", temp_dir);
}

/*
 * fsync_parent
 *		fsync the parent directory after a rename in it, or exit(1).
 */
static void
fsync_parent(void)
{
	if (fsync(parent_fd) != 0)
		pg_fatal("could not fsync the directory of \"%s\": %m", target_abs);
}

/*
 * remove_previous
 *		Remove the previous output directory, now at name in the parent
 *		directory, if it is the directory of st: a warning otherwise.
 */
static void
remove_previous(const char *name, const struct stat *st)
{
	if (!remove_tree_at(parent_fd, name, st->st_dev, st->st_ino))
		pg_log_warning("could not remove the previous output directory, now at \"%s/%s\": %m",
					   strcmp(parent_path, "/") == 0 ? "" : parent_path, name);
}

/*
 * replaced_exit
 *		The temporary name no longer holds our directory: say so and exit
 *		(the exit handler removes our files through the descriptor, and
 *		leaves what is at the name now alone).
 */
static void
replaced_exit(void)
{
	pg_log_error("the temporary directory \"%s\" was moved or replaced while the export ran", temp_dir);
	pg_log_error_detail("Someone else can write the directory of \"%s\"; the export's files are removed, and nothing else is touched.",
						target_abs);
	pg_log_error_hint("Choose an --output-dir whose parent only you can write.");
	exit(1);
}

/*
 * outdir_commit
 *		Put the temporary directory in the target's place, if its name
 *		still holds the directory we created.
 */
void
outdir_commit(const char *target)
{
	const char *base = last_dir_separator(target_abs) ? last_dir_separator(target_abs) + 1 : target_abs;
	struct stat st;

	if (!same_entry(parent_fd, temp_name, temp_st.st_dev, temp_st.st_ino))
		replaced_exit();

	if (replace_approved && fstatat(parent_fd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		S_ISDIR(st.st_mode))
	{
		/* swap them in one step; the old one is then at temp_name */
		if (renameat2(parent_fd, temp_name, parent_fd, base, RENAME_EXCHANGE) == 0)
		{
			char	   *old = temp_name;

			committed = true;
			temp_name = NULL;
			fsync_parent();
			remove_previous(old, &st);
			return;
		}
		if (errno != EINVAL && errno != ENOSYS)
		{
			int			save = errno;

			if (!same_entry(parent_fd, temp_name, temp_st.st_dev, temp_st.st_ino))
				replaced_exit();
			errno = save;
			pg_fatal("could not rename \"%s\" to \"%s\": %m", temp_dir, target_abs);
		}
		else
		{
			/* no exchange here: move the old one aside first */
			char	   *old = psprintf(".exwiw-old-%d", (int) getpid());

			if (renameat(parent_fd, base, parent_fd, old) != 0)
				pg_fatal("could not move \"%s\" aside: %m", target_abs);
			if (renameat(parent_fd, temp_name, parent_fd, base) != 0)
			{
				int			save = errno;

				(void) renameat(parent_fd, old, parent_fd, base);
				errno = save;
				pg_fatal("could not rename \"%s\" to \"%s\": %m", temp_dir, target_abs);
			}
			committed = true;
			temp_name = NULL;
			fsync_parent();
			remove_previous(old, &st);
			return;
		}
	}
	if (renameat(parent_fd, temp_name, parent_fd, base) != 0)
	{
		int			save = errno;

		if (!same_entry(parent_fd, temp_name, temp_st.st_dev, temp_st.st_ino))
			replaced_exit();
		errno = save;
		if (errno == EEXIST || errno == ENOTEMPTY)
		{
			pg_log_error("output directory \"%s\" was created by someone else while the export ran", target);
			pg_log_error_hint("Remove it, or use --force to replace it.");
			exit(1);
		}
		pg_fatal("could not rename \"%s\" to \"%s\": %m", temp_dir, target_abs);
	}
	committed = true;
	temp_name = NULL;
	fsync_parent();
}

/*
 * outdir_abandon
 *		Remove the temporary directory and the parents we created: the
 *		files we made, through the temporary directory's descriptor (our
 *		directory, wherever it is now) and each only if its name still
 *		holds the file made; then each directory, only if it is empty and
 *		its name still holds the one we created.  What someone else put in
 *		their place is left alone.
 */
void
outdir_abandon(void)
{
	int			i;

	if (temp_fd >= 0)
	{
		/* our directory, wherever it is now: the files we made in it */
		for (i = 0; i < nfiles; i++)
		{
			CreatedEntry *f = &created_files[i];

			if (f->name != NULL && same_entry(temp_fd, f->name, f->dev, f->ino))
				(void) unlinkat(temp_fd, f->name, 0);
		}
		nfiles = 0;
		close(temp_fd);
		temp_fd = -1;
	}
	if (temp_name != NULL)
	{
		if (same_entry(parent_fd, temp_name, temp_st.st_dev, temp_st.st_ino))
			(void) unlinkat(parent_fd, temp_name, AT_REMOVEDIR);
		else
			pg_log_warning("the temporary directory \"%s\" was moved or replaced by someone else: what is there now is left alone",
						   temp_dir);
		temp_name = NULL;
	}
	/* bottom up; one that is not empty (not only ours) stays */
	for (i = ncreated - 1; i >= 0; i--)
	{
		CreatedEntry *c = &created_dirs[i];

		if (same_entry(c->parent_fd, c->name, c->dev, c->ino))
			(void) unlinkat(c->parent_fd, c->name, AT_REMOVEDIR);
	}
	ncreated = 0;
}
