/*-------------------------------------------------------------------------
 *
 * refresh.c
 *	  exwiw load --refresh: make one tenant's rows in a development
 *	  database equal to a new export of it, and change no other row.
 *
 * A development database holds several tenants, loaded one after another
 * (--on-conflict=skip), and their exports share rows: shop 2's order names
 * a user of shop 1.  Running the delete files and then the insert files
 * would delete that user and, through ON DELETE CASCADE or SET NULL, shop
 * 2's order with it.  So a refresh never runs a delete file's DELETE on a
 * table with a primary key.  It runs in one transaction, in three steps:
 *
 *	1. The tenant's rows.  Each DELETE of the delete files (the rows a chain
 *	   of belongs_tos ties to the target in this database, and the tenant's
 *	   rows of the new export by key) is run as a SELECT of the keys it
 *	   would delete, into pg_temp.exwiw_own_<oid>: the rows the refresh may
 *	   change.  A table without a primary key cannot be updated row by row:
 *	   its delete file's rows (a join table's, by its parent) are deleted,
 *	   after the check of step 3, and loaded again.
 *	2. The new rows.  Each INSERT or COPY of the insert files goes into a
 *	   temporary table of the same columns, pg_temp.exwiw_stage; then the
 *	   rows whose key the table lacks are inserted (and become the
 *	   tenant's: a fix-up file may update them), the rows of step 1 are
 *	   updated in place (no cascade fires: their keys do not change), and
 *	   every other row is left as the database has it: a parent of another
 *	   tenant is never changed.  The keys the files brought are kept in
 *	   pg_temp.exwiw_seen_<oid>.
 *	3. The rows production no longer has: the tenant's rows of step 1 that
 *	   no file brought.  Before anything is deleted, every foreign key that
 *	   references a table with such rows is checked: a row outside the set
 *	   that references a row in it (it would be deleted by ON DELETE
 *	   CASCADE, changed by SET NULL or SET DEFAULT, or make the delete
 *	   fail) refuses the refresh, naming the constraint and both rows, and
 *	   the transaction is rolled back.  Then the set is deleted in one
 *	   statement, so that the foreign keys among its rows hold at its end.
 *
 * The rows to delete are named by (tableoid, ctid) in pg_temp.exwiw_del:
 * a partition's rows too, and a table without a key.  A plain table is read
 * and changed ONLY: an inheritance child has files of its own (the delete
 * files' "DELETE FROM parent" would reach its rows too).  Temporary tables are referenced as pg_temp.name only; the tables
 * of the files are resolved through the session's search_path, as the
 * files' own statements resolve them.
 *
 *-------------------------------------------------------------------------
 */
#include "cli.h"

/* The most offending rows a refused refresh names. */
#define REFRESH_MAX_REPORTED	10

/* A table the refresh touches: one per name as the files write it. */
typedef struct RefreshRel
{
	char	   *name;			/* as the statements write it */
	Oid			oid;
	char	   *regclass;		/* its name as regclass prints it */
	const char *only;			/* "ONLY " for a plain table: an inheritance
								 * child is a table of its own files */
	int			npk;			/* primary key columns; 0: none */
	char	  **pk;				/* quoted */
	char	   *pk_list;		/* "a, b", quoted */
	bool		own_rows;		/* a delete file named rows of it */
} RefreshRel;

struct Refresh
{
	RefreshRel *rels;
	int			nrels;
	int			cap;
	bool		strict;			/* --on-conflict=error: another's row fails */
	RefreshRel *stage_rel;		/* the rel whose statement is staged */
	bool		stage_keyed;	/* the stage holds the primary key */
	char	   *stage_all;		/* stage_columns */
	char	   *stage_set;
	long		inserted;
	long		updated;
	long		deleted;
};

/*
 * result_ok
 *		Whether res is a success; on failure *fail takes it (the caller
 *		reports and clears it), else it is cleared.
 */
static bool
result_ok(PGresult *res, PGresult **fail)
{
	ExecStatusType s = PQresultStatus(res);

	if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK)
		return true;
	*fail = res;
	return false;
}

