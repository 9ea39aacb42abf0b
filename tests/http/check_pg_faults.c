/* check_pg_faults.c — the PostgreSQL engine under the faults of issue 61
 * (make test-pg): a frozen server, a frozen LISTEN connection, a restart,
 * start-up errors. The nodes run with a short --db-timeout (FAULT_MS) so
 * each case takes a few seconds.
 *
 *   frozen_database       PostgreSQL stopped with SIGSTOP (postmaster and
 *                         every backend): /healthz answers at once; a
 *                         read, a write, /readyz and /metrics answer
 *                         within BOUND_S (503 store_unavailable with
 *                         Retry-After, /readyz naming no host); after
 *                         SIGCONT everything works, no acked write lost
 *                         and the refused write not applied;
 *   frozen_commit         the backend frozen inside COMMIT (a deferred
 *                         trigger sleeps there): 503 outcome_unknown
 *                         within BOUND_S, and the retry with the same
 *                         Idempotency-Key makes the write exactly once;
 *   frozen_listener       only the LISTEN connections' backends frozen: a
 *                         watcher on the other node still gets a write
 *                         within BOUND_S (the listener's health query
 *                         notices, it reconnects and catches up);
 *   restart_keeps_pool    PostgreSQL restarted under a warm pool: every
 *                         read and write after it succeeds at the first
 *                         try, and /readyz says ready;
 *   start_permanent_errors  sslmode=require against a server without
 *                         TLS, an unknown role, a bad option: the node
 *                         exits with status 2 and the reason;
 *   start_too_many_connections  the node's role has no connection slot
 *                         left (53300): the node starts not ready, says
 *                         why in its log, and is ready once a slot frees;
 *   start_migration_locked  another session holds the schema migration
 *                         lock: the node starts within its deadline, not
 *                         ready, writes 503, and is ready once it frees.
 *
 * Whatever is stopped with SIGSTOP is continued by a guard process too
 * (struct freeze, in a session of its own so that Check's kill of the
 * test's process group spares it): when the test ends in any way, or
 * after GUARD_S, so a failed test never leaves the cluster frozen for
 * the rest of the run. */
#include <check.h>
#include <dirent.h>
#include <jansson.h>
#include <libpq-fe.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pg_nodes.h"
#include "sse_client.h"
#include "suites.h"

#define FAULT_MS "500"  /* --db-timeout of the nodes here */
#define BOUND_S 2.5     /* 2 × (500 ms and a quarter), and room */
#define GUARD_S 30      /* the longest a freeze may last */

/* The options of the nodes whose database faults here. */
static const char *const FAULT_ARGS[] = {"--db-timeout", FAULT_MS, NULL};

/* ------------------------------------------------------------ freezing */

struct freeze {
	pid_t pids[512];
	int n;
	pid_t guard;
	int pipe_w; /* the guard continues everything when this closes */
};

static pid_t postmaster_pid(const char *dir)
{
	char path[160];
	snprintf(path, sizeof path, "%s/data/postmaster.pid", dir);
	FILE *f = fopen(path, "r");
	long pid = -1;
	if (f) {
		if (fscanf(f, "%ld", &pid) != 1)
			pid = -1;
		fclose(f);
	}
	return (pid_t)pid;
}

/* The children of ppid (from /proc/<pid>/stat). */
static int children_of(pid_t ppid, pid_t *out, int cap)
{
	DIR *d = opendir("/proc");
	int n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL && n < cap) {
		long pid = strtol(e->d_name, NULL, 10);
		if (pid <= 0)
			continue;
		char path[64], buf[512];
		snprintf(path, sizeof path, "/proc/%ld/stat", pid);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		size_t k = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[k] = '\0';
		/* pid (comm) state ppid …: comm may hold spaces */
		char *rp = strrchr(buf, ')');
		long parent = -1;
		char state;
		if (rp && sscanf(rp + 1, " %c %ld", &state, &parent) == 2 &&
		    parent == ppid)
			out[n++] = (pid_t)pid;
	}
	if (d)
		closedir(d);
	return n;
}

/* SIGSTOP pids, after starting the guard that SIGCONTs them when the
 * pipe closes (this process ended, or freeze_end) or after GUARD_S. */
