/*-------------------------------------------------------------------------
 *
 * catalog/read.c
 *	  The foreign-key graph as the catalog has it, and
 *	  exwiw_config_from_catalog().
 *
 *	  exwiw_config_from_catalog(schema name DEFAULT current_schema())
 *		RETURNS jsonb
 *
 * Tables: the ordinary and partitioned tables of the schema (not
 * partitions, not tables that belong to an extension), plus every table
 * their foreign keys reference, transitively, in whatever schema: a load
 * with every constraint enforced needs those rows too.
 *
 * Foreign keys become belongs_tos: every constraint that was declared (not
 * the copies PostgreSQL makes on each partition), with both ends mapped to
 * their partition root, so that a key declared on the partitioned table, on
 * every partition or on some of them, and a key that references a
 * partitioned table, are all one edge between two config tables.  Several
 * keys between the same two tables stay several edges; composite keys are
 * arrays.  Inheritance children are tables of their own: their keys are
 * their own, and each is read with ONLY.
 *
 * Safe mode, as the Ruby client's: columns that look sensitive
 * (catalog/sensitive.c), key columns never, get "needs_mask_decision": true
 * and a default mask that suits what they hold (default_mask: fake names,
 * phones, addresses and companies seeded by the key, NULL for an IP
 * address, a known digest for a password digest, the client's
 * "masked-{id}", "masked-{id}@example.com", 0, false, "2000-01-01", "{}",
 * or the column's own constant default), so that a generated config is
 * safe, and usable, before anyone edits it; the marker stays, so a
 * reviewer sees which masks were chosen by default.  Columns without a
 * default (uuid, enum, array, binary, and unique columns that a constant
 * would collide) stay undecided, and exwiw_export refuses them until
 * someone decides.  The text, json and text[] columns whose name and type
 * say nothing are then judged by a bounded sample of their values
 * (catalog/values.c): one that holds secrets is marked too, with a comment
 * naming what was seen and a mask that suits it (value_mask).
 *
 *-------------------------------------------------------------------------
 */
#include "subset/subset.h"
#include "common/compat.h"

#include "access/genam.h"
#include "access/relation.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "rewrite/rewriteHandler.h"
#include "nodes/primnodes.h"

/*
 * subset_root_relid
 *		The partition root of relid, or relid itself.
 */
Oid
subset_root_relid(Oid relid)
{
	if (get_rel_relispartition(relid))
		return llast_oid(get_partition_ancestors(relid));
	return relid;
}

/*
 * text_array_strings
 *		The elements of a text[] datum as C strings.
 */
static char **
text_array_strings(Datum d, int *n)
{
	Datum	   *elems;
	bool	   *nulls;
	char	  **out;
	int			i;

	deconstruct_array(DatumGetArrayTypeP(d), TEXTOID, -1, false, TYPALIGN_INT,
					  &elems, &nulls, n);
	out = palloc(sizeof(char *) * Max(*n, 1));
	for (i = 0; i < *n; i++)
		out[i] = TextDatumGetCString(elems[i]);
	return out;
}

static bool
same_names(int n, char **a, char **b)
{
	int			i;

	for (i = 0; i < n; i++)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return true;
}

/*
 * subset_catalog_fks
 *		Every declared foreign key of the database, ends mapped to their
 *		partition roots, duplicates (the same key declared on several
 *		partitions) removed, in constraint name order.  A List of
 *		SubsetCatalogFk, allocated in the current memory context.
 */
