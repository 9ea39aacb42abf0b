/* guard.c — the checks http.c makes before a request reaches the API (the
 * connection, header-size and rate limits), the problem replies of their
 * refusals, the request deadline, and the security headers on every reply
 * (see guard.h). The tables behind the limits are in client_limits.c; this
 * file is the glue between them, libmicrohttpd and the one table of
 * problem kinds.
 *
 * The request deadline (--request-timeout): libmicrohttpd's own timeout is
 * an idle one (a byte every few seconds keeps a connection forever), and
 * it calls nothing of ours while a request head trickles in. So every
 * connection is on a list with the time its current request phase began
 * (when it opened, or when its previous reply was sent), and a reaper
 * thread shuts down the socket of any that has not delivered a whole
 * request by the deadline. shutdown(2), never close(2): the descriptor
 * stays libmicrohttpd's, which sees the end of the stream and cleans up
 * as for any client that went away; the list's lock is held across it and
 * across the close notice, so a descriptor is never shut down after
 * libmicrohttpd let go of it.
 *
 * Fairness between addresses (docs/limits.md): each address has a share
 * of --max-connections, the limit split between the addresses connected.
 * A connection past its address's share is refused (and, while the total
 * is reached, cut at once); one within it is let in even at the total, by
 * shutting down the newest waiting connection of the address holding the
 * most. The reaper's list is where that victim is found. */
#include "guard.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#include "client_limits.h"
#include "log.h"
#include "problem.h"

struct guard {
	const struct config *cfg;
	struct limits *limits;
	struct limits *quota; /* sessions created per address, or NULL */
	struct limits *stored; /* bytes stored per address, or NULL */
	/* the request deadline's connections and reaper (the file comment) */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct guard_conn *conns;
	int stop, reaper_started;
	pthread_t reaper;
	_Atomic uint64_t reaped; /* connections cut off at the deadline */
	_Atomic uint64_t open;   /* client connections open now */
	/* of those, idle between requests (a reply sent, no next request
	 * begun): what a stop need not wait for (guard_busy) */
	_Atomic uint64_t idle;
	_Atomic uint64_t started; /* connections ever opened */
	/* --trusted-proxy: peers whose X-Forwarded-For names the client */
	struct limits_cidr proxies[LIMITS_MAX_CIDRS];
	int nproxies;
	/* --reply-memory: bytes of replies built and not yet sent */
	_Atomic uint64_t reply_held;
	/* fairness between addresses (the file comment) */
	_Atomic uint64_t evicted;      /* connections closed to make room */
	_Atomic uint64_t share_refused; /* connections past an address's share */
};

/* What MHD keeps for us per connection (its socket context). */
struct guard_conn {
	struct limits_key key;
	enum limits_conn verdict;
	int fd;
	/* ms (monotonic) the current request phase began; 0: not in one (a
	 * reply is being made or sent, or a stream is open) */
	_Atomic int64_t phase;
	int64_t limit_ms; /* its deadline (0: none) */
	int past_share;   /* refused for its address's share (fair_share) */
	int reaped;
	struct guard_conn *prev, *next;
	int proxy; /* the peer is a trusted proxy */
	int idle;  /* counted in guard.idle */
};

static int64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The reaper: every quarter of a second (a tenth of short deadlines),
 * shut down what is past the deadline. */
