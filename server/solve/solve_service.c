/* solve_service.c — which solver answers a solve, and with what budget
 * (see solve_service.h). A cube given in any whole-cube orientation is
 * solved in the frame it was given in: the moves name the faces as the
 * caller holds the cube. Cubes of 4 to REDUCE_MAX_N layers are solved by
 * reduction (no rotations, so the answer is already in that frame). */
#include "solve_service.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "optimal.h"
#include "pattern.h"
#include "repr.h"
#include "solve.h"
#include "solver.h"
#include "utf8.h"

/* The default budget of a reduction that weighs several variants (4×4 to
 * 7×7): a few seconds, within the server's maximum. */
#define REDUCE_DEFAULT_MS 3000
/* The default budget of a 2×2 or 3×3 solve. */
#define SMALL_DEFAULT_MS 1000
/* A reduction's last sixth of its time, at least HURRY_MS of it: the 4×4
 * and 5×5 phases end there with what they have, or leave that time to the
 * stage-by-stage reduction (one pass about 150 ms here). */
#define HURRY_MS 500
/* The near search's nodes at most: a state within SVC_NEAR_DEPTH moves
 * needs far fewer with the level-0 tables; a farther one stops here and
 * keeps two-phase's answer. */
#define NEAR_NODES 400000

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

const cube_move *svc_moves(const struct svc_answer *a)
{
	return a->big ? a->big : a->moves;
}

void svc_answer_free(struct svc_answer *a)
{
	free(a->big);
	a->big = NULL;
}

void svc_error_free(struct svc_error *e)
{
	json_decref(e->errors);
	e->errors = NULL;
}

static void fail(struct svc_error *e, enum problem row, const char *field,
		 const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;

static void fail(struct svc_error *e, enum problem row, const char *field,
		 const char *fmt, ...)
{
	e->row = row;
	e->field = field;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->detail, sizeof e->detail, fmt, ap);
	va_end(ap);
}

int svc_default_budget(const struct svc_env *env, int n, int effort)
{
	int most = env->max_solve_ms > 0x7fffffff ? 0x7fffffff
						  : (int)env->max_solve_ms;
	if (n < REDUCE_MIN_N)
		return most < SMALL_DEFAULT_MS ? most : SMALL_DEFAULT_MS;
	if (effort > 1 || reduce_variants(n) <= 1 || most < REDUCE_DEFAULT_MS)
		return most;
	return REDUCE_DEFAULT_MS;
}

/* ---- the clock ---------------------------------------------------------- */

struct clock {
	double until;     /* the deadline; 0: none (anytime) */
	double hurry_at;  /* reductions: reduce_limits.hurry */
	const struct svc_request *rq;
	uint64_t nodes;   /* the near search's polls, and its cap */
	uint64_t max_nodes;
	int stopped;      /* the poll said stop */
};

static int caller_gone(const struct clock *k)
{
	return k->rq->stop && k->rq->stop(k->rq->stop_ctx);
}

static int poll_clock(void *ctx, uint64_t done, uint64_t total)
{
	(void)done;
	(void)total;
	struct clock *k = ctx;
	if ((k->until > 0 && now_ms() > k->until) || caller_gone(k))
		k->stopped = 1;
	return k->stopped;
}

static int stop_only(void *ctx)
{
	struct clock *k = ctx;
	if (caller_gone(k))
		k->stopped = 1;
	return k->stopped;
}

static int hurry_clock(void *ctx)
{
	const struct clock *k = ctx;
	return now_ms() > k->hurry_at;
}

/* The near search's poll (optimal_solve's, every few thousand nodes):
 * its node cap, the deadline, the caller. */
static int poll_near(void *ctx, uint64_t done, uint64_t total)
{
	struct clock *k = ctx;
	if (++k->nodes > k->max_nodes)
		k->stopped = 1;
	return poll_clock(ctx, done, total);
}

/* ---- a target ------------------------------------------------------------ */

/* The target of a 3×3 solve: one of the 3×3 pattern names, or a pattern
 * text of 54 places (one that spells a named pattern gets its tables).
 * *owned is the compiled text (the caller frees it), one the array of one
 * part that t points into. */
