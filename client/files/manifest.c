/*-------------------------------------------------------------------------
 *
 * manifest.c
 *	  manifest.json, what an export wrote and from what, and exwiw verify,
 *	  which checks a directory against it.
 *
 * Every export directory gets a manifest.json, written into the temporary
 * directory after the last file, so that it is renamed into place with them
 * (outdir.c) and never describes a directory half written:
 *
 *	{"exwiw_manifest": 1, "created_at": ..., "snapshot": ..., "wal_lsn": ...,
 *	 "server_version": ..., "extension_version": ..., "client_version": ...,
 *	 "database": ..., "target_table": ..., "ids": [...], "format": ...,
 *	 "compress": ..., "config_sha256": ...,
 *	 "files": [{"name", "table", "rows", "bytes", "sha256"}, ...],
 *	 "foreign_keys": [{"constraint", "table", "columns", "references",
 *					   "ref_columns"}, ...],
 *	 "masks": [{"table", "column", "mask"}, ...],
 *	 "decisions": [{"table", "decision", "reason"}, ...]}
 *
 * The snapshot is the export's own (pg_current_snapshot() in its
 * transaction), with the WAL position and the time it was taken at; rows
 * are the rows the client counted in each file as it wrote it (INSERT
 * tuples, COPY lines, JSON lines; none for the delete files and pg_dump's
 * schema file); bytes and SHA-256 are those of the file on disk, read back
 * once every file is complete (parts joined, compressed or not).  A mask is
 * named by its kind (replace_with, raw_sql, replace_with_fake_data, ...),
 * never by a value.
 *
 * verify reads the manifest, and checks that every file it lists is there
 * with its size and digest, and that the directory holds no other file an
 * export writes (insert-*, delete-*): a changed byte, a missing file or a
 * file slipped in fails, each named.  Then every foreign key whose both
 * tables have files ("foreign_keys", read from the catalog on the export's
 * snapshot) must resolve inside the directory (verify_fk.c): a row that
 * points outside is named.  exwiw load verifies first when the
 * directory has a manifest (--no-verify: not).
 *
 *-------------------------------------------------------------------------
 */
#include "cli.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/cryptohash.h"
#include "common/sha2.h"

#define MANIFEST_NAME	"manifest.json"
#define HASH_BUFFER_SIZE (256 * 1024)

/* The rows counted in one file as it was written. */
typedef struct ManifestRows
{
	char	   *name;			/* the server's file name, parts joined */
	long		rows;
	struct ManifestRows *next;
} ManifestRows;

struct Manifest
{
	ManifestRows *rows;
};

/*
 * manifest_begin
 *		An empty manifest, for the rows of the files as they are written.
 */
Manifest *
manifest_begin(void)
{
	return pg_malloc0(sizeof(Manifest));
}

/*
 * manifest_add_rows
 *		rows more in the file the server named name (a part of a file adds
 *		to its file: "<file>.exwiw-part-N").
 */
void
manifest_add_rows(Manifest *m, const char *name, long rows)
{
	const char *part = strstr(name, PART_FILE_SUFFIX);
	char	   *stem = part && part != name ? pnstrdup(name, part - name) : pg_strdup(name);
	ManifestRows *r;

	for (r = m->rows; r != NULL; r = r->next)
		if (strcmp(r->name, stem) == 0)
		{
			r->rows += rows;
			pg_free(stem);
			return;
		}
	r = pg_malloc0(sizeof(ManifestRows));
	r->name = stem;
	r->rows = rows;
	r->next = m->rows;
	m->rows = r;
}

/*
 * finish_hex
 *		The digest of SHA-256 context ctx, as hex; frees ctx.
 */
static char *
finish_hex(pg_cryptohash_ctx *ctx)
{
	uint8		digest[PG_SHA256_DIGEST_LENGTH];
	char	   *hex = pg_malloc(PG_SHA256_DIGEST_LENGTH * 2 + 1);
	int			i;

	if (pg_cryptohash_final(ctx, digest, sizeof(digest)) < 0)
		pg_fatal("could not compute a SHA-256 digest");
	pg_cryptohash_free(ctx);
	for (i = 0; i < PG_SHA256_DIGEST_LENGTH; i++)
		sprintf(hex + i * 2, "%02x", digest[i]);
	return hex;
}

