/* check_http_beginner.c — black-box tests of POST /v1/solve's beginner
 * method and of solving to a pattern ("target"), against the real server
 * binary over HTTP. (The rest of the solving routes are
 * check_http_solve.c's.)
 *
 * A fixture (session_helpers.c's, on test_server.c) spawns $CUBED_BIN
 * (default build/cubed) on 127.0.0.1 port 0 with a database in a fresh
 * temporary directory and $CUBED_TABLES's table cache. Nothing is checked
 * against a hand-written answer: every solution and every stage's moves
 * are applied with POST /v1/apply, a stage's state must be the one the
 * reply gives, and a target's state must fit the target by POST
 * /v1/match — the server's other routes, each pinned by its own suite. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "http_client.h"
#include "session_helpers.h"
#include "suites.h"

#define SOLVED3 "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB"
#define SOLVED2 "UUUURRRRFFFFDDDDLLLLBBBB"

static const char *const stage_names[7] = {
	"cross", "first_layer_corners", "second_layer",
	"last_layer_edge_orientation", "last_layer_edge_permutation",
	"last_layer_corner_permutation", "last_layer_corner_orientation",
};

/* ------------------------------------------------------------ server */

static server srv;

static void teardown(void)
{
	server_stop(&srv, 1);
}

static json_t *request(const char *method, const char *path, const char *body,
		       int status);

/* Wait (bounded) until /readyz says the 3×3 tables are ready: scrambles
 * need them, and a table cache loads in well under a second. */
static void setup(void)
{
	start_or_abort(&srv, NULL, NULL);
	const char *state = "";
	for (double end = test_now() + 120.0; test_now() < end;) {
		json_t *j = request("GET", "/readyz", NULL, 200);
		json_t *t = json_object_get(
			json_object_get(json_object_get(j, "solver"), "3x3"),
			"tables");
		int ready = json_is_string(t) &&
			    strcmp(json_string_value(t), "ready") == 0;
		state = json_is_string(t) ? "not ready" : "missing";
		json_decref(j);
		if (ready)
			return;
		test_sleep_ms(50);
	}
	ck_abort_msg("the 3×3 tables are %s after 120 s", state);
}

/* ----------------------------------------------------------- requests */

/* A request (body NULL for none); the reply's status must be status and
 * its body JSON, which is returned. */
static json_t *request(const char *method, const char *path, const char *body,
		       int status)
{
	const char *headers[2] = {"Content-Type: application/json", NULL};
	http_response r;
	int rc = http_request(srv.port, method, path, body ? headers : NULL,
			      body, body ? strlen(body) : 0, &r);
	ck_assert_msg(rc == 0, "%s %s: %s", method, path, r.error);
	ck_assert_msg(r.status == status, "%s %s %.200s: status %d, expected "
					  "%d: %.600s",
		      method, path, body ? body : "", r.status, status, r.body);
	json_error_t e;
	json_t *j = json_loadb(r.body, r.body_len, 0, &e);
	ck_assert_msg(j != NULL, "%s %s: not JSON: %.300s", method, path,
		      r.body);
	http_response_free(&r);
	return j;
}

static json_t *post(const char *path, json_t *body, int status)
{
	char *text = json_dumps(body, JSON_COMPACT);
	json_decref(body);
	json_t *j = request("POST", path, text, status);
	free(text);
	return j;
}

/* POST /v1/solve (body consumed) must be a problem of this status, kind,
 * code and field (session_helpers' expect_problem). */
static void solve_problem(json_t *body, int status, const char *kind,
			  const char *code, const char *field)
{
	char *text = json_dumps(body, JSON_COMPACT);
	json_decref(body);
	json_decref(expect_problem(srv.port, "POST", "/v1/solve", NULL, NULL,
				   text, status, kind, code, field, NULL));
	free(text);
}

/* A 3×3 scramble's facelets (malloc'd), from a seed. */
static char *scrambled(int seed)
{
	char path[64];
	snprintf(path, sizeof path, "/v1/scramble?size=3&seed=%d", seed);
	json_t *j = request("GET", path, NULL, 200);
	char *f = strdup(sget(j, "facelets"));
	json_decref(j);
	return f;
}

static int every_face_one_colour(const char *f)
{
	for (int face = 0; face < 6; face++)
		for (int i = 1; i < 9; i++)
			if (f[face * 9 + i] != f[face * 9])
				return 0;
	return 1;
}

/* Does the state fit the named pattern (name) or the pattern text? */
static int fits(const char *facelets, const char *name, const char *pattern)
{
	json_t *b = json_pack("{s:s}", "facelets", facelets);
	json_object_set_new(b, name ? "name" : "pattern",
			    json_string(name ? name : pattern));
	json_t *j = post("/v1/match", b, 200);
	int m = json_is_true(json_object_get(j, "matched"));
	json_decref(j);
	return m;
}

static int count_moves(const char *text)
{
	int k = 0;
	for (const char *p = text; *p; p++)
		k += *p != ' ' && (p == text || p[-1] == ' ');
	return k;
}