static void freeze_pids(struct freeze *f, const pid_t *pids, int n)
{
	memset(f, 0, sizeof *f);
	ck_assert_int_gt(n, 0);
	ck_assert_int_le(n, (int)(sizeof f->pids / sizeof f->pids[0]));
	memcpy(f->pids, pids, (size_t)n * sizeof *pids);
	f->n = n;
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	pid_t g = fork();
	ck_assert_int_ge(g, 0);
	if (g == 0) {
		/* a session of its own: Check kills the test's process group
		 * when the test ends (and on its timeout), and the guard must
		 * outlive that to continue what it guards */
		setsid();
		close(p[1]);
		struct pollfd w = {p[0], POLLIN, 0};
		poll(&w, 1, GUARD_S * 1000);
		for (int i = 0; i < n; i++)
			kill(pids[i], SIGCONT);
		_exit(0);
	}
	close(p[0]);
	f->guard = g;
	f->pipe_w = p[1];
	for (int i = 0; i < n; i++)
		kill(pids[i], SIGSTOP);
}

/* The whole cluster: the postmaster first (it forks no new backend
 * then), then its children. */
static void freeze_cluster(struct freeze *f, const char *dir)
{
	pid_t pids[512];
	pids[0] = postmaster_pid(dir);
	ck_assert_int_gt(pids[0], 0);
	int n = 1 + children_of(pids[0], pids + 1, 511);
	freeze_pids(f, pids, n);
}

static void freeze_end(struct freeze *f)
{
	for (int i = 0; i < f->n; i++)
		kill(f->pids[i], SIGCONT);
	close(f->pipe_w);
	waitpid(f->guard, NULL, 0);
	f->n = 0;
}

/* ------------------------------------------------------------- helpers */

/* One request: its status (-1 when none came) and how long it took. */
static int timed(int port, const char *method, const char *path,
		 const char *token, const char *body, double *took,
		 http_response *keep)
{
	http_response r;
	double t0 = now_s();
	call(&r, port, method, path, token, NULL, body);
	*took = now_s() - t0;
	int status = r.status;
	if (keep)
		*keep = r;
	else
		http_response_free(&r);
	return status;
}

/* A 503 with Retry-After and the given problem code (one of two). */
static void expect_503(const http_response *r, const char *what,
		       const char *code, const char *or_code)
{
	ck_assert_msg(r->status == 503, "%s: %d %.300s", what, r->status,
		      r->body ? r->body : r->error);
	ck_assert_msg(http_header(r, "Retry-After"), "%s: no Retry-After",
		      what);
	json_t *j = json_loadb(r->body, r->body_len, 0, NULL);
	ck_assert_ptr_nonnull(j);
	const char *c = sget(j, "code");
	ck_assert_msg(strcmp(c, code) == 0 || (or_code && strcmp(c, or_code) ==
						       0),
		      "%s: code %s", what, c);
	json_decref(j);
}

static int post_moves(int port, const ses *s, const char *moves,
		      double *took, http_response *keep)
{
	char path[160], body[96];
	snprintf(path, sizeof path, "%s/moves", s->path);
	snprintf(body, sizeof body, "{\"moves\": \"%s\"}", moves);
	return timed(port, "POST", path, s->token, body, took, keep);
}

/* -------------------------------------------------------------- tests */

