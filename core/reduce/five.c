/* five.c — 5×5 in five phases (the shape of cube555's reduction;
 * docs/solvers.md, "5×5 in five phases"): the reduction in about 54 block
 * turns where the stage-by-stage one takes 70.
 *
 *   phase 1 (all 36 face and wide turns)  the U/D x- and +-centres onto U
 *           and D;
 *   phase 2 (R L F B, Uw Dw, the other wide turns by halves)  the R/L
 *           x- and +-centres onto R and L, the wing permutation even;
 *   phase 3 (every face turn, the wide half turns)  every edge's two
 *           wings one in each class (the orbits of phases 4 and 5's
 *           turns) under a labeling with an even number of swapped
 *           edges, each midge turned to its edge's labeling, the centre
 *           splits into phase 4's reach, and four whole edges (midge and
 *           wings) in the U/D layers for phase 4;
 *   phases 4 and 5 (five45.c)  four edges paired into the S slice, then
 *           every centre solved and every edge paired.
 *
 * Each phase is an IDA* search over tables built once from the cube
 * model's own turns (reduce_five_tables_build). Between phases the
 * answers are carried as sets (cube555 keeps hundreds): each phase
 * searches its input set by total length until it holds its quota, and
 * the 3×3 stage picks among the shortest reductions. Phase 1 starts from
 * the cube seen along each of its three axes (the model and tables:
 * five_tables.c). Pure C11: no allocation,
 * no globals but const data.
 */
#include <string.h>

#include "alg.h"
#include "five_model.h"

/* ---- the solve ----------------------------------------------------------- */

/* Answers kept between phases, by effort (1, 2, 3): phase 1 … phase 4's
 * sets, phase 5's (the reductions the 3×3 stage finishes), and the nodes
 * a search may visit once its phase holds an answer (before that,
 * CAP_FIRST; phase 5's CAP_45). Measured on the bench's first 60 5×5s
 * (2026-11-27 at `e667cec`, that day's bench/RESULTS.md): 20/20/20/12/2 with
 * 150 k nodes 70.42 moves in 1.16 s median; 12/12/12/6/2 71.67 in 0.92 s;
 * 8/8/8/4/2 with 300 k 72.38 in 0.88 s. On the first 20: effort 2
 * 69.45 in 2.1 s (6.0 s at most), effort 3 69.10 in 2.9 s (5.8 s), well
 * inside the 10 s the server gives them; 100/100/40/20/6 with 2 M took
 * up to 8.1 s. */
static const uint8_t quota[4][5] = {
	{0, 0, 0, 0, 0},
	{20, 20, 20, 12, 2},
	{30, 30, 30, 16, 4},
	{60, 60, 40, 16, 4},
};
static const long cap_after[4] = {0, 150000L, 500000L, 1000000L};
/* Nodes a phase may spend in all once it holds an answer (by effort,
 * phase 1 … 5), and a search past its own first answer: without them the
 * slowest states took 3-4 s (a phase-1 search finding all 20 answers in
 * 8 M nodes, a phase 3 of 3 M); with them the bench's first 60 take
 * 70.43 moves (70.42 before) in 1.15 s median, 2.1 s p90, 2.9 s at most
 * (1.29, 2.8, 4.2 s before, same run). Phase 3's nodes cost about twice
 * the others'. */
static const long phase_cap[4][6] = {
	{0},
	{0, 2000000L, 2000000L, 1000000L, 2000000L, 2000000L},
	{0, 4000000L, 4000000L, 2000000L, 4000000L, 4000000L},
	{0, 8000000L, 8000000L, 4000000L, 8000000L, 8000000L},
};
#define F_SETMAX 128
#define F_PATH 64
#define F_CB 256 /* a 5×5 cube_t (cube_sizeof(5), 226 bytes) */
#define V_DEPTH 22
#define NLAB 2048
#define F_ANS 64
/* nodes a search may visit before its phase holds any answer; phase 5's */
#define CAP_FIRST 40000000L
/* lengths a phase goes on past the one that gave its first answer */
#define FIVE_MORE 2
#define CAP_45 20000000L

