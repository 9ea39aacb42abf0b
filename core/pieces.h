/* pieces.h — the 3×3 piece tables that tie cubies to facelets (pieces.c)
 * and reading a piece from its colours: what validation and the cubie
 * model both read (cubie__ names, internal). */
#ifndef CUBED_PIECES_H
#define CUBED_PIECES_H

#include <stddef.h>

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

#endif
