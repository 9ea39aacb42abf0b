/* check_http_jobs.c — black-box tests of optimal solves as jobs against
 * the real server binary: POST /v1/solve {"method": "optimal"} and a
 * session's solve route answer 202 with a job; GET /v1/jobs/{id} shows
 * its state and progress and, once done, a result that solves the cube
 * (applied back through /v1/apply) in the fewest moves (cubes of known
 * optimal length); DELETE cancels a queued or running job at once; the
 * per-client caps answer 429 and a full queue 503, both with
 * Retry-After; a job's time limit and max_length fail it with a reason;
 * an unknown id is 404, one from before a restart 410 job_lost, one past
 * its TTL 410 job_expired.
 *
 * The servers use the level-0 tables (--optimal-level 0, 75 MB), loaded
 * from $CUBED_TABLES (the "optimal" suite writes them there; a server
 * that does not find them builds them, tens of seconds). A random state
 * takes level 0 far longer than any test waits, which makes it the "long
 * job" the cancel and cap tests need. Waits poll the job with a
 * deadline: nothing here sleeps for ordering. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "session_helpers.h"
#include "suites.h"

#define SOLVED3 "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB"
#define TABLES_WAIT_S 240.0
#define JOB_WAIT_S 60.0

static const char *const level0[] = {"--optimal-level", "0", NULL};
static server srv;

static void fixture_setup(void)
{
	start_or_abort(&srv, NULL, level0);
}

static void fixture_teardown(void)
{
	server_stop(&srv, 1);
}

/* ------------------------------------------------------------ helpers */

static char *text(const json_t *j)
{
	return json_dumps(j, JSON_COMPACT);
}

/* Every face one colour. */
static int solved_look(const char *f)
{
	for (int face = 0; face < 6; face++)
		for (int i = 1; i < 9; i++)
			if (f[face * 9 + i] != f[face * 9])
				return 0;
	return 1;
}

/* A random 3×3 state (the seeded scramble's facelets; malloc'd): far
 * too deep for level 0 to finish while a test waits. */
static char *random_state(int port, int seed)
{
	char path[64];
	snprintf(path, sizeof path, "/v1/scramble?size=3&seed=%d", seed);
	double end = now_s() + TABLES_WAIT_S;
	for (;;) {
		http_response r;
		call(&r, port, "GET", path, NULL, NULL, NULL);
		if (r.status == 200) {
			json_t *j = parse(&r, path);
			char *f = strdup(sget(j, "facelets"));
			json_decref(j);
			http_response_free(&r);
			return f;
		}
		/* 503 while the two-phase tables load: wait for them */
		ck_assert_msg(r.status == 503 && now_s() < end,
			      "%s: %d %s", path, r.status, r.body);
		http_response_free(&r);
		test_sleep_ms(50);
	}
}

/* POST a solve body; 202 asserted, with Location and Retry-After, a
 * queued (or already running or done) optimal job. Returns the job. */
static json_t *submit_at(int port, const char *path, const char *token,
			 const char *body, char id[64])
{
	http_response r;
	json_t *j = expect_json(port, "POST", path, token, NULL, body, 202, &r);
	snprintf(id, 64, "%s", sget(j, "id"));
	char loc[128];
	snprintf(loc, sizeof loc, "/v1/jobs/%s", id);
	const char *l = http_header(&r, "Location");
	ck_assert_msg(l && strcmp(l, loc) == 0, "Location %s, expected %s", l,
		      loc);
	ck_assert_ptr_nonnull(http_header(&r, "Retry-After"));
	http_response_free(&r);
	const char *st = sget(j, "state");
	ck_assert_msg(strcmp(st, "queued") == 0 || strcmp(st, "running") == 0 ||
			      strcmp(st, "done") == 0,
		      "a new job is %s", st);
	ck_assert_str_eq(sget(j, "method"), "optimal");
	ck_assert_int_eq(iget(j, "size"), 3);
	json_t *p = json_object_get(j, "progress");
	ck_assert(json_is_integer(json_object_get(p, "depth")) &&
		  json_is_integer(json_object_get(p, "nodes")) &&
		  json_is_number(json_object_get(p, "elapsed_ms")));
	return j;
}