struct fel {
	_Alignas(64) unsigned char cb[F_CB];
	uint64_t hash;
	uint8_t path[F_PATH]; /* turns of the model, in the axis frame */
	uint8_t len, axis, sp[6];
	/* len once each stage's turns are merged as the answer's will be
	 * (stage_end: moves_simplify, moves_merge_blocks; phases 1–2 are
	 * the centers stage, 3–5 the edges'): "U Uw'" is one turn there */
	uint8_t cost;
};

#define F_KEEP 8 /* the default pass's reductions kept (effort 2, 3) */

struct fivew {
	struct fel set[2][F_SETMAX];
	struct fel keep[F_KEEP];
	int nset[2], cur; /* set[cur] the last phase's answers */
	uint32_t lw[V_DEPTH + 2][NLAB];
	uint16_t lm[V_DEPTH + 2][NLAB];
	int nalive[V_DEPTH + 2];
	uint8_t path[V_DEPTH + 2];
	uint8_t ans[F_ANS][V_DEPTH];
	int alen[F_ANS];
	cube_move a45[F_ANS][24];
	int l45[F_ANS];
	_Alignas(64) unsigned char scratch[F_CB];
	long nodes;  /* all phases' */
	int stopped; /* the search ends: the caller's poll, or its hurry */
	int halted;  /* the caller's poll: the solve ends */
	int hurried; /* its hurry, asked no more (reduce_limits.hurry) */
	_Alignas(64) unsigned char s45[]; /* five45's search */
};

size_t reduce__five_size(int n)
{
	return n == 5 ? sizeof(struct fivew) + AL(reduce__five45_search_size())
		      : 0;
}

struct vsrch {
	const struct vmodel *M;
	const unsigned char *T;
	struct fivew *w;
	const reduce_limits *lim;
	const cube_t *start; /* phase 3: to check an answer's edges */
	int bound, want, nfound;
	long nodes, cap, after; /* after: cap_after[effort] */
	const long *pcap;       /* phase_cap[effort] */
	int phase;              /* the step's */
};

static cube_t *el_cube(struct fel *e)
{
	return (cube_t *)(void *)e->cb;
}

/* The phases' poll (ctx: the vsrch): the caller's poll ends the solve
 * (halted); its hurry, asked until it says yes, ends the phases with
 * what they hold (hurried: five_pass). */
static int five_poll(void *ctx, uint64_t done, uint64_t total)
{
	struct vsrch *S = ctx;
	const reduce_limits *l = S->lim;
	struct fivew *w = S->w;
	if (l->poll && l->poll(l->ctx, done, total)) {
		w->stopped = w->halted = 1;
		return 1;
	}
	if (!w->hurried && l->hurry && l->hurry(l->ctx)) {
		w->stopped = w->hurried = 1;
		return 1;
	}
	return 0;
}

static solve_poll_fn poll_of(const struct vsrch *S)
{
	return S->lim && (S->lim->poll || S->lim->hurry) ? five_poll : NULL;
}

static int node(struct vsrch *S)
{
	struct fivew *w = S->w;
	if (++S->nodes > S->cap || w->stopped)
		return 1;
	return (++w->nodes & 0xffff) == 0 && poll_of(S) &&
	       five_poll(S, (uint64_t)w->nodes, 0);
}

static int skip(const struct vmodel *M, int last, int k)
{
	return last >= 0 && M->mv[k].axis == M->mv[last].axis &&
	       M->mv[k].ord <= M->mv[last].ord;
}

