/* test_server.h — the black-box suites' server fixture: spawn $CUBED_BIN
 * (default build/cubed) on 127.0.0.1 port 0 with a database in a
 * directory of its own, learn the port from its "listening" line, and stop
 * it by pid (SIGTERM, or SIGKILL for crash tests).
 *
 * The suites written before this file each carry a copy of the same code;
 * new suites use this one. Nothing here prints or exits: failures come
 * back as -1 with a reason the test can show. */
#ifndef CUBED_TEST_SERVER_H
#define CUBED_TEST_SERVER_H

#include <stddef.h>
#include <sys/types.h>

typedef struct test_server {
	pid_t pid;     /* 0 when not running */
	int port;
	char dir[64];  /* holds cubed.db and server.log */
	char db[160];  /* the --db address: dir/cubed.db, or with
			* $CUBED_TEST_PG set (make test-pg) a database of
			* that cluster named after dir */
	char log[96];
} test_server;

/* Start a server on the database in dir (with $CUBED_TEST_PG, the
 * PostgreSQL database named after dir, created when new) (a new temporary directory when
 * dir is NULL; an existing one is reused, and its log appended to), with
 * --openapi openapi.yaml when the file is here, --tables $CUBED_TABLES
 * when that is set, then extra (NULL-terminated, may be NULL; later
 * options win). Returns 0, or -1 with a reason in err and nothing left
 * running. */
int test_server_start(test_server *s, const char *dir,
		      const char *const *extra, char *err, size_t errlen);

/* SIGTERM and wait up to 10 s (then SIGKILL). Returns the wait status, or
 * -1 if it had to be killed. remove: delete the directory afterwards
 * (unless $CUBED_KEEP_TMP is set). */
int test_server_stop(test_server *s, int remove);

/* SIGKILL and reap: a crash, the directory stays. */
void test_server_kill(test_server *s);

/* Remove the directory of a stopped server. */
void test_server_remove(test_server *s);

/* The last cap-1 bytes of the server's log. */
const char *test_server_log_tail(const test_server *s, char *buf, size_t cap);

/* The server's VmRSS in KiB, or -1. */
long test_server_rss_kb(const test_server *s);

double test_now(void);
void test_sleep_ms(int ms);

#endif
