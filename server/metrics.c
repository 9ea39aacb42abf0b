/* metrics.c — per-route request counts by status and latency histograms
 * (see metrics.h). Statuses are kept in a fixed list of the ones cubed
 * answers; anything else counts as "other". */
#include "metrics.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int statuses[] = {200, 201, 204, 304, 400, 401, 403, 404, 405,
			       409, 412, 413, 415, 422, 429, 500, 503};
#define NSTATUS (int)(sizeof statuses / sizeof statuses[0])

static const double bounds[] = {0.0001, 0.00025, 0.0005, 0.001, 0.0025,
				0.005,  0.01,    0.025,  0.05,  0.1,
				0.25,   0.5,     1,      2.5};
#define NBOUNDS (int)(sizeof bounds / sizeof bounds[0])

struct route_stats {
	const char *name;
	_Atomic uint64_t count[NSTATUS + 1];  /* + other */
	_Atomic uint64_t bucket[NBOUNDS + 1]; /* + +Inf */
	_Atomic uint64_t sum_us;
};

struct metrics {
	int nroutes;
	struct route_stats r[]; /* nroutes + "other" */
};

struct metrics *metrics_new(const char *const *routes, int nroutes)
{
	struct metrics *m =
		calloc(1, sizeof *m + (size_t)(nroutes + 1) * sizeof m->r[0]);
	if (!m)
		return NULL;
	m->nroutes = nroutes;
	for (int i = 0; i < nroutes; i++)
		m->r[i].name = routes[i];
	m->r[nroutes].name = "other";
	return m;
}

void metrics_free(struct metrics *m)
{
	free(m);
}

void metrics_observe(struct metrics *m, const char *route, int status,
		     double seconds)
{
	if (!m)
		return;
	struct route_stats *r = &m->r[m->nroutes];
	for (int i = 0; route && i < m->nroutes; i++)
		if (m->r[i].name == route || strcmp(m->r[i].name, route) == 0) {
			r = &m->r[i];
			break;
		}
	int si = NSTATUS;
	for (int i = 0; i < NSTATUS; i++)
		if (statuses[i] == status) {
			si = i;
			break;
		}
	atomic_fetch_add_explicit(&r->count[si], 1, memory_order_relaxed);
	int b = NBOUNDS;
	for (int i = 0; i < NBOUNDS; i++)
		if (seconds <= bounds[i]) {
			b = i;
			break;
		}
	atomic_fetch_add_explicit(&r->bucket[b], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&r->sum_us,
				  (uint64_t)(seconds * 1e6 + 0.5),
				  memory_order_relaxed);
}

void metrics_printf(struct metrics_buf *b, const char *fmt, ...)
{
	if (b->failed)
		return;
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		size_t room = b->cap - b->len;
		int n = vsnprintf(b->data ? b->data + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->failed = 1;
			return;
		}
		if ((size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		size_t cap = b->cap ? b->cap * 2 : 8192;
		while (cap < b->len + (size_t)n + 1)
			cap *= 2;
		char *d = realloc(b->data, cap);
		if (!d) {
			b->failed = 1;
			return;
		}
		b->data = d;
		b->cap = cap;
	}
}

void metrics_render(struct metrics *m, struct metrics_buf *b)
{
	metrics_printf(b, "# HELP cubed_http_requests_total HTTP requests "
			  "answered, by route and status.\n"
			  "# TYPE cubed_http_requests_total counter\n");
	for (int i = 0; i <= m->nroutes; i++)
		for (int s = 0; s <= NSTATUS; s++) {
			uint64_t v = atomic_load_explicit(&m->r[i].count[s],
							  memory_order_relaxed);
			if (!v)
				continue;
			if (s < NSTATUS)
				metrics_printf(b,
					       "cubed_http_requests_total{route=\"%s\",status=\"%d\"} %llu\n",
					       m->r[i].name, statuses[s],
					       (unsigned long long)v);
			else
				metrics_printf(b,
					       "cubed_http_requests_total{route=\"%s\",status=\"other\"} %llu\n",
					       m->r[i].name, (unsigned long long)v);
		}
	metrics_printf(b, "# HELP cubed_http_request_duration_seconds Time "
			  "from a request's arrival to its reply.\n"
			  "# TYPE cubed_http_request_duration_seconds histogram\n");
	for (int i = 0; i <= m->nroutes; i++) {
		uint64_t cum = 0;
		for (int k = 0; k <= NBOUNDS; k++)
			cum += atomic_load_explicit(&m->r[i].bucket[k],
						    memory_order_relaxed);
		if (!cum)
			continue;
		uint64_t total = cum;
		cum = 0;
		for (int k = 0; k < NBOUNDS; k++) {
			cum += atomic_load_explicit(&m->r[i].bucket[k],
						    memory_order_relaxed);
			metrics_printf(b,
				       "cubed_http_request_duration_seconds_bucket{route=\"%s\",le=\"%g\"} %llu\n",
				       m->r[i].name, bounds[k],
				       (unsigned long long)cum);
		}
		metrics_printf(b,
			       "cubed_http_request_duration_seconds_bucket{route=\"%s\",le=\"+Inf\"} %llu\n"
			       "cubed_http_request_duration_seconds_sum{route=\"%s\"} %.6f\n"
			       "cubed_http_request_duration_seconds_count{route=\"%s\"} %llu\n",
			       m->r[i].name, (unsigned long long)total,
			       m->r[i].name,
			       (double)atomic_load_explicit(&m->r[i].sum_us,
							    memory_order_relaxed) /
				       1e6,
			       m->r[i].name, (unsigned long long)total);
	}
}
