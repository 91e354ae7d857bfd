/*-------------------------------------------------------------------------
 *
 * runconfig.c
 *	  The run config: the Ruby client's YAML file (exwiw.yml), read with
 *	  libyaml.
 *
 * The file is --config FILE, or else the first of ./exwiw.yml and
 * ./exwiw.yaml that exists.  It is a mapping; its keys are the Ruby
 * client's:
 *
 *	adapter schema_dir output_dir output_format after_insert_hook log_level
 *	target_table target_collection ids ids_field scope_column
 *	parallel_workers explain_verbosity mongodb_query_timeout_ms insert_only
 *
 * Connection settings (host port user database uri password) are refused:
 * they belong on the command line or in the environment; any other key is
 * an error.  For explain and schema, the export-only keys (output_dir
 * output_format after_insert_hook parallel_workers insert_only) are
 * dropped, so one file serves
 * every subcommand.  A value fills an option only when the command line
 * left it unset; paths are relative to the file's directory.  "ids" is a
 * string ("1,2"), a list, or a mapping of ID space to either.
 *
 * Bounded: a run config is three levels deep at most (the mapping, "ids"
 * by ID space, a list), so a file nested deeper than RUNCONFIG_MAX_DEPTH
 * or holding more than RUNCONFIG_MAX_ALIASES aliases is refused by a first
 * pass over libyaml's events, which stops there.  Building the document
 * would cost time quadratic in the nesting (libyaml rechecks every open
 * level at each token) and an alias can repeat a large list many times;
 * the first pass's work grows with the file's size only.
 *
 *-------------------------------------------------------------------------
 */
#include "cli.h"

#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

/* far more than a run config needs (3), far less than what is slow */
#define RUNCONFIG_MAX_DEPTH		64
#define RUNCONFIG_MAX_ALIASES	64

static const char *const allowed_keys[] = {
	"adapter", "schema_dir", "output_dir", "output_format",
	"after_insert_hook", "log_level", "target_table", "target_collection",
	"ids", "ids_field", "scope_column", "parallel_workers",
	"explain_verbosity", "mongodb_query_timeout_ms", "insert_only", NULL
};

static const char *const connection_keys[] = {
	"host", "port", "user", "database", "uri", "password", NULL
};

static const char *const export_only_keys[] = {
	"output_dir", "output_format", "after_insert_hook", "parallel_workers",
	"insert_only", NULL
};

/*
 * in_list
 *		Whether s is one of the NULL-terminated list.
 */
static bool
in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(s, *list) == 0)
			return true;
	return false;
}

/*
 * absolute_path
 *		path made absolute against base (a directory); "~/" is $HOME.
 */
static char *
absolute_path(const char *path, const char *base)
{
	char	   *result;

	if (path[0] == '/')
		result = pg_strdup(path);
	else if (path[0] == '~' && (path[1] == '/' || path[1] == '\0') && getenv("HOME"))
		result = psprintf("%s%s", getenv("HOME"), path + 1);
	else
		result = psprintf("%s/%s", base, path);
	canonicalize_path(result);
	return result;
}

/*
 * current_dir
 *		The working directory, or an error.
 */
static char *
current_dir(void)
{
	char		buf[MAXPGPATH];

	if (getcwd(buf, sizeof(buf)) == NULL)
		pg_fatal("could not identify current directory: %m");
	return pg_strdup(buf);
}

/*
 * runconfig_find
 *		The run config's path: the given one (which must be a file), or
 *		./exwiw.yml or ./exwiw.yaml, or NULL.
 */
char *
runconfig_find(const char *given)
{
	struct stat st;
	char	   *cwd = current_dir();

	if (given != NULL)
	{
		char	   *path = absolute_path(given, cwd);

		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		{
			pg_log_error("config file not found: %s", path);
			exit(1);
		}
		return path;
	}
	if (stat("exwiw.yml", &st) == 0 && S_ISREG(st.st_mode))
		return absolute_path("exwiw.yml", cwd);
	if (stat("exwiw.yaml", &st) == 0 && S_ISREG(st.st_mode))
		return absolute_path("exwiw.yaml", cwd);
	return NULL;
}

