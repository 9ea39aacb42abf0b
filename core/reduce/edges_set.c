/* edges_set.c — even n: the edge set the wings vote for (which colours
 * each of the 12 edges gets), made legal and, where it would need the
 * PLL parity, the nearest set that does not. */
#include <string.h>

#include "edges.h"
#include "parity.h"
#include "reduced3x3.h"

/* Even n: the votes two edges lose when their colours are exchanged
 * (each kept as it is or turned over, by o's bits), so that the edge set
 * stands an even permutation from the corners (no PLL parity), or -1 if
 * it does not. */
static int swap_loss(struct ctx *x, const int8_t *e_of3, int (*score)[6][6],
		     uint8_t ecol[12][2], int e1, int e2, int o)
{
	uint8_t t[12][2];
	memcpy(t, ecol, sizeof t);
	for (int s = 0; s < 2; s++) {
		t[e1][s] = ecol[e2][s ^ (o & 1)];
		t[e2][s] = ecol[e1][s ^ (o >> 1)];
	}
	char s3[54];
	int cpar, epar, flip;
	reduce__reduced3(x, t, s3);
	if (reduce__parities3(s3, &cpar, &epar, &flip) < 0 || flip ||
	    cpar != epar)
		return -1;
	/* and every wing orbit's targets an even permutation of what they
	 * were, as the 3-cycles need */
	for (int k = 1; k <= wing_orbits(x->n); k++) {
		struct orbit ob;
		uint8_t was[NPOS], now[NPOS];
		reduce__wing_orbit(x, &ob, k);
		reduce__wing_targets(x, &ob, e_of3, ecol, was);
		reduce__wing_targets(x, &ob, e_of3, t, now);
		if (reduce__orbit_parity(was, now))
			return -1;
	}
	return score[e1][ecol[e1][0]][ecol[e1][1]] +
	       score[e2][ecol[e2][0]][ecol[e2][1]] -
	       score[e1][t[e1][0]][t[e1][1]] - score[e2][t[e2][0]][t[e2][1]];
}

int reduce__choose_edges(struct ctx *x, const int8_t *e_of3,
			 uint8_t ecol[12][2], uint8_t alt[12][2])
{
	int score[12][6][6];
	memset(score, 0, sizeof score);
	for (int k = 1; k <= wing_orbits(x->n); k++) {
		struct orbit o;
		reduce__wing_orbit(x, &o, k);
		for (int i = 0; i < NPOS; i++) {
			int col[2] = {0, 0}, e = 0;
			for (int s = 0; s < 2; s++) {
				const uint16_t *a = o.st[i][s];
				int es = e_of3[reduce__idx3(x->m, a[0], a[1],
								 a[2])];
				e = es / 2;
				col[es % 2] = cube_get(x->c, a[0], a[1], a[2]);
			}
			score[e][col[0]][col[1]]++;
		}
	}
	int used_e = 0;
	uint64_t used_pair = 0; /* bit 6·min + max */
	for (int round = 0; round < 12; round++) {
		int be = -1, b0 = 0, b1 = 0, bs = -1;
		for (int e = 0; e < 12; e++) {
			if (used_e >> e & 1)
				continue;
			for (int a = 0; a < 6; a++)
				for (int b = 0; b < 6; b++) {
					int lo = a < b ? a : b, hi = a ^ b ^ lo;
					if (a == b || a == (b + 3) % 6 ||
					    used_pair >> (6 * lo + hi) & 1)
						continue;
					if (score[e][a][b] > bs) {
						bs = score[e][a][b];
						be = e, b0 = a, b1 = b;
					}
				}
		}
		int lo = b0 < b1 ? b0 : b1, hi = b0 ^ b1 ^ lo;
		used_e |= 1 << be;
		used_pair |= 1ull << (6 * lo + hi);
		ecol[be][0] = (uint8_t)b0;
		ecol[be][1] = (uint8_t)b1;
	}
	char s[54];
	int cpar, epar, flip;
	reduce__reduced3(x, ecol, s);
	if (reduce__parities3(s, &cpar, &epar, &flip) == 0 && flip) {
		int be = 0, bl = 1 << 30;
		for (int e = 0; e < 12; e++) {
			int l = score[e][ecol[e][0]][ecol[e][1]] -
				score[e][ecol[e][1]][ecol[e][0]];
			if (l < bl)
				bl = l, be = e;
		}
		uint8_t t = ecol[be][0];
		ecol[be][0] = ecol[be][1];
		ecol[be][1] = t;
	}
	reduce__reduced3(x, ecol, s);
	if (reduce__parities3(s, &cpar, &epar, &flip) < 0 || cpar == epar)
		return 0;
	int bl = 1 << 30, b1 = -1, b2 = -1, bo = 0;
	for (int e1 = 0; e1 < 12; e1++)
		for (int e2 = e1 + 1; e2 < 12; e2++)
			for (int o = 0; o < 4; o++) {
				int l = swap_loss(x, e_of3, score, ecol, e1,
						  e2, o);
				if (l >= 0 && l < bl)
					bl = l, b1 = e1, b2 = e2, bo = o;
			}
	if (b1 < 0)
		return 0;
	memcpy(alt, ecol, 12 * sizeof *alt);
	for (int k = 0; k < 2; k++) {
		alt[b1][k] = ecol[b2][k ^ (bo & 1)];
		alt[b2][k] = ecol[b1][k ^ (bo >> 1)];
	}
	return 1;
}
