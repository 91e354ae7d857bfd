/*-------------------------------------------------------------------------
 *
 * schemadir.c
 *	  The schema config: the Ruby client's directory of per-table JSON
 *	  files, or one JSON file holding the array.
 *
 * --schema-dir DIR reads DIR/<name>.json (not recursively, dot files left out)
 * in byte order of their names, as the Ruby client does; each file holds
 * one table's config (an object), or several (an array, or an object with
 * a "tables" array).  --schema-dir FILE reads one such file.  Every file is
 * parsed here first, so that a file that is not JSON is an error naming
 * the file and the line before anything is sent; the tables are then
 * joined into the one JSON array exwiw_export() takes.  Checking the
 * configs themselves is the server's job.
 *
 * Files are written whole and durably: a temporary file next to the
 * target, fsync, rename, fsync of the directory.
 *
 *-------------------------------------------------------------------------
 */
#include "cli.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file_utils.h"

/*
 * read_whole_file
 *		The bytes of a file (NUL-terminated), or NULL with errno set.
 */
char *
read_whole_file(const char *path, size_t *len)
{
	return read_whole_file_at(AT_FDCWD, path, len);
}

/*
 * read_whole_file_at
 *		The bytes of file name in directory dirfd (NUL-terminated), or NULL
 *		with errno set.  In a directory other than AT_FDCWD, a symbolic
 *		link is not followed.
 */
char *
read_whole_file_at(int dirfd, const char *name, size_t *len)
{
	int			fd = openat(dirfd, name, O_RDONLY | PG_BINARY |
							(dirfd == AT_FDCWD ? 0 : O_NOFOLLOW), 0);
	struct stat st;
	char	   *buf;
	size_t		cap,
				used = 0;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0)
	{
		close(fd);
		return NULL;
	}
	cap = st.st_size > 0 ? st.st_size + 1 : 8192;
	buf = pg_malloc(cap + 1);
	for (;;)
	{
		ssize_t		r;

		if (used == cap)
		{
			cap *= 2;
			buf = pg_realloc(buf, cap + 1);
		}
		r = read(fd, buf + used, cap - used);
		if (r < 0)
		{
			int			save = errno;

			close(fd);
			pg_free(buf);
			errno = save;
			return NULL;
		}
		if (r == 0)
			break;
		used += r;
	}
	close(fd);
	buf[used] = '\0';
	*len = used;
	return buf;
}

/*
 * name_cmp
 *		qsort: file names in byte order.
 */
static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/*
 * add_tables
 *		The table configs of one parsed file.
 */
static void
add_tables(SchemaConfig *cfg, const char *path, JsonValue *v)
{
	JsonValue  *list = NULL;
	int			i;

	if (v->kind == JV_OBJECT && json_get(v, "tables") != NULL &&
		json_get(v, "name") == NULL)
		list = json_get(v, "tables");
	else if (v->kind == JV_ARRAY)
		list = v;

	if (list == NULL)
	{
		if (v->kind != JV_OBJECT)
		{
			pg_log_error("schema file %s must hold a table config (a JSON object) or an array of them", path);
			exit(exwiw_error_exit);
		}
		cfg->tables = pg_realloc(cfg->tables, sizeof(SchemaTable) * (cfg->ntables + 1));
		cfg->tables[cfg->ntables].path = pg_strdup(path);
		cfg->tables[cfg->ntables].config = v;
		cfg->ntables++;
		return;
	}
	if (list->kind != JV_ARRAY)
	{
		pg_log_error("schema file %s: \"tables\" must be an array", path);
		exit(exwiw_error_exit);
	}
	for (i = 0; i < list->n; i++)
	{
		if (list->items[i]->kind != JV_OBJECT)
		{
			pg_log_error("schema file %s: element %d is not a table config (a JSON object)", path, i);
			exit(exwiw_error_exit);
		}
		cfg->tables = pg_realloc(cfg->tables, sizeof(SchemaTable) * (cfg->ntables + 1));
		cfg->tables[cfg->ntables].path = pg_strdup(path);
		cfg->tables[cfg->ntables].config = list->items[i];
		cfg->ntables++;
	}
}

/*
 * load_file
 *		Parse one file and add its tables.
 */
