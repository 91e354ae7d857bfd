/*-------------------------------------------------------------------------
 *
 * catalog/values.c
 *	  Secrets found by their values: safe mode of exwiw_config_from_catalog()
 *	  for the text, json and text[] columns whose name and type say nothing
 *	  (catalog/sensitive.c): the sample, the counts, the findings.
 *
 * A jsonb "provider_config" holding an API key, a "callback_url" with a
 * token in its query, a web-push "endpoint", a "recovery_codes text[]":
 * their names give nothing away, their values do.  This file reads a
 * bounded sample of such a column's values and says which kinds of secret
 * it saw in how many of them; catalog/read.c then marks the column
 * "needs_mask_decision": true with a comment and a default mask.
 *
 * The sample, one query per table: TABLESAMPLE SYSTEM over about
 * SAMPLE_PAGES pages of the table (the percentage from its size, so a 100
 * GB table costs those pages and a pass over its block numbers, not a
 * scan; a small table is read whole), at most SAMPLE_ROWS rows, and at most
 * SAMPLE_VALUES non-NULL values judged per column.  A row bound, not a
 * timeout: a statement_timeout set here would not be armed for a query run
 * through SPI.  A text value is judged by its first VALUE_PREFIX
 * characters (read as a slice), and a json or array value longer than
 * VALUE_MAX_BYTES is not read.  Rows are fetched through a cursor,
 * SAMPLE_BATCH at a time, in a memory context reset per batch.  A table
 * the caller may not read (no SELECT on it or on the column) is not
 * sampled; the caller says so in the table's comment.
 *
 * No value, nor any part of one, leaves this file: the findings are kinds,
 * counts and (for jsonb) the paths of keys, and a key is a path element
 * only when a mask's path can name it, it does not look random, and it was
 * seen in two sampled documents (or every one): a key that is data (a
 * user's name as a map key) is not copied into the config.  An error
 * raised while the sample is read (an RLS policy's function, a damaged
 * page) could quote a value: it is replaced by one that keeps its SQLSTATE
 * and names the table only, as exwiw_withhold_error() does for exports.
 *
 * What a secret looks like is catalog/secrets.c's: each string (a text
 * value, each element of an array, each string of a json document, a text
 * value that is itself a json object) is judged there, and an array as a
 * whole (one-time codes).  Here, the counts: a strong kind (a PEM key, a
 * JWT, a prefixed key, a URL with a credential, a digest, a secret-named
 * json key) marks a column when one sampled value holds it; a weak kind (a
 * random token, one-time codes) when at least half of them do, so that one
 * odd value in a column of notes does not.  For a jsonb column, the paths
 * of the hits become its masks ("json": delete at each path) when a mask
 * path can name every one of them (no array index, no key outside the
 * grammar, at most MAX_PATHS); else the whole document is masked.
 *
 *-------------------------------------------------------------------------
 */
#include "subset/subset.h"
#include "common/compat.h"

#include "access/relation.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#define SAMPLE_PAGES	64		/* pages TABLESAMPLE SYSTEM aims at */
#define SAMPLE_ROWS		1000	/* rows read, at most */
#define SAMPLE_VALUES	200		/* non-NULL values judged per column */
#define SAMPLE_BATCH	50		/* rows fetched at a time */
#define VALUE_PREFIX	4096	/* characters of a text value judged */
#define VALUE_MAX_BYTES 32768	/* a larger json or array is not read */
#define MAX_PATHS		16		/* json paths a mask lists, at most */
#define MAX_DEPTH		16		/* json depth a path follows */

/* What a column holds, as the sample reads it. */
typedef enum ValueForm
{
	FORM_TEXT,
	FORM_JSON,
	FORM_ARRAY
} ValueForm;

/* A json path where a secret was seen, and in how many documents. */
typedef struct SecretPath
{
	char	   *path;			/* "$.a.b" */
	int			docs;
} SecretPath;

/* One sampled column: what was read and what hit. */
typedef struct SampleColumn
{
	int			attidx;			/* index in the tuple descriptor */
	ValueForm	form;
	bool		tokens;			/* the random-token rule applies */
	int			sampled;		/* non-NULL values judged */
	int			urls;			/* ... that are one URL each */
	int			hits[SUBSET_NUM_SECRET_KINDS];	/* values per kind */
	List	   *paths;			/* SecretPath of json hits, in keep */
	bool		unnamed;		/* a json hit no mask path can name */
	MemoryContext keep;			/* where the paths live (not a batch's) */
} SampleColumn;

