/* centers_staged.c — the staged center search: the X- and +-centers
 * solved ring by ring in four steps (U/D colours onto U and D, L/R onto L
 * and R, then each onto its own face) by IDA* and beam searches over
 * pruning tables; the tables themselves, which a caller may build once
 * and share (reduce_stage_tables_build).
 */
#include <string.h>

#include "alg.h"
#include "solve_internal.h"

#include "centers_methods.h"
#include "edges.h"
#include "turns.h"

/* The staged center search (plan.staged; before stagew_of, how it
 * works). */
/* Up to 33×33 every ring is staged: each ring costs a search, but the
 * moves it saves over the greedy phases pay for it (docs/solvers.md). */
#define ST_ORB 2
#define ST_NA 735471
#define ST_NB (2 * 65536)
#define ST_NP (70 * 70)
/* a ring's turns: per axis up to 7 layer sets (its 4 layers, the 2
 * blocks from the faces to them and the block between them) */
#define ST_MOVES (3 * 7 * 3)
#define ST_DEPTH 24
#define ST_UNSEEN 255
/* A step's IDA* visits at most the plan's st_budget nodes before it
 * hands over to the beam (deterministic: counted, not timed), and the
 * plan's st_pick more past its first answer looking for one that leaves
 * the next step less to do; the beam is the plan's st_beam states wide
 * (plan.c says why, by size and effort). A step neither settles tries
 * the widest beam and the whole budget (plan.h: ST_BEAM, ST_BUDGET).
 * The deepest a beam may go, and the hash set's slots: */
#define ST_BEAM_DEPTH 30
_Static_assert(ST_DEPTH <= ST_BEAM_DEPTH, "a step's path holds IDA*'s");
#define ST_HASH (1 << 17)
/* the steps searched by beam (bits): A only. B by beam got stuck on
 * plateaus of its tables (wing parity among them); by IDA* it takes a
 * few thousand to a hundred thousand nodes */
#define ST_BEAM_STEPS (1 << ST_A)

/* The steps; a mask set: v[0] U/D colours, v[1] L/R, v[2] U, L, F. */
enum { ST_A, ST_B, ST_C1, ST_C2, ST_STEPS };

struct stmove {
	uint8_t axis, qt, lo, hi, ls; /* ls: the layer set's index on its
				       * axis, for the search's order */
	uint8_t cls;                  /* steps it may serve (bits) */
	uint32_t wing;                /* wing orbits whose parity it flips
				       * (the model's; in a group's moves,
				       * bit j: the group's ring j) */
};

/* The search's state: each orbit's masks (v[0] U/D colours, v[1] L/R,
 * v[2] U, L, F) and the wing orbits' parities (made so far in the
 * centers stage). */
struct ststate {
	uint32_t v[3][ST_ORB];
	unsigned par; /* bit j: the wing parity of the group's ring j */
};

struct stnode {
	uint32_t v[3][ST_ORB];
	uint8_t par, move;
	uint16_t parent;
};

/* The pruning tables of one kind of size (st_kind: 4×4, 5×5, even past
 * them, odd past them), and all four as a caller may keep them across
 * calls (reduce_stage_tables_build). */
struct st_tables {
	uint8_t tA[ST_ORB][ST_NA];
	uint8_t tB[ST_ORB][ST_NB];
	uint8_t tJ0[ST_NP];         /* C1: U-D pair, both orbits */
	uint8_t tC2[ST_ORB][ST_NP]; /* C2: an orbit's L-R and F-B pairs */
	uint8_t tJ2[2][ST_NP];      /* C2: L-R, F-B pair, both orbits */
};

#define ST_KINDS 4

/* The tables a caller shares: a header (reduce.c seals it, as the
 * two-phase tables' are: solve_internal.h) and the four kinds' tables
 * (reduce.c puts the bars' macros after them). */
struct st_shared {
	unsigned char head[SOLVE__HEADER];
	struct st_tables kind[ST_KINDS];
};

/* The kinds: 0 a 4×4's X-centers (single layers, the outer blocks and
 * the inner block), 1 a 5×5's X- and +-centers (single layers and the
 * outer blocks), 2 and 3 the same without blocks (a ring of a bigger
 * cube searched among the others). The kind a solve starts with; inside
 * out (plan.inside) an even cube's innermost ring is a 4×4's, its other rings
 * (with bars) 5×5's. */
static int st_kind(int n)
{
	int inside = reduce__plan(n, EFFORT_INSIDE).inside;
	if (n == 4 || (inside && n % 2 == 0))
		return 0;
	return n == 5 || inside ? 1 : n % 2 ? 3 : 2;
}

struct stagew {
	int built, n, norb, nmov;
	int kind; /* of the turn maps and tables built (st_kind) */
	const struct st_tables *t; /* own, or the caller's */
	int nm; /* the model's size (n up to 5: n itself) */
	struct stmove mv[ST_MOVES]; /* the model's turns (for the tables) */
	uint32_t pm[ST_ORB][ST_MOVES][3][256];
	/* the group searched now (st_group): its rings, their orbits
	 * (norb of them), places on the cube and the
	 * turns on the cube's layers with their maps of each orbit's masks */
	int ring, cnmov;
	uint16_t place[ST_ORB][NPOS][3];
	struct stmove cmv[ST_MOVES];
	uint32_t cpm[ST_ORB][ST_MOVES][3][256];
	uint32_t rank[3][256][9];
	uint8_t pop[256], r70[256];
	uint8_t u70[70];
	struct st_tables own; /* built here when the caller has none */
	/* the beam search: each level's states, and a hash set of the
	 * states kept */
	struct stnode beam[ST_BEAM_DEPTH + 1][ST_BEAM];
	uint32_t cand[ST_BEAM * ST_MOVES]; /* a level's children: score,
					     * parent, turn */
	uint64_t seen[ST_HASH];
};

