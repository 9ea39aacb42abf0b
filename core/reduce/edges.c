/* edges.c — the edges stage: the edge beam that pairs the edges with
 * slice–turn–slice macros that keep the centers (n <= EB_MAX_N), the edge
 * set chosen on even n, the wing commutators that serve many orbits at
 * once (n >= MW_MIN_N, below), and the wing 3-cycles that finish every
 * orbit.
 *
 * Edge beam. With the centers solved, S X S' keeps them for S any
 * inner slice or block of them (the middle slice of odd n too: it comes
 * back, so the frame holds) and X any sequence that turns each face S
 * displaced a whole number of turns: here X is made of face turns of
 * S's axis (those faces' centers S leaves alone) and conjugates A B A'
 * (A a face across S's axis, B one of S's axis). For n <= EB_MAX_N the
 * edges stage searches these (S a single slice or a block of up to
 * FREE_MAX_W) by a beam over cost levels: level c holds the EB_W states
 * (EB_W7 on 7×7) with the most neighbouring pieces along the edges
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
#include "internal.h"

/* The edge beam (n <= EB_MAX_N; this file's head and reduce__beam_edges
 * say how it works): its macros' place maps, and each cost level's best
 * states. */
#define EB_NE (24 * (EB_MAX_N - 2))
#define EB_ADJ (12 * (EB_MAX_N - 3))
_Static_assert(EB_ADJ <= 128 && EB_NE <= 256, "the beam's masks and maps");
/* S: 3 axes, up to 45 layer sets (12×12: 10 slices, 9 blocks of two, 8
 * of three … 5 of six: FREE_MAX_W), 3 amounts; A: none or 8; B: 6 */
#define EB_CORES (3 * 45 * 3 * 9 * 6)
_Static_assert(FREE_MAX_W <= 6, "EB_CORES holds blocks of up to six");

/* A set of neighbours along the edges, bit 12·(j-1) + e for indices j,
 * j+1 on edge e. */
struct ebmask {
	uint64_t w[2];
};
/* Neighbours macros put together, all told: S moves 4 pieces a layer,
 * each with at most two neighbours, and X only carries whole edges. */
#define EB_JOINS (EB_CORES * 8 * FREE_MAX_W)
/* States a level: past 16 (32 on 7×7, whose edges are longer) a wider
 * beam costs time and saves nothing (docs/solvers.md). */
#ifndef EB_W
#define EB_W 16
#endif
#ifndef EB_W7
#define EB_W7 32
#endif
/* 8×8, since the beam's S may be a block of up to six layers: 44 states
 * a level, 323.0 moves against 326.6 with 32 (20 states) for 2.45-2.7
 * times the solver's time where 32 took 2.0-2.15 (64: 322.35
 * at 3.0-3.2) */
#ifndef EB_W8
#define EB_W8 44
#endif
/* effort 2 and 3: the widest */
#define EB_WMAX EB_W8
_Static_assert(EB_W8 >= EB_W7 && EB_W8 >= EB_W, "EB_WMAX");
/* from 10×10 on, fewer states a level (10×10 and 11×11: half, from
 * 12×12 an eighth; 10×10 took a quarter until the note at the end of
 * this): a big cube's beam runs many rounds, and the
 * multi-orbit commutators after it take what a narrower one leaves (8
 * states: 10×10 599.9 moves, 12×12 913.8; 4: 603.2 and 917.6 for 12–17 %
 * less time; 12×12 with 2: 929.3 for 13 % less again), where 10×10 and
 * 12×12 had reached 3.1–3.5 times their time before the inside-out
 * centers. With the wide blocks, 8 states on 11×11 665.6 → 645.75 moves
 * at 2.1-2.3 times the solver's time; on 10×10 548.1 → 540.05,
 * but at 2.6-3.0 times it (the solver took only 130-155 ms).
 * Since the branchless pair count and the bars' vectorized scan 10×10
 * takes 8 too: 50 states (20-69), 549.22 → 546.46 moves at about 2.1
 * times (4 a level: 1.9); 16 a level 542.32, but at 3.0 */
/* 5×5 (its edges take twice 4×4's moves, and since the POPCNT clone
 * there is time: 20 states, 3 trials, 90.35 → 89.35 moves at 1.9 times
 * the solver's time; 32 a level 89.75): EB_W5. 4×4 with 32 a
 * level and 3 trials took 52.70 moves, but at 2.7-3.0 times, too near. */
#ifndef EB_W5
#define EB_W5 44
#endif
_Static_assert(EB_WMAX >= EB_W5, "EB_WMAX holds 5×5's beam");
/* 7×7 to 9×9 (longer edges than 6×6's, and time to spare): EB_W7 */
#define EB_WIDTH(n)                                                    \
	((n) == 5               ? EB_W5                                \
	 : (n) == 8             ? EB_W8                                \
	 : (n) >= 7 && (n) <= 9 ? EB_W7                                \
	 : (n) >= 12            ? EB_W / 8                             \
	 : (n) >= 10            ? EB_W / 2                             \
				: EB_W)
/* The first round's width where it differs: 9×9's first 128 levels
 * choose the most, and 44 states there (the later rounds 32) took 300
 * states 388.40 → 387.84 moves for about 13 % more time (2.3 → 2.6
 * times the solver's); later rounds wider gave nothing (10×10:
 * 16 in the first round 544.09 → 543.21 over 220 states, but at 2.95
 * times, too near 3; 16 in the later ones no shorter) */
#define EB_WIDTH_FIRST(n) ((n) == 9 ? EB_W8 : EB_WIDTH(n))
#ifndef EB_FINISH
#define EB_FINISH 5
#endif
/* How near the last level a round's best state must lie for another
 * round (EB_ROUNDS at most) */
