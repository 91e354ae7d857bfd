/*-------------------------------------------------------------------------
 *
 * catalog/evidence.c
 *	  Relations offered from the data: exwiw_config_from_catalog's
 *	  inclusion tests, for the keys only the application's models know.
 *
 * A Rails model says "belongs_to :assignee, class_name: 'User'"; the
 * database says nothing: no foreign key, and "assignee_id" names no table.
 * The rows say it: every value of tickets.assignee_id is a key of users.
 * This file runs that test and offers the relation as a proposal, a
 * belongs_to written with "proposed": true and its evidence, which the
 * export does not apply until a person accepts it (config/edges.c).
 *
 * A column is tested when it may hold keys: an integer, uuid or text
 * column (not the table's one-column primary key, not the id column of a
 * polymorphic pair "<x>_type"/"<x>_id") whose name ends in "_id", "_by" or
 * "_uuid", or an integer or uuid column that is the only key column of an
 * index of its table, and that no foreign key, declared or inferred,
 * covers.  The candidates are the tables of the config whose primary key
 * is one column of a type that can hold the column's values; the table
 * itself only when the column names it ("parent_category_id" of
 * categories) or begins with a word that points back into the same table
 * ("parent_id", "previous_id", self_word): a "user_id" of an events table
 * in a database without users is a key of another database, which the
 * table's own serial ids hold by chance.
 *
 * The values: a bounded read of the column, TABLESAMPLE SYSTEM over about
 * SAMPLE_PAGES pages (a small table is read whole), at most SAMPLE_ROWS
 * non-NULL values, REPEATABLE so that the same data gives the same
 * config.  Fewer than MIN_DISTINCT distinct values are no evidence.  Then
 * for each candidate: does its key hold every distinct value?  One query,
 * an index probe of the parent's primary key per value, that stops at the
 * first value it lacks, after the candidate's measures (its rows, its key's
 * ends, read once) rule it out or not (may_hold): an integer column's
 * values must also reach into the candidate's key range.  Of the candidates that hold
 * every value, one that the column names ("related_ticket_id": tickets)
 * comes first; else the best fit (fit()): the fewest keys that hold every
 * value (serial keys: a larger table holds small values too), weighed by
 * how many tables reference the candidate.  The evidence says how many values were
 * checked, whether they were all the column's rows or a sample, and how
 * many tables hold every value.
 *
 * Read as the caller, on the caller's snapshot, read-only: a column or a
 * parent key the caller may not read is not tested, and row-level security
 * applies (a parent whose policy hides rows does not hold every value).
 * An error raised while the values are read could quote one: it is
 * replaced by one that names the table and keeps the SQLSTATE.
 *
 *-------------------------------------------------------------------------
 */
#include "subset/subset.h"
#include "common/compat.h"

#include "access/genam.h"
#include "access/relation.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include <math.h>

#define SAMPLE_PAGES	64		/* pages TABLESAMPLE SYSTEM aims at */
#define SAMPLE_ROWS		10000	/* non-NULL values read, at most */
#define MIN_DISTINCT	3		/* distinct values that make evidence */
#define MIN_DISTINCT_INDEXED 10 /* ... for a column named as no key */
#define COUNT_CAP		1000000 /* rows counted of a candidate, at most */

/* A candidate parent: a table of the config with a one-column key. */
typedef struct Candidate
{
	Oid			relid;
	const char *name;			/* its config name */
	char	   *key;			/* its primary key column */
	Oid			keytype;
	bool		readable;		/* the caller may read the key */
	int			refs;			/* tables whose keys reference it */
	SPIPlanPtr	probe;			/* holds_all's plan, once prepared */
	bool		measured;		/* rows, kmin and kmax are read */
	double		rows;			/* its rows (key_count) */
	bool		range;			/* an integer key: kmin and kmax are its ends */
	double		kmin,
				kmax;
} Candidate;

