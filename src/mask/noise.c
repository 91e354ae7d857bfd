/*-------------------------------------------------------------------------
 *
 * mask/noise.c
 *	  The noise mask, the engine of exwiw_mask_noise() (its entry points
 *	  are in mask/funcs.c): move a number or a date by a random amount
 *	  that repeats from run to run.
 *
 *	  exwiw_mask_noise(value numeric, ratio float8, type oid,
 *					   column text, seed "any", typmod int4)
 *					   RETURNS numeric
 *	  exwiw_mask_noise(value date | timestamp | timestamptz, span interval,
 *					   column text, seed "any") RETURNS the same type
 *
 * The amount is u * ratio * value for a number, u * span for a date or a
 * time, with u in [-1, 1] from the secret, the column's name and the row's
 * seed (its key as text; mask_unit_noise): the same row moves by the same
 * amount in every run, and without the secret the amount is unknown.  A
 * number is rounded to its own scale (to an integer for an integer type)
 * and kept within the range of type (a numeric with a typmod: rounded to
 * its scale, held to its precision); a date or a time stays within its
 * type's range (the span counts a month as 30 days).  NULL, NaN and the
 * infinities are kept.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"
#include "mask/mask.h"

#include <float.h>
#include <limits.h>
#include <math.h>

#include "catalog/pg_type.h"
#include "datatype/timestamp.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/datum.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

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
 * The header of a numeric as PostgreSQL stores it (numeric.c; the on-disk
 * format, which pg_upgrade keeps from major to major): after the varlena
 * header, a 16-bit word that is either the short form (sign, display
 * scale and weight in one word) or the first of the long form's two (sign
 * and display scale, then the weight), then the digits, base 10000, the
 * first of weight "weight" (the units digit has weight 0), leading and
 * trailing zero digits stripped.
 */
#define NUM_SIGN_MASK		0xC000
#define NUM_NEG				0x4000
#define NUM_SHORT			0x8000
#define NUM_SPECIAL			0xC000
#define NUM_SHORT_NEG		0x2000
#define NUM_SHORT_DSCALE_MASK	0x1F80
#define NUM_SHORT_DSCALE_SHIFT	7
#define NUM_SHORT_WEIGHT_NEG	0x0040
#define NUM_SHORT_WEIGHT_MASK	0x003F
#define NUM_DSCALE_MASK		0x3FFF

/* 10^0 .. 10^18, the powers of ten an int64 holds */
static const int64 pow10_int64[19] = {
	INT64CONST(1), INT64CONST(10), INT64CONST(100), INT64CONST(1000),
	INT64CONST(10000), INT64CONST(100000), INT64CONST(1000000),
	INT64CONST(10000000), INT64CONST(100000000), INT64CONST(1000000000),
	INT64CONST(10000000000), INT64CONST(100000000000),
	INT64CONST(1000000000000), INT64CONST(10000000000000),
	INT64CONST(100000000000000), INT64CONST(1000000000000000),
	INT64CONST(10000000000000000), INT64CONST(100000000000000000),
	INT64CONST(1000000000000000000)
};

/*
 * div_pow10
 *		a / 10^k for k in 1..4 (a base-10000 digit's decimal digits), by a
 *		constant each, which the compiler makes a multiplication: a
 *		division by a variable power of ten was the dearest instruction of
 *		a noised number (bench/README.md, "Masks").
 */
static inline uint64
div_pow10(uint64 a, int k)
{
	switch (k)
	{
		case 1:
			return a / 10;
		case 2:
			return a / 100;
		case 3:
			return a / 1000;
		default:
			Assert(k == 4);
			return a / 10000;
	}
}

/*
 * numeric_unscaled
 *		Read the numeric at data (len bytes after its varlena header, any
 *		alignment) as *u / 10^*scale, *scale its display scale, when its
 *		text (numeric_out) has at most 18 digits, so *u fits an int64;
 *		false for a longer one, NaN or an infinity.  This is the text's
 *		digits read as one integer, computed from the stored digits instead
 *		of from the text (an assertion compares the two).
 */
