/*-------------------------------------------------------------------------
 *
 * file_sink.c
 *	  An atomic output on the server: one file, or one directory of files,
 *	  that appears under its final name only when it is complete.
 *
 * Who may write: superusers and members of pg_write_server_files, the rule
 * of COPY ... TO 'file'.  Where: an absolute path whose parent directory
 * exists, outside the server's data directory and its tablespaces (in
 * both directions: neither inside them nor containing them).  An existing
 * file, or a directory that is not empty, is refused unless overwrite is
 * true; a directory is then replaced only if it holds nothing but files
 * exwiw writes (insert-*, regular files with a single link), so that
 * overwrite cannot empty an unrelated directory.
 *
 * How:
 *
 *	1. a file is written under a temporary name in the directory of its
 *	   final name, ".<name>.exwiw-tmp.<pid>.<n>"; a directory export is
 *	   a temporary directory of that name next to the final one, holding
 *	   the files under their final names;
 *	2. every file is fsynced when written (pg_flush_data starts the
 *	   writeback every few megabytes, so the final fsync has little left
 *	   to do), then the temporary directory itself;
 *	3. rename into place (no-replace when overwrite is false, an atomic
 *	   exchange to replace a non-empty directory), then fsync of the
 *	   parent directory.
 *
 * As everywhere in the server, fsync = off makes the fsyncs no-ops.
 *
 * Names that others can change: the parent directory may be writable by
 * other OS users, who can move, replace or add entries in it at any time.
 * So the parent directory is opened once, and every operation after that
 * is relative to a directory descriptor: the temporary directory is made
 * with mkdirat and opened with O_NOFOLLOW | O_DIRECTORY, its files are
 * created through that descriptor (O_EXCL | O_NOFOLLOW), and the device and
 * inode of everything created are kept.  Before a name is renamed or
 * removed, fstatat (AT_SYMLINK_NOFOLLOW) must show the device and inode we
 * created; otherwise it is left alone.  No symbolic link is ever followed
 * below the parent directory (the user's own path up to it is).  So a
 * temporary directory swapped for a symbolic link makes the export fail,
 * and its cleanup removes our files from our directory, wherever it was
 * moved, and nothing else.
 *
 * Cleanup: every output in progress is on a list with the subtransaction
 * that began it.  A transaction or subtransaction abort (an error, a
 * cancel, statement_timeout, a terminated backend) removes the temporary
 * file or directory of the outputs it owns: nothing is left under the
 * final names, and nothing under the temporary ones.  Only a crash of the
 * server can leave a temporary name behind; its ".exwiw-tmp." tells it.
 *
 * Like COPY TO, the output is not transactional once complete: a ROLLBACK
 * after the function returned does not remove it.  Files are created with
 * the server's file mode (0600, or 0640 with group access), owned by the
 * server's OS user, as COPY TO's are.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"

#include "sink/sink.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access/xact.h"
#include "catalog/pg_authid.h"
#include "common/file_perm.h"
#include "lib/ilist.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/acl.h"
#include "utils/memutils.h"
#include "utils/wait_event.h"

/* Start the writeback of a file every this many bytes. */
#define FLUSH_EVERY		(8 * 1024 * 1024)

/* A file an output created in its temporary directory. */
typedef struct OutputFile
{
	char	   *name;
	dev_t		dev;
	ino_t		ino;
} OutputFile;

/* An entry of a directory, as fstatat (AT_SYMLINK_NOFOLLOW) saw it. */
typedef struct DirEntry
{
	char	   *name;
	struct stat st;
} DirEntry;

struct ExwiwOutput
{
	char	   *path;			/* final name */
	char	   *tmp;			/* temporary name (full path, for messages) */
	char	   *parent;			/* the directory of both */
	char	   *base;			/* final name in parent_fd */
	char	   *tmp_base;		/* temporary name in parent_fd */
	int			parent_fd;		/* the parent directory, or -1 */
	int			dir_fd;			/* the temporary directory, or -1 */
	bool		created;		/* tmp_dev/tmp_ino are what we created */
	bool		replaced;		/* someone moved it: the error said so */
	dev_t		tmp_dev;		/* of the temporary file or directory */
	ino_t		tmp_ino;
	OutputFile *files;			/* the files created in dir_fd */
	int			nfiles;
	int			maxfiles;
	bool		is_dir;
	bool		overwrite;
	bool		replace_dir;	/* a non-empty directory is to be replaced */
	int			fd;				/* file being written, or -1 */
	char	   *file_path;		/* its name as the user will see it */
	uint64		bytes;			/* bytes written to it */
	uint64		flushed;		/* up to where writeback was started */
	SubTransactionId subid;		/* subtransaction that owns the output */
	dlist_node	node;			/* in pending_outputs */
};

/* Outputs in progress, for the (sub)transaction callbacks. */
static dlist_head pending_outputs = DLIST_STATIC_INIT(pending_outputs);
static bool callbacks_registered = false;
static uint32 tmp_counter = 0;

/*
 * exwiw_sink_check_privilege
 *		Error out unless the caller may write server files: a superuser or
 *		a member of pg_write_server_files (as for COPY ... TO 'file').
 */
