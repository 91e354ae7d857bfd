/*-------------------------------------------------------------------------
 *
 * mask/siphash.c
 *	  SipHash-2-4, the keyed function of the noise mask.
 *
 * The noise mask needs one uniform number per row from the secret, the
 * column's name and the row's key, which nobody without the secret can
 * compute (else the noise could be subtracted).  Any pseudorandom
 * function keyed by the secret does; HMAC-SHA-256 costs two SHA-256
 * compressions a row, about 90 ns even with the SHA extensions, which was
 * the largest part of the noise mask's cost (bench/README.md, "Masks").
 * SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast short-input PRF",
 * 2012) is a PRF designed for such short inputs, with a 128-bit key: the
 * key is the first 16 bytes of HMAC-SHA-256(secret, "noise key" NUL NUL),
 * derived once per secret (noise_key, below), so that the noise
 * keeps depending on the whole secret, and the pseudonyms, which stay
 * HMAC-SHA-256, share nothing with it but the secret.
 *
 * Written from the paper for this one use: 64-bit output, the message as
 * little-endian 64-bit words, its length in the top byte of the last one;
 * c = 2 rounds per word, d = 4 at the end.  The regression tests check the
 * paper's test vector through mask_siphash_test.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"
#include "mask/mask.h"

#define ROTL64(x, b) (((x) << (b)) | ((x) >> (64 - (b))))

#define SIPROUND(v0, v1, v2, v3) \
	do { \
		v0 += v1; v1 = ROTL64(v1, 13); v1 ^= v0; v0 = ROTL64(v0, 32); \
		v2 += v3; v3 = ROTL64(v3, 16); v3 ^= v2; \
		v0 += v3; v3 = ROTL64(v3, 21); v3 ^= v0; \
		v2 += v1; v1 = ROTL64(v1, 17); v1 ^= v2; v2 = ROTL64(v2, 32); \
	} while (0)

/*
 * load_le64
 *		The 8 bytes at p as a little-endian integer, on any host and any
 *		alignment.
 */
static inline uint64
load_le64(const uint8 *p)
{
	return (uint64) p[0] | ((uint64) p[1] << 8) | ((uint64) p[2] << 16) |
		((uint64) p[3] << 24) | ((uint64) p[4] << 32) | ((uint64) p[5] << 40) |
		((uint64) p[6] << 48) | ((uint64) p[7] << 56);
}

/*
 * mask_siphash
 *		SipHash-2-4 of the len bytes at msg under the key k (16 bytes, read
 *		as two little-endian words, as the paper's reference does).
 */
uint64
mask_siphash(const uint8 k[16], const uint8 *msg, size_t len)
{
	uint64		k0 = load_le64(k);
	uint64		k1 = load_le64(k + 8);
	uint64		v0 = k0 ^ UINT64CONST(0x736f6d6570736575);
	uint64		v1 = k1 ^ UINT64CONST(0x646f72616e646f6d);
	uint64		v2 = k0 ^ UINT64CONST(0x6c7967656e657261);
	uint64		v3 = k1 ^ UINT64CONST(0x7465646279746573);
	const uint8 *end = msg + (len & ~(size_t) 7);
	uint64		m;
	int			left = len & 7;

	for (; msg < end; msg += 8)
	{
		m = load_le64(msg);
		v3 ^= m;
		SIPROUND(v0, v1, v2, v3);
		SIPROUND(v0, v1, v2, v3);
		v0 ^= m;
	}
	/* the last 0-7 bytes, and the length's low byte on top */
	m = (uint64) (len & 0xff) << 56;
	while (left-- > 0)
		m |= (uint64) msg[left] << (8 * left);
	v3 ^= m;
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	v0 ^= m;
	v2 ^= 0xff;
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

/*
 * noise_key
 *		The SipHash key of the noise mask (mask/siphash.c): the first 16
 *		bytes of HMAC-SHA-256(secret, "noise key" NUL NUL) (mask_hmac's
 *		message of the tag and two empty inputs), derived when the secret
 *		is first used and again after each assignment of it.  Errors out
 *		without a secret (mask_hmac).
 */
static const uint8 *
noise_key(void)
{
	static uint8 key[16];
	static bool keyed = false;
	static uint64 keyed_generation = 0;

	if (!keyed || keyed_generation != exwiw_mask_secret_generation)
	{
		uint8		d[PG_SHA256_DIGEST_LENGTH];

		mask_hmac("noise key", "", 0, "", 0, d);
		memcpy(key, d, sizeof(key));
		explicit_bzero(d, sizeof(d));
		keyed_generation = exwiw_mask_secret_generation;
		keyed = true;
	}
	return key;
}

/*
 * mask_unit_noise
 *		A number in [-1, 1], uniform, from the secret, the column's name
 *		(column_len bytes) and the row's seed (its key as text, len
 *		bytes): SipHash-2-4 under the secret's noise key of column || NUL
 *		|| seed, its top 53 bits.  The same row gets the same noise in
 *		every run, and the noise cannot be undone without the secret.
 */
double
mask_unit_noise(const char *column, size_t column_len, const char *seed,
				size_t len)
{
	const uint8 *key = noise_key();
	uint8		buf[128];
	uint8	   *m = buf;
	size_t		mlen = column_len + 1 + len;
	uint64		v;

	if (mlen > sizeof(buf))
		m = palloc(mlen);
	memcpy(m, column, column_len);
	m[column_len] = 0;
	memcpy(m + column_len + 1, seed, len);
	v = mask_siphash(key, m, mlen);
	if (m != buf)
		pfree(m);
	/* 53 bits, as a double in [0, 1], then to [-1, 1] */
	return ((double) (v >> 11) / (double) ((UINT64CONST(1) << 53) - 1)) * 2.0 - 1.0;
}