/* What a column's values were. */
typedef struct ColumnValues
{
	Datum		values;			/* text[] of the distinct values */
	int64		rows;			/* non-NULL values read */
	int			distinct;
	bool		all_rows;		/* the whole column, not a sample */
	bool		integer;		/* an integer column: vmax is its largest */
	double		vmax;
} ColumnValues;

/*
 * is_integer
 *		Is typid (a domain seen through) an integer type?
 */
static bool
is_integer(Oid typid)
{
	Oid			base = getBaseType(typid);

	return base == INT2OID || base == INT4OID || base == INT8OID;
}

/*
 * key_named
 *		Is col named as a key: "_id", "_by" or "_uuid" at its end?
 */
static bool
key_named(const char *col)
{
	size_t		len = strlen(col);

	return (len > 3 && strcmp(col + len - 3, "_id") == 0) ||
		(len > 3 && strcmp(col + len - 3, "_by") == 0) ||
		(len > 5 && strcmp(col + len - 5, "_uuid") == 0);
}

/*
 * key_like_column
 *		Might column att of rel hold the keys of another table: a type that
 *		keys have, and a name that says so or a one-column index on it?
 *		Not the table's own one-column primary key, nor a polymorphic id.
 */
static bool
key_like_column(Relation rel, Form_pg_attribute att, const char *pk)
{
	const char *col = NameStr(att->attname);
	size_t		len = strlen(col);
	Oid			base;
	List	   *indexes;
	ListCell   *lc;
	bool		named;
	bool		indexed = false;

	if (att->attisdropped || att->attgenerated)
		return false;
	base = getBaseType(att->atttypid);
	if (base != INT2OID && base != INT4OID && base != INT8OID && base != UUIDOID &&
		base != TEXTOID && base != VARCHAROID)
		return false;
	if (pk != NULL && strcmp(pk, col) == 0)
		return false;
	if (len > 3 && strcmp(col + len - 3, "_id") == 0 &&
		get_attnum(RelationGetRelid(rel), psprintf("%.*s_type", (int) (len - 3), col)) != InvalidAttrNumber)
		return false;
	named = key_named(col);
	if (named)
		return true;
	/* indexed: a number or a uuid (an indexed text is a name, a slug) */
	if (base == TEXTOID || base == VARCHAROID)
		return false;
	indexes = RelationGetIndexList(rel);
	foreach(lc, indexes)
	{
		Relation	ir = index_open(lfirst_oid(lc), AccessShareLock);

		indexed |= (IndexRelationGetNumberOfKeyAttributes(ir) == 1 &&
					ir->rd_index->indkey.values[0] == att->attnum);
		index_close(ir, AccessShareLock);
	}
	list_free(indexes);
	return indexed;
}

/*
 * only
 *		"ONLY " for a table read without its inheritance children; nothing
 *		for a partitioned table, whose rows are its partitions'.
 */
static const char *
only(Oid relid)
{
	return get_rel_relkind(relid) == RELKIND_PARTITIONED_TABLE ? "" : "ONLY ";
}

/*
 * read_values
 *		The distinct non-NULL values of column col (of type typid) of rel
 *		(as text, and the largest of an integer column), from a bounded
 *		read (the header); false when the caller may not read it.
 *		Runs under SPI, which the caller has connected.
 */
