/* solve3.h — what the 3×3 solvers share (twophase.c, optimal.c,
 * beginner.c; optimal_tables.c and optimal_coord.c may take the
 * symmetries too): the face turns' numbering as cube moves, and the
 * cube's symmetries as cubies — Kociemba's basic ones, the product that
 * allows mirrored corners, the 16 that keep the U–D axis with their
 * inverses, and conjugation by one. Not part of the public API. */
#ifndef CUBED_SOLVE3_H
#define CUBED_SOLVE3_H

#include <stdint.h>

#include "cube.h"
#include "cubie.h"

/* Face turn m (face·3 + quarter turns - 1, faces U R F D L B) as a
 * cube_move of a 3×3 (inline: the searches make one for every move they
 * report). */
static inline cube_move solve3__face_move(int m)
{
	static const uint8_t axis[6] = {CUBE_Y, CUBE_X, CUBE_Z,
					CUBE_Y, CUBE_X, CUBE_Z};
	int f = m / 3, q = m % 3 + 1;
	cube_move r;
	r.axis = axis[f];
	/* D L B are layer 2 of their axis, turned counted from U R F */
	r.lo = r.hi = f < 3 ? 0 : 2;
	r.qt = (uint8_t)(f < 3 ? q : 4 - q);
	return r;
}

/* Kociemba's basic symmetries: the 120° turn about the URF–DBL diagonal,
 * 180° about F–B, 90° about U–D, and the mirror in the plane between L
 * and R (corner twist t + 3 marks a mirrored corner). */
extern const cubie3 solve3__s_urf3, solve3__s_f2, solve3__s_u4,
	solve3__s_lr2;

/* a then b into out (out may be either), where either may be mirrored:
 * a twist t >= 3 is the mirror image of twist t - 3, and mirrors compose
 * by subtracting. */
void solve3__mul(const cubie3 *a, const cubie3 *b, cubie3 *out);

/* The 16 symmetries that keep the U–D axis, s = 8·f2 + 2·u4 + lr2, into
 * sym, and the inverse of each (sym[inv[k]] undoes sym[k]). */
#define SOLVE3_UD_SYMS 16
void solve3__ud_syms(cubie3 sym[SOLVE3_UD_SYMS],
		     uint8_t inv[SOLVE3_UD_SYMS]);

/* S_k X S_k⁻¹ into out, for the symmetries sym and inverses inv as
 * solve3__ud_syms makes them. */
void solve3__conj(const cubie3 *sym, const uint8_t *inv, const cubie3 *x,
		  int k, cubie3 *out);

#endif
