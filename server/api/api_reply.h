/* api_reply.h — the plain structs of the HTTP API (the server's settings
 * the handlers read, one request, one reply) and the functions that build
 * a reply (api_reply.c). Handlers and the HTTP layer share these; the
 * router is api.h. */
#ifndef CUBED_API_REPLY_H
#define CUBED_API_REPLY_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* Settings the handlers read; owned by the caller, read-only while serving
 * (but for draining, which the caller sets once when it starts to stop). */
struct sessions;
struct store;
struct metrics;
struct solver;
struct events;
struct watcher;
struct idem;
struct solve_pool;
struct jobs;
struct limits_key;
struct api_pending;
struct tickets;
struct web_root;
struct dataset_service;

struct api_config {
	uint64_t max_moves;   /* expanded moves per request */
	uint64_t max_work;    /* stickers moved per request, 0 = no limit */
	const char *openapi;  /* the contract text, NULL if it was not found */
	size_t openapi_len;
	struct sessions *sessions; /* NULL: the session routes answer 503 */
	struct store *store;
	struct metrics *metrics;   /* NULL: /metrics answers 503 */
	int max_session_size;      /* largest n of a session */
	struct solver *solver;     /* NULL: solving answers 503 */
	uint64_t max_solve_ms;     /* largest time budget of one solve */
	struct events *events;     /* NULL: no live event streams (503) */
	struct idem *idem;         /* NULL: Idempotency-Key is ignored */
	struct jobs *jobs;         /* NULL: optimal solves answer 503 */
	/* Where the other solves run (solve_pool.h): NULL, or a request
	 * without done, solves on the calling thread */
	struct solve_pool *pool;
	uint64_t max_job_ms;       /* longest time limit of one job */
	struct tickets *tickets;   /* stream tickets (ticket.h); NULL: none */
	/* The CORS preflight's Access-Control-Allow-Headers: NULL for the
	 * API's own (API_CORS_ALLOW_HEADERS) */
	const char *cors_allow_headers;
	/* The web page served at / (static.h); NULL: those routes answer
	 * 404 page_not_built */
	const struct web_root *web;
	/* GET /v1/dataset's streams, caps and counters; NULL: the dataset
	 * routes answer 503 */
	struct dataset_service *datasets;
	unsigned dataset_optimal_level; /* the optimal tables' level (meta) */
	/* Set (once, to 1) when the node is told to stop: /readyz answers
	 * 503 draining for the drain_s seconds the node goes on serving
	 * before it closes its listener (main.c) */
	_Atomic int draining;
	unsigned drain_s;
};

/* One request. Every pointer is borrowed for the duration of the call. */
struct api_request {
	const char *method;       /* "GET", "HEAD", "POST", "OPTIONS", … */
	const char *path;         /* decoded path, no query: "/v1/apply" */
	const char *query;        /* raw query after '?', NULL if none */
	const char *body;         /* NULL or body_len bytes, not NUL-terminated */
	size_t body_len;
	const char *content_type; /* Content-Type header, NULL if absent */
	/* Any other request header by name (case-insensitive), NULL if absent;
	 * header itself may be NULL (no other headers available). */
	const char *(*header)(void *cls, const char *name);
	void *header_cls;
	/* Set by a caller that can wait without blocking a thread: a session
	 * write then returns at once with rp->pending, and done(done_ctx) is
	 * called (from another thread) when api_finish can build its reply.
	 * NULL: every request is answered before api_handle returns. */
	void (*done)(void *ctx);
	void *done_ctx;
	/* With done: has the client gone away (closed its connection)? A
	 * solve waiting for a worker or searching stops then; NULL: never
	 * asked. Callable from any thread until done is called. */
	int (*gone)(void *ctx);
	void *gone_ctx;
	/* The client's address as the rate limiter keys it (per-client caps
	 * on jobs); NULL: all such callers count as one client. */
	const struct limits_key *client;
};

#define API_MAX_HEADERS 8
#define API_HEADER_VALUE_MAX 256

struct api_header {
	const char *name;                  /* static string */
	char value[API_HEADER_VALUE_MAX];
};

/* A body made while it is sent (a dataset's .npy file): its length is
 * known up front (Content-Length) and the HTTP layer pulls it in blocks
 * as the client takes them, so a slow reader holds back the making and a
 * client that hangs up stops it. read fills buf with up to max bytes from
 * byte pos (< length; blocks come in order) and returns how many (> 0), or
 * -1 to end the connection; release runs once, when the body is done
 * with, sent or not. Made by a handler, owned by the reply. */
struct api_body_source {
	uint64_t length;
	size_t block; /* the most read is asked for at once */
	long (*read)(void *ctx, uint64_t pos, char *buf, size_t max);
	void (*release)(void *ctx);
	void *ctx;
};

/* One reply. The body is json (owned), raw (borrowed, lives as long as the
 * api_config), source (a body made while it is sent), or neither (no
 * body, e.g. 204). */
struct api_reply {
	int status;
	const char *content_type; /* static string, NULL when there is no body */
	json_t *json;             /* owned: released by api_reply_free() */
	const char *raw;
	size_t raw_len;
	char *owned;      /* malloc'd text raw points into, freed with rp */
	/* A deterministic reply (the same request always gets the same
	 * bytes): the HTTP layer gives it a strong ETag from the body,
	 * answers If-None-Match with 304 and lets browsers and proxies keep
	 * it this many seconds (Cache-Control: public, max-age). 0: not. */
	unsigned cache_max_age;
	int nheaders;
	struct api_header headers[API_MAX_HEADERS];
	const char *route; /* the matched route pattern (static), for metrics */
	/* A live event stream (text/event-stream) instead of a body: the HTTP
	 * layer takes it over (and sets this NULL); else api_reply_free lets
	 * it go with stream_close, set by whoever opened it. */
	struct watcher *stream;
	void (*stream_close)(struct watcher *w);
	/* Not answered yet (only with rq->done): call api_finish once done
	 * was called, or api_pending_free if the answer is not wanted. */
	struct api_pending *pending;
	/* A body made while it is sent (malloc'd; the HTTP layer takes it
	 * over and sets this NULL, else api_reply_free releases it). */
	struct api_body_source *source;
	/* About how many bytes the request stored, for --storage-quota: the
	 * router's share for the request's own row (a route that stores:
	 * its body and 256), the handler's for the state (what the session
	 * layer says it stored); 0 for a request that stored nothing, a
	 * replayed answer included. */
	uint64_t stored;
	/* Idempotency-Key: 0, or the change's result is kept by the store
	 * (IDEM_STORED: not kept in memory), or this reply is that result
	 * read back (IDEM_STORED_REPLAY: Idempotent-Replayed) */
	int idem;
};
enum { IDEM_STORED = 1, IDEM_STORED_REPLAY = 2 };

void api_reply_init(struct api_reply *rp);
/* Release the body; rp can be initialised again afterwards. */
void api_reply_free(struct api_reply *rp);
/* Add a response header (value printf-style, truncated to fit). Returns 0,
 * or -1 if the header table is full. */
int api_reply_header(struct api_reply *rp, const char *name, const char *fmt,
		     ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
/* Make rp a 200 (or other status) JSON reply owning body (stolen, may be
 * NULL: then rp becomes a 500 problem). */
void api_reply_json(struct api_reply *rp, int status, json_t *body);
/* The same with the body already JSON text (malloc'd, taken over; NULL
 * makes rp a 500 problem). */
void api_reply_json_text(struct api_reply *rp, int status, char *text,
			 size_t len);

/* Forget a pending request whose done was called. */
void api_pending_free(struct api_pending *p);

#endif