List *
subset_catalog_fks(void)
{
	MemoryContext cxt = CurrentMemoryContext;
	List	   *fks = NIL;
	int			nest = exwiw_pin_search_path();
	uint64		i;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute("SELECT c.conname::pg_catalog.text, c.conrelid, c.confrelid,"
					" ARRAY(SELECT a.attname::pg_catalog.text"
					"       FROM pg_catalog.unnest(c.conkey) WITH ORDINALITY AS k(n, o)"
					"       JOIN pg_catalog.pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n"
					"       ORDER BY k.o),"
					" ARRAY(SELECT a.attname::pg_catalog.text"
					"       FROM pg_catalog.unnest(c.confkey) WITH ORDINALITY AS k(n, o)"
					"       JOIN pg_catalog.pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n"
					"       ORDER BY k.o)"
					" FROM pg_catalog.pg_constraint c"
					" WHERE c.contype = 'f' AND c.conparentid = 0"
					" ORDER BY c.conname COLLATE \"C\", c.oid", true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the foreign keys");

	for (i = 0; i < SPI_processed; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		bool		isnull;
		MemoryContext old = MemoryContextSwitchTo(cxt);
		SubsetCatalogFk *fk = palloc0(sizeof(SubsetCatalogFk));
		int			nref;
		ListCell   *lc;
		bool		dup = false;

		CHECK_FOR_INTERRUPTS();
		fk->conname = TextDatumGetCString(SPI_getbinval(tup, desc, 1, &isnull));
		fk->child = subset_root_relid(DatumGetObjectId(SPI_getbinval(tup, desc, 2, &isnull)));
		fk->parent = subset_root_relid(DatumGetObjectId(SPI_getbinval(tup, desc, 3, &isnull)));
		fk->fk = text_array_strings(SPI_getbinval(tup, desc, 4, &isnull), &fk->n);
		fk->ref = text_array_strings(SPI_getbinval(tup, desc, 5, &isnull), &nref);
		Assert(nref == fk->n);
		foreach(lc, fks)
		{
			SubsetCatalogFk *o = lfirst(lc);

			if (o->child == fk->child && o->parent == fk->parent && o->n == fk->n &&
				same_names(fk->n, o->fk, fk->fk) && same_names(fk->n, o->ref, fk->ref))
				dup = true;
		}
		if (!dup)
			fks = lappend(fks, fk);
		MemoryContextSwitchTo(old);
	}
	SPI_finish();
	exwiw_restore_settings(nest);
	return fks;
}

/*
 * subset_current_schema
 *		The current schema's OID (the first schema of search_path that
 *		exists), for a NULL config.
 */
Oid
subset_current_schema(void)
{
	List	   *path = fetch_search_path(false);

	if (path == NIL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_SCHEMA),
				 errmsg("no schema has been selected to read the config from"),
				 errhint("Set search_path, or pass a config.")));
	return linitial_oid(path);
}

/*
 * config_name
 *		How the config names relid: bare when it is in the current schema
 *		and a bare name finds it, else "schema.table"; a part that holds a
 *		"." quoted (subset_config_spelling).
 */
static char *
config_name(Oid relid, Oid curnsp)
{
	return subset_config_spelling(relid, get_rel_namespace(relid) == curnsp);
}

typedef SubsetCatTable CatTable;

static int
cat_table_cmp(const void *a, const void *b)
{
	return strcmp(((const CatTable *) a)->name, ((const CatTable *) b)->name);
}

/*
 * schema_tables
 *		The tables of nspid that a config lists: ordinary and partitioned,
 *		not partitions, not members of an extension.
 */
static List *
schema_tables(Oid nspid)
{
	MemoryContext cxt = CurrentMemoryContext;
	List	   *rels = NIL;
	int			nest = exwiw_pin_search_path();
	Oid			argtypes[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(nspid)};
	uint64		i;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args("SELECT c.oid FROM pg_catalog.pg_class c"
							  " WHERE c.relnamespace = $1 AND c.relkind IN ('r', 'p')"
							  " AND NOT c.relispartition"
							  " AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend d"
							  "   WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass"
							  "   AND d.objid = c.oid AND d.deptype = 'e')",
							  1, argtypes, values, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the tables of a schema");
	for (i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		MemoryContext old = MemoryContextSwitchTo(cxt);

		rels = lappend_oid(rels, DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
																SPI_tuptable->tupdesc, 1,
																&isnull)));
		MemoryContextSwitchTo(old);
	}
	SPI_finish();
	exwiw_restore_settings(nest);
	return rels;
}

/*
 * primary_key_names
 *		The primary key columns of rel, in key order; *n = 0 when none.
 */
static char **
primary_key_names(Relation rel, int *n)
{
	Oid			pkoid = exwiw_primary_key_index(rel);
	Relation	idx;
	char	  **names;
	int			i;

	*n = 0;
	if (!OidIsValid(pkoid))
		return NULL;
	idx = index_open(pkoid, AccessShareLock);
	*n = IndexRelationGetNumberOfKeyAttributes(idx);
	names = palloc(sizeof(char *) * *n);
	for (i = 0; i < *n; i++)
		names[i] = get_attname(RelationGetRelid(rel), idx->rd_index->indkey.values[i], false);
	index_close(idx, AccessShareLock);
	return names;
}

static void
append_json_string(StringInfo buf, const char *s)
{
	escape_json(buf, s);
}

/* "col" or ["a", "b"] */
static void
append_json_cols(StringInfo buf, int n, char **cols)
{
	int			i;

	if (n == 1)
	{
		append_json_string(buf, cols[0]);
		return;
	}
	appendStringInfoChar(buf, '[');
	for (i = 0; i < n; i++)
	{
		if (i > 0)
			appendStringInfoString(buf, ", ");
		append_json_string(buf, cols[i]);
	}
	appendStringInfoChar(buf, ']');
}

