/* edges_beam.c — the edge beam that pairs the edges with
 * slice–turn–slice macros that keep the centers (plan.edge_beam); the
 * wing 3-cycles (edges_wings.c) finish any edge it leaves.
 *
 * Edge beam. With the centers solved, S X S' keeps them for S any
 * inner slice or block of them (the middle slice of odd n too: it comes
 * back, so the frame holds) and X any sequence that turns each face S
 * displaced a whole number of turns: here X is made of face turns of
 * S's axis (those faces' centers S leaves alone) and conjugates A B A'
 * (A a face across S's axis, B one of S's axis). Where the plan says the
 * edges stage searches these (S a single slice or a block of up to
 * FREE_MAX_W) by a beam over cost levels: level c holds the plan's
 * eb_width states with the most neighbouring pieces along the edges
 * paired in c moves (an open slice's closing move counted); from a
 * state, a face turn (a set-up), a slice opened with its first X, or one
 * more X while the slice stays open. The state with the fewest moves plus
 * EB_FINISH per pair still missing wins: in practice the first with every
 * edge paired, the wing 3-cycles there to finish any edge it left. On big
 * cubes a path of EB_LEVELS moves cannot pair every edge, so when the
 * best state lies at the last levels its moves are made and the beam
 * starts again from there. A macro carries most pairs whole to another
 * edge, so a child is judged by the pairs it parts (a bit mask) and puts
 * together (a few place pairs), never made unless it enters its level.
 * S comes and goes, so no wing orbit's parity changes. On even n a
 * state with every edge paired that would need the PLL parity counts
 * its six moves (eb_pll_odd).
 */
#include <string.h>

#include "edges_beam.h"
#include "reduced3x3.h"
#include "turns.h"

/* The multi-orbit wing commutators (plan.wing_comms, edges_wings.c) work
 * in the same region: where the beam does not run it holds only them,
 * elsewhere the beam is done with it by then. */
static size_t eb_head(void)
{
	return (sizeof(struct ebeam) + 63) & ~(size_t)63;
}

/* The macros a size-n beam may build, at most: 3 axes, each block of
 * up to FREE_MAX_W of its n - 2 inner layers, 3 amounts, A none or one
 * of 8, B one of 6 (the half-edge moves' HV_CORES from 9×9) */
static int eb_max_cores(int n)
{
	int sets = 0;
	for (int w = 1; w <= FREE_MAX_W && w <= n - 2; w++)
		sets += n - 2 - w + 1;
	int c = 3 * sets * 3 * 9 * 6;
	if (reduce__plan(n, 1).edge_halves && c < HV_CORES)
		c = HV_CORES;
	return c < EB_CORES ? c : EB_CORES;
}

/* The neighbours a size-n beam's macros put together, at most: a
 * macro S X S' with S a block of w layers moves 4 wings a layer, each
 * with two neighbours at most (X carries whole edges), so 8 w; the
 * half-edge moves' S is the block of every wing orbit. Plus one macro's
 * most, the room eb_cores and the half-edge moves ask before each. */
static long eb_max_joins(int n)
{
	long beam = 0, halves = 0;
	for (int w = 1; w <= FREE_MAX_W && w <= n - 2; w++)
		beam += (long)(n - 2 - w + 1) * 3 * 3 * 9 * 6 * 8 * w;
	if (reduce__plan(n, 1).edge_halves)
		halves = (long)HV_CORES * 8 * wing_orbits(n);
	return (beam > halves ? beam : halves) + EB_ADJ;
}

size_t reduce__edge_beam_size(int n)
{
	/* the multi-orbit wing commutators work here after the beam, or in
	 * its place (edges_wings.c); a multiple of 64, as the regions after
	 * it start aligned */
	size_t wings = (reduce__wing_work_size() + 63) & ~(size_t)63;
	if (!reduce__plan(n, 1).edge_beam)
		return wings;
	size_t beam = (eb_head() + (size_t)eb_max_joins(n) * sizeof(eb_pl[4]) +
		       63) & ~(size_t)63;
	return beam > wings ? beam : wings;
}

void reduce__eb_layout(struct ctx *x)
{
	struct ebeam *E = ebeam_of(x);
	int n = x->n;
	E->maxcore = eb_max_cores(n);
	E->maxjoin = eb_max_joins(n);
	E->nw = (12 * (n - 3) + 63) / 64;
	E->join = (eb_pl(*)[4])(void *)((unsigned char *)E + eb_head());
	E->ncore = E->njoin = 0;
}

