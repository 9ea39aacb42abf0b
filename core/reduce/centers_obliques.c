/* centers_obliques.c — the oblique macros: commutators found on a 7×7
 * model that cycle up to six oblique center stickers of two mirror orbits
 * at once, chosen by a greedy beam (plan.obliques: 6×6 up to the
 * inside-out centers' last size).
 */
#include <string.h>

#include "centers_methods.h"

/* The oblique macros (reduce__om_pair; before om_layers, how they
 * work): commutators
 * made on a 7×7 model whose layers 0, 1, 2, 4, 5, 6 stand for 0, p, q,
 * m-q, m-p, m, each as its turns and the places of the model's two
 * oblique orbits it moves. */
#ifndef OM_BUDGET
#define OM_BUDGET 40000000L
#endif
/* where the plan says (om_beam) the greedy is a beam: OM_BW states per
 * step, each grown by its OM_LOOK best candidates, ranked by moves made
 * plus OM_BR moves per sticker still wrong (else one state, one
 * candidate) */
#ifndef OM_LOOK
#define OM_LOOK 8
#endif
#ifndef OM_BW
#define OM_BW 8
#endif
#ifndef OM_BR
#define OM_BR 3
#endif
#define OM_DEPTH 48
/* 3-cycles take about 4 moves per sticker */
#define OM_FIN 4
#define OM_NPOS 48
#define OM_NC 150 /* the model's center places */
#define OM_MOV 6
#define OM_MAX 16384
#define OM_HASH (1 << 15)
/* the macros: 3-cycles (8 moves), two 3-cycles, one in each orbit, or
 * two 2-cycles (10), and the same from two slices in the set-up (12) */
/* a map of the places: the sticker at u goes to v, as u · OM_NPOS + v
 * in the order of u (om_canon), one form per map */
struct ommap {
	uint16_t pv[OM_MOV];
	uint8_t nm;
};

struct omac {
	struct ommap m; /* first: om_find reads it */
	uint8_t len;
	uint8_t mv[OM_LEN]; /* axis | model layer << 2 | qt << 5 */
};

struct omlib {
	int built, count;
	uint8_t gmv[MAX_GEN], ginv[MAX_GEN];
	uint8_t gperm[MAX_GEN][OM_NPOS]; /* place p goes to gperm[g][p] */
	uint8_t place[OM_NPOS][3];       /* model (face, row, col) */
	uint8_t cperm[MAX_GEN][OM_NC];   /* the same on every center */
	int32_t slot[OM_HASH];           /* building: the macros seen */
	_Alignas(64) unsigned char sim[512]; /* the model cube */
	struct omac mac[OM_MAX];
};

/* The macros conjugated by at most one turn, one of each map of the
 * places (the cheapest), with the places they move as they are before
 * the set-up: what a greedy step weighs. */
#define OM_CMAX (1 << 18)
#define OM_CHASH (1 << 19)
struct omcand {
	struct ommap m; /* first: om_find reads it */
	uint8_t cost;   /* less what the set-up merges */
	uint8_t first;  /* its first turn */
	int8_t s;            /* the set-up turn, or -1 */
	uint16_t k;          /* the macro */
};

/* A state of the beam: the stickers, the turns before it, and how it
 * was reached (the candidate from state parent of the step before). */
struct omnode {
	uint8_t cur[OM_NPOS];
	struct omtail tail;
	int16_t cost, wrong, parent;
	int32_t cand;
};

/* The oblique region of the work buffer: the macros (made once per
 * solve), their candidates and the beam's states. */
struct omcands {
	struct omlib lib;
	int count;
	int32_t slot[OM_CHASH];
	struct omcand c[OM_CMAX];
	int nlev[OM_DEPTH];
	struct omnode lev[OM_DEPTH][OM_BW];
	struct omnode kids[OM_BW * OM_LOOK];
};