static bool
read_values(Relation rel, const char *col, Oid typid, ColumnValues *cv)
{
	Oid			relid = RelationGetRelid(rel);
	double		blocks = subset_values_blocks(rel);
	double		pct;
	char	   *q;
	bool		isnull;
	Datum		d;

	memset(cv, 0, sizeof(*cv));
	if (blocks < 0 ||
		(pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK &&
		 pg_attribute_aclcheck(relid, get_attnum(relid, col), GetUserId(),
							   ACL_SELECT) != ACLCHECK_OK))
		return false;
	pct = blocks <= SAMPLE_PAGES ? 100 : 100.0 * SAMPLE_PAGES / blocks;
	cv->integer = is_integer(typid);
	q = psprintf("SELECT pg_catalog.count(*), pg_catalog.count(DISTINCT s.v),"
				 " pg_catalog.array_agg(DISTINCT CAST(s.v AS pg_catalog.text)), %s"
				 " FROM (SELECT %s AS v FROM %s%s TABLESAMPLE pg_catalog.system (%.9f) REPEATABLE (0)"
				 " WHERE %s IS NOT NULL LIMIT %d) s",
				 cv->integer ? "CAST(pg_catalog.max(s.v) AS pg_catalog.float8)" : "NULL",
				 quote_identifier(col),
				 only(RelationGetRelid(rel)),
				 quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
											RelationGetRelationName(rel)),
				 pct, quote_identifier(col), SAMPLE_ROWS + 1);
	if (SPI_execute(q, true, 0) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not read the values of a column");
	cv->rows = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	cv->distinct = (int) DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	if (cv->integer)
	{
		Datum		m = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 4, &isnull);

		cv->vmax = isnull ? 0 : DatumGetFloat8(m);
	}
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3, &isnull);
	cv->all_rows = pct >= 100 && cv->rows <= SAMPLE_ROWS;
	if (cv->rows > SAMPLE_ROWS)
		cv->rows = SAMPLE_ROWS;
	if (isnull)
		return true;
	cv->values = SPI_datumTransfer(d, false, -1);
	return true;
}

/*
 * holds_all
 *		Is every value of cv a key of candidate c?  An index probe per
 *		value, stopping at the first one c lacks; the plan prepared once per
 *		candidate.  Under SPI.
 */
static bool
holds_all(Candidate *c, ColumnValues *cv)
{
	Datum		args[1];
	bool		isnull;

	if (c->probe == NULL)
	{
		Oid			argtypes[1] = {TEXTARRAYOID};
		char	   *q;

		q = psprintf("SELECT NOT EXISTS (SELECT FROM pg_catalog.unnest($1) AS v(k)"
					 " WHERE NOT EXISTS (SELECT FROM %s%s p WHERE p.%s = CAST(v.k AS %s)))",
					 only(c->relid), quote_qualified_identifier(get_namespace_name(get_rel_namespace(c->relid)),
																get_rel_name(c->relid)),
					 quote_identifier(c->key), format_type_be_qualified(c->keytype));
		/* in SPI's context: kept until SPI_finish, one plan per candidate */
		c->probe = SPI_prepare(q, 1, argtypes);
		if (c->probe == NULL)
			elog(ERROR, "could not prepare the test of a key: %s",
				 SPI_result_code_string(SPI_result));
	}
	args[0] = cv->values;
	if (SPI_execute_plan(c->probe, args, NULL, true, 0) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "could not test the values of a column against a key");
	return DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
}

/*
 * rel_reltuples
 *		The planner's row count of relid; -1 when it was never analyzed.
 */
static float4
rel_reltuples(Oid relid)
{
	Relation	rel = relation_open(relid, AccessShareLock);
	float4		reltuples = rel->rd_rel->reltuples;

	relation_close(rel, AccessShareLock);
	return reltuples;
}

/*
 * key_count
 *		How many rows candidate c has: the planner's figure when the table
 *		was analyzed, else a count of at most COUNT_CAP rows.  Under SPI.
 */
static double
key_count(Candidate *c)
{
	float4		reltuples = rel_reltuples(c->relid);
	bool		isnull;
	char	   *q;

	if (reltuples >= 0)
		return reltuples;
	q = psprintf("SELECT pg_catalog.count(*) FROM (SELECT FROM %s%s LIMIT %d) s",
				 only(c->relid), quote_qualified_identifier(get_namespace_name(get_rel_namespace(c->relid)),
															get_rel_name(c->relid)),
				 COUNT_CAP);
	if (SPI_execute(q, true, 0) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not count the rows of a table");
	return (double) DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
}

/*
 * measure
 *		Read, once per candidate, its rows (key_count) and, for an integer
 *		key, the ends of its key (by the index of its primary key).  Under
 *		SPI.
 */
static void
measure(Candidate *c)
{
	bool		isnull1,
				isnull2;
	char	   *q;

	if (c->measured)
		return;
	c->measured = true;
	c->rows = key_count(c);
	if (!is_integer(c->keytype))
		return;
	q = psprintf("SELECT CAST(pg_catalog.min(p.%s) AS pg_catalog.float8), CAST(pg_catalog.max(p.%s) AS pg_catalog.float8) FROM %s%s p",
				 quote_identifier(c->key), quote_identifier(c->key), only(c->relid),
				 quote_qualified_identifier(get_namespace_name(get_rel_namespace(c->relid)),
											get_rel_name(c->relid)));
	if (SPI_execute(q, true, 0) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not read the ends of a key");
	c->kmin = DatumGetFloat8(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull1));
	c->kmax = DatumGetFloat8(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull2));
	c->range = !isnull1 && !isnull2;
}

