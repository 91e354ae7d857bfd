/*-------------------------------------------------------------------------
 *
 * mask/hmac.c
 *	  HMAC-SHA-256 keyed by exwiw.mask_secret, with the key's padded
 *	  blocks hashed once per secret instead of once per value.
 *
 * HMAC(K, m) = H((K ^ opad) || H((K ^ ipad) || m)) (RFC 2104).  The two
 * 64-byte blocks K ^ ipad and K ^ opad depend on the key alone, so their
 * SHA-256 states are computed when the secret is first used (and again
 * when it changes) and kept; a value then costs the compression of its own
 * blocks plus one for the outer hash: two for a short value, where
 * common/hmac.h costs four, and with OpenSSL 3 a context allocated, the
 * digest fetched by name, and the context freed, per value (which was most
 * of a masked export's time, bench/README.md).  The server's HMAC offers no
 * way to keep a keyed state.
 *
 * SHA-256 is FIPS 180-4's, written here for that purpose only, with two
 * compression functions of the same bytes: portable C, and on x86-64 one
 * made of the SHA extensions' instructions (SHA256RNDS2, SHA256MSG1,
 * SHA256MSG2: two rounds, or four words of the message schedule, per
 * instruction), chosen at run time when cpuid reports them (with SSSE3,
 * for the byte swap and PALIGNR, and SSE4.1, which the target attribute
 * names) and compiled for those instructions alone (the attribute), so
 * the rest of the module runs on any x86-64; other CPUs and compilers get
 * the portable one.  A message that fits one block after the key's (short
 * values, the usual case) is laid out in that block directly, and the
 * implementation computes the whole HMAC from it (hmac_block): two
 * compressions, no buffering, and with the SHA extensions the inner digest
 * never leaves the registers.  On a build with assertions every
 * HMAC is also computed with common/hmac.h and the two compared;
 * mask_sha256_test (exwiw_mask_hmac_test() for the regression tests, not
 * part of the extension's SQL) runs either implementation on any key and
 * message.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"
#include "mask/mask.h"

#include "common/hmac.h"
#include "utils/memutils.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define MASK_SHA_NI 1
#include <cpuid.h>
#include <immintrin.h>
#endif

#define SHA256_BLOCK 64

/* One compression: a 64-byte block into state h. */
typedef void (*Sha256Compress) (uint32 h[8], const uint8 *block);

/*
 * A whole HMAC whose inner message is one block after the key's: out from
 * the key's states and that block, padded.
 */
typedef void (*HmacBlock) (const uint32 inner[8], const uint32 outer[8],
						   const uint8 *block, uint8 out[PG_SHA256_DIGEST_LENGTH]);

/* An implementation of the two. */
typedef struct Sha256Impl
{
	Sha256Compress compress;
	HmacBlock	hmac_block;
} Sha256Impl;

/* A SHA-256 computation in progress. */
typedef struct Sha256
{
	Sha256Compress compress;
	uint32		h[8];
	uint8		buf[SHA256_BLOCK];
	size_t		buflen;			/* bytes in buf */
	uint64		total;			/* bytes hashed, buf's included */
} Sha256;

static const uint32 sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

static const uint32 sha256_iv[8] = {
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c,
	0x1f83d9ab, 0x5be0cd19
};

/* The secret the states below were computed from (a copy), or NULL. */
static char *keyed_secret = NULL;
static size_t keyed_secret_len;

/* exwiw_mask_secret_generation when the secret was last checked and keyed */
static uint64 keyed_generation = 0;
static uint32 inner_state[8];
static uint32 outer_state[8];

/* The implementation mask_hmac uses: chosen with the first keyed states. */
static const Sha256Impl *sha256_impl = NULL;

#define ROTR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

/*
 * sha256_compress_c
 *		Process one 64-byte block into state h, in portable C.
 */
