/* check_http_sessions.c — black-box tests of the session routes (and
 * /readyz, /metrics) of the real server binary over HTTP.
 *
 * A fixture spawns $CUBED_BIN (default build/cubed) on 127.0.0.1 port 0
 * with a database in a fresh temporary directory. Expected states are never
 * written by hand: they come from POST /v1/apply (a route the "http" suite
 * pins to docs/conventions.md), so a session must agree with a
 * stateless replay of its own history. The restart cases stop a server
 * with SIGTERM and start a new one on the same database file.
 *
 * Every check names the request that failed and shows the reply. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "http_client.h"
#include "suites.h"
#include "session_helpers.h"

#define SOLVED3 "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB"
#define AFTER_R "UUFUUFUUFRRRRRRRRRFFDFFDFFDDDBDDBDDBLLLLLLLLLUBBUBBUBB"
#define SOLVED2 "UUUURRRRFFFFDDDDLLLLBBBB"
#define NO_SESSION "AAAAAAAAAAAAAAAAAAAAAA"

/* ------------------------------------------------------------------ */
/* The server of these tests.                                          */

static server srv;

static void fixture_setup(void)
{
	start_or_abort(&srv, NULL, NULL);
}

static void fixture_teardown(void)
{
	server_stop(&srv, 1);
}

/* A write (moves: kind "moves" with text; undo/redo/reset: text NULL)
 * that must succeed: the reply. */
static json_t *write_ok(int port, const ses *s, const char *kind,
			const char *moves, long long want_version)
{
	char path[160], body[512];
	snprintf(path, sizeof path, "%s/%s", s->path, kind);
	if (moves) {
		json_t *b = json_pack("{s:s}", "moves", moves);
		char *t = json_dumps(b, JSON_COMPACT);
		snprintf(body, sizeof body, "%s", t);
		free(t);
		json_decref(b);
	}
	http_response r;
	json_t *j = expect_json(port, "POST", path, s->token, NULL,
				moves ? body : NULL, 200, &r);
	ck_assert_msg(iget(j, "version") == want_version,
		      "POST %s: version %lld, expected %lld", path,
		      iget(j, "version"), want_version);
	expect_etag(&r, want_version, path);
	json_t *ev = json_object_get(j, "event");
	ck_assert_msg(json_is_object(ev) && iget(ev, "version") == want_version &&
			      strcmp(sget(ev, "type"), kind) == 0 &&
			      strcmp(sget(ev, "actor"), "owner") == 0 &&
			      strcmp(sget(ev, "created_at"),
				     sget(j, "updated_at")) == 0,
		      "POST %s: event %s", path, r.body);
	http_response_free(&r);
	return j;
}

/* The state at every version by replaying the history through /v1/apply:
 * states[v] (malloc'd), from initial. Checks versions are 0, 1, 2 … */
static char **replay(int port, const json_t *events, const char *initial)
{
	size_t n = json_array_size(events);
	char **st = calloc(n, sizeof *st);
	for (size_t v = 0; v < n; v++) {
		json_t *e = json_array_get(events, v);
		ck_assert_msg(iget(e, "version") == (long long)v,
			      "history: event %zu has version %lld", v,
			      iget(e, "version"));
		const char *type = sget(e, "type");
		if (v == 0) {
			ck_assert_str_eq(type, "create");
			st[0] = strdup(initial);
		} else if (strcmp(type, "reset") == 0) {
			ck_assert_str_eq(sget(e, "moves"), "");
			st[v] = strdup(initial);
		} else {
			ck_assert_msg(strcmp(type, "moves") == 0 ||
					      strcmp(type, "undo") == 0 ||
					      strcmp(type, "redo") == 0,
				      "history: type %s", type);
			st[v] = apply(port, st[v - 1], sget(e, "moves"));
		}
	}
	return st;
}

static void free_states(char **st, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(st[i]);
	free(st);
}

/* ------------------------------------------------------------------ */
/* Create.                                                             */

static int is_b64url(const char *s, size_t len)
{
	if (strlen(s) != len)
		return 0;
	for (; *s; s++)
		if (!(('A' <= *s && *s <= 'Z') || ('a' <= *s && *s <= 'z') ||
		      ('0' <= *s && *s <= '9') || *s == '-' || *s == '_'))
			return 0;
	return 1;
}

START_TEST(create_and_read)
{
	ses s;
	json_t *j = create(srv.port, "{\"size\": 3, \"title\": \"Sunday\"}", &s);
	ck_assert_msg(is_b64url(s.id, 22), "id %s is not 22 base64url", s.id);
	ck_assert_msg(strncmp(s.token, "ct_", 3) == 0 &&
			      is_b64url(s.token + 3, 32),
		      "write_token %s", s.token);
	ck_assert_int_eq(iget(j, "size"), 3);
	ck_assert_int_eq(iget(j, "version"), 0);
	ck_assert_str_eq(sget(j, "facelets"), SOLVED3);
	ck_assert_str_eq(sget(j, "title"), "Sunday");
	ck_assert_str_eq(sget(j, "visibility"), "public");
	ck_assert(!bget(j, "can_undo") && !bget(j, "can_redo"));
	ck_assert_str_eq(sget(j, "created_at"), sget(j, "updated_at"));
	ck_assert_msg(strlen(sget(j, "created_at")) == 24 &&
			      sget(j, "created_at")[23] == 'Z',
		      "created_at %s", sget(j, "created_at"));
	ck_assert(json_object_get(j, "scramble") == NULL &&
		  json_object_get(j, "seed") == NULL &&
		  json_object_get(j, "read_token") == NULL);
	ck_assert_int_eq(iget(j, "watchers"), 0);
	ck_assert_int_eq(json_object_size(j), 12);

	/* read back: the same without the token */
	json_t *g = get_session(srv.port, s.path, NULL, 0);
	json_t *want = json_deep_copy(j);
	json_object_del(want, "write_token");
	ck_assert_msg(json_equal(g, want), "GET %s: %s, created as %s", s.path,
		      json_dumps(g, JSON_COMPACT), json_dumps(j, JSON_COMPACT));
	json_decref(want);
	json_decref(g);

	/* two sessions never share an id or a token */
	ses t;
	json_decref(create(srv.port, "{\"size\": 3}", &t));
	ck_assert_str_ne(s.id, t.id);
	ck_assert_str_ne(s.token, t.token);
	json_decref(j);

	/* from facelets, size from the length; title null */
	j = create(srv.port, "{\"facelets\": \"" AFTER_R "\"}", &t);
	ck_assert_int_eq(iget(j, "size"), 3);
	ck_assert_str_eq(sget(j, "facelets"), AFTER_R);
	ck_assert(json_is_null(json_object_get(j, "title")));
	json_decref(j);
	/* facelets and a scramble: the scramble applies to them */
	j = create(srv.port,
		   "{\"size\": 3, \"facelets\": \"" AFTER_R
		   "\", \"scramble\": \"R'\"}",
		   &t);
	ck_assert_str_eq(sget(j, "facelets"), SOLVED3);
	ck_assert_str_eq(sget(j, "scramble"), "R'");
	ck_assert(json_object_get(j, "seed") == NULL);
	json_decref(j);
	/* reset goes back to the scrambled start, not to solved */
	j = create(srv.port, "{\"size\": 2, \"scramble\": \"R U\"}", &t);
	char *start = apply(srv.port, SOLVED2, "R U");
	ck_assert_str_eq(sget(j, "facelets"), start);
	json_decref(j);
	json_decref(write_ok(srv.port, &t, "moves", "F", 1));
	j = write_ok(srv.port, &t, "reset", NULL, 2);
	ck_assert_str_eq(sget(j, "facelets"), start);
	json_decref(j);
	free(start);
}
END_TEST

typedef struct bad_create {
	const char *body;
	int status;
	const char *kind, *code, *field;
	long limit; /* -1: not checked */
} bad_create;

