/* metrics.h — request counters and latency histograms per route, rendered
 * as Prometheus text for GET /metrics. Observing is lock-free (relaxed
 * atomics), so every request can be counted. */
#ifndef CUBED_METRICS_H
#define CUBED_METRICS_H

#include <stddef.h>
#include <stdint.h>

struct metrics;

/* routes: the route patterns (static strings) requests are labelled with;
 * requests matching none (404s) count under "other". */
struct metrics *metrics_new(const char *const *routes, int nroutes);
void metrics_free(struct metrics *m);

/* Count one finished request. route is one of the patterns or NULL. */
void metrics_observe(struct metrics *m, const char *route, int status,
		     double seconds);

/* The connection figures, kept by the HTTP layer (guard.c): the gauge
 * cubed_http_connections (client connections open now) and the counter
 * cubed_http_connections_timed_out_total (closed for not sending a whole
 * request within --request-timeout). */
struct metrics_conn_stats {
	uint64_t open, timed_out;
	uint64_t evicted, share_refused; /* fairness between addresses */
};
/* The HTTP layer gives metrics read(cls, out) to fill them by: before it
 * serves the first request, and NULL again once it stopped serving.
 * Without one both are left out. */
void metrics_connections_from(struct metrics *m,
			      void (*read)(const void *cls,
					   struct metrics_conn_stats *out),
			      const void *cls);

/* Append the Prometheus text of the request metrics to a growing buffer
 * (see metrics_printf); returns 0 or -1 when out of memory. */
struct metrics_buf {
	char *data;
	size_t len, cap;
	int failed;
};
void metrics_printf(struct metrics_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
void metrics_render(struct metrics *m, struct metrics_buf *b);
/* process_cpu_seconds_total, process_resident_memory_bytes,
 * process_virtual_memory_bytes, process_start_time_seconds,
 * process_open_fds, process_max_fds (from /proc, as Prometheus's client
 * libraries name them); a figure /proc cannot give is left out. */
void metrics_render_process(struct metrics_buf *b);
/* cubed_build_info{version, commit, libraries…} 1. */
void metrics_render_build(struct metrics_buf *b);

#endif
