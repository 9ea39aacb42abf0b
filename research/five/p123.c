/* p123.c — phases 1–3 of the five-phase 5×5 reduction (research; see
 * docs/solvers.md "5×5"):
 *   1 (all 36 turns)  U/D x- and +-centres onto U and D;
 *   2 (G2, 22)        R/L x- and +-centres onto R and L, wing parity even;
 *   3 (G3, 24)        wings one of each edge in each class (some even
 *                     labeling), midges oriented to that labeling, the
 *                     centre splits into phase 4's reach.
 * Tables are built in memory at start (malloc, printing: research code). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "p123.h"

#define UNSEEN 255
#define N70 70u
#define N16 12870u

struct p123 {
	const struct m5 *M;
	uint8_t *t1x, *t1t;        /* [1 << 24] by mask */
	uint8_t *t2;               /* [N16 * N16] */
	uint16_t *mv2x, *mv2t;     /* [N16][22] */
	uint16_t rank16[65536];
	uint16_t sub16[N16];
	uint8_t nonud_x[16], nonud_t[16];
	uint8_t *t3w;              /* [1 << 24] */
	uint8_t t3m[4096];
	uint8_t *t3c, *t4c;        /* [70^4] */
	uint8_t rank8[256], sub8[70];
	uint8_t axx[3][8], axt[3][8]; /* each axis' x, + places */
	uint8_t map70[M5_MOVES][3][2][70]; /* G3/G4/G5 moves: a split's image */
	uint32_t pm24[M5_MOVES][3][256]; /* a wing-slot mask's image, by bytes */
	uint32_t px24[M5_MOVES][3][256], pt24[M5_MOVES][3][256]; /* centres' */
	uint16_t pm12[M5_MOVES][4096];   /* a midge error pattern's image */
	uint32_t udx, udt;         /* U/D places as masks */
};

static uint32_t perm_mask(uint32_t m, const uint8_t *p)
{
	uint32_t r = 0;
	while (m) {
		int i = __builtin_ctz(m);
		m &= m - 1;
		r |= 1u << p[i];
	}
	return r;
}

static void bfs_mask(uint8_t *t, uint32_t start, const struct m5 *M, int set,
		     int xc)
{
	memset(t, UNSEEN, 1u << 24);
	uint32_t *q = malloc(sizeof(uint32_t) * 2800000u);
	size_t qh = 0, qt = 0;
	t[start] = 0;
	q[qt++] = start;
	while (qh < qt) {
		uint32_t m = q[qh++];
		for (int j = 0; j < M->cnt[set]; j++) {
			const struct m5move *g = &M->mv[M->list[set][j]];
			uint32_t m2 = perm_mask(m, xc == 0 ? g->xp : xc == 1 ? g->tp : g->wp);
			if (t[m2] == UNSEEN) {
				t[m2] = (uint8_t)(t[m] + 1);
				q[qt++] = m2;
			}
		}
	}
	free(q);
}

/* a centre split: which of the axis' 8 places hold the axis' + colour */
static uint32_t split_of(const struct p123 *T, uint32_t mask, const uint8_t *pl)
{
	uint32_t s = 0;
	for (int j = 0; j < 8; j++)
		if (mask >> pl[j] & 1)
			s |= 1u << j;
	return T->rank8[s];
}

static uint32_t c4(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
	return ((a * N70 + b) * N70 + c) * N70 + d;
}

/* ---- G5's centre set: hashed breadth-first search over 70^6 ---------- */
static uint64_t key6(const uint8_t s[6])
{
	uint64_t k = 0;
	for (int i = 0; i < 6; i++)
		k = k * 70 + s[i];
	return k;
}

