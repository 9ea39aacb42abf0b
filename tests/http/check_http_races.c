/* check_http_races.c — races (/v1/races…) on the real server binary: a
 * room, players seated each with a cube of their own, the host's start
 * (one scramble, the countdown's end), and the results read from each
 * player's own history: only a timed solve by that player, from exactly
 * the race's scrambled state, after the start counts; places by time; the
 * race is finished when every result is over. Seats run out at 8. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "http_client.h"
#include "session_helpers.h"
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

struct player {
	ses s;     /* the player's cube: path, token */
	char name[16];
};

static json_t *post(const char *path, const char *token, const char *body,
		    int status)
{
	return expect_json(srv.port, "POST", path, token, NULL, body, status,
			   NULL);
}

static void moves(const struct player *p, const char *token, const char *m)
{
	char path[160];
	snprintf(path, sizeof path, "%s/moves", p->s.path);
	json_t *b = json_pack("{s:s}", "moves", m);
	char *t = json_dumps(b, JSON_COMPACT);
	json_decref(post(path, token, t, 200));
	free(t);
	json_decref(b);
}

static void timed(const struct player *p, const char *token)
{
	char path[160];
	snprintf(path, sizeof path, "%s/timed", p->s.path);
	json_decref(post(path, token, NULL, 201));
}

static json_t *race(const char *rp)
{
	return expect_json(srv.port, "GET", rp, NULL, NULL, NULL, 200, NULL);
}

static const json_t *seat(const json_t *r, size_t i)
{
	return json_array_get(json_object_get(r, "players"), i);
}

