/* http.c — libmicrohttpd glue: turns MHD's access-handler calls into one
 * api_request per request, and the api_reply into an MHD_Response through
 * the reply path every reply takes (reply_body below): the request id in
 * problem bodies, a strong ETag and 304s for deterministic replies, content
 * coding (compress.h), then the headers every response carries (request
 * id, CORS, Vary, security); and logs one line per request when it ends.
 *
 * MHD calls the access handler several times per request. The first call
 * only sets up the per-request context (answering there makes 0.9.75 close
 * the connection, server/http/README.md); calls with upload data accumulate the body
 * under the --max-body cap; the last call (no upload data) answers. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "compress.h"
#include "events.h"
#include "client_limits.h"
#include "guard.h"
#include "http.h"
#include "jsonout.h"
#include "log.h"
#include "metrics.h"
#include "problem.h"
#include "reqid.h"
#include "token.h"

/* Deterministic bodies that live as long as the server (the contract):
 * their ETag is worked out once. */
#define ETAG_MEMO 16

struct etag_memo {
	const char *src;
	size_t len;
	char tag[40];
};

struct http_server {
	struct MHD_Daemon *daemon;
	const struct config *cfg;
	const struct api_config *api;
	struct guard *guard; /* limits and security headers (guard.h) */
	unsigned port;
	struct compress_config cc;
	struct compress_cache *zcache; /* compressed long-lived bodies */
	_Atomic int zstreams;          /* compressed streams being sent */
	_Atomic int active;            /* requests being answered */
	/* draining or quiesced: replies close their connections */
	_Atomic int stopping;
	int listen_fd; /* after http_quiesce: closed by http_stop, else -1 */
	/* http_quiesce's queued connections given to MHD, and how many
	 * connections the guard had heard of before: MHD's threads take a
	 * connection added from outside later, and until they do the guard
	 * does not count it (http_drain) */
	int handed;
	uint64_t started0;
	pthread_mutex_t memo_lock;
	int nmemo;
	struct etag_memo memo[ETAG_MEMO];
};

/* Past this much discarded body a too-large upload is cut off without an
 * answer: reading it to the end would let one client keep a thread busy. */
#define DISCARD_MAX ((uint64_t)64 << 20)

/* One request's state, from the URI callback to MHD's completion notice. */
struct request {
	struct timespec t0;
	int started;        /* the access handler has seen this request */
	int answering;      /* all of it arrived: counted in srv->active */
	int too_large;      /* body went past --max-body: answer 413 */
	enum guard_refusal refused; /* answer the guard's refusal */
	unsigned retry_after;
	size_t uri_len;     /* raw request URI, query included */
	size_t nparams;     /* parameters in its query */
	char *query;        /* raw query string (after '?'), or NULL */
	char *body;
	size_t len, cap;
	uint64_t discarded; /* bytes dropped since the cap was passed */
	/* a session write waiting for the writer (api.h: rq->done): the
	 * connection is suspended until it is done */
	struct api_pending *pending;
	const char *route;
	struct MHD_Connection *con;
	pthread_mutex_t wlock; /* guards wdone and suspended */
	int wdone;             /* the writer is done with the write */
	int suspended;         /* the connection waits for it */
	int fd;                /* the connection's socket, for client_gone */
	/* for the log line, written when MHD is done with the request */
	char rid[REQID_MAX + 1]; /* X-Request-Id, the client's or ours */
	char trace[33];          /* traceparent's trace id, or "" */
	char method[16];
	char *path;              /* the decoded path, no query */
	int status;              /* 0 until a reply is queued */
	const char *log_route;
	const char *encoding;    /* content coding sent, NULL: identity */
	uint64_t bytes;          /* body bytes handed to MHD */
	int head;                /* a HEAD request: no body is sent */
	uint64_t held;           /* reply bytes charged (guard_reply_take) */
	/* If-None-Match and If-Match as the handlers see them: without the
	 * coding suffixes of our entity tags (compress.h), or NULL */
	char *inm, *im;
};

/* The writer finished a pending write (writer thread): resume the
 * connection if the access handler suspended it. If it has not yet, it
 * sees wdone and answers at once instead: a connection is never resumed
 * from inside the access call that suspended it (libmicrohttpd 0.9.75
 * then left it suspended for good, in a measurement here). */
static void write_done(void *ctx)
{
	struct request *rq = ctx;
	pthread_mutex_lock(&rq->wlock);
	rq->wdone = 1;
	struct MHD_Connection *con = rq->suspended ? rq->con : NULL;
	rq->suspended = 0;
	pthread_mutex_unlock(&rq->wlock);
	/* not under the lock: once resumed, the request may complete and
	 * free rq (and its lock) at any moment */
	if (con)
		MHD_resume_connection(con);
}

/* Has the client closed the connection (api.h: rq->gone)? Asked by a
 * solve on a pool worker while the connection is suspended, when
 * libmicrohttpd does not watch the socket: a peek that reads the end of
 * the stream, or an error such as a reset, says so. The socket stays
 * open until the request completes, which waits for the solve. */
static int client_gone(void *ctx)
{
	const struct request *rq = ctx;
	char b;
	if (rq->fd < 0)
		return 0;
	ssize_t n = recv(rq->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
	return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
			  errno != EINTR);
}

/* MHD strips the query from the URL it hands the access handler; this
 * callback sees the raw URI first, so it creates the request context. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *con)
{
	struct http_server *srv = cls;
	/* a stop waits for this request from now (http_drain) */
	guard_request_begin(con, srv->guard);
	struct request *rq = calloc(1, sizeof *rq);
	if (rq == NULL)
		return NULL;
	clock_gettime(CLOCK_MONOTONIC, &rq->t0);
	pthread_mutex_init(&rq->wlock, NULL);
	rq->uri_len = uri ? strlen(uri) : 0;
	const char *q = uri ? strchr(uri, '?') : NULL;
	if (q) {
		rq->query = strdup(q + 1);
		rq->nparams = q[1] != '\0';
		for (const char *a = q + 1; (a = strchr(a, '&')) != NULL; a++)
			rq->nparams++;
		/* The API reads the query from this copy. libmicrohttpd 0.9.75
		 * would next parse it into the connection's small memory pool
		 * (about 56 bytes a parameter), and a query of 1000 parameters
		 * exhausts the pool: it then closes the connection without a
		 * reply. The URI is in the connection's own writable buffer and
		 * the parse stops at a NUL, so the query it sees is empty. */
		if (q[1] != '\0')
			((char *)q)[1] = '\0';
	}
	/* for the log line of a request MHD may yet refuse itself; the
	 * access handler puts the decoded path here */
	if (uri)
		rq->path = strndup(uri, q ? (size_t)(q - uri) : strlen(uri));
	return rq;
}