/*
 * may_hold
 *		Can candidate c hold every value of cv, and would they be
 *		references to it, by its measures alone (no probe)?  Not when it
 *		has fewer rows than cv has distinct values, nor, for an integer
 *		column, when cv's largest value is past c's largest key, or when
 *		the values do not reach far enough into c's key range: drawn from
 *		its keys, distinct values would all lie at or below the largest one
 *		with the chance f^distinct, f the share of c's key range up to it;
 *		below one in a thousand, the values are small numbers (positions,
 *		counts, tiles), not references (serial keys hold every small
 *		number).
 */
static bool
may_hold(Candidate *c, ColumnValues *cv)
{
	measure(c);
	if (c->rows < cv->distinct)
		return false;
	if (!cv->integer || !c->range)
		return true;
	if (cv->vmax > c->kmax)
		return false;
	if (c->kmax <= c->kmin)
		return true;
	return pow((cv->vmax - c->kmin + 1) / (c->kmax - c->kmin + 1), cv->distinct) >= 0.001;
}

/*
 * reference_count
 *		How many tables other than relid have a key in fks that references
 *		relid.
 */
static int
reference_count(List *fks, Oid relid)
{
	List	   *children = NIL;
	ListCell   *lc;
	int			n;

	foreach(lc, fks)
	{
		SubsetCatalogFk *fk = lfirst(lc);

		if (fk->parent == relid && fk->child != relid)
			children = list_append_unique_oid(children, fk->child);
	}
	n = list_length(children);
	list_free(children);
	return n;
}

/*
 * names_table
 *		Does column col name candidate c by Rails' naming of one of its
 *		words or runs of words ("related_ticket_id": tickets,
 *		"parent_category_id": categories), the table's name or its last
 *		words ("priority_id": ticket_priorities)?
 */
static bool
names_table(const char *col, Candidate *c)
{
	const char *rel = get_rel_name(c->relid);
	char	   *stem = pstrdup(col);
	char	   *end = strrchr(stem, '_');
	char	   *start;

	if (end != NULL)
		*end = '\0';			/* "_id", "_by", "_uuid" off */
	for (start = stem; start != NULL; start = strchr(start, '_') ? strchr(start, '_') + 1 : NULL)
	{
		char	   *run = pstrdup(start);
		char	   *cut;

		for (;;)
		{
			char	   *pl = subset_plural(run);
			size_t		lr = strlen(rel),
						lp = strlen(pl);

			/* the table, or a namespaced model's (ticket_priorities) */
			if (strcmp(pl, rel) == 0 ||
				(lr > lp && rel[lr - lp - 1] == '_' && strcmp(rel + lr - lp, pl) == 0))
				return true;
			if ((cut = strrchr(run, '_')) == NULL)
				break;
			*cut = '\0';
		}
	}
	return false;
}

/*
 * self_word
 *		Does column col begin with a word that points to a row of its own
 *		table (parent_id, root_id, previous_version_id ...)?
 */
static bool
self_word(const char *col)
{
	static const char *const words[] = {
		"parent", "root", "ancestor", "previous", "prev", "next", "original",
		"duplicate", "duplicated", "merged", "predecessor", "successor",
		"forked", "superseded", "reply", "in_reply", NULL
	};
	int			i;

	for (i = 0; words[i] != NULL; i++)
	{
		size_t		n = strlen(words[i]);

		if (strncmp(col, words[i], n) == 0 && col[n] == '_')
			return true;
	}
	return false;
}

