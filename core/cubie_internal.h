/* cubie_internal.h — internals shared by cubie.c, orient.c, validate.c and
 * the test suite (cubie__ names): the 24 whole-cube orientations and both
 * versions of composition, with the piece tables (pieces.h). Not part of
 * the public API. */
#ifndef CUBED_CUBIE_INTERNAL_H
#define CUBED_CUBIE_INTERNAL_H

#include <stddef.h>

#include "cubie.h"
#include "pieces.h"

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

/* ----------------------------------------------------------- composition */

/* The plain loops, always available, and the SSSE3 byte-shuffle version,
 * which returns 0 without touching out when the CPU (or the compiler) has
 * no SSSE3. Tests check they agree. */
void cubie__compose3_scalar(const cubie3 *a, const cubie3 *b, cubie3 *out);
void cubie__compose2_scalar(const cubie2 *a, const cubie2 *b, cubie2 *out);
int cubie__compose3_simd(const cubie3 *a, const cubie3 *b, cubie3 *out);
int cubie__compose2_simd(const cubie2 *a, const cubie2 *b, cubie2 *out);

#endif
