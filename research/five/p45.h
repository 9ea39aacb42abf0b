/* p45.h — phases 4 and 5 of a 5x5x5 reduction solver (research).
 *
 * Phase 4 (moves U D any, R2 L2 F2 B2, Uw2 Dw2 Rw2 Lw2 Fw2 Bw2) brings four
 * paired edges into the S slice (UL UR DL DR) and the U/D, R/L centres into
 * the set phase 5 can solve; phase 5 (F B any, U2 D2 R2 L2, Uw2 Dw2 Rw2 Lw2)
 * solves every centre and pairs the other eight edges. Both are IDA* over
 * breadth-first distance tables built in memory by p45_init. */
#ifndef CUBED_RESEARCH_P45_H
#define CUBED_RESEARCH_P45_H

#include "cube.h"

struct p45; /* opaque: piece model and tables */

/* Builds the tables (about 0.6 GB, see p45.c); NULL on failure. */
struct p45 *p45_init(void);
void p45_free(struct p45 *T);
/* Bytes held by the tables. */
size_t p45_bytes(const struct p45 *T);

/* c: a 5x5 cube in phase 3's goal. Finds a shortest phase 4 answer, then a
 * shortest phase 5 answer from there, applies both to c, writes them to out
 * (at most max moves), sets *len4 and *len5; returns the number of moves,
 * or -1 (no answer within maxnodes nodes per phase, or the input is not in
 * phase 3's goal). */
int p45_solve(const struct p45 *T, cube_t *c, cube_move *out, int max,
	      int *len4, int *len5, long maxnodes);
/* For phase 4 alone: up to k answers of length <= bound (shortest first);
 * returns how many were found (-1: input not in phase 3's goal). */
int p4_answers(const struct p45 *T, const cube_t *c, int bound, int k,
	       cube_move (*out)[32], int *lens);
/* Phase 5 alone: c must be in phase 4's goal; applies the answer to c and
 * returns its length, or -1. */
int p5_solve(const struct p45 *T, cube_t *c, cube_move *out, int max,
	     long maxnodes);

/* 1 if c is in phase 3's goal (centres on their axis, each edge's wings
 * one per wing class, midge orientations consistent), else 0. */
int p45_phase3_ok(const struct p45 *T, const cube_t *c);
/* 1 if c is in phase 4's goal (what phase 5 starts from), else 0. */
int p45_phase4_ok(const struct p45 *T, const cube_t *c);

/* The number of edges whose midge and both wings are in the U/D layers
 * (G4 keeps U/D-layer midges and wings there and E-slice ones in the E
 * slice, so phase 4 needs at least 4); -1 if c cannot be read. */
int p45_ud_edges(const struct p45 *T, const cube_t *c);

#endif