/* A json document being walked: the path to where the parser is. */
typedef struct JsonWalk
{
	SampleColumn *col;
	bool		keep_paths;		/* a jsonb column: paths for its masks */
	int			depth;
	bool		is_object[MAX_DEPTH];
	char	   *key[MAX_DEPTH]; /* current key of an object level */
	int			index[MAX_DEPTH];	/* current index of an array level */
	int			covered;		/* > 0: inside a value hit by its key's name,
								 * which opened this depth */
	uint32		found;			/* SUBSET_SECRET_BIT()s */
	List	   *paths;			/* paths hit in this document (char *) */
} JsonWalk;

/*
 * walk_hit
 *		Record kinds found at the walk's current path: a jsonb column keeps
 *		the path ("$.a.b") for its masks, or marks the column unnamed when
 *		no mask path can name it (an array index, a key of another grammar,
 *		the document itself).
 */
static void
walk_hit(JsonWalk *w, uint32 kinds)
{
	StringInfoData p;
	ListCell   *lc;
	int			i;

	if (kinds == 0)
		return;
	w->found |= kinds;
	if (!w->keep_paths || w->covered > 0)
		return;
	if (w->depth == 0 || w->depth > MAX_DEPTH)
	{
		w->col->unnamed = true;
		return;
	}
	initStringInfo(&p);
	appendStringInfoChar(&p, '$');
	for (i = 0; i < w->depth; i++)
	{
		if (!w->is_object[i] || w->key[i] == NULL || !subset_secret_path_key(w->key[i]))
		{
			w->col->unnamed = true;
			return;
		}
		appendStringInfo(&p, ".%s", w->key[i]);
	}
	foreach(lc, w->paths)
	{
		if (strcmp(lfirst(lc), p.data) == 0)
			return;
	}
	w->paths = lappend(w->paths, p.data);
}

/*
 * walk_key_hits
 *		Kinds a value at the current path holds by its key's name: a secret
 *		name for any value (string, number, object, array) that is not a
 *		placeholder; scalar s is NULL for an object or an array.  Deeper
 *		than MAX_DEPTH the key is not kept: nothing.
 */
static uint32
walk_key_hits(JsonWalk *w, const char *s, JsonTokenType type)
{
	const char *key;

	if (w->depth == 0 || w->depth > MAX_DEPTH || !w->is_object[w->depth - 1])
		return 0;
	key = w->key[w->depth - 1];
	if (key == NULL || !subset_secret_key_name(key))
		return 0;
	if (s == NULL)
		return SUBSET_SECRET_BIT(SUBSET_SECRET_JSON_KEY);
	if ((type == JSON_TOKEN_STRING || type == JSON_TOKEN_NUMBER) &&
		!subset_secret_placeholder(s, strlen(s)))
		return SUBSET_SECRET_BIT(SUBSET_SECRET_JSON_KEY);
	return 0;
}

/* json parser callbacks: the path to the current value, and its judgement */

/*
 * walk_open
 *		An object or an array begins: judged as a key's value, then a level
 *		deeper on the path.
 */
static void
walk_open(JsonWalk *w, JsonTokenType token)
{
	uint32		found = walk_key_hits(w, NULL, token);

	walk_hit(w, found);
	if (found != 0 && w->covered == 0)
		w->covered = w->depth + 1;
	if (w->depth < MAX_DEPTH)
	{
		w->is_object[w->depth] = (token == JSON_TOKEN_OBJECT_START);
		if (token == JSON_TOKEN_OBJECT_START)
			w->key[w->depth] = NULL;
		else
			w->index[w->depth] = -1;
	}
	w->depth++;
}

static ExwiwJsonActionResult
walk_object_start(void *state)
{
	walk_open(state, JSON_TOKEN_OBJECT_START);
	return EXWIW_JSON_ACTION_DONE;
}

static ExwiwJsonActionResult
walk_array_start(void *state)
{
	walk_open(state, JSON_TOKEN_ARRAY_START);
	return EXWIW_JSON_ACTION_DONE;
}

static ExwiwJsonActionResult
walk_end(void *state)
{
	JsonWalk   *w = state;

	w->depth--;
	if (w->covered > w->depth)
		w->covered = 0;
	return EXWIW_JSON_ACTION_DONE;
}

