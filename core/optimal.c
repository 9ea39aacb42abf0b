/* optimal.c — the optimal 3×3 search (optimal.h): iterative-deepening A*
 * over whole cubes, bounded by the tables optimal_tables.c builds.
 *
 * A node carries the cube q and its inverse q⁻¹, and a solution is
 * grown from both ends: a move m at the front takes them to q·m and
 * m⁻¹·q⁻¹, a move n at the back (the inverse's next move, the
 * solution's last one inverted) to n⁻¹·q and q⁻¹·n. Each node reads the
 * table once for each of the two: the subgroup H is kept by all 48
 * symmetries, so whatever face the next move turns, one entry serves.
 *
 * H contains the half turns (on levels 2–3 the larger group whose
 * cosets are the line's neighbouring entries does, optimal_tables.h), so
 * a bound equal to the moves left says the solution cannot end with a
 * half turn (it would have reached H a move earlier): the q⁻¹ side's
 * tight bound rules out half turns as q's next move, q's as the back's
 * next move. Each node grows the end with fewer moves left to try. A
 * half turn at the front leaves q⁻¹'s coset of that group where it was
 * (h·q⁻¹ with h in it), so its bound is read off the line already read,
 * with no lookup; likewise at the back.
 *
 * The children of a node are weighed in stages, so that the cache
 * misses of all of them overlap: every lookup is started (its symmetry
 * class entry prefetched), then every table line prefetched, then read.
 *
 * Nothing here allocates: tables are the caller's, the search lives on
 * the stack (at most 21 frames deep).
 */
#include "optimal.h"
#include "optimal_coord.h"
#include "optimal_tables_internal.h"

#include <string.h>

#define MAXLEN 20 /* God's number: every state is within 20 moves */
#define ALL_MOVES ((1u << OPT__NMOVE) - 1)
#define HALF_TURNS 0x12492u /* m % 3 == 1 */
#define POLL_NODES 4096

struct osearch {
	opt__tables t;
	uint32_t nedge, nsub;
	int kind, base;
	opt__cube mv[OPT__NMOVE], mvi[OPT__NMOVE]; /* each move, its inverse */
	uint32_t after[OPT__NMOVE + 1]; /* moves that may follow m (or none) */
	uint8_t side[MAXLEN + 1], path[MAXLEN + 1];
	uint64_t nodes, next_poll;
	int depth_done;
	solve_poll_fn poll;
	void *ctx;
	optimal_progress *pr;
	int stop;
};

static inline int tick(struct osearch *s)
{
	if (++s->nodes >= s->next_poll) {
		s->next_poll = s->nodes + POLL_NODES;
		if (s->pr) {
			s->pr->nodes = s->nodes;
			s->pr->depth = s->depth_done;
		}
		if (s->poll && s->poll(s->ctx, s->nodes, 0))
			s->stop = 1;
	}
	return s->stop;
}

/* One cube's lookup, in three steps so that the cache misses of many can
 * overlap (start: the corner value, its class entry prefetched; mid: the
 * cube conjugated to its class's frame, the line prefetched; end: the
 * bound), and what it leaves for a child that inherits it. */
struct lk {
	uint32_t craw;
	uint64_t g;       /* index of the group's first entry */
	uint16_t ab;      /* the conjugated cube's tetrads' orders */
	uint8_t sym, sub;
	uint8_t v;        /* the bound */
	uint8_t v96;      /* the least of the group's bounds */
	uint8_t vals[6];  /* the group's bounds */
};

static inline void lk_start(const struct osearch *s, const opt__cube *x,
			    struct lk *l)
{
	l->craw = opt__craw(&s->t, x);
	__builtin_prefetch(&s->t.csym[l->craw]);
}

static inline void lk_mid(const struct osearch *s, const opt__cube *x,
			  struct lk *l)
{
	const opt__tables *t = &s->t;
	uint32_t k = t->csym[l->craw];
	opt__cube y;
	l->sym = (uint8_t)(k & 63);
	if (s->nsub > 1) {
		opt__conj(t->syms, l->sym, x, &y);
		l->ab = (uint16_t)opt__ab(t->ranks, &y);
		l->sub = t->ranks->sub[s->kind][l->ab];
	} else {
		/* the edges alone */
		for (int i = 0; i < 12; i++)
			y.e[i] = t->syms->emap[l->sym][i]
					      [x->e[t->syms->esrc[l->sym][i]]];
		l->ab = 0;
		l->sub = 0;
	}
	uint32_t e = opt__edges(t->ranks, &y);
	if (s->nedge == OPT__NESEP)
		e /= 4;
	l->g = ((uint64_t)(k >> 6) * s->nedge + e) * s->nsub;
	__builtin_prefetch(t->prun + opt__byte(l->g));
}

