/* p45.c — phases 4 and 5 of a 5x5x5 reduction solver (research).
 *
 * The piece model (which stickers are x-centres, +-centres, wings, midges,
 * and how each move permutes them) is learned from cube_turn: every sticker
 * is labelled, each move applied, and the labels read back. Stickers of one
 * piece are those moved by exactly the same single-layer turns.
 *
 * Tables (bytes, 0xFF = unreached), all breadth-first from the goal:
 *   p4c  70^4            phase 4 centres: (U/D x, U/D +) x (R/L x, R/L +)
 *                        splits, distance under G4 to phase 5's centre set
 *   p4e  70*1680*1680    phase 4 edges: set of 4 U/D-layer midge positions,
 *                        the 4 A-wings' and 4 B-wings' places (by midge rank)
 *   p5c  n36*4900        phase 5 centres (U/D,R/L combination x F/B splits)
 *   p5a, p5b 40320*4900  phase 5 pairing permutation of class A (B) x F/B
 *                        splits
 * About 20-25 s to build on one core, 622 MB. P45_VERBOSE=1 prints the
 * breadth-first counts per depth and the phase 4 root heuristics.
 */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cube_internal.h"
#include "p45.h"

#define NMV 20
#define NS 150
enum { mU, mU2, mUp, mD, mD2, mDp, mR2, mL2, mF2, mB2, mUw2, mDw2, mRw2,
       mLw2, mFw2, mBw2, mF, mFp, mB, mBp };
/* axis, qt, lo, hi */
static const cube_move MV[NMV] = {
	{1, 1, 0, 0}, {1, 2, 0, 0}, {1, 3, 0, 0}, {1, 3, 4, 4}, {1, 2, 4, 4},
	{1, 1, 4, 4}, {0, 2, 0, 0}, {0, 2, 4, 4}, {2, 2, 0, 0}, {2, 2, 4, 4},
	{1, 2, 0, 1}, {1, 2, 3, 4}, {0, 2, 0, 1}, {0, 2, 3, 4}, {2, 2, 0, 1},
	{2, 2, 3, 4}, {2, 1, 0, 0}, {2, 3, 0, 0}, {2, 3, 4, 4}, {2, 1, 4, 4}};
/* layer group for redundancy pruning: same axis moves commute, so within
 * an axis groups must strictly increase */
static const int GRP[NMV] = {0, 0, 0, 1, 1, 1, 4, 5, 8, 9,
			     2, 3, 6, 7, 10, 11, 8, 8, 9, 9};
#define NG4 16
#define NG5 14
static const int G5[NG5] = {mF, mF2, mFp, mB, mB2, mBp, mU2,
			    mD2, mR2, mL2, mUw2, mDw2, mRw2, mLw2};

#define N8 70
#define NT 1680
#define NP8 40320
#define NFB 4900
#define P4E_SIZE ((size_t)N8 * NT * NT)
#define P4C_SIZE ((size_t)NFB * NFB)
#define P5W_SIZE ((size_t)NP8 * NFB)
#define MAXC 400

struct p45 {
	/* model */
	uint8_t to[NMV][NS];
	int xs[24], ps[24], xperm[NMV][24], pperm[NMV][24];
	int ws[24][2], wpos[24], wcls[24], wperm[NMV][24];
	int ms[12][2], mperm[NMV][12], mk[12];
	int Aslot[12], Bslot[12];
	int wid[6][6], mid[6][6];
	int posS[4]; /* UL UR DL DR */
	/* phase 4 coordinates */
	int udpos[8];                    /* U/D-layer midge positions */
	int setMv[N8][NG4], setSg[N8][NG4];
	uint16_t rowA[NG4][24][NT], rowB[NG4][24][NT];
	int goalS, goalA, goalB;
	/* centre splits: [axis 0 UD,1 RL,2 FB][0 x,1 +][70][NMV] */
	uint8_t spl[3][2][N8][NMV];
	int nc36;
	uint32_t c36[MAXC];             /* ((udx*70+udp)*70+rlx)*70+rlp */
	int c36mv[MAXC][NG5];
	int c36solved;
	/* phase 5 */
	int nspos[8];
	uint16_t fbrow[NG5][NFB];
	uint16_t *rmvA, *rmvB;           /* [NP8][NG5] */
	/* tables */
	uint8_t *p4c, *p4e, *p5c, *p5a, *p5b;
	size_t bytes;
};

/* ---------- combinatorics ---------- */
static int subs[N8], rk8[256];
static int tup[NT][4], tupIdx[4096];
static int perm4[24][4], p4idx[256];
static int fact[9] = {1, 1, 2, 6, 24, 120, 720, 5040, 40320};

static void combi_init(void)
{
	int n = 0;
	for (int m = 0; m < 256; m++) {
		rk8[m] = -1;
		if (__builtin_popcount(m) == 4) {
			rk8[m] = n;
			subs[n++] = m;
		}
	}
	n = 0;
	for (int i = 0; i < 4096; i++)
		tupIdx[i] = -1;
	for (int a = 0; a < 8; a++)
		for (int b = 0; b < 8; b++)
			for (int c = 0; c < 8; c++)
				for (int d = 0; d < 8; d++) {
					if (a == b || a == c || a == d ||
					    b == c || b == d || c == d)
						continue;
					tup[n][0] = a, tup[n][1] = b;
					tup[n][2] = c, tup[n][3] = d;
					tupIdx[a * 512 + b * 64 + c * 8 + d] =
						n++;
				}
	n = 0;
	for (int i = 0; i < 256; i++)
		p4idx[i] = -1;
	for (int a = 0; a < 4; a++)
		for (int b = 0; b < 4; b++)
			for (int c = 0; c < 4; c++)
				for (int d = 0; d < 4; d++) {
					if (a == b || a == c || a == d ||
					    b == c || b == d || c == d)
						continue;
					perm4[n][0] = a, perm4[n][1] = b;
					perm4[n][2] = c, perm4[n][3] = d;
					p4idx[a * 64 + b * 16 + c * 4 + d] =
						n++;
				}
}