static int
name_index(int n, char **names, const char *name)
{
	int			i;

	for (i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return -1;
}

/*
 * append_belongs_to
 *		One belongs_to from fk: its columns in the order of the parent's
 *		primary key when it references that, else with "references".
 */
static void
append_belongs_to(StringInfo buf, SubsetCatalogFk *fk, const char *parent_name)
{
	Relation	prel = relation_open(fk->parent, AccessShareLock);
	int			npk;
	char	  **pk = primary_key_names(prel, &npk);
	bool		is_pk = (npk == fk->n);
	char	  **fkcols = palloc(sizeof(char *) * fk->n);
	int			i;

	relation_close(prel, AccessShareLock);
	for (i = 0; is_pk && i < npk; i++)
	{
		int			j = name_index(fk->n, fk->ref, pk[i]);

		if (j < 0)
			is_pk = false;
		else
			fkcols[i] = fk->fk[j];
	}
	appendStringInfoString(buf, "{\"table_name\": ");
	append_json_string(buf, parent_name);
	appendStringInfoString(buf, ", \"foreign_key\": ");
	if (is_pk)
		append_json_cols(buf, fk->n, fkcols);
	else
	{
		append_json_cols(buf, fk->n, fk->fk);
		appendStringInfoString(buf, ", \"references\": ");
		append_json_cols(buf, fk->n, fk->ref);
	}
	if (fk->type_col)
	{
		appendStringInfoString(buf, ", \"foreign_type\": ");
		append_json_string(buf, fk->type_col);
		appendStringInfoString(buf, ", \"type_value\": ");
		append_json_string(buf, fk->type_value);
	}
	if (fk->proposed)
	{
		/* offered, not applied: a person accepts or rejects it */
		appendStringInfoString(buf, ", \"proposed\": true, \"evidence\": ");
		append_json_string(buf, fk->proposed);
	}
	else if (fk->inferred)
	{
		appendStringInfoString(buf, ", \"inferred\": true, \"comment\": ");
		append_json_string(buf, psprintf("inferred: %s", fk->inferred));
	}
	appendStringInfoChar(buf, '}');
}

/*
 * append_unmapped_arm
 *		A polymorphic arm whose type value maps to no table: no table_name,
 *		"needs_table_decision": true and the reason (catalog/infer.c).
 */
static void
append_unmapped_arm(StringInfo buf, SubsetCatalogFk *fk)
{
	Assert(fk->unmapped != NULL && fk->type_col != NULL);
	appendStringInfoString(buf, "{\"foreign_key\": ");
	append_json_string(buf, fk->fk[0]);
	appendStringInfoString(buf, ", \"foreign_type\": ");
	append_json_string(buf, fk->type_col);
	appendStringInfoString(buf, ", \"type_value\": ");
	append_json_string(buf, fk->type_value);
	appendStringInfoString(buf, ", \"needs_table_decision\": true, \"inferred\": true, \"comment\": ");
	append_json_string(buf, psprintf("inferred: %s", fk->unmapped));
	appendStringInfoChar(buf, '}');
}

/*
 * column_is_unique
 *		Is column attnum of rel the only column of a unique index?  Then a
 *		constant mask would make its rows collide.
 */
static bool
column_is_unique(Relation rel, AttrNumber attnum)
{
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;
	bool		unique = false;

	foreach(lc, indexes)
	{
		Relation	ir = index_open(lfirst_oid(lc), AccessShareLock);
		int			i;

		if (ir->rd_index->indisunique)
			for (i = 0; i < IndexRelationGetNumberOfKeyAttributes(ir); i++)
				unique |= (ir->rd_index->indkey.values[i] == attnum);
		index_close(ir, AccessShareLock);
	}
	return unique;
}

/*
 * constant_default
 *		The column's default when it is a plain constant (a quoted string,
 *		a number, true or false) as the JSON value of a mask; else NULL.
 */
static char *
constant_default(Relation rel, Form_pg_attribute att)
{
	Node	   *expr;
	StringInfoData s;

	if (!att->atthasdef)
		return NULL;
	expr = build_column_default(rel, att->attnum);
	if (expr == NULL)
		return NULL;
	while (IsA(expr, RelabelType) || IsA(expr, CoerceViaIO) || IsA(expr, FuncExpr))
	{
		/* casts of a constant: 'x'::character varying, 0::numeric */
		if (IsA(expr, RelabelType))
			expr = (Node *) ((RelabelType *) expr)->arg;
		else if (IsA(expr, CoerceViaIO))
			expr = (Node *) ((CoerceViaIO *) expr)->arg;
		else if (((FuncExpr *) expr)->funcformat != COERCE_EXPLICIT_CALL &&
				 list_length(((FuncExpr *) expr)->args) >= 1)
			expr = linitial(((FuncExpr *) expr)->args);
		else
			return NULL;
	}
	if (!IsA(expr, Const) || ((Const *) expr)->constisnull)
		return NULL;
	initStringInfo(&s);
	{
		Const	   *c = (Const *) expr;
		Oid			out;
		bool		varlena;
		char	   *text;

		getTypeOutputInfo(c->consttype, &out, &varlena);
		text = OidOutputFunctionCall(out, c->constvalue);

		if (c->consttype == BOOLOID)
			appendStringInfoString(&s, strcmp(text, "t") == 0 ? "true" : "false");
		else if (c->consttype == INT2OID || c->consttype == INT4OID ||
				 c->consttype == INT8OID || c->consttype == NUMERICOID)
			appendStringInfoString(&s, text);
		else
		{
			/* a template placeholder would be read as one: not a default */
			const char *open = strchr(text, '{');

			if (open && strchr(open, '}') && strchr(open, '}') > open + 1)
				return NULL;
			escape_json(&s, text);
		}
	}
	return s.data;
}

/*
 * The digest safe mode writes on a password digest column: bcrypt (cost
 * 10, the scheme of Rails' has_secure_password and Devise) of the word
 * "password", so that every exported user logs in to the development
 * database with that password.  Checked with pgcrypto's crypt() in
 * test/t/subset_defaults.sh.
 */
#define DEV_PASSWORD_DIGEST "$2a$10$exwiwdevelopmentlogin.fqtuK2xi7vqWhNHJuarZevj6AcOPpyO"

/*
 * fake_type_of
 *		The replace_with_fake_data type for a column of kind, and the
 *		longest value its pool holds (fake/words.c) in *maxlen; NULL when
 *		fake data does not fit the kind.
 */
static const char *
fake_type_of(SubsetSensitiveKind kind, int *maxlen)
{
	switch (kind)
	{
		case SENSITIVE_NAME:
			*maxlen = 17;
			return "name";
		case SENSITIVE_FIRST_NAME:
			*maxlen = 8;
			return "first_name";
		case SENSITIVE_LAST_NAME:
			*maxlen = 8;
			return "last_name";
		case SENSITIVE_PHONE:
			*maxlen = 13;
			return "phone_number";
		case SENSITIVE_ADDRESS:
			*maxlen = 33;
			return "address";
		case SENSITIVE_CITY:
			*maxlen = 11;
			return "city";
		case SENSITIVE_COMPANY:
			*maxlen = 20;
			return "company";
		default:
			return NULL;
	}
}

/*
 * default_mask
 *		The mask safe mode writes for a column it marks as holding kind, as
 *		the keys of a column entry ("replace_with": ..., or "raw_sql", or
 *		"replace_with_fake_data", with a "comment" where the choice is worth
 *		reading); NULL when there is none that is safe (arrays, uuids,
 *		enums, binary data, constants for unique columns, values too long
 *		for the column): the column then stays undecided.  pk is the table's
 *		single key column, or NULL.  Every choice is in doc/subset.md (Safe
 *		mode):
 *
 *		a person's name, a phone number, an address, a city, a company:
 *			fake data seeded by the key (distinct people stay distinct, the
 *			same person gets the same fake value in every table), unless
 *			the column is unique (the pool would collide) or too short;
 *		an IP address: NULL where the column allows it;
 *		a password digest: one known digest (DEV_PASSWORD_DIGEST);
 *		other text: the Ruby client's "masked-{id}" ("@example.com" for
 *			mail), which stays unique;
 *		other types: the column's constant default, or 0, false,
 *			2000-01-01, {} (not for unique columns).
 */
static char *
default_mask(Relation rel, Form_pg_attribute att, const char *pk,
			 SubsetSensitiveKind kind)
{
	Oid			base = getBaseType(att->atttypid);
	char	   *mask = NULL;
	bool		unique = column_is_unique(rel, att->attnum);
	StringInfoData s;

	if (OidIsValid(get_element_type(base)))
		return NULL;
	initStringInfo(&s);
	if (kind == SENSITIVE_IP && !att->attnotnull)
		return pstrdup("\"raw_sql\": \"NULL\"");
	switch (base)
	{
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
			{
				int			limit = att->atttypmod > VARHDRSZ ? att->atttypmod - VARHDRSZ : -1;
				bool		mail = kind == SENSITIVE_EMAIL ||
					strstr(NameStr(att->attname), "mail") != NULL;
				const char *fake;
				int			maxlen = 0;

				if (kind == SENSITIVE_PASSWORD_DIGEST)
				{
					if (limit >= 0 && limit < (int) strlen(DEV_PASSWORD_DIGEST))
						return NULL;
					appendStringInfoString(&s, "\"replace_with\": ");
					escape_json(&s, DEV_PASSWORD_DIGEST);
					appendStringInfoString(&s, ", \"comment\": ");
					escape_json(&s, "safe mode's choice, yours to change: every row gets the bcrypt digest of \"password\", so every exported user logs in to the development database with the password \"password\"");
					return s.data;
				}
				fake = fake_type_of(kind, &maxlen);
				if (fake && pk && !unique && (limit < 0 || limit >= maxlen))
				{
					appendStringInfoString(&s, "\"replace_with_fake_data\": {\"seed\": ");
					escape_json(&s, pk);
					appendStringInfoString(&s, ", \"type\": ");
					escape_json(&s, fake);
					appendStringInfoChar(&s, '}');
					return s.data;
				}
				if (pk == NULL || (limit >= 0 && limit < (mail ? 40 : 20)))
					return NULL;
				appendStringInfoString(&s, "\"replace_with\": ");
				escape_json(&s, psprintf(mail ? "masked-{%s}@example.com" : "masked-{%s}", pk));
				return s.data;
			}
		default:
			break;
	}
	mask = constant_default(rel, att);
	if (mask == NULL)
	{
		switch (base)
		{
			case INT2OID:
			case INT4OID:
			case INT8OID:
			case NUMERICOID:
			case FLOAT4OID:
			case FLOAT8OID:
				mask = "0";
				break;
			case BOOLOID:
				mask = "false";
				break;
			case DATEOID:
				mask = "\"2000-01-01\"";
				break;
			case TIMESTAMPOID:
			case TIMESTAMPTZOID:
			case TIMEOID:
			case TIMETZOID:
				mask = "\"2000-01-01 00:00:00\"";
				break;
			case JSONOID:
			case JSONBOID:
				mask = "\"{}\"";
				break;
			case INETOID:
			case CIDROID:
				/* NOT NULL: an address of TEST-NET-1 (RFC 5737) */
				mask = "\"192.0.2.1\"";
				break;
			default:
				return NULL;
		}
	}
	/* a constant would give every row of a unique column the same value */
	if (unique)
		return NULL;
	appendStringInfo(&s, "\"replace_with\": %s", mask);
	return s.data;
}

/*
 * value_mask
 *		The mask safe mode writes for a column whose sampled values hold
 *		secrets (catalog/values.c, found), as the keys of a column entry, or
 *		NULL when none is safe; what it chose goes to the end of comment.
 *		pk is the table's single key column, or NULL:
 *
 *		an array: none (as for any array);
 *		a unique json or digest column: none (deleting keys, or a constant,
 *			could make two values equal);
 *		jsonb whose secrets sit at paths a mask can name: "json" deleting
 *			each path (a row may hold a secret at a path the sample did not
 *			see: the comment says so);
 *		other json and jsonb: the whole document, {} (not for a unique
 *			column);
 *		text holding password digests only: the known digest, as for a
 *			column named as one;
 *		text holding one URL a value: "https://example.com/masked-{id}"
 *			(varchar(n) of at least 40), a URL that reaches nobody;
 *		other text: "masked-{id}".
 */
static char *
value_mask(Relation rel, Form_pg_attribute att, const char *pk,
		   SubsetValueSecrets *found, StringInfo comment)
{
	Oid			base = getBaseType(att->atttypid);
	int			limit = att->atttypmod > VARHDRSZ ? att->atttypmod - VARHDRSZ : -1;
	bool		unique = column_is_unique(rel, att->attnum);
	StringInfoData s;
	char	   *mask;
	ListCell   *lc;

	initStringInfo(&s);
	if (OidIsValid(get_element_type(base)))
	{
		appendStringInfoString(comment, "; undecided: no default mask fits an array");
		return NULL;
	}
	if ((base == JSONOID || base == JSONBOID || found->digest) && unique)
	{
		appendStringInfoString(comment, "; undecided: the column is unique, and a default mask could make its values collide");
		return NULL;
	}
	if (base == JSONBOID && found->paths != NIL)
	{
		appendStringInfoString(&s, "\"json\": [");
		foreach(lc, found->paths)
		{
			appendStringInfo(&s, "%s{\"path\": ", foreach_current_index(lc) ? ", " : "");
			escape_json(&s, lfirst(lc));
			appendStringInfoString(&s, ", \"delete\": true}");
		}
		appendStringInfoChar(&s, ']');
		appendStringInfoString(comment, "; safe mode's choice, yours to change: the paths where the sample saw them are deleted, and a row may hold a secret at a path the sample did not see");
		return s.data;
	}
	if (base == JSONOID || base == JSONBOID)
	{
		mask = default_mask(rel, att, pk, SENSITIVE_OTHER);
		appendStringInfoString(comment, "; safe mode's choice, yours to change: the whole document is replaced (no mask path names every place the sample saw them)");
		return mask;
	}
	if (found->digest && (limit < 0 || limit >= (int) strlen(DEV_PASSWORD_DIGEST)))
	{
		appendStringInfoString(&s, "\"replace_with\": ");
		escape_json(&s, DEV_PASSWORD_DIGEST);
		appendStringInfoString(comment, "; safe mode's choice, yours to change: every row gets the bcrypt digest of \"password\"");
		return s.data;
	}
	if (found->urls && pk != NULL && (limit < 0 || limit >= 40))
	{
		appendStringInfoString(&s, "\"replace_with\": ");
		escape_json(&s, psprintf("https://example.com/masked-{%s}", pk));
		appendStringInfoString(comment, "; safe mode's choice, yours to change: a URL that reaches nobody");
		return s.data;
	}
	mask = default_mask(rel, att, pk, SENSITIVE_OTHER);
	appendStringInfoString(comment, mask ? "; safe mode's choice, yours to change" :
						   "; undecided: no default mask fits (no single-column primary key, or a column too short)");
	return mask;
}

/*
 * rails_type
 *		The Ruby client's type of a table Rails manages (schema_migrations,
 *		ar_internal_metadata, as Rails creates them), or NULL.
 */
static const char *
rails_type(Relation rel)
{
	const char *relname = RelationGetRelationName(rel);
	Oid			relid = RelationGetRelid(rel);

	if (strcmp(relname, "schema_migrations") == 0 &&
		get_attnum(relid, "version") != InvalidAttrNumber)
		return "rails_managed_schema_migrations";
	if (strcmp(relname, "ar_internal_metadata") == 0 &&
		get_attnum(relid, "key") != InvalidAttrNumber)
		return "rails_managed_internal_metadata";
	return NULL;
}

/*
 * append_scope_decision
 *		Safe mode for tables: a table that no belongs_to ties to another
 *		(tied false) would go out in full wherever it is not the target or
 *		reached from it.  It gets "needs_scope_decision": true when a column
 *		other than those of its own belongs_tos (a self-reference) looks like
 *		the key of another table (a primary key "project_id" of a one-to-one
 *		table too), naming it;
 *		else, when other tables reference it (referenced), nothing: its rows
 *		come in as the parents of exported rows ("export": "all" means every
 *		row); else "export": "all", with the reason.  A table that may hold the
 *		rows of a polymorphic type that maps to no table (maybe_type) gets
 *		the decision too, naming the type.  Rails's own tables get the
 *		Ruby client's types.
 */
static void
append_scope_decision(StringInfo buf, Relation rel, bool tied, List *fkcols,
					  const char *maybe_type, bool referenced)
{
	TupleDesc	desc = RelationGetDescr(rel);
	StringInfoData cols;
	int			n = 0;
	int			i;

	if (tied)
		return;
	initStringInfo(&cols);
	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		ListCell   *lc;
		bool		isfk = false;

		foreach(lc, fkcols)
			isfk |= (strcmp(lfirst(lc), NameStr(att->attname)) == 0);
		if (att->attisdropped || isfk || !subset_looks_like_key(NameStr(att->attname)))
			continue;
		appendStringInfo(&cols, "%s%s", n++ ? ", " : "", NameStr(att->attname));
	}
	if (maybe_type != NULL)
	{
		appendStringInfoString(buf, ", \"needs_scope_decision\": true, \"export_reason\": ");
		append_json_string(buf, psprintf("no belongs_to ties it to another table, but it may hold the rows of the polymorphic type %s, which maps to no table: name it in that arm's \"table_name\" (its rows then come as the parents of exported rows), or decide \"export\": \"all\" or \"ignore\": true",
										 maybe_type));
	}
	else if (n > 0)
	{
		appendStringInfoString(buf, ", \"needs_scope_decision\": true, \"export_reason\": ");
		append_json_string(buf, psprintf("no belongs_to ties it to another table, but %s looks like the key of one: add a belongs_to or a scope_column, or decide \"export\": \"all\" or \"ignore\": true",
										 cols.data));
	}
	else if (referenced)
	{
		appendStringInfoString(buf, ", \"export_reason\": ");
		append_json_string(buf, "no belongs_to ties it to another table and no column looks like the key of one, but other tables reference it: its rows come in as the parents of exported rows (\"export\": \"all\" would export every row)");
	}
	else
	{
		appendStringInfoString(buf, ", \"export\": \"all\", \"export_reason\": ");
		append_json_string(buf, "no belongs_to ties it to another table, no column looks like the key of one, and no table references it: every row");
	}
}