static void *reaper_main(void *arg)
{
	struct guard *g = arg;
	int64_t limit = (int64_t)g->cfg->request_timeout * 1000;
	int64_t tick = limit / 10 < 250 ? limit / 10 : 250;
	if (tick < 10)
		tick = limit ? 10 : 250;
	pthread_mutex_lock(&g->lock);
	while (!g->stop) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += (long)(tick % 1000) * 1000000L;
		ts.tv_sec += (time_t)(tick / 1000) + ts.tv_nsec / 1000000000L;
		ts.tv_nsec %= 1000000000L;
		pthread_cond_timedwait(&g->wake, &g->lock, &ts);
		int64_t now = mono_ms();
		uint64_t cut = 0;
		for (struct guard_conn *c = g->conns; c; c = c->next) {
			int64_t p = atomic_load(&c->phase);
			if (p && !c->reaped && c->limit_ms &&
			    now - p > c->limit_ms && c->fd >= 0) {
				shutdown(c->fd, SHUT_RDWR);
				c->reaped = 1;
				cut += c->verdict == LIMITS_CONN_OK;
			}
		}
		if (cut) {
			atomic_fetch_add(&g->reaped, cut);
			log_msg(LOG_INFO,
				"closed %llu connection%s that had not sent a "
				"whole request within %llu s (--request-timeout)",
				(unsigned long long)cut, cut == 1 ? "" : "s",
				(unsigned long long)g->cfg->request_timeout);
		}
	}
	pthread_mutex_unlock(&g->lock);
	return NULL;
}

static struct guard_conn *conn_of(struct MHD_Connection *con)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(con, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return ci ? ci->socket_context : NULL;
}

void guard_request_answering(struct MHD_Connection *con)
{
	struct guard_conn *gc = conn_of(con);
	if (gc)
		atomic_store(&gc->phase, 0);
}

void guard_request_done(struct MHD_Connection *con, struct guard *g)
{
	struct guard_conn *gc = conn_of(con);
	if (gc == NULL)
		return;
	atomic_store(&gc->phase, mono_ms());
	if (!gc->idle) {
		gc->idle = 1;
		atomic_fetch_add(&g->idle, 1);
	}
}

void guard_request_begin(struct MHD_Connection *con, struct guard *g)
{
	struct guard_conn *gc = conn_of(con);
	if (gc && gc->idle) {
		gc->idle = 0;
		atomic_fetch_sub(&g->idle, 1);
	}
}

uint64_t guard_busy(const struct guard *g)
{
	if (g == NULL)
		return 0;
	/* open first: a connection closing in between is then counted
	 * busy (a longer wait), never one that is busy counted idle */
	uint64_t open = atomic_load(&g->open);
	uint64_t idle = atomic_load(&g->idle);
	return open > idle ? open - idle : 0;
}

uint64_t guard_started(const struct guard *g)
{
	return g ? atomic_load(&g->started) : 0;
}

uint64_t guard_reaped(const struct guard *g)
{
	return g ? atomic_load(&g->reaped) : 0;
}

uint64_t guard_connections(const struct guard *g)
{
	return g ? atomic_load(&g->open) : 0;
}

/* Headroom above a configured connection limit before MHD itself closes
 * connections without a reply. */
static uint64_t headroom(uint64_t limit)
{
	uint64_t h = limit / 8;
	return h < 16 ? 16 : h;
}

unsigned guard_mhd_connection_limit(const struct config *cfg)
{
	uint64_t n = cfg->max_connections + headroom(cfg->max_connections);
	return n > 1000000 ? 1000000 : (unsigned)n;
}

unsigned guard_mhd_per_ip_limit(const struct config *cfg)
{
	uint64_t k = cfg->max_connections_per_ip;
	if (k == 0)
		return 0;
	k += headroom(k);
	return k > 1000000 ? 1000000 : (unsigned)k;
}

size_t guard_mhd_memory_limit(const struct config *cfg)
{
	uint64_t m = 2 * cfg->max_header + 16384;
	return m < 32768 ? 32768 : (size_t)m;
}

/* A bucket that holds amount and refills it evenly over window seconds. */
static struct limits *window_bucket(uint64_t amount, uint64_t window)
{
	struct limits_config c = {
		.rate = (double)amount / (double)window,
		.burst = (double)amount,
	};
	return limits_new(&c);
}

