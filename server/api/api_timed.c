/* api_timed.c — timed solves over HTTP: POST /v1/sessions/{id}/timed
 * starts one (a player with a write token says the solve starts at a
 * version, the scrambled state: inspection begins now), GET lists them
 * with what the session's history says happened (sessions.h: the first
 * turn, the solving move, the moves between, the WCA's inspection rules)
 * and each player's statistics: best, mean, ao5, ao12. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api_internal.h"
#include "problem.h"
#include "sessions.h"
#include "timefmt.h"

#define TIMED_LIST_MAX 1000

/* Wall-clock milliseconds, the clock the events' created_at come from. */
static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Milliseconds, or null for the -1 that means none. */
static json_t *ms_or_null(int64_t v)
{
	return v >= 0 ? json_integer((json_int_t)v) : json_null();
}

static json_t *timed_json(const struct timed_result *r)
{
	json_t *moves = json_pack("{s:I, s:I, s:I}", "htm",
				  api__clamp_int(r->htm), "qtm",
				  api__clamp_int(r->qtm), "stm",
				  api__clamp_int(r->stm));
	return json_pack(
		"{s:I, s:s, s:I, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:I, s:o}",
		"id", (json_int_t)r->t.id, "actor", r->t.actor, "version",
		(json_int_t)r->t.version, "scramble", r->t.scramble, "status",
		timed_status_name(r->status), "inspection_started_at",
		timefmt_json(r->t.inspect_at), "started_at",
		r->started_at ? timefmt_json(r->started_at) : json_null(),
		"ended_at", r->ended_at ? timefmt_json(r->ended_at) : json_null(),
		"end_version",
		r->end_version >= 0 ? json_integer((json_int_t)r->end_version)
				    : json_null(),
		"ms", r->status == TIMED_SOLVED ? json_integer((json_int_t)r->ms)
						: json_null(),
		"penalty_ms", (json_int_t)r->penalty_ms, "moves", moves);
}

/* A statistic: milliseconds, "DNF", or null when there are too few. */
static json_t *stat_json(int64_t v)
{
	if (v == TIMED_AVG_DNF)
		return json_string("DNF");
	return ms_or_null(v);
}

static json_t *stats_json(const struct timed_stats *st)
{
	return json_pack("{s:i, s:i, s:i, s:o, s:o, s:o, s:o}", "count",
			 st->count, "solved", st->solved, "dnf", st->dnf,
			 "best", ms_or_null(st->best), "mean",
			 ms_or_null(st->mean), "ao5", stat_json(st->ao5),
			 "ao12", stat_json(st->ao12));
}

/* Who the token is in session id, for a start: a player (owner or
 * write token). 0 with actor filled, else -1 with rp the problem. */
static int player(const struct api_config *cfg, const char *id,
		  const char *token, char *actor, struct api_reply *rp)
{
	enum ses_role role;
	int rc = sessions_auth(cfg->sessions, id, token, &role, actor);
	if (rc == SES_OK && role == SES_ROLE_READ)
		rc = SES_READ_ONLY;
	else if (rc == SES_OK && role == SES_ROLE_NONE)
		rc = SES_FORBIDDEN;
	if (rc != SES_OK) {
		api__session_problem(rp, rc, NULL);
		return -1;
	}
	return 0;
}

void api__session_timed_start(const struct api_config *cfg,
			      const struct api_request *rq,
			      const struct api_args *a, struct api_reply *rp)
{
	(void)rq;
	static const struct api__field fields[] = {
		{"version", FIELD_INT, 0},
	};
	if (a->body && api__check_fields(a->body, NULL, fields, 1, rp) < 0)
		return;
	char actor[STORE_NAME_MAX] = "";
	if (player(cfg, a->id, a->token, actor, rp) < 0)
		return;
	struct session_view v;
	int rc = sessions_get(cfg->sessions, a->id, -1, &v);
	if (rc != SES_OK) {
		api__session_problem(rp, rc, NULL);
		return;
	}
	int64_t version = v.version;
	const json_t *jv = a->body ? json_object_get(a->body, "version") : NULL;
	if (jv)
		version = json_integer_value(jv);
	if (version < 0 || version > v.version) {
		json_t *p = api__bad_field(
			rp, PROBLEM_VALUE_OUT_OF_RANGE, "version",
			"version is from 0 to %" PRId64
			" (the session's version now), got %" PRId64,
			v.version, version);
		if (p)
			json_object_set_new(p, "limit",
					    json_integer((json_int_t)v.version));
		session_view_free(&v);
		return;
	}
	/* the scramble: the moves that made that version (the player's
	 * scramble write), or the session's own at version 0 */
	char *scramble = NULL;
	if (version == 0) {
		scramble = strdup(v.scramble ? v.scramble : "");
	} else {
		struct store_event e;
		rc = sessions_history(cfg->sessions, a->id, version - 1, &e, 1);
		if (rc == 1) {
			scramble = strdup(strcmp(e.kind, "moves") == 0 ? e.moves
								       : "");
			store_event_free(&e);
		} else if (rc < 0) {
			api__session_problem(rp, rc, NULL);
			session_view_free(&v);
			return;
		}
	}
	session_view_free(&v);
	if (!scramble) {
		problem_reply(rp, PROBLEM_OUT_OF_MEMORY, "out of memory");
		return;
	}
	struct store_timed t = {.version = version,
				.inspect_at = now_ms(),
				.scramble = scramble};
	snprintf(t.actor, sizeof t.actor, "%s", actor);
	rc = sessions_add_timed(cfg->sessions, a->id, &t, a->idem);
	if (rc != SES_OK) {
		api__session_problem(rp, rc, NULL);
		free(t.scramble);
		return;
	}
	struct timed_result r = {.t = t, .status = TIMED_INSPECTING,
				 .end_version = -1};
	api_reply_json(rp, 201, timed_json(&r));
	api_reply_header(rp, "Cache-Control", "no-store");
	if (rp->status == 201)
		api__idem_mark(a, rp);
	free(t.scramble); /* a replay's is the stored one */
}

void api__session_timed(const struct api_config *cfg,
			const struct api_request *rq, const struct api_args *a,
			struct api_reply *rp)
{
	static const char *const allowed[] = {NULL};
	struct api__query q;
	if (api__query_parse(rq->query, allowed, &q, rp) < 0)
		return;
	/* a private session is 404 to anyone without one of its tokens */
	struct session_view v;
	if (api__session_read(cfg, a->id, -1, a->token, &v, rp) < 0)
		return;
	session_view_free(&v);
	struct timed_result *res = calloc(TIMED_LIST_MAX, sizeof *res);
	if (!res) {
		problem_reply(rp, PROBLEM_OUT_OF_MEMORY, "out of memory");
		return;
	}
	int k = sessions_timed(cfg->sessions, a->id, now_ms(), res,
			       TIMED_LIST_MAX);
	if (k < 0) {
		free(res);
		api__session_problem(rp, k, NULL);
		return;
	}
	json_t *list = json_array();
	json_t *players = json_object();
	for (int i = 0; i < k; i++) {
		json_array_append_new(list, timed_json(&res[i]));
		if (!json_object_get(players, res[i].t.actor)) {
			struct timed_stats st;
			timed_stats_of(res, k, res[i].t.actor, &st);
			json_object_set_new(players, res[i].t.actor,
					    stats_json(&st));
		}
	}
	timed_results_free(res, k);
	free(res);
	api_reply_json(rp, 200,
		       json_pack("{s:o, s:o}", "timed_solves", list, "players",
				 players));
	api_reply_header(rp, "Cache-Control", "no-store");
}