/*
 * hex_digest
 *		The SHA-256 of the file name in directory dirfd, as hex, and its
 *		size in *bytes; NULL with *error set when it cannot be read.
 */
static char *
hex_digest(int dirfd, const char *name, long *bytes, char **error)
{
	int			fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | PG_BINARY);
	pg_cryptohash_ctx *ctx;
	char	   *buf;

	*bytes = 0;
	if (fd < 0)
	{
		*error = psprintf("could not open \"%s\": %s", name, strerror(errno));
		return NULL;
	}
	ctx = pg_cryptohash_create(PG_SHA256);
	if (ctx == NULL || pg_cryptohash_init(ctx) < 0)
		pg_fatal("could not compute a SHA-256 digest: out of memory");
	buf = pg_malloc(HASH_BUFFER_SIZE);
	for (;;)
	{
		ssize_t		r = read(fd, buf, HASH_BUFFER_SIZE);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
		{
			*error = psprintf("could not read \"%s\": %s", name, strerror(errno));
			close(fd);
			pg_free(buf);
			pg_cryptohash_free(ctx);
			return NULL;
		}
		if (r == 0)
			break;
		if (pg_cryptohash_update(ctx, (uint8 *) buf, r) < 0)
			pg_fatal("could not compute a SHA-256 digest of \"%s\"", name);
		*bytes += r;
	}
	close(fd);
	pg_free(buf);
	return finish_hex(ctx);
}

/*
 * text_digest
 *		The SHA-256 of a string, as hex.
 */
static char *
text_digest(const char *text)
{
	pg_cryptohash_ctx *ctx = pg_cryptohash_create(PG_SHA256);

	if (ctx == NULL || pg_cryptohash_init(ctx) < 0 ||
		pg_cryptohash_update(ctx, (const uint8 *) text, strlen(text)) < 0)
		pg_fatal("could not compute a SHA-256 digest");
	return finish_hex(ctx);
}

/*
 * export_file_name
 *		Is name a file an export writes (insert-*, delete-*)?
 */
static bool
export_file_name(const char *name)
{
	return strncmp(name, "insert-", 7) == 0 || strncmp(name, "delete-", 7) == 0;
}

/*
 * name_cmp
 *		qsort: file names in byte order (the load order).
 */
static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/*
 * export_files
 *		The export's files in directory dirfd, sorted; *n set.
 */
static char **
export_files(int dirfd, int *n)
{
	int			fd2 = dup(dirfd);
	DIR		   *dir;
	struct dirent *de;
	char	  **names = NULL;

	*n = 0;
	if (fd2 < 0 || (dir = fdopendir(fd2)) == NULL)
		pg_fatal("could not read the directory: %m");
	rewinddir(dir);
	while ((errno = 0, de = readdir(dir)) != NULL)
	{
		if (!export_file_name(de->d_name))
			continue;
		names = pg_realloc(names, sizeof(char *) * (*n + 1));
		names[(*n)++] = pg_strdup(de->d_name);
	}
	if (errno != 0)
		pg_fatal("could not read the directory: %m");
	closedir(dir);
	if (*n > 0)
		qsort(names, *n, sizeof(char *), name_cmp);
	return names;
}

/*
 * table_of_file
 *		The table a file name names: "insert-NNN-<table>.<ext>[.part K]"
 *		with %XX decoded as the server encodes them; NULL for the schema
 *		file.
 */
static char *
table_of_file(const char *name)
{
	const char *p = strchr(name, '-');
	StringInfoData t;

	if (p == NULL || (p = strchr(p + 1, '-')) == NULL || strncmp(name, "insert-000-", 11) == 0)
		return NULL;
	p++;
	initStringInfo(&t);
	for (; *p; p++)
	{
		if (*p == '.' && (strncmp(p, ".sql", 4) == 0 || strncmp(p, ".jsonl", 6) == 0 ||
						  strncmp(p, ".part", 5) == 0))
			break;
		if (*p == '%' && isxdigit((unsigned char) p[1]) && isxdigit((unsigned char) p[2]))
		{
			char		hx[3] = {p[1], p[2], 0};

			appendStringInfoChar(&t, (char) strtol(hx, NULL, 16));
			p += 2;
		}
		else
			appendStringInfoChar(&t, *p);
	}
	return t.data;
}