/* Client address as text for the log. */
static void client_addr(struct MHD_Connection *con, char *out, size_t cap)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(con, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	snprintf(out, cap, "-");
	if (ci == NULL || ci->client_addr == NULL)
		return;
	const struct sockaddr *sa = ci->client_addr;
	if (sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr,
			  out, (socklen_t)cap);
	else if (sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6,
			  &((const struct sockaddr_in6 *)sa)->sin6_addr, out,
			  (socklen_t)cap);
}

/* The request's log line, once MHD is done with it: the duration covers
 * sending, and a streamed body's bytes are all counted. A request that
 * never reached the access handler was answered by libmicrohttpd itself
 * (a broken request line or head): its status is not known here. */
static void log_done(struct MHD_Connection *con, const struct request *rq,
		     enum MHD_RequestTerminationCode toe)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	char addr[INET6_ADDRSTRLEN + 1], rid[REQID_MAX + 1];
	client_addr(con, addr, sizeof addr);
	if (rq->rid[0])
		memcpy(rid, rq->rid, sizeof rid);
	else
		reqid_new(rid); /* never sent, but the line has one */
	int mhd_status = rq->status ? 0 : log_mhd_status();
	/* a job's id is what lets anyone read or cancel it: the log names
	 * the job route, never the id */
	static const char jobs[] = "/v1/jobs/";
	char redacted[256];
	const char *path = rq->path;
	if (path && strncmp(path, jobs, sizeof jobs - 1) == 0) {
		const char *rest = strchr(path + sizeof jobs - 1, '/');
		snprintf(redacted, sizeof redacted, "%s{id}%.200s", jobs,
			 rest ? rest : "");
		path = redacted;
	}
	struct log_request lr = {
		.method = rq->method[0] ? rq->method : NULL,
		.path = path,
		.route = rq->log_route,
		.status = rq->status ? rq->status : mhd_status,
		.bytes = rq->head ? 0 : rq->bytes,
		.seconds = (double)(now.tv_sec - rq->t0.tv_sec) +
			   (double)(now.tv_nsec - rq->t0.tv_nsec) / 1e9,
		.client = addr,
		.request_id = rid,
		.trace_id = rq->trace[0] ? rq->trace : NULL,
		.encoding = rq->encoding,
		.aborted = toe != MHD_REQUEST_TERMINATED_COMPLETED_OK,
		.mhd = rq->status == 0,
	};
	log_request(&lr);
}

static void on_completed(void *cls, struct MHD_Connection *con,
			 void **con_cls, enum MHD_RequestTerminationCode toe)
{
	struct http_server *srv = cls;
	struct request *rq = *con_cls;
	/* the connection's next request has its own deadline from now */
	guard_request_done(con, srv->guard);
	if (rq == NULL)
		return;
	if (rq->pending) {
		/* a connection closed with its write still queued (only at
		 * shutdown): the writer will call write_done on rq, so wait */
		for (;;) {
			pthread_mutex_lock(&rq->wlock);
			int done = rq->wdone;
			pthread_mutex_unlock(&rq->wlock);
			if (done)
				break;
			struct timespec ts = {0, 1000000L};
			nanosleep(&ts, NULL);
		}
		api_pending_free(rq->pending);
	}
	log_done(con, rq, toe);
	/* the reply was sent, or its client is gone: MHD lets it go now */
	guard_reply_give(srv->guard, rq->held);
	pthread_mutex_destroy(&rq->wlock);
	free(rq->query);
	free(rq->body);
	free(rq->path);
	free(rq->inm);
	int answered = rq->answering;
	free(rq->im);
	free(rq);
	*con_cls = NULL;
	if (answered)
		atomic_fetch_sub(&srv->active, 1);
}


/* Append upload data, or count it as discarded once past the cap. Returns
 * 0, or -1 if the connection should be dropped. */
static int take_body(const struct http_server *srv, struct request *rq,
		     const char *data, size_t size)
{
	uint64_t max = srv->cfg->max_body;
	if (rq->refused) {
		rq->discarded += size;
		return rq->discarded > DISCARD_MAX ? -1 : 0;
	}
	if (rq->too_large || size > max - rq->len) {
		if (!rq->too_large) {
			rq->too_large = 1;
			free(rq->body);
			rq->body = NULL;
			rq->len = rq->cap = 0;
		}
		rq->discarded += size;
		return rq->discarded > DISCARD_MAX ? -1 : 0;
	}
	if (rq->len + size > rq->cap) {
		size_t cap = rq->cap ? rq->cap : 1024;
		while (cap < rq->len + size)
			cap *= 2;
		if (cap > max)
			cap = max;
		char *b = realloc(rq->body, cap);
		if (b == NULL)
			return -1;
		rq->body = b;
		rq->cap = cap;
	}
	memcpy(rq->body + rq->len, data, size);
	rq->len += size;
	return 0;
}

/* 1 if the request says "Expect: 100-continue" with a Content-Length
 * past --max-body. */
