/* http.c — libmicrohttpd glue: turns MHD's access-handler calls into one
 * api_request per request, and the api_reply into an MHD_Response with the
 * CORS headers every response carries, then logs one line per request.
 *
 * MHD calls the access handler several times per request. The first call
 * only sets up the per-request context (answering there makes 0.9.75 close
 * the connection, DESIGN.md); calls with upload data accumulate the body
 * under the --max-body cap; the last call (no upload data) answers. */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#include <microhttpd.h>

#include "events.h"
#include "client_limits.h"
#include "guard.h"
#include "http.h"
#include "jsonout.h"
#include "metrics.h"
#include "problem.h"

struct http_server {
	struct MHD_Daemon *daemon;
	const struct config *cfg;
	const struct api_config *api;
	struct guard *guard; /* limits and security headers (guard.h) */
	unsigned port;
};

/* Past this much discarded body a too-large upload is cut off without an
 * answer: reading it to the end would let one client keep a thread busy. */
#define DISCARD_MAX ((uint64_t)64 << 20)

/* One request's state, from the URI callback to MHD's completion notice. */
struct request {
	struct timespec t0;
	int started;        /* the access handler has seen this request */
	int too_large;      /* body went past --max-body: answer 413 */
	enum guard_refusal refused; /* answer the guard's refusal */
	unsigned retry_after;
	size_t uri_len;     /* raw request URI, query included */
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

/* MHD strips the query from the URL it hands the access handler; this
 * callback sees the raw URI first, so it creates the request context. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *con)
{
	(void)cls;
	(void)con;
	struct request *rq = calloc(1, sizeof *rq);
	if (rq == NULL)
		return NULL;
	clock_gettime(CLOCK_MONOTONIC, &rq->t0);
	pthread_mutex_init(&rq->wlock, NULL);
	rq->uri_len = uri ? strlen(uri) : 0;
	const char *q = uri ? strchr(uri, '?') : NULL;
	if (q)
		rq->query = strdup(q + 1);
	return rq;
}

static void on_completed(void *cls, struct MHD_Connection *con,
			 void **con_cls, enum MHD_RequestTerminationCode toe)
{
	(void)cls;
	(void)con;
	(void)toe;
	struct request *rq = *con_cls;
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
	pthread_mutex_destroy(&rq->wlock);
	free(rq->query);
	free(rq->body);
	free(rq);
	*con_cls = NULL;
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

static const char *header_of(void *cls, const char *name)
{
	return MHD_lookup_connection_value(cls, MHD_HEADER_KIND, name);
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

/* Copy s into out with bytes outside printable ASCII escaped, so a request
 * line can never forge or break a log line. */
static void log_escape(char *out, size_t cap, const char *s)
{
	size_t o = 0;
	for (; s && *s && o + 5 < cap; s++) {
		unsigned char c = (unsigned char)*s;
		if (c >= 0x21 && c < 0x7f && c != '\\')
			out[o++] = (char)c;
		else
			o += (size_t)snprintf(out + o, cap - o, "\\x%02x", c);
	}
	out[o] = '\0';
}

static void log_request(struct MHD_Connection *con, const struct request *rq,
			const char *method, const char *url, int status,
			size_t bytes)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	long long us = 0;
	if (rq)
		us = (long long)(now.tv_sec - rq->t0.tv_sec) * 1000000 +
		     (now.tv_nsec - rq->t0.tv_nsec) / 1000;
	time_t t = time(NULL);
	struct tm tm;
	char when[32], addr[INET6_ADDRSTRLEN + 1], m[48], path[256];
	gmtime_r(&t, &tm);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	client_addr(con, addr, sizeof addr);
	log_escape(m, sizeof m, method);
	log_escape(path, sizeof path, url);
	fprintf(stderr, "%s %s %s %s %d %zuB %lldus\n", when, addr, m, path,
		status, bytes, us);
}

/* A live event stream: libmicrohttpd pulls bytes with sse_read; when there
 * are none the watcher parks the connection (suspends it) and wakes it
 * (resumes it) when an event arrives (events.h). */
struct sse {
	struct watcher *w;
	struct MHD_Connection *con;
};

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	(void)pos;
	struct sse *s = cls;
	ssize_t n = events_read(s->w, buf, max);
	return n < 0 ? MHD_CONTENT_READER_END_OF_STREAM : n;
}

static void sse_park(void *ctx)
{
	MHD_suspend_connection(((struct sse *)ctx)->con);
}

static void sse_wake(void *ctx)
{
	MHD_resume_connection(((struct sse *)ctx)->con);
}

static void sse_free(void *cls)
{
	struct sse *s = cls;
	events_detach(s->w);
	free(s);
}

/* The stream's response, which owns rp->stream from here on. */
static struct MHD_Response *sse_response(struct MHD_Connection *con,
					 struct api_reply *rp)
{
	struct sse *s = malloc(sizeof *s);
	if (s == NULL)
		return NULL;
	s->w = rp->stream;
	s->con = con;
	struct MHD_Response *resp = MHD_create_response_from_callback(
		MHD_SIZE_UNKNOWN, 4096, sse_read, s, sse_free);
	if (resp == NULL) {
		free(s);
		return NULL;
	}
	rp->stream = NULL;
	events_attach(s->w, sse_park, sse_wake, s);
	return resp;
}