/*
 * fit
 *		How well candidate c (rows rows) explains a column with distinct
 *		distinct values, every one a key of c, as a log-odds: the
 *		likelihood of drawing those values from c's keys, (1/rows) to the
 *		power of distinct (serial keys: a larger table holds small values
 *		too, so the fewest keys that hold every value fit best), times a
 *		prior, one plus the tables that reference c (a table many keys
 *		reference is a parent by nature).
 */
static double
fit(Candidate *c, double rows, int distinct)
{
	return log(1 + c->refs) - distinct * log(Max(rows, 1));
}

/*
 * candidates
 *		The tables of the config whose primary key is one column, with it,
 *		and how many other tables the keys fks (declared and inferred)
 *		make their children.
 */
static Candidate *
candidates(SubsetCatTable *tables, int n, List *fks, int *nc)
{
	Candidate  *out = palloc0(sizeof(Candidate) * Max(n, 1));
	int			i;

	*nc = 0;
	for (i = 0; i < n; i++)
	{
		Oid			keytype;
		char	   *key = subset_single_key(tables[i].relid, &keytype);
		Oid			relid = tables[i].relid;

		if (key == NULL)
			continue;
		out[*nc].relid = relid;
		out[*nc].name = tables[i].name;
		out[*nc].key = key;
		out[*nc].keytype = keytype;
		out[*nc].refs = reference_count(fks, relid);
		out[*nc].readable =
			pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) == ACLCHECK_OK ||
			pg_attribute_aclcheck(relid, get_attnum(relid, key), GetUserId(),
								  ACL_SELECT) == ACLCHECK_OK;
		(*nc)++;
	}
	return out;
}

/*
 * propose_column
 *		The proposal for column col (of type typid) of rel, or NULL: the
 *		candidate with the fewest rows among those that hold every value,
 *		allocated in cxt (not SPI's).
 */
static SubsetCatalogFk *
propose_column(Relation rel, const char *col, Oid typid, Candidate *cands, int nc,
			   MemoryContext cxt)
{
	ColumnValues cv;
	MemoryContext old = CurrentMemoryContext;
	Candidate  *best = NULL;
	bool		best_named = false;
	double		best_fit = 0;
	double		best_rows = 0;
	int			others = 0;
	int			i;
	StringInfoData ev;

	if (!read_values(rel, col, typid, &cv) ||
		cv.distinct < (key_named(col) ? MIN_DISTINCT : MIN_DISTINCT_INDEXED))
		return NULL;
	for (i = 0; i < nc; i++)
	{
		Candidate  *c = &cands[i];
		double		rows;
		double		f;
		bool		named;

		CHECK_FOR_INTERRUPTS();
		if (!c->readable || !subset_same_key_type(getBaseType(typid), getBaseType(c->keytype)))
			continue;
		/* the table itself, only when the column points back into it */
		if (c->relid == RelationGetRelid(rel) && !names_table(col, c) && !self_word(col))
			continue;
		if (!may_hold(c, &cv) || !holds_all(c, &cv))
			continue;
		rows = c->rows;
		f = fit(c, rows, cv.distinct);
		named = names_table(col, c);
		if (best != NULL)
			others++;
		/* a table the column names first, then the best fit */
		if (best == NULL || (named && !best_named) ||
			(named == best_named && f > best_fit))
		{
			best = c;
			best_named = named;
			best_fit = f;
			best_rows = rows;
		}
	}
	if (best == NULL)
		return NULL;
	MemoryContextSwitchTo(cxt);
	initStringInfo(&ev);
	if (cv.all_rows)
		appendStringInfo(&ev, "all " INT64_FORMAT " non-null values of %s.%s (%d distinct; every row read) are keys of %s.%s",
						 cv.rows, RelationGetRelationName(rel), col, cv.distinct,
						 best->name, best->key);
	else
		appendStringInfo(&ev, INT64_FORMAT " sampled non-null values of %s.%s (%d distinct; a sample of the rows, not every row) are keys of %s.%s",
						 cv.rows, RelationGetRelationName(rel), col, cv.distinct,
						 best->name, best->key);
	if (others == 0)
		appendStringInfoString(&ev, "; the only table that holds every value");
	else
		appendStringInfo(&ev, "; of the %d tables that hold every value, it fits best", others + 1);
	appendStringInfo(&ev, " (%.0f rows, referenced by %d table%s%s)",
					 best_rows, best->refs, best->refs == 1 ? "" : "s",
					 best_named ? ", named by the column" : "");
	{
		SubsetCatalogFk *fk = subset_infer_new_fk(RelationGetRelid(rel), best->relid, col,
												  best->key, "the data");

		fk->proposed = ev.data;
		MemoryContextSwitchTo(old);
		return fk;
	}
}

