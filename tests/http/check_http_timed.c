/* check_http_timed.c — timed solves (POST/GET /v1/sessions/{id}/timed)
 * on the real server binary: a start declared at a version, then the
 * session's own moves decide the rest (first turn, solving move, moves in
 * HTM/QTM/STM, abandoned by a reset or by the next start), each player's
 * statistics, who may start one, and the WCA averages on their own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "http_client.h"
#include "session_helpers.h"
#include "sse_client.h"
#include "sessions.h"
#include "suites.h"

static server srv;

static void fixture_setup(void)
{
	start_or_abort(&srv, NULL, NULL);
}

static void fixture_teardown(void)
{
	server_stop(&srv, 1);
}

static void moves(const ses *s, const char *token, const char *m)
{
	char path[160], body[256];
	snprintf(path, sizeof path, "%s/moves", s->path);
	snprintf(body, sizeof body, "{\"moves\": \"%s\"}", m);
	json_decref(expect_json(srv.port, "POST", path, token, NULL, body, 200,
				NULL));
}

static json_t *start(const ses *s, const char *token, const char *body,
		     int status)
{
	char path[160];
	snprintf(path, sizeof path, "%s/timed", s->path);
	return expect_json(srv.port, "POST", path, token, NULL, body, status,
			   NULL);
}

static json_t *list(const ses *s, const char *token)
{
	char path[160];
	snprintf(path, sizeof path, "%s/timed", s->path);
	return expect_json(srv.port, "GET", path, token, NULL, NULL, 200, NULL);
}

static const json_t *nth(const json_t *l, size_t i)
{
	return json_array_get(json_object_get(l, "timed_solves"), i);
}

static long long moves_of(const json_t *t, const char *metric)
{
	return iget(json_object_get(t, "moves"), metric);
}

START_TEST(timed_solves_from_history)
{
	ses a;
	json_decref(create(srv.port, "{\"size\": 3}", &a));
	char body[160];
	json_t *tk = expect_json(srv.port, "POST",
				 (snprintf(body, sizeof body, "%s/tokens", a.path), body),
				 a.token, NULL, "{\"role\": \"write\", \"name\": \"bob\"}",
				 201, NULL);
	char bob[64];
	snprintf(bob, sizeof bob, "%s", sget(tk, "token"));
	json_decref(tk);

	/* the owner scrambles, starts: inspecting; watchers hear of it */
	moves(&a, a.token, "R U F");
	char events[192];
	snprintf(events, sizeof events, "%s/events?after=1", a.path);
	sse_client w;
	ck_assert_msg(sse_open(&w, srv.port, events, NULL, 5000, 0) == 0, "%s",
		      w.error);
	json_t *t = start(&a, a.token, NULL, 201);
	sse_event e;
	int got = 0;
	while (!got && sse_next(&w, &e, 5000) == 1) {
		if (strcmp(e.type, "timed") == 0) {
			got = 1;
			ck_assert_str_eq(e.id, "");
			json_t *d = json_loads(e.data, 0, NULL);
			ck_assert_str_eq(sget(d, "type"), "timed");
			ck_assert_str_eq(sget(d, "actor"), "owner");
			ck_assert_str_eq(sget(d, "moves"), "R U F");
			ck_assert_int_eq(iget(d, "version"), 1);
			json_decref(d);
		}
		sse_event_free(&e);
	}
	ck_assert_msg(got, "no timed event: %s", w.error);
	sse_close(&w);
	ck_assert_str_eq(sget(t, "status"), "inspecting");
	ck_assert_str_eq(sget(t, "actor"), "owner");
	ck_assert_str_eq(sget(t, "scramble"), "R U F");
	ck_assert_int_eq(iget(t, "version"), 1);
	ck_assert(json_is_null(json_object_get(t, "started_at")));
	json_decref(t);
	json_t *l = list(&a, NULL);
	ck_assert_str_eq(sget(nth(l, 0), "status"), "inspecting");
	json_decref(l);
	/* the first turn starts the clock */
	moves(&a, a.token, "D");
	l = list(&a, NULL);
	ck_assert_str_eq(sget(nth(l, 0), "status"), "running");
	ck_assert(json_is_string(json_object_get(nth(l, 0), "started_at")));
	ck_assert_int_eq(moves_of(nth(l, 0), "htm"), 1);
	json_decref(l);
	/* the solving move stops it */
	moves(&a, a.token, "D' F' U' R'");
	l = list(&a, NULL);
	const json_t *o = nth(l, 0);
	ck_assert_str_eq(sget(o, "status"), "solved");
	ck_assert_int_eq(iget(o, "end_version"), 3);
	ck_assert_int_eq(moves_of(o, "htm"), 5);
	ck_assert_int_eq(moves_of(o, "qtm"), 5);
	ck_assert_int_eq(moves_of(o, "stm"), 5);
	ck_assert_int_eq(iget(o, "penalty_ms"), 0);
	long long ms = iget(o, "ms");
	ck_assert(ms >= 0 && ms < 60000);
	ck_assert_str_ge(sget(o, "ended_at"), sget(o, "started_at"));
	json_decref(l);

	/* bob: slices and rotations count as the server's /v1/alg counts
	 * them, and a cube solved in another orientation is solved */
	moves(&a, bob, "M2 x");
	t = start(&a, bob, "{}", 201);
	ck_assert_str_eq(sget(t, "actor"), "bob");
	ck_assert_str_eq(sget(t, "scramble"), "M2 x");
	json_decref(t);
	moves(&a, bob, "M2");
	l = list(&a, a.token);
	o = nth(l, 1);
	ck_assert_str_eq(sget(o, "status"), "solved");
	ck_assert_int_eq(moves_of(o, "htm"), 2);
	ck_assert_int_eq(moves_of(o, "qtm"), 4);
	ck_assert_int_eq(moves_of(o, "stm"), 1);
	const json_t *players = json_object_get(l, "players");
	const json_t *po = json_object_get(players, "owner");
	const json_t *pb = json_object_get(players, "bob");
	ck_assert_int_eq(iget(po, "count"), 1);
	ck_assert_int_eq(iget(po, "best"), ms);
	ck_assert_int_eq(iget(po, "mean"), ms);
	ck_assert(json_is_null(json_object_get(po, "ao5")));
	ck_assert_int_eq(iget(pb, "solved"), 1);
	json_decref(l);

	/* a reset abandons; so does the next start */
	moves(&a, a.token, "R");
	json_decref(start(&a, a.token, NULL, 201));
	char path[160];
	snprintf(path, sizeof path, "%s/reset", a.path);
	json_decref(expect_json(srv.port, "POST", path, a.token, NULL, NULL, 200,
				NULL));
	moves(&a, a.token, "U");
	json_decref(start(&a, a.token, NULL, 201));
	json_decref(start(&a, a.token, NULL, 201));
	l = list(&a, NULL);
	ck_assert_int_eq(json_array_size(json_object_get(l, "timed_solves")), 5);
	ck_assert_str_eq(sget(nth(l, 2), "status"), "abandoned");
	ck_assert_str_eq(sget(nth(l, 3), "status"), "abandoned");
	ck_assert_str_eq(sget(nth(l, 4), "status"), "inspecting");
	ck_assert_int_eq(iget(json_object_get(json_object_get(l, "players"),
					      "owner"),
			      "count"),
			 1);
	json_decref(l);
}
END_TEST

