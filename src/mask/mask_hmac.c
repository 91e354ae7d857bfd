/*-------------------------------------------------------------------------
 *
 * mask_hmac.c
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
 * SHA-256 is FIPS 180-4's, written here for that purpose only; on a build
 * with assertions every HMAC is also computed with common/hmac.h and the
 * two compared.
 *
 *-------------------------------------------------------------------------
 */
#include "exwiw.h"
#include "mask/mask.h"

#include "common/hmac.h"
#include "utils/memutils.h"

#define SHA256_BLOCK 64

/* A SHA-256 computation in progress. */
typedef struct Sha256
{
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
static uint32 inner_state[8];
static uint32 outer_state[8];

#define ROTR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

/*
 * sha256_compress
 *		Process one 64-byte block into state h.
 */
static void
sha256_compress(uint32 h[8], const uint8 *block)
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

/*
 * sha256_start
 *		Start s from state h, after `done` bytes already hashed into it (0
 *		for the initial value, a block for a keyed state).
 */
static void
sha256_start(Sha256 *s, const uint32 h[8], uint64 done)
{
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
		sha256_compress(s->h, s->buf);
		s->buflen = 0;
	}
	while (len >= SHA256_BLOCK)
	{
		sha256_compress(s->h, data);
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
		sha256_compress(s->h, s->buf);
		s->buflen = 0;
	}
	memset(s->buf + s->buflen, 0, SHA256_BLOCK - 8 - s->buflen);
	for (i = 0; i < 8; i++)
		s->buf[SHA256_BLOCK - 1 - i] = (uint8) (bits >> (8 * i));
	sha256_compress(s->h, s->buf);
	for (i = 0; i < 8; i++)
	{
		out[4 * i] = (uint8) (s->h[i] >> 24);
		out[4 * i + 1] = (uint8) (s->h[i] >> 16);
		out[4 * i + 2] = (uint8) (s->h[i] >> 8);
		out[4 * i + 3] = (uint8) s->h[i];
	}
}

/*
 * key_states
 *		The states after the blocks K ^ ipad and K ^ opad of the current
 *		secret (mask_require_secret has passed), computed once per secret.
 */
static void
key_states(void)
{
	uint8		k[SHA256_BLOCK];
	uint8		pad[SHA256_BLOCK];
	size_t		len = strlen(exwiw_mask_secret);
	int			i;

	if (keyed_secret != NULL && strcmp(keyed_secret, exwiw_mask_secret) == 0)
		return;
	memset(k, 0, sizeof(k));
	if (len > SHA256_BLOCK)
	{
		Sha256		s;

		sha256_start(&s, sha256_iv, 0);
		sha256_update(&s, (const uint8 *) exwiw_mask_secret, len);
		sha256_final(&s, k);
	}
	else
		memcpy(k, exwiw_mask_secret, len);
	for (i = 0; i < SHA256_BLOCK; i++)
		pad[i] = k[i] ^ 0x36;
	memcpy(inner_state, sha256_iv, sizeof(inner_state));
	sha256_compress(inner_state, pad);
	for (i = 0; i < SHA256_BLOCK; i++)
		pad[i] = k[i] ^ 0x5c;
	memcpy(outer_state, sha256_iv, sizeof(outer_state));
	sha256_compress(outer_state, pad);
	explicit_bzero(k, sizeof(k));
	explicit_bzero(pad, sizeof(pad));

	if (keyed_secret != NULL)
	{
		explicit_bzero(keyed_secret, strlen(keyed_secret));
		pfree(keyed_secret);
	}
	keyed_secret = MemoryContextStrdup(TopMemoryContext, exwiw_mask_secret);
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
	uint8		inner[PG_SHA256_DIGEST_LENGTH];
	Sha256		s;

	mask_require_secret();
	key_states();
	sha256_start(&s, inner_state, SHA256_BLOCK);
	sha256_update(&s, (const uint8 *) tag, strlen(tag));
	sha256_update(&s, &nul, 1);
	sha256_update(&s, (const uint8 *) a, alen);
	sha256_update(&s, &nul, 1);
	sha256_update(&s, (const uint8 *) b, blen);
	sha256_final(&s, inner);
	sha256_start(&s, outer_state, SHA256_BLOCK);
	sha256_update(&s, inner, sizeof(inner));
	sha256_final(&s, out);
#ifdef USE_ASSERT_CHECKING
	check_with_server(tag, a, alen, b, blen, out);
#endif
}
