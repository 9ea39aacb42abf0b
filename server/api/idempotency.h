/* idempotency.h — Idempotency-Key for POSTs that change state: the first
 * answer to a key is kept (bounded in count and time, in memory) and a
 * retry with the same key and the same request gets that answer again
 * instead of applying the request twice.
 *
 * A key is scoped by the route, the path and the Authorization header,
 * so no one can read another client's answer with a guessed key. The
 * same key with a different request (method, path, query, body) is a
 * client error; a retry while the first request is still running is told
 * to wait. Records live in memory: a restart forgets them (the writes
 * themselves are durable). With idem_share, they are also kept in the
 * database (PostgreSQL: the idempotency table), so a retry sent to
 * another node gets the first answer, and one still running on another
 * node is told to wait. */
#ifndef CUBED_IDEMPOTENCY_H
#define CUBED_IDEMPOTENCY_H

#include <stddef.h>
#include <stdint.h>

#include "api_reply.h"

struct idem;

/* max: records kept (oldest dropped first); ttl_ms: how long. */
struct idem *idem_new(size_t max, int64_t ttl_ms);
void idem_free(struct idem *im);

struct store;
/* Keep the records in st too, when its engine shares them between nodes
 * (store_idem_claim); otherwise memory only. */
void idem_share(struct idem *im, struct store *st);

enum idem_result {
	IDEM_NEW,       /* run the request, then idem_record or idem_release */
	IDEM_REPLAY,    /* rp holds the first answer */
	IDEM_MISMATCH,  /* the key was used for another request */
	IDEM_IN_FLIGHT, /* the first request with this key is running */
	IDEM_NOMEM,
};

/* scope: 32 bytes naming (route, path, Authorization, key); print: 32
 * bytes naming the request. */
enum idem_result idem_begin(struct idem *im, const uint8_t scope[32],
			    const uint8_t print[32], struct api_reply *rp);
/* Keep rp as the answer to the key begun with scope. */
void idem_record(struct idem *im, const uint8_t scope[32],
		 const struct api_reply *rp);
/* Forget the key (the request failed in a way a retry may fix). */
void idem_release(struct idem *im, const uint8_t scope[32]);

size_t idem_count(struct idem *im);

#endif
