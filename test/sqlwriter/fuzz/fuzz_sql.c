/*-------------------------------------------------------------------------
 *
 * fuzz_sql.c
 *	  libFuzzer target for the text of the dump format (src/common/sql_text.c):
 *	  values, identifiers and the framing of rows into INSERT statements
 *	  or a COPY block, cut into chunks as the stream cuts them.
 *
 * Built and run by test/sqlwriter/fuzz/run.sh (clang, -fsanitize=fuzzer,
 * address,undefined; PostgreSQL's libpgcommon/libpgport for StringInfo).
 *
 * The input describes one dump: its first bytes pick the format, the rows
 * per statement, the chunk size and the number of columns; the rest is the
 * table name, the column names and the values, separated by 0xFF (0xFE
 * alone is NULL; a NUL byte, which no text value holds, is dropped).  The
 * target frames the rows with the same calls as the SQL writer, closes a
 * chunk where the stream (src/dump/stream.c) closes one, and then checks,
 * besides ASan, UBSan and LeakSanitizer:
 *
 *	- every chunk but the last reached the chunk size and ends a row;
 *	- the file (the chunks joined by "\n", plus "\n") parses back, by an
 *	  independent reader of the format, into the same table name, column
 *	  names and values, NULLs included; statements start every N rows;
 *	- an escaped value is exactly exwiw_sql_escaped_length() long.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include "common/sql_text.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAXCOLS 4
#define MAXROWS 64

typedef struct Value
{
	bool		isnull;
	char	   *s;
	int			len;
}			Value;

/* What the input describes. */
typedef struct Dump
{
	bool		insert;
	int			rows_per_statement;
	int			chunk_bytes;
	int			ncols;
	char	   *table;
	char	   *cols[MAXCOLS];
	int			nrows;
	Value		vals[MAXROWS][MAXCOLS];
}			Dump;

static void
fail(const char *what, const char *file, int pos)
{
	fprintf(stderr, "%s at byte %d of:\n%s\n", what, pos, file);
	abort();
}

/*
 * next_field
 *		The bytes up to the next 0xFF (or the end), without NUL bytes, as a
 *		palloc'd string; *null when the field is the single byte 0xFE.
 */
static char *
next_field(const uint8_t **p, const uint8_t *end, int *len, bool *null)
{
	StringInfoData b;
	const uint8_t *start = *p;

	initStringInfo(&b);
	while (*p < end && **p != 0xFF)
	{
		if (**p != 0)
			appendStringInfoChar(&b, (char) **p);
		(*p)++;
	}
	*null = (*p - start == 1 && *start == 0xFE);
	if (*p < end)
		(*p)++;
	*len = b.len;
	return b.data;
}

/*
 * parse_input
 *		The dump the input describes; false when it is too short.
 */
static bool
parse_input(const uint8_t *data, size_t size, Dump * d)
{
	const uint8_t *p = data + 4;
	const uint8_t *end = data + size;
	int			len;
	bool		null;
	int			i;

	if (size < 4)
		return false;
	d->insert = (data[0] & 1) == 0;
	d->rows_per_statement = data[1] % 5;	/* 0: one statement */
	d->chunk_bytes = 1 + data[2] % 96;
	d->ncols = 1 + data[3] % MAXCOLS;
	d->table = next_field(&p, end, &len, &null);
	if (len == 0)
	{
		pfree(d->table);
		d->table = pstrdup("t");
	}
	for (i = 0; i < d->ncols; i++)
	{
		d->cols[i] = next_field(&p, end, &len, &null);
		if (len == 0)
		{
			pfree(d->cols[i]);
			d->cols[i] = psprintf("c%d", i);
		}
	}
	d->nrows = 0;
	while (p < end && d->nrows < MAXROWS)
	{
		for (i = 0; i < d->ncols; i++)
		{
			Value	   *v = &d->vals[d->nrows][i];

			v->s = next_field(&p, end, &v->len, &v->isnull);
		}
		d->nrows++;
	}
	return d->nrows > 0;
}

/*
 * write_dump
 *		The file, as the stream and the SQL writer write it: rows framed by
 *		sql_text.c, a chunk closed after a row's separator once it holds
 *		chunk_bytes, chunks joined by "\n" plus a final "\n".  Checks the
 *		chunk boundaries on the way.
 */
