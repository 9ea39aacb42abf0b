/* optimal_tables.h — the pruning tables of the optimal 3×3 solver
 * (optimal.h, which includes this header): their levels, sizes, building
 * and checking.
 *
 * Every level's main table holds, for each symmetry class of cosets of
 * a subgroup H, the fewest moves that take a state of the coset into H
 * (2 bits per entry against a base depth; an entry at or under the base
 * reads as the least depth of the 252 entries in its 64-byte line). H is
 * mapped onto itself by all 48 symmetries of the cube, so one lookup per
 * cube serves every orientation, and on levels 0 and 1 it contains the
 * six half turns (level 2 and 3's H's half-turn cosets are read with the
 * same line). Levels (optimal_table_size says the bytes):
 *   0  corners in their tetrads and untwisted, edges in their slices:
 *      3,393 classes × 34,650 edge places; 30 MB. Built in seconds.
 *   1  also the corners as the square group <U2, R2, F2, D2, L2, B2>
 *      has them (6 × as fine) and the parity of the M and S slices'
 *      flips (4 ×): 19,950 × 138,600 entries; 0.70 GB.
 *   2  level 1 with the parity of each tetrad's order (2 ×); 1.4 GB.
 *   3  level 1 with each tetrad's order up to its Klein four-group
 *      (6 ×); 4.2 GB.
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

#define OPTIMAL_LEVELS 4

/* The file name callers keep a level's tables under (a printf format of
 * the level). It names the format, so that a directory shared by
 * programs of an older format and of this one never has one overwrite
 * the other's file. */
#define OPTIMAL_TABLE_FILE "cubed-optimal-v4-%d.bin"

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
	int base;           /* depths up to base read as their line's least */
	int max_depth;      /* the deepest depth counted below */
	uint64_t entries;   /* entries of the main table */
	uint64_t at_depth[24];
} optimal_table_info;
int optimal_table_describe(const void *tables, optimal_table_info *out);

#endif
