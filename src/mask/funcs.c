/*-------------------------------------------------------------------------
 *
 * mask/funcs.c
 *	  The SQL-callable functions of the masks, each called once per row by
 *	  an export's select list: the arguments decoded (a call site's
 *	  constant arguments checked once and kept in fn_extra), the value
 *	  masked by the engine (mask/pseudonym.c, mask/partial.c, mask/noise.c,
 *	  mask/json.c).
 *
 *	  exwiw_mask_pseudonym(value text, type text, locale text) RETURNS text
 *	  exwiw_mask_partial(value text, keep_start int, keep_end int,
 *						 fill text, keep_domain boolean) RETURNS text
 *	  exwiw_mask_noise(value numeric, ratio float8, type oid,
 *					   column text, seed "any", typmod int4)
 *					   RETURNS numeric
 *	  exwiw_mask_noise(value date | timestamp | timestamptz, span interval,
 *					   column text, seed "any") RETURNS the same type
 *	  exwiw_mask_json(value jsonb, spec jsonb) RETURNS jsonb
 *
 * exwiw--1.1.sql has the declarations; each engine file's header says what
 * its mask gives.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"
#include "mask/mask.h"

#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

PG_FUNCTION_INFO_V1(exwiw_mask_pseudonym);
PG_FUNCTION_INFO_V1(exwiw_mask_partial);
PG_FUNCTION_INFO_V1(exwiw_mask_noise_numeric);
PG_FUNCTION_INFO_V1(exwiw_mask_noise_date);
PG_FUNCTION_INFO_V1(exwiw_mask_noise_timestamp);
PG_FUNCTION_INFO_V1(exwiw_mask_json);
PG_FUNCTION_INFO_V1(exwiw_mask_hmac_test);
PG_FUNCTION_INFO_V1(exwiw_mask_siphash_test);

/*
 * The type and locale arguments of one call site, checked: the same text
 * on every row in an export's query, so they are checked once and kept in
 * fn_extra, the arguments' bytes compared on each row.
 */
typedef struct PseudonymArgs
{
	char	   *type;			/* as given, NUL-terminated */
	int			type_len;
	bool		has_locale;
	char	   *locale;
	int			locale_len;
	bool		ja;
} PseudonymArgs;

/*
 * same_text
 *		Is t's text the len bytes at s?
 */
static bool
same_text(text *t, const char *s, int len)
{
	return VARSIZE_ANY_EXHDR(t) == len && memcmp(VARDATA_ANY(t), s, len) == 0;
}

/*
 * pseudonym_args
 *		The checked type and locale of this call: those kept in fn_extra
 *		when the arguments are the same text, else checked and kept.  The
 *		type and locale are checked before the secret (mask_pseudonym_value),
 *		so that a mistake in them is reported first.
 */
static PseudonymArgs *
pseudonym_args(FunctionCallInfo fcinfo)
{
	/* no FmgrInfo (a direct call): nothing is kept */
	PseudonymArgs *args = fcinfo->flinfo ? (PseudonymArgs *) fcinfo->flinfo->fn_extra : NULL;
	MemoryContext mcxt = fcinfo->flinfo ? fcinfo->flinfo->fn_mcxt : CurrentMemoryContext;
	text	   *type_text;
	text	   *locale_text = NULL;
	char	   *type;
	bool		ja = false;

	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the pseudonym type must not be null")));
	type_text = PG_GETARG_TEXT_PP(1);
	if (!PG_ARGISNULL(2))
		locale_text = PG_GETARG_TEXT_PP(2);
	if (args != NULL && same_text(type_text, args->type, args->type_len) &&
		(locale_text == NULL ? !args->has_locale :
		 args->has_locale && same_text(locale_text, args->locale, args->locale_len)))
		return args;

	type = text_to_cstring(type_text);
	if (!mask_pseudonym_type_known(type))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown pseudonym type \"%s\"", type),
				 errhint("Known types: %s.", mask_pseudonym_types())));
	if (locale_text != NULL)
	{
		char	   *locale = text_to_cstring(locale_text);

		if (strcmp(locale, "ja") == 0)
			ja = true;
		else if (strcmp(locale, "en") != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown pseudonym locale \"%s\"", locale),
					 errhint("Known locales: en (the default) and ja.")));
	}
	if (!ja && strstr(type, "kana"))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("pseudonym type \"%s\" needs locale \"ja\"", type)));

	if (args == NULL)
		args = MemoryContextAllocZero(mcxt, sizeof(PseudonymArgs));
	else
	{
		pfree(args->type);
		if (args->locale)
			pfree(args->locale);
	}
	args->type = MemoryContextStrdup(mcxt, type);
	args->type_len = strlen(type);
	args->has_locale = locale_text != NULL;
	args->locale = NULL;
	args->locale_len = 0;
	if (locale_text != NULL)
	{
		args->locale = MemoryContextStrdup(mcxt, text_to_cstring(locale_text));
		args->locale_len = strlen(args->locale);
	}
	args->ja = ja;
	if (fcinfo->flinfo)
		fcinfo->flinfo->fn_extra = args;
	return args;
}

