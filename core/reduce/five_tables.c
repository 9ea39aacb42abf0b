/* five_tables.c — the 5×5 five phases' model and tables (docs/solvers.md,
 * "5×5 in five phases"): the model read off cube_turn (each phase's
 * turns on centre places, wing slots and midges), its three phases'
 * pruning tables (phases 4 and 5's are five45.c's), their build, census
 * and check. five.c searches them. Pure C11: no allocation, no globals
 * but const data.
 */
#include <string.h>

#include "cubie_internal.h"
#include "five_model.h"

static const char five_magic[8] = {'c', 'u', 'b', 'e', 'd', '5', 'F', 'P'};
#define FIVE_VERSION 1u

size_t reduce_five_tables_size(void)
{
	return FIVE_SIZE;
}

/* ---- helpers of the build ------------------------------------------------ */

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

static uint32_t binom(int n, int k)
{
	if (k < 0 || k > n)
		return 0;
	uint64_t r = 1;
	for (int i = 1; i <= k; i++)
		r = r * (uint64_t)(n - k + i) / (uint64_t)i;
	return (uint32_t)r;
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
	/* every byte, the gaps between tables too: the same file from every
	 * build (the header zero, not good, until sealed) */
	memset(T, 0, FIVE_SIZE);
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
