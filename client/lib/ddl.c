/*-------------------------------------------------------------------------
 *
 * ddl.c
 *	  pg_dump's schema made idempotent, as the Ruby client does it
 *	  (Exwiw::DdlPostprocessor), for insert-000-schema.sql.
 *
 * The passes, in the Ruby client's order, each a rewrite of the whole
 * text that matches what its regular expression matches (quirks included,
 * so that both clients write the same file):
 *
 *	1. the extensions a managed platform provides (google_columnar_engine,
 *	   google_db_advisor, google_vacuum_mgmt), and those the caller names
 *	   (pgdump.c: the ones no object of the schema needs, exwiw itself,
 *	   pg_cron, pg_stat_statements: a departure from the Ruby client) are
 *	   left out: pg_dump's header block, CREATE EXTENSION and COMMENT ON
 *	   EXTENSION;
 *	2. CREATE TYPE ... AS ENUM (...);  in a DO block that swallows
 *	   duplicate_object;
 *	3. CREATE EXTENSION in a DO block that turns "cannot provide it here"
 *	   errors into a WARNING with a hint (and, unlike the Ruby client,
 *	   insufficient_privilege: the owner of the database who is no
 *	   superuser loads the file, and a superuser may create the extension
 *	   first);
 *	4. COMMENT ON EXTENSION in a DO block that swallows undefined_object
 *	   (and insufficient_privilege: "must be owner of extension");
 *	5.-8. IF NOT EXISTS after CREATE SCHEMA, SEQUENCE, TABLE, [UNIQUE] INDEX;
 *	9. ALTER TABLE ... ADD CONSTRAINT ...;  in a DO block that swallows
 *	   duplicate_object, and also duplicate_table and invalid_table_definition,
 *	   which a second PRIMARY KEY or UNIQUE raises (the Ruby client swallows
 *	   only duplicate_object, so its file fails on a second load at the
 *	   first primary key: here it loads twice);
 *	10. CREATE TRIGGER after pg_dump's TRIGGER header, in a DO block;
 *	11. OR REPLACE after CREATE FUNCTION, PROCEDURE, AGGREGATE and VIEW at
 *	   the start of a line (not a pass of the Ruby client, whose file stops
 *	   at the first function on a second load: a schema with a function,
 *	   such as a trigger's, must load twice too).
 *
 * Each pass scans for the start of its pattern and tries the match there;
 * Ruby's \s is [ \t\r\n\f\v] and \b an ASCII word boundary.
 *
 *-------------------------------------------------------------------------
 */
#include "cli.h"

static const char *const platform_extensions[] = {
	"google_columnar_engine", "google_db_advisor", "google_vacuum_mgmt", NULL
};

/* A match: where it starts and ends, and a few captured spans. */
typedef struct DdlMatch
{
	size_t		start;
	size_t		end;
	size_t		g1s,
				g1e;			/* group 1 */
	size_t		g2s,
				g2e;			/* group 2 */
	const char *const *extra;	/* pass parameter (names) */
} DdlMatch;

typedef bool (*DdlMatcher) (const char *s, size_t len, size_t pos, DdlMatch *m);
typedef void (*DdlReplacer) (StringInfo out, const char *s, const DdlMatch *m);

/*
 * is_space / is_word
 *		Ruby's \s and \w (ASCII).
 */
static inline bool
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static inline bool
is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		(c >= '0' && c <= '9') || c == '_';
}

/*
 * kw
 *		Whether s[pos..] starts with word (case-insensitively when ci); the
 *		position after it, or -1.
 */
static ssize_t
kw(const char *s, size_t len, size_t pos, const char *word, bool ci)
{
	size_t		n = strlen(word);

	if (pos + n > len)
		return -1;
	if (ci ? pg_strncasecmp(s + pos, word, n) != 0 : strncmp(s + pos, word, n) != 0)
		return -1;
	return pos + n;
}

/*
 * boundary
 *		\b at pos.
 */
static bool
boundary(const char *s, size_t len, size_t pos)
{
	bool		before = pos > 0 && is_word(s[pos - 1]);
	bool		after = pos < len && is_word(s[pos]);

	return before != after;
}

/*
 * spaces
 *		\s+ (greedy): the position after, or -1 when there is none.
 */
static ssize_t
spaces(const char *s, size_t len, size_t pos)
{
	size_t		p = pos;

	while (p < len && is_space(s[p]))
		p++;
	return p > pos ? (ssize_t) p : -1;
}