START_TEST(frozen_database)
{
	server n;
	ses s;
	pg_node_start_session(&n, FAULT_ARGS, &s);
	static const char *const acked[] = {"R", "U", "F"};
	double took;
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(post_moves(n.port, &s, acked[i], &took, NULL),
				 200);
	/* a session this node never held: its read must go to the rows */
	server other;
	pg_node_start(&other, &n, NULL);
	ses cold;
	json_decref(create(other.port, "{\"size\": 2}", &cold));
	ck_assert_int_eq(server_stop(&other, 1), 0);

	struct pg_cluster c;
	pg_test_cluster(&c);
	struct freeze f;
	freeze_cluster(&f, c.dir);

	/* liveness needs no database */
	ck_assert_int_eq(timed(n.port, "GET", "/healthz", NULL, NULL, &took,
			       NULL),
			 200);
	ck_assert_msg(took < 0.5, "/healthz took %.2f s", took);

	http_response r;
	timed(n.port, "GET", cold.path, cold.token, NULL, &took, &r);
	expect_503(&r, "read", "store_unavailable", NULL);
	http_response_free(&r);
	ck_assert_msg(took < BOUND_S, "the read took %.2f s", took);
	double read_s = took;

	post_moves(n.port, &s, "L", &took, &r);
	/* BEGIN got no answer: nothing was sent that could commit */
	expect_503(&r, "write", "store_unavailable", NULL);
	http_response_free(&r);
	ck_assert_msg(took < BOUND_S, "the write took %.2f s", took);
	double write_s = took;

	timed(n.port, "GET", "/readyz", NULL, NULL, &took, &r);
	ck_assert_msg(took < BOUND_S, "/readyz took %.2f s", took);
	expect_503(&r, "/readyz", "database", NULL);
	/* the reason names hosts: the log has it, not the reply */
	ck_assert_msg(!strstr(r.body, "127.0.0.1") && !strstr(r.body, "port"),
		      "%s", r.body);
	http_response_free(&r);
	double ready_s = took;

	int st = timed(n.port, "GET", "/metrics", NULL, NULL, &took, &r);
	ck_assert_int_eq(st, 200);
	ck_assert_msg(took < BOUND_S, "/metrics took %.2f s", took);
	/* the count it could not read is -1, not a stale number */
	ck_assert(http_metric(r.body, "cubed_sessions") == -1);
	/* the deadlines that ran out are counted */
	double timeouts = http_metric(r.body, "cubed_db_timeouts_total");
	ck_assert_msg(timeouts >= 1, "cubed_db_timeouts_total %.0f", timeouts);
	http_response_free(&r);
	printf("pg_faults: frozen: read %.2f s, write %.2f s, readyz %.2f s, "
	       "metrics %.2f s (--db-timeout " FAULT_MS " ms)\n",
	       read_s, write_s, ready_s, took);

	freeze_end(&f);
	ck_assert_int_eq(wait_ready(n.port, 10), 200);
	/* every acked write is there; the refused one is not */
	long long v = -1;
	ck_assert_int_eq(post_moves(n.port, &s, "D", &took, &r), 200);
	json_t *j = parse(&r, "write after");
	v = iget(j, "version");
	json_decref(j);
	http_response_free(&r);
	ck_assert_int_eq(v, 4);
	json_t *h = history_all(n.port, &s, NULL, 100);
	ck_assert_int_eq(json_array_size(h), 5);
	for (int i = 0; i < 3; i++)
		ck_assert_str_eq(sget(json_array_get(h, (size_t)i + 1),
				      "moves"),
				 acked[i]);
	ck_assert_str_eq(sget(json_array_get(h, 4), "moves"), "D");
	json_decref(h);
	json_decref(get_session(n.port, cold.path, cold.token, 0));
	ck_assert_int_eq(server_stop(&n, 1), 0);
}
END_TEST

/* The backend of db sleeping in pg_sleep (the trigger below), or -1. */
static pid_t sleeping_backend(const char *url)
{
	long long pid = pg_query_int(url, "SELECT pid FROM pg_stat_activity "
					  "WHERE wait_event = 'PgSleep' AND "
					  "datname = current_database() "
					  "LIMIT 1");
	return (pid_t)pid;
}

/* A COMMIT that gets no answer (its backend frozen while a deferred
 * trigger runs at commit) is 503 outcome_unknown within the bound, not
 * "nothing was changed"; the retry with its key makes it exactly once. */
