/* check_http_solve.c — black-box tests of the solving routes of the real
 * server binary over HTTP: POST /v1/solve, GET /v1/scramble, the session
 * solves (POST /v1/sessions/{id}/solve, GET …/solves), /readyz's solver
 * member and the 503 tables_not_ready a request gets while tables load.
 *
 * A fixture (test_server.c, through session_helpers.c, whose request
 * helpers these tests use too) spawns $CUBED_BIN (default build/cubed) on
 * 127.0.0.1 port 0 with a database in a fresh temporary directory and
 * --tables $CUBED_TABLES (make test points every spawned server at one
 * table cache), so its tables load in well under a second once built. Every
 * test that solves first waits, bounded, until /readyz says both sizes'
 * tables are ready.
 *
 * No solution is checked against a hand-written answer: each one is
 * applied back with POST /v1/apply (pinned to docs/conventions.md by
 * the "http" suite) and the result must have every face one colour, in
 * the frame the cube was given in. Scrambles are checked the same way:
 * their moves applied to the solved cube must give their facelets.
 *
 * Every check names the request that failed and shows the reply. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>

#include "optimal.h"
#include "reduce.h"
#include "repr.h"
#include "solver_tables.h"
#include "require.h"
#include "session_helpers.h"
#include "suites.h"

#define SOLVED3 "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB"
#define AFTER_R "UUFUUFUUFRRRRRRRRRFFDFFDFFDDDBDDBDDBLLLLLLLLLUBBUBBUBB"
#define SOLVED2 "UUUURRRRFFFFDDDDLLLLBBBB"
/* a solved 3×3 with one corner twisted in place (URF) */
#define TWISTED3 "UUUUUUUUFURRRRRRRRFFRFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB"
/* a solved 3×3 with the UF and UR edges swapped (a permutation parity) */
#define SWAPPED3 "UUUUUUUUURFRRRRRRRFRFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB"
/* a solved 2×2 with the URF corner twisted */
#define TWISTED2 "UUUFURRRFRFFDDDDLLLLBBBB"

#define RANDOM_SOLVES 50

/* ------------------------------------------------------------------ */
/* The server: session_helpers.c's fixture (test_server.c).            */

static server srv;

static void fixture_setup(void)
{
	start_or_abort(&srv, NULL, NULL);
}

static void fixture_teardown(void)
{
	server_stop(&srv, 1);
}

/* ------------------------------------------------------------------ */
/* Requests: call, expect_json, expect_problem, sget and iget are       */
/* session_helpers.c's.                                                */

static char *dump(const json_t *j)
{
	return json_dumps(j, JSON_COMPACT);
}

/* ------------------------------------------------------------------ */
/* Cube helpers, all through the server's stateless routes.            */

/* The size n of a facelets string (6·n² letters), or 0. */
static int size_of(const char *facelets)
{
	size_t len = strlen(facelets);
	for (int n = 1; n <= 1024; n++)
		if ((size_t)6 * n * n == len)
			return n;
	return 0;
}

/* Every face one colour (in any arrangement: a cube held turned is
 * solved in its own frame). */
static int every_face_one_colour(const char *f)
{
	int n = size_of(f);
	if (n == 0)
		return 0;
	size_t nn = (size_t)n * n;
	for (int face = 0; face < 6; face++)
		for (size_t i = 1; i < nn; i++)
			if (f[face * nn + i] != f[face * nn])
				return 0;
	return 1;
}

/* The centre letters of a 3×3 (six letters) into out[7]. */
static void centres3(const char *f, char out[7])
{
	for (int face = 0; face < 6; face++)
		out[face] = f[face * 9 + 4];
	out[6] = '\0';
}

/* apply_n on the suite's server. */
static char *after_moves(const char *facelets, int n, const char *moves)
{
	return apply_n(srv.port, facelets, n, moves);
}

/* How many moves a canonical move text has (0 for ""). */
static int count_moves(const char *text)
{
	int k = 0;
	for (const char *p = text; *p;) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		k++;
		while (*p && *p != ' ')
			p++;
	}
	return k;
}

/* The body {"facelets": f} plus extra members (a JSON object text without
 * braces, or NULL). malloc'd. */
static char *solve_body(const char *facelets, const char *extra)
{
	size_t cap = strlen(facelets) + (extra ? strlen(extra) : 0) + 32;
	char *b = malloc(cap);
	snprintf(b, cap, "{\"facelets\": \"%s\"%s%s}", facelets,
		 extra ? ", " : "", extra ? extra : "");
	return b;
}

/* POST /v1/solve that must succeed: checks the reply's shape, that the
 * solution applied to the facelets leaves every face one colour, and the
 * length bound. Returns the reply. */
static json_t *solve_ok(const char *facelets, const char *extra,
			int max_len)
{
	char *body = solve_body(facelets, extra);
	json_t *j = expect_json(srv.port, "POST", "/v1/solve", NULL, NULL, body,
				200, NULL);
	int n = size_of(facelets);
	char *txt = dump(j);
	ck_assert_msg(iget(j, "size") == n, "solve %s: size: %s", facelets,
		      txt);
	ck_assert_str_eq(sget(j, "method"), n == 2 ? "optimal" : "twophase");
	const char *sol = sget(j, "solution");
	long long len = iget(j, "length");
	ck_assert_msg(len == count_moves(sol),
		      "solve %s: length %lld, but the solution has %d moves: "
		      "%s",
		      facelets, len, count_moves(sol), txt);
	ck_assert_msg(len <= max_len,
		      "solve %s: %lld moves, more than %d: %s", facelets, len,
		      max_len, txt);
	json_t *ms = json_object_get(j, "elapsed_ms");
	ck_assert_msg(json_is_number(ms) && json_number_value(ms) >= 0,
		      "solve %s: elapsed_ms: %s", facelets, txt);
	json_t *o = json_object_get(j, "orientation");
	ck_assert_msg(json_is_object(o) &&
			      json_is_string(json_object_get(o, "up")) &&
			      json_is_string(json_object_get(o, "front")) &&
			      json_is_string(json_object_get(o, "moves")),
		      "solve %s: orientation: %s", facelets, txt);
	/* solutions are outer-face turns only */
	for (const char *p = sol; *p; p++)
		ck_assert_msg(strchr("URFDLB'2 ", *p) != NULL,
			      "solve %s: \"%s\" is not face turns", facelets,
			      sol);
	char *after = after_moves(facelets, n, sol);
	ck_assert_msg(every_face_one_colour(after),
		      "solve %s: the solution \"%s\" leaves %s", facelets, sol,
		      after);
	if (n == 3) {
		/* solved in the frame it was given in: centres stay */
		char c0[7], c1[7];
		centres3(facelets, c0);
		centres3(after, c1);
		ck_assert_msg(strcmp(c0, c1) == 0,
			      "solve %s: the centres moved (%s to %s)",
			      facelets, c0, c1);
	}
	free(after);
	free(txt);
	free(body);
	return j;
}

/* GET /v1/scramble?<query> that must succeed; checks the reply against
 * itself (moves applied to the solved cube give facelets; length) and
 * returns it. */
static json_t *scramble_ok(const char *query, int n, int check_apply)
{
	char path[128];
	snprintf(path, sizeof path, "/v1/scramble?%s", query);
	json_t *j =
		expect_json(srv.port, "GET", path, NULL, NULL, NULL, 200, NULL);
	ck_assert_msg(iget(j, "size") == n, "GET %s: size %lld", path,
		      iget(j, "size"));
	const char *kind = sget(j, "kind");
	ck_assert_msg(strcmp(kind, n <= 3 ? "random-state" : "random-move") ==
			      0,
		      "GET %s: kind %s", path, kind);
	long long seed = iget(j, "seed");
	ck_assert_msg(seed >= 0 && seed <= 9007199254740991LL,
		      "GET %s: seed %lld", path, seed);
	const char *moves = sget(j, "moves");
	long long len = iget(j, "length");
	ck_assert_msg(len == count_moves(moves),
		      "GET %s: length %lld, the moves have %d", path, len,
		      count_moves(moves));
	if (n == 2)
		ck_assert_msg(len <= 11, "GET %s: %lld moves", path, len);
	else if (n == 3)
		ck_assert_msg(len <= 21, "GET %s: %lld moves", path, len);
	else
		ck_assert_msg(len == 20 * (n - 2),
			      "GET %s: %lld moves, not the WCA length", path,
			      len);
	const char *f = sget(j, "facelets");
	ck_assert_msg(strlen(f) == (size_t)6 * n * n,
		      "GET %s: %zu facelets", path, strlen(f));
	if (check_apply) {
		char *want = after_moves(NULL, n, moves);
		ck_assert_msg(strcmp(want, f) == 0,
			      "GET %s: the moves \"%s\" give %s, not %s", path,
			      moves, want, f);
		free(want);
	}
	return j;
}

static void need_tables(void)
{
	need_tables_on(srv.port);
}

/* ------------------------------------------------------------------ */
/* /readyz and /v1/solve.                                              */

START_TEST(tables_ready)
{
	need_tables();
	json_t *j = expect_json(srv.port, "GET", "/readyz", NULL, NULL, NULL,
				200, NULL);
	ck_assert_str_eq(sget(j, "status"), "ready");
	json_t *sv = json_object_get(j, "solver");
	/* the two sizes, the big cubes' tables (only once a big cube is
	 * solved: nxn_tables_cached), the 4×4 and 5×5 ones (off: the
	 * suites' servers run --solver-4x4 0 --solver-5x5 0;
	 * four_tables_used, five_tables_used), the near tables (made at
	 * start by a warm server only: near_optimal) and the optimal
	 * solver's (made only when the first optimal job needs them:
	 * check_http_jobs.c) */
	ck_assert_msg(json_is_object(sv) && json_object_size(sv) == 7,
		      "solver: %s", dump(j));
	ck_assert_str_eq(sget(json_object_get(sv, "near"), "tables"), "absent");
	ck_assert_str_eq(sget(json_object_get(sv, "4x4"), "tables"), "off");
	ck_assert_str_eq(sget(json_object_get(sv, "5x5"), "tables"), "off");
	ck_assert_str_eq(sget(json_object_get(sv, "optimal"), "tables"),
			 "absent");
	ck_assert_str_eq(sget(json_object_get(sv, "nxn"), "tables"), "absent");
	static const char *const sizes[] = {"3x3", "2x2"};
	for (int i = 0; i < 2; i++) {
		json_t *t = json_object_get(sv, sizes[i]);
		ck_assert_msg(json_is_object(t) && json_object_size(t) == 1,
			      "solver %s: %s (ready has no percent or reason)",
			      sizes[i], dump(sv));
		ck_assert_str_eq(sget(t, "tables"), "ready");
	}
	json_decref(j);
}
END_TEST

