/* optimal.h — provably optimal 3×3 solutions in the half-turn metric (a
 * quarter or half turn of one face is one move), by iterative-deepening A*
 * over whole cubes with pattern databases (pruning tables) of one of
 * several sizes.
 *
 * The bound. A table holds, for every coset of a subgroup H of the cube
 * group, the fewest moves that take a state of that coset into H. H always
 * contains the U and D turns, so a table is reduced by the 16 symmetries
 * that keep the U–D axis, and each search node reads it six times: the
 * cube and its inverse, each seen with U–D, R–L and F–B as the vertical
 * axis. Because H contains that axis' turns, an entry that equals the
 * moves left also says the last move cannot be one of them: three such
 * entries rule out every last move (the bound is one higher), and the
 * inverse's entries restrict the next move the same way.
 *
 * The tables and their levels are in optimal_tables.h (included here).
 *
 * Same error contract as solve.h.
 */
#ifndef CUBED_OPTIMAL_H
#define CUBED_OPTIMAL_H

#include <stddef.h>
#include <stdint.h>

#include "cube.h"
#include "cubie.h"
#include "optimal_tables.h"
#include "solve.h"

/* Progress of a search, written by optimal_solve before each poll call
 * and when it returns. */
typedef struct optimal_progress {
	int depth;      /* every solution of at most this many moves has
			 * been ruled out (-1 before the first depth) */
	uint64_t nodes; /* search nodes visited */
} optimal_progress;

typedef struct optimal_limits {
	int max_length;     /* 0 = 20, enough for every state */
	solve_poll_fn poll; /* every few thousand nodes; non-zero stops */
	void *ctx;
	optimal_progress *progress; /* NULL = not reported */
} optimal_limits;

/* An optimal solution of c (a valid 3×3 in standard orientation): writes
 * the moves (face turns) to out and returns the count, 0 for solved.
 * SOLVE_ENOTFOUND if poll stopped the search or max_length was too
 * short, CUBE_EINVALID for an unsolvable cube, CUBE_ESPACE if cap is
 * below the solution's length, SOLVE_ETABLES for a buffer that is not
 * complete tables. Never allocates. */
int optimal_solve(const void *tables, const cubie3 *c,
		  const optimal_limits *lim, cube_move *out, int cap);

#endif