void
exwiw_sink_check_privilege(const char *funcname)
{
	if (!has_privs_of_role(GetUserId(), ROLE_PG_WRITE_SERVER_FILES))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to write files on the server"),
				 errdetail("Only roles with privileges of the \"pg_write_server_files\" role may call %s, as for COPY ... TO a file.",
						   funcname),
				 errhint("GRANT pg_write_server_files TO the role, or write the file with psql from the client.")));
}

/*
 * real_path
 *		realpath() of an existing path, palloc'd, or NULL.
 */
static char *
real_path(const char *path)
{
	char		buf[PATH_MAX];

	if (realpath(path, buf) == NULL)
		return NULL;
	return pstrdup(buf);
}

/*
 * paths_overlap
 *		True when a is b, is inside b, or contains b.
 */
static bool
paths_overlap(const char *a, const char *b)
{
	return path_is_prefix_of_path(a, b) || path_is_prefix_of_path(b, a);
}

/*
 * refuse_server_path
 *		Error out when resolved overlaps the data directory or a
 *		tablespace (whose locations are the links in pg_tblspc).
 */
static void
refuse_server_path(const char *path, const char *resolved)
{
	char	   *data = real_path(DataDir);
	char		tsdir[MAXPGPATH];
	DIR		   *dir;
	struct dirent *de;

	if (data == NULL)
		data = pstrdup(DataDir);
	if (paths_overlap(resolved, data))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("cannot write \"%s\": it overlaps the server's data directory", path),
				 errdetail("Exports are never written into the data directory, nor into a directory that contains it.")));

	snprintf(tsdir, sizeof(tsdir), "%s/pg_tblspc", DataDir);
	dir = AllocateDir(tsdir);
	while ((de = ReadDir(dir, tsdir)) != NULL)
	{
		char		link[MAXPGPATH];
		char	   *loc;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(link, sizeof(link), "%s/%s", tsdir, de->d_name);
		loc = real_path(link);
		if (loc != NULL && paths_overlap(resolved, loc))
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("cannot write \"%s\": it overlaps the location of tablespace %s",
							path, de->d_name),
					 errdetail("Exports are never written into a tablespace, nor into a directory that contains one.")));
	}
	FreeDir(dir);
}

/*
 * exwiw_sink_check_path
 *		Check a path argument: absolute, its parent an existing directory,
 *		not "/", clear of the data directory and the tablespaces.  Returns
 *		the path canonicalized (no "//", "/./", "..", trailing "/").
 */
char *
exwiw_sink_check_path(const char *path, const char *argname)
{
	char	   *canon;
	char	   *parent;
	char	   *parent_real;
	const char *base;
	char	   *resolved;

	if (!is_absolute_path(path))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_NAME),
				 errmsg("relative path not allowed for %s \"%s\"", argname, path),
				 errhint("Give an absolute path on the database server, such as /var/backups/exwiw/orders.sql.")));
	canon = pstrdup(path);
	canonicalize_path(canon);
	if (strcmp(canon, "/") == 0 || path_contains_parent_reference(canon))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_NAME),
				 errmsg("invalid %s \"%s\"", argname, path),
				 errdetail("The path must name a file or directory below \"/\".")));

	parent = pstrdup(canon);
	get_parent_directory(parent);
	if (parent[0] == '\0')
		strcpy(parent, "/");
	base = canon + strlen(parent) + (strcmp(parent, "/") == 0 ? 0 : 1);
	parent_real = real_path(parent);
	if (parent_real == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not access directory \"%s\": %m", parent),
				 errhint("Create the directory on the database server first; %s names a new entry in it.",
						 argname)));
	resolved = psprintf("%s/%s", strcmp(parent_real, "/") == 0 ? "" : parent_real, base);
	refuse_server_path(canon, resolved);
	/* a symbolic link to a directory would resolve there: check that too */
	{
		char	   *target = real_path(canon);

		if (target != NULL)
			refuse_server_path(canon, target);
	}
	return canon;
}

/*
 * split_path
 *		The parent directory of path (checked by exwiw_sink_check_path) and
 *		its last component, both palloc'd.
 */
static void
split_path(const char *path, char **parent, char **base)
{
	char	   *p = pstrdup(path);

	get_parent_directory(p);
	if (p[0] == '\0')
		strcpy(p, "/");
	*parent = p;
	*base = pstrdup(path + strlen(p) + (strcmp(p, "/") == 0 ? 0 : 1));
}

/*
 * open_at
 *		openat() that tells fd.c about the descriptor (ReserveExternalFD
 *		closes a cached file when the backend is at its limit).  Close it
 *		with close_fd.  Returns -1 with errno set on failure.
 */
static int
open_at(int dirfd, const char *name, int flags, mode_t mode)
{
	int			fd;

	ReserveExternalFD();
	fd = openat(dirfd, name, flags | O_CLOEXEC, mode);
	if (fd < 0)
	{
		int			save = errno;

		ReleaseExternalFD();
		errno = save;
	}
	return fd;
}