static const bad_create bad_creates[] = {
	{"{}", 422, "invalid_request", "missing_field", "size", -1},
	{"{\"size\": 0}", 422, "invalid_request", "size_out_of_range", "size",
	 -1},
	{"{\"size\": 129}", 422, "invalid_request", "size_out_of_range", "size",
	 128},
	{"{\"size\": \"3\"}", 422, "invalid_request", "wrong_type", "size", -1},
	{"{\"size\": 3, \"colour\": 1}", 422, "invalid_request",
	 "unknown_field", "colour", -1},
	{"{\"size\": 3, \"seed\": 4}", 422, "invalid_request",
	 "seed_without_scramble", "seed", -1},
	{"{\"size\": 3, \"scramble\": \"R\", \"seed\": 4}", 422,
	 "invalid_request", "seed_without_scramble", "seed", -1},
	{"{\"size\": 3, \"scramble\": true, \"seed\": -1}", 422,
	 "invalid_request", "value_out_of_range", "seed", -1},
	{"{\"size\": 3, \"scramble\": false}", 422, "invalid_request",
	 "wrong_type", "scramble", -1},
	{"{\"size\": 3, \"visibility\": \"secret\"}", 422, "invalid_request",
	 "bad_visibility", "visibility", -1},
	{"{\"size\": 3, \"title\": \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}",
	 422, "invalid_request", "too_long", "title", -1},
	{"{\"size\": 3, \"scramble\": \"R Q\"}", 422, "invalid_notation",
	 "unknown_token", "scramble", -1},
	{"{\"size\": 2, \"scramble\": \"M\"}", 422, "invalid_notation",
	 "slice_on_even_cube", "scramble", -1},
	{"{\"size\": 3, \"scramble\": \"(R)100001\"}", 422, "limit_exceeded",
	 "too_many_moves", "scramble", 100000},
	{"{\"facelets\": \"UUUUU\"}", 422, "invalid_facelets",
	 "facelets_length", "facelets", -1},
	{"{\"facelets\": \"UUUUUX\"}", 422, "invalid_facelets",
	 "facelets_letter", "facelets", -1},
	{"{\"size\": 2, \"facelets\": \"" SOLVED3 "\"}", 422,
	 "invalid_request", "size_mismatch", "facelets", -1},
	{"[1]", 422, "invalid_request", "not_an_object", NULL, -1},
	{"{\"size\": 3", 400, "malformed_json", "malformed_json", NULL, -1},
	{"", 400, "malformed_json", "malformed_json", NULL, -1},
};

START_TEST(create_errors)
{
	const bad_create *c = &bad_creates[_i];
	json_t *p = expect_problem(srv.port, "POST", "/v1/sessions", NULL,
				   NULL, c->body, c->status, c->kind, c->code,
				   c->field, NULL);
	if (c->limit >= 0)
		ck_assert_msg(iget(p, "limit") == c->limit,
			      "POST /v1/sessions %s: limit %lld", c->body,
			      iget(p, "limit"));
	json_decref(p);
}
END_TEST

START_TEST(create_wrong_media_and_method)
{
	http_response r;
	const char *ct[] = {"Content-Type: text/plain", NULL};
	ck_assert_int_eq(http_request(srv.port, "POST", "/v1/sessions", ct,
				      "{}", 2, &r),
			 0);
	ck_assert_int_eq(r.status, 415);
	http_response_free(&r);
	json_decref(expect_problem(srv.port, "GET", "/v1/sessions", NULL, NULL,
				   NULL, 405, "method_not_allowed",
				   "method_not_allowed", NULL, &r));
	ck_assert_str_eq(http_header(&r, "Allow"), "POST, OPTIONS");
	http_response_free(&r);
	json_decref(expect_problem(srv.port, "PUT", "/v1/sessions/" NO_SESSION,
				   NULL, NULL, "{}", 405, "method_not_allowed",
				   "method_not_allowed", NULL, &r));
	ck_assert_str_eq(http_header(&r, "Allow"),
			 "GET, HEAD, DELETE, OPTIONS");
	http_response_free(&r);
	call(&r, srv.port, "OPTIONS", "/v1/sessions/" NO_SESSION "/moves", NULL,
	     NULL, NULL);
	ck_assert_int_eq(r.status, 204);
	ck_assert_str_eq(http_header(&r, "Access-Control-Allow-Methods"),
			 "POST, OPTIONS");
	ck_assert_msg(strstr(http_header(&r, "Access-Control-Allow-Headers"),
			     "If-Match") != NULL,
		      "preflight does not allow If-Match");
	http_response_free(&r);
}
END_TEST

/* scramble: true with a seed is reproducible and says its seed; without
 * one, the seed it picked reproduces it. */
START_TEST(scramble_seed)
{
	ses a, b, c;
	json_t *ja = create(srv.port,
			    "{\"size\": 3, \"scramble\": true, \"seed\": 42}",
			    &a);
	json_t *jb = create(srv.port,
			    "{\"size\": 3, \"scramble\": true, \"seed\": 42}",
			    &b);
	ck_assert_int_eq(iget(ja, "seed"), 42);
	ck_assert_int_eq(iget(jb, "seed"), 42);
	ck_assert_str_eq(sget(ja, "scramble"), sget(jb, "scramble"));
	ck_assert_str_eq(sget(ja, "facelets"), sget(jb, "facelets"));
	/* the scramble text is the state's recipe */
	char *f = apply(srv.port, SOLVED3, sget(ja, "scramble"));
	ck_assert_str_eq(f, sget(ja, "facelets"));
	free(f);
	ck_assert_str_ne(sget(ja, "facelets"), SOLVED3);
	/* WCA length for a 3×3: 25 moves */
	{
		int words = 1;
		for (const char *p = sget(ja, "scramble"); *p; p++)
			words += *p == ' ';
		ck_assert_int_eq(words, 25);
	}
	/* another seed, another scramble */
	json_decref(jb);
	jb = create(srv.port, "{\"size\": 3, \"scramble\": true, \"seed\": 43}",
		    &b);
	ck_assert_str_ne(sget(ja, "scramble"), sget(jb, "scramble"));
	/* no seed: one is picked, exact in JSON, and it reproduces */
	json_t *jc = create(srv.port, "{\"size\": 4, \"scramble\": true}", &c);
	json_t *seed = json_object_get(jc, "seed");
	ck_assert(json_is_integer(seed) && json_integer_value(seed) >= 0 &&
		  json_integer_value(seed) < (1LL << 53));
	char body[128];
	snprintf(body, sizeof body,
		 "{\"size\": 4, \"scramble\": true, \"seed\": %lld}",
		 (long long)json_integer_value(seed));
	json_t *jd = create(srv.port, body, &b);
	ck_assert_str_eq(sget(jc, "scramble"), sget(jd, "scramble"));
	ck_assert_str_eq(sget(jc, "facelets"), sget(jd, "facelets"));
	/* the scramble is version 0: nothing to undo, history has only the
	 * create event */
	json_t *h = history_all(srv.port, &a, NULL, 100);
	ck_assert_int_eq(json_array_size(h), 1);
	ck_assert_str_eq(sget(json_array_get(h, 0), "type"), "create");
	json_decref(h);
	json_decref(expect_problem(srv.port, "POST", "/v1/sessions/x/undo",
				   a.token, NULL, NULL, 404, "not_found",
				   "no_such_session", NULL, NULL));
	char path[160];
	snprintf(path, sizeof path, "%s/undo", a.path);
	json_decref(expect_problem(srv.port, "POST", path, a.token, NULL, NULL,
				   409, "conflict", "nothing_to_undo", NULL,
				   NULL));
	json_decref(ja);
	json_decref(jb);
	json_decref(jc);
	json_decref(jd);
}
END_TEST

/* The scramble a session was made with is part of it: every read says
 * it (any version, any format), a write's reply does not repeat it, and
 * a session made without one (or forked) has none. */