/* On 4×4 (the X-centers) and 5×5 (the X- and +-centers, every center
 * the cube has) the centers are solved in four steps instead of the
 * greedy phases. Bigger cubes solve ring by ring with the same steps:
 * ring k is the X-centers (k, k) and on odd n the +-centers (k, middle),
 * turned by layers 0, k, m-k and m (and the blocks from the faces to
 * them), which leave the rings inside it be. Relabelling layers k and
 * m-k as 1 and m-1 turns ring k into ring 1 place for place and turn for
 * turn (the relabelling commutes with the quarter turns, x -> m-x), so
 * one set of turn maps, made on a model (a 4×4 or a 5×5), and one set of
 * tables serve every ring; the turns found are made on layers k and m-k.
 * From 6×6 to 33×33 (plan.inside) the rings go inside out: the innermost as
 * a 4×4's or 5×5's, then each ring outside it once its edges of centers
 * are bars (centers_bars.c), as a 5×5's whose +-centers are the bars;
 * the blocks from the faces then move only rings not solved yet. Past
 * 33×33 each ring is searched without blocks and the 3-cycles finish
 * the obliques. The kinds (st_kind): 0 a 4×4's X-centers, 1 a 5×5's,
 * both with blocks; 2 and 3 the same without. The steps:
 *   A   every U- and D-coloured center sticker onto U or D, any turn;
 *   B   every L- and R-coloured one onto L or R, with the turns that keep
 *       A (face turns, any turn of the U-D axis, half turns of the
 *       others), and each wing orbit's inner quarter turns even in all
 *       (the parity the oll_parity stage set);
 *   C1  every U and D sticker onto its own face, with the turns that
 *       keep A and B (face turns, half turns of the rest);
 *   C2  every other sticker onto its own face, with the turns that keep
 *       C1 too (face turns, half turns of the U-D axis).
 * The middle slices of 5×5 are left out (they would move the frame's
 * fixed centers). A place of an orbit is one bit of a 24-bit mask
 * (faces in the order U D L R F B, four places each) and a turn maps a
 * mask through three 256-entry tables, one per byte. Pruning tables
 * (distances to the step's goal, breadth-first from it):
 *   A   per orbit, which 8 of 24 places hold U/D colours: C(24,8) =
 *       735,471 states, indexed by the colex rank;
 *   B   per orbit, which 8 of the 16 side places hold L/R colours (the
 *       16-bit mask itself) and the wing parity;
 *   C1  which 4 of the 8 U-D places hold U colours, both orbits at
 *       once: 70 × 70 (exact: C1's turns keep those places among
 *       themselves);
 *   C2  per orbit which 4 of the L-R places hold L and which 4 of the
 *       F-B places F (70 × 70), and each pair for both orbits (70 × 70).
 * A, where h (the largest of the orbits' tables) is weakest against the
 * depth (the tables say 6 or 7 where the depth is about 10, and IDA*
 * would visit far too many nodes), uses a beam search (st_beam) that
 * keeps the ST_BEAM best states per level; B, C1 and C2 an IDA* search
 * (depth first, deepening), so optimal for their goal. A, B and C1
 * choose, of the answers of their least depth they find, the one that
 * leaves the next step the least to do by its tables. One search of C1
 * and C2 together (70^3 states per orbit) is about as short as the two
 * and a thousand times dearer, and a beam gets stuck on plateaus of its
 * tables.
 * The tables depend only on the kind of size (st_kind: 4×4, 5×5, even
 * or odd past them). A caller may build all four kinds once
 * (reduce_stage_tables_build) and pass them in
 * reduce_limits.stage_tables, as the server and the bench do; without
 * them a solve builds its kind into the work buffer (S->own), shared by
 * its variants and rings (A's tables take nearly all of that time).
 * docs/solvers.md has the sizes, times and step lengths measured.
 * An IDA* search that runs past its budget hands its step to the beam
 * (st_beam); when that finds nothing within ST_BEAM_DEPTH, the beam at
 * full width and then IDA* with the whole budget try (st_step); when
 * they find nothing either, the step gives
 * up, and the greedy phases and 3-cycles finish from where it stopped:
 * on 4×4 and 5×5 all the centers, past them that ring (its wing orbit
 * made even again at once, as past FREE_MAX_N nothing else would) while
 * the next rings are staged as before. */

static struct stagew *stagew_of(struct ctx *x)
{
	return (struct stagew *)x->region[REDUCE_R_STAGED];
}

size_t reduce__staged_size(int n)
{
	return reduce__plan(n, EFFORT_INSIDE).staged ? ((sizeof(struct stagew) + 63) & ~(size_t)63) + 64
			 : 0;
}

void reduce__staged_reset(struct ctx *x)
{
	stagew_of(x)->built = 0;
}


static inline uint32_t st_map(const uint32_t (*p)[256], uint32_t v)
{
	return p[0][v & 255] | p[1][v >> 8 & 255] | p[2][v >> 16 & 255];
}

/* An orbit's mask after the model's turn g. */
static inline uint32_t st_apply(const struct stagew *S, int o, int g,
				uint32_t v)
{
	return st_map(S->pm[o][g], v);
}

/* The same for turn g of the group searched now. */
static inline uint32_t st_capply(const struct stagew *S, int o, int g,
				 uint32_t v)
{
	return st_map(S->cpm[o][g], v);
}

static inline uint32_t st_rankA(const struct stagew *S, uint32_t v)
{
	uint32_t b0 = v & 255, b1 = v >> 8 & 255, b2 = v >> 16 & 255;
	int k1 = S->pop[b0], k2 = k1 + S->pop[b1];
	if (k2 > 8)
		k2 = 8;
	return S->rank[0][b0][0] + S->rank[1][b1][k1] + S->rank[2][b2][k2];
}

static inline int st_pair(const struct stagew *S, uint32_t a, uint32_t b,
			  int pb)
{
	return S->r70[a >> 8 * pb & 255] * 70 + S->r70[b >> 8 * pb & 255];
}

/* The mask each step looks at. */
static int st_mask(int kind)
{
	return kind < ST_C1 ? kind : 2;
}

/* Which step's tables rate a state, in the state s: the largest
 * distance (*sum: all of them added). */
static int st_h(const struct stagew *S, int kind, const struct ststate *s,
		int *sum)
{
	int h = 0, t = 0, o1 = S->norb - 1;
	const uint32_t *v = s->v[st_mask(kind)];
	unsigned par = s->par & 1;
	for (int o = 0; o < S->norb; o++) {
		int d;
		switch (kind) {
		case ST_A: d = S->t->tA[o][st_rankA(S, v[o])]; break;
		case ST_B:
			d = S->t->tB[o][(v[o] >> 8 & 0xffff) |
				     (par ? 0x10000u : 0)];
			break;
		case ST_C1:
			d = o ? 0 : S->t->tJ0[st_pair(S, v[0], v[o1], 0)];
			break;
		default:
			d = S->t->tC2[o][S->r70[v[o] >> 8 & 255] * 70 +
				      S->r70[v[o] >> 16 & 255]];
		}
		h = d > h ? d : h;
		t += d;
	}
	if (kind == ST_C2)
		for (int pb = 1; pb <= 2; pb++) {
			int d = S->t->tJ2[pb - 1][st_pair(S, v[0], v[o1], pb)];
			h = d > h ? d : h;
		}
	if (sum)
		*sum = t;
	return h;
}

