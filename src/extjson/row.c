/*-------------------------------------------------------------------------
 *
 * extjson/row.c
 *	  Typed rows as Relaxed Extended JSON documents, by the spec's
 *	  PostgreSQL type table.
 *
 *	  exwiw_ext_json(row anyelement, oid_columns text[] DEFAULT NULL,
 *					 omit_nulls boolean DEFAULT false) RETURNS text
 *
 * An ExjRowWriter is prepared once per row type (TupleDesc) and formats
 * rows from Datum arrays; the JSON Lines writer (extjson/lines.c) uses the same
 * writer for every row of a query.  Type information is worked out once per
 * type and kept in the writer's memory context.
 *
 *	int2/int4/int8			Integer
 *	float4/float8			Float (Ruby's Float#to_s)
 *	numeric					Decimal128 (exact, or an error)
 *	bool					true/false
 *	name					ObjectId when 24 hex digits, else String
 *	oid_columns				ObjectId (an error if not 24 hex digits)
 *	timestamptz/timestamp	Time (timestamp read as UTC); infinity: error
 *	date					Time at midnight UTC; infinity: error
 *	bytea, uuid				Binary 00, Binary 04
 *	json, jsonb				embedded document, $-wrappers understood
 *	arrays					Array (nested for several dimensions)
 *	composite				embedded document
 *	anything else			String of the type's text output
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "common/extjson/extjson.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"
#include "utils/typcache.h"
#include "utils/uuid.h"

/* Seconds from 1970-01-01 (Unix) to 2000-01-01 (PostgreSQL's epoch). */
#define UNIX_TO_PG_EPOCH_SECS	INT64CONST(946684800)

typedef enum ExjTypeKind
{
	TK_INT2,
	TK_INT4,
	TK_INT8,
	TK_FLOAT4,
	TK_FLOAT8,
	TK_NUMERIC,
	TK_BOOL,
	TK_TEXT,					/* text, varchar: the bytes as they are */
	TK_NAME,
	TK_TIMESTAMP,				/* timestamptz or timestamp */
	TK_DATE,
	TK_BYTEA,
	TK_UUID,
	TK_JSON,
	TK_JSONB,
	TK_ARRAY,
	TK_COMPOSITE,
	TK_OTHER					/* the type's output function */
} ExjTypeKind;

typedef struct ExjTypeInfo ExjTypeInfo;

struct ExjTypeInfo
{
	Oid			typid;			/* as declared (may be a domain) */
	ExjTypeKind kind;
	FmgrInfo	outfn;			/* TK_OTHER */
	/* TK_ARRAY */
	ExjTypeInfo *elem;
	int16		elmlen;
	bool		elmbyval;
	char		elmalign;
	ExjTypeInfo *next;			/* in the writer's list of known types */
};

/*
 * The layout of one row type, by (type, typmod): every anonymous record
 * shares the type RECORD but has its own typmod, and records nest, so a
 * layout is never tied to an ExjTypeInfo and never changes once made.
 */
typedef struct ExjRowLayout ExjRowLayout;

struct ExjRowLayout
{
	Oid			typid;
	int32		typmod;
	TupleDesc	desc;
	ExjTypeInfo **fields;		/* per attribute, NULL for dropped */
	ExjRowLayout *next;
};

struct ExjRowWriter
{
	const char *funcname;
	MemoryContext cxt;
	TupleDesc	desc;
	bool		omit_nulls;
	ExjTypeInfo **cols;			/* per attribute, NULL for dropped */
	char	  **keys;			/* per attribute: "\"name\":" */
	int		   *keylens;
	bool	   *is_oid;			/* named in oid_columns */
	ExjTypeInfo *types;			/* all infos, for reuse */
	ExjRowLayout *layouts;		/* row types met so far */
	bool		check_utf8;		/* a SQL_ASCII database: check each column */
};

/* Where a value is, for error messages: column, then fields and indexes. */
typedef struct RowPath
{
	const struct RowPath *up;
	const char *name;			/* NULL for an array index */
	int			index;
} RowPath;

