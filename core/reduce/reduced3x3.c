/* reduced3x3.c — the hand-off to the 3×3 solver: the reduced cube read as
 * 54 facelets in the frame, its permutation parities and flip, and the
 * "3x3" stage, two-phase with face turns (which keep centers and pairs).
 */
#include "internal.h"

/* 3×3 facelet index of a border sticker of the big cube. */
int reduce__idx3(int m, int f, int r, int c)
{
	int r3 = r == 0 ? 0 : r == m ? 2 : 1, c3 = c == 0 ? 0 : c == m ? 2 : 1;
	return f * 9 + r3 * 3 + c3;
}

/* 3×3 coordinate 0..2 → the big cube's (1 → the middle on odd n, else 1:
 * any wing does once edges are paired). */
int reduce__big_of3(int n, int v)
{
	return v == 0 ? 0 : v == 2 ? n - 1 : n % 2 ? n / 2 : 1;
}

/* The reduced cube as 54 letters in the frame: corners read from the
 * cube, edges from ecol[e][side] (colours on edge e's two facelets). */
void reduce__reduced3(const struct ctx *x, uint8_t ecol[12][2], char s[54])
{
	for (int i = 0; i < 54; i++) {
		int f = i / 9, r = i % 9 / 3, c = i % 3;
		int col = cube_get(x->c, f, reduce__big_of3(x->n, r),
				   reduce__big_of3(x->n, c));
		if (r == 1 && c == 1)
			col = x->tcol[f];
		s[i] = cube_face_letters[x->face_of[col]];
	}
	for (int e = 0; e < 12; e++)
		for (int k = 0; k < 2; k++)
			s[cubie__edge_facelet[e][k]] =
				cube_face_letters[x->face_of[ecol[e][k]]];
}

static int face_index(char l)
{
	return (int)(strchr(cube_face_letters, l) - cube_face_letters);
}

int reduce__perm_parity(const int *p, int k)
{
	int odd = 0;
	unsigned seen = 0;
	for (int i = 0; i < k; i++) {
		if (seen & 1u << i)
			continue;
		for (int j = p[i]; j != i; j = p[j]) {
			seen |= 1u << j;
			odd ^= 1;
		}
		seen |= 1u << i;
	}
	return odd;
}

/* Corner and edge permutation parities and the flip sum of a 3×3 in
 * standard orientation; -1 if a piece is not real or repeats. */
int reduce__parities3(const char s[54], int *cpar, int *epar, int *flip)
{
	int cp[8], ep[12];
	unsigned seen = 0;
	*flip = 0;
	for (int i = 0; i < 8; i++) {
		const unsigned char *f = cubie__corner_facelet[i];
		int v = cubie__corner_of(face_index(s[f[0]]), face_index(s[f[1]]),
					 face_index(s[f[2]]));
		if (v < 0 || seen & 1u << (v / 3))
			return -1;
		seen |= 1u << (v / 3);
		cp[i] = v / 3;
	}
	seen = 0;
	for (int e = 0; e < 12; e++) {
		const unsigned char *f = cubie__edge_facelet[e];
		int v = cubie__edge_of(face_index(s[f[0]]), face_index(s[f[1]]));
		if (v < 0 || seen & 1u << (v / 2))
			return -1;
		seen |= 1u << (v / 2);
		ep[e] = v / 2;
		*flip ^= v & 1;
	}
	*cpar = reduce__perm_parity(cp, 8);
	*epar = reduce__perm_parity(ep, 12);
	return 0;
}

int reduce__corner_parity(const struct ctx *x)
{
	uint8_t ecol[12][2]; /* the edges as solved: only the corners count */
	for (int e = 0; e < 12; e++)
		for (int k = 0; k < 2; k++)
			ecol[e][k] =
				(uint8_t)x->tcol[cubie__edge_facelet[e][k] / 9];
	char s[54];
	int cpar, epar, flip;
	reduce__reduced3(x, ecol, s);
	return reduce__parities3(s, &cpar, &epar, &flip) < 0 ? -1 : cpar;
}

struct budget {
	const reduce_limits *lim;
	long left;
	int stopped; /* the caller's poll said stop */
};

static int budget_poll(void *ctx, uint64_t done, uint64_t total)
{
	struct budget *b = ctx;
	if (b->lim && b->lim->poll && b->lim->poll(b->lim->ctx, done, total))
		return b->stopped = 1;
	return b->left >= 0 && --b->left <= 0;
}

void reduce__read_ecol(const struct ctx *x, uint8_t ecol[12][2])
{
	for (int e = 0; e < 12; e++)
		for (int s = 0; s < 2; s++) {
			int i = cubie__edge_facelet[e][s];
			ecol[e][s] = (uint8_t)cube_get(
				x->c, i / 9, reduce__big_of3(x->n, i % 9 / 3),
				reduce__big_of3(x->n, i % 3));
		}
}

int reduce__stage_3x3(struct ctx *x, const void *tables)
{
	uint8_t ecol[12][2];
	reduce__read_ecol(x, ecol);
	char s[54];
	reduce__reduced3(x, ecol, s);
	cubie3 cc;
	cube_orientation or3;
	if (cube3_from_facelets(s, sizeof s, &cc, &or3) < 0 || or3.moves[0])
		return SOLVE_ESTAGE;
	struct budget bg = {x->lim, x->polls, 0};
	solve_limits lim = {.max_length = 24, .target_length = TWOPHASE_TARGET,
			    .poll = budget_poll, .ctx = &bg};
	cube_move mv[32];
	int k = twophase_solve(tables, &cc, &lim, mv,
			       (int)(sizeof mv / sizeof *mv));
	if (k == SOLVE_ENOTFOUND && !bg.stopped) {
		/* nothing within the budget: search as long as it takes
		 * (only the caller's poll stops it), for any 21 or less */
		bg.left = -1;
		lim.target_length = 21;
		k = twophase_solve(tables, &cc, &lim, mv, 32);
	}
	if (k < 0)
		return k;
	for (int i = 0; i < k; i++) {
		int rc = emit(x, mv[i].axis, mv[i].lo == 0 ? 0 : x->m, mv[i].qt);
		if (rc < 0)
			return rc;
	}
	return 0;
}