static int target_arg(const char *s, size_t len, target_spec *t,
		      pattern_t **owned, const pattern_t **one,
		      struct svc_error *e)
{
	memset(t, 0, sizeof *t);
	*owned = NULL;
	const pattern_named *pn =
		strlen(s) == len ? pattern_named_find(3, s) : NULL;
	if (pn && pn->nparts == 1) {
		t->name = pn->name;
		return 0;
	}
	if (len != 54) {
		char shown[72];
		utf8_clean(shown, sizeof shown, s, len);
		fail(e, PROBLEM_UNKNOWN_PATTERN, "target",
		     "target \"%s\" is neither a pattern of 54 places nor a "
		     "3×3 pattern name (solved, cross, first_layer, f2l, eo, "
		     "oll, pll)",
		     shown);
		return -1;
	}
	t->name = target_name_of_text(s, len);
	if (t->name)
		return 0;
	*owned = malloc(pattern_sizeof(3, s, len));
	if (!*owned) {
		fail(e, PROBLEM_OUT_OF_MEMORY, NULL, "out of memory for the "
		     "target");
		return -1;
	}
	pattern_error pe = {0};
	if (pattern_compile(*owned, 3, s, len, &pe) < 0) {
		free(*owned);
		*owned = NULL;
		/* every byte before the offset is an ASCII place */
		unsigned char ch = (unsigned char)s[pe.offset];
		if (ch >= 0x20 && ch < 0x7f)
			fail(e, PROBLEM_PATTERN_CORE, "target",
			     "target has \"%c\" at offset %zu; a place is one "
			     "of U R F D L B, a digit 1 to 6 or *",
			     ch, pe.offset);
		else
			fail(e, PROBLEM_PATTERN_CORE, "target",
			     "target has the byte 0x%02x at offset %zu; a "
			     "place is one of U R F D L B, a digit 1 to 6 or *",
			     ch, pe.offset);
		e->core = pe.code;
		e->offset = (long)pe.offset;
		return -1;
	}
	*one = *owned;
	t->parts = one;
	t->nparts = 1;
	return 0;
}

/* The cubie form of c (a 2×2 or 3×3), or PROBLEM_INVALID_CUBE with every
 * problem validation finds. */
static int cubies_of(const cube_t *c, const char *field,
		     struct repr_cubies *out, struct svc_error *e)
{
	json_t *errors;
	int rcode = repr_cubies_of_cube(c, out, &errors);
	if (rcode == CUBE_OK)
		return 0;
	if (errors == NULL) {
		fail(e, PROBLEM_INTERNAL_CORE, NULL,
		     "reading the cubies of a %d×%d failed (%s), but "
		     "validation finds nothing wrong",
		     c->n, c->n, cube_strerror(rcode));
		e->core = rcode;
		return -1;
	}
	e->row = PROBLEM_INVALID_CUBE;
	e->field = field;
	e->errors = errors;
	return -1;
}

/* The table t, or PROBLEM_TABLES_NOT_READY (api/ adds the state and
 * Retry-After). */
static int table_or_fail(const struct svc_env *env, int t, const void **out,
			 struct svc_error *e)
{
	*out = solver_table(env->solver, (enum solver_table)t);
	if (*out)
		return 0;
	e->row = PROBLEM_TABLES_NOT_READY;
	e->tables = t;
	return -1;
}

/* ---- big cubes ----------------------------------------------------------- */