/*
 * append_table
 *		One table's config object.
 */
static void
append_table(StringInfo buf, CatTable *t, List *fks, CatTable *all, int nall)
{
	Relation	rel = relation_open(t->relid, AccessShareLock);
	TupleDesc	desc = RelationGetDescr(rel);
	int			npk;
	char	  **pk = primary_key_names(rel, &npk);
	List	   *keycols = NIL;
	List	   *fkcols = NIL;	/* columns of its belongs_tos (self too) */
	StringInfoData notes;
	ListCell   *lc;
	bool		first;
	bool		generated = false;
	bool		tied = false;
	bool		referenced = false;
	SubsetSensitiveKind *kinds;
	bool	   *want;
	SubsetValueSecrets **secrets;
	char	   *unread;
	int			i;

	initStringInfo(&notes);
	appendStringInfoString(buf, "{\"name\": ");
	append_json_string(buf, t->name);
	if (rails_type(rel) != NULL)
	{
		/* the Ruby client's types: every row, every column */
		appendStringInfo(buf, ", \"type\": \"%s\"}", rails_type(rel));
		relation_close(rel, AccessShareLock);
		return;
	}
	appendStringInfoString(buf, ", \"primary_key\": ");
	if (npk == 0)
	{
		appendStringInfoString(buf, "null");
		appendStringInfoString(&notes, "no primary key: the table is exported through its belongs_tos or in full, and is a parent only through \"references\"");
	}
	else
		append_json_cols(buf, npk, pk);
	for (i = 0; i < npk; i++)
		keycols = lappend(keycols, pk[i]);

	appendStringInfoString(buf, ", \"belongs_tos\": [");
	first = true;
	foreach(lc, fks)
	{
		SubsetCatalogFk *fk = lfirst(lc);
		int			j;

		if (fk->child != t->relid)
			continue;
		if (!first)
			appendStringInfoString(buf, ", ");
		first = false;
		if (!OidIsValid(fk->parent))
			append_unmapped_arm(buf, fk);
		else
		{
			tied |= (fk->parent != t->relid && fk->proposed == NULL);
			for (j = 0; j < nall && all[j].relid != fk->parent; j++)
				;
			Assert(j < nall);
			append_belongs_to(buf, fk, all[j].name);
		}
		for (j = 0; j < fk->n; j++)
		{
			keycols = lappend(keycols, fk->fk[j]);
			if (fk->proposed == NULL)
				fkcols = lappend(fkcols, fk->fk[j]);
		}
	}
	appendStringInfoString(buf, "], \"columns\": [");

	/*
	 * Each column's kind by its name and type; the text and json columns that
	 * says nothing of are then judged by a sample of their values.
	 */
	kinds = palloc0(sizeof(SubsetSensitiveKind) * Max(desc->natts, 1));
	want = palloc0(sizeof(bool) * Max(desc->natts, 1));
	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		bool		iskey = false;

		if (att->attisdropped || att->attgenerated)
			continue;
		foreach(lc, keycols)
			iskey |= (strcmp(lfirst(lc), NameStr(att->attname)) == 0);
		if (iskey)
			continue;
		kinds[i] = subset_column_sensitivity(RelationGetRelationName(rel),
											 NameStr(att->attname), att->atttypid);
		want[i] = kinds[i] == SENSITIVE_NONE && subset_values_candidate(att->atttypid);
	}
	secrets = subset_values_secrets(rel, want, &unread);
	if (unread)
		appendStringInfo(&notes, "%s%s", notes.len ? "; " : "", unread);
	first = true;
	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		const char *key = npk == 1 ? pk[0] : NULL;

		if (att->attisdropped)
			continue;
		if (att->attgenerated)
		{
			generated = true;
			continue;
		}
		if (!first)
			appendStringInfoString(buf, ", ");
		first = false;
		appendStringInfoString(buf, "{\"name\": ");
		append_json_string(buf, NameStr(att->attname));
		if (kinds[i] != SENSITIVE_NONE)
		{
			char	   *mask = default_mask(rel, att, key, kinds[i]);

			if (mask)
				appendStringInfo(buf, ", %s", mask);
			appendStringInfoString(buf, ", \"needs_mask_decision\": true");
		}
		else if (secrets[i] != NULL)
		{
			StringInfoData comment;
			char	   *mask;

			initStringInfo(&comment);
			appendStringInfo(&comment, "secrets in its values: %s", secrets[i]->seen);
			mask = value_mask(rel, att, key, secrets[i], &comment);
			if (mask)
				appendStringInfo(buf, ", %s", mask);
			appendStringInfoString(buf, ", \"needs_mask_decision\": true, \"comment\": ");
			append_json_string(buf, comment.data);
		}
		appendStringInfoChar(buf, '}');
	}
	appendStringInfoChar(buf, ']');
	foreach(lc, fks)
	{
		SubsetCatalogFk *fk = lfirst(lc);

		referenced |= (fk->parent == t->relid && fk->child != t->relid &&
					   fk->proposed == NULL);
	}
	append_scope_decision(buf, rel, tied, fkcols, t->maybe_type, referenced);
	if (generated)
		appendStringInfo(&notes, "%sgenerated columns are left out: the load computes them",
						 notes.len ? "; " : "");
	if (notes.len > 0)
	{
		appendStringInfoString(buf, ", \"comment\": ");
		append_json_string(buf, notes.data);
	}
	appendStringInfoChar(buf, '}');
	relation_close(rel, AccessShareLock);
}

