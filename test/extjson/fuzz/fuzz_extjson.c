/*-------------------------------------------------------------------------
 *
 * fuzz_extjson.c
 *	  libFuzzer target for the backend-independent Extended JSON core:
 *	  json text -> document tree -> Relaxed Extended JSON (common/extjson/parse.c,
 *	  common/extjson/tree.c, common/extjson/emit.c, common/extjson/wrappers.c),
 *	  and the float, Decimal128, base64 and date formatters
 *	  (common/extjson/format.c).
 *
 * Built and run by test/extjson/fuzz/run.sh (clang, -fsanitize=fuzzer,
 * address,undefined; PostgreSQL's libpgcommon/libpgport for the JSON parser,
 * Ryu and StringInfo).  Checks, besides ASan/UBSan/LeakSanitizer:
 *	- a double's text reads back as the same double;
 *	- an emitted document is itself valid JSON (PostgreSQL's parser);
 *	- the fast path for json without wrappers writes what the tree does.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include <math.h>

#include "common/jsonapi.h"
#include "mb/pg_wchar.h"
#include "common/compat.h"
#include "common/extjson/extjson.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * check_double
 *		Format the double in the first 8 bytes and check it round-trips.
 */
static void
check_double(const uint8_t *data, size_t size)
{
	double		d;
	char		out[40];
	StringInfoData buf;

	if (size < 8)
		return;
	memcpy(&d, data, 8);
	initStringInfo(&buf);
	exj_append_double(&buf, d);
	if (isfinite(d))
	{
		int			n = exj_format_double(d, out);

		if (n <= 0 || n >= 32 || strtod(out, NULL) != d ||
			(signbit(d) != signbit(strtod(out, NULL))))
		{
			fprintf(stderr, "float %.17g formatted as %s\n", d, out);
			abort();
		}
	}
	pfree(buf.data);
}

/*
 * valid_json
 *		Is text valid JSON?  (No de-escaping, nothing allocated but the lexer.)
 */
static bool
valid_json(const char *text, int len)
{
	JsonLexContext lexspace;
	JsonLexContext *lex = exwiw_json_lex_make(&lexspace, text, len, false);
	bool		ok = pg_parse_json(lex, &nullSemAction) == JSON_SUCCESS;

	exwiw_json_lex_free(lex);
	return ok;
}

/*
 * LLVMFuzzerTestOneInput
 *		One input: a double, then the whole input as json text, as a
 *		Decimal128 string, as base64, and as an ISO date.
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	StringInfoData buf;
	ExjError	err;
	ExjNode    *root;
	int64		usec;

	if (size > 1 << 16)
		return 0;
	check_double(data, size);

	memset(&err, 0, sizeof(err));
	initStringInfo(&buf);

	/*
	 * PostgreSQL 15's frontend JSON parser leaks a field name when the text
	 * has a syntax error after it (the server frees it with its memory
	 * context).  A json datum is always valid JSON, so check that first with
	 * a parse that allocates nothing, as json_in does.
	 */
	if (!valid_json((const char *) data, (int) size))
		goto formatters;
	if (exj_parse_json_text((const char *) data, (int) size, &root, &err))
	{
		bool		emitted = exj_emit(&buf, root, "$", &err);
		StringInfoData fast;

		/* the fast path, when it applies, must write the same bytes */
		initStringInfo(&fast);
		if (exj_emit_plain_json_text(&fast, (const char *) data, (int) size) &&
			(!emitted || fast.len != buf.len || memcmp(fast.data, buf.data, buf.len) != 0))
		{
			fprintf(stderr, "fast path wrote %s, tree wrote %s\n", fast.data,
					emitted ? buf.data : "an error");
			abort();
		}
		pfree(fast.data);
		if (emitted && !valid_json(buf.data, buf.len))
		{
			fprintf(stderr, "emitted invalid JSON: %s\n", buf.data);
			abort();
		}
		exj_tree_free(root);
	}
	if (err.path.data)
		pfree(err.path.data);

formatters:
	resetStringInfo(&buf);
	memset(&err, 0, sizeof(err));
	(void) exj_append_decimal128(&buf, (const char *) data, (int) size, &err);
	resetStringInfo(&buf);
	if (exj_base64_decode((const char *) data, (int) size, &buf))
	{
		StringInfoData b64;

		initStringInfo(&b64);
		exj_append_base64(&b64, (const unsigned char *) buf.data, buf.len);
		pfree(b64.data);
	}
	resetStringInfo(&buf);
	if (exj_parse_iso_date((const char *) data, (int) size, &usec))
		exj_append_date_usec(&buf, usec);
	resetStringInfo(&buf);
	exj_append_string(&buf, (const char *) data, (int) size);
	pfree(buf.data);
	return 0;
}