static void build_centres(struct p123 *T)
{
	const struct m5 *M = T->M;
	size_t hsz = 1u << 21;
	uint64_t *h = malloc(hsz * sizeof *h);
	memset(h, 0xff, hsz * sizeof *h);
	uint64_t *q = malloc(sizeof(uint64_t) * 400000);
	size_t qh = 0, qt = 0;
	uint8_t s0[6];
	for (int a = 0; a < 3; a++) {
		s0[2 * a] = T->rank8[0x0f]; /* places 0..3 of the axis: + face */
		s0[2 * a + 1] = T->rank8[0x0f];
	}
	q[qt++] = key6(s0);
	h[(key6(s0) * 0x9E3779B97F4A7C15ull) >> 43] = key6(s0);
	memset(T->t4c, UNSEEN, (size_t)N70 * N70 * N70 * N70);
	while (qh < qt) {
		uint64_t k = q[qh++];
		uint8_t s[6];
		for (int i = 5; i >= 0; i--) {
			s[i] = (uint8_t)(k % 70);
			k /= 70;
		}
		T->t4c[c4(s[0], s[1], s[2], s[3])] = 0;
		for (int j = 0; j < M->cnt[5]; j++) {
			int mk = M->list[5][j];
			uint8_t s2[6];
			for (int a = 0; a < 3; a++) {
				s2[2 * a] = T->map70[mk][a][0][s[2 * a]];
				s2[2 * a + 1] = T->map70[mk][a][1][s[2 * a + 1]];
			}
			uint64_t k2 = key6(s2);
			size_t i = (k2 * 0x9E3779B97F4A7C15ull) >> 43;
			while (h[i] != ~0ull && h[i] != k2)
				i = (i + 1) & (hsz - 1);
			if (h[i] == ~0ull) {
				h[i] = k2;
				q[qt++] = k2;
			}
		}
	}
	size_t n36 = 0;
	for (size_t i = 0; i < (size_t)N70 * N70 * N70 * N70; i++)
		n36 += T->t4c[i] == 0;
	fprintf(stderr, "G5 centres: %zu states, %zu (U/D, R/L) splits\n", qt,
		n36);
	free(h);
	free(q);
}

static size_t bfs70(const struct p123 *T, uint8_t *t, int set)
{
	const struct m5 *M = T->M;
	size_t n = (size_t)N70 * N70 * N70 * N70, seen = 0;
	for (size_t i = 0; i < n; i++)
		seen += t[i] != UNSEEN;
	for (int d = 0; seen < n; d++) {
		size_t add = 0;
		for (size_t i = 0; i < n; i++) {
			if (t[i] != d)
				continue;
			uint32_t a = (uint32_t)(i / (N70 * N70 * N70)),
				 b = (uint32_t)(i / (N70 * N70) % N70),
				 c = (uint32_t)(i / N70 % N70), e = (uint32_t)(i % N70);
			for (int j = 0; j < M->cnt[set]; j++) {
				int mk = M->list[set][j];
				uint32_t i2 = c4(T->map70[mk][0][0][a],
						 T->map70[mk][0][1][b],
						 T->map70[mk][1][0][c],
						 T->map70[mk][1][1][e]);
				if (t[i2] == UNSEEN) {
					t[i2] = (uint8_t)(d + 1);
					add++;
				}
			}
		}
		if (!add)
			break;
		seen += add;
	}
	return seen;
}

static void build_t2(struct p123 *T)
{
	const struct m5 *M = T->M;
	int n2 = M->cnt[2];
	size_t n = (size_t)N16 * N16;
	T->t2 = malloc(n);
	memset(T->t2, UNSEEN, n);
	T->t2[(size_t)T->rank16[0x00ff] * N16 + T->rank16[0x00ff]] = UNSEEN;
	/* goal: R/L pieces on R/L places; nonud lists put R, L places first?
	 * no: compute the goal from the lists */
	uint32_t gx = 0, gt = 0;
	for (int j = 0; j < 16; j++) {
		int fx = M->xpos[T->nonud_x[j]][0], ft = M->tpos[T->nonud_t[j]][0];
		if (fx == 1 || fx == 4)
			gx |= 1u << j;
		if (ft == 1 || ft == 4)
			gt |= 1u << j;
	}
	T->t2[(size_t)T->rank16[gx] * N16 + T->rank16[gt]] = 0;
	size_t seen = 1;
	for (int d = 0; seen < n; d++) {
		size_t add = 0;
		int back = seen > n / 3;
		for (size_t i = 0; i < n; i++) {
			if (back ? T->t2[i] != UNSEEN : T->t2[i] != d)
				continue;
			uint32_t a = (uint32_t)(i / N16), b = (uint32_t)(i % N16);
			for (int j = 0; j < n2; j++) {
				size_t i2 = (size_t)T->mv2x[a * 22 + j] * N16 +
					    T->mv2t[b * 22 + j];
				if (back) {
					if (T->t2[i2] == d) {
						T->t2[i] = (uint8_t)(d + 1);
						add++;
						break;
					}
				} else if (T->t2[i2] == UNSEEN) {
					T->t2[i2] = (uint8_t)(d + 1);
					add++;
				}
			}
		}
		fprintf(stderr, "  t2 depth %d: %zu\n", d + 1, add);
		if (!add)
			break;
		seen += add;
	}
}