/* A step's goal (read from the cube afterwards). */
static int st_goal(const struct stagew *S, int kind, const struct ststate *s)
{
	for (int o = 0; o < S->norb; o++) {
		uint32_t v = s->v[st_mask(kind)][o];
		switch (kind) {
		case ST_A: if (v != 0xff) return 0; break;
		case ST_B: if (v != 0xff00 || s->par) return 0; break;
		case ST_C1: if ((v & 0xff) != 0x0f) return 0; break;
		default: if (v != 0x0f0f0f) return 0;
		}
	}
	return 1;
}

/* A pruning table's state space (st_unrank and st_rank map its indices
 * to mask sets and back). */
struct st_space {
	int kind, orb, pb; /* which table: see st_unrank */
};

/* The tables' state spaces: A an orbit's 24-bit masks of 8 by colex
 * rank (st_bfs walks them in order), B an orbit's side
 * mask and parity, C1 and C2's pair tables two bytes (sp->pb, and with
 * sp->orb < 0 the two orbits' bytes, else one orbit's bytes 1 and 2). */
static void st_unrank(const struct stagew *S, const struct st_space *sp,
		      long i, uint32_t *v, unsigned *par)
{
	*par = 0;
	v[0] = v[1] = 0;
	switch (sp->kind) {
	case ST_B:
		if (S->pop[i & 255] + S->pop[i >> 8 & 255] != 8)
			return;
		v[0] = (uint32_t)(i & 0xffff) << 8;
		*par = (unsigned)(i >> 16);
		break;
	default:
		if (sp->orb < 0) {
			v[0] = (uint32_t)S->u70[i / 70] << 8 * sp->pb;
			v[1] = (uint32_t)S->u70[i % 70] << 8 * sp->pb;
		} else {
			v[0] = (uint32_t)S->u70[i / 70] << 8 |
			       (uint32_t)S->u70[i % 70] << 16 | 0x0f;
		}
	}
}

static long st_rank(const struct stagew *S, const struct st_space *sp,
		    const uint32_t *v, unsigned par)
{
	switch (sp->kind) {
	case ST_A: return st_rankA(S, v[0]);
	case ST_B: return (long)(v[0] >> 8 & 0xffff) | (par ? 0x10000L : 0);
	default:
		if (sp->orb < 0)
			return st_pair(S, v[0], v[1], sp->pb);
		return S->r70[v[0] >> 8 & 255] * 70 + S->r70[v[0] >> 16 & 255];
	}
}

/* Breadth-first over a table's states (index → mask set → index
 * through the step's turns, bit): t[i] the distance from the goal
 * (index goal). */
static void st_bfs(struct stagew *S, uint8_t *t, long size, long total,
		   long goal, int bit, const struct st_space *sp)
{
	memset(t, ST_UNSEEN, (size_t)size);
	t[goal] = 0;
	long seen = 1, frontier = 1;
	for (int d = 0; d < ST_UNSEEN - 1 && seen < total; d++) {
		/* forward from the frontier while it is small (under a
		 * quarter of the unseen states), then back from each unseen
		 * state: one neighbour at d is enough (a quarter beat a
		 * half: docs/solvers.md) */
		int back = 4 * frontier > total - seen;
		long added = 0;
		uint32_t comb = 0xff; /* A: the mask of rank i, walked along */
		for (long i = 0; i < size; i++) {
			if (sp->kind == ST_A && i > 0) {
				/* the next larger number with as many bits:
				 * colex order is numeric order */
				uint32_t low = comb & (0u - comb), r = comb + low;
				comb = (((r ^ comb) >> 2) / low) | r;
			}
			if (back ? t[i] != ST_UNSEEN : t[i] != d)
				continue;
			uint32_t v[ST_ORB], w[ST_ORB];
			unsigned par = 0;
			if (sp->kind == ST_A)
				v[0] = comb, v[1] = 0;
			else
				st_unrank(S, sp, i, v, &par);
			if (!v[0])
				continue;
			for (int g = 0; g < S->nmov; g++) {
				if (!(S->mv[g].cls & bit))
					continue;
				if (sp->orb >= 0) {
					w[0] = st_apply(S, sp->orb, g, v[0]);
				} else {
					w[0] = st_apply(S, 0, g, v[0]);
					w[1] = st_apply(S, S->norb - 1, g, v[1]);
				}
				long j = sp->kind == ST_A
					 ? (long)st_rankA(S, w[0])
					 : st_rank(S, sp, w,
						   par ^ (S->mv[g].wing != 0));
				if (!back && t[j] == ST_UNSEEN) {
					t[j] = (uint8_t)(d + 1), added++;
				} else if (back && t[j] == d) {
					t[i] = (uint8_t)(d + 1), added++;
					break;
				}
			}
		}
		if (!added)
			break;
		seen += added;
		frontier = added;
	}
}

static const int st_face[6] = {CUBE_U, CUBE_D, CUBE_L, CUBE_R, CUBE_F,
			       CUBE_B};

/* The moves, their maps on each orbit's masks, the rank tables and the
 * pruning tables. */
/* The places of ring k (its X-centers, and on odd n its +-centers), on
 * the cube. */
static void st_places(uint16_t (*place)[NPOS][3], int norb, int k, int m)
{
	for (int o = 0; o < norb; o++) {
		int p = k, q = o == 0 ? p : m / 2;
		for (int i = 0; i < 6; i++) {
			const int rc[4][2] = {{p, q}, {q, m - p},
					      {m - p, m - q}, {m - q, p}};
			for (int j = 0; j < 4; j++) {
				place[o][4 * i + j][0] = (uint16_t)st_face[i];
				place[o][4 * i + j][1] = (uint16_t)rc[j][0];
				place[o][4 * i + j][2] = (uint16_t)rc[j][1];
			}
		}
	}
}

/* The steps turn M may serve, from its map of an orbit's places (to[i]:
 * where the sticker at i goes): B keeps the U-D places a set, C1 each
 * face pair, C2 also U's places. */
static void st_classes(struct stmove *M, const uint8_t *to)
{
	int keep_ud = 1, keep_pairs = 1, keep_u = 1;
	for (int i = 0; i < NPOS; i++) {
		if ((i < 8) != (to[i] < 8))
			keep_ud = 0;
		if (i / 8 != to[i] / 8)
			keep_pairs = 0;
		if ((i < 4) != (to[i] < 4))
			keep_u = 0;
	}
	if (!keep_ud)
		M->cls &= (uint8_t)~(1 << ST_B);
	if (!keep_pairs)
		M->cls &= (uint8_t)~(1 << ST_C1 | 1 << ST_C2);
	if (!keep_u)
		M->cls &= (uint8_t)~(1 << ST_C2);
}

