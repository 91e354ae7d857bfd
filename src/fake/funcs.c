/*-------------------------------------------------------------------------
 *
 * fake/funcs.c
 *	  The SQL-callable function of the fake data: its arguments decoded
 *	  and checked, the value picked by fake/data.c.
 *
 *	  exwiw_fake(type text, locale text, seed text) RETURNS text
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"
#include "fake/fake.h"

#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(exwiw_fake);

/*
 * exwiw_fake
 *		SQL entry point: the fake value of type for seed (fake/data.c says
 *		how it is picked); NULL type: NULL; NULL seed: as "".
 */
Datum
exwiw_fake(PG_FUNCTION_ARGS)
{
	text	   *seed;
	char	   *type;
	bool		ja = false;
	FakeDigest	g;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	type = text_to_cstring(PG_GETARG_TEXT_PP(0));
	if (!PG_ARGISNULL(1))
	{
		char	   *locale = text_to_cstring(PG_GETARG_TEXT_PP(1));

		if (strcmp(locale, "ja") == 0)
			ja = true;
		else if (strcmp(locale, "en") != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown fake data locale \"%s\"", locale),
					 errhint("Known locales: en (the default) and ja.")));
	}
	if (PG_ARGISNULL(2))
		g = fake_digest("", 0);
	else
	{
		seed = PG_GETARG_TEXT_PP(2);
		g = fake_digest(VARDATA_ANY(seed), VARSIZE_ANY_EXHDR(seed));
	}
	if (!ja && strstr(type, "kana"))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("fake data type \"%s\" needs locale \"ja\"", type)));
	PG_RETURN_TEXT_P(cstring_to_text(fake_value(type, ja, g)));
}
