/* optimal_coord.c — the whole-cube form of the optimal solver
 * (optimal_coord.h): converting to and from the cubie model, the face
 * turns, the 48 symmetries as conjugation tables and the small rank
 * tables of the coordinates. The coordinates themselves are inline in
 * the header, since the search reads them at every node; what is here
 * runs once per table build.
 */
#include "optimal_coord.h"

#include <string.h>

void opt__from_cubie(const cubie3 *c, opt__cube *out)
{
	for (int i = 0; i < 8; i++)
		out->c[i] = (uint8_t)(c->cp[i] | c->co[i] << 3);
	for (int i = 0; i < 12; i++)
		out->e[i] = (uint8_t)(c->ep[i] | c->eo[i] << 4);
}

void opt__to_cubie(const opt__cube *c, cubie3 *out)
{
	for (int i = 0; i < 8; i++) {
		out->cp[i] = c->c[i] & 7;
		out->co[i] = c->c[i] >> 3;
	}
	for (int i = 0; i < 12; i++) {
		out->ep[i] = c->e[i] & 15;
		out->eo[i] = c->e[i] >> 4;
	}
}

void opt__solved(opt__cube *x)
{
	for (int i = 0; i < 8; i++)
		x->c[i] = (uint8_t)i;
	for (int i = 0; i < 12; i++)
		x->e[i] = (uint8_t)i;
}

void opt__move_cube(int m, opt__cube *out)
{
	cubie3 c;
	cubie3_face_turn(m / 3, m % 3 + 1, &c);
	opt__from_cubie(&c, out);
}

/* ------------------------------------------------------------ symmetries */

/* Kociemba's basic symmetries: the 120° turn about the URF–DBL diagonal,
 * 180° about F–B, 90° about U–D, and the mirror in the plane between L
 * and R; a corner twist t + 3 marks a mirrored corner. */
static const cubie3 s_urf3 = {{0, 4, 5, 1, 3, 7, 6, 2},
			      {1, 2, 1, 2, 2, 1, 2, 1},
			      {1, 8, 5, 9, 3, 11, 7, 10, 0, 4, 6, 2},
			      {1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 1}};
static const cubie3 s_f2 = {{5, 4, 7, 6, 1, 0, 3, 2},
			    {0},
			    {6, 5, 4, 7, 2, 1, 0, 3, 9, 8, 11, 10},
			    {0}};
static const cubie3 s_u4 = {{3, 0, 1, 2, 7, 4, 5, 6},
			    {0},
			    {3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10},
			    {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1}};
static const cubie3 s_lr2 = {{1, 0, 3, 2, 5, 4, 7, 6},
			     {3, 3, 3, 3, 3, 3, 3, 3},
			     {2, 1, 0, 3, 6, 5, 4, 7, 9, 8, 11, 10},
			     {0}};

/* a then b where either may be mirrored (twists 3..5). */
static void mul_full(const cubie3 *a, const cubie3 *b, cubie3 *out)
{
	cubie3 t;
	for (int i = 0; i < 8; i++) {
		int j = b->cp[i], oa = a->co[j], ob = b->co[i], o;
		t.cp[i] = a->cp[j];
		if (oa < 3 && ob < 3)
			o = (oa + ob) % 3;
		else if (oa < 3)
			o = (oa + ob - 3) % 3 + 3;
		else if (ob < 3)
			o = (oa - ob + 3) % 3 + 3;
		else
			o = (oa - ob + 3) % 3;
		t.co[i] = (uint8_t)o;
	}
	for (int i = 0; i < 12; i++) {
		t.ep[i] = a->ep[b->ep[i]];
		t.eo[i] = (uint8_t)((a->eo[b->ep[i]] + b->eo[i]) & 1);
	}
	*out = t;
}

static int full_equal(const cubie3 *a, const cubie3 *b)
{
	return memcmp(a, b, sizeof *a) == 0;
}