struct guard *guard_new(const struct config *cfg)
{
	struct guard *g = calloc(1, sizeof *g);
	if (g == NULL)
		return NULL;
	g->cfg = cfg;
	struct limits_config lc = {
		.rate = (double)cfg->rate_limit,
		.burst = (double)cfg->rate_burst,
		.max_conns = cfg->max_connections,
		.max_conns_ip = cfg->max_connections_per_ip,
	};
	g->limits = limits_new(&lc);
	if (g->limits == NULL) {
		free(g);
		return NULL;
	}
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->wake, NULL);
	/* the quotas use the rate limit's buckets: a window's quota (sessions,
	 * or stored bytes) is the bucket, refilled evenly over the window */
	if ((cfg->session_quota &&
	     !(g->quota = window_bucket(cfg->session_quota,
					cfg->quota_window))) ||
	    (cfg->storage_quota &&
	     !(g->stored = window_bucket(cfg->storage_quota,
					 cfg->quota_window)))) {
		guard_free(g);
		return NULL;
	}
	/* always: connections past an address's share are cut after
	 * GUARD_REFUSED_MS even without --request-timeout */
	if (pthread_create(&g->reaper, NULL, reaper_main, g) != 0) {
		guard_free(g);
		return NULL;
	}
	g->reaper_started = 1;
	char why[160]; /* config_load checked the list */
	int n = limits_parse_cidrs(cfg->trusted_proxy, g->proxies,
				   LIMITS_MAX_CIDRS, why, sizeof why);
	g->nproxies = n > 0 ? n : 0;
	/* the listening socket, the database, the log and the solver's
	 * files need a few descriptors beyond the connections */
	uint64_t need = (uint64_t)guard_mhd_connection_limit(cfg) + 64;
	uint64_t have = limits_raise_nofile();
	if (have && have < need)
		log_msg(LOG_WARN,
			"the open-file limit is %llu, below "
			"the %llu that --max-connections %llu needs; raise "
			"it (ulimit -n) or lower --max-connections",
			(unsigned long long)have, (unsigned long long)need,
			(unsigned long long)cfg->max_connections);
	return g;
}

void guard_free(struct guard *g)
{
	if (g == NULL)
		return;
	if (g->reaper_started) {
		pthread_mutex_lock(&g->lock);
		g->stop = 1;
		pthread_cond_signal(&g->wake);
		pthread_mutex_unlock(&g->lock);
		pthread_join(g->reaper, NULL);
	}
	pthread_cond_destroy(&g->wake);
	pthread_mutex_destroy(&g->lock);
	limits_free(g->quota);
	limits_free(g->stored);
	limits_free(g->limits);
	free(g);
}

static void client_key(struct MHD_Connection *con, struct limits_key *key)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(con, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	limits_key_of(ci ? ci->client_addr : NULL, key);
}

/* ---- fairness between addresses ---------------------------------------- */

static int is_proxy(void *cls, const struct limits_key *key)
{
	const struct guard *g = cls;
	return limits_cidr_match(g->proxies, g->nproxies, key);
}

/* An address's share of --max-connections: the limit split between the
 * addresses that have connections open (this one included), at least
 * GUARD_MIN_SHARE, at most --max-connections-per-ip. */
static uint64_t conn_share(const struct guard *g, uint64_t addrs)
{
	const struct config *cfg = g->cfg;
	uint64_t share = cfg->max_connections / (addrs ? addrs : 1);
	if (share < GUARD_MIN_SHARE)
		share = GUARD_MIN_SHARE;
	if (cfg->max_connections_per_ip && share > cfg->max_connections_per_ip)
		share = cfg->max_connections_per_ip;
	return share;
}

/* Close the newest connection of the heaviest address that holds more
 * than its share and is not being answered (it waits for a request: an
 * idle keep-alive one, or one trickling its head or body). 1 if one was
 * closed. The caller holds g->lock. */
