/*-------------------------------------------------------------------------
 *
 * json.c
 *	  A small JSON tree for the schema config files: parsed with
 *	  libpgcommon's JSON lexer and parser (the server's own), printed as
 *	  Ruby's JSON.pretty_generate prints it.
 *
 * The client reads the schema files to check them before anything is sent
 * (a file that is not JSON is an error that names it and the line), to
 * join them into the one array the server takes, and to write and compare
 * them (schema generate, check, tidy).  Object members keep their order;
 * numbers keep their text.
 *
 * Printing follows Ruby's JSON.pretty_generate: two spaces per level,
 * "key": value, one array element or member per line, [] and {} when
 * empty; strings escape '"', '\\' and control characters (\b \f \n \r \t,
 * others as \u00xx) and nothing else.
 *
 *-------------------------------------------------------------------------
 */
#include "cli.h"

#include "../../src/common/compat.h"

#include "common/jsonapi.h"
#include "mb/pg_wchar.h"

/* The parser's state: the open containers, and the pending member name. */
typedef struct JsonBuild
{
	JsonValue **stack;
	int			depth;
	int			cap;
	char	   *pending_key;
	JsonValue  *root;
} JsonBuild;

/*
 * json_new
 *		A new value of the given kind (str: a scalar's text, or NULL).
 */
JsonValue *
json_new(JsonKind kind, const char *str)
{
	JsonValue  *v = pg_malloc0(sizeof(JsonValue));

	v->kind = kind;
	v->str = str ? pg_strdup(str) : NULL;
	return v;
}

/*
 * grow
 *		Room for one more member or element.
 */
static void
grow(JsonValue *c)
{
	if (c->n < c->cap)
		return;
	c->cap = c->cap ? c->cap * 2 : 8;
	c->items = pg_realloc(c->items, sizeof(JsonValue *) * c->cap);
	if (c->kind == JV_OBJECT)
		c->keys = pg_realloc(c->keys, sizeof(char *) * c->cap);
}

/*
 * json_append
 *		Add v at the end of array arr.
 */
void
json_append(JsonValue *arr, JsonValue *v)
{
	Assert(arr->kind == JV_ARRAY);
	grow(arr);
	arr->items[arr->n++] = v;
}

/*
 * json_set
 *		Set member key of obj to v (replacing it in place, or at the end).
 */
void
json_set(JsonValue *obj, const char *key, JsonValue *v)
{
	int			i;

	Assert(obj->kind == JV_OBJECT);
	for (i = 0; i < obj->n; i++)
	{
		if (strcmp(obj->keys[i], key) == 0)
		{
			obj->items[i] = v;
			return;
		}
	}
	grow(obj);
	obj->keys[obj->n] = pg_strdup(key);
	obj->items[obj->n++] = v;
}

/*
 * json_remove
 *		Remove member key of obj, if there.
 */
void
json_remove(JsonValue *obj, const char *key)
{
	int			i;

	for (i = 0; i < obj->n; i++)
	{
		if (strcmp(obj->keys[i], key) == 0)
		{
			memmove(&obj->keys[i], &obj->keys[i + 1], sizeof(char *) * (obj->n - i - 1));
			memmove(&obj->items[i], &obj->items[i + 1], sizeof(JsonValue *) * (obj->n - i - 1));
			obj->n--;
			return;
		}
	}
}

/*
 * json_get
 *		Member key of obj, or NULL (also when obj is not an object).
 */
JsonValue *
json_get(const JsonValue *obj, const char *key)
{
	int			i;

	if (obj == NULL || obj->kind != JV_OBJECT)
		return NULL;
	for (i = 0; i < obj->n; i++)
		if (strcmp(obj->keys[i], key) == 0)
			return obj->items[i];
	return NULL;
}

/*
 * json_get_string
 *		Member key of obj when it is a string, else NULL.
 */
const char *
json_get_string(const JsonValue *obj, const char *key)
{
	JsonValue  *v = json_get(obj, key);

	return (v && v->kind == JV_STRING) ? v->str : NULL;
}

/*
 * json_truthy
 *		Ruby's truthiness: anything but null and false.
 */
bool
json_truthy(const JsonValue *v)
{
	if (v == NULL || v->kind == JV_NULL)
		return false;
	if (v->kind == JV_BOOL && strcmp(v->str, "false") == 0)
		return false;
	return true;
}