int opt__make_syms(opt__syms *y)
{
	cubie3 s[OPT__NSYM], c, id;
	cubie3_solved(&c);
	int k = 0;
	for (int u3 = 0; u3 < 3; u3++) {
		cubie3 d = c;
		for (int f2 = 0; f2 < 2; f2++) {
			cubie3 e = d;
			for (int u4 = 0; u4 < 4; u4++) {
				s[k++] = e;
				mul_full(&e, &s_lr2, &s[k++]);
				mul_full(&e, &s_u4, &e);
			}
			mul_full(&d, &s_f2, &d);
		}
		mul_full(&c, &s_urf3, &c);
	}
	cubie3_solved(&id);
	for (int i = 0; i < OPT__NSYM; i++) {
		int n = 0;
		for (int j = 0; j < OPT__NSYM; j++) {
			cubie3 p;
			mul_full(&s[i], &s[j], &p);
			if (full_equal(&p, &id)) {
				y->inv[i] = (uint8_t)j;
				n++;
			}
			if (j != i && full_equal(&s[i], &s[j]))
				return -1;
		}
		if (n != 1)
			return -1;
	}
	/* the tables: position i of S·x·S⁻¹ takes x's position src */
	for (int i = 0; i < OPT__NSYM; i++) {
		const cubie3 *a = &s[i], *b = &s[y->inv[i]];
		for (int p = 0; p < 8; p++) {
			int src = b->cp[p];
			y->csrc[i][p] = (uint8_t)src;
			for (int v = 0; v < 24; v++) {
				cubie3 x, t;
				cubie3_solved(&x);
				x.cp[src] = (uint8_t)(v & 7);
				x.co[src] = (uint8_t)(v >> 3);
				mul_full(a, &x, &t);
				mul_full(&t, b, &t);
				if (t.co[p] > 2)
					return -1;
				y->cmap[i][p][v] = (uint8_t)(t.cp[p] | t.co[p] << 3);
			}
		}
		for (int p = 0; p < 12; p++) {
			int src = b->ep[p];
			y->esrc[i][p] = (uint8_t)src;
			memset(y->emap[i][p], 0, 32);
			for (int v = 0; v < 32; v++) {
				if ((v & 15) >= 12)
					continue;
				cubie3 x, t;
				cubie3_solved(&x);
				x.ep[src] = (uint8_t)(v & 15);
				x.eo[src] = (uint8_t)(v >> 4);
				mul_full(a, &x, &t);
				mul_full(&t, b, &t);
				y->emap[i][p][v] = (uint8_t)(t.ep[p] | t.eo[p] << 4);
			}
		}
	}
	/* each face turn's conjugates are face turns */
	opt__cube mv[OPT__NMOVE];
	for (int m = 0; m < OPT__NMOVE; m++)
		opt__move_cube(m, &mv[m]);
	for (int i = 0; i < OPT__NSYM; i++)
		for (int m = 0; m < OPT__NMOVE; m++) {
			opt__cube x;
			int f = -1;
			opt__conj(y, i, &mv[m], &x);
			for (int m2 = 0; m2 < OPT__NMOVE; m2++)
				if (memcmp(&x, &mv[m2], sizeof x) == 0)
					f = m2;
			if (f < 0)
				return -1;
			y->mconj[i][m] = (uint8_t)f;
		}
	return 0;
}

/* ------------------------------------------------------------ the ranks */

/* The pieces of tetrad A (URF ULB DLF DRB) and B (UFL UBR DFR DBL) by
 * their place in the tetrad (piece >> 1). */
static const uint8_t tet_a[4] = {0, 2, 5, 7}, tet_b[4] = {1, 3, 4, 6};

/* An element of a relabelling group: what each tetrad's pieces become. */
struct relabel {
	uint8_t a[4], b[4];
};

static int perm_even(const uint8_t p[4])
{
	int inv = 0;
	for (int i = 0; i < 4; i++)
		for (int j = i + 1; j < 4; j++)
			inv += p[i] > p[j];
	return inv % 2 == 0;
}

/* In the Klein four-group: the identity or two swaps. */
static int perm_klein(const uint8_t p[4])
{
	for (int i = 0; i < 4; i++)
		if (p[p[i]] != i)
			return 0;
	return p[0] != 0 || (p[1] == 1 && p[2] == 2);
}

