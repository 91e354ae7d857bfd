/*-------------------------------------------------------------------------
 *
 * common/extjson/wrappers.c
 *	  The emitter's recursion: a document tree written as Relaxed Extended
 *	  JSON (exj_emit), any value, ordinary documents, and the $-wrapper
 *	  rules of the bson gem's BSON::ExtJSON.parse(mode: :bson): which objects
 *	  are typed values, and how each is written.  Its leaves (paths, errors,
 *	  numbers) are common/extjson/emit.c's.
 *
 * By number of keys (ext_json.rb, parse_hash):
 *	0			{}
 *	$ref+$id	a DBRef (without $db): $ref, $id first, then the rest
 *	1			$oid $symbol $numberInt $numberLong $numberDouble
 *				$numberDecimal $binary $uuid $code $timestamp
 *				$regularExpression $dbPointer $date $minKey $maxKey
 *				$undefined; any other single key is an ordinary document
 *	2			$code+$scope, $binary+$type (legacy), $regex+$options (legacy)
 *	any			an ordinary document, which must not use a reserved key
 * mongo_fdw's legacy {"$date": <milliseconds>} is accepted too.  Part of the
 * frontend-buildable core (common/extjson/extjson.h).
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#include "miscadmin.h"
#endif

#include <math.h>

#include "common/extjson/emit.h"

/* Keys the gem reserves for wrappers (RESERVED_KEYS). */
static const char *const reserved_keys[] = {
	"$oid", "$symbol", "$numberInt", "$numberLong", "$numberDouble",
	"$numberDecimal", "$binary", "$code", "$scope", "$timestamp",
	"$regularExpression", "$dbPointer", "$date", "$minKey", "$maxKey",
	"$undefined", NULL
};

/*
 * exj_key_is
 *		Does key (len bytes) equal the NUL-terminated word?
 */
inline bool
exj_key_is(const char *key, int len, const char *word)
{
	return strlen(word) == (size_t) len && memcmp(key, word, len) == 0;
}

/*
 * exj_find_key
 *		Index of the last value under key in object node, or -1 (the last,
 *		because a Ruby Hash keeps the last of duplicate keys).
 */
int
exj_find_key(ExjNode *node, const char *key)
{
	int			i;

	for (i = node->len - 1; i >= 0; i--)
		if (exj_key_is(node->keys[i], node->keylens[i], key))
			return i;
	return -1;
}

/*
 * has_keys
 *		Is object node exactly the keys k1 and k2 (in any order)?
 */
static bool
has_keys(ExjNode *node, const char *k1, const char *k2)
{
	return node->kind == EXJ_OBJECT && node->len == 2 &&
		exj_find_key(node, k1) >= 0 && exj_find_key(node, k2) >= 0 &&
		strcmp(k1, k2) != 0;
}

/*
 * parse_int64
 *		Read an optionally signed decimal integer of exactly len bytes
 *		within int64 (strtoi64, after checking that there is nothing else:
 *		no space, no other character).
 */