START_TEST(frozen_commit)
{
	server n;
	ses s;
	pg_node_start_session(&n, FAULT_ARGS, &s);
	/* a deferred trigger: every commit that added an event sleeps 1 s
	 * in PostgreSQL, long enough to freeze it there */
	pg_do(n.db, "CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE "
		    "plpgsql AS $$ BEGIN PERFORM pg_sleep(1); RETURN NULL; "
		    "END $$");
	pg_do(n.db, "CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT ON "
		    "events DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE "
		    "FUNCTION slow_commit()");
	/* the write runs in a thread of the server: find its backend in
	 * the sleep and freeze it (the guard continues it in any case) */
	pid_t writer = fork();
	ck_assert_int_ge(writer, 0);
	if (writer == 0) {
		http_response r;
		double t0 = now_s();
		send_moves(&r, n.port, &s, "R", "k-commit", -1);
		double took = now_s() - t0;
		int ok = r.status == 503 && r.body &&
			 strstr(r.body, "\"outcome_unknown\"") &&
			 http_header(&r, "Retry-After") && took < BOUND_S + 1;
		if (!ok)
			fprintf(stderr, "frozen_commit: %d after %.2f s: %s\n",
				r.status, took, r.body ? r.body : r.error);
		_exit(ok ? 0 : 1);
	}
	pid_t backend = -1;
	double deadline = now_s() + 5;
	while ((backend = sleeping_backend(n.db)) <= 0 && now_s() < deadline)
		test_sleep_ms(5);
	ck_assert_int_gt(backend, 0);
	struct freeze f;
	freeze_pids(&f, &backend, 1);
	int wst;
	ck_assert_int_eq(waitpid(writer, &wst, 0), writer);
	freeze_end(&f);
	ck_assert_msg(WIFEXITED(wst) && WEXITSTATUS(wst) == 0,
		      "the write was not answered outcome_unknown in time");
	pg_do(n.db, "DROP TRIGGER slow_commit ON events");
	/* the retry with the key: done once, whatever the first did */
	http_response r;
	ck_assert_int_eq(wait_ready(n.port, 10), 200);
	ck_assert_int_eq(send_moves(&r, n.port, &s, "R", "k-commit", -1), 200);
	http_response_free(&r);
	json_t *h = history_all(n.port, &s, NULL, 100);
	ck_assert_int_eq(json_array_size(h), 2);
	ck_assert_str_eq(sget(json_array_get(h, 1), "moves"), "R");
	json_decref(h);
	ck_assert_int_eq(server_stop(&n, 1), 0);
}
END_TEST

/* The pids of the backends of the LISTEN connections on the database
 * of url (application_name cubed-listen). */
static int listener_backends(const char *url, pid_t *out, int cap)
{
	PGconn *pq = PQconnectdb(url);
	int n = 0;
	if (PQstatus(pq) == CONNECTION_OK) {
		PGresult *r = PQexec(pq, "SELECT pid FROM pg_stat_activity "
					 "WHERE application_name = "
					 "'cubed-listen' AND datname = "
					 "current_database()");
		for (int i = 0; PQresultStatus(r) == PGRES_TUPLES_OK &&
				i < PQntuples(r) && n < cap;
		     i++)
			out[n++] = (pid_t)atol(PQgetvalue(r, i, 0));
		PQclear(r);
	}
	PQfinish(pq);
	return n;
}

START_TEST(frozen_listener)
{
	server a, b;
	ses s;
	pg_nodes_start_session(&a, &b, FAULT_ARGS, &s);
	sse_client w;
	watch_session(&w, b.port, &s, 0);
	sse_event e;

	/* both listeners up (each node's started with it) */
	pid_t pids[8];
	int n = 0;
	double deadline = now_s() + 5;
	while ((n = listener_backends(a.db, pids, 8)) < 2 && now_s() < deadline)
		test_sleep_ms(20);
	ck_assert_int_eq(n, 2);
	struct freeze f;
	freeze_pids(&f, pids, n);

	/* the pool's connections work: A writes; B's listener is stuck,
	 * and must notice by its health query, reconnect and catch up */
	double took;
	ck_assert_int_eq(post_moves(a.port, &s, "R", &took, NULL), 200);
	double t0 = now_s();
	int rc = sse_next_event(&w, &e, (int)(2 * BOUND_S * 1000));
	double heard = now_s() - t0;
	ck_assert_msg(rc == 1, "B's watcher heard nothing in %.1f s: %s",
		      2 * BOUND_S, w.error);
	ck_assert_str_eq(e.id, "1");
	ck_assert_str_eq(e.type, "moves");
	sse_event_free(&e);
	printf("pg_faults: frozen listener: the watcher on the other node "
	       "got the write after %.2f s\n",
	       heard);

	freeze_end(&f);
	/* and the new listener carries the next write */
	ck_assert_int_eq(post_moves(a.port, &s, "U", &took, NULL), 200);
	expect_sse_event(&w, &e, 5000, "the next write");
	ck_assert_str_eq(e.id, "2");
	sse_event_free(&e);
	sse_close(&w);
	ck_assert_int_eq(wait_ready(b.port, 5), 200);
	pg_nodes_stop(&a, &b);
}
END_TEST

