/*-------------------------------------------------------------------------
 *
 * copy_lines.c
 *	  The writer of exwiw_copy_lines(): a COPY-format dump as one file line
 *	  per row, so that psql's \copy writes the file from the client (the
 *	  SQL entry point, in dump/funcs.c, returns the lines one by one).
 *
 *	  exwiw_copy_lines(query text, table_name text) RETURNS SETOF text
 *
 * \copy (SELECT ...) TO 'file' writes every value of its query as one
 * line of the file, escaped by the COPY format it is asked for.  exwiw_dump
 * returns chunks of many lines, which every COPY format changes (text
 * escapes the newlines and backslashes, CSV quotes the whole chunk).  This
 * function returns one line per row instead, built so that
 *
 *	\copy (SELECT exwiw_copy_lines('<query>', '<table>')) TO '<file>'
 *		WITH (FORMAT csv, DELIMITER E'\x01', QUOTE E'\x02', NULL E'\x03')
 *
 * passes every line through unchanged.  COPY's CSV format writes a value
 * as it is unless it holds the delimiter, the quote, a newline or a
 * carriage return, or equals the NULL marker, or (one column) is "\.".
 * A COPY-format line never holds a raw newline or carriage return (the
 * format escapes them) and is never "\." alone (a backslash of the data is
 * doubled); the three marker bytes 0x01, 0x02 and 0x03 of the data are
 * written as the octal escapes \001, \002 and \003, which COPY FROM reads
 * back as the same bytes.  No other byte of a server encoding can be one of
 * them: in every server encoding a byte below 0x80 is an ASCII character.
 *
 * The lines: "SET client_encoding = '<encoding>';" (the client_encoding
 * that COPY converts the lines to, see exwiw_file_encoding_name), "SET
 * standard_conforming_strings = on;", the COPY header, then one line per
 * row.  The end-of-data line "\." is left out, because
 * COPY's CSV format would quote it: psql -f ends the data at the end of
 * the file just as well.  So the file differs from exwiw_dump_to_file's
 * (format 'copy') only in that missing last line and in the escaped marker
 * bytes, and loads to the same data.
 *
 * The INSERT format cannot go through COPY this way: its values are raw
 * bytes inside '...' (no E'' strings), so a value holding a carriage
 * return or a marker byte has no form that COPY leaves alone.  Use the
 * server-side sinks (sink/funcs.c) or the psql recipe for INSERT files.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"

/* The writer: the COPY writer, with the marker bytes escaped. */
typedef struct LinesWriter
{
	ExwiwWriter pub;
	ExwiwWriter *copy;			/* the SQL writer, format COPY */
	const char *table_name;
} LinesWriter;

/* A byte that COPY's CSV output with our options would not pass as is. */
#define IS_MARKER(c) ((unsigned char) (c) >= 0x01 && (unsigned char) (c) <= 0x03)

/*
 * check_name
 *		Error out when a name of the header holds a byte that cannot pass
 *		through COPY's CSV format unchanged (a carriage return or a marker
 *		byte); the header has no escapes for them.
 */
static void
check_name(const char *what, const char *name)
{
	const char *p;

	for (p = name; *p; p++)
		if (*p == '\r' || IS_MARKER(*p))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("%s \"%s\" cannot be written by exwiw_copy_lines", what, name),
					 errdetail("It holds a carriage return or a byte 0x01 to 0x03, which COPY's CSV format would not pass through unchanged."),
					 errhint("Rename it in the query, or use exwiw_dump_to_file or the psql recipe.")));
}

/*
 * lines_begin
 *		Writer callback: check the names, then prepare the COPY writer.
 */
static void
lines_begin(ExwiwWriter *w, TupleDesc desc, MemoryContext cxt)
{
	LinesWriter *lw = (LinesWriter *) w;
	int			i;

	check_name("table name", lw->table_name);
	for (i = 0; i < desc->natts; i++)
		check_name("column name", NameStr(TupleDescAttr(desc, i)->attname));
	lw->copy->begin(lw->copy, desc, cxt);
}

/*
 * lines_row
 *		Writer callback: the COPY writer's line, then each marker byte in
 *		it replaced by its octal escape.  The names were checked, so a
 *		marker byte here can only come from a value.
 */
static void
lines_row(ExwiwWriter *w, StringInfo buf, TupleTableSlot *slot, uint64 rowno)
{
	LinesWriter *lw = (LinesWriter *) w;
	int			start = buf->len;
	int			i;

	lw->copy->row(lw->copy, buf, slot, rowno);
	for (i = start; i < buf->len; i++)
		if (IS_MARKER(buf->data[i]))
			break;
	if (i < buf->len)
	{
		/* rare: rewrite the rest of the line with the escapes */
		int			len = buf->len - i;
		char	   *rest = palloc(len);
		int			j;

		memcpy(rest, buf->data + i, len);
		buf->len = i;
		buf->data[i] = '\0';
		for (j = 0; j < len; j++)
		{
			if (IS_MARKER(rest[j]))
				appendStringInfo(buf, "\\%03o", (unsigned char) rest[j]);
			else
				appendStringInfoChar(buf, rest[j]);
		}
		pfree(rest);
	}
}

/*
 * exwiw_copy_lines_writer
 *		The writer of exwiw_copy_lines (its entry point is in dump/funcs.c)
 *		for table_name, in the current memory context: the COPY writer's
 *		lines, the marker bytes escaped, no end-of-data line.
 */
ExwiwWriter *
exwiw_copy_lines_writer(const char *table_name)
{
	LinesWriter *lw = palloc0(sizeof(LinesWriter));
	ExwiwSqlWriterOptions opts = {0};

	opts.table_name = table_name;
	opts.format = EXWIW_FORMAT_COPY;
	opts.file = EXWIW_SQL_FILE;
	lw->copy = exwiw_sql_writer_create(&opts);
	lw->table_name = pstrdup(table_name);
	lw->pub.begin = lines_begin;
	lw->pub.row = lines_row;
	/* COPY has nothing between rows; the "\." line is left out (above) */
	lw->pub.between = NULL;
	lw->pub.finish = NULL;
	return &lw->pub;
}