static int prank8(const int *p)
{
	int r = 0;
	for (int i = 0; i < 8; i++) {
		int c = 0;
		for (int j = i + 1; j < 8; j++)
			c += p[j] < p[i];
		r += c * fact[7 - i];
	}
	return r;
}

static void punrank8(int r, int *p)
{
	int used[8] = {0};
	for (int i = 0; i < 8; i++) {
		int c = r / fact[7 - i];
		r %= fact[7 - i];
		for (int j = 0; j < 8; j++)
			if (!used[j] && c-- == 0) {
				p[i] = j;
				used[j] = 1;
				break;
			}
	}
}

/* ---------- the piece model, from cube_turn ---------- */
static int styp(int s)
{
	int r = (s / 5) % 5, c = s % 5;
	int er = (r == 0 || r == 4), ec = (c == 0 || c == 4);
	if (er && ec)
		return 5; /* corner */
	if (er || ec)
		return (r == 2 || c == 2) ? 4 : 3; /* midge : wing */
	if (r == 2 && c == 2)
		return 0;
	if (r == 2 || c == 2)
		return 2; /* + centre */
	return 1;         /* x centre */
}
#define FACE(s) ((s) / 25)

static int sticker_perm(int axis, int lo, int hi, int qt, uint8_t *to)
{
	cube_t *c = malloc(cube_sizeof(5));
	if (!c)
		return -1;
	cube_init(c, 5);
	for (int s = 0; s < NS; s++)
		cube__set(c, s / 25, (s / 5) % 5, s % 5, 6 + s);
	cube_turn(c, axis, lo, hi, qt);
	int seen[NS] = {0};
	for (int p = 0; p < NS; p++) {
		int l = cube_get(c, p / 25, (p / 5) % 5, p % 5) - 6;
		if (l < 0 || l >= NS || seen[l]++) {
			free(c);
			return -1;
		}
		to[l] = (uint8_t)p;
	}
	free(c);
	return 0;
}

#define FAIL(...)                                                              \
	do {                                                                   \
		fprintf(stderr, "p45 model: " __VA_ARGS__);                    \
		fputc('\n', stderr);                                           \
		return -1;                                                     \
	} while (0)

static int find_root(int *uf, int x)
{
	while (uf[x] != x)
		x = uf[x] = uf[uf[x]];
	return x;
}