/* The obliques (center orbits (p, q), p < q, q off the middle) are the
 * last centers solved: every other orbit is solved by then, so a turn
 * may only serve them inside a commutator that puts the rest back. One
 * at a time, the 3-cycles of solve_orbit take about 8 moves for 2 to 3
 * stickers. The orbits (p, q) and (p, m-q) are turned by the same four
 * inner layers p, q, m-q, m-p, and so are solved together here with
 * commutators [P Q P', Y] where P is one slice or two parallel ones, Q
 * one or two slices across them (not both two) and Y a face turn on
 * Q's axis: one slice each gives a 3-cycle (8 moves), two give two
 * 3-cycles at once (10 or 12 moves), up to six stickers. The macros are
 * found on a 7×7 model (layers 0, 1, 2, 4, 5, 6 standing for 0, p, q,
 * m-q, m-p, m; the relabelling keeps x -> m-x, so turns and places
 * correspond one for one) by composing their turns' maps of the 150
 * center places and keeping those that move obliques alone. Conjugated
 * by at most one turn they become the candidates, one per map (the
 * cheapest), set up once per solve. A greedy step takes the candidate
 * that puts the most stickers right per move (less the turns that merge
 * with the previous step's), while one does; up to 7×7 a beam keeps the
 * OM_BW best states of each step (moves made plus OM_BR per sticker
 * still wrong), each grown by its OM_LOOK best candidates, and the
 * answer is the state past which nothing gains with the fewest moves
 * (4 per sticker left counted for the 3-cycles). solve_orbit's 3-cycles
 * finish. A step weighs every candidate, so a solve stops weighing past
 * OM_BUDGET (deterministic, unlike a clock) and leaves the rest to the
 * 3-cycles, which keeps 17×17 and 33×33 to about a second or two.
 * docs/solvers.md has the measurements and what was tried and left
 * out. */

static const uint8_t om_layers[6] = {0, 1, 2, 4, 5, 6};

static int om_is_obl(int r, int c)
{
	int ro = r == 1 || r == 5, ri = r == 2 || r == 4;
	int co = c == 1 || c == 5, ci = c == 2 || c == 4;
	return (ro && ci) || (ri && co);
}

static int om_center(int f, int r, int c)
{
	return f * 25 + (r - 1) * 5 + c - 1;
}

/* The model's generators as maps of its center places. */
static int om_gens(struct omlib *L)
{
	cube_t *sim = (cube_t *)(void *)L->sim;
	if (cube_sizeof(7) > sizeof L->sim)
		return -1;
	int g = 0;
	for (int axis = 0; axis < 3; axis++)
		for (int i = 0; i < 6; i++)
			for (int qt = 1; qt <= 3; qt++, g++) {
				int lay = om_layers[i];
				L->gmv[g] = (uint8_t)(axis | lay << 2 | qt << 5);
				L->ginv[g] = (uint8_t)(g + 4 - 2 * qt);
				cube_init(sim, 7);
				for (int f = 0; f < 6; f++)
					for (int r = 1; r <= 5; r++)
						for (int c = 1; c <= 5; c++)
							cube__set(sim, f, r, c,
								  LABEL0 +
								  om_center(f, r, c));
				cube_turn(sim, axis, lay, lay, qt);
				for (int f = 0; f < 6; f++)
					for (int r = 1; r <= 5; r++)
						for (int c = 1; c <= 5; c++) {
							int v = cube_get(sim, f, r, c) -
								LABEL0;
							if (v < 0 || v >= OM_NC)
								return -1;
							L->cperm[g][v] = (uint8_t)
								om_center(f, r, c);
						}
			}
	/* the oblique places, numbered; the generators on them */
	int id[OM_NC], k = 0;
	for (int f = 0; f < 6; f++)
		for (int r = 1; r <= 5; r++)
			for (int c = 1; c <= 5; c++) {
				int t = om_center(f, r, c);
				id[t] = -1;
				if (!om_is_obl(r, c))
					continue;
				L->place[k][0] = (uint8_t)f;
				L->place[k][1] = (uint8_t)r;
				L->place[k][2] = (uint8_t)c;
				id[t] = k++;
			}
	if (k != OM_NPOS)
		return -1;
	for (g = 0; g < MAX_GEN; g++)
		for (int p = 0; p < OM_NPOS; p++) {
			int to = id[L->cperm[g][om_center(L->place[p][0],
							  L->place[p][1],
							  L->place[p][2])]];
			if (to < 0)
				return -1;
			L->gperm[g][p] = (uint8_t)to;
		}
	return 0;
}