struct reader {
	int port;
	const ses *s;
	int bad;
};

static void *read_some(void *arg)
{
	struct reader *r = arg;
	for (int i = 0; i < 10; i++) {
		http_response g;
		call(&g, r->port, "GET", r->s->path, r->s->token, NULL, NULL);
		r->bad += g.status != 200;
		http_response_free(&g);
	}
	return NULL;
}

START_TEST(restart_keeps_pool)
{
	enum { READERS = 8, AFTER = 40 };
	server n;
	const char *args[] = {"--db-timeout", "2000", NULL};
	ses s;
	pg_node_start_session(&n, args, &s);
	/* warm: readers at once open several pooled connections */
	pthread_t th[READERS];
	struct reader rd[READERS];
	for (int i = 0; i < READERS; i++) {
		rd[i] = (struct reader){n.port, &s, 0};
		pthread_create(&th[i], NULL, read_some, &rd[i]);
	}
	for (int i = 0; i < READERS; i++) {
		pthread_join(th[i], NULL);
		ck_assert_int_eq(rd[i].bad, 0);
	}
	struct pg_cluster c;
	pg_test_cluster(&c);
	char err[1024];
	ck_assert_int_eq(pg_cluster_halt(&c), 0);
	ck_assert_msg(pg_cluster_resume(&c, err, sizeof err) == 0, "%s", err);
	/* every request at the first try: a stale pooled connection is
	 * found before use, not by a request's 503 */
	int fails = 0;
	char first[400] = "";
	for (int i = 0; i < AFTER; i++) {
		http_response r;
		double took;
		if (i % 4 == 3)
			post_moves(n.port, &s, "R", &took, &r);
		else
			timed(n.port, "GET", s.path, s.token, NULL, &took, &r);
		if (r.status != 200 && !fails++)
			snprintf(first, sizeof first, "request %d: %d %.300s",
				 i, r.status, r.body ? r.body : r.error);
		http_response_free(&r);
	}
	ck_assert_msg(fails == 0, "%d of %d requests failed after the "
				  "restart; the first: %s",
		      fails, AFTER, first);
	ck_assert_int_eq(wait_ready(n.port, 2), 200);
	json_decref(get_session(n.port, s.path, s.token, AFTER / 4));
	ck_assert_int_eq(server_stop(&n, 1), 0);
}
END_TEST

/* GETs of old versions (each a snapshot and events read back): long
 * enough that readers at once each hold a pooled connection. */
static void *read_versions(void *arg)
{
	struct reader *r = arg;
	for (int i = 0; i < 20; i++) {
		char p[200];
		snprintf(p, sizeof p, "%s?version=%d", r->s->path,
			 (i * 37) % 60);
		http_response g;
		call(&g, r->port, "GET", p, r->s->token, NULL, NULL);
		r->bad += g.status != 200;
		http_response_free(&g);
	}
	return NULL;
}

struct sampler {
	const char *url;
	_Atomic int stop;
	long long most;
};

/* The node's pooled connections (application_name cubed-<hex>, the
 * listener's is cubed-listen), the most seen while the readers run. */
static void *sample_pool(void *arg)
{
	struct sampler *m = arg;
	while (!atomic_load(&m->stop)) {
		long long k = pg_query_int(
			m->url, "SELECT count(*) FROM pg_stat_activity WHERE "
				"application_name LIKE 'cubed-%' AND "
				"application_name <> 'cubed-listen'");
		if (k > m->most)
			m->most = k;
	}
	return NULL;
}

/* --db-pool caps a node's connections for requests: 16 readers at once
 * (16 HTTP threads) on a pool of 2 all get 200 (they wait for a free
 * connection: a long --db-timeout, so that a slow machine only slows
 * them), and PostgreSQL never sees more than 2 of the node's pooled
 * connections (with --db-pool 8 it sees 8). */
