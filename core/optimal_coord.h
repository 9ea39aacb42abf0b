/* optimal_coord.h — the whole-cube form that the optimal solver's two
 * halves share (opt__ names): its arithmetic, the coordinates both the
 * table builder (optimal_tables.c) and the search (optimal.c) read off
 * it, the sizes of those coordinates, and the cubies of the face turns.
 * Not part of the public API.
 *
 * A cube here is 20 bytes: corner byte = twist << 3 | piece, edge byte =
 * flip << 4 | piece, positions and pieces numbered as in cubie.h. a·b is
 * "a, then b" as cubie3_compose. */
#ifndef CUBED_OPTIMAL_COORD_H
#define CUBED_OPTIMAL_COORD_H

#include <stddef.h>
#include <stdint.h>

#include "cubie.h"

enum {
	OPT__NMOVE = 18,   /* face · 3 + quarter turns - 1, faces U R F D L B */
	OPT__NSYM = 16,    /* symmetries keeping the U–D axis */
	OPT__NTWIST = 2187,
	OPT__NFLIP = 2048,
	OPT__NSLICE = 495,     /* places of the four E-slice edges */
	OPT__NSORTED = 11880,  /* their places and order: slice · 24 + order */
	OPT__NCSEP = 70,       /* places of the four U-layer corners */
	OPT__NFS = OPT__NSLICE * OPT__NFLIP,
	OPT__NFSS = OPT__NSORTED * OPT__NFLIP,
	OPT__NCLS_FS = 64430,
	OPT__NCLS_FSS = 1523864,
	OPT__NCP = 40320,      /* corner permutations */
	OPT__NCLS_CP = 2768,   /* their symmetry classes */
	OPT__MAXWORKERS = 64,
};

typedef struct opt__cube {
	uint8_t c[8];
	uint8_t e[12];
} opt__cube;

/* ------------------------------------------------------ cube arithmetic */

/* out = a·b; out may alias neither. */
static inline void opt__mul(const opt__cube *a, const opt__cube *b,
			    opt__cube *out)
{
	for (int i = 0; i < 8; i++) {
		int x = a->c[b->c[i] & 7];
		int t = (x >> 3) + (b->c[i] >> 3);
		t -= t >= 3 ? 3 : 0;
		out->c[i] = (uint8_t)((x & 7) | t << 3);
	}
	for (int i = 0; i < 12; i++)
		out->e[i] = (uint8_t)(a->e[b->e[i] & 15] ^ (b->e[i] & 16));
}

static inline void opt__inv(const opt__cube *a, opt__cube *out)
{
	for (int i = 0; i < 8; i++) {
		int t = a->c[i] >> 3;
		out->c[a->c[i] & 7] = (uint8_t)(i | (t ? 3 - t : 0) << 3);
	}
	for (int i = 0; i < 12; i++)
		out->e[a->e[i] & 15] = (uint8_t)(i | (a->e[i] & 16));
}

void opt__from_cubie(const cubie3 *c, opt__cube *out);
void opt__to_cubie(const opt__cube *c, cubie3 *out);

/* ------------------------------------------------------------ coordinates */

static inline int opt__twist(const opt__cube *x)
{
	int t = 0;
	for (int i = 0; i < 7; i++)
		t = 3 * t + (x->c[i] >> 3);
	return t;
}

static inline int opt__flip(const opt__cube *x)
{
	int f = 0;
	for (int i = 0; i < 11; i++)
		f = 2 * f + (x->e[i] >> 4);
	return f;
}

/* Bit p set when position p holds an E-slice edge (pieces 8..11). */
static inline int opt__slice_mask(const opt__cube *x)
{
	int m = 0;
	for (int i = 0; i < 12; i++)
		m |= ((x->e[i] & 15) >= 8) << i;
	return m;
}

/* The order of the slice edges read in position order, as a 4-digit
 * base-4 number of (piece - 8): look it up in order_rank. */