/*
 * exwiw_mask_pseudonym
 *		SQL entry point, see the file header.  NULL value: NULL; "": "".
 */
Datum
exwiw_mask_pseudonym(PG_FUNCTION_ARGS)
{
	PseudonymArgs *args = pseudonym_args(fcinfo);
	text	   *value;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	value = PG_GETARG_TEXT_PP(0);
	/* "" holds nothing to hide, and stays "" */
	if (VARSIZE_ANY_EXHDR(value) == 0)
		PG_RETURN_TEXT_P(cstring_to_text(""));
	PG_RETURN_TEXT_P(mask_pseudonym_text(args->type, args->ja, VARDATA_ANY(value),
										 VARSIZE_ANY_EXHDR(value)));
}


/*
 * exwiw_mask_partial
 *		SQL entry point, see the file header.  Negative counts and an empty
 *		or NULL fill are errors.  The result is built in place as a text.
 */
Datum
exwiw_mask_partial(PG_FUNCTION_ARGS)
{
	text	   *value;
	int32		keep_start = PG_ARGISNULL(1) ? 0 : PG_GETARG_INT32(1);
	int32		keep_end = PG_ARGISNULL(2) ? 0 : PG_GETARG_INT32(2);
	const char *fill = "*";
	int			fill_len = 1;
	bool		keep_domain = PG_ARGISNULL(4) ? false : PG_GETARG_BOOL(4);
	char	   *result;
	int			outlen;

	if (!PG_ARGISNULL(3))
	{
		text	   *f = PG_GETARG_TEXT_PP(3);

		fill = VARDATA_ANY(f);
		fill_len = VARSIZE_ANY_EXHDR(f);
	}
	if (keep_start < 0 || keep_end < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("keep_start and keep_end must not be negative")));
	if (fill_len == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the fill of a partial mask must not be empty")));
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	value = PG_GETARG_TEXT_PP(0);
	result = mask_partial_build(VARDATA_ANY(value), VARSIZE_ANY_EXHDR(value),
								keep_start, keep_end, fill, fill_len, keep_domain,
								VARHDRSZ, &outlen);
	SET_VARSIZE(result, VARHDRSZ + outlen);
	PG_RETURN_TEXT_P((text *) result);
}

/*
 * The seed argument of one call site of a noise mask: its type, and for a
 * type without a case of its own its output function, looked up once and
 * kept in fn_extra.
 */
typedef struct NoiseSeed
{
	Oid			type;
	FmgrInfo	out;
} NoiseSeed;

/*
 * noise_unit
 *		The noise masks' u (mask_unit_noise) for the arguments at colarg
 *		(the column, text) and seedarg (the row's seed, "any" type; NULL as
 *		""): the seed's bytes are its text, an integer's digits written here
 *		(the bytes of its output function, which a CAST to text would call,
 *		without the call and its two allocations: the generated query
 *		passes an integer key as it is), a text's or varchar's own bytes,
 *		any other type's output function's text.
 */