static inline void lk_end(const struct osearch *s, struct lk *l)
{
	const uint8_t *p = s->t.prun;
	int lm = opt__linemin(p, l->g), least = 99;
	for (uint32_t j = 0; j < s->nsub; j++) {
		int c = opt__get2(p, l->g + j);
		int v = c ? s->base + c : lm;
		l->vals[j] = (uint8_t)v;
		if (v < least)
			least = v;
	}
	l->v = l->vals[l->sub];
	l->v96 = (uint8_t)least;
}

/* The lookup of h·x from x's (h = half turn m): the same group, another
 * entry of it. */
static inline void lk_half(const struct osearch *s, const struct lk *from,
			   int m, struct lk *l)
{
	*l = *from;
	if (s->nsub > 1) {
		int h = s->t.syms->mconj[from->sym][m] / 3;
		l->ab = s->t.ranks->hab[from->ab][h];
		l->sub = s->t.ranks->sub[s->kind][l->ab];
		l->v = l->vals[l->sub];
	}
}

static void lookup(const struct osearch *s, const opt__cube *x, struct lk *l)
{
	lk_start(s, x, l);
	lk_mid(s, x, l);
	lk_end(s, l);
}

/* A node: the cube, its inverse, their lookups, each end's last move
 * (OPT__NMOVE = none). */
struct node {
	opt__cube q, qi;
	struct lk ln, li;
	uint8_t lastn, lasti;
};

/* A child being weighed: 0 = still in the running. */
struct child {
	struct node nd;
	int m, pruned;
	int need_other; /* the unmoved end needs a lookup */
};

/* Look for a solution of exactly g more moves from nd, path[0..k) so
 * far. */
static int dfs(struct osearch *s, const struct node *nd, int k, int g)
{
	if (tick(s))
		return 0;
	uint32_t mn = s->after[nd->lastn], mi = s->after[nd->lasti];
	if (nd->li.v96 == g)
		mn &= ~HALF_TURNS;
	if (nd->ln.v96 == g)
		mi &= ~HALF_TURNS;
	if (g == 1) {
		for (int m = 0; m < OPT__NMOVE; m++)
			if ((mn >> m & 1) &&
			    memcmp(&nd->q, &s->mvi[m], sizeof nd->q) == 0) {
				s->side[k] = 0;
				s->path[k] = (uint8_t)m;
				return 1;
			}
		return 0;
	}
	/* grow the end with fewer moves to try: front (0) or back (1) */
	int back = __builtin_popcount(mi) < __builtin_popcount(mn);
	uint32_t mask = back ? mi : mn;
	int g2 = g - 1;
	struct child ch[OPT__NMOVE];
	int n = 0;
	for (int m = 0; m < OPT__NMOVE; m++) {
		if (!(mask >> m & 1))
			continue;
		struct child *c = &ch[n++];
		c->m = m;
		c->pruned = 0;
		c->need_other = !(HALF_TURNS >> m & 1);
		if (!back) {
			opt__mul(&nd->q, &s->mv[m], &c->nd.q);
			opt__mul(&s->mvi[m], &nd->qi, &c->nd.qi);
			c->nd.lastn = (uint8_t)m;
			c->nd.lasti = nd->lasti;
			if (!c->need_other) {
				lk_half(s, &nd->li, m, &c->nd.li);
				c->pruned = c->nd.li.v > g2;
			}
		} else {
			opt__mul(&nd->qi, &s->mv[m], &c->nd.qi);
			opt__mul(&s->mvi[m], &nd->q, &c->nd.q);
			c->nd.lasti = (uint8_t)m;
			c->nd.lastn = nd->lastn;
			if (!c->need_other) {
				lk_half(s, &nd->ln, m, &c->nd.ln);
				c->pruned = c->nd.ln.v > g2;
			}
		}
	}
	/* the unmoved end's lookups, then the moved end's, staged */
#define OTHER(c) (back ? &(c)->nd.q : &(c)->nd.qi)
#define OTHERLK(c) (back ? &(c)->nd.ln : &(c)->nd.li)
#define MOVED(c) (back ? &(c)->nd.qi : &(c)->nd.q)
#define MOVEDLK(c) (back ? &(c)->nd.li : &(c)->nd.ln)
	for (int j = 0; j < n; j++)
		if (!ch[j].pruned && ch[j].need_other)
			lk_start(s, OTHER(&ch[j]), OTHERLK(&ch[j]));
	for (int j = 0; j < n; j++)
		if (!ch[j].pruned && ch[j].need_other)
			lk_mid(s, OTHER(&ch[j]), OTHERLK(&ch[j]));
	for (int j = 0; j < n; j++)
		if (!ch[j].pruned)
			lk_start(s, MOVED(&ch[j]), MOVEDLK(&ch[j]));
	for (int j = 0; j < n; j++) {
		struct child *c = &ch[j];
		if (c->pruned)
			continue;
		if (c->need_other) {
			lk_end(s, OTHERLK(c));
			if (OTHERLK(c)->v > g2) {
				c->pruned = 1;
				continue;
			}
		}
		lk_mid(s, MOVED(c), MOVEDLK(c));
	}
	for (int j = 0; j < n; j++) {
		struct child *c = &ch[j];
		if (c->pruned)
			continue;
		lk_end(s, MOVEDLK(c));
		if (MOVEDLK(c)->v > g2)
			c->pruned = 1;
	}
#undef OTHER
#undef OTHERLK
#undef MOVED
#undef MOVEDLK
	for (int j = 0; j < n; j++) {
		if (ch[j].pruned)
			continue;
		s->side[k] = (uint8_t)back;
		s->path[k] = (uint8_t)ch[j].m;
		if (dfs(s, &ch[j].nd, k + 1, g2))
			return 1;
		if (s->stop)
			return 0;
	}
	return 0;
}

