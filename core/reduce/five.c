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
 * the cube seen along each of its three axes. Pure C11: no allocation,
 * no globals but const data.
 */
#include "internal.h"
#include "five45.h"

/* ---- sizes ------------------------------------------------------------ */

#define V_MOVES 36
#define C8_24 735471u          /* C(24,8): phase 1's masks */
#define C12_24 2704156u        /* C(24,12): phase 3's wing masks */
#define N16 12870u             /* C(16,8) */
#define N70 70u
#define T2_N ((size_t)N16 * N16)
#define C4_N ((size_t)N70 * N70 * N70 * N70)
#define V_UNSEEN 255

static const char five_magic[8] = {'c', 'u', 'b', 'e', 'd', '5', 'F', 'P'};
#define FIVE_VERSION 1u

enum { G1 = 1, G2 = 2, G3 = 4, G4 = 8, G5 = 16 };

struct vmove {
	uint8_t axis, lo, hi, qt;
	uint8_t ord;  /* same-axis order: axis * 32 + lo * 5 + hi */
	uint8_t sets; /* G1 … G5 */
	uint8_t wpar; /* parity of its wing permutation */
	uint8_t xp[24], tp[24]; /* centre place i goes to xp[i] */
	uint8_t wp[24];         /* wing slot w goes to wp[w] */
	uint8_t mp[12];         /* midge slot p goes to mp[p] */
	uint8_t mf[12];         /* the change of a midge's turn against its
				 * slot's class-A end (0 for G4 and G5) */
};

struct vmodel {
	struct vmove mv[V_MOVES];
	uint8_t xpos[24][3], tpos[24][3]; /* place → face, row, col */
	uint8_t wst[24][2][3];   /* wing slot → its two stickers */
	uint8_t wedge[24];       /* wing slot → edge */
	uint8_t mst[12][2][3];   /* midge slot → its two stickers */
	uint8_t whome[24][6][6]; /* slot, colours → the wing's home, 255 */
	uint8_t cls[24];         /* 1: class A */
	uint8_t mcorr[12];
	uint8_t list[6][V_MOVES]; /* each phase's turns */
	uint8_t cnt[6];
	uint8_t rot[3][V_MOVES]; /* a turn in axis frame a → in the cube's */
	uint8_t nonud_x[16], nonud_t[16];
	uint8_t axx[3][8], axt[3][8]; /* each axis' places, + face first */
	uint8_t rank8[256], sub8[70];
	uint8_t pc8[256];        /* bits set in a byte (no POPCNT assumed) */
	uint32_t udx, udt, amask;
	uint32_t cr[3][17][256]; /* colex rank by bytes: byte b, set bits
				  * below it */
	uint16_t rank16[65536], sub16[N16];
	uint8_t map70[V_MOVES][3][2][70]; /* axis-keeping turns on splits */
	uint32_t pw[V_MOVES][3][256];     /* wing-slot masks by bytes */
	uint32_t px[V_MOVES][3][256], pt[V_MOVES][3][256]; /* centres' */
	uint16_t pm12[V_MOVES][4096];     /* midge error patterns */
	uint16_t mv2x[N16][22], mv2t[N16][22];
	uint8_t t3m[4096];
};

/* Layout of the tables blob. */
#define AL(x) (((size_t)(x) + 63) & ~(size_t)63)
#define OFF_MODEL ((size_t)SOLVE__HEADER)
#define OFF_T1X AL(OFF_MODEL + sizeof(struct vmodel))
#define OFF_T1T AL(OFF_T1X + C8_24)
#define OFF_T2 AL(OFF_T1T + C8_24)
#define OFF_T3W AL(OFF_T2 + T2_N / 2)
#define OFF_T3C AL(OFF_T3W + C12_24)
#define OFF_F45 AL(OFF_T3C + C4_N)
#define FIVE_SIZE (OFF_F45 + AL(reduce__five45_size()))

size_t reduce_five_tables_size(void)
{
	return FIVE_SIZE;
}

/* ---- small helpers ------------------------------------------------------ */

static int parity_of(const uint8_t *p, int n)
{
	int par = 0;
	uint32_t seen = 0;
	for (int i = 0; i < n; i++) {
		if (seen >> i & 1)
			continue;
		int len = 0;
		for (int j = i; !(seen >> j & 1); j = p[j]) {
			seen |= 1u << j;
			len++;
		}
		par ^= (len + 1) & 1;
	}
	return par;
}

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

static inline uint32_t by_bytes(const uint32_t (*t)[256], uint32_t m)
{
	return t[0][m & 255] | t[1][m >> 8 & 255] | t[2][m >> 16];
}