/*
 * json_copy
 *		A deep copy.
 */
JsonValue *
json_copy(const JsonValue *v)
{
	JsonValue  *c = json_new(v->kind, v->str);
	int			i;

	for (i = 0; i < v->n; i++)
	{
		if (v->kind == JV_OBJECT)
			json_set(c, v->keys[i], json_copy(v->items[i]));
		else
			json_append(c, json_copy(v->items[i]));
	}
	return c;
}

/*
 * json_equal
 *		Equal as parsed JSON: same kinds and values; object members compared
 *		by name whatever their order; numbers by their value's text.
 */
bool
json_equal(const JsonValue *a, const JsonValue *b)
{
	int			i;

	if (a->kind != b->kind)
		return false;
	switch (a->kind)
	{
		case JV_NULL:
			return true;
		case JV_BOOL:
		case JV_STRING:
			return strcmp(a->str, b->str) == 0;
		case JV_NUMBER:
			return strcmp(a->str, b->str) == 0 || strtod(a->str, NULL) == strtod(b->str, NULL);
		case JV_ARRAY:
			if (a->n != b->n)
				return false;
			for (i = 0; i < a->n; i++)
				if (!json_equal(a->items[i], b->items[i]))
					return false;
			return true;
		case JV_OBJECT:
			if (a->n != b->n)
				return false;
			for (i = 0; i < a->n; i++)
			{
				JsonValue  *o = json_get(b, a->keys[i]);

				if (o == NULL || !json_equal(a->items[i], o))
					return false;
			}
			return true;
	}
	return false;
}

/*
 * json_reorder
 *		A shallow copy of obj with the members named in order (a NULL-
 *		terminated list) first, in that order, then the others as they were.
 */
JsonValue *
json_reorder(const JsonValue *obj, const char *const *order)
{
	JsonValue  *r = json_new(JV_OBJECT, NULL);
	const char *const *k;
	int			i;

	for (k = order; *k; k++)
	{
		JsonValue  *v = json_get(obj, *k);

		if (v)
			json_set(r, *k, v);
	}
	for (i = 0; i < obj->n; i++)
		if (json_get(r, obj->keys[i]) == NULL)
			json_set(r, obj->keys[i], obj->items[i]);
	return r;
}

/* ---- parsing ---- */

/*
 * add_value
 *		Attach a parsed value to the open container, or make it the root.
 */
static void
add_value(JsonBuild *b, JsonValue *v)
{
	if (b->depth == 0)
		b->root = v;
	else
	{
		JsonValue  *top = b->stack[b->depth - 1];

		if (top->kind == JV_OBJECT)
		{
			json_set(top, b->pending_key, v);
			pg_free(b->pending_key);
			b->pending_key = NULL;
		}
		else
			json_append(top, v);
	}
}

/*
 * push
 *		Open a container.
 */
static void
push(JsonBuild *b, JsonKind kind)
{
	JsonValue  *v = json_new(kind, NULL);

	add_value(b, v);
	if (b->depth == b->cap)
	{
		b->cap = b->cap ? b->cap * 2 : 16;
		b->stack = pg_realloc(b->stack, sizeof(JsonValue *) * b->cap);
	}
	b->stack[b->depth++] = v;
}

/*
 * The semantic actions: build the tree.
 */
static ExwiwJsonActionResult
sem_object_start(void *state)
{
	push(state, JV_OBJECT);
	return EXWIW_JSON_ACTION_DONE;
}

static ExwiwJsonActionResult
sem_array_start(void *state)
{
	push(state, JV_ARRAY);
	return EXWIW_JSON_ACTION_DONE;
}

static ExwiwJsonActionResult
sem_end(void *state)
{
	((JsonBuild *) state)->depth--;
	return EXWIW_JSON_ACTION_DONE;
}

static ExwiwJsonActionResult
sem_field_start(void *state, char *fname, bool isnull)
{
	((JsonBuild *) state)->pending_key = pg_strdup(fname);
	return EXWIW_JSON_ACTION_DONE;
}

