/*-------------------------------------------------------------------------
 *
 * common/extjson/parse.c
 *	  json text through PostgreSQL's own JSON parser (common/jsonapi.h):
 *	  into a document tree (exj_parse_json_text), or, for json text without
 *	  any "$", which cannot hold a wrapper, straight to the output without a
 *	  tree (exj_emit_plain_json_text).  A lexer error is reported at the
 *	  path of the token it stopped on.  Part of the frontend-buildable core
 *	  (common/extjson/extjson.h).
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#include "miscadmin.h"
#endif

#include "common/jsonapi.h"
#include "mb/pg_wchar.h"
#include "common/compat.h"
#include "common/extjson/extjson.h"

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
	ExjPathSeg *segs;
	const ExjPathSeg *leaf = NULL;
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

	segs = palloc0(sizeof(ExjPathSeg) * (depth + 1));
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
	exj_append_path(out, "$", leaf);
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
		 * (A json datum is valid JSON already; only de-escaping can
		 * exj_fail.)
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

/* plain_close: close a level and write "}" or "]" */
static void
plain_close(PlainState *ps, char c)
{
	ps->depth--;
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
	plain_close((PlainState *) state, '}');
	return EXWIW_JSON_ACTION_DONE;
}

/* plain_array_end: "]" */
static ExwiwJsonActionResult
plain_array_end(void *state)
{
	plain_close((PlainState *) state, ']');
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
