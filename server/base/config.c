/* config.c — command-line and environment options of cubed. One table
 * lists every option with its environment variable, default, range and help
 * text; parsing, defaults and --help are all driven by it, so a new option is
 * one line and cannot be missing from the help. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client_limits.h"
#include "compress.h"
#include "config.h"
#include "log.h"
#include "version.h"

enum opt_kind { OPT_UINT, OPT_STR, OPT_FLAG };

/* X(name, env, kind, field, default, min, max, metavar, help). An empty
 * default string for OPT_STR means NULL; threads' default is computed. */
#define CONFIG_OPTIONS(X)                                                      \
	X("port", "CUBED_PORT", OPT_UINT, port, "8080", 0, 65535, "N",         \
	  "TCP port to listen on; 0 picks a free one")                         \
	X("bind", "CUBED_BIND", OPT_STR, bind, "127.0.0.1", 0, 0, "ADDR",      \
	  "IPv4 or IPv6 address to listen on")                                 \
	X("db", "CUBED_DB", OPT_STR, db, "./data/cubed.db", 0, 0, "PATH",      \
	  "database file (its directory is created if missing), or "          \
	  "postgres://… for PostgreSQL (many nodes: docs/scaling.md)")         \
	X("threads", "CUBED_THREADS", OPT_UINT, threads, "", 1, 1024, "N",     \
	  "threads answering requests")              \
	X("max-body", "CUBED_MAX_BODY", OPT_UINT, max_body, "1048576", 1,      \
	  1073741824, "BYTES", "largest request body accepted")                \
	X("max-moves", "CUBED_MAX_MOVES", OPT_UINT, max_moves, "100000", 1,    \
	  UINT32_MAX, "N", "expanded moves allowed per request")               \
	X("max-work", "CUBED_MAX_WORK", OPT_UINT, max_work, "1000000000", 0,   \
	  UINT64_MAX, "N",                                                     \
	  "stickers moved allowed per request (0 = no limit)")                 \
	X("cors-origin", "CUBED_CORS_ORIGIN", OPT_STR, cors_origin, "*", 0, 0, \
	  "ORIGIN", "Access-Control-Allow-Origin value")                       \
	X("max-header", "CUBED_MAX_HEADER", OPT_UINT, max_header, "16384",    \
	  1024, 1048576, "BYTES",                                              \
	  "largest request line plus headers accepted (431 past it)")          \
	X("max-connections", "CUBED_MAX_CONNECTIONS", OPT_UINT,                \
	  max_connections, "4096", 1, 1000000, "N",                            \
	  "concurrent connections in total (503 past it)")                     \
	X("max-connections-per-ip", "CUBED_MAX_CONNECTIONS_PER_IP", OPT_UINT,  \
	  max_connections_per_ip, "2048", 0, 1000000, "N",                     \
	  "concurrent connections per client address (0 = no limit)")         \
	X("rate-limit", "CUBED_RATE_LIMIT", OPT_UINT, rate_limit, "1000", 0,   \
	  1000000, "N",                                                        \
	  "requests per second per client address (429 past it; 0 = off)")     \
	X("rate-burst", "CUBED_RATE_BURST", OPT_UINT, rate_burst, "2000", 1,   \
	  10000000, "N", "requests a client address may send at once")         \
	X("trusted-proxy", "CUBED_TRUSTED_PROXY", OPT_STR, trusted_proxy, "",  \
	  0, 0, "CIDR[,CIDR…]",                                                \
	  "proxies whose X-Forwarded-For names the client for the "           \
	  "per-client limits (default: none, the header is ignored)")         \
	X("timeout", "CUBED_TIMEOUT", OPT_UINT, timeout, "30", 1, 86400, "S",  \
	  "seconds an idle connection is kept open")                           \
	X("openapi", "CUBED_OPENAPI", OPT_STR, openapi, "", 0, 0, "PATH",      \
	  "contract served at /openapi.yaml (default: ./openapi.yaml, "        \
	  "else <dir of binary>/../openapi.yaml)")                             \
	X("web-root", "CUBED_WEB_ROOT", OPT_STR, web_root, "", 0, 0, "DIR",    \
	  "the built web page served at / (default: <dir of binary>/web, "     \
	  "which `make` builds)")                                              \
	X("quiet", "CUBED_QUIET", OPT_FLAG, quiet, "0", 0, 1, "",              \
	  "log errors only, like --log-level error (env: 1 or 0)")            \
	X("log-format", "CUBED_LOG_FORMAT", OPT_STR, log_format, "text", 0, 0, \
	  "text|json", "log lines as text, or as one JSON object each")       \
	X("log-level", "CUBED_LOG_LEVEL", OPT_STR, log_level, "info", 0, 0,    \
	  "debug|info|warn|error",                                             \
	  "least severe lines logged (requests are info, 5xx error)")         \
	X("cors-allow-headers", "CUBED_CORS_ALLOW_HEADERS", OPT_STR,           \
	  cors_allow_headers, "traceparent, tracestate, X-Request-Id", 0, 0,   \
	  "LIST", "request headers browsers may send besides the API's own "   \
	  "(CORS preflight; \"-\" for none)")                                 \
	X("compress", "CUBED_COMPRESS", OPT_STR, compress, "br,gzip", 0, 0,    \
	  "br,gzip|gzip|br|off", "content codings offered to clients")         \
	X("compress-min", "CUBED_COMPRESS_MIN", OPT_UINT, compress_min,        \
	  "1024", 0, 1073741824, "BYTES",                                      \
	  "smallest reply body worth compressing")                            \
	X("gzip-level", "CUBED_GZIP_LEVEL", OPT_UINT, gzip_level, "4", 1, 9,   \
	  "N", "zlib level of gzip replies (1 fastest, 9 smallest)")           \
	X("brotli-quality", "CUBED_BROTLI_QUALITY", OPT_UINT, brotli_quality,  \
	  "2", 0, 6, "N",                                                      \
	  "quality of br replies (0 fastest; past 6 a reply's coder would "    \
	  "hold 10 MB and more)")                                              \
	X("ticket-ttl", "CUBED_TICKET_TTL", OPT_UINT, ticket_ttl, "60", 1,     \
	  3600, "S", "seconds a stream ticket may open event streams")         \
	X("schema", "CUBED_SCHEMA", OPT_STR, schema, "", 0, 0, "DIR",          \
	  "directory of NNN_name.sql migrations (default: ./schema, else "     \
	  "<dir of binary>/../schema)")                                        \
	X("durability", "CUBED_DURABILITY", OPT_STR, durability, "normal", 0,  \
	  0, "normal|full",                                                    \
	  "full: fsync every commit (power-loss safe); normal: WAL default")   \
	X("shared-db", "CUBED_SHARED_DB", OPT_FLAG, shared_db, "0", 0, 1, "",  \
	  "other cubed processes write this --db too: sessions held in "      \
	  "memory are checked against it (env: 1 or 0)")                      \
	X("max-session-size", "CUBED_MAX_SESSION_SIZE", OPT_UINT,              \
	  max_session_size, "128", 1, 1024, "N",                               \
	  "largest cube size n a session may have")                            \
	X("max-sessions", "CUBED_MAX_SESSIONS", OPT_UINT, max_sessions,        \
	  "1000000", 0, UINT64_MAX, "N",                                       \
	  "sessions the database may hold (0 = no limit)")                     \
	X("session-cache", "CUBED_SESSION_CACHE", OPT_UINT, session_cache,     \
	  "1024", 1, 10000000, "N", "sessions kept in memory (LRU)")          \
	X("tables", "CUBED_TABLES", OPT_STR, tables, "", 0, 0, "DIR",          \
	  "where solver tables are cached (default: the --db directory)")      \
	X("max-solve-ms", "CUBED_MAX_SOLVE_MS", OPT_UINT, max_solve_ms,        \
	  "10000", 1, 600000, "MS", "largest time budget of one solve")        \
	X("solver", "CUBED_SOLVER", OPT_UINT, solver, "1", 0, 1, "0|1",        \
	  "build or load solver tables at start-up (0: solving answers 503)")                                                 \
	X("max-watchers", "CUBED_MAX_WATCHERS", OPT_UINT, max_watchers,        \
	  "4096", 1, 1000000, "N", "live event streams open at once")          \
	X("watcher-buffer", "CUBED_WATCHER_BUFFER", OPT_UINT, watcher_buffer,  \
	  "1048576", 4096, 1073741824, "BYTES",                                \
	  "unread event bytes after which a watcher is cut off")               \
	X("heartbeat", "CUBED_HEARTBEAT", OPT_UINT, heartbeat, "20", 1, 3600,  \
	  "S", "seconds of silence before a stream gets a ': ping'")                      \
	X("idempotency-keys", "CUBED_IDEMPOTENCY_KEYS", OPT_UINT,              \
	  idempotency_keys, "10000", 0, 10000000, "N",                         \
	  "Idempotency-Key answers kept in memory (0 = ignore the header)")    \
	X("idempotency-ttl", "CUBED_IDEMPOTENCY_TTL", OPT_UINT,                \
	  idempotency_ttl, "86400", 1, 31536000, "S",                          \
	  "seconds an Idempotency-Key answer is kept")                         \
	X("idempotency-bytes", "CUBED_IDEMPOTENCY_BYTES", OPT_UINT,            \
	  idempotency_bytes, "67108864", 4096, UINT64_MAX, "BYTES",            \
	  "bytes of Idempotency-Key answers kept in memory, in all")           \
	X("idempotency-client-bytes", "CUBED_IDEMPOTENCY_CLIENT_BYTES",        \
	  OPT_UINT, idempotency_client_bytes, "1048576", 1024, UINT64_MAX,     \
	  "BYTES", "bytes of Idempotency-Key answers kept in memory per "      \
	  "client address (its oldest go first)")                             \
	X("idempotency-lease", "CUBED_IDEMPOTENCY_LEASE", OPT_UINT,            \
	  idempotency_lease, "10", 1, 86400, "S",                              \
	  "seconds a running request holds its Idempotency-Key against "      \
	  "retries (409) before a retry may run; on PostgreSQL also how "     \
	  "long a transaction may sit idle before the server ends it "        \
	  "(a stalled node's claims go with it)")                             \
	X("optimal-level", "CUBED_OPTIMAL_LEVEL", OPT_UINT, optimal_level,     \
	  "2", 0, 2, "0|1|2",                                                  \
	  "optimal solver table size: 0 = 80 MB, 1 = 1.0 GB, 2 = 2.5 GB "      \
	  "(bigger is faster to solve, slower to build)")                      \
	X("solver-4x4", "CUBED_SOLVER_4X4", OPT_UINT, solver_4x4, "1", 0, 1,   \
	  "0|1", "4x4 by three phases over 140 MB of tables (built in about " \
	  "a minute, then cached); 0 = stage by stage")                        \
	X("solver-5x5", "CUBED_SOLVER_5X5", OPT_UINT, solver_5x5, "1", 0, 1,   \
	  "0|1", "5x5 by five phases over 440 MB of tables (built in about "  \
	  "35 s, then cached); 0 = stage by stage")                            \
	X("solver-warm", "CUBED_SOLVER_WARM", OPT_UINT, solver_warm, "1", 0,   \
	  1, "0|1", "load or build the big cubes', 4x4, 5x5 and near (3x3 "    \
	  "optimal near solved, 80 MB) tables at start, at a low priority; "   \
	  "0 = each when a solve first needs it (answers until then are "      \
	  "longer)")                                                           \
	X("optimal-preload", "CUBED_OPTIMAL_PRELOAD", OPT_FLAG,                \
	  optimal_preload, "0", 0, 1, "",                                      \
	  "load or build the optimal solver's tables at start, not at the "    \
	  "first optimal solve")                                               \
	X("solve-workers", "CUBED_SOLVE_WORKERS", OPT_UINT, solve_workers, "", \
	  1, 256, "N", "solver pool threads, for jobs and again for other "   \
	  "solves (also build the optimal tables)")                           \
	X("solve-queue", "CUBED_SOLVE_QUEUE", OPT_UINT, solve_queue, "64", 1,  \
	  100000, "N", "jobs (and, apart, solves) waiting for a solver "       \
	  "thread, in all (503 past it)")                                      \
	X("solve-client-running", "CUBED_SOLVE_CLIENT_RUNNING", OPT_UINT,      \
	  solve_client_running, "1", 1, 256, "N",                              \
	  "jobs (and, apart, solves) one client address may run at once")     \
	X("solve-client-queued", "CUBED_SOLVE_CLIENT_QUEUED", OPT_UINT,        \
	  solve_client_queued, "4", 1, 100000, "N",                            \
	  "jobs (and, apart, solves) one client address may have waiting "    \
	  "(429 past it)")                                                     \
	X("max-jobs", "CUBED_MAX_JOBS", OPT_UINT, max_jobs, "1000", 1,         \
	  1000000, "N", "jobs kept in memory, running or finished (503 when "  \
	  "all are still running)")                                            \
	X("job-ttl", "CUBED_JOB_TTL", OPT_UINT, job_ttl, "3600", 1, 31536000,  \
	  "S", "seconds a finished job is kept")                               \
	X("max-job-s", "CUBED_MAX_JOB_S", OPT_UINT, max_job_s, "3600", 1,      \
	  604800, "S", "seconds a job may run before it fails")  \
	X("db-busy-timeout", "CUBED_DB_BUSY_TIMEOUT", OPT_UINT,                \
	  db_busy_timeout, "5000", 1, 600000, "MS",                            \
	  "how long a write waits for a database lock another connection "    \
	  "holds (then 503 database_busy)")                                    \
	X("db-timeout", "CUBED_DB_TIMEOUT", OPT_UINT, db_timeout, "5000",      \
	  100, 600000, "MS",                                                   \
	  "PostgreSQL: a statement's statement_timeout; a query, a new "      \
	  "connection or the wait for a free one with no answer within it "   \
	  "and a quarter more is given up, its connection dropped (then "     \
	  "503 store_unavailable)")                                           \
	X("db-pool", "CUBED_DB_POOL", OPT_UINT, db_pool, "8", 1, 256, "N",     \
	  "PostgreSQL: connections a node opens for its requests at most "   \
	  "(one more listens); a request waits for a free one")              \
	X("request-timeout", "CUBED_REQUEST_TIMEOUT", OPT_UINT,                \
	  request_timeout, "30", 0, 86400, "S",                                \
	  "seconds a connection has to send a whole request from opening or "  \
	  "from its previous reply (then it is closed; 0 = no limit)")        \
	X("drain-s", "CUBED_DRAIN_S", OPT_UINT, drain_s, "5", 0, 3600, "S",    \
	  "seconds a stopping node (SIGTERM, SIGINT) keeps serving while "    \
	  "/readyz answers 503 draining, so that a balancer moves away "      \
	  "before the listener closes (a second signal ends it; 0 = none)")   \
	X("shutdown-timeout", "CUBED_SHUTDOWN_TIMEOUT", OPT_UINT,              \
	  shutdown_timeout, "20", 0, 3600, "S",                                \
	  "seconds a stop may take after the drain (--drain-s) before the "   \
	  "process exits anyway, status 1 (0 = wait as long as it takes)")    \
	X("max-db-size", "CUBED_MAX_DB_SIZE", OPT_UINT, max_db_size,           \
	  "17179869184", 0, UINT64_MAX, "BYTES",                               \
	  "bytes the database may hold; past it writes get 507 (deletes "      \
	  "still work; 0 = no limit)")                                         \
	X("session-quota", "CUBED_SESSION_QUOTA", OPT_UINT, session_quota,     \
	  "1000", 0, 1000000, "N",                                             \
	  "sessions one client address may create per --quota-window "        \
	  "(429 past it; 0 = no limit)")                                       \
	X("storage-quota", "CUBED_STORAGE_QUOTA", OPT_UINT, storage_quota,     \
	  "67108864", 0, UINT64_MAX, "BYTES",                                  \
	  "bytes one client address may store (sessions created, moves) per " \
	  "--quota-window (429 past it; 0 = no limit)")                        \
	X("quota-window", "CUBED_QUOTA_WINDOW", OPT_UINT, quota_window,        \
	  "3600", 1, 31536000, "S",                                            \
	  "the window of --session-quota and --storage-quota")                 \
	X("events-memory", "CUBED_EVENTS_MEMORY", OPT_UINT, events_memory,     \
	  "268435456", 65536, 68719476736ULL, "BYTES",                         \
	  "event bytes kept for live streams in all (watchers that fall "     \
	  "behind what is kept are cut off)")                                \
	X("dataset-streams", "CUBED_DATASET_STREAMS", OPT_UINT,                 \
	  dataset_streams, "16", 1, 100000, "N",                               \
	  "GET /v1/dataset downloads open at once, in all (503 past it)")     \
	X("dataset-client-streams", "CUBED_DATASET_CLIENT_STREAMS", OPT_UINT,   \
	  dataset_client_streams, "2", 1, 100000, "N",                         \
	  "GET /v1/dataset downloads one client address may have open (429 "  \
	  "past it)")                                                          \
	X("dataset-max-count", "CUBED_DATASET_MAX_COUNT", OPT_UINT,             \
	  dataset_max_count, "100000000", 1, 1099511627776ULL, "N",            \
	  "samples one GET /v1/dataset may ask for (422 past it)")             \
	X("dataset-max-size", "CUBED_DATASET_MAX_SIZE", OPT_UINT,               \
	  dataset_max_size, "33", 2, 1024, "N",                                \
	  "largest cube size of a dataset over HTTP (422 past it)")            \
	X("dataset-max-depth", "CUBED_DATASET_MAX_DEPTH", OPT_UINT,             \
	  dataset_max_depth, "100", 0, 254, "N",                               \
	  "deepest walk of a dataset over HTTP (422 past it)")                 \
	X("dataset-job-rows", "CUBED_DATASET_JOB_ROWS", OPT_UINT,               \
	  dataset_job_rows, "1000000", 1, 100000000, "N",                      \
	  "samples of a solver-labelled dataset job (422 past it)")           \
	X("reply-memory", "CUBED_REPLY_MEMORY", OPT_UINT, reply_memory,        \
	  "67108864", 0, 68719476736ULL, "BYTES",                              \
	  "bytes of replies built but not yet read by their clients, in all "  \
	  "(a read past it gets 503 reply_memory; 0 = no limit)")

