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
 * exwiw writes (insert-*), so that overwrite cannot empty an unrelated
 * directory.
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

#include "sink.h"

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

struct ExwiwOutput
{
	char	   *path;			/* final name */
	char	   *tmp;			/* temporary name */
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
 * cleanup_output
 *		Close the output's open file and remove its temporary name (file or
 *		directory).  Called on abort, where errors cannot be raised: a
 *		failure is a WARNING.  Frees the output.
 */
static void
cleanup_output(ExwiwOutput *out)
{
	if (out->fd >= 0)
		CloseTransientFile(out->fd);
	out->fd = -1;
	if (out->is_dir)
	{
		struct stat st;

		if (lstat(out->tmp, &st) == 0 && !rmtree(out->tmp, true))
			ereport(WARNING,
					(errmsg("could not remove temporary directory \"%s\"", out->tmp)));
	}
	else if (unlink(out->tmp) != 0 && errno != ENOENT)
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not remove temporary file \"%s\": %m", out->tmp)));
	dlist_delete(&out->node);
	pfree(out->path);
	pfree(out->tmp);
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
 * dir_check_entries
 *		Whether directory path has no entries.  With only_exwiw, instead:
 *		whether every entry is a regular file whose name starts with
 *		"insert-" (what exwiw writes); *bad is then the first other one.
 */
static bool
dir_check_entries(const char *path, bool only_exwiw, char **bad)
{
	DIR		   *dir = AllocateDir(path);
	struct dirent *de;
	bool		ok = true;

	while ((de = ReadDir(dir, path)) != NULL)
	{
		char		sub[MAXPGPATH];
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (!only_exwiw)
		{
			ok = false;
			break;
		}
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		if (strncmp(de->d_name, "insert-", 7) != 0 ||
			lstat(sub, &st) != 0 || !S_ISREG(st.st_mode))
		{
			ok = false;
			if (bad)
				*bad = pstrdup(de->d_name);
			break;
		}
	}
	FreeDir(dir);
	return ok;
}

/*
 * check_existing
 *		The rules for a final name that exists already (see the header).
 *		Sets out->replace_dir for a non-empty directory to be replaced.
 */
static void
check_existing(ExwiwOutput *out)
{
	struct stat st;

	if (lstat(out->path, &st) != 0)
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
	if (dir_check_entries(out->path, false, NULL))
		return;					/* empty: the rename replaces it */
	if (!out->overwrite)
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_FILE),
				 errmsg("directory \"%s\" is not empty", out->path),
				 errhint("Pass overwrite => true to replace a previous export, or give a new directory.")));
	{
		char	   *bad = NULL;

		if (!dir_check_entries(out->path, true, &bad))
			ereport(ERROR,
					(errcode(ERRCODE_DUPLICATE_FILE),
					 errmsg("directory \"%s\" holds files that exwiw did not write", out->path),
					 errdetail("\"%s\" is not a file named insert-*; overwrite => true only replaces a directory of a previous export.",
							   bad ? bad : "?"),
					 errhint("Remove the directory yourself, or give a new one.")));
	}
	out->replace_dir = true;
}

/*
 * exwiw_output_begin
 *		Begin an output at path (checked by exwiw_sink_check_path): check
 *		what exists there, create the temporary file or directory, and
 *		register it for removal on abort.  A file output is then open for
 *		writing; a directory output opens its files with exwiw_output_open.
 */
ExwiwOutput *
exwiw_output_begin(const char *path, bool is_dir, bool overwrite)
{
	ExwiwOutput check = {0};
	ExwiwOutput *out;
	char	   *parent;
	const char *base;

	if (!callbacks_registered)
	{
		RegisterXactCallback(output_xact_callback, NULL);
		RegisterSubXactCallback(output_subxact_callback, NULL);
		callbacks_registered = true;
	}

	check.path = (char *) path;
	check.is_dir = is_dir;
	check.overwrite = overwrite;
	check_existing(&check);

	parent = pstrdup(path);
	get_parent_directory(parent);
	if (parent[0] == '\0')
		strcpy(parent, "/");
	base = path + strlen(parent) + (strcmp(parent, "/") == 0 ? 0 : 1);

	out = MemoryContextAllocZero(TopMemoryContext, sizeof(ExwiwOutput));
	out->path = MemoryContextStrdup(TopMemoryContext, path);
	out->tmp = MemoryContextStrdup(TopMemoryContext,
								   psprintf("%s/.%s.exwiw-tmp.%d.%u",
											strcmp(parent, "/") == 0 ? "" : parent,
											base, MyProcPid, ++tmp_counter));
	out->is_dir = is_dir;
	out->overwrite = overwrite;
	out->replace_dir = check.replace_dir;
	out->fd = -1;

	/* from here on, an abort removes the temporary name */
	out->subid = GetCurrentSubTransactionId();
	dlist_push_tail(&pending_outputs, &out->node);

	if (is_dir)
	{
		if (MakePGDirectory(out->tmp) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not create directory \"%s\": %m", out->path),
					 errdetail("It was to be written as \"%s\" first.", out->tmp)));
	}
	else
		exwiw_output_open(out, NULL);
	return out;
}