static int solve_big(const struct svc_env *env, const struct svc_request *rq,
		     struct svc_answer *out, struct svc_error *e)
{
	const cube_t *c = rq->c;
	int n = c->n;
	const char *method = rq->method ? rq->method : "reduction";
	if (strcmp(method, "reduction") != 0) {
		fail(e, PROBLEM_METHOD_UNAVAILABLE, "method",
		     "method \"%.20s\" is not available for a %d×%d cube; use "
		     "\"reduction\"",
		     method, n, n);
		return -1;
	}
	out->method = "reduction";
	if (rq->target) {
		fail(e, PROBLEM_NOT_APPLICABLE, "target",
		     "solving to a pattern is for 3×3 cubes");
		return -1;
	}
	if (n > REDUCE_MAX_N) {
		fail(e, PROBLEM_NOT_APPLICABLE, rq->field,
		     "this server solves cubes up to %d×%d; this one is %d×%d",
		     REDUCE_MAX_N, REDUCE_MAX_N, n, n);
		return -1;
	}
	size_t len = 6 * (size_t)n * (size_t)n;
	char *s = malloc(len);
	if (!s) {
		fail(e, PROBLEM_OUT_OF_MEMORY, NULL, "out of memory");
		return -1;
	}
	cube_to_facelets(c, s);
	cube_validation_result vr;
	json_t *errors = repr_validation_errors(s, len, REPR_MAX_ERRORS, &vr);
	free(s);
	if (errors && vr.count > 0) {
		e->row = PROBLEM_INVALID_CUBE;
		e->field = rq->field;
		e->errors = errors;
		return -1;
	}
	json_decref(errors);
	const void *tables;
	if (table_or_fail(env, SOLVER_3X3, &tables, e) < 0)
		return -1;
	size_t ws = reduce_work_size(n), cap = reduce_max_moves(n);
	void *work = malloc(ws);
	out->big = malloc(cap * sizeof *out->big);
	if (!work || !out->big) {
		free(work);
		fail(e, PROBLEM_OUT_OF_MEMORY, NULL, "out of memory");
		return -1;
	}
	int budget = rq->timeout_given ? rq->timeout_ms
				       : svc_default_budget(env, n, rq->effort);
	out->budget_ms = budget;
	double t0 = now_ms();
	/* effort 2 and 3 where their one wide pass eases off when hurried
	 * (reduce_limits.hurry): at half the budget, so that what is left
	 * of the pass at the default's pace fits in the other half (33×33:
	 * 5.5 s at the default, 10.5 s wide on a slow machine here; hurried
	 * at 5 s of 10 it answers in about 8) */
	int ease = rq->effort > 1 && n >= REDUCE_EASE_MIN_N &&
		   n <= REDUCE_EASE_MAX_N;
	double spare = budget / 6.0 > HURRY_MS ? budget / 6.0 : HURRY_MS;
	struct clock k = {
		.until = t0 + budget, .rq = rq,
		.hurry_at = ease ? t0 + budget / 2.0
			  : spare < budget ? t0 + budget - spare : t0,
	};
	const void *four = n == 4 ? solver_four_tables(env->solver) : NULL;
	const void *five = n == 5 ? solver_five_tables(env->solver) : NULL;
	reduce_limits lim = {
		.poll = poll_clock, .ctx = &k, .hurry = hurry_clock,
		.stage_tables = solver_stage_tables(env->solver),
		.effort = rq->effort, .budget_ms = (unsigned)budget,
		.four_tables = four, .five_tables = five,
		/* anytime unless the caller named a budget: the deadline
		 * bounds the search for a shorter answer, not whether
		 * there is one */
		.stop = rq->timeout_given ? NULL : stop_only,
	};
	int got = reduce_solve(tables, c, &lim, work, ws, out->big, cap,
			       &out->reduced);
	out->elapsed_ms = now_ms() - t0;
	free(work);
	if (got == SOLVE_ENOTFOUND) {
		fail(e, PROBLEM_NO_SOLUTION_FOUND, "timeout_ms",
		     k.stopped && caller_gone(&k)
			     ? "the reduction was stopped"
			     : "the reduction did not finish in %d ms",
		     budget);
		e->best_length = -1;
		return -1;
	}
	if (got == CUBE_EINVALID) {
		/* validation reads no wings: the solver found one that is
		 * not a real piece, or one twice */
		fail(e, PROBLEM_INVALID_CUBE, rq->field,
		     "the %s %s not a legal cube: the stickers of an edge do "
		     "not form each wing piece once (a wing flipped in place, "
		     "or one twice)",
		     rq->field,
		     strcmp(rq->field, "facelets") == 0 ? "are" : "is");
		e->errors = json_array();
		return -1;
	}
	if (got < 0) {
		fail(e, PROBLEM_SOLVER, NULL, "the solver failed: %s",
		     solve_strerror(got));
		return -1;
	}
	out->count = got;
	out->orient = out->reduced.orient;
	/* the 4×4 and 5×5 phases leave their marks in the centers' steps
	 * (zero when they solved the centers) */
	int phased = (four || five) && out->reduced.center_steps[0] == 0 &&
		     out->reduced.center_steps[1] == 0 &&
		     out->reduced.center_steps[2] == 0 &&
		     out->reduced.center_steps[3] == 0;
	out->via = phased ? "phases" : "stages";
	return 0;
}

/* ---- 2×2 and 3×3 ----------------------------------------------------------- */

/* A 3×3's default answer made optimal where the state is near solved: an
 * optimal search bounded to SVC_NEAR_DEPTH moves and one under the
 * answer in hand (count moves), capped in nodes. */
