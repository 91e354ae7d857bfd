/*-------------------------------------------------------------------------
 *
 * verify_fk.c
 *	  exwiw verify's second half: every foreign key inside an export
 *	  resolves within it.
 *
 * manifest.json lists the foreign keys whose both tables have files in the
 * export ("foreign_keys": constraint, table, columns, references,
 * ref_columns; manifest_write reads them from the catalog on the export's
 * snapshot).  For each of them, the referenced tables' files are read
 * first, and the keys of their rows (ref_columns) kept, sorted, in memory;
 * then the referencing table's files are read, row by row, and a row whose
 * columns are all non-NULL (MATCH SIMPLE: a NULL in any column satisfies
 * the key) and whose key is not among them is named: its file, its line,
 * the constraint, and its key values unless one of the key's columns is
 * masked (a masked value never reaches a message).  Keys are compared as
 * the files write them (the text of the literal, or of the COPY field),
 * the same value of the same type being written the same way on both
 * sides.  Memory: the referenced keys of one constraint at a time (the
 * parent rows of one export, which a tenant's export holds anyway); the
 * referencing rows stream.
 *
 * INSERT files are split as the loader splits them (sql_split.c), their
 * tuples read value by value; COPY files' data lines field by field.
 * JSON Lines exports are not checked (exwiw load does not load them).  A
 * key whose column a file does not write (an ignored column) is not
 * checked.
 *
 *-------------------------------------------------------------------------
 */
#include "cli.h"

#include "mb/pg_wchar.h"

/* how many rows of one constraint a failed check names */
#define FK_ROWS_NAMED	10

/* The values of one row, as the file writes them; NULL: SQL NULL. */
typedef struct FkRow
{
	int			n;
	char	  **names;			/* the file's column names */
	char	  **values;
	int			line;
} FkRow;

typedef void (*FkRowFn) (const FkRow *row, void *arg);

/* One key being collected or checked. */
typedef struct FkCheck
{
	const char *file;
	int			ncols;
	const char *const *cols;	/* the key's columns */
	bool		masked;			/* one of them is masked: no values shown */
	bool		absent;			/* a column the file does not write */
	/* parent side: the keys, sorted once complete */
	char	  **keys;
	long		nkeys;
	long		capkeys;
	/* child side */
	const char *constraint;
	const char *table;
	const char *references;
	long		bad;
} FkCheck;

/*
 * split_idents
 *		A column list as written ("a, \"B c\""): its names, quotes removed.
 */
static char **
split_idents(const char *list, int *n)
{
	char	  **names = NULL;
	const char *p = list;

	*n = 0;
	while (*p)
	{
		StringInfoData id;

		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ',')
			p++;
		if (*p == '\0')
			break;
		initStringInfo(&id);
		if (*p == '"')
		{
			for (p++; *p; p++)
			{
				if (*p == '"' && p[1] == '"')
					p++;
				else if (*p == '"')
				{
					p++;
					break;
				}
				appendStringInfoChar(&id, *p);
			}
		}
		else
			for (; *p && *p != ',' && *p != ' ' && *p != '\n'; p++)
				appendStringInfoChar(&id, pg_tolower((unsigned char) *p));
		names = pg_realloc(names, sizeof(char *) * (*n + 1));
		names[(*n)++] = id.data;
	}
	return names;
}

/*
 * insert_tuples
 *		The rows of an INSERT statement's VALUES list, each to fn: the text
 *		after "VALUES" (looked for from after, the end of the column list),
 *		tuples of string literals ('...', quotes doubled),
 *		NULL, or other tokens up to a comma or parenthesis at depth 0.
 */
