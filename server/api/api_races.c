/* api_races.c — races over HTTP (issue 64): a room where several players
 * solve the same scramble, each on a cube of their own. POST /v1/races
 * makes the room (its host's token shown once); POST …/players seats a
 * player and makes their cube (a public session: everyone watches
 * everyone's moves live on its event stream); the host's POST …/start
 * draws the scramble and sets when the countdown ends (go_at); each
 * player then scrambles their cube with it and starts a timed solve
 * there. GET /v1/races/{id} is the room with each player's result, read
 * back from their own session's history (sessions_timed): the timed solve
 * that started from exactly the race's scrambled state, by its player,
 * once the race went. Nothing but the room and the seats is stored, so
 * the table cannot disagree with the histories; every node (SQLite or
 * PostgreSQL) reads the same. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alg.h"
#include "api_internal.h"
#include "cube.h"
#include "problem.h"
#include "scrambles.h"
#include "sessions.h"
#include "solve.h"
#include "solver.h"
#include "store.h"
#include "timefmt.h"
#include "token.h"

#define RACE_MIN_N 2
#define RACE_MAX_N 7
#define COUNTDOWN_MS 3000
#define COUNTDOWN_MAX_MS 10000
#define GO_SLACK_MS 2000  /* a start this early still counts (clocks) */

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The race's row, or -1 with rp the problem (404 no_such_race, the
 * store's fault). */
static int race_row(const struct api_config *cfg, const char *id,
		    struct store_race *r, struct api_reply *rp)
{
	if (!cfg->sessions) {
		problem_reply(rp, PROBLEM_NO_DATABASE,
			      "this server runs without a session database");
		return -1;
	}
	int rc = id && token_id_ok(id) ? store_race_get(cfg->store, id, r)
				       : STORE_NOT_FOUND;
	if (rc == STORE_NOT_FOUND) {
		problem_reply(rp, PROBLEM_NO_SUCH_RACE, "there is no such race");
		return -1;
	}
	if (rc != STORE_OK) {
		api__session_problem(rp, store_unavailable(cfg->store)
						 ? SES_UNAVAILABLE
						 : SES_STORE,
				     NULL);
		return -1;
	}
	return 0;
}

/* The facelets a race's scramble makes from the solved cube (malloc'd),
 * or NULL. */
static char *scrambled(int n, const char *scramble)
{
	size_t len = strlen(scramble);
	size_t cap = alg_nodes_needed(len);
	alg_node *nodes = malloc((cap ? cap : 1) * sizeof *nodes);
	cube_t *c = malloc(cube_sizeof(n));
	char *out = malloc(6u * (size_t)n * (size_t)n + 1);
	alg_t a;
	if (!nodes || !c || !out ||
	    alg_parse(&a, nodes, cap, n, scramble, len, NULL, NULL) < 0) {
		free(out);
		out = NULL;
	} else {
		cube_init(c, n);
		alg_apply(&a, c, 0);
		cube_to_facelets(c, out);
		out[6 * n * n] = '\0';
	}
	free(nodes);
	free(c);
	return out;
}

/* A player's result: their first timed solve, by their session's owner
 * (the player), from exactly the race's scrambled state, once it went.
 * NULL while there is none. */
static json_t *result_json(const struct api_config *cfg,
			   const struct store_race *r,
			   const struct store_race_player *p, const char *want,
			   int64_t now, int *over, int64_t *ms)
{
	*over = 0;
	*ms = -1;
	struct timed_result *res = calloc(64, sizeof *res);
	if (!res)
		return NULL;
	int k = sessions_timed(cfg->sessions, p->session_id, now, res, 64);
	json_t *o = NULL;
	for (int i = 0; i < k && !o; i++) {
		const struct timed_result *t = &res[i];
		if (strcmp(t->t.actor, "owner") != 0 ||
		    t->t.inspect_at < r->go_at - GO_SLACK_MS)
			continue;
		struct session_view v;
		if (sessions_get(cfg->sessions, p->session_id, t->t.version,
				 &v) != SES_OK)
			continue;
		int same = strcmp(v.facelets, want) == 0;
		session_view_free(&v);
		if (!same)
			continue;
		*over = t->status == TIMED_SOLVED || t->status == TIMED_DNF ||
			t->status == TIMED_ABANDONED;
		if (t->status == TIMED_SOLVED)
			*ms = t->ms;
		o = json_pack(
			"{s:s, s:o, s:I, s:o, s:o, s:I, s:o, s:{s:I, s:I, s:I}}",
			"status", timed_status_name(t->status), "ms",
			t->status == TIMED_SOLVED ? json_integer((json_int_t)t->ms)
						  : json_null(),
			"penalty_ms", (json_int_t)t->penalty_ms, "started_at",
			t->started_at ? timefmt_json(t->started_at) : json_null(),
			"ended_at",
			t->ended_at ? timefmt_json(t->ended_at) : json_null(),
			"version", (json_int_t)t->t.version, "end_version",
			t->end_version >= 0 ? json_integer((json_int_t)t->end_version)
					    : json_null(),
			"moves", "htm", api__clamp_int(t->htm), "qtm",
			api__clamp_int(t->qtm), "stm", api__clamp_int(t->stm));
	}
	if (k > 0)
		timed_results_free(res, k);
	free(res);
	return o;
}

