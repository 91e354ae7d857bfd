/*-------------------------------------------------------------------------
 *
 * load_deps.c
 *	  Which files of exwiw load -j N may run at the same time.
 *
 * As pg_restore does with its dependencies, a file starts once the files
 * it depends on have loaded; here the dependencies come from the files'
 * tables and the database's foreign keys, and they are conservative.  A
 * file's table is the one its name gives (insert-NNN-<table>.sql, the
 * %XX escapes decoded, a dump's .partK dropped), resolved as the file's
 * statements resolve it, through the session's search_path; a partition
 * stands for its partitioned table.  File i waits for every earlier file j
 * when
 *
 *	- either is a barrier: insert-000-schema.sql (DDL), a file whose table
 *	  does not resolve (it may be created by an earlier file) or whose
 *	  table has user triggers (they may write any table);
 *	- both load the same table (the parts of a dump, a fix-up file);
 *	- a foreign key joins their tables, in either direction.
 *
 * Files that wait for nothing may then run in any order; every foreign key
 * still finds its row, because the rows a file references come from the
 * files before it that it waits for.
 *
 *-------------------------------------------------------------------------
 */
#include "cli.h"

/* a foreign key between two tables (partitioned tables' roots) */
typedef struct FkPair
{
	Oid			from;
	Oid			to;
} FkPair;

/*
 * hex_value
 *		The value of a hexadecimal digit, or -1.
 */
static int
hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/*
 * load_file_table
 *		The table a file's name gives: "insert-NNN-<table>.sql" (or
 *		"delete-"; ".sql.gz", ".sql.zst" too), %XX decoded, a trailing
 *		".partK" (exwiw dump's parts) dropped; NULL for NNN = 000 (the schema file) or a name of another
 *		shape.
 */
char *
load_file_table(const char *name)
{
	const char *p = name;
	const char *end;
	const char *digits;
	StringInfoData t;
	size_t		len;

	if (strncmp(p, "insert-", 7) != 0 && strncmp(p, "delete-", 7) != 0)
		return NULL;
	p += 7;
	digits = p;
	while (*p >= '0' && *p <= '9')
		p++;
	if (p == digits || *p != '-')
		return NULL;
	if (strspn(digits, "0") == (size_t) (p - digits))
		return NULL;			/* insert-000-schema.sql */
	p++;
	len = strlen(p);
	len -= reader_compressed_suffix(p);
	if (len <= 4 || strncmp(p + len - 4, ".sql", 4) != 0)
		return NULL;
	end = p + len - 4;
	/* .partK */
	{
		const char *q = end;

		while (q > p && q[-1] >= '0' && q[-1] <= '9')
			q--;
		if (q < end && q - p > 5 && strncmp(q - 5, ".part", 5) == 0)
			end = q - 5;
	}
	initStringInfo(&t);
	while (p < end)
	{
		if (*p == '%' && end - p >= 3 && hex_value(p[1]) >= 0 && hex_value(p[2]) >= 0)
		{
			appendStringInfoChar(&t, (char) (hex_value(p[1]) * 16 + hex_value(p[2])));
			p += 3;
		}
		else
			appendStringInfoChar(&t, *p++);
	}
	return t.data;
}

/*
 * quoted_sql_name
 *		For a name written with a part in double quotes, as in SQL (it
 *		begins with '"' or holds '."'), the name with every part in double
 *		quotes, for to_regclass: an unquoted part as it is (case kept), a
 *		quoted one with its "" kept.  NULL for any other name (the Ruby
 *		client's, read every way it can be) and for a quote that does not
 *		close.
 */
static char *
quoted_sql_name(const char *name)
{
	StringInfoData s;
	const char *p = name;

	if (name[0] != '"' && strstr(name, ".\"") == NULL)
		return NULL;
	initStringInfo(&s);
	for (;;)
	{
		appendStringInfoChar(&s, '"');
		if (*p == '"')
		{
			for (p++; *p != '\0' && !(*p == '"' && p[1] != '"'); p++)
			{
				if (*p == '"')
					appendStringInfoChar(&s, *p++);
				appendStringInfoChar(&s, *p);
			}
			if (*p++ != '"' || (*p != '.' && *p != '\0'))
				return NULL;
		}
		else
			for (; *p != '\0' && *p != '.'; p++)
			{
				if (*p == '"')
					appendStringInfoChar(&s, '"');
				appendStringInfoChar(&s, *p);
			}
		appendStringInfoChar(&s, '"');
		if (*p == '\0')
			return s.data;
		appendStringInfoChar(&s, *p++);
	}
}

/*
 * resolve_table
 *		The OID of the table that name (the config's name, as the server
 *		reads it: "table" or "schema.table" as the Ruby client writes them,
 *		every reading counted, or with parts in double quotes as in SQL)
 *		means in this session, its partitioned root for a partition, and
 *		whether it has user triggers; InvalidOid when it does not resolve
 *		to exactly one table.
 */