static void
insert_tuples(const SqlStatement *st, const char *after, char **names, int ncols,
			  FkRowFn fn, void *arg)
{
	const char *p;
	const char *v = NULL;
	FkRow		row;
	int			line = st->line;

	/* the lines of the header, up to after the column list */
	for (p = st->text; p < after; p++)
		line += (*p == '\n');
	/* the VALUES keyword (a word of its own), then the first tuple */
	for (; *p; p++)
	{
		if (*p == '\n')
			line++;
		if (*p == '(' && v != NULL)
			break;
		if (pg_strncasecmp(p, "VALUES", 6) == 0 && (p[6] == '\n' || p[6] == ' ') &&
			(p[-1] == ' ' || p[-1] == '\n' || p[-1] == ')'))
			v = p;
	}
	row.names = names;
	row.values = pg_malloc0(sizeof(char *) * Max(ncols, 1));
	while (*p == '(')
	{
		int			i;

		exit_if_cancelled();
		row.n = 0;
		row.line = line;
		p++;
		for (;;)
		{
			const char *t0;
			int			depth = 0;

			while (*p == ' ' || *p == '\n')
				line += (*p++ == '\n');
			t0 = p;
			if (*p == '\'')
			{
				for (p++; *p; p++)
				{
					if (*p == '\n')
						line++;
					if (*p == '\'' && p[1] == '\'')
						p++;
					else if (*p == '\'')
					{
						p++;
						break;
					}
				}
			}
			for (; *p && !(depth == 0 && (*p == ',' || *p == ')')); p++)
				depth += (*p == '(') - (*p == ')');
			if (row.n < ncols)
				row.values[row.n++] = (p - t0 == 4 && strncmp(t0, "NULL", 4) == 0) ?
					NULL : pnstrdup(t0, p - t0);
			if (*p != ',')
				break;
			p++;
		}
		if (*p == ')')
			p++;
		if (row.n == ncols)
			fn(&row, arg);
		for (i = 0; i < row.n; i++)
			pg_free(row.values[i]);
		while (*p == ' ' || *p == '\n' || *p == ',')
			line += (*p++ == '\n');
	}
	pg_free(row.values);
}

/* What copy_lines needs. */
typedef struct CopyRows
{
	FkRow		row;
	int			ncols;
	FkRowFn		fn;
	void	   *arg;
} CopyRows;

/*
 * copy_lines
 *		split_copy_data's callback: each whole line of COPY text data, its
 *		fields (tab-separated, \N NULL) to the row function.
 */
static bool
copy_lines(const char *data, size_t len, void *arg)
{
	CopyRows   *c = arg;
	const char *end = data + len;

	while (data < end)
	{
		const char *nl = memchr(data, '\n', end - data);
		const char *le = nl ? nl : end;
		const char *f = data;
		int			i;

		exit_if_cancelled();
		c->row.n = 0;
		while (c->row.n < c->ncols)
		{
			const char *t = memchr(f, '\t', le - f);
			const char *fe = t ? t : le;

			c->row.values[c->row.n++] = (fe - f == 2 && f[0] == '\\' && f[1] == 'N') ?
				NULL : pnstrdup(f, fe - f);
			if (t == NULL)
				break;
			f = t + 1;
		}
		if (c->row.n == c->ncols)
			c->fn(&c->row, c->arg);
		for (i = 0; i < c->row.n; i++)
			pg_free(c->row.values[i]);
		c->row.line++;
		data = le + 1;
	}
	return true;
}

/*
 * read_rows
 *		Every row of file path (INSERT or COPY statements) to fn; SET
 *		client_encoding and standard_conforming_strings followed as the
 *		loader follows them.  False with *error set when the file cannot be
 *		read or split.
 */