START_TEST(timed_who_and_errors)
{
	ses a, p;
	json_decref(create(srv.port, "{\"size\": 3}", &a));
	json_t *pj = create(srv.port, "{\"size\": 2, \"visibility\": \"private\"}",
			    &p);
	char rt[64];
	snprintf(rt, sizeof rt, "%s", sget(pj, "read_token"));
	json_decref(pj);
	char path[160];
	snprintf(path, sizeof path, "%s/timed", a.path);
	json_decref(expect_problem(srv.port, "POST", path, NULL, NULL, NULL, 401,
				   "unauthorized", "token_required", NULL,
				   NULL));
	json_decref(expect_problem(srv.port, "POST", path, p.token, NULL, NULL,
				   403, "forbidden", "wrong_token", NULL, NULL));
	json_decref(expect_problem(srv.port, "POST", path, a.token, NULL,
				   "{\"version\": 1}", 422, "invalid_request",
				   "value_out_of_range", "version", NULL));
	json_decref(expect_problem(srv.port, "POST", path, a.token, NULL,
				   "{\"version\": \"0\"}", 422,
				   "invalid_request", "wrong_type", "version",
				   NULL));
	json_decref(expect_problem(srv.port, "GET", "/v1/sessions/AAAAAAAAAAAAAAAAAAAAAA/timed",
				   NULL, NULL, NULL, 404, "not_found",
				   "no_such_session", NULL, NULL));
	/* a private session's: a read token may list, not start */
	snprintf(path, sizeof path, "%s/timed", p.path);
	json_decref(expect_problem(srv.port, "GET", path, NULL, NULL, NULL, 404,
				   "not_found", "no_such_session", NULL, NULL));
	json_t *l = expect_json(srv.port, "GET", path, rt, NULL, NULL, 200, NULL);
	ck_assert_int_eq(json_array_size(json_object_get(l, "timed_solves")), 0);
	json_decref(l);
	json_decref(expect_problem(srv.port, "POST", path, rt, NULL, NULL, 403,
				   "forbidden", "read_only_token", NULL, NULL));
	/* nothing was stored by the refusals */
	l = list(&a, NULL);
	ck_assert_int_eq(json_array_size(json_object_get(l, "timed_solves")), 0);
	json_decref(l);
}
END_TEST