/*
 * mask_kind
 *		The kind of mask a column's config applies, or NULL: none.
 */
static const char *
mask_kind(const JsonValue *c)
{
	static const char *const kinds[] = {
		"raw_sql", "replace_with_fake_data", "replace_with", "pseudonym",
		"partial", "noise", "map", NULL
	};
	int			i;

	for (i = 0; kinds[i]; i++)
	{
		JsonValue  *v = json_get(c, kinds[i]);

		if (v != NULL && v->kind != JV_NULL)
			return kinds[i];
	}
	return NULL;
}

/*
 * str_or_null
 *		A JSON string, or null.
 */
static JsonValue *
str_or_null(const char *s)
{
	return s ? json_new(JV_STRING, s) : json_new(JV_NULL, NULL);
}

/*
 * foreign_keys
 *		The foreign keys whose both tables have files among files, for
 *		verify (verify_fk.c): [{"constraint", "table", "columns",
 *		"references", "ref_columns"}], read on conn (the export's snapshot),
 *		tables named as the config names them (catalog/read.c's
 *		config_name: bare when visible in the current schema), partitions
 *		by their root (a partition's clone of its root's key is its root's).
 */
static JsonValue *
foreign_keys(PGconn *conn, const JsonValue *files)
{
	JsonValue  *fks = json_new(JV_ARRAY, NULL);
	JsonValue  *tables = json_new(JV_ARRAY, NULL);
	StringInfoData list;
	const char *params[1];
	PGresult   *res;
	char	   *err;
	int			i;

	for (i = 0; i < files->n; i++)
	{
		JsonValue  *t = json_get(files->items[i], "table");

		if (t != NULL && t->kind == JV_STRING)
			json_append(tables, json_copy(t));
	}
	initStringInfo(&list);
	json_print_compact(&list, tables);
	params[0] = list.data;
	res = exec_params_checked(conn,
							  "WITH n AS (SELECT c.oid, CASE WHEN c.relnamespace OPERATOR(pg_catalog.=) "
							  "    (SELECT s.oid FROM pg_catalog.pg_namespace s WHERE s.nspname OPERATOR(pg_catalog.=) pg_catalog.current_schema()) "
							  "    AND pg_catalog.pg_table_is_visible(c.oid) THEN c.relname::pg_catalog.text "
							  "    ELSE s.nspname::pg_catalog.text OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) c.relname::pg_catalog.text END AS name "
							  "  FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace s ON s.oid OPERATOR(pg_catalog.=) c.relnamespace), "
							  "f AS (SELECT t.name FROM pg_catalog.jsonb_array_elements_text($1::pg_catalog.jsonb) t(name)) "
							  "SELECT pg_catalog.json_build_object('constraint', k.conname, 'table', ch.name, "
							  "  'columns', (SELECT pg_catalog.json_agg(a.attname ORDER BY u.i) FROM pg_catalog.unnest(k.conkey) WITH ORDINALITY u(n, i) "
							  "     JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) k.conrelid AND a.attnum OPERATOR(pg_catalog.=) u.n), "
							  "  'references', pa.name, "
							  "  'ref_columns', (SELECT pg_catalog.json_agg(a.attname ORDER BY u.i) FROM pg_catalog.unnest(k.confkey) WITH ORDINALITY u(n, i) "
							  "     JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) k.confrelid AND a.attnum OPERATOR(pg_catalog.=) u.n))::pg_catalog.text "
							  "FROM pg_catalog.pg_constraint k "
							  "JOIN n ch ON ch.oid OPERATOR(pg_catalog.=) k.conrelid JOIN n pa ON pa.oid OPERATOR(pg_catalog.=) k.confrelid "
							  "WHERE k.contype OPERATOR(pg_catalog.=) 'f' AND k.conparentid OPERATOR(pg_catalog.=) 0 "
							  "AND ch.name IN (SELECT f.name FROM f) AND pa.name IN (SELECT f.name FROM f) "
							  "ORDER BY ch.name, k.conname",
							  1, params, "reading the export's foreign keys for manifest.json");
	for (i = 0; i < PQntuples(res); i++)
	{
		JsonValue  *fk = json_parse(PQgetvalue(res, i, 0), strlen(PQgetvalue(res, i, 0)), &err);

		if (fk == NULL)
			pg_fatal("could not read a foreign key: %s", err);
		json_append(fks, fk);
	}
	PQclear(res);
	pg_free(list.data);
	return fks;
}

