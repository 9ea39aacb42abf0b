/* reduced3x3.c — the hand-off to the 3×3 solver: the reduced cube read as
 * 54 facelets in the frame, its permutation parities and flip, and the
 * "3x3" stage, two-phase with face turns (which keep centers and pairs).
 */
#include <string.h>

#include "cubie_internal.h"

#include "reduced3x3.h"
#include "turns.h"

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

/* Two-phase on the reduced cube as x->c holds it: its moves into mv
 * (32 at most), their count, or an error. last: if nothing is found
 * within the budget, search on as long as it takes (only the caller's
 * poll stops it), for any 21 or less. *stopped: the caller's poll
 * stopped it. */
static int solve3(struct ctx *x, const void *tables, cube_move *mv, int last,
		  int *stopped)
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
	int k = twophase_solve(tables, &cc, &lim, mv, 32);
	if (k == SOLVE_ENOTFOUND && !bg.stopped && last) {
		bg.left = -1;
		lim.target_length = 21;
		k = twophase_solve(tables, &cc, &lim, mv, 32);
	}
	*stopped = bg.stopped;
	return k;
}

/* The face turns that merge into the last move made, leaving it one
 * block turn: into f[], the merged moves into to[]; how many (at most
 * 4). A block next to a face grows by it (2U' then U': Uw'); a block
 * holding a face and more loses it (Uw2 then U2: 2Uw2); a face turn
 * takes its other amounts. Any face turn keeps the centers and the
 * pairs, so the stage the last move belongs to still reaches its goal,
 * and the reduced cube after it is another that two-phase may find
 * shorter: the 3×3 stage tries each (reduce__stage_3x3). */
static int free_turns(const struct ctx *x, cube_move *f, cube_move *to)
{
	if (x->count == 0)
		return 0;
	cube_move p = x->out[x->count - 1];
	int m = x->m, k = 0;
	for (int side = 0; side < 2; side++) {
		uint16_t face = (uint16_t)(side ? m : 0);
		int holds = side ? p.hi == m : p.lo == 0;
		int next = side ? p.hi == m - 1 : p.lo == 1;
		cube_move t = p;
		if (next && (side ? p.lo > 0 : p.hi < m)) {
			/* (not when it would turn the whole cube) */
			f[k] = (cube_move){p.axis, p.qt, face, face};
			if (side)
				t.hi = face;
			else
				t.lo = face;
			to[k++] = t;
		} else if (holds && p.lo != p.hi) {
			f[k] = (cube_move){p.axis, (uint8_t)((4 - p.qt) & 3),
					   face, face};
			if (side)
				t.hi = (uint16_t)(m - 1);
			else
				t.lo = 1;
			to[k++] = t;
		} else if (holds) {
			for (int q = 1; q <= 3; q++) {
				if ((p.qt + q) % 4 == 0)
					continue; /* (gone: never a stage's
						   * last move) */
				f[k] = (cube_move){p.axis, (uint8_t)q, face,
						   face};
				t.qt = (uint8_t)((p.qt + q) & 3);
				to[k++] = t;
			}
		}
	}
	return k;
}

/* The 3×3 stage: two-phase on the reduced cube, and where x->free3 says
 * so on each reduced cube one free turn away (free_turns), that turn
 * merged into the last move made when its 3×3 is shorter. 20 states
 * each, against two-phase on the cube alone (bench/RESULTS.md): 3x3
 * 18.40 → 18.00 moves on 10×10, 17.90 → 17.50 on 6×6 (3–9 % more
 * time); 4×4, whose 20 variants each try the 3×3, only in its winner's
 * last search (18.45 → 18.15 for no more time). */
int reduce__stage_3x3(struct ctx *x, const void *tables)
{
	cube_move mv[32], alt[32], f[4], to[4];
	int stopped, best = -1;
	int k = solve3(x, tables, mv, 1, &stopped);
	if (k < 0)
		return k;
	int nf = x->free3 ? free_turns(x, f, to) : 0;
	for (int i = 0; i < nf; i++) {
		cube_move *t = &f[i];
		cube__turn_generic(x->c, t->axis, t->lo, t->hi, t->qt);
		int kt = solve3(x, tables, alt, 0, &stopped);
		cube__turn_generic(x->c, t->axis, t->lo, t->hi,
				   (4 - t->qt) & 3);
		if (stopped)
			break; /* the caller's poll: the answer in hand */
		if (kt == SOLVE_ENOTFOUND)
			continue; /* nothing within its budget */
		if (kt < 0)
			return kt;
		if (kt < k) {
			k = kt, best = i;
			memcpy(mv, alt, (size_t)kt * sizeof *mv);
		}
	}
	if (best >= 0) {
		cube_move *t = &f[best];
		x->out[x->count - 1] = to[best];
		cube__turn_generic(x->c, t->axis, t->lo, t->hi, t->qt);
	}
	for (int i = 0; i < k; i++) {
		int rc = emit(x, mv[i].axis, mv[i].lo == 0 ? 0 : x->m, mv[i].qt);
		if (rc < 0)
			return rc;
	}
	return 0;
}
