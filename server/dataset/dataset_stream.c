/* dataset_stream.c — datasets over HTTP (dataset_stream.h): a column's
 * .npy made block by block as the reader takes it, NDJSON for small
 * requests, the caps on open streams and their counters.
 *
 * A source knows its file's layout (header, then rows of a fixed size),
 * so any byte maps to a sample: a read at pos makes the rows that cover
 * [pos, pos + max) into the source's own buffer (one "chunk") and copies
 * out the bytes asked for; a row split across two reads is served from
 * the buffer the second time. The buffer holds one block of rows, so a
 * stream holds at most that much whatever the count. */
#include "dataset_stream.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dataset.h"

struct client_count {
	struct limits_key key;
	unsigned n;
};

struct dataset_service {
	struct dataset_service_config c;
	pthread_mutex_t mu;
	unsigned open;
	struct client_count *clients; /* max_streams entries; n 0 = free */
	void *dist2;
	int dist2_failed;
	atomic_uint_fast64_t total, cut, chunks, samples, bytes, refused;
};

struct dataset_source {
	struct dataset_service *svc;
	struct limits_key client;
	dataset_spec spec;
	int col;
	uint64_t first;      /* the shard's first sample */
	uint64_t rows;
	uint64_t from, to;   /* the byte range this source sends */
	char hdr[256];
	size_t hl;
	size_t rb;           /* bytes a row */
	const void *dist2;
	unsigned char *labels; /* a job's rows, or NULL */
	unsigned char *buf;    /* made rows [r0, r0 + nr) */
	uint64_t r0, nr, cap;  /* cap rows fit buf */
	void *scratch;
	size_t ss;
	uint64_t sent;
	/* the client's stream given back already (dataset_source_done) */
	int given;
};

struct dataset_service *dataset_service_new(const struct dataset_service_config *c)
{
	struct dataset_service *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->c = *c;
	if (s->c.max_streams < 1)
		s->c.max_streams = 1;
	if (s->c.block < 4096)
		s->c.block = 4096;
	s->clients = calloc(s->c.max_streams, sizeof *s->clients);
	if (!s->clients) {
		free(s);
		return NULL;
	}
	pthread_mutex_init(&s->mu, NULL);
	return s;
}

void dataset_service_free(struct dataset_service *s)
{
	if (!s)
		return;
	pthread_mutex_destroy(&s->mu);
	free(s->clients);
	free(s->dist2);
	free(s);
}

const struct dataset_service_config *dataset_service_config(const struct dataset_service *s)
{
	return &s->c;
}

const void *dataset_service_dist2(struct dataset_service *s)
{
	pthread_mutex_lock(&s->mu);
	if (!s->dist2 && !s->dist2_failed) {
		void *t = malloc(dataset2_table_size());
		if (t && dataset2_table_init(t, dataset2_table_size(), NULL, NULL) == 0)
			s->dist2 = t;
		else {
			free(t);
			s->dist2_failed = 1;
		}
	}
	const void *t = s->dist2;
	pthread_mutex_unlock(&s->mu);
	return t;
}

static int same_key(const struct limits_key *a, const struct limits_key *b)
{
	return a->family == b->family && memcmp(a->addr, b->addr, sizeof a->addr) == 0;
}

/* Count a stream in for client; under mu. */
static int take(struct dataset_service *s, const struct limits_key *client)
{
	if (s->open >= s->c.max_streams)
		return DSO_BUSY;
	struct client_count *slot = NULL, *freeslot = NULL;
	for (unsigned i = 0; i < s->c.max_streams; i++) {
		if (s->clients[i].n && same_key(&s->clients[i].key, client))
			slot = &s->clients[i];
		else if (!s->clients[i].n && !freeslot)
			freeslot = &s->clients[i];
	}
	if (slot && slot->n >= s->c.max_client_streams)
		return DSO_CLIENT_BUSY;
	if (!slot) {
		slot = freeslot; /* open < max_streams: one is free */
		slot->key = *client;
		slot->n = 0;
	}
	slot->n++;
	s->open++;
	return DSO_OK;
}

static void give(struct dataset_service *s, const struct limits_key *client)
{
	pthread_mutex_lock(&s->mu);
	for (unsigned i = 0; i < s->c.max_streams; i++)
		if (s->clients[i].n && same_key(&s->clients[i].key, client)) {
			s->clients[i].n--;
			break;
		}
	s->open--;
	pthread_mutex_unlock(&s->mu);
}