static ExwiwJsonActionResult
walk_field_start(void *state, char *fname, bool isnull)
{
	JsonWalk   *w = state;

	if (w->depth > 0 && w->depth <= MAX_DEPTH)
		w->key[w->depth - 1] = fname;
	return EXWIW_JSON_ACTION_DONE;
}

static ExwiwJsonActionResult
walk_element_start(void *state, bool isnull)
{
	JsonWalk   *w = state;

	if (w->depth > 0 && w->depth <= MAX_DEPTH)
		w->index[w->depth - 1]++;
	return EXWIW_JSON_ACTION_DONE;
}

/*
 * walk_scalar
 *		Judge a scalar of the document: by its key's name, then a string by
 *		the rules on strings, with the random-token rule (from 16
 *		characters) under a key that calls for it
 *		(subset_secret_random_key) and is not a secret's name itself.
 */
static ExwiwJsonActionResult
walk_scalar(void *state, char *token, JsonTokenType tokentype)
{
	JsonWalk   *w = state;
	uint32		found = walk_key_hits(w, token, tokentype);

	if (tokentype == JSON_TOKEN_STRING)
	{
		bool		random_key = false;
		char	   *s = token;

		if (found == 0 && w->depth > 0 && w->depth <= MAX_DEPTH &&
			w->is_object[w->depth - 1] && w->key[w->depth - 1] != NULL)
			random_key = subset_secret_random_key(w->key[w->depth - 1]);
		if (strlen(s) > VALUE_PREFIX)
			s = pnstrdup(s, VALUE_PREFIX);
		found |= subset_secret_string(s, random_key, 16);
	}
	walk_hit(w, found);
	return EXWIW_JSON_ACTION_DONE;
}

/*
 * judge_json
 *		The kinds of secret json text s holds; for a jsonb column
 *		(keep_paths), the paths where they are go to the column's list.
 *		False when s is not json the parser de-escapes (then it is judged as
 *		text by the caller, or not at all).
 */
static bool
judge_json(SampleColumn *col, const char *s, bool keep_paths, uint32 *found)
{
	JsonLexContext lexspace;
	JsonLexContext *lex;
	JsonSemAction sem;
	JsonWalk	w;
	ListCell   *lc;
	MemoryContext old;

	memset(&w, 0, sizeof(w));
	w.col = col;
	w.keep_paths = keep_paths;
	memset(&sem, 0, sizeof(sem));
	sem.semstate = &w;
	sem.object_start = walk_object_start;
	sem.object_end = walk_end;
	sem.array_start = walk_array_start;
	sem.array_end = walk_end;
	sem.object_field_start = walk_field_start;
	sem.array_element_start = walk_element_start;
	sem.scalar = walk_scalar;
	lex = exwiw_json_lex_make(&lexspace, s, strlen(s), true);
	if (pg_parse_json(lex, &sem) != JSON_SUCCESS)
		return false;
	*found = w.found;
	old = MemoryContextSwitchTo(col->keep);
	foreach(lc, w.paths)
	{
		ListCell   *pc;
		SecretPath *sp = NULL;

		foreach(pc, col->paths)
		{
			if (strcmp(((SecretPath *) lfirst(pc))->path, lfirst(lc)) == 0)
				sp = lfirst(pc);
		}
		if (sp == NULL)
		{
			if (list_length(col->paths) >= 4 * MAX_PATHS)
			{
				col->unnamed = true;
				continue;
			}
			sp = palloc0(sizeof(SecretPath));
			sp->path = pstrdup(lfirst(lc));
			col->paths = lappend(col->paths, sp);
		}
		sp->docs++;
	}
	MemoryContextSwitchTo(old);
	return true;
}

/*
 * judge_value
 *		Judge one non-NULL value of col (its datum as the sample query
 *		returns it: text, or text[] for an array) and count its kinds.
 */