START_TEST(pool_size_bounded)
{
	enum { READERS = 16 };
	server n;
	/* 16 HTTP threads, so 16 requests can want a connection at once */
	const char *args[] = {"--threads", "16", "--db-pool", "2",
			      "--db-timeout", "60000", NULL};
	pg_node_start(&n, NULL, args);
	ses s;
	json_decref(create(n.port, "{\"size\": 9}", &s));
	for (int i = 0; i < 60; i++) {
		http_response r;
		double took;
		post_moves(n.port, &s, i % 2 ? "Rw U'" : "3F L2", &took, &r);
		ck_assert_int_eq(r.status, 200);
		http_response_free(&r);
	}
	struct sampler m = {.url = n.db, .most = 0};
	pthread_t sm;
	pthread_create(&sm, NULL, sample_pool, &m);
	pthread_t th[READERS];
	struct reader rd[READERS];
	for (int i = 0; i < READERS; i++) {
		rd[i] = (struct reader){n.port, &s, 0};
		pthread_create(&th[i], NULL, read_versions, &rd[i]);
	}
	int bad = 0;
	for (int i = 0; i < READERS; i++) {
		pthread_join(th[i], NULL);
		bad += rd[i].bad;
	}
	atomic_store(&m.stop, 1);
	pthread_join(sm, NULL);
	ck_assert_int_eq(bad, 0);
	ck_assert_msg(m.most >= 1 && m.most <= 2,
		      "%lld pooled connections seen with --db-pool 2", m.most);
	/* /metrics: the cap, the waits, the listener */
	http_response r;
	call(&r, n.port, "GET", "/metrics", NULL, NULL, NULL);
	ck_assert_int_eq(r.status, 200);
	ck_assert(http_metric(r.body, "cubed_db_connections_max") == 2);
	ck_assert_msg(http_metric(r.body, "cubed_db_pool_waits_total") >= 1,
		      "no request waited for a connection");
	ck_assert(http_metric(r.body, "cubed_db_listener_up") == 1);
	ck_assert(http_metric(r.body, "cubed_db_listener_connects_total") >= 1);
	ck_assert(http_metric(r.body, "cubed_db_notifications_total") >= 1);
	ck_assert(http_metric(r.body, "cubed_db_round_trips_total") >= 1);
	http_response_free(&r);
	ck_assert_int_eq(server_stop(&n, 1), 0);
}
END_TEST

/* A node given url must exit with status 2 before listening, its log
 * saying want (pg_server_refused). */
static void refused_at_start(const char *url, const char *want)
{
	pg_server_refused("pg_faults: start_permanent_errors", url, NULL, want,
			  NULL);
}

START_TEST(start_permanent_errors)
{
	struct pg_cluster c;
	pg_test_cluster(&c);
	char url[300], err[1024];
	char name[64];
	snprintf(name, sizeof name, "perm_%d", (int)getpid());
	ck_assert_msg(pg_cluster_createdb(c.url, name, url, sizeof url, err,
					  sizeof err) == 0,
		      "%s", err);
	char bad[400];
	/* TLS required, the test cluster has none: a configuration
	 * mistake, not a wait */
	snprintf(bad, sizeof bad, "%s?sslmode=require", url);
	refused_at_start(bad, "server does not support SSL");
	/* a role that does not exist (28000) */
	snprintf(bad, sizeof bad, "postgresql://nobody_%d@127.0.0.1:%d/%s",
		 (int)getpid(), c.port, name);
	refused_at_start(bad, "does not exist");
	/* an option the server does not know (42704) */
	snprintf(bad, sizeof bad, "%s?options=-c%%20nosuchsetting%%3D1", url);
	refused_at_start(bad, "nosuchsetting");
}
END_TEST

/* A node started not ready: /readyz 503 naming the database, and its log
 * giving why and that it retries. */
static void started_not_ready(server *n, const char *why)
{
	json_t *p = expect_problem(n->port, "GET", "/readyz", NULL, NULL, NULL,
				   503, "unavailable", "database", NULL, NULL);
	json_decref(p);
	char tail[4096];
	const char *log = test_server_log_tail(n, tail, sizeof tail);
	ck_assert_msg(strstr(log, why) && strstr(log, "retrying"), "%s", log);
}