/*
 * propose_table
 *		The proposals for the key-like columns of rel that fks do not cover.
 *		Under SPI; the list in cxt.  An error that could quote a value is
 *		withheld.
 */
static List *
propose_table(Relation rel, List *fks, Candidate *cands, int nc, MemoryContext cxt)
{
	MemoryContext outer = CurrentMemoryContext;
	TupleDesc	desc = RelationGetDescr(rel);
	Oid			pktype;
	char	   *pk = subset_single_key(RelationGetRelid(rel), &pktype);
	List	   *volatile out = NIL;

	PG_TRY();
	{
		int			a;

		for (a = 0; a < desc->natts; a++)
		{
			Form_pg_attribute att = TupleDescAttr(desc, a);
			SubsetCatalogFk *fk;

			CHECK_FOR_INTERRUPTS();
			if (!key_like_column(rel, att, pk) ||
				subset_fk_covers(fks, RelationGetRelid(rel), NameStr(att->attname)))
				continue;
			fk = propose_column(rel, NameStr(att->attname), att->atttypid, cands, nc, cxt);
			if (fk != NULL)
			{
				MemoryContext old = MemoryContextSwitchTo(cxt);

				out = lappend(out, fk);
				MemoryContextSwitchTo(old);
			}
		}
	}
	PG_CATCH();
	{
		int			code = exwiw_withheld_sqlstate(outer);

		ereport(ERROR,
				(errcode(code),
				 errmsg("could not test the key columns of table \"%s\"",
						RelationGetRelationName(rel)),
				 errdetail("exwiw_config_from_catalog tests whether the values of columns that look like keys are keys of another table; the message of the error (SQLSTATE %s) is withheld because it could show a value.",
						   unpack_sql_state(code)),
				 errhint("Read the table as the same role to see the message.")));
	}
	PG_END_TRY();
	return out;
}

/*
 * subset_propose_from_data
 *		The relations the data supports for tables (n of them) that the
 *		foreign keys fks (declared and inferred) do not cover: a List of
 *		SubsetCatalogFk with "proposed" set to the evidence.
 */
List *
subset_propose_from_data(SubsetCatTable *tables, int n, List *fks)
{
	int			nc;
	Candidate  *cands = candidates(tables, n, fks, &nc);
	List	   *out = NIL;
	MemoryContext cxt = CurrentMemoryContext;
	int			nest = exwiw_pin_search_path();
	int			serial = exwiw_pin_serial();
	int			i;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	for (i = 0; i < n; i++)
	{
		Relation	rel = relation_open(tables[i].relid, AccessShareLock);

		if (rel->rd_rel->relkind == RELKIND_RELATION ||
			rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE)
		{
			List	   *more = propose_table(rel, fks, cands, nc, cxt);
			MemoryContext old = MemoryContextSwitchTo(cxt);

			out = list_concat(out, more);
			MemoryContextSwitchTo(old);
		}
		relation_close(rel, AccessShareLock);
	}
	SPI_finish();
	exwiw_restore_settings(serial);
	exwiw_restore_settings(nest);
	return out;
}