static void near_search(const struct svc_env *env, const struct svc_request *rq,
			const cubie3 *c3, struct svc_answer *out,
			double until)
{
	if (out->count <= 1) {
		/* an unsolved cube needs a move at least */
		out->optimal = 1;
		return;
	}
	const void *near = solver_near(env->solver);
	if (!near)
		return;
	int depth = out->count - 1 < SVC_NEAR_DEPTH ? out->count - 1
						    : SVC_NEAR_DEPTH;
	struct clock k = {.until = until, .rq = rq, .max_nodes = NEAR_NODES};
	optimal_limits ol = {.max_length = depth, .poll = poll_near,
			     .ctx = &k};
	cube_move m[SVC_NEAR_DEPTH];
	int got = optimal_solve(near, c3, &ol, m, SVC_NEAR_DEPTH);
	if (got >= 0) {
		memcpy(out->moves, m, (size_t)got * sizeof *m);
		out->count = got;
		out->via = "optimal_search";
		out->optimal = 1;
	} else if (got == SOLVE_ENOTFOUND && !k.stopped &&
		   depth == out->count - 1) {
		/* every answer shorter than the one in hand ruled out */
		out->optimal = 1;
	}
}

static int solve_small(const struct svc_env *env, const struct svc_request *rq,
		       struct svc_answer *out, struct svc_error *e)
{
	const cube_t *c = rq->c;
	int n = c->n;
	if (rq->effort) {
		fail(e, PROBLEM_NOT_APPLICABLE, "effort",
		     "effort is for cubes of 4 or more layers (the "
		     "reduction)");
		return -1;
	}
	const char *def = n == 2 ? "optimal" : "twophase";
	const char *method = rq->method ? rq->method : def;
	int beginner = n == 3 && strcmp(method, "beginner") == 0;
	if (strcmp(method, def) != 0 && !beginner) {
		fail(e, PROBLEM_METHOD_UNAVAILABLE, "method",
		     "method \"%.20s\" is not available for a %d×%d cube; use "
		     "%s",
		     method, n, n,
		     n == 2 ? "\"optimal\"" : "\"twophase\" or \"beginner\"");
		return -1;
	}
	out->method = beginner ? "beginner" : def;
	if (rq->target && n != 3) {
		fail(e, PROBLEM_NOT_APPLICABLE, "target",
		     "solving to a pattern is for 3×3 cubes");
		return -1;
	}
	target_spec ts;
	pattern_t *owned = NULL;
	const pattern_t *one[1];
	if (rq->target &&
	    target_arg(rq->target, rq->target_len, &ts, &owned, one, e) < 0)
		return -1;
	int rc = -1, got = 0;
	struct repr_cubies cub;
	const void *tables = NULL, *btables = NULL;
	if (cubies_of(c, rq->field, &cub, e) < 0)
		goto done;
	out->orient = cub.orient;
	if (beginner || rq->target) {
		btables = solver_beginner(env->solver);
		if (!btables) {
			e->row = PROBLEM_TABLES_NOT_READY;
			e->tables = SVC_BEGINNER_TABLES;
			goto done;
		}
		/* a target search falls back on two-phase prefixes when
		 * those tables are ready, and needs them not */
		if (!beginner)
			tables = solver_table(env->solver, SOLVER_3X3);
	} else if (table_or_fail(env, n == 3 ? SOLVER_3X3 : SOLVER_2X2, &tables,
				 e) < 0) {
		goto done;
	}
	int budget = rq->timeout_given ? rq->timeout_ms
				       : svc_default_budget(env, n, 0);
	int max_length = rq->max_given ? rq->max_length : 21;
	out->budget_ms = budget;
	double t0 = now_ms();
	struct clock k = {.until = t0 + budget, .rq = rq};
	if (rq->target) {
		target_limits lim = {
			.max_length = rq->max_given ? rq->max_length : 0,
			.poll = poll_clock, .ctx = &k,
			.twophase = tables, .beginner_only = beginner,
		};
		target_result res;
		got = target_solve(btables, &ts, &cub.c3, &lim, out->moves,
				   SVC_MAX_MOVES, &res);
		if (rq->max_given && got > rq->max_length)
			got = SOLVE_ENOTFOUND;
		if (got >= 0 && beginner) {
			out->nstages = res.stages;
			memcpy(out->stages, res.stage, sizeof res.stage);
		}
		out->optimal = got >= 0 && res.optimal;
		out->via = res.via == TARGET_VIA_SEARCH	   ? "search"
			   : res.via == TARGET_VIA_BEGINNER ? "beginner"
							    : "twophase";
	} else if (beginner) {
		/* max_length bounds searches; this is not one */
		got = beginner_solve(btables, &cub.c3, out->moves,
				     SVC_MAX_MOVES, out->stages);
		out->nstages = BEGINNER_STAGES;
		out->via = "beginner";
	} else if (n == 3 && max_length == 0) {
		/* core reads a 0 limit as its default (21): only a solved
		 * cube has a 0-move solution */
		cubie3 id;
		cubie3_solved(&id);
		got = memcmp(&id, &cub.c3, sizeof id) == 0 ? 0
							   : SOLVE_ENOTFOUND;
		out->via = "twophase";
		out->optimal = got == 0;
	} else if (n == 3) {
		/* anytime unless the caller named a budget or a length: a
		 * solution of at most 20 moves is always there, and found
		 * in well under a millisecond on a quiet machine */
		if (!rq->timeout_given && !rq->max_given)
			k.until = 0;
		solve_limits lim = {
			.max_length = max_length,
			.target_length = max_length < 20 ? max_length : 20,
			.poll = poll_clock, .ctx = &k,
		};
		got = twophase_solve(tables, &cub.c3, &lim, out->moves,
				     SVC_MAX_MOVES);
		out->via = "twophase";
		out->optimal = got == 0;
		if (got > 0) {
			out->count = got;
			near_search(env, rq, &cub.c3, out,
				    rq->timeout_given ? t0 + budget : 0);
			got = out->count;
		}
	} else {
		got = solve2_optimal(tables, &cub.c2, out->moves,
				     SVC_MAX_MOVES);
		out->via = "search";
		out->optimal = got >= 0;
		if (got > max_length) {
			e->best_length = got;
			got = SOLVE_ENOTFOUND;
		}
	}
	out->elapsed_ms = now_ms() - t0;
	if (got == SOLVE_ENOTFOUND) {
		if (rq->target && !rq->max_given) {
			fail(e, PROBLEM_NO_SOLUTION_FOUND, "target",
			     "no moves reaching the target were found in %d ms",
			     budget);
			e->best_length = -1;
			goto done;
		}
		if (n == 3 && !rq->target && !beginner) {
			/* the best the server can give, as the answer says */
			struct clock q = {.rq = rq};
			solve_limits best = {.max_length = 21,
					     .target_length = 20,
					     .poll = poll_clock, .ctx = &q};
			cube_move m[SVC_MAX_MOVES];
			int b = twophase_solve(tables, &cub.c3, &best, m,
					       SVC_MAX_MOVES);
			e->best_length = b >= 0 ? b : -1;
		} else if (n != 2) {
			e->best_length = -1;
		}
		if (e->best_length >= 0)
			fail(e, PROBLEM_NO_SOLUTION_FOUND, "max_length",
			     "no solution of at most %d moves was found in %d "
			     "ms; the shortest found has %d",
			     max_length, budget, e->best_length);
		else
			fail(e, PROBLEM_NO_SOLUTION_FOUND, "max_length",
			     "no solution of at most %d moves was found in %d "
			     "ms",
			     max_length, budget);
		goto done;
	}
	if (got < 0) {
		fail(e, PROBLEM_SOLVER, NULL, "the solver failed: %s",
		     solve_strerror(got));
		goto done;
	}
	repr_moves_to_frame(out->moves, got, n, &out->orient);
	out->count = got;
	rc = 0;
done:
	free(owned);
	return rc;
}

int svc_solve(const struct svc_env *env, const struct svc_request *rq,
	      struct svc_answer *out, struct svc_error *e)
{
	memset(out, 0, sizeof *out);
	memset(e, 0, sizeof *e);
	e->offset = -1;
	e->best_length = -1;
	int n = rq->c->n;
	out->n = n;
	if (n == 1) {
		fail(e, PROBLEM_NOT_APPLICABLE, rq->field,
		     "this server solves cubes of 2 or more layers, not 1×1 (a "
		     "1×1 only needs turning to face the right way)");
		return -1;
	}
	int rc = n >= REDUCE_MIN_N ? solve_big(env, rq, out, e)
				   : solve_small(env, rq, out, e);
	if (rc < 0)
		svc_answer_free(out);
	return rc;
}