/* Many random states per size, from /v1/scramble: each scramble is
 * valid, each solution solves, within the bound. _i: 0 = 3×3, 1 = 2×2. */
START_TEST(random_solves)
{
	need_tables();
	int n = _i == 0 ? 3 : 2;
	int bound = n == 3 ? 21 : 11;
	int longest = 0;
	for (int k = 0; k < RANDOM_SOLVES; k++) {
		char q[64];
		snprintf(q, sizeof q, "size=%d&seed=%d", n, 1000 + 7 * k);
		json_t *sc = scramble_ok(q, n, 1);
		json_t *j = solve_ok(sget(sc, "facelets"), NULL, bound);
		/* the cube came from the solved cube in the standard frame */
		json_t *o = json_object_get(j, "orientation");
		ck_assert_msg(strcmp(sget(o, "moves"), "") == 0,
			      "a scramble's state is held turned: %s",
			      dump(j));
		if (iget(j, "length") > longest)
			longest = (int)iget(j, "length");
		json_decref(j);
		json_decref(sc);
	}
	ck_assert_msg(longest > (n == 3 ? 15 : 6),
		      "%d random %d×%d states, all solved in at most %d moves",
		      RANDOM_SOLVES, n, n, longest);
}
END_TEST

/* The same cubes held turned (x y' first) are solved in their own frame:
 * the solution names faces as held, and the centres do not move. */
START_TEST(turned_cubes)
{
	need_tables();
	for (int k = 0; k < 20; k++) {
		int n = k % 2 ? 2 : 3;
		char q[64];
		snprintf(q, sizeof q, "size=%d&seed=%d", n, 77 + k);
		json_t *sc = scramble_ok(q, n, 0);
		char *turned = after_moves(sget(sc, "facelets"), n, "x y'");
		json_t *j = solve_ok(turned, NULL, n == 3 ? 21 : 11);
		json_t *o = json_object_get(j, "orientation");
		ck_assert_msg(strcmp(sget(o, "moves"), "") != 0,
			      "a cube turned by x y' is reported as held "
			      "in the standard orientation: %s",
			      dump(j));
		if (n == 3) {
			/* x y' puts F's colour up and L's in front */
			ck_assert_str_eq(sget(o, "up"), "F");
			ck_assert_str_eq(sget(o, "front"), "L");
		}
		/* the frame matters: the solution of the state as scrambled
		 * does not solve it turned */
		json_t *plain = solve_ok(sget(sc, "facelets"), NULL,
					 n == 3 ? 21 : 11);
		if (iget(plain, "length") > 0) {
			char *wrong =
				after_moves(turned, n, sget(plain, "solution"));
			ck_assert_msg(!every_face_one_colour(wrong),
				      "the standard-frame solution %s also "
				      "solves the cube turned by x y'",
				      sget(plain, "solution"));
			free(wrong);
		}
		json_decref(plain);
		json_decref(j);
		free(turned);
		json_decref(sc);
	}
}
END_TEST

START_TEST(solved_cubes)
{
	need_tables();
	char *turned3 = after_moves(SOLVED3, 3, "x y'");
	char *turned2 = after_moves(SOLVED2, 2, "z2 y");
	const char *cubes[] = {SOLVED3, SOLVED2, turned3, turned2};
	const char *extras[] = {NULL, "\"max_length\": 0",
				"\"max_length\": 0, \"timeout_ms\": 1"};
	for (int c = 0; c < 4; c++)
		for (int e = 0; e < 3; e++) {
			json_t *j = solve_ok(cubes[c], extras[e], 0);
			ck_assert_str_eq(sget(j, "solution"), "");
			ck_assert_int_eq(iget(j, "length"), 0);
			json_decref(j);
		}
	free(turned3);
	free(turned2);
	/* one move from solved: one move back */
	json_t *j = solve_ok(AFTER_R, NULL, 1);
	ck_assert_str_eq(sget(j, "solution"), "R'");
	json_decref(j);
}
END_TEST

START_TEST(illegal_cubes)
{
	need_tables();
	static const struct {
		const char *facelets;
		const char *reason;
	} bad[] = {
		{TWISTED3, "twist"},
		{SWAPPED3, "parity"},
		{TWISTED2, "twist"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char *body = solve_body(bad[i].facelets, NULL);
		json_t *p = expect_problem(srv.port, "POST", "/v1/solve", NULL,
					   NULL, body, 422, "invalid_cube",
					   "invalid_cube", "facelets", NULL);
		json_t *errs = json_object_get(p, "errors");
		ck_assert_msg(json_is_array(errs) && json_array_size(errs) > 0,
			      "%s: no errors: %s", body, dump(p));
		int found = 0;
		for (size_t k = 0; k < json_array_size(errs); k++) {
			json_t *e = json_array_get(errs, k);
			ck_assert_msg(json_is_string(json_object_get(e,
								     "detail")),
				      "%s: an error without detail", body);
			if (strcmp(sget(e, "code"), bad[i].reason) == 0)
				found = 1;
		}
		ck_assert_msg(found, "%s: no %s among %s", body, bad[i].reason,
			      dump(errs));
		json_decref(p);
		free(body);
	}
}
END_TEST

START_TEST(other_sizes)
{
	/* no tables needed: the size is refused first */
	char *one = after_moves(NULL, 1, "x");
	char *body = solve_body(one, NULL);
	json_decref(expect_problem(srv.port, "POST", "/v1/solve", NULL, NULL,
				   body, 422, "invalid_request",
				   "not_applicable", "facelets", NULL));
	free(body);
	free(one);
}
END_TEST

/* POST /v1/solve of a cube of 4 or more layers that must succeed: the
 * method is reduction, the five stages lie end to end in order, the
 * solution applied leaves every face one colour (odd n: its own centers
 * where they were). Returns the reply. */
/* The budget a test asks for where it needs the 4×4 and 5×5 phases to
 * finish rather than be hurried into the stage-by-stage answer (a
 * default solve needs none: it is anytime). The phases take up to about
 * 2.5 s at -O2 on a quiet machine, many times that on a busy one or
 * under the sanitizers (-O1, ASan, UBSan): so 50 s, and four minutes
 * there (the server allows one and five, BIG_MAX_SOLVE). */
#define BIG_BUDGET_MS (SANITIZED ? 240000 : 50000)
/* the servers' --max-solve-ms for big cubes, and how long their clients
 * wait: under the sanitizers a one-pass 33×33 took over 60 s on a loaded
 * machine (two test runners and other builds at once) */
#define BIG_MAX_SOLVE (SANITIZED ? "300000" : "60000")
#define BIG_WAIT_MS (SANITIZED ? 310000 : 70000)

/* POST /v1/solve on port, the client waiting as long as the server may
 * take (--max-solve-ms BIG_MAX_SOLVE), not the helpers' 15 s. */
static json_t *long_solve_ok(int port, const char *body)
{
	int fd = http_connect(port, BIG_WAIT_MS);
	ck_assert_msg(fd >= 0, "connect: %s", strerror(errno));
	const char *const hdr[] = {"Content-Type: application/json", NULL};
	http_response r;
	int rc = http_send(fd, port, "POST", "/v1/solve", hdr, body,
			   strlen(body), 1, &r);
	close(fd);
	ck_assert_msg(rc == 0, "POST /v1/solve: %s", r.error);
	ck_assert_msg(r.status == 200, "POST /v1/solve %.120s: status %d: %s",
		      body, r.status, r.body);
	json_t *j = parse(&r, "POST /v1/solve");
	http_response_free(&r);
	return j;
}

static json_t *big_solve_ok(int port, const char *facelets,
			    const char *extra)
{
	static const char *const names[] = {"oll_parity", "centers", "edges",
					    "pll_parity", "3x3"};
	char *body = solve_body(facelets, extra);
	json_t *j = long_solve_ok(port, body);
	int n = size_of(facelets);
	char *txt = dump(j);
	ck_assert_msg(iget(j, "size") == n, "size: %.300s", txt);
	ck_assert_str_eq(sget(j, "method"), "reduction");
	const char *sol = sget(j, "solution");
	long long len = iget(j, "length");
	ck_assert_msg(len == count_moves(sol), "length %lld for %d moves", len,
		      count_moves(sol));
	json_t *st = json_object_get(j, "stages");
	ck_assert_msg(json_array_size(st) == 5, "stages: %.300s", txt);
	long long sum = 0;
	for (size_t i = 0; i < 5; i++) {
		json_t *e = json_array_get(st, i);
		ck_assert_str_eq(sget(e, "name"), names[i]);
		ck_assert_int_eq(iget(e, "length"), count_moves(sget(e, "moves")));
		sum += iget(e, "length");
	}
	ck_assert_int_eq(sum, len);
	ck_assert_msg(json_is_integer(json_object_get(j, "oll_parity")) &&
			      json_is_boolean(json_object_get(j, "pll_parity")),
		      "parity members: %.300s", txt);
	char *after = after_moves(facelets, n, sol);
	ck_assert_msg(every_face_one_colour(after), "n=%d: not solved", n);
	size_t nn = (size_t)n * n;
	for (int f = 0; f < 6 && n % 2; f++)
		ck_assert_int_eq(after[f * nn + nn / 2], facelets[f * nn + nn / 2]);
	free(after);
	free(txt);
	free(body);
	return j;
}

/* ---- anytime solves and the near search (issue 62) ----------------- */

static void tables_ready_on(int port, const char *key, long long bytes,
			    double seconds);

/* A solve on port that must answer 200 with a solution that solves the
 * cube: any size, the caller's extra members (NULL: none). Returns the
 * reply. */
static json_t *any_solve_ok(int port, const char *facelets, const char *extra)
{
	char *body = solve_body(facelets, extra);
	json_t *j = long_solve_ok(port, body);
	int n = size_of(facelets);
	const char *sol = sget(j, "solution");
	ck_assert_int_eq(iget(j, "length"), count_moves(sol));
	sget(j, "via");
	char *after = apply_n(port, facelets, n, sol);
	ck_assert_msg(every_face_one_colour(after), "n=%d: %s does not solve",
		      n, sol);
	free(after);
	free(body);
	return j;
}

/* A default solve is anytime: on a server whose every budget is 1 ms
 * (--max-solve-ms 1), as a busy machine's 3 s are when the first pass
 * takes longer, a 3×3, 4×4, 7×7 and 17×17 still get an answer, checked.
 * Only a budget or a length the caller names ends in 422
 * no_solution_found, which says the best length reached. */
START_TEST(anytime_tiny_budget)
{
	server o;
	const char *const extra[] = {"--max-solve-ms", "1", NULL};
	start_or_abort(&o, NULL, extra);
	need_tables_on(o.port);
	static const int sizes[] = {3, 4, 7, 17};
	char q[64];
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		snprintf(q, sizeof q, "size=%d&seed=%zu", sizes[i], 90 + i);
		json_t *sc = scramble_ok(q, sizes[i], 0);
		json_t *j = any_solve_ok(o.port, sget(sc, "facelets"), NULL);
		if (sizes[i] == 4) /* no 4×4 tables on this server */
			ck_assert_str_eq(sget(j, "via"), "stages");
		json_decref(j);
		json_decref(sc);
	}
	/* the caller's own budget, too tight: 422, no answer reached */
	snprintf(q, sizeof q, "size=7&seed=%d", 93);
	json_t *sc = scramble_ok(q, 7, 0);
	char *body = solve_body(sget(sc, "facelets"), "\"timeout_ms\": 1");
	json_t *p = expect_problem(o.port, "POST", "/v1/solve", NULL, NULL,
				   body, 422, "invalid_request",
				   "no_solution_found", "timeout_ms", NULL);
	ck_assert(json_is_null(json_object_get(p, "best_length")));
	json_decref(p);
	free(body);
	json_decref(sc);
	/* a 3×3 asked for at most 5 moves: 422 with the shortest reached */
	sc = scramble_ok("size=3&seed=94", 3, 0);
	body = solve_body(sget(sc, "facelets"), "\"max_length\": 5");
	p = expect_problem(o.port, "POST", "/v1/solve", NULL, NULL, body, 422,
			   "invalid_request", "no_solution_found", "max_length",
			   NULL);
	long long best = iget(p, "best_length");
	ck_assert_msg(best > 5 && best <= 20, "best_length %lld", best);
	json_decref(p);
	free(body);
	json_decref(sc);
	/* a 2×2 asked for at most 2: its optimal length is the best */
	char *f2 = apply_n(o.port, NULL, 2, "R U F R' U2");
	body = solve_body(f2, "\"max_length\": 2");
	p = expect_problem(o.port, "POST", "/v1/solve", NULL, NULL, body, 422,
			   "invalid_request", "no_solution_found", "max_length",
			   NULL);
	ck_assert_int_gt(iget(p, "best_length"), 2);
	json_decref(p);
	free(body);
	free(f2);
	ck_assert_int_eq(server_stop(&o, 1), 0);
}
END_TEST

