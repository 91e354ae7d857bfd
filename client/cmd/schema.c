/*-------------------------------------------------------------------------
 *
 * schema.c
 *	  exwiw schema generate | check | tidy --from-db: the schema config
 *	  kept in step with the database, from exwiw_config_from_catalog().
 *
 * generate writes one JSON file per table (DIR/<table>.json, or the one
 * file when --schema-dir names a file), merged with what is there, by the
 * Ruby client's rules: the committed file wins for comment, filter,
 * ignore, bulk_insert_chunk_size and any other key; primary_key comes
 * from the catalog; belongs_tos are the committed ones, verbatim, plus
 * the newly found foreign keys; columns follow the table's order, a
 * committed column's entry kept whole (its mask, its decision), new ones
 * added, dropped ones gone.
 *
 * Safe mode: once a config exists, nothing new goes out unreviewed.  A
 * column that was not in the committed config, and every column of a
 * table that was not, is written with "needs_mask_decision": true (key
 * columns excepted), whatever the catalog thinks of it; the export then
 * refuses it until someone decides (a mask, or false), and check lists
 * it.  (A column that is not in the config is not exported at all, so a
 * column added to a table after its config was written never leaves the
 * database before a regenerate.)  The first generate, into an empty
 * directory, keeps the catalog's own marks (columns that look
 * sensitive).  EXWIW_NEW_COLUMNS=plain turns safe mode off, as in the Ruby
 * client.
 *
 * check compares the committed config with the catalog and prints a JSON
 * report (also to $EXWIW_SCHEMA_CHECK_OUTPUT): added_tables,
 * added_columns, added_belongs_tos (new foreign keys), removed_tables,
 * removed_columns, changed_tables (the regenerated file would differ),
 * needs_mask_decision (columns the export would refuse), needs_table_decision
 * (polymorphic arms whose type maps to no table), stale_tables and
 * stale_columns (removed ones the export reads).  Exit status: 0 clean,
 * 1 when the config needs work (with --fail-on=stale: only when something
 * stale), 2 when the check could not run.
 *
 * tidy removes what the database no longer has: configs of dropped
 * tables, dropped columns, belongs_tos to dropped tables.
 *
 *-------------------------------------------------------------------------
 */
#include "cli.h"

#include <sys/stat.h>
#include <unistd.h>

static const char *const table_key_order[] = {
	"name", "primary_key", "type", "comment", "filter", "belongs_tos",
	"columns", "bulk_insert_chunk_size", "ignore", "scope_exempt",
	"scope_column", "id_space", "reverse_scope", "batch_scope", NULL
};
static const char *const belongs_to_key_order[] = {
	"foreign_key", "table_name", "foreign_type", "type_value", "references",
	"needs_table_decision", "proposed", "evidence", "comment", "ignore", "ignore_type", NULL
};
static const char *const column_key_order[] = {
	"name", "replace_with", "raw_sql", "raw_sql_trusted", "map", "replace_with_fake_data",
	"comment", "ignore", "needs_mask_decision", NULL
};

/* A sorted list of report entries. */
typedef struct NameList
{
	int			n;
	char	  **names;
} NameList;

/*
 * list_add
 *		Add a name (kept sorted later).
 */
static void
list_add(NameList *l, char *name)
{
	l->names = pg_realloc(l->names, sizeof(char *) * (l->n + 1));
	l->names[l->n++] = name;
}

/*
 * str_cmp
 *		qsort: byte order.
 */
static int
str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/*
 * list_json
 *		The sorted list as a JSON array.
 */
static JsonValue *
list_json(NameList *l)
{
	JsonValue  *a = json_new(JV_ARRAY, NULL);
	int			i;

	if (l->n > 1)
		qsort(l->names, l->n, sizeof(char *), str_cmp);
	for (i = 0; i < l->n; i++)
		json_append(a, json_new(JV_STRING, l->names[i]));
	return a;
}

