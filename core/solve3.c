/* solve3.c — the 3×3 cube's symmetries as cubies (solve3.h), with which
 * the two-phase solver (twophase.c) reduces its tables.
 *
 * Pure C11, no allocation, no globals but const tables.
 */
#include "solve3.h"

const cubie3 solve3__s_urf3 = {{0, 4, 5, 1, 3, 7, 6, 2},
			       {1, 2, 1, 2, 2, 1, 2, 1},
			       {1, 8, 5, 9, 3, 11, 7, 10, 0, 4, 6, 2},
			       {1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 1}};
const cubie3 solve3__s_f2 = {{5, 4, 7, 6, 1, 0, 3, 2},
			     {0},
			     {6, 5, 4, 7, 2, 1, 0, 3, 9, 8, 11, 10},
			     {0}};
const cubie3 solve3__s_u4 = {{3, 0, 1, 2, 7, 4, 5, 6},
			     {0},
			     {3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10},
			     {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1}};
const cubie3 solve3__s_lr2 = {{1, 0, 3, 2, 5, 4, 7, 6},
			      {3, 3, 3, 3, 3, 3, 3, 3},
			      {2, 1, 0, 3, 6, 5, 4, 7, 9, 8, 11, 10},
			      {0}};

void solve3__mul(const cubie3 *a, const cubie3 *b, cubie3 *out)
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

void solve3__ud_syms(cubie3 sym[SOLVE3_UD_SYMS], uint8_t inv[SOLVE3_UD_SYMS])
{
	cubie3 c;
	cubie3_solved(&c);
	int k = 0;
	for (int f2 = 0; f2 < 2; f2++) {
		for (int u4 = 0; u4 < 4; u4++) {
			for (int lr2 = 0; lr2 < 2; lr2++) {
				sym[k++] = c;
				solve3__mul(&c, &solve3__s_lr2, &c);
			}
			solve3__mul(&c, &solve3__s_u4, &c);
		}
		solve3__mul(&c, &solve3__s_f2, &c);
	}
	cubie3 id, p;
	cubie3_solved(&id);
	for (int i = 0; i < SOLVE3_UD_SYMS; i++)
		for (int j = 0; j < SOLVE3_UD_SYMS; j++) {
			solve3__mul(&sym[i], &sym[j], &p);
			if (cubie3_equal(&p, &id))
				inv[i] = (uint8_t)j;
		}
}

void solve3__conj(const cubie3 *sym, const uint8_t *inv, const cubie3 *x,
		  int k, cubie3 *out)
{
	cubie3 t;
	solve3__mul(&sym[k], x, &t);
	solve3__mul(&t, &sym[inv[k]], out);
}