/* Threads that keep both cores busy while they run (a busy machine). */
struct hog {
	pthread_t t[4];
	atomic_int stop;
};

static void *hog_spin(void *arg)
{
	struct hog *h = arg;
	volatile unsigned long x = 0;
	while (!atomic_load(&h->stop))
		x++;
	return NULL;
}

/* Default 4×4 and 7×7 solves under four spinning threads: answered, and
 * checked, however much longer they take. */
START_TEST(anytime_cpu_hog)
{
	server o;
	start_or_abort(&o, NULL, NULL);
	need_tables_on(o.port);
	struct hog h;
	atomic_init(&h.stop, 0);
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&h.t[i], NULL, hog_spin, &h), 0);
	static const int sizes[] = {4, 7};
	for (size_t i = 0; i < 2; i++) {
		char q[64];
		snprintf(q, sizeof q, "size=%d&seed=%zu", sizes[i], 95 + i);
		json_t *sc = scramble_ok(q, sizes[i], 0);
		json_decref(any_solve_ok(o.port, sget(sc, "facelets"), NULL));
		json_decref(sc);
	}
	atomic_store(&h.stop, 1);
	for (int i = 0; i < 4; i++)
		pthread_join(h.t[i], NULL);
	ck_assert_int_eq(server_stop(&o, 1), 0);
}
END_TEST

/* A 3×3 near solved gets an optimal default answer: for random walks of
 * 1 to 12 face turns (never the same face twice in a row), the default
 * solve's length equals the optimal length, found here by the optimal
 * solver on the same level-0 tables; every answer is applied back. The
 * server warms its near tables at start (--solver-warm 1), read from the
 * cache the tables were put in here first. */
START_TEST(near_optimal)
{
	unsigned char *near = solver_tables_optimal_cached("near_optimal", 0);
	server o;
	const char *const extra[] = {"--solver-warm", "1", NULL};
	start_or_abort(&o, NULL, extra);
	need_tables_on(o.port);
	tables_ready_on(o.port, "near", (long long)optimal_table_size(0), 300);
	static const char *const faces = "URFDLB";
	static const char *const amounts[] = {"", "2", "'"};
	unsigned seed = 62;
	int optimal_by_near = 0, walks = 300;
	for (int i = 0; i < walks; i++) {
		int d = 1 + i % 12, last = -1;
		char walk[64] = "";
		size_t k = 0;
		for (int j = 0; j < d; j++) {
			int f;
			do
				f = (int)(rand_r(&seed) % 6);
			while (f == last);
			last = f;
			k += (size_t)snprintf(walk + k, sizeof walk - k, "%s%c%s",
					      j ? " " : "", faces[f],
					      amounts[rand_r(&seed) % 3]);
		}
		char *f = apply_n(o.port, NULL, 3, walk);
		struct repr_cubies rc;
		REQUIRE(repr_cubies_from_facelets(f, 54, &rc) == CUBE_OK);
		cube_move m[24];
		optimal_limits ol = {.max_length = 20};
		int best = optimal_solve(near, &rc.c3, &ol, m, 24);
		ck_assert_int_ge(best, 0);
		json_t *j = any_solve_ok(o.port, f, NULL);
		ck_assert_msg(iget(j, "length") == best,
			      "walk %s: %lld moves, optimal %d (via %s)", walk,
			      iget(j, "length"), best, sget(j, "via"));
		ck_assert_msg(bget(j, "optimal"), "walk %s: not marked optimal",
			      walk);
		optimal_by_near += strcmp(sget(j, "via"), "optimal_search") == 0;
		json_decref(j);
		free(f);
	}
	/* two-phase alone gives a longer answer to many of them */
	ck_assert_int_gt(optimal_by_near, walks / 10);
	free(near);
	ck_assert_int_eq(server_stop(&o, 1), 0);
}
END_TEST

/* With the optimal solver's tables in memory, the near search reads
 * them (solver_near): a server that never makes its own near tables
 * (--solver-warm 0) but preloads the optimal ones (level 0 here, cached;
 * level 2's 2.5 GB prove a random state farther than 12 moves in 9
 * nodes where level 0 needs 232) answers "R U" in 2 moves by the optimal
 * search. Before, only the near tables served it: two-phase's 8 moves. */
START_TEST(near_by_optimal_tables)
{
	free(solver_tables_optimal_cached("near_optimal", 0));
	server o;
	const char *const extra[] = {"--solver-warm", "0", "--optimal-level",
				     "0", "--optimal-preload", NULL};
	start_or_abort(&o, NULL, extra);
	need_tables_on(o.port);
	tables_ready_on(o.port, "optimal", (long long)optimal_table_size(0),
			300);
	char *f = apply_n(o.port, NULL, 3, "R U");
	json_t *j = any_solve_ok(o.port, f, NULL);
	ck_assert_int_eq(iget(j, "length"), 2);
	ck_assert_str_eq(sget(j, "via"), "optimal_search");
	ck_assert(bget(j, "optimal"));
	json_decref(j);
	free(f);
	/* and the near tables were never made */
	json_t *rz = expect_json(o.port, "GET", "/readyz", NULL, NULL, NULL,
				 200, NULL);
	ck_assert_str_ne(sget(json_object_get(json_object_get(rz, "solver"),
					      "near"),
			      "tables"),
			 "ready");
	json_decref(rz);
	ck_assert_int_eq(server_stop(&o, 1), 0);
}
END_TEST

/* Big cubes by reduction: scrambles of several sizes, a PLL parity built
 * by hand, and the refusals, on a server whose --max-solve-ms leaves
 * room. The scrambles name no budget: a default solve is anytime (its
 * first pass always finishes, however slow the machine), and what is
 * checked here is the answer, not the speed (that is bench/'s). */
/* Scrambles of sizes[from..to-1] (seeds 40 + i) solved through o. */
static void big_scrambles(const server *o, size_t from, size_t to)
{
	static const int sizes[] = {4, 5, 7, 10, 6, 17};
	for (size_t i = from; i < to && i < sizeof sizes / sizeof *sizes;
	     i++) {
		char q[64];
		snprintf(q, sizeof q, "size=%d&seed=%zu", sizes[i], 40 + i);
		json_t *sc = scramble_ok(q, sizes[i], 0);
		json_decref(big_solve_ok(o->port, sget(sc, "facelets"),
					 i == 0 ? "\"method\": \"reduction\""
						: NULL));
		json_decref(sc);
	}
}

START_TEST(big_cubes)
{
	server o;
	const char *const extra[] = {"--max-solve-ms", BIG_MAX_SOLVE, NULL};
	start_or_abort(&o, NULL, extra);
	need_tables_on(o.port);
	/* 4×4 to 7×7 every day; the 10×10 and the 17×17 (past the phase
	 * solvers', minutes under the sanitizers) in big_cubes_larger */
	big_scrambles(&o, 0, 3);
	big_scrambles(&o, 4, 5);

	/* a solved 4×4 with the UF and UB dedges swapped: PLL parity */
	char *f = after_moves(NULL, 4, "");
	for (int k = 1; k <= 2; k++) {
		f[2 * 16 + k] = 'B'; /* F's top row */
		f[5 * 16 + k] = 'F'; /* B's top row */
	}
	json_t *j = big_solve_ok(o.port, f, NULL);
	ck_assert(json_is_true(json_object_get(j, "pll_parity")));
	ck_assert_int_eq(iget(j, "oll_parity"), 0);
	ck_assert_int_gt(iget(json_array_get(json_object_get(j, "stages"), 3),
			      "length"),
			 0);
	json_decref(j);

	/* a lone flipped dedge: OLL parity */
	free(f);
	f = after_moves(NULL, 4, "");
	for (int k = 1; k <= 2; k++) {
		f[0 * 16 + 12 + k] = 'F'; /* U's bottom row */
		f[2 * 16 + k] = 'U';      /* F's top row */
	}
	j = big_solve_ok(o.port, f, NULL);
	ck_assert_int_eq(iget(j, "oll_parity"), 1);
	json_decref(j);

	/* one wing flipped in place: a legal-looking count, no such cube */
	f[0 * 16 + 12 + 1] = 'U';
	f[2 * 16 + 1] = 'F';
	char *body = solve_body(f, NULL);
	j = expect_problem(o.port, "POST", "/v1/solve", NULL, NULL, body, 422,
			   "invalid_cube", "invalid_cube", "facelets", NULL);
	ck_assert(json_is_array(json_object_get(j, "errors")));
	json_decref(j);
	free(body);

	/* a twisted corner: the validation reasons */
	free(f);
	f = after_moves(NULL, 5, "");
	f[24] = 'R'; /* U's URF sticker */
	f[25 + 0] = 'F'; /* R's */
	f[50 + 4] = 'U'; /* F's */
	body = solve_body(f, NULL);
	j = expect_problem(o.port, "POST", "/v1/solve", NULL, NULL, body, 422,
			   "invalid_cube", "invalid_cube", "facelets", NULL);
	json_t *e0 = json_array_get(json_object_get(j, "errors"), 0);
	ck_assert_str_eq(sget(e0, "code"), "twist");
	json_decref(j);
	free(body);

	/* other methods, a target, a budget too small */
	free(f);
	f = after_moves(NULL, 6, "R 2U 3F'");
	body = solve_body(f, "\"method\": \"twophase\"");
	json_decref(expect_problem(o.port, "POST", "/v1/solve", NULL, NULL,
				   body, 422, "invalid_request",
				   "method_unavailable", "method", NULL));
	free(body);
	body = solve_body(f, "\"target\": \"cross\"");
	json_decref(expect_problem(o.port, "POST", "/v1/solve", NULL, NULL,
				   body, 422, "invalid_request",
				   "not_applicable", "target", NULL));
	free(body);
	body = solve_body(f, "\"timeout_ms\": 1");
	json_decref(expect_problem(o.port, "POST", "/v1/solve", NULL, NULL,
				   body, 422, "invalid_request",
				   "no_solution_found", "timeout_ms", NULL));
	free(body);
	free(f);

	/* more effort: a correct answer too (shorter on average, which is
	 * bench/'s to measure) */
	json_t *sc = scramble_ok("size=6&seed=46", 6, 0);
	json_decref(big_solve_ok(o.port, sget(sc, "facelets"),
				 "\"effort\": 2"));
	json_decref(sc);
	ck_assert_int_eq(server_stop(&o, 1), 0);
}
END_TEST

