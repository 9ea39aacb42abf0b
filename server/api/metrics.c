/* metrics.c — per-route request counts by status and latency histograms,
 * the process's own figures under Prometheus's standard process_* names,
 * and the build's identity (see metrics.h). Statuses are kept in a fixed
 * list of the ones cubed answers; anything else counts as "other". */
#include "metrics.h"
#include "dataset_stream.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "api_internal.h"
#include "events.h"
#include "idempotency.h"
#include "problem.h"
#include "sessions.h"
#include "solve_pool.h"
#include "solver.h"
#include "store.h"
#include "version.h"

static const int statuses[] = {200, 201, 202, 204, 304, 400, 401, 403, 404, 405,
			       409, 410, 412, 413, 415, 422, 429, 431, 500, 503,
			       507};
#define NSTATUS (int)(sizeof statuses / sizeof statuses[0])

/* From a cached GET (0.1 ms) to the slowest solves: a big cube's
 * reduction or a solve given --max-solve-ms up to a minute. */
static const double bounds[] = {0.0001, 0.00025, 0.0005, 0.001, 0.0025,
				0.005,  0.01,    0.025,  0.05,  0.1,
				0.25,   0.5,     1,      2.5,   5,
				10,     30,      60};
#define NBOUNDS (int)(sizeof bounds / sizeof bounds[0])

struct route_stats {
	const char *name;
	_Atomic uint64_t count[NSTATUS + 1];  /* + other */
	_Atomic uint64_t bucket[NBOUNDS + 1]; /* + +Inf */
	_Atomic uint64_t sum_us;
};

struct metrics {
	/* metrics_connections_from: set and cleared while no request runs */
	void (*connections)(const void *cls, struct metrics_conn_stats *out);
	const void *connections_cls;
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

void metrics_connections_from(struct metrics *m,
			      void (*read)(const void *cls,
					   struct metrics_conn_stats *out),
			      const void *cls)
{
	if (!m)
		return;
	m->connections = read;
	m->connections_cls = cls;
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
	if (m->connections) {
		struct metrics_conn_stats cs = {0, 0, 0, 0};
		m->connections(m->connections_cls, &cs);
		metrics_printf(b,
			       "# HELP cubed_http_connections Client connections "
			       "open now.\n"
			       "# TYPE cubed_http_connections gauge\n"
			       "cubed_http_connections %llu\n"
			       "# HELP cubed_http_connections_timed_out_total "
			       "Connections closed for not sending a whole "
			       "request within --request-timeout.\n"
			       "# TYPE cubed_http_connections_timed_out_total "
			       "counter\n"
			       "cubed_http_connections_timed_out_total %llu\n"
			       "# HELP cubed_http_connections_evicted_total "
			       "Waiting connections of the address holding "
			       "the most, closed to let in an address within "
			       "its share of --max-connections.\n"
			       "# TYPE cubed_http_connections_evicted_total "
			       "counter\n"
			       "cubed_http_connections_evicted_total %llu\n"
			       "# HELP cubed_http_connections_share_refused_total "
			       "Connections refused for being past their "
			       "address's share of --max-connections.\n"
			       "# TYPE cubed_http_connections_share_refused_total "
			       "counter\n"
			       "cubed_http_connections_share_refused_total %llu\n",
			       (unsigned long long)cs.open,
			       (unsigned long long)cs.timed_out,
			       (unsigned long long)cs.evicted,
			       (unsigned long long)cs.share_refused);
	}
}

/* ---- the process ---------------------------------------------------------- */

/* Fields 14 (utime), 15 (stime), 22 (starttime), 23 (vsize), 24 (rss) of
 * /proc/self/stat; the command name (field 2) may hold spaces, so the
 * count starts after its closing parenthesis. */
static int proc_stat(double *cpu_s, double *start_ticks, double *vsize,
		     double *rss_pages)
{
	char buf[1024];
	FILE *f = fopen("/proc/self/stat", "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *p = strrchr(buf, ')');
	if (!p)
		return -1;
	unsigned long long v[24] = {0};
	int field = 2, k = 0;
	for (char *tok = strtok(p + 1, " "); tok && field < 24;
	     tok = strtok(NULL, " ")) {
		field++;
		v[k++] = strtoull(tok, NULL, 10);
	}
	if (field < 24)
		return -1;
	/* v[0] is field 3 */
	double hz = (double)sysconf(_SC_CLK_TCK);
	*cpu_s = (double)(v[14 - 3] + v[15 - 3]) / hz;
	*start_ticks = (double)v[22 - 3];
	*vsize = (double)v[23 - 3];
	*rss_pages = (double)v[24 - 3];
	return 0;
}

/* Seconds since the epoch at boot (/proc/stat btime). */
static double boot_time(void)
{
	FILE *f = fopen("/proc/stat", "r");
	char line[256];
	double bt = -1;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, "btime ", 6) == 0) {
			bt = strtod(line + 6, NULL);
			break;
		}
	fclose(f);
	return bt;
}

