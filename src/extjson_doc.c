/*-------------------------------------------------------------------------
 *
 * extjson_doc.c
 *	  A JSON document tree and its Relaxed Extended JSON output, with the
 *	  $-wrapper rules of the bson gem's BSON::ExtJSON.parse(mode: :bson).
 *
 * A document is first built into a small tree (ExjNode), because whether an
 * object is a wrapper such as {"$oid": ...} depends on all of its keys.  The
 * tree is built from events (open, key, scalar, close): from a jsonb
 * iterator in extjson_emit.c, or from json text by PostgreSQL's own JSON
 * parser (common/jsonapi.h) here.  exj_emit() then writes it.
 *
 * json text without any "$" cannot hold a wrapper; exj_emit_plain_json_text()
 * writes it straight from the parser's events, without a tree.
 *
 * Nothing here needs a running backend (see extjson.h); the fuzz target
 * drives exj_parse_json_text(), exj_emit() and the fast path directly.
 *
 * Wrapper rules (ext_json.rb, parse_hash), by number of keys:
 *	0			{}
 *	$ref+$id	a DBRef (without $db): $ref, $id first, then the rest
 *	1			$oid $symbol $numberInt $numberLong $numberDouble
 *				$numberDecimal $binary $uuid $code $timestamp
 *				$regularExpression $dbPointer $date $minKey $maxKey
 *				$undefined; any other single key is an ordinary document
 *	2			$code+$scope, $binary+$type (legacy), $regex+$options (legacy)
 *	any			an ordinary document, which must not use a reserved key
 * mongo_fdw's legacy {"$date": <milliseconds>} is accepted too.
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

#include "common/jsonapi.h"
#include "mb/pg_wchar.h"
#include "compat.h"
#include "extjson.h"

/* One step of the path from the document's root, kept on the C stack. */
typedef struct PathSeg
{
	const struct PathSeg *up;
	const char *key;			/* NULL for an array index */
	int			keylen;
	int			index;
} PathSeg;

typedef struct EmitState
{
	StringInfo	buf;
	ExjError   *err;
	const char *root;			/* how the path starts, "$" */
} EmitState;

static bool emit_node(EmitState *st, ExjNode *node, const PathSeg *path);

/* Keys the gem reserves for wrappers (RESERVED_KEYS). */
static const char *const reserved_keys[] = {
	"$oid", "$symbol", "$numberInt", "$numberLong", "$numberDouble",
	"$numberDecimal", "$binary", "$code", "$scope", "$timestamp",
	"$regularExpression", "$dbPointer", "$date", "$minKey", "$maxKey",
	"$undefined", NULL
};

/* ---------------------------------------------------------------------
 * Building
 * ---------------------------------------------------------------------
 */

/*
 * exj_builder_init
 *		Start an empty tree.
 */
void
exj_builder_init(ExjBuilder *b)
{
	memset(b, 0, sizeof(ExjBuilder));
}

/*
 * attach
 *		Add node as the next child of the innermost open container (with the
 *		pending key when that is an object), or make it the root.
 */
static void
attach(ExjBuilder *b, ExjNode *node)
{
	ExjNode    *parent;

	if (b->depth == 0)
	{
		if (b->root == NULL)
			b->root = node;
		return;
	}
	parent = b->stack[b->depth - 1];
	if (parent->len == parent->cap)
	{
		int			cap = parent->cap ? parent->cap * 2 : 4;

		if (parent->cap == 0)
		{
			parent->items = palloc(cap * sizeof(ExjNode *));
			if (parent->kind == EXJ_OBJECT)
			{
				parent->keys = palloc(cap * sizeof(char *));
				parent->keylens = palloc(cap * sizeof(int));
			}
		}
		else
		{
			parent->items = repalloc(parent->items, cap * sizeof(ExjNode *));
			if (parent->kind == EXJ_OBJECT)
			{
				parent->keys = repalloc(parent->keys, cap * sizeof(char *));
				parent->keylens = repalloc(parent->keylens, cap * sizeof(int));
			}
		}
		parent->cap = cap;
	}
	if (parent->kind == EXJ_OBJECT)
	{
		parent->keys[parent->len] = b->pending_key ? b->pending_key : "";
		parent->keylens[parent->len] = b->pending_key ? b->pending_keylen : 0;
		b->pending_key = NULL;
	}
	parent->items[parent->len++] = node;
}

/*
 * exj_build_open
 *		Start an object or array (kind) at the current position.
 */
void
exj_build_open(ExjBuilder *b, ExjKind kind)
{
	ExjNode    *node = palloc0(sizeof(ExjNode));

	node->kind = kind;
	attach(b, node);
	if (b->depth == b->stack_cap)
	{
		b->stack_cap = b->stack_cap ? b->stack_cap * 2 : 16;
		b->stack = b->stack ? repalloc(b->stack, b->stack_cap * sizeof(ExjNode *)) :
			palloc(b->stack_cap * sizeof(ExjNode *));
	}
	b->stack[b->depth++] = node;
}

/*
 * exj_build_close
 *		End the innermost open object or array.
 */
void
exj_build_close(ExjBuilder *b)
{
	if (b->depth > 0)
		b->depth--;
}

/*
 * exj_build_key
 *		Set the key of the next value in the open object.  The key is not
 *		copied: it must live as long as the tree.
 */