/* Face turn m (face·3 + qt-1) as a cube_move. */
static cube_move to_cube_move(int m)
{
	static const uint8_t axis[6] = {CUBE_Y, CUBE_X, CUBE_Z,
					CUBE_Y, CUBE_X, CUBE_Z};
	int f = m / 3, q = m % 3 + 1;
	cube_move r;
	r.axis = axis[f];
	/* D L B are layer 2 of their axis, turned counted from U R F */
	r.lo = r.hi = f < 3 ? 0 : 2;
	r.qt = (uint8_t)(f < 3 ? q : 4 - q);
	return r;
}

/* Moves and which may follow which: never the same face twice, and of
 * two opposite faces only U R F first, since they commute. */
static void setup(struct osearch *s)
{
	for (int m = 0; m < OPT__NMOVE; m++) {
		opt__move_cube(m, &s->mv[m]);
		opt__inv(&s->mv[m], &s->mvi[m]);
	}
	for (int last = 0; last <= OPT__NMOVE; last++) {
		uint32_t a = 0;
		for (int m = 0; m < OPT__NMOVE; m++) {
			int f = m / 3, lf = last < OPT__NMOVE ? last / 3 : -9;
			if (f != lf && f != lf - 3)
				a |= 1u << m;
		}
		s->after[last] = a;
	}
}

int optimal_solve(const void *tables, const cubie3 *c,
		  const optimal_limits *lim, cube_move *out, int cap)
{
	if (!tables || !c || cap < 0 || (cap > 0 && !out))
		return CUBE_EINVAL;
	optimal_table_info info;
	if (optimal_table_describe(tables, &info) < 0)
		return SOLVE_ETABLES;
	if (!cubie3_is_valid(c))
		return CUBE_EINVALID;
	struct osearch s;
	memset(&s, 0, sizeof s);
	opt__bind(&s.t, info.level, (unsigned char *)(uintptr_t)tables);
	s.nedge = OPT__NESEP * s.t.lv->nfp;
	s.nsub = s.t.lv->nsub;
	s.kind = s.t.lv->kind;
	s.base = info.base;
	s.poll = lim ? lim->poll : NULL;
	s.ctx = lim ? lim->ctx : NULL;
	s.pr = lim ? lim->progress : NULL;
	s.next_poll = POLL_NODES;
	s.depth_done = -1;
	int max_len = lim && lim->max_length > 0 ? lim->max_length : MAXLEN;
	if (max_len > MAXLEN)
		max_len = MAXLEN;
	setup(&s);

	struct node root;
	opt__from_cubie(c, &root.q);
	opt__inv(&root.q, &root.qi);
	root.lastn = root.lasti = OPT__NMOVE;
	int found = -1;
	if (opt__is_solved(&root.q)) {
		found = 0;
		goto done;
	}
	lookup(&s, &root.q, &root.ln);
	lookup(&s, &root.qi, &root.li);
	int lb = root.ln.v > root.li.v ? root.ln.v : root.li.v;
	if (lb < 1)
		lb = 1;
	s.depth_done = lb - 1;
	for (int d = lb; d <= max_len && !s.stop; d++) {
		if (dfs(&s, &root, 0, d)) {
			found = d;
			break;
		}
		if (!s.stop)
			s.depth_done = d;
	}
done:
	if (s.pr) {
		s.pr->nodes = s.nodes;
		s.pr->depth = found >= 0 ? found - 1 : s.depth_done;
	}
	if (found < 0)
		return SOLVE_ENOTFOUND;
	if (found > cap)
		return CUBE_ESPACE;
	/* the front's moves in order, then the back's last first, inverted */
	int n = 0;
	for (int i = 0; i < found; i++)
		if (!s.side[i])
			out[n++] = to_cube_move(s.path[i]);
	for (int i = found - 1; i >= 0; i--)
		if (s.side[i]) {
			int m = s.path[i];
			out[n++] = to_cube_move(m / 3 * 3 + 2 - m % 3);
		}
	return found;
}
