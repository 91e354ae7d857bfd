/*-------------------------------------------------------------------------
 *
 * mask/secret.c
 *	  exwiw.mask_secret, the secret that keys the pseudonym and noise
 *	  masks, and the keyed hash they are computed from.
 *
 * The setting is PGC_SUSET and GUC_SUPERUSER_ONLY: only a superuser sets
 * it, and SHOW and pg_settings show it only to superusers and members of
 * pg_read_all_settings.  It has no default: a mask that needs it refuses
 * to run while it is unset or shorter than MASK_SECRET_MIN_LEN bytes, and
 * no message quotes it.  Its check hook refuses a value set for a
 * database, a role or a function (ALTER DATABASE | ROLE ... SET, CREATE
 * FUNCTION ... SET): those are stored in pg_db_role_setting and pg_proc,
 * which every role can read, SHOW's protection notwithstanding.  The hook
 * sets its own message (GUC_check_errmsg), so the GUC machinery's, which
 * would quote the value, is not used; the assign hook only counts
 * assignments.
 *
 * The masks never see the secret in SQL text: the generated SELECT calls
 * exwiw_mask_pseudonym() and exwiw_mask_noise(), which read it here, so
 * log_statement never logs it.
 *
 * A pseudonym is HMAC-SHA-256 (mask/hmac.c) keyed by the secret, over a
 * tag naming the mask, a NUL, then the mask's inputs separated by a NUL:
 * without the secret, a dictionary of originals cannot be matched against
 * the output.  The noise, one short keyed number per row, is SipHash-2-4
 * (mask/siphash.c) under a key derived from the secret by the same HMAC.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"
#include "mask/mask.h"

#include "utils/guc.h"

char	   *exwiw_mask_secret = NULL;

/*
 * Counts the assignments of exwiw.mask_secret (its assign hook, which the
 * GUC machinery calls on every change, a RESET or a transaction's end
 * included): the keyed states and the noise key are recomputed when it
 * moves, instead of comparing the secret with a copy on every value.
 */
uint64		exwiw_mask_secret_generation = 0;

/*
 * assign_mask_secret
 *		The setting's assign hook: count the assignment.  It never looks at
 *		the value (nor could a message quote it).
 */
static void
assign_mask_secret(const char *newval, void *extra)
{
	exwiw_mask_secret_generation++;
}

/*
 * check_mask_secret
 *		The setting's check hook: refuse a value whose source every role can
 *		read (a database's or a role's settings, or a function's, which
 *		ALTER ... SET and CREATE FUNCTION ... SET check as PGC_S_TEST); a
 *		value read at a session's start from such a source is dropped with
 *		a WARNING.  The messages never quote the value.
 */
static bool
check_mask_secret(char **newval, void **extra, GucSource source)
{
	if (*newval == NULL || (*newval)[0] == '\0')
		return true;
	switch (source)
	{
		case PGC_S_DATABASE:
		case PGC_S_USER:
		case PGC_S_DATABASE_USER:
		case PGC_S_TEST:
			GUC_check_errcode(ERRCODE_INVALID_PARAMETER_VALUE);
			GUC_check_errmsg("exwiw.mask_secret cannot be set for a database, a role or a function");
			GUC_check_errdetail("Such settings are stored in pg_db_role_setting or pg_proc, which every role can read.");
			GUC_check_errhint("Set it in postgresql.conf, or in a file it includes that only the server's operating system user can read.");
			return false;
		default:
			return true;
	}
}

/*
 * mask_define_settings
 *		Define exwiw.mask_secret (called from _PG_init).
 */
void
mask_define_settings(void)
{
	DefineCustomStringVariable("exwiw.mask_secret",
							   "The secret that keys exwiw's pseudonym and noise masks.",
							   "At least 16 bytes. Set it in postgresql.conf: a SET statement could be logged.",
							   &exwiw_mask_secret,
							   NULL,
							   PGC_SUSET,
							   GUC_SUPERUSER_ONLY | GUC_NOT_IN_SAMPLE | GUC_NO_SHOW_ALL,
							   check_mask_secret, assign_mask_secret, NULL);
}

/*
 * mask_require_secret
 *		Error out when exwiw.mask_secret is unset or too short.  The message
 *		never quotes the setting.
 */
void
mask_require_secret(void)
{
	if (exwiw_mask_secret == NULL || exwiw_mask_secret[0] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("exwiw.mask_secret is not set"),
				 errdetail("Pseudonym and noise masks are keyed by a secret, and exwiw has no default."),
				 errhint("A superuser sets exwiw.mask_secret (at least %d bytes) in postgresql.conf, then reloads.",
						 MASK_SECRET_MIN_LEN)));
	if (strlen(exwiw_mask_secret) < MASK_SECRET_MIN_LEN)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("exwiw.mask_secret is shorter than %d bytes", MASK_SECRET_MIN_LEN),
				 errhint("Set a longer, random secret, such as the output of \"openssl rand -hex 32\".")));
}
