/*-------------------------------------------------------------------------
 *
 * sql_text.h
 *	  The text of the dump format (sql_text.c): literals, COPY escapes,
 *	  identifiers and the framing of rows.  Usable without the server.
 *
 *-------------------------------------------------------------------------
 */
#ifndef EXWIW_SQL_TEXT_H
#define EXWIW_SQL_TEXT_H

#include "lib/stringinfo.h"

/*
 * How rows are framed: INSERT statements (insert) or a COPY block.  header
 * is the statement header, ending with its newline ("INSERT INTO t (a, b)
 * VALUES\n", "COPY t (a, b) FROM stdin;\n"); prologue is written before
 * the first row and epilogue after the last, on lines of their own; either
 * may be NULL.  rows_per_statement <= 0: one INSERT statement.
 */
typedef struct ExwiwSqlFrame
{
	bool		insert;
	int64		rows_per_statement;
	const char *header;
	int			header_len;
	const char *prologue;
	const char *epilogue;
	const char *conflict;		/* INSERT: a clause on a line of its own
								 * before each ";", or NULL */
} ExwiwSqlFrame;

extern bool exwiw_ident_needs_quotes(const char *ident);
extern void exwiw_append_quoted_ident(StringInfo buf, const char *ident);
extern void exwiw_append_ident(StringInfo buf, const char *ident);
extern void exwiw_append_insert_value(StringInfo buf, const char *s, int len);
extern Size exwiw_sql_escaped_length(const char *s, int len, bool insert);

extern void exwiw_sql_frame_row_start(const ExwiwSqlFrame *f, StringInfo buf,
									  uint64 rowno);
extern void exwiw_sql_frame_separator(const ExwiwSqlFrame *f, StringInfo buf);
extern void exwiw_sql_frame_null(const ExwiwSqlFrame *f, StringInfo buf);
extern void exwiw_sql_frame_value(const ExwiwSqlFrame *f, StringInfo buf,
								  const char *s, int len);
extern void exwiw_sql_frame_row_end(const ExwiwSqlFrame *f, StringInfo buf);
extern void exwiw_sql_frame_between(const ExwiwSqlFrame *f, StringInfo buf,
									uint64 next_rowno);
extern void exwiw_sql_frame_finish(const ExwiwSqlFrame *f, StringInfo buf);

#endif							/* EXWIW_SQL_TEXT_H */