static int expects_too_much(const struct http_server *srv,
			    struct MHD_Connection *con)
{
	const char *ex = MHD_lookup_connection_value(con, MHD_HEADER_KIND,
						     MHD_HTTP_HEADER_EXPECT);
	const char *cl = MHD_lookup_connection_value(
		con, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	if (ex == NULL || cl == NULL || strcasecmp(ex, "100-continue") != 0)
		return 0;
	char *end;
	errno = 0;
	unsigned long long n = strtoull(cl, &end, 10);
	return end != cl && *end == '\0' &&
	       (errno == ERANGE || n > srv->cfg->max_body);
}


static const char *raw_header(struct MHD_Connection *con, const char *name)
{
	return MHD_lookup_connection_value(con, MHD_HEADER_KIND, name);
}

/* What the handlers see of a request header: If-None-Match and If-Match
 * without our coding suffixes, everything else as sent. */
static const char *header_of(void *cls, const char *name)
{
	struct request *rq = cls;
	if (rq->inm && strcasecmp(name, MHD_HTTP_HEADER_IF_NONE_MATCH) == 0)
		return rq->inm;
	if (rq->im && strcasecmp(name, MHD_HTTP_HEADER_IF_MATCH) == 0)
		return rq->im;
	return raw_header(rq->con, name);
}

/* A copy of the header without coding suffixes, or NULL when it has none
 * (or memory ran out: then the handler sees it as sent and at worst
 * answers 200 or 412 where 304 or 200 was possible). */
static char *unsuffixed(struct MHD_Connection *con, const char *name)
{
	const char *v = raw_header(con, name);
	if (v == NULL || (strstr(v, "-gzip\"") == NULL &&
			  strstr(v, "-br\"") == NULL))
		return NULL;
	size_t cap = strlen(v) + 1;
	char *out = malloc(cap);
	if (out && compress_etag_strip(v, out, cap) != 1) {
		free(out);
		out = NULL;
	}
	return out;
}

/* At the first access call: what the log line and every reply need. */
static void request_start(struct request *rq, struct MHD_Connection *con,
			  const char *method, const char *url)
{
	rq->con = con;
	snprintf(rq->method, sizeof rq->method, "%s", method);
	rq->head = strcmp(method, "HEAD") == 0;
	free(rq->path);
	rq->path = strdup(url);
	const char *id = raw_header(con, "X-Request-Id");
	if (reqid_valid(id))
		snprintf(rq->rid, sizeof rq->rid, "%s", id);
	else
		reqid_new(rq->rid);
	reqid_trace_id(raw_header(con, "traceparent"), rq->trace);
	rq->inm = unsuffixed(con, MHD_HTTP_HEADER_IF_NONE_MATCH);
	rq->im = unsuffixed(con, MHD_HTTP_HEADER_IF_MATCH);
}

/* ---- live event streams -------------------------------------------------- */

/* A live event stream: libmicrohttpd pulls bytes with sse_read; when there
 * are none the watcher parks the connection (suspends it) and wakes it
 * (resumes it) when an event arrives (events.h). Streams are never
 * compressed: a compressor holds bytes back until it has enough, and an
 * event must reach the watcher at once. */
struct sse {
	struct watcher *w;
	struct MHD_Connection *con;
	int fd;         /* the connection's socket, -1: unknown */
	uint64_t *sent; /* the request's byte count (read only before it ends) */
};

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	(void)pos;
	struct sse *s = cls;
	ssize_t n = events_read(s->w, buf, max);
	if (n < 0)
		return MHD_CONTENT_READER_END_OF_STREAM;
	*s->sent += (uint64_t)n;
	return n;
}

static void sse_park(void *ctx)
{
	MHD_suspend_connection(((struct sse *)ctx)->con);
}

static void sse_wake(void *ctx)
{
	MHD_resume_connection(((struct sse *)ctx)->con);
}

/* Has the peer closed its end? An event stream's client sends nothing
 * after its request, so a readable socket with nothing to read is a
 * closed one (a peek: the bytes, if any, stay for libmicrohttpd). */
static int sse_alive(void *ctx)
{
	const struct sse *s = ctx;
	if (s->fd < 0)
		return 1;
	char b;
	ssize_t k = recv(s->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
	if (k > 0)
		return 1;
	if (k == 0)
		return 0;
	return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
}

static void sse_free(void *cls)
{
	struct sse *s = cls;
	events_detach(s->w);
	free(s);
}

/* The stream's response, which owns rp->stream from here on. */
static struct MHD_Response *sse_response(struct MHD_Connection *con,
					 struct request *rq,
					 struct api_reply *rp)
{
	struct sse *s = malloc(sizeof *s);
	if (s == NULL)
		return NULL;
	s->w = rp->stream;
	s->con = con;
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(con, MHD_CONNECTION_INFO_CONNECTION_FD);
	s->fd = ci ? ci->connect_fd : -1;
	s->sent = &rq->bytes;
	struct MHD_Response *resp = MHD_create_response_from_callback(
		MHD_SIZE_UNKNOWN, 4096, sse_read, s, sse_free);
	if (resp == NULL) {
		free(s);
		return NULL;
	}
	rp->stream = NULL;
	events_attach(s->w, sse_park, sse_wake, s);
	events_watch_peer(s->w, sse_alive, s->fd);
	return resp;
}

/* ---- bodies made while they are sent ---------------------------------------- */

/* A handler's body source (api_reply.h) as a callback response: MHD asks
 * for the next block only when the socket has taken the last one, so the
 * making keeps pace with the reader, and when the client goes MHD lets
 * the response go (src_free) and nothing more is made. Never compressed
 * (the length is announced, and a dataset's bytes do not shrink much). */
struct src {
	struct api_body_source *s;
	uint64_t *sent;
};

static ssize_t src_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct src *c = cls;
	if (pos >= c->s->length)
		return MHD_CONTENT_READER_END_OF_STREAM;
	if (max > c->s->length - pos)
		max = (size_t)(c->s->length - pos);
	long n = c->s->read(c->s->ctx, pos, buf, max);
	if (n <= 0)
		return MHD_CONTENT_READER_END_WITH_ERROR;
	*c->sent += (uint64_t)n;
	return (ssize_t)n;
}

static void src_free(void *cls)
{
	struct src *c = cls;
	if (c->s->release)
		c->s->release(c->s->ctx);
	free(c->s);
	free(c);
}