static json_t *submit(int port, const char *facelets, const char *extra,
		      char id[64])
{
	char body[256];
	snprintf(body, sizeof body,
		 "{\"facelets\": \"%s\", \"method\": \"optimal\"%s%s}",
		 facelets, extra ? ", " : "", extra ? extra : "");
	return submit_at(port, "/v1/solve", NULL, body, id);
}

static json_t *get_job(int port, const char *id)
{
	char path[128];
	snprintf(path, sizeof path, "/v1/jobs/%s", id);
	return expect_json(port, "GET", path, NULL, NULL, NULL, 200, NULL);
}

/* Poll the job until until(job) holds; the job then (asserted within
 * the deadline). */
static json_t *wait_job(int port, const char *id, int (*until)(const json_t *),
			double secs, const char *what)
{
	double end = now_s() + secs;
	for (;;) {
		json_t *j = get_job(port, id);
		if (until(j))
			return j;
		if (now_s() > end) {
			char *t = text(j);
			ck_abort_msg("job %s: not %s after %.0f s: %s", id, what,
				     secs, t);
		}
		json_decref(j);
		test_sleep_ms(20);
	}
}

static int is_finished(const json_t *j)
{
	const char *s = json_string_value(json_object_get(j, "state"));
	return s && (strcmp(s, "done") == 0 || strcmp(s, "failed") == 0 ||
		     strcmp(s, "cancelled") == 0);
}

/* Running, past depth 9 (every random state is deeper). */
static int is_deep(const json_t *j)
{
	const char *s = json_string_value(json_object_get(j, "state"));
	json_t *p = json_object_get(j, "progress");
	return s && strcmp(s, "running") == 0 &&
	       json_integer_value(json_object_get(p, "depth")) >= 10 &&
	       json_integer_value(json_object_get(p, "nodes")) > 0;
}

static int is_running(const json_t *j)
{
	const char *s = json_string_value(json_object_get(j, "state"));
	return s && strcmp(s, "running") == 0;
}

static json_t *wait_done(int port, const char *id)
{
	json_t *j = wait_job(port, id, is_finished, TABLES_WAIT_S, "finished");
	if (strcmp(sget(j, "state"), "done") != 0) {
		char *t = text(j);
		ck_abort_msg("job %s did not succeed: %s", id, t);
	}
	return j;
}

/* DELETE → 200, the job cancelled. */
static void cancel(int port, const char *id)
{
	char path[128];
	snprintf(path, sizeof path, "/v1/jobs/%s", id);
	json_t *j = expect_json(port, "DELETE", path, NULL, NULL, NULL, 200,
				NULL);
	ck_assert_str_eq(sget(j, "state"), "cancelled");
	ck_assert(json_is_string(json_object_get(j, "finished_at")));
	json_decref(j);
}

/* The checkerboard (6 moves, optimal) held turned: x y. */
static char *checkerboard_turned(int port)
{
	return apply_n(port, NULL, 3, "U2 D2 F2 B2 R2 L2 x y");
}

/* ---------------------------------------------------------------- tests */

START_TEST(job_lifecycle)
{
	char *f = checkerboard_turned(srv.port);
	char id[64];
	json_decref(submit(srv.port, f, NULL, id));
	json_t *j = wait_done(srv.port, id);
	json_t *res = json_object_get(j, "result");
	ck_assert_int_eq(iget(res, "length"), 6);
	ck_assert_str_eq(sget(res, "metric"), "htm");
	ck_assert_str_eq(sget(res, "method"), "optimal");
	ck_assert(bget(res, "optimal"));
	ck_assert_int_eq(iget(res, "size"), 3);
	char *after = apply(srv.port, f, sget(res, "solution"));
	ck_assert_msg(solved_look(after), "%s does not solve %s",
		      sget(res, "solution"), f);
	ck_assert_msg(memcmp(after + 4, f + 4, 1) == 0,
		      "the solution turned the cube");
	json_t *p = json_object_get(j, "progress");
	ck_assert_int_eq(iget(p, "depth"), 5);
	ck_assert(json_is_string(json_object_get(j, "started_at")));
	ck_assert(json_is_string(json_object_get(j, "finished_at")));
	ck_assert(json_object_get(j, "error") == NULL);
	/* nothing left to cancel: 409, the job as it was */
	char path[128];
	snprintf(path, sizeof path, "/v1/jobs/%s", id);
	json_t *pr = expect_problem(srv.port, "DELETE", path, NULL, NULL, NULL,
				    409, "conflict", "job_finished", NULL, NULL);
	ck_assert_str_eq(sget(pr, "state"), "done");
	json_decref(pr);
	json_t *again = get_job(srv.port, id);
	ck_assert(json_equal(again, j));
	json_decref(again);
	/* /readyz: the tables are ready now */
	json_t *rz = expect_json(srv.port, "GET", "/readyz", NULL, NULL, NULL,
				 200, NULL);
	json_t *o = json_object_get(json_object_get(rz, "solver"), "optimal");
	ck_assert_str_eq(sget(o, "tables"), "ready");
	ck_assert_int_eq(iget(o, "level"), 0);
	json_decref(rz);
	/* a solved cube: done, no moves */
	json_decref(submit(srv.port, SOLVED3, NULL, id));
	json_t *s = wait_done(srv.port, id);
	ck_assert_int_eq(iget(json_object_get(s, "result"), "length"), 0);
	ck_assert_str_eq(sget(json_object_get(s, "result"), "solution"), "");
	json_decref(s);
	json_decref(j);
	free(after);
	free(f);
}
END_TEST