static bool
read_rows(const char *path, FkRowFn fn, void *arg, char **error)
{
	SqlSplitter *s = split_open(path);
	SqlStatement st;
	SplitResult r;

	if (s == NULL)
	{
		*error = psprintf("could not open \"%s\": %m", path);
		return false;
	}
	s->encoding = PG_UTF8;
	s->std_strings = true;
	while ((r = split_next(s, &st)) == SPLIT_STATEMENT)
	{
		const char *p = st.text;
		char	   *table,
				   *columns;
		const char *end;
		char	  **names;
		int			ncols;

		while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
			p++;
		if (strcmp(st.first_word, "set") == 0)
		{
			const char *q = strchr(p, '\'');

			if (pg_strncasecmp(p, "SET client_encoding", 19) == 0 && q != NULL)
			{
				char	   *name = pnstrdup(q + 1, strcspn(q + 1, "'"));
				int			enc = pg_char_to_encoding(name);

				if (enc >= 0)
					s->encoding = enc;
			}
			else if (pg_strncasecmp(p, "SET standard_conforming_strings", 31) == 0)
				s->std_strings = strstr(p, "off") == NULL;
			continue;
		}
		if (strcmp(st.first_word, "insert") != 0 && !st.is_copy_from_stdin)
			continue;
		/* past INSERT INTO, or COPY */
		p += strlen(st.first_word);
		if (strcmp(st.first_word, "insert") == 0)
		{
			while (*p == ' ' || *p == '\n')
				p++;
			if (pg_strncasecmp(p, "INTO", 4) == 0)
				p += 4;
		}
		if (!sql_statement_target(p, &table, &columns, &end) || columns == NULL)
		{
			*error = psprintf("%s:%d: a statement without a column list", path, st.line);
			split_close(s);
			return false;
		}
		names = split_idents(columns, &ncols);
		/* after the column list: its "(" follows the name, its ")" closes it */
		end = strchr(end, '(') + 1 + strlen(columns) + 1;
		if (st.is_copy_from_stdin)
		{
			CopyRows	c;
			long		rows;

			c.row.names = names;
			c.row.values = pg_malloc0(sizeof(char *) * Max(ncols, 1));
			c.ncols = ncols;
			c.fn = fn;
			c.arg = arg;
			c.row.line = s->line + 1;
			if (!split_copy_data(s, copy_lines, &c, &rows, &c.row.line))
			{
				*error = psprintf("%s:%d: %s", path, s->errline, s->errmsg);
				split_close(s);
				return false;
			}
			pg_free(c.row.values);
		}
		else
			insert_tuples(&st, end, names, ncols, fn, arg);
	}
	if (r == SPLIT_ERROR)
	{
		*error = psprintf("%s:%d: %s", path, s->errline, s->errmsg);
		split_close(s);
		return false;
	}
	split_close(s);
	return true;
}

/*
 * row_key
 *		The key of row on c's columns: each value length-prefixed, so that
 *		no value's bytes can be mistaken for a separator; NULL when a column
 *		is NULL (MATCH SIMPLE), or not in the file (c->absent set).
 */
static char *
row_key(const FkRow *row, FkCheck *c)
{
	StringInfoData k;
	int			i,
				j;

	initStringInfo(&k);
	for (i = 0; i < c->ncols; i++)
	{
		for (j = 0; j < row->n; j++)
			if (strcmp(row->names[j], c->cols[i]) == 0)
				break;
		if (j == row->n)
		{
			c->absent = true;
			pg_free(k.data);
			return NULL;
		}
		if (row->values[j] == NULL)
		{
			pg_free(k.data);
			return NULL;
		}
		appendStringInfo(&k, "%zu:%s;", strlen(row->values[j]), row->values[j]);
	}
	return k.data;
}

/*
 * collect_key
 *		read_rows' callback for a referenced table: its row's key, kept.
 */
static void
collect_key(const FkRow *row, void *arg)
{
	FkCheck    *c = arg;
	char	   *k = row_key(row, c);

	if (k == NULL)
		return;
	if (c->nkeys == c->capkeys)
	{
		c->capkeys = Max(1024, c->capkeys * 2);
		c->keys = pg_realloc(c->keys, sizeof(char *) * c->capkeys);
	}
	c->keys[c->nkeys++] = k;
}

static int
key_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/*
 * check_key
 *		read_rows' callback for a referencing table: a row whose key is not
 *		among the referenced ones is named (values only when not masked).
 */
static void
check_key(const FkRow *row, void *arg)
{
	FkCheck    *c = arg;
	char	   *k = row_key(row, c);
	StringInfoData vals;
	int			i,
				j;

	if (k == NULL || (c->nkeys > 0 &&
					  bsearch(&k, c->keys, c->nkeys, sizeof(char *), key_cmp) != NULL))
	{
		pg_free(k);
		return;
	}
	pg_free(k);
	if (c->bad++ >= FK_ROWS_NAMED)
		return;
	initStringInfo(&vals);
	for (i = 0; i < c->ncols; i++)
	{
		for (j = 0; j < row->n && strcmp(row->names[j], c->cols[i]) != 0; j++)
			;
		appendStringInfo(&vals, "%s%s = %s", i ? ", " : "", c->cols[i],
						 c->masked ? "(masked)" : row->values[j]);
	}
	pg_log_error("%s, line %d: a row of %s whose foreign key %s (%s) points outside the export: no row of %s has it",
				 c->file, row->line, c->table, c->constraint, vals.data, c->references);
	pg_free(vals.data);
}

/*
 * json_strings
 *		A JSON array of strings as a C array (NULL when it is not one).
 */