static int om_gen_of(int axis, int lay, int qt)
{
	int i = lay < 3 ? lay : lay - 1;
	return (axis * 6 + i) * 3 + qt - 1;
}

/* Pair (u, v) added to map m, u and v renamed by si if given (a
 * conjugation); om_canon once all are in. */
static void om_put(struct ommap *m, int u, int v, const uint8_t *si)
{
	if (si)
		u = si[u], v = si[v];
	m->pv[m->nm++] = (uint16_t)(u * OM_NPOS + v);
}

static void om_canon(struct ommap *m)
{
	for (int j = 1; j < m->nm; j++)
		for (int i = j; i > 0 && m->pv[i - 1] > m->pv[i]; i--) {
			uint16_t t = m->pv[i];
			m->pv[i] = m->pv[i - 1];
			m->pv[i - 1] = t;
		}
}

/* The slot of map m in an open-addressed set of nslot (a power of two)
 * slots over items of stride bytes, each starting with its map: the
 * slot that holds m, or the empty one where it goes. */
static uint32_t om_find(const int32_t *slot, uint32_t nslot,
			const struct ommap *m, const void *items, size_t stride)
{
	uint64_t h = 1469598103934665603ull;
	for (int j = 0; j < m->nm; j++)
		h = (h ^ m->pv[j]) * 1099511628211ull;
	uint32_t i = (uint32_t)(h >> 20) & (nslot - 1);
	for (;; i = (i + 1) & (nslot - 1)) {
		if (slot[i] < 0)
			return i;
		const struct ommap *o = (const struct ommap *)(const void *)(
			(const unsigned char *)items + (size_t)slot[i] * stride);
		if (o->nm == m->nm &&
		    memcmp(o->pv, m->pv, m->nm * sizeof *m->pv) == 0)
			return i;
	}
}

/* Keep macro a unless a macro of the same map, as short, is kept. */
static void om_add(struct omlib *L, const struct omac *a)
{
	uint32_t i = om_find(L->slot, OM_HASH, &a->m, L->mac, sizeof *L->mac);
	if (L->slot[i] >= 0) {
		if (L->mac[L->slot[i]].len > a->len)
			L->mac[L->slot[i]] = *a;
		return;
	}
	if (L->count >= OM_MAX)
		return;
	L->slot[i] = L->count;
	L->mac[L->count++] = *a;
}

static void om_compose(const struct omlib *L, uint8_t *map, const uint8_t *mv,
		       int len)
{
	for (int t = 0; t < OM_NC; t++) {
		int p = t;
		for (int k = 0; k < len; k++)
			p = L->cperm[om_gen_of(mv[k] & 3, mv[k] >> 2 & 7,
					       mv[k] >> 5)][p];
		map[t] = (uint8_t)p;
	}
}

