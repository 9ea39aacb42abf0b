/* check_crash.c — crash safety: an acknowledged write survives SIGKILL.
 *
 * docs/limits.md ("Durability") promises that a reply saying a write succeeded means it is
 * committed: a crash right after loses nothing acknowledged. The database
 * runs WAL with synchronous=NORMAL by default, which is durable against a
 * crash of the process (only a power cut can lose NORMAL commits), so this
 * test runs the default settings.
 *
 * Each round: writer threads (one per session) post single moves as fast
 * as the server answers, recording every 200 with its version; at a random
 * moment (0-230 ms after the round's first acknowledged write) the server
 * gets SIGKILL. With the server down, the database
 * file passes PRAGMA integrity_check (opened read-only with SQLite, so the
 * server's own recovery still runs at the next start). The server restarts
 * on the same file, and for every session:
 *
 *   - every acknowledged version is in the history, with the moves that
 *     were sent for it, and versions run 1..V with no gap;
 *   - at most one more event is there: the write that was in flight when
 *     the server died (committed but not answered), and it is that write;
 *   - the session's state equals the stateless replay of its history
 *     (POST /v1/apply).
 *
 * The seed of the random delays is printed on failure (CUBED_CRASH_SEED
 * replays a run); CUBED_CRASH_ROUNDS changes the number of rounds (25).
 *
 * sigterm_under_load: the same checks around a clean stop. Writers keep
 * posting on keep-alive connections while the server gets SIGTERM: it
 * must exit with status 0 (libmicrohttpd 0.9.75 aborts the process when
 * the daemon stops with a connection still suspended, as one waiting for
 * the writer is), every write is answered 200 or 503 "shutting_down" or
 * loses its connection, and after a restart the histories hold exactly
 * the acknowledged writes (plus at most the one in flight). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <sqlite3.h>

#include "http_client.h"
#include "suites.h"
#include "test_server.h"

#define SOLVED3 "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB"
#define NSES 3

/* What the test knows about one session. */
typedef struct ses {
	char id[48], token[48], path[64];
	char **moves; /* moves[v-1]: the moves of version v */
	size_t n, cap;
	/* this round's writer */
	int port;
	volatile int *stop;
	char pending[8];  /* the write in flight when the server died */
	int acked;        /* writes answered 200 this round */
	char error[600];  /* an answer that was neither 200 nor a lost
			   * connection */
} ses;

static const char *const MOVES[] = {"R", "U", "F", "D", "L", "B",
				    "R'", "U'", "F'", "D'", "L'", "B'",
				    "R2", "U2", "F2", "D2", "L2", "B2"};

static void push_move(ses *s, const char *m)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->moves = realloc(s->moves, s->cap * sizeof *s->moves);
		ck_assert(s->moves != NULL);
	}
	s->moves[s->n++] = strdup(m);
}

/* Post single random moves as fast as the server answers, recording
 * every 200 with its version, until *stop is set or the server is gone.
 * keepalive: one connection for all (else a fresh one per request). A
 * lost connection leaves the write's fate unknown (pending stays); a 503
 * "shutting_down" (a clean stop) means not committed; any other answer
 * is an error. */
static void writer_loop(ses *s, int keepalive)
{
	unsigned seed = (unsigned)(size_t)s ^ (unsigned)time(NULL);
	char path[160], body[64], auth[96];
	snprintf(path, sizeof path, "%s/moves", s->path);
	snprintf(auth, sizeof auth, "Authorization: Bearer %s", s->token);
	const char *headers[] = {"Content-Type: application/json", auth,
				 NULL};
	int fd = -1;
	while (!*s->stop) {
		if (keepalive && fd < 0 &&
		    (fd = http_connect(s->port, 15000)) < 0)
			break; /* no longer listening */
		const char *m = MOVES[rand_r(&seed) % 18];
		snprintf(body, sizeof body, "{\"moves\": \"%s\"}", m);
		http_response r;
		snprintf(s->pending, sizeof s->pending, "%s", m);
		int rc = keepalive ? http_send(fd, s->port, "POST", path,
					       headers, body, strlen(body), 0,
					       &r)
				   : http_request(s->port, "POST", path,
						  headers, body, strlen(body),
						  &r);
		if (rc != 0) {
			http_response_free(&r);
			break;
		}
		if (r.status == 503 && strstr(r.body, "\"shutting_down\"")) {
			s->pending[0] = '\0';
			http_response_free(&r);
			break;
		}
		if (r.status != 200) {
			snprintf(s->error, sizeof s->error,
				 "POST %s %s: %d %.200s", path, body,
				 r.status, r.body);
			s->pending[0] = '\0';
			http_response_free(&r);
			break;
		}
		json_t *j = json_loadb(r.body, r.body_len, 0, NULL);
		long long v = json_integer_value(json_object_get(j, "version"));
		json_decref(j);
		int closed = r.closed;
		http_response_free(&r);
		if (v != (long long)s->n + 1) {
			snprintf(s->error, sizeof s->error,
				 "POST %s answered version %lld after %zu "
				 "acknowledged writes",
				 path, v, s->n);
			s->pending[0] = '\0';
			break;
		}
		push_move(s, m);
		s->pending[0] = '\0';
		__atomic_add_fetch(&s->acked, 1, __ATOMIC_RELEASE);
		if (fd >= 0 && closed) {
			close(fd);
			fd = -1;
		}
	}
	if (fd >= 0)
		close(fd);
}

