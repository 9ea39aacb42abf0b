/* check_http_fair.c — black-box tests of "Fair CPU" (issue 24) against the
 * real server binary: every solve runs on the bounded solver pool, never
 * on the HTTP threads, while the synchronous routes keep answering 200
 * with the result. One client's many slow solves cannot hold another
 * client's 3×3 solve behind them (the pool takes clients round-robin and
 * caps each one's running solves); a client past its cap of waiting
 * solves gets 429 too_many_solves, a full queue 503 queue_full, both
 * with Retry-After; a solve whose client hangs up is stopped, which
 * /metrics counts (cubed_solves_cancelled_total).
 *
 * Two clients on one machine: client A connects from 127.0.0.2 and B from
 * 127.0.0.1 (the whole of 127/8 is loopback on Linux), so the server
 * keys them apart as it would two hosts. A's "slow solve" is the
 * superflip with max_length 16: it has no solution that short (its
 * optimal length is 20), so the search runs until it is stopped or its
 * timeout_ms (20 s) passes — far longer than any wait here. Waits poll
 * /metrics or the sockets with a deadline: nothing sleeps for
 * ordering. */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "session_helpers.h"
#include "suites.h"

#define SOLVED3 "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB"
#define SUPERFLIP "U R2 F B R B2 R U2 L B2 R U' D' R2 F R' L B2 U2 F2"
#define TABLES_WAIT_S 240.0
#define WAIT_S 30.0
#define CLIENT_A "127.0.0.2"
#define CLIENT_C "127.0.0.3"

static server srv;

/* The 3×3 tables are loaded (a solve answers 200). */
static void wait_tables(int port)
{
	double end = now_s() + TABLES_WAIT_S;
	for (;;) {
		http_response r;
		call(&r, port, "POST", "/v1/solve", NULL, NULL,
		     "{\"facelets\": \"" SOLVED3 "\"}");
		int st = r.status;
		ck_assert_msg(st == 200 || (st == 503 && now_s() < end),
			      "solve while loading: %d %s", st, r.body);
		http_response_free(&r);
		if (st == 200)
			return;
		test_sleep_ms(50);
	}
}

/* One figure of /metrics (the line "name value"), or -1. */
static long long metric(int port, const char *name)
{
	http_response r;
	call(&r, port, "GET", "/metrics", NULL, NULL, NULL);
	ck_assert_int_eq(r.status, 200);
	long long v = (long long)http_metric(r.body, name);
	http_response_free(&r);
	return v;
}

/* Wait until /metrics shows running and queued solves (-1: any) and at
 * least cancelled stopped ones. */
static void wait_pool(int port, long long running, long long queued,
		      long long cancelled)
{
	double end = now_s() + WAIT_S;
	for (;;) {
		long long r = metric(port, "cubed_solves_running");
		long long q = metric(port, "cubed_solves_queued");
		long long c = metric(port, "cubed_solves_cancelled_total");
		if ((running < 0 || r == running) &&
		    (queued < 0 || q == queued) && c >= cancelled)
			return;
		ck_assert_msg(now_s() < end,
			      "pool: running %lld queued %lld cancelled %lld; "
			      "waited for %lld, %lld, %lld",
			      r, q, c, running, queued, cancelled);
		test_sleep_ms(10);
	}
}

/* Send a solve of body from address from without reading the answer;
 * returns the socket. */
static int send_solve(int port, const char *from, const char *body)
{
	int fd = http_connect_from(port, from, 60000);
	ck_assert_msg(fd >= 0, "connect from %s", from);
	char req[1024];
	int n = snprintf(req, sizeof req,
			 "POST /v1/solve HTTP/1.1\r\nHost: 127.0.0.1\r\n"
			 "Content-Type: application/json\r\n"
			 "Content-Length: %zu\r\n\r\n%s",
			 strlen(body), body);
	ck_assert(n > 0 && (size_t)n < sizeof req);
	ck_assert_int_eq(write(fd, req, (size_t)n), n);
	return fd;
}

/* Has an answer (or the end) arrived on fd? */
static int answered(int fd)
{
	struct pollfd p = {fd, POLLIN, 0};
	return poll(&p, 1, 0) > 0;
}

/* The body of the slow solve (superflip, at most 16 moves). */
static char *slow_body(int port)
{
	char *f = apply(port, SOLVED3, SUPERFLIP);
	char *b = malloc(256);
	snprintf(b, 256,
		 "{\"facelets\": \"%s\", \"max_length\": 16, "
		 "\"timeout_ms\": 20000}",
		 f);
	free(f);
	return b;
}

/* A's four slow solves: one runs (A's cap), three wait. B's quick 3×3
 * solve runs on the other worker at once and answers 200 while every one
 * of A's is still unanswered; first come first served would have put it
 * behind A's three. A's fifth is refused (429, exact problem); hanging
 * up stops all four, the running one mid-search. */
