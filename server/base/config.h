/* config.h — the server's settings: one table of options, each settable
 * from the command line or the environment, with defaults and ranges. */
#ifndef CUBED_CONFIG_H
#define CUBED_CONFIG_H

#include <stdint.h>
#include <stdio.h>

#define CUBED_VERSION "0.1.0"

struct config {
	uint64_t port;
	const char *bind;
	const char *db;
	uint64_t threads;
	uint64_t max_body;
	uint64_t max_moves;
	uint64_t max_work;            /* 0 = no limit */
	const char *cors_origin;
	const char *trusted_proxy;    /* CIDR list, NULL = trust no proxy */
	uint64_t max_header;          /* request line + headers, bytes */
	uint64_t max_connections;
	uint64_t max_connections_per_ip; /* 0 = no limit */
	uint64_t rate_limit;          /* requests/s per address, 0 = off */
	uint64_t rate_burst;
	uint64_t timeout;             /* idle connection timeout, seconds */
	const char *openapi;          /* NULL = look next to the binary */
	uint64_t quiet;               /* 1 = errors only (--log-level error) */
	const char *log_format;       /* "text" or "json" */
	const char *log_level;        /* "debug", "info", "warn", "error" */
	const char *cors_allow_headers; /* extra preflight headers, "-" = none */
	const char *compress;         /* "br,gzip", "gzip", "br" or "off" */
	uint64_t compress_min;        /* smallest body compressed, bytes */
	uint64_t gzip_level;          /* 1..9 */
	uint64_t brotli_quality;      /* 0..11 */
	uint64_t ticket_ttl;          /* seconds a stream ticket is good for */
	const char *web_root;         /* NULL = <dir of binary>/web */
	const char *schema;           /* NULL = ./schema, else next to the binary */
	const char *durability;       /* "normal" or "full" */
	uint64_t shared_db;           /* 1 = other processes write the db */
	uint64_t max_session_size;    /* largest n of a session */
	uint64_t max_sessions;        /* 0 = no limit */
	uint64_t session_cache;       /* sessions kept in memory */
	const char *tables;           /* solver table cache dir, NULL = db's */
	uint64_t max_solve_ms;        /* longest time budget of one solve */
	uint64_t solver;              /* 0 = no solver tables (no solving) */
	uint64_t max_watchers;        /* live event streams at once */
	uint64_t watcher_buffer;      /* unread bytes before a cut-off */
	uint64_t heartbeat;           /* seconds between pings on a quiet stream */
	uint64_t idempotency_keys;    /* answers kept, 0 = header ignored */
	uint64_t idempotency_ttl;     /* seconds an answer is kept */
	uint64_t idempotency_bytes;   /* bytes of answers in memory, in all */
	uint64_t idempotency_client_bytes; /* and per client address */
	uint64_t idempotency_lease;   /* seconds a running key holds */
	uint64_t optimal_level;       /* the optimal solver's table level */
	uint64_t optimal_preload;     /* 1 = make those tables at start */
	uint64_t solver_4x4;          /* 1 = 4×4 by three phases */
	uint64_t solver_5x5;          /* 1 = 5×5 by five phases */
	uint64_t solver_warm;         /* 1 = big cubes' tables at start */
	uint64_t solve_workers;       /* solver pool threads */
	uint64_t solve_queue;         /* jobs waiting in the pool, in all */
	uint64_t solve_client_running; /* jobs one client may have running */
	uint64_t solve_client_queued; /* jobs one client may have waiting */
	uint64_t max_jobs;            /* jobs kept in memory */
	uint64_t job_ttl;             /* seconds a finished job is kept */
	uint64_t max_job_s;           /* seconds a job may run */
	uint64_t db_busy_timeout;     /* ms a write waits for a held lock */
	uint64_t db_timeout;          /* ms a PostgreSQL round trip may take */
	uint64_t db_pool;             /* PostgreSQL connections for requests */
	uint64_t request_timeout;     /* s to send a whole request, 0 = off */
	uint64_t drain_s;             /* s a stop keeps serving, not ready */
	uint64_t shutdown_timeout;    /* s a stop may take after it, 0 = unbounded */
	uint64_t max_db_size;         /* bytes of rows, 0 = no limit */
	uint64_t session_quota;       /* creations per address per window */
	uint64_t storage_quota;       /* bytes stored per address per window */
	uint64_t quota_window;        /* seconds */
	uint64_t events_memory;       /* bytes of events kept for streams */
	uint64_t reply_memory;        /* bytes of unsent replies, 0 = no cap */
	uint64_t dataset_streams;     /* GET /v1/dataset open at once */
	uint64_t dataset_client_streams; /* … per client address */
	uint64_t dataset_max_count;   /* samples a dataset request */
	uint64_t dataset_max_size;    /* cube size of a dataset request */
	uint64_t dataset_max_depth;   /* walk depth of a dataset request */
	uint64_t dataset_job_rows;    /* samples of a dataset job */
};

enum config_result {
	CONFIG_RUN = 0,   /* settings are in cfg: start the server */
	CONFIG_EXIT = 1,  /* --help or --version was printed: exit 0 */
	CONFIG_ERROR = 2, /* a message went to err: exit 2 */
};

/* Fill cfg from defaults, then the environment (getenv), then argv (which
 * wins). Strings in cfg point into argv, the environment or static data.
 * --help / --version print to out; errors print one line to err. */
enum config_result config_load(struct config *cfg, int argc, char **argv,
			       FILE *out, FILE *err);

#endif
