/* token.h — session ids and secret tokens: random bytes from the OS
 * CSPRNG (getrandom), written base64url; tokens are kept only as SHA-256
 * hashes and compared in constant time. */
#ifndef CUBED_TOKEN_H
#define CUBED_TOKEN_H

#include <stddef.h>
#include <stdint.h>

#define TOKEN_HASH_LEN 32

/* A session id: 16 random bytes (128 bits) as 22 base64url characters.
 * out must hold 23 bytes. Returns 0, or -1 if the OS had no randomness. */
int token_new_id(char out[23]);

/* A secret token: 24 random bytes (192 bits) as 32 base64url characters
 * with a "ct_" prefix so it is recognisable in a leak scan. out must hold
 * 36 bytes. */
int token_new_secret(char out[36]);

/* SHA-256 of data (FIPS 180-4), at once or in pieces. */
void token_sha256(const void *data, size_t len, uint8_t out[TOKEN_HASH_LEN]);
typedef struct {
	uint32_t h[8];
	uint64_t len;
	unsigned char buf[64];
	size_t n;
} token_sha256_ctx;
void token_sha256_init(token_sha256_ctx *c);
void token_sha256_update(token_sha256_ctx *c, const void *data, size_t len);
void token_sha256_final(token_sha256_ctx *c, uint8_t out[TOKEN_HASH_LEN]);

/* HMAC-SHA256 (RFC 2104) of msg under key. */
void token_hmac_sha256(const void *key, size_t keylen, const void *msg,
		       size_t len, uint8_t out[TOKEN_HASH_LEN]);

/* base64url without padding (RFC 4648 section 5): out gets
 * ceil(4·len/3) characters and a NUL. */
void token_base64url(const void *data, size_t len, char *out);
/* The bytes of len characters of unpadded base64url into out (cap bytes):
 * the count, or -1 if s is not base64url or does not fit. */
int token_base64url_decode(const char *s, size_t len, void *out, size_t cap);

/* 1 if the hashes are equal, compared in time independent of where they
 * differ. */
int token_hash_equal(const uint8_t a[TOKEN_HASH_LEN],
		     const uint8_t b[TOKEN_HASH_LEN]);

/* 1 if s is a plausible id: 1..47 characters of base64url. Ids are checked
 * before any lookup so odd text never reaches the database or the logs. */
int token_id_ok(const char *s);

#endif
