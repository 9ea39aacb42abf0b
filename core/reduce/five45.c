/* five45.c — phases 4 and 5 of a five-phase 5×5 reduction (ported from
 * the research prototype, in the history at b2b1c5f, whose program held
 * the same search with malloc'd tables).
 *
 *   phase 4  turns U D (any), R2 L2 F2 B2 and the six wide half turns:
 *            four paired edges into the S slice (UL UR DL DR) and the
 *            U/D, R/L centres into one of the 36 combinations phase 5
 *            solves;
 *   phase 5  turns F B (any), U2 D2 R2 L2, Uw2 Dw2 Rw2 Lw2: every centre
 *            solved and the other eight edges paired.
 *
 * The piece model (which stickers are x-centres, +-centres, wings, midges,
 * and where each turn sends them) is learned from cube_turn: stickers are
 * labelled, each turn applied, the labels read back; stickers of one piece
 * are those moved by exactly the same single-layer turns. The wings fall
 * into two classes of 12 (the orbits of the 20 turns); phase 3 leaves each
 * edge with one wing of each.
 *
 * Tables, all breadth-first from the goal, in one caller-provided blob:
 *   p4c  4900·4900 bytes   (U/D x, U/D +) × (R/L x, R/L +) splits
 *   p4e  70·1680·1680 nib  the 4 U/D-layer midge places of the chosen
 *                          edges, their A wings' and B wings' places
 *   p5c  36·4900 bytes     the U/D,R/L combination × the F/B splits
 *   p5a, p5b 40320·4900 nib  each wing class's pairing permutation × the
 *                          F/B splits
 * The three big ones hold 4-bit depths (15: unseen; every depth is <= 14,
 * which the build checks), the small ones bytes (0xFF unseen). Pure C11:
 * no allocation, no globals but const data.
 */
#include <string.h>

#include "cube_internal.h"
#include "five45.h"
#include "nibbles.h"

/* ---- moves ------------------------------------------------------------- */

#define NMV 20
#define NS 150
enum { mU, mU2, mUp, mD, mD2, mDp, mR2, mL2, mF2, mB2, mUw2, mDw2, mRw2,
       mLw2, mFw2, mBw2, mF, mFp, mB, mBp };
/* axis, qt, lo, hi; the first 16 are phase 4's, in its search order */
static const cube_move MV[NMV] = {
	{1, 1, 0, 0}, {1, 2, 0, 0}, {1, 3, 0, 0}, {1, 3, 4, 4}, {1, 2, 4, 4},
	{1, 1, 4, 4}, {0, 2, 0, 0}, {0, 2, 4, 4}, {2, 2, 0, 0}, {2, 2, 4, 4},
	{1, 2, 0, 1}, {1, 2, 3, 4}, {0, 2, 0, 1}, {0, 2, 3, 4}, {2, 2, 0, 1},
	{2, 2, 3, 4}, {2, 1, 0, 0}, {2, 3, 0, 0}, {2, 3, 4, 4}, {2, 1, 4, 4}};
/* Layer group, for redundancy: two turns of one group in a row merge, and
 * turns of one axis commute, so within an axis the groups must rise. */
static const int GRP[NMV] = {0, 0, 0, 1, 1, 1, 4, 5, 8, 9,
			     2, 3, 6, 7, 10, 11, 8, 8, 9, 9};
#define NG4 16
#define NG5 14
static const int G5[NG5] = {mF, mF2, mFp, mB, mB2, mBp, mU2,
			    mD2, mR2, mL2, mUw2, mDw2, mRw2, mLw2};

/* ---- sizes ------------------------------------------------------------- */

#define N8 70      /* 4-subsets of 8 */
#define NT 1680    /* ordered 4-tuples of distinct places of 8 */
#define NP8 40320  /* permutations of 8 */
#define NFB 4900   /* a pair of splits */
#define MAXC 64    /* room for phase 5's centre combinations (36) */
#define P4C_N ((size_t)NFB * NFB)
#define P4E_N ((size_t)N8 * NT * NT)
#define P5C_N ((size_t)MAXC * NFB)
#define P5W_N ((size_t)NP8 * NFB)
#define MAXD 14    /* the deepest entry any table may hold */
#define NIB_UNSEEN 15
#define P4_MAXLEN 24 /* the answers' rows hold 24 moves */
#define P5_MAXLEN 63

static const int fact[9] = {1, 1, 2, 6, 24, 120, 720, 5040, 40320};
static const int AXF[3][2] = {{CUBE_U, CUBE_D}, {CUBE_R, CUBE_L},
			      {CUBE_F, CUBE_B}};

struct model {
	/* combinatorics */
	int subs[N8], rk8[256];
	int tup[NT][4], tupIdx[4096];
	int perm4[24][4], p4idx[256];
	/* pieces */
	uint8_t to[NMV][NS]; /* sticker s goes to to[m][s] */
	int xs[24], ps[24], xperm[NMV][24], pperm[NMV][24];
	int ws[24][2], wpos[24], wcls[24], wperm[NMV][24];
	int ms[12][2], mperm[NMV][12], mk[12];
	int Aslot[12], Bslot[12];
	int wid[6][6], mid[6][6];
	int posS[4]; /* UL UR DL DR */
	/* phase 4 coordinates */
	int udpos[8]; /* U/D-layer midge positions */
	int setMv[N8][NG4], setSg[N8][NG4];
	uint16_t rowA[NG4][24][NT], rowB[NG4][24][NT];
	int goalS, goalA, goalB;
	/* centre splits: [axis 0 UD, 1 RL, 2 FB][0 x, 1 +][70][NMV] */
	uint8_t spl[3][2][N8][NMV];
	int nc36;
	uint32_t c36[MAXC]; /* ((udx*70+udp)*70+rlx)*70+rlp */
	int c36mv[MAXC][NG5];
	/* phase 5 */
	int nspos[8];
	uint16_t fbrow[NG5][NFB];
	uint16_t rmvA[NP8 * NG5], rmvB[NP8 * NG5];
};

