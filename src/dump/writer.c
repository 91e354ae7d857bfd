/*-------------------------------------------------------------------------
 *
 * dump/writer.c
 *	  The INSERT and COPY writers: format rows the way the dump format says.
 *
 * The text of the format, the framing of rows into statements included,
 * is sql_text.c's; this file turns each value into text.
 *
 * Values come from the type's output function, looked up once per column;
 * the common integer, boolean and string types take a shortcut that
 * produces the same bytes without the palloc of the output function.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"

#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

/* How one column's value is turned into text. */
typedef enum ColumnKind
{
	COL_GENERIC,				/* call the output function */
	COL_INT2,
	COL_INT4,
	COL_INT8,
	COL_BOOL,
	COL_TEXT					/* text, varchar, bpchar: the bytes as stored */
} ColumnKind;

typedef struct SqlColumn
{
	ColumnKind	kind;
	FmgrInfo	outfn;
} SqlColumn;

typedef struct SqlWriter
{
	ExwiwWriter pub;
	char	   *table_name;
	ExwiwSqlFormat format;
	bool		overriding_system_value;
	bool		no_column_list;
	int			natts;
	StringInfoData header;		/* "INSERT INTO t (a, b) VALUES\n" */
	ExwiwSqlFrame frame;		/* header, prologue, epilogue, statements */
	const char *piece_epilogue; /* the epilogue of a piece that is not the
								 * last: no setval lines */
	SqlColumn  *cols;
} SqlWriter;


/*
 * column_kind
 *		Pick the shortcut for a result column's type, if there is one.
 *
 * Shortcuts must give exactly the bytes of the type's output function;
 * domains and everything else use the output function.
 */
static ColumnKind
column_kind(Oid typid)
{
	switch (typid)
	{
		case INT2OID:
			return COL_INT2;
		case INT4OID:
			return COL_INT4;
		case INT8OID:
			return COL_INT8;
		case BOOLOID:
			return COL_BOOL;
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
			return COL_TEXT;
		default:
			return COL_GENERIC;
	}
}

/*
 * sql_writer_begin
 *		Build the statement header and look up the output functions.
 */
static void
sql_writer_begin(ExwiwWriter *w, TupleDesc desc, MemoryContext cxt)
{
	SqlWriter  *sw = (SqlWriter *) w;
	MemoryContext old = MemoryContextSwitchTo(cxt);
	int			i;

	sw->natts = desc->natts;
	sw->cols = palloc0(sizeof(SqlColumn) * desc->natts);

	initStringInfo(&sw->header);
	appendStringInfoString(&sw->header,
						   sw->format == EXWIW_FORMAT_INSERT ? "INSERT INTO " : "COPY ");
	exwiw_append_table_name(&sw->header, sw->table_name);
	if (!sw->no_column_list)
		appendStringInfoString(&sw->header, " (");
	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		Oid			outfunc;
		bool		isvarlena;

		if (!sw->no_column_list)
		{
			if (i > 0)
				appendStringInfoString(&sw->header, ", ");
			exwiw_append_ident(&sw->header, NameStr(att->attname));
		}
		sw->cols[i].kind = column_kind(att->atttypid);
		getTypeOutputInfo(att->atttypid, &outfunc, &isvarlena);
		fmgr_info_cxt(outfunc, &sw->cols[i].outfn, cxt);
	}
	if (!sw->no_column_list)
		appendStringInfoChar(&sw->header, ')');
	if (sw->format == EXWIW_FORMAT_COPY)
		appendStringInfoString(&sw->header, " FROM stdin;\n");
	else if (sw->overriding_system_value)
		appendStringInfoString(&sw->header, " OVERRIDING SYSTEM VALUE VALUES\n");
	else
		appendStringInfoString(&sw->header, " VALUES\n");
	sw->frame.header = sw->header.data;
	sw->frame.header_len = sw->header.len;
	MemoryContextSwitchTo(old);
}

/*
 * check_room
 *		Error out, clearly, when a value would push the chunk past the 1 GB
 *		limit of a text value.
 *
 * A chunk holds at least one whole row, so one row's text must fit in
 * MaxAllocSize.  Values too small to matter skip the exact count.
 */
static void
check_room(StringInfo buf, const char *s, int len, bool insert, uint64 rowno)
{
	Size		need;

	if ((Size) buf->len + 2 * (Size) len + 2 < MaxAllocSize - 1)
		return;
	need = exwiw_sql_escaped_length(s, len, insert);
	if ((Size) buf->len + need >= MaxAllocSize - 1)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("row " UINT64_FORMAT " is too large to export", rowno + 1),
				 errdetail("A chunk is one text value, limited to 1 GB, and holds at least one whole row; this row needs more than %zu bytes.",
						   (Size) buf->len + need),
				 errhint("Export the widest columns separately, or select a shorter form of them.")));
}