static void
load_file(SchemaConfig *cfg, const char *path)
{
	size_t		len;
	char	   *text = read_whole_file(path, &len);
	char	   *err = NULL;
	JsonValue  *v;

	if (text == NULL)
		pg_fatal("could not read schema file \"%s\": %m", path);
	v = json_parse(text, len, &err);
	if (v == NULL)
	{
		pg_log_error("schema file %s is not valid JSON: %s", path, err);
		exit(exwiw_error_exit);
	}
	add_tables(cfg, path, v);
	pg_free(text);
}

/*
 * has_json_file
 *		Whether directory path holds a file named *.json (not a dot file).
 */
static bool
has_json_file(const char *path)
{
	DIR		   *dir = opendir(path);
	struct dirent *de;
	bool		found = false;

	if (dir == NULL)
		return false;
	while (!found && (de = readdir(dir)) != NULL)
	{
		size_t		len = strlen(de->d_name);

		found = de->d_name[0] != '.' && len >= 6 &&
			strcmp(de->d_name + len - 5, ".json") == 0;
	}
	closedir(dir);
	return found;
}

/*
 * database_dirs
 *		The subdirectories of location that are schema dirs (they hold
 *		.json files), sorted and joined by ", ", or NULL: the newest Ruby
 *		client's layout for several databases (schema/primary/,
 *		schema/analytics/).
 */
static char *
database_dirs(const char *location)
{
	DIR		   *dir = opendir(location);
	struct dirent *de;
	char	  **names = NULL;
	int			n = 0,
				i;
	StringInfoData s;

	if (dir == NULL)
		return NULL;
	while ((de = readdir(dir)) != NULL)
	{
		char	   *sub;
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		sub = psprintf("%s/%s", location, de->d_name);
		if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode) && has_json_file(sub))
		{
			names = pg_realloc(names, sizeof(char *) * (n + 1));
			names[n++] = pg_strdup(de->d_name);
		}
		pfree(sub);
	}
	closedir(dir);
	if (n == 0)
		return NULL;
	qsort(names, n, sizeof(char *), name_cmp);
	initStringInfo(&s);
	for (i = 0; i < n; i++)
		appendStringInfo(&s, "%s%s", i ? ", " : "", names[i]);
	return s.data;
}

/* The config the run read last: the files schema_decision_hints names. */
static const SchemaConfig *last_loaded = NULL;

/*
 * schema_table_fix_hint
 *		The one-line fix of undecided table name, as a hint: the file that
 *		holds its config (from the config the run read) to add "export":
 *		"all" to, or the client's flag.  Nothing when no file holds it.
 */
void
schema_table_fix_hint(const char *name)
{
	const char *path = NULL;
	int			i;

	for (i = 0; last_loaded && i < last_loaded->ntables; i++)
	{
		const char *n = schema_table_name(&last_loaded->tables[i]);

		if (n && strcmp(n, name) == 0)
			path = last_loaded->tables[i].path;
	}
	if (path && !last_loaded->single_file)
		pg_log_error_hint("To export table \"%s\" as the Ruby client did: add \"export\": \"all\" to %s, or pass --allow-undecided.",
						  name, path);
	else if (path)
		pg_log_error_hint("To export table \"%s\" as the Ruby client did: add \"export\": \"all\" to its object in %s, or pass --allow-undecided.",
						  name, path);
}

/*
 * schema_decision_hints
 *		For each line of a server hint that names an undecided table's fix
 *		('Table "x": add "export": "all" to its config ...'), print the
 *		one-line fix with its file (schema_table_fix_hint).
 */
void
schema_decision_hints(const char *hint)
{
	static const char head[] = "Table \"";
	static const char tail[] = "\": add \"export\": \"all\" to its config";
	const char *line = hint;

	while (line && *line)
	{
		const char *nl = strchr(line, '\n');
		const char *end;

		if (strncmp(line, head, sizeof(head) - 1) == 0 &&
			(end = strstr(line, tail)) != NULL && (nl == NULL || end < nl))
		{
			char	   *name = pnstrdup(line + sizeof(head) - 1,
										end - line - (sizeof(head) - 1));

			schema_table_fix_hint(name);
			pfree(name);
		}
		line = nl ? nl + 1 : NULL;
	}
}

