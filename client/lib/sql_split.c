/*-------------------------------------------------------------------------
 *
 * sql_split.c
 *	  The statements of an SQL file, one at a time, as psql would send
 *	  them, for exwiw load (load.c).
 *
 * The file is read in blocks; split_next returns its next statement, and
 * after a COPY ... FROM stdin, split_copy_data hands its data lines on.
 * A statement ends at a semicolon outside quotes, comments and
 * parentheses (and, in CREATE FUNCTION or PROCEDURE, outside BEGIN ...
 * END: a body of the SQL standard, BEGIN ATOMIC).  The scanner honours:
 *
 *	'...' strings, '' inside; with standard_conforming_strings off, a
 *	backslash escapes the next character, as in E'...' strings always;
 *	"..." identifiers, "" inside; $tag$...$tag$ dollar quotes; -- and
 *	(nested) slash-star comments;
 *
 * and, everywhere, the client encoding of the session the statements go
 * to: a multibyte character is one unit (PQmblen), so that in SJIS, BIG5,
 * GBK, GB18030 and UHC a trail byte that happens to be 0x5c or 0x27 is
 * never read as a backslash or a quote.  The caller sets the encoding and
 * standard_conforming_strings before each statement, from the session
 * (the file's own SET lines change them).
 *
 * psql's meta-commands are not run, ever: a backslash outside a quote is
 * an error, except pg_dump's "\restrict KEY" and "\unrestrict KEY" lines
 * (they only forbid other meta-commands, which this reader never runs),
 * which are skipped.  psql's :variables are not interpolated (psql leaves
 * an unset one as it is, and exwiw's files set none).
 *
 *-------------------------------------------------------------------------
 */
#include "cli.h"

#include <fcntl.h>
#include <unistd.h>

#include "mb/pg_wchar.h"

#define SPLIT_BLOCK		(1024 * 1024)

/* the longest word the scanner keeps (keywords it looks at are short) */
#define SPLIT_WORD_MAX	16

static bool split_error(SqlSplitter *s, int line, const char *fmt,...) pg_attribute_printf(3, 4);

/*
 * split_open
 *		A splitter reading path (decompressed as its name says: ".gz",
 *		".zst"; file_reader.c); NULL with errno set when it cannot be
 *		opened.
 */
SqlSplitter *
split_open(const char *path)
{
	SqlSplitter *s;
	FileReader *reader = reader_open(path);

	if (reader == NULL)
		return NULL;
	s = pg_malloc0(sizeof(SqlSplitter));
	s->reader = reader;
	s->path = pg_strdup(path);
	s->cap = SPLIT_BLOCK * 2;
	s->buf = pg_malloc(s->cap + 1);
	s->line = 1;
	s->encoding = PG_SQL_ASCII;
	s->std_strings = true;
	return s;
}

/*
 * split_close
 *		Close the file and free the splitter.
 */
void
split_close(SqlSplitter *s)
{
	if (s == NULL)
		return;
	reader_close(s->reader);
	pg_free(s->buf);
	pg_free(s->path);
	pg_free(s->errmsg);
	pg_free(s);
}

/*
 * split_error
 *		Remember the error message (at line) and return false.
 */
static bool
split_error(SqlSplitter *s, int line, const char *fmt,...)
{
	va_list		ap;
	char		msg[512];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pg_free(s->errmsg);
	s->errmsg = pg_strdup(msg);
	s->errline = line;
	return false;
}

/*
 * split_compact
 *		Drop the bytes before pos (returned or sent already).
 */
static void
split_compact(SqlSplitter *s)
{
	if (s->pos == 0)
		return;
	memmove(s->buf, s->buf + s->pos, s->len - s->pos);
	s->len -= s->pos;
	s->pos = 0;
}

/*
 * split_fill
 *		Read more of the file after the len bytes held, growing the buffer
 *		when it is full.  False at the end of the file (eof set) or on a
 *		read error (errmsg set).
 */
