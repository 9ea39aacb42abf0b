/* idempotency.c — answers kept for Idempotency-Key (see idempotency.h): a
 * hash table of records under one lock, with a list in creation order
 * (the oldest go first when their time is up) and one per client address
 * (a client over its byte budget loses its own oldest answers first, and
 * when the whole table is over budget the heaviest client loses its
 * oldest), so a few addresses sending many keys can never push another
 * client's answers out. A record is its status, content type, headers
 * (packed as "Name: value\n" text) and body: about a hundred bytes plus
 * the body, which for a change the store keeps is not here at all. */
#include "idempotency.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "client_limits.h"
#include "jsonout.h"
#include "problem.h"

struct cl;

struct rec {
	uint8_t scope[32], print[32];
	int64_t created_ms;
	int64_t run_ms;           /* when the request running now began */
	int done;
	/* the answer */
	int status;
	const char *content_type; /* static strings, as in api_reply */
	char *body;
	size_t body_len;
	char *heads;              /* "Name: value\n"…, or NULL */
	size_t bytes;             /* what this record holds, counted */
	struct cl *cl;
	struct rec *hnext;        /* hash chain */
	struct rec *older, *newer;   /* every record, by age */
	struct rec *c_older, *c_newer; /* the client's, by age */
};

/* One client address's records. */
struct cl {
	struct limits_key key;
	size_t bytes, count;
	int pinned;               /* kept while empty: a record is coming */
	struct rec *oldest, *newest;
	struct cl *next;
};

#define CLIENT_BUCKETS 1024

struct idem {
	pthread_mutex_t lock;
	struct idem_config cfg;
	struct rec **buckets;
	size_t nbuckets, count, bytes;
	uint64_t evicted;
	struct rec *oldest, *newest;
	struct cl *clients[CLIENT_BUCKETS];
};

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The reply's static strings for names read back from a packed record
 * (api_reply keeps pointers to static strings). */
static const char *const header_names[] = {
	"ETag", "Location", "Retry-After", "Cache-Control", "Vary",
	"WWW-Authenticate", "Allow", "Content-Encoding", "Content-Location",
	"X-Accel-Buffering", "Idempotent-Replayed",
};

static const char *intern(const char *s, size_t len)
{
	size_t n = sizeof header_names / sizeof header_names[0];
	for (size_t i = 0; i < n; i++)
		if (strlen(header_names[i]) == len &&
		    strncmp(header_names[i], s, len) == 0)
			return header_names[i];
	return NULL;
}

/* rp's headers as "Name: value\n" text (malloc'd, *len its length), NULL
 * when it has none (or memory ran out: *len is then (size_t)-1). */
static char *pack_headers(const struct api_reply *rp, size_t *len)
{
	*len = 0;
	if (rp->nheaders == 0)
		return NULL;
	size_t cap = 1;
	for (int i = 0; i < rp->nheaders; i++)
		cap += strlen(rp->headers[i].name) +
		       strlen(rp->headers[i].value) + 3;
	char *out = malloc(cap);
	if (!out) {
		*len = (size_t)-1;
		return NULL;
	}
	size_t k = 0;
	for (int i = 0; i < rp->nheaders; i++)
		k += (size_t)snprintf(out + k, cap - k, "%s: %s\n",
				      rp->headers[i].name,
				      rp->headers[i].value);
	*len = k;
	return out;
}

static void unpack_headers(const char *p, struct api_reply *rp)
{
	rp->nheaders = 0;
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		const char *colon = memchr(p, ':', len);
		if (colon && colon + 2 <= p + len &&
		    rp->nheaders < API_MAX_HEADERS) {
			const char *name = intern(p, (size_t)(colon - p));
			size_t vlen = len - (size_t)(colon + 2 - p);
			if (name && vlen < API_HEADER_VALUE_MAX) {
				struct api_header *h = &rp->headers[rp->nheaders++];
				h->name = name;
				memcpy(h->value, colon + 2, vlen);
				h->value[vlen] = '\0';
			}
		}
		p = nl ? nl + 1 : p + len;
	}
}

struct idem *idem_new(const struct idem_config *cfg)
{
	struct idem *im = calloc(1, sizeof *im);
	if (!im)
		return NULL;
	im->cfg = *cfg;
	if (!im->cfg.max)
		im->cfg.max = 1;
	if (im->cfg.lease_ms <= 0 || im->cfg.lease_ms > im->cfg.ttl_ms)
		im->cfg.lease_ms = im->cfg.ttl_ms;
	im->nbuckets = im->cfg.max * 2 + 1;
	im->buckets = calloc(im->nbuckets, sizeof *im->buckets);
	if (!im->buckets) {
		free(im);
		return NULL;
	}
	pthread_mutex_init(&im->lock, NULL);
	return im;
}