static void
sha256_compress_c(uint32 h[8], const uint8 *block)
{
	uint32		w[64];
	uint32		a,
				b,
				c,
				d,
				e,
				f,
				g,
				hh;
	int			i;

	for (i = 0; i < 16; i++)
		w[i] = ((uint32) block[4 * i] << 24) | ((uint32) block[4 * i + 1] << 16) |
			((uint32) block[4 * i + 2] << 8) | (uint32) block[4 * i + 3];
	for (i = 16; i < 64; i++)
	{
		uint32		s0 = ROTR(w[i - 15], 7) ^ ROTR(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32		s1 = ROTR(w[i - 2], 17) ^ ROTR(w[i - 2], 19) ^ (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = h[0];
	b = h[1];
	c = h[2];
	d = h[3];
	e = h[4];
	f = h[5];
	g = h[6];
	hh = h[7];
	for (i = 0; i < 64; i++)
	{
		uint32		S1 = ROTR(e, 6) ^ ROTR(e, 11) ^ ROTR(e, 25);
		uint32		ch = (e & f) ^ (~e & g);
		uint32		t1 = hh + S1 + ch + sha256_k[i] + w[i];
		uint32		S0 = ROTR(a, 2) ^ ROTR(a, 13) ^ ROTR(a, 22);
		uint32		maj = (a & b) ^ (a & c) ^ (b & c);
		uint32		t2 = S0 + maj;

		hh = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
	h[5] += f;
	h[6] += g;
	h[7] += hh;
}

#ifdef MASK_SHA_NI
/*
 * Four rounds of sha256_compress_ni: the words W[4g..4g+3] in wg (word
 * 4g in the lowest lane) plus their constants, two rounds per SHA256RNDS2
 * (it takes the sum of a round's word and constant in the low 64 bits:
 * the first round's in bits 0-31), then the state's halves trade places,
 * since two rounds turn A, B, E, F into the next C, D, G, H.  With SCHED,
 * W[4g+16..4g+19] replace wg: SHA256MSG1 adds sigma0 of the next words
 * (W[4g+1..4g+4], from w1) to W[4g..4g+3], the words W[4g+9..4g+12] (w2's
 * top three and w3's lowest, PALIGNR) are added, and SHA256MSG2 adds
 * sigma1 of the two words before each (W[4g+14], W[4g+15] from w3, then
 * its own first two results).
 */
#define SHA_NI_QUAD(g, wg, w1, w2, w3, sched) \
	do { \
		__m128i		wk_ = _mm_add_epi32((wg), \
										_mm_loadu_si128((const __m128i *) &sha256_k[4 * (g)])); \
		__m128i		t_ = _mm_sha256rnds2_epu32(cdgh, abef, wk_); \
		cdgh = abef; \
		abef = t_; \
		wk_ = _mm_shuffle_epi32(wk_, 0x0e); \
		t_ = _mm_sha256rnds2_epu32(cdgh, abef, wk_); \
		cdgh = abef; \
		abef = t_; \
		if (sched) \
			(wg) = _mm_sha256msg2_epu32(_mm_add_epi32(_mm_sha256msg1_epu32((wg), (w1)), \
													  _mm_alignr_epi8((w3), (w2), 4)), \
										(w3)); \
	} while (0)

/* each 32-bit word of a block is big endian */
#define SHA_NI_BSWAP() \
	_mm_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12)

/*
 * sha_ni_rounds
 *		The 64 rounds of one block w0..w3 (W[0..15], word 0 in w0's lowest
 *		lane) on the state in *abef and *cdgh (Intel's SHA Extensions
 *		reference: A, B, E, F from the highest lane down, and C, D, G, H),
 *		and the state added, as a compression does.
 */
__attribute__((target("sha,sse4.1"), always_inline))
static inline void
sha_ni_rounds(__m128i *abef_p, __m128i *cdgh_p,
			  __m128i w0, __m128i w1, __m128i w2, __m128i w3)
{
	__m128i		abef = *abef_p;
	__m128i		cdgh = *cdgh_p;
	int			g;

	/* rounds 0-47, computing W[16..63] as they go, then 48-63 */
	for (g = 0; g < 12; g += 4)
	{
		SHA_NI_QUAD(g, w0, w1, w2, w3, true);
		SHA_NI_QUAD(g + 1, w1, w2, w3, w0, true);
		SHA_NI_QUAD(g + 2, w2, w3, w0, w1, true);
		SHA_NI_QUAD(g + 3, w3, w0, w1, w2, true);
	}
	SHA_NI_QUAD(12, w0, w1, w2, w3, false);
	SHA_NI_QUAD(13, w1, w2, w3, w0, false);
	SHA_NI_QUAD(14, w2, w3, w0, w1, false);
	SHA_NI_QUAD(15, w3, w0, w1, w2, false);
	*abef_p = _mm_add_epi32(abef, *abef_p);
	*cdgh_p = _mm_add_epi32(cdgh, *cdgh_p);
}

/*
 * sha_ni_load, sha_ni_words
 *		State h[0..7] (A..H) as abef and cdgh, and back as two vectors of
 *		words in order (A, B, C, D and E, F, G, H from the lowest lane up:
 *		the digest's words, and h's layout in memory).
 */
__attribute__((target("sha,sse4.1"), always_inline))
static inline void
sha_ni_load(const uint32 h[8], __m128i *abef, __m128i *cdgh)
{
	/* D, C, B, A and H, G, F, E from the lowest lane up */
	__m128i		dcba = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *) h), 0x1b);
	__m128i		hgfe = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *) (h + 4)), 0x1b);

	*abef = _mm_unpackhi_epi64(hgfe, dcba);
	*cdgh = _mm_unpacklo_epi64(hgfe, dcba);
}