static bool
numeric_unscaled(const char *data, size_t len, int64 *u, int *scale)
{
	uint16		h;
	int16		weight;
	int			dscale;
	bool		neg;
	const char *digits;
	int			ndigits;
	int			intdigits;
	int64		v = 0;
	int			i;

	if (len < sizeof(uint16))
		return false;
	memcpy(&h, data, sizeof(h));
	if ((h & NUM_SIGN_MASK) == NUM_SPECIAL)
		return false;
	if ((h & NUM_SIGN_MASK) == NUM_SHORT)
	{
		neg = (h & NUM_SHORT_NEG) != 0;
		dscale = (h & NUM_SHORT_DSCALE_MASK) >> NUM_SHORT_DSCALE_SHIFT;
		weight = (int16) (((h & NUM_SHORT_WEIGHT_NEG) ? ~NUM_SHORT_WEIGHT_MASK : 0) |
						  (h & NUM_SHORT_WEIGHT_MASK));
		digits = data + sizeof(uint16);
	}
	else
	{
		if (len < 2 * sizeof(uint16))
			return false;
		neg = (h & NUM_SIGN_MASK) == NUM_NEG;
		dscale = h & NUM_DSCALE_MASK;
		memcpy(&weight, data + sizeof(uint16), sizeof(weight));
		digits = data + 2 * sizeof(uint16);
	}
	ndigits = (data + len - digits) / sizeof(int16);

	/* the text's digits: the integer part's (at least "0"), then dscale */
	intdigits = 1;
	if (ndigits > 0 && weight >= 0)
	{
		int16		first;

		memcpy(&first, digits, sizeof(first));
		intdigits = 4 * weight + (first >= 1000 ? 4 : first >= 100 ? 3 : first >= 10 ? 2 : 1);
	}
	if (intdigits + dscale > 18)
		return false;

	/* each digit times 10^(4 * (weight - i) + dscale), truncated */
	for (i = 0; i < ndigits; i++)
	{
		int16		d;
		int			e = 4 * (weight - i) + dscale;

		memcpy(&d, digits + i * sizeof(int16), sizeof(d));
		/* e <= 18: the text has at most 18 digits (above) */
		if (e >= 0)
			v += d * pow10_int64[e];
		else if (e > -4)
			v += (int64) div_pow10((uint64) d, -e);
	}
	*u = neg ? -v : v;
	*scale = dscale;
	return true;
}

#ifdef USE_ASSERT_CHECKING
/*
 * check_unscaled
 *		Assert that v's text gives the digits and the scale numeric_unscaled
 *		read from its storage.
 */
static void
check_unscaled(Numeric v, int64 u, int scale)
{
	char	   *txt = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(v)));
	const char *p = txt;
	int64		t = 0;
	int			tscale = 0;
	bool		neg = false;
	bool		frac = false;

	if (*p == '-')
		neg = true, p++;
	for (; *p; p++)
	{
		if (*p == '.')
		{
			frac = true;
			continue;
		}
		Assert(*p >= '0' && *p <= '9');
		t = t * 10 + (*p - '0');
		tscale += frac;
	}
	Assert((neg ? -t : t) == u);
	Assert(tscale == scale);
	pfree(txt);
}
#endif

/*
 * numeric_from_unscaled
 *		r / 10^scale (scale at most 18) at display scale "scale", as
 *		numeric.c's make_result stores it (the format above): |r| cut into
 *		its base-10000 digits from the lowest (whose last decimal digit is
 *		the scale's), leading and trailing zero digits stripped, a zero of
 *		weight 0 and positive.  The same bytes as
 *		int64_div_fast_to_numeric(r, scale) (int64_to_numeric for scale 0),
 *		which an assertion checks, without its intermediate allocations.
 */