/*
 * subset_catalog_config
 *		The config of every table of schema nspid (and of the tables their
 *		foreign keys reference), as jsonb.  With propose, the relations that
 *		the data and the queries run show are offered too (belongs_tos with
 *		"proposed": true, catalog/evidence.c and catalog/queries.c), and a
 *		top-level "comment" says when pg_stat_statements could not be read.
 */
Jsonb *
subset_catalog_config(Oid nspid, bool propose)
{
	List	   *fks = subset_catalog_fks();
	List	   *rels = schema_tables(nspid);
	List	   *path = fetch_search_path(false);
	Oid			curnsp;
	CatTable   *tables;
	int			n,
				i;
	bool		grew;
	StringInfoData buf;
	ListCell   *lc;
	char	   *note = NULL;

	curnsp = path ? linitial_oid(path) : InvalidOid;

	/* the tables referenced from the schema's tables, transitively */
	do
	{
		grew = false;
		foreach(lc, fks)
		{
			SubsetCatalogFk *fk = lfirst(lc);

			if (list_member_oid(rels, fk->child) && !list_member_oid(rels, fk->parent))
			{
				rels = lappend_oid(rels, fk->parent);
				grew = true;
			}
		}
	} while (grew);

	n = list_length(rels);
	tables = palloc0(sizeof(CatTable) * Max(n, 1));
	i = 0;
	foreach(lc, rels)
	{
		tables[i].relid = lfirst_oid(lc);
		tables[i].name = config_name(tables[i].relid, curnsp);
		i++;
	}
	qsort(tables, n, sizeof(CatTable), cat_table_cmp);
	fks = list_concat(fks, subset_infer_fks(tables, n, fks));
	if (propose)
	{
		List	   *seen = subset_propose_from_queries(tables, n, fks, &note);
		List	   *data = subset_propose_from_data(tables, n, fks);

		/* the joins the application runs first; the data's for the rest */
		foreach(lc, data)
		{
			SubsetCatalogFk *d = lfirst(lc);
			SubsetCatalogFk *q = NULL;
			ListCell   *oc;

			foreach(oc, seen)
			{
				SubsetCatalogFk *o = lfirst(oc);

				if (o->child == d->child && strcmp(o->fk[0], d->fk[0]) == 0)
					q = o;
			}
			if (q == NULL)
				seen = lappend(seen, d);
			else if (q->parent == d->parent)
				q->proposed = psprintf("%s; %s", d->proposed, q->proposed);
			else
				q->proposed = psprintf("%s; the data alone would point elsewhere: %s",
									   q->proposed, d->proposed);
		}
		fks = list_concat(fks, seen);
	}

	initStringInfo(&buf);
	appendStringInfoString(&buf, "{");
	if (note != NULL)
	{
		appendStringInfoString(&buf, "\"comment\": ");
		append_json_string(&buf, note);
		appendStringInfoString(&buf, ", ");
	}
	appendStringInfoString(&buf, "\"tables\": [");
	for (i = 0; i < n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		if (i > 0)
			appendStringInfoString(&buf, ", ");
		append_table(&buf, &tables[i], fks, tables, n);
	}
	appendStringInfoString(&buf, "]}");
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(buf.data)));
}