START_TEST(cancel_running)
{
	char *f = random_state(srv.port, 7);
	char id[64];
	json_decref(submit(srv.port, f, NULL, id));
	json_t *j = wait_job(srv.port, id, is_deep, TABLES_WAIT_S,
			     "running past depth 9");
	ck_assert(json_is_string(json_object_get(j, "started_at")));
	ck_assert(json_is_null(json_object_get(j, "finished_at")));
	ck_assert(json_object_get(j, "result") == NULL);
	json_decref(j);
	cancel(srv.port, id);
	json_t *c = get_job(srv.port, id);
	ck_assert_str_eq(sget(c, "state"), "cancelled");
	json_decref(c);
	/* the worker is free again: the next job runs and finishes */
	char *g = checkerboard_turned(srv.port);
	json_decref(submit(srv.port, g, NULL, id));
	json_decref(wait_done(srv.port, id));
	free(g);
	free(f);
}
END_TEST

START_TEST(limits_fail_the_job)
{
	/* too short a max_length: failed, with the reason */
	char *f = checkerboard_turned(srv.port);
	char id[64];
	json_decref(submit(srv.port, f, "\"max_length\": 5", id));
	json_t *j = wait_job(srv.port, id, is_finished, JOB_WAIT_S, "finished");
	ck_assert_str_eq(sget(j, "state"), "failed");
	ck_assert_str_eq(sget(json_object_get(j, "error"), "code"),
			 "no_solution_found");
	ck_assert(json_object_get(j, "result") == NULL);
	json_decref(j);
	json_decref(submit(srv.port, f, "\"max_length\": 0", id));
	j = wait_job(srv.port, id, is_finished, JOB_WAIT_S, "finished");
	ck_assert_str_eq(sget(j, "state"), "failed");
	json_decref(j);
	/* a time limit: failed at it, with how deep it got */
	char *r = random_state(srv.port, 8);
	json_decref(submit(srv.port, r, "\"timeout_ms\": 300", id));
	j = wait_job(srv.port, id, is_finished, JOB_WAIT_S, "finished");
	ck_assert_str_eq(sget(j, "state"), "failed");
	ck_assert_str_eq(sget(json_object_get(j, "error"), "code"),
			 "time_limit");
	json_decref(j);
	free(r);
	free(f);
}
END_TEST