static const struct opt {
	const char *name;
	const char *env;
	enum opt_kind kind;
	size_t off;
	const char *def;
	uint64_t min, max;
	const char *meta;
	const char *help;
} opts[] = {
#define CONFIG_ROW(name, env, kind, field, def, min, max, meta, help)          \
	{name, env, kind, offsetof(struct config, field), def, min, max, meta, \
	 help},
	CONFIG_OPTIONS(CONFIG_ROW)
#undef CONFIG_ROW
};

#define NOPTS (sizeof opts / sizeof opts[0])

static uint64_t online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 1024 ? 1024 : (uint64_t)n;
}

/* The HTTP threads' default: the online CPUs, and at least
 * HTTP_THREADS_MIN. libmicrohttpd's poll loop (MHD_USE_POLL, see
 * http.c) walks every connection a thread holds each time it wakes, and
 * accepts one connection per wake: with two threads, a flood of
 * thousands of connections from a few addresses delayed everyone
 * else's accept by seconds (http_faults' slowloris at the issue's
 * scale); with sixteen each thread walks an eighth as many. The threads
 * mostly wait (solves run on the solve pool), so more of them than CPUs
 * cost little. */
#define HTTP_THREADS_MIN 16
static uint64_t http_threads(void)
{
	uint64_t n = online_cpus();
	return n < HTTP_THREADS_MIN ? HTTP_THREADS_MIN : n;
}