/*
 * run_count
 *		Run sql; the rows it affected (its command tag's count), or -1 with
 *		*fail set.
 */
static long
run_count(PGconn *conn, const char *sql, PGresult **fail)
{
	PGresult   *res;
	long		n;

	pg_log_debug("refresh: %s", sql);
	res = PQexec(conn, sql);
	if (!result_ok(res, fail))
		return -1;
	n = atol(PQcmdTuples(res));
	PQclear(res);
	return n;
}

/*
 * run_free
 *		run_count of sql, which it frees.
 */
static long
run_free(PGconn *conn, char *sql, PGresult **fail)
{
	long		n = run_count(conn, sql, fail);

	pg_free(sql);
	return n;
}

/*
 * run_query
 *		Run sql with text parameters; its result, or NULL with *fail set.
 */
static PGresult *
run_query(PGconn *conn, const char *sql, int nparams, const char *const *values,
		  PGresult **fail)
{
	PGresult   *res;

	pg_log_debug("refresh: %s", sql);
	res = PQexecParams(conn, sql, nparams, NULL, values, NULL, NULL, 0);
	return result_ok(res, fail) ? res : NULL;
}

/*
 * skip_space
 *		p past white space.
 */
static const char *
skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

/*
 * skip_keyword
 *		p past the keyword kw (any case) and the white space after it; NULL
 *		when p does not start with it.
 */
static const char *
skip_keyword(const char *p, const char *kw)
{
	size_t		n = strlen(kw);

	p = skip_space(p);
	if (pg_strncasecmp(p, kw, n) != 0)
		return NULL;
	if (p[n] != ' ' && p[n] != '\t' && p[n] != '\n' && p[n] != '\r' && p[n] != '(')
		return NULL;
	return skip_space(p + n);
}

/*
 * refresh_start
 *		A refresh on conn, inside the load's transaction: the table of the
 *		rows to delete.  strict (--on-conflict=error): a row of the files
 *		whose key the database holds, and not as the tenant's, fails the
 *		refresh instead of being left as it is.
 */
Refresh *
refresh_start(PGconn *conn, bool strict)
{
	Refresh    *r = pg_malloc0(sizeof(Refresh));

	r->strict = strict;
	exec_command(conn,
				 "CREATE TEMP TABLE exwiw_del (rel pg_catalog.oid NOT NULL, tid pg_catalog.tid NOT NULL)",
				 "starting the refresh");
	return r;
}

/*
 * find_rel
 *		The rel of name (as a statement writes it), looked up in this
 *		session the first time: its oid, primary key, and the temporary
 *		tables of its keys.  NULL with *msg set when name is no table.
 */
