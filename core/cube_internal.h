/* cube_internal.h — core internals shared with the test suite (cube__
 * names): not part of the public API. */
#ifndef CUBED_CUBE_INTERNAL_H
#define CUBED_CUBE_INTERNAL_H

#include "cube.h"

/* The general lazy-rotation turn, used for every n except the n == 3 fast
 * path; tests compare the two. Arguments are not checked. */
void cube__turn_generic(cube_t *c, int axis, int lo, int hi, int qt);

/* The n == 3 sticker cycles: [axis][layer][cycle][4]; the middle layer
 * uses only cycles 0..2. */
const unsigned char (*cube__turn3_cycles(void))[3][5][4];

/* The n == 3 gather permutation (64 bytes) of layers [lo, hi] of axis,
 * qt 1..3 quarter turns. */
const unsigned char *cube__turn3_perm(int axis, int lo, int hi, int qt);

/* cube_apply_moves without its checks, for moves known to fit c (the
 * parser's). */
void cube__apply_trusted(cube_t *c, const cube_move *m, size_t count);

/* Set the sticker shown at face f, row r, column col to v (tests label
 * stickers with it). No checks. */
void cube__set(cube_t *c, int f, int r, int col, int v);

#endif