/*
 * exwiw_output_open
 *		Open the next file to write: for a directory output, name inside
 *		it; for a file output (name NULL), its temporary file.
 */
void
exwiw_output_open(ExwiwOutput *out, const char *name)
{
	const char *fs_path;

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
	}
	else
	{
		out->file_path = MemoryContextStrdup(TopMemoryContext, out->path);
		fs_path = out->tmp;
	}
	out->bytes = 0;
	out->flushed = 0;
	out->fd = OpenTransientFilePerm(fs_path, O_WRONLY | O_CREAT | O_EXCL | PG_BINARY,
									pg_file_create_mode);
	if (out->fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create file \"%s\": %m", out->file_path),
				 errdetail("It was to be written as \"%s\" first.", fs_path)));
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
	if (CloseTransientFile(fd) != 0)
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
 *		Rename a file from to to, failing with EEXIST if to exists.
 */
static int
rename_noreplace(const char *from, const char *to)
{
#ifdef RENAME_NOREPLACE
	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
#endif
	/* no renameat2 here, or not on this file system: link, then unlink */
	if (link(from, to) != 0)
		return -1;
	if (unlink(from) != 0)
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not remove temporary file \"%s\": %m", from)));
	return 0;
}

/*
 * exchange_dir
 *		Put directory from in place of the non-empty directory to, then
 *		remove the old one.  Atomic with renameat2's RENAME_EXCHANGE;
 *		elsewhere the old directory is moved aside first.
 */
static void
exchange_dir(ExwiwOutput *out)
{
	char	   *old = psprintf("%s.old", out->tmp);

#ifdef RENAME_EXCHANGE
	if (renameat2(AT_FDCWD, out->tmp, AT_FDCWD, out->path, RENAME_EXCHANGE) == 0)
	{
		/* out->tmp now holds the previous export */
		if (rename(out->tmp, old) != 0)
			old = out->tmp;
		goto remove_old;
	}
	if (errno != EINVAL && errno != ENOSYS)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not replace directory \"%s\": %m", out->path)));
#endif
	if (rename(out->path, old) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not move directory \"%s\" aside: %m", out->path)));
	if (rename(out->tmp, out->path) != 0)
	{
		int			save = errno;

		(void) rename(old, out->path);
		errno = save;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not rename \"%s\" to \"%s\": %m", out->tmp, out->path)));
	}
#ifdef RENAME_EXCHANGE
remove_old:
#endif
	if (!rmtree(old, true))
		ereport(WARNING,
				(errmsg("could not remove the previous export \"%s\"", old)));
}

/*
 * exwiw_output_commit
 *		The output is complete: fsync the temporary directory, rename into
 *		place, fsync the parent directory.  The output is then no longer
 *		pending, and freed.
 */
void
exwiw_output_commit(ExwiwOutput *out)
{
	char	   *parent;
	int			rc;

	Assert(out->fd < 0);
	if (out->is_dir)
		(void) fsync_fname_ext(out->tmp, true, false, ERROR);

	if (out->is_dir && out->replace_dir)
		exchange_dir(out);
	else
	{
		if (out->is_dir || out->overwrite)
			rc = rename(out->tmp, out->path);
		else
			rc = rename_noreplace(out->tmp, out->path);
		if (rc != 0)
		{
			if (errno == EEXIST || errno == ENOTEMPTY)
				ereport(ERROR,
						(errcode(ERRCODE_DUPLICATE_FILE),
						 errmsg("\"%s\" was created by someone else while the export ran", out->path),
						 errhint("Pass overwrite => true to replace it.")));
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not rename \"%s\" to \"%s\": %m", out->tmp, out->path)));
		}
	}

	/* in place: no longer ours to remove */
	dlist_delete(&out->node);
	parent = pstrdup(out->path);
	get_parent_directory(parent);
	if (parent[0] == '\0')
		strcpy(parent, "/");
	pfree(out->path);
	pfree(out->tmp);
	if (out->file_path)
		pfree(out->file_path);
	pfree(out);
	(void) fsync_fname_ext(parent, true, false, ERROR);
}

/*
 * exwiw_remove_export_dir
 *		Remove directory path (checked by exwiw_sink_check_path), which
 *		must hold nothing but files exwiw writes.  Returns how many files it
 *		held.
 */
int
exwiw_remove_export_dir(const char *path)
{
	struct stat st;
	char	   *bad = NULL;
	DIR		   *dir;
	struct dirent *de;
	int			n = 0;

	if (lstat(path, &st) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not stat \"%s\": %m", path)));
	if (!S_ISDIR(st.st_mode))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a directory", path)));
	if (!dir_check_entries(path, true, &bad))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("directory \"%s\" holds files that exwiw did not write", path),
				 errdetail("\"%s\" is not a file named insert-*; only the directory of an export is removed.",
						   bad ? bad : "?")));
	dir = AllocateDir(path);
	while ((de = ReadDir(dir, path)) != NULL)
	{
		char		sub[MAXPGPATH];

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		if (unlink(sub) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not remove file \"%s\": %m", sub)));
		n++;
	}
	FreeDir(dir);
	if (rmdir(path) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not remove directory \"%s\": %m", path)));
	return n;
}
