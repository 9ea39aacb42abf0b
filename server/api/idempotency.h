/* idempotency.h — Idempotency-Key for POSTs that change state: a retry
 * with the same key and the same request gets the first answer again
 * instead of applying the request twice.
 *
 * A key belongs to its requester: the scope (api.c) is the route, the
 * path, the bearer token (or, without one, the client's address, the
 * forwarded one behind --trusted-proxy) and the key, so no one can be
 * replayed another client's answer (a create's owner token) by sending
 * the same key. The same key with a different request (method, path,
 * query, body) is a client error.
 *
 * Where answers live: a change's result is kept by the store, in the
 * change's own transaction (sessions.h: struct ses_idem), and replayed
 * from there on every node and after a restart; this table then only
 * marks the request as running. Answers that are not a committed change
 * (a refusal, a job's 202) are kept here, in memory, bounded in bytes in
 * all and per client address, for the TTL. A retry while the first
 * request is still running on this node is told to wait (409), for at
 * most the lease: after it, the retry runs (the store's claim still makes
 * the change happen once). */
#ifndef CUBED_IDEMPOTENCY_H
#define CUBED_IDEMPOTENCY_H

#include <stddef.h>
#include <stdint.h>

#include "api_reply.h"

struct idem;
struct limits_key;

struct idem_config {
	size_t max;           /* records kept in all (0: 1) */
	int64_t ttl_ms;       /* how long an answer is kept */
	int64_t lease_ms;     /* how long a running request holds its key
			       * against retries here (0: the TTL) */
	size_t max_bytes;     /* bytes of records in all (0: no limit) */
	size_t client_bytes;  /* bytes of records per client address (0: no
			       * limit) */
};

struct idem *idem_new(const struct idem_config *cfg);
void idem_free(struct idem *im);

enum idem_result {
	IDEM_NEW,       /* run the request, then idem_record or idem_release */
	IDEM_REPLAY,    /* rp holds the first answer */
	IDEM_MISMATCH,  /* the key was used for another request */
	IDEM_IN_FLIGHT, /* the first request with this key is running */
	IDEM_NOMEM,
	IDEM_BUDGET,    /* the client's share is all running requests */
};

/* scope: 32 bytes naming (route, path, requester, key); print: 32 bytes
 * naming the request; client: whose budget the record counts against
 * (NULL: one shared anonymous client). */
enum idem_result idem_begin(struct idem *im, const uint8_t scope[32],
			    const uint8_t print[32],
			    const struct limits_key *client,
			    struct api_reply *rp);
/* Keep rp as the answer to the key begun with scope (within the budgets:
 * the client's own oldest answers go first, then the heaviest client's;
 * an answer bigger than a client's whole budget is not kept). */
void idem_record(struct idem *im, const uint8_t scope[32],
		 const struct api_reply *rp);
/* Forget the key here: the request failed in a way a retry may fix, or
 * its answer is kept by the store. */
void idem_release(struct idem *im, const uint8_t scope[32]);

/* Records and their bytes now; the records dropped for a budget so far. */
size_t idem_count(struct idem *im);
size_t idem_bytes(struct idem *im);
/* The per-client byte budget (0: none). */
size_t idem_client_budget(const struct idem *im);
uint64_t idem_evicted(struct idem *im);

#endif