/*
 * close_fd
 *		Close a descriptor of open_at, if open; returns close()'s result.
 *		errno is kept on success.
 */
static int
close_fd(int fd)
{
	int			rc;
	int			save = errno;

	if (fd < 0)
		return 0;
	rc = close(fd);
	if (rc == 0)
		errno = save;
	ReleaseExternalFD();
	return rc;
}

/*
 * same_entry
 *		Whether name in directory dirfd is, without following a link, the
 *		file or directory of that device and inode.
 */
static bool
same_entry(int dirfd, const char *name, dev_t dev, ino_t ino)
{
	struct stat st;

	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		st.st_dev == dev && st.st_ino == ino;
}

/*
 * scan_dir
 *		The entries of the directory open at dirfd ("." and ".." left out),
 *		each with fstatat's view of it (links not followed); palloc'd.
 *		Returns how many, or -1 with errno set.  The descriptor is not
 *		moved: the listing reads a descriptor of its own.
 */
static int
scan_dir(int dirfd, DirEntry **entries)
{
	int			fd = open_at(dirfd, ".", O_RDONLY | O_DIRECTORY, 0);
	DIR		   *dir;
	struct dirent *de;
	int			n = 0;
	int			max = 16;
	DirEntry   *e;

	if (fd < 0)
		return -1;
	dir = fdopendir(fd);
	if (dir == NULL)
	{
		close_fd(fd);
		return -1;
	}
	e = palloc(sizeof(DirEntry) * max);
	errno = 0;
	while ((de = readdir(dir)) != NULL)
	{
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (n == max)
		{
			max *= 2;
			e = repalloc(e, sizeof(DirEntry) * max);
		}
		e[n].name = pstrdup(de->d_name);
		if (fstatat(dirfd, de->d_name, &e[n].st, AT_SYMLINK_NOFOLLOW) != 0)
		{
			/* gone meanwhile: not there */
			if (errno == ENOENT)
			{
				errno = 0;
				continue;
			}
			break;
		}
		n++;
		errno = 0;
	}
	if (errno != 0)
	{
		int			save = errno;

		closedir(dir);
		ReleaseExternalFD();
		errno = save;
		return -1;
	}
	closedir(dir);
	ReleaseExternalFD();
	*entries = e;
	return n;
}

/*
 * is_export_name
 *		Whether name is one that exwiw gives its files: insert-* or
 *		delete-*.
 */
static bool
is_export_name(const char *name)
{
	return strncmp(name, "insert-", 7) == 0 || strncmp(name, "delete-", 7) == 0;
}

/*
 * is_export_file
 *		Whether a directory entry is one that exwiw writes: a regular file
 *		named insert-* or delete-* with no other hard link.
 */
static bool
is_export_file(const char *name, const struct stat *st)
{
	return is_export_name(name) && S_ISREG(st->st_mode) && st->st_nlink == 1;
}

/*
 * foreign_entry
 *		The first entry that exwiw did not write (see is_export_file), or
 *		NULL.
 */
static DirEntry *
foreign_entry(DirEntry *e, int n)
{
	int			i;

	for (i = 0; i < n; i++)
		if (!is_export_file(e[i].name, &e[i].st))
			return &e[i];
	return NULL;
}

/*
 * foreign_entry_detail
 *		errdetail of a directory refused for holding entry e, which exwiw
 *		did not write; what is the rule that names what is done instead.
 */
static int
foreign_entry_detail(DirEntry *e, const char *what)
{
	if (is_export_name(e->name) && S_ISREG(e->st.st_mode))
		return errdetail("\"%s\" has %lu hard links, and a file exwiw writes has one; %s.",
						 e->name, (unsigned long) e->st.st_nlink, what);
	return errdetail("\"%s\" is not a file named insert-* or delete-*; %s.", e->name, what);
}

/*
 * unlink_export_file
 *		Remove file name of directory dirfd if it is still, without
 *		following a link, the regular single-link file of dev and ino.
 *		Returns false with errno set (ESTALE: it is another file now)
 *		otherwise.
 */
static bool
unlink_export_file(int dirfd, const char *name, dev_t dev, ino_t ino)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return false;
	if (st.st_dev != dev || st.st_ino != ino || !is_export_file(name, &st))
	{
		errno = ESTALE;
		return false;
	}
	return unlinkat(dirfd, name, 0) == 0;
}

/*
 * refuse_server_fd
 *		Error out when the directory open at fd is the data directory or a
 *		tablespace's location, or is inside one.  Its ancestors are walked
 *		up through ".." by device and inode, so that a directory on the
 *		path swapped for a link after exwiw_sink_check_path looked at it
 *		cannot lead there.  path names the output, for the message.
 */