/*
 * kw_b
 *		A keyword followed by \b (case-insensitive).
 */
static ssize_t
kw_b(const char *s, size_t len, size_t pos, const char *word)
{
	ssize_t		p = kw(s, len, pos, word, true);

	if (p < 0 || !boundary(s, len, p))
		return -1;
	return p;
}

/*
 * line_start
 *		^ at pos (Ruby's ^ is always line-anchored).
 */
static bool
line_start(const char *s, size_t pos)
{
	return pos == 0 || s[pos - 1] == '\n';
}

/*
 * blanks
 *		[ \t]*
 */
static size_t
blanks(const char *s, size_t len, size_t pos)
{
	while (pos < len && (s[pos] == ' ' || s[pos] == '\t'))
		pos++;
	return pos;
}

/*
 * if_not_exists
 *		\s+IF\s+NOT\s+EXISTS at pos (case-insensitive): the end, or -1.
 */
static ssize_t
if_not_exists(const char *s, size_t len, size_t pos)
{
	ssize_t		p;

	if ((p = spaces(s, len, pos)) < 0 || (p = kw(s, len, p, "IF", true)) < 0 ||
		(p = spaces(s, len, p)) < 0 || (p = kw(s, len, p, "NOT", true)) < 0 ||
		(p = spaces(s, len, p)) < 0 || (p = kw(s, len, p, "EXISTS", true)) < 0)
		return -1;
	return p;
}

/*
 * gsub
 *		Every non-overlapping match, leftmost first, replaced.
 */
static char *
gsub(const char *s, DdlMatcher match, DdlReplacer replace, const char *const *extra)
{
	size_t		len = strlen(s);
	size_t		pos = 0,
				copied = 0;
	StringInfoData out;

	initStringInfo(&out);
	while (pos < len)
	{
		DdlMatch	m = {0};

		m.extra = extra;
		if (match(s, len, pos, &m))
		{
			appendBinaryStringInfo(&out, s + copied, pos - copied);
			replace(&out, s, &m);
			pos = copied = m.end;
		}
		else
			pos++;
	}
	appendBinaryStringInfo(&out, s + copied, len - copied);
	return out.data;
}

/*
 * append_stripped
 *		s[start..end) with leading and trailing whitespace removed (strip).
 */
static void
append_stripped(StringInfo out, const char *s, size_t start, size_t end)
{
	while (start < end && (is_space(s[start]) || s[start] == '\0'))
		start++;
	while (end > start && (is_space(s[end - 1]) || s[end - 1] == '\0'))
		end--;
	appendBinaryStringInfo(out, s + start, end - start);
}

/*
 * replace_do_block
 *		The statement in "DO $exwiw$ BEGIN ... duplicate_object ..." (the
 *		Ruby heredoc: the statement's first line indented by two spaces).
 */
static void
replace_do_block(StringInfo out, const char *s, const DdlMatch *m)
{
	appendStringInfoString(out, "DO $exwiw$ BEGIN\n  ");
	append_stripped(out, s, m->start, m->end);
	appendStringInfoString(out, "\nEXCEPTION WHEN duplicate_object THEN NULL;\nEND $exwiw$;");
}

/*
 * replace_constraint_block
 *		ADD CONSTRAINT in a DO block that a second load passes through: a
 *		second PRIMARY KEY raises invalid_table_definition, a second UNIQUE
 *		duplicate_table (its index), a second FOREIGN KEY or CHECK
 *		duplicate_object.
 */
static void
replace_constraint_block(StringInfo out, const char *s, const DdlMatch *m)
{
	appendStringInfoString(out, "DO $exwiw$ BEGIN\n  ");
	append_stripped(out, s, m->start, m->end);
	appendStringInfoString(out, "\nEXCEPTION WHEN duplicate_object OR duplicate_table OR invalid_table_definition THEN NULL;\nEND $exwiw$;");
}

/*
 * replace_empty
 *		Delete the match.
 */
static void
replace_empty(StringInfo out, const char *s, const DdlMatch *m)
{
}

/* ---- 1. strip the platform's extensions ---- */

/*
 * ext_name
 *		(?:"NAME"|NAME\b) for one of the names: the end, or -1.
 */