static int om_build(struct omlib *L)
{
	if (om_gens(L) < 0)
		return SOLVE_ESTAGE;
	int id[OM_NC];
	for (int t = 0; t < OM_NC; t++)
		id[t] = -1;
	for (int p = 0; p < OM_NPOS; p++)
		id[om_center(L->place[p][0], L->place[p][1], L->place[p][2])] =
			p;
	memset(L->slot, -1, sizeof L->slot);
	L->count = 0;
	static const uint8_t inner[4] = {1, 2, 4, 5};
	static const uint8_t two[6][2] = {{0, 1}, {0, 2}, {0, 3},
					  {1, 2}, {1, 3}, {2, 3}};
	for (int A = 0; A < 3; A++)
	for (int B = 0; B < 3; B++) {
		if (A == B)
			continue;
		/* P: nP slices on axis A; Q: nQ on axis B */
		for (int shape = 0; shape < 3; shape++) {
			int nP = shape == 1 ? 2 : 1, nQ = shape == 2 ? 2 : 1;
			int sets_p = nP == 1 ? 4 : 6, sets_q = nQ == 1 ? 4 : 6;
			int qts_p = nP == 1 ? 3 : 9, qts_q = nQ == 1 ? 3 : 9;
			for (int sp = 0; sp < sets_p; sp++)
			for (int sq = 0; sq < sets_q; sq++)
			for (int tp = 0; tp < qts_p; tp++)
			for (int tq = 0; tq < qts_q; tq++) {
				uint8_t P[2], Q[2], X[6], Xi[6];
				for (int k = 0; k < nP; k++) {
					int lay = inner[nP == 1 ? sp : two[sp][k]];
					int qt = (k ? tp / 3 : tp % 3) + 1;
					P[k] = (uint8_t)(A | lay << 2 | qt << 5);
				}
				for (int k = 0; k < nQ; k++) {
					int lay = inner[nQ == 1 ? sq : two[sq][k]];
					int qt = (k ? tq / 3 : tq % 3) + 1;
					Q[k] = (uint8_t)(B | lay << 2 | qt << 5);
				}
				int xn = 0;
				for (int k = 0; k < nP; k++)
					X[xn] = Xi[xn] = P[k], xn++;
				for (int k = 0; k < nQ; k++) {
					X[xn] = Q[k];
					Xi[xn++] = (uint8_t)((Q[k] & 31) |
							     (4 - (Q[k] >> 5)) << 5);
				}
				for (int k = 0; k < nP; k++, xn++)
					X[xn] = Xi[xn] = (uint8_t)((P[k] & 31) |
						(4 - (P[k] >> 5)) << 5);
				uint8_t xmap[OM_NC], ximap[OM_NC];
				om_compose(L, xmap, X, xn);
				om_compose(L, ximap, Xi, xn);
				for (int fb = 0; fb <= 6; fb += 6)
				for (int b1 = 1; b1 <= 3; b1++) {
					const uint8_t *y = L->cperm[om_gen_of(B, fb, b1)],
						      *yi = L->cperm[om_gen_of(B, fb, 4 - b1)];
					for (int form = 0; form < 2; form++) {
						/* form 0: X Y X' Y'; 1: Y X Y' X' */
						const uint8_t *m1 = form ? y : xmap,
							      *m2 = form ? xmap : y,
							      *m3 = form ? yi : ximap,
							      *m4 = form ? ximap : yi;
						struct omac a;
						int ok = 1;
						a.m.nm = 0;
						for (int t = 0; t < OM_NC && ok; t++) {
							int d = m4[m3[m2[m1[t]]]];
							if (d == t)
								continue;
							if (id[t] < 0 || a.m.nm == OM_MOV)
								ok = 0;
							else
								om_put(&a.m, id[t], id[d],
								       NULL);
						}
						if (!ok || a.m.nm == 0)
							continue;
						om_canon(&a.m);
						uint8_t Y = (uint8_t)(B | fb << 2 | b1 << 5),
							Yi = (uint8_t)(B | fb << 2 |
								       (4 - b1) << 5);
						a.len = 0;
						if (form)
							a.mv[a.len++] = Y;
						for (int k = 0; k < xn; k++)
							a.mv[a.len++] = X[k];
						a.mv[a.len++] = form ? Yi : Y;
						for (int k = 0; k < xn; k++)
							a.mv[a.len++] = Xi[k];
						if (!form)
							a.mv[a.len++] = Yi;
						om_add(L, &a);
					}
				}
			}
		}
	}
	L->built = 1;
	return L->count > 0 ? 0 : SOLVE_ESTAGE;
}

