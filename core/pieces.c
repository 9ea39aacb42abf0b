/* pieces.c — the 3×3 piece tables that tie cubies to facelets: which
 * facelets each corner and edge position has, the colours and names of
 * the pieces, and which piece a set of colours forms (pieces.h).
 * They follow Kociemba (cubie.h), whose facelet layout is ours
 * (docs/conventions.md).
 *
 * They live apart from the cubie model so that the layers read one way
 * down: validation (validate.c) reads pieces with them, and the cubie
 * model (cubie.c) reads them and lets validation decide whether facelets
 * are a legal cube, so cubie.c -> validate.c -> pieces.c, never back. */
#include "pieces.h"

enum { U, R, F, D, L, B };

const unsigned char cubie__corner_facelet[8][3] = {
	{8, 9, 20},   {6, 18, 38},  {0, 36, 47},  {2, 45, 11},
	{29, 26, 15}, {27, 44, 24}, {33, 53, 42}, {35, 17, 51},
};
const unsigned char cubie__edge_facelet[12][2] = {
	{5, 10},  {7, 19},  {3, 37},  {1, 46},  {32, 16}, {28, 25},
	{30, 43}, {34, 52}, {23, 12}, {21, 41}, {50, 39}, {48, 14},
};
const unsigned char cubie__corner_color[8][3] = {
	{U, R, F}, {U, F, L}, {U, L, B}, {U, B, R},
	{D, F, R}, {D, L, F}, {D, B, L}, {D, R, B},
};
const unsigned char cubie__edge_color[12][2] = {
	{U, R}, {U, F}, {U, L}, {U, B}, {D, R}, {D, F},
	{D, L}, {D, B}, {F, R}, {F, L}, {B, L}, {B, R},
};
const char cubie__corner_name[8][4] = {"URF", "UFL", "ULB", "UBR",
				       "DFR", "DLF", "DBL", "DRB"};
const char cubie__edge_name[12][3] = {"UR", "UF", "UL", "UB", "DR", "DF",
				      "DL", "DB", "FR", "FL", "BL", "BR"};

/* The piece tables turned around for reading stickers: piece + 1 (0 =
 * none) by the U/D colour (0 = U, 1 = D) and the two colours after it
 * clockwise; piece·2 + flip + 1 by an edge's two colours. */
static const unsigned char corner_by_colors[2][6][6] = {
	[0] = {[R] = {[F] = 1}, [F] = {[L] = 2}, [L] = {[B] = 3}, [B] = {[R] = 4}},
	[1] = {[F] = {[R] = 5}, [L] = {[F] = 6}, [B] = {[L] = 7}, [R] = {[B] = 8}},
};
static const unsigned char edge_by_colors[6][6] = {
	[U] = {[R] = 1, [F] = 3, [L] = 5, [B] = 7},
	[R] = {[U] = 2, [D] = 10, [F] = 18, [B] = 24},
	[F] = {[U] = 4, [D] = 12, [R] = 17, [L] = 19},
	[D] = {[R] = 9, [F] = 11, [L] = 13, [B] = 15},
	[L] = {[U] = 6, [D] = 14, [F] = 20, [B] = 22},
	[B] = {[U] = 8, [D] = 16, [L] = 21, [R] = 23},
};

int cubie__corner_of(int c0, int c1, int c2)
{
	const int col[5] = {c0, c1, c2, c0, c1};
	if ((unsigned)c0 > 5 || (unsigned)c1 > 5 || (unsigned)c2 > 5)
		return -1;
	for (int t = 0; t < 3; t++) {
		if (col[t] != U && col[t] != D)
			continue;
		int p = corner_by_colors[col[t] == D][col[t + 1]][col[t + 2]];
		if (p)
			return (p - 1) * 3 + t;
	}
	return -1;
}

int cubie__edge_of(int c0, int c1)
{
	if ((unsigned)c0 > 5 || (unsigned)c1 > 5)
		return -1;
	return edge_by_colors[c0][c1] - 1;
}