/* The 10×10 and the 17×17 of big_cubes' scrambles (make test-slow). */
START_TEST(big_cubes_larger)
{
	server o;
	const char *const extra[] = {"--max-solve-ms", BIG_MAX_SOLVE, NULL};
	start_or_abort(&o, NULL, extra);
	need_tables_on(o.port);
	big_scrambles(&o, 3, 4);
	if (!SANITIZED)
		big_scrambles(&o, 5, 6);
	ck_assert_int_eq(server_stop(&o, 1), 0);
}
END_TEST

/* A size solved in one pass (8×8 up) has no shorter answer to fall
 * back on, so its default budget is the server's --max-solve-ms, not
 * the 3 s of the sizes that run variants: a 33×33 (about 1.2 s at -O2)
 * is answered 200. This server's maximum (BIG_MAX_SOLVE) leaves room on
 * any machine. */
START_TEST(big_default_budget)
{
	need_tables();
	server o;
	const char *const extra[] = {"--max-solve-ms", BIG_MAX_SOLVE, NULL};
	start_or_abort(&o, NULL, extra);
	need_tables_on(o.port);
	/* under the sanitizers a 17×17 (a 33×33 there is minutes of CPU,
	 * and since default solves are anytime no budget can turn it into
	 * a 422: the rule is the plain build's to check) */
	int n = SANITIZED ? 17 : 33;
	char q[48];
	snprintf(q, sizeof q, "size=%d&seed=7", n);
	json_t *sc = scramble_ok(q, n, 0);
	const char *f = sget(sc, "facelets");
	char *body = solve_body(f, NULL);
	/* the client waits as long as the server may take (--max-solve-ms),
	 * not the helpers' 15 s: a 33×33 takes 2–3 s of CPU, and on a
	 * machine shared four ways (load 10–17) that was 15 s of wall */
	int fd = http_connect(o.port, BIG_WAIT_MS);
	ck_assert_msg(fd >= 0, "connect: %s", strerror(errno));
	const char *const hdr[] = {"Content-Type: application/json", NULL};
	http_response r;
	int rc = http_send(fd, o.port, "POST", "/v1/solve", hdr, body,
			   strlen(body), 1, &r);
	close(fd);
	ck_assert_msg(rc == 0, "POST /v1/solve: %s", r.error);
	ck_assert_int_eq(r.status, 200);
	json_t *j = parse(&r, "POST /v1/solve");
	http_response_free(&r);
	ck_assert_str_eq(sget(j, "method"), "reduction");
	ck_assert_int_eq(iget(j, "size"), n);
	char *after = after_moves(f, n, sget(j, "solution"));
	ck_assert_msg(every_face_one_colour(after), "%d×%d: not solved", n, n);
	free(after);
	json_decref(j);
	free(body);
	json_decref(sc);
	ck_assert_int_eq(server_stop(&o, 1), 0);
}
END_TEST

/* Effort 3 past 72×72 adds its inside-out pass when the request's
 * timeout_ms holds REDUCE_INSIDE_MS_N2 · n² / 1000 ms: the server hands
 * timeout_ms to the solver as its budget (reduce_limits.budget_ms). A
 * 76×76 scramble, on a server whose --max-solve-ms leaves room: with
 * 60,000 ms the pass runs (about 7 s here), with 1 ms under the gate
 * (8,663 ms) it does not, and the answer is the block commutators'
 * (check_reduce.c, effort3_inside_budget: about 40,000 moves against
 * 55,000 or more). The first budget is far above what the pass takes,
 * so a slow machine does not cut it; the second is refused by the gate
 * before any of it runs. */
START_TEST(effort_budget)
{
	server o;
	const char *const extra[] = {"--max-solve-ms", BIG_MAX_SOLVE, NULL};
	start_or_abort(&o, NULL, extra);
	need_tables_on(o.port);
	const int n = 76;
	const long need = (long)REDUCE_INSIDE_MS_N2 * n * n / 1000;
	ck_assert_int_eq(need, 8664);
	json_t *sc = scramble_ok("size=76&seed=5", n, 0);
	const char *f = sget(sc, "facelets");
	char opts[96];
	snprintf(opts, sizeof opts, "\"effort\": 3, \"timeout_ms\": %s",
		 SANITIZED ? "300000" : "60000");
	json_t *with = big_solve_ok(o.port, f, opts);
	snprintf(opts, sizeof opts, "\"effort\": 3, \"timeout_ms\": %ld",
		 need - 1);
	json_t *without = big_solve_ok(o.port, f, opts);
	long long a = iget(with, "length"), b = iget(without, "length");
	ck_assert_msg(a <= 41000 && b >= 55000,
		      "76x76 effort 3: %lld moves with the budget for the "
		      "inside-out pass, %lld without",
		      a, b);
	json_decref(with);
	json_decref(without);
	json_decref(sc);
	ck_assert_int_eq(server_stop(&o, 1), 0);
}
END_TEST

/* Effort 2 and 3 from 34×34 to 72×72 run the default's pass before the
 * inside-out one (reduce.c), so a timeout_ms that cuts the inside-out
 * pass short answers with the default's reduction, not 422
 * no_solution_found (this 72×72 at effort 2 and 10 s on a slow day,
 * before: bench/RESULTS.md). The default's pass takes 0.2-0.4 s here,
 * the inside-out pass 5-14 s: 2.5 s (8 s under the sanitizers) holds
 * the first and never the second. */
START_TEST(inside_cut_keeps_default)
{
	need_tables();
	json_t *sc = scramble_ok("size=72&seed=3", 72, 0);
	const char *f = sget(sc, "facelets");
	json_t *def = big_solve_ok(srv.port, f, NULL);
	char opts[64];
	snprintf(opts, sizeof opts, "\"effort\": 2, \"timeout_ms\": %d",
		 SANITIZED ? 8000 : 2500);
	json_t *cut = big_solve_ok(srv.port, f, opts);
	json_t *ds = json_object_get(def, "stages"),
	       *cs = json_object_get(cut, "stages");
	for (size_t i = 0; i < 4; i++) /* all but the 3×3 */
		ck_assert_str_eq(sget(json_array_get(cs, i), "moves"),
				 sget(json_array_get(ds, i), "moves"));
	long long a = iget(def, "length"), b = iget(cut, "length");
	ck_assert_msg(b >= a - 10 && b <= a + 10,
		      "72x72 effort 2 cut short: %lld moves, the default %lld",
		      b, a);
	json_decref(cut);
	json_decref(def);
	json_decref(sc);
}
END_TEST

START_TEST(no_solution_found)
{
	need_tables();
	/* a deep 3×3 (a random state needs 16+ moves) in 5 */
	json_t *sc = scramble_ok("size=3&seed=42", 3, 0);
	ck_assert_int_ge(iget(sc, "length"), 16);
	char *body = solve_body(sget(sc, "facelets"), "\"max_length\": 5");
	json_decref(expect_problem(srv.port, "POST", "/v1/solve", NULL, NULL,
				   body, 422, "invalid_request",
				   "no_solution_found", "max_length", NULL));
	free(body);
	/* a budget too short for 14 moves */
	body = solve_body(sget(sc, "facelets"),
			  "\"max_length\": 14, \"timeout_ms\": 1");
	json_decref(expect_problem(srv.port, "POST", "/v1/solve", NULL, NULL,
				   body, 422, "invalid_request",
				   "no_solution_found", "max_length", NULL));
	free(body);
	json_decref(sc);
	/* 0 moves for an unsolved 3×3 (core reads a 0 limit as 21) */
	body = solve_body(AFTER_R, "\"max_length\": 0");
	json_decref(expect_problem(srv.port, "POST", "/v1/solve", NULL, NULL,
				   body, 422, "invalid_request",
				   "no_solution_found", "max_length", NULL));
	free(body);
	/* a 2×2 at its optimal length answers, one shorter does not */
	sc = scramble_ok("size=2&seed=3", 2, 0);
	json_t *j = solve_ok(sget(sc, "facelets"), NULL, 11);
	long long opt = iget(j, "length");
	ck_assert_int_gt(opt, 0);
	char extra[64];
	snprintf(extra, sizeof extra, "\"max_length\": %lld", opt);
	json_decref(solve_ok(sget(sc, "facelets"), extra, (int)opt));
	snprintf(extra, sizeof extra, "\"max_length\": %lld", opt - 1);
	body = solve_body(sget(sc, "facelets"), extra);
	json_decref(expect_problem(srv.port, "POST", "/v1/solve", NULL, NULL,
				   body, 422, "invalid_request",
				   "no_solution_found", "max_length", NULL));
	free(body);
	json_decref(j);
	json_decref(sc);
}
END_TEST