__attribute__((target("sha,sse4.1"), always_inline))
static inline void
sha_ni_words(__m128i abef, __m128i cdgh, __m128i *abcd, __m128i *efgh)
{
	*abcd = _mm_shuffle_epi32(_mm_unpackhi_epi64(cdgh, abef), 0x1b);
	*efgh = _mm_shuffle_epi32(_mm_unpacklo_epi64(cdgh, abef), 0x1b);
}

/*
 * sha256_compress_ni
 *		sha256_compress_c's result, with the SHA extensions.  Only called
 *		where cpu_has_sha_ni says the CPU has them.
 */
__attribute__((target("sha,sse4.1")))
static void
sha256_compress_ni(uint32 h[8], const uint8 *block)
{
	const __m128i bswap = SHA_NI_BSWAP();
	__m128i		abef;
	__m128i		cdgh;
	__m128i		abcd;
	__m128i		efgh;

	sha_ni_load(h, &abef, &cdgh);
	sha_ni_rounds(&abef, &cdgh,
				  _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *) block), bswap),
				  _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *) (block + 16)), bswap),
				  _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *) (block + 32)), bswap),
				  _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *) (block + 48)), bswap));
	sha_ni_words(abef, cdgh, &abcd, &efgh);
	_mm_storeu_si128((__m128i *) h, abcd);
	_mm_storeu_si128((__m128i *) (h + 4), efgh);
}

/*
 * hmac_block_ni
 *		hmac_block_c's result, with the SHA extensions, the inner digest
 *		kept in registers: its eight words are the outer block's first
 *		eight, then come the padding's 0x80 (word 8) and the bit length of
 *		the key's block and the digest (word 15: 768).
 */