/* Model layer or coordinate (0, 1, 2, 4, 5, 6) on the cube. */
static int om_real(int v, int p, int q, int m)
{
	switch (v) {
	case 0: return 0;
	case 1: return p;
	case 2: return q;
	case 4: return m - q;
	case 5: return m - p;
	default: return m;
	}
}

static int om_emit(struct ctx *x, uint8_t mv, int p, int q, int inverse)
{
	int qt = mv >> 5;
	return emit(x, mv & 3, om_real(mv >> 2 & 7, p, q, x->m),
		    inverse ? 4 - qt : qt);
}

static void om_read(const struct ctx *x, const struct omlib *L, int p, int q,
		    uint8_t *cur)
{
	for (int i = 0; i < OM_NPOS; i++)
		cur[i] = (uint8_t)cube_get(x->c, L->place[i][0],
					   om_real(L->place[i][1], p, q, x->m),
					   om_real(L->place[i][2], p, q, x->m));
}

/* Moves turn a and then b save when merged: 2 if they cancel, 1 if they
 * make one turn, else 0. */
static int om_merge(uint8_t a, uint8_t b)
{
	if ((a & 31) != (b & 31))
		return 0;
	return ((a >> 5) + (b >> 5)) % 4 == 0 ? 2 : 1;
}

static uint8_t om_inv(uint8_t mv)
{
	return (uint8_t)((mv & 31) | (4 - (mv >> 5)) << 5);
}

static struct omcands *om_cands_of(struct ctx *x)
{
	return (struct omcands *)x->region[REDUCE_R_OBLIQUES];
}

size_t reduce__obliques_size(int n)
{
	return reduce__plan(n, EFFORT_INSIDE).obliques
		       ? (sizeof(struct omcands) + 63) & ~(size_t)63
		       : 0;
}

void reduce__obliques_reset(struct ctx *x)
{
	om_cands_of(x)->lib.built = 0;
}

/* Every macro with no set-up and with each turn as its set-up, one
 * candidate per map of the places (of the same map, the cheapest, the
 * first found): about 131,000 of 465,000. */
static void om_cands(const struct omlib *L, struct omcands *C)
{
	memset(C->slot, -1, sizeof C->slot);
	C->count = 0;
	for (int s = -1; s < MAX_GEN; s++) {
		const uint8_t *si = s < 0 ? NULL : L->gperm[L->ginv[s]];
		for (int k = 0; k < L->count; k++) {
			const struct omac *a = &L->mac[k];
			struct omcand c;
			c.m.nm = 0;
			for (int j = 0; j < a->m.nm; j++)
				om_put(&c.m, a->m.pv[j] / OM_NPOS,
				       a->m.pv[j] % OM_NPOS, si);
			om_canon(&c.m);
			int cost = a->len;
			if (s >= 0)
				cost += 2 - om_merge(L->gmv[s], a->mv[0]) -
					om_merge(a->mv[a->len - 1],
						 om_inv(L->gmv[s]));
			c.cost = (uint8_t)(cost < 1 ? 1 : cost);
			c.first = s < 0 ? a->mv[0] : L->gmv[s];
			c.s = (int8_t)s;
			c.k = (uint16_t)k;
			uint32_t i = om_find(C->slot, OM_CHASH, &c.m, C->c,
					     sizeof *C->c);
			if (C->slot[i] >= 0) {
				if (c.cost < C->c[C->slot[i]].cost)
					C->c[C->slot[i]] = c;
			} else if (C->count < OM_CMAX) {
				C->slot[i] = C->count;
				C->c[C->count++] = c;
			}
		}
	}
}

/* w[u·48 + v]: what moving the sticker at u to v gains, the stickers
 * as in cur. */