/* The layer sets ring k (m = n - 1 on the cube, or the model's) is
 * turned by on each axis for a kind (st_kind): its single layers 0, k,
 * m-k, m, then for kinds 0 and 1 the blocks 0-k and m-k-m (a 4×4's or
 * 5×5's outer blocks: they turn the rings outside k, which inside out
 * are not solved yet), and for kind 0 the block k..m-k (a 4×4's inner
 * block: only the innermost ring of an even cube has it). Never a
 * middle slice. Returns how many. */
static int st_sets(int kind, int m, int k, int (*sets)[2])
{
	int ns = 0;
	const int one[4] = {0, k, m - k, m};
	for (int i = 0; i < 4; i++)
		sets[ns][0] = sets[ns][1] = one[i], ns++;
	if (kind <= 1) {
		sets[ns][0] = 0, sets[ns][1] = k, ns++;
		sets[ns][0] = m - k, sets[ns][1] = m, ns++;
	}
	if (kind == 0)
		sets[ns][0] = k, sets[ns][1] = m - k, ns++;
	return ns;
}

/* Turn g: quarter turns qt of layer set s (lo..hi) on axis; serving
 * every step until its maps say otherwise. */
static struct stmove st_turn(int axis, int s, const int *set, int qt)
{
	struct stmove M = {(uint8_t)axis, (uint8_t)qt, (uint8_t)set[0],
			   (uint8_t)set[1], (uint8_t)s,
			   (uint8_t)((1 << ST_STEPS) - 1), 0};
	return M;
}

/* The turns (on the model: a 4×4 for even n, a 5×5 for odd), their
 * maps on each orbit's masks, the rank tables and the pruning tables. */
static int st_build(struct ctx *x, int kind)
{
	struct stagew *S = stagew_of(x);
	int n = x->n;
	cube_t *sim = (cube_t *)(void *)x->w->sim;
	int nm = kind % 2 ? 5 : 4, m = nm - 1;
	S->n = n;
	S->nm = nm;
	S->kind = kind;
	S->norb = nm == 5 ? 2 : 1;
	uint16_t place[ST_ORB][NPOS][3];
	st_places(place, S->norb, 1, m);
	int sets[7][2], ns = st_sets(kind, m, 1, sets);
	S->nmov = 0;
	for (int axis = 0; axis < 3; axis++)
		for (int s = 0; s < ns; s++)
			for (int qt = 1; qt <= 3; qt++) {
				int g = S->nmov++;
				struct stmove *M = &S->mv[g];
				*M = st_turn(axis, s, sets[s], qt);
				for (int l = M->lo; l <= M->hi; l++)
					if (qt % 2 && l > 0 && l < m)
						M->wing ^= 1u << (l < m - l ? l : m - l);
				for (int o = 0; o < S->norb; o++) {
					uint8_t to[NPOS];
					cube_init(sim, nm);
					for (int i = 0; i < NPOS; i++)
						cube__set(sim, place[o][i][0],
							  place[o][i][1],
							  place[o][i][2], 6 + i);
					cube_turn(sim, axis, M->lo, M->hi, qt);
					for (int i = 0; i < NPOS; i++) {
						int v = cube_get(sim, place[o][i][0],
								 place[o][i][1],
								 place[o][i][2]) - 6;
						if (v < 0 || v >= NPOS)
							return SOLVE_ESTAGE;
						to[v] = (uint8_t)i;
					}
					for (int b = 0; b < 3; b++)
						for (int byte = 0; byte < 256; byte++) {
							uint32_t r = 0;
							for (int j = 0; j < 8; j++)
								if (byte >> j & 1)
									r |= 1u << to[8 * b + j];
							S->pm[o][g][b][byte] = r;
						}
					st_classes(M, to);
				}
			}
	/* colex ranks: the k-th set bit (from 1) at place p counts C(p, k) */
	uint32_t binom[25][10];
	for (int a = 0; a <= 24; a++)
		for (int k = 0; k <= 9; k++)
			binom[a][k] = k == 0 ? 1 : a == 0 ? 0
				      : binom[a - 1][k - 1] + binom[a - 1][k];
	for (int byte = 0; byte < 256; byte++) {
		int c = 0;
		for (int j = 0; j < 8; j++)
			c += byte >> j & 1;
		S->pop[byte] = (uint8_t)c;
	}
	for (int b = 0; b < 3; b++)
		for (int byte = 0; byte < 256; byte++)
			for (int k = 0; k <= 8; k++) {
				uint32_t r = 0;
				int i = k;
				for (int j = 0; j < 8; j++)
					if (byte >> j & 1) {
						i++;
						if (i <= 9)
							r += binom[8 * b + j][i];
					}
				S->rank[b][byte][k] = r;
			}
	int k70 = 0;
	memset(S->r70, 0, sizeof S->r70);
	for (int byte = 0; byte < 256; byte++)
		if (S->pop[byte] == 4) {
			S->r70[byte] = (uint8_t)k70;
			S->u70[k70++] = (uint8_t)byte;
		}
	S->built = 1;
	/* (reduce_solve checked their header) */
	const struct st_shared *sh = x->lim ? x->lim->stage_tables : NULL;
	if (sh) {
		S->t = &sh->kind[kind];
		return 0;
	}
	struct st_tables *T = &S->own;
	int g0f = S->r70[0x0f] * 70 + S->r70[0x0f];
	for (int o = 0; o < S->norb; o++) {
		struct st_space a = {ST_A, o, 0}, b = {ST_B, o, 0},
				c = {ST_C2, o, 0};
		st_bfs(S, T->tA[o], ST_NA, ST_NA, 0, 1 << ST_A, &a);
		st_bfs(S, T->tB[o], ST_NB, 2 * 12870, 0xff, 1 << ST_B, &b);
		st_bfs(S, T->tC2[o], ST_NP, ST_NP, g0f, 1 << ST_C2, &c);
	}
	struct st_space j0 = {ST_C1, -1, 0}, j1 = {ST_C2, -1, 1},
			j2 = {ST_C2, -1, 2};
	st_bfs(S, T->tJ0, ST_NP, ST_NP, g0f, 1 << ST_C1, &j0);
	st_bfs(S, T->tJ2[0], ST_NP, ST_NP, g0f, 1 << ST_C2, &j1);
	st_bfs(S, T->tJ2[1], ST_NP, ST_NP, g0f, 1 << ST_C2, &j2);
	S->t = T;
	return 0;
}

