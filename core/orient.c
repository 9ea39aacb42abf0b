/* orient.c — the 24 whole-cube orientations of a 2×2 or 3×3: which one a
 * cube is in (from its centers, or from where its DBL corner sits, since a
 * 2×2 has no centers), the shortest x/y/z sequence back to the standard
 * orientation, and turning facelets by it.
 *
 * The table is fixed data, so it is written out rather than searched for
 * at run time: each row is one orientation, named by the colours its
 * centers show in URFDLB order, with the shortest rotation sequence (ties
 * broken towards x before y before z, quarter before half before inverse)
 * that takes a cube so oriented to the standard one. The rows came from a
 * breadth-first search over rotation sequences with the facelet engine;
 * the test suite checks every row against cube_turn again.
 */
#include "orient.h"

#include <string.h>

struct rotation {
	char centers[7];   /* colours seen on U R F D L B */
	char moves[8];     /* cube_orientation.moves */
	unsigned char count;
	unsigned char turn[2][2]; /* (axis, clockwise quarter turns) */
};

static const struct rotation rotations[CUBIE_ROTATIONS] = {
	{"URFDLB", "", 0, {{0, 0}, {0, 0}}},
	{"BRUFLD", "x", 1, {{0, 1}, {0, 0}}},
	{"DRBULF", "x2", 1, {{0, 2}, {0, 0}}},
	{"FRDBLU", "x'", 1, {{0, 3}, {0, 0}}},
	{"UFLDBR", "y", 1, {{1, 1}, {0, 0}}},
	{"ULBDRF", "y2", 1, {{1, 2}, {0, 0}}},
	{"UBRDFL", "y'", 1, {{1, 3}, {0, 0}}},
	{"RDFLUB", "z", 1, {{2, 1}, {0, 0}}},
	{"DLFURB", "z2", 1, {{2, 2}, {0, 0}}},
	{"LUFRDB", "z'", 1, {{2, 3}, {0, 0}}},
	{"BULFDR", "y x", 2, {{1, 1}, {0, 1}}},
	{"BLDFRU", "y2 x", 2, {{1, 2}, {0, 1}}},
	{"BDRFUL", "y' x", 2, {{1, 3}, {0, 1}}},
	{"RFULBD", "z x", 2, {{2, 1}, {0, 1}}},
	{"FLUBRD", "z2 x", 2, {{2, 2}, {0, 1}}},
	{"LBURFD", "z' x", 2, {{2, 3}, {0, 1}}},
	{"DBLUFR", "y x2", 2, {{1, 1}, {0, 2}}},
	{"DFRUBL", "y' x2", 2, {{1, 3}, {0, 2}}},
	{"RUBLDF", "z x2", 2, {{2, 1}, {0, 2}}},
	{"LDBRUF", "z' x2", 2, {{2, 3}, {0, 2}}},
	{"FDLBUR", "y x'", 2, {{1, 1}, {0, 3}}},
	{"FURBDL", "y' x'", 2, {{1, 3}, {0, 3}}},
	{"RBDLFU", "z x'", 2, {{2, 1}, {0, 3}}},
	{"LFDRBU", "z' x'", 2, {{2, 3}, {0, 3}}},
};

int cubie__rotation_of_centers(const char centers[6])
{
	for (int k = 0; k < CUBIE_ROTATIONS; k++)
		if (memcmp(rotations[k].centers, centers, 6) == 0)
			return k;
	return -1;
}

int cubie__rotation_of_letters(char up, char front)
{
	for (int k = 0; k < CUBIE_ROTATIONS; k++)
		if (rotations[k].centers[0] == up &&
		    rotations[k].centers[2] == front)
			return k;
	return -1;
}

/* A corner fixes the orientation: the face its D sticker lies on is the
 * one that would show D's center, the opposite face U's, and so on. */
int cubie__rotation_of_dbl(int fd, int fl, int fb)
{
	char cen[6] = {0};
	const int face[3] = {fd, fl, fb};
	const char here[3] = {'D', 'L', 'B'}, there[3] = {'U', 'R', 'F'};
	for (int k = 0; k < 3; k++) {
		if (face[k] < 0 || face[k] > 5)
			return -1;
		int f = face[k], o = (f + 3) % 6;
		if (cen[f] || cen[o])
			return -1;
		cen[f] = here[k];
		cen[o] = there[k];
	}
	return cubie__rotation_of_centers(cen);
}

void cubie__orientation(int rot, cube_orientation *o)
{
	const struct rotation *r = &rotations[rot];
	o->up = r->centers[0];
	o->front = r->centers[2];
	memcpy(o->moves, r->moves, sizeof o->moves);
}

int cubie__rotate(int n, const char *in, int rot, char *out)
{
	if ((n != 2 && n != 3) || rot < 0 || rot >= CUBIE_ROTATIONS)
		return CUBE_EINVAL;
	if (rot == 0) {
		memmove(out, in, 6u * (size_t)n * (size_t)n);
		return CUBE_OK;
	}
	/* A 3×3 state on the stack: cube_sizeof(3) is a small constant, and
	 * core never allocates. The union keeps it aligned for cube_t. */
	union {
		cube_t c;
		unsigned char bytes[256];
	} u;
	size_t len = 6u * (size_t)n * (size_t)n;
	if (cube_sizeof(n) > sizeof u)
		return CUBE_EINVAL;
	int rc = cube_from_facelets(&u.c, n, in, len, NULL);
	if (rc < 0)
		return rc;
	const struct rotation *r = &rotations[rot];
	for (int k = 0; k < r->count; k++)
		cube_turn(&u.c, r->turn[k][0], 0, n - 1, r->turn[k][1]);
	cube_to_facelets(&u.c, out);
	return CUBE_OK;
}