static ssize_t
ext_name(const char *s, size_t len, size_t pos, const char *const *names)
{
	for (; *names; names++)
	{
		size_t		n = strlen(*names);

		if (pos < len && s[pos] == '"' && pos + n + 2 <= len &&
			pg_strncasecmp(s + pos + 1, *names, n) == 0 && s[pos + 1 + n] == '"')
			return pos + n + 2;
		if (pos + n <= len && pg_strncasecmp(s + pos, *names, n) == 0 &&
			boundary(s, len, pos + n))
			return pos + n;
	}
	return -1;
}

/*
 * trailing_blank_lines
 *		(?:[ \t]*\r?\n(?:[ \t]*\r?\n)*)?
 */
static size_t
trailing_blank_lines(const char *s, size_t len, size_t pos)
{
	for (;;)
	{
		size_t		p = blanks(s, len, pos);

		if (p < len && s[p] == '\r')
			p++;
		if (p < len && s[p] == '\n')
			pos = p + 1;
		else
			return pos;
	}
}

/*
 * match_ext_header
 *		^--\r?\n-- Name: (?:EXTENSION\s+)?NAME;[ \t]*Type:[ \t]*(?:EXTENSION|COMMENT);[^\n]*\n--(?:\r?\n)+
 */
static bool
match_ext_header(const char *s, size_t len, size_t pos, DdlMatch *m)
{
	ssize_t		p;
	ssize_t		q;
	size_t		e;

	if (!line_start(s, pos) || (p = kw(s, len, pos, "--", false)) < 0)
		return false;
	if (p < len && s[p] == '\r')
		p++;
	if (p >= len || s[p] != '\n')
		return false;
	if ((p = kw(s, len, p + 1, "-- Name: ", true)) < 0)
		return false;
	if ((q = kw(s, len, p, "EXTENSION", true)) >= 0 && (q = spaces(s, len, q)) >= 0 &&
		ext_name(s, len, q, m->extra) >= 0)
		p = q;
	if ((p = ext_name(s, len, p, m->extra)) < 0 || p >= len || s[p] != ';')
		return false;
	p = blanks(s, len, p + 1);
	if ((p = kw(s, len, p, "Type:", true)) < 0)
		return false;
	p = blanks(s, len, p);
	if ((q = kw(s, len, p, "EXTENSION;", true)) < 0 && (q = kw(s, len, p, "COMMENT;", true)) < 0)
		return false;
	while (q < len && s[q] != '\n')
		q++;
	if (q >= len || (q = kw(s, len, q + 1, "--", false)) < 0)
		return false;
	/* (?:\r?\n)+ */
	e = q;
	for (;;)
	{
		size_t		r = e;

		if (r < len && s[r] == '\r')
			r++;
		if (r < len && s[r] == '\n')
			e = r + 1;
		else
			break;
	}
	if (e == (size_t) q)
		return false;
	m->start = pos;
	m->end = e;
	return true;
}

/*
 * create_extension_head
 *		[ \t]*CREATE\s+EXTENSION\b(?:\s+IF\s+NOT\s+EXISTS)?\s+ at a line
 *		start: the position of the name, or -1.
 */
static ssize_t
create_extension_head(const char *s, size_t len, size_t pos)
{
	ssize_t		p;
	ssize_t		q;

	if (!line_start(s, pos))
		return -1;
	p = blanks(s, len, pos);
	if ((p = kw(s, len, p, "CREATE", true)) < 0 || (p = spaces(s, len, p)) < 0 ||
		(p = kw_b(s, len, p, "EXTENSION")) < 0)
		return -1;
	if ((q = if_not_exists(s, len, p)) >= 0 && spaces(s, len, q) >= 0)
		p = q;
	return spaces(s, len, p);
}

/*
 * match_ext_create
 *		^[ \t]*CREATE\s+EXTENSION\b(?:\s+IF\s+NOT\s+EXISTS)?\s+NAME[^;]*;TRAILING
 */
static bool
match_ext_create(const char *s, size_t len, size_t pos, DdlMatch *m)
{
	ssize_t		p = create_extension_head(s, len, pos);

	if (p < 0 || (p = ext_name(s, len, p, m->extra)) < 0)
		return false;
	while (p < len && s[p] != ';')
		p++;
	if (p >= len)
		return false;
	m->start = pos;
	m->end = trailing_blank_lines(s, len, p + 1);
	return true;
}

/*
 * comment_is_tail
 *		\s+IS\s+(?:'(?:[^']|'')*'|NULL)\s*; from p: the end, or -1.
 */