START_TEST(start_too_many_connections)
{
	char sql[300], url[300], admin[300];
	char role[64];
	/* a role of its own with one slot (superusers have no limit), and
	 * a database it owns (its public schema is then the role's) */
	pg_role_db("slots", "CONNECTION LIMIT 1", role, sizeof role, url,
		   sizeof url);
	pg_admin_url(admin, sizeof admin);
	/* hold the slot */
	PGconn *held = PQconnectdb(url);
	ck_assert_msg(PQstatus(held) == CONNECTION_OK, "%s",
		      PQerrorMessage(held));

	/* the fixture would make a database of its own: not now */
	server n;
	char serr[2048];
	int started = pg_node_start_at(&n, url, serr, sizeof serr);
	if (started != 0)
		PQfinish(held);
	ck_assert_msg(started == 0, "%s", serr);
	started_not_ready(&n, "too many connections");
	/* slots free: ready by itself */
	snprintf(sql, sizeof sql, "ALTER ROLE %s CONNECTION LIMIT -1", role);
	pg_do(admin, sql);
	PQfinish(held);
	ck_assert_int_eq(wait_ready(n.port, 10), 200);
	ses s;
	json_decref(create(n.port, "{\"size\": 3}", &s));
	ck_assert_int_eq(server_stop(&n, 1), 0);
}
END_TEST

/* Another session holds the migration lock (a peer migrating, or
 * frozen while migrating): the node starts within its deadline instead
 * of waiting for the lock, not ready and saying why, refuses writes with
 * 503, and is ready by itself once the lock is free. Before, it waited
 * in pg_advisory_lock for as long as the lock was held. */
START_TEST(start_migration_locked)
{
	struct pg_cluster c;
	pg_test_cluster(&c);
	char url[300], err[1024], name[64];
	snprintf(name, sizeof name, "mlock_%d", (int)getpid());
	ck_assert_msg(pg_cluster_createdb(c.url, name, url, sizeof url, err,
					  sizeof err) == 0,
		      "%s", err);
	PGconn *held = PQconnectdb(url);
	ck_assert_msg(PQstatus(held) == CONNECTION_OK, "%s",
		      PQerrorMessage(held));
	/* store_pg_migrate.c's key ("cubed" in ASCII) */
	PGresult *r = PQexec(held, "SELECT pg_advisory_lock(109117098101100)");
	ck_assert_int_eq(PQresultStatus(r), PGRES_TUPLES_OK);
	PQclear(r);

	server n;
	char serr[2048];
	const char *args[] = {"--db", url, "--db-timeout", FAULT_MS, NULL};
	double t0 = now_s();
	int started = server_start(&n, NULL, args, serr, sizeof serr);
	if (started != 0)
		PQfinish(held);
	ck_assert_msg(started == 0, "%s", serr);
	ck_assert_msg(now_s() - t0 < BOUND_S + 5, "started after %.1f s",
		      now_s() - t0);
	started_not_ready(&n, "schema migration lock");
	http_response w;
	double took;
	timed(n.port, "POST", "/v1/sessions", NULL, "{\"size\": 3}", &took,
	      &w);
	expect_503(&w, "create", "store_unavailable", NULL);
	http_response_free(&w);
	ck_assert_msg(took < BOUND_S, "the create took %.2f s", took);
	/* the lock free: ready by itself, and migrated */
	PQfinish(held);
	ck_assert_int_eq(wait_ready(n.port, 10), 200);
	ses s;
	json_decref(create(n.port, "{\"size\": 3}", &s));
	ck_assert(pg_query_int(url, "SELECT count(*) FROM sessions") == 1);
	ck_assert_int_eq(server_stop(&n, 1), 0);
}
END_TEST

Suite *pg_faults_suite(void)
{
	Suite *s = suite_create("pg_faults");
	TCase *tc = tcase_create("faults");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, frozen_database);
	tcase_add_test(tc, frozen_commit);
	tcase_add_test(tc, frozen_listener);
	tcase_add_test(tc, restart_keeps_pool);
	tcase_add_test(tc, pool_size_bounded);
	tcase_add_test(tc, start_permanent_errors);
	tcase_add_test(tc, start_too_many_connections);
	tcase_add_test(tc, start_migration_locked);
	suite_add_tcase(s, tc);
	return s;
}
