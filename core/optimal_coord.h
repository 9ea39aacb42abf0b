/* optimal_coord.h — the whole-cube form that the optimal solver's two
 * halves share (opt__ names): its arithmetic, the 48 symmetries as
 * conjugation tables, the coordinates both the table builder
 * (optimal_tables.c) and the search (optimal.c) read off a cube, and
 * their sizes. Not part of the public API.
 *
 * A cube here is 20 bytes: corner byte = twist << 3 | piece, edge byte =
 * flip << 4 | piece, positions and pieces numbered as in cubie.h. a·b is
 * "a, then b" as cubie3_compose.
 *
 * The coordinates are those of cosets of subgroups that every one of the
 * 48 symmetries maps onto itself, so a table needs one entry per
 * symmetry class (optimal_tables.h says which subgroups):
 *   - corners: the twist (U/D facelets), which positions hold the
 *     tetrad {URF, ULB, DLF, DRB} (the other tetrad is UFL, UBR, DFR,
 *     DBL), and the order of each tetrad's four pieces (24 · 24 "ab"
 *     values) up to a group of relabellings: all of them (the cocsep
 *     coordinate, 153,090 values), the square group's (<U2, R2, F2, D2,
 *     L2, B2>, 6 orbits) or two subgroups of it (12 and 36 orbits);
 *   - edges: which positions hold E-slice edges (FR FL BL BR), which of
 *     the others hold M-slice edges (UF UB DF DB), the rest being S-slice
 *     edges (UR UL DR DL): 34,650 "esep" values; and the parity of the
 *     flips of the M edges and of the S edges (4 "fp" values). */
#ifndef CUBED_OPTIMAL_COORD_H
#define CUBED_OPTIMAL_COORD_H

#include <stddef.h>
#include <stdint.h>

#include "cubie.h"

enum {
	OPT__NMOVE = 18,   /* face · 3 + quarter turns - 1, faces U R F D L B */
	OPT__NSYM = 48,
	OPT__NTWIST = 2187,
	OPT__NSEP = 70,        /* places of one corner tetrad */
	OPT__NCOCSEP = OPT__NTWIST * OPT__NSEP,
	OPT__NAB = 576,        /* orders of the two tetrads */
	OPT__NESEP = 34650,    /* 495 E places · 70 M places among the rest */
	OPT__NFP = 4,
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

static inline int opt__is_solved(const opt__cube *x)
{
	for (int i = 0; i < 8; i++)
		if (x->c[i] != i)
			return 0;
	for (int i = 0; i < 12; i++)
		if (x->e[i] != i)
			return 0;
	return 1;
}

void opt__from_cubie(const cubie3 *c, opt__cube *out);
void opt__to_cubie(const opt__cube *c, cubie3 *out);
void opt__solved(opt__cube *x);

/* The cube of face turn m. */
void opt__move_cube(int m, opt__cube *out);

/* ------------------------------------------------------------ symmetries */

/* Conjugation by symmetry s, y = S·x·S⁻¹, as tables: position i of y
 * takes the byte at position src of x through a table. Filled by
 * opt__make_syms; the search reads them from the tables' buffer. */
typedef struct opt__syms {
	uint8_t csrc[OPT__NSYM][8];
	uint8_t esrc[OPT__NSYM][12];
	uint8_t cmap[OPT__NSYM][8][24];  /* corner byte → corner byte */
	uint8_t emap[OPT__NSYM][12][32]; /* edge byte → edge byte */
	uint8_t inv[OPT__NSYM];          /* S⁻¹ */
	uint8_t mconj[OPT__NSYM][OPT__NMOVE]; /* S·m·S⁻¹ as a move */
} opt__syms;

/* Fill y (all 48; symmetry 0 is the identity). 0, or -1 if the
 * symmetries do not come out as 48 distinct ones (a bug). */
int opt__make_syms(opt__syms *y);

static inline void opt__conj(const opt__syms *y, int s, const opt__cube *x,
			     opt__cube *out)
{
	for (int i = 0; i < 8; i++)
		out->c[i] = y->cmap[s][i][x->c[y->csrc[s][i]]];
	for (int i = 0; i < 12; i++)
		out->e[i] = y->emap[s][i][x->e[y->esrc[s][i]]];
}

/* --------------------------------------------------- rank tables (small) */

typedef struct opt__ranks {
	uint8_t sep[256];     /* 8-bit mask with 4 bits → 0..69 (else 255) */
	uint8_t perm4[256];   /* 4 base-4 digits, a permutation → 0..23 */
	uint16_t e4[4096];    /* 12-bit mask with 4 bits → 0..494 */
	/* per ab value (a · 24 + b), for the three relabelling groups
	 * (kind 0: the square group's, 1: its subgroup where each tetrad's
	 * order is even, 2: the Klein four-groups of both): */
	uint8_t orb[OPT__NAB];     /* orbit under the square group, 0..5 */
	uint8_t sub[3][OPT__NAB];  /* the kind's orbit within it: 0, 0..1,
				    * 0..5 */
	uint16_t ab_of[3][6][6];   /* an ab value of orbit o, sub-orbit j */
	/* the ab value after half turn h (U2 R2 F2 D2 L2 B2) relabels the
	 * pieces (of the cube h·x) */
	uint16_t hab[OPT__NAB][6];
} opt__ranks;

/* Fill r. 0, or -1 if the group orbits do not come out as expected. */
int opt__make_ranks(opt__ranks *r);

/* ------------------------------------------------------------ coordinates */

static inline int opt__twist(const opt__cube *x)
{
	int t = 0;
	for (int i = 0; i < 7; i++)
		t = 3 * t + (x->c[i] >> 3);
	return t;
}

/* Bit i set when corner position i holds a piece of tetrad A (URF ULB
 * DLF DRB = pieces 0, 2, 5, 7). */
static inline unsigned opt__sep_mask(const opt__cube *x)
{
	unsigned m = 0;
	for (int i = 0; i < 8; i++)
		m |= (0xA5u >> (x->c[i] & 7) & 1u) << i;
	return m;
}

/* The two tetrads' orders: a · 24 + b. */
static inline unsigned opt__ab(const opt__ranks *r, const opt__cube *x)
{
	unsigned a = 0, b = 0;
	for (int i = 0; i < 8; i++) {
		unsigned p = x->c[i] & 7u;
		if (0xA5u >> p & 1u)
			a = a << 2 | p >> 1;
		else
			b = b << 2 | p >> 1;
	}
	return (unsigned)r->perm4[a & 255] * 24u + r->perm4[b & 255];
}

/* twist · 70 + sep. */
static inline uint32_t opt__cocsep(const opt__ranks *r, const opt__cube *x)
{
	return (uint32_t)opt__twist(x) * OPT__NSEP + r->sep[opt__sep_mask(x)];
}

/* The edges' esep · 4 + fp. */
static inline uint32_t opt__edges(const opt__ranks *r, const opt__cube *x)
{
	unsigned me = 0, mm = 0, k = 0, pm = 0, ps = 0;
	for (int i = 0; i < 12; i++) {
		unsigned p = x->e[i] & 15u, f = x->e[i] >> 4;
		if (p >= 8) {
			me |= 1u << i;
		} else {
			if (p & 1u) {
				mm |= 1u << k;
				pm ^= f;
			} else {
				ps ^= f;
			}
			k++;
		}
	}
	return ((uint32_t)r->e4[me] * OPT__NSEP + r->sep[mm]) * OPT__NFP +
	       (pm | ps << 1);
}

#endif