static char *
write_dump(const Dump * d, int *filelen)
{
	StringInfoData header;
	StringInfoData chunk;
	StringInfoData file;
	ExwiwSqlFrame f = {0};
	int			r,
				i;

	initStringInfo(&header);
	appendStringInfoString(&header, d->insert ? "INSERT INTO " : "COPY ");
	exwiw_append_ident(&header, d->table);
	appendStringInfoString(&header, " (");
	for (i = 0; i < d->ncols; i++)
	{
		if (i > 0)
			appendStringInfoString(&header, ", ");
		exwiw_append_ident(&header, d->cols[i]);
	}
	appendStringInfoString(&header, d->insert ? ") VALUES\n" : ") FROM stdin;\n");
	f.insert = d->insert;
	f.rows_per_statement = d->rows_per_statement;
	f.header = header.data;
	f.header_len = header.len;
	f.prologue = "SET client_encoding = 'UTF8';\nSET standard_conforming_strings = on;\n";
	f.epilogue = "SELECT 1;";

	initStringInfo(&chunk);
	initStringInfo(&file);
	for (r = 0; r < d->nrows; r++)
	{
		if (r > 0)
		{
			exwiw_sql_frame_between(&f, &chunk, r);
			if (chunk.len >= d->chunk_bytes)
			{
				/* a closed chunk ends a row: ")", ")," or ");" / a line */
				char		last = chunk.data[chunk.len - 1];

				if (d->insert && last != ',' && last != ';')
					fail("chunk does not end a row", chunk.data, chunk.len);
				appendBinaryStringInfo(&file, chunk.data, chunk.len);
				appendStringInfoChar(&file, '\n');
				resetStringInfo(&chunk);
			}
			else
				appendStringInfoChar(&chunk, '\n');
		}
		exwiw_sql_frame_row_start(&f, &chunk, r);
		for (i = 0; i < d->ncols; i++)
		{
			const		Value *v = &d->vals[r][i];

			if (i > 0)
				exwiw_sql_frame_separator(&f, &chunk);
			if (v->isnull)
				exwiw_sql_frame_null(&f, &chunk);
			else
			{
				int			before = chunk.len;

				exwiw_sql_frame_value(&f, &chunk, v->s, v->len);
				if ((Size) (chunk.len - before) != exwiw_sql_escaped_length(v->s, v->len, d->insert))
					fail("escaped length differs", chunk.data, before);
			}
		}
		exwiw_sql_frame_row_end(&f, &chunk);
	}
	exwiw_sql_frame_finish(&f, &chunk);
	appendBinaryStringInfo(&file, chunk.data, chunk.len);
	appendStringInfoChar(&file, '\n');
	pfree(chunk.data);
	pfree(header.data);
	*filelen = file.len;
	return file.data;
}

/* A reader of the format, written from doc/sql-dump-format.md. */
typedef struct Reader
{
	const char *s;
	int			pos;
	int			len;
}			Reader;

static void
expect(Reader * rd, const char *lit)
{
	int			n = strlen(lit);

	if (rd->pos + n > rd->len || memcmp(rd->s + rd->pos, lit, n) != 0)
		fail(psprintf("expected \"%s\"", lit), rd->s, rd->pos);
	rd->pos += n;
}

/* An identifier: bare [a-z_][a-z0-9_$]* or "..." with "" doubled. */
static char *
read_ident(Reader * rd)
{
	StringInfoData b;

	initStringInfo(&b);
	if (rd->pos < rd->len && rd->s[rd->pos] == '"')
	{
		rd->pos++;
		for (;;)
		{
			if (rd->pos >= rd->len)
				fail("unterminated identifier", rd->s, rd->pos);
			if (rd->s[rd->pos] == '"')
			{
				if (rd->pos + 1 < rd->len && rd->s[rd->pos + 1] == '"')
				{
					appendStringInfoChar(&b, '"');
					rd->pos += 2;
					continue;
				}
				rd->pos++;
				break;
			}
			appendStringInfoChar(&b, rd->s[rd->pos++]);
		}
		return b.data;
	}
	while (rd->pos < rd->len)
	{
		char		c = rd->s[rd->pos];

		if (!((c >= 'a' && c <= 'z') || c == '_' ||
			  (b.len > 0 && ((c >= '0' && c <= '9') || c == '$'))))
			break;
		appendStringInfoChar(&b, c);
		rd->pos++;
	}
	if (b.len == 0 || exwiw_ident_needs_quotes(b.data))
		fail("bad bare identifier", rd->s, rd->pos);
	return b.data;
}

static void
check_header(Reader * rd, const Dump * d)
{
	int			i;
	char	   *name;

	expect(rd, d->insert ? "INSERT INTO " : "COPY ");
	name = read_ident(rd);
	if (strcmp(name, d->table) != 0)
		fail("table name differs", rd->s, rd->pos);
	pfree(name);
	expect(rd, " (");
	for (i = 0; i < d->ncols; i++)
	{
		if (i > 0)
			expect(rd, ", ");
		name = read_ident(rd);
		if (strcmp(name, d->cols[i]) != 0)
			fail("column name differs", rd->s, rd->pos);
		pfree(name);
	}
	expect(rd, d->insert ? ") VALUES\n" : ") FROM stdin;\n");
}