static void
refuse_server_fd(int fd, const char *path)
{
#ifdef O_PATH
	const int	walk_flags = O_PATH | O_DIRECTORY;
#else
	const int	walk_flags = O_RDONLY | O_DIRECTORY;
#endif
	struct stat *server;
	int			nserver = 0;
	char		tsdir[MAXPGPATH];
	DIR		   *dir;
	struct dirent *de;
	int			cur;
	int			depth;

	/* the data directory and every tablespace location, by device and inode */
	snprintf(tsdir, sizeof(tsdir), "%s/pg_tblspc", DataDir);
	server = palloc(sizeof(struct stat));
	if (stat(DataDir, &server[0]) == 0)
		nserver++;
	dir = AllocateDir(tsdir);
	while ((de = ReadDir(dir, tsdir)) != NULL)
	{
		char		link[MAXPGPATH];

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(link, sizeof(link), "%s/%s", tsdir, de->d_name);
		server = repalloc(server, sizeof(struct stat) * (nserver + 1));
		if (stat(link, &server[nserver]) == 0)
			nserver++;
	}
	FreeDir(dir);

	cur = open_at(fd, ".", walk_flags, 0);
	for (depth = 0; cur >= 0 && depth < MAXPGPATH; depth++)
	{
		struct stat st;
		struct stat up_st;
		int			up;
		int			i;

		if (fstat(cur, &st) != 0)
			break;
		for (i = 0; i < nserver; i++)
		{
			if (st.st_dev == server[i].st_dev && st.st_ino == server[i].st_ino)
			{
				close_fd(cur);
				ereport(ERROR,
						(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
						 errmsg("cannot write \"%s\": its directory is in the server's data directory or a tablespace", path),
						 errdetail("A directory on the path was replaced by a link after the path was checked.")));
			}
		}
		up = open_at(cur, "..", walk_flags, 0);
		if (up < 0 || fstat(up, &up_st) != 0 ||
			(up_st.st_dev == st.st_dev && up_st.st_ino == st.st_ino))
		{
			/* the root, or as far as we may look */
			close_fd(up);
			break;
		}
		close_fd(cur);
		cur = up;
	}
	close_fd(cur);
	pfree(server);
}

/*
 * cleanup_output
 *		Close the output's descriptors and remove what it created: its
 *		files, each only if its name still holds the file created, then the
 *		temporary directory, or the temporary file, only if its name still
 *		holds what was created.  Anything else (a symbolic link swapped in
 *		for the temporary directory, a directory moved there) is left alone:
 *		no link is followed.  Called on abort, where errors cannot be
 *		raised: a failure is a WARNING.  Frees the output.
 */
static void
cleanup_output(ExwiwOutput *out)
{
	int			i;

	close_fd(out->fd);
	out->fd = -1;
	if (out->dir_fd >= 0)
	{
		/* our directory, wherever it is now */
		for (i = 0; i < out->nfiles; i++)
		{
			OutputFile *f = &out->files[i];

			if (same_entry(out->dir_fd, f->name, f->dev, f->ino))
			{
				if (unlinkat(out->dir_fd, f->name, 0) != 0)
					ereport(WARNING,
							(errcode_for_file_access(),
							 errmsg("could not remove temporary file \"%s/%s\": %m",
									out->tmp, f->name)));
			}
		}
		close_fd(out->dir_fd);
		out->dir_fd = -1;
	}
	if (out->created)
	{
		if (same_entry(out->parent_fd, out->tmp_base, out->tmp_dev, out->tmp_ino))
		{
			if (unlinkat(out->parent_fd, out->tmp_base,
						 out->is_dir ? AT_REMOVEDIR : 0) != 0)
				ereport(WARNING,
						(errcode_for_file_access(),
						 out->is_dir ?
						 errmsg("could not remove temporary directory \"%s\": %m", out->tmp) :
						 errmsg("could not remove temporary file \"%s\": %m", out->tmp)));
		}
		else if (!out->replaced)
			ereport(WARNING,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 out->is_dir ?
					 errmsg("temporary directory \"%s\" was moved or replaced by someone else", out->tmp) :
					 errmsg("temporary file \"%s\" was moved or replaced by someone else", out->tmp),
					 errdetail("What is there now is left alone.")));
	}
	close_fd(out->parent_fd);
	dlist_delete(&out->node);
	pfree(out->path);
	pfree(out->tmp);
	pfree(out->parent);
	pfree(out->base);
	pfree(out->tmp_base);
	for (i = 0; i < out->nfiles; i++)
		pfree(out->files[i].name);
	if (out->files)
		pfree(out->files);
	if (out->file_path)
		pfree(out->file_path);
	pfree(out);
}

/*
 * output_xact_callback
 *		End of the transaction: no output may survive it half-written.  An
 *		output still pending here was abandoned by an error (or, at commit,
 *		never finished): remove its temporary files.
 */
static void
output_xact_callback(XactEvent event, void *arg)
{
	dlist_mutable_iter it;

	switch (event)
	{
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PREPARE:
			dlist_foreach_modify(it, &pending_outputs)
				cleanup_output(dlist_container(ExwiwOutput, node, it.cur));
			break;
		default:
			break;
	}
}

/*
 * output_subxact_callback
 *		A subtransaction ended.  Rolled back (an error caught by an
 *		EXCEPTION block, ROLLBACK TO SAVEPOINT): remove the outputs it
 *		began.  Committed: they now belong to the parent.
 */
