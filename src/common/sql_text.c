/*-------------------------------------------------------------------------
 *
 * sql_text.c
 *	  The text of the dump format: literals, COPY escapes, identifiers,
 *	  and the framing of rows into INSERT statements or a COPY block.
 *
 * The rules (doc/sql-dump-format.md):
 *
 *	INSERT INTO <table> (<c1>, <c2>) VALUES
 *	('<v1>', NULL),
 *	('<v1>', '<v2>');
 *
 * every non-NULL value in single quotes with ' doubled and nothing else
 * escaped; with rows_per_statement = N a new statement (same header)
 * starts every N rows.  COPY:
 *
 *	COPY <table> (<c1>, <c2>) FROM stdin;
 *	<v1>\t<v2>
 *	\.
 *
 * with NULL as \N and only \, TAB, LF and CR escaped.  A name is written
 * bare when it matches ^[a-z_][a-z0-9_$]*$ and is not one of the words that
 * cannot stand bare as a table or column name (PostgreSQL's reserved and
 * type/function-name keywords, plus SYSTEM_USER); otherwise in double
 * quotes with each " doubled.  Unlike the Ruby client, mixed-case names are
 * quoted, so they survive the restore.
 *
 * Nothing here depends on the server: the SQL writer (dump/writer.c) turns
 * a row's values into text and frames them with these functions, and the
 * fuzz target (test/sqlwriter/fuzz/) calls the same functions built as a
 * plain program (define FRONTEND, link libpgcommon and libpgport).
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "common/sql_text.h"

/* Sorted, so that bsearch() can be used. */
static const char *const exwiw_reserved_words[] = {
	"all", "analyse", "analyze", "and", "any", "array", "as", "asc",
	"asymmetric", "authorization", "binary", "both", "case", "cast",
	"check", "collate", "collation", "column", "concurrently",
	"constraint", "create", "cross", "current_catalog", "current_date",
	"current_role", "current_schema", "current_time", "current_timestamp",
	"current_user", "default", "deferrable", "desc", "distinct", "do",
	"else", "end", "except", "false", "fetch", "for", "foreign", "freeze",
	"from", "full", "grant", "group", "having", "ilike", "in", "initially",
	"inner", "intersect", "into", "is", "isnull", "join", "lateral",
	"leading", "left", "like", "limit", "localtime", "localtimestamp",
	"natural", "not", "notnull", "null", "offset", "on", "only", "or",
	"order", "outer", "overlaps", "placing", "primary", "references",
	"returning", "right", "select", "session_user", "similar", "some",
	"symmetric", "system_user", "table", "tablesample", "then", "to",
	"trailing", "true", "union", "unique", "user", "using", "variadic",
	"verbose", "when", "where", "window", "with"
};

/*
 * bsearch comparator over the reserved word table.
 */
static int
reserved_word_cmp(const void *key, const void *elem)
{
	return strcmp((const char *) key, *(const char *const *) elem);
}

/*
 * exwiw_ident_needs_quotes
 *		True when ident must be written in double quotes.
 *
 * Only names that are entirely [a-z0-9_$], start with [a-z_] and are not a
 * reserved word are safe bare.  A word that passes the pattern is already
 * lower case, so the case-insensitive comparison the spec asks for is a
 * plain strcmp here.
 */
bool
exwiw_ident_needs_quotes(const char *ident)
{
	const char *p;

	if (ident[0] == '\0')
		return true;
	if (!((ident[0] >= 'a' && ident[0] <= 'z') || ident[0] == '_'))
		return true;
	for (p = ident; *p; p++)
	{
		char		c = *p;

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
			  c == '_' || c == '$'))
			return true;
	}
	return bsearch(ident, exwiw_reserved_words,
				   lengthof(exwiw_reserved_words),
				   sizeof(exwiw_reserved_words[0]),
				   reserved_word_cmp) != NULL;
}

/*
 * exwiw_append_quoted_ident
 *		Append ident to buf in double quotes, each '"' in it doubled.
 */
void
exwiw_append_quoted_ident(StringInfo buf, const char *ident)
{
	const char *p;

	appendStringInfoChar(buf, '"');
	for (p = ident; *p; p++)
	{
		if (*p == '"')
			appendStringInfoChar(buf, '"');
		appendStringInfoChar(buf, *p);
	}
	appendStringInfoChar(buf, '"');
}

/*
 * exwiw_append_ident
 *		Append ident to buf, quoted when the rule requires it.
 */
void
exwiw_append_ident(StringInfo buf, const char *ident)
{
	if (!exwiw_ident_needs_quotes(ident))
		appendStringInfoString(buf, ident);
	else
		exwiw_append_quoted_ident(buf, ident);
}

/*
 * exwiw_append_insert_value
 *		Append s[0..len) as a quoted SQL literal, doubling single quotes.
 */
void
exwiw_append_insert_value(StringInfo buf, const char *s, int len)
{
	const char *end = s + len;
	const char *q = memchr(s, '\'', len);
	char	   *d;

	if (q == NULL)
	{
		/* the common case: no quote inside, one reservation, one copy */
		enlargeStringInfo(buf, len + 2);
		d = buf->data + buf->len;
		d[0] = '\'';
		memcpy(d + 1, s, len);
		d[len + 1] = '\'';
		buf->len += len + 2;
		buf->data[buf->len] = '\0';
		return;
	}

	appendStringInfoCharMacro(buf, '\'');
	while (q != NULL)
	{
		/* copy through the quote, then write it once more */
		appendBinaryStringInfo(buf, s, q - s + 1);
		appendStringInfoCharMacro(buf, '\'');
		s = q + 1;
		q = memchr(s, '\'', end - s);
	}
	appendBinaryStringInfo(buf, s, end - s);
	appendStringInfoCharMacro(buf, '\'');
}

