/* turns.h — the turns' maps' calls (turns.c): building them for a size,
 * reading the cube into them, and making turns through them. The maps
 * themselves are in internal.h (the context holds them). Not part of the
 * API. */
#ifndef CUBED_REDUCE_TURNS_H
#define CUBED_REDUCE_TURNS_H

#include "internal.h"

static inline int reduce__free_inv(const struct freec *F, int g)
{
	return g + F->gen[g].inv_off - 2;
}
int reduce__free_build(struct ctx *x);
void reduce__free_read(struct ctx *x);
int reduce__free_ready(struct ctx *x);
/* The moves out[c0 .. count) taken back: the cube turned back through
 * them, the count cut to c0. */
void reduce__unmake(struct ctx *x, size_t c0);
void reduce__free_apply(struct freec *F, int g);
int reduce__free_emit(struct ctx *x, int g, unsigned *par);

#endif
