/* parity.h — the parity stages and the wing orbits' parities (parity.c).
 * Not part of the API. */
#ifndef CUBED_REDUCE_PARITY_H
#define CUBED_REDUCE_PARITY_H

#include "internal.h"

#define REDUCE_PLL_MOVES 6 /* the pll_parity stage's moves */
void reduce__wing_orbit(struct ctx *x, struct orbit *o, int k);
/* Parity of the permutation taking cur to tgt (tokens all different). */
int reduce__orbit_parity(const uint8_t *cur, const uint8_t *tgt);
void reduce__wing_targets(const struct ctx *x, const struct orbit *o,
			  const int8_t *e_of3, uint8_t ecol[12][2],
			  uint8_t *tgt);
int reduce__wings_legal(struct ctx *x);
int reduce__stage_oll(struct ctx *x, const int8_t *e_of3,
		      reduce_result *res);
int reduce__stage_pll(struct ctx *x, int v);
#define REDUCE_PLL_VERSIONS 24

#endif