static ExwiwJsonActionResult
sem_scalar(void *state, char *token, JsonTokenType type)
{
	JsonKind	kind;

	switch (type)
	{
		case JSON_TOKEN_STRING:
			kind = JV_STRING;
			break;
		case JSON_TOKEN_NUMBER:
			kind = JV_NUMBER;
			break;
		case JSON_TOKEN_TRUE:
		case JSON_TOKEN_FALSE:
			kind = JV_BOOL;
			break;
		default:
			kind = JV_NULL;
			break;
	}
	add_value(state, json_new(kind, kind == JV_NULL ? NULL : token));
	return EXWIW_JSON_ACTION_DONE;
}

/*
 * json_error_text
 *		The parser's error as the server words it (libpgcommon does not
 *		export json_errdetail() to frontend programs in PostgreSQL 15).
 */
static char *
json_error_text(JsonParseErrorType rc, JsonLexContext *lex)
{
	int			toklen = lex->token_terminator && lex->token_start ?
		(int) (lex->token_terminator - lex->token_start) : 0;
	const char *tok = lex->token_start ? lex->token_start : "";

	switch (rc)
	{
		case JSON_ESCAPING_INVALID:
			return psprintf("Escape sequence \"\\%.*s\" is invalid.", toklen, tok);
		case JSON_ESCAPING_REQUIRED:
			return psprintf("Character with value 0x%02x must be escaped.",
							(unsigned char) *(lex->token_terminator));
		case JSON_EXPECTED_END:
			return psprintf("Expected end of input, but found \"%.*s\".", toklen, tok);
		case JSON_EXPECTED_ARRAY_FIRST:
			return psprintf("Expected array element or \"]\", but found \"%.*s\".", toklen, tok);
		case JSON_EXPECTED_ARRAY_NEXT:
			return psprintf("Expected \",\" or \"]\", but found \"%.*s\".", toklen, tok);
		case JSON_EXPECTED_COLON:
			return psprintf("Expected \":\", but found \"%.*s\".", toklen, tok);
		case JSON_EXPECTED_JSON:
			return psprintf("Expected JSON value, but found \"%.*s\".", toklen, tok);
		case JSON_EXPECTED_MORE:
			return pg_strdup("The input string ended unexpectedly.");
		case JSON_EXPECTED_OBJECT_FIRST:
			return psprintf("Expected string or \"}\", but found \"%.*s\".", toklen, tok);
		case JSON_EXPECTED_OBJECT_NEXT:
			return psprintf("Expected \",\" or \"}\", but found \"%.*s\".", toklen, tok);
		case JSON_EXPECTED_STRING:
			return psprintf("Expected string, but found \"%.*s\".", toklen, tok);
		case JSON_INVALID_TOKEN:
			return psprintf("Token \"%.*s\" is invalid.", toklen, tok);
		case JSON_UNICODE_CODE_POINT_ZERO:
			return pg_strdup("\\u0000 cannot be converted to text.");
		case JSON_UNICODE_ESCAPE_FORMAT:
			return pg_strdup("\"\\u\" must be followed by four hexadecimal digits.");
		case JSON_UNICODE_HIGH_ESCAPE:
			return pg_strdup("Unicode escape values cannot be used for code point values above 007F when the encoding is not UTF8.");
		case JSON_UNICODE_HIGH_SURROGATE:
			return pg_strdup("Unicode high surrogate must not follow a high surrogate.");
		case JSON_UNICODE_LOW_SURROGATE:
			return pg_strdup("Unicode low surrogate must follow a high surrogate.");
		default:
			return pg_strdup("invalid JSON");
	}
}

/*
 * too_deep
 *		Whether arrays and objects nest deeper than JSON_MAX_DEPTH in buf
 *		(brackets outside strings counted; the parser judges the rest), and
 *		the line where they do.  pg_parse_json() recurses once per level,
 *		and a frontend program has no stack depth check: a schema file of
 *		[[[[... would crash the client.  The configs nest a few levels.
 */
#define JSON_MAX_DEPTH 1000

static bool
too_deep(const char *buf, size_t len, int *line)
{
	const char *p;
	const char *end = buf + len;
	int			depth = 0;
	bool		instr = false;

	*line = 1;
	for (p = buf; p < end; p++)
	{
		if (*p == '\n')
			(*line)++;
		else if (instr)
		{
			if (*p == '\\' && p + 1 < end)
				p++;
			else if (*p == '"')
				instr = false;
		}
		else if (*p == '"')
			instr = true;
		else if (*p == '[' || *p == '{')
		{
			if (++depth > JSON_MAX_DEPTH)
				return true;
		}
		else if (*p == ']' || *p == '}')
			depth--;
	}
	return false;
}

