/* reduced3x3.h — the reduced 3×3 (reduced3x3.c): reading the big cube
 * as a 3×3, its parities, and the 3x3 stage. Not part of the API. */
#ifndef CUBED_REDUCE_REDUCED3X3_H
#define CUBED_REDUCE_REDUCED3X3_H

#include "internal.h"

/* The two-phase search keeps shortening its answer until it reaches the
 * target or a budget of polls (one per 4096 nodes; plan.h,
 * TWOPHASE_POLLS) runs out: counted in nodes, not time, so the answer is
 * the same from run to run; the caller's poll can still stop it. A short
 * budget takes most of what a long one would (docs/solvers.md). */
#define TWOPHASE_TARGET 18

int reduce__idx3(int m, int f, int r, int c);
int reduce__big_of3(int n, int v);
void reduce__reduced3(const struct ctx *x, uint8_t ecol[12][2], char s[54]);
/* The edges as the cube has them, 3×3 facelet colours (every edge paired:
 * any wing does). */
void reduce__read_ecol(const struct ctx *x, uint8_t ecol[12][2]);
int reduce__perm_parity(const int *p, int k);
int reduce__parities3(const char s[54], int *cpar, int *epar, int *flip);
/* The corners' permutation parity against the frame (x->tcol), or -1
 * if they are not a cube's corners. */
int reduce__corner_parity(const struct ctx *x);
int reduce__stage_3x3(struct ctx *x, const void *tables);

#endif