/* More timed solves than a read lists (1000): the latest are the ones
 * listed (before, the first 1000 were, so a busy session's newest solves
 * and their statistics never showed), judged as when each was fresh, and
 * a second read (its closed solves from the judged table) says the same
 * to the byte. */
START_TEST(timed_latest_listed)
{
	server own;
	const char *extra[] = {"--rate-limit", "0", NULL};
	start_or_abort(&own, NULL, extra);
	ses a;
	json_decref(create(own.port, "{\"size\": 3}", &a));
	char path[160], mpath[160];
	snprintf(path, sizeof path, "%s/timed", a.path);
	snprintf(mpath, sizeof mpath, "%s/moves", a.path);
	enum { N = 1003, SOLVED_AT = 500 };
	long long ids[N];
	for (int i = 0; i < N; i++) {
		json_t *t = expect_json(own.port, "POST", path, a.token, NULL,
					"{}", 201, NULL);
		ids[i] = iget(t, "id");
		json_decref(t);
		if (i == SOLVED_AT || i == 1) {
			json_decref(expect_json(own.port, "POST", mpath, a.token,
						NULL, "{\"moves\": \"R\"}", 200,
						NULL));
			json_decref(expect_json(own.port, "POST", mpath, a.token,
						NULL, "{\"moves\": \"R'\"}", 200,
						NULL));
		}
	}
	json_t *l = expect_json(own.port, "GET", path, a.token, NULL, NULL,
				200, NULL);
	const json_t *ts = json_object_get(l, "timed_solves");
	ck_assert_int_eq(json_array_size(ts), 1000);
	for (size_t i = 0; i < 1000; i++) {
		const json_t *t = json_array_get(ts, i);
		ck_assert_int_eq(iget(t, "id"), ids[N - 1000 + i]);
		const char *want = i == 999 ? "inspecting"
				   : ids[N - 1000 + i] == ids[SOLVED_AT] ? "solved"
									 : "abandoned";
		ck_assert_str_eq(sget(t, "status"), want);
	}
	const json_t *won = json_array_get(ts, SOLVED_AT - (N - 1000));
	ck_assert_int_eq(iget(json_object_get(won, "moves"), "htm"), 2);
	/* the statistics are of the listed: one solved (the one at 1 is
	 * not listed) */
	const json_t *pl = json_object_get(l, "players");
	ck_assert_int_eq(json_object_size(pl), 1);
	const char *who;
	const json_t *st;
	json_object_foreach((json_t *)pl, who, st) {
		ck_assert_int_eq(iget(st, "count"), 1);
		ck_assert_int_eq(iget(st, "solved"), 1);
	}
	json_t *again = expect_json(own.port, "GET", path, a.token, NULL, NULL,
				    200, NULL);
	ck_assert_msg(json_equal(l, again), "a second read differs");
	json_decref(again);
	json_decref(l);
	ck_assert_int_eq(server_stop(&own, 1), 0);
}
END_TEST