static int build_model(struct p45 *T)
{
	uint8_t gen[15][NS];
	uint32_t sig[NS];
	memset(sig, 0, sizeof sig);
	for (int a = 0; a < 3; a++)
		for (int l = 0; l < 5; l++) {
			if (sticker_perm(a, l, l, 1, gen[a * 5 + l]))
				FAIL("sticker labels");
			for (int s = 0; s < NS; s++)
				if (gen[a * 5 + l][s] != s)
					sig[s] |= 1u << (a * 5 + l);
		}
	for (int m = 0; m < NMV; m++)
		if (sticker_perm(MV[m].axis, MV[m].lo, MV[m].hi, MV[m].qt,
				 T->to[m]))
			FAIL("sticker labels");
	/* the moves here never move a face's middle sticker */
	for (int m = 0; m < NMV; m++)
		for (int f = 0; f < 6; f++)
			if (T->to[m][f * 25 + 12] != f * 25 + 12)
				FAIL("a move moves a face middle");
	/* centres */
	int slotX[NS], slotP[NS], slotW[NS], slotM[NS];
	int nx = 0, np = 0, nw = 0, nm = 0;
	for (int s = 0; s < NS; s++) {
		slotX[s] = slotP[s] = slotW[s] = slotM[s] = -1;
		if (styp(s) == 1)
			T->xs[nx] = s, slotX[s] = nx++;
		if (styp(s) == 2)
			T->ps[np] = s, slotP[s] = np++;
	}
	if (nx != 24 || np != 24)
		FAIL("centre count");
	for (int m = 0; m < NMV; m++)
		for (int i = 0; i < 24; i++) {
			int x = slotX[T->to[m][T->xs[i]]];
			int p = slotP[T->to[m][T->ps[i]]];
			if (x < 0 || p < 0)
				FAIL("centre leaves its kind");
			T->xperm[m][i] = x, T->pperm[m][i] = p;
		}
	/* wings and midges: stickers of one piece share a signature */
	int wpair[24][2];
	for (int s = 0; s < NS; s++) {
		int t = styp(s);
		if ((t != 3 && t != 4) || slotW[s] >= 0 || slotM[s] >= 0)
			continue;
		int q = -1, cnt = 0;
		for (int u = 0; u < NS; u++)
			if (u != s && sig[u] == sig[s]) {
				q = u;
				cnt++;
			}
		if (cnt != 1 || styp(q) != t)
			FAIL("piece of sticker %d", s);
		if (t == 3) {
			if (nw >= 24)
				FAIL("wing count");
			wpair[nw][0] = s, wpair[nw][1] = q;
			slotW[s] = slotW[q] = nw++;
		} else {
			if (nm >= 12)
				FAIL("midge count");
			T->ms[nm][0] = s, T->ms[nm][1] = q;
			slotM[s] = slotM[q] = nm++;
		}
	}
	if (nw != 24 || nm != 12)
		FAIL("wing/midge count");
	/* chiral order of every wing slot, carried by the 15 single-layer
	 * turns from slot 0 */
	int set[24], queue[24], qh = 0, qt = 0;
	for (int i = 0; i < 24; i++)
		set[i] = 0;
	T->ws[0][0] = wpair[0][0], T->ws[0][1] = wpair[0][1];
	set[0] = 1, queue[qt++] = 0;
	while (qh < qt) {
		int w = queue[qh++];
		for (int g = 0; g < 15; g++) {
			int p = gen[g][T->ws[w][0]], q = gen[g][T->ws[w][1]];
			int w2 = slotW[p];
			if (w2 < 0 || slotW[q] != w2)
				FAIL("wing leaves its kind");
			if (!set[w2]) {
				T->ws[w2][0] = p, T->ws[w2][1] = q;
				set[w2] = 1, queue[qt++] = w2;
			} else if (T->ws[w2][0] != p)
				FAIL("a wing flips in place");
		}
	}
	if (qt != 24)
		FAIL("wing slots not connected");
	/* wing slot -> edge position (midge slot with the same faces) */
	for (int w = 0; w < 24; w++) {
		int f1 = FACE(T->ws[w][0]), f2 = FACE(T->ws[w][1]), found = -1;
		for (int p = 0; p < 12; p++) {
			int g1 = FACE(T->ms[p][0]), g2 = FACE(T->ms[p][1]);
			if ((g1 == f1 && g2 == f2) || (g1 == f2 && g2 == f1))
				found = p;
		}
		if (found < 0)
			FAIL("wing without position");
		T->wpos[w] = found;
	}
	for (int m = 0; m < NMV; m++) {
		for (int w = 0; w < 24; w++) {
			int p = T->to[m][T->ws[w][0]];
			int w2 = slotW[p];
			if (w2 < 0 || T->ws[w2][0] != p)
				FAIL("wing move");
			T->wperm[m][w] = w2;
		}
		for (int p = 0; p < 12; p++) {
			int q = slotM[T->to[m][T->ms[p][0]]];
			if (q < 0)
				FAIL("midge move");
			T->mperm[m][p] = q;
		}
	}
	/* wing classes: orbits under G4 u G5 (all 20 moves) */
	int uf[24];
	for (int i = 0; i < 24; i++)
		uf[i] = i;
	for (int m = 0; m < NMV; m++)
		for (int w = 0; w < 24; w++) {
			int a = find_root(uf, w), b = find_root(uf, T->wperm[m][w]);
			if (a != b)
				uf[a] = b;
		}
	int ra = find_root(uf, 0), nA = 0;
	for (int p = 0; p < 12; p++)
		T->Aslot[p] = T->Bslot[p] = -1;
	for (int w = 0; w < 24; w++) {
		int r = find_root(uf, w);
		int p = T->wpos[w];
		if (r == ra) {
			T->wcls[w] = 0, nA++;
			if (T->Aslot[p] >= 0)
				FAIL("two class A slots on one edge");
			T->Aslot[p] = w;
		} else {
			T->wcls[w] = 1;
			if (T->Bslot[p] >= 0)
				FAIL("more than two wing classes");
			T->Bslot[p] = w;
		}
	}
	for (int w = 0; w < 24; w++)
		if (find_root(uf, w) != ra &&
		    find_root(uf, w) != find_root(uf, T->Bslot[0]))
			FAIL("more than two wing classes");
	if (nA != 12)
		FAIL("class sizes");
	/* G4 and G5 keep classes (they generate them, so trivially) */
	/* midge stickers: [0] on the face of the class-A slot's first sticker */
	for (int p = 0; p < 12; p++) {
		int fa = FACE(T->ws[T->Aslot[p]][0]);
		if (FACE(T->ms[p][0]) != fa) {
			int t = T->ms[p][0];
			T->ms[p][0] = T->ms[p][1], T->ms[p][1] = t;
		}
		if (FACE(T->ms[p][0]) != fa)
			FAIL("midge faces");
	}
	/* midge orientation corrections: walk the 20 moves from position 0 */
	int mset[12] = {0}, nflip = 0;
	qh = qt = 0;
	T->mk[0] = 0, mset[0] = 1, queue[qt++] = 0;
	while (qh < qt) {
		int p = queue[qh++];
		for (int m = 0; m < NMV; m++) {
			int q = T->mperm[m][p];
			int fl = T->to[m][T->ms[p][0]] != T->ms[q][0];
			nflip += fl;
			if (!mset[q]) {
				T->mk[q] = T->mk[p] ^ fl;
				mset[q] = 1, queue[qt++] = q;
			} else if (T->mk[q] != (T->mk[p] ^ fl))
				FAIL("midge orientation not invariant");
		}
	}
	if (qt != 12)
		FAIL("midge positions not connected");
	/* piece identities */
	memset(T->wid, -1, sizeof T->wid);
	memset(T->mid, -1, sizeof T->mid);
	for (int w = 0; w < 24; w++) {
		int a = FACE(T->ws[w][0]), b = FACE(T->ws[w][1]);
		if (T->wid[a][b] >= 0)
			FAIL("wing identities not distinct");
		T->wid[a][b] = w;
	}
	for (int p = 0; p < 12; p++) {
		int a = FACE(T->ms[p][0]), b = FACE(T->ms[p][1]);
		T->mid[a][b] = T->mid[b][a] = p;
	}
	/* S-slice positions */
	static const int sf[4][2] = {{CUBE_U, CUBE_L}, {CUBE_U, CUBE_R},
				     {CUBE_D, CUBE_L}, {CUBE_D, CUBE_R}};
	for (int i = 0; i < 4; i++)
		T->posS[i] = T->mid[sf[i][0]][sf[i][1]];
	return 0;
}

/* ---------- coordinates ---------- */
static const int AXF[3][2] = {{CUBE_U, CUBE_D}, {CUBE_R, CUBE_L},
			      {CUBE_F, CUBE_B}};

/* place i (0..7) of axis a, type t -> slot index in xs/ps */
static int place(int a, int i)
{
	return AXF[a][i / 4] * 4 + i % 4;
}