START_TEST(fair_between_clients)
{
	static const char *const opts[] = {
		"--solve-workers", "2", "--solve-client-running", "1",
		"--solve-client-queued", "3", "--solve-queue", "8",
		"--max-solve-ms", "30000", NULL};
	start_or_abort(&srv, NULL, opts);
	wait_tables(srv.port);
	char *slow = slow_body(srv.port);
	int a[4];
	for (int i = 0; i < 4; i++)
		a[i] = send_solve(srv.port, CLIENT_A, slow);
	wait_pool(srv.port, 1, 3, 0);

	/* A's fifth: over its cap of waiting solves */
	int fd = http_connect_from(srv.port, CLIENT_A, 60000);
	ck_assert_int_ge(fd, 0);
	http_response r;
	const char *const hdr[] = {"Content-Type: application/json", NULL};
	ck_assert_int_eq(http_send(fd, srv.port, "POST", "/v1/solve", hdr,
				   slow, strlen(slow), 1, &r),
			 0);
	close(fd);
	ck_assert_int_eq(r.status, 429);
	ck_assert_str_eq(http_header(&r, "Retry-After"), "1");
	json_t *p = parse(&r, "429");
	ck_assert_str_eq(sget(p, "type"),
			 "urn:cubed:problem:too_many_requests");
	ck_assert_str_eq(sget(p, "code"), "too_many_solves");
	ck_assert_int_eq(iget(p, "status"), 429);
	ck_assert_str_eq(sget(p, "detail"),
			 "this client already has as many solves running and "
			 "waiting as it may (--solve-client-running, "
			 "--solve-client-queued); retry when one has finished");
	json_decref(p);
	http_response_free(&r);
	ck_assert_int_eq(metric(srv.port, "cubed_solves_refused_total"
				"{reason=\"client\"}"),
			 1);

	/* B, another client: answered while A's all wait */
	char *f = apply(srv.port, SOLVED3, "R U F' L2 D B'");
	char body[128];
	snprintf(body, sizeof body, "{\"facelets\": \"%s\"}", f);
	json_t *j = expect_json(srv.port, "POST", "/v1/solve", NULL, NULL, body,
				200, NULL);
	ck_assert_int_le(iget(j, "length"), 20);
	char *back = apply(srv.port, f, sget(j, "solution"));
	ck_assert_str_eq(back, SOLVED3);
	free(back);
	json_decref(j);
	free(f);
	for (int i = 0; i < 4; i++)
		ck_assert_msg(!answered(a[i]),
			      "A's solve %d answered before B's", i);

	/* A hangs up: the running search stops, the waiting ones never
	 * start; the workers are free again */
	for (int i = 0; i < 4; i++)
		close(a[i]);
	wait_pool(srv.port, 0, 0, 4);
	free(slow);
	server_stop(&srv, 1);
}
END_TEST

/* One worker, a queue of one: A's slow solve runs, C's waits, and B's
 * finds the queue full — 503 queue_full with Retry-After, whatever B's
 * own caps. */
START_TEST(queue_full_503)
{
	static const char *const opts[] = {
		"--solve-workers", "1", "--solve-client-running", "1",
		"--solve-client-queued", "3", "--solve-queue", "1",
		"--max-solve-ms", "30000", NULL};
	start_or_abort(&srv, NULL, opts);
	wait_tables(srv.port);
	char *slow = slow_body(srv.port);
	int a = send_solve(srv.port, CLIENT_A, slow);
	wait_pool(srv.port, 1, 0, 0);
	int c = send_solve(srv.port, CLIENT_C, slow);
	wait_pool(srv.port, 1, 1, 0);
	http_response r;
	json_t *p = expect_problem(srv.port, "POST", "/v1/solve", NULL, NULL,
				   "{\"facelets\": \"" SOLVED3 "\"}", 503,
				   "unavailable", "queue_full", NULL, &r);
	ck_assert_str_eq(http_header(&r, "Retry-After"), "1");
	ck_assert_str_eq(sget(p, "detail"),
			 "the solver queue is full (--solve-queue); try again "
			 "shortly");
	json_decref(p);
	http_response_free(&r);
	ck_assert_int_eq(metric(srv.port, "cubed_solves_refused_total"
				"{reason=\"full\"}"),
			 1);
	ck_assert(!answered(a) && !answered(c));
	close(a);
	close(c);
	wait_pool(srv.port, 0, 0, 2);
	/* and solves run again */
	json_decref(expect_json(srv.port, "POST", "/v1/solve", NULL, NULL,
				"{\"facelets\": \"" SOLVED3 "\"}", 200, NULL));
	free(slow);
	server_stop(&srv, 1);
}
END_TEST

/* A session's solve (a 4×4: a reduction) goes through the pool too and
 * is stored: 201, then listed with the session's solves. */