static void *writer(void *arg)
{
	writer_loop(arg, 0);
	return NULL;
}

static void *ka_writer(void *arg)
{
	writer_loop(arg, 1);
	return NULL;
}

static json_t *get_json(int port, const char *path, int want)
{
	http_response r;
	int rc = http_request(port, "GET", path, NULL, NULL, 0, &r);
	ck_assert_msg(rc == 0, "GET %s: %s", path, r.error);
	ck_assert_msg(r.status == want, "GET %s: status %d: %.300s", path,
		      r.status, r.body);
	json_t *j = json_loadb(r.body, r.body_len, 0, NULL);
	ck_assert_msg(j != NULL, "GET %s: not JSON", path);
	http_response_free(&r);
	return j;
}

/* PRAGMA integrity_check of the database at path, with the server down.
 * On PostgreSQL (make test-pg) the file check does not apply: the
 * server's crash cannot touch the database's files, and the history
 * checks below are the same. */
static void check_integrity(const char *path, int round)
{
	if (strncmp(path, "postgres", 8) == 0)
		return;
	sqlite3 *db = NULL;
	int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
	ck_assert_msg(rc == SQLITE_OK, "round %d: open %s: %s", round, path,
		      db ? sqlite3_errmsg(db) : "out of memory");
	sqlite3_stmt *st = NULL;
	rc = sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL);
	ck_assert_msg(rc == SQLITE_OK, "round %d: prepare: %s", round,
		      sqlite3_errmsg(db));
	rc = sqlite3_step(st);
	const unsigned char *t = sqlite3_column_text(st, 0);
	ck_assert_msg(rc == SQLITE_ROW && t && strcmp((const char *)t, "ok") == 0,
		      "round %d: integrity_check says %s", round,
		      t ? (const char *)t : sqlite3_errmsg(db));
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* After a restart: the history and state of s agree with what was
 * acknowledged (see the top of the file); the in-flight write, if it was
 * committed, joins the expected history. */
static void check_session(int port, ses *s, int round, unsigned seed)
{
	char path[192];
	json_t *all = json_array();
	long long after = 0;
	for (;;) {
		snprintf(path, sizeof path, "%s/history?after=%lld&limit=1000",
			 s->path, after);
		json_t *j = get_json(port, path, 200);
		json_array_extend(all, json_object_get(j, "events"));
		json_t *next = json_object_get(j, "next");
		int more = json_is_integer(next);
		if (more)
			after = json_integer_value(next);
		json_decref(j);
		if (!more)
			break;
	}
	size_t n = json_array_size(all);
	ck_assert_msg(n == s->n || (n == s->n + 1 && s->pending[0]),
		      "round %d (seed %u): session %s has %zu events; %zu "
		      "writes were acknowledged%s",
		      round, seed, s->id, n, s->n,
		      s->pending[0] ? " and one was in flight" : "");
	for (size_t i = 0; i < n; i++) {
		json_t *e = json_array_get(all, i);
		long long v = json_integer_value(json_object_get(e, "version"));
		const char *m = json_string_value(json_object_get(e, "moves"));
		const char *want = i < s->n ? s->moves[i] : s->pending;
		ck_assert_msg(v == (long long)i + 1,
			      "round %d (seed %u): session %s: event %zu has "
			      "version %lld",
			      round, seed, s->id, i + 1, v);
		ck_assert_msg(m && strcmp(m, want) == 0,
			      "round %d (seed %u): session %s version %lld: "
			      "moves \"%s\", acknowledged \"%s\"",
			      round, seed, s->id, v, m ? m : "(none)", want);
	}
	if (n > s->n)
		push_move(s, s->pending);
	s->pending[0] = '\0';
	json_decref(all);

	/* the state is the replay of the history */
	json_t *got = get_json(port, s->path, 200);
	ck_assert_msg(json_integer_value(json_object_get(got, "version")) ==
			      (long long)s->n,
		      "round %d: session %s: version %lld, history has %zu",
		      round, s->id,
		      json_integer_value(json_object_get(got, "version")),
		      s->n);
	size_t len = 1;
	for (size_t i = 0; i < s->n; i++)
		len += strlen(s->moves[i]) + 1;
	char *moves = malloc(len);
	moves[0] = '\0';
	for (size_t i = 0, k = 0; i < s->n; i++)
		k += (size_t)sprintf(moves + k, "%s%s", i ? " " : "",
				     s->moves[i]);
	json_t *b = json_pack("{s:i, s:s}", "size", 3, "moves", moves);
	char *body = json_dumps(b, JSON_COMPACT);
	json_decref(b);
	free(moves);
	http_response r;
	const char *ct[] = {"Content-Type: application/json", NULL};
	ck_assert_int_eq(http_request(port, "POST", "/v1/apply", ct, body,
				      strlen(body), &r),
			 0);
	free(body);
	ck_assert_msg(r.status == 200, "replay: %d %.200s", r.status, r.body);
	json_t *want = json_loadb(r.body, r.body_len, 0, NULL);
	http_response_free(&r);
	const char *f1 = json_string_value(json_object_get(got, "facelets"));
	const char *f2 = json_string_value(json_object_get(want, "facelets"));
	ck_assert_msg(f1 && f2 && strcmp(f1, f2) == 0,
		      "round %d: session %s at version %zu is %s; its history "
		      "replays to %s",
		      round, s->id, s->n, f1, f2);
	json_decref(got);
	json_decref(want);
}