static ExjTypeInfo *type_info(ExjRowWriter *rw, Oid typid);
static void append_value(ExjRowWriter *rw, StringInfo buf, ExjTypeInfo *ti,
						 Datum d, bool force_oid, const RowPath *path);

/*
 * path_string
 *		"$.col.field[2]" for a RowPath, and the top-level column's name.
 */
static char *
path_string(const RowPath *path, const char **column)
{
	const RowPath *segs[256];
	int			n = 0;
	StringInfoData s;

	for (; path != NULL && n < lengthof(segs); path = path->up)
		segs[n++] = path;
	initStringInfo(&s);
	appendStringInfoCharMacro(&s, '$');
	*column = n > 0 ? segs[n - 1]->name : NULL;
	while (n-- > 0)
	{
		if (segs[n]->name)
			appendStringInfo(&s, ".%s", segs[n]->name);
		else
			appendStringInfo(&s, "[%d]", segs[n]->index);
	}
	return s.data;
}

/*
 * raise_at
 *		ereport an ExjError for the value at path.
 */
static void
raise_at(ExjRowWriter *rw, ExjError *err, const RowPath *path)
{
	const char *column;
	char	   *where = path_string(path, &column);

	/* a json value's own path starts with "$": drop it after ours */
	if (err->path.data && err->path.data[0] == '$')
	{
		char	   *inner = pstrdup(err->path.data + 1);

		resetStringInfo(&err->path);
		appendStringInfoString(&err->path, inner);
	}
	exwiw_extjson_raise(rw->funcname, err, column, where);
}

/*
 * raise_infinite
 *		A ±infinity timestamp or date: BSON has no such date.
 */
static void
raise_infinite(ExjRowWriter *rw, const RowPath *path, bool negative)
{
	const char *column;
	char	   *where = path_string(path, &column);

	ereport(ERROR,
			(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
			 errmsg("column \"%s\" at %s holds %sinfinity, which a BSON date cannot hold",
					column, where, negative ? "-" : ""),
			 errhint("Filter or replace infinite dates in the query, for example with NULLIF or CASE.")));
}

/*
 * type_info
 *		The (cached) formatting information of a type.
 */
static ExjTypeInfo *
type_info(ExjRowWriter *rw, Oid typid)
{
	ExjTypeInfo *ti;
	MemoryContext old;
	Oid			base;
	Oid			elemtype;

	for (ti = rw->types; ti != NULL; ti = ti->next)
		if (ti->typid == typid)
			return ti;

	old = MemoryContextSwitchTo(rw->cxt);
	ti = palloc0(sizeof(ExjTypeInfo));
	ti->typid = typid;
	ti->next = rw->types;
	rw->types = ti;

	base = getBaseType(typid);
	switch (base)
	{
		case INT2OID:
			ti->kind = TK_INT2;
			break;
		case INT4OID:
			ti->kind = TK_INT4;
			break;
		case INT8OID:
			ti->kind = TK_INT8;
			break;
		case FLOAT4OID:
			ti->kind = TK_FLOAT4;
			break;
		case FLOAT8OID:
			ti->kind = TK_FLOAT8;
			break;
		case NUMERICOID:
			ti->kind = TK_NUMERIC;
			break;
		case BOOLOID:
			ti->kind = TK_BOOL;
			break;
		case TEXTOID:
		case VARCHAROID:
			ti->kind = TK_TEXT;
			break;
		case NAMEOID:
			ti->kind = TK_NAME;
			break;
		case TIMESTAMPTZOID:
		case TIMESTAMPOID:
			ti->kind = TK_TIMESTAMP;
			break;
		case DATEOID:
			ti->kind = TK_DATE;
			break;
		case BYTEAOID:
			ti->kind = TK_BYTEA;
			break;
		case UUIDOID:
			ti->kind = TK_UUID;
			break;
		case JSONOID:
			ti->kind = TK_JSON;
			break;
		case JSONBOID:
			ti->kind = TK_JSONB;
			break;
		default:
			elemtype = get_element_type(base);
			if (OidIsValid(elemtype))
			{
				ti->kind = TK_ARRAY;
				get_typlenbyvalalign(elemtype, &ti->elmlen, &ti->elmbyval,
									 &ti->elmalign);
				ti->elem = type_info(rw, elemtype);
			}
			else if (type_is_rowtype(base))
			{
				ti->kind = TK_COMPOSITE;
			}
			else
			{
				Oid			outfn;
				bool		isvarlena;

				ti->kind = TK_OTHER;
				getTypeOutputInfo(base, &outfn, &isvarlena);
				fmgr_info_cxt(outfn, &ti->outfn, rw->cxt);
			}
			break;
	}
	MemoryContextSwitchTo(old);
	return ti;
}

