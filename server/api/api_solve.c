/* api_solve.c — solving and scrambling over HTTP: POST /v1/solve, GET
 * /v1/scramble, and the stored solves of a session (POST/GET
 * /v1/sessions/{id}/solve(s)). The tables come from the background solver
 * (solver.h); until they are ready these routes answer 503 with
 * Retry-After. A cube given in any whole-cube orientation is solved in the
 * frame it was given in: the moves name the faces as the client holds the
 * cube, so applying the solution to the given facelets solves it. The
 * beginner method (beginner.h) also lists its stages, each with the state
 * after it in that frame; a "target" (a pattern or a pattern name) is
 * reached by the fewest moves the search finds in the time budget. Cubes
 * of 4 to REDUCE_MAX_N layers are solved by reduction (reduce.h): no
 * rotations, so the answer is already in the frame given, and its stages
 * are listed with their moves. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "api_internal.h"
#include "jobs.h"
#include "solve_pool.h"
#include "solve_service.h"
#include "timefmt.h"
#include "beginner.h"
#include "pattern.h"
#include "problem.h"
#include "utf8.h"
#include "reduce.h"
#include "sessions.h"
#include "solve.h"
#include "solver.h"
#include "store.h"
#include "token.h"

/* The largest max_length a solve request may name. */
#define MAX_LENGTH_ARG SVC_MAX_LENGTH_ARG

/* A solve handed to the solver pool (api__offload): the request with
 * copies of what it points into, and for a session's solve where to
 * store it. */
struct solve_job {
	cube_t *c;
	struct svc_request a;
	char *target;      /* a.target, copied out of the body */
	char *method;      /* a.method, the same */
	int session;       /* a session's solve: stored, 201 */
	char sid[STORE_ID_MAX];
	int64_t version;
	char *facelets;    /* the session's state (owned) */
	struct ses_idem idem; /* the request's Idempotency-Key (has_idem) */
	int has_idem;
};

static void solve_job_free(void *arg)
{
	struct solve_job *j = arg;
	if (!j)
		return;
	free(j->c);
	free(j->target);
	free(j->method);
	free(j->facelets);
	free(j);
}

/* A job for c (taken over) as a asks; NULL if memory ran out (c not
 * taken). */
static struct solve_job *solve_job_new(cube_t *c, const struct svc_request *a)
{
	struct solve_job *j = calloc(1, sizeof *j);
	if (!j)
		return NULL;
	if (a->target) {
		j->target = malloc(a->target_len + 1);
		if (!j->target) {
			free(j);
			return NULL;
		}
		memcpy(j->target, a->target, a->target_len);
		j->target[a->target_len] = '\0';
	}
	if (a->method && !(j->method = strdup(a->method))) {
		free(j->target);
		free(j);
		return NULL;
	}
	j->c = c;
	j->a = *a;
	j->a.c = c;
	j->a.target = j->target;
	j->a.method = j->method;
	return j;
}

/* The service's stop: the pool work's (cancelled, the pool stopping, the
 * client gone). */
static int work_stop(void *ctx)
{
	return api__work_stopped(ctx);
}

static void post_solve_reply(const struct api_config *cfg, const cube_t *c,
			     const struct svc_request *a,
			     struct api_reply *rp);
static void session_solve_reply(const struct api_config *cfg,
				 struct solve_job *j, struct api_reply *rp);

/* A solve on a pool worker (w), or on the caller's thread (w NULL). */
static void solve_work(const struct api_config *cfg, void *arg,
		       struct api_work *w, struct api_reply *rp)
{
	struct solve_job *j = arg;
	j->a.stop = w ? work_stop : NULL;
	j->a.stop_ctx = w;
	if (j->session)
		session_solve_reply(cfg, j, rp);
	else
		post_solve_reply(cfg, j->c, &j->a, rp);
}

/* Run j on the solver pool, or here when this request cannot wait; j is
 * taken over either way. */
