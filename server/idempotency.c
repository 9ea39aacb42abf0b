/* idempotency.c — kept answers for Idempotency-Key (see idempotency.h): a
 * hash table of records under one lock, with a list in creation order so
 * the oldest go first when the table is full or their time is up. */
#include "idempotency.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "jsonout.h"

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
};

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

void idem_finish(struct idem *im, const uint8_t scope[32],
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

void idem_abort(struct idem *im, const uint8_t scope[32])
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