static void print_help(FILE *out)
{
	fprintf(out,
		"usage: cubed [options]\n"
		"\n"
		"cubed serves n×n×n Rubik's cube states over HTTP/JSON.\n"
		"Every option can also be set in the environment; the command "
		"line wins.\n\n");
	for (size_t i = 0; i < NOPTS; i++) {
		const struct opt *o = &opts[i];
		char left[64];
		snprintf(left, sizeof left, "--%s%s%s", o->name,
			 o->meta[0] ? " " : "", o->meta);
		fprintf(out, "  %-28s %s\n", left, o->help);
		if (o->kind == OPT_FLAG)
			fprintf(out, "  %-28s env %s, default off\n", "", o->env);
		else if (strcmp(o->name, "threads") == 0)
			fprintf(out, "  %-28s env %s, default %lu (online CPUs, "
				"at least %d)\n",
				"", o->env, (unsigned long)http_threads(),
				HTTP_THREADS_MIN);
		else if (strcmp(o->name, "solve-workers") == 0)
			fprintf(out, "  %-28s env %s, default %lu (online CPUs)\n",
				"", o->env, (unsigned long)online_cpus());
		else
			fprintf(out, "  %-28s env %s, default %s\n", "", o->env,
				o->def[0] ? o->def : "(none)");
	}
	fprintf(out, "  %-28s %s\n  %-28s %s\n", "--help",
		"print this help and exit", "--version",
		"print the version and exit");
}

