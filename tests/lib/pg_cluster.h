/* pg_cluster.h — a private PostgreSQL cluster for the tests: initdb and
 * pg_ctl (Debian's postgresql binaries) in a new temporary directory that
 * holds the data, the log and the Unix socket, listening on a free
 * loopback port, trust authentication for one user (cubed). Nothing is
 * shared with another run. As root (CI) the binaries run as the
 * unprivileged postgres user (initdb refuses root).
 *
 * Databases: pg_cluster_createdb makes one per test server, so servers
 * never see each other's sessions unless a test points two at one. */
#ifndef CUBED_PG_CLUSTER_H
#define CUBED_PG_CLUSTER_H

#include <stddef.h>

struct pg_cluster {
	char dir[64];   /* data in dir/data, log dir/pg.log, socket in dir */
	int port;
	int running;
	char url[128];  /* postgresql://cubed@127.0.0.1:port/ (+ a name) */
};

/* initdb + start. durable: fsync on (benchmarks), else off (tests: a
 * fast stop flushes everything anyway). 0, or -1 with a reason. */
int pg_cluster_start(struct pg_cluster *c, int durable, char *err,
		     size_t errlen);
/* pg_ctl stop -m fast (the data stays); 0 or -1. */
int pg_cluster_halt(struct pg_cluster *c);
/* Start a halted cluster again on the same port; 0 or -1. */
int pg_cluster_resume(struct pg_cluster *c, char *err, size_t errlen);
/* Stop (if running) and remove the directory. */
void pg_cluster_destroy(struct pg_cluster *c);

/* CREATE DATABASE name (an existing one is fine); url receives its
 * address. 0, or -1 with a reason in err. */
int pg_cluster_createdb(const char *base_url, const char *name, char *url,
			size_t urllen, char *err, size_t errlen);

/* Run one SQL statement against the database at url; 0 or -1 (reason in
 * err). For tests that look at the rows themselves. */
int pg_exec(const char *url, const char *sql, char *err, size_t errlen);
/* The first column of the first row of a query as an integer, or -1. */
long long pg_query_int(const char *url, const char *sql);

#endif