START_TEST(session_solve_on_pool)
{
	start_or_abort(&srv, NULL, NULL);
	wait_tables(srv.port);
	ses s;
	json_decref(create(srv.port, "{\"size\": 4}", &s));
	char path[160];
	snprintf(path, sizeof path, "%s/solve", s.path);
	json_t *j = expect_json(srv.port, "POST", path, NULL, NULL, NULL, 201,
				NULL);
	ck_assert_str_eq(sget(j, "method"), "reduction");
	ck_assert_int_eq(iget(j, "length"), 0);
	json_decref(j);
	snprintf(path, sizeof path, "%s/solves", s.path);
	j = expect_json(srv.port, "GET", path, NULL, NULL, NULL, 200, NULL);
	ck_assert_int_eq(json_array_size(json_object_get(j, "solves")), 1);
	json_decref(j);
	/* the worker counts itself free just after it hands the reply over,
	 * so the gauge is waited on, not read once */
	wait_pool(srv.port, 0, 0, 0);
	server_stop(&srv, 1);
}
END_TEST

/* GET /v1/scramble?size=3 from address from: the response in *r. */
static void scramble_from(int port, const char *from, http_response *r)
{
	int fd = http_connect_from(port, from, 60000);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(http_send(fd, port, "GET", "/v1/scramble?size=3", NULL,
				   NULL, 0, 1, r),
			 0);
	close(fd);
}

/* A random-state scramble is a solve, and runs on the pool like one
 * (issue 24): B's scramble is answered while A's four slow solves all
 * wait; A, at its caps, gets 429 too_many_solves for a scramble too; and
 * once both workers are busy and the queue is full, B's scramble gets
 * 503 queue_full. Had it run on the HTTP thread, neither refusal could
 * happen. */
START_TEST(scramble_on_pool)
{
	static const char *const opts[] = {
		"--solve-workers", "2", "--solve-client-running", "1",
		"--solve-client-queued", "3", "--solve-queue", "4",
		"--max-solve-ms", "30000", NULL};
	start_or_abort(&srv, NULL, opts);
	wait_tables(srv.port);
	char *slow = slow_body(srv.port);
	/* A's first runs; two wait: with one waiting, more than one of the
	 * queue's 4 places stay free, with two no more than two do (its
	 * share of the room left) */
	int a[3];
	for (int i = 0; i < 3; i++)
		a[i] = send_solve(srv.port, CLIENT_A, slow);
	wait_pool(srv.port, 1, 2, 0);

	/* B's scramble runs on the free worker, before any of A's */
	json_t *j = expect_json(srv.port, "GET", "/v1/scramble?size=3", NULL,
				NULL, NULL, 200, NULL);
	ck_assert_str_eq(sget(j, "kind"), "random-state");
	char *f = apply(srv.port, SOLVED3, sget(j, "moves"));
	ck_assert_str_eq(f, sget(j, "facelets"));
	free(f);
	json_decref(j);
	for (int i = 0; i < 3; i++)
		ck_assert_msg(!answered(a[i]),
			      "A's solve %d answered before B's scramble", i);

	/* A is at its share: a scramble is refused like a solve */
	http_response r;
	scramble_from(srv.port, CLIENT_A, &r);
	ck_assert_int_eq(r.status, 429);
	ck_assert_str_eq(http_header(&r, "Retry-After"), "1");
	json_t *p = parse(&r, "429");
	ck_assert_str_eq(sget(p, "type"), "urn:cubed:problem:too_many_requests");
	ck_assert_str_eq(sget(p, "code"), "too_many_solves");
	ck_assert_str_eq(sget(p, "detail"),
			 "the solver queue is nearly full and this client "
			 "already has as many solves waiting as its share of "
			 "the places left; retry when one has finished");
	json_decref(p);
	http_response_free(&r);

	/* both workers busy, the queue (4) full: 503 for B's scramble */
	int c = send_solve(srv.port, CLIENT_C, slow);
	wait_pool(srv.port, 2, 2, 0);
	int d = send_solve(srv.port, "127.0.0.4", slow);
	wait_pool(srv.port, 2, 3, 0);
	int e = send_solve(srv.port, "127.0.0.5", slow);
	wait_pool(srv.port, 2, 4, 0);
	p = expect_problem(srv.port, "GET", "/v1/scramble?size=3", NULL, NULL,
			   NULL, 503, "unavailable", "queue_full", NULL, &r);
	ck_assert_str_eq(http_header(&r, "Retry-After"), "1");
	json_decref(p);
	http_response_free(&r);
	ck_assert(!answered(c) && !answered(d) && !answered(e));

	for (int i = 0; i < 3; i++)
		close(a[i]);
	close(c);
	close(d);
	close(e);
	wait_pool(srv.port, 0, 0, 6);
	json_decref(expect_json(srv.port, "GET", "/v1/scramble?size=3&seed=7",
				NULL, NULL, NULL, 200, NULL));
	free(slow);
	server_stop(&srv, 1);
}
END_TEST

Suite *http_fair_suite(void)
{
	Suite *s = suite_create("http_fair");
	TCase *tc = tcase_create("fair");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, fair_between_clients);
	tcase_add_test(tc, queue_full_503);
	tcase_add_test(tc, session_solve_on_pool);
	tcase_add_test(tc, scramble_on_pool);
	suite_add_tcase(s, tc);
	return s;
}