static inline int opt__slice_order(const opt__cube *x)
{
	int o = 0;
	for (int i = 0; i < 12; i++)
		if ((x->e[i] & 15) >= 8)
			o = o << 2 | ((x->e[i] & 15) - 8);
	return o;
}

/* The corners' permutation as a Lehmer rank (identity 0). */
static inline int opt__cperm(const opt__cube *x)
{
	int r = 0;
	for (int i = 0; i < 7; i++) {
		int k = 0, pi = x->c[i] & 7;
		for (int j = i + 1; j < 8; j++)
			k += (x->c[j] & 7) < pi;
		r = r * (8 - i) + k;
	}
	return r;
}

/* Bit p set when corner position p holds a U-layer piece (0..3). */
static inline int opt__csep_mask(const opt__cube *x)
{
	int m = 0;
	for (int i = 0; i < 8; i++)
		m |= ((x->c[i] & 7) < 4) << i;
	return m;
}

/* ------------------------------------------------------------ the moves */

/* The cubies of face turn m and of the 16 symmetries (mirrored corners
 * carry twist + 3 only inside optimal_tables.c; these are for edges and
 * unmirrored ones). */
void opt__move_cube(int m, opt__cube *out);

/* The URF rotation S (a 120° turn about the URF–DBL diagonal) as a cube:
 * S·x·S⁻¹ sees x with another axis vertical. */
void opt__urf(opt__cube *s, opt__cube *sinv);

/* ------------------------------------------------- all 48 symmetries */

/* Conjugation by each of the 48 symmetries (rotations and mirrors),
 * y = S·x·S⁻¹, worked out from S and S⁻¹ as cubies (a mirror's twists are
 * 3..5): position p of y takes x's piece at the position S⁻¹ sends to p,
 * through S. Each face turn's conjugate (a face turn) is worked out for a
 * symmetry when first asked. The search uses them to find the symmetries
 * of the cube it is given, near the root only, so nothing is tabulated
 * ahead: a cube without symmetries costs 47 conjugations. */
#define OPT__NSYM48 48

typedef struct opt__syms48 {
	cubie3 s[OPT__NSYM48], si[OPT__NSYM48]; /* S and S⁻¹ */
	uint8_t mconj[OPT__NSYM48][18]; /* S·m·S⁻¹ as a move: see mready */
	uint64_t mready;                /* bit s: mconj[s] filled */
} opt__syms48;

/* Fill y (symmetry 0 is the identity). 0, or -1 if the symmetries do
 * not come out as 48 distinct ones with their inverses (a bug). A few
 * microseconds. */
int opt__make_syms48(opt__syms48 *y);

/* mconj[s] of y, filled on first use; NULL if a face turn's conjugate is
 * not a face turn (a bug). */
const uint8_t *opt__sym_moves(opt__syms48 *y, int s);

/* A corner's twist after a twist oa then ob, where either may be
 * mirrored (3..5). */
static inline int opt__twist_mul(int oa, int ob)
{
	if (oa < 3 && ob < 3)
		return (oa + ob) % 3;
	if (oa < 3)
		return (oa + ob - 3) % 3 + 3;
	if (ob < 3)
		return (oa - ob + 3) % 3 + 3;
	return (oa - ob + 3) % 3;
}

static inline void opt__conj48(const opt__syms48 *y, int s,
			       const opt__cube *x, opt__cube *out)
{
	const cubie3 *a = &y->s[s], *b = &y->si[s];
	for (int p = 0; p < 8; p++) {
		int v = x->c[b->cp[p]], c = v & 7;
		int t = opt__twist_mul(opt__twist_mul(a->co[c], v >> 3),
				       b->co[p]);
		out->c[p] = (uint8_t)(a->cp[c] | t << 3);
	}
	for (int p = 0; p < 12; p++) {
		int v = x->e[b->ep[p]], e = v & 15;
		int t = (a->eo[e] + (v >> 4) + b->eo[p]) & 1;
		out->e[p] = (uint8_t)(a->ep[e] | t << 4);
	}
}

#endif
