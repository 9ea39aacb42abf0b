/* ticket.c — stream tickets, HMAC-signed and stateless (see ticket.h). */
#include "ticket.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "token.h"

struct tickets {
	unsigned char key[TICKET_KEY_LEN];
	_Atomic int have_key;       /* key is set (read without the lock) */
	unsigned char candidate[TICKET_KEY_LEN];
	tickets_key_fn *key_fn;
	void *ctx;
	pthread_mutex_t lock;       /* one key_fn call at a time */
	int64_t ttl_ms;
};

/* 1 once the key is known: asked of key_fn until it answers. */
static int have_key(struct tickets *t)
{
	if (atomic_load_explicit(&t->have_key, memory_order_acquire))
		return 1;
	pthread_mutex_lock(&t->lock);
	if (!atomic_load_explicit(&t->have_key, memory_order_relaxed) &&
	    t->key_fn(t->ctx, t->candidate, t->key) == 0)
		atomic_store_explicit(&t->have_key, 1, memory_order_release);
	pthread_mutex_unlock(&t->lock);
	return atomic_load_explicit(&t->have_key, memory_order_acquire);
}

struct tickets *tickets_new(int64_t ttl_ms, tickets_key_fn *key_fn,
			    void *ctx)
{
	struct tickets *t = calloc(1, sizeof *t);
	if (t == NULL)
		return NULL;
	if (getrandom(t->candidate, sizeof t->candidate, 0) !=
	    (ssize_t)sizeof t->candidate) {
		free(t);
		return NULL;
	}
	pthread_mutex_init(&t->lock, NULL);
	t->ttl_ms = ttl_ms;
	t->key_fn = key_fn;
	t->ctx = ctx;
	if (key_fn == NULL) {
		memcpy(t->key, t->candidate, sizeof t->key);
		atomic_store(&t->have_key, 1);
	} else {
		(void)have_key(t); /* now if the database answers */
	}
	return t;
}

void tickets_free(struct tickets *t)
{
	if (!t)
		return;
	memset(t->key, 0, sizeof t->key);
	memset(t->candidate, 0, sizeof t->candidate);
	pthread_mutex_destroy(&t->lock);
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

int tickets_mint(struct tickets *t, const char *id, int64_t now_ms,
		 char *out, int64_t *expires_ms)
{
	if (!have_key(t))
		return -1;
	int64_t exp = now_ms + t->ttl_ms;
	unsigned char raw[24];
	for (int i = 0; i < 8; i++)
		raw[i] = (unsigned char)((uint64_t)exp >> (56 - 8 * i));
	tag(t, id, raw, raw + 8);
	memcpy(out, "st_", 3);
	token_base64url(raw, sizeof raw, out + 3);
	*expires_ms = exp;
	return 0;
}

enum ticket_check tickets_check(struct tickets *t, const char *id,
				const char *s, int64_t now_ms)
{
	unsigned char raw[24], want[16];
	if (s != NULL && !have_key(t))
		return TICKET_NO_KEY;
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