/* The room as JSON: its players with their results and places. */
static json_t *race_json(const struct api_config *cfg,
			 const struct store_race *r, struct api_reply *rp)
{
	struct store_race_player pl[STORE_RACE_PLAYERS_MAX];
	int k = store_race_players(cfg->store, r->id, pl,
				   STORE_RACE_PLAYERS_MAX);
	if (k < 0) {
		api__session_problem(rp, SES_STORE, NULL);
		return NULL;
	}
	int64_t now = now_ms();
	char *want = r->scramble ? scrambled(r->size, r->scramble) : NULL;
	json_t *players = json_array();
	int64_t ms[STORE_RACE_PLAYERS_MAX];
	int finished = r->scramble && k > 0;
	for (int i = 0; i < k; i++) {
		int over = 0;
		ms[i] = -1;
		json_t *res = want && now >= r->go_at - GO_SLACK_MS
				      ? result_json(cfg, r, &pl[i], want, now,
						    &over, &ms[i])
				      : NULL;
		if (!over)
			finished = 0;
		json_array_append_new(
			players,
			json_pack("{s:i, s:s, s:s, s:o, s:o, s:n}", "seat",
				  pl[i].seat, "name", pl[i].name, "session_id",
				  pl[i].session_id, "joined_at",
				  timefmt_json(pl[i].joined_at), "result",
				  res ? res : json_null(), "place"));
	}
	/* places: the solved ones by time */
	for (int i = 0; i < k; i++) {
		if (ms[i] < 0)
			continue;
		int place = 1;
		for (int j = 0; j < k; j++)
			if (ms[j] >= 0 && ms[j] < ms[i])
				place++;
		json_object_set_new(json_array_get(players, (size_t)i), "place",
				    json_integer(place));
	}
	free(want);
	const char *status = !r->scramble      ? "open"
			     : now < r->go_at  ? "countdown"
			     : finished        ? "finished"
					       : "racing";
	return json_pack("{s:s, s:i, s:o, s:o, s:s, s:o, s:o, s:o}", "id",
			 r->id, "size", r->size, "title",
			 r->title ? json_string(r->title) : json_null(),
			 "created_at", timefmt_json(r->created_at), "status",
			 status, "scramble",
			 r->scramble ? json_string(r->scramble) : json_null(),
			 "go_at", r->scramble ? timefmt_json(r->go_at)
					      : json_null(),
			 "players", players);
}

void api__race_create(const struct api_config *cfg,
		      const struct api_request *rq, const struct api_args *a,
		      struct api_reply *rp)
{
	(void)rq;
	static const struct api__field fields[] = {
		{"size", FIELD_INT, 0},
		{"title", FIELD_STRING, 0},
	};
	if (a->body && api__check_fields(a->body, NULL, fields, 2, rp) < 0)
		return;
	if (!cfg->sessions) {
		problem_reply(rp, PROBLEM_NO_DATABASE,
			      "this server runs without a session database");
		return;
	}
	const json_t *js = a->body ? json_object_get(a->body, "size") : NULL;
	const json_t *jt = a->body ? json_object_get(a->body, "title") : NULL;
	int n = js ? (int)json_integer_value(js) : 3;
	if (js && (json_integer_value(js) < RACE_MIN_N ||
		   json_integer_value(js) > RACE_MAX_N)) {
		json_t *p = api__bad_field(rp, PROBLEM_SIZE_OUT_OF_RANGE, "size",
					   "a race's size is from %d to %d",
					   RACE_MIN_N, RACE_MAX_N);
		if (p)
			json_object_set_new(p, "limit", json_integer(RACE_MAX_N));
		return;
	}
	if (jt && json_string_length(jt) > 80) {
		api__bad_field(rp, PROBLEM_TOO_LONG, "title",
			       "title is at most 80 bytes");
		return;
	}
	struct store_race r = {.size = n, .created_at = now_ms(),
			       .title = jt ? (char *)json_string_value(jt) : NULL};
	char token[36];
	if (token_new_id(r.id) < 0 || token_new_secret(token) < 0) {
		problem_reply(rp, PROBLEM_INTERNAL_ERROR, "no randomness");
		return;
	}
	token_sha256(token, strlen(token), r.token_hash);
	if (store_race_add(cfg->store, &r) != STORE_OK) {
		api__session_problem(rp, store_unavailable(cfg->store)
						 ? SES_UNAVAILABLE
						 : SES_STORE,
				     NULL);
		return;
	}
	r.title = NULL; /* borrowed from the body */
	json_t *o = race_json(cfg, &r, rp);
	if (o) {
		json_object_set_new(o, "host_token", json_string(token));
		api_reply_json(rp, 201, o);
		api_reply_header(rp, "Location", "/v1/races/%s", r.id);
		api_reply_header(rp, "Cache-Control", "no-store");
	}
}