void reduce__eb_map(const struct freec *F, const uint16_t *seq, int len,
		    eb_pl *src)
{
	for (int p = 0; p < F->ne; p++) {
		int q = p;
		for (int i = len - 1; i >= 0; i--)
			q = F->esrc[seq[i]][q];
		src[p] = (eb_pl)q;
	}
}

/* turn by turn, each a pass of independent loads (composing the maps
 * place by place chains them) */
void reduce__eb_apply(const struct freec *F, const uint16_t *seq, int len,
		      const uint8_t *v, uint8_t *out)
{
	uint8_t buf[2][EB_NE];
	const uint8_t *from = v;
	for (int i = 0; i < len; i++) {
		uint8_t *to = i == len - 1 ? out : buf[i & 1];
		const uint16_t *g = F->esrc[seq[i]];
		for (int p = 0; p < F->ne; p++)
			to[p] = from[g[p]];
		from = to;
	}
}

static uint32_t eb_hash(const uint8_t *v, int ne)
{
	uint32_t h = 2166136261u;
	for (int i = 0; i < ne; i++)
		h = (h ^ v[i]) * 16777619u;
	return h;
}

/* Neighbours along an edge that a macro carries whole to another
 * place keep their pair or its absence: only those it parts and those
 * it puts together decide its gain. */
void reduce__eb_compares(const struct freec *F, struct ebeam *E, int k,
			 int n, uint8_t (*at)[3], const eb_pl *src)
{
	int whole[EB_ADJ] = {0};
	struct ecore *C = &E->core[k];
	memset(C->brk, 0, sizeof C->brk);
	memset(E->brk_hi[k], 0, sizeof E->brk_hi[k]);
	C->njoin = 0;
	C->join = (uint32_t)E->njoin;
	for (int e = 0; e < 12; e++)
		for (int j = 1; j < n - 2; j++) {
			const uint16_t *a = F->slot[e][j], *b = F->slot[e][j + 1];
			int a0 = src[a[0]], b0 = src[b[0]], kept = -1;
			/* from neighbours on one edge, the same sides? */
			const uint8_t *pa = at[a0], *pb = at[b0];
			if (pa[0] == pb[0] && pa[2] == pb[2] &&
			    (pa[1] == pb[1] + 1 || pb[1] == pa[1] + 1))
				kept = 12 * ((pa[1] < pb[1] ? pa[1] : pb[1]) - 1) +
				       pa[0];
			if (kept >= 0) {
				whole[kept] = 1;
				continue;
			}
			eb_pl *q = E->join[E->njoin++];
			C->njoin++;
			q[0] = (eb_pl)a0, q[1] = (eb_pl)b0;
			q[2] = src[a[1]], q[3] = src[b[1]];
		}
	uint64_t *hi = E->brk_hi[k];
	for (int t = 0; t < 12 * (n - 3); t++)
		if (!whole[t])
			*(t < 128 ? &C->brk[t >> 6] : &hi[(t >> 6) - 2]) |=
				1ull << (t & 63);
}

/* The edge pieces sim leaves unpaired with a neighbour (sim: the cube as
 * a staged search's answer would leave it). */
int reduce__edge_rate(struct ctx *x, const cube_t *sim)
{
	const struct freec *F = &x->w->fc;
	uint8_t v[EB_NE];
	for (int e = 0; e < F->ne; e++)
		v[e] = (uint8_t)cube_get(sim, F->epos[e][0], F->epos[e][1],
					 F->epos[e][2]);
	return 12 * (x->n - 3) - eb_popcount(eb_adj(F, v, x->n));
}

/* Each edge place's (edge, index along it, side), for reduce__eb_compares. */
void reduce__eb_places(const struct freec *F, int m, uint8_t (*at)[3])
{
	for (int e = 0; e < 12; e++)
		for (int j = 1; j < m; j++)
			for (int t = 0; t < 2; t++) {
				uint8_t *q = at[F->slot[e][j][t]];
				q[0] = (uint8_t)e, q[1] = (uint8_t)j, q[2] = (uint8_t)t;
			}
}

/* The macros S X S' (S an inner slice or block, X a face turn B of S's
 * axis or A B A'), each with the neighbours it parts and joins, from its
 * map on the edge places (worked out here, not kept). */
