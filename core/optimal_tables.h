/* optimal_tables.h — the pruning tables of the optimal 3×3 solver
 * (optimal.h, which includes this header): their levels, sizes, building
 * and checking.
 *
 * Levels (optimal_table_size says the bytes):
 *   0  the phase-1 coset of the two-phase method (edge flip, E-slice
 *      places, corner twist): 64,430 symmetry classes × 2,187, 4 bits
 *      each; 80 MB in all. Built in seconds; slow for deep cubes.
 *   1  also the order of the four E-slice edges (24 × as fine):
 *      1,523,864 classes × 2,187, 2 bits each relative to a base depth
 *      (entries at or under it fall back to level 0); 1.02 GB in all.
 *   2  level 0 with which corners are in the U layer (70 × as fine):
 *      64,430 × 153,090, 2 bits each; 2.55 GB in all.
 * Every level also holds the corners' exact distance (corner permutation
 * class × twist, 3 MB), which every child must pass first.
 * Bigger levels are slower to build and faster to search.
 *
 * Tables are caller-owned buffers. Build them in one thread with
 * optimal_table_init, or in several: optimal_table_begin once, then
 * rounds of optimal_table_work (every worker 0..n-1, at once, in the
 * caller's threads) each followed by optimal_table_next (alone) until it
 * returns 0. Core starts no threads itself. The bytes are the same on
 * every run, whatever the number of workers.
 *
 * Same error contract as solve.h.
 */
#ifndef CUBED_OPTIMAL_TABLES_H
#define CUBED_OPTIMAL_TABLES_H

#include <stddef.h>
#include <stdint.h>

#include "solve.h"

#define OPTIMAL_LEVELS 3

/* Bytes of the tables of a level, 0 for no such level. */
size_t optimal_table_size(int level);

/* Fill buf for level in this thread. Deterministic; poll (may be NULL)
 * gets progress and can cancel (SOLVE_ECANCELLED). */
int optimal_table_init(void *buf, size_t size, int level, solve_poll_fn poll,
		       void *ctx);

/* The same in steps, for several threads. begin sets buf up (fast);
 * work runs worker's share (0 <= worker < nworkers, the same nworkers
 * for every worker of a round) of the current round; next, called by one
 * thread once every worker of the round has returned, finishes the round:
 * 1 = run another round, 0 = the tables are complete and sealed, < 0 an
 * error. A work that returns SOLVE_ECANCELLED (its poll said stop)
 * leaves the buffer unusable: start again with begin. */
int optimal_table_begin(void *buf, size_t size, int level);
int optimal_table_work(void *buf, size_t size, int worker, int nworkers,
		       solve_poll_fn poll, void *ctx);
int optimal_table_next(void *buf, size_t size);

/* Check a buffer read from a file: size, header and checksum for this
 * level. CUBE_OK or SOLVE_ETABLES. */
int optimal_table_check(const void *buf, size_t size, int level);

/* How many table entries are at each depth (entries of the level's main
 * table; deeper than the table records are counted at the last depth it
 * records, see optimal_table_info). */
typedef struct optimal_table_info {
	int level;
	int base;           /* levels 1–2: depths up to base read as level 0 */
	int max_depth;      /* the deepest depth counted below */
	uint64_t entries;   /* entries of the main table */
	uint64_t at_depth[24];
} optimal_table_info;
int optimal_table_describe(const void *tables, optimal_table_info *out);

#endif