/*
 * catalog_tables
 *		exwiw_config_from_catalog()'s tables; *note its top-level comment
 *		(pg_stat_statements could not be read), or NULL.
 */
static JsonValue *
catalog_tables(PGconn *conn, const char **note)
{
	PGresult   *res;
	char	   *nsp;
	char	   *sql;
	char	   *err = NULL;
	JsonValue  *v;
	JsonValue  *tables;

	nsp = exwiw_extension_schema(conn);
	sql = psprintf("SELECT %s.exwiw_config_from_catalog()::pg_catalog.text", nsp);
	res = exec_checked(conn, sql, "could not read the schema from the catalog");
	v = json_parse(PQgetvalue(res, 0, 0), PQgetlength(res, 0, 0), &err);
	if (v == NULL || (tables = json_get(v, "tables")) == NULL || tables->kind != JV_ARRAY)
	{
		pg_log_error("exwiw_config_from_catalog() returned an unexpected document");
		exit(exwiw_error_exit);
	}
	*note = json_get_string(v, "comment");
	PQclear(res);
	return tables;
}

/*
 * find_table
 *		The committed table named name, or NULL.
 */
static SchemaTable *
find_table(SchemaConfig *cfg, const char *name)
{
	int			i;

	for (i = 0; i < cfg->ntables; i++)
	{
		const char *n = schema_table_name(&cfg->tables[i]);

		if (n && strcmp(n, name) == 0)
			return &cfg->tables[i];
	}
	return NULL;
}

/*
 * find_column
 *		The column entry named name in a table config, or NULL.
 */
static JsonValue *
find_column(const JsonValue *table, const char *name)
{
	JsonValue  *cols = json_get(table, "columns");
	int			i;

	if (cols == NULL || cols->kind != JV_ARRAY)
		return NULL;
	for (i = 0; i < cols->n; i++)
	{
		const char *n = json_get_string(cols->items[i], "name");

		if (n && strcmp(n, name) == 0)
			return cols->items[i];
	}
	return NULL;
}

/*
 * same_belongs_to
 *		Whether two belongs_tos are the same edge: same foreign_key and
 *		table_name; for polymorphic arms, same foreign_key, foreign_type and
 *		type_value (an arm that waited for its table, "needs_table_decision",
 *		is the one a person then gave a table_name).
 */
static bool
same_belongs_to(const JsonValue *a, const JsonValue *b)
{
	JsonValue  *fa = json_get(a, "foreign_key");
	JsonValue  *fb = json_get(b, "foreign_key");
	const char *ta = json_get_string(a, "table_name");
	const char *tb = json_get_string(b, "table_name");
	const char *va = json_get_string(a, "type_value");
	const char *vb = json_get_string(b, "type_value");

	if (fa == NULL || fb == NULL || !json_equal(fa, fb))
		return false;
	if (va != NULL && vb != NULL)
	{
		const char *ya = json_get_string(a, "foreign_type");
		const char *yb = json_get_string(b, "foreign_type");

		return strcmp(va, vb) == 0 && ya != NULL && yb != NULL &&
			strcmp(ya, yb) == 0;
	}
	if ((ta == NULL) != (tb == NULL))
		return false;
	return ta == NULL || strcmp(ta, tb) == 0;
}

/*
 * has_belongs_to
 *		Whether the list holds the same edge as b.
 */
static bool
has_belongs_to(const JsonValue *list, const JsonValue *b)
{
	int			i;

	for (i = 0; list && list->kind == JV_ARRAY && i < list->n; i++)
		if (same_belongs_to(list->items[i], b))
			return true;
	return false;
}

/*
 * decided_elsewhere
 *		Whether b is a proposal (from the catalog) for a column that the
 *		list already has a belongs_to for: accepted, rejected, or written
 *		by hand, the person's decision stands.
 */