__attribute__((target("sha,sse4.1")))
static void
hmac_block_ni(const uint32 inner[8], const uint32 outer[8], const uint8 *block,
			  uint8 out[PG_SHA256_DIGEST_LENGTH])
{
	const __m128i bswap = SHA_NI_BSWAP();
	__m128i		abef;
	__m128i		cdgh;
	__m128i		abcd;
	__m128i		efgh;

	sha_ni_load(inner, &abef, &cdgh);
	sha_ni_rounds(&abef, &cdgh,
				  _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *) block), bswap),
				  _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *) (block + 16)), bswap),
				  _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *) (block + 32)), bswap),
				  _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *) (block + 48)), bswap));
	sha_ni_words(abef, cdgh, &abcd, &efgh);
	sha_ni_load(outer, &abef, &cdgh);
	sha_ni_rounds(&abef, &cdgh, abcd, efgh,
				  _mm_set_epi32(0, 0, 0, (int) 0x80000000),
				  _mm_set_epi32((SHA256_BLOCK + PG_SHA256_DIGEST_LENGTH) * 8, 0, 0, 0));
	sha_ni_words(abef, cdgh, &abcd, &efgh);
	_mm_storeu_si128((__m128i *) out, _mm_shuffle_epi8(abcd, bswap));
	_mm_storeu_si128((__m128i *) (out + 16), _mm_shuffle_epi8(efgh, bswap));
}

/*
 * cpu_has_sha_ni
 *		Does the CPU have the SHA extensions (cpuid leaf 7, EBX bit 29), and
 *		SSSE3 and SSE4.1 (leaf 1, ECX bits 9 and 19)?
 */
static bool
cpu_has_sha_ni(void)
{
	unsigned int a,
				b,
				c,
				d;

	if (!__get_cpuid(1, &a, &b, &c, &d) ||
		(c & bit_SSSE3) == 0 || (c & bit_SSE4_1) == 0)
		return false;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return false;
	return (b & bit_SHA) != 0;
}
#endif							/* MASK_SHA_NI */

static void hmac_block_c(const uint32 inner[8], const uint32 outer[8],
						 const uint8 *block, uint8 out[PG_SHA256_DIGEST_LENGTH]);

static const Sha256Impl sha256_portable = {sha256_compress_c, hmac_block_c};

#ifdef MASK_SHA_NI
static const Sha256Impl sha256_sha_ni = {sha256_compress_ni, hmac_block_ni};
#endif

/*
 * choose_impl
 *		The fastest implementation this CPU runs.
 */
static const Sha256Impl *
choose_impl(void)
{
#ifdef MASK_SHA_NI
	if (cpu_has_sha_ni())
		return &sha256_sha_ni;
#endif
	return &sha256_portable;
}

/*
 * sha256_start
 *		Start s from state h, after `done` bytes already hashed into it (0
 *		for the initial value, a block for a keyed state).
 */
static void
sha256_start(Sha256 *s, Sha256Compress compress, const uint32 h[8], uint64 done)
{
	s->compress = compress;
	memcpy(s->h, h, sizeof(s->h));
	s->buflen = 0;
	s->total = done;
}

/*
 * sha256_update
 *		Hash len bytes of data.
 */
static void
sha256_update(Sha256 *s, const uint8 *data, size_t len)
{
	if (len == 0)
		return;
	s->total += len;
	if (s->buflen > 0)
	{
		size_t		n = Min(len, SHA256_BLOCK - s->buflen);

		memcpy(s->buf + s->buflen, data, n);
		s->buflen += n;
		data += n;
		len -= n;
		if (s->buflen < SHA256_BLOCK)
			return;
		s->compress(s->h, s->buf);
		s->buflen = 0;
	}
	while (len >= SHA256_BLOCK)
	{
		s->compress(s->h, data);
		data += SHA256_BLOCK;
		len -= SHA256_BLOCK;
	}
	memcpy(s->buf, data, len);
	s->buflen = len;
}

/*
 * sha256_final
 *		The digest: the padding (0x80, zeros, the length in bits, big
 *		endian) and the state's words, big endian.
 */
