/* guard.h — what the HTTP layer checks before a request reaches the API,
 * and the headers it adds to every reply for the browser's safety:
 *
 *   - connections: --max-connections in total, --max-connections-per-ip
 *     per client address, and each address's share of the total (the
 *     total split between the addresses connected, at least
 *     GUARD_MIN_SHARE): a request on a connection past one is answered
 *     503 `unavailable` code `too_many_connections` with Retry-After, and
 *     the connection is closed (one that sends nothing is cut after
 *     GUARD_REFUSED_MS). When the total is reached, an address within its
 *     share still gets in: the newest waiting connection (idle, or still
 *     sending its request) of the heaviest address above its share is
 *     closed to make room, so a few addresses cannot hold the cap;
 *   - the request head (request line and headers) past --max-header bytes:
 *     431 `headers_too_large`;
 *   - a header name with white space (before the colon), a value with
 *     NUL, CR or LF, or an HTTP/1.1 request without exactly one Host: 400
 *     `malformed_request` code `bad_header` or `bad_host`, and the
 *     connection is closed (RFC 9112 sections 3.2 and 5.1);
 *   - more than GUARD_MAX_PARAMS query parameters: 431 code
 *     `too_many_parameters`;
 *   - a body whose length is ambiguous (Content-Length given twice, or
 *     with Transfer-Encoding): the shape of request smuggling, which MHD
 *     would read one way and a proxy in front of it maybe another. 400
 *     `malformed_request` code `ambiguous_length`, and the connection is
 *     closed (RFC 9112 section 6.3);
 *   - requests per second per client address past --rate-limit (with
 *     --rate-burst at once): 429 `too_many_requests` with Retry-After. The
 *     liveness, readiness and metrics routes are not counted, so a monitor
 *     can still see a server that is being flooded;
 *   - a connection that has not sent a whole request (head and body)
 *     within --request-timeout of opening or of its previous reply: its
 *     socket is shut down (libmicrohttpd's own timeout is an idle one);
 *   - sessions created (POST /v1/sessions, a fork) per client address
 *     past --session-quota per --quota-window: 429 `quota_exceeded` code
 *     `session_quota` with Retry-After;
 *   - bytes stored for a client address (sessions created, writes to
 *     them) past --storage-quota per --quota-window: its next storing
 *     POST under /v1/sessions gets 429 `quota_exceeded` code
 *     `storage_quota` with Retry-After (the time until the window frees
 *     room again);
 *   - replies built but not yet sent (held until the client reads them)
 *     past --reply-memory bytes in all: a read whose reply would pass it
 *     is answered 503 `unavailable` code `reply_memory` with Retry-After
 *     instead (guard_reply_take below);
 *   - every reply: X-Content-Type-Options: nosniff, a Content-Security-
 *     Policy that allows nothing, Referrer-Policy: no-referrer, and
 *     Cache-Control (no-store on errors, no-cache otherwise) unless the
 *     handler chose one.
 *
 * http.c calls these at fixed points; all the policy is here. */
#ifndef CUBED_GUARD_H
#define CUBED_GUARD_H

#include <stddef.h>

#include <microhttpd.h>

#include "api_reply.h"
#include "config.h"

enum guard_refusal {
	GUARD_OK = 0,
	GUARD_CONN_TOTAL,  /* past --max-connections */
	GUARD_CONN_PER_IP, /* past --max-connections-per-ip */
	GUARD_CONN_SHARE,  /* past its address's share of --max-connections */
	GUARD_RATE,        /* past --rate-limit */
	GUARD_HEADERS,     /* past --max-header */
	GUARD_FRAMING,     /* ambiguous body length */
	GUARD_QUOTA,       /* past --session-quota */
	GUARD_REPLY_MEMORY, /* past --reply-memory (guard_reply_take) */
	GUARD_STORED_QUOTA, /* past --storage-quota (guard_stored) */
	GUARD_PARAMS,      /* more than GUARD_MAX_PARAMS query parameters */
	GUARD_BAD_HEADER,  /* white space in a header name, NUL/CR/LF in a value */
	GUARD_HOST,        /* HTTP/1.1 without one Host header */
};

/* The least share of the connection limit an address has, however many
 * addresses are connected (a browser opens 6 per host). */
#define GUARD_MIN_SHARE 16
/* A connection refused (past a limit or its address's share) that sends
 * no request is closed after this long: refused connections hold no slot
 * another client needs. */
#define GUARD_REFUSED_MS 1000

/* Query parameters a request may have: no route takes more than a few,
 * and libmicrohttpd 0.9.75 would spend its connection's memory on each
 * (http.c keeps it from parsing the query at all). */
#define GUARD_MAX_PARAMS 64

struct guard;

