/* rowcache.c — the writer's copies of session rows (rowcache.h): a hash
 * table of rows, each marked with the transaction that put it.
 * Transactions are numbered; a commit only moves to the next number, so
 * it costs nothing however many rows the cache holds. */
#include "rowcache.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BUCKETS 4096 /* a power of two */

struct crow {
	struct store_session row; /* initial always NULL */
	size_t bytes;             /* of its strings */
	uint64_t put_in;          /* the transaction that put it */
	struct crow *next;        /* in its bucket */
};

struct rowcache {
	struct crow *bucket[BUCKETS];
	size_t rows, bytes, max_rows, max_bytes;
	uint64_t txn; /* the open transaction's number, from 1 */
};

static size_t hash_id(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (size_t)(h & (BUCKETS - 1));
}

struct rowcache *rowcache_new(size_t max_rows, size_t max_bytes)
{
	struct rowcache *c = calloc(1, sizeof *c);
	if (c) {
		c->max_rows = max_rows;
		c->max_bytes = max_bytes;
		c->txn = 1;
	}
	return c;
}

static void crow_free(struct rowcache *c, struct crow *r)
{
	c->rows--;
	c->bytes -= r->bytes;
	store_session_free(&r->row);
	free(r);
}

/* Drop every row, or only those the open transaction put. */
static void sweep(struct rowcache *c, int only_open)
{
	for (size_t b = 0; b < BUCKETS; b++) {
		struct crow **p = &c->bucket[b];
		while (*p) {
			struct crow *r = *p;
			if (!only_open || r->put_in == c->txn) {
				*p = r->next;
				crow_free(c, r);
			} else {
				p = &r->next;
			}
		}
	}
}

void rowcache_free(struct rowcache *c)
{
	if (!c)
		return;
	sweep(c, 0);
	free(c);
}

static struct crow **find(struct rowcache *c, const char *id)
{
	struct crow **p = &c->bucket[hash_id(id)];
	while (*p && strcmp((*p)->row.id, id) != 0)
		p = &(*p)->next;
	return p;
}

/* Deep copy of the strings of src into dst (initial left NULL). */
static int copy_row(struct store_session *dst, const struct store_session *src)
{
	*dst = *src;
	dst->initial = NULL;
	dst->state = src->state ? strdup(src->state) : NULL;
	dst->title = src->title ? strdup(src->title) : NULL;
	if ((src->state && !dst->state) || (src->title && !dst->title)) {
		store_session_free(dst);
		return -1;
	}
	return 0;
}

int rowcache_get(struct rowcache *c, const char *id, struct store_session *out)
{
	memset(out, 0, sizeof *out);
	struct crow *r = *find(c, id);
	if (!r || copy_row(out, &r->row) < 0)
		return 0;
	return 1;
}

void rowcache_remove(struct rowcache *c, const char *id)
{
	struct crow **p = find(c, id);
	if (*p) {
		struct crow *r = *p;
		*p = r->next;
		crow_free(c, r);
	}
}

void rowcache_put(struct rowcache *c, const struct store_session *row)
{
	rowcache_remove(c, row->id);
	size_t bytes = (row->state ? strlen(row->state) + 1 : 0) +
		       (row->title ? strlen(row->title) + 1 : 0);
	if (bytes > c->max_bytes / 64)
		return;
	if (c->rows >= c->max_rows || c->bytes + bytes > c->max_bytes)
		sweep(c, 0);
	struct crow *r = calloc(1, sizeof *r);
	if (!r)
		return;
	if (copy_row(&r->row, row) < 0) {
		free(r);
		return;
	}
	r->bytes = bytes;
	r->put_in = c->txn;
	struct crow **p = &c->bucket[hash_id(row->id)];
	r->next = *p;
	*p = r;
	c->rows++;
	c->bytes += bytes;
}

void rowcache_commit(struct rowcache *c)
{
	c->txn++;
}

void rowcache_rollback(struct rowcache *c)
{
	sweep(c, 1);
}

size_t rowcache_count(const struct rowcache *c)
{
	return c->rows;
}
