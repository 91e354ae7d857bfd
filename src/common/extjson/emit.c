/*-------------------------------------------------------------------------
 *
 * common/extjson/emit.c
 *	  The emitter's leaves, below its recursion (common/extjson/wrappers.c:
 *	  exj_emit, any value, ordinary documents and the $-wrapper rules): a
 *	  value's path, the errors that record their message and the value's
 *	  path, numbers.  The tree is written as Relaxed Extended JSON, byte for
 *	  byte as the bson gem writes it (doc/extended-json.md).  Part of the
 *	  frontend-buildable core (common/extjson/extjson.h).
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#include "miscadmin.h"
#endif

#include "common/extjson/emit.h"

/*
 * exj_append_path
 *		Append root and the steps of path, outermost first, as "$.a.b[2]":
 *		a key of letters, digits, "_" and "$" after a dot, any other key as
 *		a JSON string in brackets, an index in brackets.  A very deep path
 *		keeps its outermost 64 steps.
 */
void
exj_append_path(StringInfo s, const char *root, const ExjPathSeg *path)
{
	const ExjPathSeg *segs[64];
	int			n = 0;
	const ExjPathSeg *p;
	bool		truncated = false;

	for (p = path; p != NULL; p = p->up)
	{
		if (n == lengthof(segs))
		{
			truncated = true;
			memmove(segs, segs + 1, (n - 1) * sizeof(ExjPathSeg *));
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
 * exj_fail
 *		Record an error at path: the message and "$.a.b[2]".  Returns false,
 *		for "return exj_fail(...)".
 */
bool
exj_fail(ExjEmitState *st, const ExjPathSeg *path, ExjErrorKind kind,
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
	exj_append_path(s, st->root, path);
	return false;
}

/*
 * exj_fail_again
 *		Add the path (and a prefix) to an error a formatting function set.
 */
bool
exj_fail_again(ExjEmitState *st, const ExjPathSeg *path, const char *prefix)
{
	char		msg[sizeof(st->err->msg)];

	strlcpy(msg, st->err->msg, sizeof(msg));
	return exj_fail(st, path, st->err->kind, "%s%s", prefix, msg);
}

/*
 * exj_emit_number
 *		A plain JSON number: Integer when written without fraction and
 *		exponent (an error outside int64), else Float.
 */
bool
exj_emit_number(ExjEmitState *st, ExjNode *node, const ExjPathSeg *path)
{
	if (exj_is_integer_text(node))
	{
		if (!exj_append_int_text(st->buf, node->str, node->len, st->err))
			return exj_fail_again(st, path, "");
		return true;
	}
	exj_append_double(st->buf, strtod(node->str, NULL));
	return true;
}

/*
 * exj_is_integer_text
 *		Is a NUMBER node an integer (no fraction, no exponent)?
 */
bool
exj_is_integer_text(ExjNode *node)
{
	int			i;

	if (node->kind != EXJ_NUMBER)
		return false;
	for (i = 0; i < node->len; i++)
		if (node->str[i] == '.' || node->str[i] == 'e' || node->str[i] == 'E')
			return false;
	return true;
}