static void eb_cores(struct ctx *x)
{
	struct freec *F = &x->w->fc;
	struct ebeam *E = ebeam_of(x);
	int m = x->m;
	uint8_t at[EB_NE][3]; /* each edge place's (edge, index, side) */
	reduce__eb_places(F, m, at);
	reduce__eb_layout(x);
	for (int S = 0; S < F->nall; S++) {
		if (F->gen[S].lo == 0 || F->gen[S].hi == m)
			continue;
		int ax = F->gen[S].axis;
		for (int A = -1; A < F->ngen; A++) {
			if (A >= 0 && (!is_face_gen(F, A, m) || F->gen[A].axis == ax))
				continue;
			/* A2 B A2 made nothing shorter */
			if (A >= 0 && F->gen[A].qt == 2)
				continue;
			for (int B = 0; B < F->ngen; B++) {
				if (!is_face_gen(F, B, m) || F->gen[B].axis != ax ||
				    E->ncore >= E->maxcore ||
				    E->njoin + EB_ADJ > E->maxjoin)
					continue;
				int id = E->ncore++;
				struct ecore *C = &E->core[id];
				uint16_t seq[5];
				int k = 0;
				seq[k++] = (uint16_t)S;
				if (A >= 0)
					seq[k++] = (uint16_t)A;
				seq[k++] = (uint16_t)B;
				if (A >= 0)
					seq[k++] =
						(uint16_t)reduce__free_inv(F, A);
				seq[k++] = (uint16_t)reduce__free_inv(F, S);
				C->S = (uint16_t)S;
				C->xlen = (uint8_t)(k - 2);
				C->cq = (uint8_t)(F->gen[B].qt & 1);
				memcpy(C->x, seq + 1, sizeof C->x);
				eb_pl src[EB_NE];
				reduce__eb_map(F, seq, k, src);
				reduce__eb_compares(F, E, id, x->n, at, src);
			}
		}
	}
}

/* A child into level c (its E->w best by pairs, each state once). */
static void eb_offer(struct ebeam *E, int c, const uint8_t *v, int ne,
		     int pairs, const struct enode *how)
{
	int k = E->k[c];
	struct enode *L = E->lev[c];
	if (pairs <= E->bar[c])
		return;
	/* even n: the same edges with the corners' parity apart are two
	 * states (one of them ends without the PLL parity) */
	int cq = E->pll ? how->cq : 0;
	uint32_t h = eb_hash(v, ne) ^ how->open ^ (uint32_t)cq << 16;
	for (int i = 0; i < k; i++)
		if (L[i].hash == h && L[i].open == how->open &&
		    (E->pll ? L[i].cq : 0) == cq &&
		    memcmp(L[i].v, v, (size_t)ne) == 0)
			return;
	int i = k < E->w ? k++ : k - 1;
	while (i > 0 && pairs > L[i - 1].pairs) {
		L[i] = L[i - 1];
		i--;
	}
	L[i] = *how;
	memcpy(L[i].v, v, (size_t)ne);
	L[i].pairs = (uint16_t)pairs;
	L[i].hash = h;
	E->k[c] = k;
	if (k == E->w)
		E->bar[c] = L[k - 1].pairs;
}

/* Even n, every edge paired: whether the edges stand an odd permutation
 * from the corners (the PLL parity), or 0 if the pairs are not a cube's
 * twelve edges. */
static int eb_pll_odd(const struct freec *F, const struct ebeam *E,
		      const struct enode *N)
{
	int p[12];
	unsigned seen = 0;
	for (int e = 0; e < 12; e++) {
		int h = E->home[N->v[F->slot[e][1][0]]][N->v[F->slot[e][1][1]]];
		if (h < 0 || seen >> h & 1)
			return 0;
		seen |= 1u << h;
		p[e] = h;
	}
	return E->cpar0 ^ N->cq ^ reduce__perm_parity(p, 12);
}

/* Beam search over slice–flip–slice with the slice held open, by cost
 * levels: level c holds the E->w states with the most pairs made in c
 * moves (an open slice's closing move counted, the state kept as it
 * will be once closed). From a state: a face turn (closing the open
 * slice first; not two in a row), a slice S opened with X (closing
 * the open one first), or, while S is open, X more: X a face turn of
 * S's axis or A B A' (A a face across it). Every X keeps each face
 * whose centers S displaced turned by a whole number of turns, so the
 * centers come back when S closes; S comes and goes, so every wing
 * orbit keeps its parity. The answer is the state with the fewest
 * moves plus EB_FINISH per pair still missing (about what the
 * 3-cycles cost per pair); its moves are made, the 3-cycles finish. */
/* One round of the beam from the edges as they are now, its best path
 * made on the cube; *again: the best state lies at the last levels, short
 * of every pair (another round may go on from it). 0, or an error. */
static void eb_endings(struct ebeam *E, const struct freec *F, int full,
		       int bs);
static int eb_emit(struct ctx *x, int lev, int idx, unsigned *par);

