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

/* SHA-256 of data. */
void token_sha256(const void *data, size_t len, uint8_t out[TOKEN_HASH_LEN]);

/* 1 if the hashes are equal, compared in time independent of where they
 * differ. */
int token_hash_equal(const uint8_t a[TOKEN_HASH_LEN],
		     const uint8_t b[TOKEN_HASH_LEN]);

/* 1 if s is a plausible id: 1..47 characters of base64url. Ids are checked
 * before any lookup so odd text never reaches the database or the logs. */
int token_id_ok(const char *s);

#endif
