/* ticket.c — stream tickets, HMAC-signed and stateless (see ticket.h). */
#include "ticket.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "token.h"

struct tickets {
	unsigned char key[32];
	int64_t ttl_ms;
};

struct tickets *tickets_new(int64_t ttl_ms)
{
	struct tickets *t = calloc(1, sizeof *t);
	if (t == NULL)
		return NULL;
	if (getrandom(t->key, sizeof t->key, 0) != (ssize_t)sizeof t->key) {
		free(t);
		return NULL;
	}
	t->ttl_ms = ttl_ms;
	return t;
}

void tickets_free(struct tickets *t)
{
	if (t)
		memset(t->key, 0, sizeof t->key);
	free(t);
}

int64_t tickets_ttl_ms(const struct tickets *t)
{
	return t->ttl_ms;
}

/* The 16-byte tag of (id, expiry): a domain string first, so the key
 * signs nothing else by accident. */
static void tag(const struct tickets *t, const char *id,
		const unsigned char exp[8], unsigned char out[16])
{
	unsigned char msg[16 + 64 + 8];
	static const char domain[] = "cubed stream v1"; /* 16 with its NUL */
	size_t idlen = strlen(id);
	if (idlen > 64)
		idlen = 64; /* ids are at most 47 characters (token.h) */
	memcpy(msg, domain, 16);
	memcpy(msg + 16, exp, 8);
	memcpy(msg + 24, id, idlen);
	uint8_t mac[TOKEN_HASH_LEN];
	token_hmac_sha256(t->key, sizeof t->key, msg, 24 + idlen, mac);
	memcpy(out, mac, 16);
}

void tickets_mint(const struct tickets *t, const char *id, int64_t now_ms,
		  char *out, int64_t *expires_ms)
{
	int64_t exp = now_ms + t->ttl_ms;
	unsigned char raw[24];
	for (int i = 0; i < 8; i++)
		raw[i] = (unsigned char)((uint64_t)exp >> (56 - 8 * i));
	tag(t, id, raw, raw + 8);
	memcpy(out, "st_", 3);
	token_base64url(raw, sizeof raw, out + 3);
	*expires_ms = exp;
}

enum ticket_check tickets_check(const struct tickets *t, const char *id,
				const char *s, int64_t now_ms)
{
	unsigned char raw[24], want[16];
	if (s == NULL || strlen(s) != TICKET_LEN || strncmp(s, "st_", 3) != 0 ||
	    token_base64url_decode(s + 3, TICKET_LEN - 3, raw, sizeof raw) !=
		    (int)sizeof raw)
		return TICKET_BAD;
	tag(t, id, raw, want);
	/* constant time, like token hashes */
	volatile unsigned char diff = 0;
	for (int i = 0; i < 16; i++)
		diff |= (unsigned char)(want[i] ^ raw[8 + i]);
	if (diff)
		return TICKET_BAD;
	uint64_t exp = 0;
	for (int i = 0; i < 8; i++)
		exp = exp << 8 | raw[i];
	return (int64_t)exp > now_ms ? TICKET_OK : TICKET_EXPIRED;
}