static int evict(struct guard *g, uint64_t share)
{
	struct limits_key heavy;
	uint64_t open;
	if (!limits_conn_heaviest(g->limits, is_proxy, g, &heavy, &open) ||
	    open <= share)
		return 0;
	struct guard_conn *victim = NULL;
	for (struct guard_conn *c = g->conns; c; c = c->next) {
		if (c->reaped || c->fd < 0 || atomic_load(&c->phase) == 0 ||
		    c->key.family != heavy.family ||
		    memcmp(c->key.addr, heavy.addr, 16) != 0)
			continue;
		/* one already refused goes first; else the newest */
		if (victim == NULL || c->verdict != LIMITS_CONN_OK) {
			victim = c;
			if (c->verdict != LIMITS_CONN_OK)
				break;
		}
	}
	if (victim == NULL)
		return 0;
	shutdown(victim->fd, SHUT_RDWR);
	victim->reaped = 1;
	atomic_fetch_add(&g->evicted, 1);
	return 1;
}

/* The verdict on a new connection from gc's address once shares are
 * counted: an address past its share is refused (the heaviest one, so
 * never the one that needs room); one within it is let in even when the
 * total is reached, by closing a connection of the heaviest address
 * above its share. The caller holds g->lock. */
static enum limits_conn fair_share(struct guard *g, struct guard_conn *gc)
{
	if (g->cfg->max_connections == 0)
		return gc->verdict;
	struct limits_view v;
	limits_view(g->limits, &gc->key, &v);
	uint64_t share = conn_share(g, v.addrs);
	if (v.from_key > share) {
		atomic_fetch_add(&g->share_refused, 1);
		gc->past_share = gc->verdict != LIMITS_CONN_PER_IP;
		return LIMITS_CONN_PER_IP;
	}
	if (gc->verdict == LIMITS_CONN_TOTAL && evict(g, share))
		return LIMITS_CONN_OK;
	return gc->verdict;
}

void guard_on_connection(void *cls, struct MHD_Connection *con,
			 void **socket_context,
			 enum MHD_ConnectionNotificationCode code)
{
	struct guard *g = cls;
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		/* counted whether or not it gets a socket context: MHD
		 * tells of its close either way */
		atomic_fetch_add(&g->open, 1);
		atomic_fetch_add(&g->started, 1);
		struct guard_conn *gc = calloc(1, sizeof *gc);
		if (gc == NULL)
			return; /* uncounted, and not refused: see guard_check */
		client_key(con, &gc->key);
		gc->verdict = limits_conn_open(g->limits, &gc->key);
		const union MHD_ConnectionInfo *fi = MHD_get_connection_info(
			con, MHD_CONNECTION_INFO_CONNECTION_FD);
		gc->fd = fi ? fi->connect_fd : -1;
		gc->limit_ms = (int64_t)g->cfg->request_timeout * 1000;
		atomic_store(&gc->phase, mono_ms());
		/* a trusted proxy carries many clients' connections: only
		 * the total limit applies to it */
		gc->proxy = limits_cidr_match(g->proxies, g->nproxies,
					      &gc->key);
		if (gc->proxy && gc->verdict == LIMITS_CONN_PER_IP)
			gc->verdict = LIMITS_CONN_OK;
		pthread_mutex_lock(&g->lock);
		if (!gc->proxy)
			gc->verdict = fair_share(g, gc);
		/* refused: answered 503 when its request comes, and cut soon
		 * if none does, so that refused connections hold no slot */
		if (gc->verdict != LIMITS_CONN_OK &&
		    (gc->limit_ms == 0 || gc->limit_ms > GUARD_REFUSED_MS))
			gc->limit_ms = GUARD_REFUSED_MS;
		/* past its address's share while the total is reached: cut
		 * at once. Its address reopens what is closed; left for
		 * GUARD_REFUSED_MS, such connections would fill
		 * libmicrohttpd's headroom above the limit, and a newcomer
		 * within its share would be dropped before we see it. */
		if (gc->verdict == LIMITS_CONN_PER_IP && gc->fd >= 0 &&
		    g->cfg->max_connections &&
		    atomic_load(&g->open) >= g->cfg->max_connections) {
			shutdown(gc->fd, SHUT_RDWR);
			gc->reaped = 1;
		}
		gc->next = g->conns;
		if (g->conns)
			g->conns->prev = gc;
		g->conns = gc;
		pthread_mutex_unlock(&g->lock);
		*socket_context = gc;
	} else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		struct guard_conn *gc = *socket_context;
		/* idle before open: guard_busy never sees more idle than
		 * open */
		if (gc && gc->idle)
			atomic_fetch_sub(&g->idle, 1);
		atomic_fetch_sub(&g->open, 1);
		if (gc == NULL)
			return;
		pthread_mutex_lock(&g->lock);
		if (gc->prev)
			gc->prev->next = gc->next;
		else
			g->conns = gc->next;
		if (gc->next)
			gc->next->prev = gc->prev;
		pthread_mutex_unlock(&g->lock);
		limits_conn_close(g->limits, &gc->key);
		free(gc);
		*socket_context = NULL;
	}
}