/* The source's response, which owns rp->source from here on. */
static struct MHD_Response *src_response(struct request *rq,
					 struct api_reply *rp)
{
	struct src *c = malloc(sizeof *c);
	if (c == NULL)
		return NULL;
	c->s = rp->source;
	c->sent = &rq->bytes;
	struct MHD_Response *resp = MHD_create_response_from_callback(
		c->s->length, c->s->block, src_read, c, src_free);
	if (resp == NULL) {
		free(c);
		return NULL;
	}
	rp->source = NULL;
	return resp;
}

/* ---- the reply path -------------------------------------------------------- */

/* A reply body on its way to becoming an MHD_Response. */
struct body {
	const char *data;
	size_t len;
	char *owned;    /* malloc'd bytes data points into, or NULL */
	int persistent; /* data lives as long as the server */
};

static void body_set_owned(struct body *b, char *text, size_t len)
{
	free(b->owned);
	b->owned = text;
	b->data = text;
	b->len = len;
	b->persistent = 0;
}

/* The fixed out_of_memory body (problem.h), with the request id when
 * memory allows. */
static void body_fallback(struct body *b, const struct request *rq)
{
	size_t n = strlen(problem_internal_fallback);
	size_t cap = n + sizeof ",\"request_id\":\"\"" + REQID_MAX;
	char *t = malloc(cap);
	if (t) {
		int k = snprintf(t, cap, "%.*s,\"request_id\":\"%s\"}",
				 (int)(n - 1), problem_internal_fallback,
				 rq->rid);
		body_set_owned(b, t, (size_t)k);
		return;
	}
	free(b->owned);
	b->owned = NULL;
	b->data = problem_internal_fallback;
	b->len = n;
	b->persistent = 1;
}

/* The bytes of rp (not a stream). Replies that cannot be built become the
 * fixed 503 out_of_memory. */
static void body_of(struct api_reply *rp, const struct request *rq,
		    struct body *b)
{
	memset(b, 0, sizeof *b);
	b->data = "";
	b->persistent = 1;
	if (rp->json) {
		size_t len = 0;
		char *text = jsonout_dump(rp->json, &len);
		if (text) {
			body_set_owned(b, text, len);
			return;
		}
	} else if (rp->raw && rp->owned) {
		/* the reply's own buffer: taken over */
		body_set_owned(b, rp->owned, rp->raw_len);
		rp->owned = NULL;
		rp->raw = NULL;
		return;
	} else if (rp->raw) {
		b->data = rp->raw;
		b->len = rp->raw_len;
		return;
	} else if (rp->status < 500) {
		return; /* no body (204, 304, HEAD-less answers) */
	}
	/* out of memory, or a problem whose body could not be built */
	rp->status = problem_status(PROBLEM_OUT_OF_MEMORY);
	rp->content_type = PROBLEM_CONTENT_TYPE;
	body_fallback(b, rq);
}

/* A problem body names its request: "request_id" is added as the last
 * member (the body is a JSON object we wrote, or replayed, so it ends in
 * '}'; the id's characters need no escaping, reqid.h). */
static void body_add_request_id(struct body *b, const struct request *rq)
{
	if (b->len < 2 || b->data[b->len - 1] != '}')
		return;
	size_t cap = b->len + sizeof ",\"request_id\":\"\"" + strlen(rq->rid);
	char *t = malloc(cap);
	if (t == NULL)
		return;
	int empty = b->len == 2; /* "{}" */
	int k = snprintf(t, cap, "%.*s%s\"request_id\":\"%s\"}",
			 (int)(b->len - 1), b->data, empty ? "" : ",", rq->rid);
	body_set_owned(b, t, (size_t)k);
}

static int find_header(const struct api_reply *rp, const char *name)
{
	for (int i = 0; i < rp->nheaders; i++)
		if (strcasecmp(rp->headers[i].name, name) == 0)
			return i;
	return -1;
}

/* Does an If-None-Match list name the tag (weak comparison: W/ ignored;
 * "*" names any)? */
static int inm_names(const char *list, const char *tag)
{
	const char *q = strchr(tag, '"');
	if (list == NULL || q == NULL)
		return 0;
	size_t n = strlen(q);
	for (const char *p = list; *p;) {
		p += strspn(p, " \t,");
		if (*p == '*')
			return 1;
		if (p[0] == 'W' && p[1] == '/')
			p += 2;
		if (strncmp(p, q, n) == 0 &&
		    (p[n] == '\0' || p[n] == ',' || p[n] == ' ' || p[n] == '\t'))
			return 1;
		p += strcspn(p, ",");
	}
	return 0;
}

/* The strong tag of a deterministic body: 128 bits of its SHA-256 in hex,
 * worked out once for a body that lives as long as the server. */
static void body_etag(struct http_server *srv, const struct body *b,
		      char out[40])
{
	if (b->persistent) {
		pthread_mutex_lock(&srv->memo_lock);
		for (int i = 0; i < srv->nmemo; i++)
			if (srv->memo[i].src == b->data &&
			    srv->memo[i].len == b->len) {
				memcpy(out, srv->memo[i].tag, 40);
				pthread_mutex_unlock(&srv->memo_lock);
				return;
			}
		pthread_mutex_unlock(&srv->memo_lock);
	}
	uint8_t h[TOKEN_HASH_LEN];
	token_sha256(b->data, b->len, h);
	static const char hex[] = "0123456789abcdef";
	out[0] = '"';
	for (int i = 0; i < 16; i++) {
		out[1 + 2 * i] = hex[h[i] >> 4];
		out[2 + 2 * i] = hex[h[i] & 15];
	}
	out[33] = '"';
	out[34] = '\0';
	if (b->persistent) {
		pthread_mutex_lock(&srv->memo_lock);
		if (srv->nmemo < ETAG_MEMO) {
			struct etag_memo *m = &srv->memo[srv->nmemo++];
			m->src = b->data;
			m->len = b->len;
			memcpy(m->tag, out, 40);
		}
		pthread_mutex_unlock(&srv->memo_lock);
	}
}

