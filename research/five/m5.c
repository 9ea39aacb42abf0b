/* m5.c — the 5×5 piece model (see m5.h). */
#include <string.h>
#include "m5.h"
#include "cube_internal.h"
#include "pieces.h"

static int st(int f, int r, int c)
{
	return f * 25 + r * 5 + c;
}

int m5_parity(const uint8_t *p, int n)
{
	int par = 0;
	uint8_t seen[32] = {0};
	for (int i = 0; i < n; i++) {
		if (seen[i])
			continue;
		int len = 0;
		for (int j = i; !seen[j]; j = p[j]) {
			seen[j] = 1;
			len++;
		}
		par ^= (len + 1) & 1;
	}
	return par;
}

/* every sticker labelled by its index (+ 8), turned: where each came from */
static void turned(cube_t *t, int axis, int lo, int hi, int qt, int src[150])
{
	cube_init(t, 5);
	for (int f = 0; f < 6; f++)
		for (int r = 0; r < 5; r++)
			for (int c = 0; c < 5; c++)
				cube__set(t, f, r, c, 8 + st(f, r, c));
	cube_turn(t, axis, lo, hi, qt);
	for (int f = 0; f < 6; f++)
		for (int r = 0; r < 5; r++)
			for (int c = 0; c < 5; c++)
				src[st(f, r, c)] = cube_get(t, f, r, c) - 8;
}

static const char fname[] = "URFDLB";

void m5_name(const struct m5 *M, int k, char *out)
{
	const struct m5move *g = &M->mv[k];
	int side0 = g->lo == 0;
	int q = side0 ? g->qt : 4 - g->qt;
	int i = 0;
	out[i++] = fname[g->face];
	if (g->wide)
		out[i++] = 'w';
	if (q == 2)
		out[i++] = '2';
	if (q == 3)
		out[i++] = '\'';
	out[i] = 0;
}

void m5_apply(const struct m5 *M, cube_t *c, int k)
{
	const struct m5move *g = &M->mv[k];
	cube_turn(c, g->axis, g->lo, g->hi, g->qt);
}