/*
 * json_parse
 *		Parse text (UTF-8); NULL and *errmsg ("line N: ...") on error.
 */
JsonValue *
json_parse(const char *text, size_t len, char **errmsg)
{
	JsonLexContext lexspace;
	JsonLexContext *lex;
	JsonSemAction sem = {0};
	JsonBuild	b = {0};
	JsonParseErrorType rc;
	int			line;

	if (too_deep(text, len, &line))
	{
		*errmsg = psprintf("line %d: arrays and objects nest deeper than %d levels.",
						   line, JSON_MAX_DEPTH);
		return NULL;
	}
	lex = exwiw_json_lex_make(&lexspace, text, (int) len, true);
	sem.semstate = &b;
	sem.object_start = sem_object_start;
	sem.object_end = sem_end;
	sem.array_start = sem_array_start;
	sem.array_end = sem_end;
	sem.object_field_start = sem_field_start;
	sem.scalar = sem_scalar;
	rc = pg_parse_json(lex, &sem);
	if (rc != JSON_SUCCESS)
	{
		*errmsg = psprintf("line %d: %s", lex->line_number, json_error_text(rc, lex));
		exwiw_json_lex_free(lex);
		return NULL;
	}
	exwiw_json_lex_free(lex);
	return b.root;
}

/* ---- printing ---- */

/*
 * print_string
 *		A JSON string, escaped as Ruby's JSON generator does.
 */
static void
print_string(StringInfo out, const char *s)
{
	const unsigned char *p;

	appendStringInfoChar(out, '"');
	for (p = (const unsigned char *) s; *p; p++)
	{
		switch (*p)
		{
			case '"':
				appendStringInfoString(out, "\\\"");
				break;
			case '\\':
				appendStringInfoString(out, "\\\\");
				break;
			case '\b':
				appendStringInfoString(out, "\\b");
				break;
			case '\f':
				appendStringInfoString(out, "\\f");
				break;
			case '\n':
				appendStringInfoString(out, "\\n");
				break;
			case '\r':
				appendStringInfoString(out, "\\r");
				break;
			case '\t':
				appendStringInfoString(out, "\\t");
				break;
			default:
				if (*p < 0x20)
					appendStringInfo(out, "\\u%04x", *p);
				else
					appendStringInfoChar(out, (char) *p);
		}
	}
	appendStringInfoChar(out, '"');
}

/*
 * print_value
 *		One value; indent < 0 prints compactly.
 */
static void
print_value(StringInfo out, const JsonValue *v, int indent)
{
	int			i;

	switch (v->kind)
	{
		case JV_NULL:
			appendStringInfoString(out, "null");
			return;
		case JV_BOOL:
		case JV_NUMBER:
			appendStringInfoString(out, v->str);
			return;
		case JV_STRING:
			print_string(out, v->str);
			return;
		case JV_ARRAY:
		case JV_OBJECT:
			break;
	}
	if (v->n == 0)
	{
		appendStringInfoString(out, v->kind == JV_ARRAY ? "[]" : "{}");
		return;
	}
	appendStringInfoChar(out, v->kind == JV_ARRAY ? '[' : '{');
	for (i = 0; i < v->n; i++)
	{
		if (i > 0)
			appendStringInfoChar(out, ',');
		if (indent >= 0)
			appendStringInfo(out, "\n%*s", (indent + 1) * 2, "");
		if (v->kind == JV_OBJECT)
		{
			print_string(out, v->keys[i]);
			appendStringInfoString(out, indent >= 0 ? ": " : ":");
		}
		print_value(out, v->items[i], indent >= 0 ? indent + 1 : -1);
	}
	if (indent >= 0)
		appendStringInfo(out, "\n%*s", indent * 2, "");
	appendStringInfoChar(out, v->kind == JV_ARRAY ? ']' : '}');
}

/*
 * json_print_pretty
 *		As Ruby's JSON.pretty_generate (no final newline).
 */
void
json_print_pretty(StringInfo out, const JsonValue *v)
{
	print_value(out, v, 0);
}

/*
 * json_print_compact
 *		Without any whitespace.
 */
void
json_print_compact(StringInfo out, const JsonValue *v)
{
	print_value(out, v, -1);
}