/* A deterministic 200: ETag from the body, public caching, and 304 when
 * the client has it already. */
static void deterministic(struct http_server *srv, const struct request *rq,
			  struct api_reply *rp, struct body *b)
{
	char tag[40];
	int i = find_header(rp, "ETag");
	if (i >= 0)
		snprintf(tag, sizeof tag, "%s", rp->headers[i].value);
	else {
		body_etag(srv, b, tag);
		api_reply_header(rp, "ETag", "%s", tag);
	}
	if (find_header(rp, "Cache-Control") < 0)
		api_reply_header(rp, "Cache-Control", "public, max-age=%u",
				 rp->cache_max_age);
	const char *inm = rq->inm ? rq->inm
				  : raw_header(rq->con,
					       MHD_HTTP_HEADER_IF_NONE_MATCH);
	if (inm_names(inm, tag)) {
		rp->status = 304;
		rp->content_type = NULL;
		body_set_owned(b, NULL, 0);
		b->data = "";
		b->persistent = 1;
	}
}

/* A compressed body streamed out while MHD sends it. */
struct zbody {
	struct compress_stream *cs;
	char *owned;    /* the identity bytes, when they are ours */
	uint64_t *sent; /* the request's byte count */
	_Atomic int *live; /* the server's count of open streams */
};

static ssize_t zbody_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	(void)pos;
	struct zbody *z = cls;
	ssize_t n = compress_stream_read(z->cs, buf, max);
	if (n < 0)
		return MHD_CONTENT_READER_END_WITH_ERROR;
	if (n == 0)
		return MHD_CONTENT_READER_END_OF_STREAM;
	*z->sent += (uint64_t)n;
	return n;
}

static void zbody_free(void *cls)
{
	struct zbody *z = cls;
	compress_stream_free(z->cs);
	free(z->owned);
	atomic_fetch_sub(z->live, 1);
	free(z);
}

static int coding_level(const struct http_server *srv, enum compress_coding c)
{
	return c == COMPRESS_GZIP ? srv->cc.gzip_level : srv->cc.br_quality;
}

/* The response for body b in coding c, or NULL (then the caller sends it
 * as identity). Takes b's bytes over on success. */
static struct MHD_Response *encoded(struct http_server *srv,
				    struct request *rq, struct body *b,
				    enum compress_coding c)
{
	struct MHD_Response *resp = NULL;
	if (b->persistent) {
		size_t n;
		const char *z = compress_cache_get(srv->zcache, c, b->data,
						   b->len, &n);
		if (z) {
			resp = MHD_create_response_from_buffer(
				n, (void *)z, MHD_RESPMEM_PERSISTENT);
			if (resp)
				rq->bytes = n;
			return resp;
		}
	}
	if (b->len <= COMPRESS_ONESHOT_MAX) {
		char *z;
		size_t n;
		if (compress_oneshot(c, coding_level(srv, c), b->data, b->len,
				     &z, &n) < 0)
			return NULL;
		resp = MHD_create_response_from_buffer(n, z,
						       MHD_RESPMEM_MUST_FREE);
		if (resp == NULL) {
			free(z);
			return NULL;
		}
		rq->bytes = n;
		body_set_owned(b, NULL, 0);
		return resp;
	}
	/* a stream lives as long as its client takes to read: a bounded
	 * number at once, past which big replies go out as they are */
	if (atomic_fetch_add(&srv->zstreams, 1) >= COMPRESS_MAX_STREAMS) {
		atomic_fetch_sub(&srv->zstreams, 1);
		return NULL;
	}
	struct zbody *zb = calloc(1, sizeof *zb);
	if (zb)
		zb->cs = compress_stream_new(c, coding_level(srv, c), b->data,
					     b->len);
	if (zb && zb->cs) {
		zb->sent = &rq->bytes;
		zb->live = &srv->zstreams;
		resp = MHD_create_response_from_callback(
			MHD_SIZE_UNKNOWN, COMPRESS_BLOCK, zbody_read, zb,
			zbody_free);
	}
	if (resp == NULL) {
		if (zb)
			compress_stream_free(zb->cs);
		free(zb);
		atomic_fetch_sub(&srv->zstreams, 1);
		return NULL;
	}
	/* the stream reads b's bytes until MHD lets it go */
	zb->owned = b->owned;
	b->owned = NULL;
	rq->bytes = 0;
	return resp;
}

/* May the reply memory budget refuse this reply? Reads may (GET, HEAD,
 * and the stateless POSTs that compute an answer); a session write's
 * answer may not: the write is done, and its client must hear so. */
static int refusable(const struct request *rq)
{
	if (strcmp(rq->method, "GET") == 0 || strcmp(rq->method, "HEAD") == 0)
		return 1;
	return rq->path && strncmp(rq->path, "/v1/sessions", 12) != 0 &&
	       strncmp(rq->path, "/v1/jobs", 8) != 0;
}

/* Charge the body about to be handed to libmicrohttpd to the reply memory
 * budget (guard.h), given back in on_completed. Past the budget, rp
 * becomes the guard's 503 reply_memory problem instead, and b its body. */
static void charge_reply(struct http_server *srv, struct request *rq,
			 struct api_reply *rp, struct body *b)
{
	if (b->persistent || b->len == 0)
		return; /* lives as long as the server anyway */
	if (guard_reply_take(srv->guard, b->len, refusable(rq))) {
		rq->held = b->len;
		return;
	}
	const char *route = rp->route;
	api_reply_free(rp);
	api_reply_init(rp);
	rp->route = route;
	guard_refusal_reply(srv->guard, GUARD_REPLY_MEMORY, 1, rp);
	body_set_owned(b, NULL, 0);
	body_of(rp, rq, b);
	body_add_request_id(b, rq);
	/* small, so always admitted */
	if (!b->persistent && guard_reply_take(srv->guard, b->len, 0))
		rq->held = b->len;
}