/* Build the MHD response for rp, add every header, queue it, log it. */
static enum MHD_Result send_reply(const struct http_server *srv,
				  struct MHD_Connection *con,
				  const struct request *rq, const char *method,
				  const char *url, struct api_reply *rp)
{
	struct MHD_Response *resp = NULL;
	size_t bytes = 0;
	if (rp->stream) {
		resp = sse_response(con, rp);
		if (resp == NULL) {
			rp->status = 500;
			rp->content_type = PROBLEM_CONTENT_TYPE;
			rp->nheaders = 0;
			bytes = strlen(problem_internal_fallback);
			resp = MHD_create_response_from_buffer(
				bytes, (void *)problem_internal_fallback,
				MHD_RESPMEM_PERSISTENT);
		}
	} else if (rp->json) {
		char *text = jsonout_dump(rp->json, &bytes);
		if (text) {
			resp = MHD_create_response_from_buffer(
				bytes, text, MHD_RESPMEM_MUST_FREE);
			if (resp == NULL)
				free(text);
		}
		if (resp == NULL) {
			/* Out of memory: the fixed 500 body needs none. */
			rp->status = 500;
			rp->content_type = PROBLEM_CONTENT_TYPE;
			bytes = strlen(problem_internal_fallback);
			resp = MHD_create_response_from_buffer(
				bytes, (void *)problem_internal_fallback,
				MHD_RESPMEM_PERSISTENT);
		}
	} else if (rp->raw && rp->owned) {
		/* MHD sends after we return: it takes the buffer over */
		bytes = rp->raw_len;
		resp = MHD_create_response_from_buffer(bytes, rp->owned,
						       MHD_RESPMEM_MUST_FREE);
		if (resp)
			rp->owned = NULL;
	} else if (rp->raw) {
		bytes = rp->raw_len;
		resp = MHD_create_response_from_buffer(
			bytes, (void *)rp->raw, MHD_RESPMEM_PERSISTENT);
	} else if (rp->status == 500) {
		/* A problem whose body could not be built. */
		rp->content_type = PROBLEM_CONTENT_TYPE;
		bytes = strlen(problem_internal_fallback);
		resp = MHD_create_response_from_buffer(
			bytes, (void *)problem_internal_fallback,
			MHD_RESPMEM_PERSISTENT);
	} else {
		resp = MHD_create_response_from_buffer(0, (void *)"",
						       MHD_RESPMEM_PERSISTENT);
	}
	if (resp == NULL)
		return MHD_NO;

	const char *origin = srv->cfg->cors_origin;
	if (rp->content_type)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
					rp->content_type);
	for (int i = 0; i < rp->nheaders; i++)
		MHD_add_response_header(resp, rp->headers[i].name,
					rp->headers[i].value);
	MHD_add_response_header(resp, "Access-Control-Allow-Origin", origin);
	if (strcmp(origin, "*") != 0)
		MHD_add_response_header(resp, "Vary", "Origin");
	MHD_add_response_header(resp, "Access-Control-Expose-Headers",
				API_CORS_EXPOSE_HEADERS);
	guard_security_headers(resp, rp);

	enum MHD_Result ok =
		MHD_queue_response(con, (unsigned)rp->status, resp);
	MHD_destroy_response(resp);
	if (!srv->cfg->quiet)
		log_request(con, rq, method, url, rp->status,
			    strcmp(method, "HEAD") == 0 ? 0 : bytes);
	return ok;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *con,
				  const char *url, const char *method,
				  const char *version, const char *upload_data,
				  size_t *upload_data_size, void **con_cls)
{
	(void)version;
	const struct http_server *srv = cls;
	struct request *rq = *con_cls;
	if (rq == NULL) {
		/* The URI callback could not allocate; try once more here. */
		rq = on_uri(NULL, url, con);
		if (rq == NULL)
			return MHD_NO;
		*con_cls = rq;
	}
	if (!rq->started) {
		rq->started = 1;
		rq->refused = guard_check(srv->guard, con, method, url,
					  rq->uri_len, &rq->retry_after);
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
		json_t *p = problem_reply(&rp, PROBLEM_BODY_TOO_LARGE, NULL,
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
		struct api_request req = {
			.method = method,
			.path = url,
			.query = rq->query,
			.body = rq->body,
			.body_len = rq->len,
			.content_type = MHD_lookup_connection_value(
				con, MHD_HEADER_KIND,
				MHD_HTTP_HEADER_CONTENT_TYPE),
			.header = header_of,
			.header_cls = con,
			.done = write_done,
			.done_ctx = rq,
			.client = &client,
		};
		rq->con = con;
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
	enum MHD_Result ok = send_reply(srv, con, rq, method, url, &rp);
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
	srv->guard = guard_new(cfg);
	if (srv->guard == NULL) {
		snprintf(err, errlen, "out of memory");
		free(srv);
		return NULL;
	}

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
		guard_free(srv->guard);
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

void http_quiesce(struct http_server *srv)
{
	if (srv)
		MHD_quiesce_daemon(srv->daemon);
}

void http_stop(struct http_server *srv)
{
	if (srv == NULL)
		return;
	MHD_stop_daemon(srv->daemon);
	guard_free(srv->guard);
	free(srv);
}