static void om_weights(const uint8_t *cur, const uint8_t *tgt, int8_t *w)
{
	for (int u = 0; u < OM_NPOS; u++)
		for (int v = 0; v < OM_NPOS; v++)
			w[u * OM_NPOS + v] =
				(int8_t)((cur[u] == tgt[v]) - (cur[v] == tgt[v]));
}

static int om_gain(const struct ommap *m, const int8_t *w)
{
	int g = 0;
	for (int j = 0; j < m->nm; j++)
		g += w[m->pv[j]];
	return g;
}

/* The stickers after map m. */
static void om_apply(const struct ommap *m, const uint8_t *cur, uint8_t *out)
{
	memcpy(out, cur, OM_NPOS);
	for (int j = 0; j < m->nm; j++)
		out[m->pv[j] % OM_NPOS] = cur[m->pv[j] / OM_NPOS];
}

/* The want best candidates from state cur (the turns before it tail) by
 * stickers put right per move, best first, into top, tg (their gains)
 * and tc (their costs); how many. */
static int om_top(struct ctx *x, const struct omcands *C, const uint8_t *cur,
		  const uint8_t *tgt, const struct omtail *tail, int want,
		  int *top, int *tg, int *tc)
{
	int8_t w[OM_NPOS * OM_NPOS];
	int nt = 0;
	om_weights(cur, tgt, w);
	x->om_evals += C->count;
	for (int i = 0; i < C->count; i++) {
		const struct omcand *c = &C->c[i];
		int g = om_gain(&c->m, w);
		if (g <= 0)
			continue;
		/* less what merges with the turns before it */
		int cost = c->cost - om_tail_saves(tail, c->first);
		top_put(top, tg, tc, &nt, want, i, g, cost < 1 ? 1 : cost);
	}
	return nt;
}

/* The turns of candidate c after tail, emitted if x is given. */
static int om_play(struct ctx *x, const struct omlib *L,
		   const struct omcand *c, struct omtail *tail, int p, int q)
{
	const struct omac *a = &L->mac[c->k];
	int rc;
	if (c->s >= 0) {
		if (x && (rc = om_emit(x, L->gmv[c->s], p, q, 0)) < 0)
			return rc;
		om_tail_add(tail, L->gmv[c->s]);
	}
	for (int k = 0; k < a->len; k++) {
		if (x && (rc = om_emit(x, a->mv[k], p, q, 0)) < 0)
			return rc;
		om_tail_add(tail, a->mv[k]);
	}
	if (c->s >= 0) {
		if (x && (rc = om_emit(x, L->gmv[c->s], p, q, 1)) < 0)
			return rc;
		om_tail_add(tail, om_inv(L->gmv[c->s]));
	}
	return 0;
}

static int om_wrong(const uint8_t *cur, const uint8_t *tgt)
{
	int k = 0;
	for (int i = 0; i < OM_NPOS; i++)
		k += cur[i] != tgt[i];
	return k;
}

/* What state s is worth: moves made and those the rest may take. */
static int om_score(const struct omnode *s)
{
	return s->cost + OM_BR * s->wrong;
}

/* The beam over the macros for the orbits (p, q) and (p, m-q): up to
 * OM_DEPTH steps at a time, then the path to the best state emitted
 * and checked; until no candidate puts a sticker right. */
