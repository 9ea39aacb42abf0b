/* p123.h — phases 1–3 of the five-phase 5×5 reduction (research). */
#ifndef P123_H
#define P123_H
#include "m5.h"

struct p123;
struct p123 *p123_init(const struct m5 *M);

/* Phase k (1, 2, 3) from the cube c: up to k answers (moves as model
 * indices) of the shortest lengths found within bound; returns their
 * number; lens[i] their lengths. Nodes capped at maxnodes. */
#define P_MAXLEN 24
int p123_phase(const struct p123 *T, int phase, const cube_t *c, int bound,
	       int want, uint8_t (*out)[P_MAXLEN], int *lens, long maxnodes);
/* 1 if c meets phase k's goal (for checks) */
int p123_goal(const struct p123 *T, int phase, const cube_t *c);

#endif
