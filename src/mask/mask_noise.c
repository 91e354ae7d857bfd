/*-------------------------------------------------------------------------
 *
 * mask_noise.c
 *	  exwiw_mask_noise(): move a number or a date by a random amount that
 *	  repeats from run to run.
 *
 *	  exwiw_mask_noise(value numeric, ratio float8, type regtype,
 *					   column text, seed text) RETURNS numeric
 *	  exwiw_mask_noise(value date | timestamp | timestamptz, span interval,
 *					   column text, seed text) RETURNS the same type
 *
 * The amount is u * ratio * value for a number, u * span for a date or a
 * time, with u in [-1, 1] from the secret, the column's name and the row's
 * seed (its key as text; mask_unit_noise): the same row moves by the same
 * amount in every run, and without the secret the amount is unknown.  A
 * number is rounded to its own scale (to an integer for an integer type)
 * and kept within the range of type; a date or a time stays within its
 * type's range (the span counts a month as 30 days).  NULL, NaN and the
 * infinities are kept.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"
#include "mask/mask.h"

#include <float.h>
#include <math.h>

#include "catalog/pg_type.h"
#include "datatype/timestamp.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

PG_FUNCTION_INFO_V1(exwiw_mask_noise_numeric);
PG_FUNCTION_INFO_V1(exwiw_mask_noise_date);
PG_FUNCTION_INFO_V1(exwiw_mask_noise_timestamp);

/*
 * noise_unit
 *		u for argument positions column (text) and seed (text, NULL as "").
 */
static double
noise_unit(FunctionCallInfo fcinfo, int colarg, int seedarg)
{
	char	   *column = PG_ARGISNULL(colarg) ? "" : text_to_cstring(PG_GETARG_TEXT_PP(colarg));

	if (PG_ARGISNULL(seedarg))
		return mask_unit_noise(column, "", 0);
	else
	{
		text	   *seed = PG_GETARG_TEXT_PP(seedarg);

		return mask_unit_noise(column, VARDATA_ANY(seed), VARSIZE_ANY_EXHDR(seed));
	}
}

/*
 * clamp_numeric
 *		v within [lo, hi].
 */
static Numeric
clamp_numeric(Numeric v, Numeric lo, Numeric hi)
{
	if (DatumGetInt32(DirectFunctionCall2(numeric_cmp, NumericGetDatum(v),
										  NumericGetDatum(lo))) < 0)
		return lo;
	if (DatumGetInt32(DirectFunctionCall2(numeric_cmp, NumericGetDatum(v),
										  NumericGetDatum(hi))) > 0)
		return hi;
	return v;
}

/*
 * float_numeric
 *		A float8 as a numeric.
 */
static Numeric
float_numeric(double d)
{
	return DatumGetNumeric(DirectFunctionCall1(float8_numeric, Float8GetDatum(d)));
}

/*
 * noise_fast
 *		The number form computed on the value's unscaled digits as an
 *		int64 (the common case: at most 18 digits), or NULL when the value
 *		does not fit, for the numeric path below.  Same result rule: v +
 *		v * u * ratio at v's scale, integers within their type's range.
 */
static Numeric
noise_fast(Numeric v, double f, Oid type)
{
	char	   *txt = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(v)));
	const char *p = txt;
	int64		u = 0;
	int64		r;
	int			ndig = 0;
	int			scale = 0;
	bool		neg = false;
	bool		frac = false;
	char		buf[48];
	char		digits[24];
	int			len;

	if (*p == '-')
		neg = true, p++;
	for (; *p; p++)
	{
		if (*p == '.' && !frac)
		{
			frac = true;
			continue;
		}
		if (*p < '0' || *p > '9' || ndig >= 18)
			return NULL;
		u = u * 10 + (*p - '0');
		ndig++;
		scale += frac;
	}
	if (neg)
		u = -u;
	r = u + (int64) round((double) u * f);
	if (type == INT2OID)
		r = Max(PG_INT16_MIN, Min(PG_INT16_MAX, r));
	else if (type == INT4OID)
		r = Max(PG_INT32_MIN, Min(PG_INT32_MAX, r));
	if (scale == 0)
		return int64_to_numeric(r);
	/* r / 10^scale, written with scale digits after the point */
	len = snprintf(digits, sizeof(digits), "%0*lld", scale + 1,
				   (long long) (r < 0 ? -r : r));
	snprintf(buf, sizeof(buf), "%s%.*s.%s", r < 0 ? "-" : "", len - scale, digits,
			 digits + len - scale);
	return DatumGetNumeric(DirectFunctionCall3(numeric_in, CStringGetDatum(buf),
											   ObjectIdGetDatum(InvalidOid),
											   Int32GetDatum(-1)));
}

/*
 * exwiw_mask_noise_numeric
 *		The number form, see the file header.
 */