/* colex rank of a 24-bit mask among those with as many bits */
static inline uint32_t crank(const struct vmodel *M, uint32_t m)
{
	int p0 = M->pc8[m & 255], p1 = p0 + M->pc8[m >> 8 & 255];
	return M->cr[0][0][m & 255] + M->cr[1][p0][m >> 8 & 255] +
	       M->cr[2][p1][m >> 16];
}

static uint32_t binom(int n, int k)
{
	if (k < 0 || k > n)
		return 0;
	uint64_t r = 1;
	for (int i = 1; i <= k; i++)
		r = r * (uint64_t)(n - k + i) / (uint64_t)i;
	return (uint32_t)r;
}

static inline int nib_get(const uint8_t *t, size_t i)
{
	return t[i >> 1] >> ((i & 1) * 4) & 15;
}

static inline void nib_set(uint8_t *t, size_t i, int v)
{
	t[i >> 1] = (uint8_t)((t[i >> 1] & ~(15 << ((i & 1) * 4))) |
			      (v << ((i & 1) * 4)));
}

static inline uint32_t c4(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
	return ((a * N70 + b) * N70 + c) * N70 + d;
}

/* ---- the model ---------------------------------------------------------- */

static int st(int f, int r, int c)
{
	return f * 25 + r * 5 + c;
}

static void label(cube_t *t)
{
	cube_init(t, 5);
	for (int f = 0; f < 6; f++)
		for (int r = 0; r < 5; r++)
			for (int c = 0; c < 5; c++)
				cube__set(t, f, r, c, 8 + st(f, r, c));
}

static void read_labels(const cube_t *t, int src[150])
{
	for (int f = 0; f < 6; f++)
		for (int r = 0; r < 5; r++)
			for (int c = 0; c < 5; c++)
				src[st(f, r, c)] = cube_get(t, f, r, c) - 8;
}

/* the whole-cube turn that brings axis a to U/D */
static void axis_turn(cube_t *t, int a)
{
	if (a == 1)
		cube_turn(t, CUBE_Z, 0, 4, 1);
	else if (a == 2)
		cube_turn(t, CUBE_X, 0, 4, 1);
}

static int edges_model(struct vmodel *M, int *wi, int *wk, int *mi, int *mk)
{
	int nw = 0;
	for (int e = 0; e < 12; e++) {
		int ef[2] = {cubie__edge_facelet[e][0], cubie__edge_facelet[e][1]};
		for (int s = 0; s < 2; s++) {
			int f = ef[s] / 9, r3 = ef[s] % 9 / 3, c3 = ef[s] % 3;
			int r = r3 * 2, c = c3 * 2;
			M->mst[e][s][0] = (uint8_t)f;
			M->mst[e][s][1] = (uint8_t)r;
			M->mst[e][s][2] = (uint8_t)c;
			mi[st(f, r, c)] = e;
			mk[st(f, r, c)] = s;
		}
		/* the wings, named by the corner they are next to */
		for (int k = 0; k < 8; k++) {
			int cf[2] = {-1, -1};
			for (int j = 0; j < 3; j++) {
				int f = cubie__corner_facelet[k][j];
				for (int s = 0; s < 2; s++)
					if (f / 9 == ef[s] / 9)
						cf[s] = f;
			}
			if (cf[0] < 0 || cf[1] < 0)
				continue;
			if (nw >= 24)
				return -1;
			for (int s = 0; s < 2; s++) {
				int f = ef[s] / 9, r3 = ef[s] % 9 / 3, c3 = ef[s] % 3;
				int cr = cf[s] % 9 / 3, cc = cf[s] % 3, r, c;
				if (r3 == 1) {
					c = c3 * 2;
					r = cr == 0 ? 1 : 3;
				} else {
					r = r3 * 2;
					c = cc == 0 ? 1 : 3;
				}
				M->wst[nw][s][0] = (uint8_t)f;
				M->wst[nw][s][1] = (uint8_t)r;
				M->wst[nw][s][2] = (uint8_t)c;
				wi[st(f, r, c)] = nw;
				wk[st(f, r, c)] = s;
			}
			M->wedge[nw] = (uint8_t)e;
			nw++;
		}
	}
	return nw == 24 ? 0 : -1;
}

/* where each wing can sit and which way round: breadth-first from its
 * home over every turn */