static ssize_t
comment_is_tail(const char *s, size_t len, ssize_t p)
{
	if ((p = spaces(s, len, p)) < 0 || (p = kw(s, len, p, "IS", true)) < 0 ||
		(p = spaces(s, len, p)) < 0)
		return -1;
	if (p < len && s[p] == '\'')
	{
		p++;
		for (;;)
		{
			if (p >= len)
				return -1;
			if (s[p] == '\'')
			{
				if (p + 1 < len && s[p + 1] == '\'')
					p += 2;
				else
				{
					p++;
					break;
				}
			}
			else
				p++;
		}
	}
	else if ((p = kw(s, len, p, "NULL", true)) < 0)
		return -1;
	while (p < len && is_space(s[p]))
		p++;
	if (p >= len || s[p] != ';')
		return -1;
	return p + 1;
}

/*
 * comment_on_extension_head
 *		^[ \t]*COMMENT\s+ON\s+EXTENSION\s+ : the position of the name, or -1.
 */
static ssize_t
comment_on_extension_head(const char *s, size_t len, size_t pos)
{
	ssize_t		p;

	if (!line_start(s, pos))
		return -1;
	p = blanks(s, len, pos);
	if ((p = kw(s, len, p, "COMMENT", true)) < 0 || (p = spaces(s, len, p)) < 0 ||
		(p = kw(s, len, p, "ON", true)) < 0 || (p = spaces(s, len, p)) < 0 ||
		(p = kw(s, len, p, "EXTENSION", true)) < 0)
		return -1;
	return spaces(s, len, p);
}

/*
 * match_ext_comment
 *		^[ \t]*COMMENT\s+ON\s+EXTENSION\s+NAME\s+IS\s+(...)\s*;TRAILING
 */
static bool
match_ext_comment(const char *s, size_t len, size_t pos, DdlMatch *m)
{
	ssize_t		p = comment_on_extension_head(s, len, pos);

	if (p < 0 || (p = ext_name(s, len, p, m->extra)) < 0 ||
		(p = comment_is_tail(s, len, p)) < 0)
		return false;
	m->start = pos;
	m->end = trailing_blank_lines(s, len, p);
	return true;
}

/* ---- 2. CREATE TYPE ... AS ENUM ---- */

/*
 * match_enum
 *		^[ \t]*CREATE\s+TYPE\b.+?\bAS\s+ENUM\s*\(.+?\)\s*;   (dot matches
 *		newlines; the first "AS ENUM (" after the type, then the first ")"
 *		followed by ";")
 */
static bool
match_enum(const char *s, size_t len, size_t pos, DdlMatch *m)
{
	ssize_t		p;
	size_t		i;

	if (!line_start(s, pos))
		return false;
	p = blanks(s, len, pos);
	if ((p = kw(s, len, p, "CREATE", true)) < 0 || (p = spaces(s, len, p)) < 0 ||
		(p = kw_b(s, len, p, "TYPE")) < 0)
		return false;
	for (i = p + 1; i < len; i++)
	{
		ssize_t		q;
		size_t		k;

		if (!boundary(s, len, i) || (q = kw(s, len, i, "AS", true)) < 0 ||
			(q = spaces(s, len, q)) < 0 || (q = kw(s, len, q, "ENUM", true)) < 0)
			continue;
		while (q < len && is_space(s[q]))
			q++;
		if (q >= len || s[q] != '(')
			continue;
		for (k = q + 2; k < len; k++)
		{
			size_t		e;

			if (s[k] != ')')
				continue;
			e = k + 1;
			while (e < len && is_space(s[e]))
				e++;
			if (e < len && s[e] == ';')
			{
				m->start = pos;
				m->end = e + 1;
				return true;
			}
		}
		return false;			/* no ");" anywhere after: no match here */
	}
	return false;
}

/* ---- 3. CREATE EXTENSION in a DO block ---- */

/*
 * match_ext_wrap
 *		^[ \t]*CREATE\s+EXTENSION\b(?:\s+IF\s+NOT\s+EXISTS)?\s+("[^"]+"|[^\s;]+)[^;]*;
 */
static bool
match_ext_wrap(const char *s, size_t len, size_t pos, DdlMatch *m)
{
	ssize_t		p = create_extension_head(s, len, pos);
	size_t		n;

	if (p < 0)
		return false;
	n = p;
	if (n < len && s[n] == '"')
	{
		size_t		q = n + 1;

		while (q < len && s[q] != '"')
			q++;
		if (q >= len || q == n + 1)
			return false;
		m->g1s = n;
		m->g1e = q + 1;
	}
	else
	{
		size_t		q = n;

		while (q < len && !is_space(s[q]) && s[q] != ';')
			q++;
		if (q == n)
			return false;
		m->g1s = n;
		m->g1e = q;
	}
	p = m->g1e;
	while (p < len && s[p] != ';')
		p++;
	if (p >= len)
		return false;
	m->start = pos;
	m->end = p + 1;
	return true;
}