/*
 * schema_config_load
 *		Read a schema dir (or file).  A directory that does not exist is an
 *		error when must_exist, else an empty config; one without .json
 *		files is an error when must_exist.
 */
SchemaConfig *
schema_config_load(const char *location, bool must_exist)
{
	SchemaConfig *cfg = pg_malloc0(sizeof(SchemaConfig));
	struct stat st;
	DIR		   *dir;
	struct dirent *de;
	char	  **names = NULL;
	int			n = 0,
				i;

	cfg->location = pg_strdup(location);
	last_loaded = cfg;
	if (stat(location, &st) != 0)
	{
		if (errno == ENOENT && !must_exist)
			return cfg;
		if (errno == ENOENT)
		{
			pg_log_error("schema dir does not exist: %s", location);
			exit(exwiw_error_exit);
		}
		pg_fatal("could not stat \"%s\": %m", location);
	}
	if (S_ISREG(st.st_mode))
	{
		cfg->single_file = true;
		load_file(cfg, location);
		return cfg;
	}
	if (!S_ISDIR(st.st_mode))
	{
		pg_log_error("schema dir is neither a directory nor a file: %s", location);
		exit(exwiw_error_exit);
	}

	dir = opendir(location);
	if (dir == NULL)
		pg_fatal("could not open directory \"%s\": %m", location);
	while (errno = 0, (de = readdir(dir)) != NULL)
	{
		size_t		len = strlen(de->d_name);

		if (de->d_name[0] == '.' || len < 6 || strcmp(de->d_name + len - 5, ".json") != 0)
			continue;
		names = pg_realloc(names, sizeof(char *) * (n + 1));
		names[n++] = pg_strdup(de->d_name);
	}
	if (errno != 0)
		pg_fatal("could not read directory \"%s\": %m", location);
	closedir(dir);

	if (n == 0 && must_exist)
	{
		char	   *dbs = database_dirs(location);

		pg_log_error("schema dir contains no .json files: %s", location);
		if (dbs)
			pg_log_error_hint("It holds one schema dir per database (%s): pass --schema-dir=%s/DATABASE, one run per database.",
							  dbs, location);
		exit(exwiw_error_exit);
	}
	if (n > 0)
		qsort(names, n, sizeof(char *), name_cmp);
	for (i = 0; i < n; i++)
		load_file(cfg, psprintf("%s/%s", location, names[i]));
	return cfg;
}

/*
 * schema_config_text
 *		The tables as one compact JSON array: the server's config.
 */
char *
schema_config_text(const SchemaConfig *cfg)
{
	StringInfoData s;
	int			i;

	initStringInfo(&s);
	appendStringInfoChar(&s, '[');
	for (i = 0; i < cfg->ntables; i++)
	{
		if (i > 0)
			appendStringInfoChar(&s, ',');
		json_print_compact(&s, cfg->tables[i].config);
	}
	appendStringInfoChar(&s, ']');
	return s.data;
}

/*
 * schema_config_apply_scope_column
 *		The Ruby client's deprecated --scope-column=COL: every table that
 *		is not ignored, declares no scope_column and lists a column COL
 *		(not ignored) is filtered by it, as if it declared
 *		"scope_column": COL.  Returns how many tables it gave one.
 */
int
schema_config_apply_scope_column(SchemaConfig *cfg, const char *col)
{
	int			i,
				j,
				n = 0;

	for (i = 0; i < cfg->ntables; i++)
	{
		JsonValue  *t = cfg->tables[i].config;
		JsonValue  *cols = t ? json_get(t, "columns") : NULL;

		if (t == NULL || t->kind != JV_OBJECT || json_truthy(json_get(t, "ignore")) ||
			json_get(t, "scope_column") != NULL ||
			cols == NULL || cols->kind != JV_ARRAY)
			continue;
		for (j = 0; j < cols->n; j++)
		{
			const char *name = json_get_string(cols->items[j], "name");

			if (name && strcmp(name, col) == 0 &&
				!json_truthy(json_get(cols->items[j], "ignore")))
			{
				json_set(t, "scope_column", json_new(JV_STRING, col));
				n++;
				break;
			}
		}
	}
	return n;
}

/*
 * schema_config_apply_all_tables
 *		--all-tables: every table exported in full, with its masks, as the
 *		newest Ruby client does without --target-table: each table config
 *		gets "scope_exempt": true, and the server, given no target and no
 *		ids, reads each table straight.
 */