/* Layout of the blob: the model, then the tables, each 64-aligned. */
#define ALIGN64(x) (((x) + 63) & ~(size_t)63)
#define OFF_MODEL ((size_t)0)
#define OFF_P4C ALIGN64(OFF_MODEL + sizeof(struct model))
#define OFF_P4E ALIGN64(OFF_P4C + P4C_N)
#define OFF_P5C ALIGN64(OFF_P4E + P4E_N / 2)
#define OFF_P5A ALIGN64(OFF_P5C + P5C_N)
#define OFF_P5B ALIGN64(OFF_P5A + P5W_N / 2)
#define F45_SIZE ALIGN64(OFF_P5B + P5W_N / 2)

size_t reduce__five45_size(void)
{
	return F45_SIZE;
}

/* Work: a 5×5 for the model, one block's list, phase 4's R/L rows. */
#define WORK_CUBE 512
#define WORK_LST ALIGN64((size_t)NFB * 2)
#define WORK_RL ((size_t)NG4 * NFB * 2)

size_t reduce__five45_work_size(void)
{
	return 64 + WORK_CUBE + WORK_LST + WORK_RL;
}

static inline const struct model *model_of(const void *t)
{
	return (const struct model *)(const void *)((const unsigned char *)t +
						    OFF_MODEL);
}


/* ---- combinatorics ----------------------------------------------------- */

