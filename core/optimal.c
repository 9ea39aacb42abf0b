/* optimal.c — the optimal 3×3 search (optimal.h): iterative-deepening A*
 * over whole cubes, bounded by the pruning tables optimal_tables.c builds.
 *
 * A node carries the cube q and its inverse q⁻¹; a move m takes them to
 * q·m and m⁻¹·q⁻¹, so solutions found from either side are the same
 * sequence. Each is read in three frames — as it is, and turned so that
 * R–L or F–B is the vertical axis — for six lower bounds per node; the
 * largest prunes. Because a table's subgroup H contains its vertical
 * turns, an entry equal to the moves left says more (optimal.h): three
 * such entries on one side prove one more move is needed, and on the
 * inverse side they name the moves that cannot come next, since the
 * inverse's last move is this cube's next one, inverted. A left
 * multiplication by a move of H leaves the inverse's entry in that frame
 * unchanged (the coordinates are those of cosets Hx), so each child takes
 * one of its inverse bounds from its parent without a lookup.
 *
 * The corners' exact distance (a 3 MB table) only raises the first
 * depth: as a filter on every child it cost a third of the search's
 * time here (its two reads miss the cache once the big table has evicted
 * it) and pruned few children the six bounds would not.
 *
 * Near the root, of the moves that the cube's symmetries (all 48,
 * mirrors included) map onto one another, only one is tried.
 *
 * Levels 1–2 store two bits per entry relative to a base depth; an entry
 * at or under it is looked up again in the level-0 table, whose subgroup
 * (the phase-1 group G1) also contains the half turns of the other faces,
 * so its tight entries rule out more next moves.
 *
 * Nothing here allocates: tables are the caller's, the search lives on
 * the stack (at most 21 frames deep).
 */
#include "optimal.h"
#include "optimal_coord.h"
#include "optimal_tables_internal.h"
#include "solve3.h"

#include <string.h>

#define MAXLEN 20 /* God's number: every state is within 20 moves */
#define ALL_MOVES ((1u << OPT__NMOVE) - 1)
#define POLL_NODES 4096

