/* p123.h — phases 1–3 of the five-phase 5×5 reduction (research). */
#ifndef P123_H
#define P123_H
#include "m5.h"

struct p123;
struct p123 *p123_init(const struct m5 *M);

/* Phase k (1, 2, 3) from the cube c: up to k answers (moves as model
 * indices) of the shortest lengths found within lo … bound (the first bound with any); returns their
 * number; lens[i] their lengths. Nodes capped at maxnodes. */
#define P_MAXLEN 24
int p123_phase(const struct p123 *T, int phase, const cube_t *c, int lo,
	       int bound, int want, uint8_t (*out)[P_MAXLEN], int *lens,
	       long maxnodes);
/* the same, keeping only answers accept() takes (c, the answer) */
typedef int (*p123_accept)(void *ctx, const cube_t *c, const uint8_t *mv,
			   int len);
int p123_phase_if(const struct p123 *T, int phase, const cube_t *c, int lo,
		  int bound, int want, uint8_t (*out)[P_MAXLEN], int *lens,
		  long maxnodes, p123_accept accept, void *actx);
/* the phase's table bound from c */
int p123_h(const struct p123 *T, int phase, const cube_t *c);
/* 1 if c meets phase k's goal (for checks) */
int p123_goal(const struct p123 *T, int phase, const cube_t *c);

#endif