/* Parse a value for o into cfg. where names the source for messages
 * ("--port" or "CUBED_PORT"). Returns 0 or -1 after printing to err. */
static int set_value(struct config *cfg, const struct opt *o, const char *v,
		     const char *where, FILE *err)
{
	char *base = (char *)cfg + o->off;
	if (o->kind == OPT_STR) {
		/* A header value or a path with a control character is a
		 * mistake (or an injection), never intended. */
		for (const char *p = v; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f) {
				fprintf(err,
					"cubed: %s: control characters are not "
					"allowed\n",
					where);
				return -1;
			}
		if (v[0] == '\0' && strcmp(o->name, "openapi") != 0 &&
		    strcmp(o->name, "schema") != 0 &&
		    strcmp(o->name, "tables") != 0 &&
		    strcmp(o->name, "web-root") != 0) {
			fprintf(err, "cubed: %s: must not be empty\n", where);
			return -1;
		}
		const char *s = v[0] ? v : NULL;
		memcpy(base, &s, sizeof s);
		return 0;
	}
	if (o->kind == OPT_FLAG && (strcmp(v, "") == 0 || strcmp(v, "0") == 0)) {
		uint64_t z = 0;
		memcpy(base, &z, sizeof z);
		return 0;
	}
	const char *p = v;
	while (*p == ' ')
		p++;
	char *end = NULL;
	errno = 0;
	unsigned long long x = strtoull(p, &end, 10);
	if (*p < '0' || *p > '9' || end == p || *end != '\0' ||
	    errno == ERANGE || x < o->min || x > o->max) {
		fprintf(err,
			"cubed: %s: expected an integer from %llu to %llu, got "
			"\"%s\"\n",
			where, (unsigned long long)o->min,
			(unsigned long long)o->max, v);
		return -1;
	}
	uint64_t u = x;
	memcpy(base, &u, sizeof u);
	return 0;
}