static Oid
resolve_table(PGconn *conn, const char *name, bool *has_triggers)
{
	const char *sql =
		"SELECT COALESCE(pg_catalog.pg_partition_root(c), c)::pg_catalog.oid,"
		" EXISTS (SELECT FROM pg_catalog.pg_trigger g"
		"   WHERE g.tgrelid OPERATOR(pg_catalog.=) c AND NOT g.tgisinternal)"
		" FROM (SELECT DISTINCT x.r AS c FROM ("
		"   SELECT pg_catalog.to_regclass($2) AS r WHERE $2 IS NOT NULL"
		"   UNION ALL SELECT pg_catalog.to_regclass(pg_catalog.quote_ident($1)) WHERE $2 IS NULL"
		"   UNION ALL SELECT pg_catalog.to_regclass(pg_catalog.quote_ident(pg_catalog.\"left\"($1, k OPERATOR(pg_catalog.-) 1))"
		"     OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) pg_catalog.quote_ident(pg_catalog.substr($1, k OPERATOR(pg_catalog.+) 1)))"
		"   FROM pg_catalog.generate_series(2, pg_catalog.length($1) OPERATOR(pg_catalog.-) 1) k"
		"   WHERE $2 IS NULL AND pg_catalog.substr($1, k, 1) OPERATOR(pg_catalog.=) '.'"
		" ) x WHERE x.r IS NOT NULL) s";
	const char *values[2] = {name, quoted_sql_name(name)};
	PGresult   *res = exec_params_checked(conn, sql, 2, values, "resolving the tables of the files");
	Oid			oid = InvalidOid;

	*has_triggers = false;
	if (PQntuples(res) == 1 && !PQgetisnull(res, 0, 0))
	{
		oid = (Oid) strtoul(PQgetvalue(res, 0, 0), NULL, 10);
		*has_triggers = (strcmp(PQgetvalue(res, 0, 1), "t") == 0);
	}
	PQclear(res);
	return oid;
}

/*
 * load_plan_dependencies
 *		Set each file's barrier flag and its deps (the earlier files it
 *		waits for), by the rules at the top of this file.
 */
void
load_plan_dependencies(PGconn *conn, LoadFile *files, int nfiles)
{
	Oid		   *roots = pg_malloc0(sizeof(Oid) * Max(nfiles, 1));
	FkPair	   *pairs;
	int			npairs;
	PGresult   *res;
	int			i,
				j,
				k;

	for (i = 0; i < nfiles; i++)
	{
		bool		triggers = false;

		if (files[i].table != NULL)
			roots[i] = resolve_table(conn, files[i].table, &triggers);
		files[i].barrier = (roots[i] == InvalidOid || triggers);
		if (files[i].barrier)
			pg_log_debug("%s runs alone (%s)", files[i].name,
						 files[i].table == NULL ? "no table" :
						 roots[i] == InvalidOid ? "its table does not exist yet" :
						 "its table has triggers");
	}

	res = exec_checked(conn,
					   "SELECT DISTINCT COALESCE(pg_catalog.pg_partition_root(conrelid), conrelid)::pg_catalog.oid,"
					   " COALESCE(pg_catalog.pg_partition_root(confrelid), confrelid)::pg_catalog.oid"
					   " FROM pg_catalog.pg_constraint WHERE contype OPERATOR(pg_catalog.=) 'f'",
					   "reading the foreign keys");
	npairs = PQntuples(res);
	pairs = pg_malloc(sizeof(FkPair) * Max(npairs, 1));
	for (k = 0; k < npairs; k++)
	{
		pairs[k].from = (Oid) strtoul(PQgetvalue(res, k, 0), NULL, 10);
		pairs[k].to = (Oid) strtoul(PQgetvalue(res, k, 1), NULL, 10);
	}
	PQclear(res);

	for (i = 0; i < nfiles; i++)
	{
		files[i].deps = pg_malloc(sizeof(int) * Max(i, 1));
		files[i].ndeps = 0;
		for (j = 0; j < i; j++)
		{
			bool		dep = files[i].barrier || files[j].barrier ||
				roots[i] == roots[j];

			for (k = 0; !dep && k < npairs; k++)
				dep = (pairs[k].from == roots[i] && pairs[k].to == roots[j]) ||
					(pairs[k].from == roots[j] && pairs[k].to == roots[i]);
			if (dep)
				files[i].deps[files[i].ndeps++] = j;
		}
		if (__pg_log_level <= PG_LOG_DEBUG)
		{
			StringInfoData waits;

			initStringInfo(&waits);
			for (k = 0; k < files[i].ndeps; k++)
				appendStringInfo(&waits, " %s", files[files[i].deps[k]].name);
			pg_log_debug("%s waits for:%s", files[i].name,
						 files[i].ndeps ? waits.data : " nothing");
			pfree(waits.data);
		}
	}
	pg_free(pairs);
	pg_free(roots);
}