static bool
decided_elsewhere(const JsonValue *list, const JsonValue *b)
{
	JsonValue  *fk = json_get(b, "foreign_key");
	int			i;

	if (!json_truthy(json_get(b, "proposed")) || fk == NULL)
		return false;
	for (i = 0; list && list->kind == JV_ARRAY && i < list->n; i++)
	{
		JsonValue  *o = json_get(list->items[i], "foreign_key");

		if (o != NULL && json_equal(o, fk) && json_get(list->items[i], "type_value") == NULL)
			return true;
	}
	return false;
}

/*
 * value_names
 *		Whether name is v (a string) or in v (an array of strings).
 */
static bool
value_names(const JsonValue *v, const char *name)
{
	int			i;

	if (v == NULL)
		return false;
	if (v->kind == JV_STRING)
		return strcmp(v->str, name) == 0;
	for (i = 0; v->kind == JV_ARRAY && i < v->n; i++)
		if (v->items[i]->kind == JV_STRING && strcmp(v->items[i]->str, name) == 0)
			return true;
	return false;
}

/*
 * is_key_column
 *		A primary key or foreign key column of the table config, or the
 *		type column of a polymorphic one (it holds class names).
 */
static bool
is_key_column(const JsonValue *table, const char *name)
{
	JsonValue  *bts = json_get(table, "belongs_tos");
	int			i;

	if (value_names(json_get(table, "primary_key"), name))
		return true;
	for (i = 0; bts && bts->kind == JV_ARRAY && i < bts->n; i++)
		if (value_names(json_get(bts->items[i], "foreign_key"), name) ||
			value_names(json_get(bts->items[i], "foreign_type"), name))
			return true;
	return false;
}

/*
 * canonical
 *		A table config with its keys (and its belongs_tos' and columns')
 *		in the Ruby client's order, null members left out.
 */
static JsonValue *
canonical(const JsonValue *table)
{
	JsonValue  *t = json_reorder(table, table_key_order);
	JsonValue  *v;
	int			i;

	for (i = t->n - 1; i >= 0; i--)
		if (t->items[i]->kind == JV_NULL)
			json_remove(t, t->keys[i]);
	if ((v = json_get(t, "belongs_tos")) == NULL)
		json_set(t, "belongs_tos", json_new(JV_ARRAY, NULL));
	else if (v->kind == JV_ARRAY)
	{
		JsonValue  *a = json_new(JV_ARRAY, NULL);

		for (i = 0; i < v->n; i++)
			json_append(a, v->items[i]->kind == JV_OBJECT ?
						json_reorder(v->items[i], belongs_to_key_order) : v->items[i]);
		json_set(t, "belongs_tos", a);
	}
	if ((v = json_get(t, "columns")) == NULL)
		json_set(t, "columns", json_new(JV_ARRAY, NULL));
	else if (v->kind == JV_ARRAY)
	{
		JsonValue  *a = json_new(JV_ARRAY, NULL);

		for (i = 0; i < v->n; i++)
			json_append(a, v->items[i]->kind == JV_OBJECT ?
						json_reorder(v->items[i], column_key_order) : v->items[i]);
		json_set(t, "columns", a);
	}
	return json_reorder(t, table_key_order);
}

/*
 * mark_undecided
 *		"needs_mask_decision": true on a column entry.
 */
static void
mark_undecided(JsonValue *col)
{
	json_set(col, "needs_mask_decision", json_new(JV_BOOL, "true"));
}

/*
 * merge_table
 *		The regenerated config of a catalog table: committed (or NULL)
 *		merged with the catalog's, by the rules in the header.
 */