/* A list of header names for --cors-allow-headers: tokens (RFC 9110
 * tchar) separated by commas and spaces, or "-" for none. */
static int header_list_ok(const char *s)
{
	if (strcmp(s, "-") == 0)
		return 1;
	int names = 0;
	for (const char *p = s; *p;) {
		size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyz"
				     "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
				     "!#$%&'*+-.^_`|~");
		if (n == 0)
			return 0;
		names++;
		p += n;
		p += strspn(p, " ");
		if (*p == ',') {
			p++;
			p += strspn(p, " ");
			if (*p == '\0')
				return 0;
		} else if (*p != '\0') {
			return 0;
		}
	}
	return names > 0;
}

static const struct opt *find_opt(const char *name, size_t len)
{
	for (size_t i = 0; i < NOPTS; i++)
		if (strlen(opts[i].name) == len &&
		    strncmp(opts[i].name, name, len) == 0)
			return &opts[i];
	return NULL;
}

/* 1 if argv sets o ("--name", "--name=…"). */
static int on_command_line(const struct opt *o, int argc, char **argv)
{
	size_t n = strlen(o->name);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strncmp(a, "--", 2) == 0 && strncmp(a + 2, o->name, n) == 0 &&
		    (a[2 + n] == '\0' || a[2 + n] == '='))
			return 1;
	}
	return 0;
}