int dataset_stream_open(struct dataset_service *s, const struct dsp *p,
			int col, const void *dist2, const unsigned char *labels,
			const struct limits_key *client, uint64_t from,
			uint64_t to, struct dataset_source **out)
{
	struct dataset_source *src = calloc(1, sizeof *src);
	if (!src)
		return DSO_NOMEM;
	src->svc = s;
	src->client = *client;
	src->spec = p->spec;
	/* a stream makes one column: only it (and nothing a solver makes) */
	src->spec.columns = 1u << col;
	src->col = col;
	src->first = p->first;
	src->rows = p->rows;
	src->from = from;
	src->to = to;
	src->hl = npy_header(&p->spec, col, p->rows, src->hdr, sizeof src->hdr);
	src->rb = dataset_row_bytes(&p->spec, col);
	src->dist2 = dist2;
	src->cap = s->c.block / src->rb + 2;
	src->ss = dataset_scratch_size(&src->spec);
	int ok = src->hl > 0 && src->rb > 0;
	if (ok && labels) {
		src->labels = malloc(p->rows * src->rb);
		ok = src->labels != NULL;
		if (ok)
			memcpy(src->labels, labels, p->rows * src->rb);
	} else if (ok) {
		src->buf = malloc(src->cap * src->rb);
		src->scratch = src->ss ? malloc(src->ss) : NULL;
		ok = src->buf && (!src->ss || src->scratch);
	}
	if (!ok) {
		free(src->labels);
		free(src->buf);
		free(src->scratch);
		free(src);
		return DSO_NOMEM;
	}
	pthread_mutex_lock(&s->mu);
	int rc = take(s, client);
	pthread_mutex_unlock(&s->mu);
	if (rc != DSO_OK) {
		atomic_fetch_add(&s->refused, 1);
		free(src->buf);
		free(src->labels);
		free(src->scratch);
		free(src);
		return rc;
	}
	atomic_fetch_add(&s->total, 1);
	*out = src;
	return DSO_OK;
}

/* Make rows [r, r + n) (shard-relative) into buf. */
static int make_rows(struct dataset_source *src, uint64_t r, uint64_t n)
{
	unsigned char *cols[DATASET_NCOLUMNS] = {0};
	cols[src->col] = src->buf;
	dataset_tables t = {NULL, NULL, src->dist2};
	if (dataset_fill(&src->spec, &t, src->first + r, n, cols, src->scratch,
			 src->ss, NULL, NULL) < 0)
		return -1;
	src->r0 = r;
	src->nr = n;
	atomic_fetch_add(&src->svc->chunks, 1);
	atomic_fetch_add(&src->svc->samples, n);
	return 0;
}

long dataset_source_read(struct dataset_source *src, uint64_t pos, char *buf,
			 size_t max)
{
	uint64_t at = src->from + pos, end = src->to;
	if (at >= end)
		return -1;
	if (max > end - at)
		max = (size_t)(end - at);
	size_t put = 0;
	/* the header */
	if (at < src->hl) {
		size_t k = src->hl - (size_t)at;
		if (k > max)
			k = max;
		memcpy(buf, src->hdr + at, k);
		put += k;
		at += k;
	}
	while (put < max) {
		uint64_t off = at - src->hl;
		uint64_t r = off / src->rb, in = off % src->rb;
		const unsigned char *row;
		if (src->labels) {
			row = src->labels + r * src->rb;
		} else {
			if (r < src->r0 || r >= src->r0 + src->nr) {
				/* the rows this read still needs, up to a block */
				uint64_t last = (at + (max - put) - 1 - src->hl) / src->rb;
				uint64_t n = last - r + 1;
				if (n > src->cap)
					n = src->cap;
				if (n > src->rows - r)
					n = src->rows - r;
				if (make_rows(src, r, n) < 0)
					return -1;
			}
			row = src->buf + (r - src->r0) * src->rb;
		}
		/* copy from this row on, as far as the made rows reach */
		uint64_t avail = src->labels ? (src->rows - r) * src->rb - in
					     : (src->r0 + src->nr - r) * src->rb - in;
		size_t k = max - put;
		if (k > avail)
			k = (size_t)avail;
		memcpy(buf + put, row + in, k);
		put += k;
		at += k;
	}
	src->sent += put;
	atomic_fetch_add(&src->svc->bytes, put);
	/* the last bytes made: the client's stream is over for it as soon
	 * as they arrive, so its next download must not find this one
	 * still counted (the release comes after they are sent) */
	if (src->sent >= src->to - src->from)
		dataset_source_done(src);
	return (long)put;
}

void dataset_source_done(struct dataset_source *src)
{
	if (src && !src->given) {
		src->given = 1;
		give(src->svc, &src->client);
	}
}

void dataset_source_release(struct dataset_source *src)
{
	if (!src)
		return;
	if (src->sent < src->to - src->from)
		atomic_fetch_add(&src->svc->cut, 1);
	dataset_source_done(src);
	free(src->buf);
	free(src->labels);
	free(src->scratch);
	free(src);
}