static void found(struct vsrch *S, int depth)
{
	struct fivew *w = S->w;
	if (S->start) {
		/* phase 4 needs four edges whose three pieces are all in
		 * the U/D layers: it never moves one out of the E slice */
		cube_t *t = (cube_t *)(void *)w->scratch;
		cube_copy(t, S->start);
		for (int j = 0; j < depth; j++) {
			const struct vmove *g = &S->M->mv[w->path[j]];
			cube_turn(t, g->axis, g->lo, g->hi, g->qt);
		}
		if (reduce__five45_ud_edges(S->T + OFF_F45, t) < 4)
			return;
	}
	if (S->nfound < S->want) {
		/* the call's first answer: at most the phase's cap more */
		if (!S->nfound && S->cap - S->nodes > S->pcap[S->phase])
			S->cap = S->nodes + S->pcap[S->phase];
		memcpy(w->ans[S->nfound], w->path, (size_t)depth);
		w->alen[S->nfound++] = depth;
	}
}

static void dfs1(struct vsrch *S, uint32_t x, uint32_t t, int depth, int last)
{
	const struct vmodel *M = S->M;
	const uint8_t *t1x = S->T + OFF_T1X, *t1t = S->T + OFF_T1T;
	int hx = t1x[crank(M, x)], ht = t1t[crank(M, t)];
	int h = hx > ht ? hx : ht;
	if (h == 0 && depth == S->bound) {
		found(S, depth);
		return;
	}
	if (depth + h > S->bound || S->nfound >= S->want || node(S))
		return;
	/* the children's entries asked for at once, then read */
	uint32_t kx[V_MOVES], kr[V_MOVES];
	for (int k = 0; k < V_MOVES; k++) {
		kx[k] = by_bytes(M->px[k], x);
		kr[k] = crank(M, kx[k]);
		__builtin_prefetch(t1x + kr[k]);
	}
	for (int k = 0; k < V_MOVES; k++) {
		if (skip(M, last, k) || depth + 1 + t1x[kr[k]] > S->bound)
			continue;
		S->w->path[depth] = (uint8_t)k;
		dfs1(S, kx[k], by_bytes(M->pt[k], t), depth + 1, k);
	}
}

static void dfs2(struct vsrch *S, uint32_t a, uint32_t b, int wpar, int depth,
		 int last)
{
	const struct vmodel *M = S->M;
	int h = nib_get(S->T + OFF_T2, (size_t)a * N16 + b);
	if (h == 0 && !wpar && depth == S->bound) {
		found(S, depth);
		return;
	}
	if (depth + h > S->bound || depth == S->bound ||
	    S->nfound >= S->want || node(S))
		return;
	for (int j = 0; j < 22; j++) {
		int k = M->list[2][j];
		if (skip(M, last, k))
			continue;
		S->w->path[depth] = (uint8_t)k;
		dfs2(S, M->mv2x[a][j], M->mv2t[b][j], wpar ^ M->mv[k].wpar,
		     depth + 1, k);
	}
}

/* Phase 3 under every labeling still alive: its class-A wings' slots
 * (lw) and its midges' errors (lm), each a table's index. */
