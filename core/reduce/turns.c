/* turns.c — every layer and block turn of the cube as maps of its center
 * places and edge places (free_build), the arrays the free-move center
 * phase and the edge beam work on instead of the cube, and making a turn
 * on both the arrays and the cube.
 */
#include <string.h>

#include "internal.h"
#include "orbits.h"
#include "turns.h"

static int free_place(int s, int f, int r, int c)
{
	return (f * s + r - 1) * s + c - 1;
}

static int is_edge_place(int m, int r, int c)
{
	int br = r == 0 || r == m, bc = c == 0 || c == m;
	return br != bc;
}

/* The stickers of the free phases, read from the cube. */
void reduce__free_read(struct ctx *x)
{
	struct freec *F = &x->w->fc;
	int m = x->m, s = x->n - 2;
	for (int f = 0; f < 6; f++)
		for (int r = 1; r < m; r++)
			for (int c = 1; c < m; c++) {
				int p = free_place(s, f, r, c);
				F->cur[p] = (uint8_t)cube_get(x->c, f, r, c);
				F->tgt[p] = (uint8_t)x->tcol[f];
			}
	for (int e = 0; e < F->ne; e++)
		F->ecur[e] = (uint8_t)cube_get(x->c, F->epos[e][0],
					       F->epos[e][1], F->epos[e][2]);
}

/* Label of place p (centers first, then edges) for free_build. */
static void free_where(const struct freec *F, int s, int p, int *f, int *r,
		       int *c)
{
	if (p < F->nc) {
		*f = p / (s * s);
		*r = p / s % s + 1;
		*c = p % s + 1;
	} else {
		*f = F->epos[p - F->nc][0];
		*r = F->epos[p - F->nc][1];
		*c = F->epos[p - F->nc][2];
	}
}

/* Every layer turn's pairs of center places and of edge places, found
 * by turning a cube whose stickers carry labels; the edges' slots. */