static JsonValue *
merge_table(const JsonValue *committed, const JsonValue *catalog, bool safe_new)
{
	JsonValue  *t;
	JsonValue  *cols = json_new(JV_ARRAY, NULL);
	JsonValue  *catcols = json_get(catalog, "columns");
	JsonValue  *catbts = json_get(catalog, "belongs_tos");
	int			i;

	if (committed == NULL)
	{
		t = json_copy(catalog);
		if (safe_new)
		{
			JsonValue  *c = json_get(t, "columns");

			for (i = 0; c && i < c->n; i++)
			{
				const char *name = json_get_string(c->items[i], "name");

				if (name && !is_key_column(t, name))
					mark_undecided(c->items[i]);
			}
		}
		return canonical(t);
	}

	t = json_copy(committed);
	/* primary_key from the catalog */
	if (json_get(catalog, "primary_key"))
		json_set(t, "primary_key", json_copy(json_get(catalog, "primary_key")));
	/* a generated comment when the committed file has none */
	if (json_get(t, "comment") == NULL && json_get(catalog, "comment"))
		json_set(t, "comment", json_copy(json_get(catalog, "comment")));
	/* belongs_tos: the committed ones, then new foreign keys */
	{
		JsonValue  *bts = json_get(t, "belongs_tos");

		if (bts == NULL || bts->kind != JV_ARRAY)
		{
			bts = json_new(JV_ARRAY, NULL);
			json_set(t, "belongs_tos", bts);
		}
		for (i = 0; catbts && i < catbts->n; i++)
			if (!has_belongs_to(bts, catbts->items[i]) &&
				!decided_elsewhere(bts, catbts->items[i]))
				json_append(bts, json_copy(catbts->items[i]));
	}
	/* columns: the table's order, committed entries kept */
	for (i = 0; catcols && i < catcols->n; i++)
	{
		const char *name = json_get_string(catcols->items[i], "name");
		JsonValue  *old = name ? find_column(committed, name) : NULL;

		if (old)
			json_append(cols, json_copy(old));
		else
		{
			JsonValue  *c = json_copy(catcols->items[i]);

			if (safe_new && name && !is_key_column(t, name))
				mark_undecided(c);
			json_append(cols, c);
		}
	}
	json_set(t, "columns", cols);
	return canonical(t);
}

/*
 * pretty_text
 *		A config's file text: pretty JSON and a newline.
 */
static char *
pretty_text(const JsonValue *v)
{
	StringInfoData s;

	initStringInfo(&s);
	json_print_pretty(&s, v);
	appendStringInfoChar(&s, '\n');
	return s.data;
}

/*
 * write_if_changed
 *		Write path unless it already holds exactly text.
 */
static void
write_if_changed(const char *path, const char *text)
{
	size_t		len;
	char	   *old = read_whole_file(path, &len);

	if (old != NULL && len == strlen(text) && memcmp(old, text, len) == 0)
		return;
	write_file_durably(path, text, strlen(text));
	pg_log_debug("wrote %s", path);
}

/*
 * single_file_mode
 *		Whether the location is (or will be) one JSON file.
 */
static bool
single_file_mode(const SchemaConfig *cfg)
{
	size_t		l = strlen(cfg->location);

	if (cfg->single_file)
		return true;
	return cfg->ntables == 0 && l > 5 && strcmp(cfg->location + l - 5, ".json") == 0 &&
		access(cfg->location, F_OK) != 0;
}

/* An output file and the tables it holds. */
typedef struct OutConfig
{
	char	   *path;
	JsonValue  *tables;			/* array */
} OutConfig;

/*
 * add_out
 *		Put a table into the file at path.
 */
static void
add_out(OutConfig **outs, int *nouts, const char *path, JsonValue *table)
{
	int			i;

	for (i = 0; i < *nouts; i++)
	{
		if (strcmp((*outs)[i].path, path) == 0)
		{
			json_append((*outs)[i].tables, table);
			return;
		}
	}
	*outs = pg_realloc(*outs, sizeof(OutConfig) * (*nouts + 1));
	(*outs)[*nouts].path = pg_strdup(path);
	(*outs)[*nouts].tables = json_new(JV_ARRAY, NULL);
	json_append((*outs)[*nouts].tables, table);
	(*nouts)++;
}

/*
 * count_tables_in
 *		How many committed tables came from path.
 */