struct p123 *p123_init(const struct m5 *M)
{
	struct p123 *T = calloc(1, sizeof *T);
	T->M = M;
	/* splits */
	int n = 0;
	memset(T->rank8, 255, sizeof T->rank8);
	for (int s = 0; s < 256; s++)
		if (__builtin_popcount((unsigned)s) == 4) {
			T->rank8[s] = (uint8_t)n;
			T->sub8[n++] = (uint8_t)s;
		}
	n = 0;
	for (int s = 0; s < 65536; s++)
		if (__builtin_popcount((unsigned)s) == 8) {
			T->rank16[s] = (uint16_t)n;
			T->sub16[n++] = (uint16_t)s;
		}
	/* axis place lists: + face's places first, then the − face's */
	static const int plus[3] = {0, 1, 2}, minus[3] = {3, 4, 5};
	for (int a = 0; a < 3; a++) {
		int nx = 0, nt = 0;
		for (int side = 0; side < 2; side++) {
			int f = side ? minus[a] : plus[a];
			for (int i = 0; i < 24; i++) {
				if (M->xpos[i][0] == f)
					T->axx[a][nx++] = (uint8_t)i;
				if (M->tpos[i][0] == f)
					T->axt[a][nt++] = (uint8_t)i;
			}
		}
	}
	for (int i = 0; i < 24; i++) {
		if (M->xpos[i][0] == 0 || M->xpos[i][0] == 3)
			T->udx |= 1u << i;
		if (M->tpos[i][0] == 0 || M->tpos[i][0] == 3)
			T->udt |= 1u << i;
	}
	/* split maps for the axis-keeping moves */
	for (int k = 0; k < M5_MOVES; k++) {
		const struct m5move *g = &M->mv[k];
		if (!(g->sets & (G3 | G4 | G5)))
			continue;
		for (int a = 0; a < 3; a++)
			for (int ty = 0; ty < 2; ty++) {
				const uint8_t *pl = ty ? T->axt[a] : T->axx[a];
				const uint8_t *pp = ty ? g->tp : g->xp;
				for (int r = 0; r < 70; r++) {
					uint32_t m = 0;
					for (int j = 0; j < 8; j++)
						if (T->sub8[r] >> j & 1)
							m |= 1u << pl[j];
					m = perm_mask(m, pp);
					T->map70[k][a][ty][r] = (uint8_t)split_of(T, m, pl);
				}
			}
	}
	for (int k = 0; k < M5_MOVES; k++) {
		const struct m5move *g = &M->mv[k];
		for (int by = 0; by < 3; by++)
			for (uint32_t v = 0; v < 256; v++)
			{
				T->pm24[k][by][v] = perm_mask(v << (8 * by), g->wp);
				T->px24[k][by][v] = perm_mask(v << (8 * by), g->xp);
				T->pt24[k][by][v] = perm_mask(v << (8 * by), g->tp);
			}
		for (unsigned e = 0; e < 4096; e++) {
			unsigned e2 = 0;
			for (int p = 0; p < 12; p++)
				if ((e >> p & 1) ^ M->mf[k][p])
					e2 |= 1u << g->mp[p];
			T->pm12[k][e] = (uint16_t)e2;
		}
	}
	/* phase 1 */
	T->t1x = malloc(1u << 24);
	T->t1t = malloc(1u << 24);
	bfs_mask(T->t1x, T->udx, M, 1, 0);
	bfs_mask(T->t1t, T->udt, M, 1, 1);
	/* phase 2 */
	int nx = 0, nt = 0;
	for (int i = 0; i < 24; i++) {
		if (!(T->udx >> i & 1))
			T->nonud_x[nx++] = (uint8_t)i;
		if (!(T->udt >> i & 1))
			T->nonud_t[nt++] = (uint8_t)i;
	}
	T->mv2x = malloc(sizeof(uint16_t) * N16 * 22);
	T->mv2t = malloc(sizeof(uint16_t) * N16 * 22);
	int inv_x[24], inv_t[24];
	for (int j = 0; j < 16; j++) {
		inv_x[T->nonud_x[j]] = j;
		inv_t[T->nonud_t[j]] = j;
	}
	for (uint32_t r = 0; r < N16; r++)
		for (int j = 0; j < M->cnt[2]; j++) {
			const struct m5move *g = &M->mv[M->list[2][j]];
			uint32_t mx = 0, mt = 0;
			for (int b = 0; b < 16; b++)
				if (T->sub16[r] >> b & 1) {
					mx |= 1u << inv_x[g->xp[T->nonud_x[b]]];
					mt |= 1u << inv_t[g->tp[T->nonud_t[b]]];
				}
			T->mv2x[r * 22 + j] = T->rank16[mx];
			T->mv2t[r * 22 + j] = T->rank16[mt];
		}
	build_t2(T);
	/* phase 3: wings, midges, centres (through phase 4's and 5's) */
	T->t3w = malloc(1u << 24);
	bfs_mask(T->t3w, M->amask, M, 3, 2);
	memset(T->t3m, UNSEEN, sizeof T->t3m);
	{
		uint16_t q[4096];
		int qh = 0, qt = 0;
		T->t3m[0] = 0;
		q[qt++] = 0;
		while (qh < qt) {
			unsigned e = q[qh++];
			for (int j = 0; j < M->cnt[3]; j++) {
				int k = M->list[3][j];
				unsigned e2 = 0;
				for (int p = 0; p < 12; p++)
					if ((e >> p & 1) ^ M->mf[k][p])
						e2 |= 1u << M->mv[k].mp[p];
				if (T->t3m[e2] == UNSEEN) {
					T->t3m[e2] = (uint8_t)(T->t3m[e] + 1);
					q[qt++] = (uint16_t)e2;
				}
			}
		}
		fprintf(stderr, "t3m: %d states\n", qt);
	}
	size_t n4 = (size_t)N70 * N70 * N70 * N70;
	T->t4c = malloc(n4);
	T->t3c = malloc(n4);
	build_centres(T);
	size_t r4 = bfs70(T, T->t4c, 4);
	for (size_t i = 0; i < n4; i++)
		T->t3c[i] = T->t4c[i] == UNSEEN ? UNSEEN : 0;
	size_t r3 = bfs70(T, T->t3c, 3);
	fprintf(stderr, "t4c reach %zu, t3c reach %zu of %zu\n", r4, r3, n4);
	return T;
}

