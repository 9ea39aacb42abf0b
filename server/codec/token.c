/* token.c — ids, secret tokens and their hashes (see token.h). SHA-256 is
 * written out here (FIPS 180-4) so the server needs no crypto library for
 * the one hash it uses. */
#include "token.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

static int random_bytes(void *buf, size_t len)
{
	unsigned char *p = buf;
	while (len) {
		ssize_t got = getrandom(p, len, 0);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += got;
		len -= (size_t)got;
	}
	return 0;
}

static const char b64url[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

void token_base64url(const void *data, size_t len, char *out)
{
	const unsigned char *in = data;
	size_t k = 0;
	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16;
		if (i + 1 < len)
			v |= (uint32_t)in[i + 1] << 8;
		if (i + 2 < len)
			v |= in[i + 2];
		out[k++] = b64url[(v >> 18) & 63];
		out[k++] = b64url[(v >> 12) & 63];
		if (i + 1 < len)
			out[k++] = b64url[(v >> 6) & 63];
		if (i + 2 < len)
			out[k++] = b64url[v & 63];
	}
	out[k] = '\0';
}

int token_base64url_decode(const char *s, size_t len, void *out,
			   size_t cap)
{
	unsigned char *o = out;
	size_t n = 0;
	uint32_t acc = 0;
	int bits = 0;
	if (len % 4 == 1)
		return -1;
	for (size_t i = 0; i < len; i++) {
		const char *p = s[i] ? memchr(b64url, s[i], 64) : NULL;
		if (p == NULL)
			return -1;
		acc = acc << 6 | (uint32_t)(p - b64url);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (n == cap)
				return -1;
			o[n++] = (unsigned char)(acc >> bits);
		}
	}
	/* the leftover bits of the last character must be zero (one
	 * spelling per byte string) */
	if (acc & ((1u << bits) - 1))
		return -1;
	return (int)n;
}

int token_new_id(char out[23])
{
	unsigned char b[16];
	if (random_bytes(b, sizeof b) < 0)
		return -1;
	token_base64url(b, sizeof b, out);
	return 0;
}

int token_new_secret(char out[36])
{
	unsigned char b[24];
	if (random_bytes(b, sizeof b) < 0)
		return -1;
	memcpy(out, "ct_", 3);
	token_base64url(b, sizeof b, out + 3);
	return 0;
}

int token_id_ok(const char *s)
{
	size_t len = strlen(s);
	if (len == 0 || len > 47)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!memchr(b64url, s[i], 64) || s[i] == '\0')
			return 0;
	return 1;
}

int token_hash_equal(const uint8_t a[TOKEN_HASH_LEN],
		     const uint8_t b[TOKEN_HASH_LEN])
{
	volatile uint8_t diff = 0;
	for (int i = 0; i < TOKEN_HASH_LEN; i++)
		diff |= (uint8_t)(a[i] ^ b[i]);
	return diff == 0;
}

/* ---------------------------------------------------------------- SHA-256 */

static const uint32_t K[64] = {
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
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

static void block(uint32_t h[8], const unsigned char *p)
{
	uint32_t w[64];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^
			      (w[i - 15] >> 3);
		uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^
			      (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5],
		 g = h[6], hh = h[7];
	for (int i = 0; i < 64; i++) {
		uint32_t S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
		uint32_t ch = (e & f) ^ (~e & g);
		uint32_t t1 = hh + S1 + ch + K[i] + w[i];
		uint32_t S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
		uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
		uint32_t t2 = S0 + maj;
		hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a,
		a = t1 + t2;
	}
	h[0] += a, h[1] += b, h[2] += c, h[3] += d;
	h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

void token_sha256_init(token_sha256_ctx *c)
{
	static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
				       0xa54ff53a, 0x510e527f, 0x9b05688c,
				       0x1f83d9ab, 0x5be0cd19};
	memcpy(c->h, h0, sizeof h0);
	c->len = 0;
	c->n = 0;
}

void token_sha256_update(token_sha256_ctx *c, const void *data, size_t len)
{
	const unsigned char *p = data;
	c->len += len;
	if (c->n) {
		size_t k = 64 - c->n < len ? 64 - c->n : len;
		memcpy(c->buf + c->n, p, k);
		c->n += k;
		p += k;
		len -= k;
		if (c->n < 64)
			return;
		block(c->h, c->buf);
		c->n = 0;
	}
	while (len >= 64) {
		block(c->h, p);
		p += 64;
		len -= 64;
	}
	memcpy(c->buf, p, len);
	c->n = len;
}

void token_sha256_final(token_sha256_ctx *c, uint8_t out[TOKEN_HASH_LEN])
{
	uint64_t bits = c->len * 8;
	unsigned char pad[72] = {0x80};
	/* 0x80, zeros up to 56 mod 64, then the length in bits */
	size_t padlen = (c->n < 56 ? 56 : 120) - c->n;
	for (int i = 0; i < 8; i++)
		pad[padlen + (size_t)i] = (unsigned char)(bits >> (56 - 8 * i));
	uint64_t keep = c->len;
	token_sha256_update(c, pad, padlen + 8);
	c->len = keep;
	for (int i = 0; i < 8; i++) {
		out[4 * i] = (uint8_t)(c->h[i] >> 24);
		out[4 * i + 1] = (uint8_t)(c->h[i] >> 16);
		out[4 * i + 2] = (uint8_t)(c->h[i] >> 8);
		out[4 * i + 3] = (uint8_t)c->h[i];
	}
}

void token_sha256(const void *data, size_t len, uint8_t out[TOKEN_HASH_LEN])
{
	token_sha256_ctx c;
	token_sha256_init(&c);
	token_sha256_update(&c, data, len);
	token_sha256_final(&c, out);
}

/* ------------------------------------------------------------ HMAC (2104) */

void token_hmac_sha256(const void *key, size_t keylen, const void *msg,
		       size_t len, uint8_t out[TOKEN_HASH_LEN])
{
	unsigned char k[64] = {0}, pad[64];
	if (keylen > 64)
		token_sha256(key, keylen, k);
	else
		memcpy(k, key, keylen);
	token_sha256_ctx c;
	uint8_t inner[TOKEN_HASH_LEN];
	for (int i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x36;
	token_sha256_init(&c);
	token_sha256_update(&c, pad, 64);
	token_sha256_update(&c, msg, len);
	token_sha256_final(&c, inner);
	for (int i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x5c;
	token_sha256_init(&c);
	token_sha256_update(&c, pad, 64);
	token_sha256_update(&c, inner, sizeof inner);
	token_sha256_final(&c, out);
}