static void
output_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
						SubTransactionId parentSubid, void *arg)
{
	dlist_mutable_iter it;

	if (event != SUBXACT_EVENT_ABORT_SUB && event != SUBXACT_EVENT_COMMIT_SUB)
		return;
	dlist_foreach_modify(it, &pending_outputs)
	{
		ExwiwOutput *out = dlist_container(ExwiwOutput, node, it.cur);

		if (out->subid != mySubid)
			continue;
		if (event == SUBXACT_EVENT_COMMIT_SUB)
			out->subid = parentSubid;
		else
			cleanup_output(out);
	}
}

/*
 * check_existing
 *		The rules for a final name that exists already (see the header),
 *		looked at through the parent directory's descriptor, links not
 *		followed.  Sets out->replace_dir for a non-empty directory to be
 *		replaced.
 */
static void
check_existing(ExwiwOutput *out)
{
	struct stat st;
	int			fd;
	int			n;
	DirEntry   *entries = NULL;
	DirEntry   *bad;

	if (fstatat(out->parent_fd, out->base, &st, AT_SYMLINK_NOFOLLOW) != 0)
	{
		if (errno == ENOENT)
			return;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not stat \"%s\": %m", out->path)));
	}
	if (!out->is_dir)
	{
		if (S_ISDIR(st.st_mode))
			ereport(ERROR,
					(errcode(ERRCODE_DUPLICATE_FILE),
					 errmsg("\"%s\" is a directory", out->path),
					 errhint("Give the path of a file to write.")));
		if (!out->overwrite)
			ereport(ERROR,
					(errcode(ERRCODE_DUPLICATE_FILE),
					 errmsg("file \"%s\" already exists", out->path),
					 errhint("Pass overwrite => true to replace it.")));
		return;
	}
	if (!S_ISDIR(st.st_mode))
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_FILE),
				 errmsg("\"%s\" exists and is not a directory", out->path),
				 errhint("Give the path of a new or empty directory.")));
	fd = open_at(out->parent_fd, out->base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
	n = fd < 0 ? -1 : scan_dir(fd, &entries);
	if (n < 0)
	{
		int			save = errno;

		close_fd(fd);
		errno = save;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read directory \"%s\": %m", out->path)));
	}
	close_fd(fd);
	if (n == 0)
		return;					/* empty: the rename replaces it */
	if (!out->overwrite)
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_FILE),
				 errmsg("directory \"%s\" is not empty", out->path),
				 errhint("Pass overwrite => true to replace a previous export, or give a new directory.")));
	bad = foreign_entry(entries, n);
	if (bad != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_FILE),
				 errmsg("directory \"%s\" holds files that exwiw did not write", out->path),
				 foreign_entry_detail(bad, "overwrite => true only replaces a directory of a previous export"),
				 errhint("Remove the directory yourself, or give a new one.")));
	out->replace_dir = true;
}

/*
 * exwiw_output_begin
 *		Begin an output at path (checked by exwiw_sink_check_path): open its
 *		parent directory, check what exists there, create the temporary file
 *		or directory, and register it for removal on abort.  A file output
 *		is then open for writing; a directory output opens its files with
 *		exwiw_output_open.
 */
ExwiwOutput *
exwiw_output_begin(const char *path, bool is_dir, bool overwrite)
{
	ExwiwOutput *out;
	MemoryContext old;
	struct stat st;

	if (!callbacks_registered)
	{
		RegisterXactCallback(output_xact_callback, NULL);
		RegisterSubXactCallback(output_subxact_callback, NULL);
		callbacks_registered = true;
	}

	old = MemoryContextSwitchTo(TopMemoryContext);
	out = palloc0(sizeof(ExwiwOutput));
	out->path = pstrdup(path);
	split_path(path, &out->parent, &out->base);
	out->tmp_base = psprintf(".%s.exwiw-tmp.%d.%u", out->base, MyProcPid,
							 ++tmp_counter);
	out->tmp = psprintf("%s/%s", strcmp(out->parent, "/") == 0 ? "" : out->parent,
						out->tmp_base);
	MemoryContextSwitchTo(old);
	out->is_dir = is_dir;
	out->overwrite = overwrite;
	out->parent_fd = -1;
	out->dir_fd = -1;
	out->fd = -1;

	/* from here on, an abort closes what is open and removes what we made */
	out->subid = GetCurrentSubTransactionId();
	dlist_push_tail(&pending_outputs, &out->node);

	/* the user's path, links and all, up to here; none below */
	out->parent_fd = open_at(AT_FDCWD, out->parent, O_RDONLY | O_DIRECTORY, 0);
	if (out->parent_fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open directory \"%s\": %m", out->parent)));
	refuse_server_fd(out->parent_fd, out->path);
	check_existing(out);

	if (!is_dir)
	{
		exwiw_output_open(out, NULL);
		return out;
	}
	if (mkdirat(out->parent_fd, out->tmp_base, pg_dir_create_mode) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create directory \"%s\": %m", out->path),
				 errdetail("It was to be written as \"%s\" first.", out->tmp)));
	out->dir_fd = open_at(out->parent_fd, out->tmp_base,
						  O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
	if (out->dir_fd < 0 || fstat(out->dir_fd, &st) != 0)
	{
		/* ours, unless it was swapped meanwhile: leave it to its owner */
		out->replaced = true;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open directory \"%s\": %m", out->tmp),
				 errdetail("It was just created as the temporary directory of \"%s\"; it is left there.",
						   out->path)));
	}
	if (st.st_uid != geteuid())
	{
		out->replaced = true;
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("temporary directory \"%s\" was replaced by someone else as it was created", out->tmp),
				 errdetail("Someone else can write directory \"%s\"; what is there now is left alone.",
						   out->parent),
				 errhint("Write exports into a directory that only the database server's OS user can write.")));
	}
	out->tmp_dev = st.st_dev;
	out->tmp_ino = st.st_ino;
	out->created = true;
	return out;
}