int reduce__om_pair(struct ctx *x, int p, int q)
{
	struct omcands *C = om_cands_of(x);
	struct omlib *L = &C->lib;
	int rc;
	if (!L->built) {
		if ((rc = om_build(L)) < 0)
			return rc;
		om_cands(L, C);
	}
	int bw = x->plan.om_beam ? OM_BW : 1;
	int want = x->plan.om_beam ? OM_LOOK : 1;
	uint8_t tgt[OM_NPOS], now[OM_NPOS];
	for (int i = 0; i < OM_NPOS; i++)
		tgt[i] = (uint8_t)x->tcol[L->place[i][0]];
	struct omnode *root = &C->lev[0][0];
	memset(root, 0, sizeof *root);
	root->tail.axis = -1;
	root->parent = -1;
	root->cand = -1;
	om_read(x, L, p, q, root->cur);
	for (;;) {
		root->cost = 0;
		root->wrong = (int16_t)om_wrong(root->cur, tgt);
		C->nlev[0] = 1;
		/* the best state: of those past which no candidate puts a
		 * sticker right, the one whose moves and 3-cycles for the
		 * rest are fewest; if cut short, the last step's best */
		int bd = -1, bi = 0, bs = 0, d = 0, more = 0;
		for (; d + 1 < OM_DEPTH && C->nlev[d] > 0; d++) {
			if (poll_now(x))
				return SOLVE_ENOTFOUND;
			/* past the budget the 3-cycles finish, as they do
			 * the rest */
			if (x->om_evals >= OM_BUDGET)
				break;
			int nk = 0;
			for (int i = 0; i < C->nlev[d]; i++) {
				const struct omnode *s = &C->lev[d][i];
				int top[OM_LOOK], tg[OM_LOOK], tc[OM_LOOK];
				int nt = om_top(x, C, s->cur, tgt, &s->tail,
						want, top, tg, tc);
				int fin = s->cost + OM_FIN * s->wrong;
				if (nt == 0 && (bd < 0 || fin < bs))
					bd = d, bi = i, bs = fin;
				for (int t = 0; t < nt; t++) {
					struct omnode *k = &C->kids[nk++];
					k->cost = (int16_t)(s->cost + tc[t]);
					k->wrong = (int16_t)(s->wrong - tg[t]);
					k->parent = (int16_t)i;
					k->cand = top[t];
				}
			}
			/* the bw best children, each state once */
			int nn = 0;
			for (int t = 0; t < nk && nn < bw; t++) {
				int b = t;
				for (int u = t + 1; u < nk; u++)
					if (om_score(&C->kids[u]) <
					    om_score(&C->kids[b]))
						b = u;
				struct omnode k = C->kids[b];
				C->kids[b] = C->kids[t];
				const struct omnode *s = &C->lev[d][k.parent];
				const struct omcand *c = &C->c[k.cand];
				om_apply(&c->m, s->cur, k.cur);
				int dup = 0;
				for (int u = 0; u < nn && !dup; u++)
					dup = memcmp(C->lev[d + 1][u].cur, k.cur,
						     OM_NPOS) == 0;
				if (dup)
					continue;
				k.tail = s->tail;
				om_play(NULL, L, c, &k.tail, p, q);
				C->lev[d + 1][nn++] = k;
			}
			C->nlev[d + 1] = nn;
		}
		if (d + 1 >= OM_DEPTH || x->om_evals >= OM_BUDGET) {
			/* cut short: the last step's states are weighed
			 * too, and past the depth the beam goes on from
			 * the best */
			for (int i = 0; i < C->nlev[d]; i++) {
				const struct omnode *s = &C->lev[d][i];
				int fin = s->cost + OM_FIN * s->wrong;
				if (bd < 0 || fin < bs)
					bd = d, bi = i, bs = fin;
			}
			more = bd == d && d + 1 >= OM_DEPTH &&
			       x->om_evals < OM_BUDGET;
		}
		if (bd <= 0)
			return 0;
		/* the path to it, from the root */
		int path[OM_DEPTH];
		for (int e = bd, i = bi; e > 0; e--) {
			path[e] = C->lev[e][i].cand;
			i = C->lev[e][i].parent;
		}
		struct omtail tail = root->tail;
		for (int e = 1; e <= bd; e++)
			if ((rc = om_play(x, L, &C->c[path[e]], &tail, p, q)) < 0)
				return rc;
		om_read(x, L, p, q, now);
		if (memcmp(now, C->lev[bd][bi].cur, OM_NPOS) != 0)
			return SOLVE_ESTAGE;
		if (!more)
			return 0;
		memcpy(root->cur, now, OM_NPOS);
		root->tail = tail;
	}
}