/* A server for these tests (no solver, quiet, no rate limit) on a new
 * database; its directory is copied to dir for restarts. */
static const char *const crash_extra[] = {"--solver", "0", "--quiet",
					  "--rate-limit", "0", NULL};

static void start_crash_server(test_server *srv, char dir[64])
{
	char err[2048];
	ck_assert_msg(test_server_start(srv, NULL, crash_extra, err,
					sizeof err) == 0,
		      "%s", err);
	snprintf(dir, 64, "%s", srv->dir);
}

/* One writer thread fn per session of ss[0..n), on port, stopping when
 * *stop is set. */
static void start_writers(ses *ss, int n, int port, volatile int *stop,
			  void *(*fn)(void *), pthread_t *th)
{
	for (int i = 0; i < n; i++) {
		ss[i].port = port;
		ss[i].stop = stop;
		ss[i].acked = 0;
		ss[i].error[0] = '\0';
		ss[i].pending[0] = '\0';
		ck_assert_int_eq(pthread_create(&th[i], NULL, fn, &ss[i]), 0);
	}
}

/* n new 3×3 sessions into ss[0..n) */
static void create_sessions(int port, ses *ss, int n)
{
	const char *ct[] = {"Content-Type: application/json", NULL};
	for (int i = 0; i < n; i++) {
		http_response r;
		ck_assert_int_eq(http_request(port, "POST", "/v1/sessions", ct,
					      "{\"size\": 3}", 11, &r),
				 0);
		ck_assert_int_eq(r.status, 201);
		json_t *j = json_loadb(r.body, r.body_len, 0, NULL);
		const char *id = json_string_value(json_object_get(j, "id"));
		snprintf(ss[i].id, sizeof ss[i].id, "%s", id);
		snprintf(ss[i].token, sizeof ss[i].token, "%s",
			 json_string_value(json_object_get(j, "write_token")));
		snprintf(ss[i].path, sizeof ss[i].path, "/v1/sessions/%.40s",
			 id);
		json_decref(j);
		http_response_free(&r);
	}
}

/* Wait up to 10 s until some writer of ss[0..n) had a write acknowledged. */
static int await_ack(ses *ss, int n)
{
	double until = test_now() + 10;
	while (test_now() < until) {
		for (int i = 0; i < n; i++)
			if (__atomic_load_n(&ss[i].acked, __ATOMIC_ACQUIRE) > 0)
				return 1;
		test_sleep_ms(1);
	}
	return 0;
}