void
exj_build_key(ExjBuilder *b, const char *key, int len)
{
	b->pending_key = key;
	b->pending_keylen = len;
}

/*
 * exj_build_scalar
 *		Add a scalar.  For NUMBER and STRING, s (len bytes, followed by a NUL
 *		for NUMBER) is not copied: it must live as long as the tree.
 */
void
exj_build_scalar(ExjBuilder *b, ExjKind kind, const char *s, int len)
{
	ExjNode    *node = palloc0(sizeof(ExjNode));

	node->kind = kind;
	node->str = s;
	node->len = len;
	attach(b, node);
}

/*
 * exj_tree_free
 *		Free a tree built by exj_parse_json_text(), strings included.  (In
 *		the backend, trees simply go with their memory context.)
 */
void
exj_tree_free(ExjNode *node)
{
	int			i;

	if (node == NULL)
		return;
	if (node->kind == EXJ_ARRAY || node->kind == EXJ_OBJECT)
	{
		for (i = 0; i < node->len; i++)
		{
			exj_tree_free(node->items[i]);
			if (node->kind == EXJ_OBJECT)
				pfree((char *) node->keys[i]);
		}
		if (node->items)
			pfree(node->items);
		if (node->keys)
			pfree(node->keys);
		if (node->keylens)
			pfree(node->keylens);
	}
	else if (node->str)
		pfree((char *) node->str);
	pfree(node);
}

/*
 * jsonapi semantic actions: each one feeds the builder (compat.h gives their
 * return type, which depends on the server version)
 */

/* sem_object_start: "{" opens an object */
static ExwiwJsonActionResult
sem_object_start(void *state)
{
	exj_build_open((ExjBuilder *) state, EXJ_OBJECT);
	return EXWIW_JSON_ACTION_DONE;
}

/* sem_array_start: "[" opens an array */
static ExwiwJsonActionResult
sem_array_start(void *state)
{
	exj_build_open((ExjBuilder *) state, EXJ_ARRAY);
	return EXWIW_JSON_ACTION_DONE;
}

/* sem_end: "}" or "]" closes the innermost container */
static ExwiwJsonActionResult
sem_end(void *state)
{
	exj_build_close((ExjBuilder *) state);
	return EXWIW_JSON_ACTION_DONE;
}

/* sem_field_start: an object's key (de-escaped, ours to keep) */
static ExwiwJsonActionResult
sem_field_start(void *state, char *fname, bool isnull)
{
	ExjBuilder *b = (ExjBuilder *) state;

	/* a key left over by a parse error must not leak */
	if (b->pending_key)
		pfree((char *) b->pending_key);
	exj_build_key(b, fname, strlen(fname));
	return EXWIW_JSON_ACTION_DONE;
}

/*
 * sem_scalar: a string, number, true, false or null; the builder keeps the
 * token of a string or number, and the others are freed here
 */
static ExwiwJsonActionResult
sem_scalar(void *state, char *token, JsonTokenType tokentype)
{
	ExjBuilder *b = (ExjBuilder *) state;

	switch (tokentype)
	{
		case JSON_TOKEN_STRING:
			exj_build_scalar(b, EXJ_STRING, token, strlen(token));
			return EXWIW_JSON_ACTION_DONE;
		case JSON_TOKEN_NUMBER:
			exj_build_scalar(b, EXJ_NUMBER, token, strlen(token));
			return EXWIW_JSON_ACTION_DONE;
		case JSON_TOKEN_TRUE:
			exj_build_scalar(b, EXJ_TRUE, NULL, 0);
			break;
		case JSON_TOKEN_FALSE:
			exj_build_scalar(b, EXJ_FALSE, NULL, 0);
			break;
		default:
			exj_build_scalar(b, EXJ_NULL, NULL, 0);
			break;
	}
	pfree(token);
	return EXWIW_JSON_ACTION_DONE;
}

/*
 * append_path
 *		Append root and the steps of path, outermost first, as "$.a.b[2]":
 *		a key of letters, digits, "_" and "$" after a dot, any other key as
 *		a JSON string in brackets, an index in brackets.  A very deep path
 *		keeps its outermost 64 steps.
 */
static void
append_path(StringInfo s, const char *root, const PathSeg *path)
{
	const PathSeg *segs[64];
	int			n = 0;
	const PathSeg *p;
	bool		truncated = false;

	for (p = path; p != NULL; p = p->up)
	{
		if (n == lengthof(segs))
		{
			truncated = true;
			memmove(segs, segs + 1, (n - 1) * sizeof(PathSeg *));
			n--;
		}
		segs[n++] = p;
	}
	appendStringInfoString(s, root);
	if (truncated)
		appendStringInfoString(s, "...");
	while (n-- > 0)
	{
		p = segs[n];
		if (p->key == NULL)
			appendStringInfo(s, "[%d]", p->index);
		else
		{
			bool		plain = p->keylen > 0;
			int			i;

			for (i = 0; i < p->keylen; i++)
			{
				char		c = p->key[i];

				if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
					  (c >= '0' && c <= '9') || c == '_' || c == '$'))
					plain = false;
			}
			if (plain)
			{
				appendStringInfoCharMacro(s, '.');
				appendBinaryStringInfo(s, p->key, p->keylen);
			}
			else
			{
				appendStringInfoCharMacro(s, '[');
				exj_append_string(s, p->key, p->keylen);
				appendStringInfoCharMacro(s, ']');
			}
		}
	}
}