START_TEST(race_to_the_results)
{
	json_t *r = post("/v1/races", NULL, "{\"size\": 3, \"title\": \"club\"}",
			 201);
	char rp[96], host[64], path[160];
	snprintf(rp, sizeof rp, "/v1/races/%s", sget(r, "id"));
	snprintf(host, sizeof host, "%s", sget(r, "host_token"));
	ck_assert_str_eq(sget(r, "status"), "open");
	json_decref(r);
	struct player pl[3];
	static const char *const names[] = {"ann", "bob", "cy"};
	snprintf(path, sizeof path, "%s/players", rp);
	for (int i = 0; i < 3; i++) {
		char body[64];
		snprintf(body, sizeof body, "{\"name\": \"%s\"}", names[i]);
		json_t *j = post(path, NULL, body, 201);
		ck_assert_int_eq(iget(j, "seat"), i + 1);
		snprintf(pl[i].name, sizeof pl[i].name, "%s", names[i]);
		snprintf(pl[i].s.id, sizeof pl[i].s.id, "%s", sget(j, "session_id"));
		snprintf(pl[i].s.token, sizeof pl[i].s.token, "%s",
			 sget(j, "write_token"));
		snprintf(pl[i].s.path, sizeof pl[i].s.path, "/v1/sessions/%.48s",
			 sget(j, "session_id"));
		/* a cube of its own, solved, public */
		json_t *v = get_session(srv.port, pl[i].s.path, NULL, 0);
		ck_assert_str_eq(sget(v, "facelets"),
				 "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB");
		json_decref(v);
		json_decref(j);
	}
	/* before the start a timed solve counts for nothing */
	moves(&pl[2], pl[2].s.token, "R");
	timed(&pl[2], pl[2].s.token);
	moves(&pl[2], pl[2].s.token, "R'");

	snprintf(path, sizeof path, "%s/start", rp);
	need_tables_on(srv.port);
	r = post(path, host, "{\"countdown_ms\": 0}", 200);
	char scramble[512];
	snprintf(scramble, sizeof scramble, "%s", sget(r, "scramble"));
	/* a random state's scramble (a solution inverted: at most 21
	 * moves), not 25 random moves, once the 3×3 tables are there */
	int words = 0;
	for (const char *p = scramble; *p; p++)
		words += *p != ' ' && (p == scramble || p[-1] == ' ');
	ck_assert_msg(words >= 1 && words <= 21, "%d moves: %s", words,
		      scramble);
	ck_assert(json_is_string(json_object_get(r, "go_at")));
	json_decref(r);
	r = race(rp);
	ck_assert_str_eq(sget(r, "status"), "racing");
	ck_assert(json_is_null(json_object_get(seat(r, 0), "result")));
	json_decref(r);

	/* ann and bob race; bob's co-player-free cube only counts its owner */
	char body[640];
	snprintf(body, sizeof body, "{\"size\": 3, \"moves\": \"%s\"}",
		 scramble);
	json_t *inv = expect_json(srv.port, "POST", "/v1/alg", NULL, NULL, body,
				  200, NULL);
	char inverse[512];
	snprintf(inverse, sizeof inverse, "%s", sget(inv, "inverse"));
	json_decref(inv);
	for (int i = 0; i < 2; i++) {
		moves(&pl[i], pl[i].s.token, scramble);
		timed(&pl[i], pl[i].s.token);
	}
	moves(&pl[0], pl[0].s.token, inverse);
	/* bob takes a detour: two moves more */
	moves(&pl[1], pl[1].s.token, "U");
	moves(&pl[1], pl[1].s.token, "U'");
	moves(&pl[1], pl[1].s.token, inverse);
	/* cy starts from the wrong state: scrambled twice */
	moves(&pl[2], pl[2].s.token, scramble);
	moves(&pl[2], pl[2].s.token, scramble);
	timed(&pl[2], pl[2].s.token);

	r = race(rp);
	ck_assert_str_eq(sget(r, "status"), "racing");
	const json_t *a = json_object_get(seat(r, 0), "result");
	const json_t *b = json_object_get(seat(r, 1), "result");
	ck_assert_str_eq(sget(a, "status"), "solved");
	ck_assert_str_eq(sget(b, "status"), "solved");
	ck_assert_int_eq(iget(json_object_get(b, "moves"), "htm"),
			 iget(json_object_get(a, "moves"), "htm") + 2);
	ck_assert_int_eq(iget(a, "version"), 1);
	ck_assert_int_eq(iget(a, "end_version"), 2);
	long long pa = iget(seat(r, 0), "place"), pb = iget(seat(r, 1), "place");
	long long ma = iget(a, "ms"), mb = iget(b, "ms");
	ck_assert(pa >= 1 && pb >= 1 && pa <= 2 && pb <= 2);
	ck_assert(ma < mb ? pa < pb : ma > mb ? pa > pb : pa == pb);
	ck_assert(json_is_null(json_object_get(seat(r, 2), "result")));
	ck_assert(json_is_null(json_object_get(seat(r, 2), "place")));
	json_decref(r);

	/* cy gets back to the race's state, starts there, then gives up (a
	 * reset): every result is over, and the race is finished */
	moves(&pl[2], pl[2].s.token, inverse);
	timed(&pl[2], pl[2].s.token);
	snprintf(path, sizeof path, "%s/reset", pl[2].s.path);
	json_decref(post(path, pl[2].s.token, NULL, 200));
	r = race(rp);
	ck_assert_str_eq(sget(r, "status"), "finished");
	ck_assert_str_eq(sget(json_object_get(seat(r, 2), "result"), "status"),
			 "abandoned");
	ck_assert(json_is_null(json_object_get(seat(r, 2), "place")));
	json_decref(r);
}
END_TEST

START_TEST(race_seats_run_out)
{
	json_t *r = post("/v1/races", NULL, "{\"size\": 2}", 201);
	char path[160];
	snprintf(path, sizeof path, "/v1/races/%s/players", sget(r, "id"));
	json_decref(r);
	for (int i = 0; i < 8; i++) {
		char body[64];
		snprintf(body, sizeof body, "{\"name\": \"p%d\"}", i);
		json_decref(post(path, NULL, body, 201));
	}
	json_t *p = expect_problem(srv.port, "POST", path, NULL, NULL,
				   "{\"name\": \"late\"}", 409, "conflict",
				   "race_full", NULL, NULL);
	ck_assert_int_eq(iget(p, "limit"), 8);
	json_decref(p);
}
END_TEST

Suite *http_races_suite(void)
{
	Suite *s = suite_create("http_races");
	TCase *tc = tcase_create("races");
	tcase_set_timeout(tc, 60);
	tcase_add_unchecked_fixture(tc, fixture_setup, fixture_teardown);
	tcase_add_test(tc, race_to_the_results);
	tcase_add_test(tc, race_seats_run_out);
	suite_add_tcase(s, tc);
	return s;
}