/* ---- NDJSON ------------------------------------------------------------- */

struct text {
	char *b;
	size_t len, cap;
	int oom;
};

static void put(struct text *t, const char *s, size_t n)
{
	if (t->oom)
		return;
	if (t->len + n + 1 > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 4096;
		while (cap < t->len + n + 1)
			cap *= 2;
		char *nb = realloc(t->b, cap);
		if (!nb) {
			t->oom = 1;
			return;
		}
		t->b = nb;
		t->cap = cap;
	}
	memcpy(t->b + t->len, s, n);
	t->len += n;
	t->b[t->len] = 0;
}

static void putf(struct text *t, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

static void putf(struct text *t, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n > 0)
		put(t, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* The 66-bit index (hi, lo) in decimal. */
static void decimal(uint64_t hi, uint64_t lo, char *out)
{
	uint32_t l[4] = {(uint32_t)(hi >> 32), (uint32_t)hi, (uint32_t)(lo >> 32),
			 (uint32_t)lo};
	char tmp[48];
	int k = 0, zero;
	do {
		uint64_t rem = 0;
		zero = 1;
		for (int i = 0; i < 4; i++) {
			uint64_t cur = rem << 32 | l[i];
			l[i] = (uint32_t)(cur / 10);
			rem = cur % 10;
			zero &= l[i] == 0;
		}
		tmp[k++] = (char)('0' + rem);
	} while (!zero);
	for (int i = 0; i < k; i++)
		out[i] = tmp[k - 1 - i];
	out[k] = 0;
}

static uint64_t le64(const unsigned char *b)
{
	uint64_t v = 0;
	for (int k = 7; k >= 0; k--)
		v = v << 8 | b[k];
	return v;
}

int dataset_ndjson(const struct dsp *p, const void *dist2, char **out,
		   size_t *len)
{
	const dataset_spec *s = &p->spec;
	unsigned char *cols[DATASET_NCOLUMNS] = {0};
	size_t rb[DATASET_NCOLUMNS] = {0};
	size_t ss = dataset_scratch_size(s);
	void *scratch = ss ? malloc(ss) : NULL;
	struct text t = {0};
	int ok = !ss || scratch;
	for (int c = 0; c < DATASET_NCOLUMNS && ok; c++) {
		if (!(s->columns & (1u << c)))
			continue;
		rb[c] = dataset_row_bytes(s, c);
		ok = (cols[c] = malloc(rb[c] * (p->rows ? p->rows : 1))) != NULL;
	}
	dataset_tables tb = {NULL, NULL, dist2};
	if (ok && dataset_fill(s, &tb, p->first, p->rows, cols, scratch, ss, NULL,
			       NULL) < 0)
		ok = 0;
	for (uint64_t r = 0; ok && r < p->rows; r++) {
		putf(&t, "{\"i\":%" PRIu64, p->first + r);
		for (int c = 0; c < DATASET_NCOLUMNS; c++) {
			if (!cols[c])
				continue;
			const unsigned char *row = cols[c] + r * rb[c];
			putf(&t, ",\"%s\":", dataset_column_name(c));
			if (c == DATASET_INDEX) {
				char d[48];
				decimal(le64(row), le64(row + 8), d);
				putf(&t, "\"%s\"", d);
			} else if (c >= DATASET_FIRST_LABEL) {
				if (row[0] == DATASET_MISSING)
					put(&t, "null", 4);
				else
					putf(&t, "%u", row[0]);
			} else {
				/* a flat array of the row's bytes */
				put(&t, "[", 1);
				for (size_t k = 0; k < rb[c]; k++) {
					char num[4];
					int n = snprintf(num, sizeof num, "%u", row[k]);
					if (k)
						put(&t, ",", 1);
					put(&t, num, (size_t)n);
				}
				put(&t, "]", 1);
			}
		}
		put(&t, "}\n", 2);
		ok = !t.oom;
	}
	for (int c = 0; c < DATASET_NCOLUMNS; c++)
		free(cols[c]);
	free(scratch);
	if (!ok) {
		free(t.b);
		return -1;
	}
	*out = t.b ? t.b : calloc(1, 1);
	*len = t.len;
	return *out ? 0 : -1;
}

void dataset_service_stats(struct dataset_service *s, struct dataset_stats *out)
{
	pthread_mutex_lock(&s->mu);
	out->streams_open = s->open;
	pthread_mutex_unlock(&s->mu);
	out->streams_total = atomic_load(&s->total);
	out->streams_cut = atomic_load(&s->cut);
	out->chunks = atomic_load(&s->chunks);
	out->samples = atomic_load(&s->samples);
	out->bytes = atomic_load(&s->bytes);
	out->refused = atomic_load(&s->refused);
}