/* Bad requests to /v1/solve: (body, kind, code, field, limit or -1). */
static const struct bad_solve {
	const char *body;
	const char *kind, *code, *field;
	long long limit;
} bad_solves[] = {
	{"{}", "invalid_request", "missing_field", "facelets", -1},
	{"[]", "invalid_request", "not_an_object", NULL, -1},
	{"{\"facelets\": \"" AFTER_R "\", \"size\": 3}", "invalid_request",
	 "unknown_field", "size", -1},
	{"{\"facelets\": 54}", "invalid_request", "wrong_type", "facelets", -1},
	{"{\"facelets\": \"" AFTER_R "\", \"method\": 1}", "invalid_request",
	 "wrong_type", "method", -1},
	{"{\"facelets\": \"" AFTER_R "\", \"method\": null}", "invalid_request",
	 "wrong_type", "method", -1},
	{"{\"facelets\": \"" AFTER_R "\", \"max_length\": \"5\"}",
	 "invalid_request", "wrong_type", "max_length", -1},
	{"{\"facelets\": \"" AFTER_R "\", \"max_length\": 1.5}",
	 "invalid_request", "wrong_type", "max_length", -1},
	{"{\"facelets\": \"" AFTER_R "\", \"timeout_ms\": true}",
	 "invalid_request", "wrong_type", "timeout_ms", -1},
	{"{\"facelets\": \"" AFTER_R "\", \"target\": 5}", "invalid_request",
	 "wrong_type", "target", -1},
	{"{\"facelets\": \"" AFTER_R "\", \"max_length\": -1}",
	 "invalid_request", "value_out_of_range", "max_length", 30},
	{"{\"facelets\": \"" AFTER_R "\", \"max_length\": 31}",
	 "invalid_request", "value_out_of_range", "max_length", 30},
	{"{\"facelets\": \"" AFTER_R "\", \"timeout_ms\": 0}",
	 "invalid_request", "value_out_of_range", "timeout_ms", 10000},
	{"{\"facelets\": \"" AFTER_R "\", \"timeout_ms\": 10001}",
	 "invalid_request", "value_out_of_range", "timeout_ms", 10000},
	{"{\"facelets\": \"" AFTER_R "\", \"effort\": \"2\"}",
	 "invalid_request", "wrong_type", "effort", -1},
	{"{\"facelets\": \"" AFTER_R "\", \"effort\": 0}",
	 "invalid_request", "value_out_of_range", "effort", 3},
	{"{\"facelets\": \"" AFTER_R "\", \"effort\": 4}",
	 "invalid_request", "value_out_of_range", "effort", 3},
	{"{\"facelets\": \"" AFTER_R "\", \"effort\": 2}",
	 "invalid_request", "not_applicable", "effort", -1},
	{"{\"facelets\": \"" SOLVED2 "\", \"effort\": 1}",
	 "invalid_request", "not_applicable", "effort", -1},
	{"{\"facelets\": \"" AFTER_R "\", \"method\": \"reduction\"}",
	 "invalid_request", "method_unavailable", "method", -1},
	{"{\"facelets\": \"" SOLVED2 "\", \"method\": \"twophase\"}",
	 "invalid_request", "method_unavailable", "method", -1},
	{"{\"facelets\": \"" AFTER_R "\", \"method\": \"kociemba\"}",
	 "invalid_request", "method_unavailable", "method", -1},
	{"{\"facelets\": \"" AFTER_R "\", \"target\": \"crosss\"}",
	 "invalid_request", "unknown_pattern", "target", -1},
	{"{\"facelets\": \"UUUUUUUX\"}", "invalid_facelets", "facelets_length",
	 "facelets", -1},
	{"{\"facelets\": \"UUUURRRRFFFFDDDDLLLLBBBX\"}", "invalid_facelets",
	 "facelets_letter", "facelets", -1},
};

START_TEST(bad_fields)
{
	const struct bad_solve *b = &bad_solves[_i];
	json_t *p =
		expect_problem(srv.port, "POST", "/v1/solve", NULL, NULL,
			       b->body, 422, b->kind, b->code, b->field, NULL);
	if (b->limit >= 0)
		ck_assert_msg(iget(p, "limit") == b->limit,
			      "%s: limit %lld, expected %lld", b->body,
			      iget(p, "limit"), b->limit);
	json_decref(p);
}
END_TEST

START_TEST(solve_http_errors)
{
	http_response r;
	call(&r, srv.port, "POST", "/v1/solve", NULL, NULL, "{\"facelets\": ");
	ck_assert_msg(r.status == 400, "malformed JSON: %d %s", r.status,
		      r.body);
	http_response_free(&r);
	call(&r, srv.port, "GET", "/v1/solve", NULL, NULL, NULL);
	ck_assert_msg(r.status == 405, "GET /v1/solve: %d", r.status);
	const char *allow = http_header(&r, "Allow");
	ck_assert_msg(allow && strcmp(allow, "POST, OPTIONS") == 0,
		      "Allow: %s", allow);
	http_response_free(&r);
	const char *h[] = {"Content-Type: text/plain", NULL};
	ck_assert_int_eq(http_request(srv.port, "POST", "/v1/solve", h, "{}",
				      2, &r),
			 0);
	ck_assert_msg(r.status == 415, "text/plain: %d", r.status);
	http_response_free(&r);
}
END_TEST

/* ------------------------------------------------------------------ */
/* /v1/scramble.                                                       */

START_TEST(scramble_reproducible)
{
	need_tables();
	static const int sizes[] = {2, 3, 4, 5, 7};
	static const char *const seeds[] = {"0", "1", "42",
					    "9007199254740991"};
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
		int n = sizes[s];
		json_t *first[4];
		for (size_t k = 0; k < 4; k++) {
			char q[96];
			snprintf(q, sizeof q, "size=%d&seed=%s", n, seeds[k]);
			first[k] = scramble_ok(q, n, 1);
			char want[32];
			snprintf(want, sizeof want, "%lld",
				 iget(first[k], "seed"));
			ck_assert_str_eq(want, seeds[k]);
			json_t *again = scramble_ok(q, n, 0);
			ck_assert_msg(json_equal(first[k], again),
				      "size %d seed %s twice: %s then %s", n,
				      seeds[k], dump(first[k]), dump(again));
			json_decref(again);
			for (size_t m = 0; m < k; m++)
				ck_assert_msg(strcmp(sget(first[m], "moves"),
						     sget(first[k], "moves")) !=
						      0,
					      "size %d: seeds %s and %s give "
					      "the same scramble %s",
					      n, seeds[m], seeds[k],
					      sget(first[k], "moves"));
		}
		for (size_t k = 0; k < 4; k++)
			json_decref(first[k]);
		/* without a seed: a fresh one, which replays */
		char q[64];
		snprintf(q, sizeof q, "size=%d", n);
		json_t *a = scramble_ok(q, n, 0);
		json_t *b = scramble_ok(q, n, 0);
		ck_assert_msg(iget(a, "seed") != iget(b, "seed"),
			      "two unseeded scrambles got seed %lld",
			      iget(a, "seed"));
		snprintf(q, sizeof q, "size=%d&seed=%lld", n, iget(a, "seed"));
		json_t *replay = scramble_ok(q, n, 0);
		ck_assert_msg(json_equal(a, replay),
			      "size %d: seed %lld does not replay: %s then %s",
			      n, iget(a, "seed"), dump(a), dump(replay));
		json_decref(a);
		json_decref(b);
		json_decref(replay);
	}
	/* a big cube: the WCA length rule, without applying its 5080
	 * moves */
	json_t *big = scramble_ok("size=256&seed=9", 256, 0);
	json_decref(big);
	/* a 1024 scramble would move ~2·10¹⁰ stickers (17 s of CPU): it is
	 * refused by the per-request work limit, like any moves */
	json_t *p = expect_problem(
		srv.port, "GET", "/v1/scramble?size=1024&seed=1", NULL, NULL,
		NULL, 422, "limit_exceeded", "too_much_work", "size", NULL);
	ck_assert_int_eq(iget(p, "limit"), 1000000000);
	json_decref(p);
}
END_TEST

/* Bad scramble queries: (query, kind, code, field). */
static const struct bad_scramble {
	const char *query, *code, *field;
} bad_scrambles[] = {
	{"", "missing_parameter", "size"},
	{"?seed=1", "missing_parameter", "size"},
	{"?size=1", "size_out_of_range", "size"},
	{"?size=0", "size_out_of_range", "size"},
	{"?size=1025", "size_out_of_range", "size"},
	{"?size=x", "wrong_type", "size"},
	{"?size=-3", "wrong_type", "size"},
	{"?size=3&seed=9007199254740992", "value_out_of_range", "seed"},
	{"?size=3&seed=-1", "wrong_type", "seed"},
	{"?size=3&seed=1.5", "wrong_type", "seed"},
	{"?size=3&n=3", "unknown_parameter", "n"},
	{"?size=3&size=3", "duplicate_parameter", "size"},
};

START_TEST(scramble_errors)
{
	const struct bad_scramble *b = &bad_scrambles[_i];
	char path[128];
	snprintf(path, sizeof path, "/v1/scramble%s", b->query);
	json_decref(expect_problem(srv.port, "GET", path, NULL, NULL, NULL, 422,
				   "invalid_request", b->code, b->field, NULL));
}
END_TEST

/* ------------------------------------------------------------------ */
/* Session solves.                                                     */

/* POST …/solve that must succeed; the solution must solve facelets (the
 * session's state at want_version). */
static json_t *session_solve_ok(const ses *s, const char *token,
				const char *body, const char *facelets,
				long long want_version)
{
	char path[160];
	snprintf(path, sizeof path, "%s/solve", s->path);
	http_response r;
	json_t *j =
		expect_json(srv.port, "POST", path, token, NULL, body, 201, &r);
	char want[32];
	snprintf(want, sizeof want, "\"v%lld\"", want_version);
	const char *etag = http_header(&r, "ETag");
	ck_assert_msg(etag && strcmp(etag, want) == 0,
		      "POST %s: ETag %s, expected %s", path, etag, want);
	http_response_free(&r);
	ck_assert_msg(iget(j, "id") > 0, "POST %s: id: %s", path, dump(j));
	ck_assert_str_eq(sget(j, "session_id"), s->id);
	ck_assert_int_eq(iget(j, "version"), want_version);
	int n = size_of(facelets);
	ck_assert_str_eq(sget(j, "method"), n == 2   ? "optimal"
					    : n == 3 ? "twophase"
						     : "reduction");
	const char *sol = sget(j, "solution");
	ck_assert_int_eq(iget(j, "length"), count_moves(sol));
	if (n <= 3)
		ck_assert_int_le(iget(j, "length"), n == 2 ? 11 : 21);
	ck_assert_msg(json_is_number(json_object_get(j, "elapsed_ms")),
		      "no elapsed_ms: %s", dump(j));
	ck_assert_msg(strlen(sget(j, "created_at")) == 24,
		      "created_at: %s", dump(j));
	char *after = after_moves(facelets, n, sol);
	ck_assert_msg(every_face_one_colour(after),
		      "session solve \"%s\" of %s leaves %s", sol, facelets,
		      after);
	free(after);
	return j;
}