int m5_build(struct m5 *M)
{
	memset(M, 0, sizeof *M);
	static unsigned char buf[4096];
	cube_t *t = (cube_t *)(void *)buf;
	if (cube_sizeof(5) > sizeof buf)
		return -1;
	int xi[150], ti[150], wi[150], wk[150], mi[150], mk[150];
	for (int i = 0; i < 150; i++)
		xi[i] = ti[i] = wi[i] = mi[i] = -1;
	int nx = 0, nt = 0;
	for (int f = 0; f < 6; f++)
		for (int r = 1; r <= 3; r++)
			for (int c = 1; c <= 3; c++) {
				if (r == 2 && c == 2)
					continue;
				if ((r + c) % 2 == 0) {
					xi[st(f, r, c)] = nx;
					M->xpos[nx][0] = (uint8_t)f;
					M->xpos[nx][1] = (uint8_t)r;
					M->xpos[nx][2] = (uint8_t)c;
					nx++;
				} else {
					ti[st(f, r, c)] = nt;
					M->tpos[nt][0] = (uint8_t)f;
					M->tpos[nt][1] = (uint8_t)r;
					M->tpos[nt][2] = (uint8_t)c;
					nt++;
				}
			}
	/* edges: midge in the middle, wings named by the corner they are
	 * next to; sticker [0] on the edge's first facelet's face */
	int nw = 0;
	for (int e = 0; e < 12; e++) {
		int ef[2] = {cubie__edge_facelet[e][0], cubie__edge_facelet[e][1]};
		for (int s = 0; s < 2; s++) {
			int f = ef[s] / 9, r3 = ef[s] % 9 / 3, c3 = ef[s] % 3;
			int r = r3 == 0 ? 0 : r3 == 1 ? 2 : 4;
			int c = c3 == 0 ? 0 : c3 == 1 ? 2 : 4;
			M->mst[e][s][0] = (uint8_t)f;
			M->mst[e][s][1] = (uint8_t)r;
			M->mst[e][s][2] = (uint8_t)c;
			mi[st(f, r, c)] = e;
			mk[st(f, r, c)] = s;
		}
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
					c = c3 == 0 ? 0 : 4;
					r = cr == 0 ? 1 : 3;
				} else {
					r = r3 == 0 ? 0 : 4;
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
	if (nx != 24 || nt != 24 || nw != 24)
		return -1;

	/* the moves: per face, face then wide, qt 1..3 */
	static const uint8_t fax[6] = {CUBE_Y, CUBE_X, CUBE_Z, CUBE_Y, CUBE_X, CUBE_Z};
	int src[150], wo[M5_MOVES][24], nm = 0;
	for (int f = 0; f < 6; f++)
		for (int wide = 0; wide < 2; wide++)
			for (int q = 1; q <= 3; q++) {
				struct m5move *g = &M->mv[nm];
				int side0 = f < 3;
				g->axis = fax[f];
				g->lo = (uint8_t)(side0 ? 0 : wide ? 3 : 4);
				g->hi = (uint8_t)(side0 ? (wide ? 1 : 0) : 4);
				g->qt = (uint8_t)q;
				g->face = (uint8_t)f;
				g->wide = (uint8_t)wide;
				g->ord = (uint8_t)(g->axis * 32 + g->lo * 5 + g->hi);
				turned(t, g->axis, g->lo, g->hi, q, src);
				for (int s = 0; s < 150; s++) {
					int from = src[s];
					if (xi[s] >= 0)
						g->xp[xi[from]] = (uint8_t)xi[s];
					if (ti[s] >= 0)
						g->tp[ti[from]] = (uint8_t)ti[s];
					if (wi[s] >= 0 && wk[s] == 0) {
						g->wp[wi[from]] = (uint8_t)wi[s];
						wo[nm][wi[from]] = wk[from];
					}
					if (mi[s] >= 0 && mk[s] == 0) {
						g->mp[mi[from]] = (uint8_t)mi[s];
						g->mo[mi[from]] = (uint8_t)mk[from];
					}
				}
				g->wpar = (uint8_t)m5_parity(g->wp, 24);
				int half = q == 2, faceturn = !wide;
				int ud = f == 0 || f == 3, fb = f == 2 || f == 5;
				g->sets = G1;
				if ((!ud && faceturn) || (ud && wide) || (wide && half))
					g->sets |= G2;
				if (faceturn || half)
					g->sets |= G3;
				if ((ud && faceturn) || (faceturn && half) || (wide && half))
					g->sets |= G4;
				if ((fb && faceturn) || (faceturn && half) ||
				    (wide && half && !fb))
					g->sets |= G5;
				nm++;
			}
	for (int k = 1; k <= 5; k++)
		for (int i = 0; i < M5_MOVES; i++)
			if (M->mv[i].sets >> (k - 1) & 1)
				M->list[k][M->cnt[k]++] = (uint8_t)i;

	/* wing homes: breadth-first from each home over every turn */
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
			for (int k = 0; k < M5_MOVES; k++) {
				int v2 = M->mv[k].wp[v];
				int o = way[v] ^ wo[k][v];
				if (way[v2] < 0) {
					way[v2] = (int8_t)o;
					q[qt++] = (uint8_t)v2;
				} else if (way[v2] != o) {
					return -2;
				}
			}
		}
		int a = M->wst[h][0][0], b = M->wst[h][1][0];
		for (int v = 0; v < 24; v++) {
			if (way[v] < 0)
				return -3;
			int x0 = way[v] ? b : a, x1 = way[v] ? a : b;
			if (M->whome[v][x0][x1] != 255)
				return -4;
			M->whome[v][x0][x1] = (uint8_t)h;
		}
	}
	/* classes: orbits of G4 ∪ G5 on wing slots */
	uint8_t par[24];
	for (int i = 0; i < 24; i++)
		par[i] = (uint8_t)i;
	for (int k = 0; k < M5_MOVES; k++) {
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
	int r0 = 0;
	while (par[r0] != r0)
		r0 = par[r0];
	int na = 0;
	for (int w = 0; w < 24; w++) {
		int x = w;
		while (par[x] != x)
			x = par[x];
		M->cls[w] = x == r0;
		na += M->cls[w];
		if (M->cls[w]) {
			M->aslot[M->wedge[w]] = (uint8_t)w;
			M->amask |= 1u << w;
		} else {
			M->bslot[M->wedge[w]] = (uint8_t)w;
		}
	}
	if (na != 12)
		return -5;
	for (int e = 0; e < 12; e++)
		if (!(M->amask >> M->aslot[e] & 1) || (M->amask >> M->bslot[e] & 1))
			return -6;
	/* midge corrections: c[mp[p]] = c[p] ^ mo[p] for every G4 ∪ G5 move */
	int8_t c[12];
	memset(c, -1, sizeof c);
	for (int root = 0; root < 12; root++) {
		if (c[root] >= 0)
			continue;
		c[root] = 0;
		int changed = 1;
		while (changed) {
			changed = 0;
			for (int k = 0; k < M5_MOVES; k++) {
				if (!(M->mv[k].sets & (G4 | G5)))
					continue;
				for (int p = 0; p < 12; p++) {
					if (c[p] < 0)
						continue;
					int p2 = M->mv[k].mp[p];
					int v = c[p] ^ M->mv[k].mo[p];
					if (c[p2] < 0) {
						c[p2] = (int8_t)v;
						changed = 1;
					} else if (c[p2] != v) {
						return -7;
					}
				}
			}
		}
	}
	for (int p = 0; p < 12; p++)
		M->mcorr[p] = (uint8_t)c[p];
	for (int k = 0; k < M5_MOVES; k++)
		for (int p = 0; p < 12; p++)
			M->mf[k][p] = (uint8_t)(M->mv[k].mo[p] ^ c[p] ^
						c[M->mv[k].mp[p]]);
	return 0;
}
