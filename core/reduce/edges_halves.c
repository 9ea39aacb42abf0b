/* edges_halves.c — the half-edge pairing moves that finish the edge
 * beam's work from 9×9 on, wherever the beam runs (reduce__edge_halves;
 * called after the beam's best ending, reduce.c). */
#include <string.h>

#include "edges_beam.h"
#include "turns.h"

/* The edge beam's leftovers on 9×9 to 12×12 (where this was measured;
 * it runs after the beam at every size from 9×9) are often the same
 * permutation in every wing orbit on the same places (a 3-cycle: whole
 * half edges move), which the multi-orbit commutators cannot make and
 * the one-orbit 3-cycles make once per orbit, 44-60 moves (8 of the
 * bench's first 18 10×10 states). S X S', S the block of every orbit's
 * slice on one side of an axis (one move) and X = P T P' Q P' Q' P (P,
 * Q faces across S's axis, T a face on it: a 4×4's pairing move), makes
 * such a cycle in 9 moves, and keeps the centers: an outer face turn
 * moves no other face's centers, X turns P and Q by a net of none, and
 * T's centers S never displaced. Both directions of every turn, X or
 * its inverse: 6,144 macros, each made a core of the beam (the pairs it
 * parts and the neighbours it joins, from its map on the edge places; in the
 * beam's region, done with by now), and weighed after every set-up of
 * up to two face turns (two axes), as the beam weighs its cores: by
 * pairs, since X also carries whole edges elsewhere (the voted edge
 * set's places would count those as wrong). The set-up, the macro and
 * the set-up undone are made while one pairs more, at most HV_PASSES
 * times. Over the bench's first 60 10×10 states 541.67 → 532.27 moves
 * (edges 152.78 → 142.65); with one set-up turn at most 537.42. */
static int hv_gen(const struct freec *F, int axis, int lo, int hi, int qt)
{
	for (int g = 0; g < F->nall; g++)
		if (F->gen[g].axis == axis && F->gen[g].lo == lo &&
		    F->gen[g].hi == hi && F->gen[g].qt == (qt & 3))
			return g;
	return -1;
}

int reduce__edge_halves(struct ctx *x)
{
	struct freec *F = &x->w->fc;
	struct ebeam *E = ebeam_of(x);
	int m = x->m, K = wing_orbits(x->n), n = x->n, ne = F->ne;
	reduce__free_read(x);
	if (eb_popcount(eb_adj(F, F->ecur, n)) == 12 * (n - 3))
		return 0; /* every edge paired */
	uint8_t at[EB_NE][3]; /* each edge place's (edge, index, side) */
	reduce__eb_places(F, m, at);
	reduce__eb_layout(x);
	for (int sa = 0; sa < 3; sa++)
	for (int side = 0; side < 2; side++)
	for (int sq = 1; sq <= 3; sq += 2)
	for (int pa = 0; pa < 3; pa++) {
		if (pa == sa)
			continue;
		int qa = 3 - sa - pa;
		int S = hv_gen(F, sa, side ? m - K : 1, side ? m - 1 : K, sq),
		    Si = hv_gen(F, sa, side ? m - K : 1, side ? m - 1 : K, 4 - sq);
		if (S < 0 || Si < 0)
			return 0;
		for (int pf = 0; pf < 2; pf++)
		for (int qf = 0; qf < 2; qf++)
		for (int tf = 0; tf < 2; tf++)
		for (int tq = 1; tq <= 3; tq += 2)
		for (int pq = 1; pq <= 3; pq += 2)
		for (int qq = 1; qq <= 3; qq += 2)
		for (int inv = 0; inv < 2; inv++) {
			int X[HV_X] = {hv_gen(F, pa, pf * m, pf * m, pq),
				       hv_gen(F, sa, tf * m, tf * m, tq),
				       hv_gen(F, pa, pf * m, pf * m, 4 - pq),
				       hv_gen(F, qa, qf * m, qf * m, qq),
				       hv_gen(F, pa, pf * m, pf * m, 4 - pq),
				       hv_gen(F, qa, qf * m, qf * m, 4 - qq),
				       hv_gen(F, pa, pf * m, pf * m, pq)};
			if (E->ncore >= HV_CORES || E->ncore >= E->maxcore ||
			    E->njoin + EB_ADJ > E->maxjoin)
				return 0;
			int id = E->ncore;
			uint16_t *h = E->hv[id];
			h[0] = (uint16_t)S;
			for (int i = 0; i < HV_X; i++) {
				int g = inv ? X[HV_X - 1 - i] : X[i];
				if (g < 0)
					return 0;
				h[1 + i] = (uint16_t)(inv ? reduce__free_inv(F, g) : g);
			}
			h[1 + HV_X] = (uint16_t)Si;
			eb_pl src[EB_NE];
			reduce__eb_map(F, h, 2 + HV_X, src);
			E->ncore++;
			reduce__eb_compares(F, E, id, n, at, src);
		}
	}
	int full = 12 * (n - 3);
	uint8_t vg[EB_NE];
	for (int pass = 0; pass < HV_PASSES; pass++) {
		reduce__free_read(x);
		int base = eb_popcount(eb_adj(F, F->ecur, n));
		if (base == full)
			break;
		int bp = base, bk = -1, bg = -1, bg2 = -1;
		for (int g2 = -1; g2 < (HV_SETUP2 ? F->ngen : 0); g2++)
		for (int g = -1; g < F->ngen; g++) {
			if (g >= 0 && !is_face_gen(F, g, m))
				continue;
			if (g2 >= 0 && (g < 0 || !is_face_gen(F, g2, m) || F->gen[g2].axis == F->gen[g].axis))
				continue;
			uint8_t v1[EB_NE];
			for (int p = 0; p < ne; p++)
				v1[p] = g2 < 0 ? F->ecur[p] : F->ecur[F->esrc[g2][p]];
			for (int p = 0; p < ne; p++)
				vg[p] = g < 0 ? v1[p] : v1[F->esrc[g][p]];
			struct ebmask adj = eb_adj(F, vg, n);
			for (int k = 0; k < E->ncore; k++) {
				const struct ecore *C = &E->core[k];
				int pairs = base -
					    eb_parted(&adj, C, E->brk_hi[k], E->nw);
				if (pairs + C->njoin <= bp)
					continue;
				pairs += eb_count(vg, E->join + C->join, C->njoin);
				if (pairs > bp)
					bp = pairs, bk = k, bg = g, bg2 = g2;
			}
		}
		if (bk < 0)
			break;
		int rc;
		const struct fgen *G;
		if (bg2 >= 0) {
			G = &F->gen[bg2];
			if ((rc = emit_block(x, G->axis, G->lo, G->hi, G->qt)) < 0)
				return rc;
		}
		if (bg >= 0) {
			G = &F->gen[bg];
			if ((rc = emit_block(x, G->axis, G->lo, G->hi, G->qt)) < 0)
				return rc;
		}
		for (int i = 0; i < 2 + HV_X; i++) {
			G = &F->gen[E->hv[bk][i]];
			if ((rc = emit_block(x, G->axis, G->lo, G->hi, G->qt)) < 0)
				return rc;
		}
		if (bg >= 0) {
			G = &F->gen[reduce__free_inv(F, bg)];
			if ((rc = emit_block(x, G->axis, G->lo, G->hi, G->qt)) < 0)
				return rc;
		}
		if (bg2 >= 0) {
			G = &F->gen[reduce__free_inv(F, bg2)];
			if ((rc = emit_block(x, G->axis, G->lo, G->hi, G->qt)) < 0)
				return rc;
		}
	}
	return 0;
}