_Static_assert(ST_BEAM <= 1024 && ST_MOVES <= 128, "st_beam's cand");

/* The model's single-layer turn (axis, model layer, quarter turns). */
static int st_model_turn(const struct stagew *S, int axis, int layer, int qt)
{
	for (int g = 0; g < S->nmov; g++) {
		const struct stmove *M = &S->mv[g];
		if (M->axis == axis && M->lo == layer && M->hi == layer &&
		    M->qt == qt)
			return g;
	}
	return -1;
}

/* Turn g of the ring searched: the model's turns of the layers it holds
 * of 0, k, m-k, m (relabelled 0, 1, mm-1, mm), their maps composed (they
 * commute: one axis), its wing flip and the steps it may serve. */
static int st_compose(struct stagew *S, int g, int m)
{
	struct stmove *M = &S->cmv[g];
	int k = S->ring, mm = S->nm - 1, mg[4], nl = 0;
	const int real[4] = {0, k, m - k, m}, model[4] = {0, 1, mm - 1, mm};
	for (int i = 0; i < 4; i++) {
		if (real[i] < M->lo || real[i] > M->hi)
			continue;
		if ((mg[nl] = st_model_turn(S, M->axis, model[i], M->qt)) < 0)
			return SOLVE_ESTAGE;
		if (S->mv[mg[nl++]].wing)
			M->wing ^= 1u;
	}
	for (int o = 0; o < S->norb; o++) {
		int jo = o;
		uint8_t to[NPOS];
		for (int b = 0; b < 3; b++)
			for (int byte = 0; byte < 256; byte++) {
				uint32_t v = (uint32_t)byte << 8 * b;
				for (int i = 0; i < nl; i++)
					v = st_apply(S, o, mg[i], v);
				S->cpm[jo][g][b][byte] = v;
			}
		for (int i = 0; i < NPOS; i++) {
			uint32_t v = st_capply(S, jo, g, 1u << i);
			to[i] = 0;
			while (!(v >> to[i] & 1))
				to[i]++;
		}
		st_classes(M, to);
	}
	return 0;
}

/* Set up ring k for the searches from now on: its orbits' places on the
 * cube, and the turns on the layer sets of st_sets. They are the model's
 * turns in the model's order, so its searches are the same as on the
 * model. */
static int st_group(struct ctx *x, int k)
{
	struct stagew *S = stagew_of(x);
	int m = x->m, rc;
	S->ring = k;
	st_places(S->place, S->norb, k, m);
	int sets[7][2], ns = st_sets(S->kind, m, k, sets);
	S->cnmov = 0;
	for (int axis = 0; axis < 3; axis++)
		for (int s = 0; s < ns; s++)
			for (int qt = 1; qt <= 3; qt++) {
				int g = S->cnmov++;
				S->cmv[g] = st_turn(axis, s, sets[s], qt);
				if ((rc = st_compose(S, g, m)) < 0)
					return rc;
			}
	return 0;
}

static void st_read(struct ctx *x, const struct stagew *S, struct ststate *s)
{
	int cU = x->tcol[CUBE_U], cD = x->tcol[CUBE_D], cL = x->tcol[CUBE_L],
	    cR = x->tcol[CUBE_R], cF = x->tcol[CUBE_F];
	s->par = 0;
	for (int o = 0; o < S->norb; o++) {
		s->v[0][o] = s->v[1][o] = s->v[2][o] = 0;
		for (int i = 0; i < NPOS; i++) {
			const uint16_t *p = S->place[o][i];
			int col = cube_get(x->c, p[0], p[1], p[2]);
			s->v[0][o] |= (uint32_t)(col == cU || col == cD) << i;
			s->v[1][o] |= (uint32_t)(col == cL || col == cR) << i;
			s->v[2][o] |= (uint32_t)(col == cU || col == cL ||
						 col == cF) << i;
		}
	}
}

/* Turn g on the masks step kind looks at, and with next those the next
 * step looks at. */
static void st_move(const struct stagew *S, int kind, int next, int g,
		    const struct ststate *s, struct ststate *c)
{
	int k0 = st_mask(kind),
	    k1 = st_mask(next && kind + 1 < ST_STEPS ? kind + 1 : kind);
	*c = *s;
	for (int o = 0; o < S->norb; o++) {
		c->v[k0][o] = st_capply(S, o, g, s->v[k0][o]);
		if (k1 != k0)
			c->v[k1][o] = st_capply(S, o, g, s->v[k1][o]);
	}
	c->par = s->par ^ S->cmv[g].wing;
}

/* How an answer of a step leaves the next: the next step's largest
 * table distance, then their sum (0 after the last step). */
static int st_rate(const struct stagew *S, int kind, const struct ststate *s)
{
	if (kind + 1 >= ST_STEPS)
		return 0;
	int sum, h = st_h(S, kind + 1, s, &sum);
	return 32 * h + sum;
}

/* The order turns are tried in: turns of one axis commute, so they come
 * in increasing layer-set order. */
static int st_skip(const struct stagew *S, int kind, int prev, int g)
{
	const struct stmove *M = &S->cmv[g];
	return !(M->cls & 1 << kind) ||
	       (prev >= 0 && M->axis == S->cmv[prev].axis &&
		M->ls <= S->cmv[prev].ls);
}

/* The centers' last step's answers kept for trial against the edge beam
 * (the plan's ctrials): the fewest unpaired edge neighbours first. */
#define ST_CANDS 8
struct stcands {
	int n;
	int rate[ST_CANDS];
	int path[ST_CANDS][ST_DEPTH + 1];
};

struct stsearch {
	struct ctx *x;
	struct stcands *cands; /* or NULL */
	const struct stagew *S;
	int kind;
	long nodes, budget, pick;
	int stopped; /* 1 budget, 2 the caller's poll */
	struct ststate root;
	int path[ST_DEPTH + 1];
	int best_len, best_rate;
	int best[ST_DEPTH + 1];
	int bars;  /* rate answers by the obliques they leave unpaired */
	int edges; /* or by the edge pieces */
};

/* The cube as the group's turns path[0..len) would leave it (in the
 * scratch cube), for rating an answer by what the next stage sees. */
static const cube_t *st_after(struct ctx *x, const int *path, int len)
{
	const struct stagew *S = stagew_of(x);
	cube_t *sim = x->scratch;
	cube_copy(sim, x->c);
	for (int d = 0; d < len; d++) {
		const struct stmove *M = &S->cmv[path[d]];
		cube__turn_generic(sim, M->axis, M->lo, M->hi, M->qt);
	}
	return sim;
}