struct head_size {
	size_t bytes;
	int content_length, transfer_encoding, host; /* how many of each */
	int bad_name;  /* a name with white space or nothing in it */
	int bad_value; /* a value with NUL, CR or LF in it */
};

/* libmicrohttpd 0.9.75 reads a header line as a C string, so a NUL in a
 * value ends the value there and the rest is dropped unseen. Its values
 * stay where they were read, each line's CR LF overwritten with two NULs:
 * a value that ends in one NUL followed by something else was cut short
 * by a NUL of the client's (or its line ended in a bare LF, or was
 * folded: both obsolete forms RFC 9112 lets a server refuse). */
static int nul_inside(const char *value, size_t size)
{
	return value[size] == '\0' && value[size + 1] != '\0';
}

/* A header name is a token (RFC 9110 section 5.1): libmicrohttpd 0.9.75
 * keeps white space before the colon as part of the name, so
 * "Transfer-Encoding : chunked" would reach us as another header than
 * the one a proxy in front may have read. A value never holds NUL, CR or
 * LF (section 5.5); libmicrohttpd passes NUL and a bare CR on. */
static enum MHD_Result add_header_size(void *cls, enum MHD_ValueKind kind,
				       const char *key, size_t key_size,
				       const char *value, size_t value_size)
{
	(void)kind;
	struct head_size *hs = cls;
	/* "Name: value\r\n" */
	hs->bytes += key_size + 2 + value_size + 2;
	if (key_size == 0 || strcspn(key, " \t\r\n") != key_size ||
	    strlen(key) != key_size)
		hs->bad_name++;
	if (value && (strlen(value) != value_size ||
		      memchr(value, '\r', value_size) ||
		      memchr(value, '\n', value_size) || nul_inside(value, value_size)))
		hs->bad_value++;
	if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0)
		hs->content_length++;
	else if (strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0)
		hs->transfer_encoding++;
	else if (strcasecmp(key, MHD_HTTP_HEADER_HOST) == 0)
		hs->host++;
	return MHD_YES;
}

struct xff {
	char buf[1024];
	size_t len;
	int overflow;
};

static enum MHD_Result add_xff(void *cls, enum MHD_ValueKind kind,
			       const char *key, const char *value)
{
	(void)kind;
	struct xff *x = cls;
	if (strcasecmp(key, "X-Forwarded-For") != 0 || !value)
		return MHD_YES;
	size_t n = strlen(value);
	if (x->len + n + 2 > sizeof x->buf) {
		x->overflow = 1;
		return MHD_NO;
	}
	if (x->len)
		x->buf[x->len++] = ',';
	memcpy(x->buf + x->len, value, n);
	x->len += n;
	x->buf[x->len] = '\0';
	return MHD_YES;
}

/* The peer is a trusted proxy: the client it names (every
 * X-Forwarded-For line, joined as one list) replaces it in *key. A
 * header too long to read keeps the proxy's key. */
static void forwarded_key(const struct guard *g, struct MHD_Connection *con,
			  struct limits_key *key)
{
	struct xff x = {.len = 0};
	x.buf[0] = '\0';
	MHD_get_connection_values(con, MHD_HEADER_KIND, add_xff, &x);
	struct limits_key client;
	if (!x.overflow &&
	    limits_forwarded_key(x.buf, g->proxies, g->nproxies, &client))
		*key = client;
}