/* ---- reading the cube -------------------------------------------------- */

struct rd {
	uint32_t x1, t1;      /* U/D-coloured pieces' places */
	uint32_t x2, t2;      /* R/L-coloured */
	uint32_t xu, tu, xr, tr; /* U-coloured, R-coloured (splits) */
	uint8_t hw[24];       /* home of the wing in each slot */
	uint8_t mpos[12], q[12]; /* midge e's slot, its orientation quantity */
	int wpar;
};

static int col(const cube_t *c, const uint8_t p[3])
{
	return cube_get(c, p[0], p[1], p[2]);
}

static int read_cube(const struct m5 *M, const cube_t *c, struct rd *s)
{
	memset(s, 0, sizeof *s);
	for (int i = 0; i < 24; i++) {
		int fx = col(c, M->xpos[i]), ft = col(c, M->tpos[i]);
		s->x1 |= (uint32_t)(fx == 0 || fx == 3) << i;
		s->t1 |= (uint32_t)(ft == 0 || ft == 3) << i;
		s->x2 |= (uint32_t)(fx == 1 || fx == 4) << i;
		s->t2 |= (uint32_t)(ft == 1 || ft == 4) << i;
		s->xu |= (uint32_t)(fx == 0 || fx == 1 || fx == 2) << i;
		s->tu |= (uint32_t)(ft == 0 || ft == 1 || ft == 2) << i;
	}
	uint32_t seen = 0;
	for (int w = 0; w < 24; w++) {
		int h = M->whome[w][col(c, M->wst[w][0])][col(c, M->wst[w][1])];
		if (h == 255 || seen >> h & 1)
			return -1;
		seen |= 1u << h;
		s->hw[w] = (uint8_t)h;
	}
	s->wpar = m5_parity(s->hw, 24);
	for (int p = 0; p < 12; p++) {
		int a = col(c, M->mst[p][0]), b = col(c, M->mst[p][1]);
		int e, o = -1;
		for (e = 0; e < 12; e++) {
			int ha = M->mst[e][0][0], hb = M->mst[e][1][0];
			if (a == ha && b == hb) {
				o = 0;
				break;
			}
			if (a == hb && b == ha) {
				o = 1;
				break;
			}
		}
		if (o < 0)
			return -1;
		s->mpos[e] = (uint8_t)p;
		s->q[e] = (uint8_t)(o ^ M->mcorr[p] ^ M->mcorr[e]);
	}
	return 0;
}