#define EB_ROUND_END 16
/* The last round's endings (states with every edge paired) at most
 * EB_END_SLACK moves past the best, EB_ENDS of them, each tried with the
 * 3×3 after it (reduce.c: best_ending); 2 and 3 gave the same lengths
 * on 6×6, 8×8 and 9×9 for 5-15 % more time */
#define EB_ENDS REDUCE_ENDS
#ifndef EB_END_SLACK
#define EB_END_SLACK 1
#endif
/* Even n: what a state with every edge paired costs more when its edges
 * stand an odd permutation from the corners' (the pll_parity stage's six
 * moves, parity.c) */
#ifndef EB_PLL
#define EB_PLL REDUCE_PLL_MOVES
#endif

/* A macro S X S' (its place map and the neighbours it puts together
 * kept apart, in struct ebeam, so that a search step reads little). */
struct ecore {
	/* the neighbours along an edge it parts: bit 12·(j-1) + e for
	 * indices j, j+1 on edge e */
	struct ebmask brk;
	uint32_t join;   /* the first of those it puts together in ebeam */
	uint16_t S;      /* the slice */
	uint8_t xlen;    /* X: 1 (B) or 3 (A B A') moves */
	uint8_t njoin;
	uint8_t cq;      /* X's quarter turns of faces, mod 2 (B's) */
	uint16_t x[3];
};

/* How a state was reached: a face turn, a slice opened with its first
 * X, one more X under the open slice. */
enum { EB_FACE, EB_NEW, EB_MORE };

struct enode {
	uint8_t v[EB_NE]; /* the edges as they are once the slice closes */
	uint8_t pairs;
	uint8_t kind;
	uint8_t plev;     /* the parent's level */
	uint8_t cq;       /* quarter turns of faces since the round began,
			   * mod 2: the corners' parity against then */
	uint16_t open;    /* the open slice, or EB_CLOSED */
	uint16_t move;    /* the face turn, or the macro */
	uint16_t parent;  /* the parent's index in its level */
	uint32_t hash;
};
#define EB_CLOSED 0xffff

#define HV_X 7
#define HV_CORES 6144
#ifndef HV_SETUP2
#define HV_SETUP2 1
#endif
#ifndef HV_PASSES
#define HV_PASSES 8
#endif
struct ebeam {
	int ncore, njoin;
	struct ecore core[EB_CORES];
	/* each macro's map: the sticker that lands on p comes from
	 * src[k][p] */
	uint8_t src[EB_CORES][EB_NE];
	/* the neighbours macros put together: the places their stickers
	 * come from (one's first, the other's first, one's second, the
	 * other's second) */
	uint8_t join[EB_JOINS][4];
	int k[EB_LEVELS];
	/* the pairs a child needs above to enter level c: its last state's
	 * once the level is full, else -1 (kept apart from lev, whose
	 * states lie far apart, for eb_round's inner loop) */
	int bar[EB_LEVELS];
	int w; /* states a level (EB_WIDTH) */
	/* even n (eb_pll_odd): the corners' parity when the round began,
	 * and the edge whose home colours are a and b, home[a][b] (-1: no
	 * edge) */
	int pll, cpar0;
	int8_t home[6][6];
	/* the last round: where it began (moves, wing parities; the cube
	 * in x->scratch) and its endings, best first */
	size_t c0;
	unsigned par0;
	int bs; /* its best score */
	int nends;
	struct {
		uint8_t lev, score;
		uint16_t i;
	} ends[EB_ENDS];
	struct enode lev[EB_LEVELS][EB_WMAX];
	/* reduce__edge_halves: its macros' generators (S, X, S') */
	uint16_t hv[HV_CORES][2 + HV_X];
};

static struct ebeam *ebeam_of(struct ctx *x)
{
	return (struct ebeam *)x->region[REDUCE_R_EDGE_BEAM];
}

/* The multi-orbit wing commutators (n >= MW_MIN_N) work in the same
 * region: past EB_MAX_N it holds only them, below it the beam is done
 * with it by then. */
struct mwork;
static size_t mw_size(void);

size_t reduce__edge_beam_size(int n)
{
	if (!EB_BEAM(n))
		return (mw_size() + 63) & ~(size_t)63;
	return (sizeof(struct ebeam) + 63) & ~(size_t)63;
}

static int is_face_gen(const struct freec *F, int g, int m)
{
	return F->gen[g].lo == F->gen[g].hi &&
	       (F->gen[g].lo == 0 || F->gen[g].lo == m);
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
static void eb_compares(const struct freec *F, struct ebeam *E, int k,
			int n, uint8_t (*at)[3])
{
	int whole[EB_ADJ] = {0};
	struct ecore *C = &E->core[k];
	const uint8_t *src = E->src[k];
	memset(&C->brk, 0, sizeof C->brk);
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
			uint8_t *q = E->join[E->njoin++];
			C->njoin++;
			q[0] = (uint8_t)a0, q[1] = (uint8_t)b0;
			q[2] = src[a[1]], q[3] = src[b[1]];
		}
	for (int k = 0; k < 12 * (n - 3); k++)
		if (!whole[k])
			C->brk.w[k >> 6] |= 1ull << (k & 63);
}

/* Which neighbours along the edges of v are pairs (bits as brk). */
static struct ebmask eb_adj(const struct freec *F, const uint8_t *v, int n)
{
	struct ebmask bits = {{0, 0}};
	for (int e = 0; e < 12; e++)
		for (int j = 1; j < n - 2; j++) {
			const uint16_t *a = F->slot[e][j], *b = F->slot[e][j + 1];
			int k = 12 * (j - 1) + e;
			if (v[a[0]] == v[b[0]] && v[a[1]] == v[b[1]])
				bits.w[k >> 6] |= 1ull << (k & 63);
		}
	return bits;
}

static int popcount64(uint64_t v)
{
	v = v - ((v >> 1) & 0x5555555555555555ull);
	v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
	v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (int)((v * 0x0101010101010101ull) >> 56);
}