EB_CLONES static int eb_round(struct ctx *x, unsigned *par, int *again)
{
	struct freec *F = &x->w->fc;
	struct ebeam *E = ebeam_of(x);
	int n = x->n, ne = F->ne, full = 12 * (n - 3), nw = E->nw;
	uint8_t tmp[EB_NE];
	memset(E->k, 0, sizeof E->k);
	for (int l = 0; l < EB_LEVELS; l++)
		E->bar[l] = -1;
	E->c0 = x->count;
	E->par0 = *par;
	E->nends = 0;
	cube_copy(x->scratch, x->c);
	E->cpar0 = reduce__corner_parity(x);
	E->pll = n % 2 == 0 && E->cpar0 >= 0;
	struct enode how = {.kind = EB_FACE, .open = EB_CLOSED, .cq = 0};
	eb_offer(E, 0, F->ecur, ne, eb_popcount(eb_adj(F, F->ecur, n)), &how);
	int bc = 0, bi = 0, bs = 1 << 30, c = 0;
	/* a child of level c has a score above c: none beats bs past it */
	for (; c < EB_LEVELS && c + 1 < bs; c++) {
		if (poll_now(x))
			return SOLVE_ENOTFOUND;
		for (int i = 0; i < E->k[c]; i++) {
			const struct enode *N = &E->lev[c][i];
			int score = c + EB_FINISH * (full - N->pairs);
			if (E->pll && N->pairs == full && eb_pll_odd(F, E, N))
				score += EB_PLL;
			if (score < bs)
				bs = score, bc = c, bi = i;
			if (N->pairs == full)
				continue;
			how.plev = (uint8_t)c;
			how.parent = (uint16_t)i;
			struct ebmask adj = eb_adj(F, N->v, n);
			for (int k = 0; k < E->ncore; k++) {
				const struct ecore *C = &E->core[k];
				int more = N->open == C->S;
				/* (the turns of a layer set come in threes) */
				if (!more && (C->xlen == 1 ||
					      (N->open != EB_CLOSED &&
					       N->open / 3 == C->S / 3)))
					continue;
				int to = c + C->xlen + (more ? 0 : 2);
				if (to >= EB_LEVELS)
					continue;
				int pairs = N->pairs -
					    eb_parted(&adj, C, E->brk_hi[k], nw);
				if (pairs + C->njoin <= E->bar[to])
					continue;
				pairs += eb_count(N->v, E->join + C->join, C->njoin);
				if (pairs <= E->bar[to])
					continue;
				uint16_t seq[5];
				int len = 0;
				seq[len++] = C->S;
				for (int i = 0; i < C->xlen; i++)
					seq[len++] = C->x[i];
				seq[len++] = (uint16_t)reduce__free_inv(F, C->S);
				reduce__eb_apply(F, seq, len, N->v, tmp);
				how.kind = (uint8_t)(more ? EB_MORE : EB_NEW);
				how.cq = N->cq ^ C->cq;
				how.open = C->S;
				how.move = (uint32_t)k;
				eb_offer(E, to, tmp, ne, pairs, &how);
			}
			if (N->kind == EB_FACE || c + 1 >= EB_LEVELS)
				continue;
			for (int y = 0; y < F->ngen; y++) {
				if (!is_face_gen(F, y, x->m))
					continue;
				for (int p = 0; p < ne; p++)
					tmp[p] = N->v[F->esrc[y][p]];
				how.kind = EB_FACE;
				how.cq = N->cq ^ (F->gen[y].qt & 1);
				how.open = EB_CLOSED;
				how.move = (uint16_t)y;
				eb_offer(E, c + 1, tmp, ne, N->pairs, &how);
			}
		}
	}
	E->bs = bs;
	*again = c == EB_LEVELS && bc + EB_ROUND_END >= EB_LEVELS &&
		E->lev[bc][bi].pairs < full;
	if (E->lev[bc][bi].pairs == full)
		eb_endings(E, F, full, bs);
	return eb_emit(x, bc, bi, par);
}

/* The endings within EB_END_SLACK of the best score bs, best first (the
 * best itself among them). */
static void eb_endings(struct ebeam *E, const struct freec *F, int full,
		       int bs)
{
	for (int c = 0; c < EB_LEVELS && c <= bs + EB_END_SLACK; c++)
		for (int i = 0; i < E->k[c]; i++) {
			const struct enode *N = &E->lev[c][i];
			if (N->pairs != full)
				continue;
			int score = c;
			if (E->pll && eb_pll_odd(F, E, N))
				score += EB_PLL;
			if (score > bs + EB_END_SLACK)
				continue;
			/* insertion by score, ties kept in order found */
			int j = E->nends < EB_ENDS ? E->nends++ : EB_ENDS;
			while (j > 0 && E->ends[j - 1].score > score) {
				if (j < EB_ENDS)
					E->ends[j] = E->ends[j - 1];
				j--;
			}
			if (j < EB_ENDS) {
				E->ends[j].lev = (uint8_t)c;
				E->ends[j].score = (uint8_t)score;
				E->ends[j].i = (uint16_t)i;
			}
		}
}