Datum
exwiw_mask_noise_numeric(PG_FUNCTION_ARGS)
{
	Numeric		v;
	double		ratio;
	Oid			type;
	double		u;
	Numeric		r;
	int32		scale;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	v = PG_GETARG_NUMERIC(0);
	ratio = PG_ARGISNULL(1) ? 0 : PG_GETARG_FLOAT8(1);
	type = PG_ARGISNULL(2) ? NUMERICOID : PG_GETARG_OID(2);
	if (!(ratio >= 0 && ratio <= 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the ratio of a noise mask must be between 0 and 1")));
	u = noise_unit(fcinfo, 3, 4);
	if (numeric_is_nan(v) || numeric_is_inf(v))
		PG_RETURN_NUMERIC(v);
	if (type != FLOAT4OID && type != FLOAT8OID &&
		(r = noise_fast(v, u * ratio, type)) != NULL)
		PG_RETURN_NUMERIC(r);
	/* v + v * (u * ratio), at v's own scale */
	scale = DatumGetInt32(DirectFunctionCall1(numeric_scale, NumericGetDatum(v)));
	r = DatumGetNumeric(DirectFunctionCall2(numeric_mul, NumericGetDatum(v),
											NumericGetDatum(float_numeric(u * ratio))));
	r = DatumGetNumeric(DirectFunctionCall2(numeric_add, NumericGetDatum(v),
											NumericGetDatum(r)));
	switch (type)
	{
		case INT2OID:
			scale = 0;
			r = clamp_numeric(r, int64_to_numeric(PG_INT16_MIN), int64_to_numeric(PG_INT16_MAX));
			break;
		case INT4OID:
			scale = 0;
			r = clamp_numeric(r, int64_to_numeric(PG_INT32_MIN), int64_to_numeric(PG_INT32_MAX));
			break;
		case INT8OID:
			scale = 0;
			r = clamp_numeric(r, int64_to_numeric(PG_INT64_MIN), int64_to_numeric(PG_INT64_MAX));
			break;
		case FLOAT4OID:
			r = clamp_numeric(r, float_numeric(-FLT_MAX), float_numeric(FLT_MAX));
			break;
		case FLOAT8OID:
			r = clamp_numeric(r, float_numeric(-DBL_MAX), float_numeric(DBL_MAX));
			break;
		default:
			break;
	}
	if (type == FLOAT4OID || type == FLOAT8OID)
		PG_RETURN_NUMERIC(r);
	r = DatumGetNumeric(DirectFunctionCall2(numeric_round, NumericGetDatum(r),
											Int32GetDatum(scale)));
	/* rounding may have crossed a bound by less than one unit */
	if (type == INT2OID)
		r = clamp_numeric(r, int64_to_numeric(PG_INT16_MIN), int64_to_numeric(PG_INT16_MAX));
	else if (type == INT4OID)
		r = clamp_numeric(r, int64_to_numeric(PG_INT32_MIN), int64_to_numeric(PG_INT32_MAX));
	else if (type == INT8OID)
		r = clamp_numeric(r, int64_to_numeric(PG_INT64_MIN), int64_to_numeric(PG_INT64_MAX));
	PG_RETURN_NUMERIC(r);
}

/*
 * span_usecs
 *		An interval's length in microseconds, a month as 30 days; a negative
 *		one is an error.
 */
static double
span_usecs(Interval *span)
{
	double		us = (double) span->month * DAYS_PER_MONTH * USECS_PER_DAY +
		(double) span->day * USECS_PER_DAY + (double) span->time;

	if (us < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the interval of a noise mask must not be negative")));
	return us;
}

/*
 * exwiw_mask_noise_date
 *		The date form, see the file header: moved by whole days.
 */
Datum
exwiw_mask_noise_date(PG_FUNCTION_ARGS)
{
	DateADT		d;
	double		days;
	double		r;
	double		lo = DATETIME_MIN_JULIAN - POSTGRES_EPOCH_JDATE;
	double		hi = DATE_END_JULIAN - POSTGRES_EPOCH_JDATE - 1;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	d = PG_GETARG_DATEADT(0);
	days = floor(span_usecs(PG_GETARG_INTERVAL_P(1)) / USECS_PER_DAY);
	r = rint(noise_unit(fcinfo, 2, 3) * days);
	if (DATE_NOT_FINITE(d))
		PG_RETURN_DATEADT(d);
	r += d;
	PG_RETURN_DATEADT((DateADT) Max(lo, Min(hi, r)));
}

/*
 * exwiw_mask_noise_timestamp
 *		The timestamp and timestamptz form (one representation), see the
 *		file header: moved by whole microseconds.
 */
Datum
exwiw_mask_noise_timestamp(PG_FUNCTION_ARGS)
{
	Timestamp	t;
	double		r;
	int64		sh;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	t = PG_GETARG_TIMESTAMP(0);
	r = rint(noise_unit(fcinfo, 2, 3) * span_usecs(PG_GETARG_INTERVAL_P(1)));
	if (TIMESTAMP_NOT_FINITE(t))
		PG_RETURN_TIMESTAMP(t);
	/* a longer shift would leave the range anyway; this one fits an int64 */
	r = Max(-(double) END_TIMESTAMP, Min((double) END_TIMESTAMP, r));
	sh = (int64) r;
	/* within [MIN_TIMESTAMP, END_TIMESTAMP), computed without overflow */
	if (sh < 0 && t < MIN_TIMESTAMP - sh)
		t = MIN_TIMESTAMP;
	else if (sh > 0 && t > END_TIMESTAMP - 1 - sh)
		t = END_TIMESTAMP - 1;
	else
		t += sh;
	PG_RETURN_TIMESTAMP(t);
}