static long open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	long n = 0;
	if (!d)
		return -1;
	for (struct dirent *e; (e = readdir(d));)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1; /* the directory's own descriptor */
}

void metrics_render_process(struct metrics_buf *b)
{
	double cpu, start, vsize, rss;
	if (proc_stat(&cpu, &start, &vsize, &rss) == 0) {
		double bt = boot_time();
		metrics_printf(b,
			       "# HELP process_cpu_seconds_total Total user and "
			       "system CPU time spent in seconds.\n"
			       "# TYPE process_cpu_seconds_total counter\n"
			       "process_cpu_seconds_total %.2f\n"
			       "# HELP process_resident_memory_bytes Resident "
			       "memory size in bytes.\n"
			       "# TYPE process_resident_memory_bytes gauge\n"
			       "process_resident_memory_bytes %.0f\n"
			       "# HELP process_virtual_memory_bytes Virtual "
			       "memory size in bytes.\n"
			       "# TYPE process_virtual_memory_bytes gauge\n"
			       "process_virtual_memory_bytes %.0f\n",
			       cpu, rss * (double)sysconf(_SC_PAGESIZE), vsize);
		if (bt >= 0)
			metrics_printf(b,
				       "# HELP process_start_time_seconds Start "
				       "time of the process since unix epoch in "
				       "seconds.\n"
				       "# TYPE process_start_time_seconds gauge\n"
				       "process_start_time_seconds %.2f\n",
				       bt + start / (double)sysconf(_SC_CLK_TCK));
	}
	long fds = open_fds();
	if (fds >= 0)
		metrics_printf(b,
			       "# HELP process_open_fds Number of open file "
			       "descriptors.\n"
			       "# TYPE process_open_fds gauge\n"
			       "process_open_fds %ld\n",
			       fds);
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
		metrics_printf(b,
			       "# HELP process_max_fds Maximum number of open "
			       "file descriptors.\n"
			       "# TYPE process_max_fds gauge\n"
			       "process_max_fds %.0f\n",
			       rl.rlim_cur == RLIM_INFINITY ? -1.0
							     : (double)rl.rlim_cur);
}

void metrics_render_build(struct metrics_buf *b)
{
	struct version_info v;
	version_get(&v);
	/* the values are ours, not a client's: no label escaping needed
	 * beyond what they are (versions, a commit id) */
	metrics_printf(b,
		       "# HELP cubed_build_info The running build: version, "
		       "commit and libraries (always 1).\n"
		       "# TYPE cubed_build_info gauge\n"
		       "cubed_build_info{version=\"%s\",commit=\"%s\","
		       "libmicrohttpd=\"%s\",jansson=\"%s\",sqlite=\"%s\","
		       "zlib=\"%s\",brotli=\"%s\"} 1\n",
		       v.version, v.commit, v.libmicrohttpd, v.jansson,
		       v.sqlite, v.zlib, v.brotli);
}

/* ---- GET /metrics ---------------------------------------------------- */

/* The request metrics above, the build and the process, then the session
 * layer's, the store's, the event fan-out's and the solver's figures. */