static Numeric
numeric_from_unscaled(int64 r, int scale)
{
	uint64		a = r < 0 ? -(uint64) r : (uint64) r;
	int16		groups[12];		/* weights floor(-scale / 4) .. 4 */
	int			base = (scale + 3) / 4; /* groups[base + w] holds weight w */
	int			lo = INT_MAX;
	int			hi = INT_MIN;
	int			t;
	int			n;
	uint16		h;
	Numeric		result;
	int			k = scale % 4 == 0 ? 4 : scale % 4;
	int			w;

	/*
	 * the base-10000 digits from the lowest, weight -base: its k decimal
	 * digits are the lowest ones of a, at the top of the group; then four
	 * decimal digits a group
	 */
	memset(groups, 0, sizeof(groups));
	for (w = -base; a > 0; w++)
	{
		int			g;

		if (w == -base)
		{
			uint64		q = div_pow10(a, k);

			g = (int) (a - q * (uint64) pow10_int64[k]) * (int) pow10_int64[4 - k];
			a = q;
		}
		else
		{
			g = (int) (a % 10000);
			a /= 10000;
		}
		if (g == 0)
			continue;
		groups[base + w] = (int16) g;
		lo = Min(lo, w);
		hi = Max(hi, w);
	}
	n = lo <= hi ? hi - lo + 1 : 0;
	if (n == 0)
		h = NUM_SHORT | (scale << NUM_SHORT_DSCALE_SHIFT);
	else
		h = NUM_SHORT | (r < 0 ? NUM_SHORT_NEG : 0) |
			(scale << NUM_SHORT_DSCALE_SHIFT) |
			(hi < 0 ? NUM_SHORT_WEIGHT_NEG : 0) | (hi & NUM_SHORT_WEIGHT_MASK);
	result = (Numeric) palloc(VARHDRSZ + sizeof(uint16) + n * sizeof(int16));
	SET_VARSIZE(result, VARHDRSZ + sizeof(uint16) + n * sizeof(int16));
	memcpy(VARDATA(result), &h, sizeof(h));
	for (t = 0; t < n; t++)
		memcpy(VARDATA(result) + sizeof(uint16) + t * sizeof(int16),
			   &groups[base + hi - t], sizeof(int16));
#ifdef USE_ASSERT_CHECKING
	{
		Numeric		theirs = scale == 0 ? int64_to_numeric(r) :
			int64_div_fast_to_numeric(r, scale);

		Assert(VARSIZE(theirs) == VARSIZE(result) &&
			   memcmp(theirs, result, VARSIZE(result)) == 0);
	}
#endif
	return result;
}

/*
 * A numeric column's typmod, as numeric.c encodes it (a precision of 1 to
 * 1000 in the high 16 bits, a scale of -1000 to 1000 in the low 11, after
 * VARHDRSZ; the same in every supported major), read here since numeric.c
 * keeps its readers static.  Its values are the multiples of 10^-scale of
 * absolute value at most (10^precision - 1) * 10^-scale.
 */
#define NUMERIC_TYPMOD_VALID(typmod)	((typmod) >= (int32) VARHDRSZ)
#define NUMERIC_TYPMOD_PRECISION(typmod)	((((typmod) - VARHDRSZ) >> 16) & 0xffff)
#define NUMERIC_TYPMOD_SCALE(typmod)	(((((typmod) - VARHDRSZ) & 0x7ff) ^ 1024) - 1024)

/*
 * typmod_bound
 *		The largest absolute value of numeric(precision, scale): precision
 *		nines, at scale "scale" (shifted left for a negative scale).  The
 *		last one asked for is kept (in TopMemoryContext), since every row
 *		of a column asks for the same.
 */