static int build_coords(struct p45 *T)
{
	/* centre splits */
	for (int a = 0; a < 3; a++)
		for (int t = 0; t < 2; t++)
			for (int m = 0; m < NMV; m++) {
				int pp[8];
				for (int i = 0; i < 8; i++) {
					int s = place(a, i);
					int s2 = t ? T->pperm[m][s]
						   : T->xperm[m][s];
					pp[i] = -1;
					for (int j = 0; j < 8; j++)
						if (place(a, j) == s2)
							pp[i] = j;
					if (pp[i] < 0)
						FAIL("centre leaves its axis");
				}
				for (int k = 0; k < N8; k++) {
					int mk = 0;
					for (int i = 0; i < 8; i++)
						if (subs[k] >> i & 1)
							mk |= 1 << pp[i];
					T->spl[a][t][k][m] = (uint8_t)rk8[mk];
				}
			}
	/* phase 4 edges: U/D-layer positions */
	int n = 0;
	for (int p = 0; p < 12; p++) {
		int f1 = FACE(T->ms[p][0]), f2 = FACE(T->ms[p][1]);
		if (f1 == CUBE_U || f1 == CUBE_D || f2 == CUBE_U ||
		    f2 == CUBE_D)
			T->udpos[n++] = p;
	}
	if (n != 8)
		FAIL("U/D layer positions");
	int pm8[NG4][8], pa8[NG4][8], pb8[NG4][8];
	for (int m = 0; m < NG4; m++)
		for (int i = 0; i < 8; i++) {
			int p = T->udpos[i];
			int q = T->mperm[m][p];
			int qa = T->wpos[T->wperm[m][T->Aslot[p]]];
			int qb = T->wpos[T->wperm[m][T->Bslot[p]]];
			pm8[m][i] = pa8[m][i] = pb8[m][i] = -1;
			for (int j = 0; j < 8; j++) {
				if (T->udpos[j] == q)
					pm8[m][i] = j;
				if (T->udpos[j] == qa)
					pa8[m][i] = j;
				if (T->udpos[j] == qb)
					pb8[m][i] = j;
			}
			if (pm8[m][i] < 0 || pa8[m][i] < 0 || pb8[m][i] < 0)
				FAIL("G4 leaves the U/D layers");
			/* class kept: slot A of p goes to slot A of its image */
			if (T->wcls[T->wperm[m][T->Aslot[p]]] != 0)
				FAIL("class not kept");
		}
	for (int s = 0; s < N8; s++)
		for (int m = 0; m < NG4; m++) {
			int old[4], k = 0, mk = 0;
			for (int i = 0; i < 8; i++)
				if (subs[s] >> i & 1)
					old[k++] = pm8[m][i];
			for (k = 0; k < 4; k++)
				mk |= 1 << old[k];
			int sg[4];
			for (k = 0; k < 4; k++) /* new rank of old rank k */
				sg[k] = __builtin_popcount(mk &
							   ((1 << old[k]) - 1));
			T->setMv[s][m] = rk8[mk];
			T->setSg[s][m] =
				p4idx[sg[0] * 64 + sg[1] * 16 + sg[2] * 4 +
				      sg[3]];
		}
	for (int m = 0; m < NG4; m++)
		for (int g = 0; g < 24; g++)
			for (int t = 0; t < NT; t++) {
				int na[4], nb[4];
				for (int k = 0; k < 4; k++) {
					na[perm4[g][k]] = pa8[m][tup[t][k]];
					nb[perm4[g][k]] = pb8[m][tup[t][k]];
				}
				T->rowA[m][g][t] = (uint16_t)tupIdx
					[na[0] * 512 + na[1] * 64 + na[2] * 8 +
					 na[3]];
				T->rowB[m][g][t] = (uint16_t)tupIdx
					[nb[0] * 512 + nb[1] * 64 + nb[2] * 8 +
					 nb[3]];
			}
	{
		int mk = 0, r[4], k = 0;
		for (int i = 0; i < 4; i++)
			for (int j = 0; j < 8; j++)
				if (T->udpos[j] == T->posS[i])
					mk |= 1 << j;
		for (int j = 0; j < 8; j++)
			if (mk >> j & 1)
				r[k++] = j;
		T->goalS = rk8[mk];
		/* A-wing of rank k sits at the A slot of the rank-k position,
		 * which is U/D-layer index r[k] in the A list */
		T->goalA = T->goalB =
			tupIdx[r[0] * 512 + r[1] * 64 + r[2] * 8 + r[3]];
	}
	/* phase 5: the centre combinations G5 reaches from solved */
	int solved = rk8[0x0f]; /* places 0..3 = + face */
	T->nc36 = 1;
	T->c36[0] = (uint32_t)(((solved * 70 + solved) * 70 + solved) * 70 +
			       solved);
	for (int i = 0; i < T->nc36; i++) {
		uint32_t v = T->c36[i];
		int rlp = v % 70, rlx = v / 70 % 70, udp = v / 4900 % 70,
		    udx = v / 343000;
		for (int j = 0; j < NG5; j++) {
			int m = G5[j];
			uint32_t w = (uint32_t)(
				((T->spl[0][0][udx][m] * 70 +
				  T->spl[0][1][udp][m]) *
					 70 +
				 T->spl[1][0][rlx][m]) *
					70 +
				T->spl[1][1][rlp][m]);
			int f = -1;
			for (int q = 0; q < T->nc36; q++)
				if (T->c36[q] == w)
					f = q;
			if (f < 0) {
				if (T->nc36 >= MAXC)
					FAIL("too many centre combinations");
				f = T->nc36;
				T->c36[T->nc36++] = w;
			}
			T->c36mv[i][j] = f;
		}
	}
	T->c36solved = 0;
	for (int j = 0; j < NG5; j++) {
		int m = G5[j];
		for (int k = 0; k < NFB; k++)
			T->fbrow[j][k] = (uint16_t)(T->spl[2][0][k / 70][m] * 70 +
						    T->spl[2][1][k % 70][m]);
	}
	/* phase 5 edges: the 8 positions outside the S slice */
	n = 0;
	for (int p = 0; p < 12; p++) {
		int s = 0;
		for (int i = 0; i < 4; i++)
			s |= T->posS[i] == p;
		if (!s)
			T->nspos[n++] = p;
	}
	int pm5[NG5][8], pa5[NG5][8], pb5[NG5][8];
	for (int j = 0; j < NG5; j++) {
		int m = G5[j];
		for (int i = 0; i < 8; i++) {
			int p = T->nspos[i];
			int q = T->mperm[m][p];
			int qa = T->wpos[T->wperm[m][T->Aslot[p]]];
			int qb = T->wpos[T->wperm[m][T->Bslot[p]]];
			pm5[j][i] = pa5[j][i] = pb5[j][i] = -1;
			for (int k = 0; k < 8; k++) {
				if (T->nspos[k] == q)
					pm5[j][i] = k;
				if (T->nspos[k] == qa)
					pa5[j][i] = k;
				if (T->nspos[k] == qb)
					pb5[j][i] = k;
			}
			if (pm5[j][i] < 0 || pa5[j][i] < 0 || pb5[j][i] < 0)
				FAIL("G5 moves a piece into the S slice");
		}
		/* the S slice's edges stay paired: midge, A and B slots move
		 * together */
		for (int i = 0; i < 4; i++) {
			int p = T->posS[i], q = T->mperm[m][p];
			if (T->wperm[m][T->Aslot[p]] != T->Aslot[q] ||
			    T->wperm[m][T->Bslot[p]] != T->Bslot[q])
				FAIL("G5 splits an S-slice edge");
		}
	}
	T->rmvA = malloc(sizeof(uint16_t) * NP8 * NG5);
	T->rmvB = malloc(sizeof(uint16_t) * NP8 * NG5);
	if (!T->rmvA || !T->rmvB)
		FAIL("memory");
	for (int r = 0; r < NP8; r++) {
		int p[8], q[8];
		punrank8(r, p);
		for (int j = 0; j < NG5; j++) {
			/* r' = pm o r o pw^-1: r'[pw[k]] = pm[r[k]] */
			for (int k = 0; k < 8; k++)
				q[pa5[j][k]] = pm5[j][p[k]];
			T->rmvA[r * NG5 + j] = (uint16_t)prank8(q);
			for (int k = 0; k < 8; k++)
				q[pb5[j][k]] = pm5[j][p[k]];
			T->rmvB[r * NG5 + j] = (uint16_t)prank8(q);
		}
	}
	return 0;
}

