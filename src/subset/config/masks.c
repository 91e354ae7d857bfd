/*-------------------------------------------------------------------------
 *
 * config/masks.c
 *	  The column keys of the masks that are SQL functions (mask_*.c):
 *	  pseudonym, partial, noise, generalize and json.
 *
 *	  "pseudonym": {"type": "email", "from"?: column, "locale"?: "ja"}
 *	  "partial":   {"keep_start"?: 0, "keep_end"?: 4, "fill"?: "*",
 *				    "keep_domain"?: false}
 *	  "noise":     {"ratio": 0.1} (a number) or {"interval": "30 days"}
 *				   (a date or a time)
 *	  "generalize": {"to": "month" | "year" | ...} (a date or a time) or
 *				   {"step": 10} (a number)
 *	  "json":      [{"path": "$.a.b", "pseudonym": type | {...}
 *				   | "partial": {...} | "delete": true}, ...] (jsonb)
 *
 * A column takes one mask.  Every mistake is an error (SQLSTATE 22023,
 * 42703 for an unknown column) whose context names the table and the key;
 * a pseudonym or a noise mask without exwiw.mask_secret is refused here,
 * before anything is read.
 *
 *-------------------------------------------------------------------------
 */
#include "subset/subset.h"
#include "mask/mask.h"

#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

static const char *const pseudonym_keys[] = {"comment", "from", "locale", "type", NULL};
static const char *const partial_keys[] = {"comment", "fill", "keep_domain", "keep_end", "keep_start", NULL};
static const char *const noise_keys[] = {"comment", "interval", "ratio", NULL};
static const char *const generalize_keys[] = {"comment", "step", "to", NULL};
static const char *const json_keys[] = {"comment", "delete", "partial", "path", "pseudonym", NULL};
static const char *const json_pseudonym_keys[] = {"locale", "type", NULL};
static const char *const generalize_units[] = {"year", "month", "week", "day", "hour", NULL};

/* The state of one column's parse. */
typedef struct MaskParse
{
	SubsetErrorContext *ectx;
	SubsetTable *t;
	SubsetColumn *c;
	int			pos;			/* the column's index in "columns" */
} MaskParse;

/*
 * keypath
 *		"columns[pos].<suffix>", remembered as the error context's key.
 */
static const char *
keypath(MaskParse *m, const char *suffix)
{
	m->ectx->key = psprintf("columns[%d].%s", m->pos, suffix);
	return m->ectx->key;
}

/*
 * mget
 *		The value of key in object v, or NULL when absent or null.
 */
static JsonbValue *
mget(JsonbValue *v, const char *key)
{
	JsonbValue *r;

	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
		return NULL;
	r = getKeyJsonValueFromContainer(v->val.binary.data, key, strlen(key), NULL);
	return (r == NULL || r->type == jbvNull) ? NULL : r;
}

/*
 * mask_error
 *		Error out: key suffix of the column is wrong, as msg says.
 */
static void
mask_error(MaskParse *m, const char *suffix, const char *msg, const char *hint)
{
	const char *k = keypath(m, suffix);

	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("key \"%s\" of table \"%s\" %s", k, m->t->name, msg),
			 hint ? errhint("%s", hint) : 0));
}

/*
 * check_obj_keys
 *		Error out on a key of object v (at prefix) that is not in allowed.
 */
static void
check_obj_keys(MaskParse *m, JsonbValue *v, const char *const *allowed,
			   const char *prefix)
{
	JsonbIterator *it = JsonbIteratorInit(v->val.binary.data);
	JsonbValue	k;
	JsonbIteratorToken tok;

	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		char	   *name;
		int			i;
		bool		ok = false;

		if (tok != WJB_KEY)
			continue;
		name = pnstrdup(k.val.string.val, k.val.string.len);
		for (i = 0; allowed[i]; i++)
			ok |= (strcmp(name, allowed[i]) == 0);
		if (!ok)
		{
			StringInfoData h;

			initStringInfo(&h);
			appendStringInfo(&h, "Valid keys in %s are:", prefix);
			for (i = 0; allowed[i]; i++)
				appendStringInfo(&h, "%s %s", i ? "," : "", allowed[i]);
			appendStringInfoChar(&h, '.');
			mask_error(m, psprintf("%s.%s", prefix, name), "is not a known key", h.data);
		}
	}
}