/*
 * append_string_value
 *		A String, or an ObjectId when force_oid (then it must be 24 hex).
 */
static void
append_string_value(ExjRowWriter *rw, StringInfo buf, const char *s, int len,
					bool force_oid, const RowPath *path)
{
	if (force_oid)
	{
		if (!exj_is_oid_text(s, len))
		{
			const char *column;
			char	   *where = path_string(path, &column);

			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("column \"%s\" at %s is in oid_columns but \"%.*s\" is not an ObjectId",
							column, where, Min(len, 64), s),
					 errdetail("An ObjectId is written as 24 hexadecimal digits.")));
		}
		exj_append_oid(buf, s);
	}
	else
		exj_append_string(buf, s, len);
}

/*
 * append_array_dim
 *		Elements of dimension dim of an array, from *idx on (nested arrays
 *		for the inner dimensions).
 */
static void
append_array_dim(ExjRowWriter *rw, StringInfo buf, ExjTypeInfo *ti,
				 int ndim, int *dims, int dim, Datum *elems, bool *nulls,
				 int *idx, bool force_oid, const RowPath *path)
{
	int			i;

	check_stack_depth();
	appendStringInfoCharMacro(buf, '[');
	for (i = 0; i < dims[dim]; i++)
	{
		RowPath		seg = {path, NULL, i};

		if (i > 0)
			appendStringInfoCharMacro(buf, ',');
		if (dim + 1 < ndim)
			append_array_dim(rw, buf, ti, ndim, dims, dim + 1, elems, nulls,
							 idx, force_oid, &seg);
		else
		{
			if (nulls[*idx])
				appendBinaryStringInfo(buf, "null", 4);
			else
				append_value(rw, buf, ti->elem, elems[*idx], force_oid, &seg);
			(*idx)++;
		}
	}
	appendStringInfoCharMacro(buf, ']');
}

/*
 * row_layout
 *		The (cached) layout of row type (typid, typmod), made once per
 *		writer in its context.  The number of distinct row types in one
 *		query is fixed, so the cache does not grow with the rows.
 */
static ExjRowLayout *
row_layout(ExjRowWriter *rw, Oid typid, int32 typmod)
{
	ExjRowLayout *lay;
	TupleDesc	desc;
	MemoryContext old;
	int			i;

	for (lay = rw->layouts; lay != NULL; lay = lay->next)
		if (lay->typid == typid && lay->typmod == typmod)
			return lay;

	desc = lookup_rowtype_tupdesc(typid, typmod);
	old = MemoryContextSwitchTo(rw->cxt);
	lay = palloc0(sizeof(ExjRowLayout));
	lay->typid = typid;
	lay->typmod = typmod;
	lay->desc = CreateTupleDescCopy(desc);
	ReleaseTupleDesc(desc);
	lay->fields = palloc0(lay->desc->natts * sizeof(ExjTypeInfo *));
	MemoryContextSwitchTo(old);
	for (i = 0; i < lay->desc->natts; i++)
		if (!TupleDescAttr(lay->desc, i)->attisdropped)
			lay->fields[i] = type_info(rw, TupleDescAttr(lay->desc, i)->atttypid);
	lay->next = rw->layouts;
	rw->layouts = lay;
	return lay;
}

/*
 * exwiw_extjson_deform_record
 *		The columns of a composite value th, whose row type is desc, into
 *		*values and *nulls (palloc'd in the current context).
 */
