/* optimal_coord.c — the whole-cube form of the optimal solver
 * (optimal_coord.h): converting to and from the cubie model, the face
 * turns, and the URF rotation that lets the search read a table with
 * another axis vertical. The coordinates themselves are inline in the
 * header, since the search reads them at every node; what is here runs
 * once per table build or per solve.
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

void opt__move_cube(int m, opt__cube *out)
{
	cubie3 c;
	cubie3_face_turn(m / 3, m % 3 + 1, &c);
	opt__from_cubie(&c, out);
}

/* The 120° turn about the URF–DBL diagonal (Kociemba's S_URF3). */
static const cubie3 s_urf3 = {{0, 4, 5, 1, 3, 7, 6, 2},
			      {1, 2, 1, 2, 2, 1, 2, 1},
			      {1, 8, 5, 9, 3, 11, 7, 10, 0, 4, 6, 2},
			      {1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 1}};

void opt__urf(opt__cube *s, opt__cube *sinv)
{
	opt__from_cubie(&s_urf3, s);
	opt__inv(s, sinv);
}

/* ------------------------------------------------- all 48 symmetries */

/* Kociemba's other basic symmetries (s_urf3 is above): 180° about F–B, 90° about U–D, and the mirror in the plane between L
 * and R; a corner twist t + 3 marks a mirrored corner. */
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

int opt__make_syms48(opt__syms48 *y)
{
	cubie3 s[OPT__NSYM48], c, id;
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
	uint8_t inv[OPT__NSYM48];
	cubie3_solved(&id);
	for (int i = 0; i < OPT__NSYM48; i++) {
		int n = 0;
		for (int j = 0; j < OPT__NSYM48; j++) {
			cubie3 p;
			mul_full(&s[i], &s[j], &p);
			if (full_equal(&p, &id)) {
				inv[i] = (uint8_t)j;
				n++;
			}
			if (j != i && full_equal(&s[i], &s[j]))
				return -1;
		}
		if (n != 1)
			return -1;
	}
	/* the tables: position i of S·x·S⁻¹ takes x's position src */
	for (int i = 0; i < OPT__NSYM48; i++) {
		const cubie3 *a = &s[i], *b = &s[inv[i]];
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
	opt__cube mv[18];
	for (int m = 0; m < 18; m++)
		opt__move_cube(m, &mv[m]);
	for (int i = 0; i < OPT__NSYM48; i++)
		for (int m = 0; m < 18; m++) {
			opt__cube x;
			int f = -1;
			opt__conj48(y, i, &mv[m], &x);
			for (int m2 = 0; m2 < 18; m2++)
				if (memcmp(&x, &mv[m2], sizeof x) == 0)
					f = m2;
			if (f < 0)
				return -1;
			y->mconj[i][m] = (uint8_t)f;
		}
	return 0;
}