/*
 * text_path
 *		The path, as "$.a.b[2]", of the token that starts at byte upto of
 *		json text that is valid up to there: the lexer stopped on it (a
 *		string it cannot de-escape, such as "\u0000").  The prefix is
 *		scanned for its open containers, the key of each object's current
 *		member and the index of each array's current element.  A failing
 *		key gives the path of its object.  Keys keep their bytes but for the
 *		simple escapes (\" \\ \/ \b \f \n \r \t), which are undone.
 */
static void
text_path(const char *json, int upto, StringInfo out)
{
	typedef struct Level
	{
		bool		obj;
		bool		expect_key;
		StringInfoData key;
		int			index;
	} Level;
	Level	   *st = NULL;
	int			cap = 0;
	int			depth = 0;
	PathSeg    *segs;
	const PathSeg *leaf = NULL;
	int			i = 0;
	int			n;

	while (i < upto)
	{
		char		c = json[i];

		if (c == '{' || c == '[')
		{
			if (depth == cap)
			{
				cap = cap ? cap * 2 : 16;
				st = st ? repalloc(st, cap * sizeof(Level)) : palloc(cap * sizeof(Level));
			}
			st[depth].obj = (c == '{');
			st[depth].expect_key = (c == '{');
			st[depth].index = 0;
			initStringInfo(&st[depth].key);
			depth++;
			i++;
		}
		else if (c == '}' || c == ']')
		{
			if (depth > 0)
				pfree(st[--depth].key.data);
			i++;
		}
		else if (c == ',' && depth > 0)
		{
			if (st[depth - 1].obj)
				st[depth - 1].expect_key = true;
			else
				st[depth - 1].index++;
			i++;
		}
		else if (c == ':' && depth > 0)
		{
			st[depth - 1].expect_key = false;
			i++;
		}
		else if (c == '"')
		{
			bool		is_key = depth > 0 && st[depth - 1].obj && st[depth - 1].expect_key;

			if (is_key)
				resetStringInfo(&st[depth - 1].key);
			for (i++; i < upto && json[i] != '"'; i++)
			{
				char		k = json[i];

				if (k == '\\' && i + 1 < upto)
				{
					k = json[++i];
					switch (k)
					{
						case 'b':
							k = '\b';
							break;
						case 'f':
							k = '\f';
							break;
						case 'n':
							k = '\n';
							break;
						case 'r':
							k = '\r';
							break;
						case 't':
							k = '\t';
							break;
						case '"':
						case '\\':
						case '/':
							break;
						default:
							if (is_key)
								appendStringInfoChar(&st[depth - 1].key, '\\');
							break;
					}
				}
				if (is_key)
					appendStringInfoChar(&st[depth - 1].key, k);
			}
			i++;
		}
		else
			i++;
	}

	segs = palloc0(sizeof(PathSeg) * (depth + 1));
	for (n = 0; n < depth; n++)
	{
		Level	   *l = &st[n];

		if (l->obj && l->expect_key && n == depth - 1)
			break;				/* the key itself failed */
		segs[n].up = leaf;
		if (l->obj)
		{
			segs[n].key = l->key.data;
			segs[n].keylen = l->key.len;
		}
		else
			segs[n].index = l->index;
		leaf = &segs[n];
	}
	append_path(out, "$", leaf);
	for (n = 0; n < depth; n++)
		pfree(st[n].key.data);
	if (st)
		pfree(st);
	pfree(segs);
}

/*
 * exj_parse_json_text
 *		Parse json text (len bytes of UTF-8) into a tree that keeps key order
 *		and duplicate keys.  False, with err set, when the text is not JSON
 *		the parser can de-escape (e.g. "\u0000").
 */
bool
exj_parse_json_text(const char *json, int len, ExjNode **root, ExjError *err)
{
	JsonLexContext lexspace;
	JsonLexContext *lex;
	JsonSemAction sem;
	JsonParseErrorType res;
	ExjBuilder	b;

	exj_builder_init(&b);
	memset(&sem, 0, sizeof(sem));
	sem.semstate = &b;
	sem.object_start = sem_object_start;
	sem.object_end = sem_end;
	sem.array_start = sem_array_start;
	sem.array_end = sem_end;
	sem.object_field_start = sem_field_start;
	sem.scalar = sem_scalar;

	lex = exwiw_json_lex_make(&lexspace, json, len, true);
	res = pg_parse_json(lex, &sem);
	if (res != JSON_SUCCESS)
	{
		/*
		 * Our own words, not json_errdetail(): some of its messages are
		 * allocated and some are constants, so they cannot be freed safely.
		 * (A json datum is valid JSON already; only de-escaping can fail.)
		 */
		switch (res)
		{
			case JSON_UNICODE_CODE_POINT_ZERO:
				exj_error_set(err, EXJ_ERR_UNSUPPORTED,
							  "\\u0000 cannot be converted to text");
				break;
			case JSON_UNICODE_ESCAPE_FORMAT:
			case JSON_ESCAPING_INVALID:
			case JSON_UNICODE_HIGH_SURROGATE:
			case JSON_UNICODE_LOW_SURROGATE:
			case JSON_UNICODE_HIGH_ESCAPE:
				exj_error_set(err, EXJ_ERR_SYNTAX, "invalid escape in json string");
				break;
			default:
				exj_error_set(err, EXJ_ERR_SYNTAX, "invalid json (parser error %d)",
							  (int) res);
				break;
		}
		if (err->path.data == NULL)
			initStringInfo(&err->path);
		resetStringInfo(&err->path);
		text_path(json, (int) Min(Max(lex->token_start - json, 0), len), &err->path);
		if (b.pending_key)
			pfree((char *) b.pending_key);
		exj_tree_free(b.root);
		b.root = NULL;
	}
	exwiw_json_lex_free(lex);
	if (b.stack)
		pfree(b.stack);
	*root = b.root;
	return res == JSON_SUCCESS;
}