/* The routes a monitor polls: never rate limited. */
static int is_ops_path(const char *url)
{
	return strcmp(url, "/healthz") == 0 || strcmp(url, "/readyz") == 0 ||
	       strcmp(url, "/metrics") == 0;
}

/* POST /v1/sessions and POST /v1/sessions/{id}/fork make a session. */
static int creates_session(const char *url)
{
	static const char base[] = "/v1/sessions";
	if (strncmp(url, base, sizeof base - 1) != 0)
		return 0;
	const char *rest = url + sizeof base - 1;
	if (*rest == '\0' || strcmp(rest, "/") == 0)
		return 1;
	size_t n = strlen(rest);
	return n > 5 && strcmp(rest + n - 5, "/fork") == 0;
}

/* A POST that stores bytes for its client: under /v1/sessions (creating,
 * forking, moves, undo, redo, reset, a stored solve, a token), but a
 * stream ticket, which is kept in memory only. */
static int stores_bytes(const char *url)
{
	static const char base[] = "/v1/sessions";
	if (strncmp(url, base, sizeof base - 1) != 0)
		return 0;
	const char *rest = url + sizeof base - 1;
	if (*rest != '\0' && *rest != '/')
		return 0;
	size_t n = strlen(rest);
	return !(n >= 8 && strcmp(rest + n - 8, "/tickets") == 0);
}

/* The client a request counts against: the peer, or behind a trusted
 * proxy the client it names. */