static int eb_popcount(struct ebmask m)
{
	return popcount64(m.w[0]) + popcount64(m.w[1]);
}

/* The beam's inner loop (eb_round) weighs every macro on every state,
 * and counting the pairs a macro parts is most of that: where GCC can,
 * it is built twice, once with the POPCNT instruction and once without,
 * and the loader picks the one the processor runs (an ifunc). 20 states
 * of 9×9, alternating runs: 11-15 % less time for the whole solve, the
 * same answers. */
#define EB_CLONES REDUCE_CLONES("popcnt")
#if REDUCE_HAVE_CLONES
#define EB_POPCOUNT(v) __builtin_popcountll(v)
#else
#define EB_POPCOUNT(v) popcount64(v)
#endif

/* The pairs of adj that brk parts. */
static inline int eb_parted(struct ebmask adj, struct ebmask brk)
{
	return EB_POPCOUNT(adj.w[0] & brk.w[0]) +
	       EB_POPCOUNT(adj.w[1] & brk.w[1]);
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

/* Pairs among the neighbours q[0..k) of v. (Both tests made and AND-ed:
 * with && each pair cost a branch the data leaves unpredictable; 9×9
 * takes 10 % less time, bench/RESULTS.md.) */
static int eb_count(const uint8_t *v, uint8_t (*q)[4], int k)
{
	int sc = 0;
	for (int i = 0; i < k; i++)
		sc += (v[q[i][0]] == v[q[i][1]]) & (v[q[i][2]] == v[q[i][3]]);
	return sc;
}

/* Each edge place's (edge, index along it, side), for eb_compares. */
static void eb_places(const struct freec *F, int m, uint8_t (*at)[3])
{
	for (int e = 0; e < 12; e++)
		for (int j = 1; j < m; j++)
			for (int t = 0; t < 2; t++) {
				uint8_t *q = at[F->slot[e][j][t]];
				q[0] = (uint8_t)e, q[1] = (uint8_t)j, q[2] = (uint8_t)t;
			}
}

/* The macros S X S' (S an inner slice or block, X a face turn B of S's
 * axis or A B A'), each with its map on the edge places and the
 * neighbours it parts and joins. */
static void eb_cores(struct ctx *x)
{
	struct freec *F = &x->w->fc;
	struct ebeam *E = ebeam_of(x);
	int m = x->m;
	uint8_t at[EB_NE][3]; /* each edge place's (edge, index, side) */
	eb_places(F, m, at);
	E->ncore = E->njoin = 0;
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
				    E->ncore >= EB_CORES ||
				    E->njoin + EB_ADJ > EB_JOINS)
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
				for (int p = 0; p < F->ne; p++) {
					int q = p;
					for (int i = k - 1; i >= 0; i--)
						q = F->esrc[seq[i]][q];
					E->src[id][p] = (uint8_t)q;
				}
				eb_compares(F, E, id, x->n, at);
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
	L[i].pairs = (uint8_t)pairs;
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
	int n = x->n, ne = F->ne, full = 12 * (n - 3);
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
				int pairs = N->pairs - eb_parted(adj, C->brk);
				if (pairs + C->njoin <= E->bar[to])
					continue;
				pairs += eb_count(N->v, E->join + C->join, C->njoin);
				if (pairs <= E->bar[to])
					continue;
				for (int p = 0; p < ne; p++)
					tmp[p] = N->v[E->src[k][p]];
				how.kind = (uint8_t)(more ? EB_MORE : EB_NEW);
				how.cq = N->cq ^ C->cq;
				how.open = C->S;
				how.move = (uint16_t)k;
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

/* The moves of the path to state i of level lev, emitted in order. */
static int eb_emit(struct ctx *x, int lev, int idx, unsigned *par)
{
	struct freec *F = &x->w->fc;
	struct ebeam *E = ebeam_of(x);
	struct enode path[EB_LEVELS];
	int np = 0, rc;
	for (int d = lev, i = idx; d > 0;) {
		const struct enode *N = &E->lev[d][i];
		path[np++] = *N;
		d = N->plev;
		i = N->parent;
	}
	int open = -1;
	while (np-- > 0) {
		const struct enode *N = &path[np];
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
	return EB_BEAM(x->n) ? ebeam_of(x)->nends : 0;
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

/* The edge beam's leftovers on 9×9 to 12×12 are often the same
 * permutation in every wing orbit on the same places (a 3-cycle: whole
 * half edges move), which the multi-orbit commutators cannot make and
 * the one-orbit 3-cycles make once per orbit, 44-60 moves (8 of the
 * bench's first 18 10×10 states). S X S', S the block of every orbit's
 * slice on one side of an axis (one move) and X = P T P' Q P' Q' P (P,
 * Q faces across S's axis, T a face on it: a 4×4's pairing move), makes
 * such a cycle in 9 moves, and keeps the centers: an outer face turn
 * moves no other face's centers, X turns P and Q by a net of none, and
 * T's centers S never displaced. Both directions of every turn, X or
 * its inverse: 6,144 macros, each made a core of the beam (its map on
 * the edge places, the pairs it parts, the neighbours it joins; in the
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
	eb_places(F, m, at);
	E->ncore = E->njoin = 0;
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
			if (E->ncore >= HV_CORES || E->njoin + EB_ADJ > EB_JOINS)
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
			for (int p = 0; p < ne; p++) {
				int q = p;
				for (int i = 1 + HV_X; i >= 0; i--)
					q = F->esrc[h[i]][q];
				E->src[id][p] = (uint8_t)q;
			}
			E->ncore++;
			eb_compares(F, E, id, n, at);
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
				int pairs = base - eb_parted(adj, C->brk);
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

int reduce__beam_edges(struct ctx *x)
{
	struct freec *F = &x->w->fc;
	int rc, again = 1;
	unsigned par = 0;
	reduce__free_read(x);
	eb_cores(x);
	struct ebeam *E = ebeam_of(x);
	E->w = x->effort > 1 ? EB_WMAX : EB_WIDTH_FIRST(x->n);
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
		if (x->effort <= 1)
			E->w = EB_WIDTH(x->n);
	}
	for (int p = 0; p < F->nc; p++)
		if (F->cur[p] != F->tgt[p])
			return SOLVE_ESTAGE;
	return par ? SOLVE_ESTAGE : 0;
}

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

/* ------------------------------------ multi-orbit wing commutators */

/* From MW_MIN_N on, after the edge beam if it runs. The wing 3-cycle
 * [X, Y], X an inner slice and Y = B A B' (A a face of the slice's
 * axis, B a face across it), moves one wing orbit and nothing else: X
 * and Y share one wing place. X turning several inner slices at once
 * makes a commutator on each of their orbits (an orbit X does not touch
 * sees Y Y'), and it keeps the centers: Y's net turn of them is face
 * A's own, which X never touches (B comes back before X moves again). Each orbit sees only its own
 * slice, so each takes one of six 3-cycles: turned at layer k or at m-k
 * (mirrored places, like the model's K_P and K_MP; never both, and never
 * the middle slice: the midges are the edge set on odd n), a quarter
 * turn, a half turn or a quarter turn back; X' turns each back. A set-up
 * S of face turns acts alike on every orbit, so S [X, Y] S' makes the
 * same six cycles of places available to every orbit, whatever X holds.
 *
 * So each step weighs every set-up of at most MW_DEPTH face turns with
 * every such commutator (3,360 different sixes of 3-cycles, worked out
 * on the wing model), each orbit gaining the wings its cycle puts on
 * their targets less those it takes off; a block of neighbouring layers
 * turned alike is one move, so a small dynamic programme over the orbits
 * finds, for each number of blocks, the choice with the most gain. The
 * step with the most wings per move is made while it costs less than
 * MW_RATE moves a wing; the one-orbit 3-cycles finish (about 4 moves a
 * wing, more for an orbit's last wings, and a commutator's gain is net:
 * 6 gave the shortest answers, 17×17 and 64×64, of 3.5 to 12).
 * Candidates are scanned by a bound on their gain, best first, so a step
 * stops early. A cost counts face turns once merged (a set-up turn on
 * the face the commutator starts or ends with is one turn with it). One
 * face turn of set-up is enough: two gave no shorter answers, for three
 * times the time. The commutators are even on every orbit, so the
 * oll_parity stage's work holds, and each is checked on the cube
 * against what it should do. */
#define MW_ORBITS 63 /* wing orbits of the largest cube */
_Static_assert(MW_ORBITS >= (REDUCE_MAX_N - 2) / 2 && MW_ORBITS < 64,
	       "the orbits as bits of one word");
/* axis pairs · B's face and amount · A's face and amount · both
 * orders */
#define MW_BASES (6 * 2 * 3 * 2 * 3 * 2)
#ifndef MW_DEPTH
#define MW_DEPTH 1
#endif
_Static_assert(MW_DEPTH == 1 || MW_DEPTH == 2, "set-ups sized for 1 or 2");
/* different set-ups: 19 of at most one face turn, 262 of two */
#define MW_SETUPS (MW_DEPTH == 1 ? 19 : 262)
#define MW_HASH 8192
/* each set-up with each commutator: 3,360 different sixes of cycles with
 * at most one face turn */
#define MW_CANDS (MW_SETUPS * MW_BASES)
#define MW_CHASH (MW_DEPTH == 1 ? 1 << 14 : 1 << 18)
#define MW_UB (3 * MW_ORBITS + 1)
#ifndef MW_RUNS
#define MW_RUNS 12 /* blocks of slices a commutator turns, at most */
#endif
#ifndef MW_RATE
#define MW_RATE 6
#endif
#define MW_NEG (-100000)
/* From 9×9 the edge beam leaves wings the commutators pair for less
 * than the 3-cycles (9×9 to 12×12 4 states each, edges 169.3 -> 135.5,
 * 232.8 -> 169.0, 276.3 -> 193.0, 368.3 -> 247.5 moves; up to 8×8 the
 * same answers): past the beam they work in its region, which it no
 * longer needs */
#ifndef MW_MIN_N
#define MW_MIN_N 9
#endif
/* Candidates a step weighs in full, the best bounds first: on 128×128,
 * 256 of the 3,360 gave 1.2 % longer edges (2,633 moves against 2,602)
 * for a third of the time; 17×17 the same answers */
#ifndef MW_SCAN
#define MW_SCAN 256
#endif

/* What an orbit can do in a commutator: nothing, or be turned at layer
 * k or m-k, a quarter turn, a half turn or a quarter turn back (each a
 * different 3-cycle); option o > 0 is layer side (o-1)/3, amount
 * (o-1)%3+1. */
#define MW_OPTS 6

/* A commutator: the 3-cycle it makes on an orbit for each option
 * (t[o-1]), the piece at t[.][0] going to t[.][1], and its moves on the
 * model, the slice at model layer 1, a quarter turn (X) then back (X'). */
struct mwbase {
	uint8_t t[MW_OPTS][3];
	struct smove seq[BASE_LEN];
};

/* A set-up: its face turns (model generators) and where each place the
 * commutator sees was before it (back). */
struct mwsetup {
	uint8_t len;
	uint8_t g[MW_DEPTH];
	uint8_t back[NPOS];
};

/* A set-up with a commutator: the 3-cycles they make, each from its
 * least place (of the pairs that make them, the one with the fewest
 * face turns). */
struct mwcand {
	uint8_t t[MW_OPTS][3];
	uint8_t f; /* its face turns, neighbours on one face merged */
	uint16_t s, b;
};

struct mwork {
	int nb, ns, nc;
	int fmin; /* the fewest face turns of any candidate */
	struct mwbase base[MW_BASES];
	struct mwsetup setup[MW_SETUPS];
	uint16_t hash[MW_HASH]; /* an index + 1, or 0 */
	struct mwcand cand[MW_CANDS];
	uint32_t chash[MW_CHASH]; /* an index + 1, or 0 */
	/* a step's bound of each candidate, and their order by it */
	uint16_t ub[MW_CANDS], order[MW_CANDS];
	int first[MW_UB];
	struct orbit orb[MW_ORBITS + 1];
	uint8_t cur[MW_ORBITS + 1][NPOS], tgt[MW_ORBITS + 1][NPOS];
	/* bit k of match[a][b]: orbit k's piece at a belongs at b */
	uint64_t match[NPOS][NPOS];
};

_Static_assert(sizeof(struct mwork) <= sizeof(struct ebeam),
	       "the commutators fit where the beam was");

static size_t mw_size(void)
{
	return sizeof(struct mwork);
}

static struct smove mw_mv(int axis, int layer, int qt)
{
	struct smove s = {(uint8_t)axis, (uint8_t)layer, (uint8_t)(qt & 3)};
	return s;
}

/* The 3-cycle a sequence of model moves makes, its slice (model layer
 * 1, a quarter turn and back) turned at model layer slice by q quarter
 * turns and back; -1 if it is not one. */
static int mw_cycle(const struct model *M, const struct smove *seq,
		    int slice, int q, uint8_t t[3])
{
	uint8_t perm[NPOS];
	for (int p = 0; p < NPOS; p++)
		perm[p] = (uint8_t)p;
	for (int i = 0; i < BASE_LEN; i++) {
		struct smove v = seq[i];
		if (v.kind == 1)
			v.qt = (uint8_t)(v.qt == 1 ? q : 4 - q);
		int g = reduce__model_gen(M, v.axis, v.kind == 1 ? slice : v.kind,
					  v.qt);
		if (g < 0)
			return -1;
		for (int p = 0; p < NPOS; p++)
			perm[p] = M->perm[g][perm[p]];
	}
	int a = -1, moved = 0;
	for (int p = 0; p < NPOS; p++)
		if (perm[p] != p) {
			moved++;
			if (a < 0)
				a = p;
		}
	if (moved != 3 || perm[perm[perm[a]]] != a)
		return -1;
	t[0] = (uint8_t)a;
	t[1] = perm[a];
	t[2] = perm[perm[a]];
	return 0;
}

static uint32_t mw_hash(const uint8_t *v, int len)
{
	uint32_t h = 2166136261u;
	for (int i = 0; i < len; i++)
		h = (h ^ v[i]) * 16777619u;
	return h;
}

/* The face turns of S C S' (S the set-up u, C the commutator e) once
 * turns of one face next to each other are merged; X's turns apart
 * (they never merge). */
static int mw_faces(const struct model *M, const struct mwsetup *u,
		    const struct mwbase *e)
{
	struct smove seq[2 * MW_DEPTH + BASE_LEN], st[2 * MW_DEPTH + BASE_LEN];
	int n = 0, top = 0, faces = 0;
	for (int i = 0; i < u->len; i++)
		seq[n++] = M->gen[u->g[i]];
	for (int i = 0; i < BASE_LEN; i++)
		seq[n++] = e->seq[i];
	for (int i = u->len - 1; i >= 0; i--) {
		seq[n] = M->gen[u->g[i]];
		seq[n].qt = (uint8_t)((4 - seq[n].qt) & 3);
		n++;
	}
	for (int i = 0; i < n; i++) {
		struct smove *t = top ? &st[top - 1] : NULL;
		if (t && seq[i].kind != 1 && t->kind == seq[i].kind &&
		    t->axis == seq[i].axis) {
			t->qt = (uint8_t)((t->qt + seq[i].qt) & 3);
			if (!t->qt)
				top--;
		} else {
			st[top++] = seq[i];
		}
	}
	for (int i = 0; i < top; i++)
		faces += st[i].kind != 1;
	return faces;
}

/* The commutators and the set-ups, on the wing model. */
static int mw_build(struct ctx *x, struct mwork *W)
{
	const struct model *M = &x->w->model[M_WING];
	int last = M->nm - 1;
	W->nb = 0;
	memset(W->hash, 0, sizeof W->hash);
	for (int A = 0; A < 3; A++)
	for (int B = 0; B < 3; B++) {
		if (A == B)
			continue;
		for (int fb = 0; fb <= last; fb += last)
		for (int b1 = 1; b1 <= 3; b1++)
		for (int fa = 0; fa <= last; fa += last)
		for (int a2 = 1; a2 <= 3; a2++)
		for (int form = 0; form < 2; form++) {
			struct smove X[2] = {mw_mv(A, 1, 1), mw_mv(A, 1, 3)};
			struct smove Y[6] = {
				mw_mv(B, fb, b1), mw_mv(A, fa, a2),
				mw_mv(B, fb, 4 - b1), mw_mv(B, fb, b1),
				mw_mv(A, fa, 4 - a2), mw_mv(B, fb, 4 - b1)};
			struct mwbase *b = &W->base[W->nb];
			struct smove *s = b->seq;
			/* [X, Y] = X Y X' Y', or [Y, X] */
			int at = 0;
			for (int half = 0; half < 2; half++)
				for (int part = 0; part < 2; part++) {
					if ((part == 0) == (form == 0))
						s[at++] = X[half];
					else
						for (int i = 0; i < 3; i++)
							s[at++] = Y[3 * half + i];
				}
			int bad = 0;
			for (int o = 0; o < MW_OPTS; o++)
				bad |= mw_cycle(M, s, 1 + o / 3, o % 3 + 1,
						b->t[o]) < 0;
			if (bad)
				continue;
			uint32_t h = mw_hash(&b->t[0][0], sizeof b->t) % MW_HASH;
			int dup = 0;
			for (; W->hash[h]; h = (h + 1) % MW_HASH)
				if (!memcmp(W->base[W->hash[h] - 1].t, b->t,
					    sizeof b->t)) {
					dup = 1;
					break;
				}
			if (dup)
				continue;
			W->hash[h] = (uint16_t)(W->nb + 1);
			W->nb++;
		}
	}
	if (W->nb == 0)
		return SOLVE_ESTAGE;

	/* set-ups: breadth first over the places' permutations */
	memset(W->hash, 0, sizeof W->hash);
	W->ns = 1;
	W->setup[0].len = 0;
	for (int p = 0; p < NPOS; p++)
		W->setup[0].back[p] = (uint8_t)p;
	W->hash[mw_hash(W->setup[0].back, NPOS) % MW_HASH] = 1;
	for (int head = 0; head < W->ns; head++) {
		if (W->setup[head].len >= MW_DEPTH)
			continue;
		for (int g = 0; g < M->ngen; g++) {
			if (M->gen[g].kind != 0 && M->gen[g].kind != last)
				continue;
			const struct mwsetup *u = &W->setup[head];
			struct mwsetup v;
			v.len = (uint8_t)(u->len + 1);
			memcpy(v.g, u->g, sizeof v.g);
			v.g[u->len] = (uint8_t)g;
			/* before S g, the place now at p was at back[p'],
			 * p' where g found it */
			for (int p = 0; p < NPOS; p++)
				v.back[M->perm[g][p]] = u->back[p];
			uint32_t h = mw_hash(v.back, NPOS) % MW_HASH;
			int dup = 0;
			for (; W->hash[h]; h = (h + 1) % MW_HASH)
				if (!memcmp(W->setup[W->hash[h] - 1].back,
					    v.back, NPOS)) {
					dup = 1;
					break;
				}
			if (dup)
				continue;
			if (W->ns >= MW_SETUPS)
				return SOLVE_ESTAGE;
			W->hash[h] = (uint16_t)(W->ns + 1);
			W->setup[W->ns++] = v;
		}
	}
	/* the different pairs of 3-cycles */
	memset(W->chash, 0, sizeof W->chash);
	W->nc = 0;
	for (int si = 0; si < W->ns; si++)
		for (int b = 0; b < W->nb; b++) {
			struct mwcand v;
			for (int j = 0; j < MW_OPTS; j++) {
				uint8_t u[3];
				int lo = 0;
				for (int i = 0; i < 3; i++) {
					u[i] = W->setup[si].back[W->base[b].t[j][i]];
					if (u[i] < u[lo])
						lo = i;
				}
				for (int i = 0; i < 3; i++)
					v.t[j][i] = u[(lo + i) % 3];
			}
			v.f = (uint8_t)mw_faces(M, &W->setup[si], &W->base[b]);
			v.s = (uint16_t)si;
			v.b = (uint16_t)b;
			uint32_t h = mw_hash(&v.t[0][0], sizeof v.t) % MW_CHASH;
			int dup = 0;
			for (; W->chash[h]; h = (h + 1) % MW_CHASH) {
				struct mwcand *o = &W->cand[W->chash[h] - 1];
				if (!memcmp(o->t, v.t, sizeof v.t)) {
					if (v.f < o->f)
						*o = v;
					dup = 1;
					break;
				}
			}
			if (dup)
				continue;
			if (W->nc >= MW_CANDS)
				return SOLVE_ESTAGE;
			W->chash[h] = (uint32_t)(W->nc + 1);
			W->cand[W->nc++] = v;
		}
	W->fmin = 255;
	for (int i = 0; i < W->nc; i++)
		if (W->cand[i].f < W->fmin)
			W->fmin = W->cand[i].f;
	return 0;
}

/* Orbit k's gain from the 3-cycle t (bits of the match table). */
static int mw_gain(const struct mwork *W, const uint8_t *t, int k)
{
	int a = t[0], b = t[1], c = t[2];
	return (int)((W->match[a][b] >> k & 1) + (W->match[b][c] >> k & 1) +
		     (W->match[c][a] >> k & 1)) -
	       (int)((W->match[a][a] >> k & 1) + (W->match[b][b] >> k & 1) +
		     (W->match[c][c] >> k & 1));
}

/* The best gain for each number of blocks r (1..MW_RUNS) from the
 * orbits 1..K, each taking one of the options (cycles t) or none; with
 * choice non-NULL, which option each orbit takes (0 none) for runs
 * blocks. */
static void mw_dp(const struct mwork *W, int K, const uint8_t (*t)[3],
		  int *best, int runs, uint8_t *choice)
{
	enum { S = MW_OPTS + 1 };
	int dp[S][MW_RUNS + 1], nd[S][MW_RUNS + 1];
	uint8_t from[MW_ORBITS + 1][S][MW_RUNS + 1];
	for (int s = 0; s < S; s++)
		for (int r = 0; r <= MW_RUNS; r++)
			dp[s][r] = s == 0 && r == 0 ? 0 : MW_NEG;
	for (int k = 1; k <= K; k++) {
		int g[S];
		g[0] = 0;
		for (int o = 1; o < S; o++)
			g[o] = mw_gain(W, t[o - 1], k);
		/* none from the best state of as many blocks; s going on,
		 * or a new block from the best other state of one fewer */
		int top[MW_RUNS + 1][2];
		for (int r = 0; r <= MW_RUNS; r++) {
			int b1 = 0, b2 = -1;
			for (int q = 1; q < S; q++)
				if (dp[q][r] > dp[b1][r])
					b2 = b1, b1 = q;
				else if (b2 < 0 || dp[q][r] > dp[b2][r])
					b2 = q;
			top[r][0] = b1;
			top[r][1] = b2;
		}
		for (int r = 0; r <= MW_RUNS; r++)
			for (int s = 0; s < S; s++) {
				int bs = s == 0 ? top[r][0] : s;
				if (s && r > 0) {
					int q = top[r - 1][0] != s ? top[r - 1][0]
								   : top[r - 1][1];
					if (dp[q][r - 1] > dp[bs][r])
						bs = q;
				}
				int bv = dp[bs][s && bs != s ? r - 1 : r];
				nd[s][r] = bv <= MW_NEG ? MW_NEG : bv + g[s];
				from[k][s][r] = (uint8_t)bs;
			}
		memcpy(dp, nd, sizeof dp);
	}
	for (int r = 0; r <= MW_RUNS; r++) {
		best[r] = MW_NEG;
		for (int s = 0; s < S; s++)
			if (dp[s][r] > best[r])
				best[r] = dp[s][r];
	}
	if (!choice)
		return;
	int s = 0;
	for (int q = 1; q < S; q++)
		if (dp[q][runs] > dp[s][runs])
			s = q;
	for (int k = K, r = runs; k >= 1; k--) {
		choice[k] = (uint8_t)s;
		int q = from[k][s][r];
		if (s && q != s)
			r--;
		s = q;
	}
}

/* Bits set (no popcount instruction assumed: libgcc's is a call). */
static inline int mw_pop(uint64_t v)
{
	v = v - (v >> 1 & 0x5555555555555555ull);
	v = (v & 0x3333333333333333ull) + (v >> 2 & 0x3333333333333333ull);
	v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (int)(v * 0x0101010101010101ull >> 56);
}

/* Does some set of blocks beat gain bg for cost bc (cost f plus two
 * moves a block)? Gain less the blocks' cost at that rate, over the
 * orbits where some option gains; between them no option gains (each
 * option's sum there by counts), and a block goes on across them or
 * stops. A quick test before mw_dp. */
static int mw_beats(const struct mwork *W, const uint8_t (*t)[3], int f,
		    int bg, int bc)
{
	uint64_t pos[MW_OPTS][3], neg[MW_OPTS][3], any = 0;
	for (int j = 0; j < MW_OPTS; j++) {
		for (int i = 0; i < 3; i++) {
			int a = t[j][i], b = t[j][(i + 1) % 3];
			pos[j][i] = W->match[a][b];
			neg[j][i] = W->match[a][a];
		}
		/* gains only where none of the three places is right */
		any |= (pos[j][0] | pos[j][1] | pos[j][2]) &
		       ~(neg[j][0] | neg[j][1] | neg[j][2]);
	}
	long dp[MW_OPTS + 1], run = 2L * bg;
	dp[0] = 0;
	for (int j = 1; j <= MW_OPTS; j++)
		dp[j] = MW_NEG;
	int prev = 0;
	for (uint64_t u = any; u; u &= u - 1) {
		int k = __builtin_ctzll(u);
		uint64_t gap = (1ull << k) - (2ull << prev), bit = 1ull << k;
		long best = dp[0];
		for (int j = 1; j <= MW_OPTS; j++)
			if (dp[j] > best)
				best = dp[j];
		dp[0] = best;
		for (int j = 0; j < MW_OPTS; j++) {
			long on = dp[j + 1];
			if (gap)
				on += (long)bc * (mw_pop(pos[j][0] & gap) +
						  mw_pop(pos[j][1] & gap) +
						  mw_pop(pos[j][2] & gap) -
						  mw_pop(neg[j][0] & gap) -
						  mw_pop(neg[j][1] & gap) -
						  mw_pop(neg[j][2] & gap));
			if (on < best - run)
				on = best - run;
			int g = 0;
			for (int i = 0; i < 3; i++)
				g += !!(pos[j][i] & bit) - !!(neg[j][i] & bit);
			dp[j + 1] = on + (long)g * bc;
		}
		prev = k;
	}
	long v = dp[0];
	for (int j = 1; j <= MW_OPTS; j++)
		if (dp[j] > v)
			v = dp[j];
	return v > (long)bg * f;
}

/* A face turn of the wing model (layer 0 or its last) made on the cube,
 * qt quarter turns. */
static int mw_emit_face(struct ctx *x, const struct model *M,
			struct smove g, int qt)
{
	return emit(x, g.axis, g.kind == M->nm - 1 ? x->m : 0, qt);
}

/* One commutator step: the best, made if it costs less than MW_RATE
 * moves a wing; *done when none does. */
static int mw_step(struct ctx *x, struct mwork *W, int K, int *done)
{
	const struct model *M = &x->w->model[M_WING];
	int m = x->m;
	memset(W->match, 0, sizeof W->match);
	for (int k = 1; k <= K; k++) {
		int where[36];
		for (int i = 0; i < 36; i++)
			where[i] = -1;
		for (int i = 0; i < NPOS; i++)
			where[W->tgt[k][i]] = i;
		for (int a = 0; a < NPOS; a++)
			if (where[W->cur[k][a]] >= 0)
				W->match[a][where[W->cur[k][a]]] |= 1ull << k;
	}
	/* the candidates by their bound (the wings their cycles could put
	 * right), highest first, so that the scan stops early */
	int bs = -1, br = 0, bg = 1, bc = MW_RATE, tried = 0;
	int gr[MW_RUNS + 1];
	memset(W->first, 0, sizeof W->first);
	for (int i = 0; i < W->nc; i++) {
		/* the orbits where some option gains at least 1, 2, 3 */
		uint64_t g1 = 0, g2 = 0, g3 = 0;
		for (int j = 0; j < MW_OPTS; j++) {
			const uint8_t *t = W->cand[i].t[j];
			const uint64_t *a = W->match[t[0]], *b = W->match[t[1]],
				       *c = W->match[t[2]];
			/* an orbit with one of the three places right
			 * gains nothing: the piece there belongs nowhere
			 * else, and none other belongs there */
			uint64_t clean = ~(a[t[0]] | b[t[1]] | c[t[2]]);
			uint64_t x1 = a[t[1]] & clean, x2 = b[t[2]] & clean,
				 x3 = c[t[0]] & clean;
			g1 |= x1 | x2 | x3;
			g2 |= (x1 & x2) | (x1 & x3) | (x2 & x3);
			g3 |= x1 & x2 & x3;
		}
		int ub = mw_pop(g1) + mw_pop(g2) + mw_pop(g3);
		W->ub[i] = (uint16_t)ub;
		W->first[MW_UB - 1 - ub]++;
	}
	for (int u = 0, at = 0; u < MW_UB; u++) {
		int c = W->first[u];
		W->first[u] = at;
		at += c;
	}
	for (int i = 0; i < W->nc; i++)
		W->order[W->first[MW_UB - 1 - W->ub[i]]++] = (uint16_t)i;
	for (int j = 0; j < W->nc; j++) {
		int i = W->order[j], ub = W->ub[i];
		const struct mwcand *v = &W->cand[i];
		int f = v->f;
		if (ub * bc <= bg * (W->fmin + 2))
			break; /* nor any after it */
		if (ub * bc <= bg * (f + 2))
			continue;
		if (++tried > MW_SCAN)
			break;
		if (!mw_beats(W, v->t, f, bg, bc))
			continue;
		mw_dp(W, K, v->t, gr, 0, NULL);
		for (int r = 1; r <= MW_RUNS; r++) {
			/* the most wings per move; of as many, the most
			 * wings */
			int d = gr[r] * bc - bg * (f + 2 * r);
			if (gr[r] <= 0 || d < 0 || (d == 0 && gr[r] <= bg))
				continue;
			bg = gr[r], bc = f + 2 * r;
			bs = i, br = r;
		}
	}
	if (bs < 0) {
		*done = 1;
		return 0;
	}

	const struct mwcand *v = &W->cand[bs];
	const struct mwsetup *u = &W->setup[v->s];
	const struct mwbase *e = &W->base[v->b];
	const uint8_t(*t)[3] = v->t;
	uint8_t choice[MW_ORBITS + 1];
	mw_dp(W, K, t, gr, br, choice);
	int rc;
	for (int i = 0; i < u->len; i++)
		if ((rc = mw_emit_face(x, M, M->gen[u->g[i]],
				       M->gen[u->g[i]].qt)) < 0)
			return rc;
	for (int i = 0; i < BASE_LEN; i++) {
		struct smove g = e->seq[i];
		if (g.kind != 1) {
			if ((rc = mw_emit_face(x, M, g, g.qt)) < 0)
				return rc;
			continue;
		}
		/* X: each block of orbits turned alike, as layers
		 * (X' the same blocks turned back) */
		for (int k = 1; k <= K; k++) {
			int o = choice[k];
			if (!o || (k > 1 && choice[k - 1] == o))
				continue;
			int j = k, side = (o - 1) / 3, q = (o - 1) % 3 + 1;
			while (j < K && choice[j + 1] == o)
				j++;
			int lo = side == 0 ? k : m - j;
			int hi = side == 0 ? j : m - k;
			if ((rc = emit_block(x, g.axis, lo, hi,
					     g.qt == 1 ? q : 4 - q)) < 0)
				return rc;
		}
	}
	for (int i = u->len - 1; i >= 0; i--)
		if ((rc = mw_emit_face(x, M, M->gen[u->g[i]],
				       4 - M->gen[u->g[i]].qt)) < 0)
			return rc;
	for (int k = 1; k <= K; k++) {
		uint8_t *cur = W->cur[k], now[NPOS];
		if (choice[k]) {
			const uint8_t *c = t[choice[k] - 1];
			uint8_t v = cur[c[2]];
			cur[c[2]] = cur[c[1]];
			cur[c[1]] = cur[c[0]];
			cur[c[0]] = v;
		}
		reduce__read_orbit(x, &W->orb[k], now);
		if (memcmp(now, cur, NPOS) != 0)
			return SOLVE_ESTAGE;
	}
	return 0;
}

int reduce__pair_all(struct ctx *x, const int8_t *e_of3,
		     uint8_t ecol[12][2])
{
	int K = wing_orbits(x->n), rc;
	if (x->n >= MW_MIN_N) {
		/* the commutators on many orbits first, then each orbit's
		 * 3-cycles on what they leave */
		struct mwork *W = (struct mwork *)x->region[REDUCE_R_EDGE_BEAM];
		if ((rc = mw_build(x, W)) < 0)
			return rc;
		for (int k = 1; k <= K; k++) {
			reduce__wing_orbit(x, &W->orb[k], k);
			reduce__read_orbit(x, &W->orb[k], W->cur[k]);
			reduce__wing_targets(x, &W->orb[k], e_of3, ecol,
					     W->tgt[k]);
		}
		for (int done = 0; !done;) {
			if (poll_now(x))
				return SOLVE_ENOTFOUND;
			if ((rc = mw_step(x, W, K, &done)) < 0)
				return rc;
		}
		for (int k = 1; k <= K; k++) {
			if (poll_now(x))
				return SOLVE_ENOTFOUND;
			long r = reduce__solve_orbit(x, &W->orb[k], W->cur[k],
						     W->tgt[k]);
			if (r < 0)
				return (int)r;
		}
		return 0;
	}
	for (int k = 1; k <= K; k++) {
		struct orbit o;
		uint8_t cur[NPOS], tgt[NPOS];
		reduce__wing_orbit(x, &o, k);
		reduce__read_orbit(x, &o, cur);
		reduce__wing_targets(x, &o, e_of3, ecol, tgt);
		if (poll_now(x))
			return SOLVE_ENOTFOUND;
		long r = reduce__solve_orbit(x, &o, cur, tgt);
		if (r < 0)
			return (int)r;
	}
	return 0;
}