/* ---------- breadth-first table builder ----------
 * state = hi * nlo + lo; move j sends it to himv[hi*nm+j] * nlo +
 * rows[hi*nm+j][lo]. tab holds 0 at the goals and 0xFF elsewhere. The move
 * set must be closed under inverses (it is: U<->U', the rest are their own
 * inverses) so the backward step is exact. */
static int bfs(uint8_t *tab, long nhi, int nlo, int nm, const int32_t *himv,
	       const uint16_t *const *rows, int verbose, const char *name)
{
	uint16_t *lst = malloc(sizeof(uint16_t) * (size_t)nlo);
	if (!lst)
		return -1;
	long total = nhi * (long)nlo, front = 0, seen;
	for (long i = 0; i < total; i++)
		front += tab[i] == 0;
	seen = front;
	int d;
	for (d = 0; front > 0 && d < 254; d++) {
		long newc = 0;
		int back = total - seen < 3 * front;
		for (long hi = 0; hi < nhi; hi++) {
			uint8_t *blk = tab + hi * nlo;
			int n = 0;
			uint8_t want = back ? 0xFF : (uint8_t)d;
			for (int lo = 0; lo < nlo; lo++)
				if (blk[lo] == want)
					lst[n++] = (uint16_t)lo;
			for (int j = 0; j < nm && n > 0; j++) {
				uint8_t *tgt = tab + (long)himv[hi * nm + j] * nlo;
				const uint16_t *r = rows[hi * nm + j];
				if (!back) {
					for (int i = 0; i < n; i++) {
						uint8_t *t = tgt + r[lst[i]];
						if (*t == 0xFF) {
							*t = (uint8_t)(d + 1);
							newc++;
						}
					}
				} else {
					int n2 = 0;
					for (int i = 0; i < n; i++) {
						if (tgt[r[lst[i]]] == d) {
							blk[lst[i]] =
								(uint8_t)(d + 1);
							newc++;
						} else
							lst[n2++] = lst[i];
					}
					n = n2;
				}
			}
		}
		if (verbose)
			fprintf(stderr, "  %s depth %d: %ld%s\n", name, d + 1,
				newc, back ? " (backward)" : "");
		front = newc;
		seen += newc;
	}
	if (verbose)
		fprintf(stderr, "  %s: %ld of %ld reached, max depth %d\n", name,
			seen, total, d - 1 + (front > 0));
	free(lst);
	return 0;
}

static int verbose_env(void)
{
	const char *v = getenv("P45_VERBOSE");
	return v && *v && *v != '0';
}

static int build_tables(struct p45 *T)
{
	int vb = verbose_env();
	/* phase 4 centres */
	{
		long nhi = NFB;
		int32_t *hm = malloc(sizeof(int32_t) * nhi * NG4);
		const uint16_t **rw = malloc(sizeof(void *) * nhi * NG4);
		uint16_t(*rl)[NFB] = malloc(sizeof(uint16_t) * NG4 * NFB);
		T->p4c = malloc(P4C_SIZE);
		if (!hm || !rw || !rl || !T->p4c)
			return -1;
		for (int m = 0; m < NG4; m++)
			for (int k = 0; k < NFB; k++)
				rl[m][k] = (uint16_t)(T->spl[1][0][k / 70][m] * 70 +
						      T->spl[1][1][k % 70][m]);
		for (long h = 0; h < nhi; h++)
			for (int m = 0; m < NG4; m++) {
				hm[h * NG4 + m] = T->spl[0][0][h / 70][m] * 70 +
						  T->spl[0][1][h % 70][m];
				rw[h * NG4 + m] = rl[m];
			}
		memset(T->p4c, 0xFF, P4C_SIZE);
		for (int i = 0; i < T->nc36; i++)
			T->p4c[T->c36[i]] = 0;
		bfs(T->p4c, nhi, NFB, NG4, hm, rw, vb, "p4 centres");
		free(hm), free(rw), free(rl);
	}
	/* phase 4 edges */
	{
		long nhi = (long)N8 * NT;
		int32_t *hm = malloc(sizeof(int32_t) * nhi * NG4);
		const uint16_t **rw = malloc(sizeof(void *) * nhi * NG4);
		T->p4e = malloc(P4E_SIZE);
		if (!hm || !rw || !T->p4e)
			return -1;
		for (int s = 0; s < N8; s++)
			for (int a = 0; a < NT; a++)
				for (int m = 0; m < NG4; m++) {
					long h = (long)s * NT + a;
					int g = T->setSg[s][m];
					hm[h * NG4 + m] = T->setMv[s][m] * NT +
							  T->rowA[m][g][a];
					rw[h * NG4 + m] = T->rowB[m][g];
				}
		memset(T->p4e, 0xFF, P4E_SIZE);
		T->p4e[((size_t)T->goalS * NT + T->goalA) * NT + T->goalB] = 0;
		bfs(T->p4e, nhi, NT, NG4, hm, rw, vb, "p4 edges");
		free(hm), free(rw);
	}
	/* phase 5 centres */
	{
		long nhi = T->nc36;
		int32_t *hm = malloc(sizeof(int32_t) * nhi * NG5);
		const uint16_t **rw = malloc(sizeof(void *) * nhi * NG5);
		T->p5c = malloc((size_t)nhi * NFB);
		if (!hm || !rw || !T->p5c)
			return -1;
		for (long h = 0; h < nhi; h++)
			for (int j = 0; j < NG5; j++) {
				hm[h * NG5 + j] = T->c36mv[h][j];
				rw[h * NG5 + j] = T->fbrow[j];
			}
		memset(T->p5c, 0xFF, (size_t)nhi * NFB);
		int sol = rk8[0x0f];
		T->p5c[(size_t)T->c36solved * NFB + sol * 70 + sol] = 0;
		bfs(T->p5c, nhi, NFB, NG5, hm, rw, vb, "p5 centres");
		free(hm), free(rw);
	}
	/* phase 5 pairing, classes A and B */
	for (int cl = 0; cl < 2; cl++) {
		long nhi = NP8;
		int32_t *hm = malloc(sizeof(int32_t) * nhi * NG5);
		const uint16_t **rw = malloc(sizeof(void *) * nhi * NG5);
		uint8_t *t = malloc(P5W_SIZE);
		const uint16_t *rm = cl ? T->rmvB : T->rmvA;
		if (!hm || !rw || !t)
			return -1;
		for (long h = 0; h < nhi; h++)
			for (int j = 0; j < NG5; j++) {
				hm[h * NG5 + j] = rm[h * NG5 + j];
				rw[h * NG5 + j] = T->fbrow[j];
			}
		memset(t, 0xFF, P5W_SIZE);
		int sol = rk8[0x0f];
		t[(size_t)0 * NFB + sol * 70 + sol] = 0; /* rank 0 = identity */
		bfs(t, nhi, NFB, NG5, hm, rw, vb, cl ? "p5 pairing B" : "p5 pairing A");
		if (cl)
			T->p5b = t;
		else
			T->p5a = t;
		free(hm), free(rw);
	}
	T->bytes = P4C_SIZE + P4E_SIZE + (size_t)T->nc36 * NFB + 2 * P5W_SIZE +
		   2 * sizeof(uint16_t) * NP8 * NG5 + sizeof *T;
	return 0;
}

