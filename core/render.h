/* render.h — data for drawing and animating an n×n×n cube in 3D (seeds 000
 * and 003): every visible cubie's position, rotation and sticker colours,
 * and for each move which cubies turn, about which axis, by how much.
 *
 * Coordinates are right-handed: x → R, y → U, z → F. A cubie's grid
 * position (i, j, k) counts 0..n-1 from the L, D and B sides; the cube's
 * centre is at ((n-1)/2, (n-1)/2, (n-1)/2). Rotations are integer 3×3
 * matrices, row-major, acting on column vectors: rot · v.
 */
#ifndef CUBED_RENDER_H
#define CUBED_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "cube.h"

typedef struct render_cubie {
	int16_t pos[3];
	/* The cubie's rotation from its solved placement: for each of its
	 * stickers, rot · (outward normal of the sticker colour's home face)
	 * = outward normal of the side it shows on now. A facelet state does
	 * not record how a single-sticker cubie (a center) is spun about its
	 * normal, so for those rot is the smallest rotation that takes the
	 * colour's home normal to the side it shows on (identity when home).
	 * If the stickers fit no rotation (an illegal state), rot is the
	 * rotation that fits most of them. */
	int8_t rot[9];
	/* Colour letter shown on each side U R F D L B, '\0' if hidden. */
	char sticker[6];
} render_cubie;

/* Outward normal of each face U R F D L B (the axis a clockwise turn of
 * that face rotates about by -90°, right-hand rule). */
extern const int8_t render_face_normal[6][3];

/* Number of visible cubies: n³ - (n-2)³ for n >= 2, 1 for n = 1. */
size_t render_cubie_count(int n);

/* Every visible cubie of c, ordered by i, then j, then k. Returns the count
 * or CUBE_ESPACE if cap is too small. */
int64_t render_cubies(const cube_t *c, render_cubie *out, size_t cap);

/* How a move animates: the cubies with grid coordinate along axis in
 * [from, to] turn by angle degrees about +axis (right-hand rule): -90, 90 or
 * 180, or 0 for a move of no quarter turns. */
typedef struct render_turn {
	uint8_t axis;
	int16_t from, to;
	int16_t angle;
	int8_t rot[9]; /* the turn's rotation matrix */
} render_turn;

void render_turn_of(const cube_move *m, int n, render_turn *out);

#endif