static int wing_homes(struct vmodel *M, uint8_t wo[V_MOVES][24])
{
	memset(M->whome, 255, sizeof M->whome);
	for (int h = 0; h < 24; h++) {
		int8_t way[24];
		uint8_t q[24];
		int qh = 0, qt = 0;
		memset(way, -1, sizeof way);
		way[h] = 0;
		q[qt++] = (uint8_t)h;
		while (qh < qt) {
			int v = q[qh++];
			for (int k = 0; k < V_MOVES; k++) {
				int v2 = M->mv[k].wp[v];
				int o = way[v] ^ wo[k][v];
				if (way[v2] < 0) {
					way[v2] = (int8_t)o;
					q[qt++] = (uint8_t)v2;
				} else if (way[v2] != o) {
					return -1;
				}
			}
		}
		int a = M->wst[h][0][0], b = M->wst[h][1][0];
		for (int v = 0; v < 24; v++) {
			if (way[v] < 0)
				return -1;
			int x0 = way[v] ? b : a, x1 = way[v] ? a : b;
			if (M->whome[v][x0][x1] != 255)
				return -1;
			M->whome[v][x0][x1] = (uint8_t)h;
		}
	}
	return 0;
}

/* the classes: orbits of G4 ∪ G5 on the wing slots, one slot of each
 * edge in each; the midges' corrections, kept by those turns */
