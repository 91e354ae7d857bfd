/*-------------------------------------------------------------------------
 *
 * fake/fake.h
 *	  Deterministic fake values for replace_with_fake_data: the pools
 *	  (fake/words.c), the functions that pick from them (fake/data.c) and
 *	  the SQL function exwiw_fake (fake/funcs.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef EXWIW_FAKE_DATA_H
#define EXWIW_FAKE_DATA_H

#include "postgres.h"

/* A Japanese name: kanji and katakana reading. */
typedef struct FakeName
{
	const char *kanji;
	const char *kana;
} FakeName;

/* The digest of a seed, read as two unsigned integers. */
typedef struct FakeDigest
{
	uint64		index;			/* bytes 0..7, big-endian */
	uint64		suffix;			/* bytes 8..15, big-endian */
} FakeDigest;

extern FakeDigest fake_digest(const char *seed, size_t len);
extern char *fake_value(const char *type, bool ja, FakeDigest g);
extern char *fake_login(bool email, FakeDigest g, int room, int *len);

/*
 * The sizes of the English name pools as constants (fake/words.c checks
 * them), so that picking a login's names from a digest, once per masked
 * e-mail, divides by a constant (a multiplication) instead of by a
 * variable.
 */
#define FAKE_FIRST_NAMES_N 104
#define FAKE_LAST_NAMES_N 96

extern const char *const fake_first_names[];
extern const int fake_first_names_n;
extern const char *const fake_last_names[];
extern const int fake_last_names_n;
extern const char *const fake_streets[];
extern const int fake_streets_n;
extern const char *const fake_street_kinds[];
extern const int fake_street_kinds_n;
extern const char *const fake_cities[];
extern const int fake_cities_n;
extern const char *const fake_company_words[];
extern const int fake_company_words_n;
extern const char *const fake_company_kinds[];
extern const int fake_company_kinds_n;
extern const FakeName fake_ja_last_names[];
extern const int fake_ja_last_names_n;
extern const FakeName fake_ja_first_names[];
extern const int fake_ja_first_names_n;
extern const char *const fake_ja_cities[];
extern const int fake_ja_cities_n;
extern const char *const fake_ja_towns[];
extern const int fake_ja_towns_n;

#endif							/* EXWIW_FAKE_DATA_H */