/*
 * scalar_text
 *		A scalar node's text, or NULL for YAML's null (~, null, empty).
 *		Anything else than a scalar is an error naming the key.
 */
static char *
scalar_text(yaml_node_t * node, const char *key, const char *path)
{
	char	   *value;

	if (node->type != YAML_SCALAR_NODE)
	{
		pg_log_error("config '%s' must be a single value, not a %s (%s)", key,
					 node->type == YAML_SEQUENCE_NODE ? "list" : "mapping", path);
		exit(1);
	}
	value = pnstrdup((const char *) node->data.scalar.value, node->data.scalar.length);
	if (node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
		(value[0] == '\0' || strcmp(value, "~") == 0 || strcmp(value, "null") == 0 ||
		 strcmp(value, "Null") == 0 || strcmp(value, "NULL") == 0))
		return NULL;
	return value;
}

/*
 * ids_from_node
 *		A list of ids from a string ("1,2", split on commas) or a sequence
 *		(each element's text).
 */
static char **
ids_from_node(yaml_document_t * doc, yaml_node_t * node, int *n, const char *path)
{
	if (node->type == YAML_SCALAR_NODE)
	{
		char	   *s = scalar_text(node, "ids", path);

		return split_commas(s ? s : "", n);
	}
	if (node->type == YAML_SEQUENCE_NODE)
	{
		yaml_node_item_t *item;
		int			count = node->data.sequence.items.top - node->data.sequence.items.start;
		char	  **out = pg_malloc0(sizeof(char *) * (count + 1));

		*n = 0;
		for (item = node->data.sequence.items.start; item < node->data.sequence.items.top; item++)
		{
			yaml_node_t *e = yaml_document_get_node(doc, *item);
			char	   *s;

			if (e == NULL || e->type != YAML_SCALAR_NODE)
			{
				pg_log_error("config 'ids' must list single values (%s)", path);
				exit(1);
			}
			s = pnstrdup((const char *) e->data.scalar.value, e->data.scalar.length);
			out[(*n)++] = s;
		}
		return out;
	}
	pg_log_error("config 'ids' must be a string, a list, or a mapping of ID space to ids (%s)", path);
	exit(1);
}

/*
 * apply_ids
 *		The "ids" key, used only when the command line gave no ids.
 */
static void
apply_ids(yaml_document_t * doc, yaml_node_t * node, CliOptions *opts,
		  const char *path)
{
	IdSpaces	ids = {0};
	char	  **values;
	int			n;

	if (node->type == YAML_MAPPING_NODE)
	{
		yaml_node_pair_t *pair;

		for (pair = node->data.mapping.pairs.start; pair < node->data.mapping.pairs.top; pair++)
		{
			yaml_node_t *k = yaml_document_get_node(doc, pair->key);
			yaml_node_t *v = yaml_document_get_node(doc, pair->value);
			char	   *space;

			if (k->type != YAML_SCALAR_NODE)
			{
				pg_log_error("config 'ids' keys must be ID space names in %s", path);
				exit(1);
			}
			space = pnstrdup((const char *) k->data.scalar.value, k->data.scalar.length);
			if (!ids_valid_space_name(space))
			{
				pg_log_error("config 'ids' keys must be ID space names (a lowercase letter followed by lowercase letters, digits or underscores; got \"%s\") in %s",
							 space, path);
				exit(1);
			}
			values = ids_from_node(doc, v, &n, path);
			ids_set_space(&ids, space, values, n);
		}
	}
	else
	{
		values = ids_from_node(doc, node, &n, path);
		ids_set_space(&ids, DEFAULT_ID_SPACE, values, n);
	}
	if (!ids_any_given(&opts->ids))
	{
		opts->ids.n = ids.n;
		opts->ids.spaces = ids.spaces;
	}
}

/*
 * set_if_unset
 *		*field = value when the command line left it unset.
 */