/* How many answers a step keeps for trial: against the bar step after it
 * (bars) or the edge beam. */
static int st_cands_max(const struct ctx *x, int bars)
{
	int t = bars ? x->plan.btrials : x->plan.ctrials;
	return t < ST_CANDS ? t : ST_CANDS;
}

/* Answer path[0..len) into C, which keeps the max best by rate (the
 * first found first among equals). */
static void st_keep(struct stcands *C, int max, int rate, const int *path,
		    int len)
{
	if (C->n == max && C->rate[max - 1] <= rate)
		return; /* no better than the last kept */
	int i = C->n < max ? C->n++ : max - 1;
	for (; i > 0 && C->rate[i - 1] > rate; i--) {
		C->rate[i] = C->rate[i - 1];
		memcpy(C->path[i], C->path[i - 1], sizeof C->path[i]);
	}
	C->rate[i] = rate;
	memcpy(C->path[i], path, (size_t)len * sizeof *path);
	C->path[i][len] = -1;
}

/* IDA*'s depth-first pass to bound. Every answer found is rated; once
 * one is, the pass goes on for at most z->pick more nodes. 0, or -1
 * stopped (by the budget: answers found stand). */
static int st_dfs(struct stsearch *z, const struct ststate *s, int depth,
		  int bound, int prev)
{
	const struct stagew *S = z->S;
	int h = st_h(S, z->kind, s, NULL);
	if (h > bound - depth)
		return 0;
	if (h == 0 && st_goal(S, z->kind, s)) {
		int r;
		if (z->bars) {
			r = reduce__bar_rate(z->x,
					     st_after(z->x, z->path, depth));
		} else if (z->edges) {
			r = reduce__edge_rate(z->x,
					      st_after(z->x, z->path, depth));
		} else {
			/* the next step's masks: the answer made again from
			 * the root (the search itself only turns this
			 * step's) */
			struct ststate e = z->root, f;
			for (int d = 0; d < depth; d++) {
				st_move(S, z->kind, 1, z->path[d], &e, &f);
				e = f;
			}
			r = st_rate(S, z->kind, &e);
		}
		if (z->best_len < 0 && z->nodes + z->pick < z->budget)
			z->budget = z->nodes + z->pick;
		if (z->cands)
			st_keep(z->cands, st_cands_max(z->x, z->bars), r,
				z->path, depth);
		if (z->best_len < 0 || r < z->best_rate) {
			z->best_len = depth;
			z->best_rate = r;
			memcpy(z->best, z->path, sizeof z->best);
			z->best[depth] = -1;
		}
		return r == 0 ? -1 : 0;
	}
	if (depth == bound)
		return 0;
	if (++z->nodes > z->budget) {
		z->stopped = 1;
		return -1;
	}
	if ((z->nodes & 0xffff) == 0 && poll_now(z->x)) {
		z->stopped = 2;
		return -1;
	}
	for (int g = 0; g < S->cnmov; g++) {
		if (st_skip(S, z->kind, prev, g))
			continue;
		struct ststate c;
		st_move(S, z->kind, 0, g, s, &c);
		z->path[depth] = g;
		if (st_dfs(z, &c, depth + 1, bound, g) < 0)
			return -1;
	}
	return 0;
}

/* A beam node's path walked back to the root: path[0 .. depth) then -1. */
static void st_beam_path(const struct stagew *S, int depth, int i, int g,
			 int *path)
{
	path[depth + 1] = -1;
	path[depth] = g;
	for (int d = depth; d > 0; d--) {
		path[d - 1] = S->beam[d][i].move;
		i = S->beam[d][i].parent;
	}
}

static uint64_t st_key(const struct stagew *S, const struct ststate *c,
		       int mk)
{
	uint64_t key = 1;
	for (int o = 0; o < S->norb; o++)
		key = key * 0x9e3779b97f4a7c15ull ^ c->v[mk][o];
	/* the parities above bit 0, which marks a slot taken */
	return (key * 0x9e3779b97f4a7c15ull ^ (uint64_t)c->par << 1) | 1;
}

/* Whether key is in the hash set; *slot: where it is or would go. */
static int st_seen(const struct stagew *S, uint64_t key, uint32_t *slot)
{
	uint32_t hs = (uint32_t)(key >> 40) & (ST_HASH - 1);
	while (S->seen[hs]) {
		if (S->seen[hs] == key) {
			*slot = hs;
			return 1;
		}
		hs = (hs + 1) & (ST_HASH - 1);
	}
	*slot = hs;
	return 0;
}

/* Beam search: level by level, every child of the kept states (in the
 * search's turn order, each state once over all levels, so the beam
 * moves on off a plateau of its tables) scored by the step's tables (the
 * largest distance, then the sum), the ST_BEAM best kept. The first
 * level that reaches the goal ends it: of the states there that do, the
 * one that st_rate likes best (the next step's masks made again along
 * its path; the beam turns only this step's). Writes the turns to path
 * (ending -1); 1 found, 0 not within ST_BEAM_DEPTH, -1 the caller's
 * poll. */