static Numeric
typmod_bound(int precision, int scale)
{
	static int	kept_precision = 0;
	static int	kept_scale = 0;
	static Numeric kept = NULL;
	StringInfoData s;
	MemoryContext old;
	Numeric		bound;
	int			i;

	if (kept != NULL && kept_precision == precision && kept_scale == scale)
		return kept;
	initStringInfo(&s);
	if (scale <= 0)
	{
		for (i = 0; i < precision; i++)
			appendStringInfoChar(&s, '9');
		for (i = 0; i < -scale; i++)
			appendStringInfoChar(&s, '0');
	}
	else
	{
		for (i = 0; i < precision - scale; i++)
			appendStringInfoChar(&s, '9');
		appendStringInfoString(&s, precision > scale ? "." : "0.");
		for (i = 0; i < scale - precision; i++)
			appendStringInfoChar(&s, '0');
		for (i = 0; i < Min(precision, scale); i++)
			appendStringInfoChar(&s, '9');
	}
	bound = DatumGetNumeric(DirectFunctionCall3(numeric_in, CStringGetDatum(s.data),
												ObjectIdGetDatum(InvalidOid),
												Int32GetDatum(-1)));
	old = MemoryContextSwitchTo(TopMemoryContext);
	bound = DatumGetNumeric(datumCopy(NumericGetDatum(bound), false, -1));
	MemoryContextSwitchTo(old);
	if (kept != NULL)
		pfree(kept);
	kept = bound;
	kept_precision = precision;
	kept_scale = scale;
	pfree(s.data);
	return kept;
}

/*
 * noise_fast
 *		The number form computed on the value's unscaled digits u as an
 *		int64 at scale (numeric_unscaled), for the common case.  Same
 *		result rule as the numeric path below: v + v * u * ratio at v's
 *		scale, integers within their type's range, and within max_unscaled
 *		(the unscaled bound of the column's typmod; 0 for none).
 */
static Numeric
noise_fast(int64 u, int scale, double f, Oid type, int64 max_unscaled)
{
	int64		r;

	r = u + (int64) round((double) u * f);
	if (type == INT2OID)
		r = Max(PG_INT16_MIN, Min(PG_INT16_MAX, r));
	else if (type == INT4OID)
		r = Max(PG_INT32_MIN, Min(PG_INT32_MAX, r));
	if (max_unscaled > 0)
		r = Max(-max_unscaled, Min(max_unscaled, r));
	return numeric_from_unscaled(r, scale);
}

/*
 * mask_noise_number
 *		The number form, see the file header: value (a numeric datum, not
 *		NULL) moved by u * ratio of itself (ratio in [0, 1], u in [-1, 1]),
 *		held to the range of type, the column's type, and for a numeric
 *		with a typmod (-1: none) rounded to its scale and held to its
 *		precision, so that the value needs no cast to the column's type
 *		(which, before, failed the export with "numeric field overflow"
 *		when the noise crossed the precision).
 */