void api__race_get(const struct api_config *cfg, const struct api_request *rq,
		   const struct api_args *a, struct api_reply *rp)
{
	static const char *const allowed[] = {NULL};
	struct api__query q;
	if (api__query_parse(rq->query, allowed, &q, rp) < 0)
		return;
	struct store_race r;
	if (race_row(cfg, a->id, &r, rp) < 0)
		return;
	json_t *o = race_json(cfg, &r, rp);
	store_race_free(&r);
	if (o) {
		api_reply_json(rp, 200, o);
		api_reply_header(rp, "Cache-Control", "no-store");
	}
}

void api__race_join(const struct api_config *cfg, const struct api_request *rq,
		    const struct api_args *a, struct api_reply *rp)
{
	(void)rq;
	static const struct api__field fields[] = {
		{"name", FIELD_STRING, 1},
	};
	if (api__check_fields(a->body, NULL, fields, 1, rp) < 0)
		return;
	const char *name = json_string_value(json_object_get(a->body, "name"));
	size_t nl = strlen(name);
	if (nl < 1 || nl > 40 || strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					      "abcdefghijklmnopqrstuvwxyz"
					      "0123456789-_.") != nl) {
		api__bad_field(rp, PROBLEM_BAD_NAME, "name",
			       "a player's name is 1 to 40 letters, digits, "
			       "'-', '_' or '.'");
		return;
	}
	struct store_race r;
	if (race_row(cfg, a->id, &r, rp) < 0)
		return;
	struct store_race_player pl[STORE_RACE_PLAYERS_MAX];
	int k = store_race_players(cfg->store, r.id, pl, STORE_RACE_PLAYERS_MAX);
	int rc = 0;
	if (r.scramble) {
		problem_reply(rp, PROBLEM_RACE_STARTED,
			      "this race has started: players join before");
		rc = -1;
	} else if (k >= STORE_RACE_PLAYERS_MAX) {
		json_t *p = problem_reply(rp, PROBLEM_RACE_FULL,
					  "a race seats %d players",
					  STORE_RACE_PLAYERS_MAX);
		if (p)
			json_object_set_new(p, "limit",
					    json_integer(STORE_RACE_PLAYERS_MAX));
		rc = -1;
	}
	for (int i = 0; rc == 0 && i < k; i++)
		if (strcmp(pl[i].name, name) == 0) {
			api__bad_field(rp, PROBLEM_NAME_TAKEN, "name",
				       "\"%s\" is taken in this race", name);
			rc = -1;
		}
	if (rc < 0 || k < 0) {
		if (k < 0 && rc == 0)
			api__session_problem(rp, SES_STORE, NULL);
		store_race_free(&r);
		return;
	}
	/* the player's cube: a public session (everyone watches everyone),
	 * solved until the race's scramble goes on it */
	char title[160];
	snprintf(title, sizeof title, "%s: %s", r.title ? r.title : "race",
		 name);
	struct session_create c = {.size = r.size, .title = title,
				   .actor = "owner"};
	struct session_view v;
	char token[36];
	rc = sessions_create(cfg->sessions, &c, &v, token, NULL);
	if (rc != SES_OK) {
		api__session_problem(rp, rc, NULL);
		store_race_free(&r);
		return;
	}
	struct store_race_player p = {.joined_at = now_ms()};
	snprintf(p.name, sizeof p.name, "%s", name);
	snprintf(p.session_id, sizeof p.session_id, "%s", v.id);
	session_view_free(&v);
	rc = store_race_join(cfg->store, r.id, &p);
	if (rc != STORE_OK) {
		/* the seat went to someone else at once: no cube for nobody */
		sessions_delete(cfg->sessions, p.session_id, token);
		if (rc == STORE_CONFLICT)
			api__bad_field(rp, PROBLEM_NAME_TAKEN, "name",
				       "\"%s\" is taken in this race", name);
		else
			api__session_problem(rp, SES_STORE, NULL);
		store_race_free(&r);
		return;
	}
	json_t *race = race_json(cfg, &r, rp);
	store_race_free(&r);
	if (!race)
		return;
	api_reply_json(rp, 201,
		       json_pack("{s:i, s:s, s:s, s:s, s:o}", "seat", p.seat,
				 "name", p.name, "session_id", p.session_id,
				 "write_token", token, "race", race));
	api_reply_header(rp, "Cache-Control", "no-store");
}

