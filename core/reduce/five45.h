#ifndef CUBED_REDUCE_FIVE45_H
#define CUBED_REDUCE_FIVE45_H
#include <stddef.h>
#include <stdint.h>
#include "cube.h"
#include "solve.h" /* solve_poll_fn, SOLVE_ECANCELLED, SOLVE_ENOTFOUND */

/* Bytes of the phases' tables (a multiple of 64); the caller gives a
 * 64-byte-aligned region of this size to build into and search from. */
size_t reduce__five45_size(void);
/* Scratch the build needs (queues etc.), caller-provided. */
size_t reduce__five45_work_size(void);
/* Build the tables into t. poll (may be NULL) is called now and then
 * with (done, total) in any unit that grows to total; nonzero stops the
 * build: SOLVE_ECANCELLED. 0 on success, <0 on a model check failing. */
int reduce__five45_build(void *t, void *work, solve_poll_fn poll, void *ctx);
/* Entries of table `which` (0 phase 4 centres, 1 phase 4 edges, 2 phase 5
 * centres, 3 phase 5 pairing A, 4 phase 5 pairing B) by depth 0..14,
 * counts[15] the unseen ones; returns the table's number of entries or -1. */
long reduce__five45_census(const void *t, int which, long counts[16]);
/* Bytes of the search scratch (caller-provided, 64-aligned). */
size_t reduce__five45_search_size(void);
/* c: a 5×5 whose sticker colours are faces (U0 R1 F2 D3 L4 B5, each
 * face's (2,2) sticker its own colour). */
int reduce__five45_ud_edges(const void *t, const cube_t *c);
/* Phase 4's lower bound from c (the table bound the search starts at),
 * or -1 if c is not in phase 3's goal. */
int reduce__five45_p4_h(const void *t, void *search, const cube_t *c);
/* Phase 4: the answers of the first length in lo..hi that has any, up to
 * k of them, into out/lens; returns how many (0: none within hi or the
 * node budget), -1 if c is not in phase 3's goal, SOLVE_ENOTFOUND if poll
 * stopped it. Nodes counted into *nodes (the caller's budget across
 * calls: stop when *nodes > maxnodes, or, once it has an answer, when
 * after more have gone). poll may be NULL; it is called every 65,536
 * nodes with (*nodes, maxnodes). */
int reduce__five45_p4(const void *t, void *search, const cube_t *c, int lo,
		      int hi, int k, cube_move (*out)[24], int *lens,
		      long maxnodes, long after, long *nodes, solve_poll_fn poll,
		      void *ctx);
/* Phase 5: a shortest answer into out (max moves); its length, -1 if c
 * is not in phase 4's goal or none within the budget, SOLVE_ENOTFOUND if
 * poll stopped it. */
int reduce__five45_p5_h(const void *t, void *search, const cube_t *c);
int reduce__five45_p5(const void *t, void *search, const cube_t *c, int lo,
		      cube_move *out, int max, long maxnodes, long *nodes,
		      solve_poll_fn poll, void *ctx);
#endif