static int classes(struct vmodel *M, uint8_t mo[V_MOVES][12])
{
	uint8_t par[24];
	for (int i = 0; i < 24; i++)
		par[i] = (uint8_t)i;
	for (int k = 0; k < V_MOVES; k++) {
		if (!(M->mv[k].sets & (G4 | G5)))
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
	int r0 = 0, na = 0;
	while (par[r0] != r0)
		r0 = par[r0];
	uint32_t edges = 0;
	for (int w = 0; w < 24; w++) {
		int x = w;
		while (par[x] != x)
			x = par[x];
		M->cls[w] = x == r0;
		if (M->cls[w]) {
			na++;
			M->amask |= 1u << w;
			edges |= 1u << M->wedge[w];
		}
	}
	if (na != 12 || edges != 0xfff)
		return -1;
	int8_t c[12];
	memset(c, -1, sizeof c);
	for (int root = 0; root < 12; root++) {
		if (c[root] >= 0)
			continue;
		c[root] = 0;
		for (int changed = 1; changed;) {
			changed = 0;
			for (int k = 0; k < V_MOVES; k++) {
				if (!(M->mv[k].sets & (G4 | G5)))
					continue;
				for (int p = 0; p < 12; p++) {
					if (c[p] < 0)
						continue;
					int p2 = M->mv[k].mp[p];
					int v = c[p] ^ mo[k][p];
					if (c[p2] < 0) {
						c[p2] = (int8_t)v;
						changed = 1;
					} else if (c[p2] != v) {
						return -1;
					}
				}
			}
		}
	}
	for (int p = 0; p < 12; p++)
		M->mcorr[p] = (uint8_t)c[p];
	for (int k = 0; k < V_MOVES; k++)
		for (int p = 0; p < 12; p++)
			M->mv[k].mf[p] = (uint8_t)(mo[k][p] ^ c[p] ^
						   c[M->mv[k].mp[p]]);
	return 0;
}

/* For each axis frame a, each turn k: the turn k' of the cube's own
 * frame with k' then the axis turn equal to the axis turn then k. */
static int frames(struct vmodel *M, cube_t *t, cube_t *u)
{
	int s1[150], s2[150];
	for (int a = 0; a < 3; a++)
		for (int k = 0; k < V_MOVES; k++) {
			const struct vmove *g = &M->mv[k];
			label(t);
			axis_turn(t, a);
			cube_turn(t, g->axis, g->lo, g->hi, g->qt);
			read_labels(t, s1);
			int found = -1;
			for (int k2 = 0; k2 < V_MOVES && found < 0; k2++) {
				const struct vmove *h = &M->mv[k2];
				label(u);
				cube_turn(u, h->axis, h->lo, h->hi, h->qt);
				axis_turn(u, a);
				read_labels(u, s2);
				if (!memcmp(s1, s2, sizeof s1))
					found = k2;
			}
			if (found < 0)
				return -1;
			M->rot[a][k] = (uint8_t)found;
		}
	return 0;
}

static int model_build(struct vmodel *M, cube_t *t, cube_t *u)
{
	memset(M, 0, sizeof *M);
	int xi[150], ti[150], wi[150], wk[150], mi[150], mk[150];
	for (int i = 0; i < 150; i++)
		xi[i] = ti[i] = wi[i] = mi[i] = -1;
	int nx = 0, nt = 0;
	for (int f = 0; f < 6; f++)
		for (int r = 1; r <= 3; r++)
			for (int c = 1; c <= 3; c++) {
				if (r == 2 && c == 2)
					continue;
				uint8_t *p = (r + c) % 2 ? M->tpos[nt] : M->xpos[nx];
				p[0] = (uint8_t)f;
				p[1] = (uint8_t)r;
				p[2] = (uint8_t)c;
				if ((r + c) % 2)
					ti[st(f, r, c)] = nt++;
				else
					xi[st(f, r, c)] = nx++;
			}
	if (edges_model(M, wi, wk, mi, mk) < 0)
		return -1;
	/* the turns: per face, face then wide, a quarter, half, three */
	static const uint8_t fax[6] = {CUBE_Y, CUBE_X, CUBE_Z,
				       CUBE_Y, CUBE_X, CUBE_Z};
	int src[150], nm = 0;
	uint8_t wo[V_MOVES][24], mo[V_MOVES][12];
	for (int f = 0; f < 6; f++)
		for (int wide = 0; wide < 2; wide++)
			for (int q = 1; q <= 3; q++) {
				struct vmove *g = &M->mv[nm];
				int side0 = f < 3;
				g->axis = fax[f];
				g->lo = (uint8_t)(side0 ? 0 : wide ? 3 : 4);
				g->hi = (uint8_t)(side0 ? wide : 4);
				g->qt = (uint8_t)q;
				g->ord = (uint8_t)(g->axis * 32 + g->lo * 5 + g->hi);
				label(t);
				cube_turn(t, g->axis, g->lo, g->hi, q);
				read_labels(t, src);
				for (int s = 0; s < 150; s++) {
					int from = src[s];
					if (xi[s] >= 0)
						g->xp[xi[from]] = (uint8_t)xi[s];
					if (ti[s] >= 0)
						g->tp[ti[from]] = (uint8_t)ti[s];
					if (wi[s] >= 0 && wk[s] == 0) {
						g->wp[wi[from]] = (uint8_t)wi[s];
						wo[nm][wi[from]] = (uint8_t)wk[from];
					}
					if (mi[s] >= 0 && mk[s] == 0) {
						g->mp[mi[from]] = (uint8_t)mi[s];
						mo[nm][mi[from]] = (uint8_t)mk[from];
					}
				}
				g->wpar = (uint8_t)parity_of(g->wp, 24);
				int half = q == 2, face = !wide;
				int ud = f == 0 || f == 3, fb = f == 2 || f == 5;
				g->sets = G1;
				if ((!ud && face) || (ud && wide) || (wide && half))
					g->sets |= G2;
				if (face || half)
					g->sets |= G3;
				if ((ud && face) || (face && half) || (wide && half))
					g->sets |= G4;
				if ((fb && face) || (face && half) ||
				    (wide && half && !fb))
					g->sets |= G5;
				nm++;
			}
	for (int k = 1; k <= 5; k++)
		for (int i = 0; i < V_MOVES; i++)
			if (M->mv[i].sets >> (k - 1) & 1)
				M->list[k][M->cnt[k]++] = (uint8_t)i;
	if (M->cnt[2] != 22 || M->cnt[3] != 24)
		return -1;
	if (wing_homes(M, wo) < 0 || classes(M, mo) < 0 || frames(M, t, u) < 0)
		return -1;

	/* coordinates */
	for (int v = 0; v < 256; v++)
		M->pc8[v] = (uint8_t)__builtin_popcount((unsigned)v);
	int n = 0;
	memset(M->rank8, 255, sizeof M->rank8);
	for (int s = 0; s < 256; s++)
		if (__builtin_popcount((unsigned)s) == 4) {
			M->rank8[s] = (uint8_t)n;
			M->sub8[n++] = (uint8_t)s;
		}
	n = 0;
	for (int s = 0; s < 65536; s++)
		if (__builtin_popcount((unsigned)s) == 8) {
			M->rank16[s] = (uint16_t)n;
			M->sub16[n++] = (uint16_t)s;
		}
	for (int b = 0; b < 3; b++)
		for (int below = 0; below <= 16; below++)
			for (int v = 0; v < 256; v++) {
				uint32_t r = 0;
				int i = below;
				for (int j = 0; j < 8; j++)
					if (v >> j & 1) {
						r += binom(8 * b + j, i + 1);
						i++;
					}
				M->cr[b][below][v] = r;
			}
	for (int a = 0; a < 3; a++) {
		int kx = 0, kt = 0;
		for (int side = 0; side < 2; side++) {
			int f = side ? a + 3 : a;
			for (int i = 0; i < 24; i++) {
				if (M->xpos[i][0] == f)
					M->axx[a][kx++] = (uint8_t)i;
				if (M->tpos[i][0] == f)
					M->axt[a][kt++] = (uint8_t)i;
			}
		}
	}
	int ux = 0, ut = 0;
	for (int i = 0; i < 24; i++) {
		if (M->xpos[i][0] % 3 == 0)
			M->udx |= 1u << i;
		else
			M->nonud_x[ux++] = (uint8_t)i;
		if (M->tpos[i][0] % 3 == 0)
			M->udt |= 1u << i;
		else
			M->nonud_t[ut++] = (uint8_t)i;
	}
	for (int k = 0; k < V_MOVES; k++) {
		const struct vmove *g = &M->mv[k];
		for (int b = 0; b < 3; b++)
			for (uint32_t v = 0; v < 256; v++) {
				M->pw[k][b][v] = perm_mask(v << (8 * b), g->wp);
				M->px[k][b][v] = perm_mask(v << (8 * b), g->xp);
				M->pt[k][b][v] = perm_mask(v << (8 * b), g->tp);
			}
		for (unsigned e = 0; e < 4096; e++) {
			unsigned e2 = 0;
			for (int p = 0; p < 12; p++)
				if ((e >> p & 1) ^ g->mf[p])
					e2 |= 1u << g->mp[p];
			M->pm12[k][e] = (uint16_t)e2;
		}
		if (!(g->sets & (G3 | G4 | G5)))
			continue;
		for (int a = 0; a < 3; a++)
			for (int ty = 0; ty < 2; ty++) {
				const uint8_t *pl = ty ? M->axt[a] : M->axx[a];
				const uint8_t *pp = ty ? g->tp : g->xp;
				for (int r = 0; r < 70; r++) {
					uint32_t m = 0, s = 0;
					for (int j = 0; j < 8; j++)
						if (M->sub8[r] >> j & 1)
							m |= 1u << pl[j];
					m = perm_mask(m, pp);
					for (int j = 0; j < 8; j++)
						if (m >> pl[j] & 1)
							s |= 1u << j;
					if (M->rank8[s] == 255)
						return -1; /* left its axis */
					M->map70[k][a][ty][r] = M->rank8[s];
				}
			}
	}
	int inx[24], int_[24];
	for (int j = 0; j < 16; j++) {
		inx[M->nonud_x[j]] = j;
		int_[M->nonud_t[j]] = j;
	}
	for (uint32_t r = 0; r < N16; r++)
		for (int j = 0; j < 22; j++) {
			const struct vmove *g = &M->mv[M->list[2][j]];
			uint32_t mx = 0, mt = 0;
			for (int b = 0; b < 16; b++)
				if (M->sub16[r] >> b & 1) {
					if (M->udx >> g->xp[M->nonud_x[b]] & 1)
						return -1;
					mx |= 1u << inx[g->xp[M->nonud_x[b]]];
					mt |= 1u << int_[g->tp[M->nonud_t[b]]];
				}
			M->mv2x[r][j] = M->rank16[mx];
			M->mv2t[r][j] = M->rank16[mt];
		}
	return 0;
}

/* ---- table builds ------------------------------------------------------- */

struct vbuild {
	const struct vmodel *M;
	uint32_t *queue;     /* C12_24 entries */
	uint8_t *t4c;        /* C4_N: phase 4's centre distances */
	uint64_t *hash, *hq; /* G5's centre states */
	solve_poll_fn poll;
	void *ctx;
	int step, steps;
};

#define HASH_BITS 21
#define HQ_N (1u << 18)

static int progress(struct vbuild *B)
{
	B->step++;
	return B->poll && B->poll(B->ctx, (uint64_t)B->step, (uint64_t)B->steps);
}

/* breadth-first over masks (k bits of 24) under set's turns; t by rank */
static void bfs_mask(struct vbuild *B, uint8_t *t, size_t n, uint32_t start,
		     int set, int which)
{
	const struct vmodel *M = B->M;
	memset(t, V_UNSEEN, n);
	size_t qh = 0, qt = 0;
	t[crank(M, start)] = 0;
	B->queue[qt++] = start;
	while (qh < qt) {
		uint32_t m = B->queue[qh++];
		int d = t[crank(M, m)];
		for (int j = 0; j < M->cnt[set]; j++) {
			int k = M->list[set][j];
			const uint32_t(*p)[256] = which == 0   ? M->px[k]
						  : which == 1 ? M->pt[k]
							       : M->pw[k];
			uint32_t m2 = by_bytes(p, m);
			uint32_t r = crank(M, m2);
			if (t[r] == V_UNSEEN) {
				t[r] = (uint8_t)(d + 1);
				B->queue[qt++] = m2;
			}
		}
	}
}

/* phase 2: the R/L x- and +-pieces' places among the 16 off U/D places,
 * nibbles (15 unseen), forward while the frontier is small, then
 * backward */
static int bfs_t2(struct vbuild *B, uint8_t *t)
{
	const struct vmodel *M = B->M;
	memset(t, 0xff, T2_N / 2);
	uint32_t gx = 0, gt = 0;
	for (int j = 0; j < 16; j++) {
		if (M->xpos[M->nonud_x[j]][0] % 3 == 1)
			gx |= 1u << j;
		if (M->tpos[M->nonud_t[j]][0] % 3 == 1)
			gt |= 1u << j;
	}
	nib_set(t, (size_t)M->rank16[gx] * N16 + M->rank16[gt], 0);
	size_t seen = 1;
	for (int d = 0; d < 14 && seen < T2_N; d++) {
		size_t add = 0;
		int back = seen > T2_N / 3;
		for (size_t i = 0; i < T2_N; i++) {
			int v = nib_get(t, i);
			if (back ? v != 15 : v != d)
				continue;
			uint32_t a = (uint32_t)(i / N16), b = (uint32_t)(i % N16);
			for (int j = 0; j < 22; j++) {
				size_t i2 = (size_t)M->mv2x[a][j] * N16 + M->mv2t[b][j];
				if (back) {
					if (nib_get(t, i2) == d) {
						nib_set(t, i, d + 1);
						add++;
						break;
					}
				} else if (nib_get(t, i2) == 15) {
					nib_set(t, i2, d + 1);
					add++;
				}
			}
		}
		if (progress(B))
			return SOLVE_ENOTFOUND;
		if (!add)
			break;
		seen += add;
	}
	return 0;
}

static uint64_t key6(const uint8_t s[6])
{
	uint64_t k = 0;
	for (int i = 0; i < 6; i++)
		k = k * 70 + s[i];
	return k;
}

/* The centre states phase 5 solves: breadth-first over G5 from solved
 * (every axis' six splits, hashed); their (U/D, R/L) splits are phase
 * 4's goal (36 of them). */
static int g5_centres(struct vbuild *B)
{
	const struct vmodel *M = B->M;
	size_t hsz = (size_t)1 << HASH_BITS;
	memset(B->hash, 0xff, hsz * sizeof *B->hash);
	memset(B->t4c, V_UNSEEN, C4_N);
	uint8_t s0[6];
	for (int i = 0; i < 6; i++)
		s0[i] = M->rank8[0x0f];
	size_t qh = 0, qt = 0;
	uint64_t k0 = key6(s0);
	B->hq[qt++] = k0;
	B->hash[(k0 * 0x9E3779B97F4A7C15ull) >> (64 - HASH_BITS)] = k0;
	while (qh < qt) {
		uint64_t k = B->hq[qh++];
		uint8_t s[6];
		for (int i = 5; i >= 0; i--) {
			s[i] = (uint8_t)(k % 70);
			k /= 70;
		}
		B->t4c[c4(s[0], s[1], s[2], s[3])] = 0;
		for (int j = 0; j < M->cnt[5]; j++) {
			int mk = M->list[5][j];
			uint8_t s2[6];
			for (int a = 0; a < 3; a++) {
				s2[2 * a] = M->map70[mk][a][0][s[2 * a]];
				s2[2 * a + 1] = M->map70[mk][a][1][s[2 * a + 1]];
			}
			uint64_t k2 = key6(s2);
			size_t i = (k2 * 0x9E3779B97F4A7C15ull) >> (64 - HASH_BITS);
			while (B->hash[i] != ~0ull && B->hash[i] != k2)
				i = (i + 1) & (hsz - 1);
			if (B->hash[i] == ~0ull) {
				if (qt >= HQ_N)
					return -1;
				B->hash[i] = k2;
				B->hq[qt++] = k2;
			}
		}
	}
	return qt == 176400 ? 0 : -1;
}

/* (U/D, R/L) splits by distance under set's turns from the entries
 * already 0 */
static void bfs70(const struct vmodel *M, uint8_t *t, int set)
{
	for (int d = 0;; d++) {
		size_t add = 0;
		for (size_t i = 0; i < C4_N; i++) {
			if (t[i] != d)
				continue;
			uint32_t a = (uint32_t)(i / (N70 * N70 * N70)),
				 b = (uint32_t)(i / (N70 * N70) % N70),
				 c = (uint32_t)(i / N70 % N70),
				 e = (uint32_t)(i % N70);
			for (int j = 0; j < M->cnt[set]; j++) {
				int k = M->list[set][j];
				uint32_t i2 = c4(M->map70[k][0][0][a],
						 M->map70[k][0][1][b],
						 M->map70[k][1][0][c],
						 M->map70[k][1][1][e]);
				if (t[i2] == V_UNSEEN) {
					t[i2] = (uint8_t)(d + 1);
					add++;
				}
			}
		}
		if (!add)
			break;
	}
}

static void bfs_t3m(struct vmodel *M)
{
	uint16_t q[4096];
	int qh = 0, qt = 0;
	memset(M->t3m, V_UNSEEN, sizeof M->t3m);
	M->t3m[0] = 0;
	q[qt++] = 0;
	while (qh < qt) {
		unsigned e = q[qh++];
		for (int j = 0; j < M->cnt[3]; j++) {
			unsigned e2 = M->pm12[M->list[3][j]][e];
			if (M->t3m[e2] == V_UNSEEN) {
				M->t3m[e2] = (uint8_t)(M->t3m[e] + 1);
				q[qt++] = (uint16_t)e2;
			}
		}
	}
}

static size_t own_work(void)
{
	return AL((size_t)C12_24 * 4) + AL(C4_N) +
	       AL(((size_t)1 << HASH_BITS) * 8) + AL((size_t)HQ_N * 8) +
	       2 * AL(cube_sizeof(5)) + 64;
}

size_t reduce_five_tables_work_size(void)
{
	size_t a = own_work(), b = reduce__five45_work_size() + 64;
	return a > b ? a : b;
}

int reduce_five_tables_build(void *tables, size_t size, void *work,
			     size_t work_size, const reduce_limits *lim)
{
	if (!tables || !work || size < FIVE_SIZE ||
	    work_size < reduce_five_tables_work_size() ||
	    ((uintptr_t)tables & 15))
		return CUBE_EINVAL;
	unsigned char *T = tables;
	memset(T, 0, OFF_T1X);
	unsigned char *w = (unsigned char *)(((uintptr_t)work + 63) &
					     ~(uintptr_t)63);
	struct vmodel *M = (struct vmodel *)(void *)(T + OFF_MODEL);
	struct vbuild B = {.M = M,
			   .poll = lim ? lim->poll : NULL,
			   .ctx = lim ? lim->ctx : NULL,
			   .steps = 24};
	B.queue = (uint32_t *)(void *)w;
	B.t4c = w + AL((size_t)C12_24 * 4);
	B.hash = (uint64_t *)(void *)(B.t4c + AL(C4_N));
	B.hq = B.hash + ((size_t)1 << HASH_BITS);
	cube_t *c1 = (cube_t *)(void *)((unsigned char *)B.hq +
					AL((size_t)HQ_N * 8));
	cube_t *c2 = (cube_t *)(void *)((unsigned char *)c1 +
					AL(cube_sizeof(5)));
	if (model_build(M, c1, c2) < 0)
		return SOLVE_ESTAGE;
	bfs_t3m(M);
	bfs_mask(&B, T + OFF_T1X, C8_24, M->udx, 1, 0);
	bfs_mask(&B, T + OFF_T1T, C8_24, M->udt, 1, 1);
	bfs_mask(&B, T + OFF_T3W, C12_24, M->amask, 3, 2);
	if (progress(&B))
		return SOLVE_ENOTFOUND;
	if (g5_centres(&B) < 0)
		return SOLVE_ESTAGE;
	bfs70(M, B.t4c, 4);
	uint8_t *t3c = T + OFF_T3C;
	for (size_t i = 0; i < C4_N; i++)
		t3c[i] = B.t4c[i] == V_UNSEEN ? V_UNSEEN : 0;
	bfs70(M, t3c, 3);
	if (progress(&B))
		return SOLVE_ENOTFOUND;
	int rc = bfs_t2(&B, T + OFF_T2);
	if (rc < 0)
		return rc;
	rc = reduce__five45_build(T + OFF_F45, w, B.poll, B.ctx);
	if (rc < 0)
		return rc == SOLVE_ECANCELLED ? SOLVE_ENOTFOUND : SOLVE_ESTAGE;
	solve__seal(T, FIVE_SIZE, five_magic, FIVE_VERSION);
	return 0;
}

int reduce_five_tables_check(const void *tables, size_t size)
{
	return solve__check(tables, size, FIVE_SIZE, five_magic, FIVE_VERSION);
}

int reduce__five_tables_ok(const void *tables)
{
	return tables && solve__header_ok(tables, FIVE_SIZE, five_magic,
					  FIVE_VERSION);
}

/* Depth counts of a built table, for tests and docs: which 0 … 4 (phase
 * 1 x-centres, +-centres, phase 2, phase 3 wings, phase 3 centres), 5 …
 * 9 five45's tables 0 … 4. Returns the states reached. */
long reduce__five_census(const void *tables, int which, long counts[16])
{
	const unsigned char *T = tables;
	if (which >= 5)
		return reduce__five45_census(T + OFF_F45, which - 5, counts);
	memset(counts, 0, 16 * sizeof *counts);
	long total = 0;
	if (which == 2) {
		for (size_t i = 0; i < T2_N; i++) {
			int v = nib_get(T + OFF_T2, i);
			if (v != 15) {
				counts[v]++;
				total++;
			}
		}
		return total;
	}
	static const size_t off[5] = {OFF_T1X, OFF_T1T, 0, OFF_T3W, OFF_T3C};
	static const size_t n[5] = {C8_24, C8_24, 0, C12_24, C4_N};
	for (size_t i = 0; i < n[which]; i++) {
		uint8_t v = T[off[which] + i];
		if (v < 16) {
			counts[v]++;
			total++;
		}
	}
	return total;
}

/* ---- the solve ----------------------------------------------------------- */

/* Answers kept between phases, by effort (1, 2, 3): phase 1 … phase 4's
 * sets, phase 5's (the reductions the 3×3 stage finishes), and the nodes
 * a search may visit once its phase holds an answer (before that,
 * CAP_FIRST; phase 5's CAP_45). Measured on the bench's first 60 5×5s
 * (bench/RESULTS.md, "5×5 under 72 at the default"): 20/20/20/12/2 with
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
	int stopped; /* the caller's poll */
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
};