/*
 * mobject
 *		The object at key, checked against allowed keys; NULL when absent.
 */
static JsonbValue *
mobject(MaskParse *m, JsonbValue *cv, const char *key, const char *const *allowed)
{
	JsonbValue *v = mget(cv, key);

	if (v == NULL)
		return NULL;
	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
		mask_error(m, key, "must be an object", NULL);
	check_obj_keys(m, v, allowed, key);
	return v;
}

/*
 * mstring
 *		The string at key of object o (path suffix for errors), NULL when
 *		absent.
 */
static char *
mstring(MaskParse *m, JsonbValue *o, const char *key, const char *suffix)
{
	JsonbValue *v = mget(o, key);

	if (v == NULL)
		return NULL;
	if (v->type != jbvString)
		mask_error(m, suffix, "must be a string", NULL);
	return pnstrdup(v->val.string.val, v->val.string.len);
}

/*
 * mcount
 *		A count from 0 to 100000 at key of object o, 0 when absent.
 */
static int
mcount(MaskParse *m, JsonbValue *o, const char *key, const char *suffix)
{
	JsonbValue *v = mget(o, key);
	char	   *s;
	char	   *end;
	long		n;

	if (v == NULL)
		return 0;
	if (v->type != jbvNumeric)
		mask_error(m, suffix, "must be a number", NULL);
	s = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(v->val.numeric)));
	n = strtol(s, &end, 10);
	if (*end != '\0' || n < 0 || n > 100000)
		mask_error(m, suffix, "must be an integer from 0 to 100000", NULL);
	return (int) n;
}

/*
 * mbool
 *		The boolean at key of object o, false when absent.
 */
static bool
mbool(MaskParse *m, JsonbValue *o, const char *key, const char *suffix)
{
	JsonbValue *v = mget(o, key);

	if (v == NULL)
		return false;
	if (v->type != jbvBool)
		mask_error(m, suffix, "must be a boolean", NULL);
	return v->val.boolean;
}

/*
 * check_type_locale
 *		A pseudonym's type is known, its locale too, and they agree (kana
 *		needs ja); prefix is the key of the pseudonym.
 */
static void
check_type_locale(MaskParse *m, const char *type, const char *locale,
				  const char *prefix)
{
	if (!mask_pseudonym_type_known(type))
		mask_error(m, psprintf("%s.type", prefix),
				   psprintf("names unknown pseudonym type \"%s\"", type),
				   psprintf("Known types: %s.", mask_pseudonym_types()));
	if (locale && strcmp(locale, "ja") != 0 && strcmp(locale, "en") != 0)
		mask_error(m, psprintf("%s.locale", prefix),
				   psprintf("names unknown locale \"%s\"", locale),
				   "Known locales: en (the default) and ja.");
	if (strstr(type, "kana") && (locale == NULL || strcmp(locale, "ja") != 0))
		mask_error(m, psprintf("%s.type", prefix),
				   psprintf("names type \"%s\", which needs locale \"ja\"", type),
				   "Kana readings exist only for Japanese names.");
}

/*
 * parse_partial_obj
 *		A partial mask's object v at prefix: its counts, fill and keep_domain.
 */
static void
parse_partial_obj(MaskParse *m, JsonbValue *v, const char *prefix,
				  int *ks, int *ke, char **fill, bool *kd)
{
	*ks = mcount(m, v, "keep_start", psprintf("%s.keep_start", prefix));
	*ke = mcount(m, v, "keep_end", psprintf("%s.keep_end", prefix));
	*fill = mstring(m, v, "fill", psprintf("%s.fill", prefix));
	if (*fill == NULL)
		*fill = "*";
	else if ((*fill)[0] == '\0')
		mask_error(m, psprintf("%s.fill", prefix), "must not be empty", NULL);
	*kd = mbool(m, v, "keep_domain", psprintf("%s.keep_domain", prefix));
}