struct osearch {
	opt__tables t;
	int level, base;
	opt__cube mv[OPT__NMOVE], mvi[OPT__NMOVE]; /* each move, its inverse */
	opt__cube s[3], si[3];   /* S^a and S^-a: frame a of x is S^a x S^-a */
	uint32_t h0[3];          /* moves whose frame-a image is in G1 */
	uint32_t hmain[3];       /* moves whose frame-a image is U or D */
	uint32_t inherit[3];     /* moves that keep the other end's frame-a
				  * entry */
	uint32_t after[OPT__NMOVE + 1]; /* moves that may follow m (or none) */
	opt__syms48 *sym48;
	uint8_t path[MAXLEN + 1];
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

/* x seen in frame a. */
static inline void frame(const struct osearch *s, int a, const opt__cube *x,
			 opt__cube *out)
{
	opt__cube t;
	opt__mul(&s->s[a], x, &t);
	opt__mul(&t, &s->si[a], out);
}

/* A table lookup in three steps, so that the cache misses of many can
 * overlap: start computes the coordinates and prefetches the symmetry
 * class entry, mid reads it and prefetches the pruning entry, end reads
 * that. */
struct lk {
	uint32_t tw, fl, sl, cs, raw;
	uint64_t i;
};

#ifdef OPT_STATS
unsigned long long opt_stat_lookups, opt_stat_children;
#define STAT(x) (x)
#else
#define STAT(x) ((void)0)
#endif

static inline void lk_start(const struct osearch *s, const opt__cube *x,
			    struct lk *l)
{
	STAT(opt_stat_lookups++);
	const opt__tables *t = &s->t;
	l->tw = (uint32_t)opt__twist(x);
	l->fl = (uint32_t)opt__flip(x);
	l->sl = t->slice_rank[opt__slice_mask(x)];
	if (t->lv->sorted) {
		l->raw = (l->sl * 24 + t->order_rank[opt__slice_order(x)]) *
				 OPT__NFLIP + l->fl;
		__builtin_prefetch(t->fss_sym + l->raw);
	} else {
		l->raw = l->sl * OPT__NFLIP + l->fl;
		__builtin_prefetch(t->fs_sym + l->raw);
		if (t->lv->csep)
			l->cs = t->csep_rank[opt__csep_mask(x)];
	}
}

static inline void lk_mid(const struct osearch *s, struct lk *l)
{
	const opt__tables *t = &s->t;
	if (t->lv->sorted) {
		uint32_t k = t->fss_sym[l->raw];
		l->i = (uint64_t)(k >> 4) * OPT__NTWIST +
		       t->twist_conj[l->tw * OPT__NSYM + (k & 15)];
		__builtin_prefetch(t->prun + l->i / 4);
	} else {
		uint32_t k = t->fs_sym[l->raw];
		if (t->lv->csep) {
			l->i = (uint64_t)(k >> 4) * (OPT__NTWIST * OPT__NCSEP) +
			       (uint64_t)t->twist_conj[l->tw * OPT__NSYM + (k & 15)] *
				       OPT__NCSEP +
			       t->csep_conj[l->cs * OPT__NSYM + (k & 15)];
			__builtin_prefetch(t->prun + l->i / 4);
		} else {
			l->i = (uint64_t)(k >> 4) * OPT__NTWIST +
			       t->twist_conj[l->tw * OPT__NSYM + (k & 15)];
			__builtin_prefetch(t->prun0 + l->i / 2);
		}
	}
}

/* The level-0 bound, from scratch. */
static inline int value0(const opt__tables *t, uint32_t tw, uint32_t fl,
			 uint32_t sl)
{
	uint32_t k = t->fs_sym[sl * OPT__NFLIP + fl];
	uint64_t i = (uint64_t)(k >> 4) * OPT__NTWIST +
		     t->twist_conj[tw * OPT__NSYM + (k & 15)];
	return opt__get4(t->prun0, i);
}

/* The lower bound of the frame-a cube, and in *hm the moves (of the
 * original frame) that a tight bound rules out as the solution's last. */
static inline int lk_end(const struct osearch *s, const struct lk *l, int a,
			 uint32_t *hm)
{
	const opt__tables *t = &s->t;
	if (s->level == 0) {
		*hm = s->h0[a];
		return opt__get4(t->prun0, l->i);
	}
	int v = opt__get2(t->prun, l->i);
	if (v) {
		*hm = s->hmain[a];
		return s->base + v;
	}
	*hm = s->h0[a];
	return value0(t, l->tw, l->fl, l->sl);
}

/* The corners' distance: exact, the same in every frame and for the
 * inverse. */
static inline int corner_bound(const struct osearch *s, const opt__cube *x)
{
	const opt__tables *t = &s->t;
	uint32_t k = t->cp_sym[opt__cperm(x)];
	uint64_t i = (uint64_t)(k >> 4) * OPT__NTWIST +
		     t->twist_conj[(uint32_t)opt__twist(x) * OPT__NSYM + (k & 15)];
	return opt__get4(t->prunc, i);
}

/* Frame-a bound of the cube x (not yet framed), in one go. */
static int bound(const struct osearch *s, const opt__cube *x, int a,
		 uint32_t *hm)
{
	opt__cube f;
	struct lk l;
	if (a)
		frame(s, a, x, &f);
	lk_start(s, a ? &f : x, &l);
	lk_mid(s, &l);
	return lk_end(s, &l, a, hm);
}

static int is_solved(const opt__cube *x)
{
	for (int i = 0; i < 8; i++)
		if (x->c[i] != i)
			return 0;
	for (int i = 0; i < 12; i++)
		if (x->e[i] != i)
			return 0;
	return 1;
}

/* One end's side of a node: the three bounds of its cube (q's or q⁻¹'s)
 * and, for each, the moves a tight bound rules out as that cube's last. */
struct side {
	int v[3];
	uint32_t hm[3];
};

/* The moves a side's bounds equal to g rule out. */
static inline uint32_t tight_mask(const struct side *sd, int g)
{
	uint32_t x = 0;
	for (int a = 0; a < 3; a++)
		if (sd->v[a] == g)
			x |= sd->hm[a];
	return x;
}

/* A node: the cube and its inverse, the inverse's side, the last move
 * (OPT__NMOVE = none), and near the root the symmetries that keep all
 * of that (bit s: S·q·S⁻¹ = q and the moves allowed next map onto
 * themselves). */
struct node {
	opt__cube q, qi;
	struct side si;
	uint8_t last;
	uint64_t stab;
};

#define SYM_DEPTH 4 /* how deep symmetric moves are skipped */

/* The moves of mask seen through symmetry sym; 0 if that cannot be
 * worked out (then sym is not counted as one of the cube's). */
static uint32_t mask_conj(struct osearch *s, int sym, uint32_t mask)
{
	const uint8_t *mc = opt__sym_moves(s->sym48, sym);
	if (!mc)
		return 0;
	uint32_t out = 0;
	for (int m = 0; m < OPT__NMOVE; m++)
		if (mask >> m & 1)
			out |= 1u << mc[m];
	return out;
}

/* The symmetries among stab that keep q and the moves allowed next. */
static uint64_t stab_of(struct osearch *s, uint64_t stab, const opt__cube *q,
			uint32_t mask)
{
	uint64_t out = 1;
	for (uint64_t st = stab & ~(uint64_t)1; st; st &= st - 1) {
		int sym = __builtin_ctzll(st);
		opt__cube y;
		opt__conj48(s->sym48, sym, q, &y);
		if (memcmp(&y, q, sizeof y) == 0 &&
		    mask_conj(s, sym, mask) == mask)
			out |= (uint64_t)1 << sym;
	}
	return out;
}

/* Of moves that symmetries in stab map onto one another, only the
 * least: a solution starting with another is the image of one starting
 * with it, and as short. (Every symmetry in stab has its moves worked
 * out: stab_of asked for them.) */
static uint32_t sym_reps(struct osearch *s, uint64_t stab, uint32_t mask)
{
	for (uint64_t st = stab & ~(uint64_t)1; st; st &= st - 1) {
		int sym = __builtin_ctzll(st);
		const uint8_t *mc = opt__sym_moves(s->sym48, sym);
		for (int m = 0; mc && m < OPT__NMOVE; m++)
			if ((mask >> m & 1) && mc[m] < m)
				mask &= ~(1u << m);
	}
	return mask;
}

/* A child of a node while it is weighed. */
struct child {
	int m;
	struct node nd;
	int nlk;            /* lookups still to make, in order */
	uint8_t which[6];   /* 0..2: the inverse's frame, 3..5: the cube's */
	struct lk l;        /* the lookup of this wave */
	int itight, ntight;
};

/* Look for a solution of exactly g more moves from nd, path[0..k) so
 * far.
 *
 * The children are weighed in waves: each wave makes one more lookup
 * for every child still in the running — a pass to start them all, one
 * to read the class entries, one to read the bounds — so the cache
 * misses of all the children overlap, yet no bound is read for a child
 * an earlier one pruned. The inverse's frames come first: besides
 * pruning, their tight bounds restrict the grandchildren's moves. Near
 * the root, of moves the cube's symmetries map onto one another only
 * one is tried (the superflip's 48 leave two of 18 first moves). */
static int dfs(struct osearch *s, const struct node *nd, int k, int g)
{
	if (tick(s))
		return 0;
	uint32_t mask = s->after[nd->last] & ~tight_mask(&nd->si, g);
	uint64_t stab = 1;
	if (k < SYM_DEPTH && nd->stab > 1) {
		stab = stab_of(s, nd->stab, &nd->q, mask);
		mask = sym_reps(s, stab, mask);
	}
	int g2 = g - 1;
	struct child ch[OPT__NMOVE];
	int n = 0;
	for (int m = 0; m < OPT__NMOVE; m++) {
		if (!(mask >> m & 1))
			continue;
		struct child *c = &ch[n];
		struct node *cn = &c->nd;
		c->m = m;
		opt__mul(&nd->q, &s->mv[m], &cn->q);
		if (g2 == 0) {
			if (is_solved(&cn->q)) {
				s->path[k] = (uint8_t)m;
				return 1;
			}
			continue;
		}
		STAT(opt_stat_children++);
		/* the inherited inverse bounds next: free */
		c->nlk = 0;
		c->itight = c->ntight = 0;
		int pruned = 0;
		for (int a = 0; a < 3; a++) {
			if (!(s->inherit[a] >> m & 1)) {
				c->which[c->nlk++] = (uint8_t)a;
				continue;
			}
			cn->si.v[a] = nd->si.v[a];
			cn->si.hm[a] = nd->si.hm[a];
			if (nd->si.v[a] > g2)
				pruned = 1;
			else if (nd->si.v[a] == g2)
				c->itight++;
		}
		if (pruned)
			continue;
		for (int a = 0; a < 3; a++)
			c->which[c->nlk++] = (uint8_t)(3 + a);
		opt__mul(&s->mvi[m], &nd->qi, &cn->qi);
		cn->last = (uint8_t)m;
		cn->stab = stab;
		n++;
	}
	for (int w = 0; n > 0; w++) {
		int done = 1;
		for (int j = 0; j < n; j++) {
			struct child *c = &ch[j];
			if (w >= c->nlk)
				continue;
			done = 0;
			int a = c->which[w] % 3;
			const opt__cube *x = c->which[w] < 3 ? &c->nd.qi : &c->nd.q;
			opt__cube f;
			if (a)
				frame(s, a, x, &f);
			lk_start(s, a ? &f : x, &c->l);
		}
		if (done)
			break;
		for (int j = 0; j < n; j++)
			if (w < ch[j].nlk)
				lk_mid(s, &ch[j].l);
		int n2 = 0;
		for (int j = 0; j < n; j++) {
			struct child *c = &ch[j];
			int keep = 1;
			if (w < c->nlk) {
				int inv = c->which[w] < 3, a = c->which[w] % 3;
				uint32_t hm;
				int v = lk_end(s, &c->l, a, &hm);
				if (v > g2) {
					keep = 0;
				} else if (inv) {
					c->nd.si.v[a] = v;
					c->nd.si.hm[a] = hm;
					if (v == g2)
						keep = ++c->itight < 3;
				} else if (v == g2) {
					/* three tight bounds rule out every
					 * last move: one more is needed */
					keep = ++c->ntight < 3;
				}
			}
			if (keep) {
				if (n2 != j)
					ch[n2] = *c;
				n2++;
			}
		}
		n = n2;
	}
	/* the survivors, in move order */
	for (int j = 0; j < n; j++) {
		s->path[k] = (uint8_t)ch[j].m;
		if (dfs(s, &ch[j].nd, k + 1, g2))
			return 1;
		if (s->stop)
			return 0;
	}
	return 0;
}

/* Moves, frames and the subgroup masks. */
static void setup(struct osearch *s)
{
	for (int m = 0; m < OPT__NMOVE; m++) {
		opt__move_cube(m, &s->mv[m]);
		opt__inv(&s->mv[m], &s->mvi[m]);
	}
	opt__cube u, ui, id;
	opt__urf(&u, &ui);
	for (int i = 0; i < 8; i++)
		id.c[i] = (uint8_t)i;
	for (int i = 0; i < 12; i++)
		id.e[i] = (uint8_t)i;
	s->s[0] = s->si[0] = id;
	s->s[1] = u;
	s->si[1] = ui;
	opt__mul(&u, &u, &s->s[2]);
	opt__mul(&ui, &ui, &s->si[2]);
	for (int a = 0; a < 3; a++) {
		s->h0[a] = s->hmain[a] = 0;
		for (int m = 0; m < OPT__NMOVE; m++) {
			opt__cube x;
			frame(s, a, &s->mv[m], &x);
			int fm = -1;
			for (int k = 0; k < OPT__NMOVE; k++)
				if (memcmp(&x, &s->mv[k], sizeof x) == 0)
					fm = k;
			/* fm is a face turn: conjugation by a rotation */
			int ud = fm / 3 % 3 == 0, half = fm % 3 == 1;
			if (ud)
				s->hmain[a] |= 1u << m;
			if (ud || half)
				s->h0[a] |= 1u << m;
		}
		s->inherit[a] = s->level == 0 ? s->h0[a] : s->hmain[a];
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
	s.level = info.level;
	s.base = info.base;
	opt__bind(&s.t, s.level, (unsigned char *)(uintptr_t)tables);
	s.poll = lim ? lim->poll : NULL;
	s.ctx = lim ? lim->ctx : NULL;
	s.pr = lim ? lim->progress : NULL;
	s.next_poll = POLL_NODES;
	s.depth_done = -1;
	int max_len = lim && lim->max_length > 0 ? lim->max_length : MAXLEN;
	if (max_len > MAXLEN)
		max_len = MAXLEN;
	setup(&s);

	opt__syms48 sym48;
	if (opt__make_syms48(&sym48) < 0)
		return SOLVE_ETABLES; /* a bug, not bad input */
	s.sym48 = &sym48;
	struct node root;
	opt__from_cubie(c, &root.q);
	opt__inv(&root.q, &root.qi);
	root.last = OPT__NMOVE;
	root.stab = ~(uint64_t)0 >> (64 - OPT__NSYM48);
	int found = -1;
	if (is_solved(&root.q)) {
		found = 0;
		goto done;
	}
	int lb = corner_bound(&s, &root.q);
	int nv[3], ntight = 0;
	for (int a = 0; a < 3; a++) {
		uint32_t hm;
		root.si.v[a] = bound(&s, &root.qi, a, &root.si.hm[a]);
		nv[a] = bound(&s, &root.q, a, &hm);
		if (root.si.v[a] > lb)
			lb = root.si.v[a];
		if (nv[a] > lb)
			lb = nv[a];
	}
	/* three tight bounds on one side: one more move */
	for (int a = 0; a < 3; a++)
		ntight += nv[a] == lb;
	if (ntight == 3 && lb > 0)
		lb++;
	if (root.si.v[0] == lb && root.si.v[1] == lb && root.si.v[2] == lb &&
	    lb > 0)
		lb++;
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
	for (int i = 0; i < found; i++)
		out[i] = solve3__face_move(s.path[i]);
	return found;
}
