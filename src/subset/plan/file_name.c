/*-------------------------------------------------------------------------
 *
 * plan/file_name.c
 *	  The name of a table's file: insert-NNN-<table>.<ext>, and of its
 *	  k-th part: insert-NNN-<table>.partK.<ext>.
 *
 * One function names every file exwiw writes or returns, so the SQL
 * functions, the server-side sinks and the client agree.  NNN is the
 * table's position in processing order, zero-padded to width digits (three,
 * or as many as the largest number needs, so that names sort in load
 * order).  In <table>, a "/", a NUL or another control character, and "%"
 * itself, are written as %XX (the byte in upper-case hex), so that every
 * name is one file in one directory.
 *
 *-------------------------------------------------------------------------
 */
#include "subset/subset.h"

/*
 * exwiw_file_name
 *		"insert-<seq>-<table>.<ext>", palloc'd.
 */
char *
exwiw_file_name(int seq, int width, const char *table, const char *ext)
{
	return exwiw_named_file("insert", seq, width, table, ext);
}

/*
 * exwiw_named_file
 *		"<prefix>-<seq>-<table>.<ext>" (prefix "insert" or "delete"), seq
 *		zero-padded to width digits, the table's "/", "%" and control
 *		characters written %XX; palloc'd.
 */
char *
exwiw_named_file(const char *prefix, int seq, int width, const char *table,
				 const char *ext)
{
	StringInfoData s;
	const unsigned char *p;

	Assert(seq > 0 && width > 0);
	initStringInfo(&s);
	appendStringInfo(&s, "%s-%0*d-", prefix, width, seq);
	for (p = (const unsigned char *) table; *p; p++)
	{
		if (*p == '/' || *p == '%' || *p < 0x20 || *p == 0x7f)
			appendStringInfo(&s, "%%%02X", *p);
		else
			appendStringInfoChar(&s, (char) *p);
	}
	appendStringInfo(&s, ".%s", ext);
	return s.data;
}

/*
 * exwiw_part_file_name
 *		The name of part k of a file named name: ".part<k>" before the
 *		extension (insert-003-orders.part2.sql), palloc'd.
 */
char *
exwiw_part_file_name(const char *name, int part)
{
	const char *dot = strrchr(name, '.');
	int			stem = dot ? (int) (dot - name) : (int) strlen(name);

	return psprintf("%.*s.part%d%s", stem, name, part, dot ? dot : "");
}