static void solve_offload(const struct api_config *cfg,
			  const struct api_request *rq, struct solve_job *j,
			  struct api_reply *rp)
{
	if (api__offload(cfg, rq, solve_work, j, solve_job_free, rp))
		return;
	solve_work(cfg, j, NULL, rp);
	solve_job_free(j);
}

/* The reply of a solve that has no answer (svc_error) into rp. */
static void solve_problem(const struct api_config *cfg, struct svc_error *e,
			struct api_reply *rp)
{
	if (e->row == PROBLEM_TABLES_NOT_READY) {
		const void *t;
		if (e->tables != SVC_BEGINNER_TABLES) {
			api__tables_or_503(cfg, e->tables, &t, rp);
			return;
		}
		/* the beginner tables are built at start-up or never: no
		 * Retry-After */
		json_t *p = problem_reply(
			rp, PROBLEM_TABLES_NOT_READY,
			cfg->solver ? "the beginner method's tables could not "
				      "be built"
				    : "this server runs without solver tables "
				      "(--solver 0)");
		if (p) {
			json_object_set_new(p, "tables",
					    json_string(cfg->solver ? "failed"
								    : "off"));
			json_object_set_new(p, "percent", json_integer(0));
		}
		return;
	}
	if (e->row == PROBLEM_INVALID_CUBE && e->errors &&
	    json_array_size(e->errors) > 0) {
		api__invalid_cube(rp, e->field, e->errors, NULL);
		e->errors = NULL; /* taken */
		return;
	}
	json_t *p = e->core ? problem_reply_core(rp, e->row, e->core, "%s",
						 e->detail)
			    : problem_reply(rp, e->row, "%s", e->detail);
	if (!p)
		return;
	if (e->field)
		json_object_set_new(p, "field", json_string(e->field));
	if (e->offset >= 0)
		json_object_set_new(p, "offset", json_integer(e->offset));
	if (e->row == PROBLEM_INVALID_CUBE)
		json_object_set_new(p, "errors", json_array());
	if (e->row == PROBLEM_NO_SOLUTION_FOUND)
		json_object_set_new(p, "best_length",
				    e->best_length >= 0
					    ? json_integer(e->best_length)
					    : json_null());
}

/* The service's setting of this server. */
static struct svc_env env_of(const struct api_config *cfg)
{
	return (struct svc_env){.solver = cfg->solver,
				.max_solve_ms = cfg->max_solve_ms};
}

static json_t *moves_text(const cube_move *m, int count, int n)
{
	size_t need = moves_print(m, (size_t)count, n, NULL, 0);
	char *buf = malloc(need + 1);
	if (!buf)
		return NULL;
	moves_print(m, (size_t)count, n, buf, need + 1);
	json_t *j = json_stringn(buf, need);
	free(buf);
	return j;
}