int opt__make_ranks(opt__ranks *r)
{
	int k = 0;
	memset(r, 0xff, sizeof *r);
	for (int m = 0; m < 256; m++)
		if (__builtin_popcount((unsigned)m) == 4)
			r->sep[m] = (uint8_t)k++;
	k = 0;
	for (int m = 0; m < 4096; m++)
		if (__builtin_popcount((unsigned)m) == 4)
			r->e4[m] = (uint16_t)k++;
	uint8_t code[24];
	k = 0;
	for (int o = 0; o < 256; o++) {
		int seen = 0;
		for (int d = 0; d < 4; d++)
			seen |= 1 << (o >> (2 * d) & 3);
		if (seen == 15) {
			code[k] = (uint8_t)o;
			r->perm4[o] = (uint8_t)k++;
		}
	}
	/* the square group's relabellings: generated by the corner
	 * permutations of the six half turns, each piece p becoming p' */
	struct relabel g[96];
	int ng = 1;
	for (int i = 0; i < 4; i++)
		g[0].a[i] = g[0].b[i] = (uint8_t)i;
	struct relabel gen[6];
	for (int h = 0; h < 6; h++) {
		cubie3 t;
		cubie3_face_turn(h, 2, &t);
		for (int i = 0; i < 4; i++) {
			gen[h].a[i] = (uint8_t)(t.cp[tet_a[i]] >> 1);
			gen[h].b[i] = (uint8_t)(t.cp[tet_b[i]] >> 1);
			if (!(0xA5u >> t.cp[tet_a[i]] & 1u) ||
			    (0xA5u >> t.cp[tet_b[i]] & 1u))
				return -1;
		}
	}
	for (int i = 0; i < ng; i++)
		for (int h = 0; h < 6; h++) {
			struct relabel x;
			for (int d = 0; d < 4; d++) {
				x.a[d] = gen[h].a[g[i].a[d]];
				x.b[d] = gen[h].b[g[i].b[d]];
			}
			int dup = 0;
			for (int j = 0; j < ng && !dup; j++)
				dup = memcmp(&g[j], &x, sizeof x) == 0;
			if (!dup) {
				if (ng == 96)
					return -1;
				g[ng++] = x;
			}
		}
	if (ng != 96)
		return -1;
	/* orbits of the 576 ab values under the whole group, then under its
	 * subgroups of index 2 (each tetrad's order even) and 6 (Klein) */
	uint8_t orb[3][OPT__NAB];
	int norb[3] = {0, 0, 0};
	memset(orb, 0xff, sizeof orb);
	for (int kind = 0; kind < 3; kind++) {
		for (int ab = 0; ab < OPT__NAB; ab++) {
			if (orb[kind][ab] != 0xff)
				continue;
			int o = norb[kind]++;
			uint8_t ca = code[ab / 24], cb = code[ab % 24];
			for (int i = 0; i < 96; i++) {
				if (kind == 1 && !perm_even(g[i].a))
					continue;
				if (kind == 2 && !(perm_klein(g[i].a) &&
						   perm_klein(g[i].b)))
					continue;
				int na = 0, nb = 0;
				for (int d = 3; d >= 0; d--) {
					na = na << 2 | g[i].a[ca >> (2 * d) & 3];
					nb = nb << 2 | g[i].b[cb >> (2 * d) & 3];
				}
				orb[kind][r->perm4[na] * 24 + r->perm4[nb]] = (uint8_t)o;
			}
		}
	}
	if (norb[0] != 6 || norb[1] != 12 || norb[2] != 36)
		return -1;
	/* the sub-orbits numbered within each orbit in order of their first
	 * ab value */
	static const int nsub[3] = {1, 2, 6};
	for (int kind = 0; kind < 3; kind++) {
		int first[36], n_in[6] = {0};
		for (int o = 0; o < 36; o++)
			first[o] = -1;
		for (int ab = 0; ab < OPT__NAB; ab++) {
			int so = orb[kind][ab], o = orb[0][ab];
			if (first[so] < 0) {
				first[so] = n_in[o]++;
				if (first[so] >= nsub[kind])
					return -1;
				r->ab_of[kind][o][first[so]] = (uint16_t)ab;
			}
			r->sub[kind][ab] = (uint8_t)first[so];
		}
		for (int o = 0; o < 6; o++)
			if (n_in[o] != nsub[kind])
				return -1;
	}
	memcpy(r->orb, orb[0], sizeof r->orb);
	for (int ab = 0; ab < OPT__NAB; ab++) {
		uint8_t ca = code[ab / 24], cb = code[ab % 24];
		for (int h = 0; h < 6; h++) {
			int na = 0, nb = 0;
			for (int d = 3; d >= 0; d--) {
				na = na << 2 | gen[h].a[ca >> (2 * d) & 3];
				nb = nb << 2 | gen[h].b[cb >> (2 * d) & 3];
			}
			r->hab[ab][h] = (uint16_t)(r->perm4[na] * 24 + r->perm4[nb]);
		}
	}
	return 0;
}