static void dfs3(struct vsrch *S, uint32_t cc, int depth, int last)
{
	const struct vmodel *M = S->M;
	struct fivew *w = S->w;
	const uint8_t *t3w = S->T + OFF_T3W, *t3c = S->T + OFF_T3C;
	uint32_t a = cc / (N70 * N70 * N70), b = cc / (N70 * N70) % N70,
		 c = cc / N70 % N70, e = cc % N70;
	if (depth + t3c[cc] > S->bound || S->nfound >= S->want || node(S))
		return;
	const uint32_t *lw = w->lw[depth];
	const uint16_t *lm = w->lm[depth];
	int n = w->nalive[depth], hmin = 99;
	for (int i = 0; i < n; i++) {
		int dw = t3w[crank(M, lw[i])], dm = M->t3m[lm[i]];
		int d = dw > dm ? dw : dm;
		if (d < hmin)
			hmin = d;
	}
	if (t3c[cc] == 0 && hmin == 0 && depth == S->bound) {
		found(S, depth);
		return;
	}
	if (depth == S->bound || depth + hmin > S->bound)
		return;
	int room = S->bound - depth - 1;
	/* the centre table (24 MB) read for every child at once */
	uint32_t kc[24];
	for (int j = 0; j < 24; j++) {
		int k = M->list[3][j];
		kc[j] = c4(M->map70[k][0][0][a], M->map70[k][0][1][b],
			   M->map70[k][1][0][c], M->map70[k][1][1][e]);
		__builtin_prefetch(t3c + kc[j]);
	}
	for (int j = 0; j < 24; j++) {
		int k = M->list[3][j];
		if (skip(M, last, k))
			continue;
		uint32_t c2 = kc[j];
		if (t3c[c2] > room)
			continue;
		uint32_t *nw = w->lw[depth + 1];
		uint16_t *nm = w->lm[depth + 1];
		int na = 0;
		for (int i = 0; i < n; i++) {
			uint32_t w2 = by_bytes(M->pw[k], lw[i]);
			if (t3w[crank(M, w2)] > room)
				continue;
			uint16_t m2 = M->pm12[k][lm[i]];
			if (M->t3m[m2] > room)
				continue;
			nw[na] = w2;
			nm[na++] = m2;
		}
		if (!na)
			continue;
		w->nalive[depth + 1] = na;
		w->path[depth] = (uint8_t)k;
		dfs3(S, c2, depth + 1, k);
		if (S->nfound >= S->want || w->stopped)
			return;
	}
}

/* What the phases read off a cube whose colours are its faces. */
struct vread {
	uint32_t x1, t1, x2, t2, xu, tu;
	uint8_t sx[12], sy[12]; /* slots of each edge's class-A, B wing */
	uint8_t mpos[12], q[12];
	int wpar;
};

static int col(const cube_t *c, const uint8_t p[3])
{
	return cube_get(c, p[0], p[1], p[2]);
}

static int read_cube(const struct vmodel *M, const cube_t *c, struct vread *s)
{
	memset(s, 0, sizeof *s);
	for (int i = 0; i < 24; i++) {
		int fx = col(c, M->xpos[i]), ft = col(c, M->tpos[i]);
		s->x1 |= (uint32_t)(fx % 3 == 0) << i;
		s->t1 |= (uint32_t)(ft % 3 == 0) << i;
		s->x2 |= (uint32_t)(fx % 3 == 1) << i;
		s->t2 |= (uint32_t)(ft % 3 == 1) << i;
		s->xu |= (uint32_t)(fx < 3) << i;
		s->tu |= (uint32_t)(ft < 3) << i;
	}
	uint32_t seen = 0;
	uint8_t hw[24];
	for (int w = 0; w < 24; w++) {
		int h = M->whome[w][col(c, M->wst[w][0])][col(c, M->wst[w][1])];
		if (h == 255 || seen >> h & 1)
			return -1;
		seen |= 1u << h;
		hw[w] = (uint8_t)h;
		if (M->cls[h])
			s->sx[M->wedge[h]] = (uint8_t)w;
		else
			s->sy[M->wedge[h]] = (uint8_t)w;
	}
	s->wpar = parity_of(hw, 24);
	for (int p = 0; p < 12; p++) {
		int a = col(c, M->mst[p][0]), b = col(c, M->mst[p][1]), e, o = -1;
		for (e = 0; e < 12 && o < 0; e++) {
			if (a == M->mst[e][0][0] && b == M->mst[e][1][0])
				o = 0;
			else if (a == M->mst[e][1][0] && b == M->mst[e][0][0])
				o = 1;
		}
		if (o < 0)
			return -1;
		e--;
		s->mpos[e] = (uint8_t)p;
		s->q[e] = (uint8_t)(o ^ M->mcorr[p] ^ M->mcorr[e]);
	}
	return 0;
}