static void combi_init(struct model *M)
{
	int n = 0;
	for (int m = 0; m < 256; m++) {
		M->rk8[m] = -1;
		if (__builtin_popcount((unsigned)m) == 4) {
			M->rk8[m] = n;
			M->subs[n++] = m;
		}
	}
	n = 0;
	for (int i = 0; i < 4096; i++)
		M->tupIdx[i] = -1;
	for (int a = 0; a < 8; a++)
		for (int b = 0; b < 8; b++)
			for (int c = 0; c < 8; c++)
				for (int d = 0; d < 8; d++) {
					if (a == b || a == c || a == d ||
					    b == c || b == d || c == d)
						continue;
					M->tup[n][0] = a, M->tup[n][1] = b;
					M->tup[n][2] = c, M->tup[n][3] = d;
					M->tupIdx[a * 512 + b * 64 + c * 8 + d] =
						n++;
				}
	n = 0;
	for (int i = 0; i < 256; i++)
		M->p4idx[i] = -1;
	for (int a = 0; a < 4; a++)
		for (int b = 0; b < 4; b++)
			for (int c = 0; c < 4; c++)
				for (int d = 0; d < 4; d++) {
					if (a == b || a == c || a == d ||
					    b == c || b == d || c == d)
						continue;
					M->perm4[n][0] = a, M->perm4[n][1] = b;
					M->perm4[n][2] = c, M->perm4[n][3] = d;
					M->p4idx[a * 64 + b * 16 + c * 4 + d] =
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

/* ---- the piece model, from cube_turn ------------------------------------ */

/* 0 middle, 1 x-centre, 2 +-centre, 3 wing, 4 midge, 5 corner */
static int styp(int s)
{
	int r = (s / 5) % 5, c = s % 5;
	int er = (r == 0 || r == 4), ec = (c == 0 || c == 4);
	if (er && ec)
		return 5;
	if (er || ec)
		return (r == 2 || c == 2) ? 4 : 3;
	if (r == 2 && c == 2)
		return 0;
	if (r == 2 || c == 2)
		return 2;
	return 1;
}
#define FACE(s) ((s) / 25)

/* Label every sticker with 6 + its index (above the colours), turn, and
 * read where each label went. */
static int sticker_perm(cube_t *c, int axis, int lo, int hi, int qt,
			uint8_t *to)
{
	cube_init(c, 5);
	for (int s = 0; s < NS; s++)
		cube__set(c, s / 25, (s / 5) % 5, s % 5, 6 + s);
	cube_turn(c, axis, lo, hi, qt);
	int seen[NS] = {0};
	for (int p = 0; p < NS; p++) {
		int l = cube_get(c, p / 25, (p / 5) % 5, p % 5) - 6;
		if (l < 0 || l >= NS || seen[l]++)
			return -1;
		to[l] = (uint8_t)p;
	}
	return 0;
}

#define FAIL() return SOLVE_ESTAGE

static int find_root(int *uf, int x)
{
	while (uf[x] != x)
		x = uf[x] = uf[uf[x]];
	return x;
}

static int model_build(struct model *T, cube_t *cb)
{
	uint8_t gen[15][NS];
	uint32_t sig[NS];
	memset(sig, 0, sizeof sig);
	for (int a = 0; a < 3; a++)
		for (int l = 0; l < 5; l++) {
			if (sticker_perm(cb, a, l, l, 1, gen[a * 5 + l]))
				FAIL();
			for (int s = 0; s < NS; s++)
				if (gen[a * 5 + l][s] != s)
					sig[s] |= 1u << (a * 5 + l);
		}
	for (int m = 0; m < NMV; m++)
		if (sticker_perm(cb, MV[m].axis, MV[m].lo, MV[m].hi, MV[m].qt,
				 T->to[m]))
			FAIL();
	/* no turn here moves a face's middle sticker: the colours name the
	 * faces for good */
	for (int m = 0; m < NMV; m++)
		for (int f = 0; f < 6; f++)
			if (T->to[m][f * 25 + 12] != f * 25 + 12)
				FAIL();
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
		FAIL();
	for (int m = 0; m < NMV; m++)
		for (int i = 0; i < 24; i++) {
			int x = slotX[T->to[m][T->xs[i]]];
			int p = slotP[T->to[m][T->ps[i]]];
			if (x < 0 || p < 0)
				FAIL();
			T->xperm[m][i] = x, T->pperm[m][i] = p;
		}
	/* wings and midges: the two stickers of one piece share a
	 * signature */
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
			FAIL();
		if (t == 3) {
			if (nw >= 24)
				FAIL();
			wpair[nw][0] = s, wpair[nw][1] = q;
			slotW[s] = slotW[q] = nw++;
		} else {
			if (nm >= 12)
				FAIL();
			T->ms[nm][0] = s, T->ms[nm][1] = q;
			slotM[s] = slotM[q] = nm++;
		}
	}
	if (nw != 24 || nm != 12)
		FAIL();
	/* every wing slot's sticker order, carried by the 15 single-layer
	 * turns from slot 0 (wings are chiral: one never flips in place) */
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
				FAIL();
			if (!set[w2]) {
				T->ws[w2][0] = p, T->ws[w2][1] = q;
				set[w2] = 1, queue[qt++] = w2;
			} else if (T->ws[w2][0] != p)
				FAIL();
		}
	}
	if (qt != 24)
		FAIL();
	/* wing slot → edge position (the midge slot on the same faces) */
	for (int w = 0; w < 24; w++) {
		int f1 = FACE(T->ws[w][0]), f2 = FACE(T->ws[w][1]), found = -1;
		for (int p = 0; p < 12; p++) {
			int g1 = FACE(T->ms[p][0]), g2 = FACE(T->ms[p][1]);
			if ((g1 == f1 && g2 == f2) || (g1 == f2 && g2 == f1))
				found = p;
		}
		if (found < 0)
			FAIL();
		T->wpos[w] = found;
	}
	for (int m = 0; m < NMV; m++) {
		for (int w = 0; w < 24; w++) {
			int p = T->to[m][T->ws[w][0]];
			int w2 = slotW[p];
			if (w2 < 0 || T->ws[w2][0] != p)
				FAIL();
			T->wperm[m][w] = w2;
		}
		for (int p = 0; p < 12; p++) {
			int q = slotM[T->to[m][T->ms[p][0]]];
			if (q < 0)
				FAIL();
			T->mperm[m][p] = q;
		}
	}
	/* wing classes: the orbits of the 20 turns; two of 12, one slot of
	 * each on every edge */
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
				FAIL();
			T->Aslot[p] = w;
		} else {
			T->wcls[w] = 1;
			if (T->Bslot[p] >= 0)
				FAIL();
			T->Bslot[p] = w;
		}
	}
	for (int w = 0; w < 24; w++)
		if (find_root(uf, w) != ra &&
		    find_root(uf, w) != find_root(uf, T->Bslot[0]))
			FAIL();
	if (nA != 12)
		FAIL();
	/* a midge's sticker [0] is on the face of its A slot's first
	 * sticker */
	for (int p = 0; p < 12; p++) {
		int fa = FACE(T->ws[T->Aslot[p]][0]);
		if (FACE(T->ms[p][0]) != fa) {
			int t = T->ms[p][0];
			T->ms[p][0] = T->ms[p][1], T->ms[p][1] = t;
		}
		if (FACE(T->ms[p][0]) != fa)
			FAIL();
	}
	/* midge orientation corrections, walked over the 20 turns from
	 * position 0; they must agree on every path */
	int mset[12] = {0};
	qh = qt = 0;
	T->mk[0] = 0, mset[0] = 1, queue[qt++] = 0;
	while (qh < qt) {
		int p = queue[qh++];
		for (int m = 0; m < NMV; m++) {
			int q = T->mperm[m][p];
			int fl = T->to[m][T->ms[p][0]] != T->ms[q][0];
			if (!mset[q]) {
				T->mk[q] = T->mk[p] ^ fl;
				mset[q] = 1, queue[qt++] = q;
			} else if (T->mk[q] != (T->mk[p] ^ fl))
				FAIL();
		}
	}
	if (qt != 12)
		FAIL();
	/* piece identities by colours */
	memset(T->wid, -1, sizeof T->wid);
	memset(T->mid, -1, sizeof T->mid);
	for (int w = 0; w < 24; w++) {
		int a = FACE(T->ws[w][0]), b = FACE(T->ws[w][1]);
		if (T->wid[a][b] >= 0)
			FAIL();
		T->wid[a][b] = w;
	}
	for (int p = 0; p < 12; p++) {
		int a = FACE(T->ms[p][0]), b = FACE(T->ms[p][1]);
		T->mid[a][b] = T->mid[b][a] = p;
	}
	static const int sf[4][2] = {{CUBE_U, CUBE_L}, {CUBE_U, CUBE_R},
				     {CUBE_D, CUBE_L}, {CUBE_D, CUBE_R}};
	for (int i = 0; i < 4; i++)
		T->posS[i] = T->mid[sf[i][0]][sf[i][1]];
	return 0;
}

/* ---- coordinates -------------------------------------------------------- */

/* place i (0..7) of axis a → slot in xs / ps (4 a face, faces in order) */
static int place(int a, int i)
{
	return AXF[a][i / 4] * 4 + i % 4;
}