START_TEST(scramble_kept)
{
	ses a, b, c;
	json_t *ja = create(srv.port,
			    "{\"size\": 3, \"scramble\": true, \"seed\": 7}", &a);
	json_t *jb = create(srv.port, "{\"size\": 5, \"scramble\": \"Rw 2U // x\"}",
			    &b);
	json_t *jc = create(srv.port, "{\"size\": 3}", &c);
	json_t *v = get_session(srv.port, a.path, NULL, 0);
	ck_assert_str_eq(sget(v, "scramble"), sget(ja, "scramble"));
	json_decref(v);
	v = get_session(srv.port, b.path, NULL, 0);
	ck_assert_str_eq(sget(v, "scramble"), "Rw 2U // x");
	json_decref(v);
	v = get_session(srv.port, c.path, NULL, 0);
	ck_assert_ptr_null(json_object_get(v, "scramble"));
	json_decref(v);
	/* a write's reply leaves it out; reads at any version keep it */
	json_t *w = write_ok(srv.port, &a, "moves", "R", 1);
	ck_assert_ptr_null(json_object_get(w, "scramble"));
	json_decref(w);
	char p[200];
	snprintf(p, sizeof p, "%s?version=0", a.path);
	v = get_session(srv.port, p, NULL, 0);
	ck_assert_str_eq(sget(v, "scramble"), sget(ja, "scramble"));
	json_decref(v);
	snprintf(p, sizeof p, "%s?format=faces&include=index", a.path);
	v = get_session(srv.port, p, NULL, 1);
	ck_assert_str_eq(sget(v, "scramble"), sget(ja, "scramble"));
	ck_assert(json_is_object(json_object_get(v, "faces")));
	json_decref(v);
	/* a fork starts from a version, not from a scramble */
	snprintf(p, sizeof p, "%s/fork", a.path);
	json_t *f = expect_json(srv.port, "POST", p, a.token, NULL,
				"{\"version\": 1}", 201, NULL);
	snprintf(p, sizeof p, "/v1/sessions/%s", sget(f, "id"));
	v = get_session(srv.port, p, NULL, 0);
	ck_assert_ptr_null(json_object_get(v, "scramble"));
	json_decref(v);
	json_decref(f);
	json_decref(ja);
	json_decref(jb);
	json_decref(jc);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Undo, redo, reset.                                                  */

/* A step of a sequence: a write and what the state must then be, as an
 * index into the states built so far (-1: computed by applying moves to
 * the previous state). */
START_TEST(undo_redo_reset)
{
	ses s;
	json_decref(create(srv.port, "{\"size\": 3}", &s));
	char *a = apply(srv.port, SOLVED3, "R U");      /* v1 */
	char *b = apply(srv.port, a, "F2 L'");          /* v2 */
	char *c = apply(srv.port, a, "D");              /* after undo, D */
	struct step {
		const char *kind, *moves;
		const char *state;
		const char *event_moves;
		int can_undo, can_redo;
	} steps[] = {
		{"moves", "R U", a, "R U", 1, 0},           /* 1 */
		{"moves", "F2 L'", b, "F2 L'", 1, 0},       /* 2 */
		{"undo", NULL, a, "L F2'", 1, 1},           /* 3 */
		{"undo", NULL, SOLVED3, "U' R'", 0, 1},     /* 4 */
		{"redo", NULL, a, "R U", 1, 1},             /* 5 */
		{"redo", NULL, b, "F2 L'", 1, 0},           /* 6 */
		{"undo", NULL, a, "L F2'", 1, 1},           /* 7 */
		{"moves", "D", c, "D", 1, 0},               /* 8: clears redo */
		{"undo", NULL, a, "D'", 1, 1},              /* 9 */
		{"undo", NULL, SOLVED3, "U' R'", 0, 1},     /* 10 */
		{"redo", NULL, a, "R U", 1, 1},             /* 11 */
		{"reset", NULL, SOLVED3, "", 0, 0},         /* 12 */
		{"moves", "x (R)2", NULL, "x (R)2", 1, 0},  /* 13 */
		{"undo", NULL, SOLVED3, NULL, 0, 1},        /* 14 */
	};
	int n = (int)(sizeof steps / sizeof steps[0]);
	char *x = apply(srv.port, SOLVED3, "x (R)2");
	steps[12].state = x;
	for (int i = 0; i < n; i++) {
		json_t *j = write_ok(srv.port, &s, steps[i].kind, steps[i].moves,
				     i + 1);
		char what[64];
		snprintf(what, sizeof what, "step %d (%s %s)", i + 1,
			 steps[i].kind, steps[i].moves ? steps[i].moves : "");
		ck_assert_msg(strcmp(sget(j, "facelets"), steps[i].state) == 0,
			      "%s: facelets %s, expected %s", what,
			      sget(j, "facelets"), steps[i].state);
		json_t *ev = json_object_get(j, "event");
		if (steps[i].event_moves)
			ck_assert_msg(strcmp(sget(ev, "moves"),
					     steps[i].event_moves) == 0,
				      "%s: event moves \"%s\", expected \"%s\"",
				      what, sget(ev, "moves"),
				      steps[i].event_moves);
		ck_assert_msg(bget(j, "can_undo") == steps[i].can_undo &&
				      bget(j, "can_redo") == steps[i].can_redo,
			      "%s: can_undo %d can_redo %d", what,
			      bget(j, "can_undo"), bget(j, "can_redo"));
		/* a GET says the same */
		json_t *g = get_session(srv.port, s.path, NULL, i + 1);
		ck_assert_str_eq(sget(g, "facelets"), steps[i].state);
		ck_assert_int_eq(bget(g, "can_undo"), steps[i].can_undo);
		ck_assert_int_eq(bget(g, "can_redo"), steps[i].can_redo);
		json_decref(g);
		json_decref(j);
	}
	/* 14 undid the move after the reset: nothing left to undo (a reset
	 * cannot be undone), one thing to redo */
	char path[160];
	snprintf(path, sizeof path, "%s/undo", s.path);
	json_decref(expect_problem(srv.port, "POST", path, s.token, NULL, NULL,
				   409, "conflict", "nothing_to_undo", NULL,
				   NULL));
	json_decref(write_ok(srv.port, &s, "redo", NULL, n + 1));
	snprintf(path, sizeof path, "%s/redo", s.path);
	json_decref(expect_problem(srv.port, "POST", path, s.token, NULL, NULL,
				   409, "conflict", "nothing_to_redo", NULL,
				   NULL));
	/* refused writes change nothing */
	json_t *g = get_session(srv.port, s.path, NULL, n + 1);
	ck_assert_str_eq(sget(g, "facelets"), x);
	json_decref(g);
	/* a reset right after creation and a reset twice are fine */
	json_decref(write_ok(srv.port, &s, "reset", NULL, n + 2));
	json_decref(write_ok(srv.port, &s, "reset", NULL, n + 3));
	/* undo/redo/reset take {} but no members */
	json_decref(expect_problem(srv.port, "POST", path, s.token, NULL,
				   "{\"n\": 1}", 422, "invalid_request",
				   "unknown_field", "n", NULL));
	snprintf(path, sizeof path, "%s/reset", s.path);
	json_t *j = expect_json(srv.port, "POST", path, s.token, NULL, "{}",
				200, NULL);
	ck_assert_int_eq(iget(j, "version"), n + 4);
	json_decref(j);

	/* the history says all of it, and replays to every state */
	json_t *h = history_all(srv.port, &s, NULL, 1000);
	ck_assert_int_eq(json_array_size(h), n + 5);
	char **st = replay(srv.port, h, SOLVED3);
	for (int i = 0; i < n; i++)
		ck_assert_msg(strcmp(st[i + 1], steps[i].state) == 0,
			      "replay of version %d differs", i + 1);
	for (int v = 0; v < n + 5; v++) {
		char p[192];
		snprintf(p, sizeof p, "%s?version=%d", s.path, v);
		json_t *t = get_session(srv.port, p, NULL, v);
		ck_assert_msg(strcmp(sget(t, "facelets"), st[v]) == 0,
			      "GET %s: %s, replay gives %s", p,
			      sget(t, "facelets"), st[v]);
		json_decref(t);
	}
	free_states(st, json_array_size(h));
	json_decref(h);
	free(a);
	free(b);
	free(c);
	free(x);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Write errors: tokens, If-Match, notation.                           */

START_TEST(write_errors)
{
	ses s, other;
	json_decref(create(srv.port, "{\"size\": 3}", &s));
	json_decref(create(srv.port, "{\"size\": 3}", &other));
	json_decref(write_ok(srv.port, &s, "moves", "R", 1));
	char path[160];
	static const char *const kinds[] = {"moves", "undo", "redo", "reset"};
	for (int k = 0; k < 4; k++) {
		snprintf(path, sizeof path, "%s/%s", s.path, kinds[k]);
		const char *body = k == 0 ? "{\"moves\": \"U\"}" : NULL;
		http_response r;
		/* 401: no token, or another scheme; with WWW-Authenticate */
		json_decref(expect_problem(srv.port, "POST", path, NULL, NULL,
					   body, 401, "unauthorized",
					   "token_required", NULL, &r));
		ck_assert_str_eq(http_header(&r, "WWW-Authenticate"),
				 "Bearer realm=\"cubed\"");
		http_response_free(&r);
		json_decref(expect_problem(srv.port, "POST", path, NULL,
					   "Authorization: Basic dTpw", body,
					   401, "unauthorized",
					   "token_required", NULL, NULL));
		json_decref(expect_problem(srv.port, "POST", path, NULL,
					   "Authorization: Bearer ", body, 401,
					   "unauthorized", "token_required",
					   NULL, NULL));
		/* 403: another session's token, a made-up one */
		json_decref(expect_problem(srv.port, "POST", path,
					   other.token, NULL, body, 403,
					   "forbidden", "wrong_token", NULL,
					   &r));
		ck_assert_ptr_null(http_header(&r, "WWW-Authenticate"));
		http_response_free(&r);
		json_decref(expect_problem(srv.port, "POST", path,
					   "ct_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
					   NULL, body, 403, "forbidden",
					   "wrong_token", NULL, NULL));
		/* 412: a stale If-Match, or one that names no version; with
		 * the current version */
		static const char *const stale[] = {
			"If-Match: \"v0\"", "If-Match: \"v2\"",
			"If-Match: W/\"v7\"", "If-Match: v1",
			"If-Match: \"x1\"", "If-Match: \"v-1\""};
		for (size_t i = 0; i < sizeof stale / sizeof *stale; i++) {
			json_t *p = expect_problem(srv.port, "POST", path,
						   s.token, stale[i], body, 412,
						   "precondition_failed",
						   "stale_version", NULL, &r);
			ck_assert_int_eq(iget(p, "current_version"), 1);
			expect_etag(&r, 1, stale[i]);
			http_response_free(&r);
			json_decref(p);
		}
		/* 404 */
		char nopath[160];
		snprintf(nopath, sizeof nopath, "/v1/sessions/%s/%s",
			 NO_SESSION, kinds[k]);
		json_decref(expect_problem(srv.port, "POST", nopath, s.token,
					   NULL, body, 404, "not_found",
					   "no_such_session", NULL, NULL));
		snprintf(nopath, sizeof nopath, "/v1/sessions/a.b/%s",
			 kinds[k]);
		json_decref(expect_problem(srv.port, "POST", nopath, s.token,
					   NULL, body, 404, "not_found",
					   "no_such_session", NULL, NULL));
	}
	snprintf(path, sizeof path, "%s/moves", s.path);
	/* notation errors, with the token */
	json_t *p = expect_problem(srv.port, "POST", path, s.token, NULL,
				   "{\"moves\": \"R U Q\"}", 422,
				   "invalid_notation", "unknown_token", "moves",
				   NULL);
	ck_assert_int_eq(iget(p, "offset"), 4);
	ck_assert_str_eq(sget(p, "token"), "Q");
	json_decref(p);
	json_decref(expect_problem(srv.port, "POST", path, s.token, NULL,
				   "{\"moves\": \"4R\"}", 422,
				   "invalid_notation", "layer_out_of_range",
				   "moves", NULL));
	json_decref(expect_problem(srv.port, "POST", path, s.token, NULL,
				   "{\"moves\": \"(R)100001\"}", 422,
				   "limit_exceeded", "too_many_moves", "moves",
				   NULL));
	json_decref(expect_problem(srv.port, "POST", path, s.token, NULL,
				   "{}", 422, "invalid_request",
				   "missing_field", "moves", NULL));
	json_decref(expect_problem(srv.port, "POST", path, s.token, NULL,
				   "{\"moves\": [\"R\"]}", 422,
				   "invalid_request", "wrong_type", "moves",
				   NULL));
	json_decref(expect_problem(srv.port, "POST", path, s.token, NULL,
				   "{\"moves\": \"R\", \"at\": 1}", 422,
				   "invalid_request", "unknown_field", "at",
				   NULL));
	/* a stranger learns nothing from bad notation or a bad If-Match:
	 * 401 / 403 come first */
	json_decref(expect_problem(srv.port, "POST", path, NULL, NULL,
				   "{\"moves\": \"4R\"}", 401, "unauthorized",
				   "token_required", NULL, NULL));
	json_decref(expect_problem(srv.port, "POST", path, other.token, NULL,
				   "{\"moves\": \"Q\"}", 403, "forbidden",
				   "wrong_token", NULL, NULL));
	json_decref(expect_problem(srv.port, "POST", path, NULL,
				   "If-Match: junk", "{\"moves\": \"R\"}", 401,
				   "unauthorized", "token_required", NULL,
				   NULL));
	/* If-Match that matches, and "*" */
	json_decref(expect_json(srv.port, "POST", path, s.token,
				"If-Match: \"v1\"", "{\"moves\": \"U\"}", 200,
				NULL));
	json_decref(expect_json(srv.port, "POST", path, s.token,
				"If-Match: W/\"v2\"", "{\"moves\": \"U'\"}",
				200, NULL));
	json_decref(expect_json(srv.port, "POST", path, s.token, "If-Match: *",
				"{\"moves\": \"R'\"}", 200, NULL));
	/* nothing refused was written: four versions, back to solved */
	json_t *g = get_session(srv.port, s.path, NULL, 4);
	ck_assert_str_eq(sget(g, "facelets"), SOLVED3);
	json_decref(g);
	g = get_session(srv.port, other.path, NULL, 0);
	json_decref(g);
	/* 415 / 400 */
	http_response r;
	char auth[96];
	snprintf(auth, sizeof auth, "Authorization: Bearer %s", s.token);
	const char *h[] = {"Content-Type: text/plain", auth, NULL};
	ck_assert_int_eq(http_request(srv.port, "POST", path, h, "{}", 2, &r),
			 0);
	ck_assert_int_eq(r.status, 415);
	http_response_free(&r);
	json_decref(expect_problem(srv.port, "POST", path, s.token, NULL,
				   "{\"moves\": \"R\"", 400, "malformed_json",
				   "malformed_json", NULL, NULL));
}
END_TEST

/* ------------------------------------------------------------------ */
/* Reads: time travel, query, conditional requests, private sessions.  */

START_TEST(read_queries)
{
	ses s;
	json_decref(create(srv.port, "{\"size\": 3}", &s));
	json_decref(write_ok(srv.port, &s, "moves", "R", 1));
	json_decref(write_ok(srv.port, &s, "moves", "U", 2));
	char p[256];
	/* time travel */
	snprintf(p, sizeof p, "%s?version=1", s.path);
	json_t *g = get_session(srv.port, p, NULL, 1);
	ck_assert_str_eq(sget(g, "facelets"), AFTER_R);
	ck_assert(!bget(g, "can_undo") && !bget(g, "can_redo"));
	json_decref(g);
	snprintf(p, sizeof p, "%s?version=0", s.path);
	g = get_session(srv.port, p, NULL, 0);
	ck_assert_str_eq(sget(g, "facelets"), SOLVED3);
	json_decref(g);
	snprintf(p, sizeof p, "%s?version=2", s.path);
	g = get_session(srv.port, p, NULL, 2);
	ck_assert(bget(g, "can_undo"));
	json_decref(g);
	snprintf(p, sizeof p, "%s?version=3", s.path);
	json_decref(expect_problem(srv.port, "GET", p, NULL, NULL, NULL, 404,
				   "not_found", "no_such_session", NULL, NULL));
	/* format and include */
	snprintf(p, sizeof p, "%s?version=1&format=index&include=orientation",
		 s.path);
	g = get_session(srv.port, p, NULL, 1);
	ck_assert_str_eq(sget(g, "index"), "5771278630723606528");
	ck_assert(json_object_get(g, "facelets") == NULL);
	ck_assert_str_eq(sget(json_object_get(g, "orientation"), "up"), "U");
	json_decref(g);
	snprintf(p, sizeof p, "%s?version=1&format=cubie&include=facelets,faces",
		 s.path);
	g = get_session(srv.port, p, NULL, 1);
	ck_assert_str_eq(sget(g, "facelets"), AFTER_R);
	ck_assert(json_is_object(json_object_get(g, "cubie")) &&
		  json_is_object(json_object_get(g, "faces")));
	json_decref(g);
	static const struct {
		const char *query, *code, *field;
	} bad[] = {
		{"?version=-1", "wrong_type", "version"},
		{"?version=x", "wrong_type", "version"},
		{"?version=", "wrong_type", "version"},
		{"?v=1", "unknown_parameter", "v"},
		{"?format=render", "bad_format", "format"},
		{"?include=animation", "bad_include", "include"},
		{"?include=index,index", "bad_include", "include"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		snprintf(p, sizeof p, "%s%s", s.path, bad[i].query);
		json_decref(expect_problem(srv.port, "GET", p, NULL, NULL, NULL,
					   422, "invalid_request", bad[i].code,
					   bad[i].field, NULL));
	}
	/* not applicable to a 4×4 */
	ses big;
	json_decref(create(srv.port, "{\"size\": 4}", &big));
	snprintf(p, sizeof p, "%s?format=cubie", big.path);
	json_decref(expect_problem(srv.port, "GET", p, NULL, NULL, NULL, 422,
				   "invalid_request", "not_applicable",
				   "format", NULL));
	/* ids that cannot be one, or too long for a route */
	json_decref(expect_problem(srv.port, "GET", "/v1/sessions/" NO_SESSION,
				   NULL, NULL, NULL, 404, "not_found",
				   "no_such_session", NULL, NULL));
	json_decref(expect_problem(srv.port, "GET", "/v1/sessions/a~b", NULL,
				   NULL, NULL, 404, "not_found",
				   "no_such_session", NULL, NULL));
	json_decref(expect_problem(
		srv.port, "GET",
		"/v1/sessions/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
		NULL, NULL, NULL, 404, "not_found", "not_found", NULL, NULL));

	/* If-None-Match → 304 with the ETag and no body */
	static const char *const match[] = {
		"If-None-Match: \"v2\"", "If-None-Match: W/\"v2\"",
		"If-None-Match: \"v1\", \"v2\"", "If-None-Match: *"};
	for (size_t i = 0; i < sizeof match / sizeof *match; i++) {
		http_response r;
		call(&r, srv.port, "GET", s.path, NULL, match[i], NULL);
		ck_assert_msg(r.status == 304, "%s: status %d", match[i],
			      r.status);
		ck_assert_uint_eq(r.body_len, 0);
		expect_etag(&r, 2, match[i]);
		http_response_free(&r);
	}
	http_response r;
	json_decref(expect_json(srv.port, "GET", s.path, NULL,
				"If-None-Match: \"v1\"", NULL, 200, &r));
	expect_etag(&r, 2, "If-None-Match v1");
	http_response_free(&r);
	/* at a past version the ETag is that version's */
	snprintf(p, sizeof p, "%s?version=1", s.path);
	call(&r, srv.port, "GET", p, NULL, "If-None-Match: \"v1\"", NULL);
	ck_assert_int_eq(r.status, 304);
	http_response_free(&r);
	/* HEAD: headers, no body */
	call(&r, srv.port, "HEAD", s.path, NULL, NULL, NULL);
	ck_assert_int_eq(r.status, 200);
	ck_assert_uint_eq(r.body_len, 0);
	expect_etag(&r, 2, "HEAD");
	http_response_free(&r);
}
END_TEST

START_TEST(private_sessions)
{
	ses s, other;
	json_t *j = create(srv.port,
			   "{\"size\": 2, \"visibility\": \"private\", "
			   "\"title\": \"mine\"}",
			   &s);
	ck_assert_str_eq(sget(j, "visibility"), "private");
	json_decref(j);
	json_decref(create(srv.port, "{\"size\": 2}", &other));
	json_decref(write_ok(srv.port, &s, "moves", "R", 1));
	char p[192];
	const char *paths[3];
	char hist[192], ver[192];
	snprintf(hist, sizeof hist, "%s/history", s.path);
	snprintf(ver, sizeof ver, "%s?version=0", s.path);
	paths[0] = s.path;
	paths[1] = hist;
	paths[2] = ver;
	/* without its token, or with another session's, it does not exist:
	 * the same 404 as for no session at all */
	for (int i = 0; i < 3; i++) {
		json_t *a = expect_problem(srv.port, "GET", paths[i], NULL, NULL,
					   NULL, 404, "not_found",
					   "no_such_session", NULL, NULL);
		json_t *b = expect_problem(srv.port, "GET", paths[i],
					   other.token, NULL, NULL, 404,
					   "not_found", "no_such_session", NULL,
					   NULL);
		json_t *c = expect_problem(srv.port, "GET",
					   "/v1/sessions/" NO_SESSION, NULL,
					   NULL, NULL, 404, "not_found",
					   "no_such_session", NULL, NULL);
		/* each names its own request; the rest is identical */
		ck_assert(json_is_string(json_object_get(a, "request_id")) &&
			  json_is_string(json_object_get(c, "request_id")));
		json_object_del(a, "request_id");
		json_object_del(b, "request_id");
		json_object_del(c, "request_id");
		ck_assert(json_equal(a, c) && json_equal(b, c));
		json_decref(a);
		json_decref(b);
		json_decref(c);
	}
	http_response r;
	call(&r, srv.port, "GET", s.path, NULL, "If-None-Match: *", NULL);
	ck_assert_int_eq(r.status, 404);
	http_response_free(&r);
	snprintf(p, sizeof p, "%s/fork", s.path);
	json_decref(expect_problem(srv.port, "POST", p, NULL, NULL, NULL, 404,
				   "not_found", "no_such_session", NULL, NULL));
	json_decref(expect_problem(srv.port, "POST", p, other.token, NULL,
				   "{\"version\": 0}", 404, "not_found",
				   "no_such_session", NULL, NULL));
	/* with it: everything */
	j = get_session(srv.port, s.path, s.token, 1);
	ck_assert_str_eq(sget(j, "title"), "mine");
	json_decref(j);
	j = get_session(srv.port, ver, s.token, 0);
	ck_assert_str_eq(sget(j, "facelets"), SOLVED2);
	json_decref(j);
	json_t *h = history_all(srv.port, &s, s.token, 10);
	ck_assert_int_eq(json_array_size(h), 2);
	json_decref(h);
	ses f;
	j = expect_json(srv.port, "POST", p, s.token, NULL, NULL, 201, NULL);
	snprintf(f.id, sizeof f.id, "%s", sget(j, "id"));
	snprintf(f.path, sizeof f.path, "/v1/sessions/%s", f.id);
	/* the fork stays private, behind its own token */
	ck_assert_str_eq(sget(j, "visibility"), "private");
	ck_assert_str_eq(sget(j, "title"), "mine");
	json_decref(expect_problem(srv.port, "GET", f.path, s.token, NULL,
				   NULL, 404, "not_found", "no_such_session",
				   NULL, NULL));
	json_decref(get_session(srv.port, f.path, sget(j, "write_token"), 0));
	json_decref(j);
}
END_TEST

/* ------------------------------------------------------------------ */
/* History pagination.                                                 */

START_TEST(history_pages)
{
	ses s;
	json_decref(create(srv.port, "{\"size\": 3}", &s));
	for (int v = 1; v <= 40; v++)
		json_decref(write_ok(srv.port, &s, "moves", v % 2 ? "R" : "U",
				     v));
	json_t *all = history_all(srv.port, &s, NULL, 1000);
	ck_assert_int_eq(json_array_size(all), 41);
	/* every page size gives the same events */
	static const int limits[] = {1, 2, 7, 40, 41, 100};
	for (size_t i = 0; i < sizeof limits / sizeof *limits; i++) {
		json_t *h = history_all(srv.port, &s, NULL, limits[i]);
		ck_assert_msg(json_equal(h, all), "pages of %d differ",
			      limits[i]);
		json_decref(h);
	}
	char p[192];
	/* the default page is 100 */
	snprintf(p, sizeof p, "%s/history", s.path);
	http_response r;
	json_t *j = expect_json(srv.port, "GET", p, NULL, NULL, NULL, 200, &r);
	expect_etag(&r, 40, p); /* the session's version, not the page's */
	http_response_free(&r);
	ck_assert(json_equal(json_object_get(j, "events"), all));
	ck_assert(json_is_null(json_object_get(j, "next")));
	ck_assert_int_eq(json_object_size(j), 2);
	json_decref(j);
	/* a page: after=5&limit=3 → 6, 7, 8, next 8 */
	snprintf(p, sizeof p, "%s/history?after=5&limit=3", s.path);
	j = expect_json(srv.port, "GET", p, NULL, NULL, NULL, 200, &r);
	expect_etag(&r, 40, p);
	http_response_free(&r);
	json_t *ev = json_object_get(j, "events");
	ck_assert_int_eq(json_array_size(ev), 3);
	ck_assert_int_eq(iget(json_array_get(ev, 0), "version"), 6);
	ck_assert_int_eq(iget(j, "next"), 8);
	json_t *e = json_array_get(ev, 0);
	ck_assert_str_eq(sget(e, "type"), "moves");
	ck_assert_str_eq(sget(e, "moves"), "U");
	ck_assert_str_eq(sget(e, "actor"), "owner");
	ck_assert_int_eq(json_object_size(e), 5);
	json_decref(j);
	/* the last page exactly: next null; past the end: empty */
	snprintf(p, sizeof p, "%s/history?after=37&limit=3", s.path);
	j = expect_json(srv.port, "GET", p, NULL, NULL, NULL, 200, NULL);
	ck_assert_int_eq(json_array_size(json_object_get(j, "events")), 3);
	ck_assert(json_is_null(json_object_get(j, "next")));
	json_decref(j);
	snprintf(p, sizeof p, "%s/history?after=40", s.path);
	j = expect_json(srv.port, "GET", p, NULL, NULL, NULL, 200, NULL);
	ck_assert_int_eq(json_array_size(json_object_get(j, "events")), 0);
	ck_assert(json_is_null(json_object_get(j, "next")));
	json_decref(j);
	snprintf(p, sizeof p, "%s/history?after=1000000&limit=1000", s.path);
	json_decref(expect_json(srv.port, "GET", p, NULL, NULL, NULL, 200,
				NULL));
	/* limit bounds and bad parameters */
	static const struct {
		const char *q, *code, *field;
		long limit;
	} bad[] = {
		{"limit=0", "value_out_of_range", "limit", 1000},
		{"limit=1001", "value_out_of_range", "limit", 1000},
		{"limit=-1", "wrong_type", "limit", -1},
		{"limit=ten", "wrong_type", "limit", -1},
		{"after=-1", "wrong_type", "after", -1},
		{"after=1.5", "wrong_type", "after", -1},
		{"cursor=3", "unknown_parameter", "cursor", -1},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		snprintf(p, sizeof p, "%s/history?%s", s.path, bad[i].q);
		json_t *pr = expect_problem(srv.port, "GET", p, NULL, NULL, NULL,
					    422, "invalid_request", bad[i].code,
					    bad[i].field, NULL);
		if (bad[i].limit >= 0)
			ck_assert_int_eq(iget(pr, "limit"), bad[i].limit);
		json_decref(pr);
	}
	json_decref(expect_problem(srv.port, "GET",
				   "/v1/sessions/" NO_SESSION "/history", NULL,
				   NULL, NULL, 404, "not_found",
				   "no_such_session", NULL, NULL));
	json_decref(all);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Time travel over a long history.                                    */

START_TEST(time_travel_every_version)
{
	ses s;
	json_t *j = create(srv.port,
			   "{\"size\": 3, \"scramble\": true, \"seed\": 7}", &s);
	char *initial = strdup(sget(j, "facelets"));
	json_decref(j);
	/* 150 writes: moves, undos and redos (a reset at 77), crossing the
	 * snapshots at 32, 64, 96 and 128; the write replies are the truth
	 * each GET must match */
	static const char *const algs[] = {"R", "U'", "F2", "L D", "B' R2",
					   "x", "M", "(R U)2", "[R, U]",
					   "E2 S'"};
	enum { WRITES = 150 };
	char *seen[WRITES + 1];
	seen[0] = strdup(initial);
	int undoable = 0, redoable = 0;
	for (int v = 1; v <= WRITES; v++) {
		const char *kind = "moves";
		if (v == 77)
			kind = "reset";
		else if (v % 5 == 3 && undoable)
			kind = "undo";
		else if (v % 7 == 4 && redoable)
			kind = "redo";
		json_t *w = write_ok(srv.port, &s, kind,
				     strcmp(kind, "moves") == 0
					     ? algs[(v * 7) % 10]
					     : NULL,
				     v);
		undoable = bget(w, "can_undo");
		redoable = bget(w, "can_redo");
		seen[v] = strdup(sget(w, "facelets"));
		json_decref(w);
	}
	json_t *h = history_all(srv.port, &s, NULL, 64);
	ck_assert_int_eq(json_array_size(h), WRITES + 1);
	char **st = replay(srv.port, h, initial);
	for (int v = 0; v <= WRITES; v++) {
		ck_assert_msg(strcmp(st[v], seen[v]) == 0,
			      "version %d: the write answered %s, replaying "
			      "the history gives %s",
			      v, seen[v], st[v]);
		char p[192];
		snprintf(p, sizeof p, "%s?version=%d", s.path, v);
		json_t *g = get_session(srv.port, p, NULL, v);
		ck_assert_msg(strcmp(sget(g, "facelets"), st[v]) == 0,
			      "GET %s: %s, replaying the history gives %s", p,
			      sget(g, "facelets"), st[v]);
		ck_assert_str_eq(sget(g, "updated_at"),
				 sget(json_array_get(h, (size_t)v),
				      "created_at"));
		json_decref(g);
		free(seen[v]);
	}
	free_states(st, WRITES + 1);
	json_decref(h);
	free(initial);
}
END_TEST

/* ------------------------------------------------------------------ */
/* If-Match races.                                                     */

enum { RACERS = 8, RACE_WRITES = 25 };

struct racer {
	int port;
	const ses *s;
	int id;
	int ok, stale, other;
	char error[512];
};

/* Writes on its own keep-alive connection: even racers read the ETag and
 * write with If-Match, odd ones write blindly. A 412 must name a newer
 * version than the one the racer read. */
static void *race(void *arg)
{
	struct racer *r = arg;
	int fd = http_connect(r->port, 30000);
	if (fd < 0) {
		snprintf(r->error, sizeof r->error, "connect failed");
		return NULL;
	}
	static const char *const moves[] = {"R", "U", "F", "L", "D",
					    "B", "R2", "U'"};
	char auth[96], ifm[64], body[64], path[160];
	snprintf(auth, sizeof auth, "Authorization: Bearer %s", r->s->token);
	snprintf(path, sizeof path, "%s/moves", r->s->path);
	for (int i = 0; i < RACE_WRITES && !r->error[0]; i++) {
		long long seen = -1;
		http_response resp;
		if (r->id % 2 == 0) {
			if (http_send(fd, r->port, "GET", r->s->path, NULL, NULL,
				      0, 0, &resp) < 0 ||
			    resp.status != 200) {
				snprintf(r->error, sizeof r->error,
					 "GET: %s (status %d)", resp.error,
					 resp.status);
				http_response_free(&resp);
				break;
			}
			const char *e = http_header(&resp, "ETag");
			seen = e ? atoll(e + 2) : -1;
			http_response_free(&resp);
			snprintf(ifm, sizeof ifm, "If-Match: \"v%lld\"", seen);
		}
		snprintf(body, sizeof body, "{\"moves\": \"%s\"}",
			 moves[(r->id + i) % 8]);
		const char *h[] = {"Content-Type: application/json", auth,
				   seen >= 0 ? ifm : NULL, NULL};
		if (http_send(fd, r->port, "POST", path, h, body, strlen(body),
			      0, &resp) < 0) {
			snprintf(r->error, sizeof r->error, "POST: %s",
				 resp.error);
			http_response_free(&resp);
			break;
		}
		if (resp.status == 200) {
			r->ok++;
		} else if (resp.status == 412 && seen >= 0) {
			json_t *j = json_loadb(resp.body, resp.body_len, 0, NULL);
			long long cur = json_integer_value(
				json_object_get(j, "current_version"));
			json_decref(j);
			if (cur <= seen)
				snprintf(r->error, sizeof r->error,
					 "412 for If-Match v%lld while the "
					 "session is at v%lld: not stale",
					 seen, cur);
			r->stale++;
		} else {
			snprintf(r->error, sizeof r->error,
				 "POST %s: status %d: %.300s", body,
				 resp.status, resp.body);
			r->other++;
		}
		http_response_free(&resp);
	}
	close(fd);
	return NULL;
}

START_TEST(if_match_race)
{
	ses s;
	json_decref(create(srv.port, "{\"size\": 3}", &s));
	pthread_t t[RACERS];
	struct racer r[RACERS];
	for (int i = 0; i < RACERS; i++) {
		memset(&r[i], 0, sizeof r[i]);
		r[i].port = srv.port;
		r[i].s = &s;
		r[i].id = i;
		ck_assert_int_eq(pthread_create(&t[i], NULL, race, &r[i]), 0);
	}
	int ok = 0, stale = 0;
	for (int i = 0; i < RACERS; i++) {
		pthread_join(t[i], NULL);
		ck_assert_msg(r[i].error[0] == '\0', "racer %d: %s", i,
			      r[i].error);
		ok += r[i].ok;
		stale += r[i].stale;
	}
	/* the blind writers never fail */
	for (int i = 1; i < RACERS; i += 2)
		ck_assert_int_eq(r[i].ok, RACE_WRITES);
	ck_assert_int_eq(ok + stale, RACERS * RACE_WRITES);
	/* no lost update: one version per accepted write, consecutive, and
	 * the state is the replay of the history's moves */
	json_t *g = get_session(srv.port, s.path, NULL, ok);
	json_t *h = history_all(srv.port, &s, NULL, 1000);
	ck_assert_int_eq(json_array_size(h), (size_t)ok + 1);
	char *moves = calloc(1, 8 * (size_t)ok + 1);
	for (size_t v = 1; v < json_array_size(h); v++) {
		json_t *e = json_array_get(h, v);
		ck_assert_int_eq(iget(e, "version"), (long long)v);
		ck_assert_str_eq(sget(e, "type"), "moves");
		strcat(moves, sget(e, "moves"));
		strcat(moves, " ");
	}
	char *f = apply(srv.port, SOLVED3, moves);
	ck_assert_msg(strcmp(f, sget(g, "facelets")) == 0,
		      "after %d writes (%d stale) the state is %s; replaying "
		      "the history gives %s",
		      ok, stale, sget(g, "facelets"), f);
	free(f);
	free(moves);
	json_decref(h);
	json_decref(g);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Fork and delete.                                                    */

START_TEST(fork_session)
{
	ses s;
	json_decref(create(srv.port, "{\"size\": 3, \"title\": \"src\"}", &s));
	json_decref(write_ok(srv.port, &s, "moves", "R", 1));
	json_decref(write_ok(srv.port, &s, "moves", "U", 2));
	char *at2 = apply(srv.port, AFTER_R, "U");
	char p[192];
	snprintf(p, sizeof p, "%s/fork", s.path);
	/* at version 1 */
	http_response r;
	json_t *j = expect_json(srv.port, "POST", p, NULL, NULL,
				"{\"version\": 1}", 201, &r);
	ses f;
	snprintf(f.id, sizeof f.id, "%s", sget(j, "id"));
	snprintf(f.token, sizeof f.token, "%s", sget(j, "write_token"));
	snprintf(f.path, sizeof f.path, "/v1/sessions/%s", f.id);
	ck_assert_str_eq(http_header(&r, "Location"), f.path);
	expect_etag(&r, 0, "fork");
	http_response_free(&r);
	ck_assert_str_ne(f.id, s.id);
	ck_assert_str_ne(f.token, s.token);
	ck_assert_str_eq(sget(j, "facelets"), AFTER_R);
	ck_assert_int_eq(iget(j, "version"), 0);
	ck_assert_str_eq(sget(j, "title"), "src");
	ck_assert(!bget(j, "can_undo") && !bget(j, "can_redo"));
	json_t *from = json_object_get(j, "forked_from");
	ck_assert_str_eq(sget(from, "id"), s.id);
	ck_assert_int_eq(iget(from, "version"), 1);
	json_decref(j);
	/* its own life: the source's token does not write it; reset goes
	 * back to the fork point; the source is untouched */
	snprintf(p, sizeof p, "%s/moves", f.path);
	json_decref(expect_problem(srv.port, "POST", p, s.token, NULL,
				   "{\"moves\": \"F\"}", 403, "forbidden",
				   "wrong_token", NULL, NULL));
	json_decref(write_ok(srv.port, &f, "moves", "F", 1));
	j = write_ok(srv.port, &f, "reset", NULL, 2);
	ck_assert_str_eq(sget(j, "facelets"), AFTER_R);
	json_decref(j);
	j = get_session(srv.port, s.path, NULL, 2);
	ck_assert_str_eq(sget(j, "facelets"), at2);
	json_decref(j);
	/* default: the current version; body optional */
	snprintf(p, sizeof p, "%s/fork", s.path);
	j = expect_json(srv.port, "POST", p, NULL, NULL, NULL, 201, NULL);
	ck_assert_str_eq(sget(j, "facelets"), at2);
	/* the reply names the version it copied: the current one, 2 */
	ck_assert_int_eq(iget(json_object_get(j, "forked_from"), "version"), 2);
	json_decref(j);
	j = expect_json(srv.port, "POST", p, NULL, NULL, "{}", 201, NULL);
	ck_assert_str_eq(sget(j, "facelets"), at2);
	json_decref(j);
	j = expect_json(srv.port, "POST", p, NULL, NULL, "{\"version\": 0}",
			201, NULL);
	ck_assert_str_eq(sget(j, "facelets"), SOLVED3);
	json_decref(j);
	/* errors */
	json_decref(expect_problem(srv.port, "POST", p, NULL, NULL,
				   "{\"version\": 3}", 404, "not_found",
				   "no_such_session", NULL, NULL));
	json_decref(expect_problem(srv.port, "POST", p, NULL, NULL,
				   "{\"version\": -1}", 422, "invalid_request",
				   "value_out_of_range", "version", NULL));
	json_decref(expect_problem(srv.port, "POST", p, NULL, NULL,
				   "{\"version\": \"1\"}", 422,
				   "invalid_request", "wrong_type", "version",
				   NULL));
	json_decref(expect_problem(srv.port, "POST", p, NULL, NULL,
				   "{\"at\": 1}", 422, "invalid_request",
				   "unknown_field", "at", NULL));
	json_decref(expect_problem(srv.port, "POST",
				   "/v1/sessions/" NO_SESSION "/fork", NULL,
				   NULL, NULL, 404, "not_found",
				   "no_such_session", NULL, NULL));
	free(at2);
}
END_TEST

START_TEST(delete_session)
{
	ses s, other;
	json_decref(create(srv.port, "{\"size\": 3}", &s));
	json_decref(create(srv.port, "{\"size\": 3}", &other));
	json_decref(write_ok(srv.port, &s, "moves", "R", 1));
	http_response r;
	json_decref(expect_problem(srv.port, "DELETE", s.path, NULL, NULL, NULL,
				   401, "unauthorized", "token_required", NULL,
				   &r));
	ck_assert_str_eq(http_header(&r, "WWW-Authenticate"),
			 "Bearer realm=\"cubed\"");
	http_response_free(&r);
	json_decref(expect_problem(srv.port, "DELETE", s.path, other.token,
				   NULL, NULL, 403, "forbidden", "wrong_token",
				   NULL, NULL));
	json_decref(get_session(srv.port, s.path, NULL, 1));
	call(&r, srv.port, "DELETE", s.path, s.token, NULL, NULL);
	ck_assert_msg(r.status == 204 && r.body_len == 0,
		      "DELETE: status %d, %zu bytes", r.status, r.body_len);
	http_response_free(&r);
	/* gone everywhere */
	char p[192];
	json_decref(expect_problem(srv.port, "GET", s.path, NULL, NULL, NULL,
				   404, "not_found", "no_such_session", NULL,
				   NULL));
	json_decref(expect_problem(srv.port, "DELETE", s.path, s.token, NULL,
				   NULL, 404, "not_found", "no_such_session",
				   NULL, NULL));
	snprintf(p, sizeof p, "%s/history", s.path);
	json_decref(expect_problem(srv.port, "GET", p, NULL, NULL, NULL, 404,
				   "not_found", "no_such_session", NULL, NULL));
	snprintf(p, sizeof p, "%s/moves", s.path);
	json_decref(expect_problem(srv.port, "POST", p, s.token, NULL,
				   "{\"moves\": \"R\"}", 404, "not_found",
				   "no_such_session", NULL, NULL));
	snprintf(p, sizeof p, "%s/fork", s.path);
	json_decref(expect_problem(srv.port, "POST", p, NULL, NULL, NULL, 404,
				   "not_found", "no_such_session", NULL, NULL));
	/* the other session is untouched */
	json_decref(get_session(srv.port, other.path, NULL, 0));
}
END_TEST

/* ------------------------------------------------------------------ */
/* /readyz and /metrics.                                               */

START_TEST(readyz)
{
	json_t *j = expect_json(srv.port, "GET", "/readyz", NULL, NULL, NULL,
				200, NULL);
	ck_assert_str_eq(sget(j, "status"), "ready");
	ck_assert_str_eq(sget(j, "database"), "ok");
	/* each engine counts its own migrations (schema/, schema/pg/) */
	const char *pg = getenv("CUBED_TEST_PG");
	ck_assert_int_eq(iget(j, "schema_version"), pg && *pg ? 10 : 11);
	ck_assert_str_eq(sget(j, "engine"), pg && *pg ? "postgresql" : "sqlite");
	json_decref(j);
}
END_TEST

START_TEST(metrics)
{
	/* traffic on the session routes first (tests run in their own
	 * processes, against the shared server) */
	ses s;
	json_decref(create(srv.port, "{\"size\": 3}", &s));
	json_decref(write_ok(srv.port, &s, "moves", "R", 1));
	json_decref(write_ok(srv.port, &s, "undo", NULL, 2));
	char p[192];
	snprintf(p, sizeof p, "%s/moves", s.path);
	json_decref(expect_problem(srv.port, "POST", p, NULL, NULL,
				   "{\"moves\": \"R\"}", 401, "unauthorized",
				   "token_required", NULL, NULL));
	snprintf(p, sizeof p, "%s/history", s.path);
	json_decref(expect_json(srv.port, "GET", p, NULL, NULL, NULL, 200,
				NULL));
	json_decref(get_session(srv.port, s.path, NULL, 2));
	json_decref(expect_json(srv.port, "GET", "/readyz", NULL, NULL, NULL,
				200, NULL));
	http_response r;
	call(&r, srv.port, "GET", "/metrics", NULL, NULL, NULL);
	ck_assert_int_eq(r.status, 200);
	ck_assert_msg(media_type_is(http_header(&r, "Content-Type"),
				    "text/plain"),
		      "Content-Type %s", http_header(&r, "Content-Type"));
	static const char *const want[] = {
		"# TYPE cubed_http_requests_total counter\n",
		"cubed_http_requests_total{route=\"/v1/sessions\",status=\"201\"} ",
		"cubed_http_requests_total{route=\"/v1/sessions/{id}/moves\",status=\"200\"} ",
		"cubed_http_requests_total{route=\"/v1/sessions/{id}/moves\",status=\"401\"} ",
		"cubed_http_requests_total{route=\"/v1/sessions/{id}/undo\",status=\"200\"} ",
		"cubed_http_requests_total{route=\"/v1/sessions/{id}/history\",status=\"200\"} ",
		"cubed_http_requests_total{route=\"/v1/sessions/{id}\",status=\"200\"} ",
		"cubed_http_requests_total{route=\"/readyz\",status=\"200\"} ",
		"cubed_http_request_duration_seconds_bucket{route=\"/v1/sessions/{id}/moves\",le=\"+Inf\"} ",
		"# TYPE cubed_commit_batch_size histogram\n",
		"cubed_commit_batch_size_bucket{le=\"1\"} ",
		"cubed_commit_batch_size_bucket{le=\"+Inf\"} ",
		"cubed_commit_batch_size_sum ",
		"cubed_commit_batch_size_count ",
		"cubed_sessions ",
		"cubed_events_appended_total ",
	};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++)
		ck_assert_msg(strstr(r.body, want[i]) != NULL,
			      "/metrics has no %s", want[i]);
	/* every sample line is "name{labels} value" or "name value" */
	char *save = NULL;
	for (char *line = strtok_r(r.body, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#')
			continue;
		char *sp = strrchr(line, ' ');
		ck_assert_msg(sp && sp[1] && strspn(sp + 1, "0123456789.e+-") ==
						     strlen(sp + 1),
			      "/metrics line \"%s\" has no number", line);
		/* cubed's own families, and the process_* ones under the
		 * names Prometheus's client libraries give them */
		ck_assert_msg(strncmp(line, "cubed_", 6) == 0 ||
				      strncmp(line, "process_", 8) == 0,
			      "/metrics line \"%s\"", line);
	}
	http_response_free(&r);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Restart persistence and limits (servers of their own).              */

struct kept {
	ses s;
	json_t *view;    /* GET at the current version (with the token) */
	json_t *history;
};

static void keep(int port, struct kept *k, const char *body,
		 const char *const *writes)
{
	json_decref(create(port, body, &k->s));
	long long v = 0;
	for (const char *const *w = writes; w && *w; w++) {
		v++;
		if (strcmp(*w, "undo") == 0 || strcmp(*w, "redo") == 0 ||
		    strcmp(*w, "reset") == 0)
			json_decref(write_ok(port, &k->s, *w, NULL, v));
		else
			json_decref(write_ok(port, &k->s, "moves", *w, v));
	}
	k->view = get_session(port, k->s.path, k->s.token, v);
	k->history = history_all(port, &k->s, k->s.token, 1000);
}

START_TEST(restart_persistence)
{
	server a, b;
	start_or_abort(&a, NULL, NULL);
	static const char *const w1[] = {"R", "U", "undo", NULL};
	static const char *const w2[] = {"R U R' U'", "undo", "redo", "F", NULL};
	static const char *const w3[] = {"x", "reset", "M2", NULL};
	const char *w4[80];
	for (int i = 0; i < 79; i++)
		w4[i] = i % 9 == 8 ? "undo" : (i % 2 ? "Rw" : "3U'");
	w4[79] = NULL;
	struct kept k[6];
	keep(a.port, &k[0], "{\"size\": 3, \"title\": \"one\"}", w1);
	keep(a.port, &k[1],
	     "{\"size\": 3, \"scramble\": true, \"seed\": 5, \"visibility\": "
	     "\"private\"}",
	     w2);
	keep(a.port, &k[2], "{\"size\": 5, \"scramble\": \"Rw 2U\"}", w3);
	keep(a.port, &k[3], "{\"size\": 6}", w4);
	keep(a.port, &k[4], "{\"size\": 2}", NULL);
	keep(a.port, &k[5], "{\"facelets\": \"" AFTER_R "\"}", w1);
	/* a deleted one stays deleted */
	ses gone;
	json_decref(create(a.port, "{\"size\": 3}", &gone));
	http_response r;
	call(&r, a.port, "DELETE", gone.path, gone.token, NULL, NULL);
	ck_assert_int_eq(r.status, 204);
	http_response_free(&r);
	/* time-travel views before the restart */
	char p[192];
	snprintf(p, sizeof p, "%s?version=40", k[3].s.path);
	json_t *old40 = get_session(a.port, p, NULL, 40);

	int st = server_stop(&a, 0);
	ck_assert_msg(st == 0, "the first server did not exit 0 on SIGTERM "
			       "(status %d)",
		      st);
	start_or_abort(&b, a.dir, NULL);
	for (int i = 0; i < 6; i++) {
		json_t *v = get_session(b.port, k[i].s.path, k[i].s.token,
					iget(k[i].view, "version"));
		ck_assert_msg(json_equal(v, k[i].view),
			      "session %d after the restart: %s\n  before: %s",
			      i, json_dumps(v, JSON_COMPACT),
			      json_dumps(k[i].view, JSON_COMPACT));
		json_decref(v);
		json_t *h = history_all(b.port, &k[i].s, k[i].s.token, 7);
		ck_assert_msg(json_equal(h, k[i].history),
			      "session %d's history changed across the "
			      "restart",
			      i);
		json_decref(h);
	}
	json_t *new40 = get_session(b.port, p, NULL, 40);
	ck_assert(json_equal(old40, new40));
	json_decref(old40);
	json_decref(new40);
	/* private stays private */
	json_decref(expect_problem(b.port, "GET", k[1].s.path, NULL, NULL, NULL,
				   404, "not_found", "no_such_session", NULL,
				   NULL));
	json_decref(expect_problem(b.port, "GET", gone.path, NULL, NULL, NULL,
				   404, "not_found", "no_such_session", NULL,
				   NULL));
	/* tokens still work, wrong ones still don't, and undo/redo pick up
	 * where they were: session 0 undid U, so redo brings it back */
	long long v0 = iget(k[0].view, "version");
	json_t *j = write_ok(b.port, &k[0].s, "redo", NULL, v0 + 1);
	char *ru = apply(b.port, AFTER_R, "U");
	ck_assert_str_eq(sget(j, "facelets"), ru);
	free(ru);
	json_decref(j);
	snprintf(p, sizeof p, "%s/moves", k[0].s.path);
	json_decref(expect_problem(b.port, "POST", p, k[1].s.token, NULL,
				   "{\"moves\": \"R\"}", 403, "forbidden",
				   "wrong_token", NULL, NULL));
	json_decref(write_ok(b.port, &k[3].s, "undo", NULL,
			     iget(k[3].view, "version") + 1));
	/* a second restart keeps the writes made after the first */
	st = server_stop(&b, 0);
	ck_assert_int_eq(st, 0);
	start_or_abort(&b, a.dir, NULL);
	json_decref(get_session(b.port, k[0].s.path, NULL, v0 + 1));
	json_decref(get_session(b.port, k[3].s.path, NULL,
				iget(k[3].view, "version") + 1));
	server_stop(&b, 1);
	for (int i = 0; i < 6; i++) {
		json_decref(k[i].view);
		json_decref(k[i].history);
	}
}
END_TEST

START_TEST(session_limits)
{
	server a;
	static const char *const extra[] = {"--max-sessions", "2",
					    "--max-session-size", "4", NULL};
	start_or_abort(&a, NULL, extra);
	ses s1, s2;
	json_decref(create(a.port, "{\"size\": 4}", &s1));
	json_decref(expect_problem(a.port, "POST", "/v1/sessions", NULL, NULL,
				   "{\"size\": 5}", 422, "invalid_request",
				   "size_out_of_range", "size", NULL));
	json_decref(create(a.port, "{\"size\": 2}", &s2));
	json_decref(expect_problem(a.port, "POST", "/v1/sessions", NULL, NULL,
				   "{\"size\": 2}", 503, "unavailable",
				   "too_many_sessions", NULL, NULL));
	char p[192];
	snprintf(p, sizeof p, "%s/fork", s1.path);
	json_decref(expect_problem(a.port, "POST", p, NULL, NULL, NULL, 503,
				   "unavailable", "too_many_sessions", NULL,
				   NULL));
	/* deleting makes room */
	http_response r;
	call(&r, a.port, "DELETE", s2.path, s2.token, NULL, NULL);
	ck_assert_int_eq(r.status, 204);
	http_response_free(&r);
	json_decref(expect_json(a.port, "POST", p, NULL, NULL, NULL, 201, NULL));
	ck_assert_int_eq(server_stop(&a, 1), 0);
}
END_TEST

/* --max-db-size on either engine (make test-pg runs this on PostgreSQL,
 * where the cap is the database's size on disk, every node's rows: before,
 * PostgreSQL had no size to give and the cap was silently ignored): a
 * server restarted on a database already past its cap refuses the writes
 * that add (507 storage_full, code storage_cap), and changes nothing;
 * reads and deletes still work. */
START_TEST(storage_cap_every_engine)
{
	server a, b;
	start_or_abort(&a, NULL, NULL);
	ses s1;
	json_decref(create(a.port, "{\"size\": 3}", &s1));
	char mv[192];
	snprintf(mv, sizeof mv, "%s/moves", s1.path);
	json_decref(expect_json(a.port, "POST", mv, s1.token, NULL,
				"{\"moves\": \"R\"}", 200, NULL));
	ck_assert_int_eq(server_stop(&a, 0), 0);
	static const char *const capped[] = {"--max-db-size", "1", NULL};
	start_or_abort(&b, a.dir, capped);
	json_decref(expect_problem(b.port, "POST", mv, s1.token, NULL,
				   "{\"moves\": \"U\"}", 507, "storage_full",
				   "storage_cap", NULL, NULL));
	json_decref(expect_problem(b.port, "POST", "/v1/sessions", NULL, NULL,
				   "{\"size\": 2}", 507, "storage_full",
				   "storage_cap", NULL, NULL));
	json_decref(get_session(b.port, s1.path, NULL, 1));
	http_response r;
	call(&r, b.port, "DELETE", s1.path, s1.token, NULL, NULL);
	ck_assert_int_eq(r.status, 204);
	http_response_free(&r);
	ck_assert_int_eq(server_stop(&b, 1), 0);
}
END_TEST

Suite *http_sessions_suite(void)
{
	Suite *s = suite_create("http_sessions");
	TCase *tc = tcase_create("sessions");
	tcase_set_timeout(tc, 120);
	tcase_add_unchecked_fixture(tc, fixture_setup, fixture_teardown);
	tcase_add_test(tc, create_and_read);
	tcase_add_loop_test(tc, create_errors, 0,
			    (int)(sizeof bad_creates / sizeof *bad_creates));
	tcase_add_test(tc, create_wrong_media_and_method);
	tcase_add_test(tc, scramble_seed);
	tcase_add_test(tc, scramble_kept);
	tcase_add_test(tc, undo_redo_reset);
	tcase_add_test(tc, write_errors);
	tcase_add_test(tc, read_queries);
	tcase_add_test(tc, private_sessions);
	tcase_add_test(tc, history_pages);
	tcase_add_test(tc, time_travel_every_version);
	tcase_add_test(tc, if_match_race);
	tcase_add_test(tc, fork_session);
	tcase_add_test(tc, delete_session);
	tcase_add_test(tc, readyz);
	tcase_add_test(tc, metrics);
	suite_add_tcase(s, tc);

	tc = tcase_create("restart");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, restart_persistence);
	tcase_add_test(tc, session_limits);
	tcase_add_test(tc, storage_cap_every_engine);
	suite_add_tcase(s, tc);
	return s;
}