/*
 * exwiw_append_copy_value
 *		Append s[0..len) escaped for COPY text format: \\ \t \n \r only.
 */
static void
exwiw_append_copy_value(StringInfo buf, const char *s, int len)
{
	const char *start = s;
	const char *end = s + len;

	for (; s < end; s++)
	{
		char		esc;

		switch (*s)
		{
			case '\\':
				esc = '\\';
				break;
			case '\t':
				esc = 't';
				break;
			case '\n':
				esc = 'n';
				break;
			case '\r':
				esc = 'r';
				break;
			default:
				continue;
		}
		if (s > start)
			appendBinaryStringInfo(buf, start, s - start);
		appendStringInfoCharMacro(buf, '\\');
		appendStringInfoCharMacro(buf, esc);
		start = s + 1;
	}
	if (end > start)
		appendBinaryStringInfo(buf, start, end - start);
}

/*
 * exwiw_sql_escaped_length
 *		Exact length of s[0..len) once escaped as an INSERT literal (insert,
 *		quotes included) or for COPY.
 */
Size
exwiw_sql_escaped_length(const char *s, int len, bool insert)
{
	Size		n = len;
	int			i;

	if (insert)
	{
		n += 2;
		for (i = 0; i < len; i++)
			n += (s[i] == '\'');
	}
	else
	{
		for (i = 0; i < len; i++)
			n += (s[i] == '\\' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r');
	}
	return n;
}

/*
 * exwiw_sql_frame_row_start
 *		Start row rowno (0-based): the prologue before the first row, and
 *		the statement header where a statement starts (COPY: once); "(" for
 *		INSERT.
 */
void
exwiw_sql_frame_row_start(const ExwiwSqlFrame *f, StringInfo buf, uint64 rowno)
{
	Assert(f->header != NULL && f->header_len > 0);
	Assert(f->header[f->header_len - 1] == '\n');
	if (rowno == 0 && f->prologue)
		appendStringInfoString(buf, f->prologue);
	if (rowno == 0 ||
		(f->insert && f->rows_per_statement > 0 && rowno % f->rows_per_statement == 0))
		appendBinaryStringInfo(buf, f->header, f->header_len);
	if (f->insert)
		appendStringInfoCharMacro(buf, '(');
}

/*
 * exwiw_sql_frame_separator
 *		Before column i > 0 of a row: ", " (INSERT) or a TAB (COPY).
 */
void
exwiw_sql_frame_separator(const ExwiwSqlFrame *f, StringInfo buf)
{
	if (f->insert)
		appendBinaryStringInfo(buf, ", ", 2);
	else
		appendStringInfoCharMacro(buf, '\t');
}

/*
 * exwiw_sql_frame_null
 *		A NULL value: NULL (INSERT) or \N (COPY).
 */
void
exwiw_sql_frame_null(const ExwiwSqlFrame *f, StringInfo buf)
{
	if (f->insert)
		appendBinaryStringInfo(buf, "NULL", 4);
	else
		appendBinaryStringInfo(buf, "\\N", 2);
}

/*
 * exwiw_sql_frame_value
 *		A non-NULL value s[0..len), in the format's escaping.
 */
void
exwiw_sql_frame_value(const ExwiwSqlFrame *f, StringInfo buf, const char *s, int len)
{
	if (f->insert)
		exwiw_append_insert_value(buf, s, len);
	else
		exwiw_append_copy_value(buf, s, len);
}

/*
 * exwiw_sql_frame_row_end
 *		End a row: ")" for INSERT.
 */
void
exwiw_sql_frame_row_end(const ExwiwSqlFrame *f, StringInfo buf)
{
	if (f->insert)
		appendStringInfoCharMacro(buf, ')');
}

/*
 * end_statement
 *		End an INSERT statement: its ON CONFLICT clause, if any, on a line of
 *		its own, then ";".
 */
static void
end_statement(const ExwiwSqlFrame *f, StringInfo buf)
{
	if (f->conflict)
	{
		appendStringInfoCharMacro(buf, '\n');
		appendStringInfoString(buf, f->conflict);
	}
	appendStringInfoCharMacro(buf, ';');
}

/*
 * exwiw_sql_frame_between
 *		End the previous row when row next_rowno follows: "," inside an
 *		INSERT statement, ";" when the next row starts a new statement;
 *		nothing for COPY.  The newline is the stream's (between chunks, the
 *		consumer's).
 */
void
exwiw_sql_frame_between(const ExwiwSqlFrame *f, StringInfo buf, uint64 next_rowno)
{
	if (!f->insert)
		return;
	if (f->rows_per_statement > 0 && next_rowno % f->rows_per_statement == 0)
		end_statement(f, buf);
	else
		appendStringInfoCharMacro(buf, ',');
}

/*
 * exwiw_sql_frame_finish
 *		End the output after the last row: ";" for INSERT, the "\." line
 *		for COPY; then the epilogue's lines, if any.
 */
void
exwiw_sql_frame_finish(const ExwiwSqlFrame *f, StringInfo buf)
{
	if (f->insert)
		end_statement(f, buf);
	else
		appendStringInfoString(buf, "\n\\.");
	if (f->epilogue)
	{
		appendStringInfoCharMacro(buf, '\n');
		appendStringInfoString(buf, f->epilogue);
	}
}