/* Build the MHD response for rp, add every header, queue it. */
static enum MHD_Result send_reply(struct http_server *srv,
				  struct MHD_Connection *con,
				  struct request *rq, struct api_reply *rp)
{
	const struct config *cfg = srv->cfg;
	struct MHD_Response *resp = NULL;
	struct body b = {"", 0, NULL, 1};
	enum compress_coding enc = COMPRESS_IDENTITY;
	int vary_coding = 0;
	if (rp->source) {
		/* what it holds unsent is its block: charged like a reply */
		size_t block = rp->source->block;
		int took = guard_reply_take(srv->guard, block, refusable(rq));
		if (took) {
			rq->held = block;
			resp = src_response(rq, rp);
		}
		if (resp == NULL) {
			guard_reply_give(srv->guard, rq->held);
			rq->held = 0;
			const char *route = rp->route;
			api_reply_free(rp);
			api_reply_init(rp);
			rp->route = route;
			if (!took)
				guard_refusal_reply(srv->guard, GUARD_REPLY_MEMORY, 1, rp);
			else
				problem_reply(rp, PROBLEM_OUT_OF_MEMORY, "out of memory");
			body_of(rp, rq, &b);
			body_add_request_id(&b, rq);
		}
	} else if (rp->stream) {
		resp = sse_response(con, rq, rp);
		if (resp == NULL) {
			rp->status = problem_status(PROBLEM_OUT_OF_MEMORY);
			rp->content_type = PROBLEM_CONTENT_TYPE;
			rp->nheaders = 0;
			body_fallback(&b, rq);
		}
	} else {
		body_of(rp, rq, &b);
		if (rp->content_type &&
		    strcmp(rp->content_type, PROBLEM_CONTENT_TYPE) == 0)
			body_add_request_id(&b, rq);
		if (rp->cache_max_age && rp->status == 200)
			deterministic(srv, rq, rp, &b);
		charge_reply(srv, rq, rp, &b);
	}
	/* a reply that chose its coding itself (static.c's gzip twins) says
	 * so with its own Vary (and Content-Encoding when coded): never code
	 * it twice, never name Accept-Encoding twice */
	int precoded = find_header(rp, "Content-Encoding") >= 0 ||
		       find_header(rp, "Vary") >= 0;
	if (resp == NULL && !precoded) {
		vary_coding = srv->cc.codings &&
			      (compress_type_ok(rp->content_type) ||
			       rp->status == 304);
		int identity_ok = 1;
		const char *ae = NULL;
		if (vary_coding && b.len > 0)
			ae = raw_header(con, MHD_HTTP_HEADER_ACCEPT_ENCODING);
		/* a small body is only coded when the client refuses identity,
		 * which needs "identity" or "*" in the header: most small
		 * replies skip the negotiation altogether */
		if (ae && (b.len >= srv->cc.min_size ||
			   strstr(ae, "identity") || strchr(ae, '*')))
			enc = compress_negotiate(ae, srv->cc.codings,
						 &identity_ok);
		/* below the threshold the coder costs more than it saves,
		 * unless the client refuses identity outright */
		if (enc != COMPRESS_IDENTITY && b.len < srv->cc.min_size &&
		    identity_ok)
			enc = COMPRESS_IDENTITY;
		if (enc != COMPRESS_IDENTITY) {
			resp = encoded(srv, rq, &b, enc);
			if (resp == NULL)
				enc = COMPRESS_IDENTITY;
			else if (rq->held && rq->bytes && rq->bytes < rq->held) {
				/* coded in one go: only the coded bytes are
				 * held from here on (a coded stream holds the
				 * identity bytes, and stays charged for them) */
				guard_reply_give(srv->guard,
						 rq->held - rq->bytes);
				rq->held = rq->bytes;
			}
		}
	}
	if (resp == NULL) {
		rq->bytes = b.len;
		if (b.owned) {
			resp = MHD_create_response_from_buffer(
				b.len, b.owned, MHD_RESPMEM_MUST_FREE);
			if (resp)
				b.owned = NULL;
		} else {
			resp = MHD_create_response_from_buffer(
				b.len, (void *)b.data, MHD_RESPMEM_PERSISTENT);
		}
	}
	free(b.owned);
	if (resp == NULL)
		return MHD_NO;

	/* the entity tag names the bytes sent (compress.h); a 304 names the
	 * variant the client holds */
	int et = find_header(rp, "ETag");
	if (et >= 0) {
		enum compress_coding tagc = enc;
		if (rp->status == 304)
			tagc = compress_etag_suffix_in(
				raw_header(con, MHD_HTTP_HEADER_IF_NONE_MATCH),
				rp->headers[et].value);
		char tag[API_HEADER_VALUE_MAX];
		if (tagc != COMPRESS_IDENTITY &&
		    compress_etag_with(rp->headers[et].value, tagc, tag,
				       sizeof tag) == 0)
			snprintf(rp->headers[et].value,
				 sizeof rp->headers[et].value, "%s", tag);
	}

