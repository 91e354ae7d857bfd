/*-------------------------------------------------------------------------
 *
 * mask/partial.c
 *	  The partial mask, the engine of exwiw_mask_partial() (its entry point
 *	  is in mask/funcs.c): keep the start and the end of a value, fill the
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

#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

/*
 * mask_partial_build
 *		The masked bytes of value[0..len) (valid in the database encoding)
 *		in a new buffer, after room bytes left for the caller (a varlena
 *		header) and followed by a NUL; *outlen is their length.
 *
 * The result's length is known before any byte is written: the kept
 * characters' bytes, a copy of fill per hidden character, and the
 * domain.  When the masked part is ASCII (every byte below 0x80, a
 * character each in every server encoding) a character's offset is its
 * index; otherwise pg_mblen walks it.
 */
char *
mask_partial_build(const char *value, int len, int keep_start, int keep_end,
				   const char *fill, int fill_len, bool keep_domain, int room,
				   int *outlen)
{
	int			mlen = len;
	int			nchars;
	int			hidden;
	int			head = 0;		/* bytes of the kept start */
	int			tail;			/* offset of the kept end */
	bool		ascii = true;
	int64		size;
	char	   *buf;
	char	   *p;
	int			i;

	if (keep_domain)
	{
		for (i = len - 1; i >= 0; i--)
			if (value[i] == '@')
				break;
		if (i >= 0)
			mlen = i;
	}
	/* ASCII: no byte with its high bit set, eight bytes at a time */
	for (i = 0; i + 8 <= mlen; i += 8)
	{
		uint64		w;

		memcpy(&w, value + i, sizeof(w));
		if (w & UINT64CONST(0x8080808080808080))
			break;
	}
	for (; i < mlen; i++)
		if ((unsigned char) value[i] >= 0x80)
		{
			ascii = false;
			break;
		}
	nchars = ascii ? mlen : pg_mbstrlen_with_len(value, mlen);
	if (nchars > (int64) keep_start + keep_end)
	{
		hidden = nchars - keep_start - keep_end;
		if (ascii)
		{
			head = keep_start;
			tail = mlen - keep_end;
		}
		else
		{
			int			pos = 0;

			for (i = 0; i < nchars - keep_end; i++)
			{
				if (i == keep_start)
					head = pos;
				pos += pg_mblen(value + pos);
			}
			tail = pos;
		}
	}
	else
	{
		/* filled whole */
		hidden = nchars;
		head = 0;
		tail = mlen;
	}

	/* a text is at most 1 GB; a long fill could make it longer */
	size = (int64) head + (int64) hidden * fill_len + (len - tail);
	if (size > MaxAllocSize - room - 1)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the partially masked value would be longer than %zu bytes",
						(size_t) (MaxAllocSize - room - 1))));
	*outlen = (int) size;
	buf = palloc(room + *outlen + 1);
	p = buf + room;
	memcpy(p, value, head);
	p += head;
	if (fill_len == 1)
	{
		memset(p, fill[0], hidden);
		p += hidden;
	}
	else
		for (i = 0; i < hidden; i++)
		{
			memcpy(p, fill, fill_len);
			p += fill_len;
		}
	memcpy(p, value + tail, len - tail);
	p[len - tail] = '\0';
	return buf;
}

/*
 * mask_partial_value
 *		The masked text of value[0..len) (valid in the database encoding),
 *		as a C string.
 */
char *
mask_partial_value(const char *value, int len, int keep_start, int keep_end,
				   const char *fill, bool keep_domain)
{
	int			outlen;

	return mask_partial_build(value, len, keep_start, keep_end, fill, strlen(fill),
							  keep_domain, 0, &outlen);
}