/*
 * replace_ext_wrap
 *		DO $$ BEGIN <stmt> EXCEPTION WHEN ... THEN RAISE WARNING '...'; END $$;
 */
static void
replace_ext_wrap(StringInfo out, const char *s, const DdlMatch *m)
{
	size_t		i;

	appendStringInfoString(out, "DO $$ BEGIN ");
	append_stripped(out, s, m->start, m->end);
	appendStringInfoString(out, " EXCEPTION WHEN feature_not_supported OR invalid_schema_name OR internal_error OR insufficient_privilege THEN RAISE WARNING 'exwiw: skipped CREATE EXTENSION ");
	for (i = m->g1s; i < m->g1e; i++)
	{
		if (s[i] == '"')
			continue;
		if (s[i] == '\'')
			appendStringInfoChar(out, '\'');
		appendStringInfoChar(out, s[i]);
	}
	appendStringInfoString(out, " (SQLSTATE %): %', SQLSTATE, SQLERRM USING HINT = 'The objects of this schema that use it need it: a superuser can create it first, then this file loads again.'; END $$;");
}

/* ---- 4. COMMENT ON EXTENSION in a DO block ---- */

/*
 * match_comment_wrap
 *		^[ \t]*COMMENT\s+ON\s+EXTENSION\s+(?:"[^"]+"|[^\s]+)\s+IS\s+(...)\s*;
 */
static bool
match_comment_wrap(const char *s, size_t len, size_t pos, DdlMatch *m)
{
	ssize_t		p = comment_on_extension_head(s, len, pos);
	ssize_t		e;

	if (p < 0)
		return false;
	if (s[p] == '"')
	{
		size_t		q = p + 1;

		while (q < len && s[q] != '"')
			q++;
		if (q < len && q > (size_t) p + 1 && (e = comment_is_tail(s, len, q + 1)) >= 0)
		{
			m->start = pos;
			m->end = e;
			return true;
		}
	}
	/* [^\s]+ then \s+IS...: the name ends at some whitespace */
	{
		size_t		q = p;

		while (q < len && !is_space(s[q]))
			q++;
		if (q == (size_t) p)
			return false;
		/* [^\s]+ is greedy and cannot give back across whitespace */
		if ((e = comment_is_tail(s, len, q)) >= 0)
		{
			m->start = pos;
			m->end = e;
			return true;
		}
	}
	return false;
}

/*
 * replace_comment_wrap
 *		DO $exwiw$ BEGIN <stmt> EXCEPTION WHEN undefined_object OR
 *		insufficient_privilege THEN NULL; END $exwiw$;
 */
static void
replace_comment_wrap(StringInfo out, const char *s, const DdlMatch *m)
{
	appendStringInfoString(out, "DO $exwiw$ BEGIN ");
	append_stripped(out, s, m->start, m->end);
	appendStringInfoString(out, " EXCEPTION WHEN undefined_object OR insufficient_privilege THEN NULL; END $exwiw$;");
}

/* ---- 5.-7. CREATE SCHEMA | SEQUENCE | TABLE ---- */

/*
 * match_create_object
 *		\bCREATE\s+<OBJECT>\b(?!\s+IF\s+NOT\s+EXISTS), OBJECT in extra[0].
 */
static bool
match_create_object(const char *s, size_t len, size_t pos, DdlMatch *m)
{
	ssize_t		p;

	if (!boundary(s, len, pos) || (p = kw(s, len, pos, "CREATE", true)) < 0 ||
		(p = spaces(s, len, p)) < 0 || (p = kw_b(s, len, p, m->extra[0])) < 0)
		return false;
	if (if_not_exists(s, len, p) >= 0)
		return false;
	m->start = pos;
	m->end = p;
	return true;
}

/*
 * replace_add_if_not_exists
 *		The matched text, then " IF NOT EXISTS".
 */
static void
replace_add_if_not_exists(StringInfo out, const char *s, const DdlMatch *m)
{
	appendBinaryStringInfo(out, s + m->start, m->end - m->start);
	appendStringInfoString(out, " IF NOT EXISTS");
}