static void
judge_value(SampleColumn *col, Datum d)
{
	uint32		found = 0;
	int			k;

	if (col->form == FORM_ARRAY)
	{
		Datum	   *elems;
		bool	   *nulls;
		char	  **strs;
		int			n,
					m = 0,
					i;

		deconstruct_array(DatumGetArrayTypeP(d), TEXTOID, -1, false, TYPALIGN_INT,
						  &elems, &nulls, &n);
		strs = palloc(sizeof(char *) * Max(n, 1));
		for (i = 0; i < n; i++)
		{
			char	   *s;

			if (nulls[i])
				continue;
			s = TextDatumGetCString(elems[i]);
			if (strlen(s) > VALUE_PREFIX)
				s[VALUE_PREFIX] = '\0';
			found |= subset_secret_string(s, col->tokens, 24);
			strs[m++] = s;
		}
		if (subset_secret_codes(strs, m))
			found |= SUBSET_SECRET_BIT(SUBSET_SECRET_CODES);
	}
	else
	{
		char	   *s = TextDatumGetCString(d);
		const char *b = s;
		uint32		json = 0;

		if (col->form == FORM_JSON)
		{
			if (!judge_json(col, s, true, &found))
				found = 0;
		}
		else
		{
			found = subset_secret_string(s, col->tokens, 24);
			col->urls += subset_secret_is_url(s);
			/* a text value that is a json object: its keys too */
			while (*b == ' ' || *b == '\n' || *b == '\t' || *b == '\r')
				b++;
			if (*b == '{' && judge_json(col, s, false, &json))
				found |= json;
		}
	}
	col->sampled++;
	for (k = 0; k < SUBSET_NUM_SECRET_KINDS; k++)
		if (found & SUBSET_SECRET_BIT(k))
			col->hits[k]++;
}

/*
 * value_form
 *		How the sample reads a column of type typid (domains seen through),
 *		or -1 when it does not: text, varchar and char as text, json and
 *		jsonb as json, arrays of those text types as text[].
 */
static int
value_form(Oid typid)
{
	Oid			base = getBaseType(typid);
	Oid			elem = get_element_type(base);

	if (OidIsValid(elem))
	{
		elem = getBaseType(elem);
		return (elem == TEXTOID || elem == VARCHAROID || elem == BPCHAROID) ? FORM_ARRAY : -1;
	}
	switch (base)
	{
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
			return FORM_TEXT;
		case JSONOID:
		case JSONBOID:
			return FORM_JSON;
		default:
			return -1;
	}
}

/*
 * subset_values_candidate
 *		Does the sample read columns of type typid?
 */
bool
subset_values_candidate(Oid typid)
{
	return value_form(typid) >= 0;
}

/*
 * subset_values_blocks
 *		The blocks of rel's storage (of its partitions' for a partitioned
 *		table); -1 when a partition is not a heap table (a foreign table:
 *		TABLESAMPLE would read it remotely, or refuse).
 */
double
subset_values_blocks(Relation rel)
{
	List	   *kids;
	ListCell   *lc;
	double		blocks = 0;

	if (rel->rd_rel->relkind != RELKIND_PARTITIONED_TABLE)
		return RelationGetNumberOfBlocks(rel);
	kids = find_all_inheritors(RelationGetRelid(rel), AccessShareLock, NULL);
	foreach(lc, kids)
	{
		char		kind = get_rel_relkind(lfirst_oid(lc));

		if (kind == RELKIND_PARTITIONED_TABLE)
			continue;
		if (kind != RELKIND_RELATION)
			return -1;
		{
			Relation	r = relation_open(lfirst_oid(lc), AccessShareLock);

			blocks += RelationGetNumberOfBlocks(r);
			relation_close(r, AccessShareLock);
		}
	}
	return blocks;
}

/*
 * sample_query
 *		The query that reads the sample of cols[0..n) of rel: one column per
 *		sampled column (a text slice, json as text, an array as text[];
 *		values too long are NULL), TABLESAMPLE SYSTEM over about
 *		SAMPLE_PAGES of blocks pages, REPEATABLE so that the same data gives
 *		the same config, at most SAMPLE_ROWS rows.  Schema-qualified.
 */