void p45_free(struct p45 *T)
{
	if (!T)
		return;
	free(T->rmvA), free(T->rmvB);
	free(T->p4c), free(T->p4e), free(T->p5c), free(T->p5a), free(T->p5b);
	free(T);
}

size_t p45_bytes(const struct p45 *T)
{
	return T->bytes;
}

struct p45 *p45_init(void)
{
	combi_init();
	struct p45 *T = calloc(1, sizeof *T);
	if (!T)
		return NULL;
	if (build_model(T) || build_coords(T) || build_tables(T)) {
		p45_free(T);
		return NULL;
	}
	if (verbose_env()) {
		int nk = 0;
		for (int p = 0; p < 12; p++)
			nk += T->mk[p];
		fprintf(stderr,
			"  model: 2 wing classes of 12; %d centre combinations "
			"for phase 5; midge corrections nonzero at %d "
			"positions\n",
			T->nc36, nk);
	}
	return T;
}

/* ---------- reading a cube ---------- */
#define COL(c, s) cube_get((c), (s) / 25, ((s) / 5) % 5, (s) % 5)

struct pieces {
	int wat[24];  /* wing piece (home slot) in each wing slot */
	int mat[12];  /* edge (home position) of the midge in each position */
	int wsl[24];  /* slot of each wing piece */
	int mpos[12]; /* position of each edge's midge */
	int split[3][2];
};

static int read_pieces(const struct p45 *T, const cube_t *c, struct pieces *P)
{
	if (c->n != 5)
		return -1;
	for (int w = 0; w < 24; w++)
		P->wsl[w] = -1;
	for (int w = 0; w < 24; w++) {
		int a = COL(c, T->ws[w][0]), b = COL(c, T->ws[w][1]);
		if (a < 0 || a > 5 || b < 0 || b > 5 || T->wid[a][b] < 0)
			return -1;
		P->wat[w] = T->wid[a][b];
		if (P->wsl[P->wat[w]] >= 0)
			return -1;
		P->wsl[P->wat[w]] = w;
	}
	for (int e = 0; e < 12; e++)
		P->mpos[e] = -1;
	for (int p = 0; p < 12; p++) {
		int a = COL(c, T->ms[p][0]), b = COL(c, T->ms[p][1]);
		if (a < 0 || a > 5 || b < 0 || b > 5 || T->mid[a][b] < 0 ||
		    a == b)
			return -1;
		P->mat[p] = T->mid[a][b];
		if (P->mpos[P->mat[p]] >= 0)
			return -1;
		P->mpos[P->mat[p]] = p;
	}
	for (int a = 0; a < 3; a++)
		for (int t = 0; t < 2; t++) {
			int mk = 0;
			for (int i = 0; i < 8; i++) {
				int s = place(a, i);
				int col = COL(c, t ? T->ps[s] : T->xs[s]);
				if (col == AXF[a][0])
					mk |= 1 << i;
				else if (col != AXF[a][1])
					return -1;
			}
			if (rk8[mk] < 0)
				return -1;
			P->split[a][t] = rk8[mk];
		}
	return 0;
}

/* the A-wing of edge e: of e's two wing pieces, the one in a class A slot */
static int awing(const struct p45 *T, const struct pieces *P, int e, int cls)
{
	for (int w = 0; w < 24; w++)
		if (T->wpos[w] == e && T->wcls[P->wsl[w]] == cls)
			return w;
	return -1;
}

int p45_phase3_ok(const struct p45 *T, const cube_t *c)
{
	struct pieces P;
	if (read_pieces(T, c, &P))
		return 0;
	for (int e = 0; e < 12; e++) {
		int wa = awing(T, &P, e, 0), wb = awing(T, &P, e, 1);
		if (wa < 0 || wb < 0)
			return 0;
		/* midge orientation: the colour on the midge's [0] sticker
		 * (the A slot's first face) is the A-wing's first colour,
		 * up to the position's correction */
		int p = P.mpos[e];
		int x = FACE(T->ws[wa][0]);
		int ok = (COL(c, T->ms[p][0]) == x) ^ T->mk[p];
		if (!ok)
			return 0;
	}
	return 1;
}