static uint32_t split_of(const struct vmodel *M, uint32_t mask,
			 const uint8_t *pl)
{
	uint32_t s = 0;
	for (int j = 0; j < 8; j++)
		s |= (mask >> pl[j] & 1) << j;
	return M->rank8[s];
}

static uint32_t c3_of(const struct vmodel *M, const struct vread *s)
{
	return c4(split_of(M, s->xu, M->axx[0]), split_of(M, s->tu, M->axt[0]),
		  split_of(M, s->xu, M->axx[1]), split_of(M, s->tu, M->axt[1]));
}

static uint32_t squeeze16(uint32_t m, const uint8_t *list)
{
	uint32_t r = 0;
	for (int j = 0; j < 16; j++)
		r |= (m >> list[j] & 1) << j;
	return r;
}

/* phase 3's labelings (an even number of edges swapped) at depth 0 */
static int labelings(const struct vread *s, struct fivew *w)
{
	int na = 0;
	for (unsigned v = 0; v < 4096; v++) {
		if (__builtin_popcount(v) & 1)
			continue;
		uint32_t m = 0;
		unsigned e = 0;
		for (int k = 0; k < 12; k++) {
			int bit = v >> k & 1;
			m |= 1u << (bit ? s->sy[k] : s->sx[k]);
			e |= (unsigned)(s->q[k] ^ bit) << s->mpos[k];
		}
		w->lw[0][na] = m;
		w->lm[0][na++] = (uint16_t)e;
	}
	return na;
}

/* A phase's bound from c: its tables' (phases 1–3), phase 4's search
 * start. -1: c is not in the phase's start set. */
static int lower_bound(struct vsrch *S, int phase, const cube_t *c)
{
	const struct vmodel *M = S->M;
	struct vread s;
	if (phase == 4)
		return reduce__five45_p4_h(S->T + OFF_F45, S->w->s45, c);
	if (phase == 5)
		return reduce__five45_p5_h(S->T + OFF_F45, S->w->s45, c);
	if (read_cube(M, c, &s) < 0)
		return -1;
	if (phase == 1) {
		int hx = S->T[OFF_T1X + crank(M, s.x1)],
		    ht = S->T[OFF_T1T + crank(M, s.t1)];
		return hx > ht ? hx : ht;
	}
	if (phase == 2)
		return s.x1 != M->udx || s.t1 != M->udt
			       ? -1
			       : nib_get(S->T + OFF_T2,
					 (size_t)M->rank16[squeeze16(s.x2, M->nonud_x)] * N16 +
						 M->rank16[squeeze16(s.t2, M->nonud_t)]);
	struct fivew *w = S->w;
	int n = labelings(&s, w), best = 99;
	for (int i = 0; i < n; i++) {
		int dw = S->T[OFF_T3W + crank(M, w->lw[0][i])], dm = M->t3m[w->lm[0][i]];
		int d = dw > dm ? dw : dm;
		if (d < best)
			best = d;
	}
	int hc = S->T[OFF_T3C + c3_of(M, &s)];
	if (hc == V_UNSEEN)
		return -1;
	return hc > best ? hc : best;
}

/* Phase 1–3's answers of exactly bound moves from c into w->ans. */
static int search123(struct vsrch *S, int phase, const cube_t *c, int bound,
		     int want)
{
	const struct vmodel *M = S->M;
	struct fivew *w = S->w;
	struct vread s;
	if (read_cube(M, c, &s) < 0)
		return -1;
	S->bound = bound;
	S->want = want < F_ANS ? want : F_ANS;
	S->nfound = 0;
	S->nodes = 0;
	S->start = NULL;
	if (phase == 1) {
		dfs1(S, s.x1, s.t1, 0, -1);
	} else if (phase == 2) {
		dfs2(S, M->rank16[squeeze16(s.x2, M->nonud_x)],
		     M->rank16[squeeze16(s.t2, M->nonud_t)], s.wpar, 0, -1);
	} else {
		w->nalive[0] = labelings(&s, w);
		S->start = c;
		dfs3(S, c3_of(M, &s), 0, -1);
	}
	return S->nfound;
}