static int
count_tables_in(const SchemaConfig *cfg, const char *path)
{
	int			i,
				n = 0;

	for (i = 0; i < cfg->ntables; i++)
		if (cfg->tables[i].path && strcmp(cfg->tables[i].path, path) == 0)
			n++;
	return n;
}

/*
 * write_config
 *		Write the tables (a list of (committed path or NULL, config)),
 *		one file per table in a directory, or the one file.
 */
static void
write_config(SchemaConfig *cfg, SchemaTable *tables, int n, bool single)
{
	OutConfig  *outs = NULL;
	int			nouts = 0;
	int			i;

	if (single)
	{
		JsonValue  *arr = json_new(JV_ARRAY, NULL);

		for (i = 0; i < n; i++)
			json_append(arr, tables[i].config);
		write_if_changed(cfg->location, pretty_text(arr));
		return;
	}
	if (mkdir(cfg->location, OUTPUT_DIR_MODE) != 0 && errno != EEXIST)
		pg_fatal("could not create directory \"%s\": %m", cfg->location);
	for (i = 0; i < n; i++)
	{
		const char *name = json_get_string(tables[i].config, "name");
		const char *path = tables[i].path ? tables[i].path :
			schema_table_file_name(cfg->location, name ? name : "unnamed");

		add_out(&outs, &nouts, path, tables[i].config);
	}
	for (i = 0; i < nouts; i++)
	{
		bool		was_array = count_tables_in(cfg, outs[i].path) > 1;

		if (outs[i].tables->n == 1 && !was_array)
			write_if_changed(outs[i].path, pretty_text(outs[i].tables->items[0]));
		else
			write_if_changed(outs[i].path, pretty_text(outs[i].tables));
	}
}

/*
 * regenerate
 *		The regenerated tables: every committed table (merged with the
 *		catalog when the catalog has it), then the catalog's new tables.
 */
static SchemaTable *
regenerate(SchemaConfig *cfg, JsonValue *catalog, int *n)
{
	bool		safe = cfg->ntables > 0;
	const char *env = getenv("EXWIW_NEW_COLUMNS");
	SchemaTable *out = pg_malloc0(sizeof(SchemaTable) * (cfg->ntables + catalog->n + 1));
	int			i,
				j;

	if (env && strcmp(env, "plain") == 0)
		safe = false;
	*n = 0;
	for (i = 0; i < cfg->ntables; i++)
	{
		const char *name = schema_table_name(&cfg->tables[i]);
		JsonValue  *cat = NULL;

		for (j = 0; name && j < catalog->n; j++)
			if (strcmp(json_get_string(catalog->items[j], "name"), name) == 0)
				cat = catalog->items[j];
		out[*n].path = cfg->tables[i].path;
		out[*n].config = cat ? merge_table(cfg->tables[i].config, cat, safe) :
			canonical(cfg->tables[i].config);
		(*n)++;
	}
	for (j = 0; j < catalog->n; j++)
	{
		const char *name = json_get_string(catalog->items[j], "name");

		if (name && find_table(cfg, name) == NULL)
		{
			out[*n].path = NULL;
			out[*n].config = merge_table(NULL, catalog->items[j], safe);
			(*n)++;
		}
	}
	return out;
}

/*
 * run_check
 *		schema check: the report and the exit status.
 */