/* ---- searches ------------------------------------------------------------ */

#define NLAB 2048
struct srch {
	const struct p123 *T;
	const struct m5 *M;
	int set, bound, want, nfound;
	long nodes, maxnodes;
	uint8_t path[P_MAXLEN + 2];
	uint8_t (*out)[P_MAXLEN];
	int *lens;
	const cube_t *start;
	p123_accept accept;
	void *actx;
	uint32_t lw[P_MAXLEN + 2][NLAB];
	uint16_t lm[P_MAXLEN + 2][NLAB];
	int nalive[P_MAXLEN + 2];
};

static int skip(const struct m5 *M, int last, int k)
{
	return last >= 0 && M->mv[k].axis == M->mv[last].axis &&
	       M->mv[k].ord <= M->mv[last].ord;
}

static void found(struct srch *S, int depth)
{
	if (S->accept && !S->accept(S->actx, S->start, S->path, depth))
		return;
	if (S->nfound < S->want) {
		memcpy(S->out[S->nfound], S->path, (size_t)depth);
		S->lens[S->nfound++] = depth;
	}
}

static void dfs1(struct srch *S, uint32_t x, uint32_t t, int depth, int last)
{
	const struct p123 *T = S->T;
	int h = T->t1x[x] > T->t1t[t] ? T->t1x[x] : T->t1t[t];
	if (h == 0 && depth == S->bound) {
		found(S, depth);
		return;
	}
	if (depth + h > S->bound || S->nfound >= S->want || ++S->nodes > S->maxnodes)
		return;
	for (int k = 0; k < M5_MOVES; k++) {
		if (skip(S->M, last, k))
			continue;
		S->path[depth] = (uint8_t)k;
		const uint32_t(*px)[256] = T->px24[k], (*pt)[256] = T->pt24[k];
		uint32_t x2 = px[0][x & 255] | px[1][x >> 8 & 255] | px[2][x >> 16];
		if (depth + 1 + T->t1x[x2] > S->bound)
			continue;
		uint32_t t2 = pt[0][t & 255] | pt[1][t >> 8 & 255] | pt[2][t >> 16];
		dfs1(S, x2, t2, depth + 1, k);
	}
}

static uint32_t squeeze16(uint32_t m, const uint8_t *list)
{
	uint32_t r = 0;
	for (int j = 0; j < 16; j++)
		r |= (m >> list[j] & 1) << j;
	return r;
}