static void
set_if_unset(char **field, char *value)
{
	if (*field == NULL && value != NULL)
		*field = value;
}

/*
 * check_bounds
 *		Parse the len bytes of contents (the file at path) as events only,
 *		and exit with an error at the first event that nests deeper than
 *		RUNCONFIG_MAX_DEPTH or the alias past RUNCONFIG_MAX_ALIASES.  A
 *		syntax error is left to the loader, which reports it.
 */
static void
check_bounds(const char *contents, size_t len, const char *path)
{
	yaml_parser_t parser;
	yaml_event_t event;
	int			depth = 0;
	int			aliases = 0;
	bool		done = false;

	if (!yaml_parser_initialize(&parser))
		pg_fatal("out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *) contents, len);
	while (!done)
	{
		if (!yaml_parser_parse(&parser, &event))
			break;
		switch (event.type)
		{
			case YAML_SEQUENCE_START_EVENT:
			case YAML_MAPPING_START_EVENT:
				if (++depth > RUNCONFIG_MAX_DEPTH)
				{
					pg_log_error("config file %s nests deeper than %d levels, at line %lu",
								 path, RUNCONFIG_MAX_DEPTH,
								 (unsigned long) event.start_mark.line + 1);
					exit(1);
				}
				break;
			case YAML_SEQUENCE_END_EVENT:
			case YAML_MAPPING_END_EVENT:
				depth--;
				break;
			case YAML_ALIAS_EVENT:
				if (++aliases > RUNCONFIG_MAX_ALIASES)
				{
					pg_log_error("config file %s has more than %d aliases, at line %lu",
								 path, RUNCONFIG_MAX_ALIASES,
								 (unsigned long) event.start_mark.line + 1);
					exit(1);
				}
				break;
			case YAML_STREAM_END_EVENT:
				done = true;
				break;
			default:
				break;
		}
		yaml_event_delete(&event);
	}
	yaml_parser_delete(&parser);
}

/*
 * runconfig_apply
 *		Read the file at path and fill the unset options from it.
 */
void
runconfig_apply(const char *path, CliOptions *opts)
{
	char	   *contents;
	size_t		contents_len;
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	yaml_node_pair_t *pair;
	char	   *dir;

	contents = read_whole_file(path, &contents_len);
	if (contents == NULL)
		pg_fatal("could not open config file \"%s\": %m", path);
	check_bounds(contents, contents_len, path);
	if (!yaml_parser_initialize(&parser))
		pg_fatal("out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *) contents,
								 contents_len);
	if (!yaml_parser_load(&parser, &doc))
	{
		pg_log_error("config file %s is not valid YAML: %s at line %lu, column %lu",
					 path, parser.problem ? parser.problem : "parse error",
					 (unsigned long) parser.problem_mark.line + 1,
					 (unsigned long) parser.problem_mark.column + 1);
		exit(1);
	}

	dir = pg_strdup(path);
	get_parent_directory(dir);

	root = yaml_document_get_root_node(&doc);
	if (root == NULL)
		goto done;				/* an empty file is an empty mapping */
	if (root->type != YAML_MAPPING_NODE)
	{
		if (root->type == YAML_SCALAR_NODE && root->data.scalar.length == 0)
			goto done;
		pg_log_error("config file must be a YAML mapping (key: value): %s", path);
		exit(1);
	}

	for (pair = root->data.mapping.pairs.start; pair < root->data.mapping.pairs.top; pair++)
	{
		yaml_node_t *k = yaml_document_get_node(&doc, pair->key);
		yaml_node_t *v = yaml_document_get_node(&doc, pair->value);
		char	   *key;
		char	   *value;

		if (k->type != YAML_SCALAR_NODE)
		{
			pg_log_error("config file must be a YAML mapping (key: value): %s", path);
			exit(1);
		}
		key = pnstrdup((const char *) k->data.scalar.value, k->data.scalar.length);

		if (in_list(key, connection_keys))
		{
			pg_log_error("'%s' is a database connection setting and must be passed via the CLI/environment, not the config file (%s)",
						 key, path);
			exit(1);
		}
		if (!in_list(key, allowed_keys))
		{
			pg_log_error("unknown config key '%s' in %s. Allowed keys: adapter, schema_dir, output_dir, output_format, insert_only, after_insert_hook, log_level, target_table, target_collection, ids, ids_field, scope_column, parallel_workers, explain_verbosity, mongodb_query_timeout_ms",
						 key, path);
			exit(1);
		}
		if (opts->command != CMD_EXPORT && in_list(key, export_only_keys))
			continue;

		if (strcmp(key, "ids") == 0)
		{
			apply_ids(&doc, v, opts, path);
			continue;
		}

		value = scalar_text(v, key, path);
		if (value == NULL)
			continue;
		if (strcmp(key, "adapter") == 0)
			set_if_unset(&opts->adapter, value);
		else if (strcmp(key, "schema_dir") == 0)
		{
			size_t		len = strlen(value);

			while (len > 1 && value[len - 1] == '/')
				value[--len] = '\0';
			set_if_unset(&opts->schema_dir, absolute_path(value, dir));
		}
		else if (strcmp(key, "output_dir") == 0)
		{
			size_t		len = strlen(value);

			while (len > 1 && value[len - 1] == '/')
				value[--len] = '\0';
			set_if_unset(&opts->output_dir, absolute_path(value, dir));
		}
		else if (strcmp(key, "after_insert_hook") == 0)
			set_if_unset(&opts->after_insert_hook, absolute_path(value, dir));
		else if (strcmp(key, "output_format") == 0)
			set_if_unset(&opts->output_format, value);
		else if (strcmp(key, "log_level") == 0)
			set_if_unset(&opts->log_level, value);
		else if (strcmp(key, "target_table") == 0)
			set_if_unset(&opts->target_table, value);
		else if (strcmp(key, "target_collection") == 0)
			set_if_unset(&opts->target_collection, value);
		else if (strcmp(key, "ids_field") == 0)
			set_if_unset(&opts->ids_field, value);
		else if (strcmp(key, "scope_column") == 0)
			set_if_unset(&opts->scope_column, value);
		else if (strcmp(key, "parallel_workers") == 0)
		{
			char	   *end;
			long		n;

			errno = 0;
			n = strtol(value, &end, 10);
			if (errno != 0 || end == value || *end != '\0')
			{
				pg_log_error("config 'parallel_workers' must be an integer (got \"%s\")", value);
				exit(1);
			}
			n = check_parallel_workers(n);
			if (opts->jobs < 0)
				opts->jobs = (int) n;
		}
		else if (strcmp(key, "insert_only") == 0)
		{
			/* a YAML boolean, as the Ruby client reads it */
			bool		b;

			if (strcmp(value, "true") == 0)
				b = true;
			else if (strcmp(value, "false") == 0)
				b = false;
			else
			{
				pg_log_error("config 'insert_only' must be true or false (got \"%s\")", value);
				exit(1);
			}
			if (!opts->given_insert_only)
				opts->insert_only = b;
		}
		else if (strcmp(key, "mongodb_query_timeout_ms") == 0)
		{
			pg_log_error("--mongodb-query-timeout-ms is only supported by the mongodb adapter");
			exit(1);
		}
		/* explain_verbosity: mongodb explain only, nothing to do */
	}

done:
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	pg_free(contents);
}

/*
 * check_parallel_workers
 *		The number of connections (from --parallel-workers or the run
 *		config's parallel_workers, read as a long so that 4294967297 is not
 *		taken for 1), or exit(1) when it is not 1 to MAX_PARALLEL_WORKERS.
 */
int
check_parallel_workers(long n)
{
	if (n < 1)
	{
		pg_log_error("--parallel-workers must be a positive integer (got %ld)", n);
		exit(1);
	}
	if (n > MAX_PARALLEL_WORKERS)
	{
		pg_log_error("--parallel-workers must be at most %d (got %ld)",
					 MAX_PARALLEL_WORKERS, n);
		exit(1);
	}
	return (int) n;
}