static int
run_check(CliOptions *opts, SchemaConfig *cfg, JsonValue *catalog)
{
	NameList	added_tables = {0},
				added_columns = {0},
				added_bts = {0},
				removed_tables = {0},
				removed_columns = {0},
				changed = {0},
				undecided = {0},
				untyped = {0},
				proposed = {0},
				stale_tables = {0},
				stale_columns = {0};
	SchemaTable *regen;
	int			nregen,
				i,
				j;
	JsonValue  *report = json_new(JV_OBJECT, NULL);
	char	   *text;
	bool		stale_only = opts->fail_on && strcmp(opts->fail_on, "stale") == 0;
	const char *outpath = getenv("EXWIW_SCHEMA_CHECK_OUTPUT");
	bool		clean;

	regen = regenerate(cfg, catalog, &nregen);
	for (j = 0; j < catalog->n; j++)
	{
		const char *name = json_get_string(catalog->items[j], "name");
		SchemaTable *t = find_table(cfg, name);
		JsonValue  *cols = json_get(catalog->items[j], "columns");
		JsonValue  *bts = json_get(catalog->items[j], "belongs_tos");

		if (t == NULL)
		{
			list_add(&added_tables, pg_strdup(name));
			continue;
		}
		for (i = 0; cols && i < cols->n; i++)
		{
			const char *c = json_get_string(cols->items[i], "name");

			if (c && find_column(t->config, c) == NULL)
				list_add(&added_columns, psprintf("%s.%s", name, c));
		}
		for (i = 0; bts && i < bts->n; i++)
		{
			if (!has_belongs_to(json_get(t->config, "belongs_tos"), bts->items[i]) &&
				!decided_elsewhere(json_get(t->config, "belongs_tos"), bts->items[i]))
			{
				StringInfoData s;

				JsonValue  *fk = json_get(bts->items[i], "foreign_key");
				int			k;

				initStringInfo(&s);
				if (fk && fk->kind == JV_STRING)
					appendStringInfo(&s, "%s.%s", name, fk->str);
				else
				{
					/* a composite key: table.(a, b) */
					appendStringInfo(&s, "%s.(", name);
					for (k = 0; fk && fk->kind == JV_ARRAY && k < fk->n; k++)
						appendStringInfo(&s, "%s%s", k ? ", " : "", fk->items[k]->str ? fk->items[k]->str : "?");
					appendStringInfoChar(&s, ')');
				}
				appendStringInfo(&s, " -> %s", json_get_string(bts->items[i], "table_name") ?
								 json_get_string(bts->items[i], "table_name") : "(no table yet)");
				list_add(&added_bts, s.data);
			}
		}
	}
	for (i = 0; i < cfg->ntables; i++)
	{
		const char *name = schema_table_name(&cfg->tables[i]);
		JsonValue  *tcfg = cfg->tables[i].config;
		JsonValue  *cat = NULL;
		JsonValue  *cols = json_get(tcfg, "columns");
		JsonValue  *bts = json_get(tcfg, "belongs_tos");
		bool		ignored = json_truthy(json_get(tcfg, "ignore"));

		if (name == NULL)
			continue;
		for (j = 0; j < catalog->n; j++)
			if (strcmp(json_get_string(catalog->items[j], "name"), name) == 0)
				cat = catalog->items[j];
		if (cat == NULL)
		{
			list_add(&removed_tables, pg_strdup(name));
			if (!ignored)
				list_add(&stale_tables, pg_strdup(name));
			continue;
		}
		for (j = 0; cols && cols->kind == JV_ARRAY && j < cols->n; j++)
		{
			const char *c = json_get_string(cols->items[j], "name");

			if (c == NULL)
				continue;
			if (find_column(cat, c) == NULL)
			{
				list_add(&removed_columns, psprintf("%s.%s", name, c));
				if (!ignored && !json_truthy(json_get(cols->items[j], "ignore")))
					list_add(&stale_columns, psprintf("%s.%s", name, c));
			}
			else if (!ignored && !schema_column_decided(cols->items[j]))
				list_add(&undecided, psprintf("%s.%s", name, c));
		}
		for (j = 0; !ignored && bts && bts->kind == JV_ARRAY && j < bts->n; j++)
		{
			JsonValue  *b = bts->items[j];

			if (schema_arm_undecided(b))
				list_add(&untyped, psprintf("%s.%s = '%s'", name,
											json_get_string(b, "foreign_type") ? json_get_string(b, "foreign_type") : "?",
											json_get_string(b, "type_value") ? json_get_string(b, "type_value") : "?"));
			else if (schema_belongs_to_proposed(b))
				list_add(&proposed, schema_proposal_name(name, b));
		}
		for (j = 0; j < nregen; j++)
		{
			const char *rn = json_get_string(regen[j].config, "name");

			if (rn && strcmp(rn, name) == 0 && !json_equal(canonical(tcfg), regen[j].config))
				list_add(&changed, pg_strdup(name));
		}
	}

	json_set(report, "added_tables", list_json(&added_tables));
	json_set(report, "added_columns", list_json(&added_columns));
	json_set(report, "added_belongs_tos", list_json(&added_bts));
	json_set(report, "removed_tables", list_json(&removed_tables));
	json_set(report, "removed_columns", list_json(&removed_columns));
	json_set(report, "changed_tables", list_json(&changed));
	json_set(report, "needs_mask_decision", list_json(&undecided));
	json_set(report, "needs_table_decision", list_json(&untyped));
	json_set(report, "proposed_belongs_tos", list_json(&proposed));
	json_set(report, "stale_tables", list_json(&stale_tables));
	json_set(report, "stale_columns", list_json(&stale_columns));
	text = pretty_text(report);

	fputs(text, stdout);
	fflush(stdout);
	if (outpath && outpath[0])
		write_file_durably(outpath, text, strlen(text));

	clean = added_tables.n + added_columns.n + added_bts.n + removed_tables.n +
		removed_columns.n + changed.n + undecided.n + untyped.n + proposed.n +
		stale_tables.n + stale_columns.n == 0;
	if (clean)
		return 0;
	if (stale_tables.n + stale_columns.n == 0)
	{
		if (stale_only)
		{
			fprintf(stderr, "exwiw: the schema config has drifted, but nothing the extraction reads is stale (--fail-on=stale); run `exwiw schema generate --from-db` at your leisure.\n");
			return 0;
		}
		fprintf(stderr, "exwiw: the schema config is out of date or has undecided masking; run `exwiw schema generate --from-db` (then `exwiw schema tidy --from-db`) and resolve every `needs_mask_decision` column, `needs_table_decision` arm and `proposed` belongs_to.\n");
		return 1;
	}
	else
	{
		StringInfoData s;
		NameList	all = {0};

		for (i = 0; i < stale_tables.n; i++)
			list_add(&all, stale_tables.names[i]);
		for (i = 0; i < stale_columns.n; i++)
			list_add(&all, stale_columns.names[i]);
		initStringInfo(&s);
		for (i = 0; i < all.n && i < 10; i++)
			appendStringInfo(&s, "%s%s", i ? ", " : "", all.names[i]);
		if (all.n > 10)
			appendStringInfo(&s, " and %d more (see the report)", all.n - 10);
		fprintf(stderr, "exwiw: the config still references %s \xE2\x80\x94 gone from the database, so an extraction SELECT would fail on them; run `exwiw schema generate --from-db` (then `exwiw schema tidy --from-db`) to drop them.\n", s.data);
		if (!stale_only && undecided.n + untyped.n + proposed.n > 0)
			fprintf(stderr, "exwiw: the report also lists undecided columns or arms; resolve those too.\n");
		return 1;
	}
}