START_TEST(sigkill_under_load)
{
	const char *e = getenv("CUBED_CRASH_ROUNDS");
	int rounds = e && atoi(e) > 0 ? atoi(e) : 25;
	e = getenv("CUBED_CRASH_SEED");
	unsigned seed = e ? (unsigned)strtoul(e, NULL, 10)
			  : (unsigned)time(NULL) ^ (unsigned)getpid();
	srand(seed);
	test_server srv;
	char dir[64], err[2048];
	start_crash_server(&srv, dir);

	static ses ss[NSES];
	create_sessions(srv.port, ss, NSES);

	long total_acked = 0, in_flight_committed = 0;
	for (int round = 1; round <= rounds; round++) {
		volatile int stop = 0;
		pthread_t th[NSES];
		start_writers(ss, NSES, srv.port, &stop, writer, th);
		/* a random moment, 0 to 230 ms after the first acknowledged
		 * write of the round (so every round tests something, however
		 * slow the machine is today). The sleep is the fault
		 * injection's timing, not an ordering: the kill is right at
		 * any moment, and await_ack is the wait on an event */
		ck_assert_msg(await_ack(ss, NSES),
			      "round %d: no write was acknowledged within 10 s",
			      round);
		test_sleep_ms(rand() % 231);
		test_server_kill(&srv);
		stop = 1;
		for (int i = 0; i < NSES; i++)
			pthread_join(th[i], NULL);
		int acked = 0;
		for (int i = 0; i < NSES; i++) {
			ck_assert_msg(ss[i].error[0] == '\0',
				      "round %d: %s", round, ss[i].error);
			acked += ss[i].acked;
		}
		total_acked += acked;

		check_integrity(srv.db, round);

		ck_assert_msg(test_server_start(&srv, dir, crash_extra, err,
						sizeof err) == 0,
			      "round %d: restart: %s", round, err);
		for (int i = 0; i < NSES; i++) {
			size_t before = ss[i].n;
			check_session(srv.port, &ss[i], round, seed);
			in_flight_committed += ss[i].n - before;
		}
	}
	int st = test_server_stop(&srv, 0);
	check_integrity(srv.db, rounds + 1);
	test_server_remove(&srv);
	ck_assert_msg(st == 0, "the last server did not stop cleanly (%d)", st);
	fprintf(stderr,
		"crash: %d SIGKILL rounds, %ld acknowledged writes all "
		"present, %ld in-flight writes committed (seed %u)\n",
		rounds, total_acked, in_flight_committed, seed);
	for (int i = 0; i < NSES; i++) {
		for (size_t k = 0; k < ss[i].n; k++)
			free(ss[i].moves[k]);
		free(ss[i].moves);
	}
}
END_TEST

#define NTERM 8

START_TEST(sigterm_under_load)
{
	const char *e = getenv("CUBED_SIGTERM_ROUNDS");
	int rounds = e && atoi(e) > 0 ? atoi(e) : 6;
	test_server srv;
	char dir[64], err[2048];
	start_crash_server(&srv, dir);
	static ses ss[NTERM];
	create_sessions(srv.port, ss, NTERM);
	for (int round = 1; round <= rounds; round++) {
		volatile int stop = 0;
		pthread_t th[NTERM];
		start_writers(ss, NTERM, srv.port, &stop, ka_writer, th);
		ck_assert_msg(await_ack(ss, NTERM),
			      "round %d: no write was acknowledged within 10 s",
			      round);
		/* SIGTERM a little later each round (30 ms after the first
		 * acknowledged write, then 10 ms more a round): the fault
		 * injection's timing, not an ordering (any moment must end
		 * cleanly) */
		test_sleep_ms(20 + round * 10);
		int st = test_server_stop(&srv, 0);
		stop = 1;
		for (int i = 0; i < NTERM; i++)
			pthread_join(th[i], NULL);
		char tail[600];
		ck_assert_msg(st == 0,
			      "round %d: SIGTERM under load: wait status %d; "
			      "log ends: %s",
			      round, st, test_server_log_tail(&srv, tail,
							      sizeof tail));
		for (int i = 0; i < NTERM; i++)
			ck_assert_msg(ss[i].error[0] == '\0', "round %d: %s",
				      round, ss[i].error);
		check_integrity(srv.db, round);
		ck_assert_msg(test_server_start(&srv, dir, crash_extra, err,
						sizeof err) == 0,
			      "round %d: restart: %s", round, err);
		for (int i = 0; i < NTERM; i++)
			check_session(srv.port, &ss[i], round, 0);
	}
	int st = test_server_stop(&srv, 0);
	test_server_remove(&srv);
	ck_assert_int_eq(st, 0);
	for (int i = 0; i < NTERM; i++) {
		for (size_t k = 0; k < ss[i].n; k++)
			free(ss[i].moves[k]);
		free(ss[i].moves);
	}
}
END_TEST

Suite *crash_suite(void)
{
	Suite *s = suite_create("crash");
	TCase *tc = tcase_create("sigkill");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, sigkill_under_load);
	tcase_add_test(tc, sigterm_under_load);
	suite_add_tcase(s, tc);
	return s;
}