static RefreshRel *
find_rel(Refresh *r, PGconn *conn, const char *name, PGresult **fail, char **msg)
{
	RefreshRel *rel;
	PGresult   *res;
	const char *values[1] = {name};
	int			i;

	for (i = 0; i < r->nrels; i++)
		if (strcmp(r->rels[i].name, name) == 0)
			return &r->rels[i];

	/* one row per primary key column, or one with no column */
	res = run_query(conn,
					"SELECT c.oid, CAST(c.oid AS pg_catalog.regclass)::pg_catalog.text,"
					" c.relkind OPERATOR(pg_catalog.=) 'r', pg_catalog.quote_ident(a.attname)"
					" FROM pg_catalog.pg_class c"
					" LEFT JOIN pg_catalog.pg_index i ON i.indrelid OPERATOR(pg_catalog.=) c.oid AND i.indisprimary"
					" LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) c.oid"
					"  AND a.attnum OPERATOR(pg_catalog.=) ANY (i.indkey)"
					" WHERE c.oid OPERATOR(pg_catalog.=) pg_catalog.to_regclass($1)"
					" AND c.relkind OPERATOR(pg_catalog.=) ANY ('{r,p}')"
					" ORDER BY pg_catalog.array_position(CAST(i.indkey AS pg_catalog.int2[]), a.attnum)",
					1, values, fail);
	if (res == NULL)
		return NULL;
	if (PQntuples(res) == 0)
	{
		PQclear(res);
		*msg = psprintf("--refresh: table %s does not exist", name);
		return NULL;
	}
	if (r->nrels == r->cap)
		r->rels = pg_realloc(r->rels, sizeof(RefreshRel) * (r->cap = Max(16, r->cap * 2)));
	rel = &r->rels[r->nrels++];
	memset(rel, 0, sizeof(RefreshRel));
	rel->name = pg_strdup(name);
	rel->oid = (Oid) strtoul(PQgetvalue(res, 0, 0), NULL, 10);
	rel->regclass = pg_strdup(PQgetvalue(res, 0, 1));
	rel->only = strcmp(PQgetvalue(res, 0, 2), "t") == 0 ? "ONLY " : "";
	rel->pk = pg_malloc0(sizeof(char *) * (PQntuples(res) + 1));
	for (i = 0; i < PQntuples(res); i++)
		if (!PQgetisnull(res, i, 3))
			rel->pk[rel->npk++] = pg_strdup(PQgetvalue(res, i, 3));
	PQclear(res);
	if (rel->npk > 0)
	{
		StringInfoData s;
		bool		ok;

		initStringInfo(&s);
		for (i = 0; i < rel->npk; i++)
			appendStringInfo(&s, "%s%s", i > 0 ? ", " : "", rel->pk[i]);
		rel->pk_list = s.data;
		ok = run_free(conn, psprintf("CREATE TEMP TABLE IF NOT EXISTS exwiw_own_%u AS SELECT %s FROM %s WITH NO DATA;"
									 " CREATE TEMP TABLE IF NOT EXISTS exwiw_seen_%u AS SELECT %s FROM %s WITH NO DATA",
									 rel->oid, rel->pk_list, rel->regclass,
									 rel->oid, rel->pk_list, rel->regclass), fail) >= 0;
		if (!ok)
			return NULL;
	}
	return rel;
}

/*
 * refresh_own_rows
 *		A DELETE statement of a delete file ("DELETE FROM <table> WHERE
 *		<condition>", as the server writes it), run as the SELECT of the
 *		keys it would delete (step 1).  False with *fail (a server error) or
 *		*msg set.
 */
bool
refresh_own_rows(Refresh *r, PGconn *conn, const char *stmt,
				 PGresult **fail, char **msg)
{
	const char *p = skip_keyword(stmt, "DELETE");
	const char *tend;
	char	   *table;
	char	   *columns;
	RefreshRel *rel;
	char	   *sql;

	if (p == NULL || (p = skip_keyword(p, "FROM")) == NULL ||
		!sql_statement_target(p, &table, &columns, &tend) || columns != NULL ||
		(p = skip_keyword(tend, "WHERE")) == NULL)
	{
		*msg = pg_strdup("--refresh: a delete file's statement is not \"DELETE FROM <table> WHERE <condition>\"");
		return false;
	}
	if ((rel = find_rel(r, conn, table, fail, msg)) == NULL)
		return false;
	rel->own_rows = true;
	if (rel->npk > 0)
		sql = psprintf("INSERT INTO pg_temp.exwiw_own_%u SELECT %s FROM %s%s WHERE %s",
					   rel->oid, rel->pk_list, rel->only, table, p);
	else
		sql = psprintf("INSERT INTO pg_temp.exwiw_del SELECT tableoid, ctid FROM %s%s WHERE %s",
					   rel->only, table, p);
	return run_free(conn, sql, fail) >= 0;
}

/*
 * stage_columns
 *		The columns of pg_temp.exwiw_stage, the stage of rel: r->stage_all,
 *		quoted, as "a, b, c"; r->stage_set, "a = s.a, ..." for those an
 *		UPDATE of the table may set (not the key, not a GENERATED ALWAYS
 *		identity, not a generated column; NULL when none is left); and
 *		r->stage_keyed, whether every column of rel's primary key is there.
 */