/*
 * manifest_write
 *		Write manifest.json into the output's temporary directory, once
 *		every file is complete: the export's snapshot and server facts read
 *		on conn (in the export's transaction, before its COMMIT), the run's
 *		options, the config's digest, masks and decisions, and every file's
 *		rows, bytes and SHA-256.
 */
void
manifest_write(Manifest *m, PGconn *conn, const CliOptions *opts,
			   const SchemaConfig *cfg, const char *config_text,
			   const char *ids_text)
{
	JsonValue  *top = json_new(JV_OBJECT, NULL);
	JsonValue  *files = json_new(JV_ARRAY, NULL);
	JsonValue  *masks = json_new(JV_ARRAY, NULL);
	JsonValue  *decisions = json_new(JV_ARRAY, NULL);
	JsonValue  *ids;
	PGresult   *res;
	StringInfoData out;
	char	  **names;
	char	   *err;
	int			n,
				i,
				j,
				fd;
	const char *suffix = compress_suffix(opts->compress_method);

	res = exec_params_checked(conn,
							  "SELECT pg_catalog.pg_current_snapshot()::pg_catalog.text, "
							  "(CASE WHEN pg_catalog.pg_is_in_recovery() THEN pg_catalog.pg_last_wal_replay_lsn() "
							  "ELSE pg_catalog.pg_current_wal_lsn() END)::pg_catalog.text, "
							  "pg_catalog.to_char(pg_catalog.now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), "
							  "pg_catalog.current_setting('server_version'), "
							  "(SELECT e.extversion FROM pg_catalog.pg_extension e WHERE e.extname OPERATOR(pg_catalog.=) 'exwiw'), "
							  "pg_catalog.current_database()",
							  0, NULL, "reading the export's snapshot for manifest.json");
	json_set(top, "exwiw_manifest", json_new(JV_NUMBER, "1"));
	json_set(top, "created_at", json_new(JV_STRING, PQgetvalue(res, 0, 2)));
	json_set(top, "snapshot", json_new(JV_STRING, PQgetvalue(res, 0, 0)));
	json_set(top, "wal_lsn", str_or_null(PQgetisnull(res, 0, 1) ? NULL : PQgetvalue(res, 0, 1)));
	json_set(top, "server_version", json_new(JV_STRING, PQgetvalue(res, 0, 3)));
	json_set(top, "extension_version", str_or_null(PQgetisnull(res, 0, 4) ? NULL : PQgetvalue(res, 0, 4)));
	json_set(top, "client_version", json_new(JV_STRING, EXWIW_VERSION));
	json_set(top, "database", json_new(JV_STRING, PQgetvalue(res, 0, 5)));
	PQclear(res);
	json_set(top, "target_table", str_or_null(opts->target_table));
	ids = json_parse(ids_text, strlen(ids_text), &err);
	json_set(top, "ids", ids ? ids : json_new(JV_NULL, NULL));
	json_set(top, "format", json_new(JV_STRING, export_format_name(opts)));
	json_set(top, "compress", json_new(JV_STRING,
									   opts->compress_method == COMPRESS_GZIP ? "gzip" :
									   opts->compress_method == COMPRESS_ZSTD ? "zstd" : "none"));
	json_set(top, "config_sha256", json_new(JV_STRING, text_digest(config_text)));

	/* the files, as they are on disk now */
	fd = outdir_temp_fd();
	names = export_files(fd, &n);
	for (i = 0; i < n; i++)
	{
		JsonValue  *f = json_new(JV_OBJECT, NULL);
		long		bytes;
		char	   *hex = hex_digest(fd, names[i], &bytes, &err);
		char	   *plain = pnstrdup(names[i], strlen(names[i]) - strlen(suffix));
		char	   *table = table_of_file(names[i]);
		ManifestRows *r;
		long		rows = -1;

		exit_if_cancelled();
		if (hex == NULL)
			pg_fatal("%s", err);
		for (r = m->rows; r != NULL; r = r->next)
			if (strcmp(r->name, plain) == 0)
				rows = r->rows;
		json_set(f, "name", json_new(JV_STRING, names[i]));
		json_set(f, "table", str_or_null(table));
		json_set(f, "rows", rows >= 0 && strncmp(names[i], "insert-", 7) == 0 && table != NULL ?
				 json_new(JV_NUMBER, psprintf("%ld", rows)) : json_new(JV_NULL, NULL));
		json_set(f, "bytes", json_new(JV_NUMBER, psprintf("%ld", bytes)));
		json_set(f, "sha256", json_new(JV_STRING, hex));
		json_append(files, f);
	}
	json_set(top, "files", files);
	json_set(top, "foreign_keys", foreign_keys(conn, files));

	/* the config's masks (their kinds) and decisions, table by table */
	for (i = 0; i < cfg->ntables; i++)
	{
		const char *name = schema_table_name(&cfg->tables[i]);
		JsonValue  *t = cfg->tables[i].config;
		JsonValue  *cols = json_get(t, "columns");
		JsonValue  *d = NULL;

		if (name == NULL)
			continue;
		if (json_truthy(json_get(t, "ignore")))
			d = json_new(JV_STRING, "ignore");
		else if (json_get_string(t, "export") != NULL)
			d = json_new(JV_STRING, psprintf("export: %s", json_get_string(t, "export")));
		else if (json_get_string(t, "type") != NULL)
			d = json_new(JV_STRING, json_get_string(t, "type"));
		if (d != NULL)
		{
			JsonValue  *o = json_new(JV_OBJECT, NULL);

			json_set(o, "table", json_new(JV_STRING, name));
			json_set(o, "decision", d);
			json_set(o, "reason", str_or_null(json_get_string(t, "export_reason")));
			json_append(decisions, o);
		}
		if (json_truthy(json_get(t, "ignore")))
			continue;
		for (j = 0; cols && cols->kind == JV_ARRAY && j < cols->n; j++)
		{
			const char *kind = mask_kind(cols->items[j]);
			JsonValue  *o;

			if (kind == NULL && !json_truthy(json_get(cols->items[j], "ignore")))
				continue;
			o = json_new(JV_OBJECT, NULL);
			json_set(o, "table", json_new(JV_STRING, name));
			json_set(o, "column", str_or_null(json_get_string(cols->items[j], "name")));
			json_set(o, "mask", json_new(JV_STRING, kind ? kind : "ignore"));
			json_append(masks, o);
		}
	}
	json_set(top, "masks", masks);
	json_set(top, "decisions", decisions);

	initStringInfo(&out);
	json_print_pretty(&out, top);
	appendStringInfoChar(&out, '\n');
	{
		int			mfd = outdir_create_file(MANIFEST_NAME, OUTPUT_FILE_MODE);
		ssize_t		off = 0;

		if (mfd < 0)
			pg_fatal("could not create file \"%s\": %m", MANIFEST_NAME);
		while (off < out.len)
		{
			ssize_t		w = write(mfd, out.data + off, out.len - off);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				pg_fatal("could not write file \"%s\": %m", MANIFEST_NAME);
			off += w;
		}
		if (close(mfd) != 0)
			pg_fatal("could not close file \"%s\": %m", MANIFEST_NAME);
	}
}