static int build_coords(struct model *T)
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
						FAIL();
				}
				for (int k = 0; k < N8; k++) {
					int mk = 0;
					for (int i = 0; i < 8; i++)
						if (T->subs[k] >> i & 1)
							mk |= 1 << pp[i];
					T->spl[a][t][k][m] = (uint8_t)T->rk8[mk];
				}
			}
	/* phase 4 edges: the U/D-layer positions */
	int n = 0;
	for (int p = 0; p < 12; p++) {
		int f1 = FACE(T->ms[p][0]), f2 = FACE(T->ms[p][1]);
		if (f1 == CUBE_U || f1 == CUBE_D || f2 == CUBE_U ||
		    f2 == CUBE_D) {
			if (n >= 8)
				FAIL();
			T->udpos[n++] = p;
		}
	}
	if (n != 8)
		FAIL();
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
			/* phase 4 keeps the U/D layers' pieces there */
			if (pm8[m][i] < 0 || pa8[m][i] < 0 || pb8[m][i] < 0)
				FAIL();
			/* and keeps the classes: slot A goes to a slot A */
			if (T->wcls[T->wperm[m][T->Aslot[p]]] != 0)
				FAIL();
		}
	for (int s = 0; s < N8; s++)
		for (int m = 0; m < NG4; m++) {
			int old[4], k = 0, mk = 0;
			for (int i = 0; i < 8; i++)
				if (T->subs[s] >> i & 1)
					old[k++] = pm8[m][i];
			for (k = 0; k < 4; k++)
				mk |= 1 << old[k];
			int sg[4];
			for (k = 0; k < 4; k++) /* new rank of old rank k */
				sg[k] = __builtin_popcount(
					(unsigned)(mk & ((1 << old[k]) - 1)));
			T->setMv[s][m] = T->rk8[mk];
			T->setSg[s][m] = T->p4idx[sg[0] * 64 + sg[1] * 16 +
						  sg[2] * 4 + sg[3]];
		}
	for (int m = 0; m < NG4; m++)
		for (int g = 0; g < 24; g++)
			for (int t = 0; t < NT; t++) {
				int na[4], nb[4];
				for (int k = 0; k < 4; k++) {
					na[T->perm4[g][k]] = pa8[m][T->tup[t][k]];
					nb[T->perm4[g][k]] = pb8[m][T->tup[t][k]];
				}
				T->rowA[m][g][t] = (uint16_t)T->tupIdx
					[na[0] * 512 + na[1] * 64 + na[2] * 8 +
					 na[3]];
				T->rowB[m][g][t] = (uint16_t)T->tupIdx
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
			if (mk >> j & 1) {
				if (k >= 4)
					FAIL();
				r[k++] = j;
			}
		if (k != 4)
			FAIL();
		T->goalS = T->rk8[mk];
		/* the A wing of rank k sits at the A slot of the rank-k
		 * position, U/D-layer index r[k] in the A list */
		T->goalA = T->goalB =
			T->tupIdx[r[0] * 512 + r[1] * 64 + r[2] * 8 + r[3]];
	}
	/* phase 5: the centre combinations its turns reach from solved */
	int solved = T->rk8[0x0f]; /* places 0..3, the + face */
	T->nc36 = 1;
	T->c36[0] = (uint32_t)(((solved * 70 + solved) * 70 + solved) * 70 +
			       solved);
	for (int i = 0; i < T->nc36; i++) {
		uint32_t v = T->c36[i];
		int rlp = (int)(v % 70), rlx = (int)(v / 70 % 70),
		    udp = (int)(v / 4900 % 70), udx = (int)(v / 343000);
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
					FAIL();
				f = T->nc36;
				T->c36[T->nc36++] = w;
			}
			T->c36mv[i][j] = f;
		}
	}
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
		if (!s) {
			if (n >= 8)
				FAIL();
			T->nspos[n++] = p;
		}
	}
	if (n != 8)
		FAIL();
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
			/* phase 5 never moves a piece into the S slice */
			if (pm5[j][i] < 0 || pa5[j][i] < 0 || pb5[j][i] < 0)
				FAIL();
		}
		/* and keeps the S slice's edges paired */
		for (int i = 0; i < 4; i++) {
			int p = T->posS[i], q = T->mperm[m][p];
			if (T->wperm[m][T->Aslot[p]] != T->Aslot[q] ||
			    T->wperm[m][T->Bslot[p]] != T->Bslot[q])
				FAIL();
		}
	}
	for (int r = 0; r < NP8; r++) {
		int p[8], q[8];
		punrank8(r, p);
		for (int j = 0; j < NG5; j++) {
			/* r' = pm ∘ r ∘ pw⁻¹: r'[pw[k]] = pm[r[k]] */
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

/* ---- breadth-first tables ------------------------------------------------
 * A state is hi·nlo + lo; turn j sends it to hi2·nlo + row[lo], where
 * (hi2, row) depend on the table, hi and j only (step). Turn sets are
 * closed under inverses (U↔U', the rest their own), so a backward pass
 * (each unseen state looks for a neighbour at depth d) is exact; it runs
 * once the unseen states are fewer than three times the frontier, as in
 * the research code. */

enum { K_P4C, K_P4E, K_P5C, K_P5A, K_P5B };

struct bfsjob {
	const struct model *M;
	const uint16_t (*rl4)[NFB]; /* phase 4's R/L rows (work) */
	uint16_t *lst;              /* one block's list (work) */
	int kind, nib, nm, nlo;
	long nhi;
	solve_poll_fn poll;
	void *ctx;
	uint64_t base, total; /* progress: entries of the tables before,
			       * and of all five */
};

static inline void step(const struct bfsjob *B, long hi, int j, long *hi2,
			const uint16_t **row)
{
	const struct model *M = B->M;
	switch (B->kind) {
	case K_P4C:
		*hi2 = M->spl[0][0][hi / 70][j] * 70 + M->spl[0][1][hi % 70][j];
		*row = B->rl4[j];
		return;
	case K_P4E: {
		int s = (int)(hi / NT), a = (int)(hi % NT);
		int g = M->setSg[s][j];
		*hi2 = (long)M->setMv[s][j] * NT + M->rowA[j][g][a];
		*row = M->rowB[j][g];
		return;
	}
	case K_P5C:
		*hi2 = M->c36mv[hi][j];
		*row = M->fbrow[j];
		return;
	default: {
		const uint16_t *rm = B->kind == K_P5B ? M->rmvB : M->rmvA;
		*hi2 = rm[hi * NG5 + j];
		*row = M->fbrow[j];
		return;
	}
	}
}

static inline int tget(const uint8_t *t, int nib, size_t i)
{
	if (nib)
		return nib_get(t, i);
	return t[i] == 0xFF ? NIB_UNSEEN : t[i];
}

static inline void tset(uint8_t *t, int nib, size_t i, int v)
{
	if (nib)
		nib_set(t, i, v);
	else
		t[i] = (uint8_t)v;
}

/* tab holds 0 at the goals, unseen elsewhere. 0, SOLVE_ECANCELLED, or
 * SOLVE_ESTAGE if some state lies deeper than MAXD. */
static int bfs(uint8_t *tab, const struct bfsjob *B)
{
	const int nib = B->nib, nlo = B->nlo, nm = B->nm;
	const long nhi = B->nhi;
	uint16_t *lst = B->lst;
	long total = nhi * (long)nlo, front = 0, seen;
	for (long i = 0; i < total; i++)
		front += tget(tab, nib, (size_t)i) == 0;
	seen = front;
	for (int d = 0; front > 0; d++) {
		long newc = 0;
		int back = total - seen < 3 * front;
		for (long hi = 0; hi < nhi; hi++) {
			if ((hi & 1023) == 0 && B->poll &&
			    B->poll(B->ctx, B->base + (uint64_t)seen, B->total))
				return SOLVE_ECANCELLED;
			size_t blk = (size_t)hi * (size_t)nlo;
			int n = 0;
			int want = back ? NIB_UNSEEN : d;
			for (int lo = 0; lo < nlo; lo++)
				if (tget(tab, nib, blk + (size_t)lo) == want)
					lst[n++] = (uint16_t)lo;
			for (int j = 0; j < nm && n > 0; j++) {
				long hi2;
				const uint16_t *r;
				step(B, hi, j, &hi2, &r);
				size_t tgt = (size_t)hi2 * (size_t)nlo;
				if (!back) {
					for (int i = 0; i < n; i++) {
						size_t x = tgt + r[lst[i]];
						if (tget(tab, nib, x) ==
						    NIB_UNSEEN) {
							tset(tab, nib, x, d + 1);
							newc++;
						}
					}
				} else {
					int n2 = 0;
					for (int i = 0; i < n; i++) {
						if (tget(tab, nib,
							 tgt + r[lst[i]]) == d) {
							tset(tab, nib,
							     blk + lst[i], d + 1);
							newc++;
						} else
							lst[n2++] = lst[i];
					}
					n = n2;
				}
			}
		}
		/* a depth of 15 would read as unseen (and was written as
		 * that): the tables' bound is broken */
		if (d + 1 > MAXD && newc > 0)
			return SOLVE_ESTAGE;
		front = newc;
		seen += newc;
	}
	return 0;
}

int reduce__five45_build(void *t, void *work, solve_poll_fn poll, void *ctx)
{
	if (!t || !work)
		return CUBE_EINVAL;
	unsigned char *T = t;
	struct model *M = (struct model *)(void *)(T + OFF_MODEL);
	unsigned char *w =
		(unsigned char *)(((uintptr_t)work + 63) & ~(uintptr_t)63);
	if (cube_sizeof(5) > WORK_CUBE)
		return CUBE_EINVAL;
	memset(M, 0, sizeof *M);
	combi_init(M);
	int rc = model_build(M, (cube_t *)(void *)w);
	if (rc)
		return rc;
	rc = build_coords(M);
	if (rc)
		return rc;
	uint16_t(*rl4)[NFB] =
		(uint16_t(*)[NFB])(void *)(w + WORK_CUBE + WORK_LST);
	for (int m = 0; m < NG4; m++)
		for (int k = 0; k < NFB; k++)
			rl4[m][k] = (uint16_t)(M->spl[1][0][k / 70][m] * 70 +
					       M->spl[1][1][k % 70][m]);
	struct bfsjob B = {
		.M = M,
		.rl4 = (const uint16_t(*)[NFB])(const void *)rl4,
		.lst = (uint16_t *)(void *)(w + WORK_CUBE),
		.poll = poll,
		.ctx = ctx,
		.total = P4C_N + P4E_N + (uint64_t)M->nc36 * NFB + 2 * P5W_N,
	};
	int sol = M->rk8[0x0f];
	/* phase 4 centres: goals are phase 5's 36 combinations */
	uint8_t *p4c = T + OFF_P4C;
	memset(p4c, 0xFF, P4C_N);
	for (int i = 0; i < M->nc36; i++)
		p4c[M->c36[i]] = 0;
	B.kind = K_P4C, B.nib = 0, B.nm = NG4, B.nlo = NFB, B.nhi = NFB;
	if ((rc = bfs(p4c, &B)))
		return rc;
	B.base += P4C_N;
	/* phase 4 edges: the S slice's four edges, paired */
	uint8_t *p4e = T + OFF_P4E;
	memset(p4e, 0xFF, P4E_N / 2);
	nib_set(p4e, ((size_t)M->goalS * NT + (size_t)M->goalA) * NT +
			     (size_t)M->goalB, 0);
	B.kind = K_P4E, B.nib = 1, B.nm = NG4, B.nlo = NT, B.nhi = (long)N8 * NT;
	if ((rc = bfs(p4e, &B)))
		return rc;
	B.base += P4E_N;
	/* phase 5 centres: combination 0 is solved */
	uint8_t *p5c = T + OFF_P5C;
	memset(p5c, 0xFF, P5C_N);
	p5c[sol * 70 + sol] = 0;
	B.kind = K_P5C, B.nib = 0, B.nm = NG5, B.nlo = NFB, B.nhi = M->nc36;
	if ((rc = bfs(p5c, &B)))
		return rc;
	B.base += (uint64_t)M->nc36 * NFB;
	/* phase 5 pairing: rank 0 (the identity) with F/B solved */
	for (int cl = 0; cl < 2; cl++) {
		uint8_t *p = T + (cl ? OFF_P5B : OFF_P5A);
		memset(p, 0xFF, P5W_N / 2);
		nib_set(p, (size_t)(sol * 70 + sol), 0);
		B.kind = cl ? K_P5B : K_P5A, B.nib = 1, B.nm = NG5;
		B.nlo = NFB, B.nhi = NP8;
		if ((rc = bfs(p, &B)))
			return rc;
		B.base += P5W_N;
	}
	if (poll && poll(ctx, B.total, B.total))
		return SOLVE_ECANCELLED;
	return 0;
}

long reduce__five45_census(const void *t, int which, long counts[16])
{
	if (!t || !counts || which < 0 || which > 4)
		return -1;
	const unsigned char *T = t;
	const struct model *M = model_of(t);
	static const size_t off[5] = {OFF_P4C, OFF_P4E, OFF_P5C, OFF_P5A,
				      OFF_P5B};
	static const int nib[5] = {0, 1, 0, 1, 1};
	size_t n = which == 0   ? P4C_N
		   : which == 1 ? P4E_N
		   : which == 2 ? (size_t)M->nc36 * NFB
				: P5W_N;
	memset(counts, 0, 16 * sizeof *counts);
	for (size_t i = 0; i < n; i++) {
		int v = tget(T + off[which], nib[which], i);
		counts[v > NIB_UNSEEN ? NIB_UNSEEN : v]++;
	}
	return (long)n;
}

/* ---- reading a cube ------------------------------------------------------ */

#define COL(c, s) cube_get((c), (s) / 25, ((s) / 5) % 5, (s) % 5)

struct pieces {
	int wat[24];  /* wing piece (home slot) in each wing slot */
	int mat[12];  /* edge (home position) of the midge in each position */
	int wsl[24];  /* slot of each wing piece */
	int mpos[12]; /* position of each edge's midge */
	int split[3][2];
};

static int read_pieces(const struct model *T, const cube_t *c,
		       struct pieces *P)
{
	if (!c || c->n != 5)
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
			if (T->rk8[mk] < 0)
				return -1;
			P->split[a][t] = T->rk8[mk];
		}
	return 0;
}

/* Of edge e's two wing pieces, the one in a slot of class cls. */
static int awing(const struct model *T, const struct pieces *P, int e,
		 int cls)
{
	for (int w = 0; w < 24; w++)
		if (T->wpos[w] == e && T->wcls[P->wsl[w]] == cls)
			return w;
	return -1;
}

static int phase3_ok(const struct model *T, const cube_t *c,
		     struct pieces *P)
{
	if (read_pieces(T, c, P))
		return 0;
	for (int e = 0; e < 12; e++) {
		int wa = awing(T, P, e, 0), wb = awing(T, P, e, 1);
		if (wa < 0 || wb < 0)
			return 0;
		/* the colour on the midge's [0] sticker (its A slot's first
		 * face) is the A wing's first colour, up to the position's
		 * correction */
		int p = P->mpos[e];
		int x = FACE(T->ws[wa][0]);
		if (!((COL(c, T->ms[p][0]) == x) ^ T->mk[p]))
			return 0;
	}
	return 1;
}

static int c36_of(const struct model *T, const struct pieces *P)
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

/* Phase 5's coordinates; -1 if c is not in phase 4's goal. */
static int p5_coords(const struct model *T, const cube_t *c, int *cc,
		     int *fb, int *ra, int *rb)
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

int reduce__five45_ud_edges(const void *t, const cube_t *c)
{
	if (!t)
		return -1;
	const struct model *T = model_of(t);
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

/* ---- the searches --------------------------------------------------------- */

struct ch4 {
	uint8_t s;
	uint16_t a, b;
};

struct f45s {
	const struct model *M;
	const uint8_t *p4c, *p4e, *p5c, *p5a, *p5b;
	int bound, k, nfound, stopped;
	cube_move (*out)[24];
	int *lens;
	long *nodes, maxnodes, after; /* after: phase 4's, past its first */
	solve_poll_fn poll;
	void *ctx;
	int path[P5_MAXLEN + 1];
	struct ch4 all[N8];
	struct ch4 ch[P4_MAXLEN + 2][N8];
};

size_t reduce__five45_search_size(void)
{
	return ALIGN64(sizeof(struct f45s));
}

static void search_init(struct f45s *S, const void *t, long maxnodes,
			long *nodes, solve_poll_fn poll, void *ctx)
{
	const unsigned char *T = t;
	S->M = model_of(t);
	S->p4c = T + OFF_P4C, S->p4e = T + OFF_P4E, S->p5c = T + OFF_P5C;
	S->p5a = T + OFF_P5A, S->p5b = T + OFF_P5B;
	S->maxnodes = maxnodes, S->nodes = nodes, S->after = maxnodes;
	S->poll = poll, S->ctx = ctx, S->stopped = 0;
	S->nfound = 0;
}

/* A node counted against the caller's budget; every 65,536th asks poll,
 * and a stop ends the search (S->stopped says it was poll). */
static inline int count_node(struct f45s *S)
{
	long n = ++*S->nodes;
	if ((n & 0xffff) == 0 && S->poll &&
	    S->poll(S->ctx, (uint64_t)n, (uint64_t)S->maxnodes)) {
		S->stopped = 1;
		return 1;
	}
	return 0;
}

static inline int skip(int m, int prev)
{
	return prev >= 0 &&
	       (GRP[m] == GRP[prev] ||
		(MV[m].axis == MV[prev].axis && GRP[m] < GRP[prev]));
}

static inline size_t e4idx(int s, int a, int b)
{
	return ((size_t)s * NT + (size_t)a) * NT + (size_t)b;
}

/* Phase 4 keeps every choice of four edges (all whose pieces are in the
 * U/D layers) that can still finish: a choice dies when its table entry
 * exceeds what is left. Entries are <= MAXD, so "left" is capped there
 * and an unseen (15) entry never passes. 1 to stop. */
static int dfs4(struct f45s *S, int g, int ud, int rl, int nch, int prev)
{
	const struct model *T = S->M;
	if (g == S->bound) {
		for (int i = 0; i < g; i++)
			S->out[S->nfound][i] = MV[S->path[i]];
		S->lens[S->nfound] = g;
		/* the first answer: at most after nodes more */
		if (!S->nfound && S->maxnodes - *S->nodes > S->after)
			S->maxnodes = *S->nodes + S->after;
		return ++S->nfound >= S->k;
	}
	if (*S->nodes > S->maxnodes)
		return 1;
	int rem = S->bound - g - 1, remc = rem < MAXD ? rem : MAXD;
	const struct ch4 *cur = S->ch[g];
	struct ch4 *nx = S->ch[g + 1];
	/* the tables' reads are cache misses: each move's centre entry is
	 * asked for at once, then each choice's edge entries */
	int ud2s[NG4], rl2s[NG4];
	for (int m = 0; m < NG4; m++) {
		if (skip(m, prev))
			continue;
		ud2s[m] = T->spl[0][0][ud / 70][m] * 70 + T->spl[0][1][ud % 70][m];
		rl2s[m] = T->spl[1][0][rl / 70][m] * 70 + T->spl[1][1][rl % 70][m];
		__builtin_prefetch(S->p4c + (size_t)ud2s[m] * NFB + (size_t)rl2s[m]);
	}
	for (int m = 0; m < NG4; m++) {
		if (skip(m, prev))
			continue;
		int ud2 = ud2s[m], rl2 = rl2s[m];
		if (S->p4c[(size_t)ud2 * NFB + (size_t)rl2] > rem)
			continue;
		for (int i = 0; i < nch; i++) {
			int s = cur[i].s, sg = T->setSg[s][m];
			int s2 = T->setMv[s][m];
			int a2 = T->rowA[m][sg][cur[i].a];
			int b2 = T->rowB[m][sg][cur[i].b];
			nx[i].s = (uint8_t)s2;
			nx[i].a = (uint16_t)a2;
			nx[i].b = (uint16_t)b2;
			__builtin_prefetch(S->p4e + (e4idx(s2, a2, b2) >> 1));
		}
		int n = 0;
		for (int i = 0; i < nch; i++)
			if (nib_get(S->p4e, e4idx(nx[i].s, nx[i].a, nx[i].b)) <= remc)
				nx[n++] = nx[i];
		if (!n)
			continue;
		if (count_node(S))
			return 1;
		S->path[g] = m;
		if (dfs4(S, g + 1, ud2, rl2, n, m))
			return 1;
	}
	return 0;
}

/* Phase 4's root: the choices into S->all (their count), the centre
 * coordinates, and the bound h0 (> MAXD: no choice can finish); -1 if c
 * is not in phase 3's goal. */
static int p4_start(struct f45s *S, const cube_t *c, int *ud, int *rl,
		    int *h0)
{
	const struct model *T = S->M;
	struct pieces P;
	if (!phase3_ok(T, c, &P))
		return -1;
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
		if (__builtin_popcount((unsigned)mk) != 4)
			continue;
		int set = 0, a[4], b[4], k2 = 0;
		for (int i = 0; i < ne; i++) /* er ascending: rank order */
			if (mk >> i & 1) {
				set |= 1 << er[i];
				a[k2] = ea[i], b[k2] = eb[i], k2++;
			}
		S->all[nch].s = (uint8_t)T->rk8[set];
		S->all[nch].a = (uint16_t)
			T->tupIdx[a[0] * 512 + a[1] * 64 + a[2] * 8 + a[3]];
		S->all[nch].b = (uint16_t)
			T->tupIdx[b[0] * 512 + b[1] * 64 + b[2] * 8 + b[3]];
		nch++;
	}
	*ud = P.split[0][0] * 70 + P.split[0][1];
	*rl = P.split[1][0] * 70 + P.split[1][1];
	int hc = S->p4c[(size_t)*ud * NFB + (size_t)*rl], he = NIB_UNSEEN;
	for (int i = 0; i < nch; i++) {
		int h = nib_get(S->p4e, e4idx(S->all[i].s, S->all[i].a,
					      S->all[i].b));
		if (h < he)
			he = h;
	}
	*h0 = hc > he ? hc : he;
	return nch;
}

/* Past MAXD the bound reads NIB_UNSEEN (15): phase 4 cannot finish. */
int reduce__five45_p4_h(const void *t, void *search, const cube_t *c)
{
	if (!t || !search)
		return -1;
	struct f45s *S = search;
	long nodes = 0;
	int ud, rl, h0;
	search_init(S, t, 0, &nodes, NULL, NULL);
	if (p4_start(S, c, &ud, &rl, &h0) < 0)
		return -1;
	return h0 > MAXD ? NIB_UNSEEN : h0;
}

int reduce__five45_p4(const void *t, void *search, const cube_t *c, int lo,
		      int hi, int k, cube_move (*out)[24], int *lens,
		      long maxnodes, long after, long *nodes, solve_poll_fn poll,
		      void *ctx)
{
	if (!t || !search || !out || !lens || !nodes || k < 1)
		return -1;
	struct f45s *S = search;
	int ud, rl, h0;
	search_init(S, t, maxnodes, nodes, poll, ctx);
	int nch = p4_start(S, c, &ud, &rl, &h0);
	if (nch < 0)
		return -1;
	S->k = k, S->out = out, S->lens = lens, S->after = after;
	if (hi > P4_MAXLEN)
		hi = P4_MAXLEN;
	for (int d = lo > h0 ? lo : h0; d <= hi && h0 <= MAXD; d++) {
		S->bound = d;
		/* only the choices that can finish within d */
		int n = 0, dc = d < MAXD ? d : MAXD;
		for (int i = 0; i < nch; i++)
			if (nib_get(S->p4e, e4idx(S->all[i].s, S->all[i].a,
						  S->all[i].b)) <= dc)
				S->ch[0][n++] = S->all[i];
		int r = dfs4(S, 0, ud, rl, n, -1);
		if (S->stopped)
			return SOLVE_ENOTFOUND;
		if (r || S->nfound)
			break;
	}
	return S->nfound;
}

/* Phase 5's bound: the largest of its three tables (unseen reads 15 or
 * 255, more than any real depth). */
static inline int h5(const struct f45s *S, int cc, int fb, int ra, int rb)
{
	int h = S->p5c[(size_t)cc * NFB + (size_t)fb];
	int x = nib_get(S->p5a, (size_t)ra * NFB + (size_t)fb);
	int y = nib_get(S->p5b, (size_t)rb * NFB + (size_t)fb);
	if (x > h)
		h = x;
	if (y > h)
		h = y;
	return h;
}

/* 1 found (the bound's depth is the goal: every table reads 0 there), 0
 * not, -1 over budget, -2 stopped by poll. */
static int dfs5(struct f45s *S, int g, int cc, int fb, int ra, int rb,
		int prev)
{
	const struct model *T = S->M;
	if (g == S->bound)
		return 1;
	if (*S->nodes > S->maxnodes)
		return -1;
	int rem = S->bound - g - 1, remc = rem < MAXD ? rem : MAXD;
	/* the children's pairing-table reads are cache misses: their
	 * lines are asked for all at once, then read */
	int kid[NG5], kcc[NG5], kfb[NG5], kra[NG5], krb[NG5], nk = 0;
	for (int j = 0; j < NG5; j++) {
		int m = G5[j];
		if (skip(m, prev))
			continue;
		int cc2 = T->c36mv[cc][j], fb2 = T->fbrow[j][fb];
		if (S->p5c[(size_t)cc2 * NFB + (size_t)fb2] > remc)
			continue;
		int ra2 = T->rmvA[ra * NG5 + j], rb2 = T->rmvB[rb * NG5 + j];
		__builtin_prefetch(S->p5a + (((size_t)ra2 * NFB + (size_t)fb2) >> 1));
		__builtin_prefetch(S->p5b + (((size_t)rb2 * NFB + (size_t)fb2) >> 1));
		kid[nk] = m, kcc[nk] = cc2, kfb[nk] = fb2, kra[nk] = ra2,
		krb[nk] = rb2, nk++;
	}
	for (int i = 0; i < nk; i++) {
		if (nib_get(S->p5a, (size_t)kra[i] * NFB + (size_t)kfb[i]) > remc ||
		    nib_get(S->p5b, (size_t)krb[i] * NFB + (size_t)kfb[i]) > remc)
			continue;
		if (count_node(S))
			return -2;
		S->path[g] = kid[i];
		int r = dfs5(S, g + 1, kcc[i], kfb[i], kra[i], krb[i], kid[i]);
		if (r)
			return r;
	}
	return 0;
}

int reduce__five45_p5_h(const void *t, void *search, const cube_t *c)
{
	if (!t || !search)
		return -1;
	struct f45s *S = search;
	long nodes = 0;
	search_init(S, t, 0, &nodes, NULL, NULL);
	int cc, fb, ra, rb;
	if (p5_coords(S->M, c, &cc, &fb, &ra, &rb))
		return -1;
	int h0 = h5(S, cc, fb, ra, rb);
	return h0 > MAXD ? NIB_UNSEEN : h0;
}

int reduce__five45_p5(const void *t, void *search, const cube_t *c, int lo,
		      cube_move *out, int max, long maxnodes, long *nodes,
		      solve_poll_fn poll, void *ctx)
{
	if (!t || !search || !out || !nodes)
		return -1;
	struct f45s *S = search;
	search_init(S, t, maxnodes, nodes, poll, ctx);
	int cc, fb, ra, rb;
	if (p5_coords(S->M, c, &cc, &fb, &ra, &rb))
		return -1;
	int h0 = h5(S, cc, fb, ra, rb);
	if (h0 > MAXD)
		return -1;
	if (max > P5_MAXLEN)
		max = P5_MAXLEN;
	for (int d = lo > h0 ? lo : h0; d <= max; d++) {
		S->bound = d;
		int r = dfs5(S, 0, cc, fb, ra, rb, -1);
		if (r == -2)
			return SOLVE_ENOTFOUND;
		if (r < 0)
			return -1;
		if (r > 0) {
			for (int i = 0; i < d; i++)
				out[i] = MV[S->path[i]];
			return d;
		}
	}
	return -1;
}