static bool
stage_columns(Refresh *r, RefreshRel *rel, PGconn *conn, PGresult **fail)
{
	char		oid[16];
	const char *values[1] = {oid};
	PGresult   *res;
	StringInfoData a,
				u;
	int			npk = 0;
	int			i;

	snprintf(oid, sizeof(oid), "%u", rel->oid);
	res = run_query(conn,
					"SELECT pg_catalog.quote_ident(s.attname), COALESCE(k.pk, false),"
					" COALESCE(t.attidentity OPERATOR(pg_catalog.=) 'a' OR t.attgenerated OPERATOR(pg_catalog.<>) '', false)"
					" FROM pg_catalog.pg_attribute s"
					" LEFT JOIN pg_catalog.pg_attribute t ON t.attrelid OPERATOR(pg_catalog.=) CAST($1 AS pg_catalog.oid)"
					"  AND t.attname OPERATOR(pg_catalog.=) s.attname AND NOT t.attisdropped"
					" LEFT JOIN LATERAL (SELECT true AS pk FROM pg_catalog.pg_index i"
					"  WHERE i.indrelid OPERATOR(pg_catalog.=) t.attrelid AND i.indisprimary"
					"  AND t.attnum OPERATOR(pg_catalog.=) ANY (i.indkey)) k ON true"
					" WHERE s.attrelid OPERATOR(pg_catalog.=) CAST('pg_temp.exwiw_stage' AS pg_catalog.regclass)"
					" AND s.attnum OPERATOR(pg_catalog.>) 0 AND NOT s.attisdropped ORDER BY s.attnum",
					1, values, fail);
	if (res == NULL)
		return false;
	initStringInfo(&a);
	initStringInfo(&u);
	for (i = 0; i < PQntuples(res); i++)
	{
		const char *c = PQgetvalue(res, i, 0);
		bool		pk = strcmp(PQgetvalue(res, i, 1), "t") == 0;

		appendStringInfo(&a, "%s%s", i > 0 ? ", " : "", c);
		if (pk)
			npk++;
		else if (strcmp(PQgetvalue(res, i, 2), "f") == 0)
			appendStringInfo(&u, "%s%s = s.%s", u.len > 0 ? ", " : "", c, c);
	}
	PQclear(res);
	r->stage_all = a.data;
	r->stage_set = u.len > 0 ? u.data : NULL;
	r->stage_keyed = (rel->npk > 0 && npk == rel->npk);
	return true;
}

/*
 * refresh_stage
 *		An INSERT or COPY ... FROM stdin of an insert file (step 2): create
 *		pg_temp.exwiw_stage with the statement's columns of its table, and
 *		return the statement that fills it (the INSERT into the stage, or
 *		"COPY pg_temp.exwiw_stage FROM stdin").  NULL with *fail or *msg set.
 */
char *
refresh_stage(Refresh *r, PGconn *conn, const SqlStatement *st,
			  PGresult **fail, char **msg)
{
	const char *p;
	const char *tstart;
	const char *tend;
	char	   *table;
	char	   *columns;
	RefreshRel *rel;
	bool		ok;
	bool		is_copy = st->is_copy_from_stdin;

	p = skip_keyword(st->text, is_copy ? "COPY" : "INSERT");
	if (p != NULL && !is_copy)
		p = skip_keyword(p, "INTO");
	tstart = p;
	if (p == NULL || !sql_statement_target(p, &table, &columns, &tend))
	{
		*msg = psprintf("--refresh: cannot read the table and columns of this %s statement",
						is_copy ? "COPY" : "INSERT");
		return NULL;
	}
	if ((rel = find_rel(r, conn, table, fail, msg)) == NULL)
		return NULL;

	ok = run_free(conn, psprintf("CREATE TEMP TABLE exwiw_stage AS SELECT %s FROM %s WITH NO DATA",
								 columns ? columns : "*", table), fail) >= 0;
	if (!ok)
		return NULL;

	/* does the stage hold the key?  then a fix-up's ON CONFLICT needs it */
	r->stage_rel = rel;
	if (!stage_columns(r, rel, conn, fail))
		return NULL;
	if (r->stage_keyed && st->has_on_conflict &&
		run_free(conn, psprintf("CREATE UNIQUE INDEX ON pg_temp.exwiw_stage (%s)", rel->pk_list), fail) < 0)
		return NULL;

	if (is_copy)
		return pg_strdup("COPY pg_temp.exwiw_stage FROM stdin");
	/* the INSERT with the stage in its table's place */
	return psprintf("%.*spg_temp.exwiw_stage%s", (int) (tstart - st->text), st->text, tend);
}