/* ---- 11. CREATE FUNCTION | PROCEDURE | AGGREGATE | VIEW ---- */

/*
 * match_create_replaceable
 *		^CREATE\s+<OBJECT>\b at the start of a line, OBJECT in extra[0]:
 *		pg_dump's statements, never a body's text in the middle of a line.
 */
static bool
match_create_replaceable(const char *s, size_t len, size_t pos, DdlMatch *m)
{
	ssize_t		c;
	ssize_t		p;

	if (!line_start(s, pos) || (c = kw(s, len, pos, "CREATE", false)) < 0 ||
		(p = spaces(s, len, c)) < 0 || (p = kw_b(s, len, p, m->extra[0])) < 0)
		return false;
	m->g1s = c;
	m->start = pos;
	m->end = p;
	return true;
}

/*
 * replace_or_replace
 *		"CREATE OR REPLACE", then the rest of the match as written.
 */
static void
replace_or_replace(StringInfo out, const char *s, const DdlMatch *m)
{
	appendStringInfoString(out, "CREATE OR REPLACE");
	appendBinaryStringInfo(out, s + m->g1s, m->end - m->g1s);
}

/* ---- 8. CREATE [UNIQUE] INDEX ---- */

/*
 * match_create_index
 *		\bCREATE(\s+UNIQUE)?\s+INDEX\b(?!\s+IF\s+NOT\s+EXISTS)
 */
static bool
match_create_index(const char *s, size_t len, size_t pos, DdlMatch *m)
{
	ssize_t		c;
	ssize_t		p;
	ssize_t		u;

	if (!boundary(s, len, pos) || (c = kw(s, len, pos, "CREATE", true)) < 0)
		return false;
	/* with UNIQUE */
	if ((u = spaces(s, len, c)) >= 0 && (u = kw(s, len, u, "UNIQUE", true)) >= 0 &&
		(p = spaces(s, len, u)) >= 0 && (p = kw_b(s, len, p, "INDEX")) >= 0 &&
		if_not_exists(s, len, p) < 0)
	{
		m->g1s = c;
		m->g1e = u;
		m->start = pos;
		m->end = p;
		return true;
	}
	/* without */
	if ((p = spaces(s, len, c)) >= 0 && (p = kw_b(s, len, p, "INDEX")) >= 0 &&
		if_not_exists(s, len, p) < 0)
	{
		m->g1s = m->g1e = c;
		m->start = pos;
		m->end = p;
		return true;
	}
	return false;
}

/*
 * replace_create_index
 *		"CREATE" + the UNIQUE group as written + " INDEX IF NOT EXISTS".
 */
static void
replace_create_index(StringInfo out, const char *s, const DdlMatch *m)
{
	appendStringInfoString(out, "CREATE");
	appendBinaryStringInfo(out, s + m->g1s, m->g1e - m->g1s);
	appendStringInfoString(out, " INDEX IF NOT EXISTS");
}

/* ---- 9. ALTER TABLE ... ADD CONSTRAINT ---- */

/*
 * add_constraint_rest
 *		From p (after the table name): \s+(?:\n[ \t]*)?ADD\s+CONSTRAINT\b[^;]*;
 *		(case-sensitive); the end, or -1.
 */
static ssize_t
add_constraint_rest(const char *s, size_t len, ssize_t p)
{
	if ((p = spaces(s, len, p)) < 0 || (p = kw(s, len, p, "ADD", false)) < 0 ||
		(p = spaces(s, len, p)) < 0 || (p = kw(s, len, p, "CONSTRAINT", false)) < 0 ||
		!boundary(s, len, p))
		return -1;
	while (p < len && s[p] != ';')
		p++;
	return p < len ? p + 1 : -1;
}

/*
 * table_name_end
 *		[^\s;,]+ from p: the end, or -1.
 */
static ssize_t
table_name_end(const char *s, size_t len, size_t p)
{
	size_t		q = p;

	while (q < len && !is_space(s[q]) && s[q] != ';' && s[q] != ',')
		q++;
	return q > p ? (ssize_t) q : -1;
}

/*
 * match_add_constraint
 *		^[ \t]*ALTER\s+TABLE\s+(?:ONLY\s+)?[^\s;,]+\s+(?:\n[ \t]*)?ADD\s+CONSTRAINT\b[^;]*;
 */