/*
 * type_category, is_text_type, is_number_type, is_time_type
 *		The column's base type's category; is it a string, a number (an
 *		integer, numeric or float type), a date or time?
 */
static char
type_category(Oid typid)
{
	char		cat;
	bool		preferred;

	get_type_category_preferred(getBaseType(typid), &cat, &preferred);
	return cat;
}

static bool
is_text_type(Oid typid)
{
	return type_category(typid) == TYPCATEGORY_STRING;
}

static bool
is_number_type(Oid typid)
{
	Oid			b = getBaseType(typid);

	/* not money, not oid: what exwiw_mask_noise can compute on */
	return b == INT2OID || b == INT4OID || b == INT8OID || b == NUMERICOID ||
		b == FLOAT4OID || b == FLOAT8OID;
}

static bool
is_time_type(Oid typid)
{
	Oid			b = getBaseType(typid);

	return b == DATEOID || b == TIMESTAMPOID || b == TIMESTAMPTZOID;
}

/*
 * parse_json_spec
 *		The "json" key: an array of path masks, checked (the same checks as
 *		exwiw_mask_json's, with the key in the message) and kept as text.
 */
static void
parse_json_spec(MaskParse *m, JsonbValue *cv)
{
	JsonbValue *v = mget(cv, "json");
	SubsetColumn *c = m->c;
	int			n,
				i;

	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
		mask_error(m, "json", "must be an array", NULL);
	if (getBaseType(c->typid) != JSONBOID)
		mask_error(m, "json", psprintf("applies to a jsonb column, and column \"%s\" is of type %s",
									   c->name, format_type_be(c->typid)), NULL);
	n = JsonContainerSize(v->val.binary.data);
	if (n == 0)
		mask_error(m, "json", "must not be empty", NULL);
	for (i = 0; i < n; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(v->val.binary.data, i);
		char	   *prefix = psprintf("json[%d]", i);
		char	   *path;
		JsonbValue *op;
		int			nops = 0;

		if (e->type != jbvBinary || !JsonContainerIsObject(e->val.binary.data))
			mask_error(m, prefix, "must be an object", NULL);
		check_obj_keys(m, e, json_keys, prefix);
		path = mstring(m, e, "path", psprintf("%s.path", prefix));
		if (path == NULL)
			mask_error(m, psprintf("%s.path", prefix), "is missing", NULL);
		if (mask_json_parse_path(path) == NIL)
			mask_error(m, psprintf("%s.path", prefix),
					   psprintf("is not a valid path: \"%s\"", path),
					   "A path is $ followed by .name or [n] elements, such as $.profile.email or $.phones[0].");
		if ((op = mget(e, "pseudonym")) != NULL)
		{
			nops++;
			if (op->type == jbvString)
				check_type_locale(m, pnstrdup(op->val.string.val, op->val.string.len), NULL,
								  psprintf("%s.pseudonym", prefix));
			else
			{
				char	   *sub = psprintf("%s.pseudonym", prefix);
				char	   *type = mstring(m, op, "type", psprintf("%s.type", sub));

				if (op->type != jbvBinary || !JsonContainerIsObject(op->val.binary.data))
					mask_error(m, sub, "must be a type name or an object", NULL);
				check_obj_keys(m, op, json_pseudonym_keys, sub);
				if (type == NULL)
					mask_error(m, psprintf("%s.type", sub), "is missing", NULL);
				check_type_locale(m, type, mstring(m, op, "locale", psprintf("%s.locale", sub)), sub);
			}
			mask_require_secret();
		}
		if ((op = mget(e, "partial")) != NULL)
		{
			int			ks,
						ke;
			char	   *fill;
			bool		kd;

			nops++;
			if (op->type != jbvBinary || !JsonContainerIsObject(op->val.binary.data))
				mask_error(m, psprintf("%s.partial", prefix), "must be an object", NULL);
			parse_partial_obj(m, op, psprintf("%s.partial", prefix), &ks, &ke, &fill, &kd);
		}
		if ((op = mget(e, "delete")) != NULL)
		{
			if (op->type != jbvBool || !op->val.boolean)
				mask_error(m, psprintf("%s.delete", prefix), "must be true", NULL);
			nops++;
		}
		if (nops != 1)
			mask_error(m, prefix, nops ? "has more than one mask" : "has no mask",
					   "Give each path one of \"pseudonym\", \"partial\" or \"delete\": true.");
	}
	c->mask_json = JsonbToCString(NULL, v->val.binary.data, 64);
}