void api__get_metrics(const struct api_config *cfg,
		      const struct api_request *rq, const struct api_args *a,
		      struct api_reply *rp)
{
	(void)a;
	(void)rq;
	if (!cfg->metrics) {
		problem_reply(rp, PROBLEM_NO_METRICS,
			      "metrics are off on this server");
		return;
	}
	struct metrics_buf b = {0};
	metrics_render(cfg->metrics, &b);
	metrics_render_build(&b);
	metrics_render_process(&b);
	if (cfg->sessions) {
		struct sessions_stats st;
		sessions_stats(cfg->sessions, &st);
		int64_t count = -1;
		if (cfg->store)
			store_count_sessions(cfg->store, &count);
		metrics_printf(&b,
			       "# HELP cubed_sessions Sessions in the database.\n"
			       "# TYPE cubed_sessions gauge\n"
			       "cubed_sessions %lld\n"
			       "# HELP cubed_events_appended_total Events "
			       "committed to session histories.\n"
			       "# TYPE cubed_events_appended_total counter\n"
			       "cubed_events_appended_total %llu\n"
			       "# HELP cubed_commits_total Write transactions "
			       "committed.\n"
			       "# TYPE cubed_commits_total counter\n"
			       "cubed_commits_total %llu\n"
			       "# HELP cubed_writes_total Writes taken by the "
			       "writer (committed or refused).\n"
			       "# TYPE cubed_writes_total counter\n"
			       "cubed_writes_total %llu\n"
			       "# HELP cubed_commit_batch_size Writes per "
			       "transaction.\n"
			       "# TYPE cubed_commit_batch_size histogram\n",
			       (long long)count,
			       (unsigned long long)st.events_appended,
			       (unsigned long long)st.commits,
			       (unsigned long long)st.writes);
		static const char *const le[] = {"1", "3", "7", "15", "63",
						 "+Inf"};
		uint64_t cum = 0;
		for (int i = 0; i < 6; i++) {
			cum += st.batch_hist[i];
			metrics_printf(&b,
				       "cubed_commit_batch_size_bucket{le=\"%s\"} %llu\n",
				       le[i], (unsigned long long)cum);
		}
		metrics_printf(&b,
			       "cubed_commit_batch_size_sum %llu\n"
			       "cubed_commit_batch_size_count %llu\n"
			       "# HELP cubed_session_cache_hits_total Reads "
			       "served from the session cache.\n"
			       "# TYPE cubed_session_cache_hits_total counter\n"
			       "cubed_session_cache_hits_total %llu\n"
			       "# HELP cubed_session_cache_misses_total Reads "
			       "that went to the database.\n"
			       "# TYPE cubed_session_cache_misses_total counter\n"
			       "cubed_session_cache_misses_total %llu\n",
			       (unsigned long long)st.writes,
			       (unsigned long long)cum,
			       (unsigned long long)st.cache_hits,
			       (unsigned long long)st.cache_misses);
		metrics_printf(&b,
			       "# HELP cubed_session_cache_entries Sessions "
			       "held in memory.\n"
			       "# TYPE cubed_session_cache_entries gauge\n"
			       "cubed_session_cache_entries %llu\n"
			       "# HELP cubed_session_cache_bytes Bytes they "
			       "hold (states, working cubes).\n"
			       "# TYPE cubed_session_cache_bytes gauge\n"
			       "cubed_session_cache_bytes %llu\n"
			       "# HELP cubed_snapshots_total Snapshot rows "
			       "written.\n"
			       "# TYPE cubed_snapshots_total counter\n"
			       "cubed_snapshots_total %llu\n"
			       "# HELP cubed_write_conflicts_total Writes that "
			       "found another writer's version and were "
			       "evaluated again.\n"
			       "# TYPE cubed_write_conflicts_total counter\n"
			       "cubed_write_conflicts_total %llu\n"
			       "# HELP cubed_writer_cpu_seconds_total CPU "
			       "time of the session writer thread.\n"
			       "# TYPE cubed_writer_cpu_seconds_total counter\n"
			       "cubed_writer_cpu_seconds_total %.6f\n",
			       (unsigned long long)st.cache_entries,
			       (unsigned long long)st.cache_bytes,
			       (unsigned long long)st.snapshots,
			       (unsigned long long)st.conflicts,
			       (double)st.writer_cpu_ns / 1e9);
		metrics_printf(&b,
			       "# HELP cubed_idempotent_writes_total Changes "
			       "sent with an Idempotency-Key, by outcome: "
			       "made (their result kept with them) or "
			       "replayed (a committed first request's).\n"
			       "# TYPE cubed_idempotent_writes_total counter\n"
			       "cubed_idempotent_writes_total{outcome=\"made\"} "
			       "%llu\n"
			       "cubed_idempotent_writes_total{outcome="
			       "\"replayed\"} %llu\n",
			       (unsigned long long)st.idem_kept,
			       (unsigned long long)st.idem_replayed);
	}
	struct store_pool_stats dp;
	if (cfg->store)
		store_pool_stats(cfg->store, &dp);
	if (cfg->store && dp.has_pool)
		metrics_printf(&b,
			       "# HELP cubed_db_connections PostgreSQL "
			       "connections of the pool for requests, by "
			       "state.\n"
			       "# TYPE cubed_db_connections gauge\n"
			       "cubed_db_connections{state=\"busy\"} %llu\n"
			       "cubed_db_connections{state=\"idle\"} %llu\n"
			       "# HELP cubed_db_connections_max --db-pool.\n"
			       "# TYPE cubed_db_connections_max gauge\n"
			       "cubed_db_connections_max %llu\n"
			       "# HELP cubed_db_pool_waits_total Requests that "
			       "waited for a free connection.\n"
			       "# TYPE cubed_db_pool_waits_total counter\n"
			       "cubed_db_pool_waits_total %llu\n"
			       "# HELP cubed_db_timeouts_total Round trips, "
			       "connects or waits for a connection past "
			       "--db-timeout (and a quarter).\n"
			       "# TYPE cubed_db_timeouts_total counter\n"
			       "cubed_db_timeouts_total %llu\n"
			       "# HELP cubed_db_connections_dropped_total "
			       "Connections found dead or dropped.\n"
			       "# TYPE cubed_db_connections_dropped_total "
			       "counter\n"
			       "cubed_db_connections_dropped_total %llu\n"
			       "# HELP cubed_db_listener_up The LISTEN "
			       "connection (other nodes' events) is there.\n"
			       "# TYPE cubed_db_listener_up gauge\n"
			       "cubed_db_listener_up %d\n"
			       "# HELP cubed_db_listener_connects_total Times "
			       "the LISTEN connection was made (the first, "
			       "then each reconnect: a catch-up from the "
			       "rows).\n"
			       "# TYPE cubed_db_listener_connects_total counter\n"
			       "cubed_db_listener_connects_total %llu\n"
			       "# HELP cubed_db_notifications_total "
			       "Notifications of other nodes' (and this "
			       "node's) commits received.\n"
			       "# TYPE cubed_db_notifications_total counter\n"
			       "cubed_db_notifications_total %llu\n"
			       "# HELP cubed_db_round_trips_total Round trips "
			       "to the database for statements (a write "
			       "batch: two).\n"
			       "# TYPE cubed_db_round_trips_total counter\n"
			       "cubed_db_round_trips_total %llu\n",
			       (unsigned long long)(dp.open - dp.idle),
			       (unsigned long long)dp.idle,
			       (unsigned long long)dp.max,
			       (unsigned long long)dp.waits,
			       (unsigned long long)dp.timeouts,
			       (unsigned long long)dp.dropped, dp.listener_up,
			       (unsigned long long)dp.listener_reconnects,
			       (unsigned long long)dp.notifications,
			       (unsigned long long)dp.round_trips);
	if (cfg->events) {
		struct events_stats es;
		events_stats(cfg->events, &es);
		metrics_printf(&b,
			       "# HELP cubed_watchers Live event streams open.\n"
			       "# TYPE cubed_watchers gauge\n"
			       "cubed_watchers %llu\n"
			       "# HELP cubed_events_published_total Events "
			       "sent to sessions with watchers.\n"
			       "# TYPE cubed_events_published_total counter\n"
			       "cubed_events_published_total %llu\n"
			       "# HELP cubed_events_replayed_total Events "
			       "replayed from the store after Last-Event-ID.\n"
			       "# TYPE cubed_events_replayed_total counter\n"
			       "cubed_events_replayed_total %llu\n"
			       "# HELP cubed_watchers_cut_off_total Streams "
			       "ended because their watcher fell too far "
			       "behind.\n"
			       "# TYPE cubed_watchers_cut_off_total counter\n"
			       "cubed_watchers_cut_off_total %llu\n"
			       "# HELP cubed_event_gaps_total Times a "
			       "session's live events could not read "
			       "versions they had to send (a store read "
			       "failed) and held later ones back.\n"
			       "# TYPE cubed_event_gaps_total counter\n"
			       "cubed_event_gaps_total %llu\n"
			       "# HELP cubed_event_gaps_repaired_total Gaps "
			       "read from the store later, every version "
			       "sent in order.\n"
			       "# TYPE cubed_event_gaps_repaired_total "
			       "counter\n"
			       "cubed_event_gaps_repaired_total %llu\n"
			       "# HELP cubed_event_gaps_cut_total Gaps not "
			       "repaired in 10 s: the session's streams were "
			       "ended, to replay from the store.\n"
			       "# TYPE cubed_event_gaps_cut_total counter\n"
			       "cubed_event_gaps_cut_total %llu\n",
			       (unsigned long long)es.watchers,
			       (unsigned long long)es.published,
			       (unsigned long long)es.replayed,
			       (unsigned long long)es.cut_off,
			       (unsigned long long)es.gaps,
			       (unsigned long long)es.gaps_repaired,
			       (unsigned long long)es.gaps_cut);
	}
	if (cfg->idem)
		metrics_printf(&b,
			       "# HELP cubed_idempotency_keys Idempotency-Key "
			       "answers kept in memory (refusals, jobs) and "
			       "requests running with a key.\n"
			       "# TYPE cubed_idempotency_keys gauge\n"
			       "cubed_idempotency_keys %zu\n"
			       "# HELP cubed_idempotency_bytes Bytes those "
			       "hold (--idempotency-bytes).\n"
			       "# TYPE cubed_idempotency_bytes gauge\n"
			       "cubed_idempotency_bytes %zu\n"
			       "# HELP cubed_idempotency_evicted_total Answers "
			       "dropped to keep a client's or the whole "
			       "budget.\n"
			       "# TYPE cubed_idempotency_evicted_total counter\n"
			       "cubed_idempotency_evicted_total %llu\n",
			       idem_count(cfg->idem), idem_bytes(cfg->idem),
			       (unsigned long long)idem_evicted(cfg->idem));
	if (cfg->pool) {
		struct solve_pool_stats ps;
		solve_pool_stats(cfg->pool, &ps);
		metrics_printf(&b,
			       "# HELP cubed_solves_queued Solves waiting for a "
			       "solver thread.\n"
			       "# TYPE cubed_solves_queued gauge\n"
			       "cubed_solves_queued %u\n"
			       "# HELP cubed_solves_running Solves on a solver "
			       "thread.\n"
			       "# TYPE cubed_solves_running gauge\n"
			       "cubed_solves_running %u\n"
			       "# HELP cubed_solves_refused_total Solves refused: "
			       "client at its cap (429) or queue full (503).\n"
			       "# TYPE cubed_solves_refused_total counter\n"
			       "cubed_solves_refused_total{reason=\"client\"} "
			       "%llu\n"
			       "cubed_solves_refused_total{reason=\"full\"} "
			       "%llu\n"
			       "# HELP cubed_solves_cancelled_total Solves "
			       "stopped because their client went away.\n"
			       "# TYPE cubed_solves_cancelled_total counter\n"
			       "cubed_solves_cancelled_total %llu\n",
			       ps.queued, ps.running,
			       (unsigned long long)ps.refused_client,
			       (unsigned long long)ps.refused_full,
			       (unsigned long long)ps.cancelled);
	}
	if (cfg->datasets) {
		struct dataset_stats ds;
		dataset_service_stats(cfg->datasets, &ds);
		metrics_printf(&b,
			       "# HELP cubed_dataset_streams GET /v1/dataset "
			       "downloads open.\n"
			       "# TYPE cubed_dataset_streams gauge\n"
			       "cubed_dataset_streams %llu\n"
			       "# HELP cubed_dataset_streams_total Dataset "
			       "downloads opened.\n"
			       "# TYPE cubed_dataset_streams_total counter\n"
			       "cubed_dataset_streams_total %llu\n"
			       "# HELP cubed_dataset_streams_cut_total Dataset "
			       "downloads that ended before their last byte "
			       "(the client went away).\n"
			       "# TYPE cubed_dataset_streams_cut_total counter\n"
			       "cubed_dataset_streams_cut_total %llu\n"
			       "# HELP cubed_dataset_streams_refused_total Dataset "
			       "downloads refused at a cap (429 or 503).\n"
			       "# TYPE cubed_dataset_streams_refused_total counter\n"
			       "cubed_dataset_streams_refused_total %llu\n"
			       "# HELP cubed_dataset_chunks_total Blocks of samples "
			       "made for dataset downloads.\n"
			       "# TYPE cubed_dataset_chunks_total counter\n"
			       "cubed_dataset_chunks_total %llu\n"
			       "# HELP cubed_dataset_samples_total Samples made for "
			       "dataset downloads.\n"
			       "# TYPE cubed_dataset_samples_total counter\n"
			       "cubed_dataset_samples_total %llu\n"
			       "# HELP cubed_dataset_bytes_total Bytes of dataset "
			       "files handed out.\n"
			       "# TYPE cubed_dataset_bytes_total counter\n"
			       "cubed_dataset_bytes_total %llu\n",
			       (unsigned long long)ds.streams_open,
			       (unsigned long long)ds.streams_total,
			       (unsigned long long)ds.streams_cut,
			       (unsigned long long)ds.refused,
			       (unsigned long long)ds.chunks,
			       (unsigned long long)ds.samples,
			       (unsigned long long)ds.bytes);
	}
	if (b.failed || !b.data) {
		free(b.data);
		problem_reply(rp, PROBLEM_OUT_OF_MEMORY, "out of memory");
		return;
	}
	rp->status = 200;
	rp->content_type = "text/plain; version=0.0.4; charset=utf-8";
	rp->owned = b.data;
	rp->raw = b.data;
	rp->raw_len = b.len;
}