static json_t *moves_write(const ses *s, const char *moves)
{
	char path[160], body[160];
	snprintf(path, sizeof path, "%s/moves", s->path);
	snprintf(body, sizeof body, "{\"moves\": \"%s\"}", moves);
	return expect_json(srv.port, "POST", path, s->token, NULL, body, 200,
			   NULL);
}

/* Every solve of a session, page by page. */
static json_t *solves_all(const ses *s, const char *token, int limit)
{
	return pages_all(srv.port, s, "solves", "solves", "id", token, limit);
}

/* A new session (POST /v1/sessions with body, asserted); its facelets
 * (malloc'd). */
static char *created(const char *body, ses *s)
{
	json_t *v = create(srv.port, body, s);
	char *f = strdup(sget(v, "facelets"));
	json_decref(v);
	return f;
}

/* A 5×5 session is solved by reduction, stored and listed like any. */
START_TEST(session_big_solve)
{
	need_tables();
	ses s;
	char *f0 =
		created("{\"size\": 5, \"scramble\": true, \"seed\": 9}", &s);
	json_t *a = session_solve_ok(&s, NULL, "{\"method\": \"reduction\"}",
				     f0, 0);
	json_t *all = solves_all(&s, NULL, 10);
	ck_assert_int_eq(json_array_size(all), 1);
	ck_assert(json_equal(json_array_get(all, 0), a));
	json_decref(all);
	json_decref(a);
	free(f0);
}
END_TEST

START_TEST(session_solves)
{
	need_tables();
	ses s;
	char *f0 =
		created("{\"size\": 3, \"scramble\": true, \"seed\": 5}", &s);
	json_t *sv[4];
	sv[0] = session_solve_ok(&s, NULL, NULL, f0, 0);
	json_t *w = moves_write(&s, "R U");
	char *f1 = strdup(sget(w, "facelets"));
	json_decref(w);
	sv[1] = session_solve_ok(&s, NULL, "{\"method\": \"twophase\"}", f1, 1);
	/* turned: solved in the session's own frame */
	w = moves_write(&s, "x y'");
	char *f2 = strdup(sget(w, "facelets"));
	json_decref(w);
	sv[2] = session_solve_ok(&s, NULL, "{}", f2, 2);
	char c0[7], c1[7];
	char *after = after_moves(f2, 3, sget(sv[2], "solution"));
	centres3(f2, c0);
	centres3(after, c1);
	ck_assert_msg(strcmp(c0, c1) == 0, "the session solve turned the cube");
	free(after);
	/* the session did not change */
	json_t *g = expect_json(srv.port, "GET", s.path, NULL, NULL, NULL, 200,
				NULL);
	ck_assert_int_eq(iget(g, "version"), 2);
	ck_assert_str_eq(sget(g, "facelets"), f2);
	json_decref(g);
	/* solve the same version twice: two solves */
	sv[3] = session_solve_ok(&s, s.token, NULL, f2, 2);
	for (int i = 1; i < 4; i++)
		ck_assert_msg(iget(sv[i], "id") > iget(sv[i - 1], "id"),
			      "solve ids do not increase: %lld then %lld",
			      iget(sv[i - 1], "id"), iget(sv[i], "id"));
	/* listed, oldest first, as stored, on every page size */
	for (int limit = 1; limit <= 5; limit += 2) {
		json_t *all = solves_all(&s, NULL, limit);
		ck_assert_msg(json_array_size(all) == 4,
			      "limit %d: %zu solves listed", limit,
			      json_array_size(all));
		for (int i = 0; i < 4; i++)
			ck_assert_msg(json_equal(json_array_get(all, (size_t)i),
						 sv[i]),
				      "limit %d: solve %d listed as %s, "
				      "stored as %s",
				      limit, i,
				      dump(json_array_get(all, (size_t)i)),
				      dump(sv[i]));
		json_decref(all);
	}
	/* after the last id: empty */
	char path[192];
	snprintf(path, sizeof path, "%s/solves?after=%lld", s.path,
		 iget(sv[3], "id"));
	json_t *j =
		expect_json(srv.port, "GET", path, NULL, NULL, NULL, 200, NULL);
	ck_assert_int_eq(json_array_size(json_object_get(j, "solves")), 0);
	ck_assert(json_is_null(json_object_get(j, "next")));
	json_decref(j);
	/* another session's list does not show them */
	ses other;
	json_decref(create(srv.port, "{\"size\": 2}", &other));
	json_t *none = solves_all(&other, NULL, 100);
	ck_assert_int_eq(json_array_size(none), 0);
	json_decref(none);
	json_t *o = session_solve_ok(&other, NULL, NULL, SOLVED2, 0);
	ck_assert_str_eq(sget(o, "solution"), "");
	json_decref(o);
	/* a deleted session's solves are gone */
	http_response r;
	call(&r, srv.port, "DELETE", s.path, s.token, NULL, NULL);
	ck_assert_int_eq(r.status, 204);
	http_response_free(&r);
	snprintf(path, sizeof path, "%s/solves", s.path);
	json_decref(expect_problem(srv.port, "GET", path, NULL, NULL, NULL, 404,
				   "not_found", "no_such_session", NULL, NULL));
	snprintf(path, sizeof path, "%s/solve", s.path);
	json_decref(expect_problem(srv.port, "POST", path, NULL, NULL, NULL,
				   404, "not_found", "no_such_session", NULL,
				   NULL));
	for (int i = 0; i < 4; i++)
		json_decref(sv[i]);
	free(f0);
	free(f1);
	free(f2);
}
END_TEST

START_TEST(private_session_solves)
{
	need_tables();
	ses p;
	char *f = created("{\"size\": 2, \"scramble\": true, \"seed\": 11, "
			  "\"visibility\": \"private\"}",
			  &p);
	char solve[160], solves[160];
	snprintf(solve, sizeof solve, "%s/solve", p.path);
	snprintf(solves, sizeof solves, "%s/solves", p.path);
	/* without the token, or with another's, it does not exist */
	ses q;
	json_decref(create(srv.port,
			   "{\"size\": 2, \"visibility\": \"private\"}", &q));
	const char *wrong[] = {NULL, q.token, "ct_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"};
	for (int i = 0; i < 3; i++) {
		json_decref(expect_problem(srv.port, "POST", solve, wrong[i],
					   NULL, NULL, 404, "not_found",
					   "no_such_session", NULL, NULL));
		json_decref(expect_problem(srv.port, "GET", solves, wrong[i],
					   NULL, NULL, 404, "not_found",
					   "no_such_session", NULL, NULL));
	}
	json_t *a = session_solve_ok(&p, p.token, NULL, f, 0);
	json_t *all = solves_all(&p, p.token, 10);
	ck_assert_int_eq(json_array_size(all), 1);
	ck_assert(json_equal(json_array_get(all, 0), a));
	json_decref(all);
	/* still hidden after a solve */
	json_decref(expect_problem(srv.port, "GET", solves, NULL, NULL, NULL,
				   404, "not_found", "no_such_session", NULL,
				   NULL));
	json_decref(a);
	free(f);
}
END_TEST

START_TEST(session_solve_errors)
{
	ses s3, s4, bad;
	json_decref(create(srv.port, "{\"size\": 3}", &s3));
	json_decref(create(srv.port,
			   "{\"size\": 4, \"scramble\": true, \"seed\": 1}",
			   &s4));
	json_decref(create(srv.port, "{\"facelets\": \"" TWISTED3 "\"}", &bad));
	char p[192];
	snprintf(p, sizeof p, "%s/solve", s4.path);
	json_decref(expect_problem(
		srv.port, "POST", p, NULL, NULL, "{\"method\": \"twophase\"}",
		422, "invalid_request", "method_unavailable", "method", NULL));
	snprintf(p, sizeof p, "%s/solve", s3.path);
	/* (optimal is a 3×3 method too, a job: check_http_jobs.c) */
	json_decref(expect_problem(
		srv.port, "POST", p, NULL, NULL, "{\"method\": \"reduction\"}",
		422, "invalid_request", "method_unavailable", "method", NULL));
	json_decref(expect_problem(
		srv.port, "POST", p, NULL, NULL, "{\"max_length\": 5}", 422,
		"invalid_request", "unknown_field", "max_length", NULL));
	json_decref(expect_problem(srv.port, "POST", p, NULL, NULL,
				   "{\"method\": 3}", 422, "invalid_request",
				   "wrong_type", "method", NULL));
	json_decref(expect_problem(srv.port, "POST",
				   "/v1/sessions/AAAAAAAAAAAAAAAAAAAAAA/solve",
				   NULL, NULL, NULL, 404, "not_found",
				   "no_such_session", NULL, NULL));
	/* a session may start from any facelets: a twisted corner (told
	 * before the tables are needed) */
	snprintf(p, sizeof p, "%s/solve", bad.path);
	json_t *j =
		expect_problem(srv.port, "POST", p, NULL, NULL, NULL, 422,
			       "invalid_cube", "invalid_cube", "session", NULL);
	ck_assert_msg(json_array_size(json_object_get(j, "errors")) > 0,
		      "no errors: %s", dump(j));
	json_decref(j);
	/* nothing was stored by the failures */
	json_t *none = solves_all(&s3, NULL, 100);
	ck_assert_int_eq(json_array_size(none), 0);
	json_decref(none);
	/* listing errors */
	static const struct {
		const char *query, *code, *field;
		long long limit;
	} q[] = {
		{"?limit=0", "value_out_of_range", "limit", 1000},
		{"?limit=1001", "value_out_of_range", "limit", 1000},
		{"?limit=x", "wrong_type", "limit", -1},
		{"?after=-1", "wrong_type", "after", -1},
		{"?version=1", "unknown_parameter", "version", -1},
		{"?limit=1&limit=2", "duplicate_parameter", "limit", -1},
	};
	for (size_t i = 0; i < sizeof q / sizeof *q; i++) {
		snprintf(p, sizeof p, "%s/solves%s", s3.path, q[i].query);
		j = expect_problem(srv.port, "GET", p, NULL, NULL, NULL, 422,
				   "invalid_request", q[i].code, q[i].field,
				   NULL);
		if (q[i].limit >= 0)
			ck_assert_msg(iget(j, "limit") == q[i].limit,
				      "GET %s: limit %lld", p, iget(j, "limit"));
		json_decref(j);
	}
}
END_TEST

/* ------------------------------------------------------------------ */
/* Tables not ready: servers of their own.                             */

/* A new server directory (dir, 64 bytes) with an empty tables
 * directory inside it (tdir, 96 bytes), so that it goes with it. */