/*
 * run_tidy
 *		schema tidy: drop what the database no longer has.
 */
static int
run_tidy(SchemaConfig *cfg, JsonValue *catalog)
{
	SchemaTable *keep = pg_malloc0(sizeof(SchemaTable) * (cfg->ntables + 1));
	int			nkeep = 0;
	bool		changed = false;
	int			i,
				j;

	for (i = 0; i < cfg->ntables; i++)
	{
		const char *name = schema_table_name(&cfg->tables[i]);
		JsonValue  *t = json_copy(cfg->tables[i].config);
		JsonValue  *cat = NULL;
		JsonValue  *cols = json_get(t, "columns");
		JsonValue  *bts = json_get(t, "belongs_tos");
		StringInfoData gone;

		for (j = 0; name && j < catalog->n; j++)
			if (strcmp(json_get_string(catalog->items[j], "name"), name) == 0)
				cat = catalog->items[j];
		if (cat == NULL)
		{
			printf("exwiw: removed config for table '%s' (no longer exists in the database).\n", name ? name : "?");
			changed = true;
			if (cfg->tables[i].path && !cfg->single_file &&
				count_tables_in(cfg, cfg->tables[i].path) == 1)
			{
				if (unlink(cfg->tables[i].path) != 0)
					pg_fatal("could not remove \"%s\": %m", cfg->tables[i].path);
			}
			continue;
		}
		initStringInfo(&gone);
		for (j = 0; cols && cols->kind == JV_ARRAY && j < cols->n; j++)
		{
			const char *c = json_get_string(cols->items[j], "name");

			if (c && find_column(cat, c) == NULL)
			{
				appendStringInfo(&gone, "%s%s", gone.len ? ", " : "", c);
				memmove(&cols->items[j], &cols->items[j + 1], sizeof(JsonValue *) * (cols->n - j - 1));
				cols->n--;
				j--;
			}
		}
		if (gone.len)
		{
			printf("exwiw: removed column(s) %s from '%s' (no longer in the table).\n", gone.data, name);
			changed = true;
		}
		resetStringInfo(&gone);
		for (j = 0; bts && bts->kind == JV_ARRAY && j < bts->n; j++)
		{
			const char *p = json_get_string(bts->items[j], "table_name");
			int			k;
			bool		exists = false;

			for (k = 0; p && k < catalog->n; k++)
				exists |= strcmp(json_get_string(catalog->items[k], "name"), p) == 0;
			if (p && !exists)
			{
				appendStringInfo(&gone, "%s%s", gone.len ? ", " : "", p);
				memmove(&bts->items[j], &bts->items[j + 1], sizeof(JsonValue *) * (bts->n - j - 1));
				bts->n--;
				j--;
			}
		}
		if (gone.len)
		{
			printf("exwiw: removed belongs_to(s) to %s from '%s' (the target table no longer exists).\n", gone.data, name);
			changed = true;
		}
		keep[nkeep].path = cfg->tables[i].path;
		keep[nkeep].config = canonical(t);
		nkeep++;
	}
	if (!changed)
	{
		printf("exwiw: schema config is already tidy; nothing to remove.\n");
		return 0;
	}
	write_config(cfg, keep, nkeep, cfg->single_file);
	return 0;
}