static void dfs2(struct srch *S, uint32_t a, uint32_t b, int wpar, int depth,
		 int last)
{
	const struct p123 *T = S->T;
	int h = T->t2[(size_t)a * N16 + b];
	if (h == 0 && !wpar && depth == S->bound) {
		found(S, depth);
		return;
	}
	if (depth + h > S->bound || S->nfound >= S->want || ++S->nodes > S->maxnodes)
		return;
	if (depth == S->bound)
		return;
	for (int j = 0; j < S->M->cnt[2]; j++) {
		int k = S->M->list[2][j];
		if (skip(S->M, last, k))
			continue;
		S->path[depth] = (uint8_t)k;
		dfs2(S, T->mv2x[a * 22 + j], T->mv2t[b * 22 + j],
		     wpar ^ S->M->mv[k].wpar, depth + 1, k);
	}
}

static void dfs3(struct srch *S, uint32_t cc, int depth, int last)
{
	const struct p123 *T = S->T;
	const struct m5 *M = S->M;
	uint32_t a = cc / (N70 * N70 * N70), b = cc / (N70 * N70) % N70,
		 c = cc / N70 % N70, e = cc % N70;
	int hc = T->t3c[cc];
	if (depth + hc > S->bound || S->nfound >= S->want ||
	    ++S->nodes > S->maxnodes)
		return;
	/* the labelings still alive: their wing masks and midge errors */
	const uint32_t *lw = S->lw[depth];
	const uint16_t *lm = S->lm[depth];
	int n = S->nalive[depth], hmin = 99;
	for (int i = 0; i < n; i++) {
		int dw = T->t3w[lw[i]], dm = T->t3m[lm[i]];
		int d = dw > dm ? dw : dm;
		if (d < hmin)
			hmin = d;
	}
	if (hc == 0 && hmin == 0 && depth == S->bound) {
		found(S, depth);
		return;
	}
	if (depth == S->bound || depth + hmin > S->bound)
		return;
	uint32_t *nw = S->lw[depth + 1];
	uint16_t *nm = S->lm[depth + 1];
	int room = S->bound - depth - 1;
	for (int j = 0; j < M->cnt[3]; j++) {
		int k = M->list[3][j];
		if (skip(M, last, k))
			continue;
		uint32_t c2 = c4(T->map70[k][0][0][a], T->map70[k][0][1][b],
				 T->map70[k][1][0][c], T->map70[k][1][1][e]);
		if (T->t3c[c2] > room)
			continue;
		const uint32_t(*pm)[256] = T->pm24[k];
		int na = 0;
		for (int i = 0; i < n; i++) {
			uint32_t w = lw[i];
			uint32_t w2 = pm[0][w & 255] | pm[1][w >> 8 & 255] |
				      pm[2][w >> 16];
			if (T->t3w[w2] > room)
				continue;
			uint16_t m2 = T->pm12[k][lm[i]];
			if (T->t3m[m2] > room)
				continue;
			nw[na] = w2;
			nm[na++] = m2;
		}
		if (!na)
			continue;
		S->nalive[depth + 1] = na;
		S->path[depth] = (uint8_t)k;
		dfs3(S, c2, depth + 1, k);
		if (S->nfound >= S->want)
			return;
	}
}

static uint32_t c3_of(const struct p123 *T, const struct rd *s)
{
	return c4(split_of(T, s->xu, T->axx[0]), split_of(T, s->tu, T->axt[0]),
		  split_of(T, s->xu, T->axx[1]), split_of(T, s->tu, T->axt[1]));
}

int p123_phase(const struct p123 *T, int phase, const cube_t *c, int lo,
	       int bound, int want, uint8_t (*out)[P_MAXLEN], int *lens,
	       long maxnodes)
{
	return p123_phase_if(T, phase, c, lo, bound, want, out, lens, maxnodes,
			     NULL, NULL);
}