	const char *origin = cfg->cors_origin;
	if (rp->content_type)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
					rp->content_type);
	for (int i = 0; i < rp->nheaders; i++)
		MHD_add_response_header(resp, rp->headers[i].name,
					rp->headers[i].value);
	if (enc != COMPRESS_IDENTITY)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING,
					compress_name(enc));
	MHD_add_response_header(resp, "X-Request-Id", rq->rid);
	MHD_add_response_header(resp, "Access-Control-Allow-Origin", origin);
	int vary_origin = strcmp(origin, "*") != 0;
	if (vary_origin || vary_coding)
		MHD_add_response_header(
			resp, "Vary",
			vary_origin && vary_coding ? "Origin, Accept-Encoding"
			: vary_origin		   ? "Origin"
						   : "Accept-Encoding");
	MHD_add_response_header(resp, "Access-Control-Expose-Headers",
				API_CORS_EXPOSE_HEADERS);
	/* stopping: a keep-alive client is told to go, so that its
	 * connection ends with this reply instead of being cut later */
	if (atomic_load(&srv->stopping))
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION,
					"close");
	guard_security_headers(resp, rp);

	enum MHD_Result ok =
		MHD_queue_response(con, (unsigned)rp->status, resp);
	MHD_destroy_response(resp);
	rq->status = rp->status;
	rq->log_route = rp->route;
	rq->encoding = compress_name(enc);
	return ok;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *con,
				  const char *url, const char *method,
				  const char *version, const char *upload_data,
				  size_t *upload_data_size, void **con_cls)
{
	struct http_server *srv = cls;
	struct request *rq = *con_cls;
	if (rq == NULL) {
		/* The URI callback could not allocate; try once more here. */
		rq = on_uri(srv, url, con);
		if (rq == NULL)
			return MHD_NO;
		*con_cls = rq;
	}
	if (!rq->started) {
		rq->started = 1;
		request_start(rq, con, method, url);
		rq->refused = guard_check(srv->guard, con, method, url,
					  version, rq->uri_len, rq->nparams,
					  &rq->retry_after);
		if (rq->refused)
			return MHD_YES; /* answered below, body discarded */
		/* The one exception to answering on the second call: a client
		 * that announced a too-large body and waits for "100 Continue"
		 * gets its 413 now instead of uploading the body first. */
		if (!expects_too_much(srv, con))
			return MHD_YES;
		rq->too_large = 1;
	} else if (*upload_data_size > 0) {
		int rc = take_body(srv, rq, upload_data, *upload_data_size);
		*upload_data_size = 0;
		return rc < 0 ? MHD_NO : MHD_YES;
	}

	/* the request is all here: the deadline is no longer the client's,
	 * and a stop waits for its reply (http_drain) */
	guard_request_answering(con);
	if (!rq->answering) {
		rq->answering = 1;
		atomic_fetch_add(&srv->active, 1);
	}
	struct api_reply rp;
	api_reply_init(&rp);
	if (rq->pending) {
		/* resumed: the write is done */
		rp.pending = rq->pending;
		rp.route = rq->route;
		rq->pending = NULL;
		api_finish(srv->api, &rp);
	} else if (rq->refused) {
		guard_refusal_reply(srv->guard, rq->refused, rq->retry_after,
				    &rp);
	} else if (rq->too_large) {
		json_t *p = problem_reply(&rp, PROBLEM_BODY_TOO_LARGE,
					  "the request body is larger than "
					  "%llu bytes, the server's limit",
					  (unsigned long long)srv->cfg->max_body);
		json_object_set_new(p, "limit",
				    json_integer((json_int_t)srv->cfg->max_body));
	} else {
		/* the client as the rate limiter keys it: per-client job caps */
		const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
			con, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		struct limits_key client;
		limits_key_of(ci ? ci->client_addr : NULL, &client);
		const union MHD_ConnectionInfo *fi = MHD_get_connection_info(
			con, MHD_CONNECTION_INFO_CONNECTION_FD);
		rq->fd = fi ? fi->connect_fd : -1;
		struct api_request req = {
			.method = method,
			.path = url,
			.query = rq->query,
			.body = rq->body,
			.body_len = rq->len,
			.content_type = raw_header(con,
						   MHD_HTTP_HEADER_CONTENT_TYPE),
			.header = header_of,
			.header_cls = rq,
			.done = write_done,
			.done_ctx = rq,
			.gone = client_gone,
			.gone_ctx = rq,
			.client = &client,
		};
		rq->wdone = rq->suspended = 0;
		api_handle(srv->api, &req, &rp);
		if (rp.pending) {
			pthread_mutex_lock(&rq->wlock);
			if (!rq->wdone) {
				/* wait for write_done */
				rq->pending = rp.pending;
				rq->route = rp.route;
				rp.pending = NULL;
				rq->suspended = 1;
				MHD_suspend_connection(con);
				pthread_mutex_unlock(&rq->wlock);
				api_reply_free(&rp);
				return MHD_YES;
			}
			pthread_mutex_unlock(&rq->wlock);
			api_finish(srv->api, &rp); /* done already */
		}
	}
	/* what the request stored, as the API says (api_reply.stored) */
	if ((rp.status == 200 || rp.status == 201) && rp.stored)
		guard_stored(srv->guard, con, rp.stored);
	enum MHD_Result ok = send_reply(srv, con, rq, &rp);
	if (srv->api->metrics) {
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		double secs = (double)(now.tv_sec - rq->t0.tv_sec) +
			      (double)(now.tv_nsec - rq->t0.tv_nsec) / 1e9;
		metrics_observe(srv->api->metrics, rp.route, rp.status, secs);
	}
	api_reply_free(&rp);
	return ok;
}


/* Fill a sockaddr for cfg->bind. Returns its length, or 0 if the address
 * is not a numeric IPv4 or IPv6 address. */
static socklen_t bind_addr(const struct config *cfg,
			   struct sockaddr_storage *ss, int *ipv6)
{
	memset(ss, 0, sizeof *ss);
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	if (inet_pton(AF_INET, cfg->bind, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)cfg->port);
		*ipv6 = 0;
		return sizeof *s4;
	}
	if (inet_pton(AF_INET6, cfg->bind, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)cfg->port);
		*ipv6 = 1;
		return sizeof *s6;
	}
	return 0;
}

/* The guard's connection counts, for metrics_connections_from. */
static void connection_stats(const void *guard,
			     struct metrics_conn_stats *out)
{
	out->open = guard_connections(guard);
	out->timed_out = guard_reaped(guard);
	struct guard_fairness f;
	guard_fairness(guard, &f);
	out->evicted = f.evicted;
	out->share_refused = f.share_refused;
}