static char *
sample_query(Relation rel, SampleColumn *cols, int n, double blocks)
{
	TupleDesc	desc = RelationGetDescr(rel);
	StringInfoData q;
	double		pct = blocks <= SAMPLE_PAGES ? 100 : 100.0 * SAMPLE_PAGES / blocks;
	int			i;

	initStringInfo(&q);
	appendStringInfoString(&q, "SELECT ");
	for (i = 0; i < n; i++)
	{
		const char *col = quote_identifier(NameStr(TupleDescAttr(desc, cols[i].attidx)->attname));

		if (i > 0)
			appendStringInfoString(&q, ", ");
		switch (cols[i].form)
		{
			case FORM_TEXT:
				appendStringInfo(&q, "pg_catalog.substr(CAST(%s AS pg_catalog.text), 1, %d)",
								 col, VALUE_PREFIX);
				break;
			case FORM_JSON:
				appendStringInfo(&q, "CASE WHEN pg_catalog.pg_column_size(%s) <= %d"
								 " THEN CAST(%s AS pg_catalog.text) END",
								 col, VALUE_MAX_BYTES, col);
				break;
			case FORM_ARRAY:
				appendStringInfo(&q, "CASE WHEN pg_catalog.pg_column_size(%s) <= %d"
								 " THEN CAST(%s AS pg_catalog.text[]) END",
								 col, VALUE_MAX_BYTES, col);
				break;
		}
	}
	appendStringInfo(&q, " FROM %s%s TABLESAMPLE pg_catalog.system (%.9f) REPEATABLE (0) LIMIT %d",
					 rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE ? "" : "ONLY ",
					 quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
												RelationGetRelationName(rel)),
					 pct, SAMPLE_ROWS);
	return q.data;
}

/*
 * read_sample
 *		Run the sample query q through a cursor, SAMPLE_BATCH rows at a
 *		time (a memory context reset per batch), and judge each column's
 *		non-NULL values until it has SAMPLE_VALUES of them.  Under a pinned
 *		search_path, without parallel workers (a worker reports its own
 *		error, to the log too).  An error that could quote a value is
 *		replaced by one that names the table and keeps the SQLSTATE.
 */
static void
read_sample(Relation rel, const char *q, SampleColumn *cols, int n)
{
	MemoryContext outer = CurrentMemoryContext;
	MemoryContext batch = AllocSetContextCreate(CurrentMemoryContext,
												"exwiw value sample",
												ALLOCSET_DEFAULT_SIZES);
	int			nest = exwiw_pin_search_path();
	int			serial = exwiw_pin_serial();

	PG_TRY();
	{
		SPIPlanPtr	plan;
		Portal		portal;
		bool		done = false;

		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		plan = SPI_prepare(q, 0, NULL);
		if (plan == NULL)
			elog(ERROR, "could not prepare the sample of a table: %s",
				 SPI_result_code_string(SPI_result));
		portal = SPI_cursor_open(NULL, plan, NULL, NULL, true);
		while (!done)
		{
			uint64		r;

			SPI_cursor_fetch(portal, true, SAMPLE_BATCH);
			if (SPI_processed == 0)
				break;
			for (r = 0; r < SPI_processed && !done; r++)
			{
				int			i;

				CHECK_FOR_INTERRUPTS();
				done = true;
				for (i = 0; i < n; i++)
				{
					bool		isnull;
					Datum		d;
					MemoryContext old;

					if (cols[i].sampled >= SAMPLE_VALUES)
						continue;
					done = false;
					d = SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc,
									  i + 1, &isnull);
					if (isnull)
						continue;
					/* a value's bytes in batch, the findings in cols' keep */
					old = MemoryContextSwitchTo(batch);
					judge_value(&cols[i], d);
					MemoryContextSwitchTo(old);
				}
			}
			SPI_freetuptable(SPI_tuptable);
			MemoryContextReset(batch);
		}
		SPI_cursor_close(portal);
		SPI_finish();
	}
	PG_CATCH();
	{
		int			code = exwiw_withheld_sqlstate(outer);

		ereport(ERROR,
				(errcode(code),
				 errmsg("could not read a sample of table \"%s\"",
						RelationGetRelationName(rel)),
				 errdetail("Safe mode reads a sample of the values of its text and json columns to find secrets; the message of the error (SQLSTATE %s) is withheld because it could show a value.",
						   unpack_sql_state(code)),
				 errhint("Read the table as the same role to see the message.")));
	}
	PG_END_TRY();
	exwiw_restore_settings(serial);
	exwiw_restore_settings(nest);
	MemoryContextDelete(batch);
}

/*
 * finding
 *		What the sample of col says, or NULL when no kind reached its
 *		threshold (a strong kind: one value; a weak one: half of the
 *		sampled values).  The comment names the kinds and their counts;
 *		the paths are those of a jsonb column's hits when a mask can name
 *		them all: each seen in two documents or in every sampled one, at
 *		most MAX_PATHS once those under another are dropped.
 */