void
exwiw_extjson_deform_record(HeapTupleHeader th, TupleDesc desc,
							Datum **values, bool **nulls)
{
	HeapTupleData tuple;

	tuple.t_len = HeapTupleHeaderGetDatumLength(th);
	ItemPointerSetInvalid(&tuple.t_self);
	tuple.t_tableOid = InvalidOid;
	tuple.t_data = th;
	*values = palloc(desc->natts * sizeof(Datum));
	*nulls = palloc(desc->natts * sizeof(bool));
	heap_deform_tuple(&tuple, desc, *values, *nulls);
}

/*
 * append_composite
 *		A composite value as an embedded document.  Nested composites of
 *		other row types are safe: the layout used here is local.
 */
static void
append_composite(ExjRowWriter *rw, StringInfo buf, Datum d,
				 const RowPath *path)
{
	HeapTupleHeader th = DatumGetHeapTupleHeader(d);
	ExjRowLayout *lay = row_layout(rw, HeapTupleHeaderGetTypeId(th),
								   HeapTupleHeaderGetTypMod(th));
	TupleDesc	desc = lay->desc;
	Datum	   *values;
	bool	   *nulls;
	int			i;
	bool		first = true;

	check_stack_depth();
	exwiw_extjson_deform_record(th, desc, &values, &nulls);

	appendStringInfoCharMacro(buf, '{');
	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		RowPath		seg = {path, NameStr(att->attname), 0};

		if (att->attisdropped || (nulls[i] && rw->omit_nulls))
			continue;
		if (!first)
			appendStringInfoCharMacro(buf, ',');
		first = false;
		exj_append_string(buf, NameStr(att->attname), strlen(NameStr(att->attname)));
		appendStringInfoCharMacro(buf, ':');
		if (nulls[i])
			appendBinaryStringInfo(buf, "null", 4);
		else
			append_value(rw, buf, lay->fields[i], values[i], false, &seg);
	}
	appendStringInfoCharMacro(buf, '}');
	pfree(values);
	pfree(nulls);
}

/*
 * append_value
 *		One non-NULL value of type ti.  force_oid: the column is in
 *		oid_columns (applies to its string values and array elements).
 */