static size_t bucket(const struct idem *im, const uint8_t scope[32])
{
	uint64_t h;
	memcpy(&h, scope, sizeof h); /* a SHA-256: any 8 bytes are uniform */
	return (size_t)(h % im->nbuckets);
}

static struct rec **slot(struct idem *im, const uint8_t scope[32])
{
	struct rec **p = &im->buckets[bucket(im, scope)];
	while (*p && memcmp((*p)->scope, scope, 32) != 0)
		p = &(*p)->hnext;
	return p;
}

static struct cl **client_slot(struct idem *im, const struct limits_key *k)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	h = (h ^ k->family) * 16777619u;
	for (int i = 0; i < 16; i++)
		h = (h ^ k->addr[i]) * 16777619u;
	struct cl **p = &im->clients[h % CLIENT_BUCKETS];
	while (*p && ((*p)->key.family != k->family ||
		      memcmp((*p)->key.addr, k->addr, 16) != 0))
		p = &(*p)->next;
	return p;
}

/* Unlink r from the table and the age lists, and free it. */
static void drop(struct idem *im, struct rec *r)
{
	struct rec **p = slot(im, r->scope);
	if (*p == r)
		*p = r->hnext;
	if (r->older)
		r->older->newer = r->newer;
	else
		im->oldest = r->newer;
	if (r->newer)
		r->newer->older = r->older;
	else
		im->newest = r->older;
	struct cl *c = r->cl;
	if (r->c_older)
		r->c_older->c_newer = r->c_newer;
	else
		c->oldest = r->c_newer;
	if (r->c_newer)
		r->c_newer->c_older = r->c_older;
	else
		c->newest = r->c_older;
	c->bytes -= r->bytes;
	c->count--;
	im->bytes -= r->bytes;
	im->count--;
	if (c->count == 0 && !c->pinned) {
		struct cl **cp = client_slot(im, &c->key);
		if (*cp == c)
			*cp = c->next;
		free(c);
	}
	free(r->body);
	free(r->heads);
	free(r);
}

/* Drop expired records. A request still running a whole TTL after it
 * began is one whose answer never came back: forgotten too. */
static void expire(struct idem *im, int64_t now)
{
	while (im->oldest && now - im->oldest->created_ms >= im->cfg.ttl_ms)
		drop(im, im->oldest);
}

/* c's oldest record with an answer (one still running is not dropped: its
 * request will finish or let it go), or NULL. */
static struct rec *oldest_done(struct cl *c)
{
	for (struct rec *r = c->oldest; r; r = r->c_newer)
		if (r->done)
			return r;
	return NULL;
}

/* Room for need more bytes of client c's (and `more` records): its own
 * oldest answers go first, then (the table over its byte budget or count)
 * the heaviest client's. 0, or -1 when only running requests are left to
 * drop. c is pinned by the caller, so it stays even if it empties. */
static int make_room(struct idem *im, struct cl *c, size_t need,
		     size_t more)
{
	while (im->cfg.client_bytes && c->bytes + need > im->cfg.client_bytes) {
		struct rec *r = oldest_done(c);
		if (!r)
			return -1;
		drop(im, r);
		im->evicted++;
	}
	while ((im->cfg.max_bytes && im->bytes + need > im->cfg.max_bytes) ||
	       im->count + more > im->cfg.max) {
		struct cl *heavy = NULL;
		struct rec *victim = NULL;
		for (int b = 0; b < CLIENT_BUCKETS; b++)
			for (struct cl *k = im->clients[b]; k; k = k->next) {
				struct rec *r;
				if ((!heavy || k->bytes > heavy->bytes) &&
				    (r = oldest_done(k))) {
					heavy = k;
					victim = r;
				}
			}
		if (!victim)
			return -1;
		drop(im, victim);
		im->evicted++;
	}
	return 0;
}

static void unpin(struct idem *im, struct cl *c)
{
	c->pinned = 0;
	if (c->count == 0) {
		struct cl **cp = client_slot(im, &c->key);
		if (*cp == c)
			*cp = c->next;
		free(c);
	}
}

/* The record of client key, made for a new request (lock held). */
static enum idem_result add(struct idem *im, const uint8_t scope[32],
			    const uint8_t print[32],
			    const struct limits_key *key, int64_t now)
{
	struct cl **cp = client_slot(im, key);
	struct cl *c = *cp;
	if (!c) {
		c = calloc(1, sizeof *c);
		if (!c)
			return IDEM_NOMEM;
		c->key = *key;
		c->next = *cp;
		*cp = c;
	}
	c->pinned = 1;
	size_t need = sizeof(struct rec);
	struct rec *r = NULL;
	enum idem_result res = IDEM_NEW;
	if (make_room(im, c, need, 1) < 0)
		res = IDEM_BUDGET;
	else if (!(r = calloc(1, sizeof *r)))
		res = IDEM_NOMEM;
	if (res != IDEM_NEW) {
		unpin(im, c);
		return res;
	}
	memcpy(r->scope, scope, 32);
	memcpy(r->print, print, 32);
	r->created_ms = r->run_ms = now;
	r->bytes = need;
	r->cl = c;
	struct rec **p = slot(im, scope);
	*p = r;
	r->older = im->newest;
	if (im->newest)
		im->newest->newer = r;
	else
		im->oldest = r;
	im->newest = r;
	r->c_older = c->newest;
	if (c->newest)
		c->newest->c_newer = r;
	else
		c->oldest = r;
	c->newest = r;
	c->bytes += need;
	c->count++;
	im->bytes += need;
	im->count++;
	unpin(im, c);
	return IDEM_NEW;
}

