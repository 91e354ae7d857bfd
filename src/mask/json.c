/*-------------------------------------------------------------------------
 *
 * mask/json.c
 *	  Masks applied at paths inside a jsonb value: the engine of
 *	  exwiw_mask_json(), whose entry point (mask/funcs.c) keeps the parsed
 *	  spec of its call site.
 *
 *	  exwiw_mask_json(doc jsonb, spec jsonb) RETURNS jsonb
 *
 * spec is the "json" key of a column's config, an array of
 *
 *	  {"path": "$.profile.email", "pseudonym": "email" | {"type", "locale"}}
 *	  {"path": "$.card", "partial": {"keep_start", "keep_end", "fill",
 *									 "keep_domain"}}
 *	  {"path": "$.token", "delete": true}
 *
 * applied in order.  A path is "$" followed by one or more ".name" (name:
 * a letter or "_", then letters, digits or "_") or "[n]" (an array index);
 * nothing else is accepted.  A pseudonym or partial mask replaces the value
 * at the path, when there is one and it is not null, by a string computed
 * from its text (a string's characters, another value's JSON text); delete
 * removes it.  A path that leads nowhere changes nothing, and the rest of
 * the document is left as it is (jsonb_set and jsonb_delete_path).  The
 * spec is parsed once per query (fn_extra).
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"
#include "mask/mask.h"

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"

/* What a json mask does at its path. */
typedef enum MaskJsonKind
{
	MASK_JSON_PSEUDONYM,
	MASK_JSON_PARTIAL,
	MASK_JSON_DELETE
} MaskJsonKind;

/* One entry of a spec, parsed. */
typedef struct MaskJsonOp
{
	MaskJsonKind kind;
	Datum	   *elems;			/* the path, as text Datums */
	int			nelems;
	ArrayType  *patharr;		/* ... as a text[] */
	char	   *type;			/* pseudonym type */
	bool		ja;				/* pseudonym locale ja */
	int			keep_start;		/* partial */
	int			keep_end;
	char	   *fill;
	bool		keep_domain;
} MaskJsonOp;

/* A parsed spec (mask.h), kept in the call site's fn_extra. */
struct MaskJsonSpec
{
	Jsonb	   *source;			/* the spec it was parsed from */
	int			nops;
	MaskJsonOp *ops;
};

/*
 * mask_json_parse_path
 *		The elements of path ($.a.b[0] gives "a", "b", "0"), or NIL when it
 *		is not of the grammar in the file header.
 */
List *
mask_json_parse_path(const char *path)
{
	List	   *elems = NIL;
	const char *p = path;

	if (*p++ != '$')
		return NIL;
	while (*p)
	{
		const char *start;

		if (*p == '.')
		{
			start = ++p;
			if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_'))
				return NIL;
			while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
				   (*p >= '0' && *p <= '9') || *p == '_')
				p++;
			elems = lappend(elems, pnstrdup(start, p - start));
		}
		else if (*p == '[')
		{
			start = ++p;
			while (*p >= '0' && *p <= '9')
				p++;
			if (p == start || p - start > 9 || *p != ']')
				return NIL;
			elems = lappend(elems, pnstrdup(start, p - start));
			p++;
		}
		else
			return NIL;
	}
	return elems;
}

/*
 * spec_get
 *		The value of key in object v, or NULL.
 */
static JsonbValue *
spec_get(JsonbValue *v, const char *key)
{
	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
		return NULL;
	return getKeyJsonValueFromContainer(v->val.binary.data, key, strlen(key), NULL);
}

/*
 * spec_string
 *		The string value of key in object v, or NULL when absent or not a
 *		string.
 */
static char *
spec_string(JsonbValue *v, const char *key)
{
	JsonbValue *s = spec_get(v, key);

	if (s == NULL || s->type != jbvString)
		return NULL;
	return pnstrdup(s->val.string.val, s->val.string.len);
}

/*
 * spec_int
 *		The integer value of key in object v, 0 when absent; an error when
 *		not a number from 0 to 100000.
 */
static int
spec_int(JsonbValue *v, const char *key)
{
	JsonbValue *n = spec_get(v, key);
	int64		i;

	if (n == NULL || n->type == jbvNull)
		return 0;
	if (n->type != jbvNumeric)
		goto bad;
	i = DatumGetInt64(DirectFunctionCall1(numeric_int8, NumericGetDatum(n->val.numeric)));
	if (i < 0 || i > 100000)
		goto bad;
	return (int) i;
bad:
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("key \"%s\" of a partial mask must be a number from 0 to 100000", key)));
	return 0;
}

/*
 * parse_spec
 *		Parse spec (see the file header) into the current memory context.
 *		Errors name the entry and the key, never a value of the document.
 */
