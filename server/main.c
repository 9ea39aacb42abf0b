/* main.c — the cubed daemon's entry point: read the options, prepare what
 * the server needs from disk (the contract file, the database directory),
 * start the HTTP server, and wait for SIGINT/SIGTERM to stop it cleanly:
 * first a drain (--drain-s: not ready, still serving), then the close.
 * Everything testable lives in the other server/ files. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "alg.h"
#include "api.h"
#include "config.h"
#include "dataset_cli.h"
#include "dataset_stream.h"
#include "events.h"
#include "http.h"
#include "idempotency.h"
#include "log.h"
#include "metrics.h"
#include "sessions.h"
#include "jobs.h"
#include "solve_pool.h"
#include "solver.h"
#include "static.h"
#include "ticket.h"

/* After a stop signal: if the clean stop is not over within *arg
 * seconds, end the process anyway (status 1). Every write already
 * committed is on disk by then; what is lost is only the answers not yet
 * sent. */
static void *watchdog(void *arg)
{
	unsigned secs = *(unsigned *)arg;
	struct timespec ts = {(time_t)secs, 0};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
	log_msg(LOG_ERROR,
		"the stop took longer than --shutdown-timeout %u s: exiting "
		"now (committed writes are on disk; some replies were not "
		"sent)",
		secs);
	_exit(1);
	return NULL;
}

/* The drain, from the first stop signal (sig): /readyz answers 503
 * draining and every reply closes its connection, while every request is
 * still served, for secs seconds: a balancer that checks /readyz
 * (haproxy, Kubernetes) stops sending here, and one that does not (nginx)
 * has its connections closed gracefully, before the listener closes and
 * a connect is refused. Another stop signal ends the drain at once. */
static void drain(struct api_config *api, struct http_server *srv,
		  const sigset_t *stop, unsigned secs, int sig)
{
	atomic_store(&api->draining, 1);
	http_draining(srv);
	if (secs == 0)
		return;
	log_msg(LOG_INFO,
		"draining (signal %d): /readyz answers 503 for %u s while "
		"requests are still served, then the listener closes; "
		"another signal stops at once",
		sig, secs);
	struct timespec end, now;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)secs;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		int64_t ns = (int64_t)(end.tv_sec - now.tv_sec) * 1000000000 +
			     (end.tv_nsec - now.tv_nsec);
		if (ns <= 0)
			return;
		struct timespec left = {(time_t)(ns / 1000000000),
					(long)(ns % 1000000000)};
		int again = sigtimedwait(stop, NULL, &left);
		if (again > 0) {
			log_msg(LOG_INFO, "signal %d: the drain ends now",
				again);
			return;
		}
		/* EAGAIN: the time is up (checked above); EINTR: again */
	}
}

