/*-------------------------------------------------------------------------
 *
 * common/extjson/format.c
 *	  Byte-exact formatting of single Extended JSON values: strings, Ruby
 *	  floats, Decimal128, base64 Binary, dates and ObjectIds.
 *
 * Nothing here needs a running backend: the file also builds with
 * -DFRONTEND for the fuzz target and the libbson check (test/extjson/).
 * Every function appends to a StringInfo and, when the input can be bad,
 * returns false with an ExjError instead of raising an error itself.
 *
 * The reference is Ruby's bson gem 4.15 with Ruby 3.1's json 2.6, see the
 * shared spec extended-json.md.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include <math.h>

#include "common/shortest_dec.h"
#include "common/compat.h"
#include "common/extjson/extjson.h"

/* Decimal128 limits (IEEE 754-2008 decimal128, as the bson gem has them). */
#define DEC128_MAX_DIGITS	34
#define DEC128_MIN_EXP		(-6176)
#define DEC128_MAX_EXP		6111

static const char hexdigits[] = "0123456789abcdef";

/*
 * exj_error_set
 *		Record an error kind and message (printf style) in err.
 */
void
exj_error_set(ExjError *err, ExjErrorKind kind, const char *fmt,...)
{
	va_list		ap;

	err->kind = kind;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

/*
 * exj_append_string
 *		Append s (len bytes of UTF-8) as a JSON string the way Ruby's
 *		JSON.generate writes it: only '"', '\\' and bytes below 0x20 are
 *		escaped, everything else is copied raw.
 */
void
exj_append_string(StringInfo buf, const char *s, int len)
{
	int			start = 0;
	int			i;

	appendStringInfoCharMacro(buf, '"');
	for (i = 0; i < len; i++)
	{
		unsigned char c = (unsigned char) s[i];
		char		esc[7];
		int			esclen = 2;

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		if (i > start)
			appendBinaryStringInfo(buf, s + start, i - start);
		start = i + 1;
		esc[0] = '\\';
		switch (c)
		{
			case '"':
				esc[1] = '"';
				break;
			case '\\':
				esc[1] = '\\';
				break;
			case '\b':
				esc[1] = 'b';
				break;
			case '\f':
				esc[1] = 'f';
				break;
			case '\n':
				esc[1] = 'n';
				break;
			case '\r':
				esc[1] = 'r';
				break;
			case '\t':
				esc[1] = 't';
				break;
			default:
				esc[1] = 'u';
				esc[2] = '0';
				esc[3] = '0';
				esc[4] = hexdigits[c >> 4];
				esc[5] = hexdigits[c & 15];
				esclen = 6;
				break;
		}
		appendBinaryStringInfo(buf, esc, esclen);
	}
	if (len > start)
		appendBinaryStringInfo(buf, s + start, len - start);
	appendStringInfoCharMacro(buf, '"');
}

/*
 * shorten_at_boundary
 *		Ryu's digits for a double of 2^53 or more, made shorter where a
 *		shorter decimal still reads back as d: Ryu (as built into PostgreSQL)
 *		never picks a decimal that lies exactly halfway to the next double,
 *		Ruby (David Gay's dtoa) does when round-half-even reads it back as d,
 *		e.g. 1e23 and some doubles between 1e16 and 1e20.  Such halfway
 *		points are integers, so only doubles >= 2^53 can have them.
 *
 * digits (ndig digits, value 0.DIGITS * 10^decpt) is updated in place;
 * returns the new number of digits.
 */
static int
shorten_at_boundary(double d, char *digits, int ndig, int *decpt)
{
	char		exact[400];
	int			len;
	int			k;

	/* the exact decimal value: d is an integer here */
	len = snprintf(exact, sizeof(exact), "%.0f", fabs(d));
	if (len <= 0 || len >= (int) sizeof(exact) || len != *decpt)
		return ndig;

	for (k = ndig - 1; k >= 1; k--)
	{
		char		cand[40];
		char		digits_text[64];
		int			cdecpt = len;
		bool		up;
		int			i;

		/* the nearest k-digit decimal: round half even */
		memcpy(cand, exact, k);
		if (exact[k] > '5')
			up = true;
		else if (exact[k] < '5')
			up = false;
		else
		{
			up = false;
			for (i = k + 1; i < len; i++)
				if (exact[i] != '0')
					up = true;
			if (!up)
				up = (cand[k - 1] - '0') % 2 == 1;
		}
		if (up)
		{
			for (i = k - 1; i >= 0 && cand[i] == '9'; i--)
				cand[i] = '0';
			if (i >= 0)
				cand[i]++;
			else
			{
				memmove(cand + 1, cand, k - 1);
				cand[0] = '1';
				cdecpt++;
			}
		}
		snprintf(digits_text, sizeof(digits_text), "0.%.*se%d", k, cand, cdecpt);
		if (strtod(digits_text, NULL) != fabs(d))
			break;
		memcpy(digits, cand, k);
		ndig = k;
		*decpt = cdecpt;
	}
	while (ndig > 1 && digits[ndig - 1] == '0')
		ndig--;
	return ndig;
}

/*
 * exj_format_double
 *		Write finite d the way Ruby's Float#to_s does into out (at least 32
 *		bytes); return the length.  NUL-terminates.
 *
 * The shortest round-trip digits come from PostgreSQL's Ryu
 * (double_to_shortest_decimal_buf); we read its digits and exponent back
 * (see shorten_at_boundary for where Ryu needs a check) and lay them out
 * by Ruby 3.1's rule (flo_to_s): "ddd.ddd" when the decimal point falls
 * within the first 15 places, or at the 16th with a 17th digit after it;
 * "0.000ddd" down to 1e-4; else "d.ddde+XX" with a sign and at least two
 * exponent digits.  (So 1e15 prints "1.0e+15": the spec's "decimal for
 * |x| < 1e16" is not quite what Ruby does.)
 */
int
exj_format_double(double d, char *out)
{
	char		ryu[DOUBLE_SHORTEST_DECIMAL_LEN + 8];
	char		digits[32];
	int			ndig = 0;
	int			decpt = 0;		/* value = 0.DIGITS * 10^decpt */
	bool		seen_point = false;
	int			exp10 = 0;
	char	   *p;
	char	   *o = out;
	int			i;

	if (d == 0)
		return sprintf(out, "%s", signbit(d) ? "-0.0" : "0.0");

	double_to_shortest_decimal_buf(d, ryu);
	p = ryu;
	if (*p == '-')
		*o++ = *p++;
	for (; *p; p++)
	{
		if (*p == '.')
			seen_point = true;
		else if (*p == 'e' || *p == 'E')
		{
			exp10 = atoi(p + 1);
			break;
		}
		else
		{
			/* skip leading zeros, keeping the point's position right */
			if (ndig == 0 && *p == '0')
			{
				if (seen_point)
					decpt--;
				continue;
			}
			digits[ndig++] = *p;
			if (!seen_point)
				decpt++;
		}
	}
	while (ndig > 1 && digits[ndig - 1] == '0')
		ndig--;
	decpt += exp10;
	if (fabs(d) >= 9007199254740992.0 && ndig > 1)
		ndig = shorten_at_boundary(d, digits, ndig, &decpt);

	/*
	 * Ruby: decimal when the point falls within the digits and the first 16
	 * places, or when zeros must be padded up to 15 places at most.
	 */
	if (decpt > 0 && (decpt <= 15 || (decpt == 16 && ndig > 16)))
	{
		if (decpt < ndig)
		{
			memcpy(o, digits, decpt);
			o += decpt;
			*o++ = '.';
			memcpy(o, digits + decpt, ndig - decpt);
			o += ndig - decpt;
		}
		else
		{
			memcpy(o, digits, ndig);
			o += ndig;
			for (i = ndig; i < decpt; i++)
				*o++ = '0';
			*o++ = '.';
			*o++ = '0';
		}
	}
	else if (decpt <= 0 && decpt > -4)
	{
		*o++ = '0';
		*o++ = '.';
		for (i = 0; i < -decpt; i++)
			*o++ = '0';
		memcpy(o, digits, ndig);
		o += ndig;
	}
	else
	{
		int			e = decpt - 1;

		*o++ = digits[0];
		*o++ = '.';
		if (ndig > 1)
		{
			memcpy(o, digits + 1, ndig - 1);
			o += ndig - 1;
		}
		else
			*o++ = '0';
		o += sprintf(o, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
	}
	*o = '\0';
	return o - out;
}

/*
 * exj_append_double
 *		Append a Float: Ruby's Float#to_s, or the $numberDouble wrapper for
 *		NaN and the infinities.
 */
void
exj_append_double(StringInfo buf, double d)
{
	char		tmp[40];
	int			len;

	if (isnan(d))
		appendStringInfoString(buf, "{\"$numberDouble\":\"NaN\"}");
	else if (isinf(d))
		appendStringInfoString(buf, d > 0 ? "{\"$numberDouble\":\"Infinity\"}" :
							   "{\"$numberDouble\":\"-Infinity\"}");
	else
	{
		len = exj_format_double(d, tmp);
		appendBinaryStringInfo(buf, tmp, len);
	}
}

/*
 * exj_append_int_text
 *		Append the integer written in s (optional sign, decimal digits) as
 *		Ruby's Integer#to_s would; false when it is not an integer or does
 *		not fit in int64, which BSON cannot store.
 */
bool
exj_append_int_text(StringInfo buf, const char *s, int len, ExjError *err)
{
	bool		neg = false;
	uint64		v = 0;
	int			i = 0;
	char		tmp[24];
	int			n = 0;

	if (i < len && (s[i] == '-' || s[i] == '+'))
		neg = (s[i++] == '-');
	if (i >= len)
	{
		exj_error_set(err, EXJ_ERR_SYNTAX, "\"%.*s\" is not an integer",
					  Min(len, 64), s);
		return false;
	}
	for (; i < len; i++)
	{
		if (s[i] < '0' || s[i] > '9')
		{
			exj_error_set(err, EXJ_ERR_SYNTAX, "\"%.*s\" is not an integer",
						  Min(len, 64), s);
			return false;
		}
		if (v > (PG_UINT64_MAX - 9) / 10 ||
			v * 10 + (s[i] - '0') > (uint64) PG_INT64_MAX + (neg ? 1 : 0))
		{
			exj_error_set(err, EXJ_ERR_RANGE,
						  "integer %.*s is out of the range of a BSON int64",
						  Min(len, 64), s);
			return false;
		}
		v = v * 10 + (s[i] - '0');
	}
	if (v == 0)
		neg = false;
	do
	{
		tmp[n++] = '0' + (v % 10);
		v /= 10;
	} while (v > 0);
	if (neg)
		appendStringInfoCharMacro(buf, '-');
	while (n > 0)
		appendStringInfoCharMacro(buf, tmp[--n]);
	return true;
}

/*
 * exj_append_decimal128
 *		Append {"$numberDecimal":"..."} for the decimal text s, with the bson
 *		gem's Decimal128 rules: the value is parsed like
 *		Decimal128::Builder::FromString (trailing zeros are dropped or added
 *		only where that keeps the value exact) and printed with the IEEE
 *		to-scientific-string rules.  A value Decimal128 cannot hold exactly
 *		is an error, never rounded.
 *
 * s may be numeric's text output ("123.4500", "NaN", "Infinity") or any
 * string the gem accepts ("1E+3", ".5", "-Inf").
 */
bool
exj_append_decimal128(StringInfo buf, const char *s, int len, ExjError *err)
{
	const char *p = s;
	const char *end = s + len;
	bool		neg = false;
	char	   *sig;
	int			nsig = 0;
	int64		exponent = 0;
	int64		sciexp = 0;
	int			after = 0;
	bool		any_digit = false;
	int			tz;

	/* the gem's NAN_REGEX (^-?S?NaN$) and INFINITY_REGEX (^[+-]?Inf(inity)?$) */
	{
		const char *q = s;
		int			n = len;
		char		sign = 0;

		if (n > 0 && (*q == '-' || *q == '+'))
		{
			sign = *q++;
			n--;
		}
		if (sign != '+' && ((n == 3 && pg_strncasecmp(q, "nan", 3) == 0) || (n == 4 && pg_strncasecmp(q, "snan", 4) == 0)))
		{
			appendStringInfoString(buf, "{\"$numberDecimal\":\"NaN\"}");
			return true;
		}
		if ((n == 3 && pg_strncasecmp(q, "inf", 3) == 0) || (n == 8 && pg_strncasecmp(q, "infinity", 8) == 0))
		{
			appendStringInfoString(buf, sign == '-' ?
								   "{\"$numberDecimal\":\"-Infinity\"}" :
								   "{\"$numberDecimal\":\"Infinity\"}");
			return true;
		}
	}

	/* VALID_DECIMAL128_STRING_REGEX: [+-]?(\d+(\.\d*)?|\.\d+)(E[+-]?\d+)? */
	sig = palloc(len + DEC128_MAX_DIGITS + 2);
	if (p < end && (*p == '-' || *p == '+'))
		neg = (*p++ == '-');
	for (; p < end && *p >= '0' && *p <= '9'; p++)
	{
		any_digit = true;
		if (nsig > 0 || *p != '0')
			sig[nsig++] = *p;
	}
	if (p < end && *p == '.')
	{
		for (p++; p < end && *p >= '0' && *p <= '9'; p++)
		{
			any_digit = true;
			after++;
			if (nsig > 0 || *p != '0')
				sig[nsig++] = *p;
		}
	}
	if (!any_digit)
		goto bad;
	if (p < end && (*p == 'e' || *p == 'E'))
	{
		bool		eneg = false;
		bool		edigit = false;

		p++;
		if (p < end && (*p == '-' || *p == '+'))
			eneg = (*p++ == '-');
		for (; p < end && *p >= '0' && *p <= '9'; p++)
		{
			edigit = true;
			if (sciexp < PG_INT64_MAX / 100)
				sciexp = sciexp * 10 + (*p - '0');
		}
		if (!edigit)
			goto bad;
		if (eneg)
			sciexp = -sciexp;
	}
	if (p != end)
		goto bad;
	if (nsig == 0)
		sig[nsig++] = '0';
	exponent = sciexp - after;

	/* round_exact: drop trailing zeros where the value stays the same */
	for (tz = 0; tz < nsig && sig[nsig - 1 - tz] == '0'; tz++)
		;
	if (exponent < DEC128_MIN_EXP)
	{
		if (nsig == 1 && sig[0] == '0')
			exponent = DEC128_MIN_EXP;
		else if (tz > 0)
		{
			int64		round = Min(DEC128_MIN_EXP - exponent, tz);

			nsig -= round;
			exponent += round;
		}
	}
	else if (nsig > DEC128_MAX_DIGITS && tz > 0)
	{
		int64		round = Min(tz, nsig - DEC128_MAX_DIGITS);

		round = Min(round, DEC128_MAX_EXP - exponent);
		if (round > 0)
		{
			nsig -= round;
			exponent += round;
		}
	}
	/* clamp: a large exponent pays with trailing zeros while digits last */
	if (exponent > DEC128_MAX_EXP)
	{
		if (nsig == 1 && sig[0] == '0')
			exponent = DEC128_MAX_EXP;
		else
		{
			int64		adjust = Min(exponent - DEC128_MAX_EXP,
									 DEC128_MAX_DIGITS - nsig);

			if (adjust > 0)
			{
				memset(sig + nsig, '0', adjust);
				nsig += adjust;
				exponent -= adjust;
			}
		}
	}
	if (exponent < DEC128_MIN_EXP || exponent > DEC128_MAX_EXP)
	{
		exj_error_set(err, EXJ_ERR_RANGE,
					  "%.*s is out of the range of Decimal128", Min(len, 64), s);
		pfree(sig);
		return false;
	}
	if (nsig > DEC128_MAX_DIGITS)
	{
		exj_error_set(err, EXJ_ERR_RANGE,
					  "%.*s has more significant digits than Decimal128 holds (34)",
					  Min(len, 64), s);
		pfree(sig);
		return false;
	}

	/* ToString: IEEE to-scientific-string */
	appendStringInfoString(buf, "{\"$numberDecimal\":\"");
	if (neg)
		appendStringInfoCharMacro(buf, '-');
	{
		int64		adjexp = (nsig - 1) + exponent;

		if (exponent > 0 || adjexp < -6)
		{
			appendStringInfoCharMacro(buf, sig[0]);
			if (nsig > 1)
			{
				appendStringInfoCharMacro(buf, '.');
				appendBinaryStringInfo(buf, sig + 1, nsig - 1);
			}
			appendStringInfo(buf, "E%s" INT64_FORMAT, exponent < 0 ? "" : "+",
							 adjexp);
		}
		else if (exponent < 0)
		{
			if (nsig > -exponent)
			{
				int			point = nsig + exponent;

				appendBinaryStringInfo(buf, sig, point);
				appendStringInfoCharMacro(buf, '.');
				appendBinaryStringInfo(buf, sig + point, nsig - point);
			}
			else
			{
				int64		i;

				appendStringInfoString(buf, "0.");
				for (i = 0; i < -(exponent + nsig); i++)
					appendStringInfoCharMacro(buf, '0');
				appendBinaryStringInfo(buf, sig, nsig);
			}
		}
		else
			appendBinaryStringInfo(buf, sig, nsig);
	}
	appendStringInfoString(buf, "\"}");
	pfree(sig);
	return true;

bad:
	exj_error_set(err, EXJ_ERR_SYNTAX,
				  "\"%.*s\" is not a valid Decimal128 string", Min(len, 64), s);
	pfree(sig);
	return false;
}

/*
 * exj_append_base64
 *		Append data as Ruby's Base64.encode64(data).strip inside a JSON
 *		string: standard alphabet with padding (pg_b64_encode) and a line
 *		break (written "\n") after every 60 characters but the last.
 */
void
exj_append_base64(StringInfo buf, const unsigned char *data, int len)
{
	int			enclen = pg_b64_enc_len(len);
	char	   *enc = palloc(enclen + 1);
	int			n = exwiw_b64_encode(data, len, enc, enclen);
	int			i;

	/* it fails only for a short buffer, and enclen is what it needs */
	Assert(n >= 0);
	for (i = 0; i < n; i += 60)
	{
		if (i > 0)
			appendBinaryStringInfo(buf, "\\n", 2);
		appendBinaryStringInfo(buf, enc + i, Min(60, n - i));
	}
	pfree(enc);
}

/*
 * b64value
 *		The 6-bit value of a base64 character, or -1.
 */
static int
b64value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/*
 * exj_base64_decode
 *		Decode standard base64 (padding optional, line breaks ignored) into
 *		out; false on any other character or a dangling single character.
 */
bool
exj_base64_decode(const char *s, int len, StringInfo out)
{
	uint32		acc = 0;
	int			nbits = 0;
	int			nchars = 0;
	bool		padding = false;
	int			i;

	for (i = 0; i < len; i++)
	{
		int			v;

		if (s[i] == '\n' || s[i] == '\r')
			continue;
		if (s[i] == '=')
		{
			padding = true;
			continue;
		}
		v = b64value(s[i]);
		if (v < 0 || padding)
			return false;
		acc = (acc << 6) | v;
		nbits += 6;
		nchars++;
		if (nbits >= 8)
		{
			nbits -= 8;
			appendStringInfoCharMacro(out, (char) ((acc >> nbits) & 0xff));
		}
	}
	return nchars % 4 != 1;
}

/*
 * exj_append_binary
 *		Append {"$binary":{"base64":"...","subType":"xx"}}.
 */
void
exj_append_binary(StringInfo buf, const unsigned char *data, int len,
				  int subtype)
{
	appendStringInfoString(buf, "{\"$binary\":{\"base64\":\"");
	exj_append_base64(buf, data, len);
	appendStringInfoString(buf, "\",\"subType\":\"");
	appendStringInfoCharMacro(buf, hexdigits[(subtype >> 4) & 15]);
	appendStringInfoCharMacro(buf, hexdigits[subtype & 15]);
	appendStringInfoString(buf, "\"}}");
}

/*
 * exj_is_oid_text
 *		Is s exactly 24 hex digits (either case)?
 */
bool
exj_is_oid_text(const char *s, int len)
{
	int			i;

	if (len != 24)
		return false;
	for (i = 0; i < 24; i++)
	{
		char		c = s[i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
			  (c >= 'A' && c <= 'F')))
			return false;
	}
	return true;
}

/*
 * exj_append_oid
 *		Append {"$oid":"..."} for 24 hex digits (checked by the caller),
 *		lower-cased.
 */
void
exj_append_oid(StringInfo buf, const char *hex24)
{
	char		out[40];
	int			i;

	memcpy(out, "{\"$oid\":\"", 9);
	for (i = 0; i < 24; i++)
	{
		char		c = hex24[i];

		out[9 + i] = (c >= 'A' && c <= 'F') ? c + ('a' - 'A') : c;
	}
	memcpy(out + 33, "\"}", 2);
	appendBinaryStringInfo(buf, out, 35);
}

/*
 * floor_div
 *		Integer division rounding toward minus infinity.
 */
static inline int64
floor_div(int64 a, int64 b)
{
	int64		q = a / b;

	if ((a % b != 0) && ((a < 0) != (b < 0)))
		q--;
	return q;
}

/*
 * civil_from_days
 *		Proleptic Gregorian year/month/day of a day count from 1970-01-01.
 */
static void
civil_from_days(int64 z, int64 *y, int *m, int *d)
{
	int64		era;
	int64		doe;
	int64		yoe;
	int64		doy;
	int64		mp;

	z += 719468;
	era = floor_div(z, 146097);
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int) (doy - (153 * mp + 2) / 5 + 1);
	*m = (int) (mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

/*
 * days_from_civil
 *		Day count from 1970-01-01 of a proleptic Gregorian date.
 */
static int64
days_from_civil(int64 y, int m, int d)
{
	int64		era;
	int64		yoe;
	int64		doy;
	int64		doe;

	y -= m <= 2;
	era = floor_div(y, 400);
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/*
 * put_digits
 *		Write v (0 <= v < 10^width) as exactly width decimal digits at
 *		out[n]; return the new length.
 */
static inline int
put_digits(char *out, int n, int v, int width)
{
	int			i;

	for (i = width - 1; i >= 0; i--)
	{
		out[n + i] = '0' + v % 10;
		v /= 10;
	}
	return n + width;
}

/*
 * exj_append_date
 *		Append a Time given as whole seconds since the Unix epoch (floored)
 *		plus usec (0..999999), as the bson gem writes Time in relaxed mode:
 *		an ISO-8601 string for UTC years 1970..9999 (milliseconds floored,
 *		shown only when the microseconds are not zero), else
 *		{"$numberLong": floored milliseconds}.  secs must stay within
 *		+-2^53 or so (any PostgreSQL timestamp does).
 */
void
exj_append_date(StringInfo buf, int64 secs, int32 usec)
{
	int64		days = floor_div(secs, 86400);
	int64		sod = secs - days * 86400;
	int64		year;
	int			month;
	int			day;
	char		out[64];
	int			n;

	civil_from_days(days, &year, &month, &day);
	if (year < 1970 || year > 9999)
	{
		appendStringInfo(buf, "{\"$date\":{\"$numberLong\":\"" INT64_FORMAT "\"}}",
						 secs * 1000 + usec / 1000);
		return;
	}
	/* written by hand: snprintf costs more than everything else here */
	memcpy(out, "{\"$date\":\"", 10);
	n = 10;
	n = put_digits(out, n, (int) year, 4);
	out[n++] = '-';
	n = put_digits(out, n, month, 2);
	out[n++] = '-';
	n = put_digits(out, n, day, 2);
	out[n++] = 'T';
	n = put_digits(out, n, (int) (sod / 3600), 2);
	out[n++] = ':';
	n = put_digits(out, n, (int) (sod / 60 % 60), 2);
	out[n++] = ':';
	n = put_digits(out, n, (int) (sod % 60), 2);
	if (usec != 0)
	{
		out[n++] = '.';
		n = put_digits(out, n, usec / 1000, 3);
	}
	memcpy(out + n, "Z\"}", 3);
	n += 3;
	appendBinaryStringInfo(buf, out, n);
}

/*
 * exj_append_date_usec
 *		exj_append_date() for microseconds since the Unix epoch.
 */
void
exj_append_date_usec(StringInfo buf, int64 usec)
{
	int64		secs = floor_div(usec, 1000000);

	exj_append_date(buf, secs, (int32) (usec - secs * 1000000));
}

/*
 * read_digits
 *		Read exactly n decimal digits at *p (not past end) into *val.
 */
static bool
read_digits(const char **p, const char *end, int n, int *val)
{
	int			v = 0;

	while (n-- > 0)
	{
		if (*p >= end || **p < '0' || **p > '9')
			return false;
		v = v * 10 + (*(*p)++ - '0');
	}
	*val = v;
	return true;
}

/*
 * exj_parse_iso_date
 *		Parse an ISO-8601 date-time ("YYYY-MM-DD[THH:MM[:SS[.fff]]][Z|+HH:MM]")
 *		into microseconds since the Unix epoch (fractions beyond microseconds
 *		are truncated, as Ruby's Time#usec does).  A missing zone means UTC.
 */
bool
exj_parse_iso_date(const char *s, int len, int64 *usec)
{
	const char *p = s;
	const char *end = s + len;
	int			year,
				month,
				day,
				hour = 0,
				minute = 0,
				second = 0;
	int64		frac = 0;
	int			offset = 0;		/* seconds east of UTC */
	static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

	if (!read_digits(&p, end, 4, &year) || p >= end || *p++ != '-' ||
		!read_digits(&p, end, 2, &month) || p >= end || *p++ != '-' ||
		!read_digits(&p, end, 2, &day))
		return false;
	if (month < 1 || month > 12 || day < 1 || day > mdays[month - 1])
		return false;
	if (month == 2 && day == 29 &&
		!((year % 4 == 0 && year % 100 != 0) || year % 400 == 0))
		return false;
	if (p < end && (*p == 'T' || *p == 't' || *p == ' '))
	{
		p++;
		if (!read_digits(&p, end, 2, &hour) || p >= end || *p++ != ':' ||
			!read_digits(&p, end, 2, &minute))
			return false;
		if (p < end && *p == ':')
		{
			p++;
			if (!read_digits(&p, end, 2, &second))
				return false;
			if (p < end && *p == '.')
			{
				int			ndig = 0;

				p++;
				if (p >= end || *p < '0' || *p > '9')
					return false;
				for (; p < end && *p >= '0' && *p <= '9'; p++, ndig++)
					if (ndig < 6)
						frac = frac * 10 + (*p - '0');
				for (; ndig < 6; ndig++)
					frac *= 10;
			}
		}
		if (hour > 23 || minute > 59 || second > 59)
			return false;
	}
	if (p < end)
	{
		if ((*p == 'Z' || *p == 'z') && p + 1 == end)
			p++;
		else if (*p == '+' || *p == '-')
		{
			int			sign = (*p++ == '-') ? -1 : 1;
			int			oh,
						om = 0;

			if (!read_digits(&p, end, 2, &oh))
				return false;
			if (p < end && *p == ':')
				p++;
			if (p < end && !read_digits(&p, end, 2, &om))
				return false;
			if (oh > 23 || om > 59)
				return false;
			offset = sign * (oh * 3600 + om * 60);
		}
		else
			return false;
	}
	if (p != end)
		return false;
	*usec = ((days_from_civil(year, month, day) * 86400 + hour * 3600 +
			  minute * 60 + second - offset) * 1000000) + frac;
	return true;
}
