/*-------------------------------------------------------------------------
 *
 * extjson/datum.c
 *	  A json or jsonb datum as one Relaxed Extended JSON document, and the
 *	  errors of the Extended JSON core as ereports.
 *
 * jsonb is walked with its iterator, json text is parsed (keeping key order
 * and duplicate keys); both build the document tree of the core
 * (common/extjson/extjson.h), whose emitter knows the $-wrapper rules.  Errors give the
 * path inside the document ("$.a.b[2]") in their detail.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"

#include "common/extjson/extjson.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

/*
 * exwiw_extjson_raise
 *		ereport an ExjError: its message, and in the detail where the value
 *		is.  column, when not NULL, is the row's column the value came from;
 *		where is the path prefix (the root when NULL).  funcname is named
 *		by the caller's error context.
 */
void
exwiw_extjson_raise(const char *funcname, ExjError *err, const char *column,
					const char *where)
{
	int			code;
	const char *path = err->path.data ? err->path.data : "";

	switch (err->kind)
	{
		case EXJ_ERR_RANGE:
			code = ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE;
			break;
		case EXJ_ERR_UNSUPPORTED:
			code = ERRCODE_FEATURE_NOT_SUPPORTED;
			break;
		default:
			code = ERRCODE_INVALID_PARAMETER_VALUE;
			break;
	}
	if (column)
		ereport(ERROR,
				(errcode(code),
				 errmsg("%s", err->msg),
				 errdetail("The value is column \"%s\", at %s%s.", column,
						   where ? where : "", path)));
	ereport(ERROR,
			(errcode(code),
			 errmsg("%s", err->msg),
			 errdetail("The value is at %s%s.", where ? where : "", path)));
}

/*
 * exwiw_extjson_must_check_utf8
 *		Whether the JSON writers must check their output: JSON text is
 *		UTF-8, and the bytes of a SQL_ASCII database are whatever was
 *		stored.  In any other database the text is valid in the server
 *		encoding, which the server converts to the client's (a sink writes
 *		the server encoding's bytes, see doc/sinks.md).
 */
bool
exwiw_extjson_must_check_utf8(void)
{
	return GetDatabaseEncoding() == PG_SQL_ASCII;
}

/*
 * exwiw_extjson_check_utf8
 *		Error out unless the len bytes at s, JSON that a writer produced
 *		for the column (NULL: a whole document), are valid UTF-8.  The
 *		error names no byte of the value: it may come from a masked
 *		table.
 */
void
exwiw_extjson_check_utf8(const char *s, int len, const char *column)
{
	if (pg_verify_mbstr(PG_UTF8, s, len, true))
		return;
	if (column)
		ereport(ERROR,
				(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
				 errmsg("column \"%s\" is not valid UTF-8, which JSON requires", column),
				 errdetail("The database encoding is SQL_ASCII, which stores bytes without saying what they mean; exwiw writes JSON only from bytes that are valid UTF-8."),
				 errhint("Select a UTF-8 form of the column in the query, or its bytes as bytea (convert_to(column, 'SQL_ASCII')), which is written as Binary.")));
	ereport(ERROR,
			(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
			 errmsg("the document is not valid UTF-8, which JSON requires"),
			 errdetail("The database encoding is SQL_ASCII, which stores bytes without saying what they mean; exwiw writes JSON only from bytes that are valid UTF-8.")));
}

/*
 * build_jsonb_tree
 *		The tree of a jsonb value.  Strings point into the (detoasted) jsonb,
 *		numbers are numeric's text output.
 */
static ExjNode *
build_jsonb_tree(Jsonb *jb)
{
	ExjBuilder	b;
	JsonbIterator *it = JsonbIteratorInit(&jb->root);
	JsonbValue	v;
	JsonbIteratorToken tok;
	bool		raw_scalar = false;

	exj_builder_init(&b);
	while ((tok = JsonbIteratorNext(&it, &v, false)) != WJB_DONE)
	{
		switch (tok)
		{
			case WJB_BEGIN_ARRAY:
				if (v.val.array.rawScalar)
					raw_scalar = true;
				else
					exj_build_open(&b, EXJ_ARRAY);
				break;
			case WJB_BEGIN_OBJECT:
				exj_build_open(&b, EXJ_OBJECT);
				break;
			case WJB_END_ARRAY:
				if (!raw_scalar || b.depth > 0)
					exj_build_close(&b);
				break;
			case WJB_END_OBJECT:
				exj_build_close(&b);
				break;
			case WJB_KEY:
				exj_build_key(&b, v.val.string.val, v.val.string.len);
				break;
			case WJB_VALUE:
			case WJB_ELEM:
				switch (v.type)
				{
					case jbvString:
						exj_build_scalar(&b, EXJ_STRING, v.val.string.val,
										 v.val.string.len);
						break;
					case jbvNumeric:
						{
							char	   *s = DatumGetCString(DirectFunctionCall1(numeric_out,
																				NumericGetDatum(v.val.numeric)));

							exj_build_scalar(&b, EXJ_NUMBER, s, strlen(s));
							break;
						}
					case jbvBool:
						exj_build_scalar(&b, v.val.boolean ? EXJ_TRUE : EXJ_FALSE,
										 NULL, 0);
						break;
					case jbvNull:
						exj_build_scalar(&b, EXJ_NULL, NULL, 0);
						break;
					default:
						elog(ERROR, "unexpected jsonb value type %d", (int) v.type);
				}
				break;
			default:
				elog(ERROR, "unexpected jsonb iterator token %d", (int) tok);
		}
	}
	return b.root;
}

/*
 * exwiw_extjson_append_jsonb
 *		Append the document of a jsonb datum; false with err set on a
 *		malformed wrapper or an out-of-range number.
 */
bool
exwiw_extjson_append_jsonb(StringInfo buf, Datum jsonb, const char *root_path,
						   ExjError *err)
{
	Jsonb	   *jb = DatumGetJsonbP(jsonb);

	return exj_emit(buf, build_jsonb_tree(jb), root_path, err);
}

/*
 * exwiw_extjson_append_json
 *		Append the document of a json datum (key order and duplicates kept).
 */
bool
exwiw_extjson_append_json(StringInfo buf, Datum json, const char *root_path,
						  ExjError *err)
{
	text	   *t = DatumGetTextPP(json);
	ExjNode    *root;

	if (exj_emit_plain_json_text(buf, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t)))
		return true;
	if (!exj_parse_json_text(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), &root, err))
	{
		/* the parser's path starts with "$": ours instead */
		char	   *inner = pstrdup(err->path.data ? err->path.data + 1 : "");

		if (err->path.data == NULL)
			initStringInfo(&err->path);
		resetStringInfo(&err->path);
		appendStringInfoString(&err->path, root_path);
		appendStringInfoString(&err->path, inner);
		return false;
	}
	return exj_emit(buf, root, root_path, err);
}