/* The WCA's averages on plain results: ms >= 0 solved, -1 a DNF. */
static void results(struct timed_result *r, const long long *ms, int k,
		    const char *actor)
{
	for (int i = 0; i < k; i++) {
		memset(&r[i], 0, sizeof r[i]);
		snprintf(r[i].t.actor, sizeof r[i].t.actor, "%s", actor);
		r[i].status = ms[i] < 0 ? TIMED_DNF : TIMED_SOLVED;
		r[i].ms = ms[i];
	}
}

START_TEST(timed_averages)
{
	struct timed_result r[14];
	struct timed_stats st;
	static const long long five[] = {10, 50, 20, 40, 30};
	results(r, five, 5, "a");
	timed_stats_of(r, 5, "a", &st);
	ck_assert_int_eq(st.best, 10);
	ck_assert_int_eq(st.mean, 30);
	ck_assert_int_eq(st.ao5, 30); /* 20 30 40 */
	ck_assert_int_eq(st.ao12, -1);
	static const long long one_dnf[] = {10, -1, 20, 40, 30};
	results(r, one_dnf, 5, "a");
	timed_stats_of(r, 5, "a", &st);
	ck_assert_int_eq(st.ao5, 30); /* the DNF is the worst, dropped */
	ck_assert_int_eq(st.dnf, 1);
	ck_assert_int_eq(st.mean, 25);
	static const long long two_dnf[] = {10, -1, 20, -1, 30};
	results(r, two_dnf, 5, "a");
	timed_stats_of(r, 5, "a", &st);
	ck_assert_int_eq(st.ao5, TIMED_AVG_DNF);
	/* the latest 5 and 12 of 14; rounding to the millisecond */
	static const long long many[] = {1000, 1000, 7, 9, 8, 100, 5, 6, 4, 3, 2, 1, 11, 12};
	results(r, many, 14, "a");
	timed_stats_of(r, 14, "a", &st);
	ck_assert_int_eq(st.ao5, 5);   /* 3 2 1 11 12: 2 3 11, 5.33 */
	ck_assert_int_eq(st.ao12, 7);  /* 7 … 12, 100 and 1 dropped: 6.7 */
	ck_assert_int_eq(st.best, 1);
	ck_assert_int_eq(st.mean, 155); /* 2168 / 14 */
	/* other players' results do not count */
	snprintf(r[13].t.actor, sizeof r[13].t.actor, "b");
	timed_stats_of(r, 14, "b", &st);
	ck_assert_int_eq(st.count, 1);
	ck_assert_int_eq(st.best, 12);
}
END_TEST

Suite *http_timed_suite(void)
{
	Suite *s = suite_create("http_timed");
	TCase *tc = tcase_create("timed");
	tcase_set_timeout(tc, 60);
	tcase_add_unchecked_fixture(tc, fixture_setup, fixture_teardown);
	tcase_add_test(tc, timed_solves_from_history);
	tcase_add_test(tc, timed_who_and_errors);
	tcase_add_test(tc, timed_latest_listed);
	suite_add_tcase(s, tc);
	TCase *avg = tcase_create("averages");
	tcase_add_test(avg, timed_averages);
	suite_add_tcase(s, avg);
	return s;
}
