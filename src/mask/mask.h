/*-------------------------------------------------------------------------
 *
 * mask.h
 *	  The masks that are SQL-callable functions: their entry points
 *	  (mask/funcs.c), the engine of each (mask_*.c), the secret that keys
 *	  pseudonyms and noise (mask/secret.c, mask/hmac.c, mask/siphash.c),
 *	  and the helpers the config checks share with the functions.
 *
 *-------------------------------------------------------------------------
 */
#ifndef EXWIW_MASK_H
#define EXWIW_MASK_H

#include "postgres.h"

#include "common/sha2.h"
#include "datatype/timestamp.h"
#include "nodes/pg_list.h"
#include "utils/date.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

/* The shortest secret exwiw accepts, in bytes. */
#define MASK_SECRET_MIN_LEN 16

/* exwiw.mask_secret (mask/secret.c) */
extern char *exwiw_mask_secret;
extern uint64 exwiw_mask_secret_generation;

extern void mask_define_settings(void);
extern void mask_require_secret(void);
extern void mask_hmac(const char *tag, const char *a, size_t alen,
					  const char *b, size_t blen,
					  uint8 out[PG_SHA256_DIGEST_LENGTH]);
extern bool mask_sha256_test(const char *impl_name, const uint8 *key,
							 size_t key_len, const uint8 *data, size_t len,
							 uint8 out[PG_SHA256_DIGEST_LENGTH]);
extern uint64 mask_siphash(const uint8 k[16], const uint8 *msg, size_t len);
extern double mask_unit_noise(const char *column, size_t column_len,
							  const char *seed, size_t len);

/* mask/pseudonym.c */
extern bool mask_pseudonym_type_known(const char *type);
extern const char *mask_pseudonym_types(void);
extern char *mask_pseudonym_value(const char *type, bool ja,
								  const char *value, size_t len);
extern text *mask_pseudonym_text(const char *type, bool ja,
								 const char *value, size_t len);

/* mask/partial.c */
extern char *mask_partial_value(const char *value, int len, int keep_start,
								int keep_end, const char *fill,
								bool keep_domain);
extern char *mask_partial_build(const char *value, int len, int keep_start, int keep_end, const char *fill, int fill_len, bool keep_domain, int room, int *outlen);

/* mask/noise.c */
extern Numeric mask_noise_number(Datum value, double ratio, Oid type,
								 int32 typmod, double u);
extern double mask_noise_span_usecs(Interval *span);
extern DateADT mask_noise_date(DateADT d, double span_us, double u);
extern Timestamp mask_noise_timestamp(Timestamp t, double span_us, double u);

/* mask/json.c */
typedef struct MaskJsonSpec MaskJsonSpec;
extern List *mask_json_parse_path(const char *path);
extern MaskJsonSpec *mask_json_spec(Jsonb *src, MaskJsonSpec *cached,
									MemoryContext mcxt);
extern Jsonb *mask_json_apply(const MaskJsonSpec *spec, Jsonb *doc);

#endif							/* EXWIW_MASK_H */