/*
 * append_value
 *		Append one non-NULL value, escaped as the format says.
 *
 * Runs in the stream's per-row context, so the output function's result is
 * freed with the row.  rowno (0-based) names the row in a size error.
 */
static inline void
append_value(SqlWriter *sw, StringInfo buf, SqlColumn *col, Datum value,
			 uint64 rowno)
{
	char		num[MAXINT8LEN + 1];
	int			len;

	switch (col->kind)
	{
		case COL_INT2:
			len = pg_itoa(DatumGetInt16(value), num);
			exwiw_sql_frame_value(&sw->frame, buf, num, len);
			break;
		case COL_INT4:
			len = pg_ltoa(DatumGetInt32(value), num);
			exwiw_sql_frame_value(&sw->frame, buf, num, len);
			break;
		case COL_INT8:
			len = pg_lltoa(DatumGetInt64(value), num);
			exwiw_sql_frame_value(&sw->frame, buf, num, len);
			break;
		case COL_BOOL:
			exwiw_sql_frame_value(&sw->frame, buf, DatumGetBool(value) ? "t" : "f", 1);
			break;
		case COL_TEXT:
			{
				text	   *t = DatumGetTextPP(value);

				check_room(buf, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t),
						   sw->frame.insert, rowno);
				exwiw_sql_frame_value(&sw->frame, buf, VARDATA_ANY(t),
									  VARSIZE_ANY_EXHDR(t));
				break;
			}
		case COL_GENERIC:
			{
				char	   *s = OutputFunctionCall(&col->outfn, value);
				int			slen = strlen(s);

				check_room(buf, s, slen, sw->frame.insert, rowno);
				exwiw_sql_frame_value(&sw->frame, buf, s, slen);
				break;
			}
	}
}

/*
 * sql_writer_row
 *		Append one row, framed by sql_text.c: the statement header when a
 *		statement starts here, then the tuple (INSERT) or the data line
 *		(COPY).
 */
static void
sql_writer_row(ExwiwWriter *w, StringInfo buf, TupleTableSlot *slot,
			   uint64 rowno)
{
	SqlWriter  *sw = (SqlWriter *) w;
	int			i;

	slot_getallattrs(slot);
	Assert(slot->tts_nvalid == sw->natts);

	exwiw_sql_frame_row_start(&sw->frame, buf, rowno);
	for (i = 0; i < sw->natts; i++)
	{
		if (i > 0)
			exwiw_sql_frame_separator(&sw->frame, buf);
		if (slot->tts_isnull[i])
			exwiw_sql_frame_null(&sw->frame, buf);
		else
			append_value(sw, buf, &sw->cols[i], slot->tts_values[i], rowno);
	}
	exwiw_sql_frame_row_end(&sw->frame, buf);
}

/*
 * sql_writer_between
 *		End the previous line when another row follows.
 */
static void
sql_writer_between(ExwiwWriter *w, StringInfo buf, uint64 next_rowno)
{
	exwiw_sql_frame_between(&((SqlWriter *) w)->frame, buf, next_rowno);
}

/*
 * sql_writer_finish
 *		End the output, then the epilogue's lines, if any.
 */
static void
sql_writer_finish(ExwiwWriter *w, StringInfo buf, uint64 nrows)
{
	Assert(nrows > 0);
	exwiw_sql_frame_finish(&((SqlWriter *) w)->frame, buf);
}

/*
 * sql_writer_finish_piece
 *		End a piece of the output that is not the last (split_rows): as
 *		sql_writer_finish, but without the setval lines, which the last
 *		piece has.
 */
static void
sql_writer_finish_piece(ExwiwWriter *w, StringInfo buf, uint64 nrows)
{
	SqlWriter  *sw = (SqlWriter *) w;
	ExwiwSqlFrame f = sw->frame;

	Assert(nrows > 0);
	f.epilogue = sw->piece_epilogue;
	exwiw_sql_frame_finish(&f, buf);
}

/*
 * subset_trigger_blocks
 *		The blocks around a subset export's rows (after the settings, and
 *		after the setval lines): they keep the table's user triggers from
 *		firing during its load (a trigger that writes a keyed row would make the
 *		exported copy of that row collide).  The prologue's block sets
 *		session_replication_role to replica where the role may (which also
 *		skips foreign-key checks, as pg_dump's --disable-triggers does);
 *		otherwise, when the table has enabled user triggers, it disables
 *		those by name where the role owns the table, and remembers them in
 *		the setting exwiw_load.triggers (not exwiw.: the extension, where it is
 *		loaded, reserves that prefix), and warns naming them where it does not.
 *		The epilogue's block enables again exactly the triggers it disabled.
 *		Foreign-key triggers are internal: they stay, so a load by a
 *		non-superuser checks every constraint.  Everything is qualified: the
 *		loading session's search_path only finds the table, as the INSERT
 *		does.  The table's name goes in as a string literal, in a dollar
 *		quote whose tag it does not contain.
 */