/* An INSERT value: NULL, or '...' with '' doubled and nothing escaped. */
static void
read_insert_value(Reader * rd, const Value * want)
{
	StringInfoData b;

	if (rd->pos + 4 <= rd->len && memcmp(rd->s + rd->pos, "NULL", 4) == 0)
	{
		rd->pos += 4;
		if (!want->isnull)
			fail("NULL where a value was", rd->s, rd->pos);
		return;
	}
	expect(rd, "'");
	initStringInfo(&b);
	for (;;)
	{
		if (rd->pos >= rd->len)
			fail("unterminated literal", rd->s, rd->pos);
		if (rd->s[rd->pos] == '\'')
		{
			if (rd->pos + 1 < rd->len && rd->s[rd->pos + 1] == '\'')
			{
				appendStringInfoChar(&b, '\'');
				rd->pos += 2;
				continue;
			}
			rd->pos++;
			break;
		}
		appendStringInfoChar(&b, rd->s[rd->pos++]);
	}
	if (want->isnull || b.len != want->len || memcmp(b.data, want->s, b.len) != 0)
		fail("value differs", rd->s, rd->pos);
	pfree(b.data);
}

/* A COPY field: \N, or text with \\ \t \n \r escaped, up to TAB or LF. */
static void
read_copy_value(Reader * rd, const Value * want)
{
	StringInfoData b;

	if (rd->pos + 2 <= rd->len && memcmp(rd->s + rd->pos, "\\N", 2) == 0 &&
		(rd->pos + 2 == rd->len || rd->s[rd->pos + 2] == '\t' || rd->s[rd->pos + 2] == '\n'))
	{
		rd->pos += 2;
		if (!want->isnull)
			fail("\\N where a value was", rd->s, rd->pos);
		return;
	}
	initStringInfo(&b);
	while (rd->pos < rd->len && rd->s[rd->pos] != '\t' && rd->s[rd->pos] != '\n')
	{
		char		c = rd->s[rd->pos++];

		if (c == '\r')
			fail("raw CR in a COPY line", rd->s, rd->pos);
		if (c == '\\')
		{
			if (rd->pos >= rd->len)
				fail("backslash at the end", rd->s, rd->pos);
			c = rd->s[rd->pos++];
			switch (c)
			{
				case '\\':
					break;
				case 't':
					c = '\t';
					break;
				case 'n':
					c = '\n';
					break;
				case 'r':
					c = '\r';
					break;
				default:
					fail("unknown escape", rd->s, rd->pos);
			}
		}
		appendStringInfoChar(&b, c);
	}
	if (want->isnull || b.len != want->len || memcmp(b.data, want->s, b.len) != 0)
		fail("COPY value differs", rd->s, rd->pos);
	pfree(b.data);
}

/*
 * check_file
 *		Read the file back and compare it with the dump.
 */
static void
check_file(const char *file, int len, const Dump * d)
{
	Reader		rd = {file, 0, len};
	int			r,
				i;

	expect(&rd, "SET client_encoding = 'UTF8';\nSET standard_conforming_strings = on;\n");
	for (r = 0; r < d->nrows; r++)
	{
		if (r == 0 || (d->insert && d->rows_per_statement > 0 &&
					   r % d->rows_per_statement == 0))
			check_header(&rd, d);
		if (d->insert)
			expect(&rd, "(");
		for (i = 0; i < d->ncols; i++)
		{
			if (i > 0)
				expect(&rd, d->insert ? ", " : "\t");
			if (d->insert)
				read_insert_value(&rd, &d->vals[r][i]);
			else
				read_copy_value(&rd, &d->vals[r][i]);
		}
		if (d->insert)
		{
			expect(&rd, ")");
			if (r == d->nrows - 1)
				expect(&rd, ";");
			else
				expect(&rd, (d->rows_per_statement > 0 &&
							 (r + 1) % d->rows_per_statement == 0) ? ";" : ",");
		}
		expect(&rd, "\n");
	}
	if (!d->insert)
		expect(&rd, "\\.\n");
	expect(&rd, "SELECT 1;\n");
	if (rd.pos != len)
		fail("bytes after the end", file, rd.pos);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Dump	   *d = palloc0(sizeof(Dump));
	char	   *file;
	int			len;
	int			r,
				i;

	if (parse_input(data, size, d))
	{
		file = write_dump(d, &len);
		check_file(file, len, d);
		pfree(file);
	}
	for (r = 0; r < d->nrows; r++)
		for (i = 0; i < d->ncols; i++)
			pfree(d->vals[r][i].s);
	if (d->table)
		pfree(d->table);
	for (i = 0; i < MAXCOLS; i++)
		if (d->cols[i])
			pfree(d->cols[i]);
	pfree(d);
	return 0;
}