static cube_t *el_cube(struct fel *e)
{
	return (cube_t *)(void *)e->cb;
}

static int node(struct vsrch *S)
{
	struct fivew *w = S->w;
	if (++S->nodes > S->cap || w->stopped)
		return 1;
	if ((++w->nodes & 0xffff) == 0 && S->lim && S->lim->poll &&
	    S->lim->poll(S->lim->ctx, (uint64_t)w->nodes, 0)) {
		w->stopped = 1;
		return 1;
	}
	return 0;
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
	for (int t = tmin; nout < q && t < tend && !w->stopped; t++) {
		/* once it holds an answer, a few lengths more at most */
		if (nout && tend > t + FIVE_MORE)
			tend = t + FIVE_MORE;
		for (int i = 0; i < nin && nout < q && !w->stopped; i++) {
			int b = t - in[i].cost;
			if (h[i] < 0 || b < h[i])
				continue;
			S->cap = nout ? S->after : CAP_FIRST;
			if (phase <= 3) {
				if (b > V_DEPTH)
					continue;
				int n = search123(S, phase, el_cube(&in[i]), b, q - nout);
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
					S->lim ? S->lim->poll : NULL,
					S->lim ? S->lim->ctx : NULL);
				spent += used;
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
						  w->a45, w->l45, S->cap, &used,
						  S->lim ? S->lim->poll : NULL,
						  S->lim ? S->lim->ctx : NULL);
			spent += used;
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
 * in set[cur], shortest first; how many, or an error. */
static int five_pass(struct ctx *x, struct vsrch *S, int e)
{
	struct fivew *w = S->w;
	S->after = cap_after[e];
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
	for (int ph = 1; ph <= 4; ph++) {
		if (step(S, ph, quota[e][ph - 1]) == 0)
			return w->stopped ? SOLVE_ENOTFOUND : SOLVE_ESTAGE;
		sort_set(w->set[w->cur], w->nset[w->cur]);
	}
	int n5 = step(S, 5, quota[e][4]);
	if (w->stopped)
		return SOLVE_ENOTFOUND;
	if (n5 == 0)
		return SOLVE_ESTAGE;
	sort_set(w->set[w->cur], n5);
	return n5;
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
	int e = x->effort < 1 ? 1 : x->effort > 3 ? 3 : x->effort;
	if (cube_sizeof(5) > F_CB)
		return SOLVE_ESTAGE;
	w->nodes = 0;
	w->stopped = 0;
	int nkeep = 0;
	if (e > 1) {
		int n = five_pass(x, &S, 1);
		if (n == SOLVE_ENOTFOUND)
			return n;
		for (int i = 0; i < n && nkeep < F_KEEP; i++)
			memcpy(&w->keep[nkeep++], &w->set[w->cur][i],
			       sizeof w->keep[0]);
	}
	int n5 = five_pass(x, &S, e);
	if (n5 == SOLVE_ENOTFOUND || (n5 < 0 && !nkeep))
		return n5;
	if (n5 < 0)
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
