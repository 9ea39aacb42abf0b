/* optimal_coord.c — the whole-cube form of the optimal solver
 * (optimal_coord.h): converting to and from the cubie model, the face
 * turns, and the URF rotation that lets the search read a table with
 * another axis vertical. The coordinates themselves are inline in the
 * header, since the search reads them at every node; what is here runs
 * once per table build or per solve.
 */
#include "optimal_coord.h"
#include "solve3.h"

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

void opt__urf(opt__cube *s, opt__cube *sinv)
{
	opt__from_cubie(&solve3__s_urf3, s);
	opt__inv(s, sinv);
}

/* ------------------------------------------------- all 48 symmetries */

/* a's inverse: a·b is the identity (a mirrored a's inverse is mirrored,
 * with the same twist where a's piece lands). */
static void inv_full(const cubie3 *a, cubie3 *b)
{
	for (int j = 0; j < 8; j++) {
		int i = a->cp[j];
		b->cp[i] = (uint8_t)j;
		b->co[i] = (uint8_t)(a->co[j] < 3 ? (3 - a->co[j]) % 3
						  : a->co[j]);
	}
	for (int j = 0; j < 12; j++) {
		b->ep[a->ep[j]] = (uint8_t)j;
		b->eo[a->ep[j]] = a->eo[j];
	}
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
				solve3__mul(&e, &solve3__s_lr2, &s[k++]);
				solve3__mul(&e, &solve3__s_u4, &e);
			}
			solve3__mul(&d, &solve3__s_f2, &d);
		}
		solve3__mul(&c, &solve3__s_urf3, &c);
	}
	/* each one's inverse, checked; no two alike */
	cubie3_solved(&id);
	for (int i = 0; i < OPT__NSYM48; i++) {
		cubie3 p;
		y->s[i] = s[i];
		inv_full(&s[i], &y->si[i]);
		solve3__mul(&s[i], &y->si[i], &p);
		if (!full_equal(&p, &id))
			return -1;
		for (int j = 0; j < i; j++)
			if (full_equal(&s[i], &s[j]))
				return -1;
	}
	y->mready = 0;
	return 0;
}

const uint8_t *opt__sym_moves(opt__syms48 *y, int s)
{
	if (y->mready >> s & 1)
		return y->mconj[s];
	for (int m = 0; m < 18; m++) {
		opt__cube mv, x, m2c;
		opt__move_cube(m, &mv);
		opt__conj48(y, s, &mv, &x);
		int f = -1;
		for (int m2 = 0; m2 < 18 && f < 0; m2++) {
			opt__move_cube(m2, &m2c);
			if (memcmp(&x, &m2c, sizeof x) == 0)
				f = m2;
		}
		if (f < 0)
			return NULL;
		y->mconj[s][m] = (uint8_t)f;
	}
	y->mready |= (uint64_t)1 << s;
	return y->mconj[s];
}