int p123_phase_if(const struct p123 *T, int phase, const cube_t *c, int lo,
		  int bound, int want, uint8_t (*out)[P_MAXLEN], int *lens,
		  long maxnodes, p123_accept accept, void *actx)
{
	const struct m5 *M = T->M;
	struct rd s;
	if (read_cube(M, c, &s) < 0)
		return -1;
	static __thread struct srch S;
	memset(&S, 0, offsetof(struct srch, lw));
	S.T = T;
	S.M = M;
	S.set = phase;
	S.want = want;
	S.out = out;
	S.lens = lens;
	S.maxnodes = maxnodes;
	S.start = c;
	S.accept = accept;
	S.actx = actx;
	if (phase == 1) {
		for (S.bound = lo; S.bound <= bound && !S.nfound &&
				  S.nodes < maxnodes; S.bound++)
			dfs1(&S, s.x1, s.t1, 0, -1);
	} else if (phase == 2) {
		if ((s.x1 != T->udx) || (s.t1 != T->udt))
			return -1;
		uint32_t a = T->rank16[squeeze16(s.x2, T->nonud_x)];
		uint32_t b = T->rank16[squeeze16(s.t2, T->nonud_t)];
		for (S.bound = lo; S.bound <= bound && !S.nfound &&
				  S.nodes < maxnodes; S.bound++)
			dfs2(&S, a, b, s.wpar, 0, -1);
	} else {
		uint8_t sx[12], sy[12];
		for (int w = 0; w < 24; w++) {
			int h = s.hw[w], e = M->wedge[h];
			if (M->cls[h])
				sx[e] = (uint8_t)w;
			else
				sy[e] = (uint8_t)w;
		}
		int na = 0;
		for (unsigned v = 0; v < 4096; v++) {
			if (__builtin_popcount(v) & 1)
				continue;
			uint32_t w = 0;
			uint16_t m = 0;
			for (int k = 0; k < 12; k++) {
				int bit = v >> k & 1;
				w |= 1u << (bit ? sy[k] : sx[k]);
				m |= (uint16_t)((s.q[k] ^ bit) << s.mpos[k]);
			}
			S.lw[0][na] = w;
			S.lm[0][na++] = m;
		}
		S.nalive[0] = na;
		uint32_t cc = c3_of(T, &s);
		if (T->t3c[cc] == UNSEEN)
			return -1;
		for (S.bound = lo; S.bound <= bound && !S.nfound &&
				  S.nodes < maxnodes; S.bound++)
			dfs3(&S, cc, 0, -1);
	}
	return S.nfound;
}

int p123_goal(const struct p123 *T, int phase, const cube_t *c)
{
	uint8_t out[1][P_MAXLEN];
	int len;
	int n = p123_phase(T, phase, c, 0, 0, 1, out, &len, 10);
	return n == 1 && len == 0;
}

int p123_h(const struct p123 *T, int phase, const cube_t *c)
{
	const struct m5 *M = T->M;
	struct rd s;
	if (read_cube(M, c, &s) < 0)
		return -1;
	if (phase == 1)
		return T->t1x[s.x1] > T->t1t[s.t1] ? T->t1x[s.x1] : T->t1t[s.t1];
	if (phase == 2)
		return T->t2[(size_t)T->rank16[squeeze16(s.x2, T->nonud_x)] * N16 +
			     T->rank16[squeeze16(s.t2, T->nonud_t)]];
	uint8_t sx[12], sy[12];
	for (int w = 0; w < 24; w++) {
		int h = s.hw[w], e = M->wedge[h];
		if (M->cls[h])
			sx[e] = (uint8_t)w;
		else
			sy[e] = (uint8_t)w;
	}
	int best = 99;
	for (unsigned v = 0; v < 4096; v++) {
		if (__builtin_popcount(v) & 1)
			continue;
		uint32_t w = 0;
		unsigned m = 0;
		for (int k = 0; k < 12; k++) {
			int bit = v >> k & 1;
			w |= 1u << (bit ? sy[k] : sx[k]);
			m |= (unsigned)((s.q[k] ^ bit) << s.mpos[k]);
		}
		int d = T->t3w[w] > T->t3m[m] ? T->t3w[w] : T->t3m[m];
		if (d < best)
			best = d;
	}
	int hc = T->t3c[c3_of(T, &s)];
	return hc > best ? hc : best;
}