static void
subset_trigger_blocks(const char *table_name, char **prologue, char **epilogue)
{
	StringInfoData name;
	StringInfoData lit;
	StringInfoData tag;
	StringInfoData b;
	int			n = 0;

	initStringInfo(&name);
	exwiw_append_table_name(&name, table_name);
	initStringInfo(&lit);
	exwiw_append_insert_value(&lit, name.data, name.len);
	initStringInfo(&tag);
	appendStringInfoString(&tag, "$exwiw$");
	while (strstr(name.data, tag.data) != NULL)
	{
		resetStringInfo(&tag);
		appendStringInfo(&tag, "$exwiw%d$", ++n);
	}

	initStringInfo(&b);
	appendStringInfo(&b,
					 "DO %s DECLARE\n"
					 "  rel pg_catalog.regclass := CAST(%s AS pg_catalog.regclass);\n"
					 "  names pg_catalog.text[];\n"
					 "  t pg_catalog.text;\n"
					 "BEGIN\n"
					 "  PERFORM pg_catalog.set_config('session_replication_role', 'replica', false);\n"
					 "EXCEPTION WHEN insufficient_privilege THEN\n"
					 "  SELECT pg_catalog.array_agg(g.tgname::pg_catalog.text ORDER BY g.tgname) INTO names\n"
					 "    FROM pg_catalog.pg_trigger g\n"
					 "    WHERE g.tgrelid OPERATOR(pg_catalog.=) rel AND NOT g.tgisinternal\n"
					 "    AND g.tgenabled OPERATOR(pg_catalog.<>) 'D';\n"
					 "  IF names IS NULL THEN RETURN; END IF;\n"
					 "  IF pg_catalog.pg_has_role((SELECT c.relowner FROM pg_catalog.pg_class c\n"
					 "      WHERE c.oid OPERATOR(pg_catalog.=) rel), 'USAGE') THEN\n"
					 "    FOREACH t IN ARRAY names LOOP\n"
					 "      EXECUTE pg_catalog.format('ALTER TABLE %%s DISABLE TRIGGER %%I', rel, t);\n"
					 "    END LOOP;\n"
					 "    PERFORM pg_catalog.set_config('exwiw_load.triggers', CAST(names AS pg_catalog.text), false);\n"
					 "  ELSE\n"
					 "    RAISE WARNING 'exwiw: the triggers of table %% fire during the load: %%', rel, names\n"
					 "      USING HINT = 'Load as the owner of the table, or as a role that may set session_replication_role.';\n"
					 "  END IF;\n"
					 "END %s;\n",
					 tag.data, lit.data, tag.data);
	*prologue = b.data;

	initStringInfo(&b);
	appendStringInfo(&b,
					 "DO %s DECLARE\n"
					 "  t pg_catalog.text;\n"
					 "BEGIN\n"
					 "  IF pg_catalog.current_setting('exwiw_load.triggers', true) OPERATOR(pg_catalog.<>) '' THEN\n"
					 "    FOREACH t IN ARRAY CAST(pg_catalog.current_setting('exwiw_load.triggers') AS pg_catalog.text[]) LOOP\n"
					 "      EXECUTE pg_catalog.format('ALTER TABLE %%s ENABLE TRIGGER %%I', CAST(%s AS pg_catalog.regclass), t);\n"
					 "    END LOOP;\n"
					 "    PERFORM pg_catalog.set_config('exwiw_load.triggers', '', false);\n"
					 "  END IF;\n"
					 "END %s;",
					 tag.data, lit.data, tag.data);
	*epilogue = b.data;
}

/*
 * exwiw_file_encoding_name
 *		The encoding of a whole file's bytes where they land.  A file the
 *		server writes itself (server_file: the sinks) holds the server's
 *		bytes.  Text sent to the client is converted to its client_encoding,
 *		except to SQL_ASCII, which takes the server's bytes as they are; from
 *		a SQL_ASCII database the bytes are only checked to be valid in the
 *		client_encoding, so they are in it as well.  Call it in the
 *		statement that writes the file: a later SET client_encoding would
 *		change the answer.
 */
const char *
exwiw_file_encoding_name(bool server_file)
{
	if (server_file || pg_get_client_encoding() == PG_SQL_ASCII)
		return GetDatabaseEncodingName();
	return pg_get_client_encoding_name();
}

/*
 * exwiw_sql_file_prologue
 *		The lines a whole file starts with (doc/sql-dump-format.md), in the
 *		current memory context: first the encoding of its bytes, so that
 *		psql reads the rest in that encoding (in a client encoding such as
 *		SJIS, a byte of another encoding before a quote would otherwise be
 *		read as a lead byte, the quote would not end the literal, and the
 *		rest of the value would run as SQL or as a psql command); then
 *		standard_conforming_strings, on which the literals rely (off, a
 *		backslash of a value would end its literal the same way).  A subset
 *		export's file adds its table's trigger block (subset_trigger_blocks).
 *		Both lines are ASCII, so any client encoding reads the first one
 *		right.
 */