static int c36_of(const struct p45 *T, const struct pieces *P)
{
	uint32_t v = (uint32_t)(((P->split[0][0] * 70 + P->split[0][1]) * 70 +
				 P->split[1][0]) *
					70 +
				P->split[1][1]);
	for (int i = 0; i < T->nc36; i++)
		if (T->c36[i] == v)
			return i;
	return -1;
}

/* phase 5 coordinates; -1 if c is not in phase 4's goal */
static int p5_coords(const struct p45 *T, const cube_t *c, int *cc, int *fb,
		     int *ra, int *rb)
{
	struct pieces P;
	if (read_pieces(T, c, &P))
		return -1;
	if ((*cc = c36_of(T, &P)) < 0)
		return -1;
	*fb = P.split[2][0] * 70 + P.split[2][1];
	for (int i = 0; i < 4; i++) {
		int p = T->posS[i], e = P.mat[p];
		if (T->wpos[P.wat[T->Aslot[p]]] != e ||
		    T->wpos[P.wat[T->Bslot[p]]] != e)
			return -1;
	}
	for (int cl = 0; cl < 2; cl++) {
		int r[8];
		for (int k = 0; k < 8; k++) {
			int p = T->nspos[k];
			int e = T->wpos[P.wat[cl ? T->Bslot[p] : T->Aslot[p]]];
			int q = P.mpos[e];
			r[k] = -1;
			for (int j = 0; j < 8; j++)
				if (T->nspos[j] == q)
					r[k] = j;
			if (r[k] < 0)
				return -1;
		}
		if (cl)
			*rb = prank8(r);
		else
			*ra = prank8(r);
	}
	return 0;
}

int p45_phase4_ok(const struct p45 *T, const cube_t *c)
{
	int cc, fb, ra, rb;
	return p5_coords(T, c, &cc, &fb, &ra, &rb) == 0;
}

int p45_ud_edges(const struct p45 *T, const cube_t *c)
{
	struct pieces P;
	if (read_pieces(T, c, &P))
		return -1;
	int n = 0;
	for (int i = 0; i < 8; i++) {
		int e = P.mat[T->udpos[i]], ok = 1;
		for (int cl = 0; cl < 2; cl++) {
			int w = awing(T, &P, e, cl), f = 0;
			if (w < 0)
				return -1;
			for (int j = 0; j < 8; j++)
				f |= P.wsl[w] == (cl ? T->Bslot : T->Aslot)
							[T->udpos[j]];
			ok &= f;
		}
		n += ok;
	}
	return n;
}

/* ---------- phase 4 search ---------- */
struct ch4 {
	uint8_t s;
	uint16_t a, b;
};

struct s4 {
	const struct p45 *T;
	int bound, k, nfound;
	cube_move (*out)[32];
	int *lens;
	long nodes, maxnodes;
	int path[32];
	struct ch4 ch[33][N8];
};

static inline size_t e4idx(int s, int a, int b)
{
	return ((size_t)s * NT + a) * NT + b;
}

/* returns 1 to stop */
static int dfs4(struct s4 *S, int g, int ud, int rl, int nch, int prev)
{
	const struct p45 *T = S->T;
	if (g == S->bound) {
		for (int i = 0; i < g; i++)
			S->out[S->nfound][i] = MV[S->path[i]];
		S->lens[S->nfound] = g;
		return ++S->nfound >= S->k;
	}
	if (S->nodes > S->maxnodes)
		return 1;
	int rem = S->bound - g - 1;
	const struct ch4 *cur = S->ch[g];
	struct ch4 *nx = S->ch[g + 1];
	for (int m = 0; m < NG4; m++) {
		if (prev >= 0 &&
		    (GRP[m] == GRP[prev] ||
		     (MV[m].axis == MV[prev].axis && GRP[m] < GRP[prev])))
			continue;
		int ud2 = T->spl[0][0][ud / 70][m] * 70 + T->spl[0][1][ud % 70][m];
		int rl2 = T->spl[1][0][rl / 70][m] * 70 + T->spl[1][1][rl % 70][m];
		if (T->p4c[(size_t)ud2 * NFB + rl2] > rem)
			continue;
		int n = 0;
		for (int i = 0; i < nch; i++) {
			int s = cur[i].s, sg = T->setSg[s][m];
			int s2 = T->setMv[s][m];
			int a2 = T->rowA[m][sg][cur[i].a];
			int b2 = T->rowB[m][sg][cur[i].b];
			if (T->p4e[e4idx(s2, a2, b2)] <= rem) {
				nx[n].s = (uint8_t)s2;
				nx[n].a = (uint16_t)a2;
				nx[n].b = (uint16_t)b2;
				n++;
			}
		}
		if (!n)
			continue;
		S->nodes++;
		S->path[g] = m;
		if (dfs4(S, g + 1, ud2, rl2, n, m))
			return 1;
	}
	return 0;
}