static bool
split_fill(SqlSplitter *s)
{
	ssize_t		n;

	if (s->eof)
		return false;
	if (s->cap - s->len < SPLIT_BLOCK)
	{
		s->cap = Max(s->cap * 2, s->len + SPLIT_BLOCK);
		s->buf = pg_realloc(s->buf, s->cap + 1);
	}
	n = reader_read(s->reader, s->buf + s->len, s->cap - s->len);
	if (n < 0)
	{
		s->read_failed = true;
		split_error(s, s->line, "%s", reader_error(s->reader));
		s->eof = true;
		return false;
	}
	if (n == 0)
	{
		s->eof = true;
		return false;
	}
	s->len += n;
	s->buf[s->len] = '\0';
	s->bytes_read += n;
	return true;
}

/*
 * split_have
 *		Whether the n bytes from offset i are in the buffer (reading more
 *		as needed); false only at the end of the file.
 */
static inline bool
split_have(SqlSplitter *s, size_t i, size_t n)
{
	while (i + n > s->len)
	{
		if (!split_fill(s))
			return false;
	}
	return true;
}

/*
 * char_len
 *		The length of the character at offset i in the session's encoding:
 *		1 for ASCII, else PQmblen's, cut at the end of the file.
 */
static inline size_t
char_len(SqlSplitter *s, size_t i)
{
	int			l;

	if ((unsigned char) s->buf[i] < 0x80)
		return 1;
	/* PQmblen may look at the bytes after the first: have them */
	(void) split_have(s, i, 4);
	l = PQmblen(s->buf + i, s->encoding);
	if (l < 1)
		l = 1;
	if (i + l > s->len)
		l = s->len - i;
	return l;
}

/*
 * is_ident_start / is_ident_char
 *		An identifier's first and later bytes, as the SQL lexer reads them
 *		(any byte of 0x80 or more is a letter).
 */