/* The guard for cfg (which must outlive it). Raises the open-file limit
 * (each connection is a descriptor) and warns on stderr if it is still
 * below the connection limit. NULL if memory ran out. */
struct guard *guard_new(const struct config *cfg);
void guard_free(struct guard *g);

/* The connection limits to give MHD (MHD_OPTION_CONNECTION_LIMIT and
 * MHD_OPTION_PER_IP_CONNECTION_LIMIT): above the configured ones, so that
 * the guard answers extra connections with a 503 instead of MHD closing
 * them without a word, yet bounded, so idle extra connections that never
 * send a request cannot pile up. */
unsigned guard_mhd_connection_limit(const struct config *cfg);
unsigned guard_mhd_per_ip_limit(const struct config *cfg);

/* MHD_OPTION_CONNECTION_MEMORY_LIMIT: each connection's buffer, which
 * holds the request head. Twice --max-header and more, so that a head past
 * --max-header fits and gets the guard's 431 problem; only a head past
 * this (at least 32 KiB) gets MHD's own bare 431 (or 414 for a long URI). */
size_t guard_mhd_memory_limit(const struct config *cfg);

/* MHD_OPTION_NOTIFY_CONNECTION callback (cls: the guard): counts
 * connections as they open and close. */
void guard_on_connection(void *cls, struct MHD_Connection *con,
			 void **socket_context,
			 enum MHD_ConnectionNotificationCode code);
/* Client connections open now (opened and not yet closed, as
 * guard_on_connection heard of them): /metrics' cubed_http_connections. */
uint64_t guard_connections(const struct guard *g);

/* The request deadline (--request-timeout; guard.c): a connection must
 * deliver a whole request (head and body) within it of opening or of its
 * previous reply, or its socket is shut down. http.c says when a request
 * is complete (answering: from then on the time is the reply's) and when
 * a reply was sent (done: the next request's time starts). */
void guard_request_answering(struct MHD_Connection *con);
void guard_request_done(struct MHD_Connection *con, struct guard *g);
/* A request's line has arrived (MHD's URI callback): its connection is no
 * longer idle. */
void guard_request_begin(struct MHD_Connection *con, struct guard *g);
/* Connections open now that are not idle between requests: new ones
 * whose first request has not begun, and those with a request arriving
 * or being answered. A stop waits for these (http_drain). */
uint64_t guard_busy(const struct guard *g);
/* Connections opened so far (as guard_on_connection heard of them). */
uint64_t guard_started(const struct guard *g);
/* Connections cut off at the deadline so far. */
uint64_t guard_reaped(const struct guard *g);

/* At the first access-handler call of a request: may it go ahead?
 * version is the request line's ("HTTP/1.1"), uri_len the length of the
 * raw request URI (query included), nparams the query's parameters. On a
 * refusal, *retry_after is the Retry-After seconds (0: none). */
enum guard_refusal guard_check(struct guard *g, struct MHD_Connection *con,
			       const char *method, const char *url,
			       const char *version, size_t uri_len,
			       size_t nparams, unsigned *retry_after);

/* Make rp the problem reply of a refusal. */
void guard_refusal_reply(const struct guard *g, enum guard_refusal r,
			 unsigned retry_after, struct api_reply *rp);

/* A request was done and stored about bytes (api_reply.stored): count
 * them against its client's --storage-quota. */
void guard_stored(struct guard *g, struct MHD_Connection *con,
		  uint64_t bytes);

/* The reply memory budget (--reply-memory). http.c charges every reply
 * body it hands libmicrohttpd when it creates the response, and gives the
 * bytes back when the request completes (the reply was sent, or its
 * client went away). A reply below GUARD_REPLY_SMALL bytes always goes
 * (those are bounded by the connection limits: /healthz and every problem
 * reply are small); so does one that is alone, whatever its size, so that
 * no reply is refused for good. Past the budget, a refusable reply (a
 * read: a write that was done must be answered) is refused: 0, and
 * nothing is charged; else 1, and bytes are charged. */
#define GUARD_REPLY_SMALL 16384
int guard_reply_take(struct guard *g, uint64_t bytes, int refusable);
void guard_reply_give(struct guard *g, uint64_t bytes);

/* What fairness between addresses did so far (/metrics). */
struct guard_fairness {
	uint64_t evicted;       /* connections closed to make room for
				 * an address within its share */
	uint64_t share_refused; /* connections past their address's share */
	uint64_t addresses;     /* addresses with connections open now */
};
void guard_fairness(const struct guard *g, struct guard_fairness *out);

/* Add the security headers (and a default Cache-Control) to resp, which
 * answers rp. */
void guard_security_headers(struct MHD_Response *resp,
			    const struct api_reply *rp);

#endif
