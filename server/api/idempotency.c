/* idempotency.c — kept answers for Idempotency-Key (see idempotency.h): a
 * hash table of records under one lock, with a list in creation order so
 * the oldest go first when the table is full or their time is up. With a
 * store that shares records (PostgreSQL), a key unknown here is claimed in
 * the database before the request runs, and a key another node claimed is
 * answered from its row: the database decides which node runs it. */
#include "idempotency.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "jsonout.h"
#include "problem.h"
#include "store.h"

struct rec {
	uint8_t scope[32], print[32];
	int64_t created_ms;
	int done;
	/* the answer */
	int status;
	const char *content_type; /* static strings, as in api_reply */
	char *body;
	size_t body_len;
	int nheaders;
	struct api_header headers[API_MAX_HEADERS];
	struct rec *hnext;        /* hash chain */
	struct rec *older, *newer;
};

struct idem {
	pthread_mutex_t lock;
	struct rec **buckets;
	size_t nbuckets, count, max;
	int64_t ttl_ms;
	struct rec *oldest, *newest;
	struct store *store; /* shares records between nodes, or NULL */
};

void idem_share(struct idem *im, struct store *st)
{
	if (im && st && (store_caps(st) & STORE_CAP_IDEM))
		im->store = st;
}

static int64_t wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The reply's static strings for names read back from the database
 * (api_reply keeps pointers to static strings). */
static const char *const content_types[] = {
	"application/json", PROBLEM_CONTENT_TYPE, "application/yaml",
	"text/event-stream", "text/plain; charset=utf-8",
};
static const char *const header_names[] = {
	"ETag", "Location", "Retry-After", "Cache-Control", "Vary",
	"WWW-Authenticate", "Allow", "Content-Encoding", "Content-Location",
	"X-Accel-Buffering", "Idempotent-Replayed",
};

static const char *intern(const char *s, size_t len,
			  const char *const *table, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(table[i]) == len && strncmp(table[i], s, len) == 0)
			return table[i];
	return NULL;
}