static inline bool
is_ident_start(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

static inline bool
is_ident_char(unsigned char c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9') || c == '$';
}

/*
 * dollar_tag_len
 *		At a '$' at offset i (not inside an identifier): the length of the
 *		dollar-quote opening tag there ($$ or $tag$), or 0 when it is not
 *		one (a parameter $1, or a lone $).
 */
static size_t
dollar_tag_len(SqlSplitter *s, size_t i)
{
	size_t		j = i + 1;

	if (!split_have(s, j, 1))
		return 0;
	if (s->buf[j] == '$')
		return 2;
	if (!is_ident_start((unsigned char) s->buf[j]))
		return 0;
	for (;;)
	{
		if (!split_have(s, j, 1))
			return 0;
		if (s->buf[j] == '$')
			return j - i + 1;
		if (!is_ident_char((unsigned char) s->buf[j]) || s->buf[j] == '$')
			return 0;
		j++;
	}
}

/*
 * note_word
 *		A word outside quotes: remember what the loader asks about (the
 *		first word, whether "ON CONFLICT" occurs, the last two words) and
 *		follow BEGIN (or CASE) ... END in CREATE FUNCTION or PROCEDURE.
 */
static void
note_word(SqlSplitter *s, SqlStatement *st, const char *w, size_t len)
{
	char		word[SPLIT_WORD_MAX + 1];
	size_t		i;

	len = Min(len, SPLIT_WORD_MAX);
	for (i = 0; i < len; i++)
		word[i] = pg_ascii_tolower((unsigned char) w[i]);
	word[len] = '\0';

	st->nwords++;
	if (st->nwords == 1)
		strlcpy(st->first_word, word, sizeof(st->first_word));
	if (strcmp(word, "conflict") == 0 && strcmp(s->last_word, "on") == 0)
		st->has_on_conflict = true;
	/* CREATE [OR REPLACE] FUNCTION|PROCEDURE: its body may be BEGIN ATOMIC */
	if (st->nwords <= 4 && strcmp(st->first_word, "create") == 0 &&
		(strcmp(word, "function") == 0 || strcmp(word, "procedure") == 0))
		st->is_routine = true;
	if (st->is_routine)
	{
		if (strcmp(word, "begin") == 0 || strcmp(word, "case") == 0)
			s->begin_depth++;
		else if (strcmp(word, "end") == 0 && s->begin_depth > 0)
			s->begin_depth--;
	}
	strlcpy(s->prev_word, s->last_word, sizeof(s->prev_word));
	strlcpy(s->last_word, word, sizeof(s->last_word));
}

/*
 * skip_meta_command
 *		A backslash outside a quote at offset i, the statement empty so
 *		far: pg_dump's \restrict and \unrestrict lines are skipped (to the
 *		end of the line); anything else is refused.  The offset after the
 *		line, or 0 with the error set.
 */
static size_t
skip_meta_command(SqlSplitter *s, size_t i, bool stmt_empty)
{
	size_t		j = i + 1;
	size_t		wlen;

	/* the command's name: up to a blank, as psql reads it */
	while (split_have(s, j, 1) && !isspace((unsigned char) s->buf[j]))
		j++;
	wlen = j - i - 1;
	if (stmt_empty &&
		((wlen == 8 && strncmp(s->buf + i + 1, "restrict", 8) == 0) ||
		 (wlen == 10 && strncmp(s->buf + i + 1, "unrestrict", 10) == 0)))
	{
		while (split_have(s, j, 1) && s->buf[j] != '\n')
			j++;
		return j;
	}
	split_error(s, s->line, "psql meta-command \"\\%.*s\" is not supported: exwiw load runs SQL statements only",
				(int) Min(wlen, 30), s->buf + i + 1);
	return 0;
}

/*
 * split_next
 *		The next statement, into st (its text without the semicolon, valid
 *		until the next call; its first line; its words).  SPLIT_END at the
 *		end of the file, SPLIT_ERROR with errmsg and errline set (an
 *		unsupported meta-command, the file ending inside a statement, a
 *		read error).  Reads in the encoding and with the
 *		standard_conforming_strings of s, which the caller keeps up to date.
 */
SplitResult
split_next(SqlSplitter *s, SqlStatement *st)
{
	size_t		i;
	size_t		start = 0;		/* the first byte of the statement's text */
	bool		started = false;
	int			depth = 0;

	split_compact(s);
	memset(st, 0, sizeof(*st));
	s->begin_depth = 0;
	s->last_word[0] = s->prev_word[0] = '\0';
	i = s->pos;

	for (;;)
	{
		unsigned char c;

		if (!split_have(s, i, 1))
		{
			if (s->read_failed)
				return SPLIT_ERROR;
			if (started)
			{
				split_error(s, st->line, "the file ends inside a statement that starts at line %d (no terminating semicolon)",
							st->line);
				return SPLIT_ERROR;
			}
			s->pos = i;
			return SPLIT_END;
		}
		c = (unsigned char) s->buf[i];

		if (c == '\n')
		{
			s->line++;
			i++;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v')
		{
			i++;
			continue;
		}
		/* -- comment, to the end of the line */
		if (c == '-' && split_have(s, i, 2) && s->buf[i + 1] == '-')
		{
			while (split_have(s, i, 1) && s->buf[i] != '\n')
				i += char_len(s, i);
			continue;
		}
		/* slash-star comment, nested */
		if (c == '/' && split_have(s, i, 2) && s->buf[i + 1] == '*')
		{
			int			nest = 1;
			int			from = s->line;

			i += 2;
			while (nest > 0)
			{
				if (!split_have(s, i, 1))
				{
					split_error(s, from, "the file ends inside a comment that starts at line %d", from);
					return SPLIT_ERROR;
				}
				if (s->buf[i] == '*' && split_have(s, i, 2) && s->buf[i + 1] == '/')
					nest--, i += 2;
				else if (s->buf[i] == '/' && split_have(s, i, 2) && s->buf[i + 1] == '*')
					nest++, i += 2;
				else
				{
					if (s->buf[i] == '\n')
						s->line++;
					i += char_len(s, i);
				}
			}
			continue;
		}
		if (c == '\\')
		{
			size_t		after = skip_meta_command(s, i, !started);

			if (after == 0)
				return SPLIT_ERROR;
			i = after;
			continue;
		}

		/* a token: the statement starts here */
		if (!started)
		{
			started = true;
			start = i;
			st->line = s->line;
		}

		if (c == ';' && depth <= 0 && s->begin_depth == 0)
		{
			st->text = s->buf + start;
			st->len = i - start;
			s->buf[i] = '\0';	/* the text is a C string (no ';') */
			s->pos = i + 1;
			st->end_line = s->line;
			st->is_copy_from_stdin = (strcmp(st->first_word, "copy") == 0 &&
									  strcmp(s->prev_word, "from") == 0 &&
									  strcmp(s->last_word, "stdin") == 0);
			return SPLIT_STATEMENT;
		}
		if (c == '(')
		{
			/* a tuple of an INSERT: one row, for the progress display */
			if (depth == 0 && (i == 0 || s->buf[i - 1] == '\n'))
				st->rows++;
			depth++;
			i++;
			continue;
		}
		if (c == ')')
		{
			depth--;
			i++;
			continue;
		}
		if (c == '\'' || ((c == 'E' || c == 'e') && split_have(s, i, 2) && s->buf[i + 1] == '\'' &&
						  (i == start || !is_ident_char((unsigned char) s->buf[i - 1]))))
		{
			bool		backslash = (c != '\'') || !s->std_strings;
			int			from = s->line;

			i += (c == '\'') ? 1 : 2;
			for (;;)
			{
				if (!split_have(s, i, 1))
				{
					split_error(s, from, "the file ends inside a quoted string that starts at line %d", from);
					return SPLIT_ERROR;
				}
				if (s->buf[i] == '\'')
				{
					if (split_have(s, i, 2) && s->buf[i + 1] == '\'')
					{
						i += 2;
						continue;
					}
					i++;
					break;
				}
				if (s->buf[i] == '\\' && backslash)
				{
					i++;
					if (!split_have(s, i, 1))
						continue;
				}
				if (s->buf[i] == '\n')
					s->line++;
				i += char_len(s, i);
			}
			continue;
		}
		if (c == '"')
		{
			int			from = s->line;

			i++;
			for (;;)
			{
				if (!split_have(s, i, 1))
				{
					split_error(s, from, "the file ends inside a quoted identifier that starts at line %d", from);
					return SPLIT_ERROR;
				}
				if (s->buf[i] == '"')
				{
					if (split_have(s, i, 2) && s->buf[i + 1] == '"')
					{
						i += 2;
						continue;
					}
					i++;
					break;
				}
				if (s->buf[i] == '\n')
					s->line++;
				i += char_len(s, i);
			}
			continue;
		}
		if (c == '$' && (i == start || !is_ident_char((unsigned char) s->buf[i - 1])))
		{
			size_t		taglen = dollar_tag_len(s, i);

			if (taglen > 0)
			{
				size_t		tagpos = i;
				int			from = s->line;

				i += taglen;
				for (;;)
				{
					if (!split_have(s, i, 1))
					{
						split_error(s, from, "the file ends inside a dollar-quoted string that starts at line %d", from);
						return SPLIT_ERROR;
					}
					if (s->buf[i] == '$' && split_have(s, i, taglen) &&
						memcmp(s->buf + i, s->buf + tagpos, taglen) == 0)
					{
						i += taglen;
						break;
					}
					if (s->buf[i] == '\n')
						s->line++;
					i += char_len(s, i);
				}
				continue;
			}
		}
		if (is_ident_start(c))
		{
			size_t		w = i;

			while (split_have(s, i, 1) && is_ident_char((unsigned char) s->buf[i]))
			{
				/* a multibyte letter is one unit, its trail bytes too */
				i += char_len(s, i);
			}
			note_word(s, st, s->buf + w, i - w);
			continue;
		}
		i += char_len(s, i);
	}
}

/*
 * split_copy_data
 *		After a COPY ... FROM stdin statement: its data, the lines up to the
 *		line "\.", handed to send(data, len, arg) in blocks of whole lines
 *		(without the "\." line).  The rest of the statement's line must be
 *		blank.  *rows is the number of data lines; *first_line the file's
 *		line of the first one.  False with errmsg set when the file ends
 *		first or send fails (send returns false; errmsg is then its own).
 */
bool
split_copy_data(SqlSplitter *s, bool (*send) (const char *data, size_t len, void *arg),
				void *arg, long *rows, int *first_line)
{
	size_t		i = s->pos;
	size_t		block = s->pos;

	*rows = 0;
	/* the rest of the COPY line */
	for (;;)
	{
		if (!split_have(s, i, 1))
			return s->read_failed ? false :
				split_error(s, s->line, "the file ends before the data of the COPY statement");
		if (s->buf[i] == '\n')
			break;
		if (s->buf[i] != ' ' && s->buf[i] != '\t' && s->buf[i] != '\r')
			return split_error(s, s->line, "text after \"FROM stdin;\" on the line of a COPY statement is not supported");
		i++;
	}
	i++;
	s->line++;
	*first_line = s->line;
	s->pos = block = i;

	for (;;)
	{
		char	   *nl;
		size_t		l;

		/* a whole line: LF is never a trail byte of a client encoding */
		while ((nl = memchr(s->buf + i, '\n', s->len - i)) == NULL)
		{
			/* send what is complete, keep the partial line */
			if (i > block)
			{
				if (!send(s->buf + block, i - block, arg))
					return false;
				s->pos = block = i;
			}
			split_compact(s);
			i = s->pos;
			block = s->pos;
			if (!split_fill(s))
			{
				if (s->read_failed)
					return false;
				/* "\." as the last line, with no newline */
				if (s->len - i == 2 && s->buf[i] == '\\' && s->buf[i + 1] == '.')
				{
					s->pos = s->len;
					return true;
				}
				return split_error(s, s->line, "the file ends inside the data of a COPY statement (no \"\\.\" line)");
			}
		}
		l = nl - (s->buf + i);
		if ((l == 2 || (l == 3 && s->buf[i + 2] == '\r')) &&
			s->buf[i] == '\\' && s->buf[i + 1] == '.')
		{
			if (i > block && !send(s->buf + block, i - block, arg))
				return false;
			s->pos = i + l + 1;
			s->line++;
			return true;
		}
		(*rows)++;
		s->line++;
		i += l + 1;
		if (i - block >= SPLIT_BLOCK)
		{
			if (!send(s->buf + block, i - block, arg))
				return false;
			s->pos = block = i;
		}
	}
}

/*
 * split_line_at
 *		The file line of the character at 1-based position pos (the
 *		server's error position, in characters) of a statement st read in
 *		encoding; st's first line when pos is out of range.
 */
int
split_line_at(const SqlStatement *st, const char *text, size_t len,
			  int encoding, int pos)
{
	size_t		i = 0;
	int			line = st->line;
	int			n = 1;

	if (pos < 1)
		return st->line;
	while (i < len && n < pos)
	{
		int			l = ((unsigned char) text[i] < 0x80) ? 1 : PQmblen(text +i, encoding);

		if (text[i] == '\n')
			line++;
		i += Max(l, 1);
		n++;
	}
	return line;
}

/*
 * sql_statement_target
 *		The table a statement names at p (after its keywords: "COPY", or
 *		"INSERT INTO", white space allowed before it) and the column list
 *		after it: *table and *columns (NULL when there is no list), as
 *		written; *end points just after the table's name.  A name is read
 *		up to white space or "(", a "..." part whole.  False when there is
 *		no name, or a quote or the list is not closed.
 */
bool
sql_statement_target(const char *p, char **table, char **columns, const char **end)
{
	const char *t0;
	const char *c0;
	int			depth = 0;

	*table = *columns = NULL;
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	t0 = p;
	while (*p && *p != '(' && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
	{
		if (*p == '"')
		{
			for (p++; *p && !(*p == '"' && p[1] != '"'); p += (*p == '"') ? 2 : 1)
				;
			if (*p == '\0')
				return false;
		}
		p++;
	}
	if (p == t0)
		return false;
	*table = pnstrdup(t0, p - t0);
	*end = p;
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	if (*p != '(')
		return true;
	c0 = ++p;
	for (; *p; p++)
	{
		if (*p == '"')
		{
			for (p++; *p && !(*p == '"' && p[1] != '"'); p += (*p == '"') ? 2 : 1)
				;
			if (*p == '\0')
				return false;
		}
		else if (*p == '(')
			depth++;
		else if (*p == ')' && depth-- == 0)
		{
			*columns = pnstrdup(c0, p - c0);
			return true;
		}
	}
	return false;
}

/*
 * split_progress
 *		How far into the file on disk the statements returned so far go:
 *		the bytes read less those held for later (plain), or the
 *		compressed bytes read (a compressed file, whose size on disk the
 *		progress is weighted by).
 */
long
split_progress(const SqlSplitter *s)
{
	if (reader_position(s->reader) != s->bytes_read)
		return (long) reader_position(s->reader);
	return s->bytes_read - (long) (s->len - s->pos);
}