/*
 * key_list
 *		"a.k1, a.k2" for rel's key.
 */
static char *
key_list(RefreshRel *rel, const char *a)
{
	StringInfoData s;
	int			i;

	initStringInfo(&s);
	for (i = 0; i < rel->npk; i++)
		appendStringInfo(&s, "%s%s.%s", i > 0 ? ", " : "", a, rel->pk[i]);
	return s.data;
}

/*
 * key_match
 *		"(a.k1, a.k2) = (b.k1, b.k2)" for rel's key.
 */
static char *
key_match(RefreshRel *rel, const char *a, const char *b)
{
	return psprintf("(%s) = (%s)", key_list(rel, a), key_list(rel, b));
}

/*
 * refresh_apply
 *		The staged rows into their table (step 2), and the stage dropped.
 *		With the key: the keys kept as seen; the rows the table lacks
 *		inserted and made the tenant's; the tenant's rows updated in place.
 *		Without it: the rows the table does not hold already inserted.
 */
bool
refresh_apply(Refresh *r, PGconn *conn, PGresult **fail)
{
	RefreshRel *rel = r->stage_rel;
	const char *all = r->stage_all;
	const char *set = r->stage_set;
	long		n;

	Assert(rel != NULL);
	if (r->stage_keyed)
	{
		char	   *m = key_match(rel, "x", "s");

		n = run_free(conn, psprintf("INSERT INTO pg_temp.exwiw_seen_%u SELECT %s FROM pg_temp.exwiw_stage",
									rel->oid, rel->pk_list), fail);
		if (n < 0)
			return false;
		n = run_free(conn, psprintf("WITH exwiw_new AS (INSERT INTO %s (%s) OVERRIDING SYSTEM VALUE"
									" SELECT %s FROM pg_temp.exwiw_stage s"
									" WHERE NOT EXISTS (SELECT FROM %s%s x WHERE %s) RETURNING %s)"
									" INSERT INTO pg_temp.exwiw_own_%u SELECT * FROM exwiw_new",
									rel->name, all, all, rel->only, rel->name, m, rel->pk_list, rel->oid), fail);
		if (n < 0)
			return false;
		r->inserted += n;
		if (r->strict)
		{
			/* the rows left are the database's: their INSERT fails */
			n = run_free(conn, psprintf("INSERT INTO %s (%s) OVERRIDING SYSTEM VALUE SELECT %s FROM pg_temp.exwiw_stage x"
										" WHERE (%s) NOT IN (SELECT * FROM pg_temp.exwiw_own_%u)",
										rel->name, all, all, key_list(rel, "x"), rel->oid), fail);
			if (n < 0)
				return false;
		}
		if (set != NULL)
		{
			n = run_free(conn, psprintf("UPDATE %s%s AS x SET %s FROM pg_temp.exwiw_stage s WHERE %s"
										" AND (%s) IN (SELECT * FROM pg_temp.exwiw_own_%u)",
										rel->only, rel->name, set, m, key_list(rel, "x"), rel->oid), fail);
			if (n < 0)
				return false;
			r->updated += n;
		}
		pg_free(m);
	}
	else
	{
		n = run_free(conn, psprintf("INSERT INTO %s (%s) OVERRIDING SYSTEM VALUE"
									" SELECT %s FROM pg_temp.exwiw_stage EXCEPT ALL SELECT %s FROM %s%s",
									rel->name, all, all, all, rel->only, rel->name), fail);
		if (n < 0)
			return false;
		r->inserted += n;
	}
	pg_free(r->stage_all);
	pg_free(r->stage_set);
	r->stage_all = r->stage_set = NULL;
	r->stage_rel = NULL;
	return run_count(conn, "DROP TABLE pg_temp.exwiw_stage", fail) >= 0;
}