static void
sha256_final(Sha256 *s, uint8 out[PG_SHA256_DIGEST_LENGTH])
{
	uint64		bits = s->total * 8;
	int			i;

	s->buf[s->buflen++] = 0x80;
	if (s->buflen > SHA256_BLOCK - 8)
	{
		memset(s->buf + s->buflen, 0, SHA256_BLOCK - s->buflen);
		s->compress(s->h, s->buf);
		s->buflen = 0;
	}
	memset(s->buf + s->buflen, 0, SHA256_BLOCK - 8 - s->buflen);
	for (i = 0; i < 8; i++)
		s->buf[SHA256_BLOCK - 1 - i] = (uint8) (bits >> (8 * i));
	s->compress(s->h, s->buf);
	for (i = 0; i < 8; i++)
	{
		out[4 * i] = (uint8) (s->h[i] >> 24);
		out[4 * i + 1] = (uint8) (s->h[i] >> 16);
		out[4 * i + 2] = (uint8) (s->h[i] >> 8);
		out[4 * i + 3] = (uint8) s->h[i];
	}
}

/*
 * put_be32, put_be64
 *		v at p, big endian.
 */
static inline void
put_be32(uint8 *p, uint32 v)
{
	p[0] = (uint8) (v >> 24);
	p[1] = (uint8) (v >> 16);
	p[2] = (uint8) (v >> 8);
	p[3] = (uint8) v;
}

static inline void
put_be64(uint8 *p, uint64 v)
{
	put_be32(p, (uint32) (v >> 32));
	put_be32(p + 4, (uint32) v);
}

/*
 * hmac_key_states
 *		The states after the blocks K ^ ipad and K ^ opad of key K (RFC
 *		2104: a key longer than a block is hashed first).
 */
static void
hmac_key_states(Sha256Compress compress, const uint8 *key, size_t len,
				uint32 inner[8], uint32 outer[8])
{
	uint8		k[SHA256_BLOCK];
	uint8		pad[SHA256_BLOCK];
	int			i;

	memset(k, 0, sizeof(k));
	if (len > SHA256_BLOCK)
	{
		Sha256		s;

		sha256_start(&s, compress, sha256_iv, 0);
		sha256_update(&s, key, len);
		sha256_final(&s, k);
	}
	else
		memcpy(k, key, len);
	for (i = 0; i < SHA256_BLOCK; i++)
		pad[i] = k[i] ^ 0x36;
	memcpy(inner, sha256_iv, sizeof(sha256_iv));
	compress(inner, pad);
	for (i = 0; i < SHA256_BLOCK; i++)
		pad[i] = k[i] ^ 0x5c;
	memcpy(outer, sha256_iv, sizeof(sha256_iv));
	compress(outer, pad);
	explicit_bzero(k, sizeof(k));
	explicit_bzero(pad, sizeof(pad));
}

/*
 * hmac_outer
 *		out = H((K ^ opad) || inner digest): one block after the key's, the
 *		digest's 32 bytes and the padding, laid out directly.
 */
static void
hmac_outer(Sha256Compress compress, const uint32 outer[8],
		   const uint8 inner[PG_SHA256_DIGEST_LENGTH],
		   uint8 out[PG_SHA256_DIGEST_LENGTH])
{
	uint8		blk[SHA256_BLOCK];
	uint32		h[8];
	int			i;

	memcpy(blk, inner, PG_SHA256_DIGEST_LENGTH);
	blk[PG_SHA256_DIGEST_LENGTH] = 0x80;
	memset(blk + PG_SHA256_DIGEST_LENGTH + 1, 0,
		   SHA256_BLOCK - 8 - PG_SHA256_DIGEST_LENGTH - 1);
	put_be64(blk + SHA256_BLOCK - 8, (uint64) (SHA256_BLOCK + PG_SHA256_DIGEST_LENGTH) * 8);
	memcpy(h, outer, sizeof(h));
	compress(h, blk);
	for (i = 0; i < 8; i++)
		put_be32(out + 4 * i, h[i]);
}

/*
 * hmac_block_c
 *		out = HMAC from the keyed states inner and outer and the inner
 *		message's one padded block, in portable C.
 */