/*
 * exwiw_output_open
 *		Open the next file to write: for a directory output, name inside
 *		the temporary directory (through its descriptor); for a file output
 *		(name NULL), its temporary file in the parent directory.  Either is
 *		created new (O_EXCL, O_NOFOLLOW), and its device and inode kept.
 */
void
exwiw_output_open(ExwiwOutput *out, const char *name)
{
	const char *fs_path;
	struct stat st;
	int			dirfd;
	const char *fs_name;

	Assert(out->fd < 0);
	Assert(out->is_dir == (name != NULL));
	if (out->file_path)
		pfree(out->file_path);
	if (name != NULL)
	{
		if (strchr(name, '/') != NULL || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
			elog(ERROR, "invalid file name \"%s\"", name);
		out->file_path = MemoryContextStrdup(TopMemoryContext,
											 psprintf("%s/%s", out->path, name));
		fs_path = psprintf("%s/%s", out->tmp, name);
		dirfd = out->dir_fd;
		fs_name = name;
	}
	else
	{
		out->file_path = MemoryContextStrdup(TopMemoryContext, out->path);
		fs_path = out->tmp;
		dirfd = out->parent_fd;
		fs_name = out->tmp_base;
	}
	out->bytes = 0;
	out->flushed = 0;
	out->fd = open_at(dirfd, fs_name,
					  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | PG_BINARY,
					  pg_file_create_mode);
	if (out->fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create file \"%s\": %m", out->file_path),
				 errdetail("It was to be written as \"%s\" first.", fs_path)));
	if (fstat(out->fd, &st) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not stat file \"%s\": %m", fs_path)));
	if (name == NULL)
	{
		out->tmp_dev = st.st_dev;
		out->tmp_ino = st.st_ino;
		out->created = true;
		return;
	}
	if (out->nfiles == out->maxfiles)
	{
		out->maxfiles = Max(16, out->maxfiles * 2);
		if (out->files == NULL)
			out->files = MemoryContextAlloc(TopMemoryContext,
											sizeof(OutputFile) * out->maxfiles);
		else
			out->files = repalloc(out->files, sizeof(OutputFile) * out->maxfiles);
	}
	out->files[out->nfiles].name = MemoryContextStrdup(TopMemoryContext, name);
	out->files[out->nfiles].dev = st.st_dev;
	out->files[out->nfiles].ino = st.st_ino;
	out->nfiles++;
}

/*
 * exwiw_output_write
 *		Append len bytes to the open file.  A short write without an error
 *		is taken as a full disk, as the server does elsewhere.
 */
void
exwiw_output_write(ExwiwOutput *out, const char *data, size_t len)
{
	while (len > 0)
	{
		ssize_t		n;

		CHECK_FOR_INTERRUPTS();
		errno = 0;
		pgstat_report_wait_start(WAIT_EVENT_COPY_FILE_WRITE);
		n = write(out->fd, data, Min(len, (size_t) 64 * 1024 * 1024));
		pgstat_report_wait_end();
		if (n <= 0)
		{
			if (n < 0 && errno == EINTR)
				continue;
			if (errno == 0)
				errno = ENOSPC;
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not write file \"%s\": %m", out->file_path),
					 errdetail("%llu bytes of it had been written; the export is abandoned and its temporary files removed.",
							   (unsigned long long) out->bytes)));
		}
		data += n;
		len -= n;
		out->bytes += n;
	}
	if (out->bytes - out->flushed >= FLUSH_EVERY)
	{
		pg_flush_data(out->fd, out->flushed, out->bytes - out->flushed);
		out->flushed = out->bytes;
	}
}

/*
 * exwiw_output_close
 *		fsync and close the open file; returns its size in bytes.
 */
uint64
exwiw_output_close(ExwiwOutput *out)
{
	int			fd = out->fd;

	Assert(fd >= 0);
	if (pg_fsync(fd) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not fsync file \"%s\": %m", out->file_path)));
	out->fd = -1;
	if (close_fd(fd) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not close file \"%s\": %m", out->file_path)));
	pfree(out->file_path);
	out->file_path = NULL;
	return out->bytes;
}

/*
 * exwiw_output_file_path
 *		The final path of the file being written, or of the output when
 *		no file is open, for error contexts.
 */