/*
 * action_words
 *		What an ON DELETE action does to a referencing row, for the message.
 */
static const char *
action_words(char action)
{
	switch (action)
	{
		case 'c':
			return "ON DELETE CASCADE would delete it";
		case 'n':
			return "ON DELETE SET NULL would change it";
		case 'd':
			return "ON DELETE SET DEFAULT would change it";
		default:
			return "the delete would fail on it";
	}
}

/*
 * check_and_delete
 *		Step 3 on the rows in pg_temp.exwiw_del: refuse (false, with the
 *		error printed) when a row outside them references one of them
 *		through a foreign key; else delete them all in one statement and
 *		empty the table.
 */
static bool
check_and_delete(Refresh *r, PGconn *conn, PGresult **fail, bool *refused)
{
	PGresult   *cons;
	PGresult   *res;
	StringInfoData report;
	StringInfoData del;
	int			nreported = 0;
	long		more = 0;
	int			i;
	long		n;

	*refused = false;
	/* every foreign key to a table (or an ancestor) that loses rows */
	cons = run_query(conn,
					 "WITH d AS (SELECT DISTINCT rel FROM pg_temp.exwiw_del),"
					 " t AS (SELECT rel AS oid FROM d"
					 "  UNION SELECT a.relid FROM d, pg_catalog.pg_partition_ancestors(d.rel) a)"
					 " SELECT c.conname, CAST(c.conrelid AS pg_catalog.regclass)::pg_catalog.text,"
					 "  CAST(c.confrelid AS pg_catalog.regclass)::pg_catalog.text,"
					 "  cr.relkind OPERATOR(pg_catalog.=) 'r', fr.relkind OPERATOR(pg_catalog.=) 'r', c.confdeltype,"
					 "  f.names, p.names, k.names, f.cols, p.cols, k.cols"
					 " FROM pg_catalog.pg_constraint c"
					 " JOIN pg_catalog.pg_class cr ON cr.oid OPERATOR(pg_catalog.=) c.conrelid"
					 " JOIN pg_catalog.pg_class fr ON fr.oid OPERATOR(pg_catalog.=) c.confrelid,"
					 " LATERAL (SELECT pg_catalog.string_agg(pg_catalog.quote_ident(a.attname), ', ' ORDER BY k.n) AS names,"
					 "   pg_catalog.string_agg('ch.' OPERATOR(pg_catalog.||) pg_catalog.quote_ident(a.attname), ', ' ORDER BY k.n) AS cols"
					 "   FROM pg_catalog.unnest(c.conkey) WITH ORDINALITY k(attnum, n)"
					 "   JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) c.conrelid"
					 "    AND a.attnum OPERATOR(pg_catalog.=) k.attnum) f,"
					 " LATERAL (SELECT pg_catalog.string_agg(pg_catalog.quote_ident(a.attname), ', ' ORDER BY k.n) AS names,"
					 "   pg_catalog.string_agg('r.' OPERATOR(pg_catalog.||) pg_catalog.quote_ident(a.attname), ', ' ORDER BY k.n) AS cols"
					 "   FROM pg_catalog.unnest(c.confkey) WITH ORDINALITY k(attnum, n)"
					 "   JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) c.confrelid"
					 "    AND a.attnum OPERATOR(pg_catalog.=) k.attnum) p,"
					 " LATERAL (SELECT pg_catalog.string_agg(pg_catalog.quote_ident(a.attname), ', '"
					 "     ORDER BY pg_catalog.array_position(CAST(i.indkey AS pg_catalog.int2[]), a.attnum)) AS names,"
					 "   pg_catalog.string_agg('ch.' OPERATOR(pg_catalog.||) pg_catalog.quote_ident(a.attname), ', '"
					 "     ORDER BY pg_catalog.array_position(CAST(i.indkey AS pg_catalog.int2[]), a.attnum)) AS cols"
					 "   FROM pg_catalog.pg_index i JOIN pg_catalog.pg_attribute a"
					 "    ON a.attrelid OPERATOR(pg_catalog.=) i.indrelid AND a.attnum OPERATOR(pg_catalog.=) ANY (i.indkey)"
					 "   WHERE i.indrelid OPERATOR(pg_catalog.=) c.conrelid AND i.indisprimary) k"
					 " WHERE c.contype OPERATOR(pg_catalog.=) 'f' AND c.conparentid OPERATOR(pg_catalog.=) 0"
					 " AND c.confrelid IN (SELECT oid FROM t)"
					 " ORDER BY 2, 1",
					 0, NULL, fail);
	if (cons == NULL)
		return false;
	initStringInfo(&report);
	for (i = 0; i < PQntuples(cons); i++)
	{
		const char *conname = PQgetvalue(cons, i, 0);
		const char *child = PQgetvalue(cons, i, 1);
		const char *parent = PQgetvalue(cons, i, 2);
		bool		child_only = strcmp(PQgetvalue(cons, i, 3), "t") == 0;
		bool		parent_only = strcmp(PQgetvalue(cons, i, 4), "t") == 0;
		char		action = PQgetvalue(cons, i, 5)[0];
		const char *fk = PQgetvalue(cons, i, 6);
		const char *fk_cols = PQgetvalue(cons, i, 9);
		const char *ref_cols = PQgetvalue(cons, i, 10);
		bool		keyless = PQgetisnull(cons, i, 8);
		const char *ckey = keyless ? fk : PQgetvalue(cons, i, 8);
		const char *ckey_cols = keyless ? fk_cols : PQgetvalue(cons, i, 11);
		StringInfoData q;
		int			k;

		initStringInfo(&q);
		appendStringInfo(&q,
						 "SELECT CAST(ROW(%s, NULL) AS pg_catalog.text), CAST(ROW(%s, NULL) AS pg_catalog.text),"
						 " pg_catalog.count(*) OVER ()"
						 " FROM %s%s ch WHERE (%s) IN (SELECT %s",
						 ckey_cols, fk_cols, child_only ? "ONLY " : "", child, fk_cols, ref_cols);
		appendStringInfo(&q,
						 " FROM %s%s r WHERE (r.tableoid, r.ctid) IN (SELECT d.rel, d.tid FROM pg_temp.exwiw_del d))"
						 " AND (ch.tableoid, ch.ctid) NOT IN (SELECT d.rel, d.tid FROM pg_temp.exwiw_del d)"
						 " LIMIT %d",
						 parent_only ? "ONLY " : "", parent, REFRESH_MAX_REPORTED);
		res = run_query(conn, q.data, 0, NULL, fail);
		pg_free(q.data);
		if (res == NULL)
		{
			PQclear(cons);
			return false;
		}
		for (k = 0; k < PQntuples(res); k++)
		{
			/* ROW(x, NULL) prints "(x,)": the key's values without the NULL */
			char	   *cv = pg_strdup(PQgetvalue(res, k, 0));
			char	   *fv = pg_strdup(PQgetvalue(res, k, 1));

			cv[strlen(cv) - 2] = ')';
			cv[strlen(cv) - 1] = '\0';
			fv[strlen(fv) - 2] = ')';
			fv[strlen(fv) - 1] = '\0';
			if (k == 0)
				more += atol(PQgetvalue(res, k, 2));
			if (nreported < REFRESH_MAX_REPORTED)
			{
				appendStringInfo(&report,
								 "%sRow (%s)=%s of table %s references (%s)=%s of table %s through foreign key \"%s\": "
								 "the refresh deletes that row, which the new export does not have, and %s.",
								 nreported > 0 ? "\n" : "", ckey, cv, child, fk, fv, parent, conname,
								 action_words(action));
				nreported++;
				more--;
			}
			pg_free(cv);
			pg_free(fv);
		}
		PQclear(res);
	}
	PQclear(cons);
	if (nreported > 0)
	{
		pg_log_error("--refresh would change rows that it does not replace");
		if (more > 0)
			appendStringInfo(&report, "\n... and at least %ld more such rows.", more);
		pg_log_error_detail("%s", report.data);
		pg_log_error_hint("Nothing was changed.  Those rows are another tenant's, or the tenant's but not tied to it by the delete files: delete them first, or load this tenant into a database of its own.");
		pg_free(report.data);
		*refused = true;
		return false;
	}
	pg_free(report.data);

	/* one statement: the foreign keys among the deleted rows hold at its end */
	res = run_query(conn,
					"SELECT DISTINCT d.rel, CAST(d.rel AS pg_catalog.regclass)::pg_catalog.text"
					" FROM pg_temp.exwiw_del d ORDER BY 1",
					0, NULL, fail);
	if (res == NULL)
		return false;
	if (PQntuples(res) == 0)
	{
		PQclear(res);
		return true;
	}
	initStringInfo(&del);
	appendStringInfoString(&del, "WITH ");
	for (i = 0; i < PQntuples(res); i++)
		appendStringInfo(&del,
						 "%sexwiw_d%d AS (DELETE FROM ONLY %s x WHERE x.ctid OPERATOR(pg_catalog.=) ANY (ARRAY("
						 "SELECT d.tid FROM pg_temp.exwiw_del d WHERE d.rel OPERATOR(pg_catalog.=) %s)) RETURNING 1)",
						 i > 0 ? ", " : "", i, PQgetvalue(res, i, 1), PQgetvalue(res, i, 0));
	appendStringInfoString(&del, " SELECT pg_catalog.count(*) FROM (");
	for (i = 0; i < PQntuples(res); i++)
		appendStringInfo(&del, "%sSELECT 1 FROM exwiw_d%d", i > 0 ? " UNION ALL " : "", i);
	appendStringInfoString(&del, ") s");
	PQclear(res);
	res = run_query(conn, del.data, 0, NULL, fail);
	pg_free(del.data);
	if (res == NULL)
		return false;
	n = atol(PQgetvalue(res, 0, 0));
	PQclear(res);
	r->deleted += n;
	return run_count(conn, "DELETE FROM pg_temp.exwiw_del", fail) >= 0;
}