static double
noise_unit(FunctionCallInfo fcinfo, int colarg, int seedarg)
{
	const char *column = "";
	size_t		column_len = 0;
	NoiseSeed  *ns = fcinfo->flinfo ? (NoiseSeed *) fcinfo->flinfo->fn_extra : NULL;
	Oid			type;
	char		digits[MAXINT8LEN + 1];

	if (!PG_ARGISNULL(colarg))
	{
		text	   *c = PG_GETARG_TEXT_PP(colarg);

		column = VARDATA_ANY(c);
		column_len = VARSIZE_ANY_EXHDR(c);
	}
	if (PG_ARGISNULL(seedarg))
		return mask_unit_noise(column, column_len, "", 0);
	if (ns == NULL && fcinfo->flinfo)
	{
		Oid			argtype = get_fn_expr_argtype(fcinfo->flinfo, seedarg);
		Oid			out;
		bool		isvarlena;

		/* a call through fmgr without an expression: the type is unknown */
		if (!OidIsValid(argtype))
			elog(ERROR, "could not determine the data type of the seed of a noise mask");
		ns = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(NoiseSeed));
		ns->type = argtype;
		getTypeOutputInfo(ns->type, &out, &isvarlena);
		fmgr_info_cxt(out, &ns->out, fcinfo->flinfo->fn_mcxt);
		fcinfo->flinfo->fn_extra = ns;
	}
	type = ns ? ns->type : InvalidOid;
	switch (type)
	{
		case INT8OID:
			return mask_unit_noise(column, column_len, digits,
								   pg_lltoa(PG_GETARG_INT64(seedarg), digits));
		case INT4OID:
			return mask_unit_noise(column, column_len, digits,
								   pg_ltoa(PG_GETARG_INT32(seedarg), digits));
		case INT2OID:
			return mask_unit_noise(column, column_len, digits,
								   pg_ltoa((int32) PG_GETARG_INT16(seedarg), digits));
		case UNKNOWNOID:		/* a literal: its cstring */
			{
				const char *seed = PG_GETARG_CSTRING(seedarg);

				return mask_unit_noise(column, column_len, seed, strlen(seed));
			}
		case InvalidOid:		/* a direct call from C (no FmgrInfo): text */
		case TEXTOID:
		case VARCHAROID:
			{
				text	   *seed = PG_GETARG_TEXT_PP(seedarg);

				return mask_unit_noise(column, column_len, VARDATA_ANY(seed),
									   VARSIZE_ANY_EXHDR(seed));
			}
		default:
			{
				char	   *seed = OutputFunctionCall(&ns->out, PG_GETARG_DATUM(seedarg));

				return mask_unit_noise(column, column_len, seed, strlen(seed));
			}
	}
}

/*
 * exwiw_mask_noise_numeric
 *		SQL entry point, the number form (mask/noise.c).  NULL value: NULL;
 *		NULL ratio: 0; NULL type: numeric; NULL or no typmod: -1 (none).
 */