const char *
exwiw_output_file_path(ExwiwOutput *out)
{
	return out->file_path ? out->file_path : out->path;
}

/*
 * rename_noreplace
 *		Rename from to to, both in directory dirfd, failing with EEXIST if
 *		to exists.
 */
static int
rename_noreplace(int dirfd, const char *from, const char *to, const char *shown)
{
#ifdef RENAME_NOREPLACE
	if (renameat2(dirfd, from, dirfd, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
#endif
	/* no renameat2 here, or not on this file system: link, then unlink */
	if (linkat(dirfd, from, dirfd, to, 0) != 0)
		return -1;
	if (unlinkat(dirfd, from, 0) != 0)
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not remove temporary file \"%s\": %m", shown)));
	return 0;
}

/*
 * remove_previous_export
 *		Remove the directory name of dirfd (shown is its path), a previous
 *		export that was replaced: its files that exwiw writes, each checked
 *		again just before it is unlinked, then the directory, if it is then
 *		empty and still the one that was opened.  A symbolic link there, or
 *		a file exwiw does not write, is left alone with a WARNING.
 */
static void
remove_previous_export(int dirfd, const char *name, const char *shown)
{
	int			fd = open_at(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
	struct stat st;
	DirEntry   *e = NULL;
	int			n;
	int			i;
	int			kept = 0;

	if (fd < 0 || fstat(fd, &st) != 0 || (n = scan_dir(fd, &e)) < 0)
	{
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not remove the previous export \"%s\": %m", shown)));
		close_fd(fd);
		return;
	}
	for (i = 0; i < n; i++)
		if (!unlink_export_file(fd, e[i].name, e[i].st.st_dev, e[i].st.st_ino))
			kept++;
	close_fd(fd);
	if (kept > 0)
		ereport(WARNING,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the previous export, now at \"%s\", holds files that exwiw did not write", shown),
				 errdetail("Its files named insert-* and delete-* were removed; %d other entries are left there.", kept)));
	else if (!same_entry(dirfd, name, st.st_dev, st.st_ino) ||
			 unlinkat(dirfd, name, AT_REMOVEDIR) != 0)
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not remove the previous export \"%s\": %m", shown)));
}

/*
 * replaced_error
 *		Error out: the temporary name no longer holds what we created.  Our
 *		files are then removed through the descriptors (cleanup_output),
 *		and what is at the temporary name now is left alone.
 */
static void
replaced_error(ExwiwOutput *out)
{
	out->replaced = true;
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 out->is_dir ?
			 errmsg("temporary directory \"%s\" was moved or replaced while the export ran", out->tmp) :
			 errmsg("temporary file \"%s\" was moved or replaced while the export ran", out->tmp),
			 errdetail("Someone else can write directory \"%s\". The export is abandoned, its own files are removed, and nothing else is touched.",
					   out->parent),
			 errhint("Write exports into a directory that only the database server's OS user can write.")));
}

/*
 * exchange_dir
 *		Put the temporary directory in place of the non-empty directory at
 *		the final name.  Atomic with renameat2's RENAME_EXCHANGE (the old
 *		one is then at the temporary name); elsewhere the old directory is
 *		moved aside first.  Returns the name, in the parent directory, that
 *		now holds the previous export.
 */
static char *
exchange_dir(ExwiwOutput *out)
{
	char	   *old = psprintf("%s.old", out->tmp_base);

#ifdef RENAME_EXCHANGE
	if (renameat2(out->parent_fd, out->tmp_base, out->parent_fd, out->base,
				  RENAME_EXCHANGE) == 0)
		return out->tmp_base;
	if (errno != EINVAL && errno != ENOSYS)
	{
		int			save = errno;

		if (!same_entry(out->parent_fd, out->tmp_base, out->tmp_dev, out->tmp_ino))
			replaced_error(out);
		errno = save;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not replace directory \"%s\": %m", out->path)));
	}
#endif
	if (renameat(out->parent_fd, out->base, out->parent_fd, old) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not move directory \"%s\" aside: %m", out->path)));
	if (renameat(out->parent_fd, out->tmp_base, out->parent_fd, out->base) != 0)
	{
		int			save = errno;

		(void) renameat(out->parent_fd, old, out->parent_fd, out->base);
		errno = save;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not rename \"%s\" to \"%s\": %m", out->tmp, out->path)));
	}
	return old;
}

/*
 * exwiw_output_commit
 *		The output is complete: fsync the temporary directory, check that
 *		the temporary name still holds what we created, rename into place,
 *		fsync the parent directory.  The output is then no longer pending,
 *		and freed.
 */