/*
 * refresh_clear_keyless
 *		After the delete files, before the insert files: the rows of the
 *		tables without a primary key that the delete files named, checked
 *		and deleted (step 3 for them: they are loaded again, not updated).
 *		False when refused (printed) or with *fail set.
 */
bool
refresh_clear_keyless(Refresh *r, PGconn *conn, PGresult **fail, bool *refused)
{
	return check_and_delete(r, conn, fail, refused);
}

/*
 * refresh_finish
 *		After the insert files: the tenant's rows that no file brought,
 *		checked and deleted (step 3).  False when refused (printed) or with
 *		*fail set.
 */
bool
refresh_finish(Refresh *r, PGconn *conn, PGresult **fail, bool *refused)
{
	int			i,
				k;

	for (i = 0; i < r->nrels; i++)
	{
		RefreshRel *rel = &r->rels[i];
		bool		dup = false;
		long		n;

		if (rel->npk == 0 || !rel->own_rows)
			continue;
		for (k = 0; k < i; k++)
			dup |= (r->rels[k].oid == rel->oid && r->rels[k].own_rows);
		if (dup)
			continue;
		n = run_free(conn, psprintf("INSERT INTO pg_temp.exwiw_del SELECT x.tableoid, x.ctid FROM %s%s x"
									" WHERE (%s) IN (SELECT * FROM pg_temp.exwiw_own_%u EXCEPT SELECT * FROM pg_temp.exwiw_seen_%u)",
									rel->only, rel->name, key_list(rel, "x"), rel->oid, rel->oid), fail);
		if (n < 0)
			return false;
	}
	return check_and_delete(r, conn, fail, refused);
}

/*
 * refresh_summary
 *		The counts of a refresh that committed, for the summary line.
 */
void
refresh_summary(const Refresh *r, long *inserted, long *updated, long *deleted)
{
	*inserted = r->inserted;
	*updated = r->updated;
	*deleted = r->deleted;
}