Datum
exwiw_mask_noise_numeric(PG_FUNCTION_ARGS)
{
	double		ratio;
	Oid			type;
	int32		typmod = -1;
	double		u;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	ratio = PG_ARGISNULL(1) ? 0 : PG_GETARG_FLOAT8(1);
	type = PG_ARGISNULL(2) ? NUMERICOID : PG_GETARG_OID(2);
	if (PG_NARGS() > 5 && !PG_ARGISNULL(5))
		typmod = PG_GETARG_INT32(5);
	if (!(ratio >= 0 && ratio <= 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the ratio of a noise mask must be between 0 and 1")));
	u = noise_unit(fcinfo, 3, 4);
	PG_RETURN_NUMERIC(mask_noise_number(PG_GETARG_DATUM(0), ratio, type,
										typmod, u));
}

/*
 * exwiw_mask_noise_date
 *		SQL entry point, the date form (mask/noise.c).  NULL value or span:
 *		NULL.
 */
Datum
exwiw_mask_noise_date(PG_FUNCTION_ARGS)
{
	DateADT		d;
	double		span_us;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	d = PG_GETARG_DATEADT(0);
	span_us = mask_noise_span_usecs(PG_GETARG_INTERVAL_P(1));
	PG_RETURN_DATEADT(mask_noise_date(d, span_us, noise_unit(fcinfo, 2, 3)));
}

/*
 * exwiw_mask_noise_timestamp
 *		SQL entry point, the timestamp and timestamptz form (mask/noise.c).
 *		NULL value or span: NULL.
 */
Datum
exwiw_mask_noise_timestamp(PG_FUNCTION_ARGS)
{
	Timestamp	t;
	double		span_us;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	t = PG_GETARG_TIMESTAMP(0);
	span_us = mask_noise_span_usecs(PG_GETARG_INTERVAL_P(1));
	PG_RETURN_TIMESTAMP(mask_noise_timestamp(t, span_us, noise_unit(fcinfo, 2, 3)));
}

/*
 * exwiw_mask_json
 *		SQL entry point: the masks of spec (mask/json.c) applied inside the
 *		document.  NULL document: NULL; the spec is checked (and kept for
 *		the call site) first.
 */
Datum
exwiw_mask_json(PG_FUNCTION_ARGS)
{
	MaskJsonSpec *spec;

	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the spec of a json mask must not be null")));
	spec = mask_json_spec(PG_GETARG_JSONB_P(1),
						  (MaskJsonSpec *) fcinfo->flinfo->fn_extra,
						  fcinfo->flinfo->fn_mcxt);
	fcinfo->flinfo->fn_extra = spec;
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_JSONB_P(mask_json_apply(spec, PG_GETARG_JSONB_P(0)));
}

/*
 * exwiw_mask_hmac_test
 *		SQL entry point for the regression tests only (sql/masks.sql
 *		declares it; it is not part of the extension's SQL):
 *		exwiw_mask_hmac_test(impl text, key bytea, data bytea) RETURNS bytea,
 *		HMAC-SHA-256(key, data), or SHA-256(data) for a NULL key, by the
 *		implementation impl names (mask_sha256_test in mask/hmac.c):
 *		"portable", "sha_ni" (NULL where the CPU or the build has no SHA
 *		extensions) or "auto".  NULL impl or data: NULL.
 */
Datum
exwiw_mask_hmac_test(PG_FUNCTION_ARGS)
{
	bytea	   *data;
	bytea	   *key = NULL;
	bytea	   *result;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(2))
		PG_RETURN_NULL();
	data = PG_GETARG_BYTEA_PP(2);
	if (!PG_ARGISNULL(1))
		key = PG_GETARG_BYTEA_PP(1);
	result = palloc(VARHDRSZ + PG_SHA256_DIGEST_LENGTH);
	SET_VARSIZE(result, VARHDRSZ + PG_SHA256_DIGEST_LENGTH);
	if (!mask_sha256_test(text_to_cstring(PG_GETARG_TEXT_PP(0)),
						  key ? (const uint8 *) VARDATA_ANY(key) : NULL,
						  key ? VARSIZE_ANY_EXHDR(key) : 0,
						  (const uint8 *) VARDATA_ANY(data),
						  VARSIZE_ANY_EXHDR(data),
						  (uint8 *) VARDATA(result)))
		PG_RETURN_NULL();
	PG_RETURN_BYTEA_P(result);
}

/*
 * exwiw_mask_siphash_test
 *		SQL entry point for the regression tests only (sql/masks.sql
 *		declares it; it is not part of the extension's SQL):
 *		exwiw_mask_siphash_test(key bytea, data bytea) RETURNS bytea,
 *		SipHash-2-4(key, data) (mask/siphash.c) as its 8 bytes, least
 *		significant first, as the paper's test vectors print them.  A key
 *		of other than 16 bytes is an error; NULL key or data: NULL.
 */
Datum
exwiw_mask_siphash_test(PG_FUNCTION_ARGS)
{
	bytea	   *key;
	bytea	   *data;
	bytea	   *result;
	uint64		v;
	int			i;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	key = PG_GETARG_BYTEA_PP(0);
	data = PG_GETARG_BYTEA_PP(1);
	if (VARSIZE_ANY_EXHDR(key) != 16)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a SipHash key must be 16 bytes")));
	v = mask_siphash((const uint8 *) VARDATA_ANY(key),
					 (const uint8 *) VARDATA_ANY(data), VARSIZE_ANY_EXHDR(data));
	result = palloc(VARHDRSZ + 8);
	SET_VARSIZE(result, VARHDRSZ + 8);
	for (i = 0; i < 8; i++)
		((uint8 *) VARDATA(result))[i] = (uint8) (v >> (8 * i));
	PG_RETURN_BYTEA_P(result);
}