static uint64_t cube_hash(const cube_t *c)
{
	uint64_t h = 1469598103934665603ull;
	for (int f = 0; f < 6; f++)
		for (int r = 0; r < 5; r++)
			for (int k = 0; k < 5; k++)
				h = (h ^ (uint64_t)cube_get(c, f, r, k)) *
				    1099511628211ull;
	return h;
}

/* The merged length of d's path (its cost). */
static int merged_cost(const struct vmodel *M, const struct fel *d)
{
	cube_move m[F_PATH];
	int cost = 0, at = 0;
	for (int stage = 0; stage < 2; stage++) {
		int k = 0, end = at;
		for (int ph = stage ? 3 : 1; ph <= (stage ? 5 : 2); ph++)
			end += d->sp[ph];
		for (; at < end && at < d->len; at++) {
			const struct vmove *g = &M->mv[d->path[at]];
			m[k++] = (cube_move){.axis = g->axis, .qt = g->qt,
					     .lo = g->lo, .hi = g->hi};
		}
		size_t n = moves_simplify(m, (size_t)k);
		cost += (int)moves_merge_blocks(m, n, 5);
	}
	return cost;
}

/* e's successor by the answer mv (len turns of the model) into out[]
 * unless out holds its cube already (then the cheaper of the two) */
static void add_el(const struct vmodel *M, struct fel *out, int *nout,
		   const struct fel *e, int phase, const uint8_t *mv, int len)
{
	if (*nout >= F_SETMAX || e->len + len > F_PATH)
		return;
	struct fel *d = &out[*nout];
	memcpy(d, e, sizeof *d);
	for (int j = 0; j < len; j++) {
		const struct vmove *g = &M->mv[mv[j]];
		cube_turn(el_cube(d), g->axis, g->lo, g->hi, g->qt);
		d->path[d->len++] = mv[j];
	}
	d->sp[phase] = (uint8_t)len;
	d->cost = (uint8_t)merged_cost(M, d);
	d->hash = cube_hash(el_cube(d));
	for (int i = 0; i < *nout; i++)
		if (out[i].hash == d->hash) {
			if (d->cost < out[i].cost)
				memcpy(&out[i], d, sizeof *d);
			return;
		}
	(*nout)++;
}

/* the model turn a cube_move of five45 is */
static int model_turn(const struct vmodel *M, const cube_move *m)
{
	for (int k = 0; k < V_MOVES; k++) {
		const struct vmove *g = &M->mv[k];
		if (g->axis == m->axis && g->lo == m->lo && g->hi == m->hi &&
		    g->qt == m->qt)
			return k;
	}
	return -1;
}

/* add_el for an answer of five45's (cube_moves of the model's turns) */
static void add_moves(const struct vmodel *M, struct fel *out, int *nout,
		      const struct fel *e, int phase, const cube_move *mv,
		      int len)
{
	uint8_t mm[24];
	if (len > 24)
		return;
	for (int j = 0; j < len; j++) {
		int k = model_turn(M, &mv[j]);
		if (k < 0)
			return;
		mm[j] = (uint8_t)k;
	}
	add_el(M, out, nout, e, phase, mm, len);
}

/* A phase is done: its quota q held, stopped, or its cap spent once it
 * holds an answer (phase_cap). */
static int full(const struct vsrch *S, int nout, int q, long pn)
{
	return nout >= q || S->w->stopped || (nout && pn >= S->pcap[S->phase]);
}

/* One phase over set[cur] into the other: by total length t from the
 * least len + bound up, each answer of exactly t - len turns, until it
 * holds q (or no t within a window of the least gives any). */
