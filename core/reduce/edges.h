/* edges.h — the edges stage's files: the edge beam (edges_beam.c), the
 * half-edge pairing moves (edges_halves.c), the edge set of even n
 * (edges_set.c), the wing commutators and 3-cycles (edges_wings.c).
 * Not part of the API. */
#ifndef CUBED_REDUCE_EDGES_H
#define CUBED_REDUCE_EDGES_H

#include "internal.h"

/* The edge beam's longest path in each of its rounds, and the most
 * rounds it runs (edges_beam.c). */
#define EB_LEVELS 128 /* the most moves a path may take */
#define EB_ROUNDS 8

/* edges_beam.c */
int reduce__beam_edges(struct ctx *x);
/* The edge beam's endings (every edge paired, near the best: best
 * first), and ending k taken instead of the one reduce__beam_edges took:
 * the cube and moves back to where the beam's last round began, then
 * that ending's moves. */
int reduce__beam_ends(struct ctx *x);
/* After reduce__beam_edges: the moves before its last round, plus that
 * round's best score (its moves, EB_FINISH per pair it left, the PLL
 * parity's moves if its edges need them). */
int reduce__beam_score(struct ctx *x);
int reduce__beam_take(struct ctx *x, int k);
int reduce__edge_rate(struct ctx *x, const cube_t *c);
/* edges_set.c: even n: into ecol the edge set the wings vote for (each wing votes
 * for the colours it shows on its edge), made legal (an even flip sum).
 * If that set stands an odd permutation from the corners (it would need
 * the PLL parity), 1 and into alt the set with two edges' colours
 * exchanged that loses the fewest votes and needs no parity (reduce.c
 * pairs the edges both ways and keeps the shorter); else 0. */
int reduce__choose_edges(struct ctx *x, const int8_t *e_of3,
			 uint8_t ecol[12][2], uint8_t alt[12][2]);
/* edges_wings.c: every wing orbit paired against the edge set ecol (the
 * multi-orbit commutators where the plan says, then each orbit's 3-cycles);
 * the commutators' work in REDUCE_R_EDGE_BEAM, its size */
int reduce__pair_all(struct ctx *x, const int8_t *e_of3,
		     uint8_t ecol[12][2]);
size_t reduce__wing_work_size(void);
/* edges_halves.c: the half-edge pairing moves after the beam (from
 * 9×9, wherever the beam runs) */
int reduce__edge_halves(struct ctx *x);

#endif