/* The stages of a beginner reply: `want` of them in order, each stage's
 * moves applied to the state before it giving its facelets, their moves
 * together the solution. Returns the state after the last stage. */
static char *check_stages(const json_t *j, const char *facelets, int want)
{
	json_t *st = json_object_get(j, "stages");
	ck_assert_msg(json_is_array(st), "no stages");
	ck_assert_int_eq((int)json_array_size(st), want);
	char *cur = strdup(facelets), joined[4096] = "";
	int total = 0;
	for (int k = 0; k < want; k++) {
		json_t *s = json_array_get(st, (size_t)k);
		ck_assert_str_eq(sget(s, "name"), stage_names[k]);
		const char *moves = sget(s, "moves");
		int len = (int)json_integer_value(json_object_get(s, "length"));
		ck_assert_int_eq(count_moves(moves), len);
		char *next = apply(srv.port, cur, moves);
		ck_assert_str_eq(next, sget(s, "facelets"));
		free(cur);
		cur = next;
		if (*moves) {
			size_t at = strlen(joined);
			snprintf(joined + at, sizeof joined - at, "%s%s",
				 at ? " " : "", moves);
		}
		total += len;
	}
	ck_assert_int_eq(total,
			 (int)json_integer_value(json_object_get(j, "length")));
	ck_assert_str_eq(joined, sget(j, "solution"));
	return cur;
}

/* -------------------------------------------------------------- tests */

START_TEST(beginner_random)
{
	for (int seed = 1; seed <= 20; seed++) {
		char *f = scrambled(seed);
		json_t *j = post("/v1/solve",
				 json_pack("{s:s, s:s}", "facelets", f, "method",
					   "beginner"),
				 200);
		ck_assert_str_eq(sget(j, "method"), "beginner");
		ck_assert_ptr_null(json_object_get(j, "target"));
		char *end = check_stages(j, f, 7);
		ck_assert_str_eq(end, SOLVED3);
		char *after = apply(srv.port, f, sget(j, "solution"));
		ck_assert_str_eq(after, SOLVED3);
		free(after);
		free(end);
		free(f);
		json_decref(j);
	}
}
END_TEST

/* A cube held turned is solved in its own frame, stage by stage: the
 * stages' states are the cube as held. */
START_TEST(beginner_turned)
{
	static const char *const turns[] = {"x y'", "z2", "y", "x' z"};
	for (int i = 0; i < 4; i++) {
		char *s = scrambled(100 + i), *f = apply(srv.port, s, turns[i]);
		json_t *j = post("/v1/solve",
				 json_pack("{s:s, s:s}", "facelets", f, "method",
					   "beginner"),
				 200);
		char *end = check_stages(j, f, 7);
		ck_assert_msg(every_face_one_colour(end), "not solved: %s", end);
		ck_assert_int_eq(end[4], f[4]); /* held the same way */
		free(end);
		free(f);
		free(s);
		json_decref(j);
	}
}
END_TEST

START_TEST(beginner_solved_and_session)
{
	json_t *j = post("/v1/solve",
			 json_pack("{s:s, s:s}", "facelets", SOLVED3, "method",
				   "beginner"),
			 200);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "length")), 0);
	free(check_stages(j, SOLVED3, 7));
	json_decref(j);

	/* a session's stored beginner solve solves its state */
	json_t *session = post("/v1/sessions",
			       json_pack("{s:i, s:b, s:i}", "size", 3,
					 "scramble", 1, "seed", 5),
			       201);
	char path[160];
	snprintf(path, sizeof path, "/v1/sessions/%s/solve",
		 sget(session, "id"));
	json_t *sv = post(path, json_pack("{s:s}", "method", "beginner"), 201);
	ck_assert_str_eq(sget(sv, "method"), "beginner");
	char *after = apply(srv.port, sget(session, "facelets"),
			    sget(sv, "solution"));
	ck_assert_str_eq(after, SOLVED3);
	free(after);
	json_decref(sv);
	json_decref(session);
}
END_TEST

START_TEST(target_cross)
{
	for (int seed = 1; seed <= 10; seed++) {
		char *f = scrambled(seed);
		json_t *j = post("/v1/solve",
				 json_pack("{s:s, s:s}", "facelets", f, "target",
					   "cross"),
				 200);
		ck_assert_str_eq(sget(j, "target"), "cross");
		ck_assert_str_eq(sget(j, "method"), "twophase");
		ck_assert(json_is_true(json_object_get(j, "optimal")));
		ck_assert_ptr_null(json_object_get(j, "stages"));
		int len = (int)json_integer_value(json_object_get(j, "length"));
		ck_assert_int_le(len, 8);
		char *after = apply(srv.port, f, sget(j, "solution"));
		ck_assert(fits(after, "cross", NULL));
		free(after);
		free(f);
		json_decref(j);
	}
}
END_TEST

/* A pattern given as text: a cross on the face holding the D colour,
 * whatever the frame. */