START_TEST(bad_requests)
{
	static const struct {
		const char *body, *kind, *code, *field;
	} cases[] = {
		{"{\"facelets\": \"" SOLVED3 "\", \"method\": \"optimal\", "
		 "\"target\": \"cross\"}",
		 "invalid_request", "not_applicable", "target"},
		{"{\"facelets\": \"" SOLVED3 "\", \"method\": \"optimal\", "
		 "\"max_length\": 31}",
		 "invalid_request", "value_out_of_range", "max_length"},
		{"{\"facelets\": \"" SOLVED3 "\", \"method\": \"optimal\", "
		 "\"timeout_ms\": 0}",
		 "invalid_request", "value_out_of_range", "timeout_ms"},
		{"{\"facelets\": \"UUUUUUUUFURRRRRRRRFFRFFFFFFDDDDDDDDDLLLLLLLLL"
		 "BBBBBBBBB\", \"method\": \"optimal\"}",
		 "invalid_cube", "invalid_cube", "facelets"},
		{"{\"facelets\": \"" SOLVED3 "\", \"method\": \"optimal\", "
		 "\"max_length\": \"7\"}",
		 "invalid_request", "wrong_type", "max_length"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		json_decref(expect_problem(srv.port, "POST", "/v1/solve", NULL,
					   NULL, cases[i].body, 422,
					   cases[i].kind, cases[i].code,
					   cases[i].field, NULL));
	/* a 4×4: not a 3×3 */
	char *big = malloc(6 * 16 + 64);
	char *p = big + sprintf(big, "{\"facelets\": \"");
	for (int face = 0; face < 6; face++)
		for (int k = 0; k < 16; k++)
			*p++ = "URFDLB"[face];
	sprintf(p, "\", \"method\": \"optimal\"}");
	json_decref(expect_problem(srv.port, "POST", "/v1/solve", NULL, NULL,
				   big, 422, "invalid_request",
				   "method_unavailable", "method", NULL));
	free(big);
	/* a 2×2's optimal solve is its default search: answered at once */
	json_t *j = expect_json(srv.port, "POST", "/v1/solve", NULL, NULL,
				"{\"facelets\": \"UUUURRRRFFFFDDDDLLLLBBBB\", "
				"\"method\": \"optimal\"}",
				200, NULL);
	ck_assert_int_eq(iget(j, "length"), 0);
	ck_assert_str_eq(sget(j, "method"), "optimal");
	json_decref(j);
}
END_TEST

START_TEST(unknown_and_lost)
{
	json_decref(expect_problem(srv.port, "GET", "/v1/jobs/nope", NULL, NULL,
				   NULL, 404, "not_found", "no_such_job", NULL,
				   NULL));
	json_decref(expect_problem(srv.port, "DELETE", "/v1/jobs/nope", NULL,
				   NULL, NULL, 404, "not_found", "no_such_job",
				   NULL, NULL));
	/* well formed, another run's epoch */
	json_t *p = expect_problem(srv.port, "GET",
				   "/v1/jobs/j00000000-1-0123456789abcdef",
				   NULL, NULL, NULL, 410, "gone", "job_lost",
				   NULL, NULL);
	ck_assert_str_eq(sget(p, "state"), "lost");
	json_decref(p);
	/* this run's epoch and a sequence number it has not reached, or a
	 * forged mac: unknown */
	char id[64];
	json_decref(submit(srv.port, SOLVED3, NULL, id));
	json_decref(wait_done(srv.port, id));
	char forged[80], path[128];
	snprintf(forged, sizeof forged, "%s", id);
	char *mac = strrchr(forged, '-') + 1;
	mac[0] = mac[0] == '0' ? '1' : '0';
	snprintf(path, sizeof path, "/v1/jobs/%s", forged);
	json_decref(expect_problem(srv.port, "GET", path, NULL, NULL, NULL, 404,
				   "not_found", "no_such_job", NULL, NULL));
	json_decref(expect_problem(srv.port, "POST", "/v1/jobs/x", NULL, NULL,
				   "{}", 405, "method_not_allowed",
				   "method_not_allowed", NULL, NULL));
}
END_TEST

/* A restart loses the jobs: their ids answer 410 job_lost. */
START_TEST(lost_after_restart)
{
	server s;
	start_or_abort(&s, NULL, level0);
	char id[64], path[128];
	char *f = random_state(s.port, 9);
	json_decref(submit(s.port, f, NULL, id));
	snprintf(path, sizeof path, "/v1/jobs/%s", id);
	char dir[64];
	snprintf(dir, sizeof dir, "%s", s.dir);
	server_stop(&s, 0);
	start_or_abort(&s, dir, level0);
	json_t *p = expect_problem(s.port, "GET", path, NULL, NULL, NULL, 410,
				   "gone", "job_lost", NULL, NULL);
	ck_assert_str_eq(sget(p, "state"), "lost");
	json_decref(p);
	json_decref(expect_problem(s.port, "DELETE", path, NULL, NULL, NULL,
				   410, "gone", "job_lost", NULL, NULL));
	server_stop(&s, 1);
	free(f);
}
END_TEST

static int is_gone(int port, const char *id)
{
	char path[128];
	snprintf(path, sizeof path, "/v1/jobs/%s", id);
	http_response r;
	call(&r, port, "GET", path, NULL, NULL, NULL);
	int st = r.status;
	http_response_free(&r);
	return st == 410;
}

/* --job-ttl 1: a finished job is forgotten after a second, and its id
 * then says so. */
START_TEST(expired)
{
	static const char *const opts[] = {"--optimal-level", "0", "--job-ttl",
					   "1", NULL};
	server s;
	start_or_abort(&s, NULL, opts);
	char id[64], path[128];
	json_decref(submit(s.port, SOLVED3, NULL, id));
	json_decref(wait_done(s.port, id));
	double end = now_s() + 10;
	while (!is_gone(s.port, id)) {
		ck_assert_msg(now_s() < end, "job %s still kept after 10 s", id);
		test_sleep_ms(50);
	}
	snprintf(path, sizeof path, "/v1/jobs/%s", id);
	json_t *p = expect_problem(s.port, "GET", path, NULL, NULL, NULL, 410,
				   "gone", "job_expired", NULL, NULL);
	ck_assert_str_eq(sget(p, "state"), "expired");
	json_decref(p);
	server_stop(&s, 1);
}
END_TEST

/* One worker, one running and one waiting job per client: the third is
 * 429 with Retry-After; cancelling the waiting one makes room. */
START_TEST(client_caps)
{
	static const char *const opts[] = {
		"--optimal-level", "0", "--solve-workers", "1",
		"--solve-client-running", "1", "--solve-client-queued", "1",
		"--solve-queue", "8", NULL};
	server s;
	start_or_abort(&s, NULL, opts);
	char *f = random_state(s.port, 10);
	char a[64], b[64], c[64];
	json_decref(submit(s.port, f, NULL, a));
	json_decref(wait_job(s.port, a, is_running, TABLES_WAIT_S, "running"));
	json_t *jb = submit(s.port, f, NULL, b);
	ck_assert_str_eq(sget(jb, "state"), "queued");
	json_decref(jb);
	char body[160];
	snprintf(body, sizeof body,
		 "{\"facelets\": \"%s\", \"method\": \"optimal\"}", f);
	http_response r;
	json_decref(expect_problem(s.port, "POST", "/v1/solve", NULL, NULL,
				   body, 429, "too_many_requests",
				   "too_many_jobs", NULL, &r));
	ck_assert_ptr_nonnull(http_header(&r, "Retry-After"));
	http_response_free(&r);
	/* the queued one cancelled: gone from the queue at once */
	cancel(s.port, b);
	json_t *jc = submit(s.port, f, NULL, c);
	ck_assert_str_eq(sget(jc, "state"), "queued");
	json_decref(jc);
	/* the running one cancelled: the queued one runs */
	cancel(s.port, a);
	json_decref(wait_job(s.port, c, is_running, JOB_WAIT_S, "running"));
	cancel(s.port, c);
	/* /readyz counts them */
	json_t *rz = expect_json(s.port, "GET", "/readyz", NULL, NULL, NULL,
				 200, NULL);
	json_t *o = json_object_get(json_object_get(rz, "solver"), "optimal");
	ck_assert_int_eq(iget(json_object_get(o, "jobs"), "kept"), 3);
	json_decref(rz);
	server_stop(&s, 1);
	free(f);
}
END_TEST

/* A queue of one: with one job running and one waiting, the next is 503
 * queue_full with Retry-After, whatever the client's own caps. */
START_TEST(queue_full)
{
	static const char *const opts[] = {
		"--optimal-level", "0", "--solve-workers", "1",
		"--solve-client-queued", "10", "--solve-queue", "1", NULL};
	server s;
	start_or_abort(&s, NULL, opts);
	char *f = random_state(s.port, 11);
	char a[64], b[64];
	json_decref(submit(s.port, f, NULL, a));
	json_decref(wait_job(s.port, a, is_running, TABLES_WAIT_S, "running"));
	json_decref(submit(s.port, f, NULL, b));
	char body[160];
	snprintf(body, sizeof body,
		 "{\"facelets\": \"%s\", \"method\": \"optimal\"}", f);
	http_response r;
	json_decref(expect_problem(s.port, "POST", "/v1/solve", NULL, NULL,
				   body, 503, "unavailable", "queue_full", NULL,
				   &r));
	ck_assert_ptr_nonnull(http_header(&r, "Retry-After"));
	http_response_free(&r);
	/* the server stops promptly with a job running and one waiting */
	double t0 = now_s();
	ck_assert_int_eq(server_stop(&s, 1), 0);
	ck_assert_msg(now_s() - t0 < 5, "stopping took %.1f s", now_s() - t0);
	free(f);
}
END_TEST

/* A session's optimal solve: 202 with the session and version; done, it
 * is among the session's solves. */
START_TEST(session_optimal)
{
	ses s;
	json_decref(create(srv.port, "{\"size\": 3}", &s));
	char path[160];
	snprintf(path, sizeof path, "%s/moves", s.path);
	json_decref(expect_json(srv.port, "POST", path, s.token, NULL,
				"{\"moves\": \"R U2 F' L D2 B R'\"}", 200, NULL));
	snprintf(path, sizeof path, "%s/solve", s.path);
	char id[64];
	json_t *j = submit_at(srv.port, path, NULL,
			      "{\"method\": \"optimal\"}", id);
	ck_assert_str_eq(sget(j, "session_id"), s.id);
	ck_assert_int_eq(iget(j, "version"), 1);
	ck_assert(json_is_null(json_object_get(j, "solve_id")));
	json_decref(j);
	j = wait_done(srv.port, id);
	json_t *res = json_object_get(j, "result");
	ck_assert_int_eq(iget(res, "length"), 7);
	long long solve_id = iget(j, "solve_id");
	json_t *all = pages_all(srv.port, &s, "solves", "solves", "id", NULL,
				10);
	ck_assert_int_eq(json_array_size(all), 1);
	json_t *sv = json_array_get(all, 0);
	ck_assert_int_eq(iget(sv, "id"), solve_id);
	ck_assert_str_eq(sget(sv, "method"), "optimal");
	ck_assert_str_eq(sget(sv, "solution"), sget(res, "solution"));
	ck_assert_int_eq(iget(sv, "length"), 7);
	ck_assert_int_eq(iget(sv, "version"), 1);
	json_decref(all);
	json_decref(j);
	/* a 2×2 session: not for this method */
	ses t;
	json_decref(create(srv.port, "{\"size\": 2}", &t));
	snprintf(path, sizeof path, "%s/solve", t.path);
	json_decref(expect_problem(srv.port, "POST", path, NULL, NULL,
				   "{\"method\": \"optimal\"}", 422,
				   "invalid_request", "method_unavailable",
				   "method", NULL));
}
END_TEST

START_TEST(solver_off)
{
	static const char *const opts[] = {"--solver", "0", NULL};
	server s;
	start_or_abort(&s, NULL, opts);
	json_decref(expect_problem(s.port, "POST", "/v1/solve", NULL, NULL,
				   "{\"facelets\": \"" SOLVED3 "\", "
				   "\"method\": \"optimal\"}",
				   503, "unavailable", "no_jobs", NULL, NULL));
	json_decref(expect_problem(s.port, "GET", "/v1/jobs/nope", NULL, NULL,
				   NULL, 503, "unavailable", "no_jobs", NULL,
				   NULL));
	json_t *rz = expect_json(s.port, "GET", "/readyz", NULL, NULL, NULL,
				 200, NULL);
	json_t *o = json_object_get(json_object_get(rz, "solver"), "optimal");
	ck_assert_str_eq(sget(o, "tables"), "off");
	json_decref(rz);
	server_stop(&s, 1);
}
END_TEST

Suite *http_jobs_suite(void)
{
	Suite *s = suite_create("http_jobs");
	TCase *tc = tcase_create("jobs");
	tcase_add_unchecked_fixture(tc, fixture_setup, fixture_teardown);
	tcase_set_timeout(tc, TABLES_WAIT_S + 60);
	tcase_add_test(tc, job_lifecycle);
	tcase_add_test(tc, cancel_running);
	tcase_add_test(tc, limits_fail_the_job);
	tcase_add_test(tc, bad_requests);
	tcase_add_test(tc, unknown_and_lost);
	tcase_add_test(tc, session_optimal);
	suite_add_tcase(s, tc);
	tc = tcase_create("servers");
	tcase_set_timeout(tc, TABLES_WAIT_S + 60);
	tcase_add_test(tc, lost_after_restart);
	tcase_add_test(tc, expired);
	tcase_add_test(tc, client_caps);
	tcase_add_test(tc, queue_full);
	tcase_add_test(tc, solver_off);
	suite_add_tcase(s, tc);
	return s;
}
