/* solve.h — solvers and scrambles: Kociemba's two-phase algorithm for 3×3,
 * an optimal 2×2 solver from a full distance table, and random-state /
 * random-move scrambles reproducible from a seed.
 *
 * Tables are caller-owned buffers: core says how big (*_table_size), fills
 * them (*_table_init, which takes a while and reports progress through a
 * poll callback that can also cancel), and checks a buffer loaded from
 * disk (*_table_check). Searches never allocate; they call poll every few
 * thousand nodes so the caller can stop them (a time budget, a cancelled
 * request) and they then return the best solution found so far. Core has no
 * clock: time limits live in the caller's poll.
 *
 * Same error contract as cube.h; SOLVE_ENOTFOUND when no solution within
 * the limits was found before poll stopped the search.
 */
#ifndef CUBED_SOLVE_H
#define CUBED_SOLVE_H

#include <stddef.h>
#include <stdint.h>

#include "cube.h"
#include "cubie.h"

enum {
	SOLVE_ENOTFOUND = -50, /* "no_solution_found" */
	SOLVE_ECANCELLED = -51, /* "cancelled": table init stopped by poll */
	SOLVE_ETABLES = -52,    /* "bad_tables": check failed (size, checksum) */
	SOLVE_ESTAGE = -53,     /* "stage_failed": a beginner stage (beginner.h)
				 * could not be completed */
};
const char *solve_errname(int err);
const char *solve_strerror(int err);

/* Called periodically; done/total is progress for table init (0/0 during a
 * search). Return non-zero to stop. */
typedef int (*solve_poll_fn)(void *ctx, uint64_t done, uint64_t total);

/* ------------------------------------------------------- 3×3 two-phase */

/* Bytes of the two-phase tables (move tables and pruning tables). */
size_t twophase_table_size(void);

/* Fill buf (twophase_table_size() bytes, any alignment malloc gives).
 * Deterministic: the same bytes on every machine and run, so a file of
 * them can be cached and checked. poll may be NULL. */
int twophase_table_init(void *buf, size_t size, solve_poll_fn poll,
			void *ctx);

/* Check a buffer (e.g. read from a file): size and an embedded checksum.
 * Returns CUBE_OK or SOLVE_ETABLES. Costs a pass over the bytes. */
int twophase_table_check(const void *buf, size_t size);

typedef struct solve_limits {
	int max_length;    /* longest acceptable solution; 0 = 21 */
	int target_length; /* stop at the first solution this short; 0 = 20 */
	solve_poll_fn poll;
	void *ctx;
	uint64_t max_nodes; /* stop after this many search nodes, 0 = no
			     * limit: a budget that, unlike time, gives the
			     * same answer on every machine and load */
	int label;          /* 0 = a solution to show (the default). Non-zero:
			     * a label, where only the shortest length found
			     * within max_nodes matters (the moves are still
			     * written). The budget then counts what a search
			     * costs: a node, or one step of a walk down a
			     * pruning table (each reads a dozen scattered
			     * table entries), and a search tries at most one
			     * pre-move, since the second buys little length
			     * for the many walks it needs. */
} solve_limits;

/* Solve c (a valid 3×3, standard orientation) in the face-turn metric:
 * writes at most cap moves (face turns, qt 1..3) to out and returns the
 * count (0 for solved), SOLVE_ENOTFOUND if nothing within max_length was
 * found before poll stopped it, CUBE_EINVALID for an unsolvable cube. The
 * solution applied to c gives the solved cube. */
int twophase_solve(const void *tables, const cubie3 *c,
		   const solve_limits *lim, cube_move *out, int cap);

/* ------------------------------------------------------------ 2×2 optimal */

/* Bytes of the 2×2 distance table (one entry per state, CUBE2_STATES). */
size_t solve2_table_size(void);
int solve2_table_init(void *buf, size_t size, solve_poll_fn poll, void *ctx);
int solve2_table_check(const void *buf, size_t size);

/* Number of states at each distance 0..11 (half-turn metric) in a filled
 * table; returns the maximum distance. The known distribution is 1, 9, 54,
 * 321, 1847, 9992, 50136, 227536, 870072, 1887748, 623800, 2644. */
int solve2_table_histogram(const void *tables, uint64_t counts[12]);

/* An optimal solution (≤ 11 moves, using only R, U, F turns so DBL stays
 * home) of c: count, or CUBE_EINVALID. */
int solve2_optimal(const void *tables, const cubie2 *c, cube_move *out,
		   int cap);

/* ----------------------------------------------------------------- random */

/* A small, fast, seedable generator (caller-owned state), so scrambles are
 * reproducible from a seed on every platform. */
typedef struct cube_rng {
	uint64_t s[4];
} cube_rng;

void cube_rng_seed(cube_rng *r, uint64_t seed);
uint64_t cube_rng_next(cube_rng *r);
/* Uniform in [0, bound) without modulo bias. */
uint64_t cube_rng_below(cube_rng *r, uint64_t bound);

/* A uniformly random reachable 3×3 / 2×2 state. */
void cubie3_random(cube_rng *r, cubie3 *out);
void cubie2_random(cube_rng *r, cubie2 *out);

/* A random-move scramble for size n (any n >= 2): WCA lengths (2×2 and 3×3
 * are random-state elsewhere, 25 here as the WCA's old random-move ones;
 * 4×4 40, 5×5 60, 6×6 80, 7×7 100, larger n 20·(n-2)): turns of blocks
 * of outer layers (R, Rw, 3Rw, … and the same from L, U, D, F, B; no
 * rotations; on even n the half-cube block only from R, U, F, since from
 * the other side it is the same turn up to a rotation). No redundancy on
 * one axis: within a run of consecutive moves on the same axis every move
 * turns a different block, in increasing order of a fixed block key, so
 * no two moves of a run merge, cancel, or appear in two orders. Writes up
 * to cap moves; returns the count or CUBE_ESPACE. */
int scramble_moves(cube_rng *r, int n, cube_move *out, int cap);
int scramble_length(int n);

#endif
