/* orient.h — the 24 whole-cube orientations of a 2×2 or 3×3 (orient.c;
 * cubie__ names, shared by cubie.c, validate.c and the test suite): which
 * one a cube is in and turning its facelets back to the standard one. Not
 * part of the public API. */
#ifndef CUBED_ORIENT_H
#define CUBED_ORIENT_H

#include "cube.h"

/* ---------------------------------------------------------- orientations */

#define CUBIE_ROTATIONS 24

/* The orientation (0..23, 0 = standard) whose centers read, in URFDLB
 * order, the six letters at centers, or -1 if they are not a real
 * arrangement (a repeat, a wrong opposite pair, a mirror image). */
int cubie__rotation_of_centers(const char centers[6]);

/* The orientation implied by where the DBL corner piece is: fd, fl, fb are
 * the faces (0..5) its D, L and B stickers lie on. -1 if they cannot be
 * (not three mutually adjacent faces in a right-handed order). */
int cubie__rotation_of_dbl(int fd, int fl, int fb);

/* The orientation of a given (up, front) pair of letters, or -1. */
int cubie__rotation_of_letters(char up, char front);

/* Fill *o for orientation rot. */
void cubie__orientation(int rot, cube_orientation *o);

/* Turn a 2×2 or 3×3 facelets string (n = 2 or 3, letters URFDLB only) by
 * orientation rot's moves, i.e. to the standard orientation: in and out
 * hold 6·n² letters and may be the same buffer. Returns CUBE_OK or
 * CUBE_EINVAL. */
int cubie__rotate(int n, const char *in, int rot, char *out);

#endif