static int st_beam(struct ctx *x, int kind, const struct ststate *root,
		   long width, int *path)
{
	struct stagew *S = stagew_of(x);
	int nb = 1, mk = st_mask(kind);
	if (st_goal(S, kind, root)) {
		path[0] = -1;
		return 1;
	}
	struct stnode *b0 = &S->beam[0][0];
	memcpy(b0->v, root->v, sizeof b0->v);
	b0->par = (uint8_t)root->par;
	b0->move = 255;
	b0->parent = 0;
	memset(S->seen, 0, sizeof S->seen);
	for (int depth = 0; depth < ST_BEAM_DEPTH; depth++) {
		long hist[1024];
		memset(hist, 0, sizeof hist);
		int best_rate = -1, nc = 0;
		/* every child once: scored, and rated if a goal */
		for (int i = 0; i < nb; i++) {
			const struct stnode *p = &S->beam[depth][i];
			int prev = p->move == 255 ? -1 : p->move;
			struct ststate ps, c;
			memcpy(ps.v, p->v, sizeof ps.v);
			ps.par = p->par;
			for (int g = 0; g < S->cnmov; g++) {
				if (st_skip(S, kind, prev, g))
					continue;
				st_move(S, kind, 0, g, &ps, &c);
				uint32_t slot;
				if (st_seen(S, st_key(S, &c, mk), &slot))
					continue;
				int sum, h = st_h(S, kind, &c, &sum);
				int sc = 32 * h + sum;
				sc = sc > 1023 ? 1023 : sc;
				hist[sc]++;
				S->cand[nc++] = (uint32_t)sc << 17 |
						(uint32_t)i << 7 | (uint32_t)g;
				if (h || !st_goal(S, kind, &c))
					continue;
				int tp[ST_BEAM_DEPTH + 2];
				st_beam_path(S, depth, i, g, tp);
				struct ststate e = *root, f;
				for (int d = 0; tp[d] >= 0; d++) {
					st_move(S, kind, 1, tp[d], &e, &f);
					e = f;
				}
				int r = st_rate(S, kind, &e);
				if (best_rate < 0 || r < best_rate) {
					best_rate = r;
					memcpy(path, tp, (size_t)(depth + 2) *
							 sizeof *path);
				}
			}
		}
		if (best_rate >= 0)
			return 1;
		/* the best ST_BEAM: all below the threshold score, and at it
		 * as many as there is room for */
		long acc = 0;
		int threshold = 0;
		for (; threshold < 1023; threshold++) {
			if (acc + hist[threshold] >= width)
				break;
			acc += hist[threshold];
		}
		int limit = (int)(width - acc), kept = 0;
		for (int k = 0; k < nc; k++) {
			int sc = (int)(S->cand[k] >> 17),
			    i = (int)(S->cand[k] >> 7 & 1023),
			    g = (int)(S->cand[k] & 127);
			if (sc > threshold || (sc == threshold && limit <= 0))
				continue;
			const struct stnode *p = &S->beam[depth][i];
			struct ststate ps, c;
			memcpy(ps.v, p->v, sizeof ps.v);
			ps.par = p->par;
			st_move(S, kind, 0, g, &ps, &c);
			uint32_t slot;
			if (st_seen(S, st_key(S, &c, mk), &slot))
				continue; /* twice among this level's */
			S->seen[slot] = st_key(S, &c, mk);
			if (sc == threshold)
				limit--;
			struct stnode *q = &S->beam[depth + 1][kept++];
			memcpy(q->v, c.v, sizeof q->v);
			q->par = (uint8_t)c.par;
			q->move = (uint8_t)g;
			q->parent = (uint16_t)i;
		}
		nb = kept;
		if (nb == 0)
			return 0;
		if (poll_now(x))
			return -1;
	}
	return 0;
}

/* The ring's wing parity (bit 0) of the cube's (bit k: wing orbit
 * k's). */
static unsigned st_par(const struct stagew *S, uint64_t par)
{
	return (unsigned)(par >> S->ring & 1);
}

/* IDA* on step kind from s within budget nodes: 1 with its answer in
 * path (then -1), 0 when the budget ran out first, or an error. */
static int st_ida(struct ctx *x, int kind, const struct ststate *s,
		  long budget, int *path, struct stcands *cands)
{
	struct stagew *S = stagew_of(x);
	struct stsearch z;
	memset(&z, 0, sizeof z);
	z.x = x;
	z.S = S;
	z.kind = kind;
	z.budget = budget;
	z.pick = x->plan.st_pick;
	z.best_len = -1;
	/* inside out, a ring's last step: of its answers, the one that
	 * leaves the next bar step the most paired */
	z.bars = x->plan.inside && S->ring > 1 &&
		 kind == ST_C2;
	/* the centers' last step (plan.edge_rate): the answer that leaves
	 * the edges the most paired */
	z.edges = x->erate && S->ring == 1 && kind == ST_C2;
	if (cands && ((z.edges && x->plan.ctrials > 1) ||
		      (z.bars && x->plan.btrials > 1))) {
		z.cands = cands;
		cands->n = 0;
	}
	z.root = *s;
	for (int bound = st_h(S, kind, s, NULL);
	     bound <= ST_DEPTH && z.best_len < 0; bound++) {
		st_dfs(&z, s, 0, bound, -1);
		if (z.stopped == 2)
			return SOLVE_ENOTFOUND;
		if (z.stopped && z.best_len < 0)
			break;
	}
	x->st_nodes += z.nodes;
	if (z.best_len < 0)
		return 0;
	memcpy(path, z.best, sizeof z.best);
	return 1;
}

static int centers_solved(const struct ctx *x)
{
	for (int f = 0; f < 6; f++)
		for (int r = 1; r < x->m; r++)
			for (int c = 1; c < x->m; c++)
				if (cube_get(x->c, f, r, c) != x->tcol[f])
					return 0;
	return 1;
}

/* Path made on the cube as a step is (simplified as a segment). */
static int st_make(struct ctx *x, const int *path, uint64_t *par)
{
	const struct stagew *S = stagew_of(x);
	size_t start = x->count;
	for (int d = 0; path[d] >= 0; d++) {
		const struct stmove *M = &S->cmv[path[d]];
		int rc = emit_block(x, M->axis, M->lo, M->hi, M->qt);
		if (rc < 0)
			return rc;
		*par ^= turn_par(x->m, M->lo, M->hi, M->qt);
	}
	size_t nk = moves_simplify(x->out + start, x->count - start);
	x->count = start + moves_merge_blocks(x->out + start, nk, x->n);
	return 0;
}

/* A step's kept answers, each made and what comes after it run on trial,
 * both then taken back: path becomes the answer after which that scores
 * best. After the centers' last step that is the edge beam (its score,
 * reduce__beam_score); after an inner ring's last step inside out
 * (bars), the next bar step (its moves; 1,000 more when it leaves
 * obliques unpaired). The stage after runs again for good.
 * The beam's length moves by several moves from one center ending to
 * the next, more than the rating foresees (docs/solvers.md, "Edges"),
 * and so does a bar step's. Leaves path alone when an answer before the
 * edges leaves a center unsolved (a ring given up before: the beam
 * needs them all). */
static int st_try(struct ctx *x, const struct stcands *C, int *path,
		  int bars)
{
	size_t c0 = x->count, best_len = SIZE_MAX;
	int best = -1;
	for (int i = 0; i < C->n; i++) {
		uint64_t p = 0; /* the trial's wing parities: not kept */
		int rc = st_make(x, C->path[i], &p);
		if (rc == 0 && !bars && !centers_solved(x)) {
			reduce__unmake(x, c0);
			return 0;
		}
		size_t len = 0;
		if (rc == 0 && bars) {
			rc = reduce__bar_pair(x, &p, 0);
			len = x->count - c0 + (rc == 0 ? 1000 : 0);
			rc = rc > 0 ? 0 : rc;
		} else if (rc == 0) {
			rc = reduce__beam_edges(x);
			len = rc == 0 ? (size_t)reduce__beam_score(x) - c0 : 0;
		}
		reduce__unmake(x, c0);
		if (rc == CUBE_ESPACE)
			continue; /* longer than the space left */
		if (rc < 0)
			return rc;
		if (len < best_len)
			best_len = len, best = i;
	}
	if (best >= 0)
		memcpy(path, C->path[best], sizeof C->path[best]);
	return 0;
}