static void tables_dir(char *dir, char *tdir)
{
	snprintf(dir, 64, "/tmp/cubed-solve-XXXXXX");
	ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp: %s", strerror(errno));
	snprintf(tdir, 96, "%s/tables", dir);
	ck_assert_msg(mkdir(tdir, 0700) == 0, "mkdir %s: %s", tdir,
		      strerror(errno));
}

/* A server building its tables in a fresh, empty directory answers a
 * 3×3 solve at once with 503 tables_not_ready and Retry-After; it is
 * stopped without waiting for the tables. The tables directory is inside
 * the server's, so it goes with it. */
START_TEST(tables_not_ready)
{
	char dir[64], tdir[96];
	tables_dir(dir, tdir);
	server b;
	const char *const extra[] = {"--tables", tdir, NULL};
	char err[2048];
	if (server_start(&b, dir, extra, err, sizeof err) < 0) {
		snprintf(b.dir, sizeof b.dir, "%s", dir);
		test_server_remove(&b);
		ck_abort_msg("cannot start the server: %s", err);
	}
	http_response r;
	char *body = solve_body(AFTER_R, NULL);
	call(&r, b.port, "POST", "/v1/solve", NULL, NULL, body);
	free(body);
	int status = r.status;
	char reply[600];
	snprintf(reply, sizeof reply, "%.500s", r.body ? r.body : "");
	const char *ra = http_header(&r, "Retry-After");
	char retry[32];
	snprintf(retry, sizeof retry, "%s", ra ? ra : "");
	json_t *p = status == 503 ? parse(&r, "503 tables_not_ready") : NULL;
	http_response_free(&r);
	/* /readyz is ready (tables do not gate it) and says they are not */
	json_t *rz = NULL;
	http_response rr;
	if (http_request(b.port, "GET", "/readyz", NULL, NULL, 0, &rr) == 0 &&
	    rr.status == 200)
		rz = json_loadb(rr.body, rr.body_len, 0, NULL);
	http_response_free(&rr);
	double t0 = now_s();
	server_stop(&b, 1);
	double stop_s = now_s() - t0;

	ck_assert_msg(status == 503,
		      "a 3×3 solve on a server building its tables: status "
		      "%d: %s",
		      status, reply);
	ck_assert_str_eq(sget(p, "type"), "urn:cubed:problem:unavailable");
	ck_assert_str_eq(sget(p, "code"), "tables_not_ready");
	const char *t = sget(p, "tables");
	ck_assert_msg(strcmp(t, "loading") == 0 || strcmp(t, "building") == 0,
		      "tables %s: %s", t, reply);
	long long pc = iget(p, "percent");
	ck_assert_msg(pc >= 0 && pc <= 100, "percent %lld", pc);
	/* the build's remaining time at its pace so far, 1 to 60 s */
	ck_assert_msg(retry[0] && strspn(retry, "0123456789") == strlen(retry) &&
			      atoi(retry) >= 1 && atoi(retry) <= 60,
		      "Retry-After \"%s\"", retry);
	json_decref(p);
	ck_assert_msg(rz != NULL, "/readyz did not answer 200");
	json_t *t3 = json_object_get(json_object_get(rz, "solver"), "3x3");
	ck_assert_msg(t3 && strcmp(sget(t3, "tables"), "ready") != 0,
		      "/readyz: 3×3 tables ready at once: %s", dump(rz));
	json_decref(rz);
	ck_assert_msg(stop_s < 10.0,
		      "the server took %.1f s to stop while building tables",
		      stop_s);
}
END_TEST

/* Wait (at most 60 s) until /readyz on port says the big cubes' tables
 * are ready; fail at once if they failed. */
/* Poll /readyz until solver.<key> is ready (never failed or off), its
 * bytes as given, within seconds. */
static void tables_ready_on(int port, const char *key, long long bytes,
			    double seconds)
{
	double deadline = now_s() + seconds;
	for (;;) {
		json_t *rz = expect_json(port, "GET", "/readyz", NULL, NULL,
					 NULL, 200, NULL);
		json_t *t = json_object_get(json_object_get(rz, "solver"), key);
		char *txt = dump(t);
		const char *st = sget(t, "tables");
		int ready = strcmp(st, "ready") == 0;
		ck_assert_msg(strcmp(st, "failed") != 0 && strcmp(st, "off") != 0,
			      "the %s tables: %s", key, txt);
		ck_assert_msg(ready || now_s() < deadline,
			      "the %s tables not ready within %.0f s: %s", key,
			      seconds, txt);
		ck_assert_int_eq(iget(t, "bytes"), bytes);
		free(txt);
		json_decref(rz);
		if (ready)
			return;
		test_sleep_ms(50);
	}
}

static void nxn_ready_on(int port)
{
	tables_ready_on(port, "nxn", (long long)reduce_stage_tables_size(), 60);
}

/* A 4×4 solved on port (the first asks for the big cubes' tables). */
static void solve4_on(int port)
{
	char *f = apply_n(port, NULL, 4, "R U 2R F' 2U Rw 3F2");
	char *body = solve_body(f, NULL);
	json_t *j = expect_json(port, "POST", "/v1/solve", NULL, NULL, body,
				200, NULL);
	ck_assert_str_eq(sget(j, "method"), "reduction");
	json_decref(j);
	free(body);
	free(f);
}

/* The big cubes' file in tdir: it must hold what this build makes
 * (reduce_stage_tables_check); its inode. */
static ino_t nxn_file_ok(const char *tdir)
{
	char path[160];
	snprintf(path, sizeof path, "%s/cubed-tables-nxn.bin", tdir);
	struct stat st;
	ck_assert_msg(stat(path, &st) == 0, "%s: %s", path, strerror(errno));
	size_t size = reduce_stage_tables_size();
	ck_assert_uint_eq((size_t)st.st_size, size);
	unsigned char *buf = malloc(size);
	FILE *fp = fopen(path, "rb");
	ck_assert_msg(buf && fp, "%s: %s", path, strerror(errno));
	ck_assert_uint_eq(fread(buf, 1, size, fp), size);
	fclose(fp);
	ck_assert_int_eq(reduce_stage_tables_check(buf, size), CUBE_OK);
	free(buf);
	return st.st_ino;
}

/* The big cubes' tables are cached like the others: absent on /readyz
 * until a big cube is solved, then built and written to the tables
 * directory (the server stopped, the file holds this build's tables); a
 * restart loads the file rather than build them again (the same file:
 * a build writes a new one and renames it); a file that fails its
 * checksum is built again and replaced. The 3×3 and 2×2 tables are
 * links to $CUBED_TABLES' when it has them. */
START_TEST(nxn_tables_cached)
{
	char dir[64], tdir[96];
	tables_dir(dir, tdir);
	const char *cache = getenv("CUBED_TABLES");
	static const char *const files[] = {"cubed-tables-3x3.bin",
					    "cubed-tables-2x2.bin"};
	for (int i = 0; i < 2 && cache && *cache; i++) {
		char from[1100], to[160];
		snprintf(from, sizeof from, "%s/%s", cache, files[i]);
		snprintf(to, sizeof to, "%s/%s", tdir, files[i]);
		if (from[0] != '/') {
			char cwd[512];
			ck_assert(getcwd(cwd, sizeof cwd) != NULL);
			snprintf(from, sizeof from, "%s/%s/%s", cwd, cache,
				 files[i]);
		}
		if (access(from, R_OK) == 0)
			ck_assert_msg(symlink(from, to) == 0, "symlink %s: %s",
				      to, strerror(errno));
	}
	const char *const extra[] = {"--tables", tdir, NULL};
	server b;

	start_or_abort(&b, dir, extra);
	need_tables_on(b.port);
	json_t *rz = expect_json(b.port, "GET", "/readyz", NULL, NULL, NULL,
				 200, NULL);
	json_t *t = json_object_get(json_object_get(rz, "solver"), "nxn");
	ck_assert_msg(json_object_size(t) == 2, "nxn: %s", dump(rz));
	ck_assert_str_eq(sget(t, "tables"), "absent");
	ck_assert_int_eq(iget(t, "bytes"), (long long)reduce_stage_tables_size());
	json_decref(rz);
	solve4_on(b.port);
	nxn_ready_on(b.port);
	ck_assert_int_eq(server_stop(&b, 0), 0);
	ino_t built = nxn_file_ok(tdir);

	start_or_abort(&b, dir, extra);
	need_tables_on(b.port);
	solve4_on(b.port);
	nxn_ready_on(b.port);
	ck_assert_int_eq(server_stop(&b, 0), 0);
	ck_assert_msg(nxn_file_ok(tdir) == built,
		      "a good file was built again rather than loaded");

	/* one byte in the middle flipped, in place */
	char path[160];
	snprintf(path, sizeof path, "%s/cubed-tables-nxn.bin", tdir);
	FILE *fp = fopen(path, "r+b");
	ck_assert_msg(fp != NULL, "%s: %s", path, strerror(errno));
	long mid = (long)(reduce_stage_tables_size() / 2);
	ck_assert_int_eq(fseek(fp, mid, SEEK_SET), 0);
	int byte = fgetc(fp);
	ck_assert_int_ne(byte, EOF);
	ck_assert_int_eq(fseek(fp, mid, SEEK_SET), 0);
	ck_assert_int_ne(fputc(byte ^ 0x40, fp), EOF);
	ck_assert_int_eq(fclose(fp), 0);

	start_or_abort(&b, dir, extra);
	need_tables_on(b.port);
	solve4_on(b.port);
	nxn_ready_on(b.port);
	ck_assert_int_eq(server_stop(&b, 0), 0);
	ck_assert_msg(nxn_file_ok(tdir) != built,
		      "the damaged file was not replaced");
	test_server_remove(&b);
}
END_TEST


/* The phase tables of size n (4: three phases, 5: five): "absent" on
 * /readyz (key "4x4", "5x5") until an n×n is solved; that solve is
 * answered stage by stage while they are loaded from $CUBED_TABLES (or
 * built and written there: a minute, 35 s); then an n×n goes through the
 * phases: no parity stage, each answer checked by big_solve_ok, the three
 * answers together at most most_moves. A server started with flag 0
 * (the suites' default) reports them "off". */
