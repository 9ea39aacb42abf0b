/* main.c — the cubed daemon's entry point: read the options, prepare what
 * the server needs from disk (the contract file, the database directory),
 * start the HTTP server, and wait for SIGINT/SIGTERM to stop it cleanly.
 * Everything testable lives in the other server/ files. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alg.h"
#include "api.h"
#include "config.h"
#include "events.h"
#include "http.h"
#include "idempotency.h"
#include "metrics.h"
#include "sessions.h"
#include "jobs.h"
#include "solve_pool.h"
#include "solver.h"
#include "events.h"
#include "http.h"

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

int main(int argc, char **argv)
{
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

	if (make_parent_dirs(cfg.db) < 0) {
		fprintf(stderr, "cubed: --db: cannot create the directory of "
				"%s: %s\n",
			cfg.db, strerror(errno));
		return 2;
	}

	struct api_config api = {
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
	};
	char serr[512];
	if (store_open(&scfg, &api.store, serr, sizeof serr) != STORE_OK) {
		fprintf(stderr, "cubed: database: %s\n", serr);
		return 2;
	}
	struct events_config ecfg = {
		.max_watchers = (size_t)cfg.max_watchers,
		.watcher_buffer = (size_t)cfg.watcher_buffer,
		.heartbeat_ms = (unsigned)cfg.heartbeat * 1000u,
	};
	if (events_open(&ecfg, &api.events) != EVENTS_OK) {
		fprintf(stderr, "cubed: cannot start live events\n");
		store_close(api.store);
		return 2;
	}
	struct sessions_config sescfg = {
		.store = api.store,
		.on_event = events_publish,
		.on_event_ctx = api.events,
		.cache_max = (size_t)cfg.session_cache,
		.max_sessions = (int64_t)cfg.max_sessions,
	};
	alg_limits_default(&sescfg.limits);
	sescfg.limits.max_moves = cfg.max_moves;
	sescfg.limits.max_work = cfg.max_work;
	if (sessions_open(&sescfg, &api.sessions) != SES_OK) {
		fprintf(stderr, "cubed: cannot start the session writer\n");
		store_close(api.store);
		return 2;
	}
	if (cfg.idempotency_keys)
		api.idem = idem_new((size_t)cfg.idempotency_keys,
				    (int64_t)cfg.idempotency_ttl * 1000);
	const char *patterns[64];
	int npat = api_route_patterns(patterns, 64);
	api.metrics = metrics_new(patterns, npat);

	/* Solver tables: loaded from (or built and saved to) --tables, by
	 * default the database's directory, in a background thread. */
	if (cfg.solver) {
		char tdir[PATH_MAX];
		if (cfg.tables) {
			snprintf(tdir, sizeof tdir, "%s", cfg.tables);
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
		api.jobs = pool ? jobs_new(&jc, pool, api.solver, api.sessions)
				: NULL;
		if (!api.jobs)
			fprintf(stderr, "cubed: warning: cannot start the "
					"solver pool: optimal solves will "
					"answer 503\n");
	}
	char used[PATH_MAX + 32];
	char *openapi = load_openapi(&cfg, argc > 0 ? argv[0] : "cubed",
				     &api.openapi_len, used, sizeof used);
	if (openapi == NULL && cfg.openapi) {
		fprintf(stderr, "cubed: --openapi: cannot read %s: %s\n",
			cfg.openapi, strerror(errno));
		return 2;
	}
	if (openapi == NULL)
		fprintf(stderr, "cubed: warning: openapi.yaml not found; "
				"GET /openapi.yaml will answer 404\n");
	api.openapi = openapi;

	signal(SIGPIPE, SIG_IGN);

	char err[256];
	struct http_server *srv = http_start(&cfg, &api, err, sizeof err);
	if (srv == NULL) {
		fprintf(stderr, "cubed: %s\n", err);
		jobs_shutdown(api.jobs);
		solve_pool_free(pool);
		jobs_free(api.jobs);
		solver_stop(api.solver);
		sessions_close(api.sessions);
		events_close(api.events);
		store_close(api.store);
		metrics_free(api.metrics);
		free(openapi);
		return 2;
	}
	int v6 = strchr(cfg.bind, ':') != NULL;
	fprintf(stderr, "cubed: listening on http://%s%s%s:%u\n", v6 ? "[" : "",
		cfg.bind, v6 ? "]" : "", http_port(srv));
	fflush(stderr);

	int sig = 0;
	while (sigwait(&stop, &sig) != 0)
		;
	/* stop taking connections, end every live stream cleanly, answer
	 * every queued write (new ones get 503), then stop serving: no
	 * connection may still be suspended when the daemon stops */
	http_quiesce(srv);
	jobs_shutdown(api.jobs); /* running searches stop at their next poll */
	events_shutdown(api.events, 2000);
	sessions_drain(api.sessions);
	http_stop(srv);
	/* no request refers to a job any more; a job ending now may still
	 * store its solve, so the pool stops before the writer */
	solve_pool_free(pool);
	jobs_free(api.jobs);
	/* every request has been answered: let the writer finish, then close
	 * the database */
	solver_stop(api.solver); /* cancels a table build in progress */
	sessions_close(api.sessions);
	events_close(api.events);
	idem_free(api.idem);
	store_close(api.store);
	metrics_free(api.metrics);
	free(openapi);
	fprintf(stderr, "cubed: stopped\n");
	return 0;
}