static int step(struct vsrch *S, int phase, int q)
{
	const struct vmodel *M = S->M;
	struct fivew *w = S->w;
	struct fel *in = w->set[w->cur], *out = w->set[!w->cur];
	int nin = w->nset[w->cur], nout = 0, tmin = 999;
	int h[F_SETMAX];
	long spent = 0;
	for (int i = 0; i < nin; i++) {
		h[i] = lower_bound(S, phase, el_cube(&in[i]));
		if (h[i] >= 0 && in[i].cost + h[i] < tmin)
			tmin = in[i].cost + h[i];
	}
	/* the bounds can be well under the answers (phase 4's tables',
	 * phase 2's with the wing parity odd: a lone flipped edge's wings
	 * need 12 moves there from bound 0) */
	int tend = tmin + 14;
	long pn = 0; /* the phase's nodes */
	S->phase = phase;
	for (int t = tmin; t < tend && !full(S, nout, q, pn); t++) {
		/* once it holds an answer, a few lengths more at most */
		if (nout && tend > t + FIVE_MORE)
			tend = t + FIVE_MORE;
		for (int i = 0; i < nin && !full(S, nout, q, pn); i++) {
			int b = t - in[i].cost;
			if (h[i] < 0 || b < h[i])
				continue;
			S->cap = nout ? S->after : CAP_FIRST;
			if (phase <= 3) {
				if (b > V_DEPTH)
					continue;
				int n = search123(S, phase, el_cube(&in[i]), b, q - nout);
				pn += S->nodes;
				for (int a = 0; a < n; a++)
					add_el(M, out, &nout, &in[i], phase,
					       w->ans[a], w->alen[a]);
				continue;
			}
			long used = 0;
			if (phase == 5) {
				/* answers of exactly b moves into mv5 */
				cube_move mv5[24];
				if (b > (int)(sizeof mv5 / sizeof mv5[0]))
					continue;
				int len = reduce__five45_p5(
					S->T + OFF_F45, w->s45, el_cube(&in[i]), b,
					mv5, b, nout ? S->after : CAP_45, &used,
					poll_of(S), S);
				spent += used;
				pn += used;
				if (len == SOLVE_ENOTFOUND)
					w->stopped = 1;
				if (len < 0)
					continue;
				add_moves(M, out, &nout, &in[i], 5, mv5, len);
				continue;
			}
			int n = reduce__five45_p4(S->T + OFF_F45, w->s45,
						  el_cube(&in[i]), b, b,
						  q - nout < F_ANS ? q - nout : F_ANS,
						  w->a45, w->l45, S->cap, S->pcap[4], &used,
						  poll_of(S), S);
			spent += used;
			pn += used;
			if (n == SOLVE_ENOTFOUND)
				w->stopped = 1;
			for (int a = 0; a < n; a++)
				add_moves(M, out, &nout, &in[i], phase, w->a45[a],
					  w->l45[a]);
		}
	}
	w->nodes += spent;
	w->nset[!w->cur] = nout;
	w->cur = !w->cur;
	return nout;
}

static void sort_set(struct fel *s, int n)
{
	for (int i = 1; i < n; i++) /* insertion: stable, small sets */
		for (int j = i; j > 0 && s[j].cost < s[j - 1].cost; j--) {
			struct fel t;
			memcpy(&t, &s[j], sizeof t);
			memcpy(&s[j], &s[j - 1], sizeof t);
			memcpy(&s[j - 1], &t, sizeof t);
		}
}

/* The five phases at one effort's quotas from x->c: phase 5's answers
 * in set[cur], shortest first; how many, or an error. Hurried by the
 * caller: the answers phase 5 has, or 0 before it has any. */