/* The reduction's stages: name, moves, their count. */
static json_t *reduce_stages_json(const struct svc_answer *s)
{
	json_t *arr = json_array();
	for (int i = 0; arr && i < REDUCE_STAGES; i++) {
		const reduce_stage *st = &s->reduced.stage[i];
		json_t *e = json_pack("{s:s, s:o, s:i}", "name", st->name,
				      "moves",
				      moves_text(s->big + st->start, st->count,
						 s->n),
				      "length", st->count);
		if (!e || json_array_append_new(arr, e) < 0) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

/* The beginner stages: name, moves, their count, and the state after
 * them, all in the frame the cube was given in (c, as given). */
static json_t *stages_json(const struct svc_answer *s, const cube_t *c)
{
	json_t *arr = json_array();
	cube_t *k = malloc(cube_sizeof(c->n));
	char f[54];
	if (!arr || !k || c->n != 3) {
		free(k);
		json_decref(arr);
		return NULL;
	}
	cube_copy(k, c);
	for (int i = 0; i < s->nstages; i++) {
		const beginner_stage *st = &s->stages[i];
		cube_apply_moves(k, s->moves + st->start, (size_t)st->count);
		cube_to_facelets(k, f);
		json_t *e = json_pack(
			"{s:s, s:o, s:i, s:s#}", "name", st->name, "moves",
			moves_text(s->moves + st->start, st->count, s->n),
			"length", st->count, "facelets", f, (int)sizeof f);
		if (!e || json_array_append_new(arr, e) < 0) {
			json_decref(arr);
			arr = NULL;
			break;
		}
	}
	free(k);
	return arr;
}

/* method "optimal": a job (api_jobs.c) for a 3×3 given by its facelets,
 * answered 202 at once. max_length bounds the search (the job fails if
 * the optimum is longer); timeout_ms is the job's time limit, up to
 * --max-job-s. */
static void post_optimal(const struct api_config *cfg,
			 const struct api_request *rq, const json_t *body,
			 struct api_reply *rp)
{
	const json_t *jl = json_object_get(body, "max_length");
	const json_t *jt = json_object_get(body, "timeout_ms");
	struct job_request jr;
	memset(&jr, 0, sizeof jr);
	json_int_t max_length = 20, timeout_ms = 0;
	if (api__int_range(rp, jl, "max_length", 0, MAX_LENGTH_ARG, &max_length,
			   "max_length is from 0 to %d", MAX_LENGTH_ARG) < 0 ||
	    api__int_range(rp, jt, "timeout_ms", 1,
			   api__clamp_int(cfg->max_job_ms), &timeout_ms,
			   "an optimal solve's timeout_ms is from 1 to "
			   "%" PRIu64 " (--max-job-s)", cfg->max_job_ms) < 0)
		return;
	/* God's number: no optimal solution is longer */
	jr.max_length = max_length > 20 ? 20 : (int)max_length;
	if (jt)
		jr.time_limit_ms = (uint64_t)timeout_ms;
	if (json_object_get(body, "target")) {
		api__bad_field(rp, PROBLEM_NOT_APPLICABLE, "target",
			       "method \"optimal\" solves the whole cube; "
			       "solving to a pattern is the default method's");
		return;
	}
	cube_t *c = api__start_state(0, json_object_get(body, "facelets"), rp);
	if (!c)
		return;
	struct repr_cubies cub;
	int rc = api__cubies_of(c, "facelets", &cub, rp);
	free(c);
	if (rc < 0)
		return;
	jr.cube = cub.c3;
	jr.orient = cub.orient;
	api__job_submit(cfg, rq, &jr, rp);
}

/* Solve as a asks: 0 with *s the answer, or -1 with rp the problem
 * (s freed either way by the caller: svc_answer_free). */
static int run_solve(const struct api_config *cfg,
		     const struct svc_request *a, struct svc_answer *s,
		     struct api_reply *rp)
{
	struct svc_env env = env_of(cfg);
	struct svc_error e;
	if (svc_solve(&env, a, s, &e) == 0)
		return 0;
	solve_problem(cfg, &e, rp);
	svc_error_free(&e);
	return -1;
}

/* The 200 reply of a solve of c as a asks, or its problem. */
static void post_solve_reply(const struct api_config *cfg, const cube_t *c,
			     const struct svc_request *a,
			     struct api_reply *rp)
{
	struct svc_answer *s = malloc(sizeof *s);
	if (!s) {
		problem_reply(rp, PROBLEM_OUT_OF_MEMORY, "out of memory");
		return;
	}
	if (run_solve(cfg, a, s, rp) < 0) {
		free(s);
		return;
	}
	json_t *o = json_pack("{s:i, s:s, s:s, s:o, s:i, s:f, s:o}", "size",
			      s->n, "method", s->method, "via", s->via,
			      "solution",
			      moves_text(svc_moves(s), s->count, s->n),
			      "length", s->count, "elapsed_ms", s->elapsed_ms,
			      "orientation", repr_orientation(&s->orient));
	if (o && s->n <= 3 && strcmp(s->method, "beginner") != 0)
		json_object_set_new(o, "optimal", json_boolean(s->optimal));
	if (o && s->big) {
		json_object_set_new(o, "stages", reduce_stages_json(s));
		json_object_set_new(o, "oll_parity",
				    json_integer(s->reduced.oll_parity));
		json_object_set_new(o, "pll_parity",
				    json_boolean(s->reduced.pll_parity));
	}
	if (o && a->target) {
		json_object_set_new(o, "target",
				    json_stringn(a->target, a->target_len));
		json_object_set_new(o, "optimal", json_boolean(s->optimal));
	}
	if (o && strcmp(s->method, "beginner") == 0)
		json_object_set_new(o, "stages", stages_json(s, c));
	svc_answer_free(s);
	free(s);
	api_reply_json(rp, 200, o);
}

void api__post_solve(const struct api_config *cfg, const struct api_request *rq,
		     const struct api_args *a, struct api_reply *rp)
{
	static const struct api__field fields[] = {
		{"facelets", FIELD_STRING, 1}, {"method", FIELD_STRING, 0},
		{"max_length", FIELD_INT, 0},  {"timeout_ms", FIELD_INT, 0},
		{"target", FIELD_STRING, 0},   {"effort", FIELD_INT, 0},
	};
	if (api__check_fields(a->body, NULL, fields, 6, rp) < 0)
		return;
	const json_t *jm = json_object_get(a->body, "method");
	const json_t *jf = json_object_get(a->body, "facelets");
	/* optimal on a 3×3 is a job; on a 2×2 it is the default search, and
	 * on a bigger cube the size's method check refuses it */
	if (jm && strcmp(json_string_value(jm), "optimal") == 0 &&
	    json_string_length(jf) == 54) {
		post_optimal(cfg, rq, a->body, rp);
		return;
	}
	const json_t *jl = json_object_get(a->body, "max_length");
	const json_t *jt = json_object_get(a->body, "timeout_ms");
	const json_t *jg = json_object_get(a->body, "target");
	const json_t *je = json_object_get(a->body, "effort");
	json_int_t max_length = 21, timeout_ms = 1000, effort = 0;
	if (api__int_range(rp, jl, "max_length", 0, MAX_LENGTH_ARG, &max_length,
			   "max_length is from 0 to %d", MAX_LENGTH_ARG) < 0 ||
	    api__int_range(rp, jt, "timeout_ms", 1,
			   api__clamp_int(cfg->max_solve_ms), &timeout_ms,
			   "timeout_ms is from 1 to %" PRIu64 " (--max-solve-ms)",
			   cfg->max_solve_ms) < 0 ||
	    api__int_range(rp, je, "effort", 1, REDUCE_MAX_EFFORT, &effort,
			   "effort is from 1 to %d", REDUCE_MAX_EFFORT) < 0)
		return;
	cube_t *c = api__start_state(0, jf, rp);
	if (!c)
		return;
	struct svc_request sa = {
		.c = c, .method = jm ? json_string_value(jm) : NULL,
		.max_length = (int)max_length, .max_given = jl != NULL,
		.timeout_ms = (int)timeout_ms, .timeout_given = jt != NULL,
		.target = jg ? json_string_value(jg) : NULL,
		.target_len = jg ? json_string_length(jg) : 0,
		.field = "facelets", .effort = (int)effort,
	};
	struct solve_job *j = solve_job_new(c, &sa);
	if (!j) {
		free(c);
		problem_reply(rp, PROBLEM_OUT_OF_MEMORY, "out of memory");
		return;
	}
	solve_offload(cfg, rq, j, rp);
}

/* ---- session solves --------------------------------------------------- */


static json_t *solve_json(const char *sid, const struct store_solve *s)
{
	return json_pack("{s:I, s:s, s:I, s:s, s:s, s:i, s:f, s:o}", "id",
			 (json_int_t)s->id, "session_id", sid, "version",
			 (json_int_t)s->version, "method", s->method,
			 "solution", s->solution, "length", s->length,
			 "elapsed_ms", s->elapsed_ms, "created_at",
			 timefmt_json(s->created_at));
}

/* A session's optimal solve: a job (202) that stores its solution with
 * the session's solves when it is done. */
static void session_optimal(const struct api_config *cfg,
			    const struct api_request *rq, const char *id,
			    const struct session_view *v, struct api_reply *rp)
{
	if (v->size != 3) {
		api__bad_field(rp, PROBLEM_METHOD_UNAVAILABLE, "method",
			       "method \"optimal\" is for 3×3 cubes; this "
			       "session's is %d×%d",
			       v->size, v->size);
		return;
	}
	struct job_request jr;
	memset(&jr, 0, sizeof jr);
	jr.max_length = 20;
	struct repr_cubies cub;
	size_t len = strlen(v->facelets);
	if (len != 54 ||
	    repr_cubies_from_facelets(v->facelets, len, &cub) < 0) {
		problem_reply(rp, PROBLEM_INTERNAL_ERROR,
			      "a stored state could not be read");
		return;
	}
	jr.cube = cub.c3;
	jr.orient = cub.orient;
	snprintf(jr.session_id, sizeof jr.session_id, "%s", id);
	jr.version = v->version;
	memcpy(jr.facelets, v->facelets, 54);
	api__job_submit(cfg, rq, &jr, rp);
	if (rp->status == 202)
		api_reply_header(rp, "ETag", "\"v%" PRId64 "\"", v->version);
}

/* Solve a session's cube (j: its id, version and state) and store the
 * solve with the session's: 201 with it, or the problem. */
static void session_solve_reply(const struct api_config *cfg,
				struct solve_job *j, struct api_reply *rp)
{
	const char *id = j->sid;
	struct svc_answer *s = malloc(sizeof *s);
	int rc = s ? run_solve(cfg, &j->a, s, rp) : -1;
	if (rc < 0) {
		if (!s)
			problem_reply(rp, PROBLEM_OUT_OF_MEMORY,
				      "out of memory");
		free(s);
		return;
	}
	size_t need = moves_print(svc_moves(s), (size_t)s->count, s->n,
				  NULL, 0);
	char *text = malloc(need + 1);
	if (!text) {
		svc_answer_free(s);
		free(s);
		problem_reply(rp, PROBLEM_OUT_OF_MEMORY, "out of memory");
		return;
	}
	moves_print(svc_moves(s), (size_t)s->count, s->n, text, need + 1);
	struct store_solve sv = {
		.version = j->version, .solution = text, .length = s->count,
		.elapsed_ms = s->elapsed_ms,
	};
	snprintf(sv.method, sizeof sv.method, "%s", s->method);
	svc_answer_free(s);
	free(s);
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	sv.created_at = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	int src = sessions_add_solve(cfg->sessions, id, &sv, j->facelets,
				     j->has_idem ? &j->idem : NULL);
	text = sv.solution; /* a replay's is the stored solve's */
	if (src != SES_OK) {
		free(text);
		/* a storage fault or a stop says what it is (507/503 with
		 * Retry-After); anything else is the database failing */
		if (src == SES_STORE_FULL || src == SES_STORE_BUSY ||
		    src == SES_STORAGE_CAP || src == SES_STORE_DOWN ||
		    src == SES_UNAVAILABLE || src == SES_SHUTDOWN ||
		    src == SES_NOMEM)
			api__session_problem(rp, src, NULL);
		else
			problem_reply(rp, PROBLEM_DATABASE,
				      "the solve could not be stored");
		return;
	}
	api_reply_json(rp, 201, solve_json(id, &sv));
	free(text);
	api_reply_header(rp, "ETag", "\"v%" PRId64 "\"", sv.version);
	if (j->has_idem && rp->status == 201)
		rp->idem = j->idem.replayed ? IDEM_STORED_REPLAY : IDEM_STORED;
}

void api__session_solve(const struct api_config *cfg,
			const struct api_request *rq, const struct api_args *a,
			struct api_reply *rp)
{
	const char *method = NULL;
	if (a->body) {
		static const struct api__field fields[] = {
			{"method", FIELD_STRING, 0},
		};
		if (api__check_fields(a->body, NULL, fields, 1, rp) < 0)
			return;
		const json_t *jm = json_object_get(a->body, "method");
		method = jm ? json_string_value(jm) : NULL;
	}
	struct session_view v;
	if (api__session_read(cfg, a->id, -1, a->token, &v, rp) < 0)
		return;
	if (method && strcmp(method, "optimal") == 0) {
		session_optimal(cfg, rq, a->id, &v, rp);
		session_view_free(&v);
		return;
	}
	cube_t *c = malloc(cube_sizeof(v.size));
	if (!c || cube_from_facelets(c, v.size, v.facelets, strlen(v.facelets),
				     NULL) < 0) {
		free(c);
		session_view_free(&v);
		problem_reply(rp, PROBLEM_INTERNAL_ERROR,
			      "a stored state could not be read");
		return;
	}
	/* a session's solve is a default solve: anytime, the server's
	 * longest budget for the search for a shorter answer */
	struct svc_request sa = {
		.c = c, .method = method, .max_length = 21,
		.field = "session",
	};
	/* solved and stored on a pool worker, or here if there is none */
	struct solve_job *j = solve_job_new(c, &sa);
	if (j)
		j->facelets = strdup(v.facelets);
	if (!j || !j->facelets) {
		if (j)
			solve_job_free(j);
		else
			free(c);
		session_view_free(&v);
		problem_reply(rp, PROBLEM_OUT_OF_MEMORY, "out of memory");
		return;
	}
	j->session = 1;
	snprintf(j->sid, sizeof j->sid, "%s", a->id);
	j->version = v.version;
	if (a->idem) {
		j->idem = *a->idem;
		j->has_idem = 1;
	}
	session_view_free(&v);
	solve_offload(cfg, rq, j, rp);
}

void api__session_solves(const struct api_config *cfg,
			 const struct api_request *rq, const struct api_args *a,
			 struct api_reply *rp)
{
	static const char *const allowed[] = {"after", "limit", NULL};
	struct api__query q;
	if (api__query_parse(rq->query, allowed, &q, rp) < 0)
		return;
	int64_t after = 0, limit = 100;
	if (api__query_int(&q, "after", &after, rp) < 0 ||
	    api__query_int(&q, "limit", &limit, rp) < 0)
		return;
	if (limit < 1 || limit > 1000) {
		json_t *p = api__bad_field(rp, PROBLEM_VALUE_OUT_OF_RANGE, "limit",
					   "limit is from 1 to 1000");
		if (p)
			json_object_set_new(p, "limit", json_integer(1000));
		return;
	}
	struct session_view v;
	if (api__session_read(cfg, a->id, -1, a->token, &v, rp) < 0)
		return;
	session_view_free(&v);
	struct store_solve *sv = malloc((size_t)(limit + 1) * sizeof *sv);
	int k = sv ? sessions_solves(cfg->sessions, a->id, after, sv,
				     (int)limit + 1)
		   : SES_NOMEM;
	if (k < 0) {
		if (k == SES_STORE)
			problem_reply(rp, PROBLEM_DATABASE,
				      "the solves could not be read");
		else
			api__session_problem(rp, k, NULL);
		free(sv);
		return;
	}
	json_t *arr = json_array();
	int shown = k > limit ? (int)limit : k;
	for (int i = 0; i < shown; i++)
		json_array_append_new(arr, solve_json(a->id, &sv[i]));
	json_t *next = k > limit ? json_integer(sv[shown - 1].id) : json_null();
	for (int i = 0; i < k; i++)
		store_solve_free(&sv[i]);
	free(sv);
	api_reply_json(rp, 200, json_pack("{s:o, s:o}", "solves", arr, "next",
					  next));
}