static void
append_value(ExjRowWriter *rw, StringInfo buf, ExjTypeInfo *ti, Datum d,
			 bool force_oid, const RowPath *path)
{
	char		tmp[32];
	int			len;

	switch (ti->kind)
	{
		case TK_INT2:
			len = pg_ltoa(DatumGetInt16(d), tmp);
			appendBinaryStringInfo(buf, tmp, len);
			break;
		case TK_INT4:
			len = pg_ltoa(DatumGetInt32(d), tmp);
			appendBinaryStringInfo(buf, tmp, len);
			break;
		case TK_INT8:
			len = pg_lltoa(DatumGetInt64(d), tmp);
			appendBinaryStringInfo(buf, tmp, len);
			break;
		case TK_FLOAT4:
			exj_append_double(buf, (double) DatumGetFloat4(d));
			break;
		case TK_FLOAT8:
			exj_append_double(buf, DatumGetFloat8(d));
			break;
		case TK_NUMERIC:
			{
				char	   *s = DatumGetCString(DirectFunctionCall1(numeric_out, d));
				ExjError	err;

				memset(&err, 0, sizeof(err));
				if (!exj_append_decimal128(buf, s, strlen(s), &err))
					raise_at(rw, &err, path);
				break;
			}
		case TK_BOOL:
			if (DatumGetBool(d))
				appendBinaryStringInfo(buf, "true", 4);
			else
				appendBinaryStringInfo(buf, "false", 5);
			break;
		case TK_TEXT:
			{
				text	   *t = DatumGetTextPP(d);

				append_string_value(rw, buf, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t),
									force_oid, path);
				break;
			}
		case TK_NAME:
			{
				const char *s = NameStr(*DatumGetName(d));
				int			n = strlen(s);

				if (!force_oid && exj_is_oid_text(s, n))
					exj_append_oid(buf, s);
				else
					append_string_value(rw, buf, s, n, force_oid, path);
				break;
			}
		case TK_TIMESTAMP:
			{
				Timestamp	ts = DatumGetTimestamp(d);
				int64		secs;

				if (TIMESTAMP_NOT_FINITE(ts))
					raise_infinite(rw, path, TIMESTAMP_IS_NOBEGIN(ts));
				secs = ts / USECS_PER_SEC;
				if (ts % USECS_PER_SEC < 0)
					secs--;
				exj_append_date(buf, secs + UNIX_TO_PG_EPOCH_SECS,
								(int32) (ts - secs * USECS_PER_SEC));
				break;
			}
		case TK_DATE:
			{
				DateADT		date = DatumGetDateADT(d);

				if (DATE_NOT_FINITE(date))
					raise_infinite(rw, path, DATE_IS_NOBEGIN(date));
				exj_append_date(buf, (int64) date * SECS_PER_DAY + UNIX_TO_PG_EPOCH_SECS, 0);
				break;
			}
		case TK_BYTEA:
			{
				bytea	   *b = DatumGetByteaPP(d);

				exj_append_binary(buf, (unsigned char *) VARDATA_ANY(b),
								  VARSIZE_ANY_EXHDR(b), 0x00);
				break;
			}
		case TK_UUID:
			exj_append_binary(buf, DatumGetUUIDP(d)->data, UUID_LEN, 0x04);
			break;
		case TK_JSON:
		case TK_JSONB:
			{
				ExjError	err;
				bool		ok;

				memset(&err, 0, sizeof(err));
				if (ti->kind == TK_JSON)
					ok = exwiw_extjson_append_json(buf, d, "$", &err);
				else
					ok = exwiw_extjson_append_jsonb(buf, d, "$", &err);
				if (!ok)
					raise_at(rw, &err, path);
				break;
			}
		case TK_ARRAY:
			{
				ArrayType  *arr = DatumGetArrayTypeP(d);
				Datum	   *elems;
				bool	   *nulls;
				int			nelems;
				int			idx = 0;

				if (ARR_NDIM(arr) == 0)
				{
					appendBinaryStringInfo(buf, "[]", 2);
					break;
				}
				deconstruct_array(arr, ARR_ELEMTYPE(arr), ti->elmlen,
								  ti->elmbyval, ti->elmalign,
								  &elems, &nulls, &nelems);
				append_array_dim(rw, buf, ti, ARR_NDIM(arr), ARR_DIMS(arr), 0,
								 elems, nulls, &idx, force_oid, path);
				break;
			}
		case TK_COMPOSITE:
			append_composite(rw, buf, d, path);
			break;
		case TK_OTHER:
			{
				char	   *s = OutputFunctionCall(&ti->outfn, d);

				append_string_value(rw, buf, s, strlen(s), force_oid, path);
				break;
			}
	}
}

/*
 * exwiw_extjson_row_writer
 *		Prepare to format rows of desc.  oid_columns (may be NULL) names
 *		columns whose values are ObjectIds; every name must be a column.
 *		In a SQL_ASCII database the names must be valid UTF-8.  Everything
 *		is allocated in cxt.
 */