static bool
match_add_constraint(const char *s, size_t len, size_t pos, DdlMatch *m)
{
	ssize_t		p;
	ssize_t		q;
	ssize_t		e;

	if (!line_start(s, pos))
		return false;
	p = blanks(s, len, pos);
	if ((p = kw(s, len, p, "ALTER", false)) < 0 || (p = spaces(s, len, p)) < 0 ||
		(p = kw(s, len, p, "TABLE", false)) < 0 || (p = spaces(s, len, p)) < 0)
		return false;
	/* with ONLY\s+ */
	if ((q = kw(s, len, p, "ONLY", false)) >= 0 && (q = spaces(s, len, q)) >= 0 &&
		(q = table_name_end(s, len, q)) >= 0 && (e = add_constraint_rest(s, len, q)) >= 0)
	{
		m->start = pos;
		m->end = e;
		return true;
	}
	if ((q = table_name_end(s, len, p)) >= 0 && (e = add_constraint_rest(s, len, q)) >= 0)
	{
		m->start = pos;
		m->end = e;
		return true;
	}
	return false;
}

/* ---- 10. CREATE TRIGGER after its header ---- */

/*
 * eol
 *		\r?\n at p: the position after, or -1.
 */
static ssize_t
eol(const char *s, size_t len, size_t p)
{
	if (p < len && s[p] == '\r')
		p++;
	return (p < len && s[p] == '\n') ? (ssize_t) p + 1 : -1;
}

/*
 * match_trigger
 *		(^--\r?\n--[ \t]+Name:[^\n]*;[ \t]*Type:[ \t]*TRIGGER;[^\n]*\r?\n--\r?\n(?:[ \t]*\r?\n)*)
 *		([ \t]*CREATE\s+(?:OR\s+REPLACE\s+)?(?:CONSTRAINT\s+)?TRIGGER\b(?:[^;']|'(?:[^']|'')*')*;)
 *		(case-insensitive)
 */
static bool
match_trigger(const char *s, size_t len, size_t pos, DdlMatch *m)
{
	ssize_t		p;
	ssize_t		q;
	size_t		line_end;
	size_t		i;
	bool		found = false;

	if (!line_start(s, pos) || (p = kw(s, len, pos, "--", false)) < 0 ||
		(p = eol(s, len, p)) < 0 || (p = kw(s, len, p, "--", false)) < 0)
		return false;
	q = blanks(s, len, p);
	if (q == p || (p = kw(s, len, q, "Name:", true)) < 0)
		return false;
	/* the rest of the line holds ";[ \t]*Type:[ \t]*TRIGGER;" */
	line_end = p;
	while (line_end < len && s[line_end] != '\n')
		line_end++;
	for (i = p; i < line_end && !found; i++)
	{
		ssize_t		t;

		if (s[i] != ';')
			continue;
		t = blanks(s, len, i + 1);
		if ((t = kw(s, len, t, "Type:", true)) < 0)
			continue;
		t = blanks(s, len, t);
		if (kw(s, len, t, "TRIGGER;", true) >= 0)
			found = true;
	}
	if (!found || line_end >= len)
		return false;
	/* [^\n]*\r?\n: the line ends at line_end ("\r" is part of [^\n]*) */
	p = line_end + 1;
	if ((p = kw(s, len, p, "--", false)) < 0 || (p = eol(s, len, p)) < 0)
		return false;
	for (;;)
	{
		ssize_t		b = eol(s, len, blanks(s, len, p));

		if (b < 0)
			break;
		p = b;
	}
	m->g1s = pos;
	m->g1e = p;
	/* the statement */
	q = blanks(s, len, p);
	if ((q = kw(s, len, q, "CREATE", true)) < 0 || (q = spaces(s, len, q)) < 0)
		return false;
	{
		ssize_t		r;

		if ((r = kw(s, len, q, "OR", true)) >= 0 && (r = spaces(s, len, r)) >= 0 &&
			(r = kw(s, len, r, "REPLACE", true)) >= 0 && (r = spaces(s, len, r)) >= 0)
			q = r;
		if ((r = kw(s, len, q, "CONSTRAINT", true)) >= 0 && (r = spaces(s, len, r)) >= 0 &&
			kw_b(s, len, r, "TRIGGER") >= 0)
			q = r;
	}
	if ((q = kw_b(s, len, q, "TRIGGER")) < 0)
		return false;
	while (q < len && s[q] != ';')
	{
		if (s[q] == '\'')
		{
			q++;
			for (;;)
			{
				if (q >= len)
					return false;
				if (s[q] == '\'')
				{
					if (q + 1 < len && s[q + 1] == '\'')
						q += 2;
					else
						break;
				}
				else
					q++;
			}
		}
		q++;
	}
	if (q >= len)
		return false;
	m->g2s = p;
	m->g2e = q + 1;
	m->start = pos;
	m->end = q + 1;
	return true;
}

