/* solve_service.h — which solver answers a solve, decided in one place:
 * the size, the method and the target a caller names become one of the
 * core's solvers (2×2 optimal, 3×3 two-phase, the beginner method, a
 * target search, the reduction of a big cube), run with the tables of the
 * background solver (solver.h) and a time budget. The HTTP routes (a solve,
 * a session's solve, a scramble) call it and turn its answer or its error
 * into a reply; nothing here builds one.
 *
 * Default solves are anytime: with no timeout_ms and no max_length from
 * the caller, a slow or busy machine only makes the answer longer, never
 * absent (the reduction keeps its first answer, two-phase searches on
 * until it has one), and only a cancelled caller ends a solve without an
 * answer. A 3×3's default answer is optimal when the state is within
 * SVC_NEAR_DEPTH moves of solved and the optimal solver's small tables are
 * ready (solver_near): a search bounded to that depth runs after two-phase.
 * An explicit budget or max_length that is too tight is the only way to
 * PROBLEM_NO_SOLUTION_FOUND, whose error names the best length reached. */
#ifndef CUBED_SOLVE_SERVICE_H
#define CUBED_SOLVE_SERVICE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "beginner.h"
#include "cube.h"
#include "errors.h"
#include "reduce.h"

struct solver;

/* The longest answer a 2×2 or 3×3 solve can give: a beginner solution (a
 * search's is at most 30). */
#define SVC_MAX_MOVES BEGINNER_MAX_MOVES
/* The largest max_length a caller may name. */
#define SVC_MAX_LENGTH_ARG 30
/* A 3×3 within this many moves of solved gets an optimal default answer
 * (when the near tables are ready). */
#define SVC_NEAR_DEPTH 12

/* What every solve shares: the tables and the server's limits. */
struct svc_env {
	struct solver *solver;
	uint64_t max_solve_ms; /* --max-solve-ms: the longest budget */
};

/* One solve as a caller asks it. */
struct svc_request {
	const cube_t *c;
	const char *method;  /* NULL: the size's default */
	int max_length;      /* with max_given */
	int max_given;       /* the caller named max_length */
	int timeout_ms;      /* with timeout_given */
	int timeout_given;   /* the caller named timeout_ms */
	const char *target;  /* NULL: solve; else target_len bytes */
	size_t target_len;
	const char *field;   /* the request field that holds the state */
	int effort;          /* reduction: reduce_limits.effort (0: default) */
	/* the caller gave up (a client gone, a server stopping): ends any
	 * solve at once, answer or not; NULL never */
	int (*stop)(void *ctx);
	void *stop_ctx;
};

/* An answer. */
struct svc_answer {
	int n;
	const char *method; /* "optimal" (2×2), "twophase", "beginner",
			     * "reduction" */
	const char *via;    /* what made the answer within the method:
			     * 2×2 "search"; 3×3 "twophase", or
			     * "optimal_search" when the near search found
			     * it (then optimal is 1); a target "search",
			     * "beginner" or "twophase"; a 4×4 or 5×5
			     * "phases" (with their tables) or "stages" (the
			     * stage-by-stage reduction, until the tables
			     * are ready or when a slow machine hurries
			     * it); bigger cubes "stages" */
	cube_move moves[SVC_MAX_MOVES];
	int count;
	double elapsed_ms;
	int nstages; /* the beginner method's stages (moves index moves[]) */
	beginner_stage stages[BEGINNER_STAGES];
	int optimal;          /* no shorter answer exists (proved) */
	cube_move *big;       /* reduction: the moves (malloc'd), else NULL */
	reduce_result reduced;
	cube_orientation orient; /* the frame the moves are in */
	int budget_ms;        /* the time the solve was given */
};

/* The moves of an answer, wherever they live. */
const cube_move *svc_moves(const struct svc_answer *a);
/* Let go of what an answer holds (not a itself). */
void svc_answer_free(struct svc_answer *a);

/* Why a solve has no answer: a row of errors.def and what its reply
 * says (api/ builds it: api__solve_problem). */
struct svc_error {
	enum problem row;
	int core;            /* rows of a core family (PROBLEM_PATTERN_CORE):
			      * the core error */
	const char *field;   /* the request field it is about, or NULL */
	char detail[320];
	json_t *errors;      /* PROBLEM_INVALID_CUBE: the list (owned) */
	long offset;         /* a pattern's offset in field, -1 none */
	int tables;          /* PROBLEM_TABLES_NOT_READY: SOLVER_3X3 or
			      * SOLVER_2X2, or SVC_BEGINNER_TABLES */
	int best_length;     /* PROBLEM_NO_SOLUTION_FOUND: the shortest
			      * answer reached, -1 none */
};
#define SVC_BEGINNER_TABLES (-1)
void svc_error_free(struct svc_error *e);

/* The budget a solve of size n gets when its caller names none: 1 s for
 * 2×2 and 3×3, 3 s for a reduction that weighs several variants (4×4 to
 * 7×7; running out only means fewer weighed), the server's longest for
 * one pass (8×8 up) and for effort above 1. */
int svc_default_budget(const struct svc_env *env, int n, int effort);

/* Solve rq: 0 with *out the answer (svc_answer_free it), or -1 with *e
 * why not (svc_error_free it). */
int svc_solve(const struct svc_env *env, const struct svc_request *rq,
	      struct svc_answer *out, struct svc_error *e);

#endif