static const char **
json_strings(const JsonValue *a, int *n)
{
	const char **s;
	int			i;

	if (a == NULL || a->kind != JV_ARRAY || a->n == 0)
		return NULL;
	s = pg_malloc(sizeof(char *) * a->n);
	for (i = 0; i < a->n; i++)
	{
		if (a->items[i]->kind != JV_STRING)
			return NULL;
		s[i] = a->items[i]->str;
	}
	*n = a->n;
	return s;
}

/*
 * any_masked
 *		Whether the manifest's masks name one of table's columns cols.
 */
static bool
any_masked(const JsonValue *masks, const char *table, const char *const *cols, int n)
{
	int			i,
				j;

	for (i = 0; masks && masks->kind == JV_ARRAY && i < masks->n; i++)
	{
		const char *t = json_get_string(masks->items[i], "table");
		const char *col = json_get_string(masks->items[i], "column");

		if (t == NULL || col == NULL || strcmp(t, table) != 0)
			continue;
		for (j = 0; j < n; j++)
			if (strcmp(col, cols[j]) == 0)
				return true;
	}
	return false;
}

/*
 * read_table
 *		Every file of table in the manifest's files, through fn with c.
 */
static bool
read_table(const char *dir, const JsonValue *files, const char *table,
		   FkRowFn fn, FkCheck *c)
{
	int			i;

	for (i = 0; i < files->n; i++)
	{
		const char *name = json_get_string(files->items[i], "name");
		const char *t = json_get_string(files->items[i], "table");
		char	   *path;
		char	   *err;

		if (name == NULL || t == NULL || strcmp(t, table) != 0 ||
			strncmp(name, "insert-", 7) != 0)
			continue;
		path = psprintf("%s/%s", dir, name);
		c->file = name;
		if (!read_rows(path, fn, c, &err))
		{
			pg_log_error("%s", err);
			return false;
		}
		pg_free(path);
	}
	return true;
}

/*
 * verify_foreign_keys
 *		Check every foreign key the manifest top lists against the files of
 *		directory dir; each row that points outside the export is reported.
 *		Returns whether none does; *nchecked is the constraints checked.
 */
bool
verify_foreign_keys(const char *dir, const JsonValue *top, int *nchecked)
{
	const JsonValue *fks = json_get(top, "foreign_keys");
	const JsonValue *files = json_get(top, "files");
	const JsonValue *masks = json_get(top, "masks");
	const char *format = json_get_string(top, "format");
	int			i;
	bool		ok = true;

	*nchecked = 0;
	if (fks == NULL || fks->kind != JV_ARRAY || files == NULL ||
		(format != NULL && strcmp(format, "jsonl") == 0))
		return true;
	for (i = 0; i < fks->n; i++)
	{
		const JsonValue *fk = fks->items[i];
		const char *table = json_get_string(fk, "table");
		const char *ref = json_get_string(fk, "references");
		const char *con = json_get_string(fk, "constraint");
		int			ncols = 0,
					nref = 0;
		const char **cols = json_strings(json_get(fk, "columns"), &ncols);
		const char **refcols = json_strings(json_get(fk, "ref_columns"), &nref);
		FkCheck		parent = {0};
		FkCheck		child = {0};
		long		k;

		if (table == NULL || ref == NULL || con == NULL || cols == NULL ||
			refcols == NULL || ncols != nref)
		{
			pg_log_error("manifest.json: foreign key entry %d is incomplete", i + 1);
			ok = false;
			continue;
		}
		parent.ncols = nref;
		parent.cols = refcols;
		if (!read_table(dir, files, ref, collect_key, &parent))
			return false;
		if (parent.nkeys > 0)
			qsort(parent.keys, parent.nkeys, sizeof(char *), key_cmp);
		child = parent;
		child.ncols = ncols;
		child.cols = cols;
		child.absent = false;
		child.masked = any_masked(masks, table, cols, ncols);
		child.constraint = con;
		child.table = table;
		child.references = ref;
		if (!parent.absent &&
			!read_table(dir, files, table, check_key, &child))
			return false;
		if (child.bad > FK_ROWS_NAMED)
			pg_log_error("... and %ld more rows of %s whose foreign key %s points outside the export",
						 child.bad - FK_ROWS_NAMED, table, con);
		if (child.bad > 0)
			ok = false;
		if (!parent.absent && !child.absent)
			(*nchecked)++;
		for (k = 0; k < parent.nkeys; k++)
			pg_free(parent.keys[k]);
		pg_free(parent.keys);
	}
	return ok;
}