/* rp := the answer in a database row. 0, or -1 without memory. */
static int replay_row(const struct store_idem *r, struct api_reply *rp)
{
	char *copy = malloc(r->body_len ? r->body_len : 1);
	if (!copy)
		return -1;
	if (r->body_len)
		memcpy(copy, r->body, r->body_len);
	rp->status = r->status;
	rp->content_type =
		r->content_type
			? intern(r->content_type, strlen(r->content_type),
				 content_types,
				 sizeof content_types / sizeof content_types[0])
			: NULL;
	if (r->content_type && !rp->content_type)
		rp->content_type = "application/json";
	rp->owned = copy;
	rp->raw = copy;
	rp->raw_len = r->body_len;
	rp->nheaders = 0;
	for (const char *p = r->headers; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		const char *colon = memchr(p, ':', len);
		if (colon && rp->nheaders < API_MAX_HEADERS) {
			const char *name = intern(
				p, (size_t)(colon - p), header_names,
				sizeof header_names / sizeof header_names[0]);
			size_t vlen = len - (size_t)(colon + 2 - p);
			if (name && colon + 2 <= p + len &&
			    vlen < API_HEADER_VALUE_MAX) {
				struct api_header *h = &rp->headers[rp->nheaders++];
				h->name = name;
				memcpy(h->value, colon + 2, vlen);
				h->value[vlen] = '\0';
			}
		}
		p = nl ? nl + 1 : p + len;
	}
	return 0;
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct idem *idem_new(size_t max, int64_t ttl_ms)
{
	struct idem *im = calloc(1, sizeof *im);
	if (!im)
		return NULL;
	im->max = max ? max : 1;
	im->ttl_ms = ttl_ms;
	im->nbuckets = im->max * 2 + 1;
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

/* Unlink r from the table and the age list, and free it. */
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
	im->count--;
	free(r->body);
	free(r);
}

/* Drop expired records, and the oldest finished ones past max. Records in
 * flight stay (their requests will finish or abort them). */
static void expire(struct idem *im, int64_t now)
{
	struct rec *r = im->oldest;
	while (r) {
		struct rec *next = r->newer;
		int expired = now - r->created_ms >= im->ttl_ms;
		if (!expired && im->count < im->max)
			break;
		/* a request still running a whole TTL after it began is one
		 * whose answer never came back: forget it too */
		if (r->done || expired)
			drop(im, r);
		r = next;
	}
}

/* Claim scope in the database (lock held: one claim per node at a time
 * keeps the local table and the row in step). 0: this node holds it now
 * (or the database failed: then the key is kept here only, and the write
 * itself will report the failure); 1 with *res when another node does. */
static int shared_claim(struct idem *im, const uint8_t scope[32],
			const uint8_t print[32], int64_t now,
			struct api_reply *rp, enum idem_result *res)
{
	(void)now;
	struct store_idem row = {0};
	int rc = store_idem_claim(im->store, scope, print, wall_ms(),
				  im->ttl_ms, &row);
	if (rc != STORE_CONFLICT) {
		store_idem_free(&row);
		return 0;
	}
	if (memcmp(row.print, print, 32) != 0 && row.status != 0)
		*res = IDEM_MISMATCH;
	else if (row.status == 0)
		*res = IDEM_IN_FLIGHT; /* running, or let go just now */
	else
		*res = replay_row(&row, rp) == 0 ? IDEM_REPLAY : IDEM_NOMEM;
	store_idem_free(&row);
	return 1;
}

enum idem_result idem_begin(struct idem *im, const uint8_t scope[32],
			    const uint8_t print[32], struct api_reply *rp)
{
	int64_t now = now_ms();
	pthread_mutex_lock(&im->lock);
	expire(im, now);
	struct rec *r = *slot(im, scope);
	enum idem_result res;
	if (r && memcmp(r->print, print, 32) != 0) {
		res = IDEM_MISMATCH;
	} else if (r && !r->done) {
		res = IDEM_IN_FLIGHT;
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
			rp->nheaders = r->nheaders;
			memcpy(rp->headers, r->headers, sizeof rp->headers);
			res = IDEM_REPLAY;
		}
	} else if (im->store && shared_claim(im, scope, print, now, rp,
					     &res)) {
		/* another node holds the key: res says how */
	} else {
		r = calloc(1, sizeof *r);
		if (!r) {
			res = IDEM_NOMEM;
		} else {
			memcpy(r->scope, scope, 32);
			memcpy(r->print, print, 32);
			r->created_ms = now;
			struct rec **p = slot(im, scope);
			*p = r;
			r->older = im->newest;
			if (im->newest)
				im->newest->newer = r;
			else
				im->oldest = r;
			im->newest = r;
			im->count++;
			res = IDEM_NEW;
		}
	}
	pthread_mutex_unlock(&im->lock);
	return res;
}

void idem_record(struct idem *im, const uint8_t scope[32],
		 const struct api_reply *rp)
{
	char *body = NULL;
	size_t len = 0;
	if (rp->json) {
		body = jsonout_dump(rp->json, &len);
		if (!body)
			len = 0;
	} else if (rp->raw) {
		body = malloc(rp->raw_len ? rp->raw_len : 1);
		if (body)
			memcpy(body, rp->raw, rp->raw_len);
		len = rp->raw_len;
	}
	if (im->store && ((rp->json || rp->raw) ? body != NULL : 1)) {
		char heads[API_MAX_HEADERS * (API_HEADER_VALUE_MAX + 48)];
		size_t k = 0;
		heads[0] = '\0';
		for (int i = 0; i < rp->nheaders; i++)
			k += (size_t)snprintf(heads + k, sizeof heads - k,
					      "%s: %s\n", rp->headers[i].name,
					      rp->headers[i].value);
		struct store_idem a = {
			.status = rp->status,
			.content_type = (char *)rp->content_type,
			.headers = heads,
			.body = body,
			.body_len = len,
		};
		if (store_idem_finish(im->store, scope, &a) != STORE_OK)
			store_idem_abort(im->store, scope);
	}
	pthread_mutex_lock(&im->lock);
	struct rec *r = *slot(im, scope);
	if (r && !r->done && ((rp->json || rp->raw) ? body != NULL : 1)) {
		r->done = 1;
		r->status = rp->status;
		r->content_type = rp->content_type;
		r->body = body;
		r->body_len = len;
		r->nheaders = rp->nheaders;
		memcpy(r->headers, rp->headers, sizeof r->headers);
		body = NULL;
	} else if (r && !r->done) {
		drop(im, r); /* could not keep it: let a retry run */
	}
	pthread_mutex_unlock(&im->lock);
	free(body);
}

void idem_release(struct idem *im, const uint8_t scope[32])
{
	if (im->store)
		store_idem_abort(im->store, scope);
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
