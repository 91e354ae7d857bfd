/*-------------------------------------------------------------------------
 *
 * mask_partial.c
 *	  exwiw_mask_partial(): keep the start and the end of a value, fill the
 *	  rest.
 *
 *	  exwiw_mask_partial(value text, keep_start int, keep_end int,
 *						 fill text, keep_domain boolean) RETURNS text
 *
 * Characters, not bytes, are counted (in the database encoding), and each
 * hidden character becomes one copy of fill.  A value of keep_start +
 * keep_end characters or fewer is filled whole: keeping its ends would
 * show all of it.  With keep_domain, a value with an "@" keeps everything
 * from its last "@" on, and only the part before it is masked as above
 * (user@example.com with keep_start 1: u***@example.com).  NULL stays
 * NULL; "" stays "".
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"
#include "mask/mask.h"

#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(exwiw_mask_partial);

/*
 * mask_partial_value
 *		The masked text of value[0..len) (valid in the database encoding).
 */
char *
mask_partial_value(const char *value, int len, int keep_start, int keep_end,
				   const char *fill, bool keep_domain)
{
	StringInfoData s;
	int			mlen = len;
	int			nchars;
	int			pos;
	int			i;

	if (keep_domain)
	{
		for (i = len - 1; i >= 0; i--)
			if (value[i] == '@')
				break;
		if (i >= 0)
			mlen = i;
	}
	nchars = pg_mbstrlen_with_len(value, mlen);
	initStringInfo(&s);
	pos = 0;
	for (i = 0; i < nchars; i++)
	{
		int			clen = pg_mblen(value + pos);
		bool		keep = nchars > (int64) keep_start + keep_end &&
			(i < keep_start || i >= nchars - keep_end);

		if (keep)
			appendBinaryStringInfo(&s, value + pos, clen);
		else
			appendStringInfoString(&s, fill);
		pos += clen;
	}
	appendBinaryStringInfo(&s, value + mlen, len - mlen);
	return s.data;
}

/*
 * exwiw_mask_partial
 *		SQL entry point, see the file header.  Negative counts and an empty
 *		or NULL fill are errors.
 */
Datum
exwiw_mask_partial(PG_FUNCTION_ARGS)
{
	text	   *value;
	int32		keep_start = PG_ARGISNULL(1) ? 0 : PG_GETARG_INT32(1);
	int32		keep_end = PG_ARGISNULL(2) ? 0 : PG_GETARG_INT32(2);
	char	   *fill = PG_ARGISNULL(3) ? "*" : text_to_cstring(PG_GETARG_TEXT_PP(3));
	bool		keep_domain = PG_ARGISNULL(4) ? false : PG_GETARG_BOOL(4);

	if (keep_start < 0 || keep_end < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("keep_start and keep_end must not be negative")));
	if (fill[0] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the fill of a partial mask must not be empty")));
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	value = PG_GETARG_TEXT_PP(0);
	PG_RETURN_TEXT_P(cstring_to_text(mask_partial_value(VARDATA_ANY(value),
														VARSIZE_ANY_EXHDR(value),
														keep_start, keep_end,
														fill, keep_domain)));
}