/*
 * replace_trigger
 *		The header as written, then the statement in a DO block.
 */
static void
replace_trigger(StringInfo out, const char *s, const DdlMatch *m)
{
	appendBinaryStringInfo(out, s + m->g1s, m->g1e - m->g1s);
	appendStringInfoString(out, "DO $exwiw$ BEGIN\n  ");
	append_stripped(out, s, m->g2s, m->g2e);
	appendStringInfoString(out, "\nEXCEPTION WHEN duplicate_object THEN NULL;\nEND $exwiw$;");
}

/*
 * ddl_postprocess
 *		The whole file: the Ruby client's header line and the passes.
 *		left_out (NULL-terminated, or NULL) names the extensions to leave
 *		out besides the platform's, which a comment line after the header
 *		names.  *stripped_extensions (when not NULL) gets the extensions
 *		that were left out, comma-separated, or NULL.
 */
char *
ddl_postprocess(const char *dump, const char *const *left_out,
				char **stripped_extensions)
{
	static const char *const schema_kw[] = {"SCHEMA", NULL};
	static const char *const sequence_kw[] = {"SEQUENCE", NULL};
	static const char *const table_kw[] = {"TABLE", NULL};
	static const char *const replaceable_kw[][2] = {
		{"FUNCTION", NULL}, {"PROCEDURE", NULL}, {"AGGREGATE", NULL}, {"VIEW", NULL}
	};
	char	   *s;
	StringInfoData out;
	const char **strip;
	int			nleft = 0;
	int			i;

	/* the platform's extensions, and those no object of the schema needs */
	while (left_out && left_out[nleft])
		nleft++;
	strip = pg_malloc0(sizeof(char *) * (lengthof(platform_extensions) + nleft));
	for (i = 0; platform_extensions[i]; i++)
		strip[i] = platform_extensions[i];
	if (nleft > 0)
		memcpy(strip + i, left_out, sizeof(char *) * nleft);

	if (stripped_extensions)
	{
		StringInfoData names;
		size_t		len = strlen(dump);
		size_t		pos;

		initStringInfo(&names);
		for (pos = 0; pos < len; pos++)
		{
			DdlMatch	m = {0};
			ssize_t		p;

			m.extra = strip;
			if ((p = create_extension_head(dump, len, pos)) >= 0 &&
				match_ext_create(dump, len, pos, &m))
			{
				appendStringInfo(&names, "%s%.*s", names.len ? ", " : "",
								 (int) (ext_name(dump, len, p, strip) - p), dump + p);
			}
		}
		*stripped_extensions = names.len ? names.data : NULL;
	}

	s = gsub(dump, match_ext_header, replace_empty, strip);
	s = gsub(s, match_ext_create, replace_empty, strip);
	s = gsub(s, match_ext_comment, replace_empty, strip);
	s = gsub(s, match_enum, replace_do_block, NULL);
	s = gsub(s, match_ext_wrap, replace_ext_wrap, NULL);
	s = gsub(s, match_comment_wrap, replace_comment_wrap, NULL);
	s = gsub(s, match_create_object, replace_add_if_not_exists, schema_kw);
	s = gsub(s, match_create_object, replace_add_if_not_exists, sequence_kw);
	s = gsub(s, match_create_object, replace_add_if_not_exists, table_kw);
	s = gsub(s, match_create_index, replace_create_index, NULL);
	s = gsub(s, match_add_constraint, replace_constraint_block, NULL);
	s = gsub(s, match_trigger, replace_trigger, NULL);
	for (i = 0; i < lengthof(replaceable_kw); i++)
		s = gsub(s, match_create_replaceable, replace_or_replace, replaceable_kw[i]);

	initStringInfo(&out);
	appendStringInfoString(&out, "-- Auto-generated by exwiw via pg_dump. Idempotent DDL for postgresql.\n");
	if (nleft > 0)
	{
		appendStringInfoString(&out, "-- Left out: the extensions that no object of this schema needs (server tooling):");
		for (i = 0; i < nleft; i++)
			appendStringInfo(&out, "%s %s", i > 0 ? "," : "", left_out[i]);
		appendStringInfoString(&out, ".\n");
	}
	appendStringInfoString(&out, s);
	return out.data;
}