void
schema_config_apply_all_tables(SchemaConfig *cfg)
{
	int			i;

	for (i = 0; i < cfg->ntables; i++)
		if (cfg->tables[i].config && cfg->tables[i].config->kind == JV_OBJECT)
			json_set(cfg->tables[i].config, "scope_exempt", json_new(JV_BOOL, "true"));
}

/*
 * schema_table_name
 *		A table config's "name", or NULL.
 */
const char *
schema_table_name(const SchemaTable *t)
{
	return json_get_string(t->config, "name");
}

/*
 * schema_table_file_name
 *		DIR/<table>.json, with "/", "%" and control characters written as
 *		%XX, as the server names the export's files.
 */
char *
schema_table_file_name(const char *dir, const char *table)
{
	StringInfoData s;
	const unsigned char *p;

	initStringInfo(&s);
	appendStringInfo(&s, "%s/", dir);
	for (p = (const unsigned char *) table; *p; p++)
	{
		if (*p == '/' || *p == '%' || *p < 0x20 || *p == 0x7f)
			appendStringInfo(&s, "%%%02X", *p);
		else
			appendStringInfoChar(&s, (char) *p);
	}
	appendStringInfoString(&s, ".json");
	return s.data;
}

/*
 * write_file_durably
 *		Replace path by data: a temporary file next to it, fsync, rename,
 *		fsync of the directory.
 */
void
write_file_durably(const char *path, const char *data, size_t len)
{
	char	   *tmp = psprintf("%s.tmp.%d", path, (int) getpid());
	char	   *dir;
	int			fd;
	size_t		done = 0;

	/*
	 * O_EXCL: the name is predictable, and a symbolic link planted under it
	 * must not make us truncate and write the file it points to.
	 */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | PG_BINARY, 0644);
	if (fd < 0)
		pg_fatal("could not create file \"%s\": %m", tmp);
	while (done < len)
	{
		ssize_t		w = write(fd, data + done, len - done);

		if (w < 0)
		{
			int			save = errno;

			unlink(tmp);
			errno = save;
			pg_fatal("could not write file \"%s\": %m", tmp);
		}
		done += w;
	}
	if (fsync(fd) != 0 || close(fd) != 0)
	{
		int			save = errno;

		unlink(tmp);
		errno = save;
		pg_fatal("could not fsync file \"%s\": %m", tmp);
	}
	if (rename(tmp, path) != 0)
	{
		int			save = errno;

		unlink(tmp);
		errno = save;
		pg_fatal("could not rename file \"%s\" to \"%s\": %m", tmp, path);
	}
	dir = pg_strdup(path);
	get_parent_directory(dir);
	if (dir[0] == '\0')
		strcpy(dir, ".");
	(void) fsync_fname(dir, true);
}

/*
 * schema_column_decided
 *		A column the export accepts: not marked needs_mask_decision, or
 *		masked (replace_with, raw_sql, replace_with_fake_data), or ignored
 *		(the server's rule, subset_config_undecided_columns).
 */
bool
schema_column_decided(const JsonValue *c)
{
	JsonValue  *r = json_get(c, "replace_with");
	JsonValue  *f = json_get(c, "replace_with_fake_data");

	if (!json_truthy(json_get(c, "needs_mask_decision")) || json_truthy(json_get(c, "ignore")))
		return true;
	if (json_get_string(c, "raw_sql") != NULL)
		return true;
	if (f != NULL && f->kind != JV_NULL)
		return true;
	return r != NULL && r->kind != JV_NULL;
}

/*
 * schema_arm_undecided
 *		A belongs_to that waits for its table: "needs_table_decision": true,
 *		no table_name, not ignored (the server's rule,
 *		subset_config_undecided_arms).
 */
bool
schema_arm_undecided(const JsonValue *b)
{
	return json_truthy(json_get(b, "needs_table_decision")) &&
		json_get_string(b, "table_name") == NULL &&
		!json_truthy(json_get(b, "ignore"));
}

/*
 * schema_belongs_to_proposed
 *		A belongs_to offered from evidence that nobody accepted or rejected
 *		yet: "proposed": true, not ignored (the server's rule,
 *		subset_config_proposals).
 */