static int five_pass(struct ctx *x, struct vsrch *S, int e)
{
	struct fivew *w = S->w;
	S->after = cap_after[e];
	S->pcap = phase_cap[e];
	w->cur = 0;
	/* the cube along each axis, coloured by its faces */
	for (int a = 0; a < 3; a++) {
		struct fel *d = &w->set[0][a];
		memset(d, 0, sizeof *d);
		cube_t *c = el_cube(d);
		cube_copy(c, x->c);
		axis_turn(c, a);
		int map[6];
		for (int f = 0; f < 6; f++)
			map[cube_get(c, f, 2, 2)] = f;
		for (int f = 0; f < 6; f++)
			for (int r = 0; r < 5; r++)
				for (int k = 0; k < 5; k++)
					cube__set(c, f, r, k, map[cube_get(c, f, r, k)]);
		d->axis = (uint8_t)a;
		d->hash = cube_hash(c);
	}
	w->nset[0] = 3;
	for (int ph = 1; ph <= 5; ph++) {
		int got = step(S, ph, quota[e][ph - 1]);
		if (w->halted)
			return SOLVE_ENOTFOUND;
		if (w->hurried && (ph < 5 || got == 0))
			return 0;
		if (got == 0)
			return SOLVE_ESTAGE;
		sort_set(w->set[w->cur], got);
	}
	return w->nset[w->cur];
}

/* At effort 2 and 3 the default's pass runs first and its reductions
 * join the larger pass's: the sets are not nested (a larger quota or
 * node cap fills a set from other states), so without them a longer
 * budget could give a longer answer. */
int reduce__five_reduce(struct ctx *x, const void *tables)
{
	const unsigned char *T = tables;
	struct fivew *w = x->region[REDUCE_R_FIVE];
	struct vsrch S = {.M = (const struct vmodel *)(const void *)(T + OFF_MODEL),
			  .T = T, .w = w, .lim = x->lim};
	int e = x->plan.effort > 3 ? 3 : x->plan.effort;
	if (cube_sizeof(5) > F_CB)
		return SOLVE_ESTAGE;
	w->nodes = 0;
	w->stopped = w->halted = w->hurried = 0;
	int nkeep = 0;
	if (e > 1) {
		int n = five_pass(x, &S, 1);
		if (n == SOLVE_ENOTFOUND || n == 0)
			return n;
		for (int i = 0; i < n && nkeep < F_KEEP; i++)
			memcpy(&w->keep[nkeep++], &w->set[w->cur][i],
			       sizeof w->keep[0]);
	}
	/* hurried in the larger pass: the default's reductions */
	int n5 = five_pass(x, &S, e);
	if (n5 == SOLVE_ENOTFOUND || (n5 <= 0 && !nkeep))
		return n5;
	if (n5 <= 0)
		n5 = w->nset[w->cur] = 0;
	for (int i = 0; i < nkeep && n5 < F_SETMAX; i++) {
		int dup = 0;
		for (int j = 0; j < n5 && !dup; j++)
			dup = w->set[w->cur][j].hash == w->keep[i].hash;
		if (!dup)
			memcpy(&w->set[w->cur][n5++], &w->keep[i],
			       sizeof w->keep[0]);
	}
	w->nset[w->cur] = n5;
	sort_set(w->set[w->cur], n5);
	return n5;
}

int reduce__five_emit(struct ctx *x, const void *tables, int v, int from,
		      int to)
{
	const unsigned char *T = tables;
	const struct vmodel *M = (const struct vmodel *)(const void *)(T + OFF_MODEL);
	struct fivew *w = x->region[REDUCE_R_FIVE];
	if (v < 0 || v >= w->nset[w->cur] || from < 1 || to > 5)
		return SOLVE_ESTAGE;
	const struct fel *e = &w->set[w->cur][v];
	int lo = 0, hi;
	for (int k = 1; k < from; k++)
		lo += e->sp[k];
	hi = lo;
	for (int k = from; k <= to; k++)
		hi += e->sp[k];
	for (int j = lo; j < hi && j < e->len; j++) {
		const struct vmove *g = &M->mv[M->rot[e->axis][e->path[j]]];
		int rc = emit_block(x, g->axis, g->lo, g->hi, g->qt);
		if (rc < 0)
			return rc;
	}
	return 0;
}