START_TEST(target_text)
{
	const char *pattern = "****U****"
			      "****R**R*"
			      "****F**F*"
			      "*D*DDD*D*"
			      "****L**L*"
			      "****B**B*";
	char *s = scrambled(7), *f = apply(srv.port, s, "y");
	json_t *j = post("/v1/solve",
			 json_pack("{s:s, s:s}", "facelets", f, "target",
				   pattern),
			 200);
	ck_assert_str_eq(sget(j, "target"), pattern);
	/* a pattern text has no distance tables: the plain search may run
	 * out of time, then a fallback answers */
	ck_assert(json_is_boolean(json_object_get(j, "optimal")));
	char *after = apply(srv.port, f, sget(j, "solution"));
	ck_assert(fits(after, NULL, pattern));
	free(after);
	free(f);
	free(s);
	json_decref(j);
}
END_TEST

START_TEST(target_fallbacks)
{
	char *f = scrambled(3);
	/* no time to search: not proven shortest, but it fits */
	json_t *j = post("/v1/solve",
			 json_pack("{s:s, s:s, s:i}", "facelets", f, "target",
				   "f2l", "timeout_ms", 1),
			 200);
	ck_assert(json_is_false(json_object_get(j, "optimal")));
	char *after = apply(srv.port, f, sget(j, "solution"));
	ck_assert(fits(after, "f2l", NULL));
	free(after);
	json_decref(j);

	/* beginner: the stages up to the one that reaches the target */
	j = post("/v1/solve",
		 json_pack("{s:s, s:s, s:s}", "facelets", f, "target",
			   "first_layer", "method", "beginner"),
		 200);
	ck_assert_str_eq(sget(j, "method"), "beginner");
	ck_assert(json_is_false(json_object_get(j, "optimal")));
	char *end = check_stages(j, f, 2);
	ck_assert(fits(end, "first_layer", NULL));
	free(end);
	json_decref(j);

	/* already there */
	j = post("/v1/solve",
		 json_pack("{s:s, s:s}", "facelets", SOLVED3, "target", "oll"),
		 200);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "length")), 0);
	ck_assert(json_is_true(json_object_get(j, "optimal")));
	json_decref(j);
	free(f);
}
END_TEST

START_TEST(target_errors)
{
	char *f = scrambled(9);
	solve_problem(
		json_pack("{s:s, s:s}", "facelets", f, "target", "crosss"), 422,
		"invalid_request", "unknown_pattern", "target");
	char bad[55];
	memset(bad, '*', 54);
	bad[54] = '\0';
	bad[20] = '7';
	json_t *b = json_pack("{s:s, s:s}", "facelets", f, "target", bad);
	json_t *j = post("/v1/solve", b, 422);
	ck_assert_str_eq(sget(j, "code"), "bad_pattern_digit");
	ck_assert_int_eq(json_integer_value(json_object_get(j, "offset")), 20);
	json_decref(j);
	solve_problem(
		json_pack("{s:s, s:s}", "facelets", SOLVED2, "target", "cross"),
		422, "invalid_request", "not_applicable", "target");
	solve_problem(json_pack("{s:s, s:s}", "facelets", SOLVED2, "method",
				"beginner"),
		      422, "invalid_request", "method_unavailable", "method");
	/* no cross in 1 move; a pattern nothing fits */
	solve_problem(json_pack("{s:s, s:s, s:i}", "facelets", f, "target",
				"cross", "max_length", 1),
		      422, "invalid_request", "no_solution_found",
		      "max_length");
	memset(bad, '*', 54);
	bad[4] = bad[13] = '1'; /* U and R centers one colour */
	solve_problem(json_pack("{s:s, s:s, s:i}", "facelets", f, "target", bad,
				"timeout_ms", 50),
		      422, "invalid_request", "no_solution_found", "target");
	free(f);
}
END_TEST

/* Without solver tables (--solver 0) the beginner method is off too. */
START_TEST(solver_off)
{
	server_stop(&srv, 1);
	static const char *const off[] = {"--solver", "0", NULL};
	start_or_abort(&srv, NULL, off);
	json_t *j = post("/v1/solve",
			 json_pack("{s:s, s:s}", "facelets", SOLVED3, "method",
				   "beginner"),
			 503);
	ck_assert_str_eq(sget(j, "code"), "tables_not_ready");
	ck_assert_str_eq(sget(j, "tables"), "off");
	json_decref(j);
	j = post("/v1/solve",
		 json_pack("{s:s, s:s}", "facelets", SOLVED3, "target", "cross"),
		 503);
	json_decref(j);
}
END_TEST

Suite *http_beginner_suite(void)
{
	Suite *s = suite_create("http_beginner");
	TCase *tc = tcase_create("beginner");
	/* checked: every test gets its own server, so solver_off can
	 * restart it */
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, beginner_random);
	tcase_add_test(tc, beginner_turned);
	tcase_add_test(tc, beginner_solved_and_session);
	tcase_add_test(tc, target_cross);
	tcase_add_test(tc, target_text);
	tcase_add_test(tc, target_fallbacks);
	tcase_add_test(tc, target_errors);
	tcase_add_test(tc, solver_off);
	suite_add_tcase(s, tc);
	return s;
}