static MaskJsonSpec *
parse_spec(Jsonb *spec)
{
	MaskJsonSpec *s = palloc0(sizeof(MaskJsonSpec));
	int			n,
				i;

	if (!JB_ROOT_IS_ARRAY(spec) || JB_ROOT_IS_SCALAR(spec))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the spec of a json mask must be an array")));
	n = JB_ROOT_COUNT(spec);
	s->nops = n;
	s->ops = palloc0(sizeof(MaskJsonOp) * Max(n, 1));
	for (i = 0; i < n; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(&spec->root, i);
		MaskJsonOp *op = &s->ops[i];
		char	   *path = e ? spec_string(e, "path") : NULL;
		List	   *elems = path ? mask_json_parse_path(path) : NIL;
		JsonbValue *v;
		ListCell   *lc;

		if (elems == NIL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("entry %d of a json mask has no valid \"path\"", i),
					 errhint("A path is $ followed by .name or [n] elements, such as $.profile.email or $.phones[0].")));
		op->nelems = list_length(elems);
		op->elems = palloc(sizeof(Datum) * op->nelems);
		foreach(lc, elems)
			op->elems[foreach_current_index(lc)] = CStringGetTextDatum(lfirst(lc));
		op->patharr = construct_array(op->elems, op->nelems, TEXTOID, -1, false, TYPALIGN_INT);
		if ((v = spec_get(e, "pseudonym")) != NULL)
		{
			char	   *locale = NULL;

			op->kind = MASK_JSON_PSEUDONYM;
			if (v->type == jbvString)
				op->type = pnstrdup(v->val.string.val, v->val.string.len);
			else
			{
				op->type = spec_string(v, "type");
				locale = spec_string(v, "locale");
			}
			if (op->type == NULL || !mask_pseudonym_type_known(op->type))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("entry %d of a json mask has an unknown pseudonym type", i),
						 errhint("Known types: %s.", mask_pseudonym_types())));
			if (locale && strcmp(locale, "ja") != 0 && strcmp(locale, "en") != 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("entry %d of a json mask has an unknown pseudonym locale", i),
						 errhint("Known locales: en (the default) and ja.")));
			op->ja = locale && strcmp(locale, "ja") == 0;
			if (!op->ja && strstr(op->type, "kana"))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("pseudonym type \"%s\" needs locale \"ja\"", op->type)));
		}
		else if ((v = spec_get(e, "partial")) != NULL)
		{
			JsonbValue *kd;

			op->kind = MASK_JSON_PARTIAL;
			op->keep_start = spec_int(v, "keep_start");
			op->keep_end = spec_int(v, "keep_end");
			op->fill = spec_string(v, "fill");
			if (op->fill == NULL || op->fill[0] == '\0')
				op->fill = "*";
			kd = spec_get(v, "keep_domain");
			op->keep_domain = kd && kd->type == jbvBool && kd->val.boolean;
		}
		else if ((v = spec_get(e, "delete")) != NULL && v->type == jbvBool && v->val.boolean)
			op->kind = MASK_JSON_DELETE;
		else
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("entry %d of a json mask has no mask", i),
					 errhint("Give it \"pseudonym\", \"partial\" or \"delete\": true.")));
	}
	return s;
}

/*
 * apply_op
 *		doc with op applied (see the file header).
 */
static Jsonb *
apply_op(Jsonb *doc, MaskJsonOp *op)
{
	bool		isnull;
	Datum		cur;
	text	   *t;
	char	   *masked;

	JsonbValue	jv;

	/* a path that leads nowhere (a scalar, a key that is not an index) */
	if (JB_ROOT_IS_SCALAR(doc))
		return doc;
	cur = jsonb_get_element(doc, op->elems, op->nelems, &isnull,
							op->kind != MASK_JSON_DELETE);
	if (isnull)
		return doc;
	if (op->kind == MASK_JSON_DELETE)
		return DatumGetJsonbP(DirectFunctionCall2(jsonb_delete_path, JsonbPGetDatum(doc),
												  PointerGetDatum(op->patharr)));
	t = DatumGetTextPP(cur);
	if (op->kind == MASK_JSON_PSEUDONYM)
		masked = mask_pseudonym_value(op->type, op->ja, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
	else
		masked = mask_partial_value(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), op->keep_start,
									op->keep_end, op->fill, op->keep_domain);
	jv.type = jbvString;
	jv.val.string.val = masked;
	jv.val.string.len = strlen(masked);
	return DatumGetJsonbP(DirectFunctionCall4(jsonb_set, JsonbPGetDatum(doc),
											  PointerGetDatum(op->patharr),
											  JsonbPGetDatum(JsonbValueToJsonb(&jv)),
											  BoolGetDatum(false)));
}

/*
 * mask_json_spec
 *		The parsed spec of src, in mcxt: cached itself when it was parsed
 *		from the same bytes (an export's query passes one spec per column,
 *		the same on every row), else parsed (errors name the spec's key).
 */
MaskJsonSpec *
mask_json_spec(Jsonb *src, MaskJsonSpec *cached, MemoryContext mcxt)
{
	MaskJsonSpec *spec = cached;

	if (spec == NULL || VARSIZE(spec->source) != VARSIZE(src) ||
		memcmp(spec->source, src, VARSIZE(src)) != 0)
	{
		MemoryContext old = MemoryContextSwitchTo(mcxt);

		spec = parse_spec(src);
		spec->source = palloc(VARSIZE(src));
		memcpy(spec->source, src, VARSIZE(src));
		MemoryContextSwitchTo(old);
	}
	return spec;
}

/*
 * mask_json_apply
 *		doc with every operation of spec applied, in order.
 */
Jsonb *
mask_json_apply(const MaskJsonSpec *spec, Jsonb *doc)
{
	int			i;

	for (i = 0; i < spec->nops; i++)
		doc = apply_op(doc, &spec->ops[i]);
	return doc;
}