enum idem_result idem_begin(struct idem *im, const uint8_t scope[32],
			    const uint8_t print[32],
			    const struct limits_key *client,
			    struct api_reply *rp)
{
	static const struct limits_key anon = {0};
	int64_t now = now_ms();
	pthread_mutex_lock(&im->lock);
	expire(im, now);
	struct rec *r = *slot(im, scope);
	enum idem_result res;
	if (r && memcmp(r->print, print, 32) != 0) {
		res = IDEM_MISMATCH;
	} else if (r && !r->done) {
		/* past its lease a running request no longer holds the key
		 * here: the retry runs (a change still happens once: the
		 * store's claim decides) */
		if (now - r->run_ms < im->cfg.lease_ms) {
			res = IDEM_IN_FLIGHT;
		} else {
			r->run_ms = now;
			res = IDEM_NEW;
		}
	} else if (r) {
		char *copy = malloc(r->body_len ? r->body_len : 1);
		if (!copy) {
			res = IDEM_NOMEM;
		} else {
			memcpy(copy, r->body, r->body_len);
			rp->status = r->status;
			rp->content_type = r->content_type;
			rp->owned = copy;
			rp->raw = copy;
			rp->raw_len = r->body_len;
			unpack_headers(r->heads, rp);
			res = IDEM_REPLAY;
		}
	} else {
		res = add(im, scope, print, client ? client : &anon, now);
	}
	pthread_mutex_unlock(&im->lock);
	return res;
}

void idem_record(struct idem *im, const uint8_t scope[32],
		 const struct api_reply *rp)
{
	char *body = NULL;
	size_t len = 0, hlen = 0;
	int failed = 0;
	if (rp->json) {
		body = jsonout_dump(rp->json, &len);
		failed = body == NULL;
	} else if (rp->raw) {
		body = malloc(rp->raw_len ? rp->raw_len : 1);
		if (body)
			memcpy(body, rp->raw, rp->raw_len);
		len = rp->raw_len;
		failed = body == NULL;
	}
	char *heads = pack_headers(rp, &hlen);
	failed |= hlen == (size_t)-1;
	pthread_mutex_lock(&im->lock);
	struct rec *r = *slot(im, scope);
	if (r && !r->done) {
		size_t more = len + hlen;
		struct cl *c = r->cl;
		c->pinned = 1;
		/* an answer bigger than a client's whole share, or no room
		 * but for running requests: not kept (a retry runs again) */
		if (failed ||
		    (im->cfg.client_bytes &&
		     r->bytes + more > im->cfg.client_bytes) ||
		    make_room(im, c, more, 0) < 0) {
			drop(im, r);
		} else {
			r->done = 1;
			r->status = rp->status;
			r->content_type = rp->content_type;
			r->body = body;
			r->body_len = len;
			r->heads = heads;
			r->bytes += more;
			c->bytes += more;
			im->bytes += more;
			body = heads = NULL;
		}
		unpin(im, c);
	}
	pthread_mutex_unlock(&im->lock);
	free(body);
	free(heads);
}

void idem_release(struct idem *im, const uint8_t scope[32])
{
	pthread_mutex_lock(&im->lock);
	struct rec *r = *slot(im, scope);
	if (r && !r->done)
		drop(im, r);
	pthread_mutex_unlock(&im->lock);
}

size_t idem_count(struct idem *im)
{
	pthread_mutex_lock(&im->lock);
	size_t n = im->count;
	pthread_mutex_unlock(&im->lock);
	return n;
}

size_t idem_bytes(struct idem *im)
{
	pthread_mutex_lock(&im->lock);
	size_t n = im->bytes;
	pthread_mutex_unlock(&im->lock);
	return n;
}

size_t idem_client_budget(const struct idem *im)
{
	return im->cfg.client_bytes;
}

uint64_t idem_evicted(struct idem *im)
{
	pthread_mutex_lock(&im->lock);
	uint64_t n = im->evicted;
	pthread_mutex_unlock(&im->lock);
	return n;
}

void idem_free(struct idem *im)
{
	if (!im)
		return;
	while (im->oldest)
		drop(im, im->oldest);
	free(im->buckets);
	pthread_mutex_destroy(&im->lock);
	free(im);
}