void
exwiw_output_commit(ExwiwOutput *out)
{
	int			rc;
	char	   *previous = NULL;
	int			parent_fd;
	char	   *parent;
	char	   *shown = NULL;

	Assert(out->fd < 0);
	if (out->is_dir && pg_fsync(out->dir_fd) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not fsync directory \"%s\": %m", out->tmp)));

	if (!same_entry(out->parent_fd, out->tmp_base, out->tmp_dev, out->tmp_ino))
		replaced_error(out);

	if (out->is_dir && out->replace_dir)
		previous = exchange_dir(out);
	else
	{
		if (out->is_dir || out->overwrite)
			rc = renameat(out->parent_fd, out->tmp_base, out->parent_fd, out->base);
		else
			rc = rename_noreplace(out->parent_fd, out->tmp_base, out->base, out->tmp);
		if (rc != 0)
		{
			int			save = errno;

			if (!same_entry(out->parent_fd, out->tmp_base, out->tmp_dev, out->tmp_ino))
				replaced_error(out);
			errno = save;
			if (errno == EEXIST || errno == ENOTEMPTY)
				ereport(ERROR,
						(errcode(ERRCODE_DUPLICATE_FILE),
						 errmsg("\"%s\" was created by someone else while the export ran", out->path),
						 out->is_dir ?
						 errhint("Remove it, or pass overwrite => true to replace it if it is a previous export.") :
						 errhint("Pass overwrite => true to replace it.")));
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not rename \"%s\" to \"%s\": %m", out->tmp, out->path)));
		}
	}

	/* in place: no longer ours to remove */
	dlist_delete(&out->node);
	parent_fd = out->parent_fd;
	parent = pstrdup(out->parent);
	if (previous != NULL)
		shown = psprintf("%s/%s", strcmp(parent, "/") == 0 ? "" : parent, previous);
	close_fd(out->dir_fd);
	pfree(out->path);
	pfree(out->tmp);
	pfree(out->parent);
	pfree(out->base);
	for (rc = 0; rc < out->nfiles; rc++)
		pfree(out->files[rc].name);
	if (out->files)
		pfree(out->files);
	if (out->file_path)
		pfree(out->file_path);
	if (previous != NULL)
		remove_previous_export(parent_fd, previous, shown);
	pfree(out->tmp_base);
	pfree(out);

	rc = pg_fsync(parent_fd);
	if (rc != 0)
	{
		int			save = errno;

		close_fd(parent_fd);
		errno = save;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not fsync directory \"%s\": %m", parent)));
	}
	close_fd(parent_fd);
}

/*
 * exwiw_remove_export_dir
 *		Remove directory path (checked by exwiw_sink_check_path), which
 *		must hold nothing but files exwiw writes.  The directory is opened
 *		once (O_NOFOLLOW) and checked; its files are removed through that
 *		descriptor, each checked again just before; the directory last, if
 *		its name still holds the directory that was opened.  Returns how
 *		many files it held.
 */
int
exwiw_remove_export_dir(const char *path)
{
	char	   *parent;
	char	   *base;
	volatile int pfd = -1;
	volatile int dfd = -1;
	volatile int n = 0;

	split_path(path, &parent, &base);
	PG_TRY();
	{
		struct stat st;
		struct stat dst;
		DirEntry   *e = NULL;
		DirEntry   *bad;
		int			count;
		int			i;

		pfd = open_at(AT_FDCWD, parent, O_RDONLY | O_DIRECTORY, 0);
		if (pfd < 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not open directory \"%s\": %m", parent)));
		refuse_server_fd(pfd, path);
		if (fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not stat \"%s\": %m", path)));
		if (!S_ISDIR(st.st_mode))
			ereport(ERROR,
					(errcode(ERRCODE_WRONG_OBJECT_TYPE),
					 errmsg("\"%s\" is not a directory", path)));
		dfd = open_at(pfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
		if (dfd < 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not open directory \"%s\": %m", path)));
		if (fstat(dfd, &dst) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not stat \"%s\": %m", path)));
		if (dst.st_dev != st.st_dev || dst.st_ino != st.st_ino)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("directory \"%s\" was moved or replaced while it was checked", path),
					 errdetail("Nothing was removed.")));
		count = scan_dir(dfd, &e);
		if (count < 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not read directory \"%s\": %m", path)));
		bad = foreign_entry(e, count);
		if (bad != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("directory \"%s\" holds files that exwiw did not write", path),
					 foreign_entry_detail(bad, "only the directory of an export is removed")));
		for (i = 0; i < count; i++)
		{
			if (!unlink_export_file(dfd, e[i].name, e[i].st.st_dev, e[i].st.st_ino))
			{
				if (errno == ESTALE)
					ereport(ERROR,
							(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
							 errmsg("file \"%s/%s\" was replaced while the export was removed", path, e[i].name),
							 errdetail("%d files of the export were removed; the rest is left alone.", n)));
				ereport(ERROR,
						(errcode_for_file_access(),
						 errmsg("could not remove file \"%s/%s\": %m", path, e[i].name)));
			}
			n++;
		}
		if (!same_entry(pfd, base, dst.st_dev, dst.st_ino))
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("directory \"%s\" was moved or replaced while it was removed", path),
					 errdetail("Its %d files were removed from the directory that was checked; what is at \"%s\" now is left alone.",
							   n, path)));
		if (unlinkat(pfd, base, AT_REMOVEDIR) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not remove directory \"%s\": %m", path)));
	}
	PG_FINALLY();
	{
		close_fd(dfd);
		close_fd(pfd);
	}
	PG_END_TRY();
	return n;
}