/* ---------------------------------------------------------------------
 * Output
 * ---------------------------------------------------------------------
 */

/*
 * fail
 *		Record an error at path: the message and "$.a.b[2]".
 */
static bool fail(EmitState *st, const PathSeg *path, ExjErrorKind kind,
				 const char *fmt,...) pg_attribute_printf(4, 5);

static bool
fail(EmitState *st, const PathSeg *path, ExjErrorKind kind,
	 const char *fmt,...)
{
	va_list		ap;
	StringInfo	s = &st->err->path;

	st->err->kind = kind;
	va_start(ap, fmt);
	vsnprintf(st->err->msg, sizeof(st->err->msg), fmt, ap);
	va_end(ap);

	if (s->data == NULL)
		initStringInfo(s);
	resetStringInfo(s);
	append_path(s, st->root, path);
	return false;
}

/*
 * fail_again
 *		Add the path (and a prefix) to an error a formatting function set.
 */
static bool
fail_again(EmitState *st, const PathSeg *path, const char *prefix)
{
	char		msg[sizeof(st->err->msg)];

	strlcpy(msg, st->err->msg, sizeof(msg));
	return fail(st, path, st->err->kind, "%s%s", prefix, msg);
}

/*
 * key_is
 *		Does key (len bytes) equal the NUL-terminated word?
 */
static inline bool
key_is(const char *key, int len, const char *word)
{
	return strlen(word) == (size_t) len && memcmp(key, word, len) == 0;
}

/*
 * find_key
 *		Index of the last value under key in object node, or -1 (the last,
 *		because a Ruby Hash keeps the last of duplicate keys).
 */
static int
find_key(ExjNode *node, const char *key)
{
	int			i;

	for (i = node->len - 1; i >= 0; i--)
		if (key_is(node->keys[i], node->keylens[i], key))
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
		find_key(node, k1) >= 0 && find_key(node, k2) >= 0 &&
		strcmp(k1, k2) != 0;
}

/*
 * is_integer_text
 *		Is a NUMBER node an integer (no fraction, no exponent)?
 */