ExjRowWriter *
exwiw_extjson_row_writer(const char *funcname, TupleDesc desc,
						 ArrayType *oid_columns, bool omit_nulls,
						 MemoryContext cxt)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	ExjRowWriter *rw = palloc0(sizeof(ExjRowWriter));
	int			i;

	rw->funcname = funcname;
	rw->cxt = cxt;
	rw->desc = desc;
	rw->omit_nulls = omit_nulls;
	rw->check_utf8 = exwiw_extjson_must_check_utf8();
	rw->cols = palloc0(desc->natts * sizeof(ExjTypeInfo *));
	rw->keys = palloc0(desc->natts * sizeof(char *));
	rw->keylens = palloc0(desc->natts * sizeof(int));
	rw->is_oid = palloc0(desc->natts * sizeof(bool));
	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		StringInfoData key;

		if (att->attisdropped)
			continue;
		rw->cols[i] = type_info(rw, att->atttypid);
		if (rw->check_utf8 &&
			!pg_verify_mbstr(PG_UTF8, NameStr(att->attname),
							 strlen(NameStr(att->attname)), true))
			ereport(ERROR,
					(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
					 errmsg("the name of column %d is not valid UTF-8, which JSON requires", i + 1),
					 errdetail("The database encoding is SQL_ASCII, which stores bytes without saying what they mean; exwiw writes JSON only from bytes that are valid UTF-8."),
					 errhint("Rename the column in the query.")));
		initStringInfo(&key);
		exj_append_string(&key, NameStr(att->attname), strlen(NameStr(att->attname)));
		appendStringInfoCharMacro(&key, ':');
		rw->keys[i] = key.data;
		rw->keylens[i] = key.len;
	}

	if (oid_columns != NULL)
	{
		Datum	   *names;
		bool	   *nulls;
		int			n;
		int			j;

		deconstruct_array(oid_columns, TEXTOID, -1, false, TYPALIGN_INT,
						  &names, &nulls, &n);
		for (j = 0; j < n; j++)
		{
			char	   *name;
			bool		found = false;

			if (nulls[j])
				ereport(ERROR,
						(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						 errmsg("oid_columns must not contain NULL")));
			name = TextDatumGetCString(names[j]);
			for (i = 0; i < desc->natts; i++)
			{
				if (!TupleDescAttr(desc, i)->attisdropped &&
					strcmp(NameStr(TupleDescAttr(desc, i)->attname), name) == 0)
				{
					rw->is_oid[i] = true;
					found = true;
				}
			}
			if (!found)
				ereport(ERROR,
						(errcode(ERRCODE_UNDEFINED_COLUMN),
						 errmsg("oid_columns names \"%s\", which is not a column of the row",
								name)));
			for (i = 0; i < desc->natts; i++)
			{
				ExjTypeInfo *ti = rw->cols[i];

				if (!rw->is_oid[i])
					continue;
				while (ti->kind == TK_ARRAY)
					ti = ti->elem;
				if (ti->kind != TK_TEXT && ti->kind != TK_NAME && ti->kind != TK_OTHER)
					ereport(ERROR,
							(errcode(ERRCODE_DATATYPE_MISMATCH),
							 errmsg("oid_columns names column \"%s\" of type %s, which cannot hold an ObjectId",
									name,
									format_type_be(TupleDescAttr(desc, i)->atttypid)),
							 errhint("An ObjectId comes from a text, varchar or name column holding 24 hexadecimal digits.")));
			}
		}
	}
	MemoryContextSwitchTo(old);
	return rw;
}

/*
 * exwiw_extjson_append_row
 *		Append one row (values/isnull of the writer's TupleDesc) as a
 *		document, columns in order.  In a SQL_ASCII database each column
 *		(its name and value) must come out as valid UTF-8.
 */
void
exwiw_extjson_append_row(ExjRowWriter *rw, StringInfo buf, Datum *values,
						 bool *isnull)
{
	int			i;
	bool		first = true;

	appendStringInfoCharMacro(buf, '{');
	for (i = 0; i < rw->desc->natts; i++)
	{
		RowPath		seg;
		int			start;

		if (rw->cols[i] == NULL || (isnull[i] && rw->omit_nulls))
			continue;
		if (!first)
			appendStringInfoCharMacro(buf, ',');
		first = false;
		start = buf->len;
		appendBinaryStringInfo(buf, rw->keys[i], rw->keylens[i]);
		if (!isnull[i])
		{
			seg.up = NULL;
			seg.name = NameStr(TupleDescAttr(rw->desc, i)->attname);
			seg.index = 0;
			append_value(rw, buf, rw->cols[i], values[i], rw->is_oid[i], &seg);
		}
		else
			appendBinaryStringInfo(buf, "null", 4);
		if (rw->check_utf8)
			exwiw_extjson_check_utf8(buf->data + start, buf->len - start,
									 NameStr(TupleDescAttr(rw->desc, i)->attname));
	}
	appendStringInfoCharMacro(buf, '}');
}
