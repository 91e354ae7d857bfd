/*-------------------------------------------------------------------------
 *
 * mask_hmac_funcs.c
 *	  exwiw_mask_hmac_test(): the SHA-256 under the masks, for the
 *	  regression tests (sql/masks.sql declares it; it is not part of the
 *	  extension's SQL).
 *
 *	  exwiw_mask_hmac_test(impl text, key bytea, data bytea) RETURNS bytea
 *
 * HMAC-SHA-256(key, data), or SHA-256(data) for a NULL key, by the
 * implementation impl names (mask_sha256_test in mask_hmac.c): "portable",
 * "sha_ni" (NULL where the CPU or the build has no SHA extensions) or
 * "auto".  NULL impl or data: NULL.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"
#include "mask/mask.h"

#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(exwiw_mask_hmac_test);

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