static void
hmac_block_c(const uint32 inner[8], const uint32 outer[8], const uint8 *block,
			 uint8 out[PG_SHA256_DIGEST_LENGTH])
{
	uint32		h[8];
	uint8		d[PG_SHA256_DIGEST_LENGTH];
	int			i;

	memcpy(h, inner, sizeof(h));
	sha256_compress_c(h, block);
	for (i = 0; i < 8; i++)
		put_be32(d + 4 * i, h[i]);
	hmac_outer(sha256_compress_c, outer, d, out);
}

/*
 * pad_block
 *		Pad the mlen bytes (at most SHA256_BLOCK - 9) of an inner message at
 *		blk: 0x80, zeros, the bit length of the key's block and the message.
 */
static void
pad_block(uint8 blk[SHA256_BLOCK], size_t mlen)
{
	blk[mlen] = 0x80;
	memset(blk + mlen + 1, 0, SHA256_BLOCK - 8 - mlen - 1);
	put_be64(blk + SHA256_BLOCK - 8, (uint64) (SHA256_BLOCK + mlen) * 8);
}

/*
 * key_states
 *		The states after the blocks K ^ ipad and K ^ opad of the current
 *		secret (mask_require_secret has passed), computed once per secret,
 *		and the compression, chosen once.
 */
static void
key_states(void)
{
	size_t		len = strlen(exwiw_mask_secret);
	char	   *copy;

	if (keyed_secret != NULL && keyed_secret_len == len &&
		memcmp(keyed_secret, exwiw_mask_secret, len) == 0)
		return;
	if (sha256_impl == NULL)
		sha256_impl = choose_impl();
	/* the copy first: out of memory, the old states and copy stay a pair */
	copy = MemoryContextStrdup(TopMemoryContext, exwiw_mask_secret);
	hmac_key_states(sha256_impl->compress, (const uint8 *) exwiw_mask_secret,
					len, inner_state, outer_state);
	if (keyed_secret != NULL)
	{
		explicit_bzero(keyed_secret, keyed_secret_len);
		pfree(keyed_secret);
	}
	keyed_secret = copy;
	keyed_secret_len = len;
}

#ifdef USE_ASSERT_CHECKING
/*
 * check_with_server
 *		Assert that common/hmac.h gives the same HMAC of the same input.
 */
static void
check_with_server(const char *tag, const char *a, size_t alen, const char *b,
				  size_t blen, const uint8 *ours)
{
	pg_hmac_ctx *ctx = pg_hmac_create(PG_SHA256);
	uint8		theirs[PG_SHA256_DIGEST_LENGTH];
	static const uint8 nul = 0;

	if (ctx == NULL ||
		pg_hmac_init(ctx, (const uint8 *) exwiw_mask_secret, strlen(exwiw_mask_secret)) < 0 ||
		pg_hmac_update(ctx, (const uint8 *) tag, strlen(tag)) < 0 ||
		pg_hmac_update(ctx, &nul, 1) < 0 ||
		pg_hmac_update(ctx, (const uint8 *) a, alen) < 0 ||
		pg_hmac_update(ctx, &nul, 1) < 0 ||
		pg_hmac_update(ctx, (const uint8 *) b, blen) < 0 ||
		pg_hmac_final(ctx, theirs, PG_SHA256_DIGEST_LENGTH) < 0)
		elog(ERROR, "could not compute an HMAC");
	pg_hmac_free(ctx);
	Assert(memcmp(ours, theirs, PG_SHA256_DIGEST_LENGTH) == 0);
}
#endif

/*
 * mask_hmac
 *		out = HMAC-SHA-256(secret, tag || NUL || a || NUL || b).  Errors out
 *		without a secret.  Allocates nothing that outlives the call but the
 *		copy of the secret its keyed states were computed from.
 */