/*
 * run_schema
 *		schema generate | check | tidy --from-db.
 */
int
run_schema(CliOptions *opts)
{
	SchemaConfig *cfg;
	PGconn	   *conn;
	JsonValue  *catalog;
	const char *note;
	int			rc = 0;

	if (opts->verb == VERB_CHECK)
		exwiw_error_exit = 2;	/* could not run the check */
	cfg = schema_config_load(opts->schema_dir, opts->verb != VERB_GENERATE);
	setup_cancel_handler_multi();
	conn = exwiw_connect(opts, "schema");
	catalog = catalog_tables(conn, &note);

	switch (opts->verb)
	{
		case VERB_GENERATE:
			{
				int			n;
				SchemaTable *tables = regenerate(cfg, catalog, &n);

				write_config(cfg, tables, n, single_file_mode(cfg));
				printf("exwiw: wrote the schema config for %s to %s.\n", PQdb(conn), cfg->location);
				/* not installed: silent (the catalog's comment says so) */
				if (note && strncmp(note, "pg_stat_statements is not installed", 35) != 0)
					printf("exwiw: %s.\n", note);
				break;
			}
		case VERB_CHECK:
			rc = run_check(opts, cfg, catalog);
			break;
		case VERB_TIDY:
			rc = run_tidy(cfg, catalog);
			break;
		default:
			rc = 1;
	}
	exwiw_disconnect(conn);
	return rc;
}
