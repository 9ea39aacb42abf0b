/* four.c — 4×4 by three phases (the shape of Tsai's method as TPR-4x4x4
 * uses it; docs/solvers.md, "4×4 in three phases"): the reduction in
 * about 25 block turns where the stage-by-stage one takes 35.
 *
 *   phase 1  the U and D centre pieces onto U and D (any block turn);
 *   phase 2  the U/D split into one of the 12 phase 3 can solve, the L/R
 *            pieces onto L and R, and the wings into two classes: every
 *            edge's two wings one in each class under some labeling
 *            (which wing of an edge counts as class A) with an even
 *            number of swapped edges, the wing permutation even (turns
 *            that keep the U/D pieces on U and D);
 *   phase 3  centres solved, every edge paired, no PLL parity, in the
 *            turns that keep the classes: quarter turns of the outer R,
 *            L, F, B layers, half turns of everything else.
 *
 * Each phase is an IDA* search over tables built once from the cube
 * model's own turns (reduce_four_tables_build; 143 MB, 120 MB of it the
 * pairing table). Pure C11: no allocation, no globals but const data.
 */
#include <string.h>

#include "cubie_internal.h"
#include "solve_internal.h"

#include "nibbles.h"
#include "phases.h"
#include "reduced3x3.h"

/* ---- sizes ------------------------------------------------------------ */

#define F_MOVES 81            /* block turns of a 4×4 but the whole cube */
#define F1_N 735471u          /* C(24,8): U/D pieces' places */
#define F2C_N (70u * 12870u)  /* U/D split × L/R pieces' places */
#define F2W_N (1u << 25)      /* class-A wings' places (a 24-bit mask)
                                * × wing parity, 4 bits each */
#define F2W_BYTES (F2W_N / 2)
#define F3C_N (70u * 70u * 70u) /* the three splits */
#define F3P_PERMS 239500800u  /* even permutations of 12 */
#define F3P_N (2ull * F3P_PERMS) /* × PLL parity */
#define F3P_BYTES ((size_t)(F3P_N / 4))
#define F3P_EXACT 9           /* depths up to this exact, deeper "10+" */
#define F3P_QUEUE 12600000u   /* states of depth 0 … F3P_EXACT - 1
			       * (12,547,604) */
#define F_UNSEEN 255

/* The tables' header (solve__seal). Raise the version whenever what the
 * tables hold changes, so that no server loads an older build's file of
 * the same size; the test four_tables_census pins every table's counts
 * by depth. */
static const char four_magic[8] = {'c', 'u', 'b', 'e', 'd', '4', 'T', 'P'};
#define FOUR_VERSION 1u

struct fmove {
	uint8_t axis, lo, hi, qt;
	uint8_t g2, g3;     /* in phase 2's set, phase 3's */
	uint8_t cq;         /* turns an outer layer a quarter: odd corners */
	uint8_t wpar;       /* the wing permutation's parity */
	uint8_t t;          /* phase 3: the PLL bit's change */
	uint8_t ord;        /* axis * 16 + lo * 4 + hi: same-axis order */
	uint8_t cp[24];     /* centre piece at place i goes to cp[i] */
	uint8_t wp[24];     /* wing at slot w goes to wp[w] */
	uint8_t pa[12];     /* phase 3: class-A slot of edge e → edge pa[e] */
	uint8_t pbinv[12];  /* phase 3: inverse of the class-B action */
};

struct fmodel {
	struct fmove mv[F_MOVES];
	uint8_t cpos[24][3];   /* centre place → face, row, col */
	uint8_t wst[24][2][3]; /* wing slot → its two stickers */
	uint8_t wedge[24];     /* slot → edge */
	uint8_t cls[24];       /* slot's class: 1 = A */
	uint8_t aslot[12], bslot[12];
	uint8_t home[24][6][6]; /* slot, colours on its two stickers →
				 * the wing's home slot (255 none): a
				 * wing sits in a slot one way only */
	uint32_t goal1, goal2c, goal3c; /* masks of the solved state */
	uint32_t udpos;        /* U and D places */
	uint8_t udlist[8], lrlist[16]; /* U/D places; the others */
	uint8_t rllist[8], fblist[8];
	uint8_t ud12[70];      /* U/D splits phase 3 can solve (1) */
	uint8_t g2list[F_MOVES], g3list[F_MOVES];
	int ng2, ng3;
	uint8_t pop12[4096];   /* bits set in a 12-bit value */
};

/* Layout of the tables blob. */
#define OFF_MODEL ((size_t)SOLVE__HEADER)
#define OFF_T1 ((OFF_MODEL + sizeof(struct fmodel) + 63) & ~(size_t)63)
#define OFF_T2C (OFF_T1 + ((F1_N + 63) & ~63u))
#define OFF_T2W (OFF_T2C + ((F2C_N + 63) & ~63u))
#define OFF_T3C (OFF_T2W + F2W_BYTES)
#define F3K_N 58800u         /* phase 3's reachable centres */
#define OFF_T3K (OFF_T3C + ((F3C_N + 63) & ~63u))  /* uint16 [F3C_N] */
#define OFF_T3M (OFF_T3K + ((2 * F3C_N + 63) & ~63u)) /* uint16 [F3K_N][35] */
#define OFF_T3D (OFF_T3M + ((2 * F3K_N * 35 + 63) & ~63u)) /* [F3K_N] */
#define OFF_T3P (OFF_T3D + ((F3K_N + 63) & ~63u))
#define FOUR_SIZE (OFF_T3P + F3P_BYTES)

size_t reduce_four_tables_size(void)
{
	return FOUR_SIZE;
}

/* ---- combinations and permutations ------------------------------------ */