int reduce__free_build(struct ctx *x)
{
	struct freec *F = &x->w->fc;
	int n = x->n, m = x->m, s = n - 2;
	cube_t *sim = (cube_t *)(void *)x->w->sim;
	uint32_t np = 0, nep = 0;
	if (n > FREE_DIM_N || cube_sizeof(n) > sizeof x->w->sim)
		return SOLVE_ESTAGE;
	F->nc = 6 * s * s;
	F->ne = 0;
	F->ngen = F->nall = 0;
	int nslot = 0, slot_of[6][6];
	memset(slot_of, -1, sizeof slot_of);
	for (int f = 0; f < 6; f++)
		for (int r = 0; r <= m; r++)
			for (int c = 0; c <= m; c++) {
				if (!is_edge_place(m, r, c))
					continue;
				int e = F->ne++;
				F->epos[e][0] = (uint16_t)f;
				F->epos[e][1] = (uint16_t)r;
				F->epos[e][2] = (uint16_t)c;
				/* the other sticker of its piece: same place
				 * in space, another face */
				int a[3], other = -1;
				reduce__where3d(n, f, r, c, a);
				for (int g = 0; g < 6 && other < 0; g++)
					for (int rr = 0; rr <= m && other < 0; rr++)
						for (int cc = 0; cc <= m; cc++) {
							int b[3];
							if (g == f || !is_edge_place(m, rr, cc))
								continue;
							reduce__where3d(n, g, rr, cc,
									b);
							if (a[0] == b[0] && a[1] == b[1] &&
							    a[2] == b[2]) {
								other = g;
								break;
							}
						}
				if (other < 0)
					return SOLVE_ESTAGE;
				int lo = f < other ? f : other;
				int hi = f ^ other ^ lo;
				if (slot_of[lo][hi] < 0)
					slot_of[lo][hi] = nslot++;
				/* along the edge: the coordinate not on a face */
				int j = 0;
				for (int k = 0; k < 3; k++)
					if (a[k] != 0 && a[k] != m)
						j = a[k];
				F->slot[slot_of[lo][hi]][j][f == hi] = (uint16_t)e;
			}
	if (nslot != 12 || F->ne != 24 * s)
		return SOLVE_ESTAGE;
	int total = F->nc + F->ne;
	/* past the free center phase's sizes only the edge beam reads
	 * these maps: its edge places alone (16×16: the centers' pairs
	 * were most of this build's time) */
	int first = x->plan.free_phase ? 0 : F->nc;
	/* the free center phase's blocks (plan.free_width) */
	int width = x->plan.free_width;
	/* the edge beam pairs more per move with wide blocks of inner
	 * layers as its S (one S X S' pairs a wing of many orbits when
	 * they lie alike): any block up to FREE_MAX_W layers. Against
	 * blocks of two (10 states; docs/solvers.md, Edges): 8×8 332.3
	 * → 321.8 moves, 9×9 414.8 → 395.1, 10×10 572.3 → 540.8 */
	int bwidth = x->plan.edge_beam ? FREE_MAX_W : width;
	/* the middle slice of odd n holds the frame: turns of it come
	 * last, after F->ngen, for the edge beam alone (it turns them
	 * back) */
	int mids = n % 2 && x->plan.edge_beam;
	for (int pass = 0; pass < 1 + mids; pass++)
	for (int axis = 0; axis < 3; axis++)
		for (int lo = 0; lo <= m; lo++)
		for (int hi = lo; hi <= m && hi - lo < bwidth; hi++) {
			if ((n % 2 && 2 * lo <= m && 2 * hi >= m) != pass)
				continue;
			if (lo == 0 && hi == m)
				continue;
			/* past the centers' width, the beam's inner blocks
			 * alone */
			if (hi - lo >= width && (lo == 0 || hi == m))
				continue;
			uint32_t wing = 0;
			for (int l = lo; l <= hi; l++)
				if (l > 0 && l < m)
					wing ^= 1u << (l < m - l ? l : m - l);
			for (int qt = 1; qt <= 3; qt++) {
				struct fgen *G = &F->gen[F->nall++];
				G->axis = (uint8_t)axis;
				G->centers = (uint8_t)(hi - lo < width);
				G->qt = (uint8_t)qt;
				G->lo = (uint16_t)lo;
				G->hi = (uint16_t)hi;
				G->inv_off = (uint8_t)(4 - 2 * qt + 2);
				G->wing = qt % 2 ? wing : 0;
				G->first = np;
				G->efirst = nep;
				for (int b = first; b < total; b += FREE_BATCH) {
					int f, r, c;
					cube_init(sim, n);
					for (int p = b; p < total && p < b + FREE_BATCH; p++) {
						free_where(F, s, p, &f, &r, &c);
						cube__set(sim, f, r, c, 6 + p - b);
					}
					cube_turn(sim, axis, lo, hi, qt);
					for (int p = first; p < total; p++) {
						free_where(F, s, p, &f, &r, &c);
						int v = cube_get(sim, f, r, c);
						if (v < 6 || b + v - 6 == p)
							continue;
						int from = b + v - 6;
						if ((p < F->nc) != (from < F->nc))
							return SOLVE_ESTAGE;
						if (p < F->nc) {
							if (np >= FREE_PAIRS)
								return SOLVE_ESTAGE;
							F->pr[np][0] = (uint16_t)p;
							F->pr[np][1] = (uint16_t)from;
							np++;
						} else {
							if (nep >= FREE_EPAIRS)
								return SOLVE_ESTAGE;
							F->epr[nep][0] = (uint16_t)(p - F->nc);
							F->epr[nep][1] = (uint16_t)(from - F->nc);
							nep++;
						}
					}
				}
				G->count = np - G->first;
				G->ecount = nep - G->efirst;
				int g = F->nall - 1;
				if (!pass)
					F->ngen = F->nall;
				for (int e = 0; e < F->ne; e++)
					F->esrc[g][e] = (uint16_t)e;
				for (uint32_t k = G->efirst; k < nep; k++)
					F->esrc[g][F->epr[k][0]] = F->epr[k][1];
				F->eslots[g] = 0;
				for (int e = 0; e < 12; e++)
					for (int j = 1; j < m; j++)
						for (int t = 0; t < 2; t++) {
							int q = F->slot[e][j][t];
							if (F->esrc[g][q] != q)
								F->eslots[g] |= (uint16_t)(1u << e);
						}
			}
		}
	reduce__free_read(x);
	return 0;
}

/* Move cur[from] to cur[to] for each (to, from) of n pairs, all at once. */
static void permute(uint8_t *cur, uint8_t *tmp, uint16_t (*pr)[2],
		    uint32_t n)
{
	for (uint32_t k = 0; k < n; k++)
		tmp[k] = cur[pr[k][1]];
	for (uint32_t k = 0; k < n; k++)
		cur[pr[k][0]] = tmp[k];
}

/* The turn on the center places only (enough while searching centers). */
void reduce__free_apply(struct freec *F, int g)
{
	const struct fgen *G = &F->gen[g];
	permute(F->cur, F->tmp, F->pr + G->first, G->count);
}

/* The turn on the edge places only. */
static void free_apply_e(struct freec *F, int g)
{
	const struct fgen *G = &F->gen[g];
	permute(F->ecur, F->tmp, F->epr + G->efirst, G->ecount);
}

int reduce__free_emit(struct ctx *x, int g, unsigned *par)
{
	struct freec *F = &x->w->fc;
	const struct fgen *G = &F->gen[g];
	reduce__free_apply(F, g);
	free_apply_e(F, g);
	*par ^= G->wing;
	return emit_block(x, G->axis, G->lo, G->hi, G->qt);
}

/* The free phase's maps, built unless the centers' last step had them
 * built already (x->erate: they do not depend on the state), and the
 * stickers read. */
int reduce__free_ready(struct ctx *x)
{
	if (!x->erate)
		return reduce__free_build(x);
	reduce__free_read(x);
	return 0;
}

void reduce__unmake(struct ctx *x, size_t c0)
{
	while (x->count > c0) {
		const cube_move *m = &x->out[--x->count];
		cube__turn_generic(x->c, m->axis, m->lo, m->hi,
				   (4 - m->qt) & 3);
	}
}