static bool
is_integer_text(ExjNode *node)
{
	int			i;

	if (node->kind != EXJ_NUMBER)
		return false;
	for (i = 0; i < node->len; i++)
		if (node->str[i] == '.' || node->str[i] == 'e' || node->str[i] == 'E')
			return false;
	return true;
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
 * emit_number
 *		A plain JSON number: Integer when written without fraction and
 *		exponent (an error outside int64), else Float.
 */
static bool
emit_number(EmitState *st, ExjNode *node, const PathSeg *path)
{
	if (is_integer_text(node))
	{
		if (!exj_append_int_text(st->buf, node->str, node->len, st->err))
			return fail_again(st, path, "");
		return true;
	}
	exj_append_double(st->buf, strtod(node->str, NULL));
	return true;
}

/*
 * emit_double_string
 *		$numberDouble: "NaN", "Infinity", "-Infinity" or a decimal number
 *		(what Ruby's BigDecimal() accepts, less its "_" separators).
 */
static bool
emit_double_string(EmitState *st, ExjNode *v, const PathSeg *path)
{
	char	   *s;
	char	   *end;
	double		d;
	int			i;
	bool		ok = v->len > 0;

	if (v->kind != EXJ_STRING)
		return fail(st, path, EXJ_ERR_SYNTAX, "$numberDouble must be a string");
	if (key_is(v->str, v->len, "NaN"))
	{
		exj_append_double(st->buf, NAN);
		return true;
	}
	if (key_is(v->str, v->len, "Infinity") || key_is(v->str, v->len, "+Infinity"))
	{
		exj_append_double(st->buf, INFINITY);
		return true;
	}
	if (key_is(v->str, v->len, "-Infinity"))
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
		return fail(st, path, EXJ_ERR_SYNTAX,
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
emit_binary(EmitState *st, ExjNode *b64, ExjNode *type, const PathSeg *path)
{
	StringInfoData data;
	int			subtype = 0;
	int			i;

	if (b64->kind != EXJ_STRING)
		return fail(st, path, EXJ_ERR_SYNTAX, "$binary base64 must be a string");
	if (type->kind != EXJ_STRING)
		return fail(st, path, EXJ_ERR_SYNTAX, "$binary subtype must be a string");
	if (type->len < 1 || type->len > 2)
		return fail(st, path, EXJ_ERR_SYNTAX,
					"invalid $binary subtype \"%.*s\": expected two hex digits",
					Min(type->len, 64), type->str);
	for (i = 0; i < type->len; i++)
	{
		int			h = hexval(type->str[i]);

		if (h < 0)
			return fail(st, path, EXJ_ERR_SYNTAX,
						"invalid $binary subtype \"%.*s\": expected two hex digits",
						type->len, type->str);
		subtype = subtype * 16 + h;
	}
	if (subtype > 0x09 && subtype < 0x80)
		return fail(st, path, EXJ_ERR_UNSUPPORTED,
					"$binary subtype \"%.*s\" is reserved by BSON",
					type->len, type->str);
	initStringInfo(&data);
	if (!exj_base64_decode(b64->str, b64->len, &data))
	{
		pfree(data.data);
		return fail(st, path, EXJ_ERR_SYNTAX, "$binary base64 is not valid base64");
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
emit_uuid(EmitState *st, ExjNode *v, const PathSeg *path)
{
	unsigned char bytes[16];
	int			n = 0;
	int			i;

	if (v->kind != EXJ_STRING || v->len != 36)
		return fail(st, path, EXJ_ERR_SYNTAX, "invalid $uuid value");
	for (i = 0; i < 36; i++)
	{
		if (i == 8 || i == 13 || i == 18 || i == 23)
		{
			if (v->str[i] != '-')
				return fail(st, path, EXJ_ERR_SYNTAX, "invalid $uuid value");
			continue;
		}
		if (hexval(v->str[i]) < 0 || hexval(v->str[i + 1]) < 0)
			return fail(st, path, EXJ_ERR_SYNTAX, "invalid $uuid value");
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
emit_date(EmitState *st, ExjNode *v, const PathSeg *path)
{
	int64		ms;
	int64		usec;
	ExjNode    *msnode = NULL;

	if (v->kind == EXJ_STRING)
	{
		if (!exj_parse_iso_date(v->str, v->len, &usec))
			return fail(st, path, EXJ_ERR_SYNTAX,
						"invalid $date string \"%.*s\"", Min(v->len, 64), v->str);
		exj_append_date_usec(st->buf, usec);
		return true;
	}
	if (v->kind == EXJ_OBJECT && v->len == 1 &&
		key_is(v->keys[0], v->keylens[0], "$numberLong") &&
		v->items[0]->kind == EXJ_STRING)
		msnode = v->items[0];
	else if (is_integer_text(v))
		msnode = v;
	if (msnode == NULL || !parse_int64(msnode->str, msnode->len, &ms))
		return fail(st, path, EXJ_ERR_SYNTAX,
					"invalid $date value: expected an ISO-8601 string or milliseconds");
	if (ms > PG_INT64_MAX / 1000 || ms < PG_INT64_MIN / 1000)
		return fail(st, path, EXJ_ERR_RANGE, "$date is out of range");
	exj_append_date_usec(st->buf, ms * 1000);
	return true;
}

/*
 * emit_plain
 *		An ordinary document: every key, in order, with its value.  With
 *		skip_ref_id, the $ref and $id keys are left out (a DBRef's rest).
 */
static bool
emit_plain(EmitState *st, ExjNode *node, const PathSeg *path, bool first,
		   bool skip_ref_id)
{
	int			i;

	if (!skip_ref_id)
		appendStringInfoCharMacro(st->buf, '{');
	for (i = 0; i < node->len; i++)
	{
		PathSeg		seg = {path, node->keys[i], node->keylens[i], 0};

		if (skip_ref_id && (key_is(node->keys[i], node->keylens[i], "$ref") ||
							key_is(node->keys[i], node->keylens[i], "$id")))
			continue;
		if (!first)
			appendStringInfoCharMacro(st->buf, ',');
		first = false;
		exj_append_string(st->buf, node->keys[i], node->keylens[i]);
		appendStringInfoCharMacro(st->buf, ':');
		if (!emit_node(st, node->items[i], &seg))
			return false;
	}
	appendStringInfoCharMacro(st->buf, '}');
	return true;
}

/*
 * check_reserved
 *		An ordinary document must not use a wrapper's key (the gem's
 *		verify_no_reserved_keys).
 */
static bool
check_reserved(EmitState *st, ExjNode *node, const PathSeg *path)
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
			if (key_is(key, len, reserved_keys[k]))
				return fail(st, path, EXJ_ERR_SYNTAX,
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
check_dbref_rest(EmitState *st, ExjNode *node, const PathSeg *path)
{
	int			rest = node->len - 2;
	int			i;

	if (!check_reserved(st, node, path))
		return false;
	for (i = 0; i < node->len; i++)
	{
		const char *key = node->keys[i];
		int			len = node->keylens[i];

		if ((rest == 1 && key_is(key, len, "$uuid")) ||
			(rest == 2 && key_is(key, len, "$regex") && find_key(node, "$options") >= 0))
			return fail(st, path, EXJ_ERR_SYNTAX,
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
emit_single(EmitState *st, ExjNode *node, const PathSeg *path)
{
	const char *key = node->keys[0];
	int			klen = node->keylens[0];
	ExjNode    *v = node->items[0];
	StringInfo	buf = st->buf;

	if (klen < 2 || key[0] != '$')
		return emit_plain(st, node, path, true, false);

	if (key_is(key, klen, "$oid"))
	{
		if (v->kind != EXJ_STRING || !exj_is_oid_text(v->str, v->len))
			return fail(st, path, EXJ_ERR_SYNTAX,
						"invalid $oid value: expected a string of 24 hex digits");
		exj_append_oid(buf, v->str);
		return true;
	}
	if (key_is(key, klen, "$numberInt") || key_is(key, klen, "$numberLong"))
	{
		if (v->kind != EXJ_STRING)
			return fail(st, path, EXJ_ERR_SYNTAX, "%.*s must be a string", klen, key);
		if (!exj_append_int_text(buf, v->str, v->len, st->err))
			return fail_again(st, path, key_is(key, klen, "$numberInt") ?
							  "invalid $numberInt value: " :
							  "invalid $numberLong value: ");
		return true;
	}
	if (key_is(key, klen, "$numberDouble"))
		return emit_double_string(st, v, path);
	if (key_is(key, klen, "$numberDecimal"))
	{
		if (v->kind != EXJ_STRING)
			return fail(st, path, EXJ_ERR_SYNTAX, "$numberDecimal must be a string");
		if (!exj_append_decimal128(buf, v->str, v->len, st->err))
			return fail_again(st, path, "invalid $numberDecimal value: ");
		return true;
	}
	if (key_is(key, klen, "$date"))
		return emit_date(st, v, path);
	if (key_is(key, klen, "$binary"))
	{
		if (!has_keys(v, "base64", "subType"))
			return fail(st, path, EXJ_ERR_SYNTAX,
						"invalid $binary value: expected {\"base64\": ..., \"subType\": ...}");
		return emit_binary(st, v->items[find_key(v, "base64")],
						   v->items[find_key(v, "subType")], path);
	}
	if (key_is(key, klen, "$uuid"))
		return emit_uuid(st, v, path);
	if (key_is(key, klen, "$symbol") || key_is(key, klen, "$code"))
	{
		if (v->kind != EXJ_STRING)
			return fail(st, path, EXJ_ERR_SYNTAX, "%.*s must be a string", klen, key);
		appendStringInfoCharMacro(buf, '{');
		exj_append_string(buf, key, klen);
		appendStringInfoCharMacro(buf, ':');
		exj_append_string(buf, v->str, v->len);
		appendStringInfoCharMacro(buf, '}');
		return true;
	}
	if (key_is(key, klen, "$timestamp"))
	{
		ExjNode    *t,
				   *i;
		int64		tv,
					iv;

		if (!has_keys(v, "t", "i"))
			return fail(st, path, EXJ_ERR_SYNTAX,
						"invalid $timestamp value: expected {\"t\": ..., \"i\": ...}");
		t = v->items[find_key(v, "t")];
		i = v->items[find_key(v, "i")];
		if (!is_integer_text(t) || !is_integer_text(i) ||
			!parse_int64(t->str, t->len, &tv) || !parse_int64(i->str, i->len, &iv) ||
			tv < 0 || tv > PG_UINT32_MAX || iv < 0 || iv > PG_UINT32_MAX)
			return fail(st, path, EXJ_ERR_SYNTAX,
						"invalid $timestamp value: t and i must be unsigned 32-bit integers");
		appendStringInfo(buf, "{\"$timestamp\":{\"t\":" INT64_FORMAT ",\"i\":" INT64_FORMAT "}}",
						 tv, iv);
		return true;
	}
	if (key_is(key, klen, "$regularExpression"))
	{
		ExjNode    *p,
				   *o;

		if (!has_keys(v, "pattern", "options"))
			return fail(st, path, EXJ_ERR_SYNTAX,
						"invalid $regularExpression value: expected {\"pattern\": ..., \"options\": ...}");
		p = v->items[find_key(v, "pattern")];
		o = v->items[find_key(v, "options")];
		if (p->kind != EXJ_STRING || o->kind != EXJ_STRING)
			return fail(st, path, EXJ_ERR_SYNTAX,
						"invalid $regularExpression value: pattern and options must be strings");
		appendStringInfoString(buf, "{\"$regularExpression\":{\"pattern\":");
		exj_append_string(buf, p->str, p->len);
		appendStringInfoString(buf, ",\"options\":");
		exj_append_string(buf, o->str, o->len);
		appendStringInfoString(buf, "}}");
		return true;
	}
	if (key_is(key, klen, "$dbPointer"))
	{
		ExjNode    *ref,
				   *id;
		PathSeg		seg = {path, key, klen, 0};

		if (!has_keys(v, "$ref", "$id") ||
			(ref = v->items[find_key(v, "$ref")])->kind != EXJ_STRING ||
			(id = v->items[find_key(v, "$id")])->kind != EXJ_OBJECT)
			return fail(st, path, EXJ_ERR_SYNTAX,
						"invalid $dbPointer value: expected {\"$ref\": <string>, \"$id\": <ObjectId>}");
		appendStringInfoString(buf, "{\"$dbPointer\":{\"$ref\":");
		exj_append_string(buf, ref->str, ref->len);
		appendStringInfoString(buf, ",\"$id\":");
		if (!emit_node(st, id, &seg))
			return false;
		appendStringInfoString(buf, "}}");
		return true;
	}
	if (key_is(key, klen, "$minKey") || key_is(key, klen, "$maxKey"))
	{
		if (v->kind != EXJ_NUMBER || strtod(v->str, NULL) != 1.0)
			return fail(st, path, EXJ_ERR_SYNTAX, "%.*s must be 1", klen, key);
		appendStringInfo(buf, "{\"%.*s\":1}", klen, key);
		return true;
	}
	if (key_is(key, klen, "$undefined"))
	{
		if (v->kind != EXJ_TRUE)
			return fail(st, path, EXJ_ERR_SYNTAX, "$undefined must be true");
		appendStringInfoString(buf, "{\"$undefined\":true}");
		return true;
	}
	/* any other single $-key: an ordinary document */
	return emit_plain(st, node, path, true, false);
}

/*
 * emit_pair
 *		A two-key object that is a legacy wrapper ($code+$scope,
 *		$binary+$type, $regex+$options); returns false with *handled unset
 *		when it is none of them.
 */
static bool
emit_pair(EmitState *st, ExjNode *node, const PathSeg *path, bool *handled)
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
	if (key_is(first, firstlen, "$code"))
	{
		ExjNode    *code,
				   *scope;
		PathSeg		seg = {path, "$scope", 6, 0};

		if (!has_keys(node, "$code", "$scope"))
			return fail(st, path, EXJ_ERR_SYNTAX,
						"invalid $code value: only $scope may go with $code");
		code = node->items[find_key(node, "$code")];
		scope = node->items[find_key(node, "$scope")];
		if (code->kind != EXJ_STRING || scope->kind != EXJ_OBJECT)
			return fail(st, path, EXJ_ERR_SYNTAX,
						"invalid $code value: expected a string $code and a document $scope");
		appendStringInfoString(buf, "{\"$code\":");
		exj_append_string(buf, code->str, code->len);
		appendStringInfoString(buf, ",\"$scope\":");
		if (!emit_plain(st, scope, &seg, true, false))
			return false;
		appendStringInfoCharMacro(buf, '}');
		return true;
	}
	if (key_is(first, firstlen, "$binary"))
	{
		if (!has_keys(node, "$binary", "$type"))
			return fail(st, path, EXJ_ERR_SYNTAX,
						"invalid $binary value: only $type may go with a legacy $binary");
		return emit_binary(st, node->items[find_key(node, "$binary")],
						   node->items[find_key(node, "$type")], path);
	}
	if (key_is(last, lastlen, "$regex"))
	{
		ExjNode    *re,
				   *opt;

		if (!has_keys(node, "$regex", "$options"))
			return fail(st, path, EXJ_ERR_SYNTAX,
						"invalid $regex value: only $options may go with $regex");
		re = node->items[find_key(node, "$regex")];
		opt = node->items[find_key(node, "$options")];
		if (re->kind == EXJ_OBJECT)
		{
			/* a query operator, {"$regex": {"$regularExpression": ...}} */
			PathSeg		rseg = {path, "$regex", 6, 0};
			PathSeg		oseg = {path, "$options", 8, 0};

			appendStringInfoString(buf, "{\"$regex\":");
			if (!emit_node(st, re, &rseg))
				return false;
			appendStringInfoString(buf, ",\"$options\":");
			if (!emit_node(st, opt, &oseg))
				return false;
			appendStringInfoCharMacro(buf, '}');
			return true;
		}
		if (re->kind != EXJ_STRING || opt->kind != EXJ_STRING)
			return fail(st, path, EXJ_ERR_SYNTAX,
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
 * emit_object
 *		An object: a wrapper, a DBRef or an ordinary document.
 */
static bool
emit_object(EmitState *st, ExjNode *node, const PathSeg *path)
{
	int			ref;
	int			id;

	if (node->len == 0)
	{
		appendStringInfoString(st->buf, "{}");
		return true;
	}

	/* DBRef (the gem's dbref? is false whenever $db is present) */
	ref = find_key(node, "$ref");
	id = find_key(node, "$id");
	if (ref >= 0 && id >= 0 && node->items[ref]->kind == EXJ_STRING &&
		find_key(node, "$db") < 0)
	{
		PathSeg		seg = {path, "$id", 3, 0};

		if (!check_dbref_rest(st, node, path))
			return false;
		appendStringInfoString(st->buf, "{\"$ref\":");
		exj_append_string(st->buf, node->items[ref]->str, node->items[ref]->len);
		appendStringInfoString(st->buf, ",\"$id\":");
		if (!emit_node(st, node->items[id], &seg))
			return false;
		return emit_plain(st, node, path, false, true);
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
	return emit_plain(st, node, path, true, false);
}

/*
 * emit_node
 *		Any value.
 */
static bool
emit_node(EmitState *st, ExjNode *node, const PathSeg *path)
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
			return emit_number(st, node, path);
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
				PathSeg		seg = {path, NULL, 0, i};

				if (i > 0)
					appendStringInfoCharMacro(st->buf, ',');
				if (!emit_node(st, node->items[i], &seg))
					return false;
			}
			appendStringInfoCharMacro(st->buf, ']');
			return true;
		case EXJ_OBJECT:
#ifndef FRONTEND
			check_stack_depth();
#endif
			return emit_object(st, node, path);
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
	EmitState	st;

	st.buf = buf;
	st.err = err;
	st.root = root_path;
	return emit_node(&st, node, NULL);
}

/* ---------------------------------------------------------------------
 * Fast path for json text without wrappers
 * ---------------------------------------------------------------------
 */

typedef struct PlainState
{
	StringInfo	buf;
	bool	   *first;			/* per open container: no element yet */
	int			depth;
	int			cap;
	bool		failed;			/* a number BSON cannot hold */
} PlainState;

/* plain_open: write "{" or "[" and open its level */
static void
plain_open(PlainState *ps, char c)
{
	if (ps->depth == ps->cap)
	{
		ps->cap = ps->cap ? ps->cap * 2 : 32;
		ps->first = ps->first ? repalloc(ps->first, ps->cap * sizeof(bool)) :
			palloc(ps->cap * sizeof(bool));
	}
	ps->first[ps->depth++] = true;
	appendStringInfoCharMacro(ps->buf, c);
}

/*
 * jsonapi semantic actions of the fast path: each one writes its part of
 * the output (compat.h gives their return type)
 */

/* plain_object_start: "{" */
static ExwiwJsonActionResult
plain_object_start(void *state)
{
	plain_open((PlainState *) state, '{');
	return EXWIW_JSON_ACTION_DONE;
}

/* plain_array_start: "[" */
static ExwiwJsonActionResult
plain_array_start(void *state)
{
	plain_open((PlainState *) state, '[');
	return EXWIW_JSON_ACTION_DONE;
}

/* plain_object_end: "}" */
static ExwiwJsonActionResult
plain_object_end(void *state)
{
	PlainState *ps = (PlainState *) state;

	ps->depth--;
	appendStringInfoCharMacro(ps->buf, '}');
	return EXWIW_JSON_ACTION_DONE;
}

/* plain_array_end: "]" */
static ExwiwJsonActionResult
plain_array_end(void *state)
{
	PlainState *ps = (PlainState *) state;

	ps->depth--;
	appendStringInfoCharMacro(ps->buf, ']');
	return EXWIW_JSON_ACTION_DONE;
}

/* the separator before an object field or an array element */
static void
plain_separator(PlainState *ps)
{
	if (ps->first[ps->depth - 1])
		ps->first[ps->depth - 1] = false;
	else
		appendStringInfoCharMacro(ps->buf, ',');
}

/* plain_field_start: the separator, then the key and ":" */
static ExwiwJsonActionResult
plain_field_start(void *state, char *fname, bool isnull)
{
	PlainState *ps = (PlainState *) state;

	plain_separator(ps);
	exj_append_string(ps->buf, fname, strlen(fname));
	appendStringInfoCharMacro(ps->buf, ':');
	pfree(fname);
	return EXWIW_JSON_ACTION_DONE;
}

/* plain_element_start: the separator before an array element */
static ExwiwJsonActionResult
plain_element_start(void *state, bool isnull)
{
	plain_separator((PlainState *) state);
	return EXWIW_JSON_ACTION_DONE;
}

/*
 * plain_scalar: a scalar as Extended JSON; a number BSON cannot hold sets
 * failed, and the caller then takes the tree path
 */
static ExwiwJsonActionResult
plain_scalar(void *state, char *token, JsonTokenType tokentype)
{
	PlainState *ps = (PlainState *) state;
	int			len = strlen(token);
	int			i;

	switch (tokentype)
	{
		case JSON_TOKEN_STRING:
			exj_append_string(ps->buf, token, len);
			break;
		case JSON_TOKEN_NUMBER:
			for (i = 0; i < len; i++)
				if (token[i] == '.' || token[i] == 'e' || token[i] == 'E')
					break;
			if (i < len)
				exj_append_double(ps->buf, strtod(token, NULL));
			else
			{
				ExjError	err;

				if (!exj_append_int_text(ps->buf, token, len, &err))
					ps->failed = true;
			}
			break;
		default:
			/* true, false, null: the token is the literal */
			appendBinaryStringInfo(ps->buf, token, len);
			break;
	}
	pfree(token);
	return EXWIW_JSON_ACTION_DONE;
}

/*
 * exj_emit_plain_json_text
 *		Append the Relaxed Extended JSON of json text that has no wrappers,
 *		straight from the parser's events, without building a tree.
 *
 * Only text with no "$" anywhere (not even as an escape) qualifies: then no
 * object can be a wrapper or a DBRef, and the output is what exj_emit()
 * writes for its tree.  Returns false, with buf as it was, when the text
 * does not qualify or holds something to report (an integer out of range,
 * an escape that cannot be converted): the caller then takes the tree path,
 * which reports it with its path.
 */
bool
exj_emit_plain_json_text(StringInfo buf, const char *json, int len)
{
	JsonLexContext lexspace;
	JsonLexContext *lex;
	JsonSemAction sem;
	PlainState	ps;
	int			start = buf->len;
	JsonParseErrorType res;
	int			i;

	if (memchr(json, '$', len) != NULL)
		return false;
	for (i = 0; i + 5 < len; i++)
		if (json[i] == '\\' && json[i + 1] == 'u' && json[i + 2] == '0' &&
			json[i + 3] == '0' && json[i + 4] == '2' && json[i + 5] == '4')
			return false;

	memset(&ps, 0, sizeof(ps));
	ps.buf = buf;
	memset(&sem, 0, sizeof(sem));
	sem.semstate = &ps;
	sem.object_start = plain_object_start;
	sem.object_end = plain_object_end;
	sem.array_start = plain_array_start;
	sem.array_end = plain_array_end;
	sem.object_field_start = plain_field_start;
	sem.array_element_start = plain_element_start;
	sem.scalar = plain_scalar;

	lex = exwiw_json_lex_make(&lexspace, json, len, true);
	res = pg_parse_json(lex, &sem);
	exwiw_json_lex_free(lex);
	if (ps.first)
		pfree(ps.first);
	if (res != JSON_SUCCESS || ps.failed)
	{
		buf->len = start;
		buf->data[start] = '\0';
		return false;
	}
	return true;
}