static int p4_search(const struct p45 *T, const cube_t *c, int bound, int k,
		     cube_move (*out)[32], int *lens, long maxnodes)
{
	struct pieces P;
	if (!p45_phase3_ok(T, c) || read_pieces(T, c, &P))
		return -1;
	if (bound > 31)
		bound = 31;
	struct s4 *S = malloc(sizeof *S);
	if (!S)
		return -1;
	S->T = T, S->k = k, S->nfound = 0, S->out = out, S->lens = lens;
	S->nodes = 0, S->maxnodes = maxnodes;
	/* every choice of 4 edges whose midges and wings are in the U/D
	 * layers */
	int ne = 0, ea[8], eb[8], er[8];
	for (int i = 0; i < 8; i++) {
		int e = P.mat[T->udpos[i]];
		int wa = P.wsl[awing(T, &P, e, 0)], wb = P.wsl[awing(T, &P, e, 1)];
		int ia = -1, ib = -1;
		for (int j = 0; j < 8; j++) {
			if (T->Aslot[T->udpos[j]] == wa)
				ia = j;
			if (T->Bslot[T->udpos[j]] == wb)
				ib = j;
		}
		if (ia < 0 || ib < 0)
			continue;
		ea[ne] = ia, eb[ne] = ib, er[ne] = i, ne++;
	}
	int nch = 0;
	for (int mk = 0; mk < (1 << ne); mk++) {
		if (__builtin_popcount(mk) != 4)
			continue;
		int set = 0, a[4], b[4], k2 = 0;
		for (int i = 0; i < ne; i++) /* er ascending: rank order */
			if (mk >> i & 1) {
				set |= 1 << er[i];
				a[k2] = ea[i], b[k2] = eb[i], k2++;
			}
		S->ch[0][nch].s = (uint8_t)rk8[set];
		S->ch[0][nch].a =
			(uint16_t)tupIdx[a[0] * 512 + a[1] * 64 + a[2] * 8 + a[3]];
		S->ch[0][nch].b =
			(uint16_t)tupIdx[b[0] * 512 + b[1] * 64 + b[2] * 8 + b[3]];
		nch++;
	}
	int ud = P.split[0][0] * 70 + P.split[0][1];
	int rl = P.split[1][0] * 70 + P.split[1][1];
	int hc = T->p4c[(size_t)ud * NFB + rl], he = 255;
	for (int i = 0; i < nch; i++) {
		int h = T->p4e[e4idx(S->ch[0][i].s, S->ch[0][i].a, S->ch[0][i].b)];
		if (h < he)
			he = h;
	}
	int h0 = hc > he ? hc : he;
	if (verbose_env())
		fprintf(stderr, "  p4: %d usable edges, %d choices, h centres %d, "
			"h edges %d\n", ne, nch, hc, he);
	struct ch4 all[N8];
	memcpy(all, S->ch[0], sizeof(struct ch4) * (size_t)nch);
	for (int d = h0; d <= bound && h0 < 255; d++) {
		S->bound = d;
		/* keep only choices that can finish within d */
		int n = 0;
		for (int i = 0; i < nch; i++)
			if (T->p4e[e4idx(all[i].s, all[i].a, all[i].b)] <= d)
				S->ch[0][n++] = all[i];
		if (dfs4(S, 0, ud, rl, n, -1))
			break;
	}
	int r = S->nfound;
	free(S);
	return r;
}

int p4_answers(const struct p45 *T, const cube_t *c, int bound, int k,
	       cube_move (*out)[32], int *lens)
{
	return p4_search(T, c, bound, k, out, lens, LONG_MAX);
}

/* ---------- phase 5 search ---------- */
struct s5 {
	const struct p45 *T;
	int bound;
	long nodes, maxnodes;
	int path[64];
};

static inline int h5(const struct p45 *T, int cc, int fb, int ra, int rb)
{
	int h = T->p5c[(size_t)cc * NFB + fb];
	int x = T->p5a[(size_t)ra * NFB + fb];
	int y = T->p5b[(size_t)rb * NFB + fb];
	if (x > h)
		h = x;
	if (y > h)
		h = y;
	return h;
}

static int dfs5(struct s5 *S, int g, int cc, int fb, int ra, int rb, int prev)
{
	const struct p45 *T = S->T;
	if (g == S->bound)
		return 1; /* h == 0 here: the goal */
	if (S->nodes > S->maxnodes)
		return -1;
	int rem = S->bound - g - 1;
	for (int j = 0; j < NG5; j++) {
		int m = G5[j];
		if (prev >= 0 &&
		    (GRP[m] == GRP[prev] ||
		     (MV[m].axis == MV[prev].axis && GRP[m] < GRP[prev])))
			continue;
		int cc2 = T->c36mv[cc][j], fb2 = T->fbrow[j][fb];
		int ra2 = T->rmvA[ra * NG5 + j], rb2 = T->rmvB[rb * NG5 + j];
		if (h5(T, cc2, fb2, ra2, rb2) > rem)
			continue;
		S->nodes++;
		S->path[g] = m;
		int r = dfs5(S, g + 1, cc2, fb2, ra2, rb2, m);
		if (r)
			return r;
	}
	return 0;
}

static int p5_search(const struct p45 *T, const cube_t *c, cube_move *out,
		     int max, long maxnodes)
{
	int cc, fb, ra, rb;
	if (p5_coords(T, c, &cc, &fb, &ra, &rb))
		return -1;
	int h0 = h5(T, cc, fb, ra, rb);
	if (h0 == 255)
		return -1;
	struct s5 S = {.T = T, .nodes = 0, .maxnodes = maxnodes};
	for (int d = h0; d <= max && d < 64; d++) {
		S.bound = d;
		int r = dfs5(&S, 0, cc, fb, ra, rb, -1);
		if (r < 0)
			return -1;
		if (r > 0) {
			for (int i = 0; i < d; i++)
				out[i] = MV[S.path[i]];
			return d;
		}
	}
	return -1;
}

int p5_solve(const struct p45 *T, cube_t *c, cube_move *out, int max,
	     long maxnodes)
{
	int n = p5_search(T, c, out, max, maxnodes);
	if (n < 0)
		return -1;
	if (cube_apply_moves(c, out, (size_t)n) < 0)
		return -1;
	return n;
}

int p45_solve(const struct p45 *T, cube_t *c, cube_move *out, int max,
	      int *len4, int *len5, long maxnodes)
{
	cube_move a4[1][32];
	int l4;
	int n4 = p4_search(T, c, max < 31 ? max : 31, 1, a4, &l4, maxnodes);
	if (n4 < 1)
		return -1;
	cube_t *d = malloc(cube_sizeof(5));
	if (!d)
		return -1;
	cube_copy(d, c);
	cube_apply_moves(d, a4[0], (size_t)l4);
	int l5 = p5_search(T, d, out + l4, max - l4, maxnodes);
	free(d);
	if (l5 < 0)
		return -1;
	memcpy(out, a4[0], sizeof(cube_move) * (size_t)l4);
	cube_apply_moves(c, out, (size_t)(l4 + l5));
	*len4 = l4, *len5 = l5;
	return l4 + l5;
}