void api__race_start(const struct api_config *cfg,
		     const struct api_request *rq, const struct api_args *a,
		     struct api_reply *rp)
{
	(void)rq;
	static const struct api__field fields[] = {
		{"countdown_ms", FIELD_INT, 0},
	};
	if (a->body && api__check_fields(a->body, NULL, fields, 1, rp) < 0)
		return;
	const json_t *jc = a->body ? json_object_get(a->body, "countdown_ms")
				   : NULL;
	int64_t countdown = jc ? json_integer_value(jc) : COUNTDOWN_MS;
	if (countdown < 0 || countdown > COUNTDOWN_MAX_MS) {
		json_t *p = api__bad_field(rp, PROBLEM_VALUE_OUT_OF_RANGE,
					   "countdown_ms",
					   "countdown_ms is from 0 to %d",
					   COUNTDOWN_MAX_MS);
		if (p)
			json_object_set_new(p, "limit",
					    json_integer(COUNTDOWN_MAX_MS));
		return;
	}
	struct store_race r;
	if (race_row(cfg, a->id, &r, rp) < 0)
		return;
	uint8_t h[TOKEN_HASH_LEN];
	if (!a->token) {
		api__session_problem(rp, SES_UNAUTHORIZED, NULL);
		store_race_free(&r);
		return;
	}
	token_sha256(a->token, strlen(a->token), h);
	if (!token_hash_equal(h, r.token_hash)) {
		problem_reply(rp, PROBLEM_WRONG_TOKEN,
			      "only the race's host starts it (the host_token "
			      "from its creation)");
		store_race_free(&r);
		return;
	}
	struct store_race_player pl[STORE_RACE_PLAYERS_MAX];
	int k = store_race_players(cfg->store, r.id, pl, STORE_RACE_PLAYERS_MAX);
	if (r.scramble || k < 1) {
		problem_reply(rp, PROBLEM_RACE_STARTED,
			      r.scramble ? "this race has started already"
					 : "a race starts with a player seated");
		store_race_free(&r);
		return;
	}
	/* the scramble: a random state for the 2×2 and 3×3 (random moves
	 * while their tables are not there yet), random moves of the WCA
	 * length for bigger cubes (scrambles.h) */
	char raw[23];
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t seed = (uint64_t)ts.tv_nsec;
	if (token_new_id(raw) == 0)
		seed ^= ((uint64_t)raw[0] << 56) ^ ((uint64_t)raw[5] << 40) ^
			((uint64_t)raw[9] << 24) ^ ((uint64_t)raw[13] << 8);
	const void *tables =
		r.size == 3   ? solver_table(cfg->solver, SOLVER_3X3)
		: r.size == 2 ? solver_table(cfg->solver, SOLVER_2X2)
			      : NULL;
	int cap = scramble_cap(r.size);
	cube_move *m = malloc((size_t)cap * sizeof *m);
	const char *kind;
	int count = m ? scramble_draw(r.size, seed, tables, m, cap, &kind)
		      : -1;
	size_t need = count > 0 ? moves_print(m, (size_t)count, r.size, NULL, 0)
				: 0;
	char *scramble = count >= 0 ? malloc(need + 1) : NULL;
	if (scramble) {
		scramble[0] = '\0';
		if (count > 0)
			moves_print(m, (size_t)count, r.size, scramble,
				    need + 1);
	}
	int solver_failed = m && count < 0;
	free(m);
	if (!scramble) {
		if (solver_failed)
			problem_reply(rp, PROBLEM_SOLVER,
				      "the solver failed: %s",
				      solve_strerror(count));
		else
			problem_reply(rp, PROBLEM_OUT_OF_MEMORY,
				      "out of memory");
		store_race_free(&r);
		return;
	}
	int64_t go = now_ms() + countdown;
	int rc = store_race_start(cfg->store, r.id, scramble, go);
	if (rc == STORE_CONFLICT) {
		problem_reply(rp, PROBLEM_RACE_STARTED,
			      "this race has started already");
	} else if (rc != STORE_OK) {
		api__session_problem(rp, SES_STORE, NULL);
	} else {
		free(r.scramble);
		r.scramble = scramble;
		scramble = NULL;
		r.go_at = go;
		json_t *o = race_json(cfg, &r, rp);
		if (o) {
			api_reply_json(rp, 200, o);
			api_reply_header(rp, "Cache-Control", "no-store");
		}
	}
	free(scramble);
	store_race_free(&r);
}