void
mask_hmac(const char *tag, const char *a, size_t alen, const char *b,
		  size_t blen, uint8 out[PG_SHA256_DIGEST_LENGTH])
{
	static const uint8 nul = 0;
	size_t		tlen = strlen(tag);
	size_t		mlen = tlen + 1 + alen + 1 + blen;

	/*
	 * the secret is the one the states are of (so it passed) while no
	 * assignment came since; else check and key it
	 */
	if (keyed_generation != exwiw_mask_secret_generation || keyed_secret == NULL)
	{
		mask_require_secret();
		key_states();
		keyed_generation = exwiw_mask_secret_generation;
	}
	Assert(strcmp(keyed_secret, exwiw_mask_secret) == 0);
	if (mlen <= SHA256_BLOCK - 9)
	{
		/* the message laid out in its block */
		uint8		blk[SHA256_BLOCK];
		uint8	   *p = blk;

		memcpy(p, tag, tlen);
		p += tlen;
		*p++ = 0;
		memcpy(p, a, alen);
		p += alen;
		*p++ = 0;
		memcpy(p, b, blen);
		pad_block(blk, mlen);
		sha256_impl->hmac_block(inner_state, outer_state, blk, out);
	}
	else
	{
		Sha256		s;
		uint8		inner[PG_SHA256_DIGEST_LENGTH];

		sha256_start(&s, sha256_impl->compress, inner_state, SHA256_BLOCK);
		sha256_update(&s, (const uint8 *) tag, tlen);
		sha256_update(&s, &nul, 1);
		sha256_update(&s, (const uint8 *) a, alen);
		sha256_update(&s, &nul, 1);
		sha256_update(&s, (const uint8 *) b, blen);
		sha256_final(&s, inner);
		hmac_outer(sha256_impl->compress, outer_state, inner, out);
	}
#ifdef USE_ASSERT_CHECKING
	check_with_server(tag, a, alen, b, blen, out);
#endif
}

/*
 * mask_sha256_test
 *		HMAC-SHA-256(key, data), or SHA-256(data) without a key (key NULL),
 *		into out, computed by the implementation impl names: "portable",
 *		"sha_ni" or "auto" (mask_hmac's choice), an HMAC of at most
 *		SHA256_BLOCK - 9 bytes of data through its one-block path, as
 *		mask_hmac does.  False where "sha_ni" is not there (another CPU or
 *		build); an unknown name is an error.  For exwiw_mask_hmac_test
 *		(mask_hmac_funcs.c), which the regression tests declare.
 */
bool
mask_sha256_test(const char *impl_name, const uint8 *key, size_t key_len,
				 const uint8 *data, size_t len,
				 uint8 out[PG_SHA256_DIGEST_LENGTH])
{
	const Sha256Impl *impl = NULL;
	Sha256		s;

	if (strcmp(impl_name, "portable") == 0)
		impl = &sha256_portable;
	else if (strcmp(impl_name, "auto") == 0)
		impl = choose_impl();
	else if (strcmp(impl_name, "sha_ni") == 0)
	{
#ifdef MASK_SHA_NI
		if (cpu_has_sha_ni())
			impl = &sha256_sha_ni;
#endif
		if (impl == NULL)
			return false;
	}
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown SHA-256 implementation \"%s\"", impl_name)));

	if (key == NULL)
	{
		sha256_start(&s, impl->compress, sha256_iv, 0);
		sha256_update(&s, data, len);
		sha256_final(&s, out);
	}
	else
	{
		uint32		inner[8];
		uint32		outer[8];

		hmac_key_states(impl->compress, key, key_len, inner, outer);
		if (len <= SHA256_BLOCK - 9)
		{
			uint8		blk[SHA256_BLOCK];

			memcpy(blk, data, len);
			pad_block(blk, len);
			impl->hmac_block(inner, outer, blk, out);
		}
		else
		{
			uint8		d[PG_SHA256_DIGEST_LENGTH];

			sha256_start(&s, impl->compress, inner, SHA256_BLOCK);
			sha256_update(&s, data, len);
			sha256_final(&s, d);
			hmac_outer(impl->compress, outer, d, out);
		}
	}
	return true;
}