/* One step searched and made on the cube, simplified as a segment, its
 * goal checked on the cube. Returns 1 done, 0 gave up (budget), or an
 * error. */
static int st_step(struct ctx *x, int kind, uint64_t *par, int *len)
{
	struct stagew *S = stagew_of(x);
	struct ststate s;
	st_read(x, S, &s);
	s.par = st_par(S, *par);
	int path[ST_BEAM_DEPTH + 1], found = 0;
	long width = x->plan.st_beam, budget = x->plan.st_budget;
	/* IDA* within the budget (A: the beam alone), else the beam; a
	 * step given up leaves its ring to the 3-cycles (a 17×17's
	 * centers 1,400 → 1,817 moves), so should the beam find nothing,
	 * the beam at full width and then IDA* with the whole budget */
	struct stcands cands;
	cands.n = 0;
	if (!(ST_BEAM_STEPS >> kind & 1))
		found = st_ida(x, kind, &s, budget, path, &cands);
	if (found == 0)
		found = st_beam(x, kind, &s, width, path);
	if (found == 0 && width < ST_BEAM)
		found = st_beam(x, kind, &s, ST_BEAM, path);
	if (found == 0 && (budget < ST_BUDGET || ST_BEAM_STEPS >> kind & 1))
		found = st_ida(x, kind, &s, ST_BUDGET, path, &cands);
	if (found < 0)
		return SOLVE_ENOTFOUND;
	if (!found)
		return 0;
	int rc;
	if (cands.n > 1 &&
	    (rc = st_try(x, &cands, path, kind == ST_C2 && S->ring > 1)) < 0)
		return rc;
	size_t start = x->count;
	if ((rc = st_make(x, path, par)) < 0)
		return rc;
	*len = (int)(x->count - start);
	st_read(x, S, &s);
	s.par = st_par(S, *par);
	return st_goal(S, kind, &s) ? 1 : SOLVE_ESTAGE;
}

/* Ring k's four steps alone. Returns 1 when done, 0 when a step gave
 * up (past 5×5 with the ring's wing orbit made even again: the 3-cycles
 * finish the ring, and past FREE_MAX_N nothing else would), or an
 * error. */
static int st_ring(struct ctx *x, int k, uint64_t *par)
{
	int rc;
	if ((rc = st_group(x, k)) < 0)
		return rc;
	for (int kind = ST_A; kind < ST_STEPS; kind++) {
		rc = st_step(x, kind, par, &x->split[kind]);
		if (rc != 0)
			continue;
		if (x->n > 5 && *par >> k & 1) {
			if ((rc = emit(x, 0, k, 1)) < 0)
				return rc;
			*par ^= 1ull << k;
		}
		return 0;
	}
	return 1;
}

/* The four steps. Returns 1 when every center is solved, 0 when a step
 * gave up (the greedy phases go on from there, x->cpar holding the wing
 * parities so far), or an error. */
int reduce__staged_centers(struct ctx *x)
{
	int rc;
	uint64_t par = 0;
	struct stagew *S = stagew_of(x);
	/* the tables take a quarter of a second: ask first */
	int kind = st_kind(x->n);
	if ((!S->built || S->kind != kind) && poll_now(x))
		return SOLVE_ENOTFOUND;
	if ((!S->built || S->kind != kind) && (rc = st_build(x, kind)) < 0)
		return rc;
	int rings = x->n <= 5 ? 1 : wing_orbits(x->n), k = 1;
	if (x->plan.inside) {
		/* inside out: the innermost ring (the 3×3 of centers around
		 * the middle) as a 5×5's; then each ring outside it, its
		 * edges of centers made bars two cells at a time from the
		 * middle out (the block inside it solved), then the ring as
		 * a 5×5's. A step that gives up leaves its part to the
		 * 3-cycles, the next steps go on. Each ring's search is set
		 * to rate its answers by the first bars after it. */
		int ki = wing_orbits(x->n);
		for (int r = ki; r >= 1; r--) {
			for (int j = ki; j > r; j--) {
				reduce__ease(x);
				reduce__bar_setup(x, r, j);
				rc = reduce__bar_pair(x, &par,
						      j - 1 > r ? j - 1 : 0);
				if (rc < 0)
					return rc;
				if (rc == 0)
					x->bars_broken++;
				if (rc == 2)
					j--; /* its trials made the next */
			}
			if (r > 1)
				reduce__bar_setup(x, r - 1, ki);
			/* an even cube's rings with bars are 5×5's */
			if (r < ki && S->kind != 1) {
				if (poll_now(x))
					return SOLVE_ENOTFOUND;
				if ((rc = st_build(x, 1)) < 0)
					return rc;
			}
			reduce__ease(x);
			if ((rc = st_ring(x, r, &par)) < 0)
				return rc;
		}
		/* every step reached its goal: every center solved (the
		 * greedy phases would only look and find nothing) */
		x->cpar = par;
		memset(x->split, 0, sizeof x->split);
		return centers_solved(x);
	}
	for (; k <= rings; k++) {
		rc = st_ring(x, k, &par);
		if (rc < 0 || (rc == 0 && x->n <= 5)) {
			x->cpar = par;
			memset(x->split, 0, sizeof x->split);
			return rc;
		}
	}
	if (x->n > 5) {
		/* the obliques are the greedy phases' */
		x->cpar = par;
		memset(x->split, 0, sizeof x->split);
		return 0;
	}
	return 1;
}

size_t reduce__staged_shared_size(void)
{
	return sizeof(struct st_shared);
}

/* One size of each kind (st_kind), built as a solve of it would. */
int reduce__staged_kind_size(int k)
{
	static const int rep[ST_KINDS] = {4, 5, 6, 9};
	return k >= 0 && k < ST_KINDS ? rep[k] : 0;
}

/* Kind k's tables, built on x's work buffer (size
 * reduce__staged_kind_size(k)), copied into the shared tables. */
int reduce__staged_build_kind(struct ctx *x, void *shared, int k)
{
	struct stagew *S = stagew_of(x);
	S->built = 0;
	/* every byte set (a kind with one orbit leaves the second's
	 * tables unused): the copy's checksum must not depend on what the
	 * work buffer held */
	memset(&S->own, 0, sizeof S->own);
	int rc = st_build(x, k);
	if (rc < 0)
		return rc;
	memcpy(&((struct st_shared *)shared)->kind[k], &S->own, sizeof S->own);
	return 0;
}