static SubsetValueSecrets *
finding(SampleColumn *col, Oid typid)
{
	SubsetValueSecrets *f;
	StringInfoData seen;
	ListCell   *lc;
	int			k;
	bool		flagged = false;

	initStringInfo(&seen);
	for (k = 0; k < SUBSET_NUM_SECRET_KINDS; k++)
	{
		if (col->hits[k] == 0 ||
			(!subset_secret_kind_strong(k) && col->hits[k] * 2 < col->sampled))
			continue;
		appendStringInfo(&seen, "%s%s in %d of %d sampled values",
						 flagged ? "; " : "", subset_secret_kind_name(k), col->hits[k],
						 col->sampled);
		flagged = true;
	}
	if (!flagged)
		return NULL;
	f = palloc0(sizeof(SubsetValueSecrets));
	f->seen = seen.data;
	f->urls = col->form == FORM_TEXT && col->urls == col->sampled;
	f->digest = col->hits[SUBSET_SECRET_DIGEST] == col->sampled;
	for (k = 0; k < SUBSET_NUM_SECRET_KINDS; k++)
		f->digest &= (k == SUBSET_SECRET_DIGEST || col->hits[k] == 0);
	if (col->form != FORM_JSON || getBaseType(typid) != JSONBOID || col->unnamed)
		return f;
	foreach(lc, col->paths)
	{
		SecretPath *sp = lfirst(lc);
		ListCell   *oc;
		bool		under = false;

		if (sp->docs < 2 && sp->docs < col->sampled)
		{
			f->paths = NIL;
			return f;
		}
		foreach(oc, col->paths)
		{
			const char *o = ((SecretPath *) lfirst(oc))->path;
			int			ol = strlen(o);

			under |= (strncmp(sp->path, o, ol) == 0 && sp->path[ol] == '.');
		}
		if (!under)
			f->paths = lappend(f->paths, sp->path);
	}
	if (list_length(f->paths) > MAX_PATHS)
		f->paths = NIL;
	return f;
}

/*
 * subset_values_secrets
 *		Sample the columns of rel marked in want (by index in its tuple
 *		descriptor; text, json and text[] columns only) and return, by the
 *		same index, what was found in each (NULL: nothing).  The columns the
 *		caller may not read are not sampled: *unread lists them ("a, b"),
 *		or is NULL; so is a partitioned table with a partition that is not a
 *		heap table (*unread then says so).
 */
SubsetValueSecrets **
subset_values_secrets(Relation rel, const bool *want, char **unread)
{
	TupleDesc	desc = RelationGetDescr(rel);
	Oid			relid = RelationGetRelid(rel);
	SubsetValueSecrets **out = palloc0(sizeof(SubsetValueSecrets *) * Max(desc->natts, 1));
	SampleColumn *cols = palloc0(sizeof(SampleColumn) * Max(desc->natts, 1));
	bool		table_ok = pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) == ACLCHECK_OK;
	StringInfoData skipped;
	double		blocks;
	int			n = 0;
	int			i;

	*unread = NULL;
	initStringInfo(&skipped);
	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (!want[i] || att->attisdropped || value_form(att->atttypid) < 0)
			continue;
		if (!table_ok &&
			pg_attribute_aclcheck(relid, att->attnum, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		{
			appendStringInfo(&skipped, "%s%s", skipped.len ? ", " : "",
							 quote_identifier(NameStr(att->attname)));
			continue;
		}
		cols[n].attidx = i;
		cols[n].form = value_form(att->atttypid);
		cols[n].tokens = subset_secret_random_column(NameStr(att->attname));
		cols[n].keep = CurrentMemoryContext;
		n++;
	}
	if (skipped.len > 0 && n == 0)
		*unread = "the values of its text and json columns were not sampled for secrets: no SELECT privilege";
	else if (skipped.len > 0)
		*unread = psprintf("the values of %s were not sampled for secrets: no SELECT privilege",
						   skipped.data);
	if (n == 0)
		return out;
	blocks = subset_values_blocks(rel);
	if (blocks < 0)
	{
		*unread = "the values of its text and json columns were not sampled for secrets: a partition is not a heap table";
		return out;
	}
	read_sample(rel, sample_query(rel, cols, n, blocks), cols, n);
	for (i = 0; i < n; i++)
		out[cols[i].attidx] = finding(&cols[i],
									  TupleDescAttr(desc, cols[i].attidx)->atttypid);
	return out;
}
