/* cubie_internal.h — internals shared by cubie.c, orient.c, validate.c and
 * the test suite (cubie__ names): the piece tables that tie cubies to
 * facelets, the 24 whole-cube orientations, and both versions of
 * composition. Not part of the public API. */
#ifndef CUBED_CUBIE_INTERNAL_H
#define CUBED_CUBIE_INTERNAL_H

#include <stddef.h>

#include "cubie.h"

/* 3×3 facelet indices of each corner position (clockwise, from the U/D
 * facelet) and edge position (the U/D facelet first, else the F/B one),
 * and the colours (face indices) of each piece in the same order. */
extern const unsigned char cubie__corner_facelet[8][3];
extern const unsigned char cubie__edge_facelet[12][2];
extern const unsigned char cubie__corner_color[8][3];
extern const unsigned char cubie__edge_color[12][2];

/* Piece names, "URF" … "BR", for problem details. */
extern const char cubie__corner_name[8][4];
extern const char cubie__edge_name[12][3];

/* The 3×3 facelet index i3 (= face·9 + row·3 + col) carried to size n:
 * row and column 0 stay 0, 1 becomes the middle n/2, 2 becomes n-1. Only
 * corners (n >= 2) and, for odd n, midges and centers are meaningful.
 * Inline: the readers call it for every sticker they look at. */
static inline size_t cubie__facelet_n(int n, int i3)
{
	if (n == 3)
		return (size_t)i3;
	int f = i3 / 9, r = i3 % 9 / 3, c = i3 % 3;
	int rr = r == 0 ? 0 : r == 1 ? n / 2 : n - 1;
	int cc = c == 0 ? 0 : c == 1 ? n / 2 : n - 1;
	return ((size_t)f * n + rr) * n + cc;
}

/* Which piece and twist three colours (face indices, clockwise from the
 * position's U/D facelet) form: piece·3 + twist, or -1 if they form no
 * real corner (a mirror image, a repeated colour, two opposite colours).
 * cubie__edge_of: piece·2 + flip, or -1. */
int cubie__corner_of(int c0, int c1, int c2);
int cubie__edge_of(int c0, int c1);

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