/* mkdir -p of the directory part of path. Returns 0 or -1 with errno. */
static int make_parent_dirs(const char *path)
{
	char dir[PATH_MAX];
	size_t len = strlen(path);
	if (len >= sizeof dir) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(dir, path, len + 1);
	char *slash = strrchr(dir, '/');
	if (slash == NULL || slash == dir)
		return 0;
	*slash = '\0';
	for (char *p = dir + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(dir, 0777) < 0 && errno != EEXIST)
			return -1;
		*p = c;
		if (c == '\0')
			break;
	}
	struct stat st;
	if (stat(dir, &st) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

/* The whole file at path (malloc'ed, *len set), or NULL with errno. */
static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return NULL;
	char *buf = NULL;
	size_t cap = 0, n = 0;
	int failed = 0;
	for (;;) {
		if (n == cap) {
			char *b = realloc(buf, cap ? 2 * cap : 65536);
			if (b == NULL) {
				failed = 1;
				break;
			}
			buf = b;
			cap = cap ? 2 * cap : 65536;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	failed |= ferror(f);
	fclose(f);
	if (failed) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

/* The contract: --openapi if given (which must exist), else ./openapi.yaml,
 * else openapi.yaml in the parent of the binary's directory (build/cubed →
 * the repository root). */
static char *load_openapi(const struct config *cfg, const char *argv0,
			  size_t *len, char *used, size_t usedcap)
{
	if (cfg->openapi) {
		snprintf(used, usedcap, "%s", cfg->openapi);
		return read_file(cfg->openapi, len);
	}
	snprintf(used, usedcap, "openapi.yaml");
	char *text = read_file(used, len);
	if (text)
		return text;

	char exe[PATH_MAX];
	const char *slash = strrchr(argv0, '/');
	if (slash) {
		snprintf(exe, sizeof exe, "%.*s", (int)(slash - argv0), argv0);
	} else {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		if (n <= 0)
			return NULL;
		exe[n] = '\0';
		char *s = strrchr(exe, '/');
		if (s == NULL)
			return NULL;
		*s = '\0';
	}
	snprintf(used, usedcap, "%s/../openapi.yaml", exe);
	return read_file(used, len);
}

/* The web page: --web-root if given (which must load), else web/ beside
 * the binary (build/cubed → build/web, where `make` builds it), which may
 * be missing: the API works without it and / says the page was not built.
 * Returns 0 with *out set (NULL when there is no page), or -1. */
static int load_web(const struct config *cfg, struct web_root **out)
{
	char dir[PATH_MAX];
	char err[768];
	int missing = 0;
	*out = NULL;
	if (cfg->web_root) {
		snprintf(dir, sizeof dir, "%s", cfg->web_root);
	} else {
		char exe[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		exe[n > 0 ? n : 0] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		snprintf(dir, sizeof dir, "%.*s/web", PATH_MAX - 8, exe);
	}
	*out = web_root_load(dir, &missing, err, sizeof err);
	if (*out) {
		log_msg(LOG_INFO, "the web page: %zu files, %zu bytes from %s",
			web_root_files(*out), web_root_bytes(*out), dir);
		return 0;
	}
	if (cfg->web_root) {
		log_msg(LOG_ERROR, "--web-root: %s", err);
		return -1;
	}
	log_msg(LOG_WARN, "%s%s; / will answer 404 page_not_built",
		missing ? "the web page is not built: " : "", err);
	return 0;
}

/* Everything main started, stopped in the reverse order; each part may be
 * missing (a start that failed part way) — every free function takes NULL.
 * One place, so an early exit cannot leak what a later one frees. */
static void release(struct api_config *api, struct solve_pool *pool,
		    struct web_root *web, char *openapi)
{
	/* a job ending now may still store its solve: the pool stops
	 * (queued jobs dropped, running ones returned) before the writer */
	jobs_shutdown(api->jobs);
	solve_pool_free(pool);
	jobs_free(api->jobs);
	solve_pool_free(api->pool);
	/* after MHD: every stream has been let go */
	dataset_service_free(api->datasets);
	solver_stop(api->solver); /* cancels a table build in progress */
	/* other nodes' changes stop arriving before the hub goes */
	if (api->store)
		store_listen(api->store, NULL, NULL);
	sessions_close(api->sessions);
	events_close(api->events);
	idem_free(api->idem);
	tickets_free(api->tickets);
	store_close(api->store);
	metrics_free(api->metrics);
	web_root_free(web);
	free(openapi);
}

/* tickets_key_fn: the stream tickets' key kept in the database. */
static int ticket_key_from_store(void *ctx, const unsigned char *candidate,
				 unsigned char *key)
{
	_Static_assert(TICKET_KEY_LEN == STORE_TICKET_KEY_LEN,
		       "one key length");
	return store_ticket_key(ctx, candidate, key) == STORE_OK ? 0 : -1;
}

/* `cubed routes`: the route table, a row a line (method, pattern, body
 * rule, auth, idempotent), for the contract check to hold against
 * openapi.yaml. */
static int print_routes(void)
{
	static const char *const body[] = {"none", "optional", "required"};
	static const char *const auth[] = {"none", "optional", "required"};
	struct api_route_info r;
	for (int i = 0; api_route_row(i, &r) == 0; i++)
		printf("%s\t%s\t%s\t%s\t%s\n", r.method, r.pattern,
		       body[r.body], auth[r.auth], r.idempotent ? "idem" : "-");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "routes") == 0)
		return print_routes();
	/* `cubed dataset …`: the bulk export, no server (dataset_cli.c) */
	if (argc > 1 && strcmp(argv[1], "dataset") == 0)
		return dataset_cli_main(argc - 1, argv + 1, stdout, stderr);

	struct config cfg;
	/* Block the stop signals before any thread starts (the session
	 * writer, live events, the solver, MHD's), so they all inherit the
	 * mask and only sigwait below ever sees the signals. */
	sigset_t stop;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);

	enum config_result cr = config_load(&cfg, argc, argv, stdout, stderr);
	if (cr == CONFIG_EXIT)
		return 0;
	if (cr == CONFIG_ERROR)
		return 2;
	log_configure((enum log_format)log_format_parse(cfg.log_format),
		      cfg.quiet ? LOG_ERROR
				: (enum log_level)log_level_parse(cfg.log_level));

	/* a database address (postgres://…) has no directory to make */
	int db_is_file = strstr(cfg.db, "://") == NULL;
	if (db_is_file && make_parent_dirs(cfg.db) < 0) {
		log_msg(LOG_ERROR, "--db: cannot create the directory of %s: %s",
			cfg.db, strerror(errno));
		return 2;
	}

	/* the preflight's list: the API's own headers, then the ones
	 * browsers' tracing tools add (--cors-allow-headers) */
	char allow_headers[API_HEADER_VALUE_MAX];
	int ah = snprintf(allow_headers, sizeof allow_headers, "%s%s%s",
			  API_CORS_ALLOW_HEADERS,
			  strcmp(cfg.cors_allow_headers, "-") ? ", " : "",
			  strcmp(cfg.cors_allow_headers, "-")
				  ? cfg.cors_allow_headers
				  : "");
	if (ah < 0 || (size_t)ah >= sizeof allow_headers) {
		log_msg(LOG_ERROR, "--cors-allow-headers: the list is too long "
				   "(at most %zu characters with the API's own)",
			sizeof allow_headers - 1);
		return 2;
	}
	struct api_config api = {
		.cors_allow_headers = allow_headers,
		.max_moves = cfg.max_moves,
		.max_work = cfg.max_work,
		.max_session_size = (int)cfg.max_session_size,
		.max_solve_ms = cfg.max_solve_ms,
		.max_job_ms = cfg.max_job_s * 1000,
	};
	struct solve_pool *pool = NULL;

	/* The database: migrations from --schema, else ./schema, else the
	 * schema directory installed next to the binary. */
	char schema[PATH_MAX + 16];
	if (cfg.schema) {
		snprintf(schema, sizeof schema, "%s", cfg.schema);
	} else if (access("schema/001_init.sql", R_OK) == 0) {
		snprintf(schema, sizeof schema, "schema");
	} else {
		char exe[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		exe[n > 0 ? n : 0] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		snprintf(schema, sizeof schema, "%s/../schema", exe);
	}
	struct store_config scfg = {
		.path = cfg.db,
		.schema_dir = schema,
		.durability_full = strcmp(cfg.durability, "full") == 0,
		.shared = cfg.shared_db != 0,
		.busy_timeout_ms = (int)cfg.db_busy_timeout,
		/* a stalled node's open claims go after the lease */
		.txn_lease_ms = (int)cfg.idempotency_lease * 1000,
		.timeout_ms = (int)cfg.db_timeout,
		.pool = (int)cfg.db_pool,
	};
	char serr[512];
	if (store_open(&scfg, &api.store, serr, sizeof serr) != STORE_OK) {
		log_msg(LOG_ERROR, "database: %s", serr);
		return 2;
	}
	/* PostgreSQL merely down: the node starts not ready (/readyz 503)
	 * and gets ready by itself once the database answers */
	if (store_ping(api.store) != STORE_OK && store_unavailable(api.store))
		log_msg(LOG_WARN,
			"database: %s; not ready until it answers (retrying)",
			store_last_error(api.store));
	struct events_config ecfg = {
		.max_watchers = (size_t)cfg.max_watchers,
		.watcher_buffer = (size_t)cfg.watcher_buffer,
		.heartbeat_ms = (unsigned)cfg.heartbeat * 1000u,
		.memory = (size_t)cfg.events_memory,
	};
	if (events_open(&ecfg, &api.events) != EVENTS_OK) {
		log_msg(LOG_ERROR, "cannot start live events");
		release(&api, pool, NULL, NULL);
		return 2;
	}
	struct sessions_config sescfg = {
		.store = api.store,
		.on_event = events_publish,
		.on_event_ctx = api.events,
		.cache_max = (size_t)cfg.session_cache,
		.max_sessions = (int64_t)cfg.max_sessions,
		.max_db_bytes = (int64_t)cfg.max_db_size,
		.idem_ttl_ms = (int64_t)cfg.idempotency_ttl * 1000,
	};
	alg_limits_default(&sescfg.limits);
	sescfg.limits.max_moves = cfg.max_moves;
	sescfg.limits.max_work = cfg.max_work;
	if (sessions_open(&sescfg, &api.sessions) != SES_OK) {
		log_msg(LOG_ERROR, "cannot start the session writer");
		release(&api, pool, NULL, NULL);
		return 2;
	}
	/* other nodes' commits (PostgreSQL's NOTIFY) reach the watchers
	 * here; an engine without notifications has no other nodes */
	int lr = store_listen(api.store, events_remote, api.events);
	if (lr != STORE_OK && lr != STORE_NO_ENGINE) {
		log_msg(LOG_ERROR, "cannot listen for other nodes' changes");
		release(&api, pool, NULL, NULL);
		return 2;
	}
	if (cfg.idempotency_keys) {
		/* a change's result is kept by the store with the change;
		 * this table holds the other answers, and marks what runs */
		struct idem_config icfg = {
			.max = (size_t)cfg.idempotency_keys,
			.ttl_ms = (int64_t)cfg.idempotency_ttl * 1000,
			.lease_ms = (int64_t)cfg.idempotency_lease * 1000,
			.max_bytes = (size_t)cfg.idempotency_bytes,
			.client_bytes = (size_t)cfg.idempotency_client_bytes,
		};
		api.idem = idem_new(&icfg);
	}
	/* the tickets' key is the database's, so every node of it (and this
	 * process after a restart) signs with the same (ticket.h) */
	api.tickets = tickets_new((int64_t)cfg.ticket_ttl * 1000,
				  api.store ? ticket_key_from_store : NULL,
				  api.store);
	if (api.tickets == NULL)
		log_msg(LOG_WARN, "no stream tickets (no randomness from the "
				  "OS): private streams need read tokens");
	const char *patterns[64];
	int npat = api_route_patterns(
		patterns, (int)(sizeof patterns / sizeof *patterns));
	api.metrics = metrics_new(patterns, npat);

	/* Solver tables: loaded from (or built and saved to) --tables, by
	 * default the database's directory, in a background thread. */
	if (cfg.solver) {
		char tdir[PATH_MAX];
		if (cfg.tables) {
			snprintf(tdir, sizeof tdir, "%s", cfg.tables);
		} else if (!db_is_file) {
			snprintf(tdir, sizeof tdir, "./data");
		} else {
			snprintf(tdir, sizeof tdir, "%s", cfg.db);
			char *slash = strrchr(tdir, '/');
			if (slash)
				*slash = '\0';
			else
				snprintf(tdir, sizeof tdir, ".");
		}
		struct solver_options so = {
			.optimal_level = (int)cfg.optimal_level,
			.optimal_threads = (int)cfg.solve_workers,
			.optimal_preload = (int)cfg.optimal_preload,
			.no_four = !cfg.solver_4x4,
			.no_five = !cfg.solver_5x5,
			.warm = (int)cfg.solver_warm,
		};
		api.solver = solver_start_opts(tdir, &so);
		/* jobs (optimal solves) run on the solver pool */
		struct solve_pool_config pc = {
			.workers = (unsigned)cfg.solve_workers,
			.queue_max = (unsigned)cfg.solve_queue,
			.client_running = (unsigned)cfg.solve_client_running,
			.client_queued = (unsigned)cfg.solve_client_queued,
		};
		struct jobs_config jc = {
			.max_jobs = (unsigned)cfg.max_jobs,
			.ttl_ms = cfg.job_ttl * 1000,
			.max_job_ms = cfg.max_job_s * 1000,
		};
		pool = solve_pool_new(&pc);
		/* the other solves on a pool of their own with the same
		 * caps, so that an hour-long optimal job does not hold a
		 * client's everyday solves behind it */
		api.pool = solve_pool_new(&pc);
		if (!api.pool)
			log_msg(LOG_WARN, "cannot start the solver pool for "
					  "solves: they run on the HTTP threads");
		api.jobs = pool ? jobs_new(&jc, pool, api.solver, api.sessions)
				: NULL;
		if (!api.jobs)
			log_msg(LOG_WARN, "cannot start the solver pool: "
					  "optimal solves will answer 503");
	}
	char used[PATH_MAX + 32];
	char *openapi = load_openapi(&cfg, argc > 0 ? argv[0] : "cubed",
				     &api.openapi_len, used, sizeof used);
	if (openapi == NULL && cfg.openapi) {
		log_msg(LOG_ERROR, "--openapi: cannot read %s: %s", cfg.openapi,
			strerror(errno));
		release(&api, pool, NULL, NULL);
		return 2;
	}
	if (openapi == NULL)
		log_msg(LOG_WARN, "openapi.yaml not found; GET /openapi.yaml "
				  "will answer 404");
	api.openapi = openapi;
	api.drain_s = (unsigned)cfg.drain_s;
	struct web_root *web = NULL;
	if (load_web(&cfg, &web) < 0) {
		release(&api, pool, NULL, openapi);
		return 2;
	}
	api.web = web;
	struct dataset_service_config dc = {
		.max_streams = (unsigned)cfg.dataset_streams,
		.max_client_streams = (unsigned)cfg.dataset_client_streams,
		.caps = {cfg.dataset_max_count, (int)cfg.dataset_max_size,
			 (int)cfg.dataset_max_depth},
		.max_job_rows = cfg.dataset_job_rows,
		.max_ndjson_rows = 1000,
		.block = 256 * 1024,
	};
	api.datasets = dataset_service_new(&dc);
	api.dataset_optimal_level = (unsigned)cfg.optimal_level;
	if (!api.datasets)
		log_msg(LOG_WARN, "out of memory: GET /v1/dataset will answer 503");

	signal(SIGPIPE, SIG_IGN);

	char err[256];
	struct http_server *srv = http_start(&cfg, &api, err, sizeof err);
	if (srv == NULL) {
		log_msg(LOG_ERROR, "%s", err);
		release(&api, pool, web, openapi);
		return 2;
	}
	int v6 = strchr(cfg.bind, ':') != NULL;
	/* always written, whatever the level: it is how a supervisor (and
	 * the tests) learn the port */
	char url[128];
	snprintf(url, sizeof url, "http://%s%s%s:%u", v6 ? "[" : "", cfg.bind,
		 v6 ? "]" : "", http_port(srv));
	log_always("url", url, "listening on %s", url);

	int sig = 0;
	while (sigwait(&stop, &sig) != 0)
		;
	/* not ready, still serving, for --drain-s */
	drain(&api, srv, &stop, (unsigned)cfg.drain_s, sig);
	/* the stop is bounded: whatever hangs (a client that never reads its
	 * reply, a database lock), the process is gone within
	 * --shutdown-timeout of the drain's end */
	static unsigned bound;
	bound = (unsigned)cfg.shutdown_timeout;
	pthread_t dog;
	if (bound && pthread_create(&dog, NULL, watchdog, &bound) == 0)
		pthread_detach(dog);
	log_msg(LOG_INFO, "stopping (signal %d): no new connections; "
			  "finishing requests in flight",
		sig);
	/* stop taking connections (a connect is refused from here) and end
	 * every live stream cleanly */
	http_quiesce(srv);
	events_shutdown(api.events, 2000);
	/* the requests already here (the last connections taken, a
	 * request on a connection kept alive) are served as usual while
	 * the writer and the solver pool still run, for up to 2 s; a
	 * connection taken has that long to send its request */
	http_drain(srv, 2000, 1);
	jobs_shutdown(api.jobs); /* running searches stop at their next poll */
	/* waiting solves answer 503, running ones stop at their next poll
	 * and answer: no connection stays suspended for a solve */
	solve_pool_stop(api.pool);
	/* answer every queued write (a write from now on gets 503
	 * shutting_down with Retry-After), then stop serving: no
	 * connection may still be suspended when the daemon stops */
	sessions_drain(api.sessions);
	/* every queued write is answered; let those answers (and any other
	 * reply under way) reach their clients before connections close */
	int left = http_drain(srv, 5000, 0);
	if (left)
		log_msg(LOG_WARN, "stopping with %d request%s not completed "
				  "after 5 s",
			left, left == 1 ? "" : "s");
	http_stop(srv);
	/* every request has been answered and none refers to a job any
	 * more: stop the pool, let the writer finish, then close the
	 * database */
	release(&api, pool, web, openapi);
	log_msg(LOG_INFO, "stopped");
	return 0;
}