enum config_result config_load(struct config *cfg, int argc, char **argv,
			       FILE *out, FILE *err)
{
	memset(cfg, 0, sizeof *cfg);
	for (size_t i = 0; i < NOPTS; i++) {
		const struct opt *o = &opts[i];
		if (o->kind == OPT_STR) {
			const char *s = o->def[0] ? o->def : NULL;
			memcpy((char *)cfg + o->off, &s, sizeof s);
		} else if (o->def[0]) {
			if (set_value(cfg, o, o->def, o->name, err) < 0)
				return CONFIG_ERROR;
		}
	}
	cfg->threads = http_threads();
	cfg->solve_workers = online_cpus();

	/* The command line wins: an environment value it overrides is not
	 * even checked, so a stale bad CUBED_X never blocks --x. */
	for (size_t i = 0; i < NOPTS; i++) {
		const char *v = getenv(opts[i].env);
		if (v && !on_command_line(&opts[i], argc, argv) &&
		    set_value(cfg, &opts[i], v, opts[i].env, err) < 0)
			return CONFIG_ERROR;
	}

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			print_help(out);
			return CONFIG_EXIT;
		}
		if (strcmp(a, "--version") == 0) {
			struct version_info v;
			version_get(&v);
			fprintf(out, "cubed %s (commit %s)\n", v.version,
				v.commit);
			return CONFIG_EXIT;
		}
		if (strncmp(a, "--", 2) != 0) {
			fprintf(err,
				"cubed: unexpected argument \"%s\" (try "
				"--help)\n",
				a);
			return CONFIG_ERROR;
		}
		const char *name = a + 2, *eq = strchr(name, '=');
		size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
		const struct opt *o = find_opt(name, nlen);
		if (o == NULL) {
			fprintf(err, "cubed: unknown option \"%s\" (try --help)\n",
				a);
			return CONFIG_ERROR;
		}
		char where[64];
		snprintf(where, sizeof where, "--%s", o->name);
		const char *v;
		if (o->kind == OPT_FLAG)
			v = eq ? eq + 1 : "1";
		else if (eq)
			v = eq + 1;
		else if (i + 1 < argc)
			v = argv[++i];
		else {
			fprintf(err, "cubed: %s needs a value (try --help)\n",
				where);
			return CONFIG_ERROR;
		}
		if (set_value(cfg, o, v, where, err) < 0)
			return CONFIG_ERROR;
	}
	if (log_format_parse(cfg->log_format) < 0) {
		fprintf(err, "cubed: --log-format must be text or json, not "
			     "\"%s\"\n",
			cfg->log_format);
		return CONFIG_ERROR;
	}
	if (log_level_parse(cfg->log_level) < 0) {
		fprintf(err, "cubed: --log-level must be debug, info, warn or "
			     "error, not \"%s\"\n",
			cfg->log_level);
		return CONFIG_ERROR;
	}
	unsigned mask;
	if (compress_parse_list(cfg->compress, &mask) < 0) {
		fprintf(err, "cubed: --compress must be a list of br and gzip, "
			     "or off, not \"%s\"\n",
			cfg->compress);
		return CONFIG_ERROR;
	}
	if (!header_list_ok(cfg->cors_allow_headers)) {
		fprintf(err, "cubed: --cors-allow-headers must be header names "
			     "separated by commas (or \"-\"), not \"%s\"\n",
			cfg->cors_allow_headers);
		return CONFIG_ERROR;
	}
	struct limits_cidr cidrs[LIMITS_MAX_CIDRS];
	char why[160];
	if (limits_parse_cidrs(cfg->trusted_proxy, cidrs, LIMITS_MAX_CIDRS, why,
			       sizeof why) < 0) {
		fprintf(err, "cubed: --trusted-proxy: %s\n", why);
		return CONFIG_ERROR;
	}
	if (strcmp(cfg->durability, "normal") != 0 &&
	    strcmp(cfg->durability, "full") != 0) {
		fprintf(err, "cubed: --durability must be normal or full, not "
			     "\"%s\"\n",
			cfg->durability);
		return CONFIG_ERROR;
	}
	return CONFIG_RUN;
}