Numeric
mask_noise_number(Datum value, double ratio, Oid type, int32 typmod, double u)
{
	/* read in place (a short varlena header is not copied away) */
	struct varlena *packed = PG_DETOAST_DATUM_PACKED(value);
	Numeric		v;
	Numeric		r;
	int32		scale;
	int64		unscaled;
	int			uscale;
	bool		has_typmod = typmod != -1;
	int			tprec = has_typmod ? NUMERIC_TYPMOD_PRECISION(typmod) : 0;
	int			tscale = has_typmod ? NUMERIC_TYPMOD_SCALE(typmod) : 0;

	if (has_typmod && type != NUMERICOID)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a typmod applies to a numeric noise mask only"),
				 errhint("Pass -1 for a column of another type.")));
	/* numeric.c's own limits, NUMERIC_MAX_PRECISION and the scale's */
	if (has_typmod && (!NUMERIC_TYPMOD_VALID(typmod) ||
					   tprec < 1 || tprec > 1000 || tscale < -1000 || tscale > 1000))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid typmod %d for type numeric", typmod),
				 errhint("Pass the numeric column's atttypmod, or -1 for none.")));

	if (type != FLOAT4OID && type != FLOAT8OID &&
		numeric_unscaled(VARDATA_ANY(packed), VARSIZE_ANY_EXHDR(packed),
						 &unscaled, &uscale) &&
		(!has_typmod || (tscale == uscale && tprec <= 18)))
	{
#ifdef USE_ASSERT_CHECKING
		check_unscaled(DatumGetNumeric(value), unscaled, uscale);
#endif
		return noise_fast(unscaled, uscale, u * ratio, type,
						  has_typmod ? pow10_int64[tprec] - 1 : 0);
	}
	v = DatumGetNumeric(value);
	if (numeric_is_nan(v) || numeric_is_inf(v))
		return v;
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
		return r;
	if (has_typmod)
		scale = tscale;
	r = DatumGetNumeric(DirectFunctionCall2(numeric_round, NumericGetDatum(r),
											Int32GetDatum(scale)));
	if (has_typmod)
	{
		Numeric		hi = typmod_bound(tprec, tscale);

		r = clamp_numeric(r, DatumGetNumeric(DirectFunctionCall1(numeric_uminus,
																 NumericGetDatum(hi))),
						  hi);
		/* the kept bound is not the caller's to free */
		if (r == hi)
			r = DatumGetNumeric(datumCopy(NumericGetDatum(hi), false, -1));
	}
	/* rounding may have crossed a bound by less than one unit */
	if (type == INT2OID)
		r = clamp_numeric(r, int64_to_numeric(PG_INT16_MIN), int64_to_numeric(PG_INT16_MAX));
	else if (type == INT4OID)
		r = clamp_numeric(r, int64_to_numeric(PG_INT32_MIN), int64_to_numeric(PG_INT32_MAX));
	else if (type == INT8OID)
		r = clamp_numeric(r, int64_to_numeric(PG_INT64_MIN), int64_to_numeric(PG_INT64_MAX));
	return r;
}

/*
 * mask_noise_span_usecs
 *		An interval's length in microseconds, a month as 30 days; a negative
 *		one is an error.
 */
double
mask_noise_span_usecs(Interval *span)
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
 * mask_noise_date
 *		The date form, see the file header: d moved by whole days, by u of
 *		span_us microseconds (mask_noise_span_usecs), within the range of
 *		dates; infinite dates stay.
 */
DateADT
mask_noise_date(DateADT d, double span_us, double u)
{
	double		days = floor(span_us / USECS_PER_DAY);
	double		r = rint(u * days);
	double		lo = DATETIME_MIN_JULIAN - POSTGRES_EPOCH_JDATE;
	double		hi = DATE_END_JULIAN - POSTGRES_EPOCH_JDATE - 1;

	if (DATE_NOT_FINITE(d))
		return d;
	r += d;
	return (DateADT) Max(lo, Min(hi, r));
}

/*
 * mask_noise_timestamp
 *		The timestamp and timestamptz form (one representation), see the
 *		file header: t moved by whole microseconds, by u of span_us, within
 *		the range of timestamps; infinite ones stay.
 */
Timestamp
mask_noise_timestamp(Timestamp t, double span_us, double u)
{
	double		r = rint(u * span_us);
	int64		sh;

	if (TIMESTAMP_NOT_FINITE(t))
		return t;
	/* a longer shift would leave the range anyway; this one fits an int64 */
	r = Max(-(double) END_TIMESTAMP, Min((double) END_TIMESTAMP, r));
	sh = (int64) r;
	/* within [MIN_TIMESTAMP, END_TIMESTAMP), computed without overflow */
	if (sh < 0 && t < MIN_TIMESTAMP - sh)
		return MIN_TIMESTAMP;
	if (sh > 0 && t > END_TIMESTAMP - 1 - sh)
		return END_TIMESTAMP - 1;
	return t + sh;
}
