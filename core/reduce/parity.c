/* parity.c — the parities of big cubes: the oll_parity stage (one inner
 * slice quarter turn for each wing orbit whose permutation is odd) and the
 * pll_parity stage (two dedges swapped on even n), with the wing-orbit
 * readings they share with the edges stage.
 *
 * Wing parity. An outer face quarter turn moves two 4-cycles of each wing
 * orbit (even); an inner slice quarter turn of layer k or m-k one (odd);
 * 3-cycles are even. Pairing a wing orbit with a legal 3×3 edge set (the
 * midges on odd n) is an odd permutation exactly when the orbit is odd
 * against the solved cube (legal edge sets differ by face turns, which
 * carry wings and targets alike, or by an even number of flips, each one
 * swap of two targets). So the parity stage looks at each orbit against
 * the solved cube, once, and turns slice k where it is odd.
 */
#include <string.h>

#include "cubie_internal.h"

#include "orbits.h"
#include "parity.h"
#include "reduced3x3.h"

void reduce__wing_orbit(struct ctx *x, struct orbit *o, int k)
{
	reduce__orbit_init(o, &x->w->model[M_WING], k, 0, x->m);
}

/* Targets of a wing orbit for the edge colours ecol. */
void reduce__wing_targets(const struct ctx *x, const struct orbit *o,
			  const int8_t *e_of3, uint8_t ecol[12][2],
			  uint8_t *tgt)
{
	for (int i = 0; i < NPOS; i++) {
		int v = 0;
		for (int s = 0; s < 2; s++) {
			const uint16_t *a = o->st[i][s];
			int es = e_of3[reduce__idx3(x->m, a[0], a[1], a[2])];
			v = v * 6 + ecol[es / 2][es % 2];
		}
		tgt[i] = (uint8_t)v;
	}
}

int reduce__orbit_parity(const uint8_t *cur, const uint8_t *tgt)
{
	int where[36], dest[NPOS];
	for (int i = 0; i < 36; i++)
		where[i] = -1;
	for (int i = 0; i < NPOS; i++)
		where[tgt[i]] = i;
	for (int i = 0; i < NPOS; i++)
		dest[i] = where[cur[i]];
	return reduce__perm_parity(dest, NPOS);
}

/* Every wing of every orbit a real piece, each once. */
int reduce__wings_legal(struct ctx *x)
{
	for (int k = 1; k <= wing_orbits(x->n); k++) {
		struct orbit o;
		uint8_t cur[NPOS];
		reduce__wing_orbit(x, &o, k);
		reduce__read_orbit(x, &o, cur);
		uint64_t seen = 0;
		for (int i = 0; i < NPOS; i++) {
			int a = cur[i] / 6, b = cur[i] % 6;
			if (a == b || a == (b + 3) % 6 || seen >> cur[i] & 1)
				return 0;
			seen |= 1ull << cur[i];
		}
	}
	return 1;
}

int reduce__stage_oll(struct ctx *x, const int8_t *e_of3, reduce_result *res)
{
	uint8_t home[12][2];
	for (int e = 0; e < 12; e++)
		for (int s = 0; s < 2; s++)
			home[e][s] = (uint8_t)x->tcol[cubie__edge_facelet[e][s] / 9];
	for (int k = 1; k <= wing_orbits(x->n); k++) {
		struct orbit o;
		uint8_t cur[NPOS], tgt[NPOS];
		reduce__wing_orbit(x, &o, k);
		reduce__read_orbit(x, &o, cur);
		reduce__wing_targets(x, &o, e_of3, home, tgt);
		if (!reduce__orbit_parity(cur, tgt))
			continue;
		res->oll_parity++;
		int rc = emit(x, CUBE_X, k, 1);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* PLL parity: with every edge paired, r2 U2 r2 Uw2 r2 Uw2 (r the inner
 * layers of the R half, Uw the U half: 2R and Uw on 4×4, 2-3Rw and 3Uw
 * on 6×6) turns the U layer by U2 and swaps the UF and UB dedges back
 * whole: corners even, edges odd, centers and pairs kept. Six moves, where
 * re-pairing a wing orbit against a swapped edge set took 20 to 60.
 * Version v (0 .. REDUCE_PLL_VERSIONS-1) is the same moves seen through a
 * symmetry of the cube: r's axis and half, U's axis (another) and side;
 * each leaves a different 3×3 to solve. Version 0 is the one above. */
int reduce__stage_pll(struct ctx *x, int v)
{
	static const int other[3][2] = {{CUBE_Y, CUBE_Z},
					{CUBE_X, CUBE_Z},
					{CUBE_X, CUBE_Y}};
	int h = x->n / 2, m = x->m, rc = 0;
	int a = v / 8, b = other[a][v / 4 % 2], rhalf = v / 2 % 2,
	    uside = v % 2;
	int rlo = rhalf ? m - h + 1 : 1, rhi = rhalf ? m - 1 : h - 1;
	int ulo = uside ? m - h + 1 : 0, uhi = uside ? m : h - 1;
	for (int k = 0; k < 6 && rc == 0; k++) {
		if (k % 2 == 0)
			rc = emit_block(x, a, rlo, rhi, 2);
		else if (k == 1)
			rc = emit_block(x, b, uside ? m : 0, uside ? m : 0,
					2);
		else
			rc = emit_block(x, b, ulo, uhi, 2);
	}
	return rc;
}