struct http_server *http_start(const struct config *cfg,
			       const struct api_config *api, char *err,
			       size_t errlen)
{
	struct sockaddr_storage ss;
	int ipv6 = 0;
	if (bind_addr(cfg, &ss, &ipv6) == 0) {
		snprintf(err, errlen,
			 "--bind: \"%s\" is not a numeric IPv4 or IPv6 address",
			 cfg->bind);
		return NULL;
	}
	struct http_server *srv = calloc(1, sizeof *srv);
	if (srv == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	srv->cfg = cfg;
	srv->api = api;
	srv->listen_fd = -1;
	srv->guard = guard_new(cfg);
	srv->zcache = compress_cache_new();
	if (srv->guard == NULL || srv->zcache == NULL) {
		snprintf(err, errlen, "out of memory");
		guard_free(srv->guard);
		compress_cache_free(srv->zcache);
		free(srv);
		return NULL;
	}
	compress_parse_list(cfg->compress, &srv->cc.codings);
	srv->cc.min_size = (size_t)cfg->compress_min;
	srv->cc.gzip_level = (int)cfg->gzip_level;
	srv->cc.br_quality = (int)cfg->brotli_quality;
	pthread_mutex_init(&srv->memo_lock, NULL);

	/* before MHD's threads exist: no request reads it yet */
	metrics_connections_from(api->metrics, connection_stats, srv->guard);
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL |
			 MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
	if (ipv6)
		flags |= MHD_USE_IPv6;
	struct MHD_OptionItem pool[] = {
		{MHD_OPTION_THREAD_POOL_SIZE, (intptr_t)cfg->threads, NULL},
		{MHD_OPTION_END, 0, NULL},
	};
	errno = 0;
	srv->daemon = MHD_start_daemon(
		flags, 0, NULL, NULL, on_request, srv,
		/* first, or MHD prints its first messages itself */
		MHD_OPTION_EXTERNAL_LOGGER, log_mhd, (void *)NULL,
		MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
		MHD_OPTION_URI_LOG_CALLBACK, on_uri, (void *)srv,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, (void *)srv,
		MHD_OPTION_NOTIFY_CONNECTION, guard_on_connection,
		(void *)srv->guard,
		MHD_OPTION_CONNECTION_LIMIT, guard_mhd_connection_limit(cfg),
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, guard_mhd_per_ip_limit(cfg),
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, guard_mhd_memory_limit(cfg),
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)cfg->timeout,
		/* A pool of one thread is the plain internal thread. */
		MHD_OPTION_ARRAY, cfg->threads > 1 ? pool : pool + 1,
		MHD_OPTION_END);
	if (srv->daemon == NULL) {
		snprintf(err, errlen, "could not listen on %s port %u%s%s",
			 cfg->bind, (unsigned)cfg->port, errno ? ": " : "",
			 errno ? strerror(errno) : "");
		metrics_connections_from(api->metrics, NULL, NULL);
		guard_free(srv->guard);
		compress_cache_free(srv->zcache);
		pthread_mutex_destroy(&srv->memo_lock);
		free(srv);
		return NULL;
	}
	const union MHD_DaemonInfo *di =
		MHD_get_daemon_info(srv->daemon, MHD_DAEMON_INFO_BIND_PORT);
	srv->port = di ? di->port : (unsigned)cfg->port;
	return srv;
}

unsigned http_port(const struct http_server *srv)
{
	return srv->port;
}

void http_draining(struct http_server *srv)
{
	if (srv)
		atomic_store(&srv->stopping, 1);
}

void http_quiesce(struct http_server *srv)
{
	if (srv == NULL || srv->listen_fd >= 0)
		return;
	atomic_store(&srv->stopping, 1);
	MHD_socket fd = MHD_quiesce_daemon(srv->daemon);
	if (fd == MHD_INVALID_SOCKET)
		return;
	srv->listen_fd = fd;
	/* MHD accepts no more, but the socket still listens: the kernel
	 * would go on completing handshakes into its queue, and those
	 * clients would send requests nobody reads until the process ends
	 * and resets them (a balancer cannot retry a POST it has sent).
	 * So take what is queued now and hand it to MHD, then shut the
	 * listener: from here a connect is refused, which a balancer
	 * retries on another node whatever the method. (The socket itself
	 * stays open until MHD has stopped: its threads may still hold it.) */
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	int handed = 0;
	srv->started0 = guard_started(srv->guard);
	for (;;) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof ss;
		int c = accept(fd, (struct sockaddr *)&ss, &len);
		if (c < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			break; /* EAGAIN: the queue is empty */
		}
		/* MHD makes c non-blocking, and closes it when it cannot
		 * take it */
		if (MHD_add_connection(srv->daemon, c, (struct sockaddr *)&ss,
				       len) == MHD_YES)
			handed++;
	}
	srv->handed = handed;
	if (shutdown(fd, SHUT_RD) != 0)
		log_msg(LOG_WARN, "could not close the listener: %s",
			strerror(errno));
	if (handed)
		log_msg(LOG_INFO, "%d queued connection%s taken before the "
				  "listener closed",
			handed, handed == 1 ? "" : "s");
}

int http_drain(struct http_server *srv, unsigned wait_ms, int arriving)
{
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int left = atomic_load(&srv->active);
		if (arriving) {
			/* busy connections (the active requests among them),
			 * and handed ones MHD has not taken yet */
			uint64_t seen =
				guard_started(srv->guard) - srv->started0;
			uint64_t busy = guard_busy(srv->guard);
			if (seen < (uint64_t)srv->handed)
				busy += (uint64_t)srv->handed - seen;
			left = busy > INT_MAX ? INT_MAX : (int)busy;
		}
		if (left <= 0)
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &now);
		int64_t ms = (int64_t)(now.tv_sec - t0.tv_sec) * 1000 +
			     (now.tv_nsec - t0.tv_nsec) / 1000000;
		if (ms >= (int64_t)wait_ms)
			return left;
		struct timespec ts = {0, 5 * 1000000L};
		nanosleep(&ts, NULL);
	}
}

void http_stop(struct http_server *srv)
{
	if (srv == NULL)
		return;
	MHD_stop_daemon(srv->daemon);
	if (srv->listen_fd >= 0)
		close(srv->listen_fd); /* quiesced: MHD left it to us */
	/* no request runs now: /metrics must not read a freed guard */
	metrics_connections_from(srv->api->metrics, NULL, NULL);
	guard_free(srv->guard);
	compress_cache_free(srv->zcache);
	pthread_mutex_destroy(&srv->memo_lock);
	free(srv);
}