static bool
parse_int64(const char *s, int len, int64 *out)
{
	char	   *copy;
	char	   *end;
	int			i = (len > 0 && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
	bool		ok;

	if (i >= len)
		return false;
	for (; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	copy = pnstrdup(s, len);
	errno = 0;
	*out = strtoi64(copy, &end, 10);
	ok = (errno == 0 && *end == '\0');
	pfree(copy);
	return ok;
}

/*
 * emit_double_string
 *		$numberDouble: "NaN", "Infinity", "-Infinity" or a decimal number
 *		(what Ruby's BigDecimal() accepts, less its "_" separators).
 */
static bool
emit_double_string(ExjEmitState *st, ExjNode *v, const ExjPathSeg *path)
{
	char	   *s;
	char	   *end;
	double		d;
	int			i;
	bool		ok = v->len > 0;

	if (v->kind != EXJ_STRING)
		return exj_fail(st, path, EXJ_ERR_SYNTAX, "$numberDouble must be a string");
	if (exj_key_is(v->str, v->len, "NaN"))
	{
		exj_append_double(st->buf, NAN);
		return true;
	}
	if (exj_key_is(v->str, v->len, "Infinity") || exj_key_is(v->str, v->len, "+Infinity"))
	{
		exj_append_double(st->buf, INFINITY);
		return true;
	}
	if (exj_key_is(v->str, v->len, "-Infinity"))
	{
		exj_append_double(st->buf, -INFINITY);
		return true;
	}
	/* only digits, sign, point and exponent: no hex, no "inf", no spaces */
	for (i = 0; i < v->len; i++)
		if (!strchr("0123456789+-.eE", v->str[i]) || v->str[i] == '\0')
			ok = false;
	s = palloc(v->len + 1);
	memcpy(s, v->str, v->len);
	s[v->len] = '\0';
	d = strtod(s, &end);
	if (end != s + v->len)
		ok = false;
	pfree(s);
	if (!ok)
		return exj_fail(st, path, EXJ_ERR_SYNTAX,
						"invalid $numberDouble value \"%.*s\"", Min(v->len, 64), v->str);
	exj_append_double(st->buf, d);
	return true;
}

/*
 * hexval
 *		Value of a hex digit, or -1.
 */
static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * emit_binary
 *		A $binary wrapper from its base64 text and subtype text ("00", or
 *		libbson's legacy one-digit "0").  The subtype must be one BSON
 *		defines: 0x00-0x09 (0x09, a vector, is written as it is, payload
 *		unchecked, as the BSON corpus round-trips it) or user-defined
 *		0x80-0xff; 0x0a-0x7f are reserved.
 */
static bool
emit_binary(ExjEmitState *st, ExjNode *b64, ExjNode *type, const ExjPathSeg *path)
{
	StringInfoData data;
	int			subtype = 0;
	int			i;

	if (b64->kind != EXJ_STRING)
		return exj_fail(st, path, EXJ_ERR_SYNTAX, "$binary base64 must be a string");
	if (type->kind != EXJ_STRING)
		return exj_fail(st, path, EXJ_ERR_SYNTAX, "$binary subtype must be a string");
	if (type->len < 1 || type->len > 2)
		return exj_fail(st, path, EXJ_ERR_SYNTAX,
						"invalid $binary subtype \"%.*s\": expected two hex digits",
						Min(type->len, 64), type->str);
	for (i = 0; i < type->len; i++)
	{
		int			h = hexval(type->str[i]);

		if (h < 0)
			return exj_fail(st, path, EXJ_ERR_SYNTAX,
							"invalid $binary subtype \"%.*s\": expected two hex digits",
							type->len, type->str);
		subtype = subtype * 16 + h;
	}
	if (subtype > 0x09 && subtype < 0x80)
		return exj_fail(st, path, EXJ_ERR_UNSUPPORTED,
						"$binary subtype \"%.*s\" is reserved by BSON",
						type->len, type->str);
	initStringInfo(&data);
	if (!exj_base64_decode(b64->str, b64->len, &data))
	{
		pfree(data.data);
		return exj_fail(st, path, EXJ_ERR_SYNTAX, "$binary base64 is not valid base64");
	}
	exj_append_binary(st->buf, (unsigned char *) data.data, data.len, subtype);
	pfree(data.data);
	return true;
}

/*
 * emit_uuid
 *		{"$uuid": "00112233-4455-6677-8899-aabbccddeeff"}: Binary subtype 04.
 */
static bool
emit_uuid(ExjEmitState *st, ExjNode *v, const ExjPathSeg *path)
{
	unsigned char bytes[16];
	int			n = 0;
	int			i;

	if (v->kind != EXJ_STRING || v->len != 36)
		return exj_fail(st, path, EXJ_ERR_SYNTAX, "invalid $uuid value");
	for (i = 0; i < 36; i++)
	{
		if (i == 8 || i == 13 || i == 18 || i == 23)
		{
			if (v->str[i] != '-')
				return exj_fail(st, path, EXJ_ERR_SYNTAX, "invalid $uuid value");
			continue;
		}
		if (hexval(v->str[i]) < 0 || hexval(v->str[i + 1]) < 0)
			return exj_fail(st, path, EXJ_ERR_SYNTAX, "invalid $uuid value");
		bytes[n++] = hexval(v->str[i]) * 16 + hexval(v->str[i + 1]);
		i++;
	}
	exj_append_binary(st->buf, bytes, 16, 4);
	return true;
}

/*
 * emit_date
 *		$date: an ISO-8601 string, {"$numberLong": "<ms>"}, or (mongo_fdw,
 *		libbson legacy) a bare integer of milliseconds.
 */
static bool
emit_date(ExjEmitState *st, ExjNode *v, const ExjPathSeg *path)
{
	int64		ms;
	int64		usec;
	ExjNode    *msnode = NULL;

	if (v->kind == EXJ_STRING)
	{
		if (!exj_parse_iso_date(v->str, v->len, &usec))
			return exj_fail(st, path, EXJ_ERR_SYNTAX,
							"invalid $date string \"%.*s\"", Min(v->len, 64), v->str);
		exj_append_date_usec(st->buf, usec);
		return true;
	}
	if (v->kind == EXJ_OBJECT && v->len == 1 &&
		exj_key_is(v->keys[0], v->keylens[0], "$numberLong") &&
		v->items[0]->kind == EXJ_STRING)
		msnode = v->items[0];
	else if (exj_is_integer_text(v))
		msnode = v;
	if (msnode == NULL || !parse_int64(msnode->str, msnode->len, &ms))
		return exj_fail(st, path, EXJ_ERR_SYNTAX,
						"invalid $date value: expected an ISO-8601 string or milliseconds");
	if (ms > PG_INT64_MAX / 1000 || ms < PG_INT64_MIN / 1000)
		return exj_fail(st, path, EXJ_ERR_RANGE, "$date is out of range");
	exj_append_date_usec(st->buf, ms * 1000);
	return true;
}

/*
 * check_reserved
 *		An ordinary document must not use a wrapper's key (the gem's
 *		verify_no_reserved_keys).
 */
static bool
check_reserved(ExjEmitState *st, ExjNode *node, const ExjPathSeg *path)
{
	int			i;
	int			k;

	for (i = 0; i < node->len; i++)
	{
		const char *key = node->keys[i];
		int			len = node->keylens[i];

		if (len < 2 || key[0] != '$')
			continue;
		for (k = 0; reserved_keys[k]; k++)
			if (exj_key_is(key, len, reserved_keys[k]))
				return exj_fail(st, path, EXJ_ERR_SYNTAX,
								"document uses the reserved key \"%.*s\" but is not a valid Extended JSON wrapper",
								Min(len, 64), key);
	}
	return true;
}

/*
 * check_dbref_rest
 *		The keys of a DBRef besides $ref and $id must not make a wrapper of
 *		their own (the gem merges them as a Hash): no reserved key, and not
 *		just $uuid or $regex with $options.
 */
static bool
check_dbref_rest(ExjEmitState *st, ExjNode *node, const ExjPathSeg *path)
{
	int			rest = node->len - 2;
	int			i;

	if (!check_reserved(st, node, path))
		return false;
	for (i = 0; i < node->len; i++)
	{
		const char *key = node->keys[i];
		int			len = node->keylens[i];

		if ((rest == 1 && exj_key_is(key, len, "$uuid")) ||
			(rest == 2 && exj_key_is(key, len, "$regex") && exj_find_key(node, "$options") >= 0))
			return exj_fail(st, path, EXJ_ERR_SYNTAX,
							"a DBRef's other keys must not form an Extended JSON wrapper (\"%.*s\")",
							Min(len, 64), key);
	}
	return true;
}

/*
 * emit_single
 *		A one-key object: the wrapper it names, else an ordinary document.
 */
static bool
emit_single(ExjEmitState *st, ExjNode *node, const ExjPathSeg *path)
{
	const char *key = node->keys[0];
	int			klen = node->keylens[0];
	ExjNode    *v = node->items[0];
	StringInfo	buf = st->buf;

	if (klen < 2 || key[0] != '$')
		return exj_emit_plain(st, node, path, true, false);

	if (exj_key_is(key, klen, "$oid"))
	{
		if (v->kind != EXJ_STRING || !exj_is_oid_text(v->str, v->len))
			return exj_fail(st, path, EXJ_ERR_SYNTAX,
							"invalid $oid value: expected a string of 24 hex digits");
		exj_append_oid(buf, v->str);
		return true;
	}
	if (exj_key_is(key, klen, "$numberInt") || exj_key_is(key, klen, "$numberLong"))
	{
		if (v->kind != EXJ_STRING)
			return exj_fail(st, path, EXJ_ERR_SYNTAX, "%.*s must be a string", klen, key);
		if (!exj_append_int_text(buf, v->str, v->len, st->err))
			return exj_fail_again(st, path, exj_key_is(key, klen, "$numberInt") ?
								  "invalid $numberInt value: " :
								  "invalid $numberLong value: ");
		return true;
	}
	if (exj_key_is(key, klen, "$numberDouble"))
		return emit_double_string(st, v, path);
	if (exj_key_is(key, klen, "$numberDecimal"))
	{
		if (v->kind != EXJ_STRING)
			return exj_fail(st, path, EXJ_ERR_SYNTAX, "$numberDecimal must be a string");
		if (!exj_append_decimal128(buf, v->str, v->len, st->err))
			return exj_fail_again(st, path, "invalid $numberDecimal value: ");
		return true;
	}
	if (exj_key_is(key, klen, "$date"))
		return emit_date(st, v, path);
	if (exj_key_is(key, klen, "$binary"))
	{
		if (!has_keys(v, "base64", "subType"))
			return exj_fail(st, path, EXJ_ERR_SYNTAX,
							"invalid $binary value: expected {\"base64\": ..., \"subType\": ...}");
		return emit_binary(st, v->items[exj_find_key(v, "base64")],
						   v->items[exj_find_key(v, "subType")], path);
	}
	if (exj_key_is(key, klen, "$uuid"))
		return emit_uuid(st, v, path);
	if (exj_key_is(key, klen, "$symbol") || exj_key_is(key, klen, "$code"))
	{
		if (v->kind != EXJ_STRING)
			return exj_fail(st, path, EXJ_ERR_SYNTAX, "%.*s must be a string", klen, key);
		appendStringInfoCharMacro(buf, '{');
		exj_append_string(buf, key, klen);
		appendStringInfoCharMacro(buf, ':');
		exj_append_string(buf, v->str, v->len);
		appendStringInfoCharMacro(buf, '}');
		return true;
	}
	if (exj_key_is(key, klen, "$timestamp"))
	{
		ExjNode    *t,
				   *i;
		int64		tv,
					iv;

		if (!has_keys(v, "t", "i"))
			return exj_fail(st, path, EXJ_ERR_SYNTAX,
							"invalid $timestamp value: expected {\"t\": ..., \"i\": ...}");
		t = v->items[exj_find_key(v, "t")];
		i = v->items[exj_find_key(v, "i")];
		if (!exj_is_integer_text(t) || !exj_is_integer_text(i) ||
			!parse_int64(t->str, t->len, &tv) || !parse_int64(i->str, i->len, &iv) ||
			tv < 0 || tv > PG_UINT32_MAX || iv < 0 || iv > PG_UINT32_MAX)
			return exj_fail(st, path, EXJ_ERR_SYNTAX,
							"invalid $timestamp value: t and i must be unsigned 32-bit integers");
		appendStringInfo(buf, "{\"$timestamp\":{\"t\":" INT64_FORMAT ",\"i\":" INT64_FORMAT "}}",
						 tv, iv);
		return true;
	}
	if (exj_key_is(key, klen, "$regularExpression"))
	{
		ExjNode    *p,
				   *o;

		if (!has_keys(v, "pattern", "options"))
			return exj_fail(st, path, EXJ_ERR_SYNTAX,
							"invalid $regularExpression value: expected {\"pattern\": ..., \"options\": ...}");
		p = v->items[exj_find_key(v, "pattern")];
		o = v->items[exj_find_key(v, "options")];
		if (p->kind != EXJ_STRING || o->kind != EXJ_STRING)
			return exj_fail(st, path, EXJ_ERR_SYNTAX,
							"invalid $regularExpression value: pattern and options must be strings");
		appendStringInfoString(buf, "{\"$regularExpression\":{\"pattern\":");
		exj_append_string(buf, p->str, p->len);
		appendStringInfoString(buf, ",\"options\":");
		exj_append_string(buf, o->str, o->len);
		appendStringInfoString(buf, "}}");
		return true;
	}
	if (exj_key_is(key, klen, "$dbPointer"))
	{
		ExjNode    *ref,
				   *id;
		ExjPathSeg	seg = {path, key, klen, 0};

		if (!has_keys(v, "$ref", "$id") ||
			(ref = v->items[exj_find_key(v, "$ref")])->kind != EXJ_STRING ||
			(id = v->items[exj_find_key(v, "$id")])->kind != EXJ_OBJECT)
			return exj_fail(st, path, EXJ_ERR_SYNTAX,
							"invalid $dbPointer value: expected {\"$ref\": <string>, \"$id\": <ObjectId>}");
		appendStringInfoString(buf, "{\"$dbPointer\":{\"$ref\":");
		exj_append_string(buf, ref->str, ref->len);
		appendStringInfoString(buf, ",\"$id\":");
		if (!exj_emit_node(st, id, &seg))
			return false;
		appendStringInfoString(buf, "}}");
		return true;
	}
	if (exj_key_is(key, klen, "$minKey") || exj_key_is(key, klen, "$maxKey"))
	{
		if (v->kind != EXJ_NUMBER || strtod(v->str, NULL) != 1.0)
			return exj_fail(st, path, EXJ_ERR_SYNTAX, "%.*s must be 1", klen, key);
		appendStringInfo(buf, "{\"%.*s\":1}", klen, key);
		return true;
	}
	if (exj_key_is(key, klen, "$undefined"))
	{
		if (v->kind != EXJ_TRUE)
			return exj_fail(st, path, EXJ_ERR_SYNTAX, "$undefined must be true");
		appendStringInfoString(buf, "{\"$undefined\":true}");
		return true;
	}
	/* any other single $-key: an ordinary document */
	return exj_emit_plain(st, node, path, true, false);
}

/*
 * emit_pair
 *		A two-key object that is a legacy wrapper ($code+$scope,
 *		$binary+$type, $regex+$options); returns false with *handled unset
 *		when it is none of them.
 */
static bool
emit_pair(ExjEmitState *st, ExjNode *node, const ExjPathSeg *path, bool *handled)
{
	const char *k0 = node->keys[0],
			   *k1 = node->keys[1];
	int			l0 = node->keylens[0],
				l1 = node->keylens[1];
	int			c = memcmp(k0, k1, Min(l0, l1));
	bool		swap = c > 0 || (c == 0 && l0 > l1);
	const char *first = swap ? k1 : k0;
	int			firstlen = swap ? l1 : l0;
	const char *last = swap ? k0 : k1;
	int			lastlen = swap ? l0 : l1;
	StringInfo	buf = st->buf;

	*handled = true;
	if (exj_key_is(first, firstlen, "$code"))
	{
		ExjNode    *code,
				   *scope;
		ExjPathSeg	seg = {path, "$scope", 6, 0};

		if (!has_keys(node, "$code", "$scope"))
			return exj_fail(st, path, EXJ_ERR_SYNTAX,
							"invalid $code value: only $scope may go with $code");
		code = node->items[exj_find_key(node, "$code")];
		scope = node->items[exj_find_key(node, "$scope")];
		if (code->kind != EXJ_STRING || scope->kind != EXJ_OBJECT)
			return exj_fail(st, path, EXJ_ERR_SYNTAX,
							"invalid $code value: expected a string $code and a document $scope");
		appendStringInfoString(buf, "{\"$code\":");
		exj_append_string(buf, code->str, code->len);
		appendStringInfoString(buf, ",\"$scope\":");
		if (!exj_emit_plain(st, scope, &seg, true, false))
			return false;
		appendStringInfoCharMacro(buf, '}');
		return true;
	}
	if (exj_key_is(first, firstlen, "$binary"))
	{
		if (!has_keys(node, "$binary", "$type"))
			return exj_fail(st, path, EXJ_ERR_SYNTAX,
							"invalid $binary value: only $type may go with a legacy $binary");
		return emit_binary(st, node->items[exj_find_key(node, "$binary")],
						   node->items[exj_find_key(node, "$type")], path);
	}
	if (exj_key_is(last, lastlen, "$regex"))
	{
		ExjNode    *re,
				   *opt;

		if (!has_keys(node, "$regex", "$options"))
			return exj_fail(st, path, EXJ_ERR_SYNTAX,
							"invalid $regex value: only $options may go with $regex");
		re = node->items[exj_find_key(node, "$regex")];
		opt = node->items[exj_find_key(node, "$options")];
		if (re->kind == EXJ_OBJECT)
		{
			/* a query operator, {"$regex": {"$regularExpression": ...}} */
			ExjPathSeg	rseg = {path, "$regex", 6, 0};
			ExjPathSeg	oseg = {path, "$options", 8, 0};

			appendStringInfoString(buf, "{\"$regex\":");
			if (!exj_emit_node(st, re, &rseg))
				return false;
			appendStringInfoString(buf, ",\"$options\":");
			if (!exj_emit_node(st, opt, &oseg))
				return false;
			appendStringInfoCharMacro(buf, '}');
			return true;
		}
		if (re->kind != EXJ_STRING || opt->kind != EXJ_STRING)
			return exj_fail(st, path, EXJ_ERR_SYNTAX,
							"invalid $regex value: $regex and $options must be strings");
		appendStringInfoString(buf, "{\"$regularExpression\":{\"pattern\":");
		exj_append_string(buf, re->str, re->len);
		appendStringInfoString(buf, ",\"options\":");
		exj_append_string(buf, opt->str, opt->len);
		appendStringInfoString(buf, "}}");
		return true;
	}
	*handled = false;
	return false;
}

/*
 * exj_emit_object
 *		An object: a wrapper, a DBRef or an ordinary document.
 */
bool
exj_emit_object(ExjEmitState *st, ExjNode *node, const ExjPathSeg *path)
{
	int			ref;
	int			id;

	if (node->len == 0)
	{
		appendStringInfoString(st->buf, "{}");
		return true;
	}

	/* DBRef (the gem's dbref? is false whenever $db is present) */
	ref = exj_find_key(node, "$ref");
	id = exj_find_key(node, "$id");
	if (ref >= 0 && id >= 0 && node->items[ref]->kind == EXJ_STRING &&
		exj_find_key(node, "$db") < 0)
	{
		ExjPathSeg	seg = {path, "$id", 3, 0};

		if (!check_dbref_rest(st, node, path))
			return false;
		appendStringInfoString(st->buf, "{\"$ref\":");
		exj_append_string(st->buf, node->items[ref]->str, node->items[ref]->len);
		appendStringInfoString(st->buf, ",\"$id\":");
		if (!exj_emit_node(st, node->items[id], &seg))
			return false;
		return exj_emit_plain(st, node, path, false, true);
	}

	if (node->len == 1)
		return emit_single(st, node, path);
	if (node->len == 2)
	{
		bool		handled;
		bool		ok = emit_pair(st, node, path, &handled);

		if (handled)
			return ok;
	}
	if (!check_reserved(st, node, path))
		return false;
	return exj_emit_plain(st, node, path, true, false);
}

/*
 * exj_emit_plain
 *		An ordinary document: every key, in order, with its value.  With
 *		skip_ref_id, the $ref and $id keys are left out (a DBRef's rest).
 */
bool
exj_emit_plain(ExjEmitState *st, ExjNode *node, const ExjPathSeg *path, bool first,
			   bool skip_ref_id)
{
	int			i;

	if (!skip_ref_id)
		appendStringInfoCharMacro(st->buf, '{');
	for (i = 0; i < node->len; i++)
	{
		ExjPathSeg	seg = {path, node->keys[i], node->keylens[i], 0};

		if (skip_ref_id && (exj_key_is(node->keys[i], node->keylens[i], "$ref") ||
							exj_key_is(node->keys[i], node->keylens[i], "$id")))
			continue;
		if (!first)
			appendStringInfoCharMacro(st->buf, ',');
		first = false;
		exj_append_string(st->buf, node->keys[i], node->keylens[i]);
		appendStringInfoCharMacro(st->buf, ':');
		if (!exj_emit_node(st, node->items[i], &seg))
			return false;
	}
	appendStringInfoCharMacro(st->buf, '}');
	return true;
}

/*
 * exj_emit_node
 *		Any value.
 */
bool
exj_emit_node(ExjEmitState *st, ExjNode *node, const ExjPathSeg *path)
{
	int			i;

	switch (node->kind)
	{
		case EXJ_NULL:
			appendBinaryStringInfo(st->buf, "null", 4);
			return true;
		case EXJ_TRUE:
			appendBinaryStringInfo(st->buf, "true", 4);
			return true;
		case EXJ_FALSE:
			appendBinaryStringInfo(st->buf, "false", 5);
			return true;
		case EXJ_NUMBER:
			return exj_emit_number(st, node, path);
		case EXJ_STRING:
			exj_append_string(st->buf, node->str, node->len);
			return true;
		case EXJ_ARRAY:
#ifndef FRONTEND
			check_stack_depth();
#endif
			appendStringInfoCharMacro(st->buf, '[');
			for (i = 0; i < node->len; i++)
			{
				ExjPathSeg	seg = {path, NULL, 0, i};

				if (i > 0)
					appendStringInfoCharMacro(st->buf, ',');
				if (!exj_emit_node(st, node->items[i], &seg))
					return false;
			}
			appendStringInfoCharMacro(st->buf, ']');
			return true;
		case EXJ_OBJECT:
#ifndef FRONTEND
			check_stack_depth();
#endif
			return exj_emit_object(st, node, path);
	}
	return false;
}

/*
 * exj_emit
 *		Append the Relaxed Extended JSON of a tree.  On error, returns false
 *		with err->msg and err->path ("<root_path>.a[2]") set; buf then holds
 *		a partial document.
 */
bool
exj_emit(StringInfo buf, ExjNode *node, const char *root_path, ExjError *err)
{
	ExjEmitState st;

	st.buf = buf;
	st.err = err;
	st.root = root_path;
	return exj_emit_node(&st, node, NULL);
}