/*
 * manifest_verify
 *		Check directory dir against its manifest.json: every file listed,
 *		with its bytes and SHA-256, and no other insert-/delete- file; then
 *		that its foreign keys resolve inside it (verify_fk.c; *nkeys: the
 *		keys checked).
 *		Reports each difference as an error; returns whether there was
 *		none.  *found says whether dir has a manifest at all (none: true,
 *		nothing checked).
 */
bool
manifest_verify(const char *dir, bool *found, int *nchecked, int *nkeys)
{
	char	   *path = psprintf("%s/%s", dir, MANIFEST_NAME);
	size_t		len;
	char	   *text;
	char	   *err;
	JsonValue  *top,
			   *files;
	int			dirfd,
				n,
				i,
				j,
				bad = 0;
	char	  **names;
	bool	   *listed;

	*nchecked = 0;
	*nkeys = 0;
	*found = (access(path, F_OK) == 0);
	if (!*found)
		return true;
	text = read_whole_file(path, &len);

	top = json_parse(text, len, &err);
	if (top == NULL || top->kind != JV_OBJECT ||
		(files = json_get(top, "files")) == NULL || files->kind != JV_ARRAY)
	{
		pg_log_error("\"%s\" is not an exwiw manifest%s%s", path, err ? ": " : "", err ? err : "");
		return false;
	}
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		pg_fatal("could not open directory \"%s\": %m", dir);
	names = export_files(dirfd, &n);
	listed = pg_malloc0(sizeof(bool) * Max(n, 1));
	for (i = 0; i < files->n; i++)
	{
		const char *name = json_get_string(files->items[i], "name");
		const char *want = json_get_string(files->items[i], "sha256");
		JsonValue  *wb = json_get(files->items[i], "bytes");
		long		bytes;
		char	   *hex;

		if (name == NULL || want == NULL || strchr(name, '/') != NULL || name[0] == '.')
		{
			pg_log_error("manifest.json: file entry %d has no name or digest", i + 1);
			bad++;
			continue;
		}
		for (j = 0; j < n; j++)
			if (strcmp(names[j], name) == 0)
				listed[j] = true;
		hex = hex_digest(dirfd, name, &bytes, &err);
		if (hex == NULL)
		{
			pg_log_error("%s: listed in manifest.json, but %s", name, err);
			bad++;
			continue;
		}
		if (wb == NULL || wb->kind != JV_NUMBER || atol(wb->str) != bytes)
		{
			pg_log_error("%s: %ld bytes, manifest.json says %s", name, bytes,
						 wb && wb->str ? wb->str : "nothing");
			bad++;
		}
		else if (strcmp(hex, want) != 0)
		{
			pg_log_error("%s: its SHA-256 is not the one in manifest.json (the file changed)", name);
			bad++;
		}
		(*nchecked)++;
	}
	for (j = 0; j < n; j++)
		if (!listed[j])
		{
			pg_log_error("%s: not in manifest.json (added after the export)", names[j]);
			bad++;
		}
	close(dirfd);
	/* the files are the export's: their foreign keys, inside it */
	if (bad == 0 && !verify_foreign_keys(dir, top, nkeys))
		bad++;
	return bad == 0;
}

/*
 * run_verify
 *		exwiw verify DIR: exit 0 when DIR is what its manifest says.
 */
int
run_verify(CliOptions *opts)
{
	bool		found;
	int			n,
				nkeys;

	if (!manifest_verify(opts->load_dir, &found, &n, &nkeys))
	{
		pg_log_error_hint("The directory is not what the export wrote; export it again.");
		return 1;
	}
	if (!found)
	{
		pg_log_error("\"%s\" has no manifest.json", opts->load_dir);
		pg_log_error_hint("Exports write one since exwiw 1.1; an older directory cannot be verified.");
		return 1;
	}
	if (!opts->quiet)
		fprintf(stderr, "exwiw: verified %d files of %s against manifest.json, and %d foreign key%s inside it\n",
				n, opts->load_dir, nkeys, nkeys == 1 ? "" : "s");
	return 0;
}

/*
 * export_format_name
 *		The --output-format value.
 */
const char *
export_format_name(const CliOptions *opts)
{
	return opts->output_format ? opts->output_format : "insert";
}
