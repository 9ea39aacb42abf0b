/* scrambles.h — the scrambles cubed hands out (GET /v1/scramble and a
 * race's start): for the 2×2 and 3×3 a random state (a uniform state drawn
 * from the seed, its solution inverted, as the WCA scrambles them), for
 * bigger cubes random moves of the WCA length (core/scramble.c), and for
 * the 2×2 and 3×3 the same random moves when their solver tables are not
 * there. */
#ifndef CUBED_SCRAMBLES_H
#define CUBED_SCRAMBLES_H

#include <stdint.h>

#include "cube.h"

/* How many moves scramble_draw may write for size n. */
int scramble_cap(int n);

/* A scramble of an n×n×n (n ≥ 1) drawn from seed into out (cap ≥
 * scramble_cap(n)); tables: for n = 2 or 3 that size's solver tables, or
 * NULL for random moves. The count, with *kind "random-state" or
 * "random-move", or a negative core error (a solver failure). */
int scramble_draw(int n, uint64_t seed, const void *tables, cube_move *out,
		  int cap, const char **kind);

#endif