/* C(n, k) for n < 25, k < 13 */
static const uint32_t binoms[25][13] = {
	{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
	{1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
	{1, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
	{1, 3, 3, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0},
	{1, 4, 6, 4, 1, 0, 0, 0, 0, 0, 0, 0, 0},
	{1, 5, 10, 10, 5, 1, 0, 0, 0, 0, 0, 0, 0},
	{1, 6, 15, 20, 15, 6, 1, 0, 0, 0, 0, 0, 0},
	{1, 7, 21, 35, 35, 21, 7, 1, 0, 0, 0, 0, 0},
	{1, 8, 28, 56, 70, 56, 28, 8, 1, 0, 0, 0, 0},
	{1, 9, 36, 84, 126, 126, 84, 36, 9, 1, 0, 0, 0},
	{1, 10, 45, 120, 210, 252, 210, 120, 45, 10, 1, 0, 0},
	{1, 11, 55, 165, 330, 462, 462, 330, 165, 55, 11, 1, 0},
	{1, 12, 66, 220, 495, 792, 924, 792, 495, 220, 66, 12, 1},
	{1, 13, 78, 286, 715, 1287, 1716, 1716, 1287, 715, 286, 78, 13},
	{1, 14, 91, 364, 1001, 2002, 3003, 3432, 3003, 2002, 1001, 364, 91},
	{1, 15, 105, 455, 1365, 3003, 5005, 6435, 6435, 5005, 3003, 1365, 455},
	{1, 16, 120, 560, 1820, 4368, 8008, 11440, 12870, 11440, 8008, 4368, 1820},
	{1, 17, 136, 680, 2380, 6188, 12376, 19448, 24310, 24310, 19448, 12376, 6188},
	{1, 18, 153, 816, 3060, 8568, 18564, 31824, 43758, 48620, 43758, 31824, 18564},
	{1, 19, 171, 969, 3876, 11628, 27132, 50388, 75582, 92378, 92378, 75582, 50388},
	{1, 20, 190, 1140, 4845, 15504, 38760, 77520, 125970, 167960, 184756, 167960, 125970},
	{1, 21, 210, 1330, 5985, 20349, 54264, 116280, 203490, 293930, 352716, 352716, 293930},
	{1, 22, 231, 1540, 7315, 26334, 74613, 170544, 319770, 497420, 646646, 705432, 646646},
	{1, 23, 253, 1771, 8855, 33649, 100947, 245157, 490314, 817190, 1144066, 1352078, 1352078},
	{1, 24, 276, 2024, 10626, 42504, 134596, 346104, 735471, 1307504, 1961256, 2496144, 2704156},
};

static inline uint32_t binom(int n, int k)
{
	return k < 0 || k > 12 ? 0 : binoms[n][k];
}

/* Rank of a k-subset (bits of m, below 24) among all k-subsets of 24 in
 * colexicographic order. */
static uint32_t comb_rank(uint32_t m)
{
	uint32_t r = 0;
	int k = 0;
	while (m) {
		int i = __builtin_ctz(m);
		m &= m - 1;
		k++;
		r += binom(i, k);
	}
	return r;
}

static uint32_t comb_unrank(uint32_t r, int k)
{
	uint32_t m = 0;
	for (int i = 23; i >= 0 && k > 0; i--) {
		uint32_t b = binom(i, k);
		if (r >= b) {
			r -= b;
			m |= 1u << i;
			k--;
		}
	}
	return m;
}

static inline uint32_t perm_mask(uint32_t m, const uint8_t *p)
{
	uint32_t t = 0;
	while (m) {
		int i = __builtin_ctz(m);
		m &= m - 1;
		t |= 1u << p[i];
	}
	return t;
}

/* The places of mask m listed in list (k of them) as a k-bit mask. */
static inline uint32_t squeeze(uint32_t m, const uint8_t *list, int k)
{
	uint32_t s = 0;
	for (int i = 0; i < k; i++)
		s |= (m >> list[i] & 1u) << i;
	return s;
}

/* Ranks of 4-subsets of 8 (70) and of 8-subsets of 16 (12,870) by their
 * squeezed masks, as colexicographic ranks. */
static inline uint32_t small_rank(uint32_t s)
{
	return comb_rank(s);
}

static int parity_n(const uint8_t *p, int k)
{
	int odd = 0;
	for (int i = 0; i < k; i++)
		for (int j = i + 1; j < k; j++)
			odd ^= p[i] > p[j];
	return odd;
}

static const uint32_t fact12[13] = {1, 1, 2, 6, 24, 120, 720, 5040, 40320,
				    362880, 3628800, 39916800, 479001600};

/* Rank of an even permutation of 12 in [0, 12!/2): its Lehmer rank
 * halved (the last two places follow from the parity); pop: bits set
 * in each 12-bit value. */
static inline uint32_t even_rank(const uint8_t *p, const uint8_t *pop)
{
	uint32_t used = 0, r = 0;
	for (int i = 0; i < 10; i++) {
		uint32_t v = p[i];
		r += (v - pop[used & ((1u << v) - 1)]) * fact12[11 - i];
		used |= 1u << v;
	}
	return r >> 1;
}

static void even_unrank(uint32_t r, uint8_t *p)
{
	uint32_t x = r << 1, used = 0;
	for (int i = 0; i < 12; i++) {
		uint32_t d = x / fact12[11 - i];
		x %= fact12[11 - i];
		for (int v = 0; v < 12; v++) {
			if (used >> v & 1)
				continue;
			if (d-- == 0) {
				p[i] = (uint8_t)v;
				used |= 1u << v;
				break;
			}
		}
	}
	if (parity_n(p, 12)) {
		uint8_t t = p[10];
		p[10] = p[11];
		p[11] = t;
	}
}

/* 2-bit entries of the pairing table. */
static inline int p3_get(const uint8_t *t, uint64_t i)
{
	return t[i >> 2] >> ((i & 3) * 2) & 3;
}

static inline void p3_set(uint8_t *t, uint64_t i, int v)
{
	uint8_t *b = &t[i >> 2];
	int s = (int)(i & 3) * 2;
	*b = (uint8_t)((*b & ~(3 << s)) | v << s);
}

/* ---- the model -------------------------------------------------------- */

static int sticker(int f, int r, int c)
{
	return f * 16 + r * 4 + c;
}

/* Label every sticker of a 4×4 with its index (plus 16, above the
 * colours), turn, and read where each came from. */
static void turned_labels(cube_t *t, int axis, int lo, int hi, int qt,
			  uint8_t src[96])
{
	cube_init(t, 4);
	for (int f = 0; f < 6; f++)
		for (int r = 0; r < 4; r++)
			for (int c = 0; c < 4; c++)
				cube__set(t, f, r, c, 16 + sticker(f, r, c));
	cube_turn(t, axis, lo, hi, qt);
	for (int f = 0; f < 6; f++)
		for (int r = 0; r < 4; r++)
			for (int c = 0; c < 4; c++)
				src[sticker(f, r, c)] =
					(uint8_t)(cube_get(t, f, r, c) - 16);
}

static int model_build(struct fmodel *M, cube_t *t)
{
	memset(M, 0, sizeof *M);
	int cidx[96];
	int nc = 0;
	for (int i = 0; i < 96; i++)
		cidx[i] = -1;
	for (int f = 0; f < 6; f++)
		for (int r = 1; r <= 2; r++)
			for (int c = 1; c <= 2; c++) {
				cidx[sticker(f, r, c)] = nc;
				M->cpos[nc][0] = (uint8_t)f;
				M->cpos[nc][1] = (uint8_t)r;
				M->cpos[nc][2] = (uint8_t)c;
				nc++;
			}
	/* wing slots: each edge's two, named by the corner they are next
	 * to; sticker [0] on the edge's first facelet's face */
	int wsl[24][2], nw = 0;
	for (int e = 0; e < 12; e++) {
		int fa = cubie__edge_facelet[e][0], fb = cubie__edge_facelet[e][1];
		for (int k = 0; k < 8; k++) {
			int ca = -1, cb = -1;
			for (int j = 0; j < 3; j++) {
				int f = cubie__corner_facelet[k][j];
				if (f / 9 == fa / 9)
					ca = f;
				if (f / 9 == fb / 9)
					cb = f;
			}
			if (ca < 0 || cb < 0)
				continue;
			if (nw >= 24)
				return -1;
			int ef[2] = {fa, fb}, cf[2] = {ca, cb};
			for (int s = 0; s < 2; s++) {
				int f = ef[s] / 9, r3 = ef[s] % 9 / 3, c3 = ef[s] % 3;
				int cr = cf[s] % 9 / 3, cc = cf[s] % 3, r, c;
				if (r3 == 1) {
					c = c3 == 0 ? 0 : 3;
					r = cr == 0 ? 1 : 2;
				} else {
					r = r3 == 0 ? 0 : 3;
					c = cc == 0 ? 1 : 2;
				}
				wsl[nw][s] = sticker(f, r, c);
				M->wst[nw][s][0] = (uint8_t)f;
				M->wst[nw][s][1] = (uint8_t)r;
				M->wst[nw][s][2] = (uint8_t)c;
			}
			M->wedge[nw] = (uint8_t)e;
			nw++;
		}
	}
	if (nw != 24)
		return -1;
	uint8_t src[96], wo[F_MOVES][24];
	int nm = 0;
	for (int a = 0; a < 3; a++)
		for (int lo = 0; lo < 4; lo++)
			for (int hi = lo; hi < 4; hi++)
				for (int q = 1; q <= 3; q++) {
					if (lo == 0 && hi == 3)
						continue;
					struct fmove *g = &M->mv[nm++];
					g->axis = (uint8_t)a;
					g->lo = (uint8_t)lo;
					g->hi = (uint8_t)hi;
					g->qt = (uint8_t)q;
					g->ord = (uint8_t)(a * 16 + lo * 4 + hi);
					turned_labels(t, a, lo, hi, q, src);
					for (int i = 0; i < 24; i++) {
						int p = sticker(M->cpos[i][0],
								M->cpos[i][1],
								M->cpos[i][2]);
						g->cp[cidx[src[p]]] = (uint8_t)i;
					}
					for (int w = 0; w < 24; w++) {
						int from = src[wsl[w][0]], fw = -1;
						for (int v = 0; v < 24; v++)
							for (int k2 = 0; k2 < 2; k2++)
								if (wsl[v][k2] == from) {
									fw = v;
									wo[nm - 1][v] = (uint8_t)k2;
								}
						if (fw < 0)
							return -1;
						g->wp[fw] = (uint8_t)w;
					}
					g->wpar = (uint8_t)parity_n(g->wp, 24);
					g->cq = (lo == 0 || hi == 3) && q != 2;
					int outer = lo == hi && (lo == 0 || lo == 3);
					g->g2 = a == CUBE_Y || outer || q == 2;
					g->g3 = q == 2 || (outer && a != CUBE_Y);
				}
	/* where each wing can sit and which way round (its first
	 * sticker on the slot's first or second): breadth-first over the
	 * turns from its home */
	memset(M->home, 255, sizeof M->home);
	for (int h = 0; h < 24; h++) {
		int8_t way[24];
		uint8_t q[24];
		int qh = 0, qt = 0;
		memset(way, -1, sizeof way);
		way[h] = 0;
		q[qt++] = (uint8_t)h;
		while (qh < qt) {
			int v = q[qh++];
			for (int k = 0; k < F_MOVES; k++) {
				int v2 = M->mv[k].wp[v];
				int o = way[v] ^ wo[k][v];
				if (way[v2] < 0) {
					way[v2] = (int8_t)o;
					q[qt++] = (uint8_t)v2;
				} else if (way[v2] != o) {
					return -1; /* a wing flipped in place */
				}
			}
		}
		int a = wsl[h][0] / 16, b = wsl[h][1] / 16;
		for (int v = 0; v < 24; v++) {
			if (way[v] < 0)
				return -1;
			int x0 = way[v] ? b : a, x1 = way[v] ? a : b;
			if (M->home[v][x0][x1] != 255)
				return -1; /* two wings alike in a slot */
			M->home[v][x0][x1] = (uint8_t)h;
		}
	}
	/* the classes: the orbits of phase 3's turns on the slots */
	uint8_t par[24];
	for (int i = 0; i < 24; i++)
		par[i] = (uint8_t)i;
	for (int k = 0; k < F_MOVES; k++) {
		if (!M->mv[k].g3)
			continue;
		for (int w = 0; w < 24; w++) {
			int x = w, y = M->mv[k].wp[w];
			while (par[x] != x)
				x = par[x];
			while (par[y] != y)
				y = par[y];
			if (x != y)
				par[x] = (uint8_t)y;
		}
	}
	int root0 = 0;
	while (par[root0] != root0)
		root0 = par[root0];
	int na = 0;
	for (int w = 0; w < 24; w++) {
		int x = w;
		while (par[x] != x)
			x = par[x];
		M->cls[w] = x == root0;
		na += M->cls[w];
		if (M->cls[w])
			M->aslot[M->wedge[w]] = (uint8_t)w;
		else
			M->bslot[M->wedge[w]] = (uint8_t)w;
	}
	if (na != 12)
		return -1;
	for (int k = 0; k < F_MOVES; k++) {
		struct fmove *g = &M->mv[k];
		if (!g->g3)
			continue;
		uint8_t pb[12];
		for (int e = 0; e < 12; e++) {
			if (!M->cls[g->wp[M->aslot[e]]])
				return -1; /* a phase-3 turn keeps classes */
			g->pa[e] = M->wedge[g->wp[M->aslot[e]]];
			pb[e] = M->wedge[g->wp[M->bslot[e]]];
		}
		for (int e = 0; e < 12; e++)
			g->pbinv[pb[e]] = (uint8_t)e;
		g->t = (uint8_t)(parity_n(g->pa, 12) ^ g->cq);
	}
	int nud = 0, nlr = 0, nrl = 0, nfb = 0;
	for (int i = 0; i < 24; i++) {
		int f = M->cpos[i][0];
		if (f == 0 || f == 3) {
			M->goal1 |= 1u << i;
			M->udlist[nud++] = (uint8_t)i;
		} else {
			M->lrlist[nlr++] = (uint8_t)i;
		}
		if (f == 1 || f == 4) {
			M->goal2c |= 1u << i;
			M->rllist[nrl++] = (uint8_t)i;
		}
		if (f == 2 || f == 5)
			M->fblist[nfb++] = (uint8_t)i;
		if (f < 3)
			M->goal3c |= 1u << i;
	}
	M->udpos = M->goal1;
	for (int k = 0; k < F_MOVES; k++) {
		if (M->mv[k].g2)
			M->g2list[M->ng2++] = (uint8_t)k;
		if (M->mv[k].g3)
			M->g3list[M->ng3++] = (uint8_t)k;
	}
	for (int v = 0; v < 4096; v++)
		M->pop12[v] = (uint8_t)__builtin_popcount((unsigned)v);
	return 0;
}

/* ---- coordinates ------------------------------------------------------ */

static inline uint32_t c2_index(const struct fmodel *M, uint32_t u,
				uint32_t l)
{
	return small_rank(squeeze(u, M->udlist, 8)) * 12870u +
	       small_rank(squeeze(l, M->lrlist, 16));
}

/* Phase 3's centres: U pieces among the U/D places, R among R/L, F among
 * F/B (each a 4 of 8). */
static inline uint32_t c3_index(const struct fmodel *M, uint32_t m)
{
	return (small_rank(squeeze(m, M->udlist, 8)) * 70u +
		small_rank(squeeze(m, M->rllist, 8))) * 70u +
	       small_rank(squeeze(m, M->fblist, 8));
}

/* ---- table builds ----------------------------------------------------- */

/* Breadth-first over the U/D pieces' places (8 of 24, by comb_rank) in
 * every turn. */
static void bfs_c1(const struct fmodel *M, uint8_t *d, uint32_t *queue)
{
	memset(d, F_UNSEEN, F1_N);
	uint32_t qh = 0, qt = 0;
	d[comb_rank(M->goal1)] = 0;
	queue[qt++] = M->goal1;
	while (qh < qt) {
		uint32_t m = queue[qh++];
		uint8_t ds = d[comb_rank(m)];
		for (int k = 0; k < F_MOVES; k++) {
			uint32_t m2 = perm_mask(m, M->mv[k].cp), i2 = comb_rank(m2);
			if (d[i2] == F_UNSEEN) {
				d[i2] = (uint8_t)(ds + 1);
				queue[qt++] = m2;
			}
		}
	}
}

/* Phase 2's wings: the class-A wings' slots and the wing parity, from
 * every A wing in an A slot, in phase 2's turns; 15 unreached. */
static int bfs_w2(const struct fmodel *M, uint8_t *t, uint32_t amask,
		  uint32_t *queue, const reduce_limits *lim)
{
	memset(t, 0xff, F2W_BYTES);
	uint32_t qh = 0, qt = 0;
	nib_set(t, amask << 1, 0);
	queue[qt++] = amask << 1;
	while (qh < qt) {
		if ((qh & 0xffff) == 0 && lim && lim->poll &&
		    lim->poll(lim->ctx, 0, 0))
			return SOLVE_ENOTFOUND;
		uint32_t s = queue[qh++], m = s >> 1, p = s & 1;
		int ds = nib_get(t, s);
		for (int k = 0; k < F_MOVES; k++) {
			const struct fmove *g = &M->mv[k];
			if (!g->g2)
				continue;
			uint32_t s2 = perm_mask(m, g->wp) << 1 | (p ^ g->wpar);
			if (nib_get(t, s2) == 15) {
				nib_set(t, s2, ds + 1);
				queue[qt++] = s2;
			}
		}
	}
	return 0;
}

/* Phase 2's centres from the goals (every U/D split phase 3 solves, the
 * L/R pieces home) in phase 2's turns; marks ud12 on the way. */
static void bfs_c2(struct fmodel *M, uint8_t *d, const uint8_t *d3c,
		   uint32_t *queue)
{
	memset(d, F_UNSEEN, F2C_N);
	uint32_t qh = 0, qt = 0;
	/* phase 3's reachable splits: U among U/D in any reachable c3 */
	for (uint32_t i = 0; i < F3C_N; i++)
		if (d3c[i] != F_UNSEEN)
			M->ud12[i / 4900] = 1;
	for (uint32_t su = 0; su < 256; su++) {
		if (__builtin_popcount(su) != 4 || !M->ud12[small_rank(su)])
			continue;
		uint32_t u = 0;
		for (int i = 0; i < 8; i++)
			if (su >> i & 1)
				u |= 1u << M->udlist[i];
		uint32_t id = c2_index(M, u, M->goal2c);
		d[id] = 0;
		queue[2 * qt] = u;
		queue[2 * qt + 1] = M->goal2c;
		qt++;
	}
	while (qh < qt) {
		uint32_t u = queue[2 * qh], l = queue[2 * qh + 1];
		uint8_t ds = d[c2_index(M, u, l)];
		qh++;
		for (int k = 0; k < F_MOVES; k++) {
			const struct fmove *g = &M->mv[k];
			if (!g->g2)
				continue;
			uint32_t u2 = perm_mask(u, g->cp), l2 = perm_mask(l, g->cp);
			uint32_t id = c2_index(M, u2, l2);
			if (d[id] == F_UNSEEN) {
				d[id] = (uint8_t)(ds + 1);
				queue[2 * qt] = u2;
				queue[2 * qt + 1] = l2;
				qt++;
			}
		}
	}
}

static void bfs_c3(const struct fmodel *M, uint8_t *d, uint32_t *queue)
{
	memset(d, F_UNSEEN, F3C_N);
	uint32_t qh = 0, qt = 0;
	d[c3_index(M, M->goal3c)] = 0;
	queue[qt++] = M->goal3c;
	while (qh < qt) {
		uint32_t m = queue[qh++];
		uint8_t ds = d[c3_index(M, m)];
		for (int k = 0; k < F_MOVES; k++) {
			const struct fmove *g = &M->mv[k];
			if (!g->g3)
				continue;
			uint32_t m2 = perm_mask(m, g->cp), id = c3_index(M, m2);
			if (d[id] == F_UNSEEN) {
				d[id] = (uint8_t)(ds + 1);
				queue[qt++] = m2;
			}
		}
	}
}

/* The mask of a phase-3 centre index (the inverse of c3_index). */
static uint32_t c3_mask(const struct fmodel *M, uint32_t i)
{
	uint32_t fb = comb_unrank(i % 70, 4), rl = comb_unrank(i / 70 % 70, 4),
		 ud = comb_unrank(i / 4900, 4), m = 0;
	for (int k = 0; k < 8; k++) {
		m |= (ud >> k & 1u) << M->udlist[k];
		m |= (rl >> k & 1u) << M->rllist[k];
		m |= (fb >> k & 1u) << M->fblist[k];
	}
	return m;
}

/* Phase 3's centres compacted to the 58,800 it reaches: full index →
 * compact (0xffff none), a turn table over them (in g3list's order) and
 * their distances. */
static int build_c3k(const struct fmodel *M, const uint8_t *d3c,
		     uint16_t *k3, uint16_t *mv3, uint8_t *dk)
{
	uint32_t nk = 0;
	for (uint32_t i = 0; i < F3C_N; i++) {
		k3[i] = 0xffff;
		if (d3c[i] != F_UNSEEN) {
			if (nk >= F3K_N)
				return -1;
			dk[nk] = d3c[i];
			k3[i] = (uint16_t)nk++;
		}
	}
	if (nk != F3K_N || M->ng3 != 35)
		return -1;
	for (uint32_t i = 0; i < F3C_N; i++) {
		if (k3[i] == 0xffff)
			continue;
		uint32_t m = c3_mask(M, i);
		for (int j = 0; j < M->ng3; j++) {
			uint32_t t = c3_index(M, perm_mask(m, M->mv[M->g3list[j]].cp));
			if (k3[t] == 0xffff)
				return -1;
			mv3[(size_t)k3[i] * 35 + (size_t)j] = k3[t];
		}
	}
	return 0;
}

/* One phase-3 turn on the pairing r (slot-B edge → the edge holding its
 * partner in class A). */
static inline void r_turn(const struct fmove *g, const uint8_t *r,
			  uint8_t *out)
{
	for (int e = 0; e < 12; e++)
		out[e] = g->pa[r[g->pbinv[e]]];
}

/* The pairing table: depth mod 3 up to F3P_EXACT, 3 past it. The queue
 * holds the states under F3P_EXACT (their children are the last level
 * written). */
static int bfs_pair(const struct fmodel *M, uint8_t *t, uint32_t *queue,
		    size_t qcap, const reduce_limits *lim)
{
	memset(t, 0xff, F3P_BYTES);
	uint8_t id[12];
	for (int e = 0; e < 12; e++)
		id[e] = (uint8_t)e;
	uint64_t i0 = (uint64_t)even_rank(id, M->pop12) * 2;
	p3_set(t, i0, 0);
	size_t qh = 0, qt = 0;
	queue[qt++] = (uint32_t)i0;
	size_t level_end = qt;
	int depth = 0;
	while (qh < qt && depth < F3P_EXACT) {
		int dv = (depth + 1) % 3;
		int enqueue = depth + 1 < F3P_EXACT;
		for (; qh < level_end; qh++) {
			/* progress (states expanded of about F3P_QUEUE) and
			 * a chance to stop, every 65,536 states */
			if ((qh & 0xffff) == 0 && lim && lim->poll &&
			    lim->poll(lim->ctx, (uint64_t)qh, F3P_QUEUE))
				return SOLVE_ENOTFOUND;
			uint64_t s = queue[qh];
			uint8_t r[12], r2[12];
			even_unrank((uint32_t)(s >> 1), r);
			int pl = (int)(s & 1);
			for (int k = 0; k < F_MOVES; k++) {
				const struct fmove *g = &M->mv[k];
				if (!g->g3)
					continue;
				r_turn(g, r, r2);
				uint64_t i2 = (uint64_t)even_rank(r2, M->pop12) * 2 +
					      (uint64_t)(pl ^ g->t);
				if (p3_get(t, i2) != 3)
					continue;
				p3_set(t, i2, dv);
				if (enqueue) {
					if (qt >= qcap)
						return SOLVE_ESTAGE;
					queue[qt++] = (uint32_t)i2;
				}
			}
		}
		level_end = qt;
		depth++;
	}
	return 0;
}

/* Work the build needs: the largest queue, the pairing table's. */
size_t reduce_four_tables_work_size(void)
{
	size_t q = (size_t)F3P_QUEUE * 4;
	size_t w = (size_t)5408312 * 4 + 64; /* the wings' states */
	size_t c = 512 + ((sizeof(struct fmodel) + 63) & ~(size_t)63);
	return (q > w ? q : w) + c + 4096;
}

int reduce_four_tables_build(void *tables, size_t size, void *work,
			     size_t work_size, const reduce_limits *lim)
{
	if (!tables || !work || size < FOUR_SIZE ||
	    work_size < reduce_four_tables_work_size())
		return CUBE_EINVAL;
	unsigned char *T = tables;
	memset(T, 0, OFF_T3P);
	struct fmodel *M = (struct fmodel *)(void *)(T + OFF_MODEL);
	_Alignas(64) unsigned char cbuf[512];
	if (cube_sizeof(4) > sizeof cbuf)
		return CUBE_EINVAL;
	if (model_build(M, (cube_t *)(void *)cbuf) < 0)
		return SOLVE_ESTAGE;
	uint32_t *queue = (uint32_t *)(void *)(((uintptr_t)work + 63) &
					       ~(uintptr_t)63);
	bfs_c1(M, T + OFF_T1, queue);
	bfs_c3(M, T + OFF_T3C, queue);
	if (build_c3k(M, T + OFF_T3C, (uint16_t *)(void *)(T + OFF_T3K),
		      (uint16_t *)(void *)(T + OFF_T3M), T + OFF_T3D) < 0)
		return SOLVE_ESTAGE;
	bfs_c2(M, T + OFF_T2C, T + OFF_T3C, queue);
	uint32_t amask = 0;
	for (int w = 0; w < 24; w++)
		if (M->cls[w])
			amask |= 1u << w;
	int rc = bfs_w2(M, T + OFF_T2W, amask, queue, lim);
	if (rc < 0)
		return rc;
	rc = bfs_pair(M, T + OFF_T3P, queue,
			  (work_size - 4096) / sizeof *queue, lim);
	if (rc < 0)
		return rc;
	solve__seal(T, FOUR_SIZE, four_magic, FOUR_VERSION);
	return 0;
}

int reduce_four_tables_check(const void *tables, size_t size)
{
	return solve__check(tables, size, FOUR_SIZE, four_magic, FOUR_VERSION);
}

int reduce__four_tables_ok(const void *tables)
{
	return tables && solve__header_ok(tables, FOUR_SIZE, four_magic,
					  FOUR_VERSION);
}

/* Depth counts of a built table, for tests and docs: which 0 … 4 (phase
 * 1, phase 2 centres, phase 2 wings, phase 3 centres, pairing); counts[d]
 * for d < 16 (pairing: 10 means "10 or more"). Returns the states
 * reached. */
long reduce__four_census(const void *tables, int which, long counts[16])
{
	const unsigned char *T = tables;
	memset(counts, 0, 16 * sizeof *counts);
	static const size_t off[4] = {OFF_T1, OFF_T2C, OFF_T2W, OFF_T3C};
	static const uint32_t n[4] = {F1_N, F2C_N, F2W_N, F3C_N};
	long total = 0;
	if (which == 2) {
		for (uint32_t i = 0; i < F2W_N; i++) {
			int v = nib_get(T + OFF_T2W, i);
			if (v != 15) {
				counts[v]++;
				total++;
			}
		}
		return total;
	}
	if (which < 4) {
		for (uint32_t i = 0; i < n[which]; i++) {
			uint8_t v = T[off[which] + i];
			if (v != F_UNSEEN && v < 16) {
				counts[v]++;
				total++;
			}
		}
		return total;
	}
	/* the pairing: exact depths need a walk; count residues and 10+ */
	for (uint64_t i = 0; i < F3P_N; i++) {
		int v = p3_get(T + OFF_T3P, i);
		counts[v == 3 ? 10 : v]++;
	}
	return (long)F3P_N;
}

/* ---- the solve --------------------------------------------------------- */

/* Phase 1 answers kept (all of the shortest length), the deepest each
 * phase may go, and node budgets (counted, so the answer is the same on
 * every machine): phase 2 over all the phase-1 answers together, phase 3
 * once (a node there weighs its 35 children). 20 states, one frame:
 * 64 answers and 4 M nodes 43.00 moves at 477 ms median; 16 answers
 * 43.20 at 399 ms; 1.5 M nodes 43.40 (bench/RESULTS.md). Phase 3 gets
 * 1.5 M nodes (about 0.7 s): a search that needs more is one whose
 * tables say 9 or 10 where the answer is 14 or more, and another frame
 * class does better sooner (100 states: 4.5 M gave 42.98 moves, 1.5 M
 * 42.93, the slowest server solves 3.8 s against 1.8 s). Past a budget
 * the solve tries a frame of another class, then falls back to the
 * stage-by-stage path. */
#ifndef P1_MAX
#define P1_MAX 64
#endif
#define P1_DEPTH 10
#define P2_DEPTH 14
#define P3_DEPTH 18
#ifndef P2_BUDGET
#define P2_BUDGET 4000000L
#endif
#ifndef P3_BUDGET
#define P3_BUDGET 1500000L
#endif
#define NLAB 2048 /* labelings with an even number of swapped edges */

struct p2start {
	uint32_t u, l;         /* U/D pieces' places, L/R pieces' */
	uint8_t sx[12], sy[12]; /* each edge's class-A and class-B wing slot */
	int wpar;
};

struct fourw {
	struct p2start s2[P1_MAX]; /* phase 2 after each phase-1 answer */
	uint16_t alive[P2_DEPTH + 2][NLAB];
	int nalive[P2_DEPTH + 2];
	uint8_t p1[P1_MAX][P1_DEPTH];
	int p1len[P1_MAX], np1;
	uint8_t path[P3_DEPTH + 2];
	uint8_t best2[P2_DEPTH + 2];
	int len2;  /* p2_try's answer: its length (the moves in path) */
	long nodes, limit;
	int stopped; /* the caller's poll stopped phase 2 or 3 */
	int hurried; /* its hurry did (reduce_limits.hurry) */
};

size_t reduce__four_size(int n)
{
	return n == 4 ? sizeof(struct fourw) : 0;
}

struct fsearch {
	const struct fmodel *M;
	const uint8_t *t1, *t2c, *t2w, *t3c, *t3p, *t3d;
	const uint16_t *t3k, *t3m;
	struct fourw *w;
	const reduce_limits *lim; /* its poll, every 65,536 nodes */
	int found;
};

/* A node of phase 2 or 3 counted against the budget; every 65,536th
 * asks the caller's poll (done: the phase's nodes so far, total: its
 * budget), and a stop ends the search as the budget would (w->stopped
 * says which); then its hurry, which ends it too (w->hurried: the frame
 * is given up). Phase 3 asks nowhere else, and may take 2 s. */
static inline int over_budget(struct fsearch *S)
{
	struct fourw *w = S->w;
	if (++w->nodes > w->limit)
		return 1;
	if ((w->nodes & 0xffff) == 0 && S->lim && S->lim->poll &&
	    S->lim->poll(S->lim->ctx, (uint64_t)w->nodes,
			 (uint64_t)w->limit)) {
		w->stopped = 1;
		w->limit = 0;
		return 1;
	}
	if ((w->nodes & 0xffff) == 0 && S->lim && S->lim->hurry &&
	    S->lim->hurry(S->lim->ctx)) {
		w->hurried = 1;
		w->limit = 0;
		return 1;
	}
	return 0;
}

static inline int same_axis_skip(const struct fmodel *M, int last, int g)
{
	return last >= 0 && M->mv[g].axis == M->mv[last].axis &&
	       M->mv[g].ord <= M->mv[last].ord;
}

/* Phase 1: every answer of length bound (the table is exact). */
static void dfs1(struct fsearch *S, uint32_t m, int depth, int bound, int last)
{
	struct fourw *w = S->w;
	int h = S->t1[comb_rank(m)];
	if (h == 0) {
		if (depth == bound && w->np1 < P1_MAX) {
			memcpy(w->p1[w->np1], w->path, (size_t)depth);
			w->p1len[w->np1++] = depth;
		}
		return;
	}
	if (depth + h > bound || w->np1 >= P1_MAX)
		return;
	for (int k = 0; k < F_MOVES; k++) {
		if (same_axis_skip(S->M, last, k))
			continue;
		w->path[depth] = (uint8_t)k;
		dfs1(S, perm_mask(m, S->M->mv[k].cp), depth + 1, bound, k);
	}
}

/* Phase 2 under every labeling still alive: u, l the centres; sx, sy
 * the slots of each edge's class-A and class-B wing; wp the wing
 * parity. Returns the length found at bound, or -1. */
static int dfs2(struct fsearch *S, uint32_t u, uint32_t l, const uint8_t *sx,
		const uint8_t *sy, int wp, int depth, int bound, int last)
{
	struct fourw *w = S->w;
	if (over_budget(S))
		return -1;
	int hc = S->t2c[c2_index(S->M, u, l)];
	if (depth + hc > bound)
		return -1;
	uint16_t *al = w->alive[depth + 1];
	int na = 0, hmin = 99;
	/* the class-A slots under labeling b: edges 0-5 from lo[b & 63],
	 * 6-11 from hi[b >> 6] */
	uint32_t lo[64], hi[64];
	for (unsigned b = 0; b < 64; b++) {
		uint32_t ml = 0, mh = 0;
		for (int e = 0; e < 6; e++) {
			ml |= 1u << (b >> e & 1 ? sy[e] : sx[e]);
			mh |= 1u << (b >> e & 1 ? sy[e + 6] : sx[e + 6]);
		}
		lo[b] = ml;
		hi[b] = mh;
	}
	for (int i = 0; i < w->nalive[depth]; i++) {
		unsigned b = w->alive[depth][i];
		uint32_t m = lo[b & 63] | hi[b >> 6];
		int d = nib_get(S->t2w, m << 1 | (uint32_t)wp);
		if (depth + d <= bound) {
			al[na++] = (uint16_t)b;
			if (d < hmin)
				hmin = d;
		}
	}
	if (na == 0)
		return -1;
	if (hc == 0 && hmin == 0)
		return depth;
	w->nalive[depth + 1] = na;
	for (int j = 0; j < S->M->ng2; j++) {
		int k = S->M->g2list[j];
		const struct fmove *g = &S->M->mv[k];
		if (same_axis_skip(S->M, last, k))
			continue;
		uint8_t x2[12], y2[12];
		for (int e = 0; e < 12; e++) {
			x2[e] = g->wp[sx[e]];
			y2[e] = g->wp[sy[e]];
		}
		w->path[depth] = (uint8_t)k;
		int r = dfs2(S, perm_mask(u, g->cp), perm_mask(l, g->cp), x2, y2,
			     wp ^ g->wpar, depth + 1, bound, k);
		if (r >= 0)
			return r;
	}
	return -1;
}

/* Phase 3's pairing bound from a parent's exact bound hp (10: "10 or
 * more") and the child's 2-bit entry v. */
static inline int pair_h(int hp, int v)
{
	if (v == 3)
		return 10;
	if (hp >= 10)
		return 9;
	for (int d = hp - 1; d <= hp + 1; d++)
		if (d >= 0 && d % 3 == v)
			return d;
	return 10; /* not reached */
}

/* The exact pairing depth of a state with entry v != 3: down the table
 * to the identity. */
static int pair_depth(const struct fsearch *S, const uint8_t *r0, int pl0)
{
	uint8_t r[12], r2[12];
	memcpy(r, r0, 12);
	int pl = pl0, d = 0;
	for (;;) {
		int v = p3_get(S->t3p,
			       (uint64_t)even_rank(r, S->M->pop12) * 2 + (uint64_t)pl);
		if (v == 3)
			return 10;
		int solved = !pl;
		for (int e = 0; e < 12; e++)
			solved &= r[e] == e;
		if (solved)
			return d;
		int down = -1;
		for (int k = 0; k < F_MOVES && down < 0; k++) {
			const struct fmove *g = &S->M->mv[k];
			if (!g->g3)
				continue;
			r_turn(g, r, r2);
			int v2 = p3_get(S->t3p, (uint64_t)even_rank(r2, S->M->pop12) * 2 +
						 (uint64_t)(pl ^ g->t));
			if (v2 == (v + 2) % 3)
				down = k;
		}
		if (down < 0 || d > F3P_EXACT)
			return -1;
		r_turn(&S->M->mv[down], r, r2);
		memcpy(r, r2, 12);
		pl ^= S->M->mv[down].t;
		d++;
	}
}

static int dfs3(struct fsearch *S, uint32_t c, const uint8_t *r, int pl,
		int hp, int depth, int bound, int last)
{
	struct fourw *w = S->w;
	if (over_budget(S))
		return -1;
	int hc = S->t3d[c];
	int h = hc > hp ? hc : hp;
	if (h == 0)
		return depth;
	if (depth + h > bound)
		return -1;
	/* the children's pairing entries first, each fetched ahead: the
	 * table is far bigger than the caches, and the loads overlap */
	uint8_t r2[35][12], live[35];
	uint64_t ix[35];
	const struct fmodel *M = S->M;
	for (int j = 0; j < M->ng3; j++) {
		int k = M->g3list[j];
		/* the centres' bound first: it is two loads */
		live[j] = !same_axis_skip(M, last, k) &&
			  depth + 1 + S->t3d[S->t3m[c * 35 + (uint32_t)j]] <= bound;
		if (!live[j])
			continue;
		r_turn(&M->mv[k], r, r2[j]);
		ix[j] = (uint64_t)even_rank(r2[j], M->pop12) * 2 +
			(uint64_t)(pl ^ M->mv[k].t);
		__builtin_prefetch(&S->t3p[ix[j] >> 2]);
	}
	/* children within the bound, the most promising first: the last
	 * iteration then meets an answer early */
	uint8_t ord[35], hk[35];
	int nk = 0;
	for (int j = 0; j < M->ng3; j++) {
		if (!live[j])
			continue;
		int hpj = pair_h(hp, p3_get(S->t3p, ix[j]));
		int hcj = S->t3d[S->t3m[c * 35 + (uint32_t)j]];
		int hj = hpj > hcj ? hpj : hcj;
		if (depth + 1 + hj > bound)
			continue;
		hk[j] = (uint8_t)hpj;
		int at = nk++;
		while (at > 0 && hk[ord[at - 1]] > hpj) {
			ord[at] = ord[at - 1];
			at--;
		}
		ord[at] = (uint8_t)j;
	}
	for (int i = 0; i < nk; i++) {
		int j = ord[i], k = M->g3list[j];
		w->path[depth] = (uint8_t)k;
		int x = dfs3(S, S->t3m[c * 35 + (uint32_t)j], r2[j],
			     pl ^ M->mv[k].t, hk[j], depth + 1, bound, k);
		if (x >= 0)
			return x;
	}
	return -1;
}

/* What the search reads off the cube, in the frame x->tcol. */
struct fread {
	uint32_t c1, l, c3;
	uint32_t uall, rlall; /* U pieces', R/L pieces' places */
	uint8_t hw[24]; /* home slot of the wing in each slot */
	int wpar;
};

static int read_state(const struct ctx *x, const struct fmodel *M,
		      struct fread *s)
{
	memset(s, 0, sizeof *s);
	for (int i = 0; i < 24; i++) {
		int f = x->face_of[cube_get(x->c, M->cpos[i][0], M->cpos[i][1],
					    M->cpos[i][2])];
		if (f == 0 || f == 3)
			s->c1 |= 1u << i;
		if ((f == 1 || f == 4) && !(M->udpos >> i & 1))
			s->l |= 1u << i;
		if (f < 3)
			s->c3 |= 1u << i;
		if (f == 0)
			s->uall |= 1u << i;
		if (f == 1 || f == 4)
			s->rlall |= 1u << i;
	}
	uint32_t seen = 0;
	for (int w = 0; w < 24; w++) {
		int a = x->face_of[cube_get(x->c, M->wst[w][0][0], M->wst[w][0][1],
					    M->wst[w][0][2])];
		int b = x->face_of[cube_get(x->c, M->wst[w][1][0], M->wst[w][1][1],
					    M->wst[w][1][2])];
		int h = M->home[w][a][b];
		if (h == 255 || seen >> h & 1)
			return -1;
		seen |= 1u << h;
		s->hw[w] = (uint8_t)h;
	}
	s->wpar = parity_n(s->hw, 24);
	return 0;
}

static int emit_moves(struct ctx *x, const struct fmodel *M,
		      const uint8_t *mv, int len)
{
	for (int i = 0; i < len; i++) {
		const struct fmove *g = &M->mv[mv[i]];
		int rc = emit_block(x, g->axis, g->lo, g->hi, g->qt);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int four_phases(struct ctx *x, const void *tables, int *split);

/* Hurried by the caller (reduce_limits.hurry), a frame is given up:
 * SOLVE_ESTAGE with x->hurried set, and the caller tries no other. */
int reduce__four_phases(struct ctx *x, const void *tables, int *split)
{
	struct fourw *w = x->region[REDUCE_R_FOUR];
	w->hurried = 0;
	int rc = four_phases(x, tables, split);
	if (!w->hurried || rc == SOLVE_ENOTFOUND)
		return rc;
	x->hurried = 1;
	return SOLVE_ESTAGE;
}

/* Phase 2 after phase-1 answer i, bounded by bd: 1 and its moves in
 * w->path (w->len2 of them), 0 none, or an error (the caller's poll
 * stopped it, SOLVE_ENOTFOUND; its hurry, SOLVE_ESTAGE). */
static int p2_try(struct ctx *x, struct fsearch *S, int i, int bd, int na)
{
	struct fourw *w = S->w;
	const struct p2start *st = &w->s2[i];
	w->nalive[0] = na;
	int len = dfs2(S, st->u, st->l, st->sx, st->sy, st->wpar, 0, bd,
		       w->p1len[i] ? w->p1[i][w->p1len[i] - 1] : -1);
	if (w->stopped || poll_now(x))
		return SOLVE_ENOTFOUND;
	if (w->hurried)
		return SOLVE_ESTAGE;
	w->len2 = len;
	return len >= 0;
}

static int four_phases(struct ctx *x, const void *tables, int *split)
{
	const unsigned char *T = tables;
	struct fsearch S = {
		.M = (const struct fmodel *)(const void *)(T + OFF_MODEL),
		.t1 = T + OFF_T1, .t2c = T + OFF_T2C, .t2w = T + OFF_T2W,
		.t3c = T + OFF_T3C, .t3p = T + OFF_T3P, .t3d = T + OFF_T3D,
		.t3k = (const uint16_t *)(const void *)(T + OFF_T3K),
		.t3m = (const uint16_t *)(const void *)(T + OFF_T3M),
		.w = x->region[REDUCE_R_FOUR], .lim = x->lim};
	const struct fmodel *M = S.M;
	struct fourw *w = S.w;
	struct fread s;
	if (read_state(x, M, &s) < 0)
		return SOLVE_ESTAGE;

	/* phase 1: every shortest answer (up to P1_MAX), or every answer
	 * one move longer (x->four_p1x, when every class ran out) */
	w->np1 = 0;
	int opt = S.t1[comb_rank(s.c1)];
	if (opt == F_UNSEEN)
		return SOLVE_ESTAGE;
	dfs1(&S, s.c1, 0, opt + x->four_p1x, -1);
	if (w->np1 == 0)
		return SOLVE_ESTAGE;

	/* phase 2 after each, within one budget, deepened over all the
	 * answers together: every phase-1 answer has the same length, so
	 * the first phase 2 found is of the shortest whole (the first
	 * answer's, of those tied). Deepened one answer at a time, a first
	 * answer whose own phase 2 was deep could spend the budget and
	 * leave a longer whole than a later answer offered (the bench's
	 * first 100 states: 43.21 moves then, 42.98 so). */
	int best1 = -1, best2 = 0;
	w->nodes = 0;
	w->limit = P2_BUDGET;
	w->stopped = 0;
	int na = 0; /* the labelings with an even number of swapped edges */
	for (unsigned b = 0; b < 4096; b++)
		if (!(__builtin_popcount(b) & 1))
			w->alive[0][na++] = (uint16_t)b;
	for (int i = 0; i < w->np1; i++) {
		struct p2start *st = &w->s2[i];
		uint8_t hw[24];
		memcpy(hw, s.hw, 24);
		/* the pieces through the answer: centres as masks, wings
		 * by slot */
		uint32_t um = s.uall, lm = s.rlall;
		for (int j = 0; j < w->p1len[i]; j++) {
			const struct fmove *g = &M->mv[w->p1[i][j]];
			um = perm_mask(um, g->cp);
			lm = perm_mask(lm, g->cp);
			uint8_t h2[24];
			for (int v = 0; v < 24; v++)
				h2[g->wp[v]] = hw[v];
			memcpy(hw, h2, 24);
		}
		st->u = um & M->udpos, st->l = lm & ~M->udpos;
		for (int v = 0; v < 24; v++) {
			int h = hw[v], e = M->wedge[h];
			if (M->cls[h])
				st->sx[e] = (uint8_t)v;
			else
				st->sy[e] = (uint8_t)v;
		}
		st->wpar = s.wpar;
		for (int j = 0; j < w->p1len[i]; j++)
			st->wpar ^= M->mv[w->p1[i][j]].wpar;
	}
	for (int bd = 0; best1 < 0 && bd <= P2_DEPTH && w->nodes < w->limit;
	     bd++)
		for (int i = 0; i < w->np1 && w->nodes < w->limit; i++) {
			int rc = p2_try(x, &S, i, bd, na);
			if (rc < 0)
				return rc;
			if (rc > 0) {
				best1 = i;
				best2 = w->len2;
				memcpy(w->best2, w->path, (size_t)best2);
				break;
			}
		}
	if (best1 < 0)
		return SOLVE_ESTAGE; /* budget: the caller falls back */
	int rc;
	if ((rc = emit_moves(x, M, w->p1[best1], w->p1len[best1])) < 0 ||
	    (rc = emit_moves(x, M, w->best2, best2)) < 0)
		return rc;
	split[0] = w->p1len[best1];
	split[1] = best2;

	/* phase 3 */
	if (read_state(x, M, &s) < 0)
		return SOLVE_ESTAGE;
	uint8_t h[12], lo[12], hinv[12], r[12];
	uint32_t hs = 0;
	for (int e = 0; e < 12; e++) {
		h[e] = M->wedge[s.hw[M->aslot[e]]];
		lo[e] = M->wedge[s.hw[M->bslot[e]]];
		hs |= 1u << h[e];
	}
	if (hs != 0xfff || s.wpar || s.l != M->goal2c ||
	    S.t3c[c3_index(M, s.c3)] == F_UNSEEN)
		return SOLVE_ESTAGE; /* phase 2 did not reach its goal */
	for (int e = 0; e < 12; e++)
		hinv[h[e]] = (uint8_t)e;
	for (int e = 0; e < 12; e++)
		r[e] = hinv[lo[e]];
	if (parity_n(r, 12))
		return SOLVE_ESTAGE;
	int cpar = reduce__corner_parity(x);
	if (cpar < 0)
		return SOLVE_ESTAGE;
	int pl = parity_n(h, 12) ^ cpar;
	int hp = pair_depth(&S, r, pl);
	if (hp < 0)
		return SOLVE_ESTAGE;
	w->nodes = 0;
	w->limit = P3_BUDGET;
	int len3 = -1;
	int last = best2		 ? w->best2[best2 - 1]
		   : w->p1len[best1] ? w->p1[best1][w->p1len[best1] - 1]
				     : -1;
	for (int bd = hp; len3 < 0 && bd <= P3_DEPTH && w->nodes < w->limit; bd++)
		len3 = dfs3(&S, S.t3k[c3_index(M, s.c3)], r, pl, hp, 0, bd, last);
	if (w->stopped)
		return SOLVE_ENOTFOUND;
	if (len3 < 0 || w->hurried)
		return SOLVE_ESTAGE;
	if ((rc = emit_moves(x, M, w->path, len3)) < 0)
		return rc;
	split[2] = len3;
	return 0;
}