/* The moves of the path to state i of level lev, emitted in order (a
 * step's kind and move kept, not its state). */
struct epath {
	uint32_t move;
	uint8_t kind;
};

static int eb_emit(struct ctx *x, int lev, int idx, unsigned *par)
{
	struct freec *F = &x->w->fc;
	struct ebeam *E = ebeam_of(x);
	struct epath path[EB_LEVELS];
	int np = 0, rc;
	for (int d = lev, i = idx; d > 0;) {
		const struct enode *N = &E->lev[d][i];
		path[np].move = N->move;
		path[np++].kind = N->kind;
		d = N->plev;
		i = N->parent;
	}
	int open = -1;
	while (np-- > 0) {
		const struct epath *N = &path[np];
		if (N->kind != EB_MORE && open >= 0) {
			if ((rc = reduce__free_emit(
				     x, reduce__free_inv(F, open), par)) < 0)
				return rc;
			open = -1;
		}
		if (N->kind == EB_FACE) {
			if ((rc = reduce__free_emit(x, N->move, par)) < 0)
				return rc;
			continue;
		}
		const struct ecore *C = &E->core[N->move];
		if (N->kind == EB_NEW) {
			open = C->S;
			if ((rc = reduce__free_emit(x, open, par)) < 0)
				return rc;
		}
		for (int k = 0; k < C->xlen; k++)
			if ((rc = reduce__free_emit(x, C->x[k], par)) < 0)
				return rc;
	}
	if (open >= 0 &&
	    (rc = reduce__free_emit(x, reduce__free_inv(F, open), par)) < 0)
		return rc;
	return 0;
}

int reduce__beam_ends(struct ctx *x)
{
	return x->plan.edge_beam ? ebeam_of(x)->nends : 0;
}

int reduce__beam_score(struct ctx *x)
{
	const struct ebeam *E = ebeam_of(x);
	return (int)E->c0 + E->bs;
}

int reduce__beam_take(struct ctx *x, int k)
{
	struct freec *F = &x->w->fc;
	struct ebeam *E = ebeam_of(x);
	if (k < 0 || k >= E->nends)
		return CUBE_EINVAL;
	cube_copy(x->c, x->scratch);
	x->count = E->c0;
	reduce__free_read(x);
	unsigned par = E->par0;
	int rc = eb_emit(x, E->ends[k].lev, E->ends[k].i, &par);
	if (rc < 0)
		return rc;
	for (int p = 0; p < F->nc; p++)
		if (F->cur[p] != F->tgt[p])
			return SOLVE_ESTAGE;
	return par ? SOLVE_ESTAGE : 0;
}


int reduce__beam_edges(struct ctx *x)
{
	struct freec *F = &x->w->fc;
	int rc, again = 1;
	unsigned par = 0;
	/* up to FREE_MAX_N the center phase built the turns' maps; past it
	 * nothing else needs them, so they are built here (for the edge
	 * places only) */
	if (!x->plan.free_phase) {
		if ((rc = reduce__free_build(x)) < 0)
			return rc;
	} else {
		reduce__free_read(x);
	}
	eb_cores(x);
	struct ebeam *E = ebeam_of(x);
	E->w = x->plan.eb_width_first;
	memset(E->home, -1, sizeof E->home);
	for (int h = 0; h < 12; h++) {
		int a = x->tcol[F->epos[F->slot[h][1][0]][0]],
		    b = x->tcol[F->epos[F->slot[h][1][1]][0]];
		E->home[a][b] = E->home[b][a] = (int8_t)h;
	}
	/* rounds: a beam whose best state lies at its last levels had more
	 * to pair than its levels hold (big cubes); the next round goes on
	 * from that state */
	for (int round = 0; round < EB_ROUNDS && again; round++) {
		if ((rc = eb_round(x, &par, &again)) < 0)
			return rc;
		E->w = x->plan.eb_width;
	}
	for (int p = 0; p < F->nc; p++)
		if (F->cur[p] != F->tgt[p])
			return SOLVE_ESTAGE;
	return par ? SOLVE_ESTAGE : 0;
}