char *
exwiw_sql_file_prologue(ExwiwSqlFile file, bool server_file)
{
	StringInfoData buf;

	Assert(file != EXWIW_SQL_STREAM);
	initStringInfo(&buf);
	appendStringInfo(&buf, "SET client_encoding = '%s';\n",
					 exwiw_file_encoding_name(server_file));
	appendStringInfoString(&buf, "SET standard_conforming_strings = on;\n");
	return buf.data;
}

/*
 * exwiw_parse_sql_format
 *		Map the user's format argument to ExwiwSqlFormat; "jsonl" only when
 *		allow_jsonl (a subset export).
 */
ExwiwSqlFormat
exwiw_parse_sql_format(const char *format, bool allow_jsonl)
{
	if (pg_strcasecmp(format, "insert") == 0)
		return EXWIW_FORMAT_INSERT;
	if (pg_strcasecmp(format, "copy") == 0)
		return EXWIW_FORMAT_COPY;
	if (allow_jsonl && pg_strcasecmp(format, "jsonl") == 0)
		return EXWIW_FORMAT_JSONL;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown format \"%s\"", format),
			 allow_jsonl ?
			 errhint("Valid formats are \"insert\", \"copy\" and \"jsonl\".") :
			 errhint("Valid formats are \"insert\" and \"copy\".")));
	pg_unreachable();
}

/*
 * setval_text
 *		"SELECT pg_catalog.setval('<name>', <last_value>, <is_called>);" per
 *		sequence, joined by "\n" without a final one; NULL for none.  The
 *		name as a string literal: ' doubled, nothing else escaped (the file
 *		sets standard_conforming_strings).
 */
static char *
setval_text(List *sequences)
{
	StringInfoData out;
	ListCell   *lc;

	if (sequences == NIL)
		return NULL;
	initStringInfo(&out);
	foreach(lc, sequences)
	{
		ExwiwSequenceState *seq = lfirst(lc);

		if (out.len > 0)
			appendStringInfoChar(&out, '\n');
		appendStringInfoString(&out, "SELECT pg_catalog.setval(");
		exwiw_append_insert_value(&out, seq->name, strlen(seq->name));
		appendStringInfo(&out, ", %s, %s);", seq->last_value,
						 seq->is_called ? "true" : "false");
	}
	return out.data;
}

/*
 * exwiw_sql_writer_create
 *		A writer as opts say, allocated in the current memory context.
 *		rows_per_statement <= 0 means one statement; it is ignored for COPY.
 */
ExwiwWriter *
exwiw_sql_writer_create(const ExwiwSqlWriterOptions *opts)
{
	SqlWriter  *sw = palloc0(sizeof(SqlWriter));
	StringInfoData probe;
	char	   *setval_lines;

	/* validate the name now, before any query runs */
	initStringInfo(&probe);
	exwiw_append_table_name(&probe, opts->table_name);
	pfree(probe.data);

	sw->pub.begin = sql_writer_begin;
	sw->pub.row = sql_writer_row;
	sw->pub.between = sql_writer_between;
	sw->pub.finish = sql_writer_finish;
	sw->pub.finish_piece = sql_writer_finish_piece;
	sw->table_name = pstrdup(opts->table_name);
	sw->format = opts->format;
	sw->overriding_system_value = opts->overriding_system_value &&
		opts->format == EXWIW_FORMAT_INSERT;
	sw->no_column_list = opts->no_column_list;
	sw->frame.insert = opts->format == EXWIW_FORMAT_INSERT;
	sw->frame.rows_per_statement = opts->rows_per_statement > 0 ? opts->rows_per_statement : 0;
	sw->frame.prologue = opts->file == EXWIW_SQL_STREAM ? NULL :
		exwiw_sql_file_prologue(opts->file, opts->server_file);
	setval_lines = setval_text(opts->sequences);
	sw->frame.epilogue = setval_lines;
	if (opts->file == EXWIW_SQL_SUBSET)
	{
		char	   *prologue;
		char	   *epilogue;

		subset_trigger_blocks(opts->table_name, &prologue, &epilogue);
		sw->frame.prologue = psprintf("%s%s", sw->frame.prologue, prologue);
		sw->frame.epilogue = setval_lines ?
			psprintf("%s\n%s", setval_lines, epilogue) : epilogue;
		sw->piece_epilogue = epilogue;
	}
	sw->frame.conflict = opts->conflict && sw->frame.insert ? pstrdup(opts->conflict) : NULL;
	return &sw->pub;
}