static void phase_tables_used(int n, const char *flag, const char *key,
			      long long bytes, int most_moves)
{
	server o;
	const char *const extra[] = {flag, "1", "--max-solve-ms", BIG_MAX_SOLVE,
				     NULL};
	start_or_abort(&o, NULL, extra);
	need_tables_on(o.port);
	json_t *rz = expect_json(o.port, "GET", "/readyz", NULL, NULL, NULL,
				 200, NULL);
	json_t *t = json_object_get(json_object_get(rz, "solver"), key);
	ck_assert_str_eq(sget(t, "tables"), "absent");
	json_decref(rz);
	char q[64];
	snprintf(q, sizeof q, "size=%d&seed=46", n);
	json_t *sc = scramble_ok(q, n, 0);
	json_decref(big_solve_ok(o.port, sget(sc, "facelets"), NULL));
	tables_ready_on(o.port, key, bytes, 300);
	int total = 0;
	char budget[64];
	snprintf(budget, sizeof budget, "\"timeout_ms\": %d", BIG_BUDGET_MS);
	for (int k = 0; k < 3; k++) {
		snprintf(q, sizeof q, "size=%d&seed=%d", n, 46 + k);
		json_t *s2 = scramble_ok(q, n, 0);
		/* the budget of the big sizes: a slower or busier machine
		 * would hurry the slowest 5×5s (about 2.5 s here) into the
		 * stage-by-stage answer at the default 3 s */
		json_t *j = big_solve_ok(o.port, sget(s2, "facelets"), budget);
		json_t *st = json_object_get(j, "stages");
		ck_assert_str_eq(sget(json_array_get(st, 0), "name"), "oll_parity");
		ck_assert_int_eq(iget(json_array_get(st, 0), "length"), 0);
		ck_assert_str_eq(sget(json_array_get(st, 3), "name"), "pll_parity");
		ck_assert_int_eq(iget(json_array_get(st, 3), "length"), 0);
		ck_assert_int_eq(iget(j, "oll_parity"), 0);
		ck_assert(json_is_false(json_object_get(j, "pll_parity")));
		total += (int)iget(j, "length");
		json_decref(j);
		json_decref(s2);
	}
	ck_assert_msg(total <= most_moves, "%d moves for three %dx%ds", total,
		      n, n);
	if (n == 5 && !SANITIZED) {
		/* 600 ms where the phases take about a second: hurried at
		 * 100 ms (reduce_limits.hurry), they leave the last 500 to
		 * the stage-by-stage reduction (its first pass about 150
		 * ms here), an answer rather than 422 no_solution_found */
		json_decref(big_solve_ok(o.port, sget(sc, "facelets"),
					 "\"timeout_ms\": 600"));
	}
	json_decref(sc);
	ck_assert_int_eq(server_stop(&o, 0), 0);
	test_server_remove(&o);

	server off;
	start_or_abort(&off, NULL, NULL);
	rz = expect_json(off.port, "GET", "/readyz", NULL, NULL, NULL, 200,
			 NULL);
	t = json_object_get(json_object_get(rz, "solver"), key);
	ck_assert_str_eq(sget(t, "tables"), "off");
	json_decref(rz);
	ck_assert_int_eq(server_stop(&off, 0), 0);
	test_server_remove(&off);
}

/* three-phase answers are about 43 moves; stage by stage 53 */
START_TEST(four_tables_used)
{
	phase_tables_used(4, "--solver-4x4", "4x4",
			  (long long)reduce_four_tables_size(), 3 * 47);
}
END_TEST

/* five-phase answers are about 73 moves; stage by stage 89 */
START_TEST(five_tables_used)
{
	phase_tables_used(5, "--solver-5x5", "5x5",
			  (long long)reduce_five_tables_size(), 3 * 78);
}
END_TEST

/* --solver 0: every solve and 2×2/3×3 scramble is 503 with tables off;
 * larger scrambles need no tables. */
START_TEST(solver_off)
{
	server o;
	const char *const extra[] = {"--solver", "0", NULL};
	start_or_abort(&o, NULL, extra);
	int port = o.port;
	json_t *rz = expect_json(port, "GET", "/readyz", NULL, NULL, NULL, 200,
				 NULL);
	json_t *sv = json_object_get(rz, "solver");
	ck_assert_str_eq(sget(json_object_get(sv, "3x3"), "tables"), "off");
	ck_assert_str_eq(sget(json_object_get(sv, "2x2"), "tables"), "off");
	ck_assert_str_eq(sget(json_object_get(sv, "nxn"), "tables"), "off");
	json_decref(rz);
	const char *cubes[] = {AFTER_R, SOLVED2};
	for (int i = 0; i < 2; i++) {
		char *body = solve_body(cubes[i], NULL);
		http_response r;
		json_t *p = expect_problem(port, "POST", "/v1/solve", NULL,
					   NULL, body, 503, "unavailable",
					   "tables_not_ready", NULL, &r);
		ck_assert_str_eq(sget(p, "tables"), "off");
		/* waiting will not help a server without a solver */
		ck_assert_msg(http_header(&r, "Retry-After") == NULL,
			      "Retry-After %s with the solver off",
			      http_header(&r, "Retry-After"));
		http_response_free(&r);
		json_decref(p);
		free(body);
	}
	json_decref(expect_problem(port, "GET", "/v1/scramble?size=3", NULL,
				   NULL, NULL, 503, "unavailable",
				   "tables_not_ready", NULL, NULL));
	json_decref(expect_problem(port, "GET", "/v1/scramble?size=2&seed=1",
				   NULL, NULL, NULL, 503, "unavailable",
				   "tables_not_ready", NULL, NULL));
	json_t *four = expect_json(port, "GET", "/v1/scramble?size=4&seed=1",
				   NULL, NULL, NULL, 200, NULL);
	ck_assert_str_eq(sget(four, "kind"), "random-move");
	json_decref(four);
	/* an illegal cube is still told so: validation needs no tables */
	char *body = solve_body(TWISTED3, NULL);
	json_decref(expect_problem(port, "POST", "/v1/solve", NULL, NULL, body,
				   422, "invalid_cube", "invalid_cube",
				   "facelets", NULL));
	free(body);
	ses s;
	json_t *j = expect_json(port, "POST", "/v1/sessions", NULL, NULL,
				"{\"size\": 3}", 201, NULL);
	snprintf(s.path, sizeof s.path, "/v1/sessions/%s/solve", sget(j, "id"));
	json_decref(j);
	json_decref(expect_problem(port, "POST", s.path, NULL, NULL, NULL, 503,
				   "unavailable", "tables_not_ready", NULL,
				   NULL));
	ck_assert_int_eq(server_stop(&o, 1), 0);
}
END_TEST

Suite *http_solve_suite(void)
{
	Suite *s = suite_create("http_solve");
	TCase *tc;
	int part = 0; /* each case's number, for CUBED_PART */
	if (test_in_part(part++)) {
		tc = tcase_create("solve");
		/* the first test may wait SOLVER_TABLES_WAIT_S for the tables; a big cube
		 * under the sanitizers up to BIG_WAIT_MS */
		tcase_set_timeout(tc, SOLVER_TABLES_WAIT_S + (SANITIZED ? 400 : 120));
		tcase_add_unchecked_fixture(tc, fixture_setup, fixture_teardown);
		tcase_add_test(tc, tables_ready);
		tcase_add_loop_test(tc, random_solves, 0, 2);
		tcase_add_test(tc, turned_cubes);
		tcase_add_test(tc, solved_cubes);
		tcase_add_test(tc, illegal_cubes);
		tcase_add_test(tc, other_sizes);
		tcase_add_test(tc, big_cubes);
		tcase_add_test(tc, big_default_budget);
		tcase_add_test(tc, no_solution_found);
		tcase_add_loop_test(tc, bad_fields, 0,
				    (int)(sizeof bad_solves / sizeof *bad_solves));
		tcase_add_test(tc, solve_http_errors);
		tcase_add_test(tc, scramble_reproducible);
		tcase_add_loop_test(tc, scramble_errors, 0,
				    (int)(sizeof bad_scrambles / sizeof *bad_scrambles));
		tcase_add_test(tc, session_solves);
		tcase_add_test(tc, session_big_solve);
		tcase_add_test(tc, private_session_solves);
		tcase_add_test(tc, session_solve_errors);
		suite_add_tcase(s, tc);
	}

	if (test_in_part(part++)) {
		tc = tcase_create("tables");
		/* nxn_tables_cached builds the big cubes' tables twice */
		tcase_set_timeout(tc, SANITIZED ? 400 : 120);
		tcase_add_test(tc, tables_not_ready);
		tcase_add_test(tc, nxn_tables_cached);
		tcase_add_test(tc, solver_off);
		suite_add_tcase(s, tc);
	}

	if (test_in_part(part++)) {
		/* the 4×4 tables: a minute to build when $CUBED_TABLES has none */
		tc = tcase_create("tables_4x4");
		tcase_set_tags(tc, "slow");
		tcase_set_timeout(tc, SANITIZED ? 1800 : 420);
		tcase_add_unchecked_fixture(tc, fixture_setup, fixture_teardown);
		tcase_add_test(tc, four_tables_used);
		suite_add_tcase(s, tc);
	}

	if (test_in_part(part++)) {
		/* anytime default solves; the near search (issue 62) */
		tc = tcase_create("anytime");
		tcase_set_timeout(tc, SOLVER_TABLES_WAIT_S + (SANITIZED ? 900 : 300));
		tcase_add_unchecked_fixture(tc, fixture_setup, fixture_teardown);
		tcase_add_test(tc, anytime_tiny_budget);
		tcase_add_test(tc, anytime_cpu_hog);
		tcase_add_test(tc, near_optimal);
		tcase_add_test(tc, near_by_optimal_tables);
		suite_add_tcase(s, tc);
	}

	if (test_in_part(part++)) {
		/* effort 3's inside-out pass by the request's budget: 76×76, 10 s;
		 * effort 2's cut short on 72×72, 3 s */
		tc = tcase_create("effort_budget");
		tcase_set_tags(tc, "slow");
		tcase_set_timeout(tc, SOLVER_TABLES_WAIT_S + (SANITIZED ? 900 : 240));
		tcase_add_unchecked_fixture(tc, fixture_setup, fixture_teardown);
		tcase_add_test(tc, effort_budget);
		tcase_add_test(tc, inside_cut_keeps_default);
		suite_add_tcase(s, tc);
	}

	if (test_in_part(part++)) {
		/* the 5×5 tables: 35 s to build when $CUBED_TABLES has none */
		tc = tcase_create("tables_5x5");
		tcase_set_tags(tc, "slow");
		tcase_set_timeout(tc, SANITIZED ? 1800 : 420);
		tcase_add_unchecked_fixture(tc, fixture_setup, fixture_teardown);
		tcase_add_test(tc, five_tables_used);
		suite_add_tcase(s, tc);
	}

	if (test_in_part(part++)) {
		tc = tcase_create("big_larger");
		tcase_set_tags(tc, "slow");
		tcase_set_timeout(tc, SOLVER_TABLES_WAIT_S + (SANITIZED ? 400 : 120));
		tcase_add_unchecked_fixture(tc, fixture_setup, fixture_teardown);
		tcase_add_test(tc, big_cubes_larger);
		suite_add_tcase(s, tc);
	}
	return s;
}