bool
schema_belongs_to_proposed(const JsonValue *b)
{
	return json_truthy(json_get(b, "proposed")) && !json_truthy(json_get(b, "ignore"));
}

/*
 * schema_proposal_name
 *		A proposal as the server names it: "table.col -> parent".
 */
char *
schema_proposal_name(const char *table, const JsonValue *b)
{
	JsonValue  *fk = json_get(b, "foreign_key");
	const char *p = json_get_string(b, "table_name");

	return psprintf("%s.%s -> %s", table, fk && fk->kind == JV_STRING ? fk->str : "?",
					p ? p : "?");
}

/*
 * schema_config_undecided
 *		The decisions of cfg the export waits for, appended to JSON arrays
 *		cols ("table.column"), arms ("table.type_col = 'Type'") and props
 *		(proposals: "table.col -> parent"), tables that are ignored left
 *		out; returns how many.
 */
int
schema_config_undecided(const SchemaConfig *cfg, JsonValue *cols, JsonValue *arms,
						JsonValue *props)
{
	int			n = 0;
	int			i,
				j;

	for (i = 0; i < cfg->ntables; i++)
	{
		const char *name = schema_table_name(&cfg->tables[i]);
		JsonValue  *t = cfg->tables[i].config;
		JsonValue  *cl = json_get(t, "columns");
		JsonValue  *bts = json_get(t, "belongs_tos");

		if (name == NULL || json_truthy(json_get(t, "ignore")))
			continue;
		for (j = 0; cl && cl->kind == JV_ARRAY && j < cl->n; j++)
			if (json_get_string(cl->items[j], "name") &&
				!schema_column_decided(cl->items[j]))
			{
				json_append(cols, json_new(JV_STRING, psprintf("%s.%s", name,
															   json_get_string(cl->items[j], "name"))));
				n++;
			}
		for (j = 0; bts && bts->kind == JV_ARRAY && j < bts->n; j++)
			if (schema_arm_undecided(bts->items[j]))
			{
				const char *ft = json_get_string(bts->items[j], "foreign_type");
				const char *tv = json_get_string(bts->items[j], "type_value");

				json_append(arms, json_new(JV_STRING, psprintf("%s.%s = '%s'", name,
															   ft ? ft : "?", tv ? tv : "?")));
				n++;
			}
			else if (schema_belongs_to_proposed(bts->items[j]))
			{
				json_append(props, json_new(JV_STRING, schema_proposal_name(name, bts->items[j])));
				n++;
			}
	}
	return n;
}

/*
 * schema_config_apply_since
 *		--since COLUMN=WHEN: every table config (but the target's, whose rows
 *		are the ids, and ignored ones) that exports a column named col keeps
 *		its own rows where cond holds (col >= the cutoff, as SQL the server
 *		wrote: since_apply), ANDed to its filter, so that the closure keeps
 *		the files loadable as with any filter.  Returns how many tables it
 *		narrowed.
 */
int
schema_config_apply_since(SchemaConfig *cfg, const char *col, const char *cond,
						  const char *target)
{
	int			i,
				j,
				n = 0;

	for (i = 0; i < cfg->ntables; i++)
	{
		JsonValue  *t = cfg->tables[i].config;
		JsonValue  *cols = t ? json_get(t, "columns") : NULL;
		const char *name = schema_table_name(&cfg->tables[i]);
		const char *filter;
		StringInfoData f;

		if (t == NULL || t->kind != JV_OBJECT || json_truthy(json_get(t, "ignore")) ||
			cols == NULL || cols->kind != JV_ARRAY ||
			(target != NULL && name != NULL && strcmp(name, target) == 0))
			continue;
		for (j = 0; j < cols->n; j++)
		{
			const char *c = json_get_string(cols->items[j], "name");

			if (c && strcmp(c, col) == 0 && !json_truthy(json_get(cols->items[j], "ignore")))
				break;
		}
		if (j == cols->n)
			continue;
		initStringInfo(&f);
		filter = json_get_string(t, "filter");
		if (filter != NULL)
			appendStringInfo(&f, "(\n%s\n) AND ", filter);
		appendStringInfoString(&f, cond);
		json_set(t, "filter", json_new(JV_STRING, f.data));
		n++;
	}
	return n;
}