static void request_key(const struct guard *g, struct MHD_Connection *con,
			const struct guard_conn *gc, struct limits_key *key)
{
	if (gc)
		*key = gc->key;
	else
		client_key(con, key);
	if (g->nproxies && limits_cidr_match(g->proxies, g->nproxies, key))
		forwarded_key(g, con, key);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

enum guard_refusal guard_check(struct guard *g, struct MHD_Connection *con,
			       const char *method, const char *url,
			       const char *version, size_t uri_len,
			       size_t nparams, unsigned *retry_after)
{
	*retry_after = 0;
	if (g == NULL)
		return GUARD_OK;
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(con, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	const struct guard_conn *gc = ci ? ci->socket_context : NULL;
	if (gc && gc->verdict != LIMITS_CONN_OK) {
		*retry_after = 1;
		return gc->verdict == LIMITS_CONN_TOTAL ? GUARD_CONN_TOTAL
		       : gc->past_share                 ? GUARD_CONN_SHARE
							: GUARD_CONN_PER_IP;
	}

	/* "METHOD URI HTTP/1.1\r\n" + headers + "\r\n" */
	struct head_size hs = {.bytes = strlen(method) + 1 + uri_len + 11};
	MHD_get_connection_values_n(con, MHD_HEADER_KIND, add_header_size,
				    &hs);
	hs.bytes += 2;
	if (hs.bytes > g->cfg->max_header)
		return GUARD_HEADERS;
	if (nparams > GUARD_MAX_PARAMS)
		return GUARD_PARAMS;
	if (hs.bad_name || hs.bad_value)
		return GUARD_BAD_HEADER;
	if (hs.content_length > 1 ||
	    (hs.content_length && hs.transfer_encoding))
		return GUARD_FRAMING;
	/* RFC 9112 section 3.2: an HTTP/1.1 request names its host once */
	if (hs.host > 1 ||
	    (hs.host == 0 && version && strcmp(version, "HTTP/1.0") != 0))
		return GUARD_HOST;

	if (g->quota && strcmp(method, "POST") == 0 && creates_session(url)) {
		struct limits_key key;
		if (gc)
			key = gc->key;
		else
			client_key(con, &key);
		unsigned wait = limits_rate_take(g->quota, &key, now_s());
		if (wait) {
			*retry_after = wait;
			return GUARD_QUOTA;
		}
	}
	if (g->stored && strcmp(method, "POST") == 0 && stores_bytes(url)) {
		struct limits_key key;
		request_key(g, con, gc, &key);
		unsigned wait = limits_amount_check(g->stored, &key, now_s());
		if (wait) {
			*retry_after = wait;
			return GUARD_STORED_QUOTA;
		}
	}
	if (g->cfg->rate_limit && !is_ops_path(url)) {
		struct limits_key key;
		request_key(g, con, gc, &key);
		unsigned wait = limits_rate_take(g->limits, &key, now_s());
		if (wait) {
			*retry_after = wait;
			return GUARD_RATE;
		}
	}
	return GUARD_OK;
}

void guard_refusal_reply(const struct guard *g, enum guard_refusal r,
			 unsigned retry_after, struct api_reply *rp)
{
	const struct config *cfg = g->cfg;
	json_t *p = NULL;
	unsigned long long limit = 0;
	switch (r) {
	case GUARD_OK:
		return;
	case GUARD_CONN_TOTAL:
		limit = cfg->max_connections;
		p = problem_reply(rp, PROBLEM_TOO_MANY_CONNECTIONS,
				  "the server has %llu connections open, its "
				  "limit; try again shortly",
				  limit);
		break;
	case GUARD_CONN_PER_IP:
		limit = cfg->max_connections_per_ip;
		p = problem_reply(rp, PROBLEM_TOO_MANY_CONNECTIONS,
				  "your address has %llu connections open, the "
				  "server's limit per address; reuse them or "
				  "close some",
				  limit);
		break;
	case GUARD_CONN_SHARE: {
		struct limits_view v;
		limits_view(g->limits, NULL, &v);
		limit = conn_share(g, v.addrs);
		p = problem_reply(rp, PROBLEM_TOO_MANY_CONNECTIONS,
				  "your address has more than its share (%llu) "
				  "of the server's %llu connections, split "
				  "between the %llu addresses connected; reuse "
				  "them or close some",
				  limit,
				  (unsigned long long)cfg->max_connections,
				  (unsigned long long)v.addrs);
		break;
	}
	case GUARD_RATE:
		limit = cfg->rate_limit;
		p = problem_reply(rp, PROBLEM_TOO_MANY_REQUESTS,
				  "more than %llu requests per second (%llu at "
				  "once) from your address; try again in %u s",
				  limit, (unsigned long long)cfg->rate_burst,
				  retry_after);
		break;
	case GUARD_HEADERS:
		limit = cfg->max_header;
		p = problem_reply(rp, PROBLEM_HEADERS_TOO_LARGE,
				  "the request line and headers are larger "
				  "than %llu bytes, the server's limit",
				  limit);
		break;
	case GUARD_QUOTA:
		limit = cfg->session_quota;
		p = problem_reply(rp, PROBLEM_SESSION_QUOTA,
				  "your address created %llu sessions within "
				  "%llu s, the server's limit; try again in %u s",
				  limit, (unsigned long long)cfg->quota_window,
				  retry_after);
		break;
	case GUARD_STORED_QUOTA:
		limit = cfg->storage_quota;
		p = problem_reply(rp, PROBLEM_STORAGE_QUOTA,
				  "your address stored %llu bytes within %llu s, "
				  "the server's limit; try again in %u s",
				  limit, (unsigned long long)cfg->quota_window,
				  retry_after);
		break;
	case GUARD_REPLY_MEMORY:
		limit = cfg->reply_memory;
		p = problem_reply(rp, PROBLEM_REPLY_MEMORY,
				  "the server holds %llu bytes of replies that "
				  "clients have not read yet, its limit; try "
				  "again in %u s",
				  limit, retry_after);
		break;
	case GUARD_PARAMS:
		limit = GUARD_MAX_PARAMS;
		p = problem_reply(rp, PROBLEM_TOO_MANY_PARAMETERS,
				  "the query has more than %llu parameters, "
				  "the server's limit",
				  limit);
		break;
	case GUARD_BAD_HEADER:
		problem_reply(rp, PROBLEM_BAD_HEADER,
			      "a header's name has white space in it (none "
			      "may stand before the colon), or its value holds "
			      "NUL, CR or LF");
		break;
	case GUARD_HOST:
		problem_reply(rp, PROBLEM_BAD_HOST,
			      "an HTTP/1.1 request names its host in exactly "
			      "one Host header");
		break;
	case GUARD_FRAMING:
		problem_reply(rp, PROBLEM_AMBIGUOUS_LENGTH,
			      "the request gives its body length twice "
			      "(Content-Length more than once, or with "
			      "Transfer-Encoding); send one");
		break;
	}
	if (p)
		json_object_set_new(p, "limit", json_integer((json_int_t)limit));
	if (retry_after)
		api_reply_header(rp, "Retry-After", "%u", retry_after);
	/* a connection past the limits is not kept for another request, nor
	 * one whose next request would start where MHD guessed this body
	 * ended */
	if (r == GUARD_CONN_TOTAL || r == GUARD_CONN_PER_IP ||
	    r == GUARD_CONN_SHARE || r == GUARD_FRAMING || r == GUARD_BAD_HEADER || r == GUARD_HOST ||
	    r == GUARD_PARAMS)
		api_reply_header(rp, "Connection", "close");
}

void guard_stored(struct guard *g, struct MHD_Connection *con,
		  uint64_t bytes)
{
	if (g == NULL || g->stored == NULL || bytes == 0)
		return;
	struct limits_key key;
	request_key(g, con, conn_of(con), &key);
	limits_amount_charge(g->stored, &key, now_s(), (double)bytes);
}

/* ---- reply memory ---------------------------------------------------------- */

int guard_reply_take(struct guard *g, uint64_t bytes, int refusable)
{
	if (g == NULL || bytes == 0)
		return 1;
	uint64_t budget = g->cfg->reply_memory;
	uint64_t before = atomic_fetch_add(&g->reply_held, bytes);
	/* a small reply always goes (what /healthz and every problem need;
	 * the connection limits bound them), and so does a big one when
	 * nothing else is held, so that no reply is refused for good */
	if (!refusable || budget == 0 || bytes < GUARD_REPLY_SMALL ||
	    before == 0 || before + bytes <= budget)
		return 1;
	atomic_fetch_sub(&g->reply_held, bytes);
	return 0;
}

void guard_reply_give(struct guard *g, uint64_t bytes)
{
	if (g && bytes)
		atomic_fetch_sub(&g->reply_held, bytes);
}

void guard_fairness(const struct guard *g, struct guard_fairness *out)
{
	memset(out, 0, sizeof *out);
	if (g == NULL)
		return;
	out->evicted = atomic_load(&g->evicted);
	out->share_refused = atomic_load(&g->share_refused);
	struct limits_view v;
	limits_view(g->limits, NULL, &v);
	out->addresses = v.addrs;
}

void guard_security_headers(struct MHD_Response *resp,
			    const struct api_reply *rp)
{
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
	int csp = 0, cache = 0;
	for (int i = 0; i < rp->nheaders; i++) {
		csp |= strcasecmp(rp->headers[i].name,
				  "Content-Security-Policy") == 0;
		cache |= strcasecmp(rp->headers[i].name, "Cache-Control") == 0;
	}
	/* nothing cubed sends but the web page (static.c, with a policy of
	 * its own) is a page: whatever a browser renders from it may load,
	 * run and frame nothing */
	if (!csp)
		MHD_add_response_header(resp, "Content-Security-Policy",
					"default-src 'none'; "
					"frame-ancestors 'none'");
	if (cache)
		return;
	/* errors are never worth keeping; anything else may be kept but is
	 * checked again first (session replies carry ETags for that) */
	MHD_add_response_header(resp, "Cache-Control",
				rp->status >= 400 ? "no-store" : "no-cache");
}