/*
 * pseudonym_distinct
 *		Are the pseudonyms of type distinct for distinct values already (a
 *		digest in them: an e-mail or user name carries 64 bits of it, a
 *		uuid, an IBAN or a card number its own)?  The others are drawn from
 *		pools of names, which repeat.
 */
static bool
pseudonym_distinct(const char *type)
{
	static const char *const distinct[] = {
		"email", "username", "uuid", "iban", "credit_card", "card", NULL
	};

	return subset_word_in(type, distinct);
}

/*
 * subset_config_parse_masks
 *		The mask keys of column c (index pos of "columns") of table t, from
 *		its config object cv; ectx is the parse's error context.  Sets
 *		c->mask and its parameters; errors out on a second mask.
 */
void
subset_config_parse_masks(SubsetErrorContext *ectx, SubsetTable *t,
						  SubsetColumn *c, JsonbValue *cv, int pos)
{
	MaskParse	m = {ectx, t, c, pos};
	JsonbValue *v;
	int			nmasks = 0;
	static const char *const others[] = {"raw_sql", "replace_with", "replace_with_fake_data", NULL};
	static const char *const ours[] = {"pseudonym", "partial", "noise", "generalize", "json", NULL};
	int			i;

	for (i = 0; ours[i]; i++)
		nmasks += (mget(cv, ours[i]) != NULL);
	if (nmasks == 0)
		return;
	for (i = 0; others[i]; i++)
		nmasks += (mget(cv, others[i]) != NULL);
	if (nmasks > 1)
	{
		ectx->key = psprintf("columns[%d]", pos);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("column \"%s\" of table \"%s\" has more than one mask",
						c->name, t->name),
				 errhint("Use one of raw_sql, replace_with, replace_with_fake_data, pseudonym, partial, noise, generalize or json per column.")));
	}

	if ((v = mobject(&m, cv, "pseudonym", pseudonym_keys)) != NULL)
	{
		char	   *type = mstring(&m, v, "type", "pseudonym.type");
		char	   *from = mstring(&m, v, "from", "pseudonym.from");

		if (type == NULL)
			mask_error(&m, "pseudonym.type", "is missing", NULL);
		c->mask_locale = mstring(&m, v, "locale", "pseudonym.locale");
		check_type_locale(&m, type, c->mask_locale, "pseudonym");
		if (!is_text_type(c->typid) &&
			!(getBaseType(c->typid) == UUIDOID && strcmp(type, "uuid") == 0))
			mask_error(&m, "pseudonym", psprintf("applies to a text column (or a uuid column, with type uuid), and column \"%s\" is of type %s",
												 c->name, format_type_be(c->typid)),
					   "A pseudonym is text: the file could not load it into this column.");
		if (from == NULL)
			from = c->name;
		if (get_attnum(t->relid, from) == InvalidAttrNumber)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("key \"%s\" of table \"%s\" names column \"%s\", which does not exist",
							keypath(&m, "pseudonym.from"), t->name, from)));
		keypath(&m, "pseudonym");
		mask_require_secret();
		c->mask = SUBSET_MASK_PSEUDONYM;
		c->mask_type = type;
		c->mask_from = from;
		/* a pool's names repeat: under a unique index they are widened */
		if (!pseudonym_distinct(type))
			c->mask_unique = subset_unique_index_with(t->relid, c->attnum);
	}
	else if ((v = mobject(&m, cv, "partial", partial_keys)) != NULL)
	{
		if (!is_text_type(c->typid))
			mask_error(&m, "partial", psprintf("applies to a text column, and column \"%s\" is of type %s",
											   c->name, format_type_be(c->typid)),
					   "Use it on a column of type text, varchar or char, or write a raw_sql.");
		parse_partial_obj(&m, v, "partial", &c->keep_start, &c->keep_end,
						  &c->mask_fill, &c->keep_domain);
		c->mask = SUBSET_MASK_PARTIAL;
	}
	else if ((v = mobject(&m, cv, "noise", noise_keys)) != NULL)
	{
		JsonbValue *r = mget(v, "ratio");
		char	   *iv = mstring(&m, v, "interval", "noise.interval");

		if ((r == NULL) == (iv == NULL))
			mask_error(&m, "noise", "must have one of \"ratio\" (a number) and \"interval\" (a date or a time)", NULL);
		if (r != NULL)
		{
			if (!is_number_type(c->typid))
				mask_error(&m, "noise.ratio", psprintf("applies to a number column, and column \"%s\" is of type %s",
													   c->name, format_type_be(c->typid)), NULL);
			if (r->type != jbvNumeric)
				mask_error(&m, "noise.ratio", "must be a number", NULL);
			c->noise_ratio = DatumGetFloat8(DirectFunctionCall1(numeric_float8,
																NumericGetDatum(r->val.numeric)));
			if (!(c->noise_ratio > 0 && c->noise_ratio <= 1))
				mask_error(&m, "noise.ratio", "must be greater than 0 and at most 1", NULL);
		}
		else
		{
			Interval   *span;

			if (!is_time_type(c->typid))
				mask_error(&m, "noise.interval", psprintf("applies to a date or time column, and column \"%s\" is of type %s",
														  c->name, format_type_be(c->typid)), NULL);
			keypath(&m, "noise.interval");
			span = DatumGetIntervalP(DirectFunctionCall3(interval_in, CStringGetDatum(iv),
														 ObjectIdGetDatum(InvalidOid),
														 Int32GetDatum(-1)));
			if (span->month < 0 || span->day < 0 || span->time < 0 ||
				(span->month == 0 && span->day == 0 && span->time == 0))
				mask_error(&m, "noise.interval", "must be positive in each of its parts", NULL);
			c->noise_interval = iv;
		}
		keypath(&m, "noise");
		mask_require_secret();
		c->mask = SUBSET_MASK_NOISE;
	}
	else if ((v = mobject(&m, cv, "generalize", generalize_keys)) != NULL)
	{
		JsonbValue *st = mget(v, "step");
		char	   *to = mstring(&m, v, "to", "generalize.to");

		if ((st == NULL) == (to == NULL))
			mask_error(&m, "generalize", "must have one of \"to\" (a date or a time) and \"step\" (a number)", NULL);
		if (to != NULL)
		{
			bool		ok = false;

			if (!is_time_type(c->typid))
				mask_error(&m, "generalize.to", psprintf("applies to a date or time column, and column \"%s\" is of type %s",
														 c->name, format_type_be(c->typid)), NULL);
			for (i = 0; generalize_units[i]; i++)
				ok |= (strcmp(generalize_units[i], to) == 0);
			if (!ok)
				mask_error(&m, "generalize.to", psprintf("names unknown unit \"%s\"", to),
						   "Known units: year, month, week, day, hour.");
			c->gen_to = to;
		}
		else
		{
			if (!is_number_type(c->typid))
				mask_error(&m, "generalize.step", psprintf("applies to a number column, and column \"%s\" is of type %s",
														   c->name, format_type_be(c->typid)), NULL);
			if (st->type != jbvNumeric ||
				DatumGetInt32(DirectFunctionCall2(numeric_cmp, NumericGetDatum(st->val.numeric),
												  NumericGetDatum(int64_to_numeric(0)))) <= 0)
				mask_error(&m, "generalize.step", "must be a positive number", NULL);
			c->gen_step = DatumGetCString(DirectFunctionCall1(numeric_out,
															  NumericGetDatum(st->val.numeric)));
		}
		c->mask = SUBSET_MASK_GENERALIZE;
	}
	else if (mget(cv, "json") != NULL)
	{
		parse_json_spec(&m, cv);
		c->mask = SUBSET_MASK_JSON;
	}
}
