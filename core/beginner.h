/* beginner.h — the beginner layer-by-layer method for the 3×3, stage by
 * stage, and solving to a pattern (a cross, the first two layers, any
 * pattern of pattern.h) with the fewest moves a search finds in its budget.
 *
 * Beginner method: the cross on D, the first-layer corners, the
 * second-layer edges, then the last layer (U) in four steps: edge
 * orientation (the last-layer cross), edge permutation, corner
 * permutation, corner orientation. Each stage is checked when it ends
 * against a pattern (pattern.h): the named cross, first_layer, f2l, eo
 * (reported on D), then small patterns of its own for the permuted
 * last-layer edges and corners, then solved; a stage whose pattern does not
 * hold is an error, never a wrong answer. The cross is an optimal cross
 * (from a distance table); the corners and middle edges go in one at a
 * time, each by the fewest beginner algorithms ("R U R'", "U R U' R' U' F'
 * U F", … on any slot, with U turns between) that put one more piece home
 * and keep the ones already home; the last layer uses F R U R' U' F', the
 * Sune, a corner 3-cycle (U R U' L' U R' U' L) and R' D' R D repeated, each
 * with the fewest U turns around it. Typical answers are about 100 moves.
 *
 * Solving to a pattern: iterative deepening over face turns (no same face
 * twice in a row, opposite faces in one order), so the first answer found
 * is a shortest one. For the named cross, first_layer and f2l (and the
 * patterns that imply f2l: eo, oll, pll, solved) the depth is pruned with
 * distance tables of the cross edges, the first-layer corners and the
 * middle edges of each face, read in six frames (one per face the pattern
 * may be built on), so an optimal cross takes microseconds. Other patterns
 * are searched plainly, a state check per node. When the budget ends
 * first, the answer falls back to the beginner stages up to the first one
 * after which the pattern holds, or to a prefix of a two-phase solution
 * when its tables are given, whichever is shorter, and says it is not
 * proven shortest.
 *
 * Tables are caller-owned buffers as in solve.h: beginner_table_size
 * bytes, filled once by beginner_table_init (tens of milliseconds; the
 * same bytes on every run). Searches never allocate. Same error contract
 * as cube.h and solve.h; SOLVE_ESTAGE if a stage could not be completed
 * (an internal failure: it does not happen for a legal cube).
 */
#ifndef CUBED_BEGINNER_H
#define CUBED_BEGINNER_H

#include <stddef.h>
#include <stdint.h>

#include "cube.h"
#include "cubie.h"
#include "pattern.h"
#include "solve.h"

/* ------------------------------------------------------------- tables */

size_t beginner_table_size(void);
/* Fill buf (beginner_table_size() bytes, any alignment malloc gives). */
int beginner_table_init(void *buf, size_t size);
/* CUBE_OK, or SOLVE_ETABLES if buf is not a filled table of this size. */
int beginner_table_check(const void *buf, size_t size);

/* ------------------------------------------------------------ beginner */

#define BEGINNER_STAGES 7
/* No beginner answer is longer (the stages' own bounds add up to less). */
#define BEGINNER_MAX_MOVES 400

typedef struct beginner_stage {
	const char *name;    /* "cross", "first_layer_corners", … */
	const char *goal;    /* one line: what holds after the stage */
	int start, count;    /* its moves: out[start .. start + count) */
	cubie3 after;        /* the state after it */
} beginner_stage;

/* Name and goal of stage k (0..BEGINNER_STAGES-1), NULL past the end:
 * cross, first_layer_corners, second_layer, last_layer_edge_orientation,
 * last_layer_edge_permutation, last_layer_corner_permutation,
 * last_layer_corner_orientation. */
const char *beginner_stage_name(int k);
const char *beginner_stage_goal(int k);

/* Solve c (a valid 3×3, standard orientation) stage by stage: writes the
 * moves (face turns) to out and each stage to stages[0..7), returns the
 * total count (0 for solved: every stage then has no moves). CUBE_ESPACE if
 * out (cap moves) is too small (BEGINNER_MAX_MOVES always suffices),
 * CUBE_EINVALID for an unsolvable cube, SOLVE_ETABLES for a bad buffer,
 * SOLVE_ESTAGE if a stage failed. The moves applied to c give solved, and
 * stage k's moves applied to stages[k-1].after (c for k = 0) give
 * stages[k].after. */
int beginner_solve(const void *tables, const cubie3 *c, cube_move *out,
		   int cap, beginner_stage stages[BEGINNER_STAGES]);

/* ----------------------------------------------------- solve to a pattern */

/* What to reach: a 3×3 named pattern (pattern_named_find(3, name)), or
 * compiled patterns of size 3 that must all fit in one orientation (as
 * pattern_match). A name is better when there is one: it brings the
 * distance tables. */
typedef struct target_spec {
	const char *name;              /* or NULL */
	const pattern_t *const *parts; /* when name is NULL */
	size_t nparts;
} target_spec;

/* The name of the 3×3 named pattern whose (single) text is exactly
 * s[0..len), or NULL: lets a caller that was given a pattern text use the
 * tables for it. */
const char *target_name_of_text(const char *s, size_t len);

/* Longest search; deeper targets come from the fallback. */
#define TARGET_MAX_DEPTH 20

typedef struct target_limits {
	int max_length;     /* longest acceptable answer; 0 = no limit but cap */
	uint64_t max_nodes; /* search nodes before falling back; 0 = 2^26 */
	solve_poll_fn poll; /* called every few thousand nodes; non-zero stops
			     * the search (then the fallback answers) */
	void *ctx;
	const void *twophase; /* two-phase tables for the fallback, or NULL */
	int beginner_only;  /* 1: no search, the beginner stages up to the
			     * first one after which the target holds */
} target_limits;

enum target_via {
	TARGET_VIA_SEARCH,   /* the search found it: a shortest answer */
	TARGET_VIA_BEGINNER, /* the first `stages` beginner stages */
	TARGET_VIA_TWOPHASE, /* a prefix of a two-phase solution */
};

typedef struct target_result {
	int optimal;     /* 1 if no shorter answer exists */
	int searched;    /* every answer shorter than this was ruled out */
	int via;         /* enum target_via */
	int stages;      /* TARGET_VIA_BEGINNER: how many of stage[] */
	beginner_stage stage[BEGINNER_STAGES];
	uint64_t nodes;  /* search nodes visited */
} target_result;

/* Find moves taking c (a valid 3×3, standard orientation) to a state that
 * fits the target in some orientation. Writes them to out (cap moves; a
 * fallback may need BEGINNER_MAX_MOVES) and fills *res; returns the count.
 * *res is filled also when no answer was found (how deep the search got,
 * its nodes), but not for argument errors; out only on success.
 * SOLVE_ENOTFOUND if neither the search nor a fallback reached the target
 * within max_length (a pattern no state fits, or one solved does not fit
 * and the search ran out), PATTERN_ENAME for an unknown name, CUBE_EINVAL
 * for patterns of another size, the errors of beginner_solve. */
int target_solve(const void *tables, const target_spec *t, const cubie3 *c,
		 const target_limits *lim, cube_move *out, int cap,
		 target_result *res);

#endif
